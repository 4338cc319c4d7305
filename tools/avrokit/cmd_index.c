/* avrokit index: build or refresh the block index of container files and save it beside each as FILE.avkidx. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define PREFIX AVKCLI_PROG " index"

static const char *const help =
    "Usage: " PREFIX " [options] FILE...\n"
    "\n"
    "Builds the block index of each container file: every block's offset, record\n"
    "count and sizes, read from the block headers alone (the data is jumped over,\n"
    "never decompressed, and each sync marker checked). The index is saved\n"
    "beside the file as FILE" AVK_FILE_INDEX_SUFFIX
    " (written to a temporary file, then renamed), where\n"
    "tojson --offset and tail find it. An index that is up to date is left as it\n"
    "is; one of a file that has grown by appending is extended with the new blocks\n"
    "only; any other (the file rewritten, or the index damaged) is rebuilt. Prints\n"
    "one line per file: blocks, records, bytes of block data, and what was done.\n"
    "A file that cannot be indexed is reported, the others still indexed, and the\n"
    "status is 1; so is an index that cannot be saved (a directory that cannot be\n"
    "written): use --no-save there, tojson and tail then build it in memory.\n"
    "\n"
    "Options:\n"
    "  --no-save    build or refresh the index in memory only; write nothing\n"
    "  --rebuild    ignore an existing index: build it from the file\n"
    "  --print      list the blocks after the summary: block number, offset,\n"
    "               records, first record, stored bytes, end offset (tab-separated)\n"
    "  -h, --help   show this help and exit\n"
    "\n" AVKCLI_LIMITS_HELP
    "\n"
    "Example:\n"
    "  " PREFIX " big.avro\n"
    "  " PREFIX " --no-save --print big.avro\n";

static void print_blocks(const avk_file_index *idx)
{
    size_t i, n = avk_file_index_block_count(idx);
    printf("block\toffset\trecords\tfirst\tstored\tend\n");
    for (i = 0; i < n; i++) {
        const avk_file_index_entry *e = avk_file_index_block(idx, i);
        printf("%zu\t%llu\t%llu\t%llu\t%llu\t%llu\n", i, (unsigned long long)e->offset,
               (unsigned long long)e->count, (unsigned long long)e->first,
               (unsigned long long)e->size, (unsigned long long)e->end);
    }
}

/* What was done, as the summary line says it. */
static void print_done(const avk_file_index *idx, const avk_file_index_info *info)
{
    switch (info->sidecar) {
    case AVK_FILE_INDEX_SIDECAR_CURRENT:
        printf("up to date");
        break;
    case AVK_FILE_INDEX_SIDECAR_GREW:
        printf("refreshed (%zu new blocks)", avk_file_index_block_count(idx) - info->reused_blocks);
        break;
    case AVK_FILE_INDEX_SIDECAR_STALE:
        printf("rebuilt (the index was of an older version of the file)");
        break;
    case AVK_FILE_INDEX_SIDECAR_BAD:
        printf("rebuilt (the index could not be read: %s)", info->sidecar_error.message);
        break;
    case AVK_FILE_INDEX_SIDECAR_IGNORED:
        printf("rebuilt");
        break;
    default:
        printf("built");
        break;
    }
}

static int index_file(const char *path, unsigned flags, int print)
{
    avk_file_reader_options o;
    avk_file_index *idx;
    avk_file_index_info info;
    avk_error err;
    uint64_t stored = 0;
    size_t i, n;
    int rc = AVKCLI_OK;
    char sidecar[4096];
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    avkcli_limits_apply(&o);
    if (avk_file_index_open_path(path, &o, flags, &idx, &info, &err) != AVK_OK) {
        avkcli_report(path, &err);
        return AVKCLI_FAIL;
    }
    n = avk_file_index_block_count(idx);
    for (i = 0; i < n; i++)
        stored += avk_file_index_block(idx, i)->size;
    avk_file_index_sidecar_name(path, sidecar, sizeof sidecar);
    printf("%s: %zu blocks, %llu records, %llu bytes of block data; ", path, n,
           (unsigned long long)avk_file_index_records(idx), (unsigned long long)stored);
    print_done(idx, &info);
    if (info.saved)
        printf(", saved to %s", sidecar);
    printf("\n");
    if (print)
        print_blocks(idx);
    if ((flags & AVK_FILE_INDEX_SAVE) && !info.saved &&
        info.sidecar != AVK_FILE_INDEX_SIDECAR_CURRENT) {
        fflush(stdout);
        fprintf(stderr, "%s: the index was not saved: %s\n", path, info.save_error.message);
        rc = AVKCLI_FAIL;
    }
    avk_file_index_free(idx);
    return rc;
}

int avkcli_cmd_index(int argc, char **argv)
{
    int help_wanted, rc, failed = 0, no_save = 0, rebuild = 0, print = 0;
    size_t npos, i;
    char **pos;
    unsigned flags;
    const avkcli_option opts[] = {
        {"--no-save", 0, NULL, &no_save, NULL},
        {"--rebuild", 0, NULL, &rebuild, NULL},
        {"--print", 0, NULL, &print, NULL},
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
        rc = avkcli_usage_error(PREFIX, "missing FILE");
    for (i = 0; rc == AVKCLI_OK && i < npos; i++)
        if (strcmp(pos[i], "-") == 0)
            rc = avkcli_usage_error(PREFIX, "standard input cannot be indexed: an index "
                                            "gives offsets in a file");
    if (rc != AVKCLI_OK) {
        free(pos);
        return rc;
    }
    flags = (no_save ? 0 : AVK_FILE_INDEX_SAVE) | (rebuild ? AVK_FILE_INDEX_REBUILD : 0);
    for (i = 0; i < npos; i++)
        if (index_file(pos[i], flags, print) != AVKCLI_OK)
            failed = 1;
    free(pos);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "%s: writing standard output failed\n", AVKCLI_PROG);
        return AVKCLI_FAIL;
    }
    return failed ? AVKCLI_FAIL : AVKCLI_OK;
}
