// Reader rows in the style of bincode's benchmarks: u8/u16/u32/u64 longs from a slice and from a file.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "avroc_shim.h"
#include "bench_common.h"

#include "avrokit/reader.h"

namespace avkbench {
namespace {

// The encoded set written once to a temporary file, open twice (separate
// file offsets): a descriptor for avrokit and a FILE * for avro-c. The file
// is unlinked at once, so nothing is left behind.
struct StreamFile {
    int fd = -1;
    FILE *fp = nullptr;
    std::string error;
};

StreamFile make_stream_file(const Dataset &d)
{
    StreamFile f;
    const char *dir = std::getenv("TMPDIR");
    std::string path = std::string(dir && *dir ? dir : "/tmp") + "/avrokit_bench_XXXXXX";
    std::vector<char> name(path.begin(), path.end());
    name.push_back('\0');
    int wfd = mkstemp(name.data());
    if (wfd < 0) {
        f.error = "mkstemp: " + std::string(std::strerror(errno));
        return f;
    }
    size_t off = 0;
    while (off < d.encoded.size()) {
        ssize_t k = write(wfd, d.encoded.data() + off, d.encoded.size() - off);
        if (k <= 0) {
            f.error = "write: " + std::string(std::strerror(errno));
            close(wfd);
            unlink(name.data());
            return f;
        }
        off += (size_t)k;
    }
    close(wfd);
    f.fd = open(name.data(), O_RDONLY);
    f.fp = std::fopen(name.data(), "rb");
    unlink(name.data());
    if (f.fd < 0 || f.fp == nullptr)
        f.error = "reopen: " + std::string(std::strerror(errno));
    return f;
}

void close_stream_file(StreamFile &f)
{
    if (f.fd >= 0)
        close(f.fd);
    if (f.fp != nullptr)
        std::fclose(f.fp);
}

// avk_reader_init_fd with the default buffer, rewound and re-created each
// iteration, one avk_reader_read_long per value.
void avk_stream(benchmark::State &state, const Dataset *d)
{
    StreamFile f = make_stream_file(*d);
    if (!f.error.empty()) {
        state.SkipWithError(f.error.c_str());
        close_stream_file(f);
        return;
    }
    const size_t n = d->values.size();
    std::vector<int64_t> out(n);
    int64_t *o = out.data();
    avk_error err;
    bool failed = false;
    for (auto _ : state) {
        avk_reader r;
        if (AVK_UNLIKELY(lseek(f.fd, 0, SEEK_SET) != 0 ||
                         avk_reader_init_fd(&r, f.fd, nullptr, &err) != AVK_OK)) {
            std::snprintf(err.message, sizeof err.message, "rewind or avk_reader_init_fd failed");
            failed = true;
            break;
        }
        for (size_t i = 0; i < n; i++) {
            if (AVK_UNLIKELY(avk_reader_read_long(&r, &o[i], &err) != AVK_OK)) {
                failed = true;
                break;
            }
        }
        avk_reader_destroy(&r);
        benchmark::DoNotOptimize(o);
        benchmark::ClobberMemory();
        if (AVK_UNLIKELY(failed))
            break;
    }
    if (failed)
        state.SkipWithError(err.message);
    else
        check_values(state, *d, o);
    finish_row(state, n, d->encoded.size());
    close_stream_file(f);
}

// avro_reader_file_fp over the FILE * (not closed by the reader), rewound
// and re-created each iteration: avro-c's file reader keeps its own 4 KiB
// buffer that avro_reader_reset does not clear.
void avroc_stream(benchmark::State &state, const Dataset *d)
{
    StreamFile f = make_stream_file(*d);
    if (!f.error.empty()) {
        state.SkipWithError(f.error.c_str());
        close_stream_file(f);
        return;
    }
    const size_t n = d->values.size();
    std::vector<int64_t> out(n);
    int64_t *o = out.data();
    const avro_encoding_t &enc = avro_binary_encoding;
    const char *fail = nullptr;
    for (auto _ : state) {
        std::rewind(f.fp);
        avro_reader_t r = avro_reader_file_fp(f.fp, 0);
        if (AVK_UNLIKELY(r == nullptr)) {
            fail = "avro_reader_file_fp failed";
            break;
        }
        for (size_t i = 0; i < n; i++) {
            if (AVK_UNLIKELY(enc.read_long(r, &o[i]) != 0)) {
                fail = "avro-c read_long failed";
                break;
            }
        }
        avro_reader_free(r);
        benchmark::DoNotOptimize(o);
        benchmark::ClobberMemory();
        if (AVK_UNLIKELY(fail != nullptr))
            break;
    }
    if (fail != nullptr)
        state.SkipWithError(fail);
    else
        check_values(state, *d, o);
    finish_row(state, n, d->encoded.size());
    close_stream_file(f);
}

} // namespace

void register_reader_benchmarks()
{
    const std::vector<Dataset> &sets = reader_datasets();
    for (const Dataset &d : sets) {
        std::string path = "Reader/Slice/" + d.name;
        benchmark::RegisterBenchmark(("avrokit/" + path).c_str(), avk_decode_reader, &d)
            ->Unit(benchmark::kNanosecond);
        benchmark::RegisterBenchmark(("avroc/" + path).c_str(), avroc_decode, &d)
            ->Unit(benchmark::kNanosecond);
    }
    for (const Dataset &d : sets) {
        std::string path = "Reader/Stream/" + d.name;
        benchmark::RegisterBenchmark(("avrokit/" + path).c_str(), avk_stream, &d)
            ->Unit(benchmark::kNanosecond);
        benchmark::RegisterBenchmark(("avroc/" + path).c_str(), avroc_stream, &d)
            ->Unit(benchmark::kNanosecond);
    }
}

} // namespace avkbench
