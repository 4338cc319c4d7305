/* A growable stack of fixed-size frames for walkers that must not recurse: first in the caller's storage, then on the heap. */
#ifndef AVK_COMMON_STACK_H
#define AVK_COMMON_STACK_H

#include <stddef.h>

#include "avrokit/alloc.h"
#include "avrokit/macros.h"

typedef struct avki_stack {
    void *base;       /* frames [0, n) */
    size_t n, cap;
    size_t size;      /* bytes per frame */
    void *local;      /* the caller's storage (base until the first growth) */
    const avk_allocator *alloc;
} avki_stack;

/* Starts with local[0..local_cap) frames of size bytes; deeper frames come
 * from alloc (not NULL). */
void avki_stack_init(avki_stack *s, void *local, size_t local_cap, size_t size,
                     const avk_allocator *alloc);

/* Doubles the room; 0 when out of memory (the stack is unchanged). */
int avki_stack_grow(avki_stack *s);

/* A new frame on top (uninitialized), or NULL when out of memory. Frame
 * pointers are valid until the next push. */
static inline void *avki_stack_push(avki_stack *s)
{
    if (AVK_UNLIKELY(s->n == s->cap) && !avki_stack_grow(s))
        return NULL;
    return (char *)s->base + s->size * s->n++;
}

static inline void *avki_stack_at(const avki_stack *s, size_t i)
{
    return (char *)s->base + s->size * i;
}

/* Gives back what the stack took from the allocator. */
void avki_stack_free_heap(avki_stack *s);

static inline void avki_stack_destroy(avki_stack *s)
{
    if (s->base != s->local)
        avki_stack_free_heap(s);
    s->n = 0;
}

#endif
