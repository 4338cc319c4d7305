/* Columns decoded by a file reader's work threads (avk_columns_decode_records): the same columns and errors as reading block by block. */
#include <stdlib.h>

#include "avkt.h"

#define SLOTS_MAX 64
#define RECORDS 20000

/* The file writer's sink: appends to a memory writer. */
static avk_status to_memory(void *ctx, const void *data, size_t len, avk_error *err)
{
    return avk_writer_write_raw((avk_writer *)ctx, data, len, err);
}

typedef struct work_state {
    avk_columns *cols[SLOTS_MAX];
} work_state;

static avk_status to_columns(void *ctx, unsigned slot, avk_file_records *records,
                             avk_error *err)
{
    work_state *w = (work_state *)ctx;
    avk_columns_clear(w->cols[slot]);
    return avk_columns_decode_records(w->cols[slot], records, NULL, err);
}

/* A file of RECORDS records {id: long, name: string} in small deflate
 * blocks; *len its size. */
static uint8_t *make_file(avk_schema *s, size_t *len)
{
    avk_file_writer_options wo;
    avk_file_writer *fw;
    avk_writer mem;
    avk_error err;
    avk_arena *a;
    avk_value v;
    const uint8_t *data;
    uint8_t *copy;
    int i;
    char name[32];
    AVKT_OK(avk_arena_new(NULL, &a, &err));
    AVKT_OK(avk_writer_init_memory(&mem, NULL, &err));
    avk_file_writer_options_init(&wo);
    wo.codec = AVK_CODEC_DEFLATE;
    wo.block_bytes = 4096;
    AVKT_OK(avk_file_writer_open_sink(to_memory, &mem, s, &wo, &fw, &err));
    for (i = 0; i < RECORDS; i++) {
        AVKT_OK(avk_value_init_tree(&v, avk_schema_root(s), a, &err));
        AVKT_OK(avk_value_set_long(&v, "id", (int64_t)i * 7 - 1000, &err));
        snprintf(name, sizeof name, "n%d", i);
        AVKT_OK(avk_value_set_string(&v, "name", name, a, &err));
        AVKT_OK(avk_file_writer_append(fw, &v, &err));
        avk_arena_reset(a);
    }
    AVKT_OK(avk_file_writer_close(fw, &err));
    data = avk_writer_data(&mem, len);
    copy = (uint8_t *)malloc(*len);
    memcpy(copy, data, *len);
    avk_writer_destroy(&mem);
    avk_arena_free(a);
    return copy;
}

/* Exports the columns of one block and checks them against the records
 * from *seen on. */
static void check_columns(avk_columns *c, int simple, uint64_t *seen)
{
    struct ArrowArray arr;
    const int64_t *ids;
    const int32_t *off;
    const char *chars;
    int64_t r;
    avk_error e2;
    AVKT_OK(avk_columns_export(c, &arr, &e2));
    ids = (const int64_t *)arr.children[0]->buffers[1];
    off = (const int32_t *)arr.children[1]->buffers[1];
    chars = (const char *)arr.children[1]->buffers[2];
    for (r = 0; r < arr.length; r++) {
        char name[32];
        int64_t k = (int64_t)*seen + r;
        if (simple)
            snprintf(name, sizeof name, "abc");
        else
            snprintf(name, sizeof name, "n%lld", (long long)k);
        AVKT_ASSERT_I64_EQ(ids[r], simple ? k : k * 7 - 1000);
        AVKT_ASSERT_I64_EQ(off[r + 1] - off[r], strlen(name));
        assert_memory_equal(chars + off[r], name, strlen(name));
    }
    *seen += (uint64_t)arr.length;
    arr.release(&arr);
}

/* Reads data with threads and the columns work; checks every id and name
 * in order; returns the final status (err filled) and the records seen.
 * simple: records of the second file (ids 0, 1, ...; names "abc"). */
static avk_status read_parallel(avk_schema *s, const uint8_t *data, size_t len, unsigned threads,
                                int simple, uint64_t *seen, avk_error *err)
{
    avk_file_reader_options o;
    avk_file_reader *fr;
    work_state w;
    avk_status st;
    unsigned slot, i, nslots;
    int64_t taken;
    int more;
    avk_file_reader_options_init(&o);
    o.threads = threads;
    o.work = to_columns;
    o.work_ctx = &w;
    AVKT_OK(avk_file_reader_open_memory(data, len, &o, &fr, err));
    nslots = avk_file_reader_slots(fr);
    assert_true(nslots <= SLOTS_MAX);
    AVKT_ASSERT_I64_EQ(nslots, threads > 1 ? 2 * threads + 1 : 1);
    for (i = 0; i < nslots; i++)
        AVKT_OK(avk_columns_new(avk_schema_root(s), NULL, &w.cols[i], err));
    *seen = 0;
    for (;;) {
        st = avk_file_reader_next_work(fr, &slot, &taken, &more, err);
        /* A failed block still hands on the records before the bad one. */
        if (slot != AVK_FILE_NO_SLOT) {
            assert_true(slot < nslots);
            AVKT_ASSERT_I64_EQ(avk_columns_length(w.cols[slot]), taken);
            check_columns(w.cols[slot], simple, seen);
        }
        if (st != AVK_OK || !more)
            break;
    }
    avk_file_reader_free(fr);
    for (i = 0; i < nslots; i++)
        avk_columns_free(w.cols[i]);
    return st;
}

/* The same input read record by record: final status and message. */
static avk_status read_plain(const uint8_t *data, size_t len, uint64_t *seen, avk_error *err)
{
    avk_file_reader *fr;
    avk_arena *a;
    avk_value v;
    avk_status st;
    int more;
    AVKT_OK(avk_arena_new(NULL, &a, err));
    AVKT_OK(avk_file_reader_open_memory(data, len, NULL, &fr, err));
    *seen = 0;
    while ((st = avk_file_reader_next(fr, a, &v, &more, err)) == AVK_OK && more) {
        (*seen)++;
        avk_arena_reset(a);
    }
    avk_file_reader_free(fr);
    avk_arena_free(a);
    return st;
}

static void test_columns_on_work_threads(void **state)
{
    avk_schema *s = AVKT_PARSE("{'type':'record','name':'R','fields':[{'name':'id','type':"
                               "'long'},{'name':'name','type':'string'}]}");
    size_t len;
    uint8_t *data = make_file(s, &len);
    unsigned threads[] = {0, 2, 3, 8};
    size_t t;
    (void)state;
    for (t = 0; t < sizeof threads / sizeof threads[0]; t++) {
        uint64_t seen;
        avk_error err;
        AVKT_OK(read_parallel(s, data, len, threads[t], 0, &seen, &err));
        AVKT_ASSERT_I64_EQ(seen, RECORDS);
    }
    free(data);
    avk_schema_free(s);
}

/* A long's varint made too long in a middle block: the records before it
 * come out as columns, then the reader's own error. Here the data is
 * null-codec so the damage lands in a record, not in the codec stream. */
static void test_columns_work_errors_match_reader(void **state)
{
    avk_schema *s = AVKT_PARSE("{'type':'record','name':'R','fields':[{'name':'id','type':"
                               "'long'},{'name':'name','type':'string'}]}");
    avk_file_writer_options wo;
    avk_file_writer *fw;
    avk_writer mem;
    avk_error err, err2;
    avk_arena *a;
    avk_value v;
    const uint8_t *written;
    uint8_t *data;
    size_t len, at;
    int i;
    unsigned th;
    (void)state;
    AVKT_OK(avk_arena_new(NULL, &a, &err));
    AVKT_OK(avk_writer_init_memory(&mem, NULL, &err));
    avk_file_writer_options_init(&wo);
    wo.block_bytes = 512;
    AVKT_OK(avk_file_writer_open_sink(to_memory, &mem, s, &wo, &fw, &err));
    for (i = 0; i < 2000; i++) {
        AVKT_OK(avk_value_init_tree(&v, avk_schema_root(s), a, &err));
        AVKT_OK(avk_value_set_long(&v, "id", i == 1000 ? -7777777 : i, &err));
        AVKT_OK(avk_value_set_string(&v, "name", "abc", a, &err));
        AVKT_OK(avk_file_writer_append(fw, &v, &err));
        avk_arena_reset(a);
    }
    AVKT_OK(avk_file_writer_close(fw, &err));
    written = avk_writer_data(&mem, &len);
    data = (uint8_t *)malloc(len);
    memcpy(data, written, len);
    /* Record 1000's id, overwritten with 11 bytes of 0xff: a varint
     * longer than 10 bytes (MALFORMED) in a middle block. */
    {
        /* Find the record by encoding its varint the library's way. */
        uint8_t enc[10];
        avk_writer w;
        const uint8_t *e;
        size_t elen;
        AVKT_OK(avk_writer_init_memory(&w, NULL, &err));
        AVKT_OK(avk_writer_write_long(&w, -7777777, &err));
        e = avk_writer_data(&w, &elen);
        memcpy(enc, e, elen);
        avk_writer_destroy(&w);
        for (at = 0; at + elen <= len; at++)
            if (memcmp(data + at, enc, elen) == 0)
                break;
        assert_true(at + elen + 8 < len);
        memset(data + at, 0xff, 11); /* an 11-byte varint: MALFORMED */
    }
    for (th = 0; th <= 4; th += 2) {
        uint64_t seen_plain, seen_par;
        avk_status a1 = read_plain(data, len, &seen_plain, &err);
        avk_status a2 = read_parallel(s, data, len, th, 1, &seen_par, &err2);
        AVKT_ASSERT_STATUS(a1, AVK_ERR_MALFORMED);
        AVKT_ASSERT_I64_EQ(a2, a1);
        AVKT_ASSERT_I64_EQ(seen_par, seen_plain);
        assert_string_equal(err2.message, err.message);
        AVKT_ASSERT_I64_EQ(err2.offset, err.offset);
        AVKT_ASSERT_I64_EQ(err2.block, err.block);
    }
    free(data);
    avk_writer_destroy(&mem);
    avk_arena_free(a);
    avk_schema_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_columns_on_work_threads),
        cmocka_unit_test(test_columns_work_errors_match_reader),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
