/* avrokit tojson: container files to Avro JSON, one record per line, blocks turned into text on -j threads, in memory bounded by the blocks in flight. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_progress.h"
#include "cli_json_blocks.h"
#include "cli_records.h"

#define PREFIX AVKCLI_PROG " tojson"

static const char *const help =
    "Usage: " PREFIX " [options] FILE...\n"
    "\n"
    "Prints the records of Avro container files in the Avro JSON encoding, one\n"
    "record per line (unions as {\"branch\": value}, bytes as strings of code\n"
    "points 0-255). '-' reads standard input. Memory stays that of the blocks in\n"
    "flight (with -j N, up to 2N + 1 blocks and their text), whatever the file's\n"
    "size.\n"
    "\n"
    "Options:\n"
    "  --pretty              indent each record over several lines\n"
    "  --head [N]            stop after N records (over all files; 10 without N)\n"
    "  --offset N            skip the first N records (over all files, as if they\n"
    "                        were one): through each file's block index (its\n"
    "                        sidecar FILE.avkidx when up to date, else built from\n"
    "                        the block headers), so only one block is decoded;\n"
    "                        in order from standard input\n"
    "  --limit N             print at most N records (as --head N)\n"
    "  --reader-schema S     read the records through schema S, a file or the\n"
    "                        schema's JSON itself (text starting with {, [ or \"):\n"
    "                        fields S lacks are left out, fields the file lacks\n"
    "                        take their defaults, promotions applied\n"
    "  --reader-schema-file F  the same, from file F only\n"
    "  --invalid-utf8 fail|replace\n"
    "                        a string that is not UTF-8 (JSON text must be): an\n"
    "                        error naming the record (fail, the default), or\n"
    "                        U+FFFD for each invalid sequence (replace)\n"
    AVKCLI_JOBS_HELP
    "  --quiet               no progress line on standard error\n"
    "  -h, --help            show this help and exit\n"
    "\n" AVKCLI_LIMITS_HELP
    "\n"
    "Example:\n"
    "  " PREFIX " --head 3 users.avro\n"
    "  " PREFIX " --offset 1000000 --limit 10 big.avro\n"
    "  " PREFIX " --reader-schema user-v2.avsc users.avro\n";

/* The end of dump: the outcome of the last next_work (st, err, with its
 * slot) reported as reading in order reports it. */
static int dump_failed(const char *path, avkcli_json_blocks *jb, unsigned slot,
                       uint64_t block_base, avk_writer *w, avkcli_progress *prog,
                       const avk_error *err)
{
    avk_error ferr;
    uint64_t block, record;
    avk_status vst;
    const avk_error *verr;
    /* The records before the damage are worth having: out they went first. */
    avk_writer_flush(w, &ferr);
    avkcli_progress_end(prog);
    if (avkcli_json_blocks_value_error(jb, slot, &block, &record, &vst, &verr))
        avkcli_report_value(path, block_base + block, record, vst, verr);
    else
        avkcli_report(path, err);
    return AVKCLI_FAIL;
}

/* Writes the records of one file; *offset counts down --offset, *left
 * --head and --limit. Blocks are turned into JSON text by the reader's
 * work threads (jobs of them; 1: on this thread), and written here in
 * file order. */
static int dump(const char *path, unsigned flags, unsigned jobs,
                const avk_schema *reader_schema, uint64_t *offset, uint64_t *left,
                avk_writer *w, avkcli_progress *prog, uint64_t *records,
                uint64_t *bytes_before)
{
    avk_file_reader *fr = NULL;
    avk_file_reader_options ro;
    avk_error err;
    avk_status st = AVK_OK;
    avkcli_skipped skipped;
    avkcli_json_blocks *jb;
    int more = 1, rc;
    unsigned slot = AVK_FILE_NO_SLOT;
    if (avkcli_json_blocks_new(flags, &jb) != AVKCLI_OK)
        return AVKCLI_FAIL;
    avk_file_reader_options_init(&ro);
    ro.reader_schema = reader_schema;
    avkcli_jobs_apply(&ro, jobs);
    ro.work = avkcli_json_blocks_work;
    ro.work_ctx = jb;
    rc = avkcli_reader_open(path, &ro, &fr);
    if (rc == AVKCLI_OK)
        rc = avkcli_json_blocks_ready(jb, avk_file_reader_slots(fr));
    if (rc == AVKCLI_OK)
        rc = avkcli_skip_records(path, fr, &ro, offset, &skipped);
    while (rc == AVKCLI_OK && *left) {
        int64_t taken;
        uint64_t lines;
        avk_status wst;
        st = avk_file_reader_next_work(fr, &slot, &taken, &more, &err);
        if (slot == AVK_FILE_NO_SLOT) {
            if (st != AVK_OK)
                rc = dump_failed(path, jb, slot, skipped.block_base, w, prog, &err);
            break;
        }
        /* A failed block's records before the bad one go out first; with
         * --head met among them, the failure is never reached. */
        wst = avkcli_json_blocks_write(jb, slot, left, w, &lines, &err);
        if (wst != AVK_OK) {
            avkcli_progress_end(prog);
            fprintf(stderr, "%s: writing standard output: %s\n", AVKCLI_PROG, err.message);
            rc = AVKCLI_FAIL;
            break;
        }
        *records += lines;
        if (st != AVK_OK) {
            if (*left)
                rc = dump_failed(path, jb, slot, skipped.block_base, w, prog, &err);
            break;
        }
        if (!more)
            break;
        avkcli_progress_update(prog, *records, *bytes_before + avk_file_reader_block_offset(fr));
    }
    *bytes_before += avkcli_file_size(path);
    avk_file_reader_free(fr); /* joins the workers before their text goes */
    avkcli_json_blocks_free(jb);
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
    const char *offset_text = NULL, *limit_text = NULL, *jobs_text = NULL;
    unsigned utf8_flag = 0, jobs = 1;
    avk_schema *reader_schema = NULL;
    int pretty = 0, quiet = 0, help_wanted, rc;
    uint64_t left = UINT64_MAX, limit = UINT64_MAX, offset = 0, records = 0, bytes = 0, total = 0;
    size_t npos, i;
    char **pos, **args;
    avk_writer w;
    avkcli_progress prog;
    const avkcli_option opts[] = {
        {"--pretty", 0, NULL, &pretty, NULL},
        {"--head", 0, &head, NULL, "a number of records"},
        {"--offset", 0, &offset_text, NULL, "a number of records"},
        {"--limit", 0, &limit_text, NULL, "a number of records"},
        {"--reader-schema", 0, &reader_text, NULL, "a schema file or JSON"},
        {"--reader-schema-file", 0, &reader_file, NULL, "a schema file"},
        {"--invalid-utf8", 0, &invalid_utf8, NULL, "fail or replace"},
        {"--quiet", 'q', NULL, &quiet, NULL},
        AVKCLI_JOBS_OPTION(jobs_text),
        AVKCLI_LIMIT_OPTIONS,
    };
    pos = (char **)malloc(sizeof *pos * (size_t)argc);
    args = head_default(argc, argv);
    if (!pos || !args) {
        fprintf(stderr, "%s: out of memory\n", AVKCLI_PROG);
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
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_u64(PREFIX, "--offset", offset_text, &offset);
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_u64(PREFIX, "--limit", limit_text, &limit);
    if (limit < left) /* --head and --limit together: the smaller */
        left = limit;
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
        rc = avkcli_parse_jobs(PREFIX, jobs_text, pos, npos, &jobs);
    if (rc == AVKCLI_OK)
        rc = avkcli_load_schema_option(PREFIX, "--reader-schema", reader_text, reader_file,
                                       &reader_schema);
    if (rc != AVKCLI_OK) {
        free(pos);
        free(args);
        return rc;
    }
    rc = avkcli_stdout_open(&w);
    if (rc == AVKCLI_OK) {
        for (i = 0; i < npos; i++)
            total += avkcli_file_size(pos[i]);
        avkcli_progress_start(&prog, "tojson", total, 0, quiet);
        for (i = 0; i < npos && rc == AVKCLI_OK && left; i++)
            rc = dump(pos[i], (pretty ? AVK_JSON_PRETTY : 0) | utf8_flag, jobs, reader_schema,
                      &offset, &left, &w, &prog, &records, &bytes);
        avkcli_progress_end(&prog);
        if (rc == AVKCLI_OK)
            rc = avkcli_stdout_close(&w, AVK_OK, NULL);
        else
            avk_writer_destroy(&w);
    }
    avk_schema_free(reader_schema);
    free(pos);
    free(args);
    return rc;
}
