/* Typed arrays (C arrays of booleans, ints, longs, floats, doubles, fixed) written in blocks: shared by the encoder and the builder. */
#include "binary/encode_internal.h"
#include "common/error.h"
#include "varint/kernels.h"

/* Length of the varint of zigzag value u: 1 to 10. */
AVK_INLINE size_t varint_len(uint64_t u)
{
    return 1 + (size_t)(63 - __builtin_clzll(u | 1)) / 7;
}

/* Encoded bytes of k typed items: exact, so a block with byte sizes is
 * written straight through (no patching, no scratch). */
static uint64_t typed_size(const avki_node *n, const void *items, size_t k)
{
    uint64_t size = 0;
    size_t i;
    switch ((avki_store)n->store) {
    case AVKI_STORE_INT:
        for (i = 0; i < k; i++)
            size += varint_len(avk_zigzag_encode32(((const int32_t *)items)[i]));
        return size;
    case AVKI_STORE_LONG:
        for (i = 0; i < k; i++)
            size += varint_len(avk_zigzag_encode64(((const int64_t *)items)[i]));
        return size;
    default:
        return (uint64_t)k * avki_store_size(n);
    }
}

static avk_status write_typed(const avki_node *n, const void *items, size_t k, avk_writer *w,
                              avk_error *err)
{
    switch ((avki_store)n->store) {
    case AVKI_STORE_INT:
        return avk_writer_write_ints(w, (const int32_t *)items, k, err);
    case AVKI_STORE_LONG:
        return avk_writer_write_longs(w, (const int64_t *)items, k, err);
    case AVKI_STORE_NULL:
        return AVK_OK;
    default: /* boolean, float, double, fixed: the wire format is the C layout */
        if (k == 0 || avki_store_size(n) == 0) /* fixed of size 0: no storage */
            return AVK_OK;
        return avk_writer_write_raw(w, items, k * avki_store_size(n), err);
    }
}

avk_status avki_encode_typed_array(const avk_plan *plan, const avki_node *n, const void *items,
                                   size_t count, avk_writer *w, uint64_t *bad_item,
                                   avk_error *err)
{
    size_t elem = avki_store_size(n), per = plan->block_items ? plan->block_items : count;
    size_t start, k;
    const uint8_t *p = (const uint8_t *)items;

    if (AVK_UNLIKELY(count && !items && elem != 0))
        return avki_encode_mismatch(err, "array of %zu items has no items", count);
    if (n->store == AVKI_STORE_BOOLEAN) {
        uint8_t acc = 0;
        size_t i;
        for (i = 0; i < count; i++)
            acc |= p[i];
        if (AVK_UNLIKELY(acc > 1)) {
            for (i = 0; p[i] <= 1; i++)
                ;
            *bad_item = i;
            return avki_encode_mismatch(err, "boolean item is %u, expected 0 or 1",
                                        (unsigned)p[i]);
        }
    }
    for (start = 0; start < count; start += k) {
        const void *at = elem ? p + start * elem : items; /* null items: no storage */
        k = count - start < per ? count - start : per;
        if (plan->flags & AVK_PLAN_BLOCK_SIZES) {
            AVK_TRY(avk_writer_write_long(w, -(int64_t)k, err));
            AVK_TRY(avk_writer_write_long(w, (int64_t)typed_size(n, at, k), err));
        } else {
            AVK_TRY(avk_writer_write_long(w, (int64_t)k, err));
        }
        AVK_TRY(write_typed(n, at, k, w, err));
    }
    return avk_writer_write_long(w, 0, err);
}

