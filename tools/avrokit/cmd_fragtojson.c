/* avrokit fragtojson: raw binary datums back to back into Avro JSON lines, as avro-tools' fragtojson prints them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_message.h"

#define PREFIX AVKCLI_PROG " fragtojson"

/* The input when none is given (a modifiable string, as argv's are). */
static char stdin_name[] = "-";

static const char *const help =
    "Usage: " PREFIX " --schema S.avsc [options] [FILE]\n"
    "       " PREFIX " [options] SCHEMA FILE   (avro-tools' form)\n"
    "\n"
    "Reads raw binary datums of the schema (the Avro binary encoding, no header),\n"
    "back to back until the end of FILE ('-' or left out: standard input), as\n"
    "jsontofrag and avro-tools' jsontofrag write them, and prints each as a line of\n"
    "Avro JSON. The input is read in pieces: memory stays that of one datum. A\n"
    "datum the input cuts short, or one that does not decode, stops the run with\n"
    "its number and byte offset (exit status 1), after the values before it.\n"
    "\n"
    "Options:\n"
    "  --schema S            the writer schema: a file, or its JSON itself\n"
    "  --schema-file F       the same, from file F only (avro-tools' spelling)\n"
    "  --schema-json TEXT    the same, the schema's JSON itself\n"
    "  --reader-schema R     print the values resolved into schema R (a file or JSON)\n"
    "  --reader-schema-file F  the same, from file F only\n"
    "  --pretty              indent each value over several lines\n"
    "  --no-pretty           one line per value (the default; avro-tools' flag)\n"
    "  --invalid-utf8 fail|replace\n"
    "                        a string that is not UTF-8: an error (fail, the\n"
    "                        default), or U+FFFD for each invalid sequence\n"
    "  -o, --output OUT      write to OUT (default: standard output)\n"
    "  -h, --help            show this help and exit\n"
    "\n" AVKCLI_MESSAGE_LIMITS_HELP
    "\n"
    "Example:\n"
    "  " PREFIX " --schema user.avsc users.bin\n";

int avkcli_cmd_fragtojson(int argc, char **argv)
{
    const char *schema_text = NULL, *schema_file = NULL, *schema_json = NULL, *output = "-";
    const char *reader_text = NULL, *reader_file = NULL, *invalid_utf8 = NULL;
    const char *max_message = NULL;
    avk_schema *schema = NULL, *reader = NULL;
    avkcli_unframe_job job;
    int help_wanted, rc, pretty = 0, no_pretty = 0;
    size_t npos;
    char **pos;
    const avkcli_option opts[] = {
        {"--schema", 's', &schema_text, NULL, "a schema file or JSON"},
        {"--schema-file", 0, &schema_file, NULL, "a schema file"},
        {"--schema-json", 0, &schema_json, NULL, "a schema's JSON"},
        {"--reader-schema", 0, &reader_text, NULL, "a schema file or JSON"},
        {"--reader-schema-file", 0, &reader_file, NULL, "a schema file"},
        {"--pretty", 0, NULL, &pretty, NULL},
        {"--no-pretty", 0, NULL, &no_pretty, NULL},
        {"--invalid-utf8", 0, &invalid_utf8, NULL, "fail or replace"},
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
        rc = avkcli_usage_error(PREFIX, "one input FILE at most ('-': standard input)");
    if (rc == AVKCLI_OK && invalid_utf8) {
        if (strcmp(invalid_utf8, "replace") == 0)
            job.json_flags |= AVK_JSON_REPLACE_INVALID_UTF8;
        else if (strcmp(invalid_utf8, "fail") != 0)
            rc = avkcli_usage_error(PREFIX, "--invalid-utf8 wants fail or replace, not '%s'",
                                    invalid_utf8);
    }
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_size(PREFIX, "--max-message", max_message, &job.max_message);
    if (rc == AVKCLI_OK)
        rc = avkcli_load_schema_option(PREFIX, "--reader-schema", reader_text, reader_file,
                                       &reader);
    if (rc == AVKCLI_OK)
        rc = avkcli_frag_schema_load(schema_text, schema_file, schema_json, &schema);
    if (rc == AVKCLI_OK) {
        job.input = npos ? pos[0] : stdin_name;
        job.output = output;
        job.framing = AVK_FRAMING_RAW;
        job.schema = schema;
        job.reader = reader;
        job.delimit = AVKCLI_DELIMIT_NONE;
        if (pretty)
            job.json_flags |= AVK_JSON_PRETTY;
        avkcli_message_limits(&job.limits);
        rc = avkcli_unframe_run(PREFIX, &job);
    }
    avk_schema_free(reader);
    avk_schema_free(schema);
    free(pos);
    return rc;
}
