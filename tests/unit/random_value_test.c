/* Tests of the CLI's random values: known generator outputs, determinism, round trips, valid logical values. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "avkt.h"
#include "random_value.h"

/* Every kind, every logical type, typed and boxed arrays, and recursion
 * through a union (u), an array (tree.kids) and a map (mr). */
static const char SCHEMA[] =
    "{'type': 'record', 'name': 'All', 'fields': ["
    " {'name': 'n', 'type': 'null'},"
    " {'name': 'b', 'type': 'boolean'},"
    " {'name': 'i', 'type': 'int'},"
    " {'name': 'l', 'type': 'long'},"
    " {'name': 'f', 'type': 'float'},"
    " {'name': 'd', 'type': 'double'},"
    " {'name': 'by', 'type': 'bytes'},"
    " {'name': 's', 'type': 'string'},"
    " {'name': 'e', 'type': {'type': 'enum', 'name': 'E', 'symbols': ['A', 'B', 'C']}},"
    " {'name': 'fx', 'type': {'type': 'fixed', 'name': 'F3', 'size': 3}},"
    " {'name': 'u', 'type': ['null', 'string', 'All']},"
    " {'name': 'ai', 'type': {'type': 'array', 'items': 'int'}},"
    " {'name': 'al', 'type': {'type': 'array', 'items': 'long'}},"
    " {'name': 'ab', 'type': {'type': 'array', 'items': 'boolean'}},"
    " {'name': 'af', 'type': {'type': 'array', 'items': 'float'}},"
    " {'name': 'ad', 'type': {'type': 'array', 'items': 'double'}},"
    " {'name': 'an', 'type': {'type': 'array', 'items': 'null'}},"
    " {'name': 'afx', 'type': {'type': 'array', 'items': 'F3'}},"
    " {'name': 'as', 'type': {'type': 'array', 'items': 'string'}},"
    " {'name': 'adate', 'type': {'type': 'array',"
    "   'items': {'type': 'int', 'logicalType': 'date'}}},"
    " {'name': 'm', 'type': {'type': 'map', 'values': 'long'}},"
    " {'name': 'mr', 'type': {'type': 'map', 'values': ['null', 'All']}},"
    " {'name': 'tree', 'type': {'type': 'record', 'name': 'Tree', 'fields': ["
    "   {'name': 'v', 'type': 'int'},"
    "   {'name': 'kids', 'type': {'type': 'array', 'items': 'Tree'}}]}},"
    " {'name': 'date', 'type': {'type': 'int', 'logicalType': 'date'}},"
    " {'name': 'tmil', 'type': {'type': 'int', 'logicalType': 'time-millis'}},"
    " {'name': 'tmic', 'type': {'type': 'long', 'logicalType': 'time-micros'}},"
    " {'name': 'tsm', 'type': {'type': 'long', 'logicalType': 'timestamp-millis'}},"
    " {'name': 'tsu', 'type': {'type': 'long', 'logicalType': 'timestamp-micros'}},"
    " {'name': 'tsn', 'type': {'type': 'long', 'logicalType': 'timestamp-nanos'}},"
    " {'name': 'ltsm', 'type': {'type': 'long', 'logicalType': 'local-timestamp-millis'}},"
    " {'name': 'ltsu', 'type': {'type': 'long', 'logicalType': 'local-timestamp-micros'}},"
    " {'name': 'ltsn', 'type': {'type': 'long', 'logicalType': 'local-timestamp-nanos'}},"
    " {'name': 'uuid', 'type': {'type': 'string', 'logicalType': 'uuid'}},"
    " {'name': 'uuidf', 'type': {'type': 'fixed', 'name': 'U16', 'size': 16,"
    "   'logicalType': 'uuid'}},"
    " {'name': 'dec', 'type': {'type': 'bytes', 'logicalType': 'decimal',"
    "   'precision': 9, 'scale': 2}},"
    " {'name': 'dec38', 'type': {'type': 'bytes', 'logicalType': 'decimal',"
    "   'precision': 38, 'scale': 10}},"
    " {'name': 'decf', 'type': {'type': 'fixed', 'name': 'D5', 'size': 5,"
    "   'logicalType': 'decimal', 'precision': 11, 'scale': 3}},"
    " {'name': 'dur', 'type': {'type': 'fixed', 'name': 'Dur', 'size': 12,"
    "   'logicalType': 'duration'}}"
    "]}";

enum { F_I = 2, F_S = 7, F_U = 10, F_ADATE = 19, F_DATE = 23, F_TMIL, F_TMIC, F_TSM, F_TSU, F_TSN,
       F_LTSM, F_LTSU, F_LTSN, F_UUID, F_UUIDF, F_DEC, F_DEC38, F_DECF, F_DUR, F_COUNT };

#define RECORDS 400

typedef struct fixture {
    avk_schema *schema;
    const avk_type *root;
    avk_plan *plan;
    avk_arena *arena;
} fixture;

static int setup(void **state)
{
    static fixture fx;
    avk_error err;
    const char *json = avkt_q(SCHEMA);
    memset(&fx, 0, sizeof fx);
    if (avk_schema_parse(json, strlen(json), NULL, &fx.schema, &err) != AVK_OK) {
        fprintf(stderr, "schema: %s\n", err.message);
        return -1;
    }
    fx.root = avk_schema_root(fx.schema);
    if (avk_type_field_count(fx.root) != F_COUNT)
        return -1;
    avk_plan_options po;
    memset(&po, 0, sizeof po);
    po.struct_size = sizeof po;
    po.flags = AVK_PLAN_CHECK_UTF8 | AVK_PLAN_COPY_STRINGS;
    if (avk_plan_new(fx.root, &po, &fx.plan, &err) != AVK_OK ||
        avk_arena_new(NULL, &fx.arena, &err) != AVK_OK)
        return -1;
    *state = &fx;
    return 0;
}

static int teardown(void **state)
{
    fixture *fx = (fixture *)*state;
    avk_arena_free(fx->arena);
    avk_plan_free(fx->plan);
    avk_schema_free(fx->schema);
    return 0;
}

/* splitmix64's published first output for seed 0, and xoshiro256**
 * outputs computed with an independent implementation. */
static void test_rng_known_outputs(void **state)
{
    (void)state;
    avkcli_rng r;
    avkcli_rng_seed(&r, 0);
    assert_true(r.s[0] == 0xe220a8397b1dcdafULL);
    assert_true(avkcli_rng_next(&r) == 0x99ec5f36cb75f2b4ULL);
    assert_true(avkcli_rng_next(&r) == 0xbf6e1f784956452aULL);

    avkcli_rng_seed(&r, 42);
    assert_true(r.s[0] == 0xbdd732262feb6e95ULL && r.s[1] == 0x28efe333b266f103ULL &&
                r.s[2] == 0x47526757130f9f52ULL && r.s[3] == 0x581ce1ff0e4ae394ULL);
    assert_true(avkcli_rng_next(&r) == 0x15780b2e0c2ec716ULL);
    assert_true(avkcli_rng_next(&r) == 0x6104d9866d113a7eULL);
    assert_true(avkcli_rng_next(&r) == 0xae17533239e499a1ULL);

    /* unit: the top 53 bits of the next output, scaled. */
    avkcli_rng_seed(&r, 42);
    double u = avkcli_rng_unit(&r);
    assert_true(u == (double)(0x15780b2e0c2ec716ULL >> 11) * 0x1.0p-53);
    double lo = 1, hi = 0;
    for (int i = 0; i < 100000; i++) {
        u = avkcli_rng_unit(&r);
        lo = u < lo ? u : lo;
        hi = u > hi ? u : hi;
    }
    assert_true(lo >= 0.0 && lo < 0.001 && hi < 1.0 && hi > 0.999);
}

/* RECORDS values from seed, encoded back to back into w (reset first). */
static void encode_run(fixture *fx, uint64_t seed, avk_writer *w)
{
    avkcli_rng r;
    avk_error err;
    avkcli_rng_seed(&r, seed);
    avk_writer_reset(w);
    for (int k = 0; k < RECORDS; k++) {
        avk_value v;
        avk_arena_reset(fx->arena);
        AVKT_OK(avkcli_random_value(fx->root, &r, fx->arena, &v, &err));
        if (avk_plan_encode(fx->plan, &v, w, &err) != AVK_OK)
            fail_msg("record %d does not encode: %s", k, err.message);
    }
}

static void test_same_seed_same_bytes(void **state)
{
    fixture *fx = (fixture *)*state;
    avk_writer a, b;
    AVKT_OK(avk_writer_init_memory(&a, NULL, NULL));
    AVKT_OK(avk_writer_init_memory(&b, NULL, NULL));
    size_t la, lb;
    encode_run(fx, 7, &a);
    encode_run(fx, 7, &b);
    const uint8_t *pa = avk_writer_data(&a, &la), *pb = avk_writer_data(&b, &lb);
    avkt_assert_bytes(pb, lb, pa, la);
    /* Sizes of ordinary data: a few hundred bytes per record on average. */
    assert_true(la > (size_t)RECORDS * 100 && la < (size_t)RECORDS * 20000);

    encode_run(fx, 8, &b);
    pb = avk_writer_data(&b, &lb);
    assert_true(la != lb || memcmp(pa, pb, la) != 0);
    avk_writer_destroy(&a);
    avk_writer_destroy(&b);
}

/* Checks shared by every value: strings and bytes 0-24 bytes (UUID text
 * 36), arrays and maps 0-8 items, map keys distinct. Returns the nesting
 * depth of v. */
static unsigned check_value(const avk_value *v, const avk_type *t)
{
    unsigned deepest = 0, d;
    switch (avk_type_kind(t)) {
    case AVK_STRING:
        if (avk_type_logical(t) == AVK_LOGICAL_UUID)
            assert_int_equal(v->u.bytes.len, 36);
        else
            assert_true(v->u.bytes.len <= 24);
        break;
    case AVK_BYTES:
        assert_true(v->u.bytes.len <= 24);
        break;
    case AVK_RECORD:
        for (size_t i = 0; i < avk_type_field_count(t); i++) {
            d = check_value(&v->u.fields[i], avk_field_type(avk_type_field(t, i)));
            deepest = d > deepest ? d : deepest;
        }
        return deepest + 1;
    case AVK_UNION:
        return 1 + check_value(v->u.branch.value, avk_type_branch(t, v->u.branch.index));
    case AVK_ARRAY: {
        size_t size;
        assert_true(v->u.array.count <= 8);
        if (!avk_array_is_typed(t, &size)) {
            const avk_value *items = (const avk_value *)v->u.array.items;
            for (size_t i = 0; i < v->u.array.count; i++) {
                d = check_value(&items[i], avk_type_items(t));
                deepest = d > deepest ? d : deepest;
            }
        }
        return deepest + 1;
    }
    case AVK_MAP:
        assert_true(v->u.map.count <= 8);
        for (size_t i = 0; i < v->u.map.count; i++) {
            const avk_bytes *k = &v->u.map.keys[i];
            assert_true(k->len >= 1);
            for (size_t j = 0; j < i; j++)
                assert_false(v->u.map.keys[j].len == k->len &&
                             memcmp(v->u.map.keys[j].data, k->data, k->len) == 0);
            d = check_value(&v->u.map.values[i], avk_type_values(t));
            deepest = d > deepest ? d : deepest;
        }
        return deepest + 1;
    default:
        break;
    }
    return 0;
}

/* Digits of a decimal's unscaled integer (sign and point left out). */
static size_t decimal_digits(const uint8_t *p, size_t len)
{
    char text[128];
    size_t n = 0, digits = 0;
    AVKT_OK(avk_decimal_to_string(p, len, 0, text, sizeof text, &n));
    for (size_t i = 0; i < n; i++)
        digits += text[i] >= '0' && text[i] <= '9';
    return digits;
}

static void check_logical(const avk_value *f)
{
    const int64_t day_ms = 86400000LL, ms_2000 = 946684800000LL, ms_2030 = 1893456000000LL;
    assert_true(f[F_DATE].u.i >= 0 && f[F_DATE].u.i < 25567);
    assert_true(f[F_TMIL].u.i >= 0 && f[F_TMIL].u.i < day_ms);
    assert_true(f[F_TMIC].u.l >= 0 && f[F_TMIC].u.l < day_ms * 1000);
    assert_true(f[F_TSM].u.l >= ms_2000 && f[F_TSM].u.l < ms_2030);
    assert_true(f[F_LTSM].u.l >= ms_2000 && f[F_LTSM].u.l < ms_2030);
    assert_true(f[F_TSU].u.l >= ms_2000 * 1000 && f[F_TSU].u.l < ms_2030 * 1000);
    assert_true(f[F_LTSU].u.l >= ms_2000 * 1000 && f[F_LTSU].u.l < ms_2030 * 1000);
    assert_true(f[F_TSN].u.l >= ms_2000 * 1000000 && f[F_TSN].u.l < ms_2030 * 1000000);
    assert_true(f[F_LTSN].u.l >= ms_2000 * 1000000 && f[F_LTSN].u.l < ms_2030 * 1000000);
    for (size_t i = 0; i < f[F_ADATE].u.array.count; i++) {
        int32_t day = ((const int32_t *)f[F_ADATE].u.array.items)[i];
        assert_true(day >= 0 && day < 25567);
    }

    uint8_t u[16];
    AVKT_OK(avk_uuid_parse((const char *)f[F_UUID].u.bytes.data, f[F_UUID].u.bytes.len, u));
    assert_int_equal(u[6] >> 4, 4);
    assert_int_equal(u[8] >> 6, 2);
    assert_int_equal(f[F_UUIDF].u.bytes.data[6] >> 4, 4);
    assert_int_equal(f[F_UUIDF].u.bytes.data[8] >> 6, 2);

    assert_true(f[F_DEC].u.bytes.len >= 1);
    assert_true(decimal_digits(f[F_DEC].u.bytes.data, f[F_DEC].u.bytes.len) <= 9);
    assert_true(decimal_digits(f[F_DEC38].u.bytes.data, f[F_DEC38].u.bytes.len) <= 38);
    assert_int_equal(f[F_DECF].u.bytes.len, 5);
    assert_true(decimal_digits(f[F_DECF].u.bytes.data, 5) <= 11);

    uint32_t months, days, millis;
    AVKT_OK(avk_duration_decode(f[F_DUR].u.bytes.data, &months, &days, &millis));
    assert_true(months < 120 && days < 31 && millis < 86400000u);
}

static unsigned varint_bytes(int64_t v)
{
    uint64_t u = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
    unsigned n = 1;
    while (u >= 0x80) {
        u >>= 7;
        n++;
    }
    return n;
}

/* Every value encodes, decodes back equal (strings checked as UTF-8),
 * skips over exactly its bytes, and holds valid, ordinary-sized data. */
static void test_round_trip_and_validity(void **state)
{
    fixture *fx = (fixture *)*state;
    avk_arena *back;
    avk_error err;
    avk_writer w;
    avkcli_rng r;
    AVKT_OK(avk_arena_new(NULL, &back, NULL));
    AVKT_OK(avk_writer_init_memory(&w, NULL, NULL));
    avkcli_rng_seed(&r, 2026);
    unsigned lengths[6] = {0}, deepest = 0, branches[3] = {0}, decimal_lengths[40] = {0};
    size_t strings_empty = 0, strings_multibyte = 0;
    for (int k = 0; k < RECORDS; k++) {
        avk_value v, d;
        avk_arena_reset(fx->arena);
        avk_arena_reset(back);
        avk_writer_reset(&w);
        AVKT_OK(avkcli_random_value(fx->root, &r, fx->arena, &v, &err));
        if (avk_plan_encode(fx->plan, &v, &w, &err) != AVK_OK)
            fail_msg("record %d does not encode: %s", k, err.message);
        size_t len;
        const uint8_t *data = avk_writer_data(&w, &len);
        avk_reader rd;
        avk_reader_init_memory(&rd, data, len);
        if (avk_plan_decode(fx->plan, &rd, back, &d, &err) != AVK_OK)
            fail_msg("record %d does not decode: %s", k, err.message);
        assert_ptr_equal(rd.pos, data + len);
        if (!avk_value_equal(&v, &d))
            fail_msg("record %d decodes to a different value", k);
        avk_reader_init_memory(&rd, data, len);
        AVKT_OK(avk_plan_skip(fx->plan, &rd, &err));
        assert_ptr_equal(rd.pos, data + len);

        unsigned depth = check_value(&d, fx->root);
        deepest = depth > deepest ? depth : deepest;
        check_logical(d.u.fields);
        unsigned n = varint_bytes(d.u.fields[F_I].u.i);
        lengths[n]++;
        branches[d.u.fields[F_U].u.branch.index]++;
        decimal_lengths[d.u.fields[F_DEC38].u.bytes.len]++;
        const avk_bytes *s = &d.u.fields[F_S].u.bytes;
        strings_empty += s->len == 0;
        for (size_t i = 0; i < s->len; i++) {
            if (s->data[i] >= 0x80) {
                strings_multibyte++;
                break;
            }
        }
    }
    /* Ints mostly short: about half one byte, some of every length. */
    assert_true(lengths[1] > RECORDS * 35 / 100 && lengths[1] < RECORDS * 65 / 100);
    for (unsigned n = 2; n <= 5; n++)
        assert_true(lengths[n] > 0);
    /* Every union branch taken, recursion bounded but present. */
    assert_true(branches[0] > 0 && branches[1] > 0 && branches[2] > 0);
    assert_true(deepest >= 4 && deepest < 2 * AVKCLI_RANDOM_SOFT_DEPTH + 4);
    /* Decimals of several lengths; strings empty sometimes, non-ASCII sometimes. */
    assert_true(decimal_lengths[1] > 0 && decimal_lengths[8] > 0);
    assert_true(strings_empty > 0 && strings_multibyte > 0);
    avk_writer_destroy(&w);
    avk_arena_free(back);
}

/* A record that always contains itself has no finite value. */
static void test_endless_type_refused(void **state)
{
    (void)state;
    avk_schema *s = AVKT_PARSE("{'type': 'record', 'name': 'Loop', 'fields': ["
                               " {'name': 'next', 'type': 'Loop'}]}");
    avk_arena *arena;
    avkcli_rng r;
    avk_value v;
    avk_error err;
    AVKT_OK(avk_arena_new(NULL, &arena, NULL));
    avkcli_rng_seed(&r, 1);
    AVKT_ASSERT_STATUS(avkcli_random_value(avk_schema_root(s), &r, arena, &v, &err),
                       AVK_ERR_LIMIT);
    assert_string_equal(err.path, "Loop");
    assert_non_null(strstr(err.message, "always contains itself"));
    AVKT_ASSERT_STATUS(avkcli_random_value(NULL, &r, arena, &v, &err), AVK_ERR_INVALID_ARGUMENT);
    avk_arena_free(arena);
    avk_schema_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rng_known_outputs),
        cmocka_unit_test(test_same_seed_same_bytes),
        cmocka_unit_test(test_round_trip_and_validity),
        cmocka_unit_test(test_endless_type_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
