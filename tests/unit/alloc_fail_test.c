/* One allocation-failure harness over every public entry point that allocates: fail the Nth allocation for every N. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "avkt.h"
#include "avrokit/arrow.h"
#include "failalloc.h"

/* ------------------------------------------------------------------ */
/* What a scenario produced: compared between the unfailed run and the  */
/* first run with no failure injected. Test memory (libc), not counted. */
/* ------------------------------------------------------------------ */

static struct {
    char *p;
    size_t len, cap;
} g_out;

static void out_put(const void *data, size_t len)
{
    if (g_out.len + len + 1 > g_out.cap) {
        size_t cap = g_out.cap ? g_out.cap : 4096;
        while (cap < g_out.len + len + 1)
            cap *= 2;
        g_out.p = (char *)realloc(g_out.p, cap);
        assert_non_null(g_out.p);
        g_out.cap = cap;
    }
    memcpy(g_out.p + g_out.len, data, len);
    g_out.len += len;
    g_out.p[g_out.len] = 0;
}

static void out_str(const char *s)
{
    out_put(s, strlen(s));
}

static void out_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void out_fmt(const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    out_str(buf);
}

/* A value as Avro JSON, through a libc writer (so not counted). */
static void out_value(const avk_value *v)
{
    avk_writer w;
    const uint8_t *p;
    size_t len;
    AVKT_OK(avk_writer_init_memory(&w, NULL, NULL));
    AVKT_OK(avk_value_write_json(v, 0, &w, NULL));
    p = avk_writer_data(&w, &len);
    out_put(p, len);
    out_str("\n");
    avk_writer_destroy(&w);
}

static void out_hex(const uint8_t *p, size_t len)
{
    static const char hx[] = "0123456789abcdef";
    size_t i;
    for (i = 0; i < len; i++) {
        char c[2] = {hx[p[i] >> 4], hx[p[i] & 15]};
        out_put(c, 2);
    }
    out_str("\n");
}

/* ------------------------------------------------------------------ */
/* Inputs, made once with libc memory                                  */
/* ------------------------------------------------------------------ */

#define REC_SCHEMA                                                                         \
    "{'type':'record','name':'Rec','namespace':'ns','aliases':['OldRec'],'doc':'d',"       \
    "'fields':["                                                                           \
    "{'name':'id','type':'long'},"                                                         \
    "{'name':'name','type':'string'},"                                                     \
    "{'name':'tags','type':{'type':'array','items':'string'}},"                            \
    "{'name':'scores','type':{'type':'array','items':'double'}},"                          \
    "{'name':'ints','type':{'type':'array','items':'int'}},"                               \
    "{'name':'m','type':{'type':'map','values':'long'}},"                                  \
    "{'name':'u','type':['null','string',"                                                 \
    "{'type':'record','name':'Rec2','fields':[{'name':'a','type':'int'}]},"                \
    "{'type':'enum','name':'Color','symbols':['RED','GREEN']},"                            \
    "{'type':'fixed','name':'Fx','size':4}]},"                                             \
    "{'name':'dec','type':{'type':'bytes','logicalType':'decimal','precision':9,'scale':2}}," \
    "{'name':'when','type':{'type':'long','logicalType':'timestamp-millis'}},"             \
    "{'name':'f','type':'float'},"                                                         \
    "{'name':'ok','type':'boolean'},"                                                      \
    "{'name':'c','type':'ns.Color'},"                                                      \
    "{'name':'fx','type':'Fx','x-prop':{'k':[1,2]}}"                                       \
    "]}"

/* The reader: renamed with an alias, a field renamed with an alias and
 * promoted (long -> double), string -> bytes, int -> long items, float ->
 * double, a union branch record with a new field (default), an enum with a
 * new symbol and a default, new fields with defaults; tags, m, dec, when,
 * ok and fx skipped. */
#define READER_SCHEMA                                                                      \
    "{'type':'record','name':'NewRec','namespace':'ns','aliases':['Rec'],'fields':["       \
    "{'name':'ident','aliases':['id'],'type':'double'},"                                   \
    "{'name':'name','type':'bytes'},"                                                      \
    "{'name':'ints','type':{'type':'array','items':'long'}},"                              \
    "{'name':'scores','type':{'type':'array','items':'double'}},"                          \
    "{'name':'f','type':'double'},"                                                        \
    "{'name':'u','type':['null','string',"                                                 \
    "{'type':'record','name':'Rec2','fields':[{'name':'a','type':'long'},"                 \
    "{'name':'b','type':'string','default':'dflt'}]},"                                     \
    "{'type':'enum','name':'Color','symbols':['RED','GREEN','BLUE'],'default':'RED'},"     \
    "{'type':'fixed','name':'Fx','size':4}]},"                                             \
    "{'name':'extra','type':{'type':'map','values':'int'},'default':{'a':1}},"             \
    "{'name':'extra2','type':['null','long'],'default':null},"                             \
    "{'name':'c','type':'ns.Color'}"                                                       \
    "]}"

#define LOGICAL_SCHEMA                                                                     \
    "{'type':'record','name':'L','fields':["                                               \
    "{'name':'d','type':{'type':'int','logicalType':'date'}},"                             \
    "{'name':'tm','type':{'type':'int','logicalType':'time-millis'}},"                     \
    "{'name':'tu','type':{'type':'long','logicalType':'time-micros'}},"                    \
    "{'name':'ts','type':{'type':'long','logicalType':'timestamp-micros'}},"               \
    "{'name':'ln','type':{'type':'long','logicalType':'local-timestamp-nanos'}},"          \
    "{'name':'uu','type':{'type':'string','logicalType':'uuid'}},"                         \
    "{'name':'du','type':{'type':'fixed','name':'Dur','size':12,'logicalType':'duration'}}," \
    "{'name':'dx','type':{'type':'fixed','name':'D16','size':16,'logicalType':'decimal',"  \
    "'precision':20,'scale':4}},"                                                          \
    "{'name':'bad','type':{'type':'bytes','logicalType':'decimal','precision':0}}"         \
    "]}"

#define LIST_SCHEMA                                                                        \
    "{'type':'record','name':'List','fields':[{'name':'v','type':'int'},"                  \
    "{'name':'next','type':['null','List'],'default':null}]}"

static const char *const RECORDS_JSON[] = {
    "{\"id\":1,\"name\":\"alice\",\"tags\":[\"x\",\"y\"],\"scores\":[1.5,-2.25],"
    "\"ints\":[1,2,300000],\"m\":{\"k\":5,\"j\":-7},\"u\":null,\"dec\":\"\\u0001\\u0002\","
    "\"when\":1700000000000,\"f\":1.5,\"ok\":true,\"c\":\"RED\",\"fx\":\"abcd\"}",
    "{\"id\":-2,\"name\":\"\",\"tags\":[],\"scores\":[],\"ints\":[],\"m\":{},"
    "\"u\":{\"string\":\"hello\"},\"dec\":\"\",\"when\":0,\"f\":0.0,\"ok\":false,\"c\":\"GREEN\","
    "\"fx\":\"\\u0000\\u0001\\u0002\\u00ff\"}",
    "{\"id\":300,\"name\":\"bob\",\"tags\":[\"a long tag to make strings longer\"],"
    "\"scores\":[1e300],\"ints\":[-1],\"m\":{\"z\":1},\"u\":{\"ns.Rec2\":{\"a\":42}},"
    "\"dec\":\"\\u007f\",\"when\":-5,\"f\":-3.5,\"ok\":true,\"c\":\"RED\",\"fx\":\"wxyz\"}",
    "{\"id\":4,\"name\":\"carol\",\"tags\":[\"p\",\"q\",\"r\"],\"scores\":[0.5],\"ints\":[7,8],"
    "\"m\":{\"a\":1,\"b\":2,\"c\":3},\"u\":{\"ns.Color\":\"GREEN\"},\"dec\":\"\\u0000\","
    "\"when\":1,\"f\":2.0,\"ok\":false,\"c\":\"GREEN\",\"fx\":\"1234\"}",
    "{\"id\":5,\"name\":\"dave\",\"tags\":[\"s\"],\"scores\":[2.5,3.5,4.5],\"ints\":[9],"
    "\"m\":{\"q\":9},\"u\":{\"ns.Fx\":\"WXYZ\"},\"dec\":\"\\u0010\",\"when\":2,\"f\":8.0,"
    "\"ok\":true,\"c\":\"RED\",\"fx\":\"5678\"}",
};
#define N_RECORDS 5

static const avk_codec ALL_CODECS[] = {AVK_CODEC_NULL,      AVK_CODEC_DEFLATE,
                                       AVK_CODEC_SNAPPY,    AVK_CODEC_ZSTANDARD,
                                       AVK_CODEC_BZIP2,     AVK_CODEC_XZ};
#define N_CODECS (sizeof ALL_CODECS / sizeof ALL_CODECS[0])

static const uint8_t SYNC16[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

static struct {
    char *rec_json, *reader_json, *logical_json, *list_json, *union_json;
    avk_schema *rec; /* libc, to make inputs */
    uint8_t *bin;    /* the N_RECORDS records, binary, one after another */
    size_t bin_len;
    size_t rec_len[N_RECORDS];
    char *json_stream; /* the records as Avro JSON, one a line */
    size_t json_stream_len;
    uint8_t *file[N_CODECS]; /* a container file per codec, block_records 2 */
    size_t file_len[N_CODECS];
    char dir[64];
} g;

/* The codec being tested by the current container scenario. */
static avk_codec g_codec;
static char g_path[128];

static size_t g_codec_index(void)
{
    size_t i;
    for (i = 0; i < sizeof ALL_CODECS / sizeof ALL_CODECS[0]; i++)
        if (ALL_CODECS[i] == g_codec)
            return i;
    return 0;
}

static char *dup_q(const char *sq)
{
    const char *s = avkt_q(sq);
    char *d = strdup(s);
    assert_non_null(d);
    return d;
}

static avk_status mem_sink(void *ctx, const void *data, size_t len, avk_error *err)
{
    avk_buffer *b = (avk_buffer *)ctx;
    (void)err;
    if (b->len + len > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 1024;
        uint8_t *p;
        while (cap < b->len + len)
            cap *= 2;
        p = (uint8_t *)realloc(b->data, cap);
        assert_non_null(p);
        b->data = p;
        b->cap = cap;
    }
    memcpy(b->data + b->len, data, len);
    b->len += len;
    return AVK_OK;
}

static char *make_union_schema(void)
{
    /* A union of 3 primitives, 60 fixed types and 20 records: 83 branches. */
    size_t cap = 1 << 16, len = 0;
    char *s = (char *)malloc(cap);
    int i;
    assert_non_null(s);
    len += (size_t)snprintf(s + len, cap - len, "[\"null\",\"int\",\"string\"");
    for (i = 0; i < 60; i++)
        len += (size_t)snprintf(s + len, cap - len,
                                ",{\"type\":\"fixed\",\"name\":\"u.F%d\",\"size\":%d}", i, i + 1);
    for (i = 0; i < 20; i++)
        len += (size_t)snprintf(s + len, cap - len,
                                ",{\"type\":\"record\",\"name\":\"R%d\",\"namespace\":\"r\","
                                "\"fields\":[{\"name\":\"f\",\"type\":\"u.F%d\"}]}",
                                i, i);
    snprintf(s + len, cap - len, "]");
    return s;
}

static char *g_deep_json;
static void make_deep_json(void);

static int group_setup(void **state)
{
    avk_plan *plan;
    avk_arena *arena;
    avk_writer w, jw;
    avk_value v;
    size_t ci, i, len;
    const uint8_t *p;
    (void)state;
    g.rec_json = dup_q(REC_SCHEMA);
    g.reader_json = dup_q(READER_SCHEMA);
    g.logical_json = dup_q(LOGICAL_SCHEMA);
    g.list_json = dup_q(LIST_SCHEMA);
    g.union_json = make_union_schema();
    g.rec = AVKT_PARSE_RAW(g.rec_json);
    plan = avkt_plan_new(avk_schema_root(g.rec), 0, NULL, 0);
    AVKT_OK(avk_arena_new(NULL, &arena, NULL));
    AVKT_OK(avk_writer_init_memory(&w, NULL, NULL));
    AVKT_OK(avk_writer_init_memory(&jw, NULL, NULL));
    for (i = 0; i < N_RECORDS; i++) {
        size_t before = (size_t)(w.pos - w.buf);
        AVKT_OK(avk_value_read_json(avk_schema_root(g.rec), RECORDS_JSON[i],
                                    strlen(RECORDS_JSON[i]), arena, &v, NULL));
        AVKT_OK(avk_plan_encode(plan, &v, &w, NULL));
        g.rec_len[i] = (size_t)(w.pos - w.buf) - before;
        AVKT_OK(avk_value_write_json(&v, 0, &jw, NULL));
        AVKT_OK(avk_writer_write_raw(&jw, "\n", 1, NULL));
        avk_arena_reset(arena);
    }
    p = avk_writer_data(&w, &len);
    g.bin = (uint8_t *)malloc(len);
    memcpy(g.bin, p, len);
    g.bin_len = len;
    p = avk_writer_data(&jw, &len);
    g.json_stream = (char *)malloc(len + 1);
    memcpy(g.json_stream, p, len);
    g.json_stream[len] = 0;
    g.json_stream_len = len;
    avk_writer_destroy(&w);
    avk_writer_destroy(&jw);
    for (ci = 0; ci < N_CODECS; ci++) {
        avk_file_writer_options o;
        avk_file_writer *fw;
        avk_buffer b;
        size_t off = 0;
        avk_file_writer_options_init(&o);
        o.codec = ALL_CODECS[ci];
        o.block_records = 2;
        o.sync = SYNC16;
        memset(&b, 0, sizeof b);
        AVKT_OK(avk_file_writer_open_sink(mem_sink, &b, g.rec, &o, &fw, NULL));
        for (i = 0; i < N_RECORDS; i++) {
            AVKT_OK(avk_file_writer_append_encoded(fw, g.bin + off, g.rec_len[i], NULL));
            off += g.rec_len[i];
        }
        AVKT_OK(avk_file_writer_close(fw, NULL));
        g.file[ci] = b.data;
        g.file_len[ci] = b.len;
    }
    avk_arena_free(arena);
    avk_plan_free(plan);
    make_deep_json();
    snprintf(g.dir, sizeof g.dir, "/tmp/avk_allocfail_XXXXXX");
    assert_non_null(mkdtemp(g.dir));
    return 0;
}

static int group_teardown(void **state)
{
    size_t ci;
    (void)state;
    for (ci = 0; ci < N_CODECS; ci++)
        free(g.file[ci]);
    free(g.bin);
    free(g.json_stream);
    free(g_deep_json);
    free(g.rec_json);
    free(g.reader_json);
    free(g.logical_json);
    free(g.list_json);
    free(g.union_json);
    avk_schema_free(g.rec);
    free(g_out.p);
    rmdir(g.dir);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Helpers for scenarios: every object gets the allocator              */
/* ------------------------------------------------------------------ */

#define TRY(expr)                                                                          \
    do {                                                                                   \
        st = (expr);                                                                       \
        if (st != AVK_OK)                                                                  \
            goto done;                                                                     \
    } while (0)

static avk_status parse(const char *json, const avk_allocator *a, avk_schema **out,
                        avk_error *err)
{
    avk_schema_options o;
    avk_schema_options_init(&o);
    o.allocator = a;
    return avk_schema_parse(json, strlen(json), &o, out, err);
}

static avk_status plan_new(const avk_type *t, unsigned flags, size_t block_items,
                           const avk_allocator *a, avk_plan **out, avk_error *err)
{
    avk_plan_options o;
    avk_plan_options_init(&o);
    o.flags = flags;
    o.block_items = block_items;
    o.allocator = a;
    return avk_plan_new(t, &o, out, err);
}

/* Small blocks so that arenas grow during the scenario. */
static avk_status arena_new(const avk_allocator *a, avk_arena **out, avk_error *err)
{
    avk_arena_options o;
    avk_arena_options_init(&o);
    o.block_size = 64;
    o.allocator = a;
    return avk_arena_new(&o, out, err);
}

/* A memory writer that starts small, so that it grows. */
static avk_status mwriter(avk_writer *w, const avk_allocator *a, avk_error *err)
{
    avk_writer_options o;
    avk_writer_options_init(&o);
    o.buffer_size = 16;
    o.allocator = a;
    return avk_writer_init_memory(w, &o, err);
}

static void out_writer(const avk_writer *w)
{
    size_t len;
    const uint8_t *p = avk_writer_data(w, &len);
    out_put(p, len);
    out_str("\n");
}

/* ------------------------------------------------------------------ */
/* Scenarios                                                           */
/* ------------------------------------------------------------------ */

static avk_status sc_arena(const avk_allocator *a, avk_error *err)
{
    avk_arena *ar = NULL;
    avk_arena_options o;
    avk_status st = AVK_OK;
    char first[256];
    int i, round;
    avk_arena_options_init(&o);
    o.block_size = 64;
    o.first_block = first;
    o.first_block_size = sizeof first;
    o.allocator = a;
    TRY(avk_arena_new(&o, &ar, err));
    for (round = 0; round < 2; round++) {
        for (i = 0; i < 40; i++) {
            void *p = avk_arena_alloc(ar, (size_t)(i * 13 + 1), 8);
            if (!p) {
                st = avk_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN, "arena alloc");
                goto done;
            }
            memset(p, i, (size_t)(i * 13 + 1));
        }
        if (!avk_arena_alloc(ar, 100000, 16)) {
            st = avk_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN, "arena big alloc");
            goto done;
        }
        avk_arena_reset(ar);
    }
    out_fmt("%d\n", avk_arena_bytes(ar) > 0);
done:
    avk_arena_free(ar);
    return st;
}

/* Several schemas: named types and references, logical types (one that
 * falls back), a recursive one, an 83-branch union; then canonical form,
 * full JSON (compact and pretty), fingerprints, equality, lookups. */
static avk_status sc_schema(const avk_allocator *a, avk_error *err)
{
    const char *texts[5];
    avk_schema *s[5] = {NULL, NULL, NULL, NULL, NULL}, *again = NULL;
    avk_writer w;
    avk_status st = AVK_OK;
    int wi = 0;
    size_t i;
    texts[0] = g.rec_json;
    texts[1] = g.reader_json;
    texts[2] = g.logical_json;
    texts[3] = g.list_json;
    texts[4] = g.union_json;
    for (i = 0; i < 5; i++)
        TRY(parse(texts[i], a, &s[i], err));
    TRY(parse(g.rec_json, a, &again, err));
    out_fmt("eq %d %d\n", avk_type_equal(avk_schema_root(s[0]), avk_schema_root(again)),
            avk_type_equal(avk_schema_root(s[0]), avk_schema_root(s[1])));
    out_fmt("find %d\n", avk_schema_find(s[0], "ns.Color") != NULL);
    for (i = 0; i < 5; i++) {
        uint8_t fp[32];
        size_t fplen;
        TRY(mwriter(&w, a, err));
        wi = 1;
        TRY(avk_type_write_canonical(avk_schema_root(s[i]), &w, err));
        TRY(avk_writer_write_raw(&w, "\n", 1, err));
        TRY(avk_type_write_json(avk_schema_root(s[i]), 0, &w, err));
        TRY(avk_writer_write_raw(&w, "\n", 1, err));
        TRY(avk_type_write_json(avk_schema_root(s[i]), 1, &w, err));
        out_writer(&w);
        avk_writer_destroy(&w);
        wi = 0;
        TRY(avk_type_fingerprint(avk_schema_root(s[i]), AVK_FINGERPRINT_RABIN, fp, &fplen, err));
        out_hex(fp, fplen);
        if (avk_fingerprint_available(AVK_FINGERPRINT_SHA256)) {
            TRY(avk_type_fingerprint(avk_schema_root(s[i]), AVK_FINGERPRINT_SHA256, fp, &fplen,
                                     err));
            out_hex(fp, fplen);
        }
    }
done:
    if (wi)
        avk_writer_destroy(&w);
    for (i = 0; i < 5; i++)
        avk_schema_free(s[i]);
    avk_schema_free(again);
    return st;
}

static avk_status sc_plan(const avk_allocator *a, avk_error *err)
{
    avk_schema *s = NULL, *u = NULL, *l = NULL;
    avk_plan *p[5] = {NULL, NULL, NULL, NULL, NULL};
    avk_status st = AVK_OK;
    size_t i;
    TRY(parse(g.rec_json, a, &s, err));
    TRY(parse(g.union_json, a, &u, err));
    TRY(parse(g.list_json, a, &l, err));
    TRY(plan_new(avk_schema_root(s), 0, 0, a, &p[0], err));
    TRY(plan_new(avk_schema_root(s), AVK_PLAN_COPY_STRINGS | AVK_PLAN_CHECK_UTF8, 0, a, &p[1],
                 err));
    TRY(plan_new(avk_schema_root(s), AVK_PLAN_BLOCK_SIZES, 2, a, &p[2], err));
    TRY(plan_new(avk_schema_root(u), 0, 0, a, &p[3], err));
    TRY(plan_new(avk_schema_root(l), 0, 0, a, &p[4], err));
    for (i = 0; i < 5; i++)
        out_fmt("%s\n", avk_kind_name(avk_type_kind(avk_plan_type(p[i]))));
done:
    for (i = 0; i < 5; i++)
        avk_plan_free(p[i]);
    avk_schema_free(s);
    avk_schema_free(u);
    avk_schema_free(l);
    return st;
}

static void compat_cb(void *ctx, const avk_compat_problem *pb)
{
    (void)ctx;
    out_fmt("problem %s | %s | %s\n", pb->writer_path, pb->reader_path, pb->message);
}

/* Writer -> reader: check_compat, check_resolvable, the resolving plan, and
 * the records decoded through it (memory reader and typed arrays). */
static avk_status sc_resolve(const avk_allocator *a, avk_error *err)
{
    avk_schema *ws = NULL, *rs = NULL;
    avk_plan *p = NULL;
    avk_arena *ar = NULL;
    avk_reader r;
    avk_value v;
    avk_status st = AVK_OK;
    avk_error e2;
    int i;
    TRY(parse(g.rec_json, a, &ws, err));
    TRY(parse(g.reader_json, a, &rs, err));
    st = avk_schema_check_compat(avk_schema_root(ws), avk_schema_root(rs), compat_cb, NULL, &e2);
    if (st != AVK_OK && st != AVK_ERR_RESOLUTION) {
        *err = e2;
        goto done;
    }
    out_fmt("compat %s\n", avk_status_name(st));
    TRY(avk_schema_check_resolvable(avk_schema_root(ws), avk_schema_root(rs), compat_cb, NULL,
                                    err));
    {
        avk_plan_options o;
        avk_plan_options_init(&o);
        o.allocator = a;
        TRY(avk_plan_new_resolving(avk_schema_root(ws), avk_schema_root(rs), &o, &p, err));
    }
    TRY(arena_new(a, &ar, err));
    avk_reader_init_memory(&r, g.bin, g.bin_len);
    for (i = 0; i < N_RECORDS; i++) {
        TRY(avk_plan_decode(p, &r, ar, &v, err));
        out_value(&v);
        avk_arena_reset(ar);
    }
    /* and the skip of a resolving plan */
    avk_reader_init_memory(&r, g.bin, g.bin_len);
    for (i = 0; i < N_RECORDS; i++)
        TRY(avk_plan_skip(p, &r, err));
done:
    avk_arena_free(ar);
    avk_plan_free(p);
    avk_schema_free(ws);
    avk_schema_free(rs);
    return st;
}

/* A source that hands out a few bytes at a time. */
typedef struct drip {
    const uint8_t *p;
    size_t len, at;
} drip;

static avk_status drip_source(void *ctx, void *buf, size_t cap, size_t *got, avk_error *err)
{
    drip *d = (drip *)ctx;
    size_t n = d->len - d->at;
    (void)err;
    if (n > 7)
        n = 7;
    if (n > cap)
        n = cap;
    memcpy(buf, d->p + d->at, n);
    d->at += n;
    *got = n;
    return AVK_OK;
}

/* Decoding: memory reader into an arena (generic values, typed arrays),
 * copying strings, a stream reader over a source, an arena with a
 * caller's first block, and skipping. */
static avk_status sc_decode(const avk_allocator *a, avk_error *err)
{
    avk_schema *s = NULL;
    avk_plan *p = NULL, *pc = NULL;
    avk_arena *ar = NULL, *af = NULL;
    avk_reader r;
    int rinit = 0;
    avk_value v;
    avk_status st = AVK_OK;
    char first[128];
    drip d;
    int i;
    TRY(parse(g.rec_json, a, &s, err));
    TRY(plan_new(avk_schema_root(s), 0, 0, a, &p, err));
    TRY(plan_new(avk_schema_root(s), AVK_PLAN_COPY_STRINGS | AVK_PLAN_CHECK_UTF8, 0, a, &pc,
                 err));
    TRY(arena_new(a, &ar, err));
    {
        avk_arena_options o;
        avk_arena_options_init(&o);
        o.first_block = first;
        o.first_block_size = sizeof first;
        o.block_size = 64;
        o.allocator = a;
        TRY(avk_arena_new(&o, &af, err));
    }
    avk_reader_init_memory(&r, g.bin, g.bin_len);
    for (i = 0; i < N_RECORDS; i++) {
        TRY(avk_plan_decode(p, &r, ar, &v, err));
        out_value(&v);
        avk_arena_reset(ar);
    }
    avk_reader_init_memory(&r, g.bin, g.bin_len);
    for (i = 0; i < N_RECORDS; i++) {
        TRY(avk_plan_decode(pc, &r, af, &v, err));
        out_value(&v);
        avk_arena_reset(af);
    }
    {
        avk_reader_options o;
        avk_reader_options_init(&o);
        o.buffer_size = 16;
        o.allocator = a;
        d.p = g.bin;
        d.len = g.bin_len;
        d.at = 0;
        TRY(avk_reader_init_source(&r, drip_source, &d, &o, err));
        rinit = 1;
        for (i = 0; i < N_RECORDS; i++) {
            TRY(avk_plan_decode(pc, &r, ar, &v, err));
            out_value(&v);
            avk_arena_reset(ar);
        }
        avk_reader_destroy(&r);
        rinit = 0;
    }
    avk_reader_init_memory(&r, g.bin, g.bin_len);
    for (i = 0; i < N_RECORDS; i++)
        TRY(avk_plan_skip(p, &r, err));
    out_fmt("skipped to %d\n", (int)(r.pos - (const uint8_t *)g.bin) == (int)g.bin_len);
done:
    if (rinit)
        avk_reader_destroy(&r);
    avk_arena_free(ar);
    avk_arena_free(af);
    avk_plan_free(p);
    avk_plan_free(pc);
    avk_schema_free(s);
    return st;
}

/* Builds record i (of RECORDS_JSON: 0 and 2) with the value API. */
static avk_status build_value(const avk_type *t, avk_arena *ar, int which, avk_value *v,
                              avk_error *err)
{
    avk_status st = AVK_OK;
    avk_value *item, *mv, *bv;
    static const int32_t ints[3] = {1, 2, 300000};
    double sc[2] = {1.5, -2.25};
    TRY(avk_value_init_tree(v, t, ar, err));
    TRY(avk_value_set_long(v, "id", which ? 300 : 1, err));
    TRY(avk_value_set_string(v, "name", which ? "bob" : "alice", ar, err));
    if (which) {
        TRY(avk_value_append(v, "tags", ar, &item, err));
        TRY(avk_value_set_string(item, NULL, "a long tag to make strings longer", ar, err));
        sc[0] = 1e300;
        TRY(avk_value_append_items(v, "scores", sc, 1, ar, err));
        {
            int32_t m1 = -1;
            TRY(avk_value_append_items(v, "ints", &m1, 1, ar, err));
        }
        TRY(avk_value_put(v, "m", "z", ar, &mv, err));
        TRY(avk_value_set_long(mv, NULL, 1, err));
        TRY(avk_value_choose(v, "u", "ns.Rec2", ar, &bv, err));
        TRY(avk_value_set_int(bv, "a", 42, err));
        TRY(avk_value_set_bytes(v, "dec", "\x7f", 1, ar, err));
        TRY(avk_value_set_long(v, "when", -5, err));
        TRY(avk_value_set_float(v, "f", -3.5f, err));
        TRY(avk_value_set_boolean(v, "ok", 1, err));
        TRY(avk_value_set_enum(v, "c", "RED", err));
        TRY(avk_value_set_fixed(v, "fx", "wxyz", 4, ar, err));
    } else {
        TRY(avk_value_append(v, "tags", ar, &item, err));
        TRY(avk_value_set_string(item, NULL, "x", ar, err));
        TRY(avk_value_append(v, "tags", ar, &item, err));
        TRY(avk_value_set_string(item, NULL, "y", ar, err));
        TRY(avk_value_append_items(v, "scores", sc, 2, ar, err));
        TRY(avk_value_append_items(v, "ints", ints, 3, ar, err));
        TRY(avk_value_put(v, "m", "k", ar, &mv, err));
        TRY(avk_value_set_long(mv, NULL, 5, err));
        TRY(avk_value_put(v, "m", "j", ar, &mv, err));
        TRY(avk_value_set_long(mv, NULL, -7, err));
        TRY(avk_value_choose(v, "u", "null", ar, &bv, err));
        TRY(avk_value_set_bytes(v, "dec", "\x01\x02", 2, ar, err));
        TRY(avk_value_set_long(v, "when", 1700000000000LL, err));
        TRY(avk_value_set_float(v, "f", 1.5f, err));
        TRY(avk_value_set_boolean(v, "ok", 1, err));
        TRY(avk_value_set_enum(v, "c", "RED", err));
        TRY(avk_value_set_fixed(v, "fx", "abcd", 4, ar, err));
    }
done:
    return st;
}

/* Values built with the value API (value_build), encoded in one block per
 * array and with byte-sized blocks of 1 item; checked against the bytes
 * the setup encoded. */
static avk_status sc_encode(const avk_allocator *a, avk_error *err)
{
    avk_schema *s = NULL;
    avk_plan *p = NULL, *pb = NULL;
    avk_arena *ar = NULL;
    avk_writer w;
    int wi = 0, which;
    avk_value v;
    avk_status st = AVK_OK;
    TRY(parse(g.rec_json, a, &s, err));
    TRY(plan_new(avk_schema_root(s), 0, 0, a, &p, err));
    TRY(plan_new(avk_schema_root(s), AVK_PLAN_BLOCK_SIZES, 1, a, &pb, err));
    TRY(arena_new(a, &ar, err));
    TRY(mwriter(&w, a, err));
    wi = 1;
    for (which = 0; which < 2; which++) {
        TRY(build_value(avk_schema_root(s), ar, which, &v, err));
        out_value(&v);
        TRY(avk_plan_encode(p, &v, &w, err));
        TRY(avk_plan_encode(pb, &v, &w, err));
        avk_arena_reset(ar);
    }
    /* the low-level setters: a union value and a map by avk_value_init */
    {
        avk_value u, m;
        const avk_field *uf = avk_type_field_by_name(avk_schema_root(s), "u");
        const avk_field *mf = avk_type_field_by_name(avk_schema_root(s), "m");
        TRY(avk_value_init(&u, avk_field_type(uf), 0, ar, err));
        TRY(avk_value_set_branch(&u, 2, ar, err));
        TRY(avk_value_init(&m, avk_field_type(mf), 3, ar, err));
        out_fmt("init %u %zu\n", (unsigned)u.u.branch.index, (size_t)m.u.map.count);
        avk_arena_reset(ar);
    }
    {
        size_t len;
        const uint8_t *b = avk_writer_data(&w, &len);
        /* record 0 is the first of the setup's bytes */
        assert_memory_equal(b, g.bin, g.rec_len[0]);
        out_hex(b, len);
    }
done:
    if (wi)
        avk_writer_destroy(&w);
    avk_arena_free(ar);
    avk_plan_free(p);
    avk_plan_free(pb);
    avk_schema_free(s);
    return st;
}

/* The builder writes records 0 and 2, with one-item blocks and byte sizes
 * too (the builder holds items then). */
static avk_status build_rec(avk_builder *b, int which, avk_error *err)
{
    avk_status st = AVK_OK;
    static const int32_t ints0[3] = {1, 2, 300000};
    static const double sc0[2] = {1.5, -2.25};
    static const double sc2[1] = {1e300};
    int32_t m1 = -1;
    TRY(avk_builder_long(b, which ? 300 : 1, err));
    TRY(avk_builder_string(b, which ? "bob" : "alice", which ? 3 : 5, err));
    TRY(avk_builder_array_begin(b, err));
    if (which) {
        TRY(avk_builder_string(b, "a long tag to make strings longer", 33, err));
    } else {
        TRY(avk_builder_string(b, "x", 1, err));
        TRY(avk_builder_string(b, "y", 1, err));
    }
    TRY(avk_builder_array_end(b, err));
    TRY(avk_builder_array(b, which ? (const void *)sc2 : (const void *)sc0, which ? 1 : 2, err));
    TRY(avk_builder_array(b, which ? (const void *)&m1 : (const void *)ints0, which ? 1 : 3,
                          err));
    TRY(avk_builder_map_begin(b, err));
    if (which) {
        TRY(avk_builder_map_key(b, "z", 1, err));
        TRY(avk_builder_long(b, 1, err));
    } else {
        TRY(avk_builder_map_key(b, "k", 1, err));
        TRY(avk_builder_long(b, 5, err));
        TRY(avk_builder_map_key(b, "j", 1, err));
        TRY(avk_builder_long(b, -7, err));
    }
    TRY(avk_builder_map_end(b, err));
    if (which) {
        TRY(avk_builder_union(b, 2, err));
        TRY(avk_builder_int(b, 42, err));
        TRY(avk_builder_bytes(b, "\x7f", 1, err));
        TRY(avk_builder_long(b, -5, err));
        TRY(avk_builder_float(b, -3.5f, err));
    } else {
        TRY(avk_builder_union(b, 0, err));
        TRY(avk_builder_null(b, err));
        TRY(avk_builder_bytes(b, "\x01\x02", 2, err));
        TRY(avk_builder_long(b, 1700000000000LL, err));
        TRY(avk_builder_float(b, 1.5f, err));
    }
    TRY(avk_builder_boolean(b, 1, err));
    TRY(avk_builder_enum(b, 0, err));
    TRY(avk_builder_fixed(b, which ? "wxyz" : "abcd", 4, err));
    if (!avk_builder_complete(b))
        fail_msg("builder: record %d not complete", which);
done:
    return st;
}

static avk_status sc_builder(const avk_allocator *a, avk_error *err)
{
    avk_schema *s = NULL;
    avk_plan *p = NULL, *pb = NULL;
    avk_builder *b = NULL, *bb = NULL;
    avk_writer w;
    int wi = 0, which;
    avk_status st = AVK_OK;
    TRY(parse(g.rec_json, a, &s, err));
    TRY(plan_new(avk_schema_root(s), 0, 0, a, &p, err));
    TRY(plan_new(avk_schema_root(s), AVK_PLAN_BLOCK_SIZES, 1, a, &pb, err));
    TRY(mwriter(&w, a, err));
    wi = 1;
    TRY(avk_builder_new(p, &w, a, &b, err));
    TRY(avk_builder_new(pb, &w, a, &bb, err));
    for (which = 0; which < 2; which++) {
        TRY(build_rec(b, which, err));
        TRY(build_rec(bb, which, err));
    }
    {
        size_t len;
        const uint8_t *d = avk_writer_data(&w, &len);
        assert_memory_equal(d, g.bin, g.rec_len[0]);
        out_hex(d, len);
    }
done:
    avk_builder_free(b);
    avk_builder_free(bb);
    if (wi)
        avk_writer_destroy(&w);
    avk_plan_free(p);
    avk_plan_free(pb);
    avk_schema_free(s);
    return st;
}

/* Avro JSON -> value: each record alone, then the stream of all of them
 * piece by piece (AVK_JSON_FIRST_VALUE, as `avrokit fromjson` reads). */
static avk_status sc_json_read(const avk_allocator *a, avk_error *err)
{
    avk_schema *s = NULL, *l = NULL;
    avk_arena *ar = NULL;
    avk_value v;
    avk_status st = AVK_OK;
    size_t i, at = 0;
    TRY(parse(g.rec_json, a, &s, err));
    TRY(parse(g.list_json, a, &l, err));
    TRY(arena_new(a, &ar, err));
    for (i = 0; i < N_RECORDS; i++) {
        TRY(avk_value_read_json(avk_schema_root(s), RECORDS_JSON[i], strlen(RECORDS_JSON[i]), ar,
                                &v, err));
        out_value(&v);
        avk_arena_reset(ar);
    }
    while (at < g.json_stream_len) {
        avk_json_read_options o;
        size_t used = 0;
        avk_json_read_options_init(&o);
        o.flags = AVK_JSON_FIRST_VALUE | AVK_JSON_LAST_TEXT;
        o.offset = at;
        st = avk_value_read_json_opts(avk_schema_root(s), g.json_stream + at,
                                      g.json_stream_len - at, &o, ar, &v, &used, err);
        if (st == AVK_ERR_TRUNCATED && used == g.json_stream_len - at) {
            st = AVK_OK; /* white space alone at the end */
            break;
        }
        if (st != AVK_OK)
            goto done;
        out_value(&v);
        avk_arena_reset(ar);
        at += used;
    }
    /* the stream again in pieces of 40 bytes, as `avrokit fromjson` reads:
     * a value cut by a piece's end is TRUNCATED and read again with more */
    {
        size_t have = 0, start = 0;
        int grow = 1;
        at = 0;
        while (start < g.json_stream_len) {
            avk_json_read_options o;
            size_t used = 0;
            int last;
            if (grow)
                have = have + 40 < g.json_stream_len ? have + 40 : g.json_stream_len;
            grow = 0;
            last = have == g.json_stream_len;
            avk_json_read_options_init(&o);
            o.flags = AVK_JSON_FIRST_VALUE | (last ? AVK_JSON_LAST_TEXT : 0);
            o.offset = start;
            st = avk_value_read_json_opts(avk_schema_root(s), g.json_stream + start, have - start,
                                          &o, ar, &v, &used, err);
            avk_arena_reset(ar);
            if (st == AVK_ERR_TRUNCATED) {
                st = AVK_OK;
                if (last)
                    break;
                grow = 1;
                continue;
            }
            if (st != AVK_OK)
                goto done;
            start += used;
            at++;
        }
        out_fmt("pieces: %zu values\n", at);
    }
    {
        static const char list[] =
            "{\"v\":1,\"next\":{\"List\":{\"v\":2,\"next\":{\"List\":{\"v\":3}}}}}";
        TRY(avk_value_read_json(avk_schema_root(l), list, strlen(list), ar, &v, err));
        out_value(&v);
    }
done:
    avk_arena_free(ar);
    avk_schema_free(s);
    avk_schema_free(l);
    return st;
}

/* value -> Avro JSON, compact and pretty, into a writer with the allocator. */
static avk_status sc_json_write(const avk_allocator *a, avk_error *err)
{
    avk_schema *s = NULL;
    avk_plan *p = NULL;
    avk_arena *ar = NULL;
    avk_reader r;
    avk_writer w;
    int wi = 0, i;
    avk_value v;
    avk_status st = AVK_OK;
    TRY(parse(g.rec_json, a, &s, err));
    TRY(plan_new(avk_schema_root(s), 0, 0, a, &p, err));
    TRY(arena_new(a, &ar, err));
    TRY(mwriter(&w, a, err));
    wi = 1;
    avk_reader_init_memory(&r, g.bin, g.bin_len);
    for (i = 0; i < N_RECORDS; i++) {
        avk_json_write_options o;
        avk_json_write_options_init(&o);
        o.flags = AVK_JSON_PRETTY | (i % 2 ? AVK_JSON_REPLACE_INVALID_UTF8 : 0);
        TRY(avk_plan_decode(p, &r, ar, &v, err));
        TRY(avk_value_write_json(&v, 0, &w, err));
        TRY(avk_value_write_json_opts(&v, &o, &w, err));
        avk_arena_reset(ar);
    }
    out_writer(&w);
done:
    if (wi)
        avk_writer_destroy(&w);
    avk_arena_free(ar);
    avk_plan_free(p);
    avk_schema_free(s);
    return st;
}

/* Codecs: one-shot and through a context, each codec both ways. */
static avk_status sc_codec(const avk_allocator *a, avk_error *err)
{
    avk_codec_ctx *ctx = NULL;
    avk_buffer c, d;
    avk_status st = AVK_OK;
    size_t ci;
    avk_buffer_init(&c, a);
    avk_buffer_init(&d, a);
    TRY(avk_codec_ctx_new(a, &ctx, err));
    for (ci = 0; ci < N_CODECS; ci++) {
        avk_codec k = ALL_CODECS[ci];
        if (!avk_codec_available(k))
            continue;
        c.len = d.len = 0;
        TRY(avk_codec_compress(k, 1, g.bin, g.bin_len, &c, err));
        TRY(avk_codec_decompress(k, c.data, c.len, 1 << 20, &d, err));
        if (d.len != g.bin_len || memcmp(d.data, g.bin, d.len) != 0)
            fail_msg("%s: round trip differs", avk_codec_name(k));
        c.len = d.len = 0;
        TRY(avk_codec_ctx_compress(ctx, k, 1, g.bin, g.bin_len, &c, err));
        TRY(avk_codec_ctx_decompress(ctx, k, c.data, c.len, 1 << 20, &d, err));
        if (d.len != g.bin_len || memcmp(d.data, g.bin, d.len) != 0)
            fail_msg("%s: ctx round trip differs", avk_codec_name(k));
        out_fmt("%s ok\n", avk_codec_name(k));
    }
done:
    avk_codec_ctx_free(ctx);
    avk_buffer_destroy(&c);
    avk_buffer_destroy(&d);
    return st;
}

/* ---- container files ---- */

static const avk_file_meta META[2] = {{"user.a", "1", 1}, {"user.b", "two", 3}};

/* Writes the N_RECORDS records to fw every way a record can go in:
 * values, encoded bytes, in place with the builder, then a flush. */
static avk_status write_records(avk_file_writer *fw, const avk_allocator *a, avk_error *err)
{
    avk_arena *ar = NULL;
    avk_builder *b = NULL;
    avk_reader r;
    avk_value v;
    avk_status st = AVK_OK;
    size_t off = 0;
    int i;
    TRY(arena_new(a, &ar, err));
    avk_reader_init_memory(&r, g.bin, g.bin_len);
    for (i = 0; i < N_RECORDS; i++) {
        if (i == 0 || i == 3) {
            TRY(avk_plan_decode(avk_file_writer_plan(fw), &r, ar, &v, err));
            TRY(avk_file_writer_append(fw, &v, err));
            avk_arena_reset(ar);
        } else if (i == 2) {
            avk_writer *w = avk_file_writer_record_begin(fw);
            TRY(avk_builder_new(avk_file_writer_plan(fw), w, a, &b, err));
            st = build_rec(b, 1, err);
            avk_builder_free(b);
            b = NULL;
            if (st != AVK_OK) {
                (void)avk_file_writer_record_end(fw, 0, NULL);
                goto done;
            }
            TRY(avk_file_writer_record_end(fw, 1, err));
            TRY(avk_plan_skip(avk_file_writer_plan(fw), &r, err));
        } else {
            TRY(avk_file_writer_append_encoded(fw, g.bin + off, g.rec_len[i], err));
            TRY(avk_plan_skip(avk_file_writer_plan(fw), &r, err));
        }
        off += g.rec_len[i];
        if (i == 1)
            TRY(avk_file_writer_flush(fw, err));
    }
done:
    avk_arena_free(ar);
    return st;
}

static int light_codec(void)
{
    return g_codec == AVK_CODEC_NULL || g_codec == AVK_CODEC_DEFLATE;
}

static void wopts(avk_file_writer_options *o, const avk_allocator *a, unsigned threads)
{
    avk_file_writer_options_init(o);
    o->codec = g_codec;
    o->level = 1;
    o->block_records = 2;
    o->sync = SYNC16;
    o->meta = META;
    o->meta_count = 2;
    o->allocator = a;
    o->threads = threads;
}

/* Reads every record of fr (next), then the blocks again (next_block +
 * block_decompress), then skips (seek_block back first) when it can. */
static avk_status read_all(avk_file_reader *fr, const avk_allocator *a, int blocks,
                           avk_error *err)
{
    avk_arena *ar = NULL;
    avk_buffer buf;
    avk_value v;
    avk_status st = AVK_OK;
    int more = 1, n = 0;
    avk_buffer_init(&buf, a);
    TRY(arena_new(a, &ar, err));
    out_fmt("codec %s meta %zu\n", avk_codec_name(avk_file_reader_codec(fr, NULL)),
            avk_file_reader_meta_count(fr));
    while (1) {
        TRY(avk_file_reader_next(fr, ar, &v, &more, err));
        if (!more)
            break;
        out_value(&v);
        avk_arena_reset(ar);
        n++;
    }
    if (blocks) {
        avk_file_block blk;
        TRY(avk_file_reader_seek_block(fr, avk_file_reader_header_size(fr), err));
        while (1) {
            TRY(avk_file_reader_next_block(fr, &blk, &more, err));
            if (!more)
                break;
            TRY(avk_file_block_decompress(fr, &blk, &buf, err));
            out_fmt("block %lld %zu\n", (long long)blk.count, buf.len);
        }
        TRY(avk_file_reader_seek_sync(fr, 0, err));
        n = 0;
        while (1) {
            TRY(avk_file_reader_skip(fr, &more, err));
            if (!more)
                break;
            n++;
        }
        out_fmt("skipped %d\n", n);
    }
done:
    avk_buffer_destroy(&buf);
    avk_arena_free(ar);
    return st;
}

static void ropts(avk_file_reader_options *o, const avk_allocator *a, unsigned threads,
                  unsigned flags)
{
    avk_file_reader_options_init(o);
    o->allocator = a;
    o->threads = threads;
    o->flags = flags;
}

/* Write to memory through a sink, then read it back from memory (records,
 * blocks, skip) and with a reader schema (resolution). */
static avk_status sc_file_mem(const avk_allocator *a, avk_error *err)
{
    avk_file_writer_options wo;
    avk_file_reader_options ro;
    avk_file_writer *fw = NULL;
    avk_file_reader *fr = NULL;
    avk_schema *s = NULL, *rs = NULL;
    avk_buffer mem;
    avk_status st = AVK_OK;
    memset(&mem, 0, sizeof mem);
    TRY(parse(g.rec_json, a, &s, err));
    TRY(parse(g.reader_json, a, &rs, err));
    wopts(&wo, a, 0);
    TRY(avk_file_writer_open_sink(mem_sink, &mem, s, &wo, &fw, err));
    TRY(write_records(fw, a, err));
    st = avk_file_writer_close(fw, err);
    fw = NULL;
    if (st != AVK_OK)
        goto done;
    ropts(&ro, a, 0, 0);
    TRY(avk_file_reader_open_memory(mem.data, mem.len, &ro, &fr, err));
    TRY(read_all(fr, a, 1, err));
    avk_file_reader_free(fr);
    fr = NULL;
    ro.reader_schema = rs;
    TRY(avk_file_reader_open_memory(mem.data, mem.len, &ro, &fr, err));
    TRY(read_all(fr, a, 0, err));
done:
    avk_file_writer_free(fw);
    avk_file_reader_free(fr);
    avk_schema_free(s);
    avk_schema_free(rs);
    free(mem.data);
    return st;
}

/* Threads: the writer with 2 compression threads, the reader with 2
 * threads reading ahead, then decoding ahead, then work on blocks. */
typedef struct work_ctx {
    uint64_t got[16];
    avk_arena *arenas[16];
    const avk_allocator *a;
} work_ctx;

#define AVK_TRY_(expr)                                                                     \
    do {                                                                                   \
        avk_status t_ = (expr);                                                            \
        if (t_ != AVK_OK)                                                                  \
            return t_;                                                                     \
    } while (0)

static avk_status work_fn(void *ctx, unsigned slot, avk_file_records *records, avk_error *err)
{
    work_ctx *w = (work_ctx *)ctx;
    avk_status st;
    int more = 1;
    uint64_t n = 0;
    if (slot < 16 && !w->arenas[slot])
        AVK_TRY_(arena_new(w->a, &w->arenas[slot], err));
    while (1) {
        avk_value v;
        /* every other block decoded, the others skipped */
        if (slot < 16 && slot % 2 == 0)
            st = avk_file_records_next(records, w->arenas[slot], &v, &more, err);
        else
            st = avk_file_records_skip(records, &more, err);
        if (st != AVK_OK)
            return st;
        if (!more)
            break;
        n++;
    }
    if (slot < 16)
        avk_arena_reset(w->arenas[slot]);
    if (slot < 16)
        w->got[slot] = n;
    return AVK_OK;
}

static avk_status sc_file_threads(const avk_allocator *inner, avk_error *err)
{
    avkt_locked_alloc la;
    const avk_allocator *a;
    avk_file_writer_options wo;
    avk_file_reader_options ro;
    avk_file_writer *fw = NULL;
    avk_file_reader *fr = NULL;
    avk_schema *s = NULL;
    avk_buffer mem;
    avk_status st = AVK_OK;
    work_ctx wc;
    size_t i;
    memset(&wc, 0, sizeof wc);
    avkt_locked_alloc_init(&la, inner);
    a = &la.allocator;
    memset(&mem, 0, sizeof mem);
    TRY(parse(g.rec_json, a, &s, err));
    wopts(&wo, a, 2);
    TRY(avk_file_writer_open_sink(mem_sink, &mem, s, &wo, &fw, err));
    TRY(write_records(fw, a, err));
    st = avk_file_writer_close(fw, err);
    fw = NULL;
    if (st != AVK_OK)
        goto done;
    ropts(&ro, a, 2, 0);
    TRY(avk_file_reader_open_memory(mem.data, mem.len, &ro, &fr, err));
    TRY(read_all(fr, a, 1, err));
    avk_file_reader_free(fr);
    fr = NULL;
    ropts(&ro, a, 2, AVK_FILE_DECODE_AHEAD);
    TRY(avk_file_reader_open_memory(mem.data, mem.len, &ro, &fr, err));
    TRY(read_all(fr, a, 0, err));
    avk_file_reader_free(fr);
    fr = NULL;
    if (light_codec()) { /* resolution ahead: the codec does not matter */
        avk_schema *rs = NULL;
        ropts(&ro, a, 2, AVK_FILE_DECODE_AHEAD);
        TRY(parse(g.reader_json, a, &rs, err));
        ro.reader_schema = rs;
        st = avk_file_reader_open_memory(mem.data, mem.len, &ro, &fr, err);
        if (st == AVK_OK)
            st = read_all(fr, a, 0, err);
        avk_file_reader_free(fr);
        fr = NULL;
        avk_schema_free(rs);
        if (st != AVK_OK)
            goto done;
    }
    ropts(&ro, a, 2, 0);
    ro.work = work_fn;
    ro.work_ctx = &wc;
    memset(&wc, 0, sizeof wc);
    wc.a = a;
    TRY(avk_file_reader_open_memory(mem.data, mem.len, &ro, &fr, err));
    while (1) {
        unsigned slot;
        int64_t recs;
        int more;
        TRY(avk_file_reader_next_work(fr, &slot, &recs, &more, err));
        if (!more)
            break;
        out_fmt("work %lld %llu\n", (long long)recs,
                (unsigned long long)(slot < 16 ? wc.got[slot] : 0));
    }
done:
    avk_file_writer_free(fw);
    avk_file_reader_free(fr);
    avk_schema_free(s);
    free(mem.data);
    for (i = 0; i < 16; i++)
        avk_arena_free(wc.arenas[i]);
    pthread_mutex_destroy(&la.mu);
    return st;
}

/* A failed write to a path leaves what the library promises: open_path
 * created (or truncated) the file, and a writer that fails is freed
 * without writing its pending block, so the file is empty or holds the
 * header and whole blocks only, which read back cleanly as a prefix of
 * the records. Nothing torn: checked by the harness after each run. */
static avk_status sc_file_path(const avk_allocator *a, avk_error *err)
{
    avk_file_writer_options wo;
    avk_file_reader_options ro;
    avk_file_writer *fw = NULL;
    avk_file_reader *fr = NULL;
    avk_file_index *idx = NULL;
    avk_schema *s = NULL;
    avk_arena *ar = NULL;
    avk_status st = AVK_OK;
    int fd = -1;
    unlink(g_path);
    TRY(parse(g.rec_json, a, &s, err));
    wopts(&wo, a, 0);
    TRY(avk_file_writer_open_path(g_path, s, &wo, &fw, err));
    TRY(write_records(fw, a, err));
    st = avk_file_writer_close(fw, err);
    fw = NULL;
    if (st != AVK_OK)
        goto done;
    /* append one more record (record 0 again) */
    TRY(avk_file_writer_append_path(g_path, &wo, &fw, err));
    TRY(avk_file_writer_append_encoded(fw, g.bin, g.rec_len[0], err));
    st = avk_file_writer_close(fw, err);
    fw = NULL;
    if (st != AVK_OK)
        goto done;
    ropts(&ro, a, 0, 0);
    TRY(avk_file_reader_open_path(g_path, &ro, &fr, err));
    TRY(read_all(fr, a, 1, err));
    /* the index, and seeking to a record through it */
    TRY(avk_file_index_build_path(g_path, &ro, &idx, err));
    out_fmt("index %zu blocks %llu records\n", avk_file_index_block_count(idx),
            (unsigned long long)avk_file_index_records(idx));
    TRY(arena_new(a, &ar, err));
    {
        avk_value v;
        int more;
        TRY(avk_file_reader_seek_record(fr, idx, 3, err));
        TRY(avk_file_reader_next(fr, ar, &v, &more, err));
        out_value(&v);
    }
    avk_file_reader_free(fr);
    fr = NULL;
    /* The other ways in (a map, a descriptor) do not depend on the codec:
     * with two codecs only, to keep the suite's time (xz's encoder is
     * some 10 MB a run). */
    if (!light_codec())
        goto done;
    ropts(&ro, a, 0, AVK_FILE_MAP);
    TRY(avk_file_reader_open_path(g_path, &ro, &fr, err));
    TRY(read_all(fr, a, 0, err));
    avk_file_reader_free(fr);
    fr = NULL;
    fd = open(g_path, O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    ropts(&ro, a, 0, 0);
    TRY(avk_file_reader_open_fd(fd, &ro, &fr, err));
    TRY(read_all(fr, a, 0, err));
done:
    if (fd >= 0)
        close(fd);
    avk_file_writer_free(fw);
    avk_file_reader_free(fr);
    avk_file_index_free(idx);
    avk_arena_free(ar);
    avk_schema_free(s);
    return st;
}

/* The index: from memory, from a path, saved as a sidecar, loaded (file
 * and memory), through open_path (built and saved, then current), and
 * seeking with it. */
static void write_whole(const char *path, const void *p, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(p, 1, len, f), len);
    fclose(f);
}

static avk_status sc_file_index(const avk_allocator *a, avk_error *err)
{
    avk_file_reader_options ro;
    avk_file_index *idx[5] = {NULL, NULL, NULL, NULL, NULL};
    avk_file_reader *fr = NULL;
    avk_arena *ar = NULL;
    avk_status st = AVK_OK;
    char side[200];
    size_t i;
    avk_file_index_info info;
    uint8_t *sc = NULL;
    size_t sclen = 0;
    avk_file_index_sidecar_name(g_path, side, sizeof side);
    unlink(side);
    write_whole(g_path, g.file[1], g.file_len[1]);
    ropts(&ro, a, 0, 0);
    TRY(avk_file_index_build_memory(g.file[3], g.file_len[3], &ro, &idx[0], err));
    TRY(avk_file_index_build_path(g_path, &ro, &idx[1], err));
    TRY(avk_file_index_save(idx[1], side, err));
    TRY(avk_file_index_load(side, a, &idx[2], err));
    sc = (uint8_t *)avkt_read_file(side, &sclen);
    TRY(avk_file_index_load_memory(sc, sclen, a, &idx[3], err));
    unlink(side);
    TRY(avk_file_index_open_path(g_path, &ro, AVK_FILE_INDEX_SAVE, &idx[4], &info, err));
    out_fmt("sidecar %d\n", (int)info.sidecar);
    for (i = 0; i < 5; i++)
        out_fmt("index %zu %llu %llu\n", avk_file_index_block_count(idx[i]),
                (unsigned long long)avk_file_index_records(idx[i]),
                (unsigned long long)avk_file_index_header_size(idx[i]));
    avk_file_index_free(idx[4]);
    idx[4] = NULL;
    /* the sidecar may or may not have been saved (failing to save is not
     * an error); when it was, it is current */
    TRY(avk_file_index_open_path(g_path, &ro, 0, &idx[4], &info, err));
    out_fmt("records %llu\n", (unsigned long long)avk_file_index_records(idx[4]));
    /* the file grows by a block: the sidecar (saved now) is refreshed */
    avk_file_index_free(idx[4]);
    idx[4] = NULL;
    TRY(avk_file_index_save(idx[1], side, err));
    {
        avk_file_writer_options wo;
        avk_file_writer *fw = NULL;
        g_codec = AVK_CODEC_DEFLATE;
        wopts(&wo, a, 0);
        TRY(avk_file_writer_append_path(g_path, &wo, &fw, err));
        st = avk_file_writer_append_encoded(fw, g.bin, g.rec_len[0], err);
        if (st == AVK_OK)
            st = avk_file_writer_close(fw, err);
        else
            avk_file_writer_free(fw);
        if (st != AVK_OK)
            goto done;
    }
    TRY(avk_file_index_open_path(g_path, &ro, AVK_FILE_INDEX_SAVE, &idx[4], &info, err));
    out_fmt("grown: sidecar %d reused %zu records %llu\n", (int)info.sidecar, info.reused_blocks,
            (unsigned long long)avk_file_index_records(idx[4]));
    TRY(arena_new(a, &ar, err));
    TRY(avk_file_reader_open_memory(g.file[3], g.file_len[3], &ro, &fr, err));
    {
        avk_value v;
        int more;
        TRY(avk_file_reader_seek_record(fr, idx[0], 4, err));
        TRY(avk_file_reader_next(fr, ar, &v, &more, err));
        out_value(&v);
        TRY(avk_file_reader_seek_record(fr, idx[0], 1, err));
        TRY(avk_file_reader_next(fr, ar, &v, &more, err));
        out_value(&v);
    }
done:
    unlink(side);
    free(sc);
    for (i = 0; i < 5; i++)
        avk_file_index_free(idx[i]);
    avk_file_reader_free(fr);
    avk_arena_free(ar);
    return st;
}

/* Columns: every block of a file decoded into columns, values appended,
 * the Arrow export of schema and array (released), a projection, and
 * columns of a reader's schema. */
static avk_status sc_columns(const avk_allocator *a, avk_error *err)
{
    avk_file_reader_options ro;
    avk_columns_options co;
    avk_columns *c = NULL;
    avk_file_reader *fr = NULL;
    avk_schema *rs = NULL;
    avk_arena *ar = NULL;
    struct ArrowSchema as;
    struct ArrowArray aa;
    avk_status st = AVK_OK;
    static const char *const proj[] = {"name", "u", "ints"};
    int more, pass;
    memset(&as, 0, sizeof as);
    memset(&aa, 0, sizeof aa);
    ropts(&ro, a, 0, 0);
    TRY(parse(g.reader_json, a, &rs, err));
    TRY(arena_new(a, &ar, err));
    TRY(avk_file_reader_open_memory(g.file[2], g.file_len[2], &ro, &fr, err));
    for (pass = 0; pass < 3; pass++) {
        const avk_type *t = avk_schema_root(avk_file_reader_schema(fr));
        avk_file_block blk;
        uint64_t done_n;
        avk_columns_options_init(&co);
        co.allocator = a;
        if (pass == 1) {
            co.fields = proj;
            co.field_count = 3;
        } else if (pass == 2) {
            co.reader = avk_schema_root(rs);
        }
        TRY(avk_columns_new(t, &co, &c, err));
        TRY(avk_file_reader_seek_block(fr, avk_file_reader_header_size(fr), err));
        while (1) {
            TRY(avk_file_reader_next_block(fr, &blk, &more, err));
            if (!more)
                break;
            TRY(avk_columns_decode_block(c, fr, &blk, &done_n, err));
        }
        if (pass == 0) {
            avk_reader r;
            avk_value v;
            uint64_t got;
            avk_reader_init_memory(&r, g.bin, g.bin_len);
            TRY(avk_plan_decode(avk_file_reader_plan(fr), &r, ar, &v, err));
            TRY(avk_columns_append_value(c, &v, err));
            TRY(avk_columns_decode(c, &r, 2, &got, err));
        }
        out_fmt("columns %llu\n", (unsigned long long)avk_columns_length(c));
        TRY(avk_columns_export_schema(c, &as, err));
        TRY(avk_columns_export(c, &aa, err));
        out_fmt("arrow %lld %lld %s\n", (long long)aa.length, (long long)as.n_children,
                as.format);
        as.release(&as);
        aa.release(&aa);
        memset(&as, 0, sizeof as);
        memset(&aa, 0, sizeof aa);
        avk_columns_free(c);
        c = NULL;
    }
    /* logical types: dates, times, timestamps, uuid, duration, decimal
     * (fixed, 16 bytes: decimal128) and a fallen-back decimal */
    {
        static const char lj[] =
            "{\"d\":19000,\"tm\":1000,\"tu\":2000,\"ts\":-3,\"ln\":4,"
            "\"uu\":\"123e4567-e89b-12d3-a456-426614174000\",\"du\":\"\\u0001\\u0000"
            "\\u0000\\u0000\\u0002\\u0000\\u0000\\u0000\\u0003\\u0000\\u0000\\u0000\","
            "\"dx\":\"\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000"
            "\\u0000\\u0000\\u0000\\u0000\\u0000\\u0001\\u00ff\",\"bad\":\"x\"}";
        avk_schema *ls = NULL;
        avk_value v;
        int k;
        TRY(parse(g.logical_json, a, &ls, err));
        avk_columns_options_init(&co);
        co.allocator = a;
        co.flags = AVK_COLUMNS_CHECK_UTF8;
        st = avk_columns_new(avk_schema_root(ls), &co, &c, err);
        for (k = 0; st == AVK_OK && k < 3; k++) {
            st = avk_value_read_json(avk_schema_root(ls), lj, strlen(lj), ar, &v, err);
            if (st == AVK_OK)
                st = avk_columns_append_value(c, &v, err);
            avk_arena_reset(ar);
        }
        if (st == AVK_OK)
            st = avk_columns_export_schema(c, &as, err);
        if (st == AVK_OK)
            st = avk_columns_export(c, &aa, err);
        if (st == AVK_OK) {
            int64_t ch;
            out_fmt("logical arrow %lld:", (long long)aa.length);
            for (ch = 0; ch < as.n_children; ch++)
                out_fmt(" %s", as.children[ch]->format);
            out_str("\n");
        }
        avk_schema_free(ls);
        if (st != AVK_OK)
            goto done;
    }
done:
    if (as.release)
        as.release(&as);
    if (aa.release)
        aa.release(&aa);
    avk_columns_free(c);
    avk_file_reader_free(fr);
    avk_arena_free(ar);
    avk_schema_free(rs);
    return st;
}

/* Buffered readers and writers over a descriptor (the CLI's stdin and
 * stdout), with the allocator. */
static avk_status sc_io(const avk_allocator *a, avk_error *err)
{
    avk_writer w;
    avk_reader r;
    avk_writer_options wo;
    avk_reader_options rop;
    avk_status st = AVK_OK;
    int wi = 0, ri = 0, fd = -1;
    uint8_t back[64];
    int64_t longs[4] = {1, -300, 1LL << 40, 0}, got[4];
    fd = open(g_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    assert_true(fd >= 0);
    avk_writer_options_init(&wo);
    wo.buffer_size = 8;
    wo.allocator = a;
    TRY(avk_writer_init_fd(&w, fd, &wo, err));
    wi = 1;
    TRY(avk_writer_write_longs(&w, longs, 4, err));
    TRY(avk_writer_write_raw(&w, "hello world, more than eight", 28, err));
    TRY(avk_writer_flush(&w, err));
    avk_writer_destroy(&w);
    wi = 0;
    lseek(fd, 0, SEEK_SET);
    avk_reader_options_init(&rop);
    rop.buffer_size = 8;
    rop.allocator = a;
    TRY(avk_reader_init_fd(&r, fd, &rop, err));
    ri = 1;
    TRY(avk_reader_read_longs(&r, got, 4, err));
    TRY(avk_reader_read_raw(&r, back, 28, err));
    assert_memory_equal(got, longs, sizeof longs);
    out_put(back, 28);
done:
    if (wi)
        avk_writer_destroy(&w);
    if (ri)
        avk_reader_destroy(&r);
    if (fd >= 0)
        close(fd);
    unlink(g_path);
    return st;
}

/* ---- failures that are the input's, under allocation failure ---- */

/* A call that must fail with want: its status and message go to the
 * output; NO_MEMORY goes back to the harness; anything else fails. */
static avk_status expect(const char *what, avk_status got, avk_status want, const avk_error *e)
{
    if (got == AVK_ERR_NO_MEMORY)
        return got;
    if (got != want)
        fail_msg("%s: %s (%s), expected %s", what, avk_status_name(got), e->message,
                 avk_status_name(want));
    out_fmt("%s: %s %s | %s\n", what, avk_status_name(got), e->message, e->path);
    return AVK_OK;
}

#define EXPECT(what, call, want)                                                           \
    do {                                                                                   \
        avk_error e_;                                                                      \
        memset(&e_, 0, sizeof e_);                                                         \
        st = expect(what, (call), (want), &e_);                                            \
        if (st != AVK_OK) {                                                                \
            *err = e_;                                                                     \
            goto done;                                                                     \
        }                                                                                  \
    } while (0)
#define E_ (&e_)

static avk_status sc_bad_schema(const avk_allocator *a, avk_error *err)
{
    static const char *const bad[] = {
        "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"lnog\"}]}",
        "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"int\","
        "\"default\":\"x\"}]}",
        "[{\"type\":\"fixed\",\"name\":\"F\",\"size\":2},{\"type\":\"fixed\",\"name\":\"F\","
        "\"size\":3}]",
        "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"},"
        "{\"name\":\"a\",\"type\":\"long\"}]}",
        "{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\",\"A\"]}",
        "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":"
        "[\"int\",\"int\"]}]}",
        "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"",
        "{\"type\":\"record\",\"name\":\"1R\",\"fields\":[]}",
    };
    avk_schema *s = NULL;
    avk_status st = AVK_OK;
    size_t i;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char what[32];
        snprintf(what, sizeof what, "schema %zu", i);
        /* (6: JSON syntax) */
        EXPECT(what, parse(bad[i], a, &s, E_), i == 6 ? AVK_ERR_MALFORMED : AVK_ERR_SCHEMA);
        assert_null(s);
    }
done:
    avk_schema_free(s);
    return st;
}

/* Hostile bytes through decode (values and resolving), skip. */
static avk_status sc_bad_decode(const avk_allocator *a, avk_error *err)
{
    avk_schema *s = NULL, *rs = NULL;
    avk_plan *p = NULL, *pr = NULL;
    avk_arena *ar = NULL;
    avk_reader r;
    avk_value v;
    avk_status st = AVK_OK;
    uint8_t buf[512];
    size_t n0 = g.rec_len[0];
    TRY(parse(g.rec_json, a, &s, err));
    TRY(parse(g.reader_json, a, &rs, err));
    TRY(plan_new(avk_schema_root(s), AVK_PLAN_CHECK_UTF8, 0, a, &p, err));
    {
        avk_plan_options o;
        avk_plan_options_init(&o);
        o.allocator = a;
        TRY(avk_plan_new_resolving(avk_schema_root(s), avk_schema_root(rs), &o, &pr, err));
    }
    TRY(arena_new(a, &ar, err));
    /* truncated: record 0 without its last byte, after record 1 whole */
    memcpy(buf, g.bin + n0, g.rec_len[1]);
    memcpy(buf + g.rec_len[1], g.bin, n0 - 1);
    avk_reader_init_memory(&r, buf, g.rec_len[1] + n0 - 1);
    TRY(avk_plan_decode(p, &r, ar, &v, err));
    EXPECT("truncated", avk_plan_decode(p, &r, ar, &v, E_), AVK_ERR_TRUNCATED);
    avk_reader_init_memory(&r, buf, g.rec_len[1] + n0 - 1);
    TRY(avk_plan_decode(pr, &r, ar, &v, err));
    EXPECT("truncated resolving", avk_plan_decode(pr, &r, ar, &v, E_), AVK_ERR_TRUNCATED);
    avk_reader_init_memory(&r, buf, g.rec_len[1] + n0 - 1);
    TRY(avk_plan_skip(p, &r, err));
    EXPECT("truncated skip", avk_plan_skip(p, &r, E_), AVK_ERR_TRUNCATED);
    /* a long array count that the bytes cannot hold: id 1, name "", tags
     * of 2^40 items */
    {
        static const uint8_t huge[] = {0x02, 0x00, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40, 0x02};
        avk_reader_init_memory(&r, huge, sizeof huge);
        EXPECT("huge count", avk_plan_decode(p, &r, ar, &v, E_), AVK_ERR_LIMIT);
        avk_reader_init_memory(&r, huge, sizeof huge);
        EXPECT("huge count resolving", avk_plan_decode(pr, &r, ar, &v, E_), AVK_ERR_LIMIT);
    }
    /* a count the bytes that remain cannot hold (1000 strings in 1 byte) */
    {
        static const uint8_t lie[] = {0x02, 0x00, 0xd0, 0x0f, 0x00};
        avk_reader_init_memory(&r, lie, sizeof lie);
        EXPECT("lying count", avk_plan_decode(p, &r, ar, &v, E_), AVK_ERR_TRUNCATED);
        avk_reader_init_memory(&r, lie, sizeof lie);
        EXPECT("lying count resolving", avk_plan_decode(pr, &r, ar, &v, E_), AVK_ERR_TRUNCATED);
    }
    /* union index out of range: record 1 has u = string (index 1) */
    {
        size_t at;
        memcpy(buf, g.bin + n0, g.rec_len[1]);
        /* id -2 (03), name "" (00), tags 0, scores 0, ints 0, m 0, then u */
        at = 6;
        assert_int_equal(buf[at], 0x02);
        buf[at] = 0x20;
        avk_reader_init_memory(&r, buf, g.rec_len[1]);
        EXPECT("union index", avk_plan_decode(p, &r, ar, &v, E_), AVK_ERR_MALFORMED);
        /* invalid UTF-8 in the string */
        buf[at] = 0x02;
        buf[at + 2] = 0xff;
        avk_reader_init_memory(&r, buf, g.rec_len[1]);
        EXPECT("utf8", avk_plan_decode(p, &r, ar, &v, E_), AVK_ERR_MALFORMED);
    }
done:
    avk_arena_free(ar);
    avk_plan_free(p);
    avk_plan_free(pr);
    avk_schema_free(s);
    avk_schema_free(rs);
    return st;
}

static avk_status sc_bad_json(const avk_allocator *a, avk_error *err)
{
    static const char *const bad[] = {
        "{\"id\":1}",
        "{\"id\":1,\"name\":\"a\",\"tags\":[1]}",
        ("{\"id\":1,\"name\":\"a\",\"tags\":[],\"scores\":[],\"ints\":[],\"m\":{},"
         "\"u\":{\"nope\":1}}"),
        "{\"id\":1,\"name\":\"a\",\"tags\":[\"x\",",
        "{\"id\":1,\"zzz\":2}",
    };
    static const avk_status want[] = {AVK_ERR_MALFORMED, AVK_ERR_MALFORMED, AVK_ERR_MALFORMED,
                                      AVK_ERR_MALFORMED, AVK_ERR_MALFORMED};
    avk_schema *s = NULL, *rs = NULL, *ws = NULL;
    avk_arena *ar = NULL;
    avk_plan *p = NULL;
    avk_value v;
    avk_status st = AVK_OK;
    size_t i;
    TRY(parse(g.rec_json, a, &s, err));
    TRY(arena_new(a, &ar, err));
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char what[32];
        snprintf(what, sizeof what, "json %zu", i);
        EXPECT(what, avk_value_read_json(avk_schema_root(s), bad[i], strlen(bad[i]), ar, &v, E_),
               want[i]);
        avk_arena_reset(ar);
    }
    /* a string that is not UTF-8, written as JSON: an error with its path */
    {
        avk_writer w;
        static const char bad_utf8[] = "\"\\u00ff\"";
        TRY(parse("\"bytes\"", a, &ws, err));
        TRY(avk_value_read_json(avk_schema_root(ws), bad_utf8, strlen(bad_utf8), ar, &v, err));
        TRY(parse("\"string\"", a, &rs, err));
        v.type = avk_schema_root(rs); /* bytes viewed as a string: 0xff alone */
        TRY(mwriter(&w, a, err));
        {
            avk_error e_;
            memset(&e_, 0, sizeof e_);
            st = expect("json write utf8", avk_value_write_json(&v, 0, &w, &e_),
                        AVK_ERR_MALFORMED, &e_);
            avk_writer_destroy(&w);
            if (st != AVK_OK) {
                *err = e_;
                goto done;
            }
        }
    }
    /* unresolvable schemas */
    {
        avk_schema *x = NULL;
        avk_plan_options o;
        avk_schema_free(ws);
        ws = NULL;
        TRY(parse("{\"type\":\"record\",\"name\":\"A\",\"fields\":[{\"name\":\"a\",\"type\":"
                  "\"string\"}]}",
                  a, &x, err));
        ws = x;
        avk_schema_free(rs);
        rs = NULL;
        TRY(parse("{\"type\":\"record\",\"name\":\"A\",\"fields\":[{\"name\":\"a\",\"type\":"
                  "\"int\"},{\"name\":\"b\",\"type\":\"long\"}]}",
                  a, &rs, err));
        avk_plan_options_init(&o);
        o.allocator = a;
        EXPECT("resolve", avk_plan_new_resolving(avk_schema_root(ws), avk_schema_root(rs), &o,
                                                 &p, E_),
               AVK_ERR_RESOLUTION);
        EXPECT("compat", avk_schema_check_compat(avk_schema_root(ws), avk_schema_root(rs),
                                                 compat_cb, NULL, E_),
               AVK_ERR_RESOLUTION);
        EXPECT("resolvable", avk_schema_check_resolvable(avk_schema_root(ws),
                                                         avk_schema_root(rs), compat_cb, NULL,
                                                         E_),
               AVK_ERR_RESOLUTION);
    }
done:
    avk_plan_free(p);
    avk_arena_free(ar);
    avk_schema_free(s);
    avk_schema_free(rs);
    avk_schema_free(ws);
    return st;
}

/* A damaged file (block 1's sync marker wrong, then cut in block 2), read
 * strictly (records of block 0, then SYNC), with SKIP_BAD_BLOCKS (as
 * `avrokit repair`), with threads, and indexed. */
static uint8_t *g_damaged;
static size_t g_damaged_len;

static void make_damaged(size_t ci)
{
    avk_file_reader *fr;
    avk_file_block blk;
    int more, k = 0;
    free(g_damaged);
    g_damaged = (uint8_t *)malloc(g.file_len[ci]);
    memcpy(g_damaged, g.file[ci], g.file_len[ci]);
    g_damaged_len = g.file_len[ci];
    AVKT_OK(avk_file_reader_open_memory(g.file[ci], g.file_len[ci], NULL, &fr, NULL));
    while (1) {
        AVKT_OK(avk_file_reader_next_block(fr, &blk, &more, NULL));
        if (!more)
            break;
        if (k == 1)
            g_damaged[blk.end - 3] ^= 0x55; /* its sync marker */
        if (k == 2)
            g_damaged_len = (size_t)blk.offset + 3 + blk.size / 2;
        k++;
    }
    avk_file_reader_free(fr);
}

static void skip_cb(void *ctx, const avk_error *e, uint64_t from, uint64_t to)
{
    (void)ctx;
    out_fmt("skip %s from %llu to %llu: %s\n", avk_status_name(e->status),
            (unsigned long long)from, (unsigned long long)to, e->message);
}

static avk_status read_damaged(const avk_file_reader_options *ro, avk_arena *ar, const char *what,
                               avk_status want, avk_error *err)
{
    avk_file_reader *fr = NULL;
    avk_status st = AVK_OK;
    avk_value v;
    int more = 1;
    TRY(avk_file_reader_open_memory(g_damaged, g_damaged_len, ro, &fr, err));
    while (1) {
        avk_error e_;
        memset(&e_, 0, sizeof e_);
        st = avk_file_reader_next(fr, ar, &v, &more, &e_);
        if (st != AVK_OK) {
            st = expect(what, st, want, &e_);
            if (st != AVK_OK)
                *err = e_;
            break;
        }
        if (!more)
            break;
        out_value(&v);
        avk_arena_reset(ar);
    }
done:
    avk_file_reader_free(fr);
    return st;
}

static avk_status sc_bad_file(const avk_allocator *inner, avk_error *err)
{
    avkt_locked_alloc la;
    const avk_allocator *a;
    avk_file_reader_options ro;
    avk_file_index *idx = NULL;
    avk_arena *ar = NULL;
    avk_status st = AVK_OK;
    unsigned th;
    avkt_locked_alloc_init(&la, inner);
    a = &la.allocator;
    TRY(arena_new(a, &ar, err));
    /* no threads; read-ahead; decoding ahead */
    for (th = 0; th < 3; th++) {
        unsigned ahead = th == 2 ? AVK_FILE_DECODE_AHEAD : 0;
        ropts(&ro, a, th ? 2 : 0, ahead);
        TRY(read_damaged(&ro, ar, "strict", AVK_ERR_SYNC, err));
        ropts(&ro, a, th ? 2 : 0, AVK_FILE_SKIP_BAD_BLOCKS | ahead);
        ro.on_skip = skip_cb;
        TRY(read_damaged(&ro, ar, "skipping", AVK_ERR_TRUNCATED, err));
    }
    ropts(&ro, a, 0, 0);
    EXPECT("index", avk_file_index_build_memory(g_damaged, g_damaged_len, &ro, &idx, E_),
           AVK_ERR_SYNC);
    assert_null(idx);
done:
    avk_file_index_free(idx);
    avk_arena_free(ar);
    pthread_mutex_destroy(&la.mu);
    return st;
}

/* As the CLI's concat and recodec: blocks copied (append_block) to a
 * writer on a descriptor, records read and written with another codec;
 * the index built from the descriptor; FILE * readers and writers. */
static avk_status sc_copy(const avk_allocator *a, avk_error *err)
{
    avk_file_reader_options ro;
    avk_file_writer_options wo;
    avk_file_reader *fr = NULL;
    avk_file_writer *fw = NULL;
    avk_file_index *idx = NULL;
    avk_arena *ar = NULL;
    avk_status st = AVK_OK;
    avk_file_block blk;
    avk_value v;
    int more, fd = -1, k;
    FILE *fp = NULL;
    fd = open(g_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    assert_true(fd >= 0);
    TRY(arena_new(a, &ar, err));
    ropts(&ro, a, 0, 0);
    TRY(avk_file_reader_open_memory(g.file[g_codec_index()], g.file_len[g_codec_index()], &ro,
                                    &fr, err));
    wopts(&wo, a, 0);
    wo.meta = NULL;
    wo.meta_count = 0;
    TRY(avk_file_writer_open_fd(fd, avk_file_reader_schema(fr), &wo, &fw, err));
    for (k = 0; k < 2; k++) { /* concat: the file twice */
        TRY(avk_file_reader_seek_block(fr, avk_file_reader_header_size(fr), err));
        while (1) {
            TRY(avk_file_reader_next_block(fr, &blk, &more, err));
            if (!more)
                break;
            TRY(avk_file_writer_append_block(fw, blk.count, blk.data, blk.size, err));
        }
    }
    st = avk_file_writer_close(fw, err);
    fw = NULL;
    if (st != AVK_OK)
        goto done;
    avk_file_reader_free(fr);
    fr = NULL;
    lseek(fd, 0, SEEK_SET);
    TRY(avk_file_index_build_fd(fd, &ro, &idx, err));
    out_fmt("copied %llu records\n", (unsigned long long)avk_file_index_records(idx));
    lseek(fd, 0, SEEK_SET);
    TRY(avk_file_reader_open_fd(fd, &ro, &fr, err));
    /* recodec: to deflate through a FILE * writer */
    {
        avk_writer w;
        int wi = 0;
        avk_writer_options o;
        fp = tmpfile();
        assert_non_null(fp);
        avk_writer_options_init(&o);
        o.buffer_size = 32;
        o.allocator = a;
        st = avk_writer_init_file(&w, fp, &o, err);
        if (st == AVK_OK) {
            wi = 1;
            while (1) {
                st = avk_file_reader_next(fr, ar, &v, &more, err);
                if (st != AVK_OK || !more)
                    break;
                st = avk_plan_encode(avk_file_reader_plan(fr), &v, &w, err);
                if (st != AVK_OK)
                    break;
                avk_arena_reset(ar);
            }
            if (st == AVK_OK)
                st = avk_writer_flush(&w, err);
        }
        if (wi)
            avk_writer_destroy(&w);
        if (st != AVK_OK)
            goto done;
        out_fmt("recoded %ld bytes\n", ftell(fp));
        rewind(fp);
        {
            avk_reader r;
            avk_reader_options o2;
            int i;
            avk_reader_options_init(&o2);
            o2.buffer_size = 16;
            o2.allocator = a;
            TRY(avk_reader_init_file(&r, fp, &o2, err));
            for (i = 0; i < 2 * N_RECORDS && st == AVK_OK; i++) {
                st = avk_plan_decode(avk_file_reader_plan(fr), &r, ar, &v, err);
                if (st == AVK_OK)
                    out_value(&v);
                avk_arena_reset(ar);
            }
            avk_reader_destroy(&r);
        }
    }
done:
    if (fp)
        fclose(fp);
    avk_file_writer_free(fw);
    avk_file_reader_free(fr);
    avk_file_index_free(idx);
    avk_arena_free(ar);
    close(fd);
    unlink(g_path);
    return st;
}

/* Columns through a work function on 2 threads (avk_columns_decode_records,
 * one column set per slot), as the Python package reads. */
typedef struct col_work {
    avk_columns *cols[8];
    const avk_type *t;
    const avk_allocator *a;
} col_work;

static avk_status col_work_fn(void *ctx, unsigned slot, avk_file_records *records,
                              avk_error *err)
{
    col_work *cw = (col_work *)ctx;
    uint64_t done_n;
    if (slot >= 8)
        fail_msg("slot %u", slot);
    if (!cw->cols[slot]) {
        avk_columns_options co;
        avk_columns_options_init(&co);
        co.allocator = cw->a;
        avk_status st = avk_columns_new(cw->t, &co, &cw->cols[slot], err);
        if (st != AVK_OK)
            return st;
    }
    avk_columns_clear(cw->cols[slot]);
    return avk_columns_decode_records(cw->cols[slot], records, &done_n, err);
}

static avk_status sc_columns_work(const avk_allocator *inner, avk_error *err)
{
    avkt_locked_alloc la;
    avk_file_reader_options ro;
    avk_file_reader *fr = NULL;
    avk_status st = AVK_OK;
    col_work cw;
    size_t i;
    avkt_locked_alloc_init(&la, inner);
    memset(&cw, 0, sizeof cw);
    cw.a = &la.allocator;
    ropts(&ro, &la.allocator, 2, 0);
    ro.work = col_work_fn;
    ro.work_ctx = &cw;
    TRY(avk_file_reader_open_memory(g.file[3], g.file_len[3], &ro, &fr, err));
    cw.t = avk_schema_root(avk_file_reader_schema(fr));
    while (1) {
        unsigned slot;
        int64_t recs;
        int more;
        TRY(avk_file_reader_next_work(fr, &slot, &recs, &more, err));
        if (!more)
            break;
        out_fmt("slot rows %llu\n", (unsigned long long)avk_columns_length(cw.cols[slot]));
    }
done:
    avk_file_reader_free(fr);
    for (i = 0; i < 8; i++)
        avk_columns_free(cw.cols[i]);
    pthread_mutex_destroy(&la.mu);
    return st;
}

/* Deep values: a 300-node linked list (600 levels) through every walker
 * that keeps an explicit stack (JSON read and write, encode, decode, skip,
 * resolve, builder), so the stacks grow past their inline room. */
#define DEEP_N 300

static void make_deep_json(void)
{
    size_t cap = DEEP_N * 40 + 64, len = 0;
    int i;
    g_deep_json = (char *)malloc(cap);
    for (i = 0; i < DEEP_N; i++)
        len += (size_t)snprintf(g_deep_json + len, cap - len, "{\"v\":%d,\"next\":%s", i,
                                i + 1 < DEEP_N ? "{\"List\":" : "null");
    for (i = 0; i < DEEP_N; i++)
        len += (size_t)snprintf(g_deep_json + len, cap - len, "%s", i + 1 < DEEP_N ? "}}" : "}");
}

static avk_status sc_deep(const avk_allocator *a, avk_error *err)
{
    avk_schema *s = NULL;
    avk_plan *p = NULL, *pr = NULL;
    avk_arena *ar = NULL;
    avk_builder *b = NULL;
    avk_writer w, jw;
    int wi = 0, jwi = 0, i;
    avk_value v, back;
    avk_reader r;
    avk_status st = AVK_OK;
    size_t len, len1;
    const uint8_t *bytes;
    TRY(parse(g.list_json, a, &s, err));
    TRY(plan_new(avk_schema_root(s), 0, 0, a, &p, err));
    {
        avk_plan_options o;
        avk_plan_options_init(&o);
        o.allocator = a;
        TRY(avk_plan_new_resolving(avk_schema_root(s), avk_schema_root(s), &o, &pr, err));
    }
    TRY(arena_new(a, &ar, err));
    TRY(avk_value_read_json(avk_schema_root(s), g_deep_json, strlen(g_deep_json), ar, &v, err));
    TRY(mwriter(&w, a, err));
    wi = 1;
    TRY(avk_plan_encode(p, &v, &w, err));
    bytes = avk_writer_data(&w, &len1);
    avk_reader_init_memory(&r, bytes, len1);
    TRY(avk_plan_decode(p, &r, ar, &back, err));
    if (!avk_value_equal(&v, &back))
        fail_msg("deep: decoded value differs");
    avk_reader_init_memory(&r, bytes, len1);
    TRY(avk_plan_skip(p, &r, err));
    avk_reader_init_memory(&r, bytes, len1);
    TRY(avk_plan_decode(pr, &r, ar, &back, err));
    TRY(mwriter(&jw, a, err));
    jwi = 1;
    TRY(avk_value_write_json(&back, 0, &jw, err));
    out_writer(&jw);
    /* the builder writes the same list after it */
    TRY(avk_builder_new(p, &w, a, &b, err));
    for (i = 0; i < DEEP_N; i++) {
        TRY(avk_builder_int(b, i, err));
        TRY(avk_builder_union(b, i + 1 < DEEP_N ? 1 : 0, err));
    }
    TRY(avk_builder_null(b, err));
    bytes = avk_writer_data(&w, &len);
    if (len != 2 * len1 || memcmp(bytes, bytes + len1, len1) != 0)
        fail_msg("deep: the builder's bytes differ");
    out_fmt("deep %zu bytes\n", len1);
done:
    avk_builder_free(b);
    if (wi)
        avk_writer_destroy(&w);
    if (jwi)
        avk_writer_destroy(&jw);
    avk_arena_free(ar);
    avk_plan_free(p);
    avk_plan_free(pr);
    avk_schema_free(s);
    return st;
}

/* ------------------------------------------------------------------ */
/* The harness                                                         */
/* ------------------------------------------------------------------ */

typedef avk_status (*scenario_fn)(const avk_allocator *a, avk_error *err);

/* With AVKT_TRACE_TOLERATED set, a run where a failure was injected but the
 * scenario succeeded is run again with the failing call's stack printed
 * (to see which allocation the library may do without). */
void __sanitizer_print_stack_trace(void) __attribute__((weak));
static int g_trace;
static avkt_failalloc *g_trace_fa;

static void *tr_alloc(void *ctx, size_t n)
{
    void *p = g_trace_fa->allocator.alloc(g_trace_fa, n);
    (void)ctx;
    if (!p && g_trace && __sanitizer_print_stack_trace)
        __sanitizer_print_stack_trace();
    return p;
}

static void *tr_realloc(void *ctx, void *q, size_t o, size_t n)
{
    void *p = g_trace_fa->allocator.realloc(g_trace_fa, q, o, n);
    (void)ctx;
    if (!p && g_trace && __sanitizer_print_stack_trace)
        __sanitizer_print_stack_trace();
    return p;
}

static void tr_free(void *ctx, void *q, size_t n)
{
    (void)ctx;
    g_trace_fa->allocator.free(g_trace_fa, q, n);
}

static const avk_allocator g_tracer = {tr_alloc, tr_realloc, tr_free, NULL};

static long g_total_injected, g_total_runs;
static long g_left_none, g_left_empty, g_left_prefix;

/* After a failed path scenario: the file is absent, empty, or reads
 * cleanly as the header and whole blocks (no torn block). Then removed. */
static void check_path_leftover(const char *name, long n)
{
    struct stat sb;
    avk_file_reader *fr = NULL;
    avk_arena *ar = NULL;
    avk_error e;
    avk_status st;
    avk_value v;
    int more = 1, recs = 0;
    if (stat(g_path, &sb) != 0 || sb.st_size == 0) {
        if (stat(g_path, &sb) != 0)
            g_left_none++;
        else
            g_left_empty++;
        unlink(g_path);
        return;
    }
    g_left_prefix++;
    st = avk_file_reader_open_path(g_path, NULL, &fr, &e);
    if (st != AVK_OK)
        fail_msg("%s, failing allocation %ld: left %s (%lld bytes) that does not open: %s %s",
                 name, n, g_path, (long long)sb.st_size, avk_status_name(st), e.message);
    AVKT_OK(avk_arena_new(NULL, &ar, NULL));
    while (more) {
        st = avk_file_reader_next(fr, ar, &v, &more, &e);
        if (st != AVK_OK)
            fail_msg("%s, failing allocation %ld: left a torn file: record %d: %s %s", name, n,
                     recs, avk_status_name(st), e.message);
        recs += more;
        avk_arena_reset(ar);
    }
    avk_arena_free(ar);
    avk_file_reader_free(fr);
    unlink(g_path);
}

/* Open descriptors: a failed open_path must close what it opened. */
static int count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    int n = 0;
    if (!d)
        return -1;
    while ((e = readdir(d)) != NULL)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static int g_fds_before;

static void check_counters(const char *name, long n, const avkt_failalloc *fa)
{
    int fds = count_fds();
    if (fds != g_fds_before)
        fail_msg("%s, failing allocation %ld: %d descriptors open, %d before", name, n, fds,
                 g_fds_before);
    if (fa->live_blocks != 0 || fa->live_bytes != 0 || fa->size_mismatches != 0 ||
        fa->bad_frees != 0)
        fail_msg("%s, failing allocation %ld%s: %ld blocks (%zu bytes) leaked, %ld size "
                 "mismatches, %ld bad frees",
                 name, n, fa->fail_all_after ? " and all after" : "", fa->live_blocks,
                 fa->live_bytes, fa->size_mismatches, fa->bad_frees);
}

/* One run of the scenario with fail_at = n (0: none). Returns its status;
 * the output is left in g_out. */
static avk_status run_once(scenario_fn fn, long n, int all_after, avkt_failalloc *fa,
                           avk_error *err)
{
    avk_status st;
    g_out.len = 0;
    g_fds_before = count_fds();
    avkt_failalloc_init(fa, n);
    fa->fail_all_after = all_after;
    memset(err, 0, sizeof *err);
    if (g_trace) {
        g_trace_fa = fa;
        st = fn(&g_tracer, err);
    } else {
        st = fn(&fa->allocator, err);
    }
    g_total_runs++;
    g_total_injected += fa->failures;
    return st;
}

static void check_failed(const char *name, long n, avk_status st, const avk_error *err,
                         const avkt_failalloc *fa)
{
    if (st != AVK_ERR_NO_MEMORY)
        fail_msg("%s, failing allocation %ld%s: %s (%s) instead of NO_MEMORY", name, n,
                 fa->fail_all_after ? " and all after" : "", avk_status_name(st), err->message);
    if (err->message[0] == 0 || err->status != st)
        fail_msg("%s, failing allocation %ld: status %s with err->status %s, message \"%s\"",
                 name, n, avk_status_name(st), avk_status_name(err->status), err->message);
}

static void run_scenario(const char *name, scenario_fn fn)
{
    avkt_failalloc fa;
    avk_error err;
    avk_status st;
    char *want;
    size_t want_len;
    long base_calls, n, cap, injected_before = g_total_injected;
    int done = 0, tolerated = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    st = run_once(fn, 0, 0, &fa, &err);
    if (st != AVK_OK)
        fail_msg("%s: unfailed run: %s (%s)", name, avk_status_name(st), err.message);
    check_counters(name, 0, &fa);
    want = (char *)malloc(g_out.len + 1);
    memcpy(want, g_out.p ? g_out.p : "", g_out.len);
    want_len = g_out.len;
    if (getenv("AVKT_DUMP"))
        fprintf(stderr, "%s output:\n%.*s\n", name, (int)want_len, want);
    base_calls = fa.calls;
    /* Threads make the count vary a little between runs. */
    cap = base_calls * 2 + 64;
    for (n = 1; n <= cap && !done; n++) {
        int path = 0;
        st = run_once(fn, n, 0, &fa, &err);
        path = strstr(name, "path") != NULL;
        check_counters(name, n, &fa);
        if (st != AVK_OK) {
            check_failed(name, n, st, &err, &fa);
            if (path)
                check_path_leftover(name, n);
            continue;
        }
        /* Success: either nothing failed (the end), or the failure was
         * one the library documents as tolerated (read-ahead memory,
         * a sidecar that could not be saved). Either way: the same output. */
        if (g_out.len != want_len || memcmp(g_out.p, want, want_len) != 0)
            fail_msg("%s, failing allocation %ld (%ld failures): AVK_OK with other output:\n"
                     "%s\n--- expected ---\n%s",
                     name, n, fa.failures, g_out.p, want);
        if (fa.failures == 0) {
            done = 1;
        } else {
            tolerated++;
            if (getenv("AVKT_TRACE_TOLERATED")) {
                print_message("%s: allocation %ld failed, tolerated:\n", name, n);
                g_trace = 1;
                (void)run_once(fn, n, 0, &fa, &err);
                g_trace = 0;
            }
        }
    }
    if (!done)
        fail_msg("%s: still failing after %ld allocations (%ld unfailed)", name, cap, base_calls);
    /* Every allocation from some point on failing. */
    {
        long points[3] = {1, base_calls / 2 + 1, base_calls};
        int i;
        for (i = 0; i < 3; i++) {
            st = run_once(fn, points[i], 1, &fa, &err);
            check_counters(name, points[i], &fa);
            if (st != AVK_OK)
                check_failed(name, points[i], st, &err, &fa);
            else if (g_out.len != want_len || memcmp(g_out.p, want, want_len) != 0)
                fail_msg("%s, all after %ld failing: AVK_OK with other output", name,
                         points[i]);
            if (strstr(name, "path"))
                unlink(g_path);
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    print_message("  %-28s %4ld allocations, %5ld injected failures, %d tolerated, %.2f s\n",
                  name, base_calls, g_total_injected - injected_before, tolerated,
                  (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    free(want);
}

#define SIMPLE_TEST(fn)                                                                    \
    static void test_##fn(void **state)                                                    \
    {                                                                                      \
        (void)state;                                                                       \
        run_scenario(#fn, fn);                                                             \
    }

SIMPLE_TEST(sc_arena)
SIMPLE_TEST(sc_schema)
SIMPLE_TEST(sc_plan)
SIMPLE_TEST(sc_resolve)
SIMPLE_TEST(sc_decode)
SIMPLE_TEST(sc_encode)
SIMPLE_TEST(sc_builder)
SIMPLE_TEST(sc_json_read)
SIMPLE_TEST(sc_json_write)
SIMPLE_TEST(sc_codec)
SIMPLE_TEST(sc_columns)

static void test_sc_io(void **state)
{
    (void)state;
    snprintf(g_path, sizeof g_path, "%s/io.bin", g.dir);
    run_scenario("sc_io", sc_io);
}

/* The container scenarios, once per codec. */
static void per_codec(const char *what, scenario_fn fn, const char *file)
{
    size_t ci;
    for (ci = 0; ci < N_CODECS; ci++) {
        char name[64];
        g_codec = ALL_CODECS[ci];
        if (!avk_codec_available(g_codec))
            continue;
        snprintf(name, sizeof name, "%s/%s", what, avk_codec_name(g_codec));
        snprintf(g_path, sizeof g_path, "%s/%s", g.dir, file);
        run_scenario(name, fn);
        unlink(g_path);
    }
}

static void test_file_mem(void **state)
{
    (void)state;
    per_codec("sc_file_mem", sc_file_mem, "mem.avro");
}

static void test_file_path(void **state)
{
    (void)state;
    per_codec("sc_file_path", sc_file_path, "path.avro");
}

static void test_file_threads(void **state)
{
    (void)state;
    per_codec("sc_file_threads", sc_file_threads, "threads.avro");
}

static void test_file_index(void **state)
{
    char side[200];
    (void)state;
    snprintf(g_path, sizeof g_path, "%s/index.avro", g.dir);
    run_scenario("sc_file_index", sc_file_index);
    avk_file_index_sidecar_name(g_path, side, sizeof side);
    unlink(side);
    unlink(g_path);
}

SIMPLE_TEST(sc_bad_schema)
SIMPLE_TEST(sc_deep)
SIMPLE_TEST(sc_bad_decode)
SIMPLE_TEST(sc_bad_json)
SIMPLE_TEST(sc_columns_work)

static void test_bad_file(void **state)
{
    size_t ci;
    (void)state;
    for (ci = 0; ci < N_CODECS; ci++) {
        char name[64];
        if (!avk_codec_available(ALL_CODECS[ci]))
            continue;
        make_damaged(ci);
        snprintf(name, sizeof name, "sc_bad_file/%s", avk_codec_name(ALL_CODECS[ci]));
        run_scenario(name, sc_bad_file);
    }
    free(g_damaged);
    g_damaged = NULL;
}

static void test_copy(void **state)
{
    (void)state;
    per_codec("sc_copy", sc_copy, "copy.avro");
}

static void test_summary(void **state)
{
    (void)state;
    print_message("alloc_fail: %ld runs, %ld injected failures in all; failed path writes left "
                  "no file %ld times, an empty one %ld, whole blocks only %ld\n",
                  g_total_runs, g_total_injected, g_left_none, g_left_empty, g_left_prefix);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(avkt_test_kernel_choice),
        cmocka_unit_test(test_sc_arena),
        cmocka_unit_test(test_sc_schema),
        cmocka_unit_test(test_sc_plan),
        cmocka_unit_test(test_sc_resolve),
        cmocka_unit_test(test_sc_decode),
        cmocka_unit_test(test_sc_encode),
        cmocka_unit_test(test_sc_builder),
        cmocka_unit_test(test_sc_json_read),
        cmocka_unit_test(test_sc_json_write),
        cmocka_unit_test(test_sc_codec),
        cmocka_unit_test(test_sc_io),
        cmocka_unit_test(test_file_mem),
        cmocka_unit_test(test_file_path),
        cmocka_unit_test(test_file_threads),
        cmocka_unit_test(test_file_index),
        cmocka_unit_test(test_sc_columns),
        cmocka_unit_test(test_sc_deep),
        cmocka_unit_test(test_sc_bad_schema),
        cmocka_unit_test(test_sc_bad_decode),
        cmocka_unit_test(test_sc_bad_json),
        cmocka_unit_test(test_bad_file),
        cmocka_unit_test(test_copy),
        cmocka_unit_test(test_sc_columns_work),
        cmocka_unit_test(test_summary),
    };
    if (getenv("AVKT_FILTER"))
        cmocka_set_test_filter(getenv("AVKT_FILTER"));
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
