/* The xz codec through liblzma: the .xz container format Avro Java and Python write, and the raw LZMA2 blocks Apache Avro C writes as "lzma". */
#include <lzma.h>
#include <string.h>

#include "codec/codec_internal.h"
#include "common/error.h"

/* Enough for the largest preset's dictionary (64 MiB for -9) and the
 * decoder's own state; a stream asking for more is refused as LIMIT
 * before the dictionary is allocated. */
#define XZ_MEMLIMIT ((uint64_t)80 << 20)

/* The first bytes of an .xz stream. */
static const uint8_t XZ_MAGIC[6] = {0xFD, '7', 'z', 'X', 'Z', 0x00};

static void *xz_alloc(void *opaque, size_t nmemb, size_t size)
{
    if (size && nmemb > SIZE_MAX / size)
        return NULL;
    return avki_codec_lib_alloc((avk_allocator *)opaque, nmemb * size);
}

static void xz_free(void *opaque, void *p)
{
    avki_codec_lib_free((avk_allocator *)opaque, p);
}

static avk_status xz_fail(avk_error *err, lzma_ret r, const char *what)
{
    switch (r) {
    case LZMA_MEM_ERROR:
        return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN, "out of memory in xz %s",
                              what);
    case LZMA_MEMLIMIT_ERROR:
        return avki_error_set(err, AVK_ERR_LIMIT, AVK_OFFSET_UNKNOWN,
                              "xz block needs more than %u MiB of decoder memory",
                              (unsigned)(XZ_MEMLIMIT >> 20));
    case LZMA_FORMAT_ERROR:
        return avki_error_set(err, AVK_ERR_CODEC, AVK_OFFSET_UNKNOWN,
                              "xz block is not in the .xz format (bad magic)");
    case LZMA_OPTIONS_ERROR:
        return avki_error_set(err, AVK_ERR_CODEC, AVK_OFFSET_UNKNOWN,
                              "xz block uses unsupported options");
    case LZMA_DATA_ERROR:
        return avki_error_set(err, AVK_ERR_CODEC, AVK_OFFSET_UNKNOWN, "corrupt xz block");
    case LZMA_BUF_ERROR:
        return avki_error_set(err, AVK_ERR_CODEC, AVK_OFFSET_UNKNOWN, "truncated xz block");
    default:
        return avki_error_set(err, AVK_ERR_CODEC, AVK_OFFSET_UNKNOWN, "xz %s failed (%d)", what,
                              (int)r);
    }
}

avk_status avki_xz_compress(int level, const uint8_t *in, size_t len, avk_buffer *out,
                            avk_error *err)
{
    lzma_stream s = LZMA_STREAM_INIT;
    lzma_allocator la;
    lzma_ret r;
    avk_status st = AVK_OK;
    if (level == 0)
        level = 6; /* LZMA_PRESET_DEFAULT, what Avro Java and Python use */
    if (level < 1 || level > 9)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "xz level %d is not within 1-9", level);
    AVK_TRY(avki_buffer_reserve(out, lzma_stream_buffer_bound(len), 0, err));
    out->len = 0;
    la.alloc = xz_alloc;
    la.free = xz_free;
    la.opaque = &out->alloc;
    s.allocator = &la;
    r = lzma_easy_encoder(&s, (uint32_t)level, LZMA_CHECK_CRC64);
    if (r != LZMA_OK)
        return xz_fail(err, r, "compressor setup");
    s.next_in = in;
    s.avail_in = len;
    s.next_out = out->data;
    s.avail_out = out->cap;
    /* The buffer holds the bound: one LZMA_FINISH call suffices, but loop
     * in case liblzma wants several. */
    for (;;) {
        r = lzma_code(&s, LZMA_FINISH);
        if (r == LZMA_STREAM_END)
            break;
        if (r != LZMA_OK || s.avail_out == 0) {
            st = xz_fail(err, r == LZMA_OK ? LZMA_BUF_ERROR : r, "compression");
            break;
        }
    }
    out->len = st == AVK_OK ? (size_t)s.total_out : 0;
    lzma_end(&s);
    return st;
}

avk_status avki_xz_decompress(const uint8_t *in, size_t len, size_t max_out, avk_buffer *out,
                              avk_error *err)
{
    lzma_stream s = LZMA_STREAM_INIT;
    lzma_allocator la;
    lzma_ret r;
    size_t limit;
    avk_status st = AVK_OK;
    limit = max_out > SIZE_MAX - AVKI_CODEC_SLACK ? SIZE_MAX : max_out + AVKI_CODEC_SLACK;
    out->len = 0;
    la.alloc = xz_alloc;
    la.free = xz_free;
    la.opaque = &out->alloc;
    s.allocator = &la;
    if (len >= sizeof XZ_MAGIC && memcmp(in, XZ_MAGIC, sizeof XZ_MAGIC) == 0) {
        /* CONCATENATED: several streams and stream padding, as xz(1) accepts. */
        r = lzma_stream_decoder(&s, XZ_MEMLIMIT, LZMA_CONCATENATED);
    } else {
        /* Apache Avro C's "lzma" codec: raw LZMA2 with preset 6 (an 8 MiB
         * dictionary), no container. The dictionary never needs to exceed the
         * output, so small blocks get a small one; a reference beyond it is
         * reported as corrupt data. */
        lzma_options_lzma opt;
        lzma_filter filters[2];
        if (lzma_lzma_preset(&opt, 6))
            return xz_fail(err, LZMA_OPTIONS_ERROR, "decompressor setup");
        if (opt.dict_size > max_out)
            opt.dict_size = max_out < LZMA_DICT_SIZE_MIN ? LZMA_DICT_SIZE_MIN : (uint32_t)max_out;
        filters[0].id = LZMA_FILTER_LZMA2;
        filters[0].options = &opt;
        filters[1].id = LZMA_VLI_UNKNOWN;
        filters[1].options = NULL;
        r = lzma_raw_decoder(&s, filters);
    }
    if (r != LZMA_OK)
        return xz_fail(err, r, "decompressor setup");
    s.next_in = in;
    s.avail_in = len;
    for (;;) {
        if (out->len == out->cap) {
            st = avki_buffer_grow_bounded(out, limit, err);
            if (st == AVK_ERR_LIMIT)
                st = avki_error_set(err, AVK_ERR_LIMIT, AVK_OFFSET_UNKNOWN,
                                    "xz block decompresses to more than the %zu-byte limit",
                                    max_out);
            if (st != AVK_OK)
                break;
        }
        s.next_out = out->data + out->len;
        s.avail_out = out->cap - out->len;
        /* FINISH: all the input is here, so running out of it is truncation. */
        r = lzma_code(&s, LZMA_FINISH);
        out->len = (size_t)(s.next_out - out->data);
        if (out->len > max_out) {
            st = avki_error_set(err, AVK_ERR_LIMIT, AVK_OFFSET_UNKNOWN,
                                "xz block decompresses to more than the %zu-byte limit",
                                max_out);
            break;
        }
        if (r == LZMA_STREAM_END)
            break;
        if (r == LZMA_OK)
            continue; /* output full: grow */
        st = xz_fail(err, r, "decompression");
        break;
    }
    lzma_end(&s);
    return st;
}
