/* Full JSON form of a schema: every attribute and property kept, compact or indented. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "avrokit/writer.h"
#include "common/error.h"
#include "json/json.h"
#include "schema/name_set.h"
#include "schema/schema_internal.h"

/* ---- a small JSON emitter: commas, and newlines and indents when pretty ---- */

typedef struct jw {
    avk_writer *w;
    avk_error *err;
    int pretty;
    size_t depth;
    avki_name_set seen;
} jw;

#define OBJ_MAX_KEYS 16

/* An object being written: whether a member was written yet, and the
 * attribute keys written so far, so that a property never repeats one. */
typedef struct jobj {
    int first;
    size_t nkeys;
    const char *keys[OBJ_MAX_KEYS];
} jobj;

static avk_status put(jw *j, const char *s, size_t n)
{
    return avk_writer_write_raw(j->w, s, n, j->err);
}

#define PUT_LIT(j, lit) put((j), (lit), sizeof(lit) - 1)

static avk_status put_string(jw *j, const char *s)
{
    return avki_json_write_string(j->w, s, strlen(s), j->err);
}

static avk_status put_size(jw *j, size_t v)
{
    char num[32];
    int n = snprintf(num, sizeof num, "%zu", v);
    return put(j, num, (size_t)n);
}

static avk_status put_int(jw *j, int v)
{
    char num[32];
    int n = snprintf(num, sizeof num, "%d", v);
    return put(j, num, (size_t)n);
}

static avk_status newline(jw *j)
{
    static const char spaces[] = "                                "; /* 32 */
    size_t n = 2 * j->depth;
    AVK_TRY(PUT_LIT(j, "\n"));
    while (n > 0) {
        size_t k = n < sizeof spaces - 1 ? n : sizeof spaces - 1;
        AVK_TRY(put(j, spaces, k));
        n -= k;
    }
    return AVK_OK;
}

static avk_status obj_open(jw *j, jobj *o)
{
    o->first = 1;
    o->nkeys = 0;
    j->depth++;
    return PUT_LIT(j, "{");
}

static int obj_has(const jobj *o, const char *key)
{
    size_t i;
    for (i = 0; i < o->nkeys; i++)
        if (strcmp(o->keys[i], key) == 0)
            return 1;
    return 0;
}

/* The separator, the key and the colon of the next member. */
static avk_status obj_key(jw *j, jobj *o, const char *key)
{
    if (!o->first)
        AVK_TRY(PUT_LIT(j, ","));
    o->first = 0;
    if (j->pretty)
        AVK_TRY(newline(j));
    if (o->nkeys < OBJ_MAX_KEYS)
        o->keys[o->nkeys++] = key;
    AVK_TRY(put_string(j, key));
    return j->pretty ? PUT_LIT(j, ": ") : PUT_LIT(j, ":");
}

static avk_status obj_close(jw *j, jobj *o)
{
    j->depth--;
    if (j->pretty && !o->first)
        AVK_TRY(newline(j));
    return PUT_LIT(j, "}");
}

/* Arrays: *first tracks the separator. */
static avk_status arr_open(jw *j, int *first)
{
    *first = 1;
    j->depth++;
    return PUT_LIT(j, "[");
}

static avk_status arr_item(jw *j, int *first)
{
    if (!*first)
        AVK_TRY(PUT_LIT(j, ","));
    *first = 0;
    return j->pretty ? newline(j) : AVK_OK;
}

static avk_status arr_close(jw *j, int first)
{
    j->depth--;
    if (j->pretty && !first)
        AVK_TRY(newline(j));
    return PUT_LIT(j, "]");
}

static avk_status string_array(jw *j, const char *const *items, size_t count)
{
    int first;
    size_t i;
    AVK_TRY(arr_open(j, &first));
    for (i = 0; i < count; i++) {
        AVK_TRY(arr_item(j, &first));
        AVK_TRY(put_string(j, items[i]));
    }
    return arr_close(j, first);
}

/* Properties: key and stored compact JSON text, in document order. A key
 * that repeats an attribute already written is left out (the parser keeps
 * none such; this only keeps hand-built nodes from producing duplicates). */
static avk_status write_props(jw *j, jobj *o, const avki_prop *props, size_t count)
{
    size_t i;
    for (i = 0; i < count; i++) {
        if (obj_has(o, props[i].key))
            continue;
        AVK_TRY(obj_key(j, o, props[i].key));
        AVK_TRY(put(j, props[i].json, strlen(props[i].json)));
    }
    return AVK_OK;
}

static avk_status write_logical(jw *j, jobj *o, const avk_type *t)
{
    if (t->logical == AVK_LOGICAL_NONE)
        return AVK_OK;
    AVK_TRY(obj_key(j, o, "logicalType"));
    AVK_TRY(put_string(j, avk_logical_name(t->logical)));
    if (t->logical == AVK_LOGICAL_DECIMAL) {
        AVK_TRY(obj_key(j, o, "precision"));
        AVK_TRY(put_int(j, t->precision));
        if (t->scale != 0) { /* absent means 0 */
            AVK_TRY(obj_key(j, o, "scale"));
            AVK_TRY(put_int(j, t->scale));
        }
    }
    return AVK_OK;
}

static const char *kind_json_name(const avk_type *t)
{
    switch (t->kind) {
    case AVK_NULL: return "null";
    case AVK_BOOLEAN: return "boolean";
    case AVK_INT: return "int";
    case AVK_LONG: return "long";
    case AVK_FLOAT: return "float";
    case AVK_DOUBLE: return "double";
    case AVK_BYTES: return "bytes";
    case AVK_STRING: return "string";
    case AVK_RECORD: return t->is_error ? "error" : "record";
    case AVK_ENUM: return "enum";
    case AVK_ARRAY: return "array";
    case AVK_MAP: return "map";
    case AVK_UNION: return "union";
    case AVK_FIXED: return "fixed";
    }
    return NULL;
}

static avk_status write_type(jw *j, const avk_type *t, const char *ns);

static avk_status write_field(jw *j, const avk_field *f, const char *ns)
{
    jobj o;
    AVK_TRY(obj_open(j, &o));
    AVK_TRY(obj_key(j, &o, "name"));
    AVK_TRY(put_string(j, f->name));
    AVK_TRY(obj_key(j, &o, "type"));
    AVK_TRY(write_type(j, f->type, ns));
    if (f->doc) {
        AVK_TRY(obj_key(j, &o, "doc"));
        AVK_TRY(put_string(j, f->doc));
    }
    if (f->default_json) {
        AVK_TRY(obj_key(j, &o, "default"));
        AVK_TRY(put(j, f->default_json, strlen(f->default_json)));
    }
    if (f->order != AVK_ORDER_ASCENDING) {
        AVK_TRY(obj_key(j, &o, "order"));
        AVK_TRY(f->order == AVK_ORDER_DESCENDING ? PUT_LIT(j, "\"descending\"")
                                                 : PUT_LIT(j, "\"ignore\""));
    }
    if (f->alias_count) {
        AVK_TRY(obj_key(j, &o, "aliases"));
        AVK_TRY(string_array(j, f->aliases, f->alias_count));
    }
    AVK_TRY(write_props(j, &o, f->props, f->prop_count));
    return obj_close(j, &o);
}

/* A named type at its first appearance. ns is the namespace in effect
 * where it is written (that of the nearest enclosing named type).
 *
 * Names: "name" is always the full name. A full name with a dot ignores
 * the enclosing namespace, so no "namespace" attribute is needed, and a
 * simple name that is also a primitive's ("ns.int") cannot be misread. A
 * type in the null namespace written inside a namespaced one gets
 * "namespace": "" so it does not inherit the enclosing namespace. */
static avk_status write_named(jw *j, const avk_type *t, const char *ns)
{
    jobj o;
    size_t i;
    int first;
    const char *space = t->space ? t->space : "";
    AVK_TRY(obj_open(j, &o));
    AVK_TRY(obj_key(j, &o, "type"));
    AVK_TRY(put_string(j, kind_json_name(t)));
    AVK_TRY(obj_key(j, &o, "name"));
    AVK_TRY(put_string(j, t->fullname));
    if (space[0] == '\0' && ns[0] != '\0') {
        AVK_TRY(obj_key(j, &o, "namespace"));
        AVK_TRY(PUT_LIT(j, "\"\""));
    }
    if (t->doc) {
        AVK_TRY(obj_key(j, &o, "doc"));
        AVK_TRY(put_string(j, t->doc));
    }
    if (t->alias_count) {
        AVK_TRY(obj_key(j, &o, "aliases"));
        AVK_TRY(string_array(j, t->aliases, t->alias_count));
    }
    switch (t->kind) {
    case AVK_RECORD:
        AVK_TRY(obj_key(j, &o, "fields"));
        AVK_TRY(arr_open(j, &first));
        for (i = 0; i < t->field_count; i++) {
            AVK_TRY(arr_item(j, &first));
            AVK_TRY(write_field(j, &t->fields[i], space));
        }
        AVK_TRY(arr_close(j, first));
        break;
    case AVK_ENUM:
        AVK_TRY(obj_key(j, &o, "symbols"));
        AVK_TRY(string_array(j, t->symbols, t->symbol_count));
        if (t->enum_default >= 0 && (size_t)t->enum_default < t->symbol_count) {
            AVK_TRY(obj_key(j, &o, "default"));
            AVK_TRY(put_string(j, t->symbols[t->enum_default]));
        }
        break;
    default: /* AVK_FIXED */
        AVK_TRY(obj_key(j, &o, "size"));
        AVK_TRY(put_size(j, t->size));
        break;
    }
    AVK_TRY(write_logical(j, &o, t));
    AVK_TRY(write_props(j, &o, t->props, t->prop_count));
    return obj_close(j, &o);
}

static avk_status write_type(jw *j, const avk_type *t, const char *ns)
{
    jobj o;
    size_t i;
    int first, added;
    if (!t)
        return avki_error_set(j->err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "schema node is NULL");
    if (!kind_json_name(t))
        return avki_error_set(j->err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "schema node has unknown kind %d", (int)t->kind);
    switch (t->kind) {
    case AVK_RECORD:
    case AVK_ENUM:
    case AVK_FIXED:
        if (!t->fullname)
            return avki_error_set(j->err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                                  "named type without a full name");
        added = avki_name_set_add(&j->seen, t->fullname);
        if (added < 0)
            return avki_error_set(j->err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                                  "cannot allocate the set of written type names");
        /* Later appearances: the full name. For a type in the null
         * namespace that is its simple name; read inside a namespaced type
         * it resolves as it did in the text this schema was parsed from,
         * since definitions and references keep their original places. */
        if (added == 0)
            return put_string(j, t->fullname);
        return write_named(j, t, ns);
    case AVK_UNION:
        AVK_TRY(arr_open(j, &first));
        for (i = 0; i < t->branch_count; i++) {
            AVK_TRY(arr_item(j, &first));
            AVK_TRY(write_type(j, t->branches[i], ns));
        }
        return arr_close(j, first);
    case AVK_ARRAY:
    case AVK_MAP:
        AVK_TRY(obj_open(j, &o));
        AVK_TRY(obj_key(j, &o, "type"));
        AVK_TRY(put_string(j, kind_json_name(t)));
        AVK_TRY(obj_key(j, &o, t->kind == AVK_ARRAY ? "items" : "values"));
        AVK_TRY(write_type(j, t->items, ns));
        AVK_TRY(write_props(j, &o, t->props, t->prop_count));
        return obj_close(j, &o);
    default: /* primitives */
        if (t->bare && t->logical == AVK_LOGICAL_NONE && t->prop_count == 0)
            return put_string(j, kind_json_name(t));
        AVK_TRY(obj_open(j, &o));
        AVK_TRY(obj_key(j, &o, "type"));
        AVK_TRY(put_string(j, kind_json_name(t)));
        AVK_TRY(write_logical(j, &o, t));
        AVK_TRY(write_props(j, &o, t->props, t->prop_count));
        return obj_close(j, &o);
    }
}

avk_status avk_type_write_json(const avk_type *t, int pretty, struct avk_writer *w,
                               avk_error *err)
{
    jw j;
    avk_status st;
    if (!t || !w)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_type_write_json: %s is NULL", !t ? "type" : "writer");
    j.w = w;
    j.err = err;
    j.pretty = pretty != 0;
    j.depth = 0;
    avki_name_set_init(&j.seen, &w->alloc);
    st = write_type(&j, t, "");
    avki_name_set_destroy(&j.seen);
    return st;
}
