/* Unit tests for the container writer's compression threads: output identical to one thread, exact read-back, stats, errors, allocation failures, free mid-stream. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "avkt.h"
#include "avrokit/file.h"
#include "failalloc.h"

static const avk_codec all_codecs[] = {AVK_CODEC_NULL,      AVK_CODEC_DEFLATE, AVK_CODEC_SNAPPY,
                                       AVK_CODEC_ZSTANDARD, AVK_CODEC_BZIP2,   AVK_CODEC_XZ};
#define N_CODECS (sizeof all_codecs / sizeof all_codecs[0])

static const unsigned all_threads[] = {0, 2, 3, 8};
#define N_THREADS (sizeof all_threads / sizeof all_threads[0])

static const uint8_t SYNC[16] = {0x54, 0x68, 0x72, 0x65, 0x61, 0x64, 0x73, 0x21,
                                 0x0f, 0x1e, 0x2d, 0x3c, 0x4b, 0x5a, 0x69, 0x78};

/* Fast levels: the output only has to be deterministic, and xz's or bzip2's
 * defaults would make hundreds of tiny blocks slow. */
static int test_level(avk_codec c)
{
    return c == AVK_CODEC_XZ || c == AVK_CODEC_BZIP2 ? 1 : 0;
}

/* ---- a memory sink ------------------------------------------------------------------------ */

typedef struct bb {
    uint8_t *p;
    size_t len, cap;
    size_t fail_after; /* a write that would pass this many bytes fails; 0: never */
} bb;

static avk_status bb_sink(void *ctx, const void *data, size_t len, avk_error *err)
{
    bb *b = (bb *)ctx;
    if (b->fail_after && b->len + len > b->fail_after) {
        if (err) {
            memset(err, 0, sizeof *err);
            err->status = AVK_ERR_IO;
            snprintf(err->message, sizeof err->message, "test sink full");
        }
        return AVK_ERR_IO;
    }
    if (b->len + len > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + len)
            cap *= 2;
        b->p = (uint8_t *)realloc(b->p, cap);
        assert_non_null(b->p);
        b->cap = cap;
    }
    if (len)
        memcpy(b->p + b->len, data, len);
    b->len += len;
    return AVK_OK;
}

static void bb_free(bb *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

/* ---- records --------------------------------------------------------------------------- */

static const char REC_SCHEMA[] =
    "{'type': 'record', 'name': 'T', 'namespace': 'test.threads', 'fields': ["
    " {'name': 'id', 'type': 'long'},"
    " {'name': 'name', 'type': 'string'},"
    " {'name': 'blob', 'type': 'bytes'}]}";

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

/* Record i: sizes vary from a few bytes to ~400, partly compressible. */
static void make_record(const avk_type *t, avk_arena *a, int i, avk_value *v)
{
    char name[64];
    uint8_t blob[400];
    size_t k, n = (size_t)((i * 37) % 397);
    uint32_t x = (uint32_t)i * 2654435761u + 1;
    AVKT_OK(avk_value_init(v, t, 0, a, NULL));
    v->u.fields[0].u.l = (int64_t)i * 7919 - 100000;
    snprintf(name, sizeof name, "record-%d-%.*s", i, i % 23, "abcdefghijklmnopqrstuvw");
    v->u.fields[1].u.bytes = arena_bytes(a, name, strlen(name));
    for (k = 0; k < n; k++) {
        x = x * 1103515245u + 12345u;
        blob[k] = (uint8_t)("avro container block "[(x >> 16) % 21]);
    }
    v->u.fields[2].u.bytes = arena_bytes(a, blob, n);
}

static avk_arena *arena_new(void)
{
    avk_arena *a = NULL;
    AVKT_OK(avk_arena_new(NULL, &a, NULL));
    return a;
}

/* Reads the file back: records 0..n-1 in order, then the end. */
static void expect_records(const bb *f, const avk_type *t, int n)
{
    avk_arena *a = arena_new(), *b = arena_new();
    avk_file_reader *fr = NULL;
    avk_error err;
    avk_value got, want;
    int i, more = -1;
    avk_status st = avk_file_reader_open_memory(f->p, f->len, NULL, &fr, &err);
    if (st != AVK_OK)
        fail_msg("open_memory: %s (%s)", avk_status_name(st), err.message);
    for (i = 0; i < n; i++) {
        st = avk_file_reader_next(fr, a, &got, &more, &err);
        if (st != AVK_OK || !more)
            fail_msg("record %d: %s more=%d (%s)", i, avk_status_name(st), more,
                     st ? err.message : "");
        make_record(t, b, i, &want);
        if (!avk_value_equal(&got, &want))
            fail_msg("record %d differs", i);
        avk_arena_reset(a);
        avk_arena_reset(b);
    }
    AVKT_OK(avk_file_reader_next(fr, a, &got, &more, &err));
    assert_int_equal(more, 0);
    avk_file_reader_free(fr);
    avk_arena_free(a);
    avk_arena_free(b);
}

static avk_file_writer_options wopts(avk_codec c, size_t block_bytes, uint64_t block_records,
                                     unsigned threads)
{
    avk_file_writer_options o;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.codec = c;
    o.level = test_level(c);
    o.block_bytes = block_bytes;
    o.block_records = block_records;
    o.sync = SYNC;
    o.threads = threads;
    return o;
}

/* ---- the script every writer runs -------------------------------------------------------- */

#define MAX_SNAP 64

/* What one run wrote, and its stats after each flush and at some records. */
typedef struct run_result {
    bb out;
    int records;
    avk_file_writer_stats flushed[MAX_SNAP]; /* after each flush: everything is written */
    int nflushed;
    avk_file_writer_stats mid[MAX_SNAP];     /* between: only records and bytes_data agree */
    int nmid;
} run_result;

/* Records i..i+count-1 encoded and compressed as one block, for append_block. */
static void make_block(avk_file_writer *fw, avk_codec c, int first, int count, avk_buffer *out)
{
    const avk_type *t = avk_schema_root(avk_file_writer_schema(fw));
    avk_arena *a = arena_new();
    avk_writer w;
    const uint8_t *d;
    size_t len;
    int i;
    AVKT_OK(avk_writer_init_memory(&w, NULL, NULL));
    for (i = first; i < first + count; i++) {
        avk_value v;
        make_record(t, a, i, &v);
        AVKT_OK(avk_plan_encode(avk_file_writer_plan(fw), &v, &w, NULL));
        avk_arena_reset(a);
    }
    d = avk_writer_data(&w, &len);
    AVKT_OK(avk_codec_compress(c, test_level(c), d, len, out, NULL));
    avk_writer_destroy(&w);
    avk_arena_free(a);
}

/* n records through every way in: append, append_encoded, record_begin/end
 * (some dropped), append_block; flushes along the way; then close. */
static void run_script(const avk_schema *s, avk_codec c, size_t block_bytes,
                       uint64_t block_records, unsigned threads, int n, run_result *r)
{
    avk_file_writer_options o = wopts(c, block_bytes, block_records, threads);
    avk_file_writer *fw = NULL;
    const avk_type *t = avk_schema_root(s);
    avk_arena *a = arena_new();
    avk_buffer blk;
    avk_error err;
    int i = 0, step = 0;
    memset(r, 0, sizeof *r);
    avk_buffer_init(&blk, NULL);
    AVKT_OK(avk_file_writer_open_sink(bb_sink, &r->out, s, &o, &fw, &err));
    while (i < n) {
        avk_value v;
        step++;
        if (step % 97 == 0 && i + 3 <= n) {
            make_block(fw, c, i, 3, &blk);
            AVKT_OK(avk_file_writer_append_block(fw, 3, blk.data, blk.len, &err));
            i += 3;
            continue;
        }
        make_record(t, a, i, &v);
        if (step % 5 == 0) {
            avk_writer w;
            const uint8_t *d;
            size_t len;
            AVKT_OK(avk_writer_init_memory(&w, NULL, NULL));
            AVKT_OK(avk_plan_encode(avk_file_writer_plan(fw), &v, &w, NULL));
            d = avk_writer_data(&w, &len);
            AVKT_OK(avk_file_writer_append_encoded(fw, d, len, &err));
            avk_writer_destroy(&w);
        } else if (step % 7 == 0) {
            avk_writer *w = avk_file_writer_record_begin(fw);
            AVKT_OK(avk_plan_encode(avk_file_writer_plan(fw), &v, w, NULL));
            if (step % 3 == 0) { /* dropped, then written again */
                AVKT_OK(avk_file_writer_record_end(fw, 0, &err));
                w = avk_file_writer_record_begin(fw);
                AVKT_OK(avk_plan_encode(avk_file_writer_plan(fw), &v, w, NULL));
            }
            AVKT_OK(avk_file_writer_record_end(fw, 1, &err));
        } else {
            AVKT_OK(avk_file_writer_append(fw, &v, &err));
        }
        avk_arena_reset(a);
        i++;
        if (step % 401 == 0 && r->nflushed < MAX_SNAP) {
            AVKT_OK(avk_file_writer_flush(fw, &err));
            avk_file_writer_get_stats(fw, &r->flushed[r->nflushed++]);
        } else if (step % 53 == 0 && r->nmid < MAX_SNAP) {
            avk_file_writer_get_stats(fw, &r->mid[r->nmid++]);
        }
    }
    if (r->nflushed < MAX_SNAP) {
        AVKT_OK(avk_file_writer_flush(fw, &err));
        avk_file_writer_get_stats(fw, &r->flushed[r->nflushed++]);
    }
    AVKT_OK(avk_file_writer_close(fw, &err));
    r->records = n;
    avk_buffer_destroy(&blk);
    avk_arena_free(a);
}

static void stats_equal(const avk_file_writer_stats *a, const avk_file_writer_stats *b)
{
    assert_int_equal(a->blocks, b->blocks);
    assert_int_equal(a->records, b->records);
    assert_int_equal(a->bytes_data, b->bytes_data);
    assert_int_equal(a->bytes_written, b->bytes_written);
}

/* ---- tests --------------------------------------------------------------------------------- */

/* Every codec, thread count and block setting: the same bytes as one
 * thread, the same stats, and the records read back. */
static void test_identical_output(void **state)
{
    static const struct {
        size_t bytes;
        uint64_t records;
        int n;
    } settings[] = {
        {0, 0, 900},      /* 64 KiB blocks: a few (1 full, the rest by flushes) */
        {4096, 0, 700},   /* many mid-size blocks */
        {1000, 7, 400},   /* both limits */
        {17, 0, 100},     /* every record its own block (codec setup dominates) */
    };
    avk_schema *s = AVKT_PARSE(REC_SCHEMA);
    size_t ci, si, ti;
    (void)state;
    for (ci = 0; ci < N_CODECS; ci++) {
        for (si = 0; si < sizeof settings / sizeof settings[0]; si++) {
            run_result base, r;
            int k;
            run_script(s, all_codecs[ci], settings[si].bytes, settings[si].records, 0,
                       settings[si].n, &base);
            expect_records(&base.out, avk_schema_root(s), base.records);
            for (ti = 1; ti < N_THREADS; ti++) {
                run_script(s, all_codecs[ci], settings[si].bytes, settings[si].records,
                           all_threads[ti], settings[si].n, &r);
                if (r.out.len != base.out.len || memcmp(r.out.p, base.out.p, r.out.len) != 0)
                    fail_msg("%s, blocks of %zu bytes / %llu records, %u threads: output "
                             "differs (%zu bytes vs %zu)",
                             avk_codec_name(all_codecs[ci]), settings[si].bytes,
                             (unsigned long long)settings[si].records, all_threads[ti],
                             r.out.len, base.out.len);
                assert_int_equal(r.nflushed, base.nflushed);
                for (k = 0; k < r.nflushed; k++)
                    stats_equal(&r.flushed[k], &base.flushed[k]);
                assert_int_equal(r.nmid, base.nmid);
                for (k = 0; k < r.nmid; k++) {
                    assert_int_equal(r.mid[k].records, base.mid[k].records);
                    assert_int_equal(r.mid[k].bytes_data, base.mid[k].bytes_data);
                    assert_true(r.mid[k].blocks <= base.mid[k].blocks);
                }
                bb_free(&r.out);
            }
            bb_free(&base.out);
        }
    }
    avk_schema_free(s);
}

/* threads: older struct size accepted (as 0), too many refused, null codec
 * ignores it. */
static void test_options(void **state)
{
    avk_schema *s = AVKT_PARSE(REC_SCHEMA);
    avk_file_writer_options o = wopts(AVK_CODEC_DEFLATE, 0, 0, 0);
    avk_file_writer *fw = NULL;
    avk_error err;
    bb f;
    (void)state;
    memset(&f, 0, sizeof f);
    o.struct_size = offsetof(avk_file_writer_options, threads);
    AVKT_OK(avk_file_writer_open_sink(bb_sink, &f, s, &o, &fw, &err));
    AVKT_OK(avk_file_writer_close(fw, &err));
    o = wopts(AVK_CODEC_DEFLATE, 0, 0, 65);
    AVKT_ASSERT_STATUS(avk_file_writer_open_sink(bb_sink, &f, s, &o, &fw, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    assert_null(fw);
    o = wopts(AVK_CODEC_DEFLATE, 0, 0, 64);
    AVKT_OK(avk_file_writer_open_sink(bb_sink, &f, s, &o, &fw, &err));
    AVKT_OK(avk_file_writer_close(fw, &err));
    o = wopts(AVK_CODEC_NULL, 0, 0, 8);
    AVKT_OK(avk_file_writer_open_sink(bb_sink, &f, s, &o, &fw, &err));
    AVKT_OK(avk_file_writer_close(fw, &err));
    o = wopts(AVK_CODEC_DEFLATE, 0, 0, 0);
    o.struct_size = offsetof(avk_file_writer_options, threads) - 1;
    AVKT_ASSERT_STATUS(avk_file_writer_open_sink(bb_sink, &f, s, &o, &fw, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    bb_free(&f);
    avk_schema_free(s);
}

/* Free with blocks in flight: nothing leaks (failalloc counts), nothing is
 * written after the free. */
static void test_free_mid_stream(void **state)
{
    avk_schema *s = AVKT_PARSE(REC_SCHEMA);
    const avk_type *t = avk_schema_root(s);
    size_t ci;
    unsigned ti;
    (void)state;
    for (ci = 1; ci < N_CODECS; ci++) {
        for (ti = 1; ti < N_THREADS; ti++) {
            avkt_failalloc fa;
            avk_file_writer_options o = wopts(all_codecs[ci], 200, 0, all_threads[ti]);
            avk_file_writer *fw = NULL;
            avk_arena *a = arena_new();
            avk_error err;
            size_t len;
            bb f;
            int i;
            memset(&f, 0, sizeof f);
            avkt_failalloc_init(&fa, 0);
            o.allocator = &fa.allocator;
            AVKT_OK(avk_file_writer_open_sink(bb_sink, &f, s, &o, &fw, &err));
            for (i = 0; i < 100; i++) {
                avk_value v;
                make_record(t, a, i, &v);
                AVKT_OK(avk_file_writer_append(fw, &v, &err));
                avk_arena_reset(a);
            }
            len = f.len;
            avk_file_writer_free(fw);
            assert_int_equal(f.len, len);
            if (fa.live_blocks != 0 || fa.size_mismatches != 0 || fa.bad_frees != 0)
                fail_msg("%s, %u threads: %ld blocks leaked, %ld size mismatches, %ld bad frees",
                         avk_codec_name(all_codecs[ci]), all_threads[ti], fa.live_blocks,
                         fa.size_mismatches, fa.bad_frees);
            avk_arena_free(a);
            bb_free(&f);
        }
    }
    avk_schema_free(s);
}

/* A destination that fails: the error comes back from append or flush,
 * the writer stays broken, and nothing leaks. */
static void test_sink_failure(void **state)
{
    avk_schema *s = AVKT_PARSE(REC_SCHEMA);
    const avk_type *t = avk_schema_root(s);
    size_t limit;
    (void)state;
    for (limit = 300; limit < 6000; limit += 1100) {
        avkt_failalloc fa;
        avk_file_writer_options o = wopts(AVK_CODEC_ZSTANDARD, 300, 0, 3);
        avk_file_writer *fw = NULL;
        avk_arena *a = arena_new();
        avk_error err;
        avk_status st = AVK_OK;
        bb f;
        int i;
        memset(&f, 0, sizeof f);
        f.fail_after = limit;
        avkt_failalloc_init(&fa, 0);
        o.allocator = &fa.allocator;
        AVKT_OK(avk_file_writer_open_sink(bb_sink, &f, s, &o, &fw, &err));
        for (i = 0; i < 400 && st == AVK_OK; i++) {
            avk_value v;
            make_record(t, a, i, &v);
            st = avk_file_writer_append(fw, &v, &err);
            avk_arena_reset(a);
        }
        if (st == AVK_OK)
            st = avk_file_writer_flush(fw, &err);
        assert_int_equal(st, AVK_ERR_IO);
        /* broken from now on */
        AVKT_ASSERT_STATUS(avk_file_writer_flush(fw, &err), AVK_ERR_IO);
        AVKT_ASSERT_STATUS(avk_file_writer_close(fw, &err), AVK_ERR_IO);
        assert_int_equal(fa.live_blocks, 0);
        avk_arena_free(a);
        bb_free(&f);
    }
    avk_schema_free(s);
}

/* A block that fails to compress on a worker (xz allocates through the
 * writer's allocator, which fails from some point on): the next append
 * reports AVK_ERR_NO_MEMORY, the writer stays broken with that status, the
 * blocks before it are in the file and nothing leaks. */
static void test_compress_failure(void **state)
{
    avk_schema *s = AVKT_PARSE(REC_SCHEMA);
    const avk_type *t = avk_schema_root(s);
    unsigned ti;
    (void)state;
    for (ti = 1; ti < N_THREADS; ti++) {
        avkt_failalloc fa;
        avk_file_writer_options o = wopts(AVK_CODEC_XZ, 0, 4, all_threads[ti]);
        avk_file_writer *fw = NULL;
        avk_arena *a = arena_new();
        avk_error err;
        avk_status st = AVK_OK;
        bb f;
        int i;
        memset(&f, 0, sizeof f);
        avkt_failalloc_init(&fa, 0);
        o.allocator = &fa.allocator;
        AVKT_OK(avk_file_writer_open_sink(bb_sink, &f, s, &o, &fw, &err));
        for (i = 0; i < 20; i++) {
            avk_value v;
            make_record(t, a, i, &v);
            AVKT_OK(avk_file_writer_append(fw, &v, &err));
            avk_arena_reset(a);
        }
        AVKT_OK(avk_file_writer_flush(fw, &err));
        /* Nothing is in flight after a flush, so no worker allocates now. */
        fa.fail_at = fa.calls + 1;
        fa.fail_all_after = 1;
        for (; i < 400 && st == AVK_OK; i++) {
            avk_value v;
            make_record(t, a, i, &v);
            st = avk_file_writer_append(fw, &v, &err);
            avk_arena_reset(a);
        }
        assert_int_equal(st, AVK_ERR_NO_MEMORY);
        assert_true(fa.failures > 0);
        {
            avk_value v;
            make_record(t, a, 0, &v);
            AVKT_ASSERT_STATUS(avk_file_writer_append(fw, &v, &err), AVK_ERR_NO_MEMORY);
            avk_arena_reset(a);
        }
        AVKT_ASSERT_STATUS(avk_file_writer_flush(fw, &err), AVK_ERR_NO_MEMORY);
        AVKT_ASSERT_STATUS(avk_file_writer_close(fw, &err), AVK_ERR_NO_MEMORY);
        if (fa.live_blocks != 0 || fa.size_mismatches != 0 || fa.bad_frees != 0)
            fail_msg("%u threads: %ld blocks leaked, %ld size mismatches, %ld bad frees",
                     all_threads[ti], fa.live_blocks, fa.size_mismatches, fa.bad_frees);
        expect_records(&f, t, 20); /* the blocks before the failure, whole */
        avk_arena_free(a);
        bb_free(&f);
    }
    avk_schema_free(s);
}

/* Fail the Nth allocation for every N with threads = 2 (where allocations
 * happen on two threads, so the order may vary from run to run): each run
 * either succeeds and reads back, or reports AVK_ERR_NO_MEMORY; never a
 * leak, a crash or another status. */
static void test_alloc_failures(void **state)
{
    avk_schema *s = AVKT_PARSE(REC_SCHEMA);
    const avk_type *t = avk_schema_root(s);
    size_t ci;
    (void)state;
    for (ci = 0; ci < N_CODECS; ci++) {
        int done = 0;
        long n;
        for (n = 1; !done && n < 100000; n++) {
            avkt_failalloc fa;
            avk_file_writer_options o = wopts(all_codecs[ci], 0, 4, 2);
            avk_file_writer *fw = NULL;
            avk_arena *a = arena_new();
            avk_buffer blk;
            avk_error err;
            avk_status st;
            bb f;
            int i;
            memset(&f, 0, sizeof f);
            avk_buffer_init(&blk, NULL);
            avkt_failalloc_init(&fa, n);
            o.allocator = &fa.allocator;
            st = avk_file_writer_open_sink(bb_sink, &f, s, &o, &fw, &err);
            for (i = 0; st == AVK_OK && i < 30; i++) {
                avk_value v;
                if (i == 13) { /* a ready block between records */
                    make_block(fw, all_codecs[ci], i, 3, &blk);
                    st = avk_file_writer_append_block(fw, 3, blk.data, blk.len, &err);
                    i += 2;
                    continue;
                }
                make_record(t, a, i, &v);
                st = avk_file_writer_append(fw, &v, &err);
                avk_arena_reset(a);
                if (st == AVK_OK && i == 21)
                    st = avk_file_writer_flush(fw, &err);
            }
            if (st == AVK_OK) {
                st = avk_file_writer_close(fw, &err);
            } else if (fw) {
                avk_file_writer_free(fw);
            }
            if (st == AVK_OK) {
                assert_int_equal(fa.failures, 0);
                expect_records(&f, t, 30);
                done = 1;
            } else if (st != AVK_ERR_NO_MEMORY) {
                fail_msg("%s: allocation %ld failing gave %s (%s)",
                         avk_codec_name(all_codecs[ci]), n, avk_status_name(st), err.message);
            }
            if (fa.live_blocks != 0 || fa.size_mismatches != 0 || fa.bad_frees != 0)
                fail_msg("%s, failing %ld: %ld blocks leaked, %ld size mismatches, "
                         "%ld bad frees",
                         avk_codec_name(all_codecs[ci]), n, fa.live_blocks,
                         fa.size_mismatches, fa.bad_frees);
            avk_buffer_destroy(&blk);
            avk_arena_free(a);
            bb_free(&f);
        }
        assert_true(done);
    }
    avk_schema_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(avkt_test_kernel_choice),
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_identical_output),
        cmocka_unit_test(test_free_mid_stream),
        cmocka_unit_test(test_sink_failure),
        cmocka_unit_test(test_compress_failure),
        cmocka_unit_test(test_alloc_failures),
    };
    if (getenv("AVKT_FILTER")) /* e.g. test_alloc_failures, to run one test */
        cmocka_set_test_filter(getenv("AVKT_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
