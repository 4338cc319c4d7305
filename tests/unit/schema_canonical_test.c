/* Unit tests for canonical form, fingerprints, full JSON writing and equality of schemas. */
#define _DEFAULT_SOURCE 1
#include <dirent.h>
#include <nettle/md5.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "avkt.h"
#include "io.h"
#include "json/json.h"
#include "schema/schema_internal.h"

#ifndef AVK_INTEROP_DIR
#define AVK_INTEROP_DIR ""
#endif

/* ---- helpers ------------------------------------------------------------------- */

#define RABIN_EMPTY 0xc15d213aa4d7a795ULL

/* The specification's fingerprint64, bit by bit, with the table built by
 * its initFPTable loop: the reference the library's table is checked
 * against. */
static uint64_t ref_rabin(const uint8_t *p, size_t len)
{
    static uint64_t table[256];
    static int ready;
    uint64_t fp = RABIN_EMPTY;
    size_t i;
    if (!ready) {
        for (i = 0; i < 256; i++) {
            uint64_t v = i;
            int j;
            for (j = 0; j < 8; j++)
                v = (v >> 1) ^ (RABIN_EMPTY & (0 - (v & 1)));
            table[i] = v;
        }
        ready = 1;
    }
    for (i = 0; i < len; i++)
        fp = (fp >> 8) ^ table[(fp ^ p[i]) & 0xff];
    return fp;
}

/* The canonical form (or full JSON when json is set, pretty as given) as a
 * NUL-terminated malloc'd string. */
static char *render(const avk_type *t, int json, int pretty)
{
    avk_writer w;
    avk_error err;
    const uint8_t *data;
    size_t len;
    char *s;
    avk_status st;
    AVKT_OK(avk_writer_init_memory(&w, NULL, NULL));
    st = json ? avk_type_write_json(t, pretty, &w, &err) : avk_type_write_canonical(t, &w, &err);
    if (st != AVK_OK)
        fail_msg("writing the schema failed: %s: %s", avk_status_name(st), err.message);
    data = avk_writer_data(&w, &len);
    s = (char *)malloc(len + 1);
    assert_non_null(s);
    memcpy(s, data, len);
    s[len] = '\0';
    avk_writer_destroy(&w);
    return s;
}

static char *canonical(const avk_type *t)
{
    return render(t, 0, 0);
}

static void assert_canonical(const avk_type *t, const char *want)
{
    char *got = canonical(t);
    assert_string_equal(got, want);
    free(got);
}

static void assert_json(const avk_type *t, int pretty, const char *want)
{
    char *got = render(t, 1, pretty);
    assert_string_equal(got, want);
    free(got);
}

static avk_schema *parse_or_fail(const char *json, size_t len, const char *what)
{
    avk_schema *s = NULL;
    avk_error err;
    avk_status st = avk_schema_parse(json, len, NULL, &s, &err);
    if (st != AVK_OK)
        fail_msg("%s: parse failed: %s: %s\n%.*s", what, avk_status_name(st), err.message,
                 (int)(len > 2000 ? 2000 : len), json);
    return s;
}

/* As parse_or_fail, but a rejected input is printed and counted in
 * *rejected, and NULL returned, so that one parser error does not hide the
 * results for the other inputs. */
static avk_schema *parse_or_note(const char *json, size_t len, const char *what, int *rejected)
{
    avk_schema *s = NULL;
    avk_error err;
    avk_status st = avk_schema_parse(json, len, NULL, &s, &err);
    if (st == AVK_OK)
        return s;
    print_message("PARSER REJECTS %s: %s: %s\n", what, avk_status_name(st), err.message);
    (*rejected)++;
    return NULL;
}

static avk_schema *parse_str(const char *json)
{
    return parse_or_fail(json, strlen(json), json);
}

static void hex_of(const uint8_t *p, size_t n, char *out)
{
    static const char hex[] = "0123456789abcdef";
    size_t i;
    for (i = 0; i < n; i++) {
        out[2 * i] = hex[p[i] >> 4];
        out[2 * i + 1] = hex[p[i] & 15];
    }
    out[2 * n] = '\0';
}

static void fingerprint_hex(const avk_type *t, avk_fingerprint_algo algo, size_t want_len,
                            char *out)
{
    uint8_t fp[32];
    size_t len = 0;
    avk_error err;
    memset(fp, 0xee, sizeof fp);
    AVKT_OK(avk_type_fingerprint(t, algo, fp, &len, &err));
    assert_int_equal(len, want_len);
    hex_of(fp, len, out);
}

/* ---- hand-built schemas (no parser needed) --------------------------------------- */

static avk_type node(avk_kind kind)
{
    avk_type t;
    memset(&t, 0, sizeof t);
    t.kind = kind;
    t.enum_default = -1;
    return t;
}

static void named(avk_type *t, const char *name, const char *space, const char *fullname)
{
    t->name = name;
    t->space = space;
    t->fullname = fullname;
}

static avk_field field(const char *name, const avk_type *type, size_t index)
{
    avk_field f;
    memset(&f, 0, sizeof f);
    f.name = name;
    f.type = type;
    f.index = index;
    f.order = AVK_ORDER_ASCENDING;
    return f;
}

/* A record a.b.Node using every kind and most attributes:
 *   label: string with doc, default, order, aliases and a property
 *   children: array of a.b.Node (recursion)
 *   kind: enum a.b.Kind with doc and default
 *   hash: fixed MD5 in the null namespace (inside a namespaced record)
 *   dec: bytes with logical type decimal(4, 2) and a property
 *   u: union of null, a.b.Kind again, and a map of {"type": "int"} */
typedef struct big_schema {
    avk_type rec, str, arr, kind, md5, dec, un, nul, map, intobj;
    avk_field fields[6];
    const avk_type *branches[3];
    avki_prop dec_props[1], label_props[1];
} big_schema;

static const char *big_rec_aliases[] = {"a.b.Old"};
static const char *big_label_aliases[] = {"lbl"};
static const char *big_symbols[] = {"A", "B"};

static void build_big(big_schema *s)
{
    memset(s, 0, sizeof *s);
    s->str = node(AVK_STRING);
    s->str.bare = 1;
    s->nul = node(AVK_NULL);
    s->nul.bare = 1;
    s->intobj = node(AVK_INT); /* written as {"type": "int"} */

    s->rec = node(AVK_RECORD);
    named(&s->rec, "Node", "a.b", "a.b.Node");
    s->rec.doc = "A \"node\" \\ \xc3\xa9";
    s->rec.aliases = big_rec_aliases;
    s->rec.alias_count = 1;

    s->arr = node(AVK_ARRAY);
    s->arr.items = &s->rec;

    s->kind = node(AVK_ENUM);
    named(&s->kind, "Kind", "a.b", "a.b.Kind");
    s->kind.doc = "kinds";
    s->kind.symbols = big_symbols;
    s->kind.symbol_count = 2;
    s->kind.enum_default = 1;

    s->md5 = node(AVK_FIXED);
    named(&s->md5, "MD5", "", "MD5");
    s->md5.size = 16;

    s->dec = node(AVK_BYTES);
    s->dec.logical = AVK_LOGICAL_DECIMAL;
    s->dec.precision = 4;
    s->dec.scale = 2;
    s->dec_props[0].key = "cp";
    s->dec_props[0].json = "[1,2]";
    s->dec.props = s->dec_props;
    s->dec.prop_count = 1;

    s->map = node(AVK_MAP);
    s->map.items = &s->intobj;

    s->un = node(AVK_UNION);
    s->branches[0] = &s->nul;
    s->branches[1] = &s->kind;
    s->branches[2] = &s->map;
    s->un.branches = s->branches;
    s->un.branch_count = 3;

    s->fields[0] = field("label", &s->str, 0);
    s->fields[0].doc = "the label";
    s->fields[0].default_json = "\"x\"";
    s->fields[0].order = AVK_ORDER_DESCENDING;
    s->fields[0].aliases = big_label_aliases;
    s->fields[0].alias_count = 1;
    s->label_props[0].key = "f_prop";
    s->label_props[0].json = "true";
    s->fields[0].props = s->label_props;
    s->fields[0].prop_count = 1;
    s->fields[1] = field("children", &s->arr, 1);
    s->fields[2] = field("kind", &s->kind, 2);
    s->fields[3] = field("hash", &s->md5, 3);
    s->fields[4] = field("dec", &s->dec, 4);
    s->fields[5] = field("u", &s->un, 5);
    s->fields[5].default_json = "null";
    s->rec.fields = s->fields;
    s->rec.field_count = 6;
}

static const char big_canonical[] =
    "{\"name\":\"a.b.Node\",\"type\":\"record\",\"fields\":["
    "{\"name\":\"label\",\"type\":\"string\"},"
    "{\"name\":\"children\",\"type\":{\"type\":\"array\",\"items\":\"a.b.Node\"}},"
    "{\"name\":\"kind\",\"type\":{\"name\":\"a.b.Kind\",\"type\":\"enum\",\"symbols\":[\"A\",\"B\"]}},"
    "{\"name\":\"hash\",\"type\":{\"name\":\"MD5\",\"type\":\"fixed\",\"size\":16}},"
    "{\"name\":\"dec\",\"type\":\"bytes\"},"
    "{\"name\":\"u\",\"type\":[\"null\",\"a.b.Kind\",{\"type\":\"map\",\"values\":\"int\"}]}]}";

static const char big_json[] =
    "{\"type\":\"record\",\"name\":\"a.b.Node\",\"doc\":\"A \\\"node\\\" \\\\ \xc3\xa9\","
    "\"aliases\":[\"a.b.Old\"],\"fields\":["
    "{\"name\":\"label\",\"type\":\"string\",\"doc\":\"the label\",\"default\":\"x\","
    "\"order\":\"descending\",\"aliases\":[\"lbl\"],\"f_prop\":true},"
    "{\"name\":\"children\",\"type\":{\"type\":\"array\",\"items\":\"a.b.Node\"}},"
    "{\"name\":\"kind\",\"type\":{\"type\":\"enum\",\"name\":\"a.b.Kind\",\"doc\":\"kinds\","
    "\"symbols\":[\"A\",\"B\"],\"default\":\"B\"}},"
    "{\"name\":\"hash\",\"type\":{\"type\":\"fixed\",\"name\":\"MD5\",\"namespace\":\"\",\"size\":16}},"
    "{\"name\":\"dec\",\"type\":{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":4,"
    "\"scale\":2,\"cp\":[1,2]}},"
    "{\"name\":\"u\",\"type\":[\"null\",\"a.b.Kind\",{\"type\":\"map\",\"values\":{\"type\":\"int\"}}],"
    "\"default\":null}]}";

/* ---- CRC-64-AVRO --------------------------------------------------------------- */

static void test_rabin_table_and_empty(void **state)
{
    uint8_t b;
    unsigned i;
    (void)state;
    /* The fingerprint of no bytes is EMPTY; one byte reaches table entry
     * (EMPTY ^ b) & 0xff, so the 256 single bytes check the whole table. */
    assert_true(avk_rabin64(NULL, 0) == RABIN_EMPTY);
    assert_true(avk_rabin64("", 0) == RABIN_EMPTY);
    for (i = 0; i < 256; i++) {
        b = (uint8_t)i;
        assert_true(avk_rabin64(&b, 1) == ref_rabin(&b, 1));
    }
}

static void test_rabin_random(void **state)
{
    avkt_rng rng = {42};
    uint8_t buf[1000];
    size_t i, len;
    (void)state;
    for (i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)avkt_next(&rng);
    for (len = 0; len <= sizeof buf; len += 1 + len / 3)
        assert_true(avk_rabin64(buf, len) == ref_rabin(buf, len));
}

static void test_rabin_spec_values(void **state)
{
    /* Canonical forms and fingerprints from share/test/data/schema-tests.txt. */
    static const struct {
        const char *text;
        int64_t fp;
    } rows[] = {
        {"\"null\"", 7195948357588979594LL},
        {"\"boolean\"", -6970731678124411036LL},
        {"\"int\"", 8247732601305521295LL},
        {"\"long\"", -3434872931120570953LL},
        {"\"float\"", 5583340709985441680LL},
        {"\"double\"", -8181574048448539266LL},
        {"\"bytes\"", 5746618253357095269LL},
        {"\"string\"", -8142146995180207161LL},
        {"[]", -1241056759729112623LL},
        {"{\"name\":\"foo\",\"type\":\"record\",\"fields\":[]}", -4824392279771201922LL},
        {"{\"name\":\"foo\",\"type\":\"fixed\",\"size\":15}", 1756455273707447556LL},
        {"{\"type\":\"map\",\"values\":\"string\"}", -8732877298790414990LL},
    };
    size_t i;
    (void)state;
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++)
        AVKT_ASSERT_I64_EQ((int64_t)avk_rabin64(rows[i].text, strlen(rows[i].text)), rows[i].fp);
}

/* ---- canonical form of hand-built schemas ------------------------------------------ */

static void test_canonical_primitives(void **state)
{
    static const char *const names[] = {"\"null\"",   "\"boolean\"", "\"int\"",   "\"long\"",
                                        "\"float\"",  "\"double\"",  "\"bytes\"", "\"string\""};
    int k;
    (void)state;
    for (k = AVK_NULL; k <= AVK_STRING; k++) {
        /* Bare or not, with a logical type and properties or not: [PRIMITIVES], [STRIP]. */
        avk_type t = node((avk_kind)k);
        avki_prop p = {"x", "1", NULL};
        assert_canonical(&t, names[k]);
        t.bare = 1;
        assert_canonical(&t, names[k]);
        t.bare = 0;
        t.logical = AVK_LOGICAL_DATE;
        t.props = &p;
        t.prop_count = 1;
        assert_canonical(&t, names[k]);
    }
}

static void test_canonical_big(void **state)
{
    big_schema s;
    (void)state;
    build_big(&s);
    assert_canonical(&s.rec, big_canonical);
    /* A subtree is self-contained: a.b.Kind written in full at its first
     * appearance within the subtree. */
    assert_canonical(&s.un, "[\"null\",{\"name\":\"a.b.Kind\",\"type\":\"enum\",\"symbols\":"
                            "[\"A\",\"B\"]},{\"type\":\"map\",\"values\":\"int\"}]");
    /* Writing twice gives the same text: nothing is remembered between calls. */
    assert_canonical(&s.rec, big_canonical);
}

static void test_canonical_error_record_and_empty(void **state)
{
    avk_type e = node(AVK_RECORD), u = node(AVK_UNION), en = node(AVK_ENUM);
    (void)state;
    named(&e, "Oops", "x", "x.Oops");
    e.is_error = 1;
    /* As Java's SchemaNormalization: an error is written as a record. */
    assert_canonical(&e, "{\"name\":\"x.Oops\",\"type\":\"record\",\"fields\":[]}");
    assert_canonical(&u, "[]");
    named(&en, "E", "", "E");
    assert_canonical(&en, "{\"name\":\"E\",\"type\":\"enum\",\"symbols\":[]}");
}

static void test_canonical_string_escapes(void **state)
{
    /* [STRINGS]: UTF-8 kept as is; only what JSON cannot hold literally is escaped. */
    static const char *symbols[] = {"a\"b\\c\n\x01\x1f \xc3\xa9/"};
    avk_type en = node(AVK_ENUM);
    (void)state;
    named(&en, "E", "", "E");
    en.symbols = symbols;
    en.symbol_count = 1;
    assert_canonical(&en, "{\"name\":\"E\",\"type\":\"enum\",\"symbols\":"
                          "[\"a\\\"b\\\\c\\n\\u0001\\u001f \xc3\xa9/\"]}");
}

static void test_canonical_many_named(void **state)
{
    /* More named types than the inline set holds: the set grows, and each
     * later reference is a name. */
    enum { N = 300 };
    static avk_type fixeds[N], rec, un;
    static avk_field fields[2 * N];
    static const avk_type *branches[N];
    static char names[N][16];
    avk_writer w;
    const uint8_t *data;
    size_t len, i;
    char *text, *want, *p;
    (void)state;
    for (i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "F%zu", i);
        fixeds[i] = node(AVK_FIXED);
        named(&fixeds[i], names[i], "", names[i]);
        fixeds[i].size = i + 1;
        fields[i] = field(names[i], &fixeds[i], i);
        branches[i] = &fixeds[i];
    }
    un = node(AVK_UNION);
    un.branches = branches;
    un.branch_count = N;
    for (i = 0; i < N; i++)
        fields[N + i] = field(names[i], &un, N + i);
    rec = node(AVK_RECORD);
    named(&rec, "R", "", "R");
    rec.fields = fields;
    rec.field_count = 2 * N;
    text = canonical(&rec);
    want = (char *)malloc((size_t)N * N * 8 + (size_t)N * 100 + 100);
    assert_non_null(want);
    p = want + sprintf(want, "{\"name\":\"R\",\"type\":\"record\",\"fields\":[");
    for (i = 0; i < N; i++)
        p += sprintf(p, "%s{\"name\":\"F%zu\",\"type\":{\"name\":\"F%zu\",\"type\":\"fixed\",\"size\":%zu}}",
                     i ? "," : "", i, i, i + 1);
    for (i = 0; i < N; i++) {
        size_t k;
        p += sprintf(p, ",{\"name\":\"F%zu\",\"type\":[", i);
        for (k = 0; k < N; k++)
            p += sprintf(p, "%s\"F%zu\"", k ? "," : "", k);
        p += sprintf(p, "]}");
    }
    sprintf(p, "]}");
    assert_string_equal(text, want);

    /* Fingerprints of a form far larger than the fingerprint's buffer. */
    AVKT_OK(avk_writer_init_memory(&w, NULL, NULL));
    AVKT_OK(avk_type_write_canonical(&rec, &w, NULL));
    data = avk_writer_data(&w, &len);
    assert_true(len > 100000);
    {
        uint8_t fp[32], md[32];
        size_t fplen;
        uint64_t r = avk_rabin64(data, len);
        struct md5_ctx m;
        struct sha256_ctx sh;
        AVKT_OK(avk_type_fingerprint(&rec, AVK_FINGERPRINT_RABIN, fp, &fplen, NULL));
        assert_int_equal(fplen, 8);
        for (i = 0; i < 8; i++)
            assert_int_equal(fp[i], (uint8_t)(r >> (8 * i)));
        md5_init(&m);
        md5_update(&m, len, data);
        md5_digest(&m, MD5_DIGEST_SIZE, md);
        AVKT_OK(avk_type_fingerprint(&rec, AVK_FINGERPRINT_MD5, fp, &fplen, NULL));
        assert_int_equal(fplen, 16);
        assert_memory_equal(fp, md, 16);
        sha256_init(&sh);
        sha256_update(&sh, len, data);
        sha256_digest(&sh, SHA256_DIGEST_SIZE, md);
        AVKT_OK(avk_type_fingerprint(&rec, AVK_FINGERPRINT_SHA256, fp, &fplen, NULL));
        assert_int_equal(fplen, 32);
        assert_memory_equal(fp, md, 32);
    }
    avk_writer_destroy(&w);
    free(text);
    free(want);
}

/* ---- fingerprints of hand-built schemas -------------------------------------------- */

static void test_fingerprint_int(void **state)
{
    /* py_fingerprint_examples.json, "int": the Rabin bytes are little-endian. */
    avk_type t = node(AVK_INT);
    char hex[65];
    (void)state;
    fingerprint_hex(&t, AVK_FINGERPRINT_RABIN, 8, hex);
    assert_string_equal(hex, "8f5c393f1ad57572");
    fingerprint_hex(&t, AVK_FINGERPRINT_MD5, 16, hex);
    assert_string_equal(hex, "ef524ea1b91e73173d938ade36c1db32");
    fingerprint_hex(&t, AVK_FINGERPRINT_SHA256, 32, hex);
    assert_string_equal(hex, "3f2b87a9fe7cc9b13835598c3981cd45e3e355309e5090aa0933d7becb6fba45");
}

static void test_fingerprint_big(void **state)
{
    big_schema s;
    char hex[65], want[17];
    uint8_t le[8];
    uint64_t r = avk_rabin64(big_canonical, strlen(big_canonical));
    int i;
    (void)state;
    build_big(&s);
    for (i = 0; i < 8; i++)
        le[i] = (uint8_t)(r >> (8 * i));
    hex_of(le, 8, want);
    fingerprint_hex(&s.rec, AVK_FINGERPRINT_RABIN, 8, hex);
    assert_string_equal(hex, want);
    /* md5sum / sha256sum of big_canonical. */
    fingerprint_hex(&s.rec, AVK_FINGERPRINT_MD5, 16, hex);
    assert_string_equal(hex, "13c857a8360eedda0407c920b40439cd");
    fingerprint_hex(&s.rec, AVK_FINGERPRINT_SHA256, 32, hex);
    assert_string_equal(hex, 
                        "3597108a2f817022b41a4c96eec016da504c19e3ae7f856e4965098f79d3d8d9");
}

static void test_fingerprint_bad_arguments(void **state)
{
    avk_type t = node(AVK_INT);
    uint8_t fp[32];
    size_t len = 99;
    avk_error err;
    (void)state;
    AVKT_ASSERT_STATUS(avk_type_fingerprint(NULL, AVK_FINGERPRINT_RABIN, fp, &len, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    assert_int_equal(err.status, AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_type_fingerprint(&t, AVK_FINGERPRINT_RABIN, NULL, &len, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_type_fingerprint(&t, AVK_FINGERPRINT_RABIN, fp, NULL, NULL),
                       AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_type_fingerprint(&t, (avk_fingerprint_algo)7, fp, &len, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    assert_int_equal(len, 99); /* untouched on failure */
}

/* This suite's build has nettle (tests/minimal covers one without). */
static void test_fingerprint_available(void **state)
{
    (void)state;
    assert_int_equal(avk_fingerprint_available(AVK_FINGERPRINT_RABIN), 1);
    assert_int_equal(avk_fingerprint_available(AVK_FINGERPRINT_MD5), 1);
    assert_int_equal(avk_fingerprint_available(AVK_FINGERPRINT_SHA256), 1);
    assert_int_equal(avk_fingerprint_available((avk_fingerprint_algo)7), 0);
}

/* ---- writer errors ------------------------------------------------------------------ */

static void test_write_errors(void **state)
{
    big_schema s;
    avk_writer w;
    avk_writer_options opts;
    avk_error err;
    avkt_sink sink;
    (void)state;
    build_big(&s);
    AVKT_ASSERT_STATUS(avk_type_write_canonical(NULL, NULL, &err), AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_type_write_json(&s.rec, 0, NULL, &err), AVK_ERR_INVALID_ARGUMENT);
    AVKT_OK(avk_writer_init_memory(&w, NULL, NULL));
    AVKT_ASSERT_STATUS(avk_type_write_canonical(NULL, &w, &err), AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_type_write_json(NULL, 1, &w, NULL), AVK_ERR_INVALID_ARGUMENT);
    avk_writer_destroy(&w);

    /* A memory writer's limit and a failing sink come back as they are. */
    memset(&opts, 0, sizeof opts);
    opts.struct_size = sizeof opts;
    opts.buffer_size = 64;
    opts.max_size = 100;
    AVKT_OK(avk_writer_init_memory(&w, &opts, NULL));
    AVKT_ASSERT_STATUS(avk_type_write_canonical(&s.rec, &w, &err), AVK_ERR_LIMIT);
    assert_int_equal(err.status, AVK_ERR_LIMIT);
    avk_writer_reset(&w);
    AVKT_ASSERT_STATUS(avk_type_write_json(&s.rec, 1, &w, &err), AVK_ERR_LIMIT);
    avk_writer_destroy(&w);

    avkt_sink_init_failing(&sink, 150, AVK_ERR_IO);
    opts.max_size = 0;
    AVKT_OK(avk_writer_init_sink(&w, avkt_sink_write, &sink, &opts, NULL));
    AVKT_ASSERT_STATUS(avk_type_write_canonical(&s.rec, &w, &err), AVK_ERR_IO);
    avk_writer_destroy(&w);
    avkt_sink_destroy(&sink);

    avkt_sink_init_failing(&sink, 150, AVK_ERR_IO);
    AVKT_OK(avk_writer_init_sink(&w, avkt_sink_write, &sink, &opts, NULL));
    AVKT_ASSERT_STATUS(avk_type_write_json(&s.rec, 0, &w, &err), AVK_ERR_IO);
    avk_writer_destroy(&w);
    avkt_sink_destroy(&sink);
}

/* ---- full JSON of hand-built schemas ------------------------------------------------ */

static void test_json_big(void **state)
{
    big_schema s;
    (void)state;
    build_big(&s);
    assert_json(&s.rec, 0, big_json);
    assert_json(&s.rec, 0, big_json);
}

static void test_json_primitives(void **state)
{
    avk_type t = node(AVK_LONG);
    avki_prop p[2] = {{"a", "{\"x\":[1,2]}", NULL}, {"logicalType", "\"weird\"", NULL}};
    (void)state;
    assert_json(&t, 0, "{\"type\":\"long\"}");
    assert_json(&t, 1, "{\n  \"type\": \"long\"\n}");
    t.bare = 1;
    assert_json(&t, 0, "\"long\"");
    assert_json(&t, 1, "\"long\"");
    /* An unknown logical type kept as a property; a valid one written from the model. */
    t.props = p;
    t.prop_count = 2;
    assert_json(&t, 0, "{\"type\":\"long\",\"a\":{\"x\":[1,2]},\"logicalType\":\"weird\"}");
    t.logical = AVK_LOGICAL_TIMESTAMP_MICROS;
    t.prop_count = 1;
    assert_json(&t, 0, "{\"type\":\"long\",\"logicalType\":\"timestamp-micros\",\"a\":{\"x\":[1,2]}}");
    /* A property repeating an attribute written from the model is left out. */
    t.prop_count = 2;
    assert_json(&t, 0, "{\"type\":\"long\",\"logicalType\":\"timestamp-micros\",\"a\":{\"x\":[1,2]}}");
}

static void test_json_pretty(void **state)
{
    static const char *sym[] = {"A"};
    avk_type rec = node(AVK_RECORD), en = node(AVK_ENUM), un = node(AVK_UNION),
             nul = node(AVK_NULL), empty = node(AVK_RECORD), fx = node(AVK_FIXED);
    const avk_type *branches[3];
    avk_field fields[4];
    (void)state;
    nul.bare = 1;
    named(&rec, "R", "n", "n.R");
    named(&en, "E", "n", "n.E");
    en.symbols = sym;
    en.symbol_count = 1;
    named(&empty, "Empty", "", "Empty");
    named(&fx, "F", "m", "m.F");
    fx.size = 3;
    fx.logical = AVK_LOGICAL_DECIMAL;
    fx.precision = 5;
    branches[0] = &nul;
    branches[1] = &en;
    branches[2] = &fx;
    un.branches = branches;
    un.branch_count = 3;
    fields[0] = field("e", &en, 0);
    fields[1] = field("u", &un, 1);
    fields[1].order = AVK_ORDER_IGNORE;
    fields[2] = field("empty", &empty, 2);
    fields[3] = field("f", &fx, 3);
    rec.fields = fields;
    rec.field_count = 4;
    assert_json(&rec, 1,
                "{\n"
                "  \"type\": \"record\",\n"
                "  \"name\": \"n.R\",\n"
                "  \"fields\": [\n"
                "    {\n"
                "      \"name\": \"e\",\n"
                "      \"type\": {\n"
                "        \"type\": \"enum\",\n"
                "        \"name\": \"n.E\",\n"
                "        \"symbols\": [\n"
                "          \"A\"\n"
                "        ]\n"
                "      }\n"
                "    },\n"
                "    {\n"
                "      \"name\": \"u\",\n"
                "      \"type\": [\n"
                "        \"null\",\n"
                "        \"n.E\",\n"
                "        {\n"
                "          \"type\": \"fixed\",\n"
                "          \"name\": \"m.F\",\n"
                "          \"size\": 3,\n"
                "          \"logicalType\": \"decimal\",\n"
                "          \"precision\": 5\n"
                "        }\n"
                "      ],\n"
                "      \"order\": \"ignore\"\n"
                "    },\n"
                "    {\n"
                "      \"name\": \"empty\",\n"
                "      \"type\": {\n"
                "        \"type\": \"record\",\n"
                "        \"name\": \"Empty\",\n"
                "        \"namespace\": \"\",\n"
                "        \"fields\": []\n"
                "      }\n"
                "    },\n"
                "    {\n"
                "      \"name\": \"f\",\n"
                "      \"type\": \"m.F\"\n"
                "    }\n"
                "  ]\n"
                "}");
    assert_json(&rec, 0,
                "{\"type\":\"record\",\"name\":\"n.R\",\"fields\":["
                "{\"name\":\"e\",\"type\":{\"type\":\"enum\",\"name\":\"n.E\",\"symbols\":[\"A\"]}},"
                "{\"name\":\"u\",\"type\":[\"null\",\"n.E\",{\"type\":\"fixed\",\"name\":\"m.F\","
                "\"size\":3,\"logicalType\":\"decimal\",\"precision\":5}],\"order\":\"ignore\"},"
                "{\"name\":\"empty\",\"type\":{\"type\":\"record\",\"name\":\"Empty\",\"namespace\":\"\","
                "\"fields\":[]}},{\"name\":\"f\",\"type\":\"m.F\"}]}");
    /* Errors keep their type; at the root the null namespace needs no attribute. */
    empty.is_error = 1;
    assert_json(&empty, 0, "{\"type\":\"error\",\"name\":\"Empty\",\"fields\":[]}");
}

static void test_json_reserved_names(void **state)
{
    /* ns.int: the name is written in full, so neither the definition nor
     * the reference inside namespace ns can read as the primitive int. A
     * record named "record" in the null namespace stays a plain name. */
    avk_type rec = node(AVK_RECORD), un = node(AVK_UNION), nul = node(AVK_NULL),
             i32 = node(AVK_INT), other = node(AVK_RECORD);
    const avk_type *branches[4];
    avk_field fields[2];
    (void)state;
    nul.bare = i32.bare = 1;
    named(&rec, "int", "ns", "ns.int");
    named(&other, "record", "", "record");
    branches[0] = &nul;
    branches[1] = &i32;
    branches[2] = &rec;
    branches[3] = &other;
    un.branches = branches;
    un.branch_count = 4;
    fields[0] = field("next", &un, 0);
    fields[1] = field("again", &other, 1);
    rec.fields = fields;
    rec.field_count = 2;
    assert_json(&rec, 0,
                "{\"type\":\"record\",\"name\":\"ns.int\",\"fields\":[{\"name\":\"next\",\"type\":"
                "[\"null\",\"int\",\"ns.int\",{\"type\":\"record\",\"name\":\"record\","
                "\"namespace\":\"\",\"fields\":[]}]},{\"name\":\"again\",\"type\":\"record\"}]}");
    assert_canonical(&rec,
                     "{\"name\":\"ns.int\",\"type\":\"record\",\"fields\":[{\"name\":\"next\",\"type\":"
                     "[\"null\",\"int\",\"ns.int\",{\"name\":\"record\",\"type\":\"record\","
                     "\"fields\":[]}]},{\"name\":\"again\",\"type\":\"record\"}]}");
}

/* ---- equality of hand-built schemas ------------------------------------------------- */

/* record <name> { int value; union { null, <name> } next; } */
typedef struct list_schema {
    avk_type rec, un, nul, intt;
    avk_field fields[2];
    const avk_type *branches[2];
    avki_prop props[2];
} list_schema;

static void build_list(list_schema *s, const char *fullname)
{
    memset(s, 0, sizeof *s);
    s->rec = node(AVK_RECORD);
    named(&s->rec, fullname, "", fullname);
    s->un = node(AVK_UNION);
    s->nul = node(AVK_NULL);
    s->intt = node(AVK_INT);
    s->branches[0] = &s->nul;
    s->branches[1] = &s->rec;
    s->un.branches = s->branches;
    s->un.branch_count = 2;
    s->fields[0] = field("value", &s->intt, 0);
    s->fields[1] = field("next", &s->un, 1);
    s->rec.fields = s->fields;
    s->rec.field_count = 2;
}

static void test_equal_recursive(void **state)
{
    list_schema a, b;
    (void)state;
    build_list(&a, "L");
    build_list(&b, "L");
    assert_true(avk_type_equal(&a.rec, &b.rec));
    assert_true(avk_type_equal(&a.rec, &a.rec));
    assert_true(avk_type_equal(&a.un, &b.un));
    assert_true(avk_type_equal(NULL, NULL));
    assert_false(avk_type_equal(&a.rec, NULL));
    assert_false(avk_type_equal(NULL, &a.rec));
    /* bare or not is spelling, not meaning */
    b.intt.bare = 1;
    assert_true(avk_type_equal(&a.rec, &b.rec));

    /* Each difference makes them unequal, and undoing it makes them equal. */
#define FLIP(stmt_diff, stmt_undo)                    \
    do {                                              \
        stmt_diff;                                    \
        assert_false(avk_type_equal(&a.rec, &b.rec)); \
        assert_false(avk_type_equal(&b.rec, &a.rec)); \
        stmt_undo;                                    \
        assert_true(avk_type_equal(&a.rec, &b.rec));  \
    } while (0)
    FLIP(b.rec.doc = "d", b.rec.doc = NULL);
    FLIP(b.rec.fullname = "M", b.rec.fullname = "L");
    FLIP(b.rec.is_error = 1, b.rec.is_error = 0);
    FLIP(b.intt.kind = AVK_LONG, b.intt.kind = AVK_INT);
    FLIP(b.intt.logical = AVK_LOGICAL_DATE, b.intt.logical = AVK_LOGICAL_NONE);
    FLIP(b.fields[0].name = "v", b.fields[0].name = "value");
    FLIP(b.fields[0].doc = "x", b.fields[0].doc = NULL);
    FLIP(b.fields[0].default_json = "1", b.fields[0].default_json = NULL);
    FLIP(b.fields[0].order = AVK_ORDER_IGNORE, b.fields[0].order = AVK_ORDER_ASCENDING);
    FLIP(b.rec.field_count = 1, b.rec.field_count = 2);
    FLIP(b.un.branch_count = 1, b.un.branch_count = 2);
    FLIP(b.branches[0] = &b.intt, b.branches[0] = &b.nul);

    /* Properties: same set in any order is equal. */
    a.props[0] = (avki_prop){"p", "1", NULL};
    a.props[1] = (avki_prop){"q", "[2]", NULL};
    b.props[0] = a.props[1];
    b.props[1] = a.props[0];
    a.rec.props = a.props;
    b.rec.props = b.props;
    a.rec.prop_count = b.rec.prop_count = 2;
    assert_true(avk_type_equal(&a.rec, &b.rec));
    FLIP(b.props[0].json = "[3]", b.props[0].json = "[2]");
    FLIP(b.props[0].key = "r", b.props[0].key = "q");
    FLIP(b.rec.prop_count = 1, b.rec.prop_count = 2);
#undef FLIP
}

static void test_equal_named_kinds(void **state)
{
    static const char *s1[] = {"A", "B"}, *s2[] = {"A", "C"};
    static const char *al1[] = {"x.Y"}, *al2[] = {"x.Z"};
    avk_type e1 = node(AVK_ENUM), e2 = node(AVK_ENUM), f1 = node(AVK_FIXED), f2 = node(AVK_FIXED);
    avk_type d1 = node(AVK_BYTES), d2 = node(AVK_BYTES), a1 = node(AVK_ARRAY), a2 = node(AVK_MAP);
    (void)state;
    named(&e1, "E", "x", "x.E");
    named(&e2, "E", "x", "x.E");
    e1.symbols = s1;
    e2.symbols = s1;
    e1.symbol_count = e2.symbol_count = 2;
    assert_true(avk_type_equal(&e1, &e2));
    e2.symbols = s2;
    assert_false(avk_type_equal(&e1, &e2));
    e2.symbols = s1;
    e2.enum_default = 0;
    assert_false(avk_type_equal(&e1, &e2));
    e2.enum_default = -1;
    e1.aliases = al1;
    e1.alias_count = 1;
    assert_false(avk_type_equal(&e1, &e2));
    e2.aliases = al2;
    e2.alias_count = 1;
    assert_false(avk_type_equal(&e1, &e2));
    e2.aliases = al1;
    assert_true(avk_type_equal(&e1, &e2));

    named(&f1, "F", "", "F");
    named(&f2, "F", "", "F");
    f1.size = f2.size = 4;
    assert_true(avk_type_equal(&f1, &f2));
    f2.size = 5;
    assert_false(avk_type_equal(&f1, &f2));
    assert_false(avk_type_equal(&f1, &e1));

    d1.logical = d2.logical = AVK_LOGICAL_DECIMAL;
    d1.precision = d2.precision = 9;
    d1.scale = 2;
    assert_false(avk_type_equal(&d1, &d2));
    d2.scale = 2;
    assert_true(avk_type_equal(&d1, &d2));

    a1.items = &d1;
    a2.items = &d2;
    assert_false(avk_type_equal(&a1, &a2)); /* array vs map */
    a2.kind = AVK_ARRAY;
    assert_true(avk_type_equal(&a1, &a2));
}

static void test_equal_shared_dag(void **state)
{
    /* T0 = fixed; T(i) = record { T(i-1) a; T(i-1) b; }: 2^60 paths, 61
     * types. Equality must compare each pair of types once. */
    enum { LEVELS = 61 };
    static avk_type x[LEVELS], y[LEVELS];
    static avk_field fx[LEVELS][2], fy[LEVELS][2];
    static char names[LEVELS][8];
    size_t i;
    (void)state;
    for (i = 0; i < LEVELS; i++) {
        snprintf(names[i], sizeof names[i], "T%zu", i);
        x[i] = node(i ? AVK_RECORD : AVK_FIXED);
        named(&x[i], names[i], "", names[i]);
        x[i].size = i ? 0 : 8;
        if (i) {
            fx[i][0] = field("a", &x[i - 1], 0);
            fx[i][1] = field("b", &x[i - 1], 1);
            x[i].fields = fx[i];
            x[i].field_count = 2;
        }
        y[i] = x[i];
        if (i) {
            fy[i][0] = field("a", &y[i - 1], 0);
            fy[i][1] = field("b", &y[i - 1], 1);
            y[i].fields = fy[i];
        }
    }
    assert_true(avk_type_equal(&x[LEVELS - 1], &y[LEVELS - 1]));
    y[0].size = 9;
    assert_false(avk_type_equal(&x[LEVELS - 1], &y[LEVELS - 1]));
    y[0].size = 8;
    fy[1][1].doc = "changed";
    assert_false(avk_type_equal(&x[LEVELS - 1], &y[LEVELS - 1]));
    fy[1][1].doc = NULL;
    /* Canonical form and JSON write each type once as well. */
    {
        char *c = canonical(&x[LEVELS - 1]);
        assert_true(strlen(c) < 10000);
        free(c);
    }
}

/* ---- parsed schemas: the specification's tables ------------------------------------------- */

/* Fails unless the canonical form and Rabin fingerprint of json are as given. */
static void check_row(const char *json, size_t len, const char *want_canonical, int have_fp,
                      int64_t want_fp, const char *what)
{
    avk_schema *s = parse_or_fail(json, len, what);
    const avk_type *t = avk_schema_root(s);
    char *got = canonical(t);
    uint8_t fp[32];
    size_t fplen, i;
    uint64_t v = 0;
    if (strcmp(got, want_canonical) != 0)
        fail_msg("%s: canonical form\n  got  %s\n  want %s", what, got, want_canonical);
    AVKT_OK(avk_type_fingerprint(t, AVK_FINGERPRINT_RABIN, fp, &fplen, NULL));
    assert_int_equal(fplen, 8);
    for (i = 0; i < 8; i++)
        v |= (uint64_t)fp[i] << (8 * i);
    assert_true(v == avk_rabin64(got, strlen(got)));
    if (have_fp && (int64_t)v != want_fp)
        fail_msg("%s: fingerprint %lld, want %lld", what, (long long)(int64_t)v, (long long)want_fp);
    free(got);
    avk_schema_free(s);
}

/* A value from schema-tests.txt: "<<key text" on one line, or "<<key" then
 * lines up to one that is exactly "key". Returns a malloc'd string and
 * moves *pos past it. */
static char *table_value(const char **pos, const char *key_line_end, const char *key,
                         size_t key_len)
{
    const char *p = *pos;
    char *out;
    if (*p == ' ') {
        size_t n = (size_t)(key_line_end - p - 1);
        out = (char *)malloc(n + 1);
        memcpy(out, p + 1, n);
        out[n] = '\0';
        *pos = key_line_end;
        return out;
    }
    {
        const char *start = key_line_end + (*key_line_end == '\n');
        const char *q = start;
        for (;;) {
            const char *eol = strchr(q, '\n');
            size_t n;
            if (!eol)
                eol = q + strlen(q);
            if ((size_t)(eol - q) == key_len && memcmp(q, key, key_len) == 0) {
                n = (size_t)(q - start);
                out = (char *)malloc(n + 1);
                memcpy(out, start, n);
                out[n] = '\0';
                *pos = eol;
                return out;
            }
            if (!*eol)
                fail_msg("schema-tests.txt: no line closing <<%.*s", (int)key_len, key);
            q = eol + 1;
        }
    }
}

static void test_spec_schema_tests(void **state)
{
    char *text, *input = NULL, *canon = NULL;
    const char *p;
    int64_t fp = 0;
    int have_fp = 0, rows = 0, fps = 0;
    (void)state;
    text = avkt_interop_read(AVK_INTEROP_DIR, "share/test/data/schema-tests.txt", NULL);
    if (!text)
        skip();
    for (p = text;; p++) {
        const char *eol = strchr(p, '\n');
        if (!eol)
            eol = p + strlen(p);
        /* Each test starts with a "// NNN" line (other comments have no
         * pending test), and the file's end closes the last one. */
        if ((strncmp(p, "//", 2) == 0 || !*p) && input) {
            char what[64];
            assert_non_null(canon);
            snprintf(what, sizeof what, "schema-tests.txt test %d", rows);
            check_row(input, strlen(input), canon, have_fp, fp, what);
            rows++;
            fps += have_fp;
            free(input);
            free(canon);
            input = canon = NULL;
            have_fp = 0;
        } else if (strncmp(p, "<<", 2) == 0) {
            const char *k = p + 2, *ke = k;
            size_t klen;
            char *v;
            while (ke < eol && *ke != ' ')
                ke++;
            klen = (size_t)(ke - k);
            p = ke;
            v = table_value(&p, eol, k, klen);
            eol = p;
            if (klen == 5 && memcmp(k, "INPUT", 5) == 0)
                input = v;
            else if (klen == 9 && memcmp(k, "canonical", 9) == 0)
                canon = v;
            else if (klen == 11 && memcmp(k, "fingerprint", 11) == 0) {
                fp = strtoll(v, NULL, 10);
                have_fp = 1;
                free(v);
            } else
                fail_msg("schema-tests.txt: unknown key %.*s", (int)klen, k);
        }
        if (!*eol)
            break;
        p = eol;
    }
    if (input) { /* a file without a final newline */
        assert_non_null(canon);
        check_row(input, strlen(input), canon, have_fp, fp, "schema-tests.txt last test");
        rows++;
        fps += have_fp;
        free(input);
        free(canon);
    }
    print_message("schema-tests.txt: %d tests, %d fingerprints, all match\n", rows, fps);
    assert_int_equal(rows, 34);
    assert_int_equal(fps, 26);
    free(text);
}

/* The end of the JSON value starting at p (no validation: the file is
 * well formed). */
static const char *skip_json_value(const char *p)
{
    int depth = 0;
    do {
        switch (*p) {
        case '"':
            for (p++; *p != '"'; p++)
                if (*p == '\\')
                    p++;
            p++;
            break;
        case '{':
        case '[':
            depth++;
            p++;
            break;
        case '}':
        case ']':
            depth--;
            p++;
            break;
        default:
            if (depth == 0) { /* a bare number or literal */
                while (*p && !strchr(",}] \t\r\n", *p))
                    p++;
                return p;
            }
            p++;
            break;
        }
    } while (depth > 0);
    return p;
}

/* python3-avro writes a fixed in full at every appearance (its
 * FixedSchema.to_canonical_json ignores the names already written, unlike
 * its enums and records), so the table's HandshakeRequest row defines
 * org.apache.avro.ipc.MD5 twice: not a valid schema, and not what Java's
 * SchemaNormalization (against which schema-tests.txt is checked, see its
 * PigValue row) writes. That row is checked against the specification's
 * form and the fingerprints of that text; the table's text is pinned as
 * well, so a corrected table shows up here. */
static const char handshake_python[] =
    "{\"name\":\"org.apache.avro.ipc.HandshakeRequest\",\"type\":\"record\",\"fields\":["
    "{\"name\":\"clientHash\",\"type\":{\"name\":\"org.apache.avro.ipc.MD5\",\"type\":\"fixed\","
    "\"size\":16}},{\"name\":\"clientProtocol\",\"type\":[\"null\",\"string\"]},"
    "{\"name\":\"serverHash\",\"type\":{\"name\":\"org.apache.avro.ipc.MD5\",\"type\":\"fixed\","
    "\"size\":16}},{\"name\":\"meta\",\"type\":[\"null\",{\"type\":\"map\",\"values\":\"bytes\"}]}]}";
static const char handshake_spec[] =
    "{\"name\":\"org.apache.avro.ipc.HandshakeRequest\",\"type\":\"record\",\"fields\":["
    "{\"name\":\"clientHash\",\"type\":{\"name\":\"org.apache.avro.ipc.MD5\",\"type\":\"fixed\","
    "\"size\":16}},{\"name\":\"clientProtocol\",\"type\":[\"null\",\"string\"]},"
    "{\"name\":\"serverHash\",\"type\":\"org.apache.avro.ipc.MD5\"},"
    "{\"name\":\"meta\",\"type\":[\"null\",{\"type\":\"map\",\"values\":\"bytes\"}]}]}";

/* Hex of the fingerprint of text[0..len) computed here, not by the library. */
static void text_fingerprint_hex(const char *text, avk_fingerprint_algo algo, char *hex)
{
    uint8_t d[32];
    size_t len = strlen(text), i;
    if (algo == AVK_FINGERPRINT_RABIN) {
        uint64_t v = ref_rabin((const uint8_t *)text, len);
        for (i = 0; i < 8; i++)
            d[i] = (uint8_t)(v >> (8 * i));
        hex_of(d, 8, hex);
    } else if (algo == AVK_FINGERPRINT_MD5) {
        struct md5_ctx m;
        md5_init(&m);
        md5_update(&m, len, (const uint8_t *)text);
        md5_digest(&m, MD5_DIGEST_SIZE, d);
        hex_of(d, MD5_DIGEST_SIZE, hex);
    } else {
        struct sha256_ctx m;
        sha256_init(&m);
        sha256_update(&m, len, (const uint8_t *)text);
        sha256_digest(&m, SHA256_DIGEST_SIZE, d);
        hex_of(d, SHA256_DIGEST_SIZE, hex);
    }
}

static void test_py_fingerprint_examples(void **state)
{
    int python_rows = 0;
    size_t len, i;
    char *text;
    avki_arena arena;
    const avki_json *root;
    avk_error err;
    (void)state;
    text = avkt_interop_read(AVK_INTEROP_DIR, "tables/py_fingerprint_examples.json", &len);
    if (!text)
        skip();
    avki_arena_init(&arena, NULL, 0, 0);
    AVKT_OK(avki_json_parse(&arena, text, len, NULL, &root, &err));
    assert_int_equal(root->type, AVKI_JSON_ARRAY);
    for (i = 0; i < root->u.array.count; i++) {
        const avki_json *row = root->u.array.items[i];
        const avki_json *schema = avki_json_get(row, "schema");
        const avki_json *canon = avki_json_get(row, "canonical_form");
        const avki_json *fps = avki_json_get(row, "fingerprints_hex");
        static const struct {
            const char *key;
            avk_fingerprint_algo algo;
            size_t len;
        } algos[] = {{"CRC-64-AVRO", AVK_FINGERPRINT_RABIN, 8},
                     {"MD5", AVK_FINGERPRINT_MD5, 16},
                     {"SHA-256", AVK_FINGERPRINT_SHA256, 32}};
        const char *start, *end, *want_canon;
        avk_schema *s;
        char *got, what[64];
        size_t a;
        assert_non_null(schema);
        assert_non_null(canon);
        assert_non_null(fps);
        snprintf(what, sizeof what, "py_fingerprint_examples.json row %zu", i);
        start = text + schema->offset;
        end = skip_json_value(start);
        s = parse_or_fail(start, (size_t)(end - start), what);
        got = canonical(avk_schema_root(s));
        want_canon = canon->u.string.ptr;
        if (strcmp(want_canon, handshake_python) == 0) {
            want_canon = handshake_spec;
            python_rows++;
        }
        if (strcmp(got, want_canon) != 0)
            fail_msg("%s: canonical form\n  got  %s\n  want %s", what, got, want_canon);
        for (a = 0; a < 3; a++) {
            const avki_json *want = avki_json_get(fps, algos[a].key);
            char hex[65], want_hex[65];
            assert_non_null(want);
            if (want_canon == handshake_spec) {
                text_fingerprint_hex(handshake_python, algos[a].algo, want_hex);
                assert_string_equal(want->u.string.ptr, want_hex); /* the table is self-consistent */
                text_fingerprint_hex(handshake_spec, algos[a].algo, want_hex);
            } else {
                assert_true(strlen(want->u.string.ptr) < sizeof want_hex);
                strcpy(want_hex, want->u.string.ptr);
            }
            fingerprint_hex(avk_schema_root(s), algos[a].algo, algos[a].len, hex);
            if (strcmp(hex, want_hex) != 0)
                fail_msg("%s: %s %s, want %s", what, algos[a].key, hex, want_hex);
        }
        free(got);
        avk_schema_free(s);
    }
    print_message("py_fingerprint_examples.json: %zu rows x 3 algorithms match (%d row with "
                  "python3-avro's repeated fixed checked against the specification's form)\n",
                  root->u.array.count, python_rows);
    assert_int_equal(root->u.array.count, 33);
    assert_int_equal(python_rows, 1);
    avki_arena_destroy(&arena);
    free(text);
}

/* ---- parsed schemas: write_json -> parse -> equal ------------------------------------------ */

/* Writes s compact and pretty, parses both back, and checks they equal s,
 * have the same canonical form, and write the same text again. */
static void check_round_trip(const avk_schema *s, const char *what)
{
    const avk_type *t = avk_schema_root(s);
    char *canon = canonical(t);
    int pretty;
    for (pretty = 0; pretty <= 1; pretty++) {
        char *json = render(t, 1, pretty);
        avk_schema *back = parse_or_fail(json, strlen(json), what);
        const avk_type *bt = avk_schema_root(back);
        char *canon2 = canonical(bt), *json2 = render(bt, 1, pretty);
        if (!avk_type_equal(t, bt))
            fail_msg("%s: written (pretty %d) and parsed back, not equal:\n%s", what, pretty, json);
        assert_true(avk_type_equal(bt, t));
        assert_string_equal(canon, canon2);
        assert_string_equal(json, json2);
        free(canon2);
        free(json2);
        free(json);
        avk_schema_free(back);
    }
    free(canon);
}

/* Round-trips every file in dir (those whose name ends with suffix, when
 * given). Returns how many. */
static int round_trip_dir(const char *relative, const char *suffix, int *rejected)
{
    char dir[4096], path[8192];
    DIR *d;
    struct dirent *e;
    int n = 0;
    snprintf(dir, sizeof dir, "%s/apache/%s", AVK_INTEROP_DIR, relative);
    d = opendir(dir);
    assert_non_null(d);
    while ((e = readdir(d)) != NULL) {
        size_t nl = strlen(e->d_name);
        char *text;
        size_t len;
        avk_schema *s;
        if (e->d_name[0] == '.')
            continue;
        if (suffix && (nl < strlen(suffix) || strcmp(e->d_name + nl - strlen(suffix), suffix) != 0))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        text = avkt_read_file(path, &len);
        assert_non_null(text);
        s = parse_or_note(text, len, path, rejected);
        if (s) {
            check_round_trip(s, path);
            avk_schema_free(s);
        }
        free(text);
        n++;
    }
    closedir(d);
    return n;
}

static void test_round_trip_interop(void **state)
{
    static const char *const extra[] = {
        "share/schemas/org/apache/avro/data/Json.avsc",
        "share/schemas/org/apache/avro/ipc/HandshakeRequest.avsc",
        "share/schemas/org/apache/avro/ipc/HandshakeResponse.avsc",
        "share/test/schemas/reserved.avsc",
        "share/test/schemas/FooBarSpecificRecord.avsc",
        "share/test/schemas/weather.avsc",
        "share/test/schemas/interop.avsc",
        "share/test/schemas/RecordWithRequiredFields.avsc",
        "share/test/schemas/fooBar.avsc",
        "share/test/data/messageV1/test_schema.avsc",
        "share/test/data/schemas/simple/schema.json",
        "share/test/data/schemas/withUnion/schema.json",
        "lang/java/avro/src/test/resources/TestUnionRecord.avsc",
        "lang/java/avro/src/test/resources/TestRecordWithMapsAndArrays.avsc",
        "lang/java/avro/src/test/resources/SchemaBuilder.avsc",
        "lang/java/avro/src/test/resources/TestRecordWithLogicalTypes.avsc",
        "lang/js/test/dat/Person.avsc",
        "lang/js/test/dat/Id.avsc",
    };
    int valid, pass, rejected = 0;
    size_t i;
    (void)state;
    if (!avkt_interop_available(AVK_INTEROP_DIR, "schemas-valid"))
        skip();
    valid = round_trip_dir("schemas-valid", ".avsc", &rejected);
    pass = round_trip_dir("lang/c/tests/schema_tests/pass", NULL, &rejected);
    for (i = 0; i < sizeof extra / sizeof extra[0]; i++) {
        char path[4096];
        size_t len;
        char *text;
        avk_schema *s;
        snprintf(path, sizeof path, "%s/apache/%s", AVK_INTEROP_DIR, extra[i]);
        text = avkt_read_file(path, &len);
        assert_non_null(text);
        s = parse_or_note(text, len, path, &rejected);
        if (s) {
            check_round_trip(s, path);
            avk_schema_free(s);
        }
        free(text);
    }
    print_message("round trip: %d schemas-valid, %d avro-c pass, %zu other schemas\n", valid, pass,
                  sizeof extra / sizeof extra[0]);
    assert_int_equal(valid, 77);
    assert_int_equal(pass, 28);
    if (rejected)
        fail_msg("%d valid schemas were rejected by the parser (listed above); all others "
                 "round-trip", rejected);
}

/* ---- parsed schemas: exact output, equal and unequal pairs ----------------------------------- */

static void test_parsed_json_output(void **state)
{
    static const struct {
        const char *in, *out;
    } rows[] = {
        {"\"int\"", "\"int\""},
        {"{\"type\": \"int\"}", "{\"type\":\"int\"}"},
        {"{\"type\":\"string\", \"ignored\": \"value\"}", "{\"type\":\"string\",\"ignored\":\"value\"}"},
        {"{\"type\": \"enum\", \"namespace\": \"ns\", \"name\": \"int\", \"symbols\": [\"A\", \"B\"]}",
         "{\"type\":\"enum\",\"name\":\"ns.int\",\"symbols\":[\"A\",\"B\"]}"},
        /* a reference to ns.int inside namespace ns must not read as the primitive */
        {"{\"type\": \"record\", \"name\": \"int\", \"namespace\": \"ns\", \"fields\": "
         "[{\"name\": \"next\", \"type\": [\"null\", \"int\", \"ns.int\"]}]}",
         "{\"type\":\"record\",\"name\":\"ns.int\",\"fields\":[{\"name\":\"next\",\"type\":"
         "[\"null\",\"int\",\"ns.int\"]}]}"},
        {"{\"type\":\"record\",\"name\":\"R\",\"namespace\":\"a\",\"doc\":\"d\",\"aliases\":[\"Q\"],"
         "\"fields\":[{\"name\":\"f\",\"type\":{\"type\":\"fixed\",\"name\":\"F\",\"namespace\":\"\","
         "\"size\":2},\"default\":\"\\u0000\\u00ff\",\"order\":\"descending\",\"aliases\":[\"g\"],"
         "\"x\":{\"k\":[true,null]}},{\"name\":\"h\",\"type\":\"F\"},"
         "{\"name\":\"e\",\"type\":{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"S\",\"T\"],"
         "\"default\":\"T\"}},{\"name\":\"e2\",\"type\":\"E\"}]}",
         "{\"type\":\"record\",\"name\":\"a.R\",\"doc\":\"d\",\"aliases\":[\"a.Q\"],\"fields\":["
         "{\"name\":\"f\",\"type\":{\"type\":\"fixed\",\"name\":\"F\",\"namespace\":\"\",\"size\":2},"
         "\"default\":\"\\u0000\xc3\xbf\",\"order\":\"descending\",\"aliases\":[\"g\"],"
         "\"x\":{\"k\":[true,null]}},{\"name\":\"h\",\"type\":\"F\"},"
         "{\"name\":\"e\",\"type\":{\"type\":\"enum\",\"name\":\"a.E\",\"symbols\":[\"S\",\"T\"],"
         "\"default\":\"T\"}},{\"name\":\"e2\",\"type\":\"a.E\"}]}"},
        {"{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":4,\"scale\":2}",
         "{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":4,\"scale\":2}"},
        {"{\"type\":\"int\",\"logicalType\":\"date\"}", "{\"type\":\"int\",\"logicalType\":\"date\"}"},
        {"{\"type\":\"array\",\"items\":{\"type\":\"map\",\"values\":\"long\",\"p\":1}}",
         "{\"type\":\"array\",\"items\":{\"type\":\"map\",\"values\":\"long\",\"p\":1}}"},
    };
    size_t i;
    int rejected = 0;
    (void)state;
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        avk_schema *s = parse_or_note(rows[i].in, strlen(rows[i].in), rows[i].in, &rejected);
        char *got;
        if (!s)
            continue;
        got = render(avk_schema_root(s), 1, 0);
        if (strcmp(got, rows[i].out) != 0)
            fail_msg("row %zu: %s\n  got  %s\n  want %s", i, rows[i].in, got, rows[i].out);
        check_round_trip(s, rows[i].in);
        free(got);
        avk_schema_free(s);
    }
    if (rejected)
        fail_msg("%d valid schemas were rejected by the parser (listed above)", rejected);
}

static void test_parsed_equal_pairs(void **state)
{
    static const struct {
        const char *a, *b;
        int equal;
    } rows[] = {
        {"\"int\"", "{\"type\":\"int\"}", 1},
        {"\"int\"", "\"long\"", 0},
        {"{\"type\":\"int\",\"logicalType\":\"date\"}", "\"int\"", 0},
        {"{\"type\":\"int\",\"a\":1,\"b\":2}", "{\"b\":2,\"type\":\"int\",\"a\":1}", 1},
        {"{\"type\":\"int\",\"a\":1}", "{\"type\":\"int\",\"a\":2}", 0},
        {"{\"type\":\"record\",\"name\":\"a.R\",\"fields\":[]}",
         "{\"type\":\"record\",\"name\":\"R\",\"namespace\":\"a\",\"fields\":[]}", 1},
        {"{\"type\":\"record\",\"name\":\"a.R\",\"fields\":[]}",
         "{\"type\":\"record\",\"name\":\"R\",\"namespace\":\"b\",\"fields\":[]}", 0},
        {"{\"type\":\"record\",\"name\":\"R\",\"fields\":[]}",
         "{\"type\":\"error\",\"name\":\"R\",\"fields\":[]}", 0},
        {"{\"type\":\"record\",\"name\":\"R\",\"fields\":[]}",
         "{\"type\":\"record\",\"name\":\"R\",\"doc\":\"x\",\"fields\":[]}", 0},
        {"{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"f\",\"type\":\"int\",\"default\":1}]}",
         "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"f\",\"type\":\"int\",\"default\":1}]}", 1},
        {"{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"f\",\"type\":\"int\",\"default\":1}]}",
         "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"f\",\"type\":\"int\",\"default\":2}]}", 0},
        {"{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"f\",\"type\":\"int\"}]}",
         "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"f\",\"type\":\"int\",\"order\":\"ignore\"}]}", 0},
        {"{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"f\",\"type\":\"int\"}]}",
         "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"f\",\"type\":\"int\",\"order\":\"ascending\"}]}", 1},
        {"{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"f\",\"type\":\"int\"}]}",
         "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"f\",\"type\":\"int\",\"aliases\":[\"g\"]}]}", 0},
        {"{\"type\":\"record\",\"name\":\"L\",\"fields\":[{\"name\":\"n\",\"type\":[\"null\",\"L\"]}]}",
         "{\"type\":\"record\",\"name\":\"L\",\"fields\":[{\"name\":\"n\",\"type\":[\"null\",\"L\"]}]}", 1},
        {"{\"type\":\"record\",\"name\":\"L\",\"fields\":[{\"name\":\"n\",\"type\":[\"null\",\"L\"]}]}",
         "{\"type\":\"record\",\"name\":\"L\",\"fields\":[{\"name\":\"n\",\"type\":[\"L\",\"null\"]}]}", 0},
        {"{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\",\"B\"]}",
         "{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\",\"B\"],\"default\":\"A\"}", 0},
        {"{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\",\"B\"]}",
         "{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"B\",\"A\"]}", 0},
        {"{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\"],\"aliases\":[\"X\"]}",
         "{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\"],\"aliases\":[\"Y\"]}", 0},
        {"{\"type\":\"fixed\",\"name\":\"F\",\"size\":16}", "{\"type\":\"fixed\",\"name\":\"F\",\"size\":16}", 1},
        {"{\"type\":\"fixed\",\"name\":\"F\",\"size\":16}", "{\"type\":\"fixed\",\"name\":\"F\",\"size\":15}", 0},
        {"{\"type\":\"fixed\",\"name\":\"F\",\"size\":16,\"logicalType\":\"decimal\",\"precision\":4}",
         "{\"type\":\"fixed\",\"name\":\"F\",\"size\":16,\"logicalType\":\"decimal\",\"precision\":5}", 0},
        {"{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":4}",
         "{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":4,\"scale\":0}", 1},
        {"{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":4,\"scale\":1}",
         "{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":4,\"scale\":2}", 0},
        {"{\"type\":\"array\",\"items\":\"int\"}", "{\"type\":\"map\",\"values\":\"int\"}", 0},
        {"{\"type\":\"array\",\"items\":\"int\"}", "{\"type\":\"array\",\"items\":\"long\"}", 0},
        {"[\"null\",\"int\"]", "[\"null\",{\"type\":\"int\"}]", 1},
        {"[\"null\",\"int\"]", "[\"int\",\"null\"]", 0},
        {"[\"null\",\"int\"]", "[\"null\",\"int\",\"string\"]", 0},
    };
    size_t i;
    (void)state;
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        avk_schema *a = parse_str(rows[i].a), *b = parse_str(rows[i].b);
        int eq = avk_type_equal(avk_schema_root(a), avk_schema_root(b));
        if (eq != rows[i].equal)
            fail_msg("row %zu: equal(%s, %s) is %d, want %d", i, rows[i].a, rows[i].b, eq,
                     rows[i].equal);
        assert_int_equal(avk_type_equal(avk_schema_root(b), avk_schema_root(a)), rows[i].equal);
        assert_true(avk_type_equal(avk_schema_root(a), avk_schema_root(a)));
        avk_schema_free(a);
        avk_schema_free(b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(avkt_test_kernel_choice),
        cmocka_unit_test(test_rabin_table_and_empty),
        cmocka_unit_test(test_rabin_random),
        cmocka_unit_test(test_rabin_spec_values),
        cmocka_unit_test(test_canonical_primitives),
        cmocka_unit_test(test_canonical_big),
        cmocka_unit_test(test_canonical_error_record_and_empty),
        cmocka_unit_test(test_canonical_string_escapes),
        cmocka_unit_test(test_canonical_many_named),
        cmocka_unit_test(test_fingerprint_int),
        cmocka_unit_test(test_fingerprint_big),
        cmocka_unit_test(test_fingerprint_bad_arguments),
        cmocka_unit_test(test_fingerprint_available),
        cmocka_unit_test(test_write_errors),
        cmocka_unit_test(test_json_big),
        cmocka_unit_test(test_json_primitives),
        cmocka_unit_test(test_json_pretty),
        cmocka_unit_test(test_json_reserved_names),
        cmocka_unit_test(test_equal_recursive),
        cmocka_unit_test(test_equal_named_kinds),
        cmocka_unit_test(test_equal_shared_dag),
        cmocka_unit_test(test_spec_schema_tests),
        cmocka_unit_test(test_py_fingerprint_examples),
        cmocka_unit_test(test_round_trip_interop),
        cmocka_unit_test(test_parsed_json_output),
        cmocka_unit_test(test_parsed_equal_pairs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
