// Generated-code rows: decode, encode and skip of the record data sets through code `avrokit gen` wrote at build time, beside the generic plan rows of the same data.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench_binary.h"
#include "bench_common.h"

#include "avrokit/macros.h"
#include "avrokit/reader.h"
#include "avrokit/writer.h"

// Written by `avrokit gen --prefix bg` from bench/gen/*.avsc (bench/CMakeLists.txt).
#include "GenericRecord.h"
#include "Longs.h"
#include "RealisticLongs.h"
#include "Strings.h"
#include "WideRecord.h"

namespace avkbench {
namespace {

// One generated type's functions, so the rows below are written once.
template <class T> struct GenOps {
    avk_status (*decode)(avk_reader *, avk_arena *, T *, avk_error *);
    avk_status (*skip)(avk_reader *, const avk_limits *, avk_error *);
    avk_status (*encode)(const T *, avk_writer *, avk_error *);
    avk_status (*to_value)(const T *, const avk_type *, avk_arena *, avk_value *, avk_error *);
    avk_status (*from_value)(const avk_value *, avk_arena *, T *, avk_error *);
    const char *(*schema_json)(void);
};

#define AVKBENCH_GEN_OPS(FN)                                                                   \
    GenOps<FN> { FN##_decode, FN##_skip, FN##_encode, FN##_to_value, FN##_from_value, FN##_schema_json }

// A data set with its generated type: the encode inputs (structs made from
// the data set's avk_values with FN_from_value) are made once, on first use.
template <class T> struct GenCase {
    GenCase(const BinSpec &(*s)(), GenOps<T> o) : spec(s), ops(o) {}
    const BinSpec &(*spec)();
    GenOps<T> ops;
    mutable bool built = false;
    mutable std::string error;
    mutable avk_arena *arena = nullptr; // holds what the structs point to
    mutable std::vector<T> values;
};

// The generated code's schema must be the data set's: the .avsc files in
// bench/gen/ are copies of the schemas bench_binary_data.cc builds.
template <class T> std::string check_schema(const GenCase<T> *c, const BinData *d)
{
    const char *json = c->ops.schema_json();
    avk_schema *s = nullptr;
    avk_error err;
    if (avk_schema_parse(json, std::strlen(json), nullptr, &s, &err) != AVK_OK)
        return avk_message("avk_schema_parse of the generated schema", 0, err);
    bool same = avk_type_equal(avk_schema_root(s), d->root) != 0;
    avk_schema_free(s);
    if (!same)
        return std::string("bench/gen/") + c->spec().name +
               ".avsc differs from the data set's schema in bench_binary_data.cc";
    return "";
}

template <class T> BinData *gen_data(benchmark::State &state, const GenCase<T> *c)
{
    BinData *d = row_data(state, &c->spec());
    if (!d)
        return nullptr;
    std::string e = check_schema(c, d);
    if (!e.empty()) {
        state.SkipWithError(e.c_str());
        return nullptr;
    }
    return d;
}

// Decodes every record once; with check, compares each record's end offset,
// and its digest (through FN_to_value, then the generic digest) with the
// generated data.
template <class T>
std::string gen_decode_pass(const GenCase<T> *c, const BinData *d, avk_arena *arena,
                            avk_arena *check_arena, bool check)
{
    avk_reader r;
    avk_reader_init_memory(&r, d->encoded.data(), d->encoded.size());
    avk_error err;
    T out;
    for (size_t i = 0; i < d->records(); i++) {
        avk_arena_reset(arena);
        if (c->ops.decode(&r, arena, &out, &err) != AVK_OK)
            return avk_message("generated decode", i, err);
        if (!check)
            continue;
        if (avk_reader_offset(&r) != d->offsets[i + 1])
            return "record " + std::to_string(i) + " ended at byte " +
                   std::to_string(avk_reader_offset(&r)) + ", expected " +
                   std::to_string(d->offsets[i + 1]);
        avk_arena_reset(check_arena);
        avk_value v;
        if (c->ops.to_value(&out, d->root, check_arena, &v, &err) != AVK_OK)
            return avk_message("generated to_value", i, err);
        Digest g;
        digest_avk(g, &v, d->root);
        if (g.h != d->digests[i])
            return digest_mismatch(i);
    }
    return "";
}

// FN_decode record after record over one memory reader, the arena reset
// before each record, strings as views into the input: what the generic
// avrokit/Binary/Decode rows do with avk_plan_decode.
template <class T> void gen_decode(benchmark::State &state, const GenCase<T> *c)
{
    BinData *d = gen_data(state, c);
    if (!d)
        return;
    AllocCounts counts;
    avk_allocator alloc = counting_allocator(&counts);
    avk_arena_options ao;
    avk_arena_options_init(&ao);
    ao.allocator = &alloc;
    avk_arena *arena = nullptr, *check_arena = nullptr;
    avk_error err;
    if (avk_arena_new(&ao, &arena, &err) != AVK_OK ||
        avk_arena_new(nullptr, &check_arena, &err) != AVK_OK) {
        avk_arena_free(arena);
        state.SkipWithError(avk_message("avk_arena_new", 0, err).c_str());
        return;
    }
    const uint8_t *data = d->encoded.data();
    const size_t len = d->encoded.size(), n = d->records();
    auto decode = c->ops.decode;
    size_t bad = SIZE_MAX;
    T out;
    for (auto _ : state) {
        avk_reader r;
        avk_reader_init_memory(&r, data, len);
        for (size_t i = 0; i < n; i++) {
            avk_arena_reset(arena);
            if (AVK_UNLIKELY(decode(&r, arena, &out, &err) != AVK_OK)) {
                bad = i;
                break;
            }
            benchmark::DoNotOptimize(out);
        }
        if (AVK_UNLIKELY(bad != SIZE_MAX))
            break;
    }
    std::string problem;
    if (bad != SIZE_MAX) {
        problem = avk_message("generated decode", bad, err);
    } else {
        // The timed loop was the warm-up: one more pass must not allocate.
        counts = AllocCounts();
        size_t before = avk_arena_allocations(arena);
        problem = gen_decode_pass(c, d, arena, check_arena, false);
        size_t made = avk_arena_allocations(arena) - before;
        set_alloc_counters(state, counts, n);
        if (problem.empty() && made != 0)
            problem = "the arena allocated " + std::to_string(made) + " times in a pass over " +
                      std::to_string(n) + " records after warm-up (expected none)";
        if (problem.empty())
            problem = gen_decode_pass(c, d, arena, check_arena, true);
    }
    avk_arena_free(check_arena);
    avk_arena_free(arena);
    finish_checked(state, d, problem);
}

// FN_skip over every record (the avrokit/Binary/Skip rows: avk_plan_skip);
// the check pass compares each record's end offset with the generated one.
template <class T> void gen_skip(benchmark::State &state, const GenCase<T> *c)
{
    BinData *d = gen_data(state, c);
    if (!d)
        return;
    const uint8_t *data = d->encoded.data();
    const size_t len = d->encoded.size(), n = d->records();
    auto skip = c->ops.skip;
    avk_error err;
    size_t bad = SIZE_MAX;
    for (auto _ : state) {
        avk_reader r;
        avk_reader_init_memory(&r, data, len);
        for (size_t i = 0; i < n; i++) {
            if (AVK_UNLIKELY(skip(&r, nullptr, &err) != AVK_OK)) {
                bad = i;
                break;
            }
        }
        benchmark::DoNotOptimize(r.pos);
        if (AVK_UNLIKELY(bad != SIZE_MAX))
            break;
    }
    std::string problem;
    if (bad != SIZE_MAX)
        problem = avk_message("generated skip", bad, err);
    avk_reader r;
    avk_reader_init_memory(&r, data, len);
    for (size_t i = 0; i < n && problem.empty(); i++) {
        if (skip(&r, nullptr, &err) != AVK_OK)
            problem = avk_message("generated skip", i, err);
        else if (avk_reader_offset(&r) != d->offsets[i + 1])
            problem = "record " + std::to_string(i) + " skipped to byte " +
                      std::to_string(avk_reader_offset(&r)) + ", expected " +
                      std::to_string(d->offsets[i + 1]);
    }
    set_alloc_counters(state, AllocCounts(), n); // skipping takes no allocator
    finish_checked(state, d, problem);
}

// The encode inputs: each record's avk_value (bench_binary_data.cc built
// them from the generated trees) turned into the generated struct.
template <class T> std::string gen_values(const GenCase<T> *c, BinData *d)
{
    if (c->built)
        return c->error;
    c->built = true;
    c->error = bin_values(c->spec(), d);
    if (!c->error.empty())
        return c->error;
    avk_error err;
    if (avk_arena_new(nullptr, &c->arena, &err) != AVK_OK)
        return c->error = avk_message("avk_arena_new", 0, err);
    c->values.resize(d->records());
    for (size_t i = 0; i < d->records(); i++) {
        if (c->ops.from_value(&d->avk_values[i], c->arena, &c->values[i], &err) != AVK_OK)
            return c->error = avk_message("generated from_value", i, err);
    }
    return "";
}

// FN_encode of prebuilt structs into a memory writer reset per iteration;
// the bytes must be the reference encoding (which the generic rows check
// avk_plan_encode writes too).
template <class T> void gen_encode(benchmark::State &state, const GenCase<T> *c)
{
    BinData *d = gen_data(state, c);
    if (!d)
        return;
    std::string e = gen_values(c, d);
    if (!e.empty()) {
        state.SkipWithError(e.c_str());
        return;
    }
    avk_writer w;
    if (!avk_memory_writer(state, d, &w))
        return;
    const T *vals = c->values.data();
    const size_t n = d->records();
    auto encode = c->ops.encode;
    avk_error err;
    size_t bad = SIZE_MAX;
    for (auto _ : state) {
        avk_writer_reset(&w);
        for (size_t i = 0; i < n; i++) {
            if (AVK_UNLIKELY(encode(&vals[i], &w, &err) != AVK_OK)) {
                bad = i;
                break;
            }
        }
        benchmark::DoNotOptimize(w.pos);
        benchmark::ClobberMemory();
        if (AVK_UNLIKELY(bad != SIZE_MAX))
            break;
    }
    set_alloc_counters(state, AllocCounts(), n); // encoding takes no allocator
    finish_encode(state, d, &w, bad == SIZE_MAX ? "" : avk_message("generated encode", bad, err));
}

const GenCase<bg_Longs> kLongs(spec_longs, AVKBENCH_GEN_OPS(bg_Longs));
const GenCase<bg_Strings> kStrings(spec_strings, AVKBENCH_GEN_OPS(bg_Strings));
const GenCase<bg_RealisticLongs> kRealistic(spec_realistic_longs,
                                            AVKBENCH_GEN_OPS(bg_RealisticLongs));
const GenCase<bg_WideRecord> kWide(spec_wide_record, AVKBENCH_GEN_OPS(bg_WideRecord));
const GenCase<bg_GenericRecord> kGeneric(spec_generic_record, AVKBENCH_GEN_OPS(bg_GenericRecord));

template <class T> void add_decode(const GenCase<T> &c)
{
    std::string name = std::string("gen/Binary/Decode/") + c.spec().name;
    benchmark::RegisterBenchmark(name.c_str(), gen_decode<T>, &c)->Unit(benchmark::kMicrosecond);
}

template <class T> void add_encode(const GenCase<T> &c)
{
    std::string name = std::string("gen/Binary/Encode/") + c.spec().name;
    benchmark::RegisterBenchmark(name.c_str(), gen_encode<T>, &c)->Unit(benchmark::kMicrosecond);
}

} // namespace

// gen/<path> rows sit beside avrokit/<path> and avroc/<path> (the same data
// set, decoded or encoded the same way); bench/compare puts them in a column
// of their own. Called by main after register_binary_benchmarks, so the
// generic rows come first in a listing.
void register_gen_benchmarks()
{
    add_decode(kLongs);
    add_decode(kStrings);
    add_decode(kRealistic);
    add_decode(kWide);
    add_decode(kGeneric);
    // WideRecord keeps no trees, so it has no encode rows (as the generic ones);
    // it is the data set of the generic skip row.
    add_encode(kLongs);
    add_encode(kStrings);
    add_encode(kRealistic);
    add_encode(kGeneric);
    benchmark::RegisterBenchmark("gen/Binary/Skip/WideRecord", gen_skip<bg_WideRecord>, &kWide)
        ->Unit(benchmark::kMicrosecond);
}

} // namespace avkbench
