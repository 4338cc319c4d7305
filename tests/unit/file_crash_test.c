/* Durability under SIGKILL: writers killed at random moments, over and over; what flush or fsync promised is read back, a torn tail reads as truncation, append refuses or cuts it. */
#define _GNU_SOURCE /* usleep, mkdtemp */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>

#include "avrokit/avrokit.h"

/* 1,000 kills by default (the floor); AVKT_CRASH_RUNS changes it. */
#define DEFAULT_RUNS 1000

static const char schema_json[] =
    "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"i\",\"type\":\"long\"},"
    "{\"name\":\"pad\",\"type\":\"string\"}]}";

/* Record i: its number and a string whose length and letters follow from
 * it, so every record read back can be checked exactly. */
static size_t pad_of(uint64_t i, char *pad)
{
    size_t n = (size_t)(i * 7 % 61) + 10, k;
    for (k = 0; k < n; k++)
        pad[k] = (char)('a' + (i + k) % 26);
    return n;
}

static size_t put_varint(uint8_t *p, uint64_t zz)
{
    size_t n = 0;
    while (zz >= 0x80) {
        p[n++] = (uint8_t)(zz | 0x80);
        zz >>= 7;
    }
    p[n++] = (uint8_t)zz;
    return n;
}

static size_t encode(uint64_t i, uint8_t *out)
{
    char pad[80];
    size_t n = pad_of(i, pad), len = 0;
    len += put_varint(out + len, i << 1); /* zigzag of a non-negative long */
    len += put_varint(out + len, (uint64_t)n << 1);
    memcpy(out + len, pad, n);
    return len + n;
}

typedef struct run_plan {
    int append;          /* to the file as it is, else a new file */
    avk_codec codec;
    size_t block_bytes;
    unsigned sync_every; /* records between two syncs */
    int use_fsync;       /* fsync, else flush */
    unsigned threads;
} run_plan;

/* Sent once the file is open: the parent starts its clock then, so kills
 * land in the writing on slow machines too (emulators, sanitizers). */
#define OPENED UINT64_MAX

/* The child: writes records from `from` on until killed, and after every
 * sync that returned AVK_OK tells the parent how many records it covers.
 * It never stops on its own (its cap only guards against a lost kill). */
static void child(const char *path, uint64_t from, const run_plan *rp, int ack)
{
    avk_file_writer_options o;
    avk_file_writer *fw = NULL;
    avk_schema *schema = NULL;
    avk_error err;
    uint8_t datum[128];
    uint64_t i;
    avk_file_writer_options_init(&o);
    o.codec = rp->codec;
    o.block_bytes = rp->block_bytes;
    o.threads = rp->threads;
    if (rp->append) {
        if (avk_file_writer_append_path(path, &o, &fw, &err) != AVK_OK)
            _exit(3);
    } else {
        if (avk_schema_parse(schema_json, sizeof schema_json - 1, NULL, &schema, &err) != AVK_OK ||
            avk_file_writer_open_path(path, schema, &o, &fw, &err) != AVK_OK)
            _exit(3);
    }
    i = OPENED;
    if (write(ack, &i, sizeof i) != (ssize_t)sizeof i)
        _exit(6);
    for (i = from; i < from + 5000000; i++) {
        if (avk_file_writer_append_encoded(fw, datum, encode(i, datum), &err) != AVK_OK)
            _exit(4);
        if ((i + 1 - from) % rp->sync_every == 0) {
            avk_status st = rp->use_fsync ? avk_file_writer_fsync(fw, &err)
                                          : avk_file_writer_flush(fw, &err);
            uint64_t n = i + 1;
            if (st != AVK_OK)
                _exit(5);
            if (write(ack, &n, sizeof n) != (ssize_t)sizeof n)
                _exit(6);
        }
    }
    pause();
    _exit(7);
}

/* What a reader makes of the file after a kill: how many records, all
 * checked exactly, and how the reading ended. */
typedef struct read_result {
    int opened;
    uint64_t records;
    avk_status end;   /* AVK_OK: clean end */
    uint64_t end_offset;
} read_result;

static read_result read_back(const char *path)
{
    read_result r = {0, 0, AVK_OK, 0};
    avk_file_reader *fr;
    avk_arena *arena;
    avk_value v;
    avk_error err;
    int more = 1;
    char pad[80];
    assert_int_equal(avk_arena_new(NULL, &arena, &err), AVK_OK);
    if (avk_file_reader_open_path(path, NULL, &fr, &err) != AVK_OK) {
        r.end = err.status;
        avk_arena_free(arena);
        return r;
    }
    r.opened = 1;
    for (;;) {
        avk_status st = avk_file_reader_next(fr, arena, &v, &more, &err);
        if (st != AVK_OK) {
            r.end = st;
            r.end_offset = err.offset;
            break;
        }
        if (!more)
            break;
        {
            size_t n = pad_of(r.records, pad);
            assert_int_equal(v.u.fields[0].u.l, (int64_t)r.records);
            assert_int_equal(v.u.fields[1].u.bytes.len, n);
            assert_memory_equal(v.u.fields[1].u.bytes.data, pad, n);
        }
        r.records++;
        avk_arena_reset(arena);
    }
    avk_file_reader_free(fr);
    avk_arena_free(arena);
    return r;
}

static uint64_t file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
}

/* Under valgrind (its preload library in LD_PRELOAD) every run is some
 * fifty times slower: 50 kills there, for the leak check. */
static unsigned runs(void)
{
    const char *e = getenv("AVKT_CRASH_RUNS"), *pre = getenv("LD_PRELOAD");
    if (e && atoi(e) > 0)
        return (unsigned)atoi(e);
    return pre && strstr(pre, "vgpreload") ? 50 : DEFAULT_RUNS;
}

/* A torn tail: append without the flag refuses and changes nothing; with
 * it the tail goes, and the file then reads clean. Records of a last block
 * whose marker alone was cut are read, and go with the tail (no sync
 * covered them: a sync writes whole blocks). Returns the file as read after
 * the cut. */
static read_result cut_torn_tail(const char *path, const read_result *r)
{
    avk_file_writer_options o;
    avk_file_writer *fw;
    avk_error err;
    uint64_t size = file_size(path);
    read_result after;
    assert_int_equal(avk_file_writer_append_path(path, NULL, &fw, &err), r->end);
    assert_null(fw);
    assert_non_null(strstr(err.message, "torn tail"));
    assert_int_equal(file_size(path), size);
    avk_file_writer_options_init(&o);
    o.flags = AVK_FILE_WRITER_TRUNCATE_TORN_TAIL;
    assert_int_equal(avk_file_writer_append_path(path, &o, &fw, &err), AVK_OK);
    if (avk_file_writer_torn_tail(fw) == 0)
        fail_msg("no torn tail cut from %s (%llu bytes), which reads as %s at byte %llu", path,
                 (unsigned long long)size, avk_status_name(r->end),
                 (unsigned long long)r->end_offset);
    assert_int_equal(file_size(path) + avk_file_writer_torn_tail(fw), size);
    /* The reader placed the truncation where the last complete block ends. */
    assert_int_equal(r->end_offset, file_size(path));
    assert_int_equal(avk_file_writer_close(fw, &err), AVK_OK);
    after = read_back(path);
    assert_int_equal(after.end, AVK_OK);
    assert_true(after.records <= r->records);
    return after;
}

static void test_sigkill_many_times(void **state)
{
    static const avk_codec codecs[] = {AVK_CODEC_NULL, AVK_CODEC_DEFLATE, AVK_CODEC_ZSTANDARD,
                                       AVK_CODEC_SNAPPY};
    char dir[] = "/tmp/avkt-crash-XXXXXX", path[64];
    unsigned r, n = runs(), torn = 0, headless = 0, appended = 0, acked_runs = 0;
    uint64_t total = 0, max_records = 0;
    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/f.avro", dir);
    srand(12345);
    for (r = 0; r < n; r++) {
        run_plan rp;
        read_result before = {0, 0, AVK_OK, 0}, after;
        int ack[2], status;
        uint64_t acked = 0, got;
        pid_t pid;
        rp.append = r % 5 != 0 && file_size(path) > 0;
        if (rp.append) {
            before = read_back(path);
            /* A torn tail was cut right after the last kill: clean or headless. */
            if (before.opened)
                assert_int_equal(before.end, AVK_OK);
            if (!before.opened || before.records > 50000)
                rp.append = 0; /* no header to append to, or big enough */
        }
        if (!rp.append)
            before.records = 0;
        rp.codec = codecs[rand() % 4];
        rp.block_bytes = (size_t)(256 << (rand() % 6));
        rp.sync_every = 1u + (unsigned)(rand() % 400);
        rp.use_fsync = rand() % 4 == 0;
        rp.threads = rand() % 3 == 0 ? 2 : 0;
        assert_int_equal(pipe(ack), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            close(ack[0]);
            child(path, before.records, &rp, ack[1]);
        }
        close(ack[1]);
        /* Mostly after the open, so that most runs write; one in eight
         * from the fork, which may kill it before its header is whole. */
        if (r % 8 != 0 && read(ack[0], &got, sizeof got) == (ssize_t)sizeof got &&
            got != OPENED)
            fail_msg("run %u: the writer's first message is not that it opened the file", r);
        usleep((useconds_t)(rand() % 5000));
        assert_int_equal(kill(pid, SIGKILL), 0);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        if (!(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL))
            fail_msg("run %u: the writer ended on its own (status %d) before the kill", r, status);
        while (read(ack[0], &got, sizeof got) == (ssize_t)sizeof got)
            if (got != OPENED)
                acked = got;
        close(ack[0]);
        after = read_back(path);
        if (!after.opened) {
            /* Killed before its header was whole: nothing was promised. */
            assert_false(rp.append);
            assert_int_equal(acked, 0);
            headless++;
            continue;
        }
        if (rp.append)
            appended++;
        if (acked > before.records)
            acked_runs++;
        /* Every record a sync covered is there, and nothing before them went. */
        if (after.records < acked || after.records < before.records)
            fail_msg("run %u: %llu records read back, but %llu were synced and %llu were there "
                     "before",
                     r, (unsigned long long)after.records, (unsigned long long)acked,
                     (unsigned long long)before.records);
        /* The end is clean or a torn tail, reported as truncation. */
        if (after.end != AVK_OK && after.end != AVK_ERR_TRUNCATED)
            fail_msg("run %u: the read ended with %s, not a clean end or AVK_ERR_TRUNCATED", r,
                     avk_status_name(after.end));
        total += after.records - before.records;
        if (after.end != AVK_OK) {
            cut_torn_tail(path, &after);
            torn++;
        }
        if (after.records > max_records)
            max_records = after.records;
    }
    /* The run must have met what it tests: torn tails and appends. */
    print_message("%u kills: %u appends, %u with records a sync covered, %u torn tails cut, "
                  "%u files without a whole header, %llu records written, up to %llu in one "
                  "file\n",
                  n, appended, acked_runs, torn, headless, (unsigned long long)total,
                  (unsigned long long)max_records);
    /* Under an emulator a run writes far fewer records: only correctness is
     * asserted there. */
    if (n >= 100 && !getenv("AVKT_EMULATED")) {
        assert_true(torn > 0);
        assert_true(appended > 0);
        assert_true(acked_runs > n / 4);
    }
    unlink(path);
    rmdir(dir);
}

/* Damage with a complete block after it is not a torn tail: refused with
 * the flag too, and the file left as it was. */
static void test_damage_before_end_is_not_cut(void **state)
{
    char dir[] = "/tmp/avkt-crash-XXXXXX", path[64];
    avk_file_writer_options o;
    avk_file_writer *fw;
    avk_schema *schema;
    avk_error err;
    uint8_t datum[128], byte, sync[AVK_FILE_SYNC_SIZE], buf[1 << 16], *at;
    uint64_t i, size;
    int fd;
    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/f.avro", dir);
    assert_int_equal(avk_schema_parse(schema_json, sizeof schema_json - 1, NULL, &schema, &err),
                     AVK_OK);
    avk_file_writer_options_init(&o);
    o.block_records = 10;
    assert_int_equal(avk_file_writer_open_path(path, schema, &o, &fw, &err), AVK_OK);
    for (i = 0; i < 100; i++)
        assert_int_equal(avk_file_writer_append_encoded(fw, datum, encode(i, datum), &err), AVK_OK);
    assert_int_equal(avk_file_writer_fsync(fw, &err), AVK_OK);
    memcpy(sync, avk_file_writer_sync(fw), sizeof sync);
    assert_int_equal(avk_file_writer_close(fw, &err), AVK_OK);
    avk_schema_free(schema);
    /* One byte of the fifth block's marker flipped (the header's is the
     * first marker in the file). */
    size = file_size(path);
    fd = open(path, O_RDWR);
    assert_true(fd >= 0);
    assert_int_equal(pread(fd, buf, (size_t)size, 0), (ssize_t)size);
    for (i = 0, at = buf; i < 6; i++, at++)
        assert_non_null(at = memmem(at, (size_t)(buf + size - at), sync, sizeof sync));
    at--;
    byte = (uint8_t)(*at ^ 0xFF);
    assert_int_equal(pwrite(fd, &byte, 1, at - buf), 1);
    close(fd);
    o.flags = AVK_FILE_WRITER_TRUNCATE_TORN_TAIL;
    assert_int_equal(avk_file_writer_append_path(path, &o, &fw, &err), AVK_ERR_SYNC);
    assert_null(fw);
    assert_non_null(strstr(err.message, "not a torn tail"));
    assert_int_equal(file_size(path), size);
    /* The same without an error struct (NULL is allowed everywhere). */
    fw = (avk_file_writer *)&o;
    assert_int_equal(avk_file_writer_append_path(path, &o, &fw, NULL), AVK_ERR_SYNC);
    assert_null(fw);
    assert_int_equal(file_size(path), size);
    unlink(path);
    rmdir(dir);
}

/* The flag on a clean file cuts nothing; a bad level fails before the cut
 * of a torn tail, which stays. */
static void test_flag_on_clean_file(void **state)
{
    char dir[] = "/tmp/avkt-crash-XXXXXX", path[64];
    avk_file_writer_options o;
    avk_file_writer *fw;
    avk_schema *schema;
    avk_error err;
    uint8_t datum[128];
    uint64_t i, size;
    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/f.avro", dir);
    assert_int_equal(avk_schema_parse(schema_json, sizeof schema_json - 1, NULL, &schema, &err),
                     AVK_OK);
    avk_file_writer_options_init(&o);
    o.codec = AVK_CODEC_DEFLATE;
    o.block_records = 10;
    assert_int_equal(avk_file_writer_open_path(path, schema, &o, &fw, &err), AVK_OK);
    for (i = 0; i < 25; i++)
        assert_int_equal(avk_file_writer_append_encoded(fw, datum, encode(i, datum), &err), AVK_OK);
    assert_int_equal(avk_file_writer_close(fw, &err), AVK_OK);
    avk_schema_free(schema);
    size = file_size(path);
    o.flags = AVK_FILE_WRITER_TRUNCATE_TORN_TAIL;
    assert_int_equal(avk_file_writer_append_path(path, &o, &fw, &err), AVK_OK);
    assert_int_equal(avk_file_writer_torn_tail(fw), 0);
    assert_int_equal(avk_file_writer_close(fw, &err), AVK_OK);
    assert_int_equal(file_size(path), size);
    /* A torn tail and a level deflate refuses: nothing is cut. */
    assert_int_equal(truncate(path, (off_t)(size - 3)), 0);
    o.level = 99;
    assert_int_equal(avk_file_writer_append_path(path, &o, &fw, &err), AVK_ERR_INVALID_ARGUMENT);
    assert_int_equal(file_size(path), size - 3);
    unlink(path);
    rmdir(dir);
}

/* fsync on what cannot be synced, and on a sink. */
static avk_status discard(void *ctx, const void *data, size_t len, avk_error *err)
{
    (void)ctx, (void)data, (void)len, (void)err;
    return AVK_OK;
}

static void test_fsync_refusals(void **state)
{
    avk_file_writer *fw;
    avk_schema *schema;
    avk_error err;
    int p[2];
    (void)state;
    assert_int_equal(avk_schema_parse(schema_json, sizeof schema_json - 1, NULL, &schema, &err),
                     AVK_OK);
    assert_int_equal(avk_file_writer_open_sink(discard, NULL, schema, NULL, &fw, &err), AVK_OK);
    assert_int_equal(avk_file_writer_fsync(fw, &err), AVK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "sink"));
    avk_file_writer_free(fw);
    assert_int_equal(pipe(p), 0);
    fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
    assert_int_equal(avk_file_writer_open_fd(p[1], schema, NULL, &fw, &err), AVK_OK);
    assert_int_equal(avk_file_writer_fsync(fw, &err), AVK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "pipe"));
    /* Not broken: the data went, only the sync could not be done. */
    assert_int_equal(avk_file_writer_flush(fw, &err), AVK_OK);
    avk_file_writer_free(fw);
    close(p[0]);
    close(p[1]);
    assert_int_equal(avk_file_writer_fsync(NULL, &err), AVK_ERR_INVALID_ARGUMENT);
    avk_schema_free(schema);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fsync_refusals),
        cmocka_unit_test(test_damage_before_end_is_not_cut),
        cmocka_unit_test(test_flag_on_clean_file),
        cmocka_unit_test(test_sigkill_many_times),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
