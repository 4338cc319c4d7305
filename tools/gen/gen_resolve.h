/* The resolution emitter of `avrokit gen --reader`: a writer schema's bytes read into the reader schema's generated C types. */
#ifndef AVK_TOOLS_GEN_RESOLVE_H
#define AVK_TOOLS_GEN_RESOLVE_H

#include "avrokit/schema.h"
#include "avrokit/status.h"
#include "gen.h"

/* Room for one C expression piece made by the emitter. */
#define GEN_RNAME_MAX 1024

/* How a union is stored (gen_spec.md, "Names"). */
typedef enum gen_union_form {
    GEN_UNION_POINTER,  /* ["null", Record]: Record *, NULL = null */
    GEN_UNION_NULLABLE, /* ["null", T]: { bool present; T value; } */
    GEN_UNION_GENERAL   /* { kind; union { ... } u; } */
} gen_union_form;

/* What one writer/reader pair's files need besides the schemas. */
typedef struct gen_resolve_opts {
    const char *reader_header; /* "<rbase>.h", included by the pair's header */
    const char *pair_header;   /* "<rbase>_from_<wbase>.h", included by the source */
    const char *guard;         /* include guard of the pair's header */
    const char *fn;            /* the reader root's function prefix (FN) */
    const char *wbase;         /* <wbase>: the function is FN_decode_from_<wbase> */
} gen_resolve_opts;

/* Checks that the library resolves writer into reader (the check the CLI
 * makes before writing anything): AVK_OK, or its AVK_ERR_RESOLUTION with
 * the library's message. */
avk_status gen_resolve_check(const avk_type *writer, const avk_type *reader, avk_error *err);

/* Appends the header and source of one writer/reader pair to g->h and g->c
 * (names from g, as the reader's own files have them). Compiles the
 * library's resolving plan for the pair and walks it, so the generated
 * decoder follows the library's rules exactly. Returns AVK_OK, the
 * library's error for a pair it refuses (AVK_ERR_RESOLUTION), or
 * AVK_ERR_NO_MEMORY. */
avk_status gen_resolve_emit(gen_ctx *g, const avk_type *writer, const avk_type *reader,
                            const gen_resolve_opts *o, avk_error *err);

#endif
