/* Schema parser: JSON tree -> validated avk_type graph, with names, defaults and logical types. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "avrokit/writer.h"
#include "common/alloc_internal.h"
#include "common/error.h"
#include "common/hash_table.h"
#include "common/value_path.h"
#include "schema/schema_internal.h"

#define DEFAULT_MAX_DEPTH 128
/* Types are parsed recursively: deeper nesting than this would risk the C
 * stack, whatever the caller asks for. */
#define MAX_MAX_DEPTH 512
#define DEFAULT_MAX_SIZE ((size_t)64 << 20)
#define DEFAULT_MAX_MEMORY ((size_t)256 << 20)

/* ---- shared primitive nodes -------------------------------------------- */

#define PRIM(k) {.kind = (k), .enum_default = -1, .bare = 1}
static const avk_type primitives[] = {
    PRIM(AVK_NULL), PRIM(AVK_BOOLEAN), PRIM(AVK_INT),   PRIM(AVK_LONG),
    PRIM(AVK_FLOAT), PRIM(AVK_DOUBLE), PRIM(AVK_BYTES), PRIM(AVK_STRING),
};

const avk_type *avki_primitive(avk_kind kind)
{
    return kind <= AVK_STRING ? &primitives[kind] : NULL;
}

static const char *const primitive_names[] = {"null",   "boolean", "int",   "long",
                                              "float",  "double",  "bytes", "string"};

/* The primitive kind named by s, or -1. Dispatches on the first byte:
 * called for every type reference. */
static int primitive_kind(const char *s, size_t len)
{
    int k;
    switch (len ? s[0] : 0) {
    case 'n': k = AVK_NULL; break;
    case 'b': k = len == 5 ? AVK_BYTES : AVK_BOOLEAN; break;
    case 'i': k = AVK_INT; break;
    case 'l': k = AVK_LONG; break;
    case 'f': k = AVK_FLOAT; break;
    case 'd': k = AVK_DOUBLE; break;
    case 's': k = AVK_STRING; break;
    default: return -1;
    }
    return strlen(primitive_names[k]) == len && memcmp(primitive_names[k], s, len) == 0 ? k : -1;
}

typedef struct parser {
    avk_schema *schema;
    avki_arena *arena;
    avk_error *err;
    size_t max_depth;
    avki_hash names; /* indexes of named, by namespace and name */
    avk_type **named;
    size_t named_count, named_cap;
    /* The path from the root, kept as segments and formatted only when an
     * error is reported: the successful parse never formats. */
    avki_path_stack path;
    avk_writer scratch; /* compact JSON text of defaults and properties */
} parser;

static avk_status no_memory(parser *p)
{
    return avki_error_set(p->err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                          "out of memory (or past max_memory) while parsing the schema");
}

static void *alloc_zero(parser *p, size_t size)
{
    void *m = avki_arena_alloc(p->arena, size ? size : 1, 16);
    if (m)
        memset(m, 0, size);
    return m;
}

/* ---- sets of texts, for duplicate checks -------------------------------- */

/* The texts added so far (views, not copies) and a table of their indexes,
 * in the schema's arena. Sized for all its texts at init: adding never
 * allocates. */
typedef struct text_view {
    const char *s;
    size_t len;
} text_view;

typedef struct text_set {
    avki_hash table;
    text_view *text;
    size_t count, cap;
} text_set;

static avk_status set_init(parser *p, text_set *s, size_t n)
{
    avki_hash_init_arena(&s->table, p->arena);
    s->text = (text_view *)avki_arena_alloc(p->arena, n * sizeof *s->text, 8);
    s->count = 0;
    s->cap = n;
    if (!s->text || avki_hash_reserve(&s->table, n) != AVK_OK)
        return no_memory(p);
    return AVK_OK;
}

/* The index of the text equal to key[0..len), or AVKI_HASH_END. */
static size_t set_find(const text_set *s, uint32_t h, const char *key, size_t len)
{
    size_t pos = avki_hash_first(&s->table, h), i;
    while ((i = avki_hash_next(&s->table, h, &pos)) != AVKI_HASH_END)
        if (s->text[i].len == len && memcmp(s->text[i].s, key, len) == 0)
            return i;
    return AVKI_HASH_END;
}

/* Adds key[0..len) (which must outlive the set) as the next index unless
 * an equal text is there: *first gets that one's index, or AVKI_HASH_END
 * when key was added. */
static avk_status set_add(parser *p, text_set *s, const char *key, size_t len, size_t *first)
{
    uint32_t h = avki_hash_bytes(&s->table, key, len);
    *first = set_find(s, h, key, len);
    if (*first != AVKI_HASH_END)
        return AVK_OK;
    if (s->count == s->cap || avki_hash_add(&s->table, h, s->count) != AVK_OK)
        return no_memory(p);
    s->text[s->count].s = key;
    s->text[s->count++].len = len;
    return AVK_OK;
}

/* ---- error paths -------------------------------------------------------- */

/* Pushes a path segment ("User.fields[3].type" is a TEXT, a MEMBER_AT and
 * a MEMBER); returns the depth to restore with path_pop. */
static size_t path_seg(parser *p, avki_seg_kind kind, size_t idx, const char *name)
{
    return avki_path_push(&p->path, kind, idx, name);
}

static void path_pop(parser *p, size_t old)
{
    avki_path_pop(&p->path, old);
}

/* Fills the error: the path in front of the message, as every path of the
 * library is written (common/value_path.c); "schema" when there is none. */
static avk_status fail(parser *p, const avki_json *at, const char *fmt, ...)
    __attribute__((cold, format(printf, 3, 4)));
static avk_status fail(parser *p, const avki_json *at, const char *fmt, ...)
{
    char msg[AVK_ERROR_MESSAGE_MAX];
    avki_path_part part = avki_path_stack_part(&p->path);
    va_list ap;
    if (!p->err)
        return AVK_ERR_SCHEMA;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    avki_error_set(p->err, AVK_ERR_SCHEMA, at ? at->offset : AVK_OFFSET_UNKNOWN, "%s", msg);
    avki_path_report_schema(p->err, part.count ? "" : "schema", &part);
    if (!part.count)
        p->err->path[0] = '\0';
    return AVK_ERR_SCHEMA;
}

/* A short rendering of a JSON value for messages. */
static const char *describe(const avki_json *j)
{
    switch (j->type) {
    case AVKI_JSON_NULL: return "null";
    case AVKI_JSON_FALSE:
    case AVKI_JSON_TRUE: return "a boolean";
    case AVKI_JSON_NUMBER: return "a number";
    case AVKI_JSON_STRING: return "a string";
    case AVKI_JSON_ARRAY: return "an array";
    case AVKI_JSON_OBJECT: return "an object";
    }
    return "a value";
}

/* ---- names -------------------------------------------------------------- */

/* [A-Za-z_][A-Za-z0-9_]* */
static int valid_simple_name(const char *s, size_t len)
{
    size_t i;
    if (len == 0)
        return 0;
    for (i = 0; i < len; i++) {
        char c = s[i];
        int alpha = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
        if (!alpha && !(i > 0 && c >= '0' && c <= '9'))
            return 0;
    }
    return 1;
}

/* Dot-separated simple names; empty allowed when allow_empty (the null namespace). */
static int valid_dotted(const char *s, size_t len, int allow_empty)
{
    size_t start = 0, i;
    if (len == 0)
        return allow_empty;
    for (i = 0; i <= len; i++) {
        if (i == len || s[i] == '.') {
            if (!valid_simple_name(s + start, i - start))
                return 0;
            start = i + 1;
        }
    }
    return 1;
}

static const char *concat_name(parser *p, const char *space, const char *name)
{
    size_t ls = strlen(space), ln = strlen(name);
    char *s;
    if (ls == 0)
        return name;
    s = (char *)avki_arena_alloc(p->arena, ls + 1 + ln + 1, 1);
    if (!s)
        return NULL;
    memcpy(s, space, ls);
    s[ls] = '.';
    memcpy(s + ls + 1, name, ln + 1);
    return s;
}

/* The named types are keyed by namespace and simple name, hashed apart,
 * so a reference is looked up without building its full name. */
static uint32_t named_hash(const parser *p, const char *space, size_t ls, const char *name,
                           size_t ln)
{
    return avki_hash_pair(avki_hash_bytes(&p->names, space, ls),
                          avki_hash_bytes(&p->names, name, ln));
}

/* Whether the C string s is key[0..len) (which may hold a NUL). */
static int same_text(const char *s, const char *key, size_t len)
{
    return strlen(s) == len && memcmp(s, key, len) == 0;
}

/* The type named name[0..ln) in namespace space[0..ls) ("" is the null
 * namespace), or NULL. */
static const avk_type *find_named(const parser *p, uint32_t h, const char *space, size_t ls,
                                  const char *name, size_t ln)
{
    size_t pos = avki_hash_first(&p->names, h), i;
    while ((i = avki_hash_next(&p->names, h, &pos)) != AVKI_HASH_END) {
        const avk_type *t = p->named[i];
        if (same_text(t->name, name, ln) && same_text(t->space, space, ls))
            return t;
    }
    return NULL;
}

/* Looks up a type reference written in namespace space: a dotted name is
 * full; otherwise space.name, then (as Java does) the null namespace. */
static const avk_type *lookup(parser *p, const char *name, size_t len, const char *space)
{
    const avk_type *t;
    size_t dot = len;
    while (dot > 0 && name[dot - 1] != '.')
        dot--;
    if (dot > 0) {
        /* Full: the namespace is what comes before the last dot. ".a" names
         * nothing (a type of the null namespace is called "a"). */
        size_t ls = dot - 1, ln = len - dot;
        if (ls == 0)
            return NULL;
        return find_named(p, named_hash(p, name, ls, name + dot, ln), name, ls, name + dot, ln);
    }
    if (*space) {
        size_t ls = strlen(space);
        t = find_named(p, named_hash(p, space, ls, name, len), space, ls, name, len);
        if (t)
            return t;
    }
    return find_named(p, named_hash(p, "", 0, name, len), "", 0, name, len);
}

/* ---- attribute helpers -------------------------------------------------- */

static int is_string(const avki_json *j)
{
    return j && j->type == AVKI_JSON_STRING;
}

/* A string used as an attribute (a keyword, name, doc): one without an
 * embedded NUL, so that comparing and printing it as C text is exact.
 * (Default values may hold NUL: bytes defaults are code points 0-255.) */
static int is_text(const avki_json *j)
{
    return is_string(j) && strlen(j->u.string.ptr) == j->u.string.len;
}

static int key_is(const char *key, const char *word)
{
    return key[0] == word[0] && strcmp(key, word) == 0;
}

/* Whether key is an attribute the specification defines for a type of
 * kind k (with logical type lt applied); anything else is a property. */
static int type_attribute(avk_kind k, avk_logical lt, const char *key)
{
    int named = k == AVK_RECORD || k == AVK_ENUM || k == AVK_FIXED;
    switch (key[0]) {
    case 't': return key_is(key, "type");
    case 'n': return named && (key_is(key, "name") || key_is(key, "namespace"));
    case 'd': return (named && key_is(key, "doc")) || (k == AVK_ENUM && key_is(key, "default"));
    case 'a': return named && key_is(key, "aliases");
    case 'f': return k == AVK_RECORD && key_is(key, "fields");
    case 's':
        return (k == AVK_ENUM && key_is(key, "symbols")) || (k == AVK_FIXED && key_is(key, "size")) ||
               (lt == AVK_LOGICAL_DECIMAL && key_is(key, "scale"));
    case 'i': return k == AVK_ARRAY && key_is(key, "items");
    case 'v': return k == AVK_MAP && key_is(key, "values");
    case 'l': return lt != AVK_LOGICAL_NONE && key_is(key, "logicalType");
    case 'p': return lt == AVK_LOGICAL_DECIMAL && key_is(key, "precision");
    default: return 0;
    }
}

static int field_attribute(const char *key)
{
    switch (key[0]) {
    case 'n': return key_is(key, "name");
    case 't': return key_is(key, "type");
    case 'd': return key_is(key, "doc") || key_is(key, "default");
    case 'o': return key_is(key, "order");
    case 'a': return key_is(key, "aliases");
    default: return 0;
    }
}

/* The compact JSON text of v, copied into the arena (through the parse's
 * one scratch writer, so no allocation per value). */
static avk_status json_text(parser *p, const avki_json *v, const char **out)
{
    const uint8_t *bytes;
    size_t len;
    avk_writer_reset(&p->scratch);
    AVK_TRY(avki_json_write(v, &p->scratch, p->err));
    bytes = avk_writer_data(&p->scratch, &len);
    *out = avki_arena_strndup(p->arena, (const char *)bytes, len);
    return *out ? AVK_OK : no_memory(p);
}

/* Keeps every member of obj that is not an attribute (t NULL: a field's
 * attributes) as a property, with its compact JSON text. */
static avk_status collect_props(parser *p, const avki_json *obj, const avk_type *t,
                                avki_prop **out, size_t *count)
{
    size_t i, n = 0;
    avki_prop *props;
    *out = NULL;
    *count = 0;
    for (i = 0; i < obj->u.object.count; i++) {
        const char *key = obj->u.object.members[i].key;
        n += !(t ? type_attribute(t->kind, t->logical, key) : field_attribute(key));
    }
    if (n == 0)
        return AVK_OK;
    props = (avki_prop *)alloc_zero(p, n * sizeof *props);
    if (!props)
        return no_memory(p);
    n = 0;
    for (i = 0; i < obj->u.object.count; i++) {
        const avki_json_member *m = &obj->u.object.members[i];
        if (t ? type_attribute(t->kind, t->logical, m->key) : field_attribute(m->key))
            continue;
        AVK_TRY(json_text(p, m->value, &props[n].json));
        props[n].key = m->key;
        props[n].value = m->value;
        n++;
    }
    *out = props;
    *count = n;
    return AVK_OK;
}

/* Optional "doc": a string. */
static avk_status get_doc(parser *p, const avki_json *d, const char **doc)
{
    *doc = NULL;
    if (!d)
        return AVK_OK;
    if (!is_text(d)) {
        size_t old = path_seg(p, AVKI_SEG_MEMBER, 0, "doc");
        avk_status st = fail(p, d, "doc must be a string, not %s", describe(d));
        path_pop(p, old);
        return st;
    }
    *doc = d->u.string.ptr;
    return AVK_OK;
}

/* Optional "aliases": an array of names; qualified against space unless
 * simple (field aliases). */
static avk_status get_aliases(parser *p, const avki_json *a, const char *space, int simple,
                              const char ***out, size_t *count)
{
    const char **list;
    size_t i;
    *out = NULL;
    *count = 0;
    if (!a)
        return AVK_OK;
    if (a->type != AVKI_JSON_ARRAY) {
        size_t old = path_seg(p, AVKI_SEG_MEMBER, 0, "aliases");
        avk_status st = fail(p, a, "aliases must be an array of names, not %s", describe(a));
        path_pop(p, old);
        return st;
    }
    list = (const char **)alloc_zero(p, a->u.array.count * sizeof *list);
    if (!list)
        return no_memory(p);
    for (i = 0; i < a->u.array.count; i++) {
        const avki_json *e = a->u.array.items[i];
        int ok = is_text(e) && (simple ? valid_simple_name(e->u.string.ptr, e->u.string.len)
                                         : valid_dotted(e->u.string.ptr, e->u.string.len, 0));
        if (!ok) {
            size_t old = path_seg(p, AVKI_SEG_MEMBER_AT, i, "aliases");
            avk_status st = is_text(e) ? fail(p, e, "invalid alias \"%s\"", e->u.string.ptr)
                                         : fail(p, e, "an alias must be a string, not %s",
                                                describe(e));
            path_pop(p, old);
            return st;
        }
        list[i] = simple || memchr(e->u.string.ptr, '.', e->u.string.len)
                      ? e->u.string.ptr
                      : concat_name(p, space, e->u.string.ptr);
        if (!list[i])
            return no_memory(p);
    }
    *out = list;
    *count = a->u.array.count;
    return AVK_OK;
}

/* A JSON number that is an integer in [lo, hi]. */
static int get_integer(const avki_json *j, int64_t lo, int64_t hi, int64_t *out)
{
    if (!j || j->type != AVKI_JSON_NUMBER || !j->u.number.is_integer)
        return 0;
    if (j->u.number.i < lo || j->u.number.i > hi)
        return 0;
    *out = j->u.number.i;
    return 1;
}

/* JSON allows repeated keys, but readers disagree on which one wins (Java
 * and Python take the last): a schema with them is refused rather than read
 * differently from other tools. */
static avk_status check_unique_keys(parser *p, const avki_json *obj)
{
    const avki_json_member *m = obj->u.object.members;
    size_t n = obj->u.object.count, i, k;
    for (i = 0; i < n; i++)
        if (strlen(m[i].key) != m[i].key_len)
            return fail(p, m[i].value, "a key holds \\u0000");
    if (n <= 16) {
        for (i = 1; i < n; i++)
            for (k = 0; k < i; k++)
                if (m[i].key_len == m[k].key_len && memcmp(m[i].key, m[k].key, m[i].key_len) == 0)
                    return fail(p, m[i].value, "duplicate key \"%s\"", m[i].key);
        return AVK_OK;
    } else {
        text_set seen;
        AVK_TRY(set_init(p, &seen, n));
        for (i = 0; i < n; i++) {
            AVK_TRY(set_add(p, &seen, m[i].key, m[i].key_len, &k));
            if (k != AVKI_HASH_END)
                return fail(p, m[i].value, "duplicate key \"%s\"", m[i].key);
        }
        return AVK_OK;
    }
}

/* ---- defaults ----------------------------------------------------------- */

static avk_status check_default(parser *p, const avk_type *t, const avki_json *v, size_t depth);

/* A JSON string whose code points are all 0-255 (Avro's bytes and fixed
 * defaults); *n receives the number of code points. */
static int latin1_string(const avki_json *v, size_t *n)
{
    const uint8_t *s = (const uint8_t *)v->u.string.ptr;
    size_t i, count = 0;
    for (i = 0; i < v->u.string.len; count++) {
        if (s[i] < 0x80)
            i++;
        else if ((s[i] == 0xc2 || s[i] == 0xc3) && i + 1 < v->u.string.len)
            i += 2; /* U+0080..U+00FF */
        else
            return 0;
    }
    *n = count;
    return 1;
}

static avk_status bad_default(parser *p, const avk_type *t, const avki_json *v, const char *why)
{
    return fail(p, v, "default %s does not match type %s%s%s", describe(v),
                t->fullname ? t->fullname : avk_kind_name(t->kind), why ? ": " : "",
                why ? why : "");
}

static avk_status check_default(parser *p, const avk_type *t, const avki_json *v, size_t depth)
{
    int64_t i64;
    size_t i, n, old;
    avk_status st;
    if (depth > p->max_depth)
        return avki_error_set(p->err, AVK_ERR_LIMIT, v->offset, "default nested deeper than %zu",
                              p->max_depth);
    switch (t->kind) {
    case AVK_NULL:
        return v->type == AVKI_JSON_NULL ? AVK_OK : bad_default(p, t, v, "expected null");
    case AVK_BOOLEAN:
        return v->type == AVKI_JSON_TRUE || v->type == AVKI_JSON_FALSE
                   ? AVK_OK
                   : bad_default(p, t, v, "expected true or false");
    case AVK_INT:
        return get_integer(v, INT32_MIN, INT32_MAX, &i64)
                   ? AVK_OK
                   : bad_default(p, t, v, "expected an integer in the int range");
    case AVK_LONG:
        return get_integer(v, INT64_MIN, INT64_MAX, &i64)
                   ? AVK_OK
                   : bad_default(p, t, v, "expected an integer in the long range");
    case AVK_FLOAT:
    case AVK_DOUBLE:
        /* Numbers, and the strings the reference tools write for non-finite values. */
        if (v->type == AVKI_JSON_NUMBER)
            return AVK_OK;
        if (is_text(v) && (strcmp(v->u.string.ptr, "NaN") == 0 ||
                             strcmp(v->u.string.ptr, "Infinity") == 0 ||
                             strcmp(v->u.string.ptr, "-Infinity") == 0))
            return AVK_OK;
        return bad_default(p, t, v, "expected a number");
    case AVK_STRING:
        return is_string(v) ? AVK_OK : bad_default(p, t, v, "expected a string");
    case AVK_BYTES:
        return is_string(v) && latin1_string(v, &n)
                   ? AVK_OK
                   : bad_default(p, t, v, "expected a string of code points 0-255");
    case AVK_FIXED:
        if (!is_string(v) || !latin1_string(v, &n))
            return bad_default(p, t, v, "expected a string of code points 0-255");
        if (n != t->size)
            return fail(p, v, "default has %zu bytes, fixed %s has %zu", n, t->fullname, t->size);
        return AVK_OK;
    case AVK_ENUM:
        if (!is_text(v))
            return bad_default(p, t, v, "expected a symbol");
        if (avk_type_symbol_index(t, v->u.string.ptr) < 0)
            return fail(p, v, "default \"%s\" is not a symbol of enum %s", v->u.string.ptr,
                        t->fullname);
        return AVK_OK;
    case AVK_ARRAY:
        if (v->type != AVKI_JSON_ARRAY)
            return bad_default(p, t, v, "expected an array");
        for (i = 0; i < v->u.array.count; i++) {
            old = path_seg(p, AVKI_SEG_INDEX, i, NULL);
            st = check_default(p, t->items, v->u.array.items[i], depth + 1);
            path_pop(p, old);
            AVK_TRY(st);
        }
        return AVK_OK;
    case AVK_MAP:
        if (v->type != AVKI_JSON_OBJECT)
            return bad_default(p, t, v, "expected an object");
        AVK_TRY(check_unique_keys(p, v));
        for (i = 0; i < v->u.object.count; i++) {
            old = path_seg(p, AVKI_SEG_QUOTED, 0, v->u.object.members[i].key);
            st = check_default(p, t->items, v->u.object.members[i].value, depth + 1);
            path_pop(p, old);
            AVK_TRY(st);
        }
        return AVK_OK;
    case AVK_UNION:
        /* The specification: a union's default matches its first branch. */
        if (t->branch_count == 0)
            return fail(p, v, "an empty union cannot have a default");
        return check_default(p, t->branches[0], v, depth + 1);
    case AVK_RECORD:
        if (v->type != AVKI_JSON_OBJECT)
            return bad_default(p, t, v, "expected an object");
        AVK_TRY(check_unique_keys(p, v));
        for (i = 0; i < t->field_count; i++) {
            const avk_field *f = &t->fields[i];
            const avki_json *fv = avki_json_get(v, f->name);
            if (!fv) {
                if (f->default_value)
                    continue;
                return fail(p, v, "default for record %s lacks field \"%s\", which has no default",
                            t->fullname, f->name);
            }
            old = path_seg(p, AVKI_SEG_MEMBER, 0, f->name);
            st = check_default(p, f->type, fv, depth + 1);
            path_pop(p, old);
            AVK_TRY(st);
        }
        return AVK_OK;
    }
    return AVK_OK;
}

/* ---- types -------------------------------------------------------------- */

static avk_status parse_type(parser *p, const avki_json *j, const char *space, size_t depth,
                             const avk_type **out);

static avk_type *new_type(parser *p, avk_kind kind)
{
    avk_type *t = (avk_type *)alloc_zero(p, sizeof *t);
    if (t) {
        t->kind = kind;
        t->enum_default = -1;
    }
    return t;
}

/* Names a new record, enum or fixed and registers it, before its body is
 * parsed so that the body may refer to it. */
static avk_status define_name(parser *p, const avki_json *obj, avk_type *t, const char *space,
                              const char **inner_space)
{
    const avki_json *name = avki_json_get(obj, "name");
    const avki_json *ns = avki_json_get(obj, "namespace");
    const char *nm, *dot;
    size_t old, ls, ln;
    uint32_t h;
    if (!name || !is_text(name)) {
        old = path_seg(p, AVKI_SEG_MEMBER, 0, "name");
        if (name)
            fail(p, name, "name must be a string, not %s", describe(name));
        else
            fail(p, obj, "a %s needs a name", avk_kind_name(t->kind));
        path_pop(p, old);
        return AVK_ERR_SCHEMA;
    }
    nm = name->u.string.ptr;
    if (p->path.depth == 0) /* paths start at the root type's name: "User.fields[3].type" */
        path_seg(p, AVKI_SEG_TEXT, 0, nm);
    if (!valid_dotted(nm, name->u.string.len, 0)) {
        old = path_seg(p, AVKI_SEG_MEMBER, 0, "name");
        fail(p, name, "invalid name \"%s\": names are [A-Za-z_][A-Za-z0-9_]* separated by dots", nm);
        path_pop(p, old);
        return AVK_ERR_SCHEMA;
    }
    if (ns && ns->type != AVKI_JSON_NULL &&
        (!is_text(ns) || !valid_dotted(ns->u.string.ptr, ns->u.string.len, 1))) {
        old = path_seg(p, AVKI_SEG_MEMBER, 0, "namespace");
        if (is_text(ns))
            fail(p, ns, "invalid namespace \"%s\"", ns->u.string.ptr);
        else
            fail(p, ns, "namespace must be a string, not %s", describe(ns));
        path_pop(p, old);
        return AVK_ERR_SCHEMA;
    }
    dot = strrchr(nm, '.');
    if (dot) { /* a dotted name is a full name: its namespace wins */
        size_t sl = (size_t)(dot - nm);
        char *s = avki_arena_strndup(p->arena, nm, sl);
        if (!s)
            return no_memory(p);
        t->space = s;
        t->name = dot + 1;
        t->fullname = nm;
    } else {
        /* "namespace": null is absent (Java and Python inherit the enclosing one). */
        t->space = ns && is_text(ns) ? ns->u.string.ptr : space;
        t->name = nm;
        t->fullname = concat_name(p, t->space, nm);
        if (!t->fullname)
            return no_memory(p);
    }
    /* A primitive name cannot be defined in the null namespace ("int" would
     * be ambiguous); in a namespace it can ("ns.int"), as Java and Python allow. */
    if (*t->space == '\0' && primitive_kind(t->name, strlen(t->name)) >= 0) {
        old = path_seg(p, AVKI_SEG_MEMBER, 0, "name");
        fail(p, name, "\"%s\" is a primitive type name and cannot be defined", t->name);
        path_pop(p, old);
        return AVK_ERR_SCHEMA;
    }
    ls = strlen(t->space);
    ln = strlen(t->name);
    h = named_hash(p, t->space, ls, t->name, ln);
    if (find_named(p, h, t->space, ls, t->name, ln)) {
        old = path_seg(p, AVKI_SEG_MEMBER, 0, "name");
        fail(p, name, "redefinition of \"%s\"", t->fullname);
        path_pop(p, old);
        return AVK_ERR_SCHEMA;
    }
    if (p->named_count == p->named_cap) {
        size_t cap = p->named_cap ? p->named_cap * 2 : 16;
        avk_type **grown = (avk_type **)avki_arena_alloc(p->arena, cap * sizeof *grown, 16);
        if (!grown)
            return no_memory(p);
        if (p->named_count)
            memcpy(grown, p->named, p->named_count * sizeof *grown);
        p->named = grown;
        p->named_cap = cap;
    }
    p->named[p->named_count++] = t;
    if (avki_hash_add(&p->names, h, p->named_count - 1) != AVK_OK)
        return no_memory(p);
    *inner_space = t->space;
    AVK_TRY(get_doc(p, avki_json_get(obj, "doc"), &t->doc));
    return get_aliases(p, avki_json_get(obj, "aliases"), t->space, 0, &t->aliases, &t->alias_count);
}

static avk_status parse_fields(parser *p, const avki_json *obj, avk_type *t, const char *space,
                               size_t depth)
{
    const avki_json *fields = avki_json_get(obj, "fields");
    text_set seen;
    size_t i, old;
    if (!fields || fields->type != AVKI_JSON_ARRAY) {
        old = path_seg(p, AVKI_SEG_MEMBER, 0, "fields");
        if (fields)
            fail(p, fields, "fields must be an array, not %s", describe(fields));
        else
            fail(p, obj, "record %s needs \"fields\"", t->fullname);
        path_pop(p, old);
        return AVK_ERR_SCHEMA;
    }
    t->field_count = fields->u.array.count;
    t->fields = (avk_field *)alloc_zero(p, t->field_count * sizeof *t->fields);
    if (!t->fields)
        return no_memory(p);
    AVK_TRY(set_init(p, &seen, t->field_count));
    for (i = 0; i < t->field_count; i++) {
        const avki_json *fj = fields->u.array.items[i];
        avk_field *f = &t->fields[i];
        const avki_json *name, *type, *def, *order, *doc, *aliases;
        size_t m, nprops, first;
        avk_status st = AVK_OK;
        old = path_seg(p, AVKI_SEG_MEMBER_AT, i, "fields");
        f->index = i;
        if (fj->type != AVKI_JSON_OBJECT) {
            st = fail(p, fj, "a field must be an object, not %s", describe(fj));
            goto out;
        }
        if ((st = check_unique_keys(p, fj)) != AVK_OK)
            goto out;
        /* One pass over the members: fields are most of a large schema. */
        name = type = def = order = doc = aliases = NULL;
        nprops = 0;
        for (m = 0; m < fj->u.object.count; m++) {
            const avki_json_member *mm = &fj->u.object.members[m];
            const avki_json **slot = NULL;
            switch (mm->key[0]) {
            case 'n': slot = key_is(mm->key, "name") ? &name : NULL; break;
            case 't': slot = key_is(mm->key, "type") ? &type : NULL; break;
            case 'd': slot = key_is(mm->key, "doc") ? &doc : key_is(mm->key, "default") ? &def : NULL; break;
            case 'o': slot = key_is(mm->key, "order") ? &order : NULL; break;
            case 'a': slot = key_is(mm->key, "aliases") ? &aliases : NULL; break;
            default: break;
            }
            if (slot)
                *slot = mm->value;
            else
                nprops++;
        }
        if (!is_text(name) || !valid_simple_name(name->u.string.ptr, name->u.string.len)) {
            path_seg(p, AVKI_SEG_MEMBER, 0, "name");
            st = !name ? fail(p, fj, "a field needs a name")
                 : is_text(name)
                     ? fail(p, name, "invalid field name \"%s\": names are [A-Za-z_][A-Za-z0-9_]*",
                            name->u.string.ptr)
                     : fail(p, name, "a field name must be a string, not %s", describe(name));
            goto out;
        }
        f->name = name->u.string.ptr;
        if ((st = set_add(p, &seen, f->name, name->u.string.len, &first)) != AVK_OK)
            goto out;
        if (first != AVKI_HASH_END) {
            path_seg(p, AVKI_SEG_MEMBER, 0, "name");
            st = fail(p, name, "duplicate field name \"%s\"", f->name);
            goto out;
        }
        if (!type) {
            st = fail(p, fj, "field \"%s\" needs a type", f->name);
            goto out;
        }
        {
            size_t o2 = path_seg(p, AVKI_SEG_MEMBER, 0, "type");
            st = parse_type(p, type, space, depth + 1, &f->type);
            path_pop(p, o2);
            if (st != AVK_OK)
                goto out;
        }
        if ((st = get_doc(p, doc, &f->doc)) != AVK_OK)
            goto out;
        if ((st = get_aliases(p, aliases, space, 1, &f->aliases, &f->alias_count)) != AVK_OK)
            goto out;
        f->order = AVK_ORDER_ASCENDING;
        if (order) {
            const char *o = is_text(order) ? order->u.string.ptr : "";
            if (strcmp(o, "ascending") == 0)
                f->order = AVK_ORDER_ASCENDING;
            else if (strcmp(o, "descending") == 0)
                f->order = AVK_ORDER_DESCENDING;
            else if (strcmp(o, "ignore") == 0)
                f->order = AVK_ORDER_IGNORE;
            else {
                path_seg(p, AVKI_SEG_MEMBER, 0, "order");
                st = fail(p, order, "order must be \"ascending\", \"descending\" or \"ignore\"");
                goto out;
            }
        }
        if (nprops && (st = collect_props(p, fj, NULL, &f->props, &f->prop_count)) != AVK_OK)
            goto out;
        if (def) {
            /* Validated after the whole schema is parsed: the field's type may
             * refer to a record that is still being defined. */
            f->default_value = def;
        }
    out:
        path_pop(p, old);
        AVK_TRY(st);
    }
    return AVK_OK;
}

static avk_status parse_enum(parser *p, const avki_json *obj, avk_type *t)
{
    const avki_json *symbols = avki_json_get(obj, "symbols");
    const avki_json *def = avki_json_get(obj, "default");
    text_set seen;
    size_t i, old, first;
    if (!symbols || symbols->type != AVKI_JSON_ARRAY) {
        old = path_seg(p, AVKI_SEG_MEMBER, 0, "symbols");
        if (symbols)
            fail(p, symbols, "symbols must be an array of names, not %s", describe(symbols));
        else
            fail(p, obj, "enum %s needs \"symbols\"", t->fullname);
        path_pop(p, old);
        return AVK_ERR_SCHEMA;
    }
    t->symbol_count = symbols->u.array.count;
    t->symbols = (const char **)alloc_zero(p, t->symbol_count * sizeof *t->symbols);
    if (!t->symbols)
        return no_memory(p);
    AVK_TRY(set_init(p, &seen, t->symbol_count));
    for (i = 0; i < t->symbol_count; i++) {
        const avki_json *s = symbols->u.array.items[i];
        if (!is_text(s) || !valid_simple_name(s->u.string.ptr, s->u.string.len)) {
            old = path_seg(p, AVKI_SEG_MEMBER_AT, i, "symbols");
            if (is_text(s))
                fail(p, s, "invalid symbol \"%s\": symbols are [A-Za-z_][A-Za-z0-9_]*", s->u.string.ptr);
            else
                fail(p, s, "a symbol must be a string, not %s", describe(s));
            path_pop(p, old);
            return AVK_ERR_SCHEMA;
        }
        AVK_TRY(set_add(p, &seen, s->u.string.ptr, s->u.string.len, &first));
        if (first != AVKI_HASH_END) {
            old = path_seg(p, AVKI_SEG_MEMBER_AT, i, "symbols");
            fail(p, s, "duplicate symbol \"%s\"", s->u.string.ptr);
            path_pop(p, old);
            return AVK_ERR_SCHEMA;
        }
        t->symbols[i] = s->u.string.ptr;
    }
    if (def) {
        /* Symbols were added in order: the set's index is the symbol's. */
        size_t k = AVKI_HASH_END;
        if (is_text(def))
            k = set_find(&seen, avki_hash_bytes(&seen.table, def->u.string.ptr, def->u.string.len),
                         def->u.string.ptr, def->u.string.len);
        if (k == AVKI_HASH_END) {
            old = path_seg(p, AVKI_SEG_MEMBER, 0, "default");
            if (is_text(def))
                fail(p, def, "enum default \"%s\" is not one of the symbols", def->u.string.ptr);
            else
                fail(p, def, "enum default must be a symbol, not %s", describe(def));
            path_pop(p, old);
            return AVK_ERR_SCHEMA;
        }
        t->enum_default = (long)k;
    }
    return AVK_OK;
}

static avk_status parse_fixed(parser *p, const avki_json *obj, avk_type *t)
{
    const avki_json *size = avki_json_get(obj, "size");
    int64_t n;
    /* Sizes above 2^31 - 1 are refused, as Java does (an int). */
    if (!get_integer(size, 0, INT32_MAX, &n)) {
        size_t old = path_seg(p, AVKI_SEG_MEMBER, 0, "size");
        if (size)
            fail(p, size, "size must be an integer from 0 to 2147483647");
        else
            fail(p, obj, "fixed %s needs a \"size\"", t->fullname);
        path_pop(p, old);
        return AVK_ERR_SCHEMA;
    }
    t->size = (size_t)n;
    return AVK_OK;
}

/* Largest decimal precision a fixed of size bytes holds: floor(log10(2^(8 size - 1) - 1)). */
static int64_t max_fixed_precision(size_t size)
{
    if (size == 0)
        return 0;
    return (int64_t)floor((8.0 * (double)size - 1.0) * 0.30102999566398119521);
}

/* Applies logicalType when valid for t; otherwise leaves it a property
 * (the specification: invalid logical types are ignored). */
static void apply_logical(const avki_json *obj, avk_type *t)
{
    const avki_json *lt = avki_json_get(obj, "logicalType");
    const char *name;
    avk_kind k = t->kind;
    if (!is_text(lt))
        return;
    name = lt->u.string.ptr;
    if (strcmp(name, "decimal") == 0) {
        int64_t precision, scale = 0;
        const avki_json *sj = avki_json_get(obj, "scale");
        if (k != AVK_BYTES && k != AVK_FIXED)
            return;
        if (!get_integer(avki_json_get(obj, "precision"), 1, INT32_MAX, &precision))
            return;
        if (sj && !get_integer(sj, 0, INT32_MAX, &scale))
            return;
        if (scale > precision)
            return;
        if (k == AVK_FIXED && precision > max_fixed_precision(t->size))
            return;
        t->logical = AVK_LOGICAL_DECIMAL;
        t->precision = (int)precision;
        t->scale = (int)scale;
        return;
    }
    if (strcmp(name, "uuid") == 0) {
        if (k == AVK_STRING || (k == AVK_FIXED && t->size == 16))
            t->logical = AVK_LOGICAL_UUID;
    } else if (strcmp(name, "date") == 0) {
        if (k == AVK_INT)
            t->logical = AVK_LOGICAL_DATE;
    } else if (strcmp(name, "time-millis") == 0) {
        if (k == AVK_INT)
            t->logical = AVK_LOGICAL_TIME_MILLIS;
    } else if (strcmp(name, "duration") == 0) {
        if (k == AVK_FIXED && t->size == 12)
            t->logical = AVK_LOGICAL_DURATION;
    } else if (k == AVK_LONG) {
        static const struct {
            const char *name;
            avk_logical logical;
        } longs[] = {{"time-micros", AVK_LOGICAL_TIME_MICROS},
                     {"timestamp-millis", AVK_LOGICAL_TIMESTAMP_MILLIS},
                     {"timestamp-micros", AVK_LOGICAL_TIMESTAMP_MICROS},
                     {"timestamp-nanos", AVK_LOGICAL_TIMESTAMP_NANOS},
                     {"local-timestamp-millis", AVK_LOGICAL_LOCAL_TIMESTAMP_MILLIS},
                     {"local-timestamp-micros", AVK_LOGICAL_LOCAL_TIMESTAMP_MICROS},
                     {"local-timestamp-nanos", AVK_LOGICAL_LOCAL_TIMESTAMP_NANOS}};
        size_t i;
        for (i = 0; i < sizeof longs / sizeof longs[0]; i++)
            if (strcmp(name, longs[i].name) == 0)
                t->logical = longs[i].logical;
    }
}

static avk_status parse_union(parser *p, const avki_json *arr, const char *space, size_t depth,
                              const avk_type **out)
{
    avk_type *t = new_type(p, AVK_UNION);
    text_set seen;
    size_t i;
    if (!t)
        return no_memory(p);
    t->branch_count = arr->u.array.count;
    t->branches = (const avk_type **)alloc_zero(p, t->branch_count * sizeof *t->branches);
    if (!t->branches)
        return no_memory(p);
    AVK_TRY(set_init(p, &seen, t->branch_count));
    for (i = 0; i < t->branch_count; i++) {
        const avk_type *b;
        const char *key;
        size_t first;
        size_t old = path_seg(p, AVKI_SEG_INDEX, i, NULL);
        avk_status st = parse_type(p, arr->u.array.items[i], space, depth + 1, &b);
        if (st != AVK_OK) {
            path_pop(p, old);
            return st;
        }
        if (b->kind == AVK_UNION) {
            st = fail(p, arr->u.array.items[i], "a union may not directly contain another union");
            path_pop(p, old);
            return st;
        }
        /* One branch per unnamed type; named types by full name. */
        key = b->fullname ? b->fullname : avk_kind_name(b->kind);
        st = set_add(p, &seen, key, strlen(key), &first);
        if (st == AVK_OK && first != AVKI_HASH_END)
            st = fail(p, arr->u.array.items[i], "the union already has a branch of type %s", key);
        path_pop(p, old);
        AVK_TRY(st);
        t->branches[i] = b;
    }
    *out = t;
    return AVK_OK;
}

static avk_status parse_object(parser *p, const avki_json *obj, const char *space, size_t depth,
                               const avk_type **out)
{
    const avki_json *type = avki_json_get(obj, "type");
    const char *tn, *inner_space = space;
    avk_type *t;
    int prim;
    size_t old;
    AVK_TRY(check_unique_keys(p, obj));
    if (!type) {
        return fail(p, obj, "a schema object needs a \"type\"");
    }
    if (type->type == AVKI_JSON_OBJECT || type->type == AVKI_JSON_ARRAY) {
        /* {"type": {...}} or {"type": [...]}: the inner schema (as Python and Java do). */
        old = path_seg(p, AVKI_SEG_MEMBER, 0, "type");
        {
            avk_status st = parse_type(p, type, space, depth + 1, out);
            path_pop(p, old);
            return st;
        }
    }
    if (!is_text(type))
        return fail(p, type, "\"type\" must be a string, object or array, not %s", describe(type));
    tn = type->u.string.ptr;
    prim = primitive_kind(tn, type->u.string.len);
    if (prim >= 0) {
        t = new_type(p, (avk_kind)prim);
    } else if (strcmp(tn, "record") == 0 || strcmp(tn, "error") == 0) {
        t = new_type(p, AVK_RECORD);
        if (t)
            t->is_error = tn[0] == 'e';
    } else if (strcmp(tn, "enum") == 0) {
        t = new_type(p, AVK_ENUM);
    } else if (strcmp(tn, "fixed") == 0) {
        t = new_type(p, AVK_FIXED);
    } else if (strcmp(tn, "array") == 0) {
        t = new_type(p, AVK_ARRAY);
    } else if (strcmp(tn, "map") == 0) {
        t = new_type(p, AVK_MAP);
    } else {
        /* {"type": "Name"}: a reference to a defined type. */
        const avk_type *ref = lookup(p, tn, type->u.string.len, space);
        if (!ref) {
            old = path_seg(p, AVKI_SEG_MEMBER, 0, "type");
            fail(p, type, "unknown type name \"%s\"", tn);
            path_pop(p, old);
            return AVK_ERR_SCHEMA;
        }
        *out = ref;
        return AVK_OK;
    }
    if (!t)
        return no_memory(p);
    switch (t->kind) {
    case AVK_RECORD:
        AVK_TRY(define_name(p, obj, t, space, &inner_space));
        AVK_TRY(parse_fields(p, obj, t, inner_space, depth));
        break;
    case AVK_ENUM:
        AVK_TRY(define_name(p, obj, t, space, &inner_space));
        AVK_TRY(parse_enum(p, obj, t));
        break;
    case AVK_FIXED:
        AVK_TRY(define_name(p, obj, t, space, &inner_space));
        AVK_TRY(parse_fixed(p, obj, t));
        break;
    case AVK_ARRAY:
    case AVK_MAP: {
        const char *key = t->kind == AVK_ARRAY ? "items" : "values";
        const avki_json *inner = avki_json_get(obj, key);
        avk_status st;
        old = path_seg(p, AVKI_SEG_MEMBER, 0, key);
        st = inner ? parse_type(p, inner, space, depth + 1, &t->items)
                   : fail(p, obj, "%s needs \"%s\"", avk_kind_name(t->kind), key);
        path_pop(p, old);
        AVK_TRY(st);
        break;
    }
    default:
        break;
    }
    apply_logical(obj, t);
    AVK_TRY(collect_props(p, obj, t, &t->props, &t->prop_count));
    *out = t;
    return AVK_OK;
}

static avk_status parse_type(parser *p, const avki_json *j, const char *space, size_t depth,
                             const avk_type **out)
{
    if (depth > p->max_depth)
        return avki_error_set(p->err, AVK_ERR_LIMIT, j->offset,
                              "schema nested deeper than %zu levels (max_depth)", p->max_depth);
    switch (j->type) {
    case AVKI_JSON_STRING: {
        int prim = primitive_kind(j->u.string.ptr, j->u.string.len);
        const avk_type *ref;
        if (prim >= 0) {
            *out = avki_primitive((avk_kind)prim);
            return AVK_OK;
        }
        ref = lookup(p, j->u.string.ptr, j->u.string.len, space);
        if (!ref)
            return fail(p, j, "unknown type name \"%s\"", j->u.string.ptr);
        *out = ref;
        return AVK_OK;
    }
    case AVKI_JSON_ARRAY:
        return parse_union(p, j, space, depth, out);
    case AVKI_JSON_OBJECT:
        return parse_object(p, j, space, depth, out);
    default:
        return fail(p, j, "a schema must be a string, object or array, not %s", describe(j));
    }
}

/* Validates every field default once all names are defined. */
static avk_status check_defaults(parser *p)
{
    size_t i, k;
    for (i = 0; i < p->named_count; i++) {
        avk_type *t = p->named[i];
        if (t->kind != AVK_RECORD)
            continue;
        for (k = 0; k < t->field_count; k++) {
            avk_field *f = &t->fields[k];
            if (!f->default_value)
                continue;
            path_pop(p, 0);
            path_seg(p, AVKI_SEG_TEXT, 0, t->name);
            path_seg(p, AVKI_SEG_MEMBER_AT, k, "fields");
            path_seg(p, AVKI_SEG_MEMBER, 0, "default");
            AVK_TRY(check_default(p, f->type, f->default_value, 0));
            AVK_TRY(json_text(p, f->default_value, &f->default_json));
        }
    }
    path_pop(p, 0);
    return AVK_OK;
}

avk_status avk_schema_parse(const char *json, size_t len, const avk_schema_options *opts,
                            avk_schema **out, avk_error *err)
{
    size_t max_depth = DEFAULT_MAX_DEPTH, max_size = DEFAULT_MAX_SIZE, max_memory = DEFAULT_MAX_MEMORY;
    avk_allocator alloc;
    avki_json_limits limits;
    const avki_json *doc;
    avk_schema *s;
    parser p;
    avk_status st;
    avki_arena arena;

    if (!out || (!json && len))
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_schema_parse: NULL %s", out ? "json" : "out");
    *out = NULL;
    if (opts) {
        if (opts->struct_size < sizeof *opts)
            return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                                  "avk_schema_options.struct_size is %zu, expected %zu",
                                  opts->struct_size, sizeof *opts);
        if (opts->max_depth)
            max_depth = opts->max_depth < MAX_MAX_DEPTH ? opts->max_depth : MAX_MAX_DEPTH;
        if (opts->max_size)
            max_size = opts->max_size;
        if (opts->max_memory)
            max_memory = opts->max_memory;
    }
    if (len > max_size)
        return avki_error_set(err, AVK_ERR_LIMIT, 0,
                              "schema text is %zu bytes, more than the limit of %zu", len, max_size);
    alloc = avki_allocator_or_libc(opts ? opts->allocator : NULL);
    /* The first block is sized from the text (the JSON tree takes about 9
     * times the text, the types less): a parse then usually allocates once. */
    avki_arena_init(&arena, &alloc, len * 12 + 4096, max_memory);
    s = (avk_schema *)avki_arena_alloc(&arena, sizeof *s, 16);
    if (!s) {
        avki_arena_destroy(&arena);
        return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                              "cannot allocate the schema");
    }
    memset(s, 0, sizeof *s);

    memset(&p, 0, sizeof p);
    p.schema = s;
    p.arena = &arena;
    p.err = err;
    p.max_depth = max_depth;
    /* A record level takes 3 JSON levels (record, fields, field); defaults
     * nest further. Deeper types are refused with their path below. */
    limits.max_depth = 4 * max_depth + 16;
    {
        avk_writer_options wo;
        memset(&wo, 0, sizeof wo);
        wo.struct_size = sizeof wo;
        wo.buffer_size = 256;
        wo.allocator = &alloc;
        st = avk_writer_init_memory(&p.scratch, &wo, err);
    }
    if (st == AVK_OK)
        st = avki_json_parse(&arena, json ? json : "", len, &limits, &doc, err);
    avki_hash_init_arena(&p.names, &arena);
    if (st == AVK_OK)
        st = parse_type(&p, doc, "", 0, &s->root);
    if (st == AVK_OK)
        st = check_defaults(&p);
    avk_writer_destroy(&p.scratch);
    if (st == AVK_ERR_NO_MEMORY && arena.limit_hit)
        st = avki_error_set(err, AVK_ERR_LIMIT, AVK_OFFSET_UNKNOWN,
                            "the schema needs more memory than max_memory (%zu bytes)",
                            arena.limit);
    if (st != AVK_OK) {
        avki_arena_destroy(&arena);
        return st;
    }
    s->named = p.named;
    s->named_count = p.named_count;
    s->arena = arena; /* the schema owns its arena from here on */
    *out = s;
    return AVK_OK;
}

void avk_schema_free(avk_schema *schema)
{
    avki_arena arena;
    if (!schema)
        return;
    arena = schema->arena; /* the schema itself lives in the arena */
    avki_arena_destroy(&arena);
}
