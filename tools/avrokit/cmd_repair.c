/* avrokit repair: copy the readable records of a damaged container file (all, those before or after the first damage, or only a report), telling damage from limits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_progress.h"

#define PREFIX AVKCLI_PROG " repair"

static const char *const help =
    "Usage: " PREFIX " [options] IN.avro OUT.avro\n"
    "       " PREFIX " --mode report [options] IN.avro\n"
    "\n"
    "Reads the container file IN.avro ('-': standard input), skipping damaged blocks\n"
    "(a bad count or size, a sync marker that does not match, data the codec cannot\n"
    "decompress, records that do not decode, a truncated end) by finding the next\n"
    "sync marker, and writes the records it can read to OUT.avro ('-': standard\n"
    "output) with the same schema, codec and user metadata. Each skipped range is\n"
    "reported on standard error; a summary follows (on standard output, or on\n"
    "standard error when OUT is '-'). The header must be readable.\n"
    "\n"
    "A block beyond a limit (see below) is not damage: it may be valid data. It is\n"
    "dropped, reported as a limit with the option that raises it, and the exit\n"
    "status is 1.\n"
    "\n"
    "Options:\n"
    "  --mode M, -o M  which records to write (avro-tools' -o option):\n"
    "                    all    every readable record (the default)\n"
    "                    prior  those before the first damaged or dropped block\n"
    "                    after  those after it\n"
    "                    report none: no output file (OUT may be left out and is\n"
    "                           ignored), only the report\n"
    AVKCLI_JOBS_HELP
    "  --quiet         no progress line on standard error\n"
    "  -h, --help      show this help and exit\n"
    "\n" AVKCLI_LIMITS_HELP
    "\n"
    "Exit status: 0 when nothing was lost or all that was lost was damage (the\n"
    "summary says which); 1 when a block was dropped for a limit (OUT is still\n"
    "written, with every record read), or the header cannot be read, or on an I/O\n"
    "error or lack of memory (then OUT is not written, and a file already there is\n"
    "left as it was).\n"
    "\n"
    "Example:\n"
    "  " PREFIX " broken.avro fixed.avro\n"
    "  " PREFIX " -o prior broken.avro head.avro\n";

enum { MODE_ALL, MODE_PRIOR, MODE_AFTER, MODE_REPORT };

typedef struct repair_state {
    const char *in;
    avkcli_progress *prog;
    uint64_t losses;       /* ranges lost so far: damage and limits */
    uint64_t limit_blocks; /* blocks dropped for a limit */
    uint64_t limit_bytes;
} repair_state;

static void on_skip(void *ctx, const avk_error *why, uint64_t from, uint64_t to)
{
    repair_state *s = (repair_state *)ctx;
    avkcli_progress_end(s->prog);
    s->losses++;
    fprintf(stderr, "%s: skipped bytes %llu-%llu (%llu bytes): %s\n", avkcli_display_name(s->in),
            (unsigned long long)from, (unsigned long long)to, (unsigned long long)(to - from),
            why->message);
}

/* A block dropped for a limit: reported as such, with the way to read it. */
static void on_limit(repair_state *s, const avk_error *why, uint64_t to)
{
    const char *flag = avkcli_limit_flag(why->message);
    uint64_t from = why->offset;
    avkcli_progress_end(s->prog);
    s->losses++;
    s->limit_blocks++;
    s->limit_bytes += to - from;
    fprintf(stderr,
            "%s: dropped bytes %llu-%llu (%llu bytes) over a limit, not damage: %s%s%s%s\n",
            avkcli_display_name(s->in), (unsigned long long)from, (unsigned long long)to,
            (unsigned long long)(to - from), why->message, flag ? "; " : "", flag ? flag : "",
            flag ? " raises it" : "");
}

static const char *plural(uint64_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

static int parse_mode(const char *text, int *mode)
{
    static const char *const names[] = {"all", "prior", "after", "report"};
    int i;
    if (!text)
        return AVKCLI_OK;
    for (i = 0; i < 4; i++)
        if (strcmp(text, names[i]) == 0) {
            *mode = i;
            return AVKCLI_OK;
        }
    return avkcli_usage_error(PREFIX, "unknown --mode '%s': use all, prior, after or report",
                              text);
}

/* The last line: what was kept, skipped and dropped. */
static void summary(FILE *out, int mode, uint64_t readable, uint64_t kept,
                    const avk_file_reader_stats *st, const repair_state *s)
{
    static const char *const names[] = {"all", "prior", "after", "report"};
    if (st->bad_blocks == 0 && s->limit_blocks == 0) {
        fprintf(out, "nothing to repair: %llu %s, no damaged blocks\n",
                (unsigned long long)readable, plural(readable, "record", "records"));
        return;
    }
    if (mode == MODE_REPORT)
        fprintf(out, "%s: %llu readable %s", s->limit_blocks ? "incomplete" : "damaged",
                (unsigned long long)readable, plural(readable, "record", "records"));
    else
        fprintf(out, "%s: kept %llu %s", s->limit_blocks ? "incomplete" : "repaired",
                (unsigned long long)kept, plural(kept, "record", "records"));
    if (st->bad_blocks)
        fprintf(out, "; %s %llu damaged %s (%llu bytes)", mode == MODE_REPORT ? "found" : "skipped",
                (unsigned long long)st->bad_blocks, plural(st->bad_blocks, "block", "blocks"),
                (unsigned long long)st->bad_bytes);
    if (s->limit_blocks)
        fprintf(out, "; dropped %llu %s over a limit (%llu bytes), not damage",
                (unsigned long long)s->limit_blocks, plural(s->limit_blocks, "block", "blocks"),
                (unsigned long long)s->limit_bytes);
    if (mode != MODE_REPORT && readable > kept)
        fprintf(out, "; left out %llu readable %s (mode %s)", (unsigned long long)(readable - kept),
                plural(readable - kept, "record", "records"), names[mode]);
    fputc('\n', out);
}

int avkcli_cmd_repair(int argc, char **argv)
{
    const char *mode_text = NULL, *jobs_text = NULL;
    unsigned jobs = 1;
    int quiet = 0, help_wanted, rc, more = 1, mode = MODE_ALL, done = 0;
    size_t npos;
    char **pos;
    const char *out_path = NULL;
    avk_file_reader *fr = NULL;
    avk_file_reader_options ro;
    avk_file_reader_stats stats;
    avk_file_writer *fw = NULL;
    avk_file_meta *meta = NULL;
    avk_file_writer_options wo;
    avk_arena *arena = NULL;
    avk_value v;
    avk_error err;
    avk_status st;
    uint64_t kept = 0, readable = 0;
    avkcli_progress prog;
    repair_state rs;
    const avkcli_option opts[] = {
        {"--mode", 'o', &mode_text, NULL, "all, prior, after or report"},
        {"--option", 0, &mode_text, NULL, "all, prior, after or report"},
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
    if (rc == AVKCLI_OK)
        rc = parse_mode(mode_text, &mode);
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_jobs(PREFIX, jobs_text, pos, npos ? 1 : 0, &jobs);
    if (rc == AVKCLI_OK && mode == MODE_REPORT && (npos < 1 || npos > 2))
        rc = avkcli_usage_error(PREFIX, "want IN.avro ('-' for standard input)");
    if (rc == AVKCLI_OK && mode != MODE_REPORT && npos != 2)
        rc = avkcli_usage_error(PREFIX,
                                "want IN.avro and OUT.avro ('-' for standard input/output)");
    if (rc != AVKCLI_OK) {
        free(pos);
        return rc;
    }
    if (mode != MODE_REPORT)
        out_path = pos[1];
    memset(&rs, 0, sizeof rs);
    rs.in = pos[0];
    rs.prog = &prog;
    avkcli_progress_start(&prog, "repair", avkcli_file_size(pos[0]), 0, quiet);
    memset(&ro, 0, sizeof ro);
    ro.struct_size = sizeof ro;
    ro.flags = AVK_FILE_SKIP_BAD_BLOCKS;
    avkcli_jobs_apply(&ro, jobs);
    ro.on_skip = on_skip;
    ro.on_skip_ctx = &rs;
    rc = out_path ? avkcli_check_output(out_path, pos, 1) : AVKCLI_OK;
    if (rc == AVKCLI_OK)
        rc = avkcli_reader_open(pos[0], &ro, &fr);
    if (rc == AVKCLI_OK && !(meta = avkcli_meta_alloc(fr)))
        rc = AVKCLI_FAIL;
    if (rc == AVKCLI_OK && avk_arena_new(NULL, &arena, &err) != AVK_OK) {
        fprintf(stderr, "%s: %s\n", AVKCLI_PROG, err.message);
        rc = AVKCLI_FAIL;
    }
    if (rc == AVKCLI_OK && out_path) {
        avkcli_writer_options(&wo, fr, meta);
        wo.codec = avk_file_reader_codec(fr, NULL);
        wo.threads = jobs > 1 ? jobs : 0;
        rc = avkcli_writer_open(out_path, avk_file_reader_schema(fr), &wo, &fw);
    }
    while (rc == AVKCLI_OK && !done) {
        st = avk_file_reader_next(fr, arena, &v, &more, &err);
        if (st == AVK_ERR_LIMIT) { /* the reader has moved past the block */
            on_limit(&rs, &err, avk_file_reader_block_offset(fr));
            continue;
        }
        if (st != AVK_OK) { /* I/O or memory: the rest cannot be read */
            avkcli_progress_end(&prog);
            avkcli_report(pos[0], &err);
            rc = AVKCLI_FAIL;
            break;
        }
        if (!more) {
            done = 1;
            break;
        }
        readable++;
        if (fw && (mode == MODE_ALL || (mode == MODE_PRIOR && rs.losses == 0) ||
                   (mode == MODE_AFTER && rs.losses > 0))) {
            if (avk_file_writer_append(fw, &v, &err) != AVK_OK) {
                avkcli_progress_end(&prog);
                fprintf(stderr, "%s: %s\n", strcmp(out_path, "-") == 0 ? "<stdout>" : out_path,
                        err.message);
                rc = AVKCLI_FAIL;
            }
            kept++;
        }
        avk_arena_reset(arena);
        if (avkcli_progress_due(&prog, readable))
            avkcli_progress_update(&prog, readable, avk_file_reader_block_offset(fr));
    }
    avkcli_progress_end(&prog);
    /* Everything was read (limits aside): the output is the result. */
    rc = avkcli_writer_finish(fw, out_path, rc);
    if (rc == AVKCLI_OK && done) {
        avk_file_reader_get_stats(fr, &stats);
        summary(out_path && strcmp(out_path, "-") == 0 ? stderr : stdout, mode, readable, kept,
                &stats, &rs);
        if (rs.limit_blocks)
            rc = AVKCLI_FAIL;
    }
    if (fflush(stdout) != 0 && rc == AVKCLI_OK) {
        fprintf(stderr, "%s: writing standard output failed\n", AVKCLI_PROG);
        rc = AVKCLI_FAIL;
    }
    avk_file_reader_free(fr);
    avk_arena_free(arena);
    free(meta);
    free(pos);
    return rc;
}
