/* The code generator behind `avrokit gen`: options, output buffers, C names of types, and the emitters. */
#ifndef AVKGEN_GEN_H
#define AVKGEN_GEN_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include "avrokit/schema.h"

/* Recursion of generated decoders is C recursion: capped here whatever
 * limits->max_depth says (the generated headers define the same macro). */
#define GEN_MAX_DEPTH 10000

/* A growable text buffer. A failed allocation sets oom and drops further
 * text; the driver checks oom once before writing the file. */
typedef struct gen_buf {
    char *data;
    size_t len, cap;
    int oom;
} gen_buf;

void gen_buf_free(gen_buf *b);
void gen_printf(gen_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void gen_puts(gen_buf *b, const char *s);

/* Command-line options that change the generated code. */
typedef struct gen_opts {
    const char *prefix;   /* --prefix P, or NULL */
    int namespace_prefix; /* --namespace-prefix */
    int copy_strings;     /* --copy-strings */
} gen_opts;

/* Strings the names functions return live here until gen_ctx_destroy. */
typedef struct gen_pool {
    char **items;
    size_t count, cap;
} gen_pool;

/* The per-file emit context: where the header and source text go, the
 * options, and the names made so far. H3's resolution emitter takes the
 * same context. */
typedef struct gen_ctx {
    const gen_opts *opts;
    gen_buf h;          /* header text */
    gen_buf c;          /* source text */
    const char *base;   /* file base name (<base>.h / <base>.c) */
    gen_pool pool;
} gen_ctx;

void gen_ctx_init(gen_ctx *g, const gen_opts *opts, const char *base);
void gen_ctx_destroy(gen_ctx *g);

/* ---- names (gen_names.c) ----------------------------------------------- */

/* "P_" or "". */
const char *gen_prefix(const gen_ctx *g);
/* s with a trailing '_' when it is a C11/C++17 keyword or reserved-looking
 * (leading '_' + uppercase, or containing "__"). */
const char *gen_ident(gen_ctx *g, const char *s);
/* The file base name for a schema path (see the spec). */
char *gen_base_name(const char *path); /* malloc'd */
/* tok(T) as the spec defines it (no P_ prefix). */
const char *gen_tok(gen_ctx *g, const avk_type *t);
/* The C type used to store a value of t ("int32_t", "P_User", "P_User *",
 * "P_array_int"); NULL for null (no storage). */
const char *gen_ctype(gen_ctx *g, const avk_type *t);
/* The C name of a named or structural type's own typedef ("P_User",
 * "P_array_int"); for primitives the same as gen_ctype. */
const char *gen_tname(gen_ctx *g, const avk_type *t);
/* 1 when t is a union of two branches, one of them null; *other gets the
 * other branch and *null_index the null's index. */
int gen_is_nullable(const avk_type *t, const avk_type **other, size_t *null_index);
/* 1 when t is stored through a pointer (a nullable record). */
int gen_is_ptr_nullable(const avk_type *t);
/* The member name of a record field (mangled). */
const char *gen_field_member(gen_ctx *g, const avk_type *rec, size_t i);
/* The enum constant for symbol i ("P_Color_RED"). */
const char *gen_enum_const(gen_ctx *g, const avk_type *e, size_t i);
/* The union kind constant of branch i ("P_union_int_string_int"). */
const char *gen_union_const(gen_ctx *g, const avk_type *u, size_t i);
/* The union member name of branch i (mangled tok), NULL for null. */
const char *gen_union_member(gen_ctx *g, const avk_type *u, size_t i);
/* The label avk_plan_decode uses for t at the root of a path. */
const char *gen_label(const avk_type *t);
/* Fewest encoded bytes of a value of t (saturating), as the plan compiler computes it. */
unsigned long long gen_min_size(const avk_type *t);
/* 1 when the library's decoder and skipper walk values of t with a frame of
 * their own (a record, array or map nested over 4 levels deep, or
 * recursive): a union branch holding one shares its path segment. */
int gen_walked_as_frame(const avk_type *t);
/* A C string literal of s (with quotes). */
const char *gen_cstring(gen_ctx *g, const char *s);
/* A string kept in the pool, formatted. */
const char *gen_fmt(gen_ctx *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- emitters (one file each) ------------------------------------------- */

/* The set of types one file emits: its own named types, the root, and every
 * type reachable from them (helpers are static per source file). */
typedef struct gen_unit {
    const avk_type *root;
    const char *fn;          /* root function prefix (FN) */
    const char *root_ctype;  /* C type of the root (FN's typedef target) */
    const avk_type **own;    /* named types defined in this file's header */
    size_t nown;
    const avk_type **all;    /* every distinct type needing a helper, dependencies first */
    size_t nall;
    const char **includes;   /* headers of earlier files with shared named types */
    size_t nincludes;
    const char *schema_json; /* the .avsc text */
} gen_unit;

/* gen_types.c: the header (types and prototypes). Returns 0, or -1 with
 * msg filled (a record containing itself by value). */
int gen_emit_header(gen_ctx *g, const gen_unit *u, char *msg, size_t msgcap);
/* Collects u->all (and checks by-value recursion). */
int gen_collect(gen_ctx *g, gen_unit *u, char *msg, size_t msgcap);
/* gen_runtime.c: static helpers every source file starts with. What other
 * emitters (the resolution emitter) may call in generated code:
 *   avkgen_dctx *c: r, arena, lim (defaults filled), max_depth (capped at
 *     AVK_GEN_MAX_DEPTH), empty, mem, views, err, at (an avkgen_path);
 *   avkgen_dctx_init(c, r, arena, limits, err);
 *   avkgen_front(&c->at, AVK_PATH_FIELD/ITEM/KEY/VALUE, index, name, st)
 *     puts a segment in front and returns st (as avk_check_path_front);
 *   avkgen_front_branch(&c->at, index, merge, before, st) for union branches
 *     (merge: gen_walked_as_frame(branch type); before: c->at.count when the
 *     branch began);
 *   avkgen_report(err, label, &c->at) at the top (as avk_check_path_report);
 *   avkgen_depth_error, avkgen_alloc, avkgen_reserve, avkgen_take,
 *   avkgen_read_bytes, avkgen_read_fixed, avkgen_read_boolean,
 *   avkgen_index_error, avkgen_read_longs/_ints/_booleans/_raw_items;
 *   avkgen_sctx (skipping) and avkgen_ectx (encoding, path in avk_check_path). */
void gen_emit_runtime(gen_ctx *g);
/* emit_decode.c, emit_skip.c, emit_encode.c, emit_value.c: static helpers
 * for type t, then (emit_file.c) the public functions. */
void gen_emit_decode(gen_ctx *g, const avk_type *t);
void gen_emit_skip(gen_ctx *g, const avk_type *t);
void gen_emit_encode(gen_ctx *g, const avk_type *t);
void gen_emit_to_value(gen_ctx *g, const avk_type *t);
void gen_emit_from_value(gen_ctx *g, const avk_type *t);
/* Statements (indented by ind) decoding one value of t into the lvalue lv,
 * a value at nesting level lvl (a C expression), inside a generated function
 * that has `avkgen_dctx *c` and `avk_status st` in scope: leaves inline,
 * compound types through their static helper gen_helper(g, "dec", t). The
 * status is left in st (the caller adds its path segment on failure). */
void gen_decode_value(gen_ctx *g, const avk_type *t, const char *lv, const char *lvl,
                      const char *ind);
/* Public wrappers for one type with function prefix fn. */
void gen_emit_public(gen_ctx *g, const avk_type *t, const char *fn, int is_root);
void gen_emit_public_protos(gen_ctx *g, const avk_type *t, const char *fn);
/* The source file: everything above in order. */
void gen_emit_source(gen_ctx *g, const gen_unit *u);

/* Names of the static helpers of t in generated sources ("avkgen_dec_User"):
 * by gen_htok, tok(T) with ["T","null"] told apart from ["null","T"]. */
const char *gen_htok(gen_ctx *g, const avk_type *t);
const char *gen_helper(gen_ctx *g, const char *family, const avk_type *t);

#endif
