/* Shared state of the resolution emitter's files (emit_resolve*.c). */
#ifndef AVK_TOOLS_GEN_RESOLVE_INT_H
#define AVK_TOOLS_GEN_RESOLVE_INT_H

#include <stdint.h>
#include <stdio.h>

#include "gen.h"
#include "gen_resolve.h"
#include "plan/plan_format.h"

/* One pair being emitted. The generated functions are named after plan
 * nodes: avkgen_rs_<n> reads a value of resolution node n (the writer's bytes
 * into the reader's type), avkgen_sk_<n> skips a value of the writer's plain
 * node n (a writer field the reader lacks). */
typedef struct gen_r {
    const avk_plan *p;
    const gen_resolve_opts *o;
    gen_ctx *gc;         /* names (H1's gen_names.c) and the output */
    gen_buf data;        /* static tables and default bytes */
    gen_buf proto;       /* prototypes of avkgen_rs_ and avkgen_sk_ functions */
    gen_buf body;        /* their definitions */
    uint8_t *avkgen_rs_want;    /* per node: avkgen_rs_<n> wanted (1), written (2) */
    uint8_t *avkgen_sk_want;    /* per node: avkgen_sk_<n> wanted (1), written (2) */
    unsigned serial;     /* for unique names of tables and temporaries */
    /* What gen_r_read passes to the functions it calls: the value's level
     * ("level + 1") and the level of the innermost record, array or map
     * around it ("frame" below a union, else "level"), which the library's
     * decoder uses for the items of typed arrays (decode_typed.c). */
    const char *child_level;
    const char *child_frame;
} gen_r;

/* 1 for ops whose values get a function (records, arrays, maps, unions). */
int gen_r_compound(uint8_t op);

/* The C type of values of t ("" for null: no storage). */
const char *gen_r_ctype(gen_r *g, const avk_type *t);

/* A C string literal of s, escaped. */
void gen_r_literal(gen_buf *f, const char *s);

/* Code that reads one value of step s into the lvalue dst (NULL: the
 * reader's type stores nothing) at nesting level + 1, setting st. */
void gen_r_read(gen_r *g, gen_buf *f, const avki_step *s, const char *dst, const char *ind);

/* Code that stores reader union u's branch b, then runs inner(dst of the
 * branch value) to fill it; out is the union's lvalue. */
typedef void (*gen_r_fill_fn)(gen_r *g, gen_buf *f, const char *dst, const char *ind, const void *ctx);
void gen_r_branch(gen_r *g, gen_buf *f, const avk_type *u, uint32_t b, const char *out,
                  const char *ind, gen_r_fill_fn inner, const void *ctx);

/* Code that skips one value of the writer's plain node n at level + 1, setting st. */
void gen_r_skip(gen_r *g, gen_buf *f, uint32_t n, const char *ind);
/* The definition of avkgen_sk_<n>. */
void gen_r_skip_fn(gen_r *g, uint32_t n);

/* Code that stores default value v (reader type t) into dst. */
void gen_r_default(gen_r *g, gen_buf *f, const avk_value *v, const avk_type *t, const char *dst,
                   const char *ind);

/* The generated file's helpers (avkgen_rs_ctx, avkgen_rs_bytes, ...). */
extern const char gen_r_prelude[];

#endif
