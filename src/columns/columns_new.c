/* avk_columns_new and _free: the column tree of a type, with the projection's fields and skip plans for the rest. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "avrokit/check.h"
#include "avrokit/resolve.h"
#include "columns_internal.h"
#include "common/alloc_internal.h"
#include "common/error.h"

/* Arrow's dense union type ids are int8. */
#define MAX_UNION_BRANCHES 127

/* One node of the projection: a field taken whole, or some of its fields. */
typedef struct sel {
    const char *name; /* points into a path given by the caller */
    size_t name_len;
    int whole;
    struct sel *kids;
    size_t n_kids, cap_kids;
} sel;

/* Names of the records on the way down, to refuse recursion. */
typedef struct build_ctx {
    avk_columns *c;
    avk_error *err;
    const avk_type *stack[256];
    size_t depth;
    size_t nodes; /* columns made so far */
    /* min_size of records already sized: named types reused in many
     * places must not be walked once per place (2^k for a chain of k) */
    const avk_type **sized;
    uint64_t *sizes;
    size_t n_sized, cap_sized;
    char path[AVK_ERROR_PATH_MAX];
} build_ctx;

/* Most columns one column set may have: a schema reusing a named record
 * in two fields of the next, k times over, expands to 2^k columns. */
#define MAX_COLUMNS ((size_t)1 << 16)

void *avki_col_alloc(avk_columns *c, size_t size)
{
    void *p = c->alloc.alloc(c->alloc.ctx, size);
    if (p)
        memset(p, 0, size);
    return p;
}

void avki_col_free_mem(avk_columns *c, void *p, size_t size)
{
    if (p)
        c->alloc.free(c->alloc.ctx, p, size);
}

void avki_col_buf_free(avk_columns *c, avki_col_buf *b)
{
    avki_col_free_mem(c, b->data, b->cap);
    b->data = NULL;
    b->len = b->cap = 0;
}

static void col_free(avk_columns *c, avki_col *col)
{
    size_t i;
    if (!col)
        return;
    for (i = 0; i < col->n_children; i++)
        col_free(c, col->children[i]);
    for (i = 0; i < col->n_steps; i++)
        avk_plan_free(col->steps[i].skip);
    avki_col_free_mem(c, col->children, col->n_children * sizeof *col->children);
    avki_col_free_mem(c, col->steps, col->n_steps * sizeof *col->steps);
    avki_col_buf_free(c, &col->validity);
    avki_col_buf_free(c, &col->values);
    avki_col_buf_free(c, &col->data);
    avki_col_free_mem(c, col, sizeof *col);
}

static void sel_free(avk_columns *c, sel *s)
{
    size_t i;
    for (i = 0; i < s->n_kids; i++)
        sel_free(c, &s->kids[i]);
    avki_col_free_mem(c, s->kids, s->cap_kids * sizeof *s->kids);
}

/* err filled with a message and the schema path where the build stands. */
static avk_status schema_error(build_ctx *b, avk_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static avk_status schema_error(build_ctx *b, avk_status st, const char *fmt, ...)
{
    char msg[AVK_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    avk_error_set(b->err, st, AVK_OFFSET_UNKNOWN, "%s", msg);
    if (b->err)
        snprintf(b->err->path, sizeof b->err->path, "%s", b->path);
    return st;
}

/* Adds path (dot-separated field names) to the projection tree. */
static avk_status sel_add(avk_columns *c, sel *root, const char *path, avk_error *err)
{
    sel *at = root;
    const char *p = path;
    for (;;) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        sel *kid = NULL;
        size_t i;
        if (len == 0)
            return avk_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                                 "projected path \"%s\" has an empty field name", path);
        if (at->whole && at != root)
            return avk_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                                 "projected path \"%s\" names a field already taken whole", path);
        for (i = 0; i < at->n_kids; i++)
            if (at->kids[i].name_len == len && !memcmp(at->kids[i].name, p, len))
                kid = &at->kids[i];
        if (!kid) {
            if (at->n_kids == at->cap_kids) {
                size_t cap = at->cap_kids ? 2 * at->cap_kids : 4;
                sel *k = avki_col_alloc(c, cap * sizeof *k);
                if (!k)
                    return avk_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                                         "out of memory for the projection");
                if (at->n_kids)
                    memcpy(k, at->kids, at->n_kids * sizeof *k);
                avki_col_free_mem(c, at->kids, at->cap_kids * sizeof *at->kids);
                at->kids = k;
                at->cap_kids = cap;
            }
            kid = &at->kids[at->n_kids++];
            memset(kid, 0, sizeof *kid);
            kid->name = p;
            kid->name_len = len;
        } else if (!dot || kid->whole) {
            return avk_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                                 "projected path \"%s\" is named twice or overlaps another", path);
        }
        if (!dot) {
            if (kid->n_kids)
                return avk_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                                     "projected path \"%s\" is named twice or overlaps another",
                                     path);
            kid->whole = 1;
            return AVK_OK;
        }
        at = kid;
        p = dot + 1;
    }
}

/* The fewest bytes a value of t takes (0: null and records of nulls); a
 * record being sized counts 0 inside itself, a safe lower bound. Records
 * are sized once (memo); UINT64_MAX in the memo means "being sized". */
static uint64_t min_size(build_ctx *b, const avk_type *t)
{
    size_t i, slot;
    uint64_t n = 0;
    switch (avk_type_kind(t)) {
    case AVK_NULL:
        return 0;
    case AVK_FLOAT:
        return 4;
    case AVK_DOUBLE:
        return 8;
    case AVK_FIXED:
        return avk_type_fixed_size(t);
    case AVK_RECORD:
        break;
    default:
        return 1;
    }
    for (i = 0; i < b->n_sized; i++)
        if (b->sized[i] == t)
            return b->sizes[i] == UINT64_MAX ? 0 : b->sizes[i];
    if (b->n_sized == b->cap_sized) {
        size_t cap = b->cap_sized ? 2 * b->cap_sized : 16;
        const avk_type **ts = avki_col_alloc(b->c, cap * sizeof *ts);
        uint64_t *ss = avki_col_alloc(b->c, cap * sizeof *ss);
        if (!ts || !ss) {
            avki_col_free_mem(b->c, (void *)ts, cap * sizeof *ts);
            avki_col_free_mem(b->c, ss, cap * sizeof *ss);
            return 0; /* a lower bound still */
        }
        if (b->n_sized) {
            memcpy((void *)ts, (const void *)b->sized, b->n_sized * sizeof *ts);
            memcpy(ss, b->sizes, b->n_sized * sizeof *ss);
        }
        avki_col_free_mem(b->c, (void *)b->sized, b->cap_sized * sizeof *b->sized);
        avki_col_free_mem(b->c, b->sizes, b->cap_sized * sizeof *b->sizes);
        b->sized = ts;
        b->sizes = ss;
        b->cap_sized = cap;
    }
    slot = b->n_sized++;
    b->sized[slot] = t;
    b->sizes[slot] = UINT64_MAX;
    for (i = 0; i < avk_type_field_count(t); i++) {
        uint64_t f = min_size(b, avk_field_type(avk_type_field(t, i)));
        n = n > UINT64_MAX - 1 - f ? UINT64_MAX - 1 : n + f;
    }
    b->sizes[slot] = n;
    return n;
}

/* ["null", T] or [T, "null"] with T not null: T and the null branch. */
static const avk_type *nullable_of(const avk_type *t, uint32_t *null_branch)
{
    if (avk_type_kind(t) != AVK_UNION || avk_type_branch_count(t) != 2)
        return NULL;
    for (uint32_t i = 0; i < 2; i++) {
        const avk_type *other = avk_type_branch(t, 1 - i);
        if (avk_type_kind(avk_type_branch(t, i)) == AVK_NULL && avk_type_kind(other) != AVK_NULL) {
            *null_branch = i;
            return other;
        }
    }
    return NULL;
}

static const char *branch_name(const avk_type *t)
{
    return avk_type_is_named(t) ? avk_type_name(t) : avk_kind_name(avk_type_kind(t));
}

static avk_status build(build_ctx *b, const avk_type *t, const char *name, const sel *s,
                        avki_col **out);

/* Bytes avki_col_append_empty writes for col and the columns under it
 * (bits counted as bytes: an upper bound). Children are built first. */
static uint64_t empty_size(const avki_col *col)
{
    uint64_t n = 0;
    size_t i;
    switch (col->kind) {
    case AVKI_COL_NULL:
        return 0;
    case AVKI_COL_BOOL:
        return 1;
    case AVKI_COL_I32:
    case AVKI_COL_F32:
    case AVKI_COL_BINARY: /* one offset */
    case AVKI_COL_LIST:
    case AVKI_COL_MAP:
        return 4;
    case AVKI_COL_I64:
    case AVKI_COL_F64:
        return 8;
    case AVKI_COL_FIXED:
    case AVKI_COL_DECIMAL:
        return col->width;
    case AVKI_COL_STRUCT:
        for (i = 0; i < col->n_children; i++)
            n += col->children[i]->empty_size;
        return n;
    case AVKI_COL_UNION: /* a type id, an offset and branch 0's placeholder */
        return 5 + (col->n_children ? col->children[0]->empty_size : 0);
    }
    return 0;
}

static avk_status add_children(build_ctx *b, avki_col *col, size_t n)
{
    col->children = avki_col_alloc(b->c, n * sizeof *col->children);
    if (n && !col->children)
        return avk_error_set(b->err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                             "out of memory for the columns");
    col->n_children = n;
    return AVK_OK;
}

/* Appends a segment (".items", ".fields[2].type") to the schema path for
 * the duration of a child's build; returns where to cut it back. */
static size_t path_push(build_ctx *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static size_t path_push(build_ctx *b, const char *fmt, ...)
{
    size_t old = strlen(b->path);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->path + old, sizeof b->path - old, fmt, ap);
    va_end(ap);
    return old;
}

static avk_status build_record(build_ctx *b, const avk_type *t, avki_col *col, const sel *s)
{
    size_t i, k, nf = avk_type_field_count(t);
    size_t nsel = (s && !s->whole) ? s->n_kids : nf;
    avk_status st;
    /* A record taken whole inside itself would be columns without end; one
     * taken by some of its fields ends where the projection does. */
    for (i = 0; (!s || s->whole) && i < b->depth; i++)
        if (b->stack[i] == t)
            return schema_error(b, AVK_ERR_SCHEMA,
                                "the recursive type %s cannot be a column (Arrow has no recursive "
                                "types): leave its field out with a projection",
                                avk_type_fullname(t));
    if (b->depth == sizeof b->stack / sizeof b->stack[0])
        return schema_error(b, AVK_ERR_SCHEMA, "%s nests records too deeply for columns",
                            avk_type_fullname(t));
    b->stack[b->depth++] = t;
    col->kind = AVKI_COL_STRUCT;
    AVK_TRY(add_children(b, col, nsel));
    col->steps = avki_col_alloc(b->c, nf * sizeof *col->steps);
    if (nf && !col->steps)
        return avk_error_set(b->err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                             "out of memory for the columns");
    col->n_steps = nf;
    /* Every projected name must be a field. */
    for (k = 0; s && !s->whole && k < s->n_kids; k++) {
        for (i = 0; i < nf; i++) {
            const char *fname = avk_field_name(avk_type_field(t, i));
            if (strlen(fname) == s->kids[k].name_len && !memcmp(fname, s->kids[k].name, s->kids[k].name_len))
                break;
        }
        if (i == nf) {
            char name[256];
            snprintf(name, sizeof name, "%.*s", (int)s->kids[k].name_len, s->kids[k].name);
            return schema_error(b, AVK_ERR_INVALID_ARGUMENT, "projected field \"%s\" is not a "
                                "field of the record here", name);
        }
    }
    for (i = 0; i < nf; i++) {
        const avk_field *f = avk_type_field(t, i);
        const sel *fs = NULL;
        size_t slot = i;
        if (s && !s->whole) {
            for (k = 0; k < s->n_kids; k++)
                if (strlen(avk_field_name(f)) == s->kids[k].name_len &&
                    !memcmp(avk_field_name(f), s->kids[k].name, s->kids[k].name_len))
                    break;
            if (k == s->n_kids) {
                /* Not projected: skipped at byte level by a plan of its own. */
                avk_plan_options po;
                avk_plan_options_init(&po);
                po.limits = b->c->limits;
                po.allocator = &b->c->alloc;
                st = avk_plan_new(avk_field_type(f), &po, &col->steps[i].skip, b->err);
                if (st != AVK_OK)
                    return st;
                continue;
            }
            fs = &s->kids[k];
            slot = k;
        }
        {
            size_t old = path_push(b, ".fields[%zu].type", i);
            st = build(b, avk_field_type(f), avk_field_name(f), fs, &col->children[slot]);
            b->path[old] = '\0';
            if (st != AVK_OK)
                return st;
        }
        col->steps[i].child = col->children[slot];
    }
    b->depth--;
    return AVK_OK;
}

static avk_status build_union(build_ctx *b, const avk_type *t, avki_col *col, const sel *s)
{
    size_t i, n = avk_type_branch_count(t);
    if (s && !s->whole)
        return schema_error(b, AVK_ERR_INVALID_ARGUMENT,
                            "a projected path goes through a union, which is not a record");
    if (n > MAX_UNION_BRANCHES)
        return schema_error(b, AVK_ERR_SCHEMA,
                            "a union of more than %d branches cannot be an Arrow dense union",
                            MAX_UNION_BRANCHES);
    col->kind = AVKI_COL_UNION;
    AVK_TRY(add_children(b, col, n));
    for (i = 0; i < n; i++) {
        size_t old = path_push(b, ".branch[%zu]", i);
        avk_status st = build(b, avk_type_branch(t, i), branch_name(avk_type_branch(t, i)), NULL,
                              &col->children[i]);
        b->path[old] = '\0';
        if (st != AVK_OK)
            return st;
    }
    return AVK_OK;
}

static avk_status build_map(build_ctx *b, const avk_type *t, avki_col *col)
{
    avki_col *entries, *key;
    size_t old;
    avk_status st;
    col->kind = AVKI_COL_MAP;
    AVK_TRY(add_children(b, col, 1));
    entries = col->children[0] = avki_col_alloc(b->c, sizeof *entries);
    if (!entries)
        return avk_error_set(b->err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                             "out of memory for the columns");
    entries->kind = AVKI_COL_STRUCT;
    entries->type = t;
    entries->name = "entries";
    AVK_TRY(add_children(b, entries, 2));
    key = entries->children[0] = avki_col_alloc(b->c, sizeof *key);
    if (!key)
        return avk_error_set(b->err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                             "out of memory for the columns");
    key->kind = AVKI_COL_BINARY;
    key->is_string = key->is_key = 1;
    key->name = "key";
    key->min_size = 1;
    old = path_push(b, ".values");
    st = build(b, avk_type_values(t), "value", NULL, &entries->children[1]);
    b->path[old] = '\0';
    if (st == AVK_OK)
        entries->min_size = 1 + entries->children[1]->min_size;
    return st;
}

static avk_status build_decimal(avki_col *col, const avk_type *t)
{
    int precision = avk_type_decimal_precision(t);
    if (precision < 1 || precision > 76)
        return AVK_OK; /* no Arrow decimal holds it: the raw bytes */
    col->kind = AVKI_COL_DECIMAL;
    col->width = precision <= 38 ? 16 : 32;
    col->src_fixed = avk_type_kind(t) == AVK_FIXED ? avk_type_fixed_size(t) : 0;
    return AVK_OK;
}

static avk_status build(build_ctx *b, const avk_type *t, const char *name, const sel *s,
                        avki_col **out)
{
    avki_col *col = avki_col_alloc(b->c, sizeof *col);
    const avk_type *inner;
    uint32_t null_branch = 0;
    avk_status st = AVK_OK;
    *out = col;
    if (!col)
        return avk_error_set(b->err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                             "out of memory for the columns");
    col->name = name;
    col->min_size = min_size(b, t);
    if (++b->nodes > MAX_COLUMNS)
        return schema_error(b, AVK_ERR_LIMIT,
                            "the schema expands to more than %zu columns (named types used in "
                            "many places): project fewer fields",
                            MAX_COLUMNS);
    inner = nullable_of(t, &null_branch);
    if (inner) {
        col->nullable = 1;
        col->null_branch = null_branch;
        t = inner;
    }
    col->type = t;
    if (!col->nullable)
        col->leaf = avk_type_kind(t) == AVK_LONG     ? AVKI_LEAF_LONG
                    : avk_type_kind(t) == AVK_INT    ? AVKI_LEAF_INT
                    : avk_type_kind(t) == AVK_DOUBLE ? AVKI_LEAF_WORD8
                    : avk_type_kind(t) == AVK_FLOAT  ? AVKI_LEAF_WORD4
                                                     : AVKI_LEAF_NONE;
    if (s && !s->whole && avk_type_kind(t) != AVK_RECORD)
        return schema_error(b, AVK_ERR_INVALID_ARGUMENT,
                            "a projected path goes through field \"%s\", which is not a record",
                            name);
    switch (avk_type_kind(t)) {
    case AVK_NULL:
        col->kind = AVKI_COL_NULL;
        break;
    case AVK_BOOLEAN:
        col->kind = AVKI_COL_BOOL;
        break;
    case AVK_INT:
    case AVK_ENUM:
        col->kind = AVKI_COL_I32;
        break;
    case AVK_LONG:
        col->kind = AVKI_COL_I64;
        break;
    case AVK_FLOAT:
        col->kind = AVKI_COL_F32;
        break;
    case AVK_DOUBLE:
        col->kind = AVKI_COL_F64;
        break;
    case AVK_STRING:
        col->is_string = 1;
        /* fall through */
    case AVK_BYTES:
        col->kind = AVKI_COL_BINARY;
        if (avk_type_logical(t) == AVK_LOGICAL_DECIMAL)
            st = build_decimal(col, t);
        break;
    case AVK_FIXED:
        col->kind = AVKI_COL_FIXED;
        col->width = avk_type_fixed_size(t);
        if (col->width > INT32_MAX) /* Arrow's w:N is an int32 */
            return schema_error(b, AVK_ERR_SCHEMA,
                                "fixed %s of %zu bytes is wider than Arrow's fixed_size_binary "
                                "allows (2^31-1)",
                                avk_type_fullname(t), col->width);
        if (avk_type_logical(t) == AVK_LOGICAL_DECIMAL)
            st = build_decimal(col, t);
        break;
    case AVK_RECORD:
        st = build_record(b, t, col, s);
        break;
    case AVK_ARRAY:
        col->kind = AVKI_COL_LIST;
        st = add_children(b, col, 1);
        if (st == AVK_OK) {
            size_t old = path_push(b, ".items");
            st = build(b, avk_type_items(t), "item", NULL, &col->children[0]);
            b->path[old] = '\0';
        }
        break;
    case AVK_MAP:
        st = build_map(b, t, col);
        break;
    case AVK_UNION:
        st = build_union(b, t, col, s);
        break;
    }
    if (st == AVK_OK)
        col->empty_size = empty_size(col);
    return st;
}

/* Rows of a tile: 64 rows of a 100-column table are 51 KiB, within L2. */
#define TILE_ROWS 64

/* Scratch for a root record whose every field is a number (or skipped). */
static avk_status tile_init(avk_columns *c, avk_error *err)
{
    avki_col *root = c->root;
    size_t i, row = 0;
    if (root->kind != AVKI_COL_STRUCT || root->nullable || c->limits.max_depth < 1)
        return AVK_OK;
    for (i = 0; i < root->n_steps; i++) {
        const avki_col *k = root->steps[i].child;
        if (!k)
            continue;
        if (k->leaf == AVKI_LEAF_NONE)
            return AVK_OK;
        row += k->leaf == AVKI_LEAF_LONG || k->leaf == AVKI_LEAF_WORD8 ? 8 : 4;
    }
    if (row == 0)
        return AVK_OK;
    c->tile = avki_col_alloc(c, TILE_ROWS * row);
    c->runs = avki_col_alloc(c, root->n_steps * sizeof *c->runs);
    if (!c->tile || !c->runs)
        return avk_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                             "out of memory for the columns");
    c->tile_size = TILE_ROWS * row;
    c->row_bytes = row;
    for (i = 0; i < root->n_steps; i++) {
        const avki_col *k = root->steps[i].child;
        avki_col_run *last = c->n_runs ? &c->runs[c->n_runs - 1] : NULL;
        if (k && last && last->leaf == k->leaf) {
            last->count++;
            continue;
        }
        last = &c->runs[c->n_runs++];
        last->leaf = k ? k->leaf : AVKI_LEAF_NONE;
        last->count = 1;
        last->width = !k ? 0 : k->leaf == AVKI_LEAF_LONG || k->leaf == AVKI_LEAF_WORD8 ? 8 : 4;
        last->skip = k ? NULL : root->steps[i].skip;
    }
    return AVK_OK;
}

avk_status avk_columns_new(const avk_type *t, const avk_columns_options *opts, avk_columns **out,
                           avk_error *err)
{
    avk_columns_options o;
    avk_columns *c;
    build_ctx *b;
    sel root;
    size_t i;
    avk_status st = AVK_OK;
    avk_plan_options po;
    avk_allocator alloc;
    if (out)
        *out = NULL;
    if (!t || !out)
        return avk_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                             "avk_columns_new: NULL argument");
    avk_columns_options_init(&o);
    if (opts) {
        if (opts->struct_size < sizeof(size_t) || opts->struct_size > sizeof o)
            return avk_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                                 "avk_columns_new: options of an unknown size %zu",
                                 opts->struct_size);
        memcpy(&o, opts, opts->struct_size);
    }
    if (o.field_count && !o.fields)
        return avk_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                             "avk_columns_new: field_count %zu with NULL fields", o.field_count);
    alloc = avki_allocator_or_libc(o.allocator);
    c = alloc.alloc(alloc.ctx, sizeof *c);
    if (!c)
        return avk_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                             "out of memory for the columns");
    memset(c, 0, sizeof *c);
    c->alloc = alloc;
    c->limits = o.limits;
    avk_check_limits(&c->limits);
    c->flags = o.flags;
    c->type = t;
    avk_buffer_init(&c->block, &c->alloc);
    memset(&root, 0, sizeof root);
    for (i = 0; i < o.field_count && st == AVK_OK; i++) {
        if (!o.fields[i])
            st = avk_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                               "avk_columns_new: fields[%zu] is NULL", i);
        else
            st = sel_add(c, &root, o.fields[i], err);
    }
    if (st == AVK_OK && o.field_count && avk_type_kind(o.reader ? o.reader : t) != AVK_RECORD) {
        uint32_t nb;
        const avk_type *in = nullable_of(o.reader ? o.reader : t, &nb);
        if (!in || avk_type_kind(in) != AVK_RECORD)
            st = avk_error_set(err, AVK_ERR_SCHEMA, AVK_OFFSET_UNKNOWN,
                               "a projection needs a record at the root, not %s",
                               avk_kind_name(avk_type_kind(o.reader ? o.reader : t)));
    }
    if (st == AVK_OK) {
        b = alloc.alloc(alloc.ctx, sizeof *b);
        if (!b) {
            st = avk_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                               "out of memory for the columns");
        } else {
            memset(b, 0, sizeof *b);
            b->c = c;
            b->err = err;
            snprintf(b->path, sizeof b->path, "%s", avk_type_is_named(t) ? avk_type_name(t) : "");
            st = build(b, o.reader ? o.reader : t, "", o.field_count ? &root : NULL, &c->root);
            avki_col_free_mem(c, (void *)b->sized, b->cap_sized * sizeof *b->sized);
            avki_col_free_mem(c, b->sizes, b->cap_sized * sizeof *b->sizes);
            alloc.free(alloc.ctx, b, sizeof *b);
        }
    }
    sel_free(c, &root);
    c->resolving = o.reader != NULL;
    if (st == AVK_OK && !c->resolving)
        st = tile_init(c, err);
    avki_col_reset_budget(c);
    if (st == AVK_OK) {
        avk_plan_options_init(&po);
        po.limits = c->limits;
        po.allocator = &c->alloc;
        if (c->flags & AVK_COLUMNS_CHECK_UTF8)
            po.flags |= AVK_PLAN_CHECK_UTF8;
        st = c->resolving ? avk_plan_new_resolving(t, o.reader, &po, &c->plan, err)
                          : avk_plan_new(t, &po, &c->plan, err);
    }
    if (st != AVK_OK) {
        avk_columns_free(c);
        return st;
    }
    *out = c;
    return AVK_OK;
}

void avk_columns_free(avk_columns *c)
{
    if (!c)
        return;
    if (c->root)
        avki_col_free_mem(c, c->runs, c->root->n_steps * sizeof *c->runs);
    avki_col_free_mem(c, c->tile, c->tile_size);
    col_free(c, c->root);
    avk_plan_free(c->plan);
    avk_arena_free(c->arena);
    avk_buffer_destroy(&c->block);
    c->alloc.free(c->alloc.ctx, c, sizeof *c);
}
