/* A set of metadata keys that finds a repeated key in linear time, for the header reader and the writer's checks. */
#ifndef AVK_FILE_FILE_KEY_SET_H
#define AVK_FILE_FILE_KEY_SET_H

#include <stddef.h>
#include <stdint.h>

#include "avrokit/alloc.h"
#include "avrokit/status.h"

/* The most keys a set holds (indexes are kept in 32 bits). */
#define AVKI_KEY_SET_MAX ((size_t)UINT32_MAX - 1)

/* The bytes of the key added as index (they stay where they are while the
 * set is used: the set keeps only indexes). */
typedef const uint8_t *(*avki_key_at_fn)(const void *ctx, size_t index, size_t *len);

typedef struct avki_key_slot avki_key_slot;

typedef struct avki_key_set {
    avk_allocator alloc;
    avki_key_at_fn key_at;
    const void *ctx;
    avki_key_slot *slots;
    size_t cap; /* a power of two, or 0 before the first key */
    size_t count;
    uint64_t seed;
} avki_key_set;

/* alloc NULL means the C library. */
void avki_key_set_init(avki_key_set *s, const avk_allocator *alloc, avki_key_at_fn key_at,
                       const void *ctx);
void avki_key_set_destroy(avki_key_set *s);

/* Adds key index (index < AVKI_KEY_SET_MAX), whose bytes key_at gives.
 * When an equal key is there already, nothing is added and *first is set
 * to its index; otherwise *first is SIZE_MAX. Statuses: AVK_OK,
 * AVK_ERR_NO_MEMORY (nothing added; the caller fills the error). */
avk_status avki_key_set_add(avki_key_set *s, size_t index, size_t *first);

#endif
