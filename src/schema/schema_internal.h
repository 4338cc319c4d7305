/* The schema's in-memory form, shared by the parser, the writers and later layers. */
#ifndef AVK_SCHEMA_INTERNAL_H
#define AVK_SCHEMA_INTERNAL_H

#include <stddef.h>

#include "avrokit/schema.h"
#include "common/arena.h"
#include "json/json.h"

/* An attribute kept as a property: key and compact JSON text, plus the
 * parsed value. */
typedef struct avki_prop {
    const char *key;
    const char *json; /* compact JSON text, NUL-terminated */
    const avki_json *value;
} avki_prop;

struct avk_field {
    const char *name;
    const char *doc;          /* NULL when absent */
    const avk_type *type;
    size_t index;
    avk_order order;
    const char **aliases;     /* as written (field aliases are simple names) */
    size_t alias_count;
    const avki_json *default_value; /* NULL when absent; validated */
    const char *default_json;       /* compact text of default_value, or NULL */
    avki_prop *props;
    size_t prop_count;
};

struct avk_type {
    avk_kind kind;
    avk_logical logical;
    int precision, scale; /* decimal */
    int is_error;         /* record declared with "type": "error" */

    /* Named types. */
    const char *name;      /* simple name */
    const char *space;     /* namespace, "" for the null namespace */
    const char *fullname;
    const char *doc;       /* NULL when absent */
    const char **aliases;  /* full names */
    size_t alias_count;

    /* Records. */
    avk_field *fields;
    size_t field_count;

    /* Enums. */
    const char **symbols;
    size_t symbol_count;
    long enum_default; /* -1 when none */

    /* Arrays (items) and maps (values). */
    const avk_type *items;

    /* Unions. */
    const avk_type **branches;
    size_t branch_count;

    /* Fixed. */
    size_t size;

    /* Everything else, in document order. */
    avki_prop *props;
    size_t prop_count;

    /* A primitive written as a bare name ("int") rather than an object
     * ({"type": "int"}): the JSON writer keeps the short form. */
    int bare;
};

struct avk_schema {
    avki_arena arena;    /* owns every node, string and the JSON tree */
    const avk_type *root;
    avk_type **named;    /* every named type, in definition order */
    size_t named_count;
};

/* Shared, immutable nodes for the primitives written as bare names. */
const avk_type *avki_primitive(avk_kind kind);

/* The name messages use for a type: its full name when named, else its
 * kind ("long", "array"). */
const char *avki_type_label(const avk_type *t);

/* Room for avki_union_branch_list's text in messages. */
#define AVKI_BRANCH_LIST_MAX 160

/* "[null, string, ns.User]": a union's branches for messages, written to
 * buf (cap bytes, at least 8) and cut short with "..." when they do not fit;
 * returns buf. */
const char *avki_union_branch_list(const avk_type *u, char *buf, size_t cap);

#endif
