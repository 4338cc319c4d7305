/* Unit tests for building values: whole trees, setters by field name, appends, map entries, union branches by name, and each error at its call. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "avkt.h"
#include "failalloc.h"

/* Every kind, a nested record, defaults (a boolean, a string in the nested
 * record, a union) and a union without one. */
static const char USER[] =
    "{'type':'record','name':'User','namespace':'com.x','fields':["
    " {'name':'name','type':'string'},"
    " {'name':'age','type':'int'},"
    " {'name':'active','type':'boolean','default':true},"
    " {'name':'address','type':{'type':'record','name':'Address','fields':["
    "   {'name':'city','type':'string'},"
    "   {'name':'zip','type':'string','default':'00000'}]}},"
    " {'name':'emails','type':{'type':'array','items':'string'}},"
    " {'name':'scores','type':{'type':'array','items':'int'}},"
    " {'name':'attrs','type':{'type':'map','values':'long'}},"
    " {'name':'nick','type':['null','string'],'default':null},"
    " {'name':'color','type':{'type':'enum','name':'Color','symbols':['RED','GREEN']}},"
    " {'name':'id','type':{'type':'fixed','name':'Id','size':4}},"
    " {'name':'ratio','type':'double'},"
    " {'name':'pet','type':['null','Address','string']}]}";

/* The fresh tree of USER with pet set to null, field by field. */
static const char USER_EMPTY_HEX[] = "00"   /* name "" */
                                     "00"   /* age 0 */
                                     "01"   /* active: its default, true */
                                     "00"   /* address.city "" */
                                     "0a3030303030" /* address.zip: its default */
                                     "00"   /* emails [] */
                                     "00"   /* scores [] */
                                     "00"   /* attrs {} */
                                     "00"   /* nick: its default, null */
                                     "00"   /* color RED */
                                     "00000000" /* id: four zero bytes */
                                     "0000000000000000" /* ratio 0.0 */
                                     "00";  /* pet: null */

/* The user test_user_tree builds. */
static const char USER_BUILT_HEX[] = "06416461"         /* name "Ada" */
                                     "48"               /* age 36 */
                                     "00"               /* active false */
                                     "0a5061726973"     /* address.city "Paris" */
                                     "0a3030303030"     /* address.zip "00000" */
                                     "04066140780662407900" /* emails ["a@x", "b@y"] */
                                     "060201d80400"     /* scores [1, -1, 300] */
                                     "04026b0a026d0300" /* attrs {"k": 5, "m": -2} */
                                     "0204426f"         /* nick: branch 1, "Bo" */
                                     "02"               /* color GREEN */
                                     "01020304"         /* id */
                                     "000000000000e03f" /* ratio 0.5 */
                                     "0208526f6d650a3030303030"; /* pet: Address {"Rome", "00000"} */

/* Returns the status of expr when it is not AVK_OK. */
#define AVK_TRY_T(expr)                  \
    do {                                 \
        avk_status try_st_ = (expr);     \
        if (try_st_ != AVK_OK)           \
            return try_st_;              \
    } while (0)

typedef struct fixture {
    avk_schema *schema;
    const avk_type *root;
    avk_plan *plan;
    avk_arena *arena;
    avk_writer w;
    avk_error err;
} fixture;

static void fix_open(fixture *f, const char *sq)
{
    memset(f, 0, sizeof *f);
    f->schema = AVKT_PARSE(sq);
    f->root = avk_schema_root(f->schema);
    f->plan = avkt_plan_new(f->root, 0, NULL, 0);
    AVKT_OK(avk_arena_new(NULL, &f->arena, &f->err));
    AVKT_OK(avk_writer_init_memory(&f->w, NULL, &f->err));
}

static void fix_close(fixture *f)
{
    avk_writer_destroy(&f->w);
    avk_arena_free(f->arena);
    avk_plan_free(f->plan);
    avk_schema_free(f->schema);
}

/* Encodes v with plan and checks the bytes are hex. */
static void check_encodes(fixture *f, const avk_plan *plan, const avk_value *v, const char *hex)
{
    uint8_t want[1024];
    size_t n = avkt_unhex(hex, want, sizeof want), len;
    const uint8_t *got;
    avk_writer_reset(&f->w);
    if (avk_plan_encode(plan, v, &f->w, &f->err) != AVK_OK)
        fail_msg("encode: %s (%s)", f->err.message, f->err.path);
    got = avk_writer_data(&f->w, &len);
    avkt_assert_bytes(got, len, want, n);
}

/* Decodes hex (written by hand) with plan and checks v equals it. */
static void check_equals_decoded(fixture *f, const avk_plan *plan, const avk_value *v,
                                 const char *hex)
{
    uint8_t bytes[1024];
    size_t n = avkt_unhex(hex, bytes, sizeof bytes);
    avk_reader r;
    avk_value d;
    avk_reader_init_memory(&r, bytes, n);
    AVKT_OK(avk_plan_decode(plan, &r, f->arena, &d, &f->err));
    assert_ptr_equal(r.pos, bytes + n);
    assert_true(avk_value_equal(v, &d));
    assert_true(avk_value_equal(&d, v));
}

/* Both checks: the built value encodes to hex, and decoding hex gives it. */
static void check_value(fixture *f, const avk_plan *plan, const avk_value *v, const char *hex)
{
    check_encodes(f, plan, v, hex);
    check_equals_decoded(f, plan, v, hex);
}

/* The call returned INVALID_ARGUMENT with exactly this message. */
#define WRONG(f, call, msg)                                                                 \
    do {                                                                                    \
        memset(&(f)->err, 0, sizeof (f)->err);                                              \
        AVKT_ASSERT_STATUS(call, AVK_ERR_INVALID_ARGUMENT);                                 \
        assert_int_equal((f)->err.status, AVK_ERR_INVALID_ARGUMENT);                        \
        assert_string_equal((f)->err.message, msg);                                         \
    } while (0)

static const avk_value *field_of(const avk_value *v, const char *name)
{
    const avk_value *f = avk_value_field(v, name);
    assert_non_null(f);
    return f;
}

static void assert_bytes_text(const avk_bytes *b, const char *s)
{
    size_t n = strlen(s);
    assert_int_equal(b->len, n);
    assert_memory_equal(b->data, s, n);
}

static void assert_text(const avk_value *v, const char *s)
{
    assert_bytes_text(&v->u.bytes, s);
}

static void test_tree_is_complete(void **state)
{
    fixture f;
    avk_value u;
    const avk_value *a, *fx;
    (void)state;
    fix_open(&f, USER);
    memset(&u, 0x5a, sizeof u);
    AVKT_OK(avk_value_init_tree(&u, f.root, f.arena, &f.err));
    assert_ptr_equal(u.type, f.root);
    assert_int_equal(field_of(&u, "name")->u.bytes.len, 0);
    assert_int_equal(field_of(&u, "age")->u.i, 0);
    assert_int_equal(field_of(&u, "active")->u.boolean, 1); /* the default */
    a = field_of(&u, "address");
    assert_int_equal(avk_type_kind(a->type), AVK_RECORD);
    assert_int_equal(field_of(a, "city")->u.bytes.len, 0);
    assert_text(field_of(a, "zip"), "00000");
    assert_int_equal(field_of(&u, "emails")->u.array.count, 0);
    assert_null(field_of(&u, "emails")->u.array.items);
    assert_int_equal(field_of(&u, "attrs")->u.map.count, 0);
    assert_int_equal(field_of(&u, "nick")->u.branch.index, 0);
    assert_int_equal(avk_type_kind(field_of(&u, "nick")->u.branch.value->type), AVK_NULL);
    assert_int_equal(field_of(&u, "color")->u.index, 0);
    fx = field_of(&u, "id");
    assert_int_equal(fx->u.bytes.len, 4);
    assert_memory_equal(fx->u.bytes.data, "\0\0\0\0", 4);
    assert_null(field_of(&u, "pet")->u.branch.value); /* no default: no branch chosen */
    /* Only that union stands between the tree and its encoding. */
    avk_writer_reset(&f.w);
    AVKT_ASSERT_STATUS(avk_plan_encode(f.plan, &u, &f.w, &f.err), AVK_ERR_INVALID_ARGUMENT);
    assert_string_equal(f.err.path, "com.x.User.fields[11]");
    AVKT_OK(avk_value_choose(&u, "pet", "null", f.arena, NULL, &f.err));
    check_value(&f, f.plan, &u, USER_EMPTY_HEX);
    fix_close(&f);
}

static avk_status build_user(avk_value *u, const avk_type *t, avk_arena *arena, avk_error *err)
{
    avk_value *item, *pet;
    static const int32_t scores[] = {1, -1, 300};
    AVK_TRY_T(avk_value_init_tree(u, t, arena, err));
    AVK_TRY_T(avk_value_set_string(u, "name", "Ada", arena, err));
    AVK_TRY_T(avk_value_set_int(u, "age", 36, err));
    AVK_TRY_T(avk_value_set_boolean(u, "active", 0, err));
    AVK_TRY_T(avk_value_get_field(u, "address", &item, err));
    AVK_TRY_T(avk_value_set_string(item, "city", "Paris", arena, err));
    AVK_TRY_T(avk_value_append(u, "emails", arena, &item, err));
    AVK_TRY_T(avk_value_set_string(item, NULL, "a@x", arena, err));
    AVK_TRY_T(avk_value_append(u, "emails", arena, &item, err));
    AVK_TRY_T(avk_value_set_string(item, NULL, "b@y", arena, err));
    AVK_TRY_T(avk_value_append_items(u, "scores", scores, 3, arena, err));
    AVK_TRY_T(avk_value_put(u, "attrs", "k", arena, &item, err));
    AVK_TRY_T(avk_value_set_long(item, NULL, 5, err));
    AVK_TRY_T(avk_value_put(u, "attrs", "m", arena, &item, err));
    AVK_TRY_T(avk_value_set_long(item, NULL, -2, err));
    AVK_TRY_T(avk_value_choose(u, "nick", "string", arena, NULL, err));
    AVK_TRY_T(avk_value_set_string(u, "nick", "Bo", arena, err)); /* through the branch */
    AVK_TRY_T(avk_value_set_enum(u, "color", "GREEN", err));
    AVK_TRY_T(avk_value_set_fixed(u, "id", "\x01\x02\x03\x04", 4, arena, err));
    AVK_TRY_T(avk_value_set_double(u, "ratio", 0.5, err));
    AVK_TRY_T(avk_value_choose(u, "pet", "Address", arena, &pet, err)); /* simple name */
    return avk_value_set_string(pet, "city", "Rome", arena, err);
}

static void test_user_tree(void **state)
{
    fixture f;
    avk_value u;
    char text[64], out[512];
    size_t len;
    const uint8_t *json;
    (void)state;
    fix_open(&f, USER);
    if (build_user(&u, f.root, f.arena, &f.err) != AVK_OK)
        fail_msg("build_user: %s", f.err.message);
    check_value(&f, f.plan, &u, USER_BUILT_HEX);
    /* Copies: the caller's buffer may change after the call. */
    strcpy(text, "Grace");
    AVKT_OK(avk_value_set_string(&u, "name", text, f.arena, &f.err));
    strcpy(text, "XXXXX");
    assert_text(field_of(&u, "name"), "Grace");
    assert_int_equal(field_of(&u, "name")->u.bytes.data[5], '\0');
    /* Without an arena the value views the caller's bytes. */
    AVKT_OK(avk_value_set_string(&u, "name", text, NULL, &f.err));
    assert_ptr_equal(field_of(&u, "name")->u.bytes.data, (const uint8_t *)text);
    /* As Avro JSON. */
    AVKT_OK(avk_value_set_string(&u, "name", "Ada", NULL, &f.err));
    avk_writer_reset(&f.w);
    AVKT_OK(avk_value_write_json(&u, 0, &f.w, &f.err));
    json = avk_writer_data(&f.w, &len);
    assert_true(len < sizeof out);
    memcpy(out, json, len);
    out[len] = '\0';
    assert_string_equal(
        avkt_q("{'name':'Ada','age':36,'active':false,'address':{'city':'Paris','zip':'00000'},"
               "'emails':['a@x','b@y'],'scores':[1,-1,300],'attrs':{'k':5,'m':-2},"
               "'nick':{'string':'Bo'},'color':'GREEN','id':'\\u0001\\u0002\\u0003\\u0004',"
               "'ratio':0.5,'pet':{'com.x.Address':{'city':'Rome','zip':'00000'}}}"),
        out);
    fix_close(&f);
}

static void test_setters(void **state)
{
    static const char ALL[] =
        "{'type':'record','name':'S','fields':["
        " {'name':'n','type':'null'}, {'name':'b','type':'boolean'},"
        " {'name':'i','type':'int'}, {'name':'l','type':'long'},"
        " {'name':'f','type':'float'}, {'name':'d','type':'double'},"
        " {'name':'by','type':'bytes'}, {'name':'s','type':'string'},"
        " {'name':'e','type':{'type':'enum','name':'E','symbols':['A','B','C']}},"
        " {'name':'fx','type':{'type':'fixed','name':'F','size':2}},"
        " {'name':'day','type':{'type':'int','logicalType':'date'}},"
        " {'name':'ab','type':{'type':'array','items':'boolean'}},"
        " {'name':'an','type':{'type':'array','items':'null'}},"
        " {'name':'afx','type':{'type':'array','items':'F'}}]}";
    static const uint8_t flags[] = {0, 1, 7};
    fixture f;
    avk_value v;
    const avk_value *ab;
    (void)state;
    fix_open(&f, ALL);
    AVKT_OK(avk_value_init_tree(&v, f.root, f.arena, &f.err));
    AVKT_OK(avk_value_set_null(&v, "n", &f.err));
    AVKT_OK(avk_value_set_boolean(&v, "b", 5, &f.err)); /* any non-zero: stored as 1 */
    assert_int_equal(field_of(&v, "b")->u.boolean, 1);
    AVKT_OK(avk_value_set_int(&v, "i", -3, &f.err));
    AVKT_OK(avk_value_set_long(&v, "l", INT64_MIN, &f.err));
    AVKT_OK(avk_value_set_float(&v, "f", 1.5f, &f.err));
    AVKT_OK(avk_value_set_double(&v, "d", -2.0, &f.err));
    AVKT_OK(avk_value_set_bytes(&v, "by", "\x00\xff", 2, f.arena, &f.err));
    AVKT_OK(avk_value_set_string(&v, "s", "\xc3\xa9", f.arena, &f.err));
    AVKT_OK(avk_value_set_enum(&v, "e", "C", &f.err));
    AVKT_OK(avk_value_set_fixed(&v, "fx", "hi", 2, f.arena, &f.err));
    AVKT_OK(avk_value_set_long(&v, "day", 19000, &f.err)); /* a long where an int fits */
    AVKT_OK(avk_value_append_items(&v, "ab", flags, 3, f.arena, &f.err));
    AVKT_OK(avk_value_append_items(&v, "an", NULL, 4, f.arena, &f.err));
    AVKT_OK(avk_value_append_items(&v, "afx", "abcd", 2, f.arena, &f.err));
    AVKT_OK(avk_value_append_items(&v, "afx", "ef", 1, f.arena, &f.err));
    AVKT_OK(avk_value_append_items(&v, "afx", NULL, 0, f.arena, &f.err));
    ab = field_of(&v, "ab");
    assert_int_equal(ab->u.array.count, 3);
    assert_memory_equal(ab->u.array.items, "\x00\x01\x01", 3); /* 7 stored as 1 */
    check_value(&f, f.plan, &v,
                "01"                 /* b */
                "05"                 /* i -3 */
                "ffffffffffffffffff01" /* l INT64_MIN */
                "0000c03f"           /* f 1.5 */
                "00000000000000c0"   /* d -2.0 */
                "0400ff"             /* by */
                "04c3a9"             /* s */
                "04"                 /* e C */
                "6869"               /* fx "hi" */
                "f0a802"             /* day 19000 */
                "0600010100"         /* ab [false, true, true] */
                "0800"               /* an: 4 nulls */
                "0661626364656600"); /* afx ["ab", "cd", "ef"] */
    /* The value itself, with no field name. */
    AVKT_OK(avk_value_set_int(avk_value_field(&v, "i"), NULL, 7, &f.err));
    assert_int_equal(field_of(&v, "i")->u.i, 7);
    fix_close(&f);
}

/* Each error is reported by the call that is wrong, which changes nothing. */
static void test_errors_at_the_call(void **state)
{
    fixture f;
    avk_value u, *age, *item, bare;
    uint8_t before[256];
    size_t before_len, after_len;
    const uint8_t *after;
    (void)state;
    fix_open(&f, USER);
    AVKT_OK(avk_value_init_tree(&u, f.root, f.arena, &f.err));
    AVKT_OK(avk_value_choose(&u, "nick", "null", f.arena, NULL, &f.err));
    AVKT_OK(avk_value_get_field(&u, "age", &age, &f.err));
    avk_writer_reset(&f.w);
    AVKT_OK(avk_value_choose(&u, "pet", "null", f.arena, NULL, &f.err));
    AVKT_OK(avk_plan_encode(f.plan, &u, &f.w, &f.err));
    after = avk_writer_data(&f.w, &before_len);
    assert_true(before_len <= sizeof before);
    memcpy(before, after, before_len);
    AVKT_OK(avk_value_init_tree(&u.u.fields[11], u.u.fields[11].type, f.arena, &f.err));

    WRONG(&f, avk_value_set_string(&u, "age", "x", f.arena, &f.err),
          "avk_value_set_string: field 'age' of record 'com.x.User' is an int, not a string");
    WRONG(&f, avk_value_set_int(&u, "agee", 1, &f.err),
          "avk_value_set_int: record 'com.x.User' has no field 'agee'");
    WRONG(&f, avk_value_get_field(&u, "adress", &item, &f.err),
          "avk_value_get_field: record 'com.x.User' has no field 'adress'");
    WRONG(&f, avk_value_set_null(&u, "age", &f.err),
          "avk_value_set_null: field 'age' of record 'com.x.User' is an int, not null");
    WRONG(&f, avk_value_set_boolean(&u, "name", 1, &f.err),
          "avk_value_set_boolean: field 'name' of record 'com.x.User' is a string, not a "
          "boolean");
    WRONG(&f, avk_value_set_long(&u, "age", (int64_t)1 << 40, &f.err),
          "avk_value_set_long: field 'age' of record 'com.x.User' is an int, and 1099511627776 "
          "does not fit in 32 bits");
    WRONG(&f, avk_value_set_long(&u, "name", 1, &f.err),
          "avk_value_set_long: field 'name' of record 'com.x.User' is a string, not a long");
    WRONG(&f, avk_value_set_float(&u, "ratio", 1.0f, &f.err),
          "avk_value_set_float: field 'ratio' of record 'com.x.User' is a double, not a float");
    WRONG(&f, avk_value_set_double(&u, "age", 1.0, &f.err),
          "avk_value_set_double: field 'age' of record 'com.x.User' is an int, not a double");
    WRONG(&f, avk_value_set_bytes(&u, "name", "x", 1, f.arena, &f.err),
          "avk_value_set_bytes: field 'name' of record 'com.x.User' is a string, not bytes");
    WRONG(&f, avk_value_set_fixed(&u, "id", "abc", 3, f.arena, &f.err),
          "avk_value_set_fixed: field 'id' of record 'com.x.User' is a fixed 'com.x.Id' of 4 "
          "bytes, not 3");
    WRONG(&f, avk_value_set_fixed(&u, "name", "abcd", 4, f.arena, &f.err),
          "avk_value_set_fixed: field 'name' of record 'com.x.User' is a string, not a fixed");
    WRONG(&f, avk_value_set_enum(&u, "color", "BLUE", &f.err),
          "avk_value_set_enum: field 'color' of record 'com.x.User' is an enum 'com.x.Color', "
          "which has no symbol 'BLUE'");
    WRONG(&f, avk_value_set_enum(&u, "name", "RED", &f.err),
          "avk_value_set_enum: field 'name' of record 'com.x.User' is a string, not an enum");
    WRONG(&f, avk_value_set_string(&u, "address", "x", f.arena, &f.err),
          "avk_value_set_string: field 'address' of record 'com.x.User' is a record "
          "'com.x.Address', not a string");
    WRONG(&f, avk_value_set_string(&u, "nick", "x", f.arena, &f.err),
          "avk_value_set_string: field 'nick' of record 'com.x.User' is a union [null, string] "
          "with its branch null chosen, not a string");
    WRONG(&f, avk_value_set_string(&u, "pet", "x", f.arena, &f.err),
          "avk_value_set_string: field 'pet' of record 'com.x.User' is a union [null, "
          "com.x.Address, string] with no branch chosen, not a string");
    WRONG(&f, avk_value_set_int(&u, "emails", 1, &f.err),
          "avk_value_set_int: field 'emails' of record 'com.x.User' is an array of string, not "
          "an int");
    WRONG(&f, avk_value_set_int(&u, "attrs", 1, &f.err),
          "avk_value_set_int: field 'attrs' of record 'com.x.User' is a map of long, not an int");
    WRONG(&f, avk_value_append(&u, "scores", f.arena, &item, &f.err),
          "avk_value_append: field 'scores' of record 'com.x.User' is an array of int, not an "
          "array of avk_value items; its items are a C array: append them with "
          "avk_value_append_items");
    WRONG(&f, avk_value_append_items(&u, "emails", "x", 1, f.arena, &f.err),
          "avk_value_append_items: field 'emails' of record 'com.x.User' is an array of string, "
          "not an array stored as a C array; its items are avk_value: append them one at a time "
          "with avk_value_append");
    WRONG(&f, avk_value_append(&u, "attrs", f.arena, &item, &f.err),
          "avk_value_append: field 'attrs' of record 'com.x.User' is a map of long, not an "
          "array");
    WRONG(&f, avk_value_append(&u, "emails", NULL, &item, &f.err),
          "avk_value_append: arena is NULL");
    WRONG(&f, avk_value_append_items(&u, "scores", NULL, 2, f.arena, &f.err),
          "avk_value_append_items: items is NULL but n is 2");
    WRONG(&f, avk_value_put(&u, "emails", "k", f.arena, &item, &f.err),
          "avk_value_put: field 'emails' of record 'com.x.User' is an array of string, not a "
          "map");
    WRONG(&f, avk_value_put(&u, "attrs", NULL, f.arena, &item, &f.err),
          "avk_value_put: key is NULL");
    WRONG(&f, avk_value_choose(&u, "age", "int", f.arena, &item, &f.err),
          "avk_value_choose: field 'age' of record 'com.x.User' is an int, not a union");
    WRONG(&f, avk_value_choose(&u, "pet", "int", f.arena, &item, &f.err),
          "avk_value_choose: field 'pet' of record 'com.x.User' is a union [null, "
          "com.x.Address, string] with no branch 'int'");
    /* On the value itself, and on values that are not set up. */
    WRONG(&f, avk_value_set_string(age, NULL, "x", f.arena, &f.err),
          "avk_value_set_string: the value is an int, not a string");
    WRONG(&f, avk_value_set_string(age, "x", "y", f.arena, &f.err),
          "avk_value_set_string: the value is an int, not a record: it has no field 'x'");
    WRONG(&f, avk_value_set_int(NULL, "age", 1, &f.err), "avk_value_set_int: the value is NULL");
    memset(&bare, 0, sizeof bare);
    WRONG(&f, avk_value_set_int(&bare, NULL, 1, &f.err),
          "avk_value_set_int: the value has no type (set it up with avk_value_init_tree)");
    bare.type = f.root;
    WRONG(&f, avk_value_set_int(&bare, "age", 1, &f.err),
          "avk_value_set_int: record 'com.x.User' has no field storage (set it up with "
          "avk_value_init_tree)");
    WRONG(&f, avk_value_init_tree(&bare, f.root, NULL, &f.err),
          "avk_value_init_tree: NULL arena");
    WRONG(&f, avk_value_set_string(&u, "name", NULL, f.arena, &f.err),
          "avk_value_set_string: the string is NULL");
    WRONG(&f, avk_value_set_bytes(&u, "name", NULL, 3, f.arena, &f.err),
          "avk_value_set_bytes: field 'name' of record 'com.x.User' is a string, not bytes");

    /* Nothing changed: the same bytes as before the errors (pet set again). */
    AVKT_OK(avk_value_choose(&u, "pet", "null", f.arena, NULL, &f.err));
    avk_writer_reset(&f.w);
    AVKT_OK(avk_plan_encode(f.plan, &u, &f.w, &f.err));
    after = avk_writer_data(&f.w, &after_len);
    avkt_assert_bytes(after, after_len, before, before_len);
    fix_close(&f);
}

/* Recursion through a union with no default: a linked list, node by node. */
static void test_recursive_list(void **state)
{
    fixture f;
    avk_value head, *node, *next, *list;
    (void)state;
    fix_open(&f, "{'type':'record','name':'LongList','fields':["
                        " {'name':'value','type':'long'},"
                        " {'name':'next','type':['null','LongList']}]}");
    AVKT_OK(avk_value_init_tree(&head, f.root, f.arena, &f.err));
    assert_null(field_of(&head, "next")->u.branch.value); /* stops at the union */
    AVKT_OK(avk_value_set_long(&head, "value", 1, &f.err));
    AVKT_OK(avk_value_choose(&head, "next", "LongList", f.arena, &node, &f.err));
    assert_null(field_of(node, "next")->u.branch.value);
    AVKT_OK(avk_value_set_long(node, "value", 2, &f.err));
    /* A union field with a chosen record branch stands for the record. */
    AVKT_OK(avk_value_get_field(&head, "next", &list, &f.err));
    assert_int_equal(avk_type_kind(list->type), AVK_UNION);
    AVKT_OK(avk_value_choose(list, "next", "LongList", f.arena, &next, &f.err));
    AVKT_OK(avk_value_set_long(next, "value", 3, &f.err));
    AVKT_OK(avk_value_choose(next, "next", "null", f.arena, NULL, &f.err));
    check_value(&f, f.plan, &head, "02" "02" "04" "02" "06" "00");
    fix_close(&f);
}

/* Recursion through an array and a map, and a union default that stops it. */
static void test_recursive_collections(void **state)
{
    fixture f;
    avk_value root, *b, *c, *d, *x;
    (void)state;
    fix_open(&f, "{'type':'record','name':'Tree','fields':["
                        " {'name':'label','type':'string'},"
                        " {'name':'children','type':{'type':'array','items':'Tree'}}]}");
    AVKT_OK(avk_value_init_tree(&root, f.root, f.arena, &f.err));
    AVKT_OK(avk_value_set_string(&root, "label", "a", f.arena, &f.err));
    AVKT_OK(avk_value_append(&root, "children", f.arena, &b, &f.err));
    AVKT_OK(avk_value_set_string(b, "label", "b", f.arena, &f.err));
    AVKT_OK(avk_value_append(b, "children", f.arena, &c, &f.err));
    AVKT_OK(avk_value_set_string(c, "label", "c", f.arena, &f.err));
    AVKT_OK(avk_value_append(&root, "children", f.arena, &d, &f.err)); /* b may move */
    AVKT_OK(avk_value_set_string(d, "label", "d", f.arena, &f.err));
    check_value(&f, f.plan, &root, "0261" "04" "0262" "02" "0263" "00" "00" "0264" "00" "00");
    fix_close(&f);

    fix_open(&f, "{'type':'record','name':'Node','fields':["
                        " {'name':'next','type':['null','Node'],'default':null},"
                        " {'name':'tags','type':{'type':'map','values':'Node'}}]}");
    AVKT_OK(avk_value_init_tree(&root, f.root, f.arena, &f.err));
    check_value(&f, f.plan, &root, "00" "00");
    AVKT_OK(avk_value_put(&root, "tags", "x", f.arena, &x, &f.err));
    AVKT_OK(avk_value_choose(x, "next", "Node", f.arena, NULL, &f.err));
    /* tags {"x": {next: Node {null, {}}, tags {}}} */
    check_value(&f, f.plan, &root, "00" "02" "0278" "02" "00" "00" "00" "00");
    fix_close(&f);
}

/* Records that contain themselves with nothing between have no finite value. */
static void test_self_containing_records(void **state)
{
    fixture f;
    avk_value v, *item;
    char *text;
    size_t i, pos = 0, cap = 16384;
    (void)state;
    fix_open(&f, "{'type':'record','name':'R','fields':["
                        " {'name':'a','type':'int'}, {'name':'r','type':'R'}]}");
    AVKT_ASSERT_STATUS(avk_value_init_tree(&v, f.root, f.arena, &f.err), AVK_ERR_SCHEMA);
    assert_string_equal(f.err.message,
                        "avk_value_init_tree: record 'R' contains itself through field 'r' of "
                        "record 'R', with no default and no union, array or map between: it "
                        "has no finite value");
    assert_ptr_equal(v.type, f.root);
    assert_null(v.u.fields);
    fix_close(&f);

    /* Through another record; and in an array item, at the append. */
    fix_open(&f, "{'type':'array','items':{'type':'record','name':'A','fields':["
                        " {'name':'b','type':{'type':'record','name':'B','fields':["
                        "   {'name':'a','type':'A'}]}}]}}");
    AVKT_OK(avk_value_init_tree(&v, f.root, f.arena, &f.err));
    AVKT_ASSERT_STATUS(avk_value_append(&v, NULL, f.arena, &item, &f.err), AVK_ERR_SCHEMA);
    assert_string_equal(f.err.message,
                        "avk_value_init_tree: record 'A' contains itself through field 'a' of "
                        "record 'B', with no default and no union, array or map between: it "
                        "has no finite value");
    assert_int_equal(v.u.array.count, 0);
    fix_close(&f);

    /* A cycle of 40 records, found 40 levels down (past the first frames
     * and the first table of types seen). */
    text = (char *)malloc(cap);
    assert_non_null(text);
    for (i = 0; i < 40; i++)
        pos += (size_t)snprintf(text + pos, cap - pos,
                                "{\"type\":\"record\",\"name\":\"C%zu\",\"fields\":[{\"name\":"
                                "\"f\",\"type\":",
                                i);
    pos += (size_t)snprintf(text + pos, cap - pos, "\"C0\"");
    for (i = 0; i < 40; i++)
        pos += (size_t)snprintf(text + pos, cap - pos, "}]}");
    memset(&f, 0, sizeof f);
    f.schema = AVKT_PARSE_RAW(text);
    AVKT_OK(avk_arena_new(NULL, &f.arena, &f.err));
    AVKT_ASSERT_STATUS(avk_value_init_tree(&v, avk_schema_root(f.schema), f.arena, &f.err),
                       AVK_ERR_SCHEMA);
    assert_string_equal(f.err.message,
                        "avk_value_init_tree: record 'C0' contains itself through field 'f' of "
                        "record 'C39', with no default and no union, array or map between: it "
                        "has no finite value");
    avk_arena_free(f.arena);
    avk_schema_free(f.schema);
    free(text);
}

/* A chain of 300 required records, each naming the one before: 300 levels
 * set up without recursion, then set at the bottom. */
static void test_deep_chain(void **state)
{
    enum { DEPTH = 300 };
    fixture f;
    char *text;
    size_t i, pos = 0, cap = 100 * DEPTH;
    const avk_type *t;
    avk_plan *plan;
    avk_value v, *cur;
    (void)state;
    text = (char *)malloc(cap);
    assert_non_null(text);
    pos += (size_t)snprintf(text + pos, cap - pos,
                            "[{\"type\":\"record\",\"name\":\"R0\",\"fields\":[{\"name\":\"x\","
                            "\"type\":\"int\"}]}");
    for (i = 1; i < DEPTH; i++)
        pos += (size_t)snprintf(text + pos, cap - pos,
                                ",{\"type\":\"record\",\"name\":\"R%zu\",\"fields\":[{\"name\":"
                                "\"f\",\"type\":\"R%zu\"}]}",
                                i, i - 1);
    snprintf(text + pos, cap - pos, "]");
    memset(&f, 0, sizeof f);
    f.schema = AVKT_PARSE_RAW(text);
    free(text);
    AVKT_OK(avk_arena_new(NULL, &f.arena, &f.err));
    AVKT_OK(avk_writer_init_memory(&f.w, NULL, &f.err));
    t = avk_type_branch(avk_schema_root(f.schema), DEPTH - 1);
    plan = avkt_plan_new(t, 0, NULL, 0);
    AVKT_OK(avk_value_init_tree(&v, t, f.arena, &f.err));
    check_value(&f, plan, &v, "00");
    cur = &v;
    for (i = 1; i < DEPTH; i++)
        AVKT_OK(avk_value_get_field(cur, "f", &cur, &f.err));
    AVKT_OK(avk_value_set_int(cur, "x", -1, &f.err));
    check_value(&f, plan, &v, "01");
    avk_plan_free(plan);
    fix_close(&f);
}

/* Branches by name: kind names, full names, unique simple names. */
static void test_choose_by_name(void **state)
{
    static const struct {
        const char *name;
        int branch; /* -1: no such branch */
    } cases[] = {{"null", 0},  {"int", 1},     {"string", 2}, {"a.P", 3},   {"b.P", 4},
                 {"P", -1},    {"Q", 5},       {"n.Q", 5},    {"array", 6}, {"map", 7},
                 {"E", 8},     {"n.F", 9},     {"long", 10},  {"timestamp-millis", -1},
                 {"record", -1}, {"boolean", -1}, {"", -1}};
    fixture f;
    avk_value v, *b, *u, *item;
    size_t i;
    char msg[AVK_ERROR_MESSAGE_MAX];
    static const int64_t longs[] = {7};
    (void)state;
    fix_open(&f, "{'type':'record','name':'U','namespace':'n','fields':[{'name':'u','type':["
                        " 'null','int','string',"
                        " {'type':'record','name':'P','namespace':'a','fields':["
                        "   {'name':'x','type':'int'}]},"
                        " {'type':'record','name':'P','namespace':'b','fields':["
                        "   {'name':'y','type':'string'}]},"
                        " {'type':'record','name':'Q','fields':[]},"
                        " {'type':'array','items':'long'},"
                        " {'type':'map','values':'string'},"
                        " {'type':'enum','name':'E','symbols':['A']},"
                        " {'type':'fixed','name':'F','size':2},"
                        " {'type':'long','logicalType':'timestamp-millis'}]}]}");
    AVKT_OK(avk_value_init_tree(&v, f.root, f.arena, &f.err));
    u = v.u.fields;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (cases[i].branch < 0) {
            snprintf(msg, sizeof msg,
                     "avk_value_choose: field 'u' of record 'n.U' is a union [null, int, string, "
                     "a.P, b.P, n.Q, array, map, n.E, n.F, long] with no branch '%s'",
                     cases[i].name);
            WRONG(&f, avk_value_choose(&v, "u", cases[i].name, f.arena, &b, &f.err), msg);
            continue;
        }
        b = NULL;
        AVKT_OK(avk_value_choose(&v, "u", cases[i].name, f.arena, &b, &f.err));
        assert_int_equal(u->u.branch.index, (uint32_t)cases[i].branch);
        assert_ptr_equal(u->u.branch.value, b);
        assert_ptr_equal(b->type, avk_type_branch(u->type, (size_t)cases[i].branch));
    }
    /* Each branch set up and encoded. */
    AVKT_OK(avk_value_choose(&v, "u", "a.P", f.arena, &b, &f.err));
    AVKT_OK(avk_value_set_int(b, "x", 5, &f.err));
    check_value(&f, f.plan, &v, "06" "0a");
    WRONG(&f, avk_value_set_int(&v, "u", 9, &f.err),
          "avk_value_set_int: field 'u' of record 'n.U' is a union [null, int, string, a.P, b.P, "
          "n.Q, array, map, n.E, n.F, long] with its branch a.P chosen, not an int");
    AVKT_OK(avk_value_choose(&v, "u", "b.P", f.arena, &b, &f.err));
    AVKT_OK(avk_value_set_string(b, "y", "z", f.arena, &f.err));
    check_value(&f, f.plan, &v, "08" "027a");
    AVKT_OK(avk_value_choose(&v, "u", "array", f.arena, NULL, &f.err));
    AVKT_OK(avk_value_append_items(&v, "u", longs, 1, f.arena, &f.err)); /* through the branch */
    check_value(&f, f.plan, &v, "0c" "020e00");
    AVKT_OK(avk_value_choose(&v, "u", "map", f.arena, NULL, &f.err));
    AVKT_OK(avk_value_put(&v, "u", "k", f.arena, &item, &f.err));
    AVKT_OK(avk_value_set_string(item, NULL, "v", f.arena, &f.err));
    check_value(&f, f.plan, &v, "0e" "02026b027600");
    AVKT_OK(avk_value_choose(&v, "u", "n.F", f.arena, NULL, &f.err));
    check_value(&f, f.plan, &v, "12" "0000"); /* a fixed starts as zero bytes */
    AVKT_OK(avk_value_set_fixed(&v, "u", "ok", 2, NULL, &f.err));
    check_value(&f, f.plan, &v, "12" "6f6b");
    AVKT_OK(avk_value_choose(&v, "u", "long", f.arena, NULL, &f.err));
    AVKT_OK(avk_value_set_long(&v, "u", 1000, &f.err));
    check_value(&f, f.plan, &v, "14" "d00f");
    AVKT_OK(avk_value_choose(&v, "u", "int", f.arena, NULL, &f.err));
    AVKT_OK(avk_value_set_int(&v, "u", -1, &f.err));
    check_value(&f, f.plan, &v, "02" "01");
    fix_close(&f);
}

/* Unions as array items and map values. */
static void test_unions_in_collections(void **state)
{
    fixture f;
    avk_value v, *item;
    (void)state;
    fix_open(&f, "{'type':'record','name':'C','fields':["
                        " {'name':'a','type':{'type':'array','items':['null','string']}},"
                        " {'name':'m','type':{'type':'map','values':['int','null']}}]}");
    AVKT_OK(avk_value_init_tree(&v, f.root, f.arena, &f.err));
    AVKT_OK(avk_value_append(&v, "a", f.arena, &item, &f.err));
    AVKT_OK(avk_value_choose(item, NULL, "string", f.arena, NULL, &f.err));
    AVKT_OK(avk_value_set_string(item, NULL, "s", f.arena, &f.err));
    AVKT_OK(avk_value_append(&v, "a", f.arena, &item, &f.err));
    AVKT_OK(avk_value_choose(item, NULL, "null", f.arena, NULL, &f.err));
    AVKT_OK(avk_value_put(&v, "m", "one", f.arena, &item, &f.err));
    AVKT_OK(avk_value_choose(item, NULL, "int", f.arena, NULL, &f.err));
    AVKT_OK(avk_value_set_int(item, NULL, 1, &f.err));
    AVKT_OK(avk_value_put(&v, "m", "none", f.arena, &item, &f.err));
    WRONG(&f, avk_value_set_int(item, NULL, 1, &f.err),
          "avk_value_set_int: the value is a union [int, null] with no branch chosen, not an int");
    AVKT_OK(avk_value_choose(item, NULL, "null", f.arena, NULL, &f.err));
    check_value(&f, f.plan, &v,
                "04" "020273" "00" "00"                /* a ["s", null] */
                "04" "066f6e65" "0002" "086e6f6e65" "02" "00"); /* m {"one": 1, "none": null} */
    fix_close(&f);
}

/* Appends and puts grow by doubling: memory stays linear, items stay in
 * order, whatever is appended in between. */
static void test_growth(void **state)
{
    enum { N = 20000 };
    fixture f;
    avk_value v, *item, *child, copy;
    size_t i;
    char key[32];
    int32_t x;
    (void)state;
    fix_open(&f, "{'type':'record','name':'G','fields':["
                        " {'name':'s','type':{'type':'array','items':'string'}},"
                        " {'name':'r','type':{'type':'array','items':{'type':'record','name':'I',"
                        "   'fields':[{'name':'xs','type':{'type':'array','items':'int'}}]}}},"
                        " {'name':'m','type':{'type':'map','values':'int'}}]}");
    AVKT_OK(avk_value_init_tree(&v, f.root, f.arena, &f.err));
    /* Three collections grown in turn, with items allocated between. */
    for (i = 0; i < N; i++) {
        AVKT_OK(avk_value_append(&v, "s", f.arena, &item, &f.err));
        AVKT_OK(avk_value_set_string(item, NULL, "x", NULL, &f.err));
        AVKT_OK(avk_value_append(&v, "r", f.arena, &child, &f.err));
        x = (int32_t)i;
        AVKT_OK(avk_value_append_items(child, "xs", &x, 1, f.arena, &f.err));
        snprintf(key, sizeof key, "k%zu", i);
        AVKT_OK(avk_value_put(&v, "m", key, f.arena, &item, &f.err));
        AVKT_OK(avk_value_set_int(item, NULL, (int32_t)i, &f.err));
    }
    assert_int_equal(v.u.fields[0].u.array.count, N);
    assert_int_equal(v.u.fields[1].u.array.count, N);
    assert_int_equal(v.u.fields[2].u.map.count, N);
    for (i = 0; i < N; i++) {
        const avk_value *r = &((const avk_value *)v.u.fields[1].u.array.items)[i];
        snprintf(key, sizeof key, "k%zu", i);
        assert_int_equal(((const int32_t *)r->u.fields[0].u.array.items)[0], (int32_t)i);
        assert_bytes_text(&v.u.fields[2].u.map.keys[i], key);
        assert_int_equal(v.u.fields[2].u.map.values[i].u.i, (int32_t)i);
    }
    /* Per round: a string item, a record item with its field and its int
     * (4 bytes in room for 4), a key and a map value: under 200 bytes. The
     * storage given up at each doubling stays in the arena, so the arrays
     * take up to 4 times their final size: 32 * 4 * 3 + 16 * 4 more. About
     * 700 bytes a round in all (14 MB); copying at each append would take
     * N^2 / 2 * 32 bytes a collection, 6.4 GB. */
    assert_true(avk_arena_bytes(f.arena) < (size_t)N * 1000);

    /* A copy of the value that falls behind never writes over the original. */
    copy = v.u.fields[0];
    AVKT_OK(avk_value_append(&v, "s", f.arena, &item, &f.err));
    AVKT_OK(avk_value_set_string(item, NULL, "original", NULL, &f.err));
    AVKT_OK(avk_value_append(&copy, NULL, f.arena, &item, &f.err));
    AVKT_OK(avk_value_set_string(item, NULL, "copy", NULL, &f.err));
    assert_text(&((const avk_value *)v.u.fields[0].u.array.items)[N], "original");
    assert_text(&((const avk_value *)copy.u.array.items)[N], "copy");
    fix_close(&f);
}

/* Storage that did not come from appends (decoded, avk_value_init) is
 * copied once, then grows. */
static void test_append_to_foreign_storage(void **state)
{
    fixture f;
    avk_value v, arr, *item;
    avk_reader r;
    uint8_t bytes[16];
    size_t n = avkt_unhex("06020406" "00", bytes, sizeof bytes); /* [1, 2, 3] */
    static const int32_t more[] = {4, 5};
    const int32_t *items;
    (void)state;
    fix_open(&f, "{'type':'array','items':'int'}");
    avk_reader_init_memory(&r, bytes, n);
    AVKT_OK(avk_plan_decode(f.plan, &r, f.arena, &v, &f.err));
    items = (const int32_t *)v.u.array.items;
    AVKT_OK(avk_value_append_items(&v, NULL, more, 2, f.arena, &f.err));
    assert_ptr_not_equal(v.u.array.items, items); /* copied: the decoded array had no room */
    assert_int_equal(items[0], 1); /* and left as it was */
    check_value(&f, f.plan, &v, "0a" "020406080a" "00"); /* [1, 2, 3, 4, 5] */
    fix_close(&f);

    fix_open(&f, "{'type':'array','items':'string'}");
    AVKT_OK(avk_value_init(&arr, f.root, 2, f.arena, &f.err));
    AVKT_OK(avk_value_set_string(&((avk_value *)arr.u.array.items)[0], NULL, "a", NULL, &f.err));
    AVKT_OK(avk_value_set_string(&((avk_value *)arr.u.array.items)[1], NULL, "b", NULL, &f.err));
    AVKT_OK(avk_value_append(&arr, NULL, f.arena, &item, &f.err));
    AVKT_OK(avk_value_set_string(item, NULL, "c", NULL, &f.err));
    check_value(&f, f.plan, &arr, "06026102620263" "00");
    fix_close(&f);
}

/* Builds USER and a 300-record chain; every status is returned. */
static avk_status oom_workload(const avk_type *user, const avk_type *chain, avk_arena *arena,
                               avk_error *err)
{
    avk_value u, c, *item;
    size_t i;
    AVK_TRY_T(build_user(&u, user, arena, err));
    for (i = 0; i < 40; i++) {
        AVK_TRY_T(avk_value_append(&u, "emails", arena, &item, err));
        AVK_TRY_T(avk_value_put(&u, "attrs", "key", arena, &item, err));
    }
    return avk_value_init_tree(&c, chain, arena, err);
}

/* Fail each allocation in turn: NO_MEMORY from the call that needed it,
 * and nothing leaks (init_tree's heap stack and table included). */
static void test_out_of_memory(void **state)
{
    avkt_failalloc fa;
    avk_arena_options opts;
    avk_arena *arena;
    avk_schema *user, *chain;
    avk_error err;
    char text[8192];
    size_t pos = 0, i;
    long n, calls;
    (void)state;
    user = AVKT_PARSE(USER);
    pos += (size_t)snprintf(text + pos, sizeof text - pos,
                            "[{\"type\":\"record\",\"name\":\"R0\",\"fields\":[]}");
    for (i = 1; i < 80; i++)
        pos += (size_t)snprintf(text + pos, sizeof text - pos,
                                ",{\"type\":\"record\",\"name\":\"R%zu\",\"fields\":[{\"name\":"
                                "\"f\",\"type\":\"R%zu\"}]}",
                                i, i - 1);
    snprintf(text + pos, sizeof text - pos, "]");
    chain = AVKT_PARSE_RAW(text);
    avk_arena_options_init(&opts);
    opts.allocator = &fa.allocator;
    opts.block_size = 64;
    avkt_failalloc_init(&fa, 0);
    AVKT_OK(avk_arena_new(&opts, &arena, &err));
    AVKT_OK(oom_workload(avk_schema_root(user), avk_type_branch(avk_schema_root(chain), 79),
                         arena, &err));
    avk_arena_free(arena);
    assert_int_equal(fa.live_blocks, 0);
    calls = fa.calls;
    assert_true(calls >= 10); /* blocks of 64 bytes, doubling */
    for (n = 2; n <= calls; n++) {
        avkt_failalloc_init(&fa, n);
        AVKT_OK(avk_arena_new(&opts, &arena, &err));
        AVKT_ASSERT_STATUS(oom_workload(avk_schema_root(user),
                                        avk_type_branch(avk_schema_root(chain), 79), arena, &err),
                           AVK_ERR_NO_MEMORY);
        assert_int_equal(err.status, AVK_ERR_NO_MEMORY);
        avk_arena_free(arena);
        assert_int_equal(fa.live_blocks, 0);
        assert_int_equal(fa.size_mismatches, 0);
    }
    avk_schema_free(chain);
    avk_schema_free(user);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(avkt_test_kernel_choice),
        cmocka_unit_test(test_tree_is_complete),
        cmocka_unit_test(test_user_tree),
        cmocka_unit_test(test_setters),
        cmocka_unit_test(test_errors_at_the_call),
        cmocka_unit_test(test_recursive_list),
        cmocka_unit_test(test_recursive_collections),
        cmocka_unit_test(test_self_containing_records),
        cmocka_unit_test(test_deep_chain),
        cmocka_unit_test(test_choose_by_name),
        cmocka_unit_test(test_unions_in_collections),
        cmocka_unit_test(test_growth),
        cmocka_unit_test(test_append_to_foreign_storage),
        cmocka_unit_test(test_out_of_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
