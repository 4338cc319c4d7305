/* Unit tests for writers: memory growth and limits, stream sinks, bulk writes, flushing, errors, allocation failures. */
#define _DEFAULT_SOURCE 1
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "avkt.h"
#include "failalloc.h"
#include "io.h"

/* ---- expected bytes, built value by value ------------------------------------- */

typedef struct expect {
    uint8_t *bytes;
    size_t len, cap;
} expect;

static void expect_reserve(expect *e, size_t n)
{
    if (e->len + n > e->cap) {
        size_t cap = e->cap ? e->cap : 4096;
        while (cap < e->len + n)
            cap *= 2;
        e->bytes = (uint8_t *)realloc(e->bytes, cap);
        assert_non_null(e->bytes);
        e->cap = cap;
    }
}

static void expect_long(expect *e, int64_t v)
{
    expect_reserve(e, AVK_VARINT_LONG_MAX);
    e->len += avk_varint_encode_long(e->bytes + e->len, v);
}

static void expect_raw(expect *e, const void *p, size_t n)
{
    if (n == 0)
        return;
    expect_reserve(e, n);
    memcpy(e->bytes + e->len, p, n);
    e->len += n;
}

static void expect_free(expect *e)
{
    free(e->bytes);
    memset(e, 0, sizeof *e);
}

/* ---- a mixed workload every writer runs ---------------------------------------- */

/* Writes values of every kind through single and bulk calls into w and
 * mirrors them into e. Stops at the first failing call and returns its
 * status; e then ends with the bytes of the failed call too, and *ok_len
 * (when not NULL) is e's length before that call. */
static avk_status workload_ex(avk_writer *w, expect *e, uint64_t seed, size_t rounds,
                              avk_error *err, size_t *ok_len)
{
    avkt_rng rng;
    int64_t longs[300];
    int32_t ints[300];
    uint8_t blob[700];
    size_t r, i;
    rng.s = seed;
    for (r = 0; r < rounds; r++) {
        unsigned what = (unsigned)avkt_below(&rng, 8);
        avk_status st = AVK_OK;
        size_t n = 1 + (size_t)avkt_below(&rng, avkt_below(&rng, 2) ? 9 : 300);
        expect pending = {0};
        switch (what) {
        case 0: {
            int64_t v = avkt_mixed_long(&rng);
            st = avk_writer_write_long(w, v, err);
            expect_long(&pending, v);
            break;
        }
        case 1: {
            int32_t v = avkt_mixed_int(&rng);
            st = avk_writer_write_int(w, v, err);
            expect_long(&pending, v);
            break;
        }
        case 2:
            for (i = 0; i < n; i++) {
                longs[i] = avkt_mixed_long(&rng);
                expect_long(&pending, longs[i]);
            }
            st = avk_writer_write_longs(w, longs, n, err);
            break;
        case 3:
            for (i = 0; i < n; i++) {
                ints[i] = avkt_mixed_int(&rng);
                expect_long(&pending, ints[i]);
            }
            st = avk_writer_write_ints(w, ints, n, err);
            break;
        case 4: {
            static const size_t sizes[] = {0, 1, 7, 63, 64, 65, 100, 127, 128, 129, 300, 700};
            n = sizes[avkt_below(&rng, sizeof sizes / sizeof sizes[0])];
            for (i = 0; i < n; i++)
                blob[i] = (uint8_t)avkt_next(&rng);
            st = avk_writer_write_raw(w, blob, n, err);
            expect_raw(&pending, blob, n);
            break;
        }
        case 5: {
            float f = (float)(int32_t)avkt_next(&rng) / 8.0f;
            st = avk_writer_write_float(w, f, err);
            expect_raw(&pending, &f, 4);
            break;
        }
        case 6: {
            double d = (double)(int64_t)avkt_next(&rng) / 7.0;
            st = avk_writer_write_double(w, d, err);
            expect_raw(&pending, &d, 8);
            break;
        }
        default: {
            int b = (int)avkt_below(&rng, 3); /* 2 is written as 1 */
            uint8_t byte = b ? 1 : 0;
            st = avk_writer_write_boolean(w, b, err);
            expect_raw(&pending, &byte, 1);
            break;
        }
        }
        if (st != AVK_OK) {
            if (ok_len)
                *ok_len = e->len;
            if (pending.len)
                expect_raw(e, pending.bytes, pending.len);
            expect_free(&pending);
            return st;
        }
        if (pending.len)
            expect_raw(e, pending.bytes, pending.len);
        expect_free(&pending);
        if (avk_writer_offset(w) != e->len)
            fail_msg("round %zu: writer offset %llu, expected %zu", r,
                     (unsigned long long)avk_writer_offset(w), e->len);
    }
    if (ok_len)
        *ok_len = e->len;
    return AVK_OK;
}

static avk_status workload(avk_writer *w, expect *e, uint64_t seed, size_t rounds, avk_error *err)
{
    return workload_ex(w, e, seed, rounds, err, NULL);
}

static void assert_prefix(const uint8_t *got, size_t got_len, const expect *e, const char *what)
{
    if (got_len > e->len)
        fail_msg("%s: %zu bytes, expected at most %zu", what, got_len, e->len);
    if (got_len && memcmp(got, e->bytes, got_len) != 0)
        fail_msg("%s: bytes differ from the expected ones", what);
}

static void assert_bytes(const uint8_t *got, size_t got_len, const expect *e, const char *what)
{
    if (got_len != e->len)
        fail_msg("%s: %zu bytes, expected %zu", what, got_len, e->len);
    assert_prefix(got, got_len, e, what);
}

/* ---- memory writer ------------------------------------------------------------- */

static void test_memory_grows(void **state)
{
    avk_writer w;
    avk_writer_options opts;
    avk_error err;
    expect e = {0};
    avkt_rng rng = {11};
    const uint8_t *data;
    size_t len, i;
    (void)state;
    memset(&opts, 0, sizeof opts);
    opts.struct_size = sizeof opts;
    opts.buffer_size = 64;
    AVKT_OK(avk_writer_init_memory(&w, &opts, &err));
    assert_true(w.end - w.pos == 64);
    for (i = 0; i < 100000; i++) {
        int64_t v = avkt_mixed_long(&rng);
        AVKT_OK(avk_writer_write_long(&w, v, &err));
        expect_long(&e, v);
    }
    data = avk_writer_data(&w, &len);
    assert_bytes(data, len, &e, "100k single longs");
    assert_true(avk_writer_offset(&w) == e.len);
    /* flush is a no-op for memory */
    AVKT_OK(avk_writer_flush(&w, &err));
    data = avk_writer_data(&w, &len);
    assert_int_equal(len, e.len);
    /* reset keeps the buffer */
    avk_writer_reset(&w);
    data = avk_writer_data(&w, &len);
    assert_int_equal(len, 0);
    assert_true(avk_writer_offset(&w) == 0);
    AVKT_OK(avk_writer_write_long(&w, -1, &err));
    data = avk_writer_data(&w, &len);
    assert_int_equal(len, 1);
    assert_int_equal(data[0], 1);
    avk_writer_destroy(&w);
    avk_writer_destroy(&w); /* twice is fine */
    expect_free(&e);
}

static void test_memory_workload(void **state)
{
    size_t b;
    (void)state;
    for (b = 0; b < 3; b++) {
        static const size_t buffers[] = {64, 1000, 0};
        avk_writer w;
        avk_writer_options opts;
        avk_error err;
        expect e = {0};
        const uint8_t *data;
        size_t len;
        memset(&opts, 0, sizeof opts);
        opts.struct_size = sizeof opts;
        opts.buffer_size = buffers[b];
        AVKT_OK(avk_writer_init_memory(&w, &opts, &err));
        AVKT_OK(workload(&w, &e, 100 + b, 3000, &err));
        data = avk_writer_data(&w, &len);
        assert_bytes(data, len, &e, "memory workload");
        avk_writer_destroy(&w);
        expect_free(&e);
    }
}

/* Bulk writes equal the single-value bytes for every count, in memory and
 * through small stream buffers (which split them into chunks). */
static void test_bulk_equals_single(void **state)
{
    avkt_rng rng = {12};
    size_t n;
    (void)state;
    for (n = 0; n <= 300; n += (n < 40 ? 1 : 11)) {
        int64_t longs[300];
        int32_t ints[300];
        expect el = {0}, ei = {0};
        size_t i, b;
        for (i = 0; i < n; i++) {
            longs[i] = avkt_below(&rng, 3) ? avkt_mixed_long(&rng) : (int64_t)avkt_below(&rng, 64);
            ints[i] = avkt_below(&rng, 3) ? avkt_mixed_int(&rng) : (int32_t)avkt_below(&rng, 64);
            expect_long(&el, longs[i]);
            expect_long(&ei, ints[i]);
        }
        for (b = 0; b < 3; b++) {
            static const size_t buffers[] = {64, 75, 0};
            avk_writer w;
            avk_writer_options opts;
            avk_error err;
            avkt_sink sink;
            const uint8_t *data;
            size_t len;
            memset(&opts, 0, sizeof opts);
            opts.struct_size = sizeof opts;
            opts.buffer_size = buffers[b];
            /* memory */
            AVKT_OK(avk_writer_init_memory(&w, &opts, &err));
            AVKT_OK(avk_writer_write_longs(&w, longs, n, &err));
            data = avk_writer_data(&w, &len);
            assert_bytes(data, len, &el, "memory write_longs");
            avk_writer_reset(&w);
            AVKT_OK(avk_writer_write_ints(&w, ints, n, &err));
            data = avk_writer_data(&w, &len);
            assert_bytes(data, len, &ei, "memory write_ints");
            avk_writer_destroy(&w);
            /* stream */
            avkt_sink_init(&sink);
            AVKT_OK(avk_writer_init_sink(&w, avkt_sink_write, &sink, &opts, &err));
            AVKT_OK(avk_writer_write_longs(&w, longs, n, &err));
            AVKT_OK(avk_writer_flush(&w, &err));
            assert_bytes(sink.data, sink.len, &el, "stream write_longs");
            AVKT_OK(avk_writer_write_ints(&w, ints, n, &err));
            AVKT_OK(avk_writer_flush(&w, &err));
            assert_int_equal(sink.len, el.len + ei.len);
            assert_memory_equal(sink.data + el.len, ei.bytes, ei.len);
            avk_writer_destroy(&w);
            avkt_sink_destroy(&sink);
        }
        expect_free(&el);
        expect_free(&ei);
    }
}

static void test_memory_max_size(void **state)
{
    avk_writer w;
    avk_writer_options opts;
    avk_error err;
    uint8_t blob[1000];
    const uint8_t *data;
    size_t len, i;
    expect e = {0};
    (void)state;
    for (i = 0; i < sizeof blob; i++)
        blob[i] = (uint8_t)(i * 7);
    memset(&opts, 0, sizeof opts);
    opts.struct_size = sizeof opts;
    opts.buffer_size = 64;
    opts.max_size = 1000;
    /* Raw bytes fill it exactly; one more byte is over the limit. */
    AVKT_OK(avk_writer_init_memory(&w, &opts, &err));
    AVKT_OK(avk_writer_write_raw(&w, blob, 600, &err));
    AVKT_OK(avk_writer_write_raw(&w, blob + 600, 400, &err));
    avk_error_clear(&err);
    AVKT_ASSERT_STATUS(avk_writer_write_raw(&w, blob, 1, &err), AVK_ERR_LIMIT);
    assert_int_equal(err.status, AVK_ERR_LIMIT);
    assert_true(strlen(err.message) > 0);
    AVKT_ASSERT_STATUS(avk_writer_reserve(&w, 1, &err), AVK_ERR_LIMIT);
    data = avk_writer_data(&w, &len);
    assert_int_equal(len, 1000);
    assert_memory_equal(data, blob, 1000); /* nothing lost */
    /* After reset the writer is usable again. */
    avk_writer_reset(&w);
    AVKT_OK(avk_writer_write_long(&w, 5, &err));
    avk_writer_destroy(&w);

    /* Varints until the limit: LIMIT, and what was written is intact. */
    AVKT_OK(avk_writer_init_memory(&w, &opts, &err));
    for (i = 0;; i++) {
        avk_status st = avk_writer_write_long(&w, INT64_MIN, &err);
        if (st != AVK_OK) {
            AVKT_ASSERT_STATUS(st, AVK_ERR_LIMIT);
            break;
        }
        expect_long(&e, INT64_MIN);
        assert_true(i < 1000);
    }
    data = avk_writer_data(&w, &len);
    assert_bytes(data, len, &e, "varints up to the limit");
    assert_int_equal(len, 1000); /* 100 ten-byte values fit exactly */
    avk_writer_destroy(&w);
    expect_free(&e);

    /* Bulk writes too. */
    {
        int64_t many[200];
        for (i = 0; i < 200; i++)
            many[i] = INT64_MAX;
        AVKT_OK(avk_writer_init_memory(&w, &opts, &err));
        avk_error_clear(&err);
        AVKT_ASSERT_STATUS(avk_writer_write_longs(&w, many, 200, &err), AVK_ERR_LIMIT);
        assert_int_equal(err.status, AVK_ERR_LIMIT);
        AVKT_OK(avk_writer_write_longs(&w, many, 50, &err));
        data = avk_writer_data(&w, &len);
        assert_true(len <= 1000);
        avk_writer_destroy(&w);
    }

    /* A first buffer larger than the limit is cut to it. */
    opts.buffer_size = 4096;
    opts.max_size = 100;
    AVKT_OK(avk_writer_init_memory(&w, &opts, &err));
    assert_true(w.end - w.pos <= 100);
    AVKT_OK(avk_writer_write_raw(&w, blob, 100, &err));
    AVKT_ASSERT_STATUS(avk_writer_write_raw(&w, blob, 1, NULL), AVK_ERR_LIMIT);
    avk_writer_destroy(&w);
}

static void test_memory_reserve(void **state)
{
    avk_writer w;
    avk_writer_options opts;
    avk_error err;
    (void)state;
    memset(&opts, 0, sizeof opts);
    opts.struct_size = sizeof opts;
    opts.buffer_size = 64;
    AVKT_OK(avk_writer_init_memory(&w, &opts, &err));
    AVKT_OK(avk_writer_reserve(&w, 100000, &err));
    assert_true(w.end - w.pos >= 100000);
    memset(w.pos, 0x42, 100000);
    w.pos += 100000;
    assert_true(avk_writer_offset(&w) == 100000);
    avk_writer_destroy(&w);
}

/* ---- stream writers ------------------------------------------------------------- */

static void test_stream_sink_workload(void **state)
{
    static const size_t buffers[] = {64, 65, 100, 1000, 0};
    size_t b;
    (void)state;
    for (b = 0; b < sizeof buffers / sizeof buffers[0]; b++) {
        avk_writer w;
        avk_writer_options opts;
        avk_error err;
        avkt_sink sink;
        expect e = {0};
        size_t pending;
        memset(&opts, 0, sizeof opts);
        opts.struct_size = sizeof opts;
        opts.buffer_size = buffers[b];
        avkt_sink_init(&sink);
        AVKT_OK(avk_writer_init_sink(&w, avkt_sink_write, &sink, &opts, &err));
        AVKT_OK(workload(&w, &e, 200 + b, 3000, &err));
        avk_writer_data(&w, &pending);
        assert_int_equal(sink.len + pending, e.len); /* nothing lost, nothing twice */
        assert_prefix(sink.data, sink.len, &e, "sink before flush");
        AVKT_OK(avk_writer_flush(&w, &err));
        assert_bytes(sink.data, sink.len, &e, "sink after flush");
        assert_true(avk_writer_offset(&w) == e.len);
        avk_writer_destroy(&w);
        avkt_sink_destroy(&sink);
        expect_free(&e);
    }
}

/* Bytes reach the sink only when the buffer cannot take the next value,
 * and on flush. */
static void test_stream_flush_semantics(void **state)
{
    avk_writer w;
    avk_writer_options opts;
    avk_error err;
    avkt_sink sink;
    uint8_t blob[200];
    size_t len, i;
    long calls;
    (void)state;
    for (i = 0; i < sizeof blob; i++)
        blob[i] = (uint8_t)i;
    memset(&opts, 0, sizeof opts);
    opts.struct_size = sizeof opts;
    opts.buffer_size = 64;
    avkt_sink_init(&sink);
    AVKT_OK(avk_writer_init_sink(&w, avkt_sink_write, &sink, &opts, &err));
    assert_true(w.end - w.pos == 64);
    /* Flushing an empty buffer calls nothing. */
    AVKT_OK(avk_writer_flush(&w, &err));
    assert_int_equal(sink.calls, 0);
    AVKT_OK(avk_writer_write_raw(&w, blob, 63, &err));
    assert_int_equal(sink.calls, 0);
    AVKT_OK(avk_writer_write_raw(&w, blob + 63, 1, &err));
    assert_int_equal(sink.calls, 0); /* exactly full, still not sent */
    AVKT_OK(avk_writer_write_raw(&w, blob + 64, 1, &err));
    assert_int_equal(sink.calls, 1);
    assert_int_equal(sink.len, 64);
    avk_writer_data(&w, &len);
    assert_int_equal(len, 1);
    assert_true(avk_writer_offset(&w) == 65);
    AVKT_OK(avk_writer_flush(&w, &err));
    assert_int_equal(sink.calls, 2);
    assert_int_equal(sink.len, 65);
    assert_memory_equal(sink.data, blob, 65);
    AVKT_OK(avk_writer_flush(&w, &err));
    assert_int_equal(sink.calls, 2);

    /* Varints: every sink call carries a buffer that could not take
     * another value of at most 10 bytes. */
    calls = sink.calls;
    for (i = 0; i < 1000; i++)
        AVKT_OK(avk_writer_write_long(&w, (int64_t)(i % 50), &err));
    assert_true(sink.calls > calls);
    for (; calls < sink.calls; calls++)
        if (sink.call_sizes[calls] + AVK_VARINT_LONG_MAX <= 64 || sink.call_sizes[calls] > 64)
            fail_msg("sink call %ld took %zu bytes from a 64-byte buffer", calls,
                     sink.call_sizes[calls]);
    avk_writer_data(&w, &len);
    assert_int_equal(sink.len + len, 65 + 1000);
    /* Large raw writes pass straight through once the buffer is flushed. */
    calls = sink.calls;
    AVKT_OK(avk_writer_write_raw(&w, blob, 200, &err));
    avk_writer_data(&w, &len);
    assert_true(len < 64);
    assert_true(sink.len + len == 65 + 1000 + 200);
    AVKT_OK(avk_writer_flush(&w, &err));
    assert_int_equal(sink.len, 65 + 1000 + 200);
    assert_memory_equal(sink.data + 1065, blob, 200);
    /* Destroy does not flush. */
    AVKT_OK(avk_writer_write_long(&w, 1, &err));
    calls = sink.calls;
    avk_writer_destroy(&w);
    assert_int_equal(sink.calls, calls);
    assert_int_equal(sink.len, 1265);
    avkt_sink_destroy(&sink);
}

static void test_stream_reserve(void **state)
{
    avk_writer w;
    avk_writer_options opts;
    avk_error err;
    avkt_sink sink;
    (void)state;
    memset(&opts, 0, sizeof opts);
    opts.struct_size = sizeof opts;
    opts.buffer_size = 64;
    avkt_sink_init(&sink);
    AVKT_OK(avk_writer_init_sink(&w, avkt_sink_write, &sink, &opts, &err));
    AVKT_OK(avk_writer_reserve(&w, 64, &err));
    assert_true(w.end - w.pos >= 64);
    avk_error_clear(&err);
    AVKT_ASSERT_STATUS(avk_writer_reserve(&w, 65, &err), AVK_ERR_INVALID_ARGUMENT);
    assert_int_equal(err.status, AVK_ERR_INVALID_ARGUMENT);
    AVKT_OK(avk_writer_write_raw(&w, "abc", 3, &err));
    AVKT_OK(avk_writer_reserve(&w, 62, &err)); /* flushes */
    assert_int_equal(sink.len, 3);
    assert_true(w.end - w.pos >= 62);
    avk_writer_destroy(&w);
    avkt_sink_destroy(&sink);
}

static void read_all_fd(int fd, uint8_t *buf, size_t want)
{
    size_t done = 0;
    while (done < want) {
        ssize_t n = read(fd, buf + done, want - done);
        assert_true(n > 0);
        done += (size_t)n;
    }
}

static void test_stream_fd(void **state)
{
    static const size_t buffers[] = {64, 0};
    size_t b;
    (void)state;
    for (b = 0; b < 2; b++) {
        char path[] = "/tmp/avk_writer_test_XXXXXX";
        int fd = mkstemp(path);
        avk_writer w;
        avk_writer_options opts;
        avk_error err;
        expect e = {0};
        uint8_t *back;
        uint8_t extra;
        assert_true(fd >= 0);
        unlink(path);
        memset(&opts, 0, sizeof opts);
        opts.struct_size = sizeof opts;
        opts.buffer_size = buffers[b];
        AVKT_OK(avk_writer_init_fd(&w, fd, &opts, &err));
        AVKT_OK(workload(&w, &e, 300 + b, 3000, &err));
        AVKT_OK(avk_writer_flush(&w, &err));
        avk_writer_destroy(&w);
        assert_true(lseek(fd, 0, SEEK_SET) == 0);
        back = (uint8_t *)malloc(e.len + 1);
        assert_non_null(back);
        read_all_fd(fd, back, e.len);
        assert_int_equal(read(fd, &extra, 1), 0);
        assert_bytes(back, e.len, &e, "fd contents");
        free(back);
        assert_int_equal(close(fd), 0); /* still open after destroy */
        expect_free(&e);
    }
}

static void test_stream_file(void **state)
{
    static const size_t buffers[] = {64, 0};
    size_t b;
    (void)state;
    for (b = 0; b < 2; b++) {
        FILE *fp = tmpfile();
        avk_writer w;
        avk_writer_options opts;
        avk_error err;
        expect e = {0};
        uint8_t *back;
        assert_non_null(fp);
        memset(&opts, 0, sizeof opts);
        opts.struct_size = sizeof opts;
        opts.buffer_size = buffers[b];
        AVKT_OK(avk_writer_init_file(&w, fp, &opts, &err));
        AVKT_OK(workload(&w, &e, 400 + b, 3000, &err));
        AVKT_OK(avk_writer_flush(&w, &err));
        avk_writer_destroy(&w);
        assert_int_equal(fflush(fp), 0);
        rewind(fp);
        back = (uint8_t *)malloc(e.len + 1);
        assert_non_null(back);
        assert_int_equal(fread(back, 1, e.len + 1, fp), e.len);
        assert_bytes(back, e.len, &e, "FILE contents");
        free(back);
        assert_int_equal(fclose(fp), 0);
        expect_free(&e);
    }
}

/* A sink that fails: its status and err come back from the write that
 * needed it or from flush; what it accepted before is intact. */
static void test_stream_sink_error(void **state)
{
    static const size_t limits[] = {0, 1, 63, 64, 65, 500, 5000, 20000};
    size_t l, s_i;
    (void)state;
    for (l = 0; l < sizeof limits / sizeof limits[0]; l++) {
        for (s_i = 0; s_i < 2; s_i++) {
            static const avk_status statuses[] = {AVK_ERR_IO, AVK_ERR_CODEC};
            avk_writer w;
            avk_writer_options opts;
            avk_error err;
            avkt_sink sink;
            expect e = {0};
            avk_status st;
            memset(&opts, 0, sizeof opts);
            opts.struct_size = sizeof opts;
            opts.buffer_size = 64;
            avkt_sink_init_failing(&sink, limits[l], statuses[s_i]);
            AVKT_OK(avk_writer_init_sink(&w, avkt_sink_write, &sink, &opts, &err));
            avk_error_clear(&err);
            st = workload(&w, &e, 500 + l, 2000, &err);
            if (st == AVK_OK) {
                avk_error_clear(&err);
                st = avk_writer_flush(&w, &err);
            }
            /* The workload writes far more than any limit here. */
            AVKT_ASSERT_STATUS(st, statuses[s_i]);
            assert_int_equal(err.status, statuses[s_i]);
            if (statuses[s_i] == AVK_ERR_IO)
                assert_int_equal(err.sys_errno, EIO);
            assert_true(sink.error_calls >= 1);
            assert_true(sink.len <= limits[l]);
            assert_prefix(sink.data, sink.len, &e, "bytes the sink took");
            /* Flushing again reports the error again. */
            AVKT_ASSERT_STATUS(avk_writer_flush(&w, NULL), statuses[s_i]);
            avk_writer_destroy(&w);
            avkt_sink_destroy(&sink);
            expect_free(&e);
        }
    }
}

/* ---- creation errors and allocation failures -------------------------------------- */

static void test_init_errors(void **state)
{
    avk_writer w;
    avk_writer_options opts;
    avk_error err;
    avkt_sink sink;
    FILE *fp = tmpfile();
    struct {
        avk_writer_options o;
        uint64_t future_field;
    } bigger;
    (void)state;
    assert_non_null(fp);
    avkt_sink_init(&sink);
    memset(&opts, 0, sizeof opts);
    opts.struct_size = sizeof opts - 1;
    avk_error_clear(&err);
    AVKT_ASSERT_STATUS(avk_writer_init_memory(&w, &opts, &err), AVK_ERR_INVALID_ARGUMENT);
    assert_int_equal(err.status, AVK_ERR_INVALID_ARGUMENT);
    avk_writer_destroy(&w);
    AVKT_ASSERT_STATUS(avk_writer_init_sink(&w, avkt_sink_write, &sink, &opts, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    avk_writer_destroy(&w);
    AVKT_ASSERT_STATUS(avk_writer_init_fd(&w, 1, &opts, &err), AVK_ERR_INVALID_ARGUMENT);
    avk_writer_destroy(&w);
    AVKT_ASSERT_STATUS(avk_writer_init_file(&w, fp, &opts, &err), AVK_ERR_INVALID_ARGUMENT);
    avk_writer_destroy(&w);
    opts.struct_size = 0;
    AVKT_ASSERT_STATUS(avk_writer_init_memory(&w, &opts, NULL), AVK_ERR_INVALID_ARGUMENT);
    avk_writer_destroy(&w);

    memset(&bigger, 0, sizeof bigger);
    bigger.o.struct_size = sizeof bigger;
    AVKT_OK(avk_writer_init_memory(&w, &bigger.o, &err));
    avk_writer_destroy(&w);

    AVKT_ASSERT_STATUS(avk_writer_init_sink(&w, NULL, &sink, NULL, &err), AVK_ERR_INVALID_ARGUMENT);
    avk_writer_destroy(&w);
    AVKT_ASSERT_STATUS(avk_writer_init_fd(&w, -1, NULL, &err), AVK_ERR_INVALID_ARGUMENT);
    avk_writer_destroy(&w);
    AVKT_ASSERT_STATUS(avk_writer_init_file(&w, NULL, NULL, &err), AVK_ERR_INVALID_ARGUMENT);
    avk_writer_destroy(&w);
    assert_int_equal(sink.calls, 0);
    avkt_sink_destroy(&sink);
    fclose(fp);
}

/* Every init fails cleanly when its one allocation does. */
static void test_init_no_memory(void **state)
{
    int kind;
    (void)state;
    for (kind = 0; kind < 4; kind++) {
        avkt_failalloc fa;
        avk_writer w;
        avk_writer_options opts;
        avk_error err;
        avkt_sink sink;
        FILE *fp = NULL;
        avk_status st;
        avkt_failalloc_init(&fa, 1);
        avkt_sink_init(&sink);
        memset(&opts, 0, sizeof opts);
        opts.struct_size = sizeof opts;
        opts.allocator = &fa.allocator;
        avk_error_clear(&err);
        switch (kind) {
        case 0: st = avk_writer_init_memory(&w, &opts, &err); break;
        case 1: st = avk_writer_init_sink(&w, avkt_sink_write, &sink, &opts, &err); break;
        case 2: st = avk_writer_init_fd(&w, 1, &opts, &err); break;
        default:
            fp = tmpfile();
            assert_non_null(fp);
            st = avk_writer_init_file(&w, fp, &opts, &err);
            break;
        }
        AVKT_ASSERT_STATUS(st, AVK_ERR_NO_MEMORY);
        assert_int_equal(err.status, AVK_ERR_NO_MEMORY);
        assert_int_equal(fa.failures, 1);
        avk_writer_destroy(&w);
        assert_int_equal(fa.live_blocks, 0);
        assert_int_equal(fa.live_bytes, 0);
        if (fp)
            fclose(fp);
        avkt_sink_destroy(&sink);
    }
}

/* SQLite's loop: fail allocation N for N = 1, 2, ... until a run needs no
 * failure. Every call returns OK or NO_MEMORY; on NO_MEMORY the bytes
 * written so far are intact; destroy leaves nothing allocated. */
static void test_failing_allocator_loop(void **state)
{
    int fail_all;
    (void)state;
    for (fail_all = 0; fail_all <= 1; fail_all++) {
        long n;
        for (n = 1;; n++) {
            avkt_failalloc fa;
            avk_writer w;
            avk_writer_options opts;
            avk_error err;
            expect e = {0};
            avk_status st;
            avkt_failalloc_init(&fa, n);
            fa.fail_all_after = fail_all;
            memset(&opts, 0, sizeof opts);
            opts.struct_size = sizeof opts;
            opts.buffer_size = 64;
            opts.allocator = &fa.allocator;
            avk_error_clear(&err);
            st = avk_writer_init_memory(&w, &opts, &err);
            if (st == AVK_OK) {
                avk_error_clear(&err);
                size_t ok_len = 0;
                st = workload_ex(&w, &e, 600, 1500, &err, &ok_len);
                if (st != AVK_OK) {
                    const uint8_t *data;
                    size_t len;
                    AVKT_ASSERT_STATUS(st, AVK_ERR_NO_MEMORY);
                    assert_int_equal(err.status, AVK_ERR_NO_MEMORY);
                    data = avk_writer_data(&w, &len);
                    /* A failed call writes nothing; the earlier bytes stay. */
                    if (len != ok_len)
                        fail_msg("fail at %ld: %zu bytes after NO_MEMORY, expected %zu", n, len,
                                 ok_len);
                    assert_prefix(data, len, &e, "bytes before the failed growth");
                    if (!fail_all) {
                        /* the next allocation works again: go on writing */
                        AVKT_OK(avk_writer_write_raw(&w, "xyz", 3, &err));
                    }
                } else {
                    const uint8_t *data;
                    size_t len;
                    data = avk_writer_data(&w, &len);
                    assert_bytes(data, len, &e, "complete run");
                }
            } else {
                AVKT_ASSERT_STATUS(st, AVK_ERR_NO_MEMORY);
                assert_int_equal(n, 1);
            }
            avk_writer_destroy(&w);
            if (fa.live_blocks != 0 || fa.live_bytes != 0)
                fail_msg("fail at %ld: %ld blocks (%zu bytes) leaked", n, fa.live_blocks,
                         fa.live_bytes);
            assert_int_equal(fa.size_mismatches, 0);
            assert_int_equal(fa.bad_frees, 0);
            expect_free(&e);
            if (fa.failures == 0) {
                print_message("allocation failure loop (%s): %ld runs\n",
                              fail_all ? "all after N" : "Nth only", n);
                assert_true(n > 5); /* the workload grows the buffer several times */
                break;
            }
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(avkt_test_kernel_choice),
        cmocka_unit_test(test_memory_grows),
        cmocka_unit_test(test_memory_workload),
        cmocka_unit_test(test_bulk_equals_single),
        cmocka_unit_test(test_memory_max_size),
        cmocka_unit_test(test_memory_reserve),
        cmocka_unit_test(test_stream_sink_workload),
        cmocka_unit_test(test_stream_flush_semantics),
        cmocka_unit_test(test_stream_reserve),
        cmocka_unit_test(test_stream_fd),
        cmocka_unit_test(test_stream_file),
        cmocka_unit_test(test_stream_sink_error),
        cmocka_unit_test(test_init_errors),
        cmocka_unit_test(test_init_no_memory),
        cmocka_unit_test(test_failing_allocator_loop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
