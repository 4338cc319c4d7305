/* Allocator hooks: passed per object through option structs, never set globally. */
#ifndef AVROKIT_ALLOC_H
#define AVROKIT_ALLOC_H

#include <stddef.h>

#include "avrokit/macros.h"

#ifdef __cplusplus
extern "C" {
#endif

/* All three functions receive ctx. free and realloc receive the size the
 * block was allocated with, so arena and pool allocators need no headers.
 * alloc and realloc return NULL on failure; the library then reports
 * AVK_ERR_NO_MEMORY and leaves the old block valid. */
typedef struct avk_allocator {
    void *(*alloc)(void *ctx, size_t size);
    void *(*realloc)(void *ctx, void *ptr, size_t old_size, size_t new_size);
    void (*free)(void *ctx, void *ptr, size_t size);
    void *ctx;
} avk_allocator;

/* The allocator used when an option struct passes NULL: malloc, realloc
 * and free from the C library. */
AVK_EXPORT const avk_allocator *avk_allocator_libc(void);

#ifdef __cplusplus
}
#endif
#endif
