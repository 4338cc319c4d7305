/* Private parts of container files shared by the header parser, the reader and the writer. */
#ifndef AVK_FILE_FILE_INTERNAL_H
#define AVK_FILE_FILE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "avrokit/file.h"

/* "Obj" followed by format version 1. */
#define AVKI_FILE_MAGIC "Obj\x01"
#define AVKI_FILE_MAGIC_SIZE 4

/* The reader's default for max_block_bytes and max_block_data (see
 * file_reader.c), shared with the block index so both refuse alike. */
#define AVKI_FILE_DEFAULT_BLOCK_BYTES ((uint64_t)1 << 30)

/* One metadata entry, key and value copied into the header's storage. */
typedef struct avki_file_meta {
    char *key;        /* NUL-terminated UTF-8; holds no other NUL (such keys are refused) */
    size_t key_len;
    uint8_t *value;   /* a NUL follows the last byte, so JSON text can be parsed in place */
    size_t len;
} avki_file_meta;

/* Storage that short keys and values share (see file_header.c). */
typedef struct avki_meta_slab avki_meta_slab;

/* What a header holds once read and checked. */
typedef struct avki_file_header {
    avk_allocator alloc;
    avki_file_meta *meta;
    size_t meta_count, meta_cap;
    avki_meta_slab *slabs; /* the newest first */
    size_t slab_used;      /* bytes used in the newest */
    avk_schema *schema;
    avk_codec codec;
    int codec_nonstandard;
    uint8_t sync[AVK_FILE_SYNC_SIZE];
    uint64_t size; /* bytes from the magic to the end of the sync marker */
} avki_file_header;

/* Metadata entries a header may have when the caller sets no limit. */
#define AVKI_FILE_DEFAULT_MAX_META_ENTRIES ((uint64_t)65536)

/* Reads and checks a header from r (positioned at the magic). The error's
 * offsets are r's. Limits the metadata map to max_bytes in all and to
 * max_entries entries; refuses repeated keys, keys holding a NUL byte and
 * keys that are not UTF-8.
 * On failure h holds nothing that needs freeing beyond
 * avki_file_header_destroy. */
avk_status avki_file_header_read(avki_file_header *h, avk_reader *r, uint64_t max_bytes,
                                 uint64_t max_entries, const avk_allocator *alloc,
                                 avk_error *err);

void avki_file_header_destroy(avki_file_header *h);

/* The value of key, or NULL. */
const avki_file_meta *avki_file_header_find(const avki_file_header *h, const char *key);

/* Writes a header: magic, metadata (avro.schema from schema, avro.codec, then
 * the user entries), sync. */
avk_status avki_file_header_write(avk_writer *w, const avk_schema *schema, avk_codec codec,
                                  const avk_file_meta *meta, size_t meta_count,
                                  const uint8_t sync[AVK_FILE_SYNC_SIZE], avk_error *err);

/* Checks user metadata: keys non-empty, valid UTF-8, not "avro.*", not
 * repeated (found with a hash set from alloc; NULL: the C library). */
avk_status avki_file_meta_check(const avk_file_meta *meta, size_t meta_count,
                                const avk_allocator *alloc, avk_error *err);

/* Sets *found when the 16-byte marker sync occurs anywhere in bytes
 * [from, size) of the file at path (file_tail.c): damage that a complete
 * block follows is not a torn tail. AVK_ERR_IO when the file cannot be
 * read. */
avk_status avki_file_marker_after(const char *path, uint64_t from, uint64_t size,
                                  const uint8_t sync[AVK_FILE_SYNC_SIZE], int *found,
                                  avk_error *err);

#endif
