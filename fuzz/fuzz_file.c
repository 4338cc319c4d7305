/* Fuzz target: the container reader on arbitrary bytes, record by record, block by block and skipping bad blocks; the three must agree, a file descriptor must read as memory does, reading with threads (read-ahead, decode-ahead) as without, and the header has one reading (no key twice). */
#define _GNU_SOURCE 1 /* memfd_create */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "avrokit/arena.h"
#include "avrokit/file.h"
#include "avrokit/plan.h"
#include "avrokit/reader.h"
#include "fuzz.h"

/* Small limits, so bombs and floods stop quickly. */
static avk_file_reader_options options(unsigned flags)
{
    avk_file_reader_options o;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.flags = flags;
    o.max_header_bytes = 1 << 16;
    o.max_block_bytes = 1 << 20;
    o.max_block_data = 1 << 20;
    o.limits.max_depth = 64;
    o.limits.max_bytes = 1 << 16;
    o.limits.max_items = 1 << 14;
    o.limits.max_empty_items = 1 << 14;
    o.limits.max_memory = 1 << 22;
    o.max_meta_entries = 1 << 12;
    return o;
}

/* One reading of the header: every key is found again by its name as the
 * same entry (none is repeated or cut at a NUL byte). */
static void check_meta(const avk_file_reader *fr)
{
    size_t i, n = avk_file_reader_meta_count(fr), len, flen;
    AVKF_CHECK(n <= (1u << 12), "%zu metadata entries read, limit %u", n, 1u << 12);
    for (i = 0; i < n && i < 256; i++) { /* a lookup is a scan: keep it quadratic in 256 */
        const char *key;
        const uint8_t *value, *found;
        AVKF_CHECK(avk_file_reader_meta_at(fr, i, &key, &value, &len), "meta_at(%zu)", i);
        found = avk_file_reader_meta(fr, key, &flen);
        AVKF_CHECK(found == value && flen == len,
                   "metadata key %zu (\"%s\") is found as another entry", i, key);
    }
}

static int open_status_ok(avk_status st)
{
    return st == AVK_ERR_MALFORMED || st == AVK_ERR_TRUNCATED || st == AVK_ERR_SCHEMA ||
           st == AVK_ERR_CODEC || st == AVK_ERR_LIMIT;
}

static int read_status_ok(avk_status st)
{
    return st == AVK_ERR_MALFORMED || st == AVK_ERR_TRUNCATED || st == AVK_ERR_SYNC ||
           st == AVK_ERR_CODEC || st == AVK_ERR_CHECKSUM || st == AVK_ERR_LIMIT;
}

typedef struct skips {
    uint64_t calls, bytes, size, last_to;
} skips;

static void on_skip(void *ctx, const avk_error *why, uint64_t from, uint64_t to)
{
    skips *s = (skips *)ctx;
    AVKF_CHECK(read_status_ok(why->status), "skip reason %s", avk_status_name(why->status));
    AVKF_CHECK(from < to && to <= s->size, "skipped [%llu, %llu) of %llu bytes",
               (unsigned long long)from, (unsigned long long)to, (unsigned long long)s->size);
    AVKF_CHECK(from >= s->last_to, "skips overlap: from %llu after %llu",
               (unsigned long long)from, (unsigned long long)s->last_to);
    AVKF_CHECK(why->offset == from, "skip reason at %llu, range from %llu",
               (unsigned long long)why->offset, (unsigned long long)from);
    s->last_to = to;
    s->calls++;
    s->bytes += to - from;
}

/* What one record-by-record pass saw. */
typedef struct pass {
    uint64_t records;
    avk_status status;
    uint64_t offset;
    int64_t block;
    char message[AVK_ERROR_MESSAGE_MAX];
    skips sk;
} pass;

/* Reads every record of data, opened from memory (through_fd 0) or
 * through a memfd holding the same bytes, which the reader reads through
 * its buffer and seeks with lseek; with threads > 1, blocks are read ahead
 * and worker threads decompress (and with AVK_FILE_DECODE_AHEAD decode)
 * them. */
static int read_pass(const uint8_t *data, size_t size, unsigned flags, int through_fd,
                     unsigned threads, avk_arena *arena, pass *out)
{
    avk_file_reader_options o = options(flags);
    avk_file_reader *fr = NULL;
    avk_error err;
    avk_value v;
    avk_status st;
    int more, fd = -1;
    memset(out, 0, sizeof *out);
    out->sk.size = size;
    o.threads = threads;
    if (flags & AVK_FILE_SKIP_BAD_BLOCKS) {
        o.on_skip = on_skip;
        o.on_skip_ctx = &out->sk;
    }
    if (through_fd) {
        fd = memfd_create("fuzz_file", MFD_CLOEXEC);
        if (fd < 0)
            return 0;
        if (size && write(fd, data, size) != (ssize_t)size) {
            close(fd);
            return 0;
        }
        lseek(fd, 0, SEEK_SET);
        st = avk_file_reader_open_fd(fd, &o, &fr, &err);
    } else {
        st = avk_file_reader_open_memory(data, size, &o, &fr, &err);
    }
    out->status = st;
    if (st == AVK_OK) {
        for (;;) {
            st = avk_file_reader_next(fr, arena, &v, &more, &err);
            avk_arena_reset(arena);
            if (st != AVK_OK || !more)
                break;
            out->records++;
        }
        out->status = st;
        avk_file_reader_free(fr);
    }
    if (out->status != AVK_OK) {
        out->offset = err.offset;
        out->block = err.block;
        memcpy(out->message, err.message, sizeof out->message);
    }
    if (fd >= 0)
        close(fd);
    return 1;
}

/* Memory and a file descriptor give the same records, status and place.
 * The two passes are kept in both[0] (memory) and both[1] (fd; status
 * AVK_ERR_IO when no memfd could be had). */
static void same_passes(const uint8_t *data, size_t size, unsigned flags, avk_arena *arena,
                        pass both[2])
{
    pass m, f;
    read_pass(data, size, flags, 0, 0, arena, &m);
    both[0] = m;
    both[1].status = AVK_ERR_IO;
    if (!read_pass(data, size, flags, 1, 0, arena, &f))
        return;
    both[1] = f;
    AVKF_CHECK(m.records == f.records && m.status == f.status,
               "memory: %llu records then %s; fd: %llu records then %s",
               (unsigned long long)m.records, avk_status_name(m.status),
               (unsigned long long)f.records, avk_status_name(f.status));
    if (m.status != AVK_OK && m.status != AVK_ERR_MALFORMED)
        AVKF_CHECK(m.offset == f.offset && m.block == f.block,
                   "%s at offset %llu block %lld from memory, %llu block %lld from an fd",
                   avk_status_name(m.status), (unsigned long long)m.offset, (long long)m.block,
                   (unsigned long long)f.offset, (long long)f.block);
    AVKF_CHECK(m.sk.calls == f.sk.calls && m.sk.bytes == f.sk.bytes,
               "skipped %llu blocks (%llu bytes) from memory, %llu (%llu) from an fd",
               (unsigned long long)m.sk.calls, (unsigned long long)m.sk.bytes,
               (unsigned long long)f.sk.calls, (unsigned long long)f.sk.bytes);
}

/* With threads, the same records, error (status, place and message) and
 * skips as the pass p without, from memory or an fd alike (file.h
 * promises it). */
static void same_with_threads(const uint8_t *data, size_t size, unsigned flags, int through_fd,
                              unsigned threads, avk_arena *arena, const pass *pp)
{
    pass p = *pp, t;
    if (!read_pass(data, size, flags, through_fd, threads, arena, &t))
        return;
    AVKF_CHECK(p.records == t.records && p.status == t.status,
               "flags %#x%s: %llu records then %s; %u threads: %llu records then %s", flags,
               through_fd ? " (fd)" : "", (unsigned long long)p.records,
               avk_status_name(p.status), threads, (unsigned long long)t.records,
               avk_status_name(t.status));
    if (p.status != AVK_OK)
        AVKF_CHECK(p.offset == t.offset && p.block == t.block &&
                       strcmp(p.message, t.message) == 0,
                   "flags %#x%s: %s at offset %llu block %lld (%s); %u threads: at %llu block "
                   "%lld (%s)",
                   flags, through_fd ? " (fd)" : "", avk_status_name(p.status),
                   (unsigned long long)p.offset, (long long)p.block, p.message, threads,
                   (unsigned long long)t.offset, (long long)t.block, t.message);
    AVKF_CHECK(p.sk.calls == t.sk.calls && p.sk.bytes == t.sk.bytes,
               "flags %#x: skipped %llu blocks (%llu bytes); %u threads: %llu (%llu)", flags,
               (unsigned long long)p.sk.calls, (unsigned long long)p.sk.bytes, threads,
               (unsigned long long)t.sk.calls, (unsigned long long)t.sk.bytes);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    avk_file_reader_options o = options(0);
    avk_file_reader *fr = NULL;
    avk_arena *arena = NULL;
    avk_buffer buf;
    avk_error err;
    avk_status st, rec_st;
    avk_value v;
    avk_file_block blk;
    avk_file_reader_stats rs;
    uint64_t recs = 0, lead = 0, next_count = 0, skipped_recs = 0;
    int more = 1, lead_done = 0, rec_more;
    skips sk;
    pass plain[2], skipping[2];

    st = avk_file_reader_open_memory(data, size, &o, &fr, &err);
    if (st != AVK_OK) {
        AVKF_CHECK(open_status_ok(st), "open: %s (%s)", avk_status_name(st), err.message);
        AVKF_CHECK(fr == NULL, "open failed but gave a reader");
        return 0;
    }
    AVKF_CHECK(avk_file_reader_header_size(fr) <= size, "header of %llu bytes in %zu",
               (unsigned long long)avk_file_reader_header_size(fr), size);
    check_meta(fr);
    if (avk_arena_new(NULL, &arena, NULL) != AVK_OK) {
        avk_file_reader_free(fr);
        return 0;
    }
    avk_buffer_init(&buf, NULL);

    /* 1: record by record. */
    for (;;) {
        st = avk_file_reader_next(fr, arena, &v, &more, &err);
        avk_arena_reset(arena);
        if (st != AVK_OK || !more)
            break;
        recs++;
    }
    rec_st = st;
    rec_more = more;
    AVKF_CHECK(st == AVK_OK || read_status_ok(st), "next: %s (%s)", avk_status_name(st),
               err.message);
    if (st != AVK_OK) {
        AVKF_CHECK(err.offset != AVK_OFFSET_UNKNOWN && err.offset < size + 1 && err.block >= 0,
                   "error at offset %llu block %lld", (unsigned long long)err.offset,
                   (long long)err.block);
        AVKF_CHECK(avk_file_reader_next(fr, arena, &v, &more, &err) == st, "error not sticky");
    }
    avk_file_reader_get_stats(fr, &rs);
    AVKF_CHECK(rs.records == recs, "stats say %llu records, %llu read",
               (unsigned long long)rs.records, (unsigned long long)recs);

    /* 2: block by block from the start, decompressed and decoded. The
     * records of the leading blocks that decode whole are what pass 1 must
     * have returned, plus at most the next block's. */
    st = avk_file_reader_seek_block(fr, avk_file_reader_header_size(fr), &err);
    AVKF_CHECK(st == AVK_OK, "seek_block to the first block: %s", avk_status_name(st));
    for (;;) {
        avk_reader r;
        int64_t k;
        int whole = 1, at_end = 0;
        st = avk_file_reader_next_block(fr, &blk, &more, &err);
        if (st != AVK_OK || !more)
            break;
        AVKF_CHECK(blk.count >= 0 && blk.end <= size && blk.offset < blk.end,
                   "block at %llu: count %lld, end %llu", (unsigned long long)blk.offset,
                   (long long)blk.count, (unsigned long long)blk.end);
        st = avk_file_block_decompress(fr, &blk, &buf, &err);
        AVKF_CHECK(st == AVK_OK || read_status_ok(st), "decompress: %s", avk_status_name(st));
        if (st != AVK_OK) {
            whole = 0;
        } else {
            AVKF_CHECK(buf.len <= o.max_block_data, "%zu bytes decompressed", buf.len);
            avk_reader_init_memory(&r, buf.data, buf.len);
            for (k = 0; k < blk.count && whole; k++) {
                if (avk_plan_decode(avk_file_reader_plan(fr), &r, arena, &v, &err) != AVK_OK)
                    whole = 0;
                avk_arena_reset(arena);
            }
            if (whole && (avk_reader_at_end(&r, &at_end, NULL) != AVK_OK || !at_end))
                whole = 0;
        }
        if (!lead_done) {
            if (whole) {
                lead += (uint64_t)blk.count;
            } else {
                lead_done = 1;
                next_count = (uint64_t)blk.count;
            }
        }
    }
    AVKF_CHECK(st == AVK_OK || read_status_ok(st), "next_block: %s (%s)", avk_status_name(st),
               err.message);
    if (st != AVK_OK && !lead_done) {
        lead_done = 1;
        next_count = 0;
    }
    /* A block cut inside its marker gives its records before TRUNCATED;
     * next_block returns such a block too. */
    AVKF_CHECK(recs >= lead && recs <= lead + next_count,
               "%llu records read one by one; blocks say %llu whole (+%llu)",
               (unsigned long long)recs, (unsigned long long)lead,
               (unsigned long long)next_count);
    if (!lead_done && st == AVK_OK)
        AVKF_CHECK(rec_st == AVK_OK && rec_more == 0 && recs == lead,
                   "every block is whole but record reading gave %s after %llu of %llu",
                   avk_status_name(rec_st), (unsigned long long)recs, (unsigned long long)lead);

    /* A seek to the middle, then every block after it. */
    if (avk_file_reader_seek_sync(fr, size / 2, &err) == AVK_OK) {
        while (avk_file_reader_next_block(fr, &blk, &more, &err) == AVK_OK && more)
            AVKF_CHECK(blk.offset >= size / 2 + 16, "block at %llu after seek to %zu",
                       (unsigned long long)blk.offset, size / 2);
    }
    avk_file_reader_free(fr);

    /* 3: skipping bad blocks: never fails on damage; returns at least what
     * pass 1 returned. */
    o = options(AVK_FILE_SKIP_BAD_BLOCKS);
    memset(&sk, 0, sizeof sk);
    sk.size = size;
    o.on_skip = on_skip;
    o.on_skip_ctx = &sk;
    st = avk_file_reader_open_memory(data, size, &o, &fr, &err);
    AVKF_CHECK(st == AVK_OK, "open in skip mode: %s", avk_status_name(st));
    for (;;) {
        st = avk_file_reader_next(fr, arena, &v, &more, &err);
        avk_arena_reset(arena);
        if (st != AVK_OK || !more)
            break;
        skipped_recs++;
    }
    AVKF_CHECK(st == AVK_OK || st == AVK_ERR_LIMIT, "skip mode: %s (%s)", avk_status_name(st),
               err.message);
    if (st == AVK_OK)
        AVKF_CHECK(skipped_recs >= recs, "skip mode read %llu records, plain mode %llu",
                   (unsigned long long)skipped_recs, (unsigned long long)recs);
    avk_file_reader_get_stats(fr, &rs);
    AVKF_CHECK(rs.bad_blocks == sk.calls && rs.bad_bytes == sk.bytes,
               "stats: %llu bad blocks (%llu bytes), on_skip: %llu (%llu bytes)",
               (unsigned long long)rs.bad_blocks, (unsigned long long)rs.bad_bytes,
               (unsigned long long)sk.calls, (unsigned long long)sk.bytes);
    avk_file_reader_free(fr);

    /* 4: the same through a file descriptor, plain and skipping. */
    same_passes(data, size, 0, arena, plain);
    same_passes(data, size, AVK_FILE_SKIP_BAD_BLOCKS, arena, skipping);

    /* 5: with threads, for one input in four (by its size, which mutations
     * change). A worker thread costs about 0.5 ms to start and join under
     * ASan, more than the rest of this function on most inputs; the reader
     * starts them only for files of two blocks or more that need work.
     * The other choices come from the size too: 2 to 4 threads, skipping
     * or not, decoding ahead or not, memory or an fd. */
    if (size % 4 == 0) {
        size_t k = size / 4;
        unsigned flags = (k & 1 ? AVK_FILE_SKIP_BAD_BLOCKS : 0) |
                         (k & 2 ? AVK_FILE_DECODE_AHEAD : 0);
        int fd = (k >> 2) % 4 == 0;
        const pass *p = &(k & 1 ? skipping : plain)[fd];
        if (!fd || p->status != AVK_ERR_IO)
            same_with_threads(data, size, flags, fd, 2 + (unsigned)(k >> 4) % 3, arena, p);
    }

    avk_buffer_destroy(&buf);
    avk_arena_free(arena);
    return 0;
}
