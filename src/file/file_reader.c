/* Container file reader: blocks read whole (mapped files are viewed in place), optionally decompressed and decoded ahead by worker threads (file_work.c), records decoded out of them, damage reported or skipped. */
#define _GNU_SOURCE /* memmem */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "avrokit/resolve.h"
#include "plan/plan_format.h"
#include "io/reader_internal.h"
#include "common/alloc_internal.h"
#include "common/error.h"
#include "file/file_internal.h"
#include "file/file_prefetch.h"
#include "file/file_reader_internal.h"

/*
 * After the header, a container file is blocks until the end of the input:
 *
 *   count (long)  size (long)  data (size bytes, as the codec left them)  sync (16 bytes)
 *
 * Reading goes a block at a time: take_block reads the next block's count,
 * size, data and marker into a slot (read_block), open_block decompresses
 * it and points the memory reader blk at its records, and next_record
 * decodes records from blk until the count runs out. Records are always
 * decoded from memory, whatever the input, so the decoder's fast paths
 * (positions in registers, no refills) apply inside blocks, and a block's
 * bytes bound everything its records claim.
 *
 * State between calls:
 *   remaining   records of the current block not yet returned (0: the next
 *               call takes a block);
 *   pending     an error found after the current block's records (bytes
 *               left over, a cut sync marker), reported once they are out,
 *               so callers get every good record first;
 *   sticky      a final error, returned by every later call, so a caller
 *               that loops on next cannot step past a failure by accident;
 *   next_index  the index of the next block: errors name blocks by index
 *               and byte offset.
 *
 * Damage (after_failure): without AVK_FILE_SKIP_BAD_BLOCKS the first error
 * is final. With it, damage (TRUNCATED, MALFORMED, SYNC, CODEC, CHECKSUM)
 * goes to on_skip and reading goes on; a limit is returned to the caller
 * after moving past the block, since the block may be valid data that a
 * larger limit reads. Where reading goes on depends on what can be trusted:
 * after a block whose own marker matched, right after that marker; when
 * the count, size or marker itself was bad, at the next marker found after
 * the block's first byte (rescan), so a block that only lied about its
 * size costs only itself.
 */

/* Limits a caller's options may change. The header holds the schema and
 * metadata, a few KiB in practice: 64 MiB bounds what a hostile header can
 * make the reader allocate. Blocks: 1 GiB, far above what writers cut (this
 * one cuts at 64 KiB by default) and low enough that a lying size cannot
 * take a 64-bit machine's memory. The stream buffer is larger than a plain
 * reader's: a block's data is read through it. */
#define DEFAULT_HEADER_BYTES ((uint64_t)64 << 20)
#define DEFAULT_BUFFER ((size_t)256 << 10)
#define MAX_THREADS 64u /* more would only cost memory: one block of each in flight */


/* ---- offsets and messages ------------------------------------------------ */

static uint64_t cur_offset(const avk_file_reader *fr)
{
    return fr->origin + avk_reader_offset(&fr->in);
}

/* The current block's place. */
static avk_status block_place(const avk_file_reader *fr, avk_error *err)
{
    return avki_file_place_at(fr->blk_offset, fr->blk_index, err);
}

#define error_at avki_file_error_at

/* The same about the current block. */
#define block_error(fr, err, st, ...) \
    error_at((fr)->blk_offset, (fr)->blk_index, err, st, __VA_ARGS__)
/* ... and about the block being read into slot s. */
#define slot_error(s, err, st, ...) \
    error_at((s)->blk.offset, (s)->blk.index, err, st, __VA_ARGS__)

/* Rewrites an error from a lower layer (codec, record decoder) as one about
 * the current block, keeping its path. */
static avk_status wrap_error(avk_file_reader *fr, avk_error *err, avk_status st,
                             const char *what)
{
    if (!err)
        return st;
    err->status = st;
    avki_error_prefix(err, "%s: ", what);
    return block_place(fr, err);
}

/* ---- opening ------------------------------------------------------------- */

/* The size of the options before threads was added: callers built then
 * pass it and get threads = 0. */
#define OPTIONS_V1_SIZE \
    (offsetof(avk_file_reader_options, allocator) + sizeof(const avk_allocator *))
/* ... and before max_meta_entries (they get the default). */
#define OPTIONS_V2_SIZE offsetof(avk_file_reader_options, max_meta_entries)
/* ... and before work (they get none). */
#define OPTIONS_V3_SIZE offsetof(avk_file_reader_options, work)

static avk_status options_check(const avk_file_reader_options *opts, avk_error *err)
{
    if (opts && opts->struct_size != sizeof *opts && opts->struct_size != OPTIONS_V1_SIZE &&
        opts->struct_size != OPTIONS_V2_SIZE && opts->struct_size != OPTIONS_V3_SIZE)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_file_reader_options.struct_size is %zu, expected %zu",
                              opts->struct_size, sizeof *opts);
    return AVK_OK;
}

/* The reader with the caller's options applied, fields an older caller's
 * shorter options struct lacks left at their defaults. */
static avk_status reader_alloc(const avk_file_reader_options *opts, avk_file_reader **out,
                               avk_error *err)
{
    avk_allocator a;
    avk_file_reader *fr;
    *out = NULL;
    AVK_TRY(options_check(opts, err));
    a = avki_allocator_or_libc(opts ? opts->allocator : NULL);
    fr = a.alloc(a.ctx, sizeof *fr);
    if (!fr)
        return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                              "out of memory for a file reader");
    memset(fr, 0, sizeof *fr);
    fr->alloc = a;
    fr->own_fd = -1;
    fr->in.fd = -1;
    fr->max_header = DEFAULT_HEADER_BYTES;
    fr->max_block_bytes = AVKI_FILE_DEFAULT_BLOCK_BYTES;
    fr->max_block_data = AVKI_FILE_DEFAULT_BLOCK_BYTES;
    fr->buffer_size = DEFAULT_BUFFER;
    if (opts) {
        fr->flags = opts->flags;
        fr->on_skip = opts->on_skip;
        fr->on_skip_ctx = opts->on_skip_ctx;
        if (opts->max_header_bytes)
            fr->max_header = opts->max_header_bytes;
        if (opts->max_block_bytes)
            fr->max_block_bytes = opts->max_block_bytes;
        if (opts->max_block_data)
            fr->max_block_data = opts->max_block_data;
        if (opts->buffer_size)
            fr->buffer_size = opts->buffer_size;
        if (opts->struct_size >= offsetof(avk_file_reader_options, threads) + sizeof opts->threads)
            fr->threads = opts->threads < MAX_THREADS ? opts->threads : MAX_THREADS;
        if (opts->struct_size > OPTIONS_V2_SIZE)
            fr->max_meta_entries = opts->max_meta_entries;
        if (opts->struct_size == sizeof *opts) {
            fr->work = opts->work;
            fr->work_ctx = opts->work_ctx;
        }
    }
    /* Workers that decode want more blocks queued than workers, so that
     * one slow block does not leave the others idle. */
    if (fr->threads >= 2)
        fr->ring = fr->threads * ((fr->work || (fr->flags & AVK_FILE_DECODE_AHEAD)) ? 2 : 1);
    avki_block_slot_init(&fr->one, &fr->alloc, fr->ring);
    *out = fr;
    return AVK_OK;
}

/* Reads the header from fr->in and compiles the plan. */
static avk_status reader_ready(avk_file_reader *fr);

static avk_status reader_start(avk_file_reader *fr, const avk_file_reader_options *opts,
                               avk_error *err)
{
    avk_plan_options po;
    avk_status st = avki_file_header_read(&fr->hdr, &fr->in, fr->max_header,
                                          fr->max_meta_entries, &fr->alloc, err);
    if (st != AVK_OK)
        return st;
    memset(&po, 0, sizeof po);
    po.struct_size = sizeof po;
    po.allocator = &fr->alloc;
    if (opts) {
        po.flags = opts->plan_flags;
        po.limits = opts->limits;
    }
    fr->hdr.size += fr->origin; /* a file offset, as block offsets are */
    fr->plan_opts = po;
    if (opts && opts->struct_size > OPTIONS_V1_SIZE && opts->reader_schema) {
        fr->reader_schema = opts->reader_schema;
        st = avk_plan_new_resolving(avk_schema_root(fr->hdr.schema),
                                    avk_schema_root(opts->reader_schema), &po, &fr->plan, err);
        if (st == AVK_ERR_RESOLUTION)
            avki_error_prefix(err, "the file's schema cannot be read as the reader schema: ");
        return st != AVK_OK ? st : reader_ready(fr);
    }
    AVK_TRY(avk_plan_new(avk_schema_root(fr->hdr.schema), &po, &fr->plan, err));
    return reader_ready(fr);
}

/* What the reader keeps from its plan. nodes[0] is the writer's root in a
 * resolving plan too: blocks hold the file's records. */
static avk_status reader_ready(avk_file_reader *fr)
{
    fr->min_record = fr->plan->nodes[0].min_size;
    fr->max_empty = fr->plan->limits.max_empty_items;
    fr->blk_offset = cur_offset(fr);
    return AVK_OK;
}

static avk_status open_finish(avk_file_reader *fr, const avk_file_reader_options *opts,
                              avk_file_reader **out, avk_error *err)
{
    avk_status st = reader_start(fr, opts, err);
    if (st != AVK_OK) {
        avk_file_reader_free(fr);
        return st;
    }
    *out = fr;
    return AVK_OK;
}

avk_status avk_file_reader_open_memory(const void *data, size_t len,
                                       const avk_file_reader_options *opts,
                                       avk_file_reader **out, avk_error *err)
{
    avk_file_reader *fr;
    if (!out || (!data && len))
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_file_reader_open_memory: NULL %s", out ? "data" : "out");
    AVK_TRY(reader_alloc(opts, out, err));
    fr = *out;
    *out = NULL;
    fr->mem = data;
    fr->mem_len = len;
    avk_reader_init_memory(&fr->in, data, len);
    return open_finish(fr, opts, out, err);
}

/* Everything is read through a buffer unless AVK_FILE_MAP maps a regular
 * file whole (the reader then works as on memory). read(2) into one
 * reused buffer is the default because each page first touched in a
 * mapping costs a fault: measured on a 12 MB file, 160 ns per record mapped,
 * 121 read, 113 from memory already in place. */
static avk_status attach_fd(avk_file_reader *fr, int fd, const char *name, avk_error *err)
{
    struct stat stt;
    avk_reader_options ro;
    int regular = fstat(fd, &stt) == 0 && S_ISREG(stt.st_mode);
    if (regular && (fr->flags & AVK_FILE_MAP)) {
        off_t at = lseek(fd, 0, SEEK_CUR);
        size_t len = (size_t)stt.st_size;
        /* A 32-bit process cannot map a file past 4 GiB (nor hold its length). */
        if ((uint64_t)stt.st_size > SIZE_MAX)
            return avki_error_errno(err, EFBIG, "cannot map the file into memory");
        if (at < 0)
            at = 0;
        if ((uint64_t)at > (uint64_t)len)
            at = (off_t)len;
        if (len > 0) {
            void *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
            if (m == MAP_FAILED)
                return avki_error_errno(err, errno, "cannot map the file into memory");
            (void)madvise(m, len, MADV_SEQUENTIAL);
            fr->map = m;
            fr->map_len = len;
        }
        fr->mem = fr->map;
        fr->mem_len = len;
        avk_reader_init_memory(&fr->in, fr->mem ? fr->mem : (const void *)"", len);
        fr->in.pos += at;
        return AVK_OK;
    }
    memset(&ro, 0, sizeof ro);
    ro.struct_size = sizeof ro;
    ro.buffer_size = fr->buffer_size;
    /* No larger than a regular file (a small file read whole in one call
     * need not cost a 256 KiB buffer). A file that grows later is only
     * read in more calls. */
    if (regular && stt.st_size >= 0 && (uint64_t)stt.st_size < ro.buffer_size &&
        ro.buffer_size > 4096)
        ro.buffer_size = stt.st_size < 4096 ? 4096 : (size_t)stt.st_size;
    ro.allocator = &fr->alloc;
    ro.name = name; /* read errors name the file (copied by the reader) */
    fr->streaming = 1;
    {
        off_t at = lseek(fd, 0, SEEK_CUR); /* offsets count from the file's start */
        fr->origin = at > 0 ? (uint64_t)at : 0;
        /* A regular file can seek, and a block's size is checked against
         * its length before anything is read or allocated. */
        fr->seekable = regular && at >= 0;
        fr->file_len = regular ? (uint64_t)stt.st_size : 0;
    }
    return avk_reader_init_fd(&fr->in, fd, &ro, err);
}

avk_status avk_file_reader_open_fd(int fd, const avk_file_reader_options *opts,
                                   avk_file_reader **out, avk_error *err)
{
    avk_file_reader *fr;
    avk_status st;
    if (!out || fd < 0)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_file_reader_open_fd: %s", out ? "negative fd" : "NULL out");
    AVK_TRY(reader_alloc(opts, out, err));
    fr = *out;
    *out = NULL;
    st = attach_fd(fr, fd, NULL, err);
    if (st != AVK_OK) {
        avk_file_reader_free(fr);
        return st;
    }
    return open_finish(fr, opts, out, err);
}

/* "-" is standard input, which the reader reads but never closes. A path
 * the reader opened is closed by free, or at once when mapped (a mapping
 * outlives its descriptor). */
avk_status avk_file_reader_open_path(const char *path, const avk_file_reader_options *opts,
                                     avk_file_reader **out, avk_error *err)
{
    avk_file_reader *fr;
    avk_status st;
    int fd;
    if (!out || !path)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_file_reader_open_path: NULL %s", out ? "path" : "out");
    AVK_TRY(reader_alloc(opts, out, err));
    fr = *out;
    *out = NULL;
    if (strcmp(path, "-") == 0) {
        fd = STDIN_FILENO;
    } else {
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            int e = errno;
            avk_file_reader_free(fr);
            return avki_error_errno(err, e, "cannot open %s", path);
        }
        fr->own_fd = fd;
    }
    st = attach_fd(fr, fd, strcmp(path, "-") == 0 ? "standard input" : path, err);
    if (st == AVK_OK && fr->own_fd >= 0 && !fr->streaming) {
        close(fr->own_fd); /* the mapping stays valid */
        fr->own_fd = -1;
    }
    if (st != AVK_OK) {
        avk_file_reader_free(fr);
        return st;
    }
    return open_finish(fr, opts, out, err);
}

void avk_file_reader_free(avk_file_reader *fr)
{
    avk_allocator a;
    if (!fr)
        return;
    a = fr->alloc;
    avki_prefetch_free(fr->pf); /* joins the workers before their blocks go */
    avk_plan_free(fr->plan);
    avk_plan_free(fr->relaxed);
    avki_file_header_destroy(&fr->hdr);
    avk_reader_destroy(&fr->in);
    avki_block_slot_destroy(&fr->one);
    if (fr->map)
        munmap(fr->map, fr->map_len);
    if (fr->own_fd >= 0)
        close(fr->own_fd);
    a.free(a.ctx, fr, sizeof *fr);
}

/* ---- accessors ------------------------------------------------------------ */

const avk_schema *avk_file_reader_schema(const avk_file_reader *fr) { return fr->hdr.schema; }
const avk_plan *avk_file_reader_plan(const avk_file_reader *fr) { return fr->plan; }
const uint8_t *avk_file_reader_sync(const avk_file_reader *fr) { return fr->hdr.sync; }
uint64_t avk_file_reader_header_size(const avk_file_reader *fr) { return fr->hdr.size; }
size_t avk_file_reader_meta_count(const avk_file_reader *fr) { return fr->hdr.meta_count; }

avk_codec avk_file_reader_codec(const avk_file_reader *fr, int *nonstandard)
{
    if (nonstandard)
        *nonstandard = fr->hdr.codec_nonstandard;
    return fr->hdr.codec;
}

int avk_file_reader_meta_at(const avk_file_reader *fr, size_t i, const char **key,
                            const uint8_t **value, size_t *len)
{
    if (i >= fr->hdr.meta_count)
        return 0;
    if (key)
        *key = fr->hdr.meta[i].key;
    if (value)
        *value = fr->hdr.meta[i].value;
    if (len)
        *len = fr->hdr.meta[i].len;
    return 1;
}

const uint8_t *avk_file_reader_meta(const avk_file_reader *fr, const char *key, size_t *len)
{
    const avki_file_meta *m = key ? avki_file_header_find(&fr->hdr, key) : NULL;
    if (!m)
        return NULL;
    if (len)
        *len = m->len;
    return m->value;
}

void avk_file_reader_get_stats(const avk_file_reader *fr, avk_file_reader_stats *out)
{
    *out = fr->stats;
}

uint64_t avk_file_reader_block_offset(const avk_file_reader *fr)
{
    const avki_block_slot *ahead = fr->pf ? avki_prefetch_head(fr->pf) : NULL;
    if (fr->remaining > 0)
        return fr->blk_offset;
    /* The input has moved past blocks read ahead: the first of them is next. */
    return ahead ? ahead->blk.offset : cur_offset(fr);
}

/* ---- blocks -------------------------------------------------------------- */

static avk_status read_varint(avk_file_reader *fr, const avki_block_slot *s, int64_t *v,
                              const char *what, avk_error *err)
{
    avk_status st = avk_reader_read_long(&fr->in, v, err);
    if (st == AVK_ERR_TRUNCATED)
        return slot_error(s, err, st, "the file ends inside the block's %s", what);
    if (st == AVK_ERR_MALFORMED)
        return slot_error(s, err, st, "the block's %s is not a valid varint", what);
    return st;
}

/* Stream input: the stored bytes grow as they arrive, so a size that lies
 * costs no more memory than the bytes really there. Each slot has its own
 * buffer, as blocks read ahead wait there for their turn. */
static avk_status read_stored_stream(avk_file_reader *fr, avki_block_slot *s, size_t size,
                                     avk_error *err)
{
    avk_buffer *b = &s->stored;
    size_t got = 0;
    b->len = 0;
    while (got < size) {
        size_t want = size - got, cap;
        avk_status st;
        if (b->cap - got < want) {
            size_t ncap = b->cap ? b->cap * 2 : ((size_t)64 << 10);
            uint8_t *nb;
            if (ncap > size)
                ncap = size;
            if (ncap < b->cap)
                ncap = b->cap;
            nb = b->data ? fr->alloc.realloc(fr->alloc.ctx, b->data, b->cap, ncap)
                         : fr->alloc.alloc(fr->alloc.ctx, ncap);
            if (!nb)
                return slot_error(s, err, AVK_ERR_NO_MEMORY, "out of memory for %zu bytes",
                                  ncap);
            b->data = nb;
            b->cap = ncap;
        }
        cap = b->cap - got;
        if (want > cap)
            want = cap;
        st = avk_reader_read_raw(&fr->in, b->data + got, want, err);
        if (st == AVK_ERR_TRUNCATED)
            return slot_error(s, err, st, "the file ends inside the block's %zu bytes of data",
                              size);
        if (st != AVK_OK)
            return st;
        got += want;
        b->len = got;
    }
    return AVK_OK;
}

/* Reads count, size, data and sync of the block at the input's position
 * (index given) into s->blk. Sets s->end at the clean end of the input. A
 * file that ends inside the sync marker, after complete data, gets its
 * records first: the error waits in s->pending. Statuses: TRUNCATED,
 * MALFORMED, LIMIT, SYNC, IO, NO_MEMORY. */
static avk_status read_block(avk_file_reader *fr, avki_block_slot *s, uint64_t index,
                             avk_error *err)
{
    int64_t count, size;
    uint8_t sync[AVK_FILE_SYNC_SIZE];
    int at_end;
    avk_status st;
    s->blk.offset = cur_offset(fr);
    s->blk.index = index;
    AVK_TRY(avk_reader_at_end(&fr->in, &at_end, err));
    if (at_end) {
        s->end = 1;
        return AVK_OK;
    }
    /* Count and size are checked before anything is allocated or read for
     * the data: not negative, within max_block_bytes, and within what
     * remains of the input when that is known (memory, regular files). */
    AVK_TRY(read_varint(fr, s, &count, "record count", err));
    if (count < 0)
        return slot_error(s, err, AVK_ERR_MALFORMED, "negative record count %lld",
                          (long long)count);
    AVK_TRY(read_varint(fr, s, &size, "byte size", err));
    if (size < 0)
        return slot_error(s, err, AVK_ERR_MALFORMED, "negative byte size %lld",
                          (long long)size);
    if ((uint64_t)size > fr->max_block_bytes)
        return slot_error(s, err, AVK_ERR_LIMIT,
                          "its size of %lld bytes exceeds the limit of %llu (max_block_bytes)",
                          (long long)size, (unsigned long long)fr->max_block_bytes);
    s->blk.count = count;
    s->blk.size = (size_t)size;
    /* Memory input (the caller's bytes or a mapping): the block's data is
     * viewed in place, no copy. */
    if (!fr->streaming) {
        size_t left = (size_t)(fr->in.end - fr->in.pos);
        if ((uint64_t)size > left)
            return slot_error(s, err, AVK_ERR_TRUNCATED,
                              "its size says %lld bytes but only %zu remain in the file",
                              (long long)size, left);
        s->blk.data = fr->in.pos;
        fr->in.pos += size;
    } else {
        if (fr->seekable) {
            uint64_t at = cur_offset(fr);
            uint64_t left = fr->file_len > at ? fr->file_len - at : 0;
            if ((uint64_t)size > left)
                return slot_error(s, err, AVK_ERR_TRUNCATED,
                                  "its size says %lld bytes but only %llu remain in the file",
                                  (long long)size, (unsigned long long)left);
        }
        AVK_TRY(read_stored_stream(fr, s, (size_t)size, err));
        s->blk.data = s->stored.data;
    }
    st = avk_reader_read_raw(&fr->in, sync, sizeof sync, err);
    /* A marker cut short ends the file: its bytes are not the start of
     * another block (a stream has consumed them already). */
    if (st == AVK_ERR_TRUNCATED && !fr->streaming)
        fr->in.pos = fr->in.end;
    s->blk.end = cur_offset(fr);
    if (st == AVK_ERR_TRUNCATED) {
        s->pending = slot_error(s, &s->pending_err, AVK_ERR_TRUNCATED,
                                "the file ends before the block's sync marker (the block's "
                                "%lld records were read)",
                                (long long)count);
        return AVK_OK;
    }
    if (st != AVK_OK)
        return st;
    if (memcmp(sync, fr->hdr.sync, sizeof sync) != 0)
        return slot_error(s, err, AVK_ERR_SYNC,
                          "the sync marker after its data (at byte %llu) does not match the "
                          "header's",
                          (unsigned long long)(s->blk.end - AVK_FILE_SYNC_SIZE));
    return AVK_OK;
}

/* Reads the next block into s, keeping the outcome there. */
static void read_slot(avk_file_reader *fr, avki_block_slot *s, uint64_t index)
{
    s->end = 0;
    s->pending = AVK_OK;
    s->decompressed = 0;
    s->worked = 0;
    memset(&s->read_err, 0, sizeof s->read_err);
    s->read_st = read_block(fr, s, index, &s->read_err);
}

/* Whether workers decode or work on blocks, not only decompress them. */
static int workers_decode(const avk_file_reader *fr)
{
    return fr->work || (fr->flags & AVK_FILE_DECODE_AHEAD);
}

/* The plan without size limits, made once (see limit_or_damage): before
 * any worker starts when workers decode, since they share it. If it
 * cannot be made, a limit is reported as it is. */
void avki_file_relaxed_ready(avk_file_reader *fr)
{
    avk_plan_options po;
    /* Tried once: workers may be reading fr->relaxed by the next call. */
    if (fr->relaxed || fr->relaxed_tried)
        return;
    fr->relaxed_tried = 1;
    po = fr->plan_opts;
    po.limits = fr->plan->limits;
    po.limits.max_bytes = UINT64_MAX;
    po.limits.max_items = UINT64_MAX;
    if (fr->reader_schema)
        avk_plan_new_resolving(avk_schema_root(fr->hdr.schema), avk_schema_root(fr->reader_schema),
                               &po, &fr->relaxed, NULL);
    else
        avk_plan_new(avk_schema_root(fr->hdr.schema), &po, &fr->relaxed, NULL);
}

/* Read-ahead pays only when there is work to hand over: decompressing, or
 * decoding when asked. A ring that cannot be allocated means reading as
 * without threads. */
static int prefetch_ready(avk_file_reader *fr)
{
    if (fr->pf)
        return 1;
    if (fr->threads < 2 || (fr->hdr.codec == AVK_CODEC_NULL && !workers_decode(fr)))
        return 0;
    if (workers_decode(fr))
        avki_file_relaxed_ready(fr);
    if (avki_prefetch_new(&fr->alloc, avki_file_process_slot, fr, fr->ring, fr->threads - 1,
                          &fr->pf) != AVK_OK) {
        fr->threads = 0;
        return 0;
    }
    return 1;
}

/* Reads blocks ahead into the free slots and queues them for the workers.
 * With nothing queued (at the start, after a seek, or once the queue ran
 * dry) read-ahead starts again at the next block to read. It stops after
 * a block that failed to read, was cut, or ended the input (ra_stop):
 * reading further would move the input past where reading block by block
 * stops, and skipping damage must start from there. */
static void read_ahead(avk_file_reader *fr)
{
    avki_block_slot *s;
    if (avki_prefetch_queued(fr->pf) == 0) {
        fr->ra_stop = 0;
        fr->ra_index = fr->next_index;
    }
    while (!fr->ra_stop && (s = avki_prefetch_slot_to_fill(fr->pf)) != NULL) {
        int whole;
        read_slot(fr, s, fr->ra_index++);
        whole = s->read_st == AVK_OK && !s->end;
        fr->ra_stop = !whole || s->pending != AVK_OK;
        avki_prefetch_push(fr->pf, whole);
    }
}

/* Moves to the next block: the first one read ahead, or one read now
 * (records: for next/skip, which read ahead; otherwise for next_block,
 * which only uses up what was read ahead). Sets *end at the clean end.
 * The block's place becomes the current one whatever happens; statuses
 * and err those of read_block. */
avk_status avki_file_take_block(avk_file_reader *fr, int records, int *end, avk_error *err)
{
    avki_block_slot *s = NULL;
    *end = 0;
    /* Blocks already read ahead are always used first, in order; more are
     * read ahead only for records (next_block hands blocks out as stored,
     * so decompressing them ahead would be wasted). Otherwise the block is
     * read now into the one slot of its own. */
    if (fr->pf && (avki_prefetch_queued(fr->pf) > 0 || records)) {
        avki_prefetch_release(fr->pf); /* the last block's slot may be refilled */
        if (records)
            read_ahead(fr);
        s = avki_prefetch_take(fr->pf, records);
    } else if (records && prefetch_ready(fr)) {
        read_ahead(fr);
        s = avki_prefetch_take(fr->pf, records);
    }
    if (!s) {
        s = &fr->one;
        read_slot(fr, s, fr->next_index);
    }
    fr->slot = s;
    fr->blk_offset = s->blk.offset;
    fr->blk_index = s->blk.index;
    if (s->read_st != AVK_OK) {
        if (err)
            *err = s->read_err;
        return s->read_st;
    }
    if (s->end) {
        *end = 1;
        return AVK_OK;
    }
    fr->cur = s->blk;
    fr->next_index = s->blk.index + 1;
    if (s->pending != AVK_OK) {
        fr->pending = s->pending;
        fr->pending_err = s->pending_err;
    }
    return AVK_OK;
}

/* Whether fr->cur's count can be right for len bytes of decompressed data:
 * at least min_record bytes a record; records of zero bytes each are
 * limited by max_empty_items instead. Checked before the first record, so
 * a block whose count lies is refused whole rather than after some of its
 * records were handed out as good; and records of zero bytes, which the
 * data cannot bound, cannot be claimed by the billion. */
static avk_status count_fits(const avk_file_reader *fr, const avk_file_block *b, size_t len,
                             avk_error *err)
{
    uint64_t count = (uint64_t)b->count;
    if (fr->min_record == 0) {
        if (count <= fr->max_empty)
            return AVK_OK;
        return error_at(b->offset, b->index, err, AVK_ERR_LIMIT,
                        "a count of %lld records of zero bytes each exceeds the limit of "
                        "%llu (max_empty_items)",
                        (long long)b->count, (unsigned long long)fr->max_empty);
    }
    if (count <= len / fr->min_record)
        return AVK_OK;
    return error_at(b->offset, b->index, err, AVK_ERR_MALFORMED,
                    "a count of %lld records cannot be right for %zu bytes of data",
                    (long long)b->count, len);
}

/* The codec is bounded by max_block_data (so a bomb stops at the limit);
 * null-codec data is checked against the same limit, so the limit means
 * the same whatever the codec. A count that cannot fit in the data is
 * caught before any record; an empty block has nothing to decode, so its
 * leftover bytes are caught here. */
avk_status avki_file_block_check(const avk_file_reader *fr, const avk_file_block *b, size_t len,
                                 avk_error *err)
{
    if (fr->hdr.codec == AVK_CODEC_NULL && len > fr->max_block_data)
        return error_at(b->offset, b->index, err, AVK_ERR_LIMIT,
                        "%zu bytes of data exceed the limit of %llu (max_block_data)", len,
                        (unsigned long long)fr->max_block_data);
    AVK_TRY(count_fits(fr, b, len, err));
    if (b->count == 0 && len > 0)
        return error_at(b->offset, b->index, err, AVK_ERR_MALFORMED,
                        "%zu bytes are left over in a block of 0 records (the count may "
                        "be wrong)",
                        len);
    return AVK_OK;
}

/* Decompresses fr->cur (unless a worker did) and points fr->blk at its
 * records; with the block decoded ahead, next takes them from its slot. */
avk_status avki_file_open_block(avk_file_reader *fr, avk_error *err)
{
    const uint8_t *data = fr->cur.data;
    size_t len = fr->cur.size;
    avki_block_slot *s = fr->slot;
    if (fr->hdr.codec != AVK_CODEC_NULL) {
        if (!s->decompressed)
            avki_block_slot_decompress(s, fr->hdr.codec, (size_t)fr->max_block_data);
        if (s->st != AVK_OK) {
            if (err)
                *err = s->err;
            return wrap_error(fr, err, s->st, avk_codec_name(fr->hdr.codec));
        }
        data = s->data.data;
        len = s->data.len;
    }
    AVK_TRY(avki_file_block_check(fr, &fr->cur, len, err));
    avk_reader_init_memory(&fr->blk, data ? data : (const uint8_t *)"", len);
    fr->remaining = fr->cur.count;
    fr->record = 0;
    fr->ahead = s->worked && !fr->work;
    fr->stats.blocks++;
    fr->stats.bytes_stored += fr->cur.size;
    fr->stats.bytes_data += len;
    return AVK_OK;
}

/* The count check of open_block for a block handed out undecoded
 * (next_block), so that counting never believes what reading refuses: the
 * data as stored is what a null-codec block decodes; compressed data may
 * hold at most max_block_data bytes once decompressed (more is refused when
 * decompressing). Records of zero bytes count against max_empty_items, as
 * when decoding. */
static avk_status count_plausible(const avk_file_reader *fr, avk_error *err)
{
    uint64_t count = (uint64_t)fr->cur.count;
    if (fr->min_record == 0 || fr->hdr.codec == AVK_CODEC_NULL)
        return count_fits(fr, &fr->cur, fr->cur.size, err);
    /* Either the count lies or the data is over the limit: decoding would
     * fail on either, but which of them is unknown until decompressing. */
    if (count <= fr->max_block_data / fr->min_record)
        return AVK_OK;
    return block_error(fr, err, AVK_ERR_LIMIT,
                       "a count of %lld records of at least %llu bytes each exceeds the %llu "
                       "bytes a block may hold decompressed (max_block_data)",
                       (long long)fr->cur.count, (unsigned long long)fr->min_record,
                       (unsigned long long)fr->max_block_data);
}

/* ---- damage -------------------------------------------------------------- */

/* What a damaged block can cause. Everything else (LIMIT, NO_MEMORY, IO,
 * a RESOLUTION failure of a record) is not the block's fault, and skipping
 * blocks would hide it. */
static int is_damage(avk_status st)
{
    switch (st) {
    case AVK_ERR_TRUNCATED:
    case AVK_ERR_MALFORMED:
    case AVK_ERR_SYNC:
    case AVK_ERR_CODEC:
    case AVK_ERR_CHECKSUM:
        return 1;
    default:
        return 0;
    }
}

/* Finds the next sync marker at or after from (memory input), or in the
 * stream from where it stands. Leaves the input just past it, or at the end.
 * A stream is searched a buffer at a time; the last 15 bytes of each stay
 * for the next round, so a marker cut by the buffer's end is still found.
 * Data can hold the marker's bytes by chance (1 in 2^128 per position for
 * a random marker): the block found then fails its own checks and the
 * search goes on from there. */
static avk_status scan_sync(avk_file_reader *fr, uint64_t from, avk_error *err)
{
    if (!fr->streaming) {
        uint64_t start = from - fr->origin;
        const uint8_t *p, *hit;
        size_t left;
        if (start > fr->mem_len)
            start = fr->mem_len;
        p = fr->mem + start;
        left = fr->mem_len - (size_t)start;
        hit = left >= AVK_FILE_SYNC_SIZE ? memmem(p, left, fr->hdr.sync, AVK_FILE_SYNC_SIZE)
                                         : NULL;
        fr->in.pos = hit ? hit + AVK_FILE_SYNC_SIZE : fr->mem + fr->mem_len;
        return AVK_OK;
    }
    for (;;) {
        const uint8_t *hit;
        size_t have;
        avk_status st = avk_reader_fill(&fr->in, AVK_FILE_SYNC_SIZE, err);
        if (st == AVK_ERR_TRUNCATED) { /* no marker before the end */
            fr->in.pos = fr->in.end;
            return AVK_OK;
        }
        if (st != AVK_OK)
            return st;
        have = (size_t)(fr->in.end - fr->in.pos);
        hit = memmem(fr->in.pos, have, fr->hdr.sync, AVK_FILE_SYNC_SIZE);
        if (hit) {
            fr->in.pos = hit + AVK_FILE_SYNC_SIZE;
            return AVK_OK;
        }
        fr->in.pos = fr->in.end - (AVK_FILE_SYNC_SIZE - 1); /* a marker may straddle */
    }
}

/* Moves past the current block to the next one; *to is where that starts.
 * rescan says the block's own sync was not trusted, so the next marker is
 * searched from just after the block's start (read-ahead stopped at such
 * a block, so the input is where it failed); otherwise the next block
 * starts after its marker (and may be read ahead already). */
static avk_status move_past_block(avk_file_reader *fr, int rescan, uint64_t *to, avk_error *err)
{
    uint64_t from = fr->blk_offset;
    if (rescan)
    {
        /* A pipe cannot go back: it scans on from where it stands. */
        if (fr->seekable)
            AVK_TRY(avki_reader_seek_fd(&fr->in, fr->origin, from + 1, err));
        AVK_TRY(scan_sync(fr, fr->streaming ? cur_offset(fr) : from + 1, err));
    }
    *to = rescan ? cur_offset(fr) : fr->cur.end;
    fr->remaining = 0;
    fr->pending = AVK_OK;
    fr->next_index = fr->blk_index + 1;
    return AVK_OK;
}

/* In AVK_FILE_SKIP_BAD_BLOCKS mode: counts and reports a damaged block,
 * and moves past it. */
static avk_status skip_damage(avk_file_reader *fr, const avk_error *why, int rescan,
                              avk_error *err)
{
    uint64_t from = fr->blk_offset, to;
    avk_error local;
    AVK_TRY(move_past_block(fr, rescan, &to, err));
    fr->stats.bad_blocks++;
    fr->stats.bad_bytes += to - from;
    if (fr->on_skip) {
        if (!why) {
            memset(&local, 0, sizeof local);
            why = &local;
        }
        fr->on_skip(fr->on_skip_ctx, why, from, to);
    }
    return AVK_OK;
}

/* Remembers a final error: every later call returns it again. */
static avk_status fail(avk_file_reader *fr, avk_status st, const avk_error *e, avk_error *err)
{
    fr->sticky = st;
    if (e)
        fr->sticky_err = *e;
    else
        avki_error_set(&fr->sticky_err, st, AVK_OFFSET_UNKNOWN, "%s", avk_status_name(st));
    if (err && e != err)
        *err = fr->sticky_err;
    return st;
}

/* After a block or record failed: in skip mode damage is skipped (AVK_OK:
 * go on), and a limit is returned after moving past the block, since the
 * block may be valid data that a larger limit reads: the caller must hear
 * of it, and may call again to go on. Anything else is final. */
static avk_status after_failure(avk_file_reader *fr, avk_status st, const avk_error *e,
                                int rescan, avk_error *err)
{
    uint64_t to;
    if (fr->flags & AVK_FILE_SKIP_BAD_BLOCKS) {
        if (is_damage(st))
            return skip_damage(fr, e, rescan, err);
        if (st == AVK_ERR_LIMIT) {
            AVK_TRY(move_past_block(fr, rescan, &to, err));
            if (err && e != err)
                *err = *e;
            return st;
        }
    }
    return fail(fr, st, e, err);
}

avk_status avki_file_after_failure(avk_file_reader *fr, avk_status st, const avk_error *e,
                                   int rescan, avk_error *err)
{
    return after_failure(fr, st, e, rescan, err);
}

avk_status avki_file_fail(avk_file_reader *fr, avk_status st, const avk_error *e, avk_error *err)
{
    return fail(fr, st, e, err);
}

/* An error found after the last block's records (bytes left over, a cut
 * marker) is reported once they are out: skipped, or final. */
avk_status avki_file_take_pending(avk_file_reader *fr, int *skipped, avk_error *err)
{
    avk_status p = fr->pending;
    *skipped = 0;
    if (p == AVK_OK)
        return AVK_OK;
    fr->pending = AVK_OK;
    if (fr->flags & AVK_FILE_SKIP_BAD_BLOCKS) {
        AVK_TRY(skip_damage(fr, &fr->pending_err, 0, err));
        *skipped = 1;
        return AVK_OK;
    }
    return fail(fr, p, &fr->pending_err, err);
}

unsigned avk_file_reader_slots(const avk_file_reader *fr)
{
    return fr->ring + 1;
}

/* Makes a block with records ready (fr->remaining > 0), or sets *end.
 * stage_read tells after_failure what went wrong: a block that could not
 * be read (bad count, size or marker) is rescanned for the next marker; a
 * block whose codec or count check failed after its marker matched is left
 * from just past that marker. */
static avk_status next_block_with_records(avk_file_reader *fr, int *end, avk_error *err)
{
    avk_error e;
    while (fr->remaining == 0) {
        avk_status st;
        int stage_read;
        if (fr->pending != AVK_OK) {
            int skipped;
            AVK_TRY(avki_file_take_pending(fr, &skipped, err));
            continue;
        }
        memset(&e, 0, sizeof e);
        st = avki_file_take_block(fr, 1, end, &e);
        stage_read = 1;
        if (st == AVK_OK && *end)
            return AVK_OK;
        if (st == AVK_OK) {
            stage_read = 0;
            st = avki_file_open_block(fr, &e);
        }
        if (st == AVK_OK)
            continue; /* a block of 0 records loops */
        AVK_TRY(after_failure(fr, st, &e, stage_read, err));
    }
    return AVK_OK;
}

/* A record over max_bytes or max_items may be the data lying (see
 * avki_file_limit_or_damage). The relaxed plan is made on the first limit
 * and kept: a file whose records meet a limit often meets it again. */
static avk_status limit_or_damage(avk_file_reader *fr, const uint8_t *start, avk_arena *arena,
                                  avk_error *e)
{
    avki_file_relaxed_ready(fr);
    return avki_file_limit_or_damage(fr->relaxed, fr->blk.base, start, fr->blk.end, arena, e);
}

/* One record (out != NULL) or one record skipped (out == NULL: the
 * writer's plain plan, so nothing is decoded into values). start is kept
 * so that a record that meets a size limit can be read again from its
 * first byte (limit_or_damage). */
static avk_status next_record(avk_file_reader *fr, avk_arena *arena, avk_value *out, int *more,
                              avk_error *err)
{
    avk_error e;
    if (!fr || !more || (out && !arena))
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_file_reader_next: NULL argument");
    *more = 0;
    if (fr->sticky != AVK_OK) {
        if (err)
            *err = fr->sticky_err;
        return fr->sticky;
    }
    for (;;) {
        int end = 0;
        avk_status st;
        const uint8_t *start;
        if (AVK_UNLIKELY(fr->remaining == 0)) {
            AVK_TRY(next_block_with_records(fr, &end, err));
            if (end)
                return AVK_OK;
        }
        if (AVK_UNLIKELY(fr->ahead)) {
            st = avki_file_next_ahead(fr, arena, out, &e);
            if (st == AVK_OK) {
                fr->record++;
                fr->stats.records++;
                fr->remaining--;
                *more = 1;
                return AVK_OK;
            }
            if (st == AVK_ERR_NO_MEMORY || st == AVK_ERR_IO)
                return fail(fr, st, &e, err);
            AVK_TRY(after_failure(fr, st, &e, 0, err)); /* already placed */
            continue;
        }
        start = fr->blk.pos;
        st = out ? avk_plan_decode(fr->plan, &fr->blk, arena, out, &e)
                 : avk_plan_skip(fr->plan, &fr->blk, &e);
        if (AVK_LIKELY(st == AVK_OK)) {
            fr->record++;
            fr->stats.records++;
            if (--fr->remaining == 0 && AVK_UNLIKELY(fr->blk.pos != fr->blk.end))
                fr->pending = avki_file_leftover_error(fr->blk_offset, fr->blk_index,
                                                       (size_t)(fr->blk.end - fr->blk.pos),
                                                       fr->cur.count, &fr->pending_err);
            *more = 1;
            return AVK_OK;
        }
        /* Not about the data: skipping blocks would not help. */
        if (st == AVK_ERR_NO_MEMORY || st == AVK_ERR_IO)
            return fail(fr, st, &e, err);
        if (st == AVK_ERR_LIMIT)
            st = limit_or_damage(fr, start, out ? arena : NULL, &e);
        st = avki_file_record_failed(st, &e, fr->record, fr->cur.count, fr->blk_offset,
                                     fr->blk_index);
        AVK_TRY(after_failure(fr, st, &e, 0, err));
    }
}

avk_status avk_file_reader_next(avk_file_reader *fr, avk_arena *arena, avk_value *out,
                                int *more, avk_error *err)
{
    if (!out)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_file_reader_next: NULL out");
    return next_record(fr, arena, out, more, err);
}

avk_status avk_file_reader_skip(avk_file_reader *fr, int *more, avk_error *err)
{
    return next_record(fr, NULL, NULL, more, err);
}

/* Blocks handed out as stored, for copying them whole (concat, recodec) or
 * decoding them elsewhere. Their records are not decoded here, so the
 * count is checked against what decoding would accept (count_plausible):
 * a block this call hands out is one next would not refuse for its count. */
avk_status avk_file_reader_next_block(avk_file_reader *fr, avk_file_block *block, int *more,
                                      avk_error *err)
{
    avk_error e;
    if (!fr || !block || !more)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_file_reader_next_block: NULL argument");
    *more = 0;
    if (fr->sticky != AVK_OK) {
        if (err)
            *err = fr->sticky_err;
        return fr->sticky;
    }
    fr->remaining = 0; /* the rest of a block partly read is dropped */
    for (;;) {
        int end = 0;
        avk_status st;
        if (fr->pending != AVK_OK) {
            int skipped;
            AVK_TRY(avki_file_take_pending(fr, &skipped, err));
            continue;
        }
        memset(&e, 0, sizeof e);
        st = avki_file_take_block(fr, 0, &end, &e);
        if (st == AVK_OK && !end && count_plausible(fr, &e) != AVK_OK) {
            st = e.status;
            if ((fr->flags & AVK_FILE_SKIP_BAD_BLOCKS) && is_damage(st)) {
                /* Its marker matched: the next block starts after it. */
                AVK_TRY(skip_damage(fr, &e, 0, err));
                continue;
            }
            return fail(fr, st, &e, err);
        }
        if (st == AVK_OK) {
            if (end)
                return AVK_OK;
            fr->stats.blocks++;
            fr->stats.bytes_stored += fr->cur.size;
            *block = fr->cur;
            *more = 1;
            return AVK_OK;
        }
        AVK_TRY(after_failure(fr, st, &e, 1, err));
    }
}

/* Reads nothing of the reader but its codec and limit, and writes only to
 * out: callers may decompress blocks that next_block handed out on many
 * threads at once, each with its own buffer. No codec state is kept, since
 * none could be shared between those threads. */
avk_status avk_file_block_decompress(const avk_file_reader *fr, const avk_file_block *block,
                                     avk_buffer *out, avk_error *err)
{
    avk_status st;
    if (!fr || !block || !out)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_file_block_decompress: NULL argument");
    st = avk_codec_decompress(fr->hdr.codec, block->data, block->size, (size_t)fr->max_block_data,
                              out, err);
    if (st != AVK_OK && err) {
        avki_error_prefix(err, "block %llu at byte %llu: %s: ", (unsigned long long)block->index,
                          (unsigned long long)block->offset, avk_codec_name(fr->hdr.codec));
        err->offset = block->offset;
        err->block = (int64_t)block->index;
    }
    return st;
}

/* ---- seeking ------------------------------------------------------------- */

static avk_status seek_check(avk_file_reader *fr, const char *fn, avk_error *err)
{
    if (!fr)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "%s: NULL reader", fn);
    if (fr->streaming && !fr->seekable)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "%s: this input cannot seek (a pipe or terminal)", fn);
    fr->remaining = 0;
    fr->pending = AVK_OK;
    fr->sticky = AVK_OK;
    fr->next_index = 0;
    if (fr->pf) {
        /* Blocks read ahead are dropped and the input goes back to the
         * first of them, where it would stand without read-ahead (a seek
         * refused below then leaves the reader as it would without). */
        const avki_block_slot *ahead = avki_prefetch_head(fr->pf);
        uint64_t back = ahead ? ahead->blk.offset : 0;
        avki_prefetch_reset(fr->pf);
        if (ahead) {
            if (fr->streaming)
                return avki_reader_seek_fd(&fr->in, fr->origin, back, err);
            fr->in.pos = fr->mem + (back - fr->origin);
        }
    }
    return AVK_OK;
}

avk_status avk_file_reader_seek_sync(avk_file_reader *fr, uint64_t offset, avk_error *err)
{
    AVK_TRY(seek_check(fr, "avk_file_reader_seek_sync", err));
    /* The header's own marker ends the header; markers are only searched for
     * after it (the metadata may contain the marker's bytes). */
    if (offset <= fr->hdr.size - AVK_FILE_SYNC_SIZE) {
        if (fr->streaming)
            return avki_reader_seek_fd(&fr->in, fr->origin, fr->hdr.size, err);
        fr->in.pos = fr->mem + fr->hdr.size;
        return AVK_OK;
    }
    if (fr->streaming) {
        if (offset > fr->file_len)
            offset = fr->file_len;
        AVK_TRY(avki_reader_seek_fd(&fr->in, fr->origin, offset, err));
    }
    return scan_sync(fr, offset, err);
}

/* For offsets the caller kept from avk_file_reader_block_offset: only the
 * bounds are checked. An offset that is not a block's start reads as a
 * damaged block, with the errors (or, in skip mode, the resync) any damage
 * gets. */
avk_status avk_file_reader_seek_block(avk_file_reader *fr, uint64_t offset, avk_error *err)
{
    AVK_TRY(seek_check(fr, "avk_file_reader_seek_block", err));
    uint64_t len = fr->streaming ? fr->file_len : fr->origin + fr->mem_len;
    if (offset < fr->hdr.size || offset > len)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, offset,
                              "avk_file_reader_seek_block: offset %llu is outside the blocks "
                              "(%llu to %llu)",
                              (unsigned long long)offset, (unsigned long long)fr->hdr.size,
                              (unsigned long long)len);
    if (fr->streaming)
        return avki_reader_seek_fd(&fr->in, fr->origin, offset, err);
    fr->in.pos = fr->mem + offset;
    return AVK_OK;
}
