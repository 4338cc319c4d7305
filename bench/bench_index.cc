// Block index rows: building the index of a large uncompressed file against avro-c reading it all (it has no index), and reading record N through the index against avro-c reading up to it.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>

#include <sys/stat.h>
#include <unistd.h>

#include "avroc_shim.h"
#include "bench_binary.h"
#include "bench_common.h"

#include "avrokit/file.h"
#include "avrokit/file_index.h"

namespace avkbench {
namespace {

// The index is built at the speed of one small read a block, so the file
// must be large for the time to mean anything: 256 MiB at least, in 64 KiB
// blocks (avrokit's default, and bench_file.cc's), the GenericRecordFile
// records written over and over. /dev/shm is memory: the file is in the
// page cache, as a file just written or read often is.
constexpr uint64_t kBigBytes = (uint64_t)256 << 20;
constexpr size_t kBlockBytes = 64 * 1024;

struct Codec {
    const char *name;
    avk_codec avk;
    bool avroc; // avro-c reads it (it has no zstandard)
};

const Codec kSeekCodecs[] = {
    {"null", AVK_CODEC_NULL, true},
    {"deflate", AVK_CODEC_DEFLATE, true},
    {"snappy", AVK_CODEC_SNAPPY, true},
    {"zstandard", AVK_CODEC_ZSTANDARD, false},
};

std::vector<std::string> &created()
{
    static std::vector<std::string> files;
    return files;
}

void remove_created()
{
    for (const std::string &f : created())
        unlink(f.c_str());
}

std::string shm_file(const std::string &tag)
{
    if (created().empty())
        std::atexit(remove_created);
    std::string p = "/dev/shm/avrokit-bench-index-" + std::to_string((long)getpid()) + "-" + tag +
                    ".avro";
    created().push_back(p);
    return p;
}

uint64_t size_of(const std::string &path)
{
    struct stat st;
    return stat(path.c_str(), &st) == 0 ? (uint64_t)st.st_size : 0;
}

std::string failed(const char *what, const avk_error &err)
{
    return std::string(what) + ": " + avk_status_name(err.status) + ": " + err.message;
}

// Writes the data set's records `times` times over with avrokit; "" or
// what failed.
std::string write_records(const std::string &path, const BinData *d, avk_codec codec,
                          size_t times)
{
    avk_file_writer_options o;
    avk_file_writer_options_init(&o);
    o.codec = codec;
    o.block_bytes = kBlockBytes;
    avk_error err;
    avk_file_writer *w;
    if (avk_file_writer_open_path(path.c_str(), d->schema, &o, &w, &err) != AVK_OK)
        return failed("avk_file_writer_open_path", err);
    for (size_t t = 0; t < times; t++) {
        for (size_t i = 0; i < d->records(); i++) {
            if (avk_file_writer_append_encoded(w, d->encoded.data() + d->offsets[i],
                                               d->offsets[i + 1] - d->offsets[i],
                                               &err) != AVK_OK) {
                avk_file_writer_free(w);
                return failed("avk_file_writer_append_encoded", err);
            }
        }
    }
    if (avk_file_writer_close(w, &err) != AVK_OK)
        return failed("avk_file_writer_close", err);
    return "";
}

BinData *data(benchmark::State &state)
{
    BinData *d = bin_data(spec_generic_record_file());
    if (!d->error.empty()) {
        state.SkipWithError(d->error.c_str());
        return nullptr;
    }
    return d;
}

// ---- Index/Build ------------------------------------------------------------

struct BigFile {
    std::string path, error;
    uint64_t bytes = 0, records = 0;
};

const BigFile *big_file(benchmark::State &state)
{
    static BigFile f;
    static bool made = false;
    if (!made) {
        made = true;
        BinData *d = bin_data(spec_generic_record_file());
        if (!d->error.empty()) {
            f.error = d->error;
        } else {
            size_t times = (size_t)(kBigBytes / d->encoded.size()) + 1;
            f.path = shm_file("big-null");
            f.error = write_records(f.path, d, AVK_CODEC_NULL, times);
            f.bytes = size_of(f.path);
            f.records = (uint64_t)times * d->records();
        }
    }
    if (!f.error.empty()) {
        state.SkipWithError(f.error.c_str());
        return nullptr;
    }
    return &f;
}

void avk_index_build(benchmark::State &state)
{
    const BigFile *f = big_file(state);
    if (f == nullptr)
        return;
    std::string problem;
    size_t blocks = 0;
    for (auto _ : state) {
        avk_file_index *idx;
        avk_error err;
        if (avk_file_index_build_path(f->path.c_str(), nullptr, &idx, &err) != AVK_OK) {
            problem = failed("avk_file_index_build_path", err);
            break;
        }
        uint64_t records = avk_file_index_records(idx);
        blocks = avk_file_index_block_count(idx);
        uint64_t end = avk_file_index_file_size(idx);
        avk_file_index_free(idx);
        // Blocks are cut once they reach kBlockBytes: each holds a little more.
        if (records != f->records || end != f->bytes || blocks < f->bytes / (2 * kBlockBytes) ||
            blocks > f->bytes / kBlockBytes) {
            problem = "the index has " + std::to_string(records) + " records in " +
                      std::to_string(blocks) + " blocks ending at " + std::to_string(end) +
                      "; the file has " + std::to_string(f->records) + " in " +
                      std::to_string(f->bytes) + " bytes";
            break;
        }
    }
    if (!problem.empty())
        state.SkipWithError(problem.c_str());
    finish_row(state, (size_t)f->records, (size_t)f->bytes);
    state.counters["file_bytes"] = benchmark::Counter((double)f->bytes);
    state.counters["blocks"] = benchmark::Counter((double)blocks);
}

// avro-c has no index and no block-level reading: the only way to learn
// its blocks' places and counts is to read every record.
void avroc_count(void *ctx, avro_value_t *)
{
    ++*static_cast<uint64_t *>(ctx);
}

void avroc_index_build(benchmark::State &state)
{
    const BigFile *f = big_file(state);
    BinData *d = f ? data(state) : nullptr;
    if (d == nullptr)
        return;
    std::string problem;
    for (auto _ : state) {
        uint64_t seen = 0;
        size_t n = 0;
        problem = avroc_file_read(f->path.c_str(), d->iface, avroc_count, &seen, &n);
        if (problem.empty() && (n != f->records || seen != f->records))
            problem = "avro-c read " + std::to_string(n) + " records, the file has " +
                      std::to_string(f->records);
        if (!problem.empty())
            break;
    }
    if (!problem.empty())
        state.SkipWithError(problem.c_str());
    finish_row(state, (size_t)f->records, (size_t)f->bytes);
    state.counters["file_bytes"] = benchmark::Counter((double)f->bytes);
}

// ---- Seek/Record ------------------------------------------------------------

// One file per codec: the data set's 100,000 records once, and its index
// (built once: what a sidecar gives a reader).
struct SeekFile {
    std::string path, error;
    avk_file_index *idx = nullptr;
};

const SeekFile *seek_file(benchmark::State &state, const Codec &c)
{
    static std::map<std::string, SeekFile> files;
    auto it = files.find(c.name);
    if (it == files.end()) {
        SeekFile &f = files[c.name];
        BinData *d = bin_data(spec_generic_record_file());
        f.error = d->error;
        if (f.error.empty()) {
            f.path = shm_file(std::string("seek-") + c.name);
            f.error = write_records(f.path, d, c.avk, 1);
        }
        avk_error err;
        if (f.error.empty() &&
            avk_file_index_build_path(f.path.c_str(), nullptr, &f.idx, &err) != AVK_OK)
            f.error = failed("avk_file_index_build_path", err);
        it = files.find(c.name);
    }
    if (!it->second.error.empty()) {
        state.SkipWithError(it->second.error.c_str());
        return nullptr;
    }
    return &it->second;
}

// The same records for both rows: a seeded generator.
constexpr uint64_t kSeekSeed = 17;

// Per iteration: open the file, go to a random record through the index,
// read it and check it against the data set's digest.
void avk_seek_record(benchmark::State &state, const Codec *c)
{
    BinData *d = data(state);
    const SeekFile *f = d ? seek_file(state, *c) : nullptr;
    if (f == nullptr)
        return;
    avk_arena *arena;
    avk_error err;
    if (avk_arena_new(nullptr, &arena, &err) != AVK_OK) {
        state.SkipWithError("avk_arena_new failed");
        return;
    }
    std::mt19937_64 rng(kSeekSeed);
    std::string problem;
    for (auto _ : state) {
        uint64_t n = rng() % d->records();
        avk_file_reader *r;
        if (avk_file_reader_open_path(f->path.c_str(), nullptr, &r, &err) != AVK_OK) {
            problem = failed("avk_file_reader_open_path", err);
            break;
        }
        avk_value v;
        int more = 0;
        if (avk_file_reader_seek_record(r, f->idx, n, &err) != AVK_OK ||
            avk_file_reader_next(r, arena, &v, &more, &err) != AVK_OK) {
            problem = failed("seek_record / next", err);
            avk_file_reader_free(r);
            break;
        }
        if (!more) {
            problem = "no record after seek_record(" + std::to_string(n) + ")";
            avk_file_reader_free(r);
            break;
        }
        Digest g;
        digest_avk(g, &v, d->root);
        avk_arena_reset(arena);
        avk_file_reader_free(r);
        if (g.h != d->digests[n]) {
            problem = "record " + std::to_string(n) + " read through the index differs";
            break;
        }
    }
    avk_arena_free(arena);
    if (!problem.empty())
        state.SkipWithError(problem.c_str());
    finish_row(state, 1, 0);
    state.counters["file_bytes"] = benchmark::Counter((double)size_of(f->path));
}

// avro-c cannot seek to a record: it opens the file and reads up to it.
void avroc_seek_record(benchmark::State &state, const Codec *c)
{
    BinData *d = data(state);
    const SeekFile *f = d ? seek_file(state, *c) : nullptr;
    if (f == nullptr)
        return;
    std::mt19937_64 rng(kSeekSeed);
    std::string problem;
    for (auto _ : state) {
        uint64_t n = rng() % d->records();
        avro_file_reader_t r;
        if (avro_file_reader(f->path.c_str(), &r) != 0) {
            problem = std::string("avro_file_reader: ") + avro_strerror();
            break;
        }
        avro_value_t v;
        if (avro_generic_value_new(d->iface, &v) != 0) {
            avro_file_reader_close(r);
            problem = std::string("avro_generic_value_new: ") + avro_strerror();
            break;
        }
        int rc = 0;
        for (uint64_t k = 0; k <= n && rc == 0; k++) {
            avro_value_reset(&v);
            rc = avro_file_reader_read_value(r, &v);
        }
        Digest g;
        if (rc != 0 || digest_avroc(g, &v) != 0)
            problem = "avro-c could not read record " + std::to_string(n);
        else if (g.h != d->digests[n])
            problem = "record " + std::to_string(n) + " read by avro-c differs";
        avro_value_decref(&v);
        avro_file_reader_close(r);
        if (!problem.empty())
            break;
    }
    if (!problem.empty())
        state.SkipWithError(problem.c_str());
    finish_row(state, 1, 0);
    state.counters["file_bytes"] = benchmark::Counter((double)size_of(f->path));
}

// ---- registration ---------------------------------------------------------------

int register_index_rows()
{
    // Whole files: milliseconds. avrokit/<path> then avroc/<path>, as compare pairs them.
    benchmark::RegisterBenchmark("avrokit/Index/Build/null", avk_index_build)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("avroc/Index/Build/null", avroc_index_build)
        ->Unit(benchmark::kMillisecond);
    for (const Codec &c : kSeekCodecs) {
        benchmark::RegisterBenchmark((std::string("avrokit/Seek/Record/") + c.name).c_str(),
                                     avk_seek_record, &c)
            ->Unit(benchmark::kMicrosecond);
        if (c.avroc)
            benchmark::RegisterBenchmark((std::string("avroc/Seek/Record/") + c.name).c_str(),
                                         avroc_seek_record, &c)
                ->Unit(benchmark::kMicrosecond);
    }
    return 0;
}

const int kRegistered = register_index_rows();

} // namespace
} // namespace avkbench
