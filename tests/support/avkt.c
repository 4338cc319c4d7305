/* Shared helpers for the cmocka suites. */
#include "avkt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static uint64_t value_of_length(avkt_rng *r, unsigned len)
{
    /* The zigzag value u has length len when 2^(7(len-1)) <= u < 2^(7 len). */
    uint64_t lo = len == 1 ? 0 : 1ULL << (7 * (len - 1));
    uint64_t span = len >= 10 ? 0 - lo : (1ULL << (7 * len)) - lo;
    return lo + avkt_below(r, span);
}

int64_t avkt_mixed_long(avkt_rng *r)
{
    unsigned len = 1 + (unsigned)avkt_below(r, 10);
    return avk_zigzag_decode64(value_of_length(r, len));
}

int32_t avkt_mixed_int(avkt_rng *r)
{
    unsigned len = 1 + (unsigned)avkt_below(r, 5);
    uint64_t u;
    if (len == 5) /* 5-byte ints stop at 32 bits */
        u = (1ULL << 28) + avkt_below(r, (1ULL << 32) - (1ULL << 28));
    else
        u = value_of_length(r, len);
    return avk_zigzag_decode32((uint32_t)u);
}

void avkt_test_kernel_choice(void **state)
{
    const char *want = getenv("AVK_KERNEL");
    const char *got = avk_kernel_name();
    size_t i, count = avk_kernel_count(), first = count, wanted = count;
    (void)state;
    for (i = 0; i < count; i++) {
        if (first == count && avk_kernel_runnable_at(i))
            first = i;
        if (want && strcmp(avk_kernel_name_at(i), want) == 0)
            wanted = i;
    }
    assert_true(first < count);
    if (wanted < count && avk_kernel_runnable_at(wanted))
        assert_string_equal(got, want);
    else
        assert_string_equal(got, avk_kernel_name_at(first));
    print_message("kernel in use: %s (AVK_KERNEL=%s)\n", got, want ? want : "(unset)");
}

const char *avkt_q(const char *sq)
{
    static char *bufs[2];
    static int next;
    size_t n = strlen(sq), i;
    char *b;
    next ^= 1;
    free(bufs[next]);
    b = bufs[next] = (char *)malloc(n + 1);
    assert_non_null(b);
    for (i = 0; i <= n; i++)
        b[i] = sq[i] == '\'' ? '"' : sq[i];
    return b;
}

avk_schema *avkt_parse_at(const char *json, size_t len, const char *file, int line)
{
    avk_schema *s = NULL;
    avk_error err;
    avk_status st;
    memset(&err, 0, sizeof err);
    st = avk_schema_parse(json, len, NULL, &s, &err);
    if (st != AVK_OK)
        fail_msg("%s:%d: schema parse returned %s: %s\n  schema: %.300s", file, line,
                 avk_status_name(st), err.message, json);
    assert_non_null(s);
    return s;
}

avk_plan *avkt_plan_new(const avk_type *t, unsigned flags, const avk_limits *limits,
                        size_t block_items)
{
    avk_plan_options o;
    avk_plan *p = NULL;
    avk_error err;
    avk_status st;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.flags = flags;
    if (limits)
        o.limits = *limits;
    o.block_items = block_items;
    st = avk_plan_new(t, &o, &p, &err);
    if (st != AVK_OK)
        fail_msg("avk_plan_new returned %s: %s", avk_status_name(st), err.message);
    assert_non_null(p);
    return p;
}

size_t avkt_hex_decode(const char *hex, uint8_t *out, size_t cap)
{
    size_t n = strlen(hex), i;
    if (n % 2 != 0 || n / 2 > cap)
        return (size_t)-1;
    for (i = 0; i < n; i++) {
        char c = hex[i];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0)
            return (size_t)-1;
        if (i % 2 == 0)
            out[i / 2] = (uint8_t)(d << 4);
        else
            out[i / 2] |= (uint8_t)d;
    }
    return n / 2;
}

size_t avkt_unhex(const char *hex, uint8_t *out, size_t cap)
{
    size_t n = avkt_hex_decode(hex, out, cap);
    if (n == (size_t)-1)
        fail_msg("not hex of at most %zu bytes: %.200s", cap, hex);
    return n;
}

static void hex_spaced(char *out, size_t cap, const uint8_t *p, size_t n)
{
    size_t i, used = 0;
    out[0] = 0;
    for (i = 0; i < n && used + 4 < cap; i++)
        used += (size_t)snprintf(out + used, cap - used, "%02x ", p[i]);
}

void avkt_assert_bytes(const uint8_t *got, size_t got_len, const uint8_t *want, size_t want_len)
{
    if (got_len != want_len || (want_len && memcmp(got, want, want_len) != 0)) {
        char a[1024], b[1024];
        hex_spaced(a, sizeof a, got, got_len);
        hex_spaced(b, sizeof b, want, want_len);
        fail_msg("bytes differ:\n got  (%zu) %s\n want (%zu) %s", got_len, a, want_len, b);
    }
}

char *avkt_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;
    if (!f)
        return NULL;
    n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (n < 0 || fseek(f, 0, SEEK_SET) != 0)
        fail_msg("%s: cannot tell the file's size", path);
    buf = (char *)malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    if (len)
        *len = (size_t)n;
    return buf;
}

int avkt_interop_available(const char *dir, const char *relative)
{
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/apache/%s", dir, relative);
    if (dir[0] && stat(path, &st) == 0)
        return 1;
    print_message("SKIPPED: interop data %s not found (AVK_INTEROP_DIR=\"%s\")\n", relative, dir);
    return 0;
}

char *avkt_interop_read(const char *dir, const char *relative, size_t *len)
{
    char path[4096];
    char *text;
    if (!avkt_interop_available(dir, relative))
        return NULL;
    snprintf(path, sizeof path, "%s/apache/%s", dir, relative);
    text = avkt_read_file(path, len);
    if (!text)
        fail_msg("%s: cannot open", path);
    return text;
}

const char *avkt_wide_varint_schema(void)
{
    static char js[4096];
    int used = snprintf(js, sizeof js, "{\"type\":\"record\",\"name\":\"W\",\"fields\":[");
    size_t i;
    for (i = 0; i < 40; i++)
        used += snprintf(js + used, sizeof js - (size_t)used, "%s{\"name\":\"f%zu\",\"type\":\"%s\"}",
                         i ? "," : "", i, i == 35 ? "string" : i % 3 == 1 ? "int" : "long");
    snprintf(js + used, sizeof js - (size_t)used, "]}");
    return js;
}

/* One ".kind[N]" segment of an index path at *p: its kind and number. */
static int path_segment(const char **p, char *kind, size_t cap, unsigned long long *n)
{
    const char *s = *p, *open, *close;
    char *endp;
    if (*s != '.')
        return 0;
    open = strchr(s, '[');
    close = open ? strchr(open, ']') : NULL;
    if (!open || !close || (size_t)(open - s - 1) >= cap)
        return 0;
    memcpy(kind, s + 1, (size_t)(open - s - 1));
    kind[open - s - 1] = 0;
    *n = strtoull(open + 1, &endp, 10);
    if (endp != close)
        return 0;
    *p = close + 1;
    return 1;
}

int avkt_named_path(const avk_type *root, const char *path, char *out, size_t cap)
{
    const char *label = avk_type_fullname(root) ? avk_type_fullname(root)
                                                 : avk_kind_name(avk_type_kind(root));
    const avk_type *t = root;
    size_t len = strlen(label);
    char kind[32];
    unsigned long long n;
    if (strncmp(path, label, len) != 0 || len + 1 > cap)
        return 0;
    memcpy(out, label, len + 1);
    path += len;
    while (*path) {
        char seg[160];
        if (!path_segment(&path, kind, sizeof kind, &n) || !t)
            return 0;
        if (strcmp(kind, "fields") == 0 && avk_type_kind(t) == AVK_RECORD &&
            n < avk_type_field_count(t)) {
            snprintf(seg, sizeof seg, ".%s", avk_field_name(avk_type_field(t, (size_t)n)));
            t = avk_field_type(avk_type_field(t, (size_t)n));
        } else if (strcmp(kind, "items") == 0 && avk_type_kind(t) == AVK_ARRAY) {
            snprintf(seg, sizeof seg, "[%llu]", n);
            t = avk_type_items(t);
        } else if ((strcmp(kind, "values") == 0 || strcmp(kind, "keys") == 0) &&
                   avk_type_kind(t) == AVK_MAP) {
            snprintf(seg, sizeof seg, ".%s[%llu]", kind, n);
            t = kind[0] == 'v' ? avk_type_values(t) : NULL;
        } else if (strcmp(kind, "branch") == 0 && avk_type_kind(t) == AVK_UNION &&
                   n < avk_type_branch_count(t)) {
            snprintf(seg, sizeof seg, ".branch[%llu]", n);
            t = avk_type_branch(t, (size_t)n);
        } else {
            return 0; /* writer_field, writer_branch: the reader's schema cannot say */
        }
        if (strlen(out) + strlen(seg) + 1 > cap)
            return 0;
        strcat(out, seg);
    }
    return 1;
}

void avkt_check_message_path(const avk_type *root, const avk_error *err)
{
    char named[AVK_ERROR_MESSAGE_MAX];
    size_t plen;
    if (!avkt_named_path(root, err->path, named, sizeof named))
        return;
    plen = strlen(named);
    if (strncmp(err->message, named, plen) != 0 || strncmp(err->message + plen, ": ", 2) != 0)
        fail_msg("message \"%s\" does not start with \"%s: \" (err.path \"%s\")", err->message,
                 named, err->path);
}
