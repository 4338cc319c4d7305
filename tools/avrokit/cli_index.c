/* CLI: a file's block index for reading commands (sidecar or built in memory), and skipping records through it or in order. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_records.h"

avk_status avkcli_index_open(const char *path, const avk_file_reader_options *opts,
                             avk_file_index **out, avk_error *err)
{
    avk_file_reader_options o;
    if (opts) {
        o = *opts;
    } else {
        memset(&o, 0, sizeof o);
        o.struct_size = sizeof o;
    }
    avkcli_limits_apply(&o);
    /* Reading the header needs no reader schema: the index is of the
     * file's blocks, and a reader schema that does not resolve is
     * reported by the reader itself. */
    o.reader_schema = NULL;
    return avk_file_index_open_path(path, &o, 0, out, NULL, err);
}

/* In order: what reading would do, errors included. */
static int skip_in_order(const char *path, avk_file_reader *fr, uint64_t *offset,
                         avkcli_skipped *where)
{
    avk_file_reader_stats stats;
    avk_error err;
    uint64_t blocks = 0;
    int more = 1;
    while (*offset > 0) {
        if (avk_file_reader_skip(fr, &more, &err) != AVK_OK) {
            avkcli_report(path, &err);
            return AVKCLI_FAIL;
        }
        if (!more)
            break;
        --*offset;
        avk_file_reader_get_stats(fr, &stats);
        if (stats.blocks != blocks) {
            blocks = stats.blocks;
            where->in_block = 0;
        }
        where->in_block++;
    }
    return AVKCLI_OK;
}

int avkcli_skip_records(const char *path, avk_file_reader *fr, const avk_file_reader_options *opts,
                        uint64_t *offset, avkcli_skipped *where)
{
    avk_file_index *idx;
    avk_error err;
    uint64_t total, n;
    size_t i;
    memset(where, 0, sizeof *where);
    if (*offset == 0)
        return AVKCLI_OK;
    /* Without an index (standard input, a pipe, a file the index refuses)
     * the records are skipped one by one: the same records come out, and
     * a damaged file fails where reading it would. */
    if (strcmp(path, "-") == 0 || avkcli_index_open(path, opts, &idx, &err) != AVK_OK)
        return skip_in_order(path, fr, offset, where);
    total = avk_file_index_records(idx);
    n = *offset < total ? *offset : total;
    if (avk_file_reader_seek_record(fr, idx, n, &err) != AVK_OK) {
        avk_file_index_free(idx);
        avkcli_report(path, &err);
        return AVKCLI_FAIL;
    }
    i = avk_file_index_find(idx, n);
    if (i < avk_file_index_block_count(idx)) {
        where->block_base = i;
        where->in_block = n - avk_file_index_block(idx, i)->first;
    }
    *offset -= n;
    avk_file_index_free(idx);
    return AVKCLI_OK;
}
