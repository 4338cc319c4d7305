/* The entry point of the generator for the CLI: gen_run. */
#ifndef AVKGEN_GEN_MAIN_H
#define AVKGEN_GEN_MAIN_H

#include <stddef.h>
#include <stdio.h>

#include "gen.h"

/* Generates DIR/<base>.h and .c for each of the n schema files; with list,
 * prints the spec's --list lines to out. Messages go to errs. Returns the
 * exit status: 0, or 1 (bad schema, cannot write). */
int gen_run(const gen_opts *opts, char **schemas, size_t n, const char *dir, int list, FILE *out,
            FILE *errs);

/* gen --reader (gen_resolve_main.c): the reader's files as gen_run writes
 * them, then DIR/<rbase>_from_<wbase>.h/.c per writer schema, with the
 * spec's resolve lines under list. A pair the library does not resolve
 * writes nothing and returns 1 with the library's message. */
int gen_run_resolving(const gen_opts *opts, const char *reader, char **writers, size_t n,
                      const char *dir, int list, FILE *out, FILE *errs);

#endif
