/* Unit tests for readers: memory and stream, single and bulk reads, refills, errors and offsets. */
#define _DEFAULT_SOURCE 1
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "avkt.h"
#include "failalloc.h"
#include "guard.h"
#include "io.h"

/* ---- a script of mixed items, written with the writer ------------------------ */

typedef enum item_kind { IT_LONG, IT_INT, IT_RAW, IT_FLOAT, IT_DOUBLE, IT_BOOL } item_kind;

typedef struct item {
    item_kind kind;
    int64_t v;       /* long, int, bool */
    double d;        /* float (exactly representable), double */
    size_t raw_off;  /* IT_RAW: where its bytes are in data */
    size_t raw_len;
    size_t end;      /* offset after the item */
} item;

typedef struct script {
    item *items;
    size_t count;
    size_t varints;
    uint8_t *data;
    size_t len;
} script;

static void script_push(script *s, size_t *cap, item it)
{
    if (s->count == *cap) {
        *cap = *cap ? *cap * 2 : 1024;
        s->items = (item *)realloc(s->items, *cap * sizeof *s->items);
        assert_non_null(s->items);
    }
    s->items[s->count++] = it;
}

/* Runs of longs and ints (1 to 8 or 1 to 150 values, lengths 1 to 10 / 1 to 5) with
 * raw blobs (some longer than a 64-byte buffer), floats, doubles and
 * booleans between them, until `varints` values are written. */
static void script_build(script *s, uint64_t seed, size_t varints)
{
    avk_writer w;
    avk_error err;
    avkt_rng rng;
    size_t cap = 0, i;
    const uint8_t *data;
    rng.s = seed;
    memset(s, 0, sizeof *s);
    AVKT_OK(avk_writer_init_memory(&w, NULL, &err));
    while (s->varints < varints) {
        unsigned what = (unsigned)avkt_below(&rng, 10);
        item it;
        memset(&it, 0, sizeof it);
        if (what < 6) {
            size_t run = 1 + (size_t)avkt_below(&rng, avkt_below(&rng, 2) ? 8 : 150);
            int is_int = what >= 4;
            if (run > varints - s->varints)
                run = varints - s->varints;
            for (i = 0; i < run; i++) {
                it.kind = is_int ? IT_INT : IT_LONG;
                it.v = is_int ? (int64_t)avkt_mixed_int(&rng) : avkt_mixed_long(&rng);
                if (is_int)
                    AVKT_OK(avk_writer_write_int(&w, (int32_t)it.v, &err));
                else
                    AVKT_OK(avk_writer_write_long(&w, it.v, &err));
                it.end = (size_t)avk_writer_offset(&w);
                script_push(s, &cap, it);
                s->varints++;
            }
        } else if (what == 6) {
            static const size_t sizes[] = {0, 1, 2, 3, 9, 10, 11, 63, 64, 65, 127, 128, 200, 700};
            uint8_t blob[700];
            it.kind = IT_RAW;
            it.raw_len = sizes[avkt_below(&rng, sizeof sizes / sizeof sizes[0])];
            for (i = 0; i < it.raw_len; i++)
                blob[i] = (uint8_t)avkt_next(&rng);
            it.raw_off = (size_t)avk_writer_offset(&w);
            AVKT_OK(avk_writer_write_raw(&w, blob, it.raw_len, &err));
            it.end = (size_t)avk_writer_offset(&w);
            script_push(s, &cap, it);
        } else if (what == 7) {
            it.kind = IT_FLOAT;
            it.d = (double)(int32_t)avkt_next(&rng) / 1024.0; /* exact in a float? not always */
            it.d = (double)(float)it.d;
            AVKT_OK(avk_writer_write_float(&w, (float)it.d, &err));
            it.end = (size_t)avk_writer_offset(&w);
            script_push(s, &cap, it);
        } else if (what == 8) {
            it.kind = IT_DOUBLE;
            it.d = (double)(int64_t)avkt_next(&rng) / 3.0;
            AVKT_OK(avk_writer_write_double(&w, it.d, &err));
            it.end = (size_t)avk_writer_offset(&w);
            script_push(s, &cap, it);
        } else {
            it.kind = IT_BOOL;
            it.v = (int64_t)avkt_below(&rng, 2);
            AVKT_OK(avk_writer_write_boolean(&w, (int)it.v, &err));
            it.end = (size_t)avk_writer_offset(&w);
            script_push(s, &cap, it);
        }
    }
    data = avk_writer_data(&w, &s->len);
    s->data = (uint8_t *)malloc(s->len ? s->len : 1);
    assert_non_null(s->data);
    memcpy(s->data, data, s->len);
    avk_writer_destroy(&w);
}

static void script_free(script *s)
{
    free(s->items);
    free(s->data);
    memset(s, 0, sizeof *s);
}

typedef enum read_mode {
    MODE_SINGLE, /* one call per item */
    MODE_BULK,   /* runs through read_longs / read_ints in odd chunk sizes */
    MODE_SKIP    /* as bulk, skipping raw blobs and doubles */
} read_mode;

#define CHECK_OFFSET(r, want, where)                                                      \
    do {                                                                                  \
        if (avk_reader_offset(r) != (uint64_t)(want))                                     \
            fail_msg("%s: reader offset %llu, expected %llu", where,                      \
                     (unsigned long long)avk_reader_offset(r), (unsigned long long)(want)); \
    } while (0)

/* Reads the whole script back and checks every value and offset, then
 * the end of input. */
static void script_read(avk_reader *r, const script *s, read_mode mode, const char *label)
{
    static const size_t chunks[] = {1, 3, 7, 13, 61, 127, 509, 2};
    size_t i = 0, chunk_i = 0;
    avk_error err;
    int at_end = -1;
    int64_t *lbuf = (int64_t *)malloc(s->count * sizeof *lbuf + 8);
    int32_t *ibuf = (int32_t *)malloc(s->count * sizeof *ibuf + 8);
    assert_non_null(lbuf);
    assert_non_null(ibuf);
    CHECK_OFFSET(r, 0, label);
    while (i < s->count) {
        const item *it = &s->items[i];
        avk_error_clear(&err);
        if (mode != MODE_SINGLE && (it->kind == IT_LONG || it->kind == IT_INT)) {
            size_t run = 1, want = chunks[chunk_i++ % (sizeof chunks / sizeof chunks[0])], k;
            while (i + run < s->count && s->items[i + run].kind == it->kind)
                run++;
            if (want > run)
                want = run;
            if (it->kind == IT_LONG) {
                AVKT_OK(avk_reader_read_longs(r, lbuf, want, &err));
                for (k = 0; k < want; k++)
                    AVKT_ASSERT_I64_EQ(lbuf[k], s->items[i + k].v);
            } else {
                AVKT_OK(avk_reader_read_ints(r, ibuf, want, &err));
                for (k = 0; k < want; k++)
                    AVKT_ASSERT_I64_EQ(ibuf[k], s->items[i + k].v);
            }
            i += want;
            CHECK_OFFSET(r, s->items[i - 1].end, label);
            continue;
        }
        switch (it->kind) {
        case IT_LONG: {
            int64_t v = 0;
            AVKT_OK(avk_reader_read_long(r, &v, &err));
            AVKT_ASSERT_I64_EQ(v, it->v);
            break;
        }
        case IT_INT: {
            int32_t v = 0;
            AVKT_OK(avk_reader_read_int(r, &v, &err));
            AVKT_ASSERT_I64_EQ(v, it->v);
            break;
        }
        case IT_RAW: {
            uint8_t buf[700];
            if (mode == MODE_SKIP) {
                AVKT_OK(avk_reader_skip(r, it->raw_len, &err));
            } else {
                AVKT_OK(avk_reader_read_raw(r, buf, it->raw_len, &err));
                assert_memory_equal(buf, s->data + it->raw_off, it->raw_len);
            }
            break;
        }
        case IT_FLOAT: {
            float f = 0;
            AVKT_OK(avk_reader_read_float(r, &f, &err));
            assert_true((double)f == it->d);
            break;
        }
        case IT_DOUBLE: {
            double d = 0;
            if (mode == MODE_SKIP) {
                AVKT_OK(avk_reader_skip(r, 8, &err));
            } else {
                AVKT_OK(avk_reader_read_double(r, &d, &err));
                assert_true(d == it->d);
            }
            break;
        }
        case IT_BOOL: {
            int b = -1;
            AVKT_OK(avk_reader_read_boolean(r, &b, &err));
            assert_int_equal(b, (int)it->v);
            break;
        }
        }
        CHECK_OFFSET(r, it->end, label);
        i++;
    }
    AVKT_OK(avk_reader_at_end(r, &at_end, &err));
    assert_int_equal(at_end, 1);
    {
        int64_t v;
        avk_error_clear(&err);
        AVKT_ASSERT_STATUS(avk_reader_read_long(r, &v, &err), AVK_ERR_TRUNCATED);
        assert_int_equal(err.status, AVK_ERR_TRUNCATED);
        assert_true(err.offset == s->len);
        CHECK_OFFSET(r, s->len, label);
    }
    free(lbuf);
    free(ibuf);
}

static void script_read_all_modes_memory(const script *s)
{
    avk_reader r;
    read_mode mode;
    avkt_guard g;
    const uint8_t *p = avkt_guard_copy(&g, s->data, s->len);
    assert_non_null(p);
    for (mode = MODE_SINGLE; mode <= MODE_SKIP; mode++) {
        avk_reader_init_memory(&r, p, s->len);
        script_read(&r, s, mode, "memory");
        avk_reader_destroy(&r);
    }
    avkt_guard_free(&g);
}

/* ---- memory reader ------------------------------------------------------------ */

static void test_memory_primitives(void **state)
{
    static const uint8_t data[] = {
        0x00,                                                       /* long 0 */
        0x01,                                                       /* long -1 */
        0xd8, 0x04,                                                 /* long 300 */
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, /* long INT64_MIN */
        0xff, 0xff, 0xff, 0xff, 0x0f,                               /* int INT32_MIN */
        0x0a,                                                       /* int 5 */
        0x00, 0x00, 0xc0, 0x3f,                                     /* float 1.5 */
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xc0,             /* double -2.25 */
        'a', 'b', 'c',                                              /* raw */
        0x00, 0x01,                                                 /* booleans */
        0x7e,                                                       /* skipped */
    };
    avk_reader r;
    avk_error err;
    int64_t v;
    int32_t v32;
    float f;
    double d;
    char raw[3];
    int b, at_end;
    (void)state;
    avk_reader_init_memory(&r, data, sizeof data);
    AVKT_OK(avk_reader_at_end(&r, &at_end, &err));
    assert_int_equal(at_end, 0);
    AVKT_OK(avk_reader_read_long(&r, &v, &err));
    AVKT_ASSERT_I64_EQ(v, 0);
    CHECK_OFFSET(&r, 1, "long 0");
    AVKT_OK(avk_reader_read_long(&r, &v, &err));
    AVKT_ASSERT_I64_EQ(v, -1);
    CHECK_OFFSET(&r, 2, "long -1");
    AVKT_OK(avk_reader_read_long(&r, &v, &err));
    AVKT_ASSERT_I64_EQ(v, 300);
    CHECK_OFFSET(&r, 4, "long 300");
    AVKT_OK(avk_reader_read_long(&r, &v, &err));
    AVKT_ASSERT_I64_EQ(v, INT64_MIN);
    CHECK_OFFSET(&r, 14, "long min");
    AVKT_OK(avk_reader_read_int(&r, &v32, &err));
    assert_true(v32 == INT32_MIN);
    CHECK_OFFSET(&r, 19, "int min");
    AVKT_OK(avk_reader_read_int(&r, &v32, &err));
    assert_int_equal(v32, 5);
    CHECK_OFFSET(&r, 20, "int 5");
    AVKT_OK(avk_reader_read_float(&r, &f, &err));
    assert_true(f == 1.5f);
    CHECK_OFFSET(&r, 24, "float");
    AVKT_OK(avk_reader_read_double(&r, &d, &err));
    assert_true(d == -2.25);
    CHECK_OFFSET(&r, 32, "double");
    AVKT_OK(avk_reader_read_raw(&r, raw, 3, &err));
    assert_memory_equal(raw, "abc", 3);
    CHECK_OFFSET(&r, 35, "raw");
    AVKT_OK(avk_reader_read_boolean(&r, &b, &err));
    assert_int_equal(b, 0);
    AVKT_OK(avk_reader_read_boolean(&r, &b, &err));
    assert_int_equal(b, 1);
    CHECK_OFFSET(&r, 37, "booleans");
    AVKT_OK(avk_reader_fill(&r, 1, &err));
    assert_true(r.end - r.pos == 1);
    AVKT_OK(avk_reader_skip(&r, 1, &err));
    CHECK_OFFSET(&r, 38, "skip");
    AVKT_OK(avk_reader_skip(&r, 0, &err));
    AVKT_OK(avk_reader_read_raw(&r, raw, 0, &err));
    AVKT_OK(avk_reader_at_end(&r, &at_end, &err));
    assert_int_equal(at_end, 1);
    CHECK_OFFSET(&r, sizeof data, "end");
    avk_reader_destroy(&r);
    avk_reader_destroy(&r); /* twice is fine */
}

static void test_memory_boolean_malformed(void **state)
{
    static const uint8_t data[] = {0x01, 0x00, 0x02, 0x01};
    avk_reader r;
    avk_error err;
    int b = -1;
    (void)state;
    avk_reader_init_memory(&r, data, sizeof data);
    AVKT_OK(avk_reader_read_boolean(&r, &b, &err));
    assert_int_equal(b, 1);
    AVKT_OK(avk_reader_read_boolean(&r, &b, &err));
    assert_int_equal(b, 0);
    avk_error_clear(&err);
    AVKT_ASSERT_STATUS(avk_reader_read_boolean(&r, &b, &err), AVK_ERR_MALFORMED);
    assert_int_equal(err.status, AVK_ERR_MALFORMED);
    assert_true(err.offset == 2);
    assert_true(strlen(err.message) > 0);
    /* Every byte above 1 is malformed. */
    {
        unsigned byte;
        for (byte = 2; byte < 256; byte++) {
            uint8_t one = (uint8_t)byte;
            avk_reader_init_memory(&r, &one, 1);
            AVKT_ASSERT_STATUS(avk_reader_read_boolean(&r, &b, NULL), AVK_ERR_MALFORMED);
        }
    }
}

/* Each read past the end: TRUNCATED with err.offset where the value starts. */
static void test_memory_truncated(void **state)
{
    static const uint8_t data[] = {0x02, 0x80, 0x80}; /* long 1, then 2 bytes of a varint */
    static const uint8_t five[] = {1, 2, 3, 4, 5};
    avk_reader r;
    avk_error err;
    int64_t v;
    int32_t v32;
    float f;
    double d;
    uint8_t buf[16];
    int b;
    (void)state;

    avk_reader_init_memory(&r, data, sizeof data);
    AVKT_OK(avk_reader_read_long(&r, &v, &err));
    avk_error_clear(&err);
    AVKT_ASSERT_STATUS(avk_reader_read_long(&r, &v, &err), AVK_ERR_TRUNCATED);
    assert_int_equal(err.status, AVK_ERR_TRUNCATED);
    assert_true(err.offset == 1);
    CHECK_OFFSET(&r, 1, "after a truncated long the reader stays at it");
    avk_error_clear(&err);
    AVKT_ASSERT_STATUS(avk_reader_read_int(&r, &v32, &err), AVK_ERR_TRUNCATED);
    assert_true(err.offset == 1);
    /* Zero values is no read at all. */
    AVKT_OK(avk_reader_read_longs(&r, &v, 0, &err));
    AVKT_OK(avk_reader_read_ints(&r, &v32, 0, &err));
    CHECK_OFFSET(&r, 1, "n = 0");
    avk_error_clear(&err);
    AVKT_ASSERT_STATUS(avk_reader_read_longs(&r, &v, 1, &err), AVK_ERR_TRUNCATED);
    assert_true(err.offset == 1);
    CHECK_OFFSET(&r, 1, "after a truncated bulk read the reader stays at the value");

    avk_reader_init_memory(&r, five, sizeof five);
    AVKT_OK(avk_reader_read_raw(&r, buf, 2, &err));
    avk_error_clear(&err);
    AVKT_ASSERT_STATUS(avk_reader_read_raw(&r, buf, 4, &err), AVK_ERR_TRUNCATED);
    assert_true(err.offset == 2);
    avk_error_clear(&err);
    AVKT_ASSERT_STATUS(avk_reader_read_double(&r, &d, &err), AVK_ERR_TRUNCATED);
    assert_true(err.offset == 2);
    avk_error_clear(&err);
    AVKT_ASSERT_STATUS(avk_reader_skip(&r, 4, &err), AVK_ERR_TRUNCATED);
    assert_true(err.offset == 2);
    avk_error_clear(&err);
    AVKT_ASSERT_STATUS(avk_reader_fill(&r, 4, &err), AVK_ERR_TRUNCATED);
    assert_true(err.offset == 2);
    AVKT_OK(avk_reader_fill(&r, 3, &err));
    AVKT_OK(avk_reader_skip(&r, 3, &err));
    avk_error_clear(&err);
    AVKT_ASSERT_STATUS(avk_reader_read_float(&r, &f, &err), AVK_ERR_TRUNCATED);
    assert_true(err.offset == 5);
    avk_error_clear(&err);
    AVKT_ASSERT_STATUS(avk_reader_read_boolean(&r, &b, &err), AVK_ERR_TRUNCATED);
    assert_true(err.offset == 5);
    AVKT_ASSERT_STATUS(avk_reader_skip(&r, 1, NULL), AVK_ERR_TRUNCATED);
    AVKT_OK(avk_reader_skip(&r, 0, NULL));
    (void)f;
    (void)d;

    /* NULL data with length 0 is an empty input. */
    avk_reader_init_memory(&r, NULL, 0);
    {
        int at_end = 0;
        AVKT_OK(avk_reader_at_end(&r, &at_end, &err));
        assert_int_equal(at_end, 1);
        AVKT_ASSERT_STATUS(avk_reader_read_long(&r, &v, &err), AVK_ERR_TRUNCATED);
        assert_true(err.offset == 0);
    }
}

/* Malformed varints in a memory reader: single and bulk, exact offsets. */
static void test_memory_malformed(void **state)
{
    static const uint8_t data[] = {
        0x04, 0x06,                                                       /* 2, 3 */
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, /* 11 bytes */
    };
    static const uint8_t data2[] = {
        0x04,                                                       /* 2 */
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, /* bit 64 set */
    };
    static const uint8_t ints[] = {0x04, 0xff, 0xff, 0xff, 0xff, 0x10, 0x00};
    avk_reader r;
    avk_error err;
    int64_t v, out[8];
    int32_t v32, out32[8];
    avkt_guard g;
    const uint8_t *p;
    (void)state;

    p = avkt_guard_copy(&g, data, sizeof data);
    avk_reader_init_memory(&r, p, sizeof data);
    AVKT_OK(avk_reader_read_long(&r, &v, &err));
    AVKT_OK(avk_reader_read_long(&r, &v, &err));
    avk_error_clear(&err);
    AVKT_ASSERT_STATUS(avk_reader_read_long(&r, &v, &err), AVK_ERR_MALFORMED);
    assert_int_equal(err.status, AVK_ERR_MALFORMED);
    assert_true(err.offset == 2);
    CHECK_OFFSET(&r, 2, "after a malformed long the reader stays at it");
    avk_reader_init_memory(&r, p, sizeof data);
    avk_error_clear(&err);
    memset(out, 0, sizeof out);
    AVKT_ASSERT_STATUS(avk_reader_read_longs(&r, out, 5, &err), AVK_ERR_MALFORMED);
    assert_true(err.offset == 2);
    AVKT_ASSERT_I64_EQ(out[0], 2);
    AVKT_ASSERT_I64_EQ(out[1], 3);
    CHECK_OFFSET(&r, 2, "bulk stops at the bad value");
    avkt_guard_free(&g);

    /* Bits beyond 64: reported at the offending 10th byte. */
    p = avkt_guard_copy(&g, data2, sizeof data2);
    avk_reader_init_memory(&r, p, sizeof data2);
    AVKT_OK(avk_reader_read_long(&r, &v, &err));
    avk_error_clear(&err);
    AVKT_ASSERT_STATUS(avk_reader_read_long(&r, &v, &err), AVK_ERR_MALFORMED);
    assert_true(err.offset == 1 + 9);
    avk_reader_init_memory(&r, p, sizeof data2);
    avk_error_clear(&err);
    AVKT_ASSERT_STATUS(avk_reader_read_longs(&r, out, 2, &err), AVK_ERR_MALFORMED);
    assert_true(err.offset == 1 + 9);
    CHECK_OFFSET(&r, 1, "bulk stops at the bad value");
    avkt_guard_free(&g);

    /* Ints: 5th byte over 32 bits. */
    p = avkt_guard_copy(&g, ints, sizeof ints);
    avk_reader_init_memory(&r, p, sizeof ints);
    AVKT_OK(avk_reader_read_int(&r, &v32, &err));
    assert_int_equal(v32, 2);
    avk_error_clear(&err);
    AVKT_ASSERT_STATUS(avk_reader_read_int(&r, &v32, &err), AVK_ERR_MALFORMED);
    assert_true(err.offset == 1 + 4);
    /* ... but a fine long. */
    AVKT_OK(avk_reader_read_long(&r, &v, &err));
    AVKT_ASSERT_I64_EQ(v, (int64_t)avk_zigzag_decode64(0x10fffffffULL));
    avk_reader_init_memory(&r, p, sizeof ints);
    avk_error_clear(&err);
    AVKT_ASSERT_STATUS(avk_reader_read_ints(&r, out32, 3, &err), AVK_ERR_MALFORMED);
    assert_true(err.offset == 1 + 4);
    assert_int_equal(out32[0], 2);
    CHECK_OFFSET(&r, 1, "bulk ints stop at the bad value");
    avkt_guard_free(&g);
}

/* The whole script from a memory reader at a guard page, every mode. */
static void test_memory_script(void **state)
{
    script s;
    (void)state;
    script_build(&s, 1, 10000);
    script_read_all_modes_memory(&s);
    script_free(&s);
}

/* ---- stream readers ------------------------------------------------------------ */

static void stream_script(const script *s, size_t per_read, size_t buffer_size)
{
    read_mode mode;
    for (mode = MODE_SINGLE; mode <= MODE_SKIP; mode++) {
        avk_reader r;
        avk_error err;
        avkt_source src;
        avk_reader_options opts;
        char label[96];
        memset(&opts, 0, sizeof opts);
        opts.struct_size = sizeof opts;
        opts.buffer_size = buffer_size;
        avkt_source_init(&src, s->data, s->len, per_read);
        AVKT_OK(avk_reader_init_source(&r, avkt_source_read, &src, &opts, &err));
        snprintf(label, sizeof label, "source (%zu bytes a read, buffer %zu, mode %d)", per_read,
                 buffer_size, (int)mode);
        script_read(&r, s, mode, label);
        assert_int_equal(src.pos, s->len);
        avk_reader_destroy(&r);
        avk_reader_destroy(&r);
    }
}

/* One byte per read: every varint longer than one byte is split across
 * refills, in single and bulk reads alike. */
static void test_stream_one_byte_reads(void **state)
{
    script s;
    (void)state;
    script_build(&s, 2, 10000);
    print_message("script: %zu items, %zu varints, %zu bytes\n", s.count, s.varints, s.len);
    stream_script(&s, 1, 64);
    stream_script(&s, 1, 0);
    script_free(&s);
}

static void test_stream_short_reads(void **state)
{
    static const size_t per_read[] = {2, 3, 7, 9, 10, 11, 63, 64, 65, 1000, 0};
    static const size_t buffers[] = {64, 65, 100, 0};
    size_t i, j;
    script s;
    (void)state;
    script_build(&s, 3, 3000);
    for (i = 0; i < sizeof per_read / sizeof per_read[0]; i++)
        for (j = 0; j < sizeof buffers / sizeof buffers[0]; j++)
            stream_script(&s, per_read[i], buffers[j]);
    script_free(&s);
}

/* A raw read larger than the buffer goes straight into the caller's
 * memory: the source is asked for the remainder in one call. */
static void test_stream_raw_bypass(void **state)
{
    uint8_t data[5000], out[5000];
    avkt_source src;
    avk_reader r;
    avk_reader_options opts;
    avk_error err;
    size_t i;
    (void)state;
    for (i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(i * 13);
    memset(&opts, 0, sizeof opts);
    opts.struct_size = sizeof opts;
    opts.buffer_size = 64;
    avkt_source_init(&src, data, sizeof data, 0);
    AVKT_OK(avk_reader_init_source(&r, avkt_source_read, &src, &opts, &err));
    AVKT_OK(avk_reader_read_raw(&r, out, 10, &err));
    AVKT_OK(avk_reader_read_raw(&r, out + 10, 4000, &err));
    assert_true(src.max_cap >= 4000 - 64);
    AVKT_OK(avk_reader_read_raw(&r, out + 4010, 990, &err));
    assert_memory_equal(out, data, sizeof data);
    CHECK_OFFSET(&r, sizeof data, "after bypass reads");
    avk_reader_destroy(&r);
}

/* buffer_size below the minimum is raised to 64. */
static void test_stream_tiny_buffer(void **state)
{
    script s;
    (void)state;
    script_build(&s, 4, 2000);
    stream_script(&s, 0, 1);
    stream_script(&s, 5, 10);
    script_free(&s);
}

static int temp_fd_with(const script *s)
{
    char path[] = "/tmp/avk_reader_test_XXXXXX";
    int fd = mkstemp(path);
    size_t done = 0;
    assert_true(fd >= 0);
    unlink(path);
    while (done < s->len) {
        ssize_t n = write(fd, s->data + done, s->len - done);
        assert_true(n > 0);
        done += (size_t)n;
    }
    assert_true(lseek(fd, 0, SEEK_SET) == 0);
    return fd;
}

static void test_stream_fd(void **state)
{
    script s;
    read_mode mode;
    (void)state;
    script_build(&s, 5, 10000);
    for (mode = MODE_SINGLE; mode <= MODE_SKIP; mode++) {
        size_t b;
        static const size_t buffers[] = {64, 0};
        for (b = 0; b < 2; b++) {
            avk_reader r;
            avk_error err;
            avk_reader_options opts;
            int fd = temp_fd_with(&s);
            memset(&opts, 0, sizeof opts);
            opts.struct_size = sizeof opts;
            opts.buffer_size = buffers[b];
            AVKT_OK(avk_reader_init_fd(&r, fd, &opts, &err));
            script_read(&r, &s, mode, "fd");
            avk_reader_destroy(&r);
            /* destroy does not close the descriptor */
            assert_int_equal(close(fd), 0);
        }
    }
    script_free(&s);
}

/* A pipe fed by a child process: reads come back short at the pipe's pace. */
static void test_stream_pipe(void **state)
{
    script s;
    int fds[2];
    pid_t child;
    int status = 0;
    avk_reader r;
    avk_error err;
    (void)state;
    script_build(&s, 6, 30000); /* more than a pipe holds */
    assert_int_equal(pipe(fds), 0);
    child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        size_t done = 0;
        close(fds[0]);
        while (done < s.len) {
            /* odd-sized writes */
            size_t n = s.len - done < 4099 ? s.len - done : 4099;
            ssize_t w = write(fds[1], s.data + done, n);
            if (w <= 0)
                _exit(1);
            done += (size_t)w;
        }
        _exit(0);
    }
    close(fds[1]);
    AVKT_OK(avk_reader_init_fd(&r, fds[0], NULL, &err));
    script_read(&r, &s, MODE_BULK, "pipe");
    avk_reader_destroy(&r);
    close(fds[0]);
    assert_true(waitpid(child, &status, 0) == child);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    script_free(&s);
}

static void test_stream_file(void **state)
{
    script s;
    read_mode mode;
    (void)state;
    script_build(&s, 7, 10000);
    for (mode = MODE_SINGLE; mode <= MODE_SKIP; mode++) {
        avk_reader r;
        avk_error err;
        avk_reader_options opts;
        FILE *fp = tmpfile();
        assert_non_null(fp);
        assert_int_equal(fwrite(s.data, 1, s.len, fp), s.len);
        rewind(fp);
        memset(&opts, 0, sizeof opts);
        opts.struct_size = sizeof opts;
        opts.buffer_size = mode == MODE_BULK ? 0 : 64;
        AVKT_OK(avk_reader_init_file(&r, fp, &opts, &err));
        script_read(&r, &s, mode, "FILE");
        avk_reader_destroy(&r);
        assert_int_equal(fclose(fp), 0);
    }
    script_free(&s);
}

/* A source failing after M bytes: the reads before M succeed, and a read
 * fails with the source's status and err only when its own bytes reach
 * past M (a varint read asks the source one call at a time, never for
 * bytes it does not need). */
static void test_stream_source_error(void **state)
{
    script s;
    size_t m_i;
    (void)state;
    script_build(&s, 8, 500);
    for (m_i = 0; m_i < 12; m_i++) {
        static const avk_status statuses[] = {AVK_ERR_IO, AVK_ERR_CODEC};
        size_t m = m_i == 0 ? 0 : m_i == 11 ? s.len - 1 : (s.len / 11) * m_i + m_i;
        size_t st_i;
        for (st_i = 0; st_i < 2; st_i++) {
            avkt_source src;
            avk_reader r;
            avk_error err;
            size_t i;
            avk_status st = AVK_OK;
            avkt_source_init_failing(&src, s.data, s.len, 7, m, statuses[st_i]);
            AVKT_OK(avk_reader_init_source(&r, avkt_source_read, &src, NULL, &err));
            for (i = 0; i < s.count; i++) {
                const item *it = &s.items[i];
                uint8_t buf[700];
                int64_t v;
                int32_t v32;
                int b;
                avk_error_clear(&err);
                switch (it->kind) {
                case IT_LONG: st = avk_reader_read_long(&r, &v, &err); break;
                case IT_INT: st = avk_reader_read_int(&r, &v32, &err); break;
                case IT_RAW: st = avk_reader_read_raw(&r, buf, it->raw_len, &err); break;
                case IT_FLOAT: st = avk_reader_read_raw(&r, buf, 4, &err); break;
                case IT_DOUBLE: st = avk_reader_read_raw(&r, buf, 8, &err); break;
                case IT_BOOL: st = avk_reader_read_boolean(&r, &b, &err); break;
                }
                size_t start = i ? s.items[i - 1].end : 0;
                if (st == AVK_OK) {
                    if (it->end > m)
                        fail_msg("item %zu ends at %zu > %zu but read gave OK", i, it->end, m);
                    continue;
                }
                if (it->end <= m)
                    fail_msg("item %zu (bytes %zu..%zu) needs nothing past %zu but read gave %s", i,
                             start, it->end, m, avk_status_name(st));
                break;
            }
            assert_true(i < s.count);
            AVKT_ASSERT_STATUS(st, statuses[st_i]);
            assert_int_equal(err.status, statuses[st_i]);
            if (statuses[st_i] == AVK_ERR_IO)
                assert_int_equal(err.sys_errno, EIO);
            assert_true(src.error_calls >= 1);
            avk_reader_destroy(&r);
        }
    }
    script_free(&s);
}

/* The error of a failing source reaches bulk reads, skip, fill and at_end. */
static void test_stream_source_error_everywhere(void **state)
{
    static const uint8_t data[64] = {0};
    avkt_source src;
    avk_reader r;
    avk_error err;
    int64_t out[100];
    int at_end;
    (void)state;
    avkt_source_init_failing(&src, data, sizeof data, 0, 0, AVK_ERR_IO);
    AVKT_OK(avk_reader_init_source(&r, avkt_source_read, &src, NULL, &err));
    AVKT_ASSERT_STATUS(avk_reader_read_longs(&r, out, 3, &err), AVK_ERR_IO);
    AVKT_ASSERT_STATUS(avk_reader_skip(&r, 3, &err), AVK_ERR_IO);
    AVKT_ASSERT_STATUS(avk_reader_fill(&r, 3, &err), AVK_ERR_IO);
    AVKT_ASSERT_STATUS(avk_reader_at_end(&r, &at_end, &err), AVK_ERR_IO);
    assert_int_equal(err.sys_errno, EIO);
    avk_reader_destroy(&r);
    /* After 10 good bytes, bulk reads deliver them and then fail. */
    avkt_source_init_failing(&src, data, sizeof data, 0, 10, AVK_ERR_IO);
    AVKT_OK(avk_reader_init_source(&r, avkt_source_read, &src, NULL, &err));
    memset(out, 0x55, sizeof out);
    AVKT_ASSERT_STATUS(avk_reader_read_longs(&r, out, 20, &err), AVK_ERR_IO);
    AVKT_ASSERT_I64_EQ(out[9], 0);
    avk_reader_destroy(&r);
}

/* A source claiming more bytes than it was asked for is refused. */
static void test_stream_source_overreports(void **state)
{
    static const uint8_t data[200] = {0};
    avkt_source src;
    avk_reader r;
    avk_error err;
    int64_t v;
    avk_reader_options opts;
    (void)state;
    memset(&opts, 0, sizeof opts);
    opts.struct_size = sizeof opts;
    opts.buffer_size = 64; /* the source fills it and claims one byte more */
    avkt_source_init(&src, data, sizeof data, 0);
    src.extra = 1;
    AVKT_OK(avk_reader_init_source(&r, avkt_source_read, &src, &opts, &err));
    avk_error_clear(&err);
    AVKT_ASSERT_STATUS(avk_reader_read_long(&r, &v, &err), AVK_ERR_INVALID_ARGUMENT);
    assert_int_equal(err.status, AVK_ERR_INVALID_ARGUMENT);
    avk_reader_destroy(&r);
}

static void test_stream_fill_and_at_end(void **state)
{
    uint8_t data[300];
    avkt_source src;
    avk_reader r;
    avk_reader_options opts;
    avk_error err;
    int at_end = -1;
    size_t i;
    (void)state;
    for (i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)i;
    memset(&opts, 0, sizeof opts);
    opts.struct_size = sizeof opts;
    opts.buffer_size = 64;
    avkt_source_init(&src, data, sizeof data, 1);
    AVKT_OK(avk_reader_init_source(&r, avkt_source_read, &src, &opts, &err));
    AVKT_OK(avk_reader_at_end(&r, &at_end, &err));
    assert_int_equal(at_end, 0);
    CHECK_OFFSET(&r, 0, "at_end reads ahead without consuming");
    AVKT_OK(avk_reader_fill(&r, 64, &err));
    assert_true(r.end - r.pos >= 64);
    assert_memory_equal(r.pos, data, 64);
    avk_error_clear(&err);
    AVKT_ASSERT_STATUS(avk_reader_fill(&r, 65, &err), AVK_ERR_INVALID_ARGUMENT);
    assert_int_equal(err.status, AVK_ERR_INVALID_ARGUMENT);
    AVKT_OK(avk_reader_skip(&r, 250, &err));
    CHECK_OFFSET(&r, 250, "skip across refills");
    AVKT_OK(avk_reader_fill(&r, 50, &err));
    assert_memory_equal(r.pos, data + 250, 50);
    CHECK_OFFSET(&r, 250, "fill does not consume");
    avk_error_clear(&err);
    AVKT_ASSERT_STATUS(avk_reader_fill(&r, 51, &err), AVK_ERR_TRUNCATED);
    assert_true(err.offset == 250);
    AVKT_OK(avk_reader_at_end(&r, &at_end, &err));
    assert_int_equal(at_end, 0);
    AVKT_OK(avk_reader_skip(&r, 50, &err));
    AVKT_OK(avk_reader_at_end(&r, &at_end, &err));
    assert_int_equal(at_end, 1);
    CHECK_OFFSET(&r, 300, "end");
    avk_reader_destroy(&r);

    /* Large fills in a large buffer, with unread bytes moved each time. */
    {
        uint8_t big[20000];
        size_t off = 0;
        avkt_rng rng = {3};
        for (i = 0; i < sizeof big; i++)
            big[i] = (uint8_t)avkt_next(&rng);
        opts.buffer_size = 8192;
        avkt_source_init(&src, big, sizeof big, 777);
        AVKT_OK(avk_reader_init_source(&r, avkt_source_read, &src, &opts, &err));
        while (off < sizeof big) {
            size_t want = 1 + (size_t)avkt_below(&rng, 8192);
            size_t step = 1 + (size_t)avkt_below(&rng, 3000);
            if (want > sizeof big - off)
                want = sizeof big - off;
            AVKT_OK(avk_reader_fill(&r, want, &err));
            assert_true((size_t)(r.end - r.pos) >= want);
            assert_memory_equal(r.pos, big + off, want);
            CHECK_OFFSET(&r, off, "large fills");
            if (step > want)
                step = want;
            AVKT_OK(avk_reader_skip(&r, step, &err));
            off += step;
        }
        AVKT_OK(avk_reader_at_end(&r, &at_end, &err));
        assert_int_equal(at_end, 1);
        avk_reader_destroy(&r);
    }
}

/* Truncation inside a varint in a stream: TRUNCATED at the varint's
 * absolute offset, for single and bulk reads. */
static void test_stream_truncated_varint(void **state)
{
    script s;
    size_t cut;
    (void)state;
    memset(&s, 0, sizeof s);
    {
        avk_writer w;
        avk_error err;
        size_t i, len;
        const uint8_t *d;
        AVKT_OK(avk_writer_init_memory(&w, NULL, &err));
        for (i = 0; i < 300; i++)
            AVKT_OK(avk_writer_write_long(&w, INT64_MIN + (int64_t)i, &err)); /* 10 bytes each */
        d = avk_writer_data(&w, &len);
        s.data = (uint8_t *)malloc(len);
        memcpy(s.data, d, len);
        s.len = len;
        avk_writer_destroy(&w);
    }
    for (cut = 2991; cut < 3000; cut++) {
        int bulk;
        for (bulk = 0; bulk <= 1; bulk++) {
            avkt_source src;
            avk_reader r;
            avk_reader_options opts;
            avk_error err;
            int64_t out[300];
            size_t i;
            memset(&opts, 0, sizeof opts);
            opts.struct_size = sizeof opts;
            opts.buffer_size = 64;
            avkt_source_init(&src, s.data, cut, 3);
            AVKT_OK(avk_reader_init_source(&r, avkt_source_read, &src, &opts, &err));
            avk_error_clear(&err);
            if (bulk) {
                AVKT_ASSERT_STATUS(avk_reader_read_longs(&r, out, 300, &err), AVK_ERR_TRUNCATED);
                for (i = 0; i < 299; i++)
                    AVKT_ASSERT_I64_EQ(out[i], INT64_MIN + (int64_t)i);
            } else {
                for (i = 0; i < 299; i++)
                    AVKT_OK(avk_reader_read_long(&r, &out[i], &err));
                AVKT_ASSERT_STATUS(avk_reader_read_long(&r, &out[299], &err), AVK_ERR_TRUNCATED);
            }
            assert_int_equal(err.status, AVK_ERR_TRUNCATED);
            assert_true(err.offset == 2990);
            CHECK_OFFSET(&r, 2990, "stands at the truncated varint");
            avk_reader_destroy(&r);
        }
    }
    script_free(&s);
}

/* Bulk reads over a malformed varint deep in a stream: MALFORMED with the
 * absolute offset, the good values delivered, the reader at the bad one. */
static void test_stream_bulk_malformed(void **state)
{
    static const struct {
        const char *what;
        int is_int;
        size_t len;
        uint8_t bytes[12];
        uint64_t delta;
    } bads[] = {
        {"11-byte long", 0, 11, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 0},
        {"long over 64 bits", 0, 10, {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02}, 9},
        {"6-byte int", 1, 6, {0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 0},
        {"int over 32 bits", 1, 5, {0xff, 0xff, 0xff, 0xff, 0x10}, 4},
    };
    static const struct {
        size_t per_read, buffer, chunk;
    } configs[] = {{1, 64, 6000}, {1, 0, 777}, {13, 0, 6000}, {0, 64, 61}, {0, 0, 1}, {7, 100, 509}};
    size_t b, c;
    (void)state;
    for (b = 0; b < sizeof bads / sizeof bads[0]; b++) {
        avk_writer w;
        avk_error err;
        avkt_rng rng = {77};
        int64_t *values = (int64_t *)malloc(5000 * sizeof *values);
        size_t i, len, bad_at;
        const uint8_t *d;
        uint8_t *data;
        assert_non_null(values);
        AVKT_OK(avk_writer_init_memory(&w, NULL, &err));
        for (i = 0; i < 5000; i++) {
            values[i] = bads[b].is_int ? (int64_t)avkt_mixed_int(&rng) : avkt_mixed_long(&rng);
            AVKT_OK(avk_writer_write_long(&w, values[i], &err));
        }
        bad_at = (size_t)avk_writer_offset(&w);
        AVKT_OK(avk_writer_write_raw(&w, bads[b].bytes, bads[b].len, &err));
        for (i = 0; i < 1000; i++)
            AVKT_OK(avk_writer_write_long(&w, (int64_t)i, &err));
        d = avk_writer_data(&w, &len);
        data = (uint8_t *)malloc(len);
        assert_non_null(data);
        memcpy(data, d, len);
        avk_writer_destroy(&w);
        for (c = 0; c < sizeof configs / sizeof configs[0]; c++) {
            avkt_source src;
            avk_reader r;
            avk_reader_options opts;
            int64_t *out64 = (int64_t *)malloc(6000 * sizeof *out64);
            int32_t *out32 = (int32_t *)malloc(6000 * sizeof *out32);
            size_t got = 0;
            avk_status st = AVK_OK;
            assert_non_null(out64);
            assert_non_null(out32);
            memset(&opts, 0, sizeof opts);
            opts.struct_size = sizeof opts;
            opts.buffer_size = configs[c].buffer;
            avkt_source_init(&src, data, len, configs[c].per_read);
            AVKT_OK(avk_reader_init_source(&r, avkt_source_read, &src, &opts, &err));
            /* Read in chunks until the error; the good values come first. */
            while (got < 6000) {
                size_t want = configs[c].chunk < 6000 - got ? configs[c].chunk : 6000 - got;
                uint64_t before = avk_reader_offset(&r);
                avk_error_clear(&err);
                st = bads[b].is_int ? avk_reader_read_ints(&r, out32 + got, want, &err)
                                    : avk_reader_read_longs(&r, out64 + got, want, &err);
                if (st != AVK_OK) {
                    size_t k;
                    /* the values before the bad one in this call */
                    for (k = got; k < 5000; k++)
                        if (bads[b].is_int)
                            AVKT_ASSERT_I64_EQ(out32[k], values[k]);
                        else
                            AVKT_ASSERT_I64_EQ(out64[k], values[k]);
                    (void)before;
                    break;
                }
                got += want;
            }
            if (st != AVK_ERR_MALFORMED || err.status != AVK_ERR_MALFORMED ||
                err.offset != bad_at + bads[b].delta)
                fail_msg("%s, config %zu: %s at %llu, expected MALFORMED at %zu", bads[b].what, c,
                         avk_status_name(st), (unsigned long long)err.offset,
                         bad_at + (size_t)bads[b].delta);
            assert_true(got <= 5000);
            for (i = 0; i < got; i++)
                if (bads[b].is_int)
                    AVKT_ASSERT_I64_EQ(out32[i], values[i]);
                else
                    AVKT_ASSERT_I64_EQ(out64[i], values[i]);
            CHECK_OFFSET(&r, bad_at, "stands at the bad varint");
            avk_reader_destroy(&r);
            free(out64);
            free(out32);
        }
        free(data);
        free(values);
    }
}

/* ---- creation errors ---------------------------------------------------------- */

static void test_init_errors(void **state)
{
    static const uint8_t data[4] = {0};
    avkt_source src;
    avk_reader r;
    avk_reader_options opts;
    avk_error err;
    struct {
        avk_reader_options o;
        uint64_t future_field;
    } bigger;
    (void)state;
    avkt_source_init(&src, data, sizeof data, 0);
    memset(&opts, 0, sizeof opts);

    opts.struct_size = sizeof opts - 1;
    avk_error_clear(&err);
    AVKT_ASSERT_STATUS(avk_reader_init_source(&r, avkt_source_read, &src, &opts, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    assert_int_equal(err.status, AVK_ERR_INVALID_ARGUMENT);
    avk_reader_destroy(&r);
    opts.struct_size = 0;
    AVKT_ASSERT_STATUS(avk_reader_init_source(&r, avkt_source_read, &src, &opts, NULL),
                       AVK_ERR_INVALID_ARGUMENT);
    avk_reader_destroy(&r);
    opts.struct_size = sizeof opts - 1;
    AVKT_ASSERT_STATUS(avk_reader_init_fd(&r, 0, &opts, &err), AVK_ERR_INVALID_ARGUMENT);
    avk_reader_destroy(&r);
    AVKT_ASSERT_STATUS(avk_reader_init_file(&r, stdin, &opts, &err), AVK_ERR_INVALID_ARGUMENT);
    avk_reader_destroy(&r);

    /* A newer caller's larger struct is accepted. */
    memset(&bigger, 0, sizeof bigger);
    bigger.o.struct_size = sizeof bigger;
    AVKT_OK(avk_reader_init_source(&r, avkt_source_read, &src, &bigger.o, &err));
    avk_reader_destroy(&r);

    avk_error_clear(&err);
    AVKT_ASSERT_STATUS(avk_reader_init_source(&r, NULL, &src, NULL, &err), AVK_ERR_INVALID_ARGUMENT);
    assert_int_equal(err.status, AVK_ERR_INVALID_ARGUMENT);
    avk_reader_destroy(&r);
    AVKT_ASSERT_STATUS(avk_reader_init_fd(&r, -1, NULL, &err), AVK_ERR_INVALID_ARGUMENT);
    avk_reader_destroy(&r);
    AVKT_ASSERT_STATUS(avk_reader_init_file(&r, NULL, NULL, &err), AVK_ERR_INVALID_ARGUMENT);
    avk_reader_destroy(&r);
}

/* The buffer allocation failing: NO_MEMORY, nothing leaked, destroy safe. */
static void test_init_no_memory(void **state)
{
    static const uint8_t data[4] = {0};
    avkt_failalloc fa;
    avkt_source src;
    avk_reader r;
    avk_reader_options opts;
    avk_error err;
    int kind;
    (void)state;
    for (kind = 0; kind < 3; kind++) {
        FILE *fp = NULL;
        avk_status st;
        avkt_failalloc_init(&fa, 1);
        memset(&opts, 0, sizeof opts);
        opts.struct_size = sizeof opts;
        opts.buffer_size = kind == 0 ? 0 : 100;
        opts.allocator = &fa.allocator;
        avkt_source_init(&src, data, sizeof data, 0);
        avk_error_clear(&err);
        if (kind == 0) {
            st = avk_reader_init_source(&r, avkt_source_read, &src, &opts, &err);
        } else if (kind == 1) {
            st = avk_reader_init_fd(&r, 0, &opts, &err);
        } else {
            fp = tmpfile();
            assert_non_null(fp);
            st = avk_reader_init_file(&r, fp, &opts, &err);
        }
        AVKT_ASSERT_STATUS(st, AVK_ERR_NO_MEMORY);
        assert_int_equal(err.status, AVK_ERR_NO_MEMORY);
        assert_int_equal(fa.failures, 1);
        avk_reader_destroy(&r);
        assert_int_equal(fa.live_blocks, 0);
        assert_int_equal(fa.live_bytes, 0);
        if (fp)
            fclose(fp);
    }
    /* The next allocation succeeds: exactly one block, of the buffer size
     * and the NUL of its name (none: ""), freed with the right size. */
    avkt_failalloc_init(&fa, 2);
    memset(&opts, 0, sizeof opts);
    opts.struct_size = sizeof opts;
    opts.buffer_size = 100;
    opts.allocator = &fa.allocator;
    avkt_source_init(&src, data, sizeof data, 0);
    AVKT_OK(avk_reader_init_source(&r, avkt_source_read, &src, &opts, &err));
    assert_int_equal(fa.live_blocks, 1);
    assert_int_equal(fa.live_bytes, 101);
    {
        int64_t v;
        AVKT_OK(avk_reader_read_long(&r, &v, &err));
    }
    avk_reader_destroy(&r);
    assert_int_equal(fa.live_blocks, 0);
    assert_int_equal(fa.size_mismatches, 0);
    assert_int_equal(fa.bad_frees, 0);
    assert_int_equal(fa.calls, 1);
}

/* A raw read or skip that runs out: TRUNCATED in both kinds of reader, at
 * the offset where the read started. */
static void check_truncated_offset(const char *what, uint64_t stream_off, uint64_t memory_off)
{
    if (stream_off != memory_off)
        fail_msg("%s: stream reports TRUNCATED at %llu, memory at %llu", what,
                 (unsigned long long)stream_off, (unsigned long long)memory_off);
}

static void test_raw_truncated_stream(void **state)
{
    uint8_t data[200];
    size_t i;
    (void)state;
    for (i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)i;
    for (i = 0; i < 4; i++) {
        static const size_t want[] = {10, 63, 64, 150};
        avkt_source src;
        avk_reader r, m;
        avk_reader_options opts;
        avk_error err, merr;
        uint8_t buf[300];
        memset(&opts, 0, sizeof opts);
        opts.struct_size = sizeof opts;
        opts.buffer_size = 64;
        avkt_source_init(&src, data, sizeof data, 5);
        AVKT_OK(avk_reader_init_source(&r, avkt_source_read, &src, &opts, &err));
        avk_reader_init_memory(&m, data, sizeof data);
        AVKT_OK(avk_reader_skip(&r, 100, &err));
        AVKT_OK(avk_reader_skip(&m, 100, &err));
        avk_error_clear(&err);
        avk_error_clear(&merr);
        AVKT_ASSERT_STATUS(avk_reader_read_raw(&r, buf, 100 + want[i], &err), AVK_ERR_TRUNCATED);
        AVKT_ASSERT_STATUS(avk_reader_read_raw(&m, buf, 100 + want[i], &merr), AVK_ERR_TRUNCATED);
        assert_true(merr.offset == 100);
        check_truncated_offset("raw read past the end", err.offset, merr.offset);
        avk_reader_destroy(&r);
    }
}

static void test_skip_truncated_stream(void **state)
{
    uint8_t data[200] = {0};
    avkt_source src;
    avk_reader r, m;
    avk_reader_options opts;
    avk_error err, merr;
    (void)state;
    memset(&opts, 0, sizeof opts);
    opts.struct_size = sizeof opts;
    opts.buffer_size = 64;
    avkt_source_init(&src, data, sizeof data, 5);
    AVKT_OK(avk_reader_init_source(&r, avkt_source_read, &src, &opts, &err));
    avk_reader_init_memory(&m, data, sizeof data);
    AVKT_OK(avk_reader_skip(&r, 100, &err));
    AVKT_OK(avk_reader_skip(&m, 100, &err));
    avk_error_clear(&err);
    avk_error_clear(&merr);
    AVKT_ASSERT_STATUS(avk_reader_skip(&r, 150, &err), AVK_ERR_TRUNCATED);
    AVKT_ASSERT_STATUS(avk_reader_skip(&m, 150, &merr), AVK_ERR_TRUNCATED);
    assert_true(merr.offset == 100);
    check_truncated_offset("skip past the end", err.offset, merr.offset);
    avk_reader_destroy(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(avkt_test_kernel_choice),
        cmocka_unit_test(test_memory_primitives),
        cmocka_unit_test(test_memory_boolean_malformed),
        cmocka_unit_test(test_memory_truncated),
        cmocka_unit_test(test_memory_malformed),
        cmocka_unit_test(test_memory_script),
        cmocka_unit_test(test_stream_one_byte_reads),
        cmocka_unit_test(test_stream_short_reads),
        cmocka_unit_test(test_stream_tiny_buffer),
        cmocka_unit_test(test_stream_raw_bypass),
        cmocka_unit_test(test_stream_fd),
        cmocka_unit_test(test_stream_pipe),
        cmocka_unit_test(test_stream_file),
        cmocka_unit_test(test_stream_source_error),
        cmocka_unit_test(test_stream_source_error_everywhere),
        cmocka_unit_test(test_stream_source_overreports),
        cmocka_unit_test(test_stream_fill_and_at_end),
        cmocka_unit_test(test_stream_truncated_varint),
        cmocka_unit_test(test_stream_bulk_malformed),
        cmocka_unit_test(test_init_errors),
        cmocka_unit_test(test_init_no_memory),
        cmocka_unit_test(test_raw_truncated_stream),
        cmocka_unit_test(test_skip_truncated_stream),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
