/* A growable stack of fixed-size frames: the caller's storage first, then the allocator's. */
#include "common/stack.h"

#include <stdint.h>
#include <string.h>

void avki_stack_init(avki_stack *s, void *local, size_t local_cap, size_t size,
                     const avk_allocator *alloc)
{
    s->base = local;
    s->local = local;
    s->n = 0;
    s->cap = local_cap;
    s->size = size;
    s->alloc = alloc;
}

int avki_stack_grow(avki_stack *s)
{
    size_t ncap = s->cap ? s->cap * 2 : 16;
    void *p;
    if (ncap > SIZE_MAX / 2 / s->size)
        return 0;
    if (s->base == s->local) {
        p = s->alloc->alloc(s->alloc->ctx, ncap * s->size);
        if (p && s->n)
            memcpy(p, s->base, s->n * s->size);
    } else {
        p = s->alloc->realloc(s->alloc->ctx, s->base, s->cap * s->size, ncap * s->size);
    }
    if (!p)
        return 0;
    s->base = p;
    s->cap = ncap;
    return 1;
}

void avki_stack_free_heap(avki_stack *s)
{
    s->alloc->free(s->alloc->ctx, s->base, s->cap * s->size);
    s->base = s->local;
}
