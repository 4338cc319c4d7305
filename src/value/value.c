/* Generic values: setting up records, arrays, maps and unions in an arena; field lookup; deep equality. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "avrokit/value.h"
#include "common/arena.h"
#include "common/error.h"
#include "schema/schema_internal.h"

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

/* Values left to compare: a[i..n) with b[i..n) (record fields, boxed
 * array items, map values, a union's branch value). */
typedef struct eq_frame {
    const avk_value *a, *b;
    size_t i, n;
} eq_frame;

#define LOCAL_FRAMES 64

/* Compares a and b except the children of containers; for those, sets
 * *ca, *cb and *n to the values left to compare (n 0 when none). */
static int equal_here(const avk_value *a, const avk_value *b, const avk_value **ca,
                      const avk_value **cb, size_t *n)
{
    size_t item_size;
    *n = 0;
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
        *ca = a->u.fields;
        *cb = b->u.fields;
        *n = a->type->field_count;
        return 1;
    case AVK_UNION:
        if (a->u.branch.index != b->u.branch.index)
            return 0;
        if (!a->u.branch.value || !b->u.branch.value)
            return a->u.branch.value == b->u.branch.value;
        *ca = a->u.branch.value;
        *cb = b->u.branch.value;
        *n = 1;
        return 1;
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
        *ca = (const avk_value *)a->u.array.items;
        *cb = (const avk_value *)b->u.array.items;
        *n = a->u.array.count;
        return 1;
    case AVK_MAP: {
        size_t i, m = a->u.map.count;
        if (m != b->u.map.count)
            return 0;
        if (m == 0)
            return 1;
        if (!a->u.map.keys || !b->u.map.keys || !a->u.map.values || !b->u.map.values)
            return 0;
        /* In order: the encoding keeps it, so values that encode alike do. */
        for (i = 0; i < m; i++)
            if (a->u.map.keys[i].len != b->u.map.keys[i].len ||
                !same_bytes(a->u.map.keys[i].data, b->u.map.keys[i].data, a->u.map.keys[i].len))
                return 0;
        *ca = a->u.map.values;
        *cb = b->u.map.values;
        *n = m;
        return 1;
    }
    }
    return 0;
}

int avk_value_equal(const avk_value *a, const avk_value *b)
{
    eq_frame local[LOCAL_FRAMES], *st = local;
    size_t top = 0, cap = LOCAL_FRAMES;
    int result = 1;
    for (;;) {
        const avk_value *ca = NULL, *cb = NULL;
        size_t n;
        if (!equal_here(a, b, &ca, &cb, &n)) {
            result = 0;
            break;
        }
        if (n > 1) {
            /* The first child is compared next; the frame keeps the rest. */
            if (top == cap) {
                eq_frame *ns;
                if (cap > ((size_t)-1 / 2) / sizeof *ns) {
                    result = 0;
                    break;
                }
                ns = (eq_frame *)(st == local ? malloc(2 * cap * sizeof *ns)
                                              : realloc(st, 2 * cap * sizeof *ns));
                if (!ns) {
                    result = 0;
                    break;
                }
                if (st == local)
                    memcpy(ns, local, sizeof local);
                st = ns;
                cap *= 2;
            }
            st[top].a = ca;
            st[top].b = cb;
            st[top].i = 1;
            st[top].n = n;
            top++;
        }
        if (n) {
            /* The last (or only) child needs no frame: a linked list
             * compares in constant memory. */
            a = ca;
            b = cb;
            continue;
        }
        /* The next pair from the innermost frame with values left. */
        while (top && st[top - 1].i == st[top - 1].n)
            top--;
        if (!top)
            break;
        {
            eq_frame *f = &st[top - 1];
            a = f->a + f->i;
            b = f->b + f->i;
            if (++f->i == f->n)
                top--;
        }
    }
    if (st != local)
        free(st);
    return result;
}
