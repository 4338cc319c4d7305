/* Word-at-a-time varint helpers shared by the single-value codec and the scalar kernels. */
#ifndef AVK_VARINT_WORD_H
#define AVK_VARINT_WORD_H

#include <stdint.h>
#include <string.h>

#include "avrokit/macros.h"
#include "avrokit/varint.h"

/* A varint byte: bit 7 says another byte follows (continuation), bits 0-6
 * carry 7 bits of the value, least significant group first. Loaded as a
 * little-endian word, byte k is bits 8k..8k+7, so the continuation bits of
 * 8 bytes are word & AVKI_HIGH_BITS and the stop bits (bytes that end a
 * value) ~word & AVKI_HIGH_BITS: one AND finds every value end in 8 bytes. */
#define AVKI_HIGH_BITS 0x8080808080808080ULL
#define AVKI_LOW7_BITS 0x7f7f7f7f7f7f7f7fULL

static inline uint64_t avki_load64(const uint8_t *p)
{
    uint64_t w;
    memcpy(&w, p, 8); /* the library targets little-endian machines */
    return w;
}

static inline void avki_store64(uint8_t *p, uint64_t w)
{
    memcpy(p, &w, 8);
}

static inline void avki_store32(uint8_t *p, uint32_t w)
{
    memcpy(p, &w, 4);
}

/* Packs the low 7 bits of each of 8 bytes into a 56-bit value (the bytes'
 * high bits must already be clear). Three shift-and-merge steps: 8x7 ->
 * 4x14 -> 2x28 -> 56. */
static inline uint64_t avki_compact56(uint64_t x)
{
    x = (x & 0x007f007f007f007fULL) | ((x & 0x7f007f007f007f00ULL) >> 1);
    x = (x & 0x00003fff00003fffULL) | ((x & 0x3fff00003fff0000ULL) >> 2);
    x = (x & 0x000000000fffffffULL) | ((x & 0x0fffffff00000000ULL) >> 4);
    return x;
}

/* avki_compact56 for at most 4 bytes (x < 2^32): two steps. */
static inline uint64_t avki_compact28(uint64_t x)
{
    x = (x & 0x007f007fULL) | ((x & 0x7f007f00ULL) >> 1);
    return (x & 0x3fffULL) | ((x & 0x3fff0000ULL) >> 2);
}

/* Inverse of avki_compact56: spreads a value below 2^56 into 8 groups of
 * 7 bits, one per byte. */
static inline uint64_t avki_spread56(uint64_t x)
{
    x = (x & 0x000000000fffffffULL) | ((x & 0x00fffffff0000000ULL) << 4);
    x = (x & 0x00003fff00003fffULL) | ((x & 0x0fffc0000fffc000ULL) << 2);
    x = (x & 0x007f007f007f007fULL) | ((x & 0x3f803f803f803f80ULL) << 1);
    return x;
}

/* Two values below 2^28 spread as avki_spread56 spreads one: u0's 7-bit
 * groups into bytes 0-3, u1's into bytes 4-7. The last two of its steps,
 * which work within each 32-bit half. */
static inline uint64_t avki_spread_pair28(uint64_t u0, uint64_t u1)
{
    uint64_t x = u0 | (u1 << 32);
    x = (x & 0x00003fff00003fffULL) | ((x & 0x0fffc0000fffc000ULL) << 2);
    x = (x & 0x007f007f007f007fULL) | ((x & 0x3f803f803f803f80ULL) << 1);
    return x;
}

/* Encoded length of u, 1 to 10: ceil(bits / 7) with at least one bit.
 * (bits * 9 + 64) >> 6 equals ceil(bits / 7) for bits 1..64 (9/64 is just
 * above 1/7), a multiply and a shift instead of a division. */
static inline unsigned avki_varint_len(uint64_t u)
{
    unsigned bits = 64u - (unsigned)__builtin_clzll(u | 1);
    return (bits * 9u + 64u) >> 6;
}

/* Decodes a varint of 9 or 10 bytes whose first 8 bytes (word w) all have
 * continuation bits. Returns 9, 10, or 0 when too long or over 64 bits. */
static inline size_t avki_decode_tail_9_10(const uint8_t *p, uint64_t w, uint64_t *out)
{
    uint64_t x = avki_compact56(w & AVKI_LOW7_BITS);
    uint64_t b8 = p[8], b9;
    if (b8 < 0x80) {
        *out = x | (b8 << 56);
        return 9;
    }
    b9 = p[9];
    if (b9 > 1) /* a continuation bit, or bits beyond the 64th */
        return 0;
    *out = x | ((b8 & 0x7f) << 56) | (b9 << 63);
    return 10;
}

/* Decodes one varint from p, which must have 10 readable bytes. Returns
 * its length, or 0 when malformed. Branch-free for 1 to 10 bytes (9 and 10
 * are chosen with conditional moves), so random lengths cost no
 * misprediction; only malformed input takes a branch. */
static inline size_t avki_decode_u64_word(const uint8_t *p, uint64_t *out)
{
    /* Everything is computed for both cases (a stop in the first 8 bytes,
     * or a 9- or 10-byte value) and the result picked at the end with
     * selects: bytes 8 and 9 are loaded whatever the length, which is why
     * 10 readable bytes are required. through keeps the value's bytes
     * (every bit up to its stop bit); the 9th and 10th bytes add bits
     * 56-62 and 63. */
    uint64_t w = avki_load64(p);
    uint64_t stops = ~w & AVKI_HIGH_BITS;
    uint64_t through = stops ^ (stops - 1); /* all ones when no stop in 8 bytes */
    uint64_t b8 = p[8], b9 = p[9], c8 = b8 >> 7;
    uint64_t tail = ((b8 & 0x7f) << 56) | ((b9 << 63) & (0 - c8));
    size_t len = stops ? ((size_t)__builtin_ctzll(stops) >> 3) + 1 : 9 + (size_t)c8;
    /* Over 10 bytes, or a 10th byte with more than bit 63. */
    if (AVK_UNLIKELY(stops == 0 && c8 && b9 > 1))
        return 0;
    *out = avki_compact56(w & through & AVKI_LOW7_BITS) | (stops ? 0 : tail);
    return len;
}

/* Byte-by-byte decode for the last bytes of an input. Returns the length,
 * or 0 when truncated, longer than max_len, or over max_bits. max_len is
 * 10 for longs (the 10th byte may hold only bit 63: b >> 1 must be 0) or
 * 5 for ints (the 5th byte holds bits 28-31: b >> 4 must be 0). */
static inline size_t avki_decode_careful(const uint8_t *p, size_t len, unsigned max_len,
                                         uint64_t *out)
{
    uint64_t v = 0;
    size_t i;
    for (i = 0; i < len && i < max_len; i++) {
        uint64_t b = p[i];
        v |= (b & 0x7f) << (7 * i);
        if (b < 0x80) {
            /* The last byte may not carry bits beyond the type's width. */
            if (i == max_len - 1 && (b >> (max_len == 10 ? 1 : 4)) != 0)
                return 0;
            *out = v;
            return i + 1;
        }
    }
    return 0;
}

/* Encodes any u with no branch on its length, 1 byte included: 8 spread
 * bytes, then bytes 8 and 9 stored whatever the length (a shorter value's
 * next bytes are written over, or lie past the encoding); length and
 * continuation bits from the inline encoder's tables. out needs 10 writable
 * bytes. spread56 is the 7-bit spread of a value below 2^56 (shifts, or
 * PDEP). */
#define AVKI_ENCODE_BRANCHFREE(out, u, spread56)                                          \
    do {                                                                                  \
        unsigned z_ = (unsigned)__builtin_clzll((u) | 1);                                 \
        avki_store64((out), (spread56) | avk_varint_cont_by_clz[z_]);                     \
        (out)[8] = (uint8_t)((u) >> 56); /* bit 7 is bit 63: the 10th byte's flag */     \
        (out)[9] = 1;                                                                     \
        (out) += avk_varint_len_by_clz[z_];                                               \
    } while (0)

/* Encodes any u with no branch at all (AVKI_ENCODE_BRANCHFREE with the
 * shift spread); out needs 10 writable bytes. Returns the length. For
 * encoders that mix lengths at one call site (the fields of a record). */
static inline size_t avki_encode_u64_word(uint8_t *out, uint64_t u)
{
    uint8_t *p = out;
    AVKI_ENCODE_BRANCHFREE(p, u, avki_spread56(u & ((1ULL << 56) - 1)));
    return (size_t)(p - out);
}

/* The low len bytes of a word set (len 0 to 8). */
static inline uint64_t avki_len_bytes(unsigned len)
{
    return len >= 8 ? ~0ULL : (1ULL << (8 * len)) - 1;
}

/* Decodes one varint from w, the 8 bytes at p (which has 10 readable
 * bytes), with the single-value rule: 1- and 2-byte values by predictable
 * branches, longer ones by the word decoder. Returns the length, 0 when
 * malformed. The short lengths are tested first because they are the
 * common ones (small ints, lengths, counts, indexes); when lengths are
 * random the branches mispredict, and the caller should use the word
 * decoder alone. */
static inline size_t avki_decode_u64_step(const uint8_t *p, uint64_t w, uint64_t *out)
{
    if (!(w & 0x80)) {
        *out = w & 0x7f;
        return 1;
    }
    if (!(w & 0x8000)) {
        *out = (w & 0x7f) | ((w >> 1) & 0x3f80);
        return 2;
    }
    return avki_decode_u64_word(p, out);
}

#endif
