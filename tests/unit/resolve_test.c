/* Schema resolution (resolve.h): every rule checked with exact reader values, errors at compile and read time, skip, truncation, compatibility checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "avkt.h"
#include "io.h"

/* ---- helpers ---------------------------------------------------------------------------- */

/* Table loops run every case and fail once at the end with a count, so one
 * report shows every broken rule: a failure inside a case prints its
 * message and jumps back to the loop (memory of the failed case leaks). */
static jmp_buf *case_jmp;

__attribute__((format(printf, 1, 2))) static void tfail(const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (case_jmp) {
        print_error("CASE FAILED: %s\n", msg);
        longjmp(*case_jmp, 1);
    }
    fail_msg("%s", msg);
}

#define CHECK_EQ(a, b)                                                                          \
    do {                                                                                        \
        uint64_t chk_a_ = (uint64_t)(a), chk_b_ = (uint64_t)(b);                                \
        if (chk_a_ != chk_b_)                                                                   \
            tfail("%s:%d: %s == %llu, expected %s == %llu", __FILE__, __LINE__, #a,             \
                  (unsigned long long)chk_a_, #b, (unsigned long long)chk_b_);                   \
    } while (0)

#define CHECK_STATUS(got, want)                                                                 \
    do {                                                                                        \
        avk_status chk_g_ = (got), chk_w_ = (want);                                             \
        if (chk_g_ != chk_w_)                                                                   \
            tfail("%s:%d: %s returned %s, expected %s", __FILE__, __LINE__, #got,               \
                  avk_status_name(chk_g_), avk_status_name(chk_w_));                            \
    } while (0)

/* Runs run(i) for i < n, each under case_jmp; fails with how many failed. */
static void run_table(const char *what, size_t n, void (*run)(size_t))
{
    /* volatile: they live across longjmp. */
    volatile size_t i;
    volatile int failed = 0;
    for (i = 0; i < n; i++) {
        jmp_buf jb;
        if (setjmp(jb) == 0) {
            case_jmp = &jb;
            run(i);
        } else {
            failed++;
        }
        case_jmp = NULL;
    }
    if (failed)
        fail_msg("%s: %d of %zu cases failed (CASE FAILED lines above)", what, failed, n);
    print_message("%s: %zu cases pass\n", what, n);
}

static avk_arena *arena_new(void)
{
    avk_arena *a = NULL;
    AVKT_OK(avk_arena_new(NULL, &a, NULL));
    return a;
}

/* malloc'd copy of avkt_q(sq): the table holds several texts at once. */
static char *q_dup(const char *sq)
{
    const char *t = avkt_q(sq);
    size_t n = strlen(t);
    char *c = (char *)malloc(n + 1);
    assert_non_null(c);
    memcpy(c, t, n + 1);
    return c;
}

/* malloc'd Avro JSON text of v (compact). */
static char *json_of(const avk_value *v)
{
    avk_writer w;
    avk_error err;
    avk_status st;
    size_t n;
    const uint8_t *d;
    char *out;
    AVKT_OK(avk_writer_init_memory(&w, NULL, NULL));
    st = avk_value_write_json(v, 0, &w, &err);
    if (st != AVK_OK)
        tfail("avk_value_write_json returned %s: %s", avk_status_name(st), err.message);
    d = avk_writer_data(&w, &n);
    out = (char *)malloc(n + 1);
    assert_non_null(out);
    memcpy(out, d, n);
    out[n] = '\0';
    avk_writer_destroy(&w);
    return out;
}

/* A value of t from Avro JSON text (already with double quotes). */
static void value_of(avk_value *v, const avk_type *t, const char *json, avk_arena *a,
                     const char *what)
{
    avk_error err;
    avk_status st = avk_value_read_json(t, json, strlen(json), a, v, &err);
    if (st != AVK_OK)
        tfail("%s: test value %s does not read: %s (%s)", what, json, err.message, err.path);
}

/* The bytes of v encoded by the plain plan of its type (options as given). */
static uint8_t *encode_with(const avk_type *t, const avk_value *v, unsigned flags,
                            size_t block_items, size_t *len)
{
    avk_plan *p = avkt_plan_new(t, flags, NULL, block_items);
    avk_writer w;
    avk_error err;
    avk_status st;
    const uint8_t *d;
    uint8_t *out;
    AVKT_OK(avk_writer_init_memory(&w, NULL, NULL));
    st = avk_plan_encode(p, v, &w, &err);
    if (st != AVK_OK)
        tfail("encoding the writer value: %s: %s", avk_status_name(st), err.message);
    d = avk_writer_data(&w, len);
    out = (uint8_t *)malloc(*len + 1);
    assert_non_null(out);
    memcpy(out, d, *len);
    avk_writer_destroy(&w);
    avk_plan_free(p);
    return out;
}

static avk_plan *resolving_with(const avk_type *w, const avk_type *r, unsigned flags,
                                const char *what)
{
    avk_plan_options o;
    avk_plan *p = NULL;
    avk_error err;
    avk_status st;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.flags = flags;
    memset(&err, 0, sizeof err);
    st = avk_plan_new_resolving(w, r, &o, &p, &err);
    if (st != AVK_OK)
        tfail("%s: avk_plan_new_resolving returned %s: %s (path %s)", what,
                 avk_status_name(st), err.message, err.path);
    assert_non_null(p);
    CHECK_EQ(avk_plan_is_resolving(p), 1);
    return p;
}

/* Every type reachable from a schema's root: decoded values must point
 * into the reader schema only. */
typedef struct type_set {
    const avk_type **t;
    size_t n, cap;
} type_set;

static int set_has(const type_set *s, const avk_type *t)
{
    size_t i;
    for (i = 0; i < s->n; i++)
        if (s->t[i] == t)
            return 1;
    return 0;
}

static void set_collect(type_set *s, const avk_type *t)
{
    size_t i;
    if (!t || set_has(s, t))
        return;
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->t = (const avk_type **)realloc((void *)s->t, s->cap * sizeof *s->t);
        assert_non_null(s->t);
    }
    s->t[s->n++] = t;
    switch (avk_type_kind(t)) {
    case AVK_RECORD:
        for (i = 0; i < avk_type_field_count(t); i++)
            set_collect(s, avk_field_type(avk_type_field(t, i)));
        break;
    case AVK_ARRAY:
        set_collect(s, avk_type_items(t));
        break;
    case AVK_MAP:
        set_collect(s, avk_type_values(t));
        break;
    case AVK_UNION:
        for (i = 0; i < avk_type_branch_count(t); i++)
            set_collect(s, avk_type_branch(t, i));
        break;
    default:
        break;
    }
}

static void check_types_in(const avk_value *v, const type_set *s, const char *what)
{
    size_t i;
    if (!set_has(s, v->type))
        tfail("%s: a decoded %s value's type is not a node of the reader schema", what,
                 v->type ? avk_kind_name(avk_type_kind(v->type)) : "(null type)");
    switch (avk_type_kind(v->type)) {
    case AVK_RECORD:
        for (i = 0; i < avk_type_field_count(v->type); i++)
            check_types_in(&v->u.fields[i], s, what);
        break;
    case AVK_UNION:
        if (v->u.branch.index >= avk_type_branch_count(v->type))
            tfail("%s: union branch %u out of range", what, (unsigned)v->u.branch.index);
        CHECK_EQ((uintptr_t)v->u.branch.value->type,
                 (uintptr_t)avk_type_branch(v->type, v->u.branch.index));
        check_types_in(v->u.branch.value, s, what);
        break;
    case AVK_ARRAY: {
        size_t item_size;
        if (!avk_array_is_typed(v->type, &item_size))
            for (i = 0; i < v->u.array.count; i++)
                check_types_in(&((const avk_value *)v->u.array.items)[i], s, what);
        break;
    }
    case AVK_MAP:
        for (i = 0; i < v->u.map.count; i++)
            check_types_in(&v->u.map.values[i], s, what);
        break;
    case AVK_ENUM:
        if (v->u.index >= avk_type_symbol_count(v->type))
            tfail("%s: enum index %u out of range", what, (unsigned)v->u.index);
        break;
    default:
        break;
    }
}

/* A reader over data: 0 memory, 1 stream with 1-byte refills, 2 stream. */
typedef struct input {
    avk_reader r;
    avkt_source src;
    int stream;
} input;

#define HOW_COUNT 3
static const char *const how_names[HOW_COUNT] = {"memory", "stream(1-byte refills)", "stream"};

static void input_open(input *in, const uint8_t *d, size_t n, int how)
{
    in->stream = how != 0;
    if (how == 0) {
        avk_reader_init_memory(&in->r, d, n);
        return;
    }
    avkt_source_init(&in->src, d, n, how == 1 ? 1 : 0);
    AVKT_OK(avk_reader_init_source(&in->r, avkt_source_read, &in->src, NULL, NULL));
}

static void input_close(input *in)
{
    if (in->stream)
        avk_reader_destroy(&in->r);
}

/* ---- the table of successful resolutions ------------------------------------------------ */

/* A writer value (Avro JSON against the writer schema) and the reader
 * value it must become, as avk_value_write_json writes it (compact, reader
 * names for union branches). Schemas and values use ' for ". */
typedef struct rcase {
    const char *name;
    const char *writer;
    const char *reader;
    const char *in;
    const char *want;
} rcase;

#define SUB_W "{'type':'record','name':'Sub','fields':[{'name':'x','type':'int'},{'name':'y','type':{'type':'array','items':'string'}}]}"

/* Writer record with a field of every kind between the two the reader keeps. */
#define SKIP_ALL_W                                                                              \
    "{'type':'record','name':'R','fields':["                                                    \
    "{'name':'keep1','type':'int'},"                                                            \
    "{'name':'s','type':'string'},{'name':'by','type':'bytes'},"                                \
    "{'name':'fx','type':{'type':'fixed','name':'F3','size':3}},"                               \
    "{'name':'n','type':'null'},{'name':'bo','type':'boolean'},{'name':'i','type':'int'},"      \
    "{'name':'l','type':'long'},{'name':'f','type':'float'},{'name':'d','type':'double'},"      \
    "{'name':'e','type':{'type':'enum','name':'E','symbols':['P','Q']}},"                       \
    "{'name':'ai','type':{'type':'array','items':'int'}},"                                      \
    "{'name':'al','type':{'type':'array','items':'long'}},"                                     \
    "{'name':'ad','type':{'type':'array','items':'double'}},"                                   \
    "{'name':'ar','type':{'type':'array','items':" SUB_W "}},"                                  \
    "{'name':'m','type':{'type':'map','values':'string'}},"                                     \
    "{'name':'mr','type':{'type':'map','values':'Sub'}},"                                       \
    "{'name':'u','type':['null','string','Sub','long']},"                                       \
    "{'name':'sub','type':'Sub'},"                                                              \
    "{'name':'keep2','type':'string'}]}"
#define SKIP_ALL_IN                                                                             \
    "{'keep1':-3,'s':'skip me','by':'\\u0000\\u00ff','fx':'abc','n':null,'bo':true,"            \
    "'i':-2147483648,'l':9223372036854775807,'f':1.5,'d':-0.25,'e':'Q',"                        \
    "'ai':[1,-1,300000],'al':[-9223372036854775808,5],'ad':[1.0,2.0],"                          \
    "'ar':[{'x':1,'y':['a','b']},{'x':2,'y':[]}],'m':{'k1':'v1','k2':''},"                      \
    "'mr':{'q':{'x':7,'y':['z']}},'u':{'Sub':{'x':9,'y':['w','ww']}},"                          \
    "'sub':{'x':-1,'y':['deep']},'keep2':'kept'}"

#define LIST_W                                                                                  \
    "{'type':'record','name':'LinkedList','fields':[{'name':'value','type':'int'},"             \
    "{'name':'next','type':['null','LinkedList']}]}"
#define LIST_R                                                                                  \
    "{'type':'record','name':'LinkedList','fields':[{'name':'label','type':'string','default':" \
    "'n'},{'name':'next','type':['null','LinkedList']},{'name':'value','type':'double'}]}"

#define TREE_W                                                                                  \
    "{'type':'record','name':'Tree','fields':[{'name':'v','type':'int'},"                       \
    "{'name':'kids','type':{'type':'array','items':'Tree'}},"                                   \
    "{'name':'extra','type':['null','Tree']}]}"
#define TREE_R                                                                                  \
    "{'type':'record','name':'Tree','fields':[{'name':'kids','type':{'type':'array','items':"   \
    "'Tree'}},{'name':'v','type':'long'}]}"

/* Reader fields from defaults of every type; the writer has only a. */
#define DEFAULTS_R                                                                              \
    "{'type':'record','name':'R','fields':["                                                    \
    "{'name':'a','type':'int'},"                                                                \
    "{'name':'dn','type':'null','default':null},"                                               \
    "{'name':'db','type':'boolean','default':true},"                                            \
    "{'name':'di','type':'int','default':-5},"                                                  \
    "{'name':'dl','type':'long','default':1099511627776},"                                      \
    "{'name':'df','type':'float','default':1.5},"                                               \
    "{'name':'dd','type':'double','default':-2.25},"                                            \
    "{'name':'dby','type':'bytes','default':'\\u00ff\\u0000A'},"                                \
    "{'name':'ds','type':'string','default':'h\\u00e9llo'},"                                    \
    "{'name':'drec','type':{'type':'record','name':'Sub','fields':[{'name':'x','type':'int'},"  \
    "{'name':'y','type':'string'},{'name':'z','type':['null','int']}]},"                        \
    "'default':{'x':1,'y':'z','z':null}},"                                                      \
    "{'name':'dai','type':{'type':'array','items':'int'},'default':[1,2,3]},"                   \
    "{'name':'dad','type':{'type':'array','items':'double'},'default':[0.5,-1]},"               \
    "{'name':'das','type':{'type':'array','items':'string'},'default':['p','q']},"              \
    "{'name':'dar','type':{'type':'array','items':'Sub'},'default':[{'x':2,'y':'w','z':null}]},"   \
    "{'name':'dm','type':{'type':'map','values':'long'},'default':{'k':7,'j':-8}},"             \
    "{'name':'du1','type':['null','int'],'default':null},"                                      \
    "{'name':'du2','type':['int','null'],'default':5},"                                         \
    "{'name':'du3','type':['Sub','null'],'default':{'x':3,'y':'u','z':null}},"                  \
    "{'name':'du4','type':['string','null'],'default':'s'},"                                    \
    "{'name':'dfx','type':{'type':'fixed','name':'F2','size':2},'default':'\\u0000\\u00ff'},"   \
    "{'name':'den','type':{'type':'enum','name':'En','symbols':['A','B','C']},'default':'B'},"  \
    "{'name':'dea','type':{'type':'array','items':'En'},'default':['C','A']},"                  \
    "{'name':'demp','type':{'type':'array','items':'long'},'default':[]},"                      \
    "{'name':'dmemp','type':{'type':'map','values':'string'},'default':{}}]}"
#define DEFAULTS_WANT                                                                           \
    "{'a':42,'dn':null,'db':true,'di':-5,'dl':1099511627776,'df':1.5,'dd':-2.25,"               \
    "'dby':'\xc3\xbf\\u0000A','ds':'h\xc3\xa9llo','drec':{'x':1,'y':'z','z':null},"            \
    "'dai':[1,2,3],'dad':[0.5,-1.0],'das':['p','q'],'dar':[{'x':2,'y':'w','z':null}],"     \
    "'dm':{'k':7,'j':-8},'du1':null,'du2':{'int':5},'du3':{'Sub':{'x':3,'y':'u','z':null}},"    \
    "'du4':{'string':'s'},'dfx':'\\u0000\xc3\xbf','den':'B','dea':['C','A'],'demp':[],"        \
    "'dmemp':{}}"

static const rcase cases[] = {
    /* promotions */
    {"int->long", "'int'", "'long'", "-123456", "-123456"},
    {"int->float (rounds)", "'int'", "'float'", "16777217", "16777216.0"},
    {"int->float small", "'int'", "'float'", "-7", "-7.0"},
    {"int->double", "'int'", "'double'", "2147483647", "2147483647.0"},
    {"long->float (rounds)", "'long'", "'float'", "9007199254740993", "9.007199e+15"},
    {"long->double (rounds)", "'long'", "'double'", "-9007199254740993", "-9007199254740992.0"},
    {"long->double big", "'long'", "'double'", "1099511627776", "1099511627776.0"},
    {"float->double", "'float'", "'double'", "0.1", "0.10000000149011612"},
    {"float->double neg zero", "'float'", "'double'", "-0.0", "-0.0"},
    {"string->bytes", "'string'", "'bytes'", "'h\\u00e9llo'", "'h\xc3\x83\xc2\xa9llo'"},
    {"bytes->string", "'bytes'", "'string'", "'abc'", "'abc'"},
    {"bytes->string utf-8", "'bytes'", "'string'", "'h\\u00c3\\u00a9llo'", "'h\xc3\xa9llo'"},
    {"int->int", "'int'", "'int'", "7", "7"},
    {"null->null", "'null'", "'null'", "null", "null"},
    /* promotions inside arrays (typed arrays) */
    {"array<int>->array<long>", "{'type':'array','items':'int'}",
     "{'type':'array','items':'long'}", "[1,-2,2147483647,-2147483648]",
     "[1,-2,2147483647,-2147483648]"},
    {"array<int>->array<double>", "{'type':'array','items':'int'}",
     "{'type':'array','items':'double'}", "[1,-2,2147483647]", "[1.0,-2.0,2147483647.0]"},
    {"array<int>->array<float>", "{'type':'array','items':'int'}",
     "{'type':'array','items':'float'}", "[3,16777217]", "[3.0,16777216.0]"},
    {"array<float>->array<double>", "{'type':'array','items':'float'}",
     "{'type':'array','items':'double'}", "[0.1,-2.5]", "[0.10000000149011612,-2.5]"},
    {"array<long>->array<float>", "{'type':'array','items':'long'}",
     "{'type':'array','items':'float'}", "[9007199254740993,-1]", "[9.007199e+15,-1.0]"},
    {"array<long>->array<double>", "{'type':'array','items':'long'}",
     "{'type':'array','items':'double'}", "[-9007199254740993,4]",
     "[-9007199254740992.0,4.0]"},
    {"array<string>->array<bytes>", "{'type':'array','items':'string'}",
     "{'type':'array','items':'bytes'}", "['a','\\u00e9']", "['a','\xc3\x83\xc2\xa9']"},
    {"array<bytes>->array<string>", "{'type':'array','items':'bytes'}",
     "{'type':'array','items':'string'}", "['a','bc']", "['a','bc']"},
    {"empty array<int>->array<long>", "{'type':'array','items':'int'}",
     "{'type':'array','items':'long'}", "[]", "[]"},
    {"array<array<int>>->array<array<double>>",
     "{'type':'array','items':{'type':'array','items':'int'}}",
     "{'type':'array','items':{'type':'array','items':'double'}}", "[[1],[],[2,3]]",
     "[[1.0],[],[2.0,3.0]]"},
    /* promotions inside maps */
    {"map<int>->map<long>", "{'type':'map','values':'int'}", "{'type':'map','values':'long'}",
     "{'a':1,'b':-2}", "{'a':1,'b':-2}"},
    {"map<float>->map<double>", "{'type':'map','values':'float'}",
     "{'type':'map','values':'double'}", "{'x':0.1}", "{'x':0.10000000149011612}"},
    {"map<long>->map<double>", "{'type':'map','values':'long'}",
     "{'type':'map','values':'double'}", "{'x':3}", "{'x':3.0}"},
    {"map<string>->map<bytes>", "{'type':'map','values':'string'}",
     "{'type':'map','values':'bytes'}", "{'k':'v'}", "{'k':'v'}"},
    {"map<array<int>>->map<array<long>>", "{'type':'map','values':{'type':'array','items':'int'}}",
     "{'type':'map','values':{'type':'array','items':'long'}}", "{'k':[1,2],'j':[]}",
     "{'k':[1,2],'j':[]}"},
    /* unions */
    {"union int branch->long branch", "['null','int']", "['null','long']", "{'int':5}",
     "{'long':5}"},
    {"union null branch", "['null','int']", "['null','long']", "null", "null"},
    {"union reordered + promoted", "['int','string']", "['string','double']", "{'int':3}",
     "{'double':3.0}"},
    {"union reordered string", "['int','string']", "['string','double']", "{'string':'x'}",
     "{'string':'x'}"},
    {"union reordered exact", "['null','string','long']", "['long','null','string']",
     "{'long':-1}", "{'long':-1}"},
    {"union string->bytes branch", "['null','string']", "['bytes','null']", "{'string':'ab'}",
     "{'bytes':'ab'}"},
    {"union->non-union ok branch", "['null','int']", "'long'", "{'int':4}", "4"},
    /* Items stored as nothing still have the writer's bytes to read. */
    {"union->non-union items: array<union> read as array<null>",
     "{'type':'record','name':'R','fields':[{'name':'a','type':{'type':'array','items':['null','int']}},{'name':'b','type':'int'}]}",
     "{'type':'record','name':'R','fields':[{'name':'a','type':{'type':'array','items':'null'}},{'name':'b','type':'int'}]}",
     "{'a':[null,null,null],'b':7}", "{'a':[null,null,null],'b':7}"},
    {"union->non-union string", "['string','null']", "'string'", "{'string':'q'}", "'q'"},
    {"non-union->union promoted", "'int'", "['null','long']", "5", "{'long':5}"},
    {"non-union->union exact first", "'int'", "['long','int']", "7", "{'int':7}"},
    {"non-union->union first promotion", "'int'", "['double','long']", "7", "{'double':7.0}"},
    {"non-union->union string->bytes", "'string'", "['null','bytes']", "'ab'", "{'bytes':'ab'}"},
    {"non-union->union null", "'null'", "['int','null']", "null", "null"},
    {"non-union record->union", "{'type':'record','name':'a.X','fields':[{'name':'i','type':'int'}]}",
     "['null',{'type':'record','name':'b.X','fields':[{'name':'i','type':'long'}]}]", "{'i':1}",
     "{'b.X':{'i':1}}"},
    {"array of unions", "{'type':'array','items':['null','int']}",
     "{'type':'array','items':['null','long']}", "[null,{'int':1},{'int':-2}]",
     "[null,{'long':1},{'long':-2}]"},
    {"map of unions", "{'type':'map','values':['int','null']}",
     "{'type':'map','values':['long','null']}", "{'a':{'int':1},'b':null}",
     "{'a':{'long':1},'b':null}"},
    {"union of arrays", "['null',{'type':'array','items':'int'}]",
     "[{'type':'array','items':'double'},'null']", "{'array':[1,2]}", "{'array':[1.0,2.0]}"},
    {"union of maps", "['null',{'type':'map','values':'int'}]",
     "[{'type':'map','values':'long'},'null']", "{'map':{'a':1}}", "{'map':{'a':1}}"},
    {"union named by namespace", "['null',{'type':'record','name':'one.Rec','fields':[{'name':'a','type':'int'}]}]",
     "[{'type':'record','name':'two.Rec','fields':[{'name':'a','type':'long'}]},'null']",
     "{'one.Rec':{'a':3}}", "{'two.Rec':{'a':3}}"},
    /* records */
    {"record reorder",
     "{'type':'record','name':'R','fields':[{'name':'a','type':'int'},{'name':'b','type':'string'},{'name':'c','type':'long'}]}",
     "{'type':'record','name':'R','fields':[{'name':'c','type':'long'},{'name':'a','type':'int'},{'name':'b','type':'string'}]}",
     "{'a':1,'b':'bee','c':-3}", "{'c':-3,'a':1,'b':'bee'}"},
    {"record skips every kind", SKIP_ALL_W,
     "{'type':'record','name':'R','fields':[{'name':'keep2','type':'string'},{'name':'keep1','type':'long'}]}",
     SKIP_ALL_IN, "{'keep2':'kept','keep1':-3}"},
    {"record keeps nothing", SKIP_ALL_W, "{'type':'record','name':'R','fields':[]}", SKIP_ALL_IN,
     "{}"},
    {"record defaults of every type", "{'type':'record','name':'R','fields':[{'name':'a','type':'int'}]}",
     DEFAULTS_R, "{'a':42}", DEFAULTS_WANT},
    {"nested record gains a defaulted field",
     "{'type':'record','name':'R','fields':[{'name':'s','type':{'type':'record','name':'S','fields':[{'name':'x','type':'int'}]}},{'name':'t','type':'S'}]}",
     "{'type':'record','name':'R','fields':[{'name':'s','type':{'type':'record','name':'S','fields':[{'name':'x','type':'long'},{'name':'y','type':'string','default':'d'}]}},{'name':'t','type':'S'}]}",
     "{'s':{'x':1},'t':{'x':2}}", "{'s':{'x':1,'y':'d'},'t':{'x':2,'y':'d'}}"},
    {"writer default ignored, value wins",
     "{'type':'record','name':'R','fields':[{'name':'a','type':'int','default':9}]}",
     "{'type':'record','name':'R','fields':[{'name':'a','type':'int','default':0}]}", "{'a':4}",
     "{'a':4}"},
    {"field through reader alias",
     "{'type':'record','name':'R','fields':[{'name':'old','type':'int'},{'name':'other','type':'string'}]}",
     "{'type':'record','name':'R','fields':[{'name':'other','type':'string'},{'name':'new','type':'long','aliases':['old']}]}",
     "{'old':12,'other':'o'}", "{'other':'o','new':12}"},
    {"record through reader type alias",
     "{'type':'record','name':'Old','namespace':'a','fields':[{'name':'x','type':'int'}]}",
     "{'type':'record','name':'New','namespace':'b','aliases':['a.Old'],'fields':[{'name':'x','type':'int'}]}",
     "{'x':5}", "{'x':5}"},
    {"record names differ by namespace",
     "{'type':'record','name':'Rec','namespace':'one','fields':[{'name':'x','type':'int'}]}",
     "{'type':'record','name':'Rec','namespace':'two','fields':[{'name':'x','type':'int'}]}",
     "{'x':6}", "{'x':6}"},
    {"record full name vs no namespace",
     "{'type':'record','name':'Rec','namespace':'one.two','fields':[{'name':'x','type':'int'}]}",
     "{'type':'record','name':'Rec','fields':[{'name':'x','type':'int'}]}", "{'x':6}", "{'x':6}"},
    {"empty writer record, reader defaults",
     "{'type':'record','name':'R','fields':[]}",
     "{'type':'record','name':'R','fields':[{'name':'a','type':'string','default':'x'}]}", "{}",
     "{'a':'x'}"},
    /* enums */
    {"enum remap", "{'type':'enum','name':'E','symbols':['A','B','C']}",
     "{'type':'enum','name':'E','symbols':['C','B','A','D']}", "'A'", "'A'"},
    {"enum remap C", "{'type':'enum','name':'E','symbols':['A','B','C']}",
     "{'type':'enum','name':'E','symbols':['C','B','A','D']}", "'C'", "'C'"},
    {"enum unknown symbol -> default", "{'type':'enum','name':'E','symbols':['A','B','X']}",
     "{'type':'enum','name':'E','symbols':['Z','A','B'],'default':'Z'}", "'X'", "'Z'"},
    {"enum known symbol with default", "{'type':'enum','name':'E','symbols':['A','B','X']}",
     "{'type':'enum','name':'E','symbols':['Z','A','B'],'default':'Z'}", "'B'", "'B'"},
    {"enum through alias", "{'type':'enum','name':'x.Old','symbols':['A','B']}",
     "{'type':'enum','name':'y.New','aliases':['x.Old'],'symbols':['B','A']}", "'B'", "'B'"},
    {"enum by namespace", "{'type':'enum','name':'x.E','symbols':['A','B']}",
     "{'type':'enum','name':'y.E','symbols':['B','A']}", "'A'", "'A'"},
    {"enum without default, known symbol", "{'type':'enum','name':'E','symbols':['A','B','X']}",
     "{'type':'enum','name':'E','symbols':['B','A']}", "'A'", "'A'"},
    /* fixed */
    {"fixed", "{'type':'fixed','name':'F','size':4}", "{'type':'fixed','name':'F','size':4}",
     "'abcd'", "'abcd'"},
    {"fixed by namespace", "{'type':'fixed','name':'p.F','size':2}",
     "{'type':'fixed','name':'q.F','size':2}", "'\\u0000\\u00ff'", "'\\u0000\xc3\xbf'"},
    {"fixed through alias", "{'type':'fixed','name':'p.Old','size':1}",
     "{'type':'fixed','name':'New','aliases':['p.Old'],'size':1}", "'z'", "'z'"},
    {"array<fixed>", "{'type':'array','items':{'type':'fixed','name':'F','size':2}}",
     "{'type':'array','items':{'type':'fixed','name':'F','size':2}}", "['ab','cd']",
     "['ab','cd']"},
    /* recursion */
    {"linked list evolved", LIST_W, LIST_R,
     "{'value':1,'next':{'LinkedList':{'value':2,'next':{'LinkedList':{'value':-3,'next':null}}}}}",
     "{'label':'n','next':{'LinkedList':{'label':'n','next':{'LinkedList':{'label':'n','next':"
     "null,'value':-3.0}},'value':2.0}},'value':1.0}"},
    {"tree with a skipped recursive field", TREE_W, TREE_R,
     "{'v':1,'kids':[{'v':2,'kids':[],'extra':{'Tree':{'v':9,'kids':[{'v':8,'kids':[],'extra':"
     "null}],'extra':null}}},{'v':3,'kids':[{'v':4,'kids':[],'extra':null}],'extra':null}],"
     "'extra':{'Tree':{'v':7,'kids':[],'extra':null}}}",
     "{'kids':[{'kids':[],'v':2},{'kids':[{'kids':[],'v':4}],'v':3}],'v':1}"},
};

/* One successful case: decode through the resolving plan on every reader
 * and with and without string copies, from plain and block-sized encodings;
 * skip; every prefix is TRUNCATED; encode refuses the plan. */
static void run_case(const rcase *c)
{
    avk_schema *ws = AVKT_PARSE(c->writer), *rs = AVKT_PARSE(c->reader);
    const avk_type *wt = avk_schema_root(ws), *rt = avk_schema_root(rs);
    char *in_text = q_dup(c->in), *want_text = q_dup(c->want), *canon;
    avk_arena *a = arena_new(), *da = arena_new();
    avk_value wv, want;
    type_set reader_types = {0};
    avk_plan *plans[2];
    int enc, flags;
    value_of(&wv, wt, in_text, a, c->name);
    value_of(&want, rt, want_text, a, c->name);
    /* The table's want must be exactly what write_json writes. */
    canon = json_of(&want);
    if (strcmp(canon, want_text) != 0)
        tfail("%s: table text %s is written back as %s (fix the table)", c->name, want_text,
                 canon);
    free(canon);
    set_collect(&reader_types, rt);
    plans[0] = resolving_with(wt, rt, 0, c->name);
    plans[1] = resolving_with(wt, rt, AVK_PLAN_COPY_STRINGS, c->name);

    for (enc = 0; enc < 2; enc++) {
        size_t len, k;
        /* enc 1: blocks of 2 items with byte sizes, which skipping may jump. */
        uint8_t *bytes = enc == 0 ? encode_with(wt, &wv, 0, 0, &len)
                                  : encode_with(wt, &wv, AVK_PLAN_BLOCK_SIZES, 2, &len);
        uint8_t *twice = (uint8_t *)malloc(2 * len + 1);
        assert_non_null(twice);
        memcpy(twice, bytes, len);
        memcpy(twice + len, bytes, len);
        for (flags = 0; flags < 2; flags++) {
            int how;
            for (how = 0; how < HOW_COUNT; how++) {
                input in;
                avk_value got;
                avk_error err;
                avk_status st;
                int rep;
                char *got_text;
                input_open(&in, twice, 2 * len, how);
                /* Twice in a row (the arena reset between): position and
                 * shared defaults hold. */
                for (rep = 0; rep < 2; rep++) {
                    avk_arena_reset(da);
                    memset(&err, 0, sizeof err);
                    st = avk_plan_decode(plans[flags], &in.r, da, &got, &err);
                    if (st != AVK_OK)
                        tfail("%s (encoding %d, %s, flags %d, value %d): decode returned %s: "
                                 "%s (path %s)",
                                 c->name, enc, how_names[how], flags, rep, avk_status_name(st),
                                 err.message, err.path);
                    CHECK_EQ(avk_reader_offset(&in.r), (rep + 1) * len);
                    CHECK_EQ((uintptr_t)got.type, (uintptr_t)rt);
                    check_types_in(&got, &reader_types, c->name);
                    got_text = json_of(&got);
                    if (strcmp(got_text, want_text) != 0)
                        tfail("%s (encoding %d, %s, flags %d): got %s, expected %s", c->name,
                                 enc, how_names[how], flags, got_text, want_text);
                    free(got_text);
                    if (!avk_value_equal(&got, &want))
                        tfail("%s: decoded value differs from the expected value (same JSON "
                                 "text %s)",
                                 c->name, want_text);
                }
                input_close(&in);

                /* Skip passes over exactly the writer's bytes. */
                input_open(&in, twice, 2 * len, how);
                for (rep = 0; rep < 2; rep++) {
                    st = avk_plan_skip(plans[flags], &in.r, &err);
                    if (st != AVK_OK)
                        tfail("%s (encoding %d, %s): skip returned %s: %s", c->name, enc,
                                 how_names[how], avk_status_name(st), err.message);
                    CHECK_EQ(avk_reader_offset(&in.r), (rep + 1) * len);
                }
                input_close(&in);
            }
        }
        /* Every proper prefix ends inside the value. */
        for (k = 0; k < len; k++) {
            uint8_t *cut = (uint8_t *)malloc(k + 1);
            avk_reader r;
            avk_value got;
            avk_error err;
            avk_status st;
            assert_non_null(cut);
            memcpy(cut, bytes, k);
            avk_reader_init_memory(&r, cut, k);
            avk_arena_reset(da);
            st = avk_plan_decode(plans[0], &r, da, &got, &err);
            if (st != AVK_ERR_TRUNCATED)
                tfail("%s (encoding %d): decoding the first %zu of %zu bytes returned %s, "
                         "expected TRUNCATED",
                         c->name, enc, k, len, avk_status_name(st));
            avk_reader_init_memory(&r, cut, k);
            st = avk_plan_skip(plans[0], &r, &err);
            if (st != AVK_ERR_TRUNCATED)
                tfail("%s (encoding %d): skipping the first %zu of %zu bytes returned %s, "
                         "expected TRUNCATED",
                         c->name, enc, k, len, avk_status_name(st));
            free(cut);
        }
        free(twice);
        free(bytes);
    }

    /* Encoding through a resolving plan is refused; nothing written. */
    {
        avk_writer w;
        avk_error err;
        size_t n;
        AVKT_OK(avk_writer_init_memory(&w, NULL, NULL));
        CHECK_STATUS(avk_plan_encode(plans[0], &want, &w, &err), AVK_ERR_INVALID_ARGUMENT);
        avk_writer_data(&w, &n);
        CHECK_EQ(n, 0);
        avk_writer_destroy(&w);
    }
    avk_plan_free(plans[0]);
    avk_plan_free(plans[1]);
    free((void *)reader_types.t);
    free(in_text);
    free(want_text);
    avk_arena_free(a);
    avk_arena_free(da);
    avk_schema_free(ws);
    avk_schema_free(rs);
}

static void run_case_i(size_t i)
{
    run_case(&cases[i]);
}

static void test_resolution_table(void **state)
{
    (void)state;
    run_table("resolutions", sizeof cases / sizeof cases[0], run_case_i);
}

/* Compatible cases report no problem, except those whose writer carries
 * values the reader cannot take (a writer union read as a non-union). */
static int count_problems_cb;
static void count_problem(void *ctx, const avk_compat_problem *p)
{
    (void)ctx;
    (void)p;
    count_problems_cb++;
}

static void compat_case(size_t i)
{
    {
        const rcase *c = &cases[i];
        avk_schema *ws = AVKT_PARSE(c->writer), *rs = AVKT_PARSE(c->reader);
        avk_error err;
        avk_status st, want = AVK_OK;
        int want_problems = 0;
        if (strncmp(c->name, "union->non-union", 16) == 0 ||
            strcmp(c->name, "enum without default, known symbol") == 0) {
            want = AVK_ERR_RESOLUTION; /* the null branch, symbol X */
            want_problems = 1;
        }
        count_problems_cb = 0;
        st = avk_schema_check_compat(avk_schema_root(ws), avk_schema_root(rs), count_problem,
                                     NULL, &err);
        if (st != want || count_problems_cb != want_problems)
            tfail("%s: avk_schema_check_compat returned %s with %d problems, expected %s with "
                     "%d (%s)",
                     c->name, avk_status_name(st), count_problems_cb, avk_status_name(want),
                     want_problems, st != AVK_OK ? err.message : "");
        avk_schema_free(ws);
        avk_schema_free(rs);
    }
}

static void test_table_is_compatible(void **state)
{
    (void)state;
    run_table("table compatibility", sizeof cases / sizeof cases[0], compat_case);
}

/* ---- typed arrays at size, every kernel ------------------------------------------------- */

static void test_typed_array_promotions_bulk(void **state)
{
    enum { N = 1000 };
    static const struct {
        const char *w, *r;
    } pairs[] = {{"int", "long"},  {"int", "float"},  {"int", "double"},
                 {"long", "float"}, {"long", "double"}, {"float", "double"}};
    avkt_rng rng = {20240601};
    size_t p, blocks;
    (void)state;
    for (p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
        char wj[256], rj[256];
        avk_schema *ws, *rs;
        avk_arena *a = arena_new();
        avk_value wv;
        avk_plan *rp;
        int32_t ints[N];
        int64_t longs[N];
        float floats[N];
        size_t i;
        snprintf(wj, sizeof wj,
                 "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"skip\",\"type\":{"
                 "\"type\":\"array\",\"items\":\"%s\"}},{\"name\":\"a\",\"type\":{\"type\":"
                 "\"array\",\"items\":\"%s\"}}]}",
                 pairs[p].w, pairs[p].w);
        snprintf(rj, sizeof rj,
                 "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":{"
                 "\"type\":\"array\",\"items\":\"%s\"}}]}",
                 pairs[p].r);
        ws = AVKT_PARSE_RAW(wj);
        rs = AVKT_PARSE_RAW(rj);
        for (i = 0; i < N; i++) {
            ints[i] = avkt_mixed_int(&rng);
            longs[i] = avkt_mixed_long(&rng);
            floats[i] = (float)ints[i] / 7.0f;
        }
        AVKT_OK(avk_value_init(&wv, avk_schema_root(ws), 0, a, NULL));
        for (i = 0; i < 2; i++) {
            avk_value *f = &wv.u.fields[i];
            f->u.array.count = N;
            f->u.array.items = strcmp(pairs[p].w, "int") == 0    ? (void *)ints
                               : strcmp(pairs[p].w, "long") == 0 ? (void *)longs
                                                                 : (void *)floats;
        }
        rp = resolving_with(avk_schema_root(ws), avk_schema_root(rs), 0, pairs[p].w);
        for (blocks = 0; blocks < 3; blocks++) {
            size_t len;
            uint8_t *bytes = blocks == 0   ? encode_with(avk_schema_root(ws), &wv, 0, 0, &len)
                             : blocks == 1 ? encode_with(avk_schema_root(ws), &wv, 0, 97, &len)
                                           : encode_with(avk_schema_root(ws), &wv,
                                                         AVK_PLAN_BLOCK_SIZES, 100, &len);
            int how;
            for (how = 0; how < HOW_COUNT; how++) {
                input in;
                avk_value got;
                avk_error err;
                avk_arena *da = arena_new();
                const avk_value *arr;
                input_open(&in, bytes, len, how);
                AVKT_OK(avk_plan_decode(rp, &in.r, da, &got, &err));
                assert_int_equal(avk_reader_offset(&in.r), len);
                arr = &got.u.fields[0];
                assert_int_equal(arr->u.array.count, N);
                for (i = 0; i < N; i++) {
                    double src = strcmp(pairs[p].w, "int") == 0    ? (double)ints[i]
                                 : strcmp(pairs[p].w, "long") == 0 ? (double)longs[i]
                                                                   : (double)floats[i];
                    if (strcmp(pairs[p].r, "long") == 0) {
                        AVKT_ASSERT_I64_EQ(((const int64_t *)arr->u.array.items)[i], ints[i]);
                    } else if (strcmp(pairs[p].r, "float") == 0) {
                        float want = strcmp(pairs[p].w, "int") == 0 ? (float)ints[i]
                                                                    : (float)longs[i];
                        float gotf = ((const float *)arr->u.array.items)[i];
                        if (memcmp(&gotf, &want, sizeof want) != 0)
                            tfail("%s->%s item %zu: got %.9g, expected %.9g", pairs[p].w,
                                     pairs[p].r, i, (double)gotf, (double)want);
                    } else {
                        double gotd = ((const double *)arr->u.array.items)[i];
                        if (memcmp(&gotd, &src, sizeof src) != 0)
                            tfail("%s->%s item %zu: got %.17g, expected %.17g", pairs[p].w,
                                     pairs[p].r, i, gotd, src);
                    }
                }
                input_close(&in);
                input_open(&in, bytes, len, how);
                AVKT_OK(avk_plan_skip(rp, &in.r, &err));
                assert_int_equal(avk_reader_offset(&in.r), len);
                input_close(&in);
                avk_arena_free(da);
            }
            free(bytes);
        }
        avk_plan_free(rp);
        avk_arena_free(a);
        avk_schema_free(ws);
        avk_schema_free(rs);
    }
}

/* Skipped writer fields are never decoded into values: a large string and
 * array of records the reader lacks take no arena memory. */
static void test_skipped_fields_allocate_nothing(void **state)
{
    avk_schema *ws = AVKT_PARSE(
        "{'type':'record','name':'R','fields':[{'name':'big','type':'string'},{'name':'recs',"
        "'type':{'type':'array','items':{'type':'record','name':'S','fields':[{'name':'s','type':"
        "'string'},{'name':'m','type':{'type':'map','values':'bytes'}}]}}},{'name':'k','type':"
        "'int'}]}");
    avk_schema *rs = AVKT_PARSE("{'type':'record','name':'R','fields':[{'name':'k','type':'long'}]}");
    avk_writer w;
    avk_error err;
    avk_reader r;
    avk_arena *a = arena_new();
    avk_plan *rp = resolving_with(avk_schema_root(ws), avk_schema_root(rs), AVK_PLAN_COPY_STRINGS,
                                  "skip");
    avk_value got;
    size_t len, i;
    const uint8_t *d;
    char big[100000];
    (void)state;
    memset(big, 'x', sizeof big);
    /* Written by hand: string of 100000 bytes, 1000 records, k = 3. */
    AVKT_OK(avk_writer_init_memory(&w, NULL, NULL));
    AVKT_OK(avk_writer_write_long(&w, (int64_t)sizeof big, NULL));
    AVKT_OK(avk_writer_write_raw(&w, big, sizeof big, NULL));
    AVKT_OK(avk_writer_write_long(&w, 1000, NULL));
    for (i = 0; i < 1000; i++) {
        AVKT_OK(avk_writer_write_long(&w, 50, NULL));
        AVKT_OK(avk_writer_write_raw(&w, big, 50, NULL));
        AVKT_OK(avk_writer_write_long(&w, 1, NULL));
        AVKT_OK(avk_writer_write_long(&w, 1, NULL));
        AVKT_OK(avk_writer_write_raw(&w, "k", 1, NULL));
        AVKT_OK(avk_writer_write_long(&w, 20, NULL));
        AVKT_OK(avk_writer_write_raw(&w, big, 20, NULL));
        AVKT_OK(avk_writer_write_long(&w, 0, NULL));
    }
    AVKT_OK(avk_writer_write_long(&w, 0, NULL));
    AVKT_OK(avk_writer_write_int(&w, 3, NULL));
    d = avk_writer_data(&w, &len);
    avk_reader_init_memory(&r, d, len);
    AVKT_OK(avk_plan_decode(rp, &r, a, &got, &err));
    assert_int_equal(avk_reader_offset(&r), len);
    AVKT_ASSERT_I64_EQ(got.u.fields[0].u.l, 3);
    if (avk_arena_bytes(a) >= 16384)
        tfail("decoding one long took %zu arena bytes: skipped fields were built",
                 avk_arena_bytes(a));
    avk_writer_destroy(&w);
    avk_plan_free(rp);
    avk_arena_free(a);
    avk_schema_free(ws);
    avk_schema_free(rs);
}

/* ---- compile-time errors ---------------------------------------------------------------- */

typedef struct ccase {
    const char *name;
    const char *writer;
    const char *reader;
    const char *path;      /* err->path exactly, or NULL: not checked */
    const char *path_part; /* err->path contains it (NULL: not checked) */
    const char *msg1;      /* message contains these (NULL: not checked) */
    const char *msg2;
} ccase;

static const ccase compile_errors[] = {
    {"missing default (header example)",
     "{'type':'record','name':'User','fields':[{'name':'name','type':'string'},{'name':'id','type':'long'}]}",
     "{'type':'record','name':'User','fields':[{'name':'name','type':'string'},{'name':'id','type':'long'},{'name':'age','type':'int'}]}",
     "User.fields[2]", NULL, "User.fields[2]", "age"},
    {"missing default, nested",
     "{'type':'record','name':'R','fields':[{'name':'s','type':{'type':'record','name':'S','fields':[{'name':'x','type':'int'}]}}]}",
     "{'type':'record','name':'R','fields':[{'name':'s','type':{'type':'record','name':'S','fields':[{'name':'x','type':'int'},{'name':'why','type':'string'}]}}]}",
     NULL, "fields[1]", "why", NULL},
    {"missing default, in array items",
     "{'type':'array','items':{'type':'record','name':'S','fields':[]}}",
     "{'type':'array','items':{'type':'record','name':'S','fields':[{'name':'needed','type':'int'}]}}",
     NULL, "fields[0]", "needed", NULL},
    {"alias of another field does not count",
     "{'type':'record','name':'R','fields':[{'name':'a','type':'int'}]}",
     "{'type':'record','name':'R','fields':[{'name':'b','type':'int','aliases':['c']}]}",
     "R.fields[0]", NULL, "\"b\"", NULL},
    {"string vs int", "'string'", "'int'", NULL, NULL, "string", "int"},
    {"long vs int", "'long'", "'int'", NULL, NULL, "long", "int"},
    {"double vs float", "'double'", "'float'", NULL, NULL, "double", "float"},
    {"float vs long", "'float'", "'long'", NULL, NULL, "float", "long"},
    {"int vs boolean", "'int'", "'boolean'", NULL, NULL, NULL, NULL},
    {"null vs int", "'null'", "'int'", NULL, NULL, NULL, NULL},
    {"int vs string", "'int'", "'string'", NULL, NULL, NULL, NULL},
    {"bytes vs fixed", "'bytes'", "{'type':'fixed','name':'F','size':1}", NULL, NULL, NULL, NULL},
    {"array vs map", "{'type':'array','items':'int'}", "{'type':'map','values':'int'}", NULL, NULL,
     NULL, NULL},
    {"array items long vs int", "{'type':'array','items':'long'}",
     "{'type':'array','items':'int'}", NULL, NULL, NULL, NULL},
    {"map values string vs int", "{'type':'map','values':'string'}",
     "{'type':'map','values':'int'}", NULL, NULL, NULL, NULL},
    {"field kind mismatch",
     "{'type':'record','name':'R','fields':[{'name':'a','type':'int'},{'name':'b','type':'string'}]}",
     "{'type':'record','name':'R','fields':[{'name':'a','type':'int'},{'name':'b','type':'int'}]}",
     NULL, "R.fields[1]", NULL, NULL},
    {"record names differ", "{'type':'record','name':'A','fields':[]}",
     "{'type':'record','name':'B','fields':[]}", NULL, NULL, NULL, NULL},
    {"alias on the writer does not count", "{'type':'record','name':'A','aliases':['B'],'fields':[]}",
     "{'type':'record','name':'B','fields':[]}", NULL, NULL, NULL, NULL},
    {"reader alias by simple name only when it is the full name",
     "{'type':'record','name':'Old','namespace':'a','fields':[]}",
     "{'type':'record','name':'New','namespace':'b','aliases':['z.Old'],'fields':[]}", NULL, NULL,
     NULL, NULL},
    {"enum names differ", "{'type':'enum','name':'E1','symbols':['A']}",
     "{'type':'enum','name':'E2','symbols':['A']}", NULL, NULL, NULL, NULL},
    {"fixed size mismatch", "{'type':'fixed','name':'F','size':4}",
     "{'type':'fixed','name':'F','size':8}", NULL, NULL, "4", "8"},
    {"fixed names differ", "{'type':'fixed','name':'F','size':4}",
     "{'type':'fixed','name':'G','size':4}", NULL, NULL, NULL, NULL},
    {"enum vs string", "{'type':'enum','name':'E','symbols':['A']}", "'string'", NULL, NULL, NULL,
     NULL},
    {"record vs map", "{'type':'record','name':'R','fields':[]}", "{'type':'map','values':'int'}",
     NULL, NULL, NULL, NULL},
    {"non-union into a union with no taker", "'string'", "['null','int']", NULL, NULL, NULL, NULL},
    {"record into a union of other names", "{'type':'record','name':'A','fields':[]}",
     "['null',{'type':'record','name':'B','fields':[]}]", NULL, NULL, NULL, NULL},
    {"recursive with a missing default", LIST_W,
     "{'type':'record','name':'LinkedList','fields':[{'name':'value','type':'int'},{'name':'next','type':['null','LinkedList']},{'name':'nodef','type':'int'}]}",
     "LinkedList.fields[2]", NULL, "nodef", NULL},
};

static void test_compile_errors_case(size_t i)
{
    {
        const ccase *c = &compile_errors[i];
        avk_schema *ws = AVKT_PARSE(c->writer), *rs = AVKT_PARSE(c->reader);
        avk_plan *p = (avk_plan *)0x1;
        avk_error err;
        avk_status st;
        memset(&err, 0, sizeof err);
        st = avk_plan_new_resolving(avk_schema_root(ws), avk_schema_root(rs), NULL, &p, &err);
        if (st != AVK_ERR_RESOLUTION)
            tfail("%s: avk_plan_new_resolving returned %s, expected RESOLUTION", c->name,
                     avk_status_name(st));
        if (err.status != AVK_ERR_RESOLUTION || err.message[0] == '\0')
            tfail("%s: err not filled (status %s, message '%s')", c->name,
                     avk_status_name(err.status), err.message);
        if (c->path && strcmp(err.path, c->path) != 0)
            tfail("%s: err.path '%s', expected '%s' (message %s)", c->name, err.path, c->path,
                     err.message);
        if (c->path_part && !strstr(err.path, c->path_part))
            tfail("%s: err.path '%s' lacks '%s' (message %s)", c->name, err.path, c->path_part,
                     err.message);
        if (c->msg1 && !strstr(err.message, c->msg1))
            tfail("%s: message '%s' lacks '%s'", c->name, err.message, c->msg1);
        if (c->msg2 && !strstr(err.message, c->msg2))
            tfail("%s: message '%s' lacks '%s'", c->name, err.message, c->msg2);
        /* The checker agrees: at least one problem. */
        count_problems_cb = 0;
        CHECK_STATUS(avk_schema_check_compat(avk_schema_root(ws), avk_schema_root(rs),
                                             count_problem, NULL, &err),
                     AVK_ERR_RESOLUTION);
        if (count_problems_cb < 1)
            tfail("%s: check_compat said RESOLUTION without calling back", c->name);
        avk_schema_free(ws);
        avk_schema_free(rs);
    }
}

static void test_compile_errors(void **state)
{
    (void)state;
    run_table("compile_errors", sizeof compile_errors / sizeof compile_errors[0], test_compile_errors_case);
}

/* ---- read-time errors ------------------------------------------------------------------- */

typedef struct rtcase {
    const char *name;
    const char *writer;
    const char *reader;
    const char *bad;  /* writer value that fails when read */
    const char *good; /* writer value that reads... */
    const char *want; /* ...as this */
} rtcase;

static const rtcase read_errors[] = {
    {"enum symbol without reader default", "{'type':'enum','name':'E','symbols':['A','B','X']}",
     "{'type':'enum','name':'E','symbols':['B','A']}", "'X'", "'B'", "'B'"},
    {"enum in a record", "{'type':'record','name':'R','fields':[{'name':'e','type':{'type':'enum','name':'E','symbols':['A','X']}},{'name':'i','type':'int'}]}",
     "{'type':'record','name':'R','fields':[{'name':'i','type':'long'},{'name':'e','type':{'type':'enum','name':'E','symbols':['A']}}]}",
     "{'e':'X','i':1}", "{'e':'A','i':2}", "{'i':2,'e':'A'}"},
    {"array<union> as array<null>, an int item",
     "{'type':'record','name':'R','fields':[{'name':'a','type':{'type':'array','items':['null','int']}},{'name':'b','type':'int'}]}",
     "{'type':'record','name':'R','fields':[{'name':'a','type':{'type':'array','items':'null'}},{'name':'b','type':'int'}]}",
     "{'a':[null,{'int':5},null],'b':7}", "{'a':[null],'b':8}", "{'a':[null],'b':8}"},
    {"writer union -> non-union, bad branch", "['null','int']", "'long'", "null", "{'int':-4}",
     "-4"},
    {"writer union -> non-union, string", "['int','string']", "'double'", "{'string':'no'}",
     "{'int':2}", "2.0"},
    {"writer branch no reader branch takes", "['int','string']", "['null','long']",
     "{'string':'s'}", "{'int':1}", "{'long':1}"},
    {"named branch no reader branch takes",
     "['null',{'type':'record','name':'A','fields':[]},'int']", "['null','int']", "{'A':{}}",
     "{'int':3}", "{'int':3}"},
    {"all writer branches fail", "['string','bytes']", "'int'", "{'string':'x'}", NULL, NULL},
    {"bad branch inside an array", "{'type':'array','items':['int','string']}",
     "{'type':'array','items':'long'}", "[{'int':1},{'string':'x'}]", "[{'int':1},{'int':2}]",
     "[1,2]"},
    {"bad branch inside a map", "{'type':'map','values':['int','boolean']}",
     "{'type':'map','values':['long','null']}", "{'a':{'boolean':true}}", "{'a':{'int':9}}",
     "{'a':{'long':9}}"},
};

static void test_read_errors_case(size_t i)
{
    {
        const rtcase *c = &read_errors[i];
        avk_schema *ws = AVKT_PARSE(c->writer), *rs = AVKT_PARSE(c->reader);
        const avk_type *wt = avk_schema_root(ws), *rt = avk_schema_root(rs);
        avk_plan *rp = resolving_with(wt, rt, 0, c->name);
        avk_arena *a = arena_new();
        avk_value wv, got;
        avk_error err;
        avk_reader r;
        avk_status st;
        char *text = q_dup(c->bad);
        size_t len;
        uint8_t *bytes;
        value_of(&wv, wt, text, a, c->name);
        free(text);
        bytes = encode_with(wt, &wv, 0, 0, &len);
        avk_reader_init_memory(&r, bytes, len);
        memset(&err, 0, sizeof err);
        st = avk_plan_decode(rp, &r, a, &got, &err);
        if (st != AVK_ERR_RESOLUTION)
            tfail("%s: decoding the bad value returned %s, expected RESOLUTION", c->name,
                     avk_status_name(st));
        if (err.message[0] == '\0')
            tfail("%s: no message", c->name);
        /* Skipping only walks the writer's data: it does not fail. */
        avk_reader_init_memory(&r, bytes, len);
        st = avk_plan_skip(rp, &r, &err);
        if (st != AVK_OK)
            tfail("%s: skipping the bad value returned %s (%s), expected OK", c->name,
                     avk_status_name(st), err.message);
        CHECK_EQ(avk_reader_offset(&r), len);
        free(bytes);
        if (c->good) {
            char *want_text = q_dup(c->want), *got_text;
            text = q_dup(c->good);
            value_of(&wv, wt, text, a, c->name);
            free(text);
            bytes = encode_with(wt, &wv, 0, 0, &len);
            avk_reader_init_memory(&r, bytes, len);
            st = avk_plan_decode(rp, &r, a, &got, &err);
            if (st != AVK_OK)
                tfail("%s: the good value returned %s: %s", c->name, avk_status_name(st),
                         err.message);
            CHECK_EQ(avk_reader_offset(&r), len);
            got_text = json_of(&got);
            if (strcmp(got_text, want_text) != 0)
                tfail("%s: good value read as %s, expected %s", c->name, got_text, want_text);
            free(got_text);
            free(want_text);
            free(bytes);
        }
        /* The stricter checker reports it. */
        count_problems_cb = 0;
        CHECK_STATUS(avk_schema_check_compat(wt, rt, count_problem, NULL, &err),
                     AVK_ERR_RESOLUTION);
        if (count_problems_cb < 1)
            tfail("%s: check_compat said RESOLUTION without calling back", c->name);
        avk_plan_free(rp);
        avk_arena_free(a);
        avk_schema_free(ws);
        avk_schema_free(rs);
    }
}

static void test_read_errors(void **state)
{
    (void)state;
    run_table("read_errors", sizeof read_errors / sizeof read_errors[0], test_read_errors_case);
}

/* ---- malformed writer bytes ------------------------------------------------------------- */

typedef struct mcase {
    const char *name;
    const char *writer;
    const char *reader;
    const char *hex;
    avk_status status;
} mcase;

#define SKIPS_W(t)                                                                              \
    "{'type':'record','name':'R','fields':[{'name':'skip','type':" t "},{'name':'k','type':'int'}]}"
#define SKIPS_R "{'type':'record','name':'R','fields':[{'name':'k','type':'long'}]}"

static const mcase malformed[] = {
    {"writer union index out of range", "['null','int']", "['null','long']", "04",
     AVK_ERR_MALFORMED},
    {"writer union index negative", "['null','int']", "'long'", "01", AVK_ERR_MALFORMED},
    {"writer enum index out of range", "{'type':'enum','name':'E','symbols':['A','B']}",
     "{'type':'enum','name':'E','symbols':['A','B','C'],'default':'C'}", "04", AVK_ERR_MALFORMED},
    {"boolean byte 2", "'boolean'", "'boolean'", "02", AVK_ERR_MALFORMED},
    {"overlong long read as double", "'long'", "'double'", "ffffffffffffffffffff7f",
     AVK_ERR_MALFORMED},
    {"string length -1 read as bytes", "'string'", "'bytes'", "01", AVK_ERR_MALFORMED},
    {"string longer than input read as bytes", "'string'", "'bytes'", "0a6162",
     AVK_ERR_TRUNCATED},
    {"skipped string length -1", SKIPS_W("'string'"), SKIPS_R, "0102", AVK_ERR_MALFORMED},
    {"skipped string past the end", SKIPS_W("'string'"), SKIPS_R, "0a616202", AVK_ERR_TRUNCATED},
    {"skipped boolean byte 2", SKIPS_W("'boolean'"), SKIPS_R, "0202", AVK_ERR_MALFORMED},
    {"skipped union index out of range", SKIPS_W("['null','int']"), SKIPS_R, "0602",
     AVK_ERR_MALFORMED},
    {"skipped enum index out of range", SKIPS_W("{'type':'enum','name':'E','symbols':['A']}"),
     SKIPS_R, "0202", AVK_ERR_MALFORMED},
    {"skipped overlong varint", SKIPS_W("'long'"), SKIPS_R, "ffffffffffffffffffff7f02",
     AVK_ERR_MALFORMED},
    {"skipped array block past the end", SKIPS_W("{'type':'array','items':'long'}"), SKIPS_R,
     "0402", AVK_ERR_TRUNCATED},
    {"skipped sized block, then the end", SKIPS_W("{'type':'array','items':'long'}"), SKIPS_R,
     "03040202", AVK_ERR_TRUNCATED},
    {"array<int>->array<long> item truncated", "{'type':'array','items':'int'}",
     "{'type':'array','items':'long'}", "0602", AVK_ERR_TRUNCATED},
    {"array<float>->array<double> item truncated", "{'type':'array','items':'float'}",
     "{'type':'array','items':'double'}", "020000", AVK_ERR_TRUNCATED},
    {"map key length -1", "{'type':'map','values':'int'}", "{'type':'map','values':'long'}",
     "020102", AVK_ERR_MALFORMED},
    {"float->double truncated", "'float'", "'double'", "0000", AVK_ERR_TRUNCATED},
    {"fixed truncated", "{'type':'fixed','name':'F','size':4}",
     "{'type':'fixed','name':'F','size':4}", "616263", AVK_ERR_TRUNCATED},
};

static void test_malformed_writer_bytes_case(size_t i)
{
    {
        const mcase *c = &malformed[i];
        avk_schema *ws = AVKT_PARSE(c->writer), *rs = AVKT_PARSE(c->reader);
        const avk_type *wt = avk_schema_root(ws);
        avk_plan *rp = resolving_with(wt, avk_schema_root(rs), 0, c->name);
        avk_plan *plain = avkt_plan_new(wt, 0, NULL, 0);
        uint8_t bytes[64];
        size_t len = avkt_unhex(c->hex, bytes, sizeof bytes);
        avk_arena *a = arena_new();
        avk_value got;
        avk_error err;
        avk_reader r;
        avk_status st;
        int how;
        /* The writer's own plan agrees that the bytes are bad. */
        avk_reader_init_memory(&r, bytes, len);
        st = avk_plan_decode(plain, &r, a, &got, &err);
        if (st != c->status)
            tfail("%s: the plain writer plan returned %s, table says %s (fix the table)",
                     c->name, avk_status_name(st), avk_status_name(c->status));
        for (how = 0; how < HOW_COUNT; how++) {
            input in;
            input_open(&in, bytes, len, how);
            avk_arena_reset(a);
            st = avk_plan_decode(rp, &in.r, a, &got, &err);
            if (st != c->status)
                tfail("%s (%s): resolving decode returned %s, expected %s", c->name,
                         how_names[how], avk_status_name(st), avk_status_name(c->status));
            input_close(&in);
            input_open(&in, bytes, len, how);
            st = avk_plan_skip(rp, &in.r, &err);
            if (st != c->status)
                tfail("%s (%s): resolving skip returned %s, expected %s", c->name,
                         how_names[how], avk_status_name(st), avk_status_name(c->status));
            input_close(&in);
        }
        avk_plan_free(rp);
        avk_plan_free(plain);
        avk_arena_free(a);
        avk_schema_free(ws);
        avk_schema_free(rs);
    }
}

static void test_malformed_writer_bytes(void **state)
{
    (void)state;
    run_table("malformed", sizeof malformed / sizeof malformed[0], test_malformed_writer_bytes_case);
}

/* ---- arguments, options, limits --------------------------------------------------------- */

static void test_arguments(void **state)
{
    avk_schema *s = AVKT_PARSE("'int'"), *l = AVKT_PARSE("'long'");
    const avk_type *it = avk_schema_root(s), *lt = avk_schema_root(l);
    avk_plan *p = NULL, *plain;
    avk_plan_options o;
    avk_error err;
    (void)state;
    AVKT_ASSERT_STATUS(avk_plan_new_resolving(NULL, lt, NULL, &p, &err), AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_plan_new_resolving(it, NULL, NULL, &p, &err), AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_plan_new_resolving(it, lt, NULL, NULL, &err), AVK_ERR_INVALID_ARGUMENT);
    memset(&o, 0, sizeof o);
    o.struct_size = 3;
    AVKT_ASSERT_STATUS(avk_plan_new_resolving(it, lt, &o, &p, &err), AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_schema_check_compat(NULL, lt, NULL, NULL, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_schema_check_compat(it, NULL, NULL, NULL, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    /* NULL callback and NULL err are fine. */
    AVKT_OK(avk_schema_check_compat(it, lt, NULL, NULL, NULL));
    AVKT_ASSERT_STATUS(avk_schema_check_compat(lt, it, NULL, NULL, NULL), AVK_ERR_RESOLUTION);
    /* A plain plan is not resolving. */
    plain = avkt_plan_new(it, 0, NULL, 0);
    assert_int_equal(avk_plan_is_resolving(plain), 0);
    avk_plan_free(plain);
    /* Same schema on both sides: a resolving plan all the same. */
    AVKT_OK(avk_plan_new_resolving(it, it, NULL, &p, &err));
    assert_int_equal(avk_plan_is_resolving(p), 1);
    avk_plan_free(p);
    avk_schema_free(s);
    avk_schema_free(l);
}

/* The plan's limits apply to what the reader builds. */
static void test_limits(void **state)
{
    avk_schema *ws = AVKT_PARSE("{'type':'array','items':'int'}");
    avk_schema *rs = AVKT_PARSE("{'type':'array','items':'long'}");
    avk_plan_options o;
    avk_plan *p;
    avk_error err;
    avk_reader r;
    avk_arena *a = arena_new();
    avk_value v;
    static const uint8_t three[] = {0x06, 0x02, 0x04, 0x06, 0x00};
    static const uint8_t two[] = {0x04, 0x02, 0x04, 0x00};
    (void)state;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.limits.max_items = 2;
    AVKT_OK(avk_plan_new_resolving(avk_schema_root(ws), avk_schema_root(rs), &o, &p, &err));
    avk_reader_init_memory(&r, three, sizeof three);
    AVKT_ASSERT_STATUS(avk_plan_decode(p, &r, a, &v, &err), AVK_ERR_LIMIT);
    avk_reader_init_memory(&r, two, sizeof two);
    AVKT_OK(avk_plan_decode(p, &r, a, &v, &err));
    assert_int_equal(v.u.array.count, 2);
    AVKT_ASSERT_I64_EQ(((const int64_t *)v.u.array.items)[1], 2);
    avk_plan_free(p);
    avk_arena_free(a);
    avk_schema_free(ws);
    avk_schema_free(rs);
}

/* AVK_PLAN_CHECK_UTF8 applies to the strings the reader gets: writer bytes
 * read as a string are checked, writer strings read as bytes are not. */
static void test_check_utf8_on_promotions(void **state)
{
    avk_schema *bs = AVKT_PARSE("'bytes'"), *ss = AVKT_PARSE("'string'");
    avk_plan *to_string = resolving_with(avk_schema_root(bs), avk_schema_root(ss),
                                         AVK_PLAN_CHECK_UTF8, "bytes->string");
    avk_plan *to_bytes = resolving_with(avk_schema_root(ss), avk_schema_root(bs),
                                        AVK_PLAN_CHECK_UTF8, "string->bytes");
    static const uint8_t bad[] = {0x04, 0xc3, 0x28};
    static const uint8_t good[] = {0x04, 0xc3, 0xa9};
    avk_arena *a = arena_new();
    avk_reader r;
    avk_value v;
    avk_error err;
    (void)state;
    avk_reader_init_memory(&r, bad, sizeof bad);
    AVKT_ASSERT_STATUS(avk_plan_decode(to_string, &r, a, &v, &err), AVK_ERR_MALFORMED);
    avk_reader_init_memory(&r, good, sizeof good);
    AVKT_OK(avk_plan_decode(to_string, &r, a, &v, &err));
    assert_int_equal(v.u.bytes.len, 2);
    assert_memory_equal(v.u.bytes.data, "\xc3\xa9", 2);
    avk_reader_init_memory(&r, bad, sizeof bad);
    AVKT_OK(avk_plan_decode(to_bytes, &r, a, &v, &err));
    assert_int_equal(avk_type_kind(v.type), AVK_BYTES);
    assert_int_equal(v.u.bytes.len, 2);
    assert_memory_equal(v.u.bytes.data, "\xc3\x28", 2);
    avk_plan_free(to_string);
    avk_plan_free(to_bytes);
    avk_arena_free(a);
    avk_schema_free(bs);
    avk_schema_free(ss);
}

/* ---- compatibility checker: problems and their paths ------------------------------------ */

typedef struct problems {
    int n;
    char reader_path[8][256];
    char writer_path[8][256];
    char message[8][256];
} problems;

static void collect_problem(void *ctx, const avk_compat_problem *p)
{
    problems *ps = (problems *)ctx;
    if (ps->n < 8) {
        snprintf(ps->reader_path[ps->n], 256, "%s", p->reader_path ? p->reader_path : "(null)");
        snprintf(ps->writer_path[ps->n], 256, "%s", p->writer_path ? p->writer_path : "(null)");
        snprintf(ps->message[ps->n], 256, "%s", p->message ? p->message : "(null)");
    }
    ps->n++;
}

static avk_status compat(const char *w_sq, const char *r_sq, problems *ps, avk_error *err)
{
    avk_schema *ws = AVKT_PARSE(w_sq), *rs = AVKT_PARSE(r_sq);
    avk_status st;
    memset(ps, 0, sizeof *ps);
    memset(err, 0, sizeof *err);
    st = avk_schema_check_compat(avk_schema_root(ws), avk_schema_root(rs), collect_problem, ps,
                                 err);
    avk_schema_free(ws);
    avk_schema_free(rs);
    return st;
}

static void print_problems(const char *what, const problems *ps)
{
    int i;
    for (i = 0; i < ps->n && i < 8; i++)
        print_message("%s: problem %d: reader '%s' writer '%s': %s\n", what, i, ps->reader_path[i],
                      ps->writer_path[i], ps->message[i]);
}

static void test_check_compat_problems(void **state)
{
    problems ps;
    avk_error err;
    (void)state;

    /* Compatible: no call. */
    AVKT_OK(compat("{'type':'record','name':'R','fields':[{'name':'a','type':'int'}]}",
                   "{'type':'record','name':'R','fields':[{'name':'a','type':'long'},{'name':'b',"
                   "'type':'string','default':'x'}]}",
                   &ps, &err));
    assert_int_equal(ps.n, 0);

    /* A missing default: the reader path of the field, its name in the message. */
    AVKT_ASSERT_STATUS(compat("{'type':'record','name':'User','fields':[{'name':'id','type':'long'}]}",
                              "{'type':'record','name':'User','fields':[{'name':'id','type':'long'},"
                              "{'name':'name','type':'string'},{'name':'age','type':'int'}]}",
                              &ps, &err),
                       AVK_ERR_RESOLUTION);
    print_problems("two missing defaults", &ps);
    assert_int_equal(ps.n, 2);
    /* In schema order. */
    if (!strstr(ps.reader_path[0], "fields[1]") || !strstr(ps.message[0], "name"))
        tfail("first problem: reader '%s': %s", ps.reader_path[0], ps.message[0]);
    if (!strstr(ps.reader_path[1], "fields[2]") || !strstr(ps.message[1], "age"))
        tfail("second problem: reader '%s': %s", ps.reader_path[1], ps.message[1]);
    if (!strstr(err.message, ps.message[0]) && !strstr(ps.message[0], err.message))
        print_message("note: err.message '%s' does not repeat the first problem\n", err.message);
    if (!strstr(err.message, "2"))
        tfail("err.message '%s' does not say how many problems there were", err.message);

    /* An enum symbol the reader lacks, no default: a problem here though it compiles. */
    AVKT_ASSERT_STATUS(compat("{'type':'enum','name':'E','symbols':['A','B','X']}",
                              "{'type':'enum','name':'E','symbols':['A','B']}", &ps, &err),
                       AVK_ERR_RESOLUTION);
    print_problems("enum", &ps);
    assert_int_equal(ps.n, 1);
    if (!strstr(ps.message[0], "X"))
        tfail("enum problem does not name the symbol: %s", ps.message[0]);
    /* With a reader default it is fine. */
    AVKT_OK(compat("{'type':'enum','name':'E','symbols':['A','B','X']}",
                   "{'type':'enum','name':'E','symbols':['A','B'],'default':'A'}", &ps, &err));
    assert_int_equal(ps.n, 0);

    /* A writer union branch no reader branch takes: located at the writer's branch. */
    AVKT_ASSERT_STATUS(compat("{'type':'record','name':'R','fields':[{'name':'u','type':['int',"
                              "'string','null']}]}",
                              "{'type':'record','name':'R','fields':[{'name':'u','type':['null',"
                              "'long']}]}",
                              &ps, &err),
                       AVK_ERR_RESOLUTION);
    print_problems("union branch", &ps);
    assert_int_equal(ps.n, 1);
    if (!strstr(ps.writer_path[0], "R.fields[0]") || !strstr(ps.writer_path[0], "1"))
        tfail("union problem: writer path '%s' does not point at fields[0] branch 1",
                 ps.writer_path[0]);
    if (!strstr(ps.reader_path[0], "R.fields[0]"))
        tfail("union problem: reader path '%s' does not point at fields[0]", ps.reader_path[0]);

    /* Writer union read as a non-union: each failing branch. */
    AVKT_ASSERT_STATUS(compat("['null','int','string']", "'long'", &ps, &err), AVK_ERR_RESOLUTION);
    print_problems("union to non-union", &ps);
    assert_int_equal(ps.n, 2);

    /* Nested: problems inside arrays and maps carry their paths. */
    AVKT_ASSERT_STATUS(compat("{'type':'record','name':'R','fields':[{'name':'a','type':{'type':"
                              "'array','items':'long'}},{'name':'m','type':{'type':'map','values':"
                              "'string'}}]}",
                              "{'type':'record','name':'R','fields':[{'name':'a','type':{'type':"
                              "'array','items':'int'}},{'name':'m','type':{'type':'map','values':"
                              "'int'}}]}",
                              &ps, &err),
                       AVK_ERR_RESOLUTION);
    print_problems("nested", &ps);
    assert_int_equal(ps.n, 2);
    if (!strstr(ps.reader_path[0], "R.fields[0]") || !strstr(ps.reader_path[1], "R.fields[1]"))
        tfail("nested problems at '%s' and '%s'", ps.reader_path[0], ps.reader_path[1]);

    /* Fixed sizes: both sizes in the message. */
    AVKT_ASSERT_STATUS(compat("{'type':'fixed','name':'F','size':4}",
                              "{'type':'fixed','name':'F','size':8}", &ps, &err),
                       AVK_ERR_RESOLUTION);
    assert_int_equal(ps.n, 1);
    if (!strstr(ps.message[0], "4") || !strstr(ps.message[0], "8"))
        tfail("fixed problem: %s", ps.message[0]);

    /* Recursive schemas terminate and are compatible with themselves evolved. */
    AVKT_OK(compat(LIST_W, LIST_R, &ps, &err));
    assert_int_equal(ps.n, 0);
    AVKT_OK(compat(TREE_W, TREE_R, &ps, &err));
    assert_int_equal(ps.n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(avkt_test_kernel_choice),
        cmocka_unit_test(test_resolution_table),
        cmocka_unit_test(test_table_is_compatible),
        cmocka_unit_test(test_typed_array_promotions_bulk),
        cmocka_unit_test(test_skipped_fields_allocate_nothing),
        cmocka_unit_test(test_compile_errors),
        cmocka_unit_test(test_read_errors),
        cmocka_unit_test(test_malformed_writer_bytes),
        cmocka_unit_test(test_arguments),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_check_utf8_on_promotions),
        cmocka_unit_test(test_check_compat_problems),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
