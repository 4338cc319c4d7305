/* Private links between the message files: what the store's loaders need to know of the store. */
#ifndef AVK_MESSAGE_MESSAGE_INTERNAL_H
#define AVK_MESSAGE_MESSAGE_INTERNAL_H

#include <stddef.h>

#include "avrokit/alloc.h"
#include "avrokit/message.h"

/* The allocator the store was made with (the C library's when none was
 * given); it lives as long as the store. */
const avk_allocator *avki_schema_store_allocator(const avk_schema_store *store);

/* The most bytes of schema JSON the store's schema options accept (their
 * max_size, or its default): the loaders refuse larger files before
 * reading them whole. */
size_t avki_schema_store_max_text(const avk_schema_store *store);

/* The default of avk_schema_options.max_size (schema.h): 64 MiB. */
#define AVKI_STORE_DEFAULT_MAX_TEXT ((size_t)64 << 20)

/* The default of avk_schema_store_options.max_schemas (message.h). */
#define AVKI_STORE_DEFAULT_MAX_SCHEMAS ((size_t)65536)

#endif
