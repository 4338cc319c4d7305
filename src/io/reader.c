/* Memory and buffered stream readers: refills, slow paths and bulk reads. */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "avrokit/reader.h"
#include "common/alloc_internal.h"
#include "io/reader_internal.h"
#include "common/error.h"
#include "varint/kernels.h"

/*
 * One struct serves memory and streams, so the inline reads of reader.h
 * have a single fast path: decode at pos while end - pos covers the worst
 * case of the read (10 bytes for a varint, n for raw bytes), with no bounds
 * check per byte and no test of what kind of reader it is. Everything in
 * this file is the slow side of those reads.
 *
 * A stream reader's buffer:
 *
 *   buf == base          pos                 end                buf + cap
 *   |  consumed bytes    |   unread bytes    |    free space    |
 *
 * Offsets count from base: avk_reader_offset is base_offset + (pos - base),
 * so errors carry absolute offsets while the fast path only moves pos. A
 * memory reader is the same struct over the caller's bytes, with source
 * NULL and at_eof set: every slow path then sees "no more input" and
 * reports TRUNCATED where a stream would have refilled.
 *
 * A refill moves the unread bytes to the front (usually fewer than 10:
 * what was left of a value the fast path could not take) and reads behind
 * them. The buffer is not a ring, so a value is always contiguous in
 * memory, which is what lets every read decode straight out of it.
 */

/* One read(2) per 64 KiB puts the cost of the call on thousands of values.
 * At least 64: a varint (10 bytes) or a sync marker (16, which the file
 * reader fills) must fit whole in the buffer. */
#define DEFAULT_BUFFER (64 * 1024)
#define MIN_BUFFER 64

/* The kernel table is copied once, so bulk reads never ask the dispatcher,
 * and the fd is -1, so avki_reader_seek_fd refuses a reader without one. */
static void reader_zero(avk_reader *r)
{
    memset(r, 0, sizeof *r);
    r->fd = -1;
    r->kernels = avki_kernels_active();
}

void avk_reader_init_memory(avk_reader *r, const void *data, size_t len)
{
    /* NULL data still gets real pointers: pos and end arithmetic must be
     * defined, and a zero-length memcpy may not be given NULL. */
    static const uint8_t empty[1];
    reader_zero(r);
    r->base = r->pos = data ? (const uint8_t *)data : empty;
    r->end = r->pos + (data ? len : 0);
    r->at_eof = 1;
}

/* A stream reader's name lives behind its buffer (buf[cap], NUL-terminated,
 * "" for none), not in avk_reader: the struct is the caller's storage and
 * keeps its size. Memory readers have no buffer and no name. */
static const char *reader_name(const avk_reader *r)
{
    return r->buf && r->buf[r->cap] ? (const char *)r->buf + r->cap : NULL;
}

/* A read interrupted by a signal (EINTR) is retried: it is not an error of
 * the input. A short read is fine, the reader asks again when it needs to. */
static avk_status fd_source(void *ctx, void *buf, size_t cap, size_t *got, avk_error *err)
{
    avk_reader *r = (avk_reader *)ctx;
    for (;;) {
        ssize_t n = read(r->fd, buf, cap);
        if (n >= 0) {
            *got = (size_t)n;
            return AVK_OK;
        }
        if (errno == EINTR)
            continue;
        if (reader_name(r))
            return avki_error_errno(err, errno, "read from %s failed", reader_name(r));
        return avki_error_errno(err, errno, "read from file descriptor %d failed", r->fd);
    }
}

/* fread returns short both at the end and on an error: ferror tells them
 * apart. stdio gives up on EINTR (setting the error flag) after delivering
 * what it had: the flag is cleared, so the end of the stream later reads
 * as an end, and a read that brought nothing is asked again (reading
 * again after EINTR loses nothing). Another error with bytes read hands
 * the bytes over; the next call reports it. */
static avk_status file_source(void *ctx, void *buf, size_t cap, size_t *got, avk_error *err)
{
    avk_reader *r = (avk_reader *)ctx;
    for (;;) {
        errno = 0;
        *got = fread(buf, 1, cap, r->fp);
        if (!ferror(r->fp) || (*got != 0 && errno != EINTR))
            return AVK_OK;
        if (errno != EINTR)
            break;
        clearerr(r->fp);
        if (*got != 0)
            return AVK_OK;
    }
    if (reader_name(r))
        return avki_error_errno(err, errno, "read from %s failed", reader_name(r));
    return avki_error_errno(err, errno, "read from stdio stream failed");
}

/* The size of the options the caller was built with: before name was
 * added, struct_size stopped at it. */
#define OPTIONS_V1 offsetof(avk_reader_options, name)


avk_status avk_reader_init_source(avk_reader *r, avk_source_fn source, void *ctx,
                                  const avk_reader_options *opts, avk_error *err)
{
    size_t size = DEFAULT_BUFFER, nsize = 0;
    const char *name = NULL;
    reader_zero(r);
    if (!source)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "reader source callback is NULL");
    if (opts) {
        if (opts->struct_size != OPTIONS_V1 && opts->struct_size < sizeof *opts)
            return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                                  "avk_reader_options.struct_size is %zu, expected %zu",
                                  opts->struct_size, sizeof *opts);
        if (opts->buffer_size)
            size = opts->buffer_size < MIN_BUFFER ? MIN_BUFFER : opts->buffer_size;
        if (opts->struct_size >= sizeof *opts && opts->name)
            name = opts->name;
    }
    /* Always at least the NUL: reader_name finds "" for no name. */
    nsize = name ? strlen(name) + 1 : 1;
    r->alloc = avki_allocator_or_libc(opts ? opts->allocator : NULL);
    r->buf = size <= SIZE_MAX - nsize ? (uint8_t *)r->alloc.alloc(r->alloc.ctx, size + nsize)
                                      : NULL;
    if (!r->buf)
        return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                              "cannot allocate a %zu-byte reader buffer", size);
    if (name)
        memcpy(r->buf + size, name, nsize);
    else
        r->buf[size] = 0;
    r->cap = size;
    r->base = r->pos = r->end = r->buf;
    r->source = source;
    r->source_ctx = ctx;
    return AVK_OK;
}

avk_status avk_reader_init_fd(avk_reader *r, int fd, const avk_reader_options *opts, avk_error *err)
{
    avk_status st;
    if (fd < 0) {
        reader_zero(r);
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "file descriptor %d is not valid", fd);
    }
    st = avk_reader_init_source(r, fd_source, NULL, opts, err);
    r->source_ctx = r; /* the callbacks read fd/fp from the reader itself */
    r->fd = fd;
    return st;
}

avk_status avk_reader_init_file(avk_reader *r, FILE *fp, const avk_reader_options *opts,
                                avk_error *err)
{
    avk_status st;
    if (!fp) {
        reader_zero(r);
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "stdio stream is NULL");
    }
    st = avk_reader_init_source(r, file_source, NULL, opts, err);
    r->source_ctx = r;
    r->fp = fp;
    return st;
}

avk_status avki_reader_seek_fd(avk_reader *r, uint64_t origin, uint64_t offset, avk_error *err)
{
    if (r->fd < 0 || !r->buf || offset < origin || offset > (uint64_t)INT64_MAX)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, offset,
                              "cannot seek this reader to byte %llu", (unsigned long long)offset);
    if (lseek(r->fd, (off_t)offset, SEEK_SET) < 0)
        return avki_error_errno(err, errno, "cannot seek file descriptor %d to byte %llu", r->fd,
                                (unsigned long long)offset);
    /* Offsets stay counted from where the reader began (origin), as all of
     * its others are: the buffer is dropped and offset - origin is where
     * the next read stands. */
    r->base = r->pos = r->end = r->buf;
    r->base_offset = offset - origin;
    r->at_eof = 0;
    return AVK_OK;
}

void avk_reader_destroy(avk_reader *r)
{
    static const uint8_t empty[1];
    if (r->buf)
        r->alloc.free(r->alloc.ctx, r->buf, r->cap + strlen((const char *)r->buf + r->cap) + 1);
    r->buf = NULL;
    r->cap = 0;
    /* A destroyed reader reads as an empty memory reader: TRUNCATED, never a hang. */
    r->pos = r->end = r->base = empty;
    r->source = NULL;
    r->at_eof = 1;
}

/* Moves the unread bytes to the front and reads until need bytes are
 * buffered or the source ends. AVK_OK even when it ends short: the caller
 * checks what arrived. need must not exceed the buffer.
 * Each call offers the source all the free space, not just what is needed,
 * so a stream of small reads makes few source calls. A source that claims
 * more than it was offered has written past the buffer: that is reported,
 * never trusted. */
static avk_status refill(avk_reader *r, size_t need, avk_error *err)
{
    size_t have = (size_t)(r->end - r->pos);
    if (!r->source)
        return AVK_OK;
    if (r->pos != r->buf) {
        r->base_offset += (uint64_t)(r->pos - r->base);
        memmove(r->buf, r->pos, have);
        r->base = r->pos = r->buf;
        r->end = r->buf + have;
    }
    while (have < need && !r->at_eof) {
        size_t got = 0;
        avk_status st = r->source(r->source_ctx, r->buf + have, r->cap - have, &got, err);
        if (st != AVK_OK)
            return st;
        if (got > r->cap - have)
            return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, avk_reader_offset(r),
                                  "reader source returned %zu bytes for a %zu-byte request", got,
                                  r->cap - have);
        if (got == 0)
            r->at_eof = 1;
        have += got;
        r->end = r->buf + have;
    }
    return AVK_OK;
}

/* One source call appending to the buffer (after moving the unread bytes
 * to the front): used where any progress lets the caller retry, so a read
 * never waits for, or fails on, bytes it does not need. */
static avk_status refill_some(avk_reader *r, avk_error *err)
{
    size_t have = (size_t)(r->end - r->pos);
    if (have == r->cap || r->at_eof)
        return AVK_OK;
    return refill(r, have + 1, err);
}

/* TRUNCATED for a read of want bytes that began at offset start. */
static avk_status truncated(uint64_t start, uint64_t want, avk_error *err)
{
    return avki_error_set(err, AVK_ERR_TRUNCATED, start,
                          "input ends before the %llu bytes wanted at offset %llu",
                          (unsigned long long)want, (unsigned long long)start);
}

avk_status avk_reader_fill(avk_reader *r, size_t n, avk_error *err)
{
    if ((size_t)(r->end - r->pos) >= n)
        return AVK_OK;
    if (r->source && n > r->cap)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, avk_reader_offset(r),
                              "cannot buffer %zu bytes in a %zu-byte reader buffer", n, r->cap);
    AVK_TRY(refill(r, n, err));
    if ((size_t)(r->end - r->pos) >= n)
        return AVK_OK;
    return truncated(avk_reader_offset(r), n, err);
}

avk_status avk_reader_at_end(avk_reader *r, int *at_end, avk_error *err)
{
    if (r->pos == r->end)
        AVK_TRY(refill(r, 1, err));
    *at_end = r->pos == r->end;
    return AVK_OK;
}

/* Shared slow path of the varint reads: decode with what is buffered,
 * refill when the varint may continue past the buffer. The inline read came
 * here because fewer than 10 bytes were buffered or the value did not
 * decode; a value that ends within what is buffered decodes now, so a read
 * never waits for bytes past its own (an interactive stream must not block
 * on the next value's bytes). Refilling adds one source call's worth and
 * tries again. */
static avk_status read_varint_slow(avk_reader *r, int is_int, uint64_t *out, avk_error *err)
{
    for (;;) {
        size_t avail = (size_t)(r->end - r->pos);
        size_t k;
        if (is_int) {
            uint32_t u32;
            k = avk_varint_decode_u32_slow(r->pos, avail, &u32);
            *out = u32;
        } else {
            k = avk_varint_decode_u64_slow(r->pos, avail, out);
        }
        if (k) {
            r->pos += k;
            return AVK_OK;
        }
        /* A varint that does not decode from its longest possible length
         * (5 bytes for an int) is malformed: no need to wait for more. */
        if (avail >= (is_int ? AVK_VARINT_INT_MAX : AVK_VARINT_LONG_MAX) || !r->source || r->at_eof)
            return avki_varint_failure(r->pos, avail, is_int, avk_reader_offset(r), err);
        AVK_TRY(refill_some(r, err));
    }
}

avk_status avk_reader_read_long_slow(avk_reader *r, int64_t *out, avk_error *err)
{
    uint64_t u;
    AVK_TRY(read_varint_slow(r, 0, &u, err));
    *out = avk_zigzag_decode64(u);
    return AVK_OK;
}

avk_status avk_reader_read_int_slow(avk_reader *r, int32_t *out, avk_error *err)
{
    uint64_t u;
    AVK_TRY(read_varint_slow(r, 1, &u, err));
    *out = avk_zigzag_decode32((uint32_t)u);
    return AVK_OK;
}

avk_status avk_reader_read_raw_slow(avk_reader *r, void *dst, size_t n, avk_error *err)
{
    uint8_t *d = (uint8_t *)dst;
    uint64_t start = avk_reader_offset(r), want = n;
    size_t avail = (size_t)(r->end - r->pos);
    if (avail >= n) { /* callable directly, not only from the inline read */
        memcpy(d, r->pos, n);
        r->pos += n;
        return AVK_OK;
    }
    if (!r->source)
        return truncated(start, want, err);
    /* Take what is buffered, then read large remainders straight into dst:
     * through the buffer they would be copied twice for nothing. Bytes read
     * that way never pass pos, so base_offset moves by them instead. */
    memcpy(d, r->pos, avail);
    r->pos += avail;
    d += avail;
    n -= avail;
    while (n > 0) {
        if (r->at_eof)
            return truncated(start, want, err);
        if (n >= r->cap) {
            size_t got = 0;
            AVK_TRY(r->source(r->source_ctx, d, n, &got, err));
            if (got > n)
                return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, avk_reader_offset(r),
                                      "reader source returned %zu bytes for a %zu-byte request",
                                      got, n);
            if (got == 0)
                r->at_eof = 1;
            r->base_offset += got;
            d += got;
            n -= got;
        } else {
            size_t take;
            AVK_TRY(refill(r, n, err));
            take = (size_t)(r->end - r->pos);
            if (take > n)
                take = n;
            memcpy(d, r->pos, take);
            r->pos += take;
            d += take;
            n -= take;
        }
    }
    return AVK_OK;
}

avk_status avk_reader_read_boolean(avk_reader *r, int *out, avk_error *err)
{
    uint8_t b;
    AVK_TRY(avk_reader_read_raw(r, &b, 1, err));
    if (AVK_UNLIKELY(b > 1))
        return avki_error_set(err, AVK_ERR_MALFORMED, avk_reader_offset(r) - 1,
                              "boolean byte is 0x%02x, expected 0 or 1", b);
    *out = b;
    return AVK_OK;
}

avk_status avk_reader_skip(avk_reader *r, uint64_t n, avk_error *err)
{
    uint64_t start = avk_reader_offset(r), want = n;
    for (;;) {
        size_t avail = (size_t)(r->end - r->pos);
        if (n <= avail) {
            r->pos += n;
            return AVK_OK;
        }
        if (!r->source || r->at_eof)
            return truncated(start, want, err);
        r->pos += avail;
        n -= avail;
        AVK_TRY(refill(r, 1, err));
    }
}

/* Bulk read loop shared by longs and ints: the kernel decodes what is
 * buffered; a stop at the buffer's end refills, a stop elsewhere is bad data.
 * The kernel cannot tell a value cut by the end of the buffer from a bad
 * one; the loop can: a stop with fewer than the type's longest encoding
 * left, on a stream that may have more, is a cut. Values decoded before
 * the stop stay decoded (*done counts them across rounds), so a refill only
 * costs the one value that straddled the buffer's end. */
#define READ_BULK(r, out, n, done_, err, fn, is_int)                                       \
    do {                                                                                   \
        const avki_kernels *k_ = (const avki_kernels *)(r)->kernels;                        \
        *(done_) = 0;                                                                      \
        for (;;) {                                                                         \
            size_t consumed_ = 0, avail_ = (size_t)((r)->end - (r)->pos);                  \
            *(done_) += k_->fn((r)->pos, avail_, (out) + *(done_), (n) - *(done_), &consumed_); \
            (r)->pos += consumed_;                                                         \
            if (*(done_) == (n))                                                           \
                return AVK_OK;                                                             \
            avail_ = (size_t)((r)->end - (r)->pos);                                        \
            if (avail_ >= (is_int ? AVK_VARINT_INT_MAX : AVK_VARINT_LONG_MAX) ||             \
                !(r)->source || (r)->at_eof)                                               \
                return avki_varint_failure((r)->pos, avail_, is_int, avk_reader_offset(r), \
                                           err);                                           \
            AVK_TRY(refill_some((r), (err)));                                              \
        }                                                                                  \
    } while (0)

avk_status avki_reader_read_longs_counted(avk_reader *r, int64_t *out, size_t n, size_t *done,
                                          avk_error *err)
{
    READ_BULK(r, out, n, done, err, decode_longs, 0);
}

avk_status avki_reader_read_ints_counted(avk_reader *r, int32_t *out, size_t n, size_t *done,
                                         avk_error *err)
{
    READ_BULK(r, out, n, done, err, decode_ints, 1);
}

avk_status avk_reader_read_longs(avk_reader *r, int64_t *out, size_t n, avk_error *err)
{
    size_t done;
    return avki_reader_read_longs_counted(r, out, n, &done, err);
}

avk_status avk_reader_read_ints(avk_reader *r, int32_t *out, size_t n, avk_error *err)
{
    size_t done;
    return avki_reader_read_ints_counted(r, out, n, &done, err);
}
