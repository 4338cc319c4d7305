/* Private: the push decoder's state, shared by its message part (push_decoder.c) and its container part (push_container.c). */
#ifndef AVK_MESSAGE_PUSH_INTERNAL_H
#define AVK_MESSAGE_PUSH_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "avrokit/codec.h"
#include "avrokit/push.h"
#include "avrokit/reader.h"
#include "file/file_internal.h"

/* Positions are input offsets (bytes since the first byte fed); buf[0]
 * holds the byte at offset base, and bytes up to offset end are buffered.
 * Everything before keep_from() may be dropped by the next feed. */
struct avk_push_decoder {
    avk_allocator alloc;
    avk_push_input input;
    avk_framing framing;
    uint64_t max_message;

    uint8_t *buf;
    size_t cap;
    uint64_t base, end;
    uint64_t pos;   /* the next unread byte (the next message, block) */
    uint64_t need;  /* next returns at once while end < need: the bytes an
                       attempt lacked (at least one more than it had) */
    int ended;      /* avk_push_decoder_end was called */
    avk_status sticky;
    avk_error sticky_err;
    const avk_schema *schema;

    /* Messages. dec decodes single-object / Confluent messages (and raw
     * length-prefixed ones); raw_plan decodes raw datums back to back. The
     * writer schema's own plan of the last header seen, kept to find where
     * the next datum of that schema ends (avk_plan_skip). */
    avk_message_decoder *dec;
    const avk_plan *raw_plan;
    avk_schema_store *store;
    int have_key;
    uint64_t key;
    const avk_plan *key_plan;

    /* Container (push_container.c). */
    int hdr_done;
    /* How far the walk of the header's map got (whole entries only), so
     * each piece fed costs only its own entries: the offset from pos, the
     * entries left in the map block there, and the entries seen. */
    size_t hw_pos;
    int64_t hw_left;
    uint64_t hw_entries;
    avki_file_header hdr;
    avk_plan *plan, *relaxed;
    int relaxed_tried;
    avk_plan_options plan_opts;
    const avk_schema *reader_schema;
    uint64_t max_header, max_block_bytes, max_block_data, max_meta_entries;
    uint64_t min_record, max_empty;
    uint64_t consumed;   /* header and finished blocks */
    /* The current block: its records are handed out while remaining > 0. */
    int in_block;
    uint64_t blk_offset, blk_index, next_index, blk_end;
    int64_t count, record, remaining;
    uint64_t data_at;     /* null codec: offset of the data in the input */
    size_t data_len, data_pos; /* the records' bytes, and how far decoded */
    avk_buffer dbuf;      /* other codecs: the data decompressed */
    avk_status pending;   /* reported once the block's records are out */
    avk_error pending_err;
};

/* A final error: kept and returned by every later call. */
avk_status avki_push_fail(avk_push_decoder *pd, avk_status st, const avk_error *e,
                          avk_error *err);

/* The value being gathered at pos cannot be whole in fewer than need
 * bytes: AVK_ERR_LIMIT (final) when that is more than max_message. */
avk_status avki_push_check_want(avk_push_decoder *pd, uint64_t need, avk_error *err);

/* Container input. */
void avki_push_container_init(avk_push_decoder *pd, const avk_file_reader_options *fo);
void avki_push_container_destroy(avk_push_decoder *pd);
/* The offset before which the container part needs no byte any more. */
uint64_t avki_push_container_keep(const avk_push_decoder *pd);
avk_status avki_push_container_next(avk_push_decoder *pd, avk_arena *arena, avk_value *out,
                                    int *got, avk_error *err);
/* What end reports (nothing decoded, nothing made sticky). */
avk_status avki_push_container_end(avk_push_decoder *pd, avk_error *err);

#endif
