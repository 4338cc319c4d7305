/* The public arena (avrokit/arena.h): an allocated wrapper over the internal arena. */
#include <stddef.h>

#include "avrokit/arena.h"
#include "common/alloc_internal.h"
#include "common/arena.h"
#include "common/error.h"

avk_status avk_arena_new(const avk_arena_options *opts, avk_arena **out, avk_error *err)
{
    avk_allocator alloc;
    avk_arena *arena;
    if (!out)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_arena_new: out is NULL");
    *out = NULL;
    if (opts && opts->struct_size < sizeof *opts)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_arena_options.struct_size is %zu, expected %zu",
                              opts->struct_size, sizeof *opts);
    alloc = avki_allocator_or_libc(opts ? opts->allocator : NULL);
    arena = (avk_arena *)alloc.alloc(alloc.ctx, sizeof *arena);
    if (!arena)
        return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                              "cannot allocate an arena");
    avki_arena_init(&arena->core, &alloc, opts ? opts->block_size : 0, opts ? opts->limit : 0);
    if (opts && opts->first_block)
        (void)avki_arena_set_first_block(&arena->core, opts->first_block, opts->first_block_size);
    *out = arena;
    return AVK_OK;
}

void avk_arena_free(avk_arena *arena)
{
    avk_allocator alloc;
    if (!arena)
        return;
    alloc = arena->core.alloc; /* the arena object came from it */
    avki_arena_destroy(&arena->core);
    alloc.free(alloc.ctx, arena, sizeof *arena);
}

void avk_arena_reset(avk_arena *arena)
{
    if (arena)
        avki_arena_reset(&arena->core);
}

void *avk_arena_alloc(avk_arena *arena, size_t size, size_t align)
{
    return arena ? avki_arena_alloc(&arena->core, size, align) : NULL;
}

size_t avk_arena_bytes(const avk_arena *arena)
{
    return arena ? arena->core.total : 0;
}

size_t avk_arena_allocations(const avk_arena *arena)
{
    return arena ? arena->core.allocations : 0;
}
