/* avrokit concat: join container files, copying blocks as they are when schema and codec allow it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_progress.h"

#define PREFIX AVKCLI_PROG " concat"

static const char *const help =
    "Usage: " PREFIX " [options] FILE... OUT.avro\n"
    "\n"
    "Joins the container files FILE... ('-': standard input for one of them) into\n"
    "OUT.avro ('-': standard output), which gets the first file's schema, codec and\n"
    "user metadata. Every file must have the same schema (the same Parsing\n"
    "Canonical Form). Blocks of files with the first file's codec are copied as\n"
    "they are, without decompressing or decoding them; the records of the other\n"
    "files are decoded and written again with the first file's codec.\n"
    "OUT.avro is written beside itself and replaces an existing file only when\n"
    "the command succeeds.\n"
    "\n"
    "Options:\n"
    "  --quiet      no progress line on standard error\n"
    "  -h, --help   show this help and exit\n"
    "\n" AVKCLI_LIMITS_HELP
    "\n"
    "Example:\n"
    "  " PREFIX " part-0.avro part-1.avro part-2.avro all.avro\n";

typedef struct concat_state {
    uint64_t records; /* for progress */
    uint64_t bytes;   /* input bytes of the files done */
    avkcli_progress prog;
    avk_arena *arena;
    avk_file_writer *fw;
} concat_state;

/* Same codec: blocks go across untouched. */
static int copy_blocks(concat_state *s, const char *path, avk_file_reader *fr)
{
    avk_file_block b;
    avk_error err;
    avk_status st;
    int more = 1;
    while ((st = avk_file_reader_next_block(fr, &b, &more, &err)) == AVK_OK && more) {
        if (b.count == 0) /* nothing to keep; the writer takes positive counts only */
            continue;
        if (avk_file_writer_append_block(s->fw, b.count, b.data, b.size, &err) != AVK_OK) {
            avkcli_progress_end(&s->prog);
            fprintf(stderr, "%s: %s\n", avkcli_display_name(path), err.message);
            return AVKCLI_FAIL;
        }
        s->records += (uint64_t)b.count;
        avkcli_progress_update(&s->prog, s->records, s->bytes + b.end);
    }
    if (st != AVK_OK) {
        avkcli_progress_end(&s->prog);
        avkcli_report(path, &err);
        return AVKCLI_FAIL;
    }
    return AVKCLI_OK;
}

/* Another codec: records are decoded and encoded again. */
static int copy_records(concat_state *s, const char *path, avk_file_reader *fr)
{
    avk_value v;
    avk_error err;
    avk_status st;
    int more = 1;
    while ((st = avk_file_reader_next(fr, s->arena, &v, &more, &err)) == AVK_OK && more) {
        st = avk_file_writer_append(s->fw, &v, &err);
        avk_arena_reset(s->arena);
        if (st != AVK_OK)
            break;
        if (avkcli_progress_due(&s->prog, ++s->records))
            avkcli_progress_update(&s->prog, s->records,
                                   s->bytes + avk_file_reader_block_offset(fr));
    }
    if (st != AVK_OK) {
        avkcli_progress_end(&s->prog);
        avkcli_report(path, &err);
        return AVKCLI_FAIL;
    }
    return AVKCLI_OK;
}

int avkcli_cmd_concat(int argc, char **argv)
{
    int quiet = 0, help_wanted, rc;
    size_t npos, nin, i;
    char **pos, *canon = NULL, *c;
    const char *output;
    uint64_t total = 0;
    avk_file_reader *first = NULL, *fr;
    avk_file_meta *meta = NULL;
    avk_file_writer_options wo;
    avk_codec codec = AVK_CODEC_NULL;
    avk_error err;
    concat_state s;
    const avkcli_option opts[] = {
        {"--quiet", 'q', NULL, &quiet, NULL},
        AVKCLI_LIMIT_OPTIONS,
    };
    memset(&s, 0, sizeof s);
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
    if (rc == AVKCLI_OK && npos < 2)
        rc = avkcli_usage_error(PREFIX, "want at least one FILE and then OUT.avro");
    if (rc != AVKCLI_OK) {
        free(pos);
        return rc;
    }
    nin = npos - 1;
    output = pos[nin];

    rc = avkcli_check_output(output, pos, nin);
    if (rc == AVKCLI_OK)
        rc = avkcli_reader_open(pos[0], NULL, &first);
    if (rc == AVKCLI_OK && !(canon = avkcli_canonical(avk_schema_root(
                                 avk_file_reader_schema(first)))))
        rc = AVKCLI_FAIL;
    if (rc == AVKCLI_OK && !(meta = avkcli_meta_alloc(first)))
        rc = AVKCLI_FAIL;
    if (rc == AVKCLI_OK && avk_arena_new(NULL, &s.arena, &err) != AVK_OK) {
        fprintf(stderr, "%s: %s\n", AVKCLI_PROG, err.message);
        rc = AVKCLI_FAIL;
    }
    if (rc == AVKCLI_OK) {
        avkcli_writer_options(&wo, first, meta);
        wo.codec = codec = avk_file_reader_codec(first, NULL);
        rc = avkcli_writer_open(output, avk_file_reader_schema(first), &wo, &s.fw);
    }
    if (rc == AVKCLI_OK) {
        for (i = 0; i < nin; i++)
            total += avkcli_file_size(pos[i]);
        avkcli_progress_start(&s.prog, "concat", total, 0, quiet);
        for (i = 0; i < nin && rc == AVKCLI_OK; i++) {
            fr = first;
            avkcli_progress_end(&s.prog); /* messages of the open print cleanly */
            if (i > 0 && (rc = avkcli_reader_open(pos[i], NULL, &fr)) != AVKCLI_OK)
                break;
            c = avkcli_canonical(avk_schema_root(avk_file_reader_schema(fr)));
            if (!c) {
                rc = AVKCLI_FAIL;
            } else if (strcmp(c, canon) != 0) {
                fprintf(stderr,
                        "%s: its schema differs from that of %s (their canonical forms "
                        "differ); concat needs one schema\n",
                        avkcli_display_name(pos[i]), avkcli_display_name(pos[0]));
                rc = AVKCLI_FAIL;
            } else if (avk_file_reader_codec(fr, NULL) == codec) {
                rc = copy_blocks(&s, pos[i], fr);
            } else {
                rc = copy_records(&s, pos[i], fr);
            }
            free(c);
            s.bytes += avkcli_file_size(pos[i]);
            if (i > 0)
                avk_file_reader_free(fr);
        }
        avkcli_progress_end(&s.prog);
        rc = avkcli_writer_finish(s.fw, output, rc);
    }
    avk_file_reader_free(first);
    avk_arena_free(s.arena);
    free(meta);
    free(canon);
    free(pos);
    return rc;
}
