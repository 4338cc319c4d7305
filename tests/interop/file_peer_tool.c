/* Test helper for peers_test.py: writes Avro JSON records into a container file with a codec, or prints a container file's header and records as Avro JSON. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "avrokit/avrokit.h"

/* Usage:
 *   file_peer_tool write SCHEMA.avsc RECORDS.jsonl CODEC OUT.avro [KEY=VALUE...]
 *     one record per line in the Avro JSON encoding; blocks of at most 7
 *     records, so every file has several; KEY=VALUE pairs become user
 *     metadata.
 *   file_peer_tool read IN.avro
 *     first line {"codec": NAME, "nonstandard": 0|1, "meta": {KEY: VALUE}}
 *     (metadata values as strings of code points 0-255, like Avro bytes),
 *     then one record per line (avk_value_write_json).
 * Exit status 0, or 1 with "file_peer_tool: STATUS: message" on stderr. */

static int fail(const char *what, const avk_error *err)
{
    fprintf(stderr, "file_peer_tool: %s: %s: %s (offset %lld, block %lld)\n", what,
            avk_status_name(err->status), err->message,
            err->offset == AVK_OFFSET_UNKNOWN ? -1LL : (long long)err->offset,
            (long long)err->block);
    return 1;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0;
    if (!fp) {
        fprintf(stderr, "file_peer_tool: %s: %s\n", path, strerror(errno));
        return NULL;
    }
    for (;;) {
        if (n == cap) {
            char *more;
            cap = cap ? cap * 2 : 65536;
            more = realloc(buf, cap + 1);
            if (!more) {
                free(buf);
                fclose(fp);
                return NULL;
            }
            buf = more;
        }
        size_t got = fread(buf + n, 1, cap - n, fp);
        n += got;
        if (got == 0)
            break;
    }
    fclose(fp);
    buf[n] = '\0';
    *len = n;
    return buf;
}

static int cmd_write(int argc, char **argv)
{
    const char *schema_path = argv[2], *records_path = argv[3], *codec_name = argv[4];
    const char *out_path = argv[5];
    avk_file_meta meta[16];
    avk_file_writer_options opts;
    avk_file_writer *fw = NULL;
    avk_schema *schema = NULL;
    avk_arena *arena = NULL;
    avk_error err;
    char *schema_text, *records, *line, *end;
    size_t schema_len, records_len, n_meta = 0, lineno = 0;
    int i, rc = 1;

    memset(&err, 0, sizeof err);
    memset(&opts, 0, sizeof opts);
    opts.struct_size = sizeof opts;
    opts.block_records = 7;
    if (avk_codec_from_name(codec_name, strlen(codec_name), &opts.codec, NULL, &err) != AVK_OK)
        return fail("codec", &err);
    for (i = 6; i < argc && n_meta < 16; i++) {
        char *eq = strchr(argv[i], '=');
        if (!eq) {
            fprintf(stderr, "file_peer_tool: metadata \"%s\" is not KEY=VALUE\n", argv[i]);
            return 1;
        }
        *eq = '\0';
        meta[n_meta].key = argv[i];
        meta[n_meta].value = eq + 1;
        meta[n_meta].len = strlen(eq + 1);
        n_meta++;
    }
    opts.meta = meta;
    opts.meta_count = n_meta;

    schema_text = slurp(schema_path, &schema_len);
    records = slurp(records_path, &records_len);
    if (!schema_text || !records)
        goto out;
    if (avk_schema_parse(schema_text, schema_len, NULL, &schema, &err) != AVK_OK) {
        fail("schema", &err);
        goto out;
    }
    if (avk_arena_new(NULL, &arena, &err) != AVK_OK ||
        avk_file_writer_open_path(out_path, schema, &opts, &fw, &err) != AVK_OK) {
        fail("open", &err);
        goto out;
    }
    for (line = records; line < records + records_len; line = end + 1) {
        avk_value v;
        end = strchr(line, '\n');
        if (!end)
            end = records + records_len;
        lineno++;
        if (end == line)
            continue;
        if (avk_value_read_json(avk_schema_root(schema), line, (size_t)(end - line), arena, &v,
                                &err) != AVK_OK) {
            fprintf(stderr, "file_peer_tool: %s line %zu: ", records_path, lineno);
            fail("read_json", &err);
            goto out;
        }
        if (avk_file_writer_append(fw, &v, &err) != AVK_OK) {
            fail("append", &err);
            goto out;
        }
        avk_arena_reset(arena);
    }
    rc = avk_file_writer_close(fw, &err) == AVK_OK ? 0 : fail("close", &err);
    fw = NULL;
out:
    avk_file_writer_free(fw);
    avk_arena_free(arena);
    avk_schema_free(schema);
    free(schema_text);
    free(records);
    return rc;
}

/* bytes as a JSON string of code points 0-255. */
static void put_bytes(const uint8_t *p, size_t n)
{
    size_t i;
    putchar('"');
    for (i = 0; i < n; i++) {
        if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '"' && p[i] != '\\')
            putchar(p[i]);
        else
            printf("\\u%04x", p[i]);
    }
    putchar('"');
}

static int cmd_read(const char *path)
{
    avk_file_reader *fr = NULL;
    avk_arena *arena = NULL;
    avk_writer w;
    avk_error err;
    avk_value v;
    size_t i;
    int more = 0, ns = 0, rc = 1;
    avk_codec codec;
    avk_status st;

    memset(&err, 0, sizeof err);
    memset(&w, 0, sizeof w);
    if (avk_file_reader_open_path(path, NULL, &fr, &err) != AVK_OK)
        return fail("open", &err);
    codec = avk_file_reader_codec(fr, &ns);
    printf("{\"codec\": \"%s\", \"nonstandard\": %d, \"meta\": {", avk_codec_name(codec), ns);
    for (i = 0; i < avk_file_reader_meta_count(fr); i++) {
        const char *key;
        const uint8_t *value;
        size_t len;
        avk_file_reader_meta_at(fr, i, &key, &value, &len);
        printf("%s", i ? ", " : "");
        put_bytes((const uint8_t *)key, strlen(key));
        printf(": ");
        put_bytes(value, len);
    }
    printf("}}\n");
    if (avk_arena_new(NULL, &arena, &err) != AVK_OK ||
        avk_writer_init_file(&w, stdout, NULL, &err) != AVK_OK) {
        fail("setup", &err);
        goto out;
    }
    fflush(stdout);
    while ((st = avk_file_reader_next(fr, arena, &v, &more, &err)) == AVK_OK && more) {
        if (avk_value_write_json(&v, 0, &w, &err) != AVK_OK ||
            avk_writer_write_raw(&w, "\n", 1, &err) != AVK_OK) {
            fail("write_json", &err);
            goto out;
        }
        avk_arena_reset(arena);
    }
    if (st != AVK_OK) {
        avk_writer_flush(&w, NULL);
        fail("next", &err);
        goto out;
    }
    rc = avk_writer_flush(&w, &err) == AVK_OK ? 0 : fail("flush", &err);
out:
    avk_writer_destroy(&w);
    avk_arena_free(arena);
    avk_file_reader_free(fr);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc >= 6 && strcmp(argv[1], "write") == 0)
        return cmd_write(argc, argv);
    if (argc == 3 && strcmp(argv[1], "read") == 0)
        return cmd_read(argv[2]);
    fprintf(stderr, "usage: file_peer_tool write SCHEMA.avsc RECORDS.jsonl CODEC OUT.avro "
                    "[KEY=VALUE...]\n       file_peer_tool read IN.avro\n");
    return 2;
}
