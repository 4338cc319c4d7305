/* Structural equality of two schema nodes, attributes included, safe on recursive types. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "schema/schema_internal.h"

/* ---- the pairs of named types already compared ----------------------------
 * A pair met again is taken as equal: either it is being compared further
 * up (a recursive type: equality is the greatest fixed point) or it was
 * compared already and found equal, since any difference ends the whole
 * comparison at once. Remembering finished pairs as well as open ones keeps
 * the work linear: a type referenced from many places is compared once,
 * not once per path (which grows exponentially with nesting). */

#define PAIRS_INLINE 32 /* a power of two */

typedef struct type_pair {
    const avk_type *a, *b;
} type_pair;

typedef struct pair_set {
    type_pair *slots;
    size_t cap; /* a power of two; at most half full */
    size_t count;
    int no_memory;
    type_pair inline_slots[PAIRS_INLINE];
} pair_set;

static size_t pair_hash(const avk_type *a, const avk_type *b)
{
    uint64_t h = (uint64_t)(uintptr_t)a * 0x9e3779b97f4a7c15ULL;
    h ^= (uint64_t)(uintptr_t)b + 0x632be59bd9b4e019ULL + (h << 6) + (h >> 2);
    h *= 0xbf58476d1ce4e5b9ULL;
    return (size_t)(h ^ (h >> 31));
}

/* 1 when the pair was added, 0 when it was there, -1 when out of memory. */
static int pairs_add(pair_set *s, const avk_type *a, const avk_type *b)
{
    size_t mask = s->cap - 1, i = pair_hash(a, b) & mask;
    while (s->slots[i].a) {
        if (s->slots[i].a == a && s->slots[i].b == b)
            return 0;
        i = (i + 1) & mask;
    }
    if ((s->count + 1) * 2 > s->cap) {
        size_t cap = s->cap * 2, k;
        type_pair *slots = (type_pair *)calloc(cap, sizeof *slots);
        if (!slots)
            return -1;
        for (k = 0; k < s->cap; k++) {
            size_t j;
            if (!s->slots[k].a)
                continue;
            j = pair_hash(s->slots[k].a, s->slots[k].b) & (cap - 1);
            while (slots[j].a)
                j = (j + 1) & (cap - 1);
            slots[j] = s->slots[k];
        }
        if (s->slots != s->inline_slots)
            free(s->slots);
        s->slots = slots;
        s->cap = cap;
        mask = cap - 1;
        i = pair_hash(a, b) & mask;
        while (s->slots[i].a)
            i = (i + 1) & mask;
    }
    s->slots[i].a = a;
    s->slots[i].b = b;
    s->count++;
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
    memset(&seen, 0, sizeof seen);
    seen.slots = seen.inline_slots;
    seen.cap = PAIRS_INLINE;
    eq = type_eq(&seen, a, b);
    if (seen.slots != seen.inline_slots)
        free(seen.slots);
    /* Out of memory: no answer can be proved, and the call has no status;
     * 0 is the answer that claims nothing. */
    return eq && !seen.no_memory;
}
