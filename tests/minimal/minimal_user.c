/* Run against an avrokit built with every AVK_WITH_* option off: the codecs and fingerprints left out are reported as such (AVK_ERR_UNSUPPORTED, naming the CMake option) at reader open, writer open and in the codec and fingerprint calls; what remains works. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <avrokit/avrokit.h>

static int failures;

#define CHECK(cond, ...)                                                                          \
    do {                                                                                          \
        if (!(cond)) {                                                                            \
            fprintf(stderr, "minimal_user: line %d: ", __LINE__);                                 \
            fprintf(stderr, __VA_ARGS__);                                                         \
            fputc('\n', stderr);                                                                  \
            failures++;                                                                           \
        }                                                                                         \
    } while (0)

static const struct {
    avk_codec codec;
    const char *name;
    const char *option;
} left_out[] = {
    {AVK_CODEC_DEFLATE, "deflate", "AVK_WITH_DEFLATE"},
    {AVK_CODEC_SNAPPY, "snappy", "AVK_WITH_SNAPPY"},
    {AVK_CODEC_ZSTANDARD, "zstandard", "AVK_WITH_ZSTD"},
    {AVK_CODEC_BZIP2, "bzip2", "AVK_WITH_BZIP2"},
    {AVK_CODEC_XZ, "xz", "AVK_WITH_XZ"},
};

/* A container file with schema "int", the given avro.codec and no blocks.
 * Lengths below 64 are one zigzag byte: 2 * n. */
static size_t file_with_codec(uint8_t *out, const char *codec)
{
    static const char schema[] = "\"int\"";
    size_t n = 0, len;
    memcpy(out, "Obj\x01", 4);
    n = 4;
    out[n++] = 2 * 2; /* a map block of 2 entries */
    out[n++] = 2 * 11;
    memcpy(out + n, "avro.schema", 11);
    n += 11;
    out[n++] = 2 * 5;
    memcpy(out + n, schema, 5);
    n += 5;
    out[n++] = 2 * 10;
    memcpy(out + n, "avro.codec", 10);
    n += 10;
    len = strlen(codec);
    out[n++] = (uint8_t)(2 * len);
    memcpy(out + n, codec, len);
    n += len;
    out[n++] = 0; /* end of the map */
    memset(out + n, 0x5a, AVK_FILE_SYNC_SIZE);
    return n + AVK_FILE_SYNC_SIZE;
}

typedef struct sink_buf {
    uint8_t data[4096];
    size_t len;
} sink_buf;

static avk_status to_buf(void *ctx, const void *data, size_t len, avk_error *err)
{
    sink_buf *b = (sink_buf *)ctx;
    (void)err;
    if (len > sizeof b->data - b->len)
        return AVK_ERR_IO;
    memcpy(b->data + b->len, data, len);
    b->len += len;
    return AVK_OK;
}

static void check_codecs(const avk_schema *schema)
{
    char want[AVK_ERROR_MESSAGE_MAX], want_reader[AVK_ERROR_MESSAGE_MAX];
    uint8_t file[128];
    avk_file_writer_options wo;
    avk_file_writer *fw;
    avk_file_reader *fr;
    avk_buffer buf;
    avk_error err;
    avk_status st;
    size_t i, n;
    sink_buf sink;
    CHECK(avk_codec_available(AVK_CODEC_NULL) == 1, "null codec not available");
    avk_buffer_init(&buf, NULL);
    for (i = 0; i < sizeof left_out / sizeof left_out[0]; i++) {
        const char *name = left_out[i].name;
        snprintf(want, sizeof want,
                 "codec '%s' was not built into this avrokit (configure with -D%s=ON)", name,
                 left_out[i].option);
        snprintf(want_reader, sizeof want_reader, "file header: avro.codec: %s", want);
        CHECK(avk_codec_available(left_out[i].codec) == 0, "%s reported available", name);

        n = file_with_codec(file, name);
        fr = (avk_file_reader *)&fr; /* must come back NULL */
        st = avk_file_reader_open_memory(file, n, NULL, &fr, &err);
        CHECK(st == AVK_ERR_UNSUPPORTED && err.status == AVK_ERR_UNSUPPORTED,
              "%s reader open: status %s", name, avk_status_name(st));
        CHECK(strcmp(err.message, want_reader) == 0, "%s reader open: message '%s'", name,
              err.message);
        CHECK(fr == NULL, "%s reader open: *out not NULL", name);

        avk_file_writer_options_init(&wo);
        wo.codec = left_out[i].codec;
        sink.len = 0;
        st = avk_file_writer_open_sink(to_buf, &sink, schema, &wo, &fw, &err);
        CHECK(st == AVK_ERR_UNSUPPORTED, "%s writer open: status %s", name, avk_status_name(st));
        CHECK(strcmp(err.message, want) == 0, "%s writer open: message '%s'", name, err.message);
        CHECK(fw == NULL && sink.len == 0, "%s writer open: wrote %zu bytes", name, sink.len);

        st = avk_codec_compress(left_out[i].codec, 0, (const uint8_t *)"abc", 3, &buf, &err);
        CHECK(st == AVK_ERR_UNSUPPORTED && strcmp(err.message, want) == 0,
              "%s compress: %s '%s'", name, avk_status_name(st), err.message);
        st = avk_codec_decompress(left_out[i].codec, (const uint8_t *)"abc", 3, 100, &buf, &err);
        CHECK(st == AVK_ERR_UNSUPPORTED && strcmp(err.message, want) == 0,
              "%s decompress: %s '%s'", name, avk_status_name(st), err.message);
    }
    avk_buffer_destroy(&buf);
    CHECK(strcmp(avk_status_name(AVK_ERR_UNSUPPORTED), "UNSUPPORTED") == 0, "status name");
}

/* The null codec still writes and reads. */
static void check_null_codec(const avk_schema *schema)
{
    static const int32_t values[] = {7, -300, 1 << 20};
    avk_file_writer_options wo;
    avk_file_writer *fw = NULL;
    avk_file_reader *fr = NULL;
    avk_arena *arena = NULL;
    avk_value v;
    avk_error err;
    sink_buf sink;
    size_t i, count = 0;
    int more = 1;
    sink.len = 0;
    avk_file_writer_options_init(&wo);
    CHECK(avk_file_writer_open_sink(to_buf, &sink, schema, &wo, &fw, &err) == AVK_OK,
          "null writer open: %s", err.message);
    for (i = 0; fw && i < 3; i++) {
        avk_value_init(&v, avk_schema_root(schema), 0, NULL, &err);
        v.u.i = values[i];
        CHECK(avk_file_writer_append(fw, &v, &err) == AVK_OK, "append: %s", err.message);
    }
    CHECK(fw && avk_file_writer_close(fw, &err) == AVK_OK, "close: %s", err.message);
    CHECK(avk_arena_new(NULL, &arena, &err) == AVK_OK, "arena: %s", err.message);
    CHECK(avk_file_reader_open_memory(sink.data, sink.len, NULL, &fr, &err) == AVK_OK,
          "null reader open: %s", err.message);
    while (fr && arena && avk_file_reader_next(fr, arena, &v, &more, &err) == AVK_OK && more) {
        CHECK(count < 3 && v.u.i == values[count], "record %zu is %d", count, (int)v.u.i);
        count++;
    }
    CHECK(count == 3, "read %zu records back, not 3", count);
    avk_file_reader_free(fr);
    avk_arena_free(arena);
}

static void check_fingerprints(const avk_schema *schema)
{
    uint8_t fp[32];
    size_t len = 0;
    avk_error err;
    avk_status st;
    uint64_t rabin = 0;
    int i;
    CHECK(avk_fingerprint_available(AVK_FINGERPRINT_RABIN) == 1, "rabin not available");
    CHECK(avk_fingerprint_available(AVK_FINGERPRINT_MD5) == 0, "md5 reported available");
    CHECK(avk_fingerprint_available(AVK_FINGERPRINT_SHA256) == 0, "sha256 reported available");
    st = avk_type_fingerprint(avk_schema_root(schema), AVK_FINGERPRINT_RABIN, fp, &len, &err);
    for (i = 7; i >= 0; i--)
        rabin = rabin << 8 | fp[i];
    /* CRC-64-AVRO of "int", as the full build computes it. */
    CHECK(st == AVK_OK && len == 8 && rabin == 0x7275d51a3f395c8fULL,
          "rabin: %s, %zu bytes, %016llx", avk_status_name(st), len, (unsigned long long)rabin);
    st = avk_type_fingerprint(avk_schema_root(schema), AVK_FINGERPRINT_MD5, fp, &len, &err);
    CHECK(st == AVK_ERR_UNSUPPORTED &&
              strcmp(err.message, "MD5 fingerprints need nettle, which was not built into this "
                                  "avrokit (configure with -DAVK_WITH_NETTLE=ON)") == 0,
          "md5: %s '%s'", avk_status_name(st), err.message);
    st = avk_type_fingerprint(avk_schema_root(schema), AVK_FINGERPRINT_SHA256, fp, &len, &err);
    CHECK(st == AVK_ERR_UNSUPPORTED &&
              strcmp(err.message, "SHA-256 fingerprints need nettle, which was not built into "
                                  "this avrokit (configure with -DAVK_WITH_NETTLE=ON)") == 0,
          "sha256: %s '%s'", avk_status_name(st), err.message);
}

int main(void)
{
    avk_schema *schema = NULL;
    avk_error err;
    if (avk_schema_parse("\"int\"", 5, NULL, &schema, &err) != AVK_OK) {
        fprintf(stderr, "minimal_user: schema: %s\n", err.message);
        return 1;
    }
    check_codecs(schema);
    check_null_codec(schema);
    check_fingerprints(schema);
    avk_schema_free(schema);
    if (failures)
        return 1;
    printf("minimal_user: codecs and fingerprints left out say so; null codec and Rabin work\n");
    return 0;
}
