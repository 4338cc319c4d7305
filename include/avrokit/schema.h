/* Avro schemas: parse and validate JSON, inspect every attribute, canonical form, fingerprints. */
#ifndef AVROKIT_SCHEMA_H
#define AVROKIT_SCHEMA_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "avrokit/alloc.h"
#include "avrokit/macros.h"
#include "avrokit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

struct avk_writer;

/* A parsed schema: immutable, owns all its memory, freed with one call,
 * and safe to share between threads once parsed. */
typedef struct avk_schema avk_schema;
/* A node of a schema (the root, a field's type, array items, ...). Valid
 * as long as its schema. */
typedef struct avk_type avk_type;
/* A record field. */
typedef struct avk_field avk_field;

typedef enum avk_kind {
    AVK_NULL,
    AVK_BOOLEAN,
    AVK_INT,
    AVK_LONG,
    AVK_FLOAT,
    AVK_DOUBLE,
    AVK_BYTES,
    AVK_STRING,
    AVK_RECORD, /* also "error" records: see avk_type_is_error */
    AVK_ENUM,
    AVK_ARRAY,
    AVK_MAP,
    AVK_UNION,
    AVK_FIXED
} avk_kind;

/* The logical type that applied. An invalid or unknown logicalType falls
 * back to the underlying type (AVK_LOGICAL_NONE), as the specification
 * says; the attribute is then kept as an ordinary property. */
typedef enum avk_logical {
    AVK_LOGICAL_NONE,
    AVK_LOGICAL_DECIMAL,                /* bytes or fixed; precision, scale */
    AVK_LOGICAL_UUID,                   /* string or fixed(16) */
    AVK_LOGICAL_DATE,                   /* int: days since 1970-01-01 */
    AVK_LOGICAL_TIME_MILLIS,            /* int */
    AVK_LOGICAL_TIME_MICROS,            /* long */
    AVK_LOGICAL_TIMESTAMP_MILLIS,       /* long */
    AVK_LOGICAL_TIMESTAMP_MICROS,       /* long */
    AVK_LOGICAL_TIMESTAMP_NANOS,        /* long */
    AVK_LOGICAL_LOCAL_TIMESTAMP_MILLIS, /* long */
    AVK_LOGICAL_LOCAL_TIMESTAMP_MICROS, /* long */
    AVK_LOGICAL_LOCAL_TIMESTAMP_NANOS,  /* long */
    AVK_LOGICAL_DURATION                /* fixed(12) */
} avk_logical;

typedef enum avk_order { AVK_ORDER_ASCENDING, AVK_ORDER_DESCENDING, AVK_ORDER_IGNORE } avk_order;

typedef struct avk_schema_options {
    size_t struct_size;   /* sizeof(avk_schema_options) */
    size_t max_depth;     /* nesting of types; 0 means 128; at most 512 (types are
                             parsed recursively: deeper would risk the C stack) */
    size_t max_size;      /* bytes of JSON text; 0 means 64 MiB */
    size_t max_memory;    /* bytes the parsed schema may use; 0 means 256 MiB */
    const avk_allocator *allocator; /* NULL means the C library */
} avk_schema_options;

/* Sets every field of *o to its default (zero: the library's defaults) and
 * struct_size to sizeof *o as this header defines it. Inline, so the size
 * is the caller's: the idiom that compiles without warnings:
 *
 *     avk_schema_options o;
 *     avk_schema_options_init(&o);
 */
static inline void avk_schema_options_init(avk_schema_options *o)
{
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
}

/* Parses and validates a schema from JSON text json[0..len) (a JSON
 * string naming a primitive or a defined type, an object, or an array for
 * a union). opts may be NULL. On success *out owns everything; free it with
 * avk_schema_free. Returns AVK_OK; AVK_ERR_SCHEMA for an invalid schema
 * (err->path is the path from the root, e.g. "User.fields[3].type", and
 * err->message says what is wrong, prefixed by the path); AVK_ERR_MALFORMED
 * for JSON syntax errors (message "line L, column C: ..."); AVK_ERR_LIMIT
 * when max_depth, max_size or max_memory is passed; AVK_ERR_NO_MEMORY;
 * AVK_ERR_INVALID_ARGUMENT for NULL arguments or a bad options size.
 *
 *     avk_schema *s;
 *     avk_error err;
 *     if (avk_schema_parse(text, strlen(text), NULL, &s, &err) != AVK_OK)
 *         fprintf(stderr, "%s\n", err.message);
 */
AVK_EXPORT avk_status avk_schema_parse(const char *json, size_t len, const avk_schema_options *opts,
                                       avk_schema **out, avk_error *err);

/* Frees the schema and everything in it. NULL is ignored. */
AVK_EXPORT void avk_schema_free(avk_schema *schema);

/* The root type. */
AVK_EXPORT const avk_type *avk_schema_root(const avk_schema *schema);

/* The named type (record, enum, fixed) with this full name, or an alias
 * of it; NULL when none. */
AVK_EXPORT const avk_type *avk_schema_find(const avk_schema *schema, const char *fullname);

/* Names: "null", "boolean", ..., "record", "enum", "array", "map",
 * "union", "fixed"; and "decimal", "uuid", "date", "time-millis", ... for
 * logical types ("" for AVK_LOGICAL_NONE). Static strings. */
AVK_EXPORT const char *avk_kind_name(avk_kind kind);
AVK_EXPORT const char *avk_logical_name(avk_logical logical);

AVK_EXPORT avk_kind avk_type_kind(const avk_type *t);
AVK_EXPORT int avk_type_is_named(const avk_type *t); /* record, enum or fixed */
AVK_EXPORT int avk_type_is_error(const avk_type *t); /* a record declared as "error" */

/* Named types: the simple name, the namespace ("" for the null
 * namespace), the full name, doc (NULL when absent), and aliases as full
 * names. NULL / 0 for other types. */
AVK_EXPORT const char *avk_type_name(const avk_type *t);
AVK_EXPORT const char *avk_type_namespace(const avk_type *t);
AVK_EXPORT const char *avk_type_fullname(const avk_type *t);
AVK_EXPORT const char *avk_type_doc(const avk_type *t);
AVK_EXPORT size_t avk_type_alias_count(const avk_type *t);
AVK_EXPORT const char *avk_type_alias(const avk_type *t, size_t i);

/* Records. */
AVK_EXPORT size_t avk_type_field_count(const avk_type *t);
AVK_EXPORT const avk_field *avk_type_field(const avk_type *t, size_t i);
AVK_EXPORT const avk_field *avk_type_field_by_name(const avk_type *t, const char *name);

AVK_EXPORT const char *avk_field_name(const avk_field *f);
AVK_EXPORT const avk_type *avk_field_type(const avk_field *f);
AVK_EXPORT size_t avk_field_index(const avk_field *f);
AVK_EXPORT const char *avk_field_doc(const avk_field *f);
AVK_EXPORT avk_order avk_field_order(const avk_field *f);
AVK_EXPORT size_t avk_field_alias_count(const avk_field *f);
AVK_EXPORT const char *avk_field_alias(const avk_field *f, size_t i);
/* The default as compact JSON text (validated against the field's type;
 * for a union, against its first branch), or NULL when there is none. */
AVK_EXPORT const char *avk_field_default(const avk_field *f);
AVK_EXPORT size_t avk_field_prop_count(const avk_field *f);
AVK_EXPORT const char *avk_field_prop_key(const avk_field *f, size_t i);
AVK_EXPORT const char *avk_field_prop_value(const avk_field *f, size_t i); /* compact JSON text */
AVK_EXPORT const char *avk_field_prop(const avk_field *f, const char *key); /* NULL when absent */

/* Enums: symbols in order, the index of a symbol (-1 when absent), and the
 * default symbol's index (-1 when none). */
AVK_EXPORT size_t avk_type_symbol_count(const avk_type *t);
AVK_EXPORT const char *avk_type_symbol(const avk_type *t, size_t i);
AVK_EXPORT long avk_type_symbol_index(const avk_type *t, const char *symbol);
AVK_EXPORT long avk_type_enum_default(const avk_type *t);

/* Arrays: the item type. Maps: the value type. NULL for other types. */
AVK_EXPORT const avk_type *avk_type_items(const avk_type *t);
AVK_EXPORT const avk_type *avk_type_values(const avk_type *t);

/* Unions. */
AVK_EXPORT size_t avk_type_branch_count(const avk_type *t);
AVK_EXPORT const avk_type *avk_type_branch(const avk_type *t, size_t i);

/* Fixed: the size in bytes (0 for other types). */
AVK_EXPORT size_t avk_type_fixed_size(const avk_type *t);

/* Logical type that applied, and decimal's parameters (scale 0 when absent). */
AVK_EXPORT avk_logical avk_type_logical(const avk_type *t);
AVK_EXPORT int avk_type_decimal_precision(const avk_type *t);
AVK_EXPORT int avk_type_decimal_scale(const avk_type *t);

/* Every other attribute of a type, in document order, as compact JSON
 * text; attributes the specification defines are not properties. */
AVK_EXPORT size_t avk_type_prop_count(const avk_type *t);
AVK_EXPORT const char *avk_type_prop_key(const avk_type *t, size_t i);
AVK_EXPORT const char *avk_type_prop_value(const avk_type *t, size_t i);
AVK_EXPORT const char *avk_type_prop(const avk_type *t, const char *key);

/* Writes the Parsing Canonical Form of t (as the specification defines it;
 * an "error" record is written as "record", as Java does) to w. Returns
 * AVK_OK, the writer's status, or AVK_ERR_NO_MEMORY. */
AVK_EXPORT avk_status avk_type_write_canonical(const avk_type *t, struct avk_writer *w,
                                               avk_error *err);

/* Writes t as full JSON, keeping every attribute and property; named types
 * after their first appearance are written by name. pretty: 0 compact, else
 * indented by 2. Parsing the output gives an equal schema. Returns AVK_OK,
 * the writer's status, or AVK_ERR_NO_MEMORY. */
AVK_EXPORT avk_status avk_type_write_json(const avk_type *t, int pretty, struct avk_writer *w,
                                          avk_error *err);

typedef enum avk_fingerprint_algo {
    AVK_FINGERPRINT_RABIN,  /* CRC-64-AVRO: 8 bytes, little-endian */
    AVK_FINGERPRINT_MD5,    /* 16 bytes */
    AVK_FINGERPRINT_SHA256  /* 32 bytes */
} avk_fingerprint_algo;

/* The fingerprint of t's Parsing Canonical Form into out (room for 32
 * bytes); *len receives its length. Returns AVK_OK, AVK_ERR_NO_MEMORY,
 * AVK_ERR_INVALID_ARGUMENT, or AVK_ERR_UNSUPPORTED for MD5 and SHA-256 in
 * a build without nettle (avk_fingerprint_available). */
AVK_EXPORT avk_status avk_type_fingerprint(const avk_type *t, avk_fingerprint_algo algo,
                                           uint8_t out[32], size_t *len, avk_error *err);

/* 1 when avk_type_fingerprint computes algo in this build, else 0: Rabin
 * always; MD5 and SHA-256 come from nettle (the AVK_WITH_NETTLE CMake
 * option). */
AVK_EXPORT int avk_fingerprint_available(avk_fingerprint_algo algo);

/* CRC-64-AVRO (the Rabin fingerprint of the specification) of any bytes;
 * the value whose little-endian bytes the Rabin fingerprint is. */
AVK_EXPORT uint64_t avk_rabin64(const void *data, size_t len);

/* 1 when a and b are the same schema: equal canonical forms and equal
 * attributes (docs, aliases, defaults, orders, logical types, properties in
 * any order); "int" and {"type": "int"} are equal. Two NULLs are equal.
 * Returns 0 when they differ, and also if memory runs out while comparing
 * large recursive schemas. */
AVK_EXPORT int avk_type_equal(const avk_type *a, const avk_type *b);

#ifdef __cplusplus
}
#endif
#endif
