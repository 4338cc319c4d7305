/* Code from `avrokit gen` for every valid schema of the apache data against the generic plan: tables, random round trips, skip, truncation, hostile bytes, limits, depth, container files. */
#define _DEFAULT_SOURCE 1
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "avkt.h"
#include "gen_registry.h"
#include "multi_a.h" /* tests/gen/data/multi_{a,b}.avsc, one run with --copy-strings */
#include "multi_b.h"
#include "guard.h"
#include "io.h"
#include "random_value.h"

#ifndef GEN_TEST_TMP
#define GEN_TEST_TMP "."
#endif

/* The generated decoders' own depth cap (AVK_GEN_MAX_DEPTH in the spec):
 * they recurse in C, so without a lower limits->max_depth they stop here. */
#define GEN_MAX_DEPTH 10000

/* Random values per schema: all are round-tripped; the first few are also
 * cut at every length and damaged at every position. */
#define RANDOM_VALUES 24
#define RANDOM_CUT 4

/* Under an emulator (AVKT_EMULATED, cmake/runnable.cmake), where this runs
 * 10 to 50 times slower, the damage sweeps take every third schema of
 * those they take natively. */
static size_t thin(void)
{
    return getenv("AVKT_EMULATED") ? 3 : 1;
}

/* ---- the schemas, parsed once --------------------------------------------------------- */

typedef struct parsed {
    avk_schema *schema;
    const avk_type *root;
    avk_plan *plan; /* default flags and limits */
    char *text;     /* the .avsc as written */
    size_t text_len;
} parsed;

static parsed *all;

static int setup(void **state)
{
    (void)state;
    all = (parsed *)calloc(gen_case_count ? gen_case_count : 1, sizeof *all);
    if (!all)
        return -1;
    for (size_t i = 0; i < gen_case_count; i++) {
        const gen_case *c = &gen_cases[i];
        avk_error err;
        all[i].text = avkt_read_file(c->schema_path, &all[i].text_len);
        if (!all[i].text) {
            fprintf(stderr, "gen_test: cannot read %s\n", c->schema_path);
            return -1;
        }
        if (avk_schema_parse(all[i].text, all[i].text_len, NULL, &all[i].schema, &err) != AVK_OK ||
            avk_plan_new(avk_schema_root(all[i].schema), NULL, &all[i].plan, &err) != AVK_OK) {
            fprintf(stderr, "gen_test: %s (%s): %s\n", c->id, c->origin, err.message);
            return -1;
        }
        all[i].root = avk_schema_root(all[i].schema);
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (size_t i = 0; i < gen_case_count; i++) {
        avk_plan_free(all[i].plan);
        avk_schema_free(all[i].schema);
        free(all[i].text);
    }
    free(all);
    return 0;
}

static avk_arena *arena_new(void)
{
    avk_arena *a = NULL;
    AVKT_OK(avk_arena_new(NULL, &a, NULL));
    return a;
}

/* ---- one decode, generic or generated ------------------------------------------------- */

typedef struct outcome {
    avk_status status;
    avk_error err;
    uint64_t consumed; /* reader offset after the call */
    avk_value value;   /* when status is AVK_OK: the value (generated: through FN_to_value) */
    void *obj;         /* generated: the decoded object */
} outcome;

static void generic_decode(size_t ci, const avk_limits *limits, const uint8_t *p, size_t len,
                           avk_arena *a, outcome *o)
{
    avk_plan *plan = all[ci].plan;
    avk_reader r;
    memset(o, 0, sizeof *o);
    if (limits)
        plan = avkt_plan_new(all[ci].root, 0, limits, 0);
    avk_reader_init_memory(&r, p, len);
    o->status = avk_plan_decode(plan, &r, a, &o->value, &o->err);
    o->consumed = avk_reader_offset(&r);
    if (limits)
        avk_plan_free(plan);
}

/* mode 0: FN_decode; 1: FN_decode_limits(limits). */
static void generated_decode(size_t ci, int mode, const avk_limits *limits, const uint8_t *p,
                             size_t len, avk_arena *a, outcome *o)
{
    const gen_case *c = &gen_cases[ci];
    avk_reader r;
    memset(o, 0, sizeof *o);
    avk_reader_init_memory(&r, p, len);
    o->status = c->decode(&r, a, mode, limits, &o->obj, &o->err);
    o->consumed = avk_reader_offset(&r);
    if (o->status == AVK_OK) {
        avk_error err;
        avk_status s = c->to_value(o->obj, all[ci].root, a, &o->value, &err);
        if (s != AVK_OK)
            fail_msg("%s (%s): %s_to_value of a decoded value: %s: %s", c->id, c->origin, c->fn,
                     avk_status_name(s), err.message);
    }
}

/* Differences between the decoders found by the running test: each is
 * printed whole (the first few of a test), and the test fails at its end
 * (no_mismatches), so one run lists them. */
#define MISMATCHES_SHOWN 8
static size_t mismatches;

static void mismatch(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void mismatch(const char *fmt, ...)
{
    va_list ap;
    if (mismatches++ >= MISMATCHES_SHOWN)
        return;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static void no_mismatches(void)
{
    size_t n = mismatches;
    mismatches = 0;
    if (n)
        fail_msg("%zu decodes differ from the generic decoder's (the first %d above)", n,
                 MISMATCHES_SHOWN);
}

/* Counts a mismatch unless the generated decode did what the generic one
 * did: the same status, and then the same offset, path and message, or the
 * same bytes consumed and an equal value. Returns 1 when they agree. */
static int same_outcome(size_t ci, const char *what, const outcome *g, const outcome *x)
{
    const gen_case *c = &gen_cases[ci];
    if (g->status != x->status ||
        (g->status != AVK_OK &&
         (g->err.status != g->status || x->err.status != x->status ||
          g->err.offset != x->err.offset || strcmp(g->err.path, x->err.path) != 0 ||
          strcmp(g->err.message, x->err.message) != 0))) {
        mismatch("%s (%s): %s:\n  generic   %s at %llu, path '%s': %s\n  generated %s at %llu, "
                 "path '%s': %s",
                 c->id, c->origin, what, avk_status_name(g->status),
                 (unsigned long long)g->err.offset, g->status ? g->err.path : "",
                 g->status ? g->err.message : "", avk_status_name(x->status),
                 (unsigned long long)x->err.offset, x->status ? x->err.path : "",
                 x->status ? x->err.message : "");
        return 0;
    }
    if (g->status == AVK_OK) {
        if (g->consumed != x->consumed) {
            mismatch("%s (%s): %s: generic decode consumed %llu bytes, generated %llu", c->id,
                     c->origin, what, (unsigned long long)g->consumed,
                     (unsigned long long)x->consumed);
            return 0;
        }
        if (!avk_value_equal(&g->value, &x->value)) {
            mismatch("%s (%s): %s: generated decode gives another value than the generic one",
                     c->id, c->origin, what);
            return 0;
        }
    }
    return 1;
}

/* Both decoders on p[0..len) (a guarded copy: reading past the end
 * crashes), with limits (NULL: defaults; the generated decoder then runs
 * both as FN_decode and as FN_decode_limits(NULL)). Returns the generic
 * status. */
static avk_status compare_decoders(size_t ci, const char *what, const avk_limits *limits,
                                   const uint8_t *p, size_t len)
{
    avkt_guard guard = {0};
    const uint8_t *in = avkt_guard_copy(&guard, p, len);
    avk_arena *a = arena_new();
    outcome g, x;
    assert_non_null(in);
    generic_decode(ci, limits, in, len, a, &g);
    generated_decode(ci, 1, limits, in, len, a, &x);
    same_outcome(ci, what, &g, &x);
    if (!limits) {
        generated_decode(ci, 0, NULL, in, len, a, &x);
        same_outcome(ci, what, &g, &x);
    }
    avk_arena_free(a);
    avkt_guard_free(&guard);
    return g.status;
}

/* ---- bytes ----------------------------------------------------------------------------- */

typedef struct buf {
    uint8_t *p;
    size_t len;
} buf;

static buf take(avk_writer *w)
{
    size_t len;
    const uint8_t *d = avk_writer_data(w, &len);
    buf b = {(uint8_t *)malloc(len ? len : 1), len};
    assert_non_null(b.p);
    if (len)
        memcpy(b.p, d, len);
    avk_writer_destroy(w);
    return b;
}

static buf generic_encode(size_t ci, const avk_value *v)
{
    avk_writer w;
    avk_error err;
    avk_status s;
    AVKT_OK(avk_writer_init_memory(&w, NULL, NULL));
    s = avk_plan_encode(all[ci].plan, v, &w, &err);
    if (s != AVK_OK)
        fail_msg("%s: avk_plan_encode: %s", gen_cases[ci].id, err.message);
    return take(&w);
}

static buf generated_encode(size_t ci, const void *obj)
{
    const gen_case *c = &gen_cases[ci];
    avk_writer w;
    avk_error err;
    avk_status s;
    AVKT_OK(avk_writer_init_memory(&w, NULL, NULL));
    s = c->encode(obj, &w, &err);
    if (s != AVK_OK)
        fail_msg("%s (%s): %s_encode: %s: %s", c->id, c->origin, c->fn, avk_status_name(s),
                 err.message);
    return take(&w);
}

static void *from_value(size_t ci, const avk_value *v, avk_arena *a)
{
    const gen_case *c = &gen_cases[ci];
    void *obj = NULL;
    avk_error err;
    avk_status s = c->from_value(v, a, &obj, &err);
    if (s != AVK_OK)
        fail_msg("%s (%s): %s_from_value: %s: %s", c->id, c->origin, c->fn, avk_status_name(s),
                 err.message);
    return obj;
}

static void same_bytes(size_t ci, const char *what, buf got, const uint8_t *want, size_t want_len)
{
    if (got.len != want_len || (want_len && memcmp(got.p, want, want_len) != 0)) {
        print_error("%s (%s): %s\n", gen_cases[ci].id, gen_cases[ci].origin, what);
        avkt_assert_bytes(got.p, got.len, want, want_len);
    }
}

/* A random value of case ci, the n-th of the case's stream (memory from a). */
static void random_value(size_t ci, avkcli_rng *rng, avk_arena *a, avk_value *v)
{
    avk_error err;
    avk_status s = avkcli_random_value(all[ci].root, rng, a, v, &err);
    if (s != AVK_OK)
        fail_msg("%s (%s): no random value: %s", gen_cases[ci].id, gen_cases[ci].origin,
                 err.message);
}

static void seed(avkcli_rng *rng, size_t ci)
{
    avkcli_rng_seed(rng, 0x67656e00u + ci);
}

/* The encodings the cut and damage tests work on: the table rows, then
 * the first RANDOM_CUT random values. Returns how many (at most cap). */
static size_t encodings(size_t ci, buf *out, size_t cap)
{
    const gen_case *c = &gen_cases[ci];
    size_t n = 0;
    avkcli_rng rng;
    avk_arena *a = arena_new();
    for (size_t h = 0; h < c->hex_count && n < cap; h++) {
        size_t len = strlen(c->hex[h]) / 2;
        out[n].p = (uint8_t *)malloc(len + 1);
        assert_non_null(out[n].p);
        out[n].len = avkt_unhex(c->hex[h], out[n].p, len + 1);
        n++;
    }
    seed(&rng, ci);
    for (int k = 0; k < RANDOM_CUT && n < cap; k++) {
        avk_value v;
        random_value(ci, &rng, a, &v);
        out[n++] = generic_encode(ci, &v);
    }
    avk_arena_free(a);
    return n;
}

static void free_bufs(buf *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(b[i].p);
}

/* ---- the tests ------------------------------------------------------------------------- */

/* --list named one pair per schema; FN_schema_json gives the .avsc text. */
static void test_schema_json(void **state)
{
    (void)state;
    for (size_t ci = 0; ci < gen_case_count; ci++) {
        const gen_case *c = &gen_cases[ci];
        const char *json = c->schema_json();
        avk_schema *s = NULL;
        avk_error err;
        assert_non_null(json);
        if (strcmp(json, all[ci].text) != 0)
            fail_msg("%s (%s): %s_schema_json() is not the schema file's text:\n%s\n---\n%s", c->id,
                     c->origin, c->fn, json, all[ci].text);
        AVKT_OK(avk_schema_parse(json, strlen(json), NULL, &s, &err));
        assert_true(avk_type_equal(avk_schema_root(s), all[ci].root));
        avk_schema_free(s);
    }
    print_message("%zu schemas generated, compiled (C11 and C++17) and linked\n", gen_case_count);
}

/* (a) tables/py_io_schema_datum_binary.json: the generated decoder reads
 * each row's bytes as the generic one does, and FN_from_value of the
 * generic value encodes to the row's bytes exactly. */
static void test_tables(void **state)
{
    size_t rows = 0;
    (void)state;
    mismatches = 0;
    for (size_t ci = 0; ci < gen_case_count; ci++) {
        const gen_case *c = &gen_cases[ci];
        for (size_t h = 0; h < c->hex_count; h++) {
            size_t cap = strlen(c->hex[h]) / 2 + 1, len;
            uint8_t *row = (uint8_t *)malloc(cap);
            avk_arena *a = arena_new();
            outcome g, x;
            char what[64];
            assert_non_null(row);
            len = avkt_unhex(c->hex[h], row, cap);
            snprintf(what, sizeof what, "table row %zu", h);
            generic_decode(ci, NULL, row, len, a, &g);
            AVKT_OK(g.status);
            AVKT_ASSERT_I64_EQ(g.consumed, len);
            generated_decode(ci, 0, NULL, row, len, a, &x);
            same_outcome(ci, what, &g, &x);
            AVKT_ASSERT_I64_EQ(compare_decoders(ci, what, NULL, row, len), AVK_OK);
            buf e = generated_encode(ci, from_value(ci, &g.value, a));
            same_bytes(ci, what, e, row, len);
            free(e.p);
            e = generated_encode(ci, x.obj);
            same_bytes(ci, what, e, row, len);
            free(e.p);
            avk_arena_free(a);
            free(row);
            rows++;
        }
    }
    print_message("%zu table rows decode and encode as the generic plan does\n", rows);
    assert_true(rows >= 30);
    no_mismatches();
}

/* (b) Random values: generic encode -> generated decode (memory and
 * stream readers) -> generated encode gives the same bytes, and
 * FN_from_value -> FN_encode does too. */
static void test_random_round_trip(void **state)
{
    size_t values = 0;
    (void)state;
    mismatches = 0;
    for (size_t ci = 0; ci < gen_case_count; ci++) {
        const gen_case *c = &gen_cases[ci];
        avkcli_rng rng;
        seed(&rng, ci);
        for (int k = 0; k < RANDOM_VALUES; k++) {
            avk_arena *a = arena_new();
            avk_value v;
            outcome x;
            char what[64];
            random_value(ci, &rng, a, &v);
            buf b = generic_encode(ci, &v);
            snprintf(what, sizeof what, "random value %d", k);
            AVKT_ASSERT_I64_EQ(compare_decoders(ci, what, NULL, b.p, b.len), AVK_OK);
            generated_decode(ci, 0, NULL, b.p, b.len, a, &x);
            AVKT_OK(x.status);
            if (!avk_value_equal(&v, &x.value))
                fail_msg("%s (%s): %s: decoded value differs from the one encoded", c->id, c->origin,
                         what);
            buf e = generated_encode(ci, x.obj);
            same_bytes(ci, what, e, b.p, b.len);
            free(e.p);
            e = generated_encode(ci, from_value(ci, &v, a));
            same_bytes(ci, what, e, b.p, b.len);
            free(e.p);
            /* A stream reader (3 bytes a read): strings are copies, the value the same. */
            {
                avkt_source src;
                avk_reader r;
                void *obj = NULL;
                avk_value sv;
                avk_error err;
                avk_reader_options ro;
                avk_reader_options_init(&ro);
                ro.buffer_size = 64;
                avkt_source_init(&src, b.p, b.len, 3);
                AVKT_OK(avk_reader_init_source(&r, avkt_source_read, &src, &ro, NULL));
                AVKT_OK(c->decode(&r, a, 0, NULL, &obj, &err));
                AVKT_ASSERT_I64_EQ(avk_reader_offset(&r), b.len);
                AVKT_OK(c->to_value(obj, all[ci].root, a, &sv, &err));
                avk_reader_destroy(&r);
                if (!avk_value_equal(&v, &sv))
                    fail_msg("%s (%s): %s: decoded from a stream, the value differs", c->id,
                             c->origin, what);
            }
            free(b.p);
            avk_arena_free(a);
            values++;
        }
    }
    print_message("%zu random values round-trip through the generated code\n", values);
    no_mismatches();
}

/* (c) FN_skip consumes exactly what decoding consumes, and a cut value is
 * TRUNCATED for it too. */
static void test_skip(void **state)
{
    (void)state;
    for (size_t ci = 0; ci < gen_case_count; ci++) {
        const gen_case *c = &gen_cases[ci];
        buf enc[16];
        size_t n = encodings(ci, enc, 16);
        for (size_t e = 0; e < n; e++) {
            avk_reader r;
            avk_error err;
            avk_status s;
            avk_reader_init_memory(&r, enc[e].p, enc[e].len);
            s = c->skip_value(&r, NULL, &err);
            if (s != AVK_OK)
                fail_msg("%s (%s): %s_skip of encoding %zu: %s: %s", c->id, c->origin, c->fn, e,
                         avk_status_name(s), err.message);
            AVKT_ASSERT_I64_EQ(avk_reader_offset(&r), enc[e].len);
            for (size_t cut = 0; cut < enc[e].len; cut++) {
                avkt_guard g = {0};
                const uint8_t *in = avkt_guard_copy(&g, enc[e].p, cut);
                avk_reader_init_memory(&r, in, cut);
                s = c->skip_value(&r, NULL, &err);
                if (s != AVK_ERR_TRUNCATED)
                    fail_msg("%s (%s): %s_skip of encoding %zu cut to %zu of %zu bytes: %s", c->id,
                             c->origin, c->fn, e, cut, enc[e].len, avk_status_name(s));
                avkt_guard_free(&g);
            }
        }
        free_bufs(enc, n);
    }
}

/* (d) Every strict prefix of an encoding: TRUNCATED from the generated
 * decoder, with the generic decoder's offset, path and message. */
static void test_truncated(void **state)
{
    size_t cuts = 0;
    (void)state;
    mismatches = 0;
    for (size_t ci = 0; ci < gen_case_count; ci++) {
        buf enc[16];
        size_t n = encodings(ci, enc, 16);
        for (size_t e = 0; e < n; e++) {
            for (size_t cut = 0; cut < enc[e].len; cut++) {
                char what[96];
                snprintf(what, sizeof what, "encoding %zu cut to %zu of %zu bytes", e, cut,
                         enc[e].len);
                AVKT_ASSERT_STATUS(compare_decoders(ci, what, NULL, enc[e].p, cut),
                                   AVK_ERR_TRUNCATED);
                cuts++;
            }
        }
        free_bufs(enc, n);
    }
    print_message("%zu cut encodings: TRUNCATED alike\n", cuts);
    no_mismatches();
}

/* Damage of one kind at position at of b: a new buffer. */
typedef struct damage {
    const char *name;
    int replace;            /* 1: replace the byte at `at`; 0: insert before it */
    uint8_t bytes[10];
    size_t len;             /* 0 with replace: delete the byte */
} damage;

static buf damaged(const buf *b, size_t at, const damage *d)
{
    size_t drop = d->replace ? 1 : 0;
    buf o = {(uint8_t *)malloc(b->len + d->len + 1), 0};
    assert_non_null(o.p);
    memcpy(o.p, b->p, at);
    memcpy(o.p + at, d->bytes, d->len);
    memcpy(o.p + at + d->len, b->p + at + drop, b->len - at - drop);
    o.len = b->len - drop + d->len;
    return o;
}

/* (e) Hostile bytes: every position of each encoding replaced by a
 * negative or a long varint byte, deleted, or preceded by huge or
 * negative counts and lengths; the generated decoder must do exactly what
 * the generic one does, with default and with small limits. */
static void test_hostile(void **state)
{
    static const damage kinds[] = {
        {"-1 (0x01)", 1, {0x01}, 1},
        {"-64 (0x7f)", 1, {0x7f}, 1},
        {"a continuation byte (0xff)", 1, {0xff}, 1},
        {"63 (0x7e)", 1, {0x7e}, 1},
        {"deleted", 1, {0}, 0},
        {"2^31-1 before", 0, {0xfe, 0xff, 0xff, 0xff, 0x0f}, 5},
        {"INT64_MAX before", 0, {0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 10},
        {"INT64_MIN before", 0, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 10},
        {"-2^40 before", 0, {0xff, 0xff, 0xff, 0xff, 0xff, 0x3f}, 6},
        {"an 11-byte varint before", 0, {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80}, 10},
        {"3 before", 0, {0x06}, 1},
    };
    avk_limits small;
    size_t tried = 0, failed = 0;
    (void)state;
    mismatches = 0;
    memset(&small, 0, sizeof small);
    small.max_depth = 3;
    small.max_bytes = 2;
    small.max_items = 2;
    small.max_empty_items = 3;
    small.max_memory = (uint64_t)1 << 30; /* arena use differs between the two: not compared */
    for (size_t ci = 0; ci < gen_case_count; ci += thin()) {
        buf enc[16];
        size_t n = encodings(ci, enc, 16);
        for (size_t e = 0; e < n; e++) {
            size_t ends = enc[e].len < 64 ? enc[e].len : 64;
            for (size_t at = 0; at <= ends; at++) {
                for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
                    char what[160];
                    if (kinds[k].replace && at == enc[e].len)
                        continue;
                    buf d = damaged(&enc[e], at, &kinds[k]);
                    snprintf(what, sizeof what, "encoding %zu (%zu bytes), byte %zu: %s", e,
                             enc[e].len, at, kinds[k].name);
                    if (compare_decoders(ci, what, NULL, d.p, d.len) != AVK_OK)
                        failed++;
                    snprintf(what, sizeof what, "small limits, encoding %zu (%zu bytes), byte %zu: %s",
                             e, enc[e].len, at, kinds[k].name);
                    compare_decoders(ci, what, &small, d.p, d.len);
                    tried++;
                    free(d.p);
                }
            }
            /* The value itself under small limits. */
            compare_decoders(ci, "small limits, undamaged", &small, enc[e].p, enc[e].len);
        }
        free_bufs(enc, n);
    }
    print_message("%zu damaged encodings (%zu refused) decode alike\n", tried, failed);
    assert_true(failed > tried / 4);
    no_mismatches();
}

/* (e) A few hostile inputs whose outcome is known, by root kind. */
static void test_hostile_known(void **state)
{
    static const uint8_t neg1[] = {0x01, 0x00};
    static const uint8_t huge[] = {0xfe, 0xff, 0xff, 0xff, 0x0f, 0x00};
    static const uint8_t min64[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    static const uint8_t branch[] = {0x7e, 0x00};
    size_t checked = 0;
    (void)state;
    mismatches = 0;
    for (size_t ci = 0; ci < gen_case_count; ci++) {
        switch (avk_type_kind(all[ci].root)) {
        case AVK_STRING:
        case AVK_BYTES:
            /* negative length */
            AVKT_ASSERT_STATUS(compare_decoders(ci, "length -1", NULL, neg1, sizeof neg1),
                               AVK_ERR_MALFORMED);
            /* a length past the input */
            assert_int_not_equal(compare_decoders(ci, "length 2^31-1", NULL, huge, sizeof huge),
                                 AVK_OK);
            checked++;
            break;
        case AVK_ARRAY:
        case AVK_MAP:
            /* block count INT64_MIN */
            AVKT_ASSERT_STATUS(compare_decoders(ci, "count INT64_MIN", NULL, min64, sizeof min64),
                               AVK_ERR_MALFORMED);
            assert_int_not_equal(compare_decoders(ci, "count 2^31-1", NULL, huge, sizeof huge),
                                 AVK_OK);
            checked++;
            break;
        case AVK_UNION:
            /* branch 63 */
            AVKT_ASSERT_STATUS(compare_decoders(ci, "branch 63", NULL, branch, sizeof branch),
                               AVK_ERR_MALFORMED);
            AVKT_ASSERT_STATUS(compare_decoders(ci, "branch -1", NULL, neg1, sizeof neg1),
                               AVK_ERR_MALFORMED);
            checked++;
            break;
        case AVK_ENUM:
            AVKT_ASSERT_STATUS(compare_decoders(ci, "symbol 63", NULL, branch, sizeof branch),
                               AVK_ERR_MALFORMED);
            checked++;
            break;
        default:
            break;
        }
    }
    print_message("%zu schemas given known hostile inputs\n", checked);
    assert_true(checked >= 10);
    no_mismatches();
}

/* The one documented difference: generated decoders recurse in C and stop
 * at GEN_MAX_DEPTH levels unless limits->max_depth is lower; they then
 * fail exactly as the generic decoder does with max_depth GEN_MAX_DEPTH. */
/* A generated decode (status and error only) on a thread with a 512 MiB
 * stack (only what is touched is committed): 10,000 levels of C recursion
 * fit with room to spare, also in sanitizer builds, whose frames are
 * larger. */
typedef struct deep_job {
    size_t ci;
    int mode;
    const avk_limits *limits;
    const uint8_t *p;
    size_t len;
    avk_arena *a;
    outcome *o;
} deep_job;

static void *deep_run(void *arg)
{
    deep_job *j = (deep_job *)arg;
    avk_reader r;
    memset(j->o, 0, sizeof *j->o);
    avk_reader_init_memory(&r, j->p, j->len);
    j->o->status = gen_cases[j->ci].decode(&r, j->a, j->mode, j->limits, &j->o->obj, &j->o->err);
    j->o->consumed = avk_reader_offset(&r);
    return NULL;
}

static void generated_decode_deep(size_t ci, int mode, const avk_limits *limits, const uint8_t *p,
                                  size_t len, avk_arena *a, outcome *o)
{
    deep_job j = {ci, mode, limits, p, len, a, o};
    pthread_attr_t attr;
    pthread_t t;
    assert_int_equal(pthread_attr_init(&attr), 0);
    assert_int_equal(pthread_attr_setstacksize(&attr, (size_t)512 << 20), 0);
    assert_int_equal(pthread_create(&t, &attr, deep_run, &j), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    pthread_attr_destroy(&attr);
}

static void test_depth(void **state)
{
    size_t ci;
    (void)state;
    mismatches = 0;
    for (ci = 0; ci < gen_case_count; ci++)
        if (strstr(gen_cases[ci].origin, "schema_tests/pass/recursive_record"))
            break;
    if (ci == gen_case_count) {
        print_message("SKIPPED: no recursive_record schema among the cases\n");
        skip();
    }
    /* recursive {label: string, children: array<recursive>}: a chain of
     * `levels` records, each with one child but the last. */
    const size_t levels = 3 * GEN_MAX_DEPTH;
    buf b = {(uint8_t *)malloc(3 * levels + 4), 0};
    assert_non_null(b.p);
    for (size_t i = 0; i + 1 < levels; i++) {
        b.p[b.len++] = 0x00; /* label "" */
        b.p[b.len++] = 0x02; /* a block of 1 child */
    }
    b.p[b.len++] = 0x00;
    b.p[b.len++] = 0x00; /* the last: no children */
    for (size_t i = 0; i + 1 < levels; i++)
        b.p[b.len++] = 0x00; /* end of each block */

    avk_arena *a = arena_new();
    outcome g, x;
    avk_limits lim;
    generic_decode(ci, NULL, b.p, b.len, a, &g);
    AVKT_OK(g.status);
    AVKT_ASSERT_I64_EQ(g.consumed, b.len);
    generated_decode_deep(ci, 0, NULL, b.p, b.len, a, &x);
    AVKT_ASSERT_STATUS(x.status, AVK_ERR_LIMIT);
    memset(&lim, 0, sizeof lim);
    lim.max_depth = GEN_MAX_DEPTH;
    generic_decode(ci, &lim, b.p, b.len, a, &g);
    AVKT_ASSERT_STATUS(g.status, AVK_ERR_LIMIT);
    same_outcome(ci, "30000 levels, generated default limits vs generic max_depth 10000", &g, &x);
    generated_decode_deep(ci, 1, NULL, b.p, b.len, a, &x);
    same_outcome(ci, "30000 levels, FN_decode_limits(NULL) vs generic max_depth 10000", &g, &x);
    /* Above the cap the cap wins; below it the limit does, as generic. */
    lim.max_depth = 5 * GEN_MAX_DEPTH;
    generated_decode_deep(ci, 1, &lim, b.p, b.len, a, &x);
    same_outcome(ci, "30000 levels, max_depth 50000 (capped at 10000)", &g, &x);
    lim.max_depth = 7;
    AVKT_ASSERT_STATUS(compare_decoders(ci, "30000 levels, max_depth 7", &lim, b.p, b.len),
                       AVK_ERR_LIMIT);
    /* 2000 levels (4000 nesting levels with the arrays) pass both. */
    {
        buf s = {(uint8_t *)malloc(3 * 2000 + 4), 0};
        assert_non_null(s.p);
        for (size_t i = 0; i + 1 < 2000; i++) {
            s.p[s.len++] = 0x00;
            s.p[s.len++] = 0x02;
        }
        s.p[s.len++] = 0x00;
        s.p[s.len++] = 0x00;
        for (size_t i = 0; i + 1 < 2000; i++)
            s.p[s.len++] = 0x00;
        AVKT_OK(compare_decoders(ci, "2000 levels", NULL, s.p, s.len));
        generated_decode(ci, 0, NULL, s.p, s.len, a, &x);
        buf e = generated_encode(ci, x.obj);
        same_bytes(ci, "2000 levels re-encoded", e, s.p, s.len);
        free(e.p);
        free(s.p);
    }
    avk_arena_free(a);
    free(b.p);
    no_mismatches();
}

/* Errors deep down: the paths are shortened in the middle exactly as the
 * generic decoder shortens them (recursive_record, 1 to 80 levels, the
 * deepest label's length -1; or its children count cut short). */
static void test_deep_paths(void **state)
{
    size_t ci;
    (void)state;
    mismatches = 0;
    for (ci = 0; ci < gen_case_count; ci++)
        if (strstr(gen_cases[ci].origin, "schema_tests/pass/recursive_record"))
            break;
    if (ci == gen_case_count) {
        print_message("SKIPPED: no recursive_record schema among the cases\n");
        skip();
    }
    for (size_t levels = 1; levels <= 80; levels++) {
        buf b = {(uint8_t *)malloc(2 * levels + 2), 0};
        char what[64];
        assert_non_null(b.p);
        for (size_t i = 0; i + 1 < levels; i++) {
            b.p[b.len++] = 0x00;
            b.p[b.len++] = 0x02;
        }
        b.p[b.len++] = 0x01; /* label length -1 */
        snprintf(what, sizeof what, "%zu levels, then length -1", levels);
        AVKT_ASSERT_STATUS(compare_decoders(ci, what, NULL, b.p, b.len), AVK_ERR_MALFORMED);
        b.p[b.len - 1] = 0x00;
        snprintf(what, sizeof what, "%zu levels, then the end", levels);
        AVKT_ASSERT_STATUS(compare_decoders(ci, what, NULL, b.p, b.len), AVK_ERR_TRUNCATED);
        free(b.p);
    }
    no_mismatches();
}

/* (f) Container files: FN_file_reader_* read what avk_file_writer wrote
 * (several blocks, three codecs); FN_file_write writes the same file
 * avk_file_writer_append does; a file of another schema is refused. */
static void test_container(void **state)
{
    static const uint8_t sync[16] = "gen_test sync 16";
    static const avk_codec codecs[] = {AVK_CODEC_NULL, AVK_CODEC_DEFLATE, AVK_CODEC_SNAPPY};
    enum { RECORDS = 7 };
    size_t refused = 0;
    (void)state;
    for (size_t ci = 0; ci < gen_case_count; ci++) {
        const gen_case *c = &gen_cases[ci];
        char path_generic[512], path_generated[512];
        avk_file_writer_options wo;
        avk_file_writer *fw;
        avk_arena *keep = arena_new(), *a = arena_new();
        avk_value values[RECORDS];
        avkcli_rng rng;
        avk_error err;
        void *fr = NULL;
        int more = 1;
        size_t got = 0;
        snprintf(path_generic, sizeof path_generic, "%s/gen_test_%s.avro", GEN_TEST_TMP, c->id);
        snprintf(path_generated, sizeof path_generated, "%s/gen_test_%s_gen.avro", GEN_TEST_TMP,
                 c->id);
        avk_file_writer_options_init(&wo);
        wo.sync = sync;
        wo.codec = codecs[ci % 3];
        wo.block_records = 3;
        seed(&rng, ci);
        AVKT_OK(avk_file_writer_open_path(path_generic, all[ci].schema, &wo, &fw, &err));
        for (int k = 0; k < RECORDS; k++) {
            random_value(ci, &rng, keep, &values[k]);
            AVKT_OK(avk_file_writer_append(fw, &values[k], &err));
        }
        AVKT_OK(avk_file_writer_close(fw, &err)); /* frees fw */

        avk_status s = c->file_open(&fr, path_generic, NULL, &err);
        if (s != AVK_OK)
            fail_msg("%s (%s): %s_file_reader_open: %s: %s", c->id, c->origin, c->fn,
                     avk_status_name(s), err.message);
        for (;;) {
            void *obj = NULL;
            avk_value v;
            avk_arena_reset(a);
            s = c->file_next(fr, a, &obj, &more, &err);
            if (s != AVK_OK)
                fail_msg("%s (%s): %s_file_reader_next, record %zu: %s: %s", c->id, c->origin,
                         c->fn, got, avk_status_name(s), err.message);
            if (!more)
                break;
            assert_true(got < RECORDS);
            AVKT_OK(c->to_value(obj, all[ci].root, a, &v, &err));
            if (!avk_value_equal(&values[got], &v))
                fail_msg("%s (%s): record %zu of the file reads differently", c->id, c->origin,
                         got);
            got++;
        }
        AVKT_ASSERT_I64_EQ(got, RECORDS);
        /* The end is sticky. */
        {
            void *obj = NULL;
            AVKT_OK(c->file_next(fr, a, &obj, &more, &err));
            assert_int_equal(more, 0);
        }
        c->file_free(fr);

        /* FN_file_write: the same bytes as avk_file_writer_append. */
        AVKT_OK(avk_file_writer_open_path(path_generated, all[ci].schema, &wo, &fw, &err));
        for (int k = 0; k < RECORDS; k++) {
            avk_arena_reset(a);
            s = c->file_write(fw, from_value(ci, &values[k], a), &err);
            if (s != AVK_OK)
                fail_msg("%s (%s): %s_file_write: %s: %s", c->id, c->origin, c->fn,
                         avk_status_name(s), err.message);
        }
        AVKT_OK(avk_file_writer_close(fw, &err)); /* frees fw */
        {
            size_t la, lb;
            char *fa = avkt_read_file(path_generic, &la), *fb = avkt_read_file(path_generated, &lb);
            assert_non_null(fa);
            assert_non_null(fb);
            if (la != lb || memcmp(fa, fb, la) != 0)
                fail_msg("%s (%s): %s_file_write wrote another file than avk_file_writer_append",
                         c->id, c->origin, c->fn);
            free(fa);
            free(fb);
        }

        /* A file of the next schema that differs: refused. */
        for (size_t o = 1; o < gen_case_count; o++) {
            size_t other = (ci + o) % gen_case_count;
            if (avk_type_equal(all[other].root, all[ci].root))
                continue;
            AVKT_OK(avk_file_writer_open_path(path_generated, all[other].schema, &wo, &fw, &err));
            AVKT_OK(avk_file_writer_close(fw, &err));
            fr = NULL;
            s = c->file_open(&fr, path_generated, NULL, &err);
            if (s == AVK_OK) {
                void *obj = NULL;
                s = c->file_next(fr, a, &obj, &more, &err);
                c->file_free(fr);
            }
            if (s != AVK_ERR_RESOLUTION)
                fail_msg("%s (%s): %s_file_reader on a file of %s (%s): %s, expected RESOLUTION",
                         c->id, c->origin, c->fn, gen_cases[other].id, gen_cases[other].origin,
                         avk_status_name(s));
            refused++;
            break;
        }
        unlink(path_generic);
        unlink(path_generated);
        avk_arena_free(a);
        avk_arena_free(keep);
    }
    print_message("%zu schemas: container files read and written; %zu foreign files refused\n",
                  gen_case_count, refused);
}

static avk_bytes text(const char *s)
{
    avk_bytes b;
    b.data = (const uint8_t *)s;
    b.len = strlen(s);
    return b;
}

/* A decoded string copied into the arena (--copy-strings): not a view of
 * the input, NUL after len, same bytes. */
static void is_copy(avk_bytes got, avk_bytes want, const uint8_t *in, size_t in_len)
{
    assert_int_equal(got.len, want.len);
    assert_memory_equal(got.data, want.data, want.len);
    assert_true(got.data + got.len <= in || got.data >= in + in_len);
    assert_int_equal(got.data[got.len], 0);
}

static avk_schema *parse_text(const char *json)
{
    avk_schema *s = NULL;
    avk_error err;
    AVKT_OK(avk_schema_parse(json, strlen(json), NULL, &s, &err));
    return s;
}

/* Two schemas in one run sharing m.Address: one C type (this compiles),
 * defined in multi_a.h only, which multi_b.h includes; --copy-strings
 * decoders copy every string and bytes even from a memory reader; both
 * types agree with the generic decoder and encoder. */
static void test_multi(void **state)
{
    static const uint8_t zip[3] = {0x00, 0x75, 0xff};
    avk_bytes tags[2], keys[1], values[1];
    mm_Person person, person_back;
    mm_Letter letter, letter_back;
    mm_Address *addr = &letter.to;
    avk_writer w;
    avk_reader r;
    avk_error err;
    avk_arena *a = arena_new();
    const uint8_t *enc;
    size_t len;
    (void)state;
    tags[0] = text("red");
    tags[1] = text("");
    keys[0] = text("k");
    values[0] = text("v\xc3\xa9");
    memset(&person, 0, sizeof person);
    person.name = text("Ada");
    person.tags.items = tags;
    person.tags.count = 2;
    person.home.city = text("Paris");
    person.home.zip.data = zip;
    person.home.zip.len = sizeof zip;
    memset(&letter, 0, sizeof letter);
    *addr = person.home;
    letter.text = text("hello");
    letter.cc = person.tags;
    letter.extra.keys = keys;
    letter.extra.values = values;
    letter.extra.count = 1;

    /* Letter: encode, decode (copies), encode again, generic agrees. */
    AVKT_OK(avk_writer_init_memory(&w, NULL, NULL));
    AVKT_OK(mm_Letter_encode(&letter, &w, &err));
    enc = avk_writer_data(&w, &len);
    avk_reader_init_memory(&r, enc, len);
    AVKT_OK(mm_Letter_decode(&r, a, &letter_back, &err));
    AVKT_ASSERT_I64_EQ(avk_reader_offset(&r), len);
    is_copy(letter_back.to.city, letter.to.city, enc, len);
    is_copy(letter_back.to.zip, letter.to.zip, enc, len);
    is_copy(letter_back.text, letter.text, enc, len);
    assert_int_equal(letter_back.cc.count, 2);
    is_copy(letter_back.cc.items[0], tags[0], enc, len);
    is_copy(letter_back.cc.items[1], tags[1], enc, len);
    assert_int_equal(letter_back.extra.count, 1);
    is_copy(letter_back.extra.keys[0], keys[0], enc, len);
    is_copy(letter_back.extra.values[0], values[0], enc, len);
    {
        avk_schema *s = parse_text(mm_Letter_schema_json());
        avk_plan *plan = avkt_plan_new(avk_schema_root(s), 0, NULL, 0);
        avk_value gv, xv;
        avk_writer w2;
        size_t len2;
        const uint8_t *enc2;
        avk_reader_init_memory(&r, enc, len);
        AVKT_OK(avk_plan_decode(plan, &r, a, &gv, &err));
        AVKT_OK(mm_Letter_to_value(&letter_back, avk_schema_root(s), a, &xv, &err));
        assert_true(avk_value_equal(&gv, &xv));
        AVKT_OK(avk_writer_init_memory(&w2, NULL, NULL));
        AVKT_OK(mm_Letter_encode(&letter_back, &w2, &err));
        enc2 = avk_writer_data(&w2, &len2);
        avkt_assert_bytes(enc2, len2, enc, len);
        avk_writer_destroy(&w2);
        avk_plan_free(plan);
        avk_schema_free(s);
    }
    avk_writer_reset(&w);

    /* Person, whose header defines m.Address. */
    AVKT_OK(mm_Person_encode(&person, &w, &err));
    enc = avk_writer_data(&w, &len);
    avk_reader_init_memory(&r, enc, len);
    AVKT_OK(mm_Person_decode(&r, a, &person_back, &err));
    is_copy(person_back.name, person.name, enc, len);
    is_copy(person_back.home.city, person.home.city, enc, len);
    addr = &person_back.home;
    is_copy(addr->zip, person.home.zip, enc, len);
    avk_writer_destroy(&w);
    avk_arena_free(a);

    /* The shared type is defined once. */
    {
        char path[600];
        char *ha, *hb;
        snprintf(path, sizeof path, "%s/multi/multi_a.h", GEN_TEST_TMP);
        ha = avkt_read_file(path, NULL);
        snprintf(path, sizeof path, "%s/multi/multi_b.h", GEN_TEST_TMP);
        hb = avkt_read_file(path, NULL);
        assert_non_null(ha);
        assert_non_null(hb);
        assert_non_null(strstr(ha, "struct mm_Address {"));
        assert_null(strstr(hb, "struct mm_Address {"));
        assert_non_null(strstr(hb, "#include \"multi_a.h\""));
        free(ha);
        free(hb);
    }
}

/* What a whole read of a container file gave: records, then the status
 * that ended it (AVK_OK at the clean end) and its error record. */
typedef struct file_read {
    size_t records;
    avk_status status;
    avk_error err;
} file_read;

/* Reads path with avk_file_reader_next and with FN_file_reader_next in
 * step, comparing each record, until either stops; g and x get what each
 * read. A record that differs counts as a mismatch. */
static void read_both(size_t ci, const char *path, const char *what, avk_arena *a, file_read *g,
                      file_read *x)
{
    const gen_case *c = &gen_cases[ci];
    avk_file_reader *gfr = NULL;
    void *xfr = NULL;
    int gmore = 1, xmore = 1;
    memset(g, 0, sizeof *g);
    memset(x, 0, sizeof *x);
    g->status = avk_file_reader_open_path(path, NULL, &gfr, &g->err);
    x->status = c->file_open(&xfr, path, NULL, &x->err);
    while (g->status == AVK_OK && x->status == AVK_OK && gmore && xmore) {
        avk_value gv, xv;
        void *obj = NULL;
        avk_error err;
        avk_arena_reset(a);
        g->status = avk_file_reader_next(gfr, a, &gv, &gmore, &g->err);
        x->status = c->file_next(xfr, a, &obj, &xmore, &x->err);
        if (g->status != AVK_OK || x->status != AVK_OK || !gmore || !xmore)
            break;
        AVKT_OK(c->to_value(obj, all[ci].root, a, &xv, &err));
        if (!avk_value_equal(&gv, &xv)) {
            mismatch("%s (%s): %s: record %zu differs", c->id, c->origin, what, g->records);
            break;
        }
        g->records++;
        x->records++;
    }
    if (g->status == AVK_OK && x->status == AVK_OK && gmore != xmore)
        mismatch("%s (%s): %s: after %zu records, one reader ends and the other does not", c->id,
                 c->origin, what, g->records);
    avk_file_reader_free(gfr);
    if (xfr)
        c->file_free(xfr);
}

static void same_file_read(size_t ci, const char *what, const file_read *g, const file_read *x)
{
    if (g->records != x->records || g->status != x->status ||
        (g->status != AVK_OK &&
         (g->err.offset != x->err.offset || g->err.block != x->err.block ||
          strcmp(g->err.path, x->err.path) != 0 || strcmp(g->err.message, x->err.message) != 0)))
        mismatch("%s (%s): %s:\n  avk_file_reader %zu records, %s at %llu block %lld, path '%s': %s\n"
                 "  %s_file_reader %zu records, %s at %llu block %lld, path '%s': %s",
                 gen_cases[ci].id, gen_cases[ci].origin, what, g->records,
                 avk_status_name(g->status), (unsigned long long)g->err.offset,
                 (long long)g->err.block, g->status ? g->err.path : "",
                 g->status ? g->err.message : "", gen_cases[ci].fn, x->records,
                 avk_status_name(x->status), (unsigned long long)x->err.offset,
                 (long long)x->err.block, x->status ? x->err.path : "",
                 x->status ? x->err.message : "");
}

/* With GEN_TEST_KEEP set in the environment, a damaged file the readers
 * disagree on is kept as <path>.<n>.kept for a closer look. */
static void keep_if_mismatched(const char *path, size_t before)
{
    static int kept;
    char to[600];
    if (mismatches == before || !getenv("GEN_TEST_KEEP"))
        return;
    snprintf(to, sizeof to, "%s.%d.kept", path, kept++);
    if (rename(path, to) == 0)
        fprintf(stderr, "  kept as %s\n", to);
}

static void write_bytes(const char *path, const void *p, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(p, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

/* Damaged container files read by FN_file_reader_* as avk_file_reader_next
 * reads them: the same records, then the same status, offset, block, path
 * and message. Every cut of the file (every third schema), one bad byte
 * at each position of the data (every third schema), and a block with a
 * byte left over after its records (every schema). */
static void test_container_damage(void **state)
{
    static const uint8_t sync[16] = "gen_test sync 16";
    enum { RECORDS = 5 };
    size_t files = 0;
    (void)state;
    mismatches = 0;
    for (size_t ci = 0; ci < gen_case_count; ci++) {
        const gen_case *c = &gen_cases[ci];
        char path[512], damaged_path[512];
        avk_file_writer_options wo;
        avk_file_writer *fw;
        avk_arena *keep = arena_new(), *a = arena_new();
        avk_value values[RECORDS];
        avkcli_rng rng;
        avk_error err;
        file_read g, x;
        char *file;
        size_t len, header;
        snprintf(path, sizeof path, "%s/gen_test_%s_whole.avro", GEN_TEST_TMP, c->id);
        snprintf(damaged_path, sizeof damaged_path, "%s/gen_test_%s_damaged.avro", GEN_TEST_TMP,
                 c->id);
        avk_file_writer_options_init(&wo);
        wo.sync = sync;
        wo.block_records = 2;
        seed(&rng, ci + 1000);
        AVKT_OK(avk_file_writer_open_path(path, all[ci].schema, &wo, &fw, &err));
        for (int k = 0; k < RECORDS; k++) {
            random_value(ci, &rng, keep, &values[k]);
            AVKT_OK(avk_file_writer_append(fw, &values[k], &err));
        }
        AVKT_OK(avk_file_writer_close(fw, &err));
        file = avkt_read_file(path, &len);
        assert_non_null(file);
        {
            avk_file_reader *fr;
            AVKT_OK(avk_file_reader_open_path(path, NULL, &fr, &err));
            header = (size_t)avk_file_reader_header_size(fr);
            avk_file_reader_free(fr);
        }

        if (ci % (3 * thin()) == 0) {
            for (size_t cut = header; cut < len; cut++) {
                char what[96];
                write_bytes(damaged_path, file, cut);
                snprintf(what, sizeof what, "file cut to %zu of %zu bytes", cut, len);
                size_t before = mismatches;
                read_both(ci, damaged_path, what, a, &g, &x);
                same_file_read(ci, what, &g, &x);
                keep_if_mismatched(damaged_path, before);
                files++;
            }
        }
        if (ci % (3 * thin()) == 1) {
            for (size_t at = header; at < len; at++) {
                static const uint8_t bad[] = {0x01, 0xff, 0x7e};
                char what[96];
                char saved = file[at];
                file[at] = (char)bad[at % 3];
                write_bytes(damaged_path, file, len);
                file[at] = saved;
                snprintf(what, sizeof what, "byte %zu of %zu set to 0x%02x", at, len, bad[at % 3]);
                size_t before = mismatches;
                read_both(ci, damaged_path, what, a, &g, &x);
                same_file_read(ci, what, &g, &x);
                keep_if_mismatched(damaged_path, before);
                files++;
            }
        }
        /* A block whose records leave a byte over: MALFORMED both ways. */
        {
            avk_writer w;
            size_t elen;
            const uint8_t *enc;
            uint8_t *datum;
            AVKT_OK(avk_writer_init_memory(&w, NULL, NULL));
            AVKT_OK(avk_plan_encode(all[ci].plan, &values[0], &w, &err));
            enc = avk_writer_data(&w, &elen);
            datum = (uint8_t *)malloc(elen + 1);
            assert_non_null(datum);
            memcpy(datum, enc, elen);
            datum[elen] = 0;
            AVKT_OK(avk_file_writer_open_path(damaged_path, all[ci].schema, &wo, &fw, &err));
            AVKT_OK(avk_file_writer_append(fw, &values[0], &err));
            AVKT_OK(avk_file_writer_append_encoded(fw, datum, elen + 1, &err));
            AVKT_OK(avk_file_writer_close(fw, &err));
            avk_writer_destroy(&w);
            free(datum);
            read_both(ci, damaged_path, "a byte left over in the block", a, &g, &x);
            /* Two records (the second is values[0] again), then the byte over. */
            AVKT_ASSERT_STATUS(g.status, AVK_ERR_MALFORMED);
            AVKT_ASSERT_I64_EQ(g.records, 2);
            same_file_read(ci, "a byte left over in the block", &g, &x);
            files++;
        }
        free(file);
        unlink(path);
        unlink(damaged_path);
        avk_arena_free(a);
        avk_arena_free(keep);
    }
    print_message("%zu damaged container files read alike\n", files);
    no_mismatches();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(avkt_test_kernel_choice),
        cmocka_unit_test(test_schema_json),
        cmocka_unit_test(test_tables),
        cmocka_unit_test(test_random_round_trip),
        cmocka_unit_test(test_skip),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_hostile),
        cmocka_unit_test(test_hostile_known),
        cmocka_unit_test(test_deep_paths),
        cmocka_unit_test(test_depth),
        cmocka_unit_test(test_multi),
        cmocka_unit_test(test_container),
        cmocka_unit_test(test_container_damage),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
