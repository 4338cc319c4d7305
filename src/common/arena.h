/* Arena: bump allocation in blocks from the caller's allocator, freed all at once. */
#ifndef AVK_COMMON_ARENA_H
#define AVK_COMMON_ARENA_H

#include <stddef.h>
#include <stdint.h>

#include "avrokit/alloc.h"
#include "avrokit/macros.h"

/* A block: this header, then the bytes handed out. Blocks form a list from
 * the one being filled (the head) to the oldest. */
typedef struct avki_arena_block avki_arena_block;
struct avki_arena_block {
    avki_arena_block *next;
    size_t size; /* bytes of the block, header included (for a block from the
                    allocator, what was obtained and is passed to free) */
};

/* What avki_arena_grow knows of the storage it handed out (arena_grow.c). */
typedef struct avki_grow_table avki_grow_table;

typedef struct avki_arena {
    /* The head block's free space [cur, end), kept here rather than in the
     * block so the inline fast path touches only this struct. Both are 0
     * when there is no block. */
    uintptr_t cur;
    uintptr_t end;
    avki_arena_block *head; /* block being filled; older ones follow */
    avki_arena_block *caller; /* the caller's first block (never freed), or NULL */
    avk_allocator alloc;
    size_t next_size;       /* size of the next block to allocate */
    size_t total;           /* bytes obtained from the allocator (the caller's
                               block is not counted) */
    size_t limit;           /* most bytes the arena may obtain; 0 means no limit */
    int limit_hit;          /* an allocation failed because of limit (not the allocator) */
    size_t allocations;     /* allocator calls (failed ones too), for tests and benchmarks;
                               users of the allocator, such as the JSON parser's
                               scratch, add theirs */
    avki_grow_table *grow;  /* storage avki_arena_grow may extend in place; it lives
                               in the arena, so reset and destroy forget it */
} avki_arena;

/* The public arena (avrokit/arena.h) is this core, so the decoder reaches
 * it without a call. */
struct avk_arena {
    avki_arena core;
};

/* Sets up an empty arena; nothing is allocated until the first request.
 * alloc NULL means the C library. first_block 0 means 4 KiB; blocks double
 * up to 1 MiB, and a request larger than the next block gets a block of its
 * own. limit counts every byte obtained, block headers included; 0 means
 * no limit. One arena belongs to one thread at a time. */
void avki_arena_init(avki_arena *a, const avk_allocator *alloc, size_t first_block, size_t limit);

/* Hands the arena caller storage mem[0..size) to fill before calling the
 * allocator. Only on an arena with no block yet (just initialised or
 * destroyed); size below AVKI_ARENA_MIN_CALLER_BLOCK is ignored. The arena
 * never frees it and the limit does not count it; it must outlive the
 * arena. Reset keeps it while it is the largest block (ties included);
 * once a larger block from the allocator exists, reset keeps that one
 * instead and the caller's storage is no longer used. Returns 1 when the
 * block was taken. */
#define AVKI_ARENA_MIN_CALLER_BLOCK 64
int avki_arena_set_first_block(avki_arena *a, void *mem, size_t size);

/* size bytes aligned to align (a power of two, at most 16; 0 counts as 1).
 * NULL when the allocator fails, the limit would be passed, or align is
 * not allowed. size 0 gives a valid pointer that may equal the next
 * allocation's. Zeroing is the caller's. Valid until reset or destroy. */
void *avki_arena_alloc(avki_arena *a, size_t size, size_t align);

/* As avki_arena_alloc, inline, for the decoder's per-value allocations:
 * bumps in the head block and calls avki_arena_alloc only when a block
 * must be obtained. align must be a power of two from 1 to 16 (usually a
 * constant), not checked here. */
static inline void *avki_arena_alloc_fast(avki_arena *a, size_t size, size_t align)
{
    uintptr_t p = (a->cur + (align - 1)) & ~(uintptr_t)(align - 1);
    /* p - 1 < end is p <= end for every p but 0, the empty arena's cur:
     * one compare refuses both padding past the end and "no block". */
    if (AVK_LIKELY(p - 1 < a->end && size <= (size_t)(a->end - p))) {
        a->cur = p + size;
        return (void *)p;
    }
    return avki_arena_alloc(a, size, align);
}

/* A NUL-terminated copy of s[0..len) (s may be NULL when len is 0); NULL
 * on failure. */
char *avki_arena_strndup(avki_arena *a, const char *s, size_t len);

/* Room for add more items after the count items at p (size > 0 bytes
 * each, aligned to align), amortised: storage this function handed out,
 * whose last call left it with these count items, grows in place while its
 * room lasts; any other (NULL, decoded, the caller's, or a copy of a value
 * that has grown since) is copied into new storage with room for at least
 * twice as many. Returns the storage (p or the copy, the count items kept),
 * or NULL when the arena fails or the size overflows. The caller writes
 * items count .. count + add - 1 and counts them. */
void *avki_arena_grow(avki_arena *a, void *p, size_t count, size_t add, size_t size,
                      size_t align);

/* Frees every block but the largest, which is kept, emptied, for reuse:
 * a workload that fits it no longer calls the allocator. The caller's
 * first block counts as a candidate and wins ties, but is never freed.
 * total becomes the kept block's size (0 when it is the caller's);
 * next_size and allocations are kept. */
void avki_arena_reset(avki_arena *a);

/* Frees every block but the caller's. Safe twice; the arena may be
 * initialised again. */
void avki_arena_destroy(avki_arena *a);

#endif
