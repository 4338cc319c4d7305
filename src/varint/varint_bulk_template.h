/* Bulk varint loops shared by the scalar and BMI2 kernels; each kernel file
 * defines the word operations and the target attribute, then includes this.
 *
 * Required before inclusion:
 *   AVKI_KFN(name)            names a function of this kernel
 *   AVKI_KTARGET              function attributes (may be empty)
 *   AVKI_EXTRACT(w, bits)     value of the varint whose bytes are the set
 *                             bytes of mask bits within word w
 *   AVKI_ENCODE(p, u)         encodes u at p (10 writable bytes), returns len
 * Optional:
 *   AVKI_MULTI_PER_WORD       1 (default): decode every value that ends in an
 *                             8-byte word from that word (fast where
 *                             AVKI_EXTRACT is one instruction); 0: one value
 *                             per step, as the single-value decoder does
 */
#ifndef AVKI_MULTI_PER_WORD
#define AVKI_MULTI_PER_WORD 1
#endif
#include "avrokit/varint.h"
#include "varint/varint_word.h"

/* Decodes every varint that ends inside the 8-byte word at p, without
 * re-loading: the next value's position depends only on bit tricks on the
 * word, not on a load, so values do not wait on each other. Returns the
 * bytes used; the caller guarantees 8 free slots in out. */
AVKI_KTARGET static inline size_t AVKI_KFN(word_longs)(uint64_t w, uint64_t stops, int64_t *out,
                                                         size_t *count)
{
    uint64_t done = 0;
    size_t c = 0;
    do {
        uint64_t through = stops ^ (stops - 1);
        out[c++] = avk_zigzag_decode64(AVKI_EXTRACT(w, through & ~done));
        done = through;
        stops &= stops - 1;
    } while (stops);
    *count = c;
    return (64u - (unsigned)__builtin_clzll(done)) >> 3;
}

AVKI_KTARGET static size_t AVKI_KFN(decode_longs)(const uint8_t *in, size_t len, int64_t *out,
                                                   size_t n, size_t *consumed)
{
    const uint8_t *p = in, *end = in + len;
    size_t i = 0;
    while (n - i >= 8 && (size_t)(end - p) >= 16) {
        uint64_t w = avki_load64(p);
        uint64_t stops = ~w & AVKI_HIGH_BITS;
        if (stops == AVKI_HIGH_BITS) { /* eight 1-byte values */
            size_t k;
            for (k = 0; k < 8; k++)
                out[i + k] = avk_zigzag_decode64((w >> (8 * k)) & 0xff);
            p += 8;
            i += 8;
        } else if (stops != 0) {
#if AVKI_MULTI_PER_WORD
            size_t c;
            p += AVKI_KFN(word_longs)(w, stops, out + i, &c);
            i += c;
#else
            uint64_t u;
            size_t k = avki_decode_u64_step(p, w, &u);
            out[i++] = avk_zigzag_decode64(u);
            p += k;
#endif
        } else {
            uint64_t u;
            size_t k = avki_decode_tail_9_10(p, w, &u);
            if (!k)
                goto done;
            out[i++] = avk_zigzag_decode64(u);
            p += k;
        }
    }
    while (i < n) {
        uint64_t u;
        size_t k = (size_t)(end - p) >= 10 ? avki_decode_u64_word(p, &u)
                                            : avki_decode_careful(p, (size_t)(end - p), 10, &u);
        if (!k)
            break;
        out[i++] = avk_zigzag_decode64(u);
        p += k;
    }
done:
    *consumed = (size_t)(p - in);
    return i;
}

AVKI_KTARGET static size_t AVKI_KFN(decode_ints)(const uint8_t *in, size_t len, int32_t *out,
                                                  size_t n, size_t *consumed)
{
    const uint8_t *p = in, *end = in + len;
    size_t i = 0;
    while (n - i >= 8 && (size_t)(end - p) >= 16) {
        uint64_t w = avki_load64(p);
        uint64_t stops = ~w & AVKI_HIGH_BITS;
        uint64_t done = 0;
        if (stops == AVKI_HIGH_BITS) {
            size_t k;
            for (k = 0; k < 8; k++)
                out[i + k] = avk_zigzag_decode32((uint32_t)(w >> (8 * k)) & 0xff);
            p += 8;
            i += 8;
            continue;
        }
        if (stops == 0)
            goto done; /* 9 or more bytes: malformed for an int */
#if !AVKI_MULTI_PER_WORD
        {
            uint64_t u;
            size_t k = avki_decode_u64_step(p, w, &u);
            if (k > AVK_VARINT_INT_MAX || (u >> 32) != 0)
                goto done;
            out[i++] = avk_zigzag_decode32((uint32_t)u);
            p += k;
            continue;
        }
#endif
        do {
            uint64_t through = stops ^ (stops - 1);
            uint64_t bits = through & ~done;
            uint64_t v = AVKI_EXTRACT(w, bits);
            unsigned lo = (unsigned)__builtin_ctzll(bits);
            unsigned hi = 64u - (unsigned)__builtin_clzll(bits);
            if ((hi - lo) > 8 * AVK_VARINT_INT_MAX || (v >> 32) != 0) {
                p += lo >> 3;
                goto done;
            }
            out[i++] = avk_zigzag_decode32((uint32_t)v);
            done = through;
            stops &= stops - 1;
        } while (stops);
        p += (64u - (unsigned)__builtin_clzll(done)) >> 3;
    }
    while (i < n) {
        uint64_t u;
        size_t k = avki_decode_careful(p, (size_t)(end - p), AVK_VARINT_INT_MAX, &u);
        if (!k)
            break;
        out[i++] = avk_zigzag_decode32((uint32_t)u);
        p += k;
    }
done:
    *consumed = (size_t)(p - in);
    return i;
}

AVKI_KTARGET static size_t AVKI_KFN(encode_longs)(uint8_t *out, const int64_t *in, size_t n)
{
    uint8_t *p = out;
    size_t i = 0;
    while (n - i >= 8) {
        uint64_t u[8], any = 0, packed = 0;
        size_t k;
        for (k = 0; k < 8; k++) {
            u[k] = avk_zigzag_encode64(in[i + k]);
            any |= u[k];
            packed |= u[k] << (8 * k);
        }
        if (any < 0x80) { /* eight 1-byte values in one store */
            avki_store64(p, packed);
            p += 8;
        } else {
            for (k = 0; k < 8; k++)
                p += AVKI_ENCODE(p, u[k]);
        }
        i += 8;
    }
    for (; i < n; i++)
        p += AVKI_ENCODE(p, avk_zigzag_encode64(in[i]));
    return (size_t)(p - out);
}

AVKI_KTARGET static size_t AVKI_KFN(encode_ints)(uint8_t *out, const int32_t *in, size_t n)
{
    uint8_t *p = out;
    size_t i = 0;
    while (n - i >= 8) {
        uint64_t u[8], any = 0, packed = 0;
        size_t k;
        for (k = 0; k < 8; k++) {
            u[k] = avk_zigzag_encode32(in[i + k]);
            any |= u[k];
            packed |= u[k] << (8 * k);
        }
        if (any < 0x80) {
            avki_store64(p, packed);
            p += 8;
        } else {
            for (k = 0; k < 8; k++)
                p += AVKI_ENCODE(p, u[k]);
        }
        i += 8;
    }
    for (; i < n; i++)
        p += AVKI_ENCODE(p, avk_zigzag_encode32(in[i]));
    return (size_t)(p - out);
}
