/* The driver of `avrokit gen --reader`: the reader's own files through gen_run, then one resolving pair of files per writer schema. */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen.h"
#include "gen_main.h"
#include "gen_resolve.h"

/* A parsed schema file. */
typedef struct rfile {
    const char *path;
    char *text;
    avk_schema *schema;
    char *base;
} rfile;

static int load(rfile *f, const char *path, FILE *errs)
{
    FILE *in = fopen(path, "rb");
    size_t n = 0, cap = 0;
    avk_error err;
    f->path = path;
    if (!in) {
        fprintf(errs, "avrokit gen: %s: %s\n", path, strerror(errno));
        return -1;
    }
    for (;;) {
        size_t got;
        if (n + 4097 > cap) {
            char *p = (char *)realloc(f->text, cap ? cap * 2 : 65536);
            if (!p) {
                fclose(in);
                fprintf(errs, "avrokit gen: out of memory\n");
                return -1;
            }
            f->text = p;
            cap = cap ? cap * 2 : 65536;
        }
        got = fread(f->text + n, 1, cap - n - 1, in);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(in)) {
        fprintf(errs, "avrokit gen: %s: %s\n", path, strerror(errno));
        fclose(in);
        return -1;
    }
    fclose(in);
    f->text[n] = 0;
    if (avk_schema_parse(f->text, n, NULL, &f->schema, &err) != AVK_OK) {
        fprintf(errs, "avrokit gen: %s: %s\n", path, err.message);
        return -1;
    }
    f->base = gen_base_name(path);
    if (!f->base) {
        fprintf(errs, "avrokit gen: out of memory\n");
        return -1;
    }
    return 0;
}

/* Writes b to path through a temporary file beside it and a rename, so a
 * reader of DIR never sees half a file. */
static int put(const char *path, const gen_buf *b, FILE *errs)
{
    size_t n = strlen(path) + 16;
    char *t = (char *)malloc(n);
    int fd;
    FILE *f;
    if (!t) {
        fprintf(errs, "avrokit gen: out of memory\n");
        return -1;
    }
    snprintf(t, n, "%s.tmpXXXXXX", path);
    fd = mkstemp(t);
    if (fd < 0) {
        fprintf(errs, "avrokit gen: %s: cannot create a file in its directory: %s\n", path,
                strerror(errno));
        free(t);
        return -1;
    }
    f = fdopen(fd, "wb");
    if (!f || fwrite(b->data, 1, b->len, f) != b->len || fclose(f) != 0 || rename(t, path) != 0) {
        fprintf(errs, "avrokit gen: %s: cannot write: %s\n", path, strerror(errno));
        if (!f)
            close(fd);
        unlink(t);
        free(t);
        return -1;
    }
    free(t);
    return 0;
}

int gen_run_resolving(const gen_opts *opts, const char *reader, char **writers, size_t n,
                      const char *dir, int list, FILE *out, FILE *errs)
{
    rfile r, *w = (rfile *)calloc(n ? n : 1, sizeof *w);
    size_t i, j;
    int rc = 1;
    char *rpath = (char *)malloc(strlen(reader) + 1); /* gen_run takes char ** */
    memset(&r, 0, sizeof r);
    if (rpath)
        memcpy(rpath, reader, strlen(reader) + 1);
    if (!w || !rpath) {
        free(w);
        free(rpath);
        fprintf(errs, "avrokit gen: out of memory\n");
        return 1;
    }
    /* Everything is checked before anything is written: every schema
     * parses, no two writers share a base name, and the library resolves
     * every pair (its message when not). */
    if (load(&r, reader, errs) != 0)
        goto done;
    for (i = 0; i < n; i++) {
        avk_error err;
        if (load(&w[i], writers[i], errs) != 0)
            goto done;
        for (j = 0; j < i; j++)
            if (strcmp(w[j].base, w[i].base) == 0) {
                fprintf(errs, "avrokit gen: %s: its output files %s_from_%s.h/.c would overwrite "
                              "those of %s\n",
                        w[i].path, r.base, w[i].base, w[j].path);
                goto done;
            }
        if (gen_resolve_check(avk_schema_root(w[i].schema), avk_schema_root(r.schema), &err) !=
            AVK_OK) {
            fprintf(errs, "avrokit gen: %s: cannot be read with the reader schema %s: %s\n",
                    w[i].path, r.path, err.message);
            goto done;
        }
    }
    /* The reader's types and functions: the files `avrokit gen READER` writes. */
    if (gen_run(opts, &rpath, 1, dir, list, out, errs) != 0)
        goto done;
    for (i = 0; i < n; i++) {
        const avk_type *root = avk_schema_root(r.schema);
        gen_ctx g;
        gen_resolve_opts ro;
        avk_error err;
        const char *hpath, *cpath, *ctype;
        int bad;
        gen_ctx_init(&g, opts, r.base);
        ro.fn = avk_type_is_named(root) ? gen_tname(&g, root)
                                        : gen_fmt(&g, "%s%s", gen_prefix(&g), r.base);
        ro.wbase = w[i].base;
        ro.reader_header = gen_fmt(&g, "%s.h", r.base);
        ro.pair_header = gen_fmt(&g, "%s_from_%s.h", r.base, w[i].base);
        ro.guard = gen_fmt(&g, "%sAVKGEN_%s_FROM_%s_H", gen_prefix(&g), r.base, w[i].base);
        hpath = gen_fmt(&g, "%s/%s_from_%s.h", dir, r.base, w[i].base);
        cpath = gen_fmt(&g, "%s/%s_from_%s.c", dir, r.base, w[i].base);
        ctype = gen_ctype(&g, root);
        if (gen_resolve_emit(&g, avk_schema_root(w[i].schema), root, &ro, &err) != AVK_OK) {
            fprintf(errs, "avrokit gen: %s: %s\n", w[i].path, err.message);
            gen_ctx_destroy(&g);
            goto done;
        }
        bad = g.h.oom || g.c.oom;
        if (bad)
            fprintf(errs, "avrokit gen: %s: out of memory\n", w[i].path);
        bad = bad || put(hpath, &g.h, errs) != 0 || put(cpath, &g.c, errs) != 0;
        if (!bad && list)
            fprintf(out, "resolve\t%s\t%s\t%s\t%s\t%s\t%s_decode_from_%s\n", w[i].path, r.path, hpath,
                    cpath, ctype ? ctype : ro.fn, ro.fn, w[i].base);
        gen_ctx_destroy(&g);
        if (bad)
            goto done;
    }
    rc = 0;
done:
    for (i = 0; i <= n; i++) {
        rfile *f = i < n ? &w[i] : &r;
        avk_schema_free(f->schema);
        free(f->text);
        free(f->base);
    }
    free(w);
    free(rpath);
    return rc;
}
