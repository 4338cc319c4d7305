/* avrokit fromjson: Avro JSON values, one per line, into a container file. */
/* POSIX: getline (the build is strict C11). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_progress.h"

#define PREFIX AVKCLI_PROG " fromjson"

static const char *const help =
    "Usage: " PREFIX " --schema S.avsc [options] JSON OUT.avro\n"
    "\n"
    "Reads JSON ('-': standard input), one value of the schema per line in the Avro\n"
    "JSON encoding (as tojson prints it: unions as null or {\"branch\": value}, bytes\n"
    "as strings of code points 0-255; record fields left out take their defaults),\n"
    "and writes them to the container file OUT.avro ('-': standard output). Blank\n"
    "lines are skipped. A value that does not fit the schema stops the run with its\n"
    "line number, and no output file is left behind.\n"
    "\n"
    "Options:\n"
    "  --schema FILE  the schema of the values (required)\n"
    "  --codec C      null (default), deflate, snappy, zstandard, bzip2 or xz\n"
    "  --level L      the codec's compression level (0: its default)\n"
    "  --quiet        no progress line on standard error\n"
    "  -h, --help     show this help and exit\n"
    "\n"
    "Example:\n"
    "  " PREFIX " --schema user.avsc --codec zstandard users.json users.avro\n";

/* Prints a message of the JSON reader for a line of the file: within one
 * line, its "line 1, column C" becomes "column C". */
static void print_line_error(const char *in, uint64_t lineno, const char *msg)
{
    const char *at = strstr(msg, "line 1, column ");
    if (at)
        fprintf(stderr, "%s: line %llu: %.*s%s\n", avkcli_display_name(in),
                (unsigned long long)lineno, (int)(at - msg), msg, at + 8);
    else
        fprintf(stderr, "%s: line %llu: %s\n", avkcli_display_name(in),
                (unsigned long long)lineno, msg);
}

static int blank(const char *s, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n')
            return 0;
    return 1;
}

static int convert(const char *in, FILE *fp, avk_file_writer *fw, const avk_type *type,
                   avk_arena *arena, avkcli_progress *prog)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    uint64_t lineno = 0, records = 0, bytes = 0;
    avk_value v;
    avk_error err;
    int rc = AVKCLI_OK;
    while ((n = getline(&line, &cap, fp)) >= 0) {
        lineno++;
        bytes += (uint64_t)n;
        if (blank(line, (size_t)n))
            continue;
        if (avk_value_read_json(type, line, (size_t)n, arena, &v, &err) != AVK_OK) {
            avkcli_progress_end(prog);
            print_line_error(in, lineno, err.message);
            rc = AVKCLI_FAIL;
            break;
        }
        if (avk_file_writer_append(fw, &v, &err) != AVK_OK) {
            avkcli_progress_end(prog);
            print_line_error(in, lineno, err.message);
            rc = AVKCLI_FAIL;
            break;
        }
        avk_arena_reset(arena);
        if (avkcli_progress_due(prog, ++records))
            avkcli_progress_update(prog, records, bytes);
    }
    if (rc == AVKCLI_OK && ferror(fp)) {
        avkcli_progress_end(prog);
        fprintf(stderr, "%s: read error: %s\n", avkcli_display_name(in), strerror(errno));
        rc = AVKCLI_FAIL;
    }
    free(line);
    return rc;
}

int avkcli_cmd_fromjson(int argc, char **argv)
{
    const char *schema_path = NULL, *codec = NULL, *level = NULL;
    int quiet = 0, help_wanted, rc;
    size_t npos;
    char **pos;
    avk_schema *schema = NULL;
    avk_arena *arena = NULL;
    avk_file_writer *fw = NULL;
    avk_file_writer_options wo;
    avk_error err;
    avkcli_progress prog;
    FILE *fp = NULL;
    const avkcli_option opts[] = {
        {"--schema", 's', &schema_path, NULL, "a schema file (.avsc)"},
        {"--codec", 0, &codec, NULL, "null, deflate, snappy, zstandard, bzip2 or xz"},
        {"--level", 0, &level, NULL, "a compression level"},
        {"--quiet", 'q', NULL, &quiet, NULL},
    };
    pos = (char **)malloc(sizeof *pos * (size_t)argc);
    if (!pos)
        return AVKCLI_FAIL;
    avkcli_writer_options(&wo, NULL, NULL);
    rc = avkcli_parse_options(PREFIX, argc, argv, opts, sizeof opts / sizeof opts[0], pos, &npos,
                              &help_wanted);
    if (rc == AVKCLI_OK && help_wanted) {
        fputs(help, stdout);
        free(pos);
        return AVKCLI_OK;
    }
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_codec(PREFIX, codec, &wo.codec);
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_int(PREFIX, "--level", level, &wo.level);
    if (rc == AVKCLI_OK && !schema_path)
        rc = avkcli_usage_error(PREFIX, "missing --schema S.avsc");
    if (rc == AVKCLI_OK && npos != 2)
        rc = avkcli_usage_error(PREFIX, "want JSON and OUT.avro ('-' for standard input/output)");
    if (rc != AVKCLI_OK) {
        free(pos);
        return rc;
    }
    rc = avkcli_check_output(pos[1], pos, 1);
    if (rc == AVKCLI_OK)
        rc = avkcli_load_schema(schema_path, &schema);
    if (rc == AVKCLI_OK && avk_arena_new(NULL, &arena, &err) != AVK_OK) {
        fprintf(stderr, "%s: %s\n", AVKCLI_PROG, err.message);
        rc = AVKCLI_FAIL;
    }
    if (rc == AVKCLI_OK) {
        fp = strcmp(pos[0], "-") == 0 ? stdin : fopen(pos[0], "rb");
        if (!fp) {
            fprintf(stderr, "%s: cannot open: %s\n", pos[0], strerror(errno));
            rc = AVKCLI_FAIL;
        }
    }
    if (rc == AVKCLI_OK)
        rc = avkcli_writer_open(pos[1], schema, &wo, &fw);
    if (rc == AVKCLI_OK) {
        avkcli_progress_start(&prog, "fromjson", avkcli_file_size(pos[0]), 0, quiet);
        rc = convert(pos[0], fp, fw, avk_schema_root(schema), arena, &prog);
        avkcli_progress_end(&prog);
        rc = avkcli_writer_finish(fw, pos[1], rc);
    }
    if (fp && fp != stdin)
        fclose(fp);
    avk_arena_free(arena);
    avk_schema_free(schema);
    free(pos);
    return rc;
}
