/* Push decoder, container input: the header parsed once whole, then each block gathered whole, checked and decompressed, its records handed out one a call, with the file reader's checks and messages. */
#include <string.h>

#include "avrokit/resolve.h"
#include "common/error.h"
#include "file/file_records.h"
#include "message/push_internal.h"
#include "plan/plan_format.h"

/*
 * The checks and messages are those of file_reader.c (read_block,
 * avki_file_block_check, next_record), on bytes that arrive in pieces: a
 * check that a whole file would fail with TRUNCATED means "wait" until
 * avk_push_decoder_end was called. Records of a null-codec block are
 * decoded in place in the input buffer (kept until the block is done);
 * other codecs decompress into dbuf, reused for the next block, so their
 * strings are copied into the caller's arena (AVK_PLAN_COPY_STRINGS):
 * values must outlive the next block, which next may start without a feed.
 */

#define DEFAULT_HEADER_BYTES ((uint64_t)64 << 20)

#define error_at avki_file_error_at

void avki_push_container_init(avk_push_decoder *pd, const avk_file_reader_options *fo)
{
    pd->max_header = DEFAULT_HEADER_BYTES;
    pd->max_block_bytes = AVKI_FILE_DEFAULT_BLOCK_BYTES;
    pd->max_block_data = AVKI_FILE_DEFAULT_BLOCK_BYTES;
    memset(&pd->plan_opts, 0, sizeof pd->plan_opts);
    pd->plan_opts.struct_size = sizeof pd->plan_opts;
    pd->plan_opts.allocator = &pd->alloc;
    if (fo) {
        if (fo->max_header_bytes)
            pd->max_header = fo->max_header_bytes;
        if (fo->max_block_bytes)
            pd->max_block_bytes = fo->max_block_bytes;
        if (fo->max_block_data)
            pd->max_block_data = fo->max_block_data;
        pd->max_meta_entries = fo->max_meta_entries;
        pd->reader_schema = fo->reader_schema;
        pd->plan_opts.flags = fo->plan_flags;
        pd->plan_opts.limits = fo->limits;
    }
    avk_buffer_init(&pd->dbuf, &pd->alloc);
}

void avki_push_container_destroy(avk_push_decoder *pd)
{
    avk_plan_free(pd->plan);
    avk_plan_free(pd->relaxed);
    avki_file_header_destroy(&pd->hdr);
    avk_buffer_destroy(&pd->dbuf);
}

uint64_t avki_push_container_keep(const avk_push_decoder *pd)
{
    if (pd->in_block && pd->hdr.codec == AVK_CODEC_NULL)
        return pd->data_at;
    return pd->pos;
}

/* ---- the header ----------------------------------------------------------- */

/* One varint at *pos of p[0..n): 1 read, 0 cut short, -1 bad. */
static int get_long(const uint8_t *p, size_t n, size_t *pos, int64_t *v)
{
    avk_reader r;
    avk_status st;
    avk_reader_init_memory(&r, p + *pos, n - *pos);
    st = avk_reader_read_long(&r, v, NULL);
    if (st == AVK_ERR_TRUNCATED)
        return 0;
    if (st != AVK_OK)
        return -1;
    *pos += (size_t)(r.pos - (p + *pos));
    return 1;
}

/* Whether the header in p[0..n) is whole, found by walking its map by the
 * lengths it gives, from where the last try's walk got (each piece fed
 * costs the entries it brings, not the header again). Returns 1 when
 * whole, or when its bytes are bad or past a limit (the parser then says
 * why); 0 with *need (the fewest bytes it can take) when not. */
static int header_whole(avk_push_decoder *pd, const uint8_t *p, size_t n, uint64_t limit,
                        uint64_t *need)
{
    size_t pos, i;
    int64_t left = pd->hw_left;
    for (i = 0; i < AVKI_FILE_MAGIC_SIZE && i < n; i++)
        if (p[i] != (uint8_t)AVKI_FILE_MAGIC[i])
            return 1;
    *need = AVKI_FILE_MAGIC_SIZE;
    if (n < AVKI_FILE_MAGIC_SIZE)
        return 0;
    pos = pd->hw_pos ? pd->hw_pos : AVKI_FILE_MAGIC_SIZE;
    for (;;) {
        int64_t count, skip;
        int k;
        if (pos > limit)
            return 1;
        if (left == 0) { /* a map block's count (and byte size) */
            *need = pos + 1;
            if ((k = get_long(p, n, &pos, &count)) <= 0)
                return k < 0;
            if (count == 0) {
                *need = pos + AVK_FILE_SYNC_SIZE;
                return n >= *need;
            }
            if (count < 0) {
                if (count == INT64_MIN)
                    return 1;
                count = -count;
                *need = pos + 1;
                if ((k = get_long(p, n, &pos, &skip)) <= 0)
                    return k < 0;
            }
            /* More entries than the parser takes (0: its default): it
             * refuses them now. */
            if ((uint64_t)count > (pd->max_meta_entries ? pd->max_meta_entries
                                                        : AVKI_FILE_DEFAULT_MAX_META_ENTRIES) -
                                      pd->hw_entries)
                return 1;
            pd->hw_entries += (uint64_t)count;
            left = count;
            pd->hw_pos = pos;
            pd->hw_left = left;
        }
        while (left > 0) {
            for (i = 0; i < 2; i++) { /* key, value */
                *need = pos + 1;
                if ((k = get_long(p, n, &pos, &skip)) <= 0)
                    return k < 0;
                if (skip < 0)
                    return 1;
                if ((uint64_t)skip > n - pos) {
                    *need = (uint64_t)pos + (uint64_t)skip;
                    /* Past the limit: the parser refuses it now. */
                    return pos > limit || (uint64_t)skip > limit - pos;
                }
                pos += (size_t)skip;
            }
            left--;
            pd->hw_pos = pos; /* a whole entry: the next try starts after it */
            pd->hw_left = left;
        }
    }
}

/* The plan, as the file reader compiles it; strings copied unless the
 * records are decoded in place in the input buffer. */
static avk_status plans_ready(avk_push_decoder *pd, avk_error *err)
{
    avk_status st;
    if (pd->hdr.codec != AVK_CODEC_NULL)
        pd->plan_opts.flags |= AVK_PLAN_COPY_STRINGS;
    if (pd->reader_schema) {
        st = avk_plan_new_resolving(avk_schema_root(pd->hdr.schema),
                                    avk_schema_root(pd->reader_schema), &pd->plan_opts, &pd->plan,
                                    err);
        if (st == AVK_ERR_RESOLUTION)
            avki_error_prefix(err, "the file's schema cannot be read as the reader schema: ");
        if (st != AVK_OK)
            return st;
    } else {
        AVK_TRY(avk_plan_new(avk_schema_root(pd->hdr.schema), &pd->plan_opts, &pd->plan, err));
    }
    pd->min_record = pd->plan->nodes[0].min_size;
    pd->max_empty = pd->plan->limits.max_empty_items;
    return AVK_OK;
}

/* Reads the header once whole; *ready says whether it is. Errors are final. */
static avk_status header_next(avk_push_decoder *pd, int *ready, avk_error *err)
{
    const uint8_t *p = pd->buf ? pd->buf + (pd->pos - pd->base) : (const uint8_t *)"";
    size_t avail = (size_t)(pd->end - pd->pos);
    uint64_t need = 0, limit = pd->max_header + AVKI_FILE_MAGIC_SIZE + 20;
    avk_reader r;
    avk_error e;
    avk_status st;
    *ready = 0;
    if (!pd->ended && !header_whole(pd, p, avail, limit, &need)) {
        pd->need = need;
        if (pd->need <= pd->end)
            pd->need = pd->end + 1;
        return AVK_OK;
    }
    memset(&pd->hdr, 0, sizeof pd->hdr);
    avk_reader_init_memory(&r, p, avail);
    r.base_offset = pd->pos;
    st = avki_file_header_read(&pd->hdr, &r, pd->max_header, pd->max_meta_entries, &pd->alloc,
                               &e);
    if (st == AVK_OK)
        st = plans_ready(pd, &e);
    if (st != AVK_OK) {
        avki_file_header_destroy(&pd->hdr);
        memset(&pd->hdr, 0, sizeof pd->hdr);
        avk_plan_free(pd->plan);
        pd->plan = NULL;
        if (st == AVK_ERR_TRUNCATED && !pd->ended) { /* the walk was wrong: wait */
            pd->need = pd->end + 1;
            return AVK_OK;
        }
        return avki_push_fail(pd, st, &e, err);
    }
    pd->hdr_done = 1;
    pd->pos += pd->hdr.size;
    pd->consumed = pd->pos;
    pd->need = 0;
    *ready = 1;
    return AVK_OK;
}

/* ---- blocks --------------------------------------------------------------- */

/* What the bytes at a block's offset say. */
typedef struct block_probe {
    int state;          /* 0 wait (need set), 1 the clean end, 2 whole */
    uint64_t need;
    int64_t count, size;
    uint64_t data_at, end;
    avk_status pending; /* the marker is cut (only at the end) */
    avk_error pending_err;
} block_probe;

static avk_status read_varint(const avk_push_decoder *pd, avk_reader *r, uint64_t at,
                              uint64_t index, int64_t *v, const char *what, int *cut,
                              avk_error *err)
{
    avk_status st = avk_reader_read_long(r, v, err);
    *cut = 0;
    if (st == AVK_ERR_TRUNCATED) {
        if (!pd->ended) {
            *cut = 1;
            return AVK_OK;
        }
        return error_at(at, index, err, st, "the file ends inside the block's %s", what);
    }
    if (st == AVK_ERR_MALFORMED)
        return error_at(at, index, err, st, "the block's %s is not a valid varint", what);
    return st;
}

/* read_block of file_reader.c on the bytes fed so far, moving nothing. */
static avk_status probe_block(const avk_push_decoder *pd, uint64_t at, uint64_t index,
                              block_probe *b, avk_error *err)
{
    const uint8_t *p = pd->buf ? pd->buf + (at - pd->base) : (const uint8_t *)"";
    size_t avail = (size_t)(pd->end - at), left;
    avk_reader r;
    int cut;
    b->state = 0;
    b->pending = AVK_OK;
    b->need = at + 1;
    if (avail == 0) {
        b->state = pd->ended ? 1 : 0;
        return AVK_OK;
    }
    avk_reader_init_memory(&r, p, avail);
    r.base_offset = at;
    AVK_TRY(read_varint(pd, &r, at, index, &b->count, "record count", &cut, err));
    if (cut)
        return AVK_OK;
    if (b->count < 0)
        return error_at(at, index, err, AVK_ERR_MALFORMED, "negative record count %lld",
                        (long long)b->count);
    AVK_TRY(read_varint(pd, &r, at, index, &b->size, "byte size", &cut, err));
    if (cut)
        return AVK_OK;
    if (b->size < 0)
        return error_at(at, index, err, AVK_ERR_MALFORMED, "negative byte size %lld",
                        (long long)b->size);
    if ((uint64_t)b->size > pd->max_block_bytes)
        return error_at(at, index, err, AVK_ERR_LIMIT,
                        "its size of %lld bytes exceeds the limit of %llu (max_block_bytes)",
                        (long long)b->size, (unsigned long long)pd->max_block_bytes);
    b->data_at = avk_reader_offset(&r);
    left = (size_t)(r.end - r.pos);
    b->end = b->data_at + (uint64_t)b->size + AVK_FILE_SYNC_SIZE;
    /* Refused however the bytes came: whole, or still arriving. */
    if (b->end - at > pd->max_message)
        return error_at(at, index, err, AVK_ERR_LIMIT,
                        "its %llu bytes exceed the limit of %llu (max_message)",
                        (unsigned long long)(b->end - at), (unsigned long long)pd->max_message);
    if ((uint64_t)b->size > left) {
        if (!pd->ended) {
            b->need = b->end;
            return AVK_OK;
        }
        return error_at(at, index, err, AVK_ERR_TRUNCATED,
                        "its size says %lld bytes but only %zu remain in the file",
                        (long long)b->size, left);
    }
    if (b->end > pd->end) {
        if (!pd->ended) {
            b->need = b->end;
            return AVK_OK;
        }
        /* As a whole file cut there: the records first, then the error. */
        b->end = pd->end;
        b->pending = error_at(at, index, &b->pending_err, AVK_ERR_TRUNCATED,
                              "the file ends before the block's sync marker (the block's "
                              "%lld records were read)",
                              (long long)b->count);
        b->state = 2;
        return AVK_OK;
    }
    if (memcmp(p + (b->end - at) - AVK_FILE_SYNC_SIZE, pd->hdr.sync, AVK_FILE_SYNC_SIZE) != 0)
        return error_at(at, index, err, AVK_ERR_SYNC,
                        "the sync marker after its data (at byte %llu) does not match the "
                        "header's",
                        (unsigned long long)(b->end - AVK_FILE_SYNC_SIZE));
    b->state = 2;
    return AVK_OK;
}

/* count_fits and avki_file_block_check of the file reader. */
static avk_status block_check(const avk_push_decoder *pd, size_t len, avk_error *err)
{
    uint64_t count = (uint64_t)pd->count;
    if (pd->hdr.codec == AVK_CODEC_NULL && len > pd->max_block_data)
        return error_at(pd->blk_offset, pd->blk_index, err, AVK_ERR_LIMIT,
                        "%zu bytes of data exceed the limit of %llu (max_block_data)", len,
                        (unsigned long long)pd->max_block_data);
    if (pd->min_record == 0) {
        if (count > pd->max_empty)
            return error_at(pd->blk_offset, pd->blk_index, err, AVK_ERR_LIMIT,
                            "a count of %lld records of zero bytes each exceeds the limit of "
                            "%llu (max_empty_items)",
                            (long long)pd->count, (unsigned long long)pd->max_empty);
    } else if (count > len / pd->min_record) {
        return error_at(pd->blk_offset, pd->blk_index, err, AVK_ERR_MALFORMED,
                        "a count of %lld records cannot be right for %zu bytes of data",
                        (long long)pd->count, len);
    }
    if (pd->count == 0 && len > 0)
        return error_at(pd->blk_offset, pd->blk_index, err, AVK_ERR_MALFORMED,
                        "%zu bytes are left over in a block of 0 records (the count may "
                        "be wrong)",
                        len);
    return AVK_OK;
}

/* Takes the whole block b at pos: decompressed, checked, its records
 * ready. */
static avk_status open_block(avk_push_decoder *pd, const block_probe *b, avk_error *err)
{
    size_t len = (size_t)b->size;
    pd->blk_offset = pd->pos;
    pd->blk_index = pd->next_index;
    pd->next_index++;
    pd->count = b->count;
    pd->blk_end = b->end;
    pd->pending = b->pending;
    if (b->pending != AVK_OK)
        pd->pending_err = b->pending_err;
    pd->data_at = b->data_at;
    if (pd->hdr.codec != AVK_CODEC_NULL) {
        avk_status st = avk_codec_decompress(pd->hdr.codec, pd->buf + (b->data_at - pd->base),
                                             len, (size_t)pd->max_block_data, &pd->dbuf, err);
        if (st != AVK_OK) {
            if (!err)
                return st;
            err->status = st;
            avki_error_prefix(err, "%s: ", avk_codec_name(pd->hdr.codec));
            avki_file_place_at(pd->blk_offset, pd->blk_index, err);
            return st;
        }
        len = pd->dbuf.len;
    }
    AVK_TRY(block_check(pd, len, err));
    pd->data_len = len;
    pd->data_pos = 0;
    pd->record = 0;
    pd->remaining = pd->count;
    pd->in_block = 1;
    return AVK_OK;
}

/* The plan without size limits (avki_file_relaxed_ready). */
static void relaxed_ready(avk_push_decoder *pd)
{
    avk_plan_options po;
    if (pd->relaxed || pd->relaxed_tried)
        return;
    pd->relaxed_tried = 1;
    po = pd->plan_opts;
    po.limits = pd->plan->limits;
    po.limits.max_bytes = UINT64_MAX;
    po.limits.max_items = UINT64_MAX;
    if (pd->reader_schema)
        avk_plan_new_resolving(avk_schema_root(pd->hdr.schema), avk_schema_root(pd->reader_schema),
                               &po, &pd->relaxed, NULL);
    else
        avk_plan_new(avk_schema_root(pd->hdr.schema), &po, &pd->relaxed, NULL);
}

/* One record of the current block (next_record of the file reader). */
static avk_status record_next(avk_push_decoder *pd, avk_arena *arena, avk_value *out, int *got,
                              avk_error *err)
{
    const uint8_t *data = pd->hdr.codec == AVK_CODEC_NULL ? pd->buf + (pd->data_at - pd->base)
                                                          : pd->dbuf.data;
    const uint8_t *start;
    avk_reader r;
    avk_error e;
    avk_status st;
    avk_reader_init_memory(&r, data, pd->data_len);
    r.pos += pd->data_pos;
    start = r.pos;
    st = avk_plan_decode(pd->plan, &r, arena, out, &e);
    if (AVK_LIKELY(st == AVK_OK)) {
        pd->record++;
        pd->data_pos = (size_t)(r.pos - r.base);
        if (--pd->remaining == 0 && pd->data_pos != pd->data_len)
            pd->pending = avki_file_leftover_error(pd->blk_offset, pd->blk_index,
                                                   pd->data_len - pd->data_pos, pd->count,
                                                   &pd->pending_err);
        *got = 1;
        return AVK_OK;
    }
    if (st != AVK_ERR_NO_MEMORY && st != AVK_ERR_IO) {
        if (st == AVK_ERR_LIMIT) {
            relaxed_ready(pd);
            st = avki_file_limit_or_damage(pd->relaxed, r.base, start, r.end, arena, &e);
        }
        st = avki_file_record_failed(st, &e, pd->record, pd->count, pd->blk_offset,
                                     pd->blk_index);
    }
    return avki_push_fail(pd, st, &e, err);
}

avk_status avki_push_container_next(avk_push_decoder *pd, avk_arena *arena, avk_value *out,
                                    int *got, avk_error *err)
{
    block_probe b;
    avk_error e;
    avk_status st;
    if (!pd->hdr_done) {
        int ready;
        AVK_TRY(header_next(pd, &ready, err));
        if (!ready)
            return avki_push_check_want(pd, pd->need, err);
    }
    for (;;) {
        if (pd->in_block) {
            if (pd->remaining > 0)
                return record_next(pd, arena, out, got, err);
            if (pd->pending != AVK_OK) {
                st = pd->pending;
                pd->pending = AVK_OK;
                return avki_push_fail(pd, st, &pd->pending_err, err);
            }
            pd->in_block = 0;
            pd->pos = pd->blk_end;
            pd->consumed = pd->pos;
        }
        st = probe_block(pd, pd->pos, pd->next_index, &b, &e);
        if (st != AVK_OK)
            return avki_push_fail(pd, st, &e, err);
        if (b.state == 1)
            return AVK_OK;
        if (b.state == 0) {
            pd->need = b.need <= pd->end ? pd->end + 1 : b.need;
            return avki_push_check_want(pd, pd->need, err);
        }
        pd->need = 0;
        st = open_block(pd, &b, &e);
        if (st != AVK_OK)
            return avki_push_fail(pd, st, &e, err);
    }
}

avk_status avki_push_container_end(avk_push_decoder *pd, avk_error *err)
{
    block_probe b;
    uint64_t at;
    if (!pd->hdr_done) {
        int ready;
        AVK_TRY(header_next(pd, &ready, err));
    }
    at = pd->pos;
    if (pd->in_block) {
        if (pd->pending != AVK_OK) {
            if (err)
                *err = pd->pending_err;
            return pd->pending;
        }
        at = pd->blk_end;
    }
    AVK_TRY(probe_block(pd, at, pd->next_index, &b, err));
    if (b.pending != AVK_OK) {
        if (err)
            *err = b.pending_err;
        return b.pending;
    }
    return AVK_OK;
}
