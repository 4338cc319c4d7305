/* Arenas: where decoded values live; reset between records so a decoding loop stops allocating. */
#ifndef AVROKIT_ARENA_H
#define AVROKIT_ARENA_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "avrokit/alloc.h"
#include "avrokit/macros.h"
#include "avrokit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bump allocation in blocks, freed all at once. One arena belongs to one
 * thread at a time. */
typedef struct avk_arena avk_arena;

typedef struct avk_arena_options {
    size_t struct_size;   /* sizeof(avk_arena_options) */
    void *first_block;    /* caller storage used before any allocation; NULL for none.
                             Never freed by the arena; must outlive it. */
    size_t first_block_size; /* bytes at first_block (ignored below 64) */
    size_t block_size;    /* size of the first allocated block; 0 means 4 KiB.
                             Blocks double up to 1 MiB; larger requests get their own. */
    size_t limit;         /* most bytes the arena may obtain from the allocator
                             (the caller's first block not counted); 0 means no limit */
    const avk_allocator *allocator; /* NULL means the C library */
} avk_arena_options;

/* Sets every field of *o to its default (zero: the library's defaults) and
 * struct_size to sizeof *o as this header defines it. Inline, so the size
 * is the caller's: the idiom that compiles without warnings:
 *
 *     avk_arena_options o;
 *     avk_arena_options_init(&o);
 */
static inline void avk_arena_options_init(avk_arena_options *o)
{
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
}

/* A new, empty arena (the arena object itself comes from the allocator).
 * opts may be NULL. Returns AVK_OK, AVK_ERR_NO_MEMORY or
 * AVK_ERR_INVALID_ARGUMENT (NULL out, bad options size). */
AVK_EXPORT avk_status avk_arena_new(const avk_arena_options *opts, avk_arena **out, avk_error *err);

/* Frees every block and the arena. NULL is ignored. */
AVK_EXPORT void avk_arena_free(avk_arena *arena);

/* Forgets every allocation. Keeps the largest block for reuse and frees
 * the others: a record-after-record loop that resets between records stops
 * calling the allocator after warm-up. The caller's first block is kept
 * while it is the largest (ties included); once a larger block has been
 * allocated, that one is kept and the caller's storage is no longer used
 * (it is never freed). */
AVK_EXPORT void avk_arena_reset(avk_arena *arena);

/* size bytes aligned to align (a power of two up to 16; 0 counts as 1);
 * NULL when the allocator fails, the limit would be passed, or align is
 * invalid. Valid until reset or free. */
AVK_EXPORT void *avk_arena_alloc(avk_arena *arena, size_t size, size_t align);

/* Statistics, for tests and benchmarks: bytes currently obtained from the
 * allocator, and allocator calls made since the arena was created. */
AVK_EXPORT size_t avk_arena_bytes(const avk_arena *arena);
AVK_EXPORT size_t avk_arena_allocations(const avk_arena *arena);

#ifdef __cplusplus
}
#endif
#endif
