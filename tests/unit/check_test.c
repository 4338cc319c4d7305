/* Tests of avrokit/check.h: hostile inputs decoded by avk_plan_decode and by a hand-written "generated" decoder that uses only the public checks give the same status, offset, path and message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "avkt.h"
#include "io.h"

/* The schema both decoders read. Each field is one class of hostile input:
 * name a length, tags block counts of items that can be malformed (varints),
 * marks items of zero bytes, scores items that cannot be malformed (8 bytes
 * each, so a short input is refused up front). */
static const char USER[] = "{'type':'record','name':'User','fields':["
                           "{'name':'name','type':'string'},"
                           "{'name':'tags','type':{'type':'array','items':'long'}},"
                           "{'name':'marks','type':{'type':'array','items':'null'}},"
                           "{'name':'scores','type':{'type':'array','items':'double'}}]}";

/* ---- the "generated" decoder: public headers only ------------------------------------- */

/* What a code generator would emit for User, checking as the library does:
 * it keeps nothing (a real one would fill a struct) but reads every byte
 * the library's decoder reads. */
typedef struct gen {
    avk_reader *r;
    const avk_limits *lim;
    uint64_t empty; /* zero-byte items in this value */
    avk_check_path at;
    avk_error *err;
} gen;

static avk_status gen_string(gen *g)
{
    uint8_t payload[256];
    uint64_t off = avk_reader_offset(g->r);
    int64_t len;
    avk_status st = avk_reader_read_long(g->r, &len, g->err);
    if (st != AVK_OK)
        return st;
    st = avk_check_length(len, g->lim->max_bytes, avk_check_remaining(g->r), off, "string",
                          g->err);
    if (st != AVK_OK)
        return st;
    if ((uint64_t)len > sizeof payload) /* this test's strings are short */
        return avk_error_set(g->err, AVK_ERR_INVALID_ARGUMENT, off, "test string too long");
    /* The whole payload in one read, as the library reads a short one. */
    return avk_reader_read_raw(g->r, payload, (size_t)len, g->err);
}

/* One item of an array (null, long or double) at index i. */
static avk_status gen_item(gen *g, int kind, uint64_t i)
{
    avk_status st = AVK_OK;
    if (kind == 'l') {
        int64_t x;
        st = avk_reader_read_long(g->r, &x, g->err);
    } else if (kind == 'd') {
        double x;
        st = avk_reader_read_double(g->r, &x, g->err);
    }
    return st == AVK_OK ? st : avk_check_path_front(&g->at, AVK_PATH_ITEM, i, NULL, st);
}

/* An array of items of min_size bytes at least ('n' null 0, 'l' long 1, 'd' double 8). */
static avk_status gen_array(gen *g, int kind)
{
    uint64_t min_size = kind == 'n' ? 0 : kind == 'l' ? 1 : 8, n = 0;
    int may_be_malformed = kind == 'l';
    for (;;) {
        uint64_t off = avk_reader_offset(g->r), count, end, take, i;
        avk_status st = avk_check_read_block(g->r, off, &count, &end, g->err);
        if (st != AVK_OK || count == 0)
            return st;
        st = avk_check_items(g->lim, n, count, min_size, &g->empty, off, g->err);
        while (st == AVK_OK && count > 0) {
            st = avk_check_items_take(g->r, count, min_size, may_be_malformed, off, &take,
                                      g->err);
            for (i = 0; st == AVK_OK && i < take; i++)
                st = gen_item(g, kind, n + i);
            if (st == AVK_OK) {
                n += take;
                count -= take;
            }
        }
        if (st == AVK_OK)
            st = avk_check_block_end(g->r, off, end, g->err);
        if (st != AVK_OK)
            return st;
    }
}

static avk_status gen_user(gen *g)
{
    static const char *const names[] = {"name", "tags", "marks", "scores"};
    static const int kinds[] = {'s', 'l', 'n', 'd'};
    uint64_t f;
    for (f = 0; f < 4; f++) {
        avk_status st = kinds[f] == 's' ? gen_string(g) : gen_array(g, kinds[f]);
        if (st != AVK_OK)
            return avk_check_path_front(&g->at, AVK_PATH_FIELD, f, names[f], st);
    }
    return AVK_OK;
}

/* Decodes one User from r with the generated decoder. */
static avk_status gen_decode(avk_reader *r, const avk_limits *given, avk_error *err)
{
    avk_limits lim = *given;
    gen g;
    avk_status st;
    avk_check_limits(&lim);
    g.r = r;
    g.lim = &lim;
    g.empty = 0;
    g.err = err;
    avk_check_path_init(&g.at);
    st = gen_user(&g);
    if (st != AVK_OK)
        avk_check_path_report(err, "User", &g.at);
    return st;
}

/* ---- both decoders on the same bytes -------------------------------------------------- */

typedef struct outcome {
    avk_status st;
    avk_error err;
} outcome;

static void reader_over(avk_reader *r, avkt_source *src, const uint8_t *data, size_t len,
                        int stream)
{
    if (stream) {
        /* A byte a call: the reader knows nothing of what is still to come. */
        avkt_source_init(src, data, len, 1);
        AVKT_OK(avk_reader_init_source(r, avkt_source_read, src, NULL, NULL));
    } else {
        avk_reader_init_memory(r, data, len);
    }
}

static outcome run_generic(const uint8_t *data, size_t len, const avk_limits *lim, int stream)
{
    avk_schema *s = AVKT_PARSE(USER);
    avk_plan *p = avkt_plan_new(avk_schema_root(s), 0, lim, 0);
    avk_arena *a = NULL;
    avkt_source src;
    avk_reader r;
    avk_value v;
    outcome o;
    AVKT_OK(avk_arena_new(NULL, &a, NULL));
    reader_over(&r, &src, data, len, stream);
    memset(&o.err, 0, sizeof o.err);
    o.st = avk_plan_decode(p, &r, a, &v, &o.err);
    avk_reader_destroy(&r);
    avk_arena_free(a);
    avk_plan_free(p);
    avk_schema_free(s);
    return o;
}

static outcome run_generated(const uint8_t *data, size_t len, const avk_limits *lim, int stream)
{
    avkt_source src;
    avk_reader r;
    outcome o;
    reader_over(&r, &src, data, len, stream);
    memset(&o.err, 0, sizeof o.err);
    o.st = gen_decode(&r, lim, &o.err);
    avk_reader_destroy(&r);
    return o;
}

/* hex through both decoders, from a stream (stream 1) or memory (0): the
 * library's must give want at offset with path and message exactly, and
 * the generated one the same. */
static void expect_in(int stream, const char *hex, const avk_limits *lim, avk_status want,
                      uint64_t offset, const char *path, const char *message)
{
    static uint8_t data[1 << 12];
    avk_limits none;
    size_t len = avkt_unhex(hex, data, sizeof data);
    outcome g, h;
    memset(&none, 0, sizeof none);
    g = run_generic(data, len, lim ? lim : &none, stream);
    h = run_generated(data, len, lim ? lim : &none, stream);
    if (g.st != want || g.err.offset != offset || strcmp(g.err.path, path) != 0 ||
        strcmp(g.err.message, message) != 0)
        fail_msg("%s (%s), avk_plan_decode: %s at %llu, path \"%s\", \"%s\"; expected %s at "
                 "%llu, \"%s\", \"%s\"",
                 hex, stream ? "stream" : "memory", avk_status_name(g.st),
                 (unsigned long long)g.err.offset, g.err.path, g.err.message,
                 avk_status_name(want), (unsigned long long)offset, path, message);
    if (h.st != g.st || h.err.offset != g.err.offset || strcmp(h.err.path, g.err.path) != 0 ||
        strcmp(h.err.message, g.err.message) != 0)
        fail_msg("%s (%s), generated: %s at %llu, path \"%s\", \"%s\"; the library's: %s at "
                 "%llu, \"%s\", \"%s\"",
                 hex, stream ? "stream" : "memory", avk_status_name(h.st),
                 (unsigned long long)h.err.offset, h.err.path, h.err.message,
                 avk_status_name(g.st), (unsigned long long)g.err.offset, g.err.path,
                 g.err.message);
}

/* The same from memory and from a stream. */
static void expect_both(const char *hex, const avk_limits *lim, avk_status want, uint64_t offset,
                        const char *path, const char *message)
{
    expect_in(0, hex, lim, want, offset, path, message);
    expect_in(1, hex, lim, want, offset, path, message);
}

/* ---- hostile inputs ------------------------------------------------------------------- */

static void test_valid_input(void **state)
{
    outcome g, h;
    uint8_t data[64];
    /* "ab", tags [1, -1] in a sized block, marks [null] , scores [] */
    size_t len = avkt_unhex("04616203040201000200" "00", data, sizeof data);
    avk_limits none;
    (void)state;
    memset(&none, 0, sizeof none);
    g = run_generic(data, len, &none, 0);
    h = run_generated(data, len, &none, 0);
    AVKT_OK(g.st);
    AVKT_OK(h.st);
}

static void test_length_past_the_end(void **state)
{
    (void)state;
    /* name claims 10 bytes, 3 follow */
    expect_in(0, "14616263", NULL, AVK_ERR_TRUNCATED, 0, "User.fields[0]",
              "User.name: string length 10 but only 3 bytes remain");
    /* a stream cannot know: the payload's read runs out */
    expect_in(1, "14616263", NULL, AVK_ERR_TRUNCATED, 1, "User.fields[0]",
              "User.name: input ends before the 10 bytes wanted at offset 1");
}

static void test_negative_length(void **state)
{
    (void)state;
    expect_both("03", NULL, AVK_ERR_MALFORMED, 0, "User.fields[0]",
                "User.name: negative string length -2");
    /* the most negative length there is */
    expect_both("ffffffffffffffffff01", NULL, AVK_ERR_MALFORMED, 0, "User.fields[0]",
                "User.name: negative string length -9223372036854775808");
}

static void test_length_over_max_bytes(void **state)
{
    avk_limits lim;
    (void)state;
    memset(&lim, 0, sizeof lim);
    lim.max_bytes = 16;
    expect_both("2200", &lim, AVK_ERR_LIMIT, 0, "User.fields[0]",
                "User.name: string length 17 is above max_bytes (16)");
}

static void test_huge_block_count(void **state)
{
    (void)state;
    /* 2^48 tags: more than max_items (64 Mi by default) */
    expect_both("00" "8080808080808001", NULL, AVK_ERR_LIMIT, 1, "User.fields[1]",
                "User.tags: collection of more than max_items (67108864) items");
    /* -2^63 items: cannot be negated */
    expect_both("00" "ffffffffffffffffff01", NULL, AVK_ERR_MALFORMED, 1, "User.fields[1]",
                "User.tags: block count -2^63 cannot be negated");
    /* a count the input cannot hold, of items that may be malformed: the
     * items that are there decode, the first missing one fails */
    expect_both("00" "d00f" "020406", NULL, AVK_ERR_TRUNCATED, 6, "User.fields[1].items[3]",
                "User.tags[3]: input ends inside a varint long (0 of at most 10 bytes present)");
    /* of items that cannot be malformed: refused before reading them (a
     * stream could not know; the library then reads the block in bulk,
     * which this generated decoder does not copy) */
    expect_in(0, "00" "00" "00" "c801" "0000000000000000", NULL, AVK_ERR_TRUNCATED, 3,
              "User.fields[3]",
              "User.scores: block of 100 items needs at least 800 bytes but only 8 remain");
}

static void test_block_sizes(void **state)
{
    (void)state;
    /* count -1 with size -5 */
    expect_both("00" "01" "09", NULL, AVK_ERR_MALFORMED, 1, "User.fields[1]",
                "User.tags: negative block size -5");
    /* count -1, size 5, but the one item takes 1 byte */
    expect_both("00" "01" "0a" "02" "0000000000" "00", NULL, AVK_ERR_MALFORMED, 1,
                "User.fields[1]",
                "User.tags: block byte size ends at offset 8 but its items end at 4");
}

static void test_zero_byte_item_flood(void **state)
{
    avk_limits lim;
    (void)state;
    /* 2^21 nulls cost no bytes: refused by max_empty_items (1 Mi) */
    expect_both("00" "00" "80808002", NULL, AVK_ERR_LIMIT, 2, "User.fields[2]",
                "User.marks: more than max_empty_items (1048576) zero-byte items");
    /* counted across blocks: 600 then 600 against a limit of 1000 */
    memset(&lim, 0, sizeof lim);
    lim.max_empty_items = 1000;
    expect_both("00" "00" "b009" "b009", &lim, AVK_ERR_LIMIT, 4, "User.fields[2]",
                "User.marks: more than max_empty_items (1000) zero-byte items");
}

/* ---- the path of a generated decoder -------------------------------------------------- */

static void test_path_report(void **state)
{
    avk_check_path at;
    avk_error err;
    uint64_t i;
    (void)state;
    /* as the decoder renders it: by index in path, by name in the message */
    avk_check_path_init(&at);
    memset(&err, 0, sizeof err);
    avk_error_set(&err, AVK_ERR_MALFORMED, 9, "reason");
    avk_check_path_front(&at, AVK_PATH_VALUE, 2, NULL, AVK_ERR_MALFORMED);
    avk_check_path_front(&at, AVK_PATH_BRANCH, 1, NULL, AVK_ERR_MALFORMED);
    assert_int_equal(avk_check_path_front(&at, AVK_PATH_FIELD, 3, "attrs", AVK_ERR_TRUNCATED),
                     AVK_ERR_TRUNCATED);
    avk_check_path_report(&err, "com.example.User", &at);
    assert_string_equal(err.path, "com.example.User.fields[3].branch[1].values[2]");
    assert_string_equal(err.message, "com.example.User.attrs.branch[1].values[2]: reason");
    assert_int_equal(err.status, AVK_ERR_MALFORMED);
    assert_int_equal(err.offset, 9);

    /* deeper than it keeps: the outer levels become one gap */
    avk_check_path_init(&at);
    avk_error_set(&err, AVK_ERR_LIMIT, 1, "deep");
    for (i = 0; i < AVK_CHECK_PATH_MAX + 5; i++)
        avk_check_path_front(&at, AVK_PATH_ITEM, i, NULL, AVK_ERR_LIMIT);
    avk_check_path_report(&err, "array", &at);
    assert_int_equal(strncmp(err.path, "array...(5 levels)....items[31].items[30]", 41), 0);
    assert_int_equal(strncmp(err.message, "array...(5 levels)...[31][30][29]", 33), 0);
    assert_non_null(strstr(err.path, ".items[1].items[0]"));
    assert_non_null(strstr(err.message, "[1][0]: deep"));

    /* resolving decoders: a skipped writer field, a writer branch read as a
     * non-union (as avk_plan_decode of a resolving plan renders them) */
    avk_check_path_init(&at);
    avk_error_set(&err, AVK_ERR_TRUNCATED, 4, "short");
    avk_check_path_front(&at, AVK_PATH_WRITER_FIELD, 2, "old", AVK_ERR_TRUNCATED);
    avk_check_path_front(&at, AVK_PATH_WRITER_BRANCH, 1, NULL, AVK_ERR_TRUNCATED);
    avk_check_path_front(&at, AVK_PATH_FIELD, 0, "inner", AVK_ERR_TRUNCATED);
    avk_check_path_report(&err, "Outer", &at);
    assert_string_equal(err.path, "Outer.fields[0].writer_branch[1].writer_field[2]");
    assert_string_equal(err.message, "Outer.inner.writer_branch[1].old: short");
}

/* However deep the path and long the reason, the path is shortened in its
 * middle so that both fit whole: err.path in its 255 bytes, the reason at
 * the end of err.message. (The marker "...(N levels)..." was counted a
 * byte short, so a path by index that filled its buffer to the byte wrote
 * its NUL over the message: "List.items[124]...: " with no reason; indexes
 * 4 apart at depth 32 did.) */
static void test_path_keeps_reason(void **state)
{
    static const char *const names[] = {"a", "next", "a_rather_long_field_name"};
    static const size_t rlens[] = {5, 40, 100};
    char reason[128];
    avk_check_path at;
    avk_error err;
    size_t depth, i, k, r, step, len;
    (void)state;
    for (r = 0; r < 3; r++) {
        memset(reason, 'r', rlens[r]);
        reason[rlens[r]] = 0;
        for (k = 0; k < 3; k++)
            for (step = 1; step <= 8; step++)
                for (depth = 1; depth <= AVK_CHECK_PATH_MAX + 3; depth++) {
                    avk_check_path_init(&at);
                    for (i = 0; i < depth; i++)
                        avk_check_path_front(&at, i % 2 ? AVK_PATH_ITEM : AVK_PATH_FIELD,
                                             i * step, names[k], AVK_ERR_MALFORMED);
                    avk_error_set(&err, AVK_ERR_MALFORMED, 0, "%s", reason);
                    avk_check_path_report(&err, "List", &at);
                    len = strlen(err.message);
                    if (memchr(err.path, 0, sizeof err.path) == NULL || len < rlens[r] + 2 ||
                        strncmp(err.message + len - rlens[r] - 2, ": ", 2) != 0 ||
                        strcmp(err.message + len - rlens[r], reason) != 0)
                        fail_msg("depth %zu, step %zu, name %s, reason of %zu bytes: path "
                                 "%.255s, message %s",
                                 depth, step, names[k], rlens[r], err.path, err.message);
                    assert_int_equal(strncmp(err.path, "List", 4), 0);
                }
    }
}

static void test_error_set(void **state)
{
    avk_error err;
    (void)state;
    memset(&err, 0x55, sizeof err);
    assert_int_equal(avk_error_set(&err, AVK_ERR_IO, AVK_OFFSET_UNKNOWN, "%s %d", "x", 7),
                     AVK_ERR_IO);
    assert_int_equal(err.status, AVK_ERR_IO);
    assert_int_equal(err.sys_errno, 0);
    assert_true(err.offset == AVK_OFFSET_UNKNOWN);
    assert_int_equal(err.block, -1);
    assert_string_equal(err.path, "");
    assert_string_equal(err.message, "x 7");
    assert_int_equal(avk_error_set(NULL, AVK_ERR_LIMIT, 0, "ignored"), AVK_ERR_LIMIT);
}

static void test_limits_defaults(void **state)
{
    avk_limits l;
    (void)state;
    memset(&l, 0, sizeof l);
    l.max_bytes = 5;
    avk_check_limits(&l);
    assert_int_equal(l.max_bytes, 5);
    assert_int_equal(l.max_depth, AVK_DEFAULT_MAX_DEPTH);
    assert_int_equal(l.max_items, (uint64_t)64 << 20);
    assert_int_equal(l.max_empty_items, (uint64_t)1 << 20);
    assert_int_equal(l.max_memory, (uint64_t)1 << 30);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(avkt_test_kernel_choice),
        cmocka_unit_test(test_valid_input),
        cmocka_unit_test(test_length_past_the_end),
        cmocka_unit_test(test_negative_length),
        cmocka_unit_test(test_length_over_max_bytes),
        cmocka_unit_test(test_huge_block_count),
        cmocka_unit_test(test_block_sizes),
        cmocka_unit_test(test_zero_byte_item_flood),
        cmocka_unit_test(test_path_report),
        cmocka_unit_test(test_path_keeps_reason),
        cmocka_unit_test(test_error_set),
        cmocka_unit_test(test_limits_defaults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
