/* Columns against hostile shapes: placeholder floods under nulls, schemas that expand to too many columns, values that do not fit. */
#include "avkt.h"

/* Records of ["null", fixed(1000)]: each null is 1 input byte but 1000
 * placeholder bytes, counted against max_memory. */
static void test_null_placeholders_are_bounded(void **state)
{
    avk_schema *s = AVKT_PARSE("{'type':'record','name':'R','fields':[{'name':'f','type':"
                               "['null',{'type':'fixed','name':'F','size':1000}]}]}");
    avk_columns_options o;
    avk_columns *c;
    avk_reader r;
    avk_error err;
    uint64_t done = 99;
    uint8_t nulls[64];
    struct ArrowArray a;
    (void)state;
    memset(nulls, 0, sizeof nulls); /* branch 0: null */
    avk_columns_options_init(&o);
    o.limits.max_memory = 10500; /* 10 nulls */
    AVKT_OK(avk_columns_new(avk_schema_root(s), &o, &c, &err));
    avk_reader_init_memory(&r, nulls, sizeof nulls);
    AVKT_ASSERT_STATUS(avk_columns_decode(c, &r, 64, &done, &err), AVK_ERR_LIMIT);
    AVKT_ASSERT_I64_EQ(done, 10);
    AVKT_ASSERT_I64_EQ(avk_columns_length(c), 10);
    AVKT_ASSERT_I64_EQ(err.offset, 10);
    assert_non_null(strstr(err.message, "max_memory"));
    /* After the reader stands at the bad record, the rest goes on once the
     * budget comes back with an export. */
    AVKT_ASSERT_I64_EQ(r.pos - nulls, 10);
    AVKT_OK(avk_columns_export(c, &a, &err));
    AVKT_ASSERT_I64_EQ(a.length, 10);
    AVKT_ASSERT_I64_EQ(a.children[0]->null_count, 10);
    a.release(&a);
    AVKT_OK(avk_columns_decode(c, &r, 10, &done, &err));
    AVKT_ASSERT_I64_EQ(done, 10);
    avk_columns_clear(c);
    AVKT_OK(avk_columns_decode(c, &r, 10, &done, &err));
    avk_columns_free(c);
    avk_schema_free(s);
}

/* R0 {x: int}; Rk {a: Rk-1, b: Rk-1}: 2 KB of schema, 2^k columns. */
static void test_schema_expanding_past_the_column_limit(void **state)
{
    char json[8192];
    size_t len = 0, k;
    avk_schema *s;
    avk_columns *c;
    avk_error err;
    (void)state;
    len += (size_t)snprintf(json + len, sizeof json - len,
                            "{\"type\":\"record\",\"name\":\"R20\",\"fields\":[");
    for (k = 19; k > 0; k--)
        len += (size_t)snprintf(json + len, sizeof json - len,
                                "{\"name\":\"a\",\"type\":{\"type\":\"record\",\"name\":\"R%zu\","
                                "\"fields\":[",
                                k);
    len += (size_t)snprintf(json + len, sizeof json - len,
                            "{\"name\":\"a\",\"type\":{\"type\":\"record\",\"name\":\"R0\","
                            "\"fields\":[{\"name\":\"x\",\"type\":\"int\"}]}},"
                            "{\"name\":\"b\",\"type\":\"R0\"}]}},");
    for (k = 1; k < 20; k++)
        len += (size_t)snprintf(json + len, sizeof json - len, "{\"name\":\"b\",\"type\":\"R%zu\"}]%s",
                                k, k + 1 < 20 ? "}}," : "}");
    s = AVKT_PARSE_RAW(json);
    AVKT_ASSERT_STATUS(avk_columns_new(avk_schema_root(s), NULL, &c, &err), AVK_ERR_LIMIT);
    assert_null(c);
    assert_non_null(strstr(err.message, "columns"));
    /* Projected down to one path, the same schema is fine. */
    {
        static const char *const one[] = {"a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.x"};
        avk_columns_options o;
        avk_columns_options_init(&o);
        o.fields = one;
        o.field_count = 1;
        AVKT_OK(avk_columns_new(avk_schema_root(s), &o, &c, &err));
        avk_columns_free(c);
    }
    avk_schema_free(s);
}

/* avk_columns_append_value refuses what the decoder would: an enum index
 * out of range, a decimal fixed of the wrong size, invalid UTF-8. */
static void test_append_value_checks(void **state)
{
    avk_schema *s = AVKT_PARSE(
        "{'type':'record','name':'R','fields':["
        "{'name':'e','type':{'type':'enum','name':'E','symbols':['A','B']}},"
        "{'name':'d','type':{'type':'fixed','name':'D','size':4,'logicalType':'decimal',"
        "'precision':8,'scale':2}},"
        "{'name':'s','type':'string'}]}");
    const avk_type *root = avk_schema_root(s);
    avk_columns_options o;
    avk_columns *c;
    avk_error err;
    avk_value fields[3], v;
    static const uint8_t four[4] = {0, 0, 1, 2}, five[5] = {0, 0, 0, 1, 2};
    (void)state;
    avk_columns_options_init(&o);
    o.flags = AVK_COLUMNS_CHECK_UTF8;
    AVKT_OK(avk_columns_new(root, &o, &c, &err));
    memset(fields, 0, sizeof fields);
    memset(&v, 0, sizeof v);
    v.type = root;
    v.u.fields = fields;
    fields[0].type = avk_field_type(avk_type_field(root, 0));
    fields[1].type = avk_field_type(avk_type_field(root, 1));
    fields[2].type = avk_field_type(avk_type_field(root, 2));
    fields[0].u.index = 1;
    fields[1].u.bytes.data = four;
    fields[1].u.bytes.len = 4;
    fields[2].u.bytes.data = (const uint8_t *)"ok";
    fields[2].u.bytes.len = 2;
    AVKT_OK(avk_columns_append_value(c, &v, &err));
    fields[0].u.index = 2;
    AVKT_ASSERT_STATUS(avk_columns_append_value(c, &v, &err), AVK_ERR_INVALID_ARGUMENT);
    fields[0].u.index = 0;
    fields[1].u.bytes.data = five;
    fields[1].u.bytes.len = 5;
    AVKT_ASSERT_STATUS(avk_columns_append_value(c, &v, &err), AVK_ERR_INVALID_ARGUMENT);
    fields[1].u.bytes.data = four;
    fields[1].u.bytes.len = 4;
    fields[2].u.bytes.data = (const uint8_t *)"\xff";
    fields[2].u.bytes.len = 1;
    AVKT_ASSERT_STATUS(avk_columns_append_value(c, &v, &err), AVK_ERR_MALFORMED);
    /* nothing of the refused values stayed */
    AVKT_ASSERT_I64_EQ(avk_columns_length(c), 1);
    avk_columns_free(c);
    avk_schema_free(s);
}

/* opts.reader: the writer's bytes resolved into the reader's columns
 * (promotion, a default, a skipped field); a bad record stops the call
 * with the records before it kept, as the resolving plan reports it. */
static void test_reader_schema(void **state)
{
    avk_schema *w = AVKT_PARSE("{'type':'record','name':'P','fields':[{'name':'a','type':'int'},"
                               "{'name':'gone','type':'string'}]}");
    avk_schema *rd = AVKT_PARSE("{'type':'record','name':'P','fields':[{'name':'a','type':'long'},"
                                "{'name':'new','type':'string','default':'x'}]}");
    /* a=1 gone="g"; a=-2 gone=""; a=3 gone (length 5, 1 byte left) */
    static const uint8_t data[] = {0x02, 0x02, 'g', 0x03, 0x00, 0x06, 0x0a, 'z'};
    avk_columns_options o;
    avk_columns *c;
    avk_reader r;
    avk_error err;
    uint64_t done = 0;
    struct ArrowArray a;
    struct ArrowSchema s;
    (void)state;
    avk_columns_options_init(&o);
    o.reader = avk_schema_root(rd);
    AVKT_OK(avk_columns_new(avk_schema_root(w), &o, &c, &err));
    avk_reader_init_memory(&r, data, sizeof data);
    AVKT_ASSERT_STATUS(avk_columns_decode(c, &r, 3, &done, &err), AVK_ERR_TRUNCATED);
    AVKT_ASSERT_I64_EQ(done, 2);
    AVKT_ASSERT_I64_EQ(r.pos - data, 5);
    AVKT_ASSERT_I64_EQ(err.offset, 6); /* the length varint of the cut string */
    AVKT_OK(avk_columns_export_schema(c, &s, &err));
    AVKT_OK(avk_columns_export(c, &a, &err));
    assert_string_equal(s.children[0]->format, "l");
    assert_string_equal(s.children[1]->name, "new");
    AVKT_ASSERT_I64_EQ(((const int64_t *)a.children[0]->buffers[1])[1], -2);
    assert_memory_equal((const char *)a.children[1]->buffers[2], "xx", 2);
    a.release(&a);
    s.release(&s);
    avk_columns_free(c);
    /* schemas that cannot be resolved */
    o.reader = avk_schema_root(w);
    AVKT_ASSERT_STATUS(avk_columns_new(avk_schema_root(rd), &o, &c, &err), AVK_ERR_RESOLUTION);
    avk_schema_free(w);
    avk_schema_free(rd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_null_placeholders_are_bounded),
        cmocka_unit_test(test_schema_expanding_past_the_column_limit),
        cmocka_unit_test(test_append_value_checks),
        cmocka_unit_test(test_reader_schema),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
