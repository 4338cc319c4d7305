/* AVX2 bulk varint kernel: continuation-bit masks drive pshufb gathers; no BMI2 needed. */
#include <immintrin.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "avrokit/varint.h"
#include "varint/kernels.h"
#include "varint/varint_word.h"

/* No BMI2: this kernel is for CPUs where PDEP/PEXT are slow (Zen 1/2) or
 * where only AVX2 is wanted; LZCNT/TZCNT/POPCNT are on every AVX2 CPU. */
#define AVKI_KTARGET __attribute__((target("avx2,bmi,lzcnt,popcnt")))

/*
 * Decoding works on 32-byte windows; the only serial step is from one
 * window to the next, and it depends on the stop bits alone (the bytes
 * without a continuation bit: one past the last stop), never on the
 * gathers, so windows overlap in the core. By the continuation mask:
 *   - none set: 32 one-byte values, zigzagged in bytes and widened;
 *   - the mask of a run of one length L (2..10), checked against a table:
 *     constant gathers and a fixed step (16 values of 2 bytes, 8 of 3-4,
 *     8 of 5-8 when 64 bytes keep the length, else 4; 4 of 9-10);
 *   - mixed lengths, classed by the longest value (runs of continuation
 *     bits): at most 2 bytes, 16 values per pshufb in 16-bit slots; at most
 *     4, 8 per pshufb in 32-bit slots, the controls built in registers
 *     from where each value ends (8-bit lookups on the stop bits);
 *   - anything longer: a 64-byte window, values 4 at a time, each lane
 *     loaded from its value's start and cut to its length from the stops
 *     (no pshufb control to build); a value over 10 bytes or with a bad
 *     10th byte goes to the word decoder, which stops on it.
 * Near the end of the input (fewer than 48 bytes) the word decoder and the
 * byte-by-byte careful decoder take over, so nothing is read past in + len.
 */

/* Byte b: the positions of b's set bits, ascending, one per byte, zero
 * padded (so every position ever stored is below 32). */
static uint64_t stop_positions[256];
/* Encode compaction for 8 16-bit slots: slot v keeps byte 1 iff bit v. */
static uint8_t enc2_shuffle[256][16] __attribute__((aligned(16)));
/* Encode compaction for 4 32-bit slots: slot v keeps len_v bytes, where
 * len_v - 1 = bit v + 2 * bit (4 + v) of the index. */
static uint8_t enc4_shuffle[256][16] __attribute__((aligned(16)));
static uint8_t enc4_len[256];
/* Row c: bytes 0..c-1 of the low qword, then the 8 of the high one: two
 * lists of positions joined. */
static uint8_t merge_ctrl[9][16] __attribute__((aligned(16)));
/* Runs of values of one length L: by L (the first value's length), the
 * continuation bits of 32 bytes of them (~0, which never matches, for
 * lengths other than 2..10), of 64 bytes (L = 5..10), and for L = 2..8 the
 * constant gather of 16 (L = 2), 8 (3, 4) or 4 (5..8) of them into 2-, 4-
 * or 8-byte slots. */
static uint32_t uniform_cont[33];
static uint64_t uniform_cont64[11];
static uint8_t uniform_ctrl[9][32] __attribute__((aligned(32)));
/* Encode of 8 values of one length L (5..8) in 8-byte slots: by L, the
 * continuation bits of each slot, and the shuffle packing the 2 values of
 * each 128-bit lane into 2L bytes. */
static uint8_t enc_uni_cont[9][32] __attribute__((aligned(32)));
static uint8_t enc_uni_ctrl[9][32] __attribute__((aligned(32)));
/* Vector constants, filled in at run time by tables_init: GCC would rebuild
 * a compile-time constant inside the loops it cannot keep in a register
 * (movabs, vmovq, vpbroadcastq: three instructions a use), but a table it
 * cannot see through is read straight into the instruction using it. */
enum {
    K_B7F,
    K_B01,
    K_B80,
    K_W7F,
    K_W7F00,
    K_WN7F,
    K_W80,
    K_W1,
    K_W8001,
    K_D3FFF,
    K_D3FFF0000,
    K_DN3FFF,
    K_DNLOW28,
    K_D1,
    K_D800000,
    K_D8000,
    K_D80,
    K_D7F,
    K_D40000001,
    K_D1FFFFF,
    K_Q1,
    K_QLOW28,
    K_QHIGH28,
    K_QNFF,
    K_QNLOW28,
    K_QTOP8,
    K_EVEN,
    K_COUNT
};
static uint32_t kconst[K_COUNT][8] __attribute__((aligned(32)));
#define KV(k) _mm256_load_si256((const __m256i *)kconst[k])
#define KV128(k) _mm_load_si128((const __m128i *)kconst[k])

static void fill32(unsigned k, uint32_t v)
{
    unsigned j;
    for (j = 0; j < 8; j++)
        kconst[k][j] = v;
}

static void fill16(unsigned k, uint32_t v)
{
    fill32(k, v | v << 16);
}

static void fill8(unsigned k, uint32_t v)
{
    fill16(k, v | v << 8);
}

static void fill64(unsigned k, uint64_t v)
{
    unsigned j;
    for (j = 0; j < 8; j += 2) {
        kconst[k][j] = (uint32_t)v;
        kconst[k][j + 1] = (uint32_t)(v >> 32);
    }
}

static pthread_once_t tables_once = PTHREAD_ONCE_INIT;
/* Set once the tables are filled: a plain load per call instead of a
 * pthread_once call (records hand the kernel runs of a few values, where
 * the call showed as 2-3% of the time). */
static atomic_int tables_ready;

static void tables_init(void)
{
    unsigned b, j, v;
    for (b = 0; b < 256; b++) {
        uint64_t w = 0;
        unsigned c = 0, k = 0;
        for (j = 0; j < 8; j++)
            if ((b >> j) & 1)
                w |= (uint64_t)j << (8 * c++);
        stop_positions[b] = w;

        memset(enc2_shuffle[b], 0x80, 16);
        for (v = 0, k = 0; v < 8; v++) {
            enc2_shuffle[b][k++] = (uint8_t)(2 * v);
            if ((b >> v) & 1)
                enc2_shuffle[b][k++] = (uint8_t)(2 * v + 1);
        }

        memset(enc4_shuffle[b], 0x80, 16);
        for (v = 0, k = 0; v < 4; v++) {
            unsigned keep = 1 + ((b >> v) & 1) + 2 * ((b >> (4 + v)) & 1);
            for (j = 0; j < keep; j++)
                enc4_shuffle[b][k++] = (uint8_t)(4 * v + j);
        }
        enc4_len[b] = (uint8_t)k;
    }
    fill8(K_B7F, 0x7f);
    fill8(K_B01, 1);
    fill8(K_B80, 0x80);
    fill16(K_W7F, 0x7f);
    fill16(K_W7F00, 0x7f00);
    fill16(K_WN7F, 0xff80);
    fill16(K_W80, 0x80);
    fill16(K_W1, 1);
    fill16(K_W8001, 0x8001);
    fill32(K_D3FFF, 0x3fff);
    fill32(K_D3FFF0000, 0x3fff0000);
    fill32(K_DN3FFF, ~0x3fffu);
    fill32(K_DNLOW28, ~0x0fffffffu);
    fill32(K_D1, 1);
    fill32(K_D800000, 0x800000);
    fill32(K_D8000, 0x8000);
    fill32(K_D80, 0x80);
    fill32(K_D7F, 0x7f);
    fill32(K_D40000001, 0x40000001);
    fill32(K_D1FFFFF, 0x1fffff);
    fill64(K_Q1, 1);
    fill64(K_QLOW28, 0x0fffffff);
    fill64(K_QHIGH28, 0x0fffffff00000000ULL);
    fill64(K_QNFF, ~0xffULL);
    fill64(K_QNLOW28, ~0x0fffffffULL);
    fill64(K_QTOP8, 0xff00000000000000ULL);
    for (j = 0; j < 8; j++) /* dwords 0 2 4 6, then 1 3 5 7 */
        kconst[K_EVEN][j] = j < 4 ? 2 * j : 2 * (j - 4) + 1;
    for (b = 1; b < 9; b++)
        for (j = 0; j < 32; j++) {
            unsigned at = j & 15;
            enc_uni_cont[b][j] = (uint8_t)((j & 7) + 1 < b ? 0x80 : 0);
            enc_uni_ctrl[b][j] = (uint8_t)(at < b ? at : at < 2 * b ? 8 + at - b : 0x80);
        }
    for (b = 0; b < 9; b++)
        for (j = 0; j < 16; j++)
            merge_ctrl[b][j] = (uint8_t)(j < b ? j : j < b + 8 ? 8 + j - b : 0x80);
    for (b = 0; b < 33; b++)
        uniform_cont[b] = ~0u; /* never matches: stops != 0 */
    for (b = 9; b < 11; b++)
        for (j = 0; j < 32; j++)
            uniform_cont[b] &= j % b != b - 1 ? ~0u : ~(1u << j);
    for (b = 5; b < 11; b++)
        for (j = 0; j < 64; j++)
            if (j % b != b - 1)
                uniform_cont64[b] |= 1ULL << j;
    for (b = 2; b < 9; b++) {
        unsigned w = b == 2 ? 2 : b <= 4 ? 4 : 8;
        uniform_cont[b] = 0;
        for (j = 0; j < 32; j++)
            if (j % b != b - 1)
                uniform_cont[b] |= 1u << j;
        for (j = 0; j < 32; j++) {
            unsigned slot = (j & 15) / w, at = j % w;
            uniform_ctrl[b][j] = (uint8_t)(at < b ? slot * b + at : 0x80);
        }
    }
    atomic_store_explicit(&tables_ready, 1, memory_order_release);
}

/* Fills the tables on first use, from any thread. */
static inline void tables_need(void)
{
    if (AVK_UNLIKELY(!atomic_load_explicit(&tables_ready, memory_order_acquire)))
        pthread_once(&tables_once, tables_init);
}

/* Bytes a window may read: 32 for the stop bits, and a 16-byte gather
 * source may start at any value start up to byte 32. */
#define WINDOW_READ 48

/* Byte-shift controls for pshufb: 16 + j - n at offset 16 - n shifts a
 * register up by n bytes (zero filled); at offset 32 - n, down by 16 - n. */
static const uint8_t slide[48] __attribute__((aligned(16))) = {
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
    0,    1,    2,    3,    4,    5,    6,    7,    8,    9,    10,   11,   12,   13,   14,   15,
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80};
/* At offset 16 - n: n bytes of ones, then zeros. */
static const uint8_t first_n[32] __attribute__((aligned(16))) = {
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

/* Where a window's values end and start, in registers: byte k of *last is
 * the window index of value k's last byte, byte k of *prev that of value
 * k - 1 (0xff, i.e. -1, for k = 0), so value k starts at prev + 1. Built
 * in registers rather than through a stack array: 16-byte loads over
 * several 8-byte stores cannot be forwarded and would wait for the stores
 * to retire, serialising the windows. Entries past the stops hold indexes
 * below 32, so gathers for them stay inside the window. */
AVKI_KTARGET static inline void plan_window(uint32_t stops, __m256i *prev, __m256i *last)
{
    unsigned b0 = stops & 0xff, b1 = (stops >> 8) & 0xff, b2 = (stops >> 16) & 0xff, b3 = stops >> 24;
    unsigned c1 = (unsigned)__builtin_popcount(b0), c3 = (unsigned)__builtin_popcount(b2);
    unsigned n01 = c1 + (unsigned)__builtin_popcount(b1);
    const uint64_t step = 0x0808080808080808ULL;
    /* Each byte of the stop mask gives, by table, the positions of its
     * stops (at most 8, one a byte), plus 8 times the byte's index (step)
     * to make them window indexes. Four such lists are then joined with no
     * gaps: b0's c1 entries followed by b1's (merge_ctrl[c1]), likewise b2
     * and b3, and finally the second pair slid up behind the first pair's
     * n01 entries, across the two 16-byte halves of *last (slide and
     * first_n, read at an offset of 16 - n01). Only counts pick the
     * controls, so there is no branch on the layout of the stops. */
    /* Two 8-bit lists per register, the second moved down to follow the first. */
    __m128i x01 = _mm_set_epi64x((long long)(stop_positions[b1] + step), (long long)stop_positions[b0]);
    __m128i x23 = _mm_set_epi64x((long long)(stop_positions[b3] + 3 * step),
                                 (long long)(stop_positions[b2] + 2 * step));
    __m128i lo, hi;
    __m256i e;
    x01 = _mm_shuffle_epi8(x01, _mm_loadu_si128((const __m128i *)merge_ctrl[c1]));
    x23 = _mm_shuffle_epi8(x23, _mm_loadu_si128((const __m128i *)merge_ctrl[c3]));
    lo = _mm_or_si128(_mm_and_si128(x01, _mm_loadu_si128((const __m128i *)(first_n + 16 - n01))),
                      _mm_shuffle_epi8(x23, _mm_loadu_si128((const __m128i *)(slide + 16 - n01))));
    hi = _mm_shuffle_epi8(x23, _mm_loadu_si128((const __m128i *)(slide + 32 - n01)));
    e = _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
    *last = e;
    /* Up one byte across the lanes, -1 first. */
    *prev = _mm256_or_si256(_mm256_alignr_epi8(e, _mm256_permute2x128_si256(e, e, 0x08), 15),
                            _mm256_setr_epi64x(0xff, 0, 0, 0));
}

/* Per-width constants for the gathers: slot s of a 128-bit lane takes value
 * s / W of that lane (the lanes hold h = 16 / W values each); pat picks
 * that value's entry in the plan registers, base the lane's first value,
 * and iota is the byte's place in its slot. */
typedef struct gather_consts {
    __m256i pat, base, iota;
} gather_consts;

AVKI_KTARGET static inline gather_consts make_consts(unsigned w)
{
    uint8_t pat[32], base[32], iota[32];
    unsigned b, h = 16 / w;
    gather_consts c;
    for (b = 0; b < 32; b++) {
        unsigned lane_first = b < 16 ? 0 : h;
        pat[b] = (uint8_t)(lane_first + (b & 15) / w);
        base[b] = (uint8_t)lane_first;
        iota[b] = (uint8_t)((b & 15) % w);
    }
    c.pat = _mm256_loadu_si256((const __m256i *)pat);
    c.base = _mm256_loadu_si256((const __m256i *)base);
    c.iota = _mm256_loadu_si256((const __m256i *)iota);
    return c;
}

/* Gathers values k .. k+2h-1 of the window at p (h per 128-bit lane, k a
 * multiple of 4) into W-byte slots, zero past each value's end,
 * continuation bits cleared. Each lane reads 16 bytes from where its first
 * value starts: h values of at most W bytes fit in them. */
AVKI_KTARGET static inline __m256i gather_group(const uint8_t *p, __m256i prev, __m256i last,
                                                unsigned k, unsigned h, const gather_consts *c)
{
    /* Entries k .. k+15 of the plan in both lanes. */
    __m256i sel = _mm256_add_epi32(_mm256_set1_epi32((int)(k / 4)), _mm256_setr_epi32(0, 1, 2, 3, 0, 1, 2, 3));
    __m256i pv = _mm256_permutevar8x32_epi32(prev, sel);
    __m256i ev = _mm256_permutevar8x32_epi32(last, sel);
    __m128i pv0 = _mm256_castsi256_si128(pv);
    uint64_t q0 = (uint64_t)_mm_cvtsi128_si64(pv0), q1 = (uint64_t)_mm_extract_epi64(pv0, 1);
    const uint8_t *a = p + (uint8_t)(q0 + 1);
    const uint8_t *b = p + (uint8_t)((h == 8 ? q1 : q0 >> (8 * h)) + 1);
    /* Window index of the slot's byte, minus one; signed compares are fine,
     * as indexes stay below 48 (and 0xff is -1, the value that starts at 0). */
    __m256i at = _mm256_add_epi8(_mm256_shuffle_epi8(pv, c->pat), c->iota);
    __m256i ctrl = _mm256_sub_epi8(at, _mm256_shuffle_epi8(pv, c->base));
    __m256i inside = _mm256_cmpgt_epi8(_mm256_shuffle_epi8(ev, c->pat), at);
    __m256i src = _mm256_inserti128_si256(
        _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)a)),
        _mm_loadu_si128((const __m128i *)b), 1);
    ctrl = _mm256_or_si256(ctrl, _mm256_andnot_si256(inside, KV(K_B80)));
    return _mm256_and_si256(_mm256_shuffle_epi8(src, ctrl), KV(K_B7F));
}

/* 7-bit groups: pairs of bytes -> 14 bits (vpmaddubsw, the constant as the
 * unsigned operand so 128 fits), pairs of those -> 28 bits (vpmaddwd). */
AVKI_KTARGET static inline __m256i compact16(__m256i x)
{
    return _mm256_maddubs_epi16(KV(K_W8001), x);
}

AVKI_KTARGET static inline __m256i compact32(__m256i x)
{
    return _mm256_madd_epi16(compact16(x), KV(K_D40000001));
}

AVKI_KTARGET static inline __m256i compact64(__m256i x)
{
    const __m256i low28 = KV(K_QLOW28);
    x = compact32(x);
    return _mm256_or_si256(_mm256_and_si256(x, low28),
                           _mm256_andnot_si256(low28, _mm256_srli_epi64(x, 4)));
}

AVKI_KTARGET static inline __m256i unzigzag16(__m256i x)
{
    return _mm256_xor_si256(_mm256_srli_epi16(x, 1),
                            _mm256_sub_epi16(_mm256_setzero_si256(),
                                             _mm256_and_si256(x, KV(K_W1))));
}

AVKI_KTARGET static inline __m256i unzigzag32(__m256i x)
{
    return _mm256_xor_si256(_mm256_srli_epi32(x, 1),
                            _mm256_sub_epi32(_mm256_setzero_si256(),
                                             _mm256_and_si256(x, KV(K_D1))));
}

AVKI_KTARGET static inline __m256i unzigzag64(__m256i x)
{
    return _mm256_xor_si256(_mm256_srli_epi64(x, 1),
                            _mm256_sub_epi64(_mm256_setzero_si256(),
                                             _mm256_and_si256(x, KV(K_Q1))));
}

/* Zigzag-decodes 32 one-byte values in bytes: the results fit int8. */
AVKI_KTARGET static inline __m256i unzigzag8(__m256i x)
{
    __m256i half = _mm256_and_si256(_mm256_srli_epi16(x, 1), KV(K_B7F));
    return _mm256_xor_si256(half, _mm256_sub_epi8(_mm256_setzero_si256(),
                                                  _mm256_and_si256(x, KV(K_B01))));
}

AVKI_KTARGET static inline void ones32_longs(int64_t *out, __m256i chunk)
{
    __m256i z = unzigzag8(chunk);
    __m128i lo = _mm256_castsi256_si128(z), hi = _mm256_extracti128_si256(z, 1);
    _mm256_storeu_si256((__m256i *)(out + 0), _mm256_cvtepi8_epi64(lo));
    _mm256_storeu_si256((__m256i *)(out + 4), _mm256_cvtepi8_epi64(_mm_srli_si128(lo, 4)));
    _mm256_storeu_si256((__m256i *)(out + 8), _mm256_cvtepi8_epi64(_mm_srli_si128(lo, 8)));
    _mm256_storeu_si256((__m256i *)(out + 12), _mm256_cvtepi8_epi64(_mm_srli_si128(lo, 12)));
    _mm256_storeu_si256((__m256i *)(out + 16), _mm256_cvtepi8_epi64(hi));
    _mm256_storeu_si256((__m256i *)(out + 20), _mm256_cvtepi8_epi64(_mm_srli_si128(hi, 4)));
    _mm256_storeu_si256((__m256i *)(out + 24), _mm256_cvtepi8_epi64(_mm_srli_si128(hi, 8)));
    _mm256_storeu_si256((__m256i *)(out + 28), _mm256_cvtepi8_epi64(_mm_srli_si128(hi, 12)));
}

AVKI_KTARGET static inline void ones32_ints(int32_t *out, __m256i chunk)
{
    __m256i z = unzigzag8(chunk);
    __m128i lo = _mm256_castsi256_si128(z), hi = _mm256_extracti128_si256(z, 1);
    _mm256_storeu_si256((__m256i *)(out + 0), _mm256_cvtepi8_epi32(lo));
    _mm256_storeu_si256((__m256i *)(out + 8), _mm256_cvtepi8_epi32(_mm_srli_si128(lo, 8)));
    _mm256_storeu_si256((__m256i *)(out + 16), _mm256_cvtepi8_epi32(hi));
    _mm256_storeu_si256((__m256i *)(out + 24), _mm256_cvtepi8_epi32(_mm_srli_si128(hi, 8)));
}

/* The window's class: the widest slot (2 or 4 bytes) its planned values
 * fit, or 0 when one is longer than 4 bytes (those go a value per lane:
 * with mixed lengths most windows have one, and a class that changes from
 * window to window would mispredict). cont holds the continuation bits of
 * bytes 0..last (the last planned value's last byte). */
static inline unsigned window_width(uint64_t cont)
{
    uint64_t run = cont & (cont >> 1); /* bit j: bytes j, j+1 continue */
    if (run == 0)
        return 2;
    run &= run >> 2; /* 4 continuing bytes: a value of 5 or more */
    return run == 0 ? 4 : 0;
}

/* At offset 16 - n: n bytes of 0x7f, then zeros: keeps a value's 7-bit
 * groups and drops what follows it. */
static const uint8_t first_n7[32] __attribute__((aligned(16))) = {
    0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f};

AVKI_KTARGET static inline __m128i value_bytes(const uint8_t *p, size_t len)
{
    return _mm_and_si128(_mm_loadu_si128((const __m128i *)p),
                         _mm_loadu_si128((const __m128i *)(first_n7 + 16 - len)));
}

/* Decodes 4 values of 1 to 10 bytes starting at p + s0..s3, of lengths
 * l0..l3 (from the stop bits), one 16-byte load each: bytes 0-7 of a lane
 * pack to 56 bits, bytes 8-9 to the top 8. Returns 0, storing nothing,
 * when a 10th byte carries more than bit 63. */
AVKI_KTARGET static inline int decode4_long(const uint8_t *p, size_t s0, size_t s1, size_t s2,
                                            size_t s3, size_t l0, size_t l1, size_t l2, size_t l3,
                                            int64_t *out)
{
    __m256i x = compact64(_mm256_inserti128_si256(_mm256_castsi128_si256(value_bytes(p + s0, l0)),
                                                  value_bytes(p + s1, l1), 1));
    __m256i y = compact64(_mm256_inserti128_si256(_mm256_castsi128_si256(value_bytes(p + s2, l2)),
                                                  value_bytes(p + s3, l3), 1));
    /* Now qword 0 of each lane: bits 0-55, qword 1: the 8 bits above. */
    __m256i hi = _mm256_unpackhi_epi64(x, y), r;
    if (!_mm256_testz_si256(hi, KV(K_QNFF)))
        return 0;
    r = _mm256_or_si256(_mm256_unpacklo_epi64(x, y), _mm256_slli_epi64(hi, 56));
    /* [x0 y0 | x1 y1] -> values 0 1 2 3 = x0 x1 y0 y1 */
    r = _mm256_permute4x64_epi64(r, 0xd8);
    _mm256_storeu_si256((__m256i *)out, unzigzag64(r));
    return 1;
}

/* Bytes a window of long values may read: 64 for the stop bits, and 16
 * from any value start below 64. */
#define LONG_WINDOW_READ 80

/* Window index of the last byte of the count-th stop (count >= 1). */
static inline unsigned nth_stop64(uint64_t stops, unsigned count)
{
    while (--count)
        stops &= stops - 1;
    return (unsigned)__builtin_ctzll(stops);
}

/* Decodes the count values of a window of long values at p (their stop
 * bits in stops; room slots free at out): when vec (no value over 10
 * bytes), 4 at a time, the lengths from the stops; the last 1-3 with dummy 1-byte values
 * in the spare lanes when the slots exist (later values overwrite them).
 * A bad 10th byte is left to the word decoder, one value at a time.
 * Returns the values decoded; when below count, *bad is where the failing
 * value starts. */
AVKI_KTARGET static inline unsigned decode_long_window(const uint8_t *p, uint64_t stops,
                                                       unsigned count, int64_t *out, size_t room,
                                                       int vec, size_t *bad)
{
    uint64_t rest = stops;
    size_t at = 0;
    unsigned k = 0;
    for (; vec && count - k >= 4; k += 4) {
        uint64_t r = rest;
        size_t e0, e1, e2, e3;
        e0 = (size_t)__builtin_ctzll(r);
        r &= r - 1;
        e1 = (size_t)__builtin_ctzll(r);
        r &= r - 1;
        e2 = (size_t)__builtin_ctzll(r);
        r &= r - 1;
        e3 = (size_t)__builtin_ctzll(r);
        if (!decode4_long(p, at, e0 + 1, e1 + 1, e2 + 1, e0 + 1 - at, e1 - e0, e2 - e1, e3 - e2,
                          out + k))
            break;
        rest = r & (r - 1);
        at = e3 + 1;
    }
    if (vec && count - k < 4 && k < count && room - k >= 4) {
        /* 1 to 3 left: the spare lanes decode byte 0 as a dummy. */
        unsigned left = count - k;
        uint64_t r = rest;
        size_t e0 = (size_t)__builtin_ctzll(r), e1 = 0, e2 = 0, s1 = 0, s2 = 0, l1 = 1, l2 = 1;
        r &= r - 1;
        if (left > 1) {
            e1 = (size_t)__builtin_ctzll(r);
            r &= r - 1;
            s1 = e0 + 1;
            l1 = e1 - e0;
        }
        if (left > 2) {
            e2 = (size_t)__builtin_ctzll(r);
            r &= r - 1;
            s2 = e1 + 1;
            l2 = e2 - e1;
        }
        if (decode4_long(p, at, s1, s2, 0, e0 + 1 - at, l1, l2, 1, out + k))
            return count;
    }
    for (; k < count; k++) {
        uint64_t u;
        if (!avki_decode_u64_word(p + at, &u)) { /* 10 readable: at < 64 */
            *bad = at;
            return k;
        }
        out[k] = avk_zigzag_decode64(u);
        at = (size_t)__builtin_ctzll(rest) + 1;
        rest &= rest - 1;
    }
    return k;
}

/* Whether some value in the bytes whose continuation bits are cont is over
 * 10 bytes long: a run of 10 continuation bits. */
static inline int has_over10(uint64_t cont)
{
    uint64_t run = cont & (cont >> 1);
    run &= run >> 2;
    run &= run >> 4;              /* runs of 8 */
    return (run & (run >> 2)) != 0; /* runs of 10 */
}

/* stops without its k lowest bits: the stops of values k and later. */
static inline uint32_t skip_stops(uint32_t stops, unsigned k)
{
    while (k--)
        stops &= stops - 1;
    return stops;
}

/* Where the first value of rest starts: one past the last stop taken off. */
static inline size_t first_start(uint32_t stops, uint32_t rest)
{
    uint32_t taken = stops & ~rest;
    return taken ? 32u - (size_t)__builtin_clz(taken) : 0;
}

/* Window index of the last byte of the count-th stop (count >= 1). */
static inline unsigned nth_stop(uint32_t stops, unsigned count)
{
    while (--count)
        stops &= stops - 1;
    return (unsigned)__builtin_ctz(stops);
}

/* The window classes are tried cheapest and commonest first: 32 one-byte
 * values (small numbers) need one compare; a run of one length (ids,
 * timestamps, fixed-width counters) one table lookup and compare; only
 * then is a plan built for mixed lengths. Each test that fails costs a
 * well-predicted branch, since data rarely changes class window to window.
 * A window never reads more than WINDOW_READ bytes (LONG_WINDOW_READ where
 * tested), and writes whole vectors only while n - i leaves room for them. */
AVKI_KTARGET static size_t avx2_decode_longs(const uint8_t *in, size_t len, int64_t *out,
                                             size_t n, size_t *consumed)
{
    const uint8_t *p = in, *end = in + len;
    gather_consts c2, c4;
    size_t i = 0;
    tables_need();
    c2 = make_consts(2);
    c4 = make_consts(4);
    while (i < n && (size_t)(end - p) >= WINDOW_READ) {
        __m256i chunk = _mm256_loadu_si256((const __m256i *)p);
        uint32_t cont = (uint32_t)_mm256_movemask_epi8(chunk), stops = ~cont;
        unsigned count, last, w, k;
        __m256i prev, ends;
        /* 32 one-byte values: widened straight from the window. */
        if (cont == 0 && n - i >= 32) {
            ones32_longs(out + i, chunk);
            p += 32;
            i += 32;
            continue;
        }
        if (stops == 0)
            break; /* over 32 bytes: the tail reports it */
        w = (unsigned)__builtin_ctz(stops) + 1; /* the first value's length */
        /* The window is a run of w-byte values exactly when its continuation
         * bits equal the run's pattern (a value cut by the window's end
         * continues, so it matches too). No plan is needed: value j starts
         * at j * w, so the gathers are constants and the step is fixed. */
        if (cont == uniform_cont[w] && w <= 8) {
            /* All one length: constant gathers, a fixed step. */
            const __m256i ctrl = _mm256_load_si256((const __m256i *)uniform_ctrl[w]);
            const __m256i low7 = KV(K_B7F);
            int64_t *o = out + i;
            /* 16 values of 2 bytes fill the window exactly: no shuffle,
             * pairs of bytes pack in place. */
            if (w == 2 && n - i >= 16) {
                __m256i z = unzigzag16(compact16(_mm256_and_si256(chunk, low7)));
                __m128i lo = _mm256_castsi256_si128(z), hi = _mm256_extracti128_si256(z, 1);
                _mm256_storeu_si256((__m256i *)(o + 0), _mm256_cvtepi16_epi64(lo));
                _mm256_storeu_si256((__m256i *)(o + 4), _mm256_cvtepi16_epi64(_mm_srli_si128(lo, 8)));
                _mm256_storeu_si256((__m256i *)(o + 8), _mm256_cvtepi16_epi64(hi));
                _mm256_storeu_si256((__m256i *)(o + 12), _mm256_cvtepi16_epi64(_mm_srli_si128(hi, 8)));
                p += 32;
                i += 16;
                continue;
            }
            /* 3 or 4 bytes: 4 values (at most 16 bytes) per 128-bit lane,
             * the second lane loaded from value 4's start, each value moved
             * into a 32-bit slot by the run's constant shuffle. */
            if (w != 2 && w <= 4 && n - i >= 8) {
                __m256i src = _mm256_inserti128_si256(
                    chunk, _mm_loadu_si128((const __m128i *)(p + 4 * w)), 1);
                __m256i z = unzigzag32(compact32(_mm256_and_si256(_mm256_shuffle_epi8(src, ctrl), low7)));
                _mm256_storeu_si256((__m256i *)(o + 0), _mm256_cvtepi32_epi64(_mm256_castsi256_si128(z)));
                _mm256_storeu_si256((__m256i *)(o + 4), _mm256_cvtepi32_epi64(_mm256_extracti128_si256(z, 1)));
                p += 8 * w;
                i += 8;
                continue;
            }
            if (w > 4 && n - i >= 8 && (size_t)(end - p) >= 64) {
                /* 8 values when the next 32 bytes keep the length: the
                 * step is the serial part, so take two groups a step. Two
                 * values (at most 16 bytes) per 16-byte load, from values
                 * 0, 2, 4 and 6: the last ends by 6 * 8 + 16 = 64. */
                uint32_t cont2 = (uint32_t)_mm256_movemask_epi8(_mm256_loadu_si256((const __m256i *)(p + 32)));
                if (((uint64_t)cont2 << 32 | cont) == uniform_cont64[w]) {
                    __m256i a = _mm256_inserti128_si256(
                        chunk, _mm_loadu_si128((const __m128i *)(p + 2 * w)), 1);
                    __m256i b = _mm256_inserti128_si256(
                        _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(p + 4 * w))),
                        _mm_loadu_si128((const __m128i *)(p + 6 * w)), 1);
                    _mm256_storeu_si256((__m256i *)o, unzigzag64(compact64(
                                                          _mm256_and_si256(_mm256_shuffle_epi8(a, ctrl), low7))));
                    _mm256_storeu_si256((__m256i *)(o + 4), unzigzag64(compact64(
                                                          _mm256_and_si256(_mm256_shuffle_epi8(b, ctrl), low7))));
                    p += 8 * w;
                    i += 8;
                    continue;
                }
            }
            /* Otherwise 4 values, within the 32 bytes of the window. */
            if (w > 4 && n - i >= 4) {
                __m256i src = _mm256_inserti128_si256(
                    chunk, _mm_loadu_si128((const __m128i *)(p + 2 * w)), 1);
                _mm256_storeu_si256((__m256i *)o, unzigzag64(compact64(
                                                      _mm256_and_si256(_mm256_shuffle_epi8(src, ctrl), low7))));
                p += 4 * w;
                i += 4;
                continue;
            }
        }
        /* A run of 9- or 10-byte values: 4 values take up to 40 bytes, past
         * the window, so the next 32 bytes' continuation bits must agree
         * too; each value is one 16-byte load at its fixed start. */
        if (cont == uniform_cont[w] && w > 8 && n - i >= 4 && (size_t)(end - p) >= LONG_WINDOW_READ) {
            uint32_t cont2 = (uint32_t)_mm256_movemask_epi8(_mm256_loadu_si256((const __m256i *)(p + 32)));
            if (((uint64_t)cont2 << 32 | cont) == uniform_cont64[w]) {
                if (decode4_long(p, 0, w, 2 * w, 3 * w, w, w, w, w, out + i)) {
                    /* else the general path finds the bad byte */
                    p += 4 * w;
                    i += 4;
                    continue;
                }
            }
        }
        /* Mixed lengths. count: the values that end in the window, at most
         * n - i; last: the window index where the last of them ends. The
         * next window starts at last + 1 whatever the gathers find, which
         * is what lets windows overlap. Bytes after the last stop belong
         * to a value the next window starts with. */
        count = (unsigned)__builtin_popcount(stops);
        if (AVK_LIKELY(count <= n - i)) {
            last = 31u - (unsigned)_lzcnt_u32(stops); /* from the bits: off the gathers' path */
        } else {
            count = (unsigned)(n - i);
            last = nth_stop(stops, count);
        }
        /* The widest planned value decides the slot width for the whole
         * window (continuation bits past last belong to the next one). */
        w = window_width((uint64_t)cont & ((2ULL << last) - 1));
        if (w != 0)
            plan_window(stops, &prev, &ends);
        if (w == 2) {
            /* 16 values a gather (8 per 128-bit lane, 16 bytes of source
             * from the lane's first value hold 8 values of 2 bytes). */
            for (k = 0; k < count && n - i - k >= 16; k += 16) {
                __m256i z = unzigzag16(compact16(gather_group(p, prev, ends, k, 8, &c2)));
                __m128i lo = _mm256_castsi256_si128(z), hi = _mm256_extracti128_si256(z, 1);
                int64_t *o = out + i + k;
                _mm256_storeu_si256((__m256i *)(o + 0), _mm256_cvtepi16_epi64(lo));
                _mm256_storeu_si256((__m256i *)(o + 4), _mm256_cvtepi16_epi64(_mm_srli_si128(lo, 8)));
                _mm256_storeu_si256((__m256i *)(o + 8), _mm256_cvtepi16_epi64(hi));
                _mm256_storeu_si256((__m256i *)(o + 12), _mm256_cvtepi16_epi64(_mm_srli_si128(hi, 8)));
            }
        } else if (w == 4) {
            /* 8 values a gather, 4 of at most 4 bytes per lane. */
            for (k = 0; k < count && n - i - k >= 8; k += 8) {
                __m256i z = unzigzag32(compact32(gather_group(p, prev, ends, k, 4, &c4)));
                int64_t *o = out + i + k;
                _mm256_storeu_si256((__m256i *)(o + 0), _mm256_cvtepi32_epi64(_mm256_castsi256_si128(z)));
                _mm256_storeu_si256((__m256i *)(o + 4), _mm256_cvtepi32_epi64(_mm256_extracti128_si256(z, 1)));
            }
        } else {
            k = 0;
        }
        if (w == 0) {
            /* Values over 4 bytes: a window of 64 bytes when there is
             * room, so the groups of 4 are mostly full. */
            uint64_t st = stops;
            size_t bad;
            if ((size_t)(end - p) >= LONG_WINDOW_READ) {
                uint32_t cont2 = (uint32_t)_mm256_movemask_epi8(_mm256_loadu_si256((const __m256i *)(p + 32)));
                st |= (uint64_t)~cont2 << 32;
                count = (unsigned)__builtin_popcountll(st);
                if (AVK_LIKELY(count <= n - i)) {
                    last = 63u - (unsigned)_lzcnt_u64(st);
                } else {
                    count = (unsigned)(n - i);
                    last = nth_stop64(st, count);
                }
            }
            /* A value over 10 bytes: one at a time, the word decoder finds it. */
            k = decode_long_window(p, st, count, out + i, n - i,
                                   !has_over10(~st & ((2ULL << last) - 1)), &bad);
            if (k < count) {
                p += bad;
                i += k;
                goto finish;
            }
        }
        /* Groups write whole vectors (lanes past count hold junk that later
         * values overwrite) while they fit below n; the rest one at a time. */
        if (k < count) {
            uint32_t rest = skip_stops(stops, k);
            size_t s = first_start(stops, rest);
            for (; k < count; k++) {
                uint64_t u;
                if (!avki_decode_u64_word(p + s, &u)) { /* 10 readable: s < 32 */
                    p += s;
                    i += k;
                    goto finish;
                }
                out[i + k] = avk_zigzag_decode64(u);
                s = (size_t)__builtin_ctz(rest) + 1; /* values are independent: no chain */
                rest &= rest - 1;
            }
        }
        p += last + 1;
        i += count;
    }
    /* Fewer than 48 bytes left (or a value over 32 bytes): the word decoder
     * while 10 bytes are readable, byte by byte after, so nothing is read
     * at or past in + len; a malformed value stops the loop at its start. */
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

/* One int at p (avail bytes there): the word decoder while 10 bytes are
 * readable, byte by byte near the end. Returns its length, 0 when it is
 * malformed or cut (the same rule as avki_decode_careful with 5 bytes: at
 * most 5 bytes, no bits beyond 32). */
AVKI_KTARGET static inline size_t int_step(const uint8_t *p, size_t avail, uint64_t *u)
{
    size_t k;
    if (avail < AVK_VARINT_LONG_MAX)
        return avki_decode_careful(p, avail, AVK_VARINT_INT_MAX, u);
    k = avki_decode_u64_word(p, u);
    return k <= AVK_VARINT_INT_MAX && (*u >> 32) == 0 ? k : 0;
}

/* Up to 64 ints from a stretch that holds values of 5 bytes, through the
 * long decoder's vector groups, then checked: every value below 2^32 and
 * the bytes used equal to the sum of the values' shortest encodings (a
 * padded encoding, which could hide a 6-byte int, is always longer).
 * Returns how many it decoded (*used their bytes), or 0 when the stretch
 * must go a value at a time (a bad or cut value, or a check failed). */
/* 1 when a varint in p[0..used) has more than 5 bytes (an int's limit):
 * five continuation bits in a row. p[0..avail) is readable. One movemask
 * per 32 bytes, where checking each value's length cost about as much as
 * decoding it. */
AVKI_KTARGET static int has_six_byte_varint(const uint8_t *p, size_t used, size_t avail)
{
    uint64_t carry = 0; /* the previous chunk's last 4 continuation bits */
    size_t o;
    for (o = 0; o < used; o += 32) {
        uint64_t c, x;
        if (avail - o >= 32) {
            c = (uint32_t)_mm256_movemask_epi8(_mm256_loadu_si256((const __m256i *)(p + o)));
        } else {
            size_t j;
            for (c = 0, j = 0; o + j < avail && j < 32; j++)
                c |= (uint64_t)(p[o + j] >> 7) << j;
        }
        if (used - o < 32)
            c &= (1ULL << (used - o)) - 1;
        x = (c << 4) | carry;
        if (x & (x >> 1) & (x >> 2) & (x >> 3) & (x >> 4))
            return 1;
        carry = (c >> 28) & 15;
    }
    return 0;
}

/* Decodes up to 64 ints through the long decoder, when every value there
 * takes at most 5 bytes and fits in 32 bits (else returns 0, *used set to
 * the stretch it looked at, and the caller goes value by value). */
AVKI_KTARGET static size_t ints_via_longs(const uint8_t *p, size_t avail, int32_t *out,
                                          size_t m, size_t *used)
{
    int64_t tmp[64];
    size_t j, got;
    uint64_t over = 0;
    if (m > 64)
        m = 64;
    got = avx2_decode_longs(p, avail, tmp, m, used);
    if (got != m)
        return 0;
    for (j = 0; j < m; j++) {
        /* Outside int32: bits above 32 after the bias. */
        over |= ((uint64_t)tmp[j] + 0x80000000ULL) >> 32;
        out[j] = (int32_t)tmp[j];
    }
    if (over || has_six_byte_varint(p, *used, avail))
        return 0;
    return m;
}

/* The int decoder has the long decoder's windows without the run classes
 * (the 2- and 4-byte slot paths take windows of short ints whole anyway).
 * An int of 5 bytes does not fit the 32-bit slots and may carry bits beyond
 * 32 in its last byte, so windows holding one go through the long decoder
 * and are checked after (ints_via_longs), or a value at a time. */
AVKI_KTARGET static size_t avx2_decode_ints(const uint8_t *in, size_t len, int32_t *out,
                                            size_t n, size_t *consumed)
{
    const uint8_t *p = in, *end = in + len;
    gather_consts c2, c4;
    size_t i = 0;
    const uint8_t *longs_retry = in; /* where ints_via_longs may run again */
    tables_need();
    c2 = make_consts(2);
    c4 = make_consts(4);
    while (i < n && (size_t)(end - p) >= WINDOW_READ) {
        __m256i chunk = _mm256_loadu_si256((const __m256i *)p);
        uint32_t cont = (uint32_t)_mm256_movemask_epi8(chunk), stops = ~cont;
        unsigned count, last, w, k;
        __m256i prev, ends;
        if (cont == 0 && n - i >= 32) {
            ones32_ints(out + i, chunk);
            p += 32;
            i += 32;
            continue;
        }
        /* 32 continuing bytes: the tail reports the bad value. */
        if (stops == 0)
            break;
        count = (unsigned)__builtin_popcount(stops);
        if (AVK_LIKELY(count <= n - i)) {
            last = 31u - (unsigned)_lzcnt_u32(stops);
        } else {
            count = (unsigned)(n - i);
            last = nth_stop(stops, count);
        }
        w = window_width((uint64_t)cont & ((2ULL << last) - 1));
        if (w != 0)
            plan_window(stops, &prev, &ends);
        k = 0;
        if (w == 2) {
            for (; k < count && n - i - k >= 16; k += 16) {
                __m256i z = unzigzag16(compact16(gather_group(p, prev, ends, k, 8, &c2)));
                int32_t *o = out + i + k;
                _mm256_storeu_si256((__m256i *)(o + 0), _mm256_cvtepi16_epi32(_mm256_castsi256_si128(z)));
                _mm256_storeu_si256((__m256i *)(o + 8), _mm256_cvtepi16_epi32(_mm256_extracti128_si256(z, 1)));
            }
        } else if (w == 4) {
            for (; k < count && n - i - k >= 8; k += 8)
                _mm256_storeu_si256((__m256i *)(out + i + k),
                                    unzigzag32(compact32(gather_group(p, prev, ends, k, 4, &c4))));
        }
        /* A window with values of 5 bytes (whose last byte may carry bits
         * beyond 32): through the long decoder when the checks pass. */
        if (w == 0 && count > 4 && p >= longs_retry) {
            size_t used = 0, got = ints_via_longs(p, (size_t)(end - p), out + i, n - i, &used);
            if (got) {
                p += used;
                i += got;
                continue;
            }
            /* Not again before the stretch it looked at is behind us:
             * padded encodings or a bad value would otherwise be decoded
             * as longs once per window. */
            longs_retry = p + (used ? used : 1);
        }
        /* The rest, and what the long decoder could not take: a value at a
         * time through the word decoder. */
        if (k < count) {
            uint32_t rest = skip_stops(stops, k);
            size_t s = first_start(stops, rest);
            for (; k < count; k++) {
                uint64_t u;
                if (!int_step(p + s, (size_t)(end - p) - s, &u)) {
                    p += s;
                    i += k;
                    goto finish;
                }
                out[i + k] = avk_zigzag_decode32((uint32_t)u);
                s = (size_t)__builtin_ctz(rest) + 1;
                rest &= rest - 1;
            }
        }
        p += last + 1;
        i += count;
    }
    while (i < n) {
        uint64_t u;
        size_t k = int_step(p, (size_t)(end - p), &u);
        if (!k)
            break;
        out[i++] = avk_zigzag_decode32((uint32_t)u);
        p += k;
    }
finish:
    *consumed = (size_t)(p - in);
    return i;
}

/* ---- encode ---------------------------------------------------------------
 * Groups of 8 values: zigzag in vectors, then by the largest of the 8:
 * below 2^7 the low bytes are packed; below 2^14 16-bit slots are spread
 * and compacted by a table on which values take 2 bytes; below 2^28 32-bit
 * slots likewise, by a table on the four lengths of each 128-bit lane;
 * anything larger one value at a time, branch-free. */

/* One value with no branch on its length (random lengths would
 * mispredict): always stores 10 bytes, which the caller's room allows. */
static inline size_t encode_one(uint8_t *p, uint64_t u)
{
    unsigned len = avki_varint_len(u);
    uint64_t hi = u >> 56;
    uint64_t cont = len > 8 ? AVKI_HIGH_BITS : (AVKI_HIGH_BITS >> 1) >> ((71 - 8 * len) & 63);
    uint16_t tail = (uint16_t)((hi & 0x7f) | ((uint64_t)(hi >= 0x80) << 7) | ((hi >> 7) << 8));
    avki_store64(p, avki_spread56(u & ((1ULL << 56) - 1)) | cont);
    memcpy(p + 8, &tail, 2);
    return len;
}

/* 8 values below 2^14 in 16-bit slots; writes 16 bytes. */
AVKI_KTARGET static inline size_t encode8_2(uint8_t *p, __m128i w)
{
    __m128i e = _mm_or_si128(_mm_and_si128(w, KV128(K_W7F)),
                             _mm_and_si128(_mm_slli_epi16(w, 1), KV128(K_W7F00)));
    __m128i two = _mm_cmpgt_epi16(w, KV128(K_W7F));
    unsigned m = (unsigned)_mm_movemask_epi8(_mm_packs_epi16(two, _mm_setzero_si128())) & 0xff;
    e = _mm_or_si128(e, _mm_and_si128(two, KV128(K_W80)));
    _mm_storeu_si128((__m128i *)p,
                     _mm_shuffle_epi8(e, _mm_load_si128((const __m128i *)enc2_shuffle[m])));
    return 8 + (size_t)__builtin_popcount(m);
}

/* 8 values below 2^28 in 32-bit slots; writes up to 32 bytes. */
AVKI_KTARGET static inline size_t encode8_4(uint8_t *p, __m256i u)
{
    __m256i x = _mm256_or_si256(_mm256_and_si256(u, KV(K_D3FFF)),
                                _mm256_and_si256(_mm256_slli_epi32(u, 2), KV(K_D3FFF0000)));
    __m256i c7 = _mm256_cmpgt_epi32(u, KV(K_D7F));
    __m256i c14 = _mm256_cmpgt_epi32(u, KV(K_D3FFF));
    __m256i c21 = _mm256_cmpgt_epi32(u, KV(K_D1FFFFF));
    unsigned m7 = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(c7));
    unsigned m14 = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(c14));
    unsigned m21 = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(c21));
    /* len - 1 in two bits: the thermometer c7 <= c14 <= c21 in binary. */
    unsigned b0 = m7 ^ m14 ^ m21, i0 = (b0 & 15) | ((m14 & 15) << 4), i1 = (b0 >> 4) | (m14 & 0xf0);
    size_t l0 = enc4_len[i0];
    __m256i cont;
    x = _mm256_or_si256(_mm256_and_si256(x, KV(K_W7F)),
                        _mm256_and_si256(_mm256_slli_epi32(x, 1), KV(K_W7F00)));
    cont = _mm256_or_si256(_mm256_and_si256(c7, KV(K_D80)),
                           _mm256_or_si256(_mm256_and_si256(c14, KV(K_D8000)),
                                           _mm256_and_si256(c21, KV(K_D800000))));
    x = _mm256_shuffle_epi8(
        _mm256_or_si256(x, cont),
        _mm256_inserti128_si256(
            _mm256_castsi128_si256(_mm_load_si128((const __m128i *)enc4_shuffle[i0])),
            _mm_load_si128((const __m128i *)enc4_shuffle[i1]), 1));
    _mm_storeu_si128((__m128i *)p, _mm256_castsi256_si128(x));
    _mm_storeu_si128((__m128i *)(p + l0), _mm256_extracti128_si256(x, 1));
    return l0 + enc4_len[i1];
}

/* Encodes 8 zigzagged values below 2^31 held in 32-bit slots, if they are
 * below 2^28; returns 0 (writing nothing) when one is larger. */
AVKI_KTARGET static inline size_t encode8_small(uint8_t *p, __m256i u)
{
    if (_mm256_testz_si256(u, KV(K_DN3FFF))) {
        __m128i w = _mm_packus_epi32(_mm256_castsi256_si128(u), _mm256_extracti128_si256(u, 1));
        if (_mm_testz_si128(w, KV128(K_WN7F))) {
            _mm_storel_epi64((__m128i *)p, _mm_packus_epi16(w, w));
            return 8;
        }
        return encode8_2(p, w);
    }
    if (_mm256_testz_si256(u, KV(K_DNLOW28)))
        return encode8_4(p, u);
    return 0;
}

/* Encodes 4 zigzagged values u from 64-bit lanes, x their spread56:
 * the continuation bits from which groups above are
 * nonzero, then one store per value, each overwriting the junk past the
 * previous value. When wide, values may be 2^56 or more: a 2-byte tail
 * (bits 56-63) goes with each lane and the stores are 16 bytes; else they
 * are 8. Room: 16 (or 8) bytes at the last value's start. */
/* Each 64-bit lane's bits 0-55 as 8 groups of 7, one a byte, no
 * continuation bits yet (the first step drops bits 56-63). */
AVKI_KTARGET static inline __m256i spread56(__m256i u)
{
    __m256i x = _mm256_or_si256(_mm256_and_si256(u, KV(K_QLOW28)),
                                _mm256_and_si256(_mm256_slli_epi64(u, 4), KV(K_QHIGH28)));
    x = _mm256_or_si256(_mm256_and_si256(x, KV(K_D3FFF)),
                        _mm256_and_si256(_mm256_slli_epi64(x, 2), KV(K_D3FFF0000)));
    return _mm256_or_si256(_mm256_and_si256(x, KV(K_W7F)),
                           _mm256_and_si256(_mm256_slli_epi64(x, 1), KV(K_W7F00)));
}

AVKI_KTARGET static inline size_t encode4(uint8_t *p, __m256i u, __m256i x, int wide)
{
    const __m256i zero = _mm256_setzero_si256(), one8 = KV(K_B01);
    __m256i above, lens;
    uint32_t packed, sums;
    /* Byte b of above is 1 when some group above b is nonzero (the tail
     * counts as group 8): b continues. A suffix OR in three steps. */
    above = _mm256_srli_epi64(_mm256_min_epu8(x, one8), 8);
    if (wide)
        above = _mm256_or_si256(above, _mm256_slli_epi64(_mm256_min_epu8(_mm256_srli_epi64(u, 56), one8), 56));
    above = _mm256_or_si256(above, _mm256_srli_epi64(above, 8));
    above = _mm256_or_si256(above, _mm256_srli_epi64(above, 16));
    above = _mm256_or_si256(above, _mm256_srli_epi64(above, 32));
    x = _mm256_or_si256(x, _mm256_slli_epi64(above, 7)); /* bit 0 of a byte to its bit 7 */
    /* Length: 1 + the continuing bytes (a sum of bytes per lane), + 1 when
     * byte 8 continues (bit 63). */
    lens = _mm256_add_epi64(_mm256_sad_epu8(above, zero), KV(K_Q1));
    if (wide)
        lens = _mm256_add_epi64(lens, _mm256_srli_epi64(u, 63));
    /* The four lengths as bytes of one word. */
    lens = _mm256_shuffle_epi8(lens, _mm256_setr_epi8(0, 8, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                                      -1, -1, -1, -1, -1, 0, 8, -1, -1, -1, -1, -1, -1,
                                                      -1, -1, -1, -1, -1, -1));
    packed = (uint32_t)_mm_cvtsi128_si32(
        _mm_or_si128(_mm256_castsi256_si128(lens), _mm256_extracti128_si256(lens, 1)));
    sums = packed * 0x01010100u; /* byte v: where value v starts (sums below 41) */
    if (wide) {
        /* Byte 8: bits 56-63 (bit 63 doubles as its continuation bit);
         * byte 9: bit 63. */
        __m256i tail = _mm256_add_epi64(_mm256_srli_epi64(u, 56),
                                        _mm256_slli_epi64(_mm256_srli_epi64(u, 63), 8));
        __m256i a = _mm256_unpacklo_epi64(x, tail); /* values 0 and 2 */
        __m256i b = _mm256_unpackhi_epi64(x, tail); /* values 1 and 3 */
        _mm_storeu_si128((__m128i *)p, _mm256_castsi256_si128(a));
        _mm_storeu_si128((__m128i *)(p + ((sums >> 8) & 0xff)), _mm256_castsi256_si128(b));
        _mm_storeu_si128((__m128i *)(p + ((sums >> 16) & 0xff)), _mm256_extracti128_si256(a, 1));
        _mm_storeu_si128((__m128i *)(p + (sums >> 24)), _mm256_extracti128_si256(b, 1));
    } else {
        __m128i lo = _mm256_castsi256_si128(x), hi = _mm256_extracti128_si256(x, 1);
        _mm_storel_epi64((__m128i *)p, lo);
        _mm_storeh_pi((__m64 *)(void *)(p + ((sums >> 8) & 0xff)), _mm_castsi128_ps(lo));
        _mm_storel_epi64((__m128i *)(p + ((sums >> 16) & 0xff)), hi);
        _mm_storeh_pi((__m64 *)(void *)(p + (sums >> 24)), _mm_castsi128_ps(hi));
    }
    return (packed * 0x01010101u) >> 24;
}

/* 8 values of 10 bytes each (bit 63 set in every zigzagged value, as
 * in columns of large negative numbers or hashes): every byte continues,
 * so no per-value length work; each value is its 8 spread bytes with all
 * continuation bits, then bits 56-63 (bit 63 doubling as the continuation
 * bit) and a final 1. Writes 80 bytes plus up to 6 of junk past them. */
AVKI_KTARGET static inline size_t encode8_10(uint8_t *p, __m256i a, __m256i b, __m256i xa,
                                             __m256i xb)
{
    const __m256i high = KV(K_B80), nine = _mm256_slli_epi64(KV(K_Q1), 8);
    __m256i ta = _mm256_add_epi64(_mm256_srli_epi64(a, 56), nine);
    __m256i tb = _mm256_add_epi64(_mm256_srli_epi64(b, 56), nine);
    __m256i a02, a13, b02, b13;
    xa = _mm256_or_si256(xa, high);
    xb = _mm256_or_si256(xb, high);
    a02 = _mm256_unpacklo_epi64(xa, ta); /* values 0 and 2 */
    a13 = _mm256_unpackhi_epi64(xa, ta); /* values 1 and 3 */
    b02 = _mm256_unpacklo_epi64(xb, tb);
    b13 = _mm256_unpackhi_epi64(xb, tb);
    _mm_storeu_si128((__m128i *)p, _mm256_castsi256_si128(a02));
    _mm_storeu_si128((__m128i *)(p + 10), _mm256_castsi256_si128(a13));
    _mm_storeu_si128((__m128i *)(p + 20), _mm256_extracti128_si256(a02, 1));
    _mm_storeu_si128((__m128i *)(p + 30), _mm256_extracti128_si256(a13, 1));
    _mm_storeu_si128((__m128i *)(p + 40), _mm256_castsi256_si128(b02));
    _mm_storeu_si128((__m128i *)(p + 50), _mm256_castsi256_si128(b13));
    _mm_storeu_si128((__m128i *)(p + 60), _mm256_extracti128_si256(b02, 1));
    _mm_storeu_si128((__m128i *)(p + 70), _mm256_extracti128_si256(b13, 1));
    return 80;
}

/* 8 zigzagged ints (below 2^32) in 32-bit slots, some of 5 bytes: four
 * 7-bit groups spread in each slot and the fifth (bits 28-31) beside it,
 * the continuation bits and lengths from four compares, then one 8-byte
 * store per value at its prefix-sum offset (each overwriting the junk
 * past the one before). Writes up to 43 bytes. */
AVKI_KTARGET static inline size_t encode8_5(uint8_t *p, __m256i u)
{
    /* Unsigned compares as signed ones, both sides biased by 2^31. */
    const __m256i bias = _mm256_set1_epi32(INT32_MIN);
    __m256i b = _mm256_xor_si256(u, bias);
    __m256i c7 = _mm256_cmpgt_epi32(b, _mm256_set1_epi32((int32_t)(0x7fu ^ 0x80000000u)));
    __m256i c14 = _mm256_cmpgt_epi32(b, _mm256_set1_epi32((int32_t)(0x3fffu ^ 0x80000000u)));
    __m256i c21 = _mm256_cmpgt_epi32(b, _mm256_set1_epi32((int32_t)(0x1fffffu ^ 0x80000000u)));
    __m256i c28 = _mm256_cmpgt_epi32(b, _mm256_set1_epi32((int32_t)(0xfffffffu ^ 0x80000000u)));
    __m256i x = _mm256_or_si256(_mm256_and_si256(u, KV(K_D3FFF)),
                                _mm256_and_si256(_mm256_slli_epi32(u, 2), KV(K_D3FFF0000)));
    __m256i cont, fifth, lens, lo, hi;
    uint64_t word, at;
    x = _mm256_or_si256(_mm256_and_si256(x, KV(K_W7F)),
                        _mm256_and_si256(_mm256_slli_epi32(x, 1), KV(K_W7F00)));
    cont = _mm256_or_si256(_mm256_or_si256(_mm256_and_si256(c7, KV(K_D80)),
                                           _mm256_and_si256(c14, KV(K_D8000))),
                           _mm256_or_si256(_mm256_and_si256(c21, KV(K_D800000)),
                                           _mm256_and_si256(c28, bias)));
    x = _mm256_or_si256(x, cont);
    fifth = _mm256_srli_epi32(u, 28);
    /* Lengths 1 + the four compares (each -1 when set), one byte each. */
    lens = _mm256_sub_epi32(_mm256_sub_epi32(_mm256_set1_epi32(1), c7),
                            _mm256_add_epi32(_mm256_add_epi32(c14, c21), c28));
    lens = _mm256_shuffle_epi8(lens, _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1,
                                                      -1, -1, -1, -1, 0, 4, 8, 12, -1, -1, -1, -1,
                                                      -1, -1, -1, -1, -1, -1, -1, -1));
    word = (uint32_t)_mm_cvtsi128_si32(_mm256_castsi256_si128(lens)) |
           ((uint64_t)(uint32_t)_mm_cvtsi128_si32(_mm256_extracti128_si256(lens, 1)) << 32);
    at = word * 0x0101010101010100ULL; /* byte k: where value k starts (at most 35) */
    lo = _mm256_unpacklo_epi32(x, fifth); /* values 0, 1 | 4, 5 as 64-bit slots */
    hi = _mm256_unpackhi_epi32(x, fifth); /* values 2, 3 | 6, 7 */
    {
        __m128i l0 = _mm256_castsi256_si128(lo), h0 = _mm256_castsi256_si128(hi);
        __m128i l1 = _mm256_extracti128_si256(lo, 1), h1 = _mm256_extracti128_si256(hi, 1);
        _mm_storel_epi64((__m128i *)p, l0);
        _mm_storeh_pi((__m64 *)(void *)(p + ((at >> 8) & 0xff)), _mm_castsi128_ps(l0));
        _mm_storel_epi64((__m128i *)(p + ((at >> 16) & 0xff)), h0);
        _mm_storeh_pi((__m64 *)(void *)(p + ((at >> 24) & 0xff)), _mm_castsi128_ps(h0));
        _mm_storel_epi64((__m128i *)(p + ((at >> 32) & 0xff)), l1);
        _mm_storeh_pi((__m64 *)(void *)(p + ((at >> 40) & 0xff)), _mm_castsi128_ps(l1));
        _mm_storel_epi64((__m128i *)(p + ((at >> 48) & 0xff)), h1);
        _mm_storeh_pi((__m64 *)(void *)(p + (at >> 56)), _mm_castsi128_ps(h1));
    }
    return (size_t)((word * 0x0101010101010101ULL) >> 56);
}

AVKI_KTARGET static inline __m256i zigzag64(__m256i v)
{
    return _mm256_xor_si256(_mm256_slli_epi64(v, 1),
                            _mm256_cmpgt_epi64(_mm256_setzero_si256(), v));
}

/* Groups of 8 values, by how large the largest is: below 2^28 they fit
 * 32-bit slots and the table-driven encode8_small packs them (one store of
 * 8 bytes when all are 1-byte values); below 2^56, a group whose 8 values
 * have one length (5-8 bytes) packs with a constant shuffle, others go 4
 * at a time through encode4's computed offsets; larger values need the
 * 2-byte tails of encode4's wide form. */
AVKI_KTARGET static size_t avx2_encode_longs(uint8_t *out, const int64_t *in, size_t n)
{
    uint8_t *p = out;
    size_t i = 0;
    __m256i even;
    tables_need(); /* before any table is read */
    even = KV(K_EVEN);
    /* Room: 10 bytes a value. With 9 values left, the 8th of a group
     * starts at most 70 bytes in and its 16-byte store ends by 86 < 90. */
    for (; n - i >= 9; i += 8) {
        __m256i a = zigzag64(_mm256_loadu_si256((const __m256i *)(in + i)));
        __m256i b = zigzag64(_mm256_loadu_si256((const __m256i *)(in + i + 4)));
        __m256i xa, xb;
        if (_mm256_testz_si256(_mm256_or_si256(a, b), KV(K_QNLOW28))) {
            /* The low dwords of both, in order: 8 values in 32-bit slots. */
            __m256i u = _mm256_permute2x128_si256(_mm256_permutevar8x32_epi32(a, even),
                                                  _mm256_permutevar8x32_epi32(b, even), 0x20);
            p += encode8_small(p, u);
            continue;
        }
        xa = spread56(a);
        xb = spread56(b);
        if (_mm256_testz_si256(_mm256_or_si256(a, b), KV(K_QTOP8))) { /* below 2^56 */
            /* All 8 of one length (5..8 here), as runs of timestamps or
             * ids often are: the zero groups say so, and a constant
             * shuffle packs them. */
            /* za, zb: the zero groups of the spread values, one bit a byte.
             * l is value 0's length (its highest nonzero group, plus one);
             * every value has length l when, in each lane, byte l - 1 is
             * nonzero and bytes l..7 are zero. */
            uint32_t za = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(xa, _mm256_setzero_si256()));
            uint32_t zb = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(xb, _mm256_setzero_si256()));
            unsigned l = 32u - (unsigned)_lzcnt_u32((~za & 0xff) | 1); /* value 0's length */
            uint32_t keep = ((0xffu << (l - 1)) & 0xff) * 0x01010101u;
            uint32_t zeros = ((0xffu << l) & 0xff) * 0x01010101u;
            if ((za & keep) == zeros && (zb & keep) == zeros) {
                const __m256i cont = _mm256_load_si256((const __m256i *)enc_uni_cont[l]);
                const __m256i ctrl = _mm256_load_si256((const __m256i *)enc_uni_ctrl[l]);
                xa = _mm256_shuffle_epi8(_mm256_or_si256(xa, cont), ctrl);
                xb = _mm256_shuffle_epi8(_mm256_or_si256(xb, cont), ctrl);
                _mm_storeu_si128((__m128i *)p, _mm256_castsi256_si128(xa));
                _mm_storeu_si128((__m128i *)(p + 2 * l), _mm256_extracti128_si256(xa, 1));
                _mm_storeu_si128((__m128i *)(p + 4 * l), _mm256_castsi256_si128(xb));
                _mm_storeu_si128((__m128i *)(p + 6 * l), _mm256_extracti128_si256(xb, 1));
                p += 8 * l;
                continue;
            }
            p += encode4(p, a, xa, 0);
            p += encode4(p, b, xb, 0);
        } else if ((_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_and_si256(a, b))) & 15) == 15) {
            p += encode8_10(p, a, b, xa, xb);
        } else {
            p += encode4(p, a, xa, 1);
            p += encode4(p, b, xb, 1);
        }
    }
    /* Up to 8 left (a record's run of long fields is often this short):
     * groups of 4 where their stores stay in the room of 10 bytes a
     * value (16-byte stores need a fifth value's room), then one at a time. */
    while (n - i >= 4) {
        __m256i a = zigzag64(_mm256_loadu_si256((const __m256i *)(in + i)));
        int wide = !_mm256_testz_si256(a, KV(K_QTOP8));
        if (wide && n - i < 5)
            break;
        p += encode4(p, a, spread56(a), wide);
        i += 4;
    }
    for (; i < n; i++)
        p += encode_one(p, avk_zigzag_encode64(in[i]));
    return (size_t)(p - out);
}

AVKI_KTARGET static size_t avx2_encode_ints(uint8_t *out, const int32_t *in, size_t n)
{
    uint8_t *p = out;
    size_t i = 0;
    tables_need();
    /* Room: 5 bytes a value plus 10, so 8 values leave 50 >= 32. */
    for (; n - i >= 8; i += 8) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(in + i));
        __m256i u = _mm256_xor_si256(_mm256_slli_epi32(v, 1), _mm256_srai_epi32(v, 31));
        size_t w = encode8_small(p, u);
        if (AVK_LIKELY(w != 0)) {
            p += w;
            continue;
        }
        /* 5-byte values: 8-byte stores, the 8th ending by 5 * 7 + 8 < 50. */
        p += encode8_5(p, u);
    }
    for (; i < n; i++)
        p += encode_one(p, avk_zigzag_encode32(in[i]));
    return (size_t)(p - out);
}

static int avx2_runnable(const avki_cpu *cpu)
{
    return cpu->avx2 && cpu->bmi1 && cpu->lzcnt && cpu->popcnt;
}

const avki_kernels avki_kernels_avx2 = {
    "avx2", avx2_runnable, avx2_decode_longs, avx2_decode_ints,
    avx2_encode_longs, avx2_encode_ints,
};
