// Binary codec data: seeded record generators, the reference encoder, digests, and value bridges for both libraries.
#include "bench_binary.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "bench_common.h"

namespace avkbench {

// ---- digests -------------------------------------------------------------------

void Digest::bytes(const void *data, size_t len)
{
    u64(len);
    const uint8_t *p = static_cast<const uint8_t *>(data);
    while (len >= 8) {
        uint64_t x;
        std::memcpy(&x, p, 8);
        u64(x);
        p += 8;
        len -= 8;
    }
    uint64_t tail = 0;
    std::memcpy(&tail, p, len);
    u64(tail);
}

static uint64_t float_bits(float f)
{
    uint32_t b;
    std::memcpy(&b, &f, sizeof b);
    return b;
}

static uint64_t double_bits(double d)
{
    uint64_t b;
    std::memcpy(&b, &d, sizeof b);
    return b;
}

void digest_datum(Digest &g, const Datum &d)
{
    switch (d.kind) {
    case Datum::Null:
        break;
    case Datum::Boolean:
    case Datum::Int:
    case Datum::Long:
    case Datum::Enum:
        g.u64((uint64_t)d.l);
        break;
    case Datum::Float:
        g.u64(float_bits((float)d.d));
        break;
    case Datum::Double:
        g.u64(double_bits(d.d));
        break;
    case Datum::Bytes:
    case Datum::String:
    case Datum::Fixed:
        g.bytes(d.s.data(), d.s.size());
        break;
    case Datum::Union:
        g.u64((uint64_t)d.l);
        digest_datum(g, d.kids[0]);
        break;
    case Datum::Array:
        g.u64(d.kids.size());
        for (const Datum &k : d.kids)
            digest_datum(g, k);
        break;
    case Datum::Map:
        g.u64(d.kids.size());
        for (size_t i = 0; i < d.kids.size(); i++) {
            g.bytes(d.keys[i].data(), d.keys[i].size());
            digest_datum(g, d.kids[i]);
        }
        break;
    case Datum::Record:
        for (const Datum &k : d.kids)
            digest_datum(g, k);
        break;
    }
}

// Typed array items as avk_value.h lays them out.
static void digest_avk_typed(Digest &g, const void *items, size_t n, const avk_type *item)
{
    switch (avk_type_kind(item)) {
    case AVK_NULL:
        break;
    case AVK_BOOLEAN:
        for (size_t i = 0; i < n; i++)
            g.u64(static_cast<const uint8_t *>(items)[i]);
        break;
    case AVK_INT:
        for (size_t i = 0; i < n; i++)
            g.u64((uint64_t)(int64_t) static_cast<const int32_t *>(items)[i]);
        break;
    case AVK_LONG:
        for (size_t i = 0; i < n; i++)
            g.u64((uint64_t) static_cast<const int64_t *>(items)[i]);
        break;
    case AVK_FLOAT:
        for (size_t i = 0; i < n; i++)
            g.u64(float_bits(static_cast<const float *>(items)[i]));
        break;
    case AVK_DOUBLE:
        for (size_t i = 0; i < n; i++)
            g.u64(double_bits(static_cast<const double *>(items)[i]));
        break;
    case AVK_FIXED: {
        size_t size = avk_type_fixed_size(item);
        for (size_t i = 0; i < n; i++)
            g.bytes(static_cast<const uint8_t *>(items) + i * size, size);
        break;
    }
    default:
        g.u64(0xbadull); // a boxed kind reported as typed: never equal to the data
        break;
    }
}

void digest_avk(Digest &g, const avk_value *v, const avk_type *t)
{
    switch (avk_type_kind(t)) {
    case AVK_NULL:
        break;
    case AVK_BOOLEAN:
        g.u64((uint64_t)v->u.boolean);
        break;
    case AVK_INT:
        g.u64((uint64_t)(int64_t)v->u.i);
        break;
    case AVK_LONG:
        g.u64((uint64_t)v->u.l);
        break;
    case AVK_FLOAT:
        g.u64(float_bits(v->u.f));
        break;
    case AVK_DOUBLE:
        g.u64(double_bits(v->u.d));
        break;
    case AVK_BYTES:
    case AVK_STRING:
    case AVK_FIXED:
        g.bytes(v->u.bytes.data, v->u.bytes.len);
        break;
    case AVK_ENUM:
        g.u64((uint64_t)v->u.index);
        break;
    case AVK_RECORD:
        for (size_t i = 0; i < avk_type_field_count(t); i++)
            digest_avk(g, &v->u.fields[i], avk_field_type(avk_type_field(t, i)));
        break;
    case AVK_UNION: {
        uint32_t b = v->u.branch.index;
        g.u64(b);
        if (b >= avk_type_branch_count(t)) {
            g.u64(0xbadull);
            break;
        }
        const avk_type *bt = avk_type_branch(t, b);
        if (avk_type_kind(bt) != AVK_NULL)
            digest_avk(g, v->u.branch.value, bt);
        break;
    }
    case AVK_ARRAY: {
        size_t n = v->u.array.count, item_size;
        g.u64(n);
        const avk_type *item = avk_type_items(t);
        if (avk_array_is_typed(t, &item_size)) {
            digest_avk_typed(g, v->u.array.items, n, item);
        } else {
            const avk_value *items = static_cast<const avk_value *>(v->u.array.items);
            for (size_t i = 0; i < n; i++)
                digest_avk(g, &items[i], item);
        }
        break;
    }
    case AVK_MAP: {
        size_t n = v->u.map.count;
        g.u64(n);
        for (size_t i = 0; i < n; i++) {
            g.bytes(v->u.map.keys[i].data, v->u.map.keys[i].len);
            digest_avk(g, &v->u.map.values[i], avk_type_values(t));
        }
        break;
    }
    }
}

int digest_avroc(Digest &g, avro_value_t *v)
{
    int rc = 0;
    switch (avro_value_get_type(v)) {
    case AVRO_NULL:
        break;
    case AVRO_BOOLEAN: {
        int b = 0;
        rc = avro_value_get_boolean(v, &b);
        g.u64((uint64_t)b);
        break;
    }
    case AVRO_INT32: {
        int32_t i = 0;
        rc = avro_value_get_int(v, &i);
        g.u64((uint64_t)(int64_t)i);
        break;
    }
    case AVRO_INT64: {
        int64_t l = 0;
        rc = avro_value_get_long(v, &l);
        g.u64((uint64_t)l);
        break;
    }
    case AVRO_FLOAT: {
        float f = 0;
        rc = avro_value_get_float(v, &f);
        g.u64(float_bits(f));
        break;
    }
    case AVRO_DOUBLE: {
        double d = 0;
        rc = avro_value_get_double(v, &d);
        g.u64(double_bits(d));
        break;
    }
    case AVRO_STRING: {
        const char *s = nullptr;
        size_t size = 0; // counts the NUL avro-c keeps after the string
        rc = avro_value_get_string(v, &s, &size);
        g.bytes(s, size ? size - 1 : 0);
        break;
    }
    case AVRO_BYTES: {
        const void *p = nullptr;
        size_t size = 0;
        rc = avro_value_get_bytes(v, &p, &size);
        g.bytes(p, size);
        break;
    }
    case AVRO_FIXED: {
        const void *p = nullptr;
        size_t size = 0;
        rc = avro_value_get_fixed(v, &p, &size);
        g.bytes(p, size);
        break;
    }
    case AVRO_ENUM: {
        int e = 0;
        rc = avro_value_get_enum(v, &e);
        g.u64((uint64_t)(int64_t)e);
        break;
    }
    case AVRO_RECORD:
    case AVRO_ARRAY:
    case AVRO_MAP: {
        avro_type_t type = avro_value_get_type(v);
        size_t n = 0;
        if ((rc = avro_value_get_size(v, &n)) != 0)
            break;
        if (type != AVRO_RECORD)
            g.u64(n);
        for (size_t i = 0; i < n && rc == 0; i++) {
            avro_value_t child;
            const char *key = nullptr;
            if ((rc = avro_value_get_by_index(v, i, &child, &key)) != 0)
                break;
            if (type == AVRO_MAP)
                g.bytes(key, std::strlen(key));
            rc = digest_avroc(g, &child);
        }
        break;
    }
    case AVRO_UNION: {
        int disc = 0;
        avro_value_t branch;
        if ((rc = avro_value_get_discriminant(v, &disc)) != 0)
            break;
        g.u64((uint64_t)(int64_t)disc);
        if ((rc = avro_value_get_current_branch(v, &branch)) != 0)
            break;
        rc = digest_avroc(g, &branch);
        break;
    }
    default:
        rc = EINVAL;
        break;
    }
    return rc;
}

// ---- reference encoder -------------------------------------------------------------

static void put_long(std::vector<uint8_t> &out, int64_t v)
{
    uint8_t buf[10];
    size_t n = ref_encode_long(buf, v);
    out.insert(out.end(), buf, buf + n);
}

static void put_raw(std::vector<uint8_t> &out, const void *p, size_t n)
{
    const uint8_t *b = static_cast<const uint8_t *>(p);
    out.insert(out.end(), b, b + n);
}

// Little-endian IEEE 754 (Avro float and double), byte by byte so the
// reference does not depend on the host's byte order.
static void put_le(std::vector<uint8_t> &out, uint64_t bits, int bytes)
{
    for (int i = 0; i < bytes; i++)
        out.push_back((uint8_t)(bits >> (8 * i)));
}

void ref_encode(std::vector<uint8_t> &out, const Datum &d)
{
    switch (d.kind) {
    case Datum::Null:
        break;
    case Datum::Boolean:
        out.push_back(d.l ? 1 : 0);
        break;
    case Datum::Int:
    case Datum::Long:
    case Datum::Enum:
        put_long(out, d.l);
        break;
    case Datum::Float:
        put_le(out, float_bits((float)d.d), 4);
        break;
    case Datum::Double:
        put_le(out, double_bits(d.d), 8);
        break;
    case Datum::Bytes:
    case Datum::String:
        put_long(out, (int64_t)d.s.size());
        put_raw(out, d.s.data(), d.s.size());
        break;
    case Datum::Fixed:
        put_raw(out, d.s.data(), d.s.size());
        break;
    case Datum::Union:
        put_long(out, d.l);
        ref_encode(out, d.kids[0]);
        break;
    case Datum::Array:
    case Datum::Map:
        // One block of all items, then the zero count that ends the value.
        if (!d.kids.empty()) {
            put_long(out, (int64_t)d.kids.size());
            for (size_t i = 0; i < d.kids.size(); i++) {
                if (d.kind == Datum::Map) {
                    put_long(out, (int64_t)d.keys[i].size());
                    put_raw(out, d.keys[i].data(), d.keys[i].size());
                }
                ref_encode(out, d.kids[i]);
            }
        }
        put_long(out, 0);
        break;
    case Datum::Record:
        for (const Datum &k : d.kids)
            ref_encode(out, k);
        break;
    }
}

// ---- value bridges -------------------------------------------------------------------

static std::string avk_failed(const char *what, const avk_error &err)
{
    return std::string(what) + ": " + avk_status_name(err.status) + ": " + err.message;
}

// A copy of s in the arena. The values to encode hold their own copies,
// laid out in the order they were built, as avro-c's values do: views into
// the trees' scattered std::string buffers would make the avrokit rows pay
// a cache miss per string that the avro-c rows do not.
static bool arena_copy(const std::string &s, avk_arena *arena, avk_bytes *out)
{
    uint8_t *p = static_cast<uint8_t *>(avk_arena_alloc(arena, s.size() + 1, 1));
    if (p == nullptr)
        return false;
    std::memcpy(p, s.data(), s.size());
    p[s.size()] = 0;
    out->data = p;
    out->len = s.size();
    return true;
}

static std::string fill_avk_typed(void *items, const avk_type *item, const Datum &d)
{
    size_t n = d.kids.size();
    switch (avk_type_kind(item)) {
    case AVK_NULL:
        return "";
    case AVK_BOOLEAN:
        for (size_t i = 0; i < n; i++)
            static_cast<uint8_t *>(items)[i] = (uint8_t)d.kids[i].l;
        return "";
    case AVK_INT:
        for (size_t i = 0; i < n; i++)
            static_cast<int32_t *>(items)[i] = (int32_t)d.kids[i].l;
        return "";
    case AVK_LONG:
        for (size_t i = 0; i < n; i++)
            static_cast<int64_t *>(items)[i] = d.kids[i].l;
        return "";
    case AVK_FLOAT:
        for (size_t i = 0; i < n; i++)
            static_cast<float *>(items)[i] = (float)d.kids[i].d;
        return "";
    case AVK_DOUBLE:
        for (size_t i = 0; i < n; i++)
            static_cast<double *>(items)[i] = d.kids[i].d;
        return "";
    case AVK_FIXED: {
        size_t size = avk_type_fixed_size(item);
        for (size_t i = 0; i < n; i++)
            std::memcpy(static_cast<uint8_t *>(items) + i * size, d.kids[i].s.data(), size);
        return "";
    }
    default:
        return "avk_array_is_typed said typed for a boxed item kind";
    }
}

std::string fill_avk(avk_value *v, const avk_type *t, const Datum &d, avk_arena *arena)
{
    avk_error err;
    avk_kind kind = avk_type_kind(t);
    size_t count = (kind == AVK_ARRAY || kind == AVK_MAP) ? d.kids.size() : 0;
    if (avk_value_init(v, t, count, arena, &err) != AVK_OK)
        return avk_failed("avk_value_init", err);
    switch (kind) {
    case AVK_NULL:
        break;
    case AVK_BOOLEAN:
        v->u.boolean = (uint8_t)d.l;
        break;
    case AVK_INT:
        v->u.i = (int32_t)d.l;
        break;
    case AVK_LONG:
        v->u.l = d.l;
        break;
    case AVK_FLOAT:
        v->u.f = (float)d.d;
        break;
    case AVK_DOUBLE:
        v->u.d = d.d;
        break;
    case AVK_BYTES:
    case AVK_STRING:
    case AVK_FIXED:
        if (!arena_copy(d.s, arena, &v->u.bytes))
            return "avk_arena_alloc failed";
        break;
    case AVK_ENUM:
        v->u.index = (uint32_t)d.l;
        break;
    case AVK_RECORD:
        for (size_t i = 0; i < d.kids.size(); i++) {
            std::string e =
                fill_avk(&v->u.fields[i], avk_field_type(avk_type_field(t, i)), d.kids[i], arena);
            if (!e.empty())
                return e;
        }
        break;
    case AVK_UNION:
        if (avk_value_set_branch(v, (uint32_t)d.l, arena, &err) != AVK_OK)
            return avk_failed("avk_value_set_branch", err);
        return fill_avk(v->u.branch.value, avk_type_branch(t, (size_t)d.l), d.kids[0], arena);
    case AVK_ARRAY: {
        size_t item_size;
        if (v->u.array.count != count)
            return "avk_value_init: array count not set";
        if (avk_array_is_typed(t, &item_size))
            return fill_avk_typed(v->u.array.items, avk_type_items(t), d);
        avk_value *items = static_cast<avk_value *>(v->u.array.items);
        for (size_t i = 0; i < count; i++) {
            std::string e = fill_avk(&items[i], avk_type_items(t), d.kids[i], arena);
            if (!e.empty())
                return e;
        }
        break;
    }
    case AVK_MAP:
        if (v->u.map.count != count)
            return "avk_value_init: map count not set";
        for (size_t i = 0; i < count; i++) {
            if (!arena_copy(d.keys[i], arena, &v->u.map.keys[i]))
                return "avk_arena_alloc failed";
            std::string e = fill_avk(&v->u.map.values[i], avk_type_values(t), d.kids[i], arena);
            if (!e.empty())
                return e;
        }
        break;
    }
    return "";
}

std::string fill_avroc(avro_value_t *v, const Datum &d)
{
    int rc = 0;
    switch (d.kind) {
    case Datum::Null:
        rc = avro_value_set_null(v);
        break;
    case Datum::Boolean:
        rc = avro_value_set_boolean(v, (int)d.l);
        break;
    case Datum::Int:
        rc = avro_value_set_int(v, (int32_t)d.l);
        break;
    case Datum::Long:
        rc = avro_value_set_long(v, d.l);
        break;
    case Datum::Float:
        rc = avro_value_set_float(v, (float)d.d);
        break;
    case Datum::Double:
        rc = avro_value_set_double(v, d.d);
        break;
    case Datum::String: // the size avro-c takes counts the NUL
        rc = avro_value_set_string_len(v, d.s.c_str(), d.s.size() + 1);
        break;
    case Datum::Bytes:
        rc = avro_value_set_bytes(v, const_cast<char *>(d.s.data()), d.s.size());
        break;
    case Datum::Fixed:
        rc = avro_value_set_fixed(v, const_cast<char *>(d.s.data()), d.s.size());
        break;
    case Datum::Enum:
        rc = avro_value_set_enum(v, (int)d.l);
        break;
    case Datum::Union: {
        avro_value_t branch;
        if ((rc = avro_value_set_branch(v, (int)d.l, &branch)) == 0)
            return fill_avroc(&branch, d.kids[0]);
        break;
    }
    case Datum::Array:
    case Datum::Map:
    case Datum::Record:
        for (size_t i = 0; i < d.kids.size() && rc == 0; i++) {
            avro_value_t child;
            if (d.kind == Datum::Array)
                rc = avro_value_append(v, &child, nullptr);
            else if (d.kind == Datum::Map)
                rc = avro_value_add(v, d.keys[i].c_str(), &child, nullptr, nullptr);
            else
                rc = avro_value_get_by_index(v, i, &child, nullptr);
            if (rc == 0) {
                std::string e = fill_avroc(&child, d.kids[i]);
                if (!e.empty())
                    return e;
            }
        }
        break;
    }
    if (rc != 0)
        return std::string("avro-c: setting a value failed: ") + avro_strerror();
    return "";
}

// ---- allocators ----------------------------------------------------------------------

static void *count_alloc(void *ctx, size_t size)
{
    AllocCounts *c = static_cast<AllocCounts *>(ctx);
    c->calls++;
    c->bytes += size;
    return std::malloc(size);
}

static void *count_realloc(void *ctx, void *ptr, size_t, size_t new_size)
{
    AllocCounts *c = static_cast<AllocCounts *>(ctx);
    c->calls++;
    c->bytes += new_size;
    return std::realloc(ptr, new_size);
}

static void count_free(void *, void *ptr, size_t)
{
    std::free(ptr);
}

avk_allocator counting_allocator(AllocCounts *c)
{
    avk_allocator a = {count_alloc, count_realloc, count_free, c};
    return a;
}

void *avroc_counting_alloc(void *ud, void *ptr, size_t, size_t nsize)
{
    if (nsize == 0) {
        std::free(ptr);
        return nullptr;
    }
    AllocCounts *c = static_cast<AllocCounts *>(ud);
    c->calls++;
    c->bytes += nsize;
    return std::realloc(ptr, nsize);
}

// ---- generators ----------------------------------------------------------------------

namespace {

constexpr uint64_t kSeed = 42;

uint64_t below(std::mt19937_64 &rng, uint64_t n)
{
    return rng() % n;
}

int64_t zigzag_decode(uint64_t u)
{
    return (int64_t)((u >> 1) ^ (0 - (u & 1)));
}

// A long whose zigzag varint is len bytes (1..10), uniform within that length.
int64_t long_of_length(std::mt19937_64 &rng, unsigned len)
{
    uint64_t lo = len == 1 ? 0 : (uint64_t)1 << (7 * (len - 1));
    uint64_t hi = len >= 10 ? UINT64_MAX : ((uint64_t)1 << (7 * len)) - 1;
    return zigzag_decode(lo + rng() % (hi - lo + 1));
}

// An int whose zigzag varint is len bytes (1..5).
int32_t int_of_length(std::mt19937_64 &rng, unsigned len)
{
    uint64_t lo = len == 1 ? 0 : (uint64_t)1 << (7 * (len - 1));
    uint64_t hi = len >= 5 ? UINT32_MAX : ((uint64_t)1 << (7 * len)) - 1;
    return (int32_t)zigzag_decode(lo + rng() % (hi - lo + 1));
}

double uniform(std::mt19937_64 &rng, double lo, double hi)
{
    return lo + (hi - lo) * (double)(rng() >> 11) * 0x1.0p-53;
}

Datum scalar(Datum::Kind k, int64_t l)
{
    Datum d;
    d.kind = k;
    d.l = l;
    return d;
}

Datum dbl(double v)
{
    Datum d;
    d.kind = Datum::Double;
    d.d = v;
    return d;
}

// Printable ASCII, length in [lo, hi].
Datum str(std::mt19937_64 &rng, size_t lo, size_t hi, Datum::Kind k = Datum::String)
{
    Datum d;
    d.kind = k;
    size_t n = lo + below(rng, hi - lo + 1);
    d.s.resize(n);
    for (size_t i = 0; i < n; i++)
        d.s[i] = (char)(0x20 + below(rng, 0x7f - 0x20));
    return d;
}

Datum record(size_t fields)
{
    Datum d;
    d.kind = Datum::Record;
    d.kids.reserve(fields);
    return d;
}

std::string record_schema(const char *name, const std::string &fields)
{
    return std::string("{\"type\":\"record\",\"name\":\"") + name +
           "\",\"namespace\":\"bench.binary\",\"fields\":[" + fields + "]}";
}

std::string field(int i, const char *prefix, const std::string &type)
{
    return std::string(i ? "," : "") + "{\"name\":\"" + prefix + std::to_string(i) +
           "\",\"type\":" + type + "}";
}

// Longs: ten longs whose encodings take 1 to 10 bytes, the length uniform.
std::string longs_schema()
{
    std::string f;
    for (int i = 0; i < 10; i++)
        f += field(i, "f", "\"long\"");
    return record_schema("Longs", f);
}

Datum longs_gen(std::mt19937_64 &rng, size_t)
{
    Datum r = record(10);
    for (int i = 0; i < 10; i++)
        r.kids.push_back(scalar(Datum::Long, long_of_length(rng, 1 + (unsigned)below(rng, 10))));
    return r;
}

// Strings: ten strings of 8 to 40 printable ASCII characters.
std::string strings_schema()
{
    std::string f;
    for (int i = 0; i < 10; i++)
        f += field(i, "s", "\"string\"");
    return record_schema("Strings", f);
}

Datum strings_gen(std::mt19937_64 &rng, size_t)
{
    Datum r = record(10);
    for (int i = 0; i < 10; i++)
        r.kids.push_back(str(rng, 8, 40));
    return r;
}

// RealisticLongs: the longs of an event table row.
std::string realistic_schema()
{
    return record_schema("RealisticLongs",
                         "{\"name\":\"id\",\"type\":\"long\"},"
                         "{\"name\":\"timestamp_ms\",\"type\":\"long\"},"
                         "{\"name\":\"counter\",\"type\":\"long\"},"
                         "{\"name\":\"delta\",\"type\":\"long\"},"
                         "{\"name\":\"user_id\",\"type\":\"long\"}");
}

Datum realistic_gen(std::mt19937_64 &rng, size_t index)
{
    Datum r = record(5);
    r.kids.push_back(scalar(Datum::Long, ((int64_t)1 << 40) + (int64_t)index * 3 +
                                             (int64_t)below(rng, 3))); // ids near 2^40, rising
    r.kids.push_back(scalar(Datum::Long, INT64_C(1700000000000) + (int64_t)index * 50 +
                                             (int64_t)below(rng, 50))); // ms timestamps
    r.kids.push_back(scalar(Datum::Long, (int64_t)below(rng, 1001)));       // 0..1000
    r.kids.push_back(scalar(Datum::Long, (int64_t)below(rng, 201) - 100));  // -100..100
    r.kids.push_back(scalar(Datum::Long, 950000 + (int64_t)below(rng, 100001))); // near 1e6
    return r;
}

// WideRecord: 100 fields, int, long, double, string, boolean in turn.
const char *const kWideTypes[] = {"\"int\"", "\"long\"", "\"double\"", "\"string\"",
                                  "\"boolean\""};

std::string wide_schema()
{
    std::string f;
    for (int i = 0; i < 100; i++)
        f += field(i, "f", kWideTypes[i % 5]);
    return record_schema("WideRecord", f);
}

Datum wide_gen(std::mt19937_64 &rng, size_t)
{
    Datum r = record(100);
    for (int i = 0; i < 100; i++) {
        switch (i % 5) {
        case 0:
            r.kids.push_back(scalar(Datum::Int, int_of_length(rng, 1 + (unsigned)below(rng, 5))));
            break;
        case 1:
            r.kids.push_back(
                scalar(Datum::Long, long_of_length(rng, 1 + (unsigned)below(rng, 10))));
            break;
        case 2:
            r.kids.push_back(dbl(uniform(rng, -1e6, 1e6)));
            break;
        case 3:
            r.kids.push_back(str(rng, 8, 40));
            break;
        default:
            r.kids.push_back(scalar(Datum::Boolean, (int64_t)below(rng, 2)));
            break;
        }
    }
    return r;
}

// GenericRecord: one of each compound kind.
std::string generic_schema()
{
    return record_schema(
        "GenericRecord",
        "{\"name\":\"name\",\"type\":\"string\"},"
        "{\"name\":\"nick\",\"type\":[\"null\",\"string\"]},"
        "{\"name\":\"scores\",\"type\":{\"type\":\"array\",\"items\":\"int\"}},"
        "{\"name\":\"weights\",\"type\":{\"type\":\"map\",\"values\":\"double\"}},"
        "{\"name\":\"color\",\"type\":{\"type\":\"enum\",\"name\":\"Color\","
        "\"symbols\":[\"RED\",\"GREEN\",\"BLUE\",\"CYAN\"]}},"
        "{\"name\":\"hash\",\"type\":{\"type\":\"fixed\",\"name\":\"Hash\",\"size\":16}},"
        "{\"name\":\"inner\",\"type\":{\"type\":\"record\",\"name\":\"Inner\",\"fields\":["
        "{\"name\":\"a\",\"type\":\"long\"},{\"name\":\"b\",\"type\":\"double\"},"
        "{\"name\":\"c\",\"type\":\"string\"}]}}");
}

Datum generic_gen(std::mt19937_64 &rng, size_t)
{
    Datum r = record(7);
    r.kids.push_back(str(rng, 8, 40));

    Datum nick = scalar(Datum::Union, (int64_t)below(rng, 2));
    nick.kids.push_back(nick.l ? str(rng, 4, 16) : Datum());
    r.kids.push_back(std::move(nick));

    Datum scores;
    scores.kind = Datum::Array;
    size_t n = 5 + below(rng, 16);
    for (size_t i = 0; i < n; i++)
        scores.kids.push_back(scalar(Datum::Int, int_of_length(rng, 1 + (unsigned)below(rng, 3))));
    r.kids.push_back(std::move(scores));

    Datum weights;
    weights.kind = Datum::Map;
    while (weights.keys.size() < 3) {
        std::string k = str(rng, 3, 10).s;
        bool dup = false;
        for (const std::string &have : weights.keys)
            dup = dup || have == k;
        if (dup)
            continue; // map keys are unique
        weights.keys.push_back(k);
        weights.kids.push_back(dbl(uniform(rng, 0, 1)));
    }
    r.kids.push_back(std::move(weights));

    r.kids.push_back(scalar(Datum::Enum, (int64_t)below(rng, 4)));

    Datum hash;
    hash.kind = Datum::Fixed;
    hash.s.resize(16);
    for (char &c : hash.s)
        c = (char)below(rng, 256);
    r.kids.push_back(std::move(hash));

    Datum inner = record(3);
    inner.kids.push_back(scalar(Datum::Long, long_of_length(rng, 1 + (unsigned)below(rng, 10))));
    inner.kids.push_back(dbl(uniform(rng, -1e3, 1e3)));
    inner.kids.push_back(str(rng, 8, 40));
    r.kids.push_back(std::move(inner));
    return r;
}

// Showcase: root arrays of 1,000 ints, longs or booleans.
constexpr size_t kShowcaseItems = 1000;

std::string int_array_schema() { return "{\"type\":\"array\",\"items\":\"int\"}"; }
std::string long_array_schema() { return "{\"type\":\"array\",\"items\":\"long\"}"; }
std::string boolean_array_schema() { return "{\"type\":\"array\",\"items\":\"boolean\"}"; }

Datum array_of(size_t n)
{
    Datum a;
    a.kind = Datum::Array;
    a.kids.reserve(n);
    return a;
}

Datum int_array_gen(std::mt19937_64 &rng, size_t)
{
    Datum a = array_of(kShowcaseItems);
    for (size_t i = 0; i < kShowcaseItems; i++)
        a.kids.push_back(scalar(Datum::Int, int_of_length(rng, 1 + (unsigned)below(rng, 5))));
    return a;
}

Datum long_array_gen(std::mt19937_64 &rng, size_t)
{
    Datum a = array_of(kShowcaseItems);
    for (size_t i = 0; i < kShowcaseItems; i++)
        a.kids.push_back(scalar(Datum::Long, long_of_length(rng, 1 + (unsigned)below(rng, 10))));
    return a;
}

Datum boolean_array_gen(std::mt19937_64 &rng, size_t)
{
    Datum a = array_of(kShowcaseItems);
    for (size_t i = 0; i < kShowcaseItems; i++)
        a.kids.push_back(scalar(Datum::Boolean, (int64_t)below(rng, 2)));
    return a;
}

// DoubleArray256: a record holding one array of 256 doubles.
std::string double_array_schema()
{
    return record_schema("Samples",
                         "{\"name\":\"values\",\"type\":{\"type\":\"array\",\"items\":\"double\"}}");
}

Datum double_array_gen(std::mt19937_64 &rng, size_t)
{
    Datum a = array_of(256);
    for (size_t i = 0; i < 256; i++)
        a.kids.push_back(dbl(uniform(rng, -1e3, 1e3)));
    Datum r = record(1);
    r.kids.push_back(std::move(a));
    return r;
}

uint64_t name_seed(const char *name)
{
    uint64_t h = 0xcbf29ce484222325ull; // FNV-1a: a seed per data set, stable across runs
    for (const char *p = name; *p; p++)
        h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
    return kSeed ^ h;
}

} // namespace

#define AVKBENCH_SPEC(fn, name, schema, records, gen, keep)                                   \
    const BinSpec &fn()                                                                        \
    {                                                                                          \
        static const BinSpec s = {name, schema, records, gen, keep, nullptr};                  \
        return s;                                                                              \
    }

AVKBENCH_SPEC(spec_longs, "Longs", longs_schema, 10000, longs_gen, true)
AVKBENCH_SPEC(spec_strings, "Strings", strings_schema, 10000, strings_gen, true)
AVKBENCH_SPEC(spec_realistic_longs, "RealisticLongs", realistic_schema, 10000, realistic_gen, true)
AVKBENCH_SPEC(spec_wide_record, "WideRecord", wide_schema, 10000, wide_gen, false)
AVKBENCH_SPEC(spec_generic_record, "GenericRecord", generic_schema, 10000, generic_gen, true)
// The same schema and generator at container-file scale (bench_file.cc).
AVKBENCH_SPEC(spec_generic_record_file, "GenericRecordFile", generic_schema, 100000, generic_gen,
              true)
AVKBENCH_SPEC(spec_int_array, "IntArray", int_array_schema, 100, int_array_gen, true)
AVKBENCH_SPEC(spec_long_array, "LongArray", long_array_schema, 100, long_array_gen, true)
AVKBENCH_SPEC(spec_boolean_array, "BooleanArray", boolean_array_schema, 100, boolean_array_gen,
              true)
AVKBENCH_SPEC(spec_double_array256, "DoubleArray256", double_array_schema, 2000,
              double_array_gen, false)

#undef AVKBENCH_SPEC

// ---- generator pieces for other files -------------------------------------------------

uint64_t bin_seed(const BinSpec &spec)
{
    return name_seed(spec.name);
}

int64_t gen_long_of_length(std::mt19937_64 &rng, unsigned len)
{
    return long_of_length(rng, len);
}

int32_t gen_int_of_length(std::mt19937_64 &rng, unsigned len)
{
    return int_of_length(rng, len);
}

double gen_uniform(std::mt19937_64 &rng, double lo, double hi)
{
    return uniform(rng, lo, hi);
}

Datum gen_string(std::mt19937_64 &rng, size_t lo, size_t hi)
{
    return str(rng, lo, hi);
}

// ---- set-up ----------------------------------------------------------------------------

static std::string setup(const BinSpec &spec, BinData &d)
{
    std::string json = spec.schema();
    avk_error err;
    if (avk_schema_parse(json.data(), json.size(), nullptr, &d.schema, &err) != AVK_OK)
        return avk_failed("avk_schema_parse", err);
    d.root = avk_schema_root(d.schema);
    if (avk_plan_new(d.root, nullptr, &d.plan, &err) != AVK_OK)
        return avk_failed("avk_plan_new", err);
    avk_plan_options po;
    std::memset(&po, 0, sizeof po);
    po.struct_size = sizeof po;
    po.flags = AVK_PLAN_COPY_STRINGS;
    if (avk_plan_new(d.root, &po, &d.plan_copy, &err) != AVK_OK)
        return avk_failed("avk_plan_new (copying strings)", err);
    if (avro_schema_from_json_length(json.data(), json.size(), &d.aschema) != 0)
        return std::string("avro_schema_from_json_length: ") + avro_strerror();
    d.iface = avro_generic_class_from_schema(d.aschema);
    if (d.iface == nullptr)
        return std::string("avro_generic_class_from_schema: ") + avro_strerror();

    std::mt19937_64 rng(name_seed(spec.name));
    d.offsets.reserve(spec.records + 1);
    d.digests.reserve(spec.records);
    if (spec.keep)
        d.trees.reserve(spec.records);
    for (size_t i = 0; i < spec.records; i++) {
        Datum t = spec.gen(rng, i);
        d.offsets.push_back(d.encoded.size());
        ref_encode(d.encoded, t);
        Digest g;
        digest_datum(g, t);
        d.digests.push_back(g.h);
        if (spec.keep)
            d.trees.push_back(std::move(t));
    }
    d.offsets.push_back(d.encoded.size());
    d.encoded.shrink_to_fit();
    return "";
}

BinData *bin_data(const BinSpec &spec)
{
    if (!spec.data) {
        spec.data.reset(new BinData());
        spec.data->error = setup(spec, *spec.data);
    }
    return spec.data.get();
}

// Flattened longs and typed item arrays, for the builder rows.
static void flatten(BinData *d)
{
    const avk_type *root = d->root;
    if (avk_type_kind(root) == AVK_RECORD) {
        size_t n = avk_type_field_count(root);
        for (size_t i = 0; i < n; i++) {
            if (avk_type_kind(avk_field_type(avk_type_field(root, i))) != AVK_LONG)
                return;
        }
        d->longs_per_record = n;
        d->flat_longs.reserve(n * d->trees.size());
        for (const Datum &t : d->trees) {
            for (const Datum &k : t.kids)
                d->flat_longs.push_back(k.l);
        }
    } else if (avk_type_kind(root) == AVK_ARRAY) {
        size_t item_size;
        if (!avk_array_is_typed(root, &item_size))
            return;
        const avk_type *item = avk_type_items(root);
        for (const Datum &t : d->trees) {
            std::vector<uint8_t> raw(t.kids.size() * item_size);
            for (size_t i = 0; i < t.kids.size(); i++) {
                uint8_t *p = raw.data() + i * item_size;
                if (avk_type_kind(item) == AVK_BOOLEAN) {
                    *p = (uint8_t)t.kids[i].l;
                } else if (avk_type_kind(item) == AVK_INT) {
                    int32_t v = (int32_t)t.kids[i].l;
                    std::memcpy(p, &v, sizeof v);
                } else if (avk_type_kind(item) == AVK_LONG) {
                    std::memcpy(p, &t.kids[i].l, sizeof(int64_t));
                } else if (avk_type_kind(item) == AVK_DOUBLE) {
                    std::memcpy(p, &t.kids[i].d, sizeof(double));
                }
            }
            d->typed_items.push_back(std::move(raw));
            d->typed_counts.push_back(t.kids.size());
        }
    }
}

static std::string make_values(const BinSpec &spec, BinData *d)
{
    if (!spec.keep)
        return std::string("data set ") + spec.name + " keeps no trees to encode";
    avk_error err;
    if (avk_arena_new(nullptr, &d->value_arena, &err) != AVK_OK)
        return avk_failed("avk_arena_new", err);
    size_t n = d->trees.size();
    d->avk_values.resize(n);
    d->avroc_values.resize(n);
    for (size_t i = 0; i < n; i++) {
        std::string e = fill_avk(&d->avk_values[i], d->root, d->trees[i], d->value_arena);
        if (!e.empty())
            return "record " + std::to_string(i) + ": " + e;
        if (avro_generic_value_new(d->iface, &d->avroc_values[i]) != 0)
            return std::string("avro_generic_value_new: ") + avro_strerror();
        e = fill_avroc(&d->avroc_values[i], d->trees[i]);
        if (!e.empty())
            return "record " + std::to_string(i) + ": " + e;
    }
    flatten(d);
    return "";
}

std::string bin_values(const BinSpec &spec, BinData *d)
{
    if (!d->error.empty())
        return d->error;
    if (!d->values_built) {
        d->values_built = true;
        d->values_error = make_values(spec, d);
    }
    return d->values_error;
}

} // namespace avkbench
