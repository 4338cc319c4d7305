/* Unit tests for generic values: init per kind, union branches, field lookup, deep equality. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "avkt.h"
#include "common/error.h"
#include "failalloc.h"

static const char ALL_KINDS[] =
    "{\"type\": \"record\", \"name\": \"All\", \"fields\": ["
    " {\"name\": \"n\", \"type\": \"null\"},"
    " {\"name\": \"b\", \"type\": \"boolean\"},"
    " {\"name\": \"i\", \"type\": \"int\"},"
    " {\"name\": \"l\", \"type\": \"long\"},"
    " {\"name\": \"f\", \"type\": \"float\"},"
    " {\"name\": \"d\", \"type\": \"double\"},"
    " {\"name\": \"by\", \"type\": \"bytes\"},"
    " {\"name\": \"s\", \"type\": \"string\"},"
    " {\"name\": \"e\", \"type\": {\"type\": \"enum\", \"name\": \"E\", \"symbols\": [\"A\", \"B\"]}},"
    " {\"name\": \"fx\", \"type\": {\"type\": \"fixed\", \"name\": \"F3\", \"size\": 3}},"
    " {\"name\": \"u\", \"type\": [\"null\", \"string\", \"All\"]},"
    " {\"name\": \"ai\", \"type\": {\"type\": \"array\", \"items\": \"int\"}},"
    " {\"name\": \"al\", \"type\": {\"type\": \"array\", \"items\": \"long\"}},"
    " {\"name\": \"ab\", \"type\": {\"type\": \"array\", \"items\": \"boolean\"}},"
    " {\"name\": \"af\", \"type\": {\"type\": \"array\", \"items\": \"float\"}},"
    " {\"name\": \"ad\", \"type\": {\"type\": \"array\", \"items\": \"double\"}},"
    " {\"name\": \"an\", \"type\": {\"type\": \"array\", \"items\": \"null\"}},"
    " {\"name\": \"afx\", \"type\": {\"type\": \"array\", \"items\": \"F3\"}},"
    " {\"name\": \"as\", \"type\": {\"type\": \"array\", \"items\": \"string\"}},"
    " {\"name\": \"m\", \"type\": {\"type\": \"map\", \"values\": \"long\"}}"
    "]}";

enum { F_N, F_B, F_I, F_L, F_F, F_D, F_BY, F_S, F_E, F_FX, F_U, F_AI, F_AL, F_AB, F_AF, F_AD,
       F_AN, F_AFX, F_AS, F_M, F_COUNT };

typedef struct fixture {
    avk_schema *schema, *schema2; /* the same text parsed twice */
    const avk_type *root, *root2;
    avk_arena *arena;
} fixture;

static int setup(void **state)
{
    static fixture fx;
    avk_error err;
    memset(&fx, 0, sizeof fx);
    if (avk_schema_parse(ALL_KINDS, strlen(ALL_KINDS), NULL, &fx.schema, &err) != AVK_OK ||
        avk_schema_parse(ALL_KINDS, strlen(ALL_KINDS), NULL, &fx.schema2, &err) != AVK_OK ||
        avk_arena_new(NULL, &fx.arena, &err) != AVK_OK)
        return -1;
    fx.root = avk_schema_root(fx.schema);
    fx.root2 = avk_schema_root(fx.schema2);
    *state = &fx;
    return 0;
}

static int teardown(void **state)
{
    fixture *fx = (fixture *)*state;
    avk_schema_free(fx->schema);
    avk_schema_free(fx->schema2);
    avk_arena_free(fx->arena);
    return 0;
}

static const avk_type *field_type(const avk_type *rec, size_t i)
{
    return avk_field_type(avk_type_field(rec, i));
}

static void test_init_record(void **state)
{
    fixture *fx = (fixture *)*state;
    avk_value v;
    avk_error err;
    size_t i;
    memset(&v, 0xee, sizeof v);
    AVKT_OK(avk_value_init(&v, fx->root, 0, fx->arena, &err));
    assert_ptr_equal(v.type, fx->root);
    assert_non_null(v.u.fields);
    for (i = 0; i < F_COUNT; i++) {
        const avk_value *f = &v.u.fields[i];
        assert_ptr_equal(f->type, field_type(fx->root, i));
        /* Zeroed: the caller fills u only. */
        assert_null(f->u.array.items);
        assert_int_equal(f->u.array.count, 0);
    }
    /* Sub-records are not set up: only their type is. */
    assert_int_equal(avk_type_kind(v.u.fields[F_U].type), AVK_UNION);
}

static void test_init_scalars(void **state)
{
    fixture *fx = (fixture *)*state;
    avk_value v;
    avk_error err;
    size_t i;
    /* Kinds without storage need no arena. */
    for (i = 0; i < F_COUNT; i++) {
        const avk_type *t = field_type(fx->root, i);
        avk_kind k = avk_type_kind(t);
        if (k == AVK_ARRAY || k == AVK_MAP || k == AVK_RECORD)
            continue;
        memset(&v, 0x55, sizeof v);
        AVKT_OK(avk_value_init(&v, t, 7, NULL, &err));
        assert_ptr_equal(v.type, t);
        assert_null(v.u.bytes.data);
        assert_int_equal(v.u.bytes.len, 0);
    }
    /* Empty arrays and maps need none either. */
    AVKT_OK(avk_value_init(&v, field_type(fx->root, F_AS), 0, NULL, &err));
    assert_null(v.u.array.items);
    assert_int_equal(v.u.array.count, 0);
    AVKT_OK(avk_value_init(&v, field_type(fx->root, F_M), 0, NULL, &err));
    assert_null(v.u.map.keys);
    assert_null(v.u.map.values);
    /* A record does. */
    AVKT_ASSERT_STATUS(avk_value_init(&v, fx->root, 0, NULL, &err), AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_value_init(NULL, fx->root, 0, fx->arena, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_value_init(&v, NULL, 0, fx->arena, &err), AVK_ERR_INVALID_ARGUMENT);
    assert_int_equal(err.status, AVK_ERR_INVALID_ARGUMENT);
}

static void test_init_arrays(void **state)
{
    static const struct {
        int field;
        size_t item_size;
    } typed[] = {{F_AI, 4}, {F_AL, 8}, {F_AB, 1}, {F_AF, 4}, {F_AD, 8}, {F_AFX, 3}};
    fixture *fx = (fixture *)*state;
    avk_value v;
    avk_error err;
    size_t i, j, size;
    for (i = 0; i < sizeof typed / sizeof typed[0]; i++) {
        const avk_type *t = field_type(fx->root, (size_t)typed[i].field);
        unsigned char *items;
        assert_int_equal(avk_array_is_typed(t, &size), 1);
        assert_int_equal(size, typed[i].item_size);
        AVKT_OK(avk_value_init(&v, t, 5, fx->arena, &err));
        assert_int_equal(v.u.array.count, 5);
        items = (unsigned char *)v.u.array.items;
        assert_non_null(items);
        assert_int_equal((uintptr_t)items % (size == 3 ? 1 : size), 0);
        for (j = 0; j < 5 * size; j++)
            assert_int_equal(items[j], 0);
    }
    /* Null items take no storage. */
    AVKT_OK(avk_value_init(&v, field_type(fx->root, F_AN), 1000, fx->arena, &err));
    assert_int_equal(v.u.array.count, 1000);
    assert_null(v.u.array.items);
    /* Boxed items get their type. */
    AVKT_OK(avk_value_init(&v, field_type(fx->root, F_AS), 4, fx->arena, &err));
    assert_int_equal(avk_array_is_typed(v.type, NULL), 0);
    for (j = 0; j < 4; j++) {
        const avk_value *item = &((const avk_value *)v.u.array.items)[j];
        assert_ptr_equal(item->type, avk_type_items(v.type));
        assert_int_equal(item->u.bytes.len, 0);
    }
    /* Maps: zeroed keys, typed values. */
    AVKT_OK(avk_value_init(&v, field_type(fx->root, F_M), 3, fx->arena, &err));
    assert_int_equal(v.u.map.count, 3);
    for (j = 0; j < 3; j++) {
        assert_null(v.u.map.keys[j].data);
        assert_int_equal(v.u.map.keys[j].len, 0);
        assert_ptr_equal(v.u.map.values[j].type, avk_type_values(v.type));
        AVKT_ASSERT_I64_EQ(v.u.map.values[j].u.l, 0);
    }
    /* A count whose size overflows is refused before the arena is asked. */
    AVKT_ASSERT_STATUS(avk_value_init(&v, field_type(fx->root, F_AL), SIZE_MAX / 4, fx->arena,
                                      &err),
                       AVK_ERR_NO_MEMORY);
    assert_null(v.u.array.items);
    assert_int_equal(v.u.array.count, 0);
    AVKT_ASSERT_STATUS(avk_value_init(&v, field_type(fx->root, F_M), SIZE_MAX / 8, fx->arena,
                                      &err),
                       AVK_ERR_NO_MEMORY);
    assert_int_equal(v.u.map.count, 0);
}

static void test_set_branch(void **state)
{
    fixture *fx = (fixture *)*state;
    avk_value v;
    avk_error err;
    const avk_type *ut = field_type(fx->root, F_U);
    AVKT_OK(avk_value_init(&v, ut, 0, fx->arena, &err));
    AVKT_OK(avk_value_set_branch(&v, 1, fx->arena, &err));
    assert_int_equal(v.u.branch.index, 1);
    assert_ptr_equal(v.u.branch.value->type, avk_type_branch(ut, 1));
    assert_int_equal(v.u.branch.value->u.bytes.len, 0);
    /* A record branch is set up as avk_value_init does. */
    AVKT_OK(avk_value_set_branch(&v, 2, fx->arena, &err));
    assert_int_equal(v.u.branch.index, 2);
    assert_ptr_equal(v.u.branch.value->type, fx->root);
    assert_non_null(v.u.branch.value->u.fields);
    assert_ptr_equal(v.u.branch.value->u.fields[F_S].type, field_type(fx->root, F_S));
    /* Errors leave the value as it was. */
    AVKT_ASSERT_STATUS(avk_value_set_branch(&v, 3, fx->arena, &err), AVK_ERR_INVALID_ARGUMENT);
    assert_int_equal(v.u.branch.index, 2);
    AVKT_ASSERT_STATUS(avk_value_set_branch(&v, 0, NULL, &err), AVK_ERR_INVALID_ARGUMENT);
    AVKT_OK(avk_value_init(&v, field_type(fx->root, F_S), 0, NULL, &err));
    AVKT_ASSERT_STATUS(avk_value_set_branch(&v, 0, fx->arena, &err), AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_value_set_branch(NULL, 0, fx->arena, &err), AVK_ERR_INVALID_ARGUMENT);
}

static void test_field(void **state)
{
    fixture *fx = (fixture *)*state;
    avk_value v, s;
    avk_error err;
    AVKT_OK(avk_value_init(&v, fx->root, 0, fx->arena, &err));
    assert_ptr_equal(avk_value_field(&v, "n"), &v.u.fields[F_N]);
    assert_ptr_equal(avk_value_field(&v, "fx"), &v.u.fields[F_FX]);
    assert_ptr_equal(avk_value_field(&v, "m"), &v.u.fields[F_M]);
    assert_null(avk_value_field(&v, "nope"));
    assert_null(avk_value_field(&v, ""));
    assert_null(avk_value_field(&v, NULL));
    assert_null(avk_value_field(NULL, "n"));
    AVKT_OK(avk_value_init(&s, field_type(fx->root, F_S), 0, NULL, &err));
    assert_null(avk_value_field(&s, "n"));
}

/* Fills a record with the same data (per seed) whichever schema it uses. */
static void fill(avk_value *v, const avk_type *root, avk_arena *arena, int seed)
{
    static const uint8_t fixed3[3] = {1, 2, 3};
    avk_value *f;
    avk_error err;
    size_t i;
    AVKT_OK(avk_value_init(v, root, 0, arena, &err));
    f = v->u.fields;
    f[F_B].u.boolean = 1;
    f[F_I].u.i = -7 * seed;
    f[F_L].u.l = INT64_MIN + seed;
    f[F_F].u.f = 1.5f;
    f[F_D].u.d = -2.25;
    f[F_BY].u.bytes.data = (const uint8_t *)"\x00\x01\xff";
    f[F_BY].u.bytes.len = 3;
    f[F_S].u.bytes.data = (const uint8_t *)"hello";
    f[F_S].u.bytes.len = 5;
    f[F_E].u.index = 1;
    f[F_FX].u.bytes.data = fixed3;
    f[F_FX].u.bytes.len = 3;
    AVKT_OK(avk_value_set_branch(&f[F_U], 1, arena, &err));
    f[F_U].u.branch.value->u.bytes.data = (const uint8_t *)"branch";
    f[F_U].u.branch.value->u.bytes.len = 6;
    AVKT_OK(avk_value_init(&f[F_AI], f[F_AI].type, 3, arena, &err));
    for (i = 0; i < 3; i++)
        ((int32_t *)f[F_AI].u.array.items)[i] = (int32_t)i * seed;
    AVKT_OK(avk_value_init(&f[F_AD], f[F_AD].type, 2, arena, &err));
    ((double *)f[F_AD].u.array.items)[0] = 0.5;
    ((double *)f[F_AD].u.array.items)[1] = NAN;
    AVKT_OK(avk_value_init(&f[F_AN], f[F_AN].type, 4, arena, &err));
    AVKT_OK(avk_value_init(&f[F_AFX], f[F_AFX].type, 2, arena, &err));
    memcpy(f[F_AFX].u.array.items, "abcdef", 6);
    AVKT_OK(avk_value_init(&f[F_AS], f[F_AS].type, 2, arena, &err));
    ((avk_value *)f[F_AS].u.array.items)[0].u.bytes.data = (const uint8_t *)"x";
    ((avk_value *)f[F_AS].u.array.items)[0].u.bytes.len = 1;
    AVKT_OK(avk_value_init(&f[F_M], f[F_M].type, 2, arena, &err));
    f[F_M].u.map.keys[0].data = (const uint8_t *)"k1";
    f[F_M].u.map.keys[0].len = 2;
    f[F_M].u.map.values[0].u.l = 10;
    f[F_M].u.map.keys[1].data = (const uint8_t *)"k2";
    f[F_M].u.map.keys[1].len = 2;
    f[F_M].u.map.values[1].u.l = 20;
}

static void test_equal_records(void **state)
{
    fixture *fx = (fixture *)*state;
    avk_value a, b;
    avk_value *fa, *fb;
    avk_bytes k;
    avk_value mv;
    fill(&a, fx->root, fx->arena, 3);
    fill(&b, fx->root2, fx->arena, 3); /* another schema of the same shape */
    assert_int_equal(avk_value_equal(&a, &b), 1);
    assert_int_equal(avk_value_equal(&a, &a), 1);
    fa = a.u.fields;
    fb = b.u.fields;

    /* Each change is seen, and undoing it restores equality. */
#define FLIP(expr_change, expr_undo)                   \
    do {                                               \
        expr_change;                                   \
        assert_int_equal(avk_value_equal(&a, &b), 0);  \
        assert_int_equal(avk_value_equal(&b, &a), 0);  \
        expr_undo;                                     \
        assert_int_equal(avk_value_equal(&a, &b), 1);  \
    } while (0)
    FLIP(fb[F_B].u.boolean = 0, fb[F_B].u.boolean = 1);
    FLIP(fb[F_I].u.i++, fb[F_I].u.i--);
    FLIP(fb[F_L].u.l++, fb[F_L].u.l--);
    FLIP(fb[F_F].u.f = -1.5f, fb[F_F].u.f = 1.5f);
    FLIP(fb[F_BY].u.bytes.len = 2, fb[F_BY].u.bytes.len = 3);
    FLIP(fb[F_S].u.bytes.data = (const uint8_t *)"hellO", fb[F_S].u.bytes.data = (const uint8_t *)"hello");
    FLIP(fb[F_E].u.index = 0, fb[F_E].u.index = 1);
    FLIP(fb[F_FX].u.bytes.data = (const uint8_t *)"\x01\x02\x04",
         fb[F_FX].u.bytes.data = fa[F_FX].u.bytes.data);
    FLIP(fb[F_U].u.branch.index = 0, fb[F_U].u.branch.index = 1);
    FLIP(fb[F_U].u.branch.value->u.bytes.len = 5, fb[F_U].u.branch.value->u.bytes.len = 6);
    FLIP(((int32_t *)fb[F_AI].u.array.items)[2] = 0, ((int32_t *)fb[F_AI].u.array.items)[2] = 6);
    FLIP(fb[F_AI].u.array.count = 2, fb[F_AI].u.array.count = 3);
    FLIP(fb[F_AN].u.array.count = 5, fb[F_AN].u.array.count = 4);
    FLIP(((char *)fb[F_AFX].u.array.items)[5] = 'g', ((char *)fb[F_AFX].u.array.items)[5] = 'f');
    FLIP(((avk_value *)fb[F_AS].u.array.items)[1].u.bytes.len = 1,
         ((avk_value *)fb[F_AS].u.array.items)[1].u.bytes.len = 0);
    FLIP(fb[F_M].u.map.values[1].u.l = 21, fb[F_M].u.map.values[1].u.l = 20);
    FLIP(fb[F_M].u.map.keys[0].data = (const uint8_t *)"k3", fb[F_M].u.map.keys[0].data = (const uint8_t *)"k1");
    FLIP(fb[F_M].u.map.count = 1, fb[F_M].u.map.count = 2);
    /* Maps compare in order: the same entries swapped differ. */
    k = fb[F_M].u.map.keys[0];
    mv = fb[F_M].u.map.values[0];
    FLIP((fb[F_M].u.map.keys[0] = fb[F_M].u.map.keys[1], fb[F_M].u.map.values[0] = fb[F_M].u.map.values[1],
          fb[F_M].u.map.keys[1] = k, fb[F_M].u.map.values[1] = mv),
         (fb[F_M].u.map.keys[1] = fb[F_M].u.map.keys[0], fb[F_M].u.map.values[1] = fb[F_M].u.map.values[0],
          fb[F_M].u.map.keys[0] = k, fb[F_M].u.map.values[0] = mv));
#undef FLIP
    /* Different kinds never compare equal. */
    assert_int_equal(avk_value_equal(&fa[F_I], &fa[F_E]), 0);
    assert_int_equal(avk_value_equal(&fa[F_S], &fa[F_BY]), 0);
    assert_int_equal(avk_value_equal(&fa[F_AI], &fa[F_AL]), 0);
    assert_int_equal(avk_value_equal(NULL, NULL), 1);
    assert_int_equal(avk_value_equal(&a, NULL), 0);
}

static void test_equal_floats_bitwise(void **state)
{
    fixture *fx = (fixture *)*state;
    avk_value a, b;
    avk_error err;
    uint64_t bits;
    double nan2;
    float fa, fb;
    AVKT_OK(avk_value_init(&a, field_type(fx->root, F_D), 0, NULL, &err));
    AVKT_OK(avk_value_init(&b, field_type(fx->root2, F_D), 0, NULL, &err));
    a.u.d = NAN;
    b.u.d = NAN;
    assert_int_equal(avk_value_equal(&a, &b), 1); /* the same NaN */
    memcpy(&bits, &a.u.d, 8);
    bits ^= 1; /* another payload */
    memcpy(&nan2, &bits, 8);
    b.u.d = nan2;
    assert_int_equal(avk_value_equal(&a, &b), 0);
    a.u.d = 0.0;
    b.u.d = -0.0;
    assert_int_equal(avk_value_equal(&a, &b), 0);
    b.u.d = 0.0;
    assert_int_equal(avk_value_equal(&a, &b), 1);
    AVKT_OK(avk_value_init(&a, field_type(fx->root, F_F), 0, NULL, &err));
    AVKT_OK(avk_value_init(&b, field_type(fx->root, F_F), 0, NULL, &err));
    fa = 0.0f;
    fb = -0.0f;
    a.u.f = fa;
    b.u.f = fb;
    assert_int_equal(avk_value_equal(&a, &b), 0);
    /* Typed float arrays: bit for bit too. */
    AVKT_OK(avk_value_init(&a, field_type(fx->root, F_AF), 2, fx->arena, &err));
    AVKT_OK(avk_value_init(&b, field_type(fx->root, F_AF), 2, fx->arena, &err));
    ((float *)a.u.array.items)[0] = NAN;
    ((float *)b.u.array.items)[0] = NAN;
    assert_int_equal(avk_value_equal(&a, &b), 1);
    ((float *)b.u.array.items)[1] = -0.0f;
    assert_int_equal(avk_value_equal(&a, &b), 0);
}

/* Node -> union -> Node ...: two levels of nesting per link. */
static const char LIST[] =
    "{\"type\": \"record\", \"name\": \"Node\", \"fields\": ["
    " {\"name\": \"v\", \"type\": \"int\"},"
    " {\"name\": \"next\", \"type\": [\"null\", \"Node\"]}]}";

static void build_list(avk_value *head, const avk_type *node, size_t links, int last, avk_arena *arena)
{
    avk_value *cur = head;
    avk_error err;
    size_t i;
    AVKT_OK(avk_value_init(cur, node, 0, arena, &err));
    for (i = 0; i < links; i++) {
        cur->u.fields[0].u.i = (int32_t)i;
        AVKT_OK(avk_value_set_branch(&cur->u.fields[1], 1, arena, &err));
        cur = cur->u.fields[1].u.branch.value;
        AVKT_OK(avk_value_init(cur, node, 0, arena, &err));
    }
    cur->u.fields[0].u.i = last;
    AVKT_OK(avk_value_set_branch(&cur->u.fields[1], 0, arena, &err));
}

/* Node -> union -> Node with the link first: every record has a field
 * left to compare after its link, so the comparison keeps a frame a
 * level (its stack grows on the heap). */
static const char HEAD_LIST[] =
    "{\"type\": \"record\", \"name\": \"Head\", \"fields\": ["
    " {\"name\": \"next\", \"type\": [\"null\", \"Head\"]},"
    " {\"name\": \"v\", \"type\": \"int\"}]}";

static void build_head_list(avk_value *head, const avk_type *node, size_t links, int last,
                            avk_arena *arena)
{
    avk_value *cur = head;
    avk_error err;
    size_t i;
    AVKT_OK(avk_value_init(cur, node, 0, arena, &err));
    for (i = 0; i < links; i++) {
        cur->u.fields[1].u.i = (int32_t)i;
        AVKT_OK(avk_value_set_branch(&cur->u.fields[0], 1, arena, &err));
        cur = cur->u.fields[0].u.branch.value;
        AVKT_OK(avk_value_init(cur, node, 0, arena, &err));
    }
    cur->u.fields[1].u.i = last;
    AVKT_OK(avk_value_set_branch(&cur->u.fields[0], 0, arena, &err));
}

/* Any depth compares (it used to stop at 1024 levels, reporting unequal):
 * 100,000 links are 200,000 levels, with the link last (no stack) and
 * first (a frame a level); a difference at the very bottom shows. */
static void test_equal_deep(void **state)
{
    fixture *fx = (fixture *)*state;
    avk_schema *s, *h;
    avk_error err;
    avk_value a, b;
    AVKT_OK(avk_schema_parse(LIST, strlen(LIST), NULL, &s, &err));
    AVKT_OK(avk_schema_parse(HEAD_LIST, strlen(HEAD_LIST), NULL, &h, &err));
    build_list(&a, avk_schema_root(s), 400, 1, fx->arena);
    build_list(&b, avk_schema_root(s), 400, 1, fx->arena);
    assert_int_equal(avk_value_equal(&a, &b), 1);
    build_list(&b, avk_schema_root(s), 400, 2, fx->arena);
    assert_int_equal(avk_value_equal(&a, &b), 0);
    build_list(&b, avk_schema_root(s), 399, 1, fx->arena);
    assert_int_equal(avk_value_equal(&a, &b), 0);
    build_list(&a, avk_schema_root(s), 100000, 1, fx->arena);
    build_list(&b, avk_schema_root(s), 100000, 1, fx->arena);
    assert_int_equal(avk_value_equal(&a, &b), 1);
    build_list(&b, avk_schema_root(s), 100000, 2, fx->arena);
    assert_int_equal(avk_value_equal(&a, &b), 0);
    build_list(&b, avk_schema_root(s), 99999, 1, fx->arena);
    assert_int_equal(avk_value_equal(&a, &b), 0);
    build_head_list(&a, avk_schema_root(h), 100000, 7, fx->arena);
    build_head_list(&b, avk_schema_root(h), 100000, 7, fx->arena);
    assert_int_equal(avk_value_equal(&a, &b), 1);
    build_head_list(&b, avk_schema_root(h), 100000, 8, fx->arena);
    assert_int_equal(avk_value_equal(&a, &b), 0);
    build_head_list(&b, avk_schema_root(h), 100001, 7, fx->arena);
    assert_int_equal(avk_value_equal(&a, &b), 0);
    avk_schema_free(s);
    avk_schema_free(h);
}

/* Record, array of 100 strings, then a record branch: the allocator calls
 * it takes with an arena of 64-byte blocks. */
static avk_status oom_workload(const avk_type *root, avk_arena *arena, avk_error *err)
{
    avk_value rec, arr;
    AVK_TRY(avk_value_init(&rec, root, 0, arena, err));
    AVK_TRY(avk_value_init(&arr, field_type(root, F_AS), 100, arena, err));
    return avk_value_set_branch(&rec.u.fields[F_U], 2, arena, err);
}

static void test_out_of_memory(void **state)
{
    fixture *fx = (fixture *)*state;
    avkt_failalloc fa;
    avk_arena_options opts;
    avk_arena *arena;
    avk_error err;
    avk_value v;
    long n, calls;
    memset(&opts, 0, sizeof opts);
    opts.struct_size = sizeof opts;
    opts.allocator = &fa.allocator;
    opts.block_size = 64;
    avkt_failalloc_init(&fa, 0);
    AVKT_OK(avk_arena_new(&opts, &arena, &err));
    AVKT_OK(oom_workload(fx->root, arena, &err));
    avk_arena_free(arena);
    calls = fa.calls;
    assert_true(calls >= 4);
    /* Fail each allocator call in turn but the first (the arena object). */
    for (n = 2; n <= calls; n++) {
        avkt_failalloc_init(&fa, n);
        AVKT_OK(avk_arena_new(&opts, &arena, &err));
        AVKT_ASSERT_STATUS(oom_workload(fx->root, arena, &err), AVK_ERR_NO_MEMORY);
        assert_int_equal(err.status, AVK_ERR_NO_MEMORY);
        avk_arena_free(arena);
        assert_int_equal(fa.live_blocks, 0);
    }
    /* An arena limit is reported as NO_MEMORY too. */
    opts.allocator = NULL;
    opts.limit = 1000;
    AVKT_OK(avk_arena_new(&opts, &arena, &err));
    AVKT_ASSERT_STATUS(avk_value_init(&v, field_type(fx->root, F_AL), 1000, arena, &err),
                       AVK_ERR_NO_MEMORY);
    assert_null(v.u.array.items);
    avk_arena_free(arena);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(avkt_test_kernel_choice),
        cmocka_unit_test(test_init_record),
        cmocka_unit_test(test_init_scalars),
        cmocka_unit_test(test_init_arrays),
        cmocka_unit_test(test_set_branch),
        cmocka_unit_test(test_field),
        cmocka_unit_test(test_equal_records),
        cmocka_unit_test(test_equal_floats_bitwise),
        cmocka_unit_test(test_equal_deep),
        cmocka_unit_test(test_out_of_memory),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
