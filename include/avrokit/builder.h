/* Builder: write Avro binary values field by field, checked against a plan, without building values first. */
#ifndef AVROKIT_BUILDER_H
#define AVROKIT_BUILDER_H

#include <stddef.h>
#include <stdint.h>

#include "avrokit/macros.h"
#include "avrokit/plan.h"
#include "avrokit/status.h"
#include "avrokit/writer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes one value of the plan's type after another to a writer. The
 * calls follow the schema depth first: a record is its fields in order
 * (no begin or end call); a union is avk_builder_union(branch) followed by
 * the branch's value; an array is array_begin, its items, array_end; a map
 * is map_begin, then key and value pairs, map_end. After the root value is
 * complete the next call starts another root value.
 *
 * A record with no fields (or only fields of such records) takes no call:
 * it is complete as soon as it is reached, so a map whose values are such
 * records has each entry complete at map_key. Consecutive int or long
 * fields of a record are held by the builder and written together (one
 * bulk varint call) when the run ends or the record completes.
 *
 * Each call checks that it is what the schema expects at this point; a
 * wrong call returns AVK_ERR_INVALID_ARGUMENT with the schema path in err
 * and writes nothing. Arrays and maps go out in blocks of the plan's
 * block_items (one block at array_end when 0), with byte sizes under
 * AVK_PLAN_BLOCK_SIZES; items of an open block are held by the builder.
 * Other statuses are the writer's. After any error other than
 * INVALID_ARGUMENT the builder must be reset. One builder belongs to one
 * thread at a time. */
typedef struct avk_builder avk_builder;

/* Returns AVK_OK, AVK_ERR_NO_MEMORY or AVK_ERR_INVALID_ARGUMENT. plan and
 * w must outlive the builder. allocator NULL means the C library. */
AVK_EXPORT avk_status avk_builder_new(const avk_plan *plan, avk_writer *w,
                                      const avk_allocator *allocator,
                                      avk_builder **out, avk_error *err);
AVK_EXPORT void avk_builder_free(avk_builder *b);

/* Drops a partly built value (what was already handed to the writer stays
 * there) and expects a new root value. */
AVK_EXPORT void avk_builder_reset(avk_builder *b);

/* 1 when no value is partly built (every started root value is complete). */
AVK_EXPORT int avk_builder_complete(const avk_builder *b);

AVK_EXPORT avk_status avk_builder_null(avk_builder *b, avk_error *err);
/* Any non-zero v is written as true (values store booleans as uint8_t 0
 * or 1: see avrokit/value.h). */
AVK_EXPORT avk_status avk_builder_boolean(avk_builder *b, int v, avk_error *err);
AVK_EXPORT avk_status avk_builder_int(avk_builder *b, int32_t v, avk_error *err);
/* Also accepted where the schema has an int (when v fits in 32 bits). */
AVK_EXPORT avk_status avk_builder_long(avk_builder *b, int64_t v, avk_error *err);
AVK_EXPORT avk_status avk_builder_float(avk_builder *b, float v, avk_error *err);
AVK_EXPORT avk_status avk_builder_double(avk_builder *b, double v, avk_error *err);
AVK_EXPORT avk_status avk_builder_bytes(avk_builder *b, const void *data, size_t len,
                                        avk_error *err);
AVK_EXPORT avk_status avk_builder_string(avk_builder *b, const char *s, size_t len, avk_error *err);
/* len must equal the fixed size. */
AVK_EXPORT avk_status avk_builder_fixed(avk_builder *b, const void *data, size_t len,
                                        avk_error *err);
AVK_EXPORT avk_status avk_builder_enum(avk_builder *b, uint32_t index, avk_error *err);
/* Chooses a union branch; the next call writes its value. */
AVK_EXPORT avk_status avk_builder_union(avk_builder *b, uint32_t branch, avk_error *err);
AVK_EXPORT avk_status avk_builder_array_begin(avk_builder *b, avk_error *err);
AVK_EXPORT avk_status avk_builder_array_end(avk_builder *b, avk_error *err);
AVK_EXPORT avk_status avk_builder_map_begin(avk_builder *b, avk_error *err);
AVK_EXPORT avk_status avk_builder_map_key(avk_builder *b, const char *key, size_t len,
                                          avk_error *err);
AVK_EXPORT avk_status avk_builder_map_end(avk_builder *b, avk_error *err);

/* Writes a whole array of n items from a typed C array, where the schema
 * expects an array whose items are stored typed (see avk_array_is_typed):
 * uint8_t for boolean, int32_t for int, int64_t for long, float, double,
 * n * size bytes for fixed; items NULL for null. int and long items go
 * through the bulk varint kernels. */
AVK_EXPORT avk_status avk_builder_array(avk_builder *b, const void *items, size_t n,
                                        avk_error *err);

#ifdef __cplusplus
}
#endif
#endif
