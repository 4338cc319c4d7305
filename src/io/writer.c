/* Growable memory writer and buffered stream writers. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "avrokit/writer.h"
#include "io/writer_internal.h"
#include "common/alloc_internal.h"
#include "common/error.h"
#include "varint/kernels.h"

/*
 * As the reader, one struct for memory and streams: the inline writes of
 * writer.h encode at pos while end - pos covers their worst case, and this
 * file is their slow side. A memory writer grows its buffer (by doubling,
 * up to max_size); a stream writer hands the full buffer to its sink and
 * starts again at the front, counting what it handed over in flushed, so
 * avk_writer_offset is flushed + (pos - buf) either way.
 */

/* As the reader's: a write(2) per 64 KiB; at least room for a few values. */
#define DEFAULT_BUFFER (64 * 1024)
#define MIN_BUFFER 64

/* A stream writer's name lives behind its buffer (buf[cap], NUL-terminated,
 * "" for none), not in avk_writer: the struct is the caller's storage and
 * keeps its size. Memory writers (no sink) grow their buffer and have no
 * name. */
static const char *writer_name(const avk_writer *w)
{
    return w->sink && w->buf && w->buf[w->cap] ? (const char *)w->buf + w->cap : NULL;
}

/* The destination as messages name it: the options' name, else the fd. */
static avk_status sink_failed(const avk_writer *w, int e, avk_error *err)
{
    if (writer_name(w))
        return avki_error_errno(err, e, "write to %s failed", writer_name(w));
    if (w->fp)
        return avki_error_errno(err, e, "write to stdio stream failed");
    return avki_error_errno(err, e, "write to file descriptor %d failed", w->fd);
}

/* write(2) may take less than asked (a pipe, a signal, a full disk): loop
 * until all of it is out; EINTR before anything was written is retried. A
 * write of 0 bytes makes no progress: reported as the disk being full,
 * which is when a regular file gives it. */
static avk_status fd_sink(void *ctx, const void *data, size_t len, avk_error *err)
{
    avk_writer *w = (avk_writer *)ctx;
    const uint8_t *p = (const uint8_t *)data;
    while (len > 0) {
        ssize_t n = write(w->fd, p, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return sink_failed(w, errno, err);
        }
        if (n == 0)
            return sink_failed(w, ENOSPC, err);
        p += n;
        len -= (size_t)n;
    }
    return AVK_OK;
}

static avk_status file_sink(void *ctx, const void *data, size_t len, avk_error *err)
{
    avk_writer *w = (avk_writer *)ctx;
    /* Not retried after EINTR: glibc drops what its buffer held when a
     * write fails, so a retry would "succeed" with bytes missing. */
    if (fwrite(data, 1, len, w->fp) != len)
        return sink_failed(w, errno ? errno : EIO, err);
    return AVK_OK;
}

static avk_status writer_setup(avk_writer *w, avk_sink_fn sink, void *ctx,
                               const avk_writer_options *opts, avk_error *err)
{
    size_t size = DEFAULT_BUFFER, nsize = 0;
    const char *name = NULL;
    memset(w, 0, sizeof *w);
    w->fd = -1;
    w->kernels = avki_kernels_active();
    w->max_size = SIZE_MAX / 2;
    if (opts) {
        /* Callers built before name stop their options at it. */
        if (opts->struct_size != offsetof(avk_writer_options, name) &&
            opts->struct_size < sizeof *opts)
            return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                                  "avk_writer_options.struct_size is %zu, expected %zu",
                                  opts->struct_size, sizeof *opts);
        /* Only a stream writer keeps it: a memory writer's buffer grows,
         * and the name lives behind the buffer. */
        if (sink && opts->struct_size >= sizeof *opts && opts->name)
            name = opts->name;
        if (opts->buffer_size)
            size = opts->buffer_size < MIN_BUFFER ? MIN_BUFFER : opts->buffer_size;
        if (opts->max_size)
            w->max_size = opts->max_size;
    }
    /* The first buffer of a memory writer counts against its limit too. */
    if (!sink && size > w->max_size)
        size = w->max_size;
    /* A stream writer keeps at least the NUL: writer_name finds "". */
    if (sink)
        nsize = name ? strlen(name) + 1 : 1;
    w->alloc = avki_allocator_or_libc(opts ? opts->allocator : NULL);
    w->buf = size <= SIZE_MAX - nsize ? (uint8_t *)w->alloc.alloc(w->alloc.ctx, size + nsize)
                                      : NULL;
    if (!w->buf)
        return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                              "cannot allocate a %zu-byte writer buffer", size);
    if (sink && name)
        memcpy(w->buf + size, name, nsize);
    else if (sink)
        w->buf[size] = 0;
    w->cap = size;
    w->pos = w->buf;
    w->end = w->buf + size;
    w->sink = sink;
    w->sink_ctx = ctx;
    return AVK_OK;
}

avk_status avk_writer_init_memory(avk_writer *w, const avk_writer_options *opts, avk_error *err)
{
    return writer_setup(w, NULL, NULL, opts, err);
}

avk_status avk_writer_init_sink(avk_writer *w, avk_sink_fn sink, void *ctx,
                                const avk_writer_options *opts, avk_error *err)
{
    if (!sink) {
        memset(w, 0, sizeof *w);
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "writer sink callback is NULL");
    }
    return writer_setup(w, sink, ctx, opts, err);
}

avk_status avk_writer_init_fd(avk_writer *w, int fd, const avk_writer_options *opts, avk_error *err)
{
    avk_status st;
    if (fd < 0) {
        memset(w, 0, sizeof *w);
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "file descriptor %d is not valid", fd);
    }
    st = writer_setup(w, fd_sink, NULL, opts, err);
    w->sink_ctx = w;
    w->fd = fd;
    return st;
}

avk_status avk_writer_init_file(avk_writer *w, FILE *fp, const avk_writer_options *opts,
                                avk_error *err)
{
    avk_status st;
    if (!fp) {
        memset(w, 0, sizeof *w);
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "stdio stream is NULL");
    }
    st = writer_setup(w, file_sink, NULL, opts, err);
    w->sink_ctx = w;
    w->fp = fp;
    return st;
}

void avk_writer_destroy(avk_writer *w)
{
    if (w->buf)
        w->alloc.free(w->alloc.ctx, w->buf,
                      w->cap + (w->sink ? strlen((const char *)w->buf + w->cap) + 1 : 0));
    w->buf = w->pos = w->end = NULL;
    w->cap = 0;
}

avk_status avk_writer_flush(avk_writer *w, avk_error *err)
{
    size_t len = (size_t)(w->pos - w->buf);
    if (!w->sink || len == 0)
        return AVK_OK;
    AVK_TRY(w->sink(w->sink_ctx, w->buf, len, err));
    w->flushed += len;
    w->pos = w->buf;
    /* Not retried after EINTR either (see file_sink). */
    if (w->fp && fflush(w->fp) != 0) {
        if (writer_name(w))
            return avki_error_errno(err, errno, "flushing %s failed", writer_name(w));
        return avki_error_errno(err, errno, "flushing the stdio stream failed");
    }
    return AVK_OK;
}

/* Memory writer near max_size: the worst-case reservation of the fast path
 * (10 bytes a value) may not fit although the value does; encode into a
 * scratch buffer and copy the exact length. */
avk_status avk_writer_write_long_slow(avk_writer *w, int64_t v, avk_error *err)
{
    uint8_t tmp[AVK_VARINT_LONG_MAX];
    avk_status st = avk_writer_reserve(w, AVK_VARINT_LONG_MAX, err);
    if (st == AVK_OK) {
        w->pos += avk_varint_encode_long(w->pos, v);
        return AVK_OK;
    }
    if (st != AVK_ERR_LIMIT)
        return st;
    return avk_writer_write_raw(w, tmp, avk_varint_encode_long(tmp, v), err);
}

/* Memory writer: grows the buffer to hold at least n more bytes. Doubling
 * keeps the total copying linear in the bytes written; the last step is
 * clamped to max_size, so a writer can use all of its limit. */
static avk_status grow(avk_writer *w, size_t n, avk_error *err)
{
    size_t used = (size_t)(w->pos - w->buf);
    size_t want = w->cap ? w->cap : MIN_BUFFER;
    uint8_t *nb;
    if (n > w->max_size - used)
        return avki_error_set(err, AVK_ERR_LIMIT, avk_writer_offset(w),
                              "memory writer would exceed its %zu-byte limit", w->max_size);
    while (want - used < n)
        want = want > w->max_size / 2 ? w->max_size : want * 2;
    nb = (uint8_t *)w->alloc.realloc(w->alloc.ctx, w->buf, w->cap, want);
    if (!nb)
        return avki_error_set(err, AVK_ERR_NO_MEMORY, avk_writer_offset(w),
                              "cannot grow the memory writer to %zu bytes", want);
    w->buf = nb;
    w->cap = want;
    w->pos = nb + used;
    w->end = nb + want;
    return AVK_OK;
}

/* A stream writer makes room by flushing, so it can never offer more than
 * its buffer: a larger reservation is the caller's error, not the
 * sink's. */
avk_status avk_writer_reserve(avk_writer *w, size_t n, avk_error *err)
{
    if ((size_t)(w->end - w->pos) >= n)
        return AVK_OK;
    if (!w->sink)
        return grow(w, n, err);
    if (n > w->cap)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, avk_writer_offset(w),
                              "cannot reserve %zu bytes in a %zu-byte writer buffer", n, w->cap);
    return avk_writer_flush(w, err);
}

avk_status avki_writer_write_direct(avk_writer *w, const void *src, size_t n, avk_error *err)
{
    if (!w->sink || n < w->cap)
        return avk_writer_write_raw(w, src, n, err);
    AVK_TRY(avk_writer_flush(w, err));
    AVK_TRY(w->sink(w->sink_ctx, src, n, err));
    w->flushed += n;
    return AVK_OK;
}

avk_status avk_writer_write_raw_slow(avk_writer *w, const void *src, size_t n, avk_error *err)
{
    const uint8_t *s = (const uint8_t *)src;
    size_t room = (size_t)(w->end - w->pos);
    if (room >= n) { /* callable directly, not only from the inline write */
        memcpy(w->pos, s, n);
        w->pos += n;
        return AVK_OK;
    }
    if (!w->sink) {
        AVK_TRY(grow(w, n, err));
        memcpy(w->pos, s, n);
        w->pos += n;
        return AVK_OK;
    }
    /* Fill the buffer, flush, then pass large remainders straight through. */
    memcpy(w->pos, s, room);
    w->pos += room;
    s += room;
    n -= room;
    AVK_TRY(avk_writer_flush(w, err));
    if (n >= w->cap) {
        AVK_TRY(w->sink(w->sink_ctx, s, n, err));
        w->flushed += n;
        return AVK_OK;
    }
    memcpy(w->pos, s, n);
    w->pos += n;
    return AVK_OK;
}

/* Memory writer near max_size: the rest one value at a time with exact
 * sizes; on LIMIT the writer goes back to call_start, so a bulk write is
 * all or nothing. */
#define WRITE_EXACT_OR_NOTHING(name, type)                                                  \
    static avk_status name(avk_writer *w, const type *in, size_t n, size_t call_start,     \
                           avk_error *err)                                                  \
    {                                                                                       \
        size_t i;                                                                           \
        for (i = 0; i < n; i++) {                                                           \
            avk_status st = avk_writer_write_long_slow(w, in[i], err);                      \
            if (st != AVK_OK) {                                                             \
                w->pos = w->buf + call_start;                                               \
                return st;                                                                  \
            }                                                                               \
        }                                                                                   \
        return AVK_OK;                                                                      \
    }
WRITE_EXACT_OR_NOTHING(write_exact_or_nothing_longs, int64_t)
WRITE_EXACT_OR_NOTHING(write_exact_or_nothing_ints, int32_t)

avk_status avk_writer_write_longs(avk_writer *w, const int64_t *in, size_t n, avk_error *err)
{
    const avki_kernels *k = (const avki_kernels *)w->kernels;
    size_t done = 0, call_start = (size_t)(w->pos - w->buf);
    /* In chunks that fit the buffer's worst case: 10 bytes per value. The
     * kernels write whole words past each value and never check room, so
     * the room is reserved for the worst case before each call; a memory
     * writer takes 2^20 values a chunk so the reservation stays bounded. */
    size_t chunk_max = w->sink ? w->cap / AVK_VARINT_LONG_MAX : (size_t)1 << 20;
    while (done < n) {
        size_t chunk = n - done < chunk_max ? n - done : chunk_max;
        avk_status st = avk_writer_reserve(w, chunk * AVK_VARINT_LONG_MAX, err);
        if (st == AVK_ERR_LIMIT)
            return write_exact_or_nothing_longs(w, in + done, n - done, call_start, err);
        AVK_TRY(st);
        w->pos += k->encode_longs(w->pos, in + done, chunk);
        done += chunk;
    }
    return AVK_OK;
}

avk_status avk_writer_write_ints(avk_writer *w, const int32_t *in, size_t n, avk_error *err)
{
    const avki_kernels *k = (const avki_kernels *)w->kernels;
    size_t done = 0, call_start = (size_t)(w->pos - w->buf);
    /* The int kernels' room: 5 bytes a value plus one 10-byte store. */
    size_t chunk_max =
        w->sink ? (w->cap - AVK_VARINT_LONG_MAX) / AVK_VARINT_INT_MAX : (size_t)1 << 20;
    while (done < n) {
        size_t chunk = n - done < chunk_max ? n - done : chunk_max;
        avk_status st = avk_writer_reserve(w, chunk * AVK_VARINT_INT_MAX + AVK_VARINT_LONG_MAX, err);
        if (st == AVK_ERR_LIMIT)
            return write_exact_or_nothing_ints(w, in + done, n - done, call_start, err);
        AVK_TRY(st);
        w->pos += k->encode_ints(w->pos, in + done, chunk);
        done += chunk;
    }
    return AVK_OK;
}

int avki_fsync(int fd)
{
    int rc;
    do
        rc = fsync(fd);
    while (rc != 0 && errno == EINTR);
    return rc;
}
