/* Reads every container file of the apache interop data (path, fd, memory, block by block) and checks each record against expected/<path>.jsonl. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "avkt.h"
#include "common/arena.h"
#include "json/json.h"

#ifndef AVK_INTEROP_DIR
#define AVK_INTEROP_DIR ""
#endif

/* One container file of the data set, with what MANIFEST.md and
 * expected/READERS.json say of it. */
typedef struct interop_file {
    char rel[512];     /* path below apache/ */
    char codec[32];    /* MANIFEST.md's codec column ("null" for "(none: null)"); "" if unlisted */
    int64_t count;     /* records a reader returns (READERS.json); -1 if unlisted */
    int damaged;       /* the python reader failed after count records */
    int on_disk;       /* found by the directory walk */
} interop_file;

#define MAX_FILES 256
static interop_file files[MAX_FILES];
static size_t n_files;
static char apache_dir[1024];
#define PATH_CAP 2048

/* a b c d joined into out (memcpy: no format truncation to reason about);
 * 0 when it does not fit. */
static int cat4(char *out, size_t cap, const char *a, const char *b, const char *c, const char *d)
{
    const char *parts[4] = {a, b, c, d};
    size_t used = 0, i;
    for (i = 0; i < 4; i++) {
        size_t n = strlen(parts[i]);
        if (used + n >= cap)
            return 0;
        memcpy(out + used, parts[i], n);
        used += n;
    }
    out[used] = '\0';
    return 1;
}

/* How a damaged file must end, by its base name: next/skip return the
 * expected records, then status; next_block returns whole blocks holding
 * block_records records, then block_status. A damaged file not listed here
 * fails the suite, so a new one gets a decision. */
static const struct {
    const char *base;
    avk_status status;
    avk_status block_status;
    int64_t block_records;
} damaged_status[] = {
    /* Record 2 has union index 2 of 2; the file also ends with a lone
     * block count (0x0a) after the block holding it. */
    {"avro-1237-bad-union-discriminant.avro", AVK_ERR_MALFORMED, AVK_ERR_TRUNCATED, 2},
    /* One block of 2 records whose sync marker is cut after 9 bytes: its
     * data is whole, so next and next_block deliver it, then TRUNCATED. */
    {"avro-1238-truncated.avro", AVK_ERR_TRUNCATED, AVK_ERR_TRUNCATED, 2},
    /* Ends with a block count after the 10 records' block. */
    {"person-10.no-codec.avro", AVK_ERR_TRUNCATED, AVK_ERR_TRUNCATED, 10},
};

static interop_file *find_file(const char *rel, int add)
{
    size_t i;
    for (i = 0; i < n_files; i++)
        if (strcmp(files[i].rel, rel) == 0)
            return &files[i];
    if (!add || n_files == MAX_FILES || strlen(rel) >= sizeof files[0].rel)
        return NULL;
    memset(&files[n_files], 0, sizeof files[n_files]);
    cat4(files[n_files].rel, sizeof files[n_files].rel, rel, "", "", "");
    files[n_files].count = -1;
    return &files[n_files++];
}

/* ---- enumeration: directory walk, MANIFEST.md, READERS.json ---------------- */

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Every regular file named *.avro below apache/ (expected/ excluded). A
 * directory may itself be named *.avro (mapreduce-test-input.avro): it is
 * walked, not taken. */
static void walk(const char *rel)
{
    char dir[PATH_CAP], sub[PATH_CAP / 2];
    DIR *d;
    struct dirent *e;
    if (!cat4(dir, sizeof dir, apache_dir, "/", rel, ""))
        return;
    d = opendir(dir);
    if (!d)
        return;
    while ((e = readdir(d)) != NULL) {
        struct stat st;
        char full[PATH_CAP];
        if (e->d_name[0] == '.')
            continue;
        if (!cat4(sub, sizeof sub, rel, rel[0] ? "/" : "", e->d_name, "") ||
            strcmp(sub, "expected") == 0)
            continue;
        if (!cat4(full, sizeof full, apache_dir, "/", sub, "") || stat(full, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            walk(sub);
        } else if (S_ISREG(st.st_mode) && ends_with(e->d_name, ".avro")) {
            interop_file *f = find_file(sub, 1);
            if (f)
                f->on_disk = 1;
        }
    }
    closedir(d);
}

static char *trim(char *s)
{
    char *end;
    while (*s == ' ')
        s++;
    end = s + strlen(s);
    while (end > s && end[-1] == ' ')
        *--end = '\0';
    return s;
}

/* The container table of MANIFEST.md: "| file | codec | schema | ...". */
static void read_manifest(void)
{
    char path[PATH_CAP];
    char *text, *line, *save = NULL;
    cat4(path, sizeof path, apache_dir, "/MANIFEST.md", "", "");
    text = avkt_read_file(path, NULL);
    if (!text)
        return;
    for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *cell1, *cell2, *bar;
        interop_file *f;
        if (strncmp(line, "| ", 2) != 0)
            continue;
        cell1 = line + 1;
        bar = strchr(cell1, '|');
        if (!bar)
            continue;
        *bar = '\0';
        cell2 = bar + 1;
        bar = strchr(cell2, '|');
        if (!bar)
            continue;
        *bar = '\0';
        cell1 = trim(cell1);
        cell2 = trim(cell2);
        if (!ends_with(cell1, ".avro"))
            continue;
        f = find_file(cell1, 1);
        if (!f)
            continue;
        cat4(f->codec, sizeof f->codec, strcmp(cell2, "(none: null)") == 0 ? "null" : cell2, "",
             "", "");
    }
    free(text);
}

static const char *json_string(const avki_json *j)
{
    return j && j->type == AVKI_JSON_STRING ? j->u.string.ptr : NULL;
}

/* expected/READERS.json: [{"file", "readers": {"py": "ok, N records, ..." |
 * "error: ...; N records before it"}, "count"}]. */
static void read_readers(void)
{
    char path[PATH_CAP];
    size_t len, i;
    char *text;
    avki_arena arena;
    const avki_json *root;
    cat4(path, sizeof path, apache_dir, "/expected/READERS.json", "", "");
    text = avkt_read_file(path, &len);
    if (!text)
        return;
    avki_arena_init(&arena, NULL, 0, 0);
    if (avki_json_parse(&arena, text, len, NULL, &root, NULL) == AVK_OK &&
        root->type == AVKI_JSON_ARRAY) {
        for (i = 0; i < root->u.array.count; i++) {
            const avki_json *e = root->u.array.items[i];
            const char *file = json_string(avki_json_get(e, "file"));
            const char *py = json_string(avki_json_get(avki_json_get(e, "readers"), "py"));
            const avki_json *count = avki_json_get(e, "count");
            interop_file *f;
            if (!file || !ends_with(file, ".avro") || !count || count->type != AVKI_JSON_NUMBER ||
                !count->u.number.is_integer)
                continue;
            f = find_file(file, 1);
            if (!f)
                continue;
            f->count = count->u.number.i;
            f->damaged = py && strncmp(py, "error:", 6) == 0;
        }
    }
    avki_arena_destroy(&arena);
    free(text);
}

static int compare_rel(const void *a, const void *b)
{
    return strcmp(((const interop_file *)a)->rel, ((const interop_file *)b)->rel);
}

/* ---- comparing JSON trees along the schema ------------------------------- */

typedef struct cmp_ctx {
    char path[1024];
    char why[1536];
} cmp_ctx;

static int cmp_fail(cmp_ctx *c, const char *what)
{
    snprintf(c->why, sizeof c->why, "at %s: %s", c->path[0] ? c->path : "(root)", what);
    return 0;
}

static int same_string(const avki_json *a, const avki_json *b)
{
    return a->type == AVKI_JSON_STRING && b->type == AVKI_JSON_STRING &&
           a->u.string.len == b->u.string.len &&
           memcmp(a->u.string.ptr, b->u.string.ptr, a->u.string.len) == 0;
}

/* The name a union branch goes by in the Avro JSON encoding. */
static const char *branch_name(const avk_type *t)
{
    return avk_type_is_named(t) ? avk_type_fullname(t) : avk_kind_name(avk_type_kind(t));
}

static int match(cmp_ctx *c, const avk_type *t, const avki_json *got, const avki_json *want);

/* Descends into a child, extending the path for messages. */
static int match_child(cmp_ctx *c, const char *step, size_t step_len, const avk_type *t,
                       const avki_json *got, const avki_json *want)
{
    size_t keep = strlen(c->path);
    int ok;
    snprintf(c->path + keep, sizeof c->path - keep, "%.*s", (int)step_len, step);
    ok = match(c, t, got, want);
    if (ok)
        c->path[keep] = '\0';
    return ok;
}

static int match_float(cmp_ctx *c, const avki_json *got, const avki_json *want)
{
    if (want->type == AVKI_JSON_STRING) /* "NaN", "Infinity", "-Infinity" */
        return same_string(got, want) ? 1 : cmp_fail(c, "non-finite float differs");
    if (want->type != AVKI_JSON_NUMBER || got->type != AVKI_JSON_NUMBER)
        return cmp_fail(c, "float: not a number");
    /* Ours has the float's shortest digits, the table the double it
     * widens to: compare both as floats, bit for bit (so -0.0 differs
     * from 0.0 and one digit off shows). */
    {
        float g = (float)got->u.number.d, w = (float)want->u.number.d;
        if (memcmp(&g, &w, sizeof g) != 0)
            return cmp_fail(c, "float value differs");
    }
    return 1;
}

static int match(cmp_ctx *c, const avk_type *t, const avki_json *got, const avki_json *want)
{
    size_t i, j;
    char step[300];
    switch (avk_type_kind(t)) {
    case AVK_NULL:
        return got->type == AVKI_JSON_NULL && want->type == AVKI_JSON_NULL
                   ? 1
                   : cmp_fail(c, "null expected");
    case AVK_BOOLEAN:
        return (got->type == AVKI_JSON_TRUE || got->type == AVKI_JSON_FALSE) && got->type == want->type
                   ? 1
                   : cmp_fail(c, "boolean differs");
    case AVK_INT:
    case AVK_LONG:
        if (got->type != AVKI_JSON_NUMBER || want->type != AVKI_JSON_NUMBER ||
            !got->u.number.is_integer || !want->u.number.is_integer)
            return cmp_fail(c, "integer expected on both sides");
        return got->u.number.i == want->u.number.i ? 1 : cmp_fail(c, "integer differs");
    case AVK_FLOAT:
    case AVK_DOUBLE:
        return match_float(c, got, want);
    case AVK_BYTES:
    case AVK_STRING:
    case AVK_ENUM:
    case AVK_FIXED:
        return same_string(got, want) ? 1 : cmp_fail(c, "string/bytes/symbol differs");
    case AVK_ARRAY:
        if (got->type != AVKI_JSON_ARRAY || want->type != AVKI_JSON_ARRAY)
            return cmp_fail(c, "array expected");
        if (got->u.array.count != want->u.array.count)
            return cmp_fail(c, "array length differs");
        for (i = 0; i < got->u.array.count; i++) {
            int n = snprintf(step, sizeof step, "[%zu]", i);
            if (!match_child(c, step, (size_t)n, avk_type_items(t), got->u.array.items[i],
                             want->u.array.items[i]))
                return 0;
        }
        return 1;
    case AVK_MAP:
        /* Maps compare unordered (MANIFEST.md); keys must be distinct. */
        if (got->type != AVKI_JSON_OBJECT || want->type != AVKI_JSON_OBJECT)
            return cmp_fail(c, "map expected");
        if (got->u.object.count != want->u.object.count)
            return cmp_fail(c, "map size differs");
        for (i = 0; i < want->u.object.count; i++) {
            const avki_json_member *w = &want->u.object.members[i];
            const avki_json_member *g = NULL;
            for (j = 0; j < got->u.object.count; j++) {
                const avki_json_member *m = &got->u.object.members[j];
                if (m->key_len == w->key_len && memcmp(m->key, w->key, w->key_len) == 0) {
                    if (g)
                        return cmp_fail(c, "map key written twice");
                    g = m;
                }
            }
            if (!g)
                return cmp_fail(c, "map key missing");
            snprintf(step, sizeof step, "[\"%.*s\"]", (int)(w->key_len > 200 ? 200 : w->key_len),
                     w->key);
            if (!match_child(c, step, strlen(step), avk_type_values(t), g->value, w->value))
                return 0;
        }
        return 1;
    case AVK_RECORD: {
        size_t nf = avk_type_field_count(t);
        if (got->type != AVKI_JSON_OBJECT || want->type != AVKI_JSON_OBJECT)
            return cmp_fail(c, "record expected");
        if (got->u.object.count != nf || want->u.object.count != nf)
            return cmp_fail(c, "record field count differs");
        for (i = 0; i < nf; i++) {
            const avk_field *fd = avk_type_field(t, i);
            const char *name = avk_field_name(fd);
            const avki_json_member *g = &got->u.object.members[i];
            const avki_json_member *w = &want->u.object.members[i];
            /* Records keep schema order on both sides. */
            if (strcmp(g->key, name) != 0 || strcmp(w->key, name) != 0)
                return cmp_fail(c, "record fields not in schema order");
            snprintf(step, sizeof step, ".%s", name);
            if (!match_child(c, step, strlen(step), avk_field_type(fd), g->value, w->value))
                return 0;
        }
        return 1;
    }
    case AVK_UNION: {
        const avki_json_member *g, *w;
        if (want->type == AVKI_JSON_NULL)
            return got->type == AVKI_JSON_NULL ? 1 : cmp_fail(c, "union: null expected");
        if (got->type != AVKI_JSON_OBJECT || want->type != AVKI_JSON_OBJECT ||
            got->u.object.count != 1 || want->u.object.count != 1)
            return cmp_fail(c, "union: {\"branch\": value} expected on both sides");
        g = &got->u.object.members[0];
        w = &want->u.object.members[0];
        if (strcmp(g->key, w->key) != 0)
            return cmp_fail(c, "union branch differs");
        for (i = 0; i < avk_type_branch_count(t); i++) {
            const avk_type *b = avk_type_branch(t, i);
            if (strcmp(branch_name(b), w->key) == 0) {
                snprintf(step, sizeof step, "<%s>", w->key);
                return match_child(c, step, strlen(step), b, g->value, w->value);
            }
        }
        return cmp_fail(c, "union branch name not in the schema");
    }
    }
    return cmp_fail(c, "unknown kind");
}

/* ---- expected records ---------------------------------------------------- */

typedef struct expected {
    char *text;
    avki_arena arena;
    const avki_json **rec;
    size_t n;
} expected;

static void load_expected(const interop_file *f, expected *e)
{
    char path[PATH_CAP];
    size_t len, cap = 16;
    char *p, *end;
    cat4(path, sizeof path, apache_dir, "/expected/", f->rel, ".jsonl");
    memset(e, 0, sizeof *e);
    e->text = avkt_read_file(path, &len);
    if (!e->text)
        fail_msg("%s: missing", path);
    avki_arena_init(&e->arena, NULL, 0, 0);
    e->rec = malloc(cap * sizeof *e->rec);
    assert_non_null(e->rec);
    for (p = e->text; p < e->text + len; p = end + 1) {
        avk_error err;
        end = memchr(p, '\n', (size_t)(e->text + len - p));
        if (!end)
            end = e->text + len;
        if (end == p)
            continue;
        if (e->n == cap) {
            cap *= 2;
            e->rec = realloc(e->rec, cap * sizeof *e->rec);
            assert_non_null(e->rec);
        }
        if (avki_json_parse(&e->arena, p, (size_t)(end - p), NULL, &e->rec[e->n], &err) != AVK_OK)
            fail_msg("%s line %zu: %s", path, e->n + 1, err.message);
        e->n++;
    }
}

static void free_expected(expected *e)
{
    avki_arena_destroy(&e->arena);
    free(e->rec);
    free(e->text);
}

/* ---- reading -------------------------------------------------------------- */

/* Index in damaged_status of a damaged file (fails the test when absent),
 * -1 for a good one. */
static int damage_of(const interop_file *f)
{
    const char *base = strrchr(f->rel, '/');
    size_t i;
    base = base ? base + 1 : f->rel;
    if (!f->damaged)
        return -1;
    for (i = 0; i < sizeof damaged_status / sizeof damaged_status[0]; i++)
        if (strcmp(base, damaged_status[i].base) == 0)
            return (int)i;
    fail_msg("%s: the reference reader fails on it, but this suite has no expected status for it"
             " (add it to damaged_status)",
             f->rel);
    return -1;
}

static avk_status want_end(const interop_file *f)
{
    int d = damage_of(f);
    return d < 0 ? AVK_OK : damaged_status[d].status;
}

static void check_codec(const interop_file *f, const avk_file_reader *fr, const char *how)
{
    int ns = -1;
    avk_codec c = avk_file_reader_codec(fr, &ns);
    const char *name = avk_codec_name(c);
    if (!name || strcmp(name, f->codec) != 0)
        fail_msg("%s (%s): codec %s, MANIFEST.md says %s", f->rel, how, name ? name : "?", f->codec);
    assert_int_equal(ns, 0);
}

/* The end of a read that failed: the status, with where and why. */
static void check_error(const interop_file *f, const char *how, avk_status st, const avk_error *err,
                        avk_status want, int record_level)
{
    if (st != want)
        fail_msg("%s (%s): ended with %s (%s), expected %s", f->rel, how, avk_status_name(st),
                 err->message, avk_status_name(want));
    assert_int_equal(err->status, want);
    if (err->offset == AVK_OFFSET_UNKNOWN)
        fail_msg("%s (%s): %s without an offset: %s", f->rel, how, avk_status_name(st), err->message);
    if (err->block < 0)
        fail_msg("%s (%s): %s without a block index: %s", f->rel, how, avk_status_name(st),
                 err->message);
    assert_true(err->message[0] != '\0');
    if (record_level && want == AVK_ERR_MALFORMED) {
        /* A record that does not decode: the schema path, also in the message. */
        if (err->path[0] == '\0' || !strstr(err->message, err->path))
            fail_msg("%s (%s): path \"%s\" missing or not in the message \"%s\"", f->rel, how,
                     err->path, err->message);
    }
}

/* Reads every record of fr, comparing each with e; then checks the end. */
static void check_records(const interop_file *f, const char *how, avk_file_reader *fr,
                          const expected *e)
{
    avk_arena *arena;
    avk_writer w;
    avki_arena jarena;
    avk_value v;
    avk_error err, err2;
    avk_status st, want = want_end(f);
    size_t i = 0;
    int more = 0;
    const avk_type *root = avk_schema_root(avk_file_reader_schema(fr));
    avk_file_reader_stats stats;

    check_codec(f, fr, how);
    AVKT_OK(avk_arena_new(NULL, &arena, NULL));
    AVKT_OK(avk_writer_init_memory(&w, NULL, NULL));
    avki_arena_init(&jarena, NULL, 0, 0);
    for (;;) {
        const avki_json *got;
        const uint8_t *data;
        size_t len;
        cmp_ctx c;
        memset(&err, 0, sizeof err);
        st = avk_file_reader_next(fr, arena, &v, &more, &err);
        if (st != AVK_OK || !more)
            break;
        if (i >= e->n)
            fail_msg("%s (%s): record %zu beyond the %zu expected", f->rel, how, i, e->n);
        avk_writer_reset(&w);
        st = avk_value_write_json(&v, 0, &w, &err2);
        if (st != AVK_OK)
            fail_msg("%s (%s) record %zu: avk_value_write_json: %s", f->rel, how, i, err2.message);
        data = avk_writer_data(&w, &len);
        avki_arena_reset(&jarena);
        if (avki_json_parse(&jarena, (const char *)data, len, NULL, &got, &err2) != AVK_OK)
            fail_msg("%s (%s) record %zu: our JSON does not parse (%s): %.*s", f->rel, how, i,
                     err2.message, (int)len, (const char *)data);
        c.path[0] = '\0';
        c.why[0] = '\0';
        if (!match(&c, root, got, e->rec[i]))
            fail_msg("%s (%s) record %zu: %s\n  got: %.*s", f->rel, how, i, c.why, (int)len,
                     (const char *)data);
        avk_arena_reset(arena);
        i++;
    }
    if (i != e->n)
        fail_msg("%s (%s): %zu records then %s (%s), expected %zu", f->rel, how, i,
                 avk_status_name(st), st ? err.message : "clean end", e->n);
    if (want == AVK_OK) {
        if (st != AVK_OK)
            fail_msg("%s (%s): %s: %s", f->rel, how, avk_status_name(st), err.message);
        assert_int_equal(more, 0);
        /* The end stays the end. */
        AVKT_OK(avk_file_reader_next(fr, arena, &v, &more, NULL));
        assert_int_equal(more, 0);
    } else {
        check_error(f, how, st, &err, want, 1);
        /* After an error the reader is done and says so again. */
        AVKT_ASSERT_STATUS(avk_file_reader_next(fr, arena, &v, &more, NULL), want);
    }
    avk_file_reader_get_stats(fr, &stats);
    AVKT_ASSERT_I64_EQ(stats.records, e->n);
    avki_arena_destroy(&jarena);
    avk_writer_destroy(&w);
    avk_arena_free(arena);
}

static void path_of(const interop_file *f, char *out, size_t cap)
{
    cat4(out, cap, apache_dir, "/", f->rel, "");
}

static avk_file_reader *open_path(const interop_file *f)
{
    char path[PATH_CAP];
    avk_file_reader *fr = NULL;
    avk_error err;
    path_of(f, path, sizeof path);
    if (avk_file_reader_open_path(path, NULL, &fr, &err) != AVK_OK)
        fail_msg("%s: open_path: %s: %s", f->rel, avk_status_name(err.status), err.message);
    return fr;
}

/* skip() instead of next(): the same count and the same end. */
static void check_skip(const interop_file *f, const expected *e)
{
    avk_file_reader *fr = open_path(f);
    avk_error err;
    avk_status st, want = want_end(f);
    size_t i = 0;
    int more = 0;
    while ((st = avk_file_reader_skip(fr, &more, &err)) == AVK_OK && more)
        i++;
    if (i != e->n)
        fail_msg("%s (skip): %zu records skipped, expected %zu", f->rel, i, e->n);
    if (want == AVK_OK)
        AVKT_OK(st);
    else
        check_error(f, "skip", st, &err, want, 0);
    avk_file_reader_free(fr);
}

/* Whole blocks: counts add up to the records; each block decompresses. */
static void check_blocks(const interop_file *f, const expected *e)
{
    avk_file_reader *fr = open_path(f);
    avk_file_block b;
    avk_buffer buf;
    avk_error err;
    int d = damage_of(f);
    avk_status st, want = d < 0 ? AVK_OK : damaged_status[d].block_status;
    int64_t want_sum = d < 0 ? (int64_t)e->n : damaged_status[d].block_records, sum = 0;
    uint64_t blocks = 0, prev_end = avk_file_reader_header_size(fr);
    int more = 0;
    avk_file_reader_stats stats;
    avk_buffer_init(&buf, NULL);
    while ((st = avk_file_reader_next_block(fr, &b, &more, &err)) == AVK_OK && more) {
        assert_int_equal(b.index, blocks);
        AVKT_ASSERT_I64_EQ(b.offset, prev_end); /* blocks follow each other */
        assert_true(b.end > b.offset + b.size);
        assert_true(b.count >= 0);
        sum += b.count;
        if (avk_file_block_decompress(fr, &b, &buf, &err) != AVK_OK)
            fail_msg("%s block %llu: decompress: %s", f->rel, (unsigned long long)blocks,
                     err.message);
        if (avk_file_reader_codec(fr, NULL) == AVK_CODEC_NULL)
            AVKT_ASSERT_I64_EQ(buf.len, b.size);
        prev_end = b.end;
        blocks++;
    }
    if (want == AVK_OK) {
        if (st != AVK_OK)
            fail_msg("%s (next_block): %s: %s", f->rel, avk_status_name(st), err.message);
    } else {
        check_error(f, "next_block", st, &err, want, 0);
    }
    /* The whole blocks hold the records (for a cut file, exactly those a
     * reader returns before the error). */
    AVKT_ASSERT_I64_EQ(sum, want_sum);
    avk_file_reader_get_stats(fr, &stats);
    AVKT_ASSERT_I64_EQ(stats.blocks, blocks);
    avk_buffer_destroy(&buf);
    avk_file_reader_free(fr);
}

static void test_file(void **state)
{
    const interop_file *f = *state;
    char path[PATH_CAP];
    expected e;
    avk_file_reader *fr;
    avk_error err;
    char *data;
    size_t len;
    int fd;

    load_expected(f, &e);
    AVKT_ASSERT_I64_EQ(e.n, f->count);
    path_of(f, path, sizeof path);

    fr = open_path(f);
    check_records(f, "path", fr, &e);
    avk_file_reader_free(fr);

    fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    if (avk_file_reader_open_fd(fd, NULL, &fr, &err) != AVK_OK)
        fail_msg("%s: open_fd: %s", f->rel, err.message);
    check_records(f, "fd", fr, &e);
    avk_file_reader_free(fr);
    close(fd);

    data = avkt_read_file(path, &len);
    assert_non_null(data);
    if (avk_file_reader_open_memory(data, len, NULL, &fr, &err) != AVK_OK)
        fail_msg("%s: open_memory: %s", f->rel, err.message);
    check_records(f, "memory", fr, &e);
    avk_file_reader_free(fr);
    free(data);

    check_skip(f, &e);
    check_blocks(f, &e);
    free_expected(&e);
}

/* The walk, MANIFEST.md and READERS.json agree: a new file without an
 * expectation, or a listed file gone, fails here. */
static void test_listing(void **state)
{
    size_t i, walked = 0;
    (void)state;
    for (i = 0; i < n_files; i++) {
        const interop_file *f = &files[i];
        if (!f->on_disk)
            fail_msg("%s: listed in MANIFEST.md or READERS.json but not on disk", f->rel);
        if (!f->codec[0])
            fail_msg("%s: not in MANIFEST.md's container table", f->rel);
        if (f->count < 0)
            fail_msg("%s: not in expected/READERS.json", f->rel);
        walked++;
    }
    /* 22 container files in the snapshot MANIFEST.md describes. */
    assert_true(walked >= 22);
}

/* Avro 1.2's container format ("Obj" 0x00) is refused with a message that names it. */
static void test_legacy_avro12(void **state)
{
    char path[PATH_CAP];
    avk_file_reader *fr = (avk_file_reader *)1;
    avk_error err;
    char *data;
    size_t len;
    (void)state;
    cat4(path, sizeof path, apache_dir, "/share/test/data/test.avro12", "", "");
    AVKT_ASSERT_STATUS(avk_file_reader_open_path(path, NULL, &fr, &err), AVK_ERR_MALFORMED);
    assert_null(fr);
    if (!strstr(err.message, "1.2"))
        fail_msg("the message should say this is the legacy Avro 1.2 format: \"%s\"", err.message);
    data = avkt_read_file(path, &len);
    assert_non_null(data);
    fr = (avk_file_reader *)1;
    AVKT_ASSERT_STATUS(avk_file_reader_open_memory(data, len, NULL, &fr, &err), AVK_ERR_MALFORMED);
    assert_null(fr);
    assert_non_null(strstr(err.message, "1.2"));
    free(data);
}

static void test_no_data(void **state)
{
    (void)state;
    print_message("SKIPPED: interop data not found at \"%s\" (AVK_INTEROP_DIR); "
                  "the apache container files are not checked\n",
                  apache_dir);
    skip();
}

int main(void)
{
    struct CMUnitTest *tests;
    size_t i, n = 0;
    struct stat st;
    int rc;

    cat4(apache_dir, sizeof apache_dir, AVK_INTEROP_DIR, "/apache", "", "");
    if (AVK_INTEROP_DIR[0] == '\0' || stat(apache_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        const struct CMUnitTest none[] = {cmocka_unit_test(test_no_data)};
        return cmocka_run_group_tests_name("file_interop", none, NULL, NULL);
    }
    walk("");
    read_manifest();
    read_readers();
    qsort(files, n_files, sizeof files[0], compare_rel);

    tests = calloc(n_files + 2, sizeof *tests);
    if (!tests)
        return 1;
    tests[n].name = "listing: walk, MANIFEST.md and READERS.json agree";
    tests[n++].test_func = test_listing;
    tests[n].name = "share/test/data/test.avro12 (legacy Avro 1.2)";
    tests[n++].test_func = test_legacy_avro12;
    for (i = 0; i < n_files; i++) {
        if (!files[i].on_disk || files[i].count < 0 || !files[i].codec[0])
            continue; /* test_listing reports it */
        tests[n].name = files[i].rel;
        tests[n].test_func = test_file;
        tests[n].initial_state = &files[i];
        n++;
    }
    rc = _cmocka_run_group_tests("file_interop", tests, n, NULL, NULL);
    free(tests);
    return rc;
}
