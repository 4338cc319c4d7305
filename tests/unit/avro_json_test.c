/* The Avro JSON encoding writer: values decoded from known bytes, written as exact JSON text. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "avkt.h"

/* Decodes hex as schema sq, writes it as JSON (flags) and compares. */
static void expect_json_flags(const char *sq, const char *hex, unsigned flags, const char *want)
{
    avk_schema *s = AVKT_PARSE(sq);
    avk_plan *p = avkt_plan_new(avk_schema_root(s), 0, NULL, 0);
    uint8_t in[512];
    size_t n = avkt_unhex(hex, in, sizeof in), len;
    avk_arena *arena;
    avk_reader r;
    avk_value v;
    avk_writer w;
    avk_error err;
    const uint8_t *out;
    AVKT_OK(avk_arena_new(NULL, &arena, NULL));
    avk_reader_init_memory(&r, in, n);
    if (avk_plan_decode(p, &r, arena, &v, &err) != AVK_OK)
        fail_msg("decode of %s: %s", hex, err.message);
    assert_int_equal(r.pos - in, n);
    AVKT_OK(avk_writer_init_memory(&w, NULL, NULL));
    AVKT_OK(avk_value_write_json(&v, flags, &w, &err));
    out = avk_writer_data(&w, &len);
    if (len != strlen(want) || memcmp(out, want, len) != 0)
        fail_msg("schema %s, bytes %s:\n  got  %.*s\n  want %s", sq, hex, (int)len,
                 (const char *)out, want);
    avk_writer_destroy(&w);
    avk_arena_free(arena);
    avk_plan_free(p);
    avk_schema_free(s);
}

static void expect_json(const char *sq, const char *hex, const char *want)
{
    expect_json_flags(sq, hex, 0, want);
}

static void test_primitives(void **state)
{
    (void)state;
    expect_json("'null'", "", "null");
    expect_json("'boolean'", "01", "true");
    expect_json("'boolean'", "00", "false");
    expect_json("'int'", "01", "-1");
    expect_json("'int'", "feffffff0f", "2147483647");
    expect_json("'long'", "ffffffffffffffffff01", "-9223372036854775808");
    expect_json("'long'", "a413", "1234");
    /* Doubles in the fewest digits that read back; integral ones keep ".0". */
    expect_json("'double'", "9a9999999999b93f", "0.1");
    expect_json("'double'", "0000000000489340", "1234.0");
    expect_json("'double'", "555555555555d53f", "0.3333333333333333");
    expect_json("'double'", "000000000000f87f", "\"NaN\"");
    expect_json("'double'", "000000000000f07f", "\"Infinity\"");
    expect_json("'double'", "000000000000f0ff", "\"-Infinity\"");
    expect_json("'double'", "0000000000000080", "-0.0");
    /* A float in its own shortest digits, as Java prints it, not as the
     * double it widens to (0.1f is 0.100000001490116...). */
    expect_json("'float'", "cdcccc3d", "0.1");
    expect_json("'float'", "d7551c49", "640349.44");
    expect_json("'float'", "00409a44", "1234.0");
    expect_json("'float'", "01000000", "1e-45");
    expect_json("'float'", "ffff7f7f", "3.4028235e+38");
    expect_json("'float'", "00000080", "-0.0");
    expect_json("'float'", "0000c07f", "\"NaN\"");
    expect_json("'float'", "0000807f", "\"Infinity\"");
    expect_json("{'type': 'array', 'items': 'float'}", "04cdcccc3dd7551c4900", "[0.1,640349.44]");
    expect_json_flags("{'type': 'array', 'items': 'float'}", "02cdcccc3d00", AVK_JSON_PRETTY,
                      "[\n  0.1\n]");
}

static void test_strings_and_bytes(void **state)
{
    (void)state;
    expect_json("'string'", "0c68c3a96c6c6f", "\"h\xc3\xa9llo\"");
    /* Quotes, backslashes and controls are escaped. */
    expect_json("'string'", "0a22615c0a01", "\"\\\"a\\\\\\n\\u0001\"");
    expect_json("'string'", "00", "\"\"");
    /* Bytes: one code point per byte, U+0080-U+00FF as two UTF-8 bytes. */
    expect_json("'bytes'", "0a00417fff22", "\"\\u0000A\x7f\xc3\xbf\\\"\"");
    expect_json("{'type': 'fixed', 'name': 'F', 'size': 3}", "5c80e9",
                "\"\\\\\xc2\x80\xc3\xa9\"");
    /* Decimal on bytes: the unscaled integer's bytes, as bytes. */
    expect_json("{'type': 'bytes', 'logicalType': 'decimal', 'precision': 5, 'scale': 2}",
                "043039", "\"09\"");
}

static void test_complex(void **state)
{
    (void)state;
    expect_json("{'type': 'record', 'name': 'R', 'fields': [{'name': 'a', 'type': 'long'}, "
                "{'name': 'b', 'type': 'string'}]}",
                "0206666f6f", "{\"a\":1,\"b\":\"foo\"}");
    expect_json("{'type': 'record', 'name': 'E', 'fields': []}", "", "{}");
    expect_json("{'type': 'enum', 'name': 'Suit', 'symbols': ['HEARTS', 'SPADES']}", "02",
                "\"SPADES\"");
    /* Typed arrays of every item kind, and boxed ones. */
    expect_json("{'type': 'array', 'items': 'long'}", "0602040600", "[1,2,3]");
    expect_json("{'type': 'array', 'items': 'int'}", "05080201800100", "[1,-1,64]");
    expect_json("{'type': 'array', 'items': 'boolean'}", "04010000", "[true,false]");
    expect_json("{'type': 'array', 'items': 'double'}", "02000000000000f03f00", "[1.0]");
    expect_json("{'type': 'array', 'items': 'float'}", "020000c03f00", "[1.5]");
    expect_json("{'type': 'array', 'items': 'null'}", "0400", "[null,null]");
    expect_json("{'type': 'array', 'items': {'type': 'fixed', 'name': 'F2', 'size': 2}}",
                "0461626364" "00", "[\"ab\",\"cd\"]");
    expect_json("{'type': 'array', 'items': 'string'}", "040278027900", "[\"x\",\"y\"]");
    expect_json("{'type': 'array', 'items': 'long'}", "00", "[]");
    expect_json("{'type': 'map', 'values': 'long'}", "04026b02027a0400",
                "{\"k\":1,\"z\":2}");
    expect_json("{'type': 'map', 'values': 'long'}", "00", "{}");
    /* Unions: null bare, other branches wrapped in their type's name. */
    expect_json("['null', 'string']", "00", "null");
    expect_json("['null', 'string']", "020261", "{\"string\":\"a\"}");
    expect_json("['int', {'type': 'array', 'items': 'int'}]", "02020200",
                "{\"array\":[1]}");
    expect_json("{'type': 'record', 'name': 'ns.Rec', 'fields': [{'name': 'u', 'type': "
                "['null', {'type': 'record', 'name': 'Inner', 'fields': [{'name': 'x', "
                "'type': 'int'}]}]}]}",
                "0204", "{\"u\":{\"ns.Inner\":{\"x\":2}}}");
    /* A recursive list. */
    expect_json("{'type': 'record', 'name': 'L', 'fields': [{'name': 'v', 'type': 'int'}, "
                "{'name': 'next', 'type': ['null', 'L']}]}",
                "02020400", "{\"v\":1,\"next\":{\"L\":{\"v\":2,\"next\":null}}}");
}

static void test_pretty(void **state)
{
    (void)state;
    expect_json_flags("{'type': 'record', 'name': 'R', 'fields': [{'name': 'a', 'type': "
                      "{'type': 'array', 'items': 'int'}}, {'name': 'm', 'type': {'type': "
                      "'map', 'values': 'string'}}, {'name': 'e', 'type': {'type': 'array', "
                      "'items': 'int'}}]}",
                      "04020400" "02026b02760000", AVK_JSON_PRETTY,
                      "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"m\": {\n    \"k\": \"v\"\n  },\n"
                      "  \"e\": []\n}");
}

static void test_bad_values(void **state)
{
    avk_schema *s = AVKT_PARSE("{'type': 'enum', 'name': 'E', 'symbols': ['A']}");
    avk_schema *u = AVKT_PARSE("['null', 'int']");
    avk_writer w;
    avk_value v, b;
    avk_error err;
    (void)state;
    AVKT_OK(avk_writer_init_memory(&w, NULL, NULL));
    memset(&v, 0, sizeof v);
    AVKT_ASSERT_STATUS(avk_value_write_json(&v, 0, &w, &err), AVK_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "value has no type");
    v.type = avk_schema_root(s);
    v.u.index = 1;
    AVKT_ASSERT_STATUS(avk_value_write_json(&v, 0, &w, &err), AVK_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.path, "E");
    assert_string_equal(err.message, "E: enum index 1 out of range (E has 1 symbols)");
    v.type = avk_schema_root(u);
    v.u.branch.index = 2;
    v.u.branch.value = &b;
    AVKT_ASSERT_STATUS(avk_value_write_json(&v, 0, &w, &err), AVK_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "union: union branch 2 out of range or without a value");
    AVKT_ASSERT_STATUS(avk_value_write_json(NULL, 0, &w, &err), AVK_ERR_INVALID_ARGUMENT);
    /* Nothing of the values that failed stayed in the writer. */
    assert_int_equal(avk_writer_offset(&w), 0);
    avk_writer_destroy(&w);
    avk_schema_free(s);
    avk_schema_free(u);
}

/* A memory writer's max_size reached mid-value: the writer's LIMIT. */
static void test_writer_limit(void **state)
{
    avk_schema *s = AVKT_PARSE("'string'");
    avk_writer_options o;
    avk_writer w;
    avk_value v;
    avk_error err;
    (void)state;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.buffer_size = 8;
    o.max_size = 8;
    AVKT_OK(avk_writer_init_memory(&w, &o, NULL));
    v.type = avk_schema_root(s);
    v.u.bytes.data = (const uint8_t *)"0123456789";
    v.u.bytes.len = 10;
    AVKT_ASSERT_STATUS(avk_value_write_json(&v, 0, &w, &err), AVK_ERR_LIMIT);
    avk_writer_destroy(&w);
    avk_schema_free(s);
}

/* Reads Avro JSON text as schema sq, writes it back compact and compares
 * with want (NULL: the input itself). */
static void expect_read(const char *sq, const char *json, const char *want)
{
    avk_schema *s = AVKT_PARSE(sq);
    avk_arena *arena;
    avk_value v;
    avk_writer w;
    avk_error err;
    const uint8_t *out;
    size_t len;
    AVKT_OK(avk_arena_new(NULL, &arena, NULL));
    if (avk_value_read_json(avk_schema_root(s), json, strlen(json), arena, &v, &err) != AVK_OK)
        fail_msg("reading %s as %s: %s", json, sq, err.message);
    AVKT_OK(avk_writer_init_memory(&w, NULL, NULL));
    AVKT_OK(avk_value_write_json(&v, 0, &w, &err));
    out = avk_writer_data(&w, &len);
    if (!want)
        want = json;
    if (len != strlen(want) || memcmp(out, want, len) != 0)
        fail_msg("read %s as %s:\n  got  %.*s\n  want %s", json, sq, (int)len,
                 (const char *)out, want);
    avk_writer_destroy(&w);
    avk_arena_free(arena);
    avk_schema_free(s);
}

/* Reading JSON that does not fit: status, path and message. */
static void expect_read_error(const char *sq, const char *json, avk_status want, const char *path,
                              const char *message)
{
    avk_schema *s = AVKT_PARSE(sq);
    avk_arena *arena;
    avk_value v;
    avk_error err;
    AVKT_OK(avk_arena_new(NULL, &arena, NULL));
    AVKT_ASSERT_STATUS(avk_value_read_json(avk_schema_root(s), json, strlen(json), arena, &v,
                                           &err),
                       want);
    assert_string_equal(err.path, path);
    assert_string_equal(err.message, message);
    avk_arena_free(arena);
    avk_schema_free(s);
}

static void test_read_round_trips(void **state)
{
    (void)state;
    expect_read("'null'", "null", NULL);
    expect_read("'int'", "-2147483648", NULL);
    expect_read("'long'", "9223372036854775807", NULL);
    expect_read("'double'", "0.1", NULL);
    expect_read("'double'", "\"-Infinity\"", NULL);
    expect_read("'double'", "3", "3.0");
    expect_read("'float'", "1.5", NULL);
    expect_read("'string'", "\"h\\u00e9\\n\"", "\"h\xc3\xa9\\n\"");
    expect_read("'bytes'", "\"\\u0000\\u00ff\"", "\"\\u0000\xc3\xbf\"");
    expect_read("{'type': 'fixed', 'name': 'F', 'size': 2}", "\"ab\"", NULL);
    expect_read("{'type': 'enum', 'name': 'E', 'symbols': ['A', 'B']}", "\"B\"", NULL);
    expect_read("{'type': 'array', 'items': 'int'}", "[1,-2,3]", NULL);
    expect_read("{'type': 'array', 'items': 'boolean'}", "[true,false]", NULL);
    expect_read("{'type': 'array', 'items': {'type': 'fixed', 'name': 'G', 'size': 1}}",
                "[\"a\",\"b\"]", NULL);
    expect_read("{'type': 'array', 'items': 'null'}", "[null]", NULL);
    expect_read("{'type': 'map', 'values': 'string'}", "{\"a\":\"x\",\"b\":\"y\"}", NULL);
    expect_read("['null', 'string']", "{\"string\":\"a\"}", NULL);
    expect_read("['null', 'string']", "null", NULL);
    /* Members in another order, and a repeated name (the first wins). */
    expect_read("{'type': 'record', 'name': 'O', 'fields': [{'name': 'a', 'type': 'int'}, "
                "{'name': 'b', 'type': 'string'}]}",
                "{\"b\":\"y\",\"a\":1,\"a\":2}", "{\"a\":1,\"b\":\"y\"}");
    /* A named branch by its full or simple name. */
    expect_read("['null', {'type': 'record', 'name': 'ns.R', 'fields': [{'name': 'x', 'type': "
                "'int'}]}]",
                "{\"R\":{\"x\":1}}", "{\"ns.R\":{\"x\":1}}");
    expect_read("{'type': 'record', 'name': 'L', 'fields': [{'name': 'v', 'type': 'int'}, "
                "{'name': 'next', 'type': ['null', 'L']}]}",
                "{\"v\":1,\"next\":{\"L\":{\"v\":2,\"next\":null}}}", NULL);
}

/* Missing fields take their defaults, of every type; unions' defaults are
 * their first branch, unwrapped. */
static void test_read_defaults(void **state)
{
    (void)state;
    expect_read("{'type': 'record', 'name': 'D', 'fields': ["
                "{'name': 'a', 'type': 'int', 'default': 7},"
                "{'name': 'b', 'type': 'bytes', 'default': '\\u00ff'},"
                "{'name': 'c', 'type': ['null', 'int'], 'default': null},"
                "{'name': 'd', 'type': ['string', 'null'], 'default': 'x'},"
                "{'name': 'e', 'type': {'type': 'array', 'items': 'long'}, 'default': [1, 2]},"
                "{'name': 'f', 'type': {'type': 'map', 'values': 'double'}, 'default': {'k': 1}},"
                "{'name': 'g', 'type': {'type': 'enum', 'name': 'S', 'symbols': ['P', 'Q']}, "
                "'default': 'Q'},"
                "{'name': 'h', 'type': {'type': 'fixed', 'name': 'H', 'size': 1}, 'default': 'z'},"
                "{'name': 'i', 'type': {'type': 'record', 'name': 'In', 'fields': [{'name': 'y', "
                "'type': 'string', 'default': 'dflt'}]}, 'default': {}}]}",
                "{\"a\":1}",
                "{\"a\":1,\"b\":\"\xc3\xbf\",\"c\":null,\"d\":{\"string\":\"x\"},"
                "\"e\":[1,2],\"f\":{\"k\":1.0},\"g\":\"Q\",\"h\":\"z\","
                "\"i\":{\"y\":\"dflt\"}}");
}

static void test_read_errors(void **state)
{
    static const char rec[] = "{'type': 'record', 'name': 'R', 'fields': [{'name': 'a', 'type': "
                              "{'type': 'array', 'items': 'int'}}, {'name': 'b', 'type': "
                              "'string'}]}";
    (void)state;
    expect_read_error(rec, "{\"a\":[1,\"x\"],\"b\":\"s\"}", AVK_ERR_MALFORMED,
                      "R.fields[0].items[1]",
                      "R.a[1]: line 1, column 9: expected an integer within 32 bits for int, "
                      "found a string");
    expect_read_error(rec, "{\"a\":[]}", AVK_ERR_MALFORMED, "R.fields[1]",
                      "R.b: line 1, column 1: field \"b\" of R is missing and has no default");
    expect_read_error(rec, "{\"a\":[],\"b\":\"s\",\"c\":1}", AVK_ERR_MALFORMED, "R",
                      "R: line 1, column 21: R has no field \"c\"");
    expect_read_error("'int'", "2147483648", AVK_ERR_MALFORMED, "int",
                      "int: line 1, column 1: expected an integer within 32 bits for int, found "
                      "a number");
    expect_read_error("'bytes'", "\"\\u0100\"", AVK_ERR_MALFORMED, "bytes",
                      "bytes: line 1, column 1: expected code points no larger than U+00FF "
                      "for bytes, found a string");
    expect_read_error("{'type': 'fixed', 'name': 'F', 'size': 2}", "\"abc\"",
                      AVK_ERR_MALFORMED, "F", "F: line 1, column 1: 3 bytes for F, which has 2");
    expect_read_error("{'type': 'enum', 'name': 'E', 'symbols': ['A']}", "\"Z\"",
                      AVK_ERR_MALFORMED, "E",
                      "E: line 1, column 1: expected one of its symbols for E, found a string");
    /* JSON syntax errors come from the JSON reader, with line and column. */
    {
        avk_schema *s = AVKT_PARSE("'int'");
        avk_arena *arena;
        avk_value v;
        avk_error err;
        AVKT_OK(avk_arena_new(NULL, &arena, NULL));
        AVKT_ASSERT_STATUS(avk_value_read_json(avk_schema_root(s), "[1,", 3, arena, &v, &err),
                           AVK_ERR_MALFORMED);
        assert_non_null(strstr(err.message, "line 1, column 4"));
        AVKT_ASSERT_STATUS(avk_value_read_json(NULL, "1", 1, arena, &v, &err),
                           AVK_ERR_INVALID_ARGUMENT);
        avk_arena_free(arena);
        avk_schema_free(s);
    }
}

/* ---- strings that are not UTF-8 -------------------------------------------------------- */

static const char STR_REC[] = "{'type': 'record', 'name': 'R', 'fields': [{'name': 's', 'type': "
                              "'string'}, {'name': 'm', 'type': {'type': 'map', 'values': "
                              "'int'}}]}";

/* Writes string s (n bytes) as the only field of R (and key, when not
 * NULL, as the map's one key) with flags and a writer of buffer_size
 * bytes (0: default; small sizes take the slow path). */
static avk_status write_str(const char *str, size_t n, const char *key, size_t kn, unsigned flags,
                            size_t buffer_size, char *out, size_t cap, avk_error *err)
{
    avk_schema *s = AVKT_PARSE(STR_REC);
    avk_writer_options o;
    avk_writer w;
    avk_value v, f[2], mv;
    avk_bytes k;
    avk_status st;
    const uint8_t *data;
    size_t len;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.buffer_size = buffer_size;
    AVKT_OK(avk_writer_init_memory(&w, &o, NULL));
    v.type = avk_schema_root(s);
    v.u.fields = f;
    f[0].type = avk_field_type(avk_type_field(v.type, 0));
    f[0].u.bytes.data = (const uint8_t *)str;
    f[0].u.bytes.len = n;
    f[1].type = avk_field_type(avk_type_field(v.type, 1));
    f[1].u.map.count = key ? 1 : 0;
    f[1].u.map.keys = &k;
    f[1].u.map.values = &mv;
    k.data = (const uint8_t *)key;
    k.len = kn;
    mv.type = avk_type_values(f[1].type);
    mv.u.i = 7;
    st = avk_value_write_json(&v, flags, &w, err);
    data = avk_writer_data(&w, &len);
    assert_true(len < cap);
    memcpy(out, data, len);
    out[len] = 0;
    avk_writer_destroy(&w);
    avk_schema_free(s);
    return st;
}

/* By default a string that is not UTF-8 is an error naming the bytes and
 * where they are; the writer keeps nothing of the value. (Before, the
 * bytes were copied out as they were: the text was not JSON.) */
static void test_write_invalid_utf8_fails(void **state)
{
    char out[256];
    avk_error err;
    size_t bs;
    (void)state;
    for (bs = 0; bs <= 16; bs += 16) { /* fast path, then the slow one */
        AVKT_ASSERT_STATUS(write_str("ab\xc3(", 4, NULL, 0, 0, bs, out, sizeof out, &err),
                           AVK_ERR_MALFORMED);
        assert_string_equal(err.path, "R.fields[0]");
        assert_string_equal(err.message, "R.s: string of 4 bytes is not valid UTF-8: 0xC3 at "
                                         "byte 2 is not a character");
        assert_string_equal(out, "");
        AVKT_ASSERT_STATUS(write_str("ok", 2, "k\xff", 2, 0, bs, out, sizeof out, &err),
                           AVK_ERR_MALFORMED);
        assert_string_equal(err.path, "R.fields[1].keys[0]");
        assert_string_equal(err.message, "R.m.keys[0]: map key of 2 bytes is not valid UTF-8: "
                                         "0xFF at byte 1 is not a character");
        /* A cut sequence at the end shows all its bytes. */
        AVKT_ASSERT_STATUS(write_str("0123456789\xf0\x9f\x98", 13, NULL, 0, 0, bs, out,
                                     sizeof out, &err),
                           AVK_ERR_MALFORMED);
        assert_string_equal(err.message, "R.s: string of 13 bytes is not valid UTF-8: 0xF0 0x9F "
                                         "0x98 at byte 10 is not a character");
        /* Valid UTF-8 of every length passes, escapes as before. */
        AVKT_OK(write_str("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"\n\x01/\x7f", 14, "\xc3\xa9", 2,
                          0, bs, out, sizeof out, &err));
        assert_string_equal(out, "{\"s\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\\\"\\n\\u0001/"
                                 "\x7f\",\"m\":{\"\xc3\xa9\":7}}");
    }
}

/* AVK_JSON_REPLACE_INVALID_UTF8: one U+FFFD per maximal subpart (the
 * example of Unicode 15, table 3-8, and the other classes). */
static void test_write_invalid_utf8_replaced(void **state)
{
    static const struct {
        const char *in;
        const char *out;
    } cases[] = {
        /* Table 3-8: a, F1 80 80, E1 80, C2, b, 80, c, 80, BF, d */
        {"\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64",
         "a\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD" "b\xEF\xBF\xBD" "c\xEF\xBF\xBD\xEF\xBF\xBD" "d"},
        /* overlong (E0 starts nothing), surrogate, above U+10FFFF */
        {"\xE0\x80", "\xEF\xBF\xBD\xEF\xBF\xBD"},
        {"\xED\xA0\x80", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"},
        {"\xF4\x90\x80\x80", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"},
        {"\xC0\xAF", "\xEF\xBF\xBD\xEF\xBF\xBD"},
        {"\xF5\xFF", "\xEF\xBF\xBD\xEF\xBF\xBD"},
        {"x\xE2\x82", "x\xEF\xBF\xBD"},                              /* cut at the end */
        {"\xE2\x82\xAC\xE2\x82" "01234567\"", "\xE2\x82\xAC\xEF\xBF\xBD" "01234567\\\""},
    };
    char out[256], want[256];
    avk_error err;
    size_t i, bs;
    (void)state;
    for (bs = 0; bs <= 16; bs += 16) {
        for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            AVKT_OK(write_str(cases[i].in, strlen(cases[i].in), "\xff", 1,
                              AVK_JSON_REPLACE_INVALID_UTF8, bs, out, sizeof out, &err));
            snprintf(want, sizeof want, "{\"s\":\"%s\",\"m\":{\"\xEF\xBF\xBD\":7}}", cases[i].out);
            if (strcmp(out, want) != 0)
                fail_msg("case %zu (buffer %zu): got %s, want %s", i, bs, out, want);
        }
    }
}

/* ---- unions that do not match ---------------------------------------------------------- */

static const char LONG_LIST[] = "{\"type\":\"record\",\"name\":\"LongList\",\"fields\":[{\"name\":"
                                "\"value\",\"type\":\"long\"},{\"name\":\"next\",\"type\":"
                                "[\"null\",\"LongList\"]}]}";

static void test_read_union_messages(void **state)
{
    (void)state;
    expect_read_error(LONG_LIST, "{\"value\":1,\"next\":5}", AVK_ERR_MALFORMED,
                      "LongList.fields[1]",
                      "LongList.next: line 1, column 19: expected null or an object naming one "
                      "branch of union [\"null\",\"LongList\"], found a number");
    expect_read_error(LONG_LIST, "{\"value\":1,\"next\":{\"Long\":null}}", AVK_ERR_MALFORMED,
                      "LongList.fields[1]",
                      "LongList.next: line 1, column 19: \"Long\" is no branch of union "
                      "[\"null\",\"LongList\"] (expected null or an object naming one)");
    expect_read_error("['int', 'string']", "null", AVK_ERR_MALFORMED, "union",
                      "union: line 1, column 1: expected an object naming one branch of union "
                      "[\"int\",\"string\"], found null");
    expect_read_error("['null', 'int']", "{\"int\":1,\"null\":null}", AVK_ERR_MALFORMED, "union",
                      "union: line 1, column 1: expected null or an object naming one branch of "
                      "union [\"null\",\"int\"], found an object of 2 members");
    expect_read_error("['null', 'int']", "[1]", AVK_ERR_MALFORMED, "union",
                      "union: line 1, column 1: expected null or an object naming one branch of "
                      "union [\"null\",\"int\"], found an array");
    /* Named branches by their full names; a long list is cut. */
    expect_read_error("['null', {'type': 'record', 'name': 'a.b.Rec', 'fields': []}, "
                      "{'type': 'enum', 'name': 'a.b.En', 'symbols': ['X']}]",
                      "\"X\"", AVK_ERR_MALFORMED, "union",
                      "union: line 1, column 1: expected null or an object naming one branch of "
                      "union [\"null\",\"a.b.Rec\",\"a.b.En\"], found a string");
    expect_read_error("['int', 'long', 'float', 'double', 'string', 'bytes', 'boolean', "
                      "{'type': 'array', 'items': 'int'}, {'type': 'map', 'values': 'int'}, "
                      "{'type': 'record', 'name': 'VeryLongRecordNameNumberOne', 'fields': []}, "
                      "{'type': 'record', 'name': 'VeryLongRecordNameNumberTwo', 'fields': []}]",
                      "true", AVK_ERR_MALFORMED, "union",
                      "union: line 1, column 1: expected an object naming one branch of union "
                      "[\"int\",\"long\",\"float\",\"double\",\"string\",\"bytes\",\"boolean\","
                      "\"array\",\"map\",\"VeryLongRecordNameNumberOne\",...], found true");
}

/* ---- depth --------------------------------------------------------------------------------- */

/* The JSON text of a LongList of n nodes, values 0.. except the last
 * node's value text, last. malloc'd. */
static char *list_json(size_t n, const char *last, size_t *len)
{
    size_t cap = n * 48 + 64, k = 0, i;
    char *s = (char *)malloc(cap);
    assert_non_null(s);
    for (i = 0; i + 1 < n; i++)
        k += (size_t)sprintf(s + k, "{\"value\":%zu,\"next\":{\"LongList\":", i);
    k += (size_t)sprintf(s + k, "{\"value\":%s,\"next\":null}", last);
    for (i = 0; i + 1 < n; i++) {
        s[k++] = '}';
        s[k++] = '}';
    }
    s[k] = 0;
    *len = k;
    return s;
}

/* "[[[...": n brackets, malloc'd. */
static char *brackets(size_t n)
{
    char *s = (char *)malloc(n + 1);
    assert_non_null(s);
    memset(s, '[', n);
    s[n] = 0;
    return s;
}

#define DEEP_NODES 100000

typedef struct deep_job {
    const avk_type *t;
    char *list; /* DEEP_NODES nodes */
    size_t list_len;
    char *bad; /* the same with "x" as the last value */
    size_t bad_len;
    char *hostile; /* 10^7 '[' */
    size_t hostile_len;
    /* results */
    avk_status read1, read2, write, bad_st, hostile_st;
    int same_text, equal;
    avk_error bad_err, hostile_err;
} deep_job;

/* Everything deep a caller does, with the library's default limits. */
static void *deep_work(void *arg)
{
    deep_job *d = (deep_job *)arg;
    avk_arena *arena;
    avk_value v1, v2;
    avk_writer w;
    avk_error err;
    const uint8_t *out;
    size_t len;
    if (avk_arena_new(NULL, &arena, &err) != AVK_OK)
        return NULL;
    d->read1 = avk_value_read_json(d->t, d->list, d->list_len, arena, &v1, &err);
    d->read2 = avk_value_read_json(d->t, d->list, d->list_len, arena, &v2, &err);
    if (avk_writer_init_memory(&w, NULL, &err) == AVK_OK) {
        d->write = avk_value_write_json(&v1, 0, &w, &err);
        out = avk_writer_data(&w, &len);
        d->same_text = len == d->list_len && memcmp(out, d->list, len) == 0;
        avk_writer_destroy(&w);
    }
    d->equal = d->read1 == AVK_OK && d->read2 == AVK_OK && avk_value_equal(&v1, &v2);
    d->bad_st = avk_value_read_json(d->t, d->bad, d->bad_len, arena, &v1, &d->bad_err);
    avk_arena_reset(arena);
    d->hostile_st =
        avk_value_read_json(d->t, d->hostile, d->hostile_len, arena, &v1, &d->hostile_err);
    avk_arena_free(arena);
    return NULL;
}

static void deep_job_init(deep_job *d, const avk_type *t)
{
    memset(d, 0, sizeof *d);
    d->t = t;
    d->list = list_json(DEEP_NODES, "99999", &d->list_len);
    d->bad = list_json(DEEP_NODES, "\"x\"", &d->bad_len);
    d->hostile_len = 10000000;
    d->hostile = brackets(d->hostile_len);
    d->read1 = d->read2 = d->write = d->bad_st = d->hostile_st = AVK_ERR_INVALID_ARGUMENT;
}

static void deep_job_check(deep_job *d)
{
    AVKT_OK(d->read1);
    AVKT_OK(d->read2);
    AVKT_OK(d->write);
    assert_true(d->same_text);
    assert_true(d->equal);
    /* 100,000 nodes: 199,999 segments to the bottom value, shortened in
     * the middle, the reason whole. */
    AVKT_ASSERT_STATUS(d->bad_st, AVK_ERR_MALFORMED);
    assert_string_equal(d->bad_err.path,
                        "LongList.fields[1].branch[1].fields[1].branch[1].fields[1].branch[1].field"
                        "s[1].branch[1].fields[1]...(199977 levels)....fields[1].branch[1].fields[1"
                        "].branch[1].fields[1].branch[1].fields[1].branch[1].fields[1].branch[1].fi"
                        "elds[1].branch[1].fields[0]");
    assert_string_equal(d->bad_err.message,
                        "LongList.next.branch[1].next.branch[1]...(199991 levels)....branch[1]."
                        "next.branch[1].value: line 1, column 3388866: expected an integer within "
                        "64 bits for long, found a string");
    assert_int_equal(d->bad_err.offset, 3388865);
    /* 10^7 levels stop at the default depth, 10^6 + 1. */
    AVKT_ASSERT_STATUS(d->hostile_st, AVK_ERR_LIMIT);
    assert_string_equal(d->hostile_err.message,
                        "line 1, column 1000001: nesting deeper than 1000000 levels");
}

static void deep_job_free(deep_job *d)
{
    free(d->list);
    free(d->bad);
    free(d->hostile);
}

/* A 100,000-node list (200,000 levels) both ways, on the test's stack
 * (8 MiB). The reader used to stop at 512 JSON levels (65 nodes), the
 * writer and equality at 1024. */
static void test_deep_list(void **state)
{
    avk_schema *s = AVKT_PARSE(LONG_LIST);
    deep_job d;
    (void)state;
    deep_job_init(&d, avk_schema_root(s));
    deep_work(&d);
    deep_job_check(&d);
    deep_job_free(&d);
    avk_schema_free(s);
}

/* The same on a thread with a 256 KiB stack: depth costs heap, not C
 * stack (recursion at ~100 bytes a level would need 20 MB). */
static void test_deep_list_small_stack(void **state)
{
    avk_schema *s = AVKT_PARSE(LONG_LIST);
    pthread_attr_t attr;
    pthread_t th;
    deep_job d;
    (void)state;
    deep_job_init(&d, avk_schema_root(s));
    assert_int_equal(pthread_attr_init(&attr), 0);
    assert_int_equal(pthread_attr_setstacksize(&attr, 256 * 1024), 0);
    assert_int_equal(pthread_create(&th, &attr, deep_work, &d), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
    pthread_attr_destroy(&attr);
    deep_job_check(&d);
    deep_job_free(&d);
    avk_schema_free(s);
}

/* max_depth counts records, arrays, maps and unions, each one level, the
 * binary decoder's way, in both directions: 3 nodes are 6 levels (the
 * last union, null, included). */
static void test_depth_limits(void **state)
{
    avk_schema *s = AVKT_PARSE(LONG_LIST);
    avk_json_read_options ro;
    avk_json_write_options wo;
    avk_arena *arena;
    avk_value v;
    avk_writer w;
    avk_error err;
    size_t len;
    char *j = list_json(3, "7", &len);
    (void)state;
    AVKT_OK(avk_arena_new(NULL, &arena, NULL));
    memset(&ro, 0, sizeof ro);
    ro.struct_size = sizeof ro;
    ro.limits.max_depth = 6;
    AVKT_OK(avk_value_read_json_opts(avk_schema_root(s), j, len, &ro, arena, &v, NULL, &err));
    /* 5: the JSON text (5 objects deep) passes, the null union does not. */
    ro.limits.max_depth = 5;
    AVKT_ASSERT_STATUS(
        avk_value_read_json_opts(avk_schema_root(s), j, len, &ro, arena, &v, NULL, &err),
        AVK_ERR_LIMIT);
    assert_string_equal(err.path, "LongList.fields[1].branch[1].fields[1].branch[1].fields[1]");
    assert_string_equal(err.message, "LongList.next.branch[1].next.branch[1].next: line 1, "
                                     "column 79: nesting deeper than max_depth (5)");
    /* 4: the text's objects already pass it. */
    ro.limits.max_depth = 4;
    AVKT_ASSERT_STATUS(
        avk_value_read_json_opts(avk_schema_root(s), j, len, &ro, arena, &v, NULL, &err),
        AVK_ERR_LIMIT);
    assert_string_equal(err.path, "");
    assert_string_equal(err.message, "line 1, column 61: nesting deeper than 4 levels");
    /* Writing. */
    ro.limits.max_depth = 0;
    AVKT_OK(avk_value_read_json_opts(avk_schema_root(s), j, len, &ro, arena, &v, NULL, &err));
    AVKT_OK(avk_writer_init_memory(&w, NULL, NULL));
    memset(&wo, 0, sizeof wo);
    wo.struct_size = sizeof wo;
    wo.max_depth = 5;
    AVKT_ASSERT_STATUS(avk_value_write_json_opts(&v, &wo, &w, &err), AVK_ERR_LIMIT);
    assert_string_equal(err.path, "LongList.fields[1].branch[1].fields[1].branch[1].fields[1]");
    assert_string_equal(err.message, "LongList.next.branch[1].next.branch[1].next: value nested "
                                     "deeper than max_depth (5)");
    assert_int_equal(avk_writer_offset(&w), 0);
    wo.max_depth = 6;
    AVKT_OK(avk_value_write_json_opts(&v, &wo, &w, &err));
    assert_int_equal(avk_writer_offset(&w), len);
    wo.struct_size = sizeof wo - 1;
    AVKT_ASSERT_STATUS(avk_value_write_json_opts(&v, &wo, &w, &err), AVK_ERR_INVALID_ARGUMENT);
    avk_writer_destroy(&w);
    free(j);
    avk_arena_free(arena);
    avk_schema_free(s);
}

/* max_bytes, max_items, max_memory. */
static void test_read_limits(void **state)
{
    avk_schema *s = AVKT_PARSE("{'type': 'record', 'name': 'R', 'fields': [{'name': 's', "
                               "'type': 'string'}, {'name': 'b', 'type': 'bytes'}, {'name': 'a', "
                               "'type': {'type': 'array', 'items': 'int'}}, {'name': 'm', "
                               "'type': {'type': 'map', 'values': 'int'}}]}");
    static const char text[] = "{\"s\":\"abcd\",\"b\":\"xyz\",\"a\":[1,2,3],\"m\":{\"k\":1}}";
    avk_json_read_options o;
    avk_arena *arena;
    avk_value v;
    avk_error err;
    char *big;
    size_t i;
    (void)state;
    AVKT_OK(avk_arena_new(NULL, &arena, NULL));
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.limits.max_bytes = 4;
    o.limits.max_items = 3;
    AVKT_OK(avk_value_read_json_opts(avk_schema_root(s), text, strlen(text), &o, arena, &v, NULL,
                                     &err));
    o.limits.max_bytes = 3;
    AVKT_ASSERT_STATUS(avk_value_read_json_opts(avk_schema_root(s), text, strlen(text), &o, arena,
                                                &v, NULL, &err),
                       AVK_ERR_LIMIT);
    assert_string_equal(err.message, "R.s: line 1, column 6: string of length 4 is above "
                                     "max_bytes (3)");
    o.limits.max_bytes = 0;
    o.limits.max_items = 2;
    AVKT_ASSERT_STATUS(avk_value_read_json_opts(avk_schema_root(s), text, strlen(text), &o, arena,
                                                &v, NULL, &err),
                       AVK_ERR_LIMIT);
    assert_string_equal(err.message, "R.a: line 1, column 27: array of 3 items is above "
                                     "max_items (2)");
    /* max_memory bounds the text's tree and the value: a 1 MB string
     * needs more than 100 KB. */
    big = (char *)malloc(1000100);
    assert_non_null(big);
    memcpy(big, "{\"s\":\"", 6);
    for (i = 6; i < 1000006; i++)
        big[i] = 'a';
    strcpy(big + i, "\",\"b\":\"\",\"a\":[],\"m\":{}}");
    o.limits.max_items = 0;
    o.limits.max_memory = 100000;
    AVKT_ASSERT_STATUS(avk_value_read_json_opts(avk_schema_root(s), big, strlen(big), &o, arena,
                                                &v, NULL, &err),
                       AVK_ERR_LIMIT);
    assert_string_equal(err.message, "reading the value needs more than max_memory (100000 bytes)");
    o.limits.max_memory = 0;
    avk_arena_reset(arena);
    AVKT_OK(avk_value_read_json_opts(avk_schema_root(s), big, strlen(big), &o, arena, &v, NULL,
                                     &err));
    assert_int_equal(v.u.fields[0].u.bytes.len, 1000000);
    /* The arena's own limit stays when lower, and is the one named. */
    {
        avk_arena_options ao;
        avk_arena *small;
        memset(&ao, 0, sizeof ao);
        ao.struct_size = sizeof ao;
        ao.limit = 200000;
        AVKT_OK(avk_arena_new(&ao, &small, NULL));
        AVKT_ASSERT_STATUS(avk_value_read_json_opts(avk_schema_root(s), big, strlen(big), &o,
                                                    small, &v, NULL, &err),
                           AVK_ERR_LIMIT);
        assert_string_equal(err.message, "the arena's limit (200000 bytes) is reached reading a "
                                         "JSON value");
        avk_arena_free(small);
    }
    free(big);
    o.struct_size = 8;
    AVKT_ASSERT_STATUS(avk_value_read_json_opts(avk_schema_root(s), text, strlen(text), &o, arena,
                                                &v, NULL, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    avk_arena_free(arena);
    avk_schema_free(s);
}

/* ---- reading a stream of values --------------------------------------------------------- */

/* One call: status, *used, and for OK the value written back compactly
 * (else the message) in out. */
static avk_status read_first(const char *sq, const char *text, size_t len, unsigned flags,
                             uint64_t offset, uint64_t line, uint64_t column, size_t *used,
                             char *out, size_t cap, avk_error *err)
{
    avk_schema *s = AVKT_PARSE(sq);
    avk_json_read_options o;
    avk_arena *arena;
    avk_value v;
    avk_status st;
    AVKT_OK(avk_arena_new(NULL, &arena, NULL));
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.flags = flags;
    o.offset = offset;
    o.line = line;
    o.column = column;
    *used = 12345;
    st = avk_value_read_json_opts(avk_schema_root(s), text, len, &o, arena, &v, used, err);
    if (st == AVK_OK) {
        avk_writer w;
        const uint8_t *d;
        size_t n;
        AVKT_OK(avk_writer_init_memory(&w, NULL, NULL));
        AVKT_OK(avk_value_write_json(&v, 0, &w, err));
        d = avk_writer_data(&w, &n);
        assert_true(n < cap);
        memcpy(out, d, n);
        out[n] = 0;
        avk_writer_destroy(&w);
    } else {
        snprintf(out, cap, "%s", err->message);
    }
    avk_arena_free(arena);
    avk_schema_free(s);
    return st;
}

#define FIRST AVK_JSON_FIRST_VALUE
#define LAST (AVK_JSON_FIRST_VALUE | AVK_JSON_LAST_TEXT)

static void expect_first(const char *sq, const char *text, unsigned flags, avk_status want,
                         size_t want_used, const char *want_out)
{
    char out[256];
    avk_error err;
    size_t used;
    avk_status st = read_first(sq, text, strlen(text), flags, 0, 0, 0, &used, out, sizeof out,
                               &err);
    if (st != want || used != want_used || strcmp(out, want_out) != 0)
        fail_msg("%s (flags %u): got %s, used %zu, \"%s\"; want %s, %zu, \"%s\"", text, flags,
                 avk_status_name(st), used, out, avk_status_name(want), want_used, want_out);
}

static void test_read_first_value(void **state)
{
    static const char R[] = "{'type': 'record', 'name': 'R', 'fields': [{'name': 'a', 'type': "
                            "'int'}]}";
    (void)state;
    /* Values one after the other, on a line or not; white space after a
     * value is left for the next call. */
    expect_first(R, "  {\"a\":1} {\"a\":2}\n", FIRST, AVK_OK, 9, "{\"a\":1}");
    expect_first(R, " {\"a\":2}\n", FIRST, AVK_OK, 8, "{\"a\":2}");
    expect_first(R, "{\"a\":1}{\"a\":2}", FIRST, AVK_OK, 7, "{\"a\":1}");
    expect_first(R, "{\n  \"a\": 3\n}\n{", FIRST, AVK_OK, 12, "{\"a\":3}");
    /* No complete value: TRUNCATED, used the white space before it. */
    expect_first(R, "\n \t\r\n", FIRST, AVK_ERR_TRUNCATED, 5,
                 "line 3, column 1: no value in the text, only white space");
    expect_first(R, "\n \t\r\n", LAST, AVK_ERR_TRUNCATED, 5,
                 "line 3, column 1: no value in the text, only white space");
    expect_first(R, "", FIRST, AVK_ERR_TRUNCATED, 0,
                 "line 1, column 1: no value in the text, only white space");
    expect_first(R, "\n  {\"a\":", FIRST, AVK_ERR_TRUNCATED, 3,
                 "line 2, column 8: the text ends inside a value");
    expect_first(R, "\n  {\"a\":", LAST, AVK_ERR_MALFORMED, 0,
                 "line 2, column 8: expected a value, found end of input");
    expect_first(R, "{\"a\":1", FIRST, AVK_ERR_TRUNCATED, 0,
                 "line 1, column 7: the text ends inside a value");
    expect_first(R, "{\"a\":1 ", FIRST, AVK_ERR_TRUNCATED, 0,
                 "line 1, column 8: the text ends inside a value");
    expect_first(R, "{\"a", FIRST, AVK_ERR_TRUNCATED, 0,
                 "line 1, column 4: the text ends inside a value");
    expect_first(R, "{\"a\":1}x", FIRST, AVK_OK, 7, "{\"a\":1}");
    expect_first(R, "x", FIRST, AVK_ERR_MALFORMED, 0,
                 "line 1, column 1: expected a value, found 'x'");
    /* A number alone may go on ("12" + "3"): only the last text ends it. */
    expect_first("'int'", " 12", FIRST, AVK_ERR_TRUNCATED, 1,
                 "line 1, column 4: the text ends inside a value");
    expect_first("'int'", " 12", LAST, AVK_OK, 3, "12");
    expect_first("'int'", "12 ", FIRST, AVK_OK, 2, "12");
    expect_first("'double'", "1.", FIRST, AVK_ERR_TRUNCATED, 0,
                 "line 1, column 3: the text ends inside a value");
    expect_first("'double'", "1e", LAST, AVK_ERR_MALFORMED, 0,
                 "line 1, column 3: expected a digit in the exponent, found end of input");
    expect_first("'double'", "-", FIRST, AVK_ERR_TRUNCATED, 0,
                 "line 1, column 2: the text ends inside a value");
    expect_first("'boolean'", "tru", FIRST, AVK_ERR_TRUNCATED, 0,
                 "line 1, column 4: the text ends inside a value");
    expect_first("'boolean'", "true", FIRST, AVK_OK, 4, "true");
    expect_first("'boolean'", "tru", LAST, AVK_ERR_MALFORMED, 0,
                 "line 1, column 4: expected 'true', found end of input");
    /* Strings cut anywhere: in an escape, a surrogate pair, a character. */
    expect_first("'string'", "\"ab\\", FIRST, AVK_ERR_TRUNCATED, 0,
                 "line 1, column 5: the text ends inside a value");
    expect_first("'string'", "\"\\u00e", FIRST, AVK_ERR_TRUNCATED, 0,
                 "line 1, column 7: the text ends inside a value");
    expect_first("'string'", "\"\\ud83d\\ude", FIRST, AVK_ERR_TRUNCATED, 0,
                 "line 1, column 12: the text ends inside a value");
    expect_first("'string'", "\"\xf0\x9f\x98", FIRST, AVK_ERR_TRUNCATED, 0,
                 "line 1, column 5: the text ends inside a value");
    expect_first("'string'", "\"\xf0\x9f\x98", LAST, AVK_ERR_MALFORMED, 0,
                 "line 1, column 2: invalid UTF-8 in string");
    expect_first("'string'", "\"\xf0\x9f\x98\x80\"", FIRST, AVK_OK, 6, "\"\xf0\x9f\x98\x80\"");
    expect_first("'string'", "\"\\ud83d\\ude00\"", FIRST, AVK_OK, 14, "\"\xf0\x9f\x98\x80\"");
    expect_first("'string'", "\"abc", LAST, AVK_ERR_MALFORMED, 0,
                 "line 1, column 1: unterminated string (no closing '\"')");
    /* A byte order mark's message needs its 3 bytes (found by fuzzing). */
    expect_first("'int'", "\xEF\xBB", FIRST, AVK_ERR_TRUNCATED, 0,
                 "line 1, column 3: the text ends inside a value");
    expect_first("'int'", "\xEF\xBB", LAST, AVK_ERR_MALFORMED, 0,
                 "line 1, column 1: expected a value, found byte 0xEF");
    expect_first("'int'", "\xEF\xBB\xBF", FIRST, AVK_ERR_MALFORMED, 0,
                 "line 1, column 1: expected a value, found a byte order mark (not allowed in "
                 "JSON text)");
    /* Without the flag the text is one value, as before. */
    expect_first(R, "{\"a\":1} {\"a\":2}", 0, AVK_ERR_MALFORMED, 0,
                 "line 1, column 9: expected end of input after the value, found '{'");
    expect_first(R, " {\"a\":1}\n", 0, AVK_OK, 9, "{\"a\":1}");
}

/* Positions are the whole input's: the text's own start given in the
 * options, for syntax errors and errors against the schema alike. */
static void test_read_positions(void **state)
{
    static const char R[] = "{'type': 'record', 'name': 'R', 'fields': [{'name': 'a', 'type': "
                            "'int'}]}";
    char out[256];
    avk_error err;
    size_t used;
    (void)state;
    /* On the text's first line, columns go on from the given one. */
    AVKT_ASSERT_STATUS(read_first(R, "{\"a\":\"x\"}", 9, FIRST, 100, 10, 5, &used, out,
                                  sizeof out, &err),
                       AVK_ERR_MALFORMED);
    assert_string_equal(out, "R.a: line 10, column 10: expected an integer within 32 bits for "
                             "int, found a string");
    assert_int_equal(err.offset, 105);
    AVKT_ASSERT_STATUS(read_first(R, "\n\n  {\"a\":true}", 14, FIRST, 100, 10, 5, &used, out,
                                  sizeof out, &err),
                       AVK_ERR_MALFORMED);
    assert_string_equal(out, "R.a: line 12, column 8: expected an integer within 32 bits for "
                             "int, found true");
    assert_int_equal(err.offset, 109);
    AVKT_ASSERT_STATUS(read_first(R, "{\"a\":1,}", 8, LAST, 100, 10, 5, &used, out, sizeof out,
                                  &err),
                       AVK_ERR_MALFORMED);
    assert_string_equal(out, "line 10, column 12: expected a string key, found '}' (trailing "
                         "comma?)");
    assert_int_equal(err.offset, 107);
    AVKT_ASSERT_STATUS(read_first(R, "\n {\"a\":1,}", 10, LAST, 100, 10, 5, &used, out,
                                  sizeof out, &err),
                       AVK_ERR_MALFORMED);
    assert_string_equal(out, "line 11, column 9: expected a string key, found '}' (trailing "
                             "comma?)");
}

/* A float reads back as strtof reads its text: rounding the correctly
 * rounded double again goes wrong when that double is exactly halfway
 * between two floats. 1 + 2^-24 is halfway between 1 and 1 + 2^-23. */
static void test_read_float_rounding(void **state)
{
    static const struct {
        const char *text;
        uint32_t bits;
    } cases[] = {
        {"1.0000000596046447753906250001", 0x3f800001}, /* above halfway: up (was 1.0) */
        {"1.0000000596046447753906249999", 0x3f800000}, /* below: down */
        {"1.000000059604644775390625", 0x3f800000},     /* halfway: to even */
        {"1.00000017881393432617187500001", 0x3f800002}, /* halfway 1+3*2^-24, above */
        {"3.4028235677973366e38", 0x7f7fffff},          /* below FLT_MAX's halfway up */
        {"3.40282356779733661637539395458142568448e38", 0x7f800000}, /* halfway: infinity */
        {"3.4028235677973366163753939545814256844e38", 0x7f7fffff}, /* just below it */
        {"640349.44", 0x491c55d7},
        {"0.1", 0x3dcccccd},
        {"1e-45", 0x00000001},
        {"7.006492321624085e-46", 0x00000000},  /* 2^-150: halfway to 0, even */
        {"7.0064923216240862e-46", 0x00000001}, /* just above */
        {"16777217", 0x4b800000},               /* an integer: halfway, even */
        {"16777219", 0x4b800002},
        {"-0.0", 0x80000000},
    };
    avk_schema *s = AVKT_PARSE("'float'");
    avk_arena *arena;
    avk_value v;
    avk_error err;
    size_t i;
    (void)state;
    AVKT_OK(avk_arena_new(NULL, &arena, NULL));
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint32_t bits;
        AVKT_OK(avk_value_read_json(avk_schema_root(s), cases[i].text, strlen(cases[i].text),
                                    arena, &v, &err));
        memcpy(&bits, &v.u.f, 4);
        if (bits != cases[i].bits)
            fail_msg("%s: got 0x%08x, want 0x%08x", cases[i].text, (unsigned)bits,
                     (unsigned)cases[i].bits);
        /* and strtof agrees */
        {
            float f = strtof(cases[i].text, NULL);
            memcpy(&bits, &f, 4);
            assert_int_equal(bits, cases[i].bits);
        }
    }
    avk_arena_free(arena);
    avk_schema_free(s);
}

/* Floats written and read back: the same float, for every float class. */
static void test_float_round_trip(void **state)
{
    avk_schema *s = AVKT_PARSE("'float'");
    avk_arena *arena;
    avk_writer w;
    avk_value v, back;
    avk_error err;
    avkt_rng rng = {42};
    size_t i, len;
    (void)state;
    AVKT_OK(avk_arena_new(NULL, &arena, NULL));
    AVKT_OK(avk_writer_init_memory(&w, NULL, NULL));
    v.type = avk_schema_root(s);
    for (i = 0; i < 100000; i++) {
        uint32_t bits = (uint32_t)avkt_next(&rng), got;
        const uint8_t *d;
        if (i < 256)
            bits = (uint32_t)i << 23 | (uint32_t)(i & 3); /* every exponent */
        memcpy(&v.u.f, &bits, 4);
        avk_writer_reset(&w);
        AVKT_OK(avk_value_write_json(&v, 0, &w, &err));
        d = avk_writer_data(&w, &len);
        avk_arena_reset(arena);
        AVKT_OK(avk_value_read_json(v.type, (const char *)d, len, arena, &back, &err));
        memcpy(&got, &back.u.f, 4);
        if (v.u.f != v.u.f) /* NaN: one NaN */
            assert_true(back.u.f != back.u.f);
        else if (got != bits)
            fail_msg("0x%08x written as %.*s reads back as 0x%08x", (unsigned)bits, (int)len,
                     (const char *)d, (unsigned)got);
    }
    avk_writer_destroy(&w);
    avk_arena_free(arena);
    avk_schema_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(avkt_test_kernel_choice),
        cmocka_unit_test(test_primitives),
        cmocka_unit_test(test_strings_and_bytes),
        cmocka_unit_test(test_complex),
        cmocka_unit_test(test_pretty),
        cmocka_unit_test(test_bad_values),
        cmocka_unit_test(test_writer_limit),
        cmocka_unit_test(test_read_round_trips),
        cmocka_unit_test(test_read_defaults),
        cmocka_unit_test(test_read_errors),
        cmocka_unit_test(test_write_invalid_utf8_fails),
        cmocka_unit_test(test_write_invalid_utf8_replaced),
        cmocka_unit_test(test_read_union_messages),
        cmocka_unit_test(test_deep_list),
        cmocka_unit_test(test_deep_list_small_stack),
        cmocka_unit_test(test_depth_limits),
        cmocka_unit_test(test_read_limits),
        cmocka_unit_test(test_read_first_value),
        cmocka_unit_test(test_read_positions),
        cmocka_unit_test(test_read_float_rounding),
        cmocka_unit_test(test_float_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
