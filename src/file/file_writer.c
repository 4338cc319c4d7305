/* Container file writer: records encoded into a block buffer, compressed and written with count, size and sync marker; append to existing files. */
#define _GNU_SOURCE /* getrandom */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/alloc_internal.h"
#include "common/error.h"
#include "codec/codec_built.h"
#include "codec/codec_state.h"
#include "file/file_compress_pool.h"
#include "file/file_internal.h"
#include "io/writer_internal.h"

/*
 * Records are encoded straight into blk, a memory writer holding the block
 * being filled: record_begin hands blk out and remembers where the record
 * starts (mark), record_end keeps the record or rolls blk back to mark, so
 * a record that failed to encode leaves nothing behind. A block is cut
 * once a record takes it to block_bytes or block_records: blocks hold
 * whole records, so one may end past block_bytes. write_block compresses
 * blk into comp and write_framed sends count, size, data and the sync
 * marker to out; data of a buffer's size or more goes to the sink without
 * a copy through out's buffer (avki_writer_write_direct).
 * With threads the pool takes blk's buffer instead (a swap, no copy) and
 * hands blocks back in order through emit_block.
 * A failed write to the destination leaves the file cut at an unknown
 * place: broken is set, and every later call reports it rather than
 * append blocks after a gap.
 */

/* 64 KiB blocks: big enough for the codecs to find repeats and to keep the
 * framing (two varints and 16 bytes a block) negligible, small enough that
 * a reader holds one in cache and a damaged block loses little. */
#define DEFAULT_BLOCK_BYTES ((size_t)64 << 10)

struct avk_file_writer {
    avk_allocator alloc;     /* the caller's, or raw behind lk when threaded */
    avk_allocator raw;       /* the caller's: fw itself comes from it */
    avki_locked_alloc lk;    /* used when pool is */
    avki_compress_pool *pool; /* compression threads, or NULL */
    int threaded;            /* lk initialized (threads > 1 and a codec) */
    avk_schema *schema;
    avk_plan *plan;
    avk_codec codec;
    int level;
    size_t block_bytes;
    uint64_t block_records;
    uint8_t sync[AVK_FILE_SYNC_SIZE];
    avk_writer out;     /* the destination */
    int fd;             /* the destination's fd, or -1 for a sink (fsync) */
    int own_fd;         /* closed by close/free */
    char *path;         /* open_path's or append_path's path (fw->alloc), or NULL */
    int dir_unsynced;   /* open_path created the file: fsync its directory once */
    int dir_fd;         /* that directory, opened with the file (a later chdir
                           cannot change which), or -1 */
    int dir_errno;      /* why it could not be opened */
    uint64_t torn_tail; /* bytes append_path cut off */
    avk_writer blk;     /* the pending block's records */
    uint64_t count;     /* records in blk */
    size_t mark;        /* where the record being written in place starts */
    avk_buffer comp;    /* compressed block */
    avki_codec_state codec_state; /* kept from block to block */
    avk_status broken;  /* after a failed write, the destination is unusable */
    avk_file_writer_stats stats;
};

/* A sync marker only has to be unlikely to appear in data: getrandom, with
 * a clock-and-address mix when it is unavailable (seccomp, old kernels). */
static void random_sync(uint8_t sync[AVK_FILE_SYNC_SIZE])
{
    size_t got = 0;
    while (got < AVK_FILE_SYNC_SIZE) {
        ssize_t n = getrandom(sync + got, AVK_FILE_SYNC_SIZE - got, 0);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    if (got < AVK_FILE_SYNC_SIZE) {
        struct timespec ts;
        uint64_t x, y;
        clock_gettime(CLOCK_REALTIME, &ts);
        x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ (uint64_t)(uintptr_t)sync;
        y = x ^ ((uint64_t)getpid() << 17) ^ 0x9e3779b97f4a7c15u;
        for (int i = 0; i < 2; i++) { /* splitmix64 finalizer */
            uint64_t *v = i ? &y : &x;
            *v = (*v ^ (*v >> 30)) * 0xbf58476d1ce4e5b9u;
            *v = (*v ^ (*v >> 27)) * 0x94d049bb133111ebu;
            *v ^= *v >> 31;
        }
        memcpy(sync, &x, 8);
        memcpy(sync + 8, &y, 8);
    }
}

/* Callers built before `threads` existed pass the shorter size. */
#define OPTIONS_V1_SIZE offsetof(avk_file_writer_options, threads)
#define OPTIONS_V2_SIZE offsetof(avk_file_writer_options, flags)

static int options_size_ok(size_t size)
{
    return size == sizeof(avk_file_writer_options) || size == OPTIONS_V2_SIZE ||
           size == OPTIONS_V1_SIZE;
}

static unsigned options_threads(const avk_file_writer_options *opts)
{
    return opts && opts->struct_size > OPTIONS_V1_SIZE ? opts->threads : 0;
}

static uint64_t options_flags(const avk_file_writer_options *opts)
{
    return opts && opts->struct_size > OPTIONS_V2_SIZE ? opts->flags : 0;
}

static avk_status options_check(const avk_file_writer_options *opts, avk_error *err)
{
    if (!opts)
        return AVK_OK;
    if (!options_size_ok(opts->struct_size))
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_file_writer_options.struct_size is %zu, expected %zu",
                              opts->struct_size, sizeof *opts);
    if (options_threads(opts) > AVKI_COMPRESS_MAX_THREADS)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "%u compression threads asked for; at most %u",
                              options_threads(opts), AVKI_COMPRESS_MAX_THREADS);
    if (!avk_codec_name(opts->codec))
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "unknown codec %d", (int)opts->codec);
    AVK_TRY(avki_codec_check_built(opts->codec, err));
    return avki_file_meta_check(opts->meta, opts->meta_count, opts->allocator, err);
}

/* A level out of range is found by compressing nothing once, up front. */
static avk_status level_check(avk_file_writer *fw, avk_error *err)
{
    if (fw->level == 0 || fw->codec == AVK_CODEC_NULL)
        return AVK_OK;
    return avki_codec_compress_with(&fw->codec_state, fw->codec, fw->level, NULL, 0, &fw->comp,
                                    err);
}

static avk_status emit_block(void *ctx, uint64_t count, const uint8_t *data, size_t size,
                             avk_error *err);

/* Makes the writer around a schema given as JSON text (so the writer owns
 * its copy); the destination is attached by the caller. The caller's
 * schema may be freed once open returns, and append reads the schema from
 * the file's header text: both come here as text and are parsed into a
 * schema the writer owns, with its plan compiled once for every record. */
static avk_status writer_new(const char *schema_json, size_t schema_len,
                             const avk_file_writer_options *opts, avk_file_writer **out,
                             avk_error *err)
{
    avk_allocator a = avki_allocator_or_libc(opts ? opts->allocator : NULL);
    avk_schema_options so;
    avk_plan_options po;
    avk_writer_options wo;
    avk_file_writer *fw = a.alloc(a.ctx, sizeof *fw);
    avk_status st;
    *out = NULL;
    if (!fw)
        return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                              "out of memory for a file writer");
    memset(fw, 0, sizeof *fw);
    fw->alloc = a;
    fw->raw = a;
    fw->own_fd = -1;
    fw->fd = -1;
    fw->dir_fd = -1;
    fw->out.fd = -1;
    fw->blk.fd = -1;
    fw->block_bytes = opts && opts->block_bytes ? opts->block_bytes : DEFAULT_BLOCK_BYTES;
    fw->block_records = opts ? opts->block_records : 0;
    fw->codec = opts ? opts->codec : AVK_CODEC_NULL;
    fw->level = opts ? opts->level : 0;
    /* With threads every allocation goes through one mutex: workers and the
     * caller allocate at once, and the caller's allocator need not be
     * thread-safe. */
    if (options_threads(opts) > 1 && fw->codec != AVK_CODEC_NULL) {
        st = avki_locked_alloc_init(&fw->lk, &a, &fw->alloc, err);
        if (st != AVK_OK) {
            a.free(a.ctx, fw, sizeof *fw);
            return st;
        }
        fw->threaded = 1;
    }
    avk_buffer_init(&fw->comp, &fw->alloc);
    avki_codec_state_init(&fw->codec_state, &fw->alloc);
    memset(&so, 0, sizeof so);
    so.struct_size = sizeof so;
    so.allocator = &fw->alloc;
    st = avk_schema_parse(schema_json, schema_len, &so, &fw->schema, err);
    if (st == AVK_OK) {
        memset(&po, 0, sizeof po);
        po.struct_size = sizeof po;
        po.allocator = &fw->alloc;
        if (opts) {
            po.flags = opts->plan_flags;
            po.block_items = opts->block_items;
        }
        st = avk_plan_new(avk_schema_root(fw->schema), &po, &fw->plan, err);
    }
    if (st == AVK_OK) {
        memset(&wo, 0, sizeof wo);
        wo.struct_size = sizeof wo;
        /* The block buffer starts at a block and a margin for the record
         * that crosses block_bytes, so usual records never grow it; a
         * larger record still does (a memory writer grows). */
        wo.buffer_size = fw->block_bytes + fw->block_bytes / 8 + 64;
        wo.allocator = &fw->alloc;
        st = avk_writer_init_memory(&fw->blk, &wo, err);
        if (st == AVK_OK && fw->threaded)
            st = avki_compress_pool_new(options_threads(opts), fw->codec, fw->level,
                                        wo.buffer_size, &fw->alloc, emit_block, fw, &fw->pool,
                                        err);
    }
    if (st != AVK_OK) {
        avk_file_writer_free(fw);
        return st;
    }
    *out = fw;
    return AVK_OK;
}

/* Writes the header of a new file after the destination is attached. */
static avk_status start_new(avk_file_writer *fw, const avk_file_writer_options *opts,
                            avk_error *err)
{
    AVK_TRY(level_check(fw, err));
    if (opts && opts->sync)
        memcpy(fw->sync, opts->sync, AVK_FILE_SYNC_SIZE);
    else
        random_sync(fw->sync);
    return avki_file_header_write(&fw->out, fw->schema, fw->codec, opts ? opts->meta : NULL,
                                  opts ? opts->meta_count : 0, fw->sync, err);
}

typedef enum { DEST_FD, DEST_SINK } dest_kind;

/* The path is kept for fsync (its directory) and for messages. */
static avk_status keep_path(avk_file_writer *fw, const char *path, avk_error *err)
{
    size_t n = strlen(path) + 1;
    fw->path = (char *)fw->alloc.alloc(fw->alloc.ctx, n);
    if (!fw->path)
        return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                              "out of memory for the name of %s", path);
    memcpy(fw->path, path, n);
    return AVK_OK;
}

/* Opens the directory path names its file in (path is the writer's own
 * copy: cut at its last slash for the open, then mended). -1 with errno. */
static int open_dir_of(char *path)
{
    char *slash = strrchr(path, '/');
    int fd, e;
    if (!slash)
        return open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (slash == path)
        return open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    *slash = '\0';
    fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    e = errno;
    *slash = '/';
    errno = e;
    return fd;
}

/* A new file: the schema goes through its full JSON form (writer_new),
 * then the destination writer, then the header. On any failure an fd the
 * writer was to own is closed, so open_path leaks nothing. */
static avk_status open_new(dest_kind kind, int fd, avk_sink_fn sink, void *ctx,
                           const avk_schema *schema, const avk_file_writer_options *opts,
                           int own_fd, const char *path, avk_file_writer **out, avk_error *err)
{
    avk_writer tmp;
    const uint8_t *text;
    size_t len;
    avk_writer_options wo;
    avk_file_writer *fw;
    avk_status st;
    /* The schema's text comes from the caller's allocator too; a failure
     * here closes what open_path opened, as the later ones do. */
    memset(&wo, 0, sizeof wo);
    wo.struct_size = sizeof wo;
    wo.allocator = opts ? opts->allocator : NULL;
    st = avk_writer_init_memory(&tmp, &wo, err);
    if (st == AVK_OK) {
        st = avk_type_write_json(avk_schema_root(schema), 0, &tmp, err);
        text = avk_writer_data(&tmp, &len);
        if (st == AVK_OK)
            st = writer_new((const char *)text, len, opts, &fw, err);
        avk_writer_destroy(&tmp);
    }
    if (st != AVK_OK) {
        if (own_fd)
            close(fd);
        return st;
    }
    if (own_fd)
        fw->own_fd = fd;
    fw->fd = kind == DEST_FD ? fd : -1;
    memset(&wo, 0, sizeof wo);
    wo.struct_size = sizeof wo;
    wo.allocator = &fw->alloc;
    wo.name = path; /* write errors name the file (copied by the writer) */
    st = kind == DEST_FD ? avk_writer_init_fd(&fw->out, fd, &wo, err)
                         : avk_writer_init_sink(&fw->out, sink, ctx, &wo, err);
    if (st == AVK_OK && path) {
        st = keep_path(fw, path, err);
        if (st == AVK_OK && own_fd) {
            fw->dir_unsynced = 1;
            fw->dir_fd = open_dir_of(fw->path);
            fw->dir_errno = errno;
        }
    }
    if (st == AVK_OK)
        st = start_new(fw, opts, err);
    if (st != AVK_OK) {
        avk_file_writer_free(fw);
        return st;
    }
    *out = fw;
    return AVK_OK;
}

static avk_status open_args(const avk_schema *schema, avk_file_writer **out,
                            const avk_file_writer_options *opts, const char *fn, avk_error *err)
{
    if (!out || !schema)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN, "%s: NULL %s",
                              fn, out ? "schema" : "out");
    *out = NULL;
    return options_check(opts, err);
}

avk_status avk_file_writer_open_path(const char *path, const avk_schema *schema,
                                     const avk_file_writer_options *opts,
                                     avk_file_writer **out, avk_error *err)
{
    int fd, own = 0;
    AVK_TRY(open_args(schema, out, opts, "avk_file_writer_open_path", err));
    if (!path)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_file_writer_open_path: NULL path");
    if (strcmp(path, "-") == 0) {
        fd = STDOUT_FILENO;
    } else {
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        if (fd < 0)
            return avki_error_errno(err, errno, "cannot create %s", path);
        own = 1;
    }
    return open_new(DEST_FD, fd, NULL, NULL, schema, opts, own, own ? path : NULL, out, err);
}

avk_status avk_file_writer_open_fd(int fd, const avk_schema *schema,
                                   const avk_file_writer_options *opts,
                                   avk_file_writer **out, avk_error *err)
{
    AVK_TRY(open_args(schema, out, opts, "avk_file_writer_open_fd", err));
    if (fd < 0)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_file_writer_open_fd: negative fd");
    return open_new(DEST_FD, fd, NULL, NULL, schema, opts, 0, NULL, out, err);
}

avk_status avk_file_writer_open_sink(avk_sink_fn sink, void *ctx, const avk_schema *schema,
                                     const avk_file_writer_options *opts,
                                     avk_file_writer **out, avk_error *err)
{
    AVK_TRY(open_args(schema, out, opts, "avk_file_writer_open_sink", err));
    if (!sink)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_file_writer_open_sink: NULL sink");
    return open_new(DEST_SINK, -1, sink, ctx, schema, opts, 0, NULL, out, err);
}

/* Every block of the file must be whole before blocks are added after it
 * (appending after damage would hide it). When the reader stops at damage
 * that runs to the end with no marker after it, that is a torn tail:
 * allowed to be cut on request (*keep: where the file is to end; size when
 * nothing is to be cut), else refused with what would be cut. Nothing is
 * changed here: the caller cuts once everything else is ready. */
static avk_status check_blocks(avk_file_reader *fr, const char *path, uint64_t size,
                               uint64_t flags, uint64_t *keep, avk_error *err)
{
    avk_file_block b;
    avk_error scan_err;
    uint64_t good_end = avk_file_reader_block_offset(fr); /* the header's end */
    uint64_t last_offset = good_end;
    int more = 1, found = 1;
    avk_status st = AVK_OK;
    *keep = size;
    while (more && (st = avk_file_reader_next_block(fr, &b, &more, err)) == AVK_OK) {
        last_offset = b.offset;
        good_end = b.end;
    }
    if (st == AVK_OK)
        return AVK_OK;
    /* Only what the bytes say is damage; a failed read, memory or a limit
     * says nothing about the file's end. */
    if (st != AVK_ERR_TRUNCATED && st != AVK_ERR_MALFORMED && st != AVK_ERR_SYNC) {
        avki_error_prefix(err, "cannot append to %s: ", path);
        return st;
    }
    /* A last block whose marker the end of the file cuts short is returned
     * (its data is whole), and the error comes after it: it is not whole. */
    if (good_end >= size)
        good_end = last_offset;
    if (avki_file_marker_after(path, good_end, size, avk_file_reader_sync(fr), &found,
                               &scan_err) != AVK_OK) {
        /* Cannot tell a torn tail from damage: nothing is cut. */
        avki_error_prefix(err, "cannot append to %s: cannot tell whether its end is torn or "
                               "damaged (%s): ", path, scan_err.message);
        return st;
    }
    if (found) {
        avki_error_prefix(err, "cannot append to %s: damaged after byte %llu, with a block "
                               "after the damage (not a torn tail): ",
                          path, (unsigned long long)good_end);
        return st;
    }
    if (!(flags & AVK_FILE_WRITER_TRUNCATE_TORN_TAIL))
        return avki_error_set(err, st, good_end,
                              "cannot append to %s: it ends with a torn tail: the %llu bytes "
                              "from byte %llu are not a complete block (a writer stopped "
                              "within it); cut them with AVK_FILE_WRITER_TRUNCATE_TORN_TAIL "
                              "(in the CLI: --truncate-torn-tail)",
                              path, (unsigned long long)(size - good_end),
                              (unsigned long long)good_end);
    *keep = good_end;
    return AVK_OK;
}

/* Cuts the torn tail: the last step of append_path, once the writer is
 * ready, so a failure before it leaves the file as it was. */
static avk_status cut_tail(avk_file_writer *fw, const char *path, uint64_t keep, avk_error *err)
{
    int rc;
    do
        rc = ftruncate(fw->fd, (off_t)keep);
    while (rc != 0 && errno == EINTR);
    if (rc != 0)
        return avki_error_errno(err, errno, "cannot cut the torn tail of %s at byte %llu",
                                path, (unsigned long long)keep);
    return AVK_OK;
}

avk_status avk_file_writer_append_path(const char *path, const avk_file_writer_options *opts,
                                       avk_file_writer **out, avk_error *err)
{
    avk_file_reader_options ro;
    avk_file_reader *fr;
    avk_file_writer_options wo;
    avk_file_writer *fw = NULL;
    avk_writer_options so;
    struct stat sb;
    const uint8_t *text;
    size_t text_len = 0;
    uint64_t keep = 0;
    int fd;
    avk_status st = AVK_OK;
    if (!out || !path)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_file_writer_append_path: NULL %s", out ? "path" : "out");
    *out = NULL;
    if (opts && (!options_size_ok(opts->struct_size) ||
                 options_threads(opts) > AVKI_COMPRESS_MAX_THREADS))
        return options_check(opts, err);
    /* Opened first: its size bounds the check of the blocks, and a tail
     * is cut through it. */
    fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0)
        return avki_error_errno(err, errno, "cannot open %s to append", path);
    if (fstat(fd, &sb) != 0) {
        st = avki_error_errno(err, errno, "cannot append to %s: fstat failed", path);
        close(fd);
        return st;
    }
    memset(&ro, 0, sizeof ro);
    ro.struct_size = sizeof ro;
    ro.allocator = opts ? opts->allocator : NULL;
    st = avk_file_reader_open_path(path, &ro, &fr, err);
    if (st != AVK_OK) {
        avki_error_prefix(err, "cannot append to %s: ", path);
        close(fd);
        return st;
    }
    st = check_blocks(fr, path, (uint64_t)sb.st_size, options_flags(opts), &keep, err);
    if (st == AVK_OK) {
        memset(&wo, 0, sizeof wo);
        if (opts)
            memcpy(&wo, opts, opts->struct_size); /* an older caller's is shorter */
        wo.struct_size = sizeof wo;
        wo.codec = avk_file_reader_codec(fr, NULL);
        wo.meta = NULL;
        wo.meta_count = 0;
        text = avk_file_reader_meta(fr, "avro.schema", &text_len);
        st = writer_new((const char *)text, text_len, &wo, &fw, err);
    }
    if (st == AVK_OK) {
        /* Appended blocks must carry the file's own marker: readers compare
         * every block's marker with the header's. The codec is the file's
         * too, and the schema its header's text. */
        memcpy(fw->sync, avk_file_reader_sync(fr), AVK_FILE_SYNC_SIZE);
        fw->own_fd = fd;
        fw->fd = fd;
        fd = -1;
        fw->torn_tail = (uint64_t)sb.st_size - keep;
        st = level_check(fw, err);
    }
    avk_file_reader_free(fr);
    if (st == AVK_OK)
        st = keep_path(fw, path, err);
    if (st == AVK_OK) {
        memset(&so, 0, sizeof so);
        so.struct_size = sizeof so;
        so.allocator = &fw->alloc;
        so.name = path;
        st = avk_writer_init_fd(&fw->out, fw->fd, &so, err);
    }
    if (st == AVK_OK && fw->torn_tail)
        st = cut_tail(fw, path, keep, err);
    if (st != AVK_OK) {
        if (fd >= 0)
            close(fd);
        avk_file_writer_free(fw);
        return st;
    }
    *out = fw;
    return AVK_OK;
}

const avk_schema *avk_file_writer_schema(const avk_file_writer *fw) { return fw->schema; }
const avk_plan *avk_file_writer_plan(const avk_file_writer *fw) { return fw->plan; }
const uint8_t *avk_file_writer_sync(const avk_file_writer *fw) { return fw->sync; }
uint64_t avk_file_writer_torn_tail(const avk_file_writer *fw) { return fw->torn_tail; }

/* bytes_data counts the records of the pending block too, so the figure
 * grows with every append, not block by block. */
void avk_file_writer_get_stats(const avk_file_writer *fw, avk_file_writer_stats *out)
{
    size_t pending;
    (void)avk_writer_data(&fw->blk, &pending);
    *out = fw->stats;
    out->bytes_data += pending;
    out->bytes_written = avk_writer_offset(&fw->out);
}

/* Count, size, data, sync. Any failure leaves part of a block written, so
 * the writer is broken from then on. */
static avk_status write_framed(avk_file_writer *fw, int64_t count, const void *data, size_t size,
                               avk_error *err)
{
    avk_status st = avk_writer_write_long(&fw->out, count, err);
    if (st == AVK_OK)
        st = avk_writer_write_long(&fw->out, (int64_t)size, err);
    if (st == AVK_OK)
        st = avki_writer_write_direct(&fw->out, data, size, err); /* broken on failure */
    if (st == AVK_OK)
        st = avk_writer_write_raw(&fw->out, fw->sync, AVK_FILE_SYNC_SIZE, err);
    if (st != AVK_OK)
        fw->broken = st;
    return st;
}

/* The pool's way out: blocks come back here in order, on the caller's
 * thread. */
static avk_status emit_block(void *ctx, uint64_t count, const uint8_t *data, size_t size,
                             avk_error *err)
{
    avk_file_writer *fw = (avk_file_writer *)ctx;
    AVK_TRY(write_framed(fw, (int64_t)count, data, size, err));
    fw->stats.blocks++;
    return AVK_OK;
}

/* The pending block out: to the pool (which owns it from then on), or
 * compressed and written now. Without threads a compression failure
 * leaves the records in blk and the writer not broken (nothing was
 * written, and the next cut tries again); a write failure breaks it
 * (write_framed). */
static avk_status write_block(avk_file_writer *fw, avk_error *err)
{
    size_t len;
    const uint8_t *data = avk_writer_data(&fw->blk, &len);
    avk_status st;
    if (fw->count == 0)
        return AVK_OK;
    if (fw->pool) {
        /* Any failure here breaks the writer: an earlier block may already
         * be lost, so the file cannot be continued. */
        st = avki_compress_pool_submit(fw->pool, &fw->blk, fw->count, err);
        if (st != AVK_OK) {
            fw->broken = st;
            return st;
        }
        fw->stats.bytes_data += len; /* counted once it leaves blk, as stats promise */
        fw->count = 0;
        return AVK_OK;
    }
    if (fw->codec != AVK_CODEC_NULL) {
        st = avki_codec_compress_with(&fw->codec_state, fw->codec, fw->level, data, len,
                                      &fw->comp, err);
        if (st != AVK_OK)
            return st;
        st = write_framed(fw, (int64_t)fw->count, fw->comp.data, fw->comp.len, err);
    } else {
        st = write_framed(fw, (int64_t)fw->count, data, len, err);
    }
    if (st != AVK_OK)
        return st;
    fw->stats.blocks++;
    fw->stats.bytes_data += len;
    fw->count = 0;
    avk_writer_reset(&fw->blk);
    return AVK_OK;
}

/* The pending block and every block in flight, in order. */
static avk_status write_all(avk_file_writer *fw, avk_error *err)
{
    avk_status st;
    AVK_TRY(write_block(fw, err));
    if (!fw->pool)
        return AVK_OK;
    st = avki_compress_pool_drain(fw->pool, err);
    if (st != AVK_OK)
        fw->broken = st;
    return st;
}

static avk_status broken(const avk_file_writer *fw, avk_error *err)
{
    return avki_error_set(err, fw->broken, AVK_OFFSET_UNKNOWN,
                          "an earlier write to this file failed (%s); the file is incomplete",
                          avk_status_name(fw->broken));
}

/* A worker failed to compress a block: write the blocks before it, then
 * report its error (once; later calls report the writer broken). */
static __attribute__((noinline, cold)) avk_status pool_failed(avk_file_writer *fw, avk_error *err)
{
    avk_status st = avki_compress_pool_drain(fw->pool, err);
    fw->broken = st != AVK_OK ? st : AVK_ERR_CODEC;
    return fw->broken;
}

/* The mark is where blk's record starts: record_end(commit = 0) and every
 * failure of record_end go back to it. */
avk_writer *avk_file_writer_record_begin(avk_file_writer *fw)
{
    size_t len;
    (void)avk_writer_data(&fw->blk, &len);
    fw->mark = len;
    return &fw->blk;
}

avk_status avk_file_writer_record_end(avk_file_writer *fw, int commit, avk_error *err)
{
    size_t len;
    (void)avk_writer_data(&fw->blk, &len);
    if (!commit) {
        fw->blk.pos = fw->blk.buf + fw->mark;
        return AVK_OK;
    }
    if (AVK_UNLIKELY(fw->broken != AVK_OK)) {
        fw->blk.pos = fw->blk.buf + fw->mark;
        return broken(fw, err);
    }
    if (fw->pool && AVK_UNLIKELY(avki_compress_pool_failed(fw->pool))) {
        fw->blk.pos = fw->blk.buf + fw->mark;
        return pool_failed(fw, err);
    }
    /* The size is tested after the record is in: a block is cut at the
     * first record boundary at or past block_bytes. */
    fw->count++;
    fw->stats.records++;
    if (len >= fw->block_bytes || (fw->block_records && fw->count >= fw->block_records))
        return write_block(fw, err);
    return AVK_OK;
}

avk_status avk_file_writer_append(avk_file_writer *fw, const avk_value *v, avk_error *err)
{
    avk_writer *w;
    avk_status st;
    if (!fw || !v)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_file_writer_append: NULL argument");
    w = avk_file_writer_record_begin(fw);
    st = avk_plan_encode(fw->plan, v, w, err);
    if (AVK_UNLIKELY(st != AVK_OK)) {
        avk_file_writer_record_end(fw, 0, NULL);
        return st;
    }
    return avk_file_writer_record_end(fw, 1, err);
}

avk_status avk_file_writer_append_encoded(avk_file_writer *fw, const void *datum, size_t len,
                                          avk_error *err)
{
    avk_writer *w;
    avk_status st;
    if (!fw || (!datum && len))
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_file_writer_append_encoded: NULL argument");
    w = avk_file_writer_record_begin(fw);
    st = avk_writer_write_raw(w, datum, len, err);
    if (st != AVK_OK) {
        avk_file_writer_record_end(fw, 0, NULL);
        return st;
    }
    return avk_file_writer_record_end(fw, 1, err);
}

avk_status avk_file_writer_append_block(avk_file_writer *fw, int64_t count, const void *data,
                                        size_t size, avk_error *err)
{
    if (!fw || (!data && size) || count <= 0)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_file_writer_append_block: %s",
                              count <= 0 ? "the record count must be positive"
                                         : "NULL argument");
    /* The caller's block goes after every record appended before it, so
     * the pending block (and every block in flight) is written first. The
     * data is written as given: it must already be in the file's codec. */
    if (fw->broken != AVK_OK)
        return broken(fw, err);
    AVK_TRY(write_all(fw, err));
    AVK_TRY(write_framed(fw, count, data, size, err));
    fw->stats.blocks++;
    fw->stats.records += (uint64_t)count;
    return AVK_OK;
}

avk_status avk_file_writer_flush(avk_file_writer *fw, avk_error *err)
{
    avk_status st;
    if (!fw)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_file_writer_flush: NULL writer");
    if (fw->broken != AVK_OK)
        return broken(fw, err);
    AVK_TRY(write_all(fw, err));
    st = avk_writer_flush(&fw->out, err);
    if (st != AVK_OK)
        fw->broken = st;
    return st;
}

/* The directory of a file open_path created, so that its name is on disk
 * too: fsync'd once, at the first fsync. File systems that cannot sync a
 * directory say EINVAL: nothing more can be done there, so that is not an
 * error. */
static avk_status sync_dir(avk_file_writer *fw, avk_error *err)
{
    if (fw->dir_fd < 0)
        return avki_error_errno(err, fw->dir_errno, "cannot open the directory of %s to fsync "
                                                    "it (to keep the new file's name)",
                                fw->path);
    if (avki_fsync(fw->dir_fd) != 0 && errno != EINVAL)
        return avki_error_errno(err, errno, "fsync of the directory of %s (to keep the new "
                                            "file's name) failed",
                                fw->path);
    close(fw->dir_fd);
    fw->dir_fd = -1;
    fw->dir_unsynced = 0;
    return AVK_OK;
}

avk_status avk_file_writer_fsync(avk_file_writer *fw, avk_error *err)
{
    if (!fw)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_file_writer_fsync: NULL writer");
    if (fw->fd < 0)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_file_writer_fsync: this writer sends its bytes to a sink, "
                              "which it cannot sync: call avk_file_writer_flush, then sync "
                              "what the sink writes to");
    AVK_TRY(avk_file_writer_flush(fw, err));
    if (avki_fsync(fw->fd) != 0) {
        int e = errno;
        char fdname[32];
        snprintf(fdname, sizeof fdname, "file descriptor %d", fw->fd);
        /* EINVAL alone means "cannot be synced": EROFS from fsync is a
         * file system that went read-only after an error, data lost. */
        if (e == EINVAL) {
            avki_error_errno(err, e, "cannot fsync %s: it is a pipe, socket or terminal, "
                                     "or its file system cannot sync",
                             fw->path ? fw->path : fdname);
            if (err)
                err->status = AVK_ERR_INVALID_ARGUMENT, err->sys_errno = 0;
            return AVK_ERR_INVALID_ARGUMENT;
        }
        fw->broken = AVK_ERR_IO;
        return avki_error_errno(err, e, "fsync of %s failed: records since the last "
                                        "successful fsync may not be on disk",
                                fw->path ? fw->path : fdname);
    }
    if (fw->dir_unsynced)
        return sync_dir(fw, err);
    return AVK_OK;
}

/* Flushes, then closes an fd the writer opened: close(2) can report a
 * write error the kernel deferred (NFS, quotas), so its result counts. The
 * writer is freed whatever happened. */
avk_status avk_file_writer_close(avk_file_writer *fw, avk_error *err)
{
    avk_status st;
    if (!fw)
        return AVK_OK;
    st = avk_file_writer_flush(fw, err);
    if (fw->own_fd >= 0) {
        /* Linux releases the fd whatever close returns: never retried,
         * and EINTR is no error (the data was handed over already). */
        int rc = close(fw->own_fd);
        fw->own_fd = -1;
        if (rc != 0 && errno != EINTR && st == AVK_OK)
            st = avki_error_errno(err, errno, "closing %s failed",
                                  fw->path ? fw->path : "the file");
    }
    avk_file_writer_free(fw);
    return st;
}

/* Frees without writing what is pending. The pool goes first: its workers
 * may still be using blocks, codec state and the locked allocator. */
void avk_file_writer_free(avk_file_writer *fw)
{
    avk_allocator a;
    if (!fw)
        return;
    a = fw->raw;
    avki_compress_pool_free(fw->pool); /* joins the workers before anything they use goes */
    avk_plan_free(fw->plan);
    avk_schema_free(fw->schema);
    avk_writer_destroy(&fw->out);
    avk_writer_destroy(&fw->blk);
    avk_buffer_destroy(&fw->comp);
    avki_codec_state_destroy(&fw->codec_state);
    if (fw->own_fd >= 0)
        close(fw->own_fd);
    if (fw->path)
        fw->alloc.free(fw->alloc.ctx, fw->path, strlen(fw->path) + 1);
    if (fw->dir_fd >= 0)
        close(fw->dir_fd);
    if (fw->threaded)
        avki_locked_alloc_destroy(&fw->lk);
    a.free(a.ctx, fw, sizeof *fw);
}
