/* Block index: totals, blocks and seeks against reading in order (apache files, every codec), damage as next_block reports it, sidecars saved, loaded, stale, grown and hostile, and allocation failures. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "avkt.h"
#include "failalloc.h"
#include "file/file_index_internal.h"

#ifndef AVK_INTEROP_DIR
#define AVK_INTEROP_DIR ""
#endif

static const avk_codec all_codecs[] = {AVK_CODEC_NULL,      AVK_CODEC_DEFLATE, AVK_CODEC_SNAPPY,
                                       AVK_CODEC_ZSTANDARD, AVK_CODEC_BZIP2,   AVK_CODEC_XZ};
#define N_CODECS (sizeof all_codecs / sizeof all_codecs[0])

static const uint8_t SYNC[16] = {0x49, 0x6e, 0x64, 0x65, 0x78, 0x01, 0x02, 0x03,
                                 0xa0, 0xb1, 0xc2, 0xd3, 0xe4, 0xf5, 0x06, 0x17};
static const uint8_t SYNC2[16] = {0x32, 0x6e, 0x64, 0x65, 0x78, 0x01, 0x02, 0x03,
                                  0xa0, 0xb1, 0xc2, 0xd3, 0xe4, 0xf5, 0x06, 0x18};

static const char REC_SCHEMA[] =
    "{'type': 'record', 'name': 'T', 'fields': [{'name': 'id', 'type': 'long'},"
    " {'name': 's', 'type': 'string'}]}";

/* ---- byte strings -------------------------------------------------------- */

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

static void bb_free(bb *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

static avk_status bb_sink(void *ctx, const void *data, size_t len, avk_error *err)
{
    (void)err;
    bb_put((bb *)ctx, data, len);
    return AVK_OK;
}

/* ---- files ----------------------------------------------------------------- */

static char g_dir[64];

/* A path in the suite's own temporary directory. */
static void tmp_name(char *out, size_t cap, const char *name)
{
    snprintf(out, cap, "%s/%s", g_dir, name);
}

static void write_whole(const char *path, const void *d, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(d, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

/* Sets a file's modification time (seconds, nanoseconds). */
static void set_mtime(const char *path, time_t sec, long nsec)
{
    struct timespec ts[2];
    ts[0].tv_sec = sec;
    ts[0].tv_nsec = nsec;
    ts[1] = ts[0];
    assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

static void get_mtime(const char *path, struct timespec *ts)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    *ts = st.st_mtim;
}

/* Record i of REC_SCHEMA, encoded: strings of 0 to 36 characters so that
 * block sizes vary. */
static void encode_record(bb *b, int i)
{
    char s[64];
    int n = i % 37, k;
    bb_long(b, (int64_t)i * 7919 - 100000);
    for (k = 0; k < n; k++)
        s[k] = (char)('a' + (i + k) % 26);
    bb_long(b, n);
    bb_put(b, s, (size_t)n);
}

static avk_file_writer_options wopts(avk_codec c, uint64_t block_records, const uint8_t *sync)
{
    avk_file_writer_options o;
    avk_file_writer_options_init(&o);
    o.codec = c;
    o.block_records = block_records;
    o.sync = sync;
    return o;
}

/* A file of records first..first+n-1 of schema (REC_SCHEMA's records, or
 * nothing for schemas whose records take no bytes), appended to out. */
static void gen_file(const char *schema_sq, const avk_file_writer_options *o, int first, int n,
                     bb *out)
{
    avk_schema *s = AVKT_PARSE(schema_sq);
    avk_file_writer *fw = NULL;
    avk_error err;
    int zero = strcmp(schema_sq, "'null'") == 0, i;
    AVKT_OK(avk_file_writer_open_sink(bb_sink, out, s, o, &fw, &err));
    for (i = first; i < first + n; i++) {
        bb rec = {0};
        if (!zero)
            encode_record(&rec, i);
        if (avk_file_writer_append_encoded(fw, rec.p ? rec.p : (const uint8_t *)"", rec.len,
                                           &err) != AVK_OK)
            fail_msg("append %d: %s", i, err.message);
        bb_free(&rec);
    }
    AVKT_OK(avk_file_writer_close(fw, &err));
    avk_schema_free(s);
}

/* The header alone of a file of schema with codec (for crafted blocks). */
static void gen_header(const char *schema_sq, avk_codec codec, const uint8_t *sync, bb *out)
{
    avk_file_writer_options o = wopts(codec, 0, sync);
    memset(out, 0, sizeof *out);
    gen_file(schema_sq, &o, 0, 0, out);
}

/* A crafted block: count, size, data, then the marker (NULL: SYNC). */
static void put_block(bb *f, int64_t count, int64_t size, const void *data, size_t n,
                      const uint8_t *marker)
{
    bb_long(f, count);
    bb_long(f, size);
    bb_put(f, data, n);
    bb_put(f, marker ? marker : SYNC, 16);
}

/* ---- reading in order ------------------------------------------------------ */

static avk_file_reader_options ropts(void)
{
    avk_file_reader_options o;
    avk_file_reader_options_init(&o);
    return o;
}

static char *json_of(const avk_value *v)
{
    avk_writer w;
    const uint8_t *d;
    size_t len;
    char *s;
    AVKT_OK(avk_writer_init_memory(&w, NULL, NULL));
    AVKT_OK(avk_value_write_json(v, AVK_JSON_REPLACE_INVALID_UTF8, &w, NULL));
    d = avk_writer_data(&w, &len);
    s = (char *)malloc(len + 1);
    assert_non_null(s);
    memcpy(s, d, len);
    s[len] = 0;
    avk_writer_destroy(&w);
    return s;
}

/* Every record reading in order gives, as Avro JSON, and how it ended. */
typedef struct seq {
    char **json;
    size_t n, cap;
    avk_status status;
    avk_error err;
} seq;

static void seq_read(const void *data, size_t len, seq *s)
{
    avk_file_reader *fr = NULL;
    avk_arena *arena = NULL;
    avk_value v;
    int more;
    memset(s, 0, sizeof *s);
    s->status = avk_file_reader_open_memory(data, len, NULL, &fr, &s->err);
    if (s->status != AVK_OK)
        return;
    AVKT_OK(avk_arena_new(NULL, &arena, NULL));
    while ((s->status = avk_file_reader_next(fr, arena, &v, &more, &s->err)) == AVK_OK && more) {
        if (s->n == s->cap) {
            s->cap = s->cap ? s->cap * 2 : 64;
            s->json = (char **)realloc(s->json, s->cap * sizeof *s->json);
            assert_non_null(s->json);
        }
        s->json[s->n++] = json_of(&v);
        avk_arena_reset(arena);
    }
    avk_arena_free(arena);
    avk_file_reader_free(fr);
}

static void seq_free(seq *s)
{
    size_t i;
    for (i = 0; i < s->n; i++)
        free(s->json[i]);
    free(s->json);
}

/* What next_block gives: the blocks and how it ended. */
typedef struct blocks {
    avk_file_block *b;
    size_t n;
    avk_status status;
    avk_error err;
} blocks;

/* From memory, or from the file at path when data is NULL (header errors
 * are worded by the stream reader then, as the index built from a path). */
static void blocks_read(const void *data, size_t len, const avk_file_reader_options *o,
                        blocks *out, const char *path)
{
    avk_file_reader *fr = NULL;
    avk_file_block blk;
    size_t cap = 0;
    int more;
    memset(out, 0, sizeof *out);
    out->status = data ? avk_file_reader_open_memory(data, len, o, &fr, &out->err)
                       : avk_file_reader_open_path(path, o, &fr, &out->err);
    if (out->status != AVK_OK)
        return;
    while ((out->status = avk_file_reader_next_block(fr, &blk, &more, &out->err)) == AVK_OK &&
           more) {
        if (out->n == cap) {
            cap = cap ? cap * 2 : 64;
            out->b = (avk_file_block *)realloc(out->b, cap * sizeof *out->b);
            assert_non_null(out->b);
        }
        blk.data = NULL;
        out->b[out->n++] = blk;
    }
    avk_file_reader_free(fr);
}

/* The index lists exactly the blocks next_block gives. */
static void check_index_blocks(const avk_file_index *idx, const blocks *bl, uint64_t header)
{
    size_t i;
    uint64_t first = 0;
    assert_int_equal(avk_file_index_block_count(idx), bl->n);
    assert_int_equal(avk_file_index_header_size(idx), header);
    for (i = 0; i < bl->n; i++) {
        const avk_file_index_entry *e = avk_file_index_block(idx, i);
        assert_non_null(e);
        assert_int_equal(e->offset, bl->b[i].offset);
        assert_int_equal(e->count, (uint64_t)bl->b[i].count);
        assert_int_equal(e->size, bl->b[i].size);
        assert_int_equal(e->end, bl->b[i].end);
        assert_int_equal(e->first, first);
        first += e->count;
    }
    assert_null(avk_file_index_block(idx, bl->n));
    assert_int_equal(avk_file_index_records(idx), first);
    assert_int_equal(avk_file_index_file_size(idx), bl->n ? bl->b[bl->n - 1].end : header);
}

/* Same status, place and (unless the marker is cut, where the reader
 * speaks of records already read) message. */
static void check_same_error(avk_status got, const avk_error *ge, avk_status want,
                             const avk_error *we, const char *what)
{
    if (got != want)
        fail_msg("%s: index %s (%s), reading %s (%s)", what, avk_status_name(got), ge->message,
                 avk_status_name(want), we->message);
    if (ge->offset != we->offset || ge->block != we->block)
        fail_msg("%s: index error at %llu block %lld, reading at %llu block %lld (%s)", what,
                 (unsigned long long)ge->offset, (long long)ge->block,
                 (unsigned long long)we->offset, (long long)we->block, ge->message);
    if (!strstr(we->message, "before the block's sync marker") &&
        strcmp(ge->message, we->message) != 0)
        fail_msg("%s: index says '%s', reading '%s'", what, ge->message, we->message);
}

/* ---- seeking ----------------------------------------------------------------- */

/* Seeks fr to n and checks the record there (and the one after) against
 * reading in order. */
static void seek_check(avk_file_reader *fr, const avk_file_index *idx, const seq *s, uint64_t n,
                       avk_arena *arena, const char *what)
{
    avk_error err;
    avk_value v;
    int more = 7;
    char *j;
    if (avk_file_reader_seek_record(fr, idx, n, &err) != AVK_OK)
        fail_msg("%s: seek_record(%llu): %s", what, (unsigned long long)n, err.message);
    AVKT_OK(avk_file_reader_next(fr, arena, &v, &more, &err));
    if (n == s->n) {
        assert_int_equal(more, 0);
        return;
    }
    assert_int_equal(more, 1);
    j = json_of(&v);
    if (strcmp(j, s->json[n]) != 0)
        fail_msg("%s: record %llu after seek_record is %s, in order %s", what,
                 (unsigned long long)n, j, s->json[n]);
    free(j);
    avk_arena_reset(arena);
    if (n + 1 < s->n) {
        AVKT_OK(avk_file_reader_next(fr, arena, &v, &more, &err));
        assert_int_equal(more, 1);
        j = json_of(&v);
        if (strcmp(j, s->json[n + 1]) != 0)
            fail_msg("%s: record %llu after seek_record(%llu)", what,
                     (unsigned long long)(n + 1), (unsigned long long)n);
        free(j);
        avk_arena_reset(arena);
    }
}

/* Seeks to the first and last records, around block boundaries (up to 40
 * blocks spread over the file), and to random records; then the end and
 * past it. */
static void seek_all(avk_file_reader *fr, const avk_file_index *idx, const seq *s,
                     const char *what)
{
    avk_arena *arena = NULL;
    avk_error err;
    avkt_rng rng = {42};
    size_t nb = avk_file_index_block_count(idx), i, step = nb > 40 ? nb / 40 : 1;
    int k;
    AVKT_OK(avk_arena_new(NULL, &arena, NULL));
    assert_int_equal(avk_file_index_records(idx), s->n);
    if (s->n) {
        seek_check(fr, idx, s, 0, arena, what);
        seek_check(fr, idx, s, s->n - 1, arena, what);
        seek_check(fr, idx, s, s->n / 2, arena, what);
    }
    for (i = 0; i < nb; i += step) {
        const avk_file_index_entry *e = avk_file_index_block(idx, i);
        if (e->first > 0)
            seek_check(fr, idx, s, e->first - 1, arena, what);
        if (e->count > 0) {
            seek_check(fr, idx, s, e->first, arena, what);
            seek_check(fr, idx, s, e->first + e->count - 1, arena, what);
        }
        if (e->count > 1)
            seek_check(fr, idx, s, e->first + 1, arena, what);
    }
    for (k = 0; k < 30 && s->n; k++)
        seek_check(fr, idx, s, avkt_below(&rng, s->n), arena, what);
    seek_check(fr, idx, s, s->n, arena, what);
    AVKT_ASSERT_STATUS(avk_file_reader_seek_record(fr, idx, s->n + 1, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "past the end"));
    /* After a refused seek the reader still seeks. */
    if (s->n)
        seek_check(fr, idx, s, 0, arena, what);
    avk_arena_free(arena);
}

/* The whole check of one file's bytes: the index from memory and from a
 * file equals next_block's blocks (or fails as it does), and seeks through
 * readers on memory, a stream, a mapping and read-ahead threads land on
 * the records reading in order gives. */
static void check_file(const uint8_t *data, size_t len, const char *what, int seeks)
{
    avk_file_reader_options o = ropts();
    blocks bl;
    seq s;
    avk_file_index *idx = NULL, *idx2 = NULL;
    avk_file_reader *fr = NULL;
    avk_error err, err2;
    avk_status st, st2;
    char path[128];
    tmp_name(path, sizeof path, "check.avro");
    write_whole(path, data, len);
    blocks_read(data, len, &o, &bl, NULL);
    st = avk_file_index_build_memory(data, len, NULL, &idx, &err);
    st2 = avk_file_index_build_path(path, NULL, &idx2, &err2);
    if (bl.status != AVK_OK) {
        blocks bp;
        blocks_read(NULL, 0, &o, &bp, path);
        check_same_error(st, &err, bl.status, &bl.err, what);
        check_same_error(st2, &err2, bp.status, &bp.err, what);
        assert_null(idx);
        assert_null(idx2);
        free(bl.b);
        free(bp.b);
        return;
    }
    if (st != AVK_OK || st2 != AVK_OK)
        fail_msg("%s: reading gives every block but the index fails: %s", what,
                 st != AVK_OK ? err.message : err2.message);
    AVKT_OK(avk_file_reader_open_memory(data, len, NULL, &fr, NULL));
    check_index_blocks(idx, &bl, avk_file_reader_header_size(fr));
    check_index_blocks(idx2, &bl, avk_file_reader_header_size(fr));
    assert_memory_equal(avk_file_index_sync(idx), avk_file_reader_sync(fr), 16);
    assert_int_equal(avk_file_index_mtime_ns(idx), 0);
    assert_true(avk_file_index_mtime_ns(idx2) != 0);
    seq_read(data, len, &s);
    /* Reading gave every block: records end cleanly or fail inside one. */
    if (s.status == AVK_OK)
        assert_int_equal(avk_file_index_records(idx), s.n);
    if (seeks && s.status == AVK_OK) {
        unsigned variant;
        seek_all(fr, idx, &s, what);
        avk_file_reader_free(fr);
        fr = NULL;
        /* A stream, a mapping, read-ahead threads. */
        for (variant = 0; variant < 3; variant++) {
            avk_file_reader_options vo = ropts();
            if (variant == 1)
                vo.flags = AVK_FILE_MAP;
            if (variant == 2)
                vo.threads = 3;
            AVKT_OK(avk_file_reader_open_path(path, &vo, &fr, NULL));
            seek_all(fr, idx2, &s, what);
            avk_file_reader_free(fr);
            fr = NULL;
        }
    }
    avk_file_reader_free(fr);
    seq_free(&s);
    avk_file_index_free(idx);
    avk_file_index_free(idx2);
    free(bl.b);
}

/* ---- the apache files ---------------------------------------------------- */

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static void walk(const char *dir, int *files)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    if (!d)
        return;
    while ((e = readdir(d)) != NULL) {
        char full[4096];
        struct stat st;
        if (e->d_name[0] == '.' || strcmp(e->d_name, "expected") == 0)
            continue;
        snprintf(full, sizeof full, "%s/%s", dir, e->d_name);
        if (stat(full, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            walk(full, files);
        } else if (S_ISREG(st.st_mode) && ends_with(e->d_name, ".avro")) {
            size_t len;
            char *data = avkt_read_file(full, &len);
            avk_file_reader *fr = NULL;
            avk_file_index *idx = NULL;
            avk_error err, ierr;
            avk_status st1, st2;
            assert_non_null(data);
            /* Files that are not container files (RPC messages) fail to
             * open: the index fails the same way. */
            st1 = avk_file_reader_open_memory(data, len, NULL, &fr, &err);
            if (st1 != AVK_OK) {
                st2 = avk_file_index_build_memory(data, len, NULL, &idx, &ierr);
                AVKT_ASSERT_STATUS(st2, st1);
                assert_string_equal(ierr.message, err.message);
                assert_null(idx);
            } else {
                avk_file_reader_free(fr);
                check_file((const uint8_t *)data, len, full, 1);
                (*files)++;
            }
            free(data);
        }
    }
    closedir(d);
}

static void test_interop(void **state)
{
    char dir[1024];
    int files = 0;
    (void)state;
    if (!avkt_interop_available(AVK_INTEROP_DIR, "share/test/data/weather.avro"))
        skip();
    snprintf(dir, sizeof dir, "%s/apache", AVK_INTEROP_DIR);
    walk(dir, &files);
    print_message("%d apache container files indexed\n", files);
    assert_true(files >= 15);
}

/* ---- generated files ---------------------------------------------------------- */

static void test_every_codec(void **state)
{
    static const uint64_t block_records[] = {1, 7, 100, 0};
    size_t c, b;
    (void)state;
    for (c = 0; c < N_CODECS; c++) {
        for (b = 0; b < sizeof block_records / sizeof block_records[0]; b++) {
            avk_file_writer_options o = wopts(all_codecs[c], block_records[b], NULL);
            bb f = {0};
            char what[96];
            /* 0 records a block means cut at 64 KiB: about 80 blocks of
             * 2,500 records; 1 a block: 3,001 blocks. */
            int n = block_records[b] == 0 ? 200000 : block_records[b] == 1 ? 3001 : 5003;
            if (all_codecs[c] == AVK_CODEC_XZ || all_codecs[c] == AVK_CODEC_BZIP2)
                n /= 4; /* slow codecs, same shapes */
            gen_file(REC_SCHEMA, &o, 0, n, &f);
            snprintf(what, sizeof what, "%s, %llu records a block", avk_codec_name(all_codecs[c]),
                     (unsigned long long)block_records[b]);
            check_file(f.p, f.len, what, 1);
            bb_free(&f);
        }
    }
}

/* Records of zero bytes: counts bounded by max_empty_items alone. */
static void test_zero_byte_records(void **state)
{
    size_t c;
    (void)state;
    for (c = 0; c < 2; c++) {
        avk_file_writer_options o = wopts(all_codecs[c], 1000, NULL);
        bb f = {0};
        gen_file("'null'", &o, 0, 5500, &f);
        check_file(f.p, f.len, "null records", 1);
        bb_free(&f);
    }
}

/* Blocks of 0 records hold no record: find skips them; a file of no blocks. */
static void test_empty_blocks(void **state)
{
    bb f, rec = {0};
    avk_file_index *idx = NULL;
    size_t i;
    int k;
    (void)state;
    gen_header(REC_SCHEMA, AVK_CODEC_NULL, SYNC, &f);
    check_file(f.p, f.len, "no blocks", 1);
    AVKT_OK(avk_file_index_build_memory(f.p, f.len, NULL, &idx, NULL));
    assert_int_equal(avk_file_index_block_count(idx), 0);
    assert_int_equal(avk_file_index_records(idx), 0);
    assert_int_equal(avk_file_index_find(idx, 0), 0);
    assert_int_equal(avk_file_index_file_size(idx), f.len);
    avk_file_index_free(idx);
    /* 0, 2, 0, 0, 3, 0 records. */
    put_block(&f, 0, 0, NULL, 0, NULL);
    for (k = 0; k < 2; k++)
        encode_record(&rec, k);
    put_block(&f, 2, (int64_t)rec.len, rec.p, rec.len, NULL);
    put_block(&f, 0, 0, NULL, 0, NULL);
    put_block(&f, 0, 0, NULL, 0, NULL);
    rec.len = 0;
    for (k = 2; k < 5; k++)
        encode_record(&rec, k);
    put_block(&f, 3, (int64_t)rec.len, rec.p, rec.len, NULL);
    put_block(&f, 0, 0, NULL, 0, NULL);
    check_file(f.p, f.len, "empty blocks", 1);
    AVKT_OK(avk_file_index_build_memory(f.p, f.len, NULL, &idx, NULL));
    assert_int_equal(avk_file_index_block_count(idx), 6);
    assert_int_equal(avk_file_index_records(idx), 5);
    {
        static const size_t want[] = {1, 1, 4, 4, 4};
        for (i = 0; i < 5; i++)
            assert_int_equal(avk_file_index_find(idx, i), want[i]);
    }
    assert_int_equal(avk_file_index_find(idx, 5), 6);
    assert_int_equal(avk_file_index_find(idx, UINT64_MAX), 6);
    avk_file_index_free(idx);
    bb_free(&f);
    bb_free(&rec);
}

/* ---- damage ---------------------------------------------------------------------- */

/* The index of data fails exactly as next_block does (opts may be NULL). */
static void expect_fails_as_reading(const bb *f, const avk_file_reader_options *o, avk_status want,
                                    const char *what)
{
    blocks bl, bp;
    avk_file_index *idx = NULL;
    avk_error err;
    avk_status st;
    char path[128];
    blocks_read(f->p, f->len, o, &bl, NULL);
    AVKT_ASSERT_STATUS(bl.status, want);
    st = avk_file_index_build_memory(f->p, f->len, o, &idx, &err);
    check_same_error(st, &err, bl.status, &bl.err, what);
    assert_null(idx);
    tmp_name(path, sizeof path, "damaged.avro");
    write_whole(path, f->p, f->len);
    blocks_read(NULL, 0, o, &bp, path);
    AVKT_ASSERT_STATUS(bp.status, want);
    st = avk_file_index_build_path(path, o, &idx, &err);
    check_same_error(st, &err, bp.status, &bp.err, what);
    assert_null(idx);
    free(bl.b);
    free(bp.b);
}

static void test_every_prefix(void **state)
{
    size_t c, cut;
    (void)state;
    for (c = 0; c < 2; c++) {
        avk_file_writer_options o = wopts(all_codecs[c], 3, SYNC);
        bb f = {0};
        gen_file(REC_SCHEMA, &o, 0, 12, &f);
        for (cut = 0; cut <= f.len; cut++) {
            char what[64];
            snprintf(what, sizeof what, "%s cut at %zu of %zu", avk_codec_name(all_codecs[c]),
                     cut, f.len);
            check_file(f.p, cut, what, 0);
        }
        bb_free(&f);
    }
}

static void test_damaged_blocks(void **state)
{
    bb h, f, rec = {0};
    uint8_t bad_sync[16];
    avk_file_reader_options o;
    int k;
    (void)state;
    for (k = 0; k < 3; k++)
        encode_record(&rec, k + 40);
    gen_header(REC_SCHEMA, AVK_CODEC_NULL, SYNC, &h);
#define FRESH() (f = (bb){0}, bb_put(&f, h.p, h.len), \
                 put_block(&f, 3, (int64_t)rec.len, rec.p, rec.len, NULL))
    /* A bad marker after a good block. */
    memcpy(bad_sync, SYNC, 16);
    bad_sync[7] ^= 0x40;
    FRESH();
    put_block(&f, 3, (int64_t)rec.len, rec.p, rec.len, bad_sync);
    expect_fails_as_reading(&f, NULL, AVK_ERR_SYNC, "bad sync");
    bb_free(&f);
    /* Negative count and size. */
    FRESH();
    put_block(&f, -1, (int64_t)rec.len, rec.p, rec.len, NULL);
    expect_fails_as_reading(&f, NULL, AVK_ERR_MALFORMED, "negative count");
    bb_free(&f);
    FRESH();
    put_block(&f, INT64_MIN, (int64_t)rec.len, rec.p, rec.len, NULL);
    expect_fails_as_reading(&f, NULL, AVK_ERR_MALFORMED, "count INT64_MIN");
    bb_free(&f);
    FRESH();
    put_block(&f, 3, -5, rec.p, rec.len, NULL);
    expect_fails_as_reading(&f, NULL, AVK_ERR_MALFORMED, "negative size");
    bb_free(&f);
    /* A count that lies: more records than the bytes can hold. */
    FRESH();
    put_block(&f, (int64_t)1 << 62, 1, "x", 1, NULL);
    expect_fails_as_reading(&f, NULL, AVK_ERR_MALFORMED, "lying count");
    bb_free(&f);
    /* A size larger than the file, and above the limit. */
    FRESH();
    put_block(&f, 3, 1000, rec.p, rec.len, NULL);
    expect_fails_as_reading(&f, NULL, AVK_ERR_TRUNCATED, "size past the end");
    bb_free(&f);
    FRESH();
    put_block(&f, 3, INT64_MAX, rec.p, rec.len, NULL);
    expect_fails_as_reading(&f, NULL, AVK_ERR_LIMIT, "huge size");
    bb_free(&f);
    /* The reader's default max_block_bytes (1 GiB) is the index's. */
    FRESH();
    put_block(&f, 3, ((int64_t)1 << 30) + 1, rec.p, rec.len, NULL);
    expect_fails_as_reading(&f, NULL, AVK_ERR_LIMIT, "1 GiB + 1");
    bb_free(&f);
    FRESH();
    put_block(&f, 3, (int64_t)1 << 30, rec.p, rec.len, NULL);
    expect_fails_as_reading(&f, NULL, AVK_ERR_TRUNCATED, "1 GiB");
    bb_free(&f);
    /* A set limit. */
    o = ropts();
    o.max_block_bytes = 4;
    FRESH();
    expect_fails_as_reading(&f, &o, AVK_ERR_LIMIT, "max_block_bytes");
    bb_free(&f);
    /* A varint of 11 bytes, and one cut by the end. */
    FRESH();
    bb_put(&f, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11);
    expect_fails_as_reading(&f, NULL, AVK_ERR_MALFORMED, "11-byte count");
    bb_free(&f);
    FRESH();
    bb_put(&f, "\x06\xff\xff", 3);
    expect_fails_as_reading(&f, NULL, AVK_ERR_TRUNCATED, "size cut");
    bb_free(&f);
    /* A marker cut short after whole data. */
    FRESH();
    bb_long(&f, 3);
    bb_long(&f, (int64_t)rec.len);
    bb_put(&f, rec.p, rec.len);
    bb_put(&f, SYNC, 9);
    expect_fails_as_reading(&f, NULL, AVK_ERR_TRUNCATED, "marker cut");
    bb_free(&f);
    /* ... after a count that lies: the count is checked first, as
     * next_block hands the block out before the cut. */
    FRESH();
    bb_long(&f, (int64_t)1 << 40);
    bb_long(&f, 1);
    bb_put(&f, "x", 1);
    bb_put(&f, SYNC, 9);
    expect_fails_as_reading(&f, NULL, AVK_ERR_MALFORMED, "marker cut after a lying count");
    bb_free(&f);
#undef FRESH
    bb_free(&h);
    bb_free(&rec);
}

/* Compressed blocks and zero-byte records: the count checks of next_block. */
static void test_count_limits(void **state)
{
    bb h, f;
    avk_file_reader_options o;
    (void)state;
    /* deflate: count times the smallest record (2 bytes) above max_block_data. */
    gen_header(REC_SCHEMA, AVK_CODEC_DEFLATE, SYNC, &h);
    f = (bb){0};
    bb_put(&f, h.p, h.len);
    put_block(&f, (int64_t)1 << 40, 1, "x", 1, NULL);
    expect_fails_as_reading(&f, NULL, AVK_ERR_LIMIT, "deflate count");
    bb_free(&f);
    o = ropts();
    o.max_block_data = 100;
    f = (bb){0};
    bb_put(&f, h.p, h.len);
    put_block(&f, 51, 1, "x", 1, NULL);
    expect_fails_as_reading(&f, &o, AVK_ERR_LIMIT, "deflate count, max_block_data");
    bb_free(&f);
    bb_free(&h);
    /* Records of zero bytes: max_empty_items. */
    gen_header("'null'", AVK_CODEC_NULL, SYNC, &h);
    f = (bb){0};
    bb_put(&f, h.p, h.len);
    put_block(&f, 2000000, 0, NULL, 0, NULL);
    expect_fails_as_reading(&f, NULL, AVK_ERR_LIMIT, "zero-byte records");
    bb_free(&f);
    o = ropts();
    o.limits.max_empty_items = 10;
    f = (bb){0};
    bb_put(&f, h.p, h.len);
    put_block(&f, 10, 0, NULL, 0, NULL);
    put_block(&f, 11, 0, NULL, 0, NULL);
    expect_fails_as_reading(&f, &o, AVK_ERR_LIMIT, "zero-byte records, max_empty_items");
    bb_free(&f);
    bb_free(&h);
}

/* ---- sidecars ---------------------------------------------------------------------- */

static void same_index(const avk_file_index *a, const avk_file_index *b)
{
    size_t i;
    assert_int_equal(avk_file_index_block_count(a), avk_file_index_block_count(b));
    assert_int_equal(avk_file_index_records(a), avk_file_index_records(b));
    assert_int_equal(avk_file_index_header_size(a), avk_file_index_header_size(b));
    assert_int_equal(avk_file_index_file_size(a), avk_file_index_file_size(b));
    assert_memory_equal(avk_file_index_sync(a), avk_file_index_sync(b), 16);
    for (i = 0; i < avk_file_index_block_count(a); i++)
        assert_memory_equal(avk_file_index_block(a, i), avk_file_index_block(b, i),
                            sizeof(avk_file_index_entry));
}

static void test_sidecar_round_trip(void **state)
{
    avk_file_writer_options o = wopts(AVK_CODEC_SNAPPY, 11, NULL);
    avk_file_index *idx = NULL, *back = NULL;
    bb f = {0};
    char path[128], side[160];
    struct stat st;
    (void)state;
    gen_file(REC_SCHEMA, &o, 0, 2000, &f);
    tmp_name(path, sizeof path, "rt.avro");
    write_whole(path, f.p, f.len);
    AVKT_OK(avk_file_index_build_path(path, NULL, &idx, NULL));
    assert_int_equal(avk_file_index_sidecar_name(path, side, sizeof side),
                     strlen(path) + strlen(".avkidx"));
    assert_true(ends_with(side, ".avkidx"));
    assert_int_equal(avk_file_index_sidecar_name(path, side, 4), strlen(path) + 7);
    assert_int_equal(strlen(side), 3);
    avk_file_index_sidecar_name(path, side, sizeof side);
    AVKT_OK(avk_file_index_save(idx, side, NULL));
    AVKT_OK(avk_file_index_load(side, NULL, &back, NULL));
    same_index(idx, back);
    assert_int_equal(avk_file_index_mtime_ns(back), avk_file_index_mtime_ns(idx));
    /* Small: about 5 bytes a block. */
    assert_int_equal(stat(side, &st), 0);
    assert_true((size_t)st.st_size < 80 + 8 * avk_file_index_block_count(idx));
    /* Nothing is left beside it. */
    {
        DIR *d = opendir(g_dir);
        struct dirent *e;
        assert_non_null(d);
        while ((e = readdir(d)) != NULL)
            if (strstr(e->d_name, ".tmp-"))
                fail_msg("a temporary file is left: %s", e->d_name);
        closedir(d);
    }
    avk_file_index_free(back);
    avk_file_index_free(idx);
    unlink(side);
    bb_free(&f);
}

static avk_file_index *open_path(const char *path, unsigned flags, avk_file_index_info *info)
{
    avk_file_index *idx = NULL;
    avk_error err;
    if (avk_file_index_open_path(path, NULL, flags, &idx, info, &err) != AVK_OK)
        fail_msg("open_path %s: %s", path, err.message);
    return idx;
}

/* The index open_path gives equals a fresh build. */
static void same_as_build(const avk_file_index *idx, const char *path)
{
    avk_file_index *fresh = NULL;
    AVKT_OK(avk_file_index_build_path(path, NULL, &fresh, NULL));
    same_index(idx, fresh);
    assert_int_equal(avk_file_index_mtime_ns(idx), avk_file_index_mtime_ns(fresh));
    avk_file_index_free(fresh);
}

static void test_open_path(void **state)
{
    avk_file_writer_options o = wopts(AVK_CODEC_DEFLATE, 10, SYNC);
    avk_file_index *idx;
    avk_file_index_info info;
    avk_file_writer *fw = NULL;
    avk_error err;
    bb f = {0}, g = {0};
    char path[128], side[160];
    struct timespec t0;
    size_t before;
    (void)state;
    tmp_name(path, sizeof path, "open.avro");
    avk_file_index_sidecar_name(path, side, sizeof side);
    unlink(side);
    gen_file(REC_SCHEMA, &o, 0, 505, &f);
    write_whole(path, f.p, f.len);
    set_mtime(path, 1700000000, 123456789);

    /* None: built, saved. */
    idx = open_path(path, AVK_FILE_INDEX_SAVE, &info);
    assert_int_equal(info.sidecar, AVK_FILE_INDEX_SIDECAR_NONE);
    assert_int_equal(info.saved, 1);
    AVKT_OK(info.save_status);
    assert_int_equal(info.reused_blocks, 0);
    assert_int_equal(avk_file_index_mtime_ns(idx), 1700000000123456789LL);
    same_as_build(idx, path);
    avk_file_index_free(idx);

    /* Current: used as it is, not saved again. */
    idx = open_path(path, AVK_FILE_INDEX_SAVE, &info);
    assert_int_equal(info.sidecar, AVK_FILE_INDEX_SIDECAR_CURRENT);
    assert_int_equal(info.saved, 0);
    assert_int_equal(info.reused_blocks, 51);
    same_as_build(idx, path);
    avk_file_index_free(idx);

    /* REBUILD ignores it. */
    idx = open_path(path, 0, &info);
    assert_int_equal(info.sidecar, AVK_FILE_INDEX_SIDECAR_CURRENT);
    avk_file_index_free(idx);
    idx = open_path(path, AVK_FILE_INDEX_REBUILD, &info);
    assert_int_equal(info.sidecar, AVK_FILE_INDEX_SIDECAR_IGNORED);
    assert_int_equal(info.reused_blocks, 0);
    avk_file_index_free(idx);

    /* Rewritten with the same size, another time: stale. */
    set_mtime(path, 1700000001, 0);
    idx = open_path(path, 0, &info);
    assert_int_equal(info.sidecar, AVK_FILE_INDEX_SIDECAR_STALE);
    same_as_build(idx, path);
    avk_file_index_free(idx);
    /* ... saved, then current again. */
    idx = open_path(path, AVK_FILE_INDEX_SAVE, &info);
    assert_int_equal(info.sidecar, AVK_FILE_INDEX_SIDECAR_STALE);
    assert_int_equal(info.saved, 1);
    avk_file_index_free(idx);
    idx = open_path(path, 0, &info);
    assert_int_equal(info.sidecar, AVK_FILE_INDEX_SIDECAR_CURRENT);
    avk_file_index_free(idx);

    /* Another sync marker, same size and time: the one read finds it. */
    get_mtime(path, &t0);
    o.sync = SYNC2;
    gen_file(REC_SCHEMA, &o, 0, 505, &g);
    assert_int_equal(g.len, f.len);
    write_whole(path, g.p, g.len);
    set_mtime(path, t0.tv_sec, t0.tv_nsec);
    idx = open_path(path, AVK_FILE_INDEX_SAVE, &info);
    assert_int_equal(info.sidecar, AVK_FILE_INDEX_SIDECAR_STALE);
    assert_memory_equal(avk_file_index_sync(idx), SYNC2, 16);
    same_as_build(idx, path);
    avk_file_index_free(idx);
    bb_free(&g);

    /* Grown by appending: only the new blocks are read, and the index is a
     * fresh build's. */
    write_whole(path, f.p, f.len);
    idx = open_path(path, AVK_FILE_INDEX_SAVE, &info);
    before = avk_file_index_block_count(idx);
    avk_file_index_free(idx);
    o.sync = NULL;
    o.block_records = 7;
    AVKT_OK(avk_file_writer_append_path(path, &o, &fw, &err));
    {
        avk_arena *a = NULL;
        int i;
        AVKT_OK(avk_arena_new(NULL, &a, NULL));
        for (i = 505; i < 600; i++) {
            bb rec = {0};
            encode_record(&rec, i);
            AVKT_OK(avk_file_writer_append_encoded(fw, rec.p, rec.len, &err));
            bb_free(&rec);
        }
        avk_arena_free(a);
    }
    AVKT_OK(avk_file_writer_close(fw, &err));
    idx = open_path(path, AVK_FILE_INDEX_SAVE, &info);
    assert_int_equal(info.sidecar, AVK_FILE_INDEX_SIDECAR_GREW);
    assert_int_equal(info.reused_blocks, before);
    assert_int_equal(info.saved, 1);
    assert_int_equal(avk_file_index_block_count(idx), before + 14);
    assert_int_equal(avk_file_index_records(idx), 600);
    same_as_build(idx, path);
    avk_file_index_free(idx);
    idx = open_path(path, 0, &info);
    assert_int_equal(info.sidecar, AVK_FILE_INDEX_SIDECAR_CURRENT);
    avk_file_index_free(idx);
    {
        /* The grown index seeks as a fresh one does. */
        size_t len;
        char *data = avkt_read_file(path, &len);
        seq s;
        avk_file_reader *fr = NULL;
        seq_read(data, len, &s);
        AVKT_OK(s.status);
        assert_int_equal(s.n, 600);
        idx = open_path(path, 0, NULL);
        AVKT_OK(avk_file_reader_open_path(path, NULL, &fr, NULL));
        seek_all(fr, idx, &s, "grown");
        avk_file_reader_free(fr);
        avk_file_index_free(idx);
        seq_free(&s);
        free(data);
    }

    /* Rewritten longer with the same marker and header: the sidecar's last
     * block is not there any more, so it is rebuilt, not extended. */
    write_whole(path, f.p, f.len);
    idx = open_path(path, AVK_FILE_INDEX_SAVE | AVK_FILE_INDEX_REBUILD, &info);
    avk_file_index_free(idx);
    o.sync = SYNC;
    o.block_records = 9;
    g = (bb){0};
    gen_file(REC_SCHEMA, &o, 0, 700, &g);
    write_whole(path, g.p, g.len);
    idx = open_path(path, 0, &info);
    assert_int_equal(info.sidecar, AVK_FILE_INDEX_SIDECAR_STALE);
    same_as_build(idx, path);
    avk_file_index_free(idx);
    bb_free(&g);

    /* Grown by bytes that are not a block: the error a build gives. */
    write_whole(path, f.p, f.len);
    idx = open_path(path, AVK_FILE_INDEX_SAVE | AVK_FILE_INDEX_REBUILD, &info);
    avk_file_index_free(idx);
    {
        FILE *fp = fopen(path, "ab");
        avk_error e1, e2;
        avk_file_index *x = NULL;
        assert_non_null(fp);
        fputs("\x06\x40zz", fp);
        fclose(fp);
        AVKT_ASSERT_STATUS(avk_file_index_open_path(path, NULL, 0, &x, &info, &e1),
                           AVK_ERR_TRUNCATED);
        assert_null(x);
        AVKT_ASSERT_STATUS(avk_file_index_build_path(path, NULL, &x, &e2), AVK_ERR_TRUNCATED);
        assert_string_equal(e1.message, e2.message);
        assert_int_equal(e1.block, 51);
    }

    /* A damaged sidecar: read as BAD, rebuilt, replaced. */
    write_whole(path, f.p, f.len);
    write_whole(side, "\x89" "AVKIDX\n\x01\x00", 10);
    idx = open_path(path, AVK_FILE_INDEX_SAVE, &info);
    assert_int_equal(info.sidecar, AVK_FILE_INDEX_SIDECAR_BAD);
    AVKT_ASSERT_STATUS(info.sidecar_error.status, AVK_ERR_TRUNCATED);
    assert_int_equal(info.saved, 1);
    avk_file_index_free(idx);
    idx = open_path(path, 0, &info);
    assert_int_equal(info.sidecar, AVK_FILE_INDEX_SIDECAR_CURRENT);
    avk_file_index_free(idx);

    /* Not files that can be indexed. */
    AVKT_ASSERT_STATUS(avk_file_index_open_path("-", NULL, 0, &idx, NULL, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_file_index_build_path("-", NULL, &idx, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_file_index_open_path(g_dir, NULL, 0, &idx, NULL, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    tmp_name(side, sizeof side, "absent.avro");
    AVKT_ASSERT_STATUS(avk_file_index_open_path(side, NULL, 0, &idx, NULL, &err), AVK_ERR_IO);
    assert_int_equal(err.sys_errno, ENOENT);
    assert_null(idx);
    unlink(path);
    avk_file_index_sidecar_name(path, side, sizeof side);
    unlink(side);
    bb_free(&f);
}

/* Saving that fails leaves the sidecar there as it was and no temporary
 * file; reading still works (root ignores permissions, so the failures are
 * made otherwise: a directory where the sidecar goes, a file size limit). */
static void test_save_failures(void **state)
{
    avk_file_writer_options o = wopts(AVK_CODEC_NULL, 5, SYNC);
    avk_file_index *idx;
    avk_file_index_info info;
    bb f = {0};
    char path[128], side[160];
    size_t len1, len2;
    char *before, *after;
    struct rlimit old, small;
    (void)state;
    tmp_name(path, sizeof path, "save.avro");
    avk_file_index_sidecar_name(path, side, sizeof side);
    gen_file(REC_SCHEMA, &o, 0, 300, &f);
    write_whole(path, f.p, f.len);

    /* A directory in the sidecar's place: the rename fails. */
    assert_int_equal(mkdir(side, 0755), 0);
    idx = open_path(path, AVK_FILE_INDEX_SAVE, &info);
    assert_int_equal(info.saved, 0);
    AVKT_ASSERT_STATUS(info.save_status, AVK_ERR_IO);
    assert_true(info.save_error.sys_errno != 0);
    assert_int_equal(avk_file_index_records(idx), 300);
    avk_file_index_free(idx);
    assert_int_equal(rmdir(side), 0);

    /* A directory that cannot be written (when not root). */
    if (geteuid() != 0) {
        char dir[128], p2[160];
        tmp_name(dir, sizeof dir, "ro");
        assert_int_equal(mkdir(dir, 0755), 0);
        snprintf(p2, sizeof p2, "%s/f.avro", dir);
        write_whole(p2, f.p, f.len);
        assert_int_equal(chmod(dir, 0555), 0);
        idx = open_path(p2, AVK_FILE_INDEX_SAVE, &info);
        assert_int_equal(info.saved, 0);
        assert_int_equal(info.save_error.sys_errno, EACCES);
        avk_file_index_free(idx);
        chmod(dir, 0755);
        unlink(p2);
        rmdir(dir);
    }

    /* An existing sidecar, a write that fails (file size limit): the old
     * sidecar stays byte for byte. */
    idx = open_path(path, AVK_FILE_INDEX_SAVE, &info);
    assert_int_equal(info.saved, 1);
    avk_file_index_free(idx);
    before = avkt_read_file(side, &len1);
    assert_non_null(before);
    set_mtime(path, 1600000000, 5);
    signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    small = old;
    small.rlim_cur = 40;
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
    idx = open_path(path, AVK_FILE_INDEX_SAVE, &info);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, SIG_DFL);
    assert_int_equal(info.sidecar, AVK_FILE_INDEX_SIDECAR_STALE);
    assert_int_equal(info.saved, 0);
    assert_int_equal(info.save_error.sys_errno, EFBIG);
    avk_file_index_free(idx);
    after = avkt_read_file(side, &len2);
    assert_non_null(after);
    avkt_assert_bytes((const uint8_t *)after, len2, (const uint8_t *)before, len1);
    free(before);
    free(after);
    {
        DIR *d = opendir(g_dir);
        struct dirent *e;
        assert_non_null(d);
        while ((e = readdir(d)) != NULL)
            if (strstr(e->d_name, ".tmp-"))
                fail_msg("a temporary file is left: %s", e->d_name);
        closedir(d);
    }
    unlink(side);
    unlink(path);
    bb_free(&f);
}

/* ---- hostile sidecars ---------------------------------------------------------------- */

/* A valid sidecar's bytes (the caller frees). */
static uint8_t *sidecar_bytes(const bb *f, size_t *len)
{
    avk_file_index *idx = NULL;
    char path[128], side[160];
    uint8_t *data;
    tmp_name(path, sizeof path, "hostile.avro");
    write_whole(path, f->p, f->len);
    AVKT_OK(avk_file_index_build_path(path, NULL, &idx, NULL));
    avk_file_index_sidecar_name(path, side, sizeof side);
    AVKT_OK(avk_file_index_save(idx, side, NULL));
    avk_file_index_free(idx);
    data = (uint8_t *)avkt_read_file(side, len);
    assert_non_null(data);
    unlink(side);
    unlink(path);
    return data;
}

static void fix_crc(uint8_t *d, size_t len)
{
    uint32_t c = avki_index_crc32(0, d, len - 4);
    d[len - 4] = (uint8_t)c;
    d[len - 3] = (uint8_t)(c >> 8);
    d[len - 2] = (uint8_t)(c >> 16);
    d[len - 1] = (uint8_t)(c >> 24);
}

static void put64(uint8_t *p, uint64_t v)
{
    int i;
    for (i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void expect_load(const uint8_t *d, size_t len, avk_status want, const char *what)
{
    avk_file_index *idx = (avk_file_index *)(uintptr_t)1;
    avk_error err;
    avk_status st = avk_file_index_load_memory(d, len, NULL, &idx, &err);
    if (st != want)
        fail_msg("%s: %s (%s), expected %s", what, avk_status_name(st),
                 st ? err.message : "", avk_status_name(want));
    if (st == AVK_OK)
        avk_file_index_free(idx);
    else
        assert_null(idx);
}

static void test_hostile_sidecars(void **state)
{
    avk_file_writer_options o = wopts(AVK_CODEC_NULL, 4, SYNC);
    bb f = {0};
    uint8_t *good, *d;
    size_t len, i;
    int bit;
    (void)state;
    gen_file(REC_SCHEMA, &o, 0, 100, &f);
    good = sidecar_bytes(&f, &len);
    d = (uint8_t *)malloc(len + 64);
    assert_non_null(d);
    expect_load(good, len, AVK_OK, "the good one");
    /* Every truncation (exactly the bytes: a read past them is caught by
     * the sanitizer builds). */
    for (i = 0; i < len; i++) {
        uint8_t *cut = (uint8_t *)malloc(i ? i : 1);
        avk_file_index *idx = NULL;
        avk_error err;
        memcpy(cut, good, i);
        if (avk_file_index_load_memory(cut, i, NULL, &idx, &err) == AVK_OK)
            fail_msg("a sidecar cut to %zu of %zu bytes loads", i, len);
        assert_null(idx);
        free(cut);
    }
    /* Every bit flipped: the CRC (or the magic, version, flags) refuses it. */
    for (i = 0; i < len; i++) {
        for (bit = 0; bit < 8; bit++) {
            avk_file_index *idx = NULL;
            memcpy(d, good, len);
            d[i] ^= (uint8_t)(1u << bit);
            if (avk_file_index_load_memory(d, len, NULL, &idx, NULL) == AVK_OK)
                fail_msg("byte %zu bit %d flipped loads", i, bit);
        }
    }
    /* Fields that do not hold together, CRC made right. */
    memcpy(d, good, len);
    d[8] = 2; /* version */
    fix_crc(d, len);
    expect_load(d, len, AVK_ERR_UNSUPPORTED, "version 2");
    memcpy(d, good, len);
    d[12] = 1; /* flags */
    fix_crc(d, len);
    expect_load(d, len, AVK_ERR_UNSUPPORTED, "flags");
    memcpy(d, good, len);
    put64(d + 56, UINT64_MAX); /* block count */
    fix_crc(d, len);
    expect_load(d, len, AVK_ERR_TRUNCATED, "block count huge");
    memcpy(d, good, len);
    put64(d + 56, 3); /* fewer blocks than entries: bytes left over */
    fix_crc(d, len);
    expect_load(d, len, AVK_ERR_MALFORMED, "block count small");
    memcpy(d, good, len);
    put64(d + 64, 99); /* total */
    fix_crc(d, len);
    expect_load(d, len, AVK_ERR_MALFORMED, "total");
    memcpy(d, good, len);
    put64(d + 16, f.len + 1); /* file size */
    fix_crc(d, len);
    expect_load(d, len, AVK_ERR_MALFORMED, "file size");
    memcpy(d, good, len);
    put64(d + 16, 10); /* file size below the header */
    fix_crc(d, len);
    expect_load(d, len, AVK_ERR_MALFORMED, "file size below the header");
    memcpy(d, good, len);
    put64(d + 32, 5); /* header size */
    fix_crc(d, len);
    expect_load(d, len, AVK_ERR_MALFORMED, "header size");
    memcpy(d, good, len);
    d[74] = 21; /* the first entry's header length (count 4, size < 128) */
    fix_crc(d, len);
    expect_load(d, len, AVK_ERR_MALFORMED, "header length 21");
    memcpy(d, good, len);
    d[74] = 1;
    fix_crc(d, len);
    expect_load(d, len, AVK_ERR_MALFORMED, "header length 1");
    /* An entry of an 11-byte varint; a count above INT64_MAX. */
    {
        uint8_t *e = (uint8_t *)malloc(len + 16);
        size_t n = 72;
        memcpy(e, good, 72);
        put64(e + 56, 1);
        memcpy(e + n, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11);
        n += 11;
        e[n++] = 1;
        e[n++] = 2;
        n += 4;
        fix_crc(e, n);
        expect_load(e, n, AVK_ERR_MALFORMED, "11-byte varint");
        n = 72;
        memcpy(e + n, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 10);
        n += 10;
        e[n++] = 1;
        e[n++] = 2;
        n += 4;
        fix_crc(e, n);
        expect_load(e, n, AVK_ERR_MALFORMED, "count above INT64_MAX");
        free(e);
    }
    /* Not a sidecar at all. */
    expect_load((const uint8_t *)"", 0, AVK_ERR_MALFORMED, "empty");
    expect_load((const uint8_t *)"Obj\x01", 4, AVK_ERR_MALFORMED, "a container file");
    expect_load(good, 5, AVK_ERR_TRUNCATED, "half a magic");
    {
        avk_file_index *idx;
        AVKT_ASSERT_STATUS(avk_file_index_load_memory(NULL, 5, NULL, &idx, NULL),
                           AVK_ERR_INVALID_ARGUMENT);
    }
    free(d);
    free(good);
    bb_free(&f);
}

/* ---- seeking errors ----------------------------------------------------------------- */

static void test_seek_errors(void **state)
{
    avk_file_writer_options o = wopts(AVK_CODEC_NULL, 10, SYNC);
    avk_file_index *idx = NULL, *other = NULL;
    avk_file_reader *fr = NULL;
    avk_error err;
    bb f = {0}, g = {0};
    int fds[2];
    (void)state;
    gen_file(REC_SCHEMA, &o, 0, 100, &f);
    o.sync = SYNC2;
    gen_file(REC_SCHEMA, &o, 0, 100, &g);
    AVKT_OK(avk_file_index_build_memory(f.p, f.len, NULL, &idx, NULL));
    AVKT_OK(avk_file_index_build_memory(g.p, g.len, NULL, &other, NULL));
    AVKT_OK(avk_file_reader_open_memory(f.p, f.len, NULL, &fr, NULL));
    AVKT_ASSERT_STATUS(avk_file_reader_seek_record(fr, other, 5, &err), AVK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "another file"));
    AVKT_ASSERT_STATUS(avk_file_reader_seek_record(NULL, idx, 5, &err), AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_file_reader_seek_record(fr, NULL, 5, &err), AVK_ERR_INVALID_ARGUMENT);
    AVKT_OK(avk_file_reader_seek_record(fr, idx, 100, &err));
    AVKT_ASSERT_STATUS(avk_file_reader_seek_record(fr, idx, 101, &err), AVK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "record 101 is past the end: the file has 100 records"));
    avk_file_reader_free(fr);

    /* An index whose block claims more records than the file's: the seek
     * says so rather than land on another record. */
    idx->blocks[2].count += 5;
    idx->blocks[3].first += 5;
    AVKT_OK(avk_file_reader_open_memory(f.p, f.len, NULL, &fr, NULL));
    AVKT_ASSERT_STATUS(avk_file_reader_seek_record(fr, idx, 32, &err), AVK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "not of this version of the file"));
    avk_file_reader_free(fr);
    idx->blocks[2].count -= 5;
    idx->blocks[3].first -= 5;
    avk_file_index_free(other);
    other = NULL;

    /* A pipe cannot seek. */
    assert_int_equal(pipe(fds), 0);
    assert_int_equal(write(fds[1], f.p, f.len), (ssize_t)f.len);
    close(fds[1]);
    AVKT_OK(avk_file_reader_open_fd(fds[0], NULL, &fr, NULL));
    AVKT_ASSERT_STATUS(avk_file_reader_seek_record(fr, idx, 5, &err), AVK_ERR_INVALID_ARGUMENT);
    avk_file_reader_free(fr);
    close(fds[0]);
    /* Nor can a pipe be indexed. */
    assert_int_equal(pipe(fds), 0);
    close(fds[1]);
    AVKT_ASSERT_STATUS(avk_file_index_build_fd(fds[0], NULL, &other, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    close(fds[0]);
    AVKT_ASSERT_STATUS(avk_file_index_build_fd(-1, NULL, &other, &err), AVK_ERR_INVALID_ARGUMENT);
    assert_null(other);
    avk_file_index_free(idx);
    bb_free(&f);
    bb_free(&g);
}

/* A container file that starts after other bytes of its file: offsets
 * are file offsets, for the index as for the reader. */
static void test_fd_at_offset(void **state)
{
    avk_file_writer_options o = wopts(AVK_CODEC_ZSTANDARD, 13, NULL);
    avk_file_index *idx = NULL;
    avk_file_reader *fr = NULL;
    bb f = {0};
    seq s;
    char path[128];
    int fd;
    (void)state;
    bb_put(&f, "some other bytes first", 22);
    gen_file(REC_SCHEMA, &o, 0, 400, &f);
    tmp_name(path, sizeof path, "offset.avro");
    write_whole(path, f.p, f.len);
    seq_read(f.p + 22, f.len - 22, &s);
    fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    assert_int_equal(lseek(fd, 22, SEEK_SET), 22);
    AVKT_OK(avk_file_index_build_fd(fd, NULL, &idx, NULL));
    assert_int_equal(avk_file_index_block(idx, 0)->offset, avk_file_index_header_size(idx));
    assert_int_equal(avk_file_index_file_size(idx), f.len);
    assert_int_equal(lseek(fd, 22, SEEK_SET), 22);
    AVKT_OK(avk_file_reader_open_fd(fd, NULL, &fr, NULL));
    assert_int_equal(avk_file_reader_header_size(fr), avk_file_index_header_size(idx));
    seek_all(fr, idx, &s, "at offset 22");
    avk_file_reader_free(fr);
    close(fd);
    avk_file_index_free(idx);
    seq_free(&s);
    unlink(path);
    bb_free(&f);
}

/* ---- allocation failures --------------------------------------------------------------- */

static void test_failing_allocator(void **state)
{
    avk_file_writer_options o = wopts(AVK_CODEC_DEFLATE, 3, SYNC);
    avkt_failalloc fa;
    bb f = {0};
    char path[128], side[160];
    uint8_t *sidecar;
    size_t slen;
    long n;
    int done;
    (void)state;
    gen_file(REC_SCHEMA, &o, 0, 600, &f); /* 200 blocks: the entries grow */
    tmp_name(path, sizeof path, "alloc.avro");
    write_whole(path, f.p, f.len);
    avk_file_index_sidecar_name(path, side, sizeof side);
    sidecar = sidecar_bytes(&f, &slen);
    write_whole(path, f.p, f.len);
    for (n = 1, done = 0; !done; n++) {
        avk_file_reader_options ro = ropts();
        avk_file_index *idx = NULL, *back = NULL;
        avk_status st;
        avkt_failalloc_init(&fa, n);
        ro.allocator = &fa.allocator;
        st = avk_file_index_build_memory(f.p, f.len, &ro, &idx, NULL);
        if (st == AVK_OK) { /* from a file: small blocks are read in runs */
            avk_file_index_free(idx);
            idx = NULL;
            st = avk_file_index_build_path(path, &ro, &idx, NULL);
        }
        if (st == AVK_OK) {
            st = avk_file_index_save(idx, side, NULL);
            if (st == AVK_OK)
                st = avk_file_index_load(side, &fa.allocator, &back, NULL);
            done = st == AVK_OK;
        }
        if (st != AVK_OK)
            AVKT_ASSERT_STATUS(st, AVK_ERR_NO_MEMORY);
        avk_file_index_free(back);
        avk_file_index_free(idx);
        assert_int_equal(fa.live_blocks, 0);
        assert_int_equal(fa.size_mismatches, 0);
        assert_int_equal(fa.bad_frees, 0);
        assert_true(n < 10000);
    }
    print_message("build, save and load: %ld allocations failed in turn\n", n - 1);
    /* open_path: a current sidecar, then a rebuild with saving. */
    for (n = 1, done = 0; !done; n++) {
        avk_file_reader_options ro = ropts();
        avk_file_index *idx = NULL;
        avk_file_index_info info;
        avk_status st;
        avkt_failalloc_init(&fa, n);
        ro.allocator = &fa.allocator;
        st = avk_file_index_open_path(path, &ro, AVK_FILE_INDEX_SAVE | AVK_FILE_INDEX_REBUILD,
                                      &idx, &info, NULL);
        if (st == AVK_OK) {
            avk_file_index_free(idx);
            idx = NULL;
            st = avk_file_index_open_path(path, &ro, 0, &idx, &info, NULL);
            done = st == AVK_OK && info.sidecar == AVK_FILE_INDEX_SIDECAR_CURRENT;
        }
        if (st != AVK_OK)
            AVKT_ASSERT_STATUS(st, AVK_ERR_NO_MEMORY);
        avk_file_index_free(idx);
        assert_int_equal(fa.live_blocks, 0);
        assert_true(n < 10000);
    }
    for (n = 1, done = 0; !done; n++) {
        avk_file_index *idx = NULL;
        avk_status st;
        avkt_failalloc_init(&fa, n);
        st = avk_file_index_load_memory(sidecar, slen, &fa.allocator, &idx, NULL);
        done = st == AVK_OK;
        if (!done)
            AVKT_ASSERT_STATUS(st, AVK_ERR_NO_MEMORY);
        avk_file_index_free(idx);
        assert_int_equal(fa.live_blocks, 0);
    }
    unlink(side);
    unlink(path);
    free(sidecar);
    bb_free(&f);
}

/* ---- setup ------------------------------------------------------------------------- */

static int make_dir(void **state)
{
    (void)state;
    snprintf(g_dir, sizeof g_dir, "/tmp/avk_file_index_test_XXXXXX");
    return mkdtemp(g_dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
    char cmd[128];
    (void)state;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(avkt_test_kernel_choice),
        cmocka_unit_test(test_interop),
        cmocka_unit_test(test_every_codec),
        cmocka_unit_test(test_zero_byte_records),
        cmocka_unit_test(test_empty_blocks),
        cmocka_unit_test(test_every_prefix),
        cmocka_unit_test(test_damaged_blocks),
        cmocka_unit_test(test_count_limits),
        cmocka_unit_test(test_sidecar_round_trip),
        cmocka_unit_test(test_open_path),
        cmocka_unit_test(test_save_failures),
        cmocka_unit_test(test_hostile_sidecars),
        cmocka_unit_test(test_seek_errors),
        cmocka_unit_test(test_fd_at_offset),
        cmocka_unit_test(test_failing_allocator),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
