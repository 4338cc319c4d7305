/* avrokit unframe: a stream of single-object, Confluent or raw messages into Avro JSON lines (or raw datums), writer schemas found in a schema store. */
/* POSIX: stat (the build is strict C11). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cli_message.h"

#define PREFIX AVKCLI_PROG " unframe"

/* The input when none is given (a modifiable string, as argv's are). */
static char stdin_name[] = "-";

static const char *const help =
    "Usage: " PREFIX " --format F (--schema S.avsc | --schemas DIR|FILE)... [options] [FILE]\n"
    "\n"
    "Reads messages of the format F (single-object, confluent or raw; see frame)\n"
    "from FILE ('-' or left out: standard input), delimited as --delimit says\n"
    "(length: each after its 4-byte big-endian length, the default; hex or base64:\n"
    "one per line; none: back to back), and prints each message's value as a line\n"
    "of Avro JSON (--to json, the default) or writes its raw binary datum (--to\n"
    "binary). The writer schema of each message is found by its fingerprint\n"
    "(single-object) or id (confluent) among the schemas given; raw messages take\n"
    "the one --schema. An unknown fingerprint or id, a bad marker or magic byte, a\n"
    "message cut short or one that does not decode stops the run with the\n"
    "message's number and byte offset (exit status 1), after the values before it.\n"
    "\n"
    "Options:\n"
    "  --format F            single-object, confluent or raw (required)\n"
    "  --schema S            a writer schema (a file or its JSON); repeat for more.\n"
    "                        N=S gives it the id N (confluent)\n"
    "  --id N                confluent: the id of the one --schema given without one\n"
    "  --schemas DIR|FILE    more writer schemas: a directory of ID.avsc files, or\n"
    "                        one JSON file: {\"ID\": schema, ...}, [{\"id\": ID,\n"
    "                        \"schema\": schema}, ...] or [schema, ...]; repeatable\n"
    "  --reader-schema R     print the values resolved into schema R (a file or JSON)\n"
    "  --reader-schema-file F  the same, from file F only\n"
    "  --delimit D           length (default), hex, base64 or none\n"
    "  --to json|binary      Avro JSON lines (default) or raw datums back to back\n"
    "  --pretty              indent each value over several lines\n"
    "  --invalid-utf8 fail|replace\n"
    "                        a string that is not UTF-8: an error (fail, the\n"
    "                        default), or U+FFFD for each invalid sequence\n"
    "  -o, --output OUT      write to OUT (default: standard output)\n"
    "  -h, --help            show this help and exit\n"
    "\n" AVKCLI_MESSAGE_LIMITS_HELP
    "\n"
    "Example:\n"
    "  " PREFIX " --format confluent --schemas registry/ users.msgs\n"
    "  " PREFIX " --format single-object --delimit none --schema user.avsc msg.bin\n";

/* Adds the schema of one --schema argument ("S" or "N=S") to store; id is
 * the --id value for a schema given without its own (-1: none). */
static int add_schema(avk_schema_store *store, const char *arg, int64_t id)
{
    const char *eq = strchr(arg, '=');
    size_t digits = strspn(arg, "0123456789");
    avk_schema *schema = NULL;
    avk_error err;
    int rc;
    if (eq && digits > 0 && arg + digits == eq) {
        /* 10 digits at most, so strtoull cannot overflow. */
        uint64_t v = digits > 10 ? UINT64_MAX : (uint64_t)strtoull(arg, NULL, 10);
        if (v > UINT32_MAX)
            return avkcli_usage_error(PREFIX, "--schema %s: ids are 4 bytes (0-4294967295)",
                                      arg);
        id = (int64_t)v;
        arg = eq + 1;
    }
    if ((rc = avkcli_load_schema(arg, &schema)) != AVKCLI_OK)
        return rc;
    if (avk_schema_store_add_schema(store, schema, id, NULL, &err) != AVK_OK) {
        fprintf(stderr, "%s: %s\n", avkcli_display_name(arg), err.message);
        rc = AVKCLI_FAIL;
    }
    avk_schema_free(schema);
    return rc;
}

/* 1 when a --schema argument gives its own id ("N=S"). */
static int has_id(const char *arg)
{
    size_t digits = strspn(arg, "0123456789");
    return digits > 0 && arg[digits] == '=';
}

static int add_schemas(avk_schema_store *store, const char *path)
{
    struct stat st;
    avk_error err;
    avk_status s;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        s = avk_schema_store_load_dir(store, path, &err);
    else
        s = avk_schema_store_load_file(store, path, &err);
    if (s == AVK_OK)
        return AVKCLI_OK;
    if (strstr(err.message, path))
        fprintf(stderr, "%s: %s\n", PREFIX, err.message);
    else
        fprintf(stderr, "%s: %s\n", path, err.message);
    return AVKCLI_FAIL;
}

int avkcli_cmd_unframe(int argc, char **argv)
{
    const char *output = "-", *format = NULL, *id_text = NULL, *delimit = NULL, *to = NULL;
    const char *reader_text = NULL, *reader_file = NULL, *invalid_utf8 = NULL;
    const char *max_message = NULL;
    const char **schemas = NULL, **dirs = NULL;
    size_t nschemas = 0, ndirs = 0, npos, i, without_id = 0;
    avk_schema *reader = NULL, *raw_schema = NULL;
    avk_schema_store *store = NULL;
    avk_schema_store_options so;
    avk_plan_options po;
    avkcli_unframe_job job;
    uint64_t id = 0;
    int help_wanted, rc, pretty = 0;
    char **pos;
    const avkcli_option opts[] = {
        {"--format", 'f', &format, NULL, "single-object, confluent or raw"},
        {"--id", 0, &id_text, NULL, "a schema id"},
        {"--reader-schema", 0, &reader_text, NULL, "a schema file or JSON"},
        {"--reader-schema-file", 0, &reader_file, NULL, "a schema file"},
        {"--delimit", 'd', &delimit, NULL, "length, hex, base64 or none"},
        {"--to", 0, &to, NULL, "json or binary"},
        {"--pretty", 0, NULL, &pretty, NULL},
        {"--invalid-utf8", 0, &invalid_utf8, NULL, "fail or replace"},
        {"--output", 'o', &output, NULL, "a file name ('-': standard output)"},
        {"--max-message", 0, &max_message, NULL, "a number of bytes"},
        AVKCLI_LIMIT_OPTIONS,
    };
    memset(&job, 0, sizeof job);
    pos = (char **)malloc(sizeof *pos * (size_t)argc);
    schemas = (const char **)malloc(sizeof *schemas * (size_t)argc);
    dirs = (const char **)malloc(sizeof *dirs * (size_t)argc);
    if (!pos || !schemas || !dirs) {
        fprintf(stderr, "%s: out of memory\n", AVKCLI_PROG);
        free(pos);
        free((void *)schemas);
        free((void *)dirs);
        return AVKCLI_FAIL;
    }
    rc = avkcli_take_repeated(PREFIX, "--schema", &argc, argv, schemas, &nschemas);
    if (rc == AVKCLI_OK)
        rc = avkcli_take_repeated(PREFIX, "--schemas", &argc, argv, dirs, &ndirs);
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_options(PREFIX, argc, argv, opts, sizeof opts / sizeof opts[0], pos,
                                  &npos, &help_wanted);
    if (rc == AVKCLI_OK && help_wanted) {
        fputs(help, stdout);
        goto done;
    }
    for (i = 0; i < nschemas; i++)
        without_id += !has_id(schemas[i]);
    if (rc == AVKCLI_OK && !format)
        rc = avkcli_usage_error(PREFIX, "missing --format single-object|confluent|raw");
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_framing(PREFIX, format, &job.framing);
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_delimit(PREFIX, delimit, &job.delimit);
    if (rc == AVKCLI_OK && to && strcmp(to, "json") != 0 && strcmp(to, "binary") != 0)
        rc = avkcli_usage_error(PREFIX, "--to wants json or binary, not '%s'", to);
    job.to_binary = to && strcmp(to, "binary") == 0;
    if (rc == AVKCLI_OK && invalid_utf8) {
        if (strcmp(invalid_utf8, "replace") == 0)
            job.json_flags |= AVK_JSON_REPLACE_INVALID_UTF8;
        else if (strcmp(invalid_utf8, "fail") != 0)
            rc = avkcli_usage_error(PREFIX, "--invalid-utf8 wants fail or replace, not '%s'",
                                    invalid_utf8);
    }
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_u64(PREFIX, "--id", id_text, &id);
    if (rc == AVKCLI_OK && id > UINT32_MAX)
        rc = avkcli_usage_error(PREFIX, "--id %s: ids are 4 bytes (0-4294967295)", id_text);
    if (rc == AVKCLI_OK && id_text && job.framing != AVK_FRAMING_CONFLUENT)
        rc = avkcli_usage_error(PREFIX, "--id goes with --format confluent only");
    if (rc == AVKCLI_OK && id_text && without_id != 1)
        rc = avkcli_usage_error(PREFIX, "--id gives the id of one --schema; with several, "
                                        "give each its own: --schema N=FILE");
    if (rc == AVKCLI_OK && job.framing == AVK_FRAMING_CONFLUENT && without_id && !id_text)
        rc = avkcli_usage_error(PREFIX, "confluent messages name their schema by id: give "
                                        "--id N, or --schema N=FILE");
    if (rc == AVKCLI_OK && job.framing == AVK_FRAMING_RAW &&
        (nschemas != 1 || ndirs || has_id(schemas[0])))
        rc = avkcli_usage_error(PREFIX, "raw messages need exactly one --schema S (no "
                                        "--schemas, no id)");
    if (rc == AVKCLI_OK && nschemas == 0 && ndirs == 0)
        rc = avkcli_usage_error(PREFIX, "missing --schema S.avsc or --schemas DIR|FILE");
    if (rc == AVKCLI_OK && npos > 1)
        rc = avkcli_usage_error(PREFIX, "one input FILE at most ('-': standard input); the "
                                        "output goes to -o OUT");
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_size(PREFIX, "--max-message", max_message, &job.max_message);
    if (rc == AVKCLI_OK)
        rc = avkcli_load_schema_option(PREFIX, "--reader-schema", reader_text, reader_file,
                                       &reader);
    avkcli_message_limits(&job.limits);
    if (rc == AVKCLI_OK && job.framing == AVK_FRAMING_RAW) {
        rc = avkcli_load_schema(schemas[0], &raw_schema);
    } else if (rc == AVKCLI_OK) {
        avk_error err;
        avk_plan_options_init(&po);
        po.limits = job.limits;
        memset(&so, 0, sizeof so);
        so.struct_size = sizeof so;
        so.plan = &po;
        if (avk_schema_store_new(&so, &store, &err) != AVK_OK) {
            fprintf(stderr, "%s: %s\n", AVKCLI_PROG, err.message);
            rc = AVKCLI_FAIL;
        }
        for (i = 0; i < nschemas && rc == AVKCLI_OK; i++)
            rc = add_schema(store, schemas[i], id_text ? (int64_t)id : -1);
        for (i = 0; i < ndirs && rc == AVKCLI_OK; i++)
            rc = add_schemas(store, dirs[i]);
    }
    if (rc == AVKCLI_OK) {
        job.input = npos ? pos[0] : stdin_name;
        job.output = output;
        job.store = store;
        job.schema = raw_schema;
        job.reader = reader;
        if (pretty)
            job.json_flags |= AVK_JSON_PRETTY;
        rc = avkcli_unframe_run(PREFIX, &job);
    }
done:
    avk_schema_store_free(store);
    avk_schema_free(raw_schema);
    avk_schema_free(reader);
    free(pos);
    free((void *)schemas);
    free((void *)dirs);
    return rc;
}
