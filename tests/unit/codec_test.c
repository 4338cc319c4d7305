/* Unit tests for the codecs: names, round trips, known vectors, truncated/corrupt streams, bombs, snappy CRC, failing allocations. */
#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "avkt.h"
#include "codec/codec_internal.h"
#include "failalloc.h"

static const avk_codec all_codecs[] = {AVK_CODEC_NULL,  AVK_CODEC_DEFLATE, AVK_CODEC_SNAPPY,
                                       AVK_CODEC_ZSTANDARD, AVK_CODEC_BZIP2, AVK_CODEC_XZ};
#define N_CODECS (sizeof all_codecs / sizeof all_codecs[0])

/* ---- names ---------------------------------------------------------------- */

static void check_name(const char *name, avk_codec want, int want_nonstandard)
{
    avk_codec c = AVK_CODEC_NULL;
    int ns = -1;
    AVKT_OK(avk_codec_from_name(name, strlen(name), &c, &ns, NULL));
    assert_int_equal(c, want);
    assert_int_equal(ns, want_nonstandard);
}

static void test_names(void **state)
{
    avk_error err;
    avk_codec c;
    int ns;
    size_t i;
    (void)state;
    check_name("null", AVK_CODEC_NULL, 0);
    check_name("deflate", AVK_CODEC_DEFLATE, 0);
    check_name("snappy", AVK_CODEC_SNAPPY, 0);
    check_name("zstandard", AVK_CODEC_ZSTANDARD, 0);
    check_name("bzip2", AVK_CODEC_BZIP2, 0);
    check_name("xz", AVK_CODEC_XZ, 0);
    check_name("lzma", AVK_CODEC_XZ, 1);
    check_name("zstd", AVK_CODEC_ZSTANDARD, 1);
    for (i = 0; i < N_CODECS; i++) {
        const char *n = avk_codec_name(all_codecs[i]);
        assert_non_null(n);
        AVKT_OK(avk_codec_from_name(n, strlen(n), &c, NULL, NULL));
        assert_int_equal(c, all_codecs[i]);
    }
    assert_string_equal(avk_codec_name(AVK_CODEC_ZSTANDARD), "zstandard");
    assert_string_equal(avk_codec_name(AVK_CODEC_XZ), "xz");
    assert_null(avk_codec_name((avk_codec)AVK_CODEC_COUNT));
    assert_null(avk_codec_name((avk_codec)-1));
    /* Length, not NUL, ends the name. */
    AVKT_OK(avk_codec_from_name("xzzz", 2, &c, &ns, NULL));
    assert_int_equal(c, AVK_CODEC_XZ);
    assert_int_equal(ns, 0);
    AVKT_ASSERT_STATUS(avk_codec_from_name("gzip", 4, &c, &ns, &err), AVK_ERR_CODEC);
    assert_int_equal(err.status, AVK_ERR_CODEC);
    assert_non_null(strstr(err.message, "\"gzip\""));
    AVKT_ASSERT_STATUS(avk_codec_from_name("", 0, &c, NULL, NULL), AVK_ERR_CODEC);
    AVKT_ASSERT_STATUS(avk_codec_from_name(NULL, 0, &c, NULL, NULL), AVK_ERR_CODEC);
    AVKT_ASSERT_STATUS(avk_codec_from_name("Deflate", 7, &c, NULL, NULL), AVK_ERR_CODEC);
    AVKT_ASSERT_STATUS(avk_codec_from_name("nulls", 5, &c, NULL, NULL), AVK_ERR_CODEC);
    AVKT_ASSERT_STATUS(avk_codec_from_name(NULL, 3, &c, NULL, NULL), AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_codec_from_name("xz", 2, NULL, NULL, NULL), AVK_ERR_INVALID_ARGUMENT);
}

/* This suite's build has every codec (tests/minimal covers a build with none). */
static void test_available(void **state)
{
    avk_buffer buf;
    avk_error err;
    size_t i;
    (void)state;
    for (i = 0; i < N_CODECS; i++)
        assert_int_equal(avk_codec_available(all_codecs[i]), 1);
    assert_int_equal(avk_codec_available((avk_codec)AVK_CODEC_COUNT), 0);
    assert_int_equal(avk_codec_available((avk_codec)-1), 0);
    /* A number outside the enum is a bad argument, not a codec left out. */
    avk_buffer_init(&buf, NULL);
    AVKT_ASSERT_STATUS(avk_codec_compress((avk_codec)AVK_CODEC_COUNT, 0, NULL, 0, &buf, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "unknown codec number 6");
    AVKT_ASSERT_STATUS(avk_codec_decompress((avk_codec)-1, NULL, 0, 10, &buf, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "unknown codec number -1");
    avk_buffer_destroy(&buf);
}

/* ---- round trips ------------------------------------------------------------ */

static uint8_t *make_random(size_t n, uint64_t seed)
{
    avkt_rng r = {seed};
    uint8_t *p = (uint8_t *)malloc(n ? n : 1);
    size_t i;
    assert_non_null(p);
    for (i = 0; i < n; i++)
        p[i] = (uint8_t)avkt_next(&r);
    return p;
}

/* Text-like: words from a small set, so every codec compresses it well. */
static uint8_t *make_compressible(size_t n, uint64_t seed)
{
    static const char *const words[] = {"avro ", "record ", "field ", "long ", "string ",
                                        "union ", "null ", "12345 ", "\n"};
    avkt_rng r = {seed};
    uint8_t *p = (uint8_t *)malloc(n ? n : 1);
    size_t i = 0;
    assert_non_null(p);
    while (i < n) {
        const char *w = words[avkt_below(&r, 9)];
        size_t k = strlen(w);
        if (k > n - i)
            k = n - i;
        memcpy(p + i, w, k);
        i += k;
    }
    return p;
}

static void levels_of(avk_codec c, int levels[4], int *count)
{
    *count = 0;
    levels[(*count)++] = 0;
    switch (c) {
    case AVK_CODEC_DEFLATE: levels[(*count)++] = 1; levels[(*count)++] = 12; break;
    case AVK_CODEC_ZSTANDARD: levels[(*count)++] = -5; levels[(*count)++] = 1;
                              levels[(*count)++] = 19; break;
    case AVK_CODEC_BZIP2: levels[(*count)++] = 1; levels[(*count)++] = 9; break;
    case AVK_CODEC_XZ: levels[(*count)++] = 1; levels[(*count)++] = 9; break;
    default: break;
    }
}

/* Compresses and decompresses data with c at level, reusing the buffers;
 * checks the exact limit passes and one byte less is LIMIT. */
static void round_trip(avk_codec c, int level, const uint8_t *data, size_t n, avk_buffer *packed,
                       avk_buffer *out)
{
    avk_error err;
    AVKT_OK(avk_codec_compress(c, level, data, n, packed, &err));
    AVKT_OK(avk_codec_decompress(c, packed->data, packed->len, n, out, &err));
    if (out->len != n || (n && memcmp(out->data, data, n) != 0))
        fail_msg("%s level %d: %zu bytes did not round-trip (%zu back)", avk_codec_name(c), level,
                 n, out->len);
    if (n > 0) {
        AVKT_ASSERT_STATUS(avk_codec_decompress(c, packed->data, packed->len, n - 1, out, &err),
                           AVK_ERR_LIMIT);
        assert_int_equal(out->len, 0);
        assert_int_equal(err.status, AVK_ERR_LIMIT);
    }
}

static void test_round_trips(void **state)
{
    static const size_t sizes[] = {0, 1, 5, 100, 4096, 70000, (size_t)1 << 20};
    avk_buffer packed, out;
    size_t i, s;
    (void)state;
    avk_buffer_init(&packed, NULL);
    avk_buffer_init(&out, NULL);
    for (s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        uint8_t *rnd = make_random(sizes[s], 1000 + s);
        uint8_t *txt = make_compressible(sizes[s], 2000 + s);
        for (i = 0; i < N_CODECS; i++) {
            int levels[4], nl, l;
            levels_of(all_codecs[i], levels, &nl);
            for (l = 0; l < nl; l++) {
                /* The slowest levels only on the smaller inputs. */
                if (sizes[s] > 70000 && levels[l] >= 12 && all_codecs[i] != AVK_CODEC_XZ &&
                    all_codecs[i] != AVK_CODEC_BZIP2)
                    continue;
                round_trip(all_codecs[i], levels[l], rnd, sizes[s], &packed, &out);
                round_trip(all_codecs[i], levels[l], txt, sizes[s], &packed, &out);
                if (sizes[s] == ((size_t)1 << 20) && all_codecs[i] != AVK_CODEC_NULL) {
                    /* Compressible data really is compressed. */
                    AVKT_OK(avk_codec_compress(all_codecs[i], levels[l], txt, sizes[s], &packed,
                                               NULL));
                    assert_true(packed.len < sizes[s] / 2);
                }
            }
        }
        free(rnd);
        free(txt);
    }
    avk_buffer_destroy(&packed);
    avk_buffer_destroy(&out);
    avk_buffer_destroy(&out); /* twice is harmless */
    avk_buffer_destroy(NULL);
}

/* Steady state: once the buffers are large enough nothing is allocated by
 * the buffers (codec libraries' own state aside: null, snappy and deflate
 * decompression allocate nothing through the allocator at all). */
static void test_reuse_allocates_nothing(void **state)
{
    avkt_failalloc fa;
    avk_buffer packed, out;
    uint8_t *txt = make_compressible(50000, 7);
    long before;
    int round;
    (void)state;
    avkt_failalloc_init(&fa, 0);
    avk_buffer_init(&packed, &fa.allocator);
    avk_buffer_init(&out, &fa.allocator);
    for (round = 0; round < 3; round++) {
        size_t i;
        for (i = 0; i < 3; i++) { /* null, deflate, snappy */
            before = fa.calls;
            AVKT_OK(avk_codec_compress(all_codecs[i], 0, txt, 50000, &packed, NULL));
            AVKT_OK(avk_codec_decompress(all_codecs[i], packed.data, packed.len, 50000, &out,
                                         NULL));
            if (round > 0)
                assert_int_equal(fa.calls, before);
        }
    }
    avk_buffer_destroy(&packed);
    avk_buffer_destroy(&out);
    assert_int_equal(fa.live_blocks, 0);
    assert_int_equal(fa.size_mismatches, 0);
    free(txt);
}

/* ---- known vectors ---------------------------------------------------------- */

static void decode_exact(avk_codec c, const uint8_t *in, size_t len, const char *want)
{
    avk_buffer out;
    avk_error err;
    avk_buffer_init(&out, NULL);
    AVKT_OK(avk_codec_decompress(c, in, len, 1000, &out, &err));
    assert_int_equal(out.len, strlen(want));
    assert_memory_equal(out.data, want, out.len);
    avk_buffer_destroy(&out);
}

static void test_known_vectors(void **state)
{
    static const uint8_t snappy_empty[] = {0x00, 0x00, 0x00, 0x00, 0x00};
    /* length 5, literal of 5, "hello", CRC-32("hello") = 0x3610a686 big-endian */
    static const uint8_t snappy_hello[] = {0x05, 0x10, 'h', 'e', 'l', 'l', 'o',
                                           0x36, 0x10, 0xa6, 0x86};
    static const uint8_t deflate_hello[] = {0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00}; /* zlib -15 */
    /* zstd(1) from a pipe: no content size, so the streaming path runs. */
    static const uint8_t zstd_pipe_hello[] = {0x28, 0xb5, 0x2f, 0xfd, 0x04, 0x58, 0x29, 0x00, 0x00,
                                              0x68, 0x65, 0x6c, 0x6c, 0x6f, 0xa3, 0x6d, 0x9f, 0x88};
    static const uint8_t zstd_file_hello[] = {0x28, 0xb5, 0x2f, 0xfd, 0x24, 0x05, 0x29, 0x00, 0x00,
                                              0x68, 0x65, 0x6c, 0x6c, 0x6f, 0xa3, 0x6d, 0x9f, 0x88};
    /* Python's bz2.compress(b"hello") and lzma.compress(b"hello"). */
    static const char bzip2_hex[] = "425a68393141592653591931653d00000081000244a000219a68334d0733"
                                    "8bb9229c28480c98b29e80";
    static const char xz_hex[] = "fd377a585a000004e6d6b4460200210116000000742fe5a301000468656c6c6f"
                                 "00000000b137b9dbe5da1e9b00011d05b82d80af1fb6f37d010000000004595a";
    uint8_t bin[128];
    size_t n;
    avk_buffer out;
    struct libdeflate_decompressor *d;
    size_t got;
    uint8_t *txt = make_compressible(30000, 3);
    uint8_t *back = (uint8_t *)malloc(30000);
    (void)state;

    avk_buffer_init(&out, NULL);
    AVKT_OK(avk_codec_compress(AVK_CODEC_SNAPPY, 0, NULL, 0, &out, NULL));
    assert_int_equal(out.len, sizeof snappy_empty);
    assert_memory_equal(out.data, snappy_empty, sizeof snappy_empty);
    AVKT_OK(avk_codec_compress(AVK_CODEC_SNAPPY, 0, (const uint8_t *)"hello", 5, &out, NULL));
    assert_int_equal(out.len, sizeof snappy_hello);
    assert_memory_equal(out.data, snappy_hello, sizeof snappy_hello);
    decode_exact(AVK_CODEC_SNAPPY, snappy_empty, sizeof snappy_empty, "");
    decode_exact(AVK_CODEC_SNAPPY, snappy_hello, sizeof snappy_hello, "hello");
    decode_exact(AVK_CODEC_DEFLATE, deflate_hello, sizeof deflate_hello, "hello");
    decode_exact(AVK_CODEC_ZSTANDARD, zstd_pipe_hello, sizeof zstd_pipe_hello, "hello");
    decode_exact(AVK_CODEC_ZSTANDARD, zstd_file_hello, sizeof zstd_file_hello, "hello");
    n = avkt_unhex(bzip2_hex, bin, sizeof bin);
    decode_exact(AVK_CODEC_BZIP2, bin, n, "hello");
    n = avkt_unhex(xz_hex, bin, sizeof bin);
    decode_exact(AVK_CODEC_XZ, bin, n, "hello");

    /* Our deflate is raw RFC 1951: libdeflate's own decoder reads it. */
    AVKT_OK(avk_codec_compress(AVK_CODEC_DEFLATE, 0, txt, 30000, &out, NULL));
    d = libdeflate_alloc_decompressor();
    assert_non_null(d);
    assert_int_equal(libdeflate_deflate_decompress(d, out.data, out.len, back, 30000, &got),
                     LIBDEFLATE_SUCCESS);
    assert_int_equal(got, 30000);
    assert_memory_equal(back, txt, 30000);
    libdeflate_free_decompressor(d);
    /* Our zstd frames state their size, and decode with ZSTD_decompress. */
    AVKT_OK(avk_codec_compress(AVK_CODEC_ZSTANDARD, 0, txt, 30000, &out, NULL));
    assert_int_equal(ZSTD_getFrameContentSize(out.data, out.len), 30000);
    assert_int_equal(ZSTD_decompress(back, 30000, out.data, out.len), 30000);
    assert_memory_equal(back, txt, 30000);
    avk_buffer_destroy(&out);
    free(txt);
    free(back);
}

/* ---- bad input ------------------------------------------------------------- */

static void expect_bad(avk_codec c, const uint8_t *in, size_t len, size_t max_out,
                       avk_status want, const char *what)
{
    avk_buffer out;
    avk_error err;
    avk_status st;
    avk_buffer_init(&out, NULL);
    st = avk_codec_decompress(c, in, len, max_out, &out, &err);
    if (st != want)
        fail_msg("%s %s: got %s, expected %s", avk_codec_name(c), what, avk_status_name(st),
                 avk_status_name(want));
    assert_int_equal(err.status, want);
    assert_true(err.message[0] != '\0');
    assert_int_equal(out.len, 0);
    avk_buffer_destroy(&out);
}

static void test_truncated(void **state)
{
    uint8_t *txt = make_compressible(65536, 11);
    avk_buffer packed;
    size_t i, cut;
    (void)state;
    avk_buffer_init(&packed, NULL);
    for (i = 1; i < N_CODECS; i++) {
        avk_codec c = all_codecs[i];
        AVKT_OK(avk_codec_compress(c, 0, txt, 65536, &packed, NULL));
        /* Cut anywhere from nothing to all but the last byte. The limit is
         * roomy: libdeflate reads zero bits past the end before it notices,
         * so a cut deflate stream at a tight limit is (rightly) LIMIT. */
        for (cut = 0; cut < packed.len; cut += (cut < 16 ? 1 : packed.len / 7 + 1))
            expect_bad(c, packed.data, cut, 1 << 20, AVK_ERR_CODEC, "truncated");
        expect_bad(c, packed.data, packed.len - 1, 1 << 20, AVK_ERR_CODEC, "last byte cut");
    }
    avk_buffer_destroy(&packed);
    free(txt);
}

static void test_corrupt(void **state)
{
    static const uint8_t ff[16] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                   0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    uint8_t *txt = make_compressible(65536, 12);
    uint8_t *copy;
    avk_buffer packed, out;
    size_t i;
    (void)state;
    avk_buffer_init(&packed, NULL);
    avk_buffer_init(&out, NULL);
    /* Bytes no encoder writes: reserved deflate block type, bad magics,
     * an overlong snappy length varint. */
    for (i = 1; i < N_CODECS; i++)
        expect_bad(all_codecs[i], ff, sizeof ff, 65536, AVK_ERR_CODEC, "0xff bytes");
    for (i = 1; i < N_CODECS; i++) {
        avk_codec c = all_codecs[i];
        AVKT_OK(avk_codec_compress(c, 0, txt, 65536, &packed, NULL));
        copy = (uint8_t *)malloc(packed.len + 1);
        memcpy(copy, packed.data, packed.len);
        /* Bytes after the end: deflate readers ignore them, the rest refuse. */
        copy[packed.len] = 0x42;
        if (c == AVK_CODEC_DEFLATE) {
            AVKT_OK(avk_codec_decompress(c, copy, packed.len + 1, 65536, &out, NULL));
            assert_int_equal(out.len, 65536);
        } else {
            /* (snappy: the block no longer ends where the CRC starts) */
            expect_bad(c, copy, packed.len + 1, 65536, AVK_ERR_CODEC, "trailing byte");
        }
        /* A flipped byte in the middle: xz and bzip2 carry CRCs, snappy
         * its Avro CRC (or the structure breaks). */
        if (c == AVK_CODEC_XZ || c == AVK_CODEC_BZIP2 || c == AVK_CODEC_SNAPPY) {
            avk_status st;
            copy[packed.len / 2] ^= 0x10;
            st = avk_codec_decompress(c, copy, packed.len, 1 << 20, &out, NULL);
            if (c == AVK_CODEC_SNAPPY)
                assert_true(st == AVK_ERR_CHECKSUM || st == AVK_ERR_CODEC);
            else
                AVKT_ASSERT_STATUS(st, AVK_ERR_CODEC);
        }
        free(copy);
    }
    /* zstd with a bad magic after one good frame. */
    AVKT_OK(avk_codec_compress(AVK_CODEC_ZSTANDARD, 0, txt, 1000, &packed, NULL));
    copy = (uint8_t *)malloc(packed.len + 8);
    memcpy(copy, packed.data, packed.len);
    memcpy(copy + packed.len, "\x28\xb5\x2f\xfe\x00\x00\x00\x00", 8);
    expect_bad(AVK_CODEC_ZSTANDARD, copy, packed.len + 8, 65536, AVK_ERR_CODEC, "second frame");
    free(copy);
    avk_buffer_destroy(&packed);
    avk_buffer_destroy(&out);
    free(txt);
}

static void test_snappy_crc(void **state)
{
    uint8_t *txt = make_compressible(10000, 13);
    avk_buffer packed, out;
    avk_error err;
    int b;
    (void)state;
    avk_buffer_init(&packed, NULL);
    avk_buffer_init(&out, NULL);
    AVKT_OK(avk_codec_compress(AVK_CODEC_SNAPPY, 0, txt, 10000, &packed, NULL));
    for (b = 1; b <= 4; b++) {
        packed.data[packed.len - (size_t)b] ^= 0x01;
        AVKT_ASSERT_STATUS(avk_codec_decompress(AVK_CODEC_SNAPPY, packed.data, packed.len, 10000,
                                                &out, &err),
                           AVK_ERR_CHECKSUM);
        assert_non_null(strstr(err.message, "CRC"));
        packed.data[packed.len - (size_t)b] ^= 0x01;
    }
    AVKT_OK(avk_codec_decompress(AVK_CODEC_SNAPPY, packed.data, packed.len, 10000, &out, NULL));
    /* "hello" with a wrong literal byte: structure fine, CRC not. */
    expect_bad(AVK_CODEC_SNAPPY,
               (const uint8_t *)"\x05\x10hellp\x36\x10\xa6\x86", 11, 100, AVK_ERR_CHECKSUM,
               "changed literal");
    expect_bad(AVK_CODEC_SNAPPY, (const uint8_t *)"\x00\x00\x00", 3, 100, AVK_ERR_CODEC, "short");
    avk_buffer_destroy(&packed);
    avk_buffer_destroy(&out);
    free(txt);
}

/* A zstd frame without its content size, as a streaming writer makes. */
static size_t zstd_unsized(const uint8_t *in, size_t n, uint8_t *dst, size_t cap)
{
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    ZSTD_inBuffer ib = {in, n, 0};
    ZSTD_outBuffer ob = {dst, cap, 0};
    size_t r;
    assert_non_null(cc);
    assert_false(ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 0)));
    r = ZSTD_compressStream2(cc, &ob, &ib, ZSTD_e_end);
    assert_int_equal(r, 0);
    ZSTD_freeCCtx(cc);
    assert_int_equal(ZSTD_getFrameContentSize(dst, ob.pos), ZSTD_CONTENTSIZE_UNKNOWN);
    return ob.pos;
}

static void test_bombs(void **state)
{
    const size_t big = (size_t)16 << 20, max_out = 65536;
    uint8_t *zeros = (uint8_t *)calloc(big, 1);
    uint8_t *unsized = (uint8_t *)malloc(1 << 20);
    avk_buffer packed, out;
    avkt_failalloc fa;
    avk_error err;
    size_t i, un = 0;
    (void)state;
    avk_buffer_init(&packed, NULL);
    for (i = 0; i <= N_CODECS; i++) {
        avk_codec c = i < N_CODECS ? all_codecs[i] : AVK_CODEC_ZSTANDARD;
        const uint8_t *in;
        size_t len;
        if (i < N_CODECS) {
            AVKT_OK(avk_codec_compress(c, 1, zeros, big, &packed, NULL));
            in = packed.data;
            len = packed.len;
            if (c != AVK_CODEC_NULL)
                assert_true(len < big / 16);
        } else {
            un = zstd_unsized(zeros, big, unsized, 1 << 20);
            in = unsized;
            len = un;
        }
        avkt_failalloc_init(&fa, 0);
        avk_buffer_init(&out, &fa.allocator);
        AVKT_ASSERT_STATUS(avk_codec_decompress(c, in, len, max_out, &out, &err), AVK_ERR_LIMIT);
        assert_non_null(strstr(err.message, "limit"));
        assert_int_equal(out.len, 0);
        /* The output buffer never passes the limit plus slack. */
        assert_true(out.cap <= max_out + AVKI_CODEC_SLACK);
        /* Through the allocator: only the buffer, plus the library's state
         * for bzip2 and xz (level 1: a 100 kB block, a 1 MiB dictionary)
         * and zstandard (its context and window: at most 2^23 bytes for
         * this max_out, 2 MiB for this frame). */
        if (c == AVK_CODEC_ZSTANDARD)
            assert_true(fa.peak_bytes <= max_out + AVKI_CODEC_SLACK + ((size_t)9 << 20));
        else if (c == AVK_CODEC_BZIP2 || c == AVK_CODEC_XZ)
            assert_true(fa.peak_bytes <= max_out + AVKI_CODEC_SLACK + ((size_t)2 << 20));
        else
            assert_true(fa.peak_bytes <= max_out + AVKI_CODEC_SLACK);
        /* Formats that state the size refuse before allocating anything. */
        if (c == AVK_CODEC_SNAPPY || (c == AVK_CODEC_ZSTANDARD && i < N_CODECS) ||
            c == AVK_CODEC_NULL)
            assert_int_equal(fa.peak_bytes, 0);
        avk_buffer_destroy(&out);
        assert_int_equal(fa.live_blocks, 0);
        assert_int_equal(fa.size_mismatches, 0);
        assert_int_equal(fa.bad_frees, 0);
    }
    /* The unsized zstd frame decodes in full when allowed. */
    avk_buffer_init(&out, NULL);
    AVKT_OK(avk_codec_decompress(AVK_CODEC_ZSTANDARD, unsized, un, big, &out, NULL));
    assert_int_equal(out.len, big);
    assert_true(out.data[0] == 0 && out.data[big - 1] == 0);
    AVKT_ASSERT_STATUS(avk_codec_decompress(AVK_CODEC_ZSTANDARD, unsized, un, big - 1, &out, NULL),
                       AVK_ERR_LIMIT);
    avk_buffer_destroy(&out);
    avk_buffer_destroy(&packed);
    free(zeros);
    free(unsized);
}

static void test_invalid_arguments(void **state)
{
    avk_buffer out;
    avk_error err;
    (void)state;
    avk_buffer_init(&out, NULL);
    AVKT_ASSERT_STATUS(avk_codec_compress(AVK_CODEC_DEFLATE, 13, (const uint8_t *)"a", 1, &out,
                                          &err),
                       AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_codec_compress(AVK_CODEC_BZIP2, 10, (const uint8_t *)"a", 1, &out, NULL),
                       AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_codec_compress(AVK_CODEC_XZ, -1, (const uint8_t *)"a", 1, &out, NULL),
                       AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_codec_compress(AVK_CODEC_ZSTANDARD, 100, (const uint8_t *)"a", 1, &out,
                                          NULL),
                       AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_codec_compress((avk_codec)17, 0, (const uint8_t *)"a", 1, &out, NULL),
                       AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_codec_decompress((avk_codec)-1, (const uint8_t *)"a", 1, 10, &out, NULL),
                       AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_codec_compress(AVK_CODEC_NULL, 0, NULL, 1, &out, NULL),
                       AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_codec_decompress(AVK_CODEC_NULL, (const uint8_t *)"a", 1, 10, NULL, NULL),
                       AVK_ERR_INVALID_ARGUMENT);
    /* Empty inputs: fine for null, a broken stream for the others. */
    AVKT_OK(avk_codec_decompress(AVK_CODEC_NULL, NULL, 0, 0, &out, NULL));
    assert_int_equal(out.len, 0);
    expect_bad(AVK_CODEC_ZSTANDARD, NULL, 0, 10, AVK_ERR_CODEC, "empty");
    expect_bad(AVK_CODEC_SNAPPY, NULL, 0, 10, AVK_ERR_CODEC, "empty");
    expect_bad(AVK_CODEC_XZ, NULL, 0, 10, AVK_ERR_CODEC, "empty");
    expect_bad(AVK_CODEC_BZIP2, NULL, 0, 10, AVK_ERR_CODEC, "empty");
    expect_bad(AVK_CODEC_DEFLATE, NULL, 0, 10, AVK_ERR_CODEC, "empty");
    avk_buffer_destroy(&out);
}

/* Fail the Nth allocation for every N: each failure is NO_MEMORY, nothing
 * leaks, and the buffer stays usable. */
static void test_failing_allocator(void **state)
{
    uint8_t *txt = make_compressible(200000, 14);
    size_t i;
    (void)state;
    for (i = 0; i < N_CODECS; i++) {
        avk_codec c = all_codecs[i];
        long n;
        int done = 0;
        for (n = 1; !done && n < 10000; n++) {
            avkt_failalloc fa;
            avk_buffer packed, out;
            avk_status st;
            avkt_failalloc_init(&fa, n);
            avk_buffer_init(&packed, &fa.allocator);
            avk_buffer_init(&out, &fa.allocator);
            st = avk_codec_compress(c, 0, txt, 200000, &packed, NULL);
            if (st == AVK_OK)
                st = avk_codec_decompress(c, packed.data, packed.len, 200000, &out, NULL);
            if (st == AVK_OK) {
                assert_int_equal(out.len, 200000);
                assert_memory_equal(out.data, txt, 200000);
                assert_int_equal(fa.failures, 0);
                done = 1;
            } else {
                if (st != AVK_ERR_NO_MEMORY)
                    fail_msg("%s: allocation %ld failing gave %s", avk_codec_name(c), n,
                             avk_status_name(st));
                assert_int_equal(fa.failures, 1);
                /* Usable again once memory is back. */
                fa.fail_at = 0;
                AVKT_OK(avk_codec_compress(c, 0, txt, 1000, &packed, NULL));
                AVKT_OK(avk_codec_decompress(c, packed.data, packed.len, 1000, &out, NULL));
                assert_memory_equal(out.data, txt, 1000);
            }
            avk_buffer_destroy(&packed);
            avk_buffer_destroy(&out);
            assert_int_equal(fa.live_blocks, 0);
            assert_int_equal(fa.size_mismatches, 0);
            assert_int_equal(fa.bad_frees, 0);
        }
        assert_true(done);
    }
    free(txt);
}

/* A kept context: block after block at changing levels, the same bytes as
 * the one-shot calls; after warm-up zstandard and deflate allocate nothing
 * per block (the contexts are kept); a corrupt block in between does not
 * spoil the next; zstd's contexts come from the context's allocator and go
 * back with it. */
static void test_context_reuse(void **state)
{
    uint8_t *txt = make_compressible(100000, 21);
    avk_buffer one, kept, out;
    avkt_failalloc fa;
    avk_codec_ctx *ctx;
    avk_error err;
    size_t i;
    (void)state;
    avkt_failalloc_init(&fa, 0);
    AVKT_OK(avk_codec_ctx_new(&fa.allocator, &ctx, &err));
    avk_buffer_init(&one, NULL);
    avk_buffer_init(&kept, NULL);
    avk_buffer_init(&out, NULL);
    for (i = 0; i < N_CODECS; i++) {
        avk_codec c = all_codecs[i];
        int levels[4], nl, l, round;
        levels_of(c, levels, &nl);
        for (round = 0; round < 2; round++) {
            for (l = 0; l < nl; l++) {
                size_t n = 100000 - (size_t)(l * 1000 + round);
                AVKT_OK(avk_codec_compress(c, levels[l], txt, n, &one, &err));
                AVKT_OK(avk_codec_ctx_compress(ctx, c, levels[l], txt, n, &kept, &err));
                assert_int_equal(kept.len, one.len);
                assert_memory_equal(kept.data, one.data, one.len);
                AVKT_OK(avk_codec_ctx_decompress(ctx, c, kept.data, kept.len, n, &out, &err));
                assert_int_equal(out.len, n);
                assert_memory_equal(out.data, txt, n);
                /* The same level again: the kept state is reused. */
                if (c == AVK_CODEC_ZSTANDARD || c == AVK_CODEC_DEFLATE) {
                    long again = fa.calls;
                    AVKT_OK(avk_codec_ctx_compress(ctx, c, levels[l], txt, n, &kept, &err));
                    AVKT_OK(avk_codec_ctx_decompress(ctx, c, kept.data, kept.len, n, &out,
                                                     &err));
                    assert_int_equal(fa.calls, again);
                }
            }
        }
        if (c != AVK_CODEC_NULL) {
            /* A corrupt block (here: truncated), then a good one. */
            AVKT_OK(avk_codec_ctx_compress(ctx, c, 0, txt, 50000, &kept, &err));
            assert_int_not_equal(avk_codec_ctx_decompress(ctx, c, kept.data, kept.len / 2, 50000,
                                                          &out, &err),
                                 AVK_OK);
            AVKT_OK(avk_codec_ctx_decompress(ctx, c, kept.data, kept.len, 50000, &out, &err));
            assert_memory_equal(out.data, txt, 50000);
        }
    }
    assert_true(fa.live_blocks > 0); /* zstd's kept contexts */
    avk_codec_ctx_free(ctx);
    avk_codec_ctx_free(NULL);
    assert_int_equal(fa.live_blocks, 0);
    assert_int_equal(fa.size_mismatches, 0);
    /* NULL context: the one-shot calls. */
    AVKT_OK(avk_codec_ctx_compress(NULL, AVK_CODEC_DEFLATE, 0, txt, 1000, &kept, &err));
    AVKT_OK(avk_codec_ctx_decompress(NULL, AVK_CODEC_DEFLATE, kept.data, kept.len, 1000, &out,
                                     &err));
    assert_memory_equal(out.data, txt, 1000);
    AVKT_ASSERT_STATUS(avk_codec_ctx_new(NULL, NULL, &err), AVK_ERR_INVALID_ARGUMENT);
    avk_buffer_destroy(&one);
    avk_buffer_destroy(&kept);
    avk_buffer_destroy(&out);
    free(txt);
}

/* The failing-allocator loop through a context: NO_MEMORY, no leak. */
static void test_context_failing_allocator(void **state)
{
    uint8_t *txt = make_compressible(100000, 22);
    long n;
    int done = 0;
    (void)state;
    for (n = 1; !done && n < 10000; n++) {
        avkt_failalloc fa;
        avk_codec_ctx *ctx = NULL;
        avk_buffer packed, out;
        avk_status st;
        avkt_failalloc_init(&fa, n);
        avk_buffer_init(&packed, &fa.allocator);
        avk_buffer_init(&out, &fa.allocator);
        st = avk_codec_ctx_new(&fa.allocator, &ctx, NULL);
        if (st == AVK_OK)
            st = avk_codec_ctx_compress(ctx, AVK_CODEC_ZSTANDARD, 3, txt, 100000, &packed, NULL);
        if (st == AVK_OK)
            st = avk_codec_ctx_decompress(ctx, AVK_CODEC_ZSTANDARD, packed.data, packed.len,
                                          100000, &out, NULL);
        if (st == AVK_OK) {
            assert_memory_equal(out.data, txt, 100000);
            done = 1;
        } else {
            assert_int_equal(st, AVK_ERR_NO_MEMORY);
        }
        avk_codec_ctx_free(ctx);
        avk_buffer_destroy(&packed);
        avk_buffer_destroy(&out);
        assert_int_equal(fa.live_blocks, 0);
        assert_int_equal(fa.size_mismatches, 0);
    }
    assert_true(done);
    free(txt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_available),
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_reuse_allocates_nothing),
        cmocka_unit_test(test_known_vectors),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_corrupt),
        cmocka_unit_test(test_snappy_crc),
        cmocka_unit_test(test_bombs),
        cmocka_unit_test(test_context_reuse),
        cmocka_unit_test(test_context_failing_allocator),
        cmocka_unit_test(test_invalid_arguments),
        cmocka_unit_test(test_failing_allocator),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
