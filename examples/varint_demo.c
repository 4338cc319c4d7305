/* Demo: decode an Avro array<long> every way avrokit can, check they agree, and time them. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <avrokit/avrokit.h>

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int fail(const char *what, const avk_error *err)
{
    fprintf(stderr, "varint_demo: %s: %s (%s at offset %llu)\n", what, err->message,
            avk_status_name(err->status), (unsigned long long)err->offset);
    return 1;
}

/* Reads the array header and n items one value at a time. */
static avk_status read_array_single(avk_reader *r, int64_t *out, int64_t cap, int64_t *n,
                                    avk_error *err)
{
    int64_t count, i, terminator;
    avk_status st = avk_reader_read_long(r, &count, err);
    if (st != AVK_OK)
        return st;
    if (count < 0 || count > cap)
        return AVK_ERR_LIMIT;
    for (i = 0; i < count; i++)
        if ((st = avk_reader_read_long(r, &out[i], err)) != AVK_OK)
            return st;
    *n = count;
    return avk_reader_read_long(r, &terminator, err);
}

/* The same through the bulk kernel. */
static avk_status read_array_bulk(avk_reader *r, int64_t *out, int64_t cap, int64_t *n,
                                  avk_error *err)
{
    int64_t count, terminator;
    avk_status st = avk_reader_read_long(r, &count, err);
    if (st != AVK_OK)
        return st;
    if (count < 0 || count > cap)
        return AVK_ERR_LIMIT;
    if ((st = avk_reader_read_longs(r, out, (size_t)count, err)) != AVK_OK)
        return st;
    *n = count;
    return avk_reader_read_long(r, &terminator, err);
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "examples/data/readings.avrodata";
    enum { CAP = 1 << 20, ROUNDS = 50 };
    static int64_t ref[CAP], got[CAP];
    avk_error err;
    avk_reader r;
    avk_writer w;
    int64_t n_ref = 0, n = 0, i;
    uint8_t *file;
    long size;
    FILE *fp = fopen(path, "rb");
    const char *names[4] = {"memory, one at a time", "memory, bulk kernel", "file stream, one at a time",
                            "file stream, bulk kernel"};
    int way, round;

    avk_error_clear(&err);
    if (!fp) {
        perror(path);
        return 1;
    }
    fseek(fp, 0, SEEK_END);
    size = ftell(fp);
    rewind(fp);
    file = malloc((size_t)size);
    if (!file || fread(file, 1, (size_t)size, fp) != (size_t)size) {
        fprintf(stderr, "varint_demo: cannot read %s\n", path);
        return 1;
    }
    fclose(fp);

    printf("avrokit %s, bulk kernel: %s\n", avk_version(), avk_kernel_name());
    printf("input: %s, %ld bytes, one Avro array<long>\n\n", path, size);

    avk_reader_init_memory(&r, file, (size_t)size);
    if (read_array_single(&r, ref, CAP, &n_ref, &err) != AVK_OK)
        return fail("decode", &err);
    printf("%lld longs; first reading: t=%lld counter=%lld delta=%lld user=%lld\n\n",
           (long long)n_ref, (long long)ref[0], (long long)ref[1], (long long)ref[2],
           (long long)ref[3]);

    printf("%-28s %10s %12s\n", "path", "ns/value", "MB/s");
    for (way = 0; way < 4; way++) {
        double best = 1e30;
        for (round = 0; round < ROUNDS; round++) {
            double t0 = now_ns(), dt;
            avk_status st;
            if (way < 2) {
                avk_reader_init_memory(&r, file, (size_t)size);
            } else {
                int fd = open(path, O_RDONLY);
                if (fd < 0 || avk_reader_init_fd(&r, fd, NULL, &err) != AVK_OK)
                    return fail("open", &err);
                st = (way == 2 ? read_array_single : read_array_bulk)(&r, got, CAP, &n, &err);
                avk_reader_destroy(&r);
                close(fd);
                goto timed;
            }
            st = (way == 0 ? read_array_single : read_array_bulk)(&r, got, CAP, &n, &err);
        timed:
            dt = now_ns() - t0;
            if (st != AVK_OK)
                return fail(names[way], &err);
            if (dt < best)
                best = dt;
        }
        if (n != n_ref || memcmp(got, ref, (size_t)n * sizeof *got) != 0) {
            fprintf(stderr, "varint_demo: %s decoded different values\n", names[way]);
            return 1;
        }
        printf("%-28s %10.2f %12.0f\n", names[way], best / (double)n, (double)size / best * 1e3);
    }

    /* Encode back, both ways, and compare with the file byte for byte. */
    if (avk_writer_init_memory(&w, NULL, &err) != AVK_OK)
        return fail("writer", &err);
    for (way = 0; way < 2; way++) {
        size_t len;
        const uint8_t *bytes;
        avk_writer_reset(&w);
        if (avk_writer_write_long(&w, n_ref, &err) != AVK_OK)
            return fail("encode", &err);
        if (way == 0) {
            for (i = 0; i < n_ref; i++)
                if (avk_writer_write_long(&w, ref[i], &err) != AVK_OK)
                    return fail("encode", &err);
        } else if (avk_writer_write_longs(&w, ref, (size_t)n_ref, &err) != AVK_OK) {
            return fail("encode", &err);
        }
        if (avk_writer_write_long(&w, 0, &err) != AVK_OK)
            return fail("encode", &err);
        bytes = avk_writer_data(&w, &len);
        if (len != (size_t)size || memcmp(bytes, file, len) != 0) {
            fprintf(stderr, "varint_demo: re-encoding differs from the file\n");
            return 1;
        }
    }
    avk_writer_destroy(&w);
    printf("\nall four decodes agree; single and bulk encoding reproduce the file byte for byte\n");
    free(file);
    return 0;
}
