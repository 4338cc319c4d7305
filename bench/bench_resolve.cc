// Schema resolution rows: writer bytes read through another reader schema (dropped, promoted, added, renamed and projected fields), avrokit's resolving plans beside avro-c's resolved writer.
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <avro.h>

#include "bench_binary.h"
#include "bench_common.h"

#include "avrokit/macros.h"
#include "avrokit/reader.h"
#include "avrokit/resolve.h"

#ifdef AVK_BENCH_GEN_RESOLVE
// Written by `avrokit gen --prefix bg --reader EventGeneric.avsc Event.avsc`
// from bench/gen/resolve/ (bench/CMakeLists.txt).
#include <fstream>
#include <sstream>

#include "EventGeneric.h"
#include "EventGeneric_from_Event.h"
#endif

namespace avkbench {
namespace {

// ---- the writer's data ------------------------------------------------------------

// Event: twelve fields of mixed kinds. The reader schemas below drop note,
// ts and weight (spread through the record, so skipping happens between
// kept fields), promote count and seq (int -> long) and ratio
// (float -> double).
std::string event_schema()
{
    return "{\"type\":\"record\",\"name\":\"Event\",\"namespace\":\"bench.resolve\",\"fields\":["
           "{\"name\":\"id\",\"type\":\"long\"},"
           "{\"name\":\"count\",\"type\":\"int\"},"
           "{\"name\":\"name\",\"type\":\"string\"},"
           "{\"name\":\"note\",\"type\":\"string\"},"
           "{\"name\":\"ratio\",\"type\":\"float\"},"
           "{\"name\":\"score\",\"type\":\"double\"},"
           "{\"name\":\"flag\",\"type\":\"boolean\"},"
           "{\"name\":\"ts\",\"type\":\"long\"},"
           "{\"name\":\"seq\",\"type\":\"int\"},"
           "{\"name\":\"level\",\"type\":\"int\"},"
           "{\"name\":\"weight\",\"type\":\"double\"},"
           "{\"name\":\"temp\",\"type\":\"float\"}]}";
}

// Writer field indexes, in the order of event_schema.
enum EventField { kId, kCount, kName, kNote, kRatio, kScore, kFlag, kTs, kSeq, kLevel, kWeight, kTemp };

Datum num(Datum::Kind k, int64_t l)
{
    Datum d;
    d.kind = k;
    d.l = l;
    return d;
}

Datum real(Datum::Kind k, double v)
{
    Datum d;
    d.kind = k;
    d.d = k == Datum::Float ? (double)(float)v : v; // a float datum holds a float's value
    return d;
}

Datum event_gen(std::mt19937_64 &rng, size_t index)
{
    Datum r;
    r.kind = Datum::Record;
    r.kids.reserve(12);
    r.kids.push_back(num(Datum::Long, gen_long_of_length(rng, 1 + (unsigned)(rng() % 10))));
    r.kids.push_back(num(Datum::Int, gen_int_of_length(rng, 1 + (unsigned)(rng() % 3))));
    r.kids.push_back(gen_string(rng, 8, 24));
    r.kids.push_back(gen_string(rng, 16, 64));
    r.kids.push_back(real(Datum::Float, gen_uniform(rng, 0, 1)));
    r.kids.push_back(real(Datum::Double, gen_uniform(rng, -1e6, 1e6)));
    r.kids.push_back(num(Datum::Boolean, (int64_t)(rng() % 2)));
    r.kids.push_back(num(Datum::Long, INT64_C(1700000000000) + (int64_t)index * 50 +
                                          (int64_t)(rng() % 50))); // ms timestamps
    r.kids.push_back(num(Datum::Int, gen_int_of_length(rng, 1 + (unsigned)(rng() % 5))));
    r.kids.push_back(num(Datum::Int, (int64_t)(rng() % 64)));
    r.kids.push_back(real(Datum::Double, gen_uniform(rng, 0, 100)));
    r.kids.push_back(real(Datum::Float, gen_uniform(rng, -40, 50)));
    return r;
}

const BinSpec &spec_event()
{
    static const BinSpec s = {"Event", event_schema, 10000, event_gen, false, nullptr};
    return s;
}

// ---- reader schemas and what they should give ---------------------------------------

// One reader field: taken from writer field `from` (converted to kind), or
// the default dflt when from < 0.
struct ReaderField {
    int from;
    Datum::Kind kind;
    Datum dflt;
};

ReaderField take(int from, Datum::Kind kind)
{
    return ReaderField{from, kind, Datum()};
}

ReaderField fill(Datum dflt)
{
    return ReaderField{-1, dflt.kind, dflt};
}

// The reader's record made from the writer's by the specification's rules,
// written out here: promotions convert, defaults fill, the rest is copied.
Datum reader_record(const Datum &w, const std::vector<ReaderField> &fields)
{
    Datum r;
    r.kind = Datum::Record;
    for (const ReaderField &f : fields) {
        if (f.from < 0) {
            r.kids.push_back(f.dflt);
            continue;
        }
        const Datum &src = w.kids[(size_t)f.from];
        Datum d = src;
        d.kind = f.kind;
        if (src.kind == Datum::Float && f.kind == Datum::Double)
            d.d = (double)(float)src.d; // the float's value, widened
        r.kids.push_back(std::move(d));
    }
    return r;
}

// Generic: three fields dropped, three promoted, the rest as written.
std::string generic_reader()
{
    return "{\"type\":\"record\",\"name\":\"Event\",\"namespace\":\"bench.resolve\",\"fields\":["
           "{\"name\":\"id\",\"type\":\"long\"},"
           "{\"name\":\"count\",\"type\":\"long\"},"
           "{\"name\":\"name\",\"type\":\"string\"},"
           "{\"name\":\"ratio\",\"type\":\"double\"},"
           "{\"name\":\"score\",\"type\":\"double\"},"
           "{\"name\":\"flag\",\"type\":\"boolean\"},"
           "{\"name\":\"seq\",\"type\":\"long\"},"
           "{\"name\":\"level\",\"type\":\"int\"},"
           "{\"name\":\"temp\",\"type\":\"float\"}]}";
}

std::vector<ReaderField> generic_fields()
{
    return {take(kId, Datum::Long),      take(kCount, Datum::Long),    take(kName, Datum::String),
            take(kRatio, Datum::Double), take(kScore, Datum::Double),  take(kFlag, Datum::Boolean),
            take(kSeq, Datum::Long),     take(kLevel, Datum::Int),     take(kTemp, Datum::Float)};
}

// Evolution: Generic plus two added fields with defaults (one in the
// middle, one at the end) and score renamed to rating through an alias.
std::string evolution_reader()
{
    return "{\"type\":\"record\",\"name\":\"Event\",\"namespace\":\"bench.resolve\",\"fields\":["
           "{\"name\":\"id\",\"type\":\"long\"},"
           "{\"name\":\"version\",\"type\":\"int\",\"default\":1},"
           "{\"name\":\"count\",\"type\":\"long\"},"
           "{\"name\":\"name\",\"type\":\"string\"},"
           "{\"name\":\"ratio\",\"type\":\"double\"},"
           "{\"name\":\"rating\",\"type\":\"double\",\"aliases\":[\"score\"]},"
           "{\"name\":\"flag\",\"type\":\"boolean\"},"
           "{\"name\":\"seq\",\"type\":\"long\"},"
           "{\"name\":\"level\",\"type\":\"int\"},"
           "{\"name\":\"temp\",\"type\":\"float\"},"
           "{\"name\":\"region\",\"type\":\"string\",\"default\":\"unknown\"}]}";
}

std::vector<ReaderField> evolution_fields()
{
    Datum region;
    region.kind = Datum::String;
    region.s = "unknown";
    return {take(kId, Datum::Long),      fill(num(Datum::Int, 1)),     take(kCount, Datum::Long),
            take(kName, Datum::String),  take(kRatio, Datum::Double),  take(kScore, Datum::Double),
            take(kFlag, Datum::Boolean), take(kSeq, Datum::Long),      take(kLevel, Datum::Int),
            take(kTemp, Datum::Float),   fill(region)};
}

// Projection: two of WideRecord's hundred fields (f13 a string, f51 a long;
// WideRecord's fields go int, long, double, string, boolean in turn).
std::string projection_reader()
{
    return "{\"type\":\"record\",\"name\":\"WideRecord\",\"namespace\":\"bench.binary\","
           "\"fields\":[{\"name\":\"f13\",\"type\":\"string\"},"
           "{\"name\":\"f51\",\"type\":\"long\"}]}";
}

std::vector<ReaderField> projection_fields()
{
    return {take(13, Datum::String), take(51, Datum::Long)};
}

// ---- cases --------------------------------------------------------------------------

// What one row reads: a writer data set, and a reader schema with the
// fields it should give, or none for a plain read with the writer's schema.
struct ResolveData;
struct Case {
    const BinSpec &(*writer)();
    std::string (*reader)();                 // nullptr: read with the writer's schema
    std::vector<ReaderField> (*fields)();
    mutable std::unique_ptr<ResolveData> data;
};

struct ResolveData {
    std::string error;        // set when setting up failed; both rows skip with it
    std::string avroc_error;  // set when only avro-c's resolver could not be made
    BinData *w = nullptr;
    avk_schema *reader = nullptr;
    const avk_type *root = nullptr;       // the reader's root type
    const avk_plan *plan = nullptr;
    avk_plan *resolving = nullptr;
    avro_schema_t areader = nullptr;
    avro_value_iface_t *dest_iface = nullptr;  // generic values of the reader schema
    avro_value_iface_t *resolver = nullptr;    // avro-c's resolved writer, or nullptr
    std::vector<uint64_t> owned_digests;
    const std::vector<uint64_t> *digests = nullptr; // per record, of the reader's values
};

std::string avk_failed(const char *what, const avk_error &err)
{
    return std::string(what) + ": " + avk_status_name(err.status) + ": " + err.message;
}

// Runs the writer's generator again from bin_data's seed (the data sets
// keep no trees) and digests each record as the reader should see it; each
// regenerated record must encode to bin_data's bytes, so the digests are of
// the very records being read.
std::string expected_digests(const Case &c, ResolveData &rd)
{
    const BinSpec &spec = c.writer();
    const BinData *w = rd.w;
    const std::vector<ReaderField> fields = c.fields();
    std::mt19937_64 rng(bin_seed(spec));
    std::vector<uint8_t> enc;
    rd.owned_digests.reserve(w->records());
    for (size_t i = 0; i < w->records(); i++) {
        Datum t = spec.gen(rng, i);
        enc.clear();
        ref_encode(enc, t);
        size_t len = w->offsets[i + 1] - w->offsets[i];
        if (enc.size() != len || std::memcmp(enc.data(), &w->encoded[w->offsets[i]], len) != 0)
            return "record " + std::to_string(i) + " regenerated differs from the data set's";
        Digest g;
        digest_datum(g, reader_record(t, fields));
        rd.owned_digests.push_back(g.h);
    }
    rd.digests = &rd.owned_digests;
    return "";
}

std::string setup(const Case &c, ResolveData &rd)
{
    rd.w = bin_data(c.writer());
    if (!rd.w->error.empty())
        return rd.w->error;
    if (c.reader == nullptr) {
        rd.root = rd.w->root;
        rd.plan = rd.w->plan;
        rd.dest_iface = rd.w->iface;
        rd.digests = &rd.w->digests;
        return "";
    }
    std::string json = c.reader();
    avk_error err;
    if (avk_schema_parse(json.data(), json.size(), nullptr, &rd.reader, &err) != AVK_OK)
        return avk_failed("avk_schema_parse (reader)", err);
    rd.root = avk_schema_root(rd.reader);
    if (avk_plan_new_resolving(rd.w->root, rd.root, nullptr, &rd.resolving, &err) != AVK_OK)
        return avk_failed("avk_plan_new_resolving", err);
    rd.plan = rd.resolving;
    std::string e = expected_digests(c, rd);
    if (!e.empty())
        return e;

    if (avro_schema_from_json_length(json.data(), json.size(), &rd.areader) != 0) {
        rd.avroc_error = std::string("avro_schema_from_json_length: ") + avro_strerror();
        return "";
    }
    rd.dest_iface = avro_generic_class_from_schema(rd.areader);
    if (rd.dest_iface == nullptr) {
        rd.avroc_error = std::string("avro_generic_class_from_schema: ") + avro_strerror();
        return "";
    }
    rd.resolver = avro_resolved_writer_new(rd.w->aschema, rd.areader);
    if (rd.resolver == nullptr)
        rd.avroc_error = std::string("avro_resolved_writer_new: ") + avro_strerror();
    return "";
}

// The case's data, or nullptr (the row skipped) when it could not be made.
ResolveData *case_data(benchmark::State &state, const Case *c)
{
    if (!c->data) {
        c->data.reset(new ResolveData());
        c->data->error = setup(*c, *c->data);
    }
    if (!c->data->error.empty()) {
        state.SkipWithError(c->data->error.c_str());
        return nullptr;
    }
    return c->data.get();
}

// ---- rows ---------------------------------------------------------------------------

void finish_case(benchmark::State &state, const ResolveData *rd, const std::string &problem,
                 const AllocCounts &c)
{
    size_t n = rd->w->records();
    state.counters["allocs_per_record"] = benchmark::Counter((double)c.calls / (double)n);
    state.counters["bytes_per_record"] = benchmark::Counter((double)c.bytes / (double)n);
    if (!problem.empty())
        state.SkipWithError(problem.c_str());
    finish_row(state, n, rd->w->encoded.size()); // "values" is records: ns per record
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
    return "record " + std::to_string(record) +
           " decoded to different reader values than the writer's data gives";
}

// One pass over every record; with check, each record's reader values are
// digested by the reader's schema and its end offset compared.
std::string avk_pass(const ResolveData *rd, avk_arena *arena, bool check)
{
    const BinData *w = rd->w;
    avk_reader r;
    avk_reader_init_memory(&r, w->encoded.data(), w->encoded.size());
    avk_error err;
    avk_value v;
    for (size_t i = 0; i < w->records(); i++) {
        avk_arena_reset(arena);
        if (avk_plan_decode(rd->plan, &r, arena, &v, &err) != AVK_OK)
            return avk_message("avk_plan_decode", i, err);
        if (!check)
            continue;
        if (avk_reader_offset(&r) != w->offsets[i + 1])
            return "record " + std::to_string(i) + " ended at byte " +
                   std::to_string(avk_reader_offset(&r)) + ", expected " +
                   std::to_string(w->offsets[i + 1]);
        if (v.type != rd->root)
            return "record " + std::to_string(i) + " came out with another type than the reader's root";
        Digest g;
        digest_avk(g, &v, rd->root);
        if (g.h != (*rd->digests)[i])
            return digest_mismatch(i);
    }
    return "";
}

// avk_plan_decode with the case's plan (resolving, or the writer's own),
// record after record from one memory reader, the arena reset per record;
// strings are views into the input, as in the Binary/Decode rows.
void avk_row(benchmark::State &state, const Case *c)
{
    ResolveData *rd = case_data(state, c);
    if (!rd)
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
        state.SkipWithError(avk_failed("avk_arena_new", err).c_str());
        return;
    }
    const avk_plan *plan = rd->plan;
    const uint8_t *data = rd->w->encoded.data();
    const size_t len = rd->w->encoded.size(), n = rd->w->records();
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
        // The timed loop warmed the arena up: count one more pass, then check.
        counts = AllocCounts();
        problem = avk_pass(rd, arena, false);
        AllocCounts warm = counts;
        if (problem.empty())
            problem = avk_pass(rd, arena, true);
        counts = warm;
    }
    avk_arena_free(arena);
    finish_case(state, rd, problem, counts);
}

// One pass; read is the value avro_value_read fills (the resolved writer,
// which writes into dest, or dest itself), dest the reader's generic value.
std::string avroc_pass(const ResolveData *rd, avro_reader_t r, avro_value_t *read,
                       avro_value_t *dest, bool check)
{
    const BinData *w = rd->w;
    avro_reader_memory_set_source(r, reinterpret_cast<const char *>(w->encoded.data()),
                                  (int64_t)w->encoded.size());
    for (size_t i = 0; i < w->records(); i++) {
        if (avro_value_read(r, read) != 0)
            return "avro_value_read, record " + std::to_string(i) + ": " + avro_strerror();
        if (!check)
            continue;
        Digest g;
        if (digest_avroc(g, dest) != 0)
            return "avro-c getter failed on record " + std::to_string(i) + ": " + avro_strerror();
        if (g.h != (*rd->digests)[i])
            return digest_mismatch(i);
    }
    char extra;
    if (check && avro_read(r, &extra, 1) == 0)
        return "bytes left over after the last record";
    return "";
}

// avro-c: avro_value_read into a resolved writer whose destination is one
// reused generic value of the reader schema (how avro-c's file reader
// resolves), or straight into a generic value of the writer schema.
void avroc_row(benchmark::State &state, const Case *c)
{
    ResolveData *rd = case_data(state, c);
    if (!rd)
        return;
    if (!rd->avroc_error.empty()) {
        state.SkipWithError(rd->avroc_error.c_str());
        return;
    }
    avro_value_t dest, resolved;
    if (avro_generic_value_new(rd->dest_iface, &dest) != 0) {
        state.SkipWithError("avro_generic_value_new failed");
        return;
    }
    avro_value_t *read = &dest;
    if (rd->resolver) {
        if (avro_resolved_writer_new_value(rd->resolver, &resolved) != 0) {
            avro_value_decref(&dest);
            state.SkipWithError("avro_resolved_writer_new_value failed");
            return;
        }
        avro_resolved_writer_set_dest(&resolved, &dest);
        read = &resolved;
    }
    const char *data = reinterpret_cast<const char *>(rd->w->encoded.data());
    const int64_t len = (int64_t)rd->w->encoded.size();
    const size_t n = rd->w->records();
    avro_reader_t r = avro_reader_memory(data, len);
    size_t bad = SIZE_MAX;
    for (auto _ : state) {
        avro_reader_memory_set_source(r, data, len);
        for (size_t i = 0; i < n; i++) {
            if (AVK_UNLIKELY(avro_value_read(r, read) != 0)) {
                bad = i;
                break;
            }
        }
        benchmark::ClobberMemory();
        if (AVK_UNLIKELY(bad != SIZE_MAX))
            break;
    }
    std::string problem;
    AllocCounts counts;
    if (bad != SIZE_MAX) {
        problem = "avro_value_read, record " + std::to_string(bad) + ": " + avro_strerror();
    } else {
        with_avroc_counting(&counts, [&] { problem = avroc_pass(rd, r, read, &dest, false); });
        if (problem.empty())
            problem = avroc_pass(rd, r, read, &dest, true);
    }
    avro_reader_free(r);
    if (rd->resolver)
        avro_value_decref(&resolved);
    avro_value_decref(&dest);
    finish_case(state, rd, problem, counts);
}

// ---- projection floor ------------------------------------------------------------------

// WideRecord's projection written by hand for its layout (fields go int,
// long, double, string, boolean in turn): no plan, no bounds or validity
// checks, one pointer stepping field to field. Any reader of f13 and f51
// has to step over every field like this (Avro records carry no sizes), so
// this is the floor under Resolve/Projection, as Binary/Memcpy is under
// Binary/Decode. in must have 8 readable bytes past the data.
AVK_INLINE const uint8_t *skip_varint(const uint8_t *p)
{
    uint64_t w, stops;
    std::memcpy(&w, p, 8);
    stops = ~w & 0x8080808080808080ull;
    if (AVK_LIKELY(stops))
        return p + ((unsigned)__builtin_ctzll(stops) >> 3) + 1;
    return p + (p[8] < 0x80 ? 9 : 10);
}

AVK_INLINE const uint8_t *read_varint(const uint8_t *p, int64_t *out)
{
    uint64_t u = 0;
    unsigned shift = 0;
    uint8_t b;
    do {
        b = *p++;
        u |= (uint64_t)(b & 0x7f) << shift;
        shift += 7;
    } while ((b & 0x80) && shift < 70);
    *out = (int64_t)((u >> 1) ^ (0 - (u & 1)));
    return p;
}

const uint8_t *hand_project(const uint8_t *p, avk_bytes *f13, int64_t *f51)
{
    for (int k = 0; k < 100; k++) {
        switch (k % 5) {
        case 0:
            p = skip_varint(p);
            break;
        case 1:
            if (k == 51)
                p = read_varint(p, f51);
            else
                p = skip_varint(p);
            break;
        case 2:
            p += 8;
            break;
        case 3: {
            int64_t n;
            p = read_varint(p, &n);
            if (k == 13) {
                f13->data = p;
                f13->len = (size_t)n;
            }
            p += n;
            break;
        }
        default:
            p++;
            break;
        }
    }
    return p;
}

void avk_projection_floor(benchmark::State &state, const Case *c)
{
    ResolveData *rd = case_data(state, c);
    if (!rd)
        return;
    const size_t len = rd->w->encoded.size(), n = rd->w->records();
    std::vector<uint8_t> padded(len + 16, 0);
    std::memcpy(padded.data(), rd->w->encoded.data(), len);
    const uint8_t *data = padded.data();
    avk_bytes s = {nullptr, 0};
    int64_t l = 0;
    for (auto _ : state) {
        const uint8_t *p = data;
        for (size_t i = 0; i < n; i++) {
            p = hand_project(p, &s, &l);
            benchmark::DoNotOptimize(s);
            benchmark::DoNotOptimize(l);
        }
    }
    std::string problem;
    const uint8_t *p = data;
    for (size_t i = 0; i < n && problem.empty(); i++) {
        p = hand_project(p, &s, &l);
        Digest g;
        g.bytes(s.data, s.len);
        g.u64((uint64_t)l);
        if ((size_t)(p - data) != rd->w->offsets[i + 1])
            problem = "record " + std::to_string(i) + " ended at the wrong byte";
        else if (g.h != (*rd->digests)[i])
            problem = digest_mismatch(i);
    }
    finish_case(state, rd, problem, AllocCounts());
}

#ifdef AVK_BENCH_GEN_RESOLVE
// ---- generated resolving decoder ----------------------------------------------------

// The generated code must be for this case's schemas: the reader's from
// bg_Event_schema_json, the writer's from the .avsc it was generated from.
std::string gen_check_schemas(const ResolveData *rd)
{
    avk_error err;
    avk_schema *s = nullptr;
    const char *json = bg_Event_schema_json();
    if (avk_schema_parse(json, std::strlen(json), nullptr, &s, &err) != AVK_OK)
        return avk_failed("avk_schema_parse (generated reader schema)", err);
    bool same = avk_type_equal(avk_schema_root(s), rd->root) != 0;
    avk_schema_free(s);
    if (!same)
        return "bench/gen/resolve/EventGeneric.avsc differs from generic_reader()";
    std::ifstream f(AVK_BENCH_GEN_EVENT_AVSC);
    std::stringstream text;
    text << f.rdbuf();
    std::string w = text.str();
    if (!f || avk_schema_parse(w.data(), w.size(), nullptr, &s, &err) != AVK_OK)
        return std::string("cannot read the writer schema " AVK_BENCH_GEN_EVENT_AVSC);
    same = avk_type_equal(avk_schema_root(s), rd->w->root) != 0;
    avk_schema_free(s);
    if (!same)
        return "bench/gen/resolve/Event.avsc differs from event_schema()";
    return "";
}

std::string gen_pass(const ResolveData *rd, avk_arena *arena, avk_arena *check_arena, bool check)
{
    const BinData *w = rd->w;
    avk_reader r;
    avk_reader_init_memory(&r, w->encoded.data(), w->encoded.size());
    avk_error err;
    bg_Event out;
    for (size_t i = 0; i < w->records(); i++) {
        avk_arena_reset(arena);
        if (bg_Event_decode_from_Event(&r, arena, nullptr, &out, &err) != AVK_OK)
            return avk_message("bg_Event_decode_from_Event", i, err);
        if (!check)
            continue;
        if (avk_reader_offset(&r) != w->offsets[i + 1])
            return "record " + std::to_string(i) + " ended at byte " +
                   std::to_string(avk_reader_offset(&r)) + ", expected " +
                   std::to_string(w->offsets[i + 1]);
        avk_arena_reset(check_arena);
        avk_value v;
        if (bg_Event_to_value(&out, rd->root, check_arena, &v, &err) != AVK_OK)
            return avk_message("bg_Event_to_value", i, err);
        Digest g;
        digest_avk(g, &v, rd->root);
        if (g.h != (*rd->digests)[i])
            return digest_mismatch(i);
    }
    return "";
}

// The generated resolving decoder (writer Event into the Generic reader's
// struct), record after record from one memory reader, the arena reset per
// record, as avk_row does with the resolving plan.
void gen_row(benchmark::State &state, const Case *c)
{
    ResolveData *rd = case_data(state, c);
    if (!rd)
        return;
    std::string problem = gen_check_schemas(rd);
    if (!problem.empty()) {
        state.SkipWithError(problem.c_str());
        return;
    }
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
        state.SkipWithError(avk_failed("avk_arena_new", err).c_str());
        return;
    }
    const uint8_t *data = rd->w->encoded.data();
    const size_t len = rd->w->encoded.size(), n = rd->w->records();
    size_t bad = SIZE_MAX;
    bg_Event out;
    for (auto _ : state) {
        avk_reader r;
        avk_reader_init_memory(&r, data, len);
        for (size_t i = 0; i < n; i++) {
            avk_arena_reset(arena);
            if (AVK_UNLIKELY(bg_Event_decode_from_Event(&r, arena, nullptr, &out, &err) !=
                             AVK_OK)) {
                bad = i;
                break;
            }
            benchmark::DoNotOptimize(out);
        }
        if (AVK_UNLIKELY(bad != SIZE_MAX))
            break;
    }
    if (bad != SIZE_MAX) {
        problem = avk_message("bg_Event_decode_from_Event", bad, err);
    } else {
        // Warmed up: one more pass must not allocate; then check.
        counts = AllocCounts();
        size_t before = avk_arena_allocations(arena);
        problem = gen_pass(rd, arena, check_arena, false);
        size_t made = avk_arena_allocations(arena) - before;
        AllocCounts warm = counts;
        if (problem.empty() && made != 0)
            problem = "the arena allocated " + std::to_string(made) +
                      " times in a pass after warm-up (expected none)";
        if (problem.empty())
            problem = gen_pass(rd, arena, check_arena, true);
        counts = warm;
    }
    avk_arena_free(check_arena);
    avk_arena_free(arena);
    finish_case(state, rd, problem, counts);
}
#endif

// ---- registration -------------------------------------------------------------------

const Case kGeneric = {spec_event, generic_reader, generic_fields, nullptr};
const Case kEvolution = {spec_event, evolution_reader, evolution_fields, nullptr};
const Case kDirect = {spec_event, nullptr, nullptr, nullptr};
const Case kProjection = {spec_wide_record, projection_reader, projection_fields, nullptr};
const Case kFull = {spec_wide_record, nullptr, nullptr, nullptr};

void row(const std::string &name, void (*fn)(benchmark::State &, const Case *), const Case &c)
{
    benchmark::RegisterBenchmark(name.c_str(), fn, &c)->Unit(benchmark::kMicrosecond);
}

// Registered before main runs, as bench_file.cc does; avrokit/<path> then
// avroc/<path>, as compare pairs them. Resolve/Evolution has no avro-c row:
// avro_resolved_writer_new refuses reader fields the writer lacks, even
// with a default, and does not follow aliases ("Reader field ... doesn't
// appear in writer", 1.11.1). It is read against Resolve/Direct (the same
// bytes with the writer's own schema), and Resolve/Projection against
// Resolve/Projection/Full and its Floor, in compare's notes.
int register_resolve_rows()
{
    row("avrokit/Resolve/Generic", avk_row, kGeneric);
    row("avroc/Resolve/Generic", avroc_row, kGeneric);
#ifdef AVK_BENCH_GEN_RESOLVE
    row("gen/Resolve/Generic", gen_row, kGeneric);
#endif
    row("avrokit/Resolve/Direct", avk_row, kDirect);
    row("avroc/Resolve/Direct", avroc_row, kDirect);
    row("avrokit/Resolve/Evolution", avk_row, kEvolution);
    row("avrokit/Resolve/Projection", avk_row, kProjection);
    row("avroc/Resolve/Projection", avroc_row, kProjection);
    row("avrokit/Resolve/Projection/Full", avk_row, kFull);
    row("avroc/Resolve/Projection/Full", avroc_row, kFull);
    row("avrokit/Resolve/Projection/Floor", avk_projection_floor, kProjection);
    return 0;
}

const int kRegistered = register_resolve_rows();

} // namespace
} // namespace avkbench
