/* Public bulk varint calls: run the active kernel, explain failures once. */
#include "avrokit/varint.h"
#include "common/error.h"
#include "varint/kernels.h"

/* A kernel's short count means "the value at *consumed": the explainer
 * turns that into a status. A kernel must never stop on a valid value; if
 * one did (a kernel bug), the call still fails, MALFORMED with the
 * kernel's name, rather than returning success with values missing. */
avk_status avki_varint_failure(const uint8_t *in, size_t len, int is_int, uint64_t offset,
                               avk_error *err)
{
    avk_status st = avk_varint_explain(in, len, is_int, offset, err);
    if (st == AVK_OK) /* a kernel stopped on a valid value: never report success */
        st = avki_error_set(err, AVK_ERR_MALFORMED, offset, "varint kernel %s stopped early",
                            avki_kernels_active()->name);
    return st;
}

avk_status avk_varint_decode_longs(const uint8_t *in, size_t len, int64_t *out, size_t n,
                                   size_t *consumed, avk_error *err)
{
    size_t got = avki_kernels_active()->decode_longs(in, len, out, n, consumed);
    if (AVK_LIKELY(got == n))
        return AVK_OK;
    return avki_varint_failure(in + *consumed, len - *consumed, 0, *consumed, err);
}

avk_status avk_varint_decode_ints(const uint8_t *in, size_t len, int32_t *out, size_t n,
                                  size_t *consumed, avk_error *err)
{
    size_t got = avki_kernels_active()->decode_ints(in, len, out, n, consumed);
    if (AVK_LIKELY(got == n))
        return AVK_OK;
    return avki_varint_failure(in + *consumed, len - *consumed, 1, *consumed, err);
}

size_t avk_varint_encode_longs(uint8_t *out, const int64_t *in, size_t n)
{
    return avki_kernels_active()->encode_longs(out, in, n);
}

size_t avk_varint_encode_ints(uint8_t *out, const int32_t *in, size_t n)
{
    return avki_kernels_active()->encode_ints(out, in, n);
}
