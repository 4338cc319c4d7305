/* The driver of `avrokit gen`: parse the schemas, give each named type one home file, emit, write through temp files and rename. */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen.h"
#include "gen_main.h"

/* One schema file of the command line. */
typedef struct gen_file {
    const char *path;
    char *text;
    size_t len;
    avk_schema *schema;
    char *base;
    gen_ctx g;
    gen_unit u;
    const avk_type **own;
    size_t nown, own_cap;
    const char **includes;
    size_t nincludes;
    char *hpath, *cpath;  /* DIR/<base>.h, .c */
} gen_file;

/* A named type's home: the first file that defines it. */
typedef struct home {
    const char *fullname;
    const avk_type *type;
    size_t file;
} home;

typedef struct homes {
    home *v;
    size_t n, cap;
} homes;

static char *read_all(const char *path, size_t *len, char *why, size_t cap)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t n = 0, c = 0;
    if (!f) {
        snprintf(why, cap, "%s", strerror(errno));
        return NULL;
    }
    for (;;) {
        size_t got;
        if (n + 4096 + 1 > c) {
            size_t nc = c ? c * 2 : 65536;
            char *p = (char *)realloc(buf, nc);
            if (!p) {
                snprintf(why, cap, "out of memory");
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = p;
            c = nc;
        }
        got = fread(buf + n, 1, c - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        snprintf(why, cap, "%s", strerror(errno));
        free(buf);
        fclose(f);
        return NULL;
    }
    fclose(f);
    buf[n] = 0;
    *len = n;
    return buf;
}

static long find_home(const homes *h, const char *fullname)
{
    size_t i;
    for (i = 0; i < h->n; i++)
        if (strcmp(h->v[i].fullname, fullname) == 0)
            return (long)i;
    return -1;
}

static int add_own(gen_file *f, const avk_type *t)
{
    if (f->nown == f->own_cap) {
        size_t nc = f->own_cap ? f->own_cap * 2 : 16;
        const avk_type **p = (const avk_type **)realloc((void *)f->own, nc * sizeof *p);
        if (!p)
            return -1;
        f->own = p;
        f->own_cap = nc;
    }
    f->own[f->nown++] = t;
    return 0;
}

/* Named types of t (visited once each), given homes. */
static int claim(gen_file *files, size_t fi, homes *h, const avk_type *t, int depth, char *msg,
                 size_t cap)
{
    size_t i, n;
    if (depth > 1000)
        return 0;
    if (avk_type_is_named(t)) {
        long at = find_home(h, avk_type_fullname(t));
        if (at >= 0) {
            if (h->v[at].type == t)
                return 0; /* seen in this file already */
            if (h->v[at].file == fi)
                return 0;
            if (!avk_type_equal(h->v[at].type, t)) {
                snprintf(msg, cap, "named type %s differs from its definition in %s",
                         avk_type_fullname(t), files[h->v[at].file].path);
                return -1;
            }
            return 0; /* defined in an earlier file: included from there */
        }
        if (h->n == h->cap) {
            size_t nc = h->cap ? h->cap * 2 : 64;
            home *p = (home *)realloc(h->v, nc * sizeof *p);
            if (!p) {
                snprintf(msg, cap, "out of memory");
                return -1;
            }
            h->v = p;
            h->cap = nc;
        }
        h->v[h->n].fullname = avk_type_fullname(t);
        h->v[h->n].type = t;
        h->v[h->n].file = fi;
        h->n++;
        if (add_own(&files[fi], t) != 0) {
            snprintf(msg, cap, "out of memory");
            return -1;
        }
    }
    switch (avk_type_kind(t)) {
    case AVK_RECORD:
        n = avk_type_field_count(t);
        for (i = 0; i < n; i++)
            if (claim(files, fi, h, avk_field_type(avk_type_field(t, i)), depth + 1, msg, cap) != 0)
                return -1;
        return 0;
    case AVK_ARRAY:
        return claim(files, fi, h, avk_type_items(t), depth + 1, msg, cap);
    case AVK_MAP:
        return claim(files, fi, h, avk_type_values(t), depth + 1, msg, cap);
    case AVK_UNION:
        n = avk_type_branch_count(t);
        for (i = 0; i < n; i++)
            if (claim(files, fi, h, avk_type_branch(t, i), depth + 1, msg, cap) != 0)
                return -1;
        return 0;
    default:
        return 0;
    }
}

static char *join(const char *dir, const char *base, const char *ext)
{
    size_t n = strlen(dir) + strlen(base) + strlen(ext) + 2;
    char *s = (char *)malloc(n);
    if (s)
        snprintf(s, n, "%s/%s%s", dir, base, ext);
    return s;
}

/* Writes data to a temporary file beside path; *tmp gets its name. */
static int write_temp(const char *path, const gen_buf *b, char **tmp, char *why, size_t cap)
{
    size_t n = strlen(path) + 16;
    char *t = (char *)malloc(n);
    int fd;
    FILE *f;
    *tmp = NULL;
    if (!t) {
        snprintf(why, cap, "out of memory");
        return -1;
    }
    snprintf(t, n, "%s.tmpXXXXXX", path);
    fd = mkstemp(t);
    if (fd < 0) {
        snprintf(why, cap, "cannot create a file in its directory: %s", strerror(errno));
        free(t);
        return -1;
    }
    f = fdopen(fd, "wb");
    if (!f || fwrite(b->data, 1, b->len, f) != b->len || fclose(f) != 0) {
        snprintf(why, cap, "cannot write: %s", strerror(errno));
        if (!f)
            close(fd);
        unlink(t);
        free(t);
        return -1;
    }
    *tmp = t;
    return 0;
}

static void free_files(gen_file *files, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        gen_ctx_destroy(&files[i].g);
        avk_schema_free(files[i].schema);
        free(files[i].text);
        free(files[i].base);
        free((void *)files[i].own);
        free((void *)files[i].includes);
        free((void *)files[i].u.all);
        free(files[i].hpath);
        free(files[i].cpath);
    }
    free(files);
}

int gen_run(const gen_opts *opts, char **schemas, size_t n, const char *dir, int list, FILE *out,
            FILE *errs)
{
    gen_file *files = (gen_file *)calloc(n ? n : 1, sizeof *files);
    homes h = {NULL, 0, 0};
    char msg[512];
    char **tmps = NULL;
    size_t i, j;
    int rc = 1;
    if (!files) {
        fprintf(errs, "avrokit gen: out of memory\n");
        return 1;
    }
    /* 1. Parse every schema. */
    for (i = 0; i < n; i++) {
        gen_file *f = &files[i];
        avk_error err;
        f->path = schemas[i];
        f->text = read_all(f->path, &f->len, msg, sizeof msg);
        if (!f->text) {
            fprintf(errs, "avrokit gen: %s: %s\n", f->path, msg);
            goto done;
        }
        if (avk_schema_parse(f->text, f->len, NULL, &f->schema, &err) != AVK_OK) {
            fprintf(errs, "avrokit gen: %s: %s\n", f->path, err.message);
            goto done;
        }
        f->base = gen_base_name(f->path);
        f->hpath = f->base ? join(dir, f->base, ".h") : NULL;
        f->cpath = f->base ? join(dir, f->base, ".c") : NULL;
        if (!f->base || !f->hpath || !f->cpath) {
            fprintf(errs, "avrokit gen: out of memory\n");
            goto done;
        }
        for (j = 0; j < i; j++)
            if (strcmp(files[j].base, f->base) == 0) {
                fprintf(errs, "avrokit gen: %s: its output files %s.h/.c would overwrite those of %s\n",
                        f->path, f->base, files[j].path);
                goto done;
            }
        gen_ctx_init(&f->g, opts, f->base);
    }
    /* 2. Homes of named types, in command-line order. */
    for (i = 0; i < n; i++)
        if (claim(files, i, &h, avk_schema_root(files[i].schema), 0, msg, sizeof msg) != 0) {
            fprintf(errs, "avrokit gen: %s: %s\n", files[i].path, msg);
            goto done;
        }
    /* 3. Emit. */
    for (i = 0; i < n; i++) {
        gen_file *f = &files[i];
        gen_unit *u = &f->u;
        const avk_type *root = avk_schema_root(f->schema);
        u->root = root;
        u->own = f->own;
        u->nown = f->nown;
        u->schema_json = f->text;
        u->fn = avk_type_is_named(root) ? gen_tname(&f->g, root)
                                        : gen_ident(&f->g, gen_fmt(&f->g, "%s%s", gen_prefix(&f->g),
                                                                   f->base));
        if (gen_collect(&f->g, u, msg, sizeof msg) != 0) {
            fprintf(errs, "avrokit gen: %s: %s\n", f->path, msg);
            goto done;
        }
        u->root_ctype = gen_ctype(&f->g, root);
        /* Headers of the files that define the named types used here. */
        f->includes = (const char **)calloc(u->nall + 1, sizeof *f->includes);
        if (!f->includes) {
            fprintf(errs, "avrokit gen: out of memory\n");
            goto done;
        }
        for (j = 0; j < u->nall; j++) {
            const avk_type *t = u->all[j];
            long at;
            size_t k;
            const char *inc;
            if (!avk_type_is_named(t))
                continue;
            at = find_home(&h, avk_type_fullname(t));
            if (at < 0 || h.v[at].file == i)
                continue;
            inc = gen_fmt(&f->g, "%s.h", files[h.v[at].file].base);
            for (k = 0; k < f->nincludes; k++)
                if (strcmp(f->includes[k], inc) == 0)
                    break;
            if (k == f->nincludes)
                f->includes[f->nincludes++] = inc;
        }
        u->includes = f->includes;
        u->nincludes = f->nincludes;
        if (gen_emit_header(&f->g, u, msg, sizeof msg) != 0) {
            fprintf(errs, "avrokit gen: %s: %s\n", f->path, msg);
            goto done;
        }
        gen_emit_source(&f->g, u);
        if (f->g.h.oom || f->g.c.oom) {
            fprintf(errs, "avrokit gen: %s: out of memory\n", f->path);
            goto done;
        }
    }
    /* 4. Write: every temporary file first, then the renames. */
    tmps = (char **)calloc(2 * n + 1, sizeof *tmps);
    if (!tmps) {
        fprintf(errs, "avrokit gen: out of memory\n");
        goto done;
    }
    for (i = 0; i < n; i++) {
        if (write_temp(files[i].hpath, &files[i].g.h, &tmps[2 * i], msg, sizeof msg) != 0) {
            fprintf(errs, "avrokit gen: %s: %s\n", files[i].hpath, msg);
            goto done;
        }
        if (write_temp(files[i].cpath, &files[i].g.c, &tmps[2 * i + 1], msg, sizeof msg) != 0) {
            fprintf(errs, "avrokit gen: %s: %s\n", files[i].cpath, msg);
            goto done;
        }
    }
    for (i = 0; i < 2 * n; i++) {
        const char *dst = i % 2 ? files[i / 2].cpath : files[i / 2].hpath;
        if (rename(tmps[i], dst) != 0) {
            fprintf(errs, "avrokit gen: %s: cannot rename into place: %s\n", dst, strerror(errno));
            goto done;
        }
        free(tmps[i]);
        tmps[i] = NULL;
    }
    if (list)
        for (i = 0; i < n; i++)
            fprintf(out, "%s\t%s\t%s\t%s\t%s\n", files[i].path, files[i].hpath, files[i].cpath,
                    files[i].u.root_ctype ? files[i].u.root_ctype : files[i].u.fn, files[i].u.fn);
    rc = 0;
done:
    if (tmps) {
        for (i = 0; i < 2 * n; i++)
            if (tmps[i]) {
                unlink(tmps[i]);
                free(tmps[i]);
            }
        free(tmps);
    }
    free(h.v);
    free_files(files, n);
    return rc;
}
