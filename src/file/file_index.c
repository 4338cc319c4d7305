/* Block index: the object, its accessors, and building it by walking block headers without reading block data. */
#define _GNU_SOURCE /* pread */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "avrokit/reader.h"
#include "common/alloc_internal.h"
#include "common/error.h"
#include "file/file_index_internal.h"
#include "file/file_internal.h"
#include "file/file_records.h"
#include "plan/plan_format.h"

/*
 * Building reads, for each block, its count and size varints, jumps over
 * its data and compares the sync marker that follows: one pread of 36
 * bytes a block, the previous block's marker and the next block's varints
 * together (16 + 20: two varints take at most 10 bytes each). The data is
 * never read, so a file in the page cache indexes at the speed of those
 * small reads (about 0.6 us each), whatever its codec: some 110 GB/s with
 * 64 KiB blocks. Blocks under 4 KiB would make the read calls the cost
 * (1.7 GB/s at 1 KiB): among them one read of 32 KiB serves the headers
 * of many (see fetch).
 *
 * Every check of avk_file_reader_next_block is made, in its order and with
 * its messages, so that an index never lists a block that reading
 * refuses: count and size not negative, size within max_block_bytes and
 * within the file, the marker whole and matching, then the count against
 * what the block can hold (count_fits / count_plausible in file_reader.c).
 */

/* The bytes read at once: a marker, then two varints of at most 10 bytes. */
#define WINDOW (AVK_FILE_SYNC_SIZE + 2 * AVK_VARINT_LONG_MAX)

/* ---- the object ---------------------------------------------------------- */

avk_status avki_file_index_new(const avk_allocator *alloc, avk_file_index **out, avk_error *err)
{
    avk_allocator a = avki_allocator_or_libc(alloc);
    avk_file_index *idx = a.alloc(a.ctx, sizeof *idx);
    *out = NULL;
    if (!idx)
        return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                              "out of memory for a file index");
    memset(idx, 0, sizeof *idx);
    idx->alloc = a;
    *out = idx;
    return AVK_OK;
}

void avk_file_index_free(avk_file_index *idx)
{
    avk_allocator a;
    if (!idx)
        return;
    a = idx->alloc;
    if (idx->blocks)
        a.free(a.ctx, idx->blocks, idx->cap * sizeof *idx->blocks);
    a.free(a.ctx, idx, sizeof *idx);
}

/* Doubling, so a file of many blocks costs few copies; the caller has
 * checked that the block is real (its bytes are in the file or sidecar),
 * which bounds the count. */
avk_status avki_file_index_push(avk_file_index *idx, uint64_t offset, uint64_t count,
                                uint64_t size, uint64_t end, avk_error *err)
{
    avk_file_index_entry *e;
    if (idx->count == idx->cap) {
        size_t ncap = idx->cap ? idx->cap * 2 : 64;
        void *nb;
        if (ncap < idx->cap || ncap > SIZE_MAX / sizeof *idx->blocks)
            return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                                  "too many blocks for this machine's memory (%zu)", idx->count);
        nb = idx->blocks ? idx->alloc.realloc(idx->alloc.ctx, idx->blocks,
                                              idx->cap * sizeof *idx->blocks,
                                              ncap * sizeof *idx->blocks)
                         : idx->alloc.alloc(idx->alloc.ctx, ncap * sizeof *idx->blocks);
        if (!nb)
            return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                                  "out of memory for the index of %zu blocks", ncap);
        idx->blocks = (avk_file_index_entry *)nb;
        idx->cap = ncap;
    }
    e = &idx->blocks[idx->count++];
    e->offset = offset;
    e->first = idx->records;
    e->count = count;
    e->size = size;
    e->end = end;
    idx->records += count;
    idx->file_size = end;
    return AVK_OK;
}

/* ---- accessors ----------------------------------------------------------- */

size_t avk_file_index_block_count(const avk_file_index *idx) { return idx->count; }
uint64_t avk_file_index_records(const avk_file_index *idx) { return idx->records; }
uint64_t avk_file_index_header_size(const avk_file_index *idx) { return idx->header_size; }
const uint8_t *avk_file_index_sync(const avk_file_index *idx) { return idx->sync; }
uint64_t avk_file_index_file_size(const avk_file_index *idx) { return idx->file_size; }
int64_t avk_file_index_mtime_ns(const avk_file_index *idx) { return idx->mtime_ns; }

const avk_file_index_entry *avk_file_index_block(const avk_file_index *idx, size_t i)
{
    return i < idx->count ? &idx->blocks[i] : NULL;
}

/* The last block whose first record is at or before n. Blocks of 0
 * records share their first number with the block after them, so the last
 * such block is the one that holds n whenever n is below the total. */
size_t avk_file_index_find(const avk_file_index *idx, uint64_t n)
{
    size_t lo = 0, hi = idx->count;
    if (n >= idx->records)
        return idx->count;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (idx->blocks[mid].first <= n)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* ---- errors -------------------------------------------------------------- */

/* Errors are worded and placed as the reader's (avki_file_error_at), so
 * that building and reading say the same. */
#define block_error avki_file_error_at

/* ---- reading bytes ------------------------------------------------------- */

avk_status avki_pread_full(int fd, void *buf, size_t want, uint64_t offset, size_t *got,
                           avk_error *err)
{
    size_t have = 0;
    while (have < want) {
        ssize_t n = pread(fd, (uint8_t *)buf + have, want - have, (off_t)(offset + have));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            avki_error_errno(err, e, "cannot read %zu bytes at byte %llu", want,
                             (unsigned long long)offset);
            if (err)
                err->offset = offset;
            return AVK_ERR_IO;
        }
        if (n == 0)
            break;
        have += (size_t)n;
    }
    *got = have;
    return AVK_OK;
}

/* Bytes of a file being walked: the last read, 36 bytes or, among small
 * blocks, a run of them. */
typedef struct source {
    const avki_index_walk *w;
    avk_allocator alloc;
    uint8_t small[WINDOW];
    uint8_t *run;       /* RUN_BYTES, allocated when small blocks are met */
    const uint8_t *buf; /* small or run */
    uint64_t start;     /* file offset of buf[0] */
    size_t len;         /* bytes in buf */
} source;

/* Blocks this small cost more in read calls than in the bytes between
 * their headers: one read of RUN_BYTES then serves many of them (1 KiB
 * blocks: 1.7 GB/s with a read a block, over 5 GB/s so). Above it, a
 * read of 36 bytes a block, the data never touched. */
#define SMALL_BLOCK 4096u
#define RUN_BYTES ((size_t)32 << 10)

/* Up to want bytes at offset (fewer only at w->file_len): a view of memory
 * input, of the last read when it holds them, or read now (a run of
 * RUN_BYTES when the block before was small). */
static avk_status fetch(source *src, uint64_t offset, size_t want, int small_blocks,
                        const uint8_t **data, size_t *got, avk_error *err)
{
    const avki_index_walk *w = src->w;
    uint64_t left = offset < w->file_len ? w->file_len - offset : 0;
    size_t read_len;
    uint8_t *into;
    if (want > left)
        want = (size_t)left;
    *got = want;
    if (w->mem) {
        *data = w->mem + offset;
        return AVK_OK;
    }
    if (src->buf && offset >= src->start && offset - src->start <= src->len &&
        src->len - (size_t)(offset - src->start) >= want) {
        *data = src->buf + (offset - src->start);
        return AVK_OK;
    }
    into = src->small;
    read_len = want;
    if (small_blocks) {
        if (!src->run)
            src->run = (uint8_t *)src->alloc.alloc(src->alloc.ctx, RUN_BYTES);
        if (src->run) { /* without it, a read a block */
            into = src->run;
            read_len = left < RUN_BYTES ? (size_t)left : RUN_BYTES;
        }
    }
    AVK_TRY(avki_pread_full(w->fd, into, read_len, offset, &src->len, err));
    src->buf = into;
    src->start = offset;
    *data = into;
    if (src->len < want) /* the file shrank under us */
        return avki_error_set(err, AVK_ERR_TRUNCATED, offset,
                              "the file ends at byte %llu, before the %llu bytes it had when "
                              "the index was started (it is being changed)",
                              (unsigned long long)(offset + src->len),
                              (unsigned long long)w->file_len);
    return AVK_OK;
}

/* ---- walking ------------------------------------------------------------- */

void avki_index_walk_init(avki_index_walk *w, const avk_file_reader *fr,
                          const avk_file_reader_options *opts)
{
    const avk_plan *plan = avk_file_reader_plan(fr);
    /* nodes[0] is the writer's root in a resolving plan too: blocks hold
     * the file's records (the reader's reader_ready takes the same). */
    w->min_record = plan->nodes[0].min_size;
    w->max_empty = plan->limits.max_empty_items;
    w->sync = avk_file_reader_sync(fr);
    w->codec = avk_file_reader_codec(fr, NULL);
    w->max_block_bytes = opts && opts->max_block_bytes ? opts->max_block_bytes
                                                       : AVKI_FILE_DEFAULT_BLOCK_BYTES;
    w->max_block_data = opts && opts->max_block_data ? opts->max_block_data
                                                     : AVKI_FILE_DEFAULT_BLOCK_BYTES;
}

/* One varint of the block header, with the reader's messages. */
static avk_status header_varint(avk_reader *r, int64_t *v, uint64_t offset, uint64_t index,
                                const char *what, avk_error *err)
{
    avk_status st = avk_reader_read_long(r, v, NULL);
    if (st == AVK_ERR_TRUNCATED)
        return block_error(offset, index, err, st, "the file ends inside the block's %s", what);
    if (st != AVK_OK)
        return block_error(offset, index, err, AVK_ERR_MALFORMED,
                           "the block's %s is not a valid varint", what);
    return AVK_OK;
}

/* The count check next_block makes (count_plausible, and count_fits for
 * the null codec): the stored bytes bound a null-codec block's records;
 * max_block_data bounds a compressed one's; records of zero bytes are
 * bounded by max_empty_items. */
static avk_status count_plausible(const avki_index_walk *w, uint64_t count, uint64_t size,
                                  uint64_t offset, uint64_t index, avk_error *err)
{
    if (w->min_record == 0) {
        if (count <= w->max_empty)
            return AVK_OK;
        return block_error(offset, index, err, AVK_ERR_LIMIT,
                           "a count of %lld records of zero bytes each exceeds the limit of "
                           "%llu (max_empty_items)",
                           (long long)count, (unsigned long long)w->max_empty);
    }
    if (w->codec == AVK_CODEC_NULL) {
        if (count <= size / w->min_record)
            return AVK_OK;
        return block_error(offset, index, err, AVK_ERR_MALFORMED,
                           "a count of %lld records cannot be right for %zu bytes of data",
                           (long long)count, (size_t)size);
    }
    if (count <= w->max_block_data / w->min_record)
        return AVK_OK;
    return block_error(offset, index, err, AVK_ERR_LIMIT,
                       "a count of %lld records of at least %llu bytes each exceeds the %llu "
                       "bytes a block may hold decompressed (max_block_data)",
                       (long long)count, (unsigned long long)w->min_record,
                       (unsigned long long)w->max_block_data);
}

static avk_status walk(avk_file_index *idx, source *src, uint64_t from, avk_error *err)
{
    const avki_index_walk *w = src->w;
    const uint8_t *win;
    size_t have;
    uint64_t off = from;
    /* The first block's varints; later ones come with the marker before them. */
    AVK_TRY(fetch(src, off, 2 * AVK_VARINT_LONG_MAX, 0, &win, &have, err));
    while (off < w->file_len) {
        uint64_t index = idx->count, data, left, end;
        int64_t count, size;
        avk_reader r;
        const uint8_t *next;
        size_t next_have;
        avk_reader_init_memory(&r, win, have);
        AVK_TRY(header_varint(&r, &count, off, index, "record count", err));
        if (count < 0)
            return block_error(off, index, err, AVK_ERR_MALFORMED, "negative record count %lld",
                               (long long)count);
        AVK_TRY(header_varint(&r, &size, off, index, "byte size", err));
        if (size < 0)
            return block_error(off, index, err, AVK_ERR_MALFORMED, "negative byte size %lld",
                               (long long)size);
        if ((uint64_t)size > w->max_block_bytes)
            return block_error(off, index, err, AVK_ERR_LIMIT,
                               "its size of %lld bytes exceeds the limit of %llu "
                               "(max_block_bytes)",
                               (long long)size, (unsigned long long)w->max_block_bytes);
        data = off + (uint64_t)(r.pos - win);
        left = w->file_len - data;
        if ((uint64_t)size > left)
            return block_error(off, index, err, AVK_ERR_TRUNCATED,
                               "its size says %lld bytes but only %llu remain in the file",
                               (long long)size, (unsigned long long)left);
        /* A marker cut short ends the file after whole data: next_block
         * hands such a block out (its count checked) before the error. */
        if (left - (uint64_t)size < AVK_FILE_SYNC_SIZE) {
            AVK_TRY(count_plausible(w, (uint64_t)count, (uint64_t)size, off, index, err));
            return block_error(off, index, err, AVK_ERR_TRUNCATED,
                               "the file ends before the block's sync marker");
        }
        end = data + (uint64_t)size + AVK_FILE_SYNC_SIZE;
        /* The marker, and the next block's varints in the same read. */
        AVK_TRY(fetch(src, end - AVK_FILE_SYNC_SIZE, WINDOW, (uint64_t)size < SMALL_BLOCK, &next,
                      &next_have, err));
        if (memcmp(next, w->sync, AVK_FILE_SYNC_SIZE) != 0)
            return block_error(off, index, err, AVK_ERR_SYNC,
                               "the sync marker after its data (at byte %llu) does not match "
                               "the header's",
                               (unsigned long long)(end - AVK_FILE_SYNC_SIZE));
        AVK_TRY(count_plausible(w, (uint64_t)count, (uint64_t)size, off, index, err));
        AVK_TRY(avki_file_index_push(idx, off, (uint64_t)count, (uint64_t)size, end, err));
        win = next + AVK_FILE_SYNC_SIZE;
        have = next_have - AVK_FILE_SYNC_SIZE;
        off = end;
    }
    return AVK_OK;
}

avk_status avki_file_index_walk(avk_file_index *idx, const avki_index_walk *w, uint64_t from,
                                avk_error *err)
{
    source src;
    avk_status st;
    memset(&src, 0, sizeof src);
    src.w = w;
    src.alloc = idx->alloc;
    st = walk(idx, &src, from, err);
    if (src.run)
        src.alloc.free(src.alloc.ctx, src.run, RUN_BYTES);
    return st;
}

/* ---- building ------------------------------------------------------------ */

/* Walks the blocks of the file fr has just opened (its header read): from
 * memory when mem is not NULL, else through fd, file_len bytes long. */
static avk_status build_from(avk_file_reader *fr, const avk_file_reader_options *opts,
                             const uint8_t *mem, int fd, uint64_t file_len, int64_t mtime_ns,
                             avk_file_index **out, avk_error *err)
{
    avk_file_index *idx;
    avki_index_walk w;
    avk_status st;
    AVK_TRY(avki_file_index_new(opts ? opts->allocator : NULL, &idx, err));
    memset(&w, 0, sizeof w);
    avki_index_walk_init(&w, fr, opts);
    w.mem = mem;
    w.fd = fd;
    w.file_len = file_len;
    idx->header_size = avk_file_reader_header_size(fr);
    idx->file_size = idx->header_size;
    idx->mtime_ns = mtime_ns;
    memcpy(idx->sync, w.sync, AVK_FILE_SYNC_SIZE);
    st = avki_file_index_walk(idx, &w, idx->header_size, err);
    if (st != AVK_OK) {
        avk_file_index_free(idx);
        return st;
    }
    *out = idx;
    return AVK_OK;
}

avk_status avk_file_index_build_fd(int fd, const avk_file_reader_options *opts,
                                   avk_file_index **out, avk_error *err)
{
    struct stat st;
    avk_file_reader *fr;
    avk_status s;
    if (!out)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_file_index_build_fd: NULL out");
    *out = NULL;
    if (fd < 0)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_file_index_build_fd: negative fd");
    if (fstat(fd, &st) != 0)
        return avki_error_errno(err, errno, "cannot stat the file");
    /* Blocks are read at their offsets: a pipe has none. */
    if (!S_ISREG(st.st_mode))
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "only a regular file can be indexed (not a pipe, terminal or "
                              "device): its blocks are read at their offsets");
    AVK_TRY(avk_file_reader_open_fd(fd, opts, &fr, err));
    s = build_from(fr, opts, NULL, fd, (uint64_t)st.st_size,
                   (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec, out, err);
    avk_file_reader_free(fr);
    return s;
}

avk_status avk_file_index_build_path(const char *path, const avk_file_reader_options *opts,
                                     avk_file_index **out, avk_error *err)
{
    int fd;
    avk_status st;
    if (!out || !path)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_file_index_build_path: NULL %s", out ? "path" : "out");
    *out = NULL;
    if (strcmp(path, "-") == 0)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "standard input cannot be indexed: its blocks are read at their "
                              "offsets");
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return avki_error_errno(err, errno, "cannot open %s", path);
    st = avk_file_index_build_fd(fd, opts, out, err);
    close(fd);
    return st;
}

avk_status avk_file_index_build_memory(const void *data, size_t len,
                                       const avk_file_reader_options *opts,
                                       avk_file_index **out, avk_error *err)
{
    avk_file_reader *fr;
    avk_status st;
    if (!out)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_file_index_build_memory: NULL out");
    *out = NULL;
    AVK_TRY(avk_file_reader_open_memory(data, len, opts, &fr, err));
    st = build_from(fr, opts, (const uint8_t *)data, -1, len, 0, out, err);
    avk_file_reader_free(fr);
    return st;
}
