/* Fuzz target: code `avrokit gen` wrote for fuzz/gen_schemas/ decodes, skips and encodes exactly as the library's generic plans do. */
#include <stdlib.h>
#include <string.h>

#include "avrokit/arena.h"
#include "avrokit/plan.h"
#include "avrokit/reader.h"
#include "avrokit/schema.h"
#include "avrokit/writer.h"
#include "fuzz.h"

/* Written at build time by `avrokit gen fuzz/gen_schemas/\*.avsc -o BUILD/fuzz/gen`
 * (fuzz/CMakeLists.txt), no prefix, so the keyword mangling shows here. */
#include "gen/arrays.h"
#include "gen/enums_fixed.h"
#include "gen/ints.h"
#include "gen/keywords.h"
#include "gen/list.h"
#include "gen/maps.h"
#include "gen/nullables.h"
#include "gen/prims.h"
#include "gen/root_map.h"
#include "gen/root_union.h"
#include "gen/shared.h"
#include "gen/tree.h"
#include "gen/unions.h"

/* Input layout:
 *   byte 0     low 4 bits: the schema (modulo the table's size);
 *              bits 4-5: the limits (see limit_sets); bit 6: read through a
 *              stream handing out one byte a call (strings are copied then)
 *              instead of from memory; bit 7: FN_decode (default limits)
 *              instead of FN_decode_limits
 *   the rest   bytes decoded as one value of that schema, by the generated
 *              decoder and by avk_plan_decode
 *
 * What must hold: both give the same status; on failure the same error
 * offset, path and message; on success the same end offset, equal values
 * (the generated struct through FN_to_value), the same encoding (FN_encode
 * against avk_plan_encode), and FN_from_value of the generic value encodes
 * the same again. FN_skip agrees with avk_plan_skip the same way. */

/* One generated type's functions behind untyped pointers, so one driver
 * runs them all. */
typedef struct gen_case {
    const char *name;
    size_t size; /* sizeof the generated type */
    const char *(*schema_json)(void);
    avk_status (*decode)(avk_reader *r, avk_arena *a, void *out, avk_error *err);
    avk_status (*decode_limits)(avk_reader *r, avk_arena *a, const avk_limits *l, void *out,
                                avk_error *err);
    avk_status (*skip)(avk_reader *r, const avk_limits *l, avk_error *err);
    avk_status (*encode)(const void *in, avk_writer *w, avk_error *err);
    avk_status (*to_value)(const void *in, const avk_type *t, avk_arena *a, avk_value *out,
                           avk_error *err);
    avk_status (*from_value)(const avk_value *v, avk_arena *a, void *out, avk_error *err);
} gen_case;

#define GEN_WRAP(FN)                                                                           \
    static avk_status FN##_w_decode(avk_reader *r, avk_arena *a, void *out, avk_error *err)    \
    {                                                                                          \
        return FN##_decode(r, a, (FN *)out, err);                                              \
    }                                                                                          \
    static avk_status FN##_w_decode_limits(avk_reader *r, avk_arena *a, const avk_limits *l,   \
                                           void *out, avk_error *err)                          \
    {                                                                                          \
        return FN##_decode_limits(r, a, l, (FN *)out, err);                                    \
    }                                                                                          \
    static avk_status FN##_w_encode(const void *in, avk_writer *w, avk_error *err)             \
    {                                                                                          \
        return FN##_encode((const FN *)in, w, err);                                            \
    }                                                                                          \
    static avk_status FN##_w_to_value(const void *in, const avk_type *t, avk_arena *a,         \
                                      avk_value *out, avk_error *err)                          \
    {                                                                                          \
        return FN##_to_value((const FN *)in, t, a, out, err);                                  \
    }                                                                                          \
    static avk_status FN##_w_from_value(const avk_value *v, avk_arena *a, void *out,           \
                                        avk_error *err)                                        \
    {                                                                                          \
        return FN##_from_value(v, a, (FN *)out, err);                                          \
    }

#define GEN_CASE(FN)                                                                           \
    {                                                                                          \
        #FN, sizeof(FN), FN##_schema_json, FN##_w_decode, FN##_w_decode_limits, FN##_skip,     \
            FN##_w_encode, FN##_w_to_value, FN##_w_from_value                                  \
    }

GEN_WRAP(Arrays)
GEN_WRAP(EnumsFixed)
GEN_WRAP(ints)
GEN_WRAP(class_)
GEN_WRAP(LongList)
GEN_WRAP(Maps)
GEN_WRAP(Nullables)
GEN_WRAP(Prims)
GEN_WRAP(root_map)
GEN_WRAP(root_union)
GEN_WRAP(Shared)
GEN_WRAP(Node)
GEN_WRAP(Unions)

static const gen_case cases[] = {
    GEN_CASE(Arrays),    GEN_CASE(EnumsFixed), GEN_CASE(ints),       GEN_CASE(class_),
    GEN_CASE(LongList),  GEN_CASE(Maps),       GEN_CASE(Nullables),  GEN_CASE(Prims),
    GEN_CASE(root_map),  GEN_CASE(root_union), GEN_CASE(Shared),     GEN_CASE(Node),
    GEN_CASE(Unions),
};
#define CASE_COUNT (sizeof cases / sizeof cases[0])

/* The limits both decoders get. max_depth stays at or below the generated
 * code's own cap (AVK_GEN_MAX_DEPTH, 10000), where the two agree; max_memory
 * stays at its default: the generated structs are not laid out as
 * avk_values, so arena bytes differ by design. */
static const avk_limits limit_sets[4] = {
    {10000, 0, 0, 0, 0},
    {4, 16, 8, 4, 0},
    {64, 0, 1000, 100, 0},
    {1, 1, 1, 1, 0},
};

static avk_schema *schemas[CASE_COUNT];
static avk_plan *plans[CASE_COUNT][4];

static void prepare(size_t si)
{
    const char *json;
    avk_error err;
    avk_status st;
    size_t k;
    if (schemas[si])
        return;
    json = cases[si].schema_json();
    st = avk_schema_parse(json, strlen(json), NULL, &schemas[si], &err);
    AVKF_CHECK(st == AVK_OK, "%s: FN_schema_json does not parse: %s", cases[si].name, err.message);
    for (k = 0; k < 4; k++) {
        avk_plan_options o;
        avk_plan_options_init(&o);
        o.limits = limit_sets[k];
        st = avk_plan_new(avk_schema_root(schemas[si]), &o, &plans[si][k], &err);
        AVKF_CHECK(st == AVK_OK, "%s: plan: %s", cases[si].name, err.message);
    }
}

/* A stream source handing out one byte a call. */
typedef struct byte_source {
    const uint8_t *data;
    size_t len, pos;
} byte_source;

static avk_status byte_read(void *ctx, void *buf, size_t cap, size_t *got, avk_error *err)
{
    byte_source *s = (byte_source *)ctx;
    (void)err;
    *got = 0;
    if (s->pos < s->len && cap > 0) {
        *(uint8_t *)buf = s->data[s->pos++];
        *got = 1;
    }
    return AVK_OK;
}

/* A reader over data: memory, or a one-byte-a-call stream over *src. */
static void open_reader(avk_reader *r, int stream, byte_source *src, const uint8_t *data,
                        size_t len)
{
    avk_error err;
    if (!stream) {
        avk_reader_init_memory(r, data, len);
        return;
    }
    src->data = data;
    src->len = len;
    src->pos = 0;
    AVKF_CHECK(avk_reader_init_source(r, byte_read, src, NULL, &err) == AVK_OK, "stream: %s",
               err.message);
}

/* Two failures agree: status, offset, path and message. */
static void same_error(const char *what, const char *name, avk_status gs, const avk_error *ge,
                       avk_status ps, const avk_error *pe)
{
    AVKF_CHECK(gs == ps, "%s %s: generated %s (%s: %s), generic %s (%s: %s)", name, what,
               avk_status_name(gs), ge->path, ge->message, avk_status_name(ps), pe->path,
               pe->message);
    if (gs == AVK_OK)
        return;
    AVKF_CHECK(ge->offset == pe->offset, "%s %s: error offset %llu, generic %llu (%s)", name,
               what, (unsigned long long)ge->offset, (unsigned long long)pe->offset, pe->message);
    AVKF_CHECK(strcmp(ge->path, pe->path) == 0, "%s %s: error path '%s', generic '%s'", name, what,
               ge->path, pe->path);
    AVKF_CHECK(strcmp(ge->message, pe->message) == 0, "%s %s: message '%s', generic '%s'", name,
               what, ge->message, pe->message);
}

/* The bytes a memory writer holds after encode, malloc'd; NULL when encode
 * failed (*st says how). */
static uint8_t *encoded(avk_writer *w, avk_status st, size_t *len)
{
    const uint8_t *data;
    uint8_t *out;
    if (st != AVK_OK)
        return NULL;
    data = avk_writer_data(w, len);
    out = (uint8_t *)malloc(*len ? *len : 1);
    AVKF_CHECK(out != NULL, "out of memory");
    if (*len)
        memcpy(out, data, *len);
    return out;
}

static void same_bytes(const char *what, const char *name, const uint8_t *a, size_t alen,
                       const uint8_t *b, size_t blen)
{
    size_t i = 0;
    while (i < alen && i < blen && a[i] == b[i])
        i++;
    AVKF_CHECK(i == alen && i == blen,
               "%s %s: %zu bytes, generic %zu; first difference at byte %zu", name, what, alen,
               blen, i);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const gen_case *c;
    const avk_plan *plan, *plain;
    const avk_type *root;
    const avk_limits *lim;
    const uint8_t *in;
    size_t si, in_len, glen, plen, flen;
    int stream, defaults;
    byte_source gsrc, psrc;
    avk_reader gr, pr;
    avk_arena *ga, *pa, *va;
    avk_error gerr, perr;
    avk_status gs, ps, decoded;
    avk_value pv, gv;
    avk_writer gw, pw;
    void *gout, *fout;
    uint8_t *gbytes, *pbytes, *fbytes;

    if (size < 1)
        return 0;
    si = (data[0] & 15u) % CASE_COUNT;
    c = &cases[si];
    lim = &limit_sets[(data[0] >> 4) & 3u];
    stream = (data[0] >> 6) & 1;
    /* Default limits allow depth 10^6, past the generated code's 10000: only
     * inputs too short to nest that deep (a level takes a byte at least). */
    defaults = (data[0] >> 7) && size <= 5000;
    prepare(si);
    plan = plans[si][defaults ? 0 : (data[0] >> 4) & 3u];
    plain = plans[si][0];
    root = avk_schema_root(schemas[si]);
    in = data + 1;
    in_len = size - 1;

    AVKF_CHECK(avk_arena_new(NULL, &ga, &gerr) == AVK_OK, "arena");
    AVKF_CHECK(avk_arena_new(NULL, &pa, &gerr) == AVK_OK, "arena");
    AVKF_CHECK(avk_arena_new(NULL, &va, &gerr) == AVK_OK, "arena");
    gout = avk_arena_alloc(ga, c->size, 16);
    AVKF_CHECK(gout != NULL, "arena alloc");

    /* Decode, both ways. */
    open_reader(&gr, stream, &gsrc, in, in_len);
    open_reader(&pr, stream, &psrc, in, in_len);
    avk_error_clear(&gerr);
    avk_error_clear(&perr);
    gs = defaults ? c->decode(&gr, ga, gout, &gerr)
                  : c->decode_limits(&gr, ga, lim, gout, &gerr);
    ps = avk_plan_decode(plan, &pr, pa, &pv, &perr);
    same_error("decode", c->name, gs, &gerr, ps, &perr);
    decoded = ps;
    if (gs == AVK_OK) {
        AVKF_CHECK(avk_reader_offset(&gr) == avk_reader_offset(&pr),
                   "%s decode: ended at byte %llu, generic %llu", c->name,
                   (unsigned long long)avk_reader_offset(&gr),
                   (unsigned long long)avk_reader_offset(&pr));
        gs = c->to_value(gout, root, va, &gv, &gerr);
        AVKF_CHECK(gs == AVK_OK, "%s to_value: %s: %s", c->name, avk_status_name(gs),
                   gerr.message);
        AVKF_CHECK(avk_value_equal(&gv, &pv), "%s: the generated decoder's value differs",
                   c->name);
    }
    if (stream) {
        avk_reader_destroy(&gr);
        avk_reader_destroy(&pr);
    }

    /* Skip, both ways. */
    open_reader(&gr, stream, &gsrc, in, in_len);
    open_reader(&pr, stream, &psrc, in, in_len);
    avk_error_clear(&gerr);
    avk_error_clear(&perr);
    gs = c->skip(&gr, defaults ? NULL : lim, &gerr);
    ps = avk_plan_skip(plan, &pr, &perr);
    same_error("skip", c->name, gs, &gerr, ps, &perr);
    if (gs == AVK_OK)
        AVKF_CHECK(avk_reader_offset(&gr) == avk_reader_offset(&pr),
                   "%s skip: ended at byte %llu, generic %llu", c->name,
                   (unsigned long long)avk_reader_offset(&gr),
                   (unsigned long long)avk_reader_offset(&pr));
    if (stream) {
        avk_reader_destroy(&gr);
        avk_reader_destroy(&pr);
    }

    if (decoded != AVK_OK)
        goto done; /* (skip may pass what decode refused: it jumps sized blocks) */
    /* Decoded, both: encode the generated struct and the generic value. */
    AVKF_CHECK(avk_writer_init_memory(&gw, NULL, &gerr) == AVK_OK, "writer");
    AVKF_CHECK(avk_writer_init_memory(&pw, NULL, &perr) == AVK_OK, "writer");
    gs = c->encode(gout, &gw, &gerr);
    ps = avk_plan_encode(plain, &pv, &pw, &perr);
    AVKF_CHECK(gs == AVK_OK && ps == AVK_OK, "%s encode: generated %s (%s: %s), generic %s (%s)",
               c->name, avk_status_name(gs), gerr.path, gerr.message, avk_status_name(ps),
               perr.message);
    gbytes = encoded(&gw, gs, &glen);
    pbytes = encoded(&pw, ps, &plen);
    same_bytes("encode", c->name, gbytes, glen, pbytes, plen);

    /* The generic value into the struct (strings as views into it), and
     * out again: the same bytes, and the same value. */
    fout = avk_arena_alloc(va, c->size, 16);
    AVKF_CHECK(fout != NULL, "arena alloc");
    gs = c->from_value(&pv, va, fout, &gerr);
    AVKF_CHECK(gs == AVK_OK, "%s from_value: %s (%s: %s)", c->name, avk_status_name(gs),
               gerr.path, gerr.message);
    avk_writer_reset(&gw);
    gs = c->encode(fout, &gw, &gerr);
    AVKF_CHECK(gs == AVK_OK, "%s encode after from_value: %s (%s: %s)", c->name,
               avk_status_name(gs), gerr.path, gerr.message);
    fbytes = encoded(&gw, gs, &flen);
    same_bytes("encode after from_value", c->name, fbytes, flen, pbytes, plen);
    gs = c->to_value(fout, root, va, &gv, &gerr);
    AVKF_CHECK(gs == AVK_OK && avk_value_equal(&gv, &pv),
               "%s: from_value then to_value changed the value (%s)", c->name,
               avk_status_name(gs));

    free(gbytes);
    free(pbytes);
    free(fbytes);
    avk_writer_destroy(&gw);
    avk_writer_destroy(&pw);
done:
    avk_arena_free(ga);
    avk_arena_free(pa);
    avk_arena_free(va);
    return 0;
}
