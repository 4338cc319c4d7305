/* Plan-level regressions: value shapes the encoder must refuse, allocation before length checks, big schemas, limits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "avkt.h"
#include "failalloc.h"

/* A record value of another record type with fewer fields: the encoder
 * must refuse it rather than read past its fields. */
static void test_encode_refuses_other_shapes(void **state)
{
    avk_schema *three =
        AVKT_PARSE("{'type': 'record', 'name': 'R', 'fields': [{'name': 'a', 'type': "
                   "'string'}, {'name': 'b', 'type': 'string'}, {'name': 'c', 'type': "
                   "'string'}]}");
    avk_schema *one = AVKT_PARSE("{'type': 'record', 'name': 'R', 'fields': [{'name': 'a', 'type': "
                                 "'string'}]}");
    avk_schema *longs = AVKT_PARSE("{'type': 'array', 'items': 'long'}");
    avk_schema *strings = AVKT_PARSE("{'type': 'array', 'items': 'string'}");
    avk_schema *u3 = AVKT_PARSE("['null', 'int', 'string']");
    avk_plan *p3 = avkt_plan_new(avk_schema_root(three), 0, NULL, 0);
    avk_plan *pstr = avkt_plan_new(avk_schema_root(strings), 0, NULL, 0);
    avk_plan *pu = avkt_plan_new(avk_schema_root(u3), 0, NULL, 0);
    avk_arena *arena;
    avk_writer w;
    avk_value v;
    avk_error err;
    size_t n;
    int64_t items[3] = {1, 2, 3};
    (void)state;
    AVKT_OK(avk_arena_new(NULL, &arena, NULL));
    AVKT_OK(avk_writer_init_memory(&w, NULL, NULL));

    AVKT_OK(avk_value_init(&v, avk_schema_root(one), 0, arena, NULL));
    v.u.fields[0].u.bytes.data = (const uint8_t *)"x";
    v.u.fields[0].u.bytes.len = 1;
    AVKT_ASSERT_STATUS(avk_plan_encode(p3, &v, &w, &err), AVK_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.path, "R");
    assert_string_equal(err.message, "R: value's record has 1 fields, expected 3");
    avk_writer_data(&w, &n);
    assert_int_equal(n, 0);

    /* A typed array of longs where the plan stores boxed strings. */
    v.type = avk_schema_root(longs);
    v.u.array.items = items;
    v.u.array.count = 3;
    AVKT_ASSERT_STATUS(avk_plan_encode(pstr, &v, &w, &err), AVK_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "array: array items are long, expected string");

    /* A union of two branches where the plan has three. */
    {
        avk_schema *u2 = AVKT_PARSE("['null', 'int']");
        AVKT_OK(avk_value_init(&v, avk_schema_root(u2), 0, arena, NULL));
        AVKT_OK(avk_value_set_branch(&v, 0, arena, NULL));
        AVKT_ASSERT_STATUS(avk_plan_encode(pu, &v, &w, &err), AVK_ERR_INVALID_ARGUMENT);
        assert_string_equal(err.message, "union: value's union has 2 branches, expected 3");
        avk_schema_free(u2);
    }
    avk_writer_destroy(&w);
    avk_arena_free(arena);
    avk_plan_free(p3);
    avk_plan_free(pstr);
    avk_plan_free(pu);
    avk_schema_free(three);
    avk_schema_free(one);
    avk_schema_free(longs);
    avk_schema_free(strings);
    avk_schema_free(u3);
}

/* A fixed whose size (from the schema) is far more than the input: copying
 * decoders must say TRUNCATED before allocating it. */
static void test_fixed_checked_before_copy(void **state)
{
    avk_schema *s = AVKT_PARSE("{'type': 'fixed', 'name': 'F', 'size': 900000000}");
    avk_plan *p = avkt_plan_new(avk_schema_root(s), AVK_PLAN_COPY_STRINGS, NULL, 0);
    avk_arena *arena;
    avk_reader r;
    avk_value v;
    avk_error err;
    static const uint8_t in[3] = {1, 2, 3};
    (void)state;
    AVKT_OK(avk_arena_new(NULL, &arena, NULL));
    avk_reader_init_memory(&r, in, sizeof in);
    AVKT_ASSERT_STATUS(avk_plan_decode(p, &r, arena, &v, &err), AVK_ERR_TRUNCATED);
    assert_int_equal(err.offset, 0);
    assert_string_equal(err.path, "F");
    assert_int_equal(avk_arena_bytes(arena), 0);
    avk_arena_free(arena);
    avk_plan_free(p);
    avk_schema_free(s);
}

/* 60,000 named types compile quickly (the compiler looks named types up
 * in a hash table, not by scanning every node so far), and decode. */
static void test_many_named_types(void **state)
{
    enum { N = 60000 };
    size_t cap = (size_t)N * 80 + 100, len = 0, i;
    char *json = malloc(cap);
    avk_schema *s;
    avk_plan *p;
    avk_error err;
    clock_t t0;
    double secs;
    (void)state;
    assert_non_null(json);
    len += (size_t)snprintf(json + len, cap - len, "{\"type\": \"record\", \"name\": \"R\", \"fields\": [");
    for (i = 0; i < N; i++)
        len += (size_t)snprintf(json + len, cap - len,
                                "%s{\"name\": \"f%zu\", \"type\": {\"type\": \"fixed\", \"name\": "
                                "\"F%zu\", \"size\": 1}}",
                                i ? ", " : "", i, i);
    len += (size_t)snprintf(json + len, cap - len, "]}");
    if (avk_schema_parse(json, len, NULL, &s, &err) != AVK_OK)
        fail_msg("%s", err.message);
    t0 = clock();
    AVKT_OK(avk_plan_new(avk_schema_root(s), NULL, &p, NULL));
    secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    /* Linear work is a few milliseconds; the old quadratic search took
     * seconds at this size. 2 s leaves room for sanitizers and valgrind. */
    if (secs > 2.0)
        fail_msg("compiling %d named types took %.2f s", N, secs);
    {
        uint8_t *in = malloc(N);
        avk_arena *arena;
        avk_reader r;
        avk_value v;
        assert_non_null(in);
        for (i = 0; i < N; i++)
            in[i] = (uint8_t)i;
        AVKT_OK(avk_arena_new(NULL, &arena, NULL));
        avk_reader_init_memory(&r, in, N);
        AVKT_OK(avk_plan_decode(p, &r, arena, &v, NULL));
        assert_int_equal(v.u.fields[N - 1].u.bytes.data[0], (uint8_t)(N - 1));
        assert_int_equal(r.pos - in, N);
        avk_arena_free(arena);
        free(in);
    }
    avk_plan_free(p);
    avk_schema_free(s);
    free(json);
}

/* An arena that once hit its limit reports a later allocator failure as
 * NO_MEMORY, not LIMIT. */
static void test_limit_then_no_memory(void **state)
{
    avk_schema *s = AVKT_PARSE("'string'");
    avk_plan *p = avkt_plan_new(avk_schema_root(s), AVK_PLAN_COPY_STRINGS, NULL, 0);
    avkt_failalloc fa;
    avk_arena_options ao;
    avk_arena *arena;
    avk_reader r;
    avk_value v;
    avk_error err;
    uint8_t in[10010];
    (void)state;
    avkt_failalloc_init(&fa, 0);
    memset(&ao, 0, sizeof ao);
    ao.struct_size = sizeof ao;
    ao.allocator = &fa.allocator;
    ao.limit = 8192;
    AVKT_OK(avk_arena_new(&ao, &arena, NULL));
    memset(in, 'a', sizeof in);
    in[0] = 0xa0; /* 10000: zigzag 20000 = a0 9c 01 */
    in[1] = 0x9c;
    in[2] = 0x01;
    avk_reader_init_memory(&r, in, sizeof in);
    AVKT_ASSERT_STATUS(avk_plan_decode(p, &r, arena, &v, &err), AVK_ERR_LIMIT);
    avk_arena_reset(arena);
    /* Now a 1000-byte string, within the limit, with the allocator failing. */
    in[0] = 0xd0;
    in[1] = 0x0f;
    avk_reader_init_memory(&r, in, 1002);
    fa.fail_at = fa.calls + 1;
    fa.fail_all_after = 1;
    AVKT_ASSERT_STATUS(avk_plan_decode(p, &r, arena, &v, &err), AVK_ERR_NO_MEMORY);
    fa.fail_at = 0;
    fa.fail_all_after = 0;
    AVKT_OK(avk_plan_decode(p, (avk_reader_init_memory(&r, in, 1002), &r), arena, &v, &err));
    assert_int_equal(v.u.bytes.len, 1000);
    avk_arena_free(arena);
    assert_int_equal(fa.live_blocks, 0);
    avk_plan_free(p);
    avk_schema_free(s);
}

/* max_depth is the caller's: no walker recurses on the C stack, so any
 * value is taken, and the limit holds to the level. */
static void test_max_depth_any(void **state)
{
    avk_schema *s =
        AVKT_PARSE("{'type': 'record', 'name': 'L', 'fields': [{'name': 'next', 'type': "
                   "['null', 'L']}]}");
    avk_limits lim;
    avk_plan *p, *exact;
    enum { DEPTH = 600 };
    static uint8_t in[DEPTH + 1];
    avk_arena *arena;
    avk_reader r;
    avk_value v;
    avk_error err;
    size_t i;
    (void)state;
    memset(&lim, 0, sizeof lim);
    lim.max_depth = SIZE_MAX; /* the largest there is, 2^64-1 or 2^32-1 */
    p = avkt_plan_new(avk_schema_root(s), 0, &lim, 0);
    lim.max_depth = 1002;
    exact = avkt_plan_new(avk_schema_root(s), 0, &lim, 0);
    AVKT_OK(avk_arena_new(NULL, &arena, NULL));
    /* Each list node is a record and a union: two levels. 500 bytes of
     * branch 1 and a null are 501 nodes, 1002 levels (the last union holds
     * null but counts); 521 nodes are 1042. */
    for (i = 0; i < DEPTH; i++)
        in[i] = 2; /* branch 1: another L */
    in[500] = 0;
    avk_reader_init_memory(&r, in, 501);
    AVKT_OK(avk_plan_decode(exact, &r, arena, &v, &err));
    /* One level less is too few. */
    lim.max_depth = 1001;
    {
        avk_plan *under = avkt_plan_new(avk_schema_root(s), 0, &lim, 0);
        avk_reader_init_memory(&r, in, 501);
        AVKT_ASSERT_STATUS(avk_plan_decode(under, &r, arena, &v, &err), AVK_ERR_LIMIT);
        avk_reader_init_memory(&r, in, 501);
        AVKT_ASSERT_STATUS(avk_plan_skip(under, &r, &err), AVK_ERR_LIMIT);
        avk_plan_free(under);
    }
    in[500] = 2;
    in[520] = 0;
    avk_reader_init_memory(&r, in, 521);
    AVKT_OK(avk_plan_decode(p, &r, arena, &v, &err));
    avk_reader_init_memory(&r, in, 521);
    AVKT_OK(avk_plan_skip(p, &r, &err));
    avk_reader_init_memory(&r, in, 521);
    AVKT_ASSERT_STATUS(avk_plan_decode(exact, &r, arena, &v, &err), AVK_ERR_LIMIT);
    assert_string_equal(err.message + strlen(err.message) - strlen("nesting deeper than max_depth (1002)"),
                        "nesting deeper than max_depth (1002)");
    avk_reader_init_memory(&r, in, 521);
    AVKT_ASSERT_STATUS(avk_plan_skip(exact, &r, &err), AVK_ERR_LIMIT);
    avk_arena_free(arena);
    avk_plan_free(p);
    avk_plan_free(exact);
    avk_schema_free(s);
}

/* Arguments: NULLs and an options struct from an older header. */
static void test_plan_arguments(void **state)
{
    avk_schema *s = AVKT_PARSE("'long'");
    avk_plan_options o;
    avk_plan *p = (avk_plan *)&o;
    avk_error err;
    (void)state;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o - 1;
    AVKT_ASSERT_STATUS(avk_plan_new(avk_schema_root(s), &o, &p, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    assert_null(p);
    AVKT_ASSERT_STATUS(avk_plan_new(NULL, NULL, &p, &err), AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_plan_new(avk_schema_root(s), NULL, NULL, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_plan_decode(NULL, NULL, NULL, NULL, &err), AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_plan_skip(NULL, NULL, &err), AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_plan_encode(NULL, NULL, NULL, &err), AVK_ERR_INVALID_ARGUMENT);
    AVKT_OK(avk_plan_new(avk_schema_root(s), NULL, &p, &err));
    assert_ptr_equal(avk_plan_type(p), avk_schema_root(s));
    avk_plan_free(p);
    avk_plan_free(NULL);
    avk_schema_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(avkt_test_kernel_choice),
        cmocka_unit_test(test_encode_refuses_other_shapes),
        cmocka_unit_test(test_fixed_checked_before_copy),
        cmocka_unit_test(test_many_named_types),
        cmocka_unit_test(test_limit_then_no_memory),
        cmocka_unit_test(test_max_depth_any),
        cmocka_unit_test(test_plan_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
