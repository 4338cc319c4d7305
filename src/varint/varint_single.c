/* Out-of-line halves of the single-value codec, sizes, and the cold error explainer. */
#include "avrokit/varint.h"
#include "common/error.h"
#include "varint/varint_word.h"

/* The inline codec in varint.h handles the short lengths with branches the
 * predictor learns; these out-of-line halves take the rest, so the inline
 * part stays small enough to inline everywhere. */
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
