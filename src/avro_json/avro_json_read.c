/* Avro JSON decoding: reads a value of a schema from its JSON form (and field defaults from the schema), with an explicit stack. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "avrokit/avro_json.h"
#include "common/error.h"
#include "common/hash_table.h"
#include "common/value_path.h"
#include "avro_json/avro_json_internal.h"
#include "json/json.h"
#include "schema/schema_internal.h"

/* The defaults of avk_limits, the same as a plan's (plan.h). */
#define DEFAULT_MAX_BYTES ((uint64_t)256 << 20)
#define DEFAULT_MAX_ITEMS ((uint64_t)64 << 20)
#define DEFAULT_MAX_MEMORY ((uint64_t)1 << 30)

/* Open containers kept on the C stack; deeper ones take the arena's
 * allocator. */
#define LOCAL_FRAMES 64

/* A record, array, map or union being read into v from the JSON node j
 * (for a default, the schema's JSON): child i is read next, of n. */
typedef struct rframe {
    const avki_json *j;
    const avk_type *t;
    avk_value *v;
    const avki_json **vals; /* records: the member giving each field, or NULL
                               when the members are the fields in order */
    const avki_json *x;     /* unions: the branch value's JSON */
    size_t i, n;
    int is_default;         /* j is a default: unions are not wrapped */
} rframe;

typedef struct rctx {
    avki_arena *arena;
    avk_error *err;
    avk_limits lim;
    uint64_t offset, line, column; /* where the text starts in the input */
    rframe *st;                    /* open containers, outermost first */
    size_t top, cap;
    rframe *local;
    int value_error;               /* the error is about the value: path added */
    uint64_t arena_limit;          /* the limit max_memory set on the arena, or 0 */
} rctx;

/* ---- errors (cold) -------------------------------------------------------------------- */

/* Reports st for the JSON node j: "line L, column C: <what>", the place
 * in the whole input (none for a default: that JSON is the schema's). */
static avk_status fail_at(rctx *c, const avki_json *j, int is_default, avk_status st,
                          const char *fmt, ...)
    __attribute__((cold, noinline, format(printf, 5, 6)));

static avk_status fail_at(rctx *c, const avki_json *j, int is_default, avk_status st,
                          const char *fmt, ...)
{
    char msg[AVK_ERROR_MESSAGE_MAX];
    va_list ap;
    c->value_error = 1;
    if (!c->err)
        return st;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (is_default || !j)
        return avki_error_set(c->err, st, AVK_OFFSET_UNKNOWN, "the field's default: %s", msg);
    return avki_error_set(c->err, st, c->offset + j->offset, "line %llu, column %llu: %s",
                          (unsigned long long)(c->line - 1 + j->line),
                          (unsigned long long)(j->line == 1 ? c->column - 1 + j->column
                                                            : j->column),
                          msg);
}

static const char *type_name(const avk_type *t)
{
    return t->fullname ? t->fullname : avk_kind_name(t->kind);
}

/* What a JSON node is, for "found ..." */
static const char *json_kind(const avki_json *j)
{
    switch (j->type) {
    case AVKI_JSON_NULL: return "null";
    case AVKI_JSON_FALSE: return "false";
    case AVKI_JSON_TRUE: return "true";
    case AVKI_JSON_NUMBER: return "a number";
    case AVKI_JSON_STRING: return "a string";
    case AVKI_JSON_ARRAY: return "an array";
    default: return "an object";
    }
}

/* A value that does not fit its type. */
static avk_status bad(rctx *c, const avki_json *j, int is_default, const char *what,
                      const avk_type *t) __attribute__((cold, noinline));

static avk_status bad(rctx *c, const avki_json *j, int is_default, const char *what,
                      const avk_type *t)
{
    return fail_at(c, j, is_default, AVK_ERR_MALFORMED, "expected %s for %s, found %s", what,
                   type_name(t), json_kind(j));
}

static avk_status no_memory(rctx *c) __attribute__((cold, noinline));

static avk_status no_memory(rctx *c)
{
    c->value_error = 0; /* about memory, not a place in the value */
    if (c->arena->limit_hit && c->arena_limit && c->arena->limit == c->arena_limit)
        return avki_error_set(c->err, AVK_ERR_LIMIT, AVK_OFFSET_UNKNOWN,
                              "reading the value needs more than max_memory (%llu bytes)",
                              (unsigned long long)c->lim.max_memory);
    if (c->arena->limit_hit)
        return avki_error_set(c->err, AVK_ERR_LIMIT, AVK_OFFSET_UNKNOWN,
                              "the arena's limit (%zu bytes) is reached reading a JSON value",
                              c->arena->limit);
    return avki_error_set(c->err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                          "out of memory reading a JSON value");
}

/* The branches of union t as the writer names them: ["null","LongList"]
 * (cut with "..." past what the message has room for). */
static void branch_list(const avk_type *t, char *out, size_t cap)
{
    size_t i, k = 0;
    out[k++] = '[';
    for (i = 0; i < t->branch_count; i++) {
        const char *name = type_name(t->branches[i]);
        size_t len = strlen(name);
        if (k + len + 8 > cap) {
            memcpy(out + k, i ? ",..." : "...", i ? 4 : 3);
            k += i ? 4 : 3;
            break;
        }
        if (i)
            out[k++] = ',';
        out[k++] = '"';
        memcpy(out + k, name, len);
        k += len;
        out[k++] = '"';
    }
    out[k++] = ']';
    out[k] = 0;
}

/* JSON that names no branch of union t. */
static avk_status bad_union(rctx *c, const avki_json *j, const avk_type *t, int has_null)
    __attribute__((cold, noinline));

static avk_status bad_union(rctx *c, const avki_json *j, const avk_type *t, int has_null)
{
    char list[128];
    const char *alt = has_null ? "null or an object" : "an object";
    branch_list(t, list, sizeof list);
    if (j->type == AVKI_JSON_OBJECT && j->u.object.count == 1)
        return fail_at(c, j, 0, AVK_ERR_MALFORMED,
                       "\"%.64s\" is no branch of union %s (expected %s naming one)",
                       j->u.object.members[0].key, list, alt);
    if (j->type == AVKI_JSON_OBJECT)
        return fail_at(c, j, 0, AVK_ERR_MALFORMED,
                       "expected %s naming one branch of union %s, found an object of %zu "
                       "members",
                       alt, list, j->u.object.count);
    return fail_at(c, j, 0, AVK_ERR_MALFORMED,
                   "expected %s naming one branch of union %s, found %s", alt, list,
                   json_kind(j));
}

/* ---- allocation ------------------------------------------------------------------------ */

static void *alloc(rctx *c, size_t n)
{
    return avki_arena_alloc(c->arena, n ? n : 1, 8);
}

/* Opens a frame for container v (the caller has checked the depth). */
static avk_status push(rctx *c, const avki_json *j, const avk_type *t, avk_value *v, size_t n,
                       int is_default)
{
    rframe *f;
    if (AVK_UNLIKELY(c->top == c->cap)) {
        avki_arena *a = c->arena;
        size_t ncap = c->cap * 2, bytes;
        rframe *ns;
        if (c->cap > ((size_t)-1 / 2) / sizeof *ns)
            return no_memory(c);
        bytes = ncap * sizeof *ns;
        /* The stack counts against the arena's limit while it lives (as
         * the JSON parser's does). */
        if (a->limit && (a->total > a->limit || bytes > a->limit - a->total)) {
            a->limit_hit = 1;
            return no_memory(c);
        }
        a->allocations++;
        if (c->st == c->local) {
            ns = (rframe *)a->alloc.alloc(a->alloc.ctx, bytes);
            if (ns)
                memcpy(ns, c->local, c->cap * sizeof *ns);
        } else {
            ns = (rframe *)a->alloc.realloc(a->alloc.ctx, c->st, c->cap * sizeof *ns, bytes);
        }
        if (!ns)
            return no_memory(c);
        c->st = ns;
        c->cap = ncap;
    }
    f = &c->st[c->top++];
    f->j = j;
    f->t = t;
    f->v = v;
    f->vals = NULL;
    f->x = NULL;
    f->i = 0;
    f->n = n;
    f->is_default = is_default;
    return AVK_OK;
}

/* ---- leaves ------------------------------------------------------------------------------ */

/* A JSON string of code points U+0000-U+00FF as bytes (0 when a code
 * point is larger). */
static int code_points_to_bytes(const avki_json *j, uint8_t *out, size_t *n)
{
    const uint8_t *s = (const uint8_t *)j->u.string.ptr;
    size_t i = 0, k = 0, len = j->u.string.len;
    while (i < len) {
        if (s[i] < 0x80) {
            out[k++] = s[i++];
        } else if ((s[i] == 0xC2 || s[i] == 0xC3) && i + 1 < len) {
            out[k++] = (uint8_t)(((s[i] & 0x03) << 6) | (s[i + 1] & 0x3F));
            i += 2;
        } else {
            return 0;
        }
    }
    *n = k;
    return 1;
}

static avk_status read_bytes(rctx *c, const avki_json *j, const avk_type *t, int dflt,
                             avk_bytes *out)
{
    uint8_t *buf;
    size_t n = 0;
    if (j->type != AVKI_JSON_STRING)
        return bad(c, j, dflt, "a string of code points 0-255", t);
    buf = (uint8_t *)alloc(c, j->u.string.len + 1);
    if (!buf)
        return no_memory(c);
    if (!code_points_to_bytes(j, buf, &n))
        return bad(c, j, dflt, "code points no larger than U+00FF", t);
    if (t->kind == AVK_FIXED && n != t->size)
        return fail_at(c, j, dflt, AVK_ERR_MALFORMED, "%zu bytes for %s, which has %zu", n,
                       t->fullname, t->size);
    if (n > c->lim.max_bytes)
        return fail_at(c, j, dflt, AVK_ERR_LIMIT, "bytes of length %zu is above max_bytes (%llu)",
                       n, (unsigned long long)c->lim.max_bytes);
    buf[n] = 0;
    out->data = buf;
    out->len = n;
    return AVK_OK;
}

/* NaN and the infinities, which JSON lacks, as strings; else a number. */
static int special_double(const avki_json *j, double *out)
{
    const char *s = j->u.string.ptr;
    if (strcmp(s, "NaN") == 0)
        *out = NAN;
    else if (strcmp(s, "Infinity") == 0)
        *out = INFINITY;
    else if (strcmp(s, "-Infinity") == 0)
        *out = -INFINITY;
    else
        return 0;
    return 1;
}

static avk_status read_leaf(rctx *c, const avki_json *j, const avk_type *t, int dflt,
                            avk_value *v)
{
    double d;
    v->type = t;
    switch (t->kind) {
    case AVK_NULL:
        return j->type == AVKI_JSON_NULL ? AVK_OK : bad(c, j, dflt, "null", t);
    case AVK_BOOLEAN:
        if (j->type != AVKI_JSON_TRUE && j->type != AVKI_JSON_FALSE)
            return bad(c, j, dflt, "true or false", t);
        v->u.boolean = (uint8_t)(j->type == AVKI_JSON_TRUE);
        return AVK_OK;
    case AVK_INT:
        if (j->type != AVKI_JSON_NUMBER || !j->u.number.is_integer ||
            j->u.number.i < INT32_MIN || j->u.number.i > INT32_MAX)
            return bad(c, j, dflt, "an integer within 32 bits", t);
        v->u.i = (int32_t)j->u.number.i;
        return AVK_OK;
    case AVK_LONG:
        if (j->type != AVKI_JSON_NUMBER || !j->u.number.is_integer)
            return bad(c, j, dflt, "an integer within 64 bits", t);
        v->u.l = j->u.number.i;
        return AVK_OK;
    case AVK_FLOAT:
        if (j->type == AVKI_JSON_NUMBER) {
            if (!avki_json_number_float(c->arena, j, &v->u.f))
                return no_memory(c);
            return AVK_OK;
        }
        if (j->type == AVKI_JSON_STRING && special_double(j, &d)) {
            v->u.f = (float)d;
            return AVK_OK;
        }
        return bad(c, j, dflt, "a number", t);
    case AVK_DOUBLE:
        if (j->type == AVKI_JSON_NUMBER) {
            /* An integer's double is its one rounding. */
            v->u.d = j->u.number.is_integer ? (double)j->u.number.i : j->u.number.d;
            return AVK_OK;
        }
        if (j->type == AVKI_JSON_STRING && special_double(j, &v->u.d))
            return AVK_OK;
        return bad(c, j, dflt, "a number", t);
    case AVK_STRING:
        if (j->type != AVKI_JSON_STRING)
            return bad(c, j, dflt, "a string", t);
        if (j->u.string.len > c->lim.max_bytes)
            return fail_at(c, j, dflt, AVK_ERR_LIMIT,
                           "string of length %zu is above max_bytes (%llu)", j->u.string.len,
                           (unsigned long long)c->lim.max_bytes);
        v->u.bytes.data = (const uint8_t *)j->u.string.ptr;
        v->u.bytes.len = j->u.string.len;
        return AVK_OK;
    case AVK_BYTES:
    case AVK_FIXED:
        return read_bytes(c, j, t, dflt, &v->u.bytes);
    case AVK_ENUM: {
        long idx;
        if (j->type != AVKI_JSON_STRING ||
            (idx = avk_type_symbol_index(t, j->u.string.ptr)) < 0 ||
            strlen(j->u.string.ptr) != j->u.string.len)
            return bad(c, j, dflt, "one of its symbols", t);
        v->u.index = (uint32_t)idx;
        return AVK_OK;
    }
    default:
        return bad(c, j, dflt, "a value", t);
    }
}

static int is_container(avk_kind k)
{
    return k == AVK_RECORD || k == AVK_ARRAY || k == AVK_MAP || k == AVK_UNION;
}

/* ---- records ----------------------------------------------------------------------------- */

static int field_is(const avk_field *f, const avki_json_member *mem)
{
    return strlen(f->name) == mem->key_len && memcmp(f->name, mem->key, mem->key_len) == 0;
}

/* For each field of t, the JSON member that gives it (the first, when a
 * name repeats), or NULL; *vals is an arena array of field_count, or NULL
 * when the members are exactly the fields in schema order (what writers
 * produce: then nothing is allocated). Any other order goes through a
 * hash table of the field names, so the work stays linear in the object
 * and the record, never their product. */
static avk_status match_members(rctx *c, const avki_json *j, const avk_type *t, int dflt,
                                const avki_json ***vals)
{
    size_t m = j->u.object.count, f = t->field_count, k;
    const avki_json **out = NULL;
    avki_hash names; /* indexes of t's fields, by name */
    int built = 0;
    for (k = 0; k < m && k < f && field_is(&t->fields[k], &j->u.object.members[k]); k++)
        ;
    if (k == m && m == f) {
        *vals = NULL;
        return AVK_OK;
    }
    avki_hash_init_arena(&names, c->arena);
    if (f && !(out = (const avki_json **)alloc(c, f * sizeof *out)))
        return no_memory(c);
    for (k = 0; k < f; k++)
        out[k] = NULL;
    for (k = 0; k < m; k++) {
        const avki_json_member *mem = &j->u.object.members[k];
        size_t idx = f;
        if (k < f && field_is(&t->fields[k], mem)) {
            idx = k;
        } else {
            size_t i, pos;
            uint32_t h;
            if (!built) { /* built once, on the first member out of place */
                if (avki_hash_reserve(&names, f) != AVK_OK)
                    return no_memory(c);
                for (i = 0; i < f; i++) {
                    const char *nm = t->fields[i].name;
                    /* Field names are distinct (the parser checked). */
                    if (avki_hash_add(&names, avki_hash_bytes(&names, nm, strlen(nm)), i) != AVK_OK)
                        return no_memory(c);
                }
                built = 1;
            }
            h = avki_hash_bytes(&names, mem->key, mem->key_len);
            pos = avki_hash_first(&names, h);
            while ((i = avki_hash_next(&names, h, &pos)) != AVKI_HASH_END) {
                if (field_is(&t->fields[i], mem)) {
                    idx = i;
                    break;
                }
            }
        }
        if (idx == f)
            return fail_at(c, mem->value, dflt, AVK_ERR_MALFORMED, "%s has no field \"%.64s\"",
                           t->fullname, mem->key);
        if (!out[idx])
            out[idx] = mem->value;
    }
    *vals = out;
    return AVK_OK;
}

/* ---- containers -------------------------------------------------------------------------- */

/* The branch of union t that JSON member key names, or -1. */
static long branch_named(const avk_type *t, const char *key)
{
    size_t i;
    for (i = 0; i < t->branch_count; i++) {
        const avk_type *b = t->branches[i];
        if (b->fullname ? strcmp(b->fullname, key) == 0 || strcmp(b->name, key) == 0
                        : strcmp(avk_kind_name(b->kind), key) == 0)
            return (long)i;
    }
    return -1;
}

/* Typed array items: leaves, read in place. Sets the frame's i as it
 * goes, so an error's path names the item. */
static avk_status read_typed_items(rctx *c, rframe *f, void *items, size_t size)
{
    const avk_type *it = f->t->items;
    const avki_json *const *js = f->j->u.array.items;
    for (; f->i < f->n; f->i++) {
        avk_value tmp;
        size_t i = f->i;
        AVK_TRY(read_leaf(c, js[i], it, f->is_default, &tmp));
        switch (it->kind) {
        case AVK_BOOLEAN: ((uint8_t *)items)[i] = tmp.u.boolean; break;
        case AVK_INT: ((int32_t *)items)[i] = tmp.u.i; break;
        case AVK_LONG: ((int64_t *)items)[i] = tmp.u.l; break;
        case AVK_FLOAT: ((float *)items)[i] = tmp.u.f; break;
        case AVK_DOUBLE: ((double *)items)[i] = tmp.u.d; break;
        case AVK_FIXED:
            if (size)
                memcpy((uint8_t *)items + i * size, tmp.u.bytes.data, size);
            break;
        default: break; /* null: nothing stored */
        }
    }
    return AVK_OK;
}

/* Starts reading container type t from j into v: checks the JSON's
 * shape, allocates what v holds and pushes its frame (children are read
 * by the main loop). */
static avk_status open_container(rctx *c, const avki_json *j, const avk_type *t, int dflt,
                                 avk_value *v)
{
    v->type = t;
    if (AVK_UNLIKELY(c->top >= c->lim.max_depth))
        return fail_at(c, j, dflt, AVK_ERR_LIMIT, "nesting deeper than max_depth (%zu)",
                       c->lim.max_depth);
    switch (t->kind) {
    case AVK_RECORD: {
        const avki_json **vals = NULL;
        avk_value *fields = NULL;
        if (j->type != AVKI_JSON_OBJECT)
            return bad(c, j, dflt, "an object", t);
        AVK_TRY(match_members(c, j, t, dflt, &vals));
        if (t->field_count &&
            !(fields = (avk_value *)alloc(c, t->field_count * sizeof *fields)))
            return no_memory(c);
        v->u.fields = fields;
        AVK_TRY(push(c, j, t, v, t->field_count, dflt));
        c->st[c->top - 1].vals = vals;
        return AVK_OK;
    }
    case AVK_ARRAY: {
        size_t n, size = 0, elem;
        int typed;
        void *items = NULL;
        if (j->type != AVKI_JSON_ARRAY)
            return bad(c, j, dflt, "an array", t);
        n = j->u.array.count;
        if (n > c->lim.max_items)
            return fail_at(c, j, dflt, AVK_ERR_LIMIT, "array of %zu items is above max_items "
                           "(%llu)", n, (unsigned long long)c->lim.max_items);
        typed = avk_array_is_typed(t, &size);
        elem = typed ? size : sizeof(avk_value);
        if (n && elem) {
            if (n > SIZE_MAX / elem || !(items = alloc(c, n * elem)))
                return no_memory(c);
        }
        v->u.array.items = items;
        v->u.array.count = n;
        AVK_TRY(push(c, j, t, v, n, dflt));
        if (typed) /* leaves only: read here, the frame done */
            return read_typed_items(c, &c->st[c->top - 1], items, size);
        return AVK_OK;
    }
    case AVK_MAP: {
        size_t i, n;
        if (j->type != AVKI_JSON_OBJECT)
            return bad(c, j, dflt, "an object", t);
        n = j->u.object.count;
        if (n > c->lim.max_items)
            return fail_at(c, j, dflt, AVK_ERR_LIMIT, "map of %zu entries is above max_items "
                           "(%llu)", n, (unsigned long long)c->lim.max_items);
        v->u.map.keys = NULL;
        v->u.map.values = NULL;
        if (n && (!(v->u.map.keys = (avk_bytes *)alloc(c, n * sizeof(avk_bytes))) ||
                  !(v->u.map.values = (avk_value *)alloc(c, n * sizeof(avk_value)))))
            return no_memory(c);
        for (i = 0; i < n; i++) {
            const avki_json_member *m = &j->u.object.members[i];
            if (m->key_len > c->lim.max_bytes)
                return fail_at(c, m->value, dflt, AVK_ERR_LIMIT,
                               "map key of length %zu is above max_bytes (%llu)", m->key_len,
                               (unsigned long long)c->lim.max_bytes);
            v->u.map.keys[i].data = (const uint8_t *)m->key;
            v->u.map.keys[i].len = m->key_len;
        }
        v->u.map.count = n;
        return push(c, j, t, v, n, dflt);
    }
    default: { /* union */
        long b = -1;
        const avki_json *x = j;
        avk_value *bv;
        size_t i;
        int has_null = 0;
        for (i = 0; i < t->branch_count; i++)
            if (t->branches[i]->kind == AVK_NULL) {
                has_null = 1;
                break;
            }
        if (dflt) {
            /* A default is the first branch's value, not wrapped. */
            b = t->branch_count ? 0 : -1;
        } else if (j->type == AVKI_JSON_NULL) {
            b = has_null ? (long)i : -1;
        } else if (j->type == AVKI_JSON_OBJECT && j->u.object.count == 1) {
            b = branch_named(t, j->u.object.members[0].key);
            x = j->u.object.members[0].value;
        }
        if (b < 0)
            return dflt ? bad(c, j, dflt, "a value", t) : bad_union(c, j, t, has_null);
        if (!(bv = (avk_value *)alloc(c, sizeof *bv)))
            return no_memory(c);
        v->u.branch.index = (uint32_t)b;
        v->u.branch.value = bv;
        AVK_TRY(push(c, j, t, v, 1, dflt));
        c->st[c->top - 1].x = x;
        return AVK_OK;
    }
    }
}

/* The next value to read (*j, *t, *v, *dflt), from the innermost open
 * container; reads record fields that are leaves on the way and closes
 * the containers it finishes. Returns with *v NULL when the root is done. */
static avk_status advance(rctx *c, const avki_json **j, const avk_type **t, avk_value **v,
                          int *dflt)
{
    while (c->top) {
        rframe *f = &c->st[c->top - 1];
        if (f->i < f->n) {
            size_t i = f->i;
            switch (f->t->kind) {
            case AVK_RECORD: {
                const avk_type *rt = f->t;
                for (; f->i < f->n; f->i++) {
                    const avk_field *fd = &rt->fields[f->i];
                    const avki_json *x = f->vals ? f->vals[f->i]
                                                 : f->j->u.object.members[f->i].value;
                    avk_value *fv = &f->v->u.fields[f->i];
                    int d = f->is_default;
                    if (!x) {
                        if (!fd->default_value)
                            return fail_at(c, f->j, f->is_default, AVK_ERR_MALFORMED,
                                           "field \"%s\" of %s is missing and has no default",
                                           fd->name, rt->fullname);
                        x = fd->default_value;
                        d = 1;
                    }
                    if (is_container(fd->type->kind)) {
                        *j = x;
                        *t = fd->type;
                        *v = fv;
                        *dflt = d;
                        return AVK_OK;
                    }
                    AVK_TRY(read_leaf(c, x, fd->type, d, fv));
                }
                continue; /* the record is done */
            }
            case AVK_ARRAY:
                *j = f->j->u.array.items[i];
                *t = f->t->items;
                *v = (avk_value *)f->v->u.array.items + i;
                break;
            case AVK_MAP:
                *j = f->j->u.object.members[i].value;
                *t = f->t->items;
                *v = &f->v->u.map.values[i];
                break;
            default: /* union */
                *j = f->x;
                *t = f->t->branches[f->v->u.branch.index];
                *v = f->v->u.branch.value;
                break;
            }
            *dflt = f->is_default;
            return AVK_OK;
        }
        /* f is done: the parent moves past it. */
        c->top--;
        if (c->top)
            c->st[c->top - 1].i++;
    }
    *v = NULL;
    return AVK_OK;
}

/* Segment i of the path to an error: the child each open container reads. */
static void seg_at(const void *ctx, size_t i, avki_seg *out)
{
    const rctx *c = (const rctx *)ctx;
    const rframe *f = &c->st[i];
    out->index = f->i;
    out->name = NULL;
    switch (f->t->kind) {
    case AVK_RECORD:
        out->kind = AVKI_SEG_FIELD;
        out->name = f->t->fields[f->i].name;
        break;
    case AVK_ARRAY:
        out->kind = AVKI_SEG_ITEM;
        break;
    case AVK_MAP:
        out->kind = AVKI_SEG_VALUE;
        break;
    default:
        out->kind = AVKI_SEG_BRANCH;
        out->index = f->v->u.branch.index;
        break;
    }
}

/* Reads j (a default when dflt) as t into out, whole. */
static avk_status read_tree(rctx *c, const avki_json *j, const avk_type *t, int dflt,
                            avk_value *out)
{
    avk_value *v = out;
    for (;;) {
        if (is_container(t->kind)) {
            AVK_TRY(open_container(c, j, t, dflt, v)); /* its frame's end moves on */
        } else {
            AVK_TRY(read_leaf(c, j, t, dflt, v));
            if (c->top)
                c->st[c->top - 1].i++;
        }
        AVK_TRY(advance(c, &j, &t, &v, &dflt));
        if (!v)
            return AVK_OK;
    }
}

static void ctx_init(rctx *c, avk_arena *arena, rframe *local, avk_error *err)
{
    c->arena = &arena->core;
    c->arena->limit_hit = 0;
    c->err = err;
    c->st = c->local = local;
    c->top = 0;
    c->cap = LOCAL_FRAMES;
    c->value_error = 0;
    c->arena_limit = 0;
    c->offset = 0;
    c->line = c->column = 1;
}

static void ctx_destroy(rctx *c)
{
    if (c->st != c->local)
        c->arena->alloc.free(c->arena->alloc.ctx, c->st, c->cap * sizeof *c->st);
}

/* The error's path, from the stack, in front of its message. */
static void finish_error(rctx *c, const avk_type *root)
{
    if (c->value_error)
        avki_path_report(c->err, type_name(root), c->top, seg_at, c);
}

avk_status avk_value_read_json_opts(const avk_type *t, const char *json, size_t len,
                                    const avk_json_read_options *opts, avk_arena *arena,
                                    avk_value *out, size_t *used, avk_error *err)
{
    rframe local[LOCAL_FRAMES];
    avki_json_parse_options po;
    rctx c;
    const avki_json *root;
    size_t saved_limit;
    unsigned flags = opts ? opts->flags : 0;
    avk_status st;
    if (used)
        *used = 0;
    if (!t || (!json && len) || !arena || !out || ((flags & AVK_JSON_FIRST_VALUE) && !used))
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_value_read_json: NULL argument");
    if (opts && opts->struct_size < sizeof *opts)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_value_read_json_opts: options struct_size %zu, expected %zu",
                              opts->struct_size, sizeof *opts);
    ctx_init(&c, arena, local, err);
    if (opts)
        c.lim = opts->limits;
    else
        memset(&c.lim, 0, sizeof c.lim);
    if (!c.lim.max_depth)
        c.lim.max_depth = AVK_DEFAULT_MAX_DEPTH;
    if (!c.lim.max_bytes)
        c.lim.max_bytes = DEFAULT_MAX_BYTES;
    if (!c.lim.max_items)
        c.lim.max_items = DEFAULT_MAX_ITEMS;
    if (!c.lim.max_memory)
        c.lim.max_memory = DEFAULT_MAX_MEMORY;
    if (opts) {
        c.offset = opts->offset;
        c.line = opts->line ? opts->line : 1;
        c.column = opts->column ? opts->column : 1;
    }
    /* max_memory bounds what this call takes: the arena's limit lowered
     * for the call (its own limit stays when lower). */
    saved_limit = c.arena->limit;
    {
        uint64_t cap = c.arena->total + c.lim.max_memory;
        if (cap < c.arena->total || cap > SIZE_MAX)
            cap = SIZE_MAX;
        if (!saved_limit || cap < saved_limit) {
            c.arena->limit = (size_t)cap;
            c.arena_limit = cap;
        }
    }

    memset(&po, 0, sizeof po);
    /* Each JSON array or object is one level of the value (a record, an
     * array, a map, or the object a union's branch is wrapped in), so
     * the text needs no more nesting than the value is allowed. */
    po.max_depth = c.lim.max_depth;
    po.flags = (flags & AVK_JSON_FIRST_VALUE ? AVKI_JSON_PREFIX : 0) |
               (flags & AVK_JSON_LAST_TEXT ? AVKI_JSON_FINAL : 0);
    po.line = c.line;
    po.column = c.column;
    po.offset = c.offset;
    st = avki_json_parse_ex(c.arena, json, len, &po, &root, used, err);
    if (st == AVK_ERR_NO_MEMORY && c.arena->limit_hit) {
        st = no_memory(&c);
    } else if (st == AVK_OK) {
        if (used && !(flags & AVK_JSON_FIRST_VALUE))
            *used = len;
        memset(out, 0, sizeof *out);
        st = read_tree(&c, root, t, 0, out);
        if (st != AVK_OK)
            finish_error(&c, t);
    }
    ctx_destroy(&c);
    c.arena->limit = saved_limit;
    return st;
}

avk_status avk_value_read_json(const avk_type *t, const char *json, size_t len, avk_arena *arena,
                               avk_value *out, avk_error *err)
{
    return avk_value_read_json_opts(t, json, len, NULL, arena, out, NULL, err);
}

avk_status avki_value_from_default(const avk_field *f, avk_arena *arena, avk_value *out,
                                   avk_error *err)
{
    rframe local[LOCAL_FRAMES];
    rctx c;
    avk_status st;
    if (!f || !f->default_value || !arena || !out)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avki_value_from_default: no default");
    ctx_init(&c, arena, local, err);
    memset(&c.lim, 0, sizeof c.lim);
    c.lim.max_depth = AVK_DEFAULT_MAX_DEPTH;
    c.lim.max_bytes = c.lim.max_items = (uint64_t)-1; /* the schema's text bounds them */
    c.lim.max_memory = DEFAULT_MAX_MEMORY;
    memset(out, 0, sizeof *out);
    st = read_tree(&c, f->default_value, f->type, 1, out);
    if (st != AVK_OK)
        finish_error(&c, f->type);
    ctx_destroy(&c);
    return st;
}
