/* Unit tests for the builder: exact bytes, the same bytes as avk_plan_encode, wrong calls with paths, blocks, limits, failing allocations. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "avkt.h"
#include "failalloc.h"
#include "schema/schema_internal.h"

/* ---- helpers -------------------------------------------------------------------- */

/* A schema, its plan, a memory writer and a builder over them. */
typedef struct fix {
    avk_schema *s;
    avk_plan *p;
    avk_writer w;
    avk_builder *b;
    avk_error err;
} fix;

static void fix_open(fix *f, const char *json, unsigned flags, size_t block_items, size_t depth)
{
    avk_limits lim;
    memset(f, 0, sizeof *f);
    memset(&lim, 0, sizeof lim);
    lim.max_depth = depth;
    f->s = AVKT_PARSE_RAW(json);
    f->p = avkt_plan_new(avk_schema_root(f->s), flags, &lim, block_items);
    AVKT_OK(avk_writer_init_memory(&f->w, NULL, NULL));
    AVKT_OK(avk_builder_new(f->p, &f->w, NULL, &f->b, NULL));
}

static void fix_close(fix *f)
{
    avk_builder_free(f->b);
    avk_writer_destroy(&f->w);
    avk_plan_free(f->p);
    avk_schema_free(f->s);
}

/* The writer holds exactly want; then it is emptied. */
static void expect_bytes(fix *f, const uint8_t *want, size_t want_len)
{
    size_t len;
    const uint8_t *data = avk_writer_data(&f->w, &len);
    avkt_assert_bytes(data, len, want, want_len);
    avk_writer_reset(&f->w);
}

#define EXPECT(f, ...)                                  \
    do {                                                \
        static const uint8_t want_[] = {__VA_ARGS__};   \
        expect_bytes(f, want_, sizeof want_);           \
    } while (0)

#define EXPECT_NOTHING(f) expect_bytes(f, NULL, 0)

/* A call that must fail with INVALID_ARGUMENT at path, with message
 * "path: msg" (msg NULL: not checked), writing nothing. */
#define WRONG(f, call, want_path, want_msg)                                               \
    do {                                                                                  \
        size_t len_before_, len_after_;                                                   \
        avk_writer_data(&(f)->w, &len_before_);                                           \
        AVKT_ASSERT_STATUS(call, AVK_ERR_INVALID_ARGUMENT);                               \
        AVKT_ASSERT_STATUS((f)->err.status, AVK_ERR_INVALID_ARGUMENT);                    \
        assert_string_equal((f)->err.path, want_path);                                    \
        check_message(avk_plan_type((f)->p), &(f)->err, want_path, want_msg);             \
        avk_writer_data(&(f)->w, &len_after_);                                            \
        assert_int_equal(len_before_, len_after_);                                        \
    } while (0)

/* The message is the path by field names (derived from the index path
 * through the schema), ": ", then msg (any text when msg is NULL). */
static void check_message(const avk_type *root, const avk_error *err, const char *path,
                          const char *msg)
{
    char want[600], named[AVK_ERROR_MESSAGE_MAX];
    if (!avkt_named_path(root, path, named, sizeof named))
        fail_msg("cannot name the path \"%s\"", path);
    if (msg) {
        snprintf(want, sizeof want, "%s: %s", named, msg);
        assert_string_equal(err->message, want);
    } else {
        avkt_check_message_path(root, err);
    }
}

/* Returns from build() on the first failing call. */
#define AVK_TRY_T(expr)                  \
    do {                                 \
        avk_status st_ = (expr);         \
        if (st_ != AVK_OK)               \
            return st_;                  \
    } while (0)

/* ---- primitives at the root -------------------------------------------------------- */

static void test_primitives(void **state)
{
    fix f;
    static const uint8_t blob[] = {0x00, 0xff};
    (void)state;

    fix_open(&f, "\"null\"", 0, 0, 0);
    AVKT_OK(avk_builder_null(f.b, &f.err));
    assert_true(avk_builder_complete(f.b));
    EXPECT_NOTHING(&f);
    WRONG(&f, avk_builder_long(f.b, 1, &f.err), "null",
          "avk_builder_long called where the schema expects null");
    fix_close(&f);

    fix_open(&f, "\"boolean\"", 0, 0, 0);
    AVKT_OK(avk_builder_boolean(f.b, 1, &f.err));
    AVKT_OK(avk_builder_boolean(f.b, 0, &f.err));
    AVKT_OK(avk_builder_boolean(f.b, 5, &f.err)); /* any non-zero int is true */
    EXPECT(&f, 0x01, 0x00, 0x01);
    fix_close(&f);

    fix_open(&f, "\"int\"", 0, 0, 0);
    AVKT_OK(avk_builder_int(f.b, 1, &f.err));
    AVKT_OK(avk_builder_int(f.b, -1, &f.err));
    AVKT_OK(avk_builder_int(f.b, INT32_MIN, &f.err));
    AVKT_OK(avk_builder_long(f.b, 64, &f.err)); /* a long that fits an int */
    AVKT_OK(avk_builder_long(f.b, INT32_MAX, &f.err));
    EXPECT(&f, 0x02, 0x01, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x80, 0x01, 0xfe, 0xff, 0xff, 0xff, 0x0f);
    WRONG(&f, avk_builder_long(f.b, (int64_t)INT32_MAX + 1, &f.err), "int",
          "avk_builder_long: 2147483648 does not fit the schema's int");
    WRONG(&f, avk_builder_long(f.b, (int64_t)INT32_MIN - 1, &f.err), "int", NULL);
    fix_close(&f);

    fix_open(&f, "\"long\"", 0, 0, 0);
    AVKT_OK(avk_builder_long(f.b, 1, &f.err));
    AVKT_OK(avk_builder_long(f.b, -1, &f.err));
    AVKT_OK(avk_builder_long(f.b, INT64_MIN, &f.err));
    EXPECT(&f, 0x02, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01);
    /* An int call does not widen to long: the header promises long -> int only. */
    WRONG(&f, avk_builder_int(f.b, 1, &f.err), "long",
          "avk_builder_int called where the schema expects long");
    fix_close(&f);

    fix_open(&f, "\"float\"", 0, 0, 0);
    AVKT_OK(avk_builder_float(f.b, 1.0f, &f.err));
    EXPECT(&f, 0x00, 0x00, 0x80, 0x3f);
    WRONG(&f, avk_builder_double(f.b, 1.0, &f.err), "float", NULL);
    fix_close(&f);

    fix_open(&f, "\"double\"", 0, 0, 0);
    AVKT_OK(avk_builder_double(f.b, 1.0, &f.err));
    EXPECT(&f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf0, 0x3f);
    fix_close(&f);

    fix_open(&f, "\"string\"", 0, 0, 0);
    AVKT_OK(avk_builder_string(f.b, "foo", 3, &f.err));
    AVKT_OK(avk_builder_string(f.b, NULL, 0, &f.err));
    EXPECT(&f, 0x06, 0x66, 0x6f, 0x6f, 0x00);
    WRONG(&f, avk_builder_bytes(f.b, blob, 2, &f.err), "string",
          "avk_builder_bytes called where the schema expects string");
    WRONG(&f, avk_builder_string(f.b, NULL, 2, &f.err), "string",
          "avk_builder_string: data is NULL with length 2");
    fix_close(&f);

    fix_open(&f, "\"bytes\"", 0, 0, 0);
    AVKT_OK(avk_builder_bytes(f.b, blob, 2, &f.err));
    EXPECT(&f, 0x04, 0x00, 0xff);
    fix_close(&f);

    fix_open(&f, "{\"type\":\"enum\",\"name\":\"ns.E\",\"symbols\":[\"A\",\"B\",\"C\"]}", 0, 0, 0);
    AVKT_OK(avk_builder_enum(f.b, 2, &f.err));
    AVKT_OK(avk_builder_enum(f.b, 0, &f.err));
    EXPECT(&f, 0x04, 0x00);
    WRONG(&f, avk_builder_enum(f.b, 3, &f.err), "ns.E",
          "avk_builder_enum: index 3 out of range (ns.E has 3 symbols)");
    WRONG(&f, avk_builder_enum(f.b, UINT32_MAX, &f.err), "ns.E",
          "avk_builder_enum: index 4294967295 out of range (ns.E has 3 symbols)");
    fix_close(&f);

    fix_open(&f, "{\"type\":\"fixed\",\"name\":\"F\",\"size\":4}", 0, 0, 0);
    AVKT_OK(avk_builder_fixed(f.b, "abcd", 4, &f.err));
    EXPECT(&f, 0x61, 0x62, 0x63, 0x64);
    WRONG(&f, avk_builder_fixed(f.b, "abc", 3, &f.err), "F",
          "avk_builder_fixed: 3 bytes, the schema's F has 4");
    WRONG(&f, avk_builder_fixed(f.b, NULL, 4, &f.err), "F", NULL);
    WRONG(&f, avk_builder_string(f.b, "abcd", 4, &f.err), "F",
          "avk_builder_string called where the schema expects F");
    fix_close(&f);

    /* The brief's union: branch 1 "a" -> 02 02 61. */
    fix_open(&f, "[\"null\",\"string\"]", 0, 0, 0);
    AVKT_OK(avk_builder_union(f.b, 1, &f.err));
    assert_false(avk_builder_complete(f.b));
    AVKT_OK(avk_builder_string(f.b, "a", 1, &f.err));
    assert_true(avk_builder_complete(f.b));
    AVKT_OK(avk_builder_union(f.b, 0, &f.err));
    AVKT_OK(avk_builder_null(f.b, &f.err));
    EXPECT(&f, 0x02, 0x02, 0x61, 0x00);
    WRONG(&f, avk_builder_string(f.b, "a", 1, &f.err), "union",
          "avk_builder_string called where the schema expects union");
    WRONG(&f, avk_builder_union(f.b, 2, &f.err), "union",
          "avk_builder_union: branch 2 out of range (branches: [null, string])");
    AVKT_OK(avk_builder_union(f.b, 0, &f.err));
    WRONG(&f, avk_builder_string(f.b, "a", 1, &f.err), "union.branch[0]",
          "avk_builder_string called where the schema expects null");
    AVKT_OK(avk_builder_null(f.b, &f.err));
    EXPECT(&f, 0x00);
    fix_close(&f);
}

/* ---- records ------------------------------------------------------------------------ */

static const char *user_schema =
    "{\"type\":\"record\",\"name\":\"User\",\"fields\":["
    "{\"name\":\"id\",\"type\":\"long\"},"
    "{\"name\":\"name\",\"type\":\"string\"},"
    "{\"name\":\"loc\",\"type\":{\"type\":\"record\",\"name\":\"Loc\",\"fields\":["
    "  {\"name\":\"x\",\"type\":\"int\"},{\"name\":\"y\",\"type\":\"int\"}]}},"
    "{\"name\":\"nick\",\"type\":[\"null\",\"string\"]},"
    "{\"name\":\"ok\",\"type\":\"boolean\"}]}";

static void test_record(void **state)
{
    fix f;
    (void)state;
    fix_open(&f, user_schema, 0, 0, 0);
    assert_true(avk_builder_complete(f.b));

    /* A wrong first call changes nothing (the record opened for it closes). */
    WRONG(&f, avk_builder_string(f.b, "x", 1, &f.err), "User.fields[0]",
          "avk_builder_string called where the schema expects long");
    assert_true(avk_builder_complete(f.b));

    AVKT_OK(avk_builder_long(f.b, 1, &f.err));
    assert_false(avk_builder_complete(f.b));
    AVKT_OK(avk_builder_string(f.b, "ab", 2, &f.err));
    WRONG(&f, avk_builder_long(f.b, 1LL << 40, &f.err), "User.fields[2].fields[0]", NULL);
    AVKT_OK(avk_builder_long(f.b, 1, &f.err)); /* into Loc.x, an int */
    AVKT_OK(avk_builder_int(f.b, -2, &f.err));
    WRONG(&f, avk_builder_union(f.b, 2, &f.err), "User.fields[3]", NULL);
    WRONG(&f, avk_builder_null(f.b, &f.err), "User.fields[3]",
          "avk_builder_null called where the schema expects union");
    AVKT_OK(avk_builder_union(f.b, 1, &f.err));
    WRONG(&f, avk_builder_null(f.b, &f.err), "User.fields[3].branch[1]",
          "avk_builder_null called where the schema expects string");
    WRONG(&f, avk_builder_array_end(f.b, &f.err), "User.fields[3].branch[1]",
          "avk_builder_array_end called where a value is not complete");
    AVKT_OK(avk_builder_string(f.b, "a", 1, &f.err));
    AVKT_OK(avk_builder_boolean(f.b, 1, &f.err));
    assert_true(avk_builder_complete(f.b));
    EXPECT(&f, 0x02, 0x04, 0x61, 0x62, 0x02, 0x03, 0x02, 0x02, 0x61, 0x01);

    /* Two records in a row, then reset in the middle of a third. */
    AVKT_OK(avk_builder_long(f.b, -1, &f.err));
    AVKT_OK(avk_builder_string(f.b, "", 0, &f.err));
    AVKT_OK(avk_builder_int(f.b, 0, &f.err));
    AVKT_OK(avk_builder_int(f.b, 0, &f.err));
    AVKT_OK(avk_builder_union(f.b, 0, &f.err));
    AVKT_OK(avk_builder_null(f.b, &f.err));
    AVKT_OK(avk_builder_boolean(f.b, 0, &f.err));
    AVKT_OK(avk_builder_long(f.b, 2, &f.err));
    AVKT_OK(avk_builder_string(f.b, "", 0, &f.err));
    assert_false(avk_builder_complete(f.b));
    avk_builder_reset(f.b);
    assert_true(avk_builder_complete(f.b));
    AVKT_OK(avk_builder_long(f.b, 3, &f.err)); /* a new root value */
    EXPECT(&f, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x06);
    fix_close(&f);
}

/* Records whose values take no calls (empty records) are skipped. */
static void test_empty_records(void **state)
{
    fix f;
    (void)state;
    fix_open(&f,
             "{\"type\":\"record\",\"name\":\"R\",\"fields\":["
             "{\"name\":\"a\",\"type\":{\"type\":\"record\",\"name\":\"Empty\",\"fields\":[]}},"
             "{\"name\":\"w\",\"type\":{\"type\":\"record\",\"name\":\"Wrap\",\"fields\":["
             "  {\"name\":\"e\",\"type\":\"Empty\"}]}},"
             "{\"name\":\"b\",\"type\":\"long\"},"
             "{\"name\":\"u\",\"type\":[\"Empty\",\"long\"]},"
             "{\"name\":\"m\",\"type\":{\"type\":\"map\",\"values\":\"Empty\"}},"
             "{\"name\":\"c\",\"type\":\"Wrap\"}]}",
             0, 0, 0);
    AVKT_OK(avk_builder_long(f.b, 1, &f.err));
    AVKT_OK(avk_builder_union(f.b, 0, &f.err)); /* an empty record: complete at once */
    AVKT_OK(avk_builder_map_begin(f.b, &f.err));
    AVKT_OK(avk_builder_map_key(f.b, "k", 1, &f.err)); /* its value takes no call */
    AVKT_OK(avk_builder_map_key(f.b, "j", 1, &f.err));
    assert_false(avk_builder_complete(f.b));
    AVKT_OK(avk_builder_map_end(f.b, &f.err));
    assert_true(avk_builder_complete(f.b));
    EXPECT(&f, 0x02, 0x00, 0x04, 0x02, 0x6b, 0x02, 0x6a, 0x00);
    fix_close(&f);

    /* A root that takes no calls: every call is wrong. */
    fix_open(&f, "{\"type\":\"record\",\"name\":\"Empty\",\"fields\":[]}", 0, 0, 0);
    WRONG(&f, avk_builder_null(f.b, &f.err), "Empty",
          "avk_builder_null called where the schema has Empty, whose values take no calls");
    fix_close(&f);
    /* Nor can items of an array of them be added. */
    fix_open(&f,
             "{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"Empty\",\"fields\":[]}}",
             0, 0, 0);
    AVKT_OK(avk_builder_array_begin(f.b, &f.err));
    WRONG(&f, avk_builder_null(f.b, &f.err), "array.items[0]", NULL);
    AVKT_OK(avk_builder_array_end(f.b, &f.err));
    EXPECT(&f, 0x00);
    fix_close(&f);
}

static const char *list_schema =
    "{\"type\":\"record\",\"name\":\"Node\",\"fields\":["
    "{\"name\":\"v\",\"type\":\"int\"},"
    "{\"name\":\"next\",\"type\":[\"null\",\"Node\"]}]}";

static avk_status build_list(avk_builder *b, int n, avk_error *err)
{
    int i;
    for (i = 1; i <= n; i++) {
        AVKT_OK(avk_builder_int(b, i, err));
        if (i == n) {
            AVKT_OK(avk_builder_union(b, 0, err));
            return avk_builder_null(b, err);
        }
        AVKT_OK(avk_builder_union(b, 1, err));
    }
    return AVK_OK;
}

static void test_recursive_list(void **state)
{
    fix f;
    (void)state;
    fix_open(&f, list_schema, 0, 0, 6);
    AVKT_OK(build_list(f.b, 3, &f.err));
    assert_true(avk_builder_complete(f.b));
    EXPECT(&f, 0x02, 0x02, 0x04, 0x02, 0x06, 0x00);
    fix_close(&f);

    /* Depth 5: the third node's union is one too deep. */
    fix_open(&f, list_schema, 0, 0, 5);
    AVKT_OK(avk_builder_int(f.b, 1, &f.err));
    AVKT_OK(avk_builder_union(f.b, 1, &f.err));
    AVKT_OK(avk_builder_int(f.b, 2, &f.err));
    AVKT_OK(avk_builder_union(f.b, 1, &f.err));
    AVKT_OK(avk_builder_int(f.b, 3, &f.err));
    AVKT_ASSERT_STATUS(avk_builder_union(f.b, 0, &f.err), AVK_ERR_LIMIT);
    assert_string_equal(f.err.path, "Node.fields[1].branch[1].fields[1].branch[1].fields[1]");
    check_message(avk_plan_type(f.p), &f.err, f.err.path, "nesting deeper than max_depth (5)");
    avk_builder_reset(f.b);
    avk_writer_reset(&f.w);
    AVKT_OK(build_list(f.b, 2, &f.err));
    EXPECT(&f, 0x02, 0x02, 0x04, 0x00);
    fix_close(&f);
}

/* ---- arrays and maps --------------------------------------------------------------- */

static void test_long_arrays(void **state)
{
    static const int64_t items[] = {1, 2, 3};
    const char *js = "{\"type\":\"array\",\"items\":\"long\"}";
    struct {
        unsigned flags;
        size_t per;
        uint8_t want[16];
        size_t len;
    } cases[] = {
        {0, 0, {0x06, 0x02, 0x04, 0x06, 0x00}, 5},
        {0, 2, {0x04, 0x02, 0x04, 0x02, 0x06, 0x00}, 6},
        {0, 3, {0x06, 0x02, 0x04, 0x06, 0x00}, 5},
        {AVK_PLAN_BLOCK_SIZES, 2, {0x03, 0x04, 0x02, 0x04, 0x01, 0x02, 0x06, 0x00}, 8},
        {AVK_PLAN_BLOCK_SIZES, 0, {0x05, 0x06, 0x02, 0x04, 0x06, 0x00}, 6},
    };
    size_t c, i;
    (void)state;
    for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        fix f;
        fix_open(&f, js, cases[c].flags, cases[c].per, 0);
        /* Item by item. */
        AVKT_OK(avk_builder_array_begin(f.b, &f.err));
        for (i = 0; i < 3; i++) {
            AVKT_OK(avk_builder_long(f.b, items[i], &f.err));
            assert_false(avk_builder_complete(f.b));
        }
        AVKT_OK(avk_builder_array_end(f.b, &f.err));
        assert_true(avk_builder_complete(f.b));
        expect_bytes(&f, cases[c].want, cases[c].len);
        /* Whole. */
        AVKT_OK(avk_builder_array(f.b, items, 3, &f.err));
        assert_true(avk_builder_complete(f.b));
        expect_bytes(&f, cases[c].want, cases[c].len);
        /* Empty arrays: just the 0. */
        AVKT_OK(avk_builder_array_begin(f.b, &f.err));
        AVKT_OK(avk_builder_array_end(f.b, &f.err));
        AVKT_OK(avk_builder_array(f.b, NULL, 0, &f.err));
        EXPECT(&f, 0x00, 0x00);
        fix_close(&f);
    }
}

static void test_typed_arrays(void **state)
{
    static const int32_t ints[] = {-1, 64, 0};
    static const uint8_t bools[] = {1, 0, 1}, bad_bools[] = {1, 0, 2};
    static const double doubles[] = {1.0};
    fix f;
    size_t i;
    (void)state;

    fix_open(&f, "{\"type\":\"array\",\"items\":\"int\"}", AVK_PLAN_BLOCK_SIZES, 2, 0);
    AVKT_OK(avk_builder_array(f.b, ints, 3, &f.err));
    AVKT_OK(avk_builder_array_begin(f.b, &f.err));
    for (i = 0; i < 3; i++)
        AVKT_OK(avk_builder_int(f.b, ints[i], &f.err));
    AVKT_OK(avk_builder_array_end(f.b, &f.err));
    EXPECT(&f, 0x03, 0x06, 0x01, 0x80, 0x01, 0x01, 0x02, 0x00, 0x00, /* twice */
           0x03, 0x06, 0x01, 0x80, 0x01, 0x01, 0x02, 0x00, 0x00);
    fix_close(&f);

    fix_open(&f, "{\"type\":\"array\",\"items\":\"boolean\"}", 0, 0, 0);
    AVKT_OK(avk_builder_array(f.b, bools, 3, &f.err));
    EXPECT(&f, 0x06, 0x01, 0x00, 0x01, 0x00);
    WRONG(&f, avk_builder_array(f.b, bad_bools, 3, &f.err), "array.items[2]",
          "boolean item is 2, expected 0 or 1");
    assert_true(avk_builder_complete(f.b));
    WRONG(&f, avk_builder_array(f.b, NULL, 3, &f.err), "array",
          "array of 3 items has no items");
    fix_close(&f);

    fix_open(&f, "{\"type\":\"array\",\"items\":\"double\"}", AVK_PLAN_BLOCK_SIZES, 0, 0);
    AVKT_OK(avk_builder_array(f.b, doubles, 1, &f.err));
    EXPECT(&f, 0x01, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf0, 0x3f, 0x00);
    fix_close(&f);

    fix_open(&f, "{\"type\":\"array\",\"items\":{\"type\":\"fixed\",\"name\":\"F\",\"size\":2}}",
             0, 2, 0);
    AVKT_OK(avk_builder_array(f.b, "abcdef", 3, &f.err));
    AVKT_OK(avk_builder_array_begin(f.b, &f.err));
    AVKT_OK(avk_builder_fixed(f.b, "ab", 2, &f.err));
    AVKT_OK(avk_builder_fixed(f.b, "cd", 2, &f.err));
    AVKT_OK(avk_builder_fixed(f.b, "ef", 2, &f.err));
    AVKT_OK(avk_builder_array_end(f.b, &f.err));
    EXPECT(&f, 0x04, 0x61, 0x62, 0x63, 0x64, 0x02, 0x65, 0x66, 0x00,
           0x04, 0x61, 0x62, 0x63, 0x64, 0x02, 0x65, 0x66, 0x00);
    fix_close(&f);

    fix_open(&f, "{\"type\":\"array\",\"items\":\"null\"}", AVK_PLAN_BLOCK_SIZES, 2, 0);
    AVKT_OK(avk_builder_array(f.b, NULL, 3, &f.err));
    AVKT_OK(avk_builder_array_begin(f.b, &f.err));
    for (i = 0; i < 3; i++)
        AVKT_OK(avk_builder_null(f.b, &f.err));
    AVKT_OK(avk_builder_array_end(f.b, &f.err));
    EXPECT(&f, 0x03, 0x00, 0x01, 0x00, 0x00, 0x03, 0x00, 0x01, 0x00, 0x00);
    fix_close(&f);

    fix_open(&f, "{\"type\":\"array\",\"items\":{\"type\":\"fixed\",\"name\":\"Z\",\"size\":0}}",
             0, 0, 0);
    AVKT_OK(avk_builder_array(f.b, NULL, 2, &f.err));
    AVKT_OK(avk_builder_array_begin(f.b, &f.err));
    AVKT_OK(avk_builder_fixed(f.b, NULL, 0, &f.err));
    AVKT_OK(avk_builder_fixed(f.b, "", 0, &f.err));
    AVKT_OK(avk_builder_array_end(f.b, &f.err));
    EXPECT(&f, 0x04, 0x00, 0x04, 0x00);
    fix_close(&f);

    /* Boxed items cannot be given as a C array. */
    fix_open(&f, "{\"type\":\"array\",\"items\":\"string\"}", 0, 0, 0);
    WRONG(&f, avk_builder_array(f.b, "x", 1, &f.err), "array",
          "avk_builder_array: the items of string are not stored typed (use array_begin and "
          "one call per item)");
    fix_close(&f);
}

static void test_string_arrays_and_nesting(void **state)
{
    fix f;
    (void)state;
    fix_open(&f, "{\"type\":\"array\",\"items\":\"string\"}", AVK_PLAN_BLOCK_SIZES, 2, 0);
    AVKT_OK(avk_builder_array_begin(f.b, &f.err));
    AVKT_OK(avk_builder_string(f.b, "a", 1, &f.err));
    AVKT_OK(avk_builder_string(f.b, "bc", 2, &f.err));
    /* The first block went out when it was full. */
    EXPECT(&f, 0x03, 0x0a, 0x02, 0x61, 0x04, 0x62, 0x63);
    WRONG(&f, avk_builder_long(f.b, 1, &f.err), "array.items[2]",
          "avk_builder_long called where the schema expects string");
    WRONG(&f, avk_builder_map_end(f.b, &f.err), "array.items[2]",
          "avk_builder_map_end called where a different collection is open");
    WRONG(&f, avk_builder_map_key(f.b, "k", 1, &f.err), "array.items[2]",
          "avk_builder_map_key called where no map is open for a key");
    AVKT_OK(avk_builder_string(f.b, "d", 1, &f.err));
    AVKT_OK(avk_builder_array_end(f.b, &f.err));
    EXPECT(&f, 0x01, 0x04, 0x02, 0x64, 0x00);
    WRONG(&f, avk_builder_array_end(f.b, &f.err), "array",
          "avk_builder_array_end called where no array or map is open");
    fix_close(&f);

    /* Nested arrays with sizes: as avk_plan_encode writes them. */
    fix_open(&f, "{\"type\":\"array\",\"items\":{\"type\":\"array\",\"items\":\"string\"}}",
             AVK_PLAN_BLOCK_SIZES, 0, 0);
    AVKT_OK(avk_builder_array_begin(f.b, &f.err));
    AVKT_OK(avk_builder_array_begin(f.b, &f.err));
    AVKT_OK(avk_builder_string(f.b, "a", 1, &f.err));
    AVKT_OK(avk_builder_string(f.b, "bc", 2, &f.err));
    AVKT_OK(avk_builder_array_end(f.b, &f.err));
    AVKT_OK(avk_builder_array_begin(f.b, &f.err));
    AVKT_OK(avk_builder_string(f.b, "d", 1, &f.err));
    WRONG(&f, avk_builder_array_begin(f.b, &f.err), "array.items[1].items[1]",
          "avk_builder_array_begin called where the schema expects string");
    AVKT_OK(avk_builder_array_end(f.b, &f.err));
    EXPECT_NOTHING(&f);
    AVKT_OK(avk_builder_array_end(f.b, &f.err));
    EXPECT(&f, 0x03, 0x1a, 0x03, 0x0a, 0x02, 0x61, 0x04, 0x62, 0x63, 0x00, 0x01, 0x04, 0x02,
           0x64, 0x00, 0x00);
    fix_close(&f);
}

static void test_maps(void **state)
{
    const char *js = "{\"type\":\"map\",\"values\":\"long\"}";
    fix f;
    (void)state;
    fix_open(&f, js, 0, 0, 0);
    AVKT_OK(avk_builder_map_begin(f.b, &f.err));
    WRONG(&f, avk_builder_long(f.b, 1, &f.err), "map.values[0]",
          "avk_builder_long called where a map key or map_end is expected");
    AVKT_OK(avk_builder_map_key(f.b, "a", 1, &f.err));
    WRONG(&f, avk_builder_map_key(f.b, "b", 1, &f.err), "map.values[0]",
          "avk_builder_map_key called where a map value is expected");
    WRONG(&f, avk_builder_map_end(f.b, &f.err), "map.values[0]",
          "avk_builder_map_end called where a map value is expected");
    AVKT_OK(avk_builder_long(f.b, 1, &f.err));
    WRONG(&f, avk_builder_map_key(f.b, NULL, 1, &f.err), "map.values[1]",
          "avk_builder_map_key: key is NULL with length 1");
    AVKT_OK(avk_builder_map_key(f.b, "b", 1, &f.err));
    AVKT_OK(avk_builder_long(f.b, 2, &f.err));
    WRONG(&f, avk_builder_array_end(f.b, &f.err), "map.values[2]",
          "avk_builder_array_end called where a different collection is open");
    AVKT_OK(avk_builder_map_end(f.b, &f.err));
    EXPECT(&f, 0x04, 0x02, 0x61, 0x02, 0x02, 0x62, 0x04, 0x00);
    fix_close(&f);

    fix_open(&f, js, AVK_PLAN_BLOCK_SIZES, 1, 0);
    AVKT_OK(avk_builder_map_begin(f.b, &f.err));
    AVKT_OK(avk_builder_map_key(f.b, "a", 1, &f.err));
    AVKT_OK(avk_builder_long(f.b, 1, &f.err));
    AVKT_OK(avk_builder_map_key(f.b, "b", 1, &f.err));
    AVKT_OK(avk_builder_long(f.b, 2, &f.err));
    AVKT_OK(avk_builder_map_end(f.b, &f.err));
    AVKT_OK(avk_builder_map_begin(f.b, &f.err));
    AVKT_OK(avk_builder_map_end(f.b, &f.err));
    EXPECT(&f, 0x01, 0x06, 0x02, 0x61, 0x02, 0x01, 0x06, 0x02, 0x62, 0x04, 0x00, 0x00);
    fix_close(&f);
}

/* Records of many ints and longs (held and written in bulk by the builder)
 * broken by a string; long calls for int fields; reset and wrong calls in
 * the middle of a run. */
static void test_wide_varint_runs(void **state)
{
    fix f;
    avkt_rng rng = {11};
    uint8_t want[600];
    size_t n, i, r;
    (void)state;
    fix_open(&f, avkt_wide_varint_schema(), 0, 0, 0);
    for (r = 0; r < 30; r++) {
        n = 0;
        for (i = 0; i < 40; i++) {
            if (i == 35) {
                AVKT_OK(avk_builder_string(f.b, "str", 3, &f.err));
                want[n++] = 6;
                memcpy(want + n, "str", 3);
                n += 3;
            } else if (i % 3 == 1) {
                int32_t x = avkt_mixed_int(&rng);
                /* Every other record: the int field through avk_builder_long. */
                AVKT_OK(r % 2 ? avk_builder_long(f.b, x, &f.err) : avk_builder_int(f.b, x, &f.err));
                n += avk_varint_encode_int(want + n, x);
            } else {
                int64_t x = avkt_mixed_long(&rng);
                AVKT_OK(avk_builder_long(f.b, x, &f.err));
                n += avk_varint_encode_long(want + n, x);
            }
            if (r == 0 && i == 21) {
                /* Wrong calls while values are held (field 22 is an int):
                 * nothing changes. */
                WRONG(&f, avk_builder_string(f.b, "x", 1, &f.err), "W.fields[22]", NULL);
                WRONG(&f, avk_builder_long(f.b, 1LL << 40, &f.err), "W.fields[22]",
                      "avk_builder_long: 1099511627776 does not fit the schema's int");
            }
            assert_int_equal(avk_builder_complete(f.b), i == 39);
        }
        expect_bytes(&f, want, n);
    }
    /* Reset with values held: they are dropped. */
    AVKT_OK(avk_builder_long(f.b, 1, &f.err));
    AVKT_OK(avk_builder_int(f.b, 2, &f.err));
    avk_builder_reset(f.b);
    EXPECT_NOTHING(&f);
    for (i = 0; i < 40; i++)
        AVKT_OK(i == 35 ? avk_builder_string(f.b, "", 0, &f.err) : avk_builder_long(f.b, 0, &f.err));
    {
        uint8_t zeros[40];
        memset(zeros, 0, sizeof zeros);
        expect_bytes(&f, zeros, 40);
    }
    fix_close(&f);

    /* The writer's limit reached when held values go out. */
    {
        avk_writer w;
        avk_writer_options o;
        avk_builder *b;
        avk_schema *s = AVKT_PARSE_RAW(avkt_wide_varint_schema());
        avk_plan *p = avkt_plan_new(avk_schema_root(s), 0, NULL, 0);
        avk_error err;
        avk_status st = AVK_OK;
        memset(&o, 0, sizeof o);
        o.struct_size = sizeof o;
        o.max_size = 100;
        AVKT_OK(avk_writer_init_memory(&w, &o, NULL));
        AVKT_OK(avk_builder_new(p, &w, NULL, &b, NULL));
        for (i = 0; i < 35 && st == AVK_OK; i++)
            st = i % 3 == 1 ? avk_builder_int(b, INT32_MIN, &err) : avk_builder_long(b, INT64_MIN, &err);
        AVKT_ASSERT_STATUS(st, AVK_ERR_LIMIT);
        assert_true(strncmp(err.path, "W.fields[", 9) == 0);
        avk_builder_free(b);
        avk_writer_destroy(&w);
        avk_plan_free(p);
        avk_schema_free(s);
    }
}

/* ---- the builder against avk_plan_encode on random values --------------------------- */

static const char *all_schema =
    "{\"type\":\"record\",\"name\":\"R\",\"fields\":["
    "{\"name\":\"n\",\"type\":\"null\"},"
    "{\"name\":\"b\",\"type\":\"boolean\"},"
    "{\"name\":\"i\",\"type\":\"int\"},"
    "{\"name\":\"l\",\"type\":\"long\"},"
    "{\"name\":\"f\",\"type\":\"float\"},"
    "{\"name\":\"d\",\"type\":\"double\"},"
    "{\"name\":\"by\",\"type\":\"bytes\"},"
    "{\"name\":\"s\",\"type\":\"string\"},"
    "{\"name\":\"e\",\"type\":{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\",\"B\",\"C\"]}},"
    "{\"name\":\"fx\",\"type\":{\"type\":\"fixed\",\"name\":\"F\",\"size\":3}},"
    "{\"name\":\"al\",\"type\":{\"type\":\"array\",\"items\":\"long\"}},"
    "{\"name\":\"ai\",\"type\":{\"type\":\"array\",\"items\":\"int\"}},"
    "{\"name\":\"ab\",\"type\":{\"type\":\"array\",\"items\":\"boolean\"}},"
    "{\"name\":\"ad\",\"type\":{\"type\":\"array\",\"items\":\"double\"}},"
    "{\"name\":\"af\",\"type\":{\"type\":\"array\",\"items\":\"F\"}},"
    "{\"name\":\"an\",\"type\":{\"type\":\"array\",\"items\":\"null\"}},"
    "{\"name\":\"as\",\"type\":{\"type\":\"array\",\"items\":\"string\"}},"
    "{\"name\":\"ms\",\"type\":{\"type\":\"map\",\"values\":{\"type\":\"array\",\"items\":\"string\"}}},"
    "{\"name\":\"aai\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"array\",\"items\":\"int\"}}},"
    "{\"name\":\"mr\",\"type\":{\"type\":\"map\",\"values\":{\"type\":\"record\",\"name\":\"P\","
    "  \"fields\":[{\"name\":\"x\",\"type\":\"long\"},{\"name\":\"y\",\"type\":\"int\"},"
    "  {\"name\":\"t\",\"type\":\"string\"}]}}},"
    "{\"name\":\"u\",\"type\":[\"null\",\"string\",\"E\","
    "  {\"type\":\"record\",\"name\":\"Empty\",\"fields\":[]}]},"
    "{\"name\":\"empty\",\"type\":\"Empty\"},"
    "{\"name\":\"child\",\"type\":[\"null\",\"R\"]}]}";

/* Bump storage for generated values, reset per value. */
static unsigned char gen_pool[1 << 22];
static size_t gen_used;

static void *gen_alloc(size_t n)
{
    void *p;
    n = (n + 15) & ~(size_t)15;
    assert_true(gen_used + n <= sizeof gen_pool);
    p = gen_pool + gen_used;
    gen_used += n;
    memset(p, 0, n);
    return p;
}

static void gen(avkt_rng *r, const avk_type *t, avk_value *v, int depth);

static void gen_bytes(avkt_rng *r, avk_bytes *b, size_t max)
{
    size_t i, n = (size_t)avkt_below(r, max + 1);
    uint8_t *p = (uint8_t *)gen_alloc(n + 1);
    for (i = 0; i < n; i++)
        p[i] = (uint8_t)('a' + avkt_below(r, 26));
    b->data = n || avkt_below(r, 2) ? p : NULL;
    b->len = n;
}

static void gen(avkt_rng *r, const avk_type *t, avk_value *v, int depth)
{
    size_t i, n, item_size;
    memset(v, 0, sizeof *v);
    v->type = t;
    switch (t->kind) {
    case AVK_NULL: break;
    case AVK_BOOLEAN: v->u.boolean = (uint8_t)avkt_below(r, 2); break;
    case AVK_INT: v->u.i = avkt_mixed_int(r); break;
    case AVK_LONG: v->u.l = avkt_mixed_long(r); break;
    case AVK_FLOAT: v->u.f = (float)avkt_mixed_int(r) / 8.0f; break;
    case AVK_DOUBLE: v->u.d = (double)avkt_mixed_long(r) / 3.0; break;
    case AVK_BYTES:
    case AVK_STRING: gen_bytes(r, &v->u.bytes, avkt_below(r, 4) ? 12 : 150); break;
    case AVK_FIXED: {
        uint8_t *p = (uint8_t *)gen_alloc(t->size);
        for (i = 0; i < t->size; i++)
            p[i] = (uint8_t)avkt_next(r);
        v->u.bytes.data = p;
        v->u.bytes.len = t->size;
        break;
    }
    case AVK_ENUM: v->u.index = (uint32_t)avkt_below(r, t->symbol_count); break;
    case AVK_RECORD:
        v->u.fields = (avk_value *)gen_alloc(t->field_count * sizeof(avk_value));
        for (i = 0; i < t->field_count; i++)
            gen(r, t->fields[i].type, &v->u.fields[i], depth + 1);
        break;
    case AVK_UNION: {
        uint32_t b = (uint32_t)avkt_below(r, t->branch_count);
        /* Recursion (R's child) thins out with depth. */
        if (t->branches[b]->kind == AVK_RECORD && t->branches[b]->field_count && depth > 2)
            b = 0;
        v->u.branch.index = b;
        v->u.branch.value = (avk_value *)gen_alloc(sizeof(avk_value));
        gen(r, t->branches[b], v->u.branch.value, depth + 1);
        break;
    }
    case AVK_ARRAY:
        n = (size_t)avkt_below(r, avkt_below(r, 4) ? 6 : 40);
        v->u.array.count = n;
        if (avk_array_is_typed(t, &item_size)) {
            if (item_size == 0)
                break;
            v->u.array.items = gen_alloc(n * item_size);
            for (i = 0; i < n; i++) {
                avk_value tmp;
                gen(r, t->items, &tmp, depth + 1);
                switch (t->items->kind) {
                case AVK_BOOLEAN: ((uint8_t *)v->u.array.items)[i] = tmp.u.boolean; break;
                case AVK_INT: ((int32_t *)v->u.array.items)[i] = tmp.u.i; break;
                case AVK_LONG: ((int64_t *)v->u.array.items)[i] = tmp.u.l; break;
                case AVK_FLOAT: ((float *)v->u.array.items)[i] = tmp.u.f; break;
                case AVK_DOUBLE: ((double *)v->u.array.items)[i] = tmp.u.d; break;
                default:
                    memcpy((uint8_t *)v->u.array.items + i * item_size, tmp.u.bytes.data,
                           item_size);
                    break;
                }
            }
        } else {
            v->u.array.items = gen_alloc(n * sizeof(avk_value));
            for (i = 0; i < n; i++)
                gen(r, t->items, (avk_value *)v->u.array.items + i, depth + 1);
        }
        break;
    case AVK_MAP:
        n = (size_t)avkt_below(r, 5);
        v->u.map.count = n;
        v->u.map.keys = (avk_bytes *)gen_alloc(n * sizeof(avk_bytes));
        v->u.map.values = (avk_value *)gen_alloc(n * sizeof(avk_value));
        for (i = 0; i < n; i++) {
            gen_bytes(r, &v->u.map.keys[i], 6);
            gen(r, t->items, &v->u.map.values[i], depth + 1);
        }
        break;
    }
}

/* Writes v through the builder, as a user would (typed arrays either
 * whole or item by item). */
static avk_status build(avkt_rng *r, avk_builder *b, const avk_value *v, avk_error *err)
{
    const avk_type *t = v->type;
    size_t i, item_size;
    switch (t->kind) {
    case AVK_NULL: return avk_builder_null(b, err);
    case AVK_BOOLEAN: return avk_builder_boolean(b, v->u.boolean, err);
    case AVK_INT: return avk_builder_int(b, v->u.i, err);
    case AVK_LONG: return avk_builder_long(b, v->u.l, err);
    case AVK_FLOAT: return avk_builder_float(b, v->u.f, err);
    case AVK_DOUBLE: return avk_builder_double(b, v->u.d, err);
    case AVK_BYTES: return avk_builder_bytes(b, v->u.bytes.data, v->u.bytes.len, err);
    case AVK_STRING:
        return avk_builder_string(b, (const char *)v->u.bytes.data, v->u.bytes.len, err);
    case AVK_FIXED: return avk_builder_fixed(b, v->u.bytes.data, v->u.bytes.len, err);
    case AVK_ENUM: return avk_builder_enum(b, v->u.index, err);
    case AVK_RECORD:
        for (i = 0; i < t->field_count; i++)
            AVK_TRY_T(build(r, b, &v->u.fields[i], err));
        return AVK_OK;
    case AVK_UNION:
        AVK_TRY_T(avk_builder_union(b, v->u.branch.index, err));
        return build(r, b, v->u.branch.value, err);
    case AVK_ARRAY:
        if (avk_array_is_typed(t, &item_size) && avkt_below(r, 2))
            return avk_builder_array(b, v->u.array.items, v->u.array.count, err);
        AVK_TRY_T(avk_builder_array_begin(b, err));
        for (i = 0; i < v->u.array.count; i++) {
            if (avk_array_is_typed(t, &item_size)) {
                const void *at =
                    item_size ? (const uint8_t *)v->u.array.items + i * item_size : NULL;
                switch (t->items->kind) {
                case AVK_NULL: AVK_TRY_T(avk_builder_null(b, err)); break;
                case AVK_BOOLEAN:
                    AVK_TRY_T(avk_builder_boolean(b, *(const uint8_t *)at, err));
                    break;
                case AVK_INT: AVK_TRY_T(avk_builder_int(b, *(const int32_t *)at, err)); break;
                case AVK_LONG: AVK_TRY_T(avk_builder_long(b, *(const int64_t *)at, err)); break;
                case AVK_FLOAT: AVK_TRY_T(avk_builder_float(b, *(const float *)at, err)); break;
                case AVK_DOUBLE: AVK_TRY_T(avk_builder_double(b, *(const double *)at, err)); break;
                default: AVK_TRY_T(avk_builder_fixed(b, at, item_size, err)); break;
                }
            } else {
                AVK_TRY_T(build(r, b, (const avk_value *)v->u.array.items + i, err));
            }
        }
        return avk_builder_array_end(b, err);
    case AVK_MAP:
        AVK_TRY_T(avk_builder_map_begin(b, err));
        for (i = 0; i < v->u.map.count; i++) {
            AVK_TRY_T(avk_builder_map_key(b, (const char *)v->u.map.keys[i].data,
                                          v->u.map.keys[i].len, err));
            AVK_TRY_T(build(r, b, &v->u.map.values[i], err));
        }
        return avk_builder_map_end(b, err);
    }
    return AVK_ERR_INVALID_ARGUMENT;
}

/* Many random values: the builder's bytes equal avk_plan_encode's, for
 * every block setting, and decode back to the values. */
static void test_builder_equals_encode(void **state)
{
    static const size_t pers[] = {0, 1, 2, 3, 7};
    unsigned flags;
    size_t pi;
    (void)state;
    for (flags = 0; flags <= AVK_PLAN_BLOCK_SIZES; flags += AVK_PLAN_BLOCK_SIZES) {
        for (pi = 0; pi < sizeof pers / sizeof pers[0]; pi++) {
            fix f;
            avk_writer ew;
            avkt_rng r = {1000 + flags * 10 + pi}, rb = {7};
            avk_arena *arena;
            int k;
            fix_open(&f, all_schema, flags, pers[pi], 0);
            AVKT_OK(avk_writer_init_memory(&ew, NULL, NULL));
            AVKT_OK(avk_arena_new(NULL, &arena, NULL));
            for (k = 0; k < 60; k++) {
                avk_value v, back;
                size_t elen, blen;
                const uint8_t *edata, *bdata;
                avk_reader rd;
                gen_used = 0;
                gen(&r, avk_schema_root(f.s), &v, 0);
                avk_writer_reset(&ew);
                avk_writer_reset(&f.w);
                if (avk_plan_encode(f.p, &v, &ew, &f.err) != AVK_OK)
                    fail_msg("encode: %s", f.err.message);
                if (build(&rb, f.b, &v, &f.err) != AVK_OK)
                    fail_msg("build: %s", f.err.message);
                assert_true(avk_builder_complete(f.b));
                edata = avk_writer_data(&ew, &elen);
                bdata = avk_writer_data(&f.w, &blen);
                avkt_assert_bytes(bdata, blen, edata, elen);
                avk_arena_reset(arena);
                avk_reader_init_memory(&rd, bdata, blen);
                if (avk_plan_decode(f.p, &rd, arena, &back, &f.err) != AVK_OK)
                    fail_msg("decode: %s", f.err.message);
                assert_int_equal(avk_reader_offset(&rd), blen);
                assert_true(avk_value_equal(&back, &v));
            }
            avk_arena_free(arena);
            avk_writer_destroy(&ew);
            fix_close(&f);
        }
    }
}

/* After warm-up the builder allocates nothing per value. */
static void test_no_allocation_after_warmup(void **state)
{
    fix f;
    avkt_failalloc fa;
    avk_builder *b;
    avkt_rng r = {5}, rb = {6};
    long calls = 0;
    int k;
    (void)state;
    fix_open(&f, all_schema, AVK_PLAN_BLOCK_SIZES, 4, 0);
    avkt_failalloc_init(&fa, 0);
    AVKT_OK(avk_builder_new(f.p, &f.w, &fa.allocator, &b, NULL));
    for (k = 0; k < 400; k++) {
        avk_value v;
        gen_used = 0;
        gen(&r, avk_schema_root(f.s), &v, 0);
        avk_writer_reset(&f.w);
        if (build(&rb, b, &v, &f.err) != AVK_OK)
            fail_msg("build: %s", f.err.message);
        if (k == 300)
            calls = fa.calls;
    }
    assert_int_equal(fa.calls, calls);
    avk_builder_free(b);
    assert_int_equal(fa.live_blocks, 0);
    assert_int_equal(fa.size_mismatches, 0);
    assert_int_equal(fa.bad_frees, 0);
    fix_close(&f);
}

/* Every allocation failing in turn: NO_MEMORY, then after a reset the
 * builder still works; nothing leaks. */
static void test_failing_allocator(void **state)
{
    fix f;
    long n;
    (void)state;
    fix_open(&f, all_schema, AVK_PLAN_BLOCK_SIZES, 3, 0);
    for (n = 1;; n++) {
        avkt_failalloc fa;
        avk_builder *b = NULL;
        avkt_rng r = {77}, rb = {78};
        avk_status st;
        int k, failed = 0;
        avkt_failalloc_init(&fa, n);
        st = avk_builder_new(f.p, &f.w, &fa.allocator, &b, &f.err);
        if (st != AVK_OK) {
            AVKT_ASSERT_STATUS(st, AVK_ERR_NO_MEMORY);
            assert_null(b);
            assert_int_equal(fa.live_blocks, 0);
            continue;
        }
        for (k = 0; k < 20; k++) {
            avk_value v;
            gen_used = 0;
            gen(&r, avk_schema_root(f.s), &v, 0);
            avk_writer_reset(&f.w);
            st = build(&rb, b, &v, &f.err);
            if (st != AVK_OK) {
                AVKT_ASSERT_STATUS(st, AVK_ERR_NO_MEMORY);
                AVKT_ASSERT_STATUS(f.err.status, AVK_ERR_NO_MEMORY);
                assert_true(strncmp(f.err.message, "R", 1) == 0);
                avk_builder_reset(b);
                failed = 1;
            }
        }
        avk_builder_free(b);
        assert_int_equal(fa.live_blocks, 0);
        assert_int_equal(fa.size_mismatches, 0);
        assert_int_equal(fa.bad_frees, 0);
        if (!failed && fa.failures == 0)
            break;
        assert_true(n < 1000);
    }
    assert_true(n > 3);
    fix_close(&f);
}

/* The caller's memory writer at its max_size: LIMIT, with the path. */
static void test_writer_limit(void **state)
{
    fix f;
    avk_writer w;
    avk_writer_options o;
    avk_builder *b;
    char s[100];
    (void)state;
    fix_open(&f, user_schema, 0, 0, 0);
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.max_size = 64;
    AVKT_OK(avk_writer_init_memory(&w, &o, NULL));
    AVKT_OK(avk_builder_new(f.p, &w, NULL, &b, NULL));
    memset(s, 's', sizeof s);
    AVKT_OK(avk_builder_long(b, 1, &f.err));
    AVKT_ASSERT_STATUS(avk_builder_string(b, s, sizeof s, &f.err), AVK_ERR_LIMIT);
    assert_string_equal(f.err.path, "User.fields[1]");
    check_message(avk_plan_type(f.p), &f.err, "User.fields[1]", NULL);
    avk_builder_free(b);
    avk_writer_destroy(&w);

    /* Blocks go to the writer when full: LIMIT from inside an array. */
    o.max_size = 8;
    AVKT_OK(avk_writer_init_memory(&w, &o, NULL));
    {
        avk_schema *s2 = AVKT_PARSE_RAW("{\"type\":\"array\",\"items\":\"string\"}");
        avk_plan *p = avkt_plan_new(avk_schema_root(s2), 0, NULL, 2);
        AVKT_OK(avk_builder_new(p, &w, NULL, &b, NULL));
        AVKT_OK(avk_builder_array_begin(b, &f.err));
        AVKT_OK(avk_builder_string(b, "abc", 3, &f.err));
        AVKT_ASSERT_STATUS(avk_builder_string(b, "defg", 4, &f.err), AVK_ERR_LIMIT);
        assert_string_equal(f.err.path, "array.items[2]");
        avk_builder_free(b);
        avk_plan_free(p);
        avk_schema_free(s2);
    }
    avk_writer_destroy(&w);
    fix_close(&f);
}

static void test_null_arguments(void **state)
{
    fix f;
    avk_builder *b = (avk_builder *)&f;
    avk_error err;
    (void)state;
    fix_open(&f, "\"long\"", 0, 0, 0);
    AVKT_ASSERT_STATUS(avk_builder_new(NULL, &f.w, NULL, &b, &err), AVK_ERR_INVALID_ARGUMENT);
    assert_null(b);
    AVKT_ASSERT_STATUS(avk_builder_new(f.p, NULL, NULL, &b, &err), AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_builder_new(f.p, &f.w, NULL, NULL, &err), AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_builder_long(NULL, 1, &err), AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_builder_string(NULL, "", 0, &err), AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_builder_array_end(NULL, &err), AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_builder_map_key(NULL, "", 0, &err), AVK_ERR_INVALID_ARGUMENT);
    assert_false(avk_builder_complete(NULL));
    avk_builder_reset(NULL);
    avk_builder_free(NULL);
    /* Wrong calls with no error record. */
    AVKT_ASSERT_STATUS(avk_builder_string(f.b, "", 0, NULL), AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_builder_array_end(f.b, NULL), AVK_ERR_INVALID_ARGUMENT);
    fix_close(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(avkt_test_kernel_choice),
        cmocka_unit_test(test_primitives),
        cmocka_unit_test(test_record),
        cmocka_unit_test(test_empty_records),
        cmocka_unit_test(test_recursive_list),
        cmocka_unit_test(test_long_arrays),
        cmocka_unit_test(test_typed_arrays),
        cmocka_unit_test(test_string_arrays_and_nesting),
        cmocka_unit_test(test_maps),
        cmocka_unit_test(test_wide_varint_runs),
        cmocka_unit_test(test_builder_equals_encode),
        cmocka_unit_test(test_no_allocation_after_warmup),
        cmocka_unit_test(test_failing_allocator),
        cmocka_unit_test(test_writer_limit),
        cmocka_unit_test(test_null_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
