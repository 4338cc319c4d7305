/* Unit tests for the varint codec: zigzag, single values, interop table, bad input, bulk calls, sizes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "avkt.h"
#include "guard.h"

#ifndef AVK_INTEROP_DIR
#define AVK_INTEROP_DIR ""
#endif

/* ---- zigzag ---------------------------------------------------------------- */

static void test_zigzag64(void **state)
{
    static const struct {
        int64_t v;
        uint64_t u;
    } table[] = {
        {0, 0},
        {-1, 1},
        {1, 2},
        {-2, 3},
        {2, 4},
        {63, 126},
        {-64, 127},
        {INT32_MAX, 0xfffffffeULL},
        {INT32_MIN, 0xffffffffULL},
        {INT64_MAX, 0xfffffffffffffffeULL},
        {INT64_MIN, 0xffffffffffffffffULL},
        {INT64_MAX - 1, 0xfffffffffffffffcULL},
        {INT64_MIN + 1, 0xfffffffffffffffdULL},
    };
    size_t i;
    (void)state;
    for (i = 0; i < sizeof table / sizeof table[0]; i++) {
        assert_true(avk_zigzag_encode64(table[i].v) == table[i].u);
        AVKT_ASSERT_I64_EQ(avk_zigzag_decode64(table[i].u), table[i].v);
    }
}

static void test_zigzag32(void **state)
{
    static const struct {
        int32_t v;
        uint32_t u;
    } table[] = {
        {0, 0},
        {-1, 1},
        {1, 2},
        {-2, 3},
        {2, 4},
        {63, 126},
        {-64, 127},
        {INT32_MAX, 0xfffffffeU},
        {INT32_MIN, 0xffffffffU},
        {INT32_MAX - 1, 0xfffffffcU},
        {INT32_MIN + 1, 0xfffffffdU},
    };
    size_t i;
    (void)state;
    for (i = 0; i < sizeof table / sizeof table[0]; i++) {
        assert_true(avk_zigzag_encode32(table[i].v) == table[i].u);
        assert_true(avk_zigzag_decode32(table[i].u) == table[i].v);
    }
}

/* ---- single values: exact bytes --------------------------------------------- */

typedef struct encoded {
    int64_t value;
    size_t len;
    uint8_t bytes[AVK_VARINT_LONG_MAX];
} encoded;

/* Computed independently (a few lines of Python straight from the spec):
 * the named values, then for every length 1 to 10 the smallest and largest
 * zigzag values of that length and their neighbours. */
static const encoded table[] = {
    {INT64_C(0), 1, {0x00}},
    {INT64_C(-1), 1, {0x01}},
    {INT64_C(1), 1, {0x02}},
    {INT64_C(63), 1, {0x7e}},
    {INT64_C(-64), 1, {0x7f}},
    {INT64_C(64), 2, {0x80, 0x01}},
    {INT64_C(8191), 2, {0xfe, 0x7f}},
    {INT64_C(-8192), 2, {0xff, 0x7f}},
    {INT64_C(8192), 3, {0x80, 0x80, 0x01}},
    {INT64_C(1048576), 4, {0x80, 0x80, 0x80, 0x01}},
    {INT64_C(2147483647), 5, {0xfe, 0xff, 0xff, 0xff, 0x0f}},
    {INT64_C(-2147483648), 5, {0xff, 0xff, 0xff, 0xff, 0x0f}},
    {INT64_C(9223372036854775807), 10, {0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
    {INT64_MIN, 10, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
    {INT64_C(-65), 2, {0x81, 0x01}},
    {INT64_C(-8193), 3, {0x81, 0x80, 0x01}},
    {INT64_C(1048575), 3, {0xfe, 0xff, 0x7f}},
    {INT64_C(-1048576), 3, {0xff, 0xff, 0x7f}},
    {INT64_C(-1048577), 4, {0x81, 0x80, 0x80, 0x01}},
    {INT64_C(134217727), 4, {0xfe, 0xff, 0xff, 0x7f}},
    {INT64_C(-134217728), 4, {0xff, 0xff, 0xff, 0x7f}},
    {INT64_C(134217728), 5, {0x80, 0x80, 0x80, 0x80, 0x01}},
    {INT64_C(-134217729), 5, {0x81, 0x80, 0x80, 0x80, 0x01}},
    {INT64_C(17179869183), 5, {0xfe, 0xff, 0xff, 0xff, 0x7f}},
    {INT64_C(-17179869184), 5, {0xff, 0xff, 0xff, 0xff, 0x7f}},
    {INT64_C(17179869184), 6, {0x80, 0x80, 0x80, 0x80, 0x80, 0x01}},
    {INT64_C(-17179869185), 6, {0x81, 0x80, 0x80, 0x80, 0x80, 0x01}},
    {INT64_C(2199023255551), 6, {0xfe, 0xff, 0xff, 0xff, 0xff, 0x7f}},
    {INT64_C(-2199023255552), 6, {0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}},
    {INT64_C(2199023255552), 7, {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}},
    {INT64_C(-2199023255553), 7, {0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}},
    {INT64_C(281474976710655), 7, {0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}},
    {INT64_C(-281474976710656), 7, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}},
    {INT64_C(281474976710656), 8, {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}},
    {INT64_C(-281474976710657), 8, {0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}},
    {INT64_C(36028797018963967), 8, {0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}},
    {INT64_C(-36028797018963968), 8, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}},
    {INT64_C(36028797018963968), 9, {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}},
    {INT64_C(-36028797018963969), 9, {0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}},
    {INT64_C(4611686018427387903), 9, {0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}},
    {INT64_C(-4611686018427387904), 9, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}},
    {INT64_C(4611686018427387904), 10, {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}},
    {INT64_C(-4611686018427387905), 10, {0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}},
};
#define TABLE_LEN (sizeof table / sizeof table[0])

static int fits_int32(int64_t v)
{
    return v >= INT32_MIN && v <= INT32_MAX;
}

static void test_table_has_every_length(void **state)
{
    int seen[AVK_VARINT_LONG_MAX + 1] = {0};
    size_t i, len;
    (void)state;
    for (i = 0; i < TABLE_LEN; i++)
        seen[table[i].len] = 1;
    for (len = 1; len <= AVK_VARINT_LONG_MAX; len++)
        assert_true(seen[len]);
}

static void test_encode_long_exact(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < TABLE_LEN; i++) {
        uint8_t out[AVK_VARINT_LONG_MAX + 6];
        size_t n;
        memset(out, 0xaa, sizeof out);
        n = avk_varint_encode_long(out, table[i].value);
        if (n != table[i].len)
            fail_msg("encode_long(%lld) returned %zu, expected %zu", (long long)table[i].value, n,
                     table[i].len);
        assert_memory_equal(out, table[i].bytes, n);
        /* Never beyond the documented 10 bytes. */
        assert_int_equal(out[AVK_VARINT_LONG_MAX], 0xaa);
        assert_int_equal(avk_varint_size_long(table[i].value), table[i].len);
    }
}

static void test_encode_int_exact(void **state)
{
    size_t i, checked = 0;
    (void)state;
    for (i = 0; i < TABLE_LEN; i++) {
        uint8_t out[AVK_VARINT_LONG_MAX + 6];
        size_t n;
        if (!fits_int32(table[i].value))
            continue;
        memset(out, 0xaa, sizeof out);
        n = avk_varint_encode_int(out, (int32_t)table[i].value);
        assert_int_equal(n, table[i].len);
        assert_true(n <= AVK_VARINT_INT_MAX);
        assert_memory_equal(out, table[i].bytes, n);
        assert_int_equal(out[AVK_VARINT_LONG_MAX], 0xaa);
        checked++;
    }
    assert_true(checked >= 20);
}

static void test_decode_long_exact(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < TABLE_LEN; i++) {
        avkt_guard g;
        uint8_t padded[AVK_VARINT_LONG_MAX + 16];
        int64_t v = 0x1234;
        /* Ending at a guard page: the careful path must not look further. */
        const uint8_t *p = avkt_guard_copy(&g, table[i].bytes, table[i].len);
        assert_non_null(p);
        assert_int_equal(avk_varint_decode_long(p, table[i].len, &v), table[i].len);
        AVKT_ASSERT_I64_EQ(v, table[i].value);
        avkt_guard_free(&g);
        /* With bytes after it (continuation bits set): the word path. */
        memset(padded, 0xff, sizeof padded);
        memcpy(padded, table[i].bytes, table[i].len);
        v = 0x1234;
        assert_int_equal(avk_varint_decode_long(padded, sizeof padded, &v), table[i].len);
        AVKT_ASSERT_I64_EQ(v, table[i].value);
        /* Exactly 10 bytes available. */
        v = 0x1234;
        assert_int_equal(avk_varint_decode_long(padded, AVK_VARINT_LONG_MAX, &v), table[i].len);
        AVKT_ASSERT_I64_EQ(v, table[i].value);
    }
}

static void test_decode_int_exact(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < TABLE_LEN; i++) {
        avkt_guard g;
        uint8_t padded[AVK_VARINT_LONG_MAX + 16];
        int32_t v = 0x1234;
        size_t want = fits_int32(table[i].value) ? table[i].len : 0;
        const uint8_t *p = avkt_guard_copy(&g, table[i].bytes, table[i].len);
        assert_non_null(p);
        /* Values beyond 32 bits are malformed ints (0), however long. */
        if (avk_varint_decode_int(p, table[i].len, &v) != want)
            fail_msg("decode_int of %lld (%zu bytes) at a guard page: expected %zu",
                     (long long)table[i].value, table[i].len, want);
        if (want)
            assert_true(v == (int32_t)table[i].value);
        avkt_guard_free(&g);
        memset(padded, 0xff, sizeof padded);
        memcpy(padded, table[i].bytes, table[i].len);
        v = 0x1234;
        if (avk_varint_decode_int(padded, sizeof padded, &v) != want)
            fail_msg("decode_int of %lld (%zu bytes) padded: expected %zu",
                     (long long)table[i].value, table[i].len, want);
        if (want)
            assert_true(v == (int32_t)table[i].value);
    }
}

/* Every table value through the bulk calls, as one concatenated stream. */
static void test_table_bulk(void **state)
{
    uint8_t bytes[TABLE_LEN * AVK_VARINT_LONG_MAX], enc[TABLE_LEN * AVK_VARINT_LONG_MAX];
    int64_t values[TABLE_LEN], out[TABLE_LEN];
    size_t i, len = 0, consumed = 0;
    avkt_guard g;
    const uint8_t *p;
    avk_error err;
    (void)state;
    for (i = 0; i < TABLE_LEN; i++) {
        memcpy(bytes + len, table[i].bytes, table[i].len);
        len += table[i].len;
        values[i] = table[i].value;
    }
    p = avkt_guard_copy(&g, bytes, len);
    AVKT_OK(avk_varint_decode_longs(p, len, out, TABLE_LEN, &consumed, &err));
    assert_int_equal(consumed, len);
    assert_memory_equal(out, values, sizeof values);
    avkt_guard_free(&g);
    assert_int_equal(avk_varint_encode_longs(enc, values, TABLE_LEN), len);
    assert_memory_equal(enc, bytes, len);
    assert_int_equal(avk_varint_size_longs(values, TABLE_LEN), len);
}

/* ---- interop table ----------------------------------------------------------- */

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *data = NULL;
    size_t cap = 0, n = 0;
    if (!f)
        return NULL;
    for (;;) {
        size_t got;
        if (n + 4096 + 1 > cap) {
            char *nd;
            cap = cap ? cap * 2 : 8192;
            nd = (char *)realloc(data, cap);
            if (!nd) {
                free(data);
                fclose(f);
                return NULL;
            }
            data = nd;
        }
        got = fread(data + n, 1, 4096, f);
        n += got;
        if (got < 4096)
            break;
    }
    fclose(f);
    data[n] = '\0';
    *len = n;
    return data;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Finds "key" inside [p, end) and returns the first non-blank after its ':'. */
static const char *find_key(const char *p, const char *end, const char *key)
{
    size_t klen = strlen(key);
    for (; p + klen + 2 <= end; p++) {
        if (p[0] == '"' && memcmp(p + 1, key, klen) == 0 && p[1 + klen] == '"') {
            p += klen + 2;
            while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
                p++;
            if (p == end || *p != ':')
                return NULL;
            p++;
            while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
                p++;
            return p;
        }
    }
    return NULL;
}

/* The table is a JSON array of flat objects {"value": <integer>, "hex":
 * "<bytes as hex pairs, space separated>"}: a small scanner is enough. */
static void test_interop_table(void **state)
{
    char path[1024];
    char *json;
    size_t json_len = 0, rows = 0;
    const char *p, *end;
    (void)state;
    snprintf(path, sizeof path, "%s/apache/tables/py_io_zigzag_varint.json", AVK_INTEROP_DIR);
    json = slurp(path, &json_len);
    if (!json) {
        print_message("SKIP: interop table %s not readable (%s); the shared interop data "
                      "is expected beside the source tree at ../shared/interop\n",
                      path, strerror(errno));
        skip();
    }
    p = json;
    end = json + json_len;
    while ((p = memchr(p, '{', (size_t)(end - p))) != NULL) {
        const char *close = memchr(p, '}', (size_t)(end - p));
        const char *vp, *hp;
        char *num_end;
        long long value;
        uint8_t bytes[32], out[AVK_VARINT_LONG_MAX + 6];
        size_t nbytes = 0, n;
        int64_t decoded;
        assert_non_null(close);
        vp = find_key(p, close, "value");
        hp = find_key(p, close, "hex");
        if (!vp || !hp)
            fail_msg("interop row %zu lacks \"value\" or \"hex\"", rows);
        errno = 0;
        value = strtoll(vp, &num_end, 10);
        assert_int_equal(errno, 0);
        assert_true(num_end > vp && num_end <= close);
        assert_int_equal(*hp, '"');
        for (hp++; hp < close && *hp != '"';) {
            int hi, lo;
            if (*hp == ' ') {
                hp++;
                continue;
            }
            hi = hex_digit(hp[0]);
            lo = hex_digit(hp[1]);
            assert_true(hi >= 0 && lo >= 0);
            assert_true(nbytes < sizeof bytes);
            bytes[nbytes++] = (uint8_t)(hi << 4 | lo);
            hp += 2;
        }
        assert_true(nbytes >= 1 && nbytes <= AVK_VARINT_LONG_MAX);
        /* value -> bytes */
        n = avk_varint_encode_long(out, (int64_t)value);
        if (n != nbytes || memcmp(out, bytes, n) != 0)
            fail_msg("interop row %zu: encoding %lld differs from the table", rows, value);
        assert_int_equal(avk_varint_size_long((int64_t)value), nbytes);
        /* bytes -> value, at a guard page */
        {
            avkt_guard g;
            const uint8_t *gp = avkt_guard_copy(&g, bytes, nbytes);
            n = avk_varint_decode_long(gp, nbytes, &decoded);
            assert_int_equal(n, nbytes);
            AVKT_ASSERT_I64_EQ(decoded, value);
            if (fits_int32(value)) {
                int32_t d32;
                assert_int_equal(avk_varint_decode_int(gp, nbytes, &d32), nbytes);
                assert_true(d32 == (int32_t)value);
            }
            avkt_guard_free(&g);
        }
        rows++;
        p = close + 1;
    }
    free(json);
    print_message("interop table: %zu rows checked both ways\n", rows);
    assert_true(rows > 0);
}

/* ---- bad input --------------------------------------------------------------- */

typedef struct bad_case {
    const char *what;
    int is_int;
    size_t len;
    uint8_t bytes[16];
    avk_status status;
    uint64_t offset; /* of the error, relative to the varint */
} bad_case;

/* The offsets pin today's behaviour of avk_varint_explain: a varint with
 * too many bytes is reported at its first byte, bits beyond 64 (32) at
 * the offending last byte, truncation at the varint's first byte. */
static const bad_case bad_cases[] = {
    {"11-byte long", 0, 11, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
     AVK_ERR_MALFORMED, 0},
    {"11-byte long of zeros", 0, 11, {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00},
     AVK_ERR_MALFORMED, 0},
    {"10 continuation bytes", 0, 10, {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80},
     AVK_ERR_MALFORMED, 0},
    {"long 10th byte 0x02", 0, 10, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02},
     AVK_ERR_MALFORMED, 9},
    {"long 10th byte 0x7f", 0, 10, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f},
     AVK_ERR_MALFORMED, 9},
    {"long 10th byte 0x02, zero payload", 0, 10, {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02},
     AVK_ERR_MALFORMED, 9},
    {"6-byte int", 1, 6, {0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, AVK_ERR_MALFORMED, 0},
    {"6-byte int of zeros", 1, 6, {0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, AVK_ERR_MALFORMED, 0},
    {"int 5th byte 0x10", 1, 5, {0xff, 0xff, 0xff, 0xff, 0x10}, AVK_ERR_MALFORMED, 4},
    {"int 5th byte 0x7f", 1, 5, {0xff, 0xff, 0xff, 0xff, 0x7f}, AVK_ERR_MALFORMED, 4},
    {"int 5th byte 0x10, zero payload", 1, 5, {0x80, 0x80, 0x80, 0x80, 0x10}, AVK_ERR_MALFORMED, 4},
    {"10-byte long read as int", 1, 10, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
     AVK_ERR_MALFORMED, 0},
    {"empty long", 0, 0, {0}, AVK_ERR_TRUNCATED, 0},
    {"empty int", 1, 0, {0}, AVK_ERR_TRUNCATED, 0},
    {"9 continuation bytes", 0, 9, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
     AVK_ERR_TRUNCATED, 0},
    {"4 continuation bytes, int", 1, 4, {0xff, 0xff, 0xff, 0xff}, AVK_ERR_TRUNCATED, 0},
};

/* Decodes one bad varint from data[0..len) (at a guard page) and checks
 * the single decoders return 0 and explain names status and offset. */
static void check_bad_single(const char *what, const uint8_t *data, size_t len, int is_int,
                             avk_status status, uint64_t offset)
{
    static const uint64_t bases[] = {0, 1000, (uint64_t)1 << 40};
    size_t b;
    avkt_guard g;
    const uint8_t *p = avkt_guard_copy(&g, data, len);
    assert_non_null(p);
    if (is_int) {
        int32_t v;
        if (avk_varint_decode_int(p, len, &v) != 0)
            fail_msg("%s: decode_int accepted it", what);
    } else {
        int64_t v;
        if (avk_varint_decode_long(p, len, &v) != 0)
            fail_msg("%s: decode_long accepted it", what);
    }
    for (b = 0; b < sizeof bases / sizeof bases[0]; b++) {
        avk_error err;
        avk_status st;
        avk_error_clear(&err);
        st = avk_varint_explain(p, len, is_int, bases[b], &err);
        if (st != status || err.status != status || err.offset != bases[b] + offset)
            fail_msg("%s: explain gave %s at %llu (err.status %s), expected %s at %llu", what,
                     avk_status_name(st), (unsigned long long)err.offset,
                     avk_status_name(err.status), avk_status_name(status),
                     (unsigned long long)(bases[b] + offset));
        assert_true(strlen(err.message) > 0);
        assert_int_equal(err.sys_errno, 0);
        /* NULL err is allowed and gives the same status. */
        AVKT_ASSERT_STATUS(avk_varint_explain(p, len, is_int, bases[b], NULL), status);
    }
    avkt_guard_free(&g);
}

static void test_bad_single(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const bad_case *c = &bad_cases[i];
        uint8_t padded[32];
        check_bad_single(c->what, c->bytes, c->len, c->is_int, c->status, c->offset);
        /* Malformed stays malformed with more bytes after it (word path). */
        if (c->status == AVK_ERR_MALFORMED) {
            memset(padded, 0x00, sizeof padded);
            memcpy(padded, c->bytes, c->len);
            check_bad_single(c->what, padded, sizeof padded, c->is_int, c->status, c->offset);
        }
    }
}

/* The largest valid encodings next to the bad ones: accepted. */
static void test_edges_valid(void **state)
{
    static const uint8_t long10[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    static const uint8_t long10_zero[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
    static const uint8_t int5[] = {0xff, 0xff, 0xff, 0xff, 0x0f};
    static const uint8_t int5_zero[] = {0x80, 0x80, 0x80, 0x80, 0x00};
    avkt_guard g;
    const uint8_t *p;
    int64_t v;
    int32_t v32;
    (void)state;
    p = avkt_guard_copy(&g, long10, sizeof long10);
    assert_int_equal(avk_varint_decode_long(p, sizeof long10, &v), 10);
    AVKT_ASSERT_I64_EQ(v, INT64_MIN);
    AVKT_ASSERT_STATUS(avk_varint_explain(p, sizeof long10, 0, 0, NULL), AVK_OK);
    avkt_guard_free(&g);
    /* Overlong (non-minimal) encodings are valid Avro. */
    p = avkt_guard_copy(&g, long10_zero, sizeof long10_zero);
    assert_int_equal(avk_varint_decode_long(p, sizeof long10_zero, &v), 10);
    AVKT_ASSERT_I64_EQ(v, 0);
    avkt_guard_free(&g);
    p = avkt_guard_copy(&g, int5, sizeof int5);
    assert_int_equal(avk_varint_decode_int(p, sizeof int5, &v32), 5);
    assert_true(v32 == INT32_MIN);
    AVKT_ASSERT_STATUS(avk_varint_explain(p, sizeof int5, 1, 0, NULL), AVK_OK);
    avkt_guard_free(&g);
    p = avkt_guard_copy(&g, int5_zero, sizeof int5_zero);
    assert_int_equal(avk_varint_decode_int(p, sizeof int5_zero, &v32), 5);
    assert_true(v32 == 0);
    avkt_guard_free(&g);
}

/* Every proper prefix of every table encoding is truncated, as long and
 * (when the value fits) as int, at a guard page. */
static void test_truncated_every_length(void **state)
{
    size_t i, k, cases = 0;
    (void)state;
    for (i = 0; i < TABLE_LEN; i++) {
        for (k = 0; k < table[i].len; k++) {
            check_bad_single("truncated long", table[i].bytes, k, 0, AVK_ERR_TRUNCATED, 0);
            if (table[i].len <= AVK_VARINT_INT_MAX && fits_int32(table[i].value))
                check_bad_single("truncated int", table[i].bytes, k, 1, AVK_ERR_TRUNCATED, 0);
            cases++;
        }
    }
    assert_true(cases > 200);
}

/* ---- bulk decode ------------------------------------------------------------- */

#define BULK_MAX 400

typedef struct stream {
    uint8_t bytes[BULK_MAX * AVK_VARINT_LONG_MAX + 64];
    size_t len;
    size_t ends[BULK_MAX]; /* byte offset after value i */
    int64_t longs[BULK_MAX];
    int32_t ints[BULK_MAX];
    size_t count;
} stream;

static void stream_add_long(stream *s, int64_t v)
{
    s->longs[s->count] = v;
    s->ints[s->count] = (int32_t)v;
    s->len += avk_varint_encode_long(s->bytes + s->len, v);
    s->ends[s->count++] = s->len;
}

static void stream_add_raw(stream *s, const uint8_t *b, size_t n)
{
    memcpy(s->bytes + s->len, b, n);
    s->len += n;
}

static stream *stream_new(void)
{
    stream *s = (stream *)calloc(1, sizeof *s);
    assert_non_null(s);
    return s;
}

/* Runs the public bulk decoder over s (at a guard page) asking for n values
 * and checks the status, consumed, err.offset and the good prefix. */
static void check_bulk(const char *what, const stream *s, int is_int, size_t n,
                       avk_status want_status, size_t want_count, uint64_t err_delta)
{
    avkt_guard g;
    const uint8_t *p = avkt_guard_copy(&g, s->bytes, s->len);
    size_t consumed = 12345, want_consumed = want_count ? s->ends[want_count - 1] : 0;
    avk_error err;
    avk_status st;
    /* Exactly n slots: ASan catches a kernel that stores past them. */
    int64_t *out64 = (int64_t *)calloc(n ? n : 1, sizeof *out64);
    int32_t *out32 = (int32_t *)calloc(n ? n : 1, sizeof *out32);
    assert_non_null(out64);
    assert_non_null(out32);
    avk_error_clear(&err);
    if (is_int)
        st = avk_varint_decode_ints(p, s->len, out32, n, &consumed, &err);
    else
        st = avk_varint_decode_longs(p, s->len, out64, n, &consumed, &err);
    if (st != want_status || consumed != want_consumed)
        fail_msg("%s (%s, n=%zu): %s consumed %zu, expected %s consumed %zu", what,
                 is_int ? "ints" : "longs", n, avk_status_name(st), consumed,
                 avk_status_name(want_status), want_consumed);
    if (st != AVK_OK) {
        if (err.status != want_status || err.offset != want_consumed + err_delta)
            fail_msg("%s (%s, n=%zu): err %s at %llu, expected %s at %llu", what,
                     is_int ? "ints" : "longs", n, avk_status_name(err.status),
                     (unsigned long long)err.offset, avk_status_name(want_status),
                     (unsigned long long)(want_consumed + err_delta));
    }
    if (is_int)
        assert_memory_equal(out32, s->ints, want_count * sizeof *out32);
    else
        assert_memory_equal(out64, s->longs, want_count * sizeof *out64);
    free(out64);
    free(out32);
    avkt_guard_free(&g);
}

typedef struct bulk_bad {
    const char *what;
    size_t len;
    uint8_t bytes[12];
    avk_status long_status; /* as a long */
    uint64_t long_delta;
    avk_status int_status;  /* as an int */
    uint64_t int_delta;
} bulk_bad;

static const bulk_bad bulk_bads[] = {
    {"11-byte varint", 11, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
     AVK_ERR_MALFORMED, 0, AVK_ERR_MALFORMED, 0},
    {"10th byte 0x02", 10, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02},
     AVK_ERR_MALFORMED, 9, AVK_ERR_MALFORMED, 0},
    {"10th byte 0x7f", 10, {0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x7f},
     AVK_ERR_MALFORMED, 9, AVK_ERR_MALFORMED, 0},
    {"6-byte varint", 6, {0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, AVK_OK, 0, AVK_ERR_MALFORMED, 0},
    /* Overlong zeros: a fine long, but 6 bytes is too long for an int even
     * though the value fits 32 bits. */
    {"6-byte zero", 6, {0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, AVK_OK, 0, AVK_ERR_MALFORMED, 0},
    {"7-byte small value", 7, {0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, AVK_OK, 0, AVK_ERR_MALFORMED, 0},
    {"5th byte 0x10", 5, {0xff, 0xff, 0xff, 0xff, 0x10}, AVK_OK, 0, AVK_ERR_MALFORMED, 4},
    {"5th byte 0x7f", 5, {0x80, 0x80, 0x80, 0x80, 0x7f}, AVK_OK, 0, AVK_ERR_MALFORMED, 4},
};

/* A good prefix of every size up to 150 values (past every kernel's block
 * width), then a bad varint, then good values again. */
static void test_bulk_malformed(void **state)
{
    size_t b, prefix;
    avkt_rng rng = {42};
    (void)state;
    for (b = 0; b < sizeof bulk_bads / sizeof bulk_bads[0]; b++) {
        const bulk_bad *bad = &bulk_bads[b];
        int is_int;
        for (is_int = 0; is_int <= 1; is_int++) {
            avk_status want = is_int ? bad->int_status : bad->long_status;
            uint64_t delta = is_int ? bad->int_delta : bad->long_delta;
            if (want == AVK_OK)
                continue;
            for (prefix = 0; prefix <= 150; prefix++) {
                stream *s = stream_new();
                size_t i, tail = 40;
                /* Mostly short values so vector blocks are full of them. */
                for (i = 0; i < prefix; i++)
                    stream_add_long(s, is_int ? (int64_t)(avkt_below(&rng, 4) == 0
                                                              ? avkt_mixed_int(&rng)
                                                              : (int32_t)avkt_below(&rng, 64))
                                              : (avkt_below(&rng, 4) == 0
                                                     ? avkt_mixed_long(&rng)
                                                     : (int64_t)avkt_below(&rng, 64)));
                stream_add_raw(s, bad->bytes, bad->len);
                for (i = 0; i < tail; i++) {
                    uint8_t one = (uint8_t)avkt_below(&rng, 128);
                    stream_add_raw(s, &one, 1);
                }
                check_bulk(bad->what, s, is_int, prefix + 1 + tail, want, prefix, delta);
                check_bulk(bad->what, s, is_int, prefix + 1, want, prefix, delta);
                /* Asking for the good prefix only never touches the bad value. */
                check_bulk(bad->what, s, is_int, prefix, AVK_OK, prefix, 0);
                if (prefix > 3)
                    check_bulk(bad->what, s, is_int, prefix - 3, AVK_OK, prefix - 3, 0);
                free(s);
            }
        }
    }
}

/* Input ends inside a varint (at a guard page) after a good prefix. */
static void test_bulk_truncated(void **state)
{
    size_t prefix, len, k;
    avkt_rng rng = {7};
    (void)state;
    for (prefix = 0; prefix <= 100; prefix += (prefix < 20 ? 1 : 7)) {
        for (len = 2; len <= AVK_VARINT_LONG_MAX; len++) {
            for (k = 1; k < len; k++) {
                int is_int;
                for (is_int = 0; is_int <= 1; is_int++) {
                    stream *s = stream_new();
                    size_t i;
                    uint8_t partial[AVK_VARINT_LONG_MAX];
                    if (is_int && len > AVK_VARINT_INT_MAX) {
                        free(s);
                        continue;
                    }
                    for (i = 0; i < prefix; i++)
                        stream_add_long(s, is_int ? (int64_t)avkt_mixed_int(&rng)
                                                  : avkt_mixed_long(&rng));
                    /* The first k bytes of a len-byte varint. */
                    memset(partial, 0x80 | (uint8_t)avkt_below(&rng, 128), sizeof partial);
                    stream_add_raw(s, partial, k);
                    check_bulk("truncated", s, is_int, prefix + 1, AVK_ERR_TRUNCATED, prefix, 0);
                    check_bulk("truncated", s, is_int, prefix + 5, AVK_ERR_TRUNCATED, prefix, 0);
                    check_bulk("truncated", s, is_int, prefix, AVK_OK, prefix, 0);
                    free(s);
                }
            }
        }
    }
}

/* Long runs of one-byte values (the kernels' widest fast paths), asking
 * for every count: exactly n values, never more. */
static void test_bulk_one_byte_runs(void **state)
{
    size_t total, n;
    avkt_rng rng = {5};
    (void)state;
    for (total = 60; total <= 200; total += 70) {
        stream *s = stream_new();
        size_t i;
        for (i = 0; i < total; i++)
            stream_add_long(s, (int64_t)avkt_below(&rng, 128) - 64);
        for (n = 0; n <= total; n++) {
            check_bulk("one-byte run", s, 0, n, AVK_OK, n, 0);
            check_bulk("one-byte run", s, 1, n, AVK_OK, n, 0);
        }
        check_bulk("one-byte run", s, 0, total + 1, AVK_ERR_TRUNCATED, total, 0);
        check_bulk("one-byte run", s, 1, total + 9, AVK_ERR_TRUNCATED, total, 0);
        free(s);
    }
}

/* Empty input: n = 0 is fine, n > 0 is truncated at offset 0. */
static void test_bulk_empty(void **state)
{
    avkt_guard g;
    const uint8_t *p = avkt_guard_alloc(&g, 0);
    int64_t out64[4];
    int32_t out32[4];
    size_t consumed = 99;
    avk_error err;
    (void)state;
    assert_non_null(p);
    AVKT_OK(avk_varint_decode_longs(p, 0, out64, 0, &consumed, &err));
    assert_int_equal(consumed, 0);
    consumed = 99;
    AVKT_OK(avk_varint_decode_ints(p, 0, out32, 0, &consumed, &err));
    assert_int_equal(consumed, 0);
    consumed = 99;
    avk_error_clear(&err);
    AVKT_ASSERT_STATUS(avk_varint_decode_longs(p, 0, out64, 4, &consumed, &err), AVK_ERR_TRUNCATED);
    assert_int_equal(consumed, 0);
    assert_int_equal(err.status, AVK_ERR_TRUNCATED);
    assert_true(err.offset == 0);
    consumed = 99;
    avk_error_clear(&err);
    AVKT_ASSERT_STATUS(avk_varint_decode_ints(p, 0, out32, 4, &consumed, NULL), AVK_ERR_TRUNCATED);
    assert_int_equal(consumed, 0);
    avkt_guard_free(&g);
}

/* Random mixed values of every count up to BULK_MAX: bulk decode at a guard
 * page equals the values, bulk encode equals single encodes. */
static void test_bulk_round_trip(void **state)
{
    size_t n;
    avkt_rng rng = {1234};
    (void)state;
    for (n = 0; n <= BULK_MAX; n += (n < 80 ? 1 : 13)) {
        int mode;
        for (mode = 0; mode < 3; mode++) {
            stream *s = stream_new();
            uint8_t *enc = (uint8_t *)malloc(BULK_MAX * AVK_VARINT_LONG_MAX + 64);
            size_t i, len;
            assert_non_null(enc);
            for (i = 0; i < n; i++) {
                int64_t v = mode == 0 ? avkt_mixed_long(&rng)
                          : mode == 1 ? (int64_t)avkt_mixed_int(&rng)
                                      : (int64_t)avkt_below(&rng, 128) - 64;
                stream_add_long(s, v);
            }
            check_bulk("round trip", s, 0, n, AVK_OK, n, 0);
            memset(enc, 0xee, BULK_MAX * AVK_VARINT_LONG_MAX + 64);
            len = avk_varint_encode_longs(enc, s->longs, n);
            assert_int_equal(len, s->len);
            assert_memory_equal(enc, s->bytes, len);
            assert_int_equal(avk_varint_size_longs(s->longs, n), s->len);
            if (mode != 0) { /* every value fits an int */
                check_bulk("round trip", s, 1, n, AVK_OK, n, 0);
                memset(enc, 0xee, BULK_MAX * AVK_VARINT_LONG_MAX + 64);
                len = avk_varint_encode_ints(enc, s->ints, n);
                assert_int_equal(len, s->len);
                assert_memory_equal(enc, s->bytes, len);
                assert_int_equal(avk_varint_size_ints(s->ints, n), s->len);
            }
            free(enc);
            free(s);
        }
    }
}

/* Bulk encoders stay within their documented room: n * 10 for longs,
 * n * 5 + 10 for ints, ending at a guard page. */
static void test_bulk_encode_room(void **state)
{
    size_t n;
    avkt_rng rng = {99};
    (void)state;
    for (n = 0; n <= 70; n++) {
        int64_t longs[70];
        int32_t ints[70];
        uint8_t expect[70 * AVK_VARINT_LONG_MAX];
        size_t i, len = 0, room;
        avkt_guard g;
        uint8_t *p;
        for (i = 0; i < n; i++) {
            /* Worst case: every value at its longest. */
            longs[i] = avkt_below(&rng, 2) ? INT64_MIN + (int64_t)avkt_below(&rng, 2)
                                          : INT64_MAX - (int64_t)avkt_below(&rng, 2);
            ints[i] = (avkt_below(&rng, 2) ? INT32_MIN : INT32_MAX);
        }
        room = n * AVK_VARINT_LONG_MAX;
        p = avkt_guard_alloc(&g, room);
        assert_non_null(p);
        for (i = 0; i < n; i++)
            len += avk_varint_encode_long(expect + len, longs[i]);
        assert_int_equal(avk_varint_encode_longs(p, longs, n), len);
        assert_memory_equal(p, expect, len);
        avkt_guard_free(&g);
        room = n * AVK_VARINT_INT_MAX + AVK_VARINT_LONG_MAX;
        p = avkt_guard_alloc(&g, room);
        assert_non_null(p);
        for (i = 0, len = 0; i < n; i++)
            len += avk_varint_encode_long(expect + len, ints[i]);
        assert_int_equal(avk_varint_encode_ints(p, ints, n), len);
        assert_memory_equal(p, expect, len);
        avkt_guard_free(&g);
    }
}

/* ---- sizes ------------------------------------------------------------------- */

static void test_sizes(void **state)
{
    static const int32_t ints[] = {0, -1, 1, 63, -64, 64, -65, 8191, -8192, 8192, 1 << 20,
                                   INT32_MAX, INT32_MIN, (1 << 27) - 1, 1 << 27};
    static const size_t int_sizes[] = {1, 1, 1, 1, 1, 2, 2, 2, 2, 3, 4, 5, 5, 4, 5};
    int64_t longs[TABLE_LEN];
    size_t i, total = 0;
    (void)state;
    for (i = 0; i < TABLE_LEN; i++) {
        longs[i] = table[i].value;
        assert_int_equal(avk_varint_size_long(table[i].value), table[i].len);
        total += table[i].len;
        assert_int_equal(avk_varint_size_longs(longs, i + 1), total);
    }
    assert_int_equal(avk_varint_size_longs(longs, 0), 0);
    total = 0;
    for (i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        uint8_t out[AVK_VARINT_LONG_MAX];
        assert_int_equal(avk_varint_encode_int(out, ints[i]), int_sizes[i]);
        total += int_sizes[i];
        assert_int_equal(avk_varint_size_ints(ints, i + 1), total);
    }
    assert_int_equal(avk_varint_size_ints(ints, 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(avkt_test_kernel_choice),
        cmocka_unit_test(test_zigzag64),
        cmocka_unit_test(test_zigzag32),
        cmocka_unit_test(test_table_has_every_length),
        cmocka_unit_test(test_encode_long_exact),
        cmocka_unit_test(test_encode_int_exact),
        cmocka_unit_test(test_decode_long_exact),
        cmocka_unit_test(test_decode_int_exact),
        cmocka_unit_test(test_table_bulk),
        cmocka_unit_test(test_interop_table),
        cmocka_unit_test(test_bad_single),
        cmocka_unit_test(test_edges_valid),
        cmocka_unit_test(test_truncated_every_length),
        cmocka_unit_test(test_bulk_malformed),
        cmocka_unit_test(test_bulk_truncated),
        cmocka_unit_test(test_bulk_one_byte_runs),
        cmocka_unit_test(test_bulk_empty),
        cmocka_unit_test(test_bulk_round_trip),
        cmocka_unit_test(test_bulk_encode_room),
        cmocka_unit_test(test_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
