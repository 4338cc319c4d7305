/* The Avro JSON encoding of values, both ways. */
#ifndef AVROKIT_AVRO_JSON_H
#define AVROKIT_AVRO_JSON_H

#include "avrokit/status.h"
#include "avrokit/value.h"
#include "avrokit/writer.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AVK_JSON_PRETTY 0x1u /* newlines and two-space indentation */

/* Writes v in the Avro JSON encoding of the specification: records and
 * maps as objects (fields in schema order, map entries in order), arrays
 * as arrays, enums as their symbol, null unions as null and other unions
 * as {"<branch name>": value} (the full name of a named type, else the
 * type's name such as "string" or "array"), bytes and fixed as strings of
 * code points U+0000-U+00FF, one per byte. Floats are written as the
 * double they widen to, as C's %.15g when that reads back exactly, else
 * %.16g or %.17g (the shortest that does; ".0" added to whole numbers); NaN
 * and infinities, which JSON lacks, as the strings "NaN", "Infinity" and
 * "-Infinity" (as Apache Avro's tools write them). Logical types are
 * written as their underlying type. No newline at the end.
 * Returns AVK_OK; AVK_ERR_INVALID_ARGUMENT when v is malformed (no type,
 * union branch or enum index out of range, missing data); AVK_ERR_LIMIT
 * past 1024 levels of nesting; the writer's statuses. */
avk_status avk_value_write_json(const avk_value *v, unsigned flags, avk_writer *w, avk_error *err);

/* Reads one value of type t from the Avro JSON text json[0..len) (one
 * JSON value, as avk_value_write_json writes it: unions as null or
 * {"<branch name>": value}, where a named branch may also be given by its
 * simple name; bytes and fixed as strings of code points up to U+00FF;
 * floats and doubles as numbers or "NaN", "Infinity", "-Infinity"). A
 * record field missing from the object takes the field's default; a field
 * the schema does not have is an error. Everything, strings included,
 * lives in arena until it is reset. Returns AVK_OK; AVK_ERR_MALFORMED for
 * JSON syntax (err->message has line and column) or text that does not
 * fit the schema (err->path says where, err->offset the byte); AVK_ERR_LIMIT
 * for nesting past 512; AVK_ERR_NO_MEMORY; AVK_ERR_INVALID_ARGUMENT for
 * NULL arguments. Read a file of one record per line by calling this per
 * line: memory stays that of one record. */
avk_status avk_value_read_json(const avk_type *t, const char *json, size_t len, avk_arena *arena,
                               avk_value *out, avk_error *err);

#ifdef __cplusplus
}
#endif
#endif
