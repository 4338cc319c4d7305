/* avrokit recodec: rewrite a container file with another codec, block by block, without decoding records. */
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
    "  --quiet      no progress line on standard error\n"
    "  -h, --help   show this help and exit\n"
    "\n" AVKCLI_LIMITS_HELP
    "\n"
    "OUT.avro is written beside itself and replaces an existing file only when\n"
    "the command succeeds.\n"
    "\n"
    "Example:\n"
    "  " PREFIX " --codec zstandard --level 19 logs.avro logs.zst.avro\n";

static int recompress(const char *in, avk_file_reader *fr, avk_file_writer *fw, avk_codec codec,
                      int level, avkcli_progress *prog)
{
    avk_file_block b;
    avk_buffer raw, packed;
    avk_error err;
    avk_status st;
    int more = 1, rc = AVKCLI_OK;
    uint64_t records = 0;
    avk_buffer_init(&raw, NULL);
    avk_buffer_init(&packed, NULL);
    while ((st = avk_file_reader_next_block(fr, &b, &more, &err)) == AVK_OK && more) {
        if (b.count == 0) /* nothing to keep; the writer takes positive counts only */
            continue;
        st = avk_file_block_decompress(fr, &b, &raw, &err);
        if (st != AVK_OK)
            break;
        if (avk_codec_compress(codec, level, raw.data, raw.len, &packed, &err) != AVK_OK ||
            avk_file_writer_append_block(fw, b.count, packed.data, packed.len, &err) != AVK_OK) {
            avkcli_progress_end(prog);
            fprintf(stderr, "%s: %s\n", avkcli_display_name(in), err.message);
            rc = AVKCLI_FAIL;
            break;
        }
        records += (uint64_t)b.count;
        avkcli_progress_update(prog, records, b.end);
    }
    if (st != AVK_OK) {
        avkcli_progress_end(prog);
        avkcli_report(in, &err);
        rc = AVKCLI_FAIL;
    }
    avk_buffer_destroy(&raw);
    avk_buffer_destroy(&packed);
    return rc;
}

int avkcli_cmd_recodec(int argc, char **argv)
{
    const char *codec = NULL, *level = NULL;
    int quiet = 0, help_wanted, rc;
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
    if (rc != AVKCLI_OK) {
        free(pos);
        return rc;
    }
    rc = avkcli_check_output(pos[1], pos, 1);
    if (rc == AVKCLI_OK)
        rc = avkcli_reader_open(pos[0], NULL, &fr);
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
        rc = recompress(pos[0], fr, fw, c, l, &prog);
        avkcli_progress_end(&prog);
        rc = avkcli_writer_finish(fw, pos[1], rc);
    }
    avk_file_reader_free(fr);
    free(meta);
    free(pos);
    return rc;
}
