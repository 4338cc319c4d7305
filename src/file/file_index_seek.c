/* Seeking a reader to record N through a block index: one block sought, the records before N in it skipped. */
#include <string.h>

#include "common/error.h"
#include "file/file_index_internal.h"

avk_status avk_file_reader_seek_record(avk_file_reader *fr, const avk_file_index *idx,
                                       uint64_t n, avk_error *err)
{
    const avk_file_index_entry *e;
    uint64_t k;
    size_t i;
    if (!fr || !idx)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_file_reader_seek_record: NULL %s", fr ? "index" : "reader");
    /* The marker is random per file (16 bytes), so it tells files apart;
     * the header size catches a file rewritten with a fixed marker but
     * other metadata. */
    if (avk_file_reader_header_size(fr) != idx->header_size ||
        memcmp(avk_file_reader_sync(fr), idx->sync, AVK_FILE_SYNC_SIZE) != 0)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_file_reader_seek_record: the index is of another file (its "
                              "%s differs from the reader's)",
                              avk_file_reader_header_size(fr) != idx->header_size
                                  ? "header size"
                                  : "sync marker");
    if (n > idx->records)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_file_reader_seek_record: record %llu is past the end: the "
                              "file has %llu records",
                              (unsigned long long)n, (unsigned long long)idx->records);
    if (n == idx->records)
        return avk_file_reader_seek_block(fr, idx->file_size, err);
    i = avk_file_index_find(idx, n);
    e = &idx->blocks[i];
    AVK_TRY(avk_file_reader_seek_block(fr, e->offset, err));
    /* Skipping decodes nothing into values: the records before n cost a
     * walk over their bytes. */
    for (k = e->first; k < n; k++) {
        int more;
        AVK_TRY(avk_file_reader_skip(fr, &more, err));
        if (!more)
            return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, e->offset,
                                  "avk_file_reader_seek_record: the file ends %llu records "
                                  "into the block at byte %llu, which the index says holds "
                                  "%llu: the index is not of this version of the file",
                                  (unsigned long long)(k - e->first),
                                  (unsigned long long)e->offset, (unsigned long long)e->count);
    }
    /* A block holding fewer records than the index says would have let the
     * skips run on into the next block: record n is then not next. */
    if (n > e->first && avk_file_reader_block_offset(fr) != e->offset)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, e->offset,
                              "avk_file_reader_seek_record: the block at byte %llu holds fewer "
                              "than the %llu records the index says: the index is not of this "
                              "version of the file",
                              (unsigned long long)e->offset, (unsigned long long)e->count);
    return AVK_OK;
}
