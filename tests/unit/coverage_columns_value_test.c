/* avk_columns_append_value against avk_columns_decode: the same records give the same Arrow arrays; values of the wrong shape are refused whole. */
#include <stdio.h>
#include <stdlib.h>

#include "avkt.h"

/* Every kind of column: each primitive, fixed, enum, both decimals, logical
 * types, a struct, lists of every typed item kind and of boxed ones, a map,
 * nullable primitives and struct (null first and last), a dense union. */
static const char *const SCHEMA =
    "{'type':'record','name':'R','fields':["
    "{'name':'n','type':'null'},"
    "{'name':'b','type':'boolean'},"
    "{'name':'i','type':'int'},"
    "{'name':'l','type':'long'},"
    "{'name':'f','type':'float'},"
    "{'name':'d','type':'double'},"
    "{'name':'s','type':'string'},"
    "{'name':'y','type':'bytes'},"
    "{'name':'x','type':{'type':'fixed','name':'X','size':3}},"
    "{'name':'e','type':{'type':'enum','name':'E','symbols':['A','B','C']}},"
    "{'name':'dec','type':{'type':'bytes','logicalType':'decimal','precision':20,'scale':2}},"
    "{'name':'decf','type':{'type':'fixed','name':'DF','size':5,'logicalType':'decimal',"
    "'precision':10,'scale':1}},"
    "{'name':'date','type':{'type':'int','logicalType':'date'}},"
    "{'name':'ts','type':{'type':'long','logicalType':'timestamp-micros'}},"
    "{'name':'inner','type':{'type':'record','name':'In','fields':["
    "{'name':'a','type':'int'},{'name':'t','type':'string'}]}},"
    "{'name':'ab','type':{'type':'array','items':'boolean'}},"
    "{'name':'ai','type':{'type':'array','items':'int'}},"
    "{'name':'al','type':{'type':'array','items':'long'}},"
    "{'name':'af','type':{'type':'array','items':'float'}},"
    "{'name':'ad','type':{'type':'array','items':'double'}},"
    "{'name':'ax','type':{'type':'array','items':'X'}},"
    "{'name':'an','type':{'type':'array','items':'null'}},"
    "{'name':'as','type':{'type':'array','items':'string'}},"
    "{'name':'ar','type':{'type':'array','items':'In'}},"
    "{'name':'m','type':{'type':'map','values':'long'}},"
    "{'name':'ns','type':['null','string']},"
    "{'name':'sn','type':['string','null']},"
    "{'name':'u','type':['int','string','null']},"
    "{'name':'ni','type':['null','In']}]}";

enum { F_N, F_B, F_I, F_L, F_F, F_D, F_S, F_Y, F_X, F_E, F_DEC, F_DECF, F_DATE, F_TS, F_INNER,
       F_AB, F_AI, F_AL, F_AF, F_AD, F_AX, F_AN, F_AS, F_AR, F_M, F_NS, F_SN, F_U, F_NI,
       F_COUNT };

static const char *const RECORDS[] = {
    "{\"n\":null,\"b\":true,\"i\":-5,\"l\":1234567890123,\"f\":1.5,\"d\":-2.25,"
    "\"s\":\"h\\u00e9llo\",\"y\":\"\\u0001\\u00ff\",\"x\":\"abc\",\"e\":\"C\","
    "\"dec\":\"\\u0001\\u0000\",\"decf\":\"\\u0000\\u0000\\u0000\\u0001\\u0002\","
    "\"date\":19000,\"ts\":1700000000000000,\"inner\":{\"a\":7,\"t\":\"in\"},"
    "\"ab\":[true,false,true],\"ai\":[1,-2,3],\"al\":[10000000000,-1],\"af\":[0.5],"
    "\"ad\":[1e300,-0.0],\"ax\":[\"xyz\",\"\\u0000\\u0001\\u0002\"],\"an\":[null,null],"
    "\"as\":[\"p\",\"\",\"q\"],\"ar\":[{\"a\":1,\"t\":\"r1\"},{\"a\":2,\"t\":\"\"}],"
    "\"m\":{\"k1\":1,\"k2\":-2},\"ns\":{\"string\":\"yes\"},\"sn\":null,\"u\":{\"int\":42},"
    "\"ni\":{\"In\":{\"a\":3,\"t\":\"z\"}}}",
    "{\"n\":null,\"b\":false,\"i\":0,\"l\":-1,\"f\":-0.25,\"d\":0.0,\"s\":\"\",\"y\":\"\","
    "\"x\":\"\\u0000\\u0000\\u0000\",\"e\":\"A\",\"dec\":\"\\u00ff\","
    "\"decf\":\"\\u00ff\\u00ff\\u00ff\\u00ff\\u00fe\",\"date\":-1,\"ts\":0,"
    "\"inner\":{\"a\":-1,\"t\":\"\"},\"ab\":[],\"ai\":[],\"al\":[],\"af\":[],\"ad\":[],"
    "\"ax\":[],\"an\":[],\"as\":[],\"ar\":[],\"m\":{},\"ns\":null,\"sn\":{\"string\":\"s\"},"
    "\"u\":{\"string\":\"str\"},\"ni\":null}",
    "{\"n\":null,\"b\":true,\"i\":2147483647,\"l\":-9223372036854775808,\"f\":3e38,"
    "\"d\":5e-324,\"s\":\"\\u20ac\",\"y\":\"\\u0000\",\"x\":\"zzz\",\"e\":\"B\",\"dec\":\"\","
    "\"decf\":\"\\u0000\\u0000\\u0000\\u0000\\u0000\",\"date\":0,\"ts\":-1,"
    "\"inner\":{\"a\":0,\"t\":\"long text here\"},\"ab\":[false],\"ai\":[-2147483648],"
    "\"al\":[0],\"af\":[1e-45],\"ad\":[2.5],\"ax\":[\"qqq\"],\"an\":[null],"
    "\"as\":[\"\\u00e9\"],\"ar\":[{\"a\":9,\"t\":\"nine\"}],\"m\":{\"\":0},\"ns\":{\"string\":\"\"},"
    "\"sn\":{\"string\":\"\"},\"u\":null,\"ni\":{\"In\":{\"a\":-3,\"t\":\"\"}}}",
};
enum { N_RECORDS = sizeof RECORDS / sizeof RECORDS[0] };

/* ---- Arrow arrays compared buffer by buffer, following the format ------- */

static int bit(const void *buf, int64_t i)
{
    return (((const uint8_t *)buf)[i / 8] >> (i % 8)) & 1;
}

static void compare_bits(const void *a, const void *b, int64_t n, const char *what, const char *path)
{
    for (int64_t i = 0; i < n; i++)
        if (bit(a, i) != bit(b, i))
            fail_msg("%s: %s bit %lld differs", path, what, (long long)i);
}

static void compare_bytes(const void *a, const void *b, size_t n, const char *what, const char *path)
{
    if (n && memcmp(a, b, n) != 0)
        fail_msg("%s: %s (%zu bytes) differ", path, what, n);
}

/* The width of a fixed-width format's values, 0 for the others. */
static size_t value_width(const char *fmt)
{
    if (!strcmp(fmt, "i") || !strcmp(fmt, "f") || !strcmp(fmt, "tdD") || !strcmp(fmt, "ttm"))
        return 4;
    if (!strcmp(fmt, "l") || !strcmp(fmt, "g") || !strcmp(fmt, "ttu") || !strncmp(fmt, "ts", 2))
        return 8;
    if (!strncmp(fmt, "w:", 2))
        return (size_t)atoi(fmt + 2);
    if (!strncmp(fmt, "d:", 2))
        return strstr(fmt, ",256") ? 32 : 16;
    return 0;
}

static void compare_arrays(const struct ArrowSchema *s, const struct ArrowArray *a,
                           const struct ArrowArray *b, const char *parent)
{
    char path[256];
    const char *fmt = s->format;
    size_t w = value_width(fmt);
    int64_t n = a->length;
    snprintf(path, sizeof path, "%s/%s", parent, s->name ? s->name : "");
    if (a->length != b->length || a->null_count != b->null_count || a->offset != b->offset ||
        a->n_buffers != b->n_buffers || a->n_children != b->n_children)
        fail_msg("%s (%s): length %lld/%lld, nulls %lld/%lld, buffers %lld/%lld, children %lld/%lld",
                 path, fmt, (long long)a->length, (long long)b->length, (long long)a->null_count,
                 (long long)b->null_count, (long long)a->n_buffers, (long long)b->n_buffers,
                 (long long)a->n_children, (long long)b->n_children);
    assert_int_equal(a->offset, 0);
    /* validity: none for null and union arrays (n_buffers 0; type ids first) */
    if (a->null_count > 0 && strcmp(fmt, "n") && strncmp(fmt, "+u", 2))
        compare_bits(a->buffers[0], b->buffers[0], n, "validity", path);
    if (w) {
        compare_bytes(a->buffers[1], b->buffers[1], w * (size_t)n, "values", path);
    } else if (!strcmp(fmt, "b")) {
        compare_bits(a->buffers[1], b->buffers[1], n, "values", path);
    } else if (!strcmp(fmt, "u") || !strcmp(fmt, "z")) {
        const int32_t *off = (const int32_t *)a->buffers[1];
        compare_bytes(a->buffers[1], b->buffers[1], 4 * (size_t)(n + 1), "offsets", path);
        compare_bytes((const uint8_t *)a->buffers[2] + off[0],
                      (const uint8_t *)b->buffers[2] + off[0], (size_t)(off[n] - off[0]), "data",
                      path);
    } else if (!strcmp(fmt, "+l") || !strcmp(fmt, "+m")) {
        compare_bytes(a->buffers[1], b->buffers[1], 4 * (size_t)(n + 1), "offsets", path);
    } else if (!strncmp(fmt, "+ud:", 4)) {
        /* no validity buffer: type ids, then offsets */
        compare_bytes(a->buffers[0], b->buffers[0], (size_t)n, "type ids", path);
        compare_bytes(a->buffers[1], b->buffers[1], 4 * (size_t)n, "offsets", path);
    } else if (strcmp(fmt, "n") && strcmp(fmt, "+s")) {
        fail_msg("%s: format %s not handled by the test", path, fmt);
    }
    for (int64_t k = 0; k < a->n_children; k++)
        compare_arrays(s->children[k], a->children[k], b->children[k], path);
    assert_true((a->dictionary == NULL) == (b->dictionary == NULL));
    assert_true((s->dictionary == NULL) == (a->dictionary == NULL));
    if (a->dictionary)
        compare_arrays(s->dictionary, a->dictionary, b->dictionary, path);
}

/* ---- fixtures --------------------------------------------------------- */

typedef struct fixture {
    avk_schema *schema;
    const avk_type *root;
    avk_plan *plan;
    avk_arena *arena;
    avk_value values[N_RECORDS];
    avk_writer bytes; /* the records, encoded one after another */
} fixture;

static void fixture_init(fixture *fx)
{
    avk_error err;
    fx->schema = AVKT_PARSE(SCHEMA);
    fx->root = avk_schema_root(fx->schema);
    fx->plan = avkt_plan_new(fx->root, 0, NULL, 0);
    AVKT_OK(avk_arena_new(NULL, &fx->arena, &err));
    AVKT_OK(avk_writer_init_memory(&fx->bytes, NULL, &err));
    for (size_t k = 0; k < N_RECORDS; k++) {
        AVKT_OK(avk_value_read_json(fx->root, RECORDS[k], strlen(RECORDS[k]), fx->arena,
                                    &fx->values[k], &err));
        AVKT_OK(avk_plan_encode(fx->plan, &fx->values[k], &fx->bytes, &err));
    }
}

static void fixture_destroy(fixture *fx)
{
    avk_writer_destroy(&fx->bytes);
    avk_arena_free(fx->arena);
    avk_plan_free(fx->plan);
    avk_schema_free(fx->schema);
}

/* Columns of the records decoded from their bytes, repeated `times`. */
static avk_columns *decoded_columns(const fixture *fx, const avk_columns_options *o, int times)
{
    avk_columns *c;
    avk_error err;
    size_t len;
    const uint8_t *data = avk_writer_data(&fx->bytes, &len);
    AVKT_OK(avk_columns_new(fx->root, o, &c, &err));
    for (int t = 0; t < times; t++) {
        avk_reader r;
        uint64_t done = 0;
        avk_reader_init_memory(&r, data, len);
        AVKT_OK(avk_columns_decode(c, &r, N_RECORDS, &done, &err));
        AVKT_ASSERT_I64_EQ(done, N_RECORDS);
        AVKT_ASSERT_I64_EQ(r.pos - data, len);
    }
    return c;
}

/* Both column sets exported, compared, released; c and d are left empty. */
static void assert_same_columns(avk_columns *c, avk_columns *d, int64_t length)
{
    struct ArrowSchema s;
    struct ArrowArray a, b;
    avk_error err;
    AVKT_OK(avk_columns_export_schema(c, &s, &err));
    AVKT_OK(avk_columns_export(c, &a, &err));
    AVKT_OK(avk_columns_export(d, &b, &err));
    AVKT_ASSERT_I64_EQ(a.length, length);
    compare_arrays(&s, &a, &b, "");
    a.release(&a);
    b.release(&b);
    s.release(&s);
}

/* ---- tests ------------------------------------------------------------ */

/* Values read from JSON, appended, give the arrays their encoded bytes
 * decode to: every column kind, typed and boxed array items, nulls on
 * either side of a nullable union, a union's every branch. */
static void test_append_value_matches_decode(void **state)
{
    fixture fx;
    avk_columns *c, *d;
    avk_error err;
    struct ArrowArray a;
    struct ArrowSchema s;
    (void)state;
    fixture_init(&fx);
    c = decoded_columns(&fx, NULL, 1);
    AVKT_OK(avk_columns_new(fx.root, NULL, &d, &err));
    for (size_t k = 0; k < N_RECORDS; k++)
        AVKT_OK(avk_columns_append_value(d, &fx.values[k], &err));
    AVKT_ASSERT_I64_EQ(avk_columns_length(d), N_RECORDS);

    /* A few cells by value, from the appended set. */
    AVKT_OK(avk_columns_export_schema(d, &s, &err));
    AVKT_OK(avk_columns_export(d, &a, &err));
    AVKT_ASSERT_I64_EQ(a.n_children, F_COUNT);
    assert_string_equal(s.children[F_DEC]->format, "d:20,2");
    assert_string_equal(s.children[F_U]->format, "+ud:0,1,2");
    AVKT_ASSERT_I64_EQ(((const int32_t *)a.children[F_I]->buffers[1])[0], -5);
    AVKT_ASSERT_I64_EQ(((const int32_t *)a.children[F_I]->buffers[1])[2], 2147483647);
    AVKT_ASSERT_I64_EQ(((const int64_t *)a.children[F_L]->buffers[1])[2], INT64_MIN);
    AVKT_ASSERT_I64_EQ(((const int32_t *)a.children[F_E]->buffers[1])[0], 2); /* C */
    AVKT_ASSERT_I64_EQ(((const int32_t *)a.children[F_E]->buffers[1])[2], 1); /* B */
    {
        /* dec: 0x0100 = 256, then -1, then 0 (empty bytes), little-endian 128-bit */
        const uint8_t *dec = (const uint8_t *)a.children[F_DEC]->buffers[1];
        uint8_t want[48];
        memset(want, 0, sizeof want);
        want[1] = 1;
        memset(want + 16, 0xff, 16);
        avkt_assert_bytes(dec, 48, want, 48);
    }
    {
        /* decf: 0x0000000102 = 258, then -2 */
        const int64_t *decf = (const int64_t *)a.children[F_DECF]->buffers[1];
        AVKT_ASSERT_I64_EQ(decf[0], 258);
        AVKT_ASSERT_I64_EQ(decf[1], 0);
        AVKT_ASSERT_I64_EQ(decf[2], -2);
        AVKT_ASSERT_I64_EQ(decf[3], -1);
    }
    {
        /* ab: [true,false,true] [] [false] */
        const struct ArrowArray *ab = a.children[F_AB];
        const int32_t *off = (const int32_t *)ab->buffers[1];
        AVKT_ASSERT_I64_EQ(off[1], 3);
        AVKT_ASSERT_I64_EQ(off[2], 3);
        AVKT_ASSERT_I64_EQ(off[3], 4);
        assert_int_equal(bit(ab->children[0]->buffers[1], 0), 1);
        assert_int_equal(bit(ab->children[0]->buffers[1], 1), 0);
        assert_int_equal(bit(ab->children[0]->buffers[1], 2), 1);
        assert_int_equal(bit(ab->children[0]->buffers[1], 3), 0);
    }
    {
        /* ax: fixed items "xyz", 00 01 02, "qqq" */
        const struct ArrowArray *ax = a.children[F_AX]->children[0];
        AVKT_ASSERT_I64_EQ(ax->length, 3);
        avkt_assert_bytes((const uint8_t *)ax->buffers[1], 9,
                          (const uint8_t *)"xyz\0\1\2qqq", 9);
    }
    /* ns (null first) and sn (null last): one null each, in records 2 and 1 */
    AVKT_ASSERT_I64_EQ(a.children[F_NS]->null_count, 1);
    assert_int_equal(bit(a.children[F_NS]->buffers[0], 1), 0);
    AVKT_ASSERT_I64_EQ(a.children[F_SN]->null_count, 1);
    assert_int_equal(bit(a.children[F_SN]->buffers[0], 0), 0);
    AVKT_ASSERT_I64_EQ(a.children[F_NI]->null_count, 1);
    /* u: int, string, null */
    avkt_assert_bytes((const uint8_t *)a.children[F_U]->buffers[0], 3,
                      (const uint8_t *)"\0\1\2", 3);
    a.release(&a);
    s.release(&s);

    /* Whole arrays: appended against decoded, twice over (the second
     * round into the buffers the export left behind). */
    for (int round = 0; round < 2; round++) {
        for (size_t k = 0; k < N_RECORDS; k++)
            AVKT_OK(avk_columns_append_value(d, &fx.values[k], &err));
        if (round) {
            avk_columns_free(c);
            c = decoded_columns(&fx, NULL, 1);
        }
        assert_same_columns(c, d, N_RECORDS);
    }
    avk_columns_free(c);
    avk_columns_free(d);
    fixture_destroy(&fx);
}

/* A projection: appended values give the projected fields only, as the
 * decoder does (the fields left out are not looked at). */
static void test_append_value_projected(void **state)
{
    static const char *const fields[] = {"u", "inner.t", "m", "ni.a", "ax"};
    fixture fx;
    avk_columns_options o;
    avk_columns *c, *d;
    avk_error err;
    (void)state;
    fixture_init(&fx);
    avk_columns_options_init(&o);
    o.fields = fields;
    o.field_count = sizeof fields / sizeof fields[0];
    c = decoded_columns(&fx, &o, 2);
    AVKT_OK(avk_columns_new(fx.root, &o, &d, &err));
    for (int t = 0; t < 2; t++)
        for (size_t k = 0; k < N_RECORDS; k++)
            AVKT_OK(avk_columns_append_value(d, &fx.values[k], &err));
    assert_same_columns(c, d, 2 * N_RECORDS);
    avk_columns_free(c);
    avk_columns_free(d);
    fixture_destroy(&fx);
}

/* A value of another shape in field k: INVALID_ARGUMENT with the message
 * naming both, and nothing of the record kept (the fields before it were
 * appended, then taken back). */
static void refuse(avk_columns *c, avk_value *rec, size_t k, const avk_value *bad,
                   avk_status want, const char *message)
{
    avk_error err;
    avk_value keep = rec->u.fields[k];
    uint64_t before = avk_columns_length(c);
    rec->u.fields[k] = *bad;
    AVKT_ASSERT_STATUS(avk_columns_append_value(c, rec, &err), want);
    AVKT_ASSERT_STATUS(err.status, want);
    assert_string_equal(err.message, message);
    AVKT_ASSERT_I64_EQ(avk_columns_length(c), before);
    rec->u.fields[k] = keep;
}

static void test_append_value_refuses_other_shapes(void **state)
{
    fixture fx;
    avk_columns_options o;
    avk_columns *c, *d;
    avk_error err;
    avk_value rec, fields[F_COUNT], bad, branch;
    static const uint8_t four[4] = {1, 2, 3, 4};
    (void)state;
    fixture_init(&fx);
    avk_columns_options_init(&o);
    o.flags = AVK_COLUMNS_CHECK_UTF8;
    AVKT_OK(avk_columns_new(fx.root, &o, &d, &err));
    /* a copy of record 0 whose fields the cases replace one at a time */
    rec = fx.values[0];
    memcpy(fields, rec.u.fields, sizeof fields);
    rec.u.fields = fields;
    AVKT_OK(avk_columns_append_value(d, &rec, &err));

    /* a long where each other kind is held */
    bad = fields[F_L];
    refuse(d, &rec, F_N, &bad, AVK_ERR_INVALID_ARGUMENT,
           "a long value where column \"n\" holds null");
    refuse(d, &rec, F_B, &bad, AVK_ERR_INVALID_ARGUMENT,
           "a long value where column \"b\" holds boolean");
    refuse(d, &rec, F_I, &bad, AVK_ERR_INVALID_ARGUMENT,
           "a long value where column \"i\" holds int");
    refuse(d, &rec, F_E, &bad, AVK_ERR_INVALID_ARGUMENT,
           "a long value where column \"e\" holds enum");
    refuse(d, &rec, F_F, &bad, AVK_ERR_INVALID_ARGUMENT,
           "a long value where column \"f\" holds float");
    refuse(d, &rec, F_D, &bad, AVK_ERR_INVALID_ARGUMENT,
           "a long value where column \"d\" holds double");
    refuse(d, &rec, F_S, &bad, AVK_ERR_INVALID_ARGUMENT,
           "a long value where column \"s\" holds string");
    refuse(d, &rec, F_X, &bad, AVK_ERR_INVALID_ARGUMENT,
           "a long value where column \"x\" holds fixed");
    refuse(d, &rec, F_DEC, &bad, AVK_ERR_INVALID_ARGUMENT,
           "a long value where column \"dec\" holds bytes");
    refuse(d, &rec, F_INNER, &bad, AVK_ERR_INVALID_ARGUMENT,
           "a long value where column \"inner\" holds record");
    refuse(d, &rec, F_AI, &bad, AVK_ERR_INVALID_ARGUMENT,
           "a long value where column \"ai\" holds array");
    refuse(d, &rec, F_M, &bad, AVK_ERR_INVALID_ARGUMENT,
           "a long value where column \"m\" holds map");
    refuse(d, &rec, F_U, &bad, AVK_ERR_INVALID_ARGUMENT,
           "a long value where column \"u\" holds union");
    refuse(d, &rec, F_NS, &bad, AVK_ERR_INVALID_ARGUMENT,
           "a long value where column \"ns\" holds string");
    /* an int where a long is held; a typeless value */
    refuse(d, &rec, F_L, &fields[F_I], AVK_ERR_INVALID_ARGUMENT,
           "a int value where column \"l\" holds long");
    memset(&bad, 0, sizeof bad);
    refuse(d, &rec, F_I, &bad, AVK_ERR_INVALID_ARGUMENT,
           "a typeless value where column \"i\" holds int");

    /* an enum index past the symbols; fixed and decimal fixed of another size */
    bad = fields[F_E];
    bad.u.index = 3;
    refuse(d, &rec, F_E, &bad, AVK_ERR_INVALID_ARGUMENT,
           "a enum value where column \"e\" holds enum");
    bad = fields[F_X];
    bad.u.bytes.data = four;
    bad.u.bytes.len = 4;
    refuse(d, &rec, F_X, &bad, AVK_ERR_INVALID_ARGUMENT,
           "a fixed value where column \"x\" holds fixed");
    bad = fields[F_DECF];
    bad.u.bytes.data = four;
    bad.u.bytes.len = 4;
    refuse(d, &rec, F_DECF, &bad, AVK_ERR_INVALID_ARGUMENT,
           "a fixed value where column \"decf\" holds fixed");
    /* a record of another field count (R's 29 where In has 2) */
    bad = fields[F_INNER];
    bad.type = fx.root;
    bad.u.fields = fields;
    refuse(d, &rec, F_INNER, &bad, AVK_ERR_INVALID_ARGUMENT,
           "a record value where column \"inner\" holds record");
    /* union values: a branch past the branches, a branch with no value */
    bad = fields[F_U];
    bad.u.branch.index = 3;
    refuse(d, &rec, F_U, &bad, AVK_ERR_INVALID_ARGUMENT,
           "a union value where column \"u\" holds union");
    bad.u.branch.index = 0;
    bad.u.branch.value = NULL;
    refuse(d, &rec, F_U, &bad, AVK_ERR_INVALID_ARGUMENT,
           "a union value where column \"u\" holds union");
    bad = fields[F_NS];
    bad.u.branch.value = NULL;
    refuse(d, &rec, F_NS, &bad, AVK_ERR_INVALID_ARGUMENT,
           "a union value where column \"ns\" holds string");
    /* a nullable column's union value with a branch past its two */
    bad = fields[F_NS];
    bad.u.branch.index = 2;
    refuse(d, &rec, F_NS, &bad, AVK_ERR_INVALID_ARGUMENT,
           "a union value where column \"ns\" holds string");
    /* a nullable column's value of the wrong kind inside its union */
    bad = fields[F_NS];
    branch = fields[F_I];
    bad.u.branch.value = &branch;
    refuse(d, &rec, F_NS, &bad, AVK_ERR_INVALID_ARGUMENT,
           "a int value where column \"ns\" holds string");

    /* invalid UTF-8: in a string, in a string array item, in a map key */
    bad = fields[F_S];
    bad.u.bytes.data = (const uint8_t *)"a\xc0";
    bad.u.bytes.len = 2;
    refuse(d, &rec, F_S, &bad, AVK_ERR_MALFORMED,
           "a string of column \"s\" is not valid UTF-8");
    {
        avk_bytes keys[2];
        bad = fields[F_M];
        memcpy(keys, bad.u.map.keys, sizeof keys);
        keys[1].data = (const uint8_t *)"\xff";
        keys[1].len = 1;
        bad.u.map.keys = keys;
        refuse(d, &rec, F_M, &bad, AVK_ERR_MALFORMED,
               "a string of column \"key\" is not valid UTF-8");
    }
    /* bytes are not checked */
    fields[F_Y].u.bytes.data = (const uint8_t *)"\xff";
    fields[F_Y].u.bytes.len = 1;
    AVKT_OK(avk_columns_append_value(d, &rec, &err));
    AVKT_ASSERT_I64_EQ(avk_columns_length(d), 2);

    /* NULL arguments */
    AVKT_ASSERT_STATUS(avk_columns_append_value(NULL, &rec, &err), AVK_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "avk_columns_append_value: NULL argument");
    AVKT_ASSERT_STATUS(avk_columns_append_value(d, NULL, &err), AVK_ERR_INVALID_ARGUMENT);

    /* What stayed is exactly the two good records: the refused ones were
     * taken back from every column they had reached. */
    fields[F_Y] = fx.values[0].u.fields[F_Y];
    avk_columns_free(d);
    AVKT_OK(avk_columns_new(fx.root, &o, &d, &err));
    c = decoded_columns(&fx, &o, 1);
    for (size_t k = 0; k < N_RECORDS; k++) {
        avk_value one = fx.values[k];
        avk_value fs[F_COUNT];
        memcpy(fs, one.u.fields, sizeof fs);
        one.u.fields = fs;
        /* a refused copy of each record first, failing in its last field */
        fs[F_NI].u.branch.index = 2;
        AVKT_ASSERT_STATUS(avk_columns_append_value(d, &one, &err), AVK_ERR_INVALID_ARGUMENT);
        fs[F_NI] = fx.values[k].u.fields[F_NI];
        AVKT_OK(avk_columns_append_value(d, &one, &err));
    }
    assert_same_columns(c, d, N_RECORDS);
    avk_columns_free(c);
    avk_columns_free(d);
    fixture_destroy(&fx);
}

/* A column set of a type that is not a record: one column, the values
 * appended as they are (an array of ints stored typed; a union). */
static void test_append_value_non_record_roots(void **state)
{
    static const char *const types[] = {
        "{'type':'array','items':'int'}",
        "['null','long']",
        "['int',{'type':'map','values':['null','string']},'null']",
    };
    static const char *const values[][3] = {
        {"[1,2,3]", "[]", "[-7]"},
        {"{\"long\":5}", "null", "{\"long\":-5}"},
        {"{\"int\":1}", "{\"map\":{\"a\":null,\"b\":{\"string\":\"x\"}}}", "null"},
    };
    (void)state;
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        avk_schema *s = AVKT_PARSE(types[t]);
        const avk_type *root = avk_schema_root(s);
        avk_plan *plan = avkt_plan_new(root, 0, NULL, 0);
        avk_arena *arena;
        avk_writer w;
        avk_reader r;
        avk_columns *c, *d;
        avk_error err;
        size_t len;
        const uint8_t *data;
        AVKT_OK(avk_arena_new(NULL, &arena, &err));
        AVKT_OK(avk_writer_init_memory(&w, NULL, &err));
        AVKT_OK(avk_columns_new(root, NULL, &c, &err));
        AVKT_OK(avk_columns_new(root, NULL, &d, &err));
        for (size_t k = 0; k < 3; k++) {
            avk_value v;
            AVKT_OK(avk_value_read_json(root, values[t][k], strlen(values[t][k]), arena, &v,
                                        &err));
            AVKT_OK(avk_plan_encode(plan, &v, &w, &err));
            AVKT_OK(avk_columns_append_value(d, &v, &err));
        }
        data = avk_writer_data(&w, &len);
        avk_reader_init_memory(&r, data, len);
        AVKT_OK(avk_columns_decode(c, &r, 3, NULL, &err));
        assert_same_columns(c, d, 3);
        avk_columns_free(c);
        avk_columns_free(d);
        avk_writer_destroy(&w);
        avk_arena_free(arena);
        avk_plan_free(plan);
        avk_schema_free(s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(avkt_test_kernel_choice),
        cmocka_unit_test(test_append_value_matches_decode),
        cmocka_unit_test(test_append_value_projected),
        cmocka_unit_test(test_append_value_refuses_other_shapes),
        cmocka_unit_test(test_append_value_non_record_roots),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
