/* Differential fuzz target: every runnable bulk varint kernel and the single-value codec against the slow reference. */
#include <stdlib.h>
#include <string.h>

#include "avrokit/varint.h"
#include "fuzz.h"
#include "varint/kernels.h"

/* Every kernel built here (kernel_list.h); those this CPU cannot run are passed over. */
static const avki_kernels *const *kernels;
static size_t kernel_count;

/* What avk_varint_explain must say about a varint the reference rejects:
 * TRUNCATED when every byte present continues and fewer than the maximum
 * are present, else MALFORMED. */
static avk_status expected_failure(const uint8_t *in, size_t len, size_t max_len)
{
    size_t i;
    for (i = 0; i < len && i < max_len; i++)
        if (in[i] < 0x80)
            return AVK_ERR_MALFORMED; /* ends in time, so bits beyond the width */
    return i == max_len ? AVK_ERR_MALFORMED : AVK_ERR_TRUNCATED;
}

static void check_decode(const avki_kernels *k, const uint8_t *in, size_t len, size_t n)
{
    /* Exactly n slots, so a kernel writing past them is caught by ASan. */
    int64_t *ref64 = (int64_t *)malloc((n ? n : 1) * sizeof *ref64);
    int64_t *got64 = (int64_t *)malloc((n ? n : 1) * sizeof *got64);
    int32_t *ref32 = (int32_t *)malloc((n ? n : 1) * sizeof *ref32);
    int32_t *got32 = (int32_t *)malloc((n ? n : 1) * sizeof *got32);
    size_t rc = 0, gc = 0, rcount, gcount, i;

    rcount = avki_ref_decode_longs(in, len, ref64, n, &rc);
    gcount = k->decode_longs(in, len, got64, n, &gc);
    AVKF_CHECK(gcount == rcount && gc == rc, "%s decode_longs n=%zu: %zu values, %zu bytes; "
               "reference %zu values, %zu bytes", k->name, n, gcount, gc, rcount, rc);
    for (i = 0; i < rcount; i++)
        AVKF_CHECK(got64[i] == ref64[i], "%s decode_longs value %zu: %lld, reference %lld",
                   k->name, i, (long long)got64[i], (long long)ref64[i]);

    rcount = avki_ref_decode_ints(in, len, ref32, n, &rc);
    gcount = k->decode_ints(in, len, got32, n, &gc);
    AVKF_CHECK(gcount == rcount && gc == rc, "%s decode_ints n=%zu: %zu values, %zu bytes; "
               "reference %zu values, %zu bytes", k->name, n, gcount, gc, rcount, rc);
    for (i = 0; i < rcount; i++)
        AVKF_CHECK(got32[i] == ref32[i], "%s decode_ints value %zu: %d, reference %d", k->name, i,
                   (int)got32[i], (int)ref32[i]);
    free(ref64);
    free(got64);
    free(ref32);
    free(got32);
}

/* The public bulk calls (active kernel): status, consumed, err. */
static void check_public_decode(const uint8_t *in, size_t len, size_t n)
{
    int64_t *ref64 = (int64_t *)malloc((n ? n : 1) * sizeof *ref64);
    int64_t *got64 = (int64_t *)malloc((n ? n : 1) * sizeof *got64);
    int32_t *ref32 = (int32_t *)malloc((n ? n : 1) * sizeof *ref32);
    int32_t *got32 = (int32_t *)malloc((n ? n : 1) * sizeof *got32);
    size_t rc = 0, gc = 0, rcount, i;
    avk_error err;
    avk_status st;

    rcount = avki_ref_decode_longs(in, len, ref64, n, &rc);
    avk_error_clear(&err);
    st = avk_varint_decode_longs(in, len, got64, n, &gc, &err);
    AVKF_CHECK(gc == rc, "avk_varint_decode_longs consumed %zu, reference %zu", gc, rc);
    for (i = 0; i < rcount; i++)
        AVKF_CHECK(got64[i] == ref64[i], "avk_varint_decode_longs value %zu", i);
    if (rcount == n) {
        AVKF_CHECK(st == AVK_OK, "avk_varint_decode_longs: %s for good input", avk_status_name(st));
    } else {
        avk_status want = expected_failure(in + rc, len - rc, AVK_VARINT_LONG_MAX);
        AVKF_CHECK(st == want && err.status == want, "avk_varint_decode_longs: %s, expected %s",
                   avk_status_name(st), avk_status_name(want));
        AVKF_CHECK(err.offset >= rc && err.offset < rc + AVK_VARINT_LONG_MAX,
                   "avk_varint_decode_longs: error offset %llu outside the varint at %zu",
                   (unsigned long long)err.offset, rc);
    }

    rcount = avki_ref_decode_ints(in, len, ref32, n, &rc);
    avk_error_clear(&err);
    st = avk_varint_decode_ints(in, len, got32, n, &gc, &err);
    AVKF_CHECK(gc == rc, "avk_varint_decode_ints consumed %zu, reference %zu", gc, rc);
    for (i = 0; i < rcount; i++)
        AVKF_CHECK(got32[i] == ref32[i], "avk_varint_decode_ints value %zu", i);
    if (rcount == n) {
        AVKF_CHECK(st == AVK_OK, "avk_varint_decode_ints: %s for good input", avk_status_name(st));
    } else {
        avk_status want = expected_failure(in + rc, len - rc, AVK_VARINT_INT_MAX);
        AVKF_CHECK(st == want && err.status == want, "avk_varint_decode_ints: %s, expected %s",
                   avk_status_name(st), avk_status_name(want));
        AVKF_CHECK(err.offset >= rc && err.offset < rc + AVK_VARINT_INT_MAX,
                   "avk_varint_decode_ints: error offset %llu outside the varint at %zu",
                   (unsigned long long)err.offset, rc);
    }
    free(ref64);
    free(got64);
    free(ref32);
    free(got32);
}

/* The inline single-value decoders at every offset. */
static void check_single(const uint8_t *in, size_t len)
{
    size_t off;
    for (off = 0; off <= len; off++) {
        const uint8_t *p = in + off;
        size_t rest = len - off, rc = 0, k;
        int64_t rv = 0, v = 0;
        int32_t rv32 = 0, v32 = 0;
        size_t rcount = avki_ref_decode_longs(p, rest, &rv, 1, &rc);
        avk_status st;
        k = avk_varint_decode_long(p, rest, &v);
        AVKF_CHECK(k == (rcount ? rc : 0), "decode_long at %zu: %zu bytes, reference %zu", off, k,
                   rcount ? rc : 0);
        if (k)
            AVKF_CHECK(v == rv, "decode_long at %zu: %lld, reference %lld", off, (long long)v,
                       (long long)rv);
        st = avk_varint_explain(p, rest, 0, 0, NULL);
        AVKF_CHECK(st == (k ? AVK_OK : expected_failure(p, rest, AVK_VARINT_LONG_MAX)),
                   "explain long at %zu: %s", off, avk_status_name(st));

        rcount = avki_ref_decode_ints(p, rest, &rv32, 1, &rc);
        k = avk_varint_decode_int(p, rest, &v32);
        AVKF_CHECK(k == (rcount ? rc : 0), "decode_int at %zu: %zu bytes, reference %zu", off, k,
                   rcount ? rc : 0);
        if (k)
            AVKF_CHECK(v32 == rv32, "decode_int at %zu: %d, reference %d", off, (int)v32, (int)rv32);
        st = avk_varint_explain(p, rest, 1, 0, NULL);
        AVKF_CHECK(st == (k ? AVK_OK : expected_failure(p, rest, AVK_VARINT_INT_MAX)),
                   "explain int at %zu: %s", off, avk_status_name(st));
    }
}

/* Encodes the values every way: kernels, reference, single-value and
 * sizes agree; buffers are exactly the documented room. */
static void check_encode(const int64_t *longs, const int32_t *ints, size_t n)
{
    size_t room64 = n * AVK_VARINT_LONG_MAX, room32 = n * AVK_VARINT_INT_MAX + AVK_VARINT_LONG_MAX;
    uint8_t *ref = (uint8_t *)malloc(room64 + AVK_VARINT_LONG_MAX);
    uint8_t *single = (uint8_t *)malloc(room64 + AVK_VARINT_LONG_MAX);
    size_t rlen, slen = 0, i, j;
    int64_t *back = (int64_t *)malloc((n ? n : 1) * sizeof *back);
    size_t consumed;

    rlen = avki_ref_encode_longs(ref, longs, n);
    for (i = 0; i < n; i++)
        slen += avk_varint_encode_long(single + slen, longs[i]);
    AVKF_CHECK(slen == rlen && memcmp(single, ref, rlen) == 0, "single encode_long differs");
    AVKF_CHECK(avk_varint_size_longs(longs, n) == rlen, "avk_varint_size_longs");
    /* The reference encoding decodes back to the values. */
    AVKF_CHECK(avki_ref_decode_longs(ref, rlen, back, n, &consumed) == n && consumed == rlen,
               "reference round trip");
    AVKF_CHECK(n == 0 || memcmp(back, longs, n * sizeof *longs) == 0, "reference round trip values");
    for (j = 0; j < kernel_count; j++) {
        const avki_kernels *k = kernels[j];
        uint8_t *out;
        size_t olen;
        if (!k->runnable(avki_cpu_get()))
            continue;
        out = (uint8_t *)malloc(room64 ? room64 : 1);
        olen = k->encode_longs(out, longs, n);
        AVKF_CHECK(olen == rlen && memcmp(out, ref, rlen) == 0, "%s encode_longs n=%zu: %zu bytes, "
                   "reference %zu", k->name, n, olen, rlen);
        free(out);
    }

    rlen = avki_ref_encode_ints(ref, ints, n);
    for (i = 0, slen = 0; i < n; i++)
        slen += avk_varint_encode_int(single + slen, ints[i]);
    AVKF_CHECK(slen == rlen && memcmp(single, ref, rlen) == 0, "single encode_int differs");
    AVKF_CHECK(avk_varint_size_ints(ints, n) == rlen, "avk_varint_size_ints");
    for (j = 0; j < kernel_count; j++) {
        const avki_kernels *k = kernels[j];
        uint8_t *out;
        size_t olen;
        if (!k->runnable(avki_cpu_get()))
            continue;
        out = (uint8_t *)malloc(room32);
        olen = k->encode_ints(out, ints, n);
        AVKF_CHECK(olen == rlen && memcmp(out, ref, rlen) == 0, "%s encode_ints n=%zu: %zu bytes, "
                   "reference %zu", k->name, n, olen, rlen);
        free(out);
    }
    free(ref);
    free(single);
    free(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *in;
    size_t len, j, n_first, count, consumed;
    int64_t *longs;
    int32_t *ints;
    if (!kernels)
        kernels = avki_kernel_table(&kernel_count);
    if (size == 0)
        return 0;
    n_first = data[0];
    in = data + 1;
    len = size - 1;

    for (j = 0; j < kernel_count; j++) {
        if (!kernels[j]->runnable(avki_cpu_get()))
            continue;
        check_decode(kernels[j], in, len, n_first);
        check_decode(kernels[j], in, len, len); /* as many as can be there */
    }
    check_public_decode(in, len, n_first);
    check_public_decode(in, len, len);
    check_single(in, len);

    /* Re-encode what decodes: longs and ints of the good prefix. */
    longs = (int64_t *)malloc((len ? len : 1) * sizeof *longs);
    ints = (int32_t *)malloc((len ? len : 1) * sizeof *ints);
    count = avki_ref_decode_longs(in, len, longs, len, &consumed);
    for (j = 0; j < count; j++)
        ints[j] = (int32_t)longs[j] ^ (int32_t)(longs[j] >> 32); /* every 32-bit pattern */
    check_encode(longs, ints, count);
    count = avki_ref_decode_ints(in, len, ints, len, &consumed);
    for (j = 0; j < count; j++)
        longs[j] = ints[j];
    check_encode(longs, ints, count);
    free(longs);
    free(ints);
    return 0;
}
