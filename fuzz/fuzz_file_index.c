/* Fuzz target: the block index on arbitrary bytes, both as a sidecar (load: refused or consistent) and as a container file (build: the blocks next_block gives, or its error; seeks land where skipping in order does). */
#define _GNU_SOURCE 1 /* memfd_create */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "avrokit/arena.h"
#include "avrokit/file.h"
#include "avrokit/file_index.h"
#include "avrokit/value.h"
#include "file/file_index_internal.h"
#include "fuzz.h"

/* Small limits, as fuzz_file's, so floods stop quickly. */
static avk_file_reader_options options(void)
{
    avk_file_reader_options o;
    avk_file_reader_options_init(&o);
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

/* An index holds together: blocks back to back from the header to the
 * file size, first numbers the running sum, find consistent. */
static void check_index(const avk_file_index *idx)
{
    size_t i, n = avk_file_index_block_count(idx);
    uint64_t at = avk_file_index_header_size(idx), first = 0;
    for (i = 0; i < n; i++) {
        const avk_file_index_entry *e = avk_file_index_block(idx, i);
        AVKF_CHECK(e != NULL && e->offset == at && e->first == first,
                   "block %zu: offset %llu (expected %llu), first %llu (expected %llu)", i,
                   e ? (unsigned long long)e->offset : 0ull, (unsigned long long)at,
                   e ? (unsigned long long)e->first : 0ull, (unsigned long long)first);
        AVKF_CHECK(e->end > e->offset + e->size + 16 && e->end <= e->offset + e->size + 36,
                   "block %zu: end %llu for offset %llu and size %llu", i,
                   (unsigned long long)e->end, (unsigned long long)e->offset,
                   (unsigned long long)e->size);
        if (e->count > 0)
            AVKF_CHECK(avk_file_index_find(idx, e->first) == i &&
                           avk_file_index_find(idx, e->first + e->count - 1) == i,
                       "find does not give block %zu for its records", i);
        at = e->end;
        first += e->count;
    }
    AVKF_CHECK(avk_file_index_block(idx, n) == NULL, "block past the end");
    AVKF_CHECK(at == avk_file_index_file_size(idx), "blocks end at %llu, file size %llu",
               (unsigned long long)at, (unsigned long long)avk_file_index_file_size(idx));
    AVKF_CHECK(first == avk_file_index_records(idx), "counts sum to %llu, total %llu",
               (unsigned long long)first, (unsigned long long)avk_file_index_records(idx));
    AVKF_CHECK(avk_file_index_find(idx, first) == n, "find past the end");
}

static void load(const uint8_t *data, size_t size)
{
    avk_file_index *idx = NULL;
    avk_error err;
    avk_status st = avk_file_index_load_memory(data, size, NULL, &idx, &err);
    if (st != AVK_OK) {
        AVKF_CHECK(idx == NULL, "load failed but gave an index");
        AVKF_CHECK(st == AVK_ERR_MALFORMED || st == AVK_ERR_TRUNCATED ||
                       st == AVK_ERR_CHECKSUM || st == AVK_ERR_UNSUPPORTED,
                   "load: %s (%s)", avk_status_name(st), err.message);
        return;
    }
    check_index(idx);
    avk_file_index_free(idx);
}

/* As it is, then with its last 4 bytes made the CRC of the rest: the CRC
 * would otherwise keep the fuzzer from every check behind it. */
static void as_sidecar(const uint8_t *data, size_t size)
{
    uint8_t *copy;
    uint32_t crc;
    load(data, size);
    if (size < 8 || memcmp(data, "\x89" "AVKIDX\n", 8) != 0)
        return;
    copy = (uint8_t *)malloc(size);
    if (!copy)
        return;
    memcpy(copy, data, size);
    crc = avki_index_crc32(0, copy, size - 4);
    copy[size - 4] = (uint8_t)crc;
    copy[size - 3] = (uint8_t)(crc >> 8);
    copy[size - 2] = (uint8_t)(crc >> 16);
    copy[size - 1] = (uint8_t)(crc >> 24);
    load(copy, size);
    free(copy);
}

/* Skips n records in order from a fresh reader: 1 when all were there. */
static int skip_to(avk_file_reader *fr, uint64_t n)
{
    int more = 1;
    uint64_t k;
    for (k = 0; k < n; k++)
        if (avk_file_reader_skip(fr, &more, NULL) != AVK_OK || !more)
            return 0;
    return 1;
}

/* The same bytes through a file descriptor (pread, runs of small blocks)
 * give the same index or the same error as from memory. */
static void same_through_fd(const uint8_t *data, size_t size, const avk_file_reader_options *o,
                            avk_status mst, const avk_file_index *midx, const avk_error *merr)
{
    avk_file_index *idx = NULL;
    avk_error err;
    avk_status st;
    size_t i;
    int fd = memfd_create("fuzz_file_index", MFD_CLOEXEC);
    if (fd < 0)
        return;
    if (size && write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return;
    }
    lseek(fd, 0, SEEK_SET);
    st = avk_file_index_build_fd(fd, o, &idx, &err);
    close(fd);
    AVKF_CHECK(st == mst, "memory: %s, fd: %s", avk_status_name(mst), avk_status_name(st));
    if (st != AVK_OK) {
        /* Header errors are worded by the stream reader: places compared
         * for blocks only. */
        if (merr->block >= 0)
            AVKF_CHECK(err.offset == merr->offset && err.block == merr->block &&
                           strcmp(err.message, merr->message) == 0,
                       "memory: %s; fd: %s", merr->message, err.message);
        return;
    }
    AVKF_CHECK(avk_file_index_block_count(idx) == avk_file_index_block_count(midx) &&
                   avk_file_index_records(idx) == avk_file_index_records(midx),
               "memory: %zu blocks, fd: %zu", avk_file_index_block_count(midx),
               avk_file_index_block_count(idx));
    for (i = 0; i < avk_file_index_block_count(idx); i++)
        AVKF_CHECK(memcmp(avk_file_index_block(idx, i), avk_file_index_block(midx, i),
                          sizeof(avk_file_index_entry)) == 0,
                   "block %zu differs between memory and fd", i);
    avk_file_index_free(idx);
}

static void as_container(const uint8_t *data, size_t size)
{
    avk_file_reader_options o = options();
    avk_file_reader *fr = NULL;
    avk_file_index *idx = NULL;
    avk_arena *arena = NULL;
    avk_file_block blk;
    avk_error err, ierr;
    avk_status st, ist;
    size_t i = 0;
    int more;
    ist = avk_file_index_build_memory(data, size, &o, &idx, &ierr);
    same_through_fd(data, size, &o, ist, idx, &ierr);
    st = avk_file_reader_open_memory(data, size, &o, &fr, &err);
    if (st != AVK_OK) {
        AVKF_CHECK(ist == st && idx == NULL, "open: %s, index: %s", avk_status_name(st),
                   avk_status_name(ist));
        return;
    }
    /* The blocks next_block gives, one for one, or its error. */
    while ((st = avk_file_reader_next_block(fr, &blk, &more, &err)) == AVK_OK && more) {
        const avk_file_index_entry *e;
        if (ist != AVK_OK) {
            i++;
            continue;
        }
        e = avk_file_index_block(idx, i++);
        AVKF_CHECK(e && e->offset == blk.offset && e->count == (uint64_t)blk.count &&
                       e->size == blk.size && e->end == blk.end,
                   "block %zu differs from next_block's", i - 1);
    }
    if (st != AVK_OK) {
        AVKF_CHECK(ist == st && err.offset == ierr.offset && err.block == ierr.block,
                   "next_block: %s at %llu block %lld; index: %s at %llu block %lld",
                   avk_status_name(st), (unsigned long long)err.offset, (long long)err.block,
                   avk_status_name(ist), (unsigned long long)ierr.offset, (long long)ierr.block);
        avk_file_reader_free(fr);
        return;
    }
    AVKF_CHECK(ist == AVK_OK, "next_block reads the file, the index fails: %s", ierr.message);
    AVKF_CHECK(i == avk_file_index_block_count(idx), "%zu blocks read, %zu indexed", i,
               avk_file_index_block_count(idx));
    check_index(idx);
    /* A seek gives the record reading in order gives. */
    if (avk_arena_new(NULL, &arena, NULL) == AVK_OK) {
        uint64_t total = avk_file_index_records(idx), targets[3];
        int k;
        targets[0] = total / 2;
        targets[1] = total ? total - 1 : 0;
        targets[2] = total;
        for (k = 0; k < 3; k++) {
            avk_file_reader *seq = NULL;
            avk_value v1, v2;
            int m1 = 0, m2 = 0;
            uint64_t n = targets[k];
            if (n > 4096)
                continue; /* skipping in order must stay quick */
            if (avk_file_reader_seek_record(fr, idx, n, &err) != AVK_OK)
                continue; /* damage inside the block: the reader's error */
            if (avk_file_reader_open_memory(data, size, &o, &seq, NULL) != AVK_OK)
                continue;
            if (skip_to(seq, n) &&
                avk_file_reader_next(fr, arena, &v1, &m1, NULL) == AVK_OK &&
                avk_file_reader_next(seq, arena, &v2, &m2, NULL) == AVK_OK) {
                AVKF_CHECK(m1 == m2, "record %llu: more %d after seek_record, %d in order",
                           (unsigned long long)n, m1, m2);
                AVKF_CHECK(!m1 || avk_value_equal(&v1, &v2),
                           "record %llu differs after seek_record", (unsigned long long)n);
            }
            avk_arena_reset(arena);
            avk_file_reader_free(seq);
        }
        avk_arena_free(arena);
    }
    avk_file_reader_free(fr);
    avk_file_index_free(idx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    as_sidecar(data, size);
    as_container(data, size);
    return 0;
}
