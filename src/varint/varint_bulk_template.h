/* Bulk varint loops shared by the scalar and BMI2 kernels; each kernel file
 * defines the word operations and the target attribute, then includes this.
 *
 * Required before inclusion:
 *   AVKI_KFN(name)            names a function of this kernel
 *   AVKI_KTARGET              function attributes (may be empty)
 *   AVKI_EXTRACT(w, bits)     value of the varint whose bytes are the set
 *                             bytes of mask bits within word w
 *   AVKI_EXTRACT0(x, len)     value of the varint of len bytes (1 to 8) at
 *                             the start of x, whose other bits are clear
 *   AVKI_ENCODE(p, u)         encodes u at p (10 writable bytes), returns len
 *   AVKI_ENCODE_ANY(p, u)     the same with no branch on the length, and
 *                             advances p
 *   AVKI_SPREAD56(u)          the 7-bit groups of u (below 2^56) spread
 *                             into the low 7 bits of 8 bytes
 *   AVKI_SPREAD_PAIR28(a, b)  the same for two values below 2^28, a's
 *                             groups in bytes 0-3, b's in bytes 4-7 (a and
 *                             b are uint64_t)
 * Optional:
 *   AVKI_HAS_PEXT             defined where AVKI_EXTRACT is one instruction.
 *                             mixed_longs then packs its values with it and
 *                             takes up to two values from a word of longer
 *                             ones, and decode_ints every value that ends in
 *                             a word. Without it (shifts would cost more than
 *                             they save): shifts for 1-2 byte values and one
 *                             longer value a word in mixed_longs, one value
 *                             a round by the single-value rule in decode_ints
 *
 * How the loops are planned. Decoding has one serial dependency: a value
 * starts where the one before it ends, which is known only once that
 * value's bytes are loaded and its stop bit found. The loops keep that
 * chain short rather than making each value cheap:
 *   decode_longs  runs of one length (run_longs): the next start is p + len
 *                 with len a constant, so the CPU decodes 8 values in
 *                 parallel, and a value of another length costs one
 *                 mispredicted branch where the run ends. When runs keep
 *                 breaking it switches to mixed_longs for a while (short
 *                 values several to a loaded word, their positions from
 *                 bit operations on it; longer ones one or two a word),
 *                 then tries runs again (data changes character along a
 *                 column).
 *   decode_ints   every value that ends in the 8-byte word at p, from that
 *                 word alone; an int ends within 5 bytes, so a word with no
 *                 stop bit holds a malformed value.
 * Guards: each fast loop runs only while the worst case of one round is
 * readable (and its output slots free), so rounds check no bounds per
 * value; what remains goes through the word decoder while 10 bytes are
 * readable and avki_decode_careful byte by byte after, which never reads
 * at or past in + len. A malformed value ends the call with *consumed at
 * its first byte: the caller's avk_varint_explain says what is wrong, so
 * kernels never format errors.
 * Encoding has no chain (each length is known from its value), so there
 * the enemies are the branch on the length and the work per value: a run
 * of up to 8 groups of 8 goes one way, chosen by its first group's OR, the
 * cheapest way its values fit (see AVKI_ENCODE_BULK).
 */
#include "avrokit/varint.h"
#include "varint/varint_word.h"

/* Decodes up to 8 values of exactly len bytes (a constant after inlining)
 * at *pp, stopping at the first value of another length. */
AVKI_KTARGET static inline __attribute__((always_inline)) size_t
AVKI_KFN(run_fixed)(const uint8_t **pp, const unsigned len, int64_t *out)
{
    const uint8_t *p = *pp;
    size_t k;
    if (len <= 8) {
        /* hm: the continuation bits of len bytes; cm: what they are in a
         * value of exactly len bytes (set on all but the last). A value of
         * another length fails (w & hm) == cm and ends the run. The load
         * reads up to 8 - len bytes past the value: within the 80 bytes
         * the caller guarantees. */
        const uint64_t bytes = avki_len_bytes(len);
        const uint64_t hm = AVKI_HIGH_BITS & bytes, cm = AVKI_HIGH_BITS & (bytes >> 8);
        for (k = 0; k < 8; k++) {
            uint64_t w = avki_load64(p + k * len);
            if ((w & hm) != cm)
                break;
            out[k] = avk_zigzag_decode64(AVKI_EXTRACT0(w & AVKI_LOW7_BITS & bytes, len));
        }
    } else {
        /* 9 or 10 bytes: 8 continuing bytes, then the 9th stops (len 9),
         * or continues into a 10th holding only bit 63 (len 10). Anything
         * else, malformed values included, just ends the run: the word
         * decoder then meets the value and says whether it is bad. */
        for (k = 0; k < 8; k++) {
            const uint8_t *q = p + k * len;
            uint64_t w = avki_load64(q), b8 = q[8], v;
            if ((w & AVKI_HIGH_BITS) != AVKI_HIGH_BITS)
                break;
            v = AVKI_EXTRACT0(w & AVKI_LOW7_BITS, 8);
            if (len == 9) {
                if (b8 >= 0x80)
                    break;
                v |= b8 << 56;
            } else {
                uint64_t b9 = q[9];
                if (b8 < 0x80 || b9 > 1)
                    break;
                v |= ((b8 & 0x7f) << 56) | (b9 << 63);
            }
            out[k] = avk_zigzag_decode64(v);
        }
    }
    *pp = p + k * len;
    return k;
}

/* Decodes up to 8 values of exactly len bytes (1 to 10) at *pp, stopping
 * at the first value of another length. The length is the same for the
 * whole run, so the next position never waits for this value's bytes: a
 * run of equal lengths decodes values in parallel, where deriving each
 * length from the bytes would chain load -> length -> load. One loop per
 * length, so masks and packing are constants. The caller guarantees 8 free
 * slots in out and 80 readable bytes. Returns the count. */
AVKI_KTARGET static size_t AVKI_KFN(run_longs)(const uint8_t **pp, unsigned len, int64_t *out)
{
    switch (len) {
    case 1: {
        uint64_t w = avki_load64(*pp), r;
        size_t k;
        if (w & AVKI_HIGH_BITS)
            return AVKI_KFN(run_fixed)(pp, 1, out);
        /* Eight 1-byte values: zigzag each byte in place (the results fit
         * in a signed byte), then sign-extend. (w >> 1) & LOW7 is each
         * byte shifted right (the bit moved in from the next byte lands in
         * bit 7 and is masked off); (w & 0x01..) * 0xff is 0xff in each
         * byte whose low bit is set (no carries: a byte's product is at
         * most 0xff). Their XOR is zigzag's (u >> 1) ^ -(u & 1) per byte. */
        r = ((w >> 1) & AVKI_LOW7_BITS) ^ ((w & 0x0101010101010101ULL) * 0xff);
        for (k = 0; k < 8; k++)
            out[k] = (int8_t)(uint8_t)(r >> (8 * k));
        *pp += 8;
        return 8;
    }
    case 2: return AVKI_KFN(run_fixed)(pp, 2, out);
    case 3: return AVKI_KFN(run_fixed)(pp, 3, out);
    case 4: return AVKI_KFN(run_fixed)(pp, 4, out);
    case 5: return AVKI_KFN(run_fixed)(pp, 5, out);
    case 6: return AVKI_KFN(run_fixed)(pp, 6, out);
    case 7: return AVKI_KFN(run_fixed)(pp, 7, out);
    case 8: return AVKI_KFN(run_fixed)(pp, 8, out);
    case 9: return AVKI_KFN(run_fixed)(pp, 9, out);
    default: return AVKI_KFN(run_fixed)(pp, 10, out);
    }
}

/* Decodes 8 to 64 values where lengths vary, in 8 rounds of one 8-byte
 * word each; the caller guarantees 64 free slots and 96 readable bytes.
 * Returns the count, or 0 with *pp at a malformed value.
 * A word with no two continuation bytes in a row starts with values of 1
 * or 2 bytes: with PEXT every value that ends in the word (4 to 8), one
 * PEXT each; without, the first four by shifts. Their ends come from the
 * stop bits (one blsr each), not from loads, so they do not wait on each
 * other. Any other word: with PEXT, the first two values that end in it
 * (two PEXTs, 1 or 2 values counted without a branch; a word with no stop
 * holds a 9- or 10-byte value); without, one value by the word decoder.
 * Which way a word goes is a branch, but short values come in stretches
 * (Mixed1-2 takes the first way every time, Mixed1-10 mostly the second).
 * The count of rounds is fixed: a loop that ran until 8 values were out
 * ended after a random number of rounds and mispredicted its exit once a
 * call.
 * Bounds: a round adds at most 8 values (64 in all) and reads at most 10
 * bytes from where it starts and moves at most 10, so the last read ends
 * by byte 80. A malformed value breaks out with the values before it
 * counted (*pp at it); whichever way the caller decodes next stops at the
 * same byte. In the two-value way the second slot is written even when it
 * holds no value: slots past the count are scratch. */
AVKI_KTARGET static inline size_t AVKI_KFN(mixed_longs)(const uint8_t **pp, int64_t *out)
{
    const uint8_t *p = *pp;
    size_t c = 0, round;
    for (round = 0; round < 8; round++) {
        uint64_t w = avki_load64(p);
        uint64_t cont = w & AVKI_HIGH_BITS;
        if (!(cont & (cont >> 8))) {
            uint64_t stops = ~w & AVKI_HIGH_BITS;
#ifdef AVKI_HAS_PEXT
            /* Every value that ends in the word (4 to 8), one PEXT each:
             * through & ~done selects one value's bytes. */
            uint64_t done = 0, through;
            do {
                through = stops ^ (stops - 1);
                out[c++] = avk_zigzag_decode64(AVKI_EXTRACT(w, through & ~done));
                done = through;
                stops &= stops - 1;
            } while (stops);
            p += (64u - (unsigned)__builtin_clzll(done)) >> 3;
#else
            /* Without PEXT, a 1-2 byte value at bit start packs with two
             * shifts: the second byte's bits are kept only when the first
             * byte continues (bit 7 of x). */
            uint64_t x, v;
            unsigned start = 0, e, j;
#pragma GCC unroll 4
            for (j = 0; j < 4; j++) {
                e = (unsigned)__builtin_ctzll(stops);
                stops &= stops - 1;
                x = w >> start;
                v = (x & 0x7f) | ((x >> 1) & ((x & 0x80) * 0x7f));
                out[c + j] = avk_zigzag_decode64(v);
                start = e + 1;
            }
            p += start >> 3;
            c += 4;
#endif
        } else {
#ifdef AVKI_HAS_PEXT
            uint64_t stops = ~w & AVKI_HIGH_BITS;
            if (AVK_LIKELY(stops != 0)) {
                /* The first two values that end in the word (or the only
                 * one): two PEXTs, the position from the higher stop. */
                uint64_t first = stops ^ (stops - 1), rest = stops & (stops - 1);
                uint64_t upto = stops ^ (rest & (rest - 1)); /* the two lowest stops */
                out[c] = avk_zigzag_decode64(AVKI_EXTRACT(w, first));
                out[c + 1] = avk_zigzag_decode64(AVKI_EXTRACT(w, (rest ^ (rest - 1)) & ~first));
                c += 1 + (size_t)(rest != 0);
                p += (64u - (unsigned)__builtin_clzll(upto)) >> 3;
            } else { /* 9 or 10 bytes, or malformed */
                uint64_t u;
                size_t k = avki_decode_tail_9_10(p, w, &u);
                if (!k)
                    break;
                out[c++] = avk_zigzag_decode64(u);
                p += k;
            }
#else
            uint64_t u;
            size_t k = avki_decode_u64_word(p, &u);
            if (!k)
                break;
            out[c++] = avk_zigzag_decode64(u);
            p += k;
#endif
        }
    }
    *pp = p;
    return c;
}

AVKI_KTARGET static size_t AVKI_KFN(decode_longs)(const uint8_t *in, size_t len, int64_t *out,
                                                   size_t n, size_t *consumed)
{
    const uint8_t *p = in, *end = in + len;
    size_t i = 0;
    /* Runs of one length take run_longs (chain-free while the length holds);
     * when the length keeps changing, mixed_longs for a while,
     * then a new try. misses counts recent broken runs. */
    unsigned run_len = 0, misses = 0, mixed_left = 0;
    /* A round takes at most 16 values (a run takes 8, or a broken run 7
     * and one more; mixed_longs, up to 64, only while 64 slots are free)
     * and reads at most 80 bytes (8 words of mixed_longs, 8 values of 10
     * bytes, or 7 of a broken run and the word decoder's 10-byte load);
     * 96 keeps a margin. */
    while (n - i >= 16 && (size_t)(end - p) >= 96) {
        uint64_t u;
        size_t k;
        if (mixed_left && n - i >= 64) {
            /* 0 only when the first value is malformed: p stands at it. */
            k = AVKI_KFN(mixed_longs)(&p, out + i);
            if (!k)
                goto done;
            i += k;
            mixed_left--;
            continue;
        }
        if (run_len) {
            k = AVKI_KFN(run_longs)(&p, run_len, out + i);
            i += k;
            if (k == 8) {
                misses = 0;
                continue;
            }
        }
        /* The run broke (or none yet): one value by the word decoder, whose
         * length starts the next run. */
        k = avki_decode_u64_word(p, &u);
        if (!k)
            goto done;
        out[i++] = avk_zigzag_decode64(u);
        p += k;
        run_len = (unsigned)k;
        /* misses counts broken runs since the last whole one. Three in a
         * row: lengths vary too much for runs to pay (each break costs a
         * misprediction and a value through the word decoder), so 16 calls
         * of mixed_longs (128 values or more) before runs are tried again
         * with the length of the last value; fewer when 64 slots are no
         * longer free. */
        if (++misses >= 3) {
            misses = 0;
            mixed_left = 16;
        }
    }
    /* The last values (fewer than 16, or near the end of the input): the
     * word decoder while it can load 10 bytes, then byte by byte. */
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
    /* A round decodes at most 8 values (one per byte of the word) and reads
     * 8 bytes (10 in the step decoder below); 16 readable bytes cover it. */
    while (n - i >= 8 && (size_t)(end - p) >= 16) {
        uint64_t w = avki_load64(p);
        uint64_t stops = ~w & AVKI_HIGH_BITS;
        uint64_t done = 0;
        if (stops == AVKI_HIGH_BITS) {
            /* Eight 1-byte values, the common case for small ints: tested
             * first, before any per-value work. */
            size_t k;
            for (k = 0; k < 8; k++)
                out[i + k] = avk_zigzag_decode32((uint32_t)(w >> (8 * k)) & 0xff);
            p += 8;
            i += 8;
            continue;
        }
        if (stops == 0)
            goto done; /* 9 or more bytes: malformed for an int */
#ifndef AVKI_HAS_PEXT
        /* Without one-instruction extraction: one value a round by the
         * single-value rule (1 and 2 bytes by predictable branches). */
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
            /* lo: the first bit of the value's first byte, hi: one past its
             * stop bit, so hi - lo is 8 times its length. An int takes at
             * most 5 bytes and 32 bits: stop at a longer or wider one, at
             * its first byte, for the caller to explain. */
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
    /* At most 7 values or 15 bytes remain: byte by byte, with the int rules. */
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

/* Whether the 8 values at in all encode to 1 byte (-64 to 63), and then
 * their encodings packed into *w. The low bytes are packed as they are and
 * zigzagged all at once (in that range a byte's bit 6 is its value's
 * sign): cheaper than zigzagging each value, which gcc vectorizes and
 * gathers back through memory. */
#define AVKI_PACK8_BYTES(name, type)                                                  \
    AVKI_KTARGET static inline int AVKI_KFN(name)(const type *in, uint64_t *w)        \
    {                                                                                 \
        uint64_t x = 0, far = 0, sign;                                                \
        unsigned k;                                                                   \
        for (k = 0; k < 8; k++) {                                                     \
            far |= (uint64_t)(int64_t)in[k] + 64;                                     \
            x |= (uint64_t)(uint8_t)in[k] << (8 * k);                                 \
        }                                                                             \
        sign = (x >> 6) & 0x0101010101010101ULL;                                      \
        *w = ((x << 1) & 0xfefefefefefefefeULL) ^ (sign * 0xff);                      \
        return far < 0x80;                                                            \
    }
AVKI_PACK8_BYTES(pack8_longs, int64_t)
AVKI_PACK8_BYTES(pack8_ints, int32_t)
#undef AVKI_PACK8_BYTES

/* The ways of encode_longs and encode_ints, each a loop out of line:
 * inline in one loop, with the others' state live, gcc loaded their masks
 * again for every value (bulk ran up to 20% slower than a caller's loop of
 * single encodes); alone, each holds its constants in registers. Their
 * loops are unrolled: the loop's own work is a tenth of a value's, and
 * unrolled they ran 3-9% faster (A/B on Zen 4, scalar and bmi2).
 *   run_bytes  groups of eight 1-byte values, one store a group, until a
 *              group holds a longer value; returns the values done;
 *   run_short  the single-value rule, whose one branch (below 2^14 or
 *              not) is always taken the same way on 1-2 byte values;
 *   run_28     values below 2^28 (1-4 bytes) two at a time: one spread
 *              for both, one 4-byte store each;
 *   run_56     values below 2^56 (1-8 bytes): one spread and one 8-byte
 *              store each, bytes 8 and 9 left alone;
 *   run_any    AVKI_ENCODE_ANY, no branch on the length.
 * run_28 and run_56 are chosen by a run's first group; a later pair (run_28)
 * or value (run_56) too large for them goes through AVKI_ENCODE_ANY (a
 * branch the predictor learns not to take). Ints, below 2^32 zigzagged,
 * never need run_any or run_56's fallback; the compiler drops them. */
#define AVKI_ENCODE_RUNS(type, zigzag, pack8_bytes, run_bytes, run_short, run_28, run_56,  \
                         run_any)                                                     \
    AVKI_KTARGET static __attribute__((noinline)) size_t AVKI_KFN(run_bytes)(         \
        uint8_t **pp, const type *in, size_t count)                                    \
    {                                                                                 \
        uint8_t *p = *pp;                                                             \
        size_t i;                                                                     \
        for (i = 0; i < count; i += 8) {                                              \
            uint64_t w;                                                               \
            if (!AVKI_KFN(pack8_bytes)(in + i, &w))                                   \
                break;                                                                \
            avki_store64(p, w);                                                       \
            p += 8;                                                                   \
        }                                                                             \
        *pp = p;                                                                      \
        return i;                                                                     \
    }                                                                                 \
    AVKI_KTARGET static __attribute__((noinline)) uint8_t *AVKI_KFN(run_short)(        \
        uint8_t *p, const type *in, size_t count)                                      \
    {                                                                                 \
        size_t i;                                                                     \
        _Pragma("GCC unroll 4")                                                       \
        for (i = 0; i < count; i++)                                                   \
            p += AVKI_ENCODE(p, zigzag(in[i]));                                       \
        return p;                                                                     \
    }                                                                                 \
    AVKI_KTARGET static __attribute__((noinline)) uint8_t *AVKI_KFN(run_any)(          \
        uint8_t *p, const type *in, size_t count)                                      \
    {                                                                                 \
        size_t i;                                                                     \
        _Pragma("GCC unroll 4")                                                       \
        for (i = 0; i < count; i++)                                                   \
            AVKI_ENCODE_ANY(p, (uint64_t)zigzag(in[i]));                              \
        return p;                                                                     \
    }                                                                                 \
    AVKI_KTARGET static __attribute__((noinline)) uint8_t *AVKI_KFN(run_28)(          \
        uint8_t *p, const type *in, size_t count)                                      \
    {                                                                                 \
        size_t i;                                                                     \
        _Pragma("GCC unroll 2")                                                       \
        for (i = 0; i < count; i += 2) {                                              \
            uint64_t u0 = zigzag(in[i]), u1 = zigzag(in[i + 1]), x;                   \
            unsigned z0, z1;                                                          \
            if (AVK_UNLIKELY((u0 | u1) >= (1ULL << 28))) {                            \
                AVKI_ENCODE_ANY(p, u0);                                               \
                AVKI_ENCODE_ANY(p, u1);                                               \
                continue;                                                             \
            }                                                                         \
            x = AVKI_SPREAD_PAIR28(u0, u1);                                           \
            z0 = (unsigned)__builtin_clzll(u0 | 1);                                   \
            z1 = (unsigned)__builtin_clzll(u1 | 1);                                   \
            avki_store32(p, (uint32_t)(x | avk_varint_cont_by_clz[z0]));              \
            p += avk_varint_len_by_clz[z0];                                           \
            avki_store32(p, (uint32_t)((x >> 32) | avk_varint_cont_by_clz[z1]));      \
            p += avk_varint_len_by_clz[z1];                                           \
        }                                                                             \
        return p;                                                                     \
    }                                                                                 \
    AVKI_KTARGET static __attribute__((noinline)) uint8_t *AVKI_KFN(run_56)(          \
        uint8_t *p, const type *in, size_t count)                                      \
    {                                                                                 \
        size_t i;                                                                     \
        _Pragma("GCC unroll 4")                                                       \
        for (i = 0; i < count; i++) {                                                 \
            uint64_t u = zigzag(in[i]);                                               \
            unsigned z = (unsigned)__builtin_clzll(u | 1);                            \
            if (AVK_UNLIKELY(u >= (1ULL << 56))) {                                    \
                AVKI_ENCODE_ANY(p, u);                                                \
                continue;                                                             \
            }                                                                         \
            avki_store64(p, AVKI_SPREAD56(u) | avk_varint_cont_by_clz[z]);            \
            p += avk_varint_len_by_clz[z];                                            \
        }                                                                             \
        return p;                                                                     \
    }
AVKI_ENCODE_RUNS(int64_t, avk_zigzag_encode64, pack8_longs, run_bytes_longs, run_short_longs,
                 run_28_longs, run_56_longs, run_any_longs)
AVKI_ENCODE_RUNS(int32_t, avk_zigzag_encode32, pack8_ints, run_bytes_ints, run_short_ints,
                 run_28_ints, run_56_ints, run_any_ints)
#undef AVKI_ENCODE_RUNS

/* Groups of 8 values in runs that go one way, chosen by the OR of the
 * run's first group (it has the maximum's highest bit): 1-byte groups
 * while they last when it is below 2^7; else up to 8 groups of run_short,
 * run_28, run_56 or run_any, the first whose values it fits. Columns
 * change character slowly, so a run is mostly of its kind and its one way
 * mispredicts nothing. Every way stores whole words past the value (10
 * bytes at most, the bytes past the encoding rewritten by the next value):
 * the caller's room of 10 bytes a value covers the last store. */
#define AVKI_ENCODE_BULK(name, type, zigzag, run_bytes, run_short, run_28, run_56, run_any) \
    AVKI_KTARGET static size_t AVKI_KFN(name)(uint8_t *out, const type *in, size_t n) \
    {                                                                                 \
        uint8_t *p = out;                                                             \
        size_t i = 0;                                                                 \
        while (n - i >= 8) {                                                          \
            uint64_t any = 0;                                                         \
            size_t k, run;                                                            \
            for (k = 0; k < 8; k++)                                                   \
                any |= zigzag(in[i + k]);                                             \
            /* run_bytes takes this group by its own test; were the two    \
             * tests ever to differ, the group goes on below, never 0 again. */\
            if (any < 0x80 &&                                                         \
                (k = AVKI_KFN(run_bytes)(&p, in + i, (n - i) & ~(size_t)7)) != 0) {   \
                i += k;                                                               \
                continue;                                                             \
            }                                                                         \
            run = (n - i) / 8 < 8 ? (n - i) / 8 * 8 : 64;                             \
            if (any < 0x4000)                                                         \
                p = AVKI_KFN(run_short)(p, in + i, run);                              \
            else if (any < (1ULL << 28))                                              \
                p = AVKI_KFN(run_28)(p, in + i, run);                                 \
            else if (any < (1ULL << 56))                                              \
                p = AVKI_KFN(run_56)(p, in + i, run);                                 \
            else                                                                      \
                p = AVKI_KFN(run_any)(p, in + i, run);                                \
            i += run;                                                                 \
        }                                                                             \
        for (; i < n; i++)                                                            \
            p += AVKI_ENCODE(p, zigzag(in[i]));                                       \
        return (size_t)(p - out);                                                     \
    }
AVKI_ENCODE_BULK(encode_longs, int64_t, avk_zigzag_encode64, run_bytes_longs, run_short_longs,
                 run_28_longs, run_56_longs, run_any_longs)
/* encode_ints: the caller's room is 5 bytes a value plus 10, which covers
 * a 10-byte store at the last value's start. */
AVKI_ENCODE_BULK(encode_ints, int32_t, avk_zigzag_encode32, run_bytes_ints, run_short_ints,
                 run_28_ints, run_56_ints, run_any_ints)
#undef AVKI_ENCODE_BULK
