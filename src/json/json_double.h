/* Number text for the Avro JSON writer: doubles and floats as the shortest text that reads back exactly, and integers. */
#ifndef AVK_JSON_JSON_DOUBLE_H
#define AVK_JSON_JSON_DOUBLE_H

#include <stddef.h>
#include <stdint.h>

/* Room avki_json_format_double and avki_json_format_long may use: the
 * longest texts are "-2.2250738585072014e-308" (24 bytes) and
 * "-9223372036854775808" (20 bytes). */
#define AVKI_JSON_NUMBER_MAX 32

/* Writes d at out (AVKI_JSON_NUMBER_MAX bytes of room, no NUL added) and
 * returns the length. The text is, byte for byte, what this rule gives:
 * NaN, Infinity and -Infinity as the quoted strings "NaN", "Infinity" and
 * "-Infinity"; any other value as the first of printf's %.15g, %.16g and
 * %.17g (C locale) that strtod reads back as exactly d, with ".0" added
 * when that text has no '.' and no 'e', so that it still reads as a
 * double ("1.0", "-0.0", "1e+300", "0.1", "5e-324" prints as
 * "4.94065645841247e-324").
 *
 * For normal numbers that text is the shortest correctly rounded decimal
 * that reads back as d, found with the Schubfach algorithm (R. Giulietti,
 * "The Schubfach way to render doubles", 2020) and laid out as %g does
 * with precision max(15, digits). Two rare classes, where the rule's
 * digits are not the shortest ones, take the printf path: subnormal
 * numbers (15 digits read back even when fewer would do) and powers of two
 * whose shortest digits number 16 (%.16g may round to the far side of
 * their narrower lower half-gap). No allocation, no global state;
 * thread-safe. */
size_t avki_json_format_double(char *out, double d);

/* Writes the float x at out (AVKI_JSON_NUMBER_MAX bytes of room, no NUL
 * added) and returns the length: the fewest significant digits that read
 * back (strtof) as exactly x, the one closest to x when several have
 * that many (what Java's Float.toString picks: 0.1f is "0.1", 640349.44f
 * is "640349.44", FLT_MIN "1.1754944e-38"), laid out as
 * avki_json_format_double lays out its digits: as %g does with precision
 * 15, ".0" added to whole numbers ("16777216.0", "1e+20", "1e-05",
 * "-0.0"); NaN and infinities as the same quoted strings. Schubfach again:
 * the double algorithm, with the float's 24-bit significand and rounding
 * interval. No allocation, no global state; thread-safe. */
size_t avki_json_format_float(char *out, float x);

/* Writes v in decimal at out (AVKI_JSON_NUMBER_MAX bytes of room, no NUL
 * added), as printf's %lld does, and returns the length. */
size_t avki_json_format_long(char *out, int64_t v);

#endif
