/* Generated resolving decoders against the library: every writer/reader pair of the apache data, random and table writer data, every truncated prefix. */

/*
 * Built by run_gen_resolve.py, which runs `avrokit gen --reader` for each
 * pair and writes pairs.inc: the pairs' schemas, whether gen wrote code
 * (and its message when not), and per written pair a glue function that
 * runs the generated FN_decode_from_<w> and converts the result with
 * FN_to_value. For each pair this checks:
 * - gen writes code exactly when avk_plan_new_resolving accepts the pair,
 *   and when not, gen's message holds the library's;
 * - on random writer values (half of them written with block byte sizes;
 *   and the table's bytes, where given) the
 *   generated decoder gives the library's value (avk_value_equal) and
 *   stops at the same offset, or fails with the same status, offset, path
 *   and message;
 * - on every prefix of those bytes, the same status, offset, path and
 *   message as the library's decoder.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "avrokit/avrokit.h"
#include "random_value.h"

typedef avk_status (*glue_fn)(avk_reader *r, avk_arena *arena, const avk_limits *limits,
                              const avk_type *reader, avk_value *out, avk_error *err);

typedef struct pair {
    const char *name;
    const char *writer_json, *reader_json;
    const char *hex;     /* writer bytes from the table, or NULL */
    int gen_ok;          /* gen wrote the pair's code */
    const char *gen_msg; /* gen's stderr when it did not */
    glue_fn decode;
} pair;

#include "pairs.inc"

#define RANDOM_VALUES 12

#define MUTATIONS 16

static int failures, checked_values, checked_prefixes, checked_mutations, verbose;

/* The tight limits: small enough that random values hit each of them. */
static avk_limits tight_limits(void)
{
    avk_limits l;
    memset(&l, 0, sizeof l);
    l.max_depth = 3;
    l.max_bytes = 6;
    l.max_items = 3;
    l.max_empty_items = 2;
    return l;
}

/* A decoder pair to compare: the library's plan and the limits given to
 * the generated code (NULL: defaults). */
typedef struct side {
    const avk_plan *plan;
    const avk_limits *limits;
    int stream; /* read through a source that hands out 3 bytes at a time */
    const char *label;
} side;

/* A source over data[0..len), at most 3 bytes per call: lengths, blocks
 * and payloads then end mid-buffer, where stream readers take their slow
 * paths. */
typedef struct trickle {
    const uint8_t *data;
    size_t len, pos;
} trickle;

static avk_status trickle_read(void *ctx, void *buf, size_t cap, size_t *got, avk_error *err)
{
    trickle *t = (trickle *)ctx;
    size_t n = t->len - t->pos;
    (void)err;
    if (n > 3)
        n = 3;
    if (n > cap)
        n = cap;
    memcpy(buf, t->data + t->pos, n);
    t->pos += n;
    *got = n;
    return AVK_OK;
}

static void open_reader(avk_reader *r, trickle *t, int stream, const uint8_t *data, size_t len)
{
    avk_reader_options o;
    if (!stream) {
        avk_reader_init_memory(r, data, len);
        return;
    }
    t->data = data;
    t->len = len;
    t->pos = 0;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.buffer_size = 64;
    if (avk_reader_init_source(r, trickle_read, t, &o, NULL) != AVK_OK)
        abort();
}

static void fail(const pair *p, const char *fmt, const char *a, const char *b)
{
    failures++;
    if (failures <= 60)
        fprintf(stderr, "FAIL %s: %s\n    library:   %s\n    generated: %s\n", p->name, fmt, a, b);
}

typedef struct outcome {
    avk_status st;
    uint64_t end; /* reader offset after a success */
    avk_error err;
    avk_value v;
} outcome;

static void run_lib(const side *sd, const uint8_t *data, size_t len, avk_arena *arena, outcome *o)
{
    avk_reader r;
    trickle t;
    memset(o, 0, sizeof *o);
    open_reader(&r, &t, sd->stream, data, len);
    o->st = avk_plan_decode(sd->plan, &r, arena, &o->v, &o->err);
    o->end = avk_reader_offset(&r);
    avk_reader_destroy(&r);
}

static void run_gen(const pair *p, const side *sd, const avk_type *reader, const uint8_t *data,
                    size_t len, avk_arena *arena, outcome *o)
{
    avk_reader r;
    trickle t;
    memset(o, 0, sizeof *o);
    open_reader(&r, &t, sd->stream, data, len);
    o->st = p->decode(&r, arena, sd->limits, reader, &o->v, &o->err);
    o->end = avk_reader_offset(&r);
    avk_reader_destroy(&r);
}

/* Where two record values first differ ("fields 3, 7"), for the report. */
static void differing_fields(const avk_value *a, const avk_value *b, char *buf, size_t cap)
{
    size_t i, n, len;
    buf[0] = 0;
    if (avk_type_kind(a->type) != AVK_RECORD || avk_type_kind(b->type) != AVK_RECORD)
        return;
    n = avk_type_field_count(a->type);
    for (i = 0; i < n; i++)
        if (!avk_value_equal(&a->u.fields[i], &b->u.fields[i])) {
            len = strlen(buf);
            snprintf(buf + len, cap - len, " %s", avk_field_name(avk_type_field(a->type, i)));
        }
}

static void describe(const outcome *o, char *buf, size_t cap)
{
    if (o->st == AVK_OK)
        snprintf(buf, cap, "OK, end %llu", (unsigned long long)o->end);
    else
        snprintf(buf, cap, "%s at %llu path \"%s\": %s", avk_status_name(o->st),
                 (unsigned long long)o->err.offset, o->err.path, o->err.message);
}

/* Both decoders on data[0..len): 1 when they agree. */
static int compare(const pair *p, const side *sd, const avk_type *reader, const uint8_t *data,
                   size_t len, avk_arena *a1, avk_arena *a2, const char *what)
{
    outcome lib, gen;
    char d1[1024], d2[1024], msg[512], where[256];
    int same;
    avk_arena_reset(a1);
    avk_arena_reset(a2);
    run_lib(sd, data, len, a1, &lib);
    run_gen(p, sd, reader, data, len, a2, &gen);
    if (lib.st == AVK_OK && gen.st == AVK_OK)
        same = lib.end == gen.end && avk_value_equal(&lib.v, &gen.v);
    else
        same = lib.st == gen.st && lib.err.offset == gen.err.offset &&
               strcmp(lib.err.path, gen.err.path) == 0 &&
               strcmp(lib.err.message, gen.err.message) == 0;
    if (!same) {
        describe(&lib, d1, sizeof d1);
        describe(&gen, d2, sizeof d2);
        where[0] = 0;
        if (lib.st == AVK_OK && gen.st == AVK_OK)
            differing_fields(&lib.v, &gen.v, where, sizeof where);
        snprintf(msg, sizeof msg, "%s, %s (%zu bytes)%s%s", sd->label, what, len,
                 lib.st == AVK_OK && gen.st == AVK_OK ? ": values differ in fields" : "", where);
        fail(p, msg, d1, d2);
    }
    return same;
}

/* The bytes, all their prefixes and some mutations (one report per value). */
static void check_bytes(const pair *p, const side *sd, const avk_type *reader, const uint8_t *data,
                        size_t len, avk_arena *a1, avk_arena *a2, uint64_t seed)
{
    size_t k;
    uint8_t *m;
    avkcli_rng rng;
    checked_values++;
    if (!compare(p, sd, reader, data, len, a1, a2, "whole value"))
        return;
    for (k = 0; k < len; k++) {
        checked_prefixes++;
        if (!compare(p, sd, reader, data, k, a1, a2, "prefix"))
            return;
    }
    if (len == 0)
        return;
    m = (uint8_t *)malloc(len);
    avkcli_rng_seed(&rng, seed);
    for (k = 0; k < MUTATIONS; k++) {
        uint64_t x = avkcli_rng_next(&rng);
        memcpy(m, data, len);
        /* One byte: a random value, or one of the telling ones (a huge or
         * negative varint start, an out of range index). */
        m[(x >> 8) % len] = (x & 3) == 0 ? 0xFF : (x & 3) == 1 ? 0x01 : (uint8_t)(x >> 40);
        if ((x >> 4 & 3) == 0) /* sometimes two */
            m[(x >> 20) % len] = (uint8_t)(x >> 48);
        checked_mutations++;
        if (!compare(p, sd, reader, m, len, a1, a2, "mutation"))
            break;
    }
    free(m);
}

static size_t unhex(const char *hex, uint8_t *out)
{
    size_t n = 0;
    for (; hex[0] && hex[1]; hex += 2) {
        unsigned x;
        sscanf(hex, "%2x", &x);
        out[n++] = (uint8_t)x;
    }
    return n;
}

static void check_pair(const pair *p, avk_arena *a1, avk_arena *a2)
{
    avk_schema *ws = NULL, *rs = NULL;
    avk_plan *plan = NULL, *wplan = NULL, *tplan = NULL, *splan = NULL;
    avk_plan_options po;
    avk_limits tight = tight_limits();
    side sides[4];
    avk_limits shallow;
    avk_plan *dplan = NULL;
    avk_error err;
    avk_status st;
    int i, k;
    if (avk_schema_parse(p->writer_json, strlen(p->writer_json), NULL, &ws, &err) != AVK_OK ||
        avk_schema_parse(p->reader_json, strlen(p->reader_json), NULL, &rs, &err) != AVK_OK) {
        /* gen must refuse what the library cannot parse */
        if (p->gen_ok)
            fail(p, "schema does not parse but gen wrote code", err.message, "");
        goto done;
    }
    st = avk_plan_new_resolving(avk_schema_root(ws), avk_schema_root(rs), NULL, &plan, &err);
    if (st != AVK_OK) {
        if (p->gen_ok)
            fail(p, "the library refuses the pair but gen wrote code", err.message, "");
        else if (!strstr(p->gen_msg, err.message))
            fail(p, "gen's message lacks the library's", err.message, p->gen_msg);
        goto done;
    }
    if (!p->gen_ok) {
        fail(p, "the library resolves the pair but gen wrote no code", "OK", p->gen_msg);
        goto done;
    }
    if (!p->decode)
        goto done; /* its code did not compile: run_gen_resolve.py reported it */
    memset(&po, 0, sizeof po);
    po.struct_size = sizeof po;
    po.limits = tight;
    sides[3].plan = NULL;
    if (avk_plan_new_resolving(avk_schema_root(ws), avk_schema_root(rs), &po, &tplan, &err) !=
        AVK_OK) {
        fail(p, "resolving plan with tight limits", err.message, "");
        goto done;
    }
    sides[0].plan = plan;
    sides[0].limits = NULL;
    sides[0].stream = 0;
    sides[0].label = "default limits";
    sides[1].plan = tplan;
    sides[1].limits = &tight;
    sides[1].stream = 0;
    sides[1].label = "tight limits";
    sides[2].plan = plan;
    sides[2].limits = NULL;
    sides[2].stream = 1;
    sides[2].label = "stream reader";
    /* Depth 2: the root's children are the deepest values that may nest. */
    memset(&shallow, 0, sizeof shallow);
    shallow.max_depth = 2;
    po.limits = shallow;
    if (avk_plan_new_resolving(avk_schema_root(ws), avk_schema_root(rs), &po, &dplan, &err) !=
        AVK_OK) {
        fail(p, "resolving plan with max_depth 2", err.message, "");
        goto done;
    }
    sides[3].plan = dplan;
    sides[3].limits = &shallow;
    sides[3].stream = 0;
    sides[3].label = "max_depth 2";
    /* Odd values are written with block byte sizes, which skippers jump. */
    memset(&po, 0, sizeof po);
    po.struct_size = sizeof po;
    po.flags = AVK_PLAN_BLOCK_SIZES;
    if (avk_plan_new(avk_schema_root(ws), NULL, &wplan, &err) != AVK_OK ||
        avk_plan_new(avk_schema_root(ws), &po, &splan, &err) != AVK_OK) {
        fail(p, "writer plan", err.message, "");
        goto done;
    }
    if (p->hex) {
        size_t n = strlen(p->hex) / 2;
        uint8_t *b = (uint8_t *)malloc(n + 1);
        n = unhex(p->hex, b);
        for (k = 0; k < 4; k++)
            check_bytes(p, &sides[k], avk_schema_root(rs), b, n, a1, a2, 99 + k);
        free(b);
    }
    for (i = 0; i < RANDOM_VALUES; i++) {
        avkcli_rng rng;
        avk_value v;
        avk_writer w;
        const uint8_t *data;
        size_t len;
        uint8_t *copy;
        avk_arena *va;
        if (avk_arena_new(NULL, &va, NULL) != AVK_OK)
            abort();
        avkcli_rng_seed(&rng, (uint64_t)i * 7919 + 1);
        if (avkcli_random_value(avk_schema_root(ws), &rng, va, &v, &err) != AVK_OK) {
            avk_arena_free(va);
            break; /* a type with no finite value, or too deep for random values */
        }
        if (avk_writer_init_memory(&w, NULL, &err) != AVK_OK ||
            avk_plan_encode(i % 2 ? splan : wplan, &v, &w, &err) != AVK_OK) {
            fail(p, "encode a random writer value", err.message, "");
            avk_writer_destroy(&w);
            avk_arena_free(va);
            break;
        }
        data = avk_writer_data(&w, &len);
        /* A copy of exactly len bytes, so reading past the end is caught by tools. */
        copy = (uint8_t *)malloc(len ? len : 1);
        memcpy(copy, data, len);
        for (k = 0; k < 4; k++)
            check_bytes(p, &sides[k], avk_schema_root(rs), copy, len, a1, a2, (uint64_t)i * 31 + k);
        free(copy);
        avk_writer_destroy(&w);
        avk_arena_free(va);
    }
done:
    avk_plan_free(plan);
    avk_plan_free(tplan);
    avk_plan_free(dplan);
    avk_plan_free(wplan);
    avk_plan_free(splan);
    avk_schema_free(ws);
    avk_schema_free(rs);
}

int main(int argc, char **argv)
{
    size_t i, written = 0;
    avk_arena *a1, *a2;
    verbose = argc > 1 && strcmp(argv[1], "-v") == 0;
    if (avk_arena_new(NULL, &a1, NULL) != AVK_OK || avk_arena_new(NULL, &a2, NULL) != AVK_OK)
        return 2;
    for (i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        if (verbose)
            fprintf(stderr, "%s\n", pairs[i].name);
        written += pairs[i].gen_ok != 0;
        check_pair(&pairs[i], a1, a2);
    }
    printf("gen_resolve: %zu pairs, %zu generated, %d values, %d prefixes, %d mutations, "
           "%d failures\n",
           sizeof pairs / sizeof pairs[0], written, checked_values, checked_prefixes,
           checked_mutations, failures);
    avk_arena_free(a1);
    avk_arena_free(a2);
    return failures ? 1 : 0;
}
