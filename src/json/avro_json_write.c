/* Avro JSON encoding: writes a generic value as the specification's JSON form. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "avrokit/avro_json.h"
#include "common/error.h"
#include "json/json.h"
#include "schema/schema_internal.h"

#define MAX_DEPTH 1024

typedef struct jctx {
    avk_writer *w;
    int pretty;
    avk_error *err;
} jctx;

static avk_status put(jctx *c, const char *s, size_t n)
{
    return avk_writer_write_raw(c->w, s, n, c->err);
}

static avk_status newline(jctx *c, size_t depth)
{
    static const char spaces[] = "                                ";
    size_t n = depth * 2;
    if (!c->pretty)
        return AVK_OK;
    AVK_TRY(put(c, "\n", 1));
    while (n) {
        size_t k = n < sizeof spaces - 1 ? n : sizeof spaces - 1;
        AVK_TRY(put(c, spaces, k));
        n -= k;
    }
    return AVK_OK;
}

static avk_status put_integer(jctx *c, long long v)
{
    char buf[24];
    int n = snprintf(buf, sizeof buf, "%lld", v);
    return put(c, buf, (size_t)n);
}

/* The fewest significant digits (15 to 17) that read back as exactly d,
 * with ".0" added to integral values so they still read as doubles. */
static avk_status put_double(jctx *c, double d)
{
    char buf[40];
    int n = 0, prec;
    if (isnan(d))
        return put(c, "\"NaN\"", 5);
    if (isinf(d))
        return d > 0 ? put(c, "\"Infinity\"", 10) : put(c, "\"-Infinity\"", 11);
    for (prec = 15; prec <= 17; prec++) {
        n = snprintf(buf, sizeof buf, "%.*g", prec, d);
        if (strtod(buf, NULL) == d)
            break;
    }
    if (!strpbrk(buf, ".eE") && (size_t)n + 2 < sizeof buf) {
        memcpy(buf + n, ".0", 3);
        n += 2;
    }
    return put(c, buf, (size_t)n);
}

/* Bytes as a string of code points U+0000-U+00FF: bytes from 0x80 up
 * become two UTF-8 bytes; quotes, backslashes and controls are escaped. */
static avk_status put_bytes(jctx *c, const avk_bytes *b)
{
    static const char hex[] = "0123456789abcdef";
    size_t i;
    if (b->len && !b->data)
        return avki_error_set(c->err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "bytes of %zu bytes have no data", b->len);
    AVK_TRY(put(c, "\"", 1));
    for (i = 0; i < b->len; i++) {
        uint8_t x = b->data[i];
        uint8_t *d;
        AVK_TRY(avk_writer_reserve(c->w, 6, c->err));
        d = c->w->pos;
        if (x == '"' || x == '\\') {
            d[0] = '\\';
            d[1] = x;
            c->w->pos += 2;
        } else if (x < 0x20) {
            memcpy(d, "\\u00", 4);
            d[4] = (uint8_t)hex[x >> 4];
            d[5] = (uint8_t)hex[x & 15];
            c->w->pos += 6;
        } else if (x < 0x80) {
            d[0] = x;
            c->w->pos += 1;
        } else {
            d[0] = (uint8_t)(0xC0 | (x >> 6));
            d[1] = (uint8_t)(0x80 | (x & 0x3F));
            c->w->pos += 2;
        }
    }
    return put(c, "\"", 1);
}

static avk_status put_string(jctx *c, const avk_bytes *s)
{
    if (s->len && !s->data)
        return avki_error_set(c->err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "string of %zu bytes has no data", s->len);
    return avki_json_write_string(c->w, (const char *)s->data, s->len, c->err);
}

/* The name a union branch is written under. */
static const char *branch_name(const avk_type *t)
{
    return t->fullname ? t->fullname : avk_kind_name(t->kind);
}

static avk_status write_value(jctx *c, const avk_value *v, size_t depth);

/* One typed array item (see avk_value.h for the layouts). */
static avk_status write_typed_item(jctx *c, const avk_type *items, const void *base, size_t i)
{
    switch (items->kind) {
    case AVK_NULL:
        return put(c, "null", 4);
    case AVK_BOOLEAN:
        return ((const uint8_t *)base)[i] ? put(c, "true", 4) : put(c, "false", 5);
    case AVK_INT:
        return put_integer(c, ((const int32_t *)base)[i]);
    case AVK_LONG:
        return put_integer(c, (long long)((const int64_t *)base)[i]);
    case AVK_FLOAT:
        return put_double(c, (double)((const float *)base)[i]);
    case AVK_DOUBLE:
        return put_double(c, ((const double *)base)[i]);
    default: { /* fixed */
        avk_bytes b;
        b.data = (const uint8_t *)base + i * items->size;
        b.len = items->size;
        return put_bytes(c, &b);
    }
    }
}

static avk_status write_array(jctx *c, const avk_value *v, size_t depth)
{
    const avk_type *items = v->type->items;
    size_t i, n = v->u.array.count;
    int typed = avk_array_is_typed(v->type, NULL);
    if (n && !v->u.array.items && items->kind != AVK_NULL &&
        !(items->kind == AVK_FIXED && items->size == 0))
        return avki_error_set(c->err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "array of %zu items has no items", n);
    AVK_TRY(put(c, "[", 1));
    for (i = 0; i < n; i++) {
        if (i)
            AVK_TRY(put(c, ",", 1));
        AVK_TRY(newline(c, depth + 1));
        if (typed)
            AVK_TRY(write_typed_item(c, items, v->u.array.items, i));
        else
            AVK_TRY(write_value(c, (const avk_value *)v->u.array.items + i, depth + 1));
    }
    if (n)
        AVK_TRY(newline(c, depth));
    return put(c, "]", 1);
}

static avk_status write_object_key(jctx *c, const char *key, size_t len, size_t depth, size_t i)
{
    if (i)
        AVK_TRY(put(c, ",", 1));
    AVK_TRY(newline(c, depth + 1));
    AVK_TRY(avki_json_write_string(c->w, key, len, c->err));
    return c->pretty ? put(c, ": ", 2) : put(c, ":", 1);
}

static avk_status write_value(jctx *c, const avk_value *v, size_t depth)
{
    const avk_type *t = v->type;
    size_t i;
    if (!t)
        return avki_error_set(c->err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "value has no type");
    if (depth >= MAX_DEPTH)
        return avki_error_set(c->err, AVK_ERR_LIMIT, AVK_OFFSET_UNKNOWN,
                              "value nested deeper than %d levels", MAX_DEPTH);
    switch (t->kind) {
    case AVK_NULL:
        return put(c, "null", 4);
    case AVK_BOOLEAN:
        return v->u.boolean ? put(c, "true", 4) : put(c, "false", 5);
    case AVK_INT:
        return put_integer(c, v->u.i);
    case AVK_LONG:
        return put_integer(c, (long long)v->u.l);
    case AVK_FLOAT:
        return put_double(c, (double)v->u.f);
    case AVK_DOUBLE:
        return put_double(c, v->u.d);
    case AVK_STRING:
        return put_string(c, &v->u.bytes);
    case AVK_BYTES:
        return put_bytes(c, &v->u.bytes);
    case AVK_FIXED:
        if (v->u.bytes.len != t->size)
            return avki_error_set(c->err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                                  "fixed value of %zu bytes, %s has %zu", v->u.bytes.len,
                                  t->fullname, t->size);
        return put_bytes(c, &v->u.bytes);
    case AVK_ENUM:
        if (v->u.index < 0 || (size_t)v->u.index >= t->symbol_count)
            return avki_error_set(c->err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                                  "enum index %d out of range (%s has %zu symbols)",
                                  (int)v->u.index, t->fullname, t->symbol_count);
        return avki_json_write_string(c->w, t->symbols[v->u.index],
                                      strlen(t->symbols[v->u.index]), c->err);
    case AVK_RECORD:
        if (t->field_count && !v->u.fields)
            return avki_error_set(c->err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                                  "record %s has no fields", t->fullname);
        AVK_TRY(put(c, "{", 1));
        for (i = 0; i < t->field_count; i++) {
            AVK_TRY(write_object_key(c, t->fields[i].name, strlen(t->fields[i].name), depth, i));
            AVK_TRY(write_value(c, &v->u.fields[i], depth + 1));
        }
        if (t->field_count)
            AVK_TRY(newline(c, depth));
        return put(c, "}", 1);
    case AVK_MAP:
        if (v->u.map.count && (!v->u.map.keys || !v->u.map.values))
            return avki_error_set(c->err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                                  "map of %zu entries has no keys or values", v->u.map.count);
        AVK_TRY(put(c, "{", 1));
        for (i = 0; i < v->u.map.count; i++) {
            const avk_bytes *k = &v->u.map.keys[i];
            if (k->len && !k->data)
                return avki_error_set(c->err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                                      "map key of %zu bytes has no data", k->len);
            AVK_TRY(write_object_key(c, (const char *)k->data, k->len, depth, i));
            AVK_TRY(write_value(c, &v->u.map.values[i], depth + 1));
        }
        if (v->u.map.count)
            AVK_TRY(newline(c, depth));
        return put(c, "}", 1);
    case AVK_ARRAY:
        return write_array(c, v, depth);
    case AVK_UNION: {
        const avk_value *b = v->u.branch.value;
        const avk_type *bt;
        if (v->u.branch.index >= t->branch_count || !b)
            return avki_error_set(c->err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                                  "union branch %u out of range or without a value",
                                  (unsigned)v->u.branch.index);
        bt = t->branches[v->u.branch.index];
        if (bt->kind == AVK_NULL)
            return put(c, "null", 4);
        AVK_TRY(put(c, "{", 1));
        AVK_TRY(write_object_key(c, branch_name(bt), strlen(branch_name(bt)), depth, 0));
        AVK_TRY(write_value(c, b, depth + 1));
        AVK_TRY(newline(c, depth));
        return put(c, "}", 1);
    }
    }
    return avki_error_set(c->err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                          "value of unknown kind %d", (int)t->kind);
}

avk_status avk_value_write_json(const avk_value *v, unsigned flags, avk_writer *w, avk_error *err)
{
    jctx c;
    if (!v || !w)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_value_write_json: NULL argument");
    c.w = w;
    c.pretty = (flags & AVK_JSON_PRETTY) != 0;
    c.err = err;
    return write_value(&c, v, 0);
}
