/* The codec table: names, the reusable buffer, and dispatch of compress/decompress to each codec. */
#include <string.h>

#include "codec/codec_built.h"
#include "codec/codec_internal.h"
#include "common/alloc_internal.h"
#include "common/error.h"

static const char *const spec_names[AVK_CODEC_COUNT] = {
    "null", "deflate", "snappy", "zstandard", "bzip2", "xz",
};

/* Which codecs this build has (the AVK_WITH_<name> CMake options set
 * AVKI_WITH_<name>), and the option that brings each back. */
static const struct {
    unsigned char built;
    const char *option;
} codec_builds[AVK_CODEC_COUNT] = {
    {1, NULL},
    {AVKI_WITH_DEFLATE, "AVK_WITH_DEFLATE"},
    {AVKI_WITH_SNAPPY, "AVK_WITH_SNAPPY"},
    {AVKI_WITH_ZSTD, "AVK_WITH_ZSTD"},
    {AVKI_WITH_BZIP2, "AVK_WITH_BZIP2"},
    {AVKI_WITH_XZ, "AVK_WITH_XZ"},
};

static const uint8_t empty_input[1];

static int name_is(const char *name, size_t len, const char *want)
{
    return strlen(want) == len && memcmp(name, want, len) == 0;
}

avk_status avk_codec_from_name(const char *name, size_t len, avk_codec *out, int *nonstandard,
                               avk_error *err)
{
    int i;
    if ((!name && len) || !out)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_codec_from_name: NULL name or out");
    if (nonstandard)
        *nonstandard = 0;
    for (i = 0; i < AVK_CODEC_COUNT; i++) {
        if (name_is(name, len, spec_names[i])) {
            *out = (avk_codec)i;
            return AVK_OK;
        }
    }
    /* Names other writers use although the specification does not. */
    if (name_is(name, len, "lzma") || name_is(name, len, "zstd")) {
        *out = name[0] == 'l' ? AVK_CODEC_XZ : AVK_CODEC_ZSTANDARD;
        if (nonstandard)
            *nonstandard = 1;
        return AVK_OK;
    }
    return avki_error_set(err, AVK_ERR_CODEC, AVK_OFFSET_UNKNOWN, "unknown codec \"%.*s\"",
                          len > 64 ? 64 : (int)len, len ? name : "");
}

const char *avk_codec_name(avk_codec c)
{
    if ((unsigned)c >= AVK_CODEC_COUNT)
        return NULL;
    return spec_names[c];
}

int avk_codec_available(avk_codec c)
{
    return (unsigned)c < AVK_CODEC_COUNT && codec_builds[c].built;
}

avk_status avki_codec_check_built(avk_codec c, avk_error *err)
{
    if ((unsigned)c >= AVK_CODEC_COUNT)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "unknown codec number %d", (int)c);
    if (codec_builds[c].built)
        return AVK_OK;
    return avki_error_set(err, AVK_ERR_UNSUPPORTED, AVK_OFFSET_UNKNOWN,
                          "codec '%s' was not built into this avrokit (configure with -D%s=ON)",
                          spec_names[c], codec_builds[c].option);
}

void avk_buffer_init(avk_buffer *buf, const avk_allocator *alloc)
{
    buf->data = NULL;
    buf->len = 0;
    buf->cap = 0;
    buf->alloc = avki_allocator_or_libc(alloc);
}

void avk_buffer_destroy(avk_buffer *buf)
{
    if (!buf)
        return;
    if (buf->data)
        buf->alloc.free(buf->alloc.ctx, buf->data, buf->cap);
    buf->data = NULL;
    buf->len = 0;
    buf->cap = 0;
}

avk_status avki_buffer_reserve(avk_buffer *out, size_t need, int keep, avk_error *err)
{
    uint8_t *p;
    if (need <= out->cap)
        return AVK_OK;
    if (keep && out->data) {
        p = (uint8_t *)out->alloc.realloc(out->alloc.ctx, out->data, out->cap, need);
    } else {
        if (out->data)
            out->alloc.free(out->alloc.ctx, out->data, out->cap);
        out->data = NULL;
        out->cap = 0;
        out->len = 0;
        p = (uint8_t *)out->alloc.alloc(out->alloc.ctx, need);
    }
    if (!p)
        return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                              "out of memory for a %zu-byte codec buffer", need);
    out->data = p;
    out->cap = need;
    return AVK_OK;
}

avk_status avki_buffer_grow_bounded(avk_buffer *out, size_t limit, avk_error *err)
{
    size_t want;
    if (out->cap >= limit)
        return AVK_ERR_LIMIT;
    want = out->cap < 4096 ? 4096 : (out->cap > SIZE_MAX / 2 ? SIZE_MAX : out->cap * 2);
    if (want > limit)
        want = limit;
    return avki_buffer_reserve(out, want, 1, err);
}

/* Blocks handed to libbz2 and liblzma carry their size in front, since
 * those libraries free without saying how large the block was. */
typedef union lib_header {
    size_t size;
    max_align_t align;
} lib_header;

void *avki_codec_lib_alloc(avk_allocator *a, size_t size)
{
    lib_header *h;
    if (size > SIZE_MAX - sizeof(lib_header))
        return NULL;
    h = (lib_header *)a->alloc(a->ctx, sizeof(lib_header) + size);
    if (!h)
        return NULL;
    h->size = size;
    return h + 1;
}

void avki_codec_lib_free(avk_allocator *a, void *p)
{
    lib_header *h;
    if (!p)
        return;
    h = (lib_header *)p - 1;
    a->free(a->ctx, h, sizeof(lib_header) + h->size);
}

void avki_codec_state_init(avki_codec_state *s, const avk_allocator *alloc)
{
    memset(s, 0, sizeof *s);
    s->alloc = avki_allocator_or_libc(alloc);
}

void avki_codec_state_destroy(avki_codec_state *s)
{
#if AVKI_WITH_DEFLATE
    avki_deflate_state_free(s);
#endif
#if AVKI_WITH_ZSTD
    avki_zstd_state_free(s);
#endif
    (void)s;
}

avk_status avki_codec_compress_with(avki_codec_state *s, avk_codec c, int level,
                                    const uint8_t *in, size_t len, avk_buffer *out,
                                    avk_error *err)
{
    avk_status st;
    (void)s; /* unused in a build without the codecs that keep state */
    (void)level;
    if (!out || (!in && len))
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_codec_compress: NULL buffer or input");
    out->len = 0;
    if (!in)
        in = empty_input; /* some libraries dislike NULL even with length 0 */
    switch (c) {
    case AVK_CODEC_NULL:
        st = avki_buffer_reserve(out, len, 0, err);
        if (st == AVK_OK && len) {
            memcpy(out->data, in, len);
            out->len = len;
        }
        break;
#if AVKI_WITH_DEFLATE
    case AVK_CODEC_DEFLATE: st = avki_deflate_compress(s, level, in, len, out, err); break;
#endif
#if AVKI_WITH_SNAPPY
    case AVK_CODEC_SNAPPY: st = avki_snappy_compress(in, len, out, err); break;
#endif
#if AVKI_WITH_ZSTD
    case AVK_CODEC_ZSTANDARD: st = avki_zstd_compress(s, level, in, len, out, err); break;
#endif
#if AVKI_WITH_BZIP2
    case AVK_CODEC_BZIP2: st = avki_bzip2_compress(level, in, len, out, err); break;
#endif
#if AVKI_WITH_XZ
    case AVK_CODEC_XZ: st = avki_xz_compress(level, in, len, out, err); break;
#endif
    default: return avki_codec_check_built(c, err); /* unknown, or not built */
    }
    if (st != AVK_OK)
        out->len = 0;
    return st;
}

avk_status avki_codec_decompress_with(avki_codec_state *s, avk_codec c, const uint8_t *in,
                                      size_t len, size_t max_out, avk_buffer *out,
                                      avk_error *err)
{
    avk_status st;
    (void)s; /* unused in a build without the codecs that keep state */
    if (!out || (!in && len))
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_codec_decompress: NULL buffer or input");
    out->len = 0;
    if (!in)
        in = empty_input; /* some libraries dislike NULL even with length 0 */
    switch (c) {
    case AVK_CODEC_NULL:
        if (len > max_out)
            return avki_error_set(err, AVK_ERR_LIMIT, AVK_OFFSET_UNKNOWN,
                                  "null-codec block of %zu bytes exceeds the %zu-byte limit",
                                  len, max_out);
        st = avki_buffer_reserve(out, len, 0, err);
        if (st == AVK_OK && len) {
            memcpy(out->data, in, len);
            out->len = len;
        }
        break;
#if AVKI_WITH_DEFLATE
    case AVK_CODEC_DEFLATE: st = avki_deflate_decompress(s, in, len, max_out, out, err); break;
#endif
#if AVKI_WITH_SNAPPY
    case AVK_CODEC_SNAPPY: st = avki_snappy_decompress(in, len, max_out, out, err); break;
#endif
#if AVKI_WITH_ZSTD
    case AVK_CODEC_ZSTANDARD: st = avki_zstd_decompress(s, in, len, max_out, out, err); break;
#endif
#if AVKI_WITH_BZIP2
    case AVK_CODEC_BZIP2: st = avki_bzip2_decompress(in, len, max_out, out, err); break;
#endif
#if AVKI_WITH_XZ
    case AVK_CODEC_XZ: st = avki_xz_decompress(in, len, max_out, out, err); break;
#endif
    default: return avki_codec_check_built(c, err); /* unknown, or not built */
    }
    if (st != AVK_OK)
        out->len = 0;
    return st;
}

/* One-shot calls: library state for this call only, on out's allocator. */
avk_status avk_codec_compress(avk_codec c, int level, const uint8_t *in, size_t len,
                              avk_buffer *out, avk_error *err)
{
    avki_codec_state s;
    avk_status st;
    avki_codec_state_init(&s, out ? &out->alloc : NULL);
    st = avki_codec_compress_with(&s, c, level, in, len, out, err);
    avki_codec_state_destroy(&s);
    return st;
}

avk_status avk_codec_decompress(avk_codec c, const uint8_t *in, size_t len, size_t max_out,
                                avk_buffer *out, avk_error *err)
{
    avki_codec_state s;
    avk_status st;
    avki_codec_state_init(&s, out ? &out->alloc : NULL);
    st = avki_codec_decompress_with(&s, c, in, len, max_out, out, err);
    avki_codec_state_destroy(&s);
    return st;
}

/* ---- avk_codec_ctx: a state the caller keeps -------------------------------- */

struct avk_codec_ctx {
    avki_codec_state state;
};

avk_status avk_codec_ctx_new(const avk_allocator *alloc, avk_codec_ctx **out, avk_error *err)
{
    avk_allocator a = avki_allocator_or_libc(alloc);
    avk_codec_ctx *ctx;
    if (!out)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_codec_ctx_new: NULL out");
    *out = NULL;
    ctx = (avk_codec_ctx *)a.alloc(a.ctx, sizeof *ctx);
    if (!ctx)
        return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                              "out of memory for a codec context");
    avki_codec_state_init(&ctx->state, &a);
    *out = ctx;
    return AVK_OK;
}

void avk_codec_ctx_free(avk_codec_ctx *ctx)
{
    avk_allocator a;
    if (!ctx)
        return;
    a = ctx->state.alloc;
    avki_codec_state_destroy(&ctx->state);
    a.free(a.ctx, ctx, sizeof *ctx);
}

avk_status avk_codec_ctx_compress(avk_codec_ctx *ctx, avk_codec c, int level, const uint8_t *in,
                                  size_t len, avk_buffer *out, avk_error *err)
{
    if (!ctx)
        return avk_codec_compress(c, level, in, len, out, err);
    return avki_codec_compress_with(&ctx->state, c, level, in, len, out, err);
}

avk_status avk_codec_ctx_decompress(avk_codec_ctx *ctx, avk_codec c, const uint8_t *in,
                                    size_t len, size_t max_out, avk_buffer *out, avk_error *err)
{
    if (!ctx)
        return avk_codec_decompress(c, in, len, max_out, out, err);
    return avki_codec_decompress_with(&ctx->state, c, in, len, max_out, out, err);
}
