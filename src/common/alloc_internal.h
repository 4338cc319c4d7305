/* Private allocation helpers. */
#ifndef AVK_COMMON_ALLOC_INTERNAL_H
#define AVK_COMMON_ALLOC_INTERNAL_H

#include "avrokit/alloc.h"

/* A copy of *a, or of the libc allocator when a is NULL. */
avk_allocator avki_allocator_or_libc(const avk_allocator *a);

#endif
