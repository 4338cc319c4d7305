// Container file rows: 100,000 GenericRecord records written and read per codec, avrokit beside avro-c; tojson against avrocat.
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "avroc_shim.h"
#include "bench_binary.h"
#include "bench_common.h"

#include "avrokit/columns.h"
#include "avrokit/file.h"

extern char **environ;

namespace avkbench {
namespace {

// Blocks of 64 KiB of uncompressed records on both sides: avrokit's
// default, passed to avro-c as its block buffer size (its default is 16 KiB).
constexpr size_t kBlockBytes = 64 * 1024;

// avro-c compresses deflate at zlib's Z_BEST_COMPRESSION (9):
// deflateInit2(ds, Z_BEST_COMPRESSION, Z_DEFLATED, -15, 8, ...) in
// lang/c/src/codec.c. libdeflate's levels 1-9 follow zlib's (10-12 go
// further), so avrokit writes at 9 too.
constexpr int kDeflateLevel = 9;

struct Codec {
    const char *name;
    avk_codec avk;
    int level;         // avrokit level; 0 for the codec's default
    const char *avroc; // avro-c's name, or nullptr when only avrokit rows run
    unsigned threads;  // avrokit worker threads (options.threads); 0: none
    unsigned flags;    // avrokit reader flags (AVK_FILE_DECODE_AHEAD)
};

// avro-c 1.11 has null, deflate, snappy and lzma (raw LZMA2 under a
// nonstandard name), no zstandard or bzip2.
const Codec kCodecs[] = {
    {"null", AVK_CODEC_NULL, 0, "null", 0, 0},
    {"deflate", AVK_CODEC_DEFLATE, kDeflateLevel, "deflate", 0, 0},
    {"snappy", AVK_CODEC_SNAPPY, 0, "snappy", 0, 0},
    {"zstandard", AVK_CODEC_ZSTANDARD, 0, nullptr, 0, 0},
    {"bzip2", AVK_CODEC_BZIP2, 0, nullptr, 0, 0},
    {"xz", AVK_CODEC_XZ, 0, nullptr, 0, 0},
};

// The same codecs with worker threads (2: one worker beside the caller, the
// machine's two cores), avrokit alone. Timed by the wall clock: the
// workers' time is not the calling thread's.
const Codec kThreaded[] = {
    {"deflate/threads:2", AVK_CODEC_DEFLATE, kDeflateLevel, nullptr, 2, 0},
    {"zstandard/threads:2", AVK_CODEC_ZSTANDARD, 0, nullptr, 2, 0},
};

// Parallel decoding (AVK_FILE_DECODE_AHEAD): workers decompress and decode
// blocks; 1 worker is the caller's thread alone. Wall clock, against
// avro-c's one thread on the same file (it has no zstandard).
const Codec kParallel[] = {
    {"null/workers:1", AVK_CODEC_NULL, 0, "null", 0, 0},
    {"null/workers:2", AVK_CODEC_NULL, 0, "null", 2, AVK_FILE_DECODE_AHEAD},
    {"deflate/workers:1", AVK_CODEC_DEFLATE, kDeflateLevel, "deflate", 0, 0},
    {"deflate/workers:2", AVK_CODEC_DEFLATE, kDeflateLevel, "deflate", 2, AVK_FILE_DECODE_AHEAD},
    {"zstandard/workers:1", AVK_CODEC_ZSTANDARD, 0, nullptr, 0, 0},
    {"zstandard/workers:2", AVK_CODEC_ZSTANDARD, 0, nullptr, 2, AVK_FILE_DECODE_AHEAD},
};

// ---- data and files -----------------------------------------------------------

// The records, their expected count and field checksum, and the read
// inputs, made once.
struct FileData {
    std::string error;
    BinData *d = nullptr;
    uint64_t checksum = 0;                  // of inner.a and color, in order
    std::map<std::string, std::string> inputs; // codec -> file to read (read_input)
};

// Order-sensitive checksum of two fields every row can read cheaply.
inline uint64_t mix(uint64_t h, int64_t inner_a, int64_t color)
{
    return (h ^ ((uint64_t)inner_a + ((uint64_t)color << 60))) * 0x100000001b3ull;
}
constexpr uint64_t kMixStart = 0xcbf29ce484222325ull;
// GenericRecord's field positions: color (enum) 4, inner 6 and inner.a 0.
constexpr size_t kColor = 4, kInner = 6;

std::vector<std::string> &created_files()
{
    static std::vector<std::string> files;
    return files;
}

void remove_files()
{
    for (const std::string &f : created_files())
        unlink(f.c_str());
}

// A file in /dev/shm (tmpfs: memory, not disk), removed at exit.
std::string shm_path(const std::string &tag)
{
    if (created_files().empty())
        std::atexit(remove_files);
    std::string safe = tag;
    for (char &ch : safe)
        if (ch == '/' || ch == ':')
            ch = '-';
    std::string p = "/dev/shm/avrokit-bench-" + std::to_string((long)getpid()) + "-" + safe +
                    ".avro";
    created_files().push_back(p);
    return p;
}

uint64_t file_size(const std::string &path)
{
    struct stat st;
    return stat(path.c_str(), &st) == 0 ? (uint64_t)st.st_size : 0;
}

std::string avk_failed(const char *what, const avk_error &err)
{
    return std::string(what) + ": " + avk_status_name(err.status) + ": " + err.message;
}

// Writes every record with avrokit; "" or what failed.
std::string avk_write_file(const std::string &path, const BinData *d, const Codec &c)
{
    avk_file_writer_options o;
    std::memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.codec = c.avk;
    o.level = c.level;
    o.block_bytes = kBlockBytes;
    o.threads = c.threads;
    avk_error err;
    avk_file_writer *w;
    if (avk_file_writer_open_path(path.c_str(), d->schema, &o, &w, &err) != AVK_OK)
        return avk_failed("avk_file_writer_open_path", err);
    for (const avk_value &v : d->avk_values) {
        if (avk_file_writer_append(w, &v, &err) != AVK_OK) {
            avk_file_writer_free(w);
            return avk_failed("avk_file_writer_append", err);
        }
    }
    if (avk_file_writer_close(w, &err) != AVK_OK)
        return avk_failed("avk_file_writer_close", err);
    return "";
}

std::string make_file_data(FileData &f)
{
    const BinSpec &spec = spec_generic_record_file();
    f.d = bin_data(spec);
    std::string e = bin_values(spec, f.d);
    if (!e.empty())
        return e;
    f.checksum = kMixStart;
    for (const Datum &t : f.d->trees)
        f.checksum = mix(f.checksum, t.kids[kInner].kids[0].l, t.kids[kColor].l);
    return "";
}

// The file a read row reads, written on first use (a filtered run writes
// only what it reads): avro-c's own file where avro-c reads the codec
// (both libraries then read the same bytes), else avrokit's. "" and a
// skipped row when it cannot be written.
const std::string &read_input(benchmark::State &state, FileData *f, const Codec &c)
{
    static const std::string none;
    auto it = f->inputs.find(c.name);
    if (it != f->inputs.end())
        return it->second;
    std::string path = shm_path(std::string("in-") + c.name);
    std::string e = c.avroc ? avroc_file_write(path.c_str(), f->d->aschema, c.avroc, kBlockBytes,
                                               f->d->avroc_values.data(),
                                               f->d->avroc_values.size())
                            : avk_write_file(path, f->d, c);
    if (!e.empty()) {
        state.SkipWithError((std::string("writing the ") + c.name + " input: " + e).c_str());
        return none;
    }
    return f->inputs[c.name] = path;
}

// The unthreaded row of c's codec: threaded reads read its file.
const Codec &plain_codec(const Codec &c)
{
    for (const Codec &k : kCodecs)
        if (k.avk == c.avk)
            return k;
    return c;
}

FileData *file_data(benchmark::State &state)
{
    static FileData f;
    static bool made = false;
    if (!made) {
        made = true;
        f.error = make_file_data(f);
    }
    if (!f.error.empty()) {
        state.SkipWithError(f.error.c_str());
        return nullptr;
    }
    return &f;
}

// MB/s of uncompressed record bytes, records/s, ns per record in compare.
void finish_file_row(benchmark::State &state, const FileData *f, uint64_t bytes)
{
    finish_row(state, f->d->records(), f->d->encoded.size());
    state.counters["file_bytes"] = benchmark::Counter((double)bytes);
}

std::string count_problem(size_t got, uint64_t sum, const FileData *f)
{
    if (got != f->d->records())
        return "read " + std::to_string(got) + " records, wrote " +
               std::to_string(f->d->records());
    if (sum != f->checksum)
        return "the records read carry different inner.a/color values than were written";
    return "";
}

// ---- avrokit ----------------------------------------------------------------

// One pass over a file with avrokit: records and checksum.
std::string avk_read_pass(const std::string &path, unsigned threads, unsigned flags,
                          avk_arena *arena, size_t *count, uint64_t *sum)
{
    avk_error err;
    avk_file_reader *r;
    avk_file_reader_options o;
    std::memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.threads = threads;
    o.flags = flags;
    *count = 0;
    *sum = kMixStart;
    if (avk_file_reader_open_path(path.c_str(), &o, &r, &err) != AVK_OK)
        return avk_failed("avk_file_reader_open_path", err);
    avk_value v;
    int more = 0;
    size_t n = 0;
    uint64_t h = kMixStart;
    while (avk_file_reader_next(r, arena, &v, &more, &err) == AVK_OK && more) {
        h = mix(h, v.u.fields[kInner].u.fields[0].u.l, v.u.fields[kColor].u.index);
        n++;
        avk_arena_reset(arena);
    }
    avk_file_reader_free(r);
    *count = n;
    *sum = h;
    return more ? avk_failed("avk_file_reader_next", err) : "";
}

// Every record of a file avrokit wrote, digested against the generated data.
std::string avk_verify(const std::string &path, const FileData *f)
{
    avk_error err;
    avk_file_reader *r;
    avk_arena *arena;
    if (avk_arena_new(nullptr, &arena, &err) != AVK_OK)
        return avk_failed("avk_arena_new", err);
    if (avk_file_reader_open_path(path.c_str(), nullptr, &r, &err) != AVK_OK) {
        avk_arena_free(arena);
        return avk_failed("reading back: avk_file_reader_open_path", err);
    }
    std::string problem;
    size_t n = 0;
    int more = 0;
    avk_value v;
    while (avk_file_reader_next(r, arena, &v, &more, &err) == AVK_OK && more) {
        Digest g;
        digest_avk(g, &v, f->d->root);
        if (n >= f->d->records() || g.h != f->d->digests[n]) {
            problem = "reading back: record " + std::to_string(n) + " differs from the one written";
            break;
        }
        n++;
        avk_arena_reset(arena);
    }
    if (problem.empty() && more)
        problem = avk_failed("reading back: avk_file_reader_next", err);
    if (problem.empty() && n != f->d->records())
        problem = "reading back: " + std::to_string(n) + " records, wrote " +
                  std::to_string(f->d->records());
    avk_file_reader_free(r);
    avk_arena_free(arena);
    return problem;
}

void avk_write(benchmark::State &state, const Codec *c)
{
    FileData *f = file_data(state);
    if (f == nullptr)
        return;
    std::string path = shm_path(std::string("avk-w-") + c->name), problem;
    for (auto _ : state) {
        problem = avk_write_file(path, f->d, *c);
        if (!problem.empty())
            break;
    }
    if (problem.empty())
        problem = avk_verify(path, f);
    if (!problem.empty())
        state.SkipWithError(problem.c_str());
    finish_file_row(state, f, file_size(path));
}

void avk_read(benchmark::State &state, const Codec *c)
{
    FileData *f = file_data(state);
    if (f == nullptr)
        return;
    avk_arena *arena;
    avk_error err;
    if (avk_arena_new(nullptr, &arena, &err) != AVK_OK) {
        state.SkipWithError("avk_arena_new failed");
        return;
    }
    const std::string &path = read_input(state, f, plain_codec(*c));
    if (path.empty()) {
        avk_arena_free(arena);
        return;
    }
    std::string problem;
    for (auto _ : state) {
        size_t n;
        uint64_t sum;
        problem = avk_read_pass(path, c->threads, c->flags, arena, &n, &sum);
        if (problem.empty())
            problem = count_problem(n, sum, f);
        if (!problem.empty())
            break;
    }
    avk_arena_free(arena);
    if (!problem.empty())
        state.SkipWithError(problem.c_str());
    finish_file_row(state, f, file_size(path));
}

// One pass over a file into columns (every field), blocks decoded straight
// into Arrow buffers; the count and checksum come from the exported arrays.
std::string avk_columns_pass(const std::string &path, size_t *count, uint64_t *sum)
{
    avk_error err;
    avk_file_reader *r;
    avk_columns *c;
    if (avk_file_reader_open_path(path.c_str(), nullptr, &r, &err) != AVK_OK)
        return avk_failed("avk_file_reader_open_path", err);
    if (avk_columns_new(avk_schema_root(avk_file_reader_schema(r)), nullptr, &c, &err) != AVK_OK) {
        avk_file_reader_free(r);
        return avk_failed("avk_columns_new", err);
    }
    std::string problem;
    avk_file_block b;
    int more = 0;
    avk_status st;
    while ((st = avk_file_reader_next_block(r, &b, &more, &err)) == AVK_OK && more)
        if ((st = avk_columns_decode_block(c, r, &b, nullptr, &err)) != AVK_OK)
            break;
    if (st != AVK_OK)
        problem = avk_failed("reading blocks into columns", err);
    struct ArrowSchema schema;
    struct ArrowArray array;
    if (problem.empty() && (avk_columns_export_schema(c, &schema, &err) != AVK_OK ||
                            avk_columns_export(c, &array, &err) != AVK_OK))
        problem = avk_failed("avk_columns_export", err);
    avk_columns_free(c);
    avk_file_reader_free(r);
    if (!problem.empty())
        return problem;
    const int32_t *color = static_cast<const int32_t *>(array.children[kColor]->buffers[1]);
    const int64_t *inner_a =
        static_cast<const int64_t *>(array.children[kInner]->children[0]->buffers[1]);
    uint64_t h = kMixStart;
    for (int64_t i = 0; i < array.length; i++)
        h = mix(h, inner_a[i], color[i]);
    *count = (size_t)array.length;
    *sum = h;
    array.release(&array);
    schema.release(&schema);
    return "";
}

void avk_read_columns(benchmark::State &state, const Codec *c)
{
    FileData *f = file_data(state);
    if (f == nullptr)
        return;
    const std::string &path = read_input(state, f, plain_codec(*c));
    if (path.empty())
        return;
    std::string problem;
    for (auto _ : state) {
        size_t n = 0;
        uint64_t sum = 0;
        problem = avk_columns_pass(path, &n, &sum);
        if (problem.empty())
            problem = count_problem(n, sum, f);
        if (!problem.empty())
            break;
    }
    if (!problem.empty())
        state.SkipWithError(problem.c_str());
    finish_file_row(state, f, file_size(path));
}

// ---- avro-c -----------------------------------------------------------------

struct AvrocSum {
    uint64_t h = kMixStart;
    int failed = 0;
};

void avroc_sum(void *ctx, avro_value_t *v)
{
    AvrocSum *s = static_cast<AvrocSum *>(ctx);
    avro_value_t color, inner, a;
    int64_t l = 0;
    int e = 0;
    s->failed |= avro_value_get_by_index(v, kColor, &color, nullptr) |
                 avro_value_get_by_index(v, kInner, &inner, nullptr);
    s->failed |= avro_value_get_by_index(&inner, 0, &a, nullptr) | avro_value_get_long(&a, &l) |
                 avro_value_get_enum(&color, &e);
    s->h = mix(s->h, l, e);
}

struct AvrocVerify {
    const FileData *f;
    size_t n = 0;
    size_t bad = SIZE_MAX; // first record that differs
};

void avroc_verify_one(void *ctx, avro_value_t *v)
{
    AvrocVerify *s = static_cast<AvrocVerify *>(ctx);
    Digest g;
    int rc = digest_avroc(g, v);
    bool same = rc == 0 && s->n < s->f->d->records() && g.h == s->f->d->digests[s->n];
    if (!same && s->bad == SIZE_MAX)
        s->bad = s->n;
    s->n++;
}

void avroc_write(benchmark::State &state, const Codec *c)
{
    FileData *f = file_data(state);
    if (f == nullptr)
        return;
    std::string path = shm_path(std::string("avroc-w-") + c->name), problem;
    for (auto _ : state) {
        problem = avroc_file_write(path.c_str(), f->d->aschema, c->avroc, kBlockBytes,
                                   f->d->avroc_values.data(), f->d->avroc_values.size());
        if (!problem.empty())
            break;
    }
    if (problem.empty()) {
        AvrocVerify s{f};
        size_t n;
        problem = avroc_file_read(path.c_str(), f->d->iface, avroc_verify_one, &s, &n);
        if (problem.empty() && s.bad != SIZE_MAX)
            problem = "reading back: record " + std::to_string(s.bad) + " differs";
        if (problem.empty() && n != f->d->records())
            problem = "reading back: " + std::to_string(n) + " records";
    }
    if (!problem.empty())
        state.SkipWithError(problem.c_str());
    finish_file_row(state, f, file_size(path));
}

void avroc_read(benchmark::State &state, const Codec *c)
{
    FileData *f = file_data(state);
    if (f == nullptr)
        return;
    const std::string &path = read_input(state, f, *c);
    if (path.empty())
        return;
    std::string problem;
    for (auto _ : state) {
        AvrocSum s;
        size_t n;
        problem = avroc_file_read(path.c_str(), f->d->iface, avroc_sum, &s, &n);
        if (problem.empty() && s.failed)
            problem = "an avro-c getter failed";
        if (problem.empty())
            problem = count_problem(n, s.h, f);
        if (!problem.empty())
            break;
    }
    if (!problem.empty())
        state.SkipWithError(problem.c_str());
    finish_file_row(state, f, file_size(path));
}

// ---- whole processes ----------------------------------------------------------

// Runs argv with stdout into a pipe drained here; returns "" when it exits
// with status 0 having printed exactly `lines` lines.
std::string run_counting_lines(const std::vector<std::string> &args, size_t lines)
{
    int fds[2];
    if (pipe(fds) != 0)
        return std::string("pipe: ") + std::strerror(errno);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    posix_spawn_file_actions_addclose(&fa, fds[1]);
    std::vector<char *> argv;
    for (const std::string &a : args)
        argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        return "posix_spawn " + args[0] + ": " + std::strerror(rc);
    }
    static char buf[1 << 18];
    size_t count = 0;
    for (;;) {
        ssize_t got = read(fds[0], buf, sizeof buf);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        for (const char *p = buf, *end = buf + got;
             (p = static_cast<const char *>(std::memchr(p, '\n', (size_t)(end - p)))) != nullptr;
             p++)
            count++;
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return args[0] + " did not exit with status 0 (wait status " + std::to_string(status) +
               ")";
    if (count != lines)
        return args[0] + " printed " + std::to_string(count) + " lines, expected " +
               std::to_string(lines);
    return "";
}

void tojson_row(benchmark::State &state, const char *program, bool avrokit)
{
    FileData *f = file_data(state);
    if (f == nullptr)
        return;
    if (program[0] == '\0') {
        state.SkipWithError(avrokit ? "the avrokit CLI was not built (no AVK_BENCH_AVROKIT_CLI)"
                                    : "avrocat was not found at configure time");
        return;
    }
    const std::string &path = read_input(state, f, kCodecs[0]);
    if (path.empty())
        return;
    std::vector<std::string> args;
    args.push_back(program);
    if (avrokit)
        args.push_back("tojson");
    args.push_back(path);
    std::string problem;
    for (auto _ : state) {
        problem = run_counting_lines(args, f->d->records());
        if (!problem.empty())
            break;
    }
    if (!problem.empty())
        state.SkipWithError(problem.c_str());
    finish_file_row(state, f, file_size(path));
}

#ifndef AVK_BENCH_AVROKIT_CLI
#define AVK_BENCH_AVROKIT_CLI ""
#endif
#ifndef AVK_BENCH_AVROCAT
#define AVK_BENCH_AVROCAT ""
#endif

void tojson_avrokit(benchmark::State &state)
{
    tojson_row(state, AVK_BENCH_AVROKIT_CLI, true);
}

void tojson_avrocat(benchmark::State &state)
{
    tojson_row(state, AVK_BENCH_AVROCAT, false);
}

// ---- registration ---------------------------------------------------------------

// Whole files take tens to hundreds of milliseconds: time in ms. compare
// reads wall-clock time, which for the Tojson rows includes the child.
void file_row(const std::string &name, void (*fn)(benchmark::State &, const Codec *),
              const Codec *c)
{
    benchmark::RegisterBenchmark(name.c_str(), fn, c)->Unit(benchmark::kMillisecond);
}

// Registered before main runs (bench_main.cc registers the other files'
// rows itself); avrokit/<path> then avroc/<path>, as compare pairs them.
int register_file_rows()
{
    for (const Codec &c : kCodecs) {
        file_row(std::string("avrokit/File/Write/") + c.name, avk_write, &c);
        if (c.avroc)
            file_row(std::string("avroc/File/Write/") + c.name, avroc_write, &c);
    }
    for (const Codec &c : kCodecs) {
        file_row(std::string("avrokit/File/Read/") + c.name, avk_read, &c);
        if (c.avroc)
            file_row(std::string("avroc/File/Read/") + c.name, avroc_read, &c);
    }
    // Into columns (Arrow layout) against avro-c's read of the same file.
    for (const Codec &c : kCodecs) {
        if (!c.avroc)
            continue;
        file_row(std::string("avrokit/File/ReadColumns/") + c.name, avk_read_columns, &c);
        file_row(std::string("avroc/File/ReadColumns/") + c.name, avroc_read, &c);
    }
    // Worker threads: wall-clock time ("/real_time" is appended to the name).
    for (const Codec &c : kThreaded) {
        benchmark::RegisterBenchmark((std::string("avrokit/File/Write/") + c.name).c_str(),
                                     avk_write, &c)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
        benchmark::RegisterBenchmark((std::string("avrokit/File/Read/") + c.name).c_str(),
                                     avk_read, &c)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
    }
    for (const Codec &c : kParallel) {
        benchmark::RegisterBenchmark((std::string("avrokit/File/ParallelRead/") + c.name).c_str(),
                                     avk_read, &c)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
        if (c.avroc)
            benchmark::RegisterBenchmark(
                (std::string("avroc/File/ParallelRead/") + c.name).c_str(), avroc_read, &c)
                ->Unit(benchmark::kMillisecond)
                ->UseRealTime();
    }
    // avrocat is avro-c's tool: the pair is avrokit/avroc like every other.
    // Wall-clock time for the rates too: the parent's CPU time leaves the
    // child out (the names get Google Benchmark's "/real_time" suffix).
    benchmark::RegisterBenchmark("avrokit/File/Tojson", tojson_avrokit)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark("avroc/File/Tojson", tojson_avrocat)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    return 0;
}

const int kRegistered = register_file_rows();

} // namespace
} // namespace avkbench
