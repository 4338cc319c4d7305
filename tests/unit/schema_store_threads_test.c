/* Unit tests for the schema store shared by threads: racing adds of the same and different schemas, lookups through a fetch callback, first plan compiles, decoders of their own; every result checked exactly. */
#define _DEFAULT_SOURCE 1
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "avkt.h"
#include "avrokit/message.h"

#define THREADS 12
#define SCHEMAS 8
#define ROUNDS 60

/* Writer schema k: record ex.R {a: int, b: string, x0..x(k-1): long};
 * every one resolves to the reader ex.R {a: long, b: string, d: string =
 * "dflt"} (its extra fields skipped). */
static char schema_text[SCHEMAS][1024];
static uint64_t schema_fp[SCHEMAS];
static const char reader_text[] =
    "{\"type\":\"record\",\"name\":\"R\",\"namespace\":\"ex\",\"fields\":["
    "{\"name\":\"a\",\"type\":\"long\"},{\"name\":\"b\",\"type\":\"string\"},"
    "{\"name\":\"d\",\"type\":\"string\",\"default\":\"dflt\"}]}";

/* Messages of schema k: single-object, Confluent with id k + 1, Confluent
 * with id 100 + k (a second id of the same schema, known to the fetch
 * callback only). */
typedef struct msg {
    uint8_t bytes[256];
    size_t len;
} msg;
static msg m_so[SCHEMAS], m_cf[SCHEMAS], m_cf2[SCHEMAS];

static avk_schema *reader_schema;
static avk_schema_store *store;
static atomic_int fetch_calls;
static pthread_barrier_t start;

typedef struct result {
    const avk_schema *added[SCHEMAS];
    const avk_plan *plan_plain[SCHEMAS];
    const avk_plan *plan_resolving[SCHEMAS];
    char failure[512];
} result;
static result results[THREADS];

static void make_schema(int k)
{
    int j, n;
    n = snprintf(schema_text[k], sizeof schema_text[k],
                 "{\"type\":\"record\",\"name\":\"R\",\"namespace\":\"ex\",\"fields\":["
                 "{\"name\":\"a\",\"type\":\"int\"},{\"name\":\"b\",\"type\":\"string\"}");
    for (j = 0; j < k; j++)
        n += snprintf(schema_text[k] + n, sizeof schema_text[k] - (size_t)n,
                      ",{\"name\":\"x%d\",\"type\":\"long\"}", j);
    snprintf(schema_text[k] + n, sizeof schema_text[k] - (size_t)n, "]}");
}

/* The datum of schema k: a = 10k + 1, b = "s<k>", xj = 1000j + k. */
static size_t make_datum(int k, uint8_t *out)
{
    avk_writer w;
    const uint8_t *d;
    size_t len;
    char b[8];
    int j;
    AVKT_OK(avk_writer_init_memory(&w, NULL, NULL));
    AVKT_OK(avk_writer_write_int(&w, 10 * k + 1, NULL));
    snprintf(b, sizeof b, "s%d", k);
    AVKT_OK(avk_writer_write_long(&w, (int64_t)strlen(b), NULL));
    AVKT_OK(avk_writer_write_raw(&w, b, strlen(b), NULL));
    for (j = 0; j < k; j++)
        AVKT_OK(avk_writer_write_long(&w, 1000 * j + k, NULL));
    d = avk_writer_data(&w, &len);
    memcpy(out, d, len);
    avk_writer_destroy(&w);
    return len;
}

static avk_status fetch(void *ctx, avk_schema_store *s, int by_id, uint64_t key,
                        avk_error *err)
{
    int k;
    (void)ctx;
    atomic_fetch_add(&fetch_calls, 1);
    for (k = 0; k < SCHEMAS; k++) {
        if ((by_id && (key == (uint64_t)k + 1 || key == (uint64_t)k + 100)) ||
            (!by_id && key == schema_fp[k]))
            return avk_schema_store_add(s, schema_text[k], strlen(schema_text[k]),
                                        by_id ? (int64_t)key : -1, NULL, err);
    }
    return AVK_ERR_NOT_FOUND;
}

#define CHECK(cond, ...)                                                                  \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            if (!r->failure[0])                                                           \
                snprintf(r->failure, sizeof r->failure, __VA_ARGS__);                     \
            return;                                                                       \
        }                                                                                 \
    } while (0)

static int string_is(const avk_value *v, const char *s)
{
    return v->u.bytes.len == strlen(s) && memcmp(v->u.bytes.data, s, v->u.bytes.len) == 0;
}

/* Checks out, decoded from a message of schema k, plain or resolved. */
static void check_value(result *r, const avk_value *out, int k, int resolved, const char *what)
{
    char b[8];
    int j;
    snprintf(b, sizeof b, "s%d", k);
    CHECK(avk_type_kind(out->type) == AVK_RECORD, "%s: not a record", what);
    if (resolved) {
        CHECK(out->type == avk_schema_root(reader_schema), "%s: not the reader's type", what);
        CHECK(out->u.fields[0].u.l == 10 * k + 1, "%s: a = %lld", what,
              (long long)out->u.fields[0].u.l);
        CHECK(string_is(&out->u.fields[1], b), "%s: b", what);
        CHECK(string_is(&out->u.fields[2], "dflt"), "%s: d", what);
    } else {
        CHECK(avk_type_field_count(out->type) == (size_t)k + 2, "%s: %zu fields", what,
              avk_type_field_count(out->type));
        CHECK(out->u.fields[0].u.i == 10 * k + 1, "%s: a = %d", what, out->u.fields[0].u.i);
        CHECK(string_is(&out->u.fields[1], b), "%s: b", what);
        for (j = 0; j < k; j++)
            CHECK(out->u.fields[2 + j].u.l == 1000 * j + k, "%s: x%d", what, j);
    }
}

static void run(result *r, int t)
{
    avk_message_decoder_options o;
    avk_message_decoder *dso = NULL, *dcf = NULL;
    avk_arena *a = NULL;
    avk_error err;
    int i;
    CHECK(avk_arena_new(NULL, &a, &err) == AVK_OK, "arena");
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.framing = AVK_FRAMING_SINGLE_OBJECT;
    o.store = store;
    CHECK(avk_message_decoder_new(&o, &dso, &err) == AVK_OK, "decoder: %s", err.message);
    o.framing = AVK_FRAMING_CONFLUENT;
    o.reader = avk_schema_root(reader_schema);
    CHECK(avk_message_decoder_new(&o, &dcf, &err) == AVK_OK, "decoder: %s", err.message);
    pthread_barrier_wait(&start);
    for (i = 0; i < ROUNDS; i++) {
        /* threads start at different schemas and go different ways */
        int k = (t % 2 == 0) ? (t + i) % SCHEMAS : (SCHEMAS * ROUNDS + t - i) % SCHEMAS;
        const avk_schema *s = NULL, *f = NULL;
        const avk_plan *p = NULL;
        avk_value out;
        avk_status st;
        char what[64];
        switch ((i + t) % 4) {
        case 0: /* add under its id */
            st = avk_schema_store_add(store, schema_text[k], strlen(schema_text[k]), k + 1, &s,
                                      &err);
            CHECK(st == AVK_OK, "add %d: %s", k, err.message);
            break;
        case 1: /* add without id */
            st = avk_schema_store_add(store, schema_text[k], strlen(schema_text[k]), -1, &s,
                                      &err);
            CHECK(st == AVK_OK, "add %d: %s", k, err.message);
            break;
        case 2: /* find by the second id, through the callback */
            st = avk_schema_store_find_id(store, (uint32_t)k + 100, &s, &err);
            CHECK(st == AVK_OK, "find id %d: %s", k + 100, err.message);
            break;
        default: /* find by fingerprint, through the callback */
            st = avk_schema_store_find_fingerprint(store, schema_fp[k], &s, &err);
            CHECK(st == AVK_OK, "find fingerprint %d: %s", k, err.message);
            break;
        }
        if (r->added[k])
            CHECK(r->added[k] == s, "schema %d: two pointers", k);
        r->added[k] = s;
        st = avk_schema_store_find_fingerprint(store, schema_fp[k], &f, &err);
        CHECK(st == AVK_OK && f == s, "schema %d: fingerprint gives another", k);
        /* plans, racing on first use */
        st = avk_schema_store_plan(store, s, NULL, &p, &err);
        CHECK(st == AVK_OK, "plan %d: %s", k, err.message);
        CHECK(!r->plan_plain[k] || r->plan_plain[k] == p, "plan %d changed", k);
        r->plan_plain[k] = p;
        st = avk_schema_store_plan(store, s, avk_schema_root(reader_schema), &p, &err);
        CHECK(st == AVK_OK, "resolving plan %d: %s", k, err.message);
        CHECK(!r->plan_resolving[k] || r->plan_resolving[k] == p, "resolving plan %d changed",
              k);
        r->plan_resolving[k] = p;
        /* messages */
        avk_arena_reset(a);
        snprintf(what, sizeof what, "thread %d single-object %d", t, k);
        st = avk_message_decode(dso, m_so[k].bytes, m_so[k].len, a, &out, &err);
        CHECK(st == AVK_OK, "%s: %s", what, err.message);
        CHECK(avk_message_decoder_writer(dso) == s, "%s: writer", what);
        CHECK(avk_message_decoder_plan(dso) == r->plan_plain[k], "%s: plan", what);
        check_value(r, &out, k, 0, what);
        snprintf(what, sizeof what, "thread %d confluent %d", t, k);
        st = avk_message_decode(dcf, m_cf[k].bytes, m_cf[k].len, a, &out, &err);
        CHECK(st == AVK_OK, "%s: %s", what, err.message);
        CHECK(avk_message_decoder_plan(dcf) == r->plan_resolving[k], "%s: plan", what);
        check_value(r, &out, k, 1, what);
        st = avk_message_decode(dcf, m_cf2[k].bytes, m_cf2[k].len, a, &out, &err);
        CHECK(st == AVK_OK, "%s (second id): %s", what, err.message);
        CHECK(avk_message_decoder_writer(dcf) == s, "%s: writer", what);
        check_value(r, &out, k, 1, what);
        if (r->failure[0])
            break;
    }
    avk_message_decoder_free(dso);
    avk_message_decoder_free(dcf);
    avk_arena_free(a);
}

typedef struct thread_arg {
    int t;
} thread_arg;

static void *thread_main(void *p)
{
    thread_arg *arg = (thread_arg *)p;
    run(&results[arg->t], arg->t);
    return NULL;
}

static void test_store_shared(void **state)
{
    avk_schema_store_options o;
    pthread_t th[THREADS];
    thread_arg args[THREADS];
    avk_error err;
    int t, k;
    (void)state;
    for (k = 0; k < SCHEMAS; k++) {
        avk_schema *s;
        uint8_t fp[32], datum[200];
        size_t n, dl;
        int j;
        make_schema(k);
        s = AVKT_PARSE_RAW(schema_text[k]);
        AVKT_OK(avk_type_fingerprint(avk_schema_root(s), AVK_FINGERPRINT_RABIN, fp, &n, NULL));
        schema_fp[k] = 0;
        for (j = 7; j >= 0; j--)
            schema_fp[k] = schema_fp[k] << 8 | fp[j];
        avk_schema_free(s);
        dl = make_datum(k, datum);
        avk_single_object_header(schema_fp[k], m_so[k].bytes);
        memcpy(m_so[k].bytes + 10, datum, dl);
        m_so[k].len = 10 + dl;
        avk_confluent_header((uint32_t)k + 1, m_cf[k].bytes);
        memcpy(m_cf[k].bytes + 5, datum, dl);
        m_cf[k].len = 5 + dl;
        avk_confluent_header((uint32_t)k + 100, m_cf2[k].bytes);
        memcpy(m_cf2[k].bytes + 5, datum, dl);
        m_cf2[k].len = 5 + dl;
    }
    reader_schema = AVKT_PARSE_RAW(reader_text);
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.fetch = fetch;
    AVKT_OK(avk_schema_store_new(&o, &store, &err));
    memset(results, 0, sizeof results);
    atomic_store(&fetch_calls, 0);
    assert_int_equal(pthread_barrier_init(&start, NULL, THREADS), 0);
    for (t = 0; t < THREADS; t++) {
        args[t].t = t;
        assert_int_equal(pthread_create(&th[t], NULL, thread_main, &args[t]), 0);
    }
    for (t = 0; t < THREADS; t++)
        assert_int_equal(pthread_join(th[t], NULL), 0);
    pthread_barrier_destroy(&start);
    for (t = 0; t < THREADS; t++)
        if (results[t].failure[0])
            fail_msg("thread %d: %s", t, results[t].failure);
    /* one schema per canonical form, the same pointers everywhere */
    assert_int_equal(avk_schema_store_count(store), SCHEMAS);
    for (k = 0; k < SCHEMAS; k++) {
        const avk_schema *s, *s2, *s3;
        const avk_plan *p, *pr;
        AVKT_OK(avk_schema_store_find_id(store, (uint32_t)k + 1, &s, &err));
        AVKT_OK(avk_schema_store_find_id(store, (uint32_t)k + 100, &s2, &err));
        AVKT_OK(avk_schema_store_find_fingerprint(store, schema_fp[k], &s3, &err));
        assert_ptr_equal(s, s2);
        assert_ptr_equal(s, s3);
        AVKT_OK(avk_schema_store_plan(store, s, NULL, &p, &err));
        AVKT_OK(avk_schema_store_plan(store, s, avk_schema_root(reader_schema), &pr, &err));
        assert_ptr_not_equal(p, pr);
        for (t = 0; t < THREADS; t++) {
            if (!results[t].added[k])
                continue;
            assert_ptr_equal(results[t].added[k], s);
            assert_ptr_equal(results[t].plan_plain[k], p);
            assert_ptr_equal(results[t].plan_resolving[k], pr);
        }
    }
    /* every schema was seen by every thread (each goes round all of them) */
    for (t = 0; t < THREADS; t++)
        for (k = 0; k < SCHEMAS; k++)
            assert_non_null(results[t].added[k]);
    /* the callback ran at least for the keys no add covered (ids 100 + k),
     * and at most once per lookup that missed */
    assert_true(atomic_load(&fetch_calls) >= SCHEMAS);
    print_message("  %d fetch calls for %d threads x %d rounds\n", atomic_load(&fetch_calls),
                  THREADS, ROUNDS);
    avk_schema_store_free(store);
    avk_schema_free(reader_schema);
}

/* Many stores made and freed on many threads at once, each used by its
 * own thread: nothing is shared but the library's first-use set-up. */
static void *own_store(void *p)
{
    int *ok = (int *)p, i;
    for (i = 0; i < 20; i++) {
        avk_schema_store *s;
        const avk_schema *a, *b;
        if (avk_schema_store_new(NULL, &s, NULL) != AVK_OK)
            return NULL;
        if (avk_schema_store_add(s, "\"int\"", 5, i, &a, NULL) != AVK_OK ||
            avk_schema_store_find_id(s, (uint32_t)i, &b, NULL) != AVK_OK || a != b) {
            avk_schema_store_free(s);
            return NULL;
        }
        avk_schema_store_free(s);
    }
    *ok = 1;
    return NULL;
}

static void test_stores_per_thread(void **state)
{
    pthread_t th[THREADS];
    int ok[THREADS] = {0}, t;
    (void)state;
    for (t = 0; t < THREADS; t++)
        assert_int_equal(pthread_create(&th[t], NULL, own_store, &ok[t]), 0);
    for (t = 0; t < THREADS; t++) {
        assert_int_equal(pthread_join(th[t], NULL), 0);
        assert_int_equal(ok[t], 1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(avkt_test_kernel_choice),
        cmocka_unit_test(test_store_shared),
        cmocka_unit_test(test_stores_per_thread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
