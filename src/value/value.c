/* Generic values: setting up records, arrays, maps and unions in an arena; field lookup; deep equality. */
#include <stdint.h>
#include <string.h>

#include "avrokit/value.h"
#include "common/arena.h"
#include "common/error.h"
#include "schema/schema_internal.h"

/* avk_value_equal recurses once per level of nesting; deeper values are
 * reported unequal rather than risk the C stack (the decoder's default
 * depth limit is 128). */
#define MAX_EQUAL_DEPTH 1024

/* n zeroed elements of size bytes each from arena, or NULL with *st set.
 * n == 0 gives NULL with *st AVK_OK: empty collections carry no storage. */
static void *zalloc(avk_arena *arena, size_t n, size_t size, size_t align, avk_status *st,
                    avk_error *err)
{
    void *p;
    *st = AVK_OK;
    if (n == 0 || size == 0)
        return NULL;
    if (!arena) {
        *st = avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                             "avk_value_init: arena is NULL but %zu items need storage", n);
        return NULL;
    }
    if (n > SIZE_MAX / size) {
        *st = avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                             "avk_value_init: %zu items of %zu bytes do not fit in memory", n,
                             size);
        return NULL;
    }
    p = avki_arena_alloc(&arena->core, n * size, align);
    if (!p) {
        *st = avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                             "avk_value_init: cannot allocate %zu bytes from the arena",
                             n * size);
        return NULL;
    }
    memset(p, 0, n * size);
    return p;
}

/* n zeroed values of type t (t may be NULL for "set per value later"). */
static avk_value *values_of(avk_arena *arena, size_t n, const avk_type *t, avk_status *st,
                            avk_error *err)
{
    avk_value *vs = (avk_value *)zalloc(arena, n, sizeof(avk_value), _Alignof(avk_value), st, err);
    size_t i;
    if (vs && t)
        for (i = 0; i < n; i++)
            vs[i].type = t;
    return vs;
}

avk_status avk_value_init(avk_value *v, const avk_type *t, size_t count, avk_arena *arena,
                          avk_error *err)
{
    avk_status st = AVK_OK;
    size_t i, item_size;
    if (!v || !t)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_value_init: NULL %s", v ? "type" : "value");
    memset(v, 0, sizeof *v);
    v->type = t;
    switch (t->kind) {
    case AVK_RECORD:
        v->u.fields = values_of(arena, t->field_count, NULL, &st, err);
        if (v->u.fields)
            for (i = 0; i < t->field_count; i++)
                v->u.fields[i].type = t->fields[i].type;
        break;
    case AVK_ARRAY:
        if (avk_array_is_typed(t, &item_size))
            /* 8: the widest items (int64_t, double) need it. */
            v->u.array.items = zalloc(arena, count, item_size, 8, &st, err);
        else
            v->u.array.items = values_of(arena, count, t->items, &st, err);
        if (st == AVK_OK)
            v->u.array.count = count;
        break;
    case AVK_MAP:
        v->u.map.keys = (avk_bytes *)zalloc(arena, count, sizeof(avk_bytes), _Alignof(avk_bytes),
                                            &st, err);
        if (st == AVK_OK)
            v->u.map.values = values_of(arena, count, t->items, &st, err);
        if (st == AVK_OK)
            v->u.map.count = count;
        break;
    default:
        break;
    }
    if (st != AVK_OK)
        memset(&v->u, 0, sizeof v->u); /* nothing half set up */
    return st;
}

avk_status avk_value_set_branch(avk_value *v, uint32_t index, avk_arena *arena, avk_error *err)
{
    avk_value *bv;
    avk_status st;
    if (!v || !v->type || v->type->kind != AVK_UNION)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_value_set_branch: the value is not a union");
    if (index >= v->type->branch_count)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_value_set_branch: branch %u of a union of %zu branches",
                              (unsigned)index, v->type->branch_count);
    if (!arena)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_value_set_branch: arena is NULL");
    bv = (avk_value *)avki_arena_alloc(&arena->core, sizeof *bv, _Alignof(avk_value));
    if (!bv)
        return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                              "avk_value_set_branch: cannot allocate from the arena");
    st = avk_value_init(bv, v->type->branches[index], 0, arena, err);
    if (st != AVK_OK)
        return st;
    v->u.branch.index = index;
    v->u.branch.value = bv;
    return AVK_OK;
}

avk_value *avk_value_field(const avk_value *v, const char *name)
{
    const avk_type *t;
    size_t i;
    if (!v || !name || !v->type || v->type->kind != AVK_RECORD || !v->u.fields)
        return NULL;
    t = v->type;
    for (i = 0; i < t->field_count; i++)
        if (strcmp(t->fields[i].name, name) == 0)
            return &v->u.fields[i];
    return NULL;
}

/* Byte ranges, where NULL data goes with length 0. */
static int same_bytes(const void *a, const void *b, size_t len)
{
    return len == 0 || memcmp(a, b, len) == 0;
}

/* Kinds and the parts of the shape the data layout depends on. */
static int same_shape(const avk_type *a, const avk_type *b)
{
    if (a->kind != b->kind)
        return 0;
    switch (a->kind) {
    case AVK_FIXED: return a->size == b->size;
    case AVK_RECORD: return a->field_count == b->field_count;
    case AVK_UNION: return a->branch_count == b->branch_count;
    case AVK_ARRAY: /* the item kind decides how items are stored */
        return a->items->kind == b->items->kind &&
               (a->items->kind != AVK_FIXED || a->items->size == b->items->size);
    default: return 1;
    }
}

static int equal_at(const avk_value *a, const avk_value *b, unsigned depth);

static int equal_values(const avk_value *a, const avk_value *b, size_t n, unsigned depth)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (!equal_at(&a[i], &b[i], depth))
            return 0;
    return 1;
}

static int equal_at(const avk_value *a, const avk_value *b, unsigned depth)
{
    size_t item_size;
    if (depth > MAX_EQUAL_DEPTH)
        return 0;
    if (!a || !b)
        return a == b;
    if (!a->type || !b->type)
        return a->type == b->type;
    if (!same_shape(a->type, b->type))
        return 0;
    switch (a->type->kind) {
    case AVK_NULL: return 1;
    case AVK_BOOLEAN: return !a->u.boolean == !b->u.boolean;
    case AVK_INT: return a->u.i == b->u.i;
    case AVK_LONG: return a->u.l == b->u.l;
    /* Bit for bit: NaN equals the same NaN, 0.0 differs from -0.0. */
    case AVK_FLOAT: return memcmp(&a->u.f, &b->u.f, sizeof a->u.f) == 0;
    case AVK_DOUBLE: return memcmp(&a->u.d, &b->u.d, sizeof a->u.d) == 0;
    case AVK_BYTES:
    case AVK_STRING:
    case AVK_FIXED:
        return a->u.bytes.len == b->u.bytes.len &&
               same_bytes(a->u.bytes.data, b->u.bytes.data, a->u.bytes.len);
    case AVK_ENUM: return a->u.index == b->u.index;
    case AVK_RECORD:
        if (a->type->field_count && (!a->u.fields || !b->u.fields))
            return a->u.fields == b->u.fields;
        return equal_values(a->u.fields, b->u.fields, a->type->field_count, depth + 1);
    case AVK_UNION:
        return a->u.branch.index == b->u.branch.index &&
               equal_at(a->u.branch.value, b->u.branch.value, depth + 1);
    case AVK_ARRAY:
        if (a->u.array.count != b->u.array.count)
            return 0;
        if (a->u.array.count == 0)
            return 1;
        if (avk_array_is_typed(a->type, &item_size))
            return item_size == 0 ||
                   (a->u.array.items && b->u.array.items &&
                    memcmp(a->u.array.items, b->u.array.items, a->u.array.count * item_size) == 0);
        if (!a->u.array.items || !b->u.array.items)
            return 0;
        return equal_values((const avk_value *)a->u.array.items,
                            (const avk_value *)b->u.array.items, a->u.array.count, depth + 1);
    case AVK_MAP: {
        size_t i, n = a->u.map.count;
        if (n != b->u.map.count)
            return 0;
        if (n == 0)
            return 1;
        if (!a->u.map.keys || !b->u.map.keys || !a->u.map.values || !b->u.map.values)
            return 0;
        /* In order: the encoding keeps it, so values that encode alike do. */
        for (i = 0; i < n; i++)
            if (a->u.map.keys[i].len != b->u.map.keys[i].len ||
                !same_bytes(a->u.map.keys[i].data, b->u.map.keys[i].data, a->u.map.keys[i].len))
                return 0;
        return equal_values(a->u.map.values, b->u.map.values, n, depth + 1);
    }
    }
    return 0;
}

int avk_value_equal(const avk_value *a, const avk_value *b)
{
    return equal_at(a, b, 0);
}
