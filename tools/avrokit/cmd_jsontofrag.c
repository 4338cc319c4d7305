/* avrokit jsontofrag: Avro JSON values into raw binary datums back to back, as avro-tools' jsontofrag writes them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_message.h"

#define PREFIX AVKCLI_PROG " jsontofrag"

/* The input when none is given (a modifiable string, as argv's are). */
static char stdin_name[] = "-";

static const char *const help =
    "Usage: " PREFIX " --schema S.avsc [options] [FILE]\n"
    "       " PREFIX " [options] SCHEMA FILE   (avro-tools' form)\n"
    "\n"
    "Reads Avro JSON values of the schema from FILE ('-' or left out: standard\n"
    "input), in any layout (one per line, several on a line, pretty-printed), and\n"
    "writes each as its raw binary datum (the Avro binary encoding, no header),\n"
    "back to back, as avro-tools' jsontofrag does. fragtojson reads them back.\n"
    "A value that does not parse or fit the schema stops the run with its line,\n"
    "column and value path; an output file is then left as it was.\n"
    "\n"
    "Options:\n"
    "  --schema S            the schema: a file, or its JSON itself (text starting\n"
    "                        with {, [ or \")\n"
    "  --schema-file F       the same, from file F only (avro-tools' spelling)\n"
    "  --schema-json TEXT    the same, the schema's JSON itself\n"
    "  -o, --output OUT      write to OUT (default: standard output); an existing\n"
    "                        file is replaced only when the run succeeds\n"
    "  -h, --help            show this help and exit\n"
    "\n" AVKCLI_MESSAGE_LIMITS_HELP
    "\n"
    "Example:\n"
    "  " PREFIX " --schema user.avsc users.json -o users.bin\n"
    "  " AVKCLI_PROG " tojson users.avro | " PREFIX " --schema user.avsc - | xxd\n";

int avkcli_cmd_jsontofrag(int argc, char **argv)
{
    const char *schema_text = NULL, *schema_file = NULL, *schema_json = NULL, *output = "-";
    const char *max_message = NULL;
    avk_schema *schema = NULL;
    avkcli_frame_job job;
    int help_wanted, rc;
    size_t npos;
    char **pos;
    const avkcli_option opts[] = {
        {"--schema", 's', &schema_text, NULL, "a schema file or JSON"},
        {"--schema-file", 0, &schema_file, NULL, "a schema file"},
        {"--schema-json", 0, &schema_json, NULL, "a schema's JSON"},
        {"--output", 'o', &output, NULL, "a file name ('-': standard output)"},
        {"--max-message", 0, &max_message, NULL, "a number of bytes"},
        AVKCLI_LIMIT_OPTIONS,
    };
    memset(&job, 0, sizeof job);
    pos = (char **)malloc(sizeof *pos * (size_t)argc);
    if (!pos) {
        fprintf(stderr, "%s: out of memory\n", AVKCLI_PROG);
        return AVKCLI_FAIL;
    }
    rc = avkcli_parse_options(PREFIX, argc, argv, opts, sizeof opts / sizeof opts[0], pos, &npos,
                              &help_wanted);
    if (rc == AVKCLI_OK && help_wanted) {
        fputs(help, stdout);
        free(pos);
        return AVKCLI_OK;
    }
    if (rc == AVKCLI_OK)
        rc = avkcli_frag_schema_given(PREFIX, &schema_text, schema_file, schema_json, pos,
                                      &npos);
    if (rc == AVKCLI_OK && npos > 1)
        rc = avkcli_usage_error(PREFIX, "one input FILE at most ('-': standard input); the "
                                        "output goes to -o OUT");
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_size(PREFIX, "--max-message", max_message, &job.max_message);
    if (rc == AVKCLI_OK)
        rc = avkcli_frag_schema_load(schema_text, schema_file, schema_json, &schema);
    if (rc == AVKCLI_OK) {
        job.input = npos ? pos[0] : stdin_name;
        job.output = output;
        job.schema = schema;
        job.framing = AVK_FRAMING_RAW;
        job.id = -1;
        job.delimit = AVKCLI_DELIMIT_NONE;
        avkcli_message_limits(&job.limits);
        rc = avkcli_frame_run(PREFIX, &job);
    }
    avk_schema_free(schema);
    free(pos);
    return rc;
}
