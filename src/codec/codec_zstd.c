/* The zstandard codec through libzstd: one-shot when frames state their size, streaming and bounded otherwise. */
/* ZSTD_createCCtx_advanced and ZSTD_customMem (contexts on the caller's
 * allocator) are in zstd.h's static-linking section; libzstd exports them
 * from the shared library too, and they have been stable since 1.0. */
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>
#include <zstd_errors.h>

#include "codec/codec_internal.h"
#include "common/error.h"

static void *zstd_alloc(void *opaque, size_t size)
{
    return avki_codec_lib_alloc((avk_allocator *)opaque, size);
}

static void zstd_free(void *opaque, void *p)
{
    avki_codec_lib_free((avk_allocator *)opaque, p);
}

static ZSTD_customMem custom_mem(avki_codec_state *s)
{
    ZSTD_customMem m;
    m.customAlloc = zstd_alloc;
    m.customFree = zstd_free;
    m.opaque = &s->alloc;
    return m;
}

void avki_zstd_state_free(avki_codec_state *s)
{
    ZSTD_freeCCtx(s->zstd_c); /* NULL is fine */
    ZSTD_freeDCtx(s->zstd_d);
    s->zstd_c = NULL;
    s->zstd_d = NULL;
}

avk_status avki_zstd_compress(avki_codec_state *s, int level, const uint8_t *in, size_t len,
                              avk_buffer *out, avk_error *err)
{
    size_t bound, n;
    if (level == 0)
        level = ZSTD_CLEVEL_DEFAULT;
    if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel())
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "zstandard level %d is not within %d to %d", level, ZSTD_minCLevel(),
                              ZSTD_maxCLevel());
    bound = ZSTD_compressBound(len);
    if (ZSTD_isError(bound))
        return avki_error_set(err, AVK_ERR_LIMIT, AVK_OFFSET_UNKNOWN,
                              "zstandard cannot compress %zu bytes in one block", len);
    AVK_TRY(avki_buffer_reserve(out, bound, 0, err));
    if (!s->zstd_c) {
        s->zstd_c = ZSTD_createCCtx_advanced(custom_mem(s));
        if (!s->zstd_c)
            return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                                  "out of memory for a zstandard compressor");
    }
    /* Like ZSTD_compress, ZSTD_compressCCtx (which resets the context's
     * parameters to the level's) writes the content size into the frame,
     * so readers (ours included) can check it against their limit before
     * allocating. */
    n = ZSTD_compressCCtx(s->zstd_c, out->data, out->cap, in, len, level);
    if (ZSTD_isError(n)) {
        if (ZSTD_getErrorCode(n) == ZSTD_error_memory_allocation)
            return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                                  "out of memory in zstandard compression");
        return avki_error_set(err, AVK_ERR_CODEC, AVK_OFFSET_UNKNOWN,
                              "zstandard compression failed: %s", ZSTD_getErrorName(n));
    }
    out->len = n;
    return AVK_OK;
}

static avk_status zstd_fail(avk_error *err, size_t code)
{
    if (ZSTD_getErrorCode(code) == ZSTD_error_memory_allocation)
        return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                              "out of memory in zstandard decompression");
    if (ZSTD_getErrorCode(code) == ZSTD_error_frameParameter_windowTooLarge)
        return avki_error_set(err, AVK_ERR_LIMIT, AVK_OFFSET_UNKNOWN,
                              "zstandard frame needs a larger window than allowed: %s",
                              ZSTD_getErrorName(code));
    return avki_error_set(err, AVK_ERR_CODEC, AVK_OFFSET_UNKNOWN, "corrupt zstandard block: %s",
                          ZSTD_getErrorName(code));
}

/* The sum of the content sizes of every frame in the block, when all state
 * it and it fits in size_t; else 0 with *known = 0. */
static size_t total_content_size(const uint8_t *in, size_t len, int *known)
{
    size_t total = 0;
    *known = 0;
    while (len > 0) {
        unsigned long long sz = ZSTD_getFrameContentSize(in, len);
        size_t fl;
        if (sz == ZSTD_CONTENTSIZE_UNKNOWN || sz == ZSTD_CONTENTSIZE_ERROR || sz > SIZE_MAX - total)
            return 0;
        fl = ZSTD_findFrameCompressedSize(in, len);
        if (ZSTD_isError(fl))
            return 0;
        total += (size_t)sz;
        in += fl;
        len -= fl;
    }
    *known = 1;
    return total;
}

avk_status avki_zstd_decompress(avki_codec_state *s, const uint8_t *in, size_t len,
                                size_t max_out, avk_buffer *out, avk_error *err)
{
    ZSTD_DCtx *d;
    ZSTD_inBuffer ib;
    ZSTD_outBuffer ob;
    size_t total, r, limit, last = 1;
    int known, wlog;
    avk_status st = AVK_OK;

    if (len == 0)
        return avki_error_set(err, AVK_ERR_CODEC, AVK_OFFSET_UNKNOWN,
                              "empty zstandard block (no frame)");
    total = total_content_size(in, len, &known);
    if (known && total > max_out)
        return avki_error_set(err, AVK_ERR_LIMIT, AVK_OFFSET_UNKNOWN,
                              "zstandard block claims %zu bytes, more than the %zu-byte limit",
                              total, max_out);
    if (!s->zstd_d) {
        s->zstd_d = ZSTD_createDCtx_advanced(custom_mem(s));
        if (!s->zstd_d)
            return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                                  "out of memory for a zstandard decompressor");
    }
    d = s->zstd_d;
    /* A kept context may hold a half-read stream and the last block's
     * window limit: start clean. */
    ZSTD_DCtx_reset(d, ZSTD_reset_session_and_parameters);
    if (known) {
        /* One shot into exactly the stated size: no window buffer. */
        st = avki_buffer_reserve(out, total ? total : 1, 0, err);
        if (st == AVK_OK) {
            r = ZSTD_decompressDCtx(d, out->data, total, in, len);
            if (ZSTD_isError(r))
                st = zstd_fail(err, r);
            else
                out->len = r;
        }
        return st;
    }
    /* Streaming. The window never needs to exceed what we may output, but
     * encoders that do not know the size (Avro Java's stream) declare their
     * level's window: allow at least 2^23 (levels up to 19), at most 2^27. */
    for (wlog = 23; wlog < 27 && ((size_t)1 << wlog) < max_out; wlog++)
        ;
    r = ZSTD_DCtx_setParameter(d, ZSTD_d_windowLogMax, wlog);
    if (ZSTD_isError(r))
        return zstd_fail(err, r);
    limit = max_out > SIZE_MAX - AVKI_CODEC_SLACK ? SIZE_MAX : max_out + AVKI_CODEC_SLACK;
    out->len = 0;
    ib.src = in;
    ib.size = len;
    ib.pos = 0;
    for (;;) {
        if (out->len == out->cap) {
            st = avki_buffer_grow_bounded(out, limit, err);
            if (st == AVK_ERR_LIMIT)
                st = avki_error_set(err, AVK_ERR_LIMIT, AVK_OFFSET_UNKNOWN,
                                    "zstandard block decompresses to more than the %zu-byte limit",
                                    max_out);
            if (st != AVK_OK)
                break;
        }
        ob.dst = out->data;
        ob.size = out->cap;
        ob.pos = out->len;
        last = ZSTD_decompressStream(d, &ob, &ib);
        out->len = ob.pos;
        if (ZSTD_isError(last)) {
            st = zstd_fail(err, last);
            break;
        }
        if (out->len > max_out) {
            st = avki_error_set(err, AVK_ERR_LIMIT, AVK_OFFSET_UNKNOWN,
                                "zstandard block decompresses to more than the %zu-byte limit",
                                max_out);
            break;
        }
        if (last == 0 && ib.pos == ib.size)
            break; /* every frame decoded and flushed */
        if (ib.pos == ib.size && ob.pos < ob.size) {
            /* All input consumed and room left: done, or truncated. */
            if (last != 0)
                st = avki_error_set(err, AVK_ERR_CODEC, AVK_OFFSET_UNKNOWN,
                                    "truncated zstandard block (%zu bytes)", len);
            break;
        }
    }
    return st;
}
