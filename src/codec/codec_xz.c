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

/* ---- decompression ---------------------------------------------------------- */

/* How many bytes the LZMA2 chunks at p state they hold, read from their
 * headers (which are not compressed): control byte 0x00 ends the data;
 * 0x01 and 0x02 start a stored chunk (2 bytes: size - 1, then the bytes);
 * 0x80 and above an LZMA chunk (5 bits in the control byte and 2 bytes:
 * unpacked size - 1; 2 bytes: packed size - 1; a properties byte when bit
 * 6 is set; then the packed bytes). The walk stops where the data ends or
 * a control byte is invalid (the decoder refuses the data there). liblzma
 * checks that each chunk decodes to the size its header states, so the
 * data never produces more than this: a dictionary of this size holds
 * every byte a match can refer to. Saturates at UINT64_MAX. */
static uint64_t lzma2_size(const uint8_t *p, size_t len)
{
    uint64_t total = 0;
    size_t i = 0;
    while (i < len) {
        unsigned c = p[i];
        size_t head, packed;
        uint64_t unpacked;
        if (c == 0x00)
            break;
        if (c == 0x01 || c == 0x02) {
            if (len - i < 3)
                break;
            unpacked = ((uint64_t)p[i + 1] << 8 | p[i + 2]) + 1;
            head = 3;
            packed = (size_t)unpacked;
        } else if (c >= 0x80) {
            head = c >= 0xC0 ? 6 : 5;
            if (len - i < head)
                break;
            unpacked = ((uint64_t)(c & 0x1F) << 16 | (uint64_t)p[i + 1] << 8 | p[i + 2]) + 1;
            packed = ((size_t)p[i + 3] << 8 | p[i + 4]) + 1;
        } else {
            break;
        }
        total = total > UINT64_MAX - unpacked ? UINT64_MAX : total + unpacked;
        if (len - i - head < packed)
            break;
        i += head + packed;
    }
    return total;
}

/* The dictionary for LZMA2 data of at most `bound` bytes out: never more
 * than the data holds (writers declare their preset's, 8 MiB at the
 * default level, however small the block), nor the output limit; at
 * least liblzma's minimum. */
static uint32_t dict_for(uint32_t dict, uint64_t bound, size_t max_out)
{
    if (bound > max_out)
        bound = max_out;
    if (bound < LZMA_DICT_SIZE_MIN)
        bound = LZMA_DICT_SIZE_MIN;
    return dict > bound ? (uint32_t)bound : dict;
}

/* Runs s over its input to LZMA_STREAM_END, appending to out (which holds
 * what earlier blocks gave), at most max_out bytes in all. */
static avk_status run(lzma_stream *s, size_t max_out, avk_buffer *out, avk_error *err)
{
    size_t limit = max_out > SIZE_MAX - AVKI_CODEC_SLACK ? SIZE_MAX : max_out + AVKI_CODEC_SLACK;
    for (;;) {
        lzma_ret r;
        if (out->len == out->cap) {
            avk_status st = avki_buffer_grow_bounded(out, limit, err);
            if (st == AVK_ERR_LIMIT)
                return avki_error_set(err, AVK_ERR_LIMIT, AVK_OFFSET_UNKNOWN,
                                      "xz block decompresses to more than the %zu-byte limit",
                                      max_out);
            if (st != AVK_OK)
                return st;
        }
        s->next_out = out->data + out->len;
        s->avail_out = out->cap - out->len;
        /* FINISH: all the input is here, so running out of it is truncation. */
        r = lzma_code(s, LZMA_FINISH);
        out->len = (size_t)(s->next_out - out->data);
        if (out->len > max_out)
            return avki_error_set(err, AVK_ERR_LIMIT, AVK_OFFSET_UNKNOWN,
                                  "xz block decompresses to more than the %zu-byte limit",
                                  max_out);
        if (r == LZMA_STREAM_END)
            return AVK_OK;
        if (r != LZMA_OK)
            return xz_fail(err, r, "decompression");
        /* LZMA_OK: output full (grow), or more to do */
    }
}

/* Apache Avro C's "lzma" codec: raw LZMA2 with preset 6 (an 8 MiB
 * dictionary), no container. */
static avk_status raw_decompress(lzma_allocator *la, const uint8_t *in, size_t len,
                                 size_t max_out, avk_buffer *out, avk_error *err)
{
    lzma_stream s = LZMA_STREAM_INIT;
    lzma_options_lzma opt;
    lzma_filter filters[2];
    lzma_ret r;
    avk_status st;
    if (lzma_lzma_preset(&opt, 6))
        return xz_fail(err, LZMA_OPTIONS_ERROR, "decompressor setup");
    opt.dict_size = dict_for(opt.dict_size, lzma2_size(in, len), max_out);
    filters[0].id = LZMA_FILTER_LZMA2;
    filters[0].options = &opt;
    filters[1].id = LZMA_VLI_UNKNOWN;
    filters[1].options = NULL;
    s.allocator = la;
    r = lzma_raw_decoder(&s, filters);
    if (r != LZMA_OK)
        return xz_fail(err, r, "decompressor setup");
    s.next_in = in;
    s.avail_in = len;
    st = run(&s, max_out, out, err);
    lzma_end(&s);
    return st;
}

/* One block of an .xz stream at in[*pos], its header checked and decoded
 * (liblzma's block decoder checks sizes and the check), recorded in ih. */
static avk_status xz_block(lzma_allocator *la, lzma_check check, lzma_index_hash *ih,
                           const uint8_t *in, size_t len, size_t *pos, size_t max_out,
                           avk_buffer *out, avk_error *err)
{
    lzma_stream s = LZMA_STREAM_INIT;
    lzma_filter filters[LZMA_FILTERS_MAX + 1];
    lzma_block block;
    lzma_ret r;
    avk_status st;
    size_t i, body;
    uint64_t mem;
    memset(&block, 0, sizeof block);
    block.version = 0;
    block.check = check;
    block.filters = filters;
    block.header_size = lzma_block_header_size_decode(in[*pos]);
    if (len - *pos < block.header_size)
        return xz_fail(err, LZMA_BUF_ERROR, "decompression");
    r = lzma_block_header_decode(&block, la, in + *pos);
    if (r != LZMA_OK)
        return xz_fail(err, r, "decompression");
    body = *pos + block.header_size;
    /* The dictionary the data can use, not the one the writer declared:
     * what lzma_stream_decoder would allocate is the declared size, 8 MiB
     * for a block of a few KiB from xz -6 or Avro Java, per block. */
    for (i = 0; filters[i].id != LZMA_VLI_UNKNOWN; i++) {
        if (filters[i].id == LZMA_FILTER_LZMA2 && filters[i].options) {
            lzma_options_lzma *o = (lzma_options_lzma *)filters[i].options;
            o->dict_size = dict_for(o->dict_size, lzma2_size(in + body, len - body), max_out);
        }
    }
    s.allocator = la;
    mem = lzma_raw_decoder_memusage(filters); /* UINT64_MAX: bad options, which init reports */
    r = mem != UINT64_MAX && mem > XZ_MEMLIMIT ? LZMA_MEMLIMIT_ERROR
                                               : lzma_block_decoder(&s, &block);
    /* The options are only needed to set the decoder up (as in liblzma's
     * own stream decoder). */
    for (i = 0; filters[i].id != LZMA_VLI_UNKNOWN; i++)
        xz_free(la->opaque, filters[i].options);
    if (r != LZMA_OK) {
        lzma_end(&s);
        return xz_fail(err, r, "decompressor setup");
    }
    s.next_in = in + body;
    s.avail_in = len - body;
    st = run(&s, max_out, out, err);
    *pos = (size_t)(s.next_in - in);
    lzma_end(&s);
    if (st != AVK_OK)
        return st;
    r = lzma_index_hash_append(ih, lzma_block_unpadded_size(&block), block.uncompressed_size);
    return r == LZMA_OK ? AVK_OK : xz_fail(err, r, "decompression");
}

/* One .xz stream at in[*pos]: header, blocks, index, footer; the checks
 * liblzma's stream decoder makes (the index against the blocks, the
 * footer against the header and the index). */
static avk_status xz_stream(lzma_allocator *la, const uint8_t *in, size_t len, size_t *pos,
                            int first, size_t max_out, avk_buffer *out, avk_error *err)
{
    lzma_stream_flags head, foot;
    lzma_index_hash *ih;
    lzma_ret r;
    avk_status st = AVK_OK;
    if (len - *pos < LZMA_STREAM_HEADER_SIZE)
        return xz_fail(err, LZMA_BUF_ERROR, "decompression");
    r = lzma_stream_header_decode(&head, in + *pos);
    if (r != LZMA_OK)
        return xz_fail(err, r == LZMA_FORMAT_ERROR && !first ? LZMA_DATA_ERROR : r,
                       "decompression");
    *pos += LZMA_STREAM_HEADER_SIZE;
    ih = lzma_index_hash_init(NULL, la);
    if (!ih)
        return xz_fail(err, LZMA_MEM_ERROR, "decompressor setup");
    /* Blocks until the index indicator (a zero byte where a block header
     * would start). */
    for (;;) {
        if (*pos >= len) {
            st = xz_fail(err, LZMA_BUF_ERROR, "decompression");
            break;
        }
        if (in[*pos] == 0x00)
            break;
        st = xz_block(la, head.check, ih, in, len, pos, max_out, out, err);
        if (st != AVK_OK)
            break;
    }
    if (st == AVK_OK) {
        r = lzma_index_hash_decode(ih, in, pos, len);
        if (r == LZMA_OK)
            r = LZMA_BUF_ERROR; /* the index goes on past the input */
        if (r != LZMA_STREAM_END)
            st = xz_fail(err, r, "decompression");
    }
    if (st == AVK_OK) {
        if (len - *pos < LZMA_STREAM_HEADER_SIZE)
            r = LZMA_BUF_ERROR;
        else
            r = lzma_stream_footer_decode(&foot, in + *pos);
        if (r == LZMA_FORMAT_ERROR)
            r = LZMA_DATA_ERROR; /* a bad footer magic is corruption, not another format */
        if (r == LZMA_OK)
            r = lzma_stream_flags_compare(&head, &foot);
        if (r == LZMA_OK && lzma_index_hash_size(ih) != foot.backward_size)
            r = LZMA_DATA_ERROR;
        if (r != LZMA_OK)
            st = xz_fail(err, r, "decompression");
        *pos += LZMA_STREAM_HEADER_SIZE;
    }
    lzma_index_hash_end(ih, la);
    return st;
}

avk_status avki_xz_decompress(const uint8_t *in, size_t len, size_t max_out, avk_buffer *out,
                              avk_error *err)
{
    lzma_allocator la;
    size_t pos = 0;
    avk_status st;
    out->len = 0;
    la.alloc = xz_alloc;
    la.free = xz_free;
    la.opaque = &out->alloc;
    if (len < sizeof XZ_MAGIC || memcmp(in, XZ_MAGIC, sizeof XZ_MAGIC) != 0) {
        st = raw_decompress(&la, in, len, max_out, out, err);
        if (st != AVK_OK)
            out->len = 0;
        return st;
    }
    /* .xz, decoded stream by stream and block by block rather than by
     * lzma_stream_decoder, so that each block's dictionary is sized to
     * its data (xz_block). Several streams, with stream padding (zero
     * bytes, four at a time) between and after them, as xz(1) accepts. */
    for (;;) {
        size_t zeros;
        st = xz_stream(&la, in, len, &pos, pos == 0, max_out, out, err);
        if (st != AVK_OK)
            break;
        zeros = pos;
        while (pos < len && in[pos] == 0x00)
            pos++;
        if ((pos - zeros) % 4 != 0) {
            st = xz_fail(err, LZMA_DATA_ERROR, "decompression");
            break;
        }
        if (pos == len)
            break;
    }
    if (st != AVK_OK)
        out->len = 0;
    return st;
}
