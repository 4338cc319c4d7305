/* Unit tests for messages: single-object and Confluent headers, the schema store (adds, ids, loaders, fetch, limits, plans), message encoders and decoders, interop datasets in every framing, Java's single-object example, allocation failures. */
#define _DEFAULT_SOURCE 1
#include <cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "avkt.h"
#include "avrokit/codec.h"
#include "avrokit/file.h"
#include "avrokit/message.h"
#include "avrokit/resolve.h"
#include "failalloc.h"
#include "value_json.h"

#define APACHE AVK_INTEROP_DIR "/apache"

#define AVKT_I64_ROW(row, got, want)                                                      \
    do {                                                                                  \
        if ((got) != (want))                                                              \
            fail_msg("row %d: fingerprint %lld, expected %lld", (row), (long long)(got),    \
                     (long long)(want));                                                  \
    } while (0)

/* ---- helpers ------------------------------------------------------------------------- */

static avk_arena *new_arena(void)
{
    avk_arena *a = NULL;
    AVKT_OK(avk_arena_new(NULL, &a, NULL));
    return a;
}

static avk_schema_store *new_store(void)
{
    avk_schema_store *s = NULL;
    AVKT_OK(avk_schema_store_new(NULL, &s, NULL));
    return s;
}

static avk_message_decoder *new_decoder(avk_framing f, avk_schema_store *store,
                                        const avk_plan *plan, const avk_type *reader)
{
    avk_message_decoder_options o;
    avk_message_decoder *d = NULL;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.framing = f;
    o.store = store;
    o.plan = plan;
    o.reader = reader;
    AVKT_OK(avk_message_decoder_new(&o, &d, NULL));
    return d;
}

static void mem_writer(avk_writer *w)
{
    AVKT_OK(avk_writer_init_memory(w, NULL, NULL));
}

/* The bytes of one message of v in framing (id for confluent). */
static void encode_msg(avk_framing f, const avk_plan *plan, int64_t id, const avk_value *v,
                       avk_writer *w)
{
    avk_message_encoder enc;
    avk_error err;
    AVKT_OK(avk_message_encoder_init(&enc, f, plan, id, &err));
    avk_writer_reset(w);
    if (avk_message_encode(&enc, v, w, &err) != AVK_OK)
        fail_msg("encode: %s", err.message);
}

static uint64_t fingerprint_of(const avk_type *t)
{
    uint8_t fp[32];
    size_t n = 0;
    uint64_t v = 0;
    int i;
    AVKT_OK(avk_type_fingerprint(t, AVK_FINGERPRINT_RABIN, fp, &n, NULL));
    assert_int_equal(n, 8);
    for (i = 7; i >= 0; i--)
        v = v << 8 | fp[i];
    return v;
}

static void assert_text(const avk_value *v, const char *want)
{
    char *got = avkt_value_to_text(v);
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "got  %s\nwant %s\n", got, want);
        free(got);
        fail();
    }
    free(got);
}

static void assert_msg(const avk_error *err, const char *want)
{
    if (strcmp(err->message, want) != 0)
        fail_msg("message \"%s\", expected \"%s\"", err->message, want);
}

static void assert_msg_has(const avk_error *err, const char *want)
{
    if (!strstr(err->message, want))
        fail_msg("message \"%s\" lacks \"%s\"", err->message, want);
}

static cJSON *load_table(const char *name)
{
    char path[4096];
    char *text;
    cJSON *j;
    snprintf(path, sizeof path, "tables/%s", name);
    text = avkt_interop_read(AVK_INTEROP_DIR, path, NULL);
    if (!text)
        return NULL;
    j = cJSON_Parse(text);
    free(text);
    assert_non_null(j);
    return j;
}

static avk_schema *parse_cjson(const cJSON *schema)
{
    char *text = cJSON_PrintUnformatted(schema);
    avk_schema *s;
    assert_non_null(text);
    s = AVKT_PARSE_RAW(text);
    free(text);
    return s;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
}

static const char *USER_V1 =
    "{'type':'record','name':'User','namespace':'ex','fields':["
    "{'name':'id','type':'int'},{'name':'nick','type':'string'}]}";

/* ---- framing names and headers ------------------------------------------------------- */

static void test_framing_names(void **state)
{
    avk_framing f = AVK_FRAMING_RAW;
    (void)state;
    assert_string_equal(avk_framing_name(AVK_FRAMING_RAW), "raw");
    assert_string_equal(avk_framing_name(AVK_FRAMING_SINGLE_OBJECT), "single-object");
    assert_string_equal(avk_framing_name(AVK_FRAMING_CONFLUENT), "confluent");
    assert_null(avk_framing_name((avk_framing)3));
    assert_null(avk_framing_name((avk_framing)-1));
    assert_int_equal(avk_framing_parse("confluent", &f), 0);
    assert_int_equal(f, AVK_FRAMING_CONFLUENT);
    assert_int_equal(avk_framing_parse("single-object", &f), 0);
    assert_int_equal(f, AVK_FRAMING_SINGLE_OBJECT);
    assert_int_equal(avk_framing_parse("raw", &f), 0);
    assert_int_equal(f, AVK_FRAMING_RAW);
    f = AVK_FRAMING_CONFLUENT;
    assert_int_equal(avk_framing_parse("Raw", &f), -1);
    assert_int_equal(avk_framing_parse("", &f), -1);
    assert_int_equal(avk_framing_parse("single_object", &f), -1);
    assert_int_equal(f, AVK_FRAMING_CONFLUENT); /* untouched */
}

static void test_single_object_header(void **state)
{
    uint8_t h[AVK_SINGLE_OBJECT_HEADER_SIZE];
    uint8_t want[10];
    uint64_t fp = 0;
    avk_error err;
    (void)state;
    avk_single_object_header(0x0123456789abcdefULL, h);
    avkt_unhex("c301efcdab8967452301", want, sizeof want);
    avkt_assert_bytes(h, sizeof h, want, 10);
    AVKT_OK(avk_single_object_parse(h, sizeof h, &fp, &err));
    assert_true(fp == 0x0123456789abcdefULL);
    /* more bytes after the header are the datum's */
    {
        uint8_t m[12];
        memcpy(m, h, 10);
        m[10] = 1;
        m[11] = 2;
        fp = 0;
        AVKT_OK(avk_single_object_parse(m, sizeof m, &fp, &err));
        assert_true(fp == 0x0123456789abcdefULL);
    }
    /* short */
    AVKT_ASSERT_STATUS(avk_single_object_parse(h, 9, &fp, &err), AVK_ERR_TRUNCATED);
    assert_msg(&err, "single-object message of 9 bytes: the header takes 10 (C3 01 and an "
                     "8-byte fingerprint)");
    assert_int_equal(err.offset, 9);
    AVKT_ASSERT_STATUS(avk_single_object_parse(h, 0, &fp, &err), AVK_ERR_TRUNCATED);
    AVKT_ASSERT_STATUS(avk_single_object_parse(NULL, 0, &fp, &err), AVK_ERR_TRUNCATED);
    AVKT_ASSERT_STATUS(avk_single_object_parse(h, 1, &fp, &err), AVK_ERR_TRUNCATED);
    /* bad marker: named even in a short message */
    h[1] = 0x02;
    AVKT_ASSERT_STATUS(avk_single_object_parse(h, 10, &fp, &err), AVK_ERR_MALFORMED);
    assert_msg(&err, "not a single-object message: starts with 0xC3 0x02, not C3 01");
    assert_int_equal(err.offset, 0);
    AVKT_ASSERT_STATUS(avk_single_object_parse(h, 2, &fp, &err), AVK_ERR_MALFORMED);
    h[0] = 0x4F; /* "Obj": a container file */
    h[1] = 0x62;
    AVKT_ASSERT_STATUS(avk_single_object_parse(h, 10, &fp, &err), AVK_ERR_MALFORMED);
    assert_msg(&err, "not a single-object message: starts with 0x4F 0x62, not C3 01");
    AVKT_ASSERT_STATUS(avk_single_object_parse(h, 1, &fp, &err), AVK_ERR_MALFORMED);
    assert_msg(&err, "not a single-object message: starts with 0x4F, not C3 01");
}

static void test_confluent_header(void **state)
{
    uint8_t h[AVK_CONFLUENT_HEADER_SIZE], want[5];
    uint32_t id = 0;
    avk_error err;
    (void)state;
    avk_confluent_header(0x01020304u, h);
    avkt_unhex("0001020304", want, sizeof want);
    avkt_assert_bytes(h, 5, want, 5);
    AVKT_OK(avk_confluent_parse(h, 5, &id, &err));
    assert_int_equal(id, 0x01020304u);
    avk_confluent_header(UINT32_MAX, h);
    avkt_unhex("00ffffffff", want, sizeof want);
    avkt_assert_bytes(h, 5, want, 5);
    AVKT_OK(avk_confluent_parse(h, 5, &id, &err));
    assert_int_equal(id, UINT32_MAX);
    AVKT_ASSERT_STATUS(avk_confluent_parse(h, 4, &id, &err), AVK_ERR_TRUNCATED);
    assert_msg(&err, "Confluent message of 4 bytes: the header takes 5 (magic byte 0 and a "
                     "4-byte schema id)");
    assert_int_equal(err.offset, 4);
    AVKT_ASSERT_STATUS(avk_confluent_parse(h, 0, &id, &err), AVK_ERR_TRUNCATED);
    h[0] = 1;
    AVKT_ASSERT_STATUS(avk_confluent_parse(h, 5, &id, &err), AVK_ERR_MALFORMED);
    assert_msg(&err, "not a Confluent message: starts with 0x01, not the magic byte 0");
    assert_int_equal(err.offset, 0);
    AVKT_ASSERT_STATUS(avk_confluent_parse(h, 1, &id, &err), AVK_ERR_MALFORMED);
}

/* ---- Java's example ------------------------------------------------------------------ */

static void test_java_single_object(void **state)
{
    char *schema_text, *bin;
    size_t schema_len, bin_len, len;
    avk_schema *s;
    avk_plan *plan;
    avk_arena *a;
    avk_value v, out;
    avk_writer w;
    avk_schema_store *store;
    avk_message_decoder *d;
    const avk_schema *stored;
    const uint8_t *data;
    avk_error err;
    char why[256];
    (void)state;
    schema_text = avkt_interop_read(AVK_INTEROP_DIR, "share/test/data/messageV1/test_schema.avsc",
                                    &schema_len);
    if (!schema_text)
        skip();
    bin = avkt_interop_read(AVK_INTEROP_DIR, "share/test/data/messageV1/test_message.bin",
                            &bin_len);
    assert_non_null(bin);
    s = avkt_parse_at(schema_text, schema_len, __FILE__, __LINE__);
    plan = avkt_plan_new(avk_schema_root(s), 0, NULL, 0);
    a = new_arena();
    if (!avkt_value_from_text(&v, avk_schema_root(s),
                              "{\"id\":42,\"name\":\"Bill\",\"tags\":[\"dog_lover\",\"cat_hater\"]}",
                              a, why, sizeof why))
        fail_msg("%s", why);
    mem_writer(&w);
    encode_msg(AVK_FRAMING_SINGLE_OBJECT, plan, -1, &v, &w);
    data = avk_writer_data(&w, &len);
    avkt_assert_bytes(data, len, (const uint8_t *)bin, bin_len);

    /* and back through a store */
    store = new_store();
    AVKT_OK(avk_schema_store_add(store, schema_text, schema_len, -1, &stored, &err));
    d = new_decoder(AVK_FRAMING_SINGLE_OBJECT, store, NULL, NULL);
    assert_null(avk_message_decoder_writer(d));
    assert_null(avk_message_decoder_plan(d));
    AVKT_OK(avk_message_decode(d, bin, bin_len, a, &out, &err));
    assert_text(&out, "{\"id\":42,\"name\":\"Bill\",\"tags\":[\"dog_lover\",\"cat_hater\"]}");
    assert_true(avk_value_equal(&out, &v));
    assert_ptr_equal(avk_message_decoder_writer(d), stored);
    assert_ptr_equal(out.type, avk_schema_root(stored));
    assert_non_null(avk_message_decoder_plan(d));
    assert_ptr_equal(avk_plan_type(avk_message_decoder_plan(d)), avk_schema_root(stored));
    /* the fingerprint in the file is the schema's */
    {
        uint64_t fp;
        const avk_schema *found;
        AVKT_OK(avk_single_object_parse(bin, bin_len, &fp, &err));
        assert_true(fp == fingerprint_of(avk_schema_root(s)));
        /* the first schema of this canonical form: this one, or an earlier
         * row's that differs in attributes (a logical type) */
        AVKT_OK(avk_schema_store_find_fingerprint(store, fp, &found, &err));
        assert_true(fingerprint_of(avk_schema_root(found)) == fp);
        if (found != stored)
            assert_false(avk_type_equal(avk_schema_root(found), avk_schema_root(stored)));
    }
    avk_message_decoder_free(d);
    avk_schema_store_free(store);
    avk_writer_destroy(&w);
    avk_arena_free(a);
    avk_plan_free(plan);
    avk_schema_free(s);
    free(schema_text);
    free(bin);
}

/* ---- fingerprints of the schema table ------------------------------------------------ */

static void hex_of(const uint8_t *p, size_t n, char *out)
{
    size_t i;
    for (i = 0; i < n; i++)
        snprintf(out + 2 * i, 3, "%02x", p[i]);
}

static void test_fingerprint_table(void **state)
{
    cJSON *table = load_table("py_fingerprint_examples.json"), *row;
    avk_schema_store *store;
    int n = 0, python_rows = 0;
    (void)state;
    if (!table)
        skip();
    store = new_store();
    cJSON_ArrayForEach(row, table)
    {
        avk_schema *s = parse_cjson(cJSON_GetObjectItem(row, "schema"));
        const char *want =
            cJSON_GetObjectItem(cJSON_GetObjectItem(row, "fingerprints_hex"), "CRC-64-AVRO")
                ->valuestring;
        uint8_t h[AVK_SINGLE_OBJECT_HEADER_SIZE];
        char got[17];
        uint64_t fp = fingerprint_of(avk_schema_root(s));
        const avk_schema *stored, *found;
        avk_error err;
        const char *canon = cJSON_GetObjectItem(row, "canonical_form")->valuestring;
        avk_writer cw;
        const uint8_t *ours;
        size_t ours_len;
        avk_single_object_header(fp, h);
        assert_int_equal(h[0], 0xC3);
        assert_int_equal(h[1], 0x01);
        hex_of(h + 2, 8, got);
        mem_writer(&cw);
        AVKT_OK(avk_type_write_canonical(avk_schema_root(s), &cw, NULL));
        ours = avk_writer_data(&cw, &ours_len);
        if (ours_len != strlen(canon) || memcmp(ours, canon, ours_len) != 0) {
            /* python3-avro writes a repeated fixed in full (see
             * schema_canonical_test.c): its fingerprint is of that text,
             * ours of the specification's form. */
            uint8_t ph[AVK_SINGLE_OBJECT_HEADER_SIZE];
            char pgot[17];
            avk_single_object_header(avk_rabin64(canon, strlen(canon)), ph);
            hex_of(ph + 2, 8, pgot);
            assert_string_equal(pgot, want);
            avk_single_object_header(avk_rabin64(ours, ours_len), ph);
            avkt_assert_bytes(h, 10, ph, 10);
            python_rows++;
        } else if (strcmp(got, want) != 0) {
            fail_msg("row %d: header holds %s, table says %s", n, got, want);
        }
        avk_writer_destroy(&cw);
        AVKT_OK(avk_schema_store_add_schema(store, s, -1, &stored, &err));
        /* the first schema of this canonical form: this one, or an earlier
         * row's that differs in attributes (a logical type) */
        AVKT_OK(avk_schema_store_find_fingerprint(store, fp, &found, &err));
        assert_true(fingerprint_of(avk_schema_root(found)) == fp);
        if (found != stored)
            assert_false(avk_type_equal(avk_schema_root(found), avk_schema_root(stored)));
        /* the store's copy has the same fingerprint */
        assert_true(fingerprint_of(avk_schema_root(stored)) == fp);
        /* and an encoder of it writes the same header */
        {
            avk_plan *p = avkt_plan_new(avk_schema_root(stored), 0, NULL, 0);
            avk_message_encoder enc;
            AVKT_OK(avk_message_encoder_init(&enc, AVK_FRAMING_SINGLE_OBJECT, p, -1, &err));
            assert_int_equal(enc.header_size, 10);
            avkt_assert_bytes(enc.header, 10, h, 10);
            avk_plan_free(p);
        }
        avk_schema_free(s);
        n++;
    }
    assert_true(n >= 20);
    assert_int_equal(python_rows, 1);
    /* rows repeat schemas ("int" and {"type": "int"}): one entry per canonical form */
    assert_true(avk_schema_store_count(store) < (size_t)n);
    avk_schema_store_free(store);
    cJSON_Delete(table);
}

/* share/test/data/schema-tests.txt: every row with a fingerprint (Java's
 * long, signed) is the number the single-object header carries, the
 * encoder writes, and the store files the schema under. */
static void test_spec_fingerprints(void **state)
{
    char *text = avkt_interop_read(AVK_INTEROP_DIR, "share/test/data/schema-tests.txt", NULL);
    char *line, *save = NULL, input[8192];
    size_t in_len = 0;
    int multi = 0, have_input = 0, rows = 0;
    avk_schema_store *store;
    (void)state;
    if (!text)
        skip();
    store = new_store();
    for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (multi) {
            if (strcmp(line, "INPUT") == 0) {
                multi = 0;
                have_input = 1;
            } else {
                in_len += (size_t)snprintf(input + in_len, sizeof input - in_len, "%s\n", line);
                assert_true(in_len < sizeof input);
            }
        } else if (strcmp(line, "<<INPUT") == 0) {
            multi = 1;
            in_len = 0;
            input[0] = '\0';
        } else if (strncmp(line, "<<INPUT ", 8) == 0) {
            snprintf(input, sizeof input, "%s", line + 8);
            in_len = strlen(input);
            have_input = 1;
        } else if (strncmp(line, "<<fingerprint ", 14) == 0) {
            int64_t want = strtoll(line + 14, NULL, 10);
            const avk_schema *stored, *found;
            const avk_plan *plan;
            avk_message_encoder enc;
            uint8_t h[AVK_SINGLE_OBJECT_HEADER_SIZE];
            uint64_t fp = 0;
            avk_error err;
            assert_true(have_input);
            if (avk_schema_store_add(store, input, in_len, -1, &stored, &err) != AVK_OK)
                fail_msg("row %d: %s", rows, err.message);
            AVKT_OK(avk_schema_store_plan(store, stored, NULL, &plan, &err));
            AVKT_OK(avk_message_encoder_init(&enc, AVK_FRAMING_SINGLE_OBJECT, plan, -1, &err));
            AVKT_OK(avk_single_object_parse(enc.header, enc.header_size, &fp, &err));
            AVKT_I64_ROW(rows, (int64_t)fp, want);
            avk_single_object_header((uint64_t)want, h);
            avkt_assert_bytes(enc.header, enc.header_size, h, sizeof h);
            AVKT_OK(avk_schema_store_find_fingerprint(store, (uint64_t)want, &found, &err));
            assert_true(fingerprint_of(avk_schema_root(found)) == (uint64_t)want);
            have_input = 0;
            rows++;
        } else if (strncmp(line, "// ", 3) == 0) {
            have_input = 0;
        }
    }
    assert_int_equal(rows, 26);
    avk_schema_store_free(store);
    free(text);
}

/* ---- every framing, one datum --------------------------------------------------------- */

/* Encodes v (of plan's type, whose schema the store holds as stored under
 * id) in each framing and checks the bytes (header + datum) and the value
 * decoded back. */
static void check_framings(avk_schema_store *store, const avk_schema *stored, uint32_t id,
                           const avk_plan *plan, const avk_value *v, const uint8_t *datum,
                           size_t datum_len, avk_arena *a, const char *what)
{
    static const avk_framing fs[] = {AVK_FRAMING_RAW, AVK_FRAMING_SINGLE_OBJECT,
                                     AVK_FRAMING_CONFLUENT};
    uint8_t hdr[AVK_SINGLE_OBJECT_HEADER_SIZE];
    size_t k, hlen, len;
    avk_writer w, want;
    mem_writer(&w);
    mem_writer(&want);
    for (k = 0; k < 3; k++) {
        avk_message_decoder *d;
        avk_value out;
        avk_error err;
        const uint8_t *got;
        const uint8_t *wd;
        size_t wlen;
        if (fs[k] == AVK_FRAMING_SINGLE_OBJECT) {
            avk_single_object_header(fingerprint_of(avk_plan_type(plan)), hdr);
            hlen = 10;
        } else if (fs[k] == AVK_FRAMING_CONFLUENT) {
            avk_confluent_header(id, hdr);
            hlen = 5;
        } else {
            hlen = 0;
        }
        avk_writer_reset(&want);
        AVKT_OK(avk_writer_write_raw(&want, hdr, hlen, NULL));
        AVKT_OK(avk_writer_write_raw(&want, datum, datum_len, NULL));
        encode_msg(fs[k], plan, id, v, &w);
        got = avk_writer_data(&w, &len);
        wd = avk_writer_data(&want, &wlen);
        if (len != wlen || memcmp(got, wd, len) != 0) {
            fprintf(stderr, "%s, %s framing:\n", what, avk_framing_name(fs[k]));
            avkt_assert_bytes(got, len, wd, wlen);
        }
        d = new_decoder(fs[k], store, plan, NULL);
        if (avk_message_decode(d, got, len, a, &out, &err) != AVK_OK)
            fail_msg("%s, %s framing: %s", what, avk_framing_name(fs[k]), err.message);
        if (!avk_value_equal(&out, v))
            fail_msg("%s, %s framing: decoded value differs", what, avk_framing_name(fs[k]));
        if (fs[k] == AVK_FRAMING_CONFLUENT) {
            assert_ptr_equal(avk_message_decoder_writer(d), stored);
            assert_ptr_equal(out.type, avk_schema_root(stored));
        } else if (fs[k] == AVK_FRAMING_SINGLE_OBJECT) {
            /* the first schema held under the fingerprint */
            const avk_schema *first;
            AVKT_OK(avk_schema_store_find_fingerprint(
                store, fingerprint_of(avk_schema_root(stored)), &first, &err));
            assert_ptr_equal(avk_message_decoder_writer(d), first);
            assert_ptr_equal(out.type, avk_schema_root(first));
        } else {
            assert_null(avk_message_decoder_writer(d));
            assert_ptr_equal(avk_message_decoder_plan(d), plan);
        }
        avk_message_decoder_free(d);
    }
    avk_writer_destroy(&w);
    avk_writer_destroy(&want);
}

/* ---- interop container files in every framing ----------------------------------------- */

/* The container files of MANIFEST.md's first table. */
static size_t manifest_files(char names[][256], size_t cap)
{
    char *text = avkt_interop_read(AVK_INTEROP_DIR, "MANIFEST.md", NULL);
    char *line, *save = NULL;
    int in_table = 0;
    size_t n = 0;
    if (!text)
        return 0;
    for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (strncmp(line, "## ", 3) == 0) {
            in_table = strcmp(line, "## Container files (.avro)") == 0;
            continue;
        }
        if (in_table && strncmp(line, "| ", 2) == 0 && strncmp(line, "| file", 6) != 0) {
            char *end = strstr(line + 2, " |");
            assert_non_null(end);
            *end = '\0';
            assert_true(n < cap);
            snprintf(names[n++], 256, "%s", line + 2);
        }
    }
    free(text);
    return n;
}

static void test_interop_files_framed(void **state)
{
    static char names[64][256];
    size_t n = manifest_files(names, 64), i;
    long total = 0;
    int files = 0;
    (void)state;
    if (n == 0)
        skip();
    assert_true(n >= 20);
    for (i = 0; i < n; i++) {
        char path[4096];
        avk_file_reader *fr;
        avk_schema_store *store;
        const avk_schema *stored;
        const avk_plan *plan;
        avk_file_block blk;
        avk_buffer buf;
        avk_arena *a;
        avk_error err;
        int more = 1, ok = 1;
        long records = 0;
        snprintf(path, sizeof path, "%s/%.255s", APACHE, names[i]);
        if (avk_file_reader_open_path(path, NULL, &fr, &err) != AVK_OK) {
            print_message("  %s: not read (%s): left out\n", names[i], err.message);
            continue;
        }
        plan = avk_file_reader_plan(fr);
        store = new_store();
        AVKT_OK(avk_schema_store_add_schema(store, avk_file_reader_schema(fr), (int64_t)i + 100,
                                            &stored, &err));
        a = new_arena();
        avk_buffer_init(&buf, NULL);
        /* Block by block, each record's bytes as the file holds them. */
        while (ok) {
            avk_reader r;
            int64_t k;
            if (avk_file_reader_next_block(fr, &blk, &more, &err) != AVK_OK || !more)
                break;
            if (avk_file_block_decompress(fr, &blk, &buf, &err) != AVK_OK)
                break;
            avk_reader_init_memory(&r, buf.data, buf.len);
            for (k = 0; k < blk.count; k++) {
                const uint8_t *start = r.pos;
                avk_value v;
                char what[400];
                avk_arena_reset(a);
                if (avk_plan_decode(plan, &r, a, &v, &err) != AVK_OK) {
                    ok = 0; /* damaged files: the records before the damage */
                    break;
                }
                snprintf(what, sizeof what, "%.255s record %ld", names[i], records);
                check_framings(store, stored, (uint32_t)i + 100, plan, &v, start,
                               (size_t)(r.pos - start), a, what);
                records++;
            }
        }
        print_message("  %s: %ld records in 3 framings\n", names[i], records);
        total += records;
        files++;
        avk_buffer_destroy(&buf);
        avk_arena_free(a);
        avk_schema_store_free(store);
        avk_file_reader_free(fr);
    }
    assert_true(files >= 20);
    assert_true(total >= 6000);
}

/* tables/py_io_schema_datum_binary.json: every datum, framed. */
static void test_interop_datums_framed(void **state)
{
    cJSON *table = load_table("py_io_schema_datum_binary.json"), *row;
    avk_schema_store *store;
    avk_arena *a;
    int n = 0;
    (void)state;
    if (!table)
        skip();
    store = new_store();
    a = new_arena();
    cJSON_ArrayForEach(row, table)
    {
        avk_schema *s = parse_cjson(cJSON_GetObjectItem(row, "schema"));
        const char *hex = cJSON_GetObjectItem(row, "binary_hex")->valuestring;
        uint8_t bin[4096];
        size_t bin_len = avkt_unhex(hex, bin, sizeof bin);
        const avk_schema *stored;
        avk_plan *plan;
        avk_value v;
        char why[256], what[64];
        avk_error err;
        /* ids: one per row; a schema seen before keeps its first id, so
         * rows of one schema use it */
        avk_status st = avk_schema_store_add_schema(store, s, 1000 + n, &stored, &err);
        uint32_t id = (uint32_t)(1000 + n);
        if (st == AVK_ERR_INVALID_ARGUMENT)
            fail_msg("row %d: %s", n, err.message);
        AVKT_ASSERT_STATUS(st, AVK_OK);
        /* The row's own schema encodes: a schema held under the same
         * canonical form may differ in logical type (decimal scales). */
        plan = avkt_plan_new(avk_schema_root(s), 0, NULL, 0);
        avk_arena_reset(a);
        if (!avkt_value_from_json(&v, avk_schema_root(s), cJSON_GetObjectItem(row, "datum"),
                                  a, why, sizeof why))
            fail_msg("row %d: %s", n, why);
        snprintf(what, sizeof what, "datum row %d", n);
        check_framings(store, stored, id, plan, &v, bin, bin_len, a, what);
        avk_plan_free(plan);
        avk_schema_free(s);
        n++;
    }
    assert_true(n >= 10);
    avk_arena_free(a);
    avk_schema_store_free(store);
    cJSON_Delete(table);
}

/* ---- resolution through the store ---------------------------------------------------- */

static const char *USER_V2 =
    "{'type':'record','name':'User','namespace':'ex','fields':["
    "{'name':'id','type':'long'},"
    "{'name':'name','type':'string','aliases':['nick']},"
    "{'name':'email','type':'string','default':'none'}]}";

static const char *USER_V3 = /* incompatible: age has no default */
    "{'type':'record','name':'User','namespace':'ex','fields':["
    "{'name':'id','type':'long'},{'name':'age','type':'int'}]}";

static void test_resolution(void **state)
{
    avk_schema *v1 = AVKT_PARSE(USER_V1), *v2 = AVKT_PARSE(USER_V2), *v3 = AVKT_PARSE(USER_V3);
    avk_schema_store *store = new_store();
    const avk_schema *w;
    const avk_plan *p1, *p2, *again;
    avk_plan *wplan;
    avk_message_decoder *dso, *dcf, *bad;
    avk_arena *a = new_arena();
    avk_writer m1, m2;
    avk_value v, out;
    avk_error err;
    char why[256];
    const uint8_t *b1, *b2;
    size_t l1, l2;
    (void)state;
    AVKT_OK(avk_schema_store_add_schema(store, v1, 5, &w, &err));
    wplan = avkt_plan_new(avk_schema_root(w), 0, NULL, 0);
    assert_true(avkt_value_from_text(&v, avk_schema_root(w), "{\"id\":7,\"nick\":\"ann\"}", a,
                                     why, sizeof why));
    mem_writer(&m1);
    mem_writer(&m2);
    encode_msg(AVK_FRAMING_SINGLE_OBJECT, wplan, -1, &v, &m1);
    encode_msg(AVK_FRAMING_CONFLUENT, wplan, 5, &v, &m2);
    b1 = avk_writer_data(&m1, &l1);
    b2 = avk_writer_data(&m2, &l2);

    dso = new_decoder(AVK_FRAMING_SINGLE_OBJECT, store, NULL, avk_schema_root(v2));
    dcf = new_decoder(AVK_FRAMING_CONFLUENT, store, NULL, avk_schema_root(v2));
    AVKT_OK(avk_message_decode(dso, b1, l1, a, &out, &err));
    assert_text(&out, "{\"id\":7,\"name\":\"ann\",\"email\":\"none\"}");
    assert_ptr_equal(out.type, avk_schema_root(v2));
    assert_int_equal(avk_type_kind(out.u.fields[0].type), AVK_LONG);
    p1 = avk_message_decoder_plan(dso);
    assert_true(avk_plan_is_resolving(p1));
    assert_ptr_equal(avk_message_decoder_writer(dso), w);
    AVKT_OK(avk_message_decode(dcf, b2, l2, a, &out, &err));
    assert_text(&out, "{\"id\":7,\"name\":\"ann\",\"email\":\"none\"}");
    p2 = avk_message_decoder_plan(dcf);
    /* one plan per (writer, reader) pair, whichever decoder asked */
    assert_ptr_equal(p1, p2);
    AVKT_OK(avk_schema_store_plan(store, w, avk_schema_root(v2), &again, &err));
    assert_ptr_equal(again, p1);
    AVKT_OK(avk_message_decode(dso, b1, l1, a, &out, &err));
    assert_ptr_equal(avk_message_decoder_plan(dso), p1);
    /* the plain plan is another pair */
    AVKT_OK(avk_schema_store_plan(store, w, NULL, &again, &err));
    assert_false(avk_plan_is_resolving(again));
    assert_ptr_equal(avk_plan_type(again), avk_schema_root(w));
    {
        const avk_plan *again2;
        AVKT_OK(avk_schema_store_plan(store, w, NULL, &again2, &err));
        assert_ptr_equal(again, again2);
    }
    /* an incompatible reader */
    bad = new_decoder(AVK_FRAMING_SINGLE_OBJECT, store, NULL, avk_schema_root(v3));
    AVKT_ASSERT_STATUS(avk_message_decode(bad, b1, l1, a, &out, &err), AVK_ERR_RESOLUTION);
    assert_msg_has(&err, "age");
    AVKT_ASSERT_STATUS(avk_schema_store_plan(store, w, avk_schema_root(v3), &again, &err),
                       AVK_ERR_RESOLUTION);
    assert_null(again);
    /* a schema that is not the store's */
    AVKT_ASSERT_STATUS(avk_schema_store_plan(store, v1, NULL, &again, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    assert_msg(&err, "avk_schema_store_plan: the writer schema is not one of this store's");
    avk_message_decoder_free(bad);
    avk_message_decoder_free(dso);
    avk_message_decoder_free(dcf);
    avk_writer_destroy(&m1);
    avk_writer_destroy(&m2);
    avk_plan_free(wplan);
    avk_arena_free(a);
    avk_schema_store_free(store);
    avk_schema_free(v1);
    avk_schema_free(v2);
    avk_schema_free(v3);
}

/* ---- the store ----------------------------------------------------------------------- */

static void test_store_add_find(void **state)
{
    avk_schema_store *store = new_store();
    const avk_schema *s1, *s2, *s3, *found;
    avk_schema *parsed;
    const char *text;
    avk_error err;
    uint64_t fp;
    (void)state;
    text = avkt_q(USER_V1);
    AVKT_OK(avk_schema_store_add(store, text, strlen(text), -1, &s1, &err));
    assert_non_null(s1);
    assert_int_equal(avk_schema_store_count(store), 1);
    fp = fingerprint_of(avk_schema_root(s1));
    /* the same canonical form, written otherwise: the schema held */
    text = "{\"name\":\"ex.User\",\"type\":\"record\",\"fields\":["
           "{\"name\":\"id\",\"type\":{\"type\":\"int\"}},{\"name\":\"nick\",\"type\":\"string\"}]}";
    AVKT_OK(avk_schema_store_add(store, text, strlen(text), 3, &s2, &err));
    assert_ptr_equal(s2, s1);
    assert_int_equal(avk_schema_store_count(store), 1);
    AVKT_OK(avk_schema_store_find_id(store, 3, &found, &err));
    assert_ptr_equal(found, s1);
    AVKT_OK(avk_schema_store_find_fingerprint(store, fp, &found, &err));
    assert_ptr_equal(found, s1);
    /* the same id for the same schema again: fine */
    AVKT_OK(avk_schema_store_add(store, text, strlen(text), 3, NULL, &err));
    /* another id for it */
    AVKT_OK(avk_schema_store_add(store, text, strlen(text), 4, &s2, &err));
    assert_ptr_equal(s2, s1);
    AVKT_OK(avk_schema_store_find_id(store, 4, &found, &err));
    assert_ptr_equal(found, s1);
    /* id 3 taken by another schema */
    AVKT_ASSERT_STATUS(avk_schema_store_add(store, "\"int\"", 5, 3, &s3, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    assert_null(s3);
    assert_int_equal(avk_schema_store_count(store), 1); /* nothing added */
    AVKT_ASSERT_STATUS(avk_schema_store_find_fingerprint(store, 0x8f5c393f1ad57572ULL, &found,
                                                         &err),
                       AVK_ERR_NOT_FOUND);
    /* ids above 2^32 - 1 */
    AVKT_ASSERT_STATUS(avk_schema_store_add(store, "\"int\"", 5, (int64_t)UINT32_MAX + 1, NULL,
                                            &err),
                       AVK_ERR_INVALID_ARGUMENT);
    assert_msg(&err, "avk_schema_store_add: schema id 4294967296 is above 4294967295");
    AVKT_OK(avk_schema_store_add(store, "\"int\"", 5, (int64_t)UINT32_MAX, &s3, &err));
    AVKT_OK(avk_schema_store_find_id(store, UINT32_MAX, &found, &err));
    assert_ptr_equal(found, s3);
    assert_int_equal(avk_schema_store_count(store), 2);
    /* a bad schema */
    AVKT_ASSERT_STATUS(avk_schema_store_add(store, "{\"type\":\"nope\"}", 15, 9, NULL, &err),
                       AVK_ERR_SCHEMA);
    AVKT_ASSERT_STATUS(avk_schema_store_add(store, "{", 1, 9, NULL, &err), AVK_ERR_MALFORMED);
    AVKT_ASSERT_STATUS(avk_schema_store_find_id(store, 9, &found, &err), AVK_ERR_NOT_FOUND);
    assert_msg(&err, "schema id 9 is not in the schema store");
    assert_null(found);
    AVKT_ASSERT_STATUS(avk_schema_store_find_fingerprint(store, 0x0123456789abcdefULL, &found,
                                                         &err),
                       AVK_ERR_NOT_FOUND);
    assert_msg(&err, "no schema with fingerprint 0123456789abcdef in the schema store");
    /* add_schema keeps its own copy */
    parsed = AVKT_PARSE("{'type':'enum','name':'E','symbols':['A','B'],'doc':'d'}");
    AVKT_OK(avk_schema_store_add_schema(store, parsed, 11, &s2, &err));
    assert_ptr_not_equal(s2, parsed);
    assert_true(avk_type_equal(avk_schema_root(s2), avk_schema_root(parsed)));
    avk_schema_free(parsed);
    AVKT_OK(avk_schema_store_find_id(store, 11, &found, &err));
    assert_ptr_equal(found, s2);
    assert_string_equal(avk_type_doc(avk_schema_root(found)), "d");
    assert_int_equal(avk_schema_store_count(store), 3);
    /* bad arguments */
    AVKT_ASSERT_STATUS(avk_schema_store_add(NULL, "\"int\"", 5, -1, NULL, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_schema_store_add_schema(store, NULL, -1, NULL, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_schema_store_find_id(store, 1, NULL, &err), AVK_ERR_INVALID_ARGUMENT);
    {
        avk_schema_store_options o;
        avk_schema_store *s = (avk_schema_store *)1;
        memset(&o, 0, sizeof o);
        o.struct_size = sizeof o - 1;
        AVKT_ASSERT_STATUS(avk_schema_store_new(&o, &s, &err), AVK_ERR_INVALID_ARGUMENT);
        assert_null(s);
        AVKT_ASSERT_STATUS(avk_schema_store_new(NULL, NULL, &err), AVK_ERR_INVALID_ARGUMENT);
    }
    assert_int_equal(avk_schema_store_count(NULL), 0);
    avk_schema_store_free(NULL);
    avk_schema_store_free(store);
}

static void test_store_id_conflict_message(void **state)
{
    avk_schema_store *store = new_store();
    const avk_schema *s1;
    avk_error err;
    char want[200];
    (void)state;
    AVKT_OK(avk_schema_store_add(store, "\"long\"", 6, 3, &s1, &err));
    AVKT_ASSERT_STATUS(avk_schema_store_add(store, "\"int\"", 5, 3, NULL, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    /* CRC-64-AVRO of "long" and "int", from the fingerprint table */
    snprintf(want, sizeof want,
             "schema id 3 is already bound to another schema (fingerprint %016" PRIx64
             ", this one's is %016" PRIx64 ")",
             (uint64_t)0xd054e14493f41db7ULL, (uint64_t)0x7275d51a3f395c8fULL);
    assert_msg(&err, want);
    assert_int_equal(avk_schema_store_count(store), 1);
    avk_schema_store_free(store);
}

/* One canonical form, two registrations that differ in a logical type:
 * each id keeps its own; the fingerprint finds the first. */
static void test_store_same_form_other_attributes(void **state)
{
    const char *d2 = "{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":9,"
                     "\"scale\":2}";
    const char *d4 = "{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":9,"
                     "\"scale\":4}";
    avk_schema_store *store = new_store();
    avk_message_decoder *d = new_decoder(AVK_FRAMING_CONFLUENT, store, NULL, NULL);
    avk_arena *a = new_arena();
    const avk_schema *s2, *s4, *found;
    uint8_t m[8];
    avk_value out;
    avk_error err;
    (void)state;
    AVKT_OK(avk_schema_store_add(store, d2, strlen(d2), 1, &s2, &err));
    AVKT_OK(avk_schema_store_add(store, d4, strlen(d4), 2, &s4, &err));
    assert_ptr_not_equal(s2, s4);
    assert_int_equal(avk_schema_store_count(store), 2);
    assert_true(fingerprint_of(avk_schema_root(s2)) == fingerprint_of(avk_schema_root(s4)));
    AVKT_OK(avk_schema_store_find_fingerprint(store, fingerprint_of(avk_schema_root(s4)), &found,
                                              &err));
    assert_ptr_equal(found, s2);
    AVKT_OK(avk_schema_store_find_id(store, 2, &found, &err));
    assert_ptr_equal(found, s4);
    /* again: the same ones */
    AVKT_OK(avk_schema_store_add(store, d4, strlen(d4), 2, &found, &err));
    assert_ptr_equal(found, s4);
    AVKT_OK(avk_schema_store_add(store, d2, strlen(d2), -1, &found, &err));
    assert_ptr_equal(found, s2);
    /* id 1 is the scale-2 one */
    AVKT_ASSERT_STATUS(avk_schema_store_add(store, d4, strlen(d4), 1, NULL, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    assert_int_equal(avk_schema_store_count(store), 2);
    /* a message through id 2 reads with scale 4: 12345 is 1.2345 */
    avk_confluent_header(2, m);
    avkt_unhex("04" "3039", m + 5, 3);
    AVKT_OK(avk_message_decode(d, m, 8, a, &out, &err));
    assert_int_equal(avk_type_decimal_scale(out.type), 4);
    assert_text(&out, "{\"$decimal\":\"1.2345\"}");
    avk_confluent_header(1, m);
    AVKT_OK(avk_message_decode(d, m, 8, a, &out, &err));
    assert_text(&out, "{\"$decimal\":\"123.45\"}");
    avk_message_decoder_free(d);
    avk_arena_free(a);
    avk_schema_store_free(store);
}

static void test_store_max_schemas(void **state)
{
    avk_schema_store_options o;
    avk_schema_store *store;
    avk_error err;
    (void)state;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.max_schemas = 2;
    AVKT_OK(avk_schema_store_new(&o, &store, &err));
    AVKT_OK(avk_schema_store_add(store, "\"int\"", 5, 1, NULL, &err));
    AVKT_OK(avk_schema_store_add(store, "\"long\"", 6, 2, NULL, &err));
    AVKT_ASSERT_STATUS(avk_schema_store_add(store, "\"string\"", 8, 3, NULL, &err),
                       AVK_ERR_LIMIT);
    assert_msg(&err, "the schema store holds 2 schemas, its max_schemas");
    AVKT_ASSERT_STATUS(avk_schema_store_add(store, "\"string\"", 8, -1, NULL, &err),
                       AVK_ERR_LIMIT);
    /* a schema held is no new schema; a new id for it is a new id */
    AVKT_OK(avk_schema_store_add(store, "\"int\"", 5, -1, NULL, &err));
    AVKT_OK(avk_schema_store_add(store, "\"int\"", 5, 1, NULL, &err));
    AVKT_ASSERT_STATUS(avk_schema_store_add(store, "\"int\"", 5, 7, NULL, &err), AVK_ERR_LIMIT);
    assert_msg(&err, "the schema store holds 2 schema ids, its max_schemas");
    assert_int_equal(avk_schema_store_count(store), 2);
    avk_schema_store_free(store);
}

static void test_store_load_dir(void **state)
{
    char dir[] = "/tmp/avk_msg_dirXXXXXX", path[256];
    avk_schema_store *store = new_store();
    const avk_schema *s;
    avk_error err;
    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/1.avsc", dir);
    write_text(path, "\"int\"");
    snprintf(path, sizeof path, "%s/7.avsc", dir);
    write_text(path, avkt_q(USER_V1));
    snprintf(path, sizeof path, "%s/notes.txt", dir);
    write_text(path, "not a schema");
    snprintf(path, sizeof path, "%s/x7.avsc", dir);
    write_text(path, "not a schema");
    snprintf(path, sizeof path, "%s/07.avsc", dir); /* leading zero: not an id's name */
    write_text(path, "not a schema");
    snprintf(path, sizeof path, "%s/4294967296.avsc", dir); /* 2^32 */
    write_text(path, "not a schema");
    snprintf(path, sizeof path, "%s/4294967295.avsc", dir);
    write_text(path, "\"long\"");
    AVKT_OK(avk_schema_store_load_dir(store, dir, &err));
    assert_int_equal(avk_schema_store_count(store), 3);
    AVKT_OK(avk_schema_store_find_id(store, 1, &s, &err));
    assert_int_equal(avk_type_kind(avk_schema_root(s)), AVK_INT);
    AVKT_OK(avk_schema_store_find_id(store, 7, &s, &err));
    assert_string_equal(avk_type_fullname(avk_schema_root(s)), "ex.User");
    AVKT_OK(avk_schema_store_find_id(store, UINT32_MAX, &s, &err));
    assert_int_equal(avk_type_kind(avk_schema_root(s)), AVK_LONG);
    AVKT_ASSERT_STATUS(avk_schema_store_find_id(store, 0, &s, &err), AVK_ERR_NOT_FOUND);
    /* loading again adds nothing */
    AVKT_OK(avk_schema_store_load_dir(store, dir, &err));
    assert_int_equal(avk_schema_store_count(store), 3);

    /* a bad schema file, named */
    snprintf(path, sizeof path, "%s/3.avsc", dir);
    write_text(path, "{\"type\":\"record\",\"name\":\"R\"}");
    AVKT_ASSERT_STATUS(avk_schema_store_load_dir(store, dir, &err), AVK_ERR_SCHEMA);
    {
        char want[300];
        snprintf(want, sizeof want, "%s/3.avsc: ", dir);
        if (strncmp(err.message, want, strlen(want)) != 0)
            fail_msg("message \"%s\" does not start with \"%s\"", err.message, want);
    }
    unlink(path);
    /* id 7's file now holds another schema: a conflict, named */
    snprintf(path, sizeof path, "%s/7.avsc", dir);
    write_text(path, "\"string\"");
    AVKT_ASSERT_STATUS(avk_schema_store_load_dir(store, dir, &err), AVK_ERR_INVALID_ARGUMENT);
    assert_msg_has(&err, "/7.avsc: schema id 7 is already bound to another schema");
    /* not a directory */
    AVKT_ASSERT_STATUS(avk_schema_store_load_dir(store, "/nonexistent/avk", &err), AVK_ERR_IO);
    assert_msg_has(&err, "cannot open directory /nonexistent/avk");
    assert_int_equal(err.sys_errno, ENOENT);
    /* clean up */
    {
        static const char *names[] = {"1.avsc",  "7.avsc",          "notes.txt",
                                      "x7.avsc", "07.avsc",         "4294967296.avsc",
                                      "4294967295.avsc"};
        size_t i;
        for (i = 0; i < sizeof names / sizeof names[0]; i++) {
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
            unlink(path);
        }
        rmdir(dir);
    }
    avk_schema_store_free(store);
}

/* One JSON file of schemas: loads into a new store; its status. */
static avk_status load_text(const char *text, avk_schema_store **out, avk_error *err)
{
    char path[] = "/tmp/avk_msg_fileXXXXXX";
    int fd = mkstemp(path);
    avk_status st;
    assert_true(fd >= 0);
    close(fd);
    write_text(path, text);
    *out = new_store();
    st = avk_schema_store_load_file(*out, path, err);
    /* messages name the file: replace it for comparisons */
    if (st != AVK_OK && err && strncmp(err->message, path, strlen(path)) == 0) {
        char rest[AVK_ERROR_MESSAGE_MAX];
        snprintf(rest, sizeof rest, "%s", err->message + strlen(path));
        snprintf(err->message, sizeof err->message, "FILE%.240s", rest);
    }
    unlink(path);
    return st;
}

static void test_store_load_file(void **state)
{
    avk_schema_store *store;
    const avk_schema *s;
    avk_error err;
    (void)state;
    /* ids as keys */
    AVKT_OK(load_text(avkt_q("{'1': 'int', '7': {'type':'fixed','name':'F','size':4},"
                             " '9': ['null','string']}"),
                      &store, &err));
    assert_int_equal(avk_schema_store_count(store), 3);
    AVKT_OK(avk_schema_store_find_id(store, 7, &s, &err));
    assert_int_equal(avk_type_fixed_size(avk_schema_root(s)), 4);
    AVKT_OK(avk_schema_store_find_id(store, 9, &s, &err));
    assert_int_equal(avk_type_kind(avk_schema_root(s)), AVK_UNION);
    avk_schema_store_free(store);
    /* entries, as the Confluent registry's REST API gives them: schema as a string */
    AVKT_OK(load_text("[{\"subject\":\"users-value\",\"version\":1,\"id\":21,"
                      "\"schema\":\"{\\\"type\\\":\\\"record\\\",\\\"name\\\":\\\"U\\\","
                      "\\\"fields\\\":[{\\\"name\\\":\\\"a\\\",\\\"type\\\":\\\"int\\\"}]}\"},"
                      " {\"id\": 22, \"schema\": {\"type\": \"map\", \"values\": \"long\"}},"
                      " {\"schema\": \"\\\"bytes\\\"\"}]",
                      &store, &err));
    assert_int_equal(avk_schema_store_count(store), 3);
    AVKT_OK(avk_schema_store_find_id(store, 21, &s, &err));
    assert_string_equal(avk_type_fullname(avk_schema_root(s)), "U");
    AVKT_OK(avk_schema_store_find_id(store, 22, &s, &err));
    assert_int_equal(avk_type_kind(avk_schema_root(s)), AVK_MAP);
    AVKT_OK(avk_schema_store_find_fingerprint(store, fingerprint_of(avk_schema_root(s)), &s,
                                              &err));
    avk_schema_store_free(store);
    /* bare schemas, one of them a record with a property named "schema" */
    AVKT_OK(load_text(avkt_q("['int', {'type':'record','name':'R','fields':[],'schema':1},"
                             " ['int','null']]"),
                      &store, &err));
    assert_int_equal(avk_schema_store_count(store), 3);
    avk_schema_store_free(store);
    AVKT_OK(load_text("[]", &store, &err));
    assert_int_equal(avk_schema_store_count(store), 0);
    avk_schema_store_free(store);

    /* bad shapes */
    AVKT_ASSERT_STATUS(load_text("42", &store, &err), AVK_ERR_MALFORMED);
    assert_msg(&err, "FILE: line 1, column 1: expected an object of schemas by id, or an array "
                     "of schemas or of {\"id\": ..., \"schema\": ...}");
    avk_schema_store_free(store);
    AVKT_ASSERT_STATUS(load_text("{\"1\": \"int\",\n \"type\": \"record\"}", &store, &err),
                       AVK_ERR_MALFORMED);
    assert_msg(&err, "FILE: line 2, column 10: key \"type\" is not a schema id (a decimal "
                     "number below 2^32); an object of schemas maps ids to schemas");
    assert_int_equal(err.offset, 22);
    assert_int_equal(avk_schema_store_count(store), 1); /* what came before stays */
    avk_schema_store_free(store);
    AVKT_ASSERT_STATUS(load_text("{\"4294967296\": \"int\"}", &store, &err), AVK_ERR_MALFORMED);
    avk_schema_store_free(store);
    AVKT_ASSERT_STATUS(load_text("[{\"id\": \"3\", \"schema\": \"int\"}]", &store, &err),
                       AVK_ERR_MALFORMED);
    assert_msg(&err, "FILE: line 1, column 9: \"id\" is not a schema id (an integer from 0 to "
                     "2^32-1)");
    avk_schema_store_free(store);
    AVKT_ASSERT_STATUS(load_text("[{\"id\": -1, \"schema\": \"\\\"int\\\"\"}]", &store, &err),
                       AVK_ERR_MALFORMED);
    avk_schema_store_free(store);
    AVKT_ASSERT_STATUS(load_text("[{\"id\": 1, \"schema\": 5}]", &store, &err),
                       AVK_ERR_MALFORMED);
    assert_msg(&err, "FILE: line 1, column 22: \"schema\" is neither a schema nor a string "
                     "holding one");
    avk_schema_store_free(store);
    /* JSON syntax */
    AVKT_ASSERT_STATUS(load_text("[\"int\",", &store, &err), AVK_ERR_MALFORMED);
    assert_msg_has(&err, "FILE: line 1, column 8: ");
    avk_schema_store_free(store);
    /* a schema string that is no schema: the schema's status, placed */
    AVKT_ASSERT_STATUS(load_text("[{\"id\": 2, \"schema\": \"{\\\"type\\\": \\\"nope\\\"}\"}]",
                                 &store, &err),
                       AVK_ERR_SCHEMA);
    assert_msg_has(&err, "FILE, item 0 (schema id 2) at line 1, column 22: ");
    avk_schema_store_free(store);
    AVKT_ASSERT_STATUS(load_text("{\"5\": {\"type\": \"array\"}}", &store, &err), AVK_ERR_SCHEMA);
    assert_msg_has(&err, "FILE, schema id 5 at line 1, column 7: ");
    avk_schema_store_free(store);
    /* a missing file */
    store = new_store();
    AVKT_ASSERT_STATUS(avk_schema_store_load_file(store, "/nonexistent/avk.json", &err),
                       AVK_ERR_IO);
    assert_msg_has(&err, "cannot open /nonexistent/avk.json");
    assert_int_equal(err.sys_errno, ENOENT);
    avk_schema_store_free(store);
}

static void test_store_load_size_cap(void **state)
{
    char path[] = "/tmp/avk_msg_capXXXXXX";
    avk_schema_options so;
    avk_schema_store_options o;
    avk_schema_store *store;
    avk_error err;
    int fd;
    (void)state;
    fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    write_text(path, "[\"int\", \"long\", \"string\"]"); /* 25 bytes */
    avk_schema_options_init(&so);
    so.max_size = 20;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.schema = &so;
    AVKT_OK(avk_schema_store_new(&o, &store, &err));
    AVKT_ASSERT_STATUS(avk_schema_store_load_file(store, path, &err), AVK_ERR_LIMIT);
    assert_msg_has(&err, ": 25 bytes, more than the 20 a schema may take");
    avk_schema_store_free(store);
    so.max_size = 25;
    AVKT_OK(avk_schema_store_new(&o, &store, &err));
    AVKT_OK(avk_schema_store_load_file(store, path, &err));
    assert_int_equal(avk_schema_store_count(store), 3);
    avk_schema_store_free(store);
    unlink(path);
}

/* ---- fetch callbacks ------------------------------------------------------------------ */

typedef struct fetch_ctx {
    int calls;
    uint64_t last_key;
    int last_by_id;
} fetch_ctx;

static avk_status fetch_cb(void *ctx, avk_schema_store *store, int by_id, uint64_t key,
                           avk_error *err)
{
    fetch_ctx *c = (fetch_ctx *)ctx;
    const char *v1 = avkt_q(USER_V1);
    c->calls++;
    c->last_key = key;
    c->last_by_id = by_id;
    if (by_id && key == 3)
        return avk_schema_store_add(store, v1, strlen(v1), 3, NULL, err);
    if (by_id && key == 5)
        return avk_error_set(err, AVK_ERR_IO, AVK_OFFSET_UNKNOWN, "registry down");
    if (by_id && key == 6)
        return AVK_ERR_IO; /* err left empty */
    if (by_id && key == 8) /* adds under another id: still not found */
        return avk_schema_store_add(store, "\"int\"", 5, 80, NULL, err);
    if (!by_id && key == 0xd054e14493f41db7ULL) /* "long" */
        return avk_schema_store_add(store, "\"long\"", 6, -1, NULL, err);
    return AVK_ERR_NOT_FOUND;
}

static void test_fetch(void **state)
{
    avk_schema_store_options o;
    avk_schema_store *store;
    fetch_ctx c = {0, 0, 0};
    avk_message_decoder *d1, *d2, *dso;
    avk_schema *v1 = AVKT_PARSE(USER_V1);
    avk_plan *plan = avkt_plan_new(avk_schema_root(v1), 0, NULL, 0);
    avk_arena *a = new_arena();
    avk_writer w;
    avk_value v, out;
    const avk_schema *s;
    const uint8_t *m;
    size_t len;
    avk_error err;
    char why[256];
    (void)state;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.fetch = fetch_cb;
    o.fetch_ctx = &c;
    AVKT_OK(avk_schema_store_new(&o, &store, &err));
    assert_true(avkt_value_from_text(&v, avk_schema_root(v1), "{\"id\":-1,\"nick\":\"\"}", a, why,
                                     sizeof why));
    mem_writer(&w);
    encode_msg(AVK_FRAMING_CONFLUENT, plan, 3, &v, &w);
    m = avk_writer_data(&w, &len);
    d1 = new_decoder(AVK_FRAMING_CONFLUENT, store, NULL, NULL);
    d2 = new_decoder(AVK_FRAMING_CONFLUENT, store, NULL, NULL);
    AVKT_OK(avk_message_decode(d1, m, len, a, &out, &err));
    assert_text(&out, "{\"id\":-1,\"nick\":\"\"}");
    assert_int_equal(c.calls, 1);
    assert_int_equal(c.last_by_id, 1);
    assert_int_equal(c.last_key, 3);
    AVKT_OK(avk_message_decode(d1, m, len, a, &out, &err));
    AVKT_OK(avk_message_decode(d2, m, len, a, &out, &err));
    AVKT_OK(avk_schema_store_find_id(store, 3, &s, &err));
    assert_int_equal(c.calls, 1); /* once per missing key */
    /* the callback does not find it */
    encode_msg(AVK_FRAMING_CONFLUENT, plan, 4, &v, &w);
    m = avk_writer_data(&w, &len);
    AVKT_ASSERT_STATUS(avk_message_decode(d1, m, len, a, &out, &err), AVK_ERR_NOT_FOUND);
    assert_msg(&err, "schema id 4 is not in the schema store (the fetch callback did not find it)");
    assert_int_equal(c.calls, 2);
    /* it fails, with and without a message */
    encode_msg(AVK_FRAMING_CONFLUENT, plan, 5, &v, &w);
    m = avk_writer_data(&w, &len);
    AVKT_ASSERT_STATUS(avk_message_decode(d1, m, len, a, &out, &err), AVK_ERR_IO);
    assert_msg(&err, "fetching schema id 5: registry down");
    AVKT_ASSERT_STATUS(avk_schema_store_find_id(store, 6, &s, &err), AVK_ERR_IO);
    assert_msg(&err, "fetching schema id 6: the fetch callback failed");
    /* it adds something else */
    AVKT_ASSERT_STATUS(avk_schema_store_find_id(store, 8, &s, &err), AVK_ERR_NOT_FOUND);
    assert_msg(&err, "schema id 8 is not in the schema store (the fetch callback added none)");
    /* by fingerprint */
    AVKT_OK(avk_schema_store_find_fingerprint(store, 0xd054e14493f41db7ULL, &s, &err));
    assert_int_equal(avk_type_kind(avk_schema_root(s)), AVK_LONG);
    assert_int_equal(c.last_by_id, 0);
    {
        int before = c.calls;
        AVKT_OK(avk_schema_store_find_fingerprint(store, 0xd054e14493f41db7ULL, &s, &err));
        assert_int_equal(c.calls, before);
    }
    dso = new_decoder(AVK_FRAMING_SINGLE_OBJECT, store, NULL, NULL);
    encode_msg(AVK_FRAMING_SINGLE_OBJECT, plan, -1, &v, &w);
    m = avk_writer_data(&w, &len);
    /* the schema is held (id 3): no call */
    {
        int before = c.calls;
        AVKT_OK(avk_message_decode(dso, m, len, a, &out, &err));
        assert_int_equal(c.calls, before);
    }
    /* an unknown fingerprint */
    {
        uint8_t msg[12];
        avk_single_object_header(0x1122334455667788ULL, msg);
        msg[10] = 0;
        msg[11] = 0;
        AVKT_ASSERT_STATUS(avk_message_decode(dso, msg, sizeof msg, a, &out, &err),
                           AVK_ERR_NOT_FOUND);
        assert_msg(&err, "no schema with fingerprint 1122334455667788 in the schema store (the "
                         "fetch callback did not find it)");
        assert_true(c.last_key == 0x1122334455667788ULL);
    }
    avk_message_decoder_free(d1);
    avk_message_decoder_free(d2);
    avk_message_decoder_free(dso);
    avk_writer_destroy(&w);
    avk_schema_store_free(store);
    avk_plan_free(plan);
    avk_schema_free(v1);
    avk_arena_free(a);
}

/* ---- decode errors -------------------------------------------------------------------- */

static void test_decode_errors(void **state)
{
    avk_schema_store *store = new_store();
    const avk_schema *w;
    avk_plan *plan;
    avk_message_decoder *dso, *dcf, *draw;
    avk_arena *a = new_arena();
    avk_writer mw;
    avk_value v, out;
    avk_error err;
    char why[256];
    uint8_t buf[64];
    const uint8_t *m;
    size_t len;
    const char *v1 = avkt_q(USER_V1);
    (void)state;
    AVKT_OK(avk_schema_store_add(store, v1, strlen(v1), 2, &w, &err));
    plan = avkt_plan_new(avk_schema_root(w), 0, NULL, 0);
    assert_true(avkt_value_from_text(&v, avk_schema_root(w), "{\"id\":1,\"nick\":\"abc\"}", a,
                                     why, sizeof why));
    dso = new_decoder(AVK_FRAMING_SINGLE_OBJECT, store, NULL, NULL);
    dcf = new_decoder(AVK_FRAMING_CONFLUENT, store, NULL, NULL);
    draw = new_decoder(AVK_FRAMING_RAW, NULL, plan, NULL);
    mem_writer(&mw);

    /* single-object: datum 02 06 61 62 63 (5 bytes) after 10 */
    encode_msg(AVK_FRAMING_SINGLE_OBJECT, plan, -1, &v, &mw);
    m = avk_writer_data(&mw, &len);
    assert_int_equal(len, 15);
    memcpy(buf, m, len);
    buf[15] = 0;
    buf[16] = 0;
    AVKT_ASSERT_STATUS(avk_message_decode(dso, buf, 17, a, &out, &err), AVK_ERR_MALFORMED);
    assert_msg(&err, "2 bytes after the datum (ends at offset 15 of 17)");
    assert_int_equal(err.offset, 15);
    /* cut in the string: the offset is the message's */
    AVKT_ASSERT_STATUS(avk_message_decode(dso, buf, 14, a, &out, &err), AVK_ERR_TRUNCATED);
    assert_int_equal(err.offset, 11); /* the string's length: datum offset 1 */
    /* a bad length in the datum */
    buf[11] = 0x05; /* -3 */
    AVKT_ASSERT_STATUS(avk_message_decode(dso, buf, 15, a, &out, &err), AVK_ERR_MALFORMED);
    assert_int_equal(err.offset, 11);
    /* header cut */
    AVKT_ASSERT_STATUS(avk_message_decode(dso, buf, 9, a, &out, &err), AVK_ERR_TRUNCATED);
    assert_int_equal(err.offset, 9);
    AVKT_ASSERT_STATUS(avk_message_decode(dso, buf, 0, a, &out, &err), AVK_ERR_TRUNCATED);
    buf[1] = 0x02;
    AVKT_ASSERT_STATUS(avk_message_decode(dso, buf, 15, a, &out, &err), AVK_ERR_MALFORMED);
    assert_msg(&err, "not a single-object message: starts with 0xC3 0x02, not C3 01");

    /* confluent */
    encode_msg(AVK_FRAMING_CONFLUENT, plan, 2, &v, &mw);
    m = avk_writer_data(&mw, &len);
    assert_int_equal(len, 10);
    memcpy(buf, m, len);
    buf[10] = 0x7f;
    AVKT_ASSERT_STATUS(avk_message_decode(dcf, buf, 11, a, &out, &err), AVK_ERR_MALFORMED);
    assert_msg(&err, "1 bytes after the datum (ends at offset 10 of 11)");
    AVKT_ASSERT_STATUS(avk_message_decode(dcf, buf, 9, a, &out, &err), AVK_ERR_TRUNCATED);
    assert_int_equal(err.offset, 6);
    AVKT_ASSERT_STATUS(avk_message_decode(dcf, buf, 4, a, &out, &err), AVK_ERR_TRUNCATED);
    buf[4] = 9; /* id 9 */
    AVKT_ASSERT_STATUS(avk_message_decode(dcf, buf, 10, a, &out, &err), AVK_ERR_NOT_FOUND);
    assert_msg(&err, "schema id 9 is not in the schema store");
    buf[0] = 0xC3;
    AVKT_ASSERT_STATUS(avk_message_decode(dcf, buf, 10, a, &out, &err), AVK_ERR_MALFORMED);
    assert_msg(&err, "not a Confluent message: starts with 0xC3, not the magic byte 0");

    /* raw */
    encode_msg(AVK_FRAMING_RAW, plan, -1, &v, &mw);
    m = avk_writer_data(&mw, &len);
    assert_int_equal(len, 5);
    memcpy(buf, m, len);
    AVKT_OK(avk_message_decode(draw, buf, 5, a, &out, &err));
    assert_text(&out, "{\"id\":1,\"nick\":\"abc\"}");
    assert_ptr_equal(avk_message_decoder_plan(draw), plan);
    assert_null(avk_message_decoder_writer(draw));
    AVKT_ASSERT_STATUS(avk_message_decode(draw, buf, 6, a, &out, &err), AVK_ERR_MALFORMED);
    assert_msg(&err, "1 bytes after the datum (ends at offset 5 of 6)");
    AVKT_ASSERT_STATUS(avk_message_decode(draw, buf, 3, a, &out, &err), AVK_ERR_TRUNCATED);
    assert_int_equal(err.offset, 1);
    AVKT_ASSERT_STATUS(avk_message_decode(draw, NULL, 0, a, &out, &err), AVK_ERR_TRUNCATED);

    /* bad arguments */
    AVKT_ASSERT_STATUS(avk_message_decode(draw, buf, 5, NULL, &out, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    {
        avk_message_decoder_options o;
        avk_message_decoder *d = (avk_message_decoder *)1;
        memset(&o, 0, sizeof o);
        o.struct_size = sizeof o;
        o.framing = AVK_FRAMING_RAW;
        AVKT_ASSERT_STATUS(avk_message_decoder_new(&o, &d, &err), AVK_ERR_INVALID_ARGUMENT);
        assert_msg(&err, "avk_message_decoder_new: raw framing needs a plan");
        assert_null(d);
        o.framing = AVK_FRAMING_CONFLUENT;
        AVKT_ASSERT_STATUS(avk_message_decoder_new(&o, &d, &err), AVK_ERR_INVALID_ARGUMENT);
        assert_msg(&err, "avk_message_decoder_new: confluent framing needs a schema store");
        o.framing = (avk_framing)7;
        o.store = store;
        AVKT_ASSERT_STATUS(avk_message_decoder_new(&o, &d, &err), AVK_ERR_INVALID_ARGUMENT);
        o.framing = AVK_FRAMING_SINGLE_OBJECT;
        o.struct_size = 8;
        AVKT_ASSERT_STATUS(avk_message_decoder_new(&o, &d, &err), AVK_ERR_INVALID_ARGUMENT);
    }
    avk_message_decoder_free(NULL);
    assert_null(avk_message_decoder_writer(NULL));
    avk_message_decoder_free(dso);
    avk_message_decoder_free(dcf);
    avk_message_decoder_free(draw);
    avk_writer_destroy(&mw);
    avk_plan_free(plan);
    avk_arena_free(a);
    avk_schema_store_free(store);
}

/* The decoder's cache: more writer schemas than it remembers, in turns. */
static void test_decoder_cache(void **state)
{
    avk_schema_store *store = new_store();
    avk_arena *a = new_arena();
    avk_message_decoder *d = new_decoder(AVK_FRAMING_CONFLUENT, store, NULL, NULL);
    static const char *types[] = {"\"int\"", "\"long\"", "\"string\"", "\"boolean\"",
                                  "\"double\"", "\"float\""};
    static const char *datums[] = {"01", "03", "0278", "01", "000000000000f03f", "0000c03f"};
    static const char *texts[] = {"-1", "-2", "\"x\"", "true", "1", "1.5"};
    const avk_schema *s[6];
    int round, i;
    avk_error err;
    (void)state;
    for (i = 0; i < 6; i++)
        AVKT_OK(avk_schema_store_add(store, types[i], strlen(types[i]), i + 1, &s[i], &err));
    for (round = 0; round < 3; round++) {
        for (i = 0; i < 6; i++) {
            int k = (i * (round + 1)) % 6;
            uint8_t m[32];
            avk_value out;
            size_t n = avkt_unhex(datums[k], m + 5, sizeof m - 5);
            char *t;
            avk_confluent_header((uint32_t)k + 1, m);
            AVKT_OK(avk_message_decode(d, m, 5 + n, a, &out, &err));
            t = avkt_value_to_text(&out);
            assert_string_equal(t, texts[k]);
            free(t);
            assert_ptr_equal(avk_message_decoder_writer(d), s[k]);
        }
    }
    avk_message_decoder_free(d);
    avk_arena_free(a);
    avk_schema_store_free(store);
}

/* ---- encoder ------------------------------------------------------------------------- */

static void test_encoder(void **state)
{
    avk_schema *v1 = AVKT_PARSE(USER_V1), *v2 = AVKT_PARSE(USER_V2);
    avk_plan *plan = avkt_plan_new(avk_schema_root(v1), 0, NULL, 0);
    avk_plan *rplan;
    avk_message_encoder enc;
    avk_arena *a = new_arena();
    avk_writer w;
    avk_value v, bad;
    avk_error err;
    char why[256];
    uint8_t want[32];
    const uint8_t *m;
    size_t len, wl;
    (void)state;
    AVKT_OK(avk_plan_new_resolving(avk_schema_root(v1), avk_schema_root(v2), NULL, &rplan, &err));
    AVKT_ASSERT_STATUS(avk_message_encoder_init(&enc, AVK_FRAMING_RAW, rplan, -1, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_message_encoder_init(&enc, AVK_FRAMING_CONFLUENT, plan, -1, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    assert_msg(&err, "avk_message_encoder_init: Confluent schema id -1 is not from 0 to "
                     "4294967295");
    AVKT_ASSERT_STATUS(avk_message_encoder_init(&enc, AVK_FRAMING_CONFLUENT, plan,
                                                (int64_t)UINT32_MAX + 1, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_message_encoder_init(&enc, (avk_framing)3, plan, 1, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_message_encoder_init(&enc, AVK_FRAMING_RAW, NULL, 1, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    AVKT_OK(avk_message_encoder_init(&enc, AVK_FRAMING_RAW, plan, 12, &err));
    assert_int_equal(enc.header_size, 0);
    AVKT_OK(avk_message_encoder_init(&enc, AVK_FRAMING_CONFLUENT, plan, 258, &err));
    assert_int_equal(enc.header_size, 5);
    assert_int_equal(enc.framing, AVK_FRAMING_CONFLUENT);
    assert_ptr_equal(enc.plan, plan);
    avkt_unhex("0000000102", want, sizeof want);
    avkt_assert_bytes(enc.header, 5, want, 5);

    assert_true(avkt_value_from_text(&v, avk_schema_root(v1), "{\"id\":-3,\"nick\":\"z\"}", a,
                                     why, sizeof why));
    mem_writer(&w);
    AVKT_OK(avk_writer_write_raw(&w, "ab", 2, NULL));
    AVKT_OK(avk_message_encode(&enc, &v, &w, &err));
    m = avk_writer_data(&w, &len);
    wl = avkt_unhex("616200000001020502" "7a", want, sizeof want);
    avkt_assert_bytes(m, len, want, wl);
    /* a value of another type: refused, the writer put back */
    assert_true(avkt_value_from_text(&bad, avk_schema_root(v2),
                                     "{\"id\":1,\"name\":\"q\",\"email\":\"e\"}", a, why,
                                     sizeof why));
    AVKT_ASSERT_STATUS(avk_message_encode(&enc, &bad, &w, &err), AVK_ERR_INVALID_ARGUMENT);
    m = avk_writer_data(&w, &len);
    avkt_assert_bytes(m, len, want, wl);
    AVKT_ASSERT_STATUS(avk_message_encode(NULL, &v, &w, &err), AVK_ERR_INVALID_ARGUMENT);
    /* a memory writer at its limit: LIMIT, nothing left of the message */
    {
        avk_writer_options wo;
        avk_writer small;
        avk_writer_options_init(&wo);
        wo.buffer_size = 8;
        wo.max_size = 8;
        AVKT_OK(avk_writer_init_memory(&small, &wo, NULL));
        AVKT_OK(avk_writer_write_raw(&small, "abc", 3, NULL));
        AVKT_ASSERT_STATUS(avk_message_encode(&enc, &v, &small, &err), AVK_ERR_LIMIT);
        m = avk_writer_data(&small, &len);
        assert_int_equal(len, 3);
        avk_writer_destroy(&small);
    }
    avk_writer_destroy(&w);
    avk_plan_free(rplan);
    avk_plan_free(plan);
    avk_arena_free(a);
    avk_schema_free(v1);
    avk_schema_free(v2);
}

/* ---- allocation failures ---------------------------------------------------------------- */

/* Everything a store does, with the Nth allocation failing: every failure
 * is NO_MEMORY, nothing leaks, and the run with no failure gives the
 * expected values. */
static avk_status store_workout(const avk_allocator *al, const char *dir, const char *file,
                                const uint8_t *msg, size_t msg_len, int *decoded)
{
    avk_schema_store_options o;
    avk_message_decoder_options dopts;
    avk_schema_store *store = NULL;
    avk_message_decoder *d = NULL;
    avk_arena_options ao;
    avk_arena *a = NULL;
    avk_schema *v2 = NULL;
    avk_value out;
    avk_status st;
    const char *v1 = avkt_q(USER_V1);
    *decoded = 0;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.allocator = al;
    st = avk_schema_store_new(&o, &store, NULL);
    if (st == AVK_OK)
        st = avk_schema_store_add(store, v1, strlen(v1), 2, NULL, NULL);
    if (st == AVK_OK)
        st = avk_schema_store_add(store, v1, strlen(v1), 3, NULL, NULL);
    if (st == AVK_OK)
        st = avk_schema_store_load_dir(store, dir, NULL);
    if (st == AVK_OK)
        st = avk_schema_store_load_file(store, file, NULL);
    if (st == AVK_OK) {
        /* the reader schema from the same allocator */
        avk_schema_options so;
        avk_schema_options_init(&so);
        so.allocator = al;
        st = avk_schema_parse(avkt_q(USER_V2), strlen(avkt_q(USER_V2)), &so, &v2, NULL);
    }
    if (st == AVK_OK) {
        memset(&dopts, 0, sizeof dopts);
        dopts.struct_size = sizeof dopts;
        dopts.framing = AVK_FRAMING_CONFLUENT;
        dopts.store = store;
        dopts.reader = avk_schema_root(v2);
        dopts.allocator = al;
        st = avk_message_decoder_new(&dopts, &d, NULL);
    }
    if (st == AVK_OK) {
        avk_arena_options_init(&ao);
        ao.allocator = al;
        st = avk_arena_new(&ao, &a, NULL);
    }
    if (st == AVK_OK)
        st = avk_message_decode(d, msg, msg_len, a, &out, NULL);
    if (st == AVK_OK) {
        char *t = avkt_value_to_text(&out);
        *decoded = strcmp(t, "{\"id\":7,\"name\":\"ann\",\"email\":\"none\"}") == 0;
        free(t);
        if (avk_schema_store_count(store) != 4)
            *decoded = 0;
    }
    avk_arena_free(a);
    avk_message_decoder_free(d);
    avk_schema_store_free(store);
    avk_schema_free(v2);
    return st;
}

static void test_alloc_failures(void **state)
{
    char dir[] = "/tmp/avk_msg_faXXXXXX", p1[256], p2[256], file[256];
    uint8_t msg[16];
    size_t msg_len;
    long n;
    int done = 0, decoded;
    avk_status st;
    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(p1, sizeof p1, "%s/2.avsc", dir);
    write_text(p1, avkt_q(USER_V1));
    snprintf(p2, sizeof p2, "%s/10.avsc", dir);
    write_text(p2, "{\"type\":\"array\",\"items\":\"int\"}");
    snprintf(file, sizeof file, "%s/schemas.json", dir);
    write_text(file, "[{\"id\":11,\"schema\":\"\\\"string\\\"\"},{\"id\":12,\"schema\":"
                     "{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\"]}}]");
    /* confluent id 3, datum {id: 7, nick: "ann"} */
    msg_len = avkt_unhex("00000000030e06616e6e", msg, sizeof msg);
    for (n = 1; !done && n < 100000; n++) {
        avkt_failalloc fa;
        avkt_failalloc_init(&fa, n);
        st = store_workout(&fa.allocator, dir, file, msg, msg_len, &decoded);
        if (fa.live_blocks != 0 || fa.size_mismatches != 0 || fa.bad_frees != 0)
            fail_msg("allocation %ld failing: %ld blocks left, %ld size mismatches, %ld bad "
                     "frees",
                     n, fa.live_blocks, fa.size_mismatches, fa.bad_frees);
        if (fa.failures == 0) {
            AVKT_OK(st);
            assert_true(decoded);
            done = 1;
        } else if (st != AVK_ERR_NO_MEMORY) {
            fail_msg("allocation %ld failing: %s, expected NO_MEMORY", n, avk_status_name(st));
        }
    }
    assert_true(done);
    print_message("  %ld allocations failed in turn\n", n - 1);
    unlink(p1);
    unlink(p2);
    unlink(file);
    rmdir(dir);
}

/* ---- regression tests ------------------------------------------------------------------ */

/* load_dir skips entries that are not regular files: a FIFO (no writer: opening it to read
 * would block) and a directory, both with an id's name. */
static void test_store_load_dir_skips_non_regular(void **state)
{
    char dir[] = "/tmp/avk_msg_nregXXXXXX", path[256];
    avk_schema_store *store = new_store();
    const avk_schema *s;
    avk_error err;
    time_t t0;
    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/1.avsc", dir);
    write_text(path, "\"int\"");
    snprintf(path, sizeof path, "%s/5.avsc", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    snprintf(path, sizeof path, "%s/2.avsc", dir);
    assert_int_equal(mkdir(path, 0700), 0);
    t0 = time(NULL);
    AVKT_OK(avk_schema_store_load_dir(store, dir, &err));
    assert_true(time(NULL) - t0 < 5);
    assert_int_equal(avk_schema_store_count(store), 1);
    AVKT_OK(avk_schema_store_find_id(store, 1, &s, &err));
    assert_int_equal(avk_type_kind(avk_schema_root(s)), AVK_INT);
    AVKT_ASSERT_STATUS(avk_schema_store_find_id(store, 5, &s, &err), AVK_ERR_NOT_FOUND);
    AVKT_ASSERT_STATUS(avk_schema_store_find_id(store, 2, &s, &err), AVK_ERR_NOT_FOUND);
    snprintf(path, sizeof path, "%s/1.avsc", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/5.avsc", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/2.avsc", dir);
    rmdir(path);
    assert_int_equal(rmdir(dir), 0);
    avk_schema_store_free(store);
}

/* load_file: a string starting with {, [ or " holds a schema's JSON; any other string is a
 * type name. */
static void test_store_load_file_string_rule(void **state)
{
    avk_schema_store *store;
    const avk_schema *s;
    avk_error err;
    (void)state;
    AVKT_OK(load_text("{\"2\": \"\\\"int\\\"\", "
                      "\"3\": \"{\\\"type\\\":\\\"fixed\\\",\\\"name\\\":\\\"F\\\",\\\"size\\\":2}\", "
                      "\"4\": \"long\"}",
                      &store, &err));
    assert_int_equal(avk_schema_store_count(store), 3);
    AVKT_OK(avk_schema_store_find_id(store, 2, &s, &err));
    assert_int_equal(avk_type_kind(avk_schema_root(s)), AVK_INT);
    AVKT_OK(avk_schema_store_find_id(store, 3, &s, &err));
    assert_int_equal(avk_type_kind(avk_schema_root(s)), AVK_FIXED);
    assert_int_equal(avk_type_fixed_size(avk_schema_root(s)), 2);
    AVKT_OK(avk_schema_store_find_id(store, 4, &s, &err));
    assert_int_equal(avk_type_kind(avk_schema_root(s)), AVK_LONG);
    avk_schema_store_free(store);
    AVKT_OK(load_text("[{\"id\": 9, \"schema\": \"string\"}]", &store, &err));
    assert_int_equal(avk_schema_store_count(store), 1);
    AVKT_OK(avk_schema_store_find_id(store, 9, &s, &err));
    assert_int_equal(avk_type_kind(avk_schema_root(s)), AVK_STRING);
    avk_schema_store_free(store);
}

/* load_file: a schema's error is placed at its node's offset in the file. */
static void test_store_load_file_error_offset(void **state)
{
    static const char text[] = "{\"1\": \"int\",\n \"5\": {\"type\": \"nope\"}}";
    avk_schema_store *store;
    avk_error err;
    size_t at = (size_t)(strstr(text, "{\"type\"") - text);
    (void)state;
    assert_int_equal(at, 19);
    AVKT_ASSERT_STATUS(load_text(text, &store, &err), AVK_ERR_SCHEMA);
    assert_msg_has(&err, "FILE, schema id 5 at line 2, column 7: ");
    assert_int_equal(err.offset, at);
    avk_schema_store_free(store);
    /* a bare type name that names no type */
    AVKT_ASSERT_STATUS(load_text("[\"int\", \"nope\"]", &store, &err), AVK_ERR_SCHEMA);
    assert_int_equal(err.offset, 8);
    avk_schema_store_free(store);
}

static avk_status fetch_bad_json(void *ctx, avk_schema_store *store, int by_id, uint64_t key,
                                 avk_error *err)
{
    (void)ctx;
    (void)by_id;
    (void)key;
    return avk_schema_store_add(store, "{\"type\": \"nope\"}", 16, (int64_t)key, NULL, err);
}

/* A fetch callback's schema error has no offset in the message. */
static void test_fetch_schema_error_offset(void **state)
{
    avk_schema_store_options o;
    avk_schema_store *store;
    avk_message_decoder *d;
    avk_arena *a = new_arena();
    avk_value out;
    avk_error err;
    static const uint8_t msg[] = {0, 0, 0, 0, 3, 2};
    (void)state;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.fetch = fetch_bad_json;
    AVKT_OK(avk_schema_store_new(&o, &store, &err));
    d = new_decoder(AVK_FRAMING_CONFLUENT, store, NULL, NULL);
    AVKT_ASSERT_STATUS(avk_message_decode(d, msg, sizeof msg, a, &out, &err), AVK_ERR_SCHEMA);
    assert_true(err.offset == AVK_OFFSET_UNKNOWN);
    avk_message_decoder_free(d);
    avk_schema_store_free(store);
    avk_arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(avkt_test_kernel_choice),
        cmocka_unit_test(test_framing_names),
        cmocka_unit_test(test_single_object_header),
        cmocka_unit_test(test_confluent_header),
        cmocka_unit_test(test_java_single_object),
        cmocka_unit_test(test_fingerprint_table),
        cmocka_unit_test(test_spec_fingerprints),
        cmocka_unit_test(test_interop_files_framed),
        cmocka_unit_test(test_interop_datums_framed),
        cmocka_unit_test(test_resolution),
        cmocka_unit_test(test_store_add_find),
        cmocka_unit_test(test_store_id_conflict_message),
        cmocka_unit_test(test_store_same_form_other_attributes),
        cmocka_unit_test(test_store_max_schemas),
        cmocka_unit_test(test_store_load_dir),
        cmocka_unit_test(test_store_load_file),
        cmocka_unit_test(test_store_load_size_cap),
        cmocka_unit_test(test_fetch),
        cmocka_unit_test(test_store_load_dir_skips_non_regular),
        cmocka_unit_test(test_store_load_file_string_rule),
        cmocka_unit_test(test_store_load_file_error_offset),
        cmocka_unit_test(test_fetch_schema_error_offset),
        cmocka_unit_test(test_decode_errors),
        cmocka_unit_test(test_decoder_cache),
        cmocka_unit_test(test_encoder),
        cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
