/* C names for Avro types: content-based type names, keyword mangling, labels and small text helpers. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

/* ---- buffers and the string pool ------------------------------------------ */

void gen_buf_free(gen_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

static int buf_room(gen_buf *b, size_t n)
{
    if (b->oom)
        return 0;
    if (b->len + n + 1 > b->cap) {
        size_t ncap = b->cap ? b->cap * 2 : 4096;
        char *p;
        while (ncap < b->len + n + 1)
            ncap *= 2;
        p = (char *)realloc(b->data, ncap);
        if (!p) {
            b->oom = 1;
            return 0;
        }
        b->data = p;
        b->cap = ncap;
    }
    return 1;
}

void gen_printf(gen_buf *b, const char *fmt, ...)
{
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !buf_room(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void gen_puts(gen_buf *b, const char *s)
{
    size_t n = strlen(s);
    if (!buf_room(b, n))
        return;
    memcpy(b->data + b->len, s, n + 1);
    b->len += n;
}

void gen_ctx_init(gen_ctx *g, const gen_opts *opts, const char *base)
{
    memset(g, 0, sizeof *g);
    g->opts = opts;
    g->base = base;
}

void gen_ctx_destroy(gen_ctx *g)
{
    size_t i;
    for (i = 0; i < g->pool.count; i++)
        free(g->pool.items[i]);
    free(g->pool.items);
    gen_buf_free(&g->h);
    gen_buf_free(&g->c);
}

/* Keeps s (malloc'd) until the context goes; on failure marks the output
 * as out of memory and returns "" so callers go on harmlessly. */
static const char *keep(gen_ctx *g, char *s)
{
    if (!s) {
        g->h.oom = g->c.oom = 1;
        return "";
    }
    if (g->pool.count == g->pool.cap) {
        size_t ncap = g->pool.cap ? g->pool.cap * 2 : 256;
        char **p = (char **)realloc(g->pool.items, ncap * sizeof *p);
        if (!p) {
            free(s);
            g->h.oom = g->c.oom = 1;
            return "";
        }
        g->pool.items = p;
        g->pool.cap = ncap;
    }
    g->pool.items[g->pool.count++] = s;
    return s;
}

const char *gen_fmt(gen_ctx *g, const char *fmt, ...)
{
    va_list ap;
    int n;
    char *s;
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return keep(g, NULL);
    s = (char *)malloc((size_t)n + 1);
    if (!s)
        return keep(g, NULL);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return keep(g, s);
}

/* ---- identifiers ------------------------------------------------------------ */

/* C11 and C++17 keywords (the C11 ones starting with '_' are caught by the
 * reserved-looking rule). */
static const char *const keywords[] = {
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break",
    "case", "catch", "char", "char16_t", "char32_t", "class", "compl", "const", "const_cast",
    "constexpr", "continue", "decltype", "default", "delete", "do", "double", "dynamic_cast",
    "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto",
    "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
    "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register",
    "reinterpret_cast", "restrict", "return", "short", "signed", "sizeof", "static",
    "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local",
    "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using",
    "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq"};

static int needs_mangling(const char *s)
{
    size_t i;
    if (s[0] == '_' && isupper((unsigned char)s[1]))
        return 1;
    if (strstr(s, "__"))
        return 1;
    for (i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
        if (strcmp(s, keywords[i]) == 0)
            return 1;
    return 0;
}

const char *gen_ident(gen_ctx *g, const char *s)
{
    return needs_mangling(s) ? gen_fmt(g, "%s_", s) : s;
}

const char *gen_prefix(const gen_ctx *g)
{
    /* A static buffer would not survive two prefixes; the prefix is fixed
     * per run, so the text is made once per context. */
    static char buf[512];
    if (!g->opts->prefix || !g->opts->prefix[0])
        return "";
    snprintf(buf, sizeof buf, "%s_", g->opts->prefix);
    return buf;
}

char *gen_base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    size_t n, i, j = 0;
    char *out;
    b = b ? b + 1 : path;
    n = strlen(b);
    if (n > 5 && strcmp(b + n - 5, ".avsc") == 0)
        n -= 5;
    else if (n > 5 && strcmp(b + n - 5, ".json") == 0)
        n -= 5;
    out = (char *)malloc(n + 2);
    if (!out)
        return NULL;
    if (n == 0 || isdigit((unsigned char)b[0]))
        out[j++] = '_';
    for (i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)b[i];
        out[j++] = (char)(isalnum(ch) || ch == '_' ? ch : '_');
    }
    out[j] = 0;
    return out;
}

/* ---- types ------------------------------------------------------------------ */

int gen_is_nullable(const avk_type *t, const avk_type **other, size_t *null_index)
{
    size_t ni;
    if (avk_type_kind(t) != AVK_UNION || avk_type_branch_count(t) != 2)
        return 0;
    if (avk_type_kind(avk_type_branch(t, 0)) == AVK_NULL)
        ni = 0;
    else if (avk_type_kind(avk_type_branch(t, 1)) == AVK_NULL)
        ni = 1;
    else
        return 0;
    if (avk_type_kind(avk_type_branch(t, 1 - ni)) == AVK_NULL)
        return 0; /* two nulls cannot be (duplicate); treat as a plain union */
    if (other)
        *other = avk_type_branch(t, 1 - ni);
    if (null_index)
        *null_index = ni;
    return 1;
}

int gen_is_ptr_nullable(const avk_type *t)
{
    const avk_type *o;
    return gen_is_nullable(t, &o, NULL) && avk_type_kind(o) == AVK_RECORD;
}

static const char *named_tok(gen_ctx *g, const avk_type *t)
{
    if (g->opts->namespace_prefix) {
        const char *full = avk_type_fullname(t);
        char *s = (char *)malloc(strlen(full) + 1);
        size_t i;
        if (!s)
            return keep(g, NULL);
        for (i = 0; full[i]; i++)
            s[i] = full[i] == '.' ? '_' : full[i];
        s[i] = 0;
        return gen_ident(g, keep(g, s));
    }
    return gen_ident(g, avk_type_name(t));
}

const char *gen_tok(gen_ctx *g, const avk_type *t)
{
    const avk_type *o;
    switch (avk_type_kind(t)) {
    case AVK_RECORD:
    case AVK_ENUM:
    case AVK_FIXED:
        return named_tok(g, t);
    case AVK_ARRAY:
        return gen_fmt(g, "array_%s", gen_tok(g, avk_type_items(t)));
    case AVK_MAP:
        return gen_fmt(g, "map_%s", gen_tok(g, avk_type_values(t)));
    case AVK_UNION: {
        size_t i, n = avk_type_branch_count(t);
        const char *s = "union";
        if (gen_is_nullable(t, &o, NULL))
            return gen_fmt(g, "nullable_%s", gen_tok(g, o));
        for (i = 0; i < n; i++)
            s = gen_fmt(g, "%s_%s", s, gen_tok(g, avk_type_branch(t, i)));
        return n ? s : "union_empty"; /* "union" alone is a keyword */
    }
    default:
        return avk_kind_name(avk_type_kind(t));
    }
}

const char *gen_tname(gen_ctx *g, const avk_type *t)
{
    switch (avk_type_kind(t)) {
    case AVK_RECORD:
    case AVK_ENUM:
    case AVK_FIXED:
    case AVK_ARRAY:
    case AVK_MAP:
    case AVK_UNION:
        return gen_fmt(g, "%s%s", gen_prefix(g), gen_tok(g, t));
    default:
        return gen_ctype(g, t);
    }
}

const char *gen_ctype(gen_ctx *g, const avk_type *t)
{
    const avk_type *o;
    switch (avk_type_kind(t)) {
    case AVK_NULL: return NULL;
    case AVK_BOOLEAN: return "bool";
    case AVK_INT: return "int32_t";
    case AVK_LONG: return "int64_t";
    case AVK_FLOAT: return "float";
    case AVK_DOUBLE: return "double";
    case AVK_BYTES:
    case AVK_STRING: return "avk_bytes";
    case AVK_UNION:
        if (gen_is_nullable(t, &o, NULL) && avk_type_kind(o) == AVK_RECORD)
            return gen_fmt(g, "%s *", gen_tname(g, o));
        return gen_tname(g, t);
    default:
        return gen_tname(g, t);
    }
}

const char *gen_field_member(gen_ctx *g, const avk_type *rec, size_t i)
{
    return gen_ident(g, avk_field_name(avk_type_field(rec, i)));
}

const char *gen_enum_const(gen_ctx *g, const avk_type *e, size_t i)
{
    return gen_fmt(g, "%s_%s", gen_tname(g, e), gen_ident(g, avk_type_symbol(e, i)));
}

const char *gen_union_const(gen_ctx *g, const avk_type *u, size_t i)
{
    return gen_fmt(g, "%s_%s", gen_tname(g, u), gen_tok(g, avk_type_branch(u, i)));
}

const char *gen_union_member(gen_ctx *g, const avk_type *u, size_t i)
{
    const avk_type *b = avk_type_branch(u, i);
    if (avk_type_kind(b) == AVK_NULL)
        return NULL;
    return gen_ident(g, gen_tok(g, b));
}

const char *gen_label(const avk_type *t)
{
    const char *full = avk_type_fullname(t);
    return full ? full : avk_kind_name(avk_type_kind(t));
}

#define MIN_SIZE_CAP ((unsigned long long)1 << 40)

static unsigned long long min_size_at(const avk_type *t, int depth)
{
    switch (avk_type_kind(t)) {
    case AVK_NULL: return 0;
    case AVK_FLOAT: return 4;
    case AVK_DOUBLE: return 8;
    case AVK_FIXED: return avk_type_fixed_size(t);
    case AVK_RECORD: {
        unsigned long long m = 0;
        size_t i, n = avk_type_field_count(t);
        if (depth > 512) /* a record inside itself by value: refused elsewhere */
            return 0;
        for (i = 0; i < n; i++) {
            m += min_size_at(avk_field_type(avk_type_field(t, i)), depth + 1);
            if (m > MIN_SIZE_CAP)
                m = MIN_SIZE_CAP;
        }
        return m;
    }
    default: return 1;
    }
}

unsigned long long gen_min_size(const avk_type *t)
{
    return min_size_at(t, 0);
}

const char *gen_cstring(gen_ctx *g, const char *s)
{
    size_t n = strlen(s), i, j = 0;
    /* Worst case 4 bytes per byte, quotes, and a break every 200 bytes. */
    char *out = (char *)malloc(n * 4 + n / 50 + 8);
    if (!out)
        return keep(g, NULL);
    out[j++] = '"';
    for (i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (i && i % 200 == 0) {
            /* Adjacent literals: keeps lines short. */
            out[j++] = '"';
            out[j++] = '\n';
            out[j++] = '"';
        }
        if (ch == '"' || ch == '\\') {
            out[j++] = '\\';
            out[j++] = (char)ch;
        } else if (ch == '\n') {
            out[j++] = '\\';
            out[j++] = 'n';
        } else if (ch < 0x20 || ch >= 0x7f || ch == '?') {
            /* octal: no trigraphs, no hex escapes running into digits */
            j += (size_t)sprintf(out + j, "\\%03o", ch);
        } else {
            out[j++] = (char)ch;
        }
    }
    out[j++] = '"';
    out[j] = 0;
    return keep(g, out);
}

/* tok(T), except that a nullable union with null second is told apart from
 * one with null first: both share a C type, but not their code. */
const char *gen_htok(gen_ctx *g, const avk_type *t)
{
    const avk_type *o;
    size_t ni;
    switch (avk_type_kind(t)) {
    case AVK_ARRAY:
        return gen_fmt(g, "array_%s", gen_htok(g, avk_type_items(t)));
    case AVK_MAP:
        return gen_fmt(g, "map_%s", gen_htok(g, avk_type_values(t)));
    case AVK_UNION: {
        size_t i, n = avk_type_branch_count(t);
        const char *s = "union";
        if (gen_is_nullable(t, &o, &ni))
            return gen_fmt(g, "nullable%s_%s", ni ? "1" : "", gen_htok(g, o));
        for (i = 0; i < n; i++)
            s = gen_fmt(g, "%s_%s", s, gen_htok(g, avk_type_branch(t, i)));
        return n ? s : "union_empty";
    }
    default:
        return gen_tok(g, t);
    }
}

const char *gen_helper(gen_ctx *g, const char *family, const avk_type *t)
{
    return gen_fmt(g, "avkgen_%s_%s", family, gen_htok(g, t));
}

/* Height as the plan compiler computes it (avki_plan_mark_flat): leaves 0,
 * a record, union, array or map one more than its highest child; above 4
 * (or recursive) the library walks it with frames, not in place. */
#define FLAT_MAX 4

static unsigned height(const avk_type *t, unsigned depth)
{
    unsigned h = 0, k;
    size_t i, n;
    if (depth > FLAT_MAX + 1)
        return FLAT_MAX + 1;
    switch (avk_type_kind(t)) {
    case AVK_RECORD:
        n = avk_type_field_count(t);
        for (i = 0; i < n; i++) {
            k = height(avk_field_type(avk_type_field(t, i)), depth + 1);
            h = k > h ? k : h;
        }
        break;
    case AVK_UNION:
        n = avk_type_branch_count(t);
        for (i = 0; i < n; i++) {
            k = height(avk_type_branch(t, i), depth + 1);
            h = k > h ? k : h;
        }
        break;
    case AVK_ARRAY:
        h = height(avk_type_items(t), depth + 1);
        break;
    case AVK_MAP:
        h = height(avk_type_values(t), depth + 1);
        break;
    default:
        return 0;
    }
    return h + 1 <= FLAT_MAX ? h + 1 : FLAT_MAX + 1;
}

int gen_walked_as_frame(const avk_type *t)
{
    avk_kind k = avk_type_kind(t);
    if (k != AVK_RECORD && k != AVK_ARRAY && k != AVK_MAP)
        return 0;
    return height(t, 0) > FLAT_MAX;
}
