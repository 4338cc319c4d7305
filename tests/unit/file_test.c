/* Unit tests for object container files: round trips with every codec, metadata, appending, seeking, splitting, every bad-file class, skip mode, allocation failures; reading ones again with decompression threads. */
#define _DEFAULT_SOURCE 1
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "avkt.h"
#include "avrokit/file.h"
#include "failalloc.h"
#include "guard.h"

/* ---- decompression threads ------------------------------------------------------------- */

/* Reading tests run with options.threads 0, then 2 and 4 (every reader the
 * file opens gets it, through the wrappers below), expecting the very same
 * records, errors, places and stats. */
static unsigned g_threads;
static unsigned g_flags; /* added to every reader's flags (AVK_FILE_DECODE_AHEAD) */

static const avk_file_reader_options *with_threads(const avk_file_reader_options *o,
                                                   avk_file_reader_options *buf)
{
    if (!g_threads)
        return o;
    if (o) {
        *buf = *o;
    } else {
        memset(buf, 0, sizeof *buf);
        buf->struct_size = sizeof *buf;
    }
    if (buf->struct_size == sizeof *buf) { /* a bad or older size stays as it is */
        buf->threads = g_threads;
        buf->flags |= g_flags;
    }
    return buf;
}

static avk_status t_open_memory(const void *data, size_t len, const avk_file_reader_options *o,
                                avk_file_reader **out, avk_error *err)
{
    avk_file_reader_options b;
    return avk_file_reader_open_memory(data, len, with_threads(o, &b), out, err);
}

static avk_status t_open_path(const char *path, const avk_file_reader_options *o,
                              avk_file_reader **out, avk_error *err)
{
    avk_file_reader_options b;
    return avk_file_reader_open_path(path, with_threads(o, &b), out, err);
}

static avk_status t_open_fd(int fd, const avk_file_reader_options *o, avk_file_reader **out,
                            avk_error *err)
{
    avk_file_reader_options b;
    return avk_file_reader_open_fd(fd, with_threads(o, &b), out, err);
}

#define avk_file_reader_open_memory t_open_memory
#define avk_file_reader_open_path t_open_path
#define avk_file_reader_open_fd t_open_fd


/* Threads of this process (entries of /proc/self/task). */
static int thread_count(void)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    int n = 0;
    assert_non_null(d);
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n;
}

/* The thread count once exited threads are gone, waiting up to 5 s for it
 * to come down to want: under qemu-user a joined thread's host thread may
 * still be listed for a moment after pthread_join returns (qemu clears the
 * guest's thread id before the host thread ends). Natively the first count
 * is the one returned. */
static int thread_count_settled(int want)
{
    int n, tries;
    for (tries = 0; (n = thread_count()) != want && tries < 500; tries++) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return n;
}

static const avk_codec all_codecs[] = {AVK_CODEC_NULL,      AVK_CODEC_DEFLATE, AVK_CODEC_SNAPPY,
                                       AVK_CODEC_ZSTANDARD, AVK_CODEC_BZIP2,   AVK_CODEC_XZ};
#define N_CODECS (sizeof all_codecs / sizeof all_codecs[0])

static const uint8_t SYNC[16] = {0x53, 0x79, 0x6e, 0x63, 0x01, 0x02, 0x03, 0x04,
                                 0xf0, 0xe1, 0xd2, 0xc3, 0xb4, 0xa5, 0x96, 0x87};

/* ---- byte strings (also the memory sink) ----------------------------------------------- */

typedef struct bb {
    uint8_t *p;
    size_t len, cap;
} bb;

static void bb_put(bb *b, const void *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n + 1)
            cap *= 2;
        b->p = (uint8_t *)realloc(b->p, cap);
        assert_non_null(b->p);
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->len, s, n);
    b->len += n;
}

static void bb_long(bb *b, int64_t v)
{
    uint8_t tmp[10];
    bb_put(b, tmp, avk_varint_encode_long(tmp, v));
}

/* Avro string or bytes: length, then the bytes. */
static void bb_str(bb *b, const char *s)
{
    bb_long(b, (int64_t)strlen(s));
    bb_put(b, s, strlen(s));
}

static void bb_free(bb *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

/* The sink of avk_file_writer_open_sink tests: appends to a bb. */
static avk_status bb_sink(void *ctx, const void *data, size_t len, avk_error *err)
{
    (void)err;
    bb_put((bb *)ctx, data, len);
    return AVK_OK;
}

/* ---- temporary files ------------------------------------------------------------------- */

static void tmp_path(char path[64])
{
    int fd;
    snprintf(path, 64, "/tmp/avk_file_test_XXXXXX");
    fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
}

static void write_whole(const char *path, const void *d, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(d, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

static uint8_t *read_whole(const char *path, size_t *n)
{
    char *p = avkt_read_file(path, n);
    assert_non_null(p);
    return (uint8_t *)p;
}

/* ---- the record schema and its values -------------------------------------------------- */

static const char REC_SCHEMA[] =
    "{'type': 'record', 'name': 'R', 'namespace': 'test.file', 'fields': ["
    " {'name': 'id', 'type': 'long'},"
    " {'name': 'name', 'type': 'string'},"
    " {'name': 'ok', 'type': 'boolean'},"
    " {'name': 'score', 'type': 'double'},"
    " {'name': 'tags', 'type': {'type': 'array', 'items': 'string'}},"
    " {'name': 'attrs', 'type': {'type': 'map', 'values': 'int'}},"
    " {'name': 'opt', 'type': ['null', 'string']},"
    " {'name': 'kind', 'type': {'type': 'enum', 'name': 'K', 'symbols': ['A', 'B', 'C']}},"
    " {'name': 'fx', 'type': {'type': 'fixed', 'name': 'F4', 'size': 4}},"
    " {'name': 'blob', 'type': 'bytes'},"
    " {'name': 'ratio', 'type': 'float'},"
    " {'name': 'nums', 'type': {'type': 'array', 'items': 'long'}}]}";

static avk_bytes arena_bytes(avk_arena *a, const void *s, size_t n)
{
    avk_bytes b;
    uint8_t *p = (uint8_t *)avk_arena_alloc(a, n + 1, 1);
    assert_non_null(p);
    if (n)
        memcpy(p, s, n);
    p[n] = 0;
    b.data = p;
    b.len = n;
    return b;
}

static avk_bytes arena_text(avk_arena *a, const char *s)
{
    return arena_bytes(a, s, strlen(s));
}

/* Record number i of the test data, built by hand (deterministic). */
static void make_record(const avk_type *t, avk_arena *a, int i, avk_value *v)
{
    static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    avk_value *f;
    char tmp[160];
    uint8_t raw[20];
    size_t k, n;
    AVKT_OK(avk_value_init(v, t, 0, a, NULL));
    f = v->u.fields;
    f[0].u.l = (int64_t)i * 1000003 - 5000000;
    snprintf(tmp, sizeof tmp, "name-%d-%.*s", i, i % 50, letters);
    f[1].u.bytes = arena_text(a, tmp);
    f[2].u.boolean = i & 1;
    f[3].u.d = i * 0.25 - 3.0;
    n = (size_t)(i % 4);
    AVKT_OK(avk_value_init(&f[4], f[4].type, n, a, NULL));
    for (k = 0; k < n; k++) {
        snprintf(tmp, sizeof tmp, "t%d-%zu", i, k);
        ((avk_value *)f[4].u.array.items)[k].u.bytes = arena_text(a, tmp);
    }
    n = (size_t)(i % 3);
    AVKT_OK(avk_value_init(&f[5], f[5].type, n, a, NULL));
    for (k = 0; k < n; k++) {
        snprintf(tmp, sizeof tmp, "k%zu", k);
        f[5].u.map.keys[k] = arena_text(a, tmp);
        f[5].u.map.values[k].u.i = i * 31 + (int)k;
    }
    AVKT_OK(avk_value_set_branch(&f[6], i % 3 == 0 ? 0u : 1u, a, NULL));
    if (i % 3 != 0) {
        snprintf(tmp, sizeof tmp, "opt%d", i);
        f[6].u.branch.value->u.bytes = arena_text(a, tmp);
    }
    f[7].u.index = i % 3;
    for (k = 0; k < 4; k++)
        raw[k] = (uint8_t)(i + (int)k * 64);
    f[8].u.bytes = arena_bytes(a, raw, 4);
    n = (size_t)(i % 17);
    for (k = 0; k < n; k++)
        raw[k] = (uint8_t)(i * 7 + (int)k);
    f[9].u.bytes = arena_bytes(a, raw, n);
    f[10].u.f = (float)i / 8.0f;
    n = (size_t)(i % 5);
    AVKT_OK(avk_value_init(&f[11], f[11].type, n, a, NULL));
    for (k = 0; k < n; k++)
        ((int64_t *)f[11].u.array.items)[k] = (int64_t)i * (int64_t)k - 100;
}

/* The first field of two records that differs (for messages), or -1. */
static int diff_field(const avk_value *a, const avk_value *b)
{
    size_t k, n = avk_type_field_count(a->type);
    if (avk_type_kind(a->type) != AVK_RECORD || avk_type_kind(b->type) != AVK_RECORD)
        return -2;
    for (k = 0; k < n; k++)
        if (!avk_value_equal(&a->u.fields[k], &b->u.fields[k]))
            return (int)k;
    return -1;
}

static avk_arena *arena_new(void)
{
    avk_arena *a = NULL;
    AVKT_OK(avk_arena_new(NULL, &a, NULL));
    return a;
}

static avk_file_writer_options wopts(avk_codec c, size_t block_bytes, uint64_t block_records,
                                     const uint8_t *sync)
{
    avk_file_writer_options o;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.codec = c;
    o.block_bytes = block_bytes;
    o.block_records = block_records;
    o.sync = sync;
    return o;
}

static avk_file_reader_options ropts(unsigned flags)
{
    avk_file_reader_options o;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.flags = flags;
    o.threads = g_threads;
    return o;
}

/* Appends records first..first+n-1. */
static void append_records(avk_file_writer *fw, const avk_type *t, int first, int n)
{
    avk_arena *a = arena_new();
    avk_error err;
    int i;
    for (i = first; i < first + n; i++) {
        avk_value v;
        make_record(t, a, i, &v);
        if (avk_file_writer_append(fw, &v, &err) != AVK_OK)
            fail_msg("append of record %d: %s", i, err.message);
        avk_arena_reset(a);
    }
    avk_arena_free(a);
}

/* A whole file of records 0..n-1 in memory (the caller frees out->p). */
static void write_file(const avk_schema *s, const avk_file_writer_options *o, int n, bb *out)
{
    avk_file_writer *fw = NULL;
    avk_error err;
    memset(out, 0, sizeof *out);
    AVKT_OK(avk_file_writer_open_sink(bb_sink, out, s, o, &fw, &err));
    append_records(fw, avk_schema_root(s), 0, n);
    AVKT_OK(avk_file_writer_close(fw, &err));
}

/* Reads records first..first+n-1 record by record, then the clean end
 * (twice). */
static void expect_records(avk_file_reader *fr, const avk_type *t, int first, int n)
{
    avk_arena *a = arena_new(), *b = arena_new();
    avk_error err;
    avk_value got, want;
    int i, more = -1;
    for (i = first; i < first + n; i++) {
        avk_status st = avk_file_reader_next(fr, a, &got, &more, &err);
        if (st != AVK_OK || !more)
            fail_msg("record %d: %s more=%d (%s)", i, avk_status_name(st), more,
                     st ? err.message : "");
        make_record(t, b, i, &want);
        if (!avk_value_equal(&got, &want))
            fail_msg("record %d differs (field %d)", i, diff_field(&got, &want));
        avk_arena_reset(a);
        avk_arena_reset(b);
    }
    AVKT_OK(avk_file_reader_next(fr, a, &got, &more, &err));
    assert_int_equal(more, 0);
    more = -1;
    AVKT_OK(avk_file_reader_next(fr, a, &got, &more, &err));
    assert_int_equal(more, 0);
    avk_arena_free(a);
    avk_arena_free(b);
}

typedef struct blockinfo {
    uint64_t offset, end;
    int64_t count;
    int first; /* index of its first record */
    size_t size;     /* as stored */
    size_t data_len; /* decompressed */
} blockinfo;

#define MAX_BLOCKS 4096

/* Reads every block from the reader's position, checks the chain
 * (offsets ascending, each starting where the last ended, indexes from 0)
 * and that block k holds records first.. in order, decoded from the
 * decompressed data with the reader's plan. Returns the block count. */
static size_t read_blocks(avk_file_reader *fr, const avk_type *t, int first, blockinfo *bi,
                          size_t cap)
{
    avk_buffer buf;
    avk_arena *a = arena_new(), *b = arena_new();
    avk_error err;
    avk_file_block blk;
    size_t nb = 0;
    int more = 1, rec = first;
    uint64_t prev_end = 0;
    avk_buffer_init(&buf, NULL);
    for (;;) {
        avk_reader r;
        int64_t k;
        int at_end = 0;
        avk_status st = avk_file_reader_next_block(fr, &blk, &more, &err);
        if (st != AVK_OK)
            fail_msg("block %zu: %s (%s)", nb, avk_status_name(st), err.message);
        if (!more)
            break;
        assert_true(nb < cap);
        assert_int_equal(blk.index, nb);
        if (nb > 0)
            assert_int_equal(blk.offset, prev_end);
        assert_true(blk.count > 0);
        {
            uint8_t tmp[10];
            uint64_t head = avk_varint_encode_long(tmp, blk.count) +
                            avk_varint_encode_long(tmp, (int64_t)blk.size);
            AVKT_ASSERT_I64_EQ(blk.end, blk.offset + head + blk.size + AVK_FILE_SYNC_SIZE);
        }
        prev_end = blk.end;
        bi[nb].offset = blk.offset;
        bi[nb].end = blk.end;
        bi[nb].count = blk.count;
        bi[nb].first = rec;
        bi[nb].size = blk.size;
        AVKT_OK(avk_file_block_decompress(fr, &blk, &buf, &err));
        bi[nb].data_len = buf.len;
        avk_reader_init_memory(&r, buf.data, buf.len);
        for (k = 0; k < blk.count; k++, rec++) {
            avk_value got, want;
            if (avk_plan_decode(avk_file_reader_plan(fr), &r, a, &got, &err) != AVK_OK)
                fail_msg("block %zu record %lld: %s", nb, (long long)k, err.message);
            make_record(t, b, rec, &want);
            if (!avk_value_equal(&got, &want))
                fail_msg("block %zu: record %d differs", nb, rec);
            avk_arena_reset(a);
            avk_arena_reset(b);
        }
        AVKT_OK(avk_reader_at_end(&r, &at_end, NULL));
        assert_int_equal(at_end, 1);
        nb++;
    }
    avk_buffer_destroy(&buf);
    avk_arena_free(a);
    avk_arena_free(b);
    return nb;
}


/* Records idx[0..n) in order, then the clean end. */
static void expect_list(avk_file_reader *fr, const avk_type *t, const int *idx, size_t n)
{
    avk_arena *a = arena_new(), *b = arena_new();
    avk_error err;
    avk_value got, want;
    size_t i;
    int more = -1;
    for (i = 0; i < n; i++) {
        avk_status st = avk_file_reader_next(fr, a, &got, &more, &err);
        if (st != AVK_OK || !more)
            fail_msg("record #%zu (%d): %s more=%d (%s)", i, idx[i], avk_status_name(st), more,
                     st ? err.message : "");
        make_record(t, b, idx[i], &want);
        if (!avk_value_equal(&got, &want))
            fail_msg("record #%zu (%d) differs (field %d)", i, idx[i], diff_field(&got, &want));
        avk_arena_reset(a);
        avk_arena_reset(b);
    }
    AVKT_OK(avk_file_reader_next(fr, a, &got, &more, &err));
    assert_int_equal(more, 0);
    avk_arena_free(a);
    avk_arena_free(b);
}

/* Encoded size of record i. */
static size_t record_size(const avk_plan *plan, const avk_type *t, int i)
{
    avk_writer w;
    avk_arena *a = arena_new();
    avk_value v;
    size_t n;
    AVKT_OK(avk_writer_init_memory(&w, NULL, NULL));
    make_record(t, a, i, &v);
    AVKT_OK(avk_plan_encode(plan, &v, &w, NULL));
    (void)avk_writer_data(&w, &n);
    avk_writer_destroy(&w);
    avk_arena_free(a);
    return n;
}

static avk_file_reader *open_mem(const bb *f, const avk_file_reader_options *o)
{
    avk_file_reader *fr = NULL;
    avk_error err;
    avk_status st = avk_file_reader_open_memory(f->p, f->len, o, &fr, &err);
    if (st != AVK_OK)
        fail_msg("open_memory: %s (%s)", avk_status_name(st), err.message);
    return fr;
}

/* ---- round trips ------------------------------------------------------------------------- */

static void check_codec_meta(avk_file_reader *fr, avk_codec c, const avk_schema *s)
{
    size_t len = 0;
    const uint8_t *v;
    int ns = -1;
    avk_schema *back = NULL;
    assert_int_equal(avk_file_reader_codec(fr, &ns), c);
    assert_int_equal(ns, 0);
    assert_int_equal(avk_file_reader_codec(fr, NULL), c);
    v = avk_file_reader_meta(fr, "avro.codec", &len);
    if (c == AVK_CODEC_NULL) {
        /* The specification allows "null" or no entry. */
        if (v) {
            assert_int_equal(len, 4);
            assert_memory_equal(v, "null", 4);
        }
    } else {
        assert_non_null(v);
        assert_int_equal(len, strlen(avk_codec_name(c)));
        assert_memory_equal(v, avk_codec_name(c), len);
    }
    v = avk_file_reader_meta(fr, "avro.schema", &len);
    assert_non_null(v);
    AVKT_OK(avk_schema_parse((const char *)v, len, NULL, &back, NULL));
    assert_true(avk_type_equal(avk_schema_root(back), avk_schema_root(s)));
    assert_true(avk_type_equal(avk_schema_root(avk_file_reader_schema(fr)), avk_schema_root(s)));
    avk_schema_free(back);
}

static void test_round_trips(void **state)
{
    static const struct {
        size_t bytes;
        uint64_t records;
    } settings[] = {{0, 0}, {100, 0}, {0, 7}, {1, 1}, {4096, 3}, {700, 5}};
    const int N = 60;
    avk_schema *s = AVKT_PARSE(REC_SCHEMA);
    const avk_type *t = avk_schema_root(s);
    avk_plan *plan = avkt_plan_new(t, 0, NULL, 0);
    size_t *sizes = (size_t *)malloc(sizeof(size_t) * (size_t)N);
    blockinfo *bi = (blockinfo *)malloc(sizeof(blockinfo) * MAX_BLOCKS);
    size_t ci, si, k;
    int i;
    (void)state;
    for (i = 0; i < N; i++)
        sizes[i] = record_size(plan, t, i);
    for (ci = 0; ci < N_CODECS; ci++) {
        for (si = 0; si < sizeof settings / sizeof settings[0]; si++) {
            avk_file_writer_options o =
                wopts(all_codecs[ci], settings[si].bytes, settings[si].records, SYNC);
            avk_file_writer *fw = NULL;
            avk_file_writer_stats ws;
            avk_file_reader_stats rs;
            avk_file_reader *fr;
            avk_error err;
            bb f;
            size_t nb;
            uint64_t stored = 0, data = 0;
            int64_t total = 0;
            memset(&f, 0, sizeof f);
            AVKT_OK(avk_file_writer_open_sink(bb_sink, &f, s, &o, &fw, &err));
            assert_memory_equal(avk_file_writer_sync(fw), SYNC, 16);
            assert_true(avk_type_equal(avk_schema_root(avk_file_writer_schema(fw)), t));
            assert_non_null(avk_file_writer_plan(fw));
            append_records(fw, t, 0, N);
            AVKT_OK(avk_file_writer_flush(fw, &err));
            avk_file_writer_get_stats(fw, &ws);
            AVKT_OK(avk_file_writer_close(fw, &err));

            /* Record by record. */
            fr = open_mem(&f, NULL);
            check_codec_meta(fr, all_codecs[ci], s);
            assert_memory_equal(avk_file_reader_sync(fr), SYNC, 16);
            expect_records(fr, t, 0, N);
            avk_file_reader_get_stats(fr, &rs);
            avk_file_reader_free(fr);

            /* Block by block. */
            fr = open_mem(&f, NULL);
            nb = read_blocks(fr, t, 0, bi, MAX_BLOCKS);
            assert_true(nb >= 1);
            AVKT_ASSERT_I64_EQ(bi[0].offset, avk_file_reader_header_size(fr));
            AVKT_ASSERT_I64_EQ(bi[nb - 1].end, f.len);
            for (k = 0; k < nb; k++) {
                size_t sum = 0;
                int64_t r;
                for (r = 0; r < bi[k].count; r++)
                    sum += sizes[bi[k].first + r];
                assert_int_equal(sum, bi[k].data_len);
                total += bi[k].count;
                data += bi[k].data_len;
                stored += bi[k].size;
                if (settings[si].records && k + 1 < nb)
                    AVKT_ASSERT_I64_EQ(bi[k].count, settings[si].records);
                if (settings[si].records)
                    assert_true(bi[k].count <= (int64_t)settings[si].records);
                if (settings[si].bytes) {
                    size_t last = sizes[bi[k].first + bi[k].count - 1];
                    /* A block goes out once its data reaches block_bytes. */
                    if (k + 1 < nb && !settings[si].records)
                        assert_true(bi[k].data_len >= settings[si].bytes);
                    assert_true(bi[k].data_len - last < settings[si].bytes);
                }
            }
            AVKT_ASSERT_I64_EQ(total, N);
            /* Stats of the writer and of the record-by-record reader. */
            AVKT_ASSERT_I64_EQ(ws.blocks, nb);
            AVKT_ASSERT_I64_EQ(ws.records, N);
            AVKT_ASSERT_I64_EQ(ws.bytes_data, data);
            AVKT_ASSERT_I64_EQ(ws.bytes_written, f.len);
            AVKT_ASSERT_I64_EQ(rs.blocks, nb);
            AVKT_ASSERT_I64_EQ(rs.records, N);
            AVKT_ASSERT_I64_EQ(rs.bytes_data, data);
            AVKT_ASSERT_I64_EQ(rs.bad_blocks, 0);
            AVKT_ASSERT_I64_EQ(rs.bad_bytes, 0);
            AVKT_ASSERT_I64_EQ(rs.bytes_stored, stored);
            if (all_codecs[ci] == AVK_CODEC_NULL)
                AVKT_ASSERT_I64_EQ(stored, data);
            avk_file_reader_get_stats(fr, &rs);
            AVKT_ASSERT_I64_EQ(rs.blocks, nb);
            AVKT_ASSERT_I64_EQ(rs.records, 0);
            avk_file_reader_free(fr);
            bb_free(&f);
        }
    }
    free(sizes);
    free(bi);
    avk_plan_free(plan);
    avk_schema_free(s);
}

/* Path, fd and sink writers give the same bytes; path, fd and memory
 * readers the same records; skip, and strings copied out of the buffer. */
static void test_destinations(void **state)
{
    avk_schema *s = AVKT_PARSE(REC_SCHEMA);
    const avk_type *t = avk_schema_root(s);
    avk_file_writer_options o = wopts(AVK_CODEC_DEFLATE, 0, 9, SYNC);
    avk_file_reader_options ro = ropts(0);
    avk_file_writer *fw = NULL;
    avk_file_reader *fr = NULL;
    avk_error err;
    char p1[64], p2[64];
    bb f;
    uint8_t *d;
    size_t n;
    int fd, more, i;
    (void)state;
    write_file(s, &o, 40, &f);
    tmp_path(p1);
    tmp_path(p2);
    AVKT_OK(avk_file_writer_open_path(p1, s, &o, &fw, &err));
    append_records(fw, t, 0, 40);
    AVKT_OK(avk_file_writer_close(fw, &err));
    d = read_whole(p1, &n);
    avkt_assert_bytes(d, n, f.p, f.len);
    free(d);
    /* fd: written at the descriptor's position, not closed. */
    fd = open(p2, O_WRONLY | O_TRUNC);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "junk!", 5), 5);
    AVKT_OK(avk_file_writer_open_fd(fd, s, &o, &fw, &err));
    append_records(fw, t, 0, 40);
    AVKT_OK(avk_file_writer_close(fw, &err));
    assert_int_equal(write(fd, "", 0), 0); /* still open */
    close(fd);
    d = read_whole(p2, &n);
    assert_int_equal(n, f.len + 5);
    assert_memory_equal(d, "junk!", 5);
    assert_memory_equal(d + 5, f.p, f.len);
    free(d);

    AVKT_OK(avk_file_reader_open_path(p1, NULL, &fr, &err));
    expect_records(fr, t, 0, 40);
    avk_file_reader_free(fr);
    fd = open(p1, O_RDONLY);
    assert_true(fd >= 0);
    AVKT_OK(avk_file_reader_open_fd(fd, NULL, &fr, &err));
    expect_records(fr, t, 0, 40);
    avk_file_reader_free(fr);
    assert_int_equal(lseek(fd, 0, SEEK_CUR) >= 0, 1); /* not closed */
    close(fd);
    /* A small stream buffer: blocks larger than it still read. */
    fd = open(p1, O_RDONLY);
    ro.buffer_size = 64;
    AVKT_OK(avk_file_reader_open_fd(fd, &ro, &fr, &err));
    expect_records(fr, t, 0, 40);
    avk_file_reader_free(fr);
    close(fd);

    /* skip, then next: the right records; stats count both. */
    fr = open_mem(&f, NULL);
    for (i = 0; i < 13; i++) {
        more = 0;
        AVKT_OK(avk_file_reader_skip(fr, &more, &err));
        assert_int_equal(more, 1);
    }
    {
        int idx[27];
        avk_file_reader_stats rs;
        for (i = 0; i < 27; i++)
            idx[i] = 13 + i;
        expect_list(fr, t, idx, 27);
        AVKT_OK(avk_file_reader_skip(fr, &more, &err));
        assert_int_equal(more, 0);
        avk_file_reader_get_stats(fr, &rs);
        AVKT_ASSERT_I64_EQ(rs.records, 40);
    }
    avk_file_reader_free(fr);

    /* COPY_STRINGS: every record kept in one arena stays valid (records
     * decoded ahead live in the reader instead, until it moves past their
     * block, as file.h says). */
    if (!(g_flags & AVK_FILE_DECODE_AHEAD)) {
        avk_arena *a = arena_new(), *b = arena_new();
        avk_value got[40], want;
        ro = ropts(0);
        ro.plan_flags = AVK_PLAN_COPY_STRINGS;
        AVKT_OK(avk_file_reader_open_path(p1, &ro, &fr, &err));
        for (i = 0; i < 40; i++) {
            AVKT_OK(avk_file_reader_next(fr, a, &got[i], &more, &err));
            assert_int_equal(more, 1);
        }
        /* (compared while the reader, which owns the types, lives) */
        for (i = 0; i < 40; i++) {
            make_record(t, b, i, &want);
            if (!avk_value_equal(&got[i], &want))
                fail_msg("record %d: field %d differs after the reader moved on", i,
                         diff_field(&got[i], &want));
        }
        avk_file_reader_free(fr);
        avk_arena_free(a);
        avk_arena_free(b);
    }
    unlink(p1);
    unlink(p2);
    /* Missing file: IO with errno. */
    AVKT_ASSERT_STATUS(avk_file_reader_open_path("/nonexistent/avk/x.avro", NULL, &fr, &err),
                       AVK_ERR_IO);
    assert_null(fr);
    assert_int_equal(err.sys_errno, ENOENT);
    AVKT_ASSERT_STATUS(avk_file_writer_open_path("/nonexistent/avk/x.avro", s, &o, &fw, &err),
                       AVK_ERR_IO);
    assert_null(fw);
    assert_int_equal(err.sys_errno, ENOENT);
    bb_free(&f);
    avk_schema_free(s);
}

static void test_metadata(void **state)
{
    static const uint8_t bin[5] = {0x00, 0x01, 0x02, 0xff, 0x00};
    avk_schema *s = AVKT_PARSE(REC_SCHEMA);
    avk_file_meta meta[4];
    avk_file_writer_options o = wopts(AVK_CODEC_SNAPPY, 0, 0, SYNC);
    avk_file_reader *fr;
    const char *key;
    const uint8_t *v;
    size_t len, i, count, user_seen = 0, avro_seen = 0;
    bb f;
    (void)state;
    meta[0].key = "app";
    meta[0].value = "avrokit-test";
    meta[0].len = 12;
    meta[1].key = "bin";
    meta[1].value = bin;
    meta[1].len = sizeof bin;
    meta[2].key = "empty";
    meta[2].value = "";
    meta[2].len = 0;
    meta[3].key = "avrokit"; /* not "avro.": allowed */
    meta[3].value = "x";
    meta[3].len = 1;
    o.meta = meta;
    o.meta_count = 4;
    write_file(s, &o, 3, &f);
    fr = open_mem(&f, NULL);
    v = avk_file_reader_meta(fr, "app", &len);
    assert_non_null(v);
    assert_int_equal(len, 12);
    assert_memory_equal(v, "avrokit-test", 12);
    v = avk_file_reader_meta(fr, "bin", &len);
    assert_non_null(v);
    assert_int_equal(len, sizeof bin);
    assert_memory_equal(v, bin, sizeof bin);
    len = 99;
    assert_non_null(avk_file_reader_meta(fr, "empty", &len));
    assert_int_equal(len, 0);
    len = 777;
    assert_null(avk_file_reader_meta(fr, "nope", &len));
    assert_int_equal(len, 777);
    assert_null(avk_file_reader_meta(fr, "ap", &len));
    count = avk_file_reader_meta_count(fr);
    assert_int_equal(count, 6); /* avro.schema, avro.codec (snappy) and four */
    for (i = 0; i < count; i++) {
        key = NULL;
        assert_int_equal(avk_file_reader_meta_at(fr, i, &key, &v, &len), 1);
        assert_non_null(key);
        if (strncmp(key, "avro.", 5) == 0) {
            avro_seen++;
            continue;
        }
        /* User entries in the order given. */
        assert_true(user_seen < 4);
        assert_string_equal(key, meta[user_seen].key);
        assert_int_equal(len, meta[user_seen].len);
        if (len)
            assert_memory_equal(v, meta[user_seen].value, len);
        user_seen++;
    }
    assert_int_equal(user_seen, 4);
    assert_int_equal(avro_seen, 2);
    key = "same";
    v = (const uint8_t *)"same";
    len = 4242;
    assert_int_equal(avk_file_reader_meta_at(fr, count, &key, &v, &len), 0);
    assert_string_equal(key, "same");
    assert_int_equal(len, 4242);
    assert_int_equal(avk_file_reader_meta_at(fr, (size_t)-1, &key, &v, &len), 0);
    expect_records(fr, avk_schema_root(s), 0, 3);
    avk_file_reader_free(fr);
    bb_free(&f);
    avk_schema_free(s);
}

static void test_sync_and_header(void **state)
{
    avk_schema *s = AVKT_PARSE(REC_SCHEMA);
    avk_file_writer_options o = wopts(AVK_CODEC_NULL, 0, 0, NULL);
    avk_file_writer *fw1 = NULL, *fw2 = NULL;
    avk_file_reader *fr;
    avk_file_block blk;
    avk_file_writer_stats ws;
    uint8_t s1[16], s2[16];
    bb f1, f2, f3, f4;
    avk_arena *a = arena_new();
    avk_value v;
    int more = -1;
    (void)state;
    memset(&f1, 0, sizeof f1);
    memset(&f2, 0, sizeof f2);
    AVKT_OK(avk_file_writer_open_sink(bb_sink, &f1, s, &o, &fw1, NULL));
    AVKT_OK(avk_file_writer_open_sink(bb_sink, &f2, s, &o, &fw2, NULL));
    memcpy(s1, avk_file_writer_sync(fw1), 16);
    memcpy(s2, avk_file_writer_sync(fw2), 16);
    assert_memory_not_equal(s1, s2, 16);
    append_records(fw1, avk_schema_root(s), 0, 5);
    append_records(fw2, avk_schema_root(s), 0, 5);
    AVKT_OK(avk_file_writer_close(fw1, NULL));
    AVKT_OK(avk_file_writer_close(fw2, NULL));
    assert_int_equal(f1.len, f2.len);
    assert_memory_not_equal(f1.p, f2.p, f1.len);
    fr = open_mem(&f1, NULL);
    assert_memory_equal(avk_file_reader_sync(fr), s1, 16);
    /* The marker sits right before the first block and ends the file. */
    assert_memory_equal(f1.p + avk_file_reader_header_size(fr) - 16, s1, 16);
    assert_memory_equal(f1.p + f1.len - 16, s1, 16);
    avk_file_reader_free(fr);
    /* A given marker: identical files. */
    o.sync = SYNC;
    write_file(s, &o, 5, &f3);
    write_file(s, &o, 5, &f4);
    avkt_assert_bytes(f3.p, f3.len, f4.p, f4.len);
    /* No records: the file is the header alone. */
    bb_free(&f4);
    memset(&f4, 0, sizeof f4);
    AVKT_OK(avk_file_writer_open_sink(bb_sink, &f4, s, &o, &fw1, NULL));
    AVKT_OK(avk_file_writer_flush(fw1, NULL));
    avk_file_writer_get_stats(fw1, &ws);
    AVKT_OK(avk_file_writer_close(fw1, NULL));
    AVKT_ASSERT_I64_EQ(ws.blocks, 0);
    AVKT_ASSERT_I64_EQ(ws.records, 0);
    AVKT_ASSERT_I64_EQ(ws.bytes_written, f4.len);
    fr = open_mem(&f4, NULL);
    AVKT_ASSERT_I64_EQ(avk_file_reader_header_size(fr), f4.len);
    AVKT_ASSERT_I64_EQ(avk_file_reader_block_offset(fr), f4.len);
    AVKT_OK(avk_file_reader_next(fr, a, &v, &more, NULL));
    assert_int_equal(more, 0);
    more = -1;
    AVKT_OK(avk_file_reader_next_block(fr, &blk, &more, NULL));
    assert_int_equal(more, 0);
    avk_file_reader_free(fr);
    /* The header of a file with records is the same bytes. */
    assert_true(f3.len > f4.len);
    assert_memory_equal(f3.p, f4.p, f4.len);
    /* NULL arguments. */
    avk_file_reader_free(NULL);
    AVKT_OK(avk_file_writer_close(NULL, NULL));
    avk_file_writer_free(NULL);
    AVKT_ASSERT_STATUS(avk_file_reader_open_memory(NULL, 10, NULL, &fr, NULL),
                       AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_file_reader_open_memory(f3.p, f3.len, NULL, NULL, NULL),
                       AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_file_writer_open_sink(bb_sink, &f4, NULL, &o, &fw1, NULL),
                       AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_file_writer_open_sink(NULL, &f4, s, &o, &fw1, NULL),
                       AVK_ERR_INVALID_ARGUMENT);
    avk_arena_free(a);
    bb_free(&f1);
    bb_free(&f2);
    bb_free(&f3);
    bb_free(&f4);
    avk_schema_free(s);
}

/* ---- appending and the writer's other entry points ------------------------------------- */

static void test_append_path(void **state)
{
    avk_schema *s = AVKT_PARSE(REC_SCHEMA);
    const avk_type *t = avk_schema_root(s);
    avk_file_meta meta = {"app", "v1", 2};
    avk_file_writer_options o = wopts(AVK_CODEC_DEFLATE, 0, 4, SYNC);
    avk_file_writer *fw = NULL;
    avk_file_reader *fr = NULL;
    avk_error err;
    char p[64];
    uint8_t *orig, *now;
    size_t n0, n1, len;
    const uint8_t *v;
    (void)state;
    o.meta = &meta;
    o.meta_count = 1;
    tmp_path(p);
    AVKT_OK(avk_file_writer_open_path(p, s, &o, &fw, &err));
    append_records(fw, t, 0, 10);
    AVKT_OK(avk_file_writer_close(fw, &err));
    orig = read_whole(p, &n0);
    /* codec, sync and meta of the options are ignored when appending. */
    o = wopts(AVK_CODEC_NULL, 0, 3, NULL);
    AVKT_OK(avk_file_writer_append_path(p, &o, &fw, &err));
    assert_memory_equal(avk_file_writer_sync(fw), SYNC, 16);
    assert_true(avk_type_equal(avk_schema_root(avk_file_writer_schema(fw)), t));
    append_records(fw, t, 10, 15);
    AVKT_OK(avk_file_writer_close(fw, &err));
    now = read_whole(p, &n1);
    assert_true(n1 > n0);
    assert_memory_equal(now, orig, n0);
    AVKT_OK(avk_file_reader_open_path(p, NULL, &fr, &err));
    assert_int_equal(avk_file_reader_codec(fr, NULL), AVK_CODEC_DEFLATE);
    v = avk_file_reader_meta(fr, "app", &len);
    assert_non_null(v);
    assert_int_equal(len, 2);
    assert_memory_equal(v, "v1", 2);
    expect_records(fr, t, 0, 25);
    avk_file_reader_free(fr);
    /* Twice more, once with nothing added. */
    AVKT_OK(avk_file_writer_append_path(p, NULL, &fw, &err));
    AVKT_OK(avk_file_writer_close(fw, &err));
    AVKT_OK(avk_file_writer_append_path(p, NULL, &fw, &err));
    append_records(fw, t, 25, 1);
    AVKT_OK(avk_file_writer_close(fw, &err));
    AVKT_OK(avk_file_reader_open_path(p, NULL, &fr, &err));
    expect_records(fr, t, 0, 26);
    avk_file_reader_free(fr);
    /* A file that does not end on a block boundary is refused as it stands. */
    free(now);
    now = read_whole(p, &n1);
    write_whole(p, now, n1 - 3);
    fw = (avk_file_writer *)1;
    AVKT_ASSERT_STATUS(avk_file_writer_append_path(p, NULL, &fw, &err), AVK_ERR_TRUNCATED);
    assert_null(fw);
    /* Not a container file, and no file. */
    write_whole(p, "hello world, not avro", 21);
    AVKT_ASSERT_STATUS(avk_file_writer_append_path(p, NULL, &fw, &err), AVK_ERR_MALFORMED);
    unlink(p);
    AVKT_ASSERT_STATUS(avk_file_writer_append_path(p, NULL, &fw, &err), AVK_ERR_IO);
    assert_int_equal(err.sys_errno, ENOENT);
    free(orig);
    free(now);
    avk_schema_free(s);
}

static void test_append_block_and_encoded(void **state)
{
    avk_schema *s = AVKT_PARSE(REC_SCHEMA);
    const avk_type *t = avk_schema_root(s);
    avk_plan *plan = avkt_plan_new(t, 0, NULL, 0);
    avk_file_writer_options o = wopts(AVK_CODEC_DEFLATE, 0, 5, SYNC);
    avk_file_writer *fw = NULL;
    avk_file_reader *fr, *fr2;
    avk_file_block blk, blk2;
    avk_error err;
    avk_arena *a = arena_new();
    int idx[64], n = 0, i, more;
    bb fa, fb;
    (void)state;
    write_file(s, &o, 20, &fa);
    memset(&fb, 0, sizeof fb);
    AVKT_OK(avk_file_writer_open_sink(bb_sink, &fb, s, &o, &fw, &err));
    append_records(fw, t, 100, 2);
    idx[n++] = 100;
    idx[n++] = 101;
    fr = open_mem(&fa, NULL);
    for (;;) {
        AVKT_OK(avk_file_reader_next_block(fr, &blk, &more, &err));
        if (!more)
            break;
        AVKT_OK(avk_file_writer_append_block(fw, blk.count, blk.data, blk.size, &err));
    }
    for (i = 0; i < 20; i++)
        idx[n++] = i;
    AVKT_ASSERT_STATUS(avk_file_writer_append_block(fw, 0, "x", 1, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_file_writer_append_block(fw, -3, "x", 1, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    /* append_encoded: bytes from avk_plan_encode. */
    for (i = 200; i < 203; i++) {
        avk_writer w;
        avk_value v;
        const uint8_t *d;
        size_t len;
        AVKT_OK(avk_writer_init_memory(&w, NULL, NULL));
        make_record(t, a, i, &v);
        AVKT_OK(avk_plan_encode(plan, &v, &w, NULL));
        d = avk_writer_data(&w, &len);
        AVKT_OK(avk_file_writer_append_encoded(fw, d, len, &err));
        avk_writer_destroy(&w);
        avk_arena_reset(a);
        idx[n++] = i;
    }
    append_records(fw, t, 102, 1);
    idx[n++] = 102;
    /* record_begin / record_end: commit keeps, 0 drops. */
    for (i = 300; i < 308; i++) {
        avk_value v;
        avk_writer *w = avk_file_writer_record_begin(fw);
        assert_non_null(w);
        make_record(t, a, i, &v);
        AVKT_OK(avk_plan_encode(avk_file_writer_plan(fw), &v, w, &err));
        AVKT_OK(avk_file_writer_record_end(fw, i % 3 != 1, &err));
        if (i % 3 != 1)
            idx[n++] = i;
        avk_arena_reset(a);
    }
    {
        avk_file_writer_stats ws;
        avk_file_writer_get_stats(fw, &ws);
        AVKT_ASSERT_I64_EQ(ws.records, n);
    }
    AVKT_OK(avk_file_writer_close(fw, &err));
    fr2 = open_mem(&fb, NULL);
    expect_list(fr2, t, idx, (size_t)n);
    avk_file_reader_free(fr2);
    /* The copied blocks are the same bytes: B's blocks 1..4 are A's 0..3. */
    AVKT_OK(avk_file_reader_seek_block(fr, avk_file_reader_header_size(fr), &err));
    fr2 = open_mem(&fb, NULL);
    AVKT_OK(avk_file_reader_next_block(fr2, &blk2, &more, &err));
    AVKT_ASSERT_I64_EQ(blk2.count, 2);
    for (i = 0; i < 4; i++) {
        AVKT_OK(avk_file_reader_next_block(fr, &blk, &more, &err));
        assert_int_equal(more, 1);
        AVKT_OK(avk_file_reader_next_block(fr2, &blk2, &more, &err));
        assert_int_equal(more, 1);
        AVKT_ASSERT_I64_EQ(blk2.count, blk.count);
        avkt_assert_bytes(blk2.data, blk2.size, blk.data, blk.size);
    }
    avk_file_reader_free(fr);
    avk_file_reader_free(fr2);
    avk_arena_free(a);
    avk_plan_free(plan);
    bb_free(&fa);
    bb_free(&fb);
    avk_schema_free(s);
}

/* flush leaves a file readable so far, the writer still open. */
static void test_flush_midway(void **state)
{
    avk_schema *s = AVKT_PARSE(REC_SCHEMA);
    const avk_type *t = avk_schema_root(s);
    avk_file_writer_options o = wopts(AVK_CODEC_ZSTANDARD, 0, 0, NULL);
    avk_file_writer *fw = NULL;
    avk_file_reader *fr = NULL;
    avk_error err;
    char p[64];
    int fd;
    (void)state;
    tmp_path(p);
    AVKT_OK(avk_file_writer_open_path(p, s, &o, &fw, &err));
    append_records(fw, t, 0, 10);
    AVKT_OK(avk_file_writer_flush(fw, &err));
    AVKT_OK(avk_file_reader_open_path(p, NULL, &fr, &err));
    expect_records(fr, t, 0, 10);
    avk_file_reader_free(fr);
    append_records(fw, t, 10, 5);
    AVKT_OK(avk_file_writer_flush(fw, &err));
    AVKT_OK(avk_file_writer_flush(fw, &err)); /* nothing pending: no empty block */
    fd = open(p, O_RDONLY);
    assert_true(fd >= 0);
    AVKT_OK(avk_file_reader_open_fd(fd, NULL, &fr, &err));
    expect_records(fr, t, 0, 15);
    avk_file_reader_free(fr);
    close(fd);
    append_records(fw, t, 15, 1);
    AVKT_OK(avk_file_writer_close(fw, &err));
    AVKT_OK(avk_file_reader_open_path(p, NULL, &fr, &err));
    {
        avk_file_block blk;
        int more, nb = 0;
        for (;;) {
            AVKT_OK(avk_file_reader_next_block(fr, &blk, &more, &err));
            if (!more)
                break;
            nb++;
        }
        assert_int_equal(nb, 3);
    }
    avk_file_reader_free(fr);
    unlink(p);
    avk_schema_free(s);
}

static avk_status failing_sink(void *ctx, const void *data, size_t len, avk_error *err)
{
    (void)ctx;
    (void)data;
    (void)len;
    if (err) {
        err->status = AVK_ERR_IO;
        err->sys_errno = ENOSPC;
        snprintf(err->message, sizeof err->message, "test sink: no space");
    }
    return AVK_ERR_IO;
}

static void test_writer_refuses(void **state)
{
    avk_schema *s = AVKT_PARSE(REC_SCHEMA);
    avk_schema *ls = AVKT_PARSE("'long'");
    const avk_type *t = avk_schema_root(s);
    avk_file_writer_options o = wopts(AVK_CODEC_NULL, 0, 0, SYNC);
    avk_file_meta meta[2] = {{"a", "1", 1}, {"a", "2", 1}};
    avk_file_writer *fw;
    avk_file_reader *fr;
    avk_file_writer_stats ws;
    avk_error err;
    avk_arena *a = arena_new();
    avk_value v;
    avk_status st;
    bb f;
    int i;
    static const char *const reserved[] = {"avro.schema", "avro.codec", "avro.x", "avro."};
    (void)state;
    memset(&f, 0, sizeof f);
    for (i = 0; i < 4; i++) {
        avk_file_meta m = {reserved[i], "x", 1};
        o.meta = &m;
        o.meta_count = 1;
        fw = (avk_file_writer *)1;
        AVKT_ASSERT_STATUS(avk_file_writer_open_sink(bb_sink, &f, s, &o, &fw, &err),
                           AVK_ERR_INVALID_ARGUMENT);
        assert_null(fw);
        assert_non_null(strstr(err.message, reserved[i]));
    }
    o.meta = meta;
    o.meta_count = 2;
    AVKT_ASSERT_STATUS(avk_file_writer_open_sink(bb_sink, &f, s, &o, &fw, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    assert_null(fw);
    o.meta_count = 0;
    o.codec = AVK_CODEC_DEFLATE;
    o.level = 13;
    AVKT_ASSERT_STATUS(avk_file_writer_open_sink(bb_sink, &f, s, &o, &fw, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    o.codec = AVK_CODEC_BZIP2;
    o.level = 10;
    AVKT_ASSERT_STATUS(avk_file_writer_open_sink(bb_sink, &f, s, &o, &fw, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    o.codec = (avk_codec)17;
    o.level = 0;
    AVKT_ASSERT_STATUS(avk_file_writer_open_sink(bb_sink, &f, s, &o, &fw, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    o.struct_size = 3;
    o.codec = AVK_CODEC_NULL;
    AVKT_ASSERT_STATUS(avk_file_writer_open_sink(bb_sink, &f, s, &o, &fw, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    assert_int_equal(f.len, 0); /* nothing written by refused opens */

    /* Values that do not match: refused, not added. */
    o = wopts(AVK_CODEC_NULL, 0, 2, SYNC);
    AVKT_OK(avk_file_writer_open_sink(bb_sink, &f, s, &o, &fw, &err));
    append_records(fw, t, 0, 3);
    AVKT_OK(avk_value_init(&v, avk_schema_root(ls), 0, a, NULL));
    v.u.l = 5;
    AVKT_ASSERT_STATUS(avk_file_writer_append(fw, &v, &err), AVK_ERR_INVALID_ARGUMENT);
    make_record(t, a, 3, &v);
    v.u.fields[7].u.index = 7; /* enum K has 3 symbols */
    AVKT_ASSERT_STATUS(avk_file_writer_append(fw, &v, &err), AVK_ERR_INVALID_ARGUMENT);
    assert_true(err.path[0] != '\0');
    make_record(t, a, 3, &v);
    v.u.fields[6].u.branch.index = 2; /* union of two */
    AVKT_ASSERT_STATUS(avk_file_writer_append(fw, &v, &err), AVK_ERR_INVALID_ARGUMENT);
    avk_file_writer_get_stats(fw, &ws);
    AVKT_ASSERT_I64_EQ(ws.records, 3);
    append_records(fw, t, 3, 2);
    AVKT_OK(avk_file_writer_close(fw, &err));
    fr = open_mem(&f, NULL);
    expect_records(fr, t, 0, 5);
    avk_file_reader_free(fr);

    /* A sink that fails: the first error is IO and the writer is freed. */
    fw = NULL;
    st = avk_file_writer_open_sink(failing_sink, NULL, s, &o, &fw, &err);
    if (st == AVK_OK) {
        for (i = 0; i < 50 && st == AVK_OK; i++) {
            make_record(t, a, i, &v);
            st = avk_file_writer_append(fw, &v, &err);
        }
        if (st == AVK_OK)
            st = avk_file_writer_close(fw, &err);
        else
            avk_file_writer_free(fw);
    } else {
        assert_null(fw);
    }
    AVKT_ASSERT_STATUS(st, AVK_ERR_IO);
    assert_int_equal(err.sys_errno, ENOSPC);
    avk_arena_free(a);
    bb_free(&f);
    avk_schema_free(s);
    avk_schema_free(ls);
}

/* ---- seeking and splitting ------------------------------------------------------------- */

static void test_seek_sync_every_offset(void **state)
{
    avk_schema *s = AVKT_PARSE(REC_SCHEMA);
    const avk_type *t = avk_schema_root(s);
    blockinfo *bi = (blockinfo *)malloc(sizeof(blockinfo) * MAX_BLOCKS);
    size_t ci;
    (void)state;
    /* Codec null or deflate, times input: memory, a path read through a
     * buffer (seeks by lseek), a path mapped with AVK_FILE_MAP. */
    for (ci = 0; ci < 6; ci++) {
        avk_file_writer_options o =
            wopts(ci % 2 ? AVK_CODEC_DEFLATE : AVK_CODEC_NULL, 0, 3, NULL);
        avk_file_reader_options ro;
        avk_file_reader *fr;
        avk_error err;
        char p[64];
        bb f;
        size_t nb, off;
        write_file(s, &o, 30, &f);
        memset(&ro, 0, sizeof ro);
        ro.struct_size = sizeof ro;
        ro.flags = ci / 2 == 2 ? AVK_FILE_MAP : 0;
        ro.threads = g_threads;
        p[0] = 0;
        if (ci / 2 == 0) {
            fr = open_mem(&f, NULL);
        } else {
            tmp_path(p);
            write_whole(p, f.p, f.len);
            AVKT_OK(avk_file_reader_open_path(p, &ro, &fr, &err));
        }
        nb = read_blocks(fr, t, 0, bi, MAX_BLOCKS);
        assert_int_equal(nb, 10);
        for (off = 0; off <= f.len; off++) {
            avk_file_block blk;
            size_t k, want = 0;
            int more;
            AVKT_OK(avk_file_reader_seek_sync(fr, off, &err));
            while (want < nb && bi[want].offset - 16 < off)
                want++;
            for (k = want;; k++) {
                avk_status st = avk_file_reader_next_block(fr, &blk, &more, &err);
                if (st != AVK_OK)
                    fail_msg("offset %zu: %s (%s)", off, avk_status_name(st), err.message);
                if (!more)
                    break;
                if (k >= nb || blk.offset != bi[k].offset)
                    fail_msg("offset %zu: block at %llu, expected block %zu", off,
                             (unsigned long long)blk.offset, k);
                AVKT_ASSERT_I64_EQ(blk.index, k - want);
            }
            assert_int_equal(k, nb);
            /* Records too, every few offsets (and the block offset API). */
            if (off % 5 == 0) {
                int idx[30];
                size_t r, n = 0;
                AVKT_OK(avk_file_reader_seek_sync(fr, off, &err));
                AVKT_ASSERT_I64_EQ(avk_file_reader_block_offset(fr),
                                   want < nb ? bi[want].offset : f.len);
                for (r = want < nb ? (size_t)bi[want].first : 30; r < 30; r++)
                    idx[n++] = (int)r;
                expect_list(fr, t, idx, n);
            }
        }
        avk_file_reader_free(fr);
        if (p[0])
            unlink(p);
        bb_free(&f);
    }
    free(bi);
    avk_schema_free(s);
}

/* Parts [a, b) of the file: each worker seeks to a and reads blocks while
 * block.offset - 16 < b; every record is read exactly once. */
static void test_split(void **state)
{
    avk_schema *s = AVKT_PARSE(REC_SCHEMA);
    const avk_type *t = avk_schema_root(s);
    avk_file_writer_options o = wopts(AVK_CODEC_SNAPPY, 300, 0, NULL);
    blockinfo *bi = (blockinfo *)malloc(sizeof(blockinfo) * MAX_BLOCKS);
    avk_file_reader *fr;
    avk_buffer buf;
    avk_arena *a = arena_new(), *b = arena_new();
    avk_error err;
    char p[64];
    bb f;
    size_t nb, parts;
    int how;
    (void)state;
    avk_file_reader_options mapped;
    memset(&mapped, 0, sizeof mapped);
    mapped.struct_size = sizeof mapped;
    mapped.flags = AVK_FILE_MAP;
    avk_buffer_init(&buf, NULL);
    write_file(s, &o, 200, &f);
    tmp_path(p);
    write_whole(p, f.p, f.len);
    fr = open_mem(&f, NULL);
    nb = read_blocks(fr, t, 0, bi, MAX_BLOCKS);
    avk_file_reader_free(fr);
    assert_true(nb >= 20);
    for (how = 0; how < 4; how++) {
        for (parts = 2; parts <= 7; parts++) {
            int next = 0; /* the record expected next */
            size_t j;
            for (j = 0; j < parts; j++) {
                uint64_t lo = f.len * j / parts, hi = f.len * (j + 1) / parts;
                avk_file_block blk;
                int more, fd = -1;
                if (how == 0)
                    fr = open_mem(&f, NULL);
                else if (how == 1)
                    AVKT_OK(avk_file_reader_open_path(p, NULL, &fr, &err));
                else if (how == 3)
                    AVKT_OK(avk_file_reader_open_path(p, &mapped, &fr, &err));
                else {
                    fd = open(p, O_RDONLY);
                    assert_true(fd >= 0);
                    AVKT_OK(avk_file_reader_open_fd(fd, NULL, &fr, &err));
                }
                AVKT_OK(avk_file_reader_seek_sync(fr, lo, &err));
                for (;;) {
                    avk_reader r;
                    int64_t k;
                    AVKT_OK(avk_file_reader_next_block(fr, &blk, &more, &err));
                    if (!more || blk.offset - 16 >= hi)
                        break;
                    AVKT_OK(avk_file_block_decompress(fr, &blk, &buf, &err));
                    avk_reader_init_memory(&r, buf.data, buf.len);
                    for (k = 0; k < blk.count; k++) {
                        avk_value got, want;
                        AVKT_OK(avk_plan_decode(avk_file_reader_plan(fr), &r, a, &got, &err));
                        make_record(t, b, next, &want);
                        if (!avk_value_equal(&got, &want))
                            fail_msg("%zu parts, part %zu: record %d differs", parts, j, next);
                        next++;
                        avk_arena_reset(a);
                        avk_arena_reset(b);
                    }
                }
                avk_file_reader_free(fr);
                if (fd >= 0)
                    close(fd);
            }
            assert_int_equal(next, 200);
        }
    }
    unlink(p);
    avk_buffer_destroy(&buf);
    avk_arena_free(a);
    avk_arena_free(b);
    free(bi);
    bb_free(&f);
    avk_schema_free(s);
}

static void test_seek_block(void **state)
{
    avk_schema *s = AVKT_PARSE(REC_SCHEMA);
    const avk_type *t = avk_schema_root(s);
    avk_file_writer_options o = wopts(AVK_CODEC_XZ, 0, 3, NULL);
    blockinfo bi[16];
    avk_file_reader *fr;
    avk_file_block blk;
    avk_arena *a = arena_new();
    avk_value v;
    avk_error err;
    int idx[20], i, more, pipefd[2];
    uint64_t mark;
    bb f;
    (void)state;
    write_file(s, &o, 20, &f);
    fr = open_mem(&f, NULL);
    assert_int_equal(read_blocks(fr, t, 0, bi, 16), 7);
    avk_file_reader_free(fr);
    fr = open_mem(&f, NULL);
    AVKT_ASSERT_I64_EQ(avk_file_reader_block_offset(fr), bi[0].offset);
    for (i = 0; i < 7; i++) {
        AVKT_OK(avk_file_reader_next(fr, a, &v, &more, &err));
        /* Inside block i / 3; after its last record, the next block's. */
        AVKT_ASSERT_I64_EQ(avk_file_reader_block_offset(fr),
                           i % 3 == 2 ? bi[i / 3 + 1].offset : bi[i / 3].offset);
    }
    mark = avk_file_reader_block_offset(fr); /* block 2, record 6 returned */
    AVKT_ASSERT_I64_EQ(mark, bi[2].offset);
    for (i = 7; i < 20; i++)
        AVKT_OK(avk_file_reader_next(fr, a, &v, &more, &err));
    AVKT_OK(avk_file_reader_seek_block(fr, mark, &err));
    for (i = 6; i < 20; i++)
        idx[i - 6] = i;
    expect_list(fr, t, idx, 14);
    AVKT_OK(avk_file_reader_seek_block(fr, avk_file_reader_header_size(fr), &err));
    AVKT_OK(avk_file_reader_next_block(fr, &blk, &more, &err));
    AVKT_ASSERT_I64_EQ(blk.index, 0);
    AVKT_ASSERT_I64_EQ(blk.offset, bi[0].offset);
    AVKT_OK(avk_file_reader_seek_block(fr, bi[5].offset, &err));
    AVKT_OK(avk_file_reader_next_block(fr, &blk, &more, &err));
    AVKT_ASSERT_I64_EQ(blk.index, 0);
    AVKT_ASSERT_I64_EQ(blk.offset, bi[5].offset);
    AVKT_ASSERT_I64_EQ(blk.count, 3);
    /* Partly read block: next_block goes on with the next block. */
    AVKT_OK(avk_file_reader_seek_block(fr, bi[1].offset, &err));
    AVKT_OK(avk_file_reader_next(fr, a, &v, &more, &err));
    AVKT_OK(avk_file_reader_next_block(fr, &blk, &more, &err));
    AVKT_ASSERT_I64_EQ(blk.offset, bi[2].offset);
    avk_file_reader_free(fr);

    /* A pipe cannot seek. */
    assert_int_equal(pipe(pipefd), 0);
    assert_int_equal(write(pipefd[1], f.p, f.len), (ssize_t)f.len);
    close(pipefd[1]);
    AVKT_OK(avk_file_reader_open_fd(pipefd[0], NULL, &fr, &err));
    AVKT_ASSERT_STATUS(avk_file_reader_seek_sync(fr, 0, &err), AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_file_reader_seek_block(fr, bi[0].offset, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    avk_file_reader_free(fr);
    close(pipefd[0]);
    /* A pipe reads, though (the file fits in the pipe's buffer). */
    assert_true(f.len < 65536);
    assert_int_equal(pipe(pipefd), 0);
    assert_int_equal(write(pipefd[1], f.p, f.len), (ssize_t)f.len);
    close(pipefd[1]);
    AVKT_OK(avk_file_reader_open_fd(pipefd[0], NULL, &fr, &err));
    expect_records(fr, t, 0, 20);
    avk_file_reader_free(fr);
    close(pipefd[0]);
    avk_arena_free(a);
    bb_free(&f);
    avk_schema_free(s);
}

/* A container 5 GiB into a sparse file, read from an fd standing there:
 * records, block offsets counted from the file's start, seek_block and
 * seek_sync past 4 GiB, on 32-bit machines too (64-bit file offsets).
 * Mapping it needs a process that can hold its length: a 32-bit one gets
 * AVK_ERR_IO with EFBIG. */
static void test_offsets_past_4gib(void **state)
{
    const uint64_t at = (uint64_t)5 << 30;
    avk_schema *s = AVKT_PARSE(REC_SCHEMA);
    const avk_type *t = avk_schema_root(s);
    avk_file_writer_options o = wopts(AVK_CODEC_NULL, 0, 3, NULL);
    avk_file_reader_options ro = ropts(AVK_FILE_MAP);
    blockinfo bi[16];
    avk_file_reader *fr;
    avk_file_block blk;
    avk_error err;
    avk_status st;
    char path[64];
    int fd, more;
    bb f;
    (void)state;
    write_file(s, &o, 20, &f);
    fr = open_mem(&f, NULL);
    assert_int_equal(read_blocks(fr, t, 0, bi, 16), 7);
    avk_file_reader_free(fr);
    tmp_path(path);
    fd = open(path, O_RDWR);
    assert_true(fd >= 0);
    if (pwrite(fd, f.p, f.len, (off_t)at) != (ssize_t)f.len) {
        print_message("the file system of /tmp holds no 5 GiB sparse file: %s\n", strerror(errno));
        close(fd);
        unlink(path);
        bb_free(&f);
        avk_schema_free(s);
        skip();
    }
    assert_true(lseek(fd, (off_t)at, SEEK_SET) == (off_t)at);
    AVKT_OK(avk_file_reader_open_fd(fd, NULL, &fr, &err));
    AVKT_ASSERT_I64_EQ(avk_file_reader_block_offset(fr), at + bi[0].offset);
    expect_records(fr, t, 0, 20);
    AVKT_OK(avk_file_reader_seek_block(fr, at + bi[5].offset, &err));
    AVKT_OK(avk_file_reader_next_block(fr, &blk, &more, &err));
    AVKT_ASSERT_I64_EQ(blk.offset, at + bi[5].offset);
    AVKT_ASSERT_I64_EQ(blk.count, 3);
    AVKT_OK(avk_file_reader_seek_sync(fr, at + bi[2].offset - 16, &err));
    AVKT_OK(avk_file_reader_next_block(fr, &blk, &more, &err));
    AVKT_ASSERT_I64_EQ(blk.offset, at + bi[2].offset);
    avk_file_reader_free(fr);

    assert_true(lseek(fd, (off_t)at, SEEK_SET) == (off_t)at);
    st = avk_file_reader_open_fd(fd, &ro, &fr, &err);
    if (sizeof(size_t) < 8) {
        AVKT_ASSERT_STATUS(st, AVK_ERR_IO);
        assert_int_equal(err.sys_errno, EFBIG);
    } else {
        AVKT_OK(st);
        AVKT_ASSERT_I64_EQ(avk_file_reader_block_offset(fr), at + bi[0].offset);
        expect_records(fr, t, 0, 20);
        avk_file_reader_free(fr);
    }
    close(fd);
    unlink(path);
    bb_free(&f);
    avk_schema_free(s);
}

/* ---- hand-made files: every bad-file class ---------------------------------------------- */

/* Files of schema "long" whose record j is lv(j), built byte by byte. */
static int64_t lv(int j)
{
    return (int64_t)j * 1000 - 3;
}

typedef struct craft {
    bb b;
    size_t nb;
    uint64_t off[32]; /* block offsets */
    int first[32], count[32];
    uint64_t header;
    int next; /* next record number */
} craft;

static void craft_meta_start(craft *c, int64_t entries)
{
    memset(c, 0, sizeof *c);
    bb_put(&c->b, "Obj\x01", 4);
    bb_long(&c->b, entries);
}

static void craft_entry(craft *c, const char *key, const char *value)
{
    bb_str(&c->b, key);
    bb_str(&c->b, value);
}

static void craft_meta_end(craft *c)
{
    bb_long(&c->b, 0);
    bb_put(&c->b, SYNC, 16);
    c->header = c->b.len;
}

static void craft_header(craft *c, const char *schema, const char *codec)
{
    craft_meta_start(c, codec ? 2 : 1);
    craft_entry(c, "avro.schema", schema);
    if (codec)
        craft_entry(c, "avro.codec", codec);
    craft_meta_end(c);
}

/* The data of records first..first+n-1 (uncompressed). */
static void longs_data(bb *d, int first, int n)
{
    int j;
    for (j = first; j < first + n; j++)
        bb_long(d, lv(j));
}

/* A block of raw parts: count, size, data, the marker given. */
static void craft_raw(craft *c, int64_t count, int64_t size, const void *data, size_t n,
                      const uint8_t *sync, int records)
{
    c->off[c->nb] = c->b.len;
    c->first[c->nb] = c->next;
    c->count[c->nb] = records;
    c->nb++;
    c->next += records;
    bb_long(&c->b, count);
    bb_long(&c->b, size);
    bb_put(&c->b, data, n);
    if (sync)
        bb_put(&c->b, sync, 16);
}

/* A good block of n records compressed with codec. */
static void craft_block(craft *c, avk_codec codec, int n)
{
    bb d;
    avk_buffer z;
    memset(&d, 0, sizeof d);
    avk_buffer_init(&z, NULL);
    longs_data(&d, c->next, n);
    AVKT_OK(avk_codec_compress(codec, 0, d.p, d.len, &z, NULL));
    craft_raw(c, n, (int64_t)z.len, z.data, z.len, SYNC, n);
    avk_buffer_destroy(&z);
    bb_free(&d);
}

static void craft_free(craft *c)
{
    bb_free(&c->b);
}

/* Opening data[0..n) (a guard-page copy) fails with want, *out NULL. */
static void expect_open_fails(const void *data, size_t n, const avk_file_reader_options *o,
                              avk_status want, avk_error *err)
{
    avkt_guard g;
    avk_file_reader *fr = (avk_file_reader *)1;
    avk_status st;
    avkt_guard_copy(&g, data, n);
    st = avk_file_reader_open_memory(g.data, n, o, &fr, err);
    if (st != want)
        fail_msg("open of %zu bytes: %s (%s), expected %s", n, avk_status_name(st),
                 st ? err->message : "", avk_status_name(want));
    assert_null(fr);
    assert_int_equal(err->status, want);
    assert_true(err->message[0] != '\0');
    avkt_guard_free(&g);
}

/* Reads data[0..n) (a guard-page copy) record by record: records 0..good-1,
 * then at most extra more (the damaged block's leading records, in order),
 * then want (AVK_OK: the clean end) with err->offset off and err->block
 * block; a second call says the same. Returns the records read. */
static int read_longs(const void *data, size_t n, const avk_file_reader_options *o, int good,
                      int extra, avk_status want, uint64_t off, int64_t block)
{
    avkt_guard g;
    avk_file_reader *fr = NULL;
    avk_arena *a = arena_new();
    avk_error err;
    avk_value v;
    avk_status st;
    int got = 0, more = 0;
    avkt_guard_copy(&g, data, n);
    AVKT_OK(avk_file_reader_open_memory(g.data, n, o, &fr, &err));
    for (;;) {
        st = avk_file_reader_next(fr, a, &v, &more, &err);
        if (st != AVK_OK || !more)
            break;
        if (v.u.l != lv(got))
            fail_msg("record %d is %lld, expected %lld", got, (long long)v.u.l,
                     (long long)lv(got));
        got++;
        avk_arena_reset(a);
    }
    if (st != want)
        fail_msg("after %d records: %s (%s), expected %s", got, avk_status_name(st),
                 st ? err.message : "", avk_status_name(want));
    if (got < good || got > good + extra)
        fail_msg("%d records before %s, expected %d (+ up to %d)", got, avk_status_name(st), good,
                 extra);
    if (want != AVK_OK) {
        assert_int_equal(err.status, want);
        if (err.offset != off || err.block != block)
            fail_msg("%s at offset %llu block %lld, expected offset %llu block %lld (%s)",
                     avk_status_name(want), (unsigned long long)err.offset,
                     (long long)err.block, (unsigned long long)off, (long long)block,
                     err.message);
        assert_true(err.message[0] != '\0');
        AVKT_ASSERT_STATUS(avk_file_reader_next(fr, a, &v, &more, &err), want);
        AVKT_ASSERT_STATUS(avk_file_reader_skip(fr, &more, &err), want);
    }
    avk_file_reader_free(fr);
    avk_arena_free(a);
    avkt_guard_free(&g);
    return got;
}

/* Reads the blocks of data[0..n): good blocks, then want at block
 * index block (offset off). */
static void read_longs_blocks(const void *data, size_t n, const avk_file_reader_options *o,
                              size_t good, avk_status want, uint64_t off, int64_t block)
{
    avkt_guard g;
    avk_file_reader *fr = NULL;
    avk_file_block blk;
    avk_error err;
    avk_status st;
    size_t got = 0;
    int more = 0;
    avkt_guard_copy(&g, data, n);
    AVKT_OK(avk_file_reader_open_memory(g.data, n, o, &fr, &err));
    for (;;) {
        st = avk_file_reader_next_block(fr, &blk, &more, &err);
        if (st != AVK_OK || !more)
            break;
        got++;
    }
    AVKT_ASSERT_STATUS(st, want);
    assert_int_equal(got, good);
    if (want != AVK_OK) {
        AVKT_ASSERT_I64_EQ(err.offset, off);
        AVKT_ASSERT_I64_EQ(err.block, block);
    }
    avk_file_reader_free(fr);
    avkt_guard_free(&g);
}

static void test_bad_headers(void **state)
{
    static const char *const magics[] = {"Obj\x02", "XYZ\x01", "obj\x01", "\0\0\0\0"};
    avk_file_reader_options o = ropts(0);
    avk_error err;
    avk_schema *bad = NULL;
    avk_error perr;
    craft c;
    size_t i, hdr;
    uint8_t sync_copy[16];
    (void)state;
    craft_header(&c, "\"long\"", NULL);
    craft_block(&c, AVK_CODEC_NULL, 3);
    craft_block(&c, AVK_CODEC_NULL, 2);
    hdr = c.header;
    /* The good file first. */
    read_longs(c.b.p, c.b.len, NULL, 5, 0, AVK_OK, 0, 0);
    {
        avk_file_reader *fr = NULL;
        AVKT_OK(avk_file_reader_open_memory(c.b.p, c.b.len, NULL, &fr, &err));
        AVKT_ASSERT_I64_EQ(avk_file_reader_header_size(fr), hdr);
        assert_int_equal(avk_file_reader_codec(fr, NULL), AVK_CODEC_NULL);
        assert_int_equal(avk_schema_root(avk_file_reader_schema(fr)) != NULL, 1);
        assert_int_equal(avk_type_kind(avk_schema_root(avk_file_reader_schema(fr))), AVK_LONG);
        assert_int_equal(avk_file_reader_meta_count(fr), 1);
        avk_file_reader_free(fr);
    }
    /* Wrong magic. */
    for (i = 0; i < 4; i++) {
        memcpy(c.b.p, magics[i], 4);
        expect_open_fails(c.b.p, c.b.len, NULL, AVK_ERR_MALFORMED, &err);
    }
    /* Avro 1.2's format: said so. */
    memcpy(c.b.p, "Obj\x00", 4);
    expect_open_fails(c.b.p, c.b.len, NULL, AVK_ERR_MALFORMED, &err);
    if (!strstr(err.message, "1.2"))
        fail_msg("legacy magic message does not name Avro 1.2: %s", err.message);
    memcpy(c.b.p, "Obj\x01", 4);
    /* Every short header. */
    for (i = 0; i < hdr; i++)
        expect_open_fails(c.b.p, i, NULL, AVK_ERR_TRUNCATED, &err);
    memcpy(sync_copy, c.b.p + hdr - 16, 16);
    assert_memory_equal(sync_copy, SYNC, 16);
    craft_free(&c);

    /* Metadata: counts or lengths beyond the file, within max_header_bytes
     * (TRUNCATED) and beyond it (LIMIT); negative ones, INT64_MIN. */
    {
        static const int64_t claims[2] = {1000, (int64_t)1 << 40};
        static const avk_status wants[2] = {AVK_ERR_TRUNCATED, AVK_ERR_LIMIT};
        for (i = 0; i < 2; i++) {
            craft_meta_start(&c, claims[i]);
            craft_entry(&c, "avro.schema", "\"long\"");
            if (i == 1) /* (the modest claims: the file ends there) */
                craft_meta_end(&c);
            expect_open_fails(c.b.p, c.b.len, NULL, wants[i], &err);
            craft_free(&c);
            craft_meta_start(&c, 1);
            bb_long(&c.b, claims[i]);
            bb_put(&c.b, "avro.schema", 11);
            if (i == 1) /* (the modest claims: the file ends there) */
                craft_meta_end(&c);
            expect_open_fails(c.b.p, c.b.len, NULL, wants[i], &err);
            craft_free(&c);
            craft_meta_start(&c, 1);
            bb_str(&c.b, "avro.schema");
            bb_long(&c.b, claims[i]);
            bb_put(&c.b, "\"long\"", 6);
            if (i == 1) /* (the modest claims: the file ends there) */
                craft_meta_end(&c);
            expect_open_fails(c.b.p, c.b.len, NULL, wants[i], &err);
            craft_free(&c);
        }
    }
    /* A value length of 2^40 with max_header_bytes unlimited, from a
     * stream holding 300 kB of it (the reader's storage grows as they
     * arrive): TRUNCATED where the file ends, on 32-bit machines too, where
     * the length is more than size_t holds (the storage's growth was once
     * computed from it cut to 32 bits). */
    {
        char path[64];
        avk_file_reader_options ro = ropts(0);
        avk_file_reader *fr = NULL;
        static uint8_t spaces[300000];
        ro.max_header_bytes = UINT64_MAX;
        memset(spaces, ' ', sizeof spaces);
        craft_meta_start(&c, 1);
        bb_str(&c.b, "avro.schema");
        bb_long(&c.b, (int64_t)1 << 40);
        bb_put(&c.b, "\"long\"", 6);
        bb_put(&c.b, spaces, sizeof spaces);
        tmp_path(path);
        write_whole(path, c.b.p, c.b.len);
        AVKT_ASSERT_STATUS(avk_file_reader_open_path(path, &ro, &fr, &err), AVK_ERR_TRUNCATED);
        assert_null(fr);
        unlink(path);
        craft_free(&c);
    }
    craft_meta_start(&c, 1);
    bb_long(&c.b, -11);
    bb_put(&c.b, "avro.schema", 11);
    craft_meta_end(&c);
    expect_open_fails(c.b.p, c.b.len, NULL, AVK_ERR_MALFORMED, &err);
    craft_free(&c);
    craft_meta_start(&c, 1);
    bb_str(&c.b, "avro.schema");
    bb_long(&c.b, -6);
    bb_put(&c.b, "\"long\"", 6);
    craft_meta_end(&c);
    expect_open_fails(c.b.p, c.b.len, NULL, AVK_ERR_MALFORMED, &err);
    craft_free(&c);
    craft_meta_start(&c, INT64_MIN);
    craft_entry(&c, "avro.schema", "\"long\"");
    craft_meta_end(&c);
    expect_open_fails(c.b.p, c.b.len, NULL, AVK_ERR_MALFORMED, &err);
    craft_free(&c);
    /* A map block with its byte size (negative count) is valid Avro. */
    {
        bb e;
        memset(&e, 0, sizeof e);
        bb_str(&e, "avro.schema");
        bb_str(&e, "\"long\"");
        bb_str(&e, "user");
        bb_str(&e, "u");
        craft_meta_start(&c, -2);
        bb_long(&c.b, (int64_t)e.len);
        bb_put(&c.b, e.p, e.len);
        craft_meta_end(&c);
        craft_block(&c, AVK_CODEC_NULL, 4);
        read_longs(c.b.p, c.b.len, NULL, 4, 0, AVK_OK, 0, 0);
        craft_free(&c);
        bb_free(&e);
    }
    /* A header above max_header_bytes (the bytes are there). */
    {
        char big[1001];
        memset(big, 'x', 1000);
        big[1000] = 0;
        craft_meta_start(&c, 2);
        craft_entry(&c, "avro.schema", "\"long\"");
        craft_entry(&c, "big", big);
        craft_meta_end(&c);
        craft_block(&c, AVK_CODEC_NULL, 1);
        read_longs(c.b.p, c.b.len, NULL, 1, 0, AVK_OK, 0, 0);
        o.max_header_bytes = 512;
        expect_open_fails(c.b.p, c.b.len, &o, AVK_ERR_LIMIT, &err);
        o.max_header_bytes = 0;
        craft_free(&c);
    }
    /* No avro.schema. */
    craft_meta_start(&c, 1);
    craft_entry(&c, "avro.codec", "null");
    craft_meta_end(&c);
    expect_open_fails(c.b.p, c.b.len, NULL, AVK_ERR_MALFORMED, &err);
    assert_non_null(strstr(err.message, "avro.schema"));
    craft_free(&c);
    craft_meta_start(&c, 0);
    craft_meta_end(&c);
    expect_open_fails(c.b.p, c.b.len, NULL, AVK_ERR_MALFORMED, &err);
    craft_free(&c);
    /* A schema that does not parse: SCHEMA, with the parser's path. */
    {
        static const char sch[] =
            "{\"type\": \"record\", \"name\": \"R\", \"fields\": [{\"name\": \"a\", \"type\": \"nope\"}]}";
        assert_int_not_equal(avk_schema_parse(sch, strlen(sch), NULL, &bad, &perr), AVK_OK);
        craft_header(&c, sch, NULL);
        expect_open_fails(c.b.p, c.b.len, NULL, AVK_ERR_SCHEMA, &err);
        assert_string_equal(err.path, perr.path);
        assert_true(err.path[0] != '\0');
        craft_free(&c);
    }
    /* Unknown codec names, quoted. */
    craft_header(&c, "\"long\"", "gzip");
    expect_open_fails(c.b.p, c.b.len, NULL, AVK_ERR_CODEC, &err);
    assert_non_null(strstr(err.message, "\"gzip\""));
    craft_free(&c);
    craft_header(&c, "\"long\"", "Deflate");
    expect_open_fails(c.b.p, c.b.len, NULL, AVK_ERR_CODEC, &err);
    assert_non_null(strstr(err.message, "\"Deflate\""));
    craft_free(&c);
    /* Bad option sizes. */
    craft_header(&c, "\"long\"", NULL);
    o.struct_size = 1;
    expect_open_fails(c.b.p, c.b.len, &o, AVK_ERR_INVALID_ARGUMENT, &err);
    craft_free(&c);
}

/* avro.schema that is not even JSON: file.h promises AVK_ERR_SCHEMA for a
 * schema that "does not parse". */
static void test_schema_json_syntax(void **state)
{
    avk_error err;
    craft c;
    (void)state;
    craft_header(&c, "{\"type\": ", NULL);
    expect_open_fails(c.b.p, c.b.len, NULL, AVK_ERR_SCHEMA, &err);
    assert_non_null(strstr(err.message, "avro.schema"));
    craft_free(&c);
}

/* "lzma" and "zstd" read as xz and zstandard, flagged as nonstandard. */
static void test_lenient_codec_names(void **state)
{
    static const struct {
        const char *name;
        avk_codec codec;
        int nonstandard;
    } cases[] = {{"lzma", AVK_CODEC_XZ, 1},         {"zstd", AVK_CODEC_ZSTANDARD, 1},
                 {"xz", AVK_CODEC_XZ, 0},           {"zstandard", AVK_CODEC_ZSTANDARD, 0},
                 {"null", AVK_CODEC_NULL, 0},       {"deflate", AVK_CODEC_DEFLATE, 0},
                 {"snappy", AVK_CODEC_SNAPPY, 0},   {"bzip2", AVK_CODEC_BZIP2, 0}};
    size_t i;
    (void)state;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        craft c;
        avk_file_reader *fr = NULL;
        size_t len = 0;
        const uint8_t *v;
        int ns = -1;
        craft_header(&c, "\"long\"", cases[i].name);
        craft_block(&c, cases[i].codec, 5);
        craft_block(&c, cases[i].codec, 7);
        AVKT_OK(avk_file_reader_open_memory(c.b.p, c.b.len, NULL, &fr, NULL));
        assert_int_equal(avk_file_reader_codec(fr, &ns), cases[i].codec);
        assert_int_equal(ns, cases[i].nonstandard);
        /* The metadata keeps the name as written. */
        v = avk_file_reader_meta(fr, "avro.codec", &len);
        assert_non_null(v);
        assert_int_equal(len, strlen(cases[i].name));
        assert_memory_equal(v, cases[i].name, len);
        avk_file_reader_free(fr);
        read_longs(c.b.p, c.b.len, NULL, 12, 0, AVK_OK, 0, 0);
        craft_free(&c);
    }
}

/* A file of blocks B0 (3 records) and B1 (3) in codec, ready for a damaged
 * B2 and a good B3 after it. */
static void craft_two_good(craft *c, avk_codec codec)
{
    craft_header(c, "\"long\"", codec == AVK_CODEC_NULL ? NULL : avk_codec_name(codec));
    craft_block(c, codec, 3);
    craft_block(c, codec, 3);
}

/* B2 damaged (already added), then B3 good: reads B0, B1 (and up to
 * extra records of B2), then want at B2; next_block likewise when blocks. */
static void expect_b2(craft *c, avk_codec codec, const avk_file_reader_options *o, int extra,
                      avk_status want, int blocks)
{
    c->next = 100; /* B3's records are never reached */
    craft_block(c, codec, 2);
    read_longs(c->b.p, c->b.len, o, 6, extra, want, c->off[2], 2);
    if (blocks)
        read_longs_blocks(c->b.p, c->b.len, o, 2, want, c->off[2], 2);
    craft_free(c);
}

static void test_bad_blocks(void **state)
{
    static const uint8_t bad_sync[16] = {0x53, 0x79, 0x6e, 0x63, 0x01, 0x02, 0x03, 0x04,
                                         0xf0, 0xe1, 0xd2, 0xc3, 0xb4, 0xa5, 0x96, 0x88};
    static const uint8_t ff[16] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                   0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    avk_file_reader_options o = ropts(0);
    craft c;
    bb d;
    avk_buffer z;
    (void)state;
    memset(&d, 0, sizeof d);
    avk_buffer_init(&z, NULL);
    longs_data(&d, 6, 3);

    /* Sync marker mismatch (last byte differs). */
    craft_two_good(&c, AVK_CODEC_NULL);
    craft_raw(&c, 3, (int64_t)d.len, d.p, d.len, bad_sync, 3);
    expect_b2(&c, AVK_CODEC_NULL, NULL, 0, AVK_ERR_SYNC, 1);
    /* Negative counts, INT64_MIN. */
    craft_two_good(&c, AVK_CODEC_NULL);
    craft_raw(&c, -1, (int64_t)d.len, d.p, d.len, SYNC, 3);
    expect_b2(&c, AVK_CODEC_NULL, NULL, 0, AVK_ERR_MALFORMED, 1);
    craft_two_good(&c, AVK_CODEC_NULL);
    craft_raw(&c, -3, (int64_t)d.len, d.p, d.len, SYNC, 3);
    expect_b2(&c, AVK_CODEC_NULL, NULL, 0, AVK_ERR_MALFORMED, 1);
    craft_two_good(&c, AVK_CODEC_NULL);
    craft_raw(&c, INT64_MIN, (int64_t)d.len, d.p, d.len, SYNC, 3);
    expect_b2(&c, AVK_CODEC_NULL, NULL, 0, AVK_ERR_MALFORMED, 1);
    /* Negative sizes, INT64_MIN. */
    craft_two_good(&c, AVK_CODEC_NULL);
    craft_raw(&c, 3, -5, d.p, d.len, SYNC, 3);
    expect_b2(&c, AVK_CODEC_NULL, NULL, 0, AVK_ERR_MALFORMED, 1);
    craft_two_good(&c, AVK_CODEC_NULL);
    craft_raw(&c, 3, INT64_MIN, d.p, d.len, SYNC, 3);
    expect_b2(&c, AVK_CODEC_NULL, NULL, 0, AVK_ERR_MALFORMED, 1);
    /* A size past the end of the file: the file ends inside the block. */
    craft_two_good(&c, AVK_CODEC_NULL);
    craft_raw(&c, 3, (int64_t)d.len + 16 + 4 + 16 + 200, d.p, d.len, SYNC, 3);
    expect_b2(&c, AVK_CODEC_NULL, NULL, 0, AVK_ERR_TRUNCATED, 1);
    /* Sizes above max_block_bytes (default 1 GiB, then 8 bytes). */
    craft_two_good(&c, AVK_CODEC_NULL);
    craft_raw(&c, 3, (int64_t)1 << 40, d.p, d.len, SYNC, 3);
    expect_b2(&c, AVK_CODEC_NULL, NULL, 0, AVK_ERR_LIMIT, 1);
    craft_two_good(&c, AVK_CODEC_NULL);
    craft_raw(&c, 3, INT64_MAX, d.p, d.len, SYNC, 3);
    expect_b2(&c, AVK_CODEC_NULL, NULL, 0, AVK_ERR_LIMIT, 1);
    craft_two_good(&c, AVK_CODEC_NULL);
    craft_block(&c, AVK_CODEC_NULL, 10); /* 20 bytes */
    o.max_block_bytes = 8;
    expect_b2(&c, AVK_CODEC_NULL, &o, 0, AVK_ERR_LIMIT, 1);
    o.max_block_bytes = 0;
    /* Counts that lie: more records than the data holds, fewer (bytes
     * left over), far more. The decodable leading records may come out. */
    craft_two_good(&c, AVK_CODEC_NULL);
    craft_raw(&c, 10, (int64_t)d.len, d.p, d.len, SYNC, 3);
    expect_b2(&c, AVK_CODEC_NULL, NULL, 3, AVK_ERR_MALFORMED, 0);
    craft_two_good(&c, AVK_CODEC_NULL);
    craft_raw(&c, 2, (int64_t)d.len, d.p, d.len, SYNC, 3);
    expect_b2(&c, AVK_CODEC_NULL, NULL, 2, AVK_ERR_MALFORMED, 0);
    craft_two_good(&c, AVK_CODEC_NULL);
    craft_raw(&c, (int64_t)1 << 40, (int64_t)d.len, d.p, d.len, SYNC, 3);
    expect_b2(&c, AVK_CODEC_NULL, NULL, 3, AVK_ERR_MALFORMED, 0);
    craft_two_good(&c, AVK_CODEC_DEFLATE);
    AVKT_OK(avk_codec_compress(AVK_CODEC_DEFLATE, 0, d.p, d.len, &z, NULL));
    craft_raw(&c, 4, (int64_t)z.len, z.data, z.len, SYNC, 3);
    expect_b2(&c, AVK_CODEC_DEFLATE, NULL, 3, AVK_ERR_MALFORMED, 0);
    /* A record that does not decode (an 11-byte varint after one good). */
    {
        bb e;
        memset(&e, 0, sizeof e);
        bb_long(&e, lv(6));
        bb_put(&e, ff, 10);
        bb_put(&e, "\x01", 1);
        craft_two_good(&c, AVK_CODEC_NULL);
        craft_raw(&c, 2, (int64_t)e.len, e.p, e.len, SYNC, 2);
        expect_b2(&c, AVK_CODEC_NULL, NULL, 1, AVK_ERR_MALFORMED, 0);
        bb_free(&e);
    }
    /* A decompression bomb: 1 MiB of zeros (records of 0) against 4 KiB. */
    {
        uint8_t *zeros = (uint8_t *)calloc(1 << 20, 1);
        avk_codec bombs[] = {AVK_CODEC_DEFLATE, AVK_CODEC_ZSTANDARD, AVK_CODEC_SNAPPY,
                             AVK_CODEC_BZIP2, AVK_CODEC_XZ, AVK_CODEC_NULL};
        size_t k;
        o.max_block_data = 4096;
        for (k = 0; k < sizeof bombs / sizeof bombs[0]; k++) {
            craft_two_good(&c, bombs[k]);
            AVKT_OK(avk_codec_compress(bombs[k], 0, zeros, 1 << 20, &z, NULL));
            craft_raw(&c, 1 << 20, (int64_t)z.len, z.data, z.len, SYNC, 0);
            /* (null: the block as stored is already over the limit) */
            expect_b2(&c, bombs[k], &o, 0, AVK_ERR_LIMIT, 0);
        }
        o.max_block_data = 0;
        free(zeros);
    }
    /* Snappy CRC mismatch. */
    craft_two_good(&c, AVK_CODEC_SNAPPY);
    AVKT_OK(avk_codec_compress(AVK_CODEC_SNAPPY, 0, d.p, d.len, &z, NULL));
    z.data[z.len - 1] ^= 0x40;
    craft_raw(&c, 3, (int64_t)z.len, z.data, z.len, SYNC, 3);
    expect_b2(&c, AVK_CODEC_SNAPPY, NULL, 0, AVK_ERR_CHECKSUM, 0);
    /* Corrupt deflate, zstd, bzip2, xz, snappy streams; cut ones. */
    {
        avk_codec cs[] = {AVK_CODEC_DEFLATE, AVK_CODEC_ZSTANDARD, AVK_CODEC_BZIP2, AVK_CODEC_XZ,
                          AVK_CODEC_SNAPPY};
        size_t k;
        for (k = 0; k < sizeof cs / sizeof cs[0]; k++) {
            craft_two_good(&c, cs[k]);
            craft_raw(&c, 3, 16, ff, 16, SYNC, 3);
            expect_b2(&c, cs[k], NULL, 0, AVK_ERR_CODEC, 0);
            craft_two_good(&c, cs[k]);
            AVKT_OK(avk_codec_compress(cs[k], 0, d.p, d.len, &z, NULL));
            craft_raw(&c, 3, (int64_t)z.len / 2, z.data, z.len / 2, SYNC, 3);
            expect_b2(&c, cs[k], NULL, 0, AVK_ERR_CODEC, 0);
        }
    }
    /* A truncated last block, cut anywhere: every earlier record, then
     * TRUNCATED at the block (a cut at its start is the clean end). */
    {
        size_t cut, full;
        craft_two_good(&c, AVK_CODEC_DEFLATE);
        craft_block(&c, AVK_CODEC_DEFLATE, 3);
        full = c.b.len;
        read_longs(c.b.p, full, NULL, 9, 0, AVK_OK, 0, 0);
        read_longs(c.b.p, c.off[2], NULL, 6, 0, AVK_OK, 0, 0);
        /* A cut inside the marker, after whole data, gives the block's
         * records (and the block) first. */
        for (cut = c.off[2] + 1; cut < full; cut++) {
            int whole = cut >= full - 16;
            read_longs(c.b.p, cut, NULL, whole ? 9 : 6, 0, AVK_ERR_TRUNCATED, c.off[2], 2);
            read_longs_blocks(c.b.p, cut, NULL, whole ? 3 : 2, AVK_ERR_TRUNCATED, c.off[2], 2);
        }
        craft_free(&c);
    }
    avk_buffer_destroy(&z);
    bb_free(&d);
}

/* Found by fuzz_file (corpus crash-zero-count-leftover): a block of count
 * 0 whose data is not empty has bytes left over, as any block whose data
 * outlasts its records; record reading must say so at the block. */
static void test_zero_count_leftover(void **state)
{
    avk_codec codecs[] = {AVK_CODEC_NULL, AVK_CODEC_BZIP2};
    avk_buffer z;
    bb d;
    size_t k;
    (void)state;
    memset(&d, 0, sizeof d);
    avk_buffer_init(&z, NULL);
    longs_data(&d, 6, 3);
    for (k = 0; k < 2; k++) {
        craft c;
        craft_two_good(&c, codecs[k]);
        AVKT_OK(avk_codec_compress(codecs[k], 0, d.p, d.len, &z, NULL));
        craft_raw(&c, 0, (int64_t)z.len, z.data, z.len, SYNC, 0);
        expect_b2(&c, codecs[k], NULL, 0, AVK_ERR_MALFORMED, 0);
    }
    avk_buffer_destroy(&z);
    bb_free(&d);
}

/* ---- one reading of the header, the same as every other implementation's ---------------- */

/* Opening data[0..n) fails with want at offset off and exactly message msg,
 * from memory (a guard-page copy) and through a file (a stream reader). */
static void expect_open_error(const void *data, size_t n, const avk_file_reader_options *o,
                              avk_status want, uint64_t off, const char *msg)
{
    avk_file_reader *fr = (avk_file_reader *)1;
    avk_error err;
    char path[64];
    expect_open_fails(data, n, o, want, &err);
    AVKT_ASSERT_I64_EQ(err.offset, off);
    assert_string_equal(err.message, msg);
    tmp_path(path);
    write_whole(path, data, n);
    memset(&err, 0, sizeof err);
    AVKT_ASSERT_STATUS(avk_file_reader_open_path(path, o, &fr, &err), want);
    assert_null(fr);
    AVKT_ASSERT_I64_EQ(err.offset, off);
    assert_string_equal(err.message, msg);
    unlink(path);
}

/* An entry of any bytes (NUL included). */
static void craft_entry_bytes(craft *c, const void *key, size_t klen, const char *value)
{
    bb_long(&c->b, (int64_t)klen);
    bb_put(&c->b, key, klen);
    bb_str(&c->b, value);
}

/* Two avro.schema entries: Java and Python take the last, avrokit took
 * the first ("int" against "string": 3 against "D" from the same byte).
 * Every repeated key is refused, naming it and where it repeats. */
static void test_header_repeated_keys(void **state)
{
    static const char odd[] = "k\x01\"\\\xc3\xa9";
    char longkey[101], msg[256];
    craft c;
    uint64_t at;
    (void)state;
    craft_meta_start(&c, 2);
    craft_entry(&c, "avro.schema", "\"int\"");
    at = c.b.len;
    craft_entry(&c, "avro.schema", "\"string\"");
    craft_meta_end(&c);
    craft_raw(&c, 1, 1, "\x06", 1, SYNC, 1);
    AVKT_ASSERT_I64_EQ(at, 23);
    expect_open_error(c.b.p, c.b.len, NULL, AVK_ERR_MALFORMED, 23,
                      "file header: metadata key \"avro.schema\" appears again at byte 23 "
                      "(entry 1; first as entry 0); a key may appear once, as readers differ "
                      "on which value counts");
    craft_free(&c);

    /* A user key, apart from its first by others; avro.codec. */
    craft_meta_start(&c, 5);
    craft_entry(&c, "user", "a");
    craft_entry(&c, "avro.schema", "\"long\"");
    craft_entry(&c, "avro.codec", "null");
    craft_entry(&c, "other", "b");
    at = c.b.len;
    craft_entry(&c, "user", "c");
    craft_meta_end(&c);
    snprintf(msg, sizeof msg,
             "file header: metadata key \"user\" appears again at byte %llu (entry 4; first as "
             "entry 0); a key may appear once, as readers differ on which value counts",
             (unsigned long long)at);
    expect_open_error(c.b.p, c.b.len, NULL, AVK_ERR_MALFORMED, at, msg);
    craft_free(&c);
    craft_meta_start(&c, 3);
    craft_entry(&c, "avro.codec", "null");
    craft_entry(&c, "avro.schema", "\"long\"");
    at = c.b.len;
    craft_entry(&c, "avro.codec", "deflate");
    craft_meta_end(&c);
    snprintf(msg, sizeof msg,
             "file header: metadata key \"avro.codec\" appears again at byte %llu (entry 2; "
             "first as entry 0); a key may appear once, as readers differ on which value "
             "counts",
             (unsigned long long)at);
    expect_open_error(c.b.p, c.b.len, NULL, AVK_ERR_MALFORMED, at, msg);
    craft_free(&c);

    /* Odd bytes are escaped in the message; a long key is cut. */
    craft_meta_start(&c, 3);
    craft_entry(&c, "avro.schema", "\"long\"");
    craft_entry(&c, odd, "1");
    at = c.b.len;
    craft_entry(&c, odd, "2");
    craft_meta_end(&c);
    snprintf(msg, sizeof msg,
             "file header: metadata key \"k\\x01\\\"\\\\\\xc3\\xa9\" appears again at byte %llu "
             "(entry 2; first as entry 1); a key may appear once, as readers differ on which "
             "value counts",
             (unsigned long long)at);
    expect_open_error(c.b.p, c.b.len, NULL, AVK_ERR_MALFORMED, at, msg);
    craft_free(&c);
    memset(longkey, 'x', 100);
    longkey[100] = 0;
    craft_meta_start(&c, 3);
    craft_entry(&c, longkey, "1");
    craft_entry(&c, "avro.schema", "\"long\"");
    at = c.b.len;
    craft_entry(&c, longkey, "2");
    craft_meta_end(&c);
    snprintf(msg, sizeof msg,
             "file header: metadata key \"%.40s\"... (100 bytes) appears again at byte %llu "
             "(entry 2; first as entry 0); a key may appear once, as readers differ on which "
             "value counts",
             longkey, (unsigned long long)at);
    expect_open_error(c.b.p, c.b.len, NULL, AVK_ERR_MALFORMED, at, msg);
    craft_free(&c);

    /* Keys that differ only in length or in their last byte are not repeats;
     * the empty key is a key like any other (once). */
    craft_meta_start(&c, 6);
    craft_entry(&c, "avro.schema", "\"long\"");
    craft_entry(&c, "ab", "1");
    craft_entry(&c, "abc", "2");
    craft_entry(&c, "abd", "3");
    craft_entry(&c, "", "4");
    craft_entry(&c, "a", "5");
    craft_meta_end(&c);
    craft_block(&c, AVK_CODEC_NULL, 2);
    read_longs(c.b.p, c.b.len, NULL, 2, 0, AVK_OK, 0, 0);
    craft_free(&c);
    craft_meta_start(&c, 3);
    craft_entry(&c, "avro.schema", "\"long\"");
    craft_entry(&c, "", "4");
    at = c.b.len;
    craft_entry(&c, "", "5");
    craft_meta_end(&c);
    snprintf(msg, sizeof msg,
             "file header: metadata key \"\" appears again at byte %llu (entry 2; first as "
             "entry 1); a key may appear once, as readers differ on which value counts",
             (unsigned long long)at);
    expect_open_error(c.b.p, c.b.len, NULL, AVK_ERR_MALFORMED, at, msg);
    craft_free(&c);

    /* Many keys (past the table's first, unseeded size), the repeat last:
     * found in linear time. */
    {
        char key[32];
        int i, n = 20000;
        craft_meta_start(&c, n + 2);
        craft_entry(&c, "avro.schema", "\"long\"");
        for (i = 0; i < n; i++) {
            snprintf(key, sizeof key, "key.%d", i);
            craft_entry(&c, key, "");
        }
        at = c.b.len;
        craft_entry(&c, "key.7", "");
        craft_meta_end(&c);
        snprintf(msg, sizeof msg,
                 "file header: metadata key \"key.7\" appears again at byte %llu (entry 20001; "
                 "first as entry 8); a key may appear once, as readers differ on which value "
                 "counts",
                 (unsigned long long)at);
        expect_open_error(c.b.p, c.b.len, NULL, AVK_ERR_MALFORMED, at, msg);
        craft_free(&c);
    }
}

/* A key holding a NUL byte: C-string APIs cut it there, so "a\0b" and
 * "a\0c" both showed as "a" (getmeta printed it twice, and cat's writer
 * then refused the copy, blaming the output). Refused at the key, as are
 * keys that are not UTF-8 (which the writer refuses). */
static void test_header_bad_keys(void **state)
{
    static const struct {
        const char *key;
        size_t len;
        const char *shown;
        size_t nul_at;
    } cases[] = {
        {"a\0b", 3, "\"a\\x00b\"", 1},
        {"\0", 1, "\"\\x00\"", 0},
        {"user\0", 5, "\"user\\x00\"", 4},
        {"avro.schema\0x", 13, "\"avro.schema\\x00x\"", 11},
    };
    char msg[256];
    size_t i;
    craft c;
    uint64_t at;
    (void)state;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        craft_meta_start(&c, 3);
        craft_entry(&c, "avro.schema", "\"long\"");
        at = c.b.len;
        craft_entry_bytes(&c, cases[i].key, cases[i].len, "1");
        craft_entry(&c, "z", "2");
        craft_meta_end(&c);
        snprintf(msg, sizeof msg,
                 "file header: metadata key %s at byte %llu holds a NUL byte (at key byte "
                 "%zu); keys may not, as C-string readers cut them there",
                 cases[i].shown, (unsigned long long)at, cases[i].nul_at);
        expect_open_error(c.b.p, c.b.len, NULL, AVK_ERR_MALFORMED, at, msg);
        craft_free(&c);
    }    /* Keys that are not UTF-8: Python fails on them, Java reads U+FFFD for
     * each bad byte (so "\xff" and "\xfe" are one key there, two here). */
    {
        static const struct {
            const char *key;
            const char *shown;
        } bad[] = {
            {"\xff", "\"\\xff\""},
            {"ab\xc3", "\"ab\\xc3\""},
            {"\xed\xa0\x80", "\"\\xed\\xa0\\x80\""}, /* a surrogate */
            {"\xc0\xaf", "\"\\xc0\\xaf\""},         /* overlong "/" */
        };
        for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            craft_meta_start(&c, 3);
            craft_entry(&c, "avro.schema", "\"long\"");
            craft_entry(&c, "ok \xc3\xa9", "0");
            at = c.b.len;
            craft_entry(&c, bad[i].key, "1");
            craft_meta_end(&c);
            snprintf(msg, sizeof msg,
                     "file header: metadata key %s at byte %llu is not valid UTF-8; keys are "
                     "Avro strings",
                     bad[i].shown, (unsigned long long)at);
            expect_open_error(c.b.p, c.b.len, NULL, AVK_ERR_MALFORMED, at, msg);
            craft_free(&c);
        }
    }
}

/* The metadata map in several blocks, as any Avro map may be: positive
 * counts, negative counts with their byte sizes, a repeat across blocks, a
 * block size that lies. */
static void test_header_map_blocks(void **state)
{
    avk_file_reader *fr = NULL;
    avk_error err;
    bb e;
    craft c;
    const char *key;
    const uint8_t *v;
    size_t len, i;
    uint64_t at, blk;
    char msg[256];
    static const char *const keys[] = {"avro.schema", "avro.codec", "a", "b", "c"};
    static const char *const values[] = {"\"long\"", "deflate", "1", "", "3"};
    (void)state;
    memset(&e, 0, sizeof e);
    bb_str(&e, "avro.codec");
    bb_str(&e, "deflate");
    bb_str(&e, "a");
    bb_str(&e, "1");
    craft_meta_start(&c, 1); /* block 1: one entry */
    craft_entry(&c, "avro.schema", "\"long\"");
    bb_long(&c.b, -2); /* block 2: two entries and their size */
    bb_long(&c.b, (int64_t)e.len);
    bb_put(&c.b, e.p, e.len);
    bb_long(&c.b, 2); /* block 3 */
    craft_entry(&c, "b", "");
    craft_entry(&c, "c", "3");
    craft_meta_end(&c);
    craft_block(&c, AVK_CODEC_DEFLATE, 3);
    read_longs(c.b.p, c.b.len, NULL, 3, 0, AVK_OK, 0, 0);
    AVKT_OK(avk_file_reader_open_memory(c.b.p, c.b.len, NULL, &fr, &err));
    assert_int_equal(avk_file_reader_meta_count(fr), 5);
    assert_int_equal(avk_file_reader_codec(fr, NULL), AVK_CODEC_DEFLATE);
    AVKT_ASSERT_I64_EQ(avk_file_reader_header_size(fr), c.header);
    for (i = 0; i < 5; i++) {
        assert_int_equal(avk_file_reader_meta_at(fr, i, &key, &v, &len), 1);
        assert_string_equal(key, keys[i]);
        assert_int_equal(len, strlen(values[i]));
        assert_memory_equal(v, values[i], len);
    }
    avk_file_reader_free(fr);
    craft_free(&c);

    /* Every block with a negative count. */
    craft_meta_start(&c, -1);
    bb_long(&c.b, 1 + 11 + 1 + 6);
    craft_entry(&c, "avro.schema", "\"long\"");
    bb_long(&c.b, -2);
    bb_long(&c.b, (int64_t)e.len);
    bb_put(&c.b, e.p, e.len);
    craft_meta_end(&c);
    craft_block(&c, AVK_CODEC_DEFLATE, 2);
    read_longs(c.b.p, c.b.len, NULL, 2, 0, AVK_OK, 0, 0);
    craft_free(&c);

    /* A repeat in a later block. */
    craft_meta_start(&c, 1);
    craft_entry(&c, "avro.schema", "\"long\"");
    bb_long(&c.b, -2);
    bb_long(&c.b, (int64_t)e.len);
    bb_put(&c.b, e.p, e.len);
    bb_long(&c.b, 1);
    at = c.b.len;
    craft_entry(&c, "a", "again");
    craft_meta_end(&c);
    snprintf(msg, sizeof msg,
             "file header: metadata key \"a\" appears again at byte %llu (entry 3; first as "
             "entry 2); a key may appear once, as readers differ on which value counts",
             (unsigned long long)at);
    expect_open_error(c.b.p, c.b.len, NULL, AVK_ERR_MALFORMED, at, msg);
    craft_free(&c);

    /* A block size that is not what its entries take. */
    for (i = 0; i < 2; i++) {
        craft_meta_start(&c, 1);
        craft_entry(&c, "avro.schema", "\"long\"");
        blk = c.b.len;
        bb_long(&c.b, -2);
        bb_long(&c.b, (int64_t)e.len + (i ? -1 : 1));
        bb_put(&c.b, e.p, e.len);
        craft_meta_end(&c);
        snprintf(msg, sizeof msg,
                 "file header: the metadata block at byte %llu says its 2 entries take %zu "
                 "bytes, but they take %zu",
                 (unsigned long long)blk, i ? e.len - 1 : e.len + 1, e.len);
        expect_open_error(c.b.p, c.b.len, NULL, AVK_ERR_MALFORMED, blk, msg);
        craft_free(&c);
    }
    bb_free(&e);
}

/* 20 million empty entries (60 MB, under max_header_bytes) took 1.9 GB:
 * entries are limited too (max_meta_entries, 65,536 by default), and
 * checked before anything is allocated or read for them. */
static void test_header_entry_limit(void **state)
{
    avk_file_reader_options o = ropts(0);
    avk_file_reader *fr = NULL;
    avkt_failalloc fa;
    avk_error err;
    char key[32], msg[256];
    craft c;
    uint64_t at;
    int i;
    (void)state;
    /* The limit: 3 entries read, 4 refused, in one block or over two. */
    o.max_meta_entries = 3;
    craft_meta_start(&c, 3);
    craft_entry(&c, "avro.schema", "\"long\"");
    craft_entry(&c, "a", "1");
    craft_entry(&c, "b", "2");
    craft_meta_end(&c);
    craft_block(&c, AVK_CODEC_NULL, 1);
    read_longs(c.b.p, c.b.len, &o, 1, 0, AVK_OK, 0, 0);
    craft_free(&c);
    craft_meta_start(&c, 4);
    craft_entry(&c, "avro.schema", "\"long\"");
    craft_entry(&c, "a", "1");
    craft_entry(&c, "b", "2");
    craft_entry(&c, "c", "3");
    craft_meta_end(&c);
    expect_open_error(c.b.p, c.b.len, &o, AVK_ERR_LIMIT, 4,
                      "file header: 4 metadata entries at byte 4 exceed the limit of 3 "
                      "entries (max_meta_entries)");
    craft_free(&c);
    craft_meta_start(&c, 2);
    craft_entry(&c, "avro.schema", "\"long\"");
    craft_entry(&c, "a", "1");
    at = c.b.len;
    bb_long(&c.b, -2);
    bb_long(&c.b, 6);
    craft_entry(&c, "b", "2");
    craft_entry(&c, "c", "3");
    craft_meta_end(&c);
    snprintf(msg, sizeof msg,
             "file header: 2 more metadata entries at byte %llu, after 2, exceed the limit of "
             "3 entries (max_meta_entries)",
             (unsigned long long)at);
    expect_open_error(c.b.p, c.b.len, &o, AVK_ERR_LIMIT, at, msg);
    craft_free(&c);

    /* The default: 65,536 entries. A claim of 20 million is refused at its
     * count, before a single entry is read (the bytes that follow would
     * have been read up to the end of the file). */
    craft_meta_start(&c, 20000001);
    craft_entry(&c, "avro.schema", "\"long\"");
    for (i = 0; i < 1000; i++)
        bb_put(&c.b, "\0\0", 2);
    craft_meta_end(&c);
    expect_open_error(c.b.p, c.b.len, NULL, AVK_ERR_LIMIT, 4,
                      "file header: 20000001 metadata entries at byte 4 exceed the limit of "
                      "65536 entries (max_meta_entries)");
    avkt_failalloc_init(&fa, 0);
    o = ropts(0);
    o.allocator = &fa.allocator;
    AVKT_ASSERT_STATUS(avk_file_reader_open_memory(c.b.p, c.b.len, &o, &fr, &err), AVK_ERR_LIMIT);
    assert_int_equal(fa.live_blocks, 0);
    if (fa.peak_bytes > 16384)
        fail_msg("refusing 20 million entries took %zu bytes at its peak", fa.peak_bytes);
    craft_free(&c);
    craft_meta_start(&c, 65537);
    expect_open_error(c.b.p, c.b.len, NULL, AVK_ERR_LIMIT, 4,
                      "file header: 65537 metadata entries at byte 4 exceed the limit of 65536 "
                      "entries (max_meta_entries)");
    craft_free(&c);
    /* 65,536 entries are read (and a 65,537th in another block is not). */
    craft_meta_start(&c, 65536);
    craft_entry(&c, "avro.schema", "\"long\"");
    for (i = 1; i < 65536; i++) {
        snprintf(key, sizeof key, "%d", i);
        craft_entry(&c, key, "");
    }
    at = c.b.len;
    craft_meta_end(&c);
    craft_block(&c, AVK_CODEC_NULL, 2);
    AVKT_OK(avk_file_reader_open_memory(c.b.p, c.b.len, NULL, &fr, &err));
    assert_int_equal(avk_file_reader_meta_count(fr), 65536);
    avk_file_reader_free(fr);
    read_longs(c.b.p, c.b.len, NULL, 2, 0, AVK_OK, 0, 0);
    c.b.len = at;
    bb_long(&c.b, 1);
    craft_entry(&c, "one more", "");
    craft_meta_end(&c);
    snprintf(msg, sizeof msg,
             "file header: 1 more metadata entries at byte %llu, after 65536, exceed the limit "
             "of 65536 entries (max_meta_entries)",
             (unsigned long long)at);
    expect_open_error(c.b.p, c.b.len, NULL, AVK_ERR_LIMIT, at, msg);
    craft_free(&c);
    /* Callers built before max_meta_entries get the default. */
    craft_meta_start(&c, 5);
    craft_entry(&c, "avro.schema", "\"long\"");
    for (i = 1; i < 5; i++) {
        snprintf(key, sizeof key, "%d", i);
        craft_entry(&c, key, "");
    }
    craft_meta_end(&c);
    craft_block(&c, AVK_CODEC_NULL, 1);
    o = ropts(0);
    o.max_meta_entries = 2;
    o.struct_size = offsetof(avk_file_reader_options, max_meta_entries);
    read_longs(c.b.p, c.b.len, &o, 1, 0, AVK_OK, 0, 0);
    o.struct_size = sizeof o;
    expect_open_fails(c.b.p, c.b.len, &o, AVK_ERR_LIMIT, &err);
    craft_free(&c);
}

/* Header memory stays near the header's own bytes: short keys and values
 * share storage (they took two allocations each, 1.9 GB for 60 MB); beyond
 * the bytes, at most 128 bytes an entry (the entry table as it doubles and
 * the repeat check's table; 4.0 MB in all for this 600 KB header). */
static void test_header_memory(void **state)
{
    avk_file_reader_options o = ropts(0);
    avk_file_reader *fr = NULL;
    avkt_failalloc fa, base;
    avk_error err;
    char key[32];
    craft c;
    size_t hdr, big = (size_t)4 << 20, extra;
    int i, n = 60000;
    char *value = (char *)malloc(big + 1);
    (void)state;
    assert_non_null(value);
    /* The reader alone (a header of one entry), to subtract. */
    craft_header(&c, "\"long\"", NULL);
    avkt_failalloc_init(&base, 0);
    o.allocator = &base.allocator;
    AVKT_OK(avk_file_reader_open_memory(c.b.p, c.b.len, &o, &fr, &err));
    avk_file_reader_free(fr);
    craft_free(&c);
    /* 60,000 entries of 8-byte keys and empty values: 600 KB. */
    craft_meta_start(&c, n + 1);
    craft_entry(&c, "avro.schema", "\"long\"");
    for (i = 0; i < n; i++) {
        snprintf(key, sizeof key, "k.%06d", i);
        craft_entry(&c, key, "");
    }
    craft_meta_end(&c);
    hdr = c.b.len;
    avkt_failalloc_init(&fa, 0);
    o.allocator = &fa.allocator;
    AVKT_OK(avk_file_reader_open_memory(c.b.p, c.b.len, &o, &fr, &err));
    avk_file_reader_free(fr);
    assert_int_equal(fa.live_blocks, 0);
    extra = fa.peak_bytes - base.peak_bytes;
    if (extra > hdr + (size_t)(n + 1) * 128)
        fail_msg("a header of %zu bytes and %d entries took %zu bytes", hdr, n, extra);
    if (fa.calls > 100)
        fail_msg("a header of %d entries took %ld allocations", n, fa.calls);
    craft_free(&c);
    /* One 4 MiB value: about its own size. */
    memset(value, 'v', big);
    value[big] = 0;
    craft_meta_start(&c, 2);
    craft_entry(&c, "avro.schema", "\"long\"");
    craft_entry(&c, "big", value);
    craft_meta_end(&c);
    hdr = c.b.len;
    avkt_failalloc_init(&fa, 0);
    AVKT_OK(avk_file_reader_open_memory(c.b.p, c.b.len, &o, &fr, &err));
    avk_file_reader_free(fr);
    extra = fa.peak_bytes - base.peak_bytes;
    if (extra > hdr + hdr / 16)
        fail_msg("a header of %zu bytes (one value) took %zu bytes", hdr, extra);
    craft_free(&c);
    free(value);
}

/* The writer writes only what every implementation reads: keys are
 * non-empty, valid UTF-8 (Python fails on others), not the format's own
 * avro.*, each once (found in linear time). Nothing is written otherwise. */
static void test_writer_meta_keys(void **state)
{
    avk_schema *s = AVKT_PARSE("'long'");
    avk_file_writer_options o = wopts(AVK_CODEC_NULL, 0, 0, SYNC);
    avk_file_meta meta[3] = {{"a", "1", 1}, {"b", "2", 1}, {"a", "3", 1}};
    avk_file_meta *many;
    avk_file_writer *fw = NULL;
    avk_file_reader *fr = NULL;
    avk_error err;
    const uint8_t *v;
    size_t len, i, n = 100000;
    char(*keys)[16];
    bb f;
    static const struct {
        const char *key;
        const char *msg;
    } bad[] = {
        {"avro.schema", "metadata key \"avro.schema\" (entry 0): keys starting with \"avro.\" "
                        "are reserved for the format"},
        {"avro.codec", "metadata key \"avro.codec\" (entry 0): keys starting with \"avro.\" "
                       "are reserved for the format"},
        {"\xff", "metadata key \"\\xff\" (entry 0) is not valid UTF-8; keys are Avro strings"},
        {"a\xc3", "metadata key \"a\\xc3\" (entry 0) is not valid UTF-8; keys are Avro strings"},
        {"", "metadata entry 0: the key is empty"},
    };
    (void)state;
    memset(&f, 0, sizeof f);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        avk_file_meta m = {bad[i].key, "x", 1};
        o.meta = &m;
        o.meta_count = 1;
        fw = (avk_file_writer *)1;
        AVKT_ASSERT_STATUS(avk_file_writer_open_sink(bb_sink, &f, s, &o, &fw, &err),
                           AVK_ERR_INVALID_ARGUMENT);
        assert_null(fw);
        assert_string_equal(err.message, bad[i].msg);
        assert_int_equal(f.len, 0);
    }
    o.meta = meta;
    o.meta_count = 3;
    AVKT_ASSERT_STATUS(avk_file_writer_open_sink(bb_sink, &f, s, &o, &fw, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "metadata key \"a\" is given twice (entries 0 and 2)");
    assert_int_equal(f.len, 0);
    /* UTF-8 keys beyond ASCII are keys like others; read back as written. */
    meta[0].key = "caf\xc3\xa9";
    meta[2].key = "\xe2\x82\xac";
    AVKT_OK(avk_file_writer_open_sink(bb_sink, &f, s, &o, &fw, &err));
    AVKT_OK(avk_file_writer_close(fw, &err));
    AVKT_OK(avk_file_reader_open_memory(f.p, f.len, NULL, &fr, &err));
    v = avk_file_reader_meta(fr, "\xe2\x82\xac", &len);
    assert_non_null(v);
    assert_int_equal(len, 1);
    assert_memory_equal(v, "3", 1);
    avk_file_reader_free(fr);
    bb_free(&f);
    /* 100,000 keys, the repeat last. */
    many = (avk_file_meta *)calloc(n, sizeof *many);
    keys = (char(*)[16])calloc(n, sizeof *keys);
    assert_non_null(many);
    assert_non_null(keys);
    for (i = 0; i < n; i++) {
        snprintf(keys[i], sizeof keys[i], "key%zu", i);
        many[i].key = keys[i];
    }
    o.meta = many;
    o.meta_count = n;
    AVKT_OK(avk_file_writer_open_sink(bb_sink, &f, s, &o, &fw, &err));
    AVKT_OK(avk_file_writer_close(fw, &err));
    bb_free(&f);
    many[n - 1].key = "key77";
    AVKT_ASSERT_STATUS(avk_file_writer_open_sink(bb_sink, &f, s, &o, &fw, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message,
                        "metadata key \"key77\" is given twice (entries 77 and 99999)");
    assert_int_equal(f.len, 0);
    free(keys);
    free(many);
    avk_schema_free(s);
}

/* next_block hands blocks out without decoding them, so count (and concat,
 * and appending) believed any count: 2^62 records in 1 byte gave
 * 4611686018427387904. It applies the check next makes. */
static void test_next_block_counts(void **state)
{
    avk_file_reader_options o = ropts(0);
    avk_file_reader *fr = NULL;
    avk_file_block blk;
    avk_error err, rerr;
    avk_arena *a = arena_new();
    avk_value v;
    avk_buffer z;
    char msg[256];
    craft c;
    bb d;
    int more, got;
    (void)state;
    memset(&d, 0, sizeof d);
    avk_buffer_init(&z, NULL);

    /* Null codec: count x 1 byte (the smallest long) > the data's bytes. */
    craft_two_good(&c, AVK_CODEC_NULL);
    craft_raw(&c, (int64_t)1 << 62, 1, "\x06", 1, SYNC, 0);
    snprintf(msg, sizeof msg,
             "block 2 at byte %llu: a count of 4611686018427387904 records cannot be right for "
             "1 bytes of data",
             (unsigned long long)c.off[2]);
    read_longs_blocks(c.b.p, c.b.len, NULL, 2, AVK_ERR_MALFORMED, c.off[2], 2);
    AVKT_OK(avk_file_reader_open_memory(c.b.p, c.b.len, NULL, &fr, &err));
    for (got = 0; avk_file_reader_next_block(fr, &blk, &more, &err) == AVK_OK && more; got++)
        ;
    assert_int_equal(got, 2);
    assert_int_equal(err.status, AVK_ERR_MALFORMED);
    assert_string_equal(err.message, msg);
    AVKT_ASSERT_I64_EQ(err.block, 2);
    /* ... the very message next gives (tojson's). */
    AVKT_OK(avk_file_reader_seek_block(fr, c.header, &err));
    while (avk_file_reader_next(fr, a, &v, &more, &rerr) == AVK_OK && more)
        avk_arena_reset(a);
    assert_string_equal(rerr.message, msg);
    avk_file_reader_free(fr);
    /* Skipping bad blocks: the next block after its marker comes next. */
    c.next = 6;
    craft_block(&c, AVK_CODEC_NULL, 2);
    o.flags = AVK_FILE_SKIP_BAD_BLOCKS;
    AVKT_OK(avk_file_reader_open_memory(c.b.p, c.b.len, &o, &fr, &err));
    for (got = 0; avk_file_reader_next_block(fr, &blk, &more, &err) == AVK_OK && more; got++)
        if (got == 2)
            AVKT_ASSERT_I64_EQ(blk.offset, c.off[3]);
    assert_int_equal(got, 3);
    {
        avk_file_reader_stats rs;
        avk_file_reader_get_stats(fr, &rs);
        AVKT_ASSERT_I64_EQ(rs.bad_blocks, 1);
        AVKT_ASSERT_I64_EQ(rs.bad_bytes, c.off[3] - c.off[2]);
    }
    avk_file_reader_free(fr);
    o.flags = 0;
    craft_free(&c);
    /* The count that just fits is a valid block. */
    craft_two_good(&c, AVK_CODEC_NULL);
    craft_raw(&c, 1, 1, "\x06", 1, SYNC, 0);
    read_longs_blocks(c.b.p, c.b.len, NULL, 3, AVK_OK, 0, 0);
    craft_free(&c);

    /* Compressed: count x 1 byte > max_block_data (the most the data may
     * decompress to) is refused, a count within it is left to decoding. */
    longs_data(&d, 6, 3);
    AVKT_OK(avk_codec_compress(AVK_CODEC_DEFLATE, 0, d.p, d.len, &z, NULL));
    o.max_block_data = 4096;
    craft_two_good(&c, AVK_CODEC_DEFLATE);
    craft_raw(&c, 4097, (int64_t)z.len, z.data, z.len, SYNC, 0);
    read_longs_blocks(c.b.p, c.b.len, &o, 2, AVK_ERR_LIMIT, c.off[2], 2);
    AVKT_OK(avk_file_reader_open_memory(c.b.p, c.b.len, &o, &fr, &err));
    while (avk_file_reader_next_block(fr, &blk, &more, &err) == AVK_OK && more)
        ;
    snprintf(msg, sizeof msg,
             "block 2 at byte %llu: a count of 4097 records of at least 1 bytes each exceeds "
             "the 4096 bytes a block may hold decompressed (max_block_data)",
             (unsigned long long)c.off[2]);
    assert_string_equal(err.message, msg);
    avk_file_reader_free(fr);
    craft_free(&c);
    craft_two_good(&c, AVK_CODEC_DEFLATE);
    craft_raw(&c, 4096, (int64_t)z.len, z.data, z.len, SYNC, 0);
    read_longs_blocks(c.b.p, c.b.len, &o, 3, AVK_OK, 0, 0);
    craft_free(&c);
    o.max_block_data = 0;

    /* Records of zero bytes (schema "null"): counted against
     * max_empty_items, as next does; a block of them is valid. */
    {
        craft_meta_start(&c, 1);
        craft_entry(&c, "avro.schema", "\"null\"");
        craft_meta_end(&c);
        craft_raw(&c, 1000, 0, "", 0, SYNC, 0);
        craft_raw(&c, (int64_t)1 << 62, 0, "", 0, SYNC, 0);
        AVKT_OK(avk_file_reader_open_memory(c.b.p, c.b.len, NULL, &fr, &err));
        AVKT_OK(avk_file_reader_next_block(fr, &blk, &more, &err));
        assert_int_equal(more, 1);
        AVKT_ASSERT_I64_EQ(blk.count, 1000);
        AVKT_ASSERT_STATUS(avk_file_reader_next_block(fr, &blk, &more, &err), AVK_ERR_LIMIT);
        snprintf(msg, sizeof msg,
                 "block 1 at byte %llu: a count of 4611686018427387904 records of zero bytes "
                 "each exceeds the limit of 1048576 (max_empty_items)",
                 (unsigned long long)c.off[1]);
        assert_string_equal(err.message, msg);
        AVKT_ASSERT_I64_EQ(err.offset, c.off[1]);
        /* ... the message next gives too, after the 1000 records. */
        AVKT_OK(avk_file_reader_seek_block(fr, c.header, &err));
        for (got = 0; avk_file_reader_next(fr, a, &v, &more, &rerr) == AVK_OK && more; got++)
            avk_arena_reset(a);
        assert_int_equal(got, 1000);
        assert_int_equal(rerr.status, AVK_ERR_LIMIT);
        assert_string_equal(rerr.message, msg);
        avk_file_reader_free(fr);
        craft_free(&c);
    }
    avk_buffer_destroy(&z);
    bb_free(&d);
    avk_arena_free(a);
}

/* Every prefix of a small multi-block file: never a crash, never a record
 * that is not the original's, and exactly the complete blocks' records. */
static void test_every_prefix(void **state)
{
    avk_schema *s = AVKT_PARSE(REC_SCHEMA);
    const avk_type *t = avk_schema_root(s);
    blockinfo bi[16];
    size_t ci;
    (void)state;
    for (ci = 0; ci < 3; ci++) {
        avk_codec codec = ci == 0 ? AVK_CODEC_NULL : ci == 1 ? AVK_CODEC_DEFLATE : AVK_CODEC_SNAPPY;
        avk_file_writer_options o = wopts(codec, 0, 2, SYNC);
        avk_file_reader *fr;
        uint64_t hdr;
        size_t nb, len;
        bb f;
        write_file(s, &o, 8, &f);
        fr = open_mem(&f, NULL);
        hdr = avk_file_reader_header_size(fr);
        nb = read_blocks(fr, t, 0, bi, 16);
        avk_file_reader_free(fr);
        assert_int_equal(nb, 4);
        for (len = 0; len <= f.len; len++) {
            avkt_guard g;
            avk_arena *a, *b;
            avk_error err;
            avk_status st;
            avk_value v, want;
            size_t k, complete = 0;
            int got = 0, more = 0, clean = len == hdr;
            avkt_guard_copy(&g, f.p, len);
            if (len < hdr) {
                expect_open_fails(g.data, len, NULL, AVK_ERR_TRUNCATED, &err);
                avkt_guard_free(&g);
                continue;
            }
            /* Blocks whose data is whole give their records, even when the
             * file ends inside the marker after them. */
            for (k = 0; k < nb; k++) {
                if (bi[k].end - 16 <= len)
                    complete++;
                if (bi[k].end == len)
                    clean = 1;
            }
            a = arena_new();
            b = arena_new();
            AVKT_OK(avk_file_reader_open_memory(g.data, len, NULL, &fr, &err));
            for (;;) {
                st = avk_file_reader_next(fr, a, &v, &more, &err);
                if (st != AVK_OK || !more)
                    break;
                make_record(t, b, got, &want);
                if (!avk_value_equal(&v, &want))
                    fail_msg("prefix %zu: record %d differs", len, got);
                got++;
                avk_arena_reset(a);
                avk_arena_reset(b);
            }
            assert_int_equal(got, complete * 2);
            if (clean) {
                AVKT_OK(st);
            } else {
                if (st != AVK_ERR_TRUNCATED)
                    fail_msg("prefix %zu: %s (%s)", len, avk_status_name(st), err.message);
                {
                    /* The block the file ends in: the last whole one when
                     * its marker is cut. */
                    size_t in = complete > 0 && bi[complete - 1].end > len ? complete - 1
                                                                           : complete;
                    AVKT_ASSERT_I64_EQ(err.offset, bi[in].offset);
                    AVKT_ASSERT_I64_EQ(err.block, in);
                }
            }
            avk_file_reader_free(fr);
            avk_arena_free(a);
            avk_arena_free(b);
            avkt_guard_free(&g);
        }
        bb_free(&f);
    }
    avk_schema_free(s);
}

/* ---- AVK_FILE_SKIP_BAD_BLOCKS ---------------------------------------------------------- */

typedef struct skips {
    int calls;
    avk_status status[8];
    uint64_t offset[8], from[8], to[8];
    int64_t block[8];
} skips;

static void on_skip(void *ctx, const avk_error *why, uint64_t from, uint64_t to)
{
    skips *s = (skips *)ctx;
    if (s->calls < 8) {
        s->status[s->calls] = why->status;
        s->offset[s->calls] = why->offset;
        s->block[s->calls] = why->block;
        s->from[s->calls] = from;
        s->to[s->calls] = to;
    }
    s->calls++;
}

/* Reads every record of data[0..n) in skip mode: they must be want[0..nw)
 * (values lv), with the stats given. */
static void read_skipping(const void *data, size_t n, const int *want, size_t nw, skips *sk,
                          uint64_t bad_blocks, uint64_t bad_bytes)
{
    int how;
    /* From memory (ending at a guard page), then from a file read through
     * a buffer, which goes back to rescan by lseek: the same results. */
    for (how = 0; how < 2; how++) {
        avk_file_reader_options o = ropts(AVK_FILE_SKIP_BAD_BLOCKS);
        avk_file_reader_stats rs;
        avk_file_reader *fr = NULL;
        avk_arena *a = arena_new();
        avk_error err;
        avk_value v;
        avkt_guard g;
        char p[64];
        size_t got = 0;
        int more;
        memset(sk, 0, sizeof *sk);
        o.on_skip = on_skip;
        o.on_skip_ctx = sk;
        avkt_guard_copy(&g, data, n);
        if (how == 0) {
            AVKT_OK(avk_file_reader_open_memory(g.data, n, &o, &fr, &err));
        } else {
            tmp_path(p);
            write_whole(p, data, n);
            AVKT_OK(avk_file_reader_open_path(p, &o, &fr, &err));
            unlink(p);
        }
        for (;;) {
            avk_status st = avk_file_reader_next(fr, a, &v, &more, &err);
            if (st != AVK_OK)
                fail_msg("skip mode (%s) returned %s (%s)", how ? "file" : "memory",
                         avk_status_name(st), err.message);
            if (!more)
                break;
            if (got >= nw || v.u.l != lv(want[got]))
                fail_msg("%s: record #%zu is %lld, expected %lld", how ? "file" : "memory", got,
                         (long long)v.u.l, got < nw ? (long long)lv(want[got]) : -1LL);
            got++;
            avk_arena_reset(a);
        }
        assert_int_equal(got, nw);
        avk_file_reader_get_stats(fr, &rs);
        AVKT_ASSERT_I64_EQ(rs.bad_blocks, bad_blocks);
        AVKT_ASSERT_I64_EQ(rs.bad_bytes, bad_bytes);
        AVKT_ASSERT_I64_EQ(rs.records, nw);
        avk_file_reader_free(fr);
        avk_arena_free(a);
        avkt_guard_free(&g);
    }
}

static void test_skip_bad_blocks(void **state)
{
    static const uint8_t ff[16] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                   0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    int want[32], n;
    skips sk;
    craft c;
    size_t k;
    (void)state;
    /* B2's deflate data is garbage: B0, B1, B3, B4 come out; B2 reported. */
    craft_two_good(&c, AVK_CODEC_DEFLATE);
    craft_raw(&c, 3, 16, ff, 16, SYNC, 3);
    craft_block(&c, AVK_CODEC_DEFLATE, 2);
    craft_block(&c, AVK_CODEC_DEFLATE, 4);
    for (n = 0; n < 6; n++)
        want[n] = n;
    for (k = 9; k < 15; k++)
        want[n++] = (int)k;
    read_skipping(c.b.p, c.b.len, want, (size_t)n, &sk, 1, c.off[3] - c.off[2]);
    assert_int_equal(sk.calls, 1);
    AVKT_ASSERT_STATUS(sk.status[0], AVK_ERR_CODEC);
    AVKT_ASSERT_I64_EQ(sk.offset[0], c.off[2]);
    AVKT_ASSERT_I64_EQ(sk.block[0], 2);
    AVKT_ASSERT_I64_EQ(sk.from[0], c.off[2]);
    AVKT_ASSERT_I64_EQ(sk.to[0], c.off[3]);
    craft_free(&c);

    /* B2's marker is damaged: the next marker found ends B3, so B3 goes
     * too; next_block skips alike. */
    {
        static const uint8_t bad_sync[16] = {0};
        bb d;
        memset(&d, 0, sizeof d);
        longs_data(&d, 6, 3);
        craft_two_good(&c, AVK_CODEC_NULL);
        craft_raw(&c, 3, (int64_t)d.len, d.p, d.len, bad_sync, 3);
        craft_block(&c, AVK_CODEC_NULL, 2);
        craft_block(&c, AVK_CODEC_NULL, 4);
        bb_free(&d);
        for (n = 0; n < 6; n++)
            want[n] = n;
        for (k = 11; k < 15; k++)
            want[n++] = (int)k;
        read_skipping(c.b.p, c.b.len, want, (size_t)n, &sk, 1, c.off[4] - c.off[2]);
        assert_int_equal(sk.calls, 1);
        AVKT_ASSERT_STATUS(sk.status[0], AVK_ERR_SYNC);
        AVKT_ASSERT_I64_EQ(sk.offset[0], c.off[2]);
        AVKT_ASSERT_I64_EQ(sk.block[0], 2);
        AVKT_ASSERT_I64_EQ(sk.from[0], c.off[2]);
        AVKT_ASSERT_I64_EQ(sk.to[0], c.off[4]);
        {
            avk_file_reader_options o = ropts(AVK_FILE_SKIP_BAD_BLOCKS);
            avk_file_reader *fr = NULL;
            avk_file_block blk;
            uint64_t offs[8];
            int more, nb = 0;
            memset(&sk, 0, sizeof sk);
            o.on_skip = on_skip;
            o.on_skip_ctx = &sk;
            AVKT_OK(avk_file_reader_open_memory(c.b.p, c.b.len, &o, &fr, NULL));
            for (;;) {
                AVKT_OK(avk_file_reader_next_block(fr, &blk, &more, NULL));
                if (!more)
                    break;
                assert_true(nb < 8);
                offs[nb++] = blk.offset;
            }
            assert_int_equal(nb, 3);
            AVKT_ASSERT_I64_EQ(offs[0], c.off[0]);
            AVKT_ASSERT_I64_EQ(offs[1], c.off[1]);
            AVKT_ASSERT_I64_EQ(offs[2], c.off[4]);
            assert_int_equal(sk.calls, 1);
            AVKT_ASSERT_I64_EQ(sk.to[0], c.off[4]);
            avk_file_reader_free(fr);
        }
        craft_free(&c);
    }

    /* A record that does not decode in B2 (null codec): its first record
     * stays returned, the rest of B2 is skipped. */
    {
        bb e;
        memset(&e, 0, sizeof e);
        bb_long(&e, lv(6));
        bb_put(&e, ff, 10);
        bb_put(&e, "\x01", 1);
        craft_two_good(&c, AVK_CODEC_NULL);
        craft_raw(&c, 2, (int64_t)e.len, e.p, e.len, SYNC, 2);
        craft_block(&c, AVK_CODEC_NULL, 3);
        bb_free(&e);
        for (n = 0; n < 7; n++)
            want[n] = n;
        for (k = 8; k < 11; k++)
            want[n++] = (int)k;
        read_skipping(c.b.p, c.b.len, want, (size_t)n, &sk, 1, c.off[3] - c.off[2]);
        assert_int_equal(sk.calls, 1);
        AVKT_ASSERT_STATUS(sk.status[0], AVK_ERR_MALFORMED);
        AVKT_ASSERT_I64_EQ(sk.from[0], c.off[2]);
        AVKT_ASSERT_I64_EQ(sk.to[0], c.off[3]);
        craft_free(&c);
    }

    /* Two bad blocks (snappy CRC, negative count) and a truncated end. */
    {
        bb d;
        avk_buffer z;
        size_t end;
        memset(&d, 0, sizeof d);
        avk_buffer_init(&z, NULL);
        craft_two_good(&c, AVK_CODEC_SNAPPY);
        longs_data(&d, 6, 3);
        AVKT_OK(avk_codec_compress(AVK_CODEC_SNAPPY, 0, d.p, d.len, &z, NULL));
        z.data[z.len - 2] ^= 1;
        craft_raw(&c, 3, (int64_t)z.len, z.data, z.len, SYNC, 3);
        craft_block(&c, AVK_CODEC_SNAPPY, 2);
        craft_raw(&c, -3, (int64_t)z.len, z.data, z.len, SYNC, 3);
        craft_block(&c, AVK_CODEC_SNAPPY, 1);
        craft_block(&c, AVK_CODEC_SNAPPY, 2);
        end = c.off[6] + 3; /* inside B6's data */
        for (n = 0; n < 6; n++)
            want[n] = n;
        want[n++] = 9;
        want[n++] = 10;
        want[n++] = 14;
        read_skipping(c.b.p, end, want, (size_t)n, &sk, 3,
                      (c.off[3] - c.off[2]) + (c.off[5] - c.off[4]) + (end - c.off[6]));
        assert_int_equal(sk.calls, 3);
        AVKT_ASSERT_STATUS(sk.status[0], AVK_ERR_CHECKSUM);
        AVKT_ASSERT_I64_EQ(sk.from[0], c.off[2]);
        AVKT_ASSERT_I64_EQ(sk.to[0], c.off[3]);
        AVKT_ASSERT_STATUS(sk.status[1], AVK_ERR_MALFORMED);
        AVKT_ASSERT_I64_EQ(sk.offset[1], c.off[4]);
        AVKT_ASSERT_I64_EQ(sk.block[1], 4);
        AVKT_ASSERT_I64_EQ(sk.from[1], c.off[4]);
        AVKT_ASSERT_I64_EQ(sk.to[1], c.off[5]);
        AVKT_ASSERT_STATUS(sk.status[2], AVK_ERR_TRUNCATED);
        AVKT_ASSERT_I64_EQ(sk.from[2], c.off[6]);
        AVKT_ASSERT_I64_EQ(sk.to[2], end);
        avk_buffer_destroy(&z);
        bb_free(&d);
        craft_free(&c);
    }
}

/* ---- skip mode: a limit is not damage -------------------------------------------------------- */

/* Reads data[0..n) in skip mode with options o (memory, then a file read
 * through a buffer), going on after every AVK_ERR_LIMIT, and writes what
 * came into log: "s:TEXT " per string record, "l:N " per long record,
 * "LIMIT@OFF/BLOCK>END " per limit (END: avk_file_reader_block_offset
 * after it, where reading goes on). The two must log alike; on_skip must
 * not be called, bad_blocks must stay 0. */
static void log_skip_mode(const void *data, size_t n, avk_file_reader_options o, int by_blocks,
                          char *log, size_t cap)
{
    int how;
    char first[512];
    for (how = 0; how < 2; how++) {
        avk_file_reader_stats rs;
        avk_file_reader *fr = NULL;
        avk_arena *a = arena_new();
        avk_error err;
        avk_value v;
        avk_file_block blk;
        skips sk;
        char p[64];
        size_t len = 0;
        int more, guard = 0;
        memset(&sk, 0, sizeof sk);
        o.flags = AVK_FILE_SKIP_BAD_BLOCKS;
        o.on_skip = on_skip;
        o.on_skip_ctx = &sk;
        if (how == 0) {
            AVKT_OK(avk_file_reader_open_memory(data, n, &o, &fr, &err));
        } else {
            tmp_path(p);
            write_whole(p, data, n);
            AVKT_OK(avk_file_reader_open_path(p, &o, &fr, &err));
            unlink(p);
        }
        log[0] = '\0';
        while (guard++ < 100) {
            avk_status st = by_blocks ? avk_file_reader_next_block(fr, &blk, &more, &err)
                                      : avk_file_reader_next(fr, a, &v, &more, &err);
            if (st == AVK_ERR_LIMIT) {
                len += (size_t)snprintf(log + len, cap - len, "LIMIT@%llu/%lld>%llu ",
                                        (unsigned long long)err.offset, (long long)err.block,
                                        (unsigned long long)avk_file_reader_block_offset(fr));
                continue;
            }
            if (st != AVK_OK)
                fail_msg("skip mode returned %s (%s)", avk_status_name(st), err.message);
            if (!more)
                break;
            if (by_blocks)
                len += (size_t)snprintf(log + len, cap - len, "b:%lld ", (long long)blk.count);
            else if (avk_type_kind(v.type) == AVK_NULL)
                len += (size_t)snprintf(log + len, cap - len, "null ");
            else if (avk_type_kind(v.type) == AVK_STRING)
                len += (size_t)snprintf(log + len, cap - len, "s:%.*s ", (int)v.u.bytes.len,
                                        (const char *)v.u.bytes.data);
            else
                len += (size_t)snprintf(log + len, cap - len, "l:%lld ", (long long)v.u.l);
            avk_arena_reset(a);
        }
        assert_int_equal(sk.calls, 0);
        avk_file_reader_get_stats(fr, &rs);
        AVKT_ASSERT_I64_EQ(rs.bad_blocks, 0);
        avk_file_reader_free(fr);
        avk_arena_free(a);
        if (how == 0)
            snprintf(first, sizeof first, "%s", log);
        else
            assert_string_equal(log, first);
    }
}

/* A length larger than the block itself is the data lying, not a limit:
 * over max_bytes too, it is still damage (MALFORMED; skipped in skip mode),
 * while a real string over max_bytes stays a limit (test_skip_mode_limits). */
static void test_lying_length_is_damage(void **state)
{
    avk_file_reader_options o = ropts(0);
    avk_file_reader *fr = NULL;
    avk_arena *a = arena_new();
    avk_error err;
    avk_value v;
    skips sk;
    craft c;
    bb d;
    int more;
    const char *reason = "string: string length 1099511627776 but only 2 bytes remain";
    (void)state;
    craft_header(&c, "\"string\"", NULL);
    memset(&d, 0, sizeof d);
    bb_str(&d, "x");
    bb_long(&d, (int64_t)1 << 40); /* above the default max_bytes and the block */
    bb_put(&d, "ab", 2);
    craft_raw(&c, 2, (int64_t)d.len, d.p, d.len, SYNC, 2);
    bb_free(&d);
    bb_str(&d, "ok");
    craft_raw(&c, 1, (int64_t)d.len, d.p, d.len, SYNC, 1);
    bb_free(&d);

    AVKT_OK(avk_file_reader_open_memory(c.b.p, c.b.len, &o, &fr, &err));
    AVKT_OK(avk_file_reader_next(fr, a, &v, &more, &err));
    assert_int_equal(more, 1);
    AVKT_ASSERT_STATUS(avk_file_reader_next(fr, a, &v, &more, &err), AVK_ERR_MALFORMED);
    assert_string_equal(err.message + strlen(err.message) - strlen(reason), reason);
    avk_file_reader_free(fr);
    /* Skipping records (no decoding) says the same. */
    AVKT_OK(avk_file_reader_open_memory(c.b.p, c.b.len, &o, &fr, &err));
    AVKT_OK(avk_file_reader_skip(fr, &more, &err));
    AVKT_ASSERT_STATUS(avk_file_reader_skip(fr, &more, &err), AVK_ERR_MALFORMED);
    avk_file_reader_free(fr);

    /* In skip mode the block is damage: reported to on_skip, then "ok". */
    memset(&sk, 0, sizeof sk);
    o.flags = AVK_FILE_SKIP_BAD_BLOCKS;
    o.on_skip = on_skip;
    o.on_skip_ctx = &sk;
    AVKT_OK(avk_file_reader_open_memory(c.b.p, c.b.len, &o, &fr, &err));
    AVKT_OK(avk_file_reader_next(fr, a, &v, &more, &err));
    assert_true(more && v.u.bytes.len == 1 && v.u.bytes.data[0] == 'x');
    AVKT_OK(avk_file_reader_next(fr, a, &v, &more, &err));
    assert_true(more && v.u.bytes.len == 2 && memcmp(v.u.bytes.data, "ok", 2) == 0);
    AVKT_OK(avk_file_reader_next(fr, a, &v, &more, &err));
    assert_int_equal(more, 0);
    assert_int_equal(sk.calls, 1);
    AVKT_ASSERT_STATUS(sk.status[0], AVK_ERR_MALFORMED);
    avk_file_reader_free(fr);
    avk_arena_free(a);
    craft_free(&c);
}

static void test_skip_mode_limits(void **state)
{
    avk_file_reader_options o = ropts(0);
    char log[512], want[512];
    craft c;
    bb d;
    (void)state;

    /* A string over max_bytes in B1 (its first record, then its second):
     * B0 comes out, the limit is returned at B1 with the records before it,
     * and B2 follows; nothing is called damage. */
    craft_header(&c, "\"string\"", NULL);
    memset(&d, 0, sizeof d);
    bb_str(&d, "ab");
    bb_str(&d, "cd");
    craft_raw(&c, 2, (int64_t)d.len, d.p, d.len, SYNC, 2);
    bb_free(&d);
    bb_str(&d, "x");
    bb_str(&d, "abcdefgh");
    bb_str(&d, "y");
    craft_raw(&c, 3, (int64_t)d.len, d.p, d.len, SYNC, 3);
    bb_free(&d);
    bb_str(&d, "ok");
    craft_raw(&c, 1, (int64_t)d.len, d.p, d.len, SYNC, 1);
    bb_free(&d);
    o.limits.max_bytes = 4;
    log_skip_mode(c.b.p, c.b.len, o, 0, log, sizeof log);
    snprintf(want, sizeof want, "s:ab s:cd s:x LIMIT@%llu/1>%llu s:ok ",
             (unsigned long long)c.off[1], (unsigned long long)c.off[2]);
    assert_string_equal(log, want);
    /* With the limit raised, every record is read and nothing is skipped. */
    o.limits.max_bytes = 0;
    log_skip_mode(c.b.p, c.b.len, o, 0, log, sizeof log);
    assert_string_equal(log, "s:ab s:cd s:x s:abcdefgh s:y s:ok ");
    craft_free(&c);

    /* A block above max_block_bytes (B2: 10 records) between good ones:
     * returned as a limit by next and by next_block, then B3. */
    craft_two_good(&c, AVK_CODEC_NULL);
    craft_block(&c, AVK_CODEC_NULL, 10);
    craft_block(&c, AVK_CODEC_NULL, 1);
    o.max_block_bytes = 12;
    log_skip_mode(c.b.p, c.b.len, o, 0, log, sizeof log);
    snprintf(want, sizeof want,
             "l:%lld l:%lld l:%lld l:%lld l:%lld l:%lld LIMIT@%llu/2>%llu l:%lld ", (long long)lv(0),
             (long long)lv(1), (long long)lv(2), (long long)lv(3), (long long)lv(4),
             (long long)lv(5), (unsigned long long)c.off[2], (unsigned long long)c.off[3],
             (long long)lv(16));
    assert_string_equal(log, want);
    log_skip_mode(c.b.p, c.b.len, o, 1, log, sizeof log);
    snprintf(want, sizeof want, "b:3 b:3 LIMIT@%llu/2>%llu b:1 ", (unsigned long long)c.off[2],
             (unsigned long long)c.off[3]);
    assert_string_equal(log, want);
    o.max_block_bytes = 0;
    craft_free(&c);

    /* A block that decompresses beyond max_block_data (deflate). */
    {
        avk_buffer z;
        memset(&d, 0, sizeof d);
        avk_buffer_init(&z, NULL);
        craft_two_good(&c, AVK_CODEC_DEFLATE);
        longs_data(&d, 6, 200);
        AVKT_OK(avk_codec_compress(AVK_CODEC_DEFLATE, 0, d.p, d.len, &z, NULL));
        craft_raw(&c, 200, (int64_t)z.len, z.data, z.len, SYNC, 200);
        craft_block(&c, AVK_CODEC_DEFLATE, 1);
        o.max_block_data = 64;
        log_skip_mode(c.b.p, c.b.len, o, 0, log, sizeof log);
        snprintf(want, sizeof want,
                 "l:%lld l:%lld l:%lld l:%lld l:%lld l:%lld LIMIT@%llu/2>%llu l:%lld ",
                 (long long)lv(0), (long long)lv(1), (long long)lv(2), (long long)lv(3),
                 (long long)lv(4), (long long)lv(5), (unsigned long long)c.off[2],
                 (unsigned long long)c.off[3], (long long)lv(206));
        assert_string_equal(log, want);
        o.max_block_data = 0;
        avk_buffer_destroy(&z);
        bb_free(&d);
        craft_free(&c);
    }

    /* Records of zero bytes: only max_empty_items bounds a block's count,
     * and the error names that limit. */
    {
        avk_file_reader *fr = NULL;
        avk_arena *a = arena_new();
        avk_error err;
        avk_value v;
        int more;
        craft_header(&c, "\"null\"", NULL);
        craft_raw(&c, 5, 0, NULL, 0, SYNC, 5);
        craft_raw(&c, 1, 0, NULL, 0, SYNC, 1);
        o.limits.max_empty_items = 2;
        log_skip_mode(c.b.p, c.b.len, o, 0, log, sizeof log);
        snprintf(want, sizeof want, "LIMIT@%llu/0>%llu null ", (unsigned long long)c.off[0],
                 (unsigned long long)c.off[1]);
        assert_string_equal(log, want);
        o.flags = 0;
        o.on_skip = NULL;
        AVKT_OK(avk_file_reader_open_memory(c.b.p, c.b.len, &o, &fr, &err));
        AVKT_ASSERT_STATUS(avk_file_reader_next(fr, a, &v, &more, &err), AVK_ERR_LIMIT);
        snprintf(want, sizeof want,
                 "block 0 at byte %llu: a count of 5 records of zero bytes each exceeds "
                 "the limit of 2 (max_empty_items)",
                 (unsigned long long)c.off[0]);
        assert_string_equal(err.message, want);
        avk_file_reader_free(fr);
        avk_arena_free(a);
        o.limits.max_empty_items = 0;
        craft_free(&c);
    }
}

/* ---- failing allocations ----------------------------------------------------------------- */

/* Fail the Nth allocation of open + read for every N: each failure is
 * NO_MEMORY and nothing leaks. */
static void test_failing_allocator_read(void **state)
{
    avk_schema *s = AVKT_PARSE(REC_SCHEMA);
    const avk_type *t = avk_schema_root(s);
    size_t ci;
    char p[64];
    (void)state;
    tmp_path(p);
    for (ci = 0; ci < N_CODECS; ci++) {
        avk_file_writer_options wo = wopts(all_codecs[ci], 0, 4, SYNC);
        bb f;
        long n;
        int done = 0, how;
        write_file(s, &wo, 10, &f);
        write_whole(p, f.p, f.len);
        for (how = 0; how < 4; how++) {
            done = 0;
            for (n = 1; !done && n < 100000; n++) {
                avkt_failalloc fa;
                avkt_locked_alloc la;
                avk_file_reader_options o = ropts(0);
                avk_arena_options ao;
                avk_file_reader *fr = NULL;
                avk_arena *a = NULL;
                avk_file_block blk;
                avk_buffer buf;
                avk_value v;
                avk_error err;
                avk_status st;
                int more = 1, got = 0, fd = -1;
                avkt_failalloc_init(&fa, n);
                avkt_locked_alloc_init(&la, &fa.allocator); /* the workers allocate too */
                o.allocator = &la.allocator;
                memset(&ao, 0, sizeof ao);
                ao.struct_size = sizeof ao;
                ao.allocator = &la.allocator;
                avk_buffer_init(&buf, &la.allocator);
                st = avk_arena_new(&ao, &a, &err);
                if (st == AVK_OK) {
                    if (how == 0)
                        st = avk_file_reader_open_memory(f.p, f.len, &o, &fr, &err);
                    else if (how == 1)
                        st = avk_file_reader_open_path(p, &o, &fr, &err);
                    else {
                        fd = open(p, O_RDONLY);
                        st = avk_file_reader_open_fd(fd, &o, &fr, &err);
                    }
                }
                while (st == AVK_OK && more) {
                    st = avk_file_reader_next(fr, a, &v, &more, &err);
                    if (st == AVK_OK && more)
                        got++;
                }
                if (st == AVK_OK) {
                    /* and block by block, decompressed */
                    st = avk_file_reader_seek_block(fr, avk_file_reader_header_size(fr), &err);
                    more = 1;
                    while (st == AVK_OK && more) {
                        st = avk_file_reader_next_block(fr, &blk, &more, &err);
                        if (st == AVK_OK && more)
                            st = avk_file_block_decompress(fr, &blk, &buf, &err);
                    }
                }
                if (st == AVK_OK) {
                    assert_int_equal(got, 10);
                    /* (with threads, a read-ahead ring that cannot be
                     * allocated means reading without: no error) */
                    if (!g_threads)
                        assert_int_equal(fa.failures, 0);
                    done = 1;
                } else {
                    if (st != AVK_ERR_NO_MEMORY)
                        fail_msg("%s, how %d: allocation %ld failing gave %s (%s)",
                                 avk_codec_name(all_codecs[ci]), how, n, avk_status_name(st),
                                 err.message);
                }
                avk_file_reader_free(fr);
                avk_arena_free(a);
                avk_buffer_destroy(&buf);
                if (fd >= 0)
                    close(fd);
                pthread_mutex_destroy(&la.mu);
                if (fa.live_blocks != 0 || fa.size_mismatches != 0 || fa.bad_frees != 0)
                    fail_msg("%s, how %d, failing %ld: %ld blocks leaked, %ld size mismatches, "
                             "%ld bad frees",
                             avk_codec_name(all_codecs[ci]), how, n, fa.live_blocks,
                             fa.size_mismatches, fa.bad_frees);
            }
            assert_true(done);
        }
        (void)t;
        bb_free(&f);
    }
    unlink(p);
    avk_schema_free(s);
}

/* The same over open + append + close of a writer (and append_path). */
static void test_failing_allocator_write(void **state)
{
    avk_schema *s = AVKT_PARSE(REC_SCHEMA);
    const avk_type *t = avk_schema_root(s);
    size_t ci;
    char p[64];
    (void)state;
    tmp_path(p);
    for (ci = 0; ci < N_CODECS; ci++) {
        long n;
        int done = 0, how;
        for (how = 0; how < 2; how++) {
            done = 0;
            for (n = 1; !done && n < 100000; n++) {
                avkt_failalloc fa;
                avk_file_writer_options o = wopts(all_codecs[ci], 0, 4, SYNC);
                avk_file_writer *fw = NULL;
                avk_arena *a = arena_new();
                avk_error err;
                avk_status st;
                bb f;
                int i;
                memset(&f, 0, sizeof f);
                avkt_failalloc_init(&fa, n);
                o.allocator = &fa.allocator;
                if (how == 0) {
                    st = avk_file_writer_open_sink(bb_sink, &f, s, &o, &fw, &err);
                } else {
                    avk_file_writer_options o0 = wopts(all_codecs[ci], 0, 4, SYNC);
                    avk_file_writer *w0 = NULL;
                    AVKT_OK(avk_file_writer_open_path(p, s, &o0, &w0, NULL));
                    append_records(w0, t, 0, 3);
                    AVKT_OK(avk_file_writer_close(w0, NULL));
                    st = avk_file_writer_append_path(p, &o, &fw, &err);
                }
                for (i = how ? 3 : 0; st == AVK_OK && i < 10; i++) {
                    avk_value v;
                    make_record(t, a, i, &v);
                    st = avk_file_writer_append(fw, &v, &err);
                    avk_arena_reset(a);
                }
                if (st == AVK_OK) {
                    st = avk_file_writer_close(fw, &err);
                } else if (fw) {
                    avk_file_writer_free(fw);
                }
                if (st == AVK_OK) {
                    avk_file_reader *fr;
                    assert_int_equal(fa.failures, 0);
                    if (how == 0) {
                        fr = open_mem(&f, NULL);
                    } else {
                        AVKT_OK(avk_file_reader_open_path(p, NULL, &fr, NULL));
                    }
                    expect_records(fr, t, 0, 10);
                    avk_file_reader_free(fr);
                    done = 1;
                } else if (st != AVK_ERR_NO_MEMORY) {
                    fail_msg("%s, how %d: allocation %ld failing gave %s (%s)",
                             avk_codec_name(all_codecs[ci]), how, n, avk_status_name(st),
                             err.message);
                }
                if (fa.live_blocks != 0 || fa.size_mismatches != 0 || fa.bad_frees != 0)
                    fail_msg("%s, how %d, failing %ld: %ld blocks leaked, %ld size mismatches, "
                             "%ld bad frees",
                             avk_codec_name(all_codecs[ci]), how, n, fa.live_blocks,
                             fa.size_mismatches, fa.bad_frees);
                avk_arena_free(a);
                bb_free(&f);
            }
            assert_true(done);
        }
    }
    unlink(p);
    avk_schema_free(s);
}

/* ---- decompression threads --------------------------------------------------------------- */

/* Workers start on the first block to decompress (none for the null
 * codec, none with threads 0 or 1), at most 63, and free joins them, also
 * with blocks in flight in the middle of a file. */
static void test_threads_workers(void **state)
{
    avk_schema *s = AVKT_PARSE(REC_SCHEMA);
    const avk_type *t = avk_schema_root(s);
    int base = thread_count(), how;
    char p[64];
    (void)state;
    tmp_path(p);
    for (how = 0; how < 8; how++) {
        /* deflate / null, memory / path, threads 4 / 1 / 1000 */
        avk_codec c = how == 1 || how == 5 ? AVK_CODEC_NULL : how == 6 ? AVK_CODEC_XZ
                                                                       : AVK_CODEC_DEFLATE;
        unsigned th = how == 4 ? 1 : how == 7 ? 1000 : 4;
        int workers = c == AVK_CODEC_NULL || th < 2 ? 0 : th > 64 ? 63 : (int)th - 1;
        avk_file_writer_options wo = wopts(c, 0, 1, SYNC);
        avk_file_reader_options o = ropts(0);
        avk_file_reader_stats rs;
        avk_file_reader *fr = NULL;
        avk_arena *a = arena_new();
        avk_value v;
        avk_error err;
        int more, i;
        bb f;
        write_file(s, &wo, 80, &f);
        o.threads = th;
        if (how % 2 == 0) {
            write_whole(p, f.p, f.len);
            AVKT_OK(avk_file_reader_open_path(p, &o, &fr, &err));
        } else {
            AVKT_OK(avk_file_reader_open_memory(f.p, f.len, &o, &fr, &err));
        }
        assert_int_equal(thread_count(), base); /* none before the first block */
        if (how == 2) { /* freed before reading anything */
            avk_file_reader_free(fr);
            avk_arena_free(a);
            bb_free(&f);
            continue;
        }
        for (i = 0; i < 3; i++)
            AVKT_OK(avk_file_reader_next(fr, a, &v, &more, &err));
        assert_int_equal(thread_count(), base + workers);
        avk_file_reader_get_stats(fr, &rs);
        AVKT_ASSERT_I64_EQ(rs.blocks, 3); /* blocks read ahead are not counted yet */
        AVKT_ASSERT_I64_EQ(rs.records, 3);
        if (how == 3) {
            /* Then all of it, and a seek back and all of it again. */
            avk_file_reader_free(fr);
            fr = open_mem(&f, &o);
            expect_records(fr, t, 0, 80);
            AVKT_OK(avk_file_reader_seek_sync(fr, 0, &err));
            expect_records(fr, t, 0, 80);
        }
        avk_file_reader_free(fr); /* mid-file, blocks in flight */
        assert_int_equal(thread_count_settled(base), base);
        avk_arena_free(a);
        bb_free(&f);
    }
    unlink(p);
    avk_schema_free(s);
}

/* Options of the size before threads was added are accepted (threads 0). */
static void test_threads_options_size(void **state)
{
    avk_file_reader_options o = ropts(0);
    avk_file_reader *fr = NULL;
    avk_error err;
    craft c;
    (void)state;
    craft_two_good(&c, AVK_CODEC_DEFLATE);
    o.threads = 3;
    o.struct_size = offsetof(avk_file_reader_options, allocator) + sizeof(const avk_allocator *);
    read_longs(c.b.p, c.b.len, &o, 6, 0, AVK_OK, 0, 0);
    o.struct_size = sizeof o + 8;
    AVKT_ASSERT_STATUS(avk_file_reader_open_memory(c.b.p, c.b.len, &o, &fr, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    assert_null(fr);
    craft_free(&c);
}

/* next, next_block and seek_block mixed, on memory, a file and a pipe:
 * the same records and blocks with 0, 2 and 4 threads. */
static void test_threads_mixed_calls(void **state)
{
    craft c;
    char p[64];
    int how, k;
    (void)state;
    craft_header(&c, "\"long\"", "deflate");
    for (k = 0; k < 12; k++)
        craft_block(&c, AVK_CODEC_DEFLATE, 3);
    tmp_path(p);
    write_whole(p, c.b.p, c.b.len);
    for (how = 0; how < 3; how++) {
        int64_t seen[3][64];
        unsigned th;
        for (th = 0; th <= 4; th += 2) {
            avk_file_reader_options o = ropts(0);
            avk_file_reader *fr = NULL;
            avk_arena *a = arena_new();
            avk_file_block blk;
            avk_value v;
            avk_error err;
            int more, n = 0, pipefd[2] = {-1, -1}, i;
            o.threads = th;
            if (how == 0) {
                AVKT_OK(avk_file_reader_open_memory(c.b.p, c.b.len, &o, &fr, &err));
            } else if (how == 1) {
                AVKT_OK(avk_file_reader_open_path(p, &o, &fr, &err));
            } else {
                assert_true(c.b.len < 65536);
                assert_int_equal(pipe(pipefd), 0);
                assert_int_equal(write(pipefd[1], c.b.p, c.b.len), (ssize_t)c.b.len);
                close(pipefd[1]);
                AVKT_OK(avk_file_reader_open_fd(pipefd[0], &o, &fr, &err));
            }
            /* 4 records (into block 1), 2 blocks (2 and 3), 5 records,
             * the block offset, a block, then records to the end. */
            for (i = 0; i < 4; i++) {
                AVKT_OK(avk_file_reader_next(fr, a, &v, &more, &err));
                seen[th / 2][n++] = v.u.l;
            }
            for (i = 0; i < 2; i++) {
                AVKT_OK(avk_file_reader_next_block(fr, &blk, &more, &err));
                assert_int_equal(more, 1);
                AVKT_ASSERT_I64_EQ(blk.offset, c.off[2 + i]);
                seen[th / 2][n++] = (int64_t)blk.offset;
            }
            for (i = 0; i < 5; i++) {
                AVKT_OK(avk_file_reader_next(fr, a, &v, &more, &err));
                seen[th / 2][n++] = v.u.l;
            }
            seen[th / 2][n++] = (int64_t)avk_file_reader_block_offset(fr);
            AVKT_OK(avk_file_reader_next_block(fr, &blk, &more, &err));
            seen[th / 2][n++] = (int64_t)blk.offset;
            if (how < 2) {
                /* back to block 5, whose records follow */
                AVKT_OK(avk_file_reader_seek_block(fr, c.off[5], &err));
                seen[th / 2][n++] = (int64_t)avk_file_reader_block_offset(fr);
                /* a refused seek leaves the place as it was */
                AVKT_ASSERT_STATUS(avk_file_reader_seek_block(fr, 3, &err),
                                   AVK_ERR_INVALID_ARGUMENT);
            }
            for (;;) {
                AVKT_OK(avk_file_reader_next(fr, a, &v, &more, &err));
                if (!more)
                    break;
                assert_true(n < 63);
                seen[th / 2][n++] = v.u.l;
            }
            seen[th / 2][n++] = -1;
            if (th > 0)
                assert_memory_equal(seen[0], seen[th / 2], sizeof(int64_t) * (size_t)n);
            avk_file_reader_free(fr);
            if (pipefd[0] >= 0)
                close(pipefd[0]);
            avk_arena_free(a);
        }
    }
    unlink(p);
    craft_free(&c);
}

static int threads_2(void **state)
{
    (void)state;
    g_threads = 2;
    return 0;
}

static int threads_4(void **state)
{
    (void)state;
    g_threads = 4;
    return 0;
}

static int ahead_2(void **state)
{
    (void)state;
    g_threads = 2;
    g_flags = AVK_FILE_DECODE_AHEAD;
    return 0;
}

static int ahead_3(void **state)
{
    (void)state;
    g_threads = 3;
    g_flags = AVK_FILE_DECODE_AHEAD;
    return 0;
}

static int threads_off(void **state)
{
    (void)state;
    g_threads = 0;
    g_flags = 0;
    return 0;
}

/* A reading test again with 2 and 4 threads decompressing, and with 2 and
 * 3 decoding ahead. */
#define THREADED(t) cmocka_unit_test_setup_teardown(t, threads_2, threads_off), \
                    cmocka_unit_test_setup_teardown(t, threads_4, threads_off), \
                    cmocka_unit_test_setup_teardown(t, ahead_2, threads_off), \
                    cmocka_unit_test_setup_teardown(t, ahead_3, threads_off)

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(avkt_test_kernel_choice),
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_destinations),
        cmocka_unit_test(test_metadata),
        cmocka_unit_test(test_sync_and_header),
        cmocka_unit_test(test_append_path),
        cmocka_unit_test(test_append_block_and_encoded),
        cmocka_unit_test(test_flush_midway),
        cmocka_unit_test(test_writer_refuses),
        cmocka_unit_test(test_seek_sync_every_offset),
        cmocka_unit_test(test_split),
        cmocka_unit_test(test_seek_block),
        cmocka_unit_test(test_offsets_past_4gib),
        cmocka_unit_test(test_bad_headers),
        cmocka_unit_test(test_schema_json_syntax),
        cmocka_unit_test(test_lenient_codec_names),
        cmocka_unit_test(test_bad_blocks),
        cmocka_unit_test(test_zero_count_leftover),
        cmocka_unit_test(test_header_repeated_keys),
        cmocka_unit_test(test_header_bad_keys),
        cmocka_unit_test(test_header_map_blocks),
        cmocka_unit_test(test_header_entry_limit),
        cmocka_unit_test(test_header_memory),
        cmocka_unit_test(test_writer_meta_keys),
        cmocka_unit_test(test_next_block_counts),
        cmocka_unit_test(test_every_prefix),
        cmocka_unit_test(test_skip_bad_blocks),
        cmocka_unit_test(test_skip_mode_limits),
        cmocka_unit_test(test_lying_length_is_damage),
        cmocka_unit_test(test_failing_allocator_read),
        cmocka_unit_test(test_failing_allocator_write),
        cmocka_unit_test(test_threads_workers),
        cmocka_unit_test(test_threads_options_size),
        cmocka_unit_test(test_threads_mixed_calls),
        THREADED(test_round_trips),
        THREADED(test_destinations),
        THREADED(test_seek_sync_every_offset),
        THREADED(test_split),
        THREADED(test_seek_block),
        THREADED(test_bad_blocks),
        THREADED(test_zero_count_leftover),
        THREADED(test_next_block_counts),
        THREADED(test_every_prefix),
        THREADED(test_skip_bad_blocks),
        THREADED(test_skip_mode_limits),
        THREADED(test_failing_allocator_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
