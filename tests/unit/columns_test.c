/* Columns (columns.h): an Arrow C Data Interface consumer that checks every exported column, row by row, against the row decoder's values, on the apache files and on hand-built schemas. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "avkt.h"
#include "failalloc.h"
#include "io.h"

#ifndef AVK_INTEROP_DIR
#define AVK_INTEROP_DIR ""
#endif

/* ======================================================================== */
/* The Arrow consumer: shape checks and value comparison driven by the      */
/* ArrowSchema format strings and the Avro type the column came from.       */
/* ======================================================================== */

/* Bit i of an Arrow bitmap: LSB first within each byte. */
static int bit_at(const void *bitmap, int64_t i)
{
    return (((const uint8_t *)bitmap)[i >> 3] >> (i & 7)) & 1;
}

/* Validity of physical slot p; a NULL bitmap means all valid. */
static int slot_valid(const struct ArrowArray *a, int64_t p)
{
    return a->n_buffers < 1 || a->buffers[0] == NULL || bit_at(a->buffers[0], p);
}

/* The T of ["null", T] or [T, "null"] (which Arrow gets as a nullable T),
 * *null_index set to the null branch; NULL for any other type. */
static const avk_type *nullable_inner(const avk_type *t, uint32_t *null_index)
{
    const avk_type *b0, *b1;
    if (avk_type_kind(t) != AVK_UNION || avk_type_branch_count(t) != 2)
        return NULL;
    b0 = avk_type_branch(t, 0);
    b1 = avk_type_branch(t, 1);
    if (avk_type_kind(b0) == AVK_NULL && avk_type_kind(b1) != AVK_NULL) {
        *null_index = 0;
        return b1;
    }
    if (avk_type_kind(b1) == AVK_NULL && avk_type_kind(b0) != AVK_NULL) {
        *null_index = 1;
        return b0;
    }
    return NULL;
}

/* Arrow decimal width in bytes for a decimal type: 16 up to precision 38, 32 up to 76. */
static size_t decimal_width(const avk_type *t)
{
    return avk_type_decimal_precision(t) <= 38 ? 16 : 32;
}

/* The format string the header's table gives type t (a nullable union:
 * its T's), written into buf. */
static const char *expected_format(const avk_type *t, char *buf, size_t cap)
{
    uint32_t ni;
    const avk_type *inner;
    size_t i, used;
    switch (avk_type_logical(t)) {
    case AVK_LOGICAL_DECIMAL:
        snprintf(buf, cap, decimal_width(t) == 16 ? "d:%d,%d" : "d:%d,%d,256",
                 avk_type_decimal_precision(t), avk_type_decimal_scale(t));
        return buf;
    case AVK_LOGICAL_UUID:
        return avk_type_kind(t) == AVK_STRING ? "u" : "w:16";
    case AVK_LOGICAL_DATE: return "tdD";
    case AVK_LOGICAL_TIME_MILLIS: return "ttm";
    case AVK_LOGICAL_TIME_MICROS: return "ttu";
    case AVK_LOGICAL_TIMESTAMP_MILLIS: return "tsm:UTC";
    case AVK_LOGICAL_TIMESTAMP_MICROS: return "tsu:UTC";
    case AVK_LOGICAL_TIMESTAMP_NANOS: return "tsn:UTC";
    case AVK_LOGICAL_LOCAL_TIMESTAMP_MILLIS: return "tsm:";
    case AVK_LOGICAL_LOCAL_TIMESTAMP_MICROS: return "tsu:";
    case AVK_LOGICAL_LOCAL_TIMESTAMP_NANOS: return "tsn:";
    case AVK_LOGICAL_DURATION: return "w:12";
    case AVK_LOGICAL_NONE: break;
    }
    switch (avk_type_kind(t)) {
    case AVK_NULL: return "n";
    case AVK_BOOLEAN: return "b";
    case AVK_INT: return "i";
    case AVK_LONG: return "l";
    case AVK_FLOAT: return "f";
    case AVK_DOUBLE: return "g";
    case AVK_STRING: return "u";
    case AVK_BYTES: return "z";
    case AVK_ENUM: return "i";
    case AVK_RECORD: return "+s";
    case AVK_ARRAY: return "+l";
    case AVK_MAP: return "+m";
    case AVK_FIXED:
        snprintf(buf, cap, "w:%zu", avk_type_fixed_size(t));
        return buf;
    case AVK_UNION:
        inner = nullable_inner(t, &ni);
        if (inner)
            return expected_format(inner, buf, cap);
        used = (size_t)snprintf(buf, cap, "+ud:");
        for (i = 0; i < avk_type_branch_count(t) && used < cap; i++)
            used += (size_t)snprintf(buf + used, cap - used, i ? ",%zu" : "%zu", i);
        return buf;
    }
    return "?";
}

/* Buffers the C Data Interface gives each layout. */
static int64_t expected_buffers(const char *format)
{
    if (strcmp(format, "n") == 0)
        return 0;
    if (strcmp(format, "+s") == 0)
        return 1;
    if (strcmp(format, "u") == 0 || strcmp(format, "z") == 0)
        return 3;
    return 2; /* primitives, fixed, decimal, list, map, dense union, dictionary indexes */
}

/* Child path for messages. */
static void sub_path(char *out, size_t cap, const char *path, const char *step)
{
    snprintf(out, cap, "%s%s", path, step);
}

static int64_t count_nulls(const struct ArrowArray *a)
{
    int64_t i, n = 0;
    for (i = 0; i < a->length; i++)
        n += !slot_valid(a, a->offset + i);
    return n;
}

/* Both structs are live: their release callbacks are set (Arrow
 * importers refuse released children). */
static void check_live(const struct ArrowSchema *s, const struct ArrowArray *a, const char *path)
{
    if (!s->release)
        fail_msg("%s: ArrowSchema released (release NULL) inside a live export", path);
    if (!a->release)
        fail_msg("%s: ArrowArray released (release NULL) inside a live export", path);
    if (a->length < 0 || a->offset < 0)
        fail_msg("%s: length %lld offset %lld", path, (long long)a->length, (long long)a->offset);
}

/* Offsets buffer of a variable-size layout: monotonic, first >= 0, last
 * within limit (the child's length; -1: no limit known). */
static void check_offsets(const struct ArrowArray *a, int64_t limit, const char *path)
{
    const int32_t *off = (const int32_t *)a->buffers[1];
    int64_t i;
    if (a->length == 0)
        return; /* Arrow allows an absent offsets buffer when empty */
    if (!off)
        fail_msg("%s: offsets buffer NULL with length %lld", path, (long long)a->length);
    if (off[a->offset] < 0)
        fail_msg("%s: negative first offset", path);
    for (i = 0; i < a->length; i++)
        if (off[a->offset + i + 1] < off[a->offset + i])
            fail_msg("%s: offsets decrease at slot %lld", path, (long long)(a->offset + i));
    if (limit >= 0 && off[a->offset + a->length] > limit)
        fail_msg("%s: last offset %d beyond the child's %lld values", path,
                 off[a->offset + a->length], (long long)limit);
}

/* Logical value j of a utf8/binary array. */
static avk_bytes string_at(const struct ArrowArray *a, int64_t j)
{
    const int32_t *off = (const int32_t *)a->buffers[1];
    int64_t p = a->offset + j;
    avk_bytes b;
    b.data = (const uint8_t *)a->buffers[2] + off[p];
    b.len = (size_t)(off[p + 1] - off[p]);
    return b;
}

static void check_shape(const struct ArrowSchema *s, const struct ArrowArray *a, const avk_type *t,
                        int whole, const char *path);

/* A record's struct: children named after fields (every field in order
 * when whole; else each a distinct field of the record). */
static void check_struct_shape(const struct ArrowSchema *s, const struct ArrowArray *a,
                               const avk_type *t, int whole, const char *path)
{
    int64_t i, k;
    char sub[512];
    if (s->n_children != a->n_children)
        fail_msg("%s: schema has %lld children, array %lld", path, (long long)s->n_children,
                 (long long)a->n_children);
    if (whole && (size_t)s->n_children != avk_type_field_count(t))
        fail_msg("%s: %lld children for a record of %zu fields", path, (long long)s->n_children,
                 avk_type_field_count(t));
    for (i = 0; i < s->n_children; i++) {
        const struct ArrowSchema *cs = s->children[i];
        const avk_field *f;
        if (!cs->name)
            fail_msg("%s: child %lld has no name", path, (long long)i);
        if (whole && strcmp(cs->name, avk_field_name(avk_type_field(t, (size_t)i))) != 0)
            fail_msg("%s: child %lld named \"%s\", field is \"%s\"", path, (long long)i, cs->name,
                     avk_field_name(avk_type_field(t, (size_t)i)));
        f = avk_type_field_by_name(t, cs->name);
        if (!f)
            fail_msg("%s: child \"%s\" names no field of the record", path, cs->name);
        for (k = 0; k < i; k++)
            if (strcmp(s->children[k]->name, cs->name) == 0)
                fail_msg("%s: child \"%s\" twice", path, cs->name);
        if (a->children[i]->length < a->offset + a->length)
            fail_msg("%s.%s: child length %lld below the struct's offset + length %lld", path,
                     cs->name, (long long)a->children[i]->length,
                     (long long)(a->offset + a->length));
        snprintf(sub, sizeof sub, "%s.%s", path, cs->name);
        check_shape(cs, a->children[i], avk_field_type(f), whole, sub);
    }
}

/* Map: one non-nullable struct child "entries" of key (utf8, non-nullable) and value. */
static void check_map_shape(const struct ArrowSchema *s, const struct ArrowArray *a,
                            const avk_type *t, int whole, const char *path)
{
    const struct ArrowSchema *es;
    const struct ArrowArray *ea;
    char sub[512];
    if (s->n_children != 1 || a->n_children != 1)
        fail_msg("%s: map with %lld/%lld children, expected 1", path, (long long)s->n_children,
                 (long long)a->n_children);
    if (s->flags & ARROW_FLAG_MAP_KEYS_SORTED)
        fail_msg("%s: MAP_KEYS_SORTED set: Avro map keys are in written order", path);
    es = s->children[0];
    ea = a->children[0];
    sub_path(sub, sizeof sub, path, ".entries");
    check_live(es, ea, sub);
    if (strcmp(es->format, "+s") != 0 || !es->name || strcmp(es->name, "entries") != 0)
        fail_msg("%s: format \"%s\" name \"%s\", expected +s \"entries\"", sub, es->format,
                 es->name ? es->name : "(null)");
    if (es->n_children != 2 || ea->n_children != 2 || ea->n_buffers != 1 || ea->null_count != 0)
        fail_msg("%s: entries struct with %lld children, %lld buffers, %lld nulls", sub,
                 (long long)es->n_children, (long long)ea->n_buffers, (long long)ea->null_count);
    if (!es->children[0]->name || strcmp(es->children[0]->name, "key") != 0 ||
        !es->children[1]->name || strcmp(es->children[1]->name, "value") != 0)
        fail_msg("%s: children not named key, value", sub);
    if (strcmp(es->children[0]->format, "u") != 0 || ea->children[0]->n_buffers != 3 ||
        ea->children[0]->null_count != 0 || (es->children[0]->flags & ARROW_FLAG_NULLABLE))
        fail_msg("%s.key: format \"%s\", flags %lld, %lld nulls: expected non-nullable utf8", sub,
                 es->children[0]->format, (long long)es->children[0]->flags,
                 (long long)ea->children[0]->null_count);
    check_live(es->children[0], ea->children[0], sub);
    check_offsets(a, ea->length, path);
    if (ea->children[0]->length < ea->offset + ea->length ||
        ea->children[1]->length < ea->offset + ea->length)
        fail_msg("%s: key/value lengths %lld/%lld below the entries' offset + length %lld + %lld",
                 sub, (long long)ea->children[0]->length, (long long)ea->children[1]->length,
                 (long long)ea->offset, (long long)ea->length);
    check_offsets(ea->children[0], -1, sub);
    sub_path(sub, sizeof sub, path, ".entries.value");
    check_shape(es->children[1], ea->children[1], avk_type_values(t), whole, sub);
}

/* Enum: int32 indexes with a utf8 dictionary holding exactly its symbols, in order. */
static void check_dictionary_shape(const struct ArrowSchema *s, const struct ArrowArray *a,
                                   const avk_type *t, const char *path)
{
    const struct ArrowArray *d = a->dictionary;
    size_t i;
    char sub[512];
    sub_path(sub, sizeof sub, path, "<dictionary>");
    if (!s->dictionary || !d)
        fail_msg("%s: enum without a dictionary (schema %p, array %p)", path,
                 (const void *)s->dictionary, (const void *)d);
    check_live(s->dictionary, d, sub);
    if (strcmp(s->dictionary->format, "u") != 0 || d->n_buffers != 3 || d->null_count != 0 ||
        s->dictionary->n_children != 0)
        fail_msg("%s: format \"%s\" with %lld buffers, %lld nulls: expected utf8", sub,
                 s->dictionary->format, (long long)d->n_buffers, (long long)d->null_count);
    if ((size_t)d->length != avk_type_symbol_count(t))
        fail_msg("%s: %lld entries for %zu symbols", sub, (long long)d->length,
                 avk_type_symbol_count(t));
    check_offsets(d, -1, sub);
    for (i = 0; i < avk_type_symbol_count(t); i++) {
        avk_bytes b = string_at(d, (int64_t)i);
        const char *sym = avk_type_symbol(t, i);
        if (b.len != strlen(sym) || memcmp(b.data, sym, b.len) != 0)
            fail_msg("%s: entry %zu is \"%.*s\", symbol \"%s\"", sub, i, (int)b.len,
                     (const char *)b.data, sym);
    }
}

/* Everything about a column that does not depend on the rows: format,
 * buffers, children, names, null counts, offsets. */
static void check_shape(const struct ArrowSchema *s, const struct ArrowArray *a, const avk_type *t,
                        int whole, const char *path)
{
    char buf[128], sub[512];
    const char *want;
    uint32_t ni;
    const avk_type *inner = nullable_inner(t, &ni);
    const avk_type *base = inner ? inner : t;
    int64_t i;

    check_live(s, a, path);
    want = expected_format(t, buf, sizeof buf);
    if (!s->format || strcmp(s->format, want) != 0)
        fail_msg("%s: format \"%s\", expected \"%s\" (Avro %s%s%s)", path,
                 s->format ? s->format : "(null)", want, avk_kind_name(avk_type_kind(t)),
                 avk_type_logical(base) ? " " : "", avk_logical_name(avk_type_logical(base)));
    if (a->n_buffers != expected_buffers(want))
        fail_msg("%s: n_buffers %lld, format \"%s\" has %lld", path, (long long)a->n_buffers, want,
                 (long long)expected_buffers(want));
    if (a->n_buffers > 0 && !a->buffers)
        fail_msg("%s: buffers NULL", path);

    /* Null counts: exact, from the bitmap. */
    if (avk_type_kind(base) == AVK_NULL) {
        /* Every slot of a null array is null. */
        if (a->null_count != a->length)
            fail_msg("%s: null array with null_count %lld, length %lld", path,
                     (long long)a->null_count, (long long)a->length);
    } else if (inner) {
        if (!(s->flags & ARROW_FLAG_NULLABLE))
            fail_msg("%s: nullable union without ARROW_FLAG_NULLABLE (flags %lld)", path,
                     (long long)s->flags);
        if (a->null_count > 0 && !a->buffers[0])
            fail_msg("%s: null_count %lld without a validity bitmap", path,
                     (long long)a->null_count);
        if (a->null_count != count_nulls(a))
            fail_msg("%s: null_count %lld, the bitmap has %lld", path, (long long)a->null_count,
                     (long long)count_nulls(a));
    } else {
        /* Not nullable (dense unions have no validity in Arrow >= 1.0 either). */
        int has_bitmap = avk_type_kind(base) != AVK_UNION && a->n_buffers > 0;
        if (a->null_count != 0 || (has_bitmap && count_nulls(a) != 0))
            fail_msg("%s: non-nullable column with null_count %lld", path,
                     (long long)a->null_count);
    }
    if (avk_type_kind(base) != AVK_ENUM && (s->dictionary || a->dictionary))
        fail_msg("%s: dictionary on a non-enum column", path);

    switch (avk_type_kind(base)) {
    case AVK_RECORD:
        check_struct_shape(s, a, base, whole, path);
        break;
    case AVK_ARRAY:
        if (s->n_children != 1 || a->n_children != 1)
            fail_msg("%s: list with %lld children", path, (long long)s->n_children);
        check_offsets(a, a->children[0]->length, path);
        sub_path(sub, sizeof sub, path, "[]");
        check_shape(s->children[0], a->children[0], avk_type_items(base), whole, sub);
        break;
    case AVK_MAP:
        check_map_shape(s, a, base, whole, path);
        break;
    case AVK_UNION: /* dense */
        if ((size_t)s->n_children != avk_type_branch_count(base) ||
            (size_t)a->n_children != avk_type_branch_count(base))
            fail_msg("%s: dense union with %lld/%lld children for %zu branches", path,
                     (long long)s->n_children, (long long)a->n_children,
                     avk_type_branch_count(base));
        for (i = 0; i < s->n_children; i++) {
            snprintf(sub, sizeof sub, "%s<%lld>", path, (long long)i);
            check_shape(s->children[i], a->children[i], avk_type_branch(base, (size_t)i), whole,
                        sub);
        }
        break;
    case AVK_ENUM:
        if (s->n_children != 0 || a->n_children != 0)
            fail_msg("%s: enum with children", path);
        check_dictionary_shape(s, a, base, path);
        break;
    case AVK_STRING:
    case AVK_BYTES:
        if (avk_type_logical(base) != AVK_LOGICAL_DECIMAL)
            check_offsets(a, -1, path);
        /* fall through */
    default:
        if (s->n_children != 0 || a->n_children != 0)
            fail_msg("%s: primitive column with children", path);
        break;
    }
}

/* ---- values ---- */

static void compare_row(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t j,
                        const avk_type *t, const avk_value *v, const char *path);

/* Item k of a decoded array, as a value: typed arrays (avk_array_is_typed)
 * keep items as a C array. */
static avk_value array_item(const avk_value *arr, size_t k)
{
    const avk_type *it = avk_type_items(arr->type);
    const uint8_t *items = (const uint8_t *)arr->u.array.items;
    size_t size = 0;
    avk_value v;
    if (!avk_array_is_typed(arr->type, &size))
        return ((const avk_value *)arr->u.array.items)[k];
    memset(&v, 0, sizeof v);
    v.type = it;
    switch (avk_type_kind(it)) {
    case AVK_BOOLEAN: v.u.boolean = items[k]; break;
    case AVK_INT: memcpy(&v.u.i, items + k * size, sizeof v.u.i); break;
    case AVK_LONG: memcpy(&v.u.l, items + k * size, sizeof v.u.l); break;
    case AVK_FLOAT: memcpy(&v.u.f, items + k * size, sizeof v.u.f); break;
    case AVK_DOUBLE: memcpy(&v.u.d, items + k * size, sizeof v.u.d); break;
    case AVK_FIXED:
        v.u.bytes.data = items + k * size;
        v.u.bytes.len = size;
        break;
    default: break; /* null: nothing */
    }
    return v;
}

/* The width-byte little-endian two's complement of the big-endian value
 * be[0..len) (sign-extended); 0 when it does not fit. */
static int decimal_le(const uint8_t *be, size_t len, size_t width, uint8_t *out)
{
    uint8_t sign = len && (be[0] & 0x80) ? 0xff : 0x00;
    size_t i;
    for (i = 0; i + width < len; i++)
        if (be[i] != sign)
            return 0;
    if (len > width && ((be[len - width] & 0x80) ? 0xff : 0x00) != sign)
        return 0;
    for (i = 0; i < width; i++)
        out[i] = i < len ? be[len - 1 - i] : sign;
    return 1;
}

static void compare_bytes(avk_bytes got, avk_bytes want, const char *what, const char *path,
                          int64_t p)
{
    if (got.len != want.len || (want.len && memcmp(got.data, want.data, want.len) != 0))
        fail_msg("%s slot %lld: %s of %zu bytes \"%.*s\", expected %zu bytes \"%.*s\"", path,
                 (long long)p, what, got.len, (int)(got.len > 80 ? 80 : got.len),
                 (const char *)got.data, want.len, (int)(want.len > 80 ? 80 : want.len),
                 (const char *)want.data);
}

/* Slot p of a non-null value of type t (not a union). */
static void compare_present(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t p,
                            const avk_type *t, const avk_value *v, const char *path)
{
    const void *data = a->n_buffers >= 2 ? a->buffers[1] : NULL;
    char sub[512];
    size_t k, n;
    if (avk_type_logical(t) == AVK_LOGICAL_DECIMAL) {
        size_t w = decimal_width(t);
        uint8_t want[32];
        if (!decimal_le(v->u.bytes.data, v->u.bytes.len, w, want))
            fail_msg("%s slot %lld: the row decoder's decimal of %zu bytes does not fit %zu bytes,"
                     " yet it was exported",
                     path, (long long)p, v->u.bytes.len, w);
        if (memcmp((const uint8_t *)data + (size_t)p * w, want, w) != 0)
            fail_msg("%s slot %lld: decimal%zu bytes differ from the sign-extended value", path,
                     (long long)p, w * 8);
        return;
    }
    switch (avk_type_kind(t)) {
    case AVK_NULL:
        return;
    case AVK_BOOLEAN:
        if (bit_at(data, p) != v->u.boolean)
            fail_msg("%s slot %lld: boolean %d, expected %d", path, (long long)p, bit_at(data, p),
                     v->u.boolean);
        return;
    case AVK_INT:
        if (((const int32_t *)data)[p] != v->u.i)
            fail_msg("%s slot %lld: int32 %d, expected %d", path, (long long)p,
                     ((const int32_t *)data)[p], v->u.i);
        return;
    case AVK_LONG:
        if (((const int64_t *)data)[p] != v->u.l)
            fail_msg("%s slot %lld: int64 %lld, expected %lld", path, (long long)p,
                     (long long)((const int64_t *)data)[p], (long long)v->u.l);
        return;
    case AVK_FLOAT: /* bit for bit: NaN payloads and -0.0 count */
        if (memcmp((const float *)data + p, &v->u.f, sizeof(float)) != 0)
            fail_msg("%s slot %lld: float %g, expected %g (bits)", path, (long long)p,
                     (double)((const float *)data)[p], (double)v->u.f);
        return;
    case AVK_DOUBLE:
        if (memcmp((const double *)data + p, &v->u.d, sizeof(double)) != 0)
            fail_msg("%s slot %lld: double %g, expected %g (bits)", path, (long long)p,
                     ((const double *)data)[p], v->u.d);
        return;
    case AVK_STRING:
    case AVK_BYTES:
        compare_bytes(string_at(a, p - a->offset), v->u.bytes, "string/bytes", path, p);
        return;
    case AVK_FIXED: {
        avk_bytes got;
        got.len = avk_type_fixed_size(t);
        got.data = (const uint8_t *)data + (size_t)p * got.len;
        compare_bytes(got, v->u.bytes, "fixed", path, p);
        return;
    }
    case AVK_ENUM: {
        int32_t idx = ((const int32_t *)data)[p];
        const char *sym = avk_type_symbol(t, v->u.index);
        avk_bytes got, want;
        if (idx < 0 || idx >= a->dictionary->length)
            fail_msg("%s slot %lld: dictionary index %d out of range", path, (long long)p, idx);
        if ((uint32_t)idx != v->u.index)
            fail_msg("%s slot %lld: index %d, expected %u", path, (long long)p, idx, v->u.index);
        got = string_at(a->dictionary, idx);
        want.data = (const uint8_t *)sym;
        want.len = strlen(sym);
        compare_bytes(got, want, "symbol", path, p);
        return;
    }
    case AVK_RECORD:
        for (k = 0; k < (size_t)s->n_children; k++) {
            const avk_field *f = avk_type_field_by_name(t, s->children[k]->name);
            snprintf(sub, sizeof sub, "%s.%s", path, s->children[k]->name);
            /* Struct children share the parent's slots. */
            compare_row(s->children[k], a->children[k], p, avk_field_type(f),
                        &v->u.fields[avk_field_index(f)], sub);
        }
        return;
    case AVK_ARRAY: {
        const int32_t *off = (const int32_t *)data;
        n = (size_t)(off[p + 1] - off[p]);
        if (n != v->u.array.count)
            fail_msg("%s slot %lld: list of %zu items, expected %zu", path, (long long)p, n,
                     v->u.array.count);
        for (k = 0; k < n; k++) {
            avk_value item = array_item(v, k);
            snprintf(sub, sizeof sub, "%s[%zu]", path, k);
            compare_row(s->children[0], a->children[0], off[p] + (int64_t)k, avk_type_items(t),
                        &item, sub);
        }
        return;
    }
    case AVK_MAP: {
        const int32_t *off = (const int32_t *)data;
        const struct ArrowArray *ea = a->children[0];
        const struct ArrowSchema *es = s->children[0];
        n = (size_t)(off[p + 1] - off[p]);
        if (n != v->u.map.count)
            fail_msg("%s slot %lld: map of %zu entries, expected %zu", path, (long long)p, n,
                     v->u.map.count);
        for (k = 0; k < n; k++) {
            int64_t e = ea->offset + off[p] + (int64_t)k; /* entries slot = key/value slot */
            snprintf(sub, sizeof sub, "%s{%zu}", path, k);
            compare_bytes(string_at(ea->children[0], e), v->u.map.keys[k], "map key", sub, e);
            compare_row(es->children[1], ea->children[1], e, avk_type_values(t),
                        &v->u.map.values[k], sub);
        }
        return;
    }
    case AVK_UNION:
        break;
    }
    fail_msg("%s: unexpected kind", path);
}

/* Logical row j of column (s, a) against value v of type t. */
static void compare_row(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t j,
                        const avk_type *t, const avk_value *v, const char *path)
{
    int64_t p = a->offset + j;
    uint32_t ni = 0;
    const avk_type *inner;
    if (j < 0 || j >= a->length)
        fail_msg("%s: row %lld outside the array's %lld", path, (long long)j, (long long)a->length);
    if (avk_type_kind(t) != AVK_UNION) {
        if (!slot_valid(a, p) && avk_type_kind(t) != AVK_NULL)
            fail_msg("%s slot %lld: null in a non-nullable column", path, (long long)p);
        compare_present(s, a, p, t, v, path);
        return;
    }
    inner = nullable_inner(t, &ni);
    if (inner) {
        int valid = slot_valid(a, p);
        if (v->u.branch.index == ni) {
            if (valid)
                fail_msg("%s slot %lld: valid, the row decoder has null", path, (long long)p);
            return;
        }
        if (!valid)
            fail_msg("%s slot %lld: null, the row decoder has a value", path, (long long)p);
        compare_present(s, a, p, inner, v->u.branch.value, path);
        return;
    }
    {
        /* Dense union: int8 type ids (= branch indexes), int32 offsets into the branch's child. */
        int id = ((const int8_t *)a->buffers[0])[p];
        int32_t off = ((const int32_t *)a->buffers[1])[p];
        char sub[512];
        if (id < 0 || id >= a->n_children)
            fail_msg("%s slot %lld: type id %d out of range", path, (long long)p, id);
        if ((uint32_t)id != v->u.branch.index)
            fail_msg("%s slot %lld: type id %d, expected branch %u", path, (long long)p, id,
                     v->u.branch.index);
        snprintf(sub, sizeof sub, "%s<%d>", path, id);
        compare_row(s->children[id], a->children[id], off, avk_type_branch(t, (size_t)id),
                    v->u.branch.value, sub);
    }
}

/* ======================================================================== */
/* Exports and encoded test records                                        */
/* ======================================================================== */

typedef struct exported {
    struct ArrowSchema s;
    struct ArrowArray a;
} exported;

static void export_all(avk_columns *c, exported *x)
{
    avk_error err;
    avk_status st;
    memset(x, 0, sizeof *x);
    st = avk_columns_export_schema(c, &x->s, &err);
    if (st != AVK_OK)
        fail_msg("avk_columns_export_schema: %s: %s", avk_status_name(st), err.message);
    st = avk_columns_export(c, &x->a, &err);
    if (st != AVK_OK)
        fail_msg("avk_columns_export: %s: %s", avk_status_name(st), err.message);
    /* The values moved out: the column set is empty. */
    AVKT_ASSERT_I64_EQ(avk_columns_length(c), 0);
}

/* Releases both; the spec's release marks each released (release NULL). */
static void release_all(exported *x)
{
    assert_non_null(x->a.release);
    assert_non_null(x->s.release);
    x->a.release(&x->a);
    x->s.release(&x->s);
    assert_null(x->a.release);
    assert_null(x->s.release);
}

/* The export holds exactly the values vals[0..n): shape, then every row. */
static void check_export(const exported *x, const avk_type *root, const avk_value *const *vals,
                         size_t n, int whole)
{
    size_t i;
    AVKT_ASSERT_I64_EQ(x->a.length, n);
    check_shape(&x->s, &x->a, root, whole, "(root)");
    for (i = 0; i < n; i++) {
        char path[64];
        snprintf(path, sizeof path, "row %zu", i);
        compare_row(&x->s, &x->a, (int64_t)i, root, vals[i], path);
    }
}

/* Records of a schema written in the test (Avro JSON, ' for "), encoded
 * back to back by the plan; or raw hex for bytes no encoder writes. */
typedef struct enc {
    avk_schema *schema;
    const avk_type *root;
    avk_plan *plan;
    avk_arena *arena;
    avk_writer w;
    size_t n;
} enc;

static void enc_init(enc *e, const char *schema_sq)
{
    memset(e, 0, sizeof *e);
    e->schema = AVKT_PARSE(schema_sq);
    e->root = avk_schema_root(e->schema);
    e->plan = avkt_plan_new(e->root, 0, NULL, 0);
    AVKT_OK(avk_arena_new(NULL, &e->arena, NULL));
    AVKT_OK(avk_writer_init_memory(&e->w, NULL, NULL));
}

static void enc_json(enc *e, const char *json_sq)
{
    const char *json = avkt_q(json_sq);
    avk_value v;
    avk_error err;
    if (avk_value_read_json(e->root, json, strlen(json), e->arena, &v, &err) != AVK_OK)
        fail_msg("test record does not fit the schema: %s\n  %s", err.message, json);
    if (avk_plan_encode(e->plan, &v, &e->w, &err) != AVK_OK)
        fail_msg("avk_plan_encode: %s", err.message);
    e->n++;
}

static void enc_hex(enc *e, const char *hex)
{
    uint8_t buf[512];
    size_t n = avkt_unhex(hex, buf, sizeof buf);
    AVKT_OK(avk_writer_write_raw(&e->w, buf, n, NULL));
    e->n++;
}

static const uint8_t *enc_data(const enc *e, size_t *len)
{
    return avk_writer_data(&e->w, len);
}

static void enc_free(enc *e)
{
    avk_writer_destroy(&e->w);
    avk_arena_free(e->arena);
    avk_plan_free(e->plan);
    avk_schema_free(e->schema);
}

/* What the row decoder (avk_plan_decode) makes of count values in data:
 * the good ones, where each ends, and how it stops. */
typedef struct rows {
    avk_arena *arena;
    avk_value *v;
    const avk_value **ptr; /* &v[i], for check_export */
    uint64_t *end;         /* reader offset after value i */
    size_t n;              /* good values */
    avk_status st;         /* AVK_OK when all count decoded */
    avk_error err;
} rows;

static void rows_decode_plan(rows *r, const avk_plan *plan, const uint8_t *data, size_t len,
                             size_t count)
{
    avk_reader rd;
    size_t i;
    memset(r, 0, sizeof *r);
    AVKT_OK(avk_arena_new(NULL, &r->arena, NULL));
    r->v = calloc(count + 1, sizeof *r->v);
    r->ptr = calloc(count + 1, sizeof *r->ptr);
    r->end = calloc(count + 1, sizeof *r->end);
    assert_true(r->v && r->ptr && r->end);
    avk_reader_init_memory(&rd, data, len);
    for (i = 0; i < count; i++) {
        memset(&r->err, 0, sizeof r->err);
        r->st = avk_plan_decode(plan, &rd, r->arena, &r->v[i], &r->err);
        if (r->st != AVK_OK)
            break;
        r->ptr[i] = &r->v[i];
        r->end[i] = avk_reader_offset(&rd);
        r->n++;
    }
}

static void rows_decode(rows *r, const enc *e)
{
    size_t len;
    const uint8_t *data = enc_data(e, &len);
    rows_decode_plan(r, e->plan, data, len, e->n);
}

static void rows_free(rows *r)
{
    avk_arena_free(r->arena);
    free(r->v);
    free(r->ptr);
    free(r->end);
}

/* A column set for e's root (opts may be NULL) that must be made. */
static avk_columns *columns_new_ok(const avk_type *t, const avk_columns_options *opts)
{
    avk_columns *c = NULL;
    avk_error err;
    avk_status st = avk_columns_new(t, opts, &c, &err);
    if (st != AVK_OK)
        fail_msg("avk_columns_new: %s: %s (path \"%s\")", avk_status_name(st), err.message,
                 err.path);
    assert_non_null(c);
    return c;
}

/* Decodes all of e's values into c, which must succeed. */
static void decode_all(avk_columns *c, const enc *e)
{
    avk_reader r;
    size_t len;
    const uint8_t *data = enc_data(e, &len);
    uint64_t done = 0;
    avk_error err;
    avk_status st;
    avk_reader_init_memory(&r, data, len);
    st = avk_columns_decode(c, &r, e->n, &done, &err);
    if (st != AVK_OK)
        fail_msg("avk_columns_decode: %s at offset %llu path \"%s\": %s", avk_status_name(st),
                 (unsigned long long)err.offset, err.path, err.message);
    AVKT_ASSERT_I64_EQ(done, e->n);
    AVKT_ASSERT_I64_EQ(avk_reader_offset(&r), len);
}

/* The whole round: decode e into columns (opts may be NULL), export,
 * compare with the row decoder, release. */
static void check_roundtrip(const enc *e, const avk_columns_options *opts, int whole)
{
    rows want;
    exported x;
    avk_columns *c = columns_new_ok(e->root, opts);
    rows_decode(&want, e);
    AVKT_OK(want.st);
    decode_all(c, e);
    AVKT_ASSERT_I64_EQ(avk_columns_length(c), e->n);
    export_all(c, &x);
    /* The export outlives the column set. */
    avk_columns_free(c);
    check_export(&x, e->root, want.ptr, want.n, whole);
    release_all(&x);
    rows_free(&want);
}

/* avk_columns_decode on data (count values claimed) gives what
 * avk_plan_decode gives: status, offset, path, the good values (*done and
 * the length), and the reader just after the last good one. */
static void check_like_plan(const enc *e, const avk_plan *plan, const avk_columns_options *opts,
                            const uint8_t *data, size_t len, size_t count, int same_path,
                            const char *what)
{
    rows want;
    exported x;
    avk_reader r;
    avk_error err;
    uint64_t done = 999;
    avk_status st;
    avk_columns *c = columns_new_ok(e->root, opts);
    rows_decode_plan(&want, plan, data, len, count);
    avk_reader_init_memory(&r, data, len);
    memset(&err, 0, sizeof err);
    st = avk_columns_decode(c, &r, count, &done, &err);
    if (st != want.st)
        fail_msg("%s: avk_columns_decode returned %s (%s), avk_plan_decode %s (%s) after %zu values",
                 what, avk_status_name(st), st ? err.message : "", avk_status_name(want.st),
                 want.st ? want.err.message : "", want.n);
    AVKT_ASSERT_I64_EQ(done, want.n);
    AVKT_ASSERT_I64_EQ(avk_columns_length(c), want.n);
    if (st != AVK_OK) {
        assert_int_equal(err.status, st);
        if (err.offset != want.err.offset)
            fail_msg("%s: %s at offset %llu, avk_plan_decode says %llu (%s | %s)", what,
                     avk_status_name(st), (unsigned long long)err.offset,
                     (unsigned long long)want.err.offset, err.message, want.err.message);
        if (same_path && strcmp(err.path, want.err.path) != 0)
            fail_msg("%s: path \"%s\", avk_plan_decode says \"%s\"", what, err.path,
                     want.err.path);
        /* The reader stands just after the last good value. */
        AVKT_ASSERT_I64_EQ(avk_reader_offset(&r), want.n ? want.end[want.n - 1] : 0);
    }
    export_all(c, &x);
    check_export(&x, e->root, want.ptr, want.n, same_path);
    release_all(&x);
    avk_columns_free(c);
    rows_free(&want);
}

/* ======================================================================== */
/* Hand-built schemas                                                      */
/* ======================================================================== */

/* Every Avro type and logical type of the header's table, with defaults
 * so each test record names only what it sets. */
static const char all_types_schema[] =
    "{'type':'record','name':'All','fields':["
    "{'name':'n','type':'null','default':null},"
    "{'name':'b','type':'boolean','default':false},"
    "{'name':'i','type':'int','default':0},"
    "{'name':'l','type':'long','default':0},"
    "{'name':'f','type':'float','default':0},"
    "{'name':'d','type':'double','default':0},"
    "{'name':'s','type':'string','default':''},"
    "{'name':'by','type':'bytes','default':''},"
    "{'name':'fx','type':{'type':'fixed','name':'F3','size':3},'default':'\\u0000\\u0000\\u0000'},"
    "{'name':'e','type':{'type':'enum','name':'Color','symbols':['RED','GREEN','BLUE']},"
    "'default':'RED'},"
    "{'name':'date','type':{'type':'int','logicalType':'date'},'default':0},"
    "{'name':'tm','type':{'type':'int','logicalType':'time-millis'},'default':0},"
    "{'name':'tu','type':{'type':'long','logicalType':'time-micros'},'default':0},"
    "{'name':'tsm','type':{'type':'long','logicalType':'timestamp-millis'},'default':0},"
    "{'name':'tsu','type':{'type':'long','logicalType':'timestamp-micros'},'default':0},"
    "{'name':'tsn','type':{'type':'long','logicalType':'timestamp-nanos'},'default':0},"
    "{'name':'ltsm','type':{'type':'long','logicalType':'local-timestamp-millis'},'default':0},"
    "{'name':'ltsu','type':{'type':'long','logicalType':'local-timestamp-micros'},'default':0},"
    "{'name':'ltsn','type':{'type':'long','logicalType':'local-timestamp-nanos'},'default':0},"
    "{'name':'decb','type':{'type':'bytes','logicalType':'decimal','precision':10,'scale':2},"
    "'default':'\\u0000'},"
    "{'name':'decf','type':{'type':'fixed','name':'D8','size':8,'logicalType':'decimal',"
    "'precision':18,'scale':4},'default':'\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000'},"
    "{'name':'decw','type':{'type':'bytes','logicalType':'decimal','precision':60,'scale':3},"
    "'default':'\\u0000'},"
    "{'name':'uuids','type':{'type':'string','logicalType':'uuid'},"
    "'default':'00000000-0000-0000-0000-000000000000'},"
    "{'name':'uuidf','type':{'type':'fixed','name':'U16','size':16,'logicalType':'uuid'},"
    "'default':'0123456789abcdef'},"
    "{'name':'dur','type':{'type':'fixed','name':'Dur','size':12,'logicalType':'duration'},"
    "'default':'abcdefghijkl'},"
    "{'name':'m','type':{'type':'map','values':'int'},'default':{}},"
    "{'name':'recs','type':{'type':'array','items':{'type':'record','name':'Pt','fields':["
    "{'name':'x','type':'int'},{'name':'y','type':'string'}]}},'default':[]},"
    "{'name':'nest','type':['null',{'type':'record','name':'Inner','fields':["
    "{'name':'a','type':'long'},{'name':'b','type':['null','string']},"
    "{'name':'deep','type':['null',{'type':'record','name':'Deep','fields':["
    "{'name':'z','type':'double'}]}]}]}],'default':null},"
    "{'name':'u3','type':['null','int','string'],'default':null},"
    "{'name':'u2','type':['int',{'type':'array','items':'string'}],'default':0},"
    "{'name':'sn','type':['string','null'],'default':''},"
    "{'name':'ne','type':['null','Color'],'default':null},"
    "{'name':'ai','type':{'type':'array','items':'int'},'default':[]},"
    "{'name':'ab','type':{'type':'array','items':'boolean'},'default':[]},"
    "{'name':'afx','type':{'type':'array','items':'F3'},'default':[]},"
    "{'name':'anull','type':{'type':'array','items':'null'},'default':[]},"
    "{'name':'ad','type':{'type':'array','items':{'type':'int','logicalType':'date'}},"
    "'default':[]},"
    "{'name':'ae','type':{'type':'array','items':'Color'},'default':[]},"
    "{'name':'aun','type':{'type':'array','items':['null','double']},'default':[]},"
    "{'name':'mm','type':{'type':'map','values':{'type':'array','items':'long'}},'default':{}},"
    "{'name':'mu','type':{'type':'map','values':['null','Pt']},'default':{}},"
    "{'name':'un','type':['null','string','Pt'],'default':null}"
    "]}";

/* The format each field of All must export as (the header's table, written out). */
static const struct {
    const char *field, *format;
} all_formats[] = {
    {"n", "n"},          {"b", "b"},         {"i", "i"},        {"l", "l"},
    {"f", "f"},          {"d", "g"},         {"s", "u"},        {"by", "z"},
    {"fx", "w:3"},       {"e", "i"},         {"date", "tdD"},   {"tm", "ttm"},
    {"tu", "ttu"},       {"tsm", "tsm:UTC"}, {"tsu", "tsu:UTC"}, {"tsn", "tsn:UTC"},
    {"ltsm", "tsm:"},    {"ltsu", "tsu:"},   {"ltsn", "tsn:"},  {"decb", "d:10,2"},
    {"decf", "d:18,4"},  {"decw", "d:60,3,256"}, {"uuids", "u"}, {"uuidf", "w:16"},
    {"dur", "w:12"},     {"m", "+m"},        {"recs", "+l"},    {"nest", "+s"},
    {"u3", "+ud:0,1,2"}, {"u2", "+ud:0,1"},  {"sn", "u"},       {"ne", "i"},
    {"ai", "+l"},        {"ab", "+l"},       {"afx", "+l"},     {"anull", "+l"},
    {"ad", "+l"},        {"ae", "+l"},       {"aun", "+l"},     {"mm", "+m"},
    {"mu", "+m"},        {"un", "+ud:0,1,2"},
};

/* Hand-picked records of All, then generated ones so every nullable and
 * bit-packed column crosses byte boundaries of its bitmaps. */
static void enc_all_types(enc *e)
{
    size_t k;
    enc_init(e, all_types_schema);
    enc_json(e, "{}");
    enc_json(e, "{'b':true,'i':-2147483648,'l':-9223372036854775808,'f':1.5,'d':-0.0,"
                "'s':'h\\u00e9llo','by':'\\u0000\\u00ff','fx':'abc','e':'BLUE','date':-1,"
                "'tm':86399999,'tu':86399999999,'tsm':1700000000000,'tsu':-1,"
                "'tsn':9223372036854775807,'ltsm':1,'ltsu':2,'ltsn':-3,"
                "'decb':'\\u00ff\\u0000','decf':'\\u00ff\\u00ff\\u00ff\\u00ff\\u00ff\\u00ff\\u00ff\\u0085',"
                "'decw':'\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\u0008\\u0009\\u000a"
                "\\u000b\\u000c\\u000d\\u000e\\u000f\\u0010\\u0011\\u0012\\u0013\\u0014',"
                "'uuids':'123e4567-e89b-12d3-a456-426614174000',"
                "'uuidf':'\\u00ff\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\u0008"
                "\\u0009\\u000a\\u000b\\u000c\\u000d\\u000e',"
                "'dur':'\\u0001\\u0000\\u0000\\u0000\\u0002\\u0000\\u0000\\u0000\\u0003\\u0000\\u0000"
                "\\u0000',"
                "'m':{'k1':1,'k2':-1,'':0},'recs':[{'x':1,'y':'a'},{'x':2,'y':''}],"
                "'nest':{'Inner':{'a':5,'b':{'string':'x'},'deep':{'Deep':{'z':'NaN'}}}},"
                "'u3':{'string':'s'},'u2':{'array':['p','q']},'sn':null,'ne':{'Color':'GREEN'},"
                "'ai':[1,-1,2147483647],'ab':[true,false,true,true,false,false,true,true,true,"
                "false,true],'afx':['abc','def'],'anull':[null,null,null],'ad':[0,1,-719162],"
                "'ae':['RED','BLUE','BLUE'],'aun':[null,{'double':1.0},{'double':'-Infinity'},null],"
                "'mm':{'a':[1,2],'b':[]},'mu':{'x':null,'y':{'Pt':{'x':1,'y':'z'}}},"
                "'un':{'Pt':{'x':-7,'y':'pt'}}}");
    enc_json(e, "{'f':'NaN','d':'Infinity','decb':'\\u007f','decf':'\\u0080\\u0000\\u0000"
                "\\u0000\\u0000\\u0000\\u0000\\u0000','decw':'\\u00ff',"
                "'nest':{'Inner':{'a':-1,'b':null,'deep':null}},'u3':{'int':7},"
                "'u2':{'array':[]},'sn':{'string':'yes'},'ne':null,'un':{'string':''},"
                "'mu':{'k':{'Pt':{'x':0,'y':''}}}}");
    enc_json(e, "{'f':-0.0,'d':'NaN','s':'','by':'','u2':{'int':-5},'u3':null,"
                "'recs':[{'x':3,'y':'three'}],'aun':[],'ab':[false]}");
    /* Generated: booleans and every kind of null in a pattern with period 3, 12 rows. */
    for (k = 0; k < 12; k++) {
        char j[1024];
        snprintf(j, sizeof j,
                 "{'b':%s,'i':%zu,'s':'row %zu','e':'%s','sn':%s,'ne':%s,'nest':%s,'u3':%s,"
                 "'ab':[%s],'aun':[%s],'m':{'k%zu':%zu},'un':%s}",
                 k % 3 ? "true" : "false", k, k, k % 2 ? "GREEN" : "RED",
                 k % 3 == 0 ? "null" : "{'string':'v'}", k % 4 == 1 ? "null" : "{'Color':'BLUE'}",
                 k % 3 == 2 ? "null" : "{'Inner':{'a':1,'b':null,'deep':{'Deep':{'z':2.5}}}}",
                 k % 3 == 0 ? "null" : k % 3 == 1 ? "{'int':1}" : "{'string':'t'}",
                 k % 2 ? "true,false,true" : "", k % 2 ? "null,{'double':0.5}" : "{'double':3}", k,
                 k, k % 3 == 0 ? "null" : k % 3 == 1 ? "{'string':'u'}" : "{'Pt':{'x':1,'y':''}}");
        enc_json(e, j);
    }
}

/* The schema's format table, exact, independent of the generic comparator. */
static void check_all_formats(const exported *x)
{
    size_t i;
    AVKT_ASSERT_I64_EQ(x->s.n_children, sizeof all_formats / sizeof all_formats[0]);
    assert_string_equal(x->s.format, "+s");
    for (i = 0; i < sizeof all_formats / sizeof all_formats[0]; i++) {
        const struct ArrowSchema *c = x->s.children[i];
        assert_string_equal(c->name, all_formats[i].field);
        if (strcmp(c->format, all_formats[i].format) != 0)
            fail_msg("field %s: format \"%s\", expected \"%s\"", c->name, c->format,
                     all_formats[i].format);
    }
}

static const struct ArrowArray *child_named(const exported *x, const char *name)
{
    int64_t i;
    for (i = 0; i < x->s.n_children; i++)
        if (strcmp(x->s.children[i]->name, name) == 0)
            return x->a.children[i];
    fail_msg("no column %s", name);
    return NULL;
}

static void test_all_types(void **state)
{
    enc e;
    rows want;
    exported x;
    avk_columns *c;
    const struct ArrowArray *col;
    static const uint8_t dec_neg256[16] = {0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                           0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    size_t k;
    (void)state;
    enc_all_types(&e);
    check_roundtrip(&e, NULL, 1);

    /* Spot checks written out, so the comparator itself is checked. */
    rows_decode(&want, &e);
    c = columns_new_ok(e.root, NULL);
    decode_all(c, &e);
    export_all(c, &x);
    avk_columns_free(c);
    check_all_formats(&x);
    AVKT_ASSERT_I64_EQ(x.a.length, 16);
    col = child_named(&x, "i");
    AVKT_ASSERT_I64_EQ(((const int32_t *)col->buffers[1])[col->offset + 1], INT32_MIN);
    col = child_named(&x, "decb"); /* bytes ff 00: -256 */
    assert_memory_equal((const uint8_t *)col->buffers[1] + (col->offset + 1) * 16, dec_neg256, 16);
    col = child_named(&x, "b"); /* generated rows 4..15: k % 3 != 0 */
    for (k = 0; k < 12; k++)
        assert_int_equal(bit_at(col->buffers[1], col->offset + 4 + (int64_t)k), k % 3 != 0);
    col = child_named(&x, "sn"); /* nulls: row 1, generated k % 3 == 0 */
    AVKT_ASSERT_I64_EQ(col->null_count, 1 + 4);
    assert_int_equal(slot_valid(col, col->offset + 1), 0);
    assert_int_equal(slot_valid(col, col->offset + 4 + 3), 0);
    assert_int_equal(slot_valid(col, col->offset + 4 + 4), 1);
    col = child_named(&x, "u3"); /* row 2: {'int':7} */
    AVKT_ASSERT_I64_EQ(((const int8_t *)col->buffers[0])[col->offset + 2], 1);
    AVKT_ASSERT_I64_EQ(
        ((const int32_t *)col->children[1]
             ->buffers[1])[col->children[1]->offset + ((const int32_t *)col->buffers[1])[col->offset + 2]],
        7);
    release_all(&x);
    rows_free(&want);
    enc_free(&e);
}

/* Non-record roots: one column of the type itself. */
static void test_non_record_roots(void **state)
{
    static const struct {
        const char *schema;
        const char *records[3];
        const char *format;
    } cases[] = {
        {"'int'", {"1", "-2", "2147483647"}, "i"},
        {"['null','int']", {"null", "{'int':100}", "null"}, "i"},
        {"['string','null']", {"{'string':'a'}", "null", "{'string':''}"}, "u"},
        {"{'type':'array','items':'long'}", {"[]", "[1,2]", "[-3]"}, "+l"},
        {"{'type':'map','values':'boolean'}", {"{}", "{'a':true}", "{'b':false,'c':true}"}, "+m"},
        {"{'type':'enum','name':'E','symbols':['A','B']}", {"'B'", "'A'", "'B'"}, "i"},
        {"['int','string','null']", {"{'int':1}", "null", "{'string':'z'}"}, "+ud:0,1,2"},
        {"{'type':'fixed','name':'F','size':2,'logicalType':'decimal','precision':4}",
         {"'\\u00ff\\u00fe'", "'\\u0000\\u0001'", "'\\u0080\\u0000'"}, "d:4,0"},
        {"'null'", {"null", "null", "null"}, "n"},
    };
    size_t i, k;
    (void)state;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        enc e;
        exported x;
        avk_columns *c;
        enc_init(&e, cases[i].schema);
        for (k = 0; k < 3; k++)
            enc_json(&e, cases[i].records[k]);
        check_roundtrip(&e, NULL, 1);
        c = columns_new_ok(e.root, NULL);
        decode_all(c, &e);
        export_all(c, &x);
        avk_columns_free(c);
        if (strcmp(x.s.format, cases[i].format) != 0)
            fail_msg("%s: format \"%s\", expected \"%s\"", cases[i].schema, x.s.format,
                     cases[i].format);
        AVKT_ASSERT_I64_EQ(x.a.length, 3);
        release_all(&x);
        enc_free(&e);
    }
}

/* Decimals: exact little-endian bytes, sign extension from wider values
 * that still fit, and values too wide for the Arrow width. */
static void test_decimal(void **state)
{
    static const struct {
        const char *be_hex;  /* the Avro bytes value, big-endian */
        const char *le_hex;  /* the 16 Arrow bytes, "" when it does not fit */
    } cases[] = {
        {"0100", "00010000000000000000000000000000"},
        {"ff00", "00ffffffffffffffffffffffffffffff"},
        {"80", "80ffffffffffffffffffffffffffffff"},
        {"7f", "7f000000000000000000000000000000"},
        {"00", "00000000000000000000000000000000"},
        {"ff", "ffffffffffffffffffffffffffffffff"},
        /* 20 bytes whose first 4 only extend the sign. */
        {"000000007fffffffffffffffffffffffffffffff", "ffffffffffffffffffffffffffffff7f"},
        {"ffffffff80000000000000000000000000000000", "00000000000000000000000000000080"},
        {"ffffffffffffffffffffffffffffffffffffffff", "ffffffffffffffffffffffffffffffff"},
        /* 2^127 and -2^127 - 1 need 129 bits; 2^128 too. */
        {"0080000000000000000000000000000000", ""},
        {"ff7fffffffffffffffffffffffffffffff", ""},
        {"0100000000000000000000000000000000", ""},
        {"0000000000000000000000000000000000000001", "01000000000000000000000000000000"},
        {"7f00000000000000000000000000000000", ""},
    };
    size_t i;
    (void)state;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        /* Record {before: int, d: bytes decimal(38,2)}: three records, the
         * second holding the case's value. */
        enc e;
        uint8_t be[64], le[16];
        size_t n = avkt_unhex(cases[i].be_hex, be, sizeof be), len;
        int fits = cases[i].le_hex[0] != '\0';
        char hex[256];
        avk_columns *c;
        avk_reader r;
        uint64_t done = 99;
        avk_error err;
        avk_status st;
        exported x;
        enc_init(&e, "{'type':'record','name':'R','fields':[{'name':'k','type':'int'},"
                     "{'name':'d','type':{'type':'bytes','logicalType':'decimal',"
                     "'precision':38,'scale':2}}]}");
        enc_hex(&e, "0202ff"); /* k 1, d -1 */
        snprintf(hex, sizeof hex, "04%02zx%s", n * 2, cases[i].be_hex); /* k 2, d the case */
        enc_hex(&e, hex);
        enc_hex(&e, "060200"); /* k 3, d 0 */
        if (fits) {
            check_roundtrip(&e, NULL, 1);
            c = columns_new_ok(e.root, NULL);
            decode_all(c, &e);
            export_all(c, &x);
            avk_columns_free(c);
            avkt_unhex(cases[i].le_hex, le, sizeof le);
            assert_string_equal(x.s.children[1]->format, "d:38,2");
            avkt_assert_bytes((const uint8_t *)x.a.children[1]->buffers[1] +
                                  (x.a.children[1]->offset + 1) * 16,
                              16, le, 16);
            release_all(&x);
        } else {
            const uint8_t *data = enc_data(&e, &len);
            c = columns_new_ok(e.root, NULL);
            avk_reader_init_memory(&r, data, len);
            st = avk_columns_decode(c, &r, 3, &done, &err);
            if (st != AVK_ERR_MALFORMED)
                fail_msg("decimal %s in decimal128: %s, expected MALFORMED", cases[i].be_hex,
                         avk_status_name(st));
            AVKT_ASSERT_I64_EQ(done, 1);
            AVKT_ASSERT_I64_EQ(avk_columns_length(c), 1);
            AVKT_ASSERT_I64_EQ(avk_reader_offset(&r), 3); /* after record 1 */
            /* The error points into record 2 (the header does not say where in it). */
            if (err.offset < 3 || err.offset > 3 + 2 + n)
                fail_msg("decimal %s: offset %llu outside record 2 [3, %zu]", cases[i].be_hex,
                         (unsigned long long)err.offset, 5 + n);
            assert_true(err.message[0] != '\0');
            export_all(c, &x);
            AVKT_ASSERT_I64_EQ(x.a.length, 1);
            release_all(&x);
            avk_columns_free(c);
        }
        enc_free(&e);
    }
}

/* decimal256 from fixed(20) and bytes: sign extension to 32 bytes; 33
 * bytes that fit; 33 that do not. */
static void test_decimal256(void **state)
{
    enc e;
    exported x;
    avk_columns *c;
    avk_reader r;
    avk_error err;
    uint64_t done;
    size_t len;
    const uint8_t *data;
    uint8_t want[32];
    (void)state;
    enc_init(&e, "{'type':'record','name':'R','fields':["
                 "{'name':'f','type':{'type':'fixed','name':'F20','size':20,'logicalType':'decimal',"
                 "'precision':45,'scale':1}},"
                 "{'name':'b','type':{'type':'bytes','logicalType':'decimal','precision':76}}]}");
    /* f = -2 (20 bytes), b = 33 bytes: 00 then 7f ff..ff (2^255 - 1). */
    enc_hex(&e, "fffffffffffffffffffffffffffffffffffffffe"
                "42"
                "007fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff");
    /* f = 2^152 (top byte 01), b = -1 in one byte. */
    enc_hex(&e, "0100000000000000000000000000000000000000"
                "02ff");
    check_roundtrip(&e, NULL, 1);
    c = columns_new_ok(e.root, NULL);
    decode_all(c, &e);
    export_all(c, &x);
    avk_columns_free(c);
    assert_string_equal(x.s.children[0]->format, "d:45,1,256");
    assert_string_equal(x.s.children[1]->format, "d:76,0,256");
    memset(want, 0xff, 32);
    want[0] = 0xfe;
    avkt_assert_bytes((const uint8_t *)x.a.children[0]->buffers[1] + x.a.children[0]->offset * 32,
                      32, want, 32);
    memset(want, 0, 32);
    want[19] = 0x01;
    avkt_assert_bytes((const uint8_t *)x.a.children[0]->buffers[1] +
                          (x.a.children[0]->offset + 1) * 32,
                      32, want, 32);
    memset(want, 0xff, 32);
    want[31] = 0x7f;
    avkt_assert_bytes((const uint8_t *)x.a.children[1]->buffers[1] + x.a.children[1]->offset * 32,
                      32, want, 32);
    release_all(&x);
    enc_free(&e);

    /* 33 bytes that need 257 bits: MALFORMED, the first record kept. */
    enc_init(&e, "{'type':'record','name':'R','fields':["
                 "{'name':'b','type':{'type':'bytes','logicalType':'decimal','precision':70}}]}");
    enc_hex(&e, "0201");
    enc_hex(&e, "42"
                "0080000000000000000000000000000000000000000000000000000000000000" "00");
    data = enc_data(&e, &len);
    c = columns_new_ok(e.root, NULL);
    avk_reader_init_memory(&r, data, len);
    AVKT_ASSERT_STATUS(avk_columns_decode(c, &r, 2, &done, &err), AVK_ERR_MALFORMED);
    AVKT_ASSERT_I64_EQ(done, 1);
    AVKT_ASSERT_I64_EQ(avk_columns_length(c), 1);
    AVKT_ASSERT_I64_EQ(avk_reader_offset(&r), 2);
    avk_columns_free(c);
    enc_free(&e);
}

/* ---- projection ---- */

static const char proj_schema[] =
    "{'type':'record','name':'R','fields':["
    "{'name':'a','type':'int'},"
    "{'name':'b','type':'string'},"
    "{'name':'inner','type':{'type':'record','name':'I','fields':["
    "{'name':'x','type':'int'},{'name':'y','type':'string'},{'name':'z','type':'double'}]}},"
    "{'name':'opt','type':['null',{'type':'record','name':'O','fields':["
    "{'name':'p','type':'int'},{'name':'q','type':{'type':'array','items':'string'}}]}]},"
    "{'name':'tail','type':'long'}]}";

static void enc_proj(enc *e)
{
    enc_init(e, proj_schema);
    enc_json(e, "{'a':1,'b':'one','inner':{'x':10,'y':'ten','z':1.0},'opt':null,'tail':100}");
    enc_json(e, "{'a':2,'b':'two','inner':{'x':20,'y':'twenty','z':2.0},"
                "'opt':{'O':{'p':7,'q':['s','t']}},'tail':200}");
    enc_json(e, "{'a':3,'b':'','inner':{'x':30,'y':'','z':-0.0},'opt':{'O':{'p':8,'q':[]}},"
                "'tail':-1}");
}

/* The exported schema's top-level names and, for struct columns, their children's. */
static void assert_names(const struct ArrowSchema *s, const char *const *names, size_t n)
{
    size_t i;
    if ((size_t)s->n_children != n)
        fail_msg("%lld columns, expected %zu", (long long)s->n_children, n);
    for (i = 0; i < n; i++)
        if (strcmp(s->children[i]->name, names[i]) != 0)
            fail_msg("column %zu named \"%s\", expected \"%s\"", i, s->children[i]->name,
                     names[i]);
}

/* Projects fields from proj_schema's records, checks names at two levels
 * and every value against the row decoder (by name). */
static void check_projection(const char *const *fields, size_t nf, const char *const *top,
                             size_t ntop, const char *nested_of, const char *const *nested,
                             size_t nnested)
{
    enc e;
    avk_columns_options o;
    rows want;
    exported x;
    avk_columns *c;
    int64_t i;
    enc_proj(&e);
    avk_columns_options_init(&o);
    o.fields = fields;
    o.field_count = nf;
    check_roundtrip(&e, &o, 0);
    rows_decode(&want, &e);
    c = columns_new_ok(e.root, &o);
    decode_all(c, &e);
    export_all(c, &x);
    avk_columns_free(c);
    assert_names(&x.s, top, ntop);
    if (nested_of)
        for (i = 0; i < x.s.n_children; i++)
            if (strcmp(x.s.children[i]->name, nested_of) == 0)
                assert_names(x.s.children[i], nested, nnested);
    release_all(&x);
    rows_free(&want);
    enc_free(&e);
}

static void test_projection(void **state)
{
    (void)state;
    {
        static const char *const f[] = {"a", "inner.x"}, *const top[] = {"a", "inner"},
                                 *const in[] = {"x"};
        check_projection(f, 2, top, 2, "inner", in, 1);
    }
    {   /* A path through ["null", record], in the order given. */
        static const char *const f[] = {"opt.q", "a"}, *const top[] = {"opt", "a"},
                                 *const in[] = {"q"};
        check_projection(f, 2, top, 2, "opt", in, 1);
    }
    {   /* A record taken whole. */
        static const char *const f[] = {"tail", "inner"}, *const top[] = {"tail", "inner"},
                                 *const in[] = {"x", "y", "z"};
        check_projection(f, 2, top, 2, "inner", in, 3);
    }
    {   /* Two subfields of one record: one struct column holding both. */
        static const char *const f[] = {"inner.z", "inner.x"}, *const top[] = {"inner"},
                                 *const in[] = {"z", "x"};
        check_projection(f, 2, top, 1, "inner", in, 2);
    }
    {   /* field_count 0: every field, fields ignored. */
        static const char *const f[] = {"a"},
                                 *const top[] = {"a", "b", "inner", "opt", "tail"};
        check_projection(f, 0, top, 5, NULL, NULL, 0);
    }
}

static void test_projection_errors(void **state)
{
    static const struct {
        const char *fields[3];
        size_t n;
        avk_status want;
    } cases[] = {
        {{"nope"}, 1, AVK_ERR_INVALID_ARGUMENT},
        {{"a", "inner.nope"}, 2, AVK_ERR_INVALID_ARGUMENT},
        {{"a.x"}, 1, AVK_ERR_INVALID_ARGUMENT},     /* a is an int */
        {{"opt.q.r"}, 1, AVK_ERR_INVALID_ARGUMENT}, /* q is an array */
        {{"a", "b", "a"}, 3, AVK_ERR_INVALID_ARGUMENT},
        {{"inner.x", "inner.x"}, 2, AVK_ERR_INVALID_ARGUMENT},
    };
    enc e;
    size_t i;
    avk_schema *s;
    avk_columns *c;
    avk_columns_options o;
    avk_error err;
    static const char *const one[] = {"a"};
    (void)state;
    enc_init(&e, proj_schema);
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        avk_status st;
        avk_columns_options_init(&o);
        o.fields = cases[i].fields;
        o.field_count = cases[i].n;
        c = NULL;
        memset(&err, 0, sizeof err);
        st = avk_columns_new(e.root, &o, &c, &err);
        if (st != cases[i].want)
            fail_msg("projection case %zu (%s ...): %s, expected %s", i, cases[i].fields[0],
                     avk_status_name(st), avk_status_name(cases[i].want));
        assert_int_equal(err.status, st);
        assert_true(err.message[0] != '\0');
        if (st == AVK_OK)
            avk_columns_free(c);
    }
    /* A projection on a root that is not a record. */
    s = AVKT_PARSE("{'type':'array','items':'int'}");
    avk_columns_options_init(&o);
    o.fields = one;
    o.field_count = 1;
    c = NULL;
    AVKT_ASSERT_STATUS(avk_columns_new(avk_schema_root(s), &o, &c, &err), AVK_ERR_SCHEMA);
    avk_schema_free(s);
    /* Arguments. */
    AVKT_ASSERT_STATUS(avk_columns_new(NULL, NULL, &c, &err), AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_columns_new(e.root, NULL, NULL, &err), AVK_ERR_INVALID_ARGUMENT);
    avk_columns_options_init(&o);
    o.struct_size = 0;
    AVKT_ASSERT_STATUS(avk_columns_new(e.root, &o, &c, &err), AVK_ERR_INVALID_ARGUMENT);
    avk_columns_free(NULL);
    enc_free(&e);
}

/* Recursive types cannot be columns; a projection that leaves the
 * recursion out can. */
static void test_recursive(void **state)
{
    static const char node[] = "{'type':'record','name':'Node','fields':[{'name':'v','type':'int'},"
                               "{'name':'next','type':['null','Node']}]}";
    static const char *const just_v[] = {"v"}, *const whole_next[] = {"next"};
    enc e;
    avk_columns *c = NULL;
    avk_columns_options o;
    avk_error err;
    avk_schema *tree;
    (void)state;
    enc_init(&e, node);
    enc_json(&e, "{'v':1,'next':null}");
    enc_json(&e, "{'v':2,'next':{'Node':{'v':3,'next':{'Node':{'v':4,'next':null}}}}}");
    enc_json(&e, "{'v':5,'next':{'Node':{'v':6,'next':null}}}");

    memset(&err, 0, sizeof err);
    AVKT_ASSERT_STATUS(avk_columns_new(e.root, NULL, &c, &err), AVK_ERR_SCHEMA);
    assert_int_equal(err.status, AVK_ERR_SCHEMA);
    assert_true(err.path[0] != '\0'); /* "err->path says where in the schema" */

    avk_columns_options_init(&o);
    o.fields = whole_next;
    o.field_count = 1;
    AVKT_ASSERT_STATUS(avk_columns_new(e.root, &o, &c, &err), AVK_ERR_SCHEMA);

    o.fields = just_v;
    check_roundtrip(&e, &o, 0);
    enc_free(&e);

    /* Recursion through an array, and below the root. */
    tree = AVKT_PARSE("{'type':'record','name':'W','fields':[{'name':'id','type':'int'},"
                      "{'name':'t','type':{'type':'record','name':'T','fields':["
                      "{'name':'kids','type':{'type':'array','items':'T'}}]}}]}");
    AVKT_ASSERT_STATUS(avk_columns_new(avk_schema_root(tree), NULL, &c, &err), AVK_ERR_SCHEMA);
    o.field_count = 1;
    {
        static const char *const id[] = {"id"};
        o.fields = id;
        c = columns_new_ok(avk_schema_root(tree), &o);
        avk_columns_free(c);
    }
    avk_schema_free(tree);
}

/* next.v of the recursive Node: the column "next" is a struct of v alone,
 * which is not recursive ("a field named with its subfields takes only
 * those"), so the projection leaves the recursion out. */
static void test_recursive_projected_subfield(void **state)
{
    static const char *const v_and_next_v[] = {"v", "next.v"};
    enc e;
    avk_columns_options o;
    (void)state;
    enc_init(&e, "{'type':'record','name':'Node','fields':[{'name':'v','type':'int'},"
                 "{'name':'next','type':['null','Node']}]}");
    enc_json(&e, "{'v':1,'next':null}");
    enc_json(&e, "{'v':2,'next':{'Node':{'v':3,'next':{'Node':{'v':4,'next':null}}}}}");
    avk_columns_options_init(&o);
    o.fields = v_and_next_v;
    o.field_count = 2;
    check_roundtrip(&e, &o, 0);
    enc_free(&e);
}

/* ---- bad bytes: same as avk_plan_decode ---- */

/* Every prefix of a valid encoding of All's records: status, offset, path,
 * the good records kept; then the same column set decodes the whole input
 * and holds both runs exactly (nothing of the cut record stays behind). */
static void test_truncated_prefixes(void **state)
{
    enc e;
    rows full;
    size_t len, cut, i;
    const uint8_t *data;
    (void)state;
    enc_all_types(&e);
    data = enc_data(&e, &len);
    rows_decode(&full, &e);
    AVKT_OK(full.st);
    for (cut = 0; cut < len; cut++) {
        rows want;
        avk_columns *c = columns_new_ok(e.root, NULL);
        avk_reader r;
        avk_error err;
        uint64_t done = 999;
        avk_status st;
        exported x;
        const avk_value **both;
        char what[64];
        snprintf(what, sizeof what, "prefix of %zu bytes", cut);
        rows_decode_plan(&want, e.plan, data, cut, e.n);
        avk_reader_init_memory(&r, data, cut);
        memset(&err, 0, sizeof err);
        st = avk_columns_decode(c, &r, e.n, &done, &err);
        if (st != want.st || err.offset != want.err.offset || strcmp(err.path, want.err.path) != 0)
            fail_msg("%s: columns %s at %llu \"%s\", plan %s at %llu \"%s\"", what,
                     avk_status_name(st), (unsigned long long)err.offset, err.path,
                     avk_status_name(want.st), (unsigned long long)want.err.offset,
                     want.err.path);
        AVKT_ASSERT_I64_EQ(done, want.n);
        AVKT_ASSERT_I64_EQ(avk_columns_length(c), want.n);
        AVKT_ASSERT_I64_EQ(avk_reader_offset(&r), want.n ? want.end[want.n - 1] : 0);
        /* Go on with a good input in the same column set. */
        avk_reader_init_memory(&r, data, len);
        AVKT_OK(avk_columns_decode(c, &r, e.n, &done, NULL));
        AVKT_ASSERT_I64_EQ(done, e.n);
        both = calloc(want.n + e.n, sizeof *both);
        assert_non_null(both);
        for (i = 0; i < want.n; i++)
            both[i] = &want.v[i];
        for (i = 0; i < e.n; i++)
            both[want.n + i] = &full.v[i];
        export_all(c, &x);
        avk_columns_free(c);
        check_export(&x, e.root, both, want.n + e.n, 1);
        release_all(&x);
        free(both);
        rows_free(&want);
    }
    rows_free(&full);
    enc_free(&e);
}

/* Hostile values: negative lengths, indexes out of range, bad booleans,
 * limits, UTF-8; each as avk_plan_decode reports it. */
static void test_bad_values(void **state)
{
    static const struct {
        const char *schema;
        const char *hex[3]; /* records; the bad one last */
        unsigned plan_flags;
        uint64_t max_bytes;
    } cases[] = {
        /* {a: int, s: string}: s of length -1. */
        {"{'type':'record','name':'R','fields':[{'name':'a','type':'int'},"
         "{'name':'s','type':'string'}]}",
         {"020261", "0401"}, 0, 0},
        /* bytes of length -64 */
        {"{'type':'record','name':'R','fields':[{'name':'a','type':'int'},"
         "{'name':'s','type':'bytes'}]}",
         {"020261", "047f"}, 0, 0},
        /* A dense union's index 3 of 3, and -1. */
        {"{'type':'record','name':'R','fields':[{'name':'u','type':['null','int','string']}]}",
         {"00", "0202", "06"}, 0, 0},
        {"{'type':'record','name':'R','fields':[{'name':'u','type':['null','int','string']}]}",
         {"040261", "01"}, 0, 0},
        /* A nullable union's index 2 (the avro-1237 damage). */
        {"{'type':'record','name':'R','fields':[{'name':'u','type':['null','int']}]}",
         {"00", "0202", "04"}, 0, 0},
        /* Enum index 2 of 2. */
        {"{'type':'record','name':'R','fields':[{'name':'e','type':{'type':'enum','name':'E',"
         "'symbols':['A','B']}}]}",
         {"02", "04"}, 0, 0},
        /* Boolean byte 2, at the second of two booleans. */
        {"{'type':'record','name':'R','fields':[{'name':'a','type':'boolean'},"
         "{'name':'b','type':'boolean'}]}",
         {"0100", "0102"}, 0, 0},
        /* A bad item deep in an array of records in a map. */
        {"{'type':'record','name':'R','fields':[{'name':'m','type':{'type':'map','values':"
         "{'type':'array','items':{'type':'record','name':'P','fields':[{'name':'x','type':'int'},"
         "{'name':'u','type':['null','string']}]}}}}]}",
         {"02026b04020004000000", "02026b04020004040000"}, 0, 0},
        /* A varint of 11 bytes. */
        {"{'type':'record','name':'R','fields':[{'name':'l','type':'long'}]}",
         {"02", "ffffffffffffffffffff01"}, 0, 0},
        /* A block of count -1 (byte size 6) whose int item is a 6-byte varint. */
        {"{'type':'record','name':'R','fields':[{'name':'a','type':{'type':'array','items':'int'}}]}",
         {"04020400", "010cffffffffff7f00"}, 0, 0},
        /* Invalid UTF-8 under CHECK_UTF8 (string, then map key); accepted without it below. */
        {"{'type':'record','name':'R','fields':[{'name':'s','type':'string'}]}",
         {"0261", "02ff"}, AVK_PLAN_CHECK_UTF8, 0},
        {"{'type':'record','name':'R','fields':[{'name':'m','type':{'type':'map','values':'int'}}]}",
         {"0202610200", "0202c00200"}, AVK_PLAN_CHECK_UTF8, 0},
        /* A string longer than limits.max_bytes (3). */
        {"{'type':'record','name':'R','fields':[{'name':'s','type':'string'}]}",
         {"06616263", "0861626364"}, 0, 3},
        /* Array item count above what remains. */
        {"{'type':'record','name':'R','fields':[{'name':'a','type':{'type':'array','items':'long'}}]}",
         {"00", "fe0f02"}, 0, 0},
    };
    size_t i, k;
    (void)state;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        enc e;
        avk_plan *plan;
        avk_limits lim;
        avk_columns_options o;
        size_t len;
        const uint8_t *data;
        char what[64];
        enc_init(&e, cases[i].schema);
        for (k = 0; k < 3 && cases[i].hex[k]; k++)
            enc_hex(&e, cases[i].hex[k]);
        data = enc_data(&e, &len);
        memset(&lim, 0, sizeof lim);
        lim.max_bytes = cases[i].max_bytes;
        plan = avkt_plan_new(e.root, cases[i].plan_flags, &lim, 0);
        avk_columns_options_init(&o);
        o.limits = lim;
        o.flags = cases[i].plan_flags & AVK_PLAN_CHECK_UTF8 ? AVK_COLUMNS_CHECK_UTF8 : 0;
        snprintf(what, sizeof what, "bad value case %zu", i);
        {
            /* The case must be bad for the row decoder too. */
            rows r;
            rows_decode_plan(&r, plan, data, len, e.n);
            if (r.st == AVK_OK)
                fail_msg("%s: the test input decodes", what);
            rows_free(&r);
        }
        check_like_plan(&e, plan, &o, data, len, e.n, 1, what);
        if (cases[i].plan_flags & AVK_PLAN_CHECK_UTF8) {
            /* Without the flag, as without the plan's: decoded. */
            avk_plan *lax = avkt_plan_new(e.root, 0, NULL, 0);
            o.flags = 0;
            check_like_plan(&e, lax, &o, data, len, e.n, 1, what);
            avk_plan_free(lax);
        }
        avk_plan_free(plan);
        enc_free(&e);
    }
}

/* Truncation of a projected decode: the skipped fields are still read
 * through, so status, offset and the reader's place are as the plan's. */
static void test_projection_truncated(void **state)
{
    enc e;
    size_t len, cut;
    const uint8_t *data;
    avk_columns_options o;
    static const char *const f[] = {"opt.p", "tail"};
    (void)state;
    enc_proj(&e);
    data = enc_data(&e, &len);
    avk_columns_options_init(&o);
    o.fields = f;
    o.field_count = 2;
    for (cut = 0; cut < len; cut++) {
        char what[64];
        snprintf(what, sizeof what, "projected, prefix of %zu bytes", cut);
        check_like_plan(&e, e.plan, &o, data, cut, e.n, 0, what);
    }
    enc_free(&e);
}

/* 32-bit offsets: 2^31 - 1 list items fit, one more is AVK_ERR_LIMIT.
 * Null items cost no input and no memory, so this is cheap. */
static void test_offset_limit(void **state)
{
    enc e;
    avk_columns_options o;
    avk_columns *c;
    avk_reader r;
    uint64_t done = 9;
    avk_error err;
    size_t len;
    const uint8_t *data;
    exported x;
    (void)state;
    /* 2^31 null items take seconds and touch no varint kernel: once per
     * suite, not again in each AVK_KERNEL rerun. */
    if (getenv("AVK_KERNEL")) {
        print_message("SKIPPED: the offset limit is checked in the run without AVK_KERNEL\n");
        skip();
    }
    enc_init(&e, "{'type':'record','name':'R','fields':[{'name':'a','type':{'type':'array',"
                 "'items':'null'}}]}");
    /* Record 1: one block of 2^31 - 1 nulls (zigzag 2^32 - 2 = fe ff ff ff 0f); record 2: 1 null. */
    enc_hex(&e, "feffffff0f00");
    enc_hex(&e, "0200");
    data = enc_data(&e, &len);
    avk_columns_options_init(&o);
    o.limits.max_items = (uint64_t)1 << 32;
    o.limits.max_empty_items = (uint64_t)1 << 32;
    c = columns_new_ok(e.root, &o);
    avk_reader_init_memory(&r, data, len);
    AVKT_ASSERT_STATUS(avk_columns_decode(c, &r, 2, &done, &err), AVK_ERR_LIMIT);
    AVKT_ASSERT_I64_EQ(done, 1);
    AVKT_ASSERT_I64_EQ(avk_columns_length(c), 1);
    AVKT_ASSERT_I64_EQ(avk_reader_offset(&r), 6);
    export_all(c, &x);
    AVKT_ASSERT_I64_EQ(x.a.length, 1);
    AVKT_ASSERT_I64_EQ(x.a.children[0]->children[0]->length, INT32_MAX);
    AVKT_ASSERT_I64_EQ(
        ((const int32_t *)x.a.children[0]->buffers[1])[x.a.children[0]->offset + 1] -
            ((const int32_t *)x.a.children[0]->buffers[1])[x.a.children[0]->offset],
        INT32_MAX);
    release_all(&x);
    /* After the export the offsets start again: the second record fits now. */
    avk_reader_init_memory(&r, data + 6, len - 6);
    AVKT_OK(avk_columns_decode(c, &r, 1, &done, &err));
    AVKT_ASSERT_I64_EQ(done, 1);
    avk_columns_free(c);
    enc_free(&e);
}

/* ---- life cycle: several decodes, exports, clear, empty ---- */

static void test_decode_in_pieces_and_export_twice(void **state)
{
    enc e;
    rows want;
    avk_columns *c;
    avk_reader r;
    uint64_t done;
    size_t len;
    const uint8_t *data;
    exported x1, x2, x3;
    (void)state;
    enc_all_types(&e);
    data = enc_data(&e, &len);
    rows_decode(&want, &e);
    c = columns_new_ok(e.root, NULL);
    avk_reader_init_memory(&r, data, len);
    /* 2, then 0, then 3 values, then an export: 5 rows. */
    AVKT_OK(avk_columns_decode(c, &r, 2, &done, NULL));
    AVKT_ASSERT_I64_EQ(done, 2);
    AVKT_OK(avk_columns_decode(c, &r, 0, &done, NULL));
    AVKT_ASSERT_I64_EQ(done, 0);
    AVKT_OK(avk_columns_decode(c, &r, 3, NULL, NULL));
    AVKT_ASSERT_I64_EQ(avk_columns_length(c), 5);
    export_all(c, &x1);
    /* The rest, exported again: only those decoded after the first export. */
    AVKT_OK(avk_columns_decode(c, &r, e.n - 5, &done, NULL));
    AVKT_ASSERT_I64_EQ(done, e.n - 5);
    AVKT_ASSERT_I64_EQ(avk_reader_offset(&r), len);
    export_all(c, &x2);
    /* Nothing decoded since: an empty export. */
    export_all(c, &x3);
    avk_columns_free(c);
    check_export(&x2, e.root, want.ptr + 5, e.n - 5, 1);
    check_export(&x1, e.root, want.ptr, 5, 1);
    check_export(&x3, e.root, want.ptr, 0, 1);
    /* Released in another order than made. */
    release_all(&x2);
    release_all(&x3);
    release_all(&x1);
    rows_free(&want);
    enc_free(&e);
}

static void test_clear(void **state)
{
    enc e;
    rows want;
    avk_columns *c;
    avk_columns_options o;
    avkt_failalloc fa;
    avk_reader r;
    size_t len;
    long calls;
    const uint8_t *data;
    exported x;
    (void)state;
    enc_all_types(&e);
    data = enc_data(&e, &len);
    rows_decode(&want, &e);
    avkt_failalloc_init(&fa, 0);
    avk_columns_options_init(&o);
    o.allocator = &fa.allocator;
    c = columns_new_ok(e.root, &o);
    decode_all(c, &e);
    avk_columns_clear(c);
    AVKT_ASSERT_I64_EQ(avk_columns_length(c), 0);
    /* The buffers kept their capacity: the same values again allocate nothing. */
    calls = fa.calls;
    decode_all(c, &e);
    AVKT_ASSERT_I64_EQ(fa.calls, calls);
    avk_columns_clear(c);
    /* Then 3 values: the export holds those alone. */
    avk_reader_init_memory(&r, data, len);
    AVKT_OK(avk_columns_decode(c, &r, 3, NULL, NULL));
    export_all(c, &x);
    avk_columns_free(c);
    check_export(&x, e.root, want.ptr, 3, 1);
    release_all(&x);
    AVKT_ASSERT_I64_EQ(fa.live_blocks, 0);
    AVKT_ASSERT_I64_EQ(fa.size_mismatches, 0);
    AVKT_ASSERT_I64_EQ(fa.bad_frees, 0);
    rows_free(&want);
    enc_free(&e);
}

/* An export of no rows has the whole shape, every child empty. */
static void test_empty_export(void **state)
{
    enc e;
    exported x;
    avk_columns *c;
    (void)state;
    enc_all_types(&e);
    c = columns_new_ok(e.root, NULL);
    export_all(c, &x);
    avk_columns_free(c);
    check_all_formats(&x);
    check_export(&x, e.root, NULL, 0, 1);
    release_all(&x);
    enc_free(&e);
}

static void test_bad_arguments(void **state)
{
    enc e;
    avk_columns *c;
    avk_error err;
    exported x;
    (void)state;
    enc_all_types(&e);
    c = columns_new_ok(e.root, NULL);
    AVKT_ASSERT_STATUS(avk_columns_export_schema(NULL, &x.s, &err), AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_columns_export_schema(c, NULL, &err), AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_columns_export(NULL, &x.a, &err), AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_columns_export(c, NULL, &err), AVK_ERR_INVALID_ARGUMENT);
    avk_columns_free(c);
    enc_free(&e);
}

/* ---- allocation failures ---- */

static void check_failalloc_clean(const avkt_failalloc *fa, long n)
{
    if (fa->live_blocks != 0 || fa->live_bytes != 0 || fa->size_mismatches != 0 ||
        fa->bad_frees != 0)
        fail_msg("failing allocation %ld: %ld blocks (%zu bytes) live, %ld size mismatches, %ld bad"
                 " frees",
                 n, fa->live_blocks, fa->live_bytes, fa->size_mismatches, fa->bad_frees);
}

/* Fails allocation n of new + decode + export, for every n until a run
 * needs no failure: each failure is AVK_ERR_NO_MEMORY, keeps the good
 * values, and nothing leaks once the exports are released. */
static void test_failing_allocator(void **state)
{
    enc e;
    rows want;
    long n;
    size_t len;
    const uint8_t *data;
    (void)state;
    enc_all_types(&e);
    data = enc_data(&e, &len);
    rows_decode(&want, &e);
    for (n = 1;; n++) {
        avkt_failalloc fa;
        avk_columns_options o;
        avk_columns *c = NULL;
        avk_reader r;
        avk_error err;
        uint64_t done = 0;
        avk_status st;
        exported x;
        avkt_failalloc_init(&fa, n);
        avk_columns_options_init(&o);
        o.allocator = &fa.allocator;
        st = avk_columns_new(e.root, &o, &c, &err);
        if (st != AVK_OK) {
            AVKT_ASSERT_STATUS(st, AVK_ERR_NO_MEMORY);
            check_failalloc_clean(&fa, n);
            continue;
        }
        avk_reader_init_memory(&r, data, len);
        st = avk_columns_decode(c, &r, e.n, &done, &err);
        if (st != AVK_OK) {
            AVKT_ASSERT_STATUS(st, AVK_ERR_NO_MEMORY);
            AVKT_ASSERT_I64_EQ(avk_columns_length(c), done);
        }
        memset(&x, 0, sizeof x);
        /* Export (retrying with no more failures after one): the held
         * values are exactly the first done records. */
        st = avk_columns_export_schema(c, &x.s, &err);
        if (st != AVK_OK) {
            AVKT_ASSERT_STATUS(st, AVK_ERR_NO_MEMORY);
            fa.fail_at = 0;
            AVKT_OK(avk_columns_export_schema(c, &x.s, &err));
        }
        st = avk_columns_export(c, &x.a, &err);
        if (st != AVK_OK) {
            AVKT_ASSERT_STATUS(st, AVK_ERR_NO_MEMORY);
            /* The values stay in the column set. */
            AVKT_ASSERT_I64_EQ(avk_columns_length(c), done);
            fa.fail_at = 0;
            AVKT_OK(avk_columns_export(c, &x.a, &err));
        }
        avk_columns_free(c);
        check_export(&x, e.root, want.ptr, done, 1);
        release_all(&x);
        check_failalloc_clean(&fa, n);
        if (fa.failures == 0) {
            AVKT_ASSERT_I64_EQ(done, e.n);
            break;
        }
        assert_true(n < 1000000);
    }
    rows_free(&want);
    enc_free(&e);
}

/* ======================================================================== */
/* The apache interop files                                                */
/* ======================================================================== */

#define MAX_FILES 256
#define PATH_CAP 2048
static char apache_dir[1024];
static char files[MAX_FILES][512]; /* paths below apache/ */
static size_t n_files;

/* Damaged files (MANIFEST.md) and how both readers must end. */
static const struct {
    const char *base;
    avk_status status;
    int64_t records;
    int record_error; /* the error is in a record: decode_block reports it */
} damaged[] = {
    {"avro-1237-bad-union-discriminant.avro", AVK_ERR_MALFORMED, 1, 1},
    {"avro-1238-truncated.avro", AVK_ERR_TRUNCATED, 2, 0},
    {"person-10.no-codec.avro", AVK_ERR_TRUNCATED, 10, 0},
};

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Every regular *.avro file below apache/, expected/ left out (a
 * directory named *.avro is walked). */
static void walk(const char *rel)
{
    char dir[PATH_CAP];
    DIR *d;
    struct dirent *de;
    snprintf(dir, sizeof dir, "%s/%s", apache_dir, rel);
    d = opendir(dir);
    if (!d)
        return;
    while ((de = readdir(d)) != NULL) {
        char sub[600], full[PATH_CAP];
        struct stat st;
        if (de->d_name[0] == '.')
            continue;
        if ((size_t)snprintf(sub, sizeof sub, "%s%s%s", rel, rel[0] ? "/" : "", de->d_name) >=
                sizeof sub ||
            strcmp(sub, "expected") == 0)
            continue;
        snprintf(full, sizeof full, "%s/%s", apache_dir, sub);
        if (stat(full, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode))
            walk(sub);
        else if (S_ISREG(st.st_mode) && ends_with(sub, ".avro") && n_files < MAX_FILES &&
                 strlen(sub) < sizeof files[0])
            memcpy(files[n_files++], sub, strlen(sub) + 1);
    }
    closedir(d);
}

static int damage_of(const char *rel)
{
    const char *base = strrchr(rel, '/');
    size_t i;
    base = base ? base + 1 : rel;
    for (i = 0; i < sizeof damaged / sizeof damaged[0]; i++)
        if (strcmp(base, damaged[i].base) == 0)
            return (int)i;
    return -1;
}

/* Whether t contains itself (a record reached again below itself). */
static int is_recursive_at(const avk_type *t, const avk_type **stack, size_t depth)
{
    size_t i;
    if (depth >= 64)
        return 1;
    for (i = 0; i < depth; i++)
        if (stack[i] == t)
            return 1;
    stack[depth] = t;
    switch (avk_type_kind(t)) {
    case AVK_RECORD:
        for (i = 0; i < avk_type_field_count(t); i++)
            if (is_recursive_at(avk_field_type(avk_type_field(t, i)), stack, depth + 1))
                return 1;
        return 0;
    case AVK_ARRAY: return is_recursive_at(avk_type_items(t), stack, depth + 1);
    case AVK_MAP: return is_recursive_at(avk_type_values(t), stack, depth + 1);
    case AVK_UNION:
        for (i = 0; i < avk_type_branch_count(t); i++)
            if (is_recursive_at(avk_type_branch(t, i), stack, depth + 1))
                return 1;
        return 0;
    default: return 0;
    }
}

static int is_recursive(const avk_type *t)
{
    const avk_type *stack[64];
    return is_recursive_at(t, stack, 0);
}

/* The decode_block error must be avk_plan_decode's on the block's
 * decompressed data: offset, path and the good records before it. */
static void check_block_error(const char *rel, const avk_file_reader *fr, const avk_file_block *b,
                              avk_status st, const avk_error *err, uint64_t done)
{
    avk_buffer buf;
    rows want;
    avk_buffer_init(&buf, NULL);
    AVKT_OK(avk_file_block_decompress(fr, b, &buf, NULL));
    rows_decode_plan(&want, avk_file_reader_plan(fr), buf.data, buf.len, (size_t)b->count);
    if (want.st == AVK_OK) {
        /* The records decode but bytes are left over: MALFORMED. */
        AVKT_ASSERT_STATUS(st, AVK_ERR_MALFORMED);
    } else {
        /* A whole block whose data ends inside a record has a count that
         * lies: MALFORMED, as avk_file_reader_next says (TRUNCATED is for
         * a file that ends inside a block). Offset and path are the plan's. */
        avk_status want_st = want.st == AVK_ERR_TRUNCATED ? AVK_ERR_MALFORMED : want.st;
        if (st != want_st || err->offset != want.err.offset ||
            strcmp(err->path, want.err.path) != 0)
            fail_msg("%s block %llu: decode_block %s at %llu \"%s\", expected %s at %llu \"%s\""
                     " (avk_plan_decode: %s)",
                     rel, (unsigned long long)b->index, avk_status_name(st),
                     (unsigned long long)err->offset, err->path, avk_status_name(want_st),
                     (unsigned long long)want.err.offset, want.err.path, avk_status_name(want.st));
        AVKT_ASSERT_I64_EQ(done, want.n);
    }
    AVKT_ASSERT_I64_EQ(err->block, b->index);
    rows_free(&want);
    avk_buffer_destroy(&buf);
}

static avk_file_reader *open_file(const char *path)
{
    avk_file_reader *fr = NULL;
    avk_error err;
    if (avk_file_reader_open_path(path, NULL, &fr, &err) != AVK_OK)
        fail_msg("%s: open: %s: %s", path, avk_status_name(err.status), err.message);
    return fr;
}

static avk_file_reader *open_rel(const char *rel)
{
    char path[PATH_CAP];
    snprintf(path, sizeof path, "%s/%s", apache_dir, rel);
    return open_file(path);
}

/* Columns block by block; returns how reading ended (err filled) and
 * whether the error came from decode_block. */
static avk_status columns_of_file(const char *rel, avk_columns *c, avk_file_reader *fr,
                                  int *in_record)
{
    avk_file_block b;
    avk_error err;
    int more = 0;
    avk_status st;
    *in_record = 0;
    for (;;) {
        uint64_t done = 999;
        int64_t before = (int64_t)avk_columns_length(c);
        memset(&err, 0, sizeof err);
        st = avk_file_reader_next_block(fr, &b, &more, &err);
        if (st != AVK_OK || !more)
            return st;
        memset(&err, 0, sizeof err);
        st = avk_columns_decode_block(c, fr, &b, &done, &err);
        AVKT_ASSERT_I64_EQ(avk_columns_length(c), before + (int64_t)done);
        if (st != AVK_OK) {
            *in_record = 1;
            check_block_error(rel, fr, &b, st, &err, done);
            return st;
        }
        AVKT_ASSERT_I64_EQ(done, b.count);
    }
}

/* How reading a container file must end: status, records, and whether
 * decode_block (not next_block) reports it. */
typedef struct file_end {
    avk_status status;
    int64_t records;
    int in_record;
} file_end;

/* The file's columns, block by block, against its records read one by
 * one: same rows, same end; then want (NULL: a clean end). */
static void check_file(const char *path, const char *rel, const file_end *want)
{
    avk_file_reader *fr;
    avk_columns *c = NULL;
    avk_error err;
    avk_status st, row_st;
    const avk_type *root;
    exported x;
    avk_arena *arena;
    avk_value v;
    int more = 0, in_record = 0;
    int64_t i = 0;

    fr = open_file(path);
    root = avk_schema_root(avk_file_reader_schema(fr));
    st = avk_columns_new(root, NULL, &c, &err);
    if (st == AVK_ERR_SCHEMA && is_recursive(root)) {
        /* Arrow has no recursive types: the documented status, and nothing to compare. */
        avk_file_reader_free(fr);
        return;
    }
    if (st != AVK_OK)
        fail_msg("%s: avk_columns_new: %s: %s", rel, avk_status_name(st), err.message);
    st = columns_of_file(rel, c, fr, &in_record);
    export_all(c, &x);
    /* The export owns its memory: drop the column set and the reader first. */
    avk_columns_free(c);
    avk_file_reader_free(fr);

    /* The row reader, record by record against row i. */
    fr = open_file(path);
    root = avk_schema_root(avk_file_reader_schema(fr));
    check_shape(&x.s, &x.a, root, 1, rel);
    AVKT_OK(avk_arena_new(NULL, &arena, NULL));
    for (;;) {
        char where[600];
        memset(&err, 0, sizeof err);
        row_st = avk_file_reader_next(fr, arena, &v, &more, &err);
        if (row_st != AVK_OK || !more)
            break;
        if (i >= x.a.length)
            fail_msg("%s: the row reader has record %lld, the columns only %lld rows", rel,
                     (long long)i, (long long)x.a.length);
        snprintf(where, sizeof where, "%s row %lld", rel, (long long)i);
        compare_row(&x.s, &x.a, i, root, &v, where);
        avk_arena_reset(arena);
        i++;
    }
    if (i != x.a.length)
        fail_msg("%s: %lld columns rows, the row reader %lld records", rel, (long long)x.a.length,
                 (long long)i);
    if (st != row_st)
        fail_msg("%s: columns ended with %s, the row reader with %s (%s)", rel,
                 avk_status_name(st), avk_status_name(row_st), err.message);
    if (want) {
        AVKT_ASSERT_STATUS(st, want->status);
        AVKT_ASSERT_I64_EQ(x.a.length, want->records);
        assert_int_equal(in_record, want->in_record);
    } else {
        AVKT_OK(st);
    }
    avk_arena_free(arena);
    avk_file_reader_free(fr);
    release_all(&x);
}

static void test_interop_file(void **state)
{
    const char *rel = *state;
    char path[PATH_CAP];
    int d = damage_of(rel);
    file_end want;
    snprintf(path, sizeof path, "%s/%s", apache_dir, rel);
    if (d >= 0) {
        want.status = damaged[d].status;
        want.records = damaged[d].records;
        want.in_record = damaged[d].record_error;
    }
    check_file(path, rel, d >= 0 ? &want : NULL);
}

/* decode_block with every allocation failing in turn (weather-deflate:
 * a codec, so the kept decompression buffer is allocated too). */
static void test_interop_failing_allocator(void **state)
{
    static const char rel[] = "share/test/data/weather-deflate.avro";
    long n;
    (void)state;
    for (n = 1;; n++) {
        avkt_failalloc fa;
        avk_columns_options o;
        avk_columns *c = NULL;
        avk_file_reader *fr = open_rel(rel);
        avk_file_block b;
        avk_error err;
        int more;
        avk_status st;
        exported x;
        int64_t rows_done = 0;
        avkt_failalloc_init(&fa, n);
        avk_columns_options_init(&o);
        o.allocator = &fa.allocator;
        st = avk_columns_new(avk_schema_root(avk_file_reader_schema(fr)), &o, &c, &err);
        if (st != AVK_OK) {
            AVKT_ASSERT_STATUS(st, AVK_ERR_NO_MEMORY);
            avk_file_reader_free(fr);
            check_failalloc_clean(&fa, n);
            continue;
        }
        while (avk_file_reader_next_block(fr, &b, &more, NULL) == AVK_OK && more) {
            uint64_t done = 0;
            st = avk_columns_decode_block(c, fr, &b, &done, &err);
            rows_done += (int64_t)done;
            AVKT_ASSERT_I64_EQ(avk_columns_length(c), rows_done);
            if (st != AVK_OK) {
                AVKT_ASSERT_STATUS(st, AVK_ERR_NO_MEMORY);
                break;
            }
        }
        fa.fail_at = 0;
        export_all(c, &x);
        avk_columns_free(c);
        avk_file_reader_free(fr);
        AVKT_ASSERT_I64_EQ(x.a.length, rows_done);
        release_all(&x);
        check_failalloc_clean(&fa, n);
        if (fa.failures == 0) {
            AVKT_ASSERT_I64_EQ(rows_done, 5);
            break;
        }
        assert_true(n < 100000);
    }
}

/* A container file put together byte by byte (schema {a: int}, codec
 * null) with one block of count records and the given data, written to a
 * temporary file; returns its path in path. */
static void write_container(char *path, size_t cap, int64_t count, const char *data_hex)
{
    static const char schema[] =
        "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"}]}";
    uint8_t buf[1024], data[64];
    size_t n = 0, dn = avkt_unhex(data_hex, data, sizeof data), i;
    int fd;
    avk_writer w;
    const uint8_t *bytes;
    AVKT_OK(avk_writer_init_memory(&w, NULL, NULL));
    AVKT_OK(avk_writer_write_raw(&w, "Obj\x01", 4, NULL));
    AVKT_OK(avk_writer_write_long(&w, 2, NULL)); /* metadata: 2 entries */
    AVKT_OK(avk_writer_write_long(&w, 11, NULL));
    AVKT_OK(avk_writer_write_raw(&w, "avro.schema", 11, NULL));
    AVKT_OK(avk_writer_write_long(&w, (int64_t)strlen(schema), NULL));
    AVKT_OK(avk_writer_write_raw(&w, schema, strlen(schema), NULL));
    AVKT_OK(avk_writer_write_long(&w, 10, NULL));
    AVKT_OK(avk_writer_write_raw(&w, "avro.codec", 10, NULL));
    AVKT_OK(avk_writer_write_long(&w, 4, NULL));
    AVKT_OK(avk_writer_write_raw(&w, "null", 4, NULL));
    AVKT_OK(avk_writer_write_long(&w, 0, NULL));
    AVKT_OK(avk_writer_write_raw(&w, "SSSSSSSSSSSSSSSS", 16, NULL)); /* sync */
    AVKT_OK(avk_writer_write_long(&w, count, NULL));
    AVKT_OK(avk_writer_write_long(&w, (int64_t)dn, NULL));
    AVKT_OK(avk_writer_write_raw(&w, data, dn, NULL));
    AVKT_OK(avk_writer_write_raw(&w, "SSSSSSSSSSSSSSSS", 16, NULL));
    bytes = avk_writer_data(&w, &n);
    assert_true(n <= sizeof buf);
    memcpy(buf, bytes, n);
    avk_writer_destroy(&w);
    snprintf(path, cap, "/tmp/avk_columns_test_XXXXXX");
    fd = mkstemp(path);
    assert_true(fd >= 0);
    for (i = 0; i < n;) {
        ssize_t k = write(fd, buf + i, n - i);
        assert_true(k > 0);
        i += (size_t)k;
    }
    close(fd);
}

/* decode_block on blocks whose count does not match their data: bytes
 * left over, and a count that lies (the last record cut short). Each ends
 * as avk_file_reader_next ends, with the same records. */
static void test_block_count_mismatch(void **state)
{
    char path[64];
    file_end want;
    (void)state;
    /* 2 records (1, 2) and a byte left over. */
    write_container(path, sizeof path, 2, "020400");
    want.status = AVK_ERR_MALFORMED;
    want.records = 2;
    want.in_record = 1;
    check_file(path, "crafted: bytes left over", &want);
    unlink(path);
    /* Count 3, the third record's varint cut short by the block's end. */
    write_container(path, sizeof path, 3, "020480");
    want.records = 2;
    check_file(path, "crafted: count 3, 2 records and a cut one", &want);
    unlink(path);
}

/* avk_columns_decode needs the whole input in memory: a stream reader is
 * refused with INVALID_ARGUMENT, and nothing is appended or read. */
static void test_stream_reader(void **state)
{
    enc e;
    avk_columns *c;
    avkt_source src;
    avk_reader r;
    avk_error err;
    uint64_t done = 7;
    size_t len;
    const uint8_t *data;
    (void)state;
    enc_all_types(&e);
    data = enc_data(&e, &len);
    avkt_source_init(&src, data, len, 7);
    AVKT_OK(avk_reader_init_source(&r, avkt_source_read, &src, NULL, NULL));
    c = columns_new_ok(e.root, NULL);
    assert_int_equal(avk_columns_decode(c, &r, e.n, &done, &err), AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_I64_EQ(done, 0);
    AVKT_ASSERT_I64_EQ(avk_columns_length(c), 0);
    AVKT_ASSERT_I64_EQ(avk_reader_offset(&r), 0);
    avk_columns_free(c);
    avk_reader_destroy(&r);
    enc_free(&e);
}

static void test_interop_listing(void **state)
{
    (void)state;
    /* 22 container files in the snapshot MANIFEST.md describes. */
    if (n_files < 22)
        fail_msg("%zu .avro files found below %s, MANIFEST.md lists 22", n_files, apache_dir);
}

static void test_no_interop_data(void **state)
{
    (void)state;
    print_message("SKIPPED: interop data not found at \"%s\" (AVK_INTEROP_DIR); "
                  "the apache container files are not checked\n",
                  apache_dir);
    skip();
}

static int compare_names(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

int main(void)
{
    static const struct CMUnitTest unit[] = {
        cmocka_unit_test(avkt_test_kernel_choice),
        cmocka_unit_test(test_all_types),
        cmocka_unit_test(test_non_record_roots),
        cmocka_unit_test(test_decimal),
        cmocka_unit_test(test_decimal256),
        cmocka_unit_test(test_projection),
        cmocka_unit_test(test_projection_errors),
        cmocka_unit_test(test_recursive),
        cmocka_unit_test(test_recursive_projected_subfield),
        cmocka_unit_test(test_truncated_prefixes),
        cmocka_unit_test(test_bad_values),
        cmocka_unit_test(test_projection_truncated),
        cmocka_unit_test(test_offset_limit),
        cmocka_unit_test(test_decode_in_pieces_and_export_twice),
        cmocka_unit_test(test_clear),
        cmocka_unit_test(test_empty_export),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_failing_allocator),
        cmocka_unit_test(test_block_count_mismatch),
        cmocka_unit_test(test_stream_reader),
    };
    struct CMUnitTest *tests;
    size_t i, n = 0;
    struct stat st;
    int rc;

    rc = cmocka_run_group_tests_name("columns", unit, NULL, NULL);

    snprintf(apache_dir, sizeof apache_dir, "%s/apache", AVK_INTEROP_DIR);
    if (AVK_INTEROP_DIR[0] == '\0' || stat(apache_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        static const struct CMUnitTest none[] = {cmocka_unit_test(test_no_interop_data)};
        return rc | cmocka_run_group_tests_name("columns_interop", none, NULL, NULL);
    }
    walk("");
    qsort(files, n_files, sizeof files[0], compare_names);
    tests = calloc(n_files + 2, sizeof *tests);
    if (!tests)
        return 1;
    tests[n].name = "listing";
    tests[n++].test_func = test_interop_listing;
    tests[n].name = "failing allocator over decode_block";
    tests[n++].test_func = test_interop_failing_allocator;
    for (i = 0; i < n_files; i++) {
        tests[n].name = files[i];
        tests[n].test_func = test_interop_file;
        tests[n].initial_state = files[i];
        n++;
    }
    rc |= _cmocka_run_group_tests("columns_interop", tests, n, NULL, NULL);
    free(tests);
    return rc;
}
