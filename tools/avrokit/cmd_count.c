/* avrokit count: records in container files, summed from block counts without decoding, or counted by decoding every record (--verify, on -j threads). */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

#define PREFIX AVKCLI_PROG " count"

static const char *const help =
    "Usage: " PREFIX " [options] FILE...\n"
    "\n"
    "Prints the number of records in the container files ('-': standard input).\n"
    "The counts come from the block headers: blocks are read and their sync\n"
    "markers checked, but nothing is decompressed or decoded. A count that cannot\n"
    "fit in its block's bytes (as tojson would find) is an error naming the file,\n"
    "block and byte offset, never a number. With one file the output is the count\n"
    "alone; with several, one line per file (\"COUNT<TAB>FILE\") and a last line\n"
    "\"COUNT<TAB>total\"; a file that cannot be read is reported, the others still\n"
    "counted, and the status is 1.\n"
    "\n"
    "With --verify, every record is decoded as tojson would decode it (in parallel\n"
    "with -j), so the count is that of records that really read, and the first one\n"
    "that does not is an error naming its block, record and schema path.\n"
    "\n"
    "Options:\n"
    "  --verify              decode every record\n"
    AVKCLI_JOBS_HELP
    "  -h, --help            show this help and exit\n"
    "\n" AVKCLI_LIMITS_HELP
    "\n"
    "Example:\n"
    "  " PREFIX " part-*.avro\n"
    "  " PREFIX " --verify -j 4 big.avro\n";

/* jobs 0: the counts of the blocks; otherwise every record decoded, on
 * jobs threads. */
static int count_file(const char *path, unsigned jobs, avk_arena *arena, uint64_t *out)
{
    avk_file_reader *fr;
    avk_file_reader_options ro;
    avk_file_block block;
    avk_value v;
    avk_error err;
    avk_status st;
    int more = 1, rc;
    uint64_t n = 0;
    avk_file_reader_options_init(&ro);
    if (jobs)
        avkcli_jobs_apply(&ro, jobs);
    rc = avkcli_reader_open(path, &ro, &fr);
    if (rc != AVKCLI_OK)
        return rc;
    if (jobs) {
        while ((st = avk_file_reader_next(fr, arena, &v, &more, &err)) == AVK_OK && more) {
            n++;
            avk_arena_reset(arena);
        }
    } else {
        while ((st = avk_file_reader_next_block(fr, &block, &more, &err)) == AVK_OK && more)
            n += (uint64_t)block.count;
    }
    if (st != AVK_OK) {
        avkcli_report(path, &err);
        rc = AVKCLI_FAIL;
    }
    avk_file_reader_free(fr);
    *out = n;
    return rc;
}

int avkcli_cmd_count(int argc, char **argv)
{
    int help_wanted, rc, failed = 0, verify = 0;
    size_t npos, i;
    char **pos;
    const char *jobs_text = NULL;
    unsigned jobs = 0;
    avk_arena *arena = NULL;
    avk_error err;
    uint64_t n, total = 0;
    const avkcli_option opts[] = {
        {"--verify", 0, NULL, &verify, NULL},
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
    if (rc == AVKCLI_OK && npos == 0)
        rc = avkcli_usage_error(PREFIX, "missing FILE (use '-' for standard input)");
    if (rc == AVKCLI_OK && verify)
        rc = avkcli_parse_jobs(PREFIX, jobs_text, pos, npos, &jobs);
    if (rc == AVKCLI_OK && jobs_text && !verify)
        rc = avkcli_usage_error(PREFIX, "--jobs goes with --verify (counting reads no records)");
    if (rc == AVKCLI_OK && verify && avk_arena_new(NULL, &arena, &err) != AVK_OK) {
        fprintf(stderr, "%s: %s\n", AVKCLI_PROG, err.message);
        rc = AVKCLI_FAIL;
    }
    if (rc != AVKCLI_OK) {
        free(pos);
        return rc;
    }
    /* Like wc: a file that fails is reported and the others still counted. */
    for (i = 0; i < npos; i++) {
        if (count_file(pos[i], jobs, arena, &n) != AVKCLI_OK) {
            failed = 1;
            continue;
        }
        total += n;
        if (npos > 1)
            printf("%llu\t%s\n", (unsigned long long)n, avkcli_display_name(pos[i]));
    }
    if (npos > 1)
        printf("%llu\ttotal\n", (unsigned long long)total);
    else if (!failed)
        printf("%llu\n", (unsigned long long)total);
    free(pos);
    avk_arena_free(arena);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "%s: writing standard output failed\n", AVKCLI_PROG);
        return AVKCLI_FAIL;
    }
    return failed ? AVKCLI_FAIL : AVKCLI_OK;
}
