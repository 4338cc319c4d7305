/* Avro JSON encoding: writes a generic value as the specification's JSON form. */
#include <string.h>

#include "avrokit/avro_json.h"
#include "common/error.h"
#include "json/json.h"
#include "json/json_double.h"
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

/* Pretty output: a newline and two spaces a level. */
static avk_status indent(jctx *c, size_t depth)
{
    static const char spaces[] = "                                ";
    size_t n = depth * 2;
    AVK_TRY(put(c, "\n", 1));
    while (n) {
        size_t k = n < sizeof spaces - 1 ? n : sizeof spaces - 1;
        AVK_TRY(put(c, spaces, k));
        n -= k;
    }
    return AVK_OK;
}

static inline avk_status newline(jctx *c, size_t depth)
{
    return c->pretty ? indent(c, depth) : AVK_OK;
}

/* Free bytes at the writer's position. */
static inline size_t room(const jctx *c)
{
    return (size_t)(c->w->end - c->w->pos);
}

/* Numbers are formatted straight into the writer's buffer when the
 * longest text fits, else through a copy (a full memory writer near its
 * max_size, a stream with a tiny buffer). */
static avk_status put_integer(jctx *c, long long v)
{
    char tmp[AVKI_JSON_NUMBER_MAX];
    if (AVK_LIKELY(room(c) >= AVKI_JSON_NUMBER_MAX)) {
        c->w->pos += avki_json_format_long((char *)c->w->pos, (int64_t)v);
        return AVK_OK;
    }
    return put(c, tmp, avki_json_format_long(tmp, (int64_t)v));
}

/* The fewest significant digits (15 to 17) that read back as exactly d,
 * with ".0" added to integral values so they still read as doubles
 * (json_double.h has the exact rule). */
static avk_status put_double(jctx *c, double d)
{
    char tmp[AVKI_JSON_NUMBER_MAX];
    if (AVK_LIKELY(room(c) >= AVKI_JSON_NUMBER_MAX)) {
        c->w->pos += avki_json_format_double((char *)c->w->pos, d);
        return AVK_OK;
    }
    return put(c, tmp, avki_json_format_double(tmp, d));
}

/* Bytes as a string of code points U+0000-U+00FF: bytes from 0x80 up
 * become two UTF-8 bytes; quotes and backslashes take a backslash and the
 * controls \u00xx (never the short \n forms: the text stays what earlier
 * versions wrote). Each entry holds a byte's text in its first bytes and
 * its length in the last, so the loop stores 8 bytes and advances by the
 * length, with no branch on the byte. */
#define HEX_DIGIT(n) ((n) < 10 ? '0' + (n) : 'a' + (n) - 10)
#define IS_CTL(x) ((x) < 0x20)
#define IS_BSL(x) ((x) == '"' || (x) == '\\')
#define B0(x) (IS_CTL(x) || IS_BSL(x) ? '\\' : (x) < 0x80 ? (x) : 0xC0 | ((x) >> 6))
#define B1(x) (IS_CTL(x) ? 'u' : IS_BSL(x) ? (x) : (x) < 0x80 ? 0 : 0x80 | ((x) & 0x3F))
#define B2(x) (IS_CTL(x) ? '0' : 0)
#define B4(x) (IS_CTL(x) ? HEX_DIGIT((x) >> 4) : 0)
#define B5(x) (IS_CTL(x) ? HEX_DIGIT((x) & 15) : 0)
#define LEN(x) (IS_CTL(x) ? 6 : IS_BSL(x) || (x) >= 0x80 ? 2 : 1)
#define T1(x) {B0(x), B1(x), B2(x), B2(x), B4(x), B5(x), 0, LEN(x)}
#define T4(x) T1(x), T1((x) + 1), T1((x) + 2), T1((x) + 3)
#define T16(x) T4(x), T4((x) + 4), T4((x) + 8), T4((x) + 12)
#define T64(x) T16(x), T16((x) + 16), T16((x) + 32), T16((x) + 48)
static const uint8_t byte_text[256][8] = {T64(0), T64(64), T64(128), T64(192)};
#undef T64
#undef T16
#undef T4
#undef T1
#undef LEN
#undef B5
#undef B4
#undef B2
#undef B1
#undef B0
#undef IS_BSL
#undef IS_CTL
#undef HEX_DIGIT

static avk_status put_bytes(jctx *c, const avk_bytes *b)
{
    avk_writer *w = c->w;
    size_t i;
    if (b->len && !b->data)
        return avki_error_set(c->err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "bytes of %zu bytes have no data", b->len);
    /* Common case: the worst case (6 bytes a byte, plus the 8-byte
     * stores' slack) fits the free space. */
    if (AVK_LIKELY(b->len < ((size_t)-1 - 16) / 6 &&
                   (size_t)(w->end - w->pos) >= b->len * 6 + 16)) {
        uint8_t *d = w->pos;
        *d++ = '"';
        for (i = 0; i < b->len; i++) {
            const uint8_t *t = byte_text[b->data[i]];
            memcpy(d, t, 8);
            d += t[7];
        }
        *d++ = '"';
        w->pos = d;
        return AVK_OK;
    }
    AVK_TRY(put(c, "\"", 1));
    for (i = 0; i < b->len; i++) {
        const uint8_t *t = byte_text[b->data[i]];
        AVK_TRY(avk_writer_write_raw(w, t, t[7], c->err));
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

/* Writes "name" for a record field, enum symbol or union branch: the
 * schema parser admits only [A-Za-z0-9_] and dots in those (primitive
 * branches are named by their type), so nothing needs escaping. */
static avk_status put_name(jctx *c, const char *name, size_t len)
{
    if (AVK_LIKELY(room(c) >= len + 2)) {
        uint8_t *d = c->w->pos;
        *d++ = '"';
        memcpy(d, name, len);
        d += len;
        *d++ = '"';
        c->w->pos = d;
        return AVK_OK;
    }
    AVK_TRY(put(c, "\"", 1));
    AVK_TRY(put(c, name, len));
    return put(c, "\"", 1);
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

/* Compact arrays of numbers: one loop per item kind, each item formatted
 * straight into the buffer while the longest text and its comma fit.
 * Returns the count written; the caller finishes the rest item by item. */
#define NUMBER_LOOP(type, format, conv)                                                    \
    do {                                                                                   \
        const type *a = (const type *)base;                                                \
        for (; i < n && room(c) > AVKI_JSON_NUMBER_MAX; i++) {                             \
            uint8_t *d = c->w->pos;                                                        \
            *d = ',';                                                                      \
            d += i != 0;                                                                   \
            c->w->pos = d + format((char *)d, conv(a[i]));                                 \
        }                                                                                  \
    } while (0)
#define AS_LONG(x) ((int64_t)(x))
#define AS_DOUBLE(x) ((double)(x))

static size_t write_numbers(jctx *c, const avk_type *items, const void *base, size_t n)
{
    size_t i = 0;
    switch (items->kind) {
    case AVK_INT:
        NUMBER_LOOP(int32_t, avki_json_format_long, AS_LONG);
        break;
    case AVK_LONG:
        NUMBER_LOOP(int64_t, avki_json_format_long, AS_LONG);
        break;
    case AVK_FLOAT:
        NUMBER_LOOP(float, avki_json_format_double, AS_DOUBLE);
        break;
    case AVK_DOUBLE:
        NUMBER_LOOP(double, avki_json_format_double, AS_DOUBLE);
        break;
    default:
        break;
    }
    return i;
}
#undef NUMBER_LOOP
#undef AS_LONG
#undef AS_DOUBLE

static avk_status write_array(jctx *c, const avk_value *v, size_t depth)
{
    const avk_type *items = v->type->items;
    size_t i = 0, n = v->u.array.count;
    int typed = avk_array_is_typed(v->type, NULL);
    if (n && !v->u.array.items && items->kind != AVK_NULL &&
        !(items->kind == AVK_FIXED && items->size == 0))
        return avki_error_set(c->err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "array of %zu items has no items", n);
    AVK_TRY(put(c, "[", 1));
    if (typed && !c->pretty)
        i = write_numbers(c, items, v->u.array.items, n);
    for (; i < n; i++) {
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

/* What comes before member i of an object: a comma after the first, the
 * line break when pretty. */
static inline avk_status member_start(jctx *c, size_t depth, size_t i)
{
    if (i)
        AVK_TRY(put(c, ",", 1));
    return newline(c, depth + 1);
}

static inline avk_status colon(jctx *c)
{
    return c->pretty ? put(c, ": ", 2) : put(c, ":", 1);
}

static avk_status write_record(jctx *c, const avk_value *v, size_t depth)
{
    const avk_type *t = v->type;
    size_t i;
    if (t->field_count && !v->u.fields)
        return avki_error_set(c->err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "record %s has no fields", t->fullname);
    for (i = 0; i < t->field_count; i++) {
        const char *name = t->fields[i].name;
        size_t len = strlen(name);
        /* Compact: '{' or ',', then "name": in one go. */
        if (AVK_LIKELY(!c->pretty && room(c) >= len + 4)) {
            uint8_t *d = c->w->pos;
            *d++ = i ? ',' : '{';
            *d++ = '"';
            memcpy(d, name, len);
            d += len;
            *d++ = '"';
            *d++ = ':';
            c->w->pos = d;
        } else {
            AVK_TRY(put(c, i ? "," : "{", 1));
            AVK_TRY(newline(c, depth + 1));
            AVK_TRY(put_name(c, name, len));
            AVK_TRY(colon(c));
        }
        AVK_TRY(write_value(c, &v->u.fields[i], depth + 1));
    }
    if (t->field_count)
        AVK_TRY(newline(c, depth));
    else
        AVK_TRY(put(c, "{", 1));
    return put(c, "}", 1);
}

static avk_status write_map(jctx *c, const avk_value *v, size_t depth)
{
    size_t i;
    if (v->u.map.count && (!v->u.map.keys || !v->u.map.values))
        return avki_error_set(c->err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "map of %zu entries has no keys or values", v->u.map.count);
    AVK_TRY(put(c, "{", 1));
    for (i = 0; i < v->u.map.count; i++) {
        const avk_bytes *k = &v->u.map.keys[i];
        if (k->len && !k->data)
            return avki_error_set(c->err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                                  "map key of %zu bytes has no data", k->len);
        AVK_TRY(member_start(c, depth, i));
        AVK_TRY(avki_json_write_string(c->w, (const char *)k->data, k->len, c->err));
        AVK_TRY(colon(c));
        AVK_TRY(write_value(c, &v->u.map.values[i], depth + 1));
    }
    if (v->u.map.count)
        AVK_TRY(newline(c, depth));
    return put(c, "}", 1);
}

static avk_status write_union(jctx *c, const avk_value *v, size_t depth)
{
    const avk_type *t = v->type, *bt;
    const avk_value *b = v->u.branch.value;
    const char *name;
    if (v->u.branch.index >= t->branch_count || !b)
        return avki_error_set(c->err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "union branch %u out of range or without a value",
                              (unsigned)v->u.branch.index);
    bt = t->branches[v->u.branch.index];
    if (bt->kind == AVK_NULL)
        return put(c, "null", 4);
    name = branch_name(bt);
    AVK_TRY(put(c, "{", 1));
    AVK_TRY(member_start(c, depth, 0));
    AVK_TRY(put_name(c, name, strlen(name)));
    AVK_TRY(colon(c));
    AVK_TRY(write_value(c, b, depth + 1));
    AVK_TRY(newline(c, depth));
    return put(c, "}", 1);
}

static avk_status write_value(jctx *c, const avk_value *v, size_t depth)
{
    const avk_type *t = v->type;
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
    case AVK_ENUM: {
        const char *sym;
        if (v->u.index < 0 || (size_t)v->u.index >= t->symbol_count)
            return avki_error_set(c->err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                                  "enum index %d out of range (%s has %zu symbols)",
                                  (int)v->u.index, t->fullname, t->symbol_count);
        sym = t->symbols[v->u.index];
        return put_name(c, sym, strlen(sym));
    }
    case AVK_RECORD:
        return write_record(c, v, depth);
    case AVK_MAP:
        return write_map(c, v, depth);
    case AVK_ARRAY:
        return write_array(c, v, depth);
    case AVK_UNION:
        return write_union(c, v, depth);
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
