// Binary codec rows: seeded records as library-independent trees, their reference encodings and digests, and the bridges to avrokit and avro-c values.
#ifndef AVROKIT_BENCH_BINARY_H
#define AVROKIT_BENCH_BINARY_H

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <avro.h>

#include "avrokit/arena.h"
#include "avrokit/plan.h"
#include "avrokit/schema.h"
#include "avrokit/value.h"

namespace avkbench {

// One generated value, independent of both libraries: the rows build
// avrokit and avro-c values from it, and the reference encoder and digest
// read it, so neither library checks itself.
struct Datum {
    enum Kind : uint8_t {
        Null, Boolean, Int, Long, Float, Double, Bytes, String, Fixed, Enum, Union, Array, Map,
        Record
    };
    Kind kind = Null;
    int64_t l = 0;            // boolean, int, long, enum index, union branch
    double d = 0;             // float (as a double) and double
    std::string s;            // string, bytes, fixed
    std::vector<Datum> kids;  // record fields, array items, map values, the union's value
    std::vector<std::string> keys; // map keys, beside kids
};

// An order-sensitive 64-bit digest of a value's data (numbers, bytes,
// branch indexes, counts): equal digests mean equal decoded data here,
// where the schema fixes the shape.
struct Digest {
    uint64_t h = 0x9e3779b97f4a7c15ull;
    void u64(uint64_t x)
    {
        h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
        h *= 0xff51afd7ed558ccdull;
        h ^= h >> 33;
    }
    void bytes(const void *data, size_t len);
};

void digest_datum(Digest &g, const Datum &d);
// The avrokit value is read by the schema type t (not by v->type), so a
// decoded value whose shape differs from the schema digests differently.
void digest_avk(Digest &g, const avk_value *v, const avk_type *t);
// Returns nonzero when an avro-c getter fails.
int digest_avroc(Digest &g, avro_value_t *v);

// Appends the Avro binary encoding of d, written here from the
// specification (arrays and maps in one block, as both libraries write
// them by default).
void ref_encode(std::vector<uint8_t> &out, const Datum &d);

// Fills v (caller storage) from d with avk_value_init / avk_value_set_branch;
// strings, bytes and map keys are copied into arena. Returns a message on
// failure, else "".
std::string fill_avk(avk_value *v, const avk_type *t, const Datum &d, avk_arena *arena);
// Fills a fresh avro-c generic value from d. Returns a message on failure.
std::string fill_avroc(avro_value_t *v, const Datum &d);

// Allocator calls and bytes asked for, counted by the allocators below.
struct AllocCounts {
    uint64_t calls = 0;
    uint64_t bytes = 0;
};
// An avrokit allocator over malloc that counts into c.
avk_allocator counting_allocator(AllocCounts *c);
// avro-c's allocator function, counting into ud (an AllocCounts); realloc
// and free underneath, as avro-c's default allocator.
void *avroc_counting_alloc(void *ud, void *ptr, size_t osize, size_t nsize);

// Runs fn with avro-c's process-wide allocator counting into c, then puts
// the previous allocator back. Blocks allocated either way are compatible.
template <class F> void with_avroc_counting(AllocCounts *c, F fn)
{
    struct avro_allocator_state saved = AVRO_CURRENT_ALLOCATOR;
    avro_set_allocator(avroc_counting_alloc, c);
    fn();
    avro_set_allocator(saved.alloc, saved.user_data);
}

// A data set: a schema, a generator of records, and everything made from
// them once, on first use (so a filtered run builds only what it needs).
struct BinData;
struct BinSpec {
    const char *name;           // last path component: "Longs"
    std::string (*schema)();    // the schema's JSON
    size_t records;             // records per iteration
    Datum (*gen)(std::mt19937_64 &rng, size_t index);
    bool keep;                  // keep the trees (rows that encode need them)
    mutable std::unique_ptr<BinData> data;
};

struct BinData {
    std::string error;          // set when setting up failed; rows skip with it
    avk_schema *schema = nullptr;
    avk_plan *plan = nullptr;
    avk_plan *plan_copy = nullptr;  // the same with AVK_PLAN_COPY_STRINGS
    const avk_type *root = nullptr;
    avro_schema_t aschema = nullptr;
    avro_value_iface_t *iface = nullptr;
    std::vector<uint8_t> encoded;   // every record's reference encoding, back to back
    std::vector<size_t> offsets;    // records + 1 record boundaries in encoded
    std::vector<uint64_t> digests;  // per record
    std::vector<Datum> trees;       // when BinSpec::keep

    // Encode inputs, made on first use by an encode row.
    bool values_built = false;
    std::string values_error;   // set when making them failed
    avk_arena *value_arena = nullptr;
    std::vector<avk_value> avk_values;
    std::vector<avro_value_t> avroc_values;
    // Records whose fields are all longs, flattened (builder rows).
    std::vector<int64_t> flat_longs;
    size_t longs_per_record = 0;
    // Root arrays of fixed-size items, as typed C arrays (builder rows).
    std::vector<std::vector<uint8_t>> typed_items;
    std::vector<size_t> typed_counts;

    size_t records() const { return offsets.empty() ? 0 : offsets.size() - 1; }
};

// Builds spec.data on first call; never returns NULL (check ->error).
BinData *bin_data(const BinSpec &spec);
// Builds the encode inputs on first call; returns "" or a message.
std::string bin_values(const BinSpec &spec, BinData *d);

// The data sets.
const BinSpec &spec_longs();
const BinSpec &spec_strings();
const BinSpec &spec_realistic_longs();
const BinSpec &spec_wide_record();
const BinSpec &spec_generic_record();
// GenericRecord's schema and generator, 100,000 records (container file rows).
const BinSpec &spec_generic_record_file();
const BinSpec &spec_int_array();
const BinSpec &spec_long_array();
const BinSpec &spec_boolean_array();
const BinSpec &spec_double_array256();

// Row helpers shared by the record rows (bench_binary.cc) and the
// generated-code rows (bench_gen.cc), so both check their output alike.
// The "values" counter is the record count: compare prints time per record.
void finish_records(benchmark::State &state, const BinData *d);
// finish_records for a row whose check found problem (none when empty).
void finish_checked(benchmark::State &state, const BinData *d, const std::string &problem);
// The row's data set, or nullptr (the row skipped) when it could not be made.
BinData *row_data(benchmark::State &state, const BinSpec *spec);
void set_alloc_counters(benchmark::State &state, const AllocCounts &c, size_t records);
std::string avk_message(const char *what, size_t record, const avk_error &err);
std::string digest_mismatch(size_t record);
// Where an encoding first differs from the reference, by record ("" when equal).
std::string compare_encoding(const BinData *d, const uint8_t *data, size_t len);
// A memory writer big enough for the whole data set; false (the row
// skipped) when it cannot be made.
bool avk_memory_writer(benchmark::State &state, const BinData *d, avk_writer *w);
// Compares w's bytes with the reference encoding (unless failure is set),
// destroys w and finishes the row.
void finish_encode(benchmark::State &state, const BinData *d, avk_writer *w,
                   const std::string &failure);

// Generator pieces for data sets made in other files (bench_resolve.cc),
// so their values are drawn like the ones above.
// The seed bin_data starts spec's generator from: spec.gen run from it
// again gives the same records.
uint64_t bin_seed(const BinSpec &spec);
// A long (or int) whose zigzag varint is len bytes: 1..10 (1..5 for ints).
int64_t gen_long_of_length(std::mt19937_64 &rng, unsigned len);
int32_t gen_int_of_length(std::mt19937_64 &rng, unsigned len);
// Uniform in [lo, hi).
double gen_uniform(std::mt19937_64 &rng, double lo, double hi);
// A string datum of lo to hi printable ASCII characters.
Datum gen_string(std::mt19937_64 &rng, size_t lo, size_t hi);

} // namespace avkbench

#endif
