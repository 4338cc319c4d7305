// Start-up check of the avro-c encoding table declared in avroc_shim.h; avro-c container file helpers.
#include "avroc_shim.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <unistd.h>

namespace avkbench {
namespace {

[[noreturn]] void shim_fail(const char *what, int64_t v)
{
    std::fprintf(stderr,
                 "avrokit_bench: the avro-c shim does not behave: %s (value %" PRId64 ").\n"
                 "avrokit_bench: struct avro_encoding_t in bench/avroc_shim.h no longer matches "
                 "libavro's avro_binary_encoding; fix the declaration before trusting any "
                 "avro-c row.\n",
                 what, v);
    std::exit(2);
}

struct Known {
    int64_t value;
    uint8_t bytes[10];
    size_t len;
};

const Known kKnown[] = {
    {0, {0x00}, 1},
    {-1, {0x01}, 1},
    {-64, {0x7f}, 1},
    {64, {0x80, 0x01}, 2},
    {300, {0xd8, 0x04}, 2},
    {INT64_MAX, {0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 10},
    {INT64_MIN, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 10},
};

} // namespace

void avroc_shim_check()
{
    const avro_encoding_t &enc = avro_binary_encoding;
    if (enc.description == nullptr || std::strcmp(enc.description, "BINARY FORMAT") != 0)
        shim_fail("description is not \"BINARY FORMAT\"", 0);

    char buf[32];
    for (const Known &k : kKnown) {
        std::memset(buf, 0xAA, sizeof buf);
        avro_writer_t w = avro_writer_memory(buf, sizeof buf);
        if (w == nullptr)
            shim_fail("avro_writer_memory returned NULL", k.value);
        if (enc.write_long(w, k.value) != 0)
            shim_fail("write_long failed", k.value);
        if (avro_writer_tell(w) != (int64_t)k.len)
            shim_fail("write_long wrote the wrong number of bytes", k.value);
        if (std::memcmp(buf, k.bytes, k.len) != 0)
            shim_fail("write_long wrote the wrong bytes", k.value);
        if (enc.size_long(w, k.value) != (int64_t)k.len)
            shim_fail("size_long gave the wrong size", k.value);
        avro_writer_free(w);

        avro_reader_t r = avro_reader_memory(buf, (int64_t)k.len);
        if (r == nullptr)
            shim_fail("avro_reader_memory returned NULL", k.value);
        int64_t back = ~k.value;
        if (enc.read_long(r, &back) != 0)
            shim_fail("read_long failed", k.value);
        if (back != k.value)
            shim_fail("read_long decoded a different value", k.value);
        // The whole encoding was consumed: one more read must fail.
        int64_t extra;
        if (enc.read_long(r, &extra) == 0)
            shim_fail("read_long did not consume the whole encoding", k.value);
        avro_reader_free(r);
    }
}

static std::string avroc_failed(const char *what)
{
    return std::string(what) + ": " + avro_strerror();
}

std::string avroc_file_write(const char *path, avro_schema_t schema, const char *codec,
                             size_t block_size, avro_value_t *values, size_t n)
{
    unlink(path); // avro-c may refuse to replace a file
    avro_file_writer_t w;
    if (avro_file_writer_create_with_codec(path, schema, &w, codec, block_size) != 0)
        return avroc_failed("avro_file_writer_create_with_codec");
    for (size_t i = 0; i < n; i++) {
        if (avro_file_writer_append_value(w, &values[i]) != 0) {
            std::string e = avroc_failed("avro_file_writer_append_value");
            avro_file_writer_close(w);
            return e + " (record " + std::to_string(i) + ")";
        }
    }
    if (avro_file_writer_close(w) != 0)
        return avroc_failed("avro_file_writer_close");
    return "";
}

std::string avroc_file_read(const char *path, avro_value_iface_t *iface,
                            void (*fn)(void *ctx, avro_value_t *v), void *ctx, size_t *count)
{
    avro_file_reader_t r;
    *count = 0;
    if (avro_file_reader(path, &r) != 0)
        return avroc_failed("avro_file_reader");
    avro_value_t v;
    if (avro_generic_value_new(iface, &v) != 0) {
        avro_file_reader_close(r);
        return avroc_failed("avro_generic_value_new");
    }
    int rc;
    while ((rc = avro_file_reader_read_value(r, &v)) == 0) {
        fn(ctx, &v);
        ++*count;
        avro_value_reset(&v);
    }
    std::string e = rc == EOF ? "" : avroc_failed("avro_file_reader_read_value");
    avro_value_decref(&v);
    avro_file_reader_close(r);
    return e;
}

} // namespace avkbench
