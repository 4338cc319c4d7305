/* CLI helpers shared by every command: dispatch through a command table, usage errors, options, reading inputs and schemas, opening files, stdout. */
/* POSIX: stat, getpid, clock_gettime (the build is strict C11). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

int avkcli_is_help(const char *arg)
{
    return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

int avkcli_usage_error(const char *prefix, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", prefix);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry '%s --help'.\n", prefix);
    return AVKCLI_USAGE;
}

void avkcli_print_commands(FILE *out, const avkcli_command *cmds, size_t count)
{
    size_t i, width = 0;
    for (i = 0; i < count; i++)
        if (strlen(cmds[i].name) > width)
            width = strlen(cmds[i].name);
    for (i = 0; i < count; i++)
        fprintf(out, "  %-*s  %s\n", (int)width, cmds[i].name, cmds[i].help);
}

int avkcli_dispatch(const char *prefix, const avkcli_command *cmds, size_t count, int argc,
                    char **argv, void (*usage)(FILE *out))
{
    size_t i;
    if (argc < 1) {
        usage(stderr);
        return AVKCLI_USAGE;
    }
    for (i = 0; i < count; i++)
        if (strcmp(argv[0], cmds[i].name) == 0)
            return cmds[i].run(argc, argv);
    if (argv[0][0] == '-')
        return avkcli_usage_error(prefix, "unknown option '%s'", argv[0]);
    return avkcli_usage_error(prefix, "unknown command '%s'", argv[0]);
}

const char *avkcli_display_name(const char *path)
{
    return strcmp(path, "-") == 0 ? "<stdin>" : path;
}

int avkcli_read_input(const char *path, char **data, size_t *len)
{
    const char *name = avkcli_display_name(path);
    int is_stdin = strcmp(path, "-") == 0;
    FILE *fp = is_stdin ? stdin : fopen(path, "rb");
    char *buf = NULL;
    size_t n = 0, cap = 0;
    *data = NULL;
    *len = 0;
    if (!fp) {
        fprintf(stderr, "%s: cannot open: %s\n", name, strerror(errno));
        return AVKCLI_FAIL;
    }
    /* Read in growing chunks (works for pipes, where the size is not known
     * in advance), one byte past the cap so that a larger input is told
     * apart from one exactly at it. */
    for (;;) {
        size_t got;
        if (n == cap) {
            size_t want = cap ? cap * 2 : 64 * 1024;
            char *grown;
            if (want > AVKCLI_MAX_INPUT + 1)
                want = AVKCLI_MAX_INPUT + 1;
            if (want <= cap) {
                fprintf(stderr,
                        "%s: larger than %zu MiB; inputs are read into memory and this "
                        "is the limit\n",
                        name, AVKCLI_MAX_INPUT >> 20);
                free(buf);
                if (!is_stdin)
                    fclose(fp);
                return AVKCLI_FAIL;
            }
            grown = (char *)realloc(buf, want + 1);
            if (!grown) {
                fprintf(stderr, "%s: out of memory reading the input\n", name);
                free(buf);
                if (!is_stdin)
                    fclose(fp);
                return AVKCLI_FAIL;
            }
            buf = grown;
            cap = want;
        }
        got = fread(buf + n, 1, cap - n, fp);
        n += got;
        if (n < cap) { /* a short read: end of input or an error */
            if (ferror(fp)) {
                fprintf(stderr, "%s: read error: %s\n", name, strerror(errno));
                free(buf);
                if (!is_stdin)
                    fclose(fp);
                return AVKCLI_FAIL;
            }
            break;
        }
    }
    if (!is_stdin)
        fclose(fp);
    if (!buf) { /* empty input */
        buf = (char *)malloc(1);
        if (!buf) {
            fprintf(stderr, "%s: out of memory reading the input\n", name);
            return AVKCLI_FAIL;
        }
    }
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return AVKCLI_OK;
}

int avkcli_stdout_open(avk_writer *w)
{
    avk_error err;
    /* Descriptor 1 rather than stdout: nothing else writes to stdout while
     * a writer is open, so the two buffers never interleave. */
    if (avk_writer_init_fd(w, 1, NULL, &err) != AVK_OK) {
        fprintf(stderr, "%s: standard output: %s\n", AVKCLI_PROG, err.message);
        return AVKCLI_FAIL;
    }
    return AVKCLI_OK;
}

int avkcli_stdout_close(avk_writer *w, avk_status st, const avk_error *err)
{
    avk_error ferr;
    int rc = AVKCLI_OK;
    if (st != AVK_OK) {
        fprintf(stderr, "%s: writing standard output: %s\n", AVKCLI_PROG, err->message);
        rc = AVKCLI_FAIL;
    } else if (avk_writer_flush(w, &ferr) != AVK_OK) {
        fprintf(stderr, "%s: writing standard output: %s\n", AVKCLI_PROG, ferr.message);
        rc = AVKCLI_FAIL;
    }
    avk_writer_destroy(w);
    return rc;
}

/* ---- options ------------------------------------------------------------ */

int avkcli_parse_options(const char *prefix, int argc, char **argv, const avkcli_option *opts,
                         size_t nopts, char **pos, size_t *npos, int *help)
{
    int i, options = 1, limits = 0, rc;
    size_t k;
    *npos = 0;
    *help = 0;
    for (k = 0; k < nopts; k++)
        if (strcmp(opts[k].name, AVKCLI_LIMITS_NAME) == 0)
            limits = 1;
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!options || arg[0] != '-' || arg[1] == '\0') {
            pos[(*npos)++] = argv[i];
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            options = 0;
            continue;
        }
        if (avkcli_is_help(arg)) {
            *help = 1;
            return AVKCLI_OK;
        }
        if (limits && avkcli_limit_option(prefix, arg, argc, argv, &i, &rc)) {
            if (rc != AVKCLI_OK)
                return rc;
            continue;
        }
        for (k = 0; k < nopts; k++) {
            const avkcli_option *o = &opts[k];
            size_t n = strlen(o->name);
            const char *inline_value = NULL;
            int match;
            if (!o->value && !o->flag) /* the limits' entry */
                continue;
            match = strcmp(arg, o->name) == 0 ||
                    (o->short_name && arg[1] == o->short_name && arg[2] == '\0');
            if (!match && o->value && strncmp(arg, o->name, n) == 0 && arg[n] == '=') {
                match = 1;
                inline_value = arg + n + 1;
            }
            /* "-j4" as "-j 4", as make and xz take it. */
            if (!match && o->value && o->short_name && arg[1] == o->short_name && arg[2]) {
                match = 1;
                inline_value = arg + 2;
            }
            if (!match)
                continue;
            if (!o->value) {
                *o->flag = 1;
            } else if (inline_value) {
                *o->value = inline_value;
            } else {
                if (i + 1 >= argc)
                    return avkcli_usage_error(prefix, "%s needs a value: %s", o->name, o->what);
                *o->value = argv[++i];
            }
            break;
        }
        if (k == nopts)
            return avkcli_usage_error(prefix, "unknown option '%s'", arg);
    }
    return AVKCLI_OK;
}

int avkcli_parse_u64(const char *prefix, const char *option, const char *text, uint64_t *out)
{
    char *end;
    unsigned long long v;
    if (!text)
        return AVKCLI_OK;
    errno = 0;
    v = strtoull(text, &end, 10);
    if (text[0] < '0' || text[0] > '9' || *end != '\0' || errno == ERANGE)
        return avkcli_usage_error(prefix, "%s wants a non-negative whole number, not '%s'", option,
                                  text);
    *out = (uint64_t)v;
    return AVKCLI_OK;
}

int avkcli_parse_int(const char *prefix, const char *option, const char *text, int *out)
{
    char *end;
    long v;
    if (!text)
        return AVKCLI_OK;
    errno = 0;
    v = strtol(text, &end, 10);
    if (end == text || *end != '\0' || errno == ERANGE || v < -1000000 || v > 1000000)
        return avkcli_usage_error(prefix, "%s wants a whole number, not '%s'", option, text);
    *out = (int)v;
    return AVKCLI_OK;
}

int avkcli_parse_double(const char *prefix, const char *option, const char *text, double lo,
                        double hi, double *out)
{
    char *end;
    double v;
    if (!text)
        return AVKCLI_OK;
    errno = 0;
    v = strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE || !(v >= lo && v <= hi))
        return avkcli_usage_error(prefix, "%s wants a number from %g to %g, not '%s'", option, lo,
                                  hi, text);
    *out = v;
    return AVKCLI_OK;
}

int avkcli_check_level(const char *prefix, avk_codec codec, int level)
{
    avk_buffer buf;
    avk_error err;
    avk_status st;
    if (level == 0 || codec == AVK_CODEC_NULL || codec == AVK_CODEC_SNAPPY)
        return AVKCLI_OK;
    /* The codec itself knows its range: compressing nothing asks it. */
    avk_buffer_init(&buf, NULL);
    st = avk_codec_compress(codec, level, NULL, 0, &buf, &err);
    avk_buffer_destroy(&buf);
    if (st == AVK_ERR_INVALID_ARGUMENT)
        return avkcli_usage_error(prefix, "--level %d: %s", level, err.message);
    return AVKCLI_OK;
}

int avkcli_parse_codec(const char *prefix, const char *text, avk_codec *out)
{
    avk_error err;
    if (!text)
        return AVKCLI_OK;
    if (avk_codec_from_name(text, strlen(text), out, NULL, &err) != AVK_OK)
        return avkcli_usage_error(prefix,
                                  "unknown codec '%s': use null, deflate, snappy, zstandard, "
                                  "bzip2 or xz",
                                  text);
    return AVKCLI_OK;
}

/* ---- files ---------------------------------------------------------------- */

void avkcli_report(const char *path, const avk_error *err)
{
    const char *name = avkcli_display_name(path);
    char num[24];
    const char *flag = err->status == AVK_ERR_LIMIT ? avkcli_limit_flag(err->message) : NULL;
    char hint[64] = "";
    if (flag) /* a limit, not damage: say how to read the file anyway */
        snprintf(hint, sizeof hint, " (a limit, not damage: %s raises it)", flag);
    snprintf(num, sizeof num, "%llu", (unsigned long long)err->offset);
    /* The library's messages usually say where already ("block 3 at byte
     * 197204: ..."); add the offset only when they do not. */
    if (err->offset != AVK_OFFSET_UNKNOWN && !strstr(err->message, num))
        fprintf(stderr, "%s: %s (at byte offset %llu)%s\n", name, err->message,
                (unsigned long long)err->offset, hint);
    else
        fprintf(stderr, "%s: %s%s\n", name, err->message, hint);
}

int avkcli_load_schema_file(const char *path, avk_schema **out)
{
    char *text;
    size_t len;
    avk_error err;
    int rc = avkcli_read_input(path, &text, &len);
    *out = NULL;
    if (rc != AVKCLI_OK)
        return rc;
    if (avk_schema_parse(text, len, NULL, out, &err) != AVK_OK) {
        fprintf(stderr, "%s: %s\n", avkcli_display_name(path), err.message);
        rc = AVKCLI_FAIL;
    }
    free(text);
    return rc;
}

int avkcli_load_schema(const char *arg, avk_schema **out)
{
    struct stat st;
    const char *p = arg;
    avk_error err;
    *out = NULL;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    /* A file that exists is a file, whatever its name looks like. */
    if (strcmp(arg, "-") == 0 || stat(arg, &st) == 0 || (*p != '{' && *p != '[' && *p != '"'))
        return avkcli_load_schema_file(arg, out);
    if (avk_schema_parse(arg, strlen(arg), NULL, out, &err) != AVK_OK) {
        fprintf(stderr, "<schema text>: %s\n", err.message);
        return AVKCLI_FAIL;
    }
    return AVKCLI_OK;
}

int avkcli_load_schema_option(const char *prefix, const char *option, const char *text,
                              const char *file, avk_schema **out)
{
    *out = NULL;
    if (text && file)
        return avkcli_usage_error(prefix, "give %s or %s-file, not both", option, option);
    if (file)
        return avkcli_load_schema_file(file, out);
    return text ? avkcli_load_schema(text, out) : AVKCLI_OK;
}

static void count_problem(void *ctx, const avk_compat_problem *p)
{
    (void)p;
    ++*(size_t *)ctx;
}

static void print_problem(void *ctx, const avk_compat_problem *p)
{
    (void)ctx;
    fprintf(stderr, "  reader %s, writer %s: %s\n", p->reader_path, p->writer_path, p->message);
}

/* After a reader schema failed to resolve: every problem that stops it,
 * from the file's schema (the header is read again, so not for standard
 * input). Returns AVKCLI_OK when they were printed. */
static int print_resolution_problems(const char *path, const avk_file_reader_options *opts)
{
    avk_file_reader_options plain = *opts;
    avk_file_reader *fr;
    const avk_type *w, *r = avk_schema_root(opts->reader_schema);
    size_t n = 0;
    if (strcmp(path, "-") == 0)
        return AVKCLI_FAIL;
    plain.reader_schema = NULL;
    if (avk_file_reader_open_path(path, &plain, &fr, NULL) != AVK_OK)
        return AVKCLI_FAIL;
    w = avk_schema_root(avk_file_reader_schema(fr));
    avk_schema_check_resolvable(w, r, count_problem, &n, NULL);
    if (n > 0) {
        fprintf(stderr, "%s: its schema cannot be read as the reader schema (%zu problem%s):\n",
                path, n, n == 1 ? "" : "s");
        avk_schema_check_resolvable(w, r, print_problem, NULL, NULL);
    }
    avk_file_reader_free(fr);
    return n > 0 ? AVKCLI_OK : AVKCLI_FAIL;
}

int avkcli_reader_open(const char *path, const avk_file_reader_options *opts,
                       avk_file_reader **out)
{
    avk_file_reader_options o;
    avk_error err;
    avk_status st;
    if (opts) {
        o = *opts;
    } else {
        memset(&o, 0, sizeof o);
        o.struct_size = sizeof o;
    }
    avkcli_limits_apply(&o);
    st = avk_file_reader_open_path(path, &o, out, &err);
    if (st == AVK_OK)
        return AVKCLI_OK;
    if (st == AVK_ERR_RESOLUTION && o.reader_schema &&
        print_resolution_problems(path, &o) == AVKCLI_OK)
        return AVKCLI_FAIL;
    avkcli_report(path, &err);
    return AVKCLI_FAIL;
}

int avkcli_check_output(const char *output, char **inputs, size_t ninputs)
{
    struct stat out, in;
    size_t i;
    if (strcmp(output, "-") == 0 || stat(output, &out) != 0)
        return AVKCLI_OK;
    for (i = 0; i < ninputs; i++) {
        if (strcmp(inputs[i], "-") != 0 && stat(inputs[i], &in) == 0 &&
            in.st_dev == out.st_dev && in.st_ino == out.st_ino) {
            fprintf(stderr, "%s: is also an input; writing it would destroy it before it is read\n",
                    output);
            return AVKCLI_FAIL;
        }
    }
    return AVKCLI_OK;
}

uint64_t avkcli_file_size(const char *path)
{
    struct stat st;
    if (strcmp(path, "-") == 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    return (uint64_t)st.st_size;
}

avk_file_meta *avkcli_meta_alloc(const avk_file_reader *fr)
{
    size_t n = fr ? avk_file_reader_meta_count(fr) : 0;
    avk_file_meta *m = (avk_file_meta *)calloc(n ? n : 1, sizeof *m);
    if (!m)
        fprintf(stderr, "%s: out of memory\n", AVKCLI_PROG);
    return m;
}

void avkcli_writer_options(avk_file_writer_options *o, const avk_file_reader *fr,
                           avk_file_meta *meta)
{
    size_t i, n = fr ? avk_file_reader_meta_count(fr) : 0;
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
    o->meta = meta;
    for (i = 0; i < n; i++) {
        const char *key;
        const uint8_t *value;
        size_t len;
        if (!avk_file_reader_meta_at(fr, i, &key, &value, &len) || strncmp(key, "avro.", 5) == 0)
            continue;
        meta[o->meta_count].key = key;
        meta[o->meta_count].value = value;
        meta[o->meta_count].len = len;
        o->meta_count++;
    }
}

char *avkcli_canonical(const avk_type *t)
{
    avk_writer w;
    avk_error err;
    const uint8_t *data;
    size_t len;
    char *s = NULL;
    if (avk_writer_init_memory(&w, NULL, &err) != AVK_OK) {
        fprintf(stderr, "%s: %s\n", AVKCLI_PROG, err.message);
        return NULL;
    }
    if (avk_type_write_canonical(t, &w, &err) != AVK_OK) {
        fprintf(stderr, "%s: %s\n", AVKCLI_PROG, err.message);
    } else {
        data = avk_writer_data(&w, &len);
        s = (char *)malloc(len + 1);
        if (s) {
            memcpy(s, data, len);
            s[len] = '\0';
        } else {
            fprintf(stderr, "%s: out of memory\n", AVKCLI_PROG);
        }
    }
    avk_writer_destroy(&w);
    return s;
}

uint64_t avkcli_random_seed(void)
{
    uint64_t seed = 0;
    struct timespec ts;
    FILE *fp = fopen("/dev/urandom", "rb");
    if (fp) {
        size_t got = fread(&seed, 1, sizeof seed, fp);
        fclose(fp);
        if (got == sizeof seed)
            return seed;
    }
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000007u ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
}
