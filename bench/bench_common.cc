// Seeded data generation, the reference encoder and result checks shared by all rows.
#include "bench_common.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

namespace avkbench {

size_t ref_encode_long(uint8_t *out, int64_t v)
{
    uint64_t u = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
    size_t n = 0;
    while (u >= 0x80) {
        out[n++] = (uint8_t)(u | 0x80);
        u >>= 7;
    }
    out[n++] = (uint8_t)u;
    return n;
}

namespace {

constexpr uint64_t kSeed = 42;

int64_t zigzag_decode(uint64_t u)
{
    return (int64_t)((u >> 1) ^ (0 - (u & 1)));
}

// A random zigzag value whose encoding is exactly len bytes:
// u in [2^(7(len-1)), 2^(7 len)), and for len 10 u in [2^63, 2^64 - 1].
int64_t value_of_length(std::mt19937_64 &rng, unsigned len)
{
    uint64_t lo = len == 1 ? 0 : (uint64_t)1 << (7 * (len - 1));
    uint64_t hi = len >= 10 ? UINT64_MAX : ((uint64_t)1 << (7 * len)) - 1;
    uint64_t span = hi - lo + 1; // at most 2^63, never wraps
    return zigzag_decode(lo + rng() % span);
}

void encode_all(Dataset &d, int expect_len)
{
    d.encoded.resize(d.values.size() * 10);
    size_t pos = 0;
    for (int64_t v : d.values) {
        size_t n = ref_encode_long(d.encoded.data() + pos, v);
        if (expect_len > 0 && n != (size_t)expect_len) {
            std::fprintf(stderr, "avrokit_bench: data set %s: value %" PRId64
                         " encodes to %zu bytes, not %d\n", d.name.c_str(), v, n, expect_len);
            std::exit(2);
        }
        pos += n;
    }
    d.encoded.resize(pos);
    d.encoded.shrink_to_fit();
}

Dataset make_fixed(unsigned len)
{
    Dataset d;
    d.name = std::to_string(len);
    std::mt19937_64 rng(kSeed + len);
    d.values.resize(kValues);
    for (auto &v : d.values)
        v = value_of_length(rng, len);
    encode_all(d, (int)len);
    return d;
}

Dataset make_mixed(unsigned max_len)
{
    Dataset d;
    d.name = "Mixed1-" + std::to_string(max_len);
    std::mt19937_64 rng(kSeed + 100 + max_len);
    d.values.resize(kValues);
    for (auto &v : d.values) {
        unsigned len = 1 + (unsigned)(rng() % max_len);
        v = value_of_length(rng, len);
    }
    encode_all(d, -1);
    return d;
}

Dataset make_unsigned(const char *name, unsigned bits)
{
    Dataset d;
    d.name = name;
    std::mt19937_64 rng(kSeed + 200 + bits);
    d.values.resize(kValues);
    for (auto &v : d.values) {
        uint64_t r = rng();
        // u64: any int64 (the full signed range, as bincode's u64 set).
        v = bits >= 64 ? (int64_t)r : (int64_t)(r & (((uint64_t)1 << bits) - 1));
    }
    encode_all(d, -1);
    return d;
}

} // namespace

const std::vector<Dataset> &varint_datasets()
{
    static const std::vector<Dataset> sets = [] {
        std::vector<Dataset> s;
        for (unsigned len : {1u, 2u, 3u, 4u, 5u, 8u, 10u})
            s.push_back(make_fixed(len));
        s.push_back(make_mixed(10));
        s.push_back(make_mixed(2));
        return s;
    }();
    return sets;
}

const std::vector<Dataset> &reader_datasets()
{
    static const std::vector<Dataset> sets = [] {
        std::vector<Dataset> s;
        s.push_back(make_unsigned("u8", 8));
        s.push_back(make_unsigned("u16", 16));
        s.push_back(make_unsigned("u32", 32));
        s.push_back(make_unsigned("u64", 64));
        return s;
    }();
    return sets;
}

void finish_row(benchmark::State &state, size_t values_per_iter, size_t bytes_per_iter)
{
    state.SetItemsProcessed((int64_t)state.iterations() * (int64_t)values_per_iter);
    state.SetBytesProcessed((int64_t)state.iterations() * (int64_t)bytes_per_iter);
    state.counters["values"] = benchmark::Counter((double)values_per_iter);
}

bool check_values(benchmark::State &state, const Dataset &d, const int64_t *out)
{
    for (size_t i = 0; i < d.values.size(); i++) {
        if (out[i] != d.values[i]) {
            char msg[160];
            std::snprintf(msg, sizeof msg, "value %zu decoded as %" PRId64 ", expected %" PRId64,
                          i, out[i], d.values[i]);
            state.SkipWithError(msg);
            return false;
        }
    }
    return true;
}

bool check_bytes(benchmark::State &state, const Dataset &d, const uint8_t *data, size_t len)
{
    if (len != d.encoded.size()) {
        char msg[160];
        std::snprintf(msg, sizeof msg, "encoding is %zu bytes, expected %zu", len,
                      d.encoded.size());
        state.SkipWithError(msg);
        return false;
    }
    if (std::memcmp(data, d.encoded.data(), len) != 0) {
        size_t i = 0;
        while (data[i] == d.encoded[i])
            i++;
        char msg[160];
        std::snprintf(msg, sizeof msg, "encoding differs at byte %zu: 0x%02x, expected 0x%02x", i,
                      data[i], d.encoded[i]);
        state.SkipWithError(msg);
        return false;
    }
    return true;
}

} // namespace avkbench
