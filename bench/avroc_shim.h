// avro-c's binary encoding table (exported by libavro, no header installed) and its container file calls.
#ifndef AVROKIT_BENCH_AVROC_SHIM_H
#define AVROKIT_BENCH_AVROC_SHIM_H

#include <stddef.h>
#include <stdint.h>

#include <string>

#include <avro.h>

// Copied field for field from avro-c's private src/encoding.h (1.11.x; the
// layout has not changed since 1.4). The order matters: the table is read
// straight out of libavro's data segment. avroc_shim_check() verifies it at
// start-up, before any row runs.
struct avro_encoding_t {
    const char *description;
    // string
    int (*read_string)(avro_reader_t reader, char **s, int64_t *len);
    int (*skip_string)(avro_reader_t reader);
    int (*write_string)(avro_writer_t writer, const char *s);
    int64_t (*size_string)(avro_writer_t writer, const char *s);
    // bytes
    int (*read_bytes)(avro_reader_t reader, char **bytes, int64_t *len);
    int (*skip_bytes)(avro_reader_t reader);
    int (*write_bytes)(avro_writer_t writer, const char *bytes, const int64_t len);
    int64_t (*size_bytes)(avro_writer_t writer, const char *bytes, const int64_t len);
    // int
    int (*read_int)(avro_reader_t reader, int32_t *i);
    int (*skip_int)(avro_reader_t reader);
    int (*write_int)(avro_writer_t writer, const int32_t i);
    int64_t (*size_int)(avro_writer_t writer, const int32_t i);
    // long
    int (*read_long)(avro_reader_t reader, int64_t *l);
    int (*skip_long)(avro_reader_t reader);
    int (*write_long)(avro_writer_t writer, const int64_t l);
    int64_t (*size_long)(avro_writer_t writer, const int64_t l);
    // float
    int (*read_float)(avro_reader_t reader, float *f);
    int (*skip_float)(avro_reader_t reader);
    int (*write_float)(avro_writer_t writer, const float f);
    int64_t (*size_float)(avro_writer_t writer, const float f);
    // double
    int (*read_double)(avro_reader_t reader, double *d);
    int (*skip_double)(avro_reader_t reader);
    int (*write_double)(avro_writer_t writer, const double d);
    int64_t (*size_double)(avro_writer_t writer, const double d);
    // boolean
    int (*read_boolean)(avro_reader_t reader, int8_t *b);
    int (*skip_boolean)(avro_reader_t reader);
    int (*write_boolean)(avro_writer_t writer, const int8_t b);
    int64_t (*size_boolean)(avro_writer_t writer, const int8_t b);
    // null
    int (*read_null)(avro_reader_t reader);
    int (*skip_null)(avro_reader_t reader);
    int (*write_null)(avro_writer_t writer);
    int64_t (*size_null)(avro_writer_t writer);
};

extern "C" const struct avro_encoding_t avro_binary_encoding;

namespace avkbench {

// Encodes and decodes known longs through avro_binary_encoding and memory
// readers/writers; prints what went wrong and exits with status 2 when the
// table does not behave as declared (wrong layout or a changed libavro).
void avroc_shim_check();

// Container files through avro-c's public calls. Both return "" or what
// failed (with avro_strerror()).
//
// Writes values[0..n) to a new file at path (an existing one is removed
// first) with codec ("null", "deflate", "snappy", "lzma") and block_size
// bytes per block (avro-c's buffer; it writes deflate at zlib level 9).
std::string avroc_file_write(const char *path, avro_schema_t schema, const char *codec,
                             size_t block_size, avro_value_t *values, size_t n);
// Reads every record of path into one generic value of iface (reset
// between records, as avrocat does) and calls fn on each; *count gets the
// number read.
std::string avroc_file_read(const char *path, avro_value_iface_t *iface,
                            void (*fn)(void *ctx, avro_value_t *v), void *ctx, size_t *count);

} // namespace avkbench

#endif
