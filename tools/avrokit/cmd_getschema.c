/* avrokit getschema: print the schema stored in a container file, as written or in canonical form. */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

#define PREFIX AVKCLI_PROG " getschema"

static const char *const help =
    "Usage: " PREFIX " [options] FILE\n"
    "\n"
    "Prints the schema of the container file FILE ('-': standard input) exactly as\n"
    "its header stores it (the avro.schema metadata), followed by a newline. Only\n"
    "the header is read.\n"
    "\n"
    "Options:\n"
    "  --canonical  print the schema's Parsing Canonical Form instead\n"
    "  --pretty     print the schema as indented JSON (every attribute kept, full\n"
    "               names, named types after their first use by name)\n"
    "  -h, --help   show this help and exit\n"
    "\n" AVKCLI_LIMITS_HELP
    "\n"
    "Example:\n"
    "  " PREFIX " --canonical users.avro\n"
    "  " PREFIX " --pretty users.avro\n";

int avkcli_cmd_getschema(int argc, char **argv)
{
    int canonical = 0, pretty = 0, help_wanted, rc;
    size_t npos, len = 0;
    char **pos;
    avk_file_reader *fr;
    avk_writer w;
    avk_error err;
    avk_status st;
    const uint8_t *text;
    const avkcli_option opts[] = {
        {"--canonical", 0, NULL, &canonical, NULL},
        {"--pretty", 0, NULL, &pretty, NULL},
        AVKCLI_LIMIT_OPTIONS,
    };
    pos = (char **)malloc(sizeof *pos * (size_t)argc);
    if (!pos)
        return AVKCLI_FAIL;
    rc = avkcli_parse_options(PREFIX, argc, argv, opts, sizeof opts / sizeof opts[0], pos, &npos,
                              &help_wanted);
    if (rc == AVKCLI_OK && help_wanted) {
        fputs(help, stdout);
        free(pos);
        return AVKCLI_OK;
    }
    if (rc == AVKCLI_OK && npos != 1)
        rc = npos ? avkcli_usage_error(PREFIX, "one FILE only; '%s' is extra", pos[1])
                  : avkcli_usage_error(PREFIX, "missing FILE (use '-' for standard input)");
    if (rc == AVKCLI_OK && canonical && pretty)
        rc = avkcli_usage_error(PREFIX, "--canonical and --pretty do not go together (the "
                                        "canonical form has no spaces)");
    if (rc == AVKCLI_OK)
        rc = avkcli_reader_open(pos[0], NULL, &fr);
    if (rc != AVKCLI_OK) {
        free(pos);
        return rc;
    }
    rc = avkcli_stdout_open(&w);
    if (rc == AVKCLI_OK) {
        if (canonical) {
            st = avk_type_write_canonical(avk_schema_root(avk_file_reader_schema(fr)), &w, &err);
        } else if (pretty) {
            st = avk_type_write_json(avk_schema_root(avk_file_reader_schema(fr)), 1, &w, &err);
        } else {
            text = avk_file_reader_meta(fr, "avro.schema", &len);
            st = avk_writer_write_raw(&w, text, len, &err);
        }
        if (st == AVK_OK)
            st = avk_writer_write_raw(&w, "\n", 1, &err);
        rc = avkcli_stdout_close(&w, st, &err);
    }
    avk_file_reader_free(fr);
    free(pos);
    return rc;
}
