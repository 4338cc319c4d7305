/* avk_columns_decode and _decode_block: values appended to the column tree, rolled back to the last good value on error. */
#include <stdio.h>
#include <string.h>

#include "avrokit/check.h"
#include "columns_internal.h"
#include "common/error.h"
#include "file/file_records.h"
#include "json/json_utf8.h"


static avk_status decode_value(avki_col_ctx *d, avki_col *col, size_t depth);

/* The bytes of a string or bytes value, checked; *p and *n get them. */
static inline avk_status read_bytes(avki_col_ctx *d, const uint8_t **p, uint64_t *n)
{
    avk_reader *r = d->r;
    int64_t len;
    AVK_TRY(avk_reader_read_long(r, &len, NULL));
    AVK_TRY(avk_check_length(len, d->c->limits.max_bytes, (uint64_t)(r->end - r->pos), 0, "",
                             NULL));
    *p = r->pos;
    *n = (uint64_t)len;
    r->pos += len;
    return AVK_OK;
}

static avk_status decode_binary(avki_col_ctx *d, avki_col *col)
{
    const uint8_t *p;
    uint64_t n;
    AVK_TRY(read_bytes(d, &p, &n));
    if (col->is_string && (d->c->flags & AVK_COLUMNS_CHECK_UTF8) &&
        avki_utf8_valid_prefix(p, (size_t)n) != n)
        return AVK_ERR_MALFORMED;
    if (n > AVKI_COL_MAX_OFFSET - col->data.len)
        return avki_col_too_large(d, "bytes of strings or bytes");
    AVK_TRY(avki_col_put(d->c, &col->data, p, (size_t)n));
    return avki_col_put_offset(d, col, col->data.len, "bytes of strings or bytes");
}

static avk_status decode_decimal(avki_col_ctx *d, avki_col *col)
{
    const uint8_t *p;
    uint64_t n, at = avk_reader_offset(d->r);
    if (col->src_fixed) {
        if ((uint64_t)(d->r->end - d->r->pos) < col->src_fixed)
            return AVK_ERR_TRUNCATED;
        p = d->r->pos;
        n = col->src_fixed;
        d->r->pos += n;
    } else {
        AVK_TRY(read_bytes(d, &p, &n));
    }
    return avki_col_put_decimal(d, col, p, n, at);
}

/* An array or map: blocks of items (entries) into the child. */
static avk_status decode_items(avki_col_ctx *d, avki_col *col, size_t depth)
{
    avk_reader *r = d->r;
    avki_col *item = col->children[0];
    uint64_t total = 0;
    for (;;) {
        uint64_t count, end, at = avk_reader_offset(r), k;
        AVK_TRY(avk_check_read_block(r, at, &count, &end, NULL));
        if (count == 0)
            break;
        AVK_TRY(avk_check_items(&d->c->limits, total, count, item->min_size, &d->empty, at, NULL));
        if (item->min_size && count > (uint64_t)(r->end - r->pos) / item->min_size)
            return AVK_ERR_TRUNCATED;
        total += count;
        if (col->kind == AVKI_COL_MAP) {
            avki_col *key = item->children[0], *value = item->children[1];
            for (k = 0; k < count; k++) {
                AVK_TRY(decode_binary(d, key));
                key->length++;
                AVK_TRY(decode_value(d, value, depth + 1));
                item->length++;
            }
        } else if (!item->nullable && item->kind == AVKI_COL_NULL) {
            item->length += count; /* nulls take no bytes and no buffer */
        } else if (!item->nullable && (item->kind == AVKI_COL_F64 || item->kind == AVKI_COL_F32)) {
            /* Floats and doubles are copied as they are: little-endian IEEE. */
            size_t n = (size_t)count * (item->kind == AVKI_COL_F64 ? 8 : 4);
            AVK_TRY(avki_col_put(d->c, &item->values, r->pos, n));
            r->pos += n;
            item->length += count;
        } else if (!item->nullable && item->kind == AVKI_COL_I64) {
            AVK_TRY(avki_col_reserve(d->c, &item->values, (size_t)count * 8));
            AVK_TRY(avk_reader_read_longs(r, (int64_t *)(void *)(item->values.data + item->values.len),
                                          (size_t)count, NULL));
            item->values.len += (size_t)count * 8;
            item->length += count;
        } else if (!item->nullable && item->kind == AVKI_COL_I32 &&
                   avk_type_kind(item->type) == AVK_INT) {
            AVK_TRY(avki_col_reserve(d->c, &item->values, (size_t)count * 4));
            AVK_TRY(avk_reader_read_ints(r, (int32_t *)(void *)(item->values.data + item->values.len),
                                         (size_t)count, NULL));
            item->values.len += (size_t)count * 4;
            item->length += count;
        } else {
            for (k = 0; k < count; k++)
                AVK_TRY(decode_value(d, item, depth + 1));
        }
        AVK_TRY(avk_check_block_end(r, at, end, NULL));
    }
    return avki_col_put_offset(d, col, item->length, "items of arrays or maps");
}

/* One number of col from the input; the caller counts it. */
static inline avk_status put_long(avki_col_ctx *d, avki_col *col)
{
    int64_t v;
    AVK_TRY(avk_reader_read_long(d->r, &v, NULL));
    return avki_col_put(d->c, &col->values, &v, 8);
}

static inline avk_status put_int(avki_col_ctx *d, avki_col *col)
{
    int32_t v;
    AVK_TRY(avk_reader_read_int(d->r, &v, NULL));
    return avki_col_put(d->c, &col->values, &v, 4);
}

/* Floats and doubles as they are: little-endian IEEE, Arrow's layout. */
static inline avk_status put_word(avki_col_ctx *d, avki_col *col, size_t n)
{
    if (AVK_UNLIKELY((size_t)(d->r->end - d->r->pos) < n))
        return AVK_ERR_TRUNCATED;
    AVK_TRY(avki_col_put(d->c, &col->values, d->r->pos, n));
    d->r->pos += n;
    return AVK_OK;
}

/* The value of a column (a nullable one's union index already read). */
static avk_status decode_payload(avki_col_ctx *d, avki_col *col, size_t depth)
{
    avk_reader *r = d->r;
    size_t i;
    switch (col->kind) {
    case AVKI_COL_NULL:
        break;
    case AVKI_COL_BOOL: {
        int b;
        AVK_TRY(avk_reader_read_boolean(r, &b, NULL));
        AVK_TRY(avki_col_put_bit(d->c, &col->values, col->length, b));
        break;
    }
    case AVKI_COL_I32:
        if (avk_type_kind(col->type) == AVK_ENUM) {
            int32_t v;
            AVK_TRY(avk_reader_read_int(r, &v, NULL));
            if (v < 0 || (size_t)v >= avk_type_symbol_count(col->type))
                return AVK_ERR_MALFORMED;
            AVK_TRY(avki_col_put(d->c, &col->values, &v, 4));
        } else {
            AVK_TRY(put_int(d, col));
        }
        break;
    case AVKI_COL_I64:
        AVK_TRY(put_long(d, col));
        break;
    case AVKI_COL_F32:
        AVK_TRY(put_word(d, col, 4));
        break;
    case AVKI_COL_F64:
        AVK_TRY(put_word(d, col, 8));
        break;
    case AVKI_COL_BINARY:
        AVK_TRY(decode_binary(d, col));
        break;
    case AVKI_COL_FIXED:
        if ((uint64_t)(r->end - r->pos) < col->width)
            return AVK_ERR_TRUNCATED;
        AVK_TRY(avki_col_put(d->c, &col->values, r->pos, col->width));
        r->pos += col->width;
        break;
    case AVKI_COL_DECIMAL:
        AVK_TRY(decode_decimal(d, col));
        break;
    case AVKI_COL_STRUCT:
        if (AVK_UNLIKELY(depth + 1 > d->c->limits.max_depth))
            return AVK_ERR_LIMIT;
        for (i = 0; i < col->n_steps; i++) {
            avki_col *k = col->steps[i].child;
            if (!k) {
                AVK_TRY(avk_plan_skip(col->steps[i].skip, r, NULL));
                continue;
            }
            /* Numbers inline: no call and no switch per field (5% of a
             * GenericRecord read into columns on Zen 4). */
            if (k->leaf == AVKI_LEAF_LONG) {
                AVK_TRY(put_long(d, k));
            } else if (k->leaf == AVKI_LEAF_INT) {
                AVK_TRY(put_int(d, k));
            } else if (k->leaf == AVKI_LEAF_WORD8 || k->leaf == AVKI_LEAF_WORD4) {
                AVK_TRY(put_word(d, k, k->leaf == AVKI_LEAF_WORD8 ? 8 : 4));
            } else {
                AVK_TRY(decode_value(d, k, depth + 1));
                continue;
            }
            k->length++;
        }
        break;
    case AVKI_COL_LIST:
    case AVKI_COL_MAP:
        if (AVK_UNLIKELY(depth + 1 > d->c->limits.max_depth))
            return AVK_ERR_LIMIT;
        AVK_TRY(decode_items(d, col, depth));
        break;
    case AVKI_COL_UNION: {
        int64_t b;
        int8_t id;
        int32_t at;
        avki_col *k;
        if (AVK_UNLIKELY(depth + 1 > d->c->limits.max_depth))
            return AVK_ERR_LIMIT;
        AVK_TRY(avk_reader_read_long(r, &b, NULL));
        if (b < 0 || (uint64_t)b >= col->n_children)
            return AVK_ERR_MALFORMED;
        k = col->children[b];
        if (k->length > AVKI_COL_MAX_OFFSET)
            return avki_col_too_large(d, "values in a union branch");
        id = (int8_t)b;
        at = (int32_t)k->length;
        AVK_TRY(avki_col_put(d->c, &col->values, &id, 1));
        AVK_TRY(avki_col_put(d->c, &col->data, &at, 4));
        AVK_TRY(decode_value(d, k, depth + 1));
        break;
    }
    }
    col->length++;
    return AVK_OK;
}

static avk_status decode_value(avki_col_ctx *d, avki_col *col, size_t depth)
{
    int64_t b;
    if (!col->nullable)
        return decode_payload(d, col, depth);
    if (AVK_UNLIKELY(depth + 1 > d->c->limits.max_depth))
        return AVK_ERR_LIMIT;
    d->at = avk_reader_offset(d->r);
    AVK_TRY(avk_reader_read_long(d->r, &b, NULL));
    if (b == (int64_t)col->null_branch)
        return avki_col_append_null(d, col);
    if (b != (int64_t)(1 - col->null_branch))
        return AVK_ERR_MALFORMED;
    AVK_TRY(avki_col_put_bit(d->c, &col->validity, col->length, 1));
    return decode_payload(d, col, depth + 1);
}

/* The error of the value at start, as avk_plan_decode reports it (the
 * column decoder only knows that it failed). */
static avk_status describe_error(avk_columns *c, avk_reader *r, const uint8_t *start,
                                 avk_status st, avk_error *err)
{
    avk_arena_options ao;
    avk_arena *arena;
    avk_value v;
    avk_status st2;
    avk_arena_options_init(&ao);
    ao.allocator = &c->alloc;
    if (avk_arena_new(&ao, &arena, NULL) != AVK_OK)
        return avk_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                             "out of memory describing a decode error");
    r->pos = start;
    st2 = avk_plan_decode(c->plan, r, arena, &v, err);
    avk_arena_free(arena);
    r->pos = start;
    if (st2 != AVK_OK)
        return st2;
    if (st == AVK_ERR_NO_MEMORY)
        return avk_error_set(err, st, AVK_OFFSET_UNKNOWN, "out of memory for the columns");
    /* The plan reads it; the projection's skip did not (a sized block
     * jumped over), or a limit counts differently here. */
    return avk_error_set(err, st, avk_reader_offset(r),
                         "the value here cannot be decoded into columns (%s)",
                         avk_status_name(st));
}

/* Room for the rows of a block in the record's number columns at once, so
 * they grow once per block rather than doubling (never more rows than the
 * bytes could hold: a count may lie). A failure here is left to the puts. */
static void reserve_rows(avki_col *root, uint64_t count, uint64_t bytes, avki_col_ctx *d)
{
    size_t i;
    if (root->kind != AVKI_COL_STRUCT || root->nullable || root->min_size == 0)
        return;
    if (count > bytes / root->min_size)
        count = bytes / root->min_size;
    for (i = 0; i < root->n_children; i++) {
        avki_col *k = root->children[i];
        size_t w = k->leaf == AVKI_LEAF_LONG || k->leaf == AVKI_LEAF_WORD8  ? 8
                   : k->leaf == AVKI_LEAF_WORD4 || k->leaf == AVKI_LEAF_INT ? 4
                                                                            : 0;
        if (w && count <= SIZE_MAX / w)
            (void)avki_col_reserve(d->c, &k->values, (size_t)count * w);
    }
}

/* The rows of a table (see avk_columns.tile): *at gets the rows decoded
 * and copied out, also on error (the failing row's index). */
static avk_status decode_tiled(avki_col_ctx *d, uint64_t count, uint64_t *at)
{
    avk_columns *c = d->c;
    avki_col *root = c->root;
    avk_reader *r = d->r;
    size_t rows = c->tile_size / c->row_bytes, j;
    uint64_t i = 0;
    avk_status st = AVK_OK;
    while (i < count && st == AVK_OK) {
        size_t n = count - i < rows ? (size_t)(count - i) : rows, k, off = 0;
        for (k = 0; k < n; k++) {
            uint8_t *row = c->tile + k * c->row_bytes;
            const avki_col_run *run = c->runs, *end = c->runs + c->n_runs;
            for (off = 0; run < end; run++) {
                size_t bytes = run->count * run->width;
                switch (run->leaf) {
                case AVKI_LEAF_LONG:
                    st = avk_reader_read_longs(r, (int64_t *)(void *)(row + off), run->count, NULL);
                    break;
                case AVKI_LEAF_INT:
                    st = avk_reader_read_ints(r, (int32_t *)(void *)(row + off), run->count, NULL);
                    break;
                case AVKI_LEAF_WORD8:
                case AVKI_LEAF_WORD4:
                    if ((size_t)(r->end - r->pos) < bytes) {
                        st = AVK_ERR_TRUNCATED;
                    } else {
                        memcpy(row + off, r->pos, bytes);
                        r->pos += bytes;
                    }
                    break;
                default:
                    st = avk_plan_skip(run->skip, r, NULL);
                    break;
                }
                off += bytes;
                if (AVK_UNLIKELY(st != AVK_OK))
                    break;
            }
            if (AVK_UNLIKELY(st != AVK_OK))
                break;
        }
        /* The whole rows, column by column. */
        for (j = 0, off = 0; j < root->n_steps && k; j++) {
            avki_col *f = root->steps[j].child;
            size_t w, q;
            uint8_t *dst;
            if (!f)
                continue;
            w = f->leaf == AVKI_LEAF_LONG || f->leaf == AVKI_LEAF_WORD8 ? 8 : 4;
            if (avki_col_reserve(c, &f->values, k * w) != AVK_OK) {
                *at = i;
                return AVK_ERR_NO_MEMORY;
            }
            dst = f->values.data + f->values.len;
            for (q = 0; q < k; q++)
                memcpy(dst + q * w, c->tile + q * c->row_bytes + off, w);
            f->values.len += k * w;
            f->length += k;
            off += w;
        }
        root->length += k;
        i += k;
    }
    *at = i;
    return st;
}

/* With a reader's schema: each value decoded by the resolving plan, then
 * appended (which is all or nothing per value). */
static avk_status decode_resolved(avk_columns *c, avk_reader *r, uint64_t count, uint64_t *done,
                                  avk_error *err)
{
    avk_value v;
    uint64_t i;
    avk_status st = AVK_OK;
    *done = 0;
    if (!c->arena) {
        avk_arena_options ao;
        avk_arena_options_init(&ao);
        ao.allocator = &c->alloc;
        st = avk_arena_new(&ao, &c->arena, err);
        if (st != AVK_OK)
            return st;
    }
    for (i = 0; i < count; i++) {
        const uint8_t *start = r->pos;
        avk_arena_reset(c->arena);
        st = avk_plan_decode(c->plan, r, c->arena, &v, err);
        if (st == AVK_OK)
            st = avk_columns_append_value(c, &v, err);
        if (st != AVK_OK) {
            r->pos = start;
            break;
        }
    }
    *done = i;
    return st;
}

avk_status avk_columns_decode(avk_columns *c, avk_reader *r, uint64_t count, uint64_t *done,
                              avk_error *err)
{
    avki_col_ctx d;
    uint64_t i, k, budget;
    const uint8_t *first;
    avk_status st = AVK_OK;
    if (done)
        *done = 0;
    if (!c || !r)
        return avk_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                             "avk_columns_decode: NULL argument");
    if (r->source)
        return avk_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                             "avk_columns_decode: needs a memory reader (the whole input in "
                             "memory, as a decompressed block is)");
    if (c->resolving) {
        st = decode_resolved(c, r, count, &i, err);
        if (done)
            *done = i;
        return st;
    }
    memset(&d, 0, sizeof d);
    d.c = c;
    d.r = r;
    d.err = err;
    first = r->pos;
    budget = c->placeholder_left;
    avki_col_mark(c->root);
    reserve_rows(c->root, count, (uint64_t)(r->end - r->pos), &d);
    if (c->tile_size) {
        st = decode_tiled(&d, count, &i);
    } else {
        for (i = 0; i < count; i++) {
            d.empty = 0;
            st = decode_value(&d, c->root, 0);
            if (AVK_UNLIKELY(st != AVK_OK))
                break;
        }
    }
    if (AVK_UNLIKELY(st != AVK_OK)) {
        /* Back to the call's start, then the good values again: a mark per
         * value would cost more than redoing them once. */
        int own = d.own_error;
        avki_col_rollback(c->root);
        c->placeholder_left = budget;
        r->pos = first;
        for (k = 0; k < i; k++) {
            d.empty = 0;
            if (decode_value(&d, c->root, 0) != AVK_OK) {
                avki_col_rollback(c->root); /* only memory can fail twice */
                r->pos = first;
                i = 0;
                st = AVK_ERR_NO_MEMORY;
                break;
            }
        }
        if (!own || st == AVK_ERR_NO_MEMORY)
            st = describe_error(c, r, r->pos, st, err);
    }
    if (done)
        *done = i;
    return st;
}

avk_status avk_columns_decode_block(avk_columns *c, const avk_file_reader *fr,
                                    const avk_file_block *block, uint64_t *done, avk_error *err)
{
    avk_reader r;
    avk_status st;
    uint64_t n = 0;
    int nonstandard;
    if (done)
        *done = 0;
    if (!c || !fr || !block)
        return avk_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                             "avk_columns_decode_block: NULL argument");
    if (block->count < 0)
        return avk_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                             "avk_columns_decode_block: negative record count");
    if (avk_file_reader_codec(fr, &nonstandard) == AVK_CODEC_NULL) {
        avk_reader_init_memory(&r, block->data, block->size);
    } else {
        st = avk_file_block_decompress(fr, block, &c->block, err);
        if (st != AVK_OK)
            return st;
        avk_reader_init_memory(&r, c->block.data, c->block.len);
    }
    st = avk_columns_decode(c, &r, (uint64_t)block->count, &n, err);
    if (done)
        *done = n;
    if (st == AVK_ERR_TRUNCATED) {
        /* A block's data is whole (its size said so): running out inside
         * it means the count is wrong, as avk_file_reader_next says. The
         * offset and path stay the record's. */
        st = AVK_ERR_MALFORMED;
        if (err) {
            err->status = st;
            avki_error_prefix(err, "the block's data ends inside record %llu of %lld (its count "
                              "may be wrong): ",
                              (unsigned long long)n, (long long)block->count);
        }
    }
    if (st != AVK_OK) {
        if (err) {
            avki_error_prefix(err, "block %llu at byte %llu, record %llu: ",
                              (unsigned long long)block->index,
                              (unsigned long long)block->offset, (unsigned long long)n);
            err->block = (int64_t)block->index;
        }
        return st;
    }
    if (r.pos != r.end) {
        st = avk_error_set(err, AVK_ERR_MALFORMED, avk_reader_offset(&r),
                           "block %llu at byte %llu: %zu bytes are left over after its %lld "
                           "records (the count may be wrong)",
                           (unsigned long long)block->index, (unsigned long long)block->offset,
                           (size_t)(r.end - r.pos), (long long)block->count);
        if (err)
            err->block = (int64_t)block->index;
    }
    return st;
}

uint64_t avk_columns_length(const avk_columns *c)
{
    return c ? c->root->length : 0;
}

void avk_columns_clear(avk_columns *c)
{
    if (c) {
        avki_col_clear(c->root);
        avki_col_reset_budget(c);
    }
}

/* The cursor's own reader is taken over: its records are decoded here in
 * one call and the cursor moved past them, so the reader sees them taken. */
avk_status avk_columns_decode_records(avk_columns *c, avk_file_records *rc, uint64_t *done,
                                      avk_error *err)
{
    avk_status st;
    uint64_t n = 0;
    avk_error e;
    if (done)
        *done = 0;
    if (!c || !rc)
        return avk_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                             "avk_columns_decode_records: NULL argument");
    rc->start = rc->r.pos;
    st = avk_columns_decode(c, &rc->r, (uint64_t)rc->remaining, &n, &e);
    rc->record += (int64_t)n;
    rc->remaining -= (int64_t)n;
    if (done)
        *done = n;
    if (st == AVK_OK)
        return AVK_OK;
    rc->start = rc->r.pos; /* the bad record's first byte */
    if (st != AVK_ERR_NO_MEMORY && st != AVK_ERR_IO) {
        if (st == AVK_ERR_LIMIT)
            st = avki_file_limit_or_damage(rc->relaxed, rc->data, rc->start, rc->data + rc->len,
                                           NULL, &e);
        st = avki_file_record_failed(st, &e, rc->record, rc->blk.count, rc->blk.offset,
                                     rc->blk.index);
    }
    rc->remaining = 0;
    rc->r.pos = rc->r.end;
    if (err)
        *err = e;
    return st;
}
