/* The bzip2 codec through libbz2, streaming in both directions so the output stays bounded. */
#include <bzlib.h>
#include <limits.h>

#include "codec/codec_internal.h"
#include "common/error.h"

/* libbz2 counts in unsigned int: feed and drain it in pieces this large. */
#define CHUNK_MAX ((size_t)UINT_MAX)

static void *bz_alloc(void *opaque, int n, int m)
{
    if (n < 0 || m < 0 || (m && (size_t)n > SIZE_MAX / (size_t)m))
        return NULL;
    return avki_codec_lib_alloc((avk_allocator *)opaque, (size_t)n * (size_t)m);
}

static void bz_free(void *opaque, void *p)
{
    avki_codec_lib_free((avk_allocator *)opaque, p);
}

static void stream_init(bz_stream *s, avk_buffer *out)
{
    s->bzalloc = bz_alloc;
    s->bzfree = bz_free;
    s->opaque = &out->alloc;
    s->next_in = NULL;
    s->avail_in = 0;
    s->next_out = NULL;
    s->avail_out = 0;
}

/* Points the stream at in[*done..len) and out->data[out->len..out->cap). */
static void feed(bz_stream *s, const uint8_t *in, size_t len, size_t *done, avk_buffer *out)
{
    size_t rest_in = len - *done, rest_out = out->cap - out->len;
    s->next_in = (char *)(uintptr_t)(in + *done); /* libbz2 never writes the input */
    s->avail_in = (unsigned)(rest_in > CHUNK_MAX ? CHUNK_MAX : rest_in);
    s->next_out = (char *)(out->data + out->len);
    s->avail_out = (unsigned)(rest_out > CHUNK_MAX ? CHUNK_MAX : rest_out);
}

/* Takes back what the last call consumed and produced. */
static void drain(const bz_stream *s, const uint8_t *in, size_t *done, avk_buffer *out)
{
    *done = (size_t)((const uint8_t *)s->next_in - in);
    out->len = (size_t)((uint8_t *)s->next_out - out->data);
}

avk_status avki_bzip2_compress(int level, const uint8_t *in, size_t len, avk_buffer *out,
                               avk_error *err)
{
    bz_stream s;
    size_t done = 0;
    int r;
    avk_status st = AVK_OK;
    if (level == 0)
        level = 9; /* bzip2's own default, as Avro Java and Python use */
    if (level < 1 || level > 9)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "bzip2 level %d is not within 1-9", level);
    /* bzip2 expands incompressible data by about 1%, plus a header. */
    AVK_TRY(avki_buffer_reserve(out, len + len / 64 + 1024, 0, err));
    out->len = 0;
    stream_init(&s, out);
    r = BZ2_bzCompressInit(&s, level, 0, 0);
    if (r != BZ_OK)
        return avki_error_set(err, r == BZ_MEM_ERROR ? AVK_ERR_NO_MEMORY : AVK_ERR_CODEC,
                              AVK_OFFSET_UNKNOWN, "bzip2 compressor setup failed (%d)", r);
    for (;;) {
        if (out->len == out->cap) {
            st = avki_buffer_grow_bounded(out, SIZE_MAX, err);
            if (st != AVK_OK)
                break;
        }
        feed(&s, in, len, &done, out);
        r = BZ2_bzCompress(&s, len - done > s.avail_in ? BZ_RUN : BZ_FINISH);
        drain(&s, in, &done, out);
        if (r == BZ_STREAM_END)
            break;
        if (r != BZ_RUN_OK && r != BZ_FINISH_OK) {
            st = avki_error_set(err, AVK_ERR_CODEC, AVK_OFFSET_UNKNOWN,
                                "bzip2 compression failed (%d)", r);
            break;
        }
    }
    BZ2_bzCompressEnd(&s);
    return st;
}

avk_status avki_bzip2_decompress(const uint8_t *in, size_t len, size_t max_out,
                                 avk_buffer *out, avk_error *err)
{
    bz_stream s;
    size_t done = 0, limit;
    int r;
    avk_status st = AVK_OK;
    limit = max_out > SIZE_MAX - AVKI_CODEC_SLACK ? SIZE_MAX : max_out + AVKI_CODEC_SLACK;
    out->len = 0;
    stream_init(&s, out);
    r = BZ2_bzDecompressInit(&s, 0, 0);
    if (r != BZ_OK)
        return avki_error_set(err, r == BZ_MEM_ERROR ? AVK_ERR_NO_MEMORY : AVK_ERR_CODEC,
                              AVK_OFFSET_UNKNOWN, "bzip2 decompressor setup failed (%d)", r);
    for (;;) {
        if (out->len == out->cap) {
            st = avki_buffer_grow_bounded(out, limit, err);
            if (st == AVK_ERR_LIMIT)
                st = avki_error_set(err, AVK_ERR_LIMIT, AVK_OFFSET_UNKNOWN,
                                    "bzip2 block decompresses to more than the %zu-byte limit",
                                    max_out);
            if (st != AVK_OK)
                break;
        }
        feed(&s, in, len, &done, out);
        r = BZ2_bzDecompress(&s);
        drain(&s, in, &done, out);
        if (out->len > max_out) {
            st = avki_error_set(err, AVK_ERR_LIMIT, AVK_OFFSET_UNKNOWN,
                                "bzip2 block decompresses to more than the %zu-byte limit",
                                max_out);
            break;
        }
        if (r == BZ_STREAM_END) {
            if (done != len)
                st = avki_error_set(err, AVK_ERR_CODEC, AVK_OFFSET_UNKNOWN,
                                    "%zu bytes after the end of the bzip2 stream", len - done);
            break;
        }
        if (r == BZ_MEM_ERROR) {
            st = avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                                "out of memory in bzip2 decompression");
            break;
        }
        if (r != BZ_OK) {
            st = avki_error_set(err, AVK_ERR_CODEC, AVK_OFFSET_UNKNOWN,
                                "corrupt bzip2 block (%s)",
                                r == BZ_DATA_ERROR_MAGIC ? "bad magic" : "bad data");
            break;
        }
        if (done == len && out->len < out->cap) {
            /* All input consumed, room left, and the stream has not ended. */
            st = avki_error_set(err, AVK_ERR_CODEC, AVK_OFFSET_UNKNOWN,
                                "truncated bzip2 block (%zu bytes)", len);
            break;
        }
    }
    BZ2_bzDecompressEnd(&s);
    return st;
}
