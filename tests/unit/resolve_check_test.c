/* avk_schema_check_resolvable (every problem that stops the plan compiler, and only those) and union mismatch messages that list the branches. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "avkt.h"

typedef struct problems {
    int n;
    char line[8][512];
} problems;

/* Keeps each problem as "reader PATH | writer PATH | MESSAGE". */
static void collect(void *ctx, const avk_compat_problem *p)
{
    problems *ps = (problems *)ctx;
    if (ps->n < 8)
        snprintf(ps->line[ps->n], sizeof ps->line[0], "reader %s | writer %s | %s",
                 p->reader_path, p->writer_path, p->message);
    ps->n++;
}

typedef avk_status (*check_fn)(const avk_type *, const avk_type *, avk_compat_fn, void *,
                               avk_error *);

static avk_status run_check(check_fn fn, const char *w_sq, const char *r_sq, problems *ps,
                            avk_error *err)
{
    avk_schema *ws = AVKT_PARSE(w_sq), *rs = AVKT_PARSE(r_sq);
    avk_status st;
    memset(ps, 0, sizeof *ps);
    memset(err, 0, sizeof *err);
    st = fn(avk_schema_root(ws), avk_schema_root(rs), collect, ps, err);
    avk_schema_free(ws);
    avk_schema_free(rs);
    return st;
}

/* The writer: a record whose fields meet every kind of problem. */
static const char W[] =
    "{'type':'record','name':'R','fields':["
    "{'name':'a','type':'int'},"
    "{'name':'e','type':{'type':'enum','name':'E','symbols':['A','B','X']}},"
    "{'name':'u','type':['null','string']},"
    "{'name':'k','type':'string'},"
    "{'name':'s','type':'string'}]}";

/* The reader: a is read as a string (kind mismatch, fatal); e lacks X
 * (fails only when read); u lacks string (fails only when read); k into a
 * union without string (fatal); two fields with no default (fatal). */
static const char R[] =
    "{'type':'record','name':'R','fields':["
    "{'name':'a','type':'string'},"
    "{'name':'e','type':{'type':'enum','name':'E','symbols':['A','B']}},"
    "{'name':'u','type':['null','int']},"
    "{'name':'k','type':['null','int','long']},"
    "{'name':'s','type':'string'},"
    "{'name':'n1','type':'int'},"
    "{'name':'n2','type':'int'}]}";

static void test_resolvable_lists_every_fatal_problem(void **state)
{
    problems ps;
    avk_error err;
    (void)state;
    AVKT_ASSERT_STATUS(run_check(avk_schema_check_resolvable, W, R, &ps, &err),
                       AVK_ERR_RESOLUTION);
    assert_int_equal(ps.n, 4);
    assert_string_equal(ps.line[0],
                        "reader R.fields[0] | writer R.fields[0] | int cannot be read as string");
    assert_string_equal(ps.line[1], "reader R.fields[3] | writer R.fields[3] | the writer's "
                                    "string matches no branch of the reader's union [null, int, "
                                    "long]");
    assert_string_equal(ps.line[2], "reader R.fields[5] | writer R | \"n1\": no default and not "
                                    "in writer");
    assert_string_equal(ps.line[3], "reader R.fields[6] | writer R | \"n2\": no default and not "
                                    "in writer");
    assert_string_equal(err.message, "4 problems, the first: reader R.fields[0]: int cannot be "
                                     "read as string (writer R.fields[0])");

    /* The strict check has those and the ones that fail only when read. */
    AVKT_ASSERT_STATUS(run_check(avk_schema_check_compat, W, R, &ps, &err), AVK_ERR_RESOLUTION);
    assert_int_equal(ps.n, 6);
    assert_string_equal(ps.line[0],
                        "reader R.fields[0] | writer R.fields[0] | int cannot be read as string");
    assert_string_equal(ps.line[1], "reader R.fields[1] | writer R.fields[1] | writer symbol X is "
                                    "not in the reader's symbols and the reader has no default");
    assert_string_equal(ps.line[2], "reader R.fields[2] | writer R.fields[2].branch[1] | no "
                                    "branch of the reader's union [null, int] matches");
    assert_string_equal(ps.line[3], "reader R.fields[3] | writer R.fields[3] | no branch of the "
                                    "reader's union [null, int, long] matches");
    assert_string_equal(ps.line[4], "reader R.fields[5] | writer R | \"n1\": no default and not "
                                    "in writer");

    /* The plan compiler stops at the first of the fatal ones. */
    {
        avk_schema *ws = AVKT_PARSE(W), *rs = AVKT_PARSE(R);
        avk_plan *p = NULL;
        AVKT_ASSERT_STATUS(
            avk_plan_new_resolving(avk_schema_root(ws), avk_schema_root(rs), NULL, &p, &err),
            AVK_ERR_RESOLUTION);
        assert_string_equal(err.message,
                            "reader R.fields[0]: int cannot be read as string (writer R.fields[0])");
        avk_schema_free(ws);
        avk_schema_free(rs);
    }
}

static void test_resolvable_but_not_compatible(void **state)
{
    problems ps;
    avk_error err;
    const char *w = "['null','string','int']", *r = "['null','int']";
    (void)state;
    /* Strings fail only when one is read: resolvable, not compatible. */
    AVKT_OK(run_check(avk_schema_check_resolvable, w, r, &ps, &err));
    assert_int_equal(ps.n, 0);
    AVKT_ASSERT_STATUS(run_check(avk_schema_check_compat, w, r, &ps, &err), AVK_ERR_RESOLUTION);
    assert_int_equal(ps.n, 1);
    assert_string_equal(ps.line[0], "reader union | writer union.branch[1] | no branch of the "
                                    "reader's union [null, int] matches");
    /* Compatible: neither calls. */
    AVKT_OK(run_check(avk_schema_check_resolvable, "'int'", "['null','long']", &ps, &err));
    assert_int_equal(ps.n, 0);
    AVKT_OK(run_check(avk_schema_check_compat, "'int'", "['null','long']", &ps, &err));
    assert_int_equal(ps.n, 0);
    AVKT_ASSERT_STATUS(avk_schema_check_resolvable(NULL, NULL, NULL, NULL, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "avk_schema_check_resolvable: NULL argument");
}

/* Reading a value whose union branch the reader cannot take: the message
 * lists the reader's branches (or the writer's, for a union read as a
 * non-union). */
static void expect_read_failure(const char *w_sq, const char *r_sq, const uint8_t *data,
                                size_t len, const char *want)
{
    avk_schema *ws = AVKT_PARSE(w_sq), *rs = AVKT_PARSE(r_sq);
    avk_plan *p = NULL;
    avk_arena *a = NULL;
    avk_reader rd;
    avk_value v;
    avk_error err;
    AVKT_OK(avk_plan_new_resolving(avk_schema_root(ws), avk_schema_root(rs), NULL, &p, &err));
    AVKT_OK(avk_arena_new(NULL, &a, &err));
    avk_reader_init_memory(&rd, data, len);
    AVKT_ASSERT_STATUS(avk_plan_decode(p, &rd, a, &v, &err), AVK_ERR_RESOLUTION);
    if (!strstr(err.message, want))
        fail_msg("message '%s' lacks '%s'", err.message, want);
    avk_arena_free(a);
    avk_plan_free(p);
    avk_schema_free(ws);
    avk_schema_free(rs);
}

static void test_union_messages_list_branches(void **state)
{
    static const uint8_t string_branch[] = {0x02, 0x02, 'x'}; /* branch 1, "x" */
    avk_schema *ws, *rs;
    avk_plan *p = NULL;
    avk_error err;
    (void)state;
    expect_read_failure("['null','string']", "['null','int','boolean']", string_branch,
                        sizeof string_branch,
                        "writer string cannot be read as reader union: no branch of the "
                        "reader's union [null, int, boolean] matches");
    expect_read_failure("['null','string']", "'int'", string_branch, sizeof string_branch,
                        "writer string cannot be read as reader int: branch 1 (string) of the "
                        "writer's union [null, string] does not match the reader's int");
    /* A non-union no reader branch takes: the compile error lists them. */
    ws = AVKT_PARSE("{'type':'fixed','name':'F','size':2}");
    rs = AVKT_PARSE("['null',{'type':'record','name':'ns.User','fields':[]},'bytes']");
    AVKT_ASSERT_STATUS(
        avk_plan_new_resolving(avk_schema_root(ws), avk_schema_root(rs), NULL, &p, &err),
        AVK_ERR_RESOLUTION);
    assert_string_equal(err.message, "reader union: the writer's F matches no branch of the "
                                     "reader's union [null, ns.User, bytes] (writer F)");
    avk_schema_free(ws);
    avk_schema_free(rs);
}

/* Over every pair of a set of schemas: the check passes exactly when the
 * plan compiles, and when it does not, the check's first problem is the
 * plan's error. */
static void test_resolvable_agrees_with_the_plan(void **state)
{
    static const char *const schemas[] = {
        "'int'",
        "'long'",
        "'string'",
        "'bytes'",
        "['null','int']",
        "['null','string','long']",
        "{'type':'array','items':'int'}",
        "{'type':'map','values':['null','double']}",
        "{'type':'enum','name':'E','symbols':['A','B']}",
        "{'type':'enum','name':'E','symbols':['B','C'],'default':'B'}",
        "{'type':'fixed','name':'F','size':4}",
        "{'type':'fixed','name':'F','size':8}",
        "{'type':'record','name':'R','fields':[{'name':'a','type':'int'}]}",
        "{'type':'record','name':'R','fields':[{'name':'a','type':'long'},{'name':'b','type':"
        "'string','default':'x'}]}",
        "{'type':'record','name':'R','fields':[{'name':'b','type':'string'},{'name':'c','type':"
        "{'type':'array','items':'R'}}]}",
        "{'type':'record','name':'L','fields':[{'name':'next','type':['null','L']}]}",
    };
    size_t n = sizeof schemas / sizeof schemas[0], i, j;
    (void)state;
    for (i = 0; i < n; i++) {
        for (j = 0; j < n; j++) {
            avk_schema *ws = AVKT_PARSE(schemas[i]), *rs = AVKT_PARSE(schemas[j]);
            avk_plan *p = NULL;
            avk_error pe, ce;
            avk_status pst, cst;
            size_t count = 0;
            problems ps;
            pst = avk_plan_new_resolving(avk_schema_root(ws), avk_schema_root(rs), NULL, &p, &pe);
            memset(&ps, 0, sizeof ps);
            cst = avk_schema_check_resolvable(avk_schema_root(ws), avk_schema_root(rs), collect,
                                              &ps, &ce);
            if (pst != cst)
                fail_msg("%s read as %s: the plan says %s, the check %s", schemas[i], schemas[j],
                         avk_status_name(pst), avk_status_name(cst));
            if (pst == AVK_ERR_RESOLUTION) {
                size_t pl = strlen(pe.message), cl = strlen(ce.message);
                count = (size_t)ps.n;
                if (count == 0 || cl < pl || strcmp(ce.message + cl - pl, pe.message) != 0)
                    fail_msg("%s read as %s: %zu problems; check '%s', plan '%s'", schemas[i],
                             schemas[j], count, ce.message, pe.message);
            } else if (ps.n != 0) {
                fail_msg("%s read as %s: compiles, yet %d problems", schemas[i], schemas[j], ps.n);
            }
            avk_plan_free(p);
            avk_schema_free(ws);
            avk_schema_free(rs);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resolvable_lists_every_fatal_problem),
        cmocka_unit_test(test_resolvable_but_not_compatible),
        cmocka_unit_test(test_union_messages_list_branches),
        cmocka_unit_test(test_resolvable_agrees_with_the_plan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
