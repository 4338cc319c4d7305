/* Plans: a schema compiled once into a flat program that decodes, encodes and skips Avro binary data. */
#ifndef AVROKIT_PLAN_H
#define AVROKIT_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "avrokit/arena.h"
#include "avrokit/macros.h"
#include "avrokit/reader.h"
#include "avrokit/schema.h"
#include "avrokit/status.h"
#include "avrokit/value.h"
#include "avrokit/writer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A compiled schema: immutable once made, shareable between threads. It
 * refers to the schema's types, so the schema must outlive it. */
typedef struct avk_plan avk_plan;

/* Default nesting limit of values (records, arrays, maps, unions): deep
 * enough for any value memory allows in practice (a linked list of 500,000
 * nodes is 10^6 levels), low enough that a hostile input claiming 10^7
 * levels stops early. No walker of values recurses on the C stack, so a
 * caller may raise it freely; each level costs about 100 bytes of heap. */
#define AVK_DEFAULT_MAX_DEPTH ((size_t)1000000)

/* Limits on what one decoded value may claim; they protect against
 * hostile input. 0 in any field means its default. */
typedef struct avk_limits {
    size_t max_depth;        /* nesting of records, arrays, maps, unions;
                                default AVK_DEFAULT_MAX_DEPTH */
    uint64_t max_bytes;      /* length of one string or bytes value; default 256 MiB */
    uint64_t max_items;      /* items of one array or map (all blocks); default 64 Mi */
    uint64_t max_empty_items;/* items of zero-byte types (null, empty records) in one
                                value, which cost no input bytes; default 1 Mi */
    uint64_t max_memory;     /* arena bytes one decoded value may take; default 1 GiB */
} avk_limits;

/* Plan flags. */
#define AVK_PLAN_COPY_STRINGS 0x1u  /* decode: copy strings and bytes into the arena even
                                       from a memory reader (default: views into the input,
                                       valid while the input is; a stream reader always
                                       copies) */
#define AVK_PLAN_CHECK_UTF8   0x2u  /* decode: refuse strings (and map keys) that are not
                                       valid UTF-8 (AVK_ERR_MALFORMED) */
#define AVK_PLAN_BLOCK_SIZES  0x4u  /* encode: write arrays and maps as blocks with their
                                       byte sizes (negative counts), so readers can skip them */

typedef struct avk_plan_options {
    size_t struct_size;   /* sizeof(avk_plan_options) */
    unsigned flags;       /* AVK_PLAN_* */
    avk_limits limits;
    size_t block_items;   /* encode: items per array/map block; 0 means one block */
    const avk_allocator *allocator; /* NULL means the C library */
} avk_plan_options;

/* Sets every field of *o to its default (zero: the library's defaults) and
 * struct_size to sizeof *o as this header defines it. Inline, so the size
 * is the caller's: the idiom that compiles without warnings:
 *
 *     avk_plan_options o;
 *     avk_plan_options_init(&o);
 */
static inline void avk_plan_options_init(avk_plan_options *o)
{
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
}

/* Compiles the type t (usually avk_schema_root). opts may be NULL. Returns
 * AVK_OK, AVK_ERR_NO_MEMORY, AVK_ERR_LIMIT (over 2^32 types or a fixed
 * over 4 GiB), or AVK_ERR_INVALID_ARGUMENT (NULL argument, bad options
 * size). Takes time linear in the schema's size. Free with avk_plan_free.
 *
 *     avk_plan *plan;
 *     avk_plan_new(avk_schema_root(schema), NULL, &plan, &err);
 *     avk_reader r;
 *     avk_reader_init_memory(&r, data, len);
 *     while (more) {
 *         avk_arena_reset(arena);
 *         if (avk_plan_decode(plan, &r, arena, &value, &err) != AVK_OK) break;
 *         ...
 *     }
 */
AVK_EXPORT avk_status avk_plan_new(const avk_type *t, const avk_plan_options *opts, avk_plan **out,
                                   avk_error *err);

/* Frees the plan. NULL is ignored. */
AVK_EXPORT void avk_plan_free(avk_plan *plan);

/* The type the plan was compiled from. */
AVK_EXPORT const avk_type *avk_plan_type(const avk_plan *plan);

/* Decodes one value from r into *out, allocating from arena (nothing else
 * is allocated). Returns AVK_OK; AVK_ERR_TRUNCATED when the input ends
 * inside the value; AVK_ERR_MALFORMED for bad varints, negative lengths,
 * a union branch or enum index out of range, a boolean byte other than 0
 * or 1, invalid UTF-8 (with AVK_PLAN_CHECK_UTF8); AVK_ERR_LIMIT when a
 * length, item count, depth or memory passes the plan's limits;
 * AVK_ERR_NO_MEMORY; AVK_ERR_IO from a stream. err gets the byte offset
 * and the schema path (e.g. "User.fields[2].branch[1]"; typed array items
 * as ".items[k]"). On error *out is
 * unspecified and the reader stands somewhere inside the value. */
AVK_EXPORT avk_status avk_plan_decode(const avk_plan *plan, avk_reader *r, avk_arena *arena,
                                      avk_value *out, avk_error *err);

/* Skips one value without building it, using block byte sizes where the
 * writer gave them. Statuses as avk_plan_decode (no allocation), with one
 * difference: a sized block is jumped over unread, so damage inside it
 * (which decoding reports as MALFORMED or TRUNCATED) goes unseen. */
AVK_EXPORT avk_status avk_plan_skip(const avk_plan *plan, avk_reader *r, avk_error *err);

/* Encodes v (which must match the plan's type: kinds, record field and
 * union branch counts, array item types, union branches, enum indexes,
 * fixed sizes) to w. Arrays and maps are written in blocks of block_items
 * (all in one block when 0), with byte sizes under AVK_PLAN_BLOCK_SIZES.
 * Returns AVK_OK; AVK_ERR_INVALID_ARGUMENT when v does not match (err->path
 * says where); the writer's statuses. On error a memory writer is put back
 * where it was; a stream writer may have passed part of the value on.
 * Allocates nothing, except with AVK_PLAN_BLOCK_SIZES on a stream writer
 * when a value holds arrays or maps of records, unions or strings: each
 * call then uses a scratch buffer (the builder keeps its own and does not
 * allocate after warm-up). */
AVK_EXPORT avk_status avk_plan_encode(const avk_plan *plan, const avk_value *v, avk_writer *w,
                                      avk_error *err);

#ifdef __cplusplus
}
#endif
#endif
