/* AVX-512 (VBMI2) bulk varint kernel: 64 input bytes per load, 8 values per gather. */
#include <immintrin.h>
#include <string.h>

#include "avrokit/varint.h"
#include "varint/kernels.h"
#include "varint/varint_word.h"

#define AVKI_KTARGET                                                                 \
    __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,avx512cd," \
                          "bmi,bmi2,lzcnt,popcnt")))

/*
 * Decoding plans a 64-byte chunk at a time. One load gives 64 continuation
 * bits (vpmovb2m); their complement, the stop bits, says where every value
 * in the chunk ends. vpcompressb turns the stop bits into two byte lists,
 * where each value starts and ends (plan_chunk); from those, groups of 8
 * values are gathered into 64-bit lanes with vpermb and packed. The groups
 * of a chunk do not depend on each other, and the next chunk's position
 * depends only on the stop bits (PDEP finds the last planned stop), so
 * the loads of the next chunk start while this one decodes: the serial
 * part is one step per chunk, not one per value.
 * A value that starts in the chunk but ends after it is not planned: the
 * next chunk starts at it. A value too long for the type (over 10 bytes,
 * over 5 for ints) or with bits beyond the type is left to the word or
 * careful decoder, which reports it; that path also runs when a chunk
 * plans nothing.
 */

/* Lookup vectors for the gathers: a byte's index in the chunk, its place
 * in its 8-byte (or 16-byte) lane, and its lane. */
static const uint8_t byte_index[64] __attribute__((aligned(64))) = {
    0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
    22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43,
    44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63};
/* Byte k of lane j holds k (position in the lane) and j (the lane). */
static const uint8_t pos_in_lane[64] __attribute__((aligned(64))) = {
    0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7,
    0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7};
static const uint8_t pos_in_lane16[64] __attribute__((aligned(64))) = {
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
static const uint8_t lane_of_byte[64] __attribute__((aligned(64))) = {
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3,
    4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 7, 7, 7};

/* Packs the 7-bit groups of each 64-bit lane (high bits already clear):
 * bytes -> 14-bit words (vpmaddubsw: the constant is the unsigned operand,
 * so the multiplier 128 fits), -> 28-bit dwords (vpmaddwd), -> 56 bits. */
AVKI_KTARGET static inline __m512i compact_lanes(__m512i x)
{
    const __m512i mul7 = _mm512_set1_epi16((short)0x8001);
    const __m512i mul14 = _mm512_set1_epi32(0x40000001);
    x = _mm512_maddubs_epi16(mul7, x);
    x = _mm512_madd_epi16(x, mul14);
    /* Dwords hold 28 bits each: keep the low one, move the high one down 4
     * (a bitwise select: high bits from x >> 4, low 28 from x). */
    return _mm512_ternarylogic_epi64(_mm512_set1_epi64((long long)0xfffffffff0000000ULL),
                                     _mm512_srli_epi64(x, 4), x, 0xca);
}

AVKI_KTARGET static inline __m512i zigzag_decode_lanes(__m512i x)
{
    __m512i sign = _mm512_sub_epi64(_mm512_setzero_si512(),
                                    _mm512_and_si512(x, _mm512_set1_epi64(1)));
    return _mm512_xor_si512(_mm512_srli_epi64(x, 1), sign);
}

/* Where the varints of one 64-byte chunk start and end. Computed once per
 * chunk, so the groups of 8 values decoded from it do not wait on each
 * other: only the chunk-to-chunk step is serial. */
typedef struct chunk_plan {
    __m512i starts; /* byte t: chunk index of value t's first byte */
    __m512i ends;   /* byte t: chunk index of value t's last byte */
    unsigned count; /* values to decode from this chunk */
    int over8;      /* some planned value is longer than 8 bytes */
} chunk_plan;

/* Plans up to want values ending in the chunk whose terminator bytes are
 * stops, stopping before the first value longer than max_len bytes. */
AVKI_KTARGET static inline void plan_chunk(chunk_plan *c, uint64_t stops, unsigned max_len,
                                           size_t want)
{
    const __m512i index = _mm512_load_si512(byte_index);
    unsigned count = (unsigned)__builtin_popcountll(stops);
    uint64_t too_long, planned;
    __m512i lens_m1;
    /* ends: the index of each stop byte, in order. starts: byte 0, then
     * the byte after each stop ((stops << 1) | 1; the stop at byte 63
     * shifts out, as its successor starts in the next chunk). Bytes past
     * count are zero (maskz), so lens_m1 there is junk: every test on it
     * is masked to the first count values. */
    c->ends = _mm512_maskz_compress_epi8(stops, index);
    c->starts = _mm512_maskz_compress_epi8((stops << 1) | 1, index);
    lens_m1 = _mm512_sub_epi8(c->ends, c->starts);
    too_long = _mm512_cmpgt_epu8_mask(lens_m1, _mm512_set1_epi8((char)(max_len - 1)));
    too_long &= count >= 64 ? ~0ULL : (1ULL << count) - 1;
    /* Plan only the values before the first too long one: the careful
     * path meets it, in order, and reports it at its first byte. */
    if (too_long)
        count = (unsigned)__builtin_ctzll(too_long);
    c->count = want < count ? (unsigned)want : count;
    /* over8: some value needs its 9th and 10th bytes gathered too, a
     * second permute per group that chunks of short values skip. */
    planned = c->count >= 64 ? ~0ULL : (1ULL << c->count) - 1;
    c->over8 = (_mm512_cmpgt_epu8_mask(lens_m1, _mm512_set1_epi8(7)) & planned) != 0;
}

/* Chunk index one past the last planned value: PDEP deposits a single bit
 * onto the count-th set bit of stops, whose index TZCNT gives. */
AVKI_KTARGET static inline unsigned plan_end(uint64_t stops, unsigned count)
{
    return (unsigned)__builtin_ctzll(_pdep_u64(1ULL << (count - 1), stops)) + 1;
}

/* Gathers the first 8 bytes of values 8g..8g+7 into 64-bit lanes (zero
 * past each value's end); *hi_out receives bytes 9 and 10 when wanted.
 * sel sends entry 8g + j of the plan to every byte of lane j; idx is then
 * start + k for byte k of the lane, kept while it is at most the value's
 * end. Lanes past the planned values gather junk: callers store and test
 * only the planned lanes. hi takes idx + 8 in bytes 0 and 1 of each lane
 * (mask 0x0303...), the value's 9th and 10th bytes when it has them. */
AVKI_KTARGET static inline __m512i gather_group(const chunk_plan *c, __m512i chunk, unsigned g,
                                                __m512i *hi_out)
{
    __m512i sel = _mm512_add_epi8(_mm512_load_si512(lane_of_byte), _mm512_set1_epi8((char)(8 * g)));
    __m512i end_b = _mm512_permutexvar_epi8(sel, c->ends);
    __m512i idx = _mm512_add_epi8(_mm512_permutexvar_epi8(sel, c->starts),
                                  _mm512_load_si512(pos_in_lane));
    __m512i lo = _mm512_maskz_permutexvar_epi8(_mm512_cmple_epu8_mask(idx, end_b), idx, chunk);
    if (hi_out) {
        __m512i idx2 = _mm512_add_epi8(idx, _mm512_set1_epi8(8));
        __mmask64 m2 = _mm512_cmple_epu8_mask(idx2, end_b) & 0x0303030303030303ULL;
        *hi_out = _mm512_maskz_permutexvar_epi8(m2, idx2, chunk);
    }
    return lo;
}

AVKI_KTARGET static size_t avx512_decode_longs(const uint8_t *in, size_t len, int64_t *out,
                                               size_t n, size_t *consumed)
{
    const uint8_t *p = in, *end = in + len;
    const __m512i low7 = _mm512_set1_epi8(0x7f);
    size_t i = 0;
    /* A chunk reads 64 bytes at p and nothing past them: every value it
     * plans ends in them, and the word decoder's 10 bytes below start at
     * p. Output is limited by want = n - i, so no guard on out is needed
     * beyond the ones shortcut's 64. */
    while (i < n && (size_t)(end - p) >= 64) {
        __m512i chunk = _mm512_loadu_si512(p);
        uint64_t stops = ~(uint64_t)_mm512_movepi8_mask(chunk);
        chunk_plan c;
        unsigned g, done = 0, guess;
        const uint8_t *next;
        /* Tested first: small values are the common case and this one
         * needs no plan at all. */
        if (stops == ~0ULL && n - i >= 64) { /* 64 one-byte values */
            unsigned q;
            for (q = 0; q < 8; q++) {
                __m512i v = _mm512_cvtepu8_epi64(_mm_loadl_epi64((const __m128i *)(p + 8 * q)));
                _mm512_storeu_si512(out + i + 8 * q, zigzag_decode_lanes(v));
            }
            p += 64;
            i += 64;
            continue;
        }
        /* The next chunk's position, assuming every value ends well: the
         * only serial step, so it depends on the stop bits alone and the
         * loads of the next chunk can start while this one decodes. */
        guess = (unsigned)__builtin_popcountll(stops);
        if (guess > n - i)
            guess = (unsigned)(n - i);
        next = guess ? p + plan_end(stops, guess) : p;
        plan_chunk(&c, stops, AVK_VARINT_LONG_MAX, n - i);
        for (g = 0; 8 * g < c.count; g++) {
            unsigned k = c.count - 8 * g < 8 ? c.count - 8 * g : 8;
            __mmask8 lanes = (__mmask8)((1u << k) - 1);
            __m512i hi, x;
            if (!c.over8) {
                x = compact_lanes(_mm512_and_si512(gather_group(&c, chunk, g, NULL), low7));
            } else {
                /* Bytes 9 and 10 add bits 56-62 and 63: packed into 14 bits
                 * (vpmaddubsw) and shifted up 56; what lands above bit 63
                 * is the bits a long may not have, refused first. */
                x = gather_group(&c, chunk, g, &hi);
                /* A 10th byte may hold only bit 63. */
                if (AVK_UNLIKELY(_mm512_mask_test_epi64_mask(lanes, hi, _mm512_set1_epi64(0xfe00)) != 0))
                    break;
                x = compact_lanes(_mm512_and_si512(x, low7));
                hi = _mm512_maddubs_epi16(_mm512_set1_epi16((short)0x8001), _mm512_and_si512(hi, low7));
                x = _mm512_or_si512(x, _mm512_slli_epi64(hi, 56));
            }
            _mm512_mask_storeu_epi64(out + i + done, lanes, zigzag_decode_lanes(x));
            done += k;
        }
        /* A group that failed its check is not counted: the next chunk
         * starts at its first value, and if that value is the bad one the
         * plan comes back empty and the word decoder below reports it. */
        if (done == 0) { /* a long or bad value first: one value the careful way */
            uint64_t u;
            size_t k2 = avki_decode_u64_word(p, &u);
            if (!k2)
                goto finish;
            out[i++] = avk_zigzag_decode64(u);
            p += k2;
        } else {
            p = AVK_LIKELY(done == guess) ? next : p + plan_end(stops, done);
            i += done;
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
finish:
    *consumed = (size_t)(p - in);
    return i;
}

AVKI_KTARGET static size_t avx512_decode_ints(const uint8_t *in, size_t len, int32_t *out,
                                              size_t n, size_t *consumed)
{
    const uint8_t *p = in, *end = in + len;
    const __m512i low7 = _mm512_set1_epi8(0x7f);
    size_t i = 0;
    while (i < n && (size_t)(end - p) >= 64) {
        __m512i chunk = _mm512_loadu_si512(p);
        uint64_t stops = ~(uint64_t)_mm512_movepi8_mask(chunk);
        chunk_plan c;
        unsigned g, done = 0, guess;
        const uint8_t *next;
        if (stops == ~0ULL && n - i >= 64) {
            unsigned q;
            for (q = 0; q < 4; q++) {
                __m512i v = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(p + 16 * q)));
                __m512i sign = _mm512_sub_epi32(_mm512_setzero_si512(),
                                                _mm512_and_si512(v, _mm512_set1_epi32(1)));
                _mm512_storeu_si512(out + i + 16 * q,
                                    _mm512_xor_si512(_mm512_srli_epi32(v, 1), sign));
            }
            p += 64;
            i += 64;
            continue;
        }
        /* The next chunk's position, assuming every value ends well: the
         * only serial step, so it depends on the stop bits alone and the
         * loads of the next chunk can start while this one decodes. */
        guess = (unsigned)__builtin_popcountll(stops);
        if (guess > n - i)
            guess = (unsigned)(n - i);
        next = guess ? p + plan_end(stops, guess) : p;
        plan_chunk(&c, stops, AVK_VARINT_INT_MAX, n - i);
        for (g = 0; 8 * g < c.count; g++) {
            unsigned k = c.count - 8 * g < 8 ? c.count - 8 * g : 8;
            __mmask8 lanes = (__mmask8)((1u << k) - 1);
            __m512i x = compact_lanes(_mm512_and_si512(gather_group(&c, chunk, g, NULL), low7));
            if (AVK_UNLIKELY(_mm512_mask_test_epi64_mask(
                                 lanes, x, _mm512_set1_epi64((long long)0xffffffff00000000ULL)) != 0))
                break; /* bits beyond 32 */
            _mm256_mask_storeu_epi32(out + i + done, lanes,
                                     _mm512_cvtepi64_epi32(zigzag_decode_lanes(x)));
            done += k;
        }
        /* With the int rules: at most 5 bytes, no bits beyond 32 (the word
         * decoder would take a 6-10 byte value that an int may not have). */
        if (done == 0) {
            uint64_t u;
            size_t k2 = avki_decode_careful(p, (size_t)(end - p), AVK_VARINT_INT_MAX, &u);
            if (!k2)
                goto finish;
            out[i++] = avk_zigzag_decode32((uint32_t)u);
            p += k2;
        } else {
            p = AVK_LIKELY(done == guess) ? next : p + plan_end(stops, done);
            i += done;
        }
    }
    while (i < n) {
        uint64_t u;
        size_t k = avki_decode_careful(p, (size_t)(end - p), AVK_VARINT_INT_MAX, &u);
        if (!k)
            break;
        out[i++] = avk_zigzag_decode32((uint32_t)u);
        p += k;
    }
finish:
    *consumed = (size_t)(p - in);
    return i;
}

/* Spreads each lane's value below 2^56 into 8 bytes of 7 bits (no
 * continuation bits yet): the inverse of compact_lanes. */
AVKI_KTARGET static inline __m512i spread_lanes(__m512i x)
{
    x = _mm512_ternarylogic_epi64(_mm512_and_si512(x, _mm512_set1_epi64(0x000000000fffffffLL)),
                                  _mm512_slli_epi64(x, 4), _mm512_set1_epi64(0x0fffffff00000000LL),
                                  0xf8);
    x = _mm512_ternarylogic_epi64(_mm512_and_si512(x, _mm512_set1_epi64(0x00003fff00003fffLL)),
                                  _mm512_slli_epi64(x, 2), _mm512_set1_epi64(0x3fff00003fff0000LL),
                                  0xf8);
    return _mm512_ternarylogic_epi64(_mm512_and_si512(x, _mm512_set1_epi64(0x007f007f007f007fLL)),
                                     _mm512_slli_epi64(x, 1), _mm512_set1_epi64(0x7f007f007f007f00LL),
                                     0xf8);
}

/* Encoded length of each lane's value: ceil(bits / 7), at least 1. */
AVKI_KTARGET static inline __m512i lane_lengths(__m512i u)
{
    __m512i bits = _mm512_sub_epi64(_mm512_set1_epi64(64),
                                    _mm512_lzcnt_epi64(_mm512_or_si512(u, _mm512_set1_epi64(1))));
    return _mm512_srli_epi64(
        _mm512_add_epi64(_mm512_add_epi64(_mm512_slli_epi64(bits, 3), bits), _mm512_set1_epi64(64)), 6);
}

/* Writes the kept bytes of x packed at out, with continuation bits on every
 * kept byte but the last of its lane (lanes of lane_bits bytes). Returns the
 * bytes written; out needs 64 writable bytes. A byte continues when the
 * next byte is kept too (keep >> 1) and is in the same lane (lane_tops has
 * the top byte of each lane). vpcompressb then packs the kept bytes of all
 * lanes together, so the lanes' values land one after the other. */
AVKI_KTARGET static inline size_t emit_lanes(uint8_t *out, __m512i x, __mmask64 keep,
                                             uint64_t lane_tops)
{
    __mmask64 cont = keep & (keep >> 1) & ~lane_tops;
    x = _mm512_mask_add_epi8(x, cont, x, _mm512_set1_epi8((char)0x80));
    _mm512_storeu_si512(out, _mm512_maskz_compress_epi8(keep, x));
    return (size_t)__builtin_popcountll(keep);
}

/* Encodes 8 zigzagged values, each below 2^56, from 8-byte lanes. out needs
 * 64 writable bytes. Each lane's length byte is broadcast to the lane's 8
 * bytes (vpshufb with byte 0 or 8 of each 128-bit lane), and a byte is kept
 * while its place in the lane is below the length. */
AVKI_KTARGET static inline size_t encode8_short(uint8_t *out, __m512i u)
{
    const __m512i byte0 = _mm512_set_epi64(0x0808080808080808LL, 0, 0x0808080808080808LL, 0,
                                           0x0808080808080808LL, 0, 0x0808080808080808LL, 0);
    __m512i lenb = _mm512_shuffle_epi8(lane_lengths(u), byte0);
    __mmask64 keep = _mm512_cmplt_epu8_mask(_mm512_load_si512(pos_in_lane), lenb);
    return emit_lanes(out, spread_lanes(u), keep, 0x8080808080808080ULL);
}

/* Encodes 8 zigzagged values of any size through 16-byte lanes, 4 values
 * per store. out needs 104 writable bytes. A value of 9 or 10 bytes does
 * not fit an 8-byte lane, so each value gets 16: its 8 spread bytes (bits
 * 0-55) and a tail qword with bits 56-62 in byte 8 and bit 63 in byte 9.
 * a holds values 0-3 (lo, hi interleaved by qword), b values 4-7. Each
 * half is one 64-byte store holding at most 40 bytes that count; the
 * second starts where the first's end, hence 64 + 40 = 104. */
AVKI_KTARGET static inline size_t encode8_any(uint8_t *out, __m512i u)
{
    const uint64_t tops = 0x8000800080008000ULL;
    __m512i lens = lane_lengths(u);
    __m512i lo = spread_lanes(_mm512_and_si512(u, _mm512_set1_epi64((long long)((1ULL << 56) - 1))));
    __m512i hi = _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi64(u, 56), _mm512_set1_epi64(0x7f)),
                                 _mm512_slli_epi64(_mm512_srli_epi64(u, 63), 8));
    __m512i index16 = _mm512_load_si512(pos_in_lane16);
    __m512i a = _mm512_permutex2var_epi64(lo, _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0), hi);
    __m512i b = _mm512_permutex2var_epi64(lo, _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4), hi);
    __m512i la = _mm512_permutexvar_epi64(_mm512_set_epi64(3, 3, 2, 2, 1, 1, 0, 0), lens);
    __m512i lb = _mm512_permutexvar_epi64(_mm512_set_epi64(7, 7, 6, 6, 5, 5, 4, 4), lens);
    size_t w;
    la = _mm512_shuffle_epi8(la, _mm512_setzero_si512());
    lb = _mm512_shuffle_epi8(lb, _mm512_setzero_si512());
    w = emit_lanes(out, a, _mm512_cmplt_epu8_mask(index16, la), tops);
    return w + emit_lanes(out + w, b, _mm512_cmplt_epu8_mask(index16, lb), tops);
}

/* One value with no branch at all: runs shorter than a vector group (a
 * record's few long fields) have random lengths, and a test on the length
 * would mispredict. Always stores 10 bytes (the caller's room is 10 a value):
 * the first 8 through PDEP, then bytes 8 and 9, which matter only for
 * values of 9 or 10 bytes. */
AVKI_KTARGET static inline size_t encode_one(uint8_t *p, uint64_t u)
{
    unsigned len = ((64u - (unsigned)_lzcnt_u64(u | 1)) * 9u + 64u) >> 6;
    uint64_t hi = u >> 56;
    uint16_t tail = (uint16_t)((hi & 0x7f) | ((uint64_t)(hi >= 0x80) << 7) | ((hi >> 7) << 8));
    /* bzhi keeps every bit when the index is 64 or more (len 9 and 10). */
    avki_store64(p, _pdep_u64(u, AVKI_LOW7_BITS) | _bzhi_u64(AVKI_HIGH_BITS, 8 * len - 8));
    memcpy(p + 8, &tail, 2);
    return len;
}

AVKI_KTARGET static size_t avx512_encode_longs(uint8_t *out, const int64_t *in, size_t n)
{
    uint8_t *p = out;
    size_t i = 0;
    /* Values below 2^56 (8 bytes or fewer: timestamps, ids, counts) take
     * the 8-byte lanes; a group with a larger one takes 16-byte lanes. */
    const __m512i limit = _mm512_set1_epi64((long long)((1ULL << 56) - 1));
    /* Room: out holds 10 bytes per value, so 16 values left leave 160 >= 104. */
    for (; n - i >= 16; i += 8) {
        __m512i v = _mm512_loadu_si512(in + i);
        __m512i u = _mm512_xor_si512(_mm512_slli_epi64(v, 1), _mm512_srai_epi64(v, 63));
        if (AVK_LIKELY(_mm512_cmpgt_epu64_mask(u, limit) == 0))
            p += encode8_short(p, u);
        else
            p += encode8_any(p, u);
    }
    for (; i < n; i++)
        p += encode_one(p, avk_zigzag_encode64(in[i]));
    return (size_t)(p - out);
}

AVKI_KTARGET static size_t avx512_encode_ints(uint8_t *out, const int32_t *in, size_t n)
{
    uint8_t *p = out;
    size_t i = 0;
    /* Room: 5 bytes per value plus 10, so 16 values left guarantee 64.
     * Zigzagged ints are below 2^32: always the 8-byte lanes. */
    for (; n - i >= 16; i += 8) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(in + i));
        __m256i u = _mm256_xor_si256(_mm256_slli_epi32(v, 1), _mm256_srai_epi32(v, 31));
        p += encode8_short(p, _mm512_cvtepu32_epi64(u));
    }
    for (; i < n; i++)
        p += encode_one(p, avk_zigzag_encode32(in[i]));
    return (size_t)(p - out);
}

static int avx512_runnable(const avki_cpu *cpu)
{
    /* The scalar steps between vector groups use PDEP: require it fast. */
    return cpu->avx512 && cpu->fast_pdep;
}

const avki_kernels avki_kernels_avx512 = {
    "avx512", avx512_runnable, avx512_decode_longs, avx512_decode_ints,
    avx512_encode_longs, avx512_encode_ints,
};
