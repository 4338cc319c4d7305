/* The Avro JSON encoding writer: values decoded from known bytes, written as exact JSON text. */
#include <math.h>
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
