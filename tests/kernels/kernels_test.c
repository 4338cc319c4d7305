/* Differential test: one bulk kernel (or every runnable one) against the reference codec. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "avrokit/kernel.h"
#include "avrokit/varint.h"
#include "varint/kernels.h"

/* Every kernel built here (kernel_list.h), and the ones this run tests. */
static const avki_kernels *const *all_kernels;
static size_t n_all;
static const avki_kernels *tested[16];
static size_t n_tested;

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
    /* splitmix64: fixed seed, so failures reproduce */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* A zigzagged value whose encoding is exactly len bytes (1..10). */
static uint64_t value_of_len(unsigned len)
{
    uint64_t lo = len == 1 ? 0 : 1ULL << (7 * (len - 1));
    uint64_t span = len >= 10 ? ~0ULL - lo : (1ULL << (7 * len)) - lo;
    return lo + (span ? rng() % span : 0);
}

/* Mixed1-4 and Mixed1-8: lengths that vary within the short and the
 * middle classes of the bulk encoders and decoders. Long runs: runs of up
 * to 150 values of one length, so the bulk encoders' runs of 8-value
 * groups (1 byte; 1-2 bytes; below 2^28, 2^56; any) start and end at
 * every offset, and meet values too large for the run's way. */
enum { DIST_FIXED_MAX = 10, DIST_MIXED_10 = 11, DIST_MIXED_2 = 12, DIST_EDGE = 13, DIST_RUNS = 14,
       DIST_MIXED_4 = 15, DIST_MIXED_8 = 16, DIST_LONG_RUNS = 17, DIST_COUNT = 18 };

static uint64_t draw(int dist)
{
    /* Zigzagged: the bounds of the lengths and of the bulk encoders' ways
     * (2^7, 2^14, 2^28, 2^56), and the widest ints. */
    static const uint64_t edges[] = {0, 1, 0x7e, 0x7f, 0x80, 0x81, 0x3fff, 0x4000, 0x0fffffff,
                                     0x10000000, 0xfffffffe, (1ULL << 56) - 1, 1ULL << 56,
                                     (1ULL << 63) - 1, 1ULL << 63, ~0ULL, 0xffffffffULL,
                                     0x100000000ULL};
    if (dist >= 1 && dist <= DIST_FIXED_MAX)
        return value_of_len((unsigned)dist);
    if (dist == DIST_MIXED_10)
        return value_of_len(1 + (unsigned)(rng() % 10));
    if (dist == DIST_MIXED_2)
        return value_of_len(1 + (unsigned)(rng() % 2));
    if (dist == DIST_MIXED_4)
        return value_of_len(1 + (unsigned)(rng() % 4));
    if (dist == DIST_MIXED_8)
        return value_of_len(1 + (unsigned)(rng() % 8));
    if (dist == DIST_RUNS || dist == DIST_LONG_RUNS) {
        /* Runs of 1 to 20 (or 150) values of one length, then another
         * length: the kernels' per-length loops start, break and restart. */
        static unsigned run_len = 1, run_left;
        if (run_left == 0) {
            run_len = 1 + (unsigned)(rng() % 10);
            run_left = 1 + (unsigned)(rng() % (dist == DIST_RUNS ? 20 : 150));
        }
        run_left--;
        return value_of_len(run_len);
    }
    return edges[rng() % (sizeof edges / sizeof edges[0])];
}

/* Input buffer ending right before an unmapped page: any read past the end faults. */
typedef struct guarded {
    uint8_t *map;
    size_t map_len;
} guarded;

static uint8_t *guarded_copy(guarded *g, const uint8_t *src, size_t len)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t data_pages = (len + page - 1) / page;
    uint8_t *start;
    g->map_len = (data_pages + 1) * page;
    g->map = mmap(NULL, g->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(g->map != MAP_FAILED);
    assert_int_equal(mprotect(g->map + data_pages * page, page, PROT_NONE), 0);
    start = g->map + data_pages * page - len;
    if (len)
        memcpy(start, src, len);
    return start;
}

static void guarded_free(guarded *g)
{
    munmap(g->map, g->map_len);
}

/* Output buffer of exactly room bytes ending right before an unmapped page:
 * an encoder writing past its documented room faults. */
static uint8_t *guarded_room(guarded *g, size_t room)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t data_pages = (room + page - 1) / page;
    g->map_len = (data_pages + 1) * page;
    g->map = mmap(NULL, g->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(g->map != MAP_FAILED);
    assert_int_equal(mprotect(g->map + data_pages * page, page, PROT_NONE), 0);
    return g->map + data_pages * page - room;
}

static void check_longs(const avki_kernels *k, const int64_t *vals, size_t n)
{
    size_t cap = n * AVK_VARINT_LONG_MAX + 1;
    uint8_t *ref = malloc(cap), *enc, *in;
    int64_t *out = malloc((n + 1) * sizeof *out);
    size_t ref_len, enc_len, consumed = 12345, got;
    guarded g, go;
    enc = guarded_room(&go, n * AVK_VARINT_LONG_MAX); /* the room avk_varint_encode_longs promises */
    ref_len = avki_ref_encode_longs(ref, vals, n);
    enc_len = k->encode_longs(enc, vals, n);
    assert_int_equal(enc_len, ref_len);
    assert_memory_equal(enc, ref, ref_len);
    assert_int_equal(avk_varint_size_longs(vals, n), ref_len);

    in = guarded_copy(&g, ref, ref_len);
    got = k->decode_longs(in, ref_len, out, n, &consumed);
    assert_int_equal(got, n);
    assert_int_equal(consumed, ref_len);
    if (n)
        assert_memory_equal(out, vals, n * sizeof *out);
    /* Asking for one more than there is: stops at the end, input untouched past it. */
    got = k->decode_longs(in, ref_len, out, n + 1, &consumed);
    assert_int_equal(got, n);
    assert_int_equal(consumed, ref_len);
    guarded_free(&g);
    guarded_free(&go);
    free(ref);
    free(out);
}

static void check_ints(const avki_kernels *k, const int32_t *vals, size_t n)
{
    size_t cap = n * AVK_VARINT_INT_MAX + AVK_VARINT_LONG_MAX;
    uint8_t *ref = malloc(cap), *enc, *in;
    int32_t *out = malloc((n + 1) * sizeof *out);
    size_t ref_len, enc_len, consumed = 12345, got;
    guarded g, go;
    enc = guarded_room(&go, cap);
    ref_len = avki_ref_encode_ints(ref, vals, n);
    enc_len = k->encode_ints(enc, vals, n);
    assert_int_equal(enc_len, ref_len);
    assert_memory_equal(enc, ref, ref_len);
    assert_int_equal(avk_varint_size_ints(vals, n), ref_len);

    in = guarded_copy(&g, ref, ref_len);
    got = k->decode_ints(in, ref_len, out, n, &consumed);
    assert_int_equal(got, n);
    assert_int_equal(consumed, ref_len);
    if (n)
        assert_memory_equal(out, vals, n * sizeof *out);
    guarded_free(&g);
    guarded_free(&go);
    free(ref);
    free(out);
}

/* Runs first in the process: a kernel's very first call (tables not yet
 * built) must already be right, for encode and decode, longs and ints. */
static void test_first_calls(void **state)
{
    int64_t vals[40], back[40];
    int32_t ivals[40], iback[40];
    uint8_t ref[400], enc[400];
    size_t ki, i;
    (void)state;
    for (i = 0; i < 40; i++) {
        vals[i] = (int64_t)(i * 37) - 700; /* 1- and 2-byte values */
        ivals[i] = (int32_t)vals[i];
    }
    for (ki = 0; ki < n_tested; ki++) {
        const avki_kernels *k = tested[ki];
        size_t ref_len, consumed;
        if (!k->runnable(avki_cpu_get()))
            continue;
        ref_len = avki_ref_encode_longs(ref, vals, 40);
        assert_int_equal(k->encode_longs(enc, vals, 40), ref_len);
        assert_memory_equal(enc, ref, ref_len);
        assert_int_equal(k->decode_longs(ref, ref_len, back, 40, &consumed), 40);
        assert_memory_equal(back, vals, sizeof vals);
        ref_len = avki_ref_encode_ints(ref, ivals, 40);
        assert_int_equal(k->encode_ints(enc, ivals, 40), ref_len);
        assert_memory_equal(enc, ref, ref_len);
        assert_int_equal(k->decode_ints(ref, ref_len, iback, 40, &consumed), 40);
        assert_memory_equal(iback, ivals, sizeof ivals);
    }
}

static void test_round_trip_every_distribution(void **state)
{
    size_t ki;
    (void)state;
    for (ki = 0; ki < n_tested; ki++) {
        const avki_kernels *k = tested[ki];
        int dist;
        for (dist = 1; dist < DIST_COUNT; dist++) {
            static const size_t sizes[] = {0, 1, 2, 7, 8, 9, 10, 15, 16, 17, 18, 25, 33, 63, 64, 65, 100, 257, 1000, 4099};
            size_t si;
            for (si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
                size_t n = sizes[si], i;
                int64_t *l = malloc((n + 1) * sizeof *l);
                int32_t *v32 = malloc((n + 1) * sizeof *v32);
                for (i = 0; i < n; i++) {
                    uint64_t u = draw(dist);
                    l[i] = avk_zigzag_decode64(u);
                    /* ints: keep the distribution's length where it fits 32 bits */
                    v32[i] = avk_zigzag_decode32((uint32_t)(u >> (u >> 32 ? 32 : 0)));
                }
                check_longs(k, l, n);
                check_ints(k, v32, n);
                free(l);
                free(v32);
            }
        }
    }
}

/* The bulk encoders choose a run's way by its first group: below 2^7,
 * 2^14, 2^28, 2^56 or any. A first group just below a bound, then zeros
 * with one value at the bound at every position: each way must take the
 * value too large for it (alone, or as half of a pair beside a zero, whose
 * OR is then the bound itself) and go on. */
static void test_encode_runs_meet_larger_values(void **state)
{
    static const uint64_t bounds[] = {1ULL << 7, 1ULL << 14, 1ULL << 28, 1ULL << 56};
    enum { N = 80 };
    size_t ki, bi, j, i;
    (void)state;
    for (ki = 0; ki < n_tested; ki++) {
        for (bi = 0; bi < sizeof bounds / sizeof bounds[0]; bi++) {
            for (j = 0; j < N; j++) {
                int64_t l[N];
                int32_t v32[N];
                for (i = 0; i < N; i++) {
                    uint64_t u = i == j ? bounds[bi] : i < 8 ? bounds[bi] - 1 - (i & 1) : 0;
                    l[i] = avk_zigzag_decode64(u);
                    v32[i] = avk_zigzag_decode32((uint32_t)(u >> 32 ? 0xfffffffeu : u));
                }
                check_longs(tested[ki], l, N);
                check_ints(tested[ki], v32, N);
            }
        }
    }
}

/* Random bytes, mostly valid-looking: every kernel must agree with the
 * reference on count, consumed and values, including where they stop. */
static void test_random_bytes_match_reference(void **state)
{
    size_t ki, round;
    (void)state;
    for (round = 0; round < 3000; round++) {
        size_t len = rng() % 300, i, n = rng() % 80;
        uint8_t *buf = malloc(len + 1);
        int64_t ref_l[80], out_l[80];
        int32_t ref_i[80], out_i[80];
        size_t ref_cl, ref_ci, ref_nl, ref_ni;
        unsigned cont_pct = (unsigned)(rng() % 101);
        for (i = 0; i < len; i++) {
            uint8_t b = (uint8_t)rng();
            b = (rng() % 100) < cont_pct ? (uint8_t)(b | 0x80) : (uint8_t)(b & 0x7f);
            buf[i] = b;
        }
        ref_nl = avki_ref_decode_longs(buf, len, ref_l, n, &ref_cl);
        ref_ni = avki_ref_decode_ints(buf, len, ref_i, n, &ref_ci);
        for (ki = 0; ki < n_tested; ki++) {
            const avki_kernels *k = tested[ki];
            guarded g;
            uint8_t *in;
            size_t cl, ci, nl, ni;
            in = guarded_copy(&g, buf, len);
            nl = k->decode_longs(in, len, out_l, n, &cl);
            ni = k->decode_ints(in, len, out_i, n, &ci);
            assert_int_equal(nl, ref_nl);
            assert_int_equal(cl, ref_cl);
            assert_int_equal(ni, ref_ni);
            assert_int_equal(ci, ref_ci);
            if (nl)
                assert_memory_equal(out_l, ref_l, nl * sizeof out_l[0]);
            if (ni)
                assert_memory_equal(out_i, ref_i, ni * sizeof out_i[0]);
            guarded_free(&g);
        }
        free(buf);
    }
}

/* Appends the encoding of u (zigzagged already) at buf + len. */
static size_t put_varint(uint8_t *buf, size_t len, uint64_t u)
{
    while (u >= 0x80) {
        buf[len++] = (uint8_t)(u | 0x80);
        u >>= 7;
    }
    buf[len++] = (uint8_t)u;
    return len;
}

/* Streams shaped like the vector paths' cases: runs of one length (whole
 * windows of 2..10-byte values, as the constant gathers take them) broken
 * by a value of another length, mixed lengths, runs of 1-byte values, a
 * malformed value (11 bytes, a bad 10th byte, an int whose 5th byte
 * carries bits beyond 32) anywhere, and inputs cut anywhere, including
 * just past the 48- and 80-byte reads of a window. Every kernel must agree
 * with the reference on count, consumed and values, for many n. */
static void test_structured_streams(void **state)
{
    static const uint8_t bad_long[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
    static const uint8_t bad_tenth[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7e};
    static const uint8_t bad_int[] = {0xff, 0xff, 0xff, 0xff, 0x1f};
    size_t round;
    (void)state;
    for (round = 0; round < 6000; round++) {
        uint8_t buf[1200];
        int64_t ref_l[700], out_l[700];
        int32_t ref_i[700], out_i[700];
        size_t len = 0, target = (size_t)(rng() % 700), ki, ni;
        unsigned shape = (unsigned)(rng() % 5), fixed = 1 + (unsigned)(rng() % 10);
        size_t disrupt_every = 1 + (size_t)(rng() % 40);
        size_t k = 0;
        while (len + 11 <= target && len + 11 <= sizeof buf) {
            unsigned l = shape == 0 ? fixed                              /* one length */
                         : shape == 1 ? 1 + (unsigned)(rng() % 10)       /* Mixed1-10 */
                         : shape == 2 ? 1 + (unsigned)(rng() % 2)        /* Mixed1-2 */
                         : shape == 3 ? (rng() % 8 ? 1 : 1 + (unsigned)(rng() % 10)) /* mostly 1 */
                                      : 1 + (unsigned)(rng() % 4);
            if (shape == 0 && ++k % disrupt_every == 0)
                l = 1 + (unsigned)(rng() % 10);
            len = put_varint(buf, len, value_of_len(l));
        }
        if (rng() % 3 == 0 && len > 0) { /* a malformed value somewhere inside */
            const uint8_t *bad;
            size_t bad_len, at = (size_t)(rng() % len);
            switch (rng() % 3) {
            case 0: bad = bad_long; bad_len = sizeof bad_long; break;
            case 1: bad = bad_tenth; bad_len = sizeof bad_tenth; break;
            default: bad = bad_int; bad_len = sizeof bad_int; break;
            }
            /* Overwrite at a value boundary or not: both are worth checking. */
            if (at + bad_len <= sizeof buf) {
                memcpy(buf + at, bad, bad_len);
                if (at + bad_len > len)
                    len = at + bad_len;
            }
        }
        if (rng() % 4 == 0 && len > 0) /* cut anywhere, maybe inside a value */
            len -= (size_t)(rng() % (len < 12 ? len : 12));
        for (ni = 0; ni < 4; ni++) {
            static const size_t small[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33};
            size_t n = ni == 0 ? 700 : ni == 1 ? small[rng() % (sizeof small / sizeof small[0])]
                                            : (size_t)(rng() % 700);
            size_t ref_cl, ref_ci, ref_nl, ref_ni;
            ref_nl = avki_ref_decode_longs(buf, len, ref_l, n, &ref_cl);
            ref_ni = avki_ref_decode_ints(buf, len, ref_i, n, &ref_ci);
            for (ki = 0; ki < n_tested; ki++) {
                const avki_kernels *kern = tested[ki];
                guarded g;
                uint8_t *in;
                size_t cl, ci, nl, nn;
                if (!kern->runnable(avki_cpu_get()))
                    continue;
                in = guarded_copy(&g, buf, len);
                nl = kern->decode_longs(in, len, out_l, n, &cl);
                nn = kern->decode_ints(in, len, out_i, n, &ci);
                if (nl != ref_nl || cl != ref_cl || nn != ref_ni || ci != ref_ci ||
                    (nl == ref_nl && nl && memcmp(out_l, ref_l, nl * sizeof out_l[0]) != 0) ||
                    (nn == ref_ni && nn && memcmp(out_i, ref_i, nn * sizeof out_i[0]) != 0))
                    printf("# %s: round %zu shape %u len %zu n %zu: longs %zu/%zu (ref %zu/%zu), "
                           "ints %zu/%zu (ref %zu/%zu)\n", kern->name, round, shape, len, n, nl, cl,
                           ref_nl, ref_cl, nn, ci, ref_ni, ref_ci);
                assert_int_equal(nl, ref_nl);
                assert_int_equal(cl, ref_cl);
                assert_int_equal(nn, ref_ni);
                assert_int_equal(ci, ref_ci);
                if (nl)
                    assert_memory_equal(out_l, ref_l, nl * sizeof out_l[0]);
                if (nn)
                    assert_memory_equal(out_i, ref_i, nn * sizeof out_i[0]);
                guarded_free(&g);
            }
        }
    }
}

/* Each kernel, given a malformed value among good ones, stops exactly at it. */
static void test_malformed_stops_exactly(void **state)
{
    static const uint8_t bad_long_11[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
    static const uint8_t bad_long_bits[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
    static const uint8_t bad_int_6[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
    static const uint8_t bad_int_bits[] = {0xff, 0xff, 0xff, 0xff, 0x10};
    struct {
        const uint8_t *bytes;
        size_t len;
        int bad_for_long;
    } cases[] = {{bad_long_11, sizeof bad_long_11, 1},
                 {bad_long_bits, sizeof bad_long_bits, 1},
                 {bad_int_6, sizeof bad_int_6, 0},
                 {bad_int_bits, sizeof bad_int_bits, 0}};
    size_t ki, ci, prefix;
    (void)state;
    for (ki = 0; ki < n_tested; ki++) {
        const avki_kernels *k = tested[ki];
        for (ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
            for (prefix = 0; prefix < 150; prefix += 7) {
                uint8_t buf[400];
                int64_t out_l[200];
                int32_t out_i[200];
                size_t pos = 0, i, consumed, got;
                for (i = 0; i < prefix; i++)
                    buf[pos++] = (uint8_t)(i & 0x3f); /* 1-byte values */
                memcpy(buf + pos, cases[ci].bytes, cases[ci].len);
                for (i = 0; i < 100; i++)
                    buf[pos + cases[ci].len + i] = 2;
                got = k->decode_ints(buf, pos + cases[ci].len + 100, out_i, 200, &consumed);
                assert_int_equal(got, prefix);
                assert_int_equal(consumed, pos);
                got = k->decode_longs(buf, pos + cases[ci].len + 100, out_l, 200, &consumed);
                if (cases[ci].bad_for_long) {
                    assert_int_equal(got, prefix);
                    assert_int_equal(consumed, pos);
                } else {
                    assert_int_equal(got, prefix + 101 < 200 ? prefix + 101 : 200);
                }
            }
        }
    }
}

/* Runs of one encoded length (the bulk kernels switch to per-length loops
 * on them) broken by a malformed varint, and cut off inside the last
 * value: the kernel stops exactly before the bad or cut value, whatever
 * the run's length class and position. */
static void test_runs_then_bad_or_cut(void **state)
{
    static const unsigned lens[] = {1, 2, 3, 4, 5, 6, 8, 9, 10};
    static const uint8_t bad_long_11[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                          0x80, 0x80, 0x80, 0x80, 0x00};
    size_t ki, li, count;
    (void)state;
    for (ki = 0; ki < n_tested; ki++) {
        const avki_kernels *k = tested[ki];
        for (li = 0; li < sizeof lens / sizeof lens[0]; li++) {
            for (count = 0; count < 150; count += 3) {
                uint64_t vals[160];
                int64_t out_l[200];
                int32_t out_i[200];
                uint8_t buf[160 * 10 + 64];
                size_t pos, i, consumed, got, last;
                guarded g;
                uint8_t *in;
                for (i = 0; i < count; i++)
                    vals[i] = value_of_len(lens[li]);
                pos = 0;
                last = 0;
                for (i = 0; i < count; i++) {
                    last = pos;
                    pos += avki_ref_encode_longs(buf + pos,
                                                 (const int64_t[]){avk_zigzag_decode64(vals[i])}, 1);
                }
                /* A malformed long after the run, then filler. */
                memcpy(buf + pos, bad_long_11, sizeof bad_long_11);
                memset(buf + pos + sizeof bad_long_11, 2, 40);
                in = guarded_copy(&g, buf, pos + sizeof bad_long_11 + 40);
                got = k->decode_longs(in, pos + sizeof bad_long_11 + 40, out_l, 200, &consumed);
                assert_int_equal(got, count);
                assert_int_equal(consumed, pos);
                for (i = 0; i < count; i++)
                    assert_true((uint64_t)avk_zigzag_encode64(out_l[i]) == vals[i]);
                if (lens[li] <= 5) {
                    /* The same for ints where the values fit; 5-byte values
                     * over 32 bits stop the int decoder at the first one. */
                    size_t fit = 0;
                    while (fit < count && vals[fit] <= 0xffffffffu)
                        fit++;
                    got = k->decode_ints(in, pos + sizeof bad_long_11 + 40, out_i, 200, &consumed);
                    assert_int_equal(got, fit);
                }
                guarded_free(&g);
                /* Cut inside the last value of the run (values of 2 bytes
                 * or more): all but the last decode. */
                if (count > 0 && lens[li] > 1) {
                    in = guarded_copy(&g, buf, pos - 1);
                    got = k->decode_longs(in, pos - 1, out_l, 200, &consumed);
                    assert_int_equal(got, count - 1);
                    assert_int_equal(consumed, last);
                    guarded_free(&g);
                }
            }
        }
    }
}

/* Stand-ins for the choice rule, so it is tested the same on every
 * architecture: runnable when the CPU field they stand for is set. */
static int wants_avx512(const avki_cpu *cpu)
{
    return cpu->avx512;
}

static int wants_avx2(const avki_cpu *cpu)
{
    return cpu->avx2 && cpu->bmi1 && cpu->lzcnt && cpu->popcnt;
}

static int wants_fast_pdep(const avki_cpu *cpu)
{
    return cpu->fast_pdep;
}

static int wants_nothing(const avki_cpu *cpu)
{
    (void)cpu;
    return 1;
}

static const avki_kernels fake_avx512 = {"avx512", wants_avx512, NULL, NULL, NULL, NULL};
static const avki_kernels fake_avx2 = {"avx2", wants_avx2, NULL, NULL, NULL, NULL};
static const avki_kernels fake_bmi2 = {"bmi2", wants_fast_pdep, NULL, NULL, NULL, NULL};
static const avki_kernels fake_scalar = {"scalar", wants_nothing, NULL, NULL, NULL, NULL};

/* The kernel choice: AVK_KERNEL wins only when runnable; PDEP rule by vendor and family. */
static void test_kernel_choice(void **state)
{
    static const avki_kernels *const fakes[] = {&fake_avx512, &fake_bmi2, &fake_scalar};
    avki_cpu none, all;
    size_t i;
    (void)state;
    memset(&none, 0, sizeof none);
    memset(&all, 0, sizeof all);
    all.bmi2 = all.fast_pdep = all.avx512 = 1;
    assert_string_equal(avki_kernels_choose(fakes, 3, &none, NULL)->name, "scalar");
    assert_string_equal(avki_kernels_choose(fakes, 3, &none, "avx512")->name, "scalar");
    assert_string_equal(avki_kernels_choose(fakes, 3, &all, NULL)->name, "avx512");
    assert_string_equal(avki_kernels_choose(fakes, 3, &all, "bmi2")->name, "bmi2");
    assert_string_equal(avki_kernels_choose(fakes, 3, &all, "scalar")->name, "scalar");
    assert_string_equal(avki_kernels_choose(fakes, 3, &all, "nonsense")->name, "avx512");
    all.fast_pdep = 0; /* BMI2 present but microcoded */
    assert_string_equal(avki_kernels_choose(fakes, 3, &all, "bmi2")->name, "avx512");
    all.avx512 = 0;
    assert_string_equal(avki_kernels_choose(fakes, 3, &all, "bmi2")->name, "scalar");
    {
        /* With avx2 between them (the real order): it needs no BMI2, so
         * Zen 1/2 (BMI2 microcoded) and Haswell-era CPUs get it. */
        static const avki_kernels *const four[] = {&fake_avx512, &fake_avx2, &fake_bmi2, &fake_scalar};
        all.avx512 = all.fast_pdep = 1;
        all.avx2 = all.bmi1 = all.lzcnt = all.popcnt = 1;
        assert_string_equal(avki_kernels_choose(four, 4, &all, NULL)->name, "avx512");
        assert_string_equal(avki_kernels_choose(four, 4, &all, "avx2")->name, "avx2");
        assert_string_equal(avki_kernels_choose(four, 4, &all, "bmi2")->name, "bmi2");
        all.avx512 = 0;
        assert_string_equal(avki_kernels_choose(four, 4, &all, NULL)->name, "avx2");
        all.fast_pdep = 0;
        assert_string_equal(avki_kernels_choose(four, 4, &all, "bmi2")->name, "avx2");
        all.avx2 = 0; /* no AVX2, or the OS does not save YMM state */
        assert_string_equal(avki_kernels_choose(four, 4, &all, "avx2")->name, "scalar");
    }
    assert_true(avki_cpu_pdep_is_fast(1, 0, 6));
    assert_false(avki_cpu_pdep_is_fast(0, 1, 0x15));
    assert_false(avki_cpu_pdep_is_fast(0, 1, 0x17)); /* Zen 1, Zen 2 */
    assert_true(avki_cpu_pdep_is_fast(0, 1, 0x19));  /* Zen 3, Zen 4 */
    assert_true(avki_cpu_pdep_is_fast(0, 1, 0x1a));  /* Zen 5 */
    assert_false(avki_cpu_pdep_is_fast(0, 0, 0x18)); /* Hygon and unknown vendors */
    /* The public listing is the table, best first, ending in the portable
     * kernel every CPU runs. */
    printf("# active kernel: %s\n", avk_kernel_name());
    assert_int_equal(avk_kernel_count(), n_all);
    for (i = 0; i < n_all; i++)
        assert_string_equal(avk_kernel_name_at(i), all_kernels[i]->name);
    assert_string_equal(avk_kernel_name_at(n_all - 1), "scalar");
    assert_null(avk_kernel_name_at(n_all));
    assert_true(avk_kernel_runnable_at(n_all - 1));
}

/* Exit status CTest reads as "skipped" (SKIP_RETURN_CODE in CMake). */
#define SKIPPED 77

/* kernels_test [NAME]: tests kernel NAME, skipped (exit 77) when this
 * machine cannot run it or it is not built here; with no name, every
 * runnable kernel. */
int main(int argc, char **argv)
{
    size_t i;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_calls), /* first: before any kernel has run */
        cmocka_unit_test(test_round_trip_every_distribution),
        cmocka_unit_test(test_encode_runs_meet_larger_values),
        cmocka_unit_test(test_random_bytes_match_reference),
        cmocka_unit_test(test_malformed_stops_exactly),
        cmocka_unit_test(test_runs_then_bad_or_cut),
        cmocka_unit_test(test_structured_streams),
        cmocka_unit_test(test_kernel_choice),
    };
    all_kernels = avki_kernel_table(&n_all);
    for (i = 0; i < n_all; i++) {
        const avki_kernels *k = all_kernels[i];
        if (argc > 1 && strcmp(argv[1], k->name) != 0)
            continue;
        if (!k->runnable(avki_cpu_get())) {
            printf("# kernel %s: this CPU cannot run it (or runs it slowly): skipped\n", k->name);
            continue;
        }
        tested[n_tested++] = k;
    }
    if (argc > 1 && n_tested == 0) {
        printf("# kernel %s: not built for this machine or not runnable here: skipped\n", argv[1]);
        return SKIPPED;
    }
    for (i = 0; i < n_tested; i++)
        printf("# testing kernel %s\n", tested[i]->name);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
