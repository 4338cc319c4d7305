/* Fault-injection scenario: writes a container file through open_path and reads it back. */
#include <avrokit/avrokit.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * faultio_scenario write OUT.avro   300 records in blocks of 64, an fsync
 *                                   in the middle, deflate, then opened
 *                                   again to append (nothing) and fsync'd;
 *                                   prints "written"
 * faultio_scenario read IN.avro     prints the record count and a digest
 * On failure: "faultio_scenario: <step>: <STATUS>: <message>" on stderr and
 * exit 1. The driver (faults_test.py) runs it under the fault shim and
 * checks the message names the file and the failed operation.
 */

#define RECORDS 300

static const char schema_json[] =
    "{\"type\":\"record\",\"name\":\"R\",\"fields\":["
    "{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"s\",\"type\":\"string\"}]}";

static int fail(const char *step, const avk_error *err)
{
    fprintf(stderr, "faultio_scenario: %s: %s: %s\n", step, avk_status_name(err->status),
            err->message);
    return 1;
}

/* Zigzag varint of v at p; returns the bytes written. */
static size_t put_long(uint8_t *p, int64_t v)
{
    uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
    size_t n = 0;
    while (z >= 0x80) {
        p[n++] = (uint8_t)(z | 0x80);
        z >>= 7;
    }
    p[n++] = (uint8_t)z;
    return n;
}

static int do_write(const char *path, const avk_schema *schema)
{
    avk_file_writer_options o;
    avk_file_writer *fw;
    avk_error err;
    static const uint8_t sync[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    avk_file_writer_options_init(&o);
    o.sync = sync; /* the same file on every run */
    o.codec = AVK_CODEC_DEFLATE;
    o.block_records = 64;
    if (avk_file_writer_open_path(path, schema, &o, &fw, &err) != AVK_OK)
        return fail("open", &err);
    for (int i = 0; i < RECORDS; i++) {
        uint8_t rec[96];
        char s[48];
        size_t n, len = (size_t)snprintf(s, sizeof s, "record number %d of the scenario", i);
        n = put_long(rec, i * 7919);
        n += put_long(rec + n, (int64_t)len);
        memcpy(rec + n, s, len);
        if (avk_file_writer_append_encoded(fw, rec, n + len, &err) != AVK_OK) {
            avk_file_writer_free(fw);
            return fail("append", &err);
        }
        if (i == RECORDS / 2 && avk_file_writer_fsync(fw, &err) != AVK_OK) {
            avk_file_writer_free(fw);
            return fail("fsync", &err);
        }
    }
    if (avk_file_writer_close(fw, &err) != AVK_OK)
        return fail("close", &err);
    /* Opened again to append: every block is read and checked first;
     * nothing is added, and the fsync and close must still succeed. */
    if (avk_file_writer_append_path(path, NULL, &fw, &err) != AVK_OK)
        return fail("append_path", &err);
    if (avk_file_writer_fsync(fw, &err) != AVK_OK) {
        avk_file_writer_free(fw);
        return fail("fsync", &err);
    }
    if (avk_file_writer_close(fw, &err) != AVK_OK)
        return fail("close", &err);
    printf("written\n");
    return 0;
}

static int do_read(const char *path)
{
    avk_file_reader *fr;
    avk_arena *arena;
    avk_error err;
    avk_value v;
    uint64_t count = 0, digest = 1469598103934665603u;
    int more;
    avk_status st;
    if (avk_file_reader_open_path(path, NULL, &fr, &err) != AVK_OK)
        return fail("open", &err);
    if (avk_arena_new(NULL, &arena, &err) != AVK_OK) {
        avk_file_reader_free(fr);
        return fail("arena", &err);
    }
    while ((st = avk_file_reader_next(fr, arena, &v, &more, &err)) == AVK_OK && more) {
        avk_writer w;
        size_t len;
        const uint8_t *p;
        /* The record's JSON text feeds the digest: every field counts. */
        if (avk_writer_init_memory(&w, NULL, &err) != AVK_OK ||
            avk_value_write_json(&v, 0, &w, &err) != AVK_OK) {
            avk_writer_destroy(&w);
            st = err.status;
            break;
        }
        p = avk_writer_data(&w, &len);
        for (size_t i = 0; i < len; i++)
            digest = (digest ^ p[i]) * 1099511628211u;
        avk_writer_destroy(&w);
        count++;
        avk_arena_reset(arena);
    }
    avk_arena_free(arena);
    avk_file_reader_free(fr);
    if (st != AVK_OK)
        return fail("next", &err);
    printf("%llu records, digest %016llx\n", (unsigned long long)count, (unsigned long long)digest);
    return 0;
}

int main(int argc, char **argv)
{
    avk_schema *schema;
    avk_error err;
    int rc;
    if (argc != 3 || (strcmp(argv[1], "write") != 0 && strcmp(argv[1], "read") != 0)) {
        fprintf(stderr, "usage: faultio_scenario write|read FILE.avro\n");
        return 2;
    }
    if (strcmp(argv[1], "read") == 0)
        return do_read(argv[2]);
    if (avk_schema_parse(schema_json, strlen(schema_json), NULL, &schema, &err) != AVK_OK)
        return fail("schema", &err);
    rc = do_write(argv[2], schema);
    avk_schema_free(schema);
    return rc;
}
