/* Fuzz target: raw, single-object and Confluent messages decoded through a schema store; what decodes re-encodes to a message that decodes to the same value, and cut or padded messages fail as they must. */
#include <stdlib.h>
#include <string.h>

#include "avrokit/arena.h"
#include "avrokit/message.h"
#include "avrokit/plan.h"
#include "avrokit/writer.h"
#include "fuzz.h"
#include "fuzz_schemas.h"

/* Input layout:
 *   byte 0     bits 0-1: 0 raw, 1 single-object, 2 Confluent, 3 single-object
 *              decoded into a reader type (schema s parsed again: a resolving
 *              plan, which must give what the plain one gives when the
 *              message's writer is s);
 *              bits 2-5: the schema s (modulo the set's size): raw decodes
 *              with its plan, mode 3 reads into it;
 *              bit 6: the store whose plans copy strings (AVK_PLAN_COPY_STRINGS)
 *   the rest   the message
 * The stores hold every schema of fuzz_schemas.h, the even-numbered ones
 * under id i + 1 as well (a Confluent id of an odd one is unknown). */

/* Plans with limits small enough that a hostile count stays fast. */
static const avk_limits limits = {64, 1u << 16, 1u << 16, 1u << 12, 16u << 20};

static avk_schema_store *stores[2];
static avk_schema *readers[AVKF_SCHEMA_COUNT];
static avk_plan *raw_plans[2][AVKF_SCHEMA_COUNT];
static uint64_t fingerprints[AVKF_SCHEMA_COUNT];
static avk_arena *arena;
static avk_writer out1, out2;

static void setup(void)
{
    avk_schema_store_options so;
    avk_plan_options po;
    avk_error err;
    avk_status st;
    size_t i, k;
    for (k = 0; k < 2; k++) {
        avk_plan_options_init(&po);
        po.flags = k ? AVK_PLAN_COPY_STRINGS : 0u;
        po.limits = limits;
        memset(&so, 0, sizeof so);
        so.struct_size = sizeof so;
        so.plan = &po;
        st = avk_schema_store_new(&so, &stores[k], &err);
        AVKF_CHECK(st == AVK_OK, "store: %s", err.message);
        for (i = 0; i < AVKF_SCHEMA_COUNT; i++) {
            char *json = avkf_schema_json(i);
            const avk_schema *s;
            AVKF_CHECK(json != NULL, "out of memory");
            st = avk_schema_store_add(stores[k], json, strlen(json),
                                      i % 2 == 0 ? (int64_t)i + 1 : -1, &s, &err);
            AVKF_CHECK(st == AVK_OK, "add %zu: %s", i, err.message);
            free(json);
        }
    }
    for (i = 0; i < AVKF_SCHEMA_COUNT; i++) {
        uint8_t fp[32];
        size_t n = 0;
        int b;
        readers[i] = avkf_schema_parse(i);
        for (k = 0; k < 2; k++)
            raw_plans[k][i] = avkf_plan_new(avk_schema_root(readers[i]),
                                            k ? AVK_PLAN_COPY_STRINGS : 0u, &limits, 0);
        st = avk_type_fingerprint(avk_schema_root(readers[i]), AVK_FINGERPRINT_RABIN, fp, &n,
                                  &err);
        AVKF_CHECK(st == AVK_OK, "fingerprint: %s", err.message);
        fingerprints[i] = 0;
        for (b = 7; b >= 0; b--)
            fingerprints[i] = fingerprints[i] << 8 | fp[b];
    }
    st = avk_arena_new(NULL, &arena, &err);
    AVKF_CHECK(st == AVK_OK, "arena: %s", err.message);
    AVKF_CHECK(avk_writer_init_memory(&out1, NULL, &err) == AVK_OK, "writer");
    AVKF_CHECK(avk_writer_init_memory(&out2, NULL, &err) == AVK_OK, "writer");
}

static avk_message_decoder *decoder(avk_framing f, avk_schema_store *store, const avk_plan *plan,
                                    const avk_type *reader)
{
    avk_message_decoder_options o;
    avk_message_decoder *d = NULL;
    avk_error err;
    avk_status st;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.framing = f;
    o.store = store;
    o.plan = plan;
    o.reader = reader;
    st = avk_message_decoder_new(&o, &d, &err);
    AVKF_CHECK(st == AVK_OK, "decoder: %s", err.message);
    return d;
}

static int expected_status(avk_status st)
{
    return st == AVK_ERR_TRUNCATED || st == AVK_ERR_MALFORMED || st == AVK_ERR_NOT_FOUND ||
           st == AVK_ERR_RESOLUTION || st == AVK_ERR_LIMIT;
}

/* v decoded from msg with d: re-encoded, decoded again, equal; the same
 * header; encoding is stable from then on. */
static void check_round_trip(avk_message_decoder *d, avk_framing f, const uint8_t *msg,
                             size_t len, const avk_value *v)
{
    const avk_plan *plan = avk_message_decoder_plan(d);
    avk_message_encoder enc;
    int64_t id = -1;
    const uint8_t *e1, *e2;
    size_t l1, l2;
    avk_value v2;
    avk_error err;
    avk_status st;
    if (f == AVK_FRAMING_CONFLUENT) {
        uint32_t u = 0;
        AVKF_CHECK(avk_confluent_parse(msg, len, &u, &err) == AVK_OK, "header");
        id = u;
    }
    st = avk_message_encoder_init(&enc, f, plan, id, &err);
    AVKF_CHECK(st == AVK_OK, "encoder: %s", err.message);
    AVKF_CHECK(len >= enc.header_size && memcmp(enc.header, msg, enc.header_size) == 0,
               "the encoder's header differs from the message's");
    avk_writer_reset(&out1);
    st = avk_message_encode(&enc, v, &out1, &err);
    AVKF_CHECK(st == AVK_OK, "encode: %s", err.message);
    e1 = avk_writer_data(&out1, &l1);
    st = avk_message_decode(d, e1, l1, arena, &v2, &err);
    AVKF_CHECK(st == AVK_OK, "decode(encode(v)): %s", err.message);
    AVKF_CHECK(avk_value_equal(v, &v2), "decode(encode(v)) differs from v");
    avk_writer_reset(&out2);
    st = avk_message_encode(&enc, &v2, &out2, &err);
    AVKF_CHECK(st == AVK_OK, "encode again: %s", err.message);
    e2 = avk_writer_data(&out2, &l2);
    AVKF_CHECK(l1 == l2 && memcmp(e1, e2, l1) == 0, "encoding is not stable");
}

/* A message that decodes: one byte less does not, one byte more is
 * "1 bytes after the datum". */
static void check_cut_and_padded(avk_message_decoder *d, const uint8_t *msg, size_t len)
{
    uint8_t *more = (uint8_t *)malloc(len + 1);
    avk_value v;
    avk_error err;
    avk_status st;
    AVKF_CHECK(more != NULL, "out of memory");
    if (len > 0) {
        /* exactly len - 1 bytes of their own, so reading past them is caught */
        uint8_t *cut = (uint8_t *)malloc(len - 1 ? len - 1 : 1);
        AVKF_CHECK(cut != NULL, "out of memory");
        memcpy(cut, msg, len - 1);
        st = avk_message_decode(d, cut, len - 1, arena, &v, &err);
        AVKF_CHECK(st == AVK_ERR_TRUNCATED || st == AVK_ERR_MALFORMED,
                   "a message cut by one byte: %s", avk_status_name(st));
        free(cut);
    }
    memcpy(more, msg, len);
    more[len] = 0;
    st = avk_message_decode(d, more, len + 1, arena, &v, &err);
    AVKF_CHECK(st == AVK_ERR_MALFORMED, "a message with a byte more: %s", avk_status_name(st));
    AVKF_CHECK(strncmp(err.message, "1 bytes after the datum", 23) == 0, "message \"%s\"",
               err.message);
    AVKF_CHECK(err.offset == len, "offset %llu, expected %zu", (unsigned long long)err.offset,
               len);
    free(more);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned mode, copy;
    size_t si, len;
    const uint8_t *msg;
    avk_schema_store *store;
    avk_message_decoder *d;
    avk_framing f;
    avk_value v;
    avk_error err;
    avk_status st;
    if (!arena)
        setup();
    if (size < 1)
        return 0;
    mode = data[0] & 3u;
    si = ((size_t)data[0] >> 2 & 15u) % AVKF_SCHEMA_COUNT;
    copy = (data[0] >> 6) & 1u;
    store = stores[copy];
    msg = data + 1;
    len = size - 1;
    avk_arena_reset(arena);
    f = mode == 0 ? AVK_FRAMING_RAW
                  : mode == 2 ? AVK_FRAMING_CONFLUENT : AVK_FRAMING_SINGLE_OBJECT;
    d = decoder(f, store, raw_plans[copy][si], mode == 3 ? avk_schema_root(readers[si]) : NULL);
    st = avk_message_decode(d, msg, len, arena, &v, &err);
    AVKF_CHECK(st == AVK_OK || expected_status(st), "decode: %s (%s)", avk_status_name(st),
               err.message);
    if (st == AVK_OK) {
        check_cut_and_padded(d, msg, len);
        if (mode != 3) {
            check_round_trip(d, f, msg, len, &v);
        } else {
            /* Read into s's own type: the plain decoder gives the same
             * value when the message's writer is s. */
            uint64_t fp = 0;
            AVKF_CHECK(avk_single_object_parse(msg, len, &fp, &err) == AVK_OK, "header");
            if (fp == fingerprints[si]) {
                avk_message_decoder *plain = decoder(f, store, NULL, NULL);
                avk_value pv;
                st = avk_message_decode(plain, msg, len, arena, &pv, &err);
                AVKF_CHECK(st == AVK_OK, "plain decode: %s", err.message);
                AVKF_CHECK(avk_value_equal(&v, &pv), "resolved into itself differs");
                avk_message_decoder_free(plain);
            }
        }
    }
    avk_message_decoder_free(d);
    return 0;
}
