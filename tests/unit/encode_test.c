/* Unit tests for avk_plan_encode: exact bytes of every type, blocks with and without sizes, mismatches with paths, limits, round trips. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "avkt.h"
#include "failalloc.h"
#include "io.h"
#include "schema/schema_internal.h"

/* ---- helpers -------------------------------------------------------------------- */

/* Values live in a static pool for the whole run: tests are small. */
static avk_value pool[1 << 14];
static size_t pool_used;

static avk_value *newv(size_t n)
{
    avk_value *v;
    assert_true(pool_used + n <= sizeof pool / sizeof pool[0]);
    v = pool + pool_used;
    pool_used += n;
    memset(v, 0, n * sizeof *v);
    return v;
}

static const avk_type *field_type(const avk_type *rec, size_t i)
{
    return avk_field_type(avk_type_field(rec, i));
}

/* Encodes v with p into a fresh memory writer and compares with want;
 * then decodes the bytes back and checks the value is equal. */
static void check_encode(const avk_plan *p, const avk_value *v, const uint8_t *want,
                         size_t want_len)
{
    avk_writer w;
    avk_error err;
    const uint8_t *data;
    size_t len;
    AVKT_OK(avk_writer_init_memory(&w, NULL, NULL));
    if (avk_plan_encode(p, v, &w, &err) != AVK_OK)
        fail_msg("encode failed: %s %s", avk_status_name(err.status), err.message);
    data = avk_writer_data(&w, &len);
    avkt_assert_bytes(data, len, want, want_len);

    /* Round trip through the decoder. */
    {
        avk_reader r;
        avk_arena *arena = NULL;
        avk_value back;
        AVKT_OK(avk_arena_new(NULL, &arena, NULL));
        avk_reader_init_memory(&r, data, len);
        if (avk_plan_decode(p, &r, arena, &back, &err) != AVK_OK)
            fail_msg("decode of encoded bytes failed: %s", err.message);
        assert_int_equal(avk_reader_offset(&r), len);
        assert_true(avk_value_equal(&back, v));
        avk_arena_free(arena);
    }
    avk_writer_destroy(&w);
}

#define CHECK(p, v, ...)                                                       \
    do {                                                                       \
        static const uint8_t want_[] = {__VA_ARGS__};                          \
        check_encode(p, v, want_, sizeof want_);                               \
    } while (0)

/* Encodes v after a 3-byte prefix and expects status st with the given
 * path; the writer must hold just the prefix afterwards (nothing of the
 * value), and the message must start with the path. */
static void check_fail(const avk_plan *p, const avk_value *v, avk_status st, const char *path)
{
    avk_writer w;
    avk_error err;
    size_t len;
    const uint8_t *data;
    static const uint8_t prefix[3] = {1, 2, 3};
    AVKT_OK(avk_writer_init_memory(&w, NULL, NULL));
    AVKT_OK(avk_writer_write_raw(&w, prefix, 3, NULL));
    AVKT_ASSERT_STATUS(avk_plan_encode(p, v, &w, &err), st);
    AVKT_ASSERT_STATUS(err.status, st);
    assert_string_equal(err.path, path);
    avkt_check_message_path(avk_plan_type(p), &err);
    data = avk_writer_data(&w, &len);
    avkt_assert_bytes(data, len, prefix, 3);
    /* Without an error record the status is the same. */
    AVKT_ASSERT_STATUS(avk_plan_encode(p, v, &w, NULL), st);
    avk_writer_destroy(&w);
}

/* The message after the path (by field names) and ": ". */
static void check_fail_msg(const avk_plan *p, const avk_value *v, const char *path,
                           const char *msg)
{
    avk_writer w;
    avk_error err;
    char want[600], named[AVK_ERROR_MESSAGE_MAX];
    AVKT_OK(avk_writer_init_memory(&w, NULL, NULL));
    AVKT_ASSERT_STATUS(avk_plan_encode(p, v, &w, &err), AVK_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.path, path);
    assert_true(avkt_named_path(avk_plan_type(p), path, named, sizeof named));
    snprintf(want, sizeof want, "%s: %s", named, msg);
    assert_string_equal(err.message, want);
    avk_writer_destroy(&w);
}

/* A plan for a schema given as JSON; both freed by done(). */
typedef struct fix {
    avk_schema *s;
    avk_plan *p;
    const avk_type *t;
} fix;

static fix fix_new(const char *json, unsigned flags, size_t block_items)
{
    fix f;
    f.s = AVKT_PARSE_RAW(json);
    f.t = avk_schema_root(f.s);
    f.p = avkt_plan_new(f.t, flags, NULL, block_items);
    return f;
}

/* The same schema under new plan options (values keep their types). */
static void replan(fix *f, unsigned flags, size_t block_items)
{
    avk_plan_free(f->p);
    f->p = avkt_plan_new(f->t, flags, NULL, block_items);
}

static void done(fix *f)
{
    avk_plan_free(f->p);
    avk_schema_free(f->s);
}

/* The shared node of a primitive kind. */
static const avk_type *prim(avk_kind k)
{
    return avki_primitive(k);
}

static avk_value mk(const avk_type *t)
{
    avk_value v;
    memset(&v, 0, sizeof v);
    v.type = t;
    return v;
}

static avk_value mk_long(const avk_type *t, int64_t x)
{
    avk_value v = mk(t);
    v.u.l = x;
    return v;
}

static avk_value mk_str(const avk_type *t, const char *s)
{
    avk_value v = mk(t);
    v.u.bytes.data = (const uint8_t *)s;
    v.u.bytes.len = strlen(s);
    return v;
}

/* ---- primitives ---------------------------------------------------------------- */

static void test_null_boolean(void **state)
{
    fix f = fix_new("\"null\"", 0, 0);
    avk_value v = mk(f.t);
    (void)state;
    check_encode(f.p, &v, NULL, 0);
    done(&f);

    f = fix_new("\"boolean\"", 0, 0);
    v = mk(f.t);
    v.u.boolean = 1;
    CHECK(f.p, &v, 0x01);
    v.u.boolean = 0;
    CHECK(f.p, &v, 0x00);
    v.u.boolean = 2;
    check_fail(f.p, &v, AVK_ERR_INVALID_ARGUMENT, "boolean");
    check_fail_msg(f.p, &v, "boolean", "boolean value is 2, expected 0 or 1");
    done(&f);
}

static void test_int_long(void **state)
{
    fix f = fix_new("\"int\"", 0, 0);
    avk_value v = mk(f.t);
    (void)state;
    v.u.i = 1;
    CHECK(f.p, &v, 0x02);
    v.u.i = -1;
    CHECK(f.p, &v, 0x01);
    v.u.i = 64;
    CHECK(f.p, &v, 0x80, 0x01);
    v.u.i = INT32_MAX;
    CHECK(f.p, &v, 0xfe, 0xff, 0xff, 0xff, 0x0f);
    v.u.i = INT32_MIN;
    CHECK(f.p, &v, 0xff, 0xff, 0xff, 0xff, 0x0f);
    done(&f);

    f = fix_new("{\"type\": \"long\"}", 0, 0);
    v = mk_long(f.t, 1);
    CHECK(f.p, &v, 0x02);
    v.u.l = -1;
    CHECK(f.p, &v, 0x01);
    v.u.l = 0;
    CHECK(f.p, &v, 0x00);
    v.u.l = -65;
    CHECK(f.p, &v, 0x81, 0x01);
    v.u.l = INT64_MAX;
    CHECK(f.p, &v, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01);
    v.u.l = INT64_MIN;
    CHECK(f.p, &v, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01);
    done(&f);
}

static void test_float_double(void **state)
{
    fix f = fix_new("\"float\"", 0, 0);
    avk_value v = mk(f.t);
    (void)state;
    v.u.f = 1.0f;
    CHECK(f.p, &v, 0x00, 0x00, 0x80, 0x3f);
    v.u.f = -2.5f;
    CHECK(f.p, &v, 0x00, 0x00, 0x20, 0xc0);
    done(&f);
    f = fix_new("\"double\"", 0, 0);
    v = mk(f.t);
    v.u.d = 1.0;
    CHECK(f.p, &v, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf0, 0x3f);
    v.u.d = -0.0;
    CHECK(f.p, &v, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80);
    done(&f);
}

static void test_bytes_string(void **state)
{
    static const uint8_t blob[] = {0x00, 0xff};
    fix f = fix_new("\"string\"", 0, 0);
    avk_value v = mk_str(f.t, "foo");
    (void)state;
    CHECK(f.p, &v, 0x06, 0x66, 0x6f, 0x6f);
    v = mk_str(f.t, "");
    CHECK(f.p, &v, 0x00);
    v.u.bytes.data = NULL; /* an empty string may have no data */
    CHECK(f.p, &v, 0x00);
    v.u.bytes.len = 3;
    check_fail(f.p, &v, AVK_ERR_INVALID_ARGUMENT, "string");
    check_fail_msg(f.p, &v, "string", "string of 3 bytes has no data");
    done(&f);

    f = fix_new("\"bytes\"", 0, 0);
    v = mk(f.t);
    v.u.bytes.data = blob;
    v.u.bytes.len = 2;
    CHECK(f.p, &v, 0x04, 0x00, 0xff);
    done(&f);

    /* A 200-byte string: two-byte length. */
    {
        char s[201];
        uint8_t want[203];
        memset(s, 'x', 200);
        s[200] = 0;
        f = fix_new("\"string\"", 0, 0);
        v = mk_str(f.t, s);
        want[0] = 0x90; /* 400 = 0x190 */
        want[1] = 0x03;
        memset(want + 2, 'x', 200);
        check_encode(f.p, &v, want, 202);
        done(&f);
    }
}

static void test_enum_fixed(void **state)
{
    fix f = fix_new("{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\",\"B\",\"C\"]}", 0, 0);
    avk_value v = mk(f.t);
    (void)state;
    v.u.index = 2;
    CHECK(f.p, &v, 0x04);
    v.u.index = 0;
    CHECK(f.p, &v, 0x00);
    v.u.index = 3;
    check_fail(f.p, &v, AVK_ERR_INVALID_ARGUMENT, "E");
    check_fail_msg(f.p, &v, "E", "enum index 3 out of range (3 symbols)");
    v.u.index = UINT32_MAX; /* indexes are unsigned: no negative index to get wrong */
    check_fail(f.p, &v, AVK_ERR_INVALID_ARGUMENT, "E");
    check_fail_msg(f.p, &v, "E", "enum index 4294967295 out of range (3 symbols)");
    done(&f);

    f = fix_new("{\"type\":\"fixed\",\"name\":\"ns.F\",\"size\":4}", 0, 0);
    v = mk_str(f.t, "abcd");
    CHECK(f.p, &v, 0x61, 0x62, 0x63, 0x64);
    v = mk_str(f.t, "abc");
    check_fail(f.p, &v, AVK_ERR_INVALID_ARGUMENT, "ns.F");
    check_fail_msg(f.p, &v, "ns.F", "fixed value of 3 bytes, expected 4");
    v = mk(f.t);
    v.u.bytes.len = 4;
    check_fail(f.p, &v, AVK_ERR_INVALID_ARGUMENT, "ns.F");
    done(&f);
}

/* ---- records, unions, recursion ------------------------------------------------------ */

static const char *user_schema =
    "{\"type\":\"record\",\"name\":\"User\",\"fields\":["
    "{\"name\":\"id\",\"type\":\"long\"},"
    "{\"name\":\"name\",\"type\":\"string\"},"
    "{\"name\":\"loc\",\"type\":{\"type\":\"record\",\"name\":\"Loc\",\"fields\":["
    "  {\"name\":\"x\",\"type\":\"int\"},{\"name\":\"y\",\"type\":\"int\"}]}},"
    "{\"name\":\"nick\",\"type\":[\"null\",\"string\"]},"
    "{\"name\":\"ok\",\"type\":\"boolean\"}]}";

/* User{id, name, loc{x, y}, nick, ok} with the given nick (NULL: null). */
static avk_value user(const avk_type *t, int64_t id, const char *name, int32_t x, int32_t y,
                      const char *nick)
{
    avk_value v = mk(t), *f = newv(5), *loc = newv(2), *b = newv(1);
    const avk_type *lt = field_type(t, 2), *ut = field_type(t, 3);
    v.u.fields = f;
    f[0] = mk_long(field_type(t, 0), id);
    f[1] = mk_str(field_type(t, 1), name);
    f[2] = mk(lt);
    f[2].u.fields = loc;
    loc[0] = mk(field_type(lt, 0));
    loc[0].u.i = x;
    loc[1] = mk(field_type(lt, 1));
    loc[1].u.i = y;
    f[3] = mk(ut);
    f[3].u.branch.value = b;
    if (nick) {
        f[3].u.branch.index = 1;
        *b = mk_str(avk_type_branch(ut, 1), nick);
    } else {
        f[3].u.branch.index = 0;
        *b = mk(avk_type_branch(ut, 0));
    }
    f[4] = mk(field_type(t, 4));
    f[4].u.boolean = 1;
    return v;
}

static void test_record_union(void **state)
{
    fix f = fix_new(user_schema, 0, 0);
    avk_value v = user(f.t, 1, "ab", 1, -2, "a");
    (void)state;
    CHECK(f.p, &v, 0x02, 0x04, 0x61, 0x62, 0x02, 0x03, 0x02, 0x02, 0x61, 0x01);
    v = user(f.t, -1, "", 0, 0, NULL);
    CHECK(f.p, &v, 0x01, 0x00, 0x00, 0x00, 0x00, 0x01);
    done(&f);

    /* The union alone, as in the brief: branch 1 "a" -> 02 02 61. */
    f = fix_new("[\"null\",\"string\"]", 0, 0);
    {
        avk_value b = mk_str(avk_type_branch(f.t, 1), "a");
        v = mk(f.t);
        v.u.branch.index = 1;
        v.u.branch.value = &b;
        CHECK(f.p, &v, 0x02, 0x02, 0x61);
        b = mk(avk_type_branch(f.t, 0));
        v.u.branch.index = 0;
        CHECK(f.p, &v, 0x00);
    }
    done(&f);
}

/* Records, arrays and maps of leaves are written without frames of their
 * own: a mismatch inside them still has its whole path. */
static void test_paths_through_inline_values(void **state)
{
    avk_schema *s = AVKT_PARSE(
        "{'type': 'record', 'name': 'R', 'fields': ["
        " {'name': 'ps', 'type': {'type': 'array', 'items': ['null', {'type': 'record',"
        "  'name': 'P', 'fields': [{'name': 'a', 'type': 'int'}, {'name': 'b', 'type': "
        "  ['null', 'string']}]}]}},"
        " {'name': 'm', 'type': ['null', {'type': 'map', 'values': ['null', 'boolean']}]}]}");
    avk_plan *p = avkt_plan_new(avk_schema_root(s), 0, NULL, 0);
    /* ps: [P{a: 1, b: "ab"}]; m: {"k": true} */
    static const uint8_t bytes[] = {0x02, 0x02, 0x02, 0x02, 0x04, 'a', 'b', 0x00,
                                    0x02, 0x02, 0x02, 'k', 0x02, 0x01, 0x00};
    avk_arena *a;
    avk_reader r;
    avk_value v;
    avk_value *b;
    (void)state;
    AVKT_OK(avk_arena_new(NULL, &a, NULL));
    avk_reader_init_memory(&r, bytes, sizeof bytes);
    AVKT_OK(avk_plan_decode(p, &r, a, &v, NULL));
    b = v.u.fields[0].u.array.items;
    b = b[0].u.branch.value->u.fields[1].u.branch.value;
    b->u.bytes.data = NULL;
    check_fail(p, &v, AVK_ERR_INVALID_ARGUMENT,
               "R.fields[0].items[0].branch[1].fields[1].branch[1]");
    check_fail_msg(p, &v, "R.fields[0].items[0].branch[1].fields[1].branch[1]",
                   "string of 2 bytes has no data");
    b->u.bytes.data = (const uint8_t *)"ab";
    v.u.fields[1].u.branch.value->u.map.values[0].u.branch.value->u.boolean = 3;
    check_fail(p, &v, AVK_ERR_INVALID_ARGUMENT, "R.fields[1].branch[1].values[0].branch[1]");
    avk_arena_free(a);
    avk_plan_free(p);
    avk_schema_free(s);
}

static void test_record_mismatches(void **state)
{
    fix f = fix_new(user_schema, 0, 0);
    avk_value v = user(f.t, 1, "ab", 1, -2, "a"), saved;
    const avk_type *str = field_type(f.t, 1);
    (void)state;

    /* Root of the wrong kind. */
    saved = v;
    v = mk_str(str, "x");
    check_fail(f.p, &v, AVK_ERR_INVALID_ARGUMENT, "User");
    check_fail_msg(f.p, &v, "User", "value is string, expected User");
    v = saved;

    /* A field of the wrong kind. */
    v.u.fields[1] = mk_long(field_type(f.t, 0), 5);
    check_fail(f.p, &v, AVK_ERR_INVALID_ARGUMENT, "User.fields[1]");
    check_fail_msg(f.p, &v, "User.fields[1]", "value is long, expected string");
    v.u.fields[1] = mk_str(str, "ab");

    /* A nested field without a type. */
    v.u.fields[2].u.fields[1].type = NULL;
    check_fail(f.p, &v, AVK_ERR_INVALID_ARGUMENT, "User.fields[2].fields[1]");
    check_fail_msg(f.p, &v, "User.fields[2].fields[1]", "value has no type, expected int");
    v.u.fields[2].u.fields[1].type = field_type(field_type(f.t, 2), 1);

    /* Union branch out of range, then a branch value of the wrong kind. */
    v.u.fields[3].u.branch.index = 2;
    check_fail(f.p, &v, AVK_ERR_INVALID_ARGUMENT, "User.fields[3]");
    check_fail_msg(f.p, &v, "User.fields[3]", "union branch 2 out of range (branches: [null, string])");
    v.u.fields[3].u.branch.index = 0; /* branch value is a string: wrong for null */
    check_fail(f.p, &v, AVK_ERR_INVALID_ARGUMENT, "User.fields[3].branch[0]");
    check_fail_msg(f.p, &v, "User.fields[3].branch[0]", "value is string, expected null");
    v.u.fields[3].u.branch.index = 1;
    v.u.fields[3].u.branch.value = NULL;
    check_fail(f.p, &v, AVK_ERR_INVALID_ARGUMENT, "User.fields[3]");

    /* A record without its fields. */
    v.u.fields = NULL;
    check_fail(f.p, &v, AVK_ERR_INVALID_ARGUMENT, "User");

    /* Kinds compared, not pointers: a value typed from another parse of the
     * same schema encodes. */
    {
        avk_schema *other = AVKT_PARSE_RAW(user_schema);
        avk_value w = user(avk_schema_root(other), 1, "ab", 1, -2, "a");
        CHECK(f.p, &w, 0x02, 0x04, 0x61, 0x62, 0x02, 0x03, 0x02, 0x02, 0x61, 0x01);
        avk_schema_free(other);
    }
    done(&f);
}

static const char *list_schema =
    "{\"type\":\"record\",\"name\":\"Node\",\"fields\":["
    "{\"name\":\"v\",\"type\":\"int\"},"
    "{\"name\":\"next\",\"type\":[\"null\",\"Node\"]}]}";

/* A linked list 1 -> 2 -> ... -> n. */
static avk_value list(const avk_type *t, int n)
{
    const avk_type *ut = field_type(t, 1);
    avk_value head = mk(t), *cur = &head;
    int i;
    for (i = 1; i <= n; i++) {
        avk_value *f = newv(2), *b = newv(1);
        cur->u.fields = f;
        f[0] = mk(field_type(t, 0));
        f[0].u.i = i;
        f[1] = mk(ut);
        f[1].u.branch.value = b;
        if (i == n) {
            f[1].u.branch.index = 0;
            *b = mk(avk_type_branch(ut, 0));
        } else {
            f[1].u.branch.index = 1;
            *b = mk(t);
            cur = b;
        }
    }
    return head;
}

static void test_recursive_list(void **state)
{
    fix f = fix_new(list_schema, 0, 0);
    avk_value v = list(f.t, 2);
    (void)state;
    CHECK(f.p, &v, 0x02, 0x02, 0x04, 0x00);
    v = list(f.t, 3);
    CHECK(f.p, &v, 0x02, 0x02, 0x04, 0x02, 0x06, 0x00);
    /* A type error deep in the list. */
    v.u.fields[1].u.branch.value->u.fields[1].u.branch.value->u.fields[0].type =
        avk_type_branch(field_type(f.t, 1), 0);
    check_fail(f.p, &v, AVK_ERR_INVALID_ARGUMENT,
               "Node.fields[1].branch[1].fields[1].branch[1].fields[0]");
    done(&f);

    /* Depth: each node is a record and a union, so a list of 3 reaches
     * depth 6 (the last node's union). */
    {
        avk_schema *s = AVKT_PARSE_RAW(list_schema);
        avk_limits lim;
        avk_plan *p6, *p5;
        avk_value l3 = list(avk_schema_root(s), 3);
        memset(&lim, 0, sizeof lim);
        lim.max_depth = 6;
        p6 = avkt_plan_new(avk_schema_root(s), 0, &lim, 0);
        CHECK(p6, &l3, 0x02, 0x02, 0x04, 0x02, 0x06, 0x00);
        lim.max_depth = 5;
        p5 = avkt_plan_new(avk_schema_root(s), 0, &lim, 0);
        check_fail(p5, &l3, AVK_ERR_LIMIT, "Node.fields[1].branch[1].fields[1].branch[1].fields[1]");
        avk_plan_free(p6);
        avk_plan_free(p5);
        avk_schema_free(s);
    }
}

/* ---- arrays and maps --------------------------------------------------------------- */

static avk_value typed_array(const avk_type *t, void *items, size_t n)
{
    avk_value v = mk(t);
    v.u.array.items = items;
    v.u.array.count = n;
    return v;
}

static void test_long_array_blocks(void **state)
{
    static int64_t items[] = {1, 2, 3};
    const char *js = "{\"type\":\"array\",\"items\":\"long\"}";
    fix f = fix_new(js, 0, 0);
    avk_value v = typed_array(f.t, items, 3);
    (void)state;
    CHECK(f.p, &v, 0x06, 0x02, 0x04, 0x06, 0x00);
    v.u.array.count = 0;
    CHECK(f.p, &v, 0x00);
    v.u.array.items = NULL;
    CHECK(f.p, &v, 0x00);
    done(&f);

    f = fix_new(js, 0, 2);
    v = typed_array(f.t, items, 3);
    CHECK(f.p, &v, 0x04, 0x02, 0x04, 0x02, 0x06, 0x00);
    v.u.array.count = 2;
    CHECK(f.p, &v, 0x04, 0x02, 0x04, 0x00);
    done(&f);

    /* Byte sizes: -2 -> 03, 2 bytes -> 04; -1 -> 01, 1 byte -> 02. */
    f = fix_new(js, AVK_PLAN_BLOCK_SIZES, 2);
    v = typed_array(f.t, items, 3);
    CHECK(f.p, &v, 0x03, 0x04, 0x02, 0x04, 0x01, 0x02, 0x06, 0x00);
    done(&f);
    f = fix_new(js, AVK_PLAN_BLOCK_SIZES, 0);
    v = typed_array(f.t, items, 3);
    CHECK(f.p, &v, 0x05, 0x06, 0x02, 0x04, 0x06, 0x00);
    v.u.array.count = 0;
    CHECK(f.p, &v, 0x00);
    done(&f);
}

static void test_typed_arrays(void **state)
{
    static int32_t ints[] = {-1, 64, 0};
    static uint8_t bools[] = {1, 0, 1};
    static float floats[] = {1.0f, -2.5f};
    static double doubles[] = {1.0};
    static char fixed[] = "abcdef";
    fix f;
    avk_value v;
    (void)state;

    f = fix_new("{\"type\":\"array\",\"items\":\"int\"}", AVK_PLAN_BLOCK_SIZES, 2);
    v = typed_array(f.t, ints, 3);
    CHECK(f.p, &v, 0x03, 0x06, 0x01, 0x80, 0x01, 0x01, 0x02, 0x00, 0x00);
    done(&f);

    f = fix_new("{\"type\":\"array\",\"items\":\"boolean\"}", 0, 0);
    v = typed_array(f.t, bools, 3);
    CHECK(f.p, &v, 0x06, 0x01, 0x00, 0x01, 0x00);
    bools[1] = 7;
    check_fail(f.p, &v, AVK_ERR_INVALID_ARGUMENT, "array.items[1]");
    check_fail_msg(f.p, &v, "array.items[1]", "boolean item is 7, expected 0 or 1");
    bools[1] = 0;
    done(&f);

    f = fix_new("{\"type\":\"array\",\"items\":\"float\"}", AVK_PLAN_BLOCK_SIZES, 0);
    v = typed_array(f.t, floats, 2);
    CHECK(f.p, &v, 0x03, 0x10, 0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x20, 0xc0, 0x00);
    done(&f);

    f = fix_new("{\"type\":\"array\",\"items\":\"double\"}", 0, 0);
    v = typed_array(f.t, doubles, 1);
    CHECK(f.p, &v, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf0, 0x3f, 0x00);
    done(&f);

    f = fix_new("{\"type\":\"array\",\"items\":{\"type\":\"fixed\",\"name\":\"F\",\"size\":2}}",
                0, 2);
    v = typed_array(f.t, fixed, 3);
    CHECK(f.p, &v, 0x04, 0x61, 0x62, 0x63, 0x64, 0x02, 0x65, 0x66, 0x00);
    done(&f);

    /* Fixed of size 0: no storage, counts only. */
    f = fix_new("{\"type\":\"array\",\"items\":{\"type\":\"fixed\",\"name\":\"Z\",\"size\":0}}",
                AVK_PLAN_BLOCK_SIZES, 0);
    v = typed_array(f.t, NULL, 2);
    CHECK(f.p, &v, 0x03, 0x00, 0x00);
    done(&f);

    /* Nulls: counts only. */
    f = fix_new("{\"type\":\"array\",\"items\":\"null\"}", AVK_PLAN_BLOCK_SIZES, 2);
    v = typed_array(f.t, NULL, 3);
    CHECK(f.p, &v, 0x03, 0x00, 0x01, 0x00, 0x00);
    done(&f);
    f = fix_new("{\"type\":\"array\",\"items\":\"null\"}", 0, 0);
    v = typed_array(f.t, NULL, 3);
    CHECK(f.p, &v, 0x06, 0x00);
    done(&f);

    /* Storage that does not match the plan's item type. */
    {
        avk_schema *other = AVKT_PARSE_RAW("{\"type\":\"array\",\"items\":\"int\"}");
        f = fix_new("{\"type\":\"array\",\"items\":\"long\"}", 0, 0);
        v = typed_array(avk_schema_root(other), ints, 3);
        check_fail(f.p, &v, AVK_ERR_INVALID_ARGUMENT, "array");
        check_fail_msg(f.p, &v, "array", "array items are int, expected long");
        v = typed_array(f.t, NULL, 3);
        check_fail(f.p, &v, AVK_ERR_INVALID_ARGUMENT, "array");
        done(&f);
        avk_schema_free(other);
    }
}

static avk_value strings(const avk_type *t, const char *const *s, size_t n)
{
    avk_value v = mk(t), *items = newv(n);
    size_t i;
    for (i = 0; i < n; i++)
        items[i] = mk_str(avk_type_items(t), s[i]);
    v.u.array.items = items;
    v.u.array.count = n;
    return v;
}

static void test_boxed_arrays(void **state)
{
    static const char *const s3[] = {"a", "bc", "d"};
    const char *js = "{\"type\":\"array\",\"items\":\"string\"}";
    fix f = fix_new(js, 0, 0);
    avk_value v = strings(f.t, s3, 3);
    avk_value *items = (avk_value *)v.u.array.items;
    (void)state;
    CHECK(f.p, &v, 0x06, 0x02, 0x61, 0x04, 0x62, 0x63, 0x02, 0x64, 0x00);
    /* An item of the wrong kind. */
    items[1] = mk_long(prim(AVK_LONG), 1);
    check_fail(f.p, &v, AVK_ERR_INVALID_ARGUMENT, "array.items[1]");
    check_fail_msg(f.p, &v, "array.items[1]", "value is long, expected string");
    items[1] = mk_str(prim(AVK_STRING), "bc");
    v.u.array.items = NULL;
    check_fail(f.p, &v, AVK_ERR_INVALID_ARGUMENT, "array");
    v.u.array.items = items;

    replan(&f, 0, 2);
    CHECK(f.p, &v, 0x04, 0x02, 0x61, 0x04, 0x62, 0x63, 0x02, 0x02, 0x64, 0x00);

    /* Sizes: -2 -> 03 with 5 bytes (0a), -1 -> 01 with 2 bytes (04). */
    replan(&f, AVK_PLAN_BLOCK_SIZES, 2);
    CHECK(f.p, &v, 0x03, 0x0a, 0x02, 0x61, 0x04, 0x62, 0x63, 0x01, 0x04, 0x02, 0x64, 0x00);
    replan(&f, AVK_PLAN_BLOCK_SIZES, 0);
    CHECK(f.p, &v, 0x05, 0x0e, 0x02, 0x61, 0x04, 0x62, 0x63, 0x02, 0x64, 0x00);
    v.u.array.count = 0;
    CHECK(f.p, &v, 0x00);
    done(&f);
}

/* A block bigger than 63 bytes needs a 2-byte size: the items move up. */
static void test_sized_block_moves(void **state)
{
    char big[101];
    const char *s2[2];
    uint8_t want[3 + 2 + 100 + 2 + 1];
    size_t n = 0;
    fix f = fix_new("{\"type\":\"array\",\"items\":\"string\"}", AVK_PLAN_BLOCK_SIZES, 0);
    avk_value v;
    (void)state;
    memset(big, 'q', 100);
    big[100] = 0;
    s2[0] = big;
    s2[1] = "z";
    v = strings(f.t, s2, 2);
    /* -2, then the block's 2 + 100 + 2 = 104 bytes (zigzag 208 = d0 01). */
    want[n++] = 0x03;
    want[n++] = 0xd0;
    want[n++] = 0x01;
    want[n++] = 0xc8; /* length 100: zigzag 200 */
    want[n++] = 0x01;
    memset(want + n, 'q', 100);
    n += 100;
    want[n++] = 0x02;
    want[n++] = 0x7a;
    want[n++] = 0x00;
    check_encode(f.p, &v, want, n);
    done(&f);
}

static void test_nested_sized_arrays(void **state)
{
    static const char *const a[] = {"a", "bc"};
    static const char *const b[] = {"d"};
    fix f = fix_new("{\"type\":\"array\",\"items\":{\"type\":\"array\",\"items\":\"string\"}}",
                    AVK_PLAN_BLOCK_SIZES, 0);
    avk_value v = mk(f.t), *inner = newv(2);
    (void)state;
    inner[0] = strings(avk_type_items(f.t), a, 2);
    inner[1] = strings(avk_type_items(f.t), b, 1);
    v.u.array.items = inner;
    v.u.array.count = 2;
    /* inner[0]: 03 0a 02 61 04 62 63 00 (8 bytes); inner[1]: 01 04 02 64 00 (5 bytes);
     * outer: -2 -> 03, 13 bytes -> 1a. */
    CHECK(f.p, &v, 0x03, 0x1a, 0x03, 0x0a, 0x02, 0x61, 0x04, 0x62, 0x63, 0x00, 0x01, 0x04, 0x02,
          0x64, 0x00, 0x00);
    done(&f);
}

static avk_value long_map(const avk_type *t, const char *const *keys, const int64_t *vals,
                          size_t n)
{
    avk_value v = mk(t), *values = newv(n);
    avk_bytes *k = (avk_bytes *)calloc(n ? n : 1, sizeof *k);
    size_t i;
    assert_non_null(k);
    for (i = 0; i < n; i++) {
        k[i].data = (const uint8_t *)keys[i];
        k[i].len = strlen(keys[i]);
        values[i] = mk_long(avk_type_values(t), vals[i]);
    }
    v.u.map.keys = k;
    v.u.map.values = values;
    v.u.map.count = n;
    return v;
}

static void test_maps(void **state)
{
    static const char *const keys[] = {"a", "b"};
    static const int64_t vals[] = {1, 2};
    const char *js = "{\"type\":\"map\",\"values\":\"long\"}";
    fix f = fix_new(js, 0, 0);
    avk_value v = long_map(f.t, keys, vals, 2);
    (void)state;
    CHECK(f.p, &v, 0x04, 0x02, 0x61, 0x02, 0x02, 0x62, 0x04, 0x00);
    replan(&f, AVK_PLAN_BLOCK_SIZES, 1);
    CHECK(f.p, &v, 0x01, 0x06, 0x02, 0x61, 0x02, 0x01, 0x06, 0x02, 0x62, 0x04, 0x00);
    replan(&f, 0, 1);
    CHECK(f.p, &v, 0x02, 0x02, 0x61, 0x02, 0x02, 0x02, 0x62, 0x04, 0x00);

    /* Mismatches: a value, a key without data, no arrays at all. */
    v.u.map.values[1] = mk_str(prim(AVK_STRING), "x");
    check_fail(f.p, &v, AVK_ERR_INVALID_ARGUMENT, "map.values[1]");
    check_fail_msg(f.p, &v, "map.values[1]", "value is string, expected long");
    v.u.map.values[1] = mk_long(prim(AVK_LONG), 2);
    v.u.map.keys[0].data = NULL;
    check_fail(f.p, &v, AVK_ERR_INVALID_ARGUMENT, "map.keys[0]");
    check_fail_msg(f.p, &v, "map.keys[0]", "map key of 1 bytes has no data");
    free(v.u.map.keys);
    v.u.map.keys = NULL;
    check_fail(f.p, &v, AVK_ERR_INVALID_ARGUMENT, "map");
    v.u.map.count = 0;
    CHECK(f.p, &v, 0x00);
    done(&f);
    {
        fix g = fix_new(js, 0, 0);
        avk_value e = long_map(g.t, keys, vals, 0);
        CHECK(g.p, &e, 0x00);
        free(e.u.map.keys);
        done(&g);
    }
}

/* ---- streams, limits ----------------------------------------------------------------- */

/* A record with every compound kind, sized blocks of 2. */
static const char *mixed_schema =
    "{\"type\":\"record\",\"name\":\"M\",\"fields\":["
    "{\"name\":\"tags\",\"type\":{\"type\":\"array\",\"items\":\"string\"}},"
    "{\"name\":\"m\",\"type\":{\"type\":\"map\",\"values\":\"long\"}},"
    "{\"name\":\"nums\",\"type\":{\"type\":\"array\",\"items\":\"long\"}},"
    "{\"name\":\"u\",\"type\":[\"null\",\"string\"]}]}";

static avk_value mixed(const avk_type *t, size_t ntags)
{
    static const char *const keys[] = {"k1", "k2", "k3"};
    static const int64_t vals[] = {-1, 1000, 3};
    static int64_t nums[] = {5, -300, 7, 1LL << 40, 9};
    static char tagbuf[64][16];
    const char *tags[64];
    avk_value v = mk(t), *f = newv(4), *b = newv(1);
    size_t i;
    assert_true(ntags <= 64);
    for (i = 0; i < ntags; i++) {
        snprintf(tagbuf[i], sizeof tagbuf[i], "tag%zu", i * 37);
        tags[i] = tagbuf[i];
    }
    v.u.fields = f;
    f[0] = strings(field_type(t, 0), tags, ntags);
    f[1] = long_map(field_type(t, 1), keys, vals, 3);
    f[2] = typed_array(field_type(t, 2), nums, 5);
    f[3] = mk(field_type(t, 3));
    f[3].u.branch.index = 1;
    f[3].u.branch.value = b;
    *b = mk_str(prim(AVK_STRING), "end");
    return v;
}

/* Stream writers (which may flush mid-block) give the bytes of a memory
 * writer, for every buffer size. */
static void test_stream_equals_memory(void **state)
{
    unsigned flags;
    (void)state;
    for (flags = 0; flags <= AVK_PLAN_BLOCK_SIZES; flags += AVK_PLAN_BLOCK_SIZES) {
        size_t per;
        for (per = 0; per <= 3; per++) {
            avk_schema *s = AVKT_PARSE_RAW(mixed_schema);
            avk_plan *p = avkt_plan_new(avk_schema_root(s), flags, NULL, per);
            avk_value v = mixed(avk_schema_root(s), 40);
            avk_writer mw;
            const uint8_t *want;
            size_t want_len, buf;
            AVKT_OK(avk_writer_init_memory(&mw, NULL, NULL));
            AVKT_OK(avk_plan_encode(p, &v, &mw, NULL));
            AVKT_OK(avk_plan_encode(p, &v, &mw, NULL)); /* twice: the scratch is reused */
            want = avk_writer_data(&mw, &want_len);
            for (buf = 64; buf <= 4096; buf *= 4) {
                avkt_sink sink;
                avk_writer sw;
                avk_writer_options o;
                avkt_failalloc fa;
                avkt_failalloc_init(&fa, 0);
                memset(&o, 0, sizeof o);
                o.struct_size = sizeof o;
                o.buffer_size = buf;
                o.allocator = &fa.allocator;
                avkt_sink_init(&sink);
                AVKT_OK(avk_writer_init_sink(&sw, avkt_sink_write, &sink, &o, NULL));
                AVKT_OK(avk_plan_encode(p, &v, &sw, NULL));
                AVKT_OK(avk_plan_encode(p, &v, &sw, NULL));
                AVKT_OK(avk_writer_flush(&sw, NULL));
                avkt_assert_bytes(sink.data, sink.len, want, want_len);
                avk_writer_destroy(&sw);
                avkt_sink_destroy(&sink);
                assert_int_equal(fa.live_blocks, 0);
                assert_int_equal(fa.size_mismatches, 0);
            }
            check_encode(p, &v, want, want_len / 2);
            avk_writer_destroy(&mw);
            free(v.u.fields[1].u.map.keys);
            avk_plan_free(p);
            avk_schema_free(s);
        }
    }
}

/* A stream writer whose scratch cannot be allocated: NO_MEMORY, nothing
 * leaked; every allocation failing in turn. */
static void test_stream_scratch_no_memory(void **state)
{
    avk_schema *s = AVKT_PARSE_RAW(mixed_schema);
    avk_plan *p = avkt_plan_new(avk_schema_root(s), AVK_PLAN_BLOCK_SIZES, NULL, 2);
    avk_value v = mixed(avk_schema_root(s), 30);
    long n;
    (void)state;
    for (n = 1; n < 40; n++) {
        avkt_failalloc fa;
        avkt_sink sink;
        avk_writer sw;
        avk_writer_options o;
        avk_error err;
        avk_status st;
        avkt_failalloc_init(&fa, 0);
        memset(&o, 0, sizeof o);
        o.struct_size = sizeof o;
        o.buffer_size = 64;
        o.allocator = &fa.allocator;
        avkt_sink_init(&sink);
        AVKT_OK(avk_writer_init_sink(&sw, avkt_sink_write, &sink, &o, NULL));
        fa.fail_at = fa.calls + n;
        st = avk_plan_encode(p, &v, &sw, &err);
        if (st == AVK_OK) {
            avk_writer_destroy(&sw);
            avkt_sink_destroy(&sink);
            assert_int_equal(fa.live_blocks, 0);
            break;
        }
        AVKT_ASSERT_STATUS(st, AVK_ERR_NO_MEMORY);
        assert_true(strncmp(err.path, "M.fields[", 9) == 0);
        avk_writer_destroy(&sw);
        avkt_sink_destroy(&sink);
        assert_int_equal(fa.live_blocks, 0);
        assert_int_equal(fa.size_mismatches, 0);
    }
    assert_true(n > 1);
    free(v.u.fields[1].u.map.keys);
    avk_plan_free(p);
    avk_schema_free(s);
}

/* A memory writer with max_size: LIMIT when the value does not fit, the
 * writer as it was; a value that fits exactly encodes (sized blocks patch
 * in place without needing more room than the result). */
static void test_writer_limit(void **state)
{
    unsigned flags;
    (void)state;
    for (flags = 0; flags <= AVK_PLAN_BLOCK_SIZES; flags += AVK_PLAN_BLOCK_SIZES) {
        avk_schema *s = AVKT_PARSE_RAW(mixed_schema);
        avk_plan *p = avkt_plan_new(avk_schema_root(s), flags, NULL, 0);
        avk_value v = mixed(avk_schema_root(s), 40);
        avk_writer w;
        avk_writer_options o;
        avk_error err;
        size_t len, max;
        const uint8_t *data;
        AVKT_OK(avk_writer_init_memory(&w, NULL, NULL));
        AVKT_OK(avk_plan_encode(p, &v, &w, NULL));
        data = avk_writer_data(&w, &len);
        (void)data;
        avk_writer_destroy(&w);
        assert_true(len > 200);
        for (max = 64; max <= len; max++) {
            avk_status st;
            memset(&o, 0, sizeof o);
            o.struct_size = sizeof o;
            o.buffer_size = 64;
            o.max_size = max;
            AVKT_OK(avk_writer_init_memory(&w, &o, NULL));
            st = avk_plan_encode(p, &v, &w, &err);
            if (max < len) {
                size_t got;
                AVKT_ASSERT_STATUS(st, AVK_ERR_LIMIT);
                AVKT_ASSERT_STATUS(err.status, AVK_ERR_LIMIT);
                assert_true(strncmp(err.message, "M.", 2) == 0 && strncmp(err.path, "M.fields[", 9) == 0);
                avk_writer_data(&w, &got);
                assert_int_equal(got, 0);
            } else {
                AVKT_OK(st);
            }
            avk_writer_destroy(&w);
        }
        free(v.u.fields[1].u.map.keys);
        avk_plan_free(p);
        avk_schema_free(s);
    }
}

static void test_null_arguments(void **state)
{
    fix f = fix_new("\"long\"", 0, 0);
    avk_value v = mk_long(f.t, 1);
    avk_writer w;
    avk_error err;
    (void)state;
    AVKT_OK(avk_writer_init_memory(&w, NULL, NULL));
    AVKT_ASSERT_STATUS(avk_plan_encode(NULL, &v, &w, &err), AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_plan_encode(f.p, NULL, &w, &err), AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_plan_encode(f.p, &v, NULL, &err), AVK_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.path, "");
    avk_writer_destroy(&w);
    done(&f);
}

/* Records of 10 longs one after another, the benchmark's shape, against
 * bytes built with the single-value varint encoder. */
static void test_many_records(void **state)
{
    avk_schema *s;
    avk_plan *p;
    avk_writer w;
    avkt_rng rng = {42};
    uint8_t *want = (uint8_t *)malloc(1000 * 100);
    size_t n = 0, r, i, len;
    char js[1024];
    int used = snprintf(js, sizeof js, "{\"type\":\"record\",\"name\":\"L\",\"fields\":[");
    (void)state;
    for (i = 0; i < 10; i++)
        used += snprintf(js + used, sizeof js - (size_t)used, "%s{\"name\":\"f%zu\",\"type\":\"long\"}",
                         i ? "," : "", i);
    snprintf(js + used, sizeof js - (size_t)used, "]}");
    s = AVKT_PARSE_RAW(js);
    p = avkt_plan_new(avk_schema_root(s), 0, NULL, 0);
    AVKT_OK(avk_writer_init_memory(&w, NULL, NULL));
    for (r = 0; r < 1000; r++) {
        avk_value v = mk(avk_schema_root(s)), f[10];
        v.u.fields = f;
        for (i = 0; i < 10; i++) {
            f[i] = mk_long(prim(AVK_LONG), avkt_mixed_long(&rng));
            n += avk_varint_encode_long(want + n, f[i].u.l);
        }
        AVKT_OK(avk_plan_encode(p, &v, &w, NULL));
    }
    {
        const uint8_t *data = avk_writer_data(&w, &len);
        avkt_assert_bytes(data, len, want, n);
    }
    avk_writer_destroy(&w);
    free(want);
    avk_plan_free(p);
    avk_schema_free(s);
}

static void test_wide_varint_runs(void **state)
{
    fix f = fix_new(avkt_wide_varint_schema(), 0, 0);
    avkt_rng rng = {9};
    uint8_t want[600];
    size_t n = 0, i, r;
    (void)state;
    for (r = 0; r < 50; r++) {
        avk_value v = mk(f.t), *fl = newv(40);
        n = 0;
        v.u.fields = fl;
        for (i = 0; i < 40; i++) {
            fl[i] = mk(field_type(f.t, i));
            if (i == 35) {
                fl[i].u.bytes.data = (const uint8_t *)"str";
                fl[i].u.bytes.len = 3;
                want[n++] = 6;
                memcpy(want + n, "str", 3);
                n += 3;
            } else if (i % 3 == 1) {
                fl[i].u.i = avkt_mixed_int(&rng);
                n += avk_varint_encode_int(want + n, fl[i].u.i);
            } else {
                fl[i].u.l = avkt_mixed_long(&rng);
                n += avk_varint_encode_long(want + n, fl[i].u.l);
            }
        }
        check_encode(f.p, &v, want, n);
        if (r == 0) {
            /* A wrong kind inside a run, and past the first 32. */
            fl[5].type = prim(AVK_STRING);
            check_fail(f.p, &v, AVK_ERR_INVALID_ARGUMENT, "W.fields[5]");
            fl[5].type = field_type(f.t, 5);
            fl[34].type = prim(AVK_LONG); /* field 34 is an int */
            check_fail(f.p, &v, AVK_ERR_INVALID_ARGUMENT, "W.fields[34]");
            check_fail_msg(f.p, &v, "W.fields[34]", "value is long, expected int");
            fl[34].type = field_type(f.t, 34);
            fl[0].type = NULL;
            check_fail(f.p, &v, AVK_ERR_INVALID_ARGUMENT, "W.fields[0]");
            fl[0].type = field_type(f.t, 0);
        }
    }
    /* Near a memory writer's max_size: LIMIT with the path of the run. */
    {
        avk_value v = mk(f.t), *fl = newv(40);
        avk_writer w;
        avk_writer_options o;
        avk_error err;
        v.u.fields = fl;
        for (i = 0; i < 40; i++) {
            fl[i] = mk(field_type(f.t, i));
            if (i == 35)
                fl[i].u.bytes.data = (const uint8_t *)"";
            else if (i % 3 == 1)
                fl[i].u.i = INT32_MIN;
            else
                fl[i].u.l = INT64_MIN;
        }
        memset(&o, 0, sizeof o);
        o.struct_size = sizeof o;
        o.max_size = 100;
        AVKT_OK(avk_writer_init_memory(&w, &o, NULL));
        AVKT_ASSERT_STATUS(avk_plan_encode(f.p, &v, &w, &err), AVK_ERR_LIMIT);
        /* Fields 0 (long) and 1 (int) fit and go out one by one; the run of
         * 32 varints from field 2 is what passes max_size. */
        assert_string_equal(err.path, "W.fields[2]");
        avk_writer_data(&w, &n);
        assert_int_equal(n, 0);
        avk_writer_destroy(&w);
    }
    done(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(avkt_test_kernel_choice),
        cmocka_unit_test(test_null_boolean),
        cmocka_unit_test(test_int_long),
        cmocka_unit_test(test_float_double),
        cmocka_unit_test(test_bytes_string),
        cmocka_unit_test(test_enum_fixed),
        cmocka_unit_test(test_record_union),
        cmocka_unit_test(test_record_mismatches),
        cmocka_unit_test(test_paths_through_inline_values),
        cmocka_unit_test(test_recursive_list),
        cmocka_unit_test(test_long_array_blocks),
        cmocka_unit_test(test_typed_arrays),
        cmocka_unit_test(test_boxed_arrays),
        cmocka_unit_test(test_sized_block_moves),
        cmocka_unit_test(test_nested_sized_arrays),
        cmocka_unit_test(test_maps),
        cmocka_unit_test(test_stream_equals_memory),
        cmocka_unit_test(test_stream_scratch_no_memory),
        cmocka_unit_test(test_writer_limit),
        cmocka_unit_test(test_null_arguments),
        cmocka_unit_test(test_many_records),
        cmocka_unit_test(test_wide_varint_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
