/* Building values by name: finding the field a call acts on, checking its type, and the typed setters. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/arena.h"
#include "common/error.h"
#include "schema/schema_internal.h"
#include "value/value_target.h"

#define DESC_MAX 200
#define PLACE_MAX 160

/* A union value, when v is one with a branch chosen: that branch's value. */
static avk_value *through_union(avk_value *v, const avk_value **outer)
{
    if (v->type->kind == AVK_UNION && v->u.branch.value && v->u.branch.value->type &&
        v->u.branch.index < v->type->branch_count) {
        *outer = v;
        return v->u.branch.value;
    }
    return v;
}

const char *avki_type_describe(const avk_type *t, char *buf, size_t cap)
{
    static const char *const plain[] = {
        [AVK_NULL] = "null",     [AVK_BOOLEAN] = "a boolean", [AVK_INT] = "an int",
        [AVK_LONG] = "a long",   [AVK_FLOAT] = "a float",     [AVK_DOUBLE] = "a double",
        [AVK_BYTES] = "bytes",   [AVK_STRING] = "a string"};
    char list[AVKI_BRANCH_LIST_MAX];
    switch (t->kind) {
    case AVK_RECORD: snprintf(buf, cap, "a record '%s'", t->fullname); break;
    case AVK_ENUM: snprintf(buf, cap, "an enum '%s'", t->fullname); break;
    case AVK_FIXED: snprintf(buf, cap, "a fixed '%s' of %zu bytes", t->fullname, t->size); break;
    case AVK_ARRAY: snprintf(buf, cap, "an array of %s", avki_type_label(t->items)); break;
    case AVK_MAP: snprintf(buf, cap, "a map of %s", avki_type_label(t->items)); break;
    case AVK_UNION:
        snprintf(buf, cap, "a union %s", avki_union_branch_list(t, list, sizeof list));
        break;
    default:
        if (t->logical != AVK_LOGICAL_NONE)
            snprintf(buf, cap, "%s (%s)", plain[t->kind], avk_logical_name(t->logical));
        else
            snprintf(buf, cap, "%s", plain[t->kind]);
        break;
    }
    return buf;
}

const char *avki_target_place(const avki_target *t, char *buf, size_t cap)
{
    if (t->field)
        snprintf(buf, cap, "field '%s' of record '%s'", t->field, t->record->fullname);
    else
        snprintf(buf, cap, "the value");
    return buf;
}

avk_status avki_value_mismatch(const avki_target *t, const char *fn, const char *want,
                               const char *hint, avk_error *err)
{
    char place[PLACE_MAX], what[DESC_MAX], branch[DESC_MAX];
    const avk_value *u = t->outer ? t->outer : t->v;
    avki_target_place(t, place, sizeof place);
    avki_type_describe(u->type, what, sizeof what);
    branch[0] = '\0';
    if (t->outer)
        snprintf(branch, sizeof branch, " with its branch %s chosen",
                 avki_type_label(u->type->branches[u->u.branch.index]));
    else if (u->type->kind == AVK_UNION)
        snprintf(branch, sizeof branch, " with no branch chosen");
    return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                          "%s: %s is %s%s, not %s%s%s", fn, place, what, branch, want,
                          hint ? "; " : "", hint ? hint : "");
}

avk_status avki_value_target(avk_value *v, const char *field, int stop_at_union, const char *fn,
                             avki_target *out, avk_error *err)
{
    const avk_value *ignored = NULL;
    const avk_field *f;
    memset(out, 0, sizeof *out);
    if (!v)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "%s: the value is NULL", fn);
    if (!v->type)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "%s: the value has no type (set it up with avk_value_init_tree)",
                              fn);
    if (field) {
        v = through_union(v, &ignored);
        if (v->type->kind != AVK_RECORD) {
            char what[DESC_MAX];
            return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                                  "%s: the value is %s, not a record: it has no field '%s'", fn,
                                  avki_type_describe(v->type, what, sizeof what), field);
        }
        f = avk_type_field_by_name(v->type, field);
        if (!f)
            return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                                  "%s: record '%s' has no field '%s'", fn, v->type->fullname,
                                  field);
        if (!v->u.fields)
            return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                                  "%s: record '%s' has no field storage (set it up with "
                                  "avk_value_init_tree)",
                                  fn, v->type->fullname);
        out->record = v->type;
        out->field = f->name;
        v = &v->u.fields[f->index];
        if (!v->type) /* zeroed field storage: an empty value of the field's type */
            v->type = f->type;
    }
    out->v = stop_at_union ? v : through_union(v, &out->outer);
    return AVK_OK;
}

/* The target of a setter, checked to be of kind k (want: its description). */
static avk_status setter_target(avk_value *v, const char *field, avk_kind k, const char *fn,
                                const char *want, avki_target *t, avk_error *err)
{
    AVK_TRY(avki_value_target(v, field, 0, fn, t, err));
    if (t->v->type->kind != k)
        return avki_value_mismatch(t, fn, want, NULL, err);
    return AVK_OK;
}

avk_status avk_value_get_field(avk_value *v, const char *field, avk_value **out, avk_error *err)
{
    avki_target t;
    if (!field || !out)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_value_get_field: NULL %s", field ? "out" : "field name");
    AVK_TRY(avki_value_target(v, field, 1, "avk_value_get_field", &t, err));
    *out = t.v;
    return AVK_OK;
}

avk_status avk_value_set_null(avk_value *v, const char *field, avk_error *err)
{
    avki_target t;
    return setter_target(v, field, AVK_NULL, "avk_value_set_null", "null", &t, err);
}

avk_status avk_value_set_boolean(avk_value *v, const char *field, int x, avk_error *err)
{
    avki_target t;
    AVK_TRY(setter_target(v, field, AVK_BOOLEAN, "avk_value_set_boolean", "a boolean", &t, err));
    t.v->u.boolean = x != 0;
    return AVK_OK;
}

avk_status avk_value_set_int(avk_value *v, const char *field, int32_t x, avk_error *err)
{
    avki_target t;
    AVK_TRY(setter_target(v, field, AVK_INT, "avk_value_set_int", "an int", &t, err));
    t.v->u.i = x;
    return AVK_OK;
}

avk_status avk_value_set_long(avk_value *v, const char *field, int64_t x, avk_error *err)
{
    avki_target t;
    AVK_TRY(avki_value_target(v, field, 0, "avk_value_set_long", &t, err));
    if (t.v->type->kind == AVK_INT) {
        /* As the builder: a long where the schema has an int, when it fits. */
        char place[PLACE_MAX];
        if (x < INT32_MIN || x > INT32_MAX)
            return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                                  "avk_value_set_long: %s is an int, and %lld does not fit in "
                                  "32 bits",
                                  avki_target_place(&t, place, sizeof place), (long long)x);
        t.v->u.i = (int32_t)x;
        return AVK_OK;
    }
    if (t.v->type->kind != AVK_LONG)
        return avki_value_mismatch(&t, "avk_value_set_long", "a long", NULL, err);
    t.v->u.l = x;
    return AVK_OK;
}

avk_status avk_value_set_float(avk_value *v, const char *field, float x, avk_error *err)
{
    avki_target t;
    AVK_TRY(setter_target(v, field, AVK_FLOAT, "avk_value_set_float", "a float", &t, err));
    t.v->u.f = x;
    return AVK_OK;
}

avk_status avk_value_set_double(avk_value *v, const char *field, double x, avk_error *err)
{
    avki_target t;
    AVK_TRY(setter_target(v, field, AVK_DOUBLE, "avk_value_set_double", "a double", &t, err));
    t.v->u.d = x;
    return AVK_OK;
}

/* data[0..len) into the target's bytes: a copy in arena (NUL after it), or
 * a view when arena is NULL. */
static avk_status put_bytes(avk_value *v, const void *data, size_t len, avk_arena *arena,
                            const char *fn, avk_error *err)
{
    if (len && !data)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "%s: data is NULL but len is %zu", fn, len);
    if (arena) {
        char *copy = avki_arena_strndup(&arena->core, (const char *)data, len);
        if (!copy)
            return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                                  "%s: cannot copy %zu bytes into the arena", fn, len);
        data = copy;
    }
    v->u.bytes.data = (const uint8_t *)data;
    v->u.bytes.len = len;
    return AVK_OK;
}

avk_status avk_value_set_string(avk_value *v, const char *field, const char *s, avk_arena *arena,
                                avk_error *err)
{
    avki_target t;
    if (!s)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_value_set_string: the string is NULL");
    AVK_TRY(setter_target(v, field, AVK_STRING, "avk_value_set_string", "a string", &t, err));
    return put_bytes(t.v, s, strlen(s), arena, "avk_value_set_string", err);
}

avk_status avk_value_set_bytes(avk_value *v, const char *field, const void *data, size_t len,
                               avk_arena *arena, avk_error *err)
{
    avki_target t;
    AVK_TRY(setter_target(v, field, AVK_BYTES, "avk_value_set_bytes", "bytes", &t, err));
    return put_bytes(t.v, data, len, arena, "avk_value_set_bytes", err);
}

avk_status avk_value_set_fixed(avk_value *v, const char *field, const void *data, size_t len,
                               avk_arena *arena, avk_error *err)
{
    avki_target t;
    AVK_TRY(setter_target(v, field, AVK_FIXED, "avk_value_set_fixed", "a fixed", &t, err));
    if (len != t.v->type->size) {
        char place[PLACE_MAX];
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_value_set_fixed: %s is a fixed '%s' of %zu bytes, not %zu",
                              avki_target_place(&t, place, sizeof place), t.v->type->fullname,
                              t.v->type->size, len);
    }
    return put_bytes(t.v, data, len, arena, "avk_value_set_fixed", err);
}

avk_status avk_value_set_enum(avk_value *v, const char *field, const char *symbol,
                              avk_error *err)
{
    avki_target t;
    long i;
    if (!symbol)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_value_set_enum: the symbol is NULL");
    AVK_TRY(setter_target(v, field, AVK_ENUM, "avk_value_set_enum", "an enum", &t, err));
    i = avk_type_symbol_index(t.v->type, symbol);
    if (i < 0) {
        char place[PLACE_MAX];
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_value_set_enum: %s is an enum '%s', which has no symbol '%s'",
                              avki_target_place(&t, place, sizeof place), t.v->type->fullname,
                              symbol);
    }
    t.v->u.index = (uint32_t)i;
    return AVK_OK;
}
