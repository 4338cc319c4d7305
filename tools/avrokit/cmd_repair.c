/* avrokit repair: copy every readable record of a damaged container file, reporting what was skipped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_progress.h"

#define PREFIX AVKCLI_PROG " repair"

static const char *const help =
    "Usage: " PREFIX " [options] IN.avro OUT.avro\n"
    "\n"
    "Reads the container file IN.avro ('-': standard input), skipping damaged blocks\n"
    "(a bad count or size, a sync marker that does not match, data the codec cannot\n"
    "decompress, records that do not decode, a truncated end) by finding the next\n"
    "sync marker, and writes every record it can read to OUT.avro ('-': standard\n"
    "output) with the same schema, codec and user metadata. Each skipped range is\n"
    "reported on standard error; a summary follows (on standard output, or on\n"
    "standard error when OUT is '-'). The header must be readable.\n"
    "\n"
    "Exit status: 0 when the file was repaired or had nothing wrong (the summary\n"
    "says which), 1 when the header cannot be read or on an I/O error.\n"
    "\n"
    "Options:\n"
    "  --quiet      no progress line on standard error\n"
    "  -h, --help   show this help and exit\n"
    "\n"
    "Example:\n"
    "  " PREFIX " broken.avro fixed.avro\n";

typedef struct repair_state {
    const char *in;
    avkcli_progress *prog;
} repair_state;

static void on_skip(void *ctx, const avk_error *why, uint64_t from, uint64_t to)
{
    const repair_state *s = (const repair_state *)ctx;
    avkcli_progress_end(s->prog);
    fprintf(stderr, "%s: skipped bytes %llu-%llu (%llu bytes): %s\n", avkcli_display_name(s->in),
            (unsigned long long)from, (unsigned long long)to, (unsigned long long)(to - from),
            why->message);
}

static const char *plural(uint64_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

int avkcli_cmd_repair(int argc, char **argv)
{
    int quiet = 0, help_wanted, rc, more = 1;
    size_t npos;
    char **pos;
    avk_file_reader *fr = NULL;
    avk_file_reader_options ro;
    avk_file_reader_stats stats;
    avk_file_writer *fw;
    avk_file_meta *meta = NULL;
    avk_file_writer_options wo;
    avk_arena *arena = NULL;
    avk_value v;
    avk_error err;
    avk_status st;
    uint64_t kept = 0;
    avkcli_progress prog;
    repair_state rs;
    FILE *summary;
    const avkcli_option opts[] = {
        {"--quiet", 'q', NULL, &quiet, NULL},
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
    if (rc == AVKCLI_OK && npos != 2)
        rc = avkcli_usage_error(PREFIX, "want IN.avro and OUT.avro ('-' for standard input/output)");
    if (rc != AVKCLI_OK) {
        free(pos);
        return rc;
    }
    rs.in = pos[0];
    rs.prog = &prog;
    avkcli_progress_start(&prog, "repair", avkcli_file_size(pos[0]), 0, quiet);
    memset(&ro, 0, sizeof ro);
    ro.struct_size = sizeof ro;
    ro.flags = AVK_FILE_SKIP_BAD_BLOCKS;
    ro.on_skip = on_skip;
    ro.on_skip_ctx = &rs;
    rc = avkcli_check_output(pos[1], pos, 1);
    if (rc == AVKCLI_OK)
        rc = avkcli_reader_open(pos[0], &ro, &fr);
    if (rc == AVKCLI_OK && !(meta = avkcli_meta_alloc(fr)))
        rc = AVKCLI_FAIL;
    if (rc == AVKCLI_OK && avk_arena_new(NULL, &arena, &err) != AVK_OK) {
        fprintf(stderr, "%s: %s\n", AVKCLI_PROG, err.message);
        rc = AVKCLI_FAIL;
    }
    if (rc == AVKCLI_OK) {
        avkcli_writer_options(&wo, fr, meta);
        wo.codec = avk_file_reader_codec(fr, NULL);
        rc = avkcli_writer_open(pos[1], avk_file_reader_schema(fr), &wo, &fw);
    }
    if (rc == AVKCLI_OK) {
        while ((st = avk_file_reader_next(fr, arena, &v, &more, &err)) == AVK_OK && more) {
            st = avk_file_writer_append(fw, &v, &err);
            avk_arena_reset(arena);
            if (st != AVK_OK) {
                avkcli_progress_end(&prog);
                fprintf(stderr, "%s: %s\n", strcmp(pos[1], "-") == 0 ? "<stdout>" : pos[1],
                        err.message);
                rc = AVKCLI_FAIL;
                break;
            }
            if (avkcli_progress_due(&prog, ++kept))
                avkcli_progress_update(&prog, kept, avk_file_reader_block_offset(fr));
        }
        avkcli_progress_end(&prog);
        if (rc == AVKCLI_OK && st != AVK_OK) {
            avkcli_report(pos[0], &err);
            rc = AVKCLI_FAIL;
        }
        /* Keep what was saved even after a read error: it is all readable. */
        if (rc == AVKCLI_OK || st != AVK_OK) {
            int close_rc = avkcli_writer_finish(fw, pos[1], AVKCLI_OK);
            if (close_rc != AVKCLI_OK)
                rc = close_rc;
        } else {
            avkcli_writer_finish(fw, pos[1], rc);
        }
    }
    if (fr) {
        avk_file_reader_get_stats(fr, &stats);
        summary = strcmp(pos[1], "-") == 0 ? stderr : stdout;
        if (rc == AVKCLI_OK && stats.bad_blocks == 0)
            fprintf(summary, "nothing to repair: %llu %s, no damaged blocks\n",
                    (unsigned long long)kept, plural(kept, "record", "records"));
        else if (rc == AVKCLI_OK)
            fprintf(summary, "repaired: kept %llu %s; skipped %llu damaged %s (%llu bytes)\n",
                    (unsigned long long)kept, plural(kept, "record", "records"),
                    (unsigned long long)stats.bad_blocks,
                    plural(stats.bad_blocks, "block", "blocks"),
                    (unsigned long long)stats.bad_bytes);
        fflush(summary);
    }
    avk_file_reader_free(fr);
    avk_arena_free(arena);
    free(meta);
    free(pos);
    return rc;
}
