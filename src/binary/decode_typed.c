/* Decoder pieces that work per block, not per value: item counts against the limits and the input, growth, typed arrays. */
#include <string.h>

#include "binary/decode_ctx.h"
#include "common/error.h"
#include "io/reader_internal.h"

/* The limits first, then how many the input backs (avrokit/check.h says
 * why memory and stream readers take them as they do). */
avk_status avki_dtake_items(dctx *c, uint64_t total, uint64_t left, uint64_t min_size,
                            int may_be_malformed, uint64_t off, uint64_t *take)
{
    AVK_TRY(avk_check_items(c->limits, total, left, min_size, &c->empty, off, c->err));
    return avk_check_items_take(c->r, left, min_size, may_be_malformed, off, take, c->err);
}

/* Grows by doubling; the old storage stays in the arena until reset. */
avk_status avki_dreserve(dctx *c, void **items, uint64_t *cap, uint64_t have, uint64_t need,
                         size_t elem)
{
    uint64_t ncap;
    void *p;
    if (need <= *cap)
        return AVK_OK;
    if (elem == 0) { /* items of null: a count and nothing stored */
        *cap = need;
        return AVK_OK;
    }
    ncap = *cap ? *cap * 2 : need;
    if (ncap < need)
        ncap = need;
    if (ncap > (SIZE_MAX / 2) / elem)
        return avki_dalloc_failed(c, SIZE_MAX);
    if ((size_t)ncap * elem >= 256) {
        /* Large arrays start on a cache line, so the copy into them does
         * not split its 64-byte stores (measured on DoubleArray256: from
         * about 2.0x to 1.9x the time of a bare memcpy). */
        p = avki_dalloc(c, (size_t)ncap * elem + 48, 16);
        if (p)
            p = (void *)(((uintptr_t)p + 63) & ~(uintptr_t)63);
    } else {
        p = avki_dalloc(c, (size_t)ncap * elem, 8);
    }
    if (!p)
        return avki_dalloc_failed(c, (size_t)ncap * elem);
    if (have)
        memcpy(p, *items, (size_t)have * elem);
    *items = p;
    *cap = ncap;
    return AVK_OK;
}

static int bytes_are_booleans(const uint8_t *p, size_t n)
{
    uint8_t acc = 0;
    size_t i;
    for (i = 0; i < n; i++)
        acc |= p[i];
    return (acc & 0xFE) == 0;
}

/* Typed items of a resolving plan whose writer items are narrower (or
 * another wire form) than the reader's storage: read in bulk where the
 * wire allows, then widened in place from the end (each wider item lands
 * on narrower ones already converted); anything else item by item. */
static avk_status read_promoted(dctx *c, const avki_node *n, const avki_step *item, uint8_t *dst,
                                size_t count, size_t *bad)
{
    avk_reader *r = c->r;
    size_t i;
    switch ((avki_op)item->op) {
    case AVKI_OP_INT_LONG:
    case AVKI_OP_INT_DOUBLE:
        AVK_TRY(avki_reader_read_ints_counted(r, (int32_t *)(void *)dst, count, bad, c->err));
        for (i = count; i-- > 0;) {
            int32_t x;
            memcpy(&x, dst + 4 * i, 4);
            if (item->op == AVKI_OP_INT_LONG) {
                int64_t y = x;
                memcpy(dst + 8 * i, &y, 8);
            } else {
                double y = x;
                memcpy(dst + 8 * i, &y, 8);
            }
        }
        return AVK_OK;
    case AVKI_OP_INT_FLOAT:
        AVK_TRY(avki_reader_read_ints_counted(r, (int32_t *)(void *)dst, count, bad, c->err));
        for (i = 0; i < count; i++) {
            int32_t x;
            float y;
            memcpy(&x, dst + 4 * i, 4);
            y = (float)x;
            memcpy(dst + 4 * i, &y, 4);
        }
        return AVK_OK;
    case AVKI_OP_LONG_DOUBLE:
        AVK_TRY(avki_reader_read_longs_counted(r, (int64_t *)(void *)dst, count, bad, c->err));
        for (i = 0; i < count; i++) {
            int64_t x;
            double y;
            memcpy(&x, dst + 8 * i, 8);
            y = (double)x;
            memcpy(dst + 8 * i, &y, 8);
        }
        return AVK_OK;
    case AVKI_OP_FLOAT_DOUBLE: {
        uint64_t off = avk_reader_offset(r);
        avk_status st = avk_reader_read_raw(r, dst, count * 4, c->err);
        if (AVK_UNLIKELY(st != AVK_OK)) {
            *bad = (size_t)((avk_reader_offset(r) - off) / 4);
            return st;
        }
        for (i = count; i-- > 0;) {
            float x;
            double y;
            memcpy(&x, dst + 4 * i, 4);
            y = x;
            memcpy(dst + 8 * i, &y, 8);
        }
        return AVK_OK;
    }
    default: {
        /* long to float (the wire is wider than the storage), a union of
         * the writer's read as one type, and the like: one by one. */
        size_t size = avki_store_size(n);
        for (i = 0; i < count; i++) {
            avk_value tmp;
            avk_status st;
            tmp.type = item->type;
            st = avki_decode_leaf_unwrap(c, item, &tmp);
            if (AVK_UNLIKELY(st != AVK_OK)) {
                *bad = i;
                return st;
            }
            switch ((avki_store)n->store) {
            case AVKI_STORE_BOOLEAN: dst[i] = tmp.u.boolean; break;
            case AVKI_STORE_INT: memcpy(dst + size * i, &tmp.u.i, 4); break;
            case AVKI_STORE_LONG: memcpy(dst + size * i, &tmp.u.l, 8); break;
            case AVKI_STORE_FLOAT: memcpy(dst + size * i, &tmp.u.f, 4); break;
            case AVKI_STORE_DOUBLE: memcpy(dst + size * i, &tmp.u.d, 8); break;
            case AVKI_STORE_FIXED:
                if (size) /* fixed(0): nothing stored, dst may be NULL */
                    memcpy(dst + size * i, tmp.u.bytes.data, size);
                break;
            default: break;
            }
        }
        return AVK_OK;
    }
    }
}

/* count typed items straight into dst (a C array). On error *bad gets
 * the index of the item at fault (from 0 in this call). */
static avk_status read_typed(dctx *c, const avki_node *n, void *dst, size_t count, size_t *bad)
{
    avk_reader *r = c->r;
    const avki_step *item = c->steps + n->first;
    size_t size;
    uint64_t off;
    avk_status st;
    *bad = 0;
    /* In a resolving plan the items may need converting on the way. */
    if (AVK_UNLIKELY(item->op > AVKI_OP_LAST_PLAIN || c->nodes[item->node].store))
        return read_promoted(c, n, item, (uint8_t *)dst, count, bad);
    switch ((avki_store)n->store) {
    case AVKI_STORE_INT:
        return avki_reader_read_ints_counted(r, (int32_t *)dst, count, bad, c->err);
    case AVKI_STORE_LONG:
        return avki_reader_read_longs_counted(r, (int64_t *)dst, count, bad, c->err);
    case AVKI_STORE_BOOLEAN: {
        size_t have = count;
        off = avk_reader_offset(r);
        st = avk_reader_read_raw(r, dst, count, c->err);
        /* A stream that ends inside the chunk has handed over what came:
         * a bad byte among it is found first, as item by item would. */
        if (AVK_UNLIKELY(st != AVK_OK))
            have = r->source && st == AVK_ERR_TRUNCATED ? (size_t)(avk_reader_offset(r) - off)
                                                        : 0;
        if (AVK_UNLIKELY(!bytes_are_booleans((const uint8_t *)dst, have))) {
            size_t i = 0;
            while (((const uint8_t *)dst)[i] <= 1)
                i++;
            *bad = i;
            return avki_error_set(c->err, AVK_ERR_MALFORMED, off + i,
                                  "boolean byte is 0x%02x, expected 0 or 1",
                                  ((const uint8_t *)dst)[i]);
        }
        *bad = have;
        return st;
    }
    case AVKI_STORE_NULL:
        return AVK_OK;
    default: /* float, double, fixed: the wire format is the C layout */
        size = avki_store_size(n);
        off = avk_reader_offset(r);
        st = avk_reader_read_raw(r, dst, count * size, c->err);
        if (AVK_UNLIKELY(st != AVK_OK)) {
            /* The first item that did not fit. */
            uint64_t have = avk_reader_offset(r) - off;
            *bad = (size_t)(have / size);
            if (st == AVK_ERR_TRUNCATED)
                return avki_error_set(c->err, st, off + *bad * size,
                                      "input ends inside an item of %zu bytes", size);
        }
        return st;
    }
}

avk_status avki_decode_typed_array(dctx *c, const avki_node *n, avk_value *v)
{
    const avki_step *item = c->steps + n->first;
    uint64_t min_size = c->nodes[item->node].min_size;
    int bad_bytes = avki_dmay_be_malformed(item);
    size_t elem = avki_store_size(n);
    int reads = elem || item->op > AVKI_OP_LAST_PLAIN || c->nodes[item->node].store;
    void *items = NULL;
    uint64_t total = 0, cap = 0;

    for (;;) {
        uint64_t left = 0, end, off = avk_reader_offset(c->r);
        AVK_TRY(avk_check_read_block(c->r, off, &left, &end, c->err));
        if (left == 0)
            break;
        while (left) {
            uint64_t take = 0; /* set on AVK_OK; 0 quiets -O3's -Wmaybe-uninitialized */
            AVK_TRY(avki_dtake_items(c, total, left, min_size, bad_bytes, off, &take));
            AVK_TRY(avki_dreserve(c, &items, &cap, total, total + take, elem));
            /* Items of null or fixed(0) store nothing and, in a plain
             * plan, have no bytes; a resolving plan may still have to
             * read the writer's (a union read as null, say). */
            if (reads) {
                size_t bad;
                avk_status st = read_typed(c, n, elem ? (uint8_t *)items + total * elem : NULL,
                                           (size_t)take, &bad);
                if (AVK_UNLIKELY(st != AVK_OK)) {
                    avki_dtail(c, AVKI_SEG_ITEM, total + bad, NULL);
                    return st;
                }
            }
            total += take;
            left -= take;
        }
        AVK_TRY(avk_check_block_end(c->r, off, end, c->err));
    }
    v->u.array.items = items;
    v->u.array.count = (size_t)total;
    return AVK_OK;
}
