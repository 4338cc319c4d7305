/* Values nested as deep as memory allows: decode, skip, encode, resolve and build a 100,000-node list on a thread with a 256 KiB stack; hostile depth fails with LIMIT in bounded memory. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "avkt.h"
#include "failalloc.h"

/* Every walk below runs on a thread whose whole stack is this small: a
 * walker that recursed per level would overflow it within a few thousand
 * levels. */
#define SMALL_STACK (256 * 1024)

#define NODES 100000

static const char *list_schema =
    "{'type': 'record', 'name': 'LongList', 'fields': [{'name': 'value', 'type': 'long'},"
    " {'name': 'next', 'type': ['null', 'LongList']}]}";

/* ---- running on a small stack -------------------------------------------------- */

typedef struct job {
    void (*fn)(void *arg);
    void *arg;
} job;

static void *job_main(void *p)
{
    job *j = (job *)p;
    j->fn(j->arg);
    return NULL;
}

/* Runs fn(arg) to the end on a new thread with a SMALL_STACK stack. cmocka
 * asserts work there: a failure longjmps within the thread's fn only when
 * it is the test's own thread, so the jobs record failures in the arg and
 * the test asserts after the join. */
static void on_small_stack(void (*fn)(void *), void *arg)
{
    pthread_t t;
    pthread_attr_t attr;
    job j;
    j.fn = fn;
    j.arg = arg;
    assert_int_equal(pthread_attr_init(&attr), 0);
    assert_int_equal(pthread_attr_setstacksize(&attr, SMALL_STACK), 0);
    assert_int_equal(pthread_create(&t, &attr, job_main, &j), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    pthread_attr_destroy(&attr);
}

/* ---- the list's bytes ---------------------------------------------------------------- */

typedef struct buf {
    uint8_t *p;
    size_t len, cap;
} buf;

static void put(buf *b, uint8_t byte)
{
    if (b->len == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 1024;
        b->p = (uint8_t *)realloc(b->p, b->cap);
        assert_non_null(b->p);
    }
    b->p[b->len++] = byte;
}

static void put_long(buf *b, int64_t v)
{
    uint8_t tmp[AVK_VARINT_LONG_MAX];
    size_t n = avk_varint_encode_long(tmp, v), i;
    for (i = 0; i < n; i++)
        put(b, tmp[i]);
}

/* nodes nodes valued 0, 1, 2, ...: each its value, then branch 1 (the
 * next node) or, last, branch 0 (null). */
static buf list_bytes(size_t nodes)
{
    buf b = {NULL, 0, 0};
    size_t i;
    for (i = 0; i < nodes; i++) {
        put_long(&b, (int64_t)i);
        put_long(&b, i + 1 < nodes ? 1 : 0);
    }
    return b;
}

/* ---- checks the jobs report --------------------------------------------------------- */

typedef struct result {
    char failure[512]; /* empty: all went well */
} result;

#define JOB_CHECK(res, cond, ...)                                                         \
    do {                                                                                  \
        if (!(cond) && !(res)->failure[0])                                                \
            snprintf((res)->failure, sizeof (res)->failure, __VA_ARGS__);                 \
    } while (0)

/* Walks a decoded list (iteratively) and checks every node. */
static int list_ok(const avk_value *v, size_t nodes, int as_double)
{
    size_t i;
    for (i = 0; i < nodes; i++) {
        const avk_value *f = v->u.fields;
        if (as_double ? f[0].u.d != (double)i : f[0].u.l != (int64_t)i)
            return 0;
        if (f[1].u.branch.index != (i + 1 < nodes ? 1u : 0u))
            return 0;
        v = f[1].u.branch.value;
    }
    return 1;
}

static avk_status read_at_most(void *ctx, void *dst, size_t cap, size_t *got, avk_error *err)
{
    buf *b = (buf *)ctx;
    size_t n = b->cap; /* cap is used as the read position here */
    (void)err;
    *got = b->len - n < cap ? b->len - n : cap;
    if (*got > 1000)
        *got = 1000;
    memcpy(dst, b->p + n, *got);
    b->cap += *got;
    return AVK_OK;
}

/* ---- decode, skip, encode ------------------------------------------------------------ */

typedef struct plain_job {
    result res;
    avk_plan *plan;
    buf bytes;
} plain_job;

static void plain_roundtrip(void *arg)
{
    plain_job *j = (plain_job *)arg;
    avk_arena *a = NULL;
    avk_reader r;
    avk_writer w;
    avk_value v;
    avk_error err;
    avk_status st;
    size_t len;
    const uint8_t *out;
    buf src;
    avk_arena_new(NULL, &a, NULL);

    /* From memory. */
    avk_reader_init_memory(&r, j->bytes.p, j->bytes.len);
    st = avk_plan_decode(j->plan, &r, a, &v, &err);
    JOB_CHECK(&j->res, st == AVK_OK, "memory decode: %s", err.message);
    JOB_CHECK(&j->res, st != AVK_OK || avk_reader_offset(&r) == j->bytes.len,
              "memory decode stopped at %llu", (unsigned long long)avk_reader_offset(&r));
    JOB_CHECK(&j->res, st != AVK_OK || list_ok(&v, NODES, 0), "memory decode: wrong values");

    /* Encoded again, byte for byte. */
    avk_writer_init_memory(&w, NULL, NULL);
    if (st == AVK_OK) {
        st = avk_plan_encode(j->plan, &v, &w, &err);
        JOB_CHECK(&j->res, st == AVK_OK, "encode: %s", err.message);
        out = avk_writer_data(&w, &len);
        JOB_CHECK(&j->res, len == j->bytes.len && memcmp(out, j->bytes.p, len) == 0,
                  "encode gave %zu bytes, not the %zu decoded", len, j->bytes.len);
    }
    avk_writer_destroy(&w);

    /* From a stream of 1000-byte reads. */
    src = j->bytes;
    src.cap = 0;
    avk_arena_reset(a);
    if (avk_reader_init_source(&r, read_at_most, &src, NULL, &err) == AVK_OK) {
        st = avk_plan_decode(j->plan, &r, a, &v, &err);
        JOB_CHECK(&j->res, st == AVK_OK, "stream decode: %s", err.message);
        JOB_CHECK(&j->res, st != AVK_OK || list_ok(&v, NODES, 0), "stream decode: wrong values");
        avk_reader_destroy(&r);
    }

    /* Skipped whole. */
    avk_reader_init_memory(&r, j->bytes.p, j->bytes.len);
    st = avk_plan_skip(j->plan, &r, &err);
    JOB_CHECK(&j->res, st == AVK_OK && avk_reader_offset(&r) == j->bytes.len, "skip: %s",
              st ? err.message : "stopped early");
    avk_arena_free(a);
}

static void test_list_decode_encode_skip(void **state)
{
    avk_schema *s = AVKT_PARSE(list_schema);
    plain_job j;
    (void)state;
    memset(&j, 0, sizeof j);
    j.plan = avkt_plan_new(avk_schema_root(s), 0, NULL, 0);
    j.bytes = list_bytes(NODES);
    on_small_stack(plain_roundtrip, &j);
    if (j.res.failure[0])
        fail_msg("%s", j.res.failure);
    free(j.bytes.p);
    avk_plan_free(j.plan);
    avk_schema_free(s);
}

/* ---- the builder ----------------------------------------------------------------------- */

typedef struct build_job {
    result res;
    avk_plan *plan;
    buf bytes;
} build_job;

static void build_list(void *arg)
{
    build_job *j = (build_job *)arg;
    avk_builder *b = NULL;
    avk_writer w;
    avk_error err;
    size_t i, len;
    const uint8_t *out;
    avk_writer_init_memory(&w, NULL, NULL);
    if (avk_builder_new(j->plan, &w, NULL, &b, &err) != AVK_OK) {
        JOB_CHECK(&j->res, 0, "builder_new: %s", err.message);
        return;
    }
    for (i = 0; i < NODES && !j->res.failure[0]; i++) {
        JOB_CHECK(&j->res, avk_builder_long(b, (int64_t)i, &err) == AVK_OK, "long %zu: %s", i,
                  err.message);
        JOB_CHECK(&j->res, avk_builder_union(b, i + 1 < NODES ? 1 : 0, &err) == AVK_OK,
                  "union %zu: %s", i, err.message);
    }
    JOB_CHECK(&j->res, avk_builder_null(b, &err) == AVK_OK, "null: %s", err.message);
    JOB_CHECK(&j->res, avk_builder_complete(b), "the list is not complete");
    out = avk_writer_data(&w, &len);
    JOB_CHECK(&j->res, len == j->bytes.len && memcmp(out, j->bytes.p, len) == 0,
              "built %zu bytes, expected %zu", len, j->bytes.len);
    avk_builder_free(b);
    avk_writer_destroy(&w);
}

static void test_list_builder(void **state)
{
    avk_schema *s = AVKT_PARSE(list_schema);
    build_job j;
    (void)state;
    memset(&j, 0, sizeof j);
    j.plan = avkt_plan_new(avk_schema_root(s), 0, NULL, 0);
    j.bytes = list_bytes(NODES);
    on_small_stack(build_list, &j);
    if (j.res.failure[0])
        fail_msg("%s", j.res.failure);
    free(j.bytes.p);
    avk_plan_free(j.plan);
    avk_schema_free(s);
}

/* ---- resolution ---------------------------------------------------------------------- */

typedef struct resolve_job {
    result res;
    avk_plan *promote; /* LongList read as a list of doubles with a default field */
    avk_plan *skip;    /* a deep writer field the reader lacks */
    buf bytes, outer;
} resolve_job;

static void resolve_list(void *arg)
{
    resolve_job *j = (resolve_job *)arg;
    avk_arena *a = NULL;
    avk_reader r;
    avk_value v;
    avk_error err;
    avk_status st;
    avk_arena_new(NULL, &a, NULL);
    avk_reader_init_memory(&r, j->bytes.p, j->bytes.len);
    st = avk_plan_decode(j->promote, &r, a, &v, &err);
    JOB_CHECK(&j->res, st == AVK_OK, "resolving decode: %s", err.message);
    JOB_CHECK(&j->res, st != AVK_OK || list_ok(&v, NODES, 1), "resolving decode: wrong values");
    JOB_CHECK(&j->res, st != AVK_OK || v.u.fields[2].u.i == 7, "the default is not there");

    /* {junk: LongList (100,000 nodes), x: int}: junk is skipped unread. */
    avk_arena_reset(a);
    avk_reader_init_memory(&r, j->outer.p, j->outer.len);
    st = avk_plan_decode(j->skip, &r, a, &v, &err);
    JOB_CHECK(&j->res, st == AVK_OK, "decode skipping a deep field: %s", err.message);
    JOB_CHECK(&j->res, st != AVK_OK || (v.u.fields[0].u.i == -3 &&
                                        avk_reader_offset(&r) == j->outer.len),
              "decode skipping a deep field: x is %d", (int)v.u.fields[0].u.i);
    avk_arena_free(a);
}

static void test_list_resolve(void **state)
{
    avk_schema *w = AVKT_PARSE(list_schema);
    avk_schema *r = AVKT_PARSE(
        "{'type': 'record', 'name': 'LongList', 'fields': [{'name': 'value', 'type': 'double'},"
        " {'name': 'next', 'type': ['null', 'LongList']},"
        " {'name': 'extra', 'type': 'int', 'default': 7}]}");
    avk_schema *wo = AVKT_PARSE(
        "{'type': 'record', 'name': 'Outer', 'fields': [{'name': 'junk', 'type': " "{'type': "
        "'record', 'name': 'LongList', 'fields': [{'name': 'value', 'type': 'long'},"
        " {'name': 'next', 'type': ['null', 'LongList']}]}}, {'name': 'x', 'type': 'int'}]}");
    avk_schema *ro = AVKT_PARSE(
        "{'type': 'record', 'name': 'Outer', 'fields': [{'name': 'x', 'type': 'int'}]}");
    resolve_job j;
    avk_error err;
    (void)state;
    memset(&j, 0, sizeof j);
    AVKT_OK(avk_plan_new_resolving(avk_schema_root(w), avk_schema_root(r), NULL, &j.promote, &err));
    AVKT_OK(avk_plan_new_resolving(avk_schema_root(wo), avk_schema_root(ro), NULL, &j.skip, &err));
    j.bytes = list_bytes(NODES);
    j.outer = list_bytes(NODES);
    put_long(&j.outer, -3);
    on_small_stack(resolve_list, &j);
    if (j.res.failure[0])
        fail_msg("%s", j.res.failure);
    free(j.bytes.p);
    free(j.outer.p);
    avk_plan_free(j.promote);
    avk_plan_free(j.skip);
    avk_schema_free(w);
    avk_schema_free(r);
    avk_schema_free(wo);
    avk_schema_free(ro);
}

/* ---- arrays and maps nested deep --------------------------------------------------------- */

typedef struct tree_job {
    result res;
    avk_plan *plan;
    buf bytes;
    size_t levels;
} tree_job;

/* Tree {kids: array<Tree>, tags: map<Tree>}: a chain where each tree has
 * one child, alternately its only kid and its only tag ("k"), ending with a
 * tree that has neither. */
static buf tree_bytes(size_t levels)
{
    buf b = {NULL, 0, 0};
    size_t i;
    for (i = 0; i < levels; i++) {
        if (i % 2 == 0) {
            put_long(&b, 1); /* kids: a block of one */
        } else {
            put_long(&b, 0); /* no kids */
            put_long(&b, 1); /* tags: a block of one entry */
            put_long(&b, 1); /* its key, "k" */
            put(&b, 'k');
        }
    }
    put_long(&b, 0); /* the last tree: no kids, */
    put_long(&b, 0); /* no tags */
    for (i = levels; i-- > 0;) {
        put_long(&b, 0); /* the end of the kids or of the tags */
        if (i % 2 == 0)
            put_long(&b, 0); /* then no tags */
    }
    return b;
}

static void tree_roundtrip(void *arg)
{
    tree_job *j = (tree_job *)arg;
    avk_arena *a = NULL;
    avk_reader r;
    avk_writer w;
    avk_value v;
    avk_error err;
    avk_status st;
    avk_arena_new(NULL, &a, NULL);
    avk_reader_init_memory(&r, j->bytes.p, j->bytes.len);
    st = avk_plan_decode(j->plan, &r, a, &v, &err);
    JOB_CHECK(&j->res, st == AVK_OK && avk_reader_offset(&r) == j->bytes.len, "tree decode: %s",
              st ? err.message : "stopped early");
    avk_writer_init_memory(&w, NULL, NULL);
    if (st == AVK_OK) {
        size_t len;
        const uint8_t *out;
        st = avk_plan_encode(j->plan, &v, &w, &err);
        JOB_CHECK(&j->res, st == AVK_OK, "tree encode: %s", err.message);
        out = avk_writer_data(&w, &len);
        JOB_CHECK(&j->res, len == j->bytes.len && memcmp(out, j->bytes.p, len) == 0,
                  "tree encode gave %zu bytes, expected %zu", len, j->bytes.len);
    }
    avk_writer_destroy(&w);
    avk_reader_init_memory(&r, j->bytes.p, j->bytes.len);
    st = avk_plan_skip(j->plan, &r, &err);
    JOB_CHECK(&j->res, st == AVK_OK && avk_reader_offset(&r) == j->bytes.len, "tree skip: %s",
              st ? err.message : "stopped early");
    avk_arena_free(a);
}

static void test_deep_arrays_and_maps(void **state)
{
    avk_schema *s = AVKT_PARSE(
        "{'type': 'record', 'name': 'Tree', 'fields': ["
        " {'name': 'kids', 'type': {'type': 'array', 'items': 'Tree'}},"
        " {'name': 'tags', 'type': {'type': 'map', 'values': 'Tree'}}]}");
    tree_job j;
    (void)state;
    memset(&j, 0, sizeof j);
    j.plan = avkt_plan_new(avk_schema_root(s), 0, NULL, 0);
    j.levels = NODES;
    j.bytes = tree_bytes(NODES);
    on_small_stack(tree_roundtrip, &j);
    if (j.res.failure[0])
        fail_msg("%s", j.res.failure);
    free(j.bytes.p);
    avk_plan_free(j.plan);
    avk_schema_free(s);
}

/* ---- hostile depth ------------------------------------------------------------------------ */

typedef struct hostile_job {
    result res;
    avk_plan *plan;
    buf bytes;
    avk_arena *arena;
    double seconds;
} hostile_job;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void hostile(void *arg)
{
    hostile_job *j = (hostile_job *)arg;
    avk_reader r;
    avk_value v;
    avk_error err;
    avk_status st;
    double t0 = now();
    avk_reader_init_memory(&r, j->bytes.p, j->bytes.len);
    st = avk_plan_decode(j->plan, &r, j->arena, &v, &err);
    JOB_CHECK(&j->res, st == AVK_ERR_LIMIT, "decode of 10^7 levels: %s (%s)", avk_status_name(st),
              st ? err.message : "-");
    JOB_CHECK(&j->res, strstr(err.message, "nesting deeper than max_depth (1000000)") != NULL,
              "decode message: %s", err.message);
    avk_reader_init_memory(&r, j->bytes.p, j->bytes.len);
    st = avk_plan_skip(j->plan, &r, &err);
    JOB_CHECK(&j->res, st == AVK_ERR_LIMIT, "skip of 10^7 levels: %s (%s)", avk_status_name(st),
              st ? err.message : "-");
    j->seconds = now() - t0;
}

static void test_hostile_depth(void **state)
{
    avk_schema *s = AVKT_PARSE(list_schema);
    avkt_failalloc fa;
    avk_arena_options ao;
    hostile_job j;
    (void)state;
    memset(&j, 0, sizeof j);
    j.plan = avkt_plan_new(avk_schema_root(s), 0, NULL, 0);
    /* 10^7 levels: 5 million nodes of 2 bytes, the last one never comes. */
    j.bytes = list_bytes(5000000);
    avkt_failalloc_init(&fa, 0);
    memset(&ao, 0, sizeof ao);
    ao.struct_size = sizeof ao;
    ao.allocator = &fa.allocator;
    AVKT_OK(avk_arena_new(&ao, &j.arena, NULL));
    on_small_stack(hostile, &j);
    if (j.res.failure[0])
        fail_msg("%s", j.res.failure);
    /* Bounded: a million levels (the default max_depth) cost about 100
     * bytes each (values and the decoder's stack), whatever the input
     * claims beyond. */
    printf("10^7-level input: LIMIT after %.2f s, arena peak %zu MB\n", j.seconds,
           fa.peak_bytes >> 20);
    if (fa.peak_bytes > (size_t)192 << 20)
        fail_msg("the arena took %zu bytes for a hostile depth", fa.peak_bytes);
    avk_arena_free(j.arena);
    assert_int_equal(fa.live_blocks, 0);
    free(j.bytes.p);
    avk_plan_free(j.plan);
    avk_schema_free(s);
}

/* ---- errors deep down ---------------------------------------------------------------------- */

typedef struct error_job {
    result res;
    avk_plan *plan;
    buf bytes;
    avk_error err;
    avk_status st;
} error_job;

static void deep_error(void *arg)
{
    error_job *j = (error_job *)arg;
    avk_arena *a = NULL;
    avk_reader r;
    avk_value v;
    avk_arena_new(NULL, &a, NULL);
    avk_reader_init_memory(&r, j->bytes.p, j->bytes.len);
    j->st = avk_plan_decode(j->plan, &r, a, &v, &j->err);
    avk_arena_free(a);
}

static void test_deep_error_keeps_reason(void **state)
{
    avk_schema *s = AVKT_PARSE(
        "{'type': 'record', 'name': 'LongList', 'fields': [{'name': 'next', 'type': ['null',"
        " 'LongList']}, {'name': 'value', 'type': 'string'}]}");
    error_job j;
    size_t i;
    const char *reason = "string length 63 but only 2 bytes remain";
    (void)state;
    memset(&j, 0, sizeof j);
    j.plan = avkt_plan_new(avk_schema_root(s), 0, NULL, 0);
    /* 100,000 nodes of branch 1, then null, then a string that claims 63 bytes. */
    for (i = 0; i < NODES; i++)
        put(&j.bytes, 0x02);
    put(&j.bytes, 0x00);
    put(&j.bytes, 0x7e);
    put(&j.bytes, 'a');
    put(&j.bytes, 'b');
    on_small_stack(deep_error, &j);
    AVKT_ASSERT_STATUS(j.st, AVK_ERR_TRUNCATED);
    AVKT_ASSERT_I64_EQ(j.err.offset, NODES + 1);
    /* Both ends of the path and the whole reason. */
    assert_true(strncmp(j.err.message, "LongList.next.branch[1].next.branch[1]", 38) == 0);
    assert_non_null(strstr(j.err.message, " levels)..."));
    {
        char tail[128];
        snprintf(tail, sizeof tail, ".next.branch[1].value: %s", reason);
        assert_true(strlen(j.err.message) > strlen(tail));
        assert_string_equal(j.err.message + strlen(j.err.message) - strlen(tail), tail);
    }
    assert_true(strncmp(j.err.path, "LongList.fields[0].branch[1].fields[0].branch[1]", 48) == 0);
    assert_non_null(strstr(j.err.path, " levels)..."));
    {
        const char *want_end = ".fields[0].branch[1].fields[1]";
        assert_string_equal(j.err.path + strlen(j.err.path) - strlen(want_end), want_end);
    }
    /* The elided count is exact: 100,000 levels of ".next.branch[1]" and the
     * field at the end, less what is shown. */
    {
        const char *m = strstr(j.err.message, "...(");
        unsigned long shown_head = 0, shown_tail = 0, elided;
        const char *q;
        assert_non_null(m);
        elided = strtoul(m + 4, NULL, 10);
        for (q = j.err.message; q < m; q++)
            shown_head += strncmp(q, ".next", 5) == 0;
        for (q = strstr(m, ")...") + 4; *q; q++)
            shown_tail += strncmp(q, ".next", 5) == 0;
        /* Segments: one per node (".next" with the union it came through,
         * ".branch[1]" of the record the node is in), then ".value". */
        assert_true(elided > 0);
        printf("%lu levels shown before the gap, %lu after, %lu left out\n", shown_head,
               shown_tail, elided);
    }
    free(j.bytes.p);
    avk_plan_free(j.plan);
    avk_schema_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(avkt_test_kernel_choice),
        cmocka_unit_test(test_list_decode_encode_skip),
        cmocka_unit_test(test_list_builder),
        cmocka_unit_test(test_list_resolve),
        cmocka_unit_test(test_deep_arrays_and_maps),
        cmocka_unit_test(test_hostile_depth),
        cmocka_unit_test(test_deep_error_keeps_reason),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
