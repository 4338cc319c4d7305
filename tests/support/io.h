/* Test sources and sinks: memory-backed callbacks with short reads and injected errors. */
#ifndef AVKT_IO_H
#define AVKT_IO_H

#include <stddef.h>
#include <stdint.h>

#include "avrokit/reader.h"
#include "avrokit/writer.h"

/* A source over data[0..len) for avk_reader_init_source with
 * avkt_source_read. Each call returns at most max_per_read bytes (0: as
 * many as fit). Once error_after bytes have been delivered, the next call
 * fails with error_status (filling err with sys_errno EIO for AVK_ERR_IO)
 * instead; SIZE_MAX: never. */
typedef struct avkt_source {
    const uint8_t *data;
    size_t len;
    size_t pos;
    size_t max_per_read;
    size_t error_after;
    avk_status error_status;
    long calls;       /* every call */
    long eof_calls;   /* calls that reported end of stream */
    long error_calls; /* calls that returned the injected error */
    size_t extra;     /* added to *got: a misbehaving source (default 0) */
    size_t max_cap;   /* the largest cap any call was given */
} avkt_source;

/* A source returning at most max_per_read bytes a call (0: no limit). */
void avkt_source_init(avkt_source *s, const void *data, size_t len, size_t max_per_read);

/* As avkt_source_init, failing with status once error_after bytes went out. */
void avkt_source_init_failing(avkt_source *s, const void *data, size_t len,
                              size_t max_per_read, size_t error_after, avk_status status);

avk_status avkt_source_read(void *ctx, void *buf, size_t cap, size_t *got, avk_error *err);

#define AVKT_SINK_MAX_CALLS 4096

/* A sink that appends to a growing malloc'd buffer (free with
 * avkt_sink_destroy) and records the size of every call. When error_after
 * is not SIZE_MAX, a call that would take the total past error_after
 * fails with error_status and takes nothing. */
typedef struct avkt_sink {
    uint8_t *data;
    size_t len;
    size_t cap;
    size_t error_after;
    avk_status error_status;
    long calls;
    long error_calls;
    size_t call_sizes[AVKT_SINK_MAX_CALLS]; /* first calls only */
} avkt_sink;

void avkt_sink_init(avkt_sink *s);
void avkt_sink_init_failing(avkt_sink *s, size_t error_after, avk_status status);
void avkt_sink_destroy(avkt_sink *s);
avk_status avkt_sink_write(void *ctx, const void *data, size_t len, avk_error *err);

#endif
