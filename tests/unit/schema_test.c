/* Unit tests for schemas: interop corpora, names, attributes, properties, defaults, logical types, errors, limits, allocation failures, threads. */
#define _DEFAULT_SOURCE 1
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "avkt.h"
#include "schema_ambiguity.h"
#include "failalloc.h"

#ifndef AVK_INTEROP_DIR
#define AVK_INTEROP_DIR ""
#endif

/* ---- helpers ------------------------------------------------------------------ */

/* Parses text that must fail with status; path (when not NULL) must equal
 * err.path exactly and every non-NULL needle must occur in err.message. */
static void expect_fail_at(const char *json, size_t len, avk_status status, const char *path,
                           const char *needle, const char *needle2, const char *file, int line)
{
    avk_schema *s = (avk_schema *)(uintptr_t)1;
    avk_error err;
    avk_status st;
    memset(&err, 0x55, sizeof err);
    st = avk_schema_parse(json, len, NULL, &s, &err);
    if (st != status)
        fail_msg("%s:%d: parse returned %s, expected %s (message: %s)\n  schema: %.300s", file,
                 line, avk_status_name(st), avk_status_name(status),
                 st == AVK_OK ? "-" : err.message, json);
    if (s != NULL)
        fail_msg("%s:%d: *out is not NULL after a failed parse", file, line);
    if (err.status != status)
        fail_msg("%s:%d: err.status is %s", file, line, avk_status_name(err.status));
    if (err.message[0] == '\0' || memchr(err.message, '\0', sizeof err.message) == NULL)
        fail_msg("%s:%d: empty or unterminated message", file, line);
    if (path && strcmp(err.path, path) != 0)
        fail_msg("%s:%d: err.path is \"%s\", expected \"%s\" (message: %s)", file, line, err.path,
                 path, err.message);
    if (needle && !strstr(err.message, needle))
        fail_msg("%s:%d: message \"%s\" lacks \"%s\"", file, line, err.message, needle);
    if (needle2 && !strstr(err.message, needle2))
        fail_msg("%s:%d: message \"%s\" lacks \"%s\"", file, line, err.message, needle2);
}

#define FAIL_RAW(json, status, path, needle)                                                 \
    expect_fail_at((json), strlen(json), (status), (path), (needle), NULL, __FILE__, __LINE__)
#define FAIL(sq, status, path, needle) FAIL_RAW(avkt_q(sq), status, path, needle)

static int interop_present(void)
{
    struct stat st;
    return AVK_INTEROP_DIR[0] != '\0' && stat(AVK_INTEROP_DIR "/apache", &st) == 0 &&
           S_ISDIR(st.st_mode);
}

#define SKIP_WITHOUT_INTEROP()                                                                \
    do {                                                                                      \
        if (!interop_present()) {                                                             \
            print_message("SKIP: interop data not found at \"%s/apache\"; the shared apache/avro " \
                          "test data is expected beside the source tree at ../shared/interop\n", \
                          AVK_INTEROP_DIR);                                                   \
            skip();                                                                           \
        }                                                                                     \
    } while (0)

/* Memory writer output of canonical form / full JSON, malloc'd and NUL-terminated. */
static char *canonical_of(const avk_type *t)
{
    avk_writer w;
    avk_error err;
    const uint8_t *data;
    size_t len;
    char *s;
    AVKT_OK(avk_writer_init_memory(&w, NULL, &err));
    AVKT_OK(avk_type_write_canonical(t, &w, &err));
    data = avk_writer_data(&w, &len);
    s = (char *)malloc(len + 1);
    assert_non_null(s);
    memcpy(s, data, len);
    s[len] = '\0';
    avk_writer_destroy(&w);
    return s;
}

static char *json_of(const avk_type *t, int pretty)
{
    avk_writer w;
    avk_error err;
    const uint8_t *data;
    size_t len;
    char *s;
    AVKT_OK(avk_writer_init_memory(&w, NULL, &err));
    AVKT_OK(avk_type_write_json(t, pretty, &w, &err));
    data = avk_writer_data(&w, &len);
    s = (char *)malloc(len + 1);
    assert_non_null(s);
    memcpy(s, data, len);
    s[len] = '\0';
    avk_writer_destroy(&w);
    return s;
}


static size_t ambiguous_canonical_forms; /* schemas whose canonical round trip was skipped */

/* Every round trip a valid schema must survive: canonical form parses to
 * the same canonical form and Rabin fingerprint (unless the form is
 * ambiguous, see avkt_null_ns_ambiguous); full JSON (compact and pretty) parses
 * to an equal schema. */
static void check_round_trips(const avk_schema *s, const char *what)
{
    const avk_type *root = avk_schema_root(s);
    char *canon = canonical_of(root);
    char *canon2, *full;
    avk_schema *again;
    uint8_t fp1[32], fp2[32];
    size_t n1 = 0, n2 = 0;
    avk_error err;
    int pretty;
    if (avkt_null_ns_ambiguous(root)) {
        ambiguous_canonical_forms++;
        free(canon);
        goto full_json;
    }
    again = AVKT_PARSE_RAW(canon);
    canon2 = canonical_of(avk_schema_root(again));
    if (strcmp(canon, canon2) != 0)
        fail_msg("%s: canonical form not stable:\n  %s\n  %s", what, canon, canon2);
    AVKT_OK(avk_type_fingerprint(root, AVK_FINGERPRINT_RABIN, fp1, &n1, &err));
    AVKT_OK(avk_type_fingerprint(avk_schema_root(again), AVK_FINGERPRINT_RABIN, fp2, &n2, &err));
    assert_int_equal(n1, 8);
    assert_int_equal(n2, 8);
    assert_memory_equal(fp1, fp2, 8);
    {
        uint64_t r = avk_rabin64(canon, strlen(canon));
        int i;
        for (i = 0; i < 8; i++)
            assert_int_equal(fp1[i], (uint8_t)(r >> (8 * i)));
    }
    free(canon2);
    avk_schema_free(again);
    free(canon);

full_json:
    for (pretty = 0; pretty <= 1; pretty++) {
        full = json_of(root, pretty);
        again = AVKT_PARSE_RAW(full);
        if (avk_type_equal(root, avk_schema_root(again)) != 1)
            fail_msg("%s: write_json (pretty %d) does not parse back equal:\n  %s", what, pretty,
                     full);
        avk_schema_free(again);
        free(full);
    }
}

/* ---- interop corpora ------------------------------------------------------------ */

typedef enum expect_kind { MUST_PASS, MUST_FAIL } expect_kind;

/* Parses one file; returns 1 when it was read. */
static int check_file(const char *path, expect_kind kind)
{
    size_t len;
    char *text = avkt_read_file(path, &len);
    avk_schema *s = NULL;
    avk_error err;
    avk_status st;
    if (!text)
        fail_msg("%s: cannot read", path);
    memset(&err, 0, sizeof err);
    st = avk_schema_parse(text, len, NULL, &s, &err);
    if (kind == MUST_PASS) {
        if (st != AVK_OK)
            fail_msg("%s: must parse, got %s: %s", path, avk_status_name(st), err.message);
        check_round_trips(s, path);
        avk_schema_free(s);
    } else {
        const char *base = strrchr(path, '/');
        avk_status want = AVK_ERR_SCHEMA;
        base = base ? base + 1 : path;
        /* Not JSON at all: a syntax error, not a schema error. */
        if (strcmp(base, "py_primitive_02.json") == 0 || strcmp(base, "enum_without_name") == 0 ||
            strcmp(base, "record_with_nonarray_fields") == 0)
            want = AVK_ERR_MALFORMED;
        if (st != want)
            fail_msg("%s: must fail with %s, got %s (%s)", path, avk_status_name(want),
                     avk_status_name(st), st == AVK_OK ? "parsed" : err.message);
        assert_null(s);
        if (err.message[0] == '\0')
            fail_msg("%s: no message", path);
    }
    free(text);
    return 1;
}

/* Checks every regular file in dir (relative to the interop folder) whose
 * name ends with suffix (NULL: any); returns how many. */
static size_t check_dir(const char *dir, const char *suffix, expect_kind kind)
{
    char path[1024];
    DIR *d;
    struct dirent *e;
    size_t n = 0;
    snprintf(path, sizeof path, "%s/apache/%s", AVK_INTEROP_DIR, dir);
    d = opendir(path);
    if (!d)
        fail_msg("cannot open %s", path);
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name), sl = suffix ? strlen(suffix) : 0;
        struct stat st;
        if (e->d_name[0] == '.')
            continue;
        if (suffix && (l < sl || strcmp(e->d_name + l - sl, suffix) != 0))
            continue;
        snprintf(path, sizeof path, "%s/apache/%s/%s", AVK_INTEROP_DIR, dir, e->d_name);
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        n += (size_t)check_file(path, kind);
    }
    closedir(d);
    return n;
}

static void test_interop_python_valid(void **state)
{
    size_t n;
    (void)state;
    SKIP_WITHOUT_INTEROP();
    n = check_dir("schemas-valid", ".avsc", MUST_PASS);
    print_message("schemas-valid: %zu schemas parsed and round-tripped (%zu with an ambiguous "
                  "canonical form so far)\n", n, ambiguous_canonical_forms);
    assert_true(n >= 77);
}

static void test_interop_python_invalid(void **state)
{
    size_t n;
    (void)state;
    SKIP_WITHOUT_INTEROP();
    n = check_dir("schemas-invalid", ".json", MUST_FAIL);
    print_message("schemas-invalid: %zu schemas rejected\n", n);
    assert_true(n >= 22);
}

static void test_interop_avroc_pass_fail(void **state)
{
    size_t pass, failn;
    (void)state;
    SKIP_WITHOUT_INTEROP();
    pass = check_dir("lang/c/tests/schema_tests/pass", NULL, MUST_PASS);
    failn = check_dir("lang/c/tests/schema_tests/fail", NULL, MUST_FAIL);
    print_message("avro-c schema_tests: %zu pass, %zu fail (%zu with an ambiguous canonical "
                  "form so far)\n", pass, failn, ambiguous_canonical_forms);
    assert_true(pass >= 28);
    assert_true(failn >= 12);
}

/* Every row of MANIFEST.md that says "a parser must accept it" (schemas,
 * .avsc and schema.json files, avro-c's pass folder) or "must reject it". */
static void test_interop_manifest(void **state)
{
    size_t len, accepted = 0, rejected = 0;
    char *text, *line, *next;
    (void)state;
    SKIP_WITHOUT_INTEROP();
    text = avkt_read_file(AVK_INTEROP_DIR "/apache/MANIFEST.md", &len);
    assert_non_null(text);
    for (line = text; line && *line; line = next) {
        char *end = strchr(line, '\n');
        next = end ? end + 1 : NULL;
        if (end)
            *end = '\0';
        if (strncmp(line, "| ", 2) == 0) {
            char *file = line + 2, *bar = strstr(file, " |");
            char path[1024];
            expect_kind kind;
            if (!bar)
                continue;
            if (strstr(bar, "a parser must accept it"))
                kind = MUST_PASS;
            else if (strstr(bar, "a parser must reject it"))
                kind = MUST_FAIL;
            else
                continue;
            *bar = '\0';
            snprintf(path, sizeof path, "%s/apache/%s", AVK_INTEROP_DIR, file);
            check_file(path, kind);
            if (kind == MUST_PASS)
                accepted++;
            else
                rejected++;
        }
    }
    free(text);
    print_message("MANIFEST.md: %zu schemas accepted, %zu rejected\n", accepted, rejected);
    assert_true(accepted >= 46);
    assert_true(rejected >= 12);
}

/* ---- names and namespaces -------------------------------------------------------- */

static const avk_type *field_type(const avk_type *rec, const char *name)
{
    const avk_field *f = avk_type_field_by_name(rec, name);
    if (!f)
        fail_msg("no field %s in %s", name, avk_type_fullname(rec));
    return avk_field_type(f);
}

static void assert_names(const avk_type *t, const char *name, const char *space, const char *full)
{
    assert_non_null(t);
    assert_true(avk_type_is_named(t));
    assert_string_equal(avk_type_name(t), name);
    assert_string_equal(avk_type_namespace(t), space);
    assert_string_equal(avk_type_fullname(t), full);
}

static void test_names(void **state)
{
    avk_schema *s;
    const avk_type *root, *in1, *in2, *in3, *t;
    (void)state;
    s = AVKT_PARSE(
        "{'type':'record','name':'Outer','namespace':'a.b','fields':["
        " {'name':'inherit','type':{'type':'record','name':'In1','fields':["
        "   {'name':'e','type':{'type':'enum','name':'E1','symbols':['X']}}]}},"
        " {'name':'dotted','type':{'type':'record','name':'c.d.In2','namespace':'ignored',"
        "   'fields':[{'name':'inner','type':{'type':'fixed','name':'F2','size':4}}]}},"
        " {'name':'nullns','type':{'type':'record','name':'In3','namespace':'','fields':["
        "   {'name':'g','type':{'type':'enum','name':'E3','symbols':['Y']}}]}},"
        " {'name':'nullns2','type':{'type':'fixed','name':'F4','namespace':null,'size':1}},"
        " {'name':'ref_simple','type':'In1'},"
        " {'name':'ref_full','type':'c.d.F2'},"
        " {'name':'ref_null','type':'In3'},"
        " {'name':'ref_null2','type':'E3'},"
        " {'name':'ref_obj','type':{'type':'a.b.E1'}},"
        " {'name':'self','type':['null','Outer']},"
        " {'name':'other_ns','type':{'type':'enum','name':'x.In1','symbols':['Z']}}"
        "]}");
    root = avk_schema_root(s);
    assert_names(root, "Outer", "a.b", "a.b.Outer");
    in1 = field_type(root, "inherit");
    assert_names(in1, "In1", "a.b", "a.b.In1");
    assert_names(field_type(in1, "e"), "E1", "a.b", "a.b.E1");
    in2 = field_type(root, "dotted");
    assert_names(in2, "In2", "c.d", "c.d.In2"); /* a dotted name beats "namespace" */
    assert_names(field_type(in2, "inner"), "F2", "c.d", "c.d.F2");
    in3 = field_type(root, "nullns");
    assert_names(in3, "In3", "", "In3");
    assert_names(field_type(in3, "g"), "E3", "", "E3"); /* inherits the null namespace */
    /* "namespace": null counts as absent: the enclosing namespace applies, as in Java and Python. */
    assert_names(field_type(root, "nullns2"), "F4", "a.b", "a.b.F4");

    /* References are the defining nodes themselves. */
    assert_ptr_equal(field_type(root, "ref_simple"), in1);
    assert_ptr_equal(field_type(root, "ref_full"), field_type(in2, "inner"));
    assert_ptr_equal(field_type(root, "ref_null"), in3);
    assert_ptr_equal(field_type(root, "ref_null2"), field_type(in3, "g"));
    assert_ptr_equal(field_type(root, "ref_obj"), field_type(in1, "e"));
    t = field_type(root, "self");
    assert_int_equal(avk_type_kind(t), AVK_UNION);
    assert_ptr_equal(avk_type_branch(t, 1), root);
    /* The same simple name in another namespace is another type. */
    assert_names(field_type(root, "other_ns"), "In1", "x", "x.In1");

    assert_ptr_equal(avk_schema_find(s, "a.b.Outer"), root);
    assert_ptr_equal(avk_schema_find(s, "a.b.In1"), in1);
    assert_ptr_equal(avk_schema_find(s, "c.d.In2"), in2);
    assert_ptr_equal(avk_schema_find(s, "In3"), in3);
    assert_ptr_equal(avk_schema_find(s, "x.In1"), field_type(root, "other_ns"));
    assert_null(avk_schema_find(s, "Outer"));
    assert_null(avk_schema_find(s, "In2"));
    assert_null(avk_schema_find(s, "ignored.In2"));
    assert_null(avk_schema_find(s, "int"));
    avk_schema_free(s);

    /* A recursive linked list: the branch is the record itself. */
    s = AVKT_PARSE("{'type':'record','name':'LinkedList','fields':[{'name':'value','type':'int'},"
                   "{'name':'next','type':['null','LinkedList']}]}");
    root = avk_schema_root(s);
    t = field_type(root, "next");
    assert_int_equal(avk_type_branch_count(t), 2);
    assert_int_equal(avk_type_kind(avk_type_branch(t, 0)), AVK_NULL);
    assert_ptr_equal(avk_type_branch(t, 1), root);
    avk_schema_free(s);

    /* Mutual recursion through a namespace, and a reference as the root's
     * array items. */
    s = AVKT_PARSE("{'type':'record','name':'n.A','fields':[{'name':'b','type':{'type':'record',"
                   "'name':'B','fields':[{'name':'a','type':['null','A']},"
                   "{'name':'list','type':{'type':'array','items':'n.B'}}]}}]}");
    root = avk_schema_root(s);
    t = field_type(root, "b");
    assert_names(t, "B", "n", "n.B");
    assert_ptr_equal(avk_type_branch(field_type(t, "a"), 1), root);
    assert_ptr_equal(avk_type_items(field_type(t, "list")), t);
    avk_schema_free(s);

    /* Names whose last part is a type name: fine when not a primitive's
     * full name (apache/avro's Python suite accepts these). */
    s = AVKT_PARSE(
        "{'type':'record','name':'record','fields':[{'name':'f','type':['null','record']}]}");
    assert_ptr_equal(avk_type_branch(field_type(avk_schema_root(s), "f"), 1), avk_schema_root(s));
    avk_schema_free(s);
    s = AVKT_PARSE("{'type':'enum','name':'ns.int','symbols':['A']}");
    assert_names(avk_schema_root(s), "int", "ns", "ns.int");
    avk_schema_free(s);

    /* Redefinition, references to undefined or not-yet-defined names. */
    FAIL("{'type':'record','name':'R','fields':[{'name':'a','type':{'type':'fixed','name':'X','size':1}},"
         "{'name':'b','type':{'type':'enum','name':'X','symbols':['A']}}]}",
         AVK_ERR_SCHEMA, NULL, "redefinition of \"X\"");
    FAIL("{'type':'record','name':'R','namespace':'n','fields':[{'name':'a','type':'R'},"
         "{'name':'b','type':{'type':'record','name':'n.R','fields':[]}}]}",
         AVK_ERR_SCHEMA, NULL, "redefinition of \"n.R\"");
    /* The same simple name in two namespaces is fine. */
    s = AVKT_PARSE("{'type':'record','name':'R','fields':[{'name':'a','type':{'type':'fixed','name'"
                   ":'p.X','size':1}},"
                   "{'name':'b','type':{'type':'fixed','name':'q.X','size':2}}]}");
    assert_int_equal(avk_type_fixed_size(avk_schema_find(s, "q.X")), 2);
    avk_schema_free(s);
    FAIL("{'type':'record','name':'R','fields':[{'name':'a','type':'Later'},"
         "{'name':'b','type':{'type':'fixed','name':'Later','size':1}}]}",
         AVK_ERR_SCHEMA, NULL, "unknown type name \"Later\"");
    FAIL("{'type':'record','name':'R','namespace':'n','fields':[{'name':'a','type':'m.R'}]}",
         AVK_ERR_SCHEMA, NULL, "unknown type name \"m.R\"");
    /* References are looked up by namespace and simple name: a full name
     * finds its type, a simple one the enclosing namespace's, then the null
     * namespace's; ".X" names no type (X of the null namespace is "X"), nor
     * does a name with a NUL inside. */
    s = AVKT_PARSE("{'type':'record','name':'R','fields':[{'name':'a','type':{'type':'fixed','name'"
                   ":'p.X','size':1}},{'name':'b','type':{'type':'fixed','name':'X','size':3}},"
                   "{'name':'c','type':{'type':'fixed','name':'q.X','size':2}},"
                   "{'name':'d','type':'p.X'},{'name':'e','type':'X'},"
                   "{'name':'f','type':{'type':'record','name':'q.S','fields':["
                   "{'name':'g','type':'X'},{'name':'h','type':'R'}]}}]}");
    {
        const avk_type *r = avk_schema_root(s), *sq;
        assert_int_equal(avk_type_fixed_size(avk_field_type(avk_type_field(r, 3))), 1);
        assert_int_equal(avk_type_fixed_size(avk_field_type(avk_type_field(r, 4))), 3);
        sq = avk_field_type(avk_type_field(r, 5));
        assert_int_equal(avk_type_fixed_size(avk_field_type(avk_type_field(sq, 0))), 2);
        assert_ptr_equal(avk_field_type(avk_type_field(sq, 1)), r);
    }
    avk_schema_free(s);
    FAIL("{'type':'record','name':'R','fields':[{'name':'a','type':{'type':'fixed','name':'X',"
         "'size':1}},{'name':'b','type':'.X'}]}",
         AVK_ERR_SCHEMA, NULL, "unknown type name \".X\"");
    FAIL_RAW("{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":{"
             "\"type\":\"fixed\",\"name\":\"X\",\"size\":1}},{\"name\":\"b\",\"type\":"
             "\"X\\u0000\"}]}",
             AVK_ERR_SCHEMA, NULL, "unknown type name \"X\"");

    /* Bad names and namespaces. */
    FAIL("{'type':'fixed','name':'int','size':1}", AVK_ERR_SCHEMA, NULL, "int");
    FAIL("{'type':'fixed','name':'1abc','size':1}", AVK_ERR_SCHEMA, NULL, "1abc");
    FAIL("{'type':'fixed','name':'a-b','size':1}", AVK_ERR_SCHEMA, NULL, "a-b");
    FAIL("{'type':'fixed','name':'a..b','size':1}", AVK_ERR_SCHEMA, NULL, NULL);
    FAIL("{'type':'fixed','name':'.a','size':1}", AVK_ERR_SCHEMA, NULL, NULL);
    FAIL("{'type':'fixed','name':'a.','size':1}", AVK_ERR_SCHEMA, NULL, NULL);
    FAIL("{'type':'fixed','name':'','size':1}", AVK_ERR_SCHEMA, NULL, NULL);
    FAIL("{'type':'fixed','name':'ok','namespace':'1x','size':1}", AVK_ERR_SCHEMA, NULL, "1x");
    FAIL("{'type':'fixed','name':'ok','namespace':'a.','size':1}", AVK_ERR_SCHEMA, NULL, NULL);
    FAIL("{'type':'fixed','name':'ok','namespace':5,'size':1}", AVK_ERR_SCHEMA, NULL, NULL);
    FAIL("{'type':'fixed','name':5,'size':1}", AVK_ERR_SCHEMA, NULL, NULL);
    FAIL("{'type':'record','name':'R','fields':[{'name':'a.b','type':'int'}]}", AVK_ERR_SCHEMA, NULL,
         "a.b");
    FAIL("{'type':'record','name':'R','fields':[{'name':'a','type':'int'},{'name':'a','type':'long'}]}",
         AVK_ERR_SCHEMA, NULL, "duplicate field name \"a\"");
    FAIL_RAW("{\"type\":\"fixed\",\"name\":\"\xc3\x84rger\",\"size\":1}", AVK_ERR_SCHEMA, NULL, NULL);
}

static void test_aliases(void **state)
{
    avk_schema *s;
    const avk_type *root, *e;
    const avk_field *f;
    (void)state;
    s = AVKT_PARSE("{'type':'record','name':'Rec','namespace':'a.b','aliases':['Old','x.Older'],"
                   "'fields':[{'name':'f','type':'int','aliases':['f_old','g']},"
                   "{'name':'e','type':{'type':'enum','name':'E','namespace':'c','aliases':['E0'],"
                   "'symbols':['A']}}]}");
    root = avk_schema_root(s);
    assert_int_equal(avk_type_alias_count(root), 2);
    assert_string_equal(avk_type_alias(root, 0), "a.b.Old"); /* qualified with the namespace */
    assert_string_equal(avk_type_alias(root, 1), "x.Older");
    assert_null(avk_type_alias(root, 2));
    f = avk_type_field(root, 0);
    assert_int_equal(avk_field_alias_count(f), 2);
    assert_string_equal(avk_field_alias(f, 0), "f_old");
    assert_string_equal(avk_field_alias(f, 1), "g");
    assert_null(avk_field_alias(f, 2));
    assert_int_equal(avk_field_alias_count(avk_type_field(root, 1)), 0);
    e = field_type(root, "e");
    assert_int_equal(avk_type_alias_count(e), 1);
    assert_string_equal(avk_type_alias(e, 0), "c.E0");
    /* avk_schema_find knows aliases. */
    assert_ptr_equal(avk_schema_find(s, "a.b.Old"), root);
    assert_ptr_equal(avk_schema_find(s, "x.Older"), root);
    assert_ptr_equal(avk_schema_find(s, "c.E0"), e);
    assert_null(avk_schema_find(s, "Old"));
    avk_schema_free(s);

    FAIL("{'type':'fixed','name':'F','size':1,'aliases':'G'}", AVK_ERR_SCHEMA, NULL, "aliases");
    FAIL("{'type':'fixed','name':'F','size':1,'aliases':['1G']}", AVK_ERR_SCHEMA, NULL, "1G");
    FAIL("{'type':'fixed','name':'F','size':1,'aliases':[3]}", AVK_ERR_SCHEMA, NULL, NULL);
    FAIL("{'type':'record','name':'R','fields':[{'name':'f','type':'int','aliases':['a.b']}]}",
         AVK_ERR_SCHEMA, NULL, "a.b");
}

/* ---- every accessor ------------------------------------------------------------- */

static void test_accessors(void **state)
{
    avk_schema *s;
    const avk_type *root, *t, *en, *fx;
    const avk_field *f;
    (void)state;
    s = AVKT_PARSE("{'type':'error','name':'Err','namespace':'n','doc':'record doc','fields':["
                   " {'name':'a','type':'int','doc':'field doc','order':'descending',"
                   "  'aliases':['a0','a1'],'default':1,'x-prop':{'k' : [1, 2]}},"
                   " {'name':'b','type':{'type':'array','items':'long'},'order':'ignore'},"
                   " {'name':'c','type':{'type':'map','values':{'type':'enum','name':'E',"
                   "  'symbols':['A','B','C'],'default':'B','doc':'enum doc'}}},"
                   " {'name':'d','type':['null',{'type':'fixed','name':'F','size':16,"
                   "  'logicalType':'uuid'}],'default':null,'order':'ascending'},"
                   " {'name':'e','type':{'type':'bytes','logicalType':'decimal','precision':10,"
                   "  'scale':3}}]}");
    root = avk_schema_root(s);
    assert_int_equal(avk_type_kind(root), AVK_RECORD);
    assert_true(avk_type_is_error(root));
    assert_true(avk_type_is_named(root));
    assert_string_equal(avk_type_doc(root), "record doc");
    assert_int_equal(avk_type_field_count(root), 5);
    assert_null(avk_type_field(root, 5));
    assert_null(avk_type_field_by_name(root, "zz"));
    assert_int_equal(avk_field_index(avk_type_field_by_name(root, "c")), 2);
    assert_int_equal(avk_type_prop_count(root), 0);
    assert_int_equal(avk_type_symbol_count(root), 0);
    assert_int_equal(avk_type_branch_count(root), 0);
    assert_null(avk_type_items(root));
    assert_null(avk_type_values(root));
    assert_int_equal(avk_type_fixed_size(root), 0);
    assert_int_equal(avk_type_logical(root), AVK_LOGICAL_NONE);

    f = avk_type_field(root, 0);
    assert_string_equal(avk_field_name(f), "a");
    assert_int_equal(avk_field_index(f), 0);
    assert_string_equal(avk_field_doc(f), "field doc");
    assert_int_equal(avk_field_order(f), AVK_ORDER_DESCENDING);
    assert_int_equal(avk_type_kind(avk_field_type(f)), AVK_INT);
    assert_string_equal(avk_field_default(f), "1");
    assert_int_equal(avk_field_prop_count(f), 1);
    assert_string_equal(avk_field_prop_key(f, 0), "x-prop");
    assert_string_equal(avk_field_prop_value(f, 0), "{\"k\":[1,2]}");
    assert_string_equal(avk_field_prop(f, "x-prop"), "{\"k\":[1,2]}");
    assert_null(avk_field_prop(f, "doc")); /* attributes are not properties */
    assert_null(avk_field_prop_key(f, 1));
    assert_null(avk_field_prop_value(f, 1));

    f = avk_type_field(root, 1);
    assert_int_equal(avk_field_order(f), AVK_ORDER_IGNORE);
    assert_null(avk_field_doc(f));
    assert_null(avk_field_default(f));
    assert_int_equal(avk_field_prop_count(f), 0);
    t = avk_field_type(f);
    assert_int_equal(avk_type_kind(t), AVK_ARRAY);
    assert_false(avk_type_is_named(t));
    assert_null(avk_type_name(t));
    assert_null(avk_type_fullname(t));
    assert_int_equal(avk_type_kind(avk_type_items(t)), AVK_LONG);
    assert_null(avk_type_values(t));

    t = field_type(root, "c");
    assert_int_equal(avk_type_kind(t), AVK_MAP);
    assert_null(avk_type_items(t));
    en = avk_type_values(t);
    assert_int_equal(avk_type_kind(en), AVK_ENUM);
    assert_names(en, "E", "n", "n.E");
    assert_false(avk_type_is_error(en));
    assert_string_equal(avk_type_doc(en), "enum doc");
    assert_int_equal(avk_type_symbol_count(en), 3);
    assert_string_equal(avk_type_symbol(en, 0), "A");
    assert_string_equal(avk_type_symbol(en, 2), "C");
    assert_null(avk_type_symbol(en, 3));
    assert_int_equal(avk_type_symbol_index(en, "C"), 2);
    assert_int_equal(avk_type_symbol_index(en, "Z"), -1);
    assert_int_equal(avk_type_enum_default(en), 1);
    assert_int_equal(avk_type_prop_count(en), 0); /* "default" is an enum attribute */

    f = avk_type_field(root, 3);
    assert_int_equal(avk_field_order(f), AVK_ORDER_ASCENDING);
    assert_string_equal(avk_field_default(f), "null");
    t = avk_field_type(f);
    assert_int_equal(avk_type_kind(t), AVK_UNION);
    assert_int_equal(avk_type_branch_count(t), 2);
    assert_int_equal(avk_type_kind(avk_type_branch(t, 0)), AVK_NULL);
    assert_null(avk_type_branch(t, 2));
    fx = avk_type_branch(t, 1);
    assert_int_equal(avk_type_kind(fx), AVK_FIXED);
    assert_names(fx, "F", "n", "n.F");
    assert_null(avk_type_doc(fx));
    assert_int_equal(avk_type_fixed_size(fx), 16);
    assert_int_equal(avk_type_logical(fx), AVK_LOGICAL_UUID);
    assert_int_equal(avk_type_prop_count(fx), 0);

    t = field_type(root, "e");
    assert_int_equal(avk_type_kind(t), AVK_BYTES);
    assert_int_equal(avk_type_logical(t), AVK_LOGICAL_DECIMAL);
    assert_int_equal(avk_type_decimal_precision(t), 10);
    assert_int_equal(avk_type_decimal_scale(t), 3);
    assert_int_equal(avk_type_prop_count(t), 0);
    assert_null(avk_type_prop_key(t, 0));
    assert_null(avk_type_prop_value(t, 0));
    assert_null(avk_type_prop(t, "precision"));
    avk_schema_free(s);

    /* A record declared "record" is not an error; default order ascending. */
    s = AVKT_PARSE("{'type':'record','name':'R','fields':[{'name':'x','type':'string'}]}");
    root = avk_schema_root(s);
    assert_false(avk_type_is_error(root));
    assert_null(avk_type_doc(root));
    assert_string_equal(avk_type_namespace(root), "");
    assert_int_equal(avk_field_order(avk_type_field(root, 0)), AVK_ORDER_ASCENDING);
    assert_int_equal(avk_field_alias_count(avk_type_field(root, 0)), 0);
    avk_schema_free(s);

    /* Primitives, bare and as objects. */
    {
        static const char *const names[] = {"null",  "boolean", "int",   "long",
                                            "float", "double",  "bytes", "string"};
        int k;
        char text[64];
        for (k = 0; k < 8; k++) {
            snprintf(text, sizeof text, "\"%s\"", names[k]);
            s = AVKT_PARSE_RAW(text);
            assert_int_equal(avk_type_kind(avk_schema_root(s)), k);
            assert_false(avk_type_is_named(avk_schema_root(s)));
            assert_int_equal(avk_type_prop_count(avk_schema_root(s)), 0);
            avk_schema_free(s);
            snprintf(text, sizeof text, "{\"type\":\"%s\"}", names[k]);
            s = AVKT_PARSE_RAW(text);
            assert_int_equal(avk_type_kind(avk_schema_root(s)), k);
            avk_schema_free(s);
        }
    }

    /* Kind and logical names. */
    {
        static const char *const kinds[] = {"null",   "boolean", "int",   "long",  "float",
                                            "double", "bytes",   "string", "record", "enum",
                                            "array",  "map",     "union", "fixed"};
        static const char *const logicals[] = {"",
                                               "decimal",
                                               "uuid",
                                               "date",
                                               "time-millis",
                                               "time-micros",
                                               "timestamp-millis",
                                               "timestamp-micros",
                                               "timestamp-nanos",
                                               "local-timestamp-millis",
                                               "local-timestamp-micros",
                                               "local-timestamp-nanos",
                                               "duration"};
        int k;
        for (k = 0; k <= AVK_FIXED; k++)
            assert_string_equal(avk_kind_name((avk_kind)k), kinds[k]);
        for (k = 0; k <= AVK_LOGICAL_DURATION; k++)
            assert_string_equal(avk_logical_name((avk_logical)k), logicals[k]);
        assert_non_null(avk_kind_name((avk_kind)99));
        assert_string_equal(avk_logical_name((avk_logical)99), "");
    }

    /* Structural errors. */
    FAIL("{'type':'record','name':'R','fields':[{'name':'a','type':'int','order':'up'}]}",
         AVK_ERR_SCHEMA, NULL, "order");
    FAIL("{'type':'record','name':'R','fields':[{'name':'a','type':'int','doc':5}]}",
         AVK_ERR_SCHEMA, NULL, "doc");
    FAIL("{'type':'record','name':'R','fields':[5]}", AVK_ERR_SCHEMA, NULL, NULL);
    FAIL("{'type':'record','name':'R'}", AVK_ERR_SCHEMA, NULL, "fields");
    FAIL("{'type':'enum','name':'E'}", AVK_ERR_SCHEMA, NULL, "symbols");
    FAIL("{'type':'enum','name':'E','symbols':['A','B'],'default':'C'}", AVK_ERR_SCHEMA, NULL, "C");
    FAIL("{'type':'enum','name':'E','symbols':['A',1]}", AVK_ERR_SCHEMA, NULL, NULL);
    FAIL("{'type':'enum','name':'E','symbols':['a b']}", AVK_ERR_SCHEMA, NULL, "a b");
    FAIL("{'type':'fixed','name':'F','size':-1}", AVK_ERR_SCHEMA, NULL, "size");
    FAIL("{'type':'fixed','name':'F','size':1.5}", AVK_ERR_SCHEMA, NULL, "size");
    FAIL("{'type':'fixed','name':'F','size':'4'}", AVK_ERR_SCHEMA, NULL, "size");
    FAIL("{'type':'fixed','name':'F','size':2147483648}", AVK_ERR_SCHEMA, NULL, "size");
    FAIL("{'type':'array'}", AVK_ERR_SCHEMA, NULL, "items");
    FAIL("{'type':'map'}", AVK_ERR_SCHEMA, NULL, "values");
    FAIL("{'type':'array','items':'nope'}", AVK_ERR_SCHEMA, NULL, "nope");
    FAIL("{'no_type':'int'}", AVK_ERR_SCHEMA, NULL, "type");
    FAIL("{'type':5}", AVK_ERR_SCHEMA, NULL, NULL);
    FAIL("5", AVK_ERR_SCHEMA, NULL, NULL);
    FAIL("null", AVK_ERR_SCHEMA, NULL, NULL);
    FAIL("'Int'", AVK_ERR_SCHEMA, NULL, "Int");
    FAIL("['null','null']", AVK_ERR_SCHEMA, NULL, NULL);
    FAIL("['int',['long']]", AVK_ERR_SCHEMA, NULL, "union");
    FAIL("[{'type':'map','values':'int'},{'type':'map','values':'long'}]", AVK_ERR_SCHEMA, NULL,
         NULL);
    /* Two named types of the same kind in a union are fine; so is an empty union. */
    s = AVKT_PARSE("[{'type':'fixed','name':'A','size':1},{'type':'fixed','name':'B','size':1}] ");
    avk_schema_free(s);
    FAIL("[{'type':'fixed','name':'A','size':1},'A']", AVK_ERR_SCHEMA, NULL, NULL);
    s = AVKT_PARSE("[]");
    assert_int_equal(avk_type_branch_count(avk_schema_root(s)), 0);
    avk_schema_free(s);
}

/* ---- properties ------------------------------------------------------------------ */

static void test_properties(void **state)
{
    avk_schema *s;
    const avk_type *root, *t;
    const avk_field *f;
    (void)state;
    /* Raw text: keeps escapes, spacing and numbers as written in the input. */
    s = AVKT_PARSE_RAW(
        "{ \"type\" : \"record\", \"name\" : \"P\", \"java-class\" : \"x.Y\","
        "  \"n\" : 1.50, \"big\": 123456789012345678901234567890, \"e\": -1E+2,"
        "  \"o\" : { \"a\" : [ 1 , true , null , false ], \"b\" : {} },"
        "  \"s\" : \"q\\\"b\\\\\\u00e9\\u20ac\","
        "  \"fields\" : [ { \"name\" : \"f\", \"type\" : { \"type\" : \"string\","
        "  \"avro.java.string\" : \"String\" }, \"f-prop\" : [ ], \"zz\": \"\" } ] }");
    root = avk_schema_root(s);
    assert_int_equal(avk_type_prop_count(root), 6);
    assert_string_equal(avk_type_prop_key(root, 0), "java-class");
    assert_string_equal(avk_type_prop_value(root, 0), "\"x.Y\"");
    assert_string_equal(avk_type_prop_key(root, 1), "n");
    assert_string_equal(avk_type_prop_value(root, 1), "1.50");
    assert_string_equal(avk_type_prop_value(root, 2), "123456789012345678901234567890");
    assert_string_equal(avk_type_prop_value(root, 3), "-1E+2");
    assert_string_equal(avk_type_prop_key(root, 4), "o");
    assert_string_equal(avk_type_prop_value(root, 4), "{\"a\":[1,true,null,false],\"b\":{}}");
    assert_string_equal(avk_type_prop_key(root, 5), "s");
    assert_string_equal(avk_type_prop_value(root, 5), "\"q\\\"b\\\\\xc3\xa9\xe2\x82\xac\"");
    assert_string_equal(avk_type_prop(root, "o"), "{\"a\":[1,true,null,false],\"b\":{}}");
    assert_null(avk_type_prop(root, "name"));
    assert_null(avk_type_prop(root, "fields"));
    f = avk_type_field(root, 0);
    assert_int_equal(avk_field_prop_count(f), 2);
    assert_string_equal(avk_field_prop_key(f, 0), "f-prop");
    assert_string_equal(avk_field_prop_value(f, 0), "[]");
    assert_string_equal(avk_field_prop(f, "zz"), "\"\"");
    t = avk_field_type(f);
    assert_int_equal(avk_type_kind(t), AVK_STRING);
    assert_int_equal(avk_type_prop_count(t), 1);
    assert_string_equal(avk_type_prop(t, "avro.java.string"), "\"String\"");
    check_round_trips(s, "properties");
    avk_schema_free(s);

    /* Properties on every kind; attributes of one kind are properties of another. */
    s = AVKT_PARSE(
        "{'type':'record','name':'R','fields':["
        "{'name':'a','type':{'type':'array','items':'int','size':3}},"
        "{'name':'m','type':{'type':'map','values':'int','items':'x'}},"
        "{'name':'e','type':{'type':'enum','name':'E','symbols':['A'],'size':1,'fields':[]}},"
        "{'name':'x','type':{'type':'fixed','name':'X','size':2,'symbols':['A'],'order':'ignore'}},"
        "{'name':'i','type':{'type':'int','name':'notAName','doc':'not a doc'}},"
        "{'name':'l','type':{'type':'long','logicalType':'date'}}]}");
    root = avk_schema_root(s);
    t = field_type(root, "a");
    assert_int_equal(avk_type_prop_count(t), 1);
    assert_string_equal(avk_type_prop(t, "size"), "3");
    t = field_type(root, "m");
    assert_int_equal(avk_type_prop_count(t), 1);
    assert_string_equal(avk_type_prop(t, "items"), "\"x\"");
    t = field_type(root, "e");
    assert_int_equal(avk_type_prop_count(t), 2);
    assert_string_equal(avk_type_prop_key(t, 0), "size");
    assert_string_equal(avk_type_prop_key(t, 1), "fields");
    assert_string_equal(avk_type_prop_value(t, 1), "[]");
    t = field_type(root, "x");
    assert_int_equal(avk_type_prop_count(t), 2);
    assert_string_equal(avk_type_prop(t, "symbols"), "[\"A\"]");
    assert_string_equal(avk_type_prop(t, "order"), "\"ignore\"");
    t = field_type(root, "i");
    assert_int_equal(avk_type_prop_count(t), 2);
    assert_null(avk_type_name(t));
    assert_null(avk_type_doc(t));
    assert_string_equal(avk_type_prop(t, "name"), "\"notAName\"");
    assert_string_equal(avk_type_prop(t, "doc"), "\"not a doc\"");
    t = field_type(root, "l"); /* an ignored logical type stays a property */
    assert_int_equal(avk_type_logical(t), AVK_LOGICAL_NONE);
    assert_int_equal(avk_type_prop_count(t), 1);
    assert_string_equal(avk_type_prop(t, "logicalType"), "\"date\"");
    check_round_trips(s, "properties on every kind");
    avk_schema_free(s);
}

/* ---- defaults -------------------------------------------------------------------- */

typedef struct default_case {
    const char *type;    /* single-quoted */
    const char *value;   /* single-quoted */
    int ok;
    const char *stored;  /* avk_field_default when ok; NULL: value itself */
    const char *path;    /* err.path when not ok; NULL: not checked */
} default_case;

static const default_case default_cases[] = {
    {"'null'", "null", 1, NULL, NULL},
    {"'null'", "0", 0, NULL, "R.fields[0].default"},
    {"'null'", "'null'", 0, NULL, NULL},
    {"'boolean'", "true", 1, NULL, NULL},
    {"'boolean'", "false", 1, NULL, NULL},
    {"'boolean'", "'true'", 0, NULL, "R.fields[0].default"},
    {"'boolean'", "1", 0, NULL, NULL},
    {"'int'", "0", 1, NULL, NULL},
    {"'int'", "2147483647", 1, NULL, NULL},
    {"'int'", "-2147483648", 1, NULL, NULL},
    {"'int'", "2147483648", 0, NULL, "R.fields[0].default"},
    {"'int'", "-2147483649", 0, NULL, NULL},
    {"'int'", "1.0", 0, NULL, NULL},
    {"'int'", "1e2", 0, NULL, NULL},
    {"'int'", "'1'", 0, NULL, NULL},
    {"'int'", "null", 0, NULL, NULL},
    {"'long'", "9223372036854775807", 1, NULL, NULL},
    {"'long'", "-9223372036854775808", 1, NULL, NULL},
    {"'long'", "9223372036854775808", 0, NULL, NULL},
    {"'long'", "-9223372036854775809", 0, NULL, NULL},
    {"'long'", "0.5", 0, NULL, NULL},
    {"'float'", "1.5", 1, NULL, NULL},
    {"'float'", "-0", 1, NULL, NULL},
    {"'float'", "3", 1, NULL, NULL},
    {"'float'", "'NaN'", 1, NULL, NULL},
    {"'double'", "'Infinity'", 1, NULL, NULL},
    {"'double'", "'-Infinity'", 1, NULL, NULL},
    {"'double'", "1e308", 1, NULL, NULL},
    {"'double'", "'nan'", 0, NULL, NULL},
    {"'double'", "'1.5'", 0, NULL, NULL},
    {"'float'", "null", 0, NULL, NULL},
    {"'string'", "'x'", 1, NULL, NULL},
    {"'string'", "''", 1, NULL, NULL},
    {"'string'", "'\\u20ac'", 1, "\"\xe2\x82\xac\"", NULL},
    {"'string'", "1", 0, NULL, NULL},
    {"'string'", "null", 0, NULL, NULL},
    {"'bytes'", "''", 1, NULL, NULL},
    {"'bytes'", "'abc'", 1, NULL, NULL},
    {"'bytes'", "'\\u0000\\u00ff'", 1, "\"\\u0000\xc3\xbf\"", NULL},
    {"'bytes'", "'\\u0100'", 0, NULL, "R.fields[0].default"},
    {"'bytes'", "'\\u20ac'", 0, NULL, NULL},
    {"'bytes'", "[1]", 0, NULL, NULL},
    {"{'type':'fixed','name':'F','size':2}", "'ab'", 1, NULL, NULL},
    {"{'type':'fixed','name':'F','size':2}", "'\\u00e9\\u00ff'", 1, "\"\xc3\xa9\xc3\xbf\"", NULL},
    {"{'type':'fixed','name':'F','size':2}", "'abc'", 0, NULL, "R.fields[0].default"},
    {"{'type':'fixed','name':'F','size':2}", "'a'", 0, NULL, NULL},
    {"{'type':'fixed','name':'F','size':2}", "'a\\u0101'", 0, NULL, NULL},
    {"{'type':'fixed','name':'F','size':0}", "''", 1, NULL, NULL},
    {"{'type':'enum','name':'E','symbols':['A','B']}", "'B'", 1, NULL, NULL},
    {"{'type':'enum','name':'E','symbols':['A','B']}", "'C'", 0, NULL, "R.fields[0].default"},
    {"{'type':'enum','name':'E','symbols':['A','B']}", "0", 0, NULL, NULL},
    {"{'type':'array','items':'int'}", "[]", 1, NULL, NULL},
    {"{'type':'array','items':'int'}", "[1,2]", 1, NULL, NULL},
    {"{'type':'array','items':'int'}", "[1,'x']", 0, NULL, "R.fields[0].default[1]"},
    {"{'type':'array','items':'int'}", "{}", 0, NULL, NULL},
    {"{'type':'map','values':'int'}", "{}", 1, NULL, NULL},
    {"{'type':'map','values':'int'}", "{'a':1,'b':2}", 1, NULL, NULL},
    {"{'type':'map','values':'int'}", "{'a':1,'b':'x'}", 0, NULL, "R.fields[0].default[\"b\"]"},
    {"{'type':'map','values':'int'}", "[]", 0, NULL, NULL},
    {"['null','int']", "null", 1, NULL, NULL},
    {"['null','int']", "1", 0, NULL, "R.fields[0].default"},
    {"['int','null']", "1", 1, NULL, NULL},
    {"['int','null']", "null", 0, NULL, NULL},
    {"['string','null']", "'x'", 1, NULL, NULL},
    {"[{'type':'enum','name':'E','symbols':['A']},'null']", "'A'", 1, NULL, NULL},
    {"{'type':'record','name':'S','fields':[{'name':'a','type':'int'},"
     "{'name':'b','type':'string','default':'d'}]}",
     "{'a':1}", 1, NULL, NULL},
    {"{'type':'record','name':'S','fields':[{'name':'a','type':'int'},"
     "{'name':'b','type':'string','default':'d'}]}",
     "{'a':1,'b':'x'}", 1, NULL, NULL},
    {"{'type':'record','name':'S','fields':[{'name':'a','type':'int'},"
     "{'name':'b','type':'string','default':'d'}]}",
     "{'b':'x'}", 0, NULL, "R.fields[0].default"},
    {"{'type':'record','name':'S','fields':[{'name':'a','type':'int'},"
     "{'name':'b','type':'string','default':'d'}]}",
     "{'a':'x'}", 0, NULL, "R.fields[0].default.a"},
    {"{'type':'record','name':'S','fields':[{'name':'a','type':'int'}]}", "1", 0, NULL, NULL},
    {"{'type':'array','items':{'type':'record','name':'S','fields':[{'name':'m','type':"
     "{'type':'map','values':['null','long']}}]}}",
     "[{'m':{'k':null}},{'m':{}}]", 1, NULL, NULL},
    {"{'type':'array','items':{'type':'record','name':'S','fields':[{'name':'m','type':"
     "{'type':'map','values':['null','long']}}]}}",
     "[{'m':{'k':null}},{'m':{'j':1}}]", 0, NULL, "R.fields[0].default[1].m[\"j\"]"},
};

static void test_defaults(void **state)
{
    size_t i;
    char text[1024];
    (void)state;
    for (i = 0; i < sizeof default_cases / sizeof default_cases[0]; i++) {
        const default_case *c = &default_cases[i];
        const char *json;
        snprintf(text, sizeof text,
                 "{'type':'record','name':'R','fields':[{'name':'f','type':%s,'default':%s}]}",
                 c->type, c->value);
        json = avkt_q(text);
        if (c->ok) {
            avk_schema *s = avkt_parse_at(json, strlen(json), __FILE__, __LINE__);
            const char *want = c->stored ? c->stored : avkt_q(c->value);
            const char *got = avk_field_default(avk_type_field(avk_schema_root(s), 0));
            if (!got || strcmp(got, want) != 0)
                fail_msg("case %zu (%s = %s): stored default %s, expected %s", i, c->type,
                         c->value, got ? got : "NULL", want);
            check_round_trips(s, json);
            avk_schema_free(s);
        } else {
            avk_schema *s = NULL;
            avk_error err;
            avk_status st = avk_schema_parse(json, strlen(json), NULL, &s, &err);
            if (st != AVK_ERR_SCHEMA)
                fail_msg("case %zu (%s = %s): got %s, expected SCHEMA", i, c->type, c->value,
                         avk_status_name(st));
            if (c->path && strcmp(err.path, c->path) != 0)
                fail_msg("case %zu (%s = %s): path \"%s\", expected \"%s\" (%s)", i, c->type,
                         c->value, err.path, c->path, err.message);
            if (strncmp(err.path, "R.fields[0].default", 19) != 0)
                fail_msg("case %zu: path \"%s\" is not under R.fields[0].default", i, err.path);
            if (!strstr(err.message, "default"))
                fail_msg("case %zu: message \"%s\" does not say \"default\"", i, err.message);
        }
    }
    print_message("%zu default cases\n", i);

    /* Defaults are checked once all names are defined: a default for a
     * recursive record, and a default in a nested record's field. */
    {
        avk_schema *s = AVKT_PARSE(
            "{'type':'record','name':'Node','fields':[{'name':'v','type':'int','default':0},"
            "{'name':'kids','type':{'type':'array','items':'Node'},"
            "'default':[{'v':1,'kids':[]},{'kids':[{'v':3,'kids':[]}]}]}]}");
        assert_string_equal(avk_field_default(avk_type_field(avk_schema_root(s), 1)),
                            "[{\"v\":1,\"kids\":[]},{\"kids\":[{\"v\":3,\"kids\":[]}]}]");
        avk_schema_free(s);
        FAIL("{'type':'record','name':'Outer','fields':[{'name':'in','type':{'type':'record',"
             "'name':'Inner','fields':[{'name':'x','type':'long','default':'no'}]}}]}",
             AVK_ERR_SCHEMA, "Inner.fields[0].default", "default");
    }
}

/* ---- logical types --------------------------------------------------------------- */

typedef struct logical_case {
    const char *schema; /* single-quoted */
    avk_logical logical;
    int precision, scale;
    const char *props; /* the property keys, comma-separated, in order */
} logical_case;

#define FX(size, rest) "{'type':'fixed','name':'F','size':" #size rest "}"

static const logical_case logical_cases[] = {
    /* decimal on bytes */
    {"{'type':'bytes','logicalType':'decimal','precision':4,'scale':2}", AVK_LOGICAL_DECIMAL, 4, 2, ""},
    {"{'type':'bytes','logicalType':'decimal','precision':4}", AVK_LOGICAL_DECIMAL, 4, 0, ""},
    {"{'type':'bytes','logicalType':'decimal','precision':4,'scale':4}", AVK_LOGICAL_DECIMAL, 4, 4, ""},
    {"{'type':'bytes','logicalType':'decimal','precision':4,'scale':0}", AVK_LOGICAL_DECIMAL, 4, 0, ""},
    {"{'type':'bytes','logicalType':'decimal','precision':1000}", AVK_LOGICAL_DECIMAL, 1000, 0, ""},
    {"{'type':'bytes','logicalType':'decimal','precision':4,'scale':5}", AVK_LOGICAL_NONE, 0, 0,
     "logicalType,precision,scale"},
    {"{'type':'bytes','logicalType':'decimal','precision':0}", AVK_LOGICAL_NONE, 0, 0,
     "logicalType,precision"},
    {"{'type':'bytes','logicalType':'decimal','precision':-1}", AVK_LOGICAL_NONE, 0, 0,
     "logicalType,precision"},
    {"{'type':'bytes','logicalType':'decimal','precision':2.5}", AVK_LOGICAL_NONE, 0, 0,
     "logicalType,precision"},
    {"{'type':'bytes','logicalType':'decimal','precision':'4'}", AVK_LOGICAL_NONE, 0, 0,
     "logicalType,precision"},
    {"{'type':'bytes','logicalType':'decimal','scale':2}", AVK_LOGICAL_NONE, 0, 0, "logicalType,scale"},
    {"{'type':'bytes','logicalType':'decimal','precision':4,'scale':-1}", AVK_LOGICAL_NONE, 0, 0,
     "logicalType,precision,scale"},
    {"{'type':'bytes','logicalType':'decimal','precision':4,'scale':1.5}", AVK_LOGICAL_NONE, 0, 0,
     "logicalType,precision,scale"},
    {"{'type':'string','logicalType':'decimal','precision':4}", AVK_LOGICAL_NONE, 0, 0,
     "logicalType,precision"},
    {"{'type':'int','logicalType':'decimal','precision':4}", AVK_LOGICAL_NONE, 0, 0,
     "logicalType,precision"},
    /* decimal on fixed: the precision must fit in size bytes (two's
     * complement): floor(log10(2^(8 size - 1) - 1)) digits. */
    {FX(1, ",'logicalType':'decimal','precision':2"), AVK_LOGICAL_DECIMAL, 2, 0, ""},
    {FX(1, ",'logicalType':'decimal','precision':3"), AVK_LOGICAL_NONE, 0, 0, "logicalType,precision"},
    {FX(4, ",'logicalType':'decimal','precision':9,'scale':9"), AVK_LOGICAL_DECIMAL, 9, 9, ""},
    {FX(4, ",'logicalType':'decimal','precision':10"), AVK_LOGICAL_NONE, 0, 0, "logicalType,precision"},
    {FX(8, ",'logicalType':'decimal','precision':18"), AVK_LOGICAL_DECIMAL, 18, 0, ""},
    {FX(8, ",'logicalType':'decimal','precision':19"), AVK_LOGICAL_NONE, 0, 0, "logicalType,precision"},
    {FX(16, ",'logicalType':'decimal','precision':38,'scale':2"), AVK_LOGICAL_DECIMAL, 38, 2, ""},
    {FX(16, ",'logicalType':'decimal','precision':39"), AVK_LOGICAL_NONE, 0, 0, "logicalType,precision"},
    {FX(129, ",'logicalType':'decimal','precision':310"), AVK_LOGICAL_DECIMAL, 310, 0, ""},
    {FX(129, ",'logicalType':'decimal','precision':311"), AVK_LOGICAL_NONE, 0, 0, "logicalType,precision"},
    {FX(0, ",'logicalType':'decimal','precision':1"), AVK_LOGICAL_NONE, 0, 0, "logicalType,precision"},
    {FX(5, ",'logicalType':'decimal','precision':4,'scale':5"), AVK_LOGICAL_NONE, 0, 0,
     "logicalType,precision,scale"},
    /* uuid */
    {"{'type':'string','logicalType':'uuid'}", AVK_LOGICAL_UUID, 0, 0, ""},
    {FX(16, ",'logicalType':'uuid'"), AVK_LOGICAL_UUID, 0, 0, ""},
    {FX(15, ",'logicalType':'uuid'"), AVK_LOGICAL_NONE, 0, 0, "logicalType"},
    {FX(17, ",'logicalType':'uuid'"), AVK_LOGICAL_NONE, 0, 0, "logicalType"},
    {"{'type':'bytes','logicalType':'uuid'}", AVK_LOGICAL_NONE, 0, 0, "logicalType"},
    /* int-based */
    {"{'type':'int','logicalType':'date'}", AVK_LOGICAL_DATE, 0, 0, ""},
    {"{'type':'long','logicalType':'date'}", AVK_LOGICAL_NONE, 0, 0, "logicalType"},
    {"{'type':'int','logicalType':'time-millis'}", AVK_LOGICAL_TIME_MILLIS, 0, 0, ""},
    {"{'type':'long','logicalType':'time-millis'}", AVK_LOGICAL_NONE, 0, 0, "logicalType"},
    /* long-based */
    {"{'type':'long','logicalType':'time-micros'}", AVK_LOGICAL_TIME_MICROS, 0, 0, ""},
    {"{'type':'int','logicalType':'time-micros'}", AVK_LOGICAL_NONE, 0, 0, "logicalType"},
    {"{'type':'long','logicalType':'timestamp-millis'}", AVK_LOGICAL_TIMESTAMP_MILLIS, 0, 0, ""},
    {"{'type':'int','logicalType':'timestamp-millis'}", AVK_LOGICAL_NONE, 0, 0, "logicalType"},
    {"{'type':'long','logicalType':'timestamp-micros'}", AVK_LOGICAL_TIMESTAMP_MICROS, 0, 0, ""},
    {"{'type':'int','logicalType':'timestamp-micros'}", AVK_LOGICAL_NONE, 0, 0, "logicalType"},
    {"{'type':'long','logicalType':'timestamp-nanos'}", AVK_LOGICAL_TIMESTAMP_NANOS, 0, 0, ""},
    {"{'type':'double','logicalType':'timestamp-nanos'}", AVK_LOGICAL_NONE, 0, 0, "logicalType"},
    {"{'type':'long','logicalType':'local-timestamp-millis'}", AVK_LOGICAL_LOCAL_TIMESTAMP_MILLIS, 0, 0, ""},
    {"{'type':'long','logicalType':'local-timestamp-micros'}", AVK_LOGICAL_LOCAL_TIMESTAMP_MICROS, 0, 0, ""},
    {"{'type':'long','logicalType':'local-timestamp-nanos'}", AVK_LOGICAL_LOCAL_TIMESTAMP_NANOS, 0, 0, ""},
    {"{'type':'int','logicalType':'local-timestamp-millis'}", AVK_LOGICAL_NONE, 0, 0, "logicalType"},
    /* duration */
    {FX(12, ",'logicalType':'duration'"), AVK_LOGICAL_DURATION, 0, 0, ""},
    {FX(11, ",'logicalType':'duration'"), AVK_LOGICAL_NONE, 0, 0, "logicalType"},
    {FX(13, ",'logicalType':'duration'"), AVK_LOGICAL_NONE, 0, 0, "logicalType"},
    {"{'type':'bytes','logicalType':'duration'}", AVK_LOGICAL_NONE, 0, 0, "logicalType"},
    /* unknown, misspelt, not a string, other case */
    {"{'type':'string','logicalType':'unknown-logical-type'}", AVK_LOGICAL_NONE, 0, 0, "logicalType"},
    {"{'type':'int','logicalType':'Date'}", AVK_LOGICAL_NONE, 0, 0, "logicalType"},
    {"{'type':'int','logicalType':5}", AVK_LOGICAL_NONE, 0, 0, "logicalType"},
    {"{'type':'long','logicalType':'timestamp-micros','precision':3}", AVK_LOGICAL_TIMESTAMP_MICROS, 0, 0,
     "precision"},
    /* a logical type on a record is not one */
    {"{'type':'record','name':'R','fields':[],'logicalType':'date'}", AVK_LOGICAL_NONE, 0, 0, "logicalType"},
};

static void test_logical_types(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < sizeof logical_cases / sizeof logical_cases[0]; i++) {
        const logical_case *c = &logical_cases[i];
        avk_schema *s = AVKT_PARSE(c->schema);
        const avk_type *t = avk_schema_root(s);
        char keys[256] = "";
        size_t k;
        for (k = 0; k < avk_type_prop_count(t); k++) {
            if (k)
                strcat(keys, ",");
            strcat(keys, avk_type_prop_key(t, k));
        }
        if (avk_type_logical(t) != c->logical || avk_type_decimal_precision(t) != c->precision ||
            avk_type_decimal_scale(t) != c->scale || strcmp(keys, c->props) != 0)
            fail_msg("case %zu %s: got %s(%d,%d) props [%s], expected %s(%d,%d) props [%s]", i,
                     avkt_q(c->schema), avk_logical_name(avk_type_logical(t)),
                     avk_type_decimal_precision(t), avk_type_decimal_scale(t), keys,
                     avk_logical_name(c->logical), c->precision, c->scale, c->props);
        check_round_trips(s, avkt_q(c->schema));
        avk_schema_free(s);
    }
    print_message("%zu logical type cases\n", i);
}

/* ---- error paths and messages --------------------------------------------------- */

/* depth records nested through field "f" around a field of type "lnog". */
static char *nested_records(size_t depth)
{
    size_t cap = depth * 128 + 64, n = 0, i;
    char *b = (char *)malloc(cap);
    assert_non_null(b);
    for (i = depth; i-- > 0;)
        n += (size_t)snprintf(b + n, cap - n,
                              "{\"type\":\"record\",\"name\":\"R%zu\",\"fields\":["
                              "{\"name\":\"a\",\"type\":\"int\"},{\"name\":\"f\",\"type\":",
                              i);
    n += (size_t)snprintf(b + n, cap - n, "\"lnog\"");
    for (i = 0; i < depth; i++)
        n += (size_t)snprintf(b + n, cap - n, "}]}");
    return b;
}

/* A path longer than err.path holds loses its middle, as every path of the
 * library does (common/value_path.c), so the reason stays whole: the parser
 * used to cut "path: reason" at the buffer's end, reason and all. */
static void test_long_error_path(void **state)
{
    char *text = nested_records(20);
    avk_error err;
    avk_schema *s = NULL;
    (void)state;
    memset(&err, 0, sizeof err);
    AVKT_ASSERT_STATUS(avk_schema_parse(text, strlen(text), NULL, &s, &err), AVK_ERR_SCHEMA);
    free(text);
    assert_string_equal(err.path, "R19.fields[1].type.fields[1].type.fields[1].type.fields[1]"
                                  ".type.fields[1].type.fields[1].type...(9 levels)....type"
                                  ".fields[1].type.fields[1].type.fields[1].type.fields[1].type"
                                  ".fields[1].type.fields[1].type.fields[1].type.fields[1].type"
                                  ".fields[1].type");
    assert_string_equal(err.message,
                        "R19.fields[1].type.fields[1].type.fields[1].type.fields[1].type"
                        ".fields[1].type.fields[1]...(13 levels)....fields[1].type"
                        ".fields[1].type.fields[1].type.fields[1].type.fields[1].type"
                        ".fields[1].type.fields[1].type.fields[1]"
                        ".type: unknown type name \"lnog\"");
    /* Short enough, the path is whole, as before. */
    text = nested_records(3);
    AVKT_ASSERT_STATUS(avk_schema_parse(text, strlen(text), NULL, &s, &err), AVK_ERR_SCHEMA);
    free(text);
    assert_string_equal(err.path, "R2.fields[1].type.fields[1].type.fields[1].type");
    assert_string_equal(err.message,
                        "R2.fields[1].type.fields[1].type.fields[1].type: unknown type name "
                        "\"lnog\"");
}


static void test_error_paths(void **state)
{
    avk_error err;
    avk_schema *s = NULL;
    (void)state;
    FAIL("{'type':'record','name':'User','fields':[{'name':'a','type':'int'},"
         "{'name':'b','type':'int'},{'name':'c','type':'int'},{'name':'d','type':'lnog'}]}",
         AVK_ERR_SCHEMA, "User.fields[3].type", "unknown type name \"lnog\"");
    FAIL("{'type':'enum','name':'Color','symbols':['RED','GREEN','RED']}", AVK_ERR_SCHEMA,
         "Color.symbols[2]", "duplicate symbol \"RED\"");
    /* The message begins with the path. */
    {
        const char *t = avkt_q("{'type':'enum','name':'Color','symbols':['RED','RED']}");
        memset(&err, 0, sizeof err);
        assert_int_equal(avk_schema_parse(t, strlen(t), NULL, &s, &err), AVK_ERR_SCHEMA);
    }
    assert_string_equal(err.path, "Color.symbols[1]");
    assert_int_equal(strncmp(err.message, "Color.symbols[1]", 16), 0);

    /* JSON syntax errors: MALFORMED with line and column. */
    FAIL_RAW("{\"type\": \"int\",}", AVK_ERR_MALFORMED, NULL, "line 1, column 16");
    FAIL_RAW("{\n  \"type\": \"record\",\n  \"name\": \"X\"\n  \"fields\": []\n}", AVK_ERR_MALFORMED,
             NULL, "line 4, column 3");
    FAIL_RAW("{\"type\":", AVK_ERR_MALFORMED, NULL, "line 1, column 9");
    FAIL_RAW("", AVK_ERR_MALFORMED, NULL, "line 1, column 1");
    FAIL_RAW("   \n\t ", AVK_ERR_MALFORMED, NULL, "line 2");
    FAIL_RAW("\"int\" \"long\"", AVK_ERR_MALFORMED, NULL, "line 1, column 7");
    FAIL_RAW("True", AVK_ERR_MALFORMED, NULL, "line 1, column 1");
    FAIL_RAW("{'type':'int'}", AVK_ERR_MALFORMED, NULL, "line 1, column 2");
    FAIL_RAW("[\"int\"\n,\n\"long\"\n,]", AVK_ERR_MALFORMED, NULL, "line 4, column 2");
    FAIL_RAW("\"in\\x\"", AVK_ERR_MALFORMED, NULL, "line 1");
    FAIL_RAW("\"int", AVK_ERR_MALFORMED, NULL, "line 1");
    FAIL_RAW("{\"type\":\"int\"}\x01", AVK_ERR_MALFORMED, NULL, "line 1, column 15");
    /* Repeated keys: other tools take the last one, so they are refused. */
    FAIL("{'type':'int','type':'string'}", AVK_ERR_SCHEMA, "", "duplicate key \"type\"");
    FAIL("{'type':'record','name':'R','fields':[{'name':'a','type':'int','x':1,'x':2}]}",
         AVK_ERR_SCHEMA, "R.fields[0]", "duplicate key \"x\"");
    FAIL("{'type':'record','name':'R','fields':[{'name':'m','type':{'type':'map','values':'int'},"
         "'default':{'k':1,'k':2}}]}",
         AVK_ERR_SCHEMA, "R.fields[0].default", "duplicate key \"k\"");
    /* \u0000 inside keywords, names, docs or keys: refused, never read as the text before it. */
    FAIL_RAW("{\"type\":\"record\\u0000zz\",\"name\":\"R\",\"fields\":[]}", AVK_ERR_SCHEMA, NULL, "");
    FAIL_RAW("{\"type\":\"int\",\"type\\u0000\":1}", AVK_ERR_SCHEMA, NULL, "\\u0000");
    FAIL_RAW("{\"type\":\"fixed\",\"name\":\"F\",\"size\":1,\"doc\":\"a\\u0000b\"}", AVK_ERR_SCHEMA,
             NULL, "doc");
    /* Structure errors found by the schema layer are SCHEMA, not MALFORMED. */
    FAIL("{'type':'record','name':'R','fields':{}}", AVK_ERR_SCHEMA, NULL, "fields");

    /* Bad arguments. */
    assert_int_equal(avk_schema_parse("\"int\"", 5, NULL, NULL, &err), AVK_ERR_INVALID_ARGUMENT);
    assert_int_equal(err.status, AVK_ERR_INVALID_ARGUMENT);
    assert_int_equal(avk_schema_parse(NULL, 5, NULL, &s, &err), AVK_ERR_INVALID_ARGUMENT);
    assert_null(s);
    {
        avk_schema_options o;
        memset(&o, 0, sizeof o);
        o.struct_size = sizeof o - 1;
        assert_int_equal(avk_schema_parse("\"int\"", 5, &o, &s, &err), AVK_ERR_INVALID_ARGUMENT);
        o.struct_size = sizeof o;
        AVKT_OK(avk_schema_parse("\"int\"", 5, &o, &s, &err));
        avk_schema_free(s);
    }
    /* err may be NULL, and free(NULL) is fine. */
    assert_int_equal(avk_schema_parse("\"nope\"", 6, NULL, &s, NULL), AVK_ERR_SCHEMA);
    assert_int_equal(avk_schema_parse("{", 1, NULL, &s, NULL), AVK_ERR_MALFORMED);
    AVKT_OK(avk_schema_parse("\"int\"", 5, NULL, &s, NULL));
    avk_schema_free(s);
    avk_schema_free(NULL);
    /* Text need not be NUL-terminated: only len bytes are read. */
    AVKT_OK(avk_schema_parse("\"int\"garbage", 5, NULL, &s, &err));
    assert_int_equal(avk_type_kind(avk_schema_root(s)), AVK_INT);
    avk_schema_free(s);
}

/* ---- hostile input and limits ---------------------------------------------------- */

/* CPU time of this thread: other load on a shared machine does not count. */
static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#if defined(__SANITIZE_ADDRESS__)
#define AVKT_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define AVKT_SANITIZED 1
#endif
#endif
#ifndef AVKT_SANITIZED
#define AVKT_SANITIZED 0
#endif

/* Timing checks are skipped under valgrind and sanitizers, which run code
 * many times slower. */
static int timing_reliable(void)
{
    const char *pre = getenv("LD_PRELOAD");
    return !AVKT_SANITIZED && !(pre && strstr(pre, "vgpreload"));
}

/* depth arrays of arrays around "int": {"type":"array","items":...}. */
static char *nested_arrays(size_t depth, size_t *len)
{
    static const char open[] = "{\"type\":\"array\",\"items\":";
    size_t ol = sizeof open - 1, n = depth * (ol + 1) + 5, i;
    char *b = (char *)malloc(n + 1), *p = b;
    assert_non_null(b);
    for (i = 0; i < depth; i++, p += ol)
        memcpy(p, open, ol);
    memcpy(p, "\"int\"", 5);
    p += 5;
    for (i = 0; i < depth; i++)
        *p++ = '}';
    *p = '\0';
    *len = (size_t)(p - b);
    return b;
}

static avk_status parse_with(const char *json, size_t len, size_t max_depth, size_t max_size,
                             size_t max_memory, avk_error *err)
{
    avk_schema_options o;
    avk_schema *s = NULL;
    avk_status st;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.max_depth = max_depth;
    o.max_size = max_size;
    o.max_memory = max_memory;
    st = avk_schema_parse(json, len, &o, &s, err);
    if (st == AVK_OK)
        assert_non_null(s);
    else
        assert_null(s);
    avk_schema_free(s);
    return st;
}

static void test_deep_nesting(void **state)
{
    size_t len;
    char *text;
    avk_error err;
    avk_status st;
    double t0, dt;
    (void)state;

    /* 100,000 levels: LIMIT, fast, no stack overflow. */
    text = nested_arrays(100000, &len);
    t0 = now_seconds();
    AVKT_ASSERT_STATUS(parse_with(text, len, 0, 0, 0, &err), AVK_ERR_LIMIT);
    dt = now_seconds() - t0;
    free(text);
    print_message("100,000 nested arrays: LIMIT in %.3f ms (%s)\n", dt * 1e3, err.message);
    if (timing_reliable())
        assert_true(dt < 0.5);
    /* The same as bare JSON arrays (unions in unions). */
    {
        size_t n = 100000, i;
        char *b = (char *)malloc(2 * n + 1);
        assert_non_null(b);
        for (i = 0; i < n; i++) {
            b[i] = '[';
            b[n + i] = ']';
        }
        b[2 * n] = '\0';
        AVKT_ASSERT_STATUS(parse_with(b, 2 * n, 0, 0, 0, &err), AVK_ERR_LIMIT);
        free(b);
    }
    /* The default limit (128) passes 100 levels. */
    text = nested_arrays(100, &len);
    AVKT_OK(parse_with(text, len, 0, 0, 0, &err));
    free(text);
    /* max_depth is configurable: exactly max_depth levels pass, one more fails. */
    text = nested_arrays(10, &len);
    AVKT_OK(parse_with(text, len, 10, 0, 0, &err));
    free(text);
    text = nested_arrays(11, &len);
    AVKT_ASSERT_STATUS(parse_with(text, len, 10, 0, 0, &err), AVK_ERR_LIMIT);
    free(text);
    /* max_depth is capped at 512 (types are parsed recursively). */
    text = nested_arrays(512, &len);
    AVKT_OK(parse_with(text, len, 1000, 0, 0, &err));
    free(text);
    text = nested_arrays(513, &len);
    AVKT_ASSERT_STATUS(parse_with(text, len, 1000, 0, 0, &err), AVK_ERR_LIMIT);
    free(text);
    /* Records nest too. */
    {
        char buf[4096] = "";
        int d;
        for (d = 0; d < 40; d++) {
            char part[64];
            snprintf(part, sizeof part, "{\"type\":\"record\",\"name\":\"R%d\",\"fields\":[{\"name\":\"f\",\"type\":", d);
            strcat(buf, part);
        }
        strcat(buf, "\"int\"");
        for (d = 0; d < 40; d++)
            strcat(buf, "}]}");
        AVKT_OK(parse_with(buf, strlen(buf), 0, 0, 0, &err));
        AVKT_ASSERT_STATUS(parse_with(buf, strlen(buf), 20, 0, 0, &err), AVK_ERR_LIMIT);
    }
    /* 100 nested records are 100 type levels (within the default 128) but
     * 300 levels of JSON (object, fields array, field object per record):
     * the JSON limit must not refuse what the type limit allows. */
    {
        size_t cap = 100 * 80 + 400, d;
        char *buf = (char *)malloc(cap), *p = buf;
        assert_non_null(buf);
        for (d = 0; d < 100; d++)
            p += sprintf(p, "{\"type\":\"record\",\"name\":\"R%zu\",\"fields\":[{\"name\":\"f\",\"type\":", d);
        p += sprintf(p, "\"int\"");
        for (d = 0; d < 100; d++)
            p += sprintf(p, "}]}");
        st = parse_with(buf, (size_t)(p - buf), 0, 0, 0, &err);
        if (st != AVK_OK)
            fail_msg("100 nested records: %s: %s", avk_status_name(st), err.message);
        free(buf);
    }
    /* A deep default is bounded as well. */
    {
        size_t n = 100000, i;
        const char *head = "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"f\",\"type\":"
                           "{\"type\":\"array\",\"items\":\"int\"},\"default\":";
        size_t hl = strlen(head);
        char *b = (char *)malloc(hl + 2 * n + 8);
        assert_non_null(b);
        memcpy(b, head, hl);
        for (i = 0; i < n; i++) {
            b[hl + i] = '[';
            b[hl + n + i] = ']';
        }
        memcpy(b + hl + 2 * n, "}]}", 4);
        AVKT_ASSERT_STATUS(parse_with(b, hl + 2 * n + 3, 0, 0, 0, &err), AVK_ERR_LIMIT);
        free(b);
    }
}

static void test_size_limits(void **state)
{
    const char *text = "{\"type\":\"fixed\",\"name\":\"F\",\"size\":4}";
    size_t len = strlen(text);
    avk_error err;
    (void)state;
    AVKT_OK(parse_with(text, len, 0, len, 0, &err));
    AVKT_ASSERT_STATUS(parse_with(text, len, 0, len - 1, 0, &err), AVK_ERR_LIMIT);
    assert_int_equal(err.status, AVK_ERR_LIMIT);
    assert_non_null(strstr(err.message, "limit"));
    /* max_memory: a schema needing more than it is refused with LIMIT. */
    {
        size_t n = 20000, i;
        char *b = (char *)malloc(n * 12 + 64), *p = b;
        assert_non_null(b);
        p += sprintf(p, "{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[");
        for (i = 0; i < n; i++)
            p += sprintf(p, "%s\"S%zu\"", i ? "," : "", i);
        p += sprintf(p, "]}");
        AVKT_OK(parse_with(b, (size_t)(p - b), 0, 0, 0, &err));
        AVKT_ASSERT_STATUS(parse_with(b, (size_t)(p - b), 0, 0, 64 * 1024, &err), AVK_ERR_LIMIT);
        free(b);
    }
}

static void test_huge_enum(void **state)
{
    size_t n = 200000, i;
    char *b = (char *)malloc(n * 12 + 64), *p = b;
    avk_schema *s = NULL;
    avk_error err;
    const avk_type *t;
    double t0, dt;
    (void)state;
    assert_non_null(b);
    p += sprintf(p, "{\"type\":\"enum\",\"name\":\"Big\",\"symbols\":[");
    for (i = 0; i < n; i++)
        p += sprintf(p, "%s\"S%zu\"", i ? "," : "", i);
    p += sprintf(p, "],\"default\":\"S199999\"}");
    t0 = now_seconds();
    AVKT_OK(avk_schema_parse(b, (size_t)(p - b), NULL, &s, &err));
    dt = now_seconds() - t0;
    print_message("200,000 symbols (%zu bytes): parsed in %.1f ms of CPU time\n", (size_t)(p - b),
                  dt * 1e3);
    if (timing_reliable() && dt >= 1.0)
        fail_msg("200,000 symbols took %.3f s", dt);
    t = avk_schema_root(s);
    assert_int_equal(avk_type_symbol_count(t), n);
    assert_string_equal(avk_type_symbol(t, 123456), "S123456");
    assert_int_equal(avk_type_enum_default(t), 199999);
    avk_schema_free(s);

    /* The same with one duplicate at the very end: found without a quadratic scan. */
    p -= strlen("],\"default\":\"S199999\"}");
    p += sprintf(p, ",\"S7\"]}");
    t0 = now_seconds();
    assert_int_equal(avk_schema_parse(b, (size_t)(p - b), NULL, &s, &err), AVK_ERR_SCHEMA);
    dt = now_seconds() - t0;
    assert_string_equal(err.path, "Big.symbols[200000]");
    if (timing_reliable())
        assert_true(dt < 1.0);
    free(b);

    /* 50,000 fields and a 20,000-branch union of named types. */
    {
        size_t nf = 50000;
        char *r = (char *)malloc(nf * 40 + 64), *w = r;
        assert_non_null(r);
        w += sprintf(w, "{\"type\":\"record\",\"name\":\"Wide\",\"fields\":[");
        for (i = 0; i < nf; i++)
            w += sprintf(w, "%s{\"name\":\"f%zu\",\"type\":\"long\"}", i ? "," : "", i);
        w += sprintf(w, "]}");
        t0 = now_seconds();
        AVKT_OK(avk_schema_parse(r, (size_t)(w - r), NULL, &s, &err));
        dt = now_seconds() - t0;
        assert_int_equal(avk_type_field_count(avk_schema_root(s)), nf);
        avk_schema_free(s);
        if (timing_reliable())
            assert_true(dt < 1.0);
        w = r;
        w += sprintf(w, "[");
        for (i = 0; i < 20000; i++)
            w += sprintf(w, "%s{\"type\":\"fixed\",\"name\":\"F%zu\",\"size\":1}", i ? "," : "", i);
        w += sprintf(w, "]");
        AVKT_OK(avk_schema_parse(r, (size_t)(w - r), NULL, &s, &err));
        assert_int_equal(avk_type_branch_count(avk_schema_root(s)), 20000);
        assert_non_null(avk_schema_find(s, "F19999"));
        avk_schema_free(s);
        free(r);
    }
}

static void test_bad_utf8(void **state)
{
    static const char *const cases[] = {
        "{\"type\":\"fixed\",\"name\":\"A\xff\",\"size\":1}",
        "{\"type\":\"fixed\",\"name\":\"A\xc3\",\"size\":1}",
        "{\"type\":\"fixed\",\"name\":\"A\xc0\x80\",\"size\":1}",     /* overlong NUL */
        "{\"type\":\"fixed\",\"name\":\"A\xed\xa0\x80\",\"size\":1}", /* a surrogate */
        "{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"\xe2\x82\"]}",
        "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"\xf5\x80\x80\x80\",\"type\":\"int\"}]}",
        "{\"type\":\"string\",\"doc\":\"\x80\"}",
    };
    size_t i;
    (void)state;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        avk_schema *s = NULL;
        avk_error err;
        avk_status st = avk_schema_parse(cases[i], strlen(cases[i]), NULL, &s, &err);
        if (st != AVK_ERR_MALFORMED && st != AVK_ERR_SCHEMA)
            fail_msg("invalid UTF-8 case %zu: got %s", i, avk_status_name(st));
        assert_null(s);
        assert_true(err.message[0] != '\0');
    }
    /* A name with a NUL inside (escaped) is not a valid name. */
    FAIL_RAW("{\"type\":\"fixed\",\"name\":\"A\\u0000B\",\"size\":1}", AVK_ERR_SCHEMA, NULL, NULL);
    FAIL_RAW("{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\\u0000\"]}", AVK_ERR_SCHEMA, NULL,
             NULL);
    /* Unpaired surrogate escapes. */
    FAIL_RAW("{\"type\":\"string\",\"doc\":\"\\ud800\"}", AVK_ERR_MALFORMED, NULL, NULL);
}

static void test_garbage(void **state)
{
    size_t n = 10u << 20, i, round;
    unsigned char *b = (unsigned char *)malloc(n);
    avkt_rng rng = {20240601};
    (void)state;
    assert_non_null(b);
    for (round = 0; round < 4; round++) {
        avk_schema *s = NULL;
        avk_error err;
        avk_status st;
        double t0 = now_seconds(), dt;
        static const char json_chars[] = "{}[]\":,  \"type\"\"record\"\"name\"0123456789.eE-truefalsenull\\u";
        for (i = 0; i < n; i++) {
            uint64_t r = avkt_next(&rng);
            if (round == 0)
                b[i] = (unsigned char)r; /* any bytes */
            else if (round == 1)
                b[i] = (unsigned char)json_chars[r % (sizeof json_chars - 1)];
            else if (round == 2)
                b[i] = (unsigned char)("[{\"" [r % 3]); /* nesting */
            else
                b[i] = (unsigned char)(' ' + r % 95); /* printable ASCII */
        }
        if (round == 1)
            b[0] = '{';
        st = avk_schema_parse((const char *)b, n, NULL, &s, &err);
        dt = now_seconds() - t0;
        if (st == AVK_OK)
            fail_msg("10 MB of garbage (round %zu) parsed", round);
        assert_null(s);
        assert_true(err.message[0] != '\0');
        print_message("10 MB garbage round %zu: %s in %.1f ms: %s\n", round, avk_status_name(st),
                      dt * 1e3, err.message);
    }
    /* Random cuts and byte flips of a valid schema: no crash, and either
     * OK or an error with a message. */
    {
        const char *good = avkt_q(
            "{'type':'record','name':'R','namespace':'n','fields':["
            "{'name':'a','type':['null',{'type':'enum','name':'E','symbols':['X','Y']}],"
            "'default':null},{'name':'b','type':{'type':'map','values':"
            "{'type':'fixed','name':'F','size':2,'logicalType':'decimal','precision':4}}}]}");
        size_t gl = strlen(good);
        char *m = (char *)malloc(gl + 1);
        size_t ok = 0;
        assert_non_null(m);
        for (i = 0; i < 20000; i++) {
            avk_schema *s = NULL;
            avk_error err;
            size_t cut = (size_t)avkt_below(&rng, gl + 1);
            avk_status st;
            memcpy(m, good, gl);
            if (i & 1)
                m[avkt_below(&rng, gl)] = (char)avkt_next(&rng);
            st = avk_schema_parse(m, (i & 1) ? gl : cut, NULL, &s, &err);
            if (st == AVK_OK) {
                ok++;
                avk_schema_free(s);
            } else {
                assert_null(s);
                assert_true(err.message[0] != '\0');
            }
        }
        print_message("20,000 cut or flipped schemas: %zu still valid\n", ok);
        free(m);
    }
    free(b);
}

/* ---- allocation failures ---------------------------------------------------------- */

static void test_failing_allocator(void **state)
{
    const char *text = avkt_q(
        "{'type':'record','name':'R','namespace':'n','doc':'d','aliases':['A'],'x':{'y':[1]},"
        "'fields':[{'name':'a','type':['null',{'type':'enum','name':'E','symbols':['X','Y'],"
        "'default':'Y'}],'default':null,'p':1},{'name':'b','type':{'type':'map','values':"
        "{'type':'fixed','name':'F','size':2,'logicalType':'decimal','precision':4}}},"
        "{'name':'c','type':{'type':'array','items':'R'},'default':[]},"
        "{'name':'d','type':{'type':'bytes','logicalType':'unknown'},'default':'\\u00ff'}]}");
    size_t len = strlen(text);
    int fail_all;
    (void)state;
    for (fail_all = 0; fail_all <= 1; fail_all++) {
        long n;
        for (n = 1;; n++) {
            avkt_failalloc fa;
            avk_schema_options o;
            avk_schema *s = NULL;
            avk_error err;
            avk_status st;
            avkt_failalloc_init(&fa, n);
            fa.fail_all_after = fail_all;
            memset(&o, 0, sizeof o);
            o.struct_size = sizeof o;
            o.allocator = &fa.allocator;
            memset(&err, 0, sizeof err);
            st = avk_schema_parse(text, len, &o, &s, &err);
            if (st == AVK_OK) {
                assert_non_null(s);
                /* Usable, then freed completely. */
                assert_int_equal(avk_type_field_count(avk_schema_root(s)), 4);
                avk_schema_free(s);
            } else {
                if (st != AVK_ERR_NO_MEMORY)
                    fail_msg("fail at %ld: %s (%s), expected NO_MEMORY", n, avk_status_name(st),
                             err.message);
                assert_null(s);
                assert_int_equal(err.status, AVK_ERR_NO_MEMORY);
                assert_true(err.message[0] != '\0');
                assert_true(fa.failures > 0);
            }
            if (fa.live_blocks != 0 || fa.live_bytes != 0)
                fail_msg("fail at %ld: %ld blocks (%zu bytes) leaked", n, fa.live_blocks,
                         fa.live_bytes);
            assert_int_equal(fa.size_mismatches, 0);
            assert_int_equal(fa.bad_frees, 0);
            if (fa.failures == 0) {
                assert_int_equal(st, AVK_OK);
                print_message("allocation failure loop (%s): %ld runs, %ld allocations per parse\n",
                              fail_all ? "all after N" : "Nth only", n, fa.calls);
                break;
            }
            assert_true(n < 100000);
        }
    }
    /* The same for a large schema, which needs several arena blocks. */
    {
        size_t n = 3000, i;
        char *b = (char *)malloc(n * 64 + 64), *p = b;
        long k;
        assert_non_null(b);
        p += sprintf(p, "{\"type\":\"record\",\"name\":\"W\",\"fields\":[");
        for (i = 0; i < n; i++)
            p += sprintf(p, "%s{\"name\":\"f%zu\",\"type\":[\"null\",\"long\"],\"default\":null}",
                         i ? "," : "", i);
        p += sprintf(p, "]}");
        for (k = 1;; k++) {
            avkt_failalloc fa;
            avk_schema_options o;
            avk_schema *s = NULL;
            avk_status st;
            avkt_failalloc_init(&fa, k);
            memset(&o, 0, sizeof o);
            o.struct_size = sizeof o;
            o.allocator = &fa.allocator;
            st = avk_schema_parse(b, (size_t)(p - b), &o, &s, NULL);
            assert_true(st == AVK_OK || st == AVK_ERR_NO_MEMORY);
            avk_schema_free(s);
            assert_int_equal(fa.live_blocks, 0);
            if (fa.failures == 0)
                break;
            assert_true(k < 100000);
        }
        print_message("large schema: %ld allocation failure runs\n", k);
        free(b);
    }
}

/* ---- threads -------------------------------------------------------------------- */

typedef struct thread_job {
    const avk_schema *schema;
    char *canon;                   /* the expected canonical form */
    uint8_t fps[3][32];            /* the expected fingerprints */
    size_t fp_lens[3];
    int mismatches;
} thread_job;

static void *thread_main(void *arg)
{
    thread_job *job = (thread_job *)arg;
    int iter, a;
    for (iter = 0; iter < 300; iter++) {
        const avk_type *root = avk_schema_root(job->schema);
        avk_writer w;
        avk_error err;
        const uint8_t *data;
        size_t len;
        if (avk_writer_init_memory(&w, NULL, &err) != AVK_OK ||
            avk_type_write_canonical(root, &w, &err) != AVK_OK) {
            job->mismatches++;
            continue;
        }
        data = avk_writer_data(&w, &len);
        if (len != strlen(job->canon) || memcmp(data, job->canon, len) != 0)
            job->mismatches++;
        avk_writer_destroy(&w);
        for (a = 0; a < 3; a++) {
            uint8_t fp[32];
            size_t n = 0;
            if (avk_type_fingerprint(root, (avk_fingerprint_algo)a, fp, &n, &err) != AVK_OK ||
                n != job->fp_lens[a] || memcmp(fp, job->fps[a], n) != 0)
                job->mismatches++;
        }
        if (avk_schema_find(job->schema, "t.Node") == NULL)
            job->mismatches++;
    }
    return NULL;
}

static void test_threads(void **state)
{
    avk_schema *s =
        AVKT_PARSE("{'type':'record','name':'Node','namespace':'t','fields':[{'name':'v','type':"
                   "{'type':'bytes','logicalType':'decimal','precision':9,'scale':2}},"
                   "{'name':'kids','type':{'type':'array','items':'Node'},'default':[]},"
                   "{'name':'e','type':['null',{'type':'enum','name':'E','symbols':['A','B']}]}]}");
    thread_job jobs[2];
    pthread_t th[2];
    int i, a;
    (void)state;
    for (i = 0; i < 2; i++) {
        avk_error err;
        memset(&jobs[i], 0, sizeof jobs[i]);
        jobs[i].schema = s;
        jobs[i].canon = canonical_of(avk_schema_root(s));
        for (a = 0; a < 3; a++)
            AVKT_OK(avk_type_fingerprint(avk_schema_root(s), (avk_fingerprint_algo)a, jobs[i].fps[a],
                                         &jobs[i].fp_lens[a], &err));
    }
    assert_int_equal(jobs[0].fp_lens[0], 8);
    assert_int_equal(jobs[0].fp_lens[1], 16);
    assert_int_equal(jobs[0].fp_lens[2], 32);
    for (i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&th[i], NULL, thread_main, &jobs[i]), 0);
    for (i = 0; i < 2; i++)
        assert_int_equal(pthread_join(th[i], NULL), 0);
    for (i = 0; i < 2; i++) {
        assert_int_equal(jobs[i].mismatches, 0);
        free(jobs[i].canon);
    }
    avk_schema_free(s);
}

/* ---- fingerprints: a few fixed values -------------------------------------------- */

static void test_fingerprint_values(void **state)
{
    avk_schema *s;
    uint8_t fp[32];
    size_t n = 0;
    avk_error err;
    static const uint8_t int_rabin[8] = {0x8f, 0x5c, 0x39, 0x3f, 0x1a, 0xd5, 0x75, 0x72};
    (void)state;
    /* From the specification's table: "int" -> 0x7275d51a3f395c8f. */
    assert_true(avk_rabin64("\"int\"", 5) == 0x7275d51a3f395c8fULL);
    s = AVKT_PARSE("{'type':'int','doc':'ignored','x':1}");
    AVKT_OK(avk_type_fingerprint(avk_schema_root(s), AVK_FINGERPRINT_RABIN, fp, &n, &err));
    assert_int_equal(n, 8);
    assert_memory_equal(fp, int_rabin, 8);
    AVKT_OK(avk_type_fingerprint(avk_schema_root(s), AVK_FINGERPRINT_MD5, fp, &n, &err));
    assert_int_equal(n, 16);
    {
        static const uint8_t md5[16] = {0xef, 0x52, 0x4e, 0xa1, 0xb9, 0x1e, 0x73, 0x17,
                                        0x3d, 0x93, 0x8a, 0xde, 0x36, 0xc1, 0xdb, 0x32};
        assert_memory_equal(fp, md5, 16);
    }
    AVKT_OK(avk_type_fingerprint(avk_schema_root(s), AVK_FINGERPRINT_SHA256, fp, &n, &err));
    assert_int_equal(n, 32);
    assert_int_equal(fp[0], 0x3f);
    assert_int_equal(fp[31], 0x45);
    {
        char *c = canonical_of(avk_schema_root(s));
        assert_string_equal(c, "\"int\"");
        free(c);
    }
    avk_schema_free(s);
    /* Equality sees attributes the canonical form drops. */
    {
        avk_schema *a = AVKT_PARSE(
            "{'type':'record','name':'R','fields':[{'name':'f','type':'int','doc':'x'}]}");
        avk_schema *b = AVKT_PARSE(
            "{'type':'record','name':'R','fields':[{'name':'f','type':'int','doc':'y'}]}");
        avk_schema *c = AVKT_PARSE(
            "{'type':'record','name':'R','fields':[{'name':'f','type':'int','doc':'x'}]}");
        char *ca = canonical_of(avk_schema_root(a)), *cb = canonical_of(avk_schema_root(b));
        assert_string_equal(ca, cb);
        assert_int_equal(avk_type_equal(avk_schema_root(a), avk_schema_root(b)), 0);
        assert_int_equal(avk_type_equal(avk_schema_root(a), avk_schema_root(c)), 1);
        free(ca);
        free(cb);
        avk_schema_free(a);
        avk_schema_free(b);
        avk_schema_free(c);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_interop_python_valid),
        cmocka_unit_test(test_interop_python_invalid),
        cmocka_unit_test(test_interop_avroc_pass_fail),
        cmocka_unit_test(test_interop_manifest),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_aliases),
        cmocka_unit_test(test_accessors),
        cmocka_unit_test(test_properties),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_logical_types),
        cmocka_unit_test(test_error_paths),
        cmocka_unit_test(test_long_error_path),
        cmocka_unit_test(test_deep_nesting),
        cmocka_unit_test(test_size_limits),
        cmocka_unit_test(test_huge_enum),
        cmocka_unit_test(test_bad_utf8),
        cmocka_unit_test(test_garbage),
        cmocka_unit_test(test_failing_allocator),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_fingerprint_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
