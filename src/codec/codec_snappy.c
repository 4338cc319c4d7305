/* The snappy codec: a raw snappy block followed by the big-endian CRC-32 of the uncompressed data (Avro's framing). */
#include <libdeflate.h>
#include <snappy-c.h>

#include "codec/codec_internal.h"
#include "common/error.h"

avk_status avki_snappy_compress(const uint8_t *in, size_t len, avk_buffer *out, avk_error *err)
{
    size_t bound, n;
    uint32_t crc;
    /* Snappy's block format stores the length in 32 bits. */
    if (len > UINT32_MAX)
        return avki_error_set(err, AVK_ERR_LIMIT, AVK_OFFSET_UNKNOWN,
                              "snappy cannot compress %zu bytes in one block (4 GiB at most)", len);
    bound = snappy_max_compressed_length(len);
    AVK_TRY(avki_buffer_reserve(out, bound + 4, 0, err));
    n = bound;
    if (snappy_compress((const char *)in, len, (char *)out->data, &n) != SNAPPY_OK)
        return avki_error_set(err, AVK_ERR_CODEC, AVK_OFFSET_UNKNOWN,
                              "snappy compression of %zu bytes failed", len);
    crc = libdeflate_crc32(0, in, len);
    out->data[n] = (uint8_t)(crc >> 24);
    out->data[n + 1] = (uint8_t)(crc >> 16);
    out->data[n + 2] = (uint8_t)(crc >> 8);
    out->data[n + 3] = (uint8_t)crc;
    out->len = n + 4;
    return AVK_OK;
}

avk_status avki_snappy_decompress(const uint8_t *in, size_t len, size_t max_out,
                                  avk_buffer *out, avk_error *err)
{
    size_t n, body;
    uint32_t want, got;
    if (len < 4)
        return avki_error_set(err, AVK_ERR_CODEC, AVK_OFFSET_UNKNOWN,
                              "snappy block of %zu bytes is too short for its CRC-32", len);
    body = len - 4;
    if (snappy_uncompressed_length((const char *)in, body, &n) != SNAPPY_OK)
        return avki_error_set(err, AVK_ERR_CODEC, AVK_OFFSET_UNKNOWN,
                              "corrupt snappy block: unreadable length header");
    /* The header states the size: check it before allocating anything. */
    if (n > max_out)
        return avki_error_set(err, AVK_ERR_LIMIT, AVK_OFFSET_UNKNOWN,
                              "snappy block claims %zu bytes, more than the %zu-byte limit", n,
                              max_out);
    AVK_TRY(avki_buffer_reserve(out, n ? n : 1, 0, err));
    if (snappy_uncompress((const char *)in, body, (char *)out->data, &n) != SNAPPY_OK)
        return avki_error_set(err, AVK_ERR_CODEC, AVK_OFFSET_UNKNOWN,
                              "corrupt or truncated snappy block (%zu bytes)", body);
    want = (uint32_t)in[body] << 24 | (uint32_t)in[body + 1] << 16 | (uint32_t)in[body + 2] << 8 |
           (uint32_t)in[body + 3];
    got = libdeflate_crc32(0, out->data, n);
    if (got != want)
        return avki_error_set(err, AVK_ERR_CHECKSUM, AVK_OFFSET_UNKNOWN,
                              "snappy block CRC-32 mismatch: stored %08x, data has %08x", want,
                              got);
    out->len = n;
    return AVK_OK;
}
