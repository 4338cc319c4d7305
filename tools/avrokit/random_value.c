/* Seeded random Avro values: xoshiro256** and a generator walking the schema with a depth bound. */
#include "random_value.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- the generator of numbers ------------------------------------------- */

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void avkcli_rng_seed(avkcli_rng *r, uint64_t seed)
{
    /* splitmix64 never yields four zero words, the one state xoshiro
     * cannot leave. */
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t avkcli_rng_next(avkcli_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double avkcli_rng_unit(avkcli_rng *r)
{
    return (double)(avkcli_rng_next(r) >> 11) * 0x1.0p-53;
}

/* Below bound (bound > 0); the modulo bias is far below anything visible
 * in test data. */
static uint64_t below(avkcli_rng *r, uint64_t bound)
{
    return avkcli_rng_next(r) % bound;
}

/* ---- errors --------------------------------------------------------------- */

static avk_status fail(avk_error *err, avk_status st, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static avk_status fail(avk_error *err, avk_status st, const char *path, const char *fmt, ...)
{
    if (err == NULL)
        return st;
    memset(err, 0, sizeof *err);
    err->status = st;
    err->offset = AVK_OFFSET_UNKNOWN;
    err->block = -1;
    snprintf(err->path, sizeof err->path, "%s", path);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return st;
}

static const char *type_label(const avk_type *t)
{
    return avk_type_is_named(t) ? avk_type_fullname(t) : avk_kind_name(avk_type_kind(t));
}

static void *alloc(avk_arena *arena, size_t size, avk_error *err, avk_status *st)
{
    void *p = avk_arena_alloc(arena, size ? size : 1, 8);
    if (p == NULL)
        *st = fail(err, AVK_ERR_NO_MEMORY, "", "out of memory making a random value (%zu bytes)",
                   size);
    return p;
}

/* ---- numbers -------------------------------------------------------------- */

/* A signed value whose zigzag varint is len bytes long (len 1..10). */
static int64_t long_of_length(avkcli_rng *r, unsigned len)
{
    uint64_t lo = len == 1 ? 0 : (uint64_t)1 << (7 * (len - 1));
    uint64_t hi = len >= 10 ? UINT64_MAX : ((uint64_t)1 << (7 * len)) - 1;
    uint64_t u = lo + (hi - lo == UINT64_MAX ? avkcli_rng_next(r) : below(r, hi - lo + 1));
    return (int64_t)((u >> 1) ^ (0 - (u & 1)));
}

/* Varint lengths as ordinary data has them: half one byte, a quarter two,
 * the rest spread up to max_len. */
static unsigned varint_length(avkcli_rng *r, unsigned max_len)
{
    uint64_t x = below(r, 100);
    if (x < 50)
        return 1;
    if (x < 75)
        return 2;
    if (x < 88)
        return 3;
    return 3 + 1 + (unsigned)below(r, max_len - 3);
}

static int32_t random_int(avkcli_rng *r)
{
    return (int32_t)long_of_length(r, varint_length(r, 5));
}

static int64_t random_long(avkcli_rng *r)
{
    return long_of_length(r, varint_length(r, 10));
}

/* Values with two decimals, mostly in the hundreds, now and then large. */
static double random_double(avkcli_rng *r)
{
    double scale = below(r, 10) == 0 ? 1e6 : 1e3;
    double x = (avkcli_rng_unit(r) * 2.0 - 1.0) * scale;
    return (double)(int64_t)(x * 100.0) / 100.0;
}

/* Days since 1970 in 1970-01-01 .. 2039-12-31. */
#define DAYS_1970_2040 25567

static int64_t random_in(avkcli_rng *r, int64_t lo, int64_t span)
{
    return lo + (int64_t)below(r, (uint64_t)span);
}

/* Milliseconds since 1970 in 2000..2030. */
static int64_t random_epoch_millis(avkcli_rng *r)
{
    return random_in(r, 946684800000LL, 30LL * 365 * 86400000LL);
}

static int32_t int_value(const avk_type *t, avkcli_rng *r)
{
    switch (avk_type_logical(t)) {
    case AVK_LOGICAL_DATE:
        return (int32_t)random_in(r, 0, DAYS_1970_2040);
    case AVK_LOGICAL_TIME_MILLIS:
        return (int32_t)random_in(r, 0, 86400000LL);
    default:
        return random_int(r);
    }
}

static int64_t long_value(const avk_type *t, avkcli_rng *r)
{
    switch (avk_type_logical(t)) {
    case AVK_LOGICAL_TIME_MICROS:
        return random_in(r, 0, 86400000000LL);
    case AVK_LOGICAL_TIMESTAMP_MILLIS:
    case AVK_LOGICAL_LOCAL_TIMESTAMP_MILLIS:
        return random_epoch_millis(r);
    case AVK_LOGICAL_TIMESTAMP_MICROS:
    case AVK_LOGICAL_LOCAL_TIMESTAMP_MICROS:
        return random_epoch_millis(r) * 1000 + random_in(r, 0, 1000);
    case AVK_LOGICAL_TIMESTAMP_NANOS:
    case AVK_LOGICAL_LOCAL_TIMESTAMP_NANOS:
        return random_epoch_millis(r) * 1000000 + random_in(r, 0, 1000000);
    default:
        return random_long(r);
    }
}

/* ---- text ----------------------------------------------------------------- */

/* Words for strings and map keys; a few are not ASCII so readers see
 * multi-byte UTF-8. */
static const char *const kWords[] = {
    "alpha", "beta", "gamma", "delta", "river", "stone", "cloud", "amber", "orbit", "maple",
    "north", "quiet", "swift", "paper", "lemon", "cedar", "pixel", "ocean", "tiger", "violet",
    "data", "node", "user", "event", "red", "blue", "green", "id", "key", "log",
    "caf\xc3\xa9", "na\xc3\xafve", "Z\xc3\xbcrich", "\xe6\x9d\xb1\xe4\xba\xac", "se\xc3\xb1or",
    "\xce\xbb", "stra\xc3\x9f" "e", "\xe2\x82\xac" "5",
};
#define WORD_COUNT (sizeof kWords / sizeof kWords[0])

/* Whole words separated by spaces, at most max bytes (so always valid
 * UTF-8); returns the length written into buf (room for max bytes). */
static size_t words(avkcli_rng *r, char *buf, size_t max)
{
    size_t len = 0;
    for (;;) {
        const char *w = kWords[below(r, WORD_COUNT)];
        size_t wl = strlen(w), need = wl + (len ? 1 : 0);
        if (len + need > max)
            break;
        if (len)
            buf[len++] = ' ';
        memcpy(buf + len, w, wl);
        len += wl;
    }
    return len;
}

static avk_status put_bytes(avk_bytes *out, const void *data, size_t len, avk_arena *arena,
                            avk_error *err)
{
    avk_status st = AVK_OK;
    uint8_t *p = alloc(arena, len + 1, err, &st);
    if (p == NULL)
        return st;
    if (len)
        memcpy(p, data, len);
    p[len] = 0; /* as decoded copies have */
    out->data = p;
    out->len = len;
    return AVK_OK;
}

static void random_uuid(avkcli_rng *r, uint8_t u[16])
{
    uint64_t a = avkcli_rng_next(r), b = avkcli_rng_next(r);
    for (int i = 0; i < 8; i++) {
        u[i] = (uint8_t)(a >> (8 * i));
        u[8 + i] = (uint8_t)(b >> (8 * i));
    }
    u[6] = (uint8_t)((u[6] & 0x0f) | 0x40); /* version 4 */
    u[8] = (uint8_t)((u[8] & 0x3f) | 0x80); /* RFC 4122 variant */
}

static avk_status string_value(const avk_type *t, avkcli_rng *r, avk_arena *arena, avk_bytes *out,
                               avk_error *err)
{
    char buf[AVK_UUID_STRING_SIZE > 25 ? AVK_UUID_STRING_SIZE : 25];
    size_t len;
    if (avk_type_logical(t) == AVK_LOGICAL_UUID) {
        uint8_t u[16];
        random_uuid(r, u);
        if (avk_uuid_format(u, buf) != AVK_OK)
            return fail(err, AVK_ERR_INVALID_ARGUMENT, "", "avk_uuid_format refused 16 bytes");
        len = strlen(buf);
    } else {
        len = words(r, buf, (size_t)below(r, 25));
    }
    return put_bytes(out, buf, len, arena, err);
}

/* ---- decimals ------------------------------------------------------------- */

/* The most decimal digits whose every value fits n bytes of two's
 * complement (10^d - 1 <= 2^(8n-1) - 1), for n = 1..16. */
static int digits_for_bytes(size_t n)
{
    static const int kDigits[16] = {2, 4, 6, 9, 11, 14, 16, 18, 21, 23, 26, 28, 31, 33, 35, 38};
    return n >= 16 ? 38 : kDigits[n - 1];
}

/* The unscaled integer of a decimal with at most digits digits, as the
 * shortest big-endian two's complement, into an arena buffer. */
static avk_status decimal_unscaled(avkcli_rng *r, int digits, avk_arena *arena, uint8_t **out,
                                   size_t *out_len, avk_error *err)
{
    char text[80];
    size_t n = 0;
    int d = digits < 1 ? 1 : digits > 76 ? 76 : digits;
    d = 1 + (int)below(r, (uint64_t)d);
    if (below(r, 4) == 0)
        text[n++] = '-';
    for (int i = 0; i < d; i++)
        text[n++] = (char)('0' + (i == 0 && d > 1 ? 1 + below(r, 9) : below(r, 10)));
    size_t cap = (size_t)d / 2 + 2; /* log2(10)/8 < 1/2 byte per digit, plus sign */
    avk_status st = AVK_OK;
    uint8_t *p = alloc(arena, cap, err, &st);
    if (p == NULL)
        return st;
    st = avk_decimal_from_string(text, n, 0, p, cap, out_len);
    if (st != AVK_OK)
        return fail(err, st, "", "avk_decimal_from_string refused %.*s", (int)n, text);
    *out = p;
    return AVK_OK;
}

/* ---- fixed ---------------------------------------------------------------- */

static avk_status fixed_fill(const avk_type *t, avkcli_rng *r, avk_arena *arena, uint8_t *dst,
                             avk_error *err)
{
    size_t n = avk_type_fixed_size(t);
    switch (avk_type_logical(t)) {
    case AVK_LOGICAL_UUID:
        if (n == 16) {
            random_uuid(r, dst);
            return AVK_OK;
        }
        break;
    case AVK_LOGICAL_DURATION:
        if (n == 12)
            return avk_duration_encode((uint32_t)below(r, 120), (uint32_t)below(r, 31),
                                       (uint32_t)below(r, 86400000), dst);
        break;
    case AVK_LOGICAL_DECIMAL: {
        int digits = avk_type_decimal_precision(t), fit = digits_for_bytes(n);
        uint8_t *unscaled;
        size_t len;
        if (n == 0)
            return AVK_OK;
        avk_status st =
            decimal_unscaled(r, digits < fit ? digits : fit, arena, &unscaled, &len, err);
        if (st != AVK_OK)
            return st;
        if (avk_decimal_to_fixed(unscaled, len, dst, n) != AVK_OK)
            return fail(err, AVK_ERR_LIMIT, type_label(t),
                        "a random decimal did not fit fixed(%zu)", n);
        return AVK_OK;
    }
    default:
        break;
    }
    for (size_t i = 0; i < n; i++)
        dst[i] = (uint8_t)avkcli_rng_next(r);
    return AVK_OK;
}

/* ---- the walk ------------------------------------------------------------- */

/* Items for an array or map at depth: up to 8 near the root, fewer
 * deeper, none past the soft depth (so recursion through collections ends
 * without the tree growing as 8^depth). */
static size_t item_count(avkcli_rng *r, unsigned depth)
{
    if (depth >= AVKCLI_RANDOM_SOFT_DEPTH)
        return 0;
    uint64_t max = depth <= 2 ? 8 : depth <= 4 ? 3 : 1;
    return (size_t)below(r, max + 1);
}

/* How far a branch is from a value with no nesting: used past the soft
 * depth, where unions take their simplest branch. */
static int branch_weight(const avk_type *t)
{
    switch (avk_type_kind(t)) {
    case AVK_ARRAY:
    case AVK_MAP:
        return 1; /* can be empty */
    case AVK_RECORD:
        return avk_type_field_count(t) == 0 ? 0 : 2;
    case AVK_UNION:
        return 3;
    default:
        return 0;
    }
}

static avk_status gen(const avk_type *t, avkcli_rng *r, avk_arena *arena, avk_value *out,
                      unsigned depth, avk_error *err);

static avk_status typed_items(const avk_type *item, avkcli_rng *r, avk_arena *arena, void *items,
                              size_t count, avk_error *err)
{
    for (size_t i = 0; i < count; i++) {
        switch (avk_type_kind(item)) {
        case AVK_BOOLEAN:
            ((uint8_t *)items)[i] = (uint8_t)below(r, 2);
            break;
        case AVK_INT:
            ((int32_t *)items)[i] = int_value(item, r);
            break;
        case AVK_LONG:
            ((int64_t *)items)[i] = long_value(item, r);
            break;
        case AVK_FLOAT:
            ((float *)items)[i] = (float)random_double(r);
            break;
        case AVK_DOUBLE:
            ((double *)items)[i] = random_double(r);
            break;
        case AVK_FIXED: {
            size_t n = avk_type_fixed_size(item);
            avk_status st = fixed_fill(item, r, arena, (uint8_t *)items + i * n, err);
            if (st != AVK_OK)
                return st;
            break;
        }
        default: /* null: no storage */
            break;
        }
    }
    return AVK_OK;
}

static avk_status array_value(const avk_type *t, avkcli_rng *r, avk_arena *arena,
                              avk_value *out, unsigned depth, avk_error *err)
{
    size_t count = item_count(r, depth), item_size;
    avk_status st = avk_value_init(out, t, count, arena, err);
    if (st != AVK_OK)
        return st;
    const avk_type *item = avk_type_items(t);
    if (avk_array_is_typed(t, &item_size))
        return typed_items(item, r, arena, out->u.array.items, count, err);
    avk_value *items = (avk_value *)out->u.array.items;
    for (size_t i = 0; i < count; i++) {
        if ((st = gen(item, r, arena, &items[i], depth + 1, err)) != AVK_OK)
            return st;
    }
    return AVK_OK;
}

static avk_status map_value(const avk_type *t, avkcli_rng *r, avk_arena *arena, avk_value *out,
                            unsigned depth, avk_error *err)
{
    size_t count = item_count(r, depth);
    avk_status st = avk_value_init(out, t, count, arena, err);
    if (st != AVK_OK)
        return st;
    for (size_t i = 0; i < count; i++) {
        /* Distinct keys: a word, made unique with a number when taken. */
        char key[40];
        size_t len = words(r, key, 1 + (size_t)below(r, 12));
        if (len == 0) {
            memcpy(key, "key", 3);
            len = 3;
        }
        for (size_t j = 0; j < i; j++) {
            avk_bytes *k = &out->u.map.keys[j];
            if (k->len == len && memcmp(k->data, key, len) == 0) {
                len += (size_t)snprintf(key + len, sizeof key - len, "_%zu", i);
                break; /* "_i" never occurred before: i is new */
            }
        }
        if ((st = put_bytes(&out->u.map.keys[i], key, len, arena, err)) != AVK_OK)
            return st;
        if ((st = gen(avk_type_values(t), r, arena, &out->u.map.values[i], depth + 1, err)) !=
            AVK_OK)
            return st;
    }
    return AVK_OK;
}

static avk_status union_value(const avk_type *t, avkcli_rng *r, avk_arena *arena, avk_value *out,
                              unsigned depth, avk_error *err)
{
    size_t n = avk_type_branch_count(t), b = 0;
    if (n == 0)
        return fail(err, AVK_ERR_INVALID_ARGUMENT, type_label(t),
                    "an empty union has no values");
    if (depth >= AVKCLI_RANDOM_SOFT_DEPTH) {
        int best = 4;
        for (size_t i = 0; i < n; i++) {
            int w = branch_weight(avk_type_branch(t, i));
            if (w < best) {
                best = w;
                b = i;
            }
        }
    } else {
        b = (size_t)below(r, n);
    }
    avk_status st = avk_value_init(out, t, 0, arena, err);
    if (st == AVK_OK)
        st = avk_value_set_branch(out, (uint32_t)b, arena, err);
    if (st != AVK_OK)
        return st;
    return gen(avk_type_branch(t, b), r, arena, out->u.branch.value, depth + 1, err);
}

static avk_status gen(const avk_type *t, avkcli_rng *r, avk_arena *arena, avk_value *out,
                      unsigned depth, avk_error *err)
{
    if (depth >= AVKCLI_RANDOM_MAX_DEPTH)
        return fail(err, AVK_ERR_LIMIT, type_label(t),
                    "%s: a random value nests deeper than %d levels: the schema has a type that "
                    "always contains itself (a recursive field outside any union or collection)",
                    type_label(t), AVKCLI_RANDOM_MAX_DEPTH);
    avk_kind kind = avk_type_kind(t);
    if (kind == AVK_ARRAY)
        return array_value(t, r, arena, out, depth, err);
    if (kind == AVK_MAP)
        return map_value(t, r, arena, out, depth, err);
    if (kind == AVK_UNION)
        return union_value(t, r, arena, out, depth, err);

    avk_status st = avk_value_init(out, t, 0, arena, err);
    if (st != AVK_OK)
        return st;
    switch (kind) {
    case AVK_NULL:
        return AVK_OK;
    case AVK_BOOLEAN:
        out->u.boolean = (uint8_t)below(r, 2);
        return AVK_OK;
    case AVK_INT:
        out->u.i = int_value(t, r);
        return AVK_OK;
    case AVK_LONG:
        out->u.l = long_value(t, r);
        return AVK_OK;
    case AVK_FLOAT:
        out->u.f = (float)random_double(r);
        return AVK_OK;
    case AVK_DOUBLE:
        out->u.d = random_double(r);
        return AVK_OK;
    case AVK_STRING:
        return string_value(t, r, arena, &out->u.bytes, err);
    case AVK_BYTES:
        if (avk_type_logical(t) == AVK_LOGICAL_DECIMAL) {
            uint8_t *p;
            size_t len;
            st = decimal_unscaled(r, avk_type_decimal_precision(t), arena, &p, &len, err);
            out->u.bytes.data = p;
            out->u.bytes.len = st == AVK_OK ? len : 0;
            return st;
        } else {
            uint8_t buf[24];
            size_t len = (size_t)below(r, 25);
            for (size_t i = 0; i < len; i++)
                buf[i] = (uint8_t)avkcli_rng_next(r);
            return put_bytes(&out->u.bytes, buf, len, arena, err);
        }
    case AVK_FIXED: {
        size_t n = avk_type_fixed_size(t);
        uint8_t *p = alloc(arena, n, err, &st);
        if (p == NULL)
            return st;
        out->u.bytes.data = p;
        out->u.bytes.len = n;
        return fixed_fill(t, r, arena, p, err);
    }
    case AVK_ENUM: {
        size_t n = avk_type_symbol_count(t);
        out->u.index = n ? (uint32_t)below(r, n) : 0;
        return AVK_OK;
    }
    case AVK_RECORD:
        for (size_t i = 0; i < avk_type_field_count(t); i++) {
            st = gen(avk_field_type(avk_type_field(t, i)), r, arena, &out->u.fields[i], depth + 1,
                     err);
            if (st != AVK_OK)
                return st;
        }
        return AVK_OK;
    default:
        return fail(err, AVK_ERR_INVALID_ARGUMENT, type_label(t), "unknown type kind %d",
                    (int)kind);
    }
}

avk_status avkcli_random_value(const avk_type *t, avkcli_rng *rng, avk_arena *arena,
                               avk_value *out, avk_error *err)
{
    if (t == NULL || rng == NULL || arena == NULL || out == NULL)
        return fail(err, AVK_ERR_INVALID_ARGUMENT, "",
                    "avkcli_random_value needs a type, a generator, an arena and an output");
    return gen(t, rng, arena, out, 0, err);
}
