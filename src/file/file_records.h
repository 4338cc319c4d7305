/* Private: the records of one decompressed block, decoded with the container reader's own checks and messages. */
#ifndef AVK_FILE_FILE_RECORDS_H
#define AVK_FILE_FILE_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "avrokit/file.h"
#include "avrokit/plan.h"
#include "avrokit/reader.h"

/* A cursor over a block's records. Everything it reads is immutable once
 * the reader is open (the plans), so cursors of different blocks run on
 * different threads at once. */
struct avk_file_records {
    const avk_plan *plan;    /* the reader's plan (resolving, with a reader schema) */
    const avk_plan *relaxed; /* the same without size limits, or NULL (see
                                avki_file_limit_or_damage) */
    avk_file_block blk;      /* the block as stored (offset, index, count) */
    const uint8_t *data;     /* its records, decompressed */
    size_t len;
    avk_reader r;            /* over data */
    int64_t remaining;       /* records not yet decoded */
    int64_t record;          /* index of the next record: records decoded so far */
    const uint8_t *start;    /* first byte of the record being decoded (after a
                                failure: of the record that failed) */
    const uint8_t *last;     /* the bytes of the last record taken */
    size_t last_len;
    unsigned slot;
};

/* Points rc at a block's decompressed data. */
void avki_file_records_init(avk_file_records *rc, const avk_plan *plan, const avk_plan *relaxed,
                            const avk_file_block *blk, const uint8_t *data, size_t len,
                            unsigned slot);

/* The error of a block whose data has left bytes after its count of
 * records (MALFORMED), placed at the block. Returns the status. */
avk_status avki_file_leftover_error(uint64_t offset, uint64_t index, size_t left, int64_t count,
                                    avk_error *err);

/* Puts a cursor that failed back at the start of the record that failed,
 * as if it had not been tried. */
void avki_file_records_retry(avk_file_records *rc);

/* Bytes left after the block's last record: 0 when none (or not yet at
 * the last), else fills e with the reader's message about them. */
int avki_file_records_leftover(const avk_file_records *rc, avk_error *e);

/* Marks err as being about the block at offset with index: a "block N at
 * byte X: " prefix, its offset and index. Returns err->status. */
avk_status avki_file_place_at(uint64_t offset, uint64_t index, avk_error *err);

/* Fills err (NULL allowed) with st, the message and the place of the
 * block at offset with index. Returns st. */
avk_status avki_file_error_at(uint64_t offset, uint64_t index, avk_error *err, avk_status st,
                              const char *fmt, ...) __attribute__((cold, format(printf, 5, 6)));

/* The message of a record that failed (st, e from the decoder, offsets in
 * the block's data): a TRUNCATED record in a whole block means the count
 * lied (MALFORMED); others get the record's index and byte. Returns the
 * status to report. */
avk_status avki_file_record_failed(avk_status st, avk_error *e, int64_t record, int64_t count,
                                   uint64_t blk_offset, uint64_t blk_index);

/* A record over max_bytes or max_items in a block whose data is all in
 * memory may be the data lying: read again from start with relaxed (no
 * size limits; NULL: the limit stands), it fails as what it is (*e gets
 * that error, offsets from base) or stays AVK_ERR_LIMIT. */
avk_status avki_file_limit_or_damage(const avk_plan *relaxed, const uint8_t *base,
                                     const uint8_t *start, const uint8_t *end, avk_arena *arena,
                                     avk_error *e);

#endif
