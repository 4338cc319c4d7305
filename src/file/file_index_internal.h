/* Private parts of the block index shared by its builder, its sidecar code and open_path. */
#ifndef AVK_FILE_FILE_INDEX_INTERNAL_H
#define AVK_FILE_FILE_INDEX_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "avrokit/file.h"
#include "avrokit/file_index.h"

struct avk_file_index {
    avk_allocator alloc;
    avk_file_index_entry *blocks;
    size_t count, cap;
    uint64_t records;     /* sum of the counts */
    uint64_t header_size; /* offset of the first block */
    uint8_t sync[AVK_FILE_SYNC_SIZE];
    uint64_t file_size;   /* where the last block ends */
    int64_t mtime_ns;     /* of the file when indexed; 0 from memory */
};

/* An empty index (no blocks) with memory from alloc (NULL: libc). */
avk_status avki_file_index_new(const avk_allocator *alloc, avk_file_index **out, avk_error *err);

/* Appends a block (its first record number is set here). */
avk_status avki_file_index_push(avk_file_index *idx, uint64_t offset, uint64_t count,
                                uint64_t size, uint64_t end, avk_error *err);

/* What walking block headers needs: where the bytes are (mem, or fd read
 * with pread), where the blocks must end, and the header's marker and the
 * reader's count checks. */
typedef struct avki_index_walk {
    const uint8_t *mem; /* memory input, or NULL for fd */
    int fd;
    uint64_t file_len;
    const uint8_t *sync;
    avk_codec codec;
    uint64_t min_record;     /* the plan's smallest record (nodes[0].min_size) */
    uint64_t max_empty;      /* limits.max_empty_items, defaults filled in */
    uint64_t max_block_bytes, max_block_data;
} avki_index_walk;

/* Fills w from an open reader and its options (the reader's defaults for
 * the limits left 0); the input fields are the caller's. */
void avki_index_walk_init(avki_index_walk *w, const avk_file_reader *fr,
                          const avk_file_reader_options *opts);

/* Appends the blocks from offset from (a block's start, after a marker
 * already checked) to w->file_len, checking each as next_block does.
 * Errors name blocks by their index in idx (idx->count when found). */
avk_status avki_file_index_walk(avk_file_index *idx, const avki_index_walk *w, uint64_t from,
                                avk_error *err);

/* Reads up to want bytes at offset of fd into buf, retrying short reads
 * and EINTR: *got is less than want only at the end of the file. */
avk_status avki_pread_full(int fd, void *buf, size_t want, uint64_t offset, size_t *got,
                           avk_error *err);

/* CRC-32 (ISO-HDLC) of data, continuing from crc (0 to start). */
uint32_t avki_index_crc32(uint32_t crc, const void *data, size_t len);

#endif
