/* The Avro JSON encoding of values, both ways. */
#ifndef AVROKIT_AVRO_JSON_H
#define AVROKIT_AVRO_JSON_H

#include <string.h>

#include "avrokit/macros.h"
#include "avrokit/plan.h"
#include "avrokit/status.h"
#include "avrokit/value.h"
#include "avrokit/writer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writing flags. */
#define AVK_JSON_PRETTY 0x1u               /* newlines and two-space indentation */
#define AVK_JSON_REPLACE_INVALID_UTF8 0x2u /* a string or map key that is not UTF-8:
                                              U+FFFD for each maximal invalid
                                              subpart (Unicode's "substitution of
                                              maximal subparts"), not an error */

typedef struct avk_json_write_options {
    size_t struct_size; /* sizeof(avk_json_write_options) */
    unsigned flags;     /* AVK_JSON_PRETTY, AVK_JSON_REPLACE_INVALID_UTF8 */
    size_t max_depth;   /* nesting of records, arrays, maps and unions (each one
                           level, as the binary decoder counts); 0 means
                           AVK_DEFAULT_MAX_DEPTH */
} avk_json_write_options;

/* Sets every field of *o to its default (zero: the library's defaults) and
 * struct_size to sizeof *o as this header defines it. Inline, so the size
 * is the caller's: the idiom that compiles without warnings:
 *
 *     avk_json_write_options o;
 *     avk_json_write_options_init(&o);
 */
static inline void avk_json_write_options_init(avk_json_write_options *o)
{
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
}

/* Writes v in the Avro JSON encoding of the specification: records and
 * maps as objects (fields in schema order, map entries in order), arrays
 * as arrays, enums as their symbol, null unions as null and other unions
 * as {"<branch name>": value} (the full name of a named type, else the
 * type's name such as "string" or "array"), bytes and fixed as strings of
 * code points U+0000-U+00FF, one per byte (any bytes), strings and map
 * keys as they are (they must be UTF-8: JSON text is). Doubles are
 * written as the first of C's %.15g, %.16g, %.17g that reads back
 * exactly; floats in the fewest significant digits that read back
 * (strtof) as exactly the float, as Java prints them (0.1f as "0.1",
 * 640349.44f as "640349.44", not the double they widen to); both with
 * the %g layout of precision 15 ("1e+20", "1e-05") and ".0" added to
 * whole numbers; NaN and infinities, which JSON lacks, as the strings
 * "NaN", "Infinity" and "-Infinity" (as Apache Avro's tools write them).
 * Logical types are written as their underlying type. No newline at the
 * end. opts may be NULL (compact, default depth).
 *
 * Any depth: no recursion; a level of nesting costs 16 bytes of the
 * writer's allocator beyond the first 64 (a 10^6-level value 16 MB).
 *
 * Returns AVK_OK, or with err->path the value path to the problem
 * ("LongList.fields[1].branch[1]...") and err->message the path by name
 * and the reason ("LongList.next.branch[1].value: ..."):
 * - AVK_ERR_MALFORMED: a string or map key that is not UTF-8 (the message
 *   gives its length, the bad bytes and their position), unless
 *   AVK_JSON_REPLACE_INVALID_UTF8;
 * - AVK_ERR_INVALID_ARGUMENT: v is malformed (no type, union branch or
 *   enum index out of range, missing data, a fixed of the wrong size);
 *   also for NULL v or w and a bad struct_size (no path then);
 * - AVK_ERR_LIMIT: nesting deeper than max_depth;
 * - AVK_ERR_NO_MEMORY: the stack beyond 64 levels could not be allocated;
 * - the writer's statuses (AVK_ERR_LIMIT for a full memory writer, a
 *   sink's error), with no path.
 * After a value error (MALFORMED, INVALID_ARGUMENT, the depth LIMIT)
 * nothing of v stays in a memory writer, nor in a stream writer that has
 * not flushed since the call began (it has, when v's text outgrew its
 * buffer: the destination then holds the start of v). Reentrant. */
AVK_EXPORT avk_status avk_value_write_json_opts(const avk_value *v,
                                                const avk_json_write_options *opts, avk_writer *w,
                                                avk_error *err);

/* avk_value_write_json_opts with flags and the default depth. */
AVK_EXPORT avk_status avk_value_write_json(const avk_value *v, unsigned flags, avk_writer *w,
                                           avk_error *err);

/* Reading flags. */
/* Read the first value of the text; more may follow it. *used gets the
 * bytes up to the end of the value (the white space after it is left).
 * When the text holds no complete value (nothing but white space, or a
 * value its end cuts: "{\"a\":", "12" which may go on as "123"), the
 * call returns AVK_ERR_TRUNCATED with *used the white space before the
 * value, which the caller may drop before calling again with more text. */
#define AVK_JSON_FIRST_VALUE 0x10u
/* With AVK_JSON_FIRST_VALUE: the text ends the input, so a number at its
 * end is whole and a value its end cuts is AVK_ERR_MALFORMED ("expected
 * ..., found end of input"). White space alone stays AVK_ERR_TRUNCATED:
 * no value is left. */
#define AVK_JSON_LAST_TEXT 0x20u

typedef struct avk_json_read_options {
    size_t struct_size; /* sizeof(avk_json_read_options) */
    unsigned flags;     /* AVK_JSON_FIRST_VALUE, AVK_JSON_LAST_TEXT */
    /* 0 in any field means its default, the same as a plan's:
     * max_depth       nesting of records, arrays, maps and unions, each one
     *                 level (the JSON text may nest as deep: each of its
     *                 arrays and objects is one of them); AVK_DEFAULT_MAX_DEPTH
     * max_bytes       bytes of one string, bytes or fixed value; 256 MiB
     * max_items       items of one array or entries of one map; 64 Mi
     * max_memory      arena bytes the call may take, the parsed text and
     *                 the value (with their scratch); 1 GiB
     * max_empty_items is not used (JSON items cost text). */
    avk_limits limits;
    /* Where json[0] lies in the whole input, for messages and err->offset
     * (a caller reading a stream piece by piece keeps them): */
    uint64_t offset; /* byte offset; 0 */
    uint64_t line;   /* line, from 1; 0 means 1 */
    uint64_t column; /* column (bytes) on that line, from 1; 0 means 1 */
} avk_json_read_options;

/* Sets every field of *o to its default (zero: the library's defaults) and
 * struct_size to sizeof *o as this header defines it. Inline, so the size
 * is the caller's: the idiom that compiles without warnings:
 *
 *     avk_json_read_options o;
 *     avk_json_read_options_init(&o);
 */
static inline void avk_json_read_options_init(avk_json_read_options *o)
{
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
}

/* Reads one value of type t from the Avro JSON text json[0..len) (as
 * avk_value_write_json writes it: unions as null or {"<branch name>":
 * value}, where a named branch may also be given by its simple name;
 * bytes and fixed as strings of code points up to U+00FF; floats and
 * doubles as numbers or "NaN", "Infinity", "-Infinity", floats rounded
 * once, as strtof reads the number). A record field missing from the
 * object takes the field's default; a member the schema does not have is
 * an error; of a repeated member the first counts. Without
 * AVK_JSON_FIRST_VALUE the text is one value with optional white space
 * around it; with it, see above (used must then not be NULL; else it may
 * be, and gets the bytes read, len). Everything, strings included, lives
 * in arena until it is reset. opts may be NULL (defaults, whole text).
 *
 * Any depth up to max_depth: no recursion; depth costs heap, from arena's
 * allocator within max_memory: about 260 bytes a level at the peak (the
 * parsed text's tree, the parser's scratch, the walker's stack), so a
 * 500,000-node linked list (10^6 levels, 18 MB of text) takes 280 MB. A
 * 10^7-level hostile input stops at max_depth + 1 levels (the default:
 * in about 0.1 s and 80 MB).
 *
 * Returns AVK_OK, or:
 * - AVK_ERR_MALFORMED: JSON syntax, or text that does not fit the schema.
 *   Messages start with the place: "line L, column C: ..." for syntax,
 *   "<path>: line L, column C: ..." for the schema (err->path has the
 *   path by index, "LongList.fields[1].branch[1]", the message by name,
 *   "LongList.next.branch[1]", both shortened in the middle past 255
 *   bytes); err->offset the byte. A union names its branches.
 * - AVK_ERR_TRUNCATED: with AVK_JSON_FIRST_VALUE, no complete value yet.
 * - AVK_ERR_LIMIT: nesting past max_depth, a string or bytes past
 *   max_bytes, an array or map past max_items, max_memory or the arena's
 *   own limit reached.
 * - AVK_ERR_NO_MEMORY: the arena's allocator failed.
 * - AVK_ERR_INVALID_ARGUMENT: NULL t, arena or out, NULL json with len >
 *   0, NULL used with AVK_JSON_FIRST_VALUE, a bad struct_size.
 * On error *out is unspecified; what the arena gave stays there.
 *
 * Reading a stream of values (one per line or not, pretty-printed or not),
 * buf holding the n bytes read and not yet used:
 *
 *     o.flags = AVK_JSON_FIRST_VALUE | (at_eof ? AVK_JSON_LAST_TEXT : 0);
 *     st = avk_value_read_json_opts(t, buf, n, &o, arena, &v, &used, &err);
 *     if (st == AVK_OK)
 *         use(&v);
 *     if (st == AVK_OK || st == AVK_ERR_TRUNCATED) {
 *         // drop buf[0..used); the caller moves o.offset, o.line and
 *         // o.column past those bytes. TRUNCATED: done if at_eof, else
 *         // read more and call again.
 *         memmove(buf, buf + used, n - used);
 *         n -= used;
 *     } else {
 *         fprintf(stderr, "%s\n", err.message);
 *     }
 */
AVK_EXPORT avk_status avk_value_read_json_opts(const avk_type *t, const char *json, size_t len,
                                               const avk_json_read_options *opts, avk_arena *arena,
                                               avk_value *out, size_t *used, avk_error *err);

/* avk_value_read_json_opts on the whole text with the default limits:
 * json[0..len) is one value with optional white space around it. */
AVK_EXPORT avk_status avk_value_read_json(const avk_type *t, const char *json, size_t len,
                                          avk_arena *arena, avk_value *out, avk_error *err);

#ifdef __cplusplus
}
#endif
#endif
