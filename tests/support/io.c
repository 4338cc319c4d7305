/* Memory-backed sources and sinks with short reads and injected errors. */
#include "io.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void avkt_source_init(avkt_source *s, const void *data, size_t len, size_t max_per_read)
{
    memset(s, 0, sizeof *s);
    s->data = (const uint8_t *)data;
    s->len = len;
    s->max_per_read = max_per_read;
    s->error_after = SIZE_MAX;
    s->error_status = AVK_ERR_IO;
}

void avkt_source_init_failing(avkt_source *s, const void *data, size_t len,
                              size_t max_per_read, size_t error_after, avk_status status)
{
    avkt_source_init(s, data, len, max_per_read);
    s->error_after = error_after;
    s->error_status = status;
}

static void fill_error(avk_error *err, avk_status st, uint64_t offset)
{
    if (!err)
        return;
    avk_error_clear(err);
    err->status = st;
    err->sys_errno = st == AVK_ERR_IO ? EIO : 0;
    err->offset = offset;
    snprintf(err->message, sizeof err->message, "test source failed after %llu bytes",
             (unsigned long long)offset);
}

avk_status avkt_source_read(void *ctx, void *buf, size_t cap, size_t *got, avk_error *err)
{
    avkt_source *s = (avkt_source *)ctx;
    size_t n = s->len - s->pos;
    s->calls++;
    if (cap > s->max_cap)
        s->max_cap = cap;
    if (s->error_after != SIZE_MAX && s->pos >= s->error_after) {
        s->error_calls++;
        *got = 0;
        fill_error(err, s->error_status, s->pos);
        return s->error_status;
    }
    if (n > cap)
        n = cap;
    if (s->max_per_read && n > s->max_per_read)
        n = s->max_per_read;
    if (s->error_after != SIZE_MAX && n > s->error_after - s->pos)
        n = s->error_after - s->pos;
    if (n)
        memcpy(buf, s->data + s->pos, n);
    s->pos += n;
    if (n == 0)
        s->eof_calls++;
    *got = n + s->extra;
    return AVK_OK;
}

void avkt_sink_init(avkt_sink *s)
{
    memset(s, 0, sizeof *s);
    s->error_after = SIZE_MAX;
    s->error_status = AVK_ERR_IO;
}

void avkt_sink_init_failing(avkt_sink *s, size_t error_after, avk_status status)
{
    avkt_sink_init(s);
    s->error_after = error_after;
    s->error_status = status;
}

void avkt_sink_destroy(avkt_sink *s)
{
    free(s->data);
    s->data = NULL;
    s->len = s->cap = 0;
}

avk_status avkt_sink_write(void *ctx, const void *data, size_t len, avk_error *err)
{
    avkt_sink *s = (avkt_sink *)ctx;
    if (s->calls < AVKT_SINK_MAX_CALLS)
        s->call_sizes[s->calls] = len;
    s->calls++;
    if (s->error_after != SIZE_MAX && len > s->error_after - s->len) {
        s->error_calls++;
        fill_error(err, s->error_status, s->len);
        return s->error_status;
    }
    if (s->len + len > s->cap) {
        size_t cap = s->cap ? s->cap : 256;
        uint8_t *nd;
        while (cap < s->len + len)
            cap *= 2;
        nd = (uint8_t *)realloc(s->data, cap);
        if (!nd)
            abort(); /* test infrastructure: cannot go on */
        s->data = nd;
        s->cap = cap;
    }
    memcpy(s->data + s->len, data, len);
    s->len += len;
    return AVK_OK;
}
