/* Arena: bump allocation in blocks from the caller's allocator, freed all at once. */
#ifndef AVK_COMMON_ARENA_H
#define AVK_COMMON_ARENA_H

#include <stddef.h>

#include "avrokit/alloc.h"

typedef struct avki_arena_block avki_arena_block;

typedef struct avki_arena {
    avk_allocator alloc;
    avki_arena_block *head; /* block being filled; older ones follow */
    size_t next_size;       /* size of the next block to allocate */
    size_t total;           /* bytes obtained from the allocator */
    size_t limit;           /* most bytes the arena may obtain; 0 means no limit */
    int limit_hit;          /* an allocation failed because of limit (not the allocator) */
    size_t allocations;     /* allocator calls (failed ones too), for tests and benchmarks;
                               users of the allocator, such as the JSON parser's
                               scratch, add theirs */
} avki_arena;

/* Sets up an empty arena; nothing is allocated until the first request.
 * alloc NULL means the C library. first_block 0 means 4 KiB; blocks double
 * up to 1 MiB, and a request larger than the next block gets a block of its
 * own. limit counts every byte obtained, block headers included; 0 means
 * no limit. One arena belongs to one thread at a time. */
void avki_arena_init(avki_arena *a, const avk_allocator *alloc, size_t first_block, size_t limit);

/* size bytes aligned to align (a power of two, at most 16; 0 counts as 1).
 * NULL when the allocator fails, the limit would be passed, or align is
 * not allowed. size 0 gives a valid pointer that may equal the next
 * allocation's. Zeroing is the caller's. Valid until reset or destroy. */
void *avki_arena_alloc(avki_arena *a, size_t size, size_t align);

/* A NUL-terminated copy of s[0..len) (s may be NULL when len is 0); NULL
 * on failure. */
char *avki_arena_strndup(avki_arena *a, const char *s, size_t len);

/* Frees every block but the largest, which is kept, emptied, for reuse:
 * a workload that fits it no longer calls the allocator. total becomes
 * that block's size; next_size and allocations are kept. */
void avki_arena_reset(avki_arena *a);

/* Frees every block. Safe twice; the arena may be initialised again. */
void avki_arena_destroy(avki_arena *a);

#endif
