// Shared benchmark data: seeded value sets, their reference encodings, and row helpers.
#ifndef AVROKIT_BENCH_COMMON_H
#define AVROKIT_BENCH_COMMON_H

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace avkbench {

// Values per iteration in every row.
constexpr size_t kValues = 65536;

// A named set of kValues longs and their Avro encoding, made once per run.
struct Dataset {
    std::string name;            // last path component: "3", "Mixed1-10", "u16"
    std::vector<int64_t> values; // the longs
    std::vector<uint8_t> encoded; // reference zigzag varint encoding, back to back
};

// Byte-at-a-time zigzag varint encoder written from the specification, kept
// independent of avrokit so the checks compare against something else.
size_t ref_encode_long(uint8_t *out, int64_t v);

// The nine varint sets: lengths 1,2,3,4,5,8,10, Mixed1-10, Mixed1-2.
const std::vector<Dataset> &varint_datasets();
// The four reader sets: u8, u16, u32, u64.
const std::vector<Dataset> &reader_datasets();

// Decoding one long at a time from a memory slice: the Varint/Decode/Single
// rows, reused by Reader/Slice. Both check their output after the loop.
void avk_decode_reader(benchmark::State &state, const Dataset *d);
void avroc_decode(benchmark::State &state, const Dataset *d);

// Row registration; each registers avrokit/<path> then avroc/<path>.
void register_varint_benchmarks();
void register_reader_benchmarks();
void register_schema_benchmarks();
void register_binary_benchmarks();
// Single-object, Confluent and plain messages (bench_message.cc).
void register_message_benchmarks();
// The generated-code rows, gen/<path> (bench_gen.cc; built when the CLI is).
void register_gen_benchmarks();

// Sets items processed and the per-iteration "values" counter the compare
// script divides by.
void finish_row(benchmark::State &state, size_t values_per_iter, size_t bytes_per_iter);

// Compares decoded values with the dataset; on mismatch reports the first
// bad index through SkipWithError and returns false.
bool check_values(benchmark::State &state, const Dataset &d, const int64_t *out);
// Compares an encoding with the dataset's reference encoding.
bool check_bytes(benchmark::State &state, const Dataset &d, const uint8_t *data, size_t len);

} // namespace avkbench

#endif
