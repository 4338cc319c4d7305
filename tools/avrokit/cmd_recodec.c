/* avrokit recodec: rewrite a container file with another codec, block by block on -j threads, without decoding records. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_progress.h"

#define PREFIX AVKCLI_PROG " recodec"

static const char *const help =
    "Usage: " PREFIX " --codec C [options] IN.avro OUT.avro\n"
    "\n"
    "Writes the container file IN.avro ('-': standard input) to OUT.avro ('-':\n"
    "standard output) with codec C, keeping its schema, user metadata and blocks:\n"
    "each block is decompressed and compressed again, and its records are not\n"
    "decoded.\n"
    "\n"
    "Options:\n"
    "  --codec C    null, deflate, snappy, zstandard, bzip2 or xz (required)\n"
    "  --level L    the codec's compression level (0: its default; deflate 1-12,\n"
    "               zstandard its levels up to 22, bzip2 and xz 1-9)\n"
    AVKCLI_JOBS_HELP
    "                        (here: decompress and compress blocks)\n"
    "  --quiet      no progress line on standard error\n"
    "  -h, --help   show this help and exit\n"
    "\n" AVKCLI_LIMITS_HELP
    "\n"
    "OUT.avro is written beside itself and replaces an existing file only when\n"
    "the command succeeds.\n"
    "\n"
    "Example:\n"
    "  " PREFIX " --codec zstandard --level 19 logs.avro logs.zst.avro\n";

/* Each block is decompressed and compressed again by the reader's work
 * threads, into the buffer of its slot; the caller's thread writes the
 * blocks in order. */
typedef struct recodec_work {
    avk_codec codec;
    int level;
    unsigned slots;
    avk_buffer *packed; /* per slot */
    int64_t *count;
    uint64_t *end;
} recodec_work;

static avk_status recompress_block(void *ctx, unsigned slot, avk_file_records *records,
                                   avk_error *err)
{
    recodec_work *w = (recodec_work *)ctx;
    const avk_file_block *b = avk_file_records_block(records);
    size_t len;
    const uint8_t *data = avk_file_records_data(records, &len);
    w->count[slot] = b->count;
    w->end[slot] = b->end;
    if (b->count == 0) /* nothing to keep; the writer takes positive counts only */
        return AVK_OK;
    return avk_codec_compress(w->codec, w->level, data, len, &w->packed[slot], err);
}

static int work_alloc(recodec_work *w, unsigned slots)
{
    unsigned i;
    w->slots = slots;
    w->packed = (avk_buffer *)calloc(slots, sizeof *w->packed);
    w->count = (int64_t *)calloc(slots, sizeof *w->count);
    w->end = (uint64_t *)calloc(slots, sizeof *w->end);
    if (!w->packed || !w->count || !w->end) {
        fprintf(stderr, "%s: out of memory\n", AVKCLI_PROG);
        return AVKCLI_FAIL;
    }
    for (i = 0; i < slots; i++)
        avk_buffer_init(&w->packed[i], NULL);
    return AVKCLI_OK;
}

static void work_free(recodec_work *w)
{
    unsigned i;
    for (i = 0; w->packed && i < w->slots; i++)
        avk_buffer_destroy(&w->packed[i]);
    free(w->packed);
    free(w->count);
    free(w->end);
}

static int recompress(const char *in, const char *out, avk_file_reader *fr, avk_file_writer *fw,
                      const recodec_work *w, avkcli_progress *prog)
{
    avk_error err;
    avk_status st;
    int more = 1;
    unsigned slot;
    int64_t taken;
    uint64_t records = 0;
    while ((st = avk_file_reader_next_work(fr, &slot, &taken, &more, &err)) == AVK_OK && more) {
        if (w->count[slot] == 0)
            continue;
        if (avk_file_writer_append_block(fw, w->count[slot], w->packed[slot].data,
                                         w->packed[slot].len, &err) != AVK_OK) {
            avkcli_progress_end(prog); /* writing the output failed */
            fprintf(stderr, "%s: %s\n", strcmp(out, "-") == 0 ? "<stdout>" : out, err.message);
            return AVKCLI_FAIL;
        }
        records += (uint64_t)w->count[slot];
        avkcli_progress_update(prog, records, w->end[slot]);
    }
    if (st != AVK_OK) {
        avkcli_progress_end(prog);
        avkcli_report(in, &err);
        return AVKCLI_FAIL;
    }
    return AVKCLI_OK;
}

int avkcli_cmd_recodec(int argc, char **argv)
{
    const char *codec = NULL, *level = NULL, *jobs_text = NULL;
    unsigned jobs = 1;
    int quiet = 0, help_wanted, rc;
    avk_file_reader_options ro;
    recodec_work w;
    size_t npos;
    char **pos;
    avk_file_reader *fr = NULL;
    avk_file_writer *fw;
    avk_file_meta *meta = NULL;
    avk_file_writer_options wo;
    avk_codec c = AVK_CODEC_NULL;
    int l = 0;
    avkcli_progress prog;
    const avkcli_option opts[] = {
        {"--codec", 0, &codec, NULL, "null, deflate, snappy, zstandard, bzip2 or xz"},
        {"--level", 0, &level, NULL, "a compression level"},
        {"--quiet", 'q', NULL, &quiet, NULL},
        AVKCLI_JOBS_OPTION(jobs_text),
        AVKCLI_LIMIT_OPTIONS,
    };
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
    if (rc == AVKCLI_OK && !codec)
        rc = avkcli_usage_error(PREFIX, "missing --codec C");
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_codec(PREFIX, codec, &c);
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_int(PREFIX, "--level", level, &l);
    if (rc == AVKCLI_OK)
        rc = avkcli_check_level(PREFIX, c, l);
    if (rc == AVKCLI_OK && npos != 2)
        rc = avkcli_usage_error(PREFIX, "want IN.avro and OUT.avro ('-' for standard input/output)");
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_jobs(PREFIX, jobs_text, pos, 1, &jobs);
    if (rc != AVKCLI_OK) {
        free(pos);
        return rc;
    }
    rc = avkcli_check_output(pos[1], pos, 1);
    memset(&w, 0, sizeof w);
    w.codec = c;
    w.level = l;
    avk_file_reader_options_init(&ro);
    avkcli_jobs_apply(&ro, jobs);
    ro.work = recompress_block;
    ro.work_ctx = &w;
    if (rc == AVKCLI_OK)
        rc = avkcli_reader_open(pos[0], &ro, &fr);
    if (rc == AVKCLI_OK)
        rc = work_alloc(&w, avk_file_reader_slots(fr));
    if (rc == AVKCLI_OK && !(meta = avkcli_meta_alloc(fr)))
        rc = AVKCLI_FAIL;
    if (rc == AVKCLI_OK) {
        avkcli_writer_options(&wo, fr, meta);
        wo.codec = c;
        wo.level = l;
        rc = avkcli_writer_open(pos[1], avk_file_reader_schema(fr), &wo, &fw);
    }
    if (rc == AVKCLI_OK) {
        avkcli_progress_start(&prog, "recodec", avkcli_file_size(pos[0]), 0, quiet);
        rc = recompress(pos[0], pos[1], fr, fw, &w, &prog);
        avkcli_progress_end(&prog);
        rc = avkcli_writer_finish(fw, pos[1], rc);
    }
    avk_file_reader_free(fr); /* joins the workers before their buffers go */
    work_free(&w);
    free(meta);
    free(pos);
    return rc;
}
