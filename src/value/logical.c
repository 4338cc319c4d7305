/* Logical types: decimal text and fixed sizes, UUID text, calendar dates, times, timestamps, durations. */
#include <stdint.h>
#include <string.h>

#include "avrokit/logical.h"

/* ---- decimal ------------------------------------------------------------ */

#define LIMB_BASE 1000000000u /* 9 decimal digits per limb */
/* Limbs for AVK_DECIMAL_MAX_BYTES bytes: 8 * 2048 * log10(2) = 4932.3
 * digits, so 4933 digits, 549 limbs; a few spare. */
#define MAX_LIMBS 552

/* The first significant byte: leading bytes that only extend the sign
 * (0x00 for >= 0, 0xff for < 0) add nothing to the value. */
static size_t skip_sign_bytes(const uint8_t *b, size_t len, uint8_t fill)
{
    size_t i = 0;
    while (i < len && b[i] == fill)
        i++;
    return i;
}

/* Decimal digits of a limb without leading zeros (0 for 0). */
static unsigned limb_digits(uint32_t x)
{
    unsigned n = 0;
    while (x) {
        n++;
        x /= 10;
    }
    return n;
}

avk_status avk_decimal_to_string(const uint8_t *unscaled, size_t len, int scale, char *buf,
                                 size_t cap, size_t *out_len)
{
    uint32_t limbs[MAX_LIMBS];
    size_t nlimbs = 0, start, i, ndigits, need, int_digits, pos;
    int neg;
    uint8_t flip;

    if ((!unscaled && len) || !buf || scale < 0)
        return AVK_ERR_INVALID_ARGUMENT;
    neg = len > 0 && (unscaled[0] & 0x80);
    /* A negative value's magnitude is ~x + 1: read the bytes inverted
     * (the leading 0xff bytes then read as 0 and are skipped) and add one
     * at the end, so the input needs no modified copy. */
    flip = neg ? 0xff : 0x00;
    start = skip_sign_bytes(unscaled, len, flip);
    if (len - start > AVK_DECIMAL_MAX_BYTES)
        return AVK_ERR_LIMIT;

    /* Schoolbook base conversion: value = value * 256^k + next k bytes,
     * three bytes at a time so a limb times 2^24 plus carry fits 64 bits. */
    for (i = start; i < len;) {
        uint64_t mult = 1, add = 0, carry;
        size_t k, j;
        for (k = 0; k < 3 && i < len; k++, i++) {
            mult <<= 8;
            add = (add << 8) | (uint8_t)(unscaled[i] ^ flip);
        }
        carry = add;
        for (j = 0; j < nlimbs; j++) {
            uint64_t t = (uint64_t)limbs[j] * mult + carry;
            limbs[j] = (uint32_t)(t % LIMB_BASE);
            carry = t / LIMB_BASE;
        }
        while (carry) {
            limbs[nlimbs++] = (uint32_t)(carry % LIMB_BASE);
            carry /= LIMB_BASE;
        }
    }
    if (neg) {
        uint64_t carry = 1;
        for (i = 0; i < nlimbs && carry; i++) {
            uint64_t t = (uint64_t)limbs[i] + carry;
            limbs[i] = (uint32_t)(t % LIMB_BASE);
            carry = t / LIMB_BASE;
        }
        if (carry)
            limbs[nlimbs++] = (uint32_t)carry;
    }

    ndigits = nlimbs ? (nlimbs - 1) * 9 + limb_digits(limbs[nlimbs - 1]) : 0;
    /* Integer digits: what lies left of the point, at least "0". */
    int_digits = ndigits > (size_t)scale ? ndigits - (size_t)scale : 1;
    need = (size_t)neg + int_digits + (scale > 0 ? 1 + (size_t)scale : 0);
    if (out_len)
        *out_len = need;
    if (need >= cap)
        return AVK_ERR_LIMIT;

    /* Digits right to left from the least significant limb; leading zeros
     * (of the "0.000" kind) fill what is left. */
    pos = need;
    buf[pos] = '\0';
    {
        size_t written = 0, point_at = (size_t)scale; /* digits right of the point */
        size_t total = int_digits + (size_t)scale;     /* digits to write */
        size_t li = 0;
        uint32_t cur = 0;
        unsigned left_in_limb = 0;
        while (written < total) {
            char c;
            if (left_in_limb == 0 && li < nlimbs) {
                cur = limbs[li++];
                left_in_limb = 9;
            }
            if (left_in_limb) {
                c = (char)('0' + cur % 10);
                cur /= 10;
                left_in_limb--;
            } else {
                c = '0';
            }
            if (scale > 0 && written == point_at)
                buf[--pos] = '.';
            buf[--pos] = c;
            written++;
        }
    }
    if (neg)
        buf[--pos] = '-';
    return AVK_OK;
}

/* out[cap - *used .. cap) holds a big-endian magnitude; multiplies it by
 * mult and adds add. 0 when it no longer fits in cap bytes. */
static int mul_add(uint8_t *out, size_t cap, size_t *used, uint32_t mult, uint32_t add)
{
    uint64_t carry = add;
    size_t i;
    for (i = 0; i < *used; i++) {
        uint64_t t = (uint64_t)out[cap - 1 - i] * mult + carry;
        out[cap - 1 - i] = (uint8_t)t;
        carry = t >> 8;
    }
    while (carry) {
        if (*used == cap)
            return 0;
        out[cap - 1 - *used] = (uint8_t)carry;
        (*used)++;
        carry >>= 8;
    }
    return 1;
}

static const uint32_t pow10_table[10] = {1,      10,      100,      1000,      10000,
                                         100000, 1000000, 10000000, 100000000, 1000000000};

avk_status avk_decimal_from_string(const char *text, size_t len, int scale, uint8_t *out,
                                   size_t cap, size_t *out_len)
{
    size_t i = 0, used = 0, digits = 0, frac = 0, pad;
    int neg = 0, seen_point = 0;
    uint32_t chunk = 0;
    unsigned chunk_len = 0;

    if (!text || !out || !out_len || scale < 0)
        return AVK_ERR_INVALID_ARGUMENT;
    if (i < len && (text[i] == '+' || text[i] == '-'))
        neg = text[i++] == '-';
    /* Syntax first, so bad text is INVALID_ARGUMENT whatever cap is. */
    {
        size_t j;
        for (j = i; j < len; j++) {
            if (text[j] >= '0' && text[j] <= '9') {
                digits++;
                frac += seen_point;
            } else if (text[j] == '.' && !seen_point) {
                seen_point = 1;
            } else {
                return AVK_ERR_INVALID_ARGUMENT;
            }
        }
    }
    if (digits == 0 || frac > (size_t)scale)
        return AVK_ERR_INVALID_ARGUMENT;
    if (digits > 4 * (size_t)AVK_DECIMAL_MAX_BYTES)
        return AVK_ERR_LIMIT;
    if (cap == 0)
        return AVK_ERR_LIMIT;

    /* Built right-aligned in out, nine digits per multiply. */
    for (; i < len; i++) {
        if (text[i] == '.')
            continue;
        chunk = chunk * 10 + (uint32_t)(text[i] - '0');
        if (++chunk_len == 9) {
            if (!mul_add(out, cap, &used, LIMB_BASE, chunk))
                return AVK_ERR_LIMIT;
            chunk = 0;
            chunk_len = 0;
        }
    }
    if (chunk_len && !mul_add(out, cap, &used, pow10_table[chunk_len], chunk))
        return AVK_ERR_LIMIT;
    /* Zeros for the fractional digits the text left out. Skipped for 0,
     * which no scale can make overflow. */
    for (pad = (size_t)scale - frac; pad > 0 && used > 0;) {
        unsigned k = pad >= 9 ? 9 : (unsigned)pad;
        if (!mul_add(out, cap, &used, pow10_table[k], 0))
            return AVK_ERR_LIMIT;
        pad -= k;
    }
    /* mul_add keeps the top byte non-zero: used is the magnitude's length. */

    if (used == 0) {
        out[0] = 0; /* zero, "-0" included */
        *out_len = 1;
        return AVK_OK;
    }
    if (neg) {
        /* Two's complement in place: invert and add one. */
        size_t k;
        unsigned carry = 1;
        for (k = 0; k < used; k++) {
            unsigned t = (uint8_t)~out[cap - 1 - k] + carry;
            out[cap - 1 - k] = (uint8_t)t;
            carry = t >> 8;
        }
        /* A magnitude above 2^(8*used-1) needs a 0xff sign byte; exactly
         * 2^(8*used-1) (0x80 00 ...) does not. */
        if (!(out[cap - used] & 0x80)) {
            if (used == cap)
                return AVK_ERR_LIMIT;
            out[cap - 1 - used] = 0xff;
            used++;
        }
        /* No redundant 0xff can lead: the magnitude's top byte is not 0,
         * so its inverse is not 0xff unless the +1 carried into it, which
         * happens only for 0x01 00.. (-> 0xff 00.., not redundant). */
    } else if (out[cap - used] & 0x80) {
        if (used == cap)
            return AVK_ERR_LIMIT;
        out[cap - 1 - used] = 0x00;
        used++;
    }
    memmove(out, out + (cap - used), used);
    *out_len = used;
    return AVK_OK;
}

avk_status avk_decimal_to_fixed(const uint8_t *unscaled, size_t len, uint8_t *out, size_t n)
{
    uint8_t fill;
    size_t start;
    if ((!unscaled && len) || (!out && n))
        return AVK_ERR_INVALID_ARGUMENT;
    fill = (len > 0 && (unscaled[0] & 0x80)) ? 0xff : 0x00;
    /* Keep the bytes from the first that is not a sign byte, plus one sign
     * byte when that byte's top bit would give the wrong sign, or when
     * there is no such byte and the value is -1 (0 needs no byte at all). */
    start = skip_sign_bytes(unscaled, len, fill);
    if (start > 0 && (start == len ? fill == 0xff : ((unscaled[start] ^ fill) & 0x80) != 0))
        start--;
    if (len - start > n)
        return AVK_ERR_LIMIT;
    memset(out, fill, n - (len - start));
    if (len - start)
        memcpy(out + (n - (len - start)), unscaled + start, len - start);
    return AVK_OK;
}

/* ---- uuid ----------------------------------------------------------------- */

/* Where the hyphens of the canonical form go. */
static int uuid_hyphen_at(size_t i)
{
    return i == 8 || i == 13 || i == 18 || i == 23;
}

avk_status avk_uuid_format(const uint8_t bytes[16], char out[AVK_UUID_STRING_SIZE])
{
    static const char hex[] = "0123456789abcdef";
    size_t i, b = 0;
    if (!bytes || !out)
        return AVK_ERR_INVALID_ARGUMENT;
    for (i = 0; i < 36; i++) {
        if (uuid_hyphen_at(i)) {
            out[i] = '-';
            continue;
        }
        out[i] = hex[bytes[b] >> 4];
        out[++i] = hex[bytes[b] & 15];
        b++;
    }
    out[36] = '\0';
    return AVK_OK;
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

avk_status avk_uuid_parse(const char *text, size_t len, uint8_t out[16])
{
    uint8_t tmp[16];
    size_t i, b = 0;
    if (!text || !out || len != 36)
        return AVK_ERR_INVALID_ARGUMENT;
    for (i = 0; i < 36; i++) {
        int hi, lo;
        if (uuid_hyphen_at(i)) {
            if (text[i] != '-')
                return AVK_ERR_INVALID_ARGUMENT;
            continue;
        }
        hi = hex_value(text[i]);
        lo = hex_value(text[i + 1]);
        if (hi < 0 || lo < 0)
            return AVK_ERR_INVALID_ARGUMENT;
        tmp[b++] = (uint8_t)(hi << 4 | lo);
        i++;
    }
    memcpy(out, tmp, 16);
    return AVK_OK;
}

/* ---- calendar ------------------------------------------------------------- */

/* Floor division and modulo (C's / and % truncate toward zero). */
static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static int64_t floor_mod(int64_t a, int64_t b)
{
    int64_t r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

/* The Gregorian calendar repeats every 400 years (146097 days). Counting
 * years from March puts the leap day last, so the day of the year maps to
 * a month by a linear formula: months from March have lengths 31 30 31 30
 * 31 31 30 31 30 31 31 28/29, and (153 * m + 2) / 5 is the day of the
 * year on which March-based month m starts. 719468 is the number of days
 * from 0000-03-01 to 1970-01-01. */
#define DAYS_PER_ERA 146097
#define EPOCH_SHIFT 719468

static void civil_from_days(int64_t days, int64_t *year, unsigned *month, unsigned *day)
{
    int64_t z = days + EPOCH_SHIFT;
    int64_t era = floor_div(z, DAYS_PER_ERA);
    int64_t doe = z - era * DAYS_PER_ERA;                                   /* 0..146096 */
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;    /* 0..399 */
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);                  /* 0..365 */
    int64_t mp = (5 * doy + 2) / 153;                                       /* 0..11 */
    *day = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
    *month = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
    *year = yoe + era * 400 + (*month <= 2);
}

static int64_t days_from_civil(int64_t year, unsigned month, unsigned day)
{
    int64_t y = year - (month <= 2);
    int64_t era = floor_div(y, 400);
    int64_t yoe = y - era * 400;
    int64_t mp = month > 2 ? month - 3 : month + 9;
    int64_t doy = (153 * mp + 2) / 5 + day - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * DAYS_PER_ERA + doe - EPOCH_SHIFT;
}

static int is_leap(int64_t y)
{
    return floor_mod(y, 4) == 0 && (floor_mod(y, 100) != 0 || floor_mod(y, 400) == 0);
}

static unsigned month_days(int64_t year, unsigned month)
{
    static const unsigned char len[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return month == 2 && is_leap(year) ? 29 : len[month - 1];
}

avk_status avk_date_to_civil(int32_t days, int *year, unsigned *month, unsigned *day)
{
    int64_t y;
    if (!year || !month || !day)
        return AVK_ERR_INVALID_ARGUMENT;
    civil_from_days(days, &y, month, day);
    *year = (int)y; /* within +-5.9 million for int32 days */
    return AVK_OK;
}

avk_status avk_date_from_civil(int year, unsigned month, unsigned day, int32_t *days)
{
    int64_t d;
    if (!days || month < 1 || month > 12 || day < 1 || day > month_days(year, month))
        return AVK_ERR_INVALID_ARGUMENT;
    d = days_from_civil(year, month, day);
    if (d < INT32_MIN || d > INT32_MAX)
        return AVK_ERR_LIMIT;
    *days = (int32_t)d;
    return AVK_OK;
}

/* A small text builder: writes stop at cap - 1 and remember overflow. */
typedef struct text_out {
    char *buf;
    size_t cap, len;
} text_out;

static void out_char(text_out *o, char c)
{
    if (o->len + 1 < o->cap)
        o->buf[o->len] = c;
    o->len++;
}

/* x as at least width digits. */
static void out_uint(text_out *o, uint64_t x, unsigned width)
{
    char tmp[20];
    unsigned n = 0;
    do {
        tmp[n++] = (char)('0' + x % 10);
        x /= 10;
    } while (x);
    while (width > n) {
        out_char(o, '0');
        width--;
    }
    while (n)
        out_char(o, tmp[--n]);
}

/* ISO 8601 years: 4 digits for 0-9999, else a sign and at least 4 digits. */
static void out_date(text_out *o, int64_t days)
{
    int64_t y;
    unsigned m, d;
    civil_from_days(days, &y, &m, &d);
    if (y < 0) {
        out_char(o, '-');
        out_uint(o, (uint64_t)-y, 4);
    } else {
        if (y > 9999)
            out_char(o, '+');
        out_uint(o, (uint64_t)y, 4);
    }
    out_char(o, '-');
    out_uint(o, m, 2);
    out_char(o, '-');
    out_uint(o, d, 2);
}

/* "HH:MM:SS" then '.' and digits digits of fraction (none when digits 0). */
static void out_time(text_out *o, uint32_t seconds, uint32_t fraction, unsigned digits)
{
    out_uint(o, seconds / 3600, 2);
    out_char(o, ':');
    out_uint(o, seconds / 60 % 60, 2);
    out_char(o, ':');
    out_uint(o, seconds % 60, 2);
    if (digits) {
        out_char(o, '.');
        out_uint(o, fraction, digits);
    }
}

/* NUL-terminates, or reports that cap was too small. */
static avk_status out_finish(text_out *o)
{
    if (o->len + 1 > o->cap)
        return AVK_ERR_LIMIT;
    o->buf[o->len] = '\0';
    return AVK_OK;
}

avk_status avk_date_format(int32_t days, char *buf, size_t cap)
{
    text_out o = {buf, cap, 0};
    if (!buf)
        return AVK_ERR_INVALID_ARGUMENT;
    out_date(&o, days);
    return out_finish(&o);
}

avk_status avk_time_format(int64_t value, avk_logical unit, char *buf, size_t cap)
{
    text_out o = {buf, cap, 0};
    int64_t per_second;
    unsigned digits;
    if (!buf)
        return AVK_ERR_INVALID_ARGUMENT;
    if (unit == AVK_LOGICAL_TIME_MILLIS) {
        per_second = 1000;
        digits = 3;
    } else if (unit == AVK_LOGICAL_TIME_MICROS) {
        per_second = 1000000;
        digits = 6;
    } else {
        return AVK_ERR_INVALID_ARGUMENT;
    }
    if (value < 0 || value >= 86400 * per_second)
        return AVK_ERR_INVALID_ARGUMENT;
    out_time(&o, (uint32_t)(value / per_second), (uint32_t)(value % per_second), digits);
    return out_finish(&o);
}

/* Units per second and fractional digits of a timestamp type; 0 when unit
 * is not one. *local says whether it is a local timestamp. */
static int64_t timestamp_unit(avk_logical unit, unsigned *digits, int *local)
{
    *local = unit == AVK_LOGICAL_LOCAL_TIMESTAMP_MILLIS ||
             unit == AVK_LOGICAL_LOCAL_TIMESTAMP_MICROS || unit == AVK_LOGICAL_LOCAL_TIMESTAMP_NANOS;
    switch (unit) {
    case AVK_LOGICAL_TIMESTAMP_MILLIS:
    case AVK_LOGICAL_LOCAL_TIMESTAMP_MILLIS: *digits = 3; return 1000;
    case AVK_LOGICAL_TIMESTAMP_MICROS:
    case AVK_LOGICAL_LOCAL_TIMESTAMP_MICROS: *digits = 6; return 1000000;
    case AVK_LOGICAL_TIMESTAMP_NANOS:
    case AVK_LOGICAL_LOCAL_TIMESTAMP_NANOS: *digits = 9; return 1000000000;
    default: *digits = 0; return 0;
    }
}

avk_status avk_timestamp_split(int64_t value, avk_logical unit, int64_t *days, uint32_t *seconds,
                               uint32_t *fraction)
{
    unsigned digits;
    int local;
    int64_t per_second = timestamp_unit(unit, &digits, &local);
    if (!per_second || !days)
        return AVK_ERR_INVALID_ARGUMENT;
    /* Floor division, so the fraction and the time of day are never
     * negative; remainders taken directly, since quotient * divisor
     * overflows for values near INT64_MIN. */
    if (fraction)
        *fraction = (uint32_t)floor_mod(value, per_second);
    value = floor_div(value, per_second);
    *days = floor_div(value, 86400);
    if (seconds)
        *seconds = (uint32_t)floor_mod(value, 86400);
    return AVK_OK;
}

avk_status avk_timestamp_join(int64_t days, uint32_t seconds, uint32_t fraction, avk_logical unit,
                              int64_t *value)
{
    unsigned digits;
    int local;
    int64_t per_second = timestamp_unit(unit, &digits, &local);
    int64_t v;
    if (!per_second || !value || seconds > 86399 || fraction >= (uint64_t)per_second)
        return AVK_ERR_INVALID_ARGUMENT;
    if (__builtin_mul_overflow(days, (int64_t)86400, &v) ||
        __builtin_add_overflow(v, (int64_t)seconds, &v))
        return AVK_ERR_LIMIT;
    /* Before 1970, seconds * per_second alone can pass INT64_MIN when the
     * whole value does not (INT64_MIN itself in every unit): count from
     * the next second down instead. */
    if (v < 0) {
        if (__builtin_mul_overflow(v + 1, per_second, &v) ||
            __builtin_add_overflow(v, (int64_t)fraction - per_second, &v))
            return AVK_ERR_LIMIT;
    } else if (__builtin_mul_overflow(v, per_second, &v) ||
               __builtin_add_overflow(v, (int64_t)fraction, &v)) {
        return AVK_ERR_LIMIT;
    }
    *value = v;
    return AVK_OK;
}

avk_status avk_timestamp_format(int64_t value, avk_logical unit, char *buf, size_t cap)
{
    text_out o = {buf, cap, 0};
    unsigned digits;
    int local;
    int64_t days;
    uint32_t seconds, fraction;
    if (!buf)
        return AVK_ERR_INVALID_ARGUMENT;
    if (avk_timestamp_split(value, unit, &days, &seconds, &fraction) != AVK_OK)
        return AVK_ERR_INVALID_ARGUMENT;
    (void)timestamp_unit(unit, &digits, &local);
    out_date(&o, days);
    out_char(&o, 'T');
    out_time(&o, seconds, fraction, digits);
    if (!local)
        out_char(&o, 'Z');
    return out_finish(&o);
}

/* ---- duration ------------------------------------------------------------- */

static uint32_t get_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_le32(uint8_t *p, uint32_t x)
{
    p[0] = (uint8_t)x;
    p[1] = (uint8_t)(x >> 8);
    p[2] = (uint8_t)(x >> 16);
    p[3] = (uint8_t)(x >> 24);
}

avk_status avk_duration_decode(const uint8_t bytes[12], uint32_t *months, uint32_t *days,
                               uint32_t *millis)
{
    if (!bytes)
        return AVK_ERR_INVALID_ARGUMENT;
    if (months)
        *months = get_le32(bytes);
    if (days)
        *days = get_le32(bytes + 4);
    if (millis)
        *millis = get_le32(bytes + 8);
    return AVK_OK;
}

avk_status avk_duration_encode(uint32_t months, uint32_t days, uint32_t millis, uint8_t out[12])
{
    if (!out)
        return AVK_ERR_INVALID_ARGUMENT;
    put_le32(out, months);
    put_le32(out + 4, days);
    put_le32(out + 8, millis);
    return AVK_OK;
}
