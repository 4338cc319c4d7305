/* Unit tests for the push decoder: container files (interop ones, and ones written here with every codec) and message streams fed in every split, every prefix, one byte at a time and in random pieces, against the pull readers; limits, truncation, dropped and sticky errors, allocation failures, linear cost. */
#define _DEFAULT_SOURCE 1 /* strdup */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cJSON.h>

#include "avkt.h"
#include "avrokit/push.h"
#include "failalloc.h"
#include "value_json.h"

#ifndef AVK_INTEROP_DIR
#define AVK_INTEROP_DIR ""
#endif

/* ---- byte buffers ------------------------------------------------------------------------ */

typedef struct gbuf {
    uint8_t *p;
    size_t len, cap;
} gbuf;

static void gb_put(gbuf *b, const void *d, size_t n)
{
    if (b->len + n > b->cap) {
        size_t c = b->cap ? b->cap : 256;
        while (c < b->len + n)
            c *= 2;
        b->p = realloc(b->p, c);
        assert_non_null(b->p);
        b->cap = c;
    }
    if (n)
        memcpy(b->p + b->len, d, n);
    b->len += n;
}

static void gb_free(gbuf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

static avk_status gb_sink(void *ctx, const void *d, size_t n, avk_error *err)
{
    (void)err;
    gb_put((gbuf *)ctx, d, n);
    return AVK_OK;
}

/* ---- outcomes: values, then a final status -------------------------------------------------- */

typedef struct outcome {
    avk_arena *arena;
    avk_value **vals; /* in arena: a value may point into itself */
    size_t n, cap;
    avk_status st;
    avk_error err;
    avk_file_reader *fr; /* the values' types are its schema's */
} outcome;

static void oc_init(outcome *o)
{
    memset(o, 0, sizeof *o);
    AVKT_OK(avk_arena_new(NULL, &o->arena, NULL));
}

static avk_value *oc_slot(outcome *o)
{
    if (o->n == o->cap) {
        o->cap = o->cap ? o->cap * 2 : 64;
        o->vals = realloc(o->vals, o->cap * sizeof *o->vals);
        assert_non_null(o->vals);
    }
    o->vals[o->n] = avk_arena_alloc(o->arena, sizeof(avk_value), 16);
    assert_non_null(o->vals[o->n]);
    return o->vals[o->n];
}

static void oc_free(outcome *o)
{
    avk_arena_free(o->arena);
    avk_file_reader_free(o->fr);
    free(o->vals);
    memset(o, 0, sizeof *o);
}

/* The pull reader over d[0..n): its records (strings copied, so they
 * outlive it) and its final status. */
static void pull_file(const uint8_t *d, size_t n, const avk_file_reader_options *fo, outcome *o)
{
    avk_file_reader_options ro;
    avk_file_reader *fr;
    int more;
    oc_init(o);
    avk_file_reader_options_init(&ro);
    if (fo)
        ro = *fo;
    ro.plan_flags |= AVK_PLAN_COPY_STRINGS;
    o->st = avk_file_reader_open_memory(n ? d : (const void *)"", n, &ro, &fr, &o->err);
    if (o->st != AVK_OK)
        return;
    for (;;) {
        avk_value *v = oc_slot(o);
        o->st = avk_file_reader_next(fr, o->arena, v, &more, &o->err);
        if (o->st != AVK_OK || !more)
            break;
        o->n++;
    }
    o->fr = fr;
}

/* What a push decoder gave, checked value by value as it came (a value's
 * strings may live only until the next feed). */
typedef struct run {
    const outcome *want;
    const char *what;
    size_t got;
    avk_status st; /* the first error of next or feed */
    avk_error err;
    avk_arena *arena;
    int keep_going; /* length-prefixed: errors drop a message, go on */
    size_t errors;
} run;

static void fail_value(const run *r, const avk_value *v)
{
    char *g = avkt_value_to_text(v);
    char *w = r->got < r->want->n ? avkt_value_to_text(r->want->vals[r->got]) : NULL;
    fail_msg("%s: value %zu is %s, expected %s (the pull reader: %s %s)", r->what, r->got, g,
             w ? w : "(no more)", avk_status_name(r->want->st), r->want->err.message);
}

static void drain(avk_push_decoder *pd, run *r)
{
    for (;;) {
        avk_value v;
        avk_error e;
        int got = -1;
        avk_status st;
        if (r->st != AVK_OK && !r->keep_going)
            return;
        avk_arena_reset(r->arena);
        st = avk_push_decoder_next(pd, r->arena, &v, &got, &e);
        if (st != AVK_OK) {
            assert_int_equal(got, 0);
            if (r->st == AVK_OK) {
                r->st = st;
                r->err = e;
            }
            r->errors++;
            if (!r->keep_going)
                return;
            continue;
        }
        if (!got)
            return;
        if (r->got >= r->want->n || !avk_value_equal(&v, r->want->vals[r->got]))
            fail_value(r, &v);
        r->got++;
    }
}

/* Feeds d in the pieces that cuts[0..ncuts) end (ascending, the last n),
 * draining after each; then end and a last drain. */
static void push_pieces(const uint8_t *d, size_t n, const avk_push_options *po, const size_t *cuts,
                        size_t ncuts, run *r)
{
    avk_push_decoder *pd;
    avk_error e;
    size_t i, at = 0;
    avk_status st;
    (void)n; /* the last cut */
    AVKT_OK(avk_push_decoder_new(po, &pd, &e));
    AVKT_OK(avk_arena_new(NULL, &r->arena, NULL));
    for (i = 0; i < ncuts && (r->st == AVK_OK || r->keep_going); i++) {
        st = avk_push_decoder_feed(pd, d + at, cuts[i] - at, &e);
        if (st != AVK_OK) {
            r->st = st;
            r->err = e;
            break;
        }
        at = cuts[i];
        drain(pd, r);
    }
    if (r->st == AVK_OK) {
        st = avk_push_decoder_end(pd, &e);
        drain(pd, r);
        if (r->st == AVK_OK && st != AVK_OK) {
            r->st = st;
            r->err = e;
        }
    }
    avk_push_decoder_free(pd);
    avk_arena_free(r->arena);
}

static void check_run(const run *r)
{
    if (r->got != r->want->n)
        fail_msg("%s: %zu values, expected %zu (then %s: %s)", r->what, r->got, r->want->n,
                 avk_status_name(r->st), r->st ? r->err.message : "");
    if (r->st != r->want->st)
        fail_msg("%s: ends with %s (%s), expected %s (%s)", r->what, avk_status_name(r->st),
                 r->err.message, avk_status_name(r->want->st), r->want->err.message);
    if (r->st != AVK_OK) {
        if (strcmp(r->err.message, r->want->err.message) != 0)
            fail_msg("%s: message \"%s\", expected \"%s\"", r->what, r->err.message,
                     r->want->err.message);
        AVKT_ASSERT_I64_EQ(r->err.offset, r->want->err.offset);
    }
}

static void push_check(const uint8_t *d, size_t n, const avk_push_options *po, const size_t *cuts,
                       size_t ncuts, const outcome *want, const char *what)
{
    run r;
    memset(&r, 0, sizeof r);
    r.want = want;
    r.what = what;
    push_pieces(d, n, po, cuts, ncuts, &r);
    check_run(&r);
}

/* Inputs longer than this are cut at every offset only near their ends
 * (and at 200 more places): syncInMeta.avro's 22 KB of 6001 records cut at
 * every offset would take minutes under a sanitizer. */
#define BIG 8192

/* Every way of cutting d this suite tries: whole; two pieces at every
 * offset (see BIG); one byte at a time; random piece sizes. */
static void every_split(const uint8_t *d, size_t n, const avk_push_options *po,
                        const outcome *want, const char *name)
{
    size_t *cuts = malloc((n + 2) * sizeof *cuts), k, i, stride = n > BIG ? n / 200 : 1;
    char what[256];
    avkt_rng rng = {n};
    assert_non_null(cuts);
    cuts[0] = n;
    snprintf(what, sizeof what, "%s whole", name);
    push_check(d, n, po, cuts, 1, want, what);
    for (k = 0; k <= n; k += (k < 512 || n - k < 512) ? 1 : stride) {
        cuts[0] = k;
        cuts[1] = n;
        snprintf(what, sizeof what, "%s split at %zu", name, k);
        push_check(d, n, po, cuts, 2, want, what);
    }
    for (i = 0; i < n; i++)
        cuts[i] = i + 1;
    snprintf(what, sizeof what, "%s one byte at a time", name);
    push_check(d, n, po, cuts, n, want, what);
    for (k = 0; k < 4; k++) {
        size_t at = 0, m = 0, most = k == 0 ? 8 : k == 1 ? 100 : 3000;
        while (at < n) {
            at += 1 + (size_t)avkt_below(&rng, most);
            if (at > n)
                at = n;
            cuts[m++] = at;
        }
        snprintf(what, sizeof what, "%s random pieces of 1..%zu", name, most);
        push_check(d, n, po, cuts, m, want, what);
    }
    free(cuts);
}

/* ---- containers ----------------------------------------------------------------------------- */

static void container_options(avk_push_options *po, const avk_file_reader_options *fo)
{
    memset(po, 0, sizeof *po);
    po->struct_size = sizeof *po;
    po->input = AVK_PUSH_CONTAINER;
    po->file = fo;
}

/* Every split of the file, and every prefix of it (in two pieces), give
 * what the pull reader gives for the same bytes. */
static void container_check(const uint8_t *d, size_t n, const avk_file_reader_options *fo,
                            const char *name, int prefixes)
{
    avk_push_options po;
    outcome want;
    size_t k, stride = n > BIG ? n / 100 : 1, cuts[2];
    char what[256];
    container_options(&po, fo);
    pull_file(d, n, fo, &want);
    every_split(d, n, &po, &want, name);
    oc_free(&want);
    if (!prefixes)
        return;
    for (k = 0; k < n; k += (k < 256 || n - k < 256) ? 1 : stride) {
        pull_file(d, k, fo, &want);
        cuts[0] = k / 2;
        cuts[1] = k;
        snprintf(what, sizeof what, "%s: prefix of %zu bytes", name, k);
        push_check(d, k, &po, cuts, 2, &want, what);
        oc_free(&want);
    }
}

static const char *const interop_files[] = {
    "lang/c/tests/avro-1237-bad-union-discriminant.avro",
    "lang/c/tests/avro-1237-good.avro",
    "lang/c/tests/avro-1238-good.avro",
    "lang/c/tests/avro-1238-truncated.avro",
    "lang/c/tests/avro-1279-codec.avro",
    "lang/c/tests/avro-1279-no-codec.avro",
    ("lang/java/mapred/src/test/resources/org/apache/avro/mapreduce/mapreduce-test-input.avro/"
     "part-r-00000.avro"),
    "lang/js/test/dat/person-10.avro",
    "lang/js/test/dat/person-10.no-codec.avro",
    "share/test/data/syncInMeta.avro",
    "share/test/data/weather-deflate.avro",
    "share/test/data/weather-snappy.avro",
    "share/test/data/weather-sorted.avro",
    "share/test/data/weather-zstd.avro",
    "share/test/data/weather.avro",
    "share/test/data/schemas/simple/data.avro",
    "share/test/data/schemas/withUnion/data.avro",
    "share/test/interop/rpc/add/onePlusOne/request.avro",
    "share/test/interop/rpc/add/onePlusOne/response.avro",
    "share/test/interop/rpc/echo/foo/request.avro",
    "share/test/interop/rpc/echo/foo/response.avro",
    "share/test/interop/rpc/hello/world/request.avro",
    "share/test/interop/rpc/hello/world/response.avro",
};

/* The expected/ form (unions as {"branch name": value}, bytes and fixed
 * as strings of code points U+0000-U+00FF) rewritten in value_json's
 * ({"$branch": i, "$value": ...}, {"$bytes_hex": ...}), following t. */
static cJSON *canon_to_vj(const avk_type *t, cJSON *j)
{
    size_t i;
    switch (avk_type_kind(t)) {
    case AVK_UNION: {
        cJSON *inner, *o;
        if (cJSON_IsNull(j))
            return j;
        assert_true(cJSON_IsObject(j) && j->child);
        inner = j->child;
        for (i = 0; i < avk_type_branch_count(t); i++) {
            const avk_type *b = avk_type_branch(t, i);
            const char *name = avk_type_is_named(b) ? avk_type_fullname(b)
                                                    : avk_kind_name(avk_type_kind(b));
            if (strcmp(name, inner->string) == 0)
                break;
        }
        if (i == avk_type_branch_count(t))
            fail_msg("no branch named %s", inner->string);
        cJSON_DetachItemViaPointer(j, inner);
        o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "$branch", (double)i);
        cJSON_AddItemToObject(o, "$value", canon_to_vj(avk_type_branch(t, i), inner));
        cJSON_Delete(j);
        return o;
    }
    case AVK_BYTES:
    case AVK_FIXED: {
        const unsigned char *p = (const unsigned char *)cJSON_GetStringValue(j);
        char *hex = malloc(strlen((const char *)p) * 2 + 1);
        size_t n = 0;
        cJSON *o;
        assert_non_null(hex);
        while (*p) { /* UTF-8 of code points below 256 */
            unsigned c = *p < 0x80 ? *p++ : (unsigned)((p[0] & 0x1f) << 6 | (p[1] & 0x3f));
            if (c >= 0x80)
                p += 2;
            hex[n++] = "0123456789abcdef"[(c >> 4) & 15];
            hex[n++] = "0123456789abcdef"[c & 15];
        }
        hex[n] = 0;
        o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "$bytes_hex", hex);
        free(hex);
        cJSON_Delete(j);
        return o;
    }
    case AVK_RECORD:
        for (i = 0; i < avk_type_field_count(t); i++) {
            const avk_field *f = avk_type_field(t, i);
            cJSON *c = cJSON_DetachItemFromObjectCaseSensitive(j, avk_field_name(f));
            if (c)
                cJSON_AddItemToObject(j, avk_field_name(f), canon_to_vj(avk_field_type(f), c));
        }
        return j;
    case AVK_ARRAY:
    case AVK_MAP: {
        const avk_type *it = avk_type_kind(t) == AVK_ARRAY ? avk_type_items(t)
                                                           : avk_type_values(t);
        cJSON *o = avk_type_kind(t) == AVK_ARRAY ? cJSON_CreateArray() : cJSON_CreateObject();
        while (j->child) {
            cJSON *c = cJSON_DetachItemViaPointer(j, j->child);
            char *key = c->string ? strdup(c->string) : NULL;
            c = canon_to_vj(it, c);
            if (key)
                cJSON_AddItemToObject(o, key, c);
            else
                cJSON_AddItemToArray(o, c);
            free(key);
        }
        cJSON_Delete(j);
        return o;
    }
    default:
        return j;
    }
}

/* line with every integer of 16 digits or more (outside strings) made
 * {"$long": "digits"}: a double cannot hold it. malloc'd. */
static char *wrap_longs(const char *line)
{
    size_t n = strlen(line), i = 0, o = 0;
    char *out = malloc(n * 3 + 1);
    int in_str = 0;
    assert_non_null(out);
    while (i < n) {
        char c = line[i];
        if (in_str) {
            out[o++] = c;
            if (c == '\\' && i + 1 < n)
                out[o++] = line[++i];
            else if (c == '"')
                in_str = 0;
            i++;
            continue;
        }
        if (c == '"') {
            in_str = 1;
            out[o++] = line[i++];
            continue;
        }
        if (c == '-' || (c >= '0' && c <= '9')) {
            size_t j = i + 1;
            while (j < n && line[j] >= '0' && line[j] <= '9')
                j++;
            if (j - i >= 16 && (j == n || (line[j] != '.' && line[j] != 'e' && line[j] != 'E'))) {
                o += (size_t)sprintf(out + o, "{\"$long\": \"%.*s\"}", (int)(j - i), line + i);
                i = j;
                continue;
            }
            memcpy(out + o, line + i, j - i);
            o += j - i;
            i = j;
            continue;
        }
        out[o++] = line[i++];
    }
    out[o] = 0;
    return out;
}

/* The values a push decoder gives for the whole file, against
 * expected/<file>.jsonl (the records readers return before any damage). */
static void expected_check(const uint8_t *d, size_t n, const char *rel)
{
    char path[512], why[256];
    char *text, *line, *save = NULL;
    size_t len, i = 0;
    avk_push_options po;
    avk_push_decoder *pd;
    avk_arena *a, *va;
    avk_error e;
    int got;
    avk_value v;
    snprintf(path, sizeof path, "expected/%s.jsonl", rel);
    text = avkt_interop_read(AVK_INTEROP_DIR, path, &len);
    assert_non_null(text);
    container_options(&po, NULL);
    AVKT_OK(avk_push_decoder_new(&po, &pd, &e));
    AVKT_OK(avk_push_decoder_feed(pd, d, n, &e));
    (void)avk_push_decoder_end(pd, &e); /* records of a block whose marker is cut come after */
    AVKT_OK(avk_arena_new(NULL, &a, NULL));
    AVKT_OK(avk_arena_new(NULL, &va, NULL));
    for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save), i++) {
        avk_value w;
        avk_status st = avk_push_decoder_next(pd, a, &v, &got, &e);
        if (st != AVK_OK || !got)
            fail_msg("%s: record %zu: %s %s", rel, i, avk_status_name(st), e.message);
        {
            const avk_type *t = avk_schema_root(avk_push_decoder_schema(pd));
            char *wrapped = wrap_longs(line);
            cJSON *j = canon_to_vj(t, cJSON_Parse(wrapped));
            free(wrapped);
            if (!avkt_value_from_json(&w, t, j, va, why, sizeof why))
                fail_msg("%s: line %zu: %s", rel, i + 1, why);
            cJSON_Delete(j);
        }
        if (!avk_value_equal(&v, &w)) {
            char *g = avkt_value_to_text(&v);
            fail_msg("%s: record %zu is %s, expected %s", rel, i, g, line);
        }
    }
    /* Nothing more, whether or not an error follows. */
    assert_true(avk_push_decoder_next(pd, a, &v, &got, &e) != AVK_OK || !got);
    avk_push_decoder_free(pd);
    avk_arena_free(a);
    avk_arena_free(va);
    free(text);
}

static void test_interop_containers(void **state)
{
    size_t i;
    (void)state;
    if (!avkt_interop_available(AVK_INTEROP_DIR, "MANIFEST.md"))
        skip();
    for (i = 0; i < sizeof interop_files / sizeof *interop_files; i++) {
        size_t n;
        char *d = avkt_interop_read(AVK_INTEROP_DIR, interop_files[i], &n);
        outcome want;
        assert_non_null(d);
        container_check((const uint8_t *)d, n, NULL, interop_files[i], 1);
        pull_file((const uint8_t *)d, n, NULL, &want);
        if (want.n > 0)
            expected_check((const uint8_t *)d, n, interop_files[i]);
        oc_free(&want);
        free(d);
    }
}

/* ---- containers written here ----------------------------------------------------------------- */

static const char REC[] =
    "{'type': 'record', 'name': 'R', 'namespace': 'test.push', 'fields': ["
    " {'name': 'id', 'type': 'long'},"
    " {'name': 'name', 'type': 'string'},"
    " {'name': 'tags', 'type': {'type': 'array', 'items': 'string'}},"
    " {'name': 'attrs', 'type': {'type': 'map', 'values': 'int'}},"
    " {'name': 'opt', 'type': ['null', 'long', 'string']},"
    " {'name': 'blob', 'type': 'bytes'},"
    " {'name': 'score', 'type': 'double'}]}";

/* Record i of REC as JSON text (value_json's forms), varied in size. */
static void rec_text(char *out, size_t cap, size_t i, avkt_rng *rng)
{
    size_t tags = (size_t)avkt_below(rng, 4), k, at;
    int64_t id = avkt_mixed_long(rng);
    at = (size_t)snprintf(out, cap, "{\"id\": {\"$long\": \"%lld\"}, \"name\": \"n%zu-%.*s\", \"tags\": [",
                          (long long)id, i, (int)avkt_below(rng, 40),
                          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ");
    for (k = 0; k < tags; k++)
        at += (size_t)snprintf(out + at, cap - at, "%s\"t%zu\"", k ? ", " : "", k * i);
    at += (size_t)snprintf(out + at, cap - at, "], \"attrs\": {");
    for (k = 0; k < i % 3; k++)
        at += (size_t)snprintf(out + at, cap - at, "%s\"k%zu\": %d", k ? ", " : "", k,
                               (int)avkt_mixed_int(rng));
    switch (i % 3) {
    case 0:
        at += (size_t)snprintf(out + at, cap - at, "}, \"opt\": null");
        break;
    case 1:
        at += (size_t)snprintf(out + at, cap - at, "}, \"opt\": {\"$branch\": 1, \"$value\": {\"$long\": \"%lld\"}}",
                               (long long)avkt_mixed_long(rng));
        break;
    default:
        at += (size_t)snprintf(out + at, cap - at, "}, \"opt\": {\"$branch\": 2, \"$value\": \"o%zu\"}", i);
    }
    snprintf(out + at, cap - at, ", \"blob\": {\"$bytes_hex\": \"00ff%04zx\"}, \"score\": %zu.5}", i, i);
}

static avk_value *rec_values(const avk_schema *s, size_t count, avk_arena *a)
{
    avk_value *vals = calloc(count, sizeof *vals);
    char text[1024], why[256];
    avkt_rng rng = {42};
    size_t i;
    assert_non_null(vals);
    for (i = 0; i < count; i++) {
        rec_text(text, sizeof text, i, &rng);
        if (!avkt_value_from_text(&vals[i], avk_schema_root(s), text, a, why, sizeof why))
            fail_msg("record %zu %s: %s", i, text, why);
    }
    return vals;
}

static void write_container(const avk_schema *s, const avk_value *vals, size_t count,
                            avk_codec codec, size_t block_bytes, gbuf *out)
{
    avk_file_writer_options o;
    avk_file_writer *fw;
    avk_error e;
    size_t i;
    avk_file_writer_options_init(&o);
    o.codec = codec;
    o.block_bytes = block_bytes;
    AVKT_OK(avk_file_writer_open_sink(gb_sink, out, s, &o, &fw, &e));
    for (i = 0; i < count; i++)
        AVKT_OK(avk_file_writer_append(fw, &vals[i], &e));
    AVKT_OK(avk_file_writer_close(fw, &e)); /* frees it */
}

/* Offsets of the blocks of a whole file (from the pull reader). */
static size_t block_offsets(const uint8_t *d, size_t n, uint64_t *offs, size_t cap)
{
    avk_file_reader *fr;
    avk_file_block b;
    avk_error e;
    int more;
    size_t k = 0;
    AVKT_OK(avk_file_reader_open_memory(d, n, NULL, &fr, &e));
    while (k < cap) {
        AVKT_OK(avk_file_reader_next_block(fr, &b, &more, &e));
        if (!more)
            break;
        offs[k++] = b.offset;
    }
    avk_file_reader_free(fr);
    return k;
}

#define NWRITTEN 60

static void test_written_containers(void **state)
{
    avk_schema *s = AVKT_PARSE(REC);
    avk_arena *a;
    avk_value *vals;
    int c;
    (void)state;
    AVKT_OK(avk_arena_new(NULL, &a, NULL));
    vals = rec_values(s, NWRITTEN, a);
    for (c = 0; c < AVK_CODEC_COUNT; c++) {
        gbuf f = {0};
        char name[64];
        outcome want;
        size_t i;
        if (!avk_codec_available((avk_codec)c))
            continue;
        write_container(s, vals, NWRITTEN, (avk_codec)c, 200, &f);
        snprintf(name, sizeof name, "written %s", avk_codec_name((avk_codec)c));
        pull_file(f.p, f.len, NULL, &want);
        assert_int_equal(want.n, NWRITTEN);
        AVKT_OK(want.st);
        for (i = 0; i < NWRITTEN; i++)
            assert_true(avk_value_equal(want.vals[i], &vals[i]));
        oc_free(&want);
        container_check(f.p, f.len, NULL, name, c == AVK_CODEC_NULL || c == AVK_CODEC_DEFLATE);
        gb_free(&f);
    }
    free(vals);
    avk_arena_free(a);
    avk_schema_free(s);
}

/* Damage of every kind the reader reports, at the same place, after the
 * same records, with the same message. */
static void test_damaged_containers(void **state)
{
    avk_schema *s = AVKT_PARSE(REC);
    avk_arena *a;
    avk_value *vals;
    gbuf f = {0}, g = {0};
    uint64_t offs[64];
    size_t nb, k;
    avk_file_reader_options fo;
    outcome want;
    (void)state;
    AVKT_OK(avk_arena_new(NULL, &a, NULL));
    vals = rec_values(s, 60, a);
    write_container(s, vals, 60, AVK_CODEC_NULL, 300, &f);
    nb = block_offsets(f.p, f.len, offs, 64);
    assert_true(nb >= 6);
    {
        struct {
            const char *name;
            size_t at;
            uint8_t byte;
            avk_status st;
        } cases[] = {
            {"bad sync", (size_t)offs[3] - 5, 0, AVK_ERR_SYNC},
            {"negative count", (size_t)offs[2], 0x01, AVK_ERR_MALFORMED},
            {"count too small", (size_t)offs[4], 0x02, AVK_ERR_MALFORMED},
            {"count too large", (size_t)offs[1], 0x7e, AVK_ERR_MALFORMED},
            {"bad varint", (size_t)offs[5], 0xff, AVK_ERR_MALFORMED},
        };
        for (k = 0; k < sizeof cases / sizeof *cases; k++) {
            g.len = 0;
            gb_put(&g, f.p, f.len);
            if (strcmp(cases[k].name, "bad sync") == 0)
                g.p[cases[k].at] ^= 0x55;
            else if (strcmp(cases[k].name, "bad varint") == 0)
                memset(g.p + cases[k].at, 0xff, 11);
            else
                g.p[cases[k].at] = cases[k].byte;
            pull_file(g.p, g.len, NULL, &want);
            AVKT_ASSERT_STATUS(want.st, cases[k].st);
            assert_true(want.n > 0);
            oc_free(&want);
            container_check(g.p, g.len, NULL, cases[k].name, 0);
        }
    }
    /* Limits: a block over max_block_bytes, records over a size limit. */
    avk_file_reader_options_init(&fo);
    fo.max_block_bytes = 200;
    container_check(f.p, f.len, &fo, "max_block_bytes", 0);
    avk_file_reader_options_init(&fo);
    fo.limits.max_bytes = 20;
    container_check(f.p, f.len, &fo, "max_bytes", 0);
    /* A header whose magic, schema, codec are wrong. */
    g.len = 0;
    gb_put(&g, f.p, f.len);
    g.p[2] = 'x';
    container_check(g.p, 64, NULL, "bad magic", 1);
    /* A deflate file with a byte of compressed data flipped. */
    gb_free(&f);
    write_container(s, vals, 60, AVK_CODEC_DEFLATE, 300, &f);
    nb = block_offsets(f.p, f.len, offs, 64);
    f.p[offs[2] + 6] ^= 0x21;
    container_check(f.p, f.len, NULL, "bad deflate data", 0);
    gb_free(&f);
    gb_free(&g);
    free(vals);
    avk_arena_free(a);
    avk_schema_free(s);
}

/* Strings of a null-codec block point into the decoder's buffer: they
 * survive feeds of nothing, and next, until the next real feed. With a
 * reader schema, records come out resolved as the pull reader gives them. */
static void test_container_reader_schema(void **state)
{
    avk_schema *s = AVKT_PARSE(REC), *rs;
    avk_arena *a;
    avk_value *vals;
    gbuf f = {0};
    avk_file_reader_options fo;
    (void)state;
    rs = AVKT_PARSE("{'type': 'record', 'name': 'R', 'namespace': 'test.push', 'fields': ["
                    " {'name': 'name', 'type': 'string'},"
                    " {'name': 'extra', 'type': 'int', 'default': 7},"
                    " {'name': 'id', 'type': 'double'}]}");
    AVKT_OK(avk_arena_new(NULL, &a, NULL));
    vals = rec_values(s, 40, a);
    write_container(s, vals, 40, AVK_CODEC_NULL, 500, &f);
    avk_file_reader_options_init(&fo);
    fo.reader_schema = rs;
    container_check(f.p, f.len, &fo, "reader schema", 0);
    /* Schema and offset. */
    {
        avk_push_options po;
        avk_push_decoder *pd;
        avk_error e;
        avk_value v;
        int got;
        uint64_t offs[64];
        size_t nb = block_offsets(f.p, f.len, offs, 64), i;
        container_options(&po, NULL);
        AVKT_OK(avk_push_decoder_new(&po, &pd, &e));
        assert_null(avk_push_decoder_schema(pd));
        AVKT_OK(avk_push_decoder_feed(pd, f.p, (size_t)offs[0] - 1, &e));
        AVKT_OK(avk_push_decoder_next(pd, a, &v, &got, &e));
        assert_int_equal(got, 0);
        assert_null(avk_push_decoder_schema(pd));
        AVKT_ASSERT_I64_EQ(avk_push_decoder_offset(pd), 0);
        AVKT_OK(avk_push_decoder_feed(pd, f.p + offs[0] - 1, (size_t)(offs[1] - offs[0]), &e));
        AVKT_OK(avk_push_decoder_next(pd, a, &v, &got, &e));
        assert_int_equal(got, 0); /* the block's last byte is missing */
        assert_non_null(avk_push_decoder_schema(pd));
        AVKT_OK(avk_push_decoder_feed(pd, f.p + offs[1] - 1, 1, &e));
        AVKT_OK(avk_push_decoder_next(pd, a, &v, &got, &e));
        assert_int_equal(got, 1);
        assert_non_null(avk_push_decoder_schema(pd));
        AVKT_ASSERT_I64_EQ(avk_push_decoder_offset(pd), offs[0]);
        assert_true(avk_value_equal(&v, &vals[0]));
        for (i = 1;; i++) {
            AVKT_OK(avk_push_decoder_next(pd, a, &v, &got, &e));
            if (!got)
                break;
            assert_true(avk_value_equal(&v, &vals[i]));
        }
        /* Block 1 begun: the end says where it starts. */
        AVKT_ASSERT_I64_EQ(avk_push_decoder_offset(pd), offs[1]);
        AVKT_OK(avk_push_decoder_end(pd, &e));
        avk_push_decoder_free(pd);
        AVKT_OK(avk_push_decoder_new(&po, &pd, &e));
        AVKT_OK(avk_push_decoder_feed(pd, f.p, (size_t)offs[1] + 3, &e));
        for (i = 0;; i++) {
            AVKT_OK(avk_push_decoder_next(pd, a, &v, &got, &e));
            if (!got)
                break;
        }
        AVKT_ASSERT_I64_EQ(avk_push_decoder_offset(pd), offs[1]);
        AVKT_ASSERT_STATUS(avk_push_decoder_end(pd, &e), AVK_ERR_TRUNCATED);
        AVKT_ASSERT_I64_EQ(e.offset, offs[1]);
        {
            outcome want;
            pull_file(f.p, (size_t)offs[1] + 3, NULL, &want);
            AVKT_ASSERT_STATUS(want.st, AVK_ERR_TRUNCATED);
            assert_string_equal(e.message, want.err.message);
            oc_free(&want);
        }
        avk_push_decoder_free(pd);
        (void)nb;
    }
    gb_free(&f);
    free(vals);
    avk_arena_free(a);
    avk_schema_free(rs);
    avk_schema_free(s);
}

static void test_container_edges(void **state)
{
    avk_push_options po;
    avk_push_decoder *pd;
    avk_error e;
    avk_value v;
    avk_arena *a;
    int got;
    avk_schema *s = AVKT_PARSE(REC);
    avk_value *vals;
    gbuf f = {0};
    (void)state;
    AVKT_OK(avk_arena_new(NULL, &a, NULL));
    /* No bytes at all: no container header. */
    container_options(&po, NULL);
    AVKT_OK(avk_push_decoder_new(&po, &pd, &e));
    AVKT_OK(avk_push_decoder_next(pd, a, &v, &got, &e));
    assert_int_equal(got, 0);
    AVKT_ASSERT_STATUS(avk_push_decoder_end(pd, &e), AVK_ERR_TRUNCATED);
    AVKT_ASSERT_I64_EQ(e.offset, 0);
    AVKT_ASSERT_STATUS(avk_push_decoder_next(pd, a, &v, &got, &e), AVK_ERR_TRUNCATED);
    AVKT_ASSERT_STATUS(avk_push_decoder_feed(pd, "x", 1, &e), AVK_ERR_TRUNCATED);
    avk_push_decoder_free(pd);
    /* max_message: a block larger than it. */
    vals = rec_values(s, 50, a);
    write_container(s, vals, 50, AVK_CODEC_NULL, 4000, &f);
    po.max_message = 1000;
    AVKT_OK(avk_push_decoder_new(&po, &pd, &e));
    AVKT_ASSERT_STATUS(avk_push_decoder_feed(pd, f.p, f.len, &e), AVK_OK);
    AVKT_ASSERT_STATUS(avk_push_decoder_next(pd, a, &v, &got, &e), AVK_ERR_LIMIT);
    assert_non_null(strstr(e.message, "max_message"));
    AVKT_ASSERT_STATUS(avk_push_decoder_feed(pd, "x", 1, &e), AVK_ERR_LIMIT);
    avk_push_decoder_free(pd);
    /* ... found out as soon as the block's size is there. */
    AVKT_OK(avk_push_decoder_new(&po, &pd, &e));
    AVKT_OK(avk_push_decoder_feed(pd, f.p, 900, &e));
    AVKT_ASSERT_STATUS(avk_push_decoder_next(pd, a, &v, &got, &e), AVK_ERR_LIMIT);
    assert_int_equal(got, 0);
    AVKT_ASSERT_STATUS(avk_push_decoder_feed(pd, f.p + 900, 200, &e), AVK_ERR_LIMIT);
    avk_push_decoder_free(pd);
    /* Bad arguments. */
    po.input = (avk_push_input)7;
    AVKT_ASSERT_STATUS(avk_push_decoder_new(&po, &pd, &e), AVK_ERR_INVALID_ARGUMENT);
    po.input = AVK_PUSH_CONTAINER;
    po.struct_size = 3;
    AVKT_ASSERT_STATUS(avk_push_decoder_new(&po, &pd, &e), AVK_ERR_INVALID_ARGUMENT);
    gb_free(&f);
    free(vals);
    avk_arena_free(a);
    avk_schema_free(s);
}

/* One byte at a time through a 1 MB file of many blocks costs about as
 * much as feeding it whole: nothing is tried again until a block can be
 * whole, and used bytes are dropped in amortised O(1). */
#define NLINEAR 20000

static void test_container_linear(void **state)
{
    avk_schema *s = AVKT_PARSE(REC);
    avk_arena *a;
    avk_value *vals, v;
    gbuf f = {0};
    avk_push_options po;
    avk_push_decoder *pd;
    avk_error e;
    size_t i, count = 0, n;
    int got;
    clock_t t0;
    double secs;
    (void)state;
    AVKT_OK(avk_arena_new(NULL, &a, NULL));
    vals = rec_values(s, 100, a);
    {
        avk_file_writer_options o;
        avk_file_writer *fw;
        size_t k;
        avk_file_writer_options_init(&o);
        o.block_bytes = 4096;
        AVKT_OK(avk_file_writer_open_sink(gb_sink, &f, s, &o, &fw, &e));
        for (k = 0; k < NLINEAR; k++)
            AVKT_OK(avk_file_writer_append(fw, &vals[k % 100], &e));
        AVKT_OK(avk_file_writer_close(fw, &e));
    }
    assert_true(f.len >= ((size_t)1 << 20));
    n = f.len;
    container_options(&po, NULL);
    AVKT_OK(avk_push_decoder_new(&po, &pd, &e));
    t0 = clock();
    for (i = 0; i < n; i++) {
        AVKT_OK(avk_push_decoder_feed(pd, f.p + i, 1, &e));
        for (;;) {
            AVKT_OK(avk_push_decoder_next(pd, a, &v, &got, &e));
            if (!got)
                break;
            if (!avk_value_equal(&v, &vals[count % 100]))
                fail_msg("record %zu differs", count);
            count++;
        }
    }
    AVKT_OK(avk_push_decoder_end(pd, &e));
    secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    assert_int_equal(count, NLINEAR);
    AVKT_ASSERT_I64_EQ(avk_push_decoder_offset(pd), n);
    avk_push_decoder_free(pd);
    /* Quadratic work would take minutes; linear takes well under a second
     * (a sanitizer build included). */
    if (secs > 10.0)
        fail_msg("one byte at a time through %zu bytes took %.2f s", n, secs);
    gb_free(&f);
    free(vals);
    avk_arena_free(a);
    avk_schema_free(s);
}

/* ---- messages -------------------------------------------------------------------------------- */

#define NMSG 60

typedef struct msgs {
    avk_schema *schema;
    avk_plan *plan;
    avk_schema_store *store;
    const avk_schema *stored;
    avk_arena *arena;
    avk_value *vals;
    gbuf raw, so, cf;  /* back to back */
    gbuf lraw, lso, lcf; /* length-prefixed */
    size_t ends[NMSG]; /* end of each raw message */
} msgs;

static void put_be32(gbuf *b, size_t n)
{
    uint8_t h[4] = {(uint8_t)(n >> 24), (uint8_t)(n >> 16), (uint8_t)(n >> 8), (uint8_t)n};
    gb_put(b, h, 4);
}

static void msgs_make(msgs *m)
{
    avk_schema_store_options so;
    avk_message_encoder enc[3];
    avk_error e;
    gbuf *backs[3], *prefixed[3];
    size_t i, f;
    memset(m, 0, sizeof *m);
    m->schema = AVKT_PARSE(REC);
    m->plan = avkt_plan_new(avk_schema_root(m->schema), 0, NULL, 0);
    AVKT_OK(avk_arena_new(NULL, &m->arena, NULL));
    m->vals = rec_values(m->schema, NMSG, m->arena);
    memset(&so, 0, sizeof so);
    so.struct_size = sizeof so;
    AVKT_OK(avk_schema_store_new(&so, &m->store, &e));
    {
        const char *json = avkt_q(REC);
        AVKT_OK(avk_schema_store_add(m->store, json, strlen(json), 77, &m->stored, &e));
    }
    backs[0] = &m->raw;
    backs[1] = &m->so;
    backs[2] = &m->cf;
    prefixed[0] = &m->lraw;
    prefixed[1] = &m->lso;
    prefixed[2] = &m->lcf;
    for (f = 0; f < 3; f++)
        AVKT_OK(avk_message_encoder_init(&enc[f], (avk_framing)f, m->plan, 77, &e));
    for (i = 0; i < NMSG; i++) {
        for (f = 0; f < 3; f++) {
            avk_writer w;
            const uint8_t *d;
            size_t len;
            AVKT_OK(avk_writer_init_memory(&w, NULL, &e));
            AVKT_OK(avk_message_encode(&enc[f], &m->vals[i], &w, &e));
            d = avk_writer_data(&w, &len);
            gb_put(backs[f], d, len);
            put_be32(prefixed[f], len);
            gb_put(prefixed[f], d, len);
            avk_writer_destroy(&w);
        }
        m->ends[i] = m->raw.len;
    }
}

static void msgs_free(msgs *m)
{
    gb_free(&m->raw);
    gb_free(&m->so);
    gb_free(&m->cf);
    gb_free(&m->lraw);
    gb_free(&m->lso);
    gb_free(&m->lcf);
    free(m->vals);
    avk_arena_free(m->arena);
    avk_schema_store_free(m->store);
    avk_plan_free(m->plan);
    avk_schema_free(m->schema);
}

static void message_options(avk_push_options *po, const msgs *m, avk_push_input in, avk_framing fr)
{
    memset(po, 0, sizeof *po);
    po->struct_size = sizeof *po;
    po->input = in;
    po->message.struct_size = sizeof po->message;
    po->message.framing = fr;
    po->message.plan = m->plan;
    po->message.store = m->store;
}

/* The pull side of raw datums: avk_plan_decode in a loop over memory. */
static void pull_raw(const avk_plan *plan, const uint8_t *d, size_t n, outcome *o)
{
    avk_reader r;
    oc_init(o);
    avk_reader_init_memory(&r, n ? d : (const void *)"", n);
    while (r.pos < r.end) {
        o->st = avk_plan_decode(plan, &r, o->arena, oc_slot(o), &o->err);
        if (o->st != AVK_OK)
            return;
        o->n++;
    }
}

/* The pull side of framed messages: each decoded alone. */
static void pull_framed(const msgs *m, avk_framing fr, const gbuf *b, outcome *o)
{
    avk_message_decoder_options mo;
    avk_message_decoder *dec;
    avk_error e;
    size_t i, at = 0, hs = fr == AVK_FRAMING_SINGLE_OBJECT ? 10 : 5;
    memset(&mo, 0, sizeof mo);
    mo.struct_size = sizeof mo;
    mo.framing = fr;
    mo.store = m->store;
    mo.plan = m->plan;
    AVKT_OK(avk_message_decoder_new(&mo, &dec, &e));
    oc_init(o);
    for (i = 0; i < NMSG; i++) {
        size_t len = (fr == AVK_FRAMING_RAW ? 0 : hs * (i + 1)) + m->ends[i] - at;
        AVKT_OK(avk_message_decode(dec, b->p + at, len, o->arena, oc_slot(o), &e));
        assert_true(avk_value_equal(o->vals[o->n], &m->vals[i]));
        o->n++;
        at += len;
        if (fr == AVK_FRAMING_RAW)
            at = m->ends[i];
    }
    assert_int_equal(at, b->len);
    avk_message_decoder_free(dec);
}

static void test_raw_messages(void **state)
{
    msgs m;
    outcome want;
    avk_push_options po;
    size_t k, i, cuts[2];
    char what[128];
    (void)state;
    msgs_make(&m);
    pull_raw(m.plan, m.raw.p, m.raw.len, &want);
    AVKT_OK(want.st);
    assert_int_equal(want.n, NMSG);
    for (i = 0; i < NMSG; i++)
        assert_true(avk_value_equal(want.vals[i], &m.vals[i]));
    message_options(&po, &m, AVK_PUSH_MESSAGES, AVK_FRAMING_RAW);
    every_split(m.raw.p, m.raw.len, &po, &want, "raw datums");
    oc_free(&want);
    /* Every prefix: the values whole in it, then the decoder's TRUNCATED
     * (same offset and message: offsets count from the first byte). */
    for (k = 0; k <= m.raw.len; k++) {
        pull_raw(m.plan, m.raw.p, k, &want);
        cuts[0] = k / 3;
        cuts[1] = k;
        snprintf(what, sizeof what, "raw datums: prefix of %zu bytes", k);
        push_check(m.raw.p, k, &po, cuts, 2, &want, what);
        oc_free(&want);
    }
    msgs_free(&m);
}

static void test_framed_messages(void **state)
{
    msgs m;
    outcome want;
    avk_push_options po;
    int f;
    (void)state;
    msgs_make(&m);
    for (f = 1; f < 3; f++) {
        const gbuf *b = f == 1 ? &m.so : &m.cf;
        char name[64];
        pull_framed(&m, (avk_framing)f, b, &want);
        message_options(&po, &m, AVK_PUSH_MESSAGES, (avk_framing)f);
        snprintf(name, sizeof name, "%s back to back", avk_framing_name((avk_framing)f));
        every_split(b->p, b->len, &po, &want, name);
        oc_free(&want);
    }
    for (f = 0; f < 3; f++) {
        const gbuf *b = f == 0 ? &m.lraw : f == 1 ? &m.lso : &m.lcf;
        char name[64];
        pull_framed(&m, (avk_framing)f, f == 0 ? &m.raw : f == 1 ? &m.so : &m.cf, &want);
        message_options(&po, &m, AVK_PUSH_LENGTH_PREFIXED, (avk_framing)f);
        snprintf(name, sizeof name, "%s length-prefixed", avk_framing_name((avk_framing)f));
        every_split(b->p, b->len, &po, &want, name);
        oc_free(&want);
    }
    msgs_free(&m);
}

/* Feeds all of d, then drains: values and errors in order. */
static avk_status feed_all(avk_push_decoder *pd, const void *d, size_t n, avk_arena *a,
                           avk_value *v, int *got, avk_error *e)
{
    AVKT_OK(avk_push_decoder_feed(pd, d, n, e));
    return avk_push_decoder_next(pd, a, v, got, e);
}

static void test_message_errors(void **state)
{
    msgs m;
    avk_push_options po;
    avk_push_decoder *pd;
    avk_error e;
    avk_value v;
    avk_arena *a;
    int got;
    size_t len0, len1;
    gbuf b = {0};
    (void)state;
    msgs_make(&m);
    AVKT_OK(avk_arena_new(NULL, &a, NULL));
    /* Length-prefixed: a bad marker drops that message; the next decodes. */
    len0 = ((size_t)m.lso.p[0] << 24 | (size_t)m.lso.p[1] << 16 | (size_t)m.lso.p[2] << 8 |
            m.lso.p[3]);
    gb_put(&b, m.lso.p, m.lso.len);
    b.p[4 + len0 + 4] = 0xC4;
    message_options(&po, &m, AVK_PUSH_LENGTH_PREFIXED, AVK_FRAMING_SINGLE_OBJECT);
    AVKT_OK(avk_push_decoder_new(&po, &pd, &e));
    AVKT_OK(feed_all(pd, b.p, b.len, a, &v, &got, &e));
    assert_int_equal(got, 1);
    assert_true(avk_value_equal(&v, &m.vals[0]));
    AVKT_ASSERT_I64_EQ(avk_push_decoder_offset(pd), 4 + len0);
    AVKT_ASSERT_STATUS(avk_push_decoder_next(pd, a, &v, &got, &e), AVK_ERR_MALFORMED);
    assert_int_equal(got, 0);
    AVKT_ASSERT_I64_EQ(e.offset, 4 + len0 + 4);
    AVKT_OK(avk_push_decoder_next(pd, a, &v, &got, &e));
    assert_int_equal(got, 1);
    assert_true(avk_value_equal(&v, &m.vals[2]));
    assert_true(avk_push_decoder_schema(pd) == m.stored);
    avk_push_decoder_free(pd);
    /* Back to back, the same damage is final. */
    b.len = 0;
    gb_put(&b, m.so.p, m.so.len);
    len1 = 10 + m.ends[0];
    b.p[len1 + 1] = 0x02;
    message_options(&po, &m, AVK_PUSH_MESSAGES, AVK_FRAMING_SINGLE_OBJECT);
    AVKT_OK(avk_push_decoder_new(&po, &pd, &e));
    AVKT_OK(feed_all(pd, b.p, b.len, a, &v, &got, &e));
    assert_int_equal(got, 1);
    AVKT_ASSERT_STATUS(avk_push_decoder_next(pd, a, &v, &got, &e), AVK_ERR_MALFORMED);
    AVKT_ASSERT_I64_EQ(e.offset, len1); /* the message's first byte */
    AVKT_ASSERT_STATUS(avk_push_decoder_next(pd, a, &v, &got, &e), AVK_ERR_MALFORMED);
    AVKT_ASSERT_STATUS(avk_push_decoder_feed(pd, "x", 1, &e), AVK_ERR_MALFORMED);
    AVKT_ASSERT_STATUS(avk_push_decoder_end(pd, &e), AVK_ERR_MALFORMED);
    avk_push_decoder_free(pd);
    /* An unknown schema id is final too. */
    b.len = 0;
    gb_put(&b, m.cf.p, m.cf.len);
    b.p[4] = 78;
    message_options(&po, &m, AVK_PUSH_MESSAGES, AVK_FRAMING_CONFLUENT);
    AVKT_OK(avk_push_decoder_new(&po, &pd, &e));
    AVKT_ASSERT_STATUS(feed_all(pd, b.p, b.len, a, &v, &got, &e), AVK_ERR_NOT_FOUND);
    avk_push_decoder_free(pd);
    /* max_message: a length prefix above it. */
    message_options(&po, &m, AVK_PUSH_LENGTH_PREFIXED, AVK_FRAMING_RAW);
    po.max_message = 16;
    AVKT_OK(avk_push_decoder_new(&po, &pd, &e));
    AVKT_ASSERT_STATUS(feed_all(pd, "\0\0\0\x11", 4, a, &v, &got, &e), AVK_ERR_LIMIT);
    assert_non_null(strstr(e.message, "max_message"));
    avk_push_decoder_free(pd);
    /* ... and a raw datum longer than it, found out as bytes come. */
    message_options(&po, &m, AVK_PUSH_MESSAGES, AVK_FRAMING_RAW);
    po.max_message = 16;
    AVKT_OK(avk_push_decoder_new(&po, &pd, &e));
    {
        size_t i;
        avk_status st = AVK_OK;
        for (i = 0; i < m.raw.len && st == AVK_OK; i++) {
            st = avk_push_decoder_feed(pd, m.raw.p + i, 1, &e);
            if (st == AVK_OK)
                st = avk_push_decoder_next(pd, a, &v, &got, &e);
        }
        AVKT_ASSERT_STATUS(st, AVK_ERR_LIMIT);
        assert_non_null(strstr(e.message, "max_message"));
    }
    avk_push_decoder_free(pd);
    /* The end inside a message: TRUNCATED at its first byte, for every
     * framing and input. */
    {
        struct {
            avk_push_input in;
            avk_framing fr;
            const gbuf *b;
            size_t first; /* length of the first message */
        } c[] = {
            {AVK_PUSH_MESSAGES, AVK_FRAMING_RAW, &m.raw, m.ends[0]},
            {AVK_PUSH_MESSAGES, AVK_FRAMING_SINGLE_OBJECT, &m.so, 10 + m.ends[0]},
            {AVK_PUSH_MESSAGES, AVK_FRAMING_CONFLUENT, &m.cf, 5 + m.ends[0]},
            {AVK_PUSH_LENGTH_PREFIXED, AVK_FRAMING_RAW, &m.lraw, 4 + m.ends[0]},
        };
        size_t i, cut;
        for (i = 0; i < sizeof c / sizeof *c; i++) {
            for (cut = 1; cut < 12; cut++) {
                message_options(&po, &m, c[i].in, c[i].fr);
                AVKT_OK(avk_push_decoder_new(&po, &pd, &e));
                AVKT_OK(feed_all(pd, c[i].b->p, c[i].first + cut, a, &v, &got, &e));
                assert_int_equal(got, 1);
                AVKT_OK(avk_push_decoder_next(pd, a, &v, &got, &e));
                assert_int_equal(got, 0);
                AVKT_ASSERT_STATUS(avk_push_decoder_end(pd, &e), AVK_ERR_TRUNCATED);
                AVKT_ASSERT_I64_EQ(e.offset, c[i].first);
                AVKT_ASSERT_STATUS(avk_push_decoder_next(pd, a, &v, &got, &e),
                                   AVK_ERR_TRUNCATED);
                AVKT_ASSERT_I64_EQ(avk_push_decoder_offset(pd), c[i].first);
                avk_push_decoder_free(pd);
            }
        }
    }
    /* An empty stream ends well. */
    AVKT_OK(avk_push_decoder_new(&po, &pd, &e));
    AVKT_OK(avk_push_decoder_end(pd, &e));
    AVKT_ASSERT_STATUS(avk_push_decoder_feed(pd, "x", 1, &e), AVK_ERR_INVALID_ARGUMENT);
    avk_push_decoder_free(pd);
    /* Options a framing needs. */
    message_options(&po, &m, AVK_PUSH_MESSAGES, AVK_FRAMING_RAW);
    po.message.plan = NULL;
    AVKT_ASSERT_STATUS(avk_push_decoder_new(&po, &pd, &e), AVK_ERR_INVALID_ARGUMENT);
    message_options(&po, &m, AVK_PUSH_MESSAGES, AVK_FRAMING_CONFLUENT);
    po.message.store = NULL;
    AVKT_ASSERT_STATUS(avk_push_decoder_new(&po, &pd, &e), AVK_ERR_INVALID_ARGUMENT);
    gb_free(&b);
    avk_arena_free(a);
    msgs_free(&m);
}

/* ---- regression tests ------------------------------------------------------------------------ */

static avk_push_decoder *raw_decoder(const avk_plan *plan, avk_push_input in, avk_framing fr,
                                     avk_schema_store *store, uint64_t max_message)
{
    avk_push_options po;
    avk_push_decoder *pd = NULL;
    memset(&po, 0, sizeof po);
    po.struct_size = sizeof po;
    po.input = in;
    po.message.struct_size = sizeof po.message;
    po.message.framing = fr;
    po.message.plan = plan;
    po.message.store = store;
    po.max_message = max_message;
    AVKT_OK(avk_push_decoder_new(&po, &pd, NULL));
    return pd;
}

/* A length-prefixed "bytes" datum of len bytes: prefix, zigzag varint length, the bytes. */
static void bytes_message(gbuf *b, size_t len)
{
    size_t blen = len - 2; /* a 2-byte varint: 64 <= blen < 8192 */
    uint64_t z = (uint64_t)blen << 1;
    uint8_t v[2] = {(uint8_t)(0x80 | (z & 0x7f)), (uint8_t)(z >> 7)};
    size_t i;
    assert_true(blen >= 64 && blen < 8192);
    put_be32(b, len);
    gb_put(b, v, 2);
    for (i = 0; i < blen; i++) {
        uint8_t c = (uint8_t)i;
        gb_put(b, &c, 1);
    }
}

/* A message of exactly max_message bytes decodes however it is cut in two; one byte more is
 * LIMIT. */
static void test_length_prefixed_max_message_exact(void **state)
{
    avk_schema *s = AVKT_PARSE("\"bytes\"");
    avk_plan *plan = avkt_plan_new(avk_schema_root(s), 0, NULL, 0);
    avk_arena *a;
    avk_push_decoder *pd;
    avk_value v;
    avk_error e;
    gbuf b = {0};
    size_t k;
    int got;
    (void)state;
    AVKT_OK(avk_arena_new(NULL, &a, NULL));
    bytes_message(&b, 100);
    assert_int_equal(b.len, 104);
    for (k = 0; k <= b.len; k++) {
        pd = raw_decoder(plan, AVK_PUSH_LENGTH_PREFIXED, AVK_FRAMING_RAW, NULL, 100);
        AVKT_OK(avk_push_decoder_feed(pd, b.p, k, &e));
        AVKT_OK(avk_push_decoder_next(pd, a, &v, &got, &e));
        if (got == 0) {
            AVKT_OK(avk_push_decoder_feed(pd, b.p + k, b.len - k, &e));
            AVKT_OK(avk_push_decoder_next(pd, a, &v, &got, &e));
        } else {
            assert_int_equal(k, b.len);
        }
        if (got != 1)
            fail_msg("split at %zu: no value", k);
        assert_int_equal(v.u.bytes.len, 98);
        AVKT_OK(avk_push_decoder_next(pd, a, &v, &got, &e));
        assert_int_equal(got, 0);
        AVKT_OK(avk_push_decoder_end(pd, &e));
        avk_push_decoder_free(pd);
    }
    b.len = 0;
    bytes_message(&b, 101);
    for (k = 4; k <= b.len; k++) {
        avk_status st;
        pd = raw_decoder(plan, AVK_PUSH_LENGTH_PREFIXED, AVK_FRAMING_RAW, NULL, 100);
        AVKT_OK(avk_push_decoder_feed(pd, b.p, k, &e));
        st = avk_push_decoder_next(pd, a, &v, &got, &e);
        AVKT_ASSERT_STATUS(st, AVK_ERR_LIMIT);
        assert_int_equal(got, 0);
        assert_non_null(strstr(e.message, "max_message"));
        avk_push_decoder_free(pd);
    }
    gb_free(&b);
    avk_arena_free(a);
    avk_plan_free(plan);
    avk_schema_free(s);
}

/* end() with a length prefix past max_message left over, next never called: LIMIT. */
static void test_length_prefixed_end_limit(void **state)
{
    avk_schema *s = AVKT_PARSE("\"bytes\"");
    avk_plan *plan = avkt_plan_new(avk_schema_root(s), 0, NULL, 0);
    avk_push_decoder *pd;
    avk_error e;
    static const uint8_t d[] = {0x7f, 0xff, 0xff, 0xff, 0x01, 0x02, 0x03};
    (void)state;
    pd = raw_decoder(plan, AVK_PUSH_LENGTH_PREFIXED, AVK_FRAMING_RAW, NULL, 100);
    AVKT_OK(avk_push_decoder_feed(pd, d, sizeof d, &e));
    AVKT_ASSERT_STATUS(avk_push_decoder_end(pd, &e), AVK_ERR_LIMIT);
    avk_push_decoder_free(pd);
    avk_plan_free(plan);
    avk_schema_free(s);
}

/* Back to back: a first byte that starts no message is MALFORMED at once. */
static void test_back_to_back_bad_first_byte(void **state)
{
    avk_schema_store *store;
    avk_push_decoder *pd;
    avk_arena *a;
    avk_value v;
    avk_error e;
    int got = -1;
    (void)state;
    AVKT_OK(avk_schema_store_new(NULL, &store, NULL));
    AVKT_OK(avk_arena_new(NULL, &a, NULL));
    pd = raw_decoder(NULL, AVK_PUSH_MESSAGES, AVK_FRAMING_SINGLE_OBJECT, store, 0);
    AVKT_OK(avk_push_decoder_feed(pd, "hello", 5, &e));
    AVKT_ASSERT_STATUS(avk_push_decoder_next(pd, a, &v, &got, &e), AVK_ERR_MALFORMED);
    assert_int_equal(got, 0);
    assert_non_null(strstr(e.message, "not a single-object message"));
    avk_push_decoder_free(pd);
    got = -1;
    pd = raw_decoder(NULL, AVK_PUSH_MESSAGES, AVK_FRAMING_CONFLUENT, store, 0);
    AVKT_OK(avk_push_decoder_feed(pd, "\x07", 1, &e));
    AVKT_ASSERT_STATUS(avk_push_decoder_next(pd, a, &v, &got, &e), AVK_ERR_MALFORMED);
    assert_int_equal(got, 0);
    avk_push_decoder_free(pd);
    avk_arena_free(a);
    avk_schema_store_free(store);
}

/* Raw datums of "null" take no bytes: next refuses rather than hand out values forever. */
static void test_raw_null_refused(void **state)
{
    avk_schema *s = AVKT_PARSE("\"null\"");
    avk_plan *plan = avkt_plan_new(avk_schema_root(s), 0, NULL, 0);
    avk_push_decoder *pd;
    avk_arena *a;
    avk_value v;
    avk_error e;
    int got = -1;
    (void)state;
    AVKT_OK(avk_arena_new(NULL, &a, NULL));
    pd = raw_decoder(plan, AVK_PUSH_MESSAGES, AVK_FRAMING_RAW, NULL, 0);
    AVKT_OK(avk_push_decoder_feed(pd, "x", 1, &e));
    AVKT_ASSERT_STATUS(avk_push_decoder_next(pd, a, &v, &got, &e), AVK_ERR_MALFORMED);
    assert_int_equal(got, 0);
    assert_non_null(strstr(e.message, "take no bytes"));
    avk_push_decoder_free(pd);
    avk_arena_free(a);
    avk_plan_free(plan);
    avk_schema_free(s);
}

static void put_zigzag(gbuf *b, int64_t n)
{
    uint64_t z = ((uint64_t)n << 1) ^ (uint64_t)(n >> 63);
    uint8_t c;
    while (z >= 0x80) {
        c = (uint8_t)(z | 0x80);
        gb_put(b, &c, 1);
        z >>= 7;
    }
    c = (uint8_t)z;
    gb_put(b, &c, 1);
}

static void put_avro_string(gbuf *b, const char *s)
{
    put_zigzag(b, (int64_t)strlen(s));
    gb_put(b, s, strlen(s));
}

/* A container file of schema "int": nkeys extra empty metadata entries, then one block of
 * three ints. */
static void many_meta_file(gbuf *b, size_t nkeys)
{
    static const uint8_t sync[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    char key[32];
    size_t i;
    gb_put(b, "Obj\x01", 4);
    put_zigzag(b, (int64_t)nkeys + 1);
    put_avro_string(b, "avro.schema");
    put_avro_string(b, "\"int\"");
    for (i = 0; i < nkeys; i++) {
        snprintf(key, sizeof key, "k%zu", i);
        put_avro_string(b, key);
        put_zigzag(b, 0);
    }
    put_zigzag(b, 0);
    gb_put(b, sync, 16);
    put_zigzag(b, 3);
    put_zigzag(b, 3);
    put_zigzag(b, 1);
    put_zigzag(b, 2);
    put_zigzag(b, 3);
    gb_put(b, sync, 16);
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A header of many small metadata entries fed one byte at a time: linear, and the records as
 * the pull reader gives them. Over max_meta_entries: the pull reader's error. */
static void test_container_many_meta_entries(void **state)
{
    avk_push_options po;
    avk_file_reader_options fo;
    outcome want;
    gbuf f = {0};
    size_t *cuts, i;
    double t0, secs;
    (void)state;
    many_meta_file(&f, 40000);
    cuts = malloc(f.len * sizeof *cuts);
    assert_non_null(cuts);
    for (i = 0; i < f.len; i++)
        cuts[i] = i + 1;
    container_options(&po, NULL);
    pull_file(f.p, f.len, NULL, &want);
    AVKT_OK(want.st);
    assert_int_equal(want.n, 3);
    t0 = wall_now();
    push_check(f.p, f.len, &po, cuts, f.len, &want, "40,000 metadata entries, one byte at a time");
    secs = wall_now() - t0;
    if (secs >= 5.0)
        fail_msg("a header of 40,000 entries one byte at a time took %.2f s", secs);
    oc_free(&want);
    free(cuts);
    gb_free(&f);

    /* more entries than max_meta_entries */
    many_meta_file(&f, 10); /* 11 entries with avro.schema */
    avk_file_reader_options_init(&fo);
    fo.max_meta_entries = 10;
    container_options(&po, &fo);
    pull_file(f.p, f.len, &fo, &want);
    AVKT_ASSERT_STATUS(want.st, AVK_ERR_LIMIT);
    cuts = malloc(f.len * sizeof *cuts);
    assert_non_null(cuts);
    for (i = 0; i < f.len; i++)
        cuts[i] = i + 1;
    push_check(f.p, f.len, &po, cuts, f.len, &want, "11 entries over 10, one byte at a time");
    {
        size_t two[2] = {7, f.len};
        push_check(f.p, f.len, &po, two, 2, &want, "11 entries over 10, in two pieces");
    }
    oc_free(&want);
    free(cuts);
    gb_free(&f);
}

/* ---- allocation failures ---------------------------------------------------------------------- */

/* Every allocation of the decoder failing in turn: NO_MEMORY (never a
 * crash or a wrong value), and nothing left allocated after free. */
static void alloc_loop(const uint8_t *d, size_t n, avk_push_options *po, const outcome *want,
                       const char *name)
{
    long k;
    for (k = 1;; k++) {
        avkt_failalloc fa;
        avk_push_decoder *pd = NULL;
        avk_arena *a;
        avk_error e;
        avk_status st;
        size_t at = 0, count = 0;
        int failed = 0;
        avkt_failalloc_init(&fa, k);
        po->allocator = &fa.allocator;
        AVKT_OK(avk_arena_new(NULL, &a, NULL));
        st = avk_push_decoder_new(po, &pd, &e);
        if (st != AVK_OK) {
            AVKT_ASSERT_STATUS(st, AVK_ERR_NO_MEMORY);
            failed = 1;
        }
        while (!failed && at < n) {
            size_t piece = n - at < 37 ? n - at : 37;
            st = avk_push_decoder_feed(pd, d + at, piece, &e);
            if (st == AVK_ERR_NO_MEMORY) {
                failed = 1;
                break;
            }
            AVKT_OK(st);
            at += piece;
            for (;;) {
                avk_value v;
                int got;
                st = avk_push_decoder_next(pd, a, &v, &got, &e);
                if (st != AVK_OK) {
                    if (st != AVK_ERR_NO_MEMORY)
                        fail_msg("%s: allocation %ld failing: %s %s", name, k,
                                 avk_status_name(st), e.message);
                    failed = 1;
                    break;
                }
                if (!got)
                    break;
                assert_true(avk_value_equal(&v, want->vals[count]));
                count++;
            }
        }
        if (!failed) {
            AVKT_OK(avk_push_decoder_end(pd, &e));
            assert_int_equal(count, want->n);
        }
        avk_push_decoder_free(pd);
        avk_arena_free(a);
        po->allocator = NULL;
        assert_int_equal(fa.live_blocks, 0);
        assert_int_equal(fa.size_mismatches, 0);
        assert_int_equal(fa.bad_frees, 0);
        if (fa.failures == 0)
            break;
    }
}

static void test_failing_allocator(void **state)
{
    avk_schema *s = AVKT_PARSE(REC);
    avk_arena *a;
    avk_value *vals;
    avk_push_options po;
    outcome want;
    msgs m;
    int c;
    (void)state;
    AVKT_OK(avk_arena_new(NULL, &a, NULL));
    vals = rec_values(s, 30, a);
    for (c = 0; c < 2; c++) {
        gbuf f = {0};
        avk_codec codec = c ? AVK_CODEC_DEFLATE : AVK_CODEC_NULL;
        if (!avk_codec_available(codec))
            continue;
        write_container(s, vals, 30, codec, 400, &f);
        pull_file(f.p, f.len, NULL, &want);
        container_options(&po, NULL);
        alloc_loop(f.p, f.len, &po, &want, avk_codec_name(codec));
        oc_free(&want);
        gb_free(&f);
    }
    msgs_make(&m);
    pull_framed(&m, AVK_FRAMING_SINGLE_OBJECT, &m.so, &want);
    message_options(&po, &m, AVK_PUSH_MESSAGES, AVK_FRAMING_SINGLE_OBJECT);
    alloc_loop(m.so.p, m.so.len, &po, &want, "single-object");
    message_options(&po, &m, AVK_PUSH_LENGTH_PREFIXED, AVK_FRAMING_SINGLE_OBJECT);
    alloc_loop(m.lso.p, m.lso.len, &po, &want, "single-object length-prefixed");
    oc_free(&want);
    pull_raw(m.plan, m.raw.p, m.raw.len, &want);
    message_options(&po, &m, AVK_PUSH_MESSAGES, AVK_FRAMING_RAW);
    alloc_loop(m.raw.p, m.raw.len, &po, &want, "raw");
    oc_free(&want);
    msgs_free(&m);
    free(vals);
    avk_arena_free(a);
    avk_schema_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(avkt_test_kernel_choice),
        cmocka_unit_test(test_interop_containers),
        cmocka_unit_test(test_written_containers),
        cmocka_unit_test(test_damaged_containers),
        cmocka_unit_test(test_container_reader_schema),
        cmocka_unit_test(test_container_edges),
        cmocka_unit_test(test_container_linear),
        cmocka_unit_test(test_raw_messages),
        cmocka_unit_test(test_framed_messages),
        cmocka_unit_test(test_message_errors),
        cmocka_unit_test(test_failing_allocator),
        cmocka_unit_test(test_length_prefixed_max_message_exact),
        cmocka_unit_test(test_length_prefixed_end_limit),
        cmocka_unit_test(test_back_to_back_bad_first_byte),
        cmocka_unit_test(test_raw_null_refused),
        cmocka_unit_test(test_container_many_meta_entries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
