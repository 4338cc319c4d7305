/* avrokit schema compat: can data written with one schema be read with another (both ways with --full)? */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define PREFIX AVKCLI_PROG " schema compat"

static const char *const help =
    "Usage: " PREFIX " [--full] [--quiet] WRITER.avsc READER.avsc\n"
    "\n"
    "Checks whether every value written with the schema in WRITER can be read\n"
    "with the schema in READER under the specification's resolution rules\n"
    "(names and aliases, promotions, fields skipped or filled from defaults,\n"
    "enum symbols, union branches). Strict: a union branch or enum symbol the\n"
    "reader cannot take counts, even though reading fails only when such a\n"
    "value appears. Prints \"compatible\", or \"incompatible\" and one line per\n"
    "problem with its place in both schemas. '-' reads one schema from standard\n"
    "input.\n"
    "\n"
    "Options:\n"
    "  --full       also check the other way (READER's data read with WRITER)\n"
    "  -q, --quiet  print nothing; only the exit status tells\n"
    "  -h, --help   show this help and exit\n"
    "\n"
    "Exit status: 0 compatible, 1 incompatible (and only that), 2 a schema that\n"
    "cannot be read or parsed, a bad command line, or any other failure. A schema\n"
    "may also be given as its JSON text (starting with {, [ or \").\n"
    "\n"
    "Example:\n"
    "  $ " AVKCLI_PROG " schema compat v1.avsc v2.avsc\n"
    "  incompatible\n"
    "    reader User.fields[2] \"age\", writer User: no default and not in writer\n";

typedef struct printer {
    int quiet;
    size_t count;
} printer;

static void print_problem(void *ctx, const avk_compat_problem *p)
{
    printer *pr = (printer *)ctx;
    pr->count++;
    if (!pr->quiet)
        printf("  reader %s, writer %s: %s\n", p->reader_path, p->writer_path, p->message);
}

/* One direction: 0 compatible, 1 not, -1 an error (reported). */
static int check(const char *label, const avk_schema *w, const avk_schema *r, int quiet)
{
    printer pr;
    avk_error err;
    avk_status st;
    memset(&pr, 0, sizeof pr);
    pr.quiet = quiet;
    if (!quiet && label)
        printf("%s: ", label);
    fflush(stdout);
    /* The verdict first, then the problems: collect them with a first pass
     * that prints nothing. */
    pr.quiet = 1;
    st = avk_schema_check_compat(avk_schema_root(w), avk_schema_root(r), print_problem, &pr,
                                 &err);
    if (st != AVK_OK && st != AVK_ERR_RESOLUTION) {
        fprintf(stderr, "%s: %s\n", AVKCLI_PROG, err.message);
        return -1;
    }
    if (!quiet)
        printf("%s\n", st == AVK_OK ? "compatible" : "incompatible");
    if (st == AVK_OK)
        return 0;
    pr.quiet = quiet;
    pr.count = 0;
    if (!quiet)
        (void)avk_schema_check_compat(avk_schema_root(w), avk_schema_root(r), print_problem,
                                      &pr, NULL);
    return 1;
}

int avkcli_cmd_schema_compat(int argc, char **argv)
{
    int full = 0, quiet = 0, help_asked = 0, rc, a, b = 0;
    char **pos = (char **)calloc((size_t)argc + 1, sizeof *pos);
    size_t npos = 0;
    avk_schema *w = NULL, *r = NULL;
    const avkcli_option opts[] = {
        {"--full", 0, NULL, &full, NULL},
        {"--quiet", 'q', NULL, &quiet, NULL},
    };
    if (!pos)
        return AVKCLI_USAGE; /* out of memory: not "incompatible" */
    rc = avkcli_parse_options(PREFIX, argc, argv, opts, sizeof opts / sizeof opts[0], pos, &npos,
                              &help_asked);
    if (rc == AVKCLI_OK && help_asked) {
        fputs(help, stdout);
        free(pos);
        return AVKCLI_OK;
    }
    if (rc == AVKCLI_OK && npos != 2)
        rc = avkcli_usage_error(PREFIX, "needs WRITER.avsc and READER.avsc (got %zu file%s)",
                                npos, npos == 1 ? "" : "s");
    if (rc == AVKCLI_OK && strcmp(pos[0], "-") == 0 && strcmp(pos[1], "-") == 0)
        rc = avkcli_usage_error(PREFIX, "only one schema can come from standard input");
    /* 1 must mean incompatible: a schema that cannot be had is 2. */
    if (rc == AVKCLI_OK && avkcli_load_schema(pos[0], &w) != AVKCLI_OK)
        rc = AVKCLI_USAGE;
    if (rc == AVKCLI_OK && avkcli_load_schema(pos[1], &r) != AVKCLI_OK)
        rc = AVKCLI_USAGE;
    if (rc == AVKCLI_OK) {
        a = check(full ? "writer -> reader" : NULL, w, r, quiet);
        if (a >= 0 && full)
            b = check("reader -> writer", r, w, quiet);
        rc = a < 0 || b < 0 ? AVKCLI_USAGE : (a || b) ? AVKCLI_FAIL : AVKCLI_OK;
        if (fflush(stdout) != 0) {
            fprintf(stderr, "%s: writing standard output failed\n", AVKCLI_PROG);
            rc = AVKCLI_USAGE;
        }
    }
    avk_schema_free(w);
    avk_schema_free(r);
    free(pos);
    return rc;
}
