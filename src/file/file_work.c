/* Parallel decoding of container files: workers decompress and decode blocks (decode-ahead) or run the caller's work on them, handed back in file order. */
#include <string.h>

#include "common/error.h"
#include "file/file_reader_internal.h"

/* Records decoded ahead per block are held in the slot: at most this many,
 * and no more once its arena holds this much; the rest of a larger block
 * is decoded on the caller's thread. Bounds a slot's memory whatever the
 * block's count claims (a 1 GiB block of 1-byte records would otherwise
 * ask for 2^30 values). */
#define AHEAD_MAX_RECORDS 65536
#define AHEAD_MAX_BYTES ((size_t)32 << 20)

/* Room for n values in s->values. 0 when it cannot be had. */
static int values_room(avki_block_slot *s, size_t n)
{
    avk_value *v;
    if (s->values_cap >= n)
        return 1;
    v = s->values ? s->alloc.realloc(s->alloc.ctx, s->values, sizeof *v * s->values_cap,
                                     sizeof *v * n)
                  : s->alloc.alloc(s->alloc.ctx, sizeof *v * n);
    if (!v)
        return 0;
    s->values = v;
    s->values_cap = n;
    return 1;
}

/* Decodes the first records of s's block into its own arena. Memory it
 * cannot get is not an error: the caller's thread decodes what is left. */
static void decode_ahead(avki_block_slot *s)
{
    size_t want = s->recs.remaining < AHEAD_MAX_RECORDS ? (size_t)s->recs.remaining
                                                         : AHEAD_MAX_RECORDS;
    s->nvalues = 0;
    s->work_st = AVK_OK;
    if (s->arena)
        avk_arena_reset(s->arena);
    else {
        avk_arena_options ao;
        avk_arena_options_init(&ao);
        ao.allocator = &s->alloc;
        if (avk_arena_new(&ao, &s->arena, NULL) != AVK_OK)
            return;
    }
    if (!values_room(s, want))
        return;
    while (s->nvalues < want && avk_arena_bytes(s->arena) < AHEAD_MAX_BYTES) {
        int more;
        avk_error e;
        if (avk_file_records_next(&s->recs, s->arena, &s->values[s->nvalues], &more, &e) !=
            AVK_OK) {
            /* The caller's thread tries the record again, as next or as
             * skip (which may accept what decoding refuses: a reader
             * schema's resolution, UTF-8), into its own arena: the outcome
             * is then the caller's call's own. */
            avki_file_records_retry(&s->recs);
            return;
        }
        if (!more)
            return;
        s->nvalues++;
    }
}

/* The work on a block whose data passed its checks. */
static void work_on(avk_file_reader *fr, avki_block_slot *s, const uint8_t *data, size_t len)
{
    avki_file_records_init(&s->recs, fr->plan, fr->relaxed, &s->blk, data, len, s->number);
    s->worked = 1;
    memset(&s->work_err, 0, sizeof s->work_err);
    if (fr->work)
        s->work_st = fr->work(fr->work_ctx, s->number, &s->recs, &s->work_err);
    else
        decode_ahead(s);
}

void avki_file_process_slot(void *ctx, avki_block_slot *s)
{
    avk_file_reader *fr = (avk_file_reader *)ctx;
    const uint8_t *data = s->blk.data;
    size_t len = s->blk.size;
    s->worked = 0;
    if (fr->hdr.codec != AVK_CODEC_NULL) {
        avki_block_slot_decompress(s, fr->hdr.codec, (size_t)fr->max_block_data);
        if (s->st != AVK_OK)
            return;
        data = s->data.data;
        len = s->data.len;
    }
    if (!fr->work && !(fr->flags & AVK_FILE_DECODE_AHEAD))
        return;
    /* A block that fails its checks gets no work: the reader's thread
     * reports it when it gets there. */
    if (avki_file_block_check(fr, &s->blk, len, NULL) != AVK_OK)
        return;
    work_on(fr, s, data, len);
}

void avki_file_work_here(avk_file_reader *fr, avki_block_slot *s, const uint8_t *data,
                         size_t len)
{
    work_on(fr, s, data, len);
}

avk_status avki_file_next_ahead(avk_file_reader *fr, avk_arena *arena, avk_value *out,
                                avk_error *e)
{
    avki_block_slot *s = fr->slot;
    size_t i = (size_t)fr->record;
    avk_status st = AVK_OK;
    if (i < s->nvalues) {
        if (out)
            *out = s->values[i];
    } else {
        int more;
        st = out ? avk_file_records_next(&s->recs, arena, out, &more, e)
                 : avk_file_records_skip(&s->recs, &more, e);
        if (st != AVK_OK)
            return st;
    }
    /* Bytes after the last record wait until it is out, as when decoding here. */
    if (fr->remaining == 1 && avki_file_records_leftover(&s->recs, &fr->pending_err))
        fr->pending = AVK_ERR_MALFORMED;
    return AVK_OK;
}

/* Hands on the block of slot s after its work, first being the cursor's
 * record before the work: the records the work took, the slot, and the
 * work's failure as the reader reports failures. */
static avk_status deliver(avk_file_reader *fr, avki_block_slot *s, int64_t first, unsigned *slot,
                          int64_t *records, int *more, avk_error *err)
{
    avk_status st;
    *slot = s->number;
    *records = s->recs.record - first;
    fr->stats.records += (uint64_t)*records;
    if (s->work_st == AVK_OK) {
        if (avki_file_records_leftover(&s->recs, &fr->pending_err))
            fr->pending = AVK_ERR_MALFORMED;
        *more = 1;
        return AVK_OK;
    }
    /* Damage skipped hands on the records before it, as next does. */
    if (s->work_st == AVK_ERR_NO_MEMORY || s->work_st == AVK_ERR_IO)
        return avki_file_fail(fr, s->work_st, &s->work_err, err);
    st = avki_file_after_failure(fr, s->work_st, &s->work_err, 0, err);
    if (st == AVK_OK)
        *more = 1;
    return st;
}

/* The rest of a block that next or skip left partly read: its work runs
 * here, on a cursor at the reader's place in it. */
static avk_status rest_of_block(avk_file_reader *fr, unsigned *slot, int64_t *records, int *more,
                                avk_error *err)
{
    avki_block_slot *s = fr->slot;
    avki_file_records_init(&s->recs, fr->plan, fr->relaxed, &fr->cur, fr->blk.base,
                           (size_t)(fr->blk.end - fr->blk.base), s->number);
    s->recs.r.pos = fr->blk.pos;
    s->recs.record = fr->record;
    s->recs.remaining = fr->remaining;
    fr->remaining = 0;
    s->worked = 1;
    memset(&s->work_err, 0, sizeof s->work_err);
    s->work_st = fr->work(fr->work_ctx, s->number, &s->recs, &s->work_err);
    return deliver(fr, s, fr->record, slot, records, more, err);
}

avk_status avk_file_reader_next_work(avk_file_reader *fr, unsigned *slot, int64_t *records,
                                     int *more, avk_error *err)
{
    avk_error e;
    if (!fr || !slot || !records || !more)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_file_reader_next_work: NULL argument");
    *more = 0;
    *slot = AVK_FILE_NO_SLOT;
    *records = 0;
    if (!fr->work)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_file_reader_next_work: the reader was opened without a "
                              "work function (avk_file_reader_options.work)");
    if (fr->sticky != AVK_OK) {
        if (err)
            *err = fr->sticky_err;
        return fr->sticky;
    }
    /* Cursors judge a limit as the reader does: with the relaxed plan. */
    avki_file_relaxed_ready(fr);
    if (fr->remaining > 0)
        return rest_of_block(fr, slot, records, more, err);
    for (;;) {
        avki_block_slot *s;
        avk_status st;
        int end = 0, skipped;
        if (fr->pending != AVK_OK) {
            AVK_TRY(avki_file_take_pending(fr, &skipped, err));
            continue;
        }
        memset(&e, 0, sizeof e);
        st = avki_file_take_block(fr, 1, &end, &e);
        if (st != AVK_OK) {
            AVK_TRY(avki_file_after_failure(fr, st, &e, 1, err));
            continue;
        }
        if (end)
            return AVK_OK;
        st = avki_file_open_block(fr, &e);
        if (st != AVK_OK) {
            AVK_TRY(avki_file_after_failure(fr, st, &e, 0, err));
            continue;
        }
        s = fr->slot;
        fr->remaining = 0;
        if (!s->worked)
            avki_file_work_here(fr, s, fr->blk.base, (size_t)(fr->blk.end - fr->blk.base));
        return deliver(fr, s, 0, slot, records, more, err);
    }
}
