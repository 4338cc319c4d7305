/* CLI helpers shared by every command: dispatch through a command table, usage errors, reading inputs, stdout. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
