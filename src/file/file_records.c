/* The records of one decompressed block, decoded with the container reader's checks and messages, on any thread. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/error.h"
#include "file/file_records.h"

avk_status avki_file_place_at(uint64_t offset, uint64_t index, avk_error *err)
{
    avki_error_prefix(err, "block %llu at byte %llu: ", (unsigned long long)index,
                      (unsigned long long)offset);
    err->offset = offset;
    err->block = (int64_t)index;
    return err->status;
}

avk_status avki_file_error_at(uint64_t offset, uint64_t index, avk_error *err, avk_status st,
                              const char *fmt, ...)
{
    va_list ap;
    if (!err)
        return st;
    avk_error_clear(err);
    err->status = st;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    avki_file_place_at(offset, index, err);
    return st;
}

avk_status avki_file_record_failed(avk_status st, avk_error *e, int64_t record, int64_t count,
                                   uint64_t blk_offset, uint64_t blk_index)
{
    if (st == AVK_ERR_TRUNCATED) {
        /* The block's data is all there: its count is what lies. */
        st = e->status = AVK_ERR_MALFORMED;
        avki_error_prefix(e, "the block's data ends inside record %lld of %lld (its count may "
                             "be wrong): ",
                          (long long)record, (long long)count);
    } else {
        avki_error_prefix(e, "record %lld of %lld, byte %llu of the block's data: ",
                          (long long)record, (long long)count, (unsigned long long)e->offset);
    }
    avki_file_place_at(blk_offset, blk_index, e);
    return st;
}

/* Depth, memory and zero-byte item limits stay in the relaxed plan: those
 * are never the data lying about its size. */
avk_status avki_file_limit_or_damage(const avk_plan *relaxed, const uint8_t *base,
                                     const uint8_t *start, const uint8_t *end, avk_arena *arena,
                                     avk_error *e)
{
    avk_reader r;
    avk_value v;
    avk_error e2;
    avk_status st;
    uint64_t at = (uint64_t)(start - base);
    if (!relaxed)
        return AVK_ERR_LIMIT; /* cannot tell: the limit stands */
    avk_reader_init_memory(&r, start, (size_t)(end - start));
    st = arena ? avk_plan_decode(relaxed, &r, arena, &v, &e2) : avk_plan_skip(relaxed, &r, &e2);
    if (st != AVK_ERR_TRUNCATED && st != AVK_ERR_MALFORMED)
        return AVK_ERR_LIMIT;
    if (e2.offset != AVK_OFFSET_UNKNOWN)
        e2.offset += at;
    *e = e2;
    return st;
}

void avki_file_records_init(avk_file_records *rc, const avk_plan *plan, const avk_plan *relaxed,
                            const avk_file_block *blk, const uint8_t *data, size_t len,
                            unsigned slot)
{
    rc->plan = plan;
    rc->relaxed = relaxed;
    rc->blk = *blk;
    rc->data = data ? data : (const uint8_t *)"";
    rc->len = len;
    avk_reader_init_memory(&rc->r, rc->data, len);
    rc->remaining = blk->count;
    rc->record = 0;
    rc->start = rc->data;
    rc->last = rc->data;
    rc->last_len = 0;
    rc->slot = slot;
}

void avki_file_records_retry(avk_file_records *rc)
{
    rc->r.pos = rc->start;
    rc->remaining = rc->blk.count - rc->record;
}

int avki_file_records_leftover(const avk_file_records *rc, avk_error *e)
{
    size_t left = (size_t)(rc->r.end - rc->r.pos);
    if (rc->remaining != 0 || left == 0)
        return 0;
    avki_file_leftover_error(rc->blk.offset, rc->blk.index, left, rc->blk.count, e);
    return 1;
}

avk_status avki_file_leftover_error(uint64_t offset, uint64_t index, size_t left, int64_t count,
                                    avk_error *err)
{
    return avki_file_error_at(offset, index, err, AVK_ERR_MALFORMED,
                              "%zu bytes are left over after its %lld records (the count may "
                              "be wrong)",
                              left, (long long)count);
}

/* One record decoded (arena set) or skipped; after the last, the leftover
 * check. A failed record ends the cursor. */
static avk_status records_step(avk_file_records *rc, avk_arena *arena, avk_value *out,
                               int *more, avk_error *err)
{
    avk_error e;
    avk_status st;
    if (!rc || !more || (arena && !out))
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_file_records_next: NULL argument");
    *more = 0;
    if (rc->remaining == 0) {
        if (avki_file_records_leftover(rc, &e)) {
            rc->r.pos = rc->r.end; /* reported once */
            if (err)
                *err = e;
            return e.status;
        }
        return AVK_OK;
    }
    rc->start = rc->r.pos;
    st = arena ? avk_plan_decode(rc->plan, &rc->r, arena, out, &e)
               : avk_plan_skip(rc->plan, &rc->r, &e);
    if (AVK_LIKELY(st == AVK_OK)) {
        rc->record++;
        rc->remaining--;
        rc->last = rc->start;
        rc->last_len = (size_t)(rc->r.pos - rc->start);
        *more = 1;
        return AVK_OK;
    }
    rc->remaining = 0;
    rc->r.pos = rc->r.end;
    /* Not about the data: reported as the decoder said it. */
    if (st != AVK_ERR_NO_MEMORY && st != AVK_ERR_IO) {
        if (st == AVK_ERR_LIMIT)
            st = avki_file_limit_or_damage(rc->relaxed, rc->data, rc->start, rc->data + rc->len,
                                           arena, &e);
        st = avki_file_record_failed(st, &e, rc->record, rc->blk.count, rc->blk.offset,
                                     rc->blk.index);
    }
    if (err)
        *err = e;
    return st;
}

avk_status avk_file_records_next(avk_file_records *rc, avk_arena *arena, avk_value *out,
                                 int *more, avk_error *err)
{
    if (!arena || !out)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_file_records_next: NULL %s", arena ? "out" : "arena");
    return records_step(rc, arena, out, more, err);
}

avk_status avk_file_records_skip(avk_file_records *rc, int *more, avk_error *err)
{
    return records_step(rc, NULL, NULL, more, err);
}

const avk_file_block *avk_file_records_block(const avk_file_records *rc)
{
    return &rc->blk;
}

const uint8_t *avk_file_records_data(const avk_file_records *rc, size_t *len)
{
    *len = rc->len;
    return rc->data;
}

const uint8_t *avk_file_records_last(const avk_file_records *rc, size_t *len)
{
    *len = rc->last_len;
    return rc->last;
}

int64_t avk_file_records_done(const avk_file_records *rc)
{
    return rc->record;
}

const avk_plan *avk_file_records_plan(const avk_file_records *rc)
{
    return rc->plan;
}
