/* The default allocator (the C library) and the private allocation helpers. */
#include <stdlib.h>

#include "common/alloc_internal.h"

static void *libc_alloc(void *ctx, size_t size)
{
    (void)ctx;
    return malloc(size);
}

static void *libc_realloc(void *ctx, void *ptr, size_t old_size, size_t new_size)
{
    (void)ctx;
    (void)old_size;
    return realloc(ptr, new_size);
}

static void libc_free(void *ctx, void *ptr, size_t size)
{
    (void)ctx;
    (void)size;
    free(ptr);
}

static const avk_allocator libc_allocator = {libc_alloc, libc_realloc, libc_free, NULL};

const avk_allocator *avk_allocator_libc(void)
{
    return &libc_allocator;
}

avk_allocator avki_allocator_or_libc(const avk_allocator *a)
{
    return a ? *a : libc_allocator;
}
