/* avrokit tojson: container files to Avro JSON, one record per line, streaming in constant memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_progress.h"

#define PREFIX AVKCLI_PROG " tojson"

static const char *const help =
    "Usage: " PREFIX " [options] FILE...\n"
    "\n"
    "Prints the records of Avro container files in the Avro JSON encoding, one\n"
    "record per line (unions as {\"branch\": value}, bytes as strings of code\n"
    "points 0-255). '-' reads standard input. Memory stays that of one record,\n"
    "whatever the file's size.\n"
    "\n"
    "Options:\n"
    "  --pretty              indent each record over several lines\n"
    "  --head [N]            stop after N records (over all files; 10 without N)\n"
    "  --reader-schema S     read the records through schema S, a file or the\n"
    "                        schema's JSON itself (text starting with {, [ or \"):\n"
    "                        fields S lacks are left out, fields the file lacks\n"
    "                        take their defaults, promotions applied\n"
    "  --reader-schema-file F  the same, from file F only\n"
    "  --quiet               no progress line on standard error\n"
    "  -h, --help            show this help and exit\n"
    "\n" AVKCLI_LIMITS_HELP
    "\n"
    "Example:\n"
    "  " PREFIX " --head 3 users.avro\n"
    "  " PREFIX " --reader-schema user-v2.avsc users.avro\n";

/* Writes the records of one file; *left counts down --head. */
static int dump(const char *path, unsigned flags, const avk_schema *reader_schema, uint64_t *left,
                avk_arena *arena, avk_writer *w, avkcli_progress *prog, uint64_t *records,
                uint64_t *bytes_before)
{
    avk_file_reader *fr;
    avk_file_reader_options ro;
    avk_value v;
    avk_error err;
    avk_status st = AVK_OK;
    int more = 1, rc;
    memset(&ro, 0, sizeof ro);
    ro.struct_size = sizeof ro;
    ro.reader_schema = reader_schema;
    rc = avkcli_reader_open(path, &ro, &fr);
    if (rc != AVKCLI_OK)
        return rc;
    while (*left) {
        st = avk_file_reader_next(fr, arena, &v, &more, &err);
        if (st != AVK_OK || !more)
            break;
        st = avk_value_write_json(&v, flags, w, &err);
        if (st == AVK_OK)
            st = avk_writer_write_raw(w, "\n", 1, &err);
        avk_arena_reset(arena);
        if (st != AVK_OK) { /* output failed */
            avkcli_progress_end(prog);
            fprintf(stderr, "%s: writing standard output: %s\n", AVKCLI_PROG, err.message);
            avk_file_reader_free(fr);
            return AVKCLI_FAIL;
        }
        --*left;
        if (avkcli_progress_due(prog, ++*records))
            avkcli_progress_update(prog, *records,
                                   *bytes_before + avk_file_reader_block_offset(fr));
    }
    if (st != AVK_OK) {
        avk_error ferr;
        /* The records before the damage are worth having: out they go first. */
        avk_writer_flush(w, &ferr);
        avkcli_progress_end(prog);
        avkcli_report(path, &err);
        rc = AVKCLI_FAIL;
    }
    *bytes_before += avkcli_file_size(path);
    avk_file_reader_free(fr);
    return rc;
}

/* --head without a number means 10, as in avro-tools: a bare --head
 * becomes --head=10 unless the next argument is a whole number (a file
 * name after it stays a file). Returns a malloc'd copy of argv. */
static char **head_default(int argc, char **argv)
{
    static char ten[] = "--head=10";
    char **args = (char **)malloc(sizeof *args * ((size_t)argc + 1));
    int i;
    if (!args)
        return NULL;
    for (i = 0; i < argc; i++) {
        const char *next = i + 1 < argc ? argv[i + 1] : "";
        args[i] = argv[i];
        if (i == 0)
            continue;
        if (strcmp(argv[i], "--") == 0) { /* the rest are files */
            while (++i < argc)
                args[i] = argv[i];
            break;
        }
        if (strcmp(argv[i], "--head") != 0)
            continue;
        if (next[0] && strspn(next, "0123456789") == strlen(next)) {
            i++;
            args[i] = argv[i];
        } else {
            args[i] = ten;
        }
    }
    args[argc] = NULL;
    return args;
}

int avkcli_cmd_tojson(int argc, char **argv)
{
    const char *head = NULL, *reader_text = NULL, *reader_file = NULL;
    avk_schema *reader_schema = NULL;
    int pretty = 0, quiet = 0, help_wanted, rc;
    uint64_t left = UINT64_MAX, records = 0, bytes = 0, total = 0;
    size_t npos, i;
    char **pos, **args;
    avk_arena *arena;
    avk_writer w;
    avk_error err;
    avkcli_progress prog;
    const avkcli_option opts[] = {
        {"--pretty", 0, NULL, &pretty, NULL},
        {"--head", 0, &head, NULL, "a number of records"},
        {"--reader-schema", 0, &reader_text, NULL, "a schema file or JSON"},
        {"--reader-schema-file", 0, &reader_file, NULL, "a schema file"},
        {"--quiet", 'q', NULL, &quiet, NULL},
        AVKCLI_LIMIT_OPTIONS,
    };
    pos = (char **)malloc(sizeof *pos * (size_t)argc);
    args = head_default(argc, argv);
    if (!pos || !args) {
        free(pos);
        free(args);
        return AVKCLI_FAIL;
    }
    rc = avkcli_parse_options(PREFIX, argc, args, opts, sizeof opts / sizeof opts[0], pos, &npos,
                              &help_wanted);
    if (rc == AVKCLI_OK && help_wanted) {
        fputs(help, stdout);
        free(pos);
        free(args);
        return AVKCLI_OK;
    }
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_u64(PREFIX, "--head", head, &left);
    if (rc == AVKCLI_OK && npos == 0)
        rc = avkcli_usage_error(PREFIX, "missing FILE (use '-' for standard input)");
    if (rc == AVKCLI_OK)
        rc = avkcli_load_schema_option(PREFIX, "--reader-schema", reader_text, reader_file,
                                       &reader_schema);
    if (rc != AVKCLI_OK) {
        free(pos);
        free(args);
        return rc;
    }
    if (avk_arena_new(NULL, &arena, &err) != AVK_OK) {
        fprintf(stderr, "%s: %s\n", AVKCLI_PROG, err.message);
        avk_schema_free(reader_schema);
        free(pos);
        free(args);
        return AVKCLI_FAIL;
    }
    rc = avkcli_stdout_open(&w);
    if (rc == AVKCLI_OK) {
        for (i = 0; i < npos; i++)
            total += avkcli_file_size(pos[i]);
        avkcli_progress_start(&prog, "tojson", total, 0, quiet);
        for (i = 0; i < npos && rc == AVKCLI_OK && left; i++)
            rc = dump(pos[i], pretty ? AVK_JSON_PRETTY : 0, reader_schema, &left, arena, &w,
                      &prog, &records, &bytes);
        avkcli_progress_end(&prog);
        if (rc == AVKCLI_OK)
            rc = avkcli_stdout_close(&w, AVK_OK, NULL);
        else
            avk_writer_destroy(&w);
    }
    avk_arena_free(arena);
    avk_schema_free(reader_schema);
    free(pos);
    free(args);
    return rc;
}
