/* Avro JSON decoding: reads a value of a schema from its JSON form (and field defaults from the schema). */
#include <math.h>
#include <string.h>

#include "avrokit/avro_json.h"
#include "binary/decode_internal.h"
#include "common/error.h"
#include "json/avro_json_internal.h"
#include "json/json.h"
#include "schema/schema_internal.h"

typedef struct rctx {
    avki_arena *arena;
    avk_error *err;
} rctx;

/* Cold: a value that does not fit its type, at the JSON node j. */
static avk_status bad(rctx *c, const avki_json *j, const char *what, const avk_type *t)
{
    return avki_decode_fail(c->err, AVK_ERR_MALFORMED, j->offset,
                            "line %u, column %u: expected %s for %s", (unsigned)j->line,
                            (unsigned)j->column, what,
                            t->fullname ? t->fullname : avk_kind_name(t->kind));
}

static avk_status no_memory(rctx *c)
{
    return avki_decode_fail(c->err, c->arena->limit_hit ? AVK_ERR_LIMIT : AVK_ERR_NO_MEMORY,
                            AVK_OFFSET_UNKNOWN, "out of memory reading a JSON value");
}

static void *alloc(rctx *c, size_t n)
{
    return avki_arena_alloc(c->arena, n ? n : 1, 8);
}

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

static avk_status read_bytes(rctx *c, const avki_json *j, const avk_type *t, avk_bytes *out)
{
    uint8_t *buf;
    size_t n = 0;
    if (j->type != AVKI_JSON_STRING)
        return bad(c, j, "a string of code points 0-255", t);
    buf = (uint8_t *)alloc(c, j->u.string.len + 1);
    if (!buf)
        return no_memory(c);
    if (!code_points_to_bytes(j, buf, &n))
        return bad(c, j, "code points no larger than U+00FF", t);
    if (t->kind == AVK_FIXED && n != t->size)
        return avki_decode_fail(c->err, AVK_ERR_MALFORMED, j->offset,
                                "line %u, column %u: %zu bytes for %s, which has %zu",
                                (unsigned)j->line, (unsigned)j->column, n, t->fullname, t->size);
    buf[n] = 0;
    out->data = buf;
    out->len = n;
    return AVK_OK;
}

static avk_status read_double(rctx *c, const avki_json *j, const avk_type *t, double *out)
{
    if (j->type == AVKI_JSON_NUMBER) {
        *out = j->u.number.is_integer ? (double)j->u.number.i : j->u.number.d;
        return AVK_OK;
    }
    if (j->type == AVKI_JSON_STRING) {
        const char *s = j->u.string.ptr;
        if (strcmp(s, "NaN") == 0) {
            *out = NAN;
            return AVK_OK;
        }
        if (strcmp(s, "Infinity") == 0) {
            *out = INFINITY;
            return AVK_OK;
        }
        if (strcmp(s, "-Infinity") == 0) {
            *out = -INFINITY;
            return AVK_OK;
        }
    }
    return bad(c, j, "a number", t);
}

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

static avk_status read_value(rctx *c, const avki_json *j, const avk_type *t, int is_default,
                             avk_value *v);

static avk_status read_items(rctx *c, const avki_json *j, const avk_type *t, int is_default,
                             avk_value *v)
{
    const avk_type *it = t->items;
    size_t i, n = j->u.array.count, size = 0;
    int typed = avk_array_is_typed(t, &size);
    void *items = NULL;
    if (n) {
        size_t elem = typed ? size : sizeof(avk_value);
        if (elem && n > SIZE_MAX / elem)
            return no_memory(c);
        if (elem && !(items = alloc(c, n * elem)))
            return no_memory(c);
    }
    for (i = 0; i < n; i++) {
        const avki_json *x = j->u.array.items[i];
        avk_value tmp;
        avk_status st;
        if (!typed) {
            st = read_value(c, x, it, is_default, (avk_value *)items + i);
        } else {
            st = read_value(c, x, it, is_default, &tmp);
            if (st == AVK_OK) {
                switch (it->kind) {
                case AVK_BOOLEAN: ((uint8_t *)items)[i] = (uint8_t)tmp.u.boolean; break;
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
        }
        if (st != AVK_OK)
            return avki_path_prepend(c->err, st, ".items[%zu]", i);
    }
    v->u.array.items = items;
    v->u.array.count = n;
    return AVK_OK;
}

static uint64_t name_hash(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
    size_t i;
    for (i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 0x100000001b3ull;
    return h;
}

/* For each field of t, the JSON member that gives it (the first, when a
 * name repeats), or NULL; *vals is an arena array of field_count. Members
 * in schema order (what writers produce) match position by position; any
 * other order goes through a hash table of the field names, so the work
 * stays linear in the object and the record, never their product. */
static avk_status match_members(rctx *c, const avki_json *j, const avk_type *t,
                                const avki_json ***vals)
{
    size_t m = j->u.object.count, f = t->field_count, k, cap = 0;
    const avki_json **out = NULL;
    uint32_t *slots = NULL;
    if (f && !(out = (const avki_json **)alloc(c, f * sizeof *out)))
        return no_memory(c);
    for (k = 0; k < f; k++)
        out[k] = NULL;
    for (k = 0; k < m; k++) {
        const avki_json_member *mem = &j->u.object.members[k];
        size_t idx = f;
        if (k < f && strlen(t->fields[k].name) == mem->key_len &&
            memcmp(t->fields[k].name, mem->key, mem->key_len) == 0) {
            idx = k;
        } else {
            size_t i;
            if (!slots) { /* built once, on the first member out of place */
                for (cap = 16; cap < 2 * f; cap *= 2)
                    ;
                if (!(slots = (uint32_t *)alloc(c, cap * sizeof *slots)))
                    return no_memory(c);
                memset(slots, 0, cap * sizeof *slots);
                for (i = 0; i < f; i++) {
                    const char *nm = t->fields[i].name;
                    size_t h = (size_t)name_hash(nm, strlen(nm)) & (cap - 1);
                    while (slots[h])
                        h = (h + 1) & (cap - 1);
                    slots[h] = (uint32_t)i + 1;
                }
            }
            for (i = (size_t)name_hash(mem->key, mem->key_len) & (cap - 1); slots[i];
                 i = (i + 1) & (cap - 1)) {
                const char *nm = t->fields[slots[i] - 1].name;
                if (strlen(nm) == mem->key_len && memcmp(nm, mem->key, mem->key_len) == 0) {
                    idx = slots[i] - 1;
                    break;
                }
            }
        }
        if (idx == f)
            return avki_decode_fail(c->err, AVK_ERR_MALFORMED, mem->value->offset,
                                    "line %u, column %u: %s has no field \"%s\"",
                                    (unsigned)mem->value->line, (unsigned)mem->value->column,
                                    t->fullname, mem->key);
        if (!out[idx])
            out[idx] = mem->value;
    }
    *vals = out;
    return AVK_OK;
}

static avk_status read_record(rctx *c, const avki_json *j, const avk_type *t, int is_default,
                              avk_value *v)
{
    size_t i;
    avk_value *fields = NULL;
    const avki_json **vals = NULL;
    if (j->type != AVKI_JSON_OBJECT)
        return bad(c, j, "an object", t);
    /* Every member must name a field; the first of a repeated name wins. */
    AVK_TRY(match_members(c, j, t, &vals));
    if (t->field_count && !(fields = (avk_value *)alloc(c, t->field_count * sizeof *fields)))
        return no_memory(c);
    v->u.fields = fields;
    for (i = 0; i < t->field_count; i++) {
        const avk_field *f = &t->fields[i];
        const avki_json *x = vals[i];
        avk_status st;
        if (x) {
            st = read_value(c, x, f->type, is_default, &fields[i]);
        } else if (f->default_value) {
            st = read_value(c, f->default_value, f->type, 1, &fields[i]);
        } else {
            st = avki_decode_fail(c->err, AVK_ERR_MALFORMED, j->offset,
                                  "line %u, column %u: field \"%s\" of %s is missing and has "
                                  "no default",
                                  (unsigned)j->line, (unsigned)j->column, f->name, t->fullname);
        }
        if (st != AVK_OK)
            return avki_path_prepend(c->err, st, ".fields[%zu]", i);
    }
    return AVK_OK;
}

static avk_status read_union(rctx *c, const avki_json *j, const avk_type *t, int is_default,
                             avk_value *v)
{
    long b = -1;
    const avki_json *x = j;
    avk_value *bv;
    avk_status st;
    if (is_default) {
        /* A default is the first branch's value, not wrapped. */
        b = t->branch_count ? 0 : -1;
    } else if (j->type == AVKI_JSON_NULL) {
        size_t i;
        for (i = 0; i < t->branch_count && b < 0; i++)
            if (t->branches[i]->kind == AVK_NULL)
                b = (long)i;
    } else if (j->type == AVKI_JSON_OBJECT && j->u.object.count == 1) {
        b = branch_named(t, j->u.object.members[0].key);
        x = j->u.object.members[0].value;
    }
    if (b < 0)
        return bad(c, j, "null or {\"<branch>\": value} naming a branch", t);
    if (!(bv = (avk_value *)alloc(c, sizeof *bv)))
        return no_memory(c);
    v->u.branch.index = (uint32_t)b;
    v->u.branch.value = bv;
    st = read_value(c, x, t->branches[b], is_default, bv);
    if (st != AVK_OK)
        return avki_path_prepend(c->err, st, ".branch[%ld]", b);
    return AVK_OK;
}

static avk_status read_value(rctx *c, const avki_json *j, const avk_type *t, int is_default,
                             avk_value *v)
{
    double d;
    memset(v, 0, sizeof *v);
    v->type = t;
    switch (t->kind) {
    case AVK_NULL:
        return j->type == AVKI_JSON_NULL ? AVK_OK : bad(c, j, "null", t);
    case AVK_BOOLEAN:
        if (j->type != AVKI_JSON_TRUE && j->type != AVKI_JSON_FALSE)
            return bad(c, j, "true or false", t);
        v->u.boolean = j->type == AVKI_JSON_TRUE;
        return AVK_OK;
    case AVK_INT:
        if (j->type != AVKI_JSON_NUMBER || !j->u.number.is_integer ||
            j->u.number.i < INT32_MIN || j->u.number.i > INT32_MAX)
            return bad(c, j, "an integer within 32 bits", t);
        v->u.i = (int32_t)j->u.number.i;
        return AVK_OK;
    case AVK_LONG:
        if (j->type != AVKI_JSON_NUMBER || !j->u.number.is_integer)
            return bad(c, j, "an integer within 64 bits", t);
        v->u.l = j->u.number.i;
        return AVK_OK;
    case AVK_FLOAT:
        AVK_TRY(read_double(c, j, t, &d));
        v->u.f = (float)d;
        return AVK_OK;
    case AVK_DOUBLE:
        return read_double(c, j, t, &v->u.d);
    case AVK_STRING:
        if (j->type != AVKI_JSON_STRING)
            return bad(c, j, "a string", t);
        v->u.bytes.data = (const uint8_t *)j->u.string.ptr;
        v->u.bytes.len = j->u.string.len;
        return AVK_OK;
    case AVK_BYTES:
    case AVK_FIXED:
        return read_bytes(c, j, t, &v->u.bytes);
    case AVK_ENUM: {
        long idx;
        if (j->type != AVKI_JSON_STRING ||
            (idx = avk_type_symbol_index(t, j->u.string.ptr)) < 0 ||
            strlen(j->u.string.ptr) != j->u.string.len)
            return bad(c, j, "one of its symbols", t);
        v->u.index = (int32_t)idx;
        return AVK_OK;
    }
    case AVK_RECORD:
        return read_record(c, j, t, is_default, v);
    case AVK_ARRAY:
        if (j->type != AVKI_JSON_ARRAY)
            return bad(c, j, "an array", t);
        return read_items(c, j, t, is_default, v);
    case AVK_MAP: {
        size_t i, n;
        if (j->type != AVKI_JSON_OBJECT)
            return bad(c, j, "an object", t);
        n = j->u.object.count;
        if (n && (!(v->u.map.keys = (avk_bytes *)alloc(c, n * sizeof(avk_bytes))) ||
                  !(v->u.map.values = (avk_value *)alloc(c, n * sizeof(avk_value)))))
            return no_memory(c);
        for (i = 0; i < n; i++) {
            const avki_json_member *m = &j->u.object.members[i];
            avk_status st;
            v->u.map.keys[i].data = (const uint8_t *)m->key;
            v->u.map.keys[i].len = m->key_len;
            st = read_value(c, m->value, t->items, is_default, &v->u.map.values[i]);
            if (st != AVK_OK)
                return avki_path_prepend(c->err, st, ".values[%zu]", i);
        }
        v->u.map.count = n;
        return AVK_OK;
    }
    case AVK_UNION:
        return read_union(c, j, t, is_default, v);
    }
    return bad(c, j, "a value", t);
}

avk_status avk_value_read_json(const avk_type *t, const char *json, size_t len, avk_arena *arena,
                               avk_value *out, avk_error *err)
{
    rctx c;
    const avki_json *root;
    avk_status st;
    if (!t || (!json && len) || !arena || !out)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_value_read_json: NULL argument");
    c.arena = &arena->core;
    c.arena->limit_hit = 0;
    c.err = err;
    AVK_TRY(avki_json_parse(c.arena, json, len, NULL, &root, err));
    st = read_value(&c, root, t, 0, out);
    if (st != AVK_OK)
        avki_path_finish(err, t);
    return st;
}

avk_status avki_value_from_default(const avk_field *f, avk_arena *arena, avk_value *out,
                                   avk_error *err)
{
    rctx c;
    if (!f || !f->default_value || !arena || !out)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avki_value_from_default: no default");
    c.arena = &arena->core;
    c.arena->limit_hit = 0;
    c.err = err;
    return read_value(&c, f->default_value, f->type, 1, out);
}
