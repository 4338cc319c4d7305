/* Test-only conversion between cJSON trees and avk_value, in the conventions of the apache interop tables. */
#include "value_json.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "avkt.h"

/* Decimal magnitudes up to this many bytes (far beyond any test's). */
#define DEC_MAX 64

/* ---- small parsers ----------------------------------------------------------------------- */

/* Exactly n decimal digits at *s into *v; advances *s. */
static int digits(const char **s, int n, int64_t *v)
{
    int64_t x = 0;
    int i;
    for (i = 0; i < n; i++) {
        char c = (*s)[i];
        if (c < '0' || c > '9')
            return 0;
        x = x * 10 + (c - '0');
    }
    *s += n;
    *v = x;
    return 1;
}

/* An optional ".ddd" (1 to 9 digits) as nanoseconds. */
static int fraction(const char **s, int64_t *nanos)
{
    int64_t x = 0;
    int n = 0;
    *nanos = 0;
    if (**s != '.')
        return 1;
    (*s)++;
    while (**s >= '0' && **s <= '9') {
        if (++n > 9)
            return 0;
        x = x * 10 + (**s - '0');
        (*s)++;
    }
    if (n == 0)
        return 0;
    while (n++ < 9)
        x *= 10;
    *nanos = x;
    return 1;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
 * days_from_civil). */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d)
{
    int64_t era, yoe, doy, doe;
    y -= m <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = y - era * 400;
    doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
    int64_t era, doe, yoe, doy, mp;
    z += 719468;
    era = (z >= 0 ? z : z - 146096) / 146097;
    doe = z - era * 146097;
    yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

static int parse_ymd(const char **s, int64_t *days)
{
    int64_t y, m, d;
    if (!digits(s, 4, &y) || *(*s)++ != '-' || !digits(s, 2, &m) || *(*s)++ != '-' ||
        !digits(s, 2, &d))
        return 0;
    if (m < 1 || m > 12 || d < 1 || d > 31)
        return 0;
    *days = days_from_civil(y, m, d);
    return 1;
}

static int parse_hms(const char **s, int64_t *nanos)
{
    int64_t h, m, sec, frac;
    if (!digits(s, 2, &h) || *(*s)++ != ':' || !digits(s, 2, &m) || *(*s)++ != ':' ||
        !digits(s, 2, &sec) || !fraction(s, &frac))
        return 0;
    if (h > 23 || m > 59 || sec > 59)
        return 0;
    *nanos = ((h * 60 + m) * 60 + sec) * 1000000000 + frac;
    return 1;
}

int avkt_parse_date(const char *s, int64_t *days)
{
    return parse_ymd(&s, days) && *s == '\0';
}

int avkt_parse_time(const char *s, int64_t *nanos)
{
    return parse_hms(&s, nanos) && *s == '\0';
}

int avkt_parse_datetime(const char *s, int64_t *seconds, int32_t *nanos)
{
    int64_t days, tod, oh, om, offset = 0;
    if (!parse_ymd(&s, &days) || (*s != 'T' && *s != ' '))
        return 0;
    s++;
    if (!parse_hms(&s, &tod))
        return 0;
    if (*s == 'Z') {
        s++;
    } else if (*s == '+' || *s == '-') {
        int neg = *s++ == '-';
        if (!digits(&s, 2, &oh) || *s++ != ':' || !digits(&s, 2, &om))
            return 0;
        offset = (oh * 60 + om) * 60 * (neg ? -1 : 1);
    }
    if (*s != '\0')
        return 0;
    *seconds = days * 86400 + tod / 1000000000 - offset;
    *nanos = (int32_t)(tod % 1000000000);
    return 1;
}

/* ---- decimals ---------------------------------------------------------------------------- */

int avkt_decimal_encode(const char *text, int scale, size_t fixed_size, uint8_t *out, size_t cap,
                        size_t *len)
{
    uint8_t mag[DEC_MAX];
    const char *p = text;
    int neg = 0, frac = -1, any = 0;
    size_t bits = 0, width, i;
    memset(mag, 0, sizeof mag);
    if (*p == '-' || *p == '+')
        neg = *p++ == '-';
    for (;; p++) {
        int d, carry;
        if (*p == '.' && frac < 0) {
            frac = 0;
            continue;
        }
        if (*p == '\0' && any) {
            if (frac < 0)
                frac = 0;
            if (frac > scale)
                return 0;
            if (frac == scale)
                break;
            d = 0; /* pad the fraction to the scale */
            frac++;
            p--;
        } else if (*p >= '0' && *p <= '9') {
            d = *p - '0';
            any = 1;
            if (frac >= 0 && ++frac > scale)
                return 0;
        } else {
            return 0;
        }
        carry = d; /* mag = mag * 10 + d */
        for (i = DEC_MAX; i-- > 0;) {
            int x = mag[i] * 10 + carry;
            mag[i] = (uint8_t)x;
            carry = x >> 8;
        }
        if (carry)
            return 0;
    }
    for (i = 0; i < DEC_MAX && mag[i] == 0; i++)
        ;
    if (i < DEC_MAX) {
        uint8_t top = mag[i];
        bits = (DEC_MAX - i - 1) * 8;
        while (top) {
            bits++;
            top >>= 1;
        }
    }
    /* python3-avro's bytes form: bit length + 1 for the sign, in bytes. */
    width = fixed_size ? fixed_size : (bits + 1 + 7) / 8;
    if (width > cap || width > DEC_MAX || bits > width * 8)
        return 0;
    if (neg) {
        int carry = 1;
        for (i = DEC_MAX; i-- > 0;) {
            int x = (uint8_t)~mag[i] + carry;
            mag[i] = (uint8_t)x;
            carry = x >> 8;
        }
    }
    memcpy(out, mag + DEC_MAX - width, width);
    /* The sign must survive the cut (zero is never negative). */
    if (bits > 0 && ((out[0] & 0x80) != 0) != neg)
        return 0;
    *len = width;
    return 1;
}

int avkt_decimal_text(const uint8_t *b, size_t len, int scale, char *out, size_t cap)
{
    uint8_t mag[DEC_MAX];
    char rev[DEC_MAX * 3 + 8];
    size_t n = 0, i, pos = 0;
    int neg = len > 0 && (b[0] & 0x80);
    if (len > DEC_MAX || scale < 0)
        return 0;
    memset(mag, 0, sizeof mag);
    memcpy(mag + DEC_MAX - len, b, len);
    if (neg) {
        int carry = 1;
        for (i = 0; i < DEC_MAX - len; i++)
            mag[i] = 0xff;
        for (i = DEC_MAX; i-- > 0;) {
            int x = (uint8_t)~mag[i] + carry;
            mag[i] = (uint8_t)x;
            carry = x >> 8;
        }
    }
    for (;;) { /* digits, least significant first: mag /= 10 */
        int rem = 0, nonzero = 0;
        for (i = 0; i < DEC_MAX; i++) {
            int x = rem * 256 + mag[i];
            mag[i] = (uint8_t)(x / 10);
            rem = x % 10;
            nonzero |= mag[i];
        }
        rev[n++] = (char)('0' + rem);
        if (!nonzero)
            break;
    }
    while (n < (size_t)scale + 1)
        rev[n++] = '0';
    if (n + 3 > cap)
        return 0;
    if (neg)
        out[pos++] = '-';
    for (i = n; i-- > 0;) {
        out[pos++] = rev[i];
        if (scale > 0 && i == (size_t)scale)
            out[pos++] = '.';
    }
    out[pos] = '\0';
    return 1;
}

/* ---- JSON -> value ----------------------------------------------------------------------- */

typedef struct conv {
    avk_arena *arena;
    char *why;
    size_t why_len;
    char path[512];
    size_t path_len;
} conv;

static int failf(conv *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static size_t path_push(conv *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int failf(conv *c, const char *fmt, ...)
{
    va_list ap;
    int n;
    if (!c->why || c->why_len == 0)
        return 0;
    n = snprintf(c->why, c->why_len, "%s: ", c->path_len ? c->path : "$");
    if (n < 0 || (size_t)n >= c->why_len)
        return 0;
    va_start(ap, fmt);
    vsnprintf(c->why + n, c->why_len - (size_t)n, fmt, ap);
    va_end(ap);
    return 0;
}

static size_t path_push(conv *c, const char *fmt, ...)
{
    size_t old = c->path_len;
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(c->path + old, sizeof c->path - old, fmt, ap);
    va_end(ap);
    if (n > 0)
        c->path_len = old + (size_t)n < sizeof c->path ? old + (size_t)n : sizeof c->path - 1;
    return old;
}

static void path_pop(conv *c, size_t old)
{
    c->path_len = old;
    c->path[old] = '\0';
}

/* A zeroed arena block; a non-NULL pointer even for 0 bytes. */
static void *alloc0(conv *c, size_t n, size_t align)
{
    void *p = avk_arena_alloc(c->arena, n ? n : 1, align);
    if (p)
        memset(p, 0, n ? n : 1);
    return p;
}

/* The member of a one-member object {"<key>": ...}, else NULL: the marked
 * forms ($bytes_hex, $decimal, ...). */
static const cJSON *marked(const cJSON *j, const char *key)
{
    if (!cJSON_IsObject(j) || !j->child || j->child->next || !j->child->string)
        return NULL;
    return strcmp(j->child->string, key) == 0 ? j->child : NULL;
}

/* Any object whose first key starts with '$' is a marked form, never a
 * record or map. */
static int is_marked(const cJSON *j)
{
    return cJSON_IsObject(j) && j->child && j->child->string && j->child->string[0] == '$';
}

static int is_int_number(const cJSON *j, double lo, double hi)
{
    double d;
    if (!cJSON_IsNumber(j))
        return 0;
    d = j->valuedouble;
    return d == floor(d) && d >= lo && d <= hi;
}

static int parse_i64(const char *s, int64_t *out)
{
    char *end;
    long long v;
    errno = 0;
    v = strtoll(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0')
        return 0;
    *out = (int64_t)v;
    return 1;
}

static int mul_add(int64_t a, int64_t m, int64_t b, int64_t *out)
{
    int64_t t;
    if (__builtin_mul_overflow(a, m, &t) || __builtin_add_overflow(t, b, &t))
        return 0;
    *out = t;
    return 1;
}

/* An integer datum of a long or int type: plain, $long, and the logical
 * forms the type's logical type allows. */
static int json_integer(const avk_type *t, const cJSON *j, int64_t *out)
{
    const cJSON *m;
    avk_logical lg = avk_type_logical(t);
    if (is_int_number(j, -9223372036854775808.0, 9223372036854775807.0)) {
        if (j->valuedouble >= 9223372036854775808.0)
            return 0;
        *out = (int64_t)j->valuedouble;
        return 1;
    }
    if ((m = marked(j, "$long")) != NULL)
        return cJSON_IsString(m) && parse_i64(m->valuestring, out);
    if ((m = marked(j, "$date")) != NULL)
        return lg == AVK_LOGICAL_DATE && cJSON_IsString(m) && avkt_parse_date(m->valuestring, out);
    if ((m = marked(j, "$time")) != NULL) {
        int64_t ns;
        if (!cJSON_IsString(m) || !avkt_parse_time(m->valuestring, &ns))
            return 0;
        if (lg == AVK_LOGICAL_TIME_MILLIS)
            *out = ns / 1000000;
        else if (lg == AVK_LOGICAL_TIME_MICROS)
            *out = ns / 1000;
        else
            return 0;
        return 1;
    }
    if ((m = marked(j, "$datetime")) != NULL) {
        int64_t sec;
        int32_t ns;
        if (!cJSON_IsString(m) || !avkt_parse_datetime(m->valuestring, &sec, &ns))
            return 0;
        switch (lg) {
        case AVK_LOGICAL_TIMESTAMP_MILLIS:
        case AVK_LOGICAL_LOCAL_TIMESTAMP_MILLIS:
            return mul_add(sec, 1000, ns / 1000000, out);
        case AVK_LOGICAL_TIMESTAMP_MICROS:
        case AVK_LOGICAL_LOCAL_TIMESTAMP_MICROS:
            return mul_add(sec, 1000000, ns / 1000, out);
        case AVK_LOGICAL_TIMESTAMP_NANOS:
        case AVK_LOGICAL_LOCAL_TIMESTAMP_NANOS:
            return mul_add(sec, 1000000000, ns, out);
        default:
            return 0;
        }
    }
    return 0;
}

static int hex_nibbles_ok(const char *s, size_t want_bytes)
{
    size_t n = strlen(s), i;
    if (n % 2 || (want_bytes != (size_t)-1 && n / 2 != want_bytes))
        return 0;
    for (i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') ||
              (s[i] >= 'A' && s[i] <= 'F')))
            return 0;
    return 1;
}

/* A float datum: number, "NaN"/"Infinity"/"-Infinity", or exact bits. */
static int json_real(const cJSON *j, int is_float, double *d, uint64_t *bits, int *have_bits)
{
    const cJSON *m;
    *have_bits = 0;
    if (cJSON_IsNumber(j)) {
        *d = j->valuedouble;
        return 1;
    }
    if (cJSON_IsString(j)) {
        if (strcmp(j->valuestring, "NaN") == 0)
            *d = NAN;
        else if (strcmp(j->valuestring, "Infinity") == 0)
            *d = INFINITY;
        else if (strcmp(j->valuestring, "-Infinity") == 0)
            *d = -INFINITY;
        else
            return 0;
        return 1;
    }
    if ((m = marked(j, is_float ? "$float_bits" : "$double_bits")) != NULL) {
        uint8_t b[8];
        size_t n, i;
        if (!cJSON_IsString(m))
            return 0;
        n = avkt_hex_decode(m->valuestring, b, sizeof b);
        if (n != (is_float ? 4u : 8u))
            return 0;
        *bits = 0;
        for (i = 0; i < n; i++)
            *bits = *bits << 8 | b[i];
        *have_bits = 1;
        return 1;
    }
    return 0;
}

int avkt_json_validates(const avk_type *t, const cJSON *j)
{
    const cJSON *m;
    size_t i;
    avk_logical lg = avk_type_logical(t);
    switch (avk_type_kind(t)) {
    case AVK_NULL:
        return cJSON_IsNull(j);
    case AVK_BOOLEAN:
        return cJSON_IsBool(j);
    case AVK_INT: {
        int64_t v;
        return json_integer(t, j, &v) && v >= INT32_MIN && v <= INT32_MAX;
    }
    case AVK_LONG: {
        int64_t v;
        return json_integer(t, j, &v);
    }
    case AVK_FLOAT:
    case AVK_DOUBLE: {
        double d;
        uint64_t bits;
        int hb;
        return json_real(j, avk_type_kind(t) == AVK_FLOAT, &d, &bits, &hb);
    }
    case AVK_BYTES:
        if ((m = marked(j, "$bytes_hex")) != NULL)
            return cJSON_IsString(m) && hex_nibbles_ok(m->valuestring, (size_t)-1);
        if ((m = marked(j, "$decimal")) != NULL) {
            uint8_t b[DEC_MAX];
            size_t n;
            return lg == AVK_LOGICAL_DECIMAL && cJSON_IsString(m) &&
                   avkt_decimal_encode(m->valuestring, avk_type_decimal_scale(t), 0, b, sizeof b,
                                       &n);
        }
        return 0;
    case AVK_STRING:
        if ((m = marked(j, "$string_hex")) != NULL)
            return cJSON_IsString(m) && hex_nibbles_ok(m->valuestring, (size_t)-1);
        return cJSON_IsString(j);
    case AVK_FIXED:
        if ((m = marked(j, "$bytes_hex")) != NULL)
            return cJSON_IsString(m) && hex_nibbles_ok(m->valuestring, avk_type_fixed_size(t));
        if ((m = marked(j, "$decimal")) != NULL) {
            uint8_t b[DEC_MAX];
            size_t n;
            return lg == AVK_LOGICAL_DECIMAL && cJSON_IsString(m) &&
                   avkt_decimal_encode(m->valuestring, avk_type_decimal_scale(t),
                                       avk_type_fixed_size(t), b, sizeof b, &n);
        }
        return 0;
    case AVK_ENUM:
        return cJSON_IsString(j) && avk_type_symbol_index(t, j->valuestring) >= 0;
    case AVK_ARRAY:
        if (!cJSON_IsArray(j))
            return 0;
        for (m = j->child; m; m = m->next)
            if (!avkt_json_validates(avk_type_items(t), m))
                return 0;
        return 1;
    case AVK_MAP:
        if (!cJSON_IsObject(j) || is_marked(j))
            return 0;
        for (m = j->child; m; m = m->next)
            if (!avkt_json_validates(avk_type_values(t), m))
                return 0;
        return 1;
    case AVK_RECORD:
        if (!cJSON_IsObject(j) || is_marked(j))
            return 0;
        for (i = 0; i < avk_type_field_count(t); i++) {
            const avk_field *f = avk_type_field(t, i);
            const cJSON *fv = cJSON_GetObjectItemCaseSensitive(j, avk_field_name(f));
            cJSON null_item;
            if (!fv) {
                memset(&null_item, 0, sizeof null_item);
                null_item.type = cJSON_NULL;
                fv = &null_item;
            }
            if (!avkt_json_validates(avk_field_type(f), fv))
                return 0;
        }
        return 1;
    case AVK_UNION: {
        const cJSON *bi = cJSON_GetObjectItemCaseSensitive(j, "$branch");
        if (cJSON_IsObject(j) && bi) {
            const cJSON *bv = cJSON_GetObjectItemCaseSensitive(j, "$value");
            return is_int_number(bi, 0, (double)avk_type_branch_count(t) - 1) && bv &&
                   avkt_json_validates(avk_type_branch(t, (size_t)bi->valuedouble), bv);
        }
        for (i = 0; i < avk_type_branch_count(t); i++)
            if (avkt_json_validates(avk_type_branch(t, i), j))
                return 1;
        return 0;
    }
    }
    return 0;
}

static int bytes_from_hex(conv *c, const char *hex, avk_bytes *out)
{
    size_t n = strlen(hex) / 2;
    uint8_t *p = (uint8_t *)alloc0(c, n + 1, 1);
    if (!p)
        return failf(c, "arena allocation failed");
    if (avkt_hex_decode(hex, p, n) != n)
        return failf(c, "bad hex \"%s\"", hex);
    out->data = p;
    out->len = n;
    return 1;
}

static int from_json(conv *c, avk_value *v, const avk_type *t, const cJSON *j);

/* Typed array storage of n items of type it from the JSON items. */
static int typed_items(conv *c, void *items, const avk_type *it, const cJSON *j)
{
    size_t k = 0;
    const cJSON *m;
    for (m = j->child; m; m = m->next, k++) {
        avk_value tmp;
        size_t old = path_push(c, "[%zu]", k);
        if (!from_json(c, &tmp, it, m))
            return 0;
        path_pop(c, old);
        if (!items) /* null and fixed(0) items take no storage */
            continue;
        switch (avk_type_kind(it)) {
        case AVK_BOOLEAN: ((uint8_t *)items)[k] = (uint8_t)tmp.u.boolean; break;
        case AVK_INT: ((int32_t *)items)[k] = tmp.u.i; break;
        case AVK_LONG: ((int64_t *)items)[k] = tmp.u.l; break;
        case AVK_FLOAT: ((float *)items)[k] = tmp.u.f; break;
        case AVK_DOUBLE: ((double *)items)[k] = tmp.u.d; break;
        case AVK_FIXED:
            memcpy((uint8_t *)items + k * avk_type_fixed_size(it), tmp.u.bytes.data,
                   avk_type_fixed_size(it));
            break;
        default: break;
        }
    }
    return 1;
}

static int from_json(conv *c, avk_value *v, const avk_type *t, const cJSON *j)
{
    const cJSON *m;
    size_t i, n;
    memset(v, 0, sizeof *v);
    v->type = t;
    switch (avk_type_kind(t)) {
    case AVK_NULL:
        return cJSON_IsNull(j) ? 1 : failf(c, "expected null");
    case AVK_BOOLEAN:
        if (!cJSON_IsBool(j))
            return failf(c, "expected a boolean");
        v->u.boolean = cJSON_IsTrue(j) ? 1 : 0;
        return 1;
    case AVK_INT:
    case AVK_LONG: {
        int64_t x;
        if (!json_integer(t, j, &x))
            return failf(c, "expected an integer for %s", avk_kind_name(avk_type_kind(t)));
        if (avk_type_kind(t) == AVK_INT) {
            if (x < INT32_MIN || x > INT32_MAX)
                return failf(c, "int out of range");
            v->u.i = (int32_t)x;
        } else {
            v->u.l = x;
        }
        return 1;
    }
    case AVK_FLOAT:
    case AVK_DOUBLE: {
        double d;
        uint64_t bits;
        int hb;
        if (!json_real(j, avk_type_kind(t) == AVK_FLOAT, &d, &bits, &hb))
            return failf(c, "expected a number");
        if (avk_type_kind(t) == AVK_FLOAT) {
            if (hb) {
                uint32_t b32 = (uint32_t)bits;
                memcpy(&v->u.f, &b32, 4);
            } else {
                v->u.f = (float)d;
            }
        } else if (hb) {
            memcpy(&v->u.d, &bits, 8);
        } else {
            v->u.d = d;
        }
        return 1;
    }
    case AVK_BYTES:
    case AVK_FIXED: {
        size_t fixed = avk_type_kind(t) == AVK_FIXED ? avk_type_fixed_size(t) : 0;
        if ((m = marked(j, "$bytes_hex")) != NULL && cJSON_IsString(m)) {
            if (!bytes_from_hex(c, m->valuestring, &v->u.bytes))
                return 0;
            if (fixed && v->u.bytes.len != fixed)
                return failf(c, "fixed(%zu) given %zu bytes", fixed, v->u.bytes.len);
            return 1;
        }
        if ((m = marked(j, "$decimal")) != NULL && cJSON_IsString(m) &&
            avk_type_logical(t) == AVK_LOGICAL_DECIMAL) {
            uint8_t b[DEC_MAX], *p;
            if (!avkt_decimal_encode(m->valuestring, avk_type_decimal_scale(t), fixed, b, sizeof b,
                                     &n))
                return failf(c, "decimal \"%s\" does not fit scale %d / size %zu", m->valuestring,
                             avk_type_decimal_scale(t), fixed);
            if (!(p = (uint8_t *)alloc0(c, n, 1)))
                return failf(c, "arena allocation failed");
            memcpy(p, b, n);
            v->u.bytes.data = p;
            v->u.bytes.len = n;
            return 1;
        }
        return failf(c, "expected {\"$bytes_hex\": ...}%s",
                     avk_type_logical(t) == AVK_LOGICAL_DECIMAL ? " or {\"$decimal\": ...}" : "");
    }
    case AVK_STRING: {
        char *p;
        if ((m = marked(j, "$string_hex")) != NULL && cJSON_IsString(m))
            return bytes_from_hex(c, m->valuestring, &v->u.bytes);
        if (!cJSON_IsString(j))
            return failf(c, "expected a string");
        n = strlen(j->valuestring);
        if (!(p = (char *)alloc0(c, n + 1, 1)))
            return failf(c, "arena allocation failed");
        memcpy(p, j->valuestring, n);
        v->u.bytes.data = (const uint8_t *)p;
        v->u.bytes.len = n;
        return 1;
    }
    case AVK_ENUM: {
        long idx;
        if (!cJSON_IsString(j) || (idx = avk_type_symbol_index(t, j->valuestring)) < 0)
            return failf(c, "expected a symbol of %s", avk_type_fullname(t));
        v->u.index = (uint32_t)idx;
        return 1;
    }
    case AVK_ARRAY: {
        const avk_type *it = avk_type_items(t);
        size_t isz = 0;
        if (!cJSON_IsArray(j))
            return failf(c, "expected an array");
        n = (size_t)cJSON_GetArraySize(j);
        v->u.array.count = n;
        if (avk_array_is_typed(t, &isz)) {
            if (isz == 0 || n == 0)
                return typed_items(c, NULL, it, j);
            if (!(v->u.array.items = alloc0(c, n * isz, 8)))
                return failf(c, "arena allocation failed");
            return typed_items(c, v->u.array.items, it, j);
        }
        if (n == 0)
            return 1;
        if (!(v->u.array.items = alloc0(c, n * sizeof(avk_value), 16)))
            return failf(c, "arena allocation failed");
        for (i = 0, m = j->child; m; m = m->next, i++) {
            size_t old = path_push(c, "[%zu]", i);
            if (!from_json(c, (avk_value *)v->u.array.items + i, it, m))
                return 0;
            path_pop(c, old);
        }
        return 1;
    }
    case AVK_MAP:
        if (!cJSON_IsObject(j) || is_marked(j))
            return failf(c, "expected an object (map)");
        n = (size_t)cJSON_GetArraySize(j);
        v->u.map.count = n;
        if (n == 0)
            return 1;
        v->u.map.keys = (avk_bytes *)alloc0(c, n * sizeof(avk_bytes), 16);
        v->u.map.values = (avk_value *)alloc0(c, n * sizeof(avk_value), 16);
        if (!v->u.map.keys || !v->u.map.values)
            return failf(c, "arena allocation failed");
        for (i = 0, m = j->child; m; m = m->next, i++) {
            size_t kl = strlen(m->string), old;
            char *k = (char *)alloc0(c, kl + 1, 1);
            if (!k)
                return failf(c, "arena allocation failed");
            memcpy(k, m->string, kl);
            v->u.map.keys[i].data = (const uint8_t *)k;
            v->u.map.keys[i].len = kl;
            old = path_push(c, ".%s", m->string);
            if (!from_json(c, &v->u.map.values[i], avk_type_values(t), m))
                return 0;
            path_pop(c, old);
        }
        return 1;
    case AVK_RECORD:
        if (!cJSON_IsObject(j) || is_marked(j))
            return failf(c, "expected an object (record %s)", avk_type_fullname(t));
        n = avk_type_field_count(t);
        if (n && !(v->u.fields = (avk_value *)alloc0(c, n * sizeof(avk_value), 16)))
            return failf(c, "arena allocation failed");
        for (i = 0; i < n; i++) {
            const avk_field *f = avk_type_field(t, i);
            const cJSON *fv = cJSON_GetObjectItemCaseSensitive(j, avk_field_name(f));
            cJSON null_item;
            size_t old;
            if (!fv) {
                memset(&null_item, 0, sizeof null_item);
                null_item.type = cJSON_NULL;
                fv = &null_item;
            }
            old = path_push(c, ".%s", avk_field_name(f));
            if (!from_json(c, &v->u.fields[i], avk_field_type(f), fv))
                return 0;
            path_pop(c, old);
        }
        return 1;
    case AVK_UNION: {
        const cJSON *bi = cJSON_GetObjectItemCaseSensitive(j, "$branch");
        const cJSON *bv = j;
        size_t b = avk_type_branch_count(t), old;
        if (cJSON_IsObject(j) && bi) {
            if (!is_int_number(bi, 0, (double)avk_type_branch_count(t) - 1))
                return failf(c, "bad $branch");
            b = (size_t)bi->valuedouble;
            bv = cJSON_GetObjectItemCaseSensitive(j, "$value");
            if (!bv)
                return failf(c, "$branch without $value");
        } else {
            for (i = 0; i < avk_type_branch_count(t); i++)
                if (avkt_json_validates(avk_type_branch(t, i), j)) {
                    b = i;
                    break;
                }
            if (b == avk_type_branch_count(t))
                return failf(c, "no union branch accepts the datum");
        }
        if (!(v->u.branch.value = (avk_value *)alloc0(c, sizeof(avk_value), 16)))
            return failf(c, "arena allocation failed");
        v->u.branch.index = (uint32_t)b;
        old = path_push(c, "<%zu>", b);
        if (!from_json(c, v->u.branch.value, avk_type_branch(t, b), bv))
            return 0;
        path_pop(c, old);
        return 1;
    }
    }
    return failf(c, "unknown kind");
}

int avkt_value_from_json(avk_value *v, const avk_type *t, const cJSON *j, avk_arena *arena,
                         char *why, size_t why_len)
{
    conv c;
    memset(&c, 0, sizeof c);
    c.arena = arena;
    c.why = why;
    c.why_len = why_len;
    if (why && why_len)
        why[0] = '\0';
    return from_json(&c, v, t, j);
}

int avkt_value_from_text(avk_value *v, const avk_type *t, const char *text, avk_arena *arena,
                         char *why, size_t why_len)
{
    cJSON *j = cJSON_Parse(text);
    int ok;
    if (!j) {
        if (why && why_len)
            snprintf(why, why_len, "not JSON: %.200s", text);
        return 0;
    }
    ok = avkt_value_from_json(v, t, j, arena, why, why_len);
    cJSON_Delete(j);
    return ok;
}

/* ---- value -> JSON ----------------------------------------------------------------------- */

static cJSON *marked_string(const char *key, const char *s)
{
    cJSON *o = cJSON_CreateObject();
    if (o && !cJSON_AddStringToObject(o, key, s)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static cJSON *hex_json(const char *key, const uint8_t *p, size_t n)
{
    char *s = (char *)malloc(n * 2 + 1);
    cJSON *o;
    size_t i;
    if (!s)
        return NULL;
    for (i = 0; i < n; i++)
        snprintf(s + 2 * i, 3, "%02x", p[i]);
    s[2 * n] = '\0';
    o = marked_string(key, s);
    free(s);
    return o;
}

static cJSON *integer_json(int64_t x)
{
    char b[32];
    if (x >= -((int64_t)1 << 53) && x <= ((int64_t)1 << 53))
        return cJSON_CreateNumber((double)x);
    snprintf(b, sizeof b, "%" PRId64, x);
    return marked_string("$long", b);
}

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* Python's isoformat: fraction digits only when nonzero (6, or 9 for
 * nanoseconds that need them). */
static void format_fraction(char *out, size_t cap, int64_t nanos)
{
    if (nanos == 0)
        out[0] = '\0';
    else if (nanos % 1000 == 0)
        snprintf(out, cap, ".%06" PRId64, nanos / 1000);
    else
        snprintf(out, cap, ".%09" PRId64, nanos);
}

static cJSON *logical_json(const avk_type *t, int64_t x)
{
    char b[128], frac[32];
    int64_t unit, sec, sub, days, y;
    int mo, d;
    switch (avk_type_logical(t)) {
    case AVK_LOGICAL_DATE:
        civil_from_days(x, &y, &mo, &d);
        snprintf(b, sizeof b, "%04" PRId64 "-%02d-%02d", y, mo, d);
        return marked_string("$date", b);
    case AVK_LOGICAL_TIME_MILLIS:
    case AVK_LOGICAL_TIME_MICROS:
        unit = avk_type_logical(t) == AVK_LOGICAL_TIME_MILLIS ? 1000 : 1000000;
        if (x < 0 || x >= 86400 * unit)
            return integer_json(x);
        sec = x / unit;
        format_fraction(frac, sizeof frac, (x % unit) * (1000000000 / unit));
        snprintf(b, sizeof b, "%02d:%02d:%02d%s", (int)(sec / 3600), (int)(sec / 60 % 60),
                 (int)(sec % 60), frac);
        return marked_string("$time", b);
    case AVK_LOGICAL_TIMESTAMP_MILLIS:
    case AVK_LOGICAL_LOCAL_TIMESTAMP_MILLIS: unit = 1000; break;
    case AVK_LOGICAL_TIMESTAMP_MICROS:
    case AVK_LOGICAL_LOCAL_TIMESTAMP_MICROS: unit = 1000000; break;
    case AVK_LOGICAL_TIMESTAMP_NANOS:
    case AVK_LOGICAL_LOCAL_TIMESTAMP_NANOS: unit = 1000000000; break;
    default: return integer_json(x);
    }
    sec = x / unit; /* floor division without overflow at INT64_MIN */
    sub = x % unit;
    if (sub < 0) {
        sub += unit;
        sec -= 1;
    }
    days = floor_div(sec, 86400);
    sec -= days * 86400;
    civil_from_days(days, &y, &mo, &d);
    format_fraction(frac, sizeof frac, sub * (1000000000 / unit));
    snprintf(b, sizeof b, "%04" PRId64 "-%02d-%02dT%02d:%02d:%02d%s%s", y, mo, d, (int)(sec / 3600),
             (int)(sec / 60 % 60), (int)(sec % 60), frac,
             avk_type_logical(t) >= AVK_LOGICAL_LOCAL_TIMESTAMP_MILLIS &&
                     avk_type_logical(t) <= AVK_LOGICAL_LOCAL_TIMESTAMP_NANOS
                 ? ""
                 : "+00:00");
    return marked_string("$datetime", b);
}

static cJSON *real_json(double d, const void *raw, size_t raw_len)
{
    if (isfinite(d) && !(d == 0 && signbit(d)))
        return cJSON_CreateNumber(d);
    {
        uint8_t be[8];
        uint64_t bits = 0;
        size_t i;
        memcpy(&bits, raw, raw_len); /* little-endian hosts only, as the library */
        for (i = 0; i < raw_len; i++)
            be[i] = (uint8_t)(bits >> (8 * (raw_len - 1 - i)));
        return hex_json(raw_len == 4 ? "$float_bits" : "$double_bits", be, raw_len);
    }
}

static cJSON *to_json(const avk_value *v, const avk_type *t, int depth);

/* One typed-array item as a value, for rendering. */
static cJSON *typed_item_json(const void *items, size_t k, const avk_type *it, int depth)
{
    avk_value tmp;
    memset(&tmp, 0, sizeof tmp);
    tmp.type = it;
    switch (avk_type_kind(it)) {
    case AVK_NULL: break;
    case AVK_BOOLEAN: tmp.u.boolean = ((const uint8_t *)items)[k]; break;
    case AVK_INT: tmp.u.i = ((const int32_t *)items)[k]; break;
    case AVK_LONG: tmp.u.l = ((const int64_t *)items)[k]; break;
    case AVK_FLOAT: tmp.u.f = ((const float *)items)[k]; break;
    case AVK_DOUBLE: tmp.u.d = ((const double *)items)[k]; break;
    case AVK_FIXED:
        tmp.u.bytes.data =
            avk_type_fixed_size(it) ? (const uint8_t *)items + k * avk_type_fixed_size(it) : NULL;
        tmp.u.bytes.len = avk_type_fixed_size(it);
        break;
    default: return NULL;
    }
    return to_json(&tmp, it, depth);
}

static cJSON *to_json(const avk_value *v, const avk_type *t, int depth)
{
    cJSON *o = NULL;
    size_t i;
    if (!v || !v->type || depth > 2000)
        return NULL;
    /* The value's type must be t's kind (the decoder sets the schema's own
     * type pointers; a hand-built value may use an equal type). */
    if (t && avk_type_kind(v->type) != avk_type_kind(t))
        return NULL;
    t = v->type;
    switch (avk_type_kind(t)) {
    case AVK_NULL:
        return cJSON_CreateNull();
    case AVK_BOOLEAN:
        return v->u.boolean == 0 || v->u.boolean == 1 ? cJSON_CreateBool(v->u.boolean) : NULL;
    case AVK_INT:
        return avk_type_logical(t) != AVK_LOGICAL_NONE ? logical_json(t, v->u.i)
                                                       : integer_json(v->u.i);
    case AVK_LONG:
        return avk_type_logical(t) != AVK_LOGICAL_NONE ? logical_json(t, v->u.l)
                                                       : integer_json(v->u.l);
    case AVK_FLOAT:
        return real_json(v->u.f, &v->u.f, 4);
    case AVK_DOUBLE:
        return real_json(v->u.d, &v->u.d, 8);
    case AVK_FIXED:
        if (v->u.bytes.len != avk_type_fixed_size(t))
            return NULL;
        /* fall through */
    case AVK_BYTES:
        if (!v->u.bytes.data && v->u.bytes.len)
            return NULL;
        if (avk_type_logical(t) == AVK_LOGICAL_DECIMAL && v->u.bytes.len <= DEC_MAX) {
            char b[DEC_MAX * 3 + 8];
            if (avkt_decimal_text(v->u.bytes.data, v->u.bytes.len, avk_type_decimal_scale(t), b,
                                  sizeof b))
                return marked_string("$decimal", b);
        }
        return hex_json("$bytes_hex", v->u.bytes.data, v->u.bytes.len);
    case AVK_STRING: {
        char *s;
        if (!v->u.bytes.data && v->u.bytes.len)
            return NULL;
        if (v->u.bytes.len && memchr(v->u.bytes.data, 0, v->u.bytes.len))
            return hex_json("$string_hex", v->u.bytes.data, v->u.bytes.len);
        if (!(s = (char *)malloc(v->u.bytes.len + 1)))
            return NULL;
        if (v->u.bytes.len)
            memcpy(s, v->u.bytes.data, v->u.bytes.len);
        s[v->u.bytes.len] = '\0';
        o = cJSON_CreateString(s);
        free(s);
        return o;
    }
    case AVK_ENUM:
        if (v->u.index >= avk_type_symbol_count(t))
            return NULL;
        return cJSON_CreateString(avk_type_symbol(t, v->u.index));
    case AVK_ARRAY: {
        const avk_type *it = avk_type_items(t);
        size_t isz = 0;
        int typed = avk_array_is_typed(t, &isz);
        if (v->u.array.count && !v->u.array.items && !(typed && isz == 0))
            return NULL;
        if (!(o = cJSON_CreateArray()))
            return NULL;
        for (i = 0; i < v->u.array.count; i++) {
            cJSON *item = typed ? typed_item_json(v->u.array.items, i, it, depth + 1)
                                : to_json((const avk_value *)v->u.array.items + i, it, depth + 1);
            if (!item) {
                cJSON_Delete(o);
                return NULL;
            }
            cJSON_AddItemToArray(o, item);
        }
        return o;
    }
    case AVK_MAP:
        if (v->u.map.count && (!v->u.map.keys || !v->u.map.values))
            return NULL;
        if (!(o = cJSON_CreateObject()))
            return NULL;
        for (i = 0; i < v->u.map.count; i++) {
            cJSON *item = to_json(&v->u.map.values[i], avk_type_values(t), depth + 1);
            char *k = (char *)malloc(v->u.map.keys[i].len + 1);
            if (!item || !k || (!v->u.map.keys[i].data && v->u.map.keys[i].len)) {
                cJSON_Delete(item);
                cJSON_Delete(o);
                free(k);
                return NULL;
            }
            if (v->u.map.keys[i].len)
                memcpy(k, v->u.map.keys[i].data, v->u.map.keys[i].len);
            k[v->u.map.keys[i].len] = '\0';
            cJSON_AddItemToObject(o, k, item);
            free(k);
        }
        return o;
    case AVK_RECORD:
        if (avk_type_field_count(t) && !v->u.fields)
            return NULL;
        if (!(o = cJSON_CreateObject()))
            return NULL;
        for (i = 0; i < avk_type_field_count(t); i++) {
            const avk_field *f = avk_type_field(t, i);
            cJSON *item = to_json(&v->u.fields[i], avk_field_type(f), depth + 1);
            if (!item) {
                cJSON_Delete(o);
                return NULL;
            }
            cJSON_AddItemToObject(o, avk_field_name(f), item);
        }
        return o;
    case AVK_UNION: {
        cJSON *item;
        if (v->u.branch.index >= avk_type_branch_count(t) || !v->u.branch.value)
            return NULL;
        item = to_json(v->u.branch.value, avk_type_branch(t, v->u.branch.index), depth + 1);
        if (!item || !(o = cJSON_CreateObject())) {
            cJSON_Delete(item);
            return NULL;
        }
        /* Explicit, so two values differing only in the branch differ. */
        cJSON_AddNumberToObject(o, "$branch", v->u.branch.index);
        cJSON_AddItemToObject(o, "$value", item);
        return o;
    }
    }
    return NULL;
}

cJSON *avkt_value_to_json(const avk_value *v)
{
    return to_json(v, NULL, 0);
}

char *avkt_value_to_text(const avk_value *v)
{
    cJSON *j = avkt_value_to_json(v);
    char *s;
    if (!j) {
        s = (char *)malloc(sizeof "<malformed value>");
        if (s)
            memcpy(s, "<malformed value>", sizeof "<malformed value>");
        return s;
    }
    s = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    return s;
}
