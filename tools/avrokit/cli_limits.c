/* CLI limit options (--max-depth, --max-bytes, ...): parsed once for the command, applied to every file it opens, named again when a file hits one. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* What the command line set; zeros keep the library's defaults. */
static avk_file_reader_options given;

enum { DEPTH, BYTES, ITEMS, EMPTY, MEMORY, BLOCK, HEADER };

static const struct {
    const char *option;
    int which;
    const char *names[2]; /* the limit's names in the library's messages */
} limits[] = {
    {"--max-depth", DEPTH, {"max_depth", NULL}},
    {"--max-bytes", BYTES, {"max_bytes", NULL}},
    {"--max-items", ITEMS, {"max_items", NULL}},
    {"--max-empty-items", EMPTY, {"max_empty_items", NULL}},
    {"--max-memory", MEMORY, {"max_memory", NULL}},
    {"--max-block-bytes", BLOCK, {"max_block_bytes", "max_block_data"}},
    {"--max-header-bytes", HEADER, {"max_header_bytes", NULL}},
};
#define NLIMITS (sizeof limits / sizeof limits[0])

/* A whole number, optionally times 1024^k for a suffix K, M, G, T (KiB,
 * MiB, GiB, TiB too). */
static int parse_size(const char *text, uint64_t *out)
{
    static const char units[] = "KMGT";
    char *end;
    unsigned long long v;
    const char *u;
    int shift = 0;
    if (text[0] < '0' || text[0] > '9')
        return 0;
    errno = 0;
    v = strtoull(text, &end, 10);
    if (errno == ERANGE)
        return 0;
    if (*end) {
        u = strchr(units, end[0] >= 'a' ? end[0] - 'a' + 'A' : end[0]);
        if (!u || !*u || (end[1] && strcmp(end + 1, "iB") != 0))
            return 0;
        shift = 10 * (int)(u - units + 1);
        if (v > (UINT64_MAX >> shift))
            return 0;
    }
    *out = (uint64_t)v << shift;
    return 1;
}

int avkcli_limit_option(const char *prefix, const char *arg, int argc, char **argv, int *i,
                        int *rc)
{
    size_t k, n;
    const char *value = NULL;
    uint64_t v;
    for (k = 0; k < NLIMITS; k++) {
        n = strlen(limits[k].option);
        if (strncmp(arg, limits[k].option, n) == 0 && (arg[n] == '\0' || arg[n] == '='))
            break;
    }
    if (k == NLIMITS)
        return 0;
    if (arg[n] == '=') {
        value = arg + n + 1;
    } else if (*i + 1 < argc) {
        value = argv[++*i];
    } else {
        *rc = avkcli_usage_error(prefix, "%s needs a value: a number (0: the default)",
                                 limits[k].option);
        return 1;
    }
    if (!parse_size(value, &v)) {
        *rc = avkcli_usage_error(prefix,
                                 "%s wants a non-negative whole number (K, M, G or T may follow), "
                                 "not '%s'",
                                 limits[k].option, value);
        return 1;
    }
    switch (limits[k].which) {
    case DEPTH:
        given.limits.max_depth = v > SIZE_MAX ? SIZE_MAX : (size_t)v;
        break;
    case BYTES:
        given.limits.max_bytes = v;
        break;
    case ITEMS:
        given.limits.max_items = v;
        break;
    case EMPTY:
        given.limits.max_empty_items = v;
        break;
    case MEMORY:
        given.limits.max_memory = v;
        break;
    case BLOCK:
        given.max_block_bytes = given.max_block_data = v;
        break;
    default:
        given.max_header_bytes = v;
        break;
    }
    *rc = AVKCLI_OK;
    return 1;
}

void avkcli_limits_apply(avk_file_reader_options *o)
{
#define FILL(field)                                                                            \
    do {                                                                                       \
        if (!o->field)                                                                         \
            o->field = given.field;                                                            \
    } while (0)
    FILL(limits.max_depth);
    FILL(limits.max_bytes);
    FILL(limits.max_items);
    FILL(limits.max_empty_items);
    FILL(limits.max_memory);
    FILL(max_block_bytes);
    FILL(max_block_data);
    FILL(max_header_bytes);
#undef FILL
}

/* 1 when name occurs in message as a whole word (max_items is not found
 * in max_empty_items). */
static int names(const char *message, const char *name)
{
    size_t n = strlen(name);
    const char *p;
    for (p = strstr(message, name); p; p = strstr(p + 1, name)) {
        char before = p == message ? ' ' : p[-1], after = p[n];
        if (before != '_' && !(before >= 'a' && before <= 'z') && after != '_' &&
            !(after >= 'a' && after <= 'z'))
            return 1;
    }
    return 0;
}

const char *avkcli_limit_flag(const char *message)
{
    size_t k, j;
    for (k = 0; k < NLIMITS; k++)
        for (j = 0; j < 2 && limits[k].names[j]; j++)
            if (names(message, limits[k].names[j]))
                return limits[k].option;
    return NULL;
}
