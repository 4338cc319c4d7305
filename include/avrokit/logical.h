/* Logical types: decimals, UUIDs, dates, times, timestamps and durations to and from text and parts. */
#ifndef AVROKIT_LOGICAL_H
#define AVROKIT_LOGICAL_H

#include <stddef.h>
#include <stdint.h>

#include "avrokit/macros.h"
#include "avrokit/schema.h"
#include "avrokit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* These helpers work on the values the decoder produces (avk_value: the
 * underlying int, long, bytes or fixed) and give the caller the parts or
 * the text. They allocate nothing, never print, and are safe to call from
 * any thread. Text output is NUL-terminated; a buffer too small gives
 * AVK_ERR_LIMIT, and an output buffer's contents are unspecified after any
 * error unless the function says otherwise. A NULL pointer argument gives
 * AVK_ERR_INVALID_ARGUMENT. */

/* ---- decimal: bytes or fixed holding the unscaled integer ----------------
 * The value is unscaled * 10^-scale, where unscaled is the big-endian
 * two's-complement integer in the bytes (any length; 0 bytes mean 0) and
 * scale comes from the type (avk_type_decimal_scale). */

/* Most significant bytes (after dropping leading sign-extension bytes) the
 * decimal text conversions take: the work grows with the square of the
 * length, so hostile data must not choose it. 2048 bytes are 4933 digits,
 * far beyond the 38 digits of the usual decimal(38, s). */
#define AVK_DECIMAL_MAX_BYTES 2048

/* Writes the decimal as plain text into buf: an optional '-', the integer
 * digits (at least "0"), and when scale > 0 a '.' followed by exactly
 * scale digits. Bytes 0x7a 0xb7 with scale 4 give "3.1415"; 0x01 gives
 * "0.0001"; 0x85 0x49 gives "-3.1415". *out_len (may be NULL) receives the
 * text's length without the NUL. Returns AVK_OK; AVK_ERR_LIMIT when buf
 * cannot hold the text and its NUL (*out_len then gets the length needed)
 * or when the integer has more than AVK_DECIMAL_MAX_BYTES significant
 * bytes; AVK_ERR_INVALID_ARGUMENT when scale is negative. */
AVK_EXPORT avk_status avk_decimal_to_string(const uint8_t *unscaled, size_t len, int scale,
                                            char *buf, size_t cap, size_t *out_len);

/* Parses text[0..len): an optional '+' or '-', digits, and optionally '.'
 * and more digits (at least one digit in all; no exponent, no spaces), as a
 * decimal of the given scale, into the shortest big-endian two's-complement
 * unscaled integer (at least one byte: 0 is 0x00) in out[0..*out_len).
 * "3.1415" at scale 4 gives 0x7a 0xb7; "3.14" at scale 4 gives 31400.
 * Returns AVK_OK; AVK_ERR_INVALID_ARGUMENT for bad text, a negative scale,
 * or more fractional digits than scale (rounding is the caller's choice);
 * AVK_ERR_LIMIT when out[0..cap) cannot hold the integer or the text has
 * more than 4 * AVK_DECIMAL_MAX_BYTES digits. */
AVK_EXPORT avk_status avk_decimal_from_string(const char *text, size_t len, int scale, uint8_t *out,
                                              size_t cap, size_t *out_len);

/* Sign-extends the unscaled integer unscaled[0..len) to exactly n bytes in
 * out, as a decimal on fixed(n) stores it; out may not overlap unscaled.
 * Returns AVK_OK, or AVK_ERR_LIMIT when the integer does not fit in n
 * bytes (out is then untouched). */
AVK_EXPORT avk_status avk_decimal_to_fixed(const uint8_t *unscaled, size_t len, uint8_t *out,
                                           size_t n);

/* ---- uuid: string (36 characters) or fixed(16) ---------------------------- */

#define AVK_UUID_STRING_SIZE 37 /* 36 characters and the NUL */

/* The canonical text of 16 bytes: 8-4-4-4-12 lower-case hex digits with
 * hyphens, NUL-terminated. Returns AVK_OK (or AVK_ERR_INVALID_ARGUMENT for
 * NULL). */
AVK_EXPORT avk_status avk_uuid_format(const uint8_t bytes[16], char out[AVK_UUID_STRING_SIZE]);

/* Parses the canonical form text[0..len) (exactly 36 characters, hex
 * digits of either case, hyphens after 8, 12, 16 and 20 digits) into
 * out. Returns AVK_OK or AVK_ERR_INVALID_ARGUMENT. */
AVK_EXPORT avk_status avk_uuid_parse(const char *text, size_t len, uint8_t out[16]);

/* ---- date: int days since 1970-01-01 -------------------------------------
 * Proleptic Gregorian calendar over the whole int32 range (years -5877641
 * to 5881580); year 0 is 1 BC, -1 is 2 BC. */

#define AVK_DATE_STRING_SIZE 16 /* "-5877641-06-23" and the NUL */

/* The calendar date of days: *year, *month (1-12), *day (1-31). */
AVK_EXPORT avk_status avk_date_to_civil(int32_t days, int *year, unsigned *month, unsigned *day);

/* Days since 1970-01-01 of a calendar date. Returns AVK_OK;
 * AVK_ERR_INVALID_ARGUMENT when month or day is out of range for that
 * month (February 29 only in leap years); AVK_ERR_LIMIT when the date lies
 * outside the int32 range. */
AVK_EXPORT avk_status avk_date_from_civil(int year, unsigned month, unsigned day, int32_t *days);

/* ISO 8601 text "YYYY-MM-DD". Years before 0 are written with '-' and years
 * after 9999 with '+' (at least 4 digits either way): "-0001-01-01",
 * "+10000-01-01". Returns AVK_OK or AVK_ERR_LIMIT (cap). */
AVK_EXPORT avk_status avk_date_format(int32_t days, char *buf, size_t cap);

/* ---- time of day: time-millis (int), time-micros (long) ------------------ */

#define AVK_TIME_STRING_SIZE 16 /* "23:59:59.999999" and the NUL */

/* "HH:MM:SS.sss" (time-millis) or "HH:MM:SS.ssssss" (time-micros): always
 * every digit of the unit. unit is AVK_LOGICAL_TIME_MILLIS or
 * AVK_LOGICAL_TIME_MICROS. Returns AVK_OK; AVK_ERR_INVALID_ARGUMENT for
 * another unit or a value outside one day [0, 24 h); AVK_ERR_LIMIT (cap). */
AVK_EXPORT avk_status avk_time_format(int64_t value, avk_logical unit, char *buf, size_t cap);

/* ---- timestamps: long since 1970-01-01T00:00:00 ---------------------------
 * unit is one of AVK_LOGICAL_TIMESTAMP_{MILLIS,MICROS,NANOS} (UTC) or
 * AVK_LOGICAL_LOCAL_TIMESTAMP_{MILLIS,MICROS,NANOS} (a wall-clock time in
 * no particular zone); the calendar is the proleptic Gregorian one. */

#define AVK_TIMESTAMP_STRING_SIZE 40 /* longest: "-292275055-05-16T16:47:04.192Z" */

/* Splits value by floor division, so times before 1970 have a positive
 * time of day: *days since 1970-01-01, *seconds (0-86399) into that day,
 * and *fraction of the second in the unit (0-999, 0-999999 or
 * 0-999999999). -1 ms gives days -1, seconds 86399, fraction 999. Any
 * pointer but days may be NULL. Returns AVK_OK or AVK_ERR_INVALID_ARGUMENT
 * (unit). */
AVK_EXPORT avk_status avk_timestamp_split(int64_t value, avk_logical unit, int64_t *days,
                                          uint32_t *seconds, uint32_t *fraction);

/* The inverse of avk_timestamp_split. Returns AVK_OK;
 * AVK_ERR_INVALID_ARGUMENT for a bad unit, seconds > 86399 or a fraction
 * too large for the unit; AVK_ERR_LIMIT when the result leaves int64. */
AVK_EXPORT avk_status avk_timestamp_join(int64_t days, uint32_t seconds, uint32_t fraction,
                                         avk_logical unit, int64_t *value);

/* ISO 8601 text: the date as avk_date_format, 'T', the time with every
 * digit of the unit, and 'Z' for UTC timestamps (none for local ones):
 * -1 at timestamp-millis is "1969-12-31T23:59:59.999Z"; 0 at
 * local-timestamp-micros is "1970-01-01T00:00:00.000000". Returns AVK_OK;
 * AVK_ERR_INVALID_ARGUMENT (unit); AVK_ERR_LIMIT (cap). */
AVK_EXPORT avk_status avk_timestamp_format(int64_t value, avk_logical unit, char *buf, size_t cap);

/* ---- duration: fixed(12) ---------------------------------------------------
 * Three little-endian unsigned 32-bit integers: months, days, milliseconds
 * (independent quantities: a month is not a number of days). */

/* Reads the three counts; any output pointer may be NULL. Returns AVK_OK
 * (or AVK_ERR_INVALID_ARGUMENT when bytes is NULL). */
AVK_EXPORT avk_status avk_duration_decode(const uint8_t bytes[12], uint32_t *months, uint32_t *days,
                                          uint32_t *millis);

/* Writes the three counts. Returns AVK_OK (or AVK_ERR_INVALID_ARGUMENT
 * when out is NULL). */
AVK_EXPORT avk_status avk_duration_encode(uint32_t months, uint32_t days, uint32_t millis,
                                          uint8_t out[12]);

#ifdef __cplusplus
}
#endif
#endif
