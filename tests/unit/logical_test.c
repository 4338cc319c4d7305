/* Unit tests for logical type helpers: decimals, UUIDs, dates, times, timestamps, durations, interop table. */
#include <cjson/cJSON.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "avkt.h"

#ifndef AVK_INTEROP_DIR
#define AVK_INTEROP_DIR ""
#endif

/* ---- decimal to text ---------------------------------------------------- */

static void check_decimal(const char *hex_bytes, int scale, const char *want)
{
    uint8_t b[64];
    char buf[128];
    size_t len = avkt_unhex(hex_bytes, b, sizeof b), out_len = 0;
    AVKT_OK(avk_decimal_to_string(b, len, scale, buf, sizeof buf, &out_len));
    assert_string_equal(buf, want);
    assert_int_equal(out_len, strlen(want));
    /* Exactly enough room, and one byte less. */
    memset(buf, 'x', sizeof buf);
    AVKT_OK(avk_decimal_to_string(b, len, scale, buf, strlen(want) + 1, NULL));
    assert_string_equal(buf, want);
    out_len = 0;
    AVKT_ASSERT_STATUS(avk_decimal_to_string(b, len, scale, buf, strlen(want), &out_len),
                       AVK_ERR_LIMIT);
    assert_int_equal(out_len, strlen(want));
}

static void test_decimal_to_string(void **state)
{
    char buf[16];
    (void)state;
    check_decimal("7ab7", 4, "3.1415");
    check_decimal("8549", 4, "-3.1415");
    check_decimal("01", 4, "0.0001");
    check_decimal("ff", 4, "-0.0001");
    check_decimal("00", 0, "0");
    check_decimal("", 0, "0");
    check_decimal("", 2, "0.00");
    check_decimal("0000", 3, "0.000");
    check_decimal("00007b", 0, "123");
    check_decimal("ffff85", 1, "-12.3");
    check_decimal("7b", 3, "0.123");
    check_decimal("7b", 2, "1.23");
    check_decimal("80", 0, "-128");
    check_decimal("8000", 0, "-32768");
    check_decimal("ff00", 0, "-256");
    check_decimal("ffffffff", 0, "-1");
    check_decimal("3b9ac9ff", 0, "999999999");
    check_decimal("3b9aca00", 0, "1000000000");
    check_decimal("3b9aca00", 9, "1.000000000");
    check_decimal("3b9aca00", 10, "0.1000000000");
    check_decimal("0de0b6b3a7640000", 0, "1000000000000000000");
    check_decimal("010000000000000000", 0, "18446744073709551616");
    check_decimal("010000000000000000", 20, "0.18446744073709551616");
    check_decimal("010000000000000000", 25, "0.0000018446744073709551616");
    check_decimal("7fffffffffffffffffffffffffffffff", 0,
                  "170141183460469231731687303715884105727");
    check_decimal("80000000000000000000000000000000", 0,
                  "-170141183460469231731687303715884105728");
    check_decimal("80000000000000000000000000000000", 38,
                  "-1.70141183460469231731687303715884105728");
    /* Bad arguments. */
    AVKT_ASSERT_STATUS(avk_decimal_to_string((const uint8_t *)"\x01", 1, -1, buf, sizeof buf,
                                             NULL),
                       AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_decimal_to_string(NULL, 1, 0, buf, sizeof buf, NULL),
                       AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_decimal_to_string((const uint8_t *)"\x01", 1, 0, NULL, 0, NULL),
                       AVK_ERR_INVALID_ARGUMENT);
}

static void test_decimal_long_values(void **state)
{
    size_t n = 3000 + AVK_DECIMAL_MAX_BYTES, out_len, rt_len;
    uint8_t *b = (uint8_t *)calloc(n, 1), *rt = (uint8_t *)malloc(n);
    char *text = (char *)malloc(8 * n);
    (void)state;
    assert_non_null(b);
    assert_non_null(rt);
    assert_non_null(text);
    /* Sign-extension bytes cost nothing: 3000 zeros then 5. */
    b[n - 1] = 5;
    AVKT_OK(avk_decimal_to_string(b, n, 1, text, 8 * n, &out_len));
    assert_string_equal(text, "0.5");
    memset(b, 0xff, n);
    AVKT_OK(avk_decimal_to_string(b, n, 0, text, 8 * n, &out_len));
    assert_string_equal(text, "-1");
    /* The largest value allowed: 2^(8 * 2048 - 1) - 1, 4932 digits, and it
     * comes back through from_string. */
    memset(b, 0xff, AVK_DECIMAL_MAX_BYTES);
    b[0] = 0x7f;
    AVKT_OK(avk_decimal_to_string(b, AVK_DECIMAL_MAX_BYTES, 0, text, 8 * n, &out_len));
    assert_int_equal(out_len, 4932);
    assert_memory_equal(text + out_len - 10, "4982033407", 10); /* digits from Python */
    AVKT_OK(avk_decimal_from_string(text, out_len, 0, rt, n, &rt_len));
    assert_int_equal(rt_len, AVK_DECIMAL_MAX_BYTES);
    assert_memory_equal(rt, b, AVK_DECIMAL_MAX_BYTES);
    /* One significant byte more is refused. */
    memset(b, 0x11, AVK_DECIMAL_MAX_BYTES + 1);
    AVKT_ASSERT_STATUS(avk_decimal_to_string(b, AVK_DECIMAL_MAX_BYTES + 1, 0, text, 8 * n, NULL),
                       AVK_ERR_LIMIT);
    memset(text, '7', 4 * AVK_DECIMAL_MAX_BYTES + 1);
    AVKT_ASSERT_STATUS(avk_decimal_from_string(text, 4 * AVK_DECIMAL_MAX_BYTES + 1, 0, rt, n,
                                               &rt_len),
                       AVK_ERR_LIMIT);
    free(b);
    free(rt);
    free(text);
}

/* The shortest two's-complement form of b[0..len) (at least one byte). */
static size_t minimal(const uint8_t *b, size_t len, const uint8_t **start)
{
    size_t i = 0;
    if (len == 0) {
        *start = (const uint8_t *)"\0";
        return 1;
    }
    while (i + 1 < len && ((b[i] == 0 && !(b[i + 1] & 0x80)) || (b[i] == 0xff && (b[i + 1] & 0x80))))
        i++;
    *start = b + i;
    return len - i;
}

/* Up to 8 bytes against int64 arithmetic and printf: a second, independent
 * way to write the same number. */
static void expected_small(const uint8_t *b, size_t len, int scale, char *out)
{
    int64_t v = (len && (b[0] & 0x80)) ? -1 : 0;
    uint64_t mag;
    char digits[64];
    size_t i, nd, o = 0;
    for (i = 0; i < len; i++)
        v = (int64_t)(((uint64_t)v << 8) | b[i]);
    mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    /* The width reduced mod 48 only so the compiler sees it fits (scales
     * here are far smaller). */
    snprintf(digits, sizeof digits, "%0*llu", (int)((unsigned)(scale + 1) % 48u),
             (unsigned long long)mag);
    nd = strlen(digits);
    if (v < 0)
        out[o++] = '-';
    for (i = 0; i < nd; i++) {
        if (scale > 0 && i == nd - (size_t)scale)
            out[o++] = '.';
        out[o++] = digits[i];
    }
    out[o] = '\0';
}

static void test_decimal_random_round_trips(void **state)
{
    avkt_rng rng = {2024};
    uint8_t b[40], out[48];
    char text[256], want[64];
    size_t round, len, i, text_len, out_len, mlen;
    const uint8_t *m;
    (void)state;
    for (round = 0; round < 20000; round++) {
        int scale = (int)avkt_below(&rng, 30);
        len = (size_t)avkt_below(&rng, sizeof b + 1);
        for (i = 0; i < len; i++)
            b[i] = (uint8_t)avkt_next(&rng);
        /* Sign-extension runs now and then. */
        if (len > 2 && avkt_below(&rng, 4) == 0)
            memset(b, (b[0] & 0x80) ? 0xff : 0x00, len / 2);
        AVKT_OK(avk_decimal_to_string(b, len, scale, text, sizeof text, &text_len));
        assert_int_equal(text_len, strlen(text));
        if (len <= 8 && scale <= 19) {
            expected_small(b, len, scale, want);
            assert_string_equal(text, want);
        }
        AVKT_OK(avk_decimal_from_string(text, text_len, scale, out, sizeof out, &out_len));
        mlen = minimal(b, len, &m);
        assert_int_equal(out_len, mlen);
        assert_memory_equal(out, m, mlen);
    }
}

/* ---- text to decimal ---------------------------------------------------- */

static void check_parse(const char *text, int scale, const char *want_hex)
{
    uint8_t out[64];
    char hex[130];
    size_t len = 0, i;
    AVKT_OK(avk_decimal_from_string(text, strlen(text), scale, out, sizeof out, &len));
    for (i = 0; i < len; i++)
        snprintf(hex + 2 * i, 3, "%02x", out[i]);
    hex[2 * len] = '\0';
    assert_string_equal(hex, want_hex);
    /* Exactly enough room is enough; one byte less is not. */
    AVKT_OK(avk_decimal_from_string(text, strlen(text), scale, out, len, &len));
    assert_int_equal(len, strlen(want_hex) / 2);
    AVKT_ASSERT_STATUS(avk_decimal_from_string(text, strlen(text), scale, out, len - 1, &len),
                       AVK_ERR_LIMIT);
}

static void test_decimal_from_string(void **state)
{
    static const char *const bad[] = {"", "-", "+", ".", "-.", "1.2.3", "1e5", " 1", "1 ", "abc",
                                      "--1", "+-1", "0x10", "1,5"};
    uint8_t out[16];
    size_t len, i;
    (void)state;
    check_parse("3.1415", 4, "7ab7");
    check_parse("-3.1415", 4, "8549");
    check_parse("3", 0, "03");
    check_parse("3", 4, "7530");
    check_parse("3.14", 4, "7aa8");
    check_parse("0", 0, "00");
    check_parse("-0", 0, "00");
    check_parse("-0.000", 4, "00");
    check_parse("0.0000", 4, "00");
    check_parse("+5", 0, "05");
    check_parse("0001", 0, "01");
    check_parse(".5", 1, "05");
    check_parse("5.", 0, "05");
    check_parse("127", 0, "7f");
    check_parse("128", 0, "0080");
    check_parse("-128", 0, "80");
    check_parse("-129", 0, "ff7f");
    check_parse("255", 0, "00ff");
    check_parse("-256", 0, "ff00");
    check_parse("-32768", 0, "8000");
    check_parse("32768", 0, "008000");
    check_parse("99999999999999999999", 0, "056bc75e2d630fffff");
    check_parse("1000000000", 0, "3b9aca00");
    check_parse("-170141183460469231731687303715884105728", 0, "80000000000000000000000000000000");
    check_parse("170141183460469231731687303715884105728", 0, "0080000000000000000000000000000000");
    check_parse("1", 30, "0c9f2c9cd04674edea40000000");
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
        AVKT_ASSERT_STATUS(avk_decimal_from_string(bad[i], strlen(bad[i]), 2, out, sizeof out, &len),
                           AVK_ERR_INVALID_ARGUMENT);
    /* More fractional digits than the scale: the caller rounds. */
    AVKT_ASSERT_STATUS(avk_decimal_from_string("3.14159", 7, 4, out, sizeof out, &len),
                       AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_decimal_from_string("1.0", 3, 0, out, sizeof out, &len),
                       AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_decimal_from_string("1", 1, -1, out, sizeof out, &len),
                       AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_decimal_from_string("1", 1, 0, out, 0, &len), AVK_ERR_LIMIT);
    AVKT_ASSERT_STATUS(avk_decimal_from_string("1", 1, 0, NULL, 4, &len),
                       AVK_ERR_INVALID_ARGUMENT);
    /* A huge scale on a non-zero value fills cap and stops. */
    AVKT_ASSERT_STATUS(avk_decimal_from_string("1", 1, INT_MAX, out, sizeof out, &len),
                       AVK_ERR_LIMIT);
    AVKT_OK(avk_decimal_from_string("0", 1, INT_MAX, out, sizeof out, &len));
    assert_int_equal(len, 1);
    assert_int_equal(out[0], 0);
}

static void check_fixed(const char *hex_in, size_t n, const char *hex_want)
{
    uint8_t in[32], out[32];
    char hex[70];
    size_t len = strlen(hex_in) / 2, i;
    for (i = 0; i < len; i++) {
        unsigned x;
        sscanf(hex_in + 2 * i, "%2x", &x);
        in[i] = (uint8_t)x;
    }
    memset(out, 0xaa, sizeof out);
    if (!hex_want) {
        AVKT_ASSERT_STATUS(avk_decimal_to_fixed(in, len, out, n), AVK_ERR_LIMIT);
        for (i = 0; i < sizeof out; i++)
            assert_int_equal(out[i], 0xaa); /* untouched */
        return;
    }
    AVKT_OK(avk_decimal_to_fixed(in, len, out, n));
    for (i = 0; i < n; i++)
        snprintf(hex + 2 * i, 3, "%02x", out[i]);
    hex[2 * n] = '\0';
    assert_string_equal(hex, hex_want);
    assert_int_equal(out[n], 0xaa);
}

static void test_decimal_to_fixed(void **state)
{
    (void)state;
    check_fixed("7ab7", 8, "0000000000007ab7");
    check_fixed("8549", 8, "ffffffffffff8549");
    check_fixed("0080", 2, "0080");
    check_fixed("0080", 1, NULL);
    check_fixed("ff80", 1, "80");
    check_fixed("ff7f", 1, NULL);
    check_fixed("00000005", 1, "05");
    check_fixed("ffff", 1, "ff");
    check_fixed("ffff", 0, NULL);
    check_fixed("0000", 0, "");
    check_fixed("", 3, "000000");
    check_fixed("", 0, "");
    check_fixed("7f", 0, NULL);
    check_fixed("0102030405", 4, NULL);
    check_fixed("0102030405", 5, "0102030405");
    {
        uint8_t one[1];
        AVKT_ASSERT_STATUS(avk_decimal_to_fixed(NULL, 1, one, 1), AVK_ERR_INVALID_ARGUMENT);
    }
}

/* ---- uuid ------------------------------------------------------------------ */

static void test_uuid(void **state)
{
    static const char *const bad[] = {
        "00010203-0405-0607-0809-0a0b0c0d0e0",    /* 35 */
        "00010203-0405-0607-0809-0a0b0c0d0e0f0",  /* 37 */
        "000102030-405-0607-0809-0a0b0c0d0e0f",   /* hyphen moved */
        "00010203-0405-0607-0809-0a0b0c0d0e0g",   /* not hex */
        "00010203x0405-0607-0809-0a0b0c0d0e0f",
        "00010203-0405-0607-0809+0a0b0c0d0e0f",
        "000102030405060708090a0b0c0d0e0f",       /* no hyphens */
        "{0010203-0405-0607-0809-0a0b0c0d0e0f}",
    };
    uint8_t b[16], back[16];
    char s[AVK_UUID_STRING_SIZE];
    size_t i;
    (void)state;
    for (i = 0; i < 16; i++)
        b[i] = (uint8_t)i;
    AVKT_OK(avk_uuid_format(b, s));
    assert_string_equal(s, "00010203-0405-0607-0809-0a0b0c0d0e0f");
    AVKT_OK(avk_uuid_parse(s, 36, back));
    assert_memory_equal(back, b, 16);
    AVKT_OK(avk_uuid_parse("A4818E1C-8E59-11EB-8DCD-0242AC130003", 36, back));
    AVKT_OK(avk_uuid_format(back, s));
    assert_string_equal(s, "a4818e1c-8e59-11eb-8dcd-0242ac130003");
    AVKT_OK(avk_uuid_parse("570feebe-2bbc-4937-98DF-285944e1dbbd", 36, back));
    assert_int_equal(back[0], 0x57);
    assert_int_equal(back[8], 0x98);
    assert_int_equal(back[15], 0xbd);
    memset(b, 0xff, 16);
    AVKT_OK(avk_uuid_format(b, s));
    assert_string_equal(s, "ffffffff-ffff-ffff-ffff-ffffffffffff");
    memcpy(back, b, 16);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        AVKT_ASSERT_STATUS(avk_uuid_parse(bad[i], strlen(bad[i]), back), AVK_ERR_INVALID_ARGUMENT);
        assert_memory_equal(back, b, 16); /* untouched */
    }
    /* The text is read only up to len. */
    AVKT_ASSERT_STATUS(avk_uuid_parse("00010203-0405-0607-0809-0a0b0c0d0e0f", 35, back),
                       AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_uuid_parse(NULL, 36, back), AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_uuid_format(NULL, s), AVK_ERR_INVALID_ARGUMENT);
}

/* ---- dates ----------------------------------------------------------------- */

static void check_date(int32_t days, int y, unsigned m, unsigned d, const char *text)
{
    int gy;
    unsigned gm, gd;
    int32_t back;
    char buf[AVK_DATE_STRING_SIZE];
    AVKT_OK(avk_date_to_civil(days, &gy, &gm, &gd));
    assert_int_equal(gy, y);
    assert_int_equal(gm, m);
    assert_int_equal(gd, d);
    AVKT_OK(avk_date_from_civil(y, m, d, &back));
    AVKT_ASSERT_I64_EQ(back, days);
    AVKT_OK(avk_date_format(days, buf, sizeof buf));
    assert_string_equal(buf, text);
    AVKT_OK(avk_date_format(days, buf, strlen(text) + 1));
    AVKT_ASSERT_STATUS(avk_date_format(days, buf, strlen(text)), AVK_ERR_LIMIT);
}

static void test_dates(void **state)
{
    int32_t days;
    (void)state;
    check_date(0, 1970, 1, 1, "1970-01-01");
    check_date(-1, 1969, 12, 31, "1969-12-31");
    check_date(10957, 2000, 1, 1, "2000-01-01");
    check_date(11016, 2000, 2, 29, "2000-02-29");
    check_date(-25567, 1900, 1, 1, "1900-01-01");
    check_date(-141428, 1582, 10, 14, "1582-10-14"); /* proleptic: no Julian gap */
    check_date(-719528, 0, 1, 1, "0000-01-01");
    check_date(-719529, -1, 12, 31, "-0001-12-31");
    check_date(-719528 - 366, -2, 12, 31, "-0002-12-31");
    check_date(2932896, 9999, 12, 31, "9999-12-31");
    check_date(2932897, 10000, 1, 1, "+10000-01-01");
    check_date(INT32_MAX, 5881580, 7, 11, "+5881580-07-11");
    check_date(INT32_MIN, -5877641, 6, 23, "-5877641-06-23");

    /* Invalid dates and dates outside int32. */
    AVKT_ASSERT_STATUS(avk_date_from_civil(2001, 2, 29, &days), AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_date_from_civil(1900, 2, 29, &days), AVK_ERR_INVALID_ARGUMENT);
    AVKT_OK(avk_date_from_civil(-4, 2, 29, &days)); /* a leap year before 0 */
    AVKT_ASSERT_STATUS(avk_date_from_civil(-1, 2, 29, &days), AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_date_from_civil(2000, 13, 1, &days), AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_date_from_civil(2000, 0, 1, &days), AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_date_from_civil(2000, 4, 31, &days), AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_date_from_civil(2000, 4, 0, &days), AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_date_from_civil(5881580, 7, 12, &days), AVK_ERR_LIMIT);
    AVKT_ASSERT_STATUS(avk_date_from_civil(-5877641, 6, 22, &days), AVK_ERR_LIMIT);
    AVKT_ASSERT_STATUS(avk_date_from_civil(INT_MAX, 12, 31, &days), AVK_ERR_LIMIT);
    AVKT_ASSERT_STATUS(avk_date_from_civil(INT_MIN, 1, 1, &days), AVK_ERR_LIMIT);
    AVKT_ASSERT_STATUS(avk_date_from_civil(2000, 1, 1, NULL), AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_date_to_civil(0, NULL, NULL, NULL), AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_date_format(0, NULL, 20), AVK_ERR_INVALID_ARGUMENT);
}

/* Every day across 4000 years, against a plain day-by-day calendar walk. */
static void test_dates_walk(void **state)
{
    static const unsigned mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int y = -1000, gy;
    unsigned m = 1, d = 1, gm, gd;
    int32_t days, back;
    (void)state;
    AVKT_OK(avk_date_from_civil(-1000, 1, 1, &days));
    AVKT_ASSERT_I64_EQ(days, -719528 - 1000 * 365 - 242); /* 242 leap days in [-1000, 0) */
    for (; y < 3000; days++) {
        int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        AVKT_OK(avk_date_to_civil(days, &gy, &gm, &gd));
        if (gy != y || gm != m || gd != d)
            fail_msg("day %d: got %d-%u-%u, expected %d-%u-%u", (int)days, gy, gm, gd, y, m, d);
        AVKT_OK(avk_date_from_civil(y, m, d, &back));
        AVKT_ASSERT_I64_EQ(back, days);
        if (++d > mdays[m - 1] + (m == 2 && leap)) {
            d = 1;
            if (++m > 12) {
                m = 1;
                y++;
            }
        }
    }
}

/* ---- times and timestamps --------------------------------------------------- */

static void check_time(int64_t v, avk_logical unit, const char *want)
{
    char buf[AVK_TIME_STRING_SIZE];
    AVKT_OK(avk_time_format(v, unit, buf, sizeof buf));
    assert_string_equal(buf, want);
    AVKT_OK(avk_time_format(v, unit, buf, strlen(want) + 1));
    AVKT_ASSERT_STATUS(avk_time_format(v, unit, buf, strlen(want)), AVK_ERR_LIMIT);
}

static void test_times(void **state)
{
    char buf[AVK_TIME_STRING_SIZE];
    (void)state;
    check_time(0, AVK_LOGICAL_TIME_MILLIS, "00:00:00.000");
    check_time(86399999, AVK_LOGICAL_TIME_MILLIS, "23:59:59.999");
    check_time(45296789, AVK_LOGICAL_TIME_MILLIS, "12:34:56.789");
    check_time(0, AVK_LOGICAL_TIME_MICROS, "00:00:00.000000");
    check_time(86399999999LL, AVK_LOGICAL_TIME_MICROS, "23:59:59.999999");
    check_time(3723000004LL, AVK_LOGICAL_TIME_MICROS, "01:02:03.000004");
    AVKT_ASSERT_STATUS(avk_time_format(-1, AVK_LOGICAL_TIME_MILLIS, buf, sizeof buf),
                       AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_time_format(86400000, AVK_LOGICAL_TIME_MILLIS, buf, sizeof buf),
                       AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_time_format(86400000000LL, AVK_LOGICAL_TIME_MICROS, buf, sizeof buf),
                       AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_time_format(0, AVK_LOGICAL_TIMESTAMP_MILLIS, buf, sizeof buf),
                       AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_time_format(0, AVK_LOGICAL_TIME_MILLIS, NULL, 0),
                       AVK_ERR_INVALID_ARGUMENT);
}

static void check_timestamp(int64_t v, avk_logical unit, const char *want)
{
    char buf[AVK_TIMESTAMP_STRING_SIZE];
    int64_t days, back;
    uint32_t secs, frac;
    AVKT_OK(avk_timestamp_format(v, unit, buf, sizeof buf));
    assert_string_equal(buf, want);
    assert_true(strlen(want) < AVK_TIMESTAMP_STRING_SIZE);
    AVKT_OK(avk_timestamp_format(v, unit, buf, strlen(want) + 1));
    AVKT_ASSERT_STATUS(avk_timestamp_format(v, unit, buf, strlen(want)), AVK_ERR_LIMIT);
    AVKT_OK(avk_timestamp_split(v, unit, &days, &secs, &frac));
    AVKT_OK(avk_timestamp_join(days, secs, frac, unit, &back));
    AVKT_ASSERT_I64_EQ(back, v);
}

static void test_timestamps(void **state)
{
    char buf[AVK_TIMESTAMP_STRING_SIZE];
    int64_t days, v;
    uint32_t secs, frac;
    (void)state;
    check_timestamp(0, AVK_LOGICAL_TIMESTAMP_MILLIS, "1970-01-01T00:00:00.000Z");
    check_timestamp(-1, AVK_LOGICAL_TIMESTAMP_MILLIS, "1969-12-31T23:59:59.999Z");
    check_timestamp(-1, AVK_LOGICAL_TIMESTAMP_MICROS, "1969-12-31T23:59:59.999999Z");
    check_timestamp(-1, AVK_LOGICAL_TIMESTAMP_NANOS, "1969-12-31T23:59:59.999999999Z");
    check_timestamp(0, AVK_LOGICAL_LOCAL_TIMESTAMP_MICROS, "1970-01-01T00:00:00.000000");
    check_timestamp(-1, AVK_LOGICAL_LOCAL_TIMESTAMP_MILLIS, "1969-12-31T23:59:59.999");
    check_timestamp(1700000000123LL, AVK_LOGICAL_TIMESTAMP_MILLIS, "2023-11-14T22:13:20.123Z");
    check_timestamp(1700000000123456789LL, AVK_LOGICAL_LOCAL_TIMESTAMP_NANOS,
                    "2023-11-14T22:13:20.123456789");
    check_timestamp(951782400000000LL, AVK_LOGICAL_TIMESTAMP_MICROS, "2000-02-29T00:00:00.000000Z");
    /* The ends of int64 in each unit. */
    check_timestamp(INT64_MIN, AVK_LOGICAL_TIMESTAMP_MILLIS, "-292275055-05-16T16:47:04.192Z");
    check_timestamp(INT64_MAX, AVK_LOGICAL_TIMESTAMP_MILLIS, "+292278994-08-17T07:12:55.807Z");
    check_timestamp(INT64_MIN, AVK_LOGICAL_TIMESTAMP_MICROS, "-290308-12-21T19:59:05.224192Z");
    check_timestamp(INT64_MAX, AVK_LOGICAL_TIMESTAMP_MICROS, "+294247-01-10T04:00:54.775807Z");
    check_timestamp(INT64_MIN, AVK_LOGICAL_TIMESTAMP_NANOS, "1677-09-21T00:12:43.145224192Z");
    check_timestamp(INT64_MAX, AVK_LOGICAL_TIMESTAMP_NANOS, "2262-04-11T23:47:16.854775807Z");

    /* Split by floor division. */
    AVKT_OK(avk_timestamp_split(-1, AVK_LOGICAL_TIMESTAMP_MILLIS, &days, &secs, &frac));
    AVKT_ASSERT_I64_EQ(days, -1);
    assert_int_equal(secs, 86399);
    assert_int_equal(frac, 999);
    AVKT_OK(avk_timestamp_split(86400000000LL, AVK_LOGICAL_LOCAL_TIMESTAMP_MICROS, &days, NULL, NULL));
    AVKT_ASSERT_I64_EQ(days, 1);
    AVKT_ASSERT_STATUS(avk_timestamp_split(0, AVK_LOGICAL_DATE, &days, &secs, &frac),
                       AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_timestamp_split(0, AVK_LOGICAL_TIMESTAMP_MILLIS, NULL, &secs, &frac),
                       AVK_ERR_INVALID_ARGUMENT);
    /* Join checks its parts and int64. */
    AVKT_ASSERT_STATUS(avk_timestamp_join(0, 86400, 0, AVK_LOGICAL_TIMESTAMP_MILLIS, &v),
                       AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_timestamp_join(0, 0, 1000, AVK_LOGICAL_TIMESTAMP_MILLIS, &v),
                       AVK_ERR_INVALID_ARGUMENT);
    AVKT_OK(avk_timestamp_join(0, 0, 999999999, AVK_LOGICAL_TIMESTAMP_NANOS, &v));
    AVKT_ASSERT_I64_EQ(v, 999999999);
    AVKT_ASSERT_STATUS(avk_timestamp_join(106752, 0, 0, AVK_LOGICAL_TIMESTAMP_NANOS, &v),
                       AVK_ERR_LIMIT);
    AVKT_ASSERT_STATUS(avk_timestamp_join(INT64_MAX, 0, 0, AVK_LOGICAL_TIMESTAMP_MILLIS, &v),
                       AVK_ERR_LIMIT);
    AVKT_ASSERT_STATUS(avk_timestamp_join(0, 0, 0, AVK_LOGICAL_TIME_MICROS, &v),
                       AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_timestamp_format(0, AVK_LOGICAL_TIME_MILLIS, buf, sizeof buf),
                       AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_timestamp_format(0, AVK_LOGICAL_TIMESTAMP_MILLIS, NULL, 0),
                       AVK_ERR_INVALID_ARGUMENT);
}

/* ---- duration ------------------------------------------------------------------ */

static void test_duration(void **state)
{
    static const uint8_t b[12] = {1, 0, 0, 0, 0x02, 0x01, 0, 0, 0xff, 0xff, 0xff, 0xff};
    uint8_t out[12];
    uint32_t months, days, millis;
    (void)state;
    AVKT_OK(avk_duration_decode(b, &months, &days, &millis));
    assert_int_equal(months, 1);
    assert_int_equal(days, 258);
    assert_int_equal(millis, UINT32_MAX);
    AVKT_OK(avk_duration_encode(months, days, millis, out));
    assert_memory_equal(out, b, 12);
    AVKT_OK(avk_duration_encode(0x01020304u, 0, 7, out));
    assert_memory_equal(out, "\x04\x03\x02\x01\x00\x00\x00\x00\x07\x00\x00\x00", 12);
    AVKT_OK(avk_duration_decode(b, NULL, &days, NULL));
    AVKT_ASSERT_STATUS(avk_duration_decode(NULL, &months, &days, &millis), AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_duration_encode(1, 2, 3, NULL), AVK_ERR_INVALID_ARGUMENT);
}

/* ---- the apache/avro interop table ------------------------------------------- */

/* Python's "HH:MM:SS[.ffffff]" with digits digits of fraction. */
static void python_time(const char *py, unsigned digits, char *out, size_t cap)
{
    const char *dot = strchr(py, '.');
    char frac[10] = "000000000";
    size_t i;
    if (dot)
        for (i = 0; i < 9 && dot[1 + i] >= '0' && dot[1 + i] <= '9'; i++)
            frac[i] = dot[1 + i];
    snprintf(out, cap, "%.8s.%.*s", py, (int)digits, frac);
}

static void check_interop_entry(const cJSON *e, int *decimals, int *temporals)
{
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(e, "schema");
    const cJSON *datum = cJSON_GetObjectItemCaseSensitive(e, "datum");
    const cJSON *back = cJSON_GetObjectItemCaseSensitive(e, "read_back");
    const char *hex = cJSON_GetObjectItemCaseSensitive(e, "binary_hex")->valuestring;
    const cJSON *logical = cJSON_IsObject(schema) ? cJSON_GetObjectItemCaseSensitive(schema, "logicalType") : NULL;
    const char *type = cJSON_IsObject(schema) ? cJSON_GetObjectItemCaseSensitive(schema, "type")->valuestring : "";
    uint8_t bin[64], out[64];
    char text[128], want[128];
    size_t n, len, out_len;
    int64_t v;
    if (!logical || !cJSON_IsObject(datum))
        return;
    n = avkt_unhex(hex, bin, sizeof bin);
    if (cJSON_GetObjectItemCaseSensitive(datum, "$decimal")) {
        const cJSON *sc = cJSON_GetObjectItemCaseSensitive(schema, "scale");
        int scale = sc ? sc->valueint : 0;
        const char *dtext = cJSON_GetObjectItemCaseSensitive(datum, "$decimal")->valuestring;
        const uint8_t *unscaled = bin;
        len = n;
        if (strcmp(type, "bytes") == 0) { /* a zigzag length, then the bytes */
            size_t k = avk_varint_decode_long(bin, n, &v);
            assert_true(k > 0);
            unscaled = bin + k;
            len = (size_t)v;
            assert_int_equal(k + len, n);
        }
        AVKT_OK(avk_decimal_to_string(unscaled, len, scale, text, sizeof text, &out_len));
        assert_string_equal(text, cJSON_GetObjectItemCaseSensitive(back, "$decimal")->valuestring);
        AVKT_OK(avk_decimal_from_string(dtext, strlen(dtext), scale, out, sizeof out, &out_len));
        if (strcmp(type, "fixed") == 0) {
            uint8_t fixed[64];
            size_t size = (size_t)cJSON_GetObjectItemCaseSensitive(schema, "size")->valueint;
            AVKT_OK(avk_decimal_to_fixed(out, out_len, fixed, size));
            assert_int_equal(size, len);
            assert_memory_equal(fixed, unscaled, size);
        } else {
            assert_int_equal(out_len, len);
            assert_memory_equal(out, unscaled, len);
        }
        (*decimals)++;
        return;
    }
    assert_true(avk_varint_decode_long(bin, n, &v) == n);
    if (cJSON_GetObjectItemCaseSensitive(datum, "$date")) {
        AVKT_OK(avk_date_format((int32_t)v, text, sizeof text));
        assert_string_equal(text, cJSON_GetObjectItemCaseSensitive(back, "$date")->valuestring);
        (*temporals)++;
    } else if (cJSON_GetObjectItemCaseSensitive(datum, "$time")) {
        int micros = strcmp(logical->valuestring, "time-micros") == 0;
        python_time(cJSON_GetObjectItemCaseSensitive(back, "$time")->valuestring, micros ? 6 : 3,
                    want, sizeof want);
        AVKT_OK(avk_time_format(v, micros ? AVK_LOGICAL_TIME_MICROS : AVK_LOGICAL_TIME_MILLIS, text,
                                sizeof text));
        assert_string_equal(text, want);
        (*temporals)++;
    } else if (cJSON_GetObjectItemCaseSensitive(datum, "$datetime")) {
        /* Python writes "YYYY-MM-DDTHH:MM:SS[.ffffff]+00:00" in UTC. */
        const char *py = cJSON_GetObjectItemCaseSensitive(back, "$datetime")->valuestring;
        int micros = strcmp(logical->valuestring, "timestamp-micros") == 0;
        assert_non_null(strstr(py, "+00:00"));
        memcpy(want, py, 11);
        python_time(py + 11, micros ? 6 : 3, want + 11, sizeof want - 11);
        strcat(want, "Z");
        AVKT_OK(avk_timestamp_format(v, micros ? AVK_LOGICAL_TIMESTAMP_MICROS
                                               : AVK_LOGICAL_TIMESTAMP_MILLIS,
                                     text, sizeof text));
        assert_string_equal(text, want);
        (*temporals)++;
    }
}

static void test_interop_table(void **state)
{
    char *text;
    cJSON *doc;
    const cJSON *e;
    int decimals = 0, temporals = 0;
    (void)state;
    text = avkt_interop_read(AVK_INTEROP_DIR, "tables/py_io_schema_datum_binary.json", NULL);
    if (!text)
        skip();
    doc = cJSON_Parse(text);
    assert_non_null(doc);
    cJSON_ArrayForEach(e, doc) {
        const cJSON *schema = cJSON_GetObjectItemCaseSensitive(e, "schema");
        /* Unions wrap the logical type: only the plain ones here. */
        if (cJSON_IsObject(schema))
            check_interop_entry(e, &decimals, &temporals);
    }
    /* 6 decimals (fixed and bytes, +-3.1415 and 3); 1 date, 4 times and
     * 6 timestamps outside unions. */
    assert_int_equal(decimals, 6);
    assert_int_equal(temporals, 11);
    cJSON_Delete(doc);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(avkt_test_kernel_choice),
        cmocka_unit_test(test_decimal_to_string),
        cmocka_unit_test(test_decimal_long_values),
        cmocka_unit_test(test_decimal_random_round_trips),
        cmocka_unit_test(test_decimal_from_string),
        cmocka_unit_test(test_decimal_to_fixed),
        cmocka_unit_test(test_uuid),
        cmocka_unit_test(test_dates),
        cmocka_unit_test(test_dates_walk),
        cmocka_unit_test(test_times),
        cmocka_unit_test(test_timestamps),
        cmocka_unit_test(test_duration),
        cmocka_unit_test(test_interop_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
