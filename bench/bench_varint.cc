// Varint rows: single-value and bulk encode/decode, avrokit beside avro-c, plus a memcpy baseline.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "avroc_shim.h"
#include "bench_common.h"

#include "avrokit/reader.h"
#include "avrokit/varint.h"
#include "avrokit/writer.h"

namespace avkbench {

// ---- decode one at a time (shared with bench_reader.cc) -------------------

// avk_reader over the slice, one avk_reader_read_long per value: the
// avrokit side of Reader/Slice.
void avk_decode_reader(benchmark::State &state, const Dataset *d)
{
    const size_t n = d->values.size();
    std::vector<int64_t> out(n);
    int64_t *o = out.data();
    avk_error err;
    bool failed = false;
    for (auto _ : state) {
        avk_reader r;
        avk_reader_init_memory(&r, d->encoded.data(), d->encoded.size());
        for (size_t i = 0; i < n; i++) {
            if (AVK_UNLIKELY(avk_reader_read_long(&r, &o[i], &err) != AVK_OK)) {
                failed = true;
                break;
            }
        }
        benchmark::DoNotOptimize(o);
        benchmark::ClobberMemory();
        if (AVK_UNLIKELY(failed))
            break;
        if (AVK_UNLIKELY(r.pos != r.end)) {
            std::snprintf(err.message, sizeof err.message, "%zu bytes left over",
                          (size_t)(r.end - r.pos));
            failed = true;
            break;
        }
    }
    if (failed)
        state.SkipWithError(err.message);
    else
        check_values(state, *d, o);
    finish_row(state, n, d->encoded.size());
}

// The single-value API on a slice: avk_varint_decode_long per value, the
// position kept by the caller (as the record decoder does).
static void avk_decode_single(benchmark::State &state, const Dataset *d)
{
    const size_t n = d->values.size();
    std::vector<int64_t> out(n);
    int64_t *o = out.data();
    avk_error err;
    avk_error_clear(&err);
    bool failed = false;
    for (auto _ : state) {
        const uint8_t *p = d->encoded.data(), *end = p + d->encoded.size();
        for (size_t i = 0; i < n; i++) {
            size_t k = avk_varint_decode_long(p, (size_t)(end - p), &o[i]);
            if (AVK_UNLIKELY(k == 0)) {
                avk_varint_explain(p, (size_t)(end - p), 0, (uint64_t)(p - d->encoded.data()), &err);
                failed = true;
                break;
            }
            p += k;
        }
        benchmark::DoNotOptimize(o);
        benchmark::ClobberMemory();
        if (AVK_UNLIKELY(failed))
            break;
        if (AVK_UNLIKELY(p != end)) {
            std::snprintf(err.message, sizeof err.message, "%zu bytes left over", (size_t)(end - p));
            failed = true;
            break;
        }
    }
    if (failed)
        state.SkipWithError(err.message);
    else
        check_values(state, *d, o);
    finish_row(state, n, d->encoded.size());
}

// avro-c memory reader, read_long per value. Used for Single, Bulk and
// Reader/Slice.
void avroc_decode(benchmark::State &state, const Dataset *d)
{
    const size_t n = d->values.size();
    const char *src = reinterpret_cast<const char *>(d->encoded.data());
    const int64_t src_len = (int64_t)d->encoded.size();
    std::vector<int64_t> out(n);
    int64_t *o = out.data();
    avro_reader_t r = avro_reader_memory(src, src_len);
    if (r == nullptr) {
        state.SkipWithError("avro_reader_memory failed");
        return;
    }
    const avro_encoding_t &enc = avro_binary_encoding;
    bool failed = false;
    for (auto _ : state) {
        avro_reader_memory_set_source(r, src, src_len);
        for (size_t i = 0; i < n; i++) {
            if (AVK_UNLIKELY(enc.read_long(r, &o[i]) != 0)) {
                failed = true;
                break;
            }
        }
        benchmark::DoNotOptimize(o);
        benchmark::ClobberMemory();
        if (AVK_UNLIKELY(failed))
            break;
    }
    if (failed)
        state.SkipWithError("avro-c read_long failed");
    else
        check_values(state, *d, o);
    finish_row(state, n, d->encoded.size());
    avro_reader_free(r);
}

namespace {

// ---- encode ---------------------------------------------------------------

// The single-value API into a caller buffer: avk_varint_encode_long per
// value, the position kept by the caller (as the record encoder does).
void avk_encode_single(benchmark::State &state, const Dataset *d)
{
    const int64_t *in = d->values.data();
    const size_t n = d->values.size();
    std::vector<uint8_t> buf(n * AVK_VARINT_LONG_MAX + AVK_VARINT_LONG_MAX);
    uint8_t *p = buf.data();
    for (auto _ : state) {
        p = buf.data();
        for (size_t i = 0; i < n; i++)
            p += avk_varint_encode_long(p, in[i]);
        benchmark::DoNotOptimize(p);
        benchmark::ClobberMemory();
    }
    check_bytes(state, *d, buf.data(), (size_t)(p - buf.data()));
    finish_row(state, n, d->encoded.size());
}

// avk_writer memory writer, one avk_writer_write_long per value: the
// avrokit side of Writer/Memory.
void avk_encode_writer(benchmark::State &state, const Dataset *d)
{
    const int64_t *in = d->values.data();
    const size_t n = d->values.size();
    avk_writer_options opts;
    std::memset(&opts, 0, sizeof opts);
    opts.struct_size = sizeof opts;
    opts.buffer_size = n * AVK_VARINT_LONG_MAX + AVK_VARINT_LONG_MAX; // as avro-c's fixed buffer
    avk_writer w;
    avk_error err;
    if (avk_writer_init_memory(&w, &opts, &err) != AVK_OK) {
        state.SkipWithError(err.message);
        return;
    }
    bool failed = false;
    for (auto _ : state) {
        avk_writer_reset(&w);
        for (size_t i = 0; i < n; i++) {
            if (AVK_UNLIKELY(avk_writer_write_long(&w, in[i], &err) != AVK_OK)) {
                failed = true;
                break;
            }
        }
        benchmark::DoNotOptimize(w.pos);
        benchmark::ClobberMemory();
        if (AVK_UNLIKELY(failed))
            break;
    }
    if (failed) {
        state.SkipWithError(err.message);
    } else {
        size_t len;
        const uint8_t *data = avk_writer_data(&w, &len);
        check_bytes(state, *d, data, len);
    }
    finish_row(state, n, d->encoded.size());
    avk_writer_destroy(&w);
}

// avro-c memory writer over a buffer large enough, write_long per value.
// Used for both the Single and the Bulk path: avro-c has no bulk call.
void avroc_encode(benchmark::State &state, const Dataset *d)
{
    const int64_t *in = d->values.data();
    const size_t n = d->values.size();
    std::vector<char> buf(n * AVK_VARINT_LONG_MAX);
    avro_writer_t w = avro_writer_memory(buf.data(), (int64_t)buf.size());
    if (w == nullptr) {
        state.SkipWithError("avro_writer_memory failed");
        return;
    }
    const avro_encoding_t &enc = avro_binary_encoding;
    bool failed = false;
    for (auto _ : state) {
        avro_writer_memory_set_dest(w, buf.data(), (int64_t)buf.size());
        for (size_t i = 0; i < n; i++) {
            if (AVK_UNLIKELY(enc.write_long(w, in[i]) != 0)) {
                failed = true;
                break;
            }
        }
        benchmark::ClobberMemory();
        if (AVK_UNLIKELY(failed))
            break;
    }
    if (failed)
        state.SkipWithError("avro-c write_long failed");
    else
        check_bytes(state, *d, reinterpret_cast<const uint8_t *>(buf.data()),
                    (size_t)avro_writer_tell(w));
    finish_row(state, n, d->encoded.size());
    avro_writer_free(w);
}

// avk_varint_encode_longs on the whole array.
void avk_encode_bulk(benchmark::State &state, const Dataset *d)
{
    const int64_t *in = d->values.data();
    const size_t n = d->values.size();
    std::vector<uint8_t> out(n * AVK_VARINT_LONG_MAX);
    size_t len = 0;
    for (auto _ : state) {
        len = avk_varint_encode_longs(out.data(), in, n);
        benchmark::DoNotOptimize(len);
        benchmark::ClobberMemory();
    }
    check_bytes(state, *d, out.data(), len);
    finish_row(state, n, d->encoded.size());
}

// avk_varint_decode_longs on the whole encoding.
void avk_decode_bulk(benchmark::State &state, const Dataset *d)
{
    const size_t n = d->values.size();
    std::vector<int64_t> out(n);
    avk_error err;
    avk_status st = AVK_OK;
    size_t consumed = 0;
    for (auto _ : state) {
        st = avk_varint_decode_longs(d->encoded.data(), d->encoded.size(), out.data(), n,
                                     &consumed, &err);
        benchmark::DoNotOptimize(st);
        benchmark::ClobberMemory();
        if (AVK_UNLIKELY(st != AVK_OK))
            break;
    }
    if (st != AVK_OK)
        state.SkipWithError(err.message);
    else if (consumed != d->encoded.size())
        state.SkipWithError("avk_varint_decode_longs did not consume the whole input");
    else
        check_values(state, *d, out.data());
    finish_row(state, n, d->encoded.size());
}

// ---- memcpy baseline ------------------------------------------------------

// Copies the decoded array: the floor under any decoder writing it.
void memcpy_decoded(benchmark::State &state, const Dataset *d)
{
    const size_t n = d->values.size();
    std::vector<int64_t> out(n);
    for (auto _ : state) {
        std::memcpy(out.data(), d->values.data(), n * sizeof(int64_t));
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    check_values(state, *d, out.data());
    finish_row(state, n, n * sizeof(int64_t));
}

void add_pair(const std::string &path, void (*avk)(benchmark::State &, const Dataset *),
              void (*avroc)(benchmark::State &, const Dataset *), const Dataset *d)
{
    benchmark::RegisterBenchmark(("avrokit/" + path).c_str(), avk, d)
        ->Unit(benchmark::kNanosecond);
    benchmark::RegisterBenchmark(("avroc/" + path).c_str(), avroc, d)
        ->Unit(benchmark::kNanosecond);
}

} // namespace

void register_varint_benchmarks()
{
    const std::vector<Dataset> &sets = varint_datasets();
    for (const Dataset &d : sets)
        add_pair("Varint/Encode/Single/" + d.name, avk_encode_single, avroc_encode, &d);
    for (const Dataset &d : sets)
        add_pair("Writer/Memory/" + d.name, avk_encode_writer, avroc_encode, &d);
    for (const Dataset &d : sets)
        add_pair("Varint/Decode/Single/" + d.name, avk_decode_single, avroc_decode, &d);
    for (const Dataset &d : sets)
        add_pair("Varint/Encode/Bulk/" + d.name, avk_encode_bulk, avroc_encode, &d);
    for (const Dataset &d : sets)
        add_pair("Varint/Decode/Bulk/" + d.name, avk_decode_bulk, avroc_decode, &d);
    // The memcpy floor only needs kValues longs; every set has that many.
    benchmark::RegisterBenchmark("avrokit/Varint/Memcpy/Decoded", memcpy_decoded, &sets[0])
        ->Unit(benchmark::kNanosecond);
}

} // namespace avkbench
