/* Readers: Avro primitives from a memory slice or a buffered stream, decoded straight out of the buffer. */
#ifndef AVROKIT_READER_H
#define AVROKIT_READER_H

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

/* A stream source: copy up to cap bytes into buf and set *got (never more
 * than cap: a source that writes past cap breaks this contract and memory).
 * *got == 0 with AVK_OK means end of stream. Any other status is passed on
 * to the caller of the read (fill err when not NULL).
 *
 * After a read fails, the reader's position is unspecified (a stream reader
 * may have consumed input); the error's offset is where the failed read
 * began. */
typedef avk_status (*avk_source_fn)(void *ctx, void *buf, size_t cap,
                                    size_t *got, avk_error *err);

typedef struct avk_reader_options {
    size_t struct_size;   /* sizeof(avk_reader_options) */
    size_t buffer_size;   /* stream buffer bytes; 0 means 64 KiB, at least 64 */
    const avk_allocator *allocator; /* NULL means the C library */
    const char *name;     /* fd and stdio readers: what error messages call
                             the input ("read from data.avro failed"); copied,
                             so it may be freed after init. NULL: "file
                             descriptor N" / "stdio stream". Callers built
                             before this field pass offsetof(avk_reader_options,
                             name) as struct_size: accepted, NULL. */
} avk_reader_options;

/* Sets every field of *o to its default (zero: the library's defaults) and
 * struct_size to sizeof *o as this header defines it. Inline, so the size
 * is the caller's: the idiom that compiles without warnings:
 *
 *     avk_reader_options o;
 *     avk_reader_options_init(&o);
 */
static inline void avk_reader_options_init(avk_reader_options *o)
{
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
}

/* The reader lives in caller storage. Only pos and end may be read by
 * callers (the unread bytes of the buffer); the rest is private. */
typedef struct avk_reader {
    const uint8_t *pos; /* next unread byte */
    const uint8_t *end; /* one past the last buffered byte */
    /* private */
    const uint8_t *base;  /* start of the window pos moves in */
    uint64_t base_offset; /* stream offset of base */
    uint8_t *buf;
    size_t cap;
    avk_source_fn source; /* NULL for a memory reader */
    void *source_ctx;
    avk_allocator alloc;
    int fd;
    FILE *fp;
    const void *kernels; /* bulk kernels, copied at creation */
    int at_eof; /* the source said end of stream */
} avk_reader;

/* A reader over data[0..len), which must outlive the reader. Allocates
 * nothing; destroy is optional. */
AVK_EXPORT void avk_reader_init_memory(avk_reader *r, const void *data, size_t len);

/* A buffered reader over a file descriptor (not closed by destroy). opts
 * may be NULL. Returns AVK_OK, AVK_ERR_NO_MEMORY or AVK_ERR_INVALID_ARGUMENT
 * (fd < 0 or a bad options size). I/O errors surface on reads as AVK_ERR_IO
 * with errno in err->sys_errno. */
AVK_EXPORT avk_status avk_reader_init_fd(avk_reader *r, int fd, const avk_reader_options *opts,
                                         avk_error *err);

/* A buffered reader over a stdio stream (not closed by destroy). */
AVK_EXPORT avk_status avk_reader_init_file(avk_reader *r, FILE *fp, const avk_reader_options *opts,
                                           avk_error *err);

/* A buffered reader over a user callback. */
AVK_EXPORT avk_status avk_reader_init_source(avk_reader *r, avk_source_fn source, void *ctx,
                                             const avk_reader_options *opts, avk_error *err);

/* Frees the buffer. Safe on a zeroed or memory reader, and twice. */
AVK_EXPORT void avk_reader_destroy(avk_reader *r);

/* Offset from the start of the input of the next unread byte. */
AVK_INLINE uint64_t avk_reader_offset(const avk_reader *r)
{
    return r->base_offset + (uint64_t)(r->pos - r->base);
}

/* Makes at least n bytes readable at r->pos (n at most the buffer size for
 * stream readers). Returns AVK_OK, AVK_ERR_TRUNCATED when the input ends
 * first, AVK_ERR_IO, or AVK_ERR_INVALID_ARGUMENT for n above the buffer. */
AVK_EXPORT avk_status avk_reader_fill(avk_reader *r, size_t n, avk_error *err);

/* Sets *at_end to 1 when no byte remains (reading more from a stream if
 * needed), else 0. */
AVK_EXPORT avk_status avk_reader_at_end(avk_reader *r, int *at_end, avk_error *err);

/* Slow paths of the inline reads below. */
AVK_EXPORT avk_status avk_reader_read_long_slow(avk_reader *r, int64_t *out, avk_error *err);
AVK_EXPORT avk_status avk_reader_read_int_slow(avk_reader *r, int32_t *out, avk_error *err);

/* Reads one long. Returns AVK_OK, AVK_ERR_TRUNCATED, AVK_ERR_MALFORMED (err
 * gets the offset of the varint) or AVK_ERR_IO. Whenever 10 bytes are
 * buffered it decodes in place with no bounds checks per byte. */
AVK_INLINE avk_status avk_reader_read_long(avk_reader *r, int64_t *out, avk_error *err)
{
    const uint8_t *p = r->pos;
    if (AVK_LIKELY(r->end - p >= AVK_VARINT_LONG_MAX)) {
        size_t n = avk_varint_decode_long(p, AVK_VARINT_LONG_MAX, out);
        if (AVK_LIKELY(n != 0)) {
            r->pos = p + n;
            return AVK_OK;
        }
    }
    return avk_reader_read_long_slow(r, out, err);
}

/* Reads one int (at most 5 bytes). Statuses as avk_reader_read_long. */
AVK_INLINE avk_status avk_reader_read_int(avk_reader *r, int32_t *out, avk_error *err)
{
    const uint8_t *p = r->pos;
    if (AVK_LIKELY(r->end - p >= AVK_VARINT_LONG_MAX)) {
        size_t n = avk_varint_decode_int(p, AVK_VARINT_LONG_MAX, out);
        if (AVK_LIKELY(n != 0)) {
            r->pos = p + n;
            return AVK_OK;
        }
    }
    return avk_reader_read_int_slow(r, out, err);
}

/* Copies n raw bytes to dst (any n: large reads bypass the buffer).
 * Returns AVK_OK, AVK_ERR_TRUNCATED or AVK_ERR_IO. */
AVK_EXPORT avk_status avk_reader_read_raw_slow(avk_reader *r, void *dst, size_t n, avk_error *err);

AVK_INLINE avk_status avk_reader_read_raw(avk_reader *r, void *dst, size_t n, avk_error *err)
{
    if (AVK_LIKELY((size_t)(r->end - r->pos) >= n)) {
        memcpy(dst, r->pos, n);
        r->pos += n;
        return AVK_OK;
    }
    return avk_reader_read_raw_slow(r, dst, n, err);
}

/* Avro float and double: little-endian IEEE 754, 4 and 8 bytes. */
AVK_INLINE avk_status avk_reader_read_float(avk_reader *r, float *out, avk_error *err)
{
    return avk_reader_read_raw(r, out, sizeof *out, err);
}

AVK_INLINE avk_status avk_reader_read_double(avk_reader *r, double *out, avk_error *err)
{
    return avk_reader_read_raw(r, out, sizeof *out, err);
}

/* Avro boolean: one byte, 0 or 1; any other byte is AVK_ERR_MALFORMED. */
AVK_EXPORT avk_status avk_reader_read_boolean(avk_reader *r, int *out, avk_error *err);

/* Skips n bytes. Returns AVK_OK, AVK_ERR_TRUNCATED or AVK_ERR_IO. */
AVK_EXPORT avk_status avk_reader_skip(avk_reader *r, uint64_t n, avk_error *err);

/* Bulk reads: n longs (ints) through the bulk varint kernel, refilling the
 * buffer between runs. Statuses as avk_reader_read_long; on error out holds
 * the values read before the bad one and the reader stands at it. */
AVK_EXPORT avk_status avk_reader_read_longs(avk_reader *r, int64_t *out, size_t n, avk_error *err);
AVK_EXPORT avk_status avk_reader_read_ints(avk_reader *r, int32_t *out, size_t n, avk_error *err);

#ifdef __cplusplus
}
#endif
#endif
