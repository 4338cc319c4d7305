/* Schema resolution against the apache interop data: python's compatibility verdicts and python3-avro's resolving reads. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "avkt.h"
#include "value_json.h"

#ifndef AVK_INTEROP_DIR
#define AVK_INTEROP_DIR ""
#endif

static avk_arena *arena_new(void)
{
    avk_arena *a = NULL;
    AVKT_OK(avk_arena_new(NULL, &a, NULL));
    return a;
}

/* The table as a cJSON tree, or NULL (after a SKIPPED note) when absent. */
static cJSON *load_json(const char *relative)
{
    char *text = avkt_interop_read(AVK_INTEROP_DIR, relative, NULL);
    cJSON *j;
    if (!text)
        return NULL;
    j = cJSON_Parse(text);
    free(text);
    if (!j)
        fail_msg("%s: not JSON", relative);
    return j;
}

/* A schema given as a JSON value inside a table, serialized back to text
 * and parsed; NULL (with the reason in err) when avrokit refuses it. */
static avk_schema *schema_of(const cJSON *j, avk_error *err)
{
    char *text = cJSON_PrintUnformatted(j);
    avk_schema *s = NULL;
    assert_non_null(text);
    if (avk_schema_parse(text, strlen(text), NULL, &s, err) != AVK_OK)
        s = NULL;
    free(text);
    return s;
}

static size_t hex_to_bytes(const char *hex, uint8_t **out)
{
    size_t n = strlen(hex) / 2;
    *out = (uint8_t *)malloc(n + 1);
    assert_non_null(*out);
    if (avkt_hex_decode(hex, *out, n + 1) != n)
        fail_msg("bad hex in table: %.60s", hex);
    return n;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* ---- (a) resolution-pairs: compatibility verdicts --------------------------------------- */

typedef struct problem_count {
    int n;
    char first[512];
} problem_count;

static void count_problem(void *ctx, const avk_compat_problem *p)
{
    problem_count *pc = (problem_count *)ctx;
    if (pc->n == 0)
        snprintf(pc->first, sizeof pc->first, "reader '%s' writer '%s': %s",
                 p->reader_path ? p->reader_path : "(null)",
                 p->writer_path ? p->writer_path : "(null)", p->message ? p->message : "(null)");
    pc->n++;
}

static void test_resolution_pairs(void **state)
{
    char dir[4096];
    DIR *d;
    struct dirent *e;
    char *names[1024];
    size_t n = 0, i;
    int compatible = 0, incompatible = 0, mismatches = 0, unparsed = 0;
    (void)state;
    if (!avkt_interop_available(AVK_INTEROP_DIR, "resolution-pairs"))
        skip();
    snprintf(dir, sizeof dir, "%s/apache/resolution-pairs", AVK_INTEROP_DIR);
    d = opendir(dir);
    assert_non_null(d);
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, "pair_", 5) != 0 || len < 5 || strcmp(e->d_name + len - 5, ".json"))
            continue;
        assert_true(n < sizeof names / sizeof names[0]);
        names[n] = strdup(e->d_name);
        assert_non_null(names[n]);
        n++;
    }
    closedir(d);
    qsort(names, n, sizeof names[0], cmp_str);
    for (i = 0; i < n; i++) {
        char rel[600];
        cJSON *pair;
        const cJSON *expected;
        avk_schema *ws, *rs;
        avk_error err;
        avk_status st;
        problem_count pc;
        int want_ok;
        snprintf(rel, sizeof rel, "resolution-pairs/%s", names[i]);
        pair = load_json(rel);
        assert_non_null(pair);
        expected = cJSON_GetObjectItem(pair, "expected_compatibility");
        assert_true(cJSON_IsString(expected));
        want_ok = strcmp(expected->valuestring, "compatible") == 0;
        if (!want_ok && strcmp(expected->valuestring, "incompatible") != 0)
            fail_msg("%s: expected_compatibility '%s'", names[i], expected->valuestring);
        want_ok ? compatible++ : incompatible++;
        ws = schema_of(cJSON_GetObjectItem(pair, "writer"), &err);
        if (!ws) {
            print_message("MISMATCH %s: writer schema refused: %s\n", names[i], err.message);
            unparsed++;
            mismatches++;
            cJSON_Delete(pair);
            continue;
        }
        rs = schema_of(cJSON_GetObjectItem(pair, "reader"), &err);
        if (!rs) {
            print_message("MISMATCH %s: reader schema refused: %s\n", names[i], err.message);
            unparsed++;
            mismatches++;
            avk_schema_free(ws);
            cJSON_Delete(pair);
            continue;
        }
        memset(&pc, 0, sizeof pc);
        memset(&err, 0, sizeof err);
        st = avk_schema_check_compat(avk_schema_root(ws), avk_schema_root(rs), count_problem, &pc,
                                     &err);
        if (want_ok ? (st != AVK_OK || pc.n != 0) : (st != AVK_ERR_RESOLUTION || pc.n == 0)) {
            char *wt = cJSON_PrintUnformatted(cJSON_GetObjectItem(pair, "writer"));
            char *rt = cJSON_PrintUnformatted(cJSON_GetObjectItem(pair, "reader"));
            char *msgs = cJSON_PrintUnformatted(cJSON_GetObjectItem(pair, "messages"));
            print_message("MISMATCH %s: expected %s, got %s with %d problems%s%s\n"
                          "  writer %.300s\n  reader %.300s\n  python said %.200s\n",
                          names[i], expected->valuestring, avk_status_name(st), pc.n,
                          pc.n ? "; first: " : "", pc.first, wt, rt, msgs);
            free(wt);
            free(rt);
            free(msgs);
            mismatches++;
        } else if (st == AVK_OK) {
            /* A compatible pair must also compile into a resolving plan. */
            avk_plan *p = NULL;
            st = avk_plan_new_resolving(avk_schema_root(ws), avk_schema_root(rs), NULL, &p, &err);
            if (st != AVK_OK) {
                print_message("MISMATCH %s: compatible, but avk_plan_new_resolving returned %s: "
                              "%s\n",
                              names[i], avk_status_name(st), err.message);
                mismatches++;
            }
            avk_plan_free(p);
        }
        avk_schema_free(ws);
        avk_schema_free(rs);
        cJSON_Delete(pair);
    }
    for (i = 0; i < n; i++)
        free(names[i]);
    print_message("resolution-pairs: %zu pairs (%d compatible, %d incompatible), %d mismatches "
                  "(%d with a schema avrokit refuses)\n",
                  n, compatible, incompatible, mismatches, unparsed);
    assert_int_equal(n, 174);
    assert_int_equal(mismatches, 0);
}

/* ---- (b) resolving reads ----------------------------------------------------------------- */

/* python3-avro turns a string default of a bytes or fixed field into its
 * UTF-8 bytes ("\u00ff\u00ff" -> c3 bf c3 bf, even for a fixed of size 2);
 * the specification maps each code point to one byte (ff ff), which is
 * what avrokit does. Where a result is such a field, the expected bytes
 * are replaced by the specification's. Returns how many were replaced. */
static int spec_bytes_defaults(const avk_type *reader, cJSON *result)
{
    size_t i;
    int fixed = 0;
    if (avk_type_kind(reader) != AVK_RECORD || !cJSON_IsObject(result))
        return 0;
    for (i = 0; i < avk_type_field_count(reader); i++) {
        const avk_field *f = avk_type_field(reader, i);
        avk_kind k = avk_type_kind(avk_field_type(f));
        const char *def = avk_field_default(f);
        cJSON *item = cJSON_GetObjectItem(result, avk_field_name(f));
        cJSON *dj, *hex;
        char want_hex[1024];
        size_t n = 0;
        const unsigned char *p;
        if ((k != AVK_BYTES && k != AVK_FIXED) || !def || !item)
            continue;
        hex = cJSON_GetObjectItem(item, "$bytes_hex");
        dj = cJSON_Parse(def);
        if (!cJSON_IsString(hex) || !cJSON_IsString(dj)) {
            cJSON_Delete(dj);
            continue;
        }
        /* The default's code points (UTF-8 in cJSON) as one byte each;
         * python wrote the UTF-8 bytes themselves. */
        {
            char utf8_hex[1024];
            size_t m = 0;
            for (p = (const unsigned char *)dj->valuestring; *p && m + 3 < sizeof utf8_hex; p++)
                m += (size_t)snprintf(utf8_hex + m, sizeof utf8_hex - m, "%02x", *p);
            if (strcmp(utf8_hex, hex->valuestring) != 0) {
                cJSON_Delete(dj);
                continue; /* not the UTF-8 form: leave it */
            }
        }
        for (p = (const unsigned char *)dj->valuestring; *p && n + 3 < sizeof want_hex;) {
            unsigned cp;
            if (p[0] < 0x80) {
                cp = p[0];
                p += 1;
            } else if ((p[0] & 0xe0) == 0xc0 && p[1]) {
                cp = ((p[0] & 0x1fu) << 6) | (p[1] & 0x3fu);
                p += 2;
            } else {
                fail_msg("default %s of %s has a code point above U+07FF", def, avk_field_name(f));
                return fixed;
            }
            if (cp > 0xff)
                fail_msg("default %s of %s has a code point above U+00FF", def, avk_field_name(f));
            n += (size_t)snprintf(want_hex + n, sizeof want_hex - n, "%02x", cp);
        }
        print_message("note: field %s: python3-avro expects %s (UTF-8 of the default %s); the "
                      "specification gives %s\n",
                      avk_field_name(f), hex->valuestring, def, want_hex);
        cJSON_SetValuestring(hex, want_hex);
        cJSON_Delete(dj);
        fixed++;
    }
    return fixed;
}

/* One read: input bytes with the writer schema into the reader schema.
 * want_error: python failed; then either compiling or reading must fail
 * with RESOLUTION (these tables' errors are all resolution errors). */
static void check_read(const char *what, const cJSON *wj, const cJSON *rj, const char *hex,
                       cJSON *result, int want_error, int *compile_errors, int *read_errors,
                       int *spec_fixes)
{
    avk_error err;
    avk_schema *ws = schema_of(wj, &err), *rs;
    avk_plan *p = NULL;
    avk_status st;
    uint8_t *in;
    size_t len;
    if (!ws)
        fail_msg("%s: writer schema refused: %s", what, err.message);
    rs = schema_of(rj, &err);
    if (!rs)
        fail_msg("%s: reader schema refused: %s", what, err.message);
    len = hex_to_bytes(hex, &in);
    memset(&err, 0, sizeof err);
    st = avk_plan_new_resolving(avk_schema_root(ws), avk_schema_root(rs), NULL, &p, &err);
    if (want_error && st == AVK_ERR_RESOLUTION) {
        (*compile_errors)++;
    } else if (st != AVK_OK) {
        fail_msg("%s: avk_plan_new_resolving returned %s: %s", what, avk_status_name(st),
                 err.message);
    } else {
        avk_arena *a = arena_new();
        avk_reader r;
        avk_value got;
        avk_reader_init_memory(&r, in, len);
        st = avk_plan_decode(p, &r, a, &got, &err);
        if (want_error) {
            if (st != AVK_ERR_RESOLUTION)
                fail_msg("%s: python failed; decode returned %s, expected RESOLUTION", what,
                         avk_status_name(st));
            (*read_errors)++;
        } else {
            avk_value want;
            char why[512], *got_text, *want_text;
            if (st != AVK_OK)
                fail_msg("%s: decode returned %s: %s (path %s)", what, avk_status_name(st),
                         err.message, err.path);
            assert_int_equal(avk_reader_offset(&r), len);
            *spec_fixes += spec_bytes_defaults(avk_schema_root(rs), result);
            if (!avkt_value_from_json(&want, avk_schema_root(rs), result, a, why, sizeof why))
                fail_msg("%s: expected result does not fit the reader schema: %s", what, why);
            if (!avk_value_equal(&got, &want)) {
                got_text = avkt_value_to_text(&got);
                want_text = avkt_value_to_text(&want);
                fail_msg("%s: got %s, expected %s", what, got_text, want_text);
            }
            /* Skip passes the same bytes. */
            avk_reader_init_memory(&r, in, len);
            AVKT_OK(avk_plan_skip(p, &r, &err));
            assert_int_equal(avk_reader_offset(&r), len);
        }
        avk_arena_free(a);
    }
    avk_plan_free(p);
    free(in);
    avk_schema_free(ws);
    avk_schema_free(rs);
}

static void test_py_resolution_reads(void **state)
{
    cJSON *table = load_json("tables/py_io_resolution_reads.json"), *row;
    int n = 0, results = 0, compile_errors = 0, read_errors = 0, spec_fixes = 0;
    (void)state;
    if (!table)
        skip();
    cJSON_ArrayForEach(row, table)
    {
        char what[128];
        const cJSON *error = cJSON_GetObjectItem(row, "error");
        snprintf(what, sizeof what, "py_io_resolution_reads.json row %d", n);
        check_read(what, cJSON_GetObjectItem(row, "writer_schema"),
                   cJSON_GetObjectItem(row, "reader_schema"),
                   cJSON_GetObjectItem(row, "input_hex")->valuestring,
                   cJSON_GetObjectItem(row, "result"), error != NULL, &compile_errors,
                   &read_errors, &spec_fixes);
        if (!error)
            results++;
        n++;
    }
    print_message("py_io_resolution_reads.json: %d rows, %d results, %d compile errors, %d read "
                  "errors, %d bytes defaults taken per the specification\n",
                  n, results, compile_errors, read_errors, spec_fixes);
    assert_int_equal(n, 24);
    /* No default for H: refused at compile; symbol FOO: refused when read. */
    assert_int_equal(compile_errors, 1);
    assert_int_equal(read_errors, 1);
    assert_int_equal(spec_fixes, 2);
    cJSON_Delete(table);
}

static void test_py_default_values(void **state)
{
    cJSON *table = load_json("tables/py_io_default_values.json"), *row;
    int n = 0, compile_errors = 0, read_errors = 0, spec_fixes = 0;
    (void)state;
    if (!table)
        skip();
    cJSON_ArrayForEach(row, table)
    {
        char what[128];
        const cJSON *wj = cJSON_GetObjectItem(row, "writer_schema");
        const char *hex = cJSON_GetObjectItem(row, "binary_hex")->valuestring;
        snprintf(what, sizeof what, "py_io_default_values.json row %d", n);
        /* The writer datum encodes to the given bytes. */
        {
            avk_error err;
            avk_schema *ws = schema_of(wj, &err);
            avk_arena *a = arena_new();
            avk_value v;
            avk_writer w;
            char why[512];
            size_t len, i;
            const uint8_t *d;
            char got_hex[512];
            avk_plan *wp;
            assert_non_null(ws);
            wp = avkt_plan_new(avk_schema_root(ws), 0, NULL, 0);
            if (!avkt_value_from_json(&v, avk_schema_root(ws), cJSON_GetObjectItem(row, "writer_datum"),
                                      a, why, sizeof why))
                fail_msg("%s: writer_datum: %s", what, why);
            AVKT_OK(avk_writer_init_memory(&w, NULL, NULL));
            AVKT_OK(avk_plan_encode(wp, &v, &w, &err));
            d = avk_writer_data(&w, &len);
            assert_true(2 * len < sizeof got_hex);
            for (i = 0; i < len; i++)
                snprintf(got_hex + 2 * i, 3, "%02x", d[i]);
            got_hex[2 * len] = '\0';
            assert_string_equal(got_hex, hex);
            avk_writer_destroy(&w);
            avk_plan_free(wp);
            avk_arena_free(a);
            avk_schema_free(ws);
        }
        check_read(what, wj, cJSON_GetObjectItem(row, "reader_schema"), hex,
                   cJSON_GetObjectItem(row, "expected"), 0, &compile_errors, &read_errors,
                   &spec_fixes);
        n++;
    }
    print_message("py_io_default_values.json: %d rows read with their defaults, %d bytes "
                  "defaults taken per the specification\n",
                  n, spec_fixes);
    assert_int_equal(n, 14);
    assert_int_equal(spec_fixes, 2);
    cJSON_Delete(table);
}

/* py_io_plain_reads.json has no reader schemas: every row is read through
 * a plan resolving the writer schema against itself, which must agree with
 * the plain plan: same status, value and position (an enum index out of
 * the writer's range is bad data, MALFORMED either way, even where the
 * enum has a default). */
static void test_py_plain_reads_self_resolved(void **state)
{
    cJSON *table = load_json("tables/py_io_plain_reads.json"), *row;
    int n = 0, same_ok = 0, same_error = 0, no_input = 0;
    (void)state;
    if (!table)
        skip();
    cJSON_ArrayForEach(row, table)
    {
        const cJSON *input_hex = cJSON_GetObjectItem(row, "input_hex");
        const cJSON *reader = cJSON_GetObjectItem(row, "reader_schema");
        avk_error err, err2;
        avk_schema *ws;
        avk_plan *plain, *self = NULL;
        avk_arena *a, *b;
        avk_reader r1, r2;
        avk_value v1, v2;
        avk_status s1, s2;
        uint8_t *in;
        size_t len;
        n++;
        assert_true(!reader || cJSON_IsNull(reader));
        if (!cJSON_IsString(input_hex)) {
            no_input++;
            continue;
        }
        ws = schema_of(cJSON_GetObjectItem(row, "writer_schema"), &err);
        assert_non_null(ws);
        len = hex_to_bytes(input_hex->valuestring, &in);
        plain = avkt_plan_new(avk_schema_root(ws), 0, NULL, 0);
        AVKT_OK(avk_plan_new_resolving(avk_schema_root(ws), avk_schema_root(ws), NULL, &self, &err));
        a = arena_new();
        b = arena_new();
        avk_reader_init_memory(&r1, in, len);
        avk_reader_init_memory(&r2, in, len);
        s1 = avk_plan_decode(plain, &r1, a, &v1, &err);
        s2 = avk_plan_decode(self, &r2, b, &v2, &err2);
        if (s1 != s2)
            fail_msg("py_io_plain_reads.json row %d: plain decode %s (%s), self-resolved %s (%s)",
                     n - 1, avk_status_name(s1), err.message, avk_status_name(s2), err2.message);
        if (s1 == AVK_OK) {
            if (!avk_value_equal(&v1, &v2))
                fail_msg("py_io_plain_reads.json row %d: self-resolved value differs", n - 1);
            assert_int_equal(avk_reader_offset(&r1), avk_reader_offset(&r2));
            same_ok++;
        } else {
            same_error++;
        }
        avk_arena_free(a);
        avk_arena_free(b);
        avk_plan_free(plain);
        avk_plan_free(self);
        free(in);
        avk_schema_free(ws);
    }
    print_message("py_io_plain_reads.json self-resolved: %d rows agree with the plain plan (%d "
                  "values, %d errors), %d without input\n",
                  same_ok + same_error, same_ok, same_error, no_input);
    assert_int_equal(n, 71);
    cJSON_Delete(table);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resolution_pairs),
        cmocka_unit_test(test_py_resolution_reads),
        cmocka_unit_test(test_py_default_values),
        cmocka_unit_test(test_py_plain_reads_self_resolved),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
