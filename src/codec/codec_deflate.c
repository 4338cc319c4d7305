/* The deflate codec: raw RFC 1951 streams through libdeflate. */
#include <libdeflate.h>

#include "codec/codec_internal.h"
#include "common/error.h"

void avki_deflate_state_free(avki_codec_state *s)
{
    if (s->deflate_c)
        libdeflate_free_compressor(s->deflate_c);
    if (s->deflate_d)
        libdeflate_free_decompressor(s->deflate_d);
    s->deflate_c = NULL;
    s->deflate_d = NULL;
}

avk_status avki_deflate_compress(avki_codec_state *s, int level, const uint8_t *in, size_t len,
                                 avk_buffer *out, avk_error *err)
{
    struct libdeflate_compressor *c;
    size_t bound, n;
    avk_status st;
    if (level == 0)
        level = 6; /* zlib's default, what Avro's other writers use */
    if (level < 1 || level > 12)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "deflate level %d is not within 1-12", level);
    if (s->deflate_c && s->deflate_level != level) {
        libdeflate_free_compressor(s->deflate_c);
        s->deflate_c = NULL;
    }
    if (!s->deflate_c) {
        s->deflate_c = libdeflate_alloc_compressor(level);
        if (!s->deflate_c)
            return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                                  "out of memory for a deflate compressor");
        s->deflate_level = level;
    }
    c = s->deflate_c;
    bound = libdeflate_deflate_compress_bound(c, len);
    st = avki_buffer_reserve(out, bound, 0, err);
    if (st == AVK_OK) {
        n = libdeflate_deflate_compress(c, in, len, out->data, out->cap);
        if (n == 0) /* cannot happen with the bound, but never trust silently */
            st = avki_error_set(err, AVK_ERR_CODEC, AVK_OFFSET_UNKNOWN,
                                "deflate compression of %zu bytes failed", len);
        else
            out->len = n;
    }
    return st;
}

avk_status avki_deflate_decompress(avki_codec_state *s, const uint8_t *in, size_t len,
                                   size_t max_out, avk_buffer *out, avk_error *err)
{
    struct libdeflate_decompressor *d;
    enum libdeflate_result r;
    size_t cap, got = 0;
    avk_status st = AVK_OK;

    if (!s->deflate_d) {
        s->deflate_d = libdeflate_alloc_decompressor();
        if (!s->deflate_d)
            return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                                  "out of memory for a deflate decompressor");
    }
    d = s->deflate_d;
    /* The size is not stored: guess 4x the input, and on
     * INSUFFICIENT_SPACE quadruple and decode again, up to max_out. Only the
     * final try's buffer is kept (free + alloc, no copy). */
    cap = len <= (SIZE_MAX - 4096) / 4 ? len * 4 + 4096 : SIZE_MAX;
    if (out->cap > cap)
        cap = out->cap; /* a reused buffer: use all of it */
    for (;;) {
        size_t try_cap = cap > max_out ? max_out : cap;
        st = avki_buffer_reserve(out, try_cap, 0, err);
        if (st != AVK_OK)
            break;
        r = libdeflate_deflate_decompress(d, in, len, out->data, try_cap, &got);
        if (r == LIBDEFLATE_SUCCESS) {
            out->len = got;
            break;
        }
        if (r == LIBDEFLATE_INSUFFICIENT_SPACE) {
            if (try_cap >= max_out) {
                st = avki_error_set(err, AVK_ERR_LIMIT, AVK_OFFSET_UNKNOWN,
                                    "deflate block decompresses to more than the %zu-byte limit",
                                    max_out);
                break;
            }
            cap = try_cap > SIZE_MAX / 4 ? SIZE_MAX : try_cap * 4;
            continue;
        }
        /* BAD_DATA, and SHORT_OUTPUT (not possible with got given). libdeflate
         * does not tell truncation from corruption. */
        st = avki_error_set(err, AVK_ERR_CODEC, AVK_OFFSET_UNKNOWN,
                            "corrupt or truncated deflate stream (%zu bytes)", len);
        break;
    }
    return st;
}
