/* A user's program: encodes and decodes a few longs through the installed library. */
#include <avrokit/avrokit.h>
#include <stdio.h>

int main(void)
{
    int64_t in[3] = {1, -300, 1700000000000}, out[3];
    uint8_t buf[3 * AVK_VARINT_LONG_MAX];
    size_t len = avk_varint_encode_longs(buf, in, 3), used;
    if (avk_varint_decode_longs(buf, len, out, 3, &used, NULL) != AVK_OK || used != len ||
        out[0] != 1 || out[1] != -300 || out[2] != 1700000000000) {
        fprintf(stderr, "consumer: round trip failed\n");
        return 1;
    }
    printf("consumer ok: avrokit %s, kernel %s, %zu bytes\n", avk_version(), avk_kernel_name(), len);
    return 0;
}
