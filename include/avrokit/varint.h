/* Zigzag LEB128 varints: Avro's int and long, one at a time and in bulk. */
#ifndef AVROKIT_VARINT_H
#define AVROKIT_VARINT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "avrokit/macros.h"
#include "avrokit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The longest encodings the specification allows: 5 bytes for an int,
 * 10 for a long. A buffer of this size always holds one encoded value. */
#define AVK_VARINT_INT_MAX 5
#define AVK_VARINT_LONG_MAX 10

AVK_INLINE uint64_t avk_zigzag_encode64(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

AVK_INLINE int64_t avk_zigzag_decode64(uint64_t u)
{
    return (int64_t)((u >> 1) ^ (0 - (u & 1)));
}

AVK_INLINE uint32_t avk_zigzag_encode32(int32_t v)
{
    return ((uint32_t)v << 1) ^ (uint32_t)(v >> 31);
}

AVK_INLINE int32_t avk_zigzag_decode32(uint32_t u)
{
    return (int32_t)((u >> 1) ^ (0 - (u & 1)));
}

/* Out-of-line halves of the inline decoders below (values of 3 bytes and
 * more), and an encoder of any value (out needs 10 bytes). Callers
 * normally use the inline functions. */
AVK_EXPORT size_t avk_varint_encode_u64_slow(uint8_t *out, uint64_t u);
AVK_EXPORT size_t avk_varint_decode_u64_slow(const uint8_t *in, size_t len, uint64_t *out);
/* Word decoder for a varint of 3 bytes or more; in needs 10 readable bytes. */
AVK_EXPORT size_t avk_varint_decode_u64_long(const uint8_t *in, uint64_t *out);
AVK_EXPORT size_t avk_varint_decode_u32_slow(const uint8_t *in, size_t len, uint32_t *out);

/* Tables of the inline encoder, indexed by the count of leading zero bits of
 * a zigzagged value (64 for 0): its length, and the continuation bits of its
 * first 8 bytes. */
AVK_EXPORT extern const uint8_t avk_varint_len_by_clz[65];
AVK_EXPORT extern const uint64_t avk_varint_cont_by_clz[65];

/* Encodes one long as a zigzag varint into out (avk_varint_encode_u64: an
 * unsigned value, already zigzagged), which must have room for
 * AVK_VARINT_LONG_MAX bytes (up to that many may be written even for a short
 * value). Returns the length of the encoding, 1 to 10. Cannot fail.
 *
 * Values below 2^14 (1 or 2 bytes) take one predictable branch and no
 * branch on which of the two they are, so random short lengths cost no
 * misprediction. Longer ones (3 to 10 bytes) take no branch on their length
 * either: the 7-bit groups of the low 56 bits spread by three
 * shift-and-merge steps into one 8-byte store, bytes 8 and 9 stored
 * whatever the length, length and continuation bits from two small tables.
 * A chain of length tests would mispredict on random lengths (twice as slow
 * on Mixed1-10, measured). */
AVK_INLINE size_t avk_varint_encode_u64(uint8_t *out, uint64_t u)
{
    uint64_t x;
    unsigned z;
    uint16_t hi;
    if (AVK_LIKELY(u < 0x4000)) {
        uint64_t two = u >= 0x80;
        out[0] = (uint8_t)(u | (two << 7));
        out[1] = (uint8_t)(u >> 7);
        return 1 + (size_t)two;
    }
    z = (unsigned)__builtin_clzll(u);
    x = (u & 0x000000000fffffffULL) | ((u & 0x00fffffff0000000ULL) << 4);
    x = (x & 0x00003fff00003fffULL) | ((x & 0x0fffc0000fffc000ULL) << 2);
    x = (x & 0x007f007f007f007fULL) | ((x & 0x3f803f803f803f80ULL) << 1);
    x |= avk_varint_cont_by_clz[z];
    memcpy(out, &x, 8); /* little-endian, as the whole library */
    /* Byte 8: bits 56-63, bit 63 being its flag for a 10th byte; byte 9: 1,
     * bit 63 (both only read as part of the value when the length says so). */
    hi = (uint16_t)((u >> 56) | 0x100);
    memcpy(out + 8, &hi, 2);
    return avk_varint_len_by_clz[z];
}

AVK_INLINE size_t avk_varint_encode_long(uint8_t *out, int64_t v)
{
    return avk_varint_encode_u64(out, avk_zigzag_encode64(v));
}

/* Encodes one int; out must have room for AVK_VARINT_LONG_MAX bytes (the
 * fast path stores whole words). Returns 1 to 5. Cannot fail. */
AVK_INLINE size_t avk_varint_encode_int(uint8_t *out, int32_t v)
{
    return avk_varint_encode_long(out, (int64_t)v);
}

/* Decodes one zigzag long from in[0..len). Returns the number of bytes it
 * used (1 to 10), or 0 when the input is truncated or malformed (longer than
 * 10 bytes, or bits beyond 64): avk_varint_explain() says which and where.
 * Never reads at or past in + len.
 *
 * Lengths 1 to 4 are inline branches on the continuation bits, each
 * returning a constant: when they are predicted (most values the same
 * length, as columns usually are) the next value's position does not wait
 * for this value's bytes, so values decode in parallel. Lengths 5 to 10 go
 * out of line to a branch-free word decoder (avk_varint_decode_u64_long):
 * they chain (~5 ns here) but random lengths 5-10 do not mispredict. */
AVK_INLINE size_t avk_varint_decode_long(const uint8_t *in, size_t len, int64_t *out)
{
    if (AVK_LIKELY(len >= AVK_VARINT_LONG_MAX)) {
        uint64_t b0 = in[0], b1, w, u;
        size_t n;
        if (AVK_LIKELY(b0 < 0x80)) {
            *out = avk_zigzag_decode64(b0);
            return 1;
        }
        b1 = in[1];
        if (AVK_LIKELY(b1 < 0x80)) {
            *out = avk_zigzag_decode64((b0 & 0x7f) | (b1 << 7));
            return 2;
        }
        memcpy(&w, in, 8); /* little-endian, as the whole library */
        if (!(w & 0x800000)) {
            *out = avk_zigzag_decode64((w & 0x7f) | ((w >> 1) & 0x3f80) | ((w >> 2) & 0x1fc000));
            return 3;
        }
        if (!(w & 0x80000000)) {
            *out = avk_zigzag_decode64((w & 0x7f) | ((w >> 1) & 0x3f80) | ((w >> 2) & 0x1fc000) |
                                       ((w >> 3) & 0xfe00000));
            return 4;
        }
        n = avk_varint_decode_u64_long(in, &u);
        *out = avk_zigzag_decode64(u);
        return n;
    } else {
        uint64_t u = 0;
        size_t n = avk_varint_decode_u64_slow(in, len, &u);
        *out = avk_zigzag_decode64(u);
        return n;
    }
}

/* Decodes one zigzag int (at most 5 bytes, no bits beyond 32). Returns the
 * bytes used, or 0 on truncated or malformed input. */
AVK_INLINE size_t avk_varint_decode_int(const uint8_t *in, size_t len, int32_t *out)
{
    if (AVK_LIKELY(len >= AVK_VARINT_LONG_MAX)) {
        uint32_t b0 = in[0], b1, u;
        size_t n;
        if (AVK_LIKELY(b0 < 0x80)) {
            *out = avk_zigzag_decode32(b0);
            return 1;
        }
        b1 = in[1];
        if (AVK_LIKELY(b1 < 0x80)) {
            *out = avk_zigzag_decode32((b0 & 0x7f) | (b1 << 7));
            return 2;
        }
        n = avk_varint_decode_u32_slow(in, len, &u);
        *out = avk_zigzag_decode32(u);
        return n;
    } else {
        uint32_t u = 0;
        size_t n = avk_varint_decode_u32_slow(in, len, &u);
        *out = avk_zigzag_decode32(u);
        return n;
    }
}

/* Says why the varint at in[0..len) does not decode, and fills err (when
 * not NULL) with the status, a message and an offset: base_offset for a
 * truncated or too long varint (its first byte), base_offset plus the last
 * byte's position for bits beyond 32 or 64. is_int selects the int rules.
 * Returns AVK_ERR_TRUNCATED or AVK_ERR_MALFORMED, or AVK_OK when the value
 * is in fact valid. Cold: call it only after a decode returned 0. */
AVK_EXPORT avk_status avk_varint_explain(const uint8_t *in, size_t len, int is_int,
                                         uint64_t base_offset, avk_error *err);

/* Bulk decode: reads n zigzag longs from in[0..len) into out[0..n) with the
 * kernel chosen at start-up. *consumed (required) receives the bytes used by
 * the values decoded. Returns AVK_OK, or AVK_ERR_TRUNCATED / AVK_ERR_MALFORMED
 * with out[0..k) and *consumed covering the k good values before the bad
 * one; err->offset is then, within in, as avk_varint_explain reports it
 * (the bad varint's first byte, or its last for excess bits). Never reads
 * at or past in + len. */
AVK_EXPORT avk_status avk_varint_decode_longs(const uint8_t *in, size_t len, int64_t *out,
                                              size_t n, size_t *consumed, avk_error *err);

/* Bulk decode of ints: as avk_varint_decode_longs, with int rules. */
AVK_EXPORT avk_status avk_varint_decode_ints(const uint8_t *in, size_t len, int32_t *out,
                                             size_t n, size_t *consumed, avk_error *err);

/* Bulk encode: writes in[0..n) as zigzag varints to out, which must have
 * room for n * AVK_VARINT_LONG_MAX bytes (for ints, n * AVK_VARINT_INT_MAX
 * plus AVK_VARINT_LONG_MAX). Returns the bytes written. Cannot fail. */
AVK_EXPORT size_t avk_varint_encode_longs(uint8_t *out, const int64_t *in, size_t n);
AVK_EXPORT size_t avk_varint_encode_ints(uint8_t *out, const int32_t *in, size_t n);

/* Exact encoded size of one value, and of an array. */
AVK_EXPORT size_t avk_varint_size_long(int64_t v);
AVK_EXPORT size_t avk_varint_size_longs(const int64_t *in, size_t n);
AVK_EXPORT size_t avk_varint_size_ints(const int32_t *in, size_t n);

#ifdef __cplusplus
}
#endif
#endif
