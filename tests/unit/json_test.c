/* Unit tests for the JSON reader and writer: exact trees, numbers, positions, every error class, depth limits, cJSON differential, round trips, allocation failures. */
#define _DEFAULT_SOURCE 1
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cJSON.h>

#include "avkt.h"
#include "cjson_agree.h"
#include "common/arena.h"
#include "failalloc.h"
#include "guard.h"
#include "io.h"
#include "json/json.h"

/* ---- helpers ------------------------------------------------------------------------- */

typedef struct buf {
    char *p;
    size_t len, cap;
} buf;

static void buf_put(buf *b, const void *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        b->p = (char *)realloc(b->p, cap);
        assert_non_null(b->p);
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void buf_puts(buf *b, const char *s)
{
    buf_put(b, s, strlen(s));
}

static void buf_printf(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void buf_printf(buf *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    assert_true(n >= 0 && (size_t)n < sizeof tmp);
    buf_put(b, tmp, (size_t)n);
}

static void buf_free(buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

/* A readable dump of a tree: null/true/false, numbers as their text with
 * 'i' (is_integer) or 'd', strings in double quotes with bytes outside
 * printable ASCII (and '"', '\\') as \xHH, [a,b] and {"k":v}. */
static void dump_string(buf *b, const char *s, size_t len)
{
    size_t i;
    buf_puts(b, "\"");
    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
            buf_put(b, &s[i], 1);
        else
            buf_printf(b, "\\x%02X", c);
    }
    buf_puts(b, "\"");
}

static void dump(buf *b, const avki_json *v)
{
    size_t i;
    switch (v->type) {
    case AVKI_JSON_NULL: buf_puts(b, "null"); break;
    case AVKI_JSON_TRUE: buf_puts(b, "true"); break;
    case AVKI_JSON_FALSE: buf_puts(b, "false"); break;
    case AVKI_JSON_NUMBER:
        buf_put(b, v->u.number.text, v->u.number.len);
        buf_puts(b, v->u.number.is_integer ? "i" : "d");
        break;
    case AVKI_JSON_STRING:
        /* The NUL terminator is part of the contract. */
        assert_int_equal(v->u.string.ptr[v->u.string.len], '\0');
        dump_string(b, v->u.string.ptr, v->u.string.len);
        break;
    case AVKI_JSON_ARRAY:
        buf_puts(b, "[");
        for (i = 0; i < v->u.array.count; i++) {
            if (i)
                buf_puts(b, ",");
            dump(b, v->u.array.items[i]);
        }
        buf_puts(b, "]");
        break;
    case AVKI_JSON_OBJECT:
        buf_puts(b, "{");
        for (i = 0; i < v->u.object.count; i++) {
            const avki_json_member *m = &v->u.object.members[i];
            if (i)
                buf_puts(b, ",");
            assert_int_equal(m->key[m->key_len], '\0');
            dump_string(b, m->key, m->key_len);
            buf_puts(b, ":");
            dump(b, m->value);
        }
        buf_puts(b, "}");
        break;
    default: fail_msg("bad node type %d", (int)v->type);
    }
}


/* Parses with the given depth limit (0: default) into a; fails the test
 * unless the status is want. */
static const avki_json *parse_in(avki_arena *a, const char *text, size_t len, size_t max_depth,
                                 avk_error *err)
{
    avki_json_limits lim = {max_depth};
    const avki_json *v = (const avki_json *)1;
    avk_status st = avki_json_parse(a, text, len, &lim, &v, err);
    if (st != AVK_OK) {
        assert_null(v);
        return NULL;
    }
    assert_non_null(v);
    return v;
}

/* The compact text of v. */
static void write_text(const avki_json *v, buf *out)
{
    avk_writer w;
    const uint8_t *d;
    size_t n;
    AVKT_OK(avk_writer_init_memory(&w, NULL, NULL));
    AVKT_OK(avki_json_write(v, &w, NULL));
    d = avk_writer_data(&w, &n);
    out->len = 0;
    buf_put(out, d, n);
    avk_writer_destroy(&w);
}

/* ---- exact trees --------------------------------------------------------------------- */

typedef struct tree_case {
    const char *text;
    size_t len; /* 0: strlen(text) */
    const char *dump;
    const char *compact; /* the writer's output; NULL: same as dump's JSON */
} tree_case;

#define T(text, dump, compact) {text, sizeof(text) - 1, dump, compact}

static const tree_case tree_cases[] = {
    T("null", "null", "null"),
    T("true", "true", "true"),
    T("false", "false", "false"),
    T(" \t\r\n null \t\r\n", "null", "null"),
    T("0", "0i", "0"),
    T("-0", "-0i", "-0"),
    T("42", "42i", "42"),
    T("-17", "-17i", "-17"),
    T("3.25", "3.25d", "3.25"),
    T("1e3", "1e3d", "1e3"),
    T("1E+3", "1E+3d", "1E+3"),
    T("-2.5e-3", "-2.5e-3d", "-2.5e-3"),
    T("0.0", "0.0d", "0.0"),
    T("\"\"", "\"\"", "\"\""),
    T("\"abc\"", "\"abc\"", "\"abc\""),
    T("\"a\\\"b\\\\c\\/d\"", "\"a\\x22b\\x5Cc/d\"", "\"a\\\"b\\\\c/d\""),
    T("\"\\b\\f\\n\\r\\t\"", "\"\\x08\\x0C\\x0A\\x0D\\x09\"", "\"\\b\\f\\n\\r\\t\""),
    T("\"\\u0041\\u00e9\\u20AC\"", "\"A\\xC3\\xA9\\xE2\\x82\\xAC\"", "\"A\xC3\xA9\xE2\x82\xAC\""),
    T("\"\\ud83d\\ude00\"", "\"\\xF0\\x9F\\x98\\x80\"", "\"\xF0\x9F\x98\x80\""),
    T("\"\\uDBFF\\uDFFF\"", "\"\\xF4\\x8F\\xBF\\xBF\"", "\"\xF4\x8F\xBF\xBF\""),
    T("\"\\u0000x\"", "\"\\x00x\"", "\"\\u0000x\""),
    T("\"\\u001f\\u007f\"", "\"\\x1F\\x7F\"", "\"\\u001f\x7f\""),
    T("\"\xC2\x80\xDF\xBF\xE0\xA0\x80\xEF\xBF\xBF\xF0\x90\x80\x80\xF4\x8F\xBF\xBF\"",
      "\"\\xC2\\x80\\xDF\\xBF\\xE0\\xA0\\x80\\xEF\\xBF\\xBF\\xF0\\x90\\x80\\x80\\xF4\\x8F\\xBF\\xBF\"",
      "\"\xC2\x80\xDF\xBF\xE0\xA0\x80\xEF\xBF\xBF\xF0\x90\x80\x80\xF4\x8F\xBF\xBF\""),
    T("\"\xED\x9F\xBF\xEE\x80\x80\"", "\"\\xED\\x9F\\xBF\\xEE\\x80\\x80\"",
      "\"\xED\x9F\xBF\xEE\x80\x80\""),
    T("\"a long string of more than sixteen bytes, with \\\"escapes\\\" in it\"",
      "\"a long string of more than sixteen bytes, with \\x22escapes\\x22 in it\"",
      "\"a long string of more than sixteen bytes, with \\\"escapes\\\" in it\""),
    T("[]", "[]", "[]"),
    T("[ ]", "[]", "[]"),
    T("{}", "{}", "{}"),
    T("{ \n }", "{}", "{}"),
    T("[1,2,3]", "[1i,2i,3i]", "[1,2,3]"),
    T("[ 1 , \"two\" , [ 3 ] , { } , null ]", "[1i,\"two\",[3i],{},null]",
      "[1,\"two\",[3],{},null]"),
    T("[[[[[]]]]]", "[[[[[]]]]]", "[[[[[]]]]]"),
    T("{\"a\":1}", "{\"a\":1i}", "{\"a\":1}"),
    T("{\"a\" : [true, false] , \"b\":{\"c\":\"d\"}}", "{\"a\":[true,false],\"b\":{\"c\":\"d\"}}",
      "{\"a\":[true,false],\"b\":{\"c\":\"d\"}}"),
    /* Duplicate keys are kept, in document order. */
    T("{\"k\":1,\"k\":2,\"j\":3,\"k\":4}", "{\"k\":1i,\"k\":2i,\"j\":3i,\"k\":4i}",
      "{\"k\":1,\"k\":2,\"j\":3,\"k\":4}"),
    /* Keys hold anything a string does, NUL included. */
    T("{\"\":0,\"a\\u0000b\":1,\"\\n\":2}", "{\"\":0i,\"a\\x00b\":1i,\"\\x0A\":2i}",
      "{\"\":0,\"a\\u0000b\":1,\"\\n\":2}"),
    T("{\"type\": \"record\", \"name\": \"R\", \"fields\": [\n"
      "  {\"name\": \"a\", \"type\": \"long\", \"default\": -1},\n"
      "  {\"name\": \"b\", \"type\": [\"null\", \"string\"], \"default\": null}\n]}",
      "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"long\","
      "\"default\":-1i},{\"name\":\"b\",\"type\":[\"null\",\"string\"],\"default\":null}]}",
      "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"long\","
      "\"default\":-1},{\"name\":\"b\",\"type\":[\"null\",\"string\"],\"default\":null}]}"),
    /* Text ending right after a number, a literal or a string. */
    T("[0]", "[0i]", "[0]"),
    T("123456789", "123456789i", "123456789"),
};

static void test_trees(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < sizeof tree_cases / sizeof tree_cases[0]; i++) {
        const tree_case *c = &tree_cases[i];
        avki_arena a;
        avk_error err;
        const avki_json *v, *again;
        buf d = {0}, out = {0};
        avki_arena_init(&a, NULL, 0, 0);
        avk_error_clear(&err);
        v = parse_in(&a, c->text, c->len, 0, &err);
        if (!v)
            fail_msg("case %zu: %s: %s", i, avk_status_name(err.status), err.message);
        dump(&d, v);
        if (strcmp(d.p, c->dump) != 0)
            fail_msg("case %zu: tree %s, expected %s", i, d.p, c->dump);
        write_text(v, &out);
        if (out.len != strlen(c->compact) || memcmp(out.p, c->compact, out.len) != 0)
            fail_msg("case %zu: wrote %s, expected %s", i, out.p, c->compact);
        /* And the compact text parses back to the same tree. */
        again = parse_in(&a, out.p, out.len, 0, NULL);
        assert_non_null(again);
        assert_true(avki_json_equal(v, again));
        buf_free(&d);
        buf_free(&out);
        avki_arena_destroy(&a);
    }
}

/* ---- numbers ------------------------------------------------------------------------- */

static void check_number(const char *text)
{
    avki_arena a;
    const avki_json *v;
    char *endp;
    double want;
    long long ll;
    int fits;
    avki_arena_init(&a, NULL, 0, 0);
    v = parse_in(&a, text, strlen(text), 0, NULL);
    if (!v)
        fail_msg("%s did not parse", text);
    assert_int_equal(v->type, AVKI_JSON_NUMBER);
    assert_int_equal(v->u.number.len, strlen(text));
    assert_memory_equal(v->u.number.text, text, strlen(text));
    want = strtod(text, &endp);
    if (memcmp(&want, &v->u.number.d, sizeof want) != 0)
        fail_msg("%s: d = %.17g, strtod gives %.17g", text, v->u.number.d, want);
    errno = 0;
    ll = strtoll(text, &endp, 10);
    fits = *endp == '\0' && errno == 0;
    if (v->u.number.is_integer != fits)
        fail_msg("%s: is_integer %d, expected %d", text, v->u.number.is_integer, fits);
    if (fits)
        AVKT_ASSERT_I64_EQ(v->u.number.i, ll);
    avki_arena_destroy(&a);
}

static void test_numbers(void **state)
{
    static const char *const numbers[] = {
        "0", "-0", "1", "-1", "9", "10", "123", "9223372036854775807", "-9223372036854775808",
        "9223372036854775808", "-9223372036854775809", "18446744073709551615",
        "18446744073709551616", "99999999999999999999", "1000000000000000000000000000000",
        "9007199254740992", "9007199254740993", "9007199254740995", "-9007199254740993",
        "1234567890123456789", "12345678901234567890", "0.5", "-0.5", "0.1", "0.2", "0.3",
        "0.30000000000000004", "3.14159265358979323846264338327950288", "1e0", "1e-0", "1e+0",
        "1e22", "1e23", "1e-22", "1e-23", "9007199254740993e0", "9007199254740992e1",
        "1.7976931348623157e308", "1.7976931348623159e308", "1e308", "1e309", "-1e400",
        "2.2250738585072014e-308", "2.2250738585072011e-308", "4.9406564584124654e-324",
        "5e-324", "2e-324", "1e-400", "-1e-400", "0e0", "0.000e-999999", "0e999999999999",
        "0.000001", "0.0000000000000000000000000000001", "123.456e-7", "123456.789e3",
        "1.00000000000000011102230246251565404236316680908203125",
        "1.00000000000000011102230246251565404236316680908203124",
        "1.00000000000000011102230246251565404236316680908203126",
        "7.2057594037927933e16", "1e99999999999999999999", "1e-99999999999999999999",
        "0.1e1", "10.0", "100e-2", "4503599627370497.5", "1.5e300", "-0.0", "-0e5",
        "123456789012345678.9", "0.12345678901234567890123",
    };
    size_t i;
    (void)state;
    for (i = 0; i < sizeof numbers / sizeof numbers[0]; i++)
        check_number(numbers[i]);
}

/* Random numbers of every shape, checked against strtod and strtoll. */
static void test_numbers_random(void **state)
{
    avkt_rng rng = {7};
    int i;
    (void)state;
    for (i = 0; i < 20000; i++) {
        char text[80];
        size_t n = 0, k, digits;
        if (avkt_below(&rng, 3) == 0)
            text[n++] = '-';
        digits = 1 + (size_t)avkt_below(&rng, avkt_below(&rng, 2) ? 20 : 6);
        text[n++] = (char)('1' + avkt_below(&rng, 9));
        if (avkt_below(&rng, 8) == 0) {
            n--;
            text[n++] = '0';
            digits = 1;
        }
        for (k = 1; k < digits; k++)
            text[n++] = (char)('0' + avkt_below(&rng, 10));
        if (avkt_below(&rng, 2)) {
            text[n++] = '.';
            digits = 1 + (size_t)avkt_below(&rng, 18);
            for (k = 0; k < digits; k++)
                text[n++] = (char)('0' + avkt_below(&rng, avkt_below(&rng, 3) ? 10 : 1));
        }
        if (avkt_below(&rng, 3) == 0) {
            text[n++] = avkt_below(&rng, 2) ? 'e' : 'E';
            if (avkt_below(&rng, 2))
                text[n++] = avkt_below(&rng, 2) ? '-' : '+';
            n += (size_t)sprintf(text + n, "%d", (int)avkt_below(&rng, avkt_below(&rng, 4) ? 30 : 340));
        }
        text[n] = '\0';
        check_number(text);
    }
}

/* strtod follows LC_NUMERIC; the parser must not. */
static void test_numbers_locale(void **state)
{
    static const char *const locales[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8",
                                          "ru_RU.UTF-8", "nl_NL.UTF-8"};
    const char *texts[] = {"1.5", "0.12345678901234567890123", "1234.5e-300"};
    double expect[3];
    size_t i;
    int found = 0;
    (void)state;
    for (i = 0; i < 3; i++)
        expect[i] = strtod(texts[i], NULL);
    for (i = 0; i < sizeof locales / sizeof locales[0] && !found; i++)
        found = setlocale(LC_NUMERIC, locales[i]) != NULL;
    if (!found || strcmp(localeconv()->decimal_point, ".") == 0) {
        setlocale(LC_NUMERIC, "C");
        skip(); /* no locale with a decimal comma installed */
    }
    for (i = 0; i < 3; i++) {
        avki_arena a;
        const avki_json *v;
        avki_arena_init(&a, NULL, 0, 0);
        v = parse_in(&a, texts[i], strlen(texts[i]), 0, NULL);
        assert_non_null(v);
        assert_true(v->u.number.d == expect[i]);
        avki_arena_destroy(&a);
    }
    setlocale(LC_NUMERIC, "C");
}

/* ---- positions ----------------------------------------------------------------------- */

static void check_pos(const avki_json *v, const char *text, uint32_t line, uint32_t column,
                      const char *at)
{
    const char *p = strstr(text, at);
    assert_non_null(p);
    assert_int_equal(v->line, line);
    assert_int_equal(v->column, column);
    assert_int_equal(v->offset, (size_t)(p - text));
}

static void test_positions(void **state)
{
    const char *text = "{\n  \"a\": [1, \"x\"],\n\t\"b\": {\"c\": null}\r\n}";
    avki_arena a;
    const avki_json *v, *arr, *obj;
    (void)state;
    avki_arena_init(&a, NULL, 0, 0);
    v = parse_in(&a, text, strlen(text), 0, NULL);
    assert_non_null(v);
    check_pos(v, text, 1, 1, "{");
    arr = avki_json_get(v, "a");
    assert_non_null(arr);
    check_pos(arr, text, 2, 8, "[1");
    check_pos(arr->u.array.items[0], text, 2, 9, "1,");
    check_pos(arr->u.array.items[1], text, 2, 12, "\"x\"");
    obj = avki_json_get(v, "b");
    assert_non_null(obj);
    check_pos(obj, text, 3, 7, "{\"c\"");
    check_pos(avki_json_get(obj, "c"), text, 3, 13, "null");
    avki_arena_destroy(&a);

    /* Columns count bytes, not characters. */
    text = "[\"\xC3\xA9\xE2\x82\xAC\", 7]";
    avki_arena_init(&a, NULL, 0, 0);
    v = parse_in(&a, text, strlen(text), 0, NULL);
    assert_non_null(v);
    check_pos(v->u.array.items[1], text, 1, 11, "7");
    avki_arena_destroy(&a);
}

/* ---- errors -------------------------------------------------------------------------- */

typedef struct error_case {
    const char *text;
    size_t len;
    avk_status status;
    unsigned line, column;
    const char *says; /* the message after "line L, column C: " starts with this */
} error_case;

#define E(text, status, line, column, says) {text, sizeof(text) - 1, status, line, column, says}
#define M AVK_ERR_MALFORMED

static const error_case error_cases[] = {
    /* Nothing, or not a value. */
    E("", M, 1, 1, "expected a value, found end of input"),
    E("   ", M, 1, 4, "expected a value, found end of input"),
    E("\n\n  ", M, 3, 3, "expected a value, found end of input"),
    E("]", M, 1, 1, "expected a value, found ']'"),
    E("+1", M, 1, 1, "expected a value, found '+'"),
    E(".5", M, 1, 1, "expected a value, found '.'"),
    E("NaN", M, 1, 1, "expected a value, found 'N'"),
    E("Infinity", M, 1, 1, "expected a value, found 'I'"),
    E("'a'", M, 1, 1, "expected a value, found '''"),
    E("/* c */ 1", M, 1, 1, "expected a value, found '/'"),
    E("\x00", M, 1, 1, "expected a value, found byte 0x00"),
    E("\x0b" "1", M, 1, 1, "expected a value, found byte 0x0B"), /* VT is not white space */
    E("\x0c" "1", M, 1, 1, "expected a value, found byte 0x0C"), /* nor is FF */
    E("\xC2\xA0" "1", M, 1, 1, "expected a value, found byte 0xC2"), /* nor NBSP */
    E("\xEF\xBB\xBF{}", M, 1, 1, "expected a value, found a byte order mark"),
    /* Literals. */
    E("tru", M, 1, 4, "expected 'true', found end of input"),
    E("trUe", M, 1, 3, "expected 'true', found 'U'"),
    E("nul", M, 1, 4, "expected 'null', found end of input"),
    E("fals", M, 1, 5, "expected 'false', found end of input"),
    E("False", M, 1, 1, "expected a value, found 'F'"),
    E("nulll", M, 1, 5, "expected end of input after the value, found 'l'"),
    /* Trailing garbage. */
    E("[1] x", M, 1, 5, "expected end of input after the value, found 'x'"),
    E("1 2", M, 1, 3, "expected end of input after the value, found '2'"),
    E("{}}", M, 1, 3, "expected end of input after the value, found '}'"),
    E("\"a\"\x00", M, 1, 4, "expected end of input after the value, found byte 0x00"),
    E("0x10", M, 1, 2, "expected end of input after the value, found 'x'"),
    /* Numbers. */
    E("01", M, 1, 1, "leading zeros are not allowed in numbers"),
    E("-01", M, 1, 2, "leading zeros are not allowed in numbers"),
    E("[00]", M, 1, 2, "leading zeros are not allowed in numbers"),
    E("-", M, 1, 2, "expected a digit after '-', found end of input"),
    E("-a", M, 1, 2, "expected a digit after '-', found 'a'"),
    E("[-]", M, 1, 3, "expected a digit after '-', found ']'"),
    E("- 1", M, 1, 2, "expected a digit after '-', found byte 0x20"),
    E("1.", M, 1, 3, "expected a digit after '.', found end of input"),
    E("1.e5", M, 1, 3, "expected a digit after '.', found 'e'"),
    E("1e", M, 1, 3, "expected a digit in the exponent, found end of input"),
    E("1e+", M, 1, 4, "expected a digit in the exponent, found end of input"),
    E("[1E-x]", M, 1, 5, "expected a digit in the exponent, found 'x'"),
    E("1.5.2", M, 1, 4, "expected end of input after the value, found '.'"),
    E("[1-2]", M, 1, 3, "expected ',' or ']' after an array element, found '-'"),
    /* Arrays. */
    E("[", M, 1, 2, "expected a value, found end of input"),
    E("[1", M, 1, 3, "expected ',' or ']' after an array element, found end of input"),
    E("[1 2]", M, 1, 4, "expected ',' or ']' after an array element, found '2'"),
    E("[1,]", M, 1, 4, "expected a value, found ']' (trailing comma?)"),
    E("[,1]", M, 1, 2, "expected a value, found ','"),
    E("[1,,2]", M, 1, 4, "expected a value, found ','"),
    E("[1}", M, 1, 3, "expected ',' or ']' after an array element, found '}'"),
    E("[1:2]", M, 1, 3, "expected ',' or ']' after an array element, found ':'"),
    /* Objects. */
    E("{", M, 1, 2, "expected a string key or '}', found end of input"),
    E("{1:2}", M, 1, 2, "expected a string key or '}', found '1'"),
    E("{a:1}", M, 1, 2, "expected a string key or '}', found 'a'"),
    E("{'a':1}", M, 1, 2, "expected a string key or '}', found '''"),
    E("{\"a\" 1}", M, 1, 6, "expected ':' after object key, found '1'"),
    E("{\"a\"}", M, 1, 5, "expected ':' after object key, found '}'"),
    E("{\"a\"", M, 1, 5, "expected ':' after object key, found end of input"),
    E("{\"a\":}", M, 1, 6, "expected a value, found '}'"),
    E("{\"a\":1,}", M, 1, 8, "expected a string key, found '}' (trailing comma?)"),
    E("{\"a\":1,2}", M, 1, 8, "expected a string key, found '2'"),
    E("{\"a\":1 \"b\":2}", M, 1, 8, "expected ',' or '}' after an object member, found '\"'"),
    E("{\"a\":1]", M, 1, 7, "expected ',' or '}' after an object member, found ']'"),
    E("{\"a\":[1,]}", M, 1, 9, "expected a value, found ']' (trailing comma?)"),
    E("{\"a\":1", M, 1, 7, "expected ',' or '}' after an object member, found end of input"),
    E("{\"a\":]", M, 1, 6, "expected a value, found ']'"),
    /* Strings. */
    E("\"abc", M, 1, 1, "unterminated string"),
    E("  \"abc\\", M, 1, 3, "unterminated string"),
    E("\"abc\\\"", M, 1, 1, "unterminated string"),
    E("[\"a long string that runs to the end of the input without a quote", M, 1, 2,
      "unterminated string"),
    E("\"a\nb\"", M, 1, 3, "unescaped control character 0x0A in string"),
    E("\"tab\there\"", M, 1, 5, "unescaped control character 0x09 in string"),
    E("\"\x00\"", M, 1, 2, "unescaped control character 0x00 in string"),
    E("\"0123456789abcdef0123456789\x1f\"", M, 1, 28,
      "unescaped control character 0x1F in string"),
    E("\"\\x\"", M, 1, 2, "invalid escape '\\x' in string"),
    E("\"\\U0041\"", M, 1, 2, "invalid escape '\\U' in string"),
    E("\"\\'\"", M, 1, 2, "invalid escape '\\'' in string"),
    E("\"\\\x01\"", M, 1, 2, "invalid escape in string"),
    E("\"\\u12G4\"", M, 1, 2, "expected 4 hex digits after '\\u'"),
    E("\"\\u12\"", M, 1, 2, "expected 4 hex digits after '\\u'"),
    E("\"\\u", M, 1, 2, "expected 4 hex digits after '\\u'"),
    E("\"\\u-123\"", M, 1, 2, "expected 4 hex digits after '\\u'"),
    E("\"\\ud800\"", M, 1, 2, "unpaired high surrogate \\uD800 in string"),
    E("\"\\uDBFF\\u0041\"", M, 1, 2, "unpaired high surrogate \\uDBFF in string"),
    E("\"\\ud800\\ud800\"", M, 1, 2, "unpaired high surrogate \\uD800 in string"),
    E("\"\\ud800\\n\"", M, 1, 2, "unpaired high surrogate \\uD800 in string"),
    E("\"\\ud800\\uZZZZ\"", M, 1, 2, "unpaired high surrogate \\uD800 in string"),
    E("\"x\\udc00\"", M, 1, 3, "unpaired low surrogate \\uDC00 in string"),
    E("\"\\uDFFF\\uD800\"", M, 1, 2, "unpaired low surrogate \\uDFFF in string"),
    /* UTF-8: overlong forms, surrogates, beyond U+10FFFF, bad and missing continuations. */
    E("\"\x80\"", M, 1, 2, "invalid UTF-8 in string"),
    E("\"\xBF\"", M, 1, 2, "invalid UTF-8 in string"),
    E("\"\xC0\xAF\"", M, 1, 2, "invalid UTF-8 in string"),
    E("\"\xC1\xBF\"", M, 1, 2, "invalid UTF-8 in string"),
    E("\"\xC2\"", M, 1, 2, "invalid UTF-8 in string"),
    E("\"\xC2\x41\"", M, 1, 2, "invalid UTF-8 in string"),
    E("\"\xC2\xC0\"", M, 1, 2, "invalid UTF-8 in string"),
    E("\"\xE0\x80\xAF\"", M, 1, 2, "invalid UTF-8 in string"),
    E("\"\xE0\x9F\xBF\"", M, 1, 2, "invalid UTF-8 in string"),
    E("\"\xED\xA0\x80\"", M, 1, 2, "invalid UTF-8 in string"),
    E("\"\xED\xBF\xBF\"", M, 1, 2, "invalid UTF-8 in string"),
    E("\"\xE2\x82\"", M, 1, 2, "invalid UTF-8 in string"),
    E("\"\xE2\x82", M, 1, 2, "invalid UTF-8 in string"),
    E("\"\xF0\x80\x80\x80\"", M, 1, 2, "invalid UTF-8 in string"),
    E("\"\xF0\x8F\xBF\xBF\"", M, 1, 2, "invalid UTF-8 in string"),
    E("\"\xF4\x90\x80\x80\"", M, 1, 2, "invalid UTF-8 in string"),
    E("\"\xF5\x80\x80\x80\"", M, 1, 2, "invalid UTF-8 in string"),
    E("\"\xF8\x88\x80\x80\x80\"", M, 1, 2, "invalid UTF-8 in string"),
    E("\"\xFF\"", M, 1, 2, "invalid UTF-8 in string"),
    E("\"\xF0\x9F\x98\"", M, 1, 2, "invalid UTF-8 in string"),
    E("\"ok \xC3\xA9 then \xE9 latin-1\"", M, 1, 13, "invalid UTF-8 in string"),
    E("\"0123456789abcdef0123456789abcdef\xC3\x28\"", M, 1, 34, "invalid UTF-8 in string"),
    E("{\"k\xFF\":1}", M, 1, 4, "invalid UTF-8 in string"),
    /* Positions on later lines. */
    E("{\n  \"a\": [1,\n   2,,\n]}", M, 3, 6, "expected a value, found ','"),
    E("[\r\n1,\r\n\"x\ny\"]", M, 3, 3, "unescaped control character 0x0A in string"),
    E("[1,\n\n\n  tru]", M, 4, 6, "expected 'true', found ']'"),
    /* Nesting beyond the default limit of 512. */
};

static void check_error(const char *text, size_t len, size_t max_depth, avk_status status,
                        unsigned line, unsigned column, const char *says, size_t index)
{
    avki_arena a;
    avk_error err;
    const avki_json *v = (const avki_json *)1;
    avki_json_limits lim = {max_depth};
    char prefix[64];
    const char *p;
    unsigned long l = 1, c = 1;
    avk_status st;

    avki_arena_init(&a, NULL, 0, 0);
    avk_error_clear(&err);
    st = avki_json_parse(&a, text, len, &lim, &v, &err);
    if (st != status)
        fail_msg("error case %zu: %s (%s), expected %s", index, avk_status_name(st),
                 st ? err.message : "accepted", avk_status_name(status));
    assert_null(v);
    assert_int_equal(err.status, status);
    snprintf(prefix, sizeof prefix, "line %u, column %u: ", line, column);
    if (strncmp(err.message, prefix, strlen(prefix)) != 0 ||
        strncmp(err.message + strlen(prefix), says, strlen(says)) != 0)
        fail_msg("error case %zu: message \"%s\", expected \"%s%s...\"", index, err.message,
                 prefix, says);
    /* The offset agrees with line and column. */
    assert_true(err.offset <= len);
    for (p = text; p < text + err.offset; p++) {
        if (*p == '\n') {
            l++;
            c = 1;
        } else {
            c++;
        }
    }
    if (l != line || c != column)
        fail_msg("error case %zu: offset %llu is line %lu column %lu", index,
                 (unsigned long long)err.offset, l, c);
    /* And the same without an error record. */
    v = (const avki_json *)1;
    assert_int_equal(avki_json_parse(&a, text, len, &lim, &v, NULL), status);
    assert_null(v);
    avki_arena_destroy(&a);
}

static void test_errors(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < sizeof error_cases / sizeof error_cases[0]; i++) {
        const error_case *c = &error_cases[i];
        check_error(c->text, c->len, 0, c->status, c->line, c->column, c->says, i);
    }
}

/* Every error also at the very end of a guard-page buffer: nothing reads
 * past the input. */
static void test_errors_guarded(void **state)
{
    size_t i, t;
    (void)state;
    for (i = 0; i < sizeof error_cases / sizeof error_cases[0]; i++) {
        const error_case *c = &error_cases[i];
        avkt_guard g;
        uint8_t *data = avkt_guard_copy(&g, c->text, c->len);
        avki_arena a;
        const avki_json *v;
        assert_non_null(data);
        avki_arena_init(&a, NULL, 0, 0);
        assert_int_equal(avki_json_parse(&a, (const char *)data, c->len, NULL, &v, NULL),
                         c->status);
        avki_arena_destroy(&a);
        avkt_guard_free(&g);
    }
    for (t = 0; t < sizeof tree_cases / sizeof tree_cases[0]; t++) {
        const tree_case *c = &tree_cases[t];
        avkt_guard g;
        uint8_t *data = avkt_guard_copy(&g, c->text, c->len);
        avki_arena a;
        const avki_json *v;
        assert_non_null(data);
        avki_arena_init(&a, NULL, 0, 0);
        AVKT_OK(avki_json_parse(&a, (const char *)data, c->len, NULL, &v, NULL));
        avki_arena_destroy(&a);
        avkt_guard_free(&g);
    }
}

static void test_invalid_arguments(void **state)
{
    avki_arena a;
    avk_error err;
    const avki_json *v = NULL;
    (void)state;
    avki_arena_init(&a, NULL, 0, 0);
    AVKT_ASSERT_STATUS(avki_json_parse(NULL, "1", 1, NULL, &v, &err), AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avki_json_parse(&a, "1", 1, NULL, NULL, &err), AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avki_json_parse(&a, NULL, 1, NULL, &v, &err), AVK_ERR_INVALID_ARGUMENT);
    assert_int_equal(err.status, AVK_ERR_INVALID_ARGUMENT);
    /* NULL with length 0 is the empty text. */
    AVKT_ASSERT_STATUS(avki_json_parse(&a, NULL, 0, NULL, &v, &err), AVK_ERR_MALFORMED);
    assert_string_equal(err.message, "line 1, column 1: expected a value, found end of input");
    avki_arena_destroy(&a);
}

/* ---- depth --------------------------------------------------------------------------- */

static char *nested(size_t depth, const char *open, const char *close, const char *inner)
{
    size_t lo = strlen(open), lc = strlen(close), li = strlen(inner), i;
    char *s = (char *)malloc(depth * (lo + lc) + li + 1), *p = s;
    assert_non_null(s);
    for (i = 0; i < depth; i++, p += lo)
        memcpy(p, open, lo);
    memcpy(p, inner, li);
    p += li;
    for (i = 0; i < depth; i++, p += lc)
        memcpy(p, close, lc);
    *p = '\0';
    return s;
}

static void test_depth_limit(void **state)
{
    char *s;
    clock_t t0;
    avki_arena a;
    const avki_json *v;
    size_t i;
    (void)state;

    /* 100,000 open arrays: LIMIT at the 513th, at once. */
    s = (char *)malloc(100000);
    assert_non_null(s);
    memset(s, '[', 100000);
    t0 = clock();
    check_error(s, 100000, 0, AVK_ERR_LIMIT, 1, 513, "nesting deeper than 512 levels", 0);
    assert_true((double)(clock() - t0) / CLOCKS_PER_SEC < 0.5);
    free(s);

    /* Exactly 512 is fine, 513 is not; arrays and objects count alike. */
    s = nested(512, "[", "]", "");
    avki_arena_init(&a, NULL, 0, 0);
    assert_non_null(parse_in(&a, s, strlen(s), 0, NULL));
    free(s);
    s = nested(513, "[", "]", "");
    check_error(s, strlen(s), 0, AVK_ERR_LIMIT, 1, 513, "nesting deeper than 512 levels", 0);
    free(s);
    s = nested(256, "{\"a\":[", "]}", "");
    assert_non_null(parse_in(&a, s, strlen(s), 0, NULL));
    free(s);
    s = nested(257, "{\"a\":[", "]}", "");
    check_error(s, strlen(s), 0, AVK_ERR_LIMIT, 1, 256 * 6 + 1, "nesting deeper than 512 levels",
                0);
    free(s);

    /* A limit of 1 allows one level. */
    check_error("[1,{}]", 6, 1, AVK_ERR_LIMIT, 1, 4, "nesting deeper than 1 levels", 0);
    assert_non_null(parse_in(&a, "[1,2]", 5, 1, NULL));
    assert_non_null(parse_in(&a, "7", 1, 1, NULL));
    avki_arena_destroy(&a);

    /* A caller may allow 100,000 levels: no recursion, so no stack to exhaust,
     * in the parser or in the writer. */
    s = nested(100000, "[", "]", "0");
    avki_arena_init(&a, NULL, 0, 0);
    v = parse_in(&a, s, strlen(s), 100000, NULL);
    assert_non_null(v);
    for (i = 0; i < 100000; i++) {
        assert_int_equal(v->type, AVKI_JSON_ARRAY);
        assert_int_equal(v->column, i + 1);
        assert_int_equal(v->u.array.count, 1);
        v = v->u.array.items[0];
    }
    assert_int_equal(v->type, AVKI_JSON_NUMBER);
    v = parse_in(&a, s, strlen(s), 100000, NULL);
    {
        buf out = {0};
        write_text(v, &out);
        assert_string_equal(out.p, s);
        buf_free(&out);
    }
    check_error(s, strlen(s), 99999, AVK_ERR_LIMIT, 1, 100000, "nesting deeper than 99999 levels",
                0);
    avki_arena_destroy(&a);
    free(s);

    s = nested(100000, "{\"\":", "}", "[]");
    check_error(s, strlen(s), 0, AVK_ERR_LIMIT, 1, 512 * 4 + 1, "nesting deeper than 512 levels", 0);
    free(s);
}

/* ---- avki_json_get ------------------------------------------------------------------- */

static void test_get(void **state)
{
    const char *text = "{\"a\":1,\"b\":2,\"a\":3,\"a\\u0000b\":4,\"\":5}";
    avki_arena a;
    const avki_json *v, *x;
    (void)state;
    avki_arena_init(&a, NULL, 0, 0);
    v = parse_in(&a, text, strlen(text), 0, NULL);
    assert_non_null(v);
    x = avki_json_get(v, "a");
    assert_non_null(x);
    AVKT_ASSERT_I64_EQ(x->u.number.i, 1); /* the first one */
    AVKT_ASSERT_I64_EQ(avki_json_get(v, "b")->u.number.i, 2);
    AVKT_ASSERT_I64_EQ(avki_json_get(v, "")->u.number.i, 5);
    assert_null(avki_json_get(v, "c"));
    assert_null(avki_json_get(v, "ab"));
    /* Keys are C strings: "a\0b" is "a", so the key holding a NUL cannot be
     * asked for. */
    AVKT_ASSERT_I64_EQ(avki_json_get(v, "a\0b")->u.number.i, 1);
    assert_null(avki_json_get(NULL, "a"));
    assert_null(avki_json_get(v, NULL));
    assert_null(avki_json_get(x, "a")); /* not an object */
    v = parse_in(&a, "[{\"a\":1}]", 9, 0, NULL);
    assert_null(avki_json_get(v, "a"));
    avki_arena_destroy(&a);
}

/* ---- writer -------------------------------------------------------------------------- */

static void test_write_string(void **state)
{
    static const struct {
        const char *in;
        size_t len;
        const char *out;
    } cases[] = {
        {"", 0, "\"\""},
        {"plain", 5, "\"plain\""},
        {"\"\\/", 3, "\"\\\"\\\\/\""},
        {"\b\f\n\r\t", 5, "\"\\b\\f\\n\\r\\t\""},
        {"\x00\x01\x0b\x1f\x20\x7f", 6, "\"\\u0000\\u0001\\u000b\\u001f \x7f\""},
        {"\xC3\xA9\xF0\x9F\x98\x80", 6, "\"\xC3\xA9\xF0\x9F\x98\x80\""},
    };
    size_t i;
    (void)state;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        avk_writer w;
        const uint8_t *d;
        size_t n;
        AVKT_OK(avk_writer_init_memory(&w, NULL, NULL));
        AVKT_OK(avki_json_write_string(&w, cases[i].in, cases[i].len, NULL));
        d = avk_writer_data(&w, &n);
        assert_int_equal(n, strlen(cases[i].out));
        assert_memory_equal(d, cases[i].out, n);
        avk_writer_destroy(&w);
    }
}

/* Every byte value, through a memory writer with room, a small memory
 * writer that must grow, and a 64-byte stream writer: the same text. */
static void test_write_string_paths(void **state)
{
    char all[256 * 3];
    size_t i, n0, n1;
    avk_writer w0, w1, w2;
    avk_writer_options small = {sizeof small, 64, 0, NULL, NULL};
    avkt_sink sink;
    const uint8_t *d0, *d1;
    avki_arena a;
    const avki_json *v;
    (void)state;
    for (i = 0; i < sizeof all; i++)
        all[i] = (char)(i % 3 == 0 ? 'a' : i / 3);
    AVKT_OK(avk_writer_init_memory(&w0, NULL, NULL));
    AVKT_OK(avk_writer_init_memory(&w1, &small, NULL));
    avkt_sink_init(&sink);
    AVKT_OK(avk_writer_init_sink(&w2, avkt_sink_write, &sink, &small, NULL));
    AVKT_OK(avki_json_write_string(&w0, all, sizeof all, NULL));
    AVKT_OK(avki_json_write_string(&w1, all, sizeof all, NULL));
    AVKT_OK(avki_json_write_string(&w2, all, sizeof all, NULL));
    AVKT_OK(avk_writer_flush(&w2, NULL));
    d0 = avk_writer_data(&w0, &n0);
    d1 = avk_writer_data(&w1, &n1);
    assert_int_equal(n0, n1);
    assert_memory_equal(d0, d1, n0);
    assert_int_equal(sink.len, n0);
    assert_memory_equal(sink.data, d0, n0);
    /* Bytes 0x80-0xFF are copied raw, so this is not UTF-8; cut them off
     * and the text parses back to the input. */
    avk_writer_reset(&w0);
    AVKT_OK(avki_json_write_string(&w0, all, 128 * 3, NULL));
    d0 = avk_writer_data(&w0, &n0);
    avki_arena_init(&a, NULL, 0, 0);
    v = parse_in(&a, (const char *)d0, n0, 0, NULL);
    assert_non_null(v);
    assert_int_equal(v->u.string.len, 128 * 3);
    assert_memory_equal(v->u.string.ptr, all, 128 * 3);
    avki_arena_destroy(&a);
    avk_writer_destroy(&w0);
    avk_writer_destroy(&w1);
    avk_writer_destroy(&w2);
    avkt_sink_destroy(&sink);
}

static void test_write_errors(void **state)
{
    const char *text = "{\"a\":[1,2,3,\"a long string that does not fit\"],\"b\":null}";
    avki_arena a;
    const avki_json *v;
    avk_writer_options opts = {sizeof opts, 64, 20, NULL, NULL};
    avk_writer w;
    avk_error err;
    avkt_sink sink;
    size_t cut;
    (void)state;
    avki_arena_init(&a, NULL, 0, 0);
    v = parse_in(&a, text, strlen(text), 0, NULL);
    assert_non_null(v);
    /* A memory writer's size limit comes back as LIMIT. */
    AVKT_OK(avk_writer_init_memory(&w, &opts, NULL));
    AVKT_ASSERT_STATUS(avki_json_write(v, &w, &err), AVK_ERR_LIMIT);
    assert_int_equal(err.status, AVK_ERR_LIMIT);
    avk_writer_destroy(&w);
    /* A failing sink's status comes back, wherever it fails. */
    for (cut = 0; cut < strlen(text); cut += 5) {
        avk_writer_options o = {sizeof o, 64, 0, NULL, NULL};
        avk_status st;
        avkt_sink_init_failing(&sink, cut, AVK_ERR_IO);
        AVKT_OK(avk_writer_init_sink(&w, avkt_sink_write, &sink, &o, NULL));
        st = avki_json_write(v, &w, NULL);
        if (st == AVK_OK)
            st = avk_writer_flush(&w, NULL);
        AVKT_ASSERT_STATUS(st, AVK_ERR_IO);
        avk_writer_destroy(&w);
        avkt_sink_destroy(&sink);
    }
    AVKT_ASSERT_STATUS(avki_json_write(NULL, &w, &err), AVK_ERR_INVALID_ARGUMENT);
    avki_arena_destroy(&a);
}

/* The writer's stack beyond 64 levels comes from the writer's allocator:
 * failing it gives NO_MEMORY and leaks nothing. */
static void test_write_deep_failing_allocator(void **state)
{
    char *s = nested(300, "[", "]", "{\"k\":[\"v\"]}");
    avki_arena a;
    const avki_json *v;
    long n;
    (void)state;
    avki_arena_init(&a, NULL, 0, 0);
    v = parse_in(&a, s, strlen(s), 1000, NULL);
    assert_non_null(v);
    for (n = 1;; n++) {
        avkt_failalloc fa;
        avk_writer_options o = {sizeof o, 0, 0, NULL, NULL};
        avk_writer w;
        avk_status st;
        avkt_failalloc_init(&fa, n);
        o.allocator = &fa.allocator;
        st = avk_writer_init_memory(&w, &o, NULL);
        if (st == AVK_OK) {
            st = avki_json_write(v, &w, NULL);
            if (st == AVK_OK) {
                size_t len;
                const uint8_t *d = avk_writer_data(&w, &len);
                assert_int_equal(len, strlen(s));
                assert_memory_equal(d, s, len);
            }
            avk_writer_destroy(&w);
        }
        assert_int_equal(fa.live_blocks, 0);
        assert_int_equal(fa.size_mismatches, 0);
        if (st == AVK_OK)
            break;
        AVKT_ASSERT_STATUS(st, AVK_ERR_NO_MEMORY);
        assert_true(n < 50);
    }
    avki_arena_destroy(&a);
    free(s);
}

/* ---- random documents, cJSON differential -------------------------------------------- */

static void gen_ws(buf *b, avkt_rng *r)
{
    static const char *const ws[] = {"", "", "", " ", "\n", "\t", "\r\n", "  ", "\n    "};
    buf_puts(b, ws[avkt_below(r, sizeof ws / sizeof ws[0])]);
}

static void gen_utf8(buf *b, uint32_t cp)
{
    char out[4];
    size_t n;
    if (cp < 0x80) {
        out[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        out[0] = (char)(0xF0 | (cp >> 18));
        out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    buf_put(b, out, n);
}

static uint32_t gen_code_point(avkt_rng *r)
{
    for (;;) {
        uint32_t cp;
        switch (avkt_below(r, 4)) {
        case 0: cp = 0x80 + (uint32_t)avkt_below(r, 0x780); break;
        case 1: cp = 0x800 + (uint32_t)avkt_below(r, 0xF800); break;
        case 2: cp = 0x10000 + (uint32_t)avkt_below(r, 0x100000); break;
        default: cp = 0x20 + (uint32_t)avkt_below(r, 0x5F); break;
        }
        if (cp == '"' || cp == '\\')
            continue; /* raw, they would end the string or start an escape */
        if (cp < 0xD800 || cp > 0xDFFF)
            return cp;
    }
}

/* A JSON string literal with escapes, raw UTF-8 and \u escapes (no
 * \u0000: cJSON's strings end at NUL). */
static void gen_string(buf *b, avkt_rng *r)
{
    size_t n = (size_t)avkt_below(r, avkt_below(r, 4) ? 12 : 60), i;
    buf_puts(b, "\"");
    for (i = 0; i < n; i++) {
        uint64_t k = avkt_below(r, 20);
        if (k < 12) {
            char c = (char)('a' + avkt_below(r, 26));
            buf_put(b, &c, 1);
        } else if (k < 14) {
            static const char *const esc[] = {"\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r",
                                              "\\t"};
            buf_puts(b, esc[avkt_below(r, 8)]);
        } else if (k < 16) {
            gen_utf8(b, gen_code_point(r));
        } else if (k < 18) {
            uint32_t cp = gen_code_point(r);
            if (cp >= 0x10000) {
                uint32_t v = cp - 0x10000;
                buf_printf(b, avkt_below(r, 2) ? "\\u%04x\\u%04x" : "\\u%04X\\u%04X",
                           0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF));
            } else {
                buf_printf(b, "\\u%04x", cp);
            }
        } else {
            buf_printf(b, "\\u%04x", 1 + (unsigned)avkt_below(r, 0x1F));
        }
    }
    buf_puts(b, "\"");
}

static void gen_number(buf *b, avkt_rng *r)
{
    static const char *const fixed[] = {"0", "-0", "1", "-1", "0.5", "1e10", "1E-5", "-2.5e+3",
                                        "9223372036854775807", "-9223372036854775808",
                                        "9223372036854775808", "1e400", "123456789012345678901"};
    if (avkt_below(r, 4) == 0) {
        buf_puts(b, fixed[avkt_below(r, sizeof fixed / sizeof fixed[0])]);
        return;
    }
    if (avkt_below(r, 3) == 0)
        buf_puts(b, "-");
    buf_printf(b, "%llu", (unsigned long long)avkt_below(r, avkt_below(r, 2) ? 1000 : 1000000000000ULL));
    if (avkt_below(r, 3) == 0)
        buf_printf(b, ".%0*llu", 1 + (int)avkt_below(r, 8), (unsigned long long)avkt_below(r, 10000));
    if (avkt_below(r, 4) == 0)
        buf_printf(b, "e%s%d", avkt_below(r, 2) ? "-" : "", (int)avkt_below(r, 300));
}

static void gen_value(buf *b, avkt_rng *r, int depth)
{
    uint64_t k = avkt_below(r, depth > 5 ? 6 : 9);
    size_t n, i;
    switch (k) {
    case 0: buf_puts(b, "null"); break;
    case 1: buf_puts(b, avkt_below(r, 2) ? "true" : "false"); break;
    case 2:
    case 3: gen_number(b, r); break;
    case 4:
    case 5: gen_string(b, r); break;
    case 6:
    case 7:
        n = (size_t)avkt_below(r, 6);
        buf_puts(b, "[");
        for (i = 0; i < n; i++) {
            if (i)
                buf_puts(b, ",");
            gen_ws(b, r);
            gen_value(b, r, depth + 1);
            gen_ws(b, r);
        }
        gen_ws(b, r);
        buf_puts(b, "]");
        break;
    default:
        n = (size_t)avkt_below(r, 6);
        buf_puts(b, "{");
        for (i = 0; i < n; i++) {
            if (i)
                buf_puts(b, ",");
            gen_ws(b, r);
            gen_string(b, r);
            gen_ws(b, r);
            buf_puts(b, ":");
            gen_ws(b, r);
            gen_value(b, r, depth + 1);
            gen_ws(b, r);
        }
        gen_ws(b, r);
        buf_puts(b, "}");
        break;
    }
}


/* Documents both accept, with identical trees. */
static void test_cjson_valid(void **state)
{
    static const char *const docs[] = {
        "null", "true", "false", "0", "-0", "1.5", "-1e-7", "\"\"", "\"x\"", "[]", "{}",
        "[1,[2,[3,[4]]]]", "{\"a\":{\"b\":{\"c\":[null,true,false]}}}", " [ 1 , 2 ] ",
        "\"\\ud834\\udd1e\\u00e9\\n\"", "\"\xF0\x9D\x84\x9E\"", "{\"dup\":1,\"dup\":2}",
        "[1e308,1e-308,5e-324,1.7976931348623157e308]", "9223372036854775807",
        "[0.1,0.2,0.30000000000000004,123456789.123456789]",
        "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"}]}",
        /* Longer than the 63 characters upstream cJSON 1.7.15 copied for
         * strtod (Debian's 1.7.15-1+deb12u4 reads them whole). */
        "[1111111111111111111111111111111111111111111111111111111111111111111111111,2]",
        "[0.000000000000000000000000000000000000000000000000000000000000000000000001e5]",
    };
    avkt_rng rng = {2024};
    int trial;
    (void)state;
    for (trial = 0; trial < 3000 + (int)(sizeof docs / sizeof docs[0]); trial++) {
        buf b = {0};
        avki_arena a;
        const avki_json *v;
        cJSON *c;
        avk_error err;
        if ((size_t)trial < sizeof docs / sizeof docs[0]) {
            buf_puts(&b, docs[trial]);
        } else {
            gen_ws(&b, &rng);
            gen_value(&b, &rng, 0);
            gen_ws(&b, &rng);
        }
        avki_arena_init(&a, NULL, 0, 0);
        v = parse_in(&a, b.p, b.len, 0, &err);
        if (!v)
            fail_msg("trial %d: we reject %s: %s", trial, b.p, err.message);
        c = cJSON_ParseWithLength(b.p, b.len);
        if (!c)
            fail_msg("trial %d: cJSON rejects %s", trial, b.p);
        if (!avkt_agrees_with_cjson(v, c))
            fail_msg("trial %d: trees differ for %s", trial, b.p);
        cJSON_Delete(c);
        /* Round trip through the writer: the same tree again. */
        {
            buf out = {0};
            const avki_json *again;
            write_text(v, &out);
            again = parse_in(&a, out.p, out.len, 0, NULL);
            assert_non_null(again);
            assert_true(avki_json_equal(v, again));
            /* Compact text is a fixed point. */
            {
                buf out2 = {0};
                write_text(again, &out2);
                assert_int_equal(out.len, out2.len);
                assert_memory_equal(out.p, out2.p, out.len);
                buf_free(&out2);
            }
            buf_free(&out);
        }
        avki_arena_destroy(&a);
        buf_free(&b);
    }
}

/* Where cJSON 1.7 is more lenient than RFC 8259, we reject; pinned here so
 * a change on either side shows. */
static void test_cjson_lenient(void **state)
{
    static const struct {
        const char *text;
        size_t len;
    } docs[] = {
#define D(s) {s, sizeof(s) - 1}
        D("1 x"),                 /* cJSON_ParseWithLength ignores trailing text */
        D("[1] ]"),
        D("nullx"),
        D("0x10"),
        D("01"),                  /* leading zeros: strtod takes them */
        D("[-01]"),
        D("1."),                  /* strtod accepts "1." */
        D("[1.]"),
        D("1.e5"),
        D("\"a\nb\""),            /* raw control characters in strings */
        D("\"\t\""),
        D("\"\x01\""),
        D("\"\xC0\xAF\""),        /* no UTF-8 validation at all */
        D("\"\xED\xA0\x80\""),
        D("\"\xF4\x90\x80\x80\""),
        D("\"\xFF\""),
        D("\"\\uZZZZ\""),         /* bad hex becomes U+0000 */
        D("\xEF\xBB\xBF{}"),      /* byte order mark skipped */
        D("\x0b[1]"),             /* any byte <= 0x20 counts as white space */
        D("[1,\x01 2]"),
        D("[1]\x00"),
#undef D
    };
    size_t i;
    (void)state;
    for (i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        avki_arena a;
        const avki_json *v;
        cJSON *c = cJSON_ParseWithLength(docs[i].text, docs[i].len);
        if (!c)
            fail_msg("case %zu: cJSON now rejects it; move it to the strict list", i);
        cJSON_Delete(c);
        avki_arena_init(&a, NULL, 0, 0);
        AVKT_ASSERT_STATUS(avki_json_parse(&a, docs[i].text, docs[i].len, NULL, &v, NULL),
                           AVK_ERR_MALFORMED);
        avki_arena_destroy(&a);
    }
}

/* Valid JSON cJSON rejects: nesting beyond its fixed limit of 1000 levels.
 * We take it when the caller allows that depth. */
static void test_cjson_stricter(void **state)
{
    char *s = nested(1001, "[", "]", "");
    avki_arena a;
    cJSON *c;
    (void)state;
    c = cJSON_ParseWithLength(s, strlen(s));
    assert_null(c);
    c = cJSON_ParseWithLength(s + 1, strlen(s) - 2); /* 1000 levels */
    assert_non_null(c);
    cJSON_Delete(c);
    avki_arena_init(&a, NULL, 0, 0);
    assert_non_null(parse_in(&a, s, strlen(s), 1001, NULL));
    check_error(s, strlen(s), 0, AVK_ERR_LIMIT, 1, 513, "nesting deeper than 512 levels", 0);
    avki_arena_destroy(&a);
    free(s);
}

/* Random mutations of valid documents: whatever we accept, cJSON accepts
 * with the same tree; we accept nothing cJSON rejects. */
static void test_cjson_mutations(void **state)
{
    avkt_rng rng = {99};
    int trial, ours = 0, theirs = 0;
    (void)state;
    for (trial = 0; trial < 20000; trial++) {
        buf b = {0};
        avki_arena a;
        const avki_json *v;
        cJSON *c;
        int k, muts = 1 + (int)avkt_below(&rng, 3);
        gen_value(&b, &rng, 2);
        for (k = 0; k < muts && b.len > 0; k++) {
            size_t at = (size_t)avkt_below(&rng, b.len);
            static const char pool[] = "{}[]\",:\\u0123456789.eE+- \nntrufals\x00\x1f\x80\xC3\xED\xF4";
            char ch = pool[avkt_below(&rng, sizeof pool - 1)];
            switch (avkt_below(&rng, 3)) {
            case 0: b.p[at] = ch; break;
            case 1: memmove(b.p + at, b.p + at + 1, b.len - at); b.len--; break;
            default: {
                buf nb = {0};
                buf_put(&nb, b.p, at);
                buf_put(&nb, &ch, 1);
                buf_put(&nb, b.p + at, b.len - at);
                buf_free(&b);
                b = nb;
                break;
            }
            }
        }
        avki_arena_init(&a, NULL, 0, 0);
        v = parse_in(&a, b.p ? b.p : "", b.len, 0, NULL);
        c = cJSON_ParseWithLength(b.p ? b.p : "", b.len);
        ours += v != NULL;
        theirs += c != NULL;
        if (v) {
            if (!c)
                fail_msg("trial %d: we accept what cJSON rejects: %.*s", trial, (int)b.len, b.p);
            if (!avkt_agrees_with_cjson(v, c))
                fail_msg("trial %d: trees differ: %.*s", trial, (int)b.len, b.p);
        }
        cJSON_Delete(c);
        avki_arena_destroy(&a);
        buf_free(&b);
    }
    /* Both sides saw plenty of valid and invalid inputs. */
    assert_true(ours > 1000);
    assert_true(theirs > ours);
    print_message("mutations: we accepted %d, cJSON %d of 20000\n", ours, theirs);
}

/* ---- memory -------------------------------------------------------------------------- */

/* A document wider than the on-stack scratch (so it grows), with strings,
 * numbers of both kinds and nesting. */
static void big_document(buf *b)
{
    int i;
    buf_puts(b, "{\"type\":\"record\",\"name\":\"Big\",\"fields\":[");
    for (i = 0; i < 300; i++)
        buf_printf(b, "%s{\"name\":\"f%03d\",\"type\":[\"null\",\"long\"],\"default\":%s}",
                   i ? "," : "", i, i % 3 ? "null" : i % 2 ? "1.5e3" : "-42");
    buf_puts(b, "],\"doc\":\"caf\\u00e9\"}");
}

/* Fail the Nth allocation for every N: NO_MEMORY with a position, no leak,
 * and once nothing fails, the same tree as with libc. */
static void test_failing_allocator(void **state)
{
    buf b = {0}, want = {0};
    avki_arena a;
    const avki_json *v;
    long n;
    int all_after;
    (void)state;
    big_document(&b);
    avki_arena_init(&a, NULL, 0, 0);
    v = parse_in(&a, b.p, b.len, 0, NULL);
    assert_non_null(v);
    dump(&want, v);
    avki_arena_destroy(&a);

    for (all_after = 0; all_after <= 1; all_after++) {
        for (n = 1;; n++) {
            avkt_failalloc fa;
            avk_error err;
            avk_status st;
            avkt_failalloc_init(&fa, n);
            fa.fail_all_after = all_after;
            avki_arena_init(&a, &fa.allocator, 512, 0);
            v = (const avki_json *)1;
            st = avki_json_parse(&a, b.p, b.len, NULL, &v, &err);
            if (st == AVK_OK) {
                buf got = {0};
                assert_int_equal(fa.failures, 0);
                dump(&got, v);
                assert_string_equal(got.p, want.p);
                buf_free(&got);
            } else {
                AVKT_ASSERT_STATUS(st, AVK_ERR_NO_MEMORY);
                assert_null(v);
                assert_int_equal(err.status, AVK_ERR_NO_MEMORY);
                assert_true(strncmp(err.message, "line 1, column ", 15) == 0);
                assert_non_null(strstr(err.message, "out of memory"));
                assert_true(err.offset <= b.len);
            }
            assert_int_equal((long)a.allocations, fa.calls);
            avki_arena_destroy(&a);
            assert_int_equal(fa.live_blocks, 0);
            assert_int_equal(fa.size_mismatches, 0);
            assert_int_equal(fa.bad_frees, 0);
            if (st == AVK_OK)
                break;
            assert_true(n < 1000);
        }
        assert_true(n > 5); /* arena blocks and scratch both failed in turn */
    }
    buf_free(&b);
    buf_free(&want);
}

/* The arena's limit bounds the tree and the scratch: NO_MEMORY (the arena
 * cannot say which). */
static void test_arena_limit(void **state)
{
    buf b = {0};
    avki_arena a;
    const avki_json *v;
    avk_error err;
    size_t need;
    (void)state;
    big_document(&b);
    avki_arena_init(&a, NULL, 0, 0);
    assert_non_null(parse_in(&a, b.p, b.len, 0, NULL));
    need = a.total;
    avki_arena_destroy(&a);
    avki_arena_init(&a, NULL, 0, need / 2);
    AVKT_ASSERT_STATUS(avki_json_parse(&a, b.p, b.len, NULL, &v, &err), AVK_ERR_NO_MEMORY);
    assert_true(a.total <= need / 2);
    avki_arena_destroy(&a);
    buf_free(&b);
}

/* A reused arena: after warm-up, parsing takes no allocator call. */
static void test_reused_arena(void **state)
{
    buf b = {0};
    avkt_failalloc fa;
    avki_arena a;
    long calls = 0;
    int i;
    (void)state;
    big_document(&b);
    avkt_failalloc_init(&fa, 0);
    avki_arena_init(&a, &fa.allocator, 0, 0);
    for (i = 0; i < 10; i++) {
        avki_arena_reset(&a);
        if (i == 3)
            calls = fa.calls;
        assert_non_null(parse_in(&a, b.p, b.len, 0, NULL));
    }
    /* Only the scratch beyond the stack is allocated each time. */
    assert_true(fa.calls - calls <= 6 * 3);
    avki_arena_destroy(&a);
    assert_int_equal(fa.live_blocks, 0);
    buf_free(&b);
}

/* ---- deep trees compared, prefixes ----------------------------------------------------- */

/* n levels of [ or {"k": around leaf, malloc'd. */
static char *nested_mixed(size_t n, const char *leaf)
{
    size_t ll = strlen(leaf), k = 0, i;
    char *s = (char *)malloc(n * 7 + ll + 1);
    assert_non_null(s);
    for (i = 0; i < n; i++) {
        if (i % 2) {
            memcpy(s + k, "{\"k\":", 5);
            k += 5;
        } else {
            s[k++] = '[';
        }
    }
    memcpy(s + k, leaf, ll);
    k += ll;
    for (i = n; i-- > 0;)
        s[k++] = i % 2 ? '}' : ']';
    s[k] = 0;
    return s;
}

/* avki_json_equal at 200,000 levels: no recursion (it recursed, which a
 * tree this deep, parsed with a high max_depth, would overflow). */
static void test_equal_deep(void **state)
{
    avki_arena a;
    avk_error err;
    const avki_json *x, *y, *z;
    char *t1 = nested_mixed(200000, "[1,2]"), *t2 = nested_mixed(200000, "[1,3]");
    (void)state;
    avki_arena_init(&a, NULL, 0, 0);
    x = parse_in(&a, t1, strlen(t1), 300000, &err);
    y = parse_in(&a, t1, strlen(t1), 300000, &err);
    z = parse_in(&a, t2, strlen(t2), 300000, &err);
    assert_non_null(x);
    assert_non_null(y);
    assert_non_null(z);
    assert_true(avki_json_equal(x, y));
    assert_false(avki_json_equal(x, z));
    assert_false(avki_json_equal(z, x));
    avki_arena_destroy(&a);
    free(t1);
    free(t2);
}

static void test_equal_keys_and_counts(void **state)
{
    static const char *const texts[] = {
        "{\"a\":[1,{\"b\":2}],\"c\":3}", "{\"a\":[1,{\"b\":2}],\"d\":3}", "{\"a\":[1,{\"c\":2}],\"c\":3}",
        "{\"a\":[1,{\"b\":2}]}",        "{\"a\":[1,{\"b\":2},3],\"c\":3}", "[]",
        "{}",                         "null"};
    avki_arena a;
    avk_error err;
    const avki_json *v[8];
    size_t i, j;
    (void)state;
    avki_arena_init(&a, NULL, 0, 0);
    for (i = 0; i < 8; i++) {
        v[i] = parse_in(&a, texts[i], strlen(texts[i]), 0, &err);
        assert_non_null(v[i]);
    }
    for (i = 0; i < 8; i++)
        for (j = 0; j < 8; j++)
            assert_int_equal(avki_json_equal(v[i], v[j]), i == j);
    avki_arena_destroy(&a);
}

/* The prefix mode under the Avro JSON reader: the value's end, cuts, and
 * positions in the whole input. */
static void test_parse_prefix(void **state)
{
    avki_arena a;
    avk_error err;
    const avki_json *v;
    avki_json_parse_options o;
    size_t used;
    (void)state;
    avki_arena_init(&a, NULL, 0, 0);
    memset(&o, 0, sizeof o);
    o.flags = AVKI_JSON_PREFIX;
    AVKT_OK(avki_json_parse_ex(&a, " [1, 2] 3", 9, &o, &v, &used, &err));
    assert_int_equal(used, 7);
    assert_int_equal(v->type, AVKI_JSON_ARRAY);
    /* Nodes count from the text's start, messages from the input's. */
    o.line = 7;
    o.column = 3;
    o.offset = 1000;
    AVKT_ASSERT_STATUS(avki_json_parse_ex(&a, "\n [1, 2", 7, &o, &v, &used, &err),
                       AVK_ERR_TRUNCATED);
    assert_int_equal(used, 2);
    assert_string_equal(err.message, "line 8, column 7: the text ends inside a value");
    assert_int_equal(err.offset, 1007);
    o.flags |= AVKI_JSON_FINAL;
    AVKT_ASSERT_STATUS(avki_json_parse_ex(&a, "[1, 2", 5, &o, &v, &used, &err),
                       AVK_ERR_MALFORMED);
    assert_string_equal(err.message,
                        "line 7, column 8: expected ',' or ']' after an array element, found end "
                        "of input");
    AVKT_OK(avki_json_parse_ex(&a, "[1,\n 2] ", 8, &o, &v, &used, &err));
    assert_int_equal(used, 7);
    assert_int_equal(v->u.array.items[1]->line, 2);
    assert_int_equal(v->u.array.items[1]->column, 2);
    /* used is required in prefix mode. */
    AVKT_ASSERT_STATUS(avki_json_parse_ex(&a, "1", 1, &o, &v, NULL, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    avki_arena_destroy(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(avkt_test_kernel_choice),
        cmocka_unit_test(test_trees),
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_numbers_random),
        cmocka_unit_test(test_numbers_locale),
        cmocka_unit_test(test_positions),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_errors_guarded),
        cmocka_unit_test(test_invalid_arguments),
        cmocka_unit_test(test_depth_limit),
        cmocka_unit_test(test_get),
        cmocka_unit_test(test_write_string),
        cmocka_unit_test(test_write_string_paths),
        cmocka_unit_test(test_write_errors),
        cmocka_unit_test(test_write_deep_failing_allocator),
        cmocka_unit_test(test_cjson_valid),
        cmocka_unit_test(test_cjson_lenient),
        cmocka_unit_test(test_cjson_stricter),
        cmocka_unit_test(test_cjson_mutations),
        cmocka_unit_test(test_failing_allocator),
        cmocka_unit_test(test_arena_limit),
        cmocka_unit_test(test_reused_arena),
        cmocka_unit_test(test_equal_deep),
        cmocka_unit_test(test_equal_keys_and_counts),
        cmocka_unit_test(test_parse_prefix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
