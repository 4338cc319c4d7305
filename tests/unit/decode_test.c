/* Unit tests for plan-driven decode, encode and skip: interop tables, round trips of every type, multi-block collections, views, every bad-input class, limits, allocation failures. */
#define _DEFAULT_SOURCE 1
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "avkt.h"
#include "failalloc.h"
#include "guard.h"
#include "io.h"
#include "value_json.h"

#ifndef AVK_INTEROP_DIR
#define AVK_INTEROP_DIR ""
#endif

/* ---- schemas, plans, arenas ------------------------------------------------------------ */

static avk_plan *plan_of(const avk_type *t)
{
    return avkt_plan_new(t, 0, NULL, 0);
}

static avk_arena *arena_new(void)
{
    avk_arena *a = NULL;
    AVKT_OK(avk_arena_new(NULL, &a, NULL));
    assert_non_null(a);
    return a;
}

/* ---- byte strings ---------------------------------------------------------------------- */

typedef struct bb {
    uint8_t *p;
    size_t len, cap;
} bb;

static void bb_put(bb *b, const void *s, size_t n)
{
    /* Room for n bytes and a NUL, tested without the sum b->len + n + 1:
     * gcc -O3 followed its wrap to a path where n is SIZE_MAX and warned
     * about the memcpy (-Wstringop-overflow). */
    if (n >= b->cap - b->len) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap - b->len <= n)
            cap *= 2;
        b->p = (uint8_t *)realloc(b->p, cap);
        assert_non_null(b->p);
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->len, s, n);
    b->len += n;
}

static void bb_byte(bb *b, int c)
{
    uint8_t x = (uint8_t)c;
    bb_put(b, &x, 1);
}

static void bb_long(bb *b, int64_t v)
{
    uint8_t tmp[10];
    bb_put(b, tmp, avk_varint_encode_long(tmp, v));
}

/* An Avro string or bytes: length, then the bytes. */
static void bb_str(bb *b, const char *s)
{
    bb_long(b, (int64_t)strlen(s));
    bb_put(b, s, strlen(s));
}

static void bb_hex(bb *b, const char *hex)
{
    uint8_t tmp[4096];
    bb_put(b, tmp, avkt_unhex(hex, tmp, sizeof tmp));
}

/* A block with its byte size: count (negated), size, items. */
static void bb_sized_block(bb *b, int64_t count, const bb *items)
{
    bb_long(b, -count);
    bb_long(b, (int64_t)items->len);
    bb_put(b, items->p, items->len);
}

static void bb_free(bb *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

static char *hex_of(const uint8_t *p, size_t n)
{
    char *s = (char *)malloc(n * 2 + 1);
    size_t i;
    assert_non_null(s);
    for (i = 0; i < n; i++)
        snprintf(s + 2 * i, 3, "%02x", p[i]);
    s[2 * n] = '\0';
    return s;
}

/* ---- running the decoder, skipper and encoder ------------------------------------------- */

/* How the input is read: a memory reader over a guard-page copy (a read
 * past the end faults), a stream reader (64-byte buffer) fed one byte per
 * refill, or a stream reader with its default buffer fed whole. */
enum { HOW_MEMORY, HOW_STREAM_1, HOW_STREAM_BIG, HOW_COUNT };
static const char *const how_names[HOW_COUNT] = {"memory", "stream(1-byte refills)", "stream"};

typedef struct input {
    avk_reader r;
    avkt_guard g;
    avkt_source src;
    int how;
} input;

static void input_open(input *in, const uint8_t *d, size_t n, int how)
{
    avk_reader_options o;
    avk_error err;
    memset(in, 0, sizeof *in);
    in->how = how;
    if (how == HOW_MEMORY) {
        const uint8_t *p = avkt_guard_copy(&in->g, d, n);
        assert_non_null(p);
        avk_reader_init_memory(&in->r, p, n);
        return;
    }
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.buffer_size = how == HOW_STREAM_1 ? 64 : 0;
    avkt_source_init(&in->src, d, n, how == HOW_STREAM_1 ? 1 : 0);
    AVKT_OK(avk_reader_init_source(&in->r, avkt_source_read, &in->src, &o, &err));
}

/* The guard copy stays mapped until close: views point into it. */
static void input_close(input *in)
{
    avk_reader_destroy(&in->r);
    avkt_guard_free(&in->g);
}

static uint8_t *encode_at(const avk_plan *p, const avk_value *v, size_t *len, const char *what)
{
    avk_writer w;
    avk_error err;
    const uint8_t *data;
    uint8_t *out;
    avk_status st;
    AVKT_OK(avk_writer_init_memory(&w, NULL, &err));
    memset(&err, 0, sizeof err);
    st = avk_plan_encode(p, v, &w, &err);
    if (st != AVK_OK)
        fail_msg("%s: avk_plan_encode returned %s: %s (path %s)", what, avk_status_name(st),
                 err.message, err.path);
    data = avk_writer_data(&w, len);
    out = (uint8_t *)malloc(*len + 1);
    assert_non_null(out);
    if (*len)
        memcpy(out, data, *len);
    avk_writer_destroy(&w);
    return out;
}

/* Both equality tests: the library's and ours (the JSON renderings). */
static void assert_same_value(const avk_value *got, const avk_value *want, const char *what)
{
    char *gt = avkt_value_to_text(got), *wt = avkt_value_to_text(want);
    assert_non_null(gt);
    assert_non_null(wt);
    if (strcmp(gt, wt) != 0)
        fail_msg("%s: decoded\n  %.1500s\nexpected\n  %.1500s", what, gt, wt);
    if (!avk_value_equal(got, want))
        fail_msg("%s: avk_value_equal says the values differ, yet both render as\n  %.1500s", what,
                 gt);
    free(gt);
    free(wt);
}

/* data[0..n) must decode to want and be skipped whole, through every
 * reader, with views and with copies. */
static void check_decodes_to(const avk_plan *plan, const avk_plan *copy_plan, const uint8_t *data,
                             size_t n, const avk_value *want, const char *what)
{
    int how, pass;
    for (pass = 0; pass < 2; pass++) {
        const avk_plan *p = pass ? copy_plan : plan;
        if (!p)
            continue;
        for (how = 0; how < HOW_COUNT; how++) {
            input in;
            avk_arena *a = arena_new();
            avk_value got;
            avk_error err;
            avk_status st;
            char label[512];
            snprintf(label, sizeof label, "%s [%s%s]", what, how_names[how],
                     pass ? ", copies" : "");
            input_open(&in, data, n, how);
            memset(&err, 0, sizeof err);
            st = avk_plan_decode(p, &in.r, a, &got, &err);
            if (st != AVK_OK)
                fail_msg("%s: decode returned %s: %s (offset %llu, path %s)", label,
                         avk_status_name(st), err.message, (unsigned long long)err.offset,
                         err.path);
            if (avk_reader_offset(&in.r) != n)
                fail_msg("%s: decode consumed %llu of %zu bytes", label,
                         (unsigned long long)avk_reader_offset(&in.r), n);
            assert_same_value(&got, want, label);
            input_close(&in);
            avk_arena_free(a);

            input_open(&in, data, n, how);
            st = avk_plan_skip(p, &in.r, &err);
            if (st != AVK_OK)
                fail_msg("%s: skip returned %s: %s", label, avk_status_name(st), err.message);
            if (avk_reader_offset(&in.r) != n)
                fail_msg("%s: skip consumed %llu of %zu bytes", label,
                         (unsigned long long)avk_reader_offset(&in.r), n);
            input_close(&in);
        }
    }
}

/* A value of t given as JSON text (' for " allowed, as in schemas), in
 * arena. */
static void value_of(avk_value *v, const avk_type *t, const char *json, avk_arena *a)
{
    char why[512], *text = (char *)malloc(strlen(json) + 1);
    size_t i;
    assert_non_null(text);
    for (i = 0; i <= strlen(json); i++)
        text[i] = json[i] == '\'' ? '"' : json[i];
    if (!avkt_value_from_text(v, t, text, a, why, sizeof why))
        fail_msg("test value %s: %s", json, why);
    free(text);
}

/* The round trip of one value given as JSON: it encodes to want_hex
 * exactly (when not NULL), decodes back equal through every reader, with
 * views and copies, is skipped whole, and also survives encoding in blocks
 * of 1 and 2 items with byte sizes. */
static void roundtrip_at(const char *schema_sq, const char *json, const char *want_hex,
                         const char *file, int line)
{
    avk_schema *s = avkt_parse_at(avkt_q(schema_sq), strlen(avkt_q(schema_sq)), file, line);
    const avk_type *t = avk_schema_root(s);
    avk_plan *plan = plan_of(t), *copy = avkt_plan_new(t, AVK_PLAN_COPY_STRINGS, NULL, 0);
    avk_arena *a = arena_new();
    avk_value v;
    uint8_t *enc;
    size_t n, bi;
    char what[1024];
    snprintf(what, sizeof what, "%s:%d: %.300s as %.300s", file, line, json, schema_sq);
    value_of(&v, t, json, a);
    enc = encode_at(plan, &v, &n, what);
    if (want_hex) {
        char *got = hex_of(enc, n);
        if (strcmp(got, want_hex) != 0)
            fail_msg("%s: encoded as\n  %s\nexpected\n  %s", what, got, want_hex);
        free(got);
    }
    check_decodes_to(plan, copy, enc, n, &v, what);
    free(enc);
    for (bi = 1; bi <= 2; bi++) {
        avk_plan *bp = avkt_plan_new(t, AVK_PLAN_BLOCK_SIZES, NULL, bi);
        char w2[1100];
        snprintf(w2, sizeof w2, "%s [blocks of %zu with sizes]", what, bi);
        enc = encode_at(bp, &v, &n, w2);
        check_decodes_to(bp, NULL, enc, n, &v, w2);
        free(enc);
        avk_plan_free(bp);
    }
    avk_arena_free(a);
    avk_plan_free(plan);
    avk_plan_free(copy);
    avk_schema_free(s);
}

#define ROUNDTRIP(schema_sq, json, hex) roundtrip_at((schema_sq), (json), (hex), __FILE__, __LINE__)

/* Whether avk_plan_skip is held to the decoder's error, and how streams
 * are checked. */
enum {
    SKIP_SAME = 0,    /* skip fails alike: status, offset, path */
    SKIP_OK = 1,      /* skip succeeds over the whole input (what it does not check) */
    SKIP_NONE = 2,    /* skip not checked */
    SKIP_MASK = 3,
    /* A stream cannot know what remains: a length or count beyond the
     * input shows only when the input ends, somewhere inside. Streams are
     * then held to the status alone. */
    STREAM_LOOSE = 0x10
};

/* data[0..n) must fail to decode with status at offset, with path, through
 * the memory reader and the 1-byte stream; flags say what skip must do. */
static void expect_error_at(const avk_plan *p, const uint8_t *data, size_t n, avk_status status,
                            uint64_t offset, const char *path, int flags, const char *file,
                            int line)
{
    int how, op, skip = flags & SKIP_MASK;
    char *hex = hex_of(data, n);
    for (how = 0; how < HOW_STREAM_BIG; how++) {
        int loose = how != HOW_MEMORY && (flags & STREAM_LOOSE);
        for (op = 0; op < 2; op++) {
            input in;
            avk_arena *a = arena_new();
            avk_value got;
            avk_error err;
            avk_status st;
            const char *what = op ? "skip" : "decode";
            if (op && skip == SKIP_NONE) {
                avk_arena_free(a);
                continue;
            }
            input_open(&in, data, n, how);
            memset(&err, 0x5a, sizeof err);
            st = op ? avk_plan_skip(p, &in.r, &err) : avk_plan_decode(p, &in.r, a, &got, &err);
            if (op && skip == SKIP_OK) {
                if (st != AVK_OK || avk_reader_offset(&in.r) != n)
                    fail_msg("%s:%d [%s]: skip of %.200s returned %s after %llu bytes, expected "
                             "OK after %zu (message: %s)",
                             file, line, how_names[how], hex, avk_status_name(st),
                             (unsigned long long)avk_reader_offset(&in.r), n,
                             st == AVK_OK ? "-" : err.message);
            } else {
                if (st != status || err.status != status)
                    fail_msg("%s:%d [%s]: %s of %.200s returned %s, expected %s (message: %s)",
                             file, line, how_names[how], what, hex, avk_status_name(st),
                             avk_status_name(status), st == AVK_OK ? "-" : err.message);
                if (loose ? err.offset > n : err.offset != offset)
                    fail_msg("%s:%d [%s]: %s of %.200s: err.offset %llu, expected %llu (message: "
                             "%s)",
                             file, line, how_names[how], what, hex,
                             (unsigned long long)err.offset, (unsigned long long)offset,
                             err.message);
                if (!loose && path && strcmp(err.path, path) != 0)
                    fail_msg("%s:%d [%s]: %s of %.200s: err.path \"%s\", expected \"%s\" "
                             "(message: %s)",
                             file, line, how_names[how], what, hex, err.path, path, err.message);
                /* The message names the path by field names. */
                avkt_check_message_path(avk_plan_type(p), &err);
            }
            input_close(&in);
            avk_arena_free(a);
        }
    }
    free(hex);
}

#define EXPECT_ERROR(p, data, n, status, offset, path, skip)                                    \
    expect_error_at((p), (data), (n), (status), (offset), (path), (skip), __FILE__, __LINE__)

/* The same for an input given in hex. */
static void expect_error_hex_at(const avk_plan *p, const char *hex, avk_status status,
                                uint64_t offset, const char *path, int skip, const char *file,
                                int line)
{
    bb b = {0};
    bb_hex(&b, hex);
    expect_error_at(p, b.p, b.len, status, offset, path, skip, file, line);
    bb_free(&b);
}

#define EXPECT_ERROR_HEX(p, hex, status, offset, path, skip)                                    \
    expect_error_hex_at((p), (hex), (status), (offset), (path), (skip), __FILE__, __LINE__)

/* Only the status (where the offset is the implementation's choice):
 * decode through the memory reader and the 1-byte stream, and skip when
 * with_skip is set. */
static void expect_status_at(const avk_plan *p, const uint8_t *data, size_t n, avk_status status,
                             int with_skip, const char *file, int line)
{
    int how, op;
    for (how = 0; how < HOW_STREAM_BIG; how++) {
        for (op = 0; op < 1 + with_skip; op++) {
            input in;
            avk_arena *a = arena_new();
            avk_value got;
            avk_error err;
            avk_status st;
            input_open(&in, data, n, how);
            memset(&err, 0, sizeof err);
            st = op ? avk_plan_skip(p, &in.r, &err) : avk_plan_decode(p, &in.r, a, &got, &err);
            if (st != status || err.status != status) {
                char *hex = hex_of(data, n);
                fail_msg("%s:%d [%s]: %s of %.200s returned %s, expected %s (message: %s)", file,
                         line, how_names[how], op ? "skip" : "decode", hex, avk_status_name(st),
                         avk_status_name(status), st == AVK_OK ? "-" : err.message);
            }
            input_close(&in);
            avk_arena_free(a);
        }
    }
}

#define EXPECT_STATUS(p, data, n, status, with_skip)                                            \
    expect_status_at((p), (data), (n), (status), (with_skip), __FILE__, __LINE__)

/* Decodes data[0..n) with the memory reader, which must succeed whole;
 * the value lives in a. */
static void decode_ok(const avk_plan *p, input *in, const uint8_t *data, size_t n, avk_arena *a,
                      avk_value *out)
{
    avk_error err;
    avk_status st;
    input_open(in, data, n, HOW_MEMORY);
    st = avk_plan_decode(p, &in->r, a, out, &err);
    if (st != AVK_OK)
        fail_msg("decode returned %s: %s", avk_status_name(st), err.message);
    assert_int_equal(avk_reader_offset(&in->r), n);
}

/* ---- interop tables -------------------------------------------------------------------- */

/* The table as a cJSON tree, or NULL (and a message) when the interop
 * directory is absent. */
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

static bb hex_bytes(const char *hex)
{
    bb b = {0};
    bb_hex(&b, hex);
    bb_put(&b, "", 0); /* a buffer even when empty */
    return b;
}

/* tables/py_io_schema_datum_binary.json: every datum encodes to its bytes
 * exactly, and the bytes decode to read_back through every reader. */
static void test_interop_schema_datum_binary(void **state)
{
    cJSON *table = load_table("py_io_schema_datum_binary.json"), *row;
    int n = 0;
    (void)state;
    if (!table)
        skip();
    cJSON_ArrayForEach(row, table)
    {
        avk_schema *s = parse_cjson(cJSON_GetObjectItem(row, "schema"));
        const avk_type *t = avk_schema_root(s);
        avk_plan *plan = plan_of(t), *copy = avkt_plan_new(t, AVK_PLAN_COPY_STRINGS, NULL, 0);
        avk_arena *a = arena_new();
        avk_value datum, back;
        char why[512], what[600], *schema_text, *got_hex;
        const char *want_hex = cJSON_GetObjectItem(row, "binary_hex")->valuestring;
        bb want = hex_bytes(want_hex);
        uint8_t *enc;
        size_t len;
        schema_text = cJSON_PrintUnformatted(cJSON_GetObjectItem(row, "schema"));
        snprintf(what, sizeof what, "py_io_schema_datum_binary.json row %d (%.400s)", n,
                 schema_text);
        free(schema_text);
        if (!avkt_value_from_json(&datum, t, cJSON_GetObjectItem(row, "datum"), a, why, sizeof why))
            fail_msg("%s: datum: %s", what, why);
        if (!avkt_value_from_json(&back, t, cJSON_GetObjectItem(row, "read_back"), a, why,
                                  sizeof why))
            fail_msg("%s: read_back: %s", what, why);
        enc = encode_at(plan, &datum, &len, what);
        got_hex = hex_of(enc, len);
        if (strcmp(got_hex, want_hex) != 0)
            fail_msg("%s: encoded as %s, expected %s", what, got_hex, want_hex);
        free(got_hex);
        free(enc);
        check_decodes_to(plan, copy, want.p, want.len, &back, what);
        bb_free(&want);
        avk_arena_free(a);
        avk_plan_free(plan);
        avk_plan_free(copy);
        avk_schema_free(s);
        n++;
    }
    print_message("py_io_schema_datum_binary.json: %d rows encode and decode exactly\n", n);
    assert_int_equal(n, 42);
    cJSON_Delete(table);
}

/* "Cannot read more than N ..." -> N. */
static uint64_t number_after(const char *msg, const char *prefix)
{
    const char *p = strstr(msg, prefix);
    assert_non_null(p);
    return strtoull(p + strlen(prefix), NULL, 10);
}

/* tables/py_io_plain_reads.json, the rows read without a reader schema:
 * results decode equal; errors map to our statuses. python3-avro's limits
 * on collections are configured where a row hits them. */
static void test_interop_plain_reads(void **state)
{
    cJSON *table = load_table("py_io_plain_reads.json"), *row;
    int n = 0, results = 0, errors = 0, no_input = 0, enum_default = 0;
    (void)state;
    if (!table)
        skip();
    cJSON_ArrayForEach(row, table)
    {
        const cJSON *input_hex = cJSON_GetObjectItem(row, "input_hex");
        const cJSON *error = cJSON_GetObjectItem(row, "error");
        const cJSON *reader = cJSON_GetObjectItem(row, "reader_schema");
        avk_schema *s;
        const avk_type *t;
        avk_limits lim;
        avk_plan *plan;
        char what[600], *schema_text;
        bb in;
        n++;
        if (reader && !cJSON_IsNull(reader))
            continue;
        if (!cJSON_IsString(input_hex)) {
            no_input++; /* a row whose input the table does not carry */
            continue;
        }
        s = parse_cjson(cJSON_GetObjectItem(row, "writer_schema"));
        t = avk_schema_root(s);
        schema_text = cJSON_PrintUnformatted(cJSON_GetObjectItem(row, "writer_schema"));
        snprintf(what, sizeof what, "py_io_plain_reads.json row %d (%.200s, input %.100s)", n - 1,
                 schema_text, input_hex->valuestring);
        free(schema_text);
        in = hex_bytes(input_hex->valuestring);
        memset(&lim, 0, sizeof lim);
        if (error && strstr(error->valuestring, "zero-byte collection elements"))
            lim.max_empty_items = number_after(error->valuestring, "Cannot read more than ");
        if (error && strstr(error->valuestring, "Cannot read a collection of more than"))
            lim.max_items = number_after(error->valuestring, "collection of more than ");
        if (error && strstr(error->valuestring, "Collection claims")) {
            /* Only the input's length may refuse it. */
            lim.max_items = UINT64_MAX;
            lim.max_bytes = UINT64_MAX;
        }
        plan = avkt_plan_new(t, 0, &lim, 0);
        if (!error && avk_type_kind(t) == AVK_RECORD &&
            avk_type_kind(avk_field_type(avk_type_field(t, 0))) == AVK_ENUM &&
            avk_type_enum_default(avk_field_type(avk_type_field(t, 0))) >= 0 &&
            in.p[0] >= 2 * avk_type_symbol_count(avk_field_type(avk_type_field(t, 0)))) {
            /* python3-avro reads with the writer's schema as the reader's
             * and so substitutes the enum's default for an index out of
             * range; a plain decode has no reader schema and refuses it. */
            EXPECT_ERROR(plan, in.p, in.len, AVK_ERR_MALFORMED, 0, "Test.fields[0]", SKIP_SAME);
            enum_default++;
        } else if (!error) {
            avk_arena *a = arena_new();
            avk_value want;
            char why[512];
            if (!avkt_value_from_json(&want, t, cJSON_GetObjectItem(row, "result"), a, why,
                                      sizeof why))
                fail_msg("%s: result: %s", what, why);
            check_decodes_to(plan, NULL, in.p, in.len, &want, what);
            avk_arena_free(a);
            results++;
        } else {
            const char *e = error->valuestring;
            avk_status want = AVK_OK;
            if (strstr(e, "Can't access enum index") || strstr(e, "Can't access branch index") ||
                strstr(e, "Requested -"))
                want = AVK_ERR_MALFORMED; /* index out of range, negative length */
            else if (strstr(e, "Collection claims") || strstr(e, "InvalidAvroBinaryEncoding: Read"))
                want = AVK_ERR_TRUNCATED; /* claims more than the input holds */
            else if (strstr(e, "reached 9223372036854775808"))
                want = AVK_ERR_MALFORMED; /* block count INT64_MIN: no valid encoding */
            else if (strstr(e, "AvroCollectionSizeException"))
                want = AVK_ERR_LIMIT;
            else
                fail_msg("%s: unmapped error %s", what, e);
            /* Offsets and paths are pinned by the bad-input tests. */
            /* Skip jumps over sized blocks of zero-byte items whole. */
            EXPECT_STATUS(plan, in.p, in.len, want, want != AVK_ERR_LIMIT);
            errors++;
        }
        bb_free(&in);
        avk_plan_free(plan);
        avk_schema_free(s);
    }
    print_message("py_io_plain_reads.json: %d results, %d errors, %d enum-default rows refused, %d "
                  "rows without input\n",
                  results, errors, enum_default, no_input);
    assert_int_equal(n, 71);
    assert_int_equal(results + errors + enum_default + no_input, 71);
    cJSON_Delete(table);
}

/* ---- round trips ----------------------------------------------------------------------- */

static void test_roundtrip_primitives(void **state)
{
    (void)state;
    ROUNDTRIP("'null'", "null", "");
    ROUNDTRIP("'boolean'", "true", "01");
    ROUNDTRIP("'boolean'", "false", "00");
    ROUNDTRIP("'int'", "0", "00");
    ROUNDTRIP("'int'", "-1", "01");
    ROUNDTRIP("'int'", "1", "02");
    ROUNDTRIP("'int'", "63", "7e");
    ROUNDTRIP("'int'", "-64", "7f");
    ROUNDTRIP("'int'", "64", "8001");
    ROUNDTRIP("'int'", "-65", "8101");
    ROUNDTRIP("'int'", "8192", "808001");
    ROUNDTRIP("'int'", "2147483647", "feffffff0f");
    ROUNDTRIP("'int'", "-2147483648", "ffffffff0f");
    ROUNDTRIP("'long'", "0", "00");
    ROUNDTRIP("'long'", "2147483648", "8080808010");
    ROUNDTRIP("'long'", "{'$long': '9223372036854775807'}", "feffffffffffffffff01");
    ROUNDTRIP("'long'", "{'$long': '-9223372036854775808'}", "ffffffffffffffffff01");
    ROUNDTRIP("'long'", "{'$long': '-4611686018427387904'}", "ffffffffffffffff7f");
    ROUNDTRIP("'float'", "1.5", "0000c03f");
    ROUNDTRIP("'float'", "{'$float_bits': '80000000'}", "00000080");      /* -0.0 */
    ROUNDTRIP("'float'", "{'$float_bits': '7fc00001'}", "0100c07f");      /* quiet NaN, payload */
    ROUNDTRIP("'float'", "{'$float_bits': '7f800001'}", "0100807f");      /* signalling NaN */
    ROUNDTRIP("'float'", "{'$float_bits': 'ffc00000'}", "0000c0ff");      /* negative NaN */
    ROUNDTRIP("'float'", "'Infinity'", "0000807f");
    ROUNDTRIP("'float'", "{'$float_bits': '00000001'}", "01000000");      /* least subnormal */
    ROUNDTRIP("'float'", "{'$float_bits': '7f7fffff'}", "ffff7f7f");      /* FLT_MAX */
    ROUNDTRIP("'double'", "1234.0", "0000000000489340");
    ROUNDTRIP("'double'", "{'$double_bits': '8000000000000000'}", "0000000000000080");
    ROUNDTRIP("'double'", "{'$double_bits': '7ff8000000000001'}", "010000000000f87f");
    ROUNDTRIP("'double'", "{'$double_bits': '7ff0000000000001'}", "010000000000f07f");
    ROUNDTRIP("'double'", "{'$double_bits': 'fff8000000000000'}", "000000000000f8ff");
    ROUNDTRIP("'double'", "'-Infinity'", "000000000000f0ff");
    ROUNDTRIP("'double'", "{'$double_bits': '0000000000000001'}", "0100000000000000");
    ROUNDTRIP("'double'", "{'$double_bits': '7fefffffffffffff'}", "ffffffffffffef7f");
    ROUNDTRIP("'string'", "''", "00");
    ROUNDTRIP("'string'", "'a'", "0261");
    ROUNDTRIP("'string'", "'h\\u00e9llo'", "0c68c3a96c6c6f");
    ROUNDTRIP("'string'", "'\\u20ac'", "06e282ac");
    ROUNDTRIP("'string'", "'\\ud83d\\ude00'", "08f09f9880");
    ROUNDTRIP("'string'", "{'$string_hex': '610062'}", "06610062"); /* a NUL inside */
    ROUNDTRIP("'bytes'", "{'$bytes_hex': ''}", "00");
    ROUNDTRIP("'bytes'", "{'$bytes_hex': '00ff'}", "0400ff");
    ROUNDTRIP("{'type': 'string', 'extra': 1}", "'x'", "0278");
}

/* Strings and bytes whose length varint takes 2 and 3 bytes. */
static void test_roundtrip_long_strings(void **state)
{
    static const size_t lens[] = {63, 64, 127, 128, 200, 8191, 8192}; /* 8192: 3-byte length */
    size_t i, k;
    (void)state;
    for (i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        size_t n = lens[i];
        char *json = (char *)malloc(n * 2 + 32), *hexs, *want;
        bb b = {0};
        assert_non_null(json);
        strcpy(json, "\"");
        for (k = 0; k < n; k++)
            json[1 + k] = (char)('a' + k % 26);
        strcpy(json + 1 + n, "\"");
        bb_long(&b, (int64_t)n);
        bb_put(&b, json + 1, n);
        want = hex_of(b.p, b.len);
        roundtrip_at("'string'", json, want, __FILE__, __LINE__);
        /* The same bytes as bytes. */
        hexs = hex_of((const uint8_t *)json + 1, n);
        free(json);
        json = (char *)malloc(strlen(hexs) + 32);
        assert_non_null(json);
        sprintf(json, "{\"$bytes_hex\": \"%s\"}", hexs);
        roundtrip_at("'bytes'", json, want, __FILE__, __LINE__);
        free(hexs);
        free(json);
        free(want);
        bb_free(&b);
    }
}

static void test_roundtrip_named(void **state)
{
    (void)state;
    ROUNDTRIP("{'type': 'enum', 'name': 'Suit', 'symbols': ['S', 'H', 'D', 'C']}", "'C'", "06");
    ROUNDTRIP("{'type': 'enum', 'name': 'Suit', 'symbols': ['S', 'H', 'D', 'C']}", "'S'", "00");
    ROUNDTRIP("{'type': 'fixed', 'name': 'F4', 'size': 4}", "{'$bytes_hex': 'deadbeef'}",
              "deadbeef");
    ROUNDTRIP("{'type': 'fixed', 'name': 'F1', 'size': 1}", "{'$bytes_hex': '00'}", "00");
    ROUNDTRIP("{'type': 'fixed', 'name': 'Empty', 'size': 0}", "{'$bytes_hex': ''}", "");
    ROUNDTRIP("{'type': 'record', 'name': 'P', 'fields': [{'name': 'x', 'type': 'int'}, "
              "{'name': 's', 'type': 'string'}, {'name': 'd', 'type': 'double'}]}",
              "{'x': -3, 's': 'hi', 'd': 0.5}", "05046869000000000000e03f");
    ROUNDTRIP("{'type': 'record', 'name': 'E', 'fields': []}", "{}", "");
    ROUNDTRIP("{'type': 'error', 'name': 'Oops', 'fields': [{'name': 'm', 'type': 'string'}]}",
              "{'m': 'no'}", "046e6f");
    /* Nested records, the inner one referenced again by name. */
    ROUNDTRIP("{'type': 'record', 'name': 'Outer', 'namespace': 'a.b', 'fields': ["
              "{'name': 'a', 'type': {'type': 'record', 'name': 'Inner', 'fields': ["
              "  {'name': 'b', 'type': 'long'}, {'name': 'c', 'type': 'boolean'}]}},"
              "{'name': 'd', 'type': 'Inner'},"
              "{'name': 'e', 'type': {'type': 'record', 'name': 'Deep', 'fields': ["
              "  {'name': 'f', 'type': {'type': 'record', 'name': 'Deeper', 'fields': ["
              "    {'name': 'g', 'type': 'string'}]}}]}}]}",
              "{'a': {'b': 1, 'c': true}, 'd': {'b': -1, 'c': false}, 'e': {'f': {'g': 'z'}}}",
              "02010100027a");
    /* Every kind as a field. */
    ROUNDTRIP("{'type': 'record', 'name': 'All', 'fields': ["
              "{'name': 'n', 'type': 'null'}, {'name': 'b', 'type': 'boolean'},"
              "{'name': 'i', 'type': 'int'}, {'name': 'l', 'type': 'long'},"
              "{'name': 'f', 'type': 'float'}, {'name': 'd', 'type': 'double'},"
              "{'name': 'by', 'type': 'bytes'}, {'name': 's', 'type': 'string'},"
              "{'name': 'e', 'type': {'type': 'enum', 'name': 'E2', 'symbols': ['X', 'Y']}},"
              "{'name': 'fx', 'type': {'type': 'fixed', 'name': 'F2', 'size': 2}},"
              "{'name': 'a', 'type': {'type': 'array', 'items': 'int'}},"
              "{'name': 'm', 'type': {'type': 'map', 'values': 'string'}},"
              "{'name': 'u', 'type': ['null', 'E2']}]}",
              "{'n': null, 'b': true, 'i': 5, 'l': -5, 'f': 1.5, 'd': 1234.0,"
              " 'by': {'$bytes_hex': 'ab'}, 's': 'q', 'e': 'Y', 'fx': {'$bytes_hex': '0102'},"
              " 'a': [1, 2], 'm': {'k': 'v'}, 'u': 'X'}",
              "01" "0a" "09" "0000c03f" "0000000000489340" "02ab" "0271" "02" "0102"
              "04020400" "02026b027600" "0200");
}

static void test_roundtrip_arrays(void **state)
{
    (void)state;
    ROUNDTRIP("{'type': 'array', 'items': 'boolean'}", "[true, false, true]", "0601000100");
    ROUNDTRIP("{'type': 'array', 'items': 'int'}", "[1, -1, 2147483647, -2147483648]",
              "080201feffffff0fffffffff0f00");
    ROUNDTRIP("{'type': 'array', 'items': 'long'}", "[{'$long': '-9223372036854775808'}, 0]",
              "04ffffffffffffffffff010000");
    ROUNDTRIP("{'type': 'array', 'items': 'float'}", "[1.5, {'$float_bits': '80000000'}]",
              "040000c03f0000008000");
    ROUNDTRIP("{'type': 'array', 'items': 'double'}", "[1234.0, {'$double_bits': '7ff8000000000001'}]",
              "040000000000489340010000000000f87f00");
    ROUNDTRIP("{'type': 'array', 'items': {'type': 'fixed', 'name': 'F2', 'size': 2}}",
              "[{'$bytes_hex': '0102'}, {'$bytes_hex': '0304'}]", "040102030400");
    ROUNDTRIP("{'type': 'array', 'items': {'type': 'fixed', 'name': 'Z', 'size': 0}}",
              "[{'$bytes_hex': ''}, {'$bytes_hex': ''}]", "0400");
    ROUNDTRIP("{'type': 'array', 'items': 'null'}", "[null, null, null]", "0600");
    ROUNDTRIP("{'type': 'array', 'items': 'string'}", "['a', '', 'bc']", "0602610004626300");
    ROUNDTRIP("{'type': 'array', 'items': 'bytes'}", "[{'$bytes_hex': 'ff'}]", "0202ff00");
    ROUNDTRIP("{'type': 'array', 'items': {'type': 'record', 'name': 'R', 'fields': ["
              "{'name': 'x', 'type': 'int'}]}}",
              "[{'x': 1}, {'x': 2}]", "04020400");
    ROUNDTRIP("{'type': 'array', 'items': {'type': 'record', 'name': 'R0', 'fields': []}}",
              "[{}, {}, {}]", "0600");
    ROUNDTRIP("{'type': 'array', 'items': ['null', 'int']}", "[null, 5]", "040002" "0a00");
    ROUNDTRIP("{'type': 'array', 'items': {'type': 'enum', 'name': 'E', 'symbols': ['A', 'B']}}",
              "['B', 'A']", "04020000");
    ROUNDTRIP("{'type': 'array', 'items': {'type': 'array', 'items': 'int'}}", "[[1, 2], [], [3]]",
              "0604020400000206" "0000");
    ROUNDTRIP("{'type': 'array', 'items': {'type': 'array', 'items': 'string'}}",
              "[['x'], ['y', 'z']]", "0402027800040279027a0000");
    ROUNDTRIP("{'type': 'array', 'items': {'type': 'map', 'values': 'int'}}", "[{'a': 1}]",
              "0202026102" "0000");
    ROUNDTRIP("{'type': 'array', 'items': 'long'}", "[]", "00");
    ROUNDTRIP("{'type': 'array', 'items': 'boolean'}", "[]", "00");
    ROUNDTRIP("{'type': 'array', 'items': 'string'}", "[]", "00");
    ROUNDTRIP("{'type': 'array', 'items': 'null'}", "[]", "00");
}

/* Typed arrays long enough for the bulk kernels, with values of every
 * varint length. */
static void test_roundtrip_big_typed_arrays(void **state)
{
    avkt_rng rng = {42};
    static const char *const schemas[] = {
        "{'type': 'array', 'items': 'int'}",   "{'type': 'array', 'items': 'long'}",
        "{'type': 'array', 'items': 'float'}", "{'type': 'array', 'items': 'double'}",
        "{'type': 'array', 'items': 'boolean'}",
        "{'type': 'array', 'items': {'type': 'fixed', 'name': 'F3', 'size': 3}}",
        "{'type': 'array', 'items': 'null'}"};
    size_t si, k;
    (void)state;
    for (si = 0; si < sizeof schemas / sizeof schemas[0]; si++) {
        size_t n = 400;
        bb json = {0};
        char tmp[64];
        bb_put(&json, "[", 1);
        for (k = 0; k < n; k++) {
            switch (si) {
            case 0: snprintf(tmp, sizeof tmp, "%d", (int)avkt_mixed_int(&rng)); break;
            case 1: snprintf(tmp, sizeof tmp, "{\"$long\": \"%lld\"}", (long long)avkt_mixed_long(&rng)); break;
            case 2: snprintf(tmp, sizeof tmp, "{\"$float_bits\": \"%08x\"}", (unsigned)avkt_next(&rng)); break;
            case 3: snprintf(tmp, sizeof tmp, "{\"$double_bits\": \"%016llx\"}", (unsigned long long)avkt_next(&rng)); break;
            case 4: snprintf(tmp, sizeof tmp, "%s", avkt_next(&rng) & 1 ? "true" : "false"); break;
            case 5: snprintf(tmp, sizeof tmp, "{\"$bytes_hex\": \"%06x\"}", (unsigned)(avkt_next(&rng) & 0xffffff)); break;
            default: snprintf(tmp, sizeof tmp, "null"); break;
            }
            if (k)
                bb_put(&json, ",", 1);
            bb_put(&json, tmp, strlen(tmp));
        }
        bb_put(&json, "]", 2);
        roundtrip_at(schemas[si], (const char *)json.p, NULL, __FILE__, __LINE__);
        bb_free(&json);
    }
}

static void test_roundtrip_maps(void **state)
{
    (void)state;
    ROUNDTRIP("{'type': 'map', 'values': 'long'}", "{'a': 1, 'b': 3, 'c': 2}",
              "0602610202620602630400");
    ROUNDTRIP("{'type': 'map', 'values': 'string'}", "{'k': 'v', '': ''}", "04026b0276000000");
    ROUNDTRIP("{'type': 'map', 'values': 'null'}", "{'a': null, 'b': null}", "04026102620" "0");
    ROUNDTRIP("{'type': 'map', 'values': {'type': 'array', 'items': 'int'}}", "{'x': [1]}",
              "0202780202" "0000");
    ROUNDTRIP("{'type': 'map', 'values': {'type': 'record', 'name': 'V', 'fields': ["
              "{'name': 'x', 'type': 'int'}, {'name': 'y', 'type': 'string'}]}}",
              "{'p': {'x': 1, 'y': 'q'}, 'r': {'x': -1, 'y': ''}}", "040270020271027201" "0000");
    ROUNDTRIP("{'type': 'map', 'values': {'type': 'map', 'values': 'boolean'}}",
              "{'o': {'i': true}}", "02026f02026901" "0000");
    ROUNDTRIP("{'type': 'map', 'values': ['null', 'double']}", "{'a': null, 'b': 1234.0}",
              "040261000262020000000000489340" "00");
    ROUNDTRIP("{'type': 'map', 'values': 'int'}", "{}", "00");
    ROUNDTRIP("{'type': 'map', 'values': 'float'}", "{'\\u00e9': 1.5}", "0204c3a90000c03f00");
}

static void test_roundtrip_unions(void **state)
{
    static const char *const u =
        "['null', 'boolean', 'int', 'long', 'float', 'double', 'bytes', 'string',"
        " {'type': 'record', 'name': 'R', 'fields': [{'name': 'x', 'type': 'int'}]},"
        " {'type': 'enum', 'name': 'E', 'symbols': ['A', 'B']},"
        " {'type': 'fixed', 'name': 'F', 'size': 2},"
        " {'type': 'array', 'items': 'int'}, {'type': 'map', 'values': 'int'}]";
    (void)state;
    ROUNDTRIP("['null', 'string']", "null", "00");
    ROUNDTRIP("['null', 'string']", "'x'", "020278");
    ROUNDTRIP("['string', 'null']", "null", "02");
    ROUNDTRIP(u, "null", "00");
    ROUNDTRIP(u, "true", "0201");
    ROUNDTRIP(u, "7", "040e");
    ROUNDTRIP(u, "{'$branch': 3, '$value': 7}", "060e");
    ROUNDTRIP(u, "{'$long': '-9223372036854775808'}", "06ffffffffffffffffff01");
    ROUNDTRIP(u, "1.5", "080000c03f");
    ROUNDTRIP(u, "{'$branch': 5, '$value': 1.5}", "0a000000000000f83f");
    ROUNDTRIP(u, "{'$bytes_hex': '01'}", "0c0201");
    ROUNDTRIP(u, "'s'", "0e0273");
    ROUNDTRIP(u, "{'x': 3}", "1006");
    ROUNDTRIP(u, "{'$branch': 9, '$value': 'B'}", "1202");
    ROUNDTRIP(u, "{'$branch': 10, '$value': {'$bytes_hex': 'abcd'}}", "14abcd");
    ROUNDTRIP(u, "[1, 2]", "160402" "0400");
    ROUNDTRIP(u, "{'$branch': 12, '$value': {'k': 1}}", "1802026b0200");
    /* Unions inside collections and records. */
    ROUNDTRIP("{'type': 'record', 'name': 'W', 'fields': [{'name': 'a', 'type': ['null', "
              "{'type': 'array', 'items': ['null', 'string']}]}]}",
              "{'a': [null, 'x', null]}", "0206000202780000");
}

static void test_roundtrip_recursive(void **state)
{
    static const char *const list =
        "{'type': 'record', 'name': 'LongList', 'fields': [{'name': 'value', 'type': 'long'},"
        " {'name': 'next', 'type': ['null', 'LongList']}]}";
    static const char *const tree =
        "{'type': 'record', 'name': 'Tree', 'fields': [{'name': 'v', 'type': 'int'},"
        " {'name': 'kids', 'type': {'type': 'array', 'items': 'Tree'}}]}";
    static const char *const json_tree =
        "{'type': 'record', 'name': 'Json', 'fields': [{'name': 'value', 'type': ['long', "
        "'double', 'string', 'boolean', 'null', {'type': 'array', 'items': 'Json'}, "
        "{'type': 'map', 'values': 'Json'}]}]}";
    bb json = {0};
    int i;
    (void)state;
    ROUNDTRIP(list, "{'value': 1, 'next': {'value': 2, 'next': {'value': 3, 'next': null}}}",
              "020204020600");
    ROUNDTRIP(list, "{'value': 1, 'next': null}", "0200");
    ROUNDTRIP(tree,
              "{'v': 1, 'kids': [{'v': 2, 'kids': []}, {'v': 3, 'kids': [{'v': 4, 'kids': []}]}]}",
              "02040400060208000000");
    ROUNDTRIP(json_tree,
              "{'value': {'$branch': 6, '$value': {'a': {'value': {'$branch': 5, '$value': ["
              "{'value': 1}, {'value': 'x'}, {'value': null}]}}, 'b': {'value': true}}}}",
              "0c040261" "0a" "06" "0002" "040278" "08" "00" "0262" "0601" "00");
    /* 60 deep: within the default depth limit. */
    for (i = 0; i < 60; i++) {
        char tmp[64];
        snprintf(tmp, sizeof tmp, "{\"value\": %d, \"next\": ", i);
        bb_put(&json, tmp, strlen(tmp));
    }
    bb_put(&json, "null", 4);
    for (i = 0; i < 60; i++)
        bb_put(&json, "}", 1);
    bb_put(&json, "", 1);
    roundtrip_at(list, (const char *)json.p, NULL, __FILE__, __LINE__);
    bb_free(&json);
}

static void test_roundtrip_logical(void **state)
{
    (void)state;
    ROUNDTRIP("{'type': 'bytes', 'logicalType': 'decimal', 'precision': 5, 'scale': 2}",
              "{'$decimal': '-1.00'}", "029c");
    ROUNDTRIP("{'type': 'bytes', 'logicalType': 'decimal', 'precision': 5, 'scale': 2}",
              "{'$decimal': '-1.28'}", "04ff80");
    ROUNDTRIP("{'type': 'bytes', 'logicalType': 'decimal', 'precision': 5, 'scale': 2}",
              "{'$decimal': '1.28'}", "040080");
    ROUNDTRIP("{'type': 'bytes', 'logicalType': 'decimal', 'precision': 5, 'scale': 2}",
              "{'$decimal': '0'}", "0200");
    ROUNDTRIP("{'type': 'bytes', 'logicalType': 'decimal', 'precision': 30}",
              "{'$decimal': '-12345678901234567890123456789'}", "18d81be4cdb941364e91c67eeb");
    ROUNDTRIP("{'type': 'fixed', 'name': 'D4', 'size': 4, 'logicalType': 'decimal', "
              "'precision': 9, 'scale': 2}",
              "{'$decimal': '123.45'}", "00003039");
    ROUNDTRIP("{'type': 'fixed', 'name': 'D4', 'size': 4, 'logicalType': 'decimal', "
              "'precision': 9, 'scale': 2}",
              "{'$decimal': '-0.01'}", "ffffffff");
    ROUNDTRIP("{'type': 'string', 'logicalType': 'uuid'}",
              "'0218be7e-2f3a-4c5b-8d9e-0f1a2b3c4d5e'",
              "4830323138626537652d326633612d346335622d386439652d306631613262336334643565");
    ROUNDTRIP("{'type': 'fixed', 'name': 'U', 'size': 16, 'logicalType': 'uuid'}",
              "{'$bytes_hex': '0218be7e2f3a4c5b8d9e0f1a2b3c4d5e'}",
              "0218be7e2f3a4c5b8d9e0f1a2b3c4d5e");
    ROUNDTRIP("{'type': 'int', 'logicalType': 'date'}", "{'$date': '2000-01-01'}", "9aab01");
    ROUNDTRIP("{'type': 'int', 'logicalType': 'date'}", "{'$date': '1969-12-31'}", "01");
    ROUNDTRIP("{'type': 'int', 'logicalType': 'time-millis'}", "{'$time': '23:59:59.999'}",
              "feefb252");
    ROUNDTRIP("{'type': 'long', 'logicalType': 'time-micros'}", "{'$time': '23:59:59.999999'}",
              "feffbadd8305");
    ROUNDTRIP("{'type': 'long', 'logicalType': 'timestamp-millis'}",
              "{'$datetime': '1970-01-01T00:00:00.001+00:00'}", "02");
    ROUNDTRIP("{'type': 'long', 'logicalType': 'timestamp-micros'}",
              "{'$datetime': '1969-12-31T23:59:59.999999Z'}", "01");
    ROUNDTRIP("{'type': 'long', 'logicalType': 'timestamp-nanos'}",
              "{'$datetime': '1970-01-01T00:00:00.000000001Z'}", "02");
    ROUNDTRIP("{'type': 'long', 'logicalType': 'local-timestamp-micros'}",
              "{'$datetime': '1970-01-01T00:00:01'}", "80897a");
    ROUNDTRIP("{'type': 'long', 'logicalType': 'local-timestamp-millis'}",
              "{'$long': '-9223372036854775808'}", "ffffffffffffffffff01");
    ROUNDTRIP("{'type': 'fixed', 'name': 'Dur', 'size': 12, 'logicalType': 'duration'}",
              "{'$bytes_hex': '010000000200000003000000'}", "010000000200000003000000");
    ROUNDTRIP("{'type': 'record', 'name': 'L', 'fields': ["
              "{'name': 'd', 'type': {'type': 'int', 'logicalType': 'date'}},"
              "{'name': 't', 'type': ['null', {'type': 'long', 'logicalType': 'timestamp-millis'}]},"
              "{'name': 'm', 'type': {'type': 'bytes', 'logicalType': 'decimal', 'precision': 4, "
              "'scale': 1}}]}",
              "{'d': {'$date': '1970-01-02'}, 't': {'$datetime': '1970-01-01T00:00:01+00:00'}, "
              "'m': {'$decimal': '12.3'}}",
              "0202d00f027b");
}

/* ---- multi-block collections ----------------------------------------------------------- */

/* The items of a typed array, in one contiguous C array. */
static void test_multiblock_typed_arrays(void **state)
{
    avk_schema *s;
    avk_plan *p;
    avk_arena *a;
    avk_value v;
    input in;
    bb b = {0}, items = {0};
    int64_t k;
    (void)state;

    /* long: a block of 2, a sized block of 3, a block of 1, end. */
    s = AVKT_PARSE("{'type': 'array', 'items': 'long'}");
    p = plan_of(avk_schema_root(s));
    bb_long(&b, 2);
    bb_long(&b, 1);
    bb_long(&b, 2);
    for (k = 3; k <= 5; k++)
        bb_long(&items, k * 1000000007LL);
    bb_sized_block(&b, 3, &items);
    bb_long(&b, 1);
    bb_long(&b, 6);
    bb_long(&b, 0);
    a = arena_new();
    decode_ok(p, &in, b.p, b.len, a, &v);
    assert_int_equal(v.u.array.count, 6);
    {
        const int64_t *x = (const int64_t *)v.u.array.items;
        AVKT_ASSERT_I64_EQ(x[0], 1);
        AVKT_ASSERT_I64_EQ(x[1], 2);
        AVKT_ASSERT_I64_EQ(x[2], 3000000021LL);
        AVKT_ASSERT_I64_EQ(x[3], 4000000028LL);
        AVKT_ASSERT_I64_EQ(x[4], 5000000035LL);
        AVKT_ASSERT_I64_EQ(x[5], 6);
    }
    input_close(&in);
    avk_arena_free(a);
    avk_plan_free(p);
    avk_schema_free(s);
    bb_free(&b);
    bb_free(&items);

    /* int, 40 blocks of 1 to 40 items with and without sizes: 820 items. */
    s = AVKT_PARSE("{'type': 'array', 'items': 'int'}");
    p = plan_of(avk_schema_root(s));
    {
        int64_t blk, next = -400;
        for (blk = 1; blk <= 40; blk++) {
            bb_free(&items);
            for (k = 0; k < blk; k++)
                bb_long(&items, (next++) * 65537);
            if (blk % 2) {
                bb_long(&b, blk);
                bb_put(&b, items.p, items.len);
            } else {
                bb_sized_block(&b, blk, &items);
            }
        }
        bb_long(&b, 0);
        a = arena_new();
        decode_ok(p, &in, b.p, b.len, a, &v);
        assert_int_equal(v.u.array.count, 820);
        for (k = 0; k < 820; k++)
            AVKT_ASSERT_I64_EQ(((const int32_t *)v.u.array.items)[k], (k - 400) * 65537);
        input_close(&in);
        avk_arena_free(a);
    }
    avk_plan_free(p);
    avk_schema_free(s);
    bb_free(&b);
    bb_free(&items);

    /* double, float, boolean, fixed, null in three blocks each. */
    {
        static const struct {
            const char *schema;
            const char *block_hex[3]; /* items of each block */
            int counts[3];
            const char *json;
        } cases[] = {
            {"{'type': 'array', 'items': 'double'}",
             {"000000000000f03f", "0000000000000040" "0000000000000840", "0000000000001040"},
             {1, 2, 1},
             "[1.0, 2.0, 3.0, 4.0]"},
            {"{'type': 'array', 'items': 'float'}",
             {"0000803f" "00000040", "00004040", "00008040"},
             {2, 1, 1},
             "[1.0, 2.0, 3.0, 4.0]"},
            {"{'type': 'array', 'items': 'boolean'}", {"01", "0000", "0101"}, {1, 2, 2},
             "[true, false, false, true, true]"},
            {"{'type': 'array', 'items': {'type': 'fixed', 'name': 'F3', 'size': 3}}",
             {"010203", "040506" "070809", "0a0b0c"},
             {1, 2, 1},
             "[{'$bytes_hex': '010203'}, {'$bytes_hex': '040506'}, {'$bytes_hex': '070809'}, "
             "{'$bytes_hex': '0a0b0c'}]"},
            {"{'type': 'array', 'items': 'null'}", {"", "", ""}, {3, 2, 1},
             "[null, null, null, null, null, null]"},
            {"{'type': 'array', 'items': 'string'}", {"0261", "00" "046263", "0264"}, {1, 2, 1},
             "['a', '', 'bc', 'd']"},
        };
        size_t c;
        for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            int pass;
            s = AVKT_PARSE(cases[c].schema);
            p = plan_of(avk_schema_root(s));
            for (pass = 0; pass < 2; pass++) { /* plain counts, then sized blocks */
                avk_arena *va = arena_new();
                avk_value want;
                int blk;
                char what[256];
                bb_free(&b);
                for (blk = 0; blk < 3; blk++) {
                    bb_free(&items);
                    bb_hex(&items, cases[c].block_hex[blk]);
                    if (pass && blk != 1) {
                        bb_sized_block(&b, cases[c].counts[blk], &items);
                    } else {
                        bb_long(&b, cases[c].counts[blk]);
                        bb_put(&b, items.p, items.len);
                    }
                }
                bb_long(&b, 0);
                value_of(&want, avk_schema_root(s), avkt_q(cases[c].json), va);
                snprintf(what, sizeof what, "multi-block %s pass %d", cases[c].schema, pass);
                check_decodes_to(p, NULL, b.p, b.len, &want, what);
                avk_arena_free(va);
            }
            avk_plan_free(p);
            avk_schema_free(s);
        }
    }
    bb_free(&b);
    bb_free(&items);
}

/* Boxed arrays and maps in blocks, with and without byte sizes. */
static void test_multiblock_boxed(void **state)
{
    avk_schema *s;
    avk_plan *p;
    avk_arena *a;
    avk_value want;
    bb b = {0}, items = {0};
    (void)state;

    s = AVKT_PARSE("{'type': 'array', 'items': 'string'}");
    p = plan_of(avk_schema_root(s));
    a = arena_new();
    bb_long(&b, 1);
    bb_str(&b, "a");
    bb_str(&items, "");
    bb_str(&items, "bc");
    bb_sized_block(&b, 2, &items);
    bb_long(&b, 1);
    bb_str(&b, "d");
    bb_long(&b, 0);
    value_of(&want, avk_schema_root(s), "[\"a\", \"\", \"bc\", \"d\"]", a);
    check_decodes_to(p, NULL, b.p, b.len, &want, "array<string> in 3 blocks");
    avk_arena_free(a);
    avk_plan_free(p);
    avk_schema_free(s);
    bb_free(&b);
    bb_free(&items);

    s = AVKT_PARSE("{'type': 'map', 'values': 'int'}");
    p = plan_of(avk_schema_root(s));
    a = arena_new();
    bb_long(&b, 1);
    bb_str(&b, "a");
    bb_long(&b, 1);
    bb_str(&items, "b");
    bb_long(&items, 2);
    bb_str(&items, "c");
    bb_long(&items, 3);
    bb_sized_block(&b, 2, &items);
    bb_long(&b, 0);
    value_of(&want, avk_schema_root(s), "{\"a\": 1, \"b\": 2, \"c\": 3}", a);
    check_decodes_to(p, NULL, b.p, b.len, &want, "map<int> in 2 blocks");
    avk_arena_free(a);
    avk_plan_free(p);
    avk_schema_free(s);
    bb_free(&b);
    bb_free(&items);

    /* Records and nested arrays, blocks of one item each. */
    s = AVKT_PARSE(
        "{'type': 'array', 'items': {'type': 'record', 'name': 'R', 'fields': ["
        "{'name': 'x', 'type': 'int'}, {'name': 'ys', 'type': {'type': 'array', 'items': "
        "'long'}}]}}");
    p = plan_of(avk_schema_root(s));
    a = arena_new();
    {
        int i, j;
        for (i = 0; i < 5; i++) {
            bb_long(&b, 1);
            bb_long(&b, i);
            for (j = 0; j < i; j++) { /* the inner array in blocks of one too */
                bb_long(&b, 1);
                bb_long(&b, j);
            }
            bb_long(&b, 0);
        }
        bb_long(&b, 0);
    }
    value_of(&want, avk_schema_root(s),
             "[{\"x\": 0, \"ys\": []}, {\"x\": 1, \"ys\": [0]}, {\"x\": 2, \"ys\": [0, 1]}, "
             "{\"x\": 3, \"ys\": [0, 1, 2]}, {\"x\": 4, \"ys\": [0, 1, 2, 3]}]",
             a);
    check_decodes_to(p, NULL, b.p, b.len, &want, "array<record> in blocks of one");
    avk_arena_free(a);
    avk_plan_free(p);
    avk_schema_free(s);
    bb_free(&b);
}

/* v encoded under a plan of t with flags and block_items is exactly want_hex. */
static void expect_layout(const avk_type *t, unsigned flags, size_t block_items, const avk_value *v,
                          const char *what, const char *want_hex)
{
    avk_plan *p = avkt_plan_new(t, flags, NULL, block_items);
    size_t n;
    uint8_t *enc = encode_at(p, v, &n, what);
    char *hex = hex_of(enc, n);
    assert_string_equal(hex, want_hex);
    free(hex);
    free(enc);
    avk_plan_free(p);
}

/* The encoder's block layout under block_items and AVK_PLAN_BLOCK_SIZES. */
static void test_encode_block_layout(void **state)
{
    avk_schema *s = AVKT_PARSE("{'type': 'array', 'items': 'long'}");
    avk_schema *m = AVKT_PARSE("{'type': 'map', 'values': 'int'}");
    avk_arena *a = arena_new();
    avk_value v, mv;
    (void)state;
    value_of(&v, avk_schema_root(s), "[1, 2, 3]", a);
    value_of(&mv, avk_schema_root(m), "{\"a\": 1, \"b\": 2, \"c\": 3}", a);
    expect_layout(avk_schema_root(s), 0, 2, &v, "blocks of 2", "04020402" "0600");
    expect_layout(avk_schema_root(s), AVK_PLAN_BLOCK_SIZES, 2, &v, "blocks of 2 with sizes",
                  "030402040102" "0600");
    expect_layout(avk_schema_root(m), AVK_PLAN_BLOCK_SIZES, 2, &mv, "map blocks of 2 with sizes",
                  "030c0261020262040106026306" "00");
    avk_arena_free(a);
    avk_schema_free(s);
    avk_schema_free(m);
}

/* ---- views and copies ------------------------------------------------------------------ */

static int inside(const void *p, const void *base, size_t len)
{
    return (const uint8_t *)p >= (const uint8_t *)base &&
           (const uint8_t *)p < (const uint8_t *)base + len;
}

static void test_views_and_copies(void **state)
{
    avk_schema *s = AVKT_PARSE("{'type': 'record', 'name': 'V', 'fields': ["
                               "{'name': 's', 'type': 'string'}, {'name': 'b', 'type': 'bytes'},"
                               "{'name': 'f', 'type': {'type': 'fixed', 'name': 'F3', 'size': 3}},"
                               "{'name': 'm', 'type': {'type': 'map', 'values': 'string'}},"
                               "{'name': 'a', 'type': {'type': 'array', 'items': 'string'}}]}");
    const avk_type *t = avk_schema_root(s);
    avk_plan *view = plan_of(t), *copy = avkt_plan_new(t, AVK_PLAN_COPY_STRINGS, NULL, 0);
    static uint8_t first[1 << 16];
    avk_arena_options ao;
    bb b = {0};
    int how, pass;
    (void)state;
    bb_str(&b, "hello");
    bb_str(&b, "by");
    bb_hex(&b, "010203");
    bb_long(&b, 1);
    bb_str(&b, "key");
    bb_str(&b, "val");
    bb_long(&b, 0);
    bb_long(&b, 1);
    bb_str(&b, "item");
    bb_long(&b, 0);
    memset(&ao, 0, sizeof ao);
    ao.struct_size = sizeof ao;
    ao.first_block = first;
    ao.first_block_size = sizeof first;
    for (pass = 0; pass < 2; pass++) {
        for (how = 0; how < HOW_COUNT; how++) {
            avk_arena *a = NULL;
            avk_value v;
            avk_error err;
            input in;
            const avk_bytes *strs[6];
            size_t i;
            int expect_view = how == HOW_MEMORY && pass == 0;
            AVKT_OK(avk_arena_new(&ao, &a, &err));
            input_open(&in, b.p, b.len, how);
            AVKT_OK(avk_plan_decode(pass ? copy : view, &in.r, a, &v, &err));
            strs[0] = &v.u.fields[0].u.bytes;
            strs[1] = &v.u.fields[1].u.bytes;
            strs[2] = &v.u.fields[3].u.map.keys[0];
            strs[3] = &v.u.fields[3].u.map.values[0].u.bytes;
            strs[4] = &((const avk_value *)v.u.fields[4].u.array.items)[0].u.bytes;
            strs[5] = &v.u.fields[2].u.bytes;
            assert_memory_equal(strs[0]->data, "hello", 5);
            assert_memory_equal(strs[1]->data, "by", 2);
            assert_memory_equal(strs[2]->data, "key", 3);
            assert_memory_equal(strs[3]->data, "val", 3);
            assert_memory_equal(strs[4]->data, "item", 4);
            assert_memory_equal(strs[5]->data, "\x01\x02\x03", 3);
            for (i = 0; i < 5; i++) {
                if (expect_view) {
                    if (!inside(strs[i]->data, in.g.data, b.len))
                        fail_msg("pass %d [%s]: string %zu is not a view into the input", pass,
                                 how_names[how], i);
                } else {
                    if (!inside(strs[i]->data, first, sizeof first))
                        fail_msg("pass %d [%s]: string %zu is not a copy in the arena", pass,
                                 how_names[how], i);
                    if (strs[i]->data[strs[i]->len] != '\0')
                        fail_msg("pass %d [%s]: copied string %zu has no NUL after it", pass,
                                 how_names[how], i);
                }
            }
            /* Fixed: a view from memory, a copy from a stream. */
            if (how == HOW_MEMORY && pass == 0)
                assert_true(inside(strs[5]->data, in.g.data, b.len));
            if (how != HOW_MEMORY)
                assert_true(inside(strs[5]->data, first, sizeof first));
            /* Nothing came from the allocator: the first block held it all. */
            assert_int_equal(avk_arena_bytes(a), 0);
            input_close(&in);
            avk_arena_free(a);
        }
    }
    bb_free(&b);
    avk_plan_free(view);
    avk_plan_free(copy);
    avk_schema_free(s);
}

/* ---- bad input ------------------------------------------------------------------------- */

/* Every strict prefix of a valid encoding is TRUNCATED, through every
 * reader, for decode and skip, at an offset within the prefix. */
static void check_all_prefixes(const char *schema_sq, const char *json)
{
    avk_schema *s = AVKT_PARSE(schema_sq);
    const avk_type *t = avk_schema_root(s);
    avk_plan *p = plan_of(t);
    avk_arena *a = arena_new();
    avk_value v;
    uint8_t *enc;
    size_t n, cut;
    int how, op;
    value_of(&v, t, json, a);
    enc = encode_at(p, &v, &n, json);
    for (cut = 0; cut < n; cut++) {
        for (how = 0; how < HOW_STREAM_BIG; how++) {
            for (op = 0; op < 2; op++) {
                input in;
                avk_arena *da = arena_new();
                avk_value got;
                avk_error err;
                avk_status st;
                input_open(&in, enc, cut, how);
                memset(&err, 0, sizeof err);
                st = op ? avk_plan_skip(p, &in.r, &err) : avk_plan_decode(p, &in.r, da, &got, &err);
                if (st != AVK_ERR_TRUNCATED || err.status != AVK_ERR_TRUNCATED)
                    fail_msg("%s of %s cut to %zu of %zu bytes [%s]: %s, expected TRUNCATED (%s)",
                             op ? "skip" : "decode", schema_sq, cut, n, how_names[how],
                             avk_status_name(st), st == AVK_OK ? "-" : err.message);
                if (err.offset > cut)
                    fail_msg("%s of %s cut to %zu: error offset %llu past the end",
                             op ? "skip" : "decode", schema_sq, cut,
                             (unsigned long long)err.offset);
                input_close(&in);
                avk_arena_free(da);
            }
        }
    }
    free(enc);
    avk_arena_free(a);
    avk_plan_free(p);
    avk_schema_free(s);
}

static void test_truncated_every_prefix(void **state)
{
    (void)state;
    check_all_prefixes("{'type': 'record', 'name': 'T', 'fields': ["
                       "{'name': 'b', 'type': 'boolean'}, {'name': 'i', 'type': 'int'},"
                       "{'name': 'l', 'type': 'long'}, {'name': 'f', 'type': 'float'},"
                       "{'name': 'd', 'type': 'double'}, {'name': 'by', 'type': 'bytes'},"
                       "{'name': 's', 'type': 'string'},"
                       "{'name': 'e', 'type': {'type': 'enum', 'name': 'E', 'symbols': ['A','B']}},"
                       "{'name': 'fx', 'type': {'type': 'fixed', 'name': 'F', 'size': 5}},"
                       "{'name': 'ai', 'type': {'type': 'array', 'items': 'int'}},"
                       "{'name': 'ad', 'type': {'type': 'array', 'items': 'double'}},"
                       "{'name': 'ab', 'type': {'type': 'array', 'items': 'boolean'}},"
                       "{'name': 'as', 'type': {'type': 'array', 'items': 'string'}},"
                       "{'name': 'm', 'type': {'type': 'map', 'values': 'long'}},"
                       "{'name': 'u', 'type': ['null', 'string', 'F']}]}",
                       "{'b': true, 'i': -300000, 'l': {'$long': '-9223372036854775808'},"
                       " 'f': 1.5, 'd': 2.5, 'by': {'$bytes_hex': '0102'}, 's': 'hello',"
                       " 'e': 'B', 'fx': {'$bytes_hex': '0102030405'}, 'ai': [1, 300, -70000],"
                       " 'ad': [1.0, 2.0], 'ab': [true, false], 'as': ['x', 'yz'],"
                       " 'm': {'k': 123456789}, 'u': 'str'}");
    check_all_prefixes("{'type': 'record', 'name': 'LongList', 'fields': ["
                       "{'name': 'value', 'type': 'long'},"
                       "{'name': 'next', 'type': ['null', 'LongList']}]}",
                       "{'value': 1000, 'next': {'value': 2, 'next': {'value': -3, 'next': null}}}");
    check_all_prefixes("{'type': 'array', 'items': 'long'}",
                       "[1, 128, 16384, 2097152, 268435456, 34359738368, -1]");
    check_all_prefixes("{'type': 'map', 'values': {'type': 'array', 'items': 'float'}}",
                       "{'a': [1.5, 2.5], 'bb': []}");
    check_all_prefixes("'string'", "'a string of some length'");
}

/* Truncation inside sized blocks, which a skip jumps over. */
static void test_truncated_sized_blocks(void **state)
{
    avk_schema *s = AVKT_PARSE("{'type': 'array', 'items': 'string'}");
    avk_plan *p = plan_of(avk_schema_root(s));
    bb b = {0}, items = {0};
    (void)state;
    bb_str(&items, "abc");
    bb_str(&items, "de");
    bb_sized_block(&b, 2, &items);
    bb_long(&b, 0);
    /* Without the end marker: the items are all there, the end is not. */
    EXPECT_ERROR(p, b.p, b.len - 1, AVK_ERR_TRUNCATED, 9, "array", SKIP_SAME);
    /* The block's size says more than remains: 03 0e then 7 of 14 bytes. */
    bb_free(&b);
    bb_long(&b, -2);
    bb_long(&b, 14);
    bb_put(&b, items.p, items.len);
    {
        /* Every reader says the same: the decoder finds the items end
         * before the size does (MALFORMED), the skipper jumps the size and
         * finds the input ends first (TRUNCATED). A memory reader could
         * tell at once that the block is not there, but a stream cannot,
         * and both must give one status for the same bytes. */
        int how, op;
        for (how = 0; how < HOW_STREAM_BIG; how++) {
            for (op = 0; op < 2; op++) {
                input in;
                avk_arena *a = arena_new();
                avk_value v;
                avk_error err;
                avk_status st;
                input_open(&in, b.p, b.len, how);
                st = op ? avk_plan_skip(p, &in.r, &err) : avk_plan_decode(p, &in.r, a, &v, &err);
                AVKT_ASSERT_STATUS(st, op ? AVK_ERR_TRUNCATED : AVK_ERR_MALFORMED);
                input_close(&in);
                avk_arena_free(a);
            }
        }
    }
    bb_free(&b);
    bb_free(&items);
    avk_plan_free(p);
    avk_schema_free(s);
}

/* A counting allocator under the arena: a claimed length or count that
 * the input cannot hold must not be allocated. */
static void expect_truncated_small_alloc(const char *schema_sq, const char *hex, uint64_t offset,
                                         const char *path, int unlimited)
{
    avk_schema *s = AVKT_PARSE(schema_sq);
    avk_limits lim;
    avk_plan *p;
    memset(&lim, 0, sizeof lim);
    if (unlimited) { /* only the input's length can refuse it */
        lim.max_bytes = UINT64_MAX;
        lim.max_items = UINT64_MAX;
        lim.max_memory = UINT64_MAX;
    }
    p = avkt_plan_new(avk_schema_root(s), 0, &lim, 0);
    avkt_failalloc fa;
    avk_arena_options ao;
    avk_arena *a = NULL;
    avk_value v;
    avk_error err;
    input in;
    bb b = hex_bytes(hex);
    avkt_failalloc_init(&fa, 0);
    memset(&ao, 0, sizeof ao);
    ao.struct_size = sizeof ao;
    ao.allocator = &fa.allocator;
    AVKT_OK(avk_arena_new(&ao, &a, &err));
    input_open(&in, b.p, b.len, HOW_MEMORY);
    AVKT_ASSERT_STATUS(avk_plan_decode(p, &in.r, a, &v, &err), AVK_ERR_TRUNCATED);
    AVKT_ASSERT_I64_EQ(err.offset, offset);
    assert_string_equal(err.path, path);
    if (fa.peak_bytes > 64 * 1024)
        fail_msg("%s %s: the arena took %zu bytes for a TRUNCATED input", schema_sq, hex,
                 fa.peak_bytes);
    input_close(&in);
    avk_arena_free(a);
    assert_int_equal(fa.live_blocks, 0);
    EXPECT_ERROR(p, b.p, b.len, AVK_ERR_TRUNCATED, offset, path, SKIP_SAME | STREAM_LOOSE);
    bb_free(&b);
    avk_plan_free(p);
    avk_schema_free(s);
}

static void test_lengths_beyond_input(void **state)
{
    (void)state;
    /* string of 100 bytes, 10 present (py_io_plain_reads). */
    expect_truncated_small_alloc("{'type': 'record', 'name': 'User', 'namespace': 'example.avro',"
                                 " 'fields': [{'name': 'name', 'type': 'string'},"
                                 " {'name': 'age', 'type': 'int'}]}",
                                 "c8012a10576f6f64666f7264", 0, "example.avro.User.fields[0]", 0);
    /* bytes claiming 100 MB (under the default max_bytes), 2^47 and
     * 2^62 - 1 (with no limits). */
    expect_truncated_small_alloc("'bytes'", "8084af5f61", 0, "bytes", 0);
    expect_truncated_small_alloc("'bytes'", "8080808080804061", 0, "bytes", 1);
    expect_truncated_small_alloc("'bytes'", "feffffffffffffff7f6162", 0, "bytes", 1);
    /* array count 1000000 with nothing after it, of longs and of strings
     * (1 byte each at least), of records of two longs (2 bytes each). A
     * memory reader decodes the items that fit, as a stream decodes what
     * arrives, and fails at the first that does not: both readers give one
     * status for the same bytes (an item could be malformed before the
     * input ends). Nothing is allocated beyond what the input backs. */
    expect_truncated_small_alloc("{'type': 'array', 'items': 'long'}", "80897a", 3,
                                 "array.items[0]", 0);
    expect_truncated_small_alloc("{'type': 'array', 'items': 'string'}", "80897a00000000", 7,
                                 "array.items[4]", 0);
    expect_truncated_small_alloc("{'type': 'array', 'items': {'type': 'record', 'name': 'P',"
                                 " 'fields': [{'name': 'a', 'type': 'long'},"
                                 " {'name': 'b', 'type': 'long'}]}}",
                                 "0a0000000000", 6, "array.items[2].fields[1]", 0);
    /* Items that no byte pattern makes malformed fail at once. */
    expect_truncated_small_alloc("{'type': 'array', 'items': 'double'}",
                                 "040000000000000000000000", 0, "array", 0);
    expect_truncated_small_alloc("{'type': 'array', 'items': 'long'}", "feffffffffffffff7f00", 10,
                                 "array.items[1]", 1);
    expect_truncated_small_alloc("{'type': 'map', 'values': 'long'}", "80897a", 3, "map.keys[0]",
                                 0);
    /* 200000000 map entries of null values: each takes a key byte. */
    expect_truncated_small_alloc("{'type': 'map', 'values': 'null'}", "8088debe0100", 6,
                                 "map.keys[1]", 1);
    /* A count that fits, then a string inside claiming too much. */
    expect_truncated_small_alloc("{'type': 'array', 'items': 'string'}", "0402610a6263", 3,
                                 "array.items[1]", 0);
    /* A fixed(1000) with 3 bytes. */
    expect_truncated_small_alloc("{'type': 'fixed', 'name': 'Big', 'size': 1000}", "010203", 0,
                                 "Big", 0);
}

static void test_negative_lengths(void **state)
{
    avk_schema *s = AVKT_PARSE("{'type': 'record', 'name': 'User', 'fields': ["
                               "{'name': 'name', 'type': 'string'}, {'name': 'age', 'type': 'int'},"
                               "{'name': 'tags', 'type': {'type': 'array', 'items': 'bytes'}},"
                               "{'name': 'm', 'type': {'type': 'map', 'values': 'int'}}]}");
    avk_plan *p = plan_of(avk_schema_root(s));
    (void)state;
    EXPECT_ERROR_HEX(p, "13", AVK_ERR_MALFORMED, 0, "User.fields[0]", SKIP_SAME);
    EXPECT_ERROR_HEX(p, "01", AVK_ERR_MALFORMED, 0, "User.fields[0]", SKIP_SAME);
    EXPECT_ERROR_HEX(p, "0261" "02" "04" "0278" "01", AVK_ERR_MALFORMED, 6,
                     "User.fields[2].items[1]", SKIP_SAME);
    /* A negative length for a map key. */
    EXPECT_ERROR_HEX(p, "0261" "02" "00" "02" "03" "02" "00", AVK_ERR_MALFORMED, 5,
                     "User.fields[3].keys[0]", SKIP_SAME);
    /* Negative byte size of a sized block (the block starts at its count). */
    EXPECT_ERROR_HEX(p, "0261" "02" "01" "01", AVK_ERR_MALFORMED, 3, "User.fields[2]", SKIP_SAME);
    avk_plan_free(p);
    avk_schema_free(s);
}

static void test_index_out_of_range(void **state)
{
    avk_schema *s = AVKT_PARSE("{'type': 'record', 'name': 'R', 'fields': ["
                               "{'name': 'x', 'type': 'int'},"
                               "{'name': 'u', 'type': ['null', 'string']},"
                               "{'name': 'e', 'type': {'type': 'enum', 'name': 'ns.E', 'symbols': "
                               "['A', 'B']}},"
                               "{'name': 'a', 'type': {'type': 'array', 'items': ['null', 'int', "
                               "'ns.E']}}]}");
    avk_schema *u = AVKT_PARSE("['null', 'long']");
    avk_schema *e = AVKT_PARSE("{'type': 'enum', 'name': 'E', 'symbols': ['A', 'B']}");
    avk_plan *p = plan_of(avk_schema_root(s)), *pu = plan_of(avk_schema_root(u)),
             *pe = plan_of(avk_schema_root(e));
    (void)state;
    EXPECT_ERROR_HEX(pu, "0a", AVK_ERR_MALFORMED, 0, "union", SKIP_SAME);
    EXPECT_ERROR_HEX(pu, "04", AVK_ERR_MALFORMED, 0, "union", SKIP_SAME);
    EXPECT_ERROR_HEX(pu, "01", AVK_ERR_MALFORMED, 0, "union", SKIP_SAME);
    EXPECT_ERROR_HEX(pu, "ffffffffffffffffff01", AVK_ERR_MALFORMED, 0, "union", SKIP_SAME);
    EXPECT_ERROR_HEX(pu, "feffffffffffffffff01", AVK_ERR_MALFORMED, 0, "union", SKIP_SAME);
    EXPECT_ERROR_HEX(pu, "8080808010", AVK_ERR_MALFORMED, 0, "union", SKIP_SAME); /* 2^31 */
    EXPECT_ERROR_HEX(pe, "04", AVK_ERR_MALFORMED, 0, "E", SKIP_SAME);
    EXPECT_ERROR_HEX(pe, "12", AVK_ERR_MALFORMED, 0, "E", SKIP_SAME);
    EXPECT_ERROR_HEX(pe, "01", AVK_ERR_MALFORMED, 0, "E", SKIP_SAME);
    /* Enum indexes are ints: bits beyond 32 (at the offending byte, as the
     * reader reports them). */
    EXPECT_ERROR_HEX(pe, "8080808010", AVK_ERR_MALFORMED, 4, "E", SKIP_SAME);
    EXPECT_ERROR_HEX(p, "02" "04", AVK_ERR_MALFORMED, 1, "R.fields[1]", SKIP_SAME);
    EXPECT_ERROR_HEX(p, "02" "00" "06", AVK_ERR_MALFORMED, 2, "R.fields[2]", SKIP_SAME);
    EXPECT_ERROR_HEX(p, "02" "00" "02" "06" "00" "0202" "08", AVK_ERR_MALFORMED, 7,
                     "R.fields[3].items[2]", SKIP_SAME);
    EXPECT_ERROR_HEX(p, "02" "00" "02" "06" "00" "0202" "0404", AVK_ERR_MALFORMED, 8,
                     "R.fields[3].items[2].branch[2]", SKIP_SAME);
    avk_plan_free(p);
    avk_plan_free(pu);
    avk_plan_free(pe);
    avk_schema_free(s);
    avk_schema_free(u);
    avk_schema_free(e);
}

static void test_boolean_bytes(void **state)
{
    avk_schema *s = AVKT_PARSE("'boolean'");
    avk_schema *a = AVKT_PARSE("{'type': 'array', 'items': 'boolean'}");
    avk_plan *p = plan_of(avk_schema_root(s)), *pa = plan_of(avk_schema_root(a));
    char hex[64];
    int x;
    (void)state;
    for (x = 2; x < 256; x++) {
        snprintf(hex, sizeof hex, "%02x", x);
        EXPECT_ERROR_HEX(p, hex, AVK_ERR_MALFORMED, 0, "boolean", SKIP_NONE);
    }
    EXPECT_ERROR_HEX(p, "02", AVK_ERR_MALFORMED, 0, "boolean", SKIP_SAME);
    /* In a typed array, read in bulk: the third item. */
    EXPECT_ERROR_HEX(pa, "0a0100020100" "00", AVK_ERR_MALFORMED, 3, "array.items[2]", SKIP_SAME);
    /* The 40th of 40 items. */
    {
        bb b = {0};
        int i;
        bb_long(&b, 40);
        for (i = 0; i < 39; i++)
            bb_byte(&b, i & 1);
        bb_byte(&b, 0x80);
        bb_long(&b, 0);
        EXPECT_ERROR(pa, b.p, b.len, AVK_ERR_MALFORMED, 40, "array.items[39]", SKIP_SAME);
        bb_free(&b);
    }
    avk_plan_free(p);
    avk_plan_free(pa);
    avk_schema_free(s);
    avk_schema_free(a);
}

static void test_utf8(void **state)
{
    static const struct {
        const char *hex; /* string bytes, without the length */
        int valid;
    } cases[] = {
        {"", 1},
        {"61", 1},
        {"c3a9", 1},
        {"e282ac", 1},
        {"f09f9880", 1},
        {"f48fbfbf", 1},       /* U+10FFFF */
        {"efbfbf", 1},         /* U+FFFF */
        {"00", 1},             /* NUL is a valid code point */
        {"c328", 0},           /* bad continuation */
        {"c0af", 0},           /* overlong '/' */
        {"e080af", 0},         /* overlong */
        {"f0808080", 0},       /* overlong */
        {"eda080", 0},         /* surrogate U+D800 */
        {"edbfbf", 0},         /* surrogate U+DFFF */
        {"f4908080", 0},       /* above U+10FFFF */
        {"f8888080", 0},       /* 5-byte form */
        {"ff", 0},
        {"80", 0},             /* lone continuation */
        {"e282", 0},           /* cut short at the end of the string */
        {"61e2826162", 0},     /* cut short in the middle */
    };
    avk_schema *s = AVKT_PARSE("'string'");
    avk_schema *r = AVKT_PARSE("{'type': 'record', 'name': 'R', 'fields': ["
                               "{'name': 'a', 'type': {'type': 'array', 'items': 'string'}},"
                               "{'name': 'm', 'type': {'type': 'map', 'values': 'string'}}]}");
    avk_plan *check = avkt_plan_new(avk_schema_root(s), AVK_PLAN_CHECK_UTF8, NULL, 0);
    avk_plan *check_copy =
        avkt_plan_new(avk_schema_root(s), AVK_PLAN_CHECK_UTF8 | AVK_PLAN_COPY_STRINGS, NULL, 0);
    avk_plan *nocheck = plan_of(avk_schema_root(s));
    avk_plan *rcheck = avkt_plan_new(avk_schema_root(r), AVK_PLAN_CHECK_UTF8, NULL, 0);
    size_t i;
    (void)state;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bb b = {0}, raw = {0};
        avk_arena *a = arena_new();
        avk_value want;
        bb_hex(&raw, cases[i].hex);
        bb_long(&b, (int64_t)raw.len);
        bb_put(&b, raw.p, raw.len);
        want.type = avk_schema_root(s);
        want.u.bytes.data = raw.len ? raw.p : (const uint8_t *)"";
        want.u.bytes.len = raw.len;
        /* Without the check every byte string is accepted as it is. */
        check_decodes_to(nocheck, NULL, b.p, b.len, &want, cases[i].hex);
        if (cases[i].valid) {
            check_decodes_to(check, check_copy, b.p, b.len, &want, cases[i].hex);
        } else {
            EXPECT_ERROR(check, b.p, b.len, AVK_ERR_MALFORMED, 0, "string", SKIP_OK);
            EXPECT_ERROR(check_copy, b.p, b.len, AVK_ERR_MALFORMED, 0, "string", SKIP_OK);
        }
        avk_arena_free(a);
        bb_free(&b);
        bb_free(&raw);
    }
    /* In an array item, a map key and a map value. */
    EXPECT_ERROR_HEX(rcheck, "04" "0261" "02ff" "00" "00", AVK_ERR_MALFORMED, 3,
                     "R.fields[0].items[1]", SKIP_OK);
    EXPECT_ERROR_HEX(rcheck, "00" "02" "02ff" "0261" "00", AVK_ERR_MALFORMED, 2,
                     "R.fields[1].keys[0]", SKIP_OK);
    EXPECT_ERROR_HEX(rcheck, "00" "04" "0261" "0262" "0263" "02c0" "00", AVK_ERR_MALFORMED, 8,
                     "R.fields[1].values[1]", SKIP_OK);
    avk_plan_free(check);
    avk_plan_free(check_copy);
    avk_plan_free(nocheck);
    avk_plan_free(rcheck);
    avk_schema_free(s);
    avk_schema_free(r);
}

static void test_bad_varints(void **state)
{
    avk_schema *s = AVKT_PARSE("{'type': 'record', 'name': 'V', 'fields': ["
                               "{'name': 'i', 'type': 'int'}, {'name': 'l', 'type': 'long'},"
                               "{'name': 'ai', 'type': {'type': 'array', 'items': 'int'}},"
                               "{'name': 'al', 'type': {'type': 'array', 'items': 'long'}}]}");
    avk_plan *p = plan_of(avk_schema_root(s));
    (void)state;
    /* The reader's convention (tests/unit/reader_test.c): a varint too long
     * is reported where it starts, bits beyond the type's width at the
     * offending last byte. */
    /* int: 6 bytes, and a 5th byte with bits beyond 32. */
    EXPECT_ERROR_HEX(p, "808080808000", AVK_ERR_MALFORMED, 0, "V.fields[0]", SKIP_SAME);
    EXPECT_ERROR_HEX(p, "ffffffff10", AVK_ERR_MALFORMED, 4, "V.fields[0]", SKIP_SAME);
    /* long: 11 bytes, and a 10th byte with bits beyond 64. */
    EXPECT_ERROR_HEX(p, "00" "ffffffffffffffffffff01", AVK_ERR_MALFORMED, 1, "V.fields[1]",
                     SKIP_SAME);
    EXPECT_ERROR_HEX(p, "00" "ffffffffffffffffff02", AVK_ERR_MALFORMED, 10, "V.fields[1]",
                     SKIP_SAME);
    /* In typed arrays decoded in bulk: the third item. */
    EXPECT_ERROR_HEX(p, "00" "00" "06" "02" "04" "ffffffff7f" "00" "00", AVK_ERR_MALFORMED, 9,
                     "V.fields[2].items[2]", SKIP_SAME);
    EXPECT_ERROR_HEX(p, "00" "00" "00" "06" "02" "04" "ffffffffffffffffff7f" "00",
                     AVK_ERR_MALFORMED, 15, "V.fields[3].items[2]", SKIP_SAME);
    EXPECT_ERROR_HEX(p, "00" "00" "00" "06" "02" "04" "ffffffffffffffffffff01" "00",
                     AVK_ERR_MALFORMED, 6, "V.fields[3].items[2]", SKIP_SAME);
    /* A block count that is not a varint. */
    EXPECT_ERROR_HEX(p, "00" "00" "ffffffffffffffffffff01", AVK_ERR_MALFORMED, 2, "V.fields[2]",
                     SKIP_SAME);
    avk_plan_free(p);
    avk_schema_free(s);
}

static void test_block_count_int64_min(void **state)
{
    avk_schema *s = AVKT_PARSE("{'type': 'array', 'items': 'null'}");
    avk_schema *l = AVKT_PARSE("{'type': 'array', 'items': 'long'}");
    avk_schema *m = AVKT_PARSE("{'type': 'map', 'values': 'long'}");
    avk_plan *p = plan_of(avk_schema_root(s)), *pl = plan_of(avk_schema_root(l)),
             *pm = plan_of(avk_schema_root(m));
    (void)state;
    /* -2^63 has no negation: no writer produces it. */
    EXPECT_ERROR_HEX(p, "ffffffffffffffffff0100", AVK_ERR_MALFORMED, 0, "array", SKIP_SAME);
    EXPECT_ERROR_HEX(pl, "ffffffffffffffffff010000", AVK_ERR_MALFORMED, 0, "array", SKIP_SAME);
    EXPECT_ERROR_HEX(pm, "ffffffffffffffffff010000", AVK_ERR_MALFORMED, 0, "map", SKIP_SAME);
    /* After a good block. */
    EXPECT_ERROR_HEX(pl, "0202" "ffffffffffffffffff01" "0000", AVK_ERR_MALFORMED, 2, "array",
                     SKIP_SAME);
    avk_plan_free(p);
    avk_plan_free(pl);
    avk_plan_free(pm);
    avk_schema_free(s);
    avk_schema_free(l);
    avk_schema_free(m);
}

static void test_zero_byte_floods(void **state)
{
    avk_schema *s = AVKT_PARSE("{'type': 'array', 'items': 'null'}");
    avk_schema *r =
        AVKT_PARSE("{'type': 'array', 'items': {'type': 'record', 'name': 'R', 'fields': "
                   "[{'name': 'n', 'type': 'null'}]}}");
    avk_schema *f0 =
        AVKT_PARSE("{'type': 'array', 'items': {'type': 'fixed', 'name': 'Z', 'size': 0}}");
    avk_schema *two = AVKT_PARSE("{'type': 'record', 'name': 'Two', 'fields': ["
                                 "{'name': 'a', 'type': {'type': 'array', 'items': 'null'}},"
                                 "{'name': 'b', 'type': {'type': 'array', 'items': 'null'}}]}");
    avk_schema *mp = AVKT_PARSE("{'type': 'array', 'items': {'type': 'map', 'values': 'null'}}");
    avk_limits lim;
    avk_plan *p = plan_of(avk_schema_root(s)), *p1000, *pr, *pf, *ptwo, *pm;
    bb b = {0};
    avkt_failalloc fa;
    (void)state;
    memset(&lim, 0, sizeof lim);
    lim.max_empty_items = 1000;
    p1000 = avkt_plan_new(avk_schema_root(s), 0, &lim, 0);
    pr = avkt_plan_new(avk_schema_root(r), 0, &lim, 0);
    pf = avkt_plan_new(avk_schema_root(f0), 0, &lim, 0);
    ptwo = avkt_plan_new(avk_schema_root(two), 0, &lim, 0);
    pm = avkt_plan_new(avk_schema_root(mp), 0, &lim, 0);

    /* 2^40 nulls: the default limits refuse them without a loop per item. */
    bb_long(&b, (int64_t)1 << 40);
    bb_long(&b, 0);
    EXPECT_ERROR(p, b.p, b.len, AVK_ERR_LIMIT, 0, "array", SKIP_SAME);
    bb_free(&b);
    /* 2^20 + 1 nulls: just past the default max_empty_items (1 Mi), far
     * below the default max_items. */
    bb_long(&b, ((int64_t)1 << 20) + 1);
    bb_long(&b, 0);
    EXPECT_ERROR(p, b.p, b.len, AVK_ERR_LIMIT, 0, "array", SKIP_SAME);
    bb_free(&b);
    /* Exactly the limit is fine, and the value takes no per-item memory. */
    {
        avk_arena_options ao;
        avk_arena *a = NULL;
        avk_value v;
        avk_error err;
        input in;
        avkt_failalloc_init(&fa, 0);
        memset(&ao, 0, sizeof ao);
        ao.struct_size = sizeof ao;
        ao.allocator = &fa.allocator;
        AVKT_OK(avk_arena_new(&ao, &a, &err));
        bb_long(&b, (int64_t)1 << 20);
        bb_long(&b, 0);
        input_open(&in, b.p, b.len, HOW_MEMORY);
        AVKT_OK(avk_plan_decode(p, &in.r, a, &v, &err));
        assert_int_equal(v.u.array.count, (size_t)1 << 20);
        assert_true(fa.peak_bytes < 64 * 1024);
        input_close(&in);
        avk_arena_free(a);
        bb_free(&b);
    }
    /* With max_empty_items 1000: 1000 pass, 1001 do not (py_io_plain_reads). */
    EXPECT_ERROR_HEX(p1000, "d20f00", AVK_ERR_LIMIT, 0, "array", SKIP_SAME);
    {
        avk_arena *a = arena_new();
        avk_value want;
        bb_hex(&b, "d00f00");
        value_of(&want, avk_schema_root(s), "[]", a);
        want.u.array.count = 1000;
        check_decodes_to(p1000, NULL, b.p, b.len, &want, "1000 nulls");
        avk_arena_free(a);
        bb_free(&b);
    }
    /* Spread over blocks: 600 then 600 (the second block's count). */
    EXPECT_ERROR_HEX(p1000, "b009b00900", AVK_ERR_LIMIT, 2, "array", SKIP_SAME);
    /* Sized blocks of zero bytes. */
    EXPECT_ERROR_HEX(p1000, "af0900af090000", AVK_ERR_LIMIT, 3, "array", SKIP_OK);
    /* Records of nulls, fixed(0), and two fields sharing one budget. */
    EXPECT_ERROR_HEX(pr, "a01f00", AVK_ERR_LIMIT, 0, "array", SKIP_SAME);
    EXPECT_ERROR_HEX(pf, "a01f00", AVK_ERR_LIMIT, 0, "array", SKIP_SAME);
    EXPECT_ERROR_HEX(ptwo, "b00900b00900", AVK_ERR_LIMIT, 3, "Two.fields[1]", SKIP_SAME);
    /* Empty maps inside an array: each costs a byte, so not a flood. */
    {
        bb_long(&b, 3000);
        {
            int i;
            for (i = 0; i < 3000; i++)
                bb_byte(&b, 0);
        }
        bb_long(&b, 0);
        {
            avk_arena *a = arena_new();
            avk_value v;
            avk_error err;
            input in;
            input_open(&in, b.p, b.len, HOW_MEMORY);
            AVKT_OK(avk_plan_decode(pm, &in.r, a, &v, &err));
            assert_int_equal(v.u.array.count, 3000);
            input_close(&in);
            avk_arena_free(a);
        }
        bb_free(&b);
    }
    avk_plan_free(p);
    avk_plan_free(p1000);
    avk_plan_free(pr);
    avk_plan_free(pf);
    avk_plan_free(ptwo);
    avk_plan_free(pm);
    avk_schema_free(s);
    avk_schema_free(r);
    avk_schema_free(f0);
    avk_schema_free(two);
    avk_schema_free(mp);
}

/* A linked list n nodes long, encoded. */
static void linked_list_bytes(bb *b, int n)
{
    int i;
    for (i = 0; i < n; i++) {
        bb_long(b, i);
        bb_long(b, i + 1 < n ? 1 : 0);
    }
}

static void test_depth_limit(void **state)
{
    avk_schema *s = AVKT_PARSE("{'type': 'record', 'name': 'LongList', 'fields': ["
                               "{'name': 'value', 'type': 'long'},"
                               "{'name': 'next', 'type': ['null', 'LongList']}]}");
    avk_schema *na = AVKT_PARSE("{'type': 'record', 'name': 'N', 'fields': ["
                                "{'name': 'kids', 'type': {'type': 'array', 'items': 'N'}}]}");
    avk_limits lim;
    avk_plan *p, *pn, *pdef = plan_of(avk_schema_root(s));
    bb b = {0};
    int how, i;
    (void)state;
    memset(&lim, 0, sizeof lim);
    lim.max_depth = 100;
    p = avkt_plan_new(avk_schema_root(s), 0, &lim, 0);
    pn = avkt_plan_new(avk_schema_root(na), 0, &lim, 0);

    /* 200 nodes: 400 levels of record and union. */
    linked_list_bytes(&b, 200);
    for (how = 0; how < HOW_STREAM_BIG; how++) {
        int op;
        for (op = 0; op < 2; op++) {
            input in;
            avk_arena *a = arena_new();
            avk_value v;
            avk_error err;
            input_open(&in, b.p, b.len, how);
            AVKT_ASSERT_STATUS(op ? avk_plan_skip(p, &in.r, &err)
                                  : avk_plan_decode(p, &in.r, a, &v, &err),
                               AVK_ERR_LIMIT);
            assert_int_equal(err.status, AVK_ERR_LIMIT);
            /* Node k's record is at depth 2k + 1: node 50's, at offset
             * 100 (2 bytes a node), is the 101st level. */
            AVKT_ASSERT_I64_EQ(err.offset, 100);
            /* The path is longer than the buffer: its innermost part. */
            {
                size_t pl = strlen(err.path);
                const char *tail = ".fields[1].branch[1]";
                assert_true(pl >= 200 && pl < AVK_ERROR_PATH_MAX);
                assert_string_equal(err.path + pl - strlen(tail), tail);
            }
            input_close(&in);
            avk_arena_free(a);
        }
    }
    /* 40 nodes fit in 100 levels. */
    bb_free(&b);
    linked_list_bytes(&b, 40);
    {
        input in;
        avk_arena *a = arena_new();
        avk_value v, *cur;
        avk_error err;
        input_open(&in, b.p, b.len, HOW_MEMORY);
        AVKT_OK(avk_plan_decode(p, &in.r, a, &v, &err));
        cur = &v;
        for (i = 0; i < 40; i++) {
            AVKT_ASSERT_I64_EQ(cur->u.fields[0].u.l, i);
            if (i + 1 < 40) {
                assert_int_equal(cur->u.fields[1].u.branch.index, 1);
                cur = cur->u.fields[1].u.branch.value;
            } else {
                assert_int_equal(cur->u.fields[1].u.branch.index, 0);
            }
        }
        input_close(&in);
        avk_arena_free(a);
        input_open(&in, b.p, b.len, HOW_MEMORY);
        AVKT_OK(avk_plan_skip(p, &in.r, &err));
        assert_int_equal(avk_reader_offset(&in.r), b.len);
        input_close(&in);
    }
    /* 100000 nodes (200001 levels) with the default limit: read whole, on
     * the test's own stack (deep_test does it on a 256 KiB one). */
    bb_free(&b);
    linked_list_bytes(&b, 100000);
    {
        input in;
        avk_arena *a = arena_new();
        avk_value v;
        avk_error err;
        input_open(&in, b.p, b.len, HOW_MEMORY);
        AVKT_OK(avk_plan_decode(pdef, &in.r, a, &v, &err));
        assert_int_equal(avk_reader_offset(&in.r), b.len);
        input_close(&in);
        input_open(&in, b.p, b.len, HOW_MEMORY);
        AVKT_OK(avk_plan_skip(pdef, &in.r, &err));
        assert_int_equal(avk_reader_offset(&in.r), b.len);
        input_close(&in);
        avk_arena_free(a);
    }
    /* Nested arrays: each level one N with one kid. */
    bb_free(&b);
    for (i = 0; i < 150; i++)
        bb_long(&b, 1);
    bb_long(&b, 0);
    for (i = 0; i < 150; i++)
        bb_long(&b, 0);
    {
        input in;
        avk_arena *a = arena_new();
        avk_value v;
        avk_error err;
        input_open(&in, b.p, b.len, HOW_MEMORY);
        AVKT_ASSERT_STATUS(avk_plan_decode(pn, &in.r, a, &v, &err), AVK_ERR_LIMIT);
        /* Record N at depth 2k + 1, its array at 2k + 2: N number 50 (one
         * byte a level) is the 101st. */
        AVKT_ASSERT_I64_EQ(err.offset, 50);
        input_close(&in);
        input_open(&in, b.p, b.len, HOW_MEMORY);
        AVKT_ASSERT_STATUS(avk_plan_skip(pn, &in.r, &err), AVK_ERR_LIMIT);
        AVKT_ASSERT_I64_EQ(err.offset, 50);
        input_close(&in);
        avk_arena_free(a);
    }
    bb_free(&b);
    avk_plan_free(p);
    avk_plan_free(pn);
    avk_plan_free(pdef);
    avk_schema_free(s);
    avk_schema_free(na);
}

static void test_size_limits(void **state)
{
    avk_schema *s = AVKT_PARSE("{'type': 'record', 'name': 'L', 'fields': ["
                               "{'name': 's', 'type': 'string'},"
                               "{'name': 'a', 'type': {'type': 'array', 'items': 'long'}},"
                               "{'name': 'm', 'type': {'type': 'map', 'values': 'int'}}]}");
    avk_schema *big = AVKT_PARSE("{'type': 'array', 'items': 'long'}");
    avk_schema *boxed = AVKT_PARSE("{'type': 'array', 'items': 'string'}");
    avk_limits lim;
    avk_plan *p, *pb, *px;
    bb b = {0};
    int i;
    (void)state;
    memset(&lim, 0, sizeof lim);
    lim.max_bytes = 4;
    lim.max_items = 3;
    p = avkt_plan_new(avk_schema_root(s), 0, &lim, 0);
    /* max_bytes: 4 passes, 5 does not (the bytes are all there). */
    {
        avk_arena *a = arena_new();
        avk_value want;
        bb_hex(&b, "0861626364" "06020406" "00" "06026102026202026302" "00");
        value_of(&want, avk_schema_root(s), "{\"s\": \"abcd\", \"a\": [1, 2, 3], "
                                            "\"m\": {\"a\": 1, \"b\": 1, \"c\": 1}}", a);
        check_decodes_to(p, NULL, b.p, b.len, &want, "at the limits");
        avk_arena_free(a);
        bb_free(&b);
    }
    EXPECT_ERROR_HEX(p, "0a6162636465" "00" "00", AVK_ERR_LIMIT, 0, "L.fields[0]", SKIP_SAME);
    /* max_items: 4 in one block, 2 + 2 in two (at the second count). */
    EXPECT_ERROR_HEX(p, "00" "0802040608" "00" "00", AVK_ERR_LIMIT, 1, "L.fields[1]", SKIP_SAME);
    EXPECT_ERROR_HEX(p, "00" "040204" "040608" "00" "00", AVK_ERR_LIMIT, 4, "L.fields[1]",
                     SKIP_SAME);
    EXPECT_ERROR_HEX(p, "00" "00" "08026102026202026302026402" "00", AVK_ERR_LIMIT, 2,
                     "L.fields[2]", SKIP_SAME);
    avk_plan_free(p);

    /* max_memory: 1000 longs take 8000 bytes of arena. */
    memset(&lim, 0, sizeof lim);
    lim.max_memory = 4096;
    pb = avkt_plan_new(avk_schema_root(big), 0, &lim, 0);
    px = avkt_plan_new(avk_schema_root(boxed), AVK_PLAN_COPY_STRINGS, &lim, 0);
    bb_long(&b, 1000);
    for (i = 0; i < 1000; i++)
        bb_long(&b, i);
    bb_long(&b, 0);
    {
        /* Where in the value the memory ran out is the decoder's choice:
         * status and path only; skip allocates nothing. */
        input in;
        avk_arena *a = arena_new();
        avk_value v;
        avk_error err;
        input_open(&in, b.p, b.len, HOW_MEMORY);
        AVKT_ASSERT_STATUS(avk_plan_decode(pb, &in.r, a, &v, &err), AVK_ERR_LIMIT);
        assert_string_equal(err.path, "array");
        input_close(&in);
        input_open(&in, b.p, b.len, HOW_STREAM_1);
        AVKT_ASSERT_STATUS(avk_plan_decode(pb, &in.r, a, &v, &err), AVK_ERR_LIMIT);
        assert_string_equal(err.path, "array");
        input_close(&in);
        input_open(&in, b.p, b.len, HOW_MEMORY);
        AVKT_OK(avk_plan_skip(pb, &in.r, &err));
        input_close(&in);
        avk_arena_free(a);
    }
    bb_free(&b);
    bb_long(&b, 100);
    for (i = 0; i < 100; i++)
        bb_long(&b, i);
    bb_long(&b, 0);
    {
        input in;
        avk_arena *a = arena_new();
        avk_value v;
        avk_error err;
        input_open(&in, b.p, b.len, HOW_MEMORY);
        AVKT_OK(avk_plan_decode(pb, &in.r, a, &v, &err)); /* 800 bytes: fine */
        input_close(&in);
        avk_arena_free(a);
    }
    bb_free(&b);
    /* 300 strings of 20 bytes copied: 300 avk_value plus 6300 bytes. */
    bb_long(&b, 300);
    for (i = 0; i < 300; i++)
        bb_str(&b, "01234567890123456789");
    bb_long(&b, 0);
    {
        input in;
        avk_arena *a = arena_new();
        avk_value v;
        avk_error err;
        input_open(&in, b.p, b.len, HOW_MEMORY);
        AVKT_ASSERT_STATUS(avk_plan_decode(px, &in.r, a, &v, &err), AVK_ERR_LIMIT);
        assert_int_equal(err.status, AVK_ERR_LIMIT);
        assert_true(strncmp(err.path, "array", 5) == 0);
        input_close(&in);
        avk_arena_free(a);
    }
    bb_free(&b);
    avk_plan_free(pb);
    avk_plan_free(px);
    avk_schema_free(s);
    avk_schema_free(big);
    avk_schema_free(boxed);
}

/* ---- allocation failures --------------------------------------------------------------- */

static const char *const complex_schema =
    "{'type': 'record', 'name': 'C', 'fields': ["
    "{'name': 's', 'type': 'string'}, {'name': 'b', 'type': 'bytes'},"
    "{'name': 'ai', 'type': {'type': 'array', 'items': 'int'}},"
    "{'name': 'as', 'type': {'type': 'array', 'items': 'string'}},"
    "{'name': 'm', 'type': {'type': 'map', 'values': {'type': 'array', 'items': 'double'}}},"
    "{'name': 'u', 'type': ['null', 'string', {'type': 'record', 'name': 'In', 'fields': ["
    "  {'name': 'x', 'type': 'long'}, {'name': 'f', 'type': {'type': 'fixed', 'name': 'F', "
    "'size': 4}}]}]},"
    "{'name': 'l', 'type': {'type': 'record', 'name': 'LongList', 'fields': ["
    "  {'name': 'value', 'type': 'long'}, {'name': 'next', 'type': ['null', 'LongList']}]}}]}";

static const char *const complex_value =
    "{'s': 'a string', 'b': {'$bytes_hex': '000102'}, 'ai': [1, 2, 3, 4, 5, 6, 7, 8],"
    " 'as': ['one', 'two', 'three', 'four', 'five', 'six'],"
    " 'm': {'x': [1.0, 2.0], 'y': [], 'z': [3.0]},"
    " 'u': {'x': 7, 'f': {'$bytes_hex': 'a1b2c3d4'}},"
    " 'l': {'value': 1, 'next': {'value': 2, 'next': {'value': 3, 'next': null}}}}";

/* complex_schema under a plan with flags, complex_value and its encoding. */
typedef struct complex_case {
    avk_schema *s;
    const avk_type *t;
    avk_plan *p;
    avk_arena *va; /* holds want */
    avk_value want;
    uint8_t *enc;
    size_t n;
} complex_case;

static void complex_open(complex_case *c, unsigned flags)
{
    c->s = AVKT_PARSE(complex_schema);
    c->t = avk_schema_root(c->s);
    c->p = avkt_plan_new(c->t, flags, NULL, 0);
    c->va = arena_new();
    value_of(&c->want, c->t, avkt_q(complex_value), c->va);
    c->enc = encode_at(c->p, &c->want, &c->n, "complex");
}

static void complex_close(complex_case *c)
{
    free(c->enc);
    avk_arena_free(c->va);
    avk_plan_free(c->p);
    avk_schema_free(c->s);
}

static void test_failing_allocator(void **state)
{
    complex_case c;
    int how;
    (void)state;
    complex_open(&c, AVK_PLAN_COPY_STRINGS);
    for (how = 0; how < HOW_STREAM_BIG; how++) {
        long k;
        int oks = 0;
        for (k = 1;; k++) {
            avkt_failalloc fa;
            avk_arena_options ao;
            avk_arena *a = NULL;
            avk_value v;
            avk_error err;
            avk_status st;
            input in;
            avkt_failalloc_init(&fa, k);
            memset(&ao, 0, sizeof ao);
            ao.struct_size = sizeof ao;
            ao.allocator = &fa.allocator;
            ao.block_size = 64; /* many blocks: many allocations to fail */
            st = avk_arena_new(&ao, &a, &err);
            if (st != AVK_OK) {
                AVKT_ASSERT_STATUS(st, AVK_ERR_NO_MEMORY);
                continue;
            }
            input_open(&in, c.enc, c.n, how);
            memset(&err, 0, sizeof err);
            st = avk_plan_decode(c.p, &in.r, a, &v, &err);
            if (st == AVK_OK) {
                assert_same_value(&v, &c.want, "decode under a failing allocator");
                oks++;
            } else {
                AVKT_ASSERT_STATUS(st, AVK_ERR_NO_MEMORY);
                assert_int_equal(err.status, AVK_ERR_NO_MEMORY);
            }
            input_close(&in);
            avk_arena_free(a);
            assert_int_equal(fa.live_blocks, 0);
            assert_int_equal(fa.size_mismatches, 0);
            assert_int_equal(fa.bad_frees, 0);
            if (fa.failures == 0)
                break;
            assert_true(k < 10000);
        }
        print_message("decode [%s]: %ld allocation failure runs\n", how_names[how], k);
        assert_true(oks >= 1);
        assert_true(k > 3);
    }
    /* The plan's own allocations. */
    {
        long k;
        for (k = 1;; k++) {
            avkt_failalloc fa;
            avk_plan_options o;
            avk_plan *pp = NULL;
            avk_error err;
            avk_status st;
            avkt_failalloc_init(&fa, k);
            memset(&o, 0, sizeof o);
            o.struct_size = sizeof o;
            o.allocator = &fa.allocator;
            st = avk_plan_new(c.t, &o, &pp, &err);
            if (st == AVK_OK) {
                avk_arena *a = arena_new();
                avk_value v;
                input in;
                input_open(&in, c.enc, c.n, HOW_MEMORY);
                AVKT_OK(avk_plan_decode(pp, &in.r, a, &v, &err));
                assert_same_value(&v, &c.want, "decode with a plan made under a failing allocator");
                input_close(&in);
                avk_arena_free(a);
                avk_plan_free(pp);
            } else {
                AVKT_ASSERT_STATUS(st, AVK_ERR_NO_MEMORY);
                assert_null(pp);
            }
            assert_int_equal(fa.live_blocks, 0);
            if (fa.failures == 0)
                break;
            assert_true(k < 10000);
        }
        print_message("plan: %ld allocation failure runs\n", k);
    }
    complex_close(&c);
}

/* After warm-up, decoding record after record into a reset arena calls
 * the allocator no more. */
static void test_no_allocation_after_warmup(void **state)
{
    complex_case c;
    avk_arena *a = arena_new();
    avk_value v;
    size_t calls = 0;
    int i;
    (void)state;
    complex_open(&c, AVK_PLAN_COPY_STRINGS);
    for (i = 0; i < 100; i++) {
        avk_reader r;
        avk_error err;
        avk_arena_reset(a);
        avk_reader_init_memory(&r, c.enc, c.n);
        AVKT_OK(avk_plan_decode(c.p, &r, a, &v, &err));
        if (i == 2)
            calls = avk_arena_allocations(a);
    }
    assert_same_value(&v, &c.want, "after 100 decodes");
    assert_int_equal(avk_arena_allocations(a), calls);
    avk_arena_free(a);
    complex_close(&c);
}

/* ---- skip ------------------------------------------------------------------------------ */

/* Sized blocks are jumped over without looking inside: their bytes may be
 * anything. */
static void test_skip_sized_blocks_unread(void **state)
{
    avk_schema *s = AVKT_PARSE("{'type': 'record', 'name': 'S', 'fields': ["
                               "{'name': 'a', 'type': {'type': 'array', 'items': 'string'}},"
                               "{'name': 'm', 'type': {'type': 'map', 'values': ['null', 'long']}},"
                               "{'name': 'z', 'type': 'int'}]}");
    avk_plan *p = plan_of(avk_schema_root(s));
    bb b = {0}, junk = {0};
    input in;
    avk_error err;
    int i;
    (void)state;
    for (i = 0; i < 7; i++)
        bb_byte(&junk, 0xff); /* not even a varint */
    bb_sized_block(&b, 3, &junk);
    bb_sized_block(&b, 1000000, &junk); /* a count the bytes could not hold */
    bb_long(&b, 0);
    bb_sized_block(&b, 2, &junk);
    bb_long(&b, 0);
    bb_long(&b, 42);
    input_open(&in, b.p, b.len, HOW_MEMORY);
    AVKT_OK(avk_plan_skip(p, &in.r, &err));
    assert_int_equal(avk_reader_offset(&in.r), b.len);
    input_close(&in);
    input_open(&in, b.p, b.len, HOW_STREAM_1);
    AVKT_OK(avk_plan_skip(p, &in.r, &err));
    assert_int_equal(avk_reader_offset(&in.r), b.len);
    input_close(&in);
    /* The decoder reads them and refuses. */
    EXPECT_ERROR(p, b.p, b.len, AVK_ERR_MALFORMED, 11, "S.fields[0].items[0]", SKIP_OK);
    bb_free(&b);
    bb_free(&junk);
    avk_plan_free(p);
    avk_schema_free(s);
}

/* A sized block whose byte size disagrees with its items is malformed:
 * otherwise decode and skip would both succeed yet end at different
 * places (found by fuzz_decode). Reported at the block's count. */
/* Records, arrays and maps of leaves run without frames of their own: an
 * error inside them still has its whole path, through unions too. */
static void test_paths_through_inline_values(void **state)
{
    avk_schema *s = AVKT_PARSE(
        "{'type': 'record', 'name': 'R', 'fields': ["
        " {'name': 'ps', 'type': {'type': 'array', 'items': ['null', {'type': 'record',"
        "  'name': 'P', 'fields': [{'name': 'a', 'type': 'int'}, {'name': 'b', 'type': "
        "  ['null', 'string']}]}]}},"
        " {'name': 'm', 'type': ['null', {'type': 'map', 'values': ['null', 'boolean']}]},"
        " {'name': 'q', 'type': ['null', 'P']}]}");
    avk_plan *p = plan_of(avk_schema_root(s));
    (void)state;
    /* ps: one item, branch 1 (P): a = 1, b = branch 1, string of -1 bytes. */
    EXPECT_ERROR_HEX(p, "02" "02" "02" "02" "01", AVK_ERR_MALFORMED, 4,
                     "R.fields[0].items[0].branch[1].fields[1].branch[1]", SKIP_SAME);
    /* m: branch 1, one entry "k" -> branch 1, boolean byte 2. */
    EXPECT_ERROR_HEX(p, "00" "02" "02" "026b" "02" "02", AVK_ERR_MALFORMED, 6,
                     "R.fields[1].branch[1].values[0].branch[1]", SKIP_SAME);
    /* q: branch 1 (P): a is a varint of 6 bytes. */
    EXPECT_ERROR_HEX(p, "00" "00" "02" "ffffffffff7f", AVK_ERR_MALFORMED, 3,
                     "R.fields[2].branch[1].fields[0]", SKIP_SAME);
    avk_plan_free(p);
    avk_schema_free(s);
}

static void test_block_size_mismatch(void **state)
{
    avk_schema *s = AVKT_PARSE("{'type': 'array', 'items': 'long'}");
    avk_schema *m = AVKT_PARSE("{'type': 'map', 'values': 'int'}");
    avk_schema *r = AVKT_PARSE("{'type': 'record', 'name': 'R', 'fields': [{'name': 'a', 'type': "
                               "{'type': 'array', 'items': {'type': 'array', 'items': 'int'}}}]}");
    avk_plan *p = plan_of(avk_schema_root(s)), *pm = plan_of(avk_schema_root(m)),
             *pr = plan_of(avk_schema_root(r));
    (void)state;
    /* Size 3, items take 2 (skip trusts the size and reads on). */
    EXPECT_ERROR_HEX(p, "0306" "0204" "00" "00", AVK_ERR_MALFORMED, 0, "array", SKIP_OK);
    /* Size 1, items take 2. */
    EXPECT_ERROR_HEX(p, "0302" "0204" "00", AVK_ERR_MALFORMED, 0, "array", SKIP_NONE);
    /* After a good sized block. */
    EXPECT_ERROR_HEX(p, "0102" "02" "0104" "0202" "00", AVK_ERR_MALFORMED, 3, "array", SKIP_OK);
    EXPECT_ERROR_HEX(pm, "010a" "026102" "0000" "00", AVK_ERR_MALFORMED, 0, "map", SKIP_OK);
    /* An inner sized block inside an outer one: the inner's lie. */
    EXPECT_ERROR_HEX(pr, "02" "0106" "02" "00" "00", AVK_ERR_MALFORMED, 1, "R.fields[0].items[0]",
                     SKIP_NONE);
    avk_plan_free(p);
    avk_plan_free(pm);
    avk_plan_free(pr);
    avk_schema_free(s);
    avk_schema_free(m);
    avk_schema_free(r);
}

/* Skipping a value leaves the reader on the next one, for every kind. */
static void test_skip_then_read(void **state)
{
    static const struct {
        const char *schema, *json;
    } cases[] = {
        {"'null'", "null"},
        {"'boolean'", "true"},
        {"'int'", "-2147483648"},
        {"'long'", "{'$long': '-9223372036854775808'}"},
        {"'float'", "1.5"},
        {"'double'", "2.5"},
        {"'bytes'", "{'$bytes_hex': '0001'}"},
        {"'string'", "'str'"},
        {"{'type': 'enum', 'name': 'E', 'symbols': ['A', 'B', 'C']}", "'C'"},
        {"{'type': 'fixed', 'name': 'F', 'size': 7}", "{'$bytes_hex': '01020304050607'}"},
        {"{'type': 'array', 'items': 'double'}", "[1.0, 2.0, 3.0]"},
        {"{'type': 'array', 'items': 'boolean'}", "[true, false]"},
        {"{'type': 'array', 'items': {'type': 'array', 'items': 'string'}}", "[['a'], [], ['b', 'c']]"},
        {"{'type': 'map', 'values': ['null', {'type': 'map', 'values': 'long'}]}",
         "{'a': null, 'b': {'c': 1}}"},
        {"['null', 'int', 'string']", "'x'"},
        {"{'type': 'record', 'name': 'R', 'fields': [{'name': 'a', 'type': 'int'}, "
         "{'name': 'b', 'type': {'type': 'fixed', 'name': 'F2', 'size': 2}}]}",
         "{'a': 1, 'b': {'$bytes_hex': 'ffff'}}"},
    };
    size_t c;
    (void)state;
    for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        avk_schema *s = AVKT_PARSE(cases[c].schema);
        avk_schema *tail = AVKT_PARSE("'long'");
        avk_plan *p = plan_of(avk_schema_root(s)), *pt;
        avk_arena *a = arena_new();
        avk_value v;
        uint8_t *enc;
        size_t n;
        int how, bs;
        value_of(&v, avk_schema_root(s), avkt_q(cases[c].json), a);
        pt = plan_of(avk_schema_root(tail));
        for (bs = 0; bs < 2; bs++) {
            avk_plan *ep =
                bs ? avkt_plan_new(avk_schema_root(s), AVK_PLAN_BLOCK_SIZES, NULL, 1) : p;
            bb b = {0};
            enc = encode_at(ep, &v, &n, cases[c].json);
            bb_put(&b, enc, n);
            bb_long(&b, 123456789);
            for (how = 0; how < HOW_COUNT; how++) {
                input in;
                avk_error err;
                int64_t x = 0;
                input_open(&in, b.p, b.len, how);
                AVKT_OK(avk_plan_skip(p, &in.r, &err));
                AVKT_ASSERT_I64_EQ(avk_reader_offset(&in.r), n);
                AVKT_OK(avk_reader_read_long(&in.r, &x, &err));
                AVKT_ASSERT_I64_EQ(x, 123456789);
                input_close(&in);
            }
            free(enc);
            bb_free(&b);
            if (bs)
                avk_plan_free(ep);
        }
        avk_arena_free(a);
        avk_plan_free(p);
        avk_plan_free(pt);
        avk_schema_free(s);
        avk_schema_free(tail);
    }
}

/* ---- several values in one input ------------------------------------------------------ */

static void test_value_after_value(void **state)
{
    complex_case c;
    bb b = {0};
    int i, how;
    (void)state;
    complex_open(&c, 0);
    for (i = 0; i < 50; i++)
        bb_put(&b, c.enc, c.n);
    for (how = 0; how < HOW_COUNT; how++) {
        input in;
        avk_arena *a = arena_new();
        input_open(&in, b.p, b.len, how);
        for (i = 0; i < 50; i++) {
            avk_value v;
            avk_error err;
            avk_arena_reset(a);
            if (i % 3 == 2) {
                AVKT_OK(avk_plan_skip(c.p, &in.r, &err));
            } else {
                AVKT_OK(avk_plan_decode(c.p, &in.r, a, &v, &err));
                assert_same_value(&v, &c.want, "value after value");
            }
            AVKT_ASSERT_I64_EQ(avk_reader_offset(&in.r), (uint64_t)(i + 1) * c.n);
        }
        {
            int at_end = 0;
            avk_error err;
            AVKT_OK(avk_reader_at_end(&in.r, &at_end, &err));
            assert_true(at_end);
        }
        input_close(&in);
        avk_arena_free(a);
    }
    bb_free(&b);
    complex_close(&c);
}

/* A stream source that fails: IO from decode and skip. */
static void test_io_error(void **state)
{
    complex_case c;
    size_t after;
    (void)state;
    complex_open(&c, 0);
    for (after = 0; after < c.n; after += 7) {
        int op;
        for (op = 0; op < 2; op++) {
            avkt_source src;
            avk_reader r;
            avk_reader_options o;
            avk_arena *a = arena_new();
            avk_value v;
            avk_error err;
            avk_status st;
            memset(&o, 0, sizeof o);
            o.struct_size = sizeof o;
            o.buffer_size = 64;
            avkt_source_init_failing(&src, c.enc, c.n, 5, after, AVK_ERR_IO);
            AVKT_OK(avk_reader_init_source(&r, avkt_source_read, &src, &o, &err));
            st = op ? avk_plan_skip(c.p, &r, &err) : avk_plan_decode(c.p, &r, a, &v, &err);
            AVKT_ASSERT_STATUS(st, AVK_ERR_IO);
            assert_int_equal(err.status, AVK_ERR_IO);
            avk_reader_destroy(&r);
            avk_arena_free(a);
        }
    }
    complex_close(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(avkt_test_kernel_choice),
        cmocka_unit_test(test_interop_schema_datum_binary),
        cmocka_unit_test(test_interop_plain_reads),
        cmocka_unit_test(test_roundtrip_primitives),
        cmocka_unit_test(test_roundtrip_long_strings),
        cmocka_unit_test(test_roundtrip_named),
        cmocka_unit_test(test_roundtrip_arrays),
        cmocka_unit_test(test_roundtrip_big_typed_arrays),
        cmocka_unit_test(test_roundtrip_maps),
        cmocka_unit_test(test_roundtrip_unions),
        cmocka_unit_test(test_roundtrip_recursive),
        cmocka_unit_test(test_roundtrip_logical),
        cmocka_unit_test(test_multiblock_typed_arrays),
        cmocka_unit_test(test_multiblock_boxed),
        cmocka_unit_test(test_encode_block_layout),
        cmocka_unit_test(test_views_and_copies),
        cmocka_unit_test(test_truncated_every_prefix),
        cmocka_unit_test(test_truncated_sized_blocks),
        cmocka_unit_test(test_lengths_beyond_input),
        cmocka_unit_test(test_negative_lengths),
        cmocka_unit_test(test_index_out_of_range),
        cmocka_unit_test(test_boolean_bytes),
        cmocka_unit_test(test_utf8),
        cmocka_unit_test(test_bad_varints),
        cmocka_unit_test(test_block_count_int64_min),
        cmocka_unit_test(test_zero_byte_floods),
        cmocka_unit_test(test_depth_limit),
        cmocka_unit_test(test_size_limits),
        cmocka_unit_test(test_failing_allocator),
        cmocka_unit_test(test_no_allocation_after_warmup),
        cmocka_unit_test(test_skip_sized_blocks_unread),
        cmocka_unit_test(test_block_size_mismatch),
        cmocka_unit_test(test_paths_through_inline_values),
        cmocka_unit_test(test_skip_then_read),
        cmocka_unit_test(test_value_after_value),
        cmocka_unit_test(test_io_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
