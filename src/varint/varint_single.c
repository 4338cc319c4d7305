/* Out-of-line halves of the single-value codec, sizes, and the cold error explainer. */
#include "avrokit/varint.h"
#include "common/error.h"
#include "varint/varint_word.h"

/* The inline encoder's tables (varint.h), by z, the count of leading zero
 * bits of the zigzagged value: len_by_clz[z] is its length, ceil((64 - z) / 7)
 * (at least 1); cont_by_clz[z] has 0x80 in each of its first 8 bytes but the
 * last (in all 8 for lengths 9 and 10). z = 0 is a 64-bit value, z = 64 is 0. */
const uint8_t avk_varint_len_by_clz[65] = {
    10, 9, 9, 9, 9, 9, 9, 9, 8, 8, 8, 8, 8, 8, 8, 7,
    7, 7, 7, 7, 7, 7, 6, 6, 6, 6, 6, 6, 6, 5, 5, 5,
    5, 5, 5, 5, 4, 4, 4, 4, 4, 4, 4, 3, 3, 3, 3, 3,
    3, 3, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1,
    1,
};

const uint64_t avk_varint_cont_by_clz[65] = {
    0x8080808080808080ULL, 0x8080808080808080ULL, 0x8080808080808080ULL,
    0x8080808080808080ULL, 0x8080808080808080ULL, 0x8080808080808080ULL,
    0x8080808080808080ULL, 0x8080808080808080ULL, 0x0080808080808080ULL,
    0x0080808080808080ULL, 0x0080808080808080ULL, 0x0080808080808080ULL,
    0x0080808080808080ULL, 0x0080808080808080ULL, 0x0080808080808080ULL,
    0x0000808080808080ULL, 0x0000808080808080ULL, 0x0000808080808080ULL,
    0x0000808080808080ULL, 0x0000808080808080ULL, 0x0000808080808080ULL,
    0x0000808080808080ULL, 0x0000008080808080ULL, 0x0000008080808080ULL,
    0x0000008080808080ULL, 0x0000008080808080ULL, 0x0000008080808080ULL,
    0x0000008080808080ULL, 0x0000008080808080ULL, 0x0000000080808080ULL,
    0x0000000080808080ULL, 0x0000000080808080ULL, 0x0000000080808080ULL,
    0x0000000080808080ULL, 0x0000000080808080ULL, 0x0000000080808080ULL,
    0x0000000000808080ULL, 0x0000000000808080ULL, 0x0000000000808080ULL,
    0x0000000000808080ULL, 0x0000000000808080ULL, 0x0000000000808080ULL,
    0x0000000000808080ULL, 0x0000000000008080ULL, 0x0000000000008080ULL,
    0x0000000000008080ULL, 0x0000000000008080ULL, 0x0000000000008080ULL,
    0x0000000000008080ULL, 0x0000000000008080ULL, 0x0000000000000080ULL,
    0x0000000000000080ULL, 0x0000000000000080ULL, 0x0000000000000080ULL,
    0x0000000000000080ULL, 0x0000000000000080ULL, 0x0000000000000080ULL,
    0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
    0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
    0x0000000000000000ULL, 0x0000000000000000ULL,
};

/* The inline decoder in varint.h handles the short lengths with branches
 * the predictor learns; these out-of-line halves take the rest, so the
 * inline part stays small enough to inline everywhere. The inline encoder
 * needs no out-of-line half any more; this one encodes any value with no
 * branch, for callers built against earlier headers. */
size_t avk_varint_encode_u64_slow(uint8_t *out, uint64_t u)
{
    return avki_encode_u64_word(out, u);
}

/* Near the end of the input (fewer than 10 bytes readable) the word
 * decoder would load past it: byte by byte instead. */
size_t avk_varint_decode_u64_slow(const uint8_t *in, size_t len, uint64_t *out)
{
    if (AVK_LIKELY(len >= AVK_VARINT_LONG_MAX))
        return avki_decode_u64_word(in, out);
    return avki_decode_careful(in, len, AVK_VARINT_LONG_MAX, out);
}

size_t avk_varint_decode_u64_long(const uint8_t *in, uint64_t *out)
{
    return avki_decode_u64_word(in, out);
}

/* Ints decode as longs and are then checked: at most 5 bytes and no bits
 * beyond 32. The word decoder accepts a padded or wide 6-10 byte value
 * that an int may not have, so the check cannot be skipped. */
size_t avk_varint_decode_u32_slow(const uint8_t *in, size_t len, uint32_t *out)
{
    uint64_t u = 0;
    size_t n;
    if (AVK_LIKELY(len >= AVK_VARINT_LONG_MAX)) {
        n = avki_decode_u64_word(in, &u);
        if (AVK_UNLIKELY(n > AVK_VARINT_INT_MAX || (u >> 32) != 0))
            return 0;
    } else {
        n = avki_decode_careful(in, len, AVK_VARINT_INT_MAX, &u);
    }
    *out = (uint32_t)u;
    return n;
}

/* Cold, called once after a decoder returned 0: the decoders only say
 * "not here", so the hot loops carry no error paths, and the reason
 * (truncated, too long, bits too many) is worked out here byte by byte. */
avk_status avk_varint_explain(const uint8_t *in, size_t len, int is_int, uint64_t base_offset,
                              avk_error *err)
{
    unsigned max_len = is_int ? AVK_VARINT_INT_MAX : AVK_VARINT_LONG_MAX;
    const char *type = is_int ? "int" : "long";
    size_t i;
    for (i = 0; i < len && i < max_len; i++) {
        if (in[i] < 0x80) {
            if (i == max_len - 1 && (in[i] >> (is_int ? 4 : 1)) != 0)
                return avki_error_set(err, AVK_ERR_MALFORMED, base_offset + i,
                                      "varint %s has bits beyond %d in its last byte 0x%02x",
                                      type, is_int ? 32 : 64, in[i]);
            return AVK_OK;
        }
    }
    if (i == max_len)
        return avki_error_set(err, AVK_ERR_MALFORMED, base_offset,
                              "varint %s longer than %u bytes", type, max_len);
    return avki_error_set(err, AVK_ERR_TRUNCATED, base_offset,
                          "input ends inside a varint %s (%zu of at most %u bytes present)",
                          type, len, max_len);
}

size_t avk_varint_size_long(int64_t v)
{
    return avki_varint_len(avk_zigzag_encode64(v));
}

size_t avk_varint_size_longs(const int64_t *in, size_t n)
{
    size_t total = 0, i;
    for (i = 0; i < n; i++)
        total += avki_varint_len(avk_zigzag_encode64(in[i]));
    return total;
}

size_t avk_varint_size_ints(const int32_t *in, size_t n)
{
    size_t total = 0, i;
    for (i = 0; i < n; i++)
        total += avki_varint_len(avk_zigzag_encode32(in[i]));
    return total;
}
