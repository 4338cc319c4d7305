/* Avro JSON encoding: writes a generic value as the specification's JSON form, with an explicit stack (any depth, no recursion). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "avrokit/avro_json.h"
#include "common/error.h"
#include "common/value_path.h"
#include "json/json.h"
#include "json/json_double.h"
#include "json/json_escape.h"
#include "json/json_utf8.h"
#include "schema/schema_internal.h"

/* Open containers kept on the C stack; deeper ones take the writer's
 * allocator (16 bytes a level). */
#define LOCAL_FRAMES 64

/* A record, array, map or union being written, and its child being
 * written: a field, item or entry index; for a union 0 until its branch
 * value is written, then 1. */
typedef struct frame {
    const avk_value *v;
    size_t i;
} frame;

typedef struct jctx {
    avk_writer *w;
    int pretty;
    int replace;     /* U+FFFD for invalid UTF-8, else an error */
    avk_error *err;
    frame *st;       /* open containers, outermost first */
    size_t top;
    size_t cap;
    frame *local;    /* the C stack's frames (st until they run out) */
    size_t max_depth;
    int value_error; /* the error is the value's: its path is added */
    int at_key;      /* ... and lies in the key of the innermost map's entry */
} jctx;

static avk_status put(jctx *c, const void *s, size_t n)
{
    return avk_writer_write_raw(c->w, s, n, c->err);
}

/* Cold: the value cannot be written (malformed, or a limit); its path is
 * added when the error reaches the top. */
static avk_status bad(jctx *c, avk_status st, const char *fmt, ...)
    __attribute__((cold, noinline, format(printf, 3, 4)));

static avk_status bad(jctx *c, avk_status st, const char *fmt, ...)
{
    char msg[AVK_ERROR_MESSAGE_MAX];
    va_list ap;
    c->value_error = 1;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return avki_error_set(c->err, st, AVK_OFFSET_UNKNOWN, "%s", msg);
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
static inline avk_status put_integer(jctx *c, long long v)
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
static inline avk_status put_double(jctx *c, double d)
{
    char tmp[AVKI_JSON_NUMBER_MAX];
    if (AVK_LIKELY(room(c) >= AVKI_JSON_NUMBER_MAX)) {
        c->w->pos += avki_json_format_double((char *)c->w->pos, d);
        return AVK_OK;
    }
    return put(c, tmp, avki_json_format_double(tmp, d));
}

/* The fewest digits that read back as exactly f (not the double it
 * widens to: 0.1f is "0.1"), as Java prints floats. */
static inline avk_status put_float(jctx *c, float f)
{
    char tmp[AVKI_JSON_NUMBER_MAX];
    if (AVK_LIKELY(room(c) >= AVKI_JSON_NUMBER_MAX)) {
        c->w->pos += avki_json_format_float((char *)c->w->pos, f);
        return AVK_OK;
    }
    return put(c, tmp, avki_json_format_float(tmp, f));
}

/* Strings and map keys as avki_json_write_string writes them ('"' and
 * '\\' escaped, \b \f \n \r \t, \u00xx for the other controls, the rest
 * as is), checking on the way that they are UTF-8: JSON text is UTF-8
 * (RFC 8259 section 8.1), so a string that is not cannot be written as
 * it is. The escapes are json_escape.h's, shared with that writer. */

/* U+FFFD, what replaces each maximal invalid subpart. */
static const uint8_t replacement[3] = {0xEF, 0xBF, 0xBD};

/* Cold: the string s[0..len) is not UTF-8 at byte at. */
static avk_status bad_utf8(jctx *c, const uint8_t *s, size_t len, size_t at, int is_key)
    __attribute__((cold, noinline));

static avk_status bad_utf8(jctx *c, const uint8_t *s, size_t len, size_t at, int is_key)
{
    char hex[16];
    size_t n = avki_utf8_bad_length(s + at, len - at), i, k = 0;
    for (i = 0; i < n; i++)
        k += (size_t)snprintf(hex + k, sizeof hex - k, i ? " 0x%02X" : "0x%02X", s[at + i]);
    c->at_key = is_key;
    return bad(c, AVK_ERR_MALFORMED,
               "%s of %zu bytes is not valid UTF-8: %s at byte %zu is not a character",
               is_key ? "map key" : "string", len, hex, at);
}

static avk_status put_string(jctx *c, const uint8_t *s, size_t len, int is_key)
{
    avk_writer *w = c->w;
    const uint8_t *p = s, *end = s + len, *run;
    if (len && !s)
        return bad(c, AVK_ERR_INVALID_ARGUMENT, "%s of %zu bytes has no data",
                   is_key ? "map key" : "string", len);
    /* Common case: the worst case (every byte a 6-byte escape; U+FFFD
     * takes 3 for at least 1) fits the free space, so write straight into
     * the buffer, eight bytes at a time while they are plain ASCII. */
    if (AVK_LIKELY(len < ((size_t)-1 - 2) / 6 && room(c) >= len * 6 + 2)) {
        uint8_t *d = w->pos;
        size_t n;
        *d++ = '"';
        for (;;) {
            const uint8_t *stop;
            while (end - p >= 8) {
                uint64_t x, hi;
                memcpy(&x, p, 8);
                if (AVK_UNLIKELY(avki_json_needs_escape8(x)))
                    break;
                hi = x & 0x8080808080808080u;
                if (hi) {
                    /* Characters beyond ASCII: check each sequence that
                     * starts in these 8 bytes, then copy them whole. */
                    const uint8_t *q = p + (__builtin_ctzll(hi) >> 3);
                    stop = p + 8;
                    do {
                        n = avki_utf8_sequence(q, (size_t)(end - q));
                        if (AVK_UNLIKELY(!n)) {
                            memcpy(d, p, (size_t)(q - p));
                            d += q - p;
                            p = q;
                            goto invalid;
                        }
                        q += n;
                        while (q < stop && *q < 0x80)
                            q++;
                    } while (q < stop);
                    /* 8 to 11 bytes: two fixed copies, no library call */
                    memcpy(d, p, 8);
                    if (q - p > 8)
                        memcpy(d + (q - p) - 4, q - 4, 4);
                    d += q - p;
                    p = q;
                    continue;
                }
                memcpy(d, p, 8);
                d += 8;
                p += 8;
            }
            /* The last bytes, or 8 with one to escape: one by one. */
            stop = end - p > 8 ? p + 8 : end;
            while (p < stop) {
                unsigned b = *p;
                if (b < 0x80) {
                    if (avki_json_escape_of[b])
                        d += avki_json_put_escape(d, b);
                    else
                        *d = (uint8_t)b, d++;
                    p++;
                    continue;
                }
                n = avki_utf8_sequence(p, (size_t)(end - p));
                if (AVK_UNLIKELY(!n))
                    goto invalid;
                d[0] = p[0];
                d[1] = p[1];
                if (n > 2) {
                    d[2] = p[2];
                    if (n > 3)
                        d[3] = p[3];
                }
                d += n;
                p += n;
            }
            if (p >= end)
                break;
            continue;
        invalid:
            if (!c->replace)
                return bad_utf8(c, s, len, (size_t)(p - s), is_key); /* nothing written yet */
            memcpy(d, replacement, 3);
            d += 3;
            p += avki_utf8_bad_length(p, (size_t)(end - p));
            if (p >= end)
                break;
        }
        *d++ = '"';
        w->pos = d;
        return AVK_OK;
    }
    /* Otherwise plain runs in bulk, the rest one by one. */
    AVK_TRY(put(c, "\"", 1));
    run = p;
    while (p < end) {
        unsigned b = *p;
        size_t n;
        uint8_t esc[6];
        if (b < 0x80) {
            if (!avki_json_escape_of[b]) {
                p++;
                continue;
            }
            if (p > run)
                AVK_TRY(put(c, run, (size_t)(p - run)));
            AVK_TRY(put(c, esc, avki_json_put_escape(esc, b)));
            run = ++p;
            continue;
        }
        n = avki_utf8_sequence(p, (size_t)(end - p));
        if (n) {
            p += n;
            continue;
        }
        if (!c->replace)
            return bad_utf8(c, s, len, (size_t)(p - s), is_key);
        if (p > run)
            AVK_TRY(put(c, run, (size_t)(p - run)));
        AVK_TRY(put(c, replacement, 3));
        p += avki_utf8_bad_length(p, (size_t)(end - p));
        run = p;
    }
    if (p > run)
        AVK_TRY(put(c, run, (size_t)(p - run)));
    return put(c, "\"", 1);
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
        return bad(c, AVK_ERR_INVALID_ARGUMENT, "bytes of %zu bytes have no data", b->len);
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

/* The name a union branch is written under. */
static const char *branch_name(const avk_type *t)
{
    return t->fullname ? t->fullname : avk_kind_name(t->kind);
}

static int is_container(avk_kind k)
{
    return k == AVK_RECORD || k == AVK_ARRAY || k == AVK_MAP || k == AVK_UNION;
}

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
        return put_float(c, ((const float *)base)[i]);
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
#define AS_IS(x) (x)

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
        NUMBER_LOOP(float, avki_json_format_float, AS_IS);
        break;
    case AVK_DOUBLE:
        NUMBER_LOOP(double, avki_json_format_double, AS_IS);
        break;
    default:
        break;
    }
    return i;
}
#undef NUMBER_LOOP
#undef AS_LONG
#undef AS_IS

/* A value that is no record, array, map or union. */
static inline __attribute__((always_inline)) avk_status write_leaf(jctx *c,
                                                                     const avk_value *v)
{
    const avk_type *t = v->type;
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
        return put_float(c, v->u.f);
    case AVK_DOUBLE:
        return put_double(c, v->u.d);
    case AVK_STRING:
        return put_string(c, v->u.bytes.data, v->u.bytes.len, 0);
    case AVK_BYTES:
        return put_bytes(c, &v->u.bytes);
    case AVK_FIXED:
        if (v->u.bytes.len != t->size)
            return bad(c, AVK_ERR_INVALID_ARGUMENT, "fixed value of %zu bytes, %s has %zu",
                       v->u.bytes.len, t->fullname, t->size);
        return put_bytes(c, &v->u.bytes);
    case AVK_ENUM: {
        const char *sym;
        if (v->u.index >= t->symbol_count)
            return bad(c, AVK_ERR_INVALID_ARGUMENT,
                       "enum index %u out of range (%s has %zu symbols)", (unsigned)v->u.index,
                       t->fullname, t->symbol_count);
        sym = t->symbols[v->u.index];
        return put_name(c, sym, strlen(sym));
    }
    default:
        return bad(c, AVK_ERR_INVALID_ARGUMENT, "value of unknown kind %d", (int)t->kind);
    }
}

/* Opens container v's frame (the caller has checked the depth). */
static inline avk_status push(jctx *c, const avk_value *v)
{
    if (AVK_UNLIKELY(c->top == c->cap)) {
        avk_allocator *a = &c->w->alloc;
        size_t ncap = c->cap * 2;
        frame *ns;
        if (c->cap > ((size_t)-1 / 2) / sizeof *ns)
            return avki_error_set(c->err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                                  "cannot allocate the JSON writer's stack");
        if (c->st == c->local) {
            ns = (frame *)a->alloc(a->ctx, ncap * sizeof *ns);
            if (ns)
                memcpy(ns, c->local, c->cap * sizeof *ns);
        } else {
            ns = (frame *)a->realloc(a->ctx, c->st, c->cap * sizeof *ns, ncap * sizeof *ns);
        }
        if (!ns)
            return avki_error_set(c->err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                                  "cannot allocate %zu levels of the JSON writer's stack", ncap);
        c->st = ns;
        c->cap = ncap;
    }
    c->st[c->top].v = v;
    c->st[c->top].i = 0;
    c->top++;
    return AVK_OK;
}

/* What comes before member i of an object at depth (frames open outside
 * it): a comma after the first, the line break when pretty. */
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

/* Starts container v: checks it, writes what opens it and pushes its
 * frame, or writes all of it when nothing inside needs a frame (empty
 * records, arrays and maps; null unions; unions of a leaf). */
static avk_status open_container(jctx *c, const avk_value *v)
{
    const avk_type *t = v->type;
    size_t depth = c->top;
    if (AVK_UNLIKELY(depth >= c->max_depth))
        return bad(c, AVK_ERR_LIMIT, "value nested deeper than max_depth (%zu)", c->max_depth);
    switch (t->kind) {
    case AVK_RECORD:
        if (t->field_count == 0)
            return put(c, "{}", 2);
        if (!v->u.fields)
            return bad(c, AVK_ERR_INVALID_ARGUMENT, "record %s has no fields", t->fullname);
        return push(c, v); /* '{' comes with the first field's name */
    case AVK_ARRAY: {
        const avk_type *items = t->items;
        size_t n = v->u.array.count;
        if (n && !v->u.array.items && items->kind != AVK_NULL &&
            !(items->kind == AVK_FIXED && items->size == 0))
            return bad(c, AVK_ERR_INVALID_ARGUMENT, "array of %zu items has no items", n);
        if (n == 0)
            return put(c, "[]", 2);
        AVK_TRY(put(c, "[", 1));
        return push(c, v);
    }
    case AVK_MAP:
        if (v->u.map.count == 0)
            return put(c, "{}", 2);
        if (!v->u.map.keys || !v->u.map.values)
            return bad(c, AVK_ERR_INVALID_ARGUMENT, "map of %zu entries has no keys or values",
                       v->u.map.count);
        AVK_TRY(put(c, "{", 1));
        return push(c, v);
    default: { /* union */
        const avk_value *b = v->u.branch.value;
        const avk_type *bt;
        const char *name;
        avk_status st;
        if (v->u.branch.index >= t->branch_count || !b)
            return bad(c, AVK_ERR_INVALID_ARGUMENT,
                       "union branch %u out of range or without a value",
                       (unsigned)v->u.branch.index);
        bt = t->branches[v->u.branch.index];
        if (bt->kind == AVK_NULL)
            return put(c, "null", 4);
        if (!b->type)
            b = NULL; /* reported below, with the branch in the path */
        name = branch_name(bt);
        AVK_TRY(put(c, "{", 1));
        AVK_TRY(member_start(c, depth, 0));
        AVK_TRY(put_name(c, name, strlen(name)));
        AVK_TRY(colon(c));
        if (b && !is_container(b->type->kind)) {
            /* Common: ["null", "string"] and the like, written whole. */
            st = write_leaf(c, b);
            if (st != AVK_OK) {
                /* The branch belongs in the path (cold: only then a frame). */
                if (c->value_error && c->top < c->cap) {
                    c->st[c->top].v = v;
                    c->st[c->top].i = 0;
                    c->top++;
                }
                return st;
            }
            AVK_TRY(newline(c, depth));
            return put(c, "}", 1);
        }
        return push(c, v); /* the branch value is written next */
    }
    }
}

/* A child of the innermost container: a leaf is written, a container
 * opened (its frame pushed, unless it was written whole). Returns with
 * *opened 1 when a frame was pushed: the caller goes on with it. */
AVK_INLINE avk_status child(jctx *c, const avk_value *v, int *opened)
{
    size_t top = c->top;
    if (AVK_UNLIKELY(!v->type))
        return bad(c, AVK_ERR_INVALID_ARGUMENT, "value has no type");
    if (!is_container(v->type->kind))
        return write_leaf(c, v);
    /* The usual container, a record, without the call. */
    if (v->type->kind == AVK_RECORD && v->type->field_count && v->u.fields &&
        c->top < c->max_depth && c->top < c->cap) {
        c->st[c->top].v = v;
        c->st[c->top].i = 0;
        c->top++;
        *opened = 1;
        return AVK_OK;
    }
    AVK_TRY(open_container(c, v));
    *opened = c->top != top;
    return AVK_OK;
}

/* Writes the open containers' children until the stack is empty: leaves
 * inline, containers by pushing their frames (a frame's i is the child
 * being written, so an error's path can name it); a finished container
 * writes its end and pops, and its parent moves past it. */
static avk_status run_frames(jctx *c)
{
    while (c->top) {
        frame *f = &c->st[c->top - 1];
        const avk_value *v = f->v;
        const avk_type *t = v->type;
        size_t depth = c->top - 1; /* of v */
        int opened = 0;
        switch (t->kind) {
        case AVK_RECORD: {
            size_t n = t->field_count;
            for (; f->i < n; f->i++) {
                const avk_value *fv = &v->u.fields[f->i];
                const char *name = t->fields[f->i].name;
                size_t len = strlen(name);
                /* Compact: '{' or ',', then "name": in one go. */
                if (AVK_LIKELY(!c->pretty && room(c) >= len + 4)) {
                    uint8_t *d = c->w->pos;
                    *d++ = f->i ? ',' : '{';
                    *d++ = '"';
                    memcpy(d, name, len);
                    d += len;
                    *d++ = '"';
                    *d++ = ':';
                    c->w->pos = d;
                } else {
                    AVK_TRY(put(c, f->i ? "," : "{", 1));
                    AVK_TRY(newline(c, depth + 1));
                    AVK_TRY(put_name(c, name, len));
                    AVK_TRY(colon(c));
                }
                AVK_TRY(child(c, fv, &opened));
                if (opened)
                    goto descend;
            }
            AVK_TRY(newline(c, depth));
            AVK_TRY(put(c, "}", 1));
            break;
        }
        case AVK_ARRAY: {
            const avk_type *items = t->items;
            size_t n = v->u.array.count;
            /* Typed items are all written in one visit, from 0: a visit
             * further on is to boxed items. */
            if (f->i == 0 && avk_array_is_typed(t, NULL)) {
                if (!c->pretty)
                    f->i = write_numbers(c, items, v->u.array.items, n);
                for (; f->i < n; f->i++) {
                    if (f->i)
                        AVK_TRY(put(c, ",", 1));
                    AVK_TRY(newline(c, depth + 1));
                    AVK_TRY(write_typed_item(c, items, v->u.array.items, f->i));
                }
            } else {
                const avk_value *iv = (const avk_value *)v->u.array.items;
                for (; f->i < n; f->i++) {
                    if (f->i)
                        AVK_TRY(put(c, ",", 1));
                    AVK_TRY(newline(c, depth + 1));
                    AVK_TRY(child(c, &iv[f->i], &opened));
                    if (opened)
                        goto descend;
                }
            }
            AVK_TRY(newline(c, depth));
            AVK_TRY(put(c, "]", 1));
            break;
        }
        case AVK_MAP: {
            size_t n = v->u.map.count;
            for (; f->i < n; f->i++) {
                const avk_bytes *k = &v->u.map.keys[f->i];
                AVK_TRY(member_start(c, depth, f->i));
                AVK_TRY(put_string(c, k->data, k->len, 1));
                AVK_TRY(colon(c));
                AVK_TRY(child(c, &v->u.map.values[f->i], &opened));
                if (opened)
                    goto descend;
            }
            AVK_TRY(newline(c, depth));
            AVK_TRY(put(c, "}", 1));
            break;
        }
        default: /* union: its branch value (a container), then the end */
            if (f->i == 0) {
                AVK_TRY(child(c, v->u.branch.value, &opened));
                if (opened)
                    goto descend;
                f->i = 1;
            }
            AVK_TRY(newline(c, depth));
            AVK_TRY(put(c, "}", 1));
            break;
        }
        /* v is finished: the parent moves past it. */
        c->top--;
        if (c->top)
            c->st[c->top - 1].i++;
    descend:; /* f may have moved (the stack grew): the loop takes the new top */
    }
    return AVK_OK;
}

/* Segment i of the path to the error: the child each open container is
 * writing. */
static void seg_at(const void *ctx, size_t i, avki_seg *out)
{
    const jctx *c = (const jctx *)ctx;
    const frame *f = &c->st[i];
    const avk_type *t = f->v->type;
    out->index = f->i;
    out->name = NULL;
    switch (t->kind) {
    case AVK_RECORD:
        out->kind = AVKI_SEG_FIELD;
        out->name = t->fields[f->i].name;
        break;
    case AVK_ARRAY:
        out->kind = AVKI_SEG_ITEM;
        break;
    case AVK_MAP:
        out->kind = c->at_key && i + 1 == c->top ? AVKI_SEG_KEY : AVKI_SEG_VALUE;
        break;
    default:
        out->kind = AVKI_SEG_BRANCH;
        out->index = f->v->u.branch.index;
        break;
    }
}

static avk_status run(jctx *c, const avk_value *v)
{
    int opened = 0;
    AVK_TRY(child(c, v, &opened));
    return opened ? run_frames(c) : AVK_OK;
}

avk_status avk_value_write_json_opts(const avk_value *v, const avk_json_write_options *opts,
                                     avk_writer *w, avk_error *err)
{
    frame local[LOCAL_FRAMES];
    jctx c;
    size_t start;
    uint64_t flushed;
    avk_status st;
    if (!v || !w)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_value_write_json: NULL argument");
    if (opts && opts->struct_size < sizeof *opts)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_value_write_json_opts: options struct_size %zu, expected %zu",
                              opts->struct_size, sizeof *opts);
    if (!v->type)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "value has no type");
    c.w = w;
    c.pretty = opts && (opts->flags & AVK_JSON_PRETTY);
    c.replace = opts && (opts->flags & AVK_JSON_REPLACE_INVALID_UTF8);
    c.err = err;
    c.st = c.local = local;
    c.top = 0;
    c.cap = LOCAL_FRAMES;
    c.max_depth = opts && opts->max_depth ? opts->max_depth : AVK_DEFAULT_MAX_DEPTH;
    c.value_error = 0;
    c.at_key = 0;
    start = (size_t)(w->pos - w->buf);
    flushed = w->flushed;
    st = run(&c, v);
    if (AVK_UNLIKELY(st != AVK_OK) && c.value_error) {
        const avk_type *root = v->type;
        avki_path_report(err, root->fullname ? root->fullname : avk_kind_name(root->kind), c.top,
                         seg_at, &c);
        /* Nothing of a value that cannot be written stays behind, when
         * the writer still holds all of it. */
        if (w->flushed == flushed)
            w->pos = w->buf + start;
    }
    if (c.st != local)
        w->alloc.free(w->alloc.ctx, c.st, c.cap * sizeof *c.st);
    return st;
}

avk_status avk_value_write_json(const avk_value *v, unsigned flags, avk_writer *w, avk_error *err)
{
    avk_json_write_options o;
    o.struct_size = sizeof o;
    o.flags = flags;
    o.max_depth = 0;
    return avk_value_write_json_opts(v, &o, w, err);
}
