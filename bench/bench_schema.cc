// Schema rows: parsing JSON schemas, avrokit (avk_schema_parse) beside avro-c (avro_schema_from_json_length), with allocations per parse.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>

#include <dlfcn.h>

#include "avroc_shim.h"
#include "bench_common.h"

#include "avrokit/macros.h"
#include "avrokit/schema.h"

namespace avkbench {
namespace {

// ---- the schemas ------------------------------------------------------------

// A flat record of 100 fields, about 3.8 KB: int, long, double, string,
// boolean and ["null","string"] (default null) in turn, a doc on every
// sixth field, as a typical event or table-row schema looks.
std::string make_record100()
{
    static const char *const types[] = {"\"int\"", "\"long\"", "\"double\"", "\"string\"",
                                        "\"boolean\"", "[\"null\",\"string\"]"};
    std::string s = "{\"type\":\"record\",\"name\":\"Record100\",\"namespace\":\"bench.schema\","
                    "\"doc\":\"A flat record of one hundred fields.\",\"fields\":[";
    char buf[256];
    for (int i = 0; i < 100; i++) {
        int k = i % 6;
        std::snprintf(buf, sizeof buf, "%s{\"name\":\"f%d\",\"type\":%s%s%s}", i ? "," : "", i,
                      types[k], k == 5 ? ",\"default\":null" : "",
                      i % 6 == 0 ? ",\"doc\":\"Column doc\"" : "");
        s += buf;
    }
    s += "]}";
    return s;
}

// Records nested three levels below the root (two children each, held
// directly, in an array, in a map or in a union with null), every record
// with its own enum and fixed, namespaces changing on the way down,
// references by simple and full name: 50 named types.
struct NestedGen {
    std::string out;
    int named = 0;
    int next_id = 0;

    void record(int level, const std::string &ns)
    {
        int id = next_id++;
        char buf[512];
        std::string my_ns = level == 1 ? "bench.l1_" + std::to_string(id) : ns;
        named += 3;
        std::snprintf(buf, sizeof buf,
                      "{\"type\":\"record\",\"name\":\"Node%d\",%s\"doc\":\"level %d\",\"fields\":["
                      "{\"name\":\"id\",\"type\":\"long\"},"
                      "{\"name\":\"kind\",\"type\":{\"type\":\"enum\",\"name\":\"Kind%d\","
                      "\"symbols\":[\"A\",\"B\",\"C\",\"D\"],\"default\":\"A\"}},"
                      "{\"name\":\"hash\",\"type\":{\"type\":\"fixed\",\"name\":\"Hash%d\",\"size\":16}},"
                      "{\"name\":\"prev_kind\",\"type\":[\"null\",\"Kind%d\"],\"default\":null}",
                      id, level == 1 ? ("\"namespace\":\"" + my_ns + "\",").c_str() : "", level, id,
                      id, id);
        out += buf;
        if (level < 3) {
            for (int c = 0; c < 2; c++) {
                int wrap = (id + c) % 4;
                std::snprintf(buf, sizeof buf, ",{\"name\":\"child%d\",\"type\":", c);
                out += buf;
                if (wrap == 1)
                    out += "{\"type\":\"array\",\"items\":";
                else if (wrap == 2)
                    out += "{\"type\":\"map\",\"values\":";
                else if (wrap == 3)
                    out += "[\"null\",";
                record(level + 1, my_ns);
                if (wrap == 1 || wrap == 2)
                    out += "}";
                else if (wrap == 3)
                    out += "]";
                out += "}";
            }
        }
        // A reference by full name back to this record's fixed.
        std::snprintf(buf, sizeof buf, ",{\"name\":\"hash_again\",\"type\":\"%s%sHash%d\"}]}",
                      my_ns.c_str(), my_ns.empty() ? "" : ".", id);
        out += buf;
    }
};

struct Nested {
    std::string json;
    int named;
};

Nested make_nested_named()
{
    NestedGen g;
    g.out = "{\"type\":\"record\",\"name\":\"Root\",\"namespace\":\"bench.nested\",\"fields\":["
            "{\"name\":\"status\",\"type\":{\"type\":\"enum\",\"name\":\"Status\",\"symbols\":"
            "[\"OK\",\"WARN\",\"FAIL\"]}},"
            "{\"name\":\"uuid\",\"type\":{\"type\":\"fixed\",\"name\":\"Uuid\",\"size\":16,"
            "\"logicalType\":\"uuid\"}},"
            "{\"name\":\"digest\",\"type\":{\"type\":\"fixed\",\"name\":\"other.Digest\",\"size\":32}},"
            "{\"name\":\"priority\",\"type\":{\"type\":\"enum\",\"name\":\"Priority\",\"symbols\":"
            "[\"LOW\",\"HIGH\"]}},"
            "{\"name\":\"tree\",\"type\":";
    g.named = 5; // Root, Status, Uuid, Digest, Priority
    g.record(0, "bench.nested");
    g.out += "},{\"name\":\"last_status\",\"type\":\"Status\"}]}";
    return Nested{g.out, g.named};
}

const std::string &record100()
{
    static const std::string s = make_record100();
    return s;
}

const Nested &nested_named()
{
    static const Nested n = make_nested_named();
    return n;
}

// ---- counting allocators -------------------------------------------------------

struct Counts {
    size_t allocs = 0; // alloc + realloc calls
    size_t frees = 0;
};

void *count_alloc(void *ctx, size_t size)
{
    static_cast<Counts *>(ctx)->allocs++;
    return std::malloc(size);
}

void *count_realloc(void *ctx, void *ptr, size_t, size_t new_size)
{
    static_cast<Counts *>(ctx)->allocs++;
    return std::realloc(ptr, new_size);
}

void count_free(void *ctx, void *ptr, size_t)
{
    static_cast<Counts *>(ctx)->frees++;
    std::free(ptr);
}

// avro-c's allocator: one function; nsize 0 frees.
void *avroc_count_alloc(void *ud, void *ptr, size_t, size_t nsize)
{
    Counts *c = static_cast<Counts *>(ud);
    if (nsize == 0) {
        c->frees++;
        std::free(ptr);
        return nullptr;
    }
    c->allocs++;
    return std::realloc(ptr, nsize);
}

// avro-c parses JSON with jansson, whose allocations avro_set_allocator
// does not see. libjansson is loaded with libavro; its allocator hooks are
// looked up at run time (no jansson header is installed) and counted
// separately, so the row can show both. Absent: the counter reads -1.
typedef void *(*json_malloc_t)(size_t);
typedef void (*json_free_t)(void *);
Counts *g_jansson_counts = nullptr;

void *jansson_malloc(size_t n)
{
    if (g_jansson_counts)
        g_jansson_counts->allocs++;
    return std::malloc(n);
}

void jansson_free(void *p)
{
    if (g_jansson_counts && p)
        g_jansson_counts->frees++;
    std::free(p);
}

struct JanssonHooks {
    void (*set)(json_malloc_t, json_free_t) = nullptr;
    void (*get)(json_malloc_t *, json_free_t *) = nullptr;
};

JanssonHooks jansson_hooks()
{
    JanssonHooks h;
    h.set = reinterpret_cast<void (*)(json_malloc_t, json_free_t)>(
        dlsym(RTLD_DEFAULT, "json_set_alloc_funcs"));
    h.get = reinterpret_cast<void (*)(json_malloc_t *, json_free_t *)>(
        dlsym(RTLD_DEFAULT, "json_get_alloc_funcs"));
    if (!h.get)
        h.set = nullptr; // cannot restore the previous hooks: leave them alone
    return h;
}

// ---- output checks -------------------------------------------------------------

void avk_collect_named(const avk_type *t, std::set<const avk_type *> &seen)
{
    if (avk_type_is_named(t)) {
        if (!seen.insert(t).second)
            return;
    }
    switch (avk_type_kind(t)) {
    case AVK_RECORD:
        for (size_t i = 0; i < avk_type_field_count(t); i++)
            avk_collect_named(avk_field_type(avk_type_field(t, i)), seen);
        break;
    case AVK_ARRAY:
        avk_collect_named(avk_type_items(t), seen);
        break;
    case AVK_MAP:
        avk_collect_named(avk_type_values(t), seen);
        break;
    case AVK_UNION:
        for (size_t i = 0; i < avk_type_branch_count(t); i++)
            avk_collect_named(avk_type_branch(t, i), seen);
        break;
    default:
        break;
    }
}

void avroc_collect_named(avro_schema_t t, std::set<avro_schema_t> &seen)
{
    if (is_avro_link(t))
        return; // a reference to a type met before
    if (is_avro_named_type(t)) {
        if (!seen.insert(t).second)
            return;
    }
    switch (avro_typeof(t)) {
    case AVRO_RECORD:
        for (size_t i = 0; i < avro_schema_record_size(t); i++)
            avroc_collect_named(avro_schema_record_field_get_by_index(t, (int)i), seen);
        break;
    case AVRO_ARRAY:
        avroc_collect_named(avro_schema_array_items(t), seen);
        break;
    case AVRO_MAP:
        avroc_collect_named(avro_schema_map_values(t), seen);
        break;
    case AVRO_UNION:
        for (size_t i = 0; i < avro_schema_union_size(t); i++)
            avroc_collect_named(avro_schema_union_branch(t, (int)i), seen);
        break;
    default:
        break;
    }
}

// What a row checks once: the root's field count and the number of named types.
struct Expect {
    const std::string *json;
    size_t root_fields;
    size_t named;
};

std::string check_avk(const avk_schema *s, const Expect &e)
{
    const avk_type *root = avk_schema_root(s);
    std::set<const avk_type *> seen;
    avk_collect_named(root, seen);
    char msg[160];
    if (avk_type_field_count(root) != e.root_fields || seen.size() != e.named) {
        std::snprintf(msg, sizeof msg, "avrokit: %zu root fields and %zu named types, expected %zu and %zu",
                      avk_type_field_count(root), seen.size(), e.root_fields, e.named);
        return msg;
    }
    return "";
}

std::string check_avroc(avro_schema_t s, const Expect &e)
{
    std::set<avro_schema_t> seen;
    avroc_collect_named(s, seen);
    char msg[160];
    if (avro_schema_record_size(s) != e.root_fields || seen.size() != e.named) {
        std::snprintf(msg, sizeof msg, "avro-c: %zu root fields and %zu named types, expected %zu and %zu",
                      avro_schema_record_size(s), seen.size(), e.root_fields, e.named);
        return msg;
    }
    return "";
}

// Per-parse counters: allocations, microseconds, schema bytes.
void finish_schema_row(benchmark::State &state, const Expect &e, double allocs_per_parse,
                       double loop_seconds)
{
    double iters = state.iterations() ? (double)state.iterations() : 1.0;
    state.SetItemsProcessed((int64_t)state.iterations());
    state.SetBytesProcessed((int64_t)state.iterations() * (int64_t)e.json->size());
    state.counters["values"] = benchmark::Counter(1.0); // one parse per iteration
    state.counters["allocs_per_parse"] = benchmark::Counter(allocs_per_parse);
    state.counters["us_per_parse"] = benchmark::Counter(loop_seconds * 1e6 / iters);
    state.counters["schema_bytes"] = benchmark::Counter((double)e.json->size());
}

double seconds_since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// ---- rows -------------------------------------------------------------------------

void avk_parse(benchmark::State &state, const Expect *e)
{
    Counts counts;
    avk_allocator alloc = {count_alloc, count_realloc, count_free, &counts};
    avk_schema_options opts;
    std::memset(&opts, 0, sizeof opts);
    opts.struct_size = sizeof opts;
    opts.allocator = &alloc;
    const char *text = e->json->data();
    const size_t len = e->json->size();
    avk_error err;

    // Check the output once, before timing.
    avk_schema *s = nullptr;
    if (avk_schema_parse(text, len, &opts, &s, &err) != AVK_OK) {
        state.SkipWithError(("avk_schema_parse: " + std::string(err.message)).c_str());
        return;
    }
    std::string bad = check_avk(s, *e);
    avk_schema_free(s);
    if (!bad.empty()) {
        state.SkipWithError(bad.c_str());
        return;
    }

    counts = Counts();
    bool failed = false;
    auto t0 = std::chrono::steady_clock::now();
    for (auto _ : state) {
        if (AVK_UNLIKELY(avk_schema_parse(text, len, &opts, &s, &err) != AVK_OK)) {
            failed = true;
            break;
        }
        benchmark::DoNotOptimize(s);
        avk_schema_free(s);
    }
    double loop_seconds = seconds_since(t0);
    if (failed) {
        state.SkipWithError(("avk_schema_parse: " + std::string(err.message)).c_str());
        return;
    }
    if (counts.allocs != counts.frees) {
        state.SkipWithError("avrokit: allocations and frees do not match");
        return;
    }
    double iters = state.iterations() ? (double)state.iterations() : 1.0;
    finish_schema_row(state, *e, (double)counts.allocs / iters, loop_seconds);
}

void avroc_parse(benchmark::State &state, const Expect *e)
{
    const char *text = e->json->data();
    const size_t len = e->json->size();

    avro_schema_t s = nullptr;
    if (avro_schema_from_json_length(text, len, &s) != 0) {
        state.SkipWithError(("avro_schema_from_json_length: " + std::string(avro_strerror())).c_str());
        return;
    }
    std::string bad = check_avroc(s, *e);
    avro_schema_decref(s);
    if (!bad.empty()) {
        state.SkipWithError(bad.c_str());
        return;
    }

    // Counting allocators only around the timed loop; the defaults come
    // back before anything else runs.
    Counts counts, jcounts;
    struct avro_allocator_state saved = AVRO_CURRENT_ALLOCATOR;
    avro_set_allocator(avroc_count_alloc, &counts);
    JanssonHooks jh = jansson_hooks();
    json_malloc_t old_jm = nullptr;
    json_free_t old_jf = nullptr;
    if (jh.set) {
        jh.get(&old_jm, &old_jf);
        g_jansson_counts = &jcounts;
        jh.set(jansson_malloc, jansson_free);
    }

    bool failed = false;
    auto t0 = std::chrono::steady_clock::now();
    for (auto _ : state) {
        if (AVK_UNLIKELY(avro_schema_from_json_length(text, len, &s) != 0)) {
            failed = true;
            break;
        }
        benchmark::DoNotOptimize(s);
        avro_schema_decref(s);
    }
    double loop_seconds = seconds_since(t0);

    if (jh.set) {
        jh.set(old_jm, old_jf);
        g_jansson_counts = nullptr;
    }
    avro_set_allocator(saved.alloc, saved.user_data);

    if (failed) {
        state.SkipWithError(("avro_schema_from_json_length: " + std::string(avro_strerror())).c_str());
        return;
    }
    double iters = state.iterations() ? (double)state.iterations() : 1.0;
    finish_schema_row(state, *e, (double)counts.allocs / iters, loop_seconds);
    state.counters["json_allocs_per_parse"] =
        benchmark::Counter(jh.set ? (double)jcounts.allocs / iters : -1.0);
}

} // namespace

void register_schema_benchmarks()
{
    static const Expect record = {&record100(), 100, 1};
    static const Expect nested = {&nested_named().json, 6, (size_t)nested_named().named};
    static const struct {
        const char *path;
        const Expect *e;
    } rows[] = {{"Schema/Parse/Record100", &record}, {"Schema/Parse/NestedNamed", &nested}};
    for (const auto &r : rows) {
        benchmark::RegisterBenchmark((std::string("avrokit/") + r.path).c_str(), avk_parse, r.e)
            ->Unit(benchmark::kMicrosecond);
        benchmark::RegisterBenchmark((std::string("avroc/") + r.path).c_str(), avroc_parse, r.e)
            ->Unit(benchmark::kMicrosecond);
    }
}

} // namespace avkbench
