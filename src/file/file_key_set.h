/* A set of metadata keys that finds a repeated key in linear time, for the header reader and the writer's checks. */
#ifndef AVK_FILE_FILE_KEY_SET_H
#define AVK_FILE_FILE_KEY_SET_H

#include <stddef.h>
#include <stdint.h>

#include "avrokit/alloc.h"
#include "avrokit/status.h"

typedef struct avki_key_slot avki_key_slot;

/* Keys are not copied: each must stay where it is while the set is used. */
typedef struct avki_key_set {
    avk_allocator alloc;
    avki_key_slot *slots;
    size_t cap;   /* a power of two, or 0 before the first key */
    size_t count;
    uint64_t seed;
} avki_key_set;

/* alloc NULL means the C library. */
void avki_key_set_init(avki_key_set *s, const avk_allocator *alloc);
void avki_key_set_destroy(avki_key_set *s);

/* Adds key[0..len) as entry index. When an equal key is there already,
 * nothing is added and *first is set to its index; otherwise *first is
 * SIZE_MAX. Statuses: AVK_OK, AVK_ERR_NO_MEMORY (nothing added; the
 * caller fills the error). */
avk_status avki_key_set_add(avki_key_set *s, const void *key, size_t len, size_t index,
                            size_t *first);

#endif
