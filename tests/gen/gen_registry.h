/* The gen suite's table of schemas: per schema, wrappers over its generated functions (registry.c, written by make_gen_suite.py). */
#ifndef GEN_REGISTRY_H
#define GEN_REGISTRY_H

#include <stddef.h>

#include "avrokit/avrokit.h"

/* The generated functions of one schema, behind void pointers to its root
 * C type (objects live in the arena given). */
typedef struct gen_case {
    const char *id;          /* sNNN: the --prefix and the schema file's base name */
    const char *origin;      /* where in the apache data the schema comes from */
    const char *schema_path; /* the schema as written for avrokit gen */
    const char *c_type;      /* ROOT_C_TYPE of --list */
    const char *fn;          /* ROOT_FN_PREFIX of --list */
    const char *const *hex;  /* py_io_schema_datum_binary.json rows of this schema */
    size_t hex_count;
    /* mode 0: FN_decode; 1: FN_decode_limits(lim) (lim may be NULL). *obj
     * is set to the object (arena) before decoding starts. */
    avk_status (*decode)(avk_reader *r, avk_arena *a, int mode, const avk_limits *lim, void **obj,
                         avk_error *err);
    avk_status (*skip_value)(avk_reader *r, const avk_limits *lim, avk_error *err);
    avk_status (*encode)(const void *obj, avk_writer *w, avk_error *err);
    avk_status (*to_value)(const void *obj, const avk_type *t, avk_arena *a, avk_value *out,
                           avk_error *err);
    avk_status (*from_value)(const avk_value *v, avk_arena *a, void **obj, avk_error *err);
    const char *(*schema_json)(void);
    avk_status (*file_open)(void **fr, const char *path, const avk_file_reader_options *o,
                            avk_error *err);
    avk_status (*file_next)(void *fr, avk_arena *a, void **obj, int *more, avk_error *err);
    void (*file_free)(void *fr);
    avk_status (*file_write)(avk_file_writer *fw, const void *obj, avk_error *err);
} gen_case;

extern const gen_case gen_cases[];
extern const size_t gen_case_count;

#endif
