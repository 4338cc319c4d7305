/* Columns: records decoded straight into column buffers in the Arrow memory layout, exported through the Arrow C Data Interface. */
#ifndef AVROKIT_COLUMNS_H
#define AVROKIT_COLUMNS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "avrokit/alloc.h"
#include "avrokit/arrow.h"
#include "avrokit/file.h"
#include "avrokit/macros.h"
#include "avrokit/plan.h"
#include "avrokit/reader.h"
#include "avrokit/schema.h"
#include "avrokit/status.h"
#include "avrokit/value.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A column set: the columns of one schema (or of the fields projected from
 * it), each a growing buffer in Arrow's layout, filled record by record
 * with no allocation per value. Belongs to one thread at a time; the
 * arrays it exports belong to whoever holds them and may go to any thread.
 *
 * Avro type -> Arrow type (format string):
 *   null -> null (n); boolean -> boolean (b); int -> int32 (i);
 *   long -> int64 (l); float -> float32 (f); double -> float64 (g);
 *   string -> utf8 (u); bytes -> binary (z); fixed(N) -> fixed_size_binary
 *   (w:N); enum -> dictionary: int32 indexes (i) over its symbols (u);
 *   record -> struct (+s); array -> list (+l);
 *   map -> map (+m) of struct "entries" {key: utf8, value};
 *   ["null", T] and [T, "null"] -> T, nullable (a validity bitmap);
 *   any other union -> dense union (+ud:0,1,...), type ids = branch indexes,
 *   its null branch (if any) a null child.
 * Logical types: date -> date32 (tdD); time-millis -> time32[ms] (ttm);
 *   time-micros -> time64[us] (ttu); timestamp-millis/micros/nanos ->
 *   timestamp (tsm:UTC, tsu:UTC, tsn:UTC); local-timestamp-* -> timestamp
 *   with no zone (tsm:, tsu:, tsn:); decimal of precision <= 38 ->
 *   decimal128 (d:P,S), of 39-76 -> decimal256 (d:P,S,256), the unscaled
 *   value sign-extended (a value wider than that is AVK_ERR_MALFORMED);
 *   uuid -> its underlying string (u) or fixed(16) (w:16); duration ->
 *   fixed_size_binary(12) as written (months, days, milliseconds, each
 *   little-endian uint32).
 * Offsets are 32-bit: more than 2^31-1 bytes of strings, or items of
 * arrays or maps, in one column set gives AVK_ERR_LIMIT (export or clear
 * and go on). A recursive type cannot be a column (Arrow has no recursive
 * types): AVK_ERR_SCHEMA, unless the projection leaves it out or takes
 * only some of its fields (a path names them). */
typedef struct avk_columns avk_columns;

#define AVK_COLUMNS_CHECK_UTF8 0x1u /* refuse strings and map keys that are not valid
                                       UTF-8 (AVK_ERR_MALFORMED), as AVK_PLAN_CHECK_UTF8 */

typedef struct avk_columns_options {
    size_t struct_size;        /* sizeof(avk_columns_options) */
    /* Projection: the fields to decode, as paths of field names from the
     * root record ("name", "inner.a": the field a of the record field
     * inner, or of the record in inner's ["null", record] union), in the
     * order the columns are to have. A record field taken whole takes all
     * its fields; a field named with its subfields takes only those.
     * NULL (or field_count 0) takes every field. The rest are skipped at
     * byte level. */
    const char *const *fields;
    size_t field_count;
    unsigned flags;            /* AVK_COLUMNS_* */
    avk_limits limits;         /* as a plan's; 0 fields mean the defaults */
    const avk_allocator *allocator; /* NULL means the C library */
    /* A reader's schema (Avro schema resolution): the columns are of this
     * type (the projection names its fields), and the bytes decoded, of
     * the type given to avk_columns_new, are resolved into it
     * (avk_plan_new_resolving: promotions, defaults, writer fields skipped,
     * enum and union mapping) record by record, then appended. NULL: the
     * columns are of the writer's type and decoded straight from bytes. */
    const avk_type *reader;
} avk_columns_options;

/* Sets every field to its default and struct_size to sizeof *o. */
static inline void avk_columns_options_init(avk_columns_options *o)
{
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
}

/* Makes an empty column set for values of type t (usually a file's root
 * record; any type will do, a non-record being one column). opts may be
 * NULL. The schema (and the reader's) must outlive the column set. Returns
 * AVK_OK; AVK_ERR_RESOLUTION (opts->reader cannot read t's data, as
 * avk_plan_new_resolving says); AVK_ERR_SCHEMA (a recursive type among the
 * columns; a projection on a root that is not a record);
 * AVK_ERR_INVALID_ARGUMENT (NULL argument, bad
 * options size, a projected path that names no field, a field named
 * twice); AVK_ERR_NO_MEMORY. err->path says where in the schema. */
AVK_EXPORT avk_status avk_columns_new(const avk_type *t, const avk_columns_options *opts,
                                      avk_columns **out, avk_error *err);

/* Frees the column set and the records it holds (not the arrays it has
 * exported). NULL is ignored. */
AVK_EXPORT void avk_columns_free(avk_columns *c);

/* Decodes count values of the type from r, a memory reader (all of the
 * input in memory, as a decompressed block is: a stream reader gives
 * AVK_ERR_INVALID_ARGUMENT), and appends them. On error the
 * columns hold the values appended before this call and the good values
 * of this call before the bad one; *done (NULL allowed) gets how many of
 * this call's values were appended, also on success (count). Statuses and
 * err (offset, path) as avk_plan_decode's for the same bytes and limits,
 * plus AVK_ERR_LIMIT for 32-bit offsets and AVK_ERR_MALFORMED for a
 * decimal too wide for its Arrow type; the reader then stands just after
 * the last good value. Allocates only to grow the columns, which keep
 * their capacity. */
AVK_EXPORT avk_status avk_columns_decode(avk_columns *c, avk_reader *r, uint64_t count,
                                         uint64_t *done, avk_error *err);

/* Decompresses a block read by avk_file_reader_next_block (through the
 * reader's codec and limits, into a buffer the column set keeps) and
 * appends its records. The block must hold exactly its count of records:
 * bytes left over, or data that ends inside a record (the count lies),
 * are AVK_ERR_MALFORMED, as avk_file_reader_next reports them. On error the records before the bad one are kept (as decode);
 * err->block is the block's index and err->offset the byte offset in its
 * decompressed data. The file reader is only read from. */
AVK_EXPORT avk_status avk_columns_decode_block(avk_columns *c, const avk_file_reader *fr,
                                               const avk_file_block *block, uint64_t *done,
                                               avk_error *err);

/* For a file reader's work function (avk_file_reader_next_work): decodes
 * the rest of a block's records into the columns, with the reader's
 * statuses and messages (the block's place, the record's index; a limit
 * that is the data lying is damage, as avk_file_reader_next says). The
 * records are taken from the cursor (avk_file_records_done counts them);
 * on error the cursor is done and the columns keep the records before
 * the bad one (*done, NULL allowed, says how many of this call's). Bytes
 * left after the last record are reported by the reader. Runs on the
 * work's thread: one column set per slot. */
AVK_EXPORT avk_status avk_columns_decode_records(avk_columns *c, avk_file_records *records,
                                                 uint64_t *done, avk_error *err);

/* Appends one value already decoded (by a resolving plan, generated code's
 * _to_value, the builder): v must be of the column set's type (kinds,
 * fields, branches as avk_plan_encode requires; fields left out by the
 * projection are not looked at). Returns AVK_OK; AVK_ERR_INVALID_ARGUMENT
 * (a value of another shape: nothing is appended); AVK_ERR_LIMIT and
 * AVK_ERR_MALFORMED as avk_columns_decode; AVK_ERR_NO_MEMORY. */
AVK_EXPORT avk_status avk_columns_append_value(avk_columns *c, const avk_value *v, avk_error *err);

/* The number of values (records) the column set holds. */
AVK_EXPORT uint64_t avk_columns_length(const avk_columns *c);

/* Drops the values held; the buffers keep their capacity. */
AVK_EXPORT void avk_columns_clear(avk_columns *c);

/* Writes the Arrow schema of the columns to *out (a struct of the
 * projected fields for a record root; the one column's type otherwise).
 * The caller releases it (out->release(out)); it owns all its memory.
 * Returns AVK_OK, AVK_ERR_NO_MEMORY, AVK_ERR_INVALID_ARGUMENT. */
AVK_EXPORT avk_status avk_columns_export_schema(const avk_columns *c, struct ArrowSchema *out,
                                                avk_error *err);

/* Moves the values held into *out, an Arrow array of the schema above, and
 * leaves the column set empty (its next values go to new buffers). The
 * array owns its buffers: it stays valid after the column set, the reader
 * and the schema are gone, until out->release(out). Returns AVK_OK,
 * AVK_ERR_NO_MEMORY (the values then stay in the column set),
 * AVK_ERR_INVALID_ARGUMENT. */
AVK_EXPORT avk_status avk_columns_export(avk_columns *c, struct ArrowArray *out, avk_error *err);

#ifdef __cplusplus
}
#endif
#endif
