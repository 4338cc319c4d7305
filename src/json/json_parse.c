/* JSON reader: RFC 8259 text to a read-only tree in an arena; iterative, strict UTF-8, exact numbers. */
#include <errno.h>
#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "avrokit/macros.h"
#include "common/error.h"
#include "json/json.h"

#define DEFAULT_MAX_DEPTH 512

/* Scratch slots kept on the C stack (80 bytes each on LP64): enough for a
 * 100-field record schema, so the common case never allocates scratch. */
#define STACK_SLOTS 128

/* "No open container": the value being parsed is the root. */
#define NONE ((size_t)-1)

/* Room kept after the bound on what the rest of the input can produce, so
 * a 16-byte vector store near the end of a string stays inside the area. */
#define SBUF_SLACK 32

/* One value being built: the key when its parent is an object, and the
 * node. An open container keeps its parent's slot index in u.array.count
 * until it is closed; its children are the slots above it. */
typedef struct slot {
    const char *key;
    size_t key_len;
    avki_json node;
} slot;

typedef struct parser {
    const char *start; /* text */
    const char *end;   /* text + len */
    avki_arena *arena;
    avk_error *err;
    slot *slots;
    size_t cap;        /* slots available */
    int slots_on_heap; /* slots came from the arena's allocator */
    char *sbuf;        /* next free byte of the string area */
    char *sbuf_end;
    size_t max_depth;
    int more;          /* the text may continue past end (a prefix, not final):
                          running into end is "read more", not an error */
    uint64_t line;     /* position of start in the whole input, for messages */
    uint64_t column;
    uint64_t offset;
} parser;

static const avki_json *const empty_items[1] = {NULL};
static const avki_json_member empty_members[1] = {{"", 0, NULL}};

/* ---- errors (cold) ----------------------------------------------------------------- */

/* Reports status at byte at: "line L, column C: <message>". Line and column
 * are recounted from the start, which only errors pay for. */
static avk_status fail(parser *ps, const char *at, avk_status status, const char *fmt, ...)
    __attribute__((cold, noinline, format(printf, 4, 5)));

static avk_status fail(parser *ps, const char *at, avk_status status, const char *fmt, ...)
{
    char msg[AVK_ERROR_MESSAGE_MAX];
    const char *q, *line_start = NULL;
    unsigned long long line = ps->line, column;
    va_list ap;
    if (!ps->err)
        return status;
    for (q = ps->start; q < at; q++)
        if (*q == '\n') {
            line++;
            line_start = q + 1;
        }
    /* On the text's first line, columns continue from where it starts. */
    column = line_start ? (unsigned long long)(at - line_start) + 1
                        : ps->column + (unsigned long long)(at - ps->start);
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return avki_error_set(ps->err, status, ps->offset + (uint64_t)(at - ps->start),
                          "line %llu, column %llu: %s", line, column, msg);
}

/* The text ran out inside the value while more of it may come. */
static avk_status truncated(parser *ps, const char *at) __attribute__((cold, noinline));

static avk_status truncated(parser *ps, const char *at)
{
    return fail(ps, at, AVK_ERR_TRUNCATED, "the text ends inside a value");
}

/* "expected <what>, found <the byte at at>". */
static avk_status fail_expected(parser *ps, const char *at, const char *what)
    __attribute__((cold, noinline));

static avk_status fail_expected(parser *ps, const char *at, const char *what)
{
    unsigned char c;
    if (at >= ps->end) {
        if (ps->more)
            return truncated(ps, at);
        return fail(ps, at, AVK_ERR_MALFORMED, "expected %s, found end of input", what);
    }
    c = (unsigned char)*at;
    /* The start of a byte order mark: the message waits for the rest. */
    if (at == ps->start && ps->more && ps->end - at < 3 &&
        memcmp(at, "\xEF\xBB\xBF", (size_t)(ps->end - at)) == 0)
        return truncated(ps, ps->end);
    if (at == ps->start && ps->end - at >= 3 && memcmp(at, "\xEF\xBB\xBF", 3) == 0)
        return fail(ps, at, AVK_ERR_MALFORMED,
                    "expected %s, found a byte order mark (not allowed in JSON text)", what);
    if (c > 0x20 && c < 0x7f)
        return fail(ps, at, AVK_ERR_MALFORMED, "expected %s, found '%c'", what, (char)c);
    return fail(ps, at, AVK_ERR_MALFORMED, "expected %s, found byte 0x%02X", what, (unsigned)c);
}

static avk_status fail_memory(parser *ps, const char *at) __attribute__((cold, noinline));

static avk_status fail_memory(parser *ps, const char *at)
{
    return fail(ps, at, AVK_ERR_NO_MEMORY, "out of memory (arena allocation failed)");
}

/* ---- small helpers ------------------------------------------------------------------ */

static inline uint32_t sat32(size_t v)
{
    return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static inline int is_digit(unsigned char c)
{
    return (unsigned)(c - '0') < 10;
}

/* The value of a hex digit, or 0x100 for any other byte. */
static inline unsigned hexv(unsigned char c)
{
    if (is_digit(c))
        return (unsigned)(c - '0');
    c |= 0x20; /* lower case */
    if (c >= 'a' && c <= 'f')
        return (unsigned)(c - 'a' + 10);
    return 0x100;
}

/* The four hex digits at p as a code unit, or a value above 0xFFFF. */
static inline unsigned hex4(const char *p)
{
    unsigned a = hexv((unsigned char)p[0]), b = hexv((unsigned char)p[1]);
    unsigned c = hexv((unsigned char)p[2]), d = hexv((unsigned char)p[3]);
    if ((a | b | c | d) & 0x100)
        return 0x10000;
    return (a << 12) | (b << 8) | (c << 4) | d;
}

static inline char *put_utf8(char *d, unsigned cp)
{
    if (cp < 0x80) {
        *d++ = (char)cp;
    } else if (cp < 0x800) {
        *d++ = (char)(0xC0 | (cp >> 6));
        *d++ = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        *d++ = (char)(0xE0 | (cp >> 12));
        *d++ = (char)(0x80 | ((cp >> 6) & 0x3F));
        *d++ = (char)(0x80 | (cp & 0x3F));
    } else {
        *d++ = (char)(0xF0 | (cp >> 18));
        *d++ = (char)(0x80 | ((cp >> 12) & 0x3F));
        *d++ = (char)(0x80 | ((cp >> 6) & 0x3F));
        *d++ = (char)(0x80 | (cp & 0x3F));
    }
    return d;
}

/* Length of the well-formed UTF-8 sequence at p (Unicode 15, table 3-7:
 * no overlong forms, no surrogates, nothing above U+10FFFF), or 0. */
static inline size_t utf8_sequence(const unsigned char *p, const unsigned char *end)
{
    unsigned c = p[0];
    size_t avail = (size_t)(end - p);
    if (c < 0xC2)
        return 0; /* continuation byte, or overlong 2-byte lead C0/C1 */
    if (c < 0xE0)
        return avail >= 2 && (p[1] & 0xC0) == 0x80 ? 2 : 0;
    if (c < 0xF0) {
        unsigned lo = c == 0xE0 ? 0xA0 : 0x80; /* E0 80..9F would be overlong */
        unsigned hi = c == 0xED ? 0x9F : 0xBF; /* ED A0..BF would be a surrogate */
        return avail >= 3 && p[1] >= lo && p[1] <= hi && (p[2] & 0xC0) == 0x80 ? 3 : 0;
    }
    if (c < 0xF5) {
        unsigned lo = c == 0xF0 ? 0x90 : 0x80; /* F0 80..8F would be overlong */
        unsigned hi = c == 0xF4 ? 0x8F : 0xBF; /* F4 90.. is above U+10FFFF */
        return avail >= 4 && p[1] >= lo && p[1] <= hi && (p[2] & 0xC0) == 0x80 &&
                       (p[3] & 0xC0) == 0x80
                   ? 4
                   : 0;
    }
    return 0;
}

/* The string area holds every string, key and number text, unescaped and
 * NUL-terminated, back to back. It is allocated once, at the first string
 * or number, holding what the rest of the input can produce: a string
 * never grows when unescaped (its content plus the NUL fit in the room of
 * its text with quotes: \uXXXX gives at most 3 bytes, a pair of them 4); a
 * number needs one byte more than its text, but is followed by a
 * delimiter or the end of the input. So at any token starting at p, the
 * area has at least end - p + SBUF_SLACK bytes left, and no token needs a
 * check. Sanitizer builds check it anyway. */
static int sbuf_alloc(parser *ps, const char *p) __attribute__((noinline));

static int sbuf_alloc(parser *ps, const char *p)
{
    size_t need = (size_t)(ps->end - p) + SBUF_SLACK;
    char *b = (char *)avki_arena_alloc(ps->arena, need, 1);
    if (!b)
        return 0;
    ps->sbuf = b;
    ps->sbuf_end = b + need;
    return 1;
}

#if defined(__SANITIZE_ADDRESS__)
#define SBUF_SELF_CHECK 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SBUF_SELF_CHECK 1
#endif
#endif
#ifndef SBUF_SELF_CHECK
#define SBUF_SELF_CHECK 0
#endif

/* Makes the string area ready for a token starting at p. */
static inline int sbuf_ready(parser *ps, const char *p)
{
    if (AVK_UNLIKELY(!ps->sbuf))
        return sbuf_alloc(ps, p);
    /* The invariant above; ASan cannot see inside an arena block. */
    if (SBUF_SELF_CHECK && (size_t)(ps->sbuf_end - ps->sbuf) < (size_t)(ps->end - p) + 17)
        __builtin_trap();
    return 1;
}

/* ---- strings ------------------------------------------------------------------------- */

/* Parses the string whose opening quote is at q into the string area.
 * Returns the position after the closing quote, or NULL with the error
 * reported in *st. Inlined into its two callers (keys and values): the
 * call costs about a tenth of a schema's parse time. */
static inline __attribute__((always_inline)) const char *
parse_string(parser *ps, const char *q, const char **out, size_t *out_len, avk_status *st)
{
    const char *p = q + 1, *end = ps->end;
    char *d, *s;
    if (AVK_UNLIKELY(!sbuf_ready(ps, q))) {
        *st = fail_memory(ps, q);
        return NULL;
    }
    d = s = ps->sbuf;
    for (;;) {
        unsigned char c;
#if defined(__SSE2__)
        /* 16 bytes at a time: store them, then look for a quote, a
         * backslash, a control character or a non-ASCII byte (the signed
         * compare below 0x20 catches both 0x00-0x1F and 0x80-0xFF). */
        {
            const __m128i quote = _mm_set1_epi8('"');
            const __m128i bslash = _mm_set1_epi8('\\');
            const __m128i space = _mm_set1_epi8(0x20);
            while (end - p >= 16) {
                __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
                __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote),
                                                      _mm_cmpeq_epi8(v, bslash)),
                                         _mm_cmplt_epi8(v, space));
                unsigned mask = (unsigned)_mm_movemask_epi8(m);
                _mm_storeu_si128((__m128i *)(void *)d, v);
                if (mask) {
                    unsigned k = (unsigned)__builtin_ctz(mask);
                    p += k;
                    d += k;
                    if (AVK_LIKELY(*p == '"'))
                        goto closed; /* the common case: no escape */
                    break;
                }
                p += 16;
                d += 16;
            }
        }
#endif
        /* Plain ASCII one byte at a time: the last 15 bytes of the input,
         * or everything without SSE2. Stops at the byte to handle. */
        while (p < end) {
            c = (unsigned char)*p;
            if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80)
                break;
            *d++ = (char)c;
            p++;
        }
        if (AVK_UNLIKELY(p >= end)) {
            *st = ps->more ? truncated(ps, end)
                           : fail(ps, q, AVK_ERR_MALFORMED,
                                  "unterminated string (no closing '\"')");
            return NULL;
        }
        c = (unsigned char)*p;
        if (c == '"') {
#if defined(__SSE2__)
        closed:
#endif
            *d = '\0';
            *out = s;
            *out_len = (size_t)(d - s);
            ps->sbuf = d + 1;
            return p + 1;
        }
        if (c == '\\') {
            unsigned cp;
            if (end - p < 2) {
                *st = ps->more ? truncated(ps, end)
                               : fail(ps, q, AVK_ERR_MALFORMED,
                                      "unterminated string (no closing '\"')");
                return NULL;
            }
            switch (p[1]) {
            case '"': *d++ = '"'; p += 2; continue;
            case '\\': *d++ = '\\'; p += 2; continue;
            case '/': *d++ = '/'; p += 2; continue;
            case 'b': *d++ = '\b'; p += 2; continue;
            case 'f': *d++ = '\f'; p += 2; continue;
            case 'n': *d++ = '\n'; p += 2; continue;
            case 'r': *d++ = '\r'; p += 2; continue;
            case 't': *d++ = '\t'; p += 2; continue;
            case 'u': break;
            default:
                if ((unsigned char)p[1] > 0x20 && (unsigned char)p[1] < 0x7f)
                    *st = fail(ps, p, AVK_ERR_MALFORMED, "invalid escape '\\%c' in string", p[1]);
                else
                    *st = fail(ps, p, AVK_ERR_MALFORMED, "invalid escape in string");
                return NULL;
            }
            if (end - p < 6 && ps->more) {
                *st = truncated(ps, end);
                return NULL;
            }
            if (end - p < 6 || (cp = hex4(p + 2)) > 0xFFFF) {
                *st = fail(ps, p, AVK_ERR_MALFORMED, "expected 4 hex digits after '\\u'");
                return NULL;
            }
            if (cp >= 0xD800 && cp <= 0xDFFF) {
                unsigned lo;
                if (cp >= 0xDC00) {
                    *st = fail(ps, p, AVK_ERR_MALFORMED,
                               "unpaired low surrogate \\u%04X in string", cp);
                    return NULL;
                }
                /* RFC 8259 section 7: a character outside the BMP is a
                 * high-low pair of escapes. Short of 12 bytes, more
                 * text decides. */
                if (end - p < 12 && ps->more) {
                    *st = truncated(ps, end);
                    return NULL;
                }
                if (end - p < 12 || p[6] != '\\' || p[7] != 'u' ||
                    (lo = hex4(p + 8)) < 0xDC00 || lo > 0xDFFF) {
                    *st = fail(ps, p, AVK_ERR_MALFORMED,
                               "unpaired high surrogate \\u%04X in string (expected a "
                               "\\uDC00-\\uDFFF escape after it)", cp);
                    return NULL;
                }
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                p += 12;
            } else {
                p += 6;
            }
            d = put_utf8(d, cp);
            continue;
        }
        if (c < 0x20) {
            *st = fail(ps, p, AVK_ERR_MALFORMED,
                       "unescaped control character 0x%02X in string", (unsigned)c);
            return NULL;
        }
        /* c >= 0x80 */
        {
            size_t n = utf8_sequence((const unsigned char *)p, (const unsigned char *)end);
            if (AVK_UNLIKELY(n == 0)) {
                /* A sequence cut by the end of a prefix: more text decides. */
                if (ps->more && end - p < 4) {
                    *st = truncated(ps, end);
                    return NULL;
                }
                *st = fail(ps, p, AVK_ERR_MALFORMED, "invalid UTF-8 in string");
                return NULL;
            }
            memcpy(d, p, n);
            d += n;
            p += n;
        }
    }
}

/* ---- numbers ------------------------------------------------------------------------- */

/* Powers of ten a double holds exactly. */
static const double exact_pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* The NUL-terminated number text[0..len) as strtod and strtof in the
 * current C locale read it: a copy with the locale's decimal point (they
 * honour LC_NUMERIC) when that is not '.', else text itself; NULL when
 * the copy cannot be allocated. */
static const char *locale_text(avki_arena *arena, const char *text, size_t len)
{
    const char *dp = localeconv()->decimal_point;
    const char *dot = (const char *)memchr(text, '.', len);
    if (dot && dp && !(dp[0] == '.' && dp[1] == '\0')) {
        size_t dl = strlen(dp), before = (size_t)(dot - text);
        char *tmp;
        if (len > SIZE_MAX - dl)
            return NULL;
        tmp = (char *)avki_arena_alloc(arena, len + dl, 1);
        if (!tmp)
            return NULL;
        memcpy(tmp, text, before);
        memcpy(tmp + before, dp, dl);
        memcpy(tmp + before + dl, dot + 1, len - before); /* with the NUL */
        return tmp;
    }
    return text;
}

/* strtod on the NUL-terminated text, independent of the C locale. */
static int slow_strtod(parser *ps, const char *text, size_t len, double *out)
{
    const char *t = locale_text(ps->arena, text, len);
    int saved = errno;
    if (!t)
        return 0;
    *out = strtod(t, NULL);
    errno = saved;
    return 1;
}

int avki_json_number_float(avki_arena *arena, const avki_json *n, float *out)
{
    double d = n->u.number.d, a, b;
    float f, g;
    const char *t;
    int saved;
    if (n->u.number.is_integer) {
        *out = (float)n->u.number.i; /* one rounding, from the integer */
        return 1;
    }
    f = (float)d;
    a = (double)f;
    /* Rounding the correctly rounded double again gives the correctly
     * rounded float unless the double lies exactly halfway between two
     * floats (the text may lie off the halfway point, on either side);
     * only then read the text again, as a float. */
    if (a == d || d != d)
        goto done;
    if (f - f != 0) { /* rounded to an infinity: halfway is 2^128 - 2^103 */
        if (fabs(d) != 0x1.ffffffp+127)
            goto done;
    } else {
        g = nextafterf(f, d > a ? HUGE_VALF : -HUGE_VALF);
        b = g - g != 0 ? (g > 0 ? 0x1p128 : -0x1p128) : (double)g;
        if ((a + b) / 2 != d)
            goto done;
    }
    t = locale_text(arena, n->u.number.text, n->u.number.len);
    if (!t)
        return 0;
    saved = errno;
    f = strtof(t, NULL);
    errno = saved;
done:
    *out = f;
    return 1;
}

/* Parses the number starting at s (a '-' or a digit) into n. Returns the
 * position after it, or NULL with *st set. */
static const char *parse_number(parser *ps, const char *s, avki_json *n, avk_status *st)
{
    const char *p = s, *end = ps->end;
    uint64_t m = 0;      /* significant digits, while they fit */
    int nd = 0;          /* significant digits seen (from the first non-zero) */
    int many = 0;        /* more than 19 significant digits: m is inexact */
    long scale = 0;      /* fraction digits folded into m */
    long exp10 = 0;
    int neg = 0, is_int = 1;
    size_t len;
    char *text;

    if (*p == '-') {
        neg = 1;
        p++;
        if (AVK_UNLIKELY(p >= end || !is_digit((unsigned char)*p))) {
            *st = fail_expected(ps, p, "a digit after '-'");
            return NULL;
        }
    }
    if (*p == '0') {
        p++;
        if (AVK_UNLIKELY(p < end && is_digit((unsigned char)*p))) {
            *st = fail(ps, p - 1, AVK_ERR_MALFORMED, "leading zeros are not allowed in numbers");
            return NULL;
        }
    } else {
        /* Up to 19 digits cannot overflow a uint64. */
        while (p < end && is_digit((unsigned char)*p)) {
            if (nd < 19)
                m = m * 10 + (unsigned)(*p - '0');
            else
                many = 1;
            nd++;
            p++;
        }
    }
    if (p < end && *p == '.') {
        is_int = 0;
        p++;
        if (AVK_UNLIKELY(p >= end || !is_digit((unsigned char)*p))) {
            *st = fail_expected(ps, p, "a digit after '.'");
            return NULL;
        }
        while (p < end && is_digit((unsigned char)*p)) {
            unsigned dg = (unsigned)(*p - '0');
            if (!many) {
                if (nd < 19) {
                    m = m * 10 + dg;
                    scale++;
                    if (m)
                        nd++;
                } else {
                    many = 1;
                }
            }
            p++;
        }
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        int eneg = 0;
        is_int = 0;
        p++;
        if (p < end && (*p == '+' || *p == '-')) {
            eneg = *p == '-';
            p++;
        }
        if (AVK_UNLIKELY(p >= end || !is_digit((unsigned char)*p))) {
            *st = fail_expected(ps, p, "a digit in the exponent");
            return NULL;
        }
        while (p < end && is_digit((unsigned char)*p)) {
            if (exp10 < 100000000)
                exp10 = exp10 * 10 + (*p - '0');
            p++;
        }
        if (eneg)
            exp10 = -exp10;
    }

    /* Keep the text, NUL-terminated (strtod needs that). */
    len = (size_t)(p - s);
    if (AVK_UNLIKELY(!sbuf_ready(ps, s))) {
        *st = fail_memory(ps, s);
        return NULL;
    }
    text = ps->sbuf;
    memcpy(text, s, len);
    text[len] = '\0';
    ps->sbuf = text + len + 1;

    n->type = AVKI_JSON_NUMBER;
    n->u.number.text = text;
    n->u.number.len = len;
    n->u.number.is_integer = 0;
    n->u.number.i = 0;
    if (is_int && !many) {
        /* Exact: converting a uint64 to double rounds to nearest, as strtod. */
        double d = (double)m;
        n->u.number.d = neg ? -d : d;
        if (!neg && m <= (uint64_t)INT64_MAX) {
            n->u.number.is_integer = 1;
            n->u.number.i = (int64_t)m;
        } else if (neg && m <= (uint64_t)INT64_MAX + 1) {
            n->u.number.is_integer = 1;
            n->u.number.i = m == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)m;
        }
        return p;
    }
#if FLT_EVAL_METHOD == 0
    /* Clinger's fast path: m and 10^|e| are exact doubles, so one
     * correctly rounded operation gives the correctly rounded result. */
    if (!many) {
        long e = exp10 - scale;
        if (m == 0) {
            n->u.number.d = neg ? -0.0 : 0.0;
            return p;
        }
        if (m <= ((uint64_t)1 << 53) && e >= -22 && e <= 22) {
            double d = (double)m;
            d = e < 0 ? d / exact_pow10[-e] : d * exact_pow10[e];
            n->u.number.d = neg ? -d : d;
            return p;
        }
    }
#else
    (void)exact_pow10;
#endif
    if (AVK_UNLIKELY(!slow_strtod(ps, text, len, &n->u.number.d))) {
        *st = fail_memory(ps, s);
        return NULL;
    }
    return p;
}

/* ---- scratch stack ------------------------------------------------------------------
 * The parser keeps no C stack frame per level: every value being built is
 * a slot on one scratch stack, an open container followed by its children
 * so far. When the container closes, its children are copied into one
 * arena block sized exactly (close_container) and popped, so the tree ends
 * up with contiguous, exactly sized arrays and the scratch is reused.
 * Nesting depth costs scratch, bounded by max_depth, never C stack. */

/* The scratch outgrows the C stack's slots into memory from the arena's
 * allocator, not from the arena: it is freed when the parse ends, where
 * arena memory would stay as long as the tree. It still counts against the
 * arena's limit while it lives. */
static int grow_slots(parser *ps)
{
    avki_arena *a = ps->arena;
    size_t ncap, bytes;
    slot *ns;
    if (ps->cap > SIZE_MAX / 2 / sizeof(slot))
        return 0;
    ncap = ps->cap * 2;
    bytes = ncap * sizeof(slot);
    /* The scratch counts against the arena's limit while it lives. */
    if (a->limit && (a->total > a->limit || bytes > a->limit - a->total))
        return 0;
    a->allocations++;
    if (ps->slots_on_heap) {
        ns = (slot *)a->alloc.realloc(a->alloc.ctx, ps->slots, ps->cap * sizeof(slot), bytes);
        if (!ns)
            return 0;
    } else {
        ns = (slot *)a->alloc.alloc(a->alloc.ctx, bytes);
        if (!ns)
            return 0;
        memcpy(ns, ps->slots, ps->cap * sizeof(slot));
        ps->slots_on_heap = 1;
    }
    ps->slots = ns;
    ps->cap = ncap;
    return 1;
}

static void free_slots(parser *ps)
{
    if (ps->slots_on_heap)
        ps->arena->alloc.free(ps->arena->alloc.ctx, ps->slots, ps->cap * sizeof(slot));
}

/* Copies the children of the container in slot c (slots c+1 .. top-1) into
 * one arena block: the pointer or member array, then the nodes. */
static int close_container(parser *ps, size_t c, size_t top)
{
    slot *cs = &ps->slots[c];
    const slot *kids = cs + 1;
    size_t count = top - c - 1, i;
    avki_json *nodes;
    if (cs->node.type == AVKI_JSON_ARRAY) {
        const avki_json **items;
        if (count == 0) {
            cs->node.u.array.items = empty_items;
            cs->node.u.array.count = 0;
            return 1;
        }
        if (count > SIZE_MAX / (sizeof(*items) + sizeof(avki_json)))
            return 0;
        items = (const avki_json **)avki_arena_alloc(
            ps->arena, count * (sizeof(*items) + sizeof(avki_json)), _Alignof(avki_json));
        if (!items)
            return 0;
        nodes = (avki_json *)(void *)(items + count);
        for (i = 0; i < count; i++) {
            nodes[i] = kids[i].node;
            items[i] = &nodes[i];
        }
        cs->node.u.array.items = items;
        cs->node.u.array.count = count;
    } else {
        avki_json_member *members;
        if (count == 0) {
            cs->node.u.object.members = empty_members;
            cs->node.u.object.count = 0;
            return 1;
        }
        if (count > SIZE_MAX / (sizeof(*members) + sizeof(avki_json)))
            return 0;
        members = (avki_json_member *)avki_arena_alloc(
            ps->arena, count * (sizeof(*members) + sizeof(avki_json)), _Alignof(avki_json));
        if (!members)
            return 0;
        nodes = (avki_json *)(void *)(members + count);
        for (i = 0; i < count; i++) {
            nodes[i] = kids[i].node;
            members[i].key = kids[i].key;
            members[i].key_len = kids[i].key_len;
            members[i].value = &nodes[i];
        }
        cs->node.u.object.members = members;
        cs->node.u.object.count = count;
    }
    return 1;
}

/* ---- the parser ---------------------------------------------------------------------- */

/* Indentation after a line feed: the number of spaces at p, up to 16
 * (SSE2), so pretty-printed documents do not pay a loop turn per space. */
#if defined(__SSE2__)
#define SKIP_INDENT()                                                              \
    do {                                                                           \
        while (end - p >= 16) {                                                    \
            __m128i v_ = _mm_loadu_si128((const __m128i *)(const void *)p);        \
            unsigned m_ = ~(unsigned)_mm_movemask_epi8(                            \
                _mm_cmpeq_epi8(v_, _mm_set1_epi8(' ')));                           \
            unsigned k_ = (unsigned)__builtin_ctz(m_ | 0x10000u);                  \
            p += k_;                                                               \
            if (k_ < 16)                                                           \
                break;                                                             \
        }                                                                          \
    } while (0)
#else
#define SKIP_INDENT() ((void)0)
#endif

/* Skips JSON white space (RFC 8259: space, tab, LF, CR), counting lines. */
#define SKIP_WS()                                                                  \
    do {                                                                           \
        while (p < end && (unsigned char)*p <= ' ') {                              \
            char c_ = *p;                                                          \
            if (c_ == '\n') {                                                      \
                line += line != UINT32_MAX;                                        \
                line_start = ++p;                                                  \
                SKIP_INDENT();                                                     \
                continue;                                                          \
            }                                                                      \
            if (c_ != ' ' && c_ != '\t' && c_ != '\r')                             \
                break;                                                             \
            p++;                                                                   \
        }                                                                          \
    } while (0)

avk_status avki_json_parse(avki_arena *arena, const char *text, size_t len,
                           const avki_json_limits *limits, const avki_json **out, avk_error *err)
{
    avki_json_parse_options o;
    memset(&o, 0, sizeof o);
    o.max_depth = limits ? limits->max_depth : 0;
    return avki_json_parse_ex(arena, text, len, &o, out, NULL, err);
}

avk_status avki_json_parse_ex(avki_arena *arena, const char *text, size_t len,
                              const avki_json_parse_options *opts, const avki_json **out,
                              size_t *used, avk_error *err)
{
    slot stack_slots[STACK_SLOTS];
    parser ps;
    const char *p, *end, *line_start;
    uint32_t line = 1; /* saturates: 4 billion lines */
    size_t top = 0, cur = NONE, depth = 0, lead;
    int in_array = 0; /* slots[cur] is an array (else an object, or the root) */
    int prefix = opts && (opts->flags & AVKI_JSON_PREFIX);
    avk_status st = AVK_OK;
    avki_json *root;

    if (out)
        *out = NULL;
    if (used)
        *used = 0;
    if (!arena || !out || (!text && len) || (prefix && !used))
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avki_json_parse: arena, out and text (and used for a prefix) "
                              "must not be NULL");
    if (!text)
        text = "";
    ps.start = text;
    ps.end = text + len;
    ps.arena = arena;
    ps.err = err;
    ps.slots = stack_slots;
    ps.cap = STACK_SLOTS;
    ps.slots_on_heap = 0;
    ps.sbuf = ps.sbuf_end = NULL;
    ps.max_depth = opts && opts->max_depth ? opts->max_depth : DEFAULT_MAX_DEPTH;
    ps.more = prefix && !(opts->flags & AVKI_JSON_FINAL);
    ps.line = opts && opts->line ? opts->line : 1;
    ps.column = opts && opts->column ? opts->column : 1;
    ps.offset = opts ? opts->offset : 0;
    p = line_start = text;
    end = ps.end;
    /* White space before the value: what a caller reading a stream may
     * drop when the value is not all there yet. */
    SKIP_WS();
    lead = (size_t)(p - text);
    if (prefix && p == end) {
        st = fail(&ps, p, AVK_ERR_TRUNCATED, "no value in the text, only white space");
        goto failed;
    }

value:
    /* A value goes into slots[top]; in an object its key is already set. */
    SKIP_WS();
    if (AVK_UNLIKELY(top == ps.cap) && !grow_slots(&ps)) {
        st = fail_memory(&ps, p);
        goto failed;
    }
    {
        avki_json *n = &ps.slots[top].node;
        if (AVK_UNLIKELY(p >= end)) {
            st = fail_expected(&ps, p, "a value");
            goto failed;
        }
        n->line = line;
        n->column = sat32((size_t)(p - line_start) + 1);
        n->offset = (size_t)(p - text);
        switch (*p) {
        case '"':
            n->type = AVKI_JSON_STRING;
            p = parse_string(&ps, p, &n->u.string.ptr, &n->u.string.len, &st);
            if (AVK_UNLIKELY(!p))
                goto failed;
            top++;
            goto after_value;
        case '-': case '0': case '1': case '2': case '3': case '4':
        case '5': case '6': case '7': case '8': case '9':
            p = parse_number(&ps, p, n, &st);
            if (AVK_UNLIKELY(!p))
                goto failed;
            /* A number alone that the text's end cuts may go on. */
            if (AVK_UNLIKELY(cur == NONE && p == end && ps.more)) {
                st = truncated(&ps, p);
                goto failed;
            }
            top++;
            goto after_value;
        case '{':
        case '[':
            if (AVK_UNLIKELY(depth >= ps.max_depth)) {
                st = fail(&ps, p, AVK_ERR_LIMIT, "nesting deeper than %zu levels", ps.max_depth);
                goto failed;
            }
            depth++;
            in_array = *p == '[';
            n->type = in_array ? AVKI_JSON_ARRAY : AVKI_JSON_OBJECT;
            n->u.array.count = cur; /* the parent, until closed */
            cur = top++;
            p++;
            SKIP_WS();
            if (in_array) {
                if (p < end && *p == ']')
                    goto close;
                goto value;
            }
            if (p < end && *p == '}')
                goto close;
            if (AVK_UNLIKELY(p >= end || *p != '"')) {
                st = fail_expected(&ps, p, "a string key or '}'");
                goto failed;
            }
            goto key;
        case 't':
            if (AVK_LIKELY(end - p >= 4 && memcmp(p, "true", 4) == 0)) {
                n->type = AVKI_JSON_TRUE;
                p += 4;
                top++;
                goto after_value;
            }
            goto bad_literal;
        case 'f':
            if (AVK_LIKELY(end - p >= 5 && memcmp(p, "false", 5) == 0)) {
                n->type = AVKI_JSON_FALSE;
                p += 5;
                top++;
                goto after_value;
            }
            goto bad_literal;
        case 'n':
            if (AVK_LIKELY(end - p >= 4 && memcmp(p, "null", 4) == 0)) {
                n->type = AVKI_JSON_NULL;
                p += 4;
                top++;
                goto after_value;
            }
            goto bad_literal;
        case ']':
            if (in_array) {
                st = fail(&ps, p, AVK_ERR_MALFORMED,
                          "expected a value, found ']' (trailing comma?)");
                goto failed;
            }
            st = fail_expected(&ps, p, "a value");
            goto failed;
        default:
            st = fail_expected(&ps, p, "a value");
            goto failed;
        }
    }

bad_literal: {
    const char *lit = *p == 't' ? "true" : *p == 'f' ? "false" : "null";
    size_t i = 0;
    char what[16];
    while (p + i < end && lit[i] && p[i] == lit[i])
        i++;
    snprintf(what, sizeof what, "'%s'", lit);
    st = fail_expected(&ps, p + i, what);
    goto failed;
}

close:
    /* p is at the ']' or '}' that closes slots[cur]. */
    {
        size_t parent = ps.slots[cur].node.u.array.count;
        if (AVK_UNLIKELY(!close_container(&ps, cur, top))) {
            st = fail_memory(&ps, p);
            goto failed;
        }
        top = cur + 1;
        cur = parent;
        in_array = cur != NONE && ps.slots[cur].node.type == AVKI_JSON_ARRAY;
        depth--;
        p++;
    }

after_value:
    if (cur == NONE)
        goto done;
    SKIP_WS();
    if (in_array) {
        if (AVK_LIKELY(p < end)) {
            if (*p == ',') {
                p++;
                goto value;
            }
            if (*p == ']')
                goto close;
        }
        st = fail_expected(&ps, p, "',' or ']' after an array element");
        goto failed;
    }
    if (AVK_LIKELY(p < end)) {
        if (*p == ',') {
            p++;
            SKIP_WS();
            if (AVK_LIKELY(p < end && *p == '"'))
                goto key;
            if (p < end && *p == '}')
                st = fail(&ps, p, AVK_ERR_MALFORMED,
                          "expected a string key, found '}' (trailing comma?)");
            else
                st = fail_expected(&ps, p, "a string key");
            goto failed;
        }
        if (*p == '}')
            goto close;
    }
    st = fail_expected(&ps, p, "',' or '}' after an object member");
    goto failed;

key:
    /* p is at the opening quote of a key. */
    if (AVK_UNLIKELY(top == ps.cap) && !grow_slots(&ps)) {
        st = fail_memory(&ps, p);
        goto failed;
    }
    p = parse_string(&ps, p, &ps.slots[top].key, &ps.slots[top].key_len, &st);
    if (AVK_UNLIKELY(!p))
        goto failed;
    SKIP_WS();
    if (AVK_UNLIKELY(p >= end || *p != ':')) {
        st = fail_expected(&ps, p, "':' after object key");
        goto failed;
    }
    p++;
    goto value;

done:
    if (prefix) {
        *used = (size_t)(p - text);
    } else {
        SKIP_WS();
        if (AVK_UNLIKELY(p < end)) {
            st = fail_expected(&ps, p, "end of input after the value");
            goto failed;
        }
    }
    root = (avki_json *)avki_arena_alloc(arena, sizeof *root, _Alignof(avki_json));
    if (AVK_UNLIKELY(!root)) {
        st = fail_memory(&ps, p);
        goto failed;
    }
    *root = ps.slots[0].node;
    free_slots(&ps);
    *out = root;
    return AVK_OK;

failed:
    free_slots(&ps);
    if (st == AVK_ERR_TRUNCATED && used)
        *used = lead;
    return st;
}

const avki_json *avki_json_get(const avki_json *object, const char *key)
{
    size_t i, n;
    if (!object || object->type != AVKI_JSON_OBJECT || !key)
        return NULL;
    n = strlen(key);
    for (i = 0; i < object->u.object.count; i++) {
        const avki_json_member *m = &object->u.object.members[i];
        /* Length and first byte first: most keys differ there, and a
         * libc memcmp call costs more than the comparison itself. */
        if (m->key_len == n && (n == 0 || (m->key[0] == key[0] && memcmp(m->key, key, n) == 0)))
            return m->value;
    }
    return NULL;
}
