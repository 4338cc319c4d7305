/* avrokit frame: Avro JSON values (or raw datums) into a stream of single-object, Confluent or raw messages, length-prefixed or one per line in hex or base64. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_message.h"

#define PREFIX AVKCLI_PROG " frame"

/* The input when none is given (a modifiable string, as argv's are). */
static char stdin_name[] = "-";

static const char *const help =
    "Usage: " PREFIX " --format F --schema S.avsc [--id N] [options] [FILE]\n"
    "\n"
    "Reads values of the schema from FILE ('-' or left out: standard input): Avro\n"
    "JSON in any layout (--from json, the default) or raw binary datums back to\n"
    "back (--from binary, as jsontofrag writes them). Writes each as a message of\n"
    "the format F:\n"
    "  single-object  C3 01, the schema's CRC-64-AVRO fingerprint (8 bytes,\n"
    "                 little-endian), the datum (Avro's single-object encoding)\n"
    "  confluent      00, the schema id N (4 bytes, big-endian), the datum (the\n"
    "                 Confluent / Kafka wire format; needs --id)\n"
    "  raw            the datum alone\n"
    "and delimits the messages as --delimit says:\n"
    "  length         each preceded by its length, 4 bytes big-endian (default)\n"
    "  hex            one per line, lowercase hex digits\n"
    "  base64         one per line, base64 (RFC 4648, standard alphabet, padded)\n"
    "  none           back to back (single-object and confluent messages, and\n"
    "                 raw datums, delimit themselves once their schema is known)\n"
    "unframe reads them back. A value that does not parse or fit stops the run;\n"
    "an output file is then left as it was.\n"
    "\n"
    "Options:\n"
    "  --format F            single-object, confluent or raw (required)\n"
    "  --schema S            the schema: a file, or its JSON itself\n"
    "  --schema-file F       the same, from file F only\n"
    "  --id N                confluent: the schema's id in the registry (0-4294967295)\n"
    "  --delimit D           length (default), hex, base64 or none\n"
    "  --from json|binary    what the input holds (default json)\n"
    "  -o, --output OUT      write to OUT (default: standard output)\n"
    "  -h, --help            show this help and exit\n"
    "\n" AVKCLI_MESSAGE_LIMITS_HELP
    "\n"
    "Example:\n"
    "  " PREFIX " --format confluent --id 7 --schema user.avsc users.json -o users.msgs\n"
    "  " PREFIX " --format single-object --delimit hex --schema user.avsc users.json\n";

int avkcli_cmd_frame(int argc, char **argv)
{
    const char *schema_text = NULL, *schema_file = NULL, *output = "-", *format = NULL;
    const char *id_text = NULL, *delimit = NULL, *from = NULL, *max_message = NULL;
    avk_schema *schema = NULL;
    avkcli_frame_job job;
    uint64_t id = 0;
    int help_wanted, rc;
    size_t npos;
    char **pos;
    const avkcli_option opts[] = {
        {"--format", 'f', &format, NULL, "single-object, confluent or raw"},
        {"--schema", 's', &schema_text, NULL, "a schema file or JSON"},
        {"--schema-file", 0, &schema_file, NULL, "a schema file"},
        {"--id", 0, &id_text, NULL, "a schema id"},
        {"--delimit", 'd', &delimit, NULL, "length, hex, base64 or none"},
        {"--from", 0, &from, NULL, "json or binary"},
        {"--output", 'o', &output, NULL, "a file name ('-': standard output)"},
        {"--max-message", 0, &max_message, NULL, "a number of bytes"},
        AVKCLI_LIMIT_OPTIONS,
    };
    memset(&job, 0, sizeof job);
    job.id = -1;
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
    if (rc == AVKCLI_OK && !format)
        rc = avkcli_usage_error(PREFIX, "missing --format single-object|confluent|raw");
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_framing(PREFIX, format, &job.framing);
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_delimit(PREFIX, delimit, &job.delimit);
    if (rc == AVKCLI_OK && from && strcmp(from, "json") != 0 && strcmp(from, "binary") != 0)
        rc = avkcli_usage_error(PREFIX, "--from wants json or binary, not '%s'", from);
    job.from_binary = from && strcmp(from, "binary") == 0;
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_u64(PREFIX, "--id", id_text, &id);
    if (rc == AVKCLI_OK && id > UINT32_MAX)
        rc = avkcli_usage_error(PREFIX, "--id %s: ids are 4 bytes (0-4294967295)", id_text);
    if (rc == AVKCLI_OK && job.framing == AVK_FRAMING_CONFLUENT && !id_text)
        rc = avkcli_usage_error(PREFIX, "--format confluent needs --id N, the schema's id");
    if (rc == AVKCLI_OK && job.framing != AVK_FRAMING_CONFLUENT && id_text)
        rc = avkcli_usage_error(PREFIX, "--id goes with --format confluent only");
    if (rc == AVKCLI_OK && !schema_text && !schema_file)
        rc = avkcli_usage_error(PREFIX, "missing --schema S.avsc");
    if (rc == AVKCLI_OK && npos > 1)
        rc = avkcli_usage_error(PREFIX, "one input FILE at most ('-': standard input); the "
                                        "output goes to -o OUT");
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_size(PREFIX, "--max-message", max_message, &job.max_message);
    if (rc == AVKCLI_OK)
        rc = avkcli_load_schema_option(PREFIX, "--schema", schema_text, schema_file, &schema);
    if (rc == AVKCLI_OK) {
        job.input = npos ? pos[0] : stdin_name;
        job.output = output;
        job.schema = schema;
        if (id_text)
            job.id = (int64_t)id;
        avkcli_message_limits(&job.limits);
        rc = avkcli_frame_run(PREFIX, &job);
    }
    avk_schema_free(schema);
    free(pos);
    return rc;
}
