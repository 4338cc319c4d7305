/* Read-only accessors of parsed schemas. */
#include <string.h>

#include "schema/schema_internal.h"

const char *avk_kind_name(avk_kind kind)
{
    static const char *const names[] = {"null",   "boolean", "int",   "long",   "float",
                                        "double", "bytes",   "string", "record", "enum",
                                        "array",  "map",     "union", "fixed"};
    return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : "unknown";
}

const char *avk_logical_name(avk_logical logical)
{
    static const char *const names[] = {"",
                                        "decimal",
                                        "uuid",
                                        "date",
                                        "time-millis",
                                        "time-micros",
                                        "timestamp-millis",
                                        "timestamp-micros",
                                        "timestamp-nanos",
                                        "local-timestamp-millis",
                                        "local-timestamp-micros",
                                        "local-timestamp-nanos",
                                        "duration"};
    return (unsigned)logical < sizeof names / sizeof names[0] ? names[logical] : "";
}

const avk_type *avk_schema_root(const avk_schema *schema)
{
    return schema->root;
}

const avk_type *avk_schema_find(const avk_schema *schema, const char *fullname)
{
    size_t i, k;
    for (i = 0; i < schema->named_count; i++)
        if (strcmp(schema->named[i]->fullname, fullname) == 0)
            return schema->named[i];
    for (i = 0; i < schema->named_count; i++)
        for (k = 0; k < schema->named[i]->alias_count; k++)
            if (strcmp(schema->named[i]->aliases[k], fullname) == 0)
                return schema->named[i];
    return NULL;
}

avk_kind avk_type_kind(const avk_type *t) { return t->kind; }

int avk_type_is_named(const avk_type *t)
{
    return t->kind == AVK_RECORD || t->kind == AVK_ENUM || t->kind == AVK_FIXED;
}

int avk_type_is_error(const avk_type *t) { return t->is_error; }
const char *avk_type_name(const avk_type *t) { return t->name; }
const char *avk_type_namespace(const avk_type *t) { return t->space; }
const char *avk_type_fullname(const avk_type *t) { return t->fullname; }
const char *avk_type_doc(const avk_type *t) { return t->doc; }
size_t avk_type_alias_count(const avk_type *t) { return t->alias_count; }

const char *avk_type_alias(const avk_type *t, size_t i)
{
    return i < t->alias_count ? t->aliases[i] : NULL;
}

size_t avk_type_field_count(const avk_type *t) { return t->field_count; }

const avk_field *avk_type_field(const avk_type *t, size_t i)
{
    return i < t->field_count ? &t->fields[i] : NULL;
}

const avk_field *avk_type_field_by_name(const avk_type *t, const char *name)
{
    size_t i;
    for (i = 0; i < t->field_count; i++)
        if (strcmp(t->fields[i].name, name) == 0)
            return &t->fields[i];
    return NULL;
}

const char *avk_field_name(const avk_field *f) { return f->name; }
const avk_type *avk_field_type(const avk_field *f) { return f->type; }
size_t avk_field_index(const avk_field *f) { return f->index; }
const char *avk_field_doc(const avk_field *f) { return f->doc; }
avk_order avk_field_order(const avk_field *f) { return f->order; }
size_t avk_field_alias_count(const avk_field *f) { return f->alias_count; }

const char *avk_field_alias(const avk_field *f, size_t i)
{
    return i < f->alias_count ? f->aliases[i] : NULL;
}

const char *avk_field_default(const avk_field *f) { return f->default_json; }
size_t avk_field_prop_count(const avk_field *f) { return f->prop_count; }

const char *avk_field_prop_key(const avk_field *f, size_t i)
{
    return i < f->prop_count ? f->props[i].key : NULL;
}

const char *avk_field_prop_value(const avk_field *f, size_t i)
{
    return i < f->prop_count ? f->props[i].json : NULL;
}

static const char *find_prop(const avki_prop *props, size_t count, const char *key)
{
    size_t i;
    for (i = 0; i < count; i++)
        if (strcmp(props[i].key, key) == 0)
            return props[i].json;
    return NULL;
}

const char *avk_field_prop(const avk_field *f, const char *key)
{
    return find_prop(f->props, f->prop_count, key);
}

size_t avk_type_symbol_count(const avk_type *t) { return t->symbol_count; }

const char *avk_type_symbol(const avk_type *t, size_t i)
{
    return i < t->symbol_count ? t->symbols[i] : NULL;
}

long avk_type_symbol_index(const avk_type *t, const char *symbol)
{
    size_t i;
    for (i = 0; i < t->symbol_count; i++)
        if (strcmp(t->symbols[i], symbol) == 0)
            return (long)i;
    return -1;
}

long avk_type_enum_default(const avk_type *t) { return t->enum_default; }

const avk_type *avk_type_items(const avk_type *t)
{
    return t->kind == AVK_ARRAY ? t->items : NULL;
}

const avk_type *avk_type_values(const avk_type *t)
{
    return t->kind == AVK_MAP ? t->items : NULL;
}

size_t avk_type_branch_count(const avk_type *t) { return t->branch_count; }

const avk_type *avk_type_branch(const avk_type *t, size_t i)
{
    return i < t->branch_count ? t->branches[i] : NULL;
}

size_t avk_type_fixed_size(const avk_type *t) { return t->kind == AVK_FIXED ? t->size : 0; }
avk_logical avk_type_logical(const avk_type *t) { return t->logical; }
int avk_type_decimal_precision(const avk_type *t) { return t->precision; }
int avk_type_decimal_scale(const avk_type *t) { return t->scale; }
size_t avk_type_prop_count(const avk_type *t) { return t->prop_count; }

const char *avk_type_prop_key(const avk_type *t, size_t i)
{
    return i < t->prop_count ? t->props[i].key : NULL;
}

const char *avk_type_prop_value(const avk_type *t, size_t i)
{
    return i < t->prop_count ? t->props[i].json : NULL;
}

const char *avk_type_prop(const avk_type *t, const char *key)
{
    return find_prop(t->props, t->prop_count, key);
}

const char *avki_type_label(const avk_type *t)
{
    return t->fullname ? t->fullname : avk_kind_name(t->kind);
}

const char *avki_union_branch_list(const avk_type *u, char *buf, size_t cap)
{
    size_t i, n = 0;
    buf[n++] = '[';
    for (i = 0; i < u->branch_count; i++) {
        const char *label = avki_type_label(u->branches[i]);
        size_t len = strlen(label);
        if (n + len + 2 + 5 > cap) {
            memcpy(buf + n, "...", 3);
            n += 3;
            break;
        }
        if (i) {
            memcpy(buf + n, ", ", 2);
            n += 2;
        }
        memcpy(buf + n, label, len);
        n += len;
    }
    buf[n++] = ']';
    buf[n] = '\0';
    return buf;
}
