/* Writers: Avro primitives into a growable memory buffer or a buffered stream. */
#ifndef AVROKIT_WRITER_H
#define AVROKIT_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "avrokit/alloc.h"
#include "avrokit/macros.h"
#include "avrokit/status.h"
#include "avrokit/varint.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A stream sink: consume all len bytes of data or return an error status. */
typedef avk_status (*avk_sink_fn)(void *ctx, const void *data, size_t len, avk_error *err);

typedef struct avk_writer_options {
    size_t struct_size;   /* sizeof(avk_writer_options) */
    size_t buffer_size;   /* initial memory / stream buffer; 0 means 64 KiB */
    size_t max_size;      /* memory writer: largest buffer; 0 means SIZE_MAX/2 */
    const avk_allocator *allocator; /* NULL means the C library */
    const char *name;     /* fd and stdio writers: what error messages call
                             the output ("write to out.avro failed"); copied,
                             so it may be freed after init. NULL: "file
                             descriptor N" / "stdio stream". Ignored by memory
                             writers. Callers built before this field pass
                             offsetof(avk_writer_options, name) as
                             struct_size: accepted, NULL. */
} avk_writer_options;

/* Sets every field of *o to its default (zero: the library's defaults) and
 * struct_size to sizeof *o as this header defines it. Inline, so the size
 * is the caller's: the idiom that compiles without warnings:
 *
 *     avk_writer_options o;
 *     avk_writer_options_init(&o);
 */
static inline void avk_writer_options_init(avk_writer_options *o)
{
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
}

/* The writer lives in caller storage. Only pos and end may be read by
 * callers (the free space of the buffer); the rest is private. */
typedef struct avk_writer {
    uint8_t *pos; /* next free byte */
    uint8_t *end; /* one past the last free byte */
    /* private */
    uint8_t *buf;
    size_t cap;
    size_t max_size;
    uint64_t flushed; /* bytes handed to the sink so far */
    avk_sink_fn sink; /* NULL for a memory writer */
    void *sink_ctx;
    avk_allocator alloc;
    int fd;
    FILE *fp;
    const void *kernels; /* bulk kernels, copied at creation */
} avk_writer;

/* A growable memory writer. Returns AVK_OK, AVK_ERR_NO_MEMORY or
 * AVK_ERR_INVALID_ARGUMENT. opts may be NULL. */
AVK_EXPORT avk_status avk_writer_init_memory(avk_writer *w, const avk_writer_options *opts,
                                             avk_error *err);

/* Buffered writers over a file descriptor, a stdio stream (neither is
 * closed) or a callback. Bytes reach the destination when the buffer fills
 * and on avk_writer_flush. */
AVK_EXPORT avk_status avk_writer_init_fd(avk_writer *w, int fd, const avk_writer_options *opts,
                                         avk_error *err);
AVK_EXPORT avk_status avk_writer_init_file(avk_writer *w, FILE *fp, const avk_writer_options *opts,
                                           avk_error *err);
AVK_EXPORT avk_status avk_writer_init_sink(avk_writer *w, avk_sink_fn sink, void *ctx,
                                           const avk_writer_options *opts, avk_error *err);

/* Frees the buffer without flushing: call avk_writer_flush first for a
 * stream. Safe on a zeroed writer, and twice. */
AVK_EXPORT void avk_writer_destroy(avk_writer *w);

/* Memory writer: the bytes written so far; valid until the next write,
 * reset or destroy. For a stream writer, the bytes not yet flushed. */
AVK_INLINE const uint8_t *avk_writer_data(const avk_writer *w, size_t *len)
{
    *len = (size_t)(w->pos - w->buf);
    return w->buf;
}

/* Memory writer: forget the contents, keep the buffer. */
AVK_INLINE void avk_writer_reset(avk_writer *w)
{
    w->pos = w->buf;
}

/* Total bytes written, flushed or not. */
AVK_INLINE uint64_t avk_writer_offset(const avk_writer *w)
{
    return w->flushed + (uint64_t)(w->pos - w->buf);
}

/* Stream writer: hand every buffered byte to the destination (and fflush a
 * stdio stream). A memory writer has nothing to flush. Returns AVK_OK or the
 * sink's status.
 *
 * After an error: a memory writer keeps what it had; a stream writer's
 * destination holds a prefix of what was written (a sink that fails midway
 * may have taken part of a flush; a retried flush sends the buffer again),
 * so treat the stream as broken. */
AVK_EXPORT avk_status avk_writer_flush(avk_writer *w, avk_error *err);

/* Makes at least n bytes free at w->pos: grows a memory writer (up to
 * max_size: AVK_ERR_LIMIT beyond it), flushes a stream writer. For a stream
 * n may not exceed the buffer size (AVK_ERR_INVALID_ARGUMENT). */
AVK_EXPORT avk_status avk_writer_reserve(avk_writer *w, size_t n, avk_error *err);

/* Slow path of avk_writer_write_long (buffer full or near max_size). */
AVK_EXPORT avk_status avk_writer_write_long_slow(avk_writer *w, int64_t v, avk_error *err);

/* Writes one long (int) as a zigzag varint. Returns AVK_OK, AVK_ERR_LIMIT
 * (memory writer past max_size), AVK_ERR_NO_MEMORY or the sink's status. */
AVK_INLINE avk_status avk_writer_write_long(avk_writer *w, int64_t v, avk_error *err)
{
    if (AVK_UNLIKELY(w->end - w->pos < AVK_VARINT_LONG_MAX))
        return avk_writer_write_long_slow(w, v, err);
    w->pos += avk_varint_encode_long(w->pos, v);
    return AVK_OK;
}

AVK_INLINE avk_status avk_writer_write_int(avk_writer *w, int32_t v, avk_error *err)
{
    return avk_writer_write_long(w, (int64_t)v, err);
}

/* Copies n raw bytes (any n). */
AVK_EXPORT avk_status avk_writer_write_raw_slow(avk_writer *w, const void *src, size_t n,
                                                avk_error *err);

AVK_INLINE avk_status avk_writer_write_raw(avk_writer *w, const void *src, size_t n, avk_error *err)
{
    if (AVK_LIKELY((size_t)(w->end - w->pos) >= n)) {
        memcpy(w->pos, src, n);
        w->pos += n;
        return AVK_OK;
    }
    return avk_writer_write_raw_slow(w, src, n, err);
}

AVK_INLINE avk_status avk_writer_write_float(avk_writer *w, float v, avk_error *err)
{
    return avk_writer_write_raw(w, &v, sizeof v, err);
}

AVK_INLINE avk_status avk_writer_write_double(avk_writer *w, double v, avk_error *err)
{
    return avk_writer_write_raw(w, &v, sizeof v, err);
}

AVK_INLINE avk_status avk_writer_write_boolean(avk_writer *w, int v, avk_error *err)
{
    uint8_t b = v ? 1 : 0;
    return avk_writer_write_raw(w, &b, 1, err);
}

/* Bulk writes through the bulk varint kernel. A memory writer that would
 * pass max_size returns AVK_ERR_LIMIT with nothing of the call written. */
AVK_EXPORT avk_status avk_writer_write_longs(avk_writer *w, const int64_t *in, size_t n,
                                             avk_error *err);
AVK_EXPORT avk_status avk_writer_write_ints(avk_writer *w, const int32_t *in, size_t n,
                                            avk_error *err);

#ifdef __cplusplus
}
#endif
#endif
