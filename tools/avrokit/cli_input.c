/* CLI input read piece by piece (cli_input.h): buffering, line and column, and the next JSON value, for fromjson, frame and unframe. */
/* POSIX: open, read (the build is strict C11). */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_input.h"

/* The read buffer's first size; it doubles while what is pending needs
 * more (up to the bound fill is given). */
#define FIRST_BUFFER (64 * 1024)

/* A value's text when --max-memory does not bound it: its parse takes at
 * least its size from the arena, which max_memory bounds anyway. */
#define DEFAULT_MAX_TEXT ((uint64_t)1 << 30)

int avkcli_input_open(avkcli_input *in, const char *path)
{
    memset(in, 0, sizeof *in);
    in->name = path;
    in->line = in->column = 1;
    in->first_need = FIRST_BUFFER;
    in->words = AVKCLI_INPUT_WORDS_MESSAGE;
    in->fd = strcmp(path, "-") == 0 ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (in->fd < 0) {
        fprintf(stderr, "%s: cannot open: %s\n", path, strerror(errno));
        return AVKCLI_FAIL;
    }
    return AVKCLI_OK;
}

void avkcli_input_close(avkcli_input *in)
{
    if (in->fd > STDIN_FILENO)
        close(in->fd);
    free(in->buf);
    in->buf = NULL;
}

void avkcli_input_consume(avkcli_input *in, size_t n)
{
    const char *p = in->buf + in->start, *end = p + n, *nl;
    while ((nl = (const char *)memchr(p, '\n', (size_t)(end - p))) != NULL) {
        in->line++;
        in->column = 1;
        p = nl + 1;
    }
    in->column += (uint64_t)(end - p);
    in->offset += n;
    in->start += n;
}

/* What is pending is more than max. */
static void report_too_long(const avkcli_input *in, uint64_t max, const char *what)
{
    if (in->words == AVKCLI_INPUT_WORDS_FROMJSON)
        fprintf(stderr,
                "%s: line %llu, column %llu: a value of more than %llu bytes of text (see "
                "--max-memory)\n",
                avkcli_display_name(in->name), (unsigned long long)in->line,
                (unsigned long long)in->column, (unsigned long long)max);
    else
        fprintf(stderr, "%s: line %llu: %s of more than %llu bytes (see --max-message)\n",
                avkcli_display_name(in->name), (unsigned long long)in->line, what,
                (unsigned long long)max);
}

/* No memory for a buffer that holds more than pending bytes. */
static void report_no_memory(const avkcli_input *in, size_t pending, const char *what)
{
    if (in->words == AVKCLI_INPUT_WORDS_FROMJSON)
        fprintf(stderr, "%s: out of memory for a value of %zu bytes of text\n",
                avkcli_display_name(in->name), pending);
    else
        fprintf(stderr, "%s: out of memory for %s of %zu bytes\n",
                avkcli_display_name(in->name), what, pending);
}

/* Twice what is pending, so that a value that takes many reads is looked
 * at again only a logarithmic number of times. */
int avkcli_input_fill(avkcli_input *in, uint64_t max, const char *what)
{
    size_t pending = in->end - in->start, need = pending ? 2 * pending : in->first_need;
    if (in->start) {
        memmove(in->buf, in->buf + in->start, pending);
        in->start = 0;
        in->end = pending;
    }
    if (pending > max) {
        report_too_long(in, max, what);
        return AVKCLI_FAIL;
    }
    if (need > in->cap) {
        size_t cap = in->cap ? in->cap : FIRST_BUFFER;
        char *nb;
        while (cap < need)
            cap *= 2;
        nb = (char *)realloc(in->buf, cap);
        if (!nb) {
            report_no_memory(in, pending, what);
            return AVKCLI_FAIL;
        }
        in->buf = nb;
        in->cap = cap;
    }
    while (in->end < need && !in->eof) {
        ssize_t n = read(in->fd, in->buf + in->end, in->cap - in->end);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            fprintf(stderr, "%s: read error: %s\n", avkcli_display_name(in->name),
                    strerror(errno));
            return AVKCLI_FAIL;
        }
        if (n == 0)
            in->eof = 1;
        in->end += (size_t)n;
    }
    return AVKCLI_OK;
}

int avkcli_input_ready(const avkcli_input *in)
{
    struct pollfd p;
    p.fd = in->fd;
    p.events = POLLIN;
    p.revents = 0;
    /* A regular file is always ready; a pipe or terminal when bytes (or
     * its end) are there now. */
    return poll(&p, 1, 0) > 0;
}

int avkcli_input_read_piece(avkcli_input *in, char *buf, size_t size, size_t *n)
{
    for (;;) {
        ssize_t got = read(in->fd, buf, size);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            fprintf(stderr, "%s: read error: %s\n", avkcli_display_name(in->name),
                    strerror(errno));
            return AVKCLI_FAIL;
        }
        *n = (size_t)got;
        return AVKCLI_OK;
    }
}

int avkcli_input_next_json(avkcli_input *in, const avk_type *type, avk_json_read_options *o,
                           avk_arena *arena, avk_value *v, int *got, int *bad_value,
                           avk_error *err)
{
    uint64_t max_text = o->limits.max_memory ? o->limits.max_memory : DEFAULT_MAX_TEXT;
    int rc;
    *got = 0;
    *bad_value = 0;
    /* The first call reads the first piece (no buffer yet). */
    if (!in->buf && (rc = avkcli_input_fill(in, max_text, "a value's text")) != AVKCLI_OK)
        return rc;
    for (;;) {
        size_t used;
        avk_status st;
        o->flags = AVK_JSON_FIRST_VALUE | (in->eof ? AVK_JSON_LAST_TEXT : 0);
        o->offset = in->offset;
        o->line = in->line;
        o->column = in->column;
        st = avk_value_read_json_opts(type, in->buf + in->start, in->end - in->start, o, arena,
                                      v, &used, err);
        if (st == AVK_ERR_TRUNCATED) {
            avkcli_input_consume(in, used); /* white space */
            if (in->eof)
                return AVKCLI_OK; /* nothing but white space was left */
            if ((rc = avkcli_input_fill(in, max_text, "a value's text")) != AVKCLI_OK)
                return rc;
            /* The cut-short value's parse is thrown away, to be read again. */
            avk_arena_reset(arena);
            continue;
        }
        if (st != AVK_OK) {
            *bad_value = 1;
            return AVKCLI_FAIL;
        }
        avkcli_input_consume(in, used);
        *got = 1;
        return AVKCLI_OK;
    }
}

void avkcli_input_print_json_error(const avkcli_input *in, const avk_error *err)
{
    const char *msg = err->message;
    const char *at = err->path[0] ? strstr(msg, ": line ") : NULL;
    const char *rest = at ? strstr(at + 2, ": ") : NULL;
    if (rest)
        fprintf(stderr, "%s: %.*s: %.*s: %s\n", avkcli_display_name(in->name),
                (int)(rest - (at + 2)), at + 2, (int)(at - msg), msg, rest + 2);
    else
        fprintf(stderr, "%s: %s\n", avkcli_display_name(in->name), msg);
}
