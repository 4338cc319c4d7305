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
    size_t allocations;     /* calls to the allocator, for tests and benchmarks */
} avki_arena;

/* Sets up an empty arena; nothing is allocated until the first request.
 * first_block 0 means 4 KiB; blocks double up to 1 MiB. */
void avki_arena_init(avki_arena *a, const avk_allocator *alloc, size_t first_block, size_t limit);

/* size bytes aligned to align (a power of two, at most 16). NULL when the
 * allocator fails or the limit would be passed. Zeroing is the caller's. */
void *avki_arena_alloc(avki_arena *a, size_t size, size_t align);

/* A NUL-terminated copy of s[0..len); NULL on failure. */
char *avki_arena_strndup(avki_arena *a, const char *s, size_t len);

/* Frees every block but the largest, which is kept for reuse. */
void avki_arena_reset(avki_arena *a);

/* Frees every block. The arena may be initialised again. */
void avki_arena_destroy(avki_arena *a);

#endif
