/* Guard-page buffers: memory whose last byte sits right before an unmapped page. */
#ifndef AVKT_GUARD_H
#define AVKT_GUARD_H

#include <stddef.h>
#include <stdint.h>

/* A buffer of len bytes that ends exactly where a PROT_NONE page starts,
 * with another PROT_NONE page before the first data page: reading one byte
 * past the end (or before the start of the mapping) crashes at once, even
 * without a sanitizer. */
typedef struct avkt_guard {
    uint8_t *data; /* len usable bytes; data + len is the guard page */
    size_t len;
    void *map;     /* the whole mapping, for munmap */
    size_t map_len;
} avkt_guard;

/* Maps a guarded buffer of len bytes (len may be 0: data then points at
 * the guard page itself). Returns data, or NULL when mmap fails. The bytes
 * are zero. */
uint8_t *avkt_guard_alloc(avkt_guard *g, size_t len);

/* avkt_guard_alloc followed by a copy of src[0..len). */
uint8_t *avkt_guard_copy(avkt_guard *g, const void *src, size_t len);

/* Unmaps the buffer. Safe on a zeroed struct and twice. */
void avkt_guard_free(avkt_guard *g);

#endif
