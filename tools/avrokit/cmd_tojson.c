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
    "  --invalid-utf8 fail|replace\n"
    "                        a string that is not UTF-8 (JSON text must be): an\n"
    "                        error naming the record (fail, the default), or\n"
    "                        U+FFFD for each invalid sequence (replace)\n"
    "  --quiet               no progress line on standard error\n"
    "  -h, --help            show this help and exit\n"
    "\n" AVKCLI_LIMITS_HELP
    "\n"
    "Example:\n"
    "  " PREFIX " --head 3 users.avro\n"
    "  " PREFIX " --reader-schema user-v2.avsc users.avro\n";

/* Writes v and a newline to w through rec (a memory writer), so that a
 * value that cannot be written (a string that is not UTF-8) leaves
 * nothing of it in the output. *value_error tells its errors from the
 * output's. */
static avk_status write_record(const avk_value *v, unsigned flags, avk_writer *rec, avk_writer *w,
                               int *value_error, avk_error *err)
{
    const uint8_t *data;
    size_t len;
    avk_status st;
    avk_writer_reset(rec);
    st = avk_value_write_json(v, flags, rec, err);
    *value_error = st != AVK_OK;
    if (st == AVK_OK)
        st = avk_writer_write_raw(rec, "\n", 1, err);
    if (st != AVK_OK)
        return st;
    data = avk_writer_data(rec, &len);
    return avk_writer_write_raw(w, data, len, err);
}

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
    avk_writer rec;
    avk_file_reader_stats stats;
    uint64_t blocks = 0, block_first = 0;
    int more = 1, rc, value_error = 0;
    memset(&ro, 0, sizeof ro);
    ro.struct_size = sizeof ro;
    ro.reader_schema = reader_schema;
    rc = avkcli_reader_open(path, &ro, &fr);
    if (rc != AVKCLI_OK)
        return rc;
    if (avk_writer_init_memory(&rec, NULL, &err) != AVK_OK) {
        fprintf(stderr, "%s: %s\n", AVKCLI_PROG, err.message);
        avk_file_reader_free(fr);
        return AVKCLI_FAIL;
    }
    while (*left) {
        st = avk_file_reader_next(fr, arena, &v, &more, &err);
        if (st != AVK_OK || !more)
            break;
        /* Where the record is, for a message: its block, its index there. */
        avk_file_reader_get_stats(fr, &stats);
        if (stats.blocks != blocks) {
            blocks = stats.blocks;
            block_first = stats.records - 1;
        }
        st = write_record(&v, flags, &rec, w, &value_error, &err);
        avk_arena_reset(arena);
        if (st != AVK_OK && value_error) {
            avk_error ferr;
            avk_writer_flush(w, &ferr); /* the records before it */
            avkcli_progress_end(prog);
            fprintf(stderr, "%s: block %llu, record %llu: %s%s\n", avkcli_display_name(path),
                    (unsigned long long)(blocks - 1),
                    (unsigned long long)(stats.records - 1 - block_first), err.message,
                    st == AVK_ERR_MALFORMED ? " (--invalid-utf8=replace writes U+FFFD instead)"
                                            : "");
            avk_writer_destroy(&rec);
            avk_file_reader_free(fr);
            return AVKCLI_FAIL;
        }
        if (st != AVK_OK) { /* output failed */
            avkcli_progress_end(prog);
            fprintf(stderr, "%s: writing standard output: %s\n", AVKCLI_PROG, err.message);
            avk_writer_destroy(&rec);
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
    avk_writer_destroy(&rec);
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
    const char *head = NULL, *reader_text = NULL, *reader_file = NULL, *invalid_utf8 = NULL;
    unsigned utf8_flag = 0;
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
        {"--invalid-utf8", 0, &invalid_utf8, NULL, "fail or replace"},
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
    if (rc == AVKCLI_OK && invalid_utf8) {
        if (strcmp(invalid_utf8, "replace") == 0)
            utf8_flag = AVK_JSON_REPLACE_INVALID_UTF8;
        else if (strcmp(invalid_utf8, "fail") != 0)
            rc = avkcli_usage_error(PREFIX, "--invalid-utf8 wants fail or replace, not '%s'",
                                    invalid_utf8);
    }
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
            rc = dump(pos[i], (pretty ? AVK_JSON_PRETTY : 0) | utf8_flag, reader_schema, &left,
                      arena, &w, &prog, &records, &bytes);
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
