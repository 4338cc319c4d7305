/* Schema resolution: read data written with one schema through another, and check whether two schemas are compatible. */
#ifndef AVROKIT_RESOLVE_H
#define AVROKIT_RESOLVE_H

#include <stddef.h>

#include "avrokit/macros.h"
#include "avrokit/plan.h"
#include "avrokit/schema.h"
#include "avrokit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Compiles a plan that decodes data written with the writer type into
 * values of the reader type, following the specification's Schema
 * Resolution rules:
 * - named types match when their full names are equal, their simple
 *   names are equal (the specification compares unqualified names), or
 *   one of the reader type's aliases is the writer's full name;
 * - promotions: int to long, float or double; long to float or double;
 *   float to double; string to bytes and bytes to string;
 * - records: writer fields are matched to reader fields by name or by a
 *   reader field's alias; writer fields the reader lacks are skipped at
 *   byte level (never decoded into values); reader fields the writer
 *   lacks take their default (none is a compile error);
 * - enums: symbols matched by name; a writer symbol the reader lacks
 *   becomes the reader's enum default, or, without one, fails when such a
 *   value is read (AVK_ERR_RESOLUTION);
 * - arrays and maps: items resolved recursively (typed arrays stay typed:
 *   array<int> read as array<long> lands in an int64_t[]);
 * - unions: each writer branch goes to the first reader branch it
 *   resolves to (an exact kind and name first, then a promotion); a writer
 *   union read as a non-union, or a writer branch no reader branch takes,
 *   fails only when such a value is read; a writer non-union read as a
 *   union becomes the first reader branch it resolves to;
 * - fixed: names match and sizes are equal.
 * Values come out with the reader's types (v->type points into the reader
 * schema). Defaults filled in share memory with the plan: treat them as
 * read-only. Both schemas must outlive the plan.
 *
 * The plan works with avk_plan_decode and avk_plan_skip (which skips the
 * writer's data), and with the container reader (avk_file_reader_options
 * reader_schema); avk_plan_encode refuses it (AVK_ERR_INVALID_ARGUMENT).
 *
 * Returns AVK_OK; AVK_ERR_RESOLUTION when the schemas cannot be resolved,
 * with err->path the reader's schema path and a message naming both sides,
 * e.g. `reader User.fields[2] "age": no default and not in writer`;
 * AVK_ERR_NO_MEMORY; AVK_ERR_LIMIT; AVK_ERR_INVALID_ARGUMENT. Takes time
 * linear in the schemas' sizes (recursive types close into loops). */
AVK_EXPORT avk_status avk_plan_new_resolving(const avk_type *writer, const avk_type *reader,
                                             const avk_plan_options *opts, avk_plan **out,
                                             avk_error *err);

/* 1 when the plan resolves one schema into another, else 0. */
AVK_EXPORT int avk_plan_is_resolving(const avk_plan *plan);

/* One incompatibility: where in each schema (paths like
 * "User.fields[2].type", "" at the root) and what is wrong. */
typedef struct avk_compat_problem {
    const char *reader_path;
    const char *writer_path;
    const char *message;
} avk_compat_problem;

/* Called once per problem, in schema order; the strings last for the call. */
typedef void (*avk_compat_fn)(void *ctx, const avk_compat_problem *problem);

/* Checks whether every value written with writer can be read with reader:
 * stricter than avk_plan_new_resolving, since a union branch, enum symbol
 * or writer union that would fail only when read counts as a problem here.
 * Calls fn (may be NULL) for every problem found. Returns AVK_OK when
 * compatible; AVK_ERR_RESOLUTION when not (err->message gives the first
 * problem and how many there were); AVK_ERR_NO_MEMORY;
 * AVK_ERR_INVALID_ARGUMENT. */
AVK_EXPORT avk_status avk_schema_check_compat(const avk_type *writer, const avk_type *reader,
                                              avk_compat_fn fn, void *ctx, avk_error *err);

/* The problems that make avk_plan_new_resolving fail, every one of them
 * (it stops at the first): reader fields with no default (or one that does
 * not fit) and not in the writer, types whose kinds, names or fixed sizes
 * cannot be resolved, a writer non-union no reader branch takes. Union
 * branches and enum symbols that fail only when read are not problems
 * here. Calls fn (may be NULL) per problem, in schema order. Returns AVK_OK
 * when the plan compiles; AVK_ERR_RESOLUTION when not (err->message gives
 * the first problem and how many there were); AVK_ERR_NO_MEMORY;
 * AVK_ERR_INVALID_ARGUMENT. */
AVK_EXPORT avk_status avk_schema_check_resolvable(const avk_type *writer, const avk_type *reader,
                                                  avk_compat_fn fn, void *ctx, avk_error *err);

#ifdef __cplusplus
}
#endif

#endif
