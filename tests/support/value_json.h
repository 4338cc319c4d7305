/* Test-only conversion between cJSON trees and avk_value, in the conventions of the apache interop tables. */
#ifndef AVKT_VALUE_JSON_H
#define AVKT_VALUE_JSON_H

#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>

#include "avrokit/arena.h"
#include "avrokit/schema.h"
#include "avrokit/value.h"

/* The JSON form of a datum, as tables/py_io_schema_datum_binary.json writes
 * it (MANIFEST.md), plus a few forms of our own for exact tests:
 *
 *   null, boolean         null, true / false
 *   int, long             a number; {"$long": "-9223372036854775808"} for
 *                         values a double cannot hold
 *   date                  {"$date": "2000-01-01"} (also a plain number)
 *   time-millis/-micros   {"$time": "23:59:59.999000"}
 *   timestamp-*           {"$datetime": "2000-01-18T02:02:01.1+10:00"}
 *                         (local-timestamp-* too, offset optional)
 *   float, double         a number, "NaN", "Infinity", "-Infinity", or
 *                         {"$float_bits": "7fc00001"} / {"$double_bits":
 *                         "8000000000000000"} for exact bit patterns
 *   bytes, fixed          {"$bytes_hex": "00ff"}
 *   decimal               {"$decimal": "-3.1415"} (bytes: the shortest
 *                         two's complement as python3-avro writes it;
 *                         fixed: sign-extended to the size)
 *   string                a string (no NUL inside: cJSON's limit)
 *   enum                  the symbol
 *   array, map            an array, an object (keys in order)
 *   record                an object by field name; a missing field is null
 *   union                 the branch's value: the first branch it validates
 *                         against, as python3-avro picks it; or
 *                         {"$branch": 2, "$value": ...} to choose */

/* Fills *v as a value of type t from j, with storage from arena (the
 * public layout of value.h, built directly so these tests do not depend on
 * avk_value_init). Returns 1, or 0 with the reason and JSON path in why. */
int avkt_value_from_json(avk_value *v, const avk_type *t, const cJSON *j, avk_arena *arena,
                         char *why, size_t why_len);

/* The same from JSON text. */
int avkt_value_from_text(avk_value *v, const avk_type *t, const char *text, avk_arena *arena,
                         char *why, size_t why_len);

/* 1 when j is a datum of t by python3-avro's validate rules (how union
 * branches are chosen). */
int avkt_json_validates(const avk_type *t, const cJSON *j);

/* A new tree for v (free with cJSON_Delete) in the forms above, logical
 * types shown as such, exact: int64 beyond 2^53 as $long, non-finite and
 * negative-zero floats as $float_bits/$double_bits. NULL when v is not
 * well formed for its type (a bad enum index, union branch, ...). Two
 * values with the same text hold the same data. */
cJSON *avkt_value_to_json(const avk_value *v);

/* malloc'd compact text of avkt_value_to_json(v), "<malformed value>" when
 * it fails. */
char *avkt_value_to_text(const avk_value *v);

/* Decimal text ("-3.1415") scaled by scale to a big-endian two's
 * complement integer: fixed_size 0 gives python3-avro's bytes form
 * (bit length of the magnitude + 1, rounded up to bytes), else the value
 * sign-extended to fixed_size bytes. Returns 1, 0 when the text is not a
 * decimal, has more fraction digits than scale, or does not fit cap (or
 * fixed_size). */
int avkt_decimal_encode(const char *text, int scale, size_t fixed_size, uint8_t *out, size_t cap,
                        size_t *len);

/* The decimal text of the unscaled integer b[0..len) with scale
 * ("-3.1415", "0.00", "3"); 0 when cap is too small. */
int avkt_decimal_text(const uint8_t *b, size_t len, int scale, char *out, size_t cap);

/* "YYYY-MM-DD" to days since 1970-01-01 (proleptic Gregorian). */
int avkt_parse_date(const char *s, int64_t *days);
/* "HH:MM:SS[.f...]" to nanoseconds since midnight. */
int avkt_parse_time(const char *s, int64_t *nanos);
/* "YYYY-MM-DDTHH:MM:SS[.f...][+HH:MM|-HH:MM|Z]" to seconds and
 * nanoseconds (0..999999999) since the epoch in UTC. */
int avkt_parse_datetime(const char *s, int64_t *seconds, int32_t *nanos);

#endif
