/* 16 threads sharing one schema and its plans: encoding, decoding, resolving, skipping, Avro JSON and the schema's read-only calls give what one thread gives (run under ThreadSanitizer by make tsan). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "avkt.h"

#define THREADS 16
#define VALUES 24 /* values per thread */
#define ROUNDS 3  /* times each thread goes through its values */

/* A realistic record: every primitive, logical types, an enum with a
 * default, fixed, arrays of records and of longs, maps of strings and of
 * a union, a union with a nested record, and recursion through a union. */
static const char WRITER_SCHEMA[] =
    "{'type':'record','name':'Order','namespace':'com.example.shop','doc':'An order',"
    "'fields':["
    "{'name':'id','type':'long'},"
    "{'name':'qty','type':'int'},"
    "{'name':'price','type':'float'},"
    "{'name':'total','type':'double'},"
    "{'name':'customer','type':'string'},"
    "{'name':'paid','type':'boolean'},"
    "{'name':'blob','type':'bytes'},"
    "{'name':'status','type':{'type':'enum','name':'Status',"
    "'symbols':['NEW','PAID','SHIPPED','CANCELLED'],'default':'NEW'}},"
    "{'name':'token','type':{'type':'fixed','name':'Token','size':16}},"
    "{'name':'uuid','type':{'type':'string','logicalType':'uuid'}},"
    "{'name':'created','type':{'type':'long','logicalType':'timestamp-micros'}},"
    "{'name':'day','type':{'type':'int','logicalType':'date'}},"
    "{'name':'amount','type':{'type':'bytes','logicalType':'decimal','precision':12,'scale':2}},"
    "{'name':'lines','type':{'type':'array','items':{'type':'record','name':'Line','fields':["
    "{'name':'sku','type':'string'},{'name':'count','type':'int'},{'name':'unit','type':'double'},"
    "{'name':'note','type':['null','string'],'default':null}]}}},"
    "{'name':'scores','type':{'type':'array','items':'long'}},"
    "{'name':'tags','type':{'type':'map','values':'string'}},"
    "{'name':'attrs','type':{'type':'map','values':['null','long','double','string']}},"
    "{'name':'contact','type':['null','string',{'type':'record','name':'Address','fields':["
    "{'name':'street','type':'string'},{'name':'zip','type':'int'}]}]},"
    "{'name':'parent','type':['null','Order'],'default':null}"
    "]}";

/* The reader's view: promotions (int to long, float to double, long to
 * double in arrays and union branches, string to bytes), a field renamed
 * through an alias, a writer field dropped (blob), fields added with
 * defaults, an enum without CANCELLED (read as its default), reordered
 * fields (total last). */
static const char READER_SCHEMA[] =
    "{'type':'record','name':'Order','namespace':'com.example.shop','fields':["
    "{'name':'id','type':'long'},"
    "{'name':'qty','type':'long'},"
    "{'name':'price','type':'double'},"
    "{'name':'client','aliases':['customer'],'type':'bytes'},"
    "{'name':'paid','type':'boolean'},"
    "{'name':'status','type':{'type':'enum','name':'Status',"
    "'symbols':['NEW','PAID','SHIPPED'],'default':'NEW'}},"
    "{'name':'token','type':{'type':'fixed','name':'Token','size':16}},"
    "{'name':'uuid','type':{'type':'string','logicalType':'uuid'}},"
    "{'name':'created','type':{'type':'long','logicalType':'timestamp-micros'}},"
    "{'name':'day','type':{'type':'int','logicalType':'date'}},"
    "{'name':'amount','type':{'type':'bytes','logicalType':'decimal','precision':12,'scale':2}},"
    "{'name':'lines','type':{'type':'array','items':{'type':'record','name':'Line','fields':["
    "{'name':'sku','type':'string'},{'name':'count','type':'long'},{'name':'unit','type':'double'},"
    "{'name':'note','type':['null','string'],'default':null},"
    "{'name':'discount','type':'double','default':0.5}]}}},"
    "{'name':'scores','type':{'type':'array','items':'double'}},"
    "{'name':'tags','type':{'type':'map','values':'string'}},"
    "{'name':'attrs','type':{'type':'map','values':['null','double','string']}},"
    "{'name':'contact','type':['null','string',{'type':'record','name':'Address','fields':["
    "{'name':'street','type':'string'},{'name':'zip','type':'long'},"
    "{'name':'country','type':'string','default':'NL'}]}]},"
    "{'name':'parent','type':['null','Order'],'default':null},"
    "{'name':'region','type':'string','default':'EU'},"
    "{'name':'version','type':['int','null'],'default':3},"
    "{'name':'total','type':'double'}"
    "]}";

static const char *const NAMES[] = {"com.example.shop.Order", "com.example.shop.Status",
                                    "com.example.shop.Token", "com.example.shop.Line",
                                    "com.example.shop.Address"};
#define N_NAMES (sizeof NAMES / sizeof NAMES[0])
static const char *const STATUS[] = {"NEW", "PAID", "SHIPPED", "CANCELLED"};

/* ---- failures on threads (cmocka asserts only on the main thread) ---------------------- */

typedef struct failure {
    int count;
    char first[512];
} failure;

static void fail_at(failure *f, int line, const char *what, const avk_error *err)
{
    if (f->count++ == 0)
        snprintf(f->first, sizeof f->first, "line %d: %s%s%s", line, what, err ? ": " : "",
                 err ? err->message : "");
}

#define CHECK(f, cond, what, err)                                                         \
    do {                                                                                  \
        if (!(cond))                                                                      \
            fail_at((f), __LINE__, (what), (err));                                        \
    } while (0)

#define CHECK_OK(f, expr, err) CHECK((f), (expr) == AVK_OK, #expr, (err))

/* ---- values from a seed ----------------------------------------------------------------- */

static const char *const PIECES[] = {"a", "b", "z", "0", " ", "\xc3\xa9", "\xc3\x9f",
                                     "\xe6\x97\xa5", "\xe6\x9c\xac", "\xf0\x9f\x99\x82",
                                     "\"", "\\", "\n", "/", "\t", "x"};

static void random_text(avkt_rng *r, char *out, size_t cap)
{
    size_t n = (size_t)avkt_below(r, 12), len = 0, i;
    out[0] = 0;
    for (i = 0; i < n; i++) {
        const char *p = PIECES[avkt_below(r, sizeof PIECES / sizeof PIECES[0])];
        size_t k = strlen(p);
        if (len + k + 1 > cap)
            break;
        memcpy(out + len, p, k + 1);
        len += k;
    }
}

static double random_double(avkt_rng *r)
{
    return (double)(int64_t)avkt_next(r) / (double)(1 + avkt_below(r, 1000000));
}

/* Fills the tree v (set up by avk_value_init_tree or avk_value_choose as an
 * Order) from r; depth bounds the chain of parents. */
static avk_status fill_order(avk_value *v, avkt_rng *r, int depth, avk_arena *a, avk_error *err)
{
    char text[64];
    uint8_t bytes[32];
    size_t n, i;
    avk_status st;
    avk_value *item, *branch;
    static const char *const ATTR_BRANCH[] = {"null", "long", "double", "string"};

#define TRY(expr)                                                                         \
    do {                                                                                  \
        if ((st = (expr)) != AVK_OK)                                                      \
            return st;                                                                    \
    } while (0)
    TRY(avk_value_set_long(v, "id", (int64_t)avkt_next(r), err));
    TRY(avk_value_set_int(v, "qty", avkt_mixed_int(r), err));
    TRY(avk_value_set_float(v, "price", (float)random_double(r), err));
    TRY(avk_value_set_double(v, "total", random_double(r), err));
    random_text(r, text, sizeof text);
    TRY(avk_value_set_string(v, "customer", text, a, err));
    TRY(avk_value_set_boolean(v, "paid", (int)avkt_below(r, 2), err));
    n = (size_t)avkt_below(r, sizeof bytes);
    for (i = 0; i < n; i++)
        bytes[i] = (uint8_t)avkt_next(r);
    TRY(avk_value_set_bytes(v, "blob", bytes, n, a, err));
    TRY(avk_value_set_enum(v, "status", STATUS[avkt_below(r, 4)], err));
    for (i = 0; i < 16; i++)
        bytes[i] = (uint8_t)avkt_next(r);
    TRY(avk_value_set_fixed(v, "token", bytes, 16, a, err));
    {
        char u[AVK_UUID_STRING_SIZE];
        TRY(avk_uuid_format(bytes, u));
        TRY(avk_value_set_string(v, "uuid", u, a, err));
    }
    TRY(avk_value_set_long(v, "created", avkt_mixed_long(r), err));
    TRY(avk_value_set_int(v, "day", (int32_t)avkt_below(r, 40000) - 10000, err));
    {
        int64_t cents = (int64_t)avkt_below(r, 200000000000ULL) - 100000000000LL;
        uint64_t mag = cents < 0 ? (uint64_t)-cents : (uint64_t)cents;
        uint8_t dec[16];
        size_t dlen = 0;
        snprintf(text, sizeof text, "%s%llu.%02llu", cents < 0 ? "-" : "",
                 (unsigned long long)(mag / 100), (unsigned long long)(mag % 100));
        TRY(avk_decimal_from_string(text, strlen(text), 2, dec, sizeof dec, &dlen));
        TRY(avk_value_set_bytes(v, "amount", dec, dlen, a, err));
    }
    n = (size_t)avkt_below(r, 5);
    for (i = 0; i < n; i++) {
        TRY(avk_value_append(v, "lines", a, &item, err));
        random_text(r, text, sizeof text);
        TRY(avk_value_set_string(item, "sku", text, a, err));
        TRY(avk_value_set_int(item, "count", avkt_mixed_int(r), err));
        TRY(avk_value_set_double(item, "unit", random_double(r), err));
        if (avkt_below(r, 2)) {
            TRY(avk_value_choose(item, "note", "string", a, &branch, err));
            random_text(r, text, sizeof text);
            TRY(avk_value_set_string(branch, NULL, text, a, err));
        }
    }
    {
        int64_t scores[8];
        n = (size_t)avkt_below(r, 9);
        for (i = 0; i < n; i++)
            scores[i] = avkt_mixed_long(r);
        TRY(avk_value_append_items(v, "scores", scores, n, a, err));
    }
    n = (size_t)avkt_below(r, 4);
    for (i = 0; i < n; i++) {
        snprintf(text, sizeof text, "tag%zu", i);
        TRY(avk_value_put(v, "tags", text, a, &item, err));
        random_text(r, text, sizeof text);
        TRY(avk_value_set_string(item, NULL, text, a, err));
    }
    n = (size_t)avkt_below(r, 5);
    for (i = 0; i < n; i++) {
        unsigned b = (unsigned)avkt_below(r, 4);
        snprintf(text, sizeof text, "attr-%zu", i);
        TRY(avk_value_put(v, "attrs", text, a, &item, err));
        TRY(avk_value_choose(item, NULL, ATTR_BRANCH[b], a, &branch, err));
        if (b == 1)
            TRY(avk_value_set_long(branch, NULL, avkt_mixed_long(r), err));
        else if (b == 2)
            TRY(avk_value_set_double(branch, NULL, random_double(r), err));
        else if (b == 3) {
            random_text(r, text, sizeof text);
            TRY(avk_value_set_string(branch, NULL, text, a, err));
        }
    }
    switch (avkt_below(r, 3)) {
    case 0:
        TRY(avk_value_choose(v, "contact", "null", a, NULL, err));
        break;
    case 1:
        TRY(avk_value_choose(v, "contact", "string", a, &branch, err));
        random_text(r, text, sizeof text);
        TRY(avk_value_set_string(branch, NULL, text, a, err));
        break;
    default:
        TRY(avk_value_choose(v, "contact", "com.example.shop.Address", a, &branch, err));
        random_text(r, text, sizeof text);
        TRY(avk_value_set_string(branch, "street", text, a, err));
        TRY(avk_value_set_int(branch, "zip", (int32_t)avkt_below(r, 100000), err));
        break;
    }
    if (depth > 0 && avkt_below(r, 2)) {
        TRY(avk_value_choose(v, "parent", "Order", a, &branch, err));
        TRY(fill_order(branch, r, depth - 1, a, err));
    }
#undef TRY
    return AVK_OK;
}

/* Value i of thread t: the same for the same (t, i) on any thread. */
static avk_status make_value(const avk_type *root, unsigned t, unsigned i, avk_arena *a,
                             avk_value *v, avk_error *err)
{
    avkt_rng r = {0x5eed0000ULL + (uint64_t)t * 1000 + i};
    avk_status st = avk_value_init_tree(v, root, a, err);
    return st != AVK_OK ? st : fill_order(v, &r, 2, a, err);
}

/* ---- what one thread expects, computed beforehand on the main thread ------------------ */

typedef struct expected {
    avk_arena *arena;                /* the values below */
    avk_value values[VALUES];        /* writer values */
    avk_value resolved[VALUES];      /* read through the resolving plan */
    uint8_t *enc;                    /* the values encoded back to back */
    size_t enc_len;
    uint8_t *enc_blocks;             /* the same with the block-sized plan */
    size_t enc_blocks_len;
    char *json[VALUES];              /* Avro JSON of each value */
} expected;

/* What the whole schema gives, for every thread. */
typedef struct schema_facts {
    char *canonical;
    size_t canonical_len;
    char *full_json;
    size_t full_json_len;
    uint8_t fp[3][32];
    size_t fp_len[3];
    avk_status compat;
} schema_facts;

typedef struct shared {
    const avk_schema *writer;
    const avk_schema *reader;
    const avk_plan *plan;        /* writer schema, default flags */
    const avk_plan *plan_blocks; /* writer schema, block sizes, copied and checked strings */
    const avk_plan *resolving;   /* writer to reader */
    const schema_facts *facts;
    pthread_barrier_t start;
} shared;

static uint8_t *copy_out(const avk_writer *w, size_t *len)
{
    const uint8_t *d = avk_writer_data(w, len);
    uint8_t *p = (uint8_t *)malloc(*len ? *len : 1);
    assert_non_null(p);
    memcpy(p, d, *len);
    return p;
}

static char *write_text(avk_status (*fn)(const void *, avk_writer *, avk_error *),
                        const void *arg, size_t *len, avk_status *st)
{
    avk_writer w;
    avk_error err;
    char *p = NULL;
    memset(&w, 0, sizeof w);
    *st = avk_writer_init_memory(&w, NULL, &err);
    if (*st == AVK_OK)
        *st = fn(arg, &w, &err);
    if (*st == AVK_OK) {
        const uint8_t *d = avk_writer_data(&w, len);
        p = (char *)malloc(*len + 1);
        if (p) {
            memcpy(p, d, *len);
            p[*len] = 0;
        } else {
            *st = AVK_ERR_NO_MEMORY;
        }
    }
    avk_writer_destroy(&w);
    return p;
}

static avk_status canonical_fn(const void *t, avk_writer *w, avk_error *err)
{
    return avk_type_write_canonical((const avk_type *)t, w, err);
}

static avk_status full_json_fn(const void *t, avk_writer *w, avk_error *err)
{
    return avk_type_write_json((const avk_type *)t, 0, w, err);
}

static avk_status value_json_fn(const void *v, avk_writer *w, avk_error *err)
{
    return avk_value_write_json((const avk_value *)v, 0, w, err);
}

static void facts_of(const avk_schema *writer, const avk_schema *reader, schema_facts *f)
{
    avk_status st;
    avk_error err;
    int a;
    const avk_type *root = avk_schema_root(writer);
    memset(f, 0, sizeof *f);
    f->canonical = write_text(canonical_fn, root, &f->canonical_len, &st);
    AVKT_OK(st);
    f->full_json = write_text(full_json_fn, root, &f->full_json_len, &st);
    AVKT_OK(st);
    for (a = 0; a < 3; a++)
        AVKT_OK(avk_type_fingerprint(root, (avk_fingerprint_algo)a, f->fp[a], &f->fp_len[a], &err));
    f->compat = avk_schema_check_compat(root, avk_schema_root(reader), NULL, NULL, &err);
}

/* Checks, independently of the library's resolution, a few fields of a
 * value read through the resolving plan against the writer's value. */
static void check_resolved(const avk_value *w, const avk_value *r)
{
    const avk_value *f;
    const char *ws, *rs;
    size_t i;
    assert_true(avk_value_field(r, "qty")->u.l == avk_value_field(w, "qty")->u.i);
    assert_true(avk_value_field(r, "price")->u.d == (double)avk_value_field(w, "price")->u.f);
    assert_true(avk_value_field(r, "total")->u.d == avk_value_field(w, "total")->u.d);
    f = avk_value_field(w, "customer");
    assert_int_equal(avk_value_field(r, "client")->u.bytes.len, f->u.bytes.len);
    if (f->u.bytes.len)
        assert_memory_equal(avk_value_field(r, "client")->u.bytes.data, f->u.bytes.data,
                            f->u.bytes.len);
    ws = avk_type_symbol(avk_value_field(w, "status")->type, avk_value_field(w, "status")->u.index);
    rs = avk_type_symbol(avk_value_field(r, "status")->type, avk_value_field(r, "status")->u.index);
    assert_string_equal(rs, strcmp(ws, "CANCELLED") == 0 ? "NEW" : ws);
    f = avk_value_field(r, "region");
    assert_int_equal(f->u.bytes.len, 2);
    assert_memory_equal(f->u.bytes.data, "EU", 2);
    f = avk_value_field(r, "version");
    assert_int_equal(f->u.branch.index, 0);
    assert_int_equal(f->u.branch.value->u.i, 3);
    f = avk_value_field(w, "scores");
    assert_int_equal(avk_value_field(r, "scores")->u.array.count, f->u.array.count);
    for (i = 0; i < f->u.array.count; i++)
        assert_true(((const double *)avk_value_field(r, "scores")->u.array.items)[i] ==
                    (double)((const int64_t *)f->u.array.items)[i]);
    f = avk_value_field(r, "lines");
    for (i = 0; i < f->u.array.count; i++) {
        const avk_value *line = &((const avk_value *)f->u.array.items)[i];
        assert_true(avk_value_field(line, "discount")->u.d == 0.5);
    }
}

static void expected_for(const shared *sh, unsigned t, expected *e)
{
    const avk_type *root = avk_schema_root(sh->writer);
    avk_writer w, wb;
    avk_reader rd;
    avk_error err;
    unsigned i;
    memset(e, 0, sizeof *e);
    AVKT_OK(avk_arena_new(NULL, &e->arena, &err));
    AVKT_OK(avk_writer_init_memory(&w, NULL, &err));
    AVKT_OK(avk_writer_init_memory(&wb, NULL, &err));
    for (i = 0; i < VALUES; i++) {
        avk_status st;
        size_t len;
        AVKT_OK(make_value(root, t, i, e->arena, &e->values[i], &err));
        AVKT_OK(avk_plan_encode(sh->plan, &e->values[i], &w, &err));
        AVKT_OK(avk_plan_encode(sh->plan_blocks, &e->values[i], &wb, &err));
        e->json[i] = write_text(value_json_fn, &e->values[i], &len, &st);
        AVKT_OK(st);
    }
    e->enc = copy_out(&w, &e->enc_len);
    e->enc_blocks = copy_out(&wb, &e->enc_blocks_len);
    avk_writer_destroy(&w);
    avk_writer_destroy(&wb);
    /* Resolved values, into the same arena (the plan's strings copy or view
     * e->enc, which lives as long). */
    avk_reader_init_memory(&rd, e->enc, e->enc_len);
    for (i = 0; i < VALUES; i++) {
        AVKT_OK(avk_plan_decode(sh->resolving, &rd, e->arena, &e->resolved[i], &err));
        check_resolved(&e->values[i], &e->resolved[i]);
    }
    assert_true(rd.pos == rd.end);
}

static void expected_free(expected *e)
{
    unsigned i;
    for (i = 0; i < VALUES; i++)
        free(e->json[i]);
    free(e->enc);
    free(e->enc_blocks);
    avk_arena_free(e->arena);
}

/* ---- one thread ------------------------------------------------------------------------- */

typedef struct job {
    shared *sh;
    const expected *e;
    unsigned t;
    failure f;
} job;

/* The schemas' read-only calls, against the facts. */
static void schema_calls(job *j)
{
    const shared *sh = j->sh;
    const schema_facts *facts = sh->facts;
    const avk_type *root = avk_schema_root(sh->writer);
    const avk_type *t;
    avk_status st;
    avk_error err;
    size_t len, k;
    char *text;
    int a;
    text = write_text(canonical_fn, root, &len, &st);
    CHECK(&j->f, st == AVK_OK && len == facts->canonical_len &&
                     memcmp(text, facts->canonical, len) == 0,
          "canonical form differs", NULL);
    free(text);
    text = write_text(full_json_fn, root, &len, &st);
    CHECK(&j->f, st == AVK_OK && len == facts->full_json_len &&
                     memcmp(text, facts->full_json, len) == 0,
          "schema JSON differs", NULL);
    free(text);
    for (a = 0; a < 3; a++) {
        uint8_t fp[32];
        size_t n = 0;
        st = avk_type_fingerprint(root, (avk_fingerprint_algo)a, fp, &n, &err);
        CHECK(&j->f, st == AVK_OK && n == facts->fp_len[a] && memcmp(fp, facts->fp[a], n) == 0,
              "fingerprint differs", &err);
    }
    for (k = 0; k < N_NAMES; k++) {
        t = avk_schema_find(sh->writer, NAMES[k]);
        CHECK(&j->f, t != NULL && strcmp(avk_type_fullname(t), NAMES[k]) == 0, "avk_schema_find",
              NULL);
        CHECK(&j->f, avk_schema_find(sh->reader, NAMES[k]) != NULL, "avk_schema_find (reader)",
              NULL);
    }
    CHECK(&j->f, avk_schema_find(sh->writer, "com.example.shop.Nothing") == NULL,
          "avk_schema_find found a missing name", NULL);
    CHECK(&j->f, avk_field_index(avk_type_field_by_name(root, "status")) == 7, "field by name",
          NULL);
    CHECK(&j->f, avk_type_field_by_name(root, "client") == NULL, "field by name (absent)", NULL);
    t = avk_schema_find(sh->writer, "com.example.shop.Status");
    CHECK(&j->f, avk_type_symbol_index(t, "SHIPPED") == 2 && avk_type_enum_default(t) == 0,
          "enum symbols", NULL);
    t = avk_field_type(avk_type_field_by_name(avk_schema_root(sh->reader), "client"));
    CHECK(&j->f, avk_type_kind(t) == AVK_BYTES, "reader field by name", NULL);
    CHECK(&j->f, strcmp(avk_field_default(avk_type_field_by_name(avk_schema_root(sh->reader),
                                                                 "region")), "\"EU\"") == 0,
          "field default", NULL);
    CHECK(&j->f, avk_plan_type(sh->plan) == root && avk_plan_is_resolving(sh->resolving) == 1 &&
                     avk_plan_is_resolving(sh->plan) == 0,
          "plan type", NULL);
    CHECK(&j->f, avk_type_equal(root, avk_plan_type(sh->plan_blocks)) == 1, "avk_type_equal",
          NULL);
    CHECK(&j->f, avk_schema_check_compat(root, avk_schema_root(sh->reader), NULL, NULL, &err) ==
                     facts->compat,
          "avk_schema_check_compat", &err);
}

/* Encodes, decodes, resolves, skips and writes and reads JSON of the
 * thread's values with the shared plans; plans of its own from the shared
 * schemas must give the same bytes and values. */
static void values_round(job *j, int own_plans)
{
    const shared *sh = j->sh;
    const expected *e = j->e;
    const avk_type *root = avk_schema_root(sh->writer);
    avk_plan *own = NULL, *own_resolving = NULL;
    avk_arena *build = NULL, *dec = NULL;
    avk_writer w, wb, wj;
    avk_reader rd, rdb, rdr;
    avk_error err;
    unsigned i;
    size_t len;
    const avk_plan *plan = sh->plan, *resolving = sh->resolving;

    memset(&w, 0, sizeof w);
    memset(&wb, 0, sizeof wb);
    memset(&wj, 0, sizeof wj);
    if (own_plans) {
        CHECK_OK(&j->f, avk_plan_new(root, NULL, &own, &err), &err);
        CHECK_OK(&j->f, avk_plan_new_resolving(root, avk_schema_root(sh->reader), NULL,
                                               &own_resolving, &err), &err);
        if (j->f.count)
            goto out;
        plan = own;
        resolving = own_resolving;
    }
    if (avk_arena_new(NULL, &build, &err) != AVK_OK || avk_arena_new(NULL, &dec, &err) != AVK_OK ||
        avk_writer_init_memory(&w, NULL, &err) != AVK_OK ||
        avk_writer_init_memory(&wb, NULL, &err) != AVK_OK ||
        avk_writer_init_memory(&wj, NULL, &err) != AVK_OK) {
        fail_at(&j->f, __LINE__, "set-up", &err);
        goto out;
    }
    /* Build and encode every value. */
    for (i = 0; i < VALUES; i++) {
        avk_value v;
        avk_arena_reset(build);
        CHECK_OK(&j->f, make_value(root, j->t, i, build, &v, &err), &err);
        CHECK(&j->f, avk_value_equal(&v, &e->values[i]), "built value differs", NULL);
        CHECK_OK(&j->f, avk_plan_encode(plan, &v, &w, &err), &err);
        CHECK_OK(&j->f, avk_plan_encode(sh->plan_blocks, &v, &wb, &err), &err);
        /* Avro JSON, both ways. */
        avk_writer_reset(&wj);
        CHECK_OK(&j->f, avk_value_write_json(&v, 0, &wj, &err), &err);
        {
            const uint8_t *d = avk_writer_data(&wj, &len);
            avk_value back;
            CHECK(&j->f, len == strlen(e->json[i]) && memcmp(d, e->json[i], len) == 0,
                  "Avro JSON differs", NULL);
            avk_arena_reset(dec);
            CHECK_OK(&j->f, avk_value_read_json(root, (const char *)d, len, dec, &back, &err),
                     &err);
            CHECK(&j->f, avk_value_equal(&back, &e->values[i]), "JSON read back differs", NULL);
        }
        if (j->f.count)
            goto out;
    }
    {
        const uint8_t *d = avk_writer_data(&w, &len);
        CHECK(&j->f, len == e->enc_len && memcmp(d, e->enc, len) == 0, "encoding differs", NULL);
        d = avk_writer_data(&wb, &len);
        CHECK(&j->f, len == e->enc_blocks_len && memcmp(d, e->enc_blocks, len) == 0,
              "block-sized encoding differs", NULL);
        if (j->f.count)
            goto out;
    }
    /* Decode the thread's own bytes with both plans and resolve them. */
    {
        /* The data first, then its length: the order arguments are read in
         * is unspecified. */
        const uint8_t *d = avk_writer_data(&w, &len);
        avk_reader_init_memory(&rd, d, len);
        avk_reader_init_memory(&rdr, d, len);
        d = avk_writer_data(&wb, &len);
        avk_reader_init_memory(&rdb, d, len);
    }
    for (i = 0; i < VALUES; i++) {
        avk_value v;
        avk_arena_reset(dec);
        CHECK_OK(&j->f, avk_plan_decode(plan, &rd, dec, &v, &err), &err);
        CHECK(&j->f, avk_value_equal(&v, &e->values[i]), "decoded value differs", &err);
        CHECK_OK(&j->f, avk_plan_decode(sh->plan_blocks, &rdb, dec, &v, &err), &err);
        CHECK(&j->f, avk_value_equal(&v, &e->values[i]), "decoded value differs (blocks)", &err);
        CHECK_OK(&j->f, avk_plan_decode(resolving, &rdr, dec, &v, &err), &err);
        CHECK(&j->f, avk_value_equal(&v, &e->resolved[i]), "resolved value differs", &err);
        if (j->f.count)
            goto out;
    }
    CHECK(&j->f, rd.pos == rd.end && rdb.pos == rdb.end && rdr.pos == rdr.end,
          "bytes left after decoding", NULL);
    /* Skip them all, with each plan. */
    avk_reader_init_memory(&rd, e->enc, e->enc_len);
    avk_reader_init_memory(&rdr, e->enc, e->enc_len);
    avk_reader_init_memory(&rdb, e->enc_blocks, e->enc_blocks_len);
    for (i = 0; i < VALUES; i++) {
        CHECK_OK(&j->f, avk_plan_skip(plan, &rd, &err), &err);
        CHECK_OK(&j->f, avk_plan_skip(resolving, &rdr, &err), &err);
        CHECK_OK(&j->f, avk_plan_skip(sh->plan_blocks, &rdb, &err), &err);
    }
    CHECK(&j->f, rd.pos == rd.end && rdb.pos == rdb.end && rdr.pos == rdr.end,
          "bytes left after skipping", NULL);
out:
    avk_writer_destroy(&w);
    avk_writer_destroy(&wb);
    avk_writer_destroy(&wj);
    avk_arena_free(build);
    avk_arena_free(dec);
    avk_plan_free(own);
    avk_plan_free(own_resolving);
}

static void *thread_main(void *arg)
{
    job *j = (job *)arg;
    int round;
    pthread_barrier_wait(&j->sh->start);
    for (round = 0; round < ROUNDS && !j->f.count; round++) {
        /* Alternate the order so threads overlap on different calls. */
        if ((j->t + (unsigned)round) % 2) {
            schema_calls(j);
            values_round(j, round == 1);
        } else {
            values_round(j, round == 1);
            schema_calls(j);
        }
    }
    return NULL;
}

static void run_threads(shared *sh, expected *expects)
{
    pthread_t th[THREADS];
    job jobs[THREADS];
    unsigned t;
    assert_int_equal(pthread_barrier_init(&sh->start, NULL, THREADS), 0);
    for (t = 0; t < THREADS; t++) {
        memset(&jobs[t], 0, sizeof jobs[t]);
        jobs[t].sh = sh;
        jobs[t].e = &expects[t];
        jobs[t].t = t;
        assert_int_equal(pthread_create(&th[t], NULL, thread_main, &jobs[t]), 0);
    }
    for (t = 0; t < THREADS; t++)
        assert_int_equal(pthread_join(th[t], NULL), 0);
    pthread_barrier_destroy(&sh->start);
    for (t = 0; t < THREADS; t++)
        if (jobs[t].f.count)
            fail_msg("thread %u: %d failures, the first: %s", t, jobs[t].f.count, jobs[t].f.first);
}

/* ---- tests ------------------------------------------------------------------------------ */

/* First in the suite, before anything has set up the library's process-wide
 * state (the CPU probe, the kernel table, the hash seed, kernels' tables):
 * 16 threads released together each parse the schema, compile plans and
 * encode, decode and write JSON, so the first uses race each other. All
 * must give what the main thread gives afterwards. */
typedef struct cold_job {
    pthread_barrier_t *start;
    char *canonical;
    size_t canonical_len;
    uint8_t *enc;
    size_t enc_len;
    char *json;
    size_t json_len;
    const char *kernel;
    failure f;
} cold_job;

static void cold_work(cold_job *j, const char *wtext, const char *rtext)
{
    avk_schema *ws = NULL, *rs = NULL;
    avk_plan *plan = NULL, *resolving = NULL;
    avk_arena *a = NULL;
    avk_writer w;
    avk_reader rd;
    avk_error err;
    avk_value v, back;
    avk_status st;
    uint8_t fp[32];
    size_t n;
    memset(&w, 0, sizeof w);
    if (avk_schema_parse(wtext, strlen(wtext), NULL, &ws, &err) != AVK_OK ||
        avk_schema_parse(rtext, strlen(rtext), NULL, &rs, &err) != AVK_OK ||
        avk_plan_new(avk_schema_root(ws), NULL, &plan, &err) != AVK_OK ||
        avk_plan_new_resolving(avk_schema_root(ws), avk_schema_root(rs), NULL, &resolving,
                               &err) != AVK_OK ||
        avk_arena_new(NULL, &a, &err) != AVK_OK || avk_writer_init_memory(&w, NULL, &err) != AVK_OK) {
        fail_at(&j->f, __LINE__, "set-up", &err);
        goto out;
    }
    j->canonical = write_text(canonical_fn, avk_schema_root(ws), &j->canonical_len, &st);
    CHECK_OK(&j->f, st, NULL);
    CHECK_OK(&j->f, avk_type_fingerprint(avk_schema_root(ws), AVK_FINGERPRINT_SHA256, fp, &n, &err),
             &err);
    CHECK_OK(&j->f, make_value(avk_schema_root(ws), 99, 0, a, &v, &err), &err);
    CHECK_OK(&j->f, avk_plan_encode(plan, &v, &w, &err), &err);
    j->json = write_text(value_json_fn, &v, &j->json_len, &st);
    CHECK_OK(&j->f, st, NULL);
    if (j->f.count)
        goto out;
    j->enc = copy_out(&w, &j->enc_len);
    avk_reader_init_memory(&rd, j->enc, j->enc_len);
    CHECK_OK(&j->f, avk_plan_decode(plan, &rd, a, &back, &err), &err);
    CHECK(&j->f, avk_value_equal(&v, &back), "decoded value differs", NULL);
    avk_reader_init_memory(&rd, j->enc, j->enc_len);
    CHECK_OK(&j->f, avk_plan_decode(resolving, &rd, a, &back, &err), &err);
    j->kernel = avk_kernel_name();
out:
    avk_writer_destroy(&w);
    avk_arena_free(a);
    avk_plan_free(plan);
    avk_plan_free(resolving);
    avk_schema_free(ws);
    avk_schema_free(rs);
}

typedef struct cold_arg {
    cold_job *job;
    const char *wtext, *rtext;
} cold_arg;

static void *cold_main(void *p)
{
    cold_arg *c = (cold_arg *)p;
    pthread_barrier_wait(c->job->start);
    cold_work(c->job, c->wtext, c->rtext);
    return NULL;
}

static void test_cold_start(void **state)
{
    char *wtext = strdup(avkt_q(WRITER_SCHEMA));
    char *rtext = strdup(avkt_q(READER_SCHEMA));
    pthread_barrier_t start;
    pthread_t th[THREADS];
    cold_job jobs[THREADS + 1];
    cold_arg args[THREADS];
    unsigned t;
    (void)state;
    assert_non_null(wtext);
    assert_non_null(rtext);
    memset(jobs, 0, sizeof jobs);
    assert_int_equal(pthread_barrier_init(&start, NULL, THREADS), 0);
    for (t = 0; t < THREADS; t++) {
        jobs[t].start = &start;
        args[t].job = &jobs[t];
        args[t].wtext = wtext;
        args[t].rtext = rtext;
        assert_int_equal(pthread_create(&th[t], NULL, cold_main, &args[t]), 0);
    }
    for (t = 0; t < THREADS; t++)
        assert_int_equal(pthread_join(th[t], NULL), 0);
    pthread_barrier_destroy(&start);
    /* Then the main thread alone. */
    cold_work(&jobs[THREADS], wtext, rtext);
    for (t = 0; t <= THREADS; t++) {
        cold_job *j = &jobs[t];
        if (j->f.count)
            fail_msg("thread %u: %d failures, the first: %s", t, j->f.count, j->f.first);
        assert_string_equal(j->kernel, jobs[THREADS].kernel);
        assert_int_equal(j->canonical_len, jobs[THREADS].canonical_len);
        assert_memory_equal(j->canonical, jobs[THREADS].canonical, j->canonical_len);
        avkt_assert_bytes(j->enc, j->enc_len, jobs[THREADS].enc, jobs[THREADS].enc_len);
        assert_string_equal(j->json, jobs[THREADS].json);
    }
    for (t = 0; t <= THREADS; t++) {
        free(jobs[t].canonical);
        free(jobs[t].enc);
        free(jobs[t].json);
    }
    free(wtext);
    free(rtext);
}

/* One schema, one plan (and one with block sizes), one resolving plan,
 * shared by 16 threads, against results computed on one thread. */
static void test_shared_plan(void **state)
{
    avk_schema *writer = AVKT_PARSE(WRITER_SCHEMA);
    avk_schema *reader = AVKT_PARSE(READER_SCHEMA);
    avk_plan *plan, *plan_blocks, *resolving;
    static expected expects[THREADS];
    schema_facts facts;
    shared sh;
    avk_error err;
    unsigned t;
    (void)state;
    plan = avkt_plan_new(avk_schema_root(writer), 0, NULL, 0);
    plan_blocks = avkt_plan_new(avk_schema_root(writer),
                                AVK_PLAN_BLOCK_SIZES | AVK_PLAN_COPY_STRINGS | AVK_PLAN_CHECK_UTF8,
                                NULL, 2);
    AVKT_OK(avk_plan_new_resolving(avk_schema_root(writer), avk_schema_root(reader), NULL,
                                   &resolving, &err));
    facts_of(writer, reader, &facts);
    AVKT_OK(facts.compat);
    memset(&sh, 0, sizeof sh);
    sh.writer = writer;
    sh.reader = reader;
    sh.plan = plan;
    sh.plan_blocks = plan_blocks;
    sh.resolving = resolving;
    sh.facts = &facts;
    for (t = 0; t < THREADS; t++)
        expected_for(&sh, t, &expects[t]);
    /* The block-sized encoding differs (else it would test nothing new). */
    assert_true(expects[0].enc_blocks_len > expects[0].enc_len);
    run_threads(&sh, expects);
    for (t = 0; t < THREADS; t++)
        expected_free(&expects[t]);
    free(facts.canonical);
    free(facts.full_json);
    avk_plan_free(plan);
    avk_plan_free(plan_blocks);
    avk_plan_free(resolving);
    avk_schema_free(writer);
    avk_schema_free(reader);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        /* Before the kernel choice, which would set up the kernel table. */
        cmocka_unit_test(test_cold_start),
        cmocka_unit_test(avkt_test_kernel_choice),
        cmocka_unit_test(test_shared_plan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
