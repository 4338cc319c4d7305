/* Fuzz target: every codec decompresses random bytes under a small limit; what decodes must round-trip exactly. */
#include <stdlib.h>
#include <string.h>

#include "avrokit/codec.h"
#include "fuzz.h"

/* Input: [codec selector][limit selector][stream bytes...]. The limit is
 * 2^(sel % 17) bytes (1 B to 64 KiB), so bombs hit it quickly. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    avk_buffer out, again, packed;
    avk_codec c;
    size_t max_out;
    avk_status st;
    avk_error err;
    if (size < 2)
        return 0;
    c = (avk_codec)(data[0] % AVK_CODEC_COUNT);
    max_out = (size_t)1 << (data[1] % 17);
    avk_buffer_init(&out, NULL);
    avk_buffer_init(&again, NULL);
    avk_buffer_init(&packed, NULL);

    st = avk_codec_decompress(c, data + 2, size - 2, max_out, &out, &err);
    AVKF_CHECK(st == AVK_OK || st == AVK_ERR_CODEC || st == AVK_ERR_LIMIT ||
                   st == AVK_ERR_CHECKSUM,
               "%s: unexpected status %s", avk_codec_name(c), avk_status_name(st));
    /* Never more than the limit plus the codecs' slack (1 for an empty result). */
    AVKF_CHECK(out.cap <= max_out + 64,
               "%s: buffer grew to %zu for limit %zu", avk_codec_name(c), out.cap, max_out);
    if (st == AVK_OK) {
        AVKF_CHECK(out.len <= max_out, "%s: %zu bytes out, limit %zu", avk_codec_name(c), out.len,
                   max_out);
        /* Round trip at the default level and at the fastest one. */
        st = avk_codec_compress(c, (data[1] & 0x80) && c != AVK_CODEC_NULL &&
                                       c != AVK_CODEC_SNAPPY ? 1 : 0,
                                out.data, out.len, &packed, &err);
        AVKF_CHECK(st == AVK_OK, "%s: compress failed: %s", avk_codec_name(c), err.message);
        st = avk_codec_decompress(c, packed.data, packed.len, out.len, &again, &err);
        AVKF_CHECK(st == AVK_OK, "%s: round trip failed: %s", avk_codec_name(c), err.message);
        AVKF_CHECK(again.len == out.len && (out.len == 0 || memcmp(again.data, out.data, out.len) == 0),
                   "%s: round trip differs (%zu vs %zu bytes)", avk_codec_name(c), again.len,
                   out.len);
    }
    avk_buffer_destroy(&out);
    avk_buffer_destroy(&again);
    avk_buffer_destroy(&packed);
    return 0;
}
