// Binary codec rows: decode, encode and skip whole records, avrokit (plans, builder) beside avro-c (generic avro_value_t), plus a memcpy floor.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench_binary.h"
#include "bench_common.h"

#include "avrokit/builder.h"
#include "avrokit/macros.h"
#include "avrokit/reader.h"
#include "avrokit/writer.h"

namespace avkbench {

// Time is per iteration over all of a data set's records; finish_row's
// "values" counter is the record count, so compare prints time per record.
void finish_records(benchmark::State &state, const BinData *d)
{
    finish_row(state, d->records(), d->encoded.size());
}

// finish_records for a row whose check found problem (none when empty).
void finish_checked(benchmark::State &state, const BinData *d, const std::string &problem)
{
    if (!problem.empty())
        state.SkipWithError(problem.c_str());
    finish_records(state, d);
}

// The row's data set, or nullptr (the row skipped) when it could not be made.
BinData *row_data(benchmark::State &state, const BinSpec *spec)
{
    BinData *d = bin_data(*spec);
    if (!d->error.empty()) {
        state.SkipWithError(d->error.c_str());
        return nullptr;
    }
    return d;
}

void set_alloc_counters(benchmark::State &state, const AllocCounts &c, size_t records)
{
    state.counters["allocs_per_record"] = benchmark::Counter((double)c.calls / (double)records);
    state.counters["bytes_per_record"] = benchmark::Counter((double)c.bytes / (double)records);
}

std::string avk_message(const char *what, size_t record, const avk_error &err)
{
    char msg[512];
    std::snprintf(msg, sizeof msg, "%s, record %zu: %s: %s", what, record,
                  avk_status_name(err.status), err.message);
    return msg;
}

std::string digest_mismatch(size_t record)
{
    return "record " + std::to_string(record) + " decoded to different data than was generated";
}

// Where an encoding first differs from the reference, by record.
std::string compare_encoding(const BinData *d, const uint8_t *data, size_t len)
{
    size_t n = len < d->encoded.size() ? len : d->encoded.size();
    size_t i = 0;
    while (i < n && data[i] == d->encoded[i])
        i++;
    if (i == n && len == d->encoded.size())
        return "";
    size_t rec = 0;
    while (rec + 1 < d->offsets.size() && d->offsets[rec + 1] <= i)
        rec++;
    char msg[256];
    if (i == n)
        std::snprintf(msg, sizeof msg, "encoding is %zu bytes, expected %zu", len,
                      d->encoded.size());
    else
        std::snprintf(msg, sizeof msg,
                      "encoding differs from the reference at byte %zu (record %zu, byte %zu "
                      "of it): 0x%02x, expected 0x%02x",
                      i, rec, i - d->offsets[rec], data[i], d->encoded[i]);
    return msg;
}

namespace {

// ---- decode -----------------------------------------------------------------------

// Decodes every record once from the start; with check, compares each
// record's digest and end offset with the generated data.
std::string avk_decode_pass(const BinData *d, const avk_plan *plan, avk_arena *arena, bool check)
{
    avk_reader r;
    avk_reader_init_memory(&r, d->encoded.data(), d->encoded.size());
    avk_error err;
    avk_value v;
    for (size_t i = 0; i < d->records(); i++) {
        avk_arena_reset(arena);
        if (avk_plan_decode(plan, &r, arena, &v, &err) != AVK_OK)
            return avk_message("avk_plan_decode", i, err);
        if (!check)
            continue;
        if (avk_reader_offset(&r) != d->offsets[i + 1])
            return "record " + std::to_string(i) + " ended at byte " +
                   std::to_string(avk_reader_offset(&r)) + ", expected " +
                   std::to_string(d->offsets[i + 1]);
        Digest g;
        digest_avk(g, &v, d->root);
        if (g.h != d->digests[i])
            return digest_mismatch(i);
    }
    return "";
}

// avk_plan_decode record after record over one memory reader, the arena
// reset before each record; strings are views into the input (the default)
// or, with copy, copied into the arena as avro-c always does.
void avk_decode_with(benchmark::State &state, const BinSpec *spec, bool copy)
{
    BinData *d = row_data(state, spec);
    if (!d)
        return;
    AllocCounts counts;
    avk_allocator alloc = counting_allocator(&counts);
    avk_arena_options ao;
    std::memset(&ao, 0, sizeof ao);
    ao.struct_size = sizeof ao;
    ao.allocator = &alloc;
    avk_arena *arena = nullptr;
    avk_error err;
    if (avk_arena_new(&ao, &arena, &err) != AVK_OK) {
        state.SkipWithError(avk_message("avk_arena_new", 0, err).c_str());
        return;
    }
    const avk_plan *plan = copy ? d->plan_copy : d->plan;
    const uint8_t *data = d->encoded.data();
    const size_t len = d->encoded.size(), n = d->records();
    size_t bad = SIZE_MAX;
    for (auto _ : state) {
        avk_reader r;
        avk_reader_init_memory(&r, data, len);
        avk_value v;
        for (size_t i = 0; i < n; i++) {
            avk_arena_reset(arena);
            if (AVK_UNLIKELY(avk_plan_decode(plan, &r, arena, &v, &err) != AVK_OK)) {
                bad = i;
                break;
            }
            benchmark::DoNotOptimize(v);
        }
        if (AVK_UNLIKELY(bad != SIZE_MAX))
            break;
    }
    std::string problem;
    if (bad != SIZE_MAX) {
        problem = avk_message("avk_plan_decode", bad, err);
    } else {
        // The timed loop was the warm-up: count one more pass, then check.
        counts = AllocCounts();
        problem = avk_decode_pass(d, plan, arena, false);
        set_alloc_counters(state, counts, n);
        if (problem.empty())
            problem = avk_decode_pass(d, plan, arena, true);
    }
    avk_arena_free(arena);
    finish_checked(state, d, problem);
}

void avk_decode(benchmark::State &state, const BinSpec *spec)
{
    avk_decode_with(state, spec, false);
}

void avk_decode_copy(benchmark::State &state, const BinSpec *spec)
{
    avk_decode_with(state, spec, true);
}

std::string avroc_decode_pass(const BinData *d, avro_reader_t r, avro_value_t *v, bool check)
{
    avro_reader_memory_set_source(r, reinterpret_cast<const char *>(d->encoded.data()),
                                  (int64_t)d->encoded.size());
    for (size_t i = 0; i < d->records(); i++) {
        if (avro_value_read(r, v) != 0)
            return "avro_value_read, record " + std::to_string(i) + ": " + avro_strerror();
        if (!check)
            continue;
        Digest g;
        if (digest_avroc(g, v) != 0)
            return "avro-c getter failed on record " + std::to_string(i) + ": " + avro_strerror();
        if (g.h != d->digests[i])
            return digest_mismatch(i);
    }
    char extra;
    if (check && avro_read(r, &extra, 1) == 0)
        return "bytes left over after the last record";
    return "";
}

// avro_value_read record after record into one reused generic value
// (avro_value_read resets it first), as avro-c's file reader does.
void avroc_decode(benchmark::State &state, const BinSpec *spec)
{
    BinData *d = row_data(state, spec);
    if (!d)
        return;
    avro_value_t v;
    if (avro_generic_value_new(d->iface, &v) != 0) {
        state.SkipWithError("avro_generic_value_new failed");
        return;
    }
    const char *data = reinterpret_cast<const char *>(d->encoded.data());
    const int64_t len = (int64_t)d->encoded.size();
    const size_t n = d->records();
    avro_reader_t r = avro_reader_memory(data, len);
    size_t bad = SIZE_MAX;
    for (auto _ : state) {
        avro_reader_memory_set_source(r, data, len);
        for (size_t i = 0; i < n; i++) {
            if (AVK_UNLIKELY(avro_value_read(r, &v) != 0)) {
                bad = i;
                break;
            }
        }
        benchmark::ClobberMemory();
        if (AVK_UNLIKELY(bad != SIZE_MAX))
            break;
    }
    std::string problem;
    if (bad != SIZE_MAX) {
        problem = "avro_value_read, record " + std::to_string(bad) + ": " + avro_strerror();
    } else {
        AllocCounts counts;
        with_avroc_counting(&counts, [&] { problem = avroc_decode_pass(d, r, &v, false); });
        set_alloc_counters(state, counts, n);
        if (problem.empty())
            problem = avroc_decode_pass(d, r, &v, true);
    }
    avro_reader_free(r);
    avro_value_decref(&v);
    finish_checked(state, d, problem);
}

// ---- skip -------------------------------------------------------------------------

// avk_plan_skip over every record; the check pass compares each record's
// end offset with the generated one.
void avk_skip(benchmark::State &state, const BinSpec *spec)
{
    BinData *d = row_data(state, spec);
    if (!d)
        return;
    const avk_plan *plan = d->plan;
    const uint8_t *data = d->encoded.data();
    const size_t len = d->encoded.size(), n = d->records();
    avk_error err;
    size_t bad = SIZE_MAX;
    for (auto _ : state) {
        avk_reader r;
        avk_reader_init_memory(&r, data, len);
        for (size_t i = 0; i < n; i++) {
            if (AVK_UNLIKELY(avk_plan_skip(plan, &r, &err) != AVK_OK)) {
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
        problem = avk_message("avk_plan_skip", bad, err);
    avk_reader r;
    avk_reader_init_memory(&r, data, len);
    for (size_t i = 0; i < n && problem.empty(); i++) {
        if (avk_plan_skip(plan, &r, &err) != AVK_OK)
            problem = avk_message("avk_plan_skip", i, err);
        else if (avk_reader_offset(&r) != d->offsets[i + 1])
            problem = "record " + std::to_string(i) + " skipped to byte " +
                      std::to_string(avk_reader_offset(&r)) + ", expected " +
                      std::to_string(d->offsets[i + 1]);
    }
    set_alloc_counters(state, AllocCounts(), n); // avk_plan_skip takes no allocator
    finish_checked(state, d, problem);
}

std::string avroc_skip_pass(const BinData *d, avro_reader_t r)
{
    avro_reader_memory_set_source(r, reinterpret_cast<const char *>(d->encoded.data()),
                                  (int64_t)d->encoded.size());
    for (size_t i = 0; i < d->records(); i++) {
        if (avro_skip_data(r, d->aschema) != 0)
            return "avro_skip_data, record " + std::to_string(i) + ": " + avro_strerror();
    }
    char extra;
    if (avro_read(r, &extra, 1) == 0)
        return "bytes left over after the last record";
    return "";
}

// avro_skip_data (avro-c's legacy datum API: it walks the schema and skips
// each value) over every record.
void avroc_skip(benchmark::State &state, const BinSpec *spec)
{
    BinData *d = row_data(state, spec);
    if (!d)
        return;
    const char *data = reinterpret_cast<const char *>(d->encoded.data());
    const int64_t len = (int64_t)d->encoded.size();
    const size_t n = d->records();
    avro_schema_t schema = d->aschema;
    avro_reader_t r = avro_reader_memory(data, len);
    size_t bad = SIZE_MAX;
    for (auto _ : state) {
        avro_reader_memory_set_source(r, data, len);
        for (size_t i = 0; i < n; i++) {
            if (AVK_UNLIKELY(avro_skip_data(r, schema) != 0)) {
                bad = i;
                break;
            }
        }
        benchmark::ClobberMemory();
        if (AVK_UNLIKELY(bad != SIZE_MAX))
            break;
    }
    std::string problem;
    if (bad != SIZE_MAX) {
        problem = "avro_skip_data, record " + std::to_string(bad) + ": " + avro_strerror();
    } else {
        AllocCounts counts;
        with_avroc_counting(&counts, [&] { problem = avroc_skip_pass(d, r); });
        set_alloc_counters(state, counts, n);
    }
    avro_reader_free(r);
    finish_checked(state, d, problem);
}

// ---- encode -----------------------------------------------------------------------

} // namespace

// A memory writer big enough for the whole data set, so no row measures
// buffer growth.
bool avk_memory_writer(benchmark::State &state, const BinData *d, avk_writer *w)
{
    avk_writer_options opts;
    std::memset(&opts, 0, sizeof opts);
    opts.struct_size = sizeof opts;
    opts.buffer_size = d->encoded.size() + 64;
    avk_error err;
    if (avk_writer_init_memory(w, &opts, &err) != AVK_OK) {
        state.SkipWithError(avk_message("avk_writer_init_memory", 0, err).c_str());
        return false;
    }
    return true;
}

void finish_encode(benchmark::State &state, const BinData *d, avk_writer *w,
                   const std::string &failure)
{
    std::string problem = failure;
    if (problem.empty()) {
        size_t len;
        const uint8_t *data = avk_writer_data(w, &len);
        problem = compare_encoding(d, data, len);
    }
    avk_writer_destroy(w);
    finish_checked(state, d, problem);
}

namespace {

// avk_plan_encode of prebuilt values (built once with avk_value_init from
// the generated trees) into a memory writer reset per iteration.
void avk_encode(benchmark::State &state, const BinSpec *spec)
{
    BinData *d = bin_data(*spec);
    std::string e = bin_values(*spec, d);
    if (!e.empty()) {
        state.SkipWithError(e.c_str());
        return;
    }
    avk_writer w;
    if (!avk_memory_writer(state, d, &w))
        return;
    const avk_plan *plan = d->plan;
    const avk_value *vals = d->avk_values.data();
    const size_t n = d->records();
    avk_error err;
    size_t bad = SIZE_MAX;
    for (auto _ : state) {
        avk_writer_reset(&w);
        for (size_t i = 0; i < n; i++) {
            if (AVK_UNLIKELY(avk_plan_encode(plan, &vals[i], &w, &err) != AVK_OK)) {
                bad = i;
                break;
            }
        }
        benchmark::DoNotOptimize(w.pos);
        benchmark::ClobberMemory();
        if (AVK_UNLIKELY(bad != SIZE_MAX))
            break;
    }
    finish_encode(state, d, &w, bad == SIZE_MAX ? "" : avk_message("avk_plan_encode", bad, err));
}

// avk_builder: one avk_builder_long per field of all-long records, from a
// flat int64_t array (what a producer holding its data in structs does).
void avk_encode_builder_longs(benchmark::State &state, const BinSpec *spec)
{
    BinData *d = bin_data(*spec);
    std::string e = bin_values(*spec, d);
    if (e.empty() && d->longs_per_record == 0)
        e = "the builder row needs records of longs only";
    if (!e.empty()) {
        state.SkipWithError(e.c_str());
        return;
    }
    avk_writer w;
    if (!avk_memory_writer(state, d, &w))
        return;
    avk_builder *b = nullptr;
    avk_error err;
    if (avk_builder_new(d->plan, &w, nullptr, &b, &err) != AVK_OK) {
        finish_encode(state, d, &w, avk_message("avk_builder_new", 0, err));
        return;
    }
    const int64_t *in = d->flat_longs.data();
    const size_t n = d->records(), k = d->longs_per_record;
    size_t bad = SIZE_MAX;
    for (auto _ : state) {
        avk_writer_reset(&w);
        avk_builder_reset(b);
        for (size_t i = 0; i < n; i++) {
            const int64_t *rec = in + i * k;
            for (size_t f = 0; f < k; f++) {
                if (AVK_UNLIKELY(avk_builder_long(b, rec[f], &err) != AVK_OK)) {
                    bad = i;
                    break;
                }
            }
            if (AVK_UNLIKELY(bad != SIZE_MAX))
                break;
        }
        benchmark::DoNotOptimize(w.pos);
        benchmark::ClobberMemory();
        if (AVK_UNLIKELY(bad != SIZE_MAX))
            break;
    }
    std::string failure = bad == SIZE_MAX ? "" : avk_message("avk_builder_long", bad, err);
    if (failure.empty() && !avk_builder_complete(b))
        failure = "the builder has a partly built record after the last field";
    avk_builder_free(b);
    finish_encode(state, d, &w, failure);
}

// avk_builder_array: each root array in one call from its typed C array.
void avk_encode_builder_array(benchmark::State &state, const BinSpec *spec)
{
    BinData *d = bin_data(*spec);
    std::string e = bin_values(*spec, d);
    if (e.empty() && d->typed_items.size() != d->records())
        e = "the builder row needs root arrays of typed items";
    if (!e.empty()) {
        state.SkipWithError(e.c_str());
        return;
    }
    avk_writer w;
    if (!avk_memory_writer(state, d, &w))
        return;
    avk_builder *b = nullptr;
    avk_error err;
    if (avk_builder_new(d->plan, &w, nullptr, &b, &err) != AVK_OK) {
        finish_encode(state, d, &w, avk_message("avk_builder_new", 0, err));
        return;
    }
    const size_t n = d->records();
    size_t bad = SIZE_MAX;
    for (auto _ : state) {
        avk_writer_reset(&w);
        avk_builder_reset(b);
        for (size_t i = 0; i < n; i++) {
            if (AVK_UNLIKELY(avk_builder_array(b, d->typed_items[i].data(), d->typed_counts[i],
                                               &err) != AVK_OK)) {
                bad = i;
                break;
            }
        }
        benchmark::DoNotOptimize(w.pos);
        benchmark::ClobberMemory();
        if (AVK_UNLIKELY(bad != SIZE_MAX))
            break;
    }
    std::string failure = bad == SIZE_MAX ? "" : avk_message("avk_builder_array", bad, err);
    avk_builder_free(b);
    finish_encode(state, d, &w, failure);
}

// avro_value_write of prebuilt generic values into a memory writer over a
// buffer big enough for the whole data set.
void avroc_encode(benchmark::State &state, const BinSpec *spec)
{
    BinData *d = bin_data(*spec);
    std::string e = bin_values(*spec, d);
    if (!e.empty()) {
        state.SkipWithError(e.c_str());
        return;
    }
    std::vector<char> buf(d->encoded.size() + 64);
    avro_writer_t w = avro_writer_memory(buf.data(), (int64_t)buf.size());
    avro_value_t *vals = d->avroc_values.data();
    const size_t n = d->records();
    size_t bad = SIZE_MAX;
    for (auto _ : state) {
        avro_writer_memory_set_dest(w, buf.data(), (int64_t)buf.size());
        for (size_t i = 0; i < n; i++) {
            if (AVK_UNLIKELY(avro_value_write(w, &vals[i]) != 0)) {
                bad = i;
                break;
            }
        }
        benchmark::ClobberMemory();
        if (AVK_UNLIKELY(bad != SIZE_MAX))
            break;
    }
    std::string problem;
    if (bad != SIZE_MAX)
        problem = "avro_value_write, record " + std::to_string(bad) + ": " + avro_strerror();
    else
        problem = compare_encoding(d, reinterpret_cast<const uint8_t *>(buf.data()),
                                   (size_t)avro_writer_tell(w));
    avro_writer_free(w);
    finish_checked(state, d, problem);
}

// ---- memcpy floor -------------------------------------------------------------------

// Each record's encoded bytes copied into one reused buffer, as a decoder
// writes each record's doubles into its reused arena block: the floor under
// any decoder of the same bytes.
void memcpy_records(benchmark::State &state, const BinSpec *spec)
{
    BinData *d = row_data(state, spec);
    if (!d)
        return;
    size_t largest = 0;
    for (size_t i = 0; i < d->records(); i++)
        largest = std::max(largest, d->offsets[i + 1] - d->offsets[i]);
    std::vector<uint8_t> dst(largest);
    const uint8_t *src = d->encoded.data();
    const size_t *off = d->offsets.data();
    const size_t n = d->records();
    uint8_t *out = dst.data();
    for (auto _ : state) {
        for (size_t i = 0; i < n; i++) {
            std::memcpy(out, src + off[i], off[i + 1] - off[i]);
            benchmark::DoNotOptimize(out); // a compiler barrier: every copy happens
        }
    }
    size_t last = n - 1;
    if (std::memcmp(out, src + off[last], off[last + 1] - off[last]) != 0)
        state.SkipWithError("the last record's copy differs from its bytes");
    set_alloc_counters(state, AllocCounts(), n);
    finish_records(state, d);
}

// ---- registration -------------------------------------------------------------------

typedef void (*RowFn)(benchmark::State &, const BinSpec *);

void add_row(const std::string &name, RowFn fn, const BinSpec &spec)
{
    benchmark::RegisterBenchmark(name.c_str(), fn, &spec)->Unit(benchmark::kMicrosecond);
}

void add_pair(const std::string &path, RowFn avk, RowFn avroc, const BinSpec &spec)
{
    add_row("avrokit/" + path, avk, spec);
    add_row("avroc/" + path, avroc, spec);
}

} // namespace

void register_binary_benchmarks()
{
    const BinSpec *decode[] = {&spec_longs(), &spec_strings(), &spec_realistic_longs(),
                               &spec_wide_record(), &spec_generic_record()};
    for (const BinSpec *s : decode)
        add_pair(std::string("Binary/Decode/") + s->name, avk_decode, avroc_decode, *s);
    // avro-c always copies strings; these avrokit rows copy them too (into the arena).
    for (const BinSpec *s : {&spec_strings(), &spec_wide_record(), &spec_generic_record()})
        add_pair(std::string("Binary/Decode/") + s->name + "/CopyStrings", avk_decode_copy,
                 avroc_decode, *s);

    const BinSpec *encode[] = {&spec_longs(), &spec_strings(), &spec_realistic_longs(),
                               &spec_generic_record()};
    for (const BinSpec *s : encode)
        add_pair(std::string("Binary/Encode/") + s->name, avk_encode, avroc_encode, *s);
    // The builder against the same avro-c encode of the same records.
    add_pair("Binary/Encode/Longs/Builder", avk_encode_builder_longs, avroc_encode, spec_longs());
    add_pair("Binary/Encode/RealisticLongs/Builder", avk_encode_builder_longs, avroc_encode,
             spec_realistic_longs());

    const BinSpec *arrays[] = {&spec_int_array(), &spec_long_array(), &spec_boolean_array()};
    for (const BinSpec *s : arrays)
        add_pair(std::string("Binary/Showcase/Write/") + s->name, avk_encode, avroc_encode, *s);
    for (const BinSpec *s : arrays)
        add_pair(std::string("Binary/Showcase/Write/") + s->name + "/Builder",
                 avk_encode_builder_array, avroc_encode, *s);
    for (const BinSpec *s : arrays)
        add_pair(std::string("Binary/Showcase/Read/") + s->name, avk_decode, avroc_decode, *s);

    add_pair("Binary/Decode/DoubleArray256", avk_decode, avroc_decode, spec_double_array256());
    add_row("avrokit/Binary/Memcpy/DoubleArray256", memcpy_records, spec_double_array256());

    // avro-c's skip is avro_skip_data from its legacy datum API.
    add_pair("Binary/Skip/WideRecord", avk_skip, avroc_skip, spec_wide_record());
}

} // namespace avkbench
