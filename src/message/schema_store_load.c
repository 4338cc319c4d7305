/* The file-backed schema store: a directory of ID.avsc files, or one JSON file of schemas, added to a store. */
#define _GNU_SOURCE /* O_CLOEXEC, DIR */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "avrokit/message.h"
#include "avrokit/writer.h"
#include "common/arena.h"
#include "common/error.h"
#include "json/json.h"
#include "message/message_internal.h"

/* ---- reading a file whole ---------------------------------------------- */

typedef struct text_buf {
    char *data;
    size_t len;
    size_t cap; /* bytes allocated */
} text_buf;

static void text_free(const avk_allocator *a, text_buf *t)
{
    if (t->data)
        a->free(a->ctx, t->data, t->cap);
    memset(t, 0, sizeof *t);
}

/* Reads path whole into t (from the store's allocator), refusing files of
 * more than max bytes before holding them: the size a stat gives is only a
 * first guess (the file may grow, or be a pipe), so reading stops at max + 1. */
static avk_status read_whole(const avk_allocator *a, const char *path, size_t max, int regular_only,
                             text_buf *t, int *skipped, avk_error *err)
{
    struct stat sb;
    size_t want;
    int fd, e, have_stat;
    memset(t, 0, sizeof *t);
    *skipped = 0;
    /* In a directory only regular files are schemas: a FIFO or device
     * named 5.avsc is skipped, never opened for a read that could block
     * forever (O_NONBLOCK: even the open of a FIFO would wait). A file the
     * caller names may be a pipe (process substitution): read as given. */
    do {
        fd = open(path, O_RDONLY | O_CLOEXEC | (regular_only ? O_NONBLOCK : 0));
    } while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return avki_error_errno(err, errno, "cannot open %s", path);
    have_stat = fstat(fd, &sb) == 0;
    if (regular_only) {
        if (!have_stat || !S_ISREG(sb.st_mode)) {
            close(fd);
            *skipped = 1;
            return AVK_OK;
        }
        (void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    }
    want = 4096;
    if (have_stat && S_ISREG(sb.st_mode) && sb.st_size > 0) {
        if ((uint64_t)sb.st_size > (uint64_t)max) {
            close(fd);
            return avki_error_set(err, AVK_ERR_LIMIT, AVK_OFFSET_UNKNOWN,
                                  "%s: %" PRIu64 " bytes, more than the %zu a schema may take",
                                  path, (uint64_t)sb.st_size, max);
        }
        want = (size_t)sb.st_size + 1; /* + 1: the read that sees the end */
    }
    for (;;) {
        ssize_t got;
        if (t->len == t->cap) {
            size_t new_cap = t->cap ? t->cap * 2 : want;
            char *p;
            if (new_cap > max + 1)
                new_cap = max + 1;
            if (new_cap <= t->cap) { /* already max + 1 bytes held */
                close(fd);
                text_free(a, t);
                return avki_error_set(err, AVK_ERR_LIMIT, AVK_OFFSET_UNKNOWN,
                                      "%s: more than the %zu bytes a schema may take", path,
                                      max);
            }
            p = t->data ? (char *)a->realloc(a->ctx, t->data, t->cap, new_cap)
                        : (char *)a->alloc(a->ctx, new_cap);
            if (!p) {
                close(fd);
                text_free(a, t);
                return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                                      "%s: out of memory reading the file", path);
            }
            t->data = p;
            t->cap = new_cap;
        }
        got = read(fd, t->data + t->len, t->cap - t->len);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            e = errno;
            close(fd);
            text_free(a, t);
            return avki_error_errno(err, e, "cannot read %s", path);
        }
        if (got == 0)
            break;
        t->len += (size_t)got;
        if (t->len > max) {
            close(fd);
            text_free(a, t);
            return avki_error_set(err, AVK_ERR_LIMIT, AVK_OFFSET_UNKNOWN,
                                  "%s: more than the %zu bytes a schema may take", path, max);
        }
    }
    close(fd);
    return AVK_OK;
}

/* ---- a directory of ID.avsc -------------------------------------------- */

/* The id of a file named "<decimal>.avsc", or -1. Leading zeros are not
 * ids' names ("07.avsc" is ignored), so each id has one file name and two
 * files cannot claim one id. */
static int64_t file_id(const char *name)
{
    size_t n = strlen(name), i;
    uint64_t v = 0;
    if (n < 6 || n > 10 + 5 || strcmp(name + n - 5, ".avsc") != 0)
        return -1;
    n -= 5;
    if (name[0] == '0' && n > 1)
        return -1;
    for (i = 0; i < n; i++) {
        if (name[i] < '0' || name[i] > '9')
            return -1;
        v = v * 10 + (uint64_t)(name[i] - '0');
    }
    return v > UINT32_MAX ? -1 : (int64_t)v;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static avk_status load_one(avk_schema_store *store, const char *path, int64_t id,
                           avk_error *err)
{
    const avk_allocator *a = avki_schema_store_allocator(store);
    text_buf t;
    int skipped;
    avk_status st = read_whole(a, path, avki_schema_store_max_text(store), 1, &t, &skipped, err);
    if (st != AVK_OK || skipped)
        return st;
    st = avk_schema_store_add(store, t.data, t.len, id, NULL, err);
    text_free(a, &t);
    if (st != AVK_OK)
        avki_error_prefix(err, "%s: ", path);
    return st;
}

avk_status avk_schema_store_load_dir(avk_schema_store *store, const char *dir, avk_error *err)
{
    const avk_allocator *a;
    uint32_t *ids = NULL;
    size_t n = 0, cap = 0, i, path_cap;
    char *path = NULL;
    struct dirent *de;
    DIR *d;
    avk_status st = AVK_OK;
    if (!store || !dir)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_schema_store_load_dir: NULL argument");
    a = avki_schema_store_allocator(store);
    d = opendir(dir);
    if (!d)
        return avki_error_errno(err, errno, "cannot open directory %s", dir);
    /* The ids first, then the files in order of id: the same directory
     * loads the same way (and fails at the same file) whatever order
     * readdir gives. */
    for (;;) {
        int64_t id;
        errno = 0;
        de = readdir(d);
        if (!de) {
            if (errno != 0)
                st = avki_error_errno(err, errno, "cannot read directory %s", dir);
            break;
        }
        id = file_id(de->d_name);
        if (id < 0)
            continue;
        if (n == cap) {
            size_t new_cap = cap ? cap * 2 : 64;
            uint32_t *p = ids ? (uint32_t *)a->realloc(a->ctx, ids, cap * sizeof *ids,
                                                       new_cap * sizeof *ids)
                              : (uint32_t *)a->alloc(a->ctx, new_cap * sizeof *ids);
            if (!p) {
                st = avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                                    "out of memory listing directory %s", dir);
                break;
            }
            ids = p;
            cap = new_cap;
        }
        ids[n++] = (uint32_t)id;
    }
    closedir(d);
    if (st == AVK_OK && n > 0) {
        qsort(ids, n, sizeof *ids, cmp_u32);
        path_cap = strlen(dir) + 1 + 10 + 5 + 1; /* dir "/" id ".avsc" NUL */
        path = (char *)a->alloc(a->ctx, path_cap);
        if (!path)
            st = avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                                "out of memory loading directory %s", dir);
        for (i = 0; st == AVK_OK && i < n; i++) {
            snprintf(path, path_cap, "%s/%" PRIu32 ".avsc", dir, ids[i]);
            st = load_one(store, path, (int64_t)ids[i], err);
        }
        if (path)
            a->free(a->ctx, path, path_cap);
    }
    if (ids)
        a->free(a->ctx, ids, cap * sizeof *ids);
    return st;
}

/* ---- one JSON file of schemas ------------------------------------------ */

typedef struct loader {
    avk_schema_store *store;
    const char *path;
    avk_writer text; /* a schema given as JSON, written back to text */
} loader;

static avk_status malformed(const loader *l, const avki_json *at, avk_error *err,
                            const char *what)
{
    return avki_error_set(err, AVK_ERR_MALFORMED, at->offset, "%s: line %" PRIu32
                          ", column %" PRIu32 ": %s", l->path, at->line, at->column, what);
}

/* Whether a JSON string holds a schema's JSON text (as the Confluent
 * registry's REST API gives "schema": "{\"type\": ...}" or "\"int\""):
 * it starts, after white space, with {, [ or ". Any other string is a type
 * name ("int", "com.example.User"), the schema it is as JSON. */
static int holds_schema_text(const avki_json *s)
{
    size_t i = 0;
    if (s->type != AVKI_JSON_STRING)
        return 0;
    while (i < s->u.string.len && (s->u.string.ptr[i] == ' ' || s->u.string.ptr[i] == '\t' ||
                                   s->u.string.ptr[i] == '\n' || s->u.string.ptr[i] == '\r'))
        i++;
    return i < s->u.string.len &&
           (s->u.string.ptr[i] == '{' || s->u.string.ptr[i] == '[' || s->u.string.ptr[i] == '"');
}

/* Adds the schema s (a schema, or a string holding its JSON text: see
 * holds_schema_text) under id; item names it in messages. */
static avk_status add_node(loader *l, const avki_json *s, int64_t id, const char *item,
                           avk_error *err)
{
    const char *text;
    size_t len;
    avk_status st;
    if (holds_schema_text(s)) {
        text = s->u.string.ptr;
        len = s->u.string.len;
    } else {
        avk_writer_reset(&l->text);
        st = avki_json_write(s, &l->text, err);
        if (st != AVK_OK)
            return st;
        text = (const char *)avk_writer_data(&l->text, &len);
    }
    st = avk_schema_store_add(l->store, text, len, id, NULL, err);
    if (st != AVK_OK && err) /* its offsets were in the text given, not the file */
        err->offset = s->offset;
    if (st != AVK_OK)
        avki_error_prefix(err, "%s, %s at line %" PRIu32 ", column %" PRIu32 ": ", l->path, item,
                          s->line, s->column);
    return st;
}

/* {"1": SCHEMA, "7": SCHEMA, ...} */
static avk_status load_object(loader *l, const avki_json *root, avk_error *err)
{
    size_t i;
    for (i = 0; i < root->u.object.count; i++) {
        const avki_json_member *m = &root->u.object.members[i];
        char item[48];
        int64_t id = -1;
        size_t k;
        uint64_t v = 0;
        int ok = m->key_len > 0 && m->key_len <= 10 && !(m->key[0] == '0' && m->key_len > 1);
        for (k = 0; ok && k < m->key_len; k++) {
            if (m->key[k] < '0' || m->key[k] > '9')
                ok = 0;
            else
                v = v * 10 + (uint64_t)(m->key[k] - '0');
        }
        if (!ok || v > UINT32_MAX) {
            char what[160];
            snprintf(what, sizeof what,
                     "key \"%.40s\" is not a schema id (a decimal number below 2^32); an object "
                     "of schemas maps ids to schemas",
                     m->key);
            return malformed(l, m->value, err, what);
        }
        id = (int64_t)v;
        snprintf(item, sizeof item, "schema id %" PRIu64, v);
        AVK_TRY(add_node(l, m->value, id, item, err));
    }
    return AVK_OK;
}

/* [{"id": 1, "schema": SCHEMA}, ...] or [SCHEMA, ...], item by item: an
 * object with "schema" and no "type" is an entry, anything else a schema. */
static avk_status load_array(loader *l, const avki_json *root, avk_error *err)
{
    size_t i;
    for (i = 0; i < root->u.array.count; i++) {
        const avki_json *it = root->u.array.items[i];
        const avki_json *schema = avki_json_get(it, "schema");
        char item[64];
        if (schema && !avki_json_get(it, "type")) {
            const avki_json *idj = avki_json_get(it, "id");
            int64_t id = -1;
            if (idj) {
                if (idj->type != AVKI_JSON_NUMBER || !idj->u.number.is_integer ||
                    idj->u.number.i < 0 || idj->u.number.i > (int64_t)UINT32_MAX)
                    return malformed(l, idj, err,
                                     "\"id\" is not a schema id (an integer from 0 to 2^32-1)");
                id = idj->u.number.i;
            }
            if (schema->type != AVKI_JSON_STRING && schema->type != AVKI_JSON_OBJECT &&
                schema->type != AVKI_JSON_ARRAY)
                return malformed(l, schema, err,
                                 "\"schema\" is neither a schema nor a string holding one");
            if (id >= 0)
                snprintf(item, sizeof item, "item %zu (schema id %" PRId64 ")", i, id);
            else
                snprintf(item, sizeof item, "item %zu", i);
            AVK_TRY(add_node(l, schema, id, item, err));
        } else {
            snprintf(item, sizeof item, "item %zu", i);
            AVK_TRY(add_node(l, it, -1, item, err));
        }
    }
    return AVK_OK;
}

avk_status avk_schema_store_load_file(avk_schema_store *store, const char *path, avk_error *err)
{
    const avk_allocator *a;
    avki_json_limits limits;
    avk_writer_options wo;
    avki_arena arena;
    const avki_json *root;
    text_buf t;
    loader l;
    avk_status st;
    int skipped;
    if (!store || !path)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_schema_store_load_file: NULL argument");
    a = avki_schema_store_allocator(store);
    /* A file of many schemas may be as large as one schema may be. */
    st = read_whole(a, path, avki_schema_store_max_text(store), 0, &t, &skipped, err);
    if (st != AVK_OK)
        return st;
    memset(&limits, 0, sizeof limits);
    /* Schemas nest up to 512 types, and a type can take a few JSON levels
     * ({"type": {"type": "array", "items": ...}}): room for them, two
     * levels of file shape above. */
    limits.max_depth = 4 * 512 + 2;
    /* The tree of a JSON text takes many times its bytes (a "0" in an
     * array is a node of its own): bounded, so a file of max_text bytes
     * cannot take gigabytes before its first item is looked at. */
    avki_arena_init(&arena, a, 0,
                    t.len > SIZE_MAX / 16 ? SIZE_MAX : (t.len < 4096 ? 4096 : t.len) * 16);
    st = avki_json_parse(&arena, t.data, t.len, &limits, &root, err);
    if (st != AVK_OK) {
        avki_arena_destroy(&arena);
        text_free(a, &t);
        avki_error_prefix(err, "%s: ", path);
        return st;
    }
    memset(&l, 0, sizeof l);
    l.store = store;
    l.path = path;
    avk_writer_options_init(&wo);
    wo.allocator = a;
    wo.buffer_size = 1024;
    st = avk_writer_init_memory(&l.text, &wo, err);
    if (st == AVK_OK) {
        if (root->type == AVKI_JSON_OBJECT)
            st = load_object(&l, root, err);
        else if (root->type == AVKI_JSON_ARRAY)
            st = load_array(&l, root, err);
        else
            st = malformed(&l, root, err,
                           "expected an object of schemas by id, or an array of schemas or of "
                           "{\"id\": ..., \"schema\": ...}");
        avk_writer_destroy(&l.text);
    }
    avki_arena_destroy(&arena);
    text_free(a, &t);
    return st;
}
