/* Fuzz target: whatever decodes re-encodes, and decode(encode(decode(x))) == decode(x) with encode(decode(encode(v))) byte-identical. */
#include <stdlib.h>
#include <string.h>

#include "avrokit/arena.h"
#include "avrokit/plan.h"
#include "avrokit/reader.h"
#include "avrokit/writer.h"
#include "fuzz.h"
#include "fuzz_schemas.h"

/* Input layout:
 *   byte 0     low 4 bits: the schema (modulo the set's size);
 *              bits 4-5: how the encoder writes arrays and maps (one
 *              block; blocks of 1; blocks of 3 with byte sizes; blocks of
 *              2 with byte sizes); bit 6: decode x with AVK_PLAN_COPY_STRINGS
 *   the rest   x, one value of that schema (bytes after it are ignored)
 *
 * x itself need not come back: a varint may be written longer than needed
 * and blocks may be laid out otherwise. What must hold is that the value
 * survives encoding, and that encoding is a function of the value. */

static const struct {
    size_t block_items;
    unsigned flags;
} layouts[4] = {{0, 0}, {1, 0}, {3, AVK_PLAN_BLOCK_SIZES}, {2, AVK_PLAN_BLOCK_SIZES}};

static avk_schema *schemas[AVKF_SCHEMA_COUNT];
static avk_plan *decode_plans[AVKF_SCHEMA_COUNT][2];
static avk_plan *encode_plans[AVKF_SCHEMA_COUNT][4];

static void prepare(size_t si)
{
    const avk_type *t;
    size_t k;
    if (schemas[si])
        return;
    schemas[si] = avkf_schema_parse(si);
    t = avk_schema_root(schemas[si]);
    decode_plans[si][0] = avkf_plan_new(t, 0, NULL, 0);
    decode_plans[si][1] = avkf_plan_new(t, AVK_PLAN_COPY_STRINGS, NULL, 0);
    for (k = 0; k < 4; k++)
        encode_plans[si][k] = avkf_plan_new(t, layouts[k].flags, NULL, layouts[k].block_items);
}

/* v encoded with p, into a malloc'd buffer. */
static uint8_t *encode(const avk_plan *p, const avk_value *v, size_t *len, const char *what)
{
    avk_writer w;
    avk_error err;
    const uint8_t *data;
    uint8_t *out;
    avk_status st = avk_writer_init_memory(&w, NULL, &err);
    AVKF_CHECK(st == AVK_OK, "writer: %s", err.message);
    st = avk_plan_encode(p, v, &w, &err);
    AVKF_CHECK(st == AVK_OK, "%s: a decoded value does not encode: %s: %s", what,
               avk_status_name(st), err.message);
    data = avk_writer_data(&w, len);
    out = (uint8_t *)malloc(*len ? *len : 1);
    AVKF_CHECK(out != NULL, "out of memory");
    if (*len)
        memcpy(out, data, *len);
    avk_writer_destroy(&w);
    return out;
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t si, layout, e1_len, e2_len;
    const avk_plan *dp, *ep, *plain;
    avk_reader r;
    avk_arena *a1, *a2;
    avk_value v1, v2;
    avk_error err;
    avk_status st;
    uint8_t *e1, *e2;

    if (size < 1)
        return 0;
    si = (data[0] & 15u) % AVKF_SCHEMA_COUNT;
    layout = (data[0] >> 4) & 3u;
    prepare(si);
    dp = decode_plans[si][(data[0] >> 6) & 1u];
    plain = decode_plans[si][0];
    ep = encode_plans[si][layout];

    AVKF_CHECK(avk_arena_new(NULL, &a1, &err) == AVK_OK, "arena");
    AVKF_CHECK(avk_arena_new(NULL, &a2, &err) == AVK_OK, "arena");
    avk_reader_init_memory(&r, data + 1, size - 1);
    if (avk_plan_decode(dp, &r, a1, &v1, &err) != AVK_OK)
        goto done; /* not a value: fuzz_decode checks the errors */

    /* decode(encode(decode(x))) == decode(x), and it reads all of it. */
    e1 = encode(ep, &v1, &e1_len, "first encode");
    avk_reader_init_memory(&r, e1, e1_len);
    st = avk_plan_decode(plain, &r, a2, &v2, &err);
    AVKF_CHECK(st == AVK_OK, "schema %zu layout %zu: the encoding does not decode: %s: %s", si,
               layout, avk_status_name(st), err.message);
    AVKF_CHECK(avk_reader_offset(&r) == e1_len, "decoded %llu of %zu encoded bytes",
               (unsigned long long)avk_reader_offset(&r), e1_len);
    AVKF_CHECK(avk_value_equal(&v1, &v2), "schema %zu layout %zu: the value changed in a round trip",
               si, layout);

    /* encode(decode(encode(v))) == encode(v), byte for byte. */
    e2 = encode(ep, &v2, &e2_len, "second encode");
    AVKF_CHECK(e1_len == e2_len && memcmp(e1, e2, e1_len) == 0,
               "schema %zu layout %zu: re-encoding gives other bytes (%zu, %zu)", si, layout, e1_len,
               e2_len);

    /* The encoding is skipped whole, from memory and from a stream. */
    avk_reader_init_memory(&r, e1, e1_len);
    st = avk_plan_skip(plain, &r, &err);
    AVKF_CHECK(st == AVK_OK && avk_reader_offset(&r) == e1_len, "skip: %s at %llu of %zu",
               avk_status_name(st), (unsigned long long)avk_reader_offset(&r), e1_len);
    {
        byte_source src = {e1, e1_len, 0};
        avk_reader sr;
        st = avk_reader_init_source(&sr, byte_read, &src, NULL, &err);
        AVKF_CHECK(st == AVK_OK, "stream reader: %s", err.message);
        st = avk_plan_skip(plain, &sr, &err);
        AVKF_CHECK(st == AVK_OK && avk_reader_offset(&sr) == e1_len,
                   "stream skip: %s at %llu of %zu", avk_status_name(st),
                   (unsigned long long)avk_reader_offset(&sr), e1_len);
        /* And decoded from a stream, equal again. */
        src.pos = 0;
        avk_reader_destroy(&sr);
        st = avk_reader_init_source(&sr, byte_read, &src, NULL, &err);
        AVKF_CHECK(st == AVK_OK, "stream reader: %s", err.message);
        avk_arena_reset(a2);
        st = avk_plan_decode(plain, &sr, a2, &v2, &err);
        AVKF_CHECK(st == AVK_OK && avk_value_equal(&v1, &v2),
                   "stream decode of the encoding: %s", avk_status_name(st));
        avk_reader_destroy(&sr);
    }
    free(e1);
    free(e2);
done:
    avk_arena_free(a1);
    avk_arena_free(a2);
    return 0;
}
