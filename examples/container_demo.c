/* Container demo: rewrites a container file with every codec in memory, reads each back, checks the records and prints a throughput table. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <avrokit/avrokit.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ROUNDS 3 /* best of: the machine is shared */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int fail(const char *what, const avk_error *err)
{
    fprintf(stderr, "container_demo: %s: %s (%s)\n", what, err->message,
            avk_status_name(err->status));
    return 1;
}

/* A sink that collects the file in memory, so the disk is not measured. */
typedef struct {
    unsigned char *data;
    size_t len, cap;
} membuf;

static avk_status membuf_sink(void *ctx, const void *data, size_t len, avk_error *err)
{
    membuf *m = ctx;
    (void)err;
    if (m->len + len > m->cap) {
        size_t ncap = m->cap ? m->cap : 1 << 20;
        unsigned char *nd;
        while (ncap < m->len + len)
            ncap *= 2;
        nd = realloc(m->data, ncap);
        if (!nd)
            return AVK_ERR_NO_MEMORY;
        m->data = nd;
        m->cap = ncap;
    }
    memcpy(m->data + m->len, data, len);
    m->len += len;
    return AVK_OK;
}

/* Writes all records with codec c into out; returns the uncompressed bytes. */
static int write_all(const avk_schema *schema, const avk_value *recs, size_t n, avk_codec c,
                     membuf *out, uint64_t *data_bytes)
{
    avk_file_writer_options o;
    avk_file_writer *fw;
    avk_file_writer_stats st;
    avk_error err;
    avk_file_writer_options_init(&o);
    o.codec = c;
    out->len = 0;
    if (avk_file_writer_open_sink(membuf_sink, out, schema, &o, &fw, &err) != AVK_OK)
        return fail("open the writer", &err);
    for (size_t i = 0; i < n; i++)
        if (avk_file_writer_append(fw, &recs[i], &err) != AVK_OK) {
            avk_file_writer_free(fw);
            return fail("append", &err);
        }
    avk_file_writer_get_stats(fw, &st);
    if (avk_file_writer_close(fw, &err) != AVK_OK)
        return fail("close", &err);
    *data_bytes = st.bytes_data;
    return 0;
}

/* Reads the file back, checking each record against the original. */
static int read_all(const membuf *in, const avk_value *recs, size_t n, avk_arena *arena,
                    int check)
{
    avk_file_reader *fr;
    avk_error err;
    avk_value v;
    size_t got = 0;
    int more;
    if (avk_file_reader_open_memory(in->data, in->len, NULL, &fr, &err) != AVK_OK)
        return fail("open the reader", &err);
    while (avk_file_reader_next(fr, arena, &v, &more, &err) == AVK_OK && more) {
        if (got >= n || (check && !avk_value_equal(&v, &recs[got]))) {
            fprintf(stderr, "container_demo: record %zu differs after the round trip\n", got);
            avk_file_reader_free(fr);
            return 1;
        }
        got++;
        avk_arena_reset(arena);
    }
    avk_file_reader_free(fr);
    if (got != n) {
        if (err.status != AVK_OK)
            return fail("read", &err);
        fprintf(stderr, "container_demo: read %zu records of %zu\n", got, n);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    avk_file_reader *fr;
    avk_arena *keep, *scratch;
    avk_value *recs = NULL, v;
    size_t n = 0, cap = 0;
    avk_error err;
    membuf file = {0};
    int more, rc = 0;
    avk_status st;
    if (argc != 2) {
        fprintf(stderr, "usage: container_demo FILE.avro\n");
        return 2;
    }
    /* Every record is kept, so strings are copied into the arena: views of
     * the reader's block buffer would last only until the next block. */
    avk_file_reader_options ro;
    avk_file_reader_options_init(&ro);
    ro.plan_flags = AVK_PLAN_COPY_STRINGS;
    if (avk_file_reader_open_path(argv[1], &ro, &fr, &err) != AVK_OK)
        return fail(argv[1], &err);
    avk_arena_new(NULL, &keep, NULL);
    avk_arena_new(NULL, &scratch, NULL);
    while ((st = avk_file_reader_next(fr, keep, &v, &more, &err)) == AVK_OK && more) {
        if (n == cap) {
            cap = cap ? cap * 2 : 1024;
            recs = realloc(recs, cap * sizeof *recs);
            if (!recs)
                return 1;
        }
        recs[n++] = v;
    }
    if (st != AVK_OK)
        return fail(argv[1], &err);

    printf("%zu records of %s from %s, written and read back in memory with every codec\n"
           "(MB/s counts the uncompressed record bytes; best of %d rounds; every record is\n"
           "compared with the original after the round trip):\n\n",
           n, avk_type_fullname(avk_schema_root(avk_file_reader_schema(fr))), argv[1], ROUNDS);
    printf("%-10s %12s %7s %11s %13s %11s %13s\n", "codec", "file bytes", "ratio", "write MB/s",
           "write rec/s", "read MB/s", "read rec/s");
    for (int c = 0; c < AVK_CODEC_COUNT && rc == 0; c++) {
        double best_w = 1e30, best_r = 1e30;
        uint64_t data_bytes = 0;
        for (int round = 0; round < ROUNDS && rc == 0; round++) {
            double t0 = now_s(), t1, t2;
            rc = write_all(avk_file_reader_schema(fr), recs, n, (avk_codec)c, &file, &data_bytes);
            t1 = now_s();
            if (rc == 0)
                rc = read_all(&file, recs, n, scratch, round == 0);
            t2 = now_s();
            if (t1 - t0 < best_w)
                best_w = t1 - t0;
            if (round > 0 && t2 - t1 < best_r) /* round 0 also compares values */
                best_r = t2 - t1;
        }
        if (rc == 0)
            printf("%-10s %12zu %6.2fx %11.0f %13.0f %11.0f %13.0f\n", avk_codec_name((avk_codec)c),
                   file.len, (double)data_bytes / (double)file.len, data_bytes / best_w / 1e6,
                   n / best_w, data_bytes / best_r / 1e6, n / best_r);
    }
    free(file.data);
    free(recs);
    avk_arena_free(keep);
    avk_arena_free(scratch);
    avk_file_reader_free(fr);
    return rc;
}
