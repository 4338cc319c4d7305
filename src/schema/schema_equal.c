/* Structural equality of two schema nodes, attributes included, safe on recursive types. */
#include <stdint.h>
#include <string.h>

#include "common/hash_table.h"
#include "common/stack.h"
#include "schema/schema_internal.h"

/* ---- the pairs of named types already compared ----------------------------
 * A pair met again is taken as equal: either it is being compared further
 * up (a recursive type: equality is the greatest fixed point) or it was
 * compared already and found equal, since any difference ends the whole
 * comparison at once. Remembering finished pairs as well as open ones keeps
 * the work linear: a type referenced from many places is compared once,
 * not once per path (which grows exponentially with nesting). */

#define PAIRS_INLINE 16 /* pairs kept without allocating */

typedef struct type_pair {
    const avk_type *a, *b;
} type_pair;

typedef struct pair_set {
    avki_hash table;    /* indexes of pairs */
    avki_stack pairs;   /* type_pair */
    int no_memory;
    avki_hash_slot inline_slots[2 * PAIRS_INLINE];
    type_pair inline_pairs[PAIRS_INLINE];
} pair_set;

/* 1 when the pair was added, 0 when it was there, -1 when out of memory. */
static int pairs_add(pair_set *s, const avk_type *a, const avk_type *b)
{
    uint32_t h = avki_hash_pair(avki_hash_ptr(a), avki_hash_ptr(b));
    size_t pos = avki_hash_first(&s->table, h), i;
    type_pair *p;
    while ((i = avki_hash_next(&s->table, h, &pos)) != AVKI_HASH_END) {
        p = (type_pair *)avki_stack_at(&s->pairs, i);
        if (p->a == a && p->b == b)
            return 0;
    }
    if (!(p = (type_pair *)avki_stack_push(&s->pairs)))
        return -1;
    p->a = a;
    p->b = b;
    if (avki_hash_add(&s->table, h, s->pairs.n - 1) != AVK_OK) {
        s->pairs.n--;
        return -1;
    }
    return 1;
}

/* ---- comparison ------------------------------------------------------------ */

static int str_eq(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    return strcmp(a, b) == 0;
}

static int strings_eq(const char *const *a, size_t na, const char *const *b, size_t nb)
{
    size_t i;
    if (na != nb)
        return 0;
    for (i = 0; i < na; i++)
        if (!str_eq(a[i], b[i]))
            return 0;
    return 1;
}

/* Properties as a JSON object: the same keys with the same values, in any
 * order. Values compare as their compact text. */
static int props_eq(const avki_prop *a, size_t na, const avki_prop *b, size_t nb)
{
    size_t i, k;
    if (na != nb)
        return 0;
    for (i = 0; i < na; i++) {
        if (i < nb && str_eq(a[i].key, b[i].key)) { /* the usual case: same order */
            if (!str_eq(a[i].json, b[i].json))
                return 0;
            continue;
        }
        for (k = 0; k < nb; k++)
            if (str_eq(a[i].key, b[k].key))
                break;
        if (k == nb || !str_eq(a[i].json, b[k].json))
            return 0;
    }
    return 1;
}

static int type_eq(pair_set *seen, const avk_type *a, const avk_type *b);

static int field_eq(pair_set *seen, const avk_field *a, const avk_field *b)
{
    return str_eq(a->name, b->name) && str_eq(a->doc, b->doc) && a->order == b->order &&
           strings_eq(a->aliases, a->alias_count, b->aliases, b->alias_count) &&
           str_eq(a->default_json, b->default_json) &&
           props_eq(a->props, a->prop_count, b->props, b->prop_count) &&
           type_eq(seen, a->type, b->type);
}

static int type_eq(pair_set *seen, const avk_type *a, const avk_type *b)
{
    size_t i;
    if (a == b)
        return 1;
    if (!a || !b)
        return 0;
    if (a->kind != b->kind || a->logical != b->logical)
        return 0;
    if (a->logical == AVK_LOGICAL_DECIMAL && (a->precision != b->precision || a->scale != b->scale))
        return 0;
    if (!props_eq(a->props, a->prop_count, b->props, b->prop_count))
        return 0;
    switch (a->kind) {
    case AVK_RECORD:
    case AVK_ENUM:
    case AVK_FIXED:
        if (!str_eq(a->fullname, b->fullname))
            return 0;
        switch (pairs_add(seen, a, b)) {
        case 0: return 1;
        case -1: seen->no_memory = 1; return 0;
        default: break;
        }
        if (a->is_error != b->is_error || !str_eq(a->doc, b->doc) ||
            !strings_eq(a->aliases, a->alias_count, b->aliases, b->alias_count))
            return 0;
        if (a->kind == AVK_FIXED)
            return a->size == b->size;
        if (a->kind == AVK_ENUM)
            return a->enum_default == b->enum_default &&
                   strings_eq(a->symbols, a->symbol_count, b->symbols, b->symbol_count);
        if (a->field_count != b->field_count)
            return 0;
        for (i = 0; i < a->field_count; i++)
            if (!field_eq(seen, &a->fields[i], &b->fields[i]))
                return 0;
        return 1;
    case AVK_ARRAY:
    case AVK_MAP:
        return type_eq(seen, a->items, b->items);
    case AVK_UNION:
        if (a->branch_count != b->branch_count)
            return 0;
        for (i = 0; i < a->branch_count; i++)
            if (!type_eq(seen, a->branches[i], b->branches[i]))
                return 0;
        return 1;
    default: /* primitives: kind, logical type and properties said it all */
        return 1;
    }
}

int avk_type_equal(const avk_type *a, const avk_type *b)
{
    pair_set seen;
    int eq;
    /* No allocator is passed in: the C library's. */
    avki_hash_init(&seen.table, NULL, seen.inline_slots, 2 * PAIRS_INLINE);
    avki_stack_init(&seen.pairs, seen.inline_pairs, PAIRS_INLINE, sizeof(type_pair),
                    avk_allocator_libc());
    seen.no_memory = 0;
    eq = type_eq(&seen, a, b);
    avki_hash_destroy(&seen.table);
    avki_stack_destroy(&seen.pairs);
    /* Out of memory: no answer can be proved, and the call has no status;
     * 0 is the answer that claims nothing. */
    return eq && !seen.no_memory;
}
