/* Fuzz target: schema resolution, both the compiler (two schemas from the input) and the resolving decoder (writer bytes through fixed schema pairs); decode and skip must agree, and memory and stream readers give one status and one value. */
#include <stdlib.h>
#include <string.h>

#include "avrokit/arena.h"
#include "avrokit/plan.h"
#include "avrokit/reader.h"
#include "avrokit/resolve.h"
#include "avrokit/schema.h"
#include "fuzz.h"

/* Input layout:
 *   byte 0 bit 7 clear: bits 0-3 pick one of the fixed pairs below; the
 *          rest is writer bytes, values one after another (at most 16).
 *   byte 0 bit 7 set: the rest is "WRITER\0READER\0BYTES": two schemas as
 *          JSON, then writer bytes for the plan compiled from them. */

#define MAX_VALUES 16

/* Writer / reader pairs exercising every resolution rule. */
static const char *const pairs[][2] = {
    /* promotions, a dropped field, a default, an alias, reordering */
    {"{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"},"
     "{\"name\":\"b\",\"type\":\"long\"},{\"name\":\"c\",\"type\":\"float\"},"
     "{\"name\":\"s\",\"type\":\"string\"},{\"name\":\"x\",\"type\":{\"type\":\"array\","
     "\"items\":{\"type\":\"map\",\"values\":\"bytes\"}}},{\"name\":\"old\",\"type\":\"int\"}]}",
     "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"c\",\"type\":\"double\"},"
     "{\"name\":\"a\",\"type\":\"long\"},{\"name\":\"b\",\"type\":\"double\"},"
     "{\"name\":\"s\",\"type\":\"bytes\"},{\"name\":\"new\",\"aliases\":[\"old\"],\"type\":"
     "\"float\"},{\"name\":\"d\",\"type\":{\"type\":\"array\",\"items\":\"int\"},"
     "\"default\":[1,2]}]}"},
    /* typed arrays widened */
    {"{\"type\":\"array\",\"items\":\"int\"}", "{\"type\":\"array\",\"items\":\"double\"}"},
    {"{\"type\":\"array\",\"items\":\"long\"}", "{\"type\":\"array\",\"items\":\"float\"}"},
    {"{\"type\":\"array\",\"items\":\"float\"}", "{\"type\":\"array\",\"items\":\"double\"}"},
    {"{\"type\":\"array\",\"items\":[\"int\",\"string\"]}",
     "{\"type\":\"array\",\"items\":\"long\"}"},
    /* enums: remapped, a default, a missing symbol */
    {"{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\",\"B\",\"C\",\"D\"]}",
     "{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"D\",\"B\",\"Z\"],\"default\":\"Z\"}"},
    {"{\"type\":\"map\",\"values\":{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\",\"B\"]}}",
     "{\"type\":\"map\",\"values\":{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"B\"]}}"},
    /* unions both ways */
    {"[\"null\",\"int\",\"string\",{\"type\":\"fixed\",\"name\":\"F\",\"size\":3}]",
     "[\"string\",\"double\",{\"type\":\"fixed\",\"name\":\"F\",\"size\":3},\"null\"]"},
    {"[\"int\",\"boolean\"]", "\"long\""},
    {"\"int\"", "[\"null\",\"double\"]"},
    /* a recursive list, evolved */
    {"{\"type\":\"record\",\"name\":\"L\",\"fields\":[{\"name\":\"v\",\"type\":\"int\"},"
     "{\"name\":\"next\",\"type\":[\"null\",\"L\"]}]}",
     "{\"type\":\"record\",\"name\":\"L\",\"fields\":[{\"name\":\"next\",\"type\":[\"null\","
     "\"L\"]},{\"name\":\"v\",\"type\":\"long\"},{\"name\":\"w\",\"type\":\"string\","
     "\"default\":\"\"}]}"},
    /* a nested record skipped whole */
    {"{\"type\":\"record\",\"name\":\"O\",\"fields\":[{\"name\":\"in\",\"type\":{\"type\":"
     "\"record\",\"name\":\"I\",\"fields\":[{\"name\":\"q\",\"type\":{\"type\":\"array\","
     "\"items\":\"string\"}},{\"name\":\"u\",\"type\":[\"null\",\"I\"]}]}},"
     "{\"name\":\"k\",\"type\":\"int\"}]}",
     "{\"type\":\"record\",\"name\":\"O\",\"fields\":[{\"name\":\"k\",\"type\":\"int\"}]}"},
};
#define PAIR_COUNT (sizeof pairs / sizeof pairs[0])

static avk_schema *parse(const char *text, size_t len)
{
    avk_schema *s = NULL;
    if (avk_schema_parse(text, len, NULL, &s, NULL) != AVK_OK)
        return NULL;
    return s;
}

static int decode_status_ok(avk_status st)
{
    return st == AVK_OK || st == AVK_ERR_TRUNCATED || st == AVK_ERR_MALFORMED ||
           st == AVK_ERR_LIMIT || st == AVK_ERR_RESOLUTION;
}

/* A stream source handing out one byte a call. */
typedef struct byte_source {
    const uint8_t *data;
    size_t len, pos;
} byte_source;

static avk_status one_byte(void *ctx, void *buf, size_t cap, size_t *got, avk_error *err)
{
    byte_source *b = (byte_source *)ctx;
    (void)err;
    *got = b->pos < b->len && cap ? 1 : 0;
    if (*got)
        ((uint8_t *)buf)[0] = b->data[b->pos++];
    return AVK_OK;
}

/* Decodes values of data through plan one after another, from memory and
 * from a stream of 1-byte reads: the same status and value either way;
 * each value that decodes must also skip over exactly the same bytes. */
static void run_plan(const avk_plan *plan, const uint8_t *data, size_t size)
{
    avk_arena *arena, *sarena;
    avk_reader r, s, sr;
    byte_source src;
    int k;
    if (avk_arena_new(NULL, &arena, NULL) != AVK_OK)
        return;
    if (avk_arena_new(NULL, &sarena, NULL) != AVK_OK) {
        avk_arena_free(arena);
        return;
    }
    src.data = data;
    src.len = size;
    src.pos = 0;
    AVKF_CHECK(avk_reader_init_source(&sr, one_byte, &src, NULL, NULL) == AVK_OK,
               "stream reader");
    avk_reader_init_memory(&r, data, size);
    for (k = 0; k < MAX_VALUES && r.pos < r.end; k++) {
        avk_value v, sv;
        avk_error err, serr;
        const uint8_t *start = r.pos;
        avk_status st = avk_plan_decode(plan, &r, arena, &v, &err);
        avk_status sst = avk_plan_decode(plan, &sr, sarena, &sv, &serr);
        AVKF_CHECK(decode_status_ok(st), "decode: %s (%s)", avk_status_name(st), err.message);
        AVKF_CHECK(st == sst, "value %d: memory %s (%s), stream %s (%s)", k, avk_status_name(st),
                   st ? err.message : "-", avk_status_name(sst), sst ? serr.message : "-");
        if (st == AVK_OK) {
            AVKF_CHECK(avk_value_equal(&v, &sv), "value %d: memory and stream differ", k);
            AVKF_CHECK(avk_reader_offset(&sr) == (uint64_t)(r.pos - data),
                       "value %d: stream ended at %llu, memory at %zu", k,
                       (unsigned long long)avk_reader_offset(&sr), (size_t)(r.pos - data));
        }
        avk_arena_reset(arena);
        avk_arena_reset(sarena);
        if (st != AVK_OK)
            break;
        avk_reader_init_memory(&s, start, (size_t)(r.end - start));
        st = avk_plan_skip(plan, &s, &err);
        AVKF_CHECK(st == AVK_OK && s.pos == r.pos,
                   "value %d decoded over %zu bytes, skip: %s over %zu", k,
                   (size_t)(r.pos - start), avk_status_name(st), (size_t)(s.pos - start));
    }
    avk_reader_destroy(&sr);
    avk_arena_free(arena);
    avk_arena_free(sarena);
}

static void run_pair(const avk_schema *w, const avk_schema *rd, const uint8_t *data, size_t size)
{
    avk_plan *plan = NULL;
    avk_error err;
    avk_status compat = avk_schema_check_compat(avk_schema_root(w), avk_schema_root(rd), NULL,
                                                NULL, &err);
    avk_status st = avk_plan_new_resolving(avk_schema_root(w), avk_schema_root(rd), NULL, &plan,
                                           &err);
    AVKF_CHECK(compat == AVK_OK || compat == AVK_ERR_RESOLUTION || compat == AVK_ERR_LIMIT,
               "compat: %s", avk_status_name(compat));
    AVKF_CHECK(st == AVK_OK || st == AVK_ERR_RESOLUTION || st == AVK_ERR_LIMIT,
               "resolve: %s (%s)", avk_status_name(st), err.message);
    /* The check is stricter than the compiler, never looser. */
    if (compat == AVK_OK)
        AVKF_CHECK(st == AVK_OK, "compatible, but the plan fails: %s", err.message);
    if (st != AVK_OK)
        return;
    AVKF_CHECK(avk_plan_is_resolving(plan), "not a resolving plan");
    run_plan(plan, data, size);
    avk_plan_free(plan);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static avk_schema *fixed[PAIR_COUNT][2];
    if (size == 0)
        return 0;
    if (!(data[0] & 0x80)) {
        size_t i = (size_t)(data[0] & 0x0F) % PAIR_COUNT;
        if (!fixed[i][0]) {
            fixed[i][0] = parse(pairs[i][0], strlen(pairs[i][0]));
            fixed[i][1] = parse(pairs[i][1], strlen(pairs[i][1]));
            AVKF_CHECK(fixed[i][0] && fixed[i][1], "pair %zu does not parse", i);
        }
        run_pair(fixed[i][0], fixed[i][1], data + 1, size - 1);
        return 0;
    }
    {
        const uint8_t *p = data + 1, *end = data + size;
        const uint8_t *z1 = (const uint8_t *)memchr(p, 0, (size_t)(end - p)), *z2;
        avk_schema *w, *r;
        if (!z1)
            return 0;
        z2 = (const uint8_t *)memchr(z1 + 1, 0, (size_t)(end - z1 - 1));
        if (!z2)
            return 0;
        w = parse((const char *)p, (size_t)(z1 - p));
        r = w ? parse((const char *)z1 + 1, (size_t)(z2 - z1 - 1)) : NULL;
        if (w && r)
            run_pair(w, r, z2 + 1, (size_t)(end - z2 - 1));
        avk_schema_free(w);
        avk_schema_free(r);
    }
    return 0;
}
