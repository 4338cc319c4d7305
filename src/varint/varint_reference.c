/* Reference varint codec: one byte at a time, as the specification reads. Slow on purpose. */
#include "avrokit/varint.h"
#include "varint/kernels.h"

/* Returns the length, or 0 when truncated, too long or over max_bits.
 * Written as the specification reads (7 bits a byte, low group first) and
 * sharing no code with the kernels, so a bug in their shared helpers
 * (varint_word.h) cannot hide in both sides of tests/kernels' comparison.
 * The bits check: a group may not carry bits at or above max_bits (the
 * 10th byte of a long only bit 63, the 5th of an int only bits 28-31). */
static size_t ref_decode(const uint8_t *p, size_t len, unsigned max_bytes, unsigned max_bits,
                         uint64_t *out)
{
    uint64_t v = 0;
    unsigned shift = 0;
    size_t i = 0;
    for (;;) {
        uint64_t b, payload;
        if (i == len || i == max_bytes)
            return 0;
        b = p[i++];
        payload = b & 0x7f;
        if (shift + 7 > max_bits && (payload >> (max_bits - shift)) != 0)
            return 0;
        v |= payload << shift;
        if (!(b & 0x80))
            break;
        shift += 7;
    }
    *out = v;
    return i;
}

static size_t ref_encode(uint8_t *out, uint64_t u)
{
    size_t i = 0;
    while (u >= 0x80) {
        out[i++] = (uint8_t)(u | 0x80);
        u >>= 7;
    }
    out[i++] = (uint8_t)u;
    return i;
}

size_t avki_ref_decode_longs(const uint8_t *in, size_t len, int64_t *out, size_t n, size_t *consumed)
{
    size_t pos = 0, i;
    for (i = 0; i < n; i++) {
        uint64_t u;
        size_t k = ref_decode(in + pos, len - pos, 10, 64, &u);
        if (!k)
            break;
        out[i] = avk_zigzag_decode64(u);
        pos += k;
    }
    *consumed = pos;
    return i;
}

size_t avki_ref_decode_ints(const uint8_t *in, size_t len, int32_t *out, size_t n, size_t *consumed)
{
    size_t pos = 0, i;
    for (i = 0; i < n; i++) {
        uint64_t u;
        size_t k = ref_decode(in + pos, len - pos, 5, 32, &u);
        if (!k)
            break;
        out[i] = avk_zigzag_decode32((uint32_t)u);
        pos += k;
    }
    *consumed = pos;
    return i;
}

size_t avki_ref_encode_longs(uint8_t *out, const int64_t *in, size_t n)
{
    size_t pos = 0, i;
    for (i = 0; i < n; i++)
        pos += ref_encode(out + pos, avk_zigzag_encode64(in[i]));
    return pos;
}

size_t avki_ref_encode_ints(uint8_t *out, const int32_t *in, size_t n)
{
    size_t pos = 0, i;
    for (i = 0; i < n; i++)
        pos += ref_encode(out + pos, avk_zigzag_encode32(in[i]));
    return pos;
}
