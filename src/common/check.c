/* Hostile-input checks (avrokit/check.h): the cold error reports of lengths, blocks and item counts, item chunking, and paths for generated code. */
#include "avrokit/check.h"

#include <string.h>

#include "common/error.h"
#include "common/value_path.h"

/* Items made room for at a time from a stream whose buffer does not cover
 * a block: the array grows as bytes actually arrive, so a hostile count
 * cannot make us allocate ahead of the input. */
#define STREAM_CHUNK_ITEMS 4096

avk_status avk_check_length_error(int64_t n, uint64_t max_bytes, uint64_t remaining,
                                  uint64_t offset, const char *what, avk_error *err)
{
    if (n < 0)
        return avki_error_set(err, AVK_ERR_MALFORMED, offset, "negative %s length %lld", what,
                              (long long)n);
    if ((uint64_t)n > max_bytes)
        return avki_error_set(err, AVK_ERR_LIMIT, offset, "%s length %lld is above max_bytes (%llu)",
                              what, (long long)n, (unsigned long long)max_bytes);
    return avki_error_set(err, AVK_ERR_TRUNCATED, offset, "%s length %lld but only %llu bytes remain",
                          what, (long long)n, (unsigned long long)remaining);
}

avk_status avk_check_block_error(int64_t count, int64_t size, uint64_t offset, avk_error *err)
{
    if (count == INT64_MIN)
        return avki_error_set(err, AVK_ERR_MALFORMED, offset,
                              "block count -2^63 cannot be negated");
    return avki_error_set(err, AVK_ERR_MALFORMED, offset, "negative block size %lld",
                          (long long)size);
}

avk_status avk_check_block_end_error(uint64_t offset, uint64_t end, uint64_t at, avk_error *err)
{
    return avki_error_set(err, AVK_ERR_MALFORMED, offset,
                          "block byte size ends at offset %llu but its items end at %llu",
                          (unsigned long long)end, (unsigned long long)at);
}

avk_status avk_check_items_error(const avk_limits *limits, int empty, uint64_t offset,
                                 avk_error *err)
{
    if (empty)
        return avki_error_set(err, AVK_ERR_LIMIT, offset,
                              "more than max_empty_items (%llu) zero-byte items",
                              (unsigned long long)limits->max_empty_items);
    return avki_error_set(err, AVK_ERR_LIMIT, offset,
                          "collection of more than max_items (%llu) items",
                          (unsigned long long)limits->max_items);
}

/* Memory and stream readers must give one status for the same bytes. A
 * count too large for what remains is TRUNCATED only where no item could
 * be malformed first (items of fixed size whose every byte pattern is
 * valid); otherwise the items that fit are decoded, as a stream decodes
 * what arrives, and the first item that does not fit (or does not
 * decode) gives the status. Allocation stays within what the input backs. */
avk_status avk_check_items_take(const avk_reader *r, uint64_t count, uint64_t min_size,
                                int may_be_malformed, uint64_t offset, uint64_t *take,
                                avk_error *err)
{
    uint64_t avail = (uint64_t)(r->end - r->pos), n = count;
    if (min_size != 0 && count > avail / min_size) {
        if (!r->source) { /* memory: what remains is all there is */
            if (!may_be_malformed)
                return avki_error_set(
                    err, AVK_ERR_TRUNCATED, offset,
                    "block of %llu items needs at least %llu bytes but only %llu remain",
                    (unsigned long long)count,
                    (unsigned long long)(count > UINT64_MAX / min_size ? UINT64_MAX
                                                                        : count * min_size),
                    (unsigned long long)avail);
            n = avail / min_size;
            if (n == 0)
                n = 1; /* it fails on its own, with the status a stream gets */
        } else {
            n = avail / min_size;
            if (n < STREAM_CHUNK_ITEMS)
                n = count < STREAM_CHUNK_ITEMS ? count : STREAM_CHUNK_ITEMS;
        }
    }
    *take = n;
    return AVK_OK;
}

/* Segment i of a check path, outermost first: the dropped outer levels
 * as one gap, then the kept ones from the outermost in. */
static void check_seg_at(const void *ctx, size_t i, avki_seg *out)
{
    const avk_check_path *p = (const avk_check_path *)ctx;
    size_t kept = p->count < AVK_CHECK_PATH_MAX ? p->count : AVK_CHECK_PATH_MAX;
    const avk_path_seg *s;
    memset(out, 0, sizeof *out);
    if (p->count > kept) {
        if (i == 0) {
            out->kind = AVKI_SEG_GAP;
            out->index = p->count - kept;
            return;
        }
        i--;
    }
    s = &p->segs[kept - 1 - i];
    out->index = s->index;
    out->name = s->name;
    switch (s->kind) {
    case AVK_PATH_FIELD: out->kind = AVKI_SEG_FIELD; break;
    case AVK_PATH_ITEM: out->kind = AVKI_SEG_ITEM; break;
    case AVK_PATH_KEY: out->kind = AVKI_SEG_KEY; break;
    case AVK_PATH_VALUE: out->kind = AVKI_SEG_VALUE; break;
    case AVK_PATH_WRITER_FIELD: out->kind = AVKI_SEG_WRITER_FIELD; break;
    case AVK_PATH_WRITER_BRANCH: out->kind = AVKI_SEG_WRITER_BRANCH; break;
    default: out->kind = AVKI_SEG_BRANCH; break;
    }
}

void avk_check_path_report(avk_error *err, const char *root, const avk_check_path *p)
{
    avki_path_part part;
    size_t kept = p->count < AVK_CHECK_PATH_MAX ? p->count : AVK_CHECK_PATH_MAX;
    part.count = kept + (p->count > kept ? 1 : 0);
    part.at = check_seg_at;
    part.ctx = p;
    avki_path_report_parts(err, root, &part, 1);
}
