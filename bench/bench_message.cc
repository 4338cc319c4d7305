// Message rows: records as separate single-object, Confluent and plain messages, decoded and encoded one message at a time, avrokit beside avro-c.
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench_binary.h"
#include "bench_common.h"

#include "avrokit/macros.h"
#include "avrokit/message.h"
#include "avrokit/reader.h"
#include "avrokit/writer.h"

namespace avkbench {

namespace {

// The Confluent rows' schema id: any; the avro-c rows check the same one.
constexpr uint32_t kSchemaId = 42;

// A data set's records framed one way, back to back, with each message's
// start: header (0, 10 or 5 bytes) then the datum.
struct Framed {
    std::string error;
    avk_framing framing = AVK_FRAMING_RAW;
    size_t header = 0;
    uint8_t header_bytes[AVK_SINGLE_OBJECT_HEADER_SIZE] = {0};
    std::vector<uint8_t> bytes;
    std::vector<size_t> offsets; // messages + 1
};

// The header written here from the specification (C3 01 + fingerprint
// little-endian; 00 + id big-endian), not by the library under test.
Framed frame_records(const BinData *d, avk_framing framing)
{
    Framed f;
    f.framing = framing;
    if (framing == AVK_FRAMING_SINGLE_OBJECT) {
        uint8_t fp[32];
        size_t fp_len = 0;
        avk_error err;
        if (avk_type_fingerprint(d->root, AVK_FINGERPRINT_RABIN, fp, &fp_len, &err) != AVK_OK) {
            f.error = avk_message("avk_type_fingerprint", 0, err);
            return f;
        }
        f.header_bytes[0] = 0xC3;
        f.header_bytes[1] = 0x01;
        std::memcpy(f.header_bytes + 2, fp, 8);
        f.header = AVK_SINGLE_OBJECT_HEADER_SIZE;
    } else if (framing == AVK_FRAMING_CONFLUENT) {
        f.header_bytes[0] = 0;
        for (int i = 0; i < 4; i++)
            f.header_bytes[1 + i] = (uint8_t)(kSchemaId >> (24 - 8 * i));
        f.header = AVK_CONFLUENT_HEADER_SIZE;
    }
    for (size_t i = 0; i < d->records(); i++) {
        f.offsets.push_back(f.bytes.size());
        f.bytes.insert(f.bytes.end(), f.header_bytes, f.header_bytes + f.header);
        f.bytes.insert(f.bytes.end(), d->encoded.begin() + (ptrdiff_t)d->offsets[i],
                       d->encoded.begin() + (ptrdiff_t)d->offsets[i + 1]);
    }
    f.offsets.push_back(f.bytes.size());
    return f;
}

// A store holding the data set's schema (under kSchemaId) and a decoder of
// the framing over it; for raw framing, a decoder over the data set's plan.
struct MessageSide {
    std::string error;
    avk_schema_store *store = nullptr;
    avk_message_decoder *dec = nullptr;
    const avk_schema *stored = nullptr;
    ~MessageSide()
    {
        avk_message_decoder_free(dec);
        avk_schema_store_free(store);
    }
};

void open_side(MessageSide &m, const BinSpec *spec, const BinData *d, avk_framing framing)
{
    avk_error err;
    std::string json = spec->schema();
    if (avk_schema_store_new(nullptr, &m.store, &err) != AVK_OK ||
        avk_schema_store_add(m.store, json.data(), json.size(), kSchemaId, &m.stored, &err) !=
            AVK_OK) {
        m.error = avk_message("avk_schema_store", 0, err);
        return;
    }
    avk_message_decoder_options o;
    std::memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.framing = framing;
    o.store = m.store;
    o.plan = d->plan;
    if (avk_message_decoder_new(&o, &m.dec, &err) != AVK_OK)
        m.error = avk_message("avk_message_decoder_new", 0, err);
}

// Checks each decoded message of f against the generated records (digest),
// decoding with dec, or with the plain plan when dec is null.
std::string avk_check_messages(const BinData *d, const Framed &f, avk_message_decoder *dec,
                               avk_arena *arena)
{
    avk_error err;
    for (size_t i = 0; i < d->records(); i++) {
        avk_arena_reset(arena);
        avk_value v;
        const avk_type *t = d->root;
        if (dec) {
            if (avk_message_decode(dec, f.bytes.data() + f.offsets[i],
                                   f.offsets[i + 1] - f.offsets[i], arena, &v, &err) != AVK_OK)
                return avk_message("avk_message_decode", i, err);
            t = avk_plan_type(avk_message_decoder_plan(dec));
        } else {
            avk_reader r;
            avk_reader_init_memory(&r, f.bytes.data() + f.offsets[i],
                                   f.offsets[i + 1] - f.offsets[i]);
            if (avk_plan_decode(d->plan, &r, arena, &v, &err) != AVK_OK)
                return avk_message("avk_plan_decode", i, err);
            if (avk_reader_offset(&r) != f.offsets[i + 1] - f.offsets[i])
                return "record " + std::to_string(i) + " did not end where its message does";
        }
        Digest g;
        digest_avk(g, &v, t);
        if (g.h != d->digests[i])
            return digest_mismatch(i);
    }
    return "";
}

// One message at a time: a memory reader over the datum and avk_plan_decode
// (Plain), or avk_message_decode of the whole message (the framings).
void avk_message_decode_row(benchmark::State &state, const BinSpec *spec, avk_framing framing)
{
    BinData *d = row_data(state, spec);
    if (!d)
        return;
    Framed f = frame_records(d, framing);
    MessageSide m;
    if (f.error.empty() && framing != AVK_FRAMING_RAW)
        open_side(m, spec, d, framing);
    std::string problem = !f.error.empty() ? f.error : m.error;
    avk_arena *arena = nullptr;
    avk_error err;
    if (problem.empty() && avk_arena_new(nullptr, &arena, &err) != AVK_OK)
        problem = avk_message("avk_arena_new", 0, err);
    if (!problem.empty()) {
        state.SkipWithError(problem.c_str());
        return;
    }
    const uint8_t *bytes = f.bytes.data();
    const size_t *off = f.offsets.data();
    const size_t n = d->records();
    const avk_plan *plan = d->plan;
    avk_message_decoder *dec = m.dec;
    size_t bad = SIZE_MAX;
    for (auto _ : state) {
        avk_value v;
        for (size_t i = 0; i < n; i++) {
            avk_arena_reset(arena);
            avk_status st;
            if (dec) {
                st = avk_message_decode(dec, bytes + off[i], off[i + 1] - off[i], arena, &v, &err);
            } else {
                avk_reader r;
                avk_reader_init_memory(&r, bytes + off[i], off[i + 1] - off[i]);
                st = avk_plan_decode(plan, &r, arena, &v, &err);
            }
            if (AVK_UNLIKELY(st != AVK_OK)) {
                bad = i;
                break;
            }
            benchmark::DoNotOptimize(v);
        }
        if (AVK_UNLIKELY(bad != SIZE_MAX))
            break;
    }
    problem = bad != SIZE_MAX ? avk_message("decode", bad, err) : avk_check_messages(d, f, dec, arena);
    avk_arena_free(arena);
    finish_row(state, n, f.bytes.size());
    if (!problem.empty())
        state.SkipWithError(problem.c_str());
}

// avro-c has no framing: its user checks the header by hand (marker and
// fingerprint, or magic byte and id, against the one schema it knows), then
// avro_value_read of the datum from a memory reader set to it.
void avroc_message_decode_row(benchmark::State &state, const BinSpec *spec, avk_framing framing)
{
    BinData *d = row_data(state, spec);
    if (!d)
        return;
    Framed f = frame_records(d, framing);
    if (!f.error.empty()) {
        state.SkipWithError(f.error.c_str());
        return;
    }
    avro_value_t v;
    if (avro_generic_value_new(d->iface, &v) != 0) {
        state.SkipWithError("avro_generic_value_new failed");
        return;
    }
    const char *bytes = reinterpret_cast<const char *>(f.bytes.data());
    const size_t *off = f.offsets.data();
    const size_t n = d->records(), h = f.header;
    const uint8_t *want = f.header_bytes;
    avro_reader_t r = avro_reader_memory(bytes, 0);
    size_t bad = SIZE_MAX;
    std::string problem;
    for (auto _ : state) {
        for (size_t i = 0; i < n; i++) {
            const char *msg = bytes + off[i];
            if (AVK_UNLIKELY(off[i + 1] - off[i] < h || std::memcmp(msg, want, h) != 0)) {
                bad = i;
                problem = "bad header";
                break;
            }
            avro_reader_memory_set_source(r, msg + h, (int64_t)(off[i + 1] - off[i] - h));
            if (AVK_UNLIKELY(avro_value_read(r, &v) != 0)) {
                bad = i;
                problem = avro_strerror();
                break;
            }
        }
        benchmark::ClobberMemory();
        if (AVK_UNLIKELY(bad != SIZE_MAX))
            break;
    }
    if (bad != SIZE_MAX) {
        problem = "record " + std::to_string(bad) + ": " + problem;
    } else {
        for (size_t i = 0; i < n && problem.empty(); i++) {
            avro_reader_memory_set_source(r, bytes + off[i] + h, (int64_t)(off[i + 1] - off[i] - h));
            Digest g;
            if (avro_value_read(r, &v) != 0 || digest_avroc(g, &v) != 0)
                problem = "record " + std::to_string(i) + ": " + avro_strerror();
            else if (g.h != d->digests[i])
                problem = digest_mismatch(i);
        }
    }
    avro_reader_free(r);
    avro_value_decref(&v);
    finish_row(state, n, f.bytes.size());
    if (!problem.empty())
        state.SkipWithError(problem.c_str());
}

// Compares the encoded messages with the framed reference.
std::string compare_messages(const Framed &f, const uint8_t *data, size_t len)
{
    if (len == f.bytes.size() && std::memcmp(data, f.bytes.data(), len) == 0)
        return "";
    size_t i = 0;
    while (i < len && i < f.bytes.size() && data[i] == f.bytes[i])
        i++;
    return "messages differ from the reference at byte " + std::to_string(i) + " (" +
           std::to_string(len) + " bytes written, " + std::to_string(f.bytes.size()) + " expected)";
}

// avk_message_encode (header, then the value) per record into one memory
// writer; Plain is avk_plan_encode of the same values.
void avk_message_encode_row(benchmark::State &state, const BinSpec *spec, avk_framing framing)
{
    BinData *d = bin_data(*spec);
    std::string problem = bin_values(*spec, d);
    Framed f;
    if (problem.empty()) {
        f = frame_records(d, framing);
        problem = f.error;
    }
    avk_message_encoder enc;
    avk_error err;
    if (problem.empty() && avk_message_encoder_init(&enc, framing, d->plan, kSchemaId, &err) != AVK_OK)
        problem = avk_message("avk_message_encoder_init", 0, err);
    avk_writer w;
    avk_writer_options wo;
    std::memset(&wo, 0, sizeof wo);
    wo.struct_size = sizeof wo;
    wo.buffer_size = f.bytes.size() + 64;
    if (problem.empty() && avk_writer_init_memory(&w, &wo, &err) != AVK_OK)
        problem = avk_message("avk_writer_init_memory", 0, err);
    if (!problem.empty()) {
        state.SkipWithError(problem.c_str());
        return;
    }
    const avk_value *vals = d->avk_values.data();
    const avk_plan *plan = d->plan;
    const size_t n = d->records();
    const bool plain = framing == AVK_FRAMING_RAW;
    size_t bad = SIZE_MAX;
    for (auto _ : state) {
        avk_writer_reset(&w);
        for (size_t i = 0; i < n; i++) {
            avk_status st = plain ? avk_plan_encode(plan, &vals[i], &w, &err)
                                  : avk_message_encode(&enc, &vals[i], &w, &err);
            if (AVK_UNLIKELY(st != AVK_OK)) {
                bad = i;
                break;
            }
        }
        benchmark::DoNotOptimize(w.pos);
        benchmark::ClobberMemory();
        if (AVK_UNLIKELY(bad != SIZE_MAX))
            break;
    }
    if (bad != SIZE_MAX) {
        problem = avk_message("encode", bad, err);
    } else {
        size_t len;
        const uint8_t *data = avk_writer_data(&w, &len);
        problem = compare_messages(f, data, len);
    }
    avk_writer_destroy(&w);
    finish_row(state, n, f.bytes.size());
    if (!problem.empty())
        state.SkipWithError(problem.c_str());
}

// avro-c: avro_write of the header bytes, then avro_value_write.
void avroc_message_encode_row(benchmark::State &state, const BinSpec *spec, avk_framing framing)
{
    BinData *d = bin_data(*spec);
    std::string problem = bin_values(*spec, d);
    Framed f;
    if (problem.empty()) {
        f = frame_records(d, framing);
        problem = f.error;
    }
    if (!problem.empty()) {
        state.SkipWithError(problem.c_str());
        return;
    }
    std::vector<char> buf(f.bytes.size() + 64);
    avro_writer_t w = avro_writer_memory(buf.data(), (int64_t)buf.size());
    avro_value_t *vals = d->avroc_values.data();
    const size_t n = d->records();
    const int64_t h = (int64_t)f.header;
    size_t bad = SIZE_MAX;
    for (auto _ : state) {
        avro_writer_memory_set_dest(w, buf.data(), (int64_t)buf.size());
        for (size_t i = 0; i < n; i++) {
            if (AVK_UNLIKELY((h && avro_write(w, f.header_bytes, h) != 0) ||
                             avro_value_write(w, &vals[i]) != 0)) {
                bad = i;
                break;
            }
        }
        benchmark::ClobberMemory();
        if (AVK_UNLIKELY(bad != SIZE_MAX))
            break;
    }
    if (bad != SIZE_MAX)
        problem = "avro_value_write, record " + std::to_string(bad) + ": " + avro_strerror();
    else
        problem = compare_messages(f, reinterpret_cast<const uint8_t *>(buf.data()),
                                   (size_t)avro_writer_tell(w));
    avro_writer_free(w);
    finish_row(state, n, f.bytes.size());
    if (!problem.empty())
        state.SkipWithError(problem.c_str());
}

// ---- framing's cost, paired ----------------------------------------------------
//
// The cost of framing is a few ns on top of ~50-200 ns per record: the
// difference of two rows' medians drowns in a shared machine's noise. Here
// each iteration times a plain pass and a framed pass over the same
// records back to back (the order alternating, so neither gains from the
// other's warm cache), and reports their difference as its time: noise
// that lasts longer than a pass hits both alike.

// One pass over every record: decode each message (dec) or datum (plan).
bool decode_pass(const Framed &f, avk_message_decoder *dec, const avk_plan *plan,
                 avk_arena *arena, size_t n)
{
    const uint8_t *bytes = f.bytes.data();
    const size_t *off = f.offsets.data();
    avk_error err;
    avk_value v;
    for (size_t i = 0; i < n; i++) {
        avk_arena_reset(arena);
        avk_status st;
        if (dec) {
            st = avk_message_decode(dec, bytes + off[i], off[i + 1] - off[i], arena, &v, &err);
        } else {
            avk_reader r;
            avk_reader_init_memory(&r, bytes + off[i], off[i + 1] - off[i]);
            st = avk_plan_decode(plan, &r, arena, &v, &err);
        }
        if (AVK_UNLIKELY(st != AVK_OK))
            return false;
        benchmark::DoNotOptimize(v);
    }
    return true;
}

// One pass encoding every value: as messages (enc) or plain datums (plan).
bool encode_pass(const avk_message_encoder *enc, const avk_plan *plan, const avk_value *vals,
                 avk_writer *w, size_t n)
{
    avk_error err;
    avk_writer_reset(w);
    for (size_t i = 0; i < n; i++) {
        avk_status st = enc ? avk_message_encode(enc, &vals[i], w, &err)
                            : avk_plan_encode(plan, &vals[i], w, &err);
        if (AVK_UNLIKELY(st != AVK_OK))
            return false;
    }
    benchmark::DoNotOptimize(w->pos);
    benchmark::ClobberMemory();
    return true;
}

void framing_cost_row(benchmark::State &state, const BinSpec *spec, avk_framing framing,
                      bool decode)
{
    BinData *d = bin_data(*spec);
    std::string problem = d->error;
    if (problem.empty() && !decode)
        problem = bin_values(*spec, d);
    Framed plain, framed;
    if (problem.empty()) {
        plain = frame_records(d, AVK_FRAMING_RAW);
        framed = frame_records(d, framing);
        problem = !plain.error.empty() ? plain.error : framed.error;
    }
    MessageSide m;
    avk_message_encoder enc;
    avk_arena *arena = nullptr;
    avk_writer w;
    bool have_writer = false;
    avk_error err;
    if (problem.empty() && decode) {
        open_side(m, spec, d, framing);
        problem = m.error;
        if (problem.empty() && avk_arena_new(nullptr, &arena, &err) != AVK_OK)
            problem = avk_message("avk_arena_new", 0, err);
    } else if (problem.empty()) {
        avk_writer_options wo;
        std::memset(&wo, 0, sizeof wo);
        wo.struct_size = sizeof wo;
        wo.buffer_size = framed.bytes.size() + 64;
        if (avk_message_encoder_init(&enc, framing, d->plan, kSchemaId, &err) != AVK_OK)
            problem = avk_message("avk_message_encoder_init", 0, err);
        else if (avk_writer_init_memory(&w, &wo, &err) != AVK_OK)
            problem = avk_message("avk_writer_init_memory", 0, err);
        else
            have_writer = true;
    }
    if (!problem.empty()) {
        avk_arena_free(arena);
        state.SkipWithError(problem.c_str());
        return;
    }
    const size_t n = d->records();
    bool ok = true, framed_first = false;
    using clock = std::chrono::steady_clock;
    for (auto _ : state) {
        clock::duration t_plain{}, t_framed{};
        for (int half = 0; half < 2 && ok; half++) {
            bool is_framed = (half == 0) == framed_first;
            clock::time_point t0 = clock::now();
            if (decode)
                ok = decode_pass(is_framed ? framed : plain, is_framed ? m.dec : nullptr, d->plan,
                                 arena, n);
            else
                ok = encode_pass(is_framed ? &enc : nullptr, d->plan, d->avk_values.data(), &w, n);
            (is_framed ? t_framed : t_plain) = clock::now() - t0;
        }
        framed_first = !framed_first;
        if (!ok)
            break;
        double diff = std::chrono::duration<double>(t_framed - t_plain).count();
        // Google Benchmark takes no negative times: a pass where framing
        // came out cheaper (noise) counts as free.
        state.SetIterationTime(diff > 0 ? diff : 0);
    }
    if (!ok) {
        problem = "a pass failed to " + std::string(decode ? "decode" : "encode");
    } else if (decode) {
        problem = avk_check_messages(d, framed, m.dec, arena);
    } else {
        size_t len;
        ok = encode_pass(&enc, d->plan, d->avk_values.data(), &w, n);
        const uint8_t *data = avk_writer_data(&w, &len);
        problem = ok ? compare_messages(framed, data, len) : "the check pass failed to encode";
    }
    avk_arena_free(arena);
    if (have_writer)
        avk_writer_destroy(&w);
    finish_row(state, n, framed.bytes.size());
    if (!problem.empty())
        state.SkipWithError(problem.c_str());
}

typedef void (*MessageRowFn)(benchmark::State &, const BinSpec *, avk_framing);

void add_message_pair(const std::string &path, MessageRowFn avk, MessageRowFn avroc,
                      const BinSpec &spec, avk_framing framing)
{
    benchmark::RegisterBenchmark(("avrokit/" + path).c_str(), avk, &spec, framing)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("avroc/" + path).c_str(), avroc, &spec, framing)
        ->Unit(benchmark::kMicrosecond);
}

} // namespace

void register_message_benchmarks()
{
    static const struct {
        const char *name;
        avk_framing framing;
    } framings[] = {{"Plain", AVK_FRAMING_RAW},
                    {"SingleObject", AVK_FRAMING_SINGLE_OBJECT},
                    {"Confluent", AVK_FRAMING_CONFLUENT}};
    for (const BinSpec *s : {&spec_generic_record(), &spec_realistic_longs()}) {
        // Framing's own cost (no avro-c peer: avro-c has no framing).
        for (const auto &f : framings) {
            if (f.framing == AVK_FRAMING_RAW)
                continue;
            for (bool decode : {true, false})
                benchmark::RegisterBenchmark(("avrokit/Message/FramingCost/" + std::string(
                                                  decode ? "Decode/" : "Encode/") +
                                              s->name + "/" + f.name)
                                                 .c_str(),
                                             framing_cost_row, s, f.framing, decode)
                    ->UseManualTime()
                    // The time counted is a few ns per record: --min-time
                    // would take thousands of iterations to fill. A fixed
                    // count (about 0.3 to 0.5 s per repetition) instead.
                    ->Iterations(100)
                    ->Unit(benchmark::kMicrosecond);
        }
        for (const auto &f : framings)
            add_message_pair(std::string("Message/Decode/") + s->name + "/" + f.name,
                             avk_message_decode_row, avroc_message_decode_row, *s, f.framing);
        for (const auto &f : framings)
            add_message_pair(std::string("Message/Encode/") + s->name + "/" + f.name,
                             avk_message_encode_row, avroc_message_encode_row, *s, f.framing);
    }
}

} // namespace avkbench
