/* AVX-512 (VBMI2) bulk varint kernel: 64 input bytes per load, 8 values per gather. */
#include <immintrin.h>

#include "avrokit/varint.h"
#include "varint/kernels.h"
#include "varint/varint_word.h"

#define AVKI_KTARGET                                                                 \
    __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,avx512cd," \
                          "bmi,bmi2,lzcnt,popcnt")))

static const uint8_t byte_index[64] __attribute__((aligned(64))) = {
    0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
    22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43,
    44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63};
/* Byte k of lane j holds k (position in the lane) and j (the lane). */
static const uint8_t pos_in_lane[64] __attribute__((aligned(64))) = {
    0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7,
    0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7};
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
    return _mm512_or_si512(_mm512_and_si512(x, _mm512_set1_epi64(0xffffffffLL)),
                           _mm512_slli_epi64(_mm512_srli_epi64(x, 32), 28));
}

AVKI_KTARGET static inline __m512i zigzag_decode_lanes(__m512i x)
{
    __m512i sign = _mm512_sub_epi64(_mm512_setzero_si512(),
                                    _mm512_and_si512(x, _mm512_set1_epi64(1)));
    return _mm512_xor_si512(_mm512_srli_epi64(x, 1), sign);
}

/* Layout of one group of up to 8 varints inside a 64-byte chunk. */
typedef struct group {
    __m512i lo_idx;   /* chunk index of byte k of value j, in lane j */
    __m512i end_b;    /* index of value j's last byte, in every byte of lane j */
    __mmask64 lo_mask;
    uint64_t lens_m1; /* byte j: length of value j minus 1 */
    unsigned next;    /* chunk index after the last value of the group */
} group;

/* ends: byte j = chunk index of the j-th terminator from base; k values. */
AVKI_KTARGET static inline void group_layout(group *g, uint64_t ends, unsigned base, unsigned k)
{
    const __m512i lanes = _mm512_load_si512(lane_of_byte);
    uint64_t starts = ((ends << 8) | base) + 0x0101010101010100ULL;
    g->lens_m1 = ends - starts;
    g->end_b = _mm512_permutexvar_epi8(lanes, _mm512_set1_epi64((long long)ends));
    g->lo_idx = _mm512_add_epi8(_mm512_permutexvar_epi8(lanes, _mm512_set1_epi64((long long)starts)),
                                _mm512_load_si512(pos_in_lane));
    g->lo_mask = _mm512_cmple_epu8_mask(g->lo_idx, g->end_b);
    g->next = (unsigned)((ends >> (8 * (k - 1))) & 0xff) + 1;
}

AVKI_KTARGET static inline uint64_t group_ends(uint64_t stops)
{
    __m512i e = _mm512_maskz_compress_epi8(stops, _mm512_load_si512(byte_index));
    return (uint64_t)_mm_cvtsi128_si64(_mm512_castsi512_si128(e));
}

/* Bytes j < k of a word set to 0xff. */
static inline uint64_t first_bytes(unsigned k)
{
    return k >= 8 ? ~0ULL : (1ULL << (8 * k)) - 1;
}

AVKI_KTARGET static size_t avx512_decode_longs(const uint8_t *in, size_t len, int64_t *out,
                                               size_t n, size_t *consumed)
{
    const uint8_t *p = in, *end = in + len;
    const __m512i low7 = _mm512_set1_epi8(0x7f);
    size_t i = 0;
    while (i < n && (size_t)(end - p) >= 64) {
        __m512i chunk = _mm512_loadu_si512(p);
        uint64_t stops = ~(uint64_t)_mm512_movepi8_mask(chunk);
        unsigned base = 0;
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
        while (stops != 0 && i < n) {
            unsigned avail = (unsigned)__builtin_popcountll(stops);
            unsigned k = avail < 8 ? avail : 8;
            group g;
            __m512i lo, hi, x;
            __mmask64 hi_mask;
            __m512i hi_idx;
            if (n - i < k)
                k = (unsigned)(n - i);
            group_layout(&g, group_ends(stops), base, k);
            /* Up to 10 bytes each; anything longer is for the careful path. */
            if (((g.lens_m1 + 0x7676767676767676ULL) & AVKI_HIGH_BITS & first_bytes(k)) != 0)
                break;
            lo = _mm512_maskz_permutexvar_epi8(g.lo_mask, g.lo_idx, chunk);
            hi_idx = _mm512_add_epi8(g.lo_idx, _mm512_set1_epi8(8));
            hi_mask = _mm512_cmple_epu8_mask(hi_idx, g.end_b) & 0x0303030303030303ULL;
            hi = _mm512_maskz_permutexvar_epi8(hi_mask, hi_idx, chunk);
            /* A 10th byte may hold only bit 63. */
            if ((_mm512_test_epi64_mask(hi, _mm512_set1_epi64(0xfe00)) & ((1u << k) - 1)) != 0)
                break;
            x = compact_lanes(_mm512_and_si512(lo, low7));
            hi = _mm512_maddubs_epi16(_mm512_set1_epi16((short)0x8001), _mm512_and_si512(hi, low7));
            x = _mm512_or_si512(x, _mm512_slli_epi64(hi, 56));
            _mm512_mask_storeu_epi64(out + i, (__mmask8)((1u << k) - 1), zigzag_decode_lanes(x));
            i += k;
            base = g.next;
            stops = base >= 64 ? 0 : stops & (~0ULL << base);
        }
        if (base == 0) { /* a long or bad value first: one value the careful way */
            uint64_t u;
            size_t k2 = avki_decode_u64_word(p, &u);
            if (!k2)
                goto done;
            out[i++] = avk_zigzag_decode64(u);
            p += k2;
        } else {
            p += base;
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

AVKI_KTARGET static size_t avx512_decode_ints(const uint8_t *in, size_t len, int32_t *out,
                                              size_t n, size_t *consumed)
{
    const uint8_t *p = in, *end = in + len;
    const __m512i low7 = _mm512_set1_epi8(0x7f);
    size_t i = 0;
    while (i < n && (size_t)(end - p) >= 64) {
        __m512i chunk = _mm512_loadu_si512(p);
        uint64_t stops = ~(uint64_t)_mm512_movepi8_mask(chunk);
        unsigned base = 0;
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
        while (stops != 0 && i < n) {
            unsigned avail = (unsigned)__builtin_popcountll(stops);
            unsigned k = avail < 8 ? avail : 8;
            __mmask8 lanes;
            group g;
            __m512i x;
            if (n - i < k)
                k = (unsigned)(n - i);
            lanes = (__mmask8)((1u << k) - 1);
            group_layout(&g, group_ends(stops), base, k);
            if (((g.lens_m1 + 0x7b7b7b7b7b7b7b7bULL) & AVKI_HIGH_BITS & first_bytes(k)) != 0)
                break; /* longer than 5 bytes */
            x = compact_lanes(_mm512_and_si512(
                _mm512_maskz_permutexvar_epi8(g.lo_mask, g.lo_idx, chunk), low7));
            if ((_mm512_test_epi64_mask(x, _mm512_set1_epi64((long long)0xffffffff00000000ULL)) &
                 lanes) != 0)
                break; /* bits beyond 32 */
            x = zigzag_decode_lanes(x);
            _mm256_mask_storeu_epi32(out + i, lanes, _mm512_cvtepi64_epi32(x));
            i += k;
            base = g.next;
            stops = base >= 64 ? 0 : stops & (~0ULL << base);
        }
        if (base == 0) {
            uint64_t u;
            size_t k2 = avki_decode_careful(p, (size_t)(end - p), AVK_VARINT_INT_MAX, &u);
            if (!k2)
                goto done;
            out[i++] = avk_zigzag_decode32((uint32_t)u);
            p += k2;
        } else {
            p += base;
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
done:
    *consumed = (size_t)(p - in);
    return i;
}

/* Spreads 8 zigzagged values, each below 2^56, into 8-byte lanes with
 * continuation bits, and writes them packed. Returns bytes written; out
 * needs 64 writable bytes. */
AVKI_KTARGET static inline size_t encode8_short(uint8_t *out, __m512i u)
{
    __m512i x = u, lenb;
    __m512i bits = _mm512_sub_epi64(_mm512_set1_epi64(64),
                                    _mm512_lzcnt_epi64(_mm512_or_si512(u, _mm512_set1_epi64(1))));
    __m512i lens = _mm512_srli_epi64(
        _mm512_add_epi64(_mm512_add_epi64(_mm512_slli_epi64(bits, 3), bits), _mm512_set1_epi64(64)), 6);
    __mmask64 keep, cont;
    x = _mm512_ternarylogic_epi64(_mm512_and_si512(x, _mm512_set1_epi64(0x000000000fffffffLL)),
                                  _mm512_slli_epi64(x, 4), _mm512_set1_epi64(0x0fffffff00000000LL),
                                  0xf8);
    x = _mm512_ternarylogic_epi64(_mm512_and_si512(x, _mm512_set1_epi64(0x00003fff00003fffLL)),
                                  _mm512_slli_epi64(x, 2), _mm512_set1_epi64(0x3fff00003fff0000LL),
                                  0xf8);
    x = _mm512_ternarylogic_epi64(_mm512_and_si512(x, _mm512_set1_epi64(0x007f007f007f007fLL)),
                                  _mm512_slli_epi64(x, 1), _mm512_set1_epi64(0x7f007f007f007f00LL),
                                  0xf8);
    lenb = _mm512_shuffle_epi8(lens, _mm512_set_epi64(0x0808080808080808LL, 0, 0x0808080808080808LL,
                                                      0, 0x0808080808080808LL, 0,
                                                      0x0808080808080808LL, 0));
    keep = _mm512_cmplt_epu8_mask(_mm512_load_si512(pos_in_lane), lenb);
    cont = keep & (keep >> 1) & ~0x8080808080808080ULL; /* not past a lane's end */
    x = _mm512_mask_add_epi8(x, cont, x, _mm512_set1_epi8((char)0x80));
    _mm512_storeu_si512(out, _mm512_maskz_compress_epi8(keep, x));
    return (size_t)__builtin_popcountll(keep);
}

AVKI_KTARGET static inline size_t encode_one(uint8_t *p, uint64_t u)
{
    if (AVK_LIKELY(u < (1ULL << 56))) {
        unsigned len = ((64u - (unsigned)_lzcnt_u64(u | 1)) * 9u + 64u) >> 6;
        avki_store64(p, _pdep_u64(u, AVKI_LOW7_BITS) | _bzhi_u64(AVKI_HIGH_BITS, 8 * len - 8));
        return len;
    }
    return avki_encode_u64_word(p, u);
}

AVKI_KTARGET static size_t avx512_encode_longs(uint8_t *out, const int64_t *in, size_t n)
{
    uint8_t *p = out;
    size_t i = 0;
    const __m512i limit = _mm512_set1_epi64((long long)((1ULL << 56) - 1));
    /* Room: out holds 10 bytes per value, so 8 values leave 80 >= 64. */
    for (; n - i >= 8; i += 8) {
        __m512i v = _mm512_loadu_si512(in + i);
        __m512i u = _mm512_xor_si512(_mm512_slli_epi64(v, 1), _mm512_srai_epi64(v, 63));
        if (AVK_LIKELY(_mm512_cmpgt_epu64_mask(u, limit) == 0)) {
            p += encode8_short(p, u);
        } else {
            uint64_t tmp[8];
            unsigned k;
            _mm512_storeu_si512(tmp, u);
            for (k = 0; k < 8; k++)
                p += encode_one(p, tmp[k]);
        }
    }
    for (; i < n; i++)
        p += encode_one(p, avk_zigzag_encode64(in[i]));
    return (size_t)(p - out);
}

AVKI_KTARGET static size_t avx512_encode_ints(uint8_t *out, const int32_t *in, size_t n)
{
    uint8_t *p = out;
    size_t i = 0;
    /* Room: 5 bytes per value plus 10, so 16 values left guarantee 64. */
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
