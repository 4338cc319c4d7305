/* Unit tests for the JSON number formatter: every class of double against the printf + strtod rule, byte for byte. */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "avkt.h"
#include "json/json_double.h"

/* How many values each sweep checks: n, or a fortieth of it under
 * valgrind, which looks for memory errors and runs this 50 times slower, or
 * a tenth under an emulator (qemu-user, for a cross build's tests: CTest
 * sets AVKT_EMULATED=1), where this runs 30 times slower. The full sweeps
 * run natively, on 32-bit x86 and under the sanitizers. */
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define AVKT_ON_VALGRIND() RUNNING_ON_VALGRIND
#endif
#endif
#ifndef AVKT_ON_VALGRIND
#define AVKT_ON_VALGRIND() 0
#endif

static long sweep_divisor(void)
{
    static long d;
    if (d == 0)
        d = AVKT_ON_VALGRIND() ? 40 : getenv("AVKT_EMULATED") ? 10 : 1;
    return d;
}

#define SWEEP(n) ((long)(n) / sweep_divisor())

/* The rule json_double.h promises, the way avro_json_write.c used to
 * print doubles: the first of %.15g, %.16g, %.17g that reads back. */
static size_t reference_double(char *out, double d)
{
    int n = 0, prec;
    if (isnan(d))
        return (size_t)sprintf(out, "\"NaN\"");
    if (isinf(d))
        return (size_t)sprintf(out, d > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    for (prec = 15; prec <= 17; prec++) {
        n = sprintf(out, "%.*g", prec, d);
        if (strtod(out, NULL) == d)
            break;
    }
    if (!strpbrk(out, ".eE")) {
        memcpy(out + n, ".0", 3);
        n += 2;
    }
    return (size_t)n;
}

/* Formats d into a buffer whose bytes past AVKI_JSON_NUMBER_MAX must stay
 * untouched, and compares with the reference; returns 0 on a mismatch
 * after printing it (so that a loop reports its value, not just a line). */
static int agrees(double d)
{
    char got[AVKI_JSON_NUMBER_MAX + 16], want[64];
    size_t n, wn, i;
    memset(got, 0x7f, sizeof got);
    n = avki_json_format_double(got, d);
    wn = reference_double(want, d);
    for (i = AVKI_JSON_NUMBER_MAX; i < sizeof got; i++)
        if (got[i] != 0x7f) {
            print_error("%a: wrote past %d bytes\n", d, AVKI_JSON_NUMBER_MAX);
            return 0;
        }
    if (n > AVKI_JSON_NUMBER_MAX || n != wn || memcmp(got, want, n) != 0) {
        print_error("%a: got \"%.*s\", expected \"%s\"\n", d,
                    (int)(n > AVKI_JSON_NUMBER_MAX ? AVKI_JSON_NUMBER_MAX : n), got, want);
        return 0;
    }
    return 1;
}

#define CHECK(d) assert_true(agrees(d))

/* d and its k nearest neighbours on each side, both signs. */
static void check_around(double d, int k)
{
    double up = d, down = d;
    int i;
    CHECK(d);
    CHECK(-d);
    for (i = 0; i < k; i++) {
        up = nextafter(up, INFINITY);
        down = nextafter(down, 0);
        CHECK(up);
        CHECK(-up);
        CHECK(down);
        CHECK(-down);
    }
}

static double from_bits(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

static void test_fixed_texts(void **state)
{
    static const struct {
        double d;
        const char *text;
    } table[] = {
        {0.0, "0.0"},
        {-0.0, "-0.0"},
        {1.0, "1.0"},
        {-1.0, "-1.0"},
        {0.1, "0.1"},
        {0.3, "0.3"},
        {0x1.3333333333334p-2, "0.30000000000000004"},
        {0x1.5555555555555p-2, "0.3333333333333333"},
        {100.0, "100.0"},
        {1e14, "100000000000000.0"},
        {1e15, "1e+15"},
        {1e16, "1e+16"},
        {123456789012345.0, "123456789012345.0"},
        {1234567890123456.0, "1234567890123456.0"},
        {12345678901234567.0, "12345678901234568.0"},
        {1e-4, "0.0001"},
        {1e-5, "1e-05"},
        {0.00012345, "0.00012345"},
        {1.2345e-5, "1.2345e-05"},
        {1e300, "1e+300"},
        {1e-300, "1e-300"},
        {1e23, "1e+23"},
        {0x1p-1074, "4.94065645841247e-324"}, /* subnormals: 15 digits read back */
        {0x0.fffffffffffffp-1022, "2.225073858507201e-308"},
        {DBL_MIN, "2.2250738585072014e-308"},
        {DBL_MAX, "1.7976931348623157e+308"},
        {0x1.8p-1022, "3.337610787760802e-308"},
        {0x1p+53, "9007199254740992.0"},
        {0x1p+1023, "8.98846567431158e+307"},
        {0x1p-20, "9.5367431640625e-07"},
        {0x1p-24, "5.9604644775390625e-08"},
        {-2.5, "-2.5"},
        {-975.53, "-975.53"},
        {(double)FLT_MAX, "3.4028234663852886e+38"},
        {0x1.99999ap-4, "0.10000000149011612"}, /* 0.1f: (double)0.1f may be 0.1 where floats evaluate as long double (FLT_EVAL_METHOD 2, x87) */
        {(double)0x1p-149f, "1.401298464324817e-45"},
        {NAN, "\"NaN\""},
        {INFINITY, "\"Infinity\""},
        {-INFINITY, "\"-Infinity\""},
    };
    size_t i;
    (void)state;
    for (i = 0; i < sizeof table / sizeof table[0]; i++) {
        char got[AVKI_JSON_NUMBER_MAX];
        size_t n = avki_json_format_double(got, table[i].d);
        if (n != strlen(table[i].text) || memcmp(got, table[i].text, n) != 0)
            fail_msg("%a: got \"%.*s\", expected \"%s\"", table[i].d, (int)n, got,
                     table[i].text);
        CHECK(table[i].d);
    }
    CHECK(-NAN);
    CHECK(from_bits(0x7ff0000000000001u)); /* signalling NaN */
    CHECK(from_bits(0xfff8000000000000u));
}

/* Uniform bit patterns: every exponent, about a thousand times each. */
static void test_random_bits(void **state)
{
    avkt_rng rng = {0x5eed0001u};
    long i;
    (void)state;
    for (i = 0; i < SWEEP(2000000); i++)
        CHECK(from_bits(avkt_next(&rng)));
}

/* Powers of two are where the interval below a double is half the one
 * above: the formatter's printf fallback lives among them. */
static void test_powers_of_two(void **state)
{
    int e;
    (void)state;
    for (e = -1074; e <= 1023; e++)
        check_around(ldexp(1.0, e), 2);
    check_around(DBL_MAX, 2);
    check_around(DBL_MIN, 2);
}

static void test_powers_of_ten(void **state)
{
    int e;
    (void)state;
    for (e = -323; e <= 308; e++) {
        char text[16];
        sprintf(text, "1e%d", e);
        check_around(strtod(text, NULL), 3);
        sprintf(text, "5e%d", e);
        check_around(strtod(text, NULL), 1);
        sprintf(text, "9.99e%d", e);
        check_around(strtod(text, NULL), 1);
    }
}

static void test_subnormals(void **state)
{
    avkt_rng rng = {0x5eed0002u};
    uint64_t c;
    long i;
    (void)state;
    for (c = 1; c <= 3000; c++)
        CHECK(from_bits(c));
    for (c = 0x000fffffffffffffu; c > 0x000fffffffffffffu - 3000; c--)
        CHECK(from_bits(c));
    for (i = 0; i < SWEEP(100000); i++) {
        c = avkt_next(&rng) & 0x000fffffffffffffu;
        CHECK(from_bits(c >> avkt_below(&rng, 52)));
        CHECK(-from_bits(c));
    }
}

/* Integers take their own path up to 2^53; above, doubles are sparser
 * than integers. */
static void test_integers(void **state)
{
    avkt_rng rng = {0x5eed0003u};
    long i;
    int b;
    (void)state;
    for (i = 0; i <= SWEEP(100000); i++) {
        CHECK((double)i);
        CHECK(-(double)i - 0.5);
    }
    for (i = 0; i < SWEEP(300000); i++) {
        uint64_t u = avkt_next(&rng) >> avkt_below(&rng, 64);
        CHECK((double)u);
        CHECK(-(double)u);
        CHECK((double)(u >> 11) + 0.5);
        CHECK((double)(u >> 11) * 1000.0);
    }
    for (b = 0; b < 64; b++) {
        double p = ldexp(1.0, b);
        check_around(p - 1, 2);
        check_around(p + 1, 2);
    }
    check_around(9007199254740992.0, 4); /* 2^53 */
    check_around(9007199254740991.0, 4);
    check_around(99999999999999999.0, 2);
    check_around(9999999999999998.0, 2);
}

/* %g switches to an exponent below 1e-4 and at 10^P, P being 15, 16 or 17
 * after the digits. */
static void test_exponent_switch(void **state)
{
    static const double edges[] = {1e-5, 1e-4, 1e-3, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18};
    avkt_rng rng = {0x5eed0004u};
    size_t i;
    long k;
    (void)state;
    for (i = 0; i < sizeof edges / sizeof edges[0]; i++)
        check_around(edges[i], 500);
    /* Values with 1 to 17 digits on each side of the switch. */
    for (k = 0; k < SWEEP(200000); k++) {
        char text[48];
        int digits = 1 + (int)avkt_below(&rng, 17);
        uint64_t m = avkt_next(&rng) % 100000000000000000u;
        int e = (avkt_below(&rng, 2) ? -7 : 12) + (int)avkt_below(&rng, 7);
        sprintf(text, "%" PRIu64 "e%d", m % (uint64_t)pow(10, digits), e - digits);
        CHECK(strtod(text, NULL));
    }
}

/* Floats reach the writer widened to double. */
static void test_widened_floats(void **state)
{
    avkt_rng rng = {0x5eed0005u};
    long i;
    int e;
    (void)state;
    for (i = 0; i < SWEEP(500000); i++) {
        uint32_t u = (uint32_t)avkt_next(&rng);
        float f;
        memcpy(&f, &u, sizeof f);
        CHECK((double)f);
    }
    for (e = -149; e <= 127; e++)
        CHECK((double)ldexpf(1.0f, e));
    for (i = 0; i < SWEEP(100000); i++) /* short decimals, as data often has */
        CHECK((double)((float)(int64_t)avkt_below(&rng, 2000000) / 1000.0f));
}

/* Short decimals: the usual content of real data. */
static void test_short_decimals(void **state)
{
    avkt_rng rng = {0x5eed0006u};
    long i;
    (void)state;
    for (i = 0; i < SWEEP(300000); i++) {
        double scale = pow(10, (double)avkt_below(&rng, 12));
        CHECK((double)(int64_t)avkt_below(&rng, 10000000) / scale);
        CHECK(-(double)(int64_t)avkt_below(&rng, 1000) * scale);
    }
}

/* ---- floats ---------------------------------------------------------------------------- */

/* Significant digits of a number text (leading and trailing zeros not
 * counted; 0 for zero). */
static int sig_digits(const char *t)
{
    int n = 0, zeros = 0, started = 0;
    for (; *t && *t != 'e'; t++) {
        if (*t < '0' || *t > '9')
            continue;
        if (*t == '0') {
            zeros += started;
            continue;
        }
        n += started ? zeros + 1 : 1;
        zeros = 0;
        started = 1;
    }
    return n;
}

/* The layout json_double.h promises: the digits as %.15g lays them out
 * (they are at most 9, so %.15g of their nearest double gives them
 * back), ".0" added to whole numbers. */
static size_t layout_of(char *out, const char *decimal)
{
    int n = sprintf(out, "%.15g", strtod(decimal, NULL));
    if (!strpbrk(out, ".eE")) {
        memcpy(out + n, ".0", 3);
        n += 2;
    }
    return (size_t)n;
}

/* f formatted into a buffer whose bytes past AVKI_JSON_NUMBER_MAX must
 * stay untouched, checked against printf and strtof: the text reads back
 * (strtof) as exactly f; it has no more digits than the shortest %.Ng
 * (N = 1..9) that reads back (fewer happen at powers of two, where the
 * digits rounded the other way fit the narrower gap below: 2^-96 is
 * 1.2621775e-29, %.8g's 1.2621774e-29 does not read back); with as many,
 * they are %.Ng's; and they are laid out as doubles are. */
static int float_agrees(float f)
{
    char got[AVKI_JSON_NUMBER_MAX + 16], shortest[32], want[64];
    size_t n, i;
    int prec;
    float back;
    memset(got, 0x7f, sizeof got);
    n = avki_json_format_float(got, f);
    for (i = AVKI_JSON_NUMBER_MAX; i < sizeof got; i++)
        if (got[i] != 0x7f) {
            print_error("%a: wrote past %d bytes\n", (double)f, AVKI_JSON_NUMBER_MAX);
            return 0;
        }
    if (n >= AVKI_JSON_NUMBER_MAX) {
        print_error("%a: %zu bytes\n", (double)f, n);
        return 0;
    }
    got[n] = 0;
    if (isnan(f) || isinf(f)) {
        const char *w = isnan(f) ? "\"NaN\"" : f > 0 ? "\"Infinity\"" : "\"-Infinity\"";
        if (strcmp(got, w) != 0) {
            print_error("%a: got \"%s\", expected \"%s\"\n", (double)f, got, w);
            return 0;
        }
        return 1;
    }
    back = strtof(got, NULL);
    if (memcmp(&back, &f, sizeof f) != 0) {
        print_error("%a: \"%s\" reads back as %a\n", (double)f, got, (double)back);
        return 0;
    }
    for (prec = 1; prec <= 9; prec++) {
        snprintf(shortest, sizeof shortest, "%.*g", prec, (double)f);
        back = strtof(shortest, NULL);
        if (memcmp(&back, &f, sizeof f) == 0)
            break;
    }
    if (sig_digits(got) > sig_digits(shortest) ||
        (sig_digits(got) == sig_digits(shortest) && strtod(got, NULL) != strtod(shortest, NULL))) {
        print_error("%a: got \"%s\", %%.%dg gives \"%s\"\n", (double)f, got, prec, shortest);
        return 0;
    }
    layout_of(want, got);
    if (strcmp(got, want) != 0) {
        print_error("%a: got \"%s\", laid out as doubles it is \"%s\"\n", (double)f, got, want);
        return 0;
    }
    return 1;
}

#define CHECK_F(f) assert_true(float_agrees(f))

static float float_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* f and its k nearest neighbours on each side, both signs. */
static void check_around_float(float f, int k)
{
    float up = f, down = f;
    int i;
    CHECK_F(f);
    CHECK_F(-f);
    for (i = 0; i < k; i++) {
        up = nextafterf(up, INFINITY);
        down = nextafterf(down, 0);
        CHECK_F(up);
        CHECK_F(-up);
        CHECK_F(down);
        CHECK_F(-down);
    }
}

static void test_float_texts(void **state)
{
    static const struct {
        float f;
        const char *text;
    } cases[] = {
        {0.1f, "0.1"},
        {640349.44f, "640349.44"},
        {-0.0f, "-0.0"},
        {0.0f, "0.0"},
        {1.0f, "1.0"},
        {1.5f, "1.5"},
        {FLT_MIN, "1.1754944e-38"},
        {FLT_MAX, "3.4028235e+38"},
        {-FLT_MAX, "-3.4028235e+38"},
        {0x1p-149f, "1e-45"}, /* the smallest subnormal: one digit */
        {0x1p-148f, "3e-45"},
        {0x1.fffffcp-127f, "1.1754942e-38"}, /* the largest subnormal */
        {16777216.0f, "16777216.0"},
        {16777218.0f, "16777218.0"},
        {1e10f, "10000000000.0"},
        {1e15f, "1e+15"},
        {9007199254740992.0f, "9.007199e+15"},
        {1e-5f, "1e-05"},
        {1e-4f, "0.0001"},
        {0.3f, "0.3"},
        {1.17549435e-38f, "1.1754944e-38"},
        {3.0e-44f, "3e-44"},  /* 21 * 2^-149: 2.9e-44 is closer, 3e-44 shorter */
        {0x1p-96f, "1.2621775e-29"}, /* fewer digits than %.Ng: see float_agrees */
        {NAN, "\"NaN\""},
        {INFINITY, "\"Infinity\""},
        {-INFINITY, "\"-Infinity\""},
    };
    size_t i;
    (void)state;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char got[AVKI_JSON_NUMBER_MAX];
        size_t n = avki_json_format_float(got, cases[i].f);
        if (n != strlen(cases[i].text) || memcmp(got, cases[i].text, n) != 0)
            fail_msg("%a: got \"%.*s\", expected \"%s\"", (double)cases[i].f, (int)n, got,
                     cases[i].text);
        CHECK_F(cases[i].f);
    }
}

/* Powers of two (the narrower gap below), the ends of the range, the
 * denormals, integers up to 2^24 and beyond. */
static void test_float_edges(void **state)
{
    avkt_rng rng = {0x5eed0008u};
    int e;
    uint32_t u;
    long i;
    (void)state;
    for (e = -149; e <= 127; e++)
        check_around_float(ldexpf(1.0f, e), 3);
    check_around_float(FLT_MIN, 3);
    check_around_float(FLT_MAX, 3);
    /* The smallest denormals one by one, then a sample of the rest. */
    for (u = 1; u < 4096; u++)
        CHECK_F(float_from_bits(u));
    for (i = 0; i < SWEEP(100000); i++)
        CHECK_F(float_from_bits((uint32_t)avkt_below(&rng, 0x800000)));
    /* Integers: every one up to 2^16, a sample to 2^24, then past it (where
     * floats are even, then multiples of 4 ...). */
    for (u = 0; u <= 65536; u++)
        CHECK_F((float)u);
    for (i = 0; i < SWEEP(100000); i++)
        CHECK_F((float)avkt_below(&rng, 1u << 24));
    for (e = 24; e <= 40; e++)
        check_around_float(ldexpf(1.0f, e) + ldexpf(1.0f, e - 1), 3);
    for (i = 0; i < SWEEP(100000); i++) /* short decimals, as data often has */
        CHECK_F((float)(int64_t)avkt_below(&rng, 2000000) / 1000.0f);
}

/* Uniform bit patterns: every exponent, thousands of times each. (All
 * 2^31 positive floats were checked once the same way, outside the suite.) */
static void test_float_random_bits(void **state)
{
    avkt_rng rng = {0x5eed0009u};
    long i;
    (void)state;
    for (i = 0; i < SWEEP(2000000); i++)
        CHECK_F(float_from_bits((uint32_t)avkt_next(&rng)));
}

static void test_long(void **state)
{
    static const int64_t edges[] = {0, 1, -1, 9, 10, 99, 100, -100, 99999999, 100000000,
                                    -100000000, 4294967295, 4294967296, INT32_MAX, INT32_MIN,
                                    INT64_MAX, INT64_MIN, INT64_MIN + 1};
    avkt_rng rng = {0x5eed0007u};
    size_t i;
    (void)state;
    for (i = 0; i < sizeof edges / sizeof edges[0] + 200000; i++) {
        uint64_t u = avkt_next(&rng) >> (1 + avkt_below(&rng, 63));
        int64_t v = i < sizeof edges / sizeof edges[0] ? edges[i]
                    : avkt_below(&rng, 2)               ? -(int64_t)u
                                                        : (int64_t)u;
        char got[AVKI_JSON_NUMBER_MAX], want[32];
        size_t n = avki_json_format_long(got, v);
        sprintf(want, "%" PRId64, v);
        if (n != strlen(want) || memcmp(got, want, n) != 0)
            fail_msg("%" PRId64 ": got \"%.*s\"", v, (int)n, got);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixed_texts),
        cmocka_unit_test(test_random_bits),
        cmocka_unit_test(test_powers_of_two),
        cmocka_unit_test(test_powers_of_ten),
        cmocka_unit_test(test_subnormals),
        cmocka_unit_test(test_integers),
        cmocka_unit_test(test_exponent_switch),
        cmocka_unit_test(test_widened_floats),
        cmocka_unit_test(test_short_decimals),
        cmocka_unit_test(test_long),
        cmocka_unit_test(test_float_texts),
        cmocka_unit_test(test_float_edges),
        cmocka_unit_test(test_float_random_bits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
