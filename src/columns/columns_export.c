/* avk_columns_export and _export_schema: the column tree handed over through the Arrow C Data Interface. */
#include <stdio.h>
#include <string.h>

#include "columns_internal.h"
#include "common/error.h"

/* What an empty buffer points at: Arrow wants offsets [0] even for no
 * values, and consumers read no further. */
static const int64_t empty_buffer[8];

/* n zeroed child structs of elem bytes (release NULL until filled) and the
 * array of pointers to them, allocated together or not at all. */
static avk_status kids_alloc(const avk_allocator *a, size_t n, size_t elem, void **storage,
                             void **ptrs)
{
    *storage = a->alloc(a->ctx, n * elem);
    *ptrs = a->alloc(a->ctx, n * sizeof(void *));
    if (*storage && *ptrs) {
        memset(*storage, 0, n * elem);
        return AVK_OK;
    }
    if (*storage)
        a->free(a->ctx, *storage, n * elem);
    if (*ptrs)
        a->free(a->ctx, *ptrs, n * sizeof(void *));
    *storage = *ptrs = NULL;
    return AVK_ERR_NO_MEMORY;
}

/* ---- schemas ------------------------------------------------------------- */

typedef struct schema_priv {
    avk_allocator alloc;
    char *format;
    size_t format_size;
    char *name;
    size_t name_size;
    struct ArrowSchema *kids_storage;
    struct ArrowSchema **kids;
    size_t n_kids;
    struct ArrowSchema *dict;
} schema_priv;

static void schema_release(struct ArrowSchema *s)
{
    schema_priv *p;
    size_t i;
    avk_allocator a;
    if (!s || !s->release)
        return;
    p = s->private_data;
    a = p->alloc;
    for (i = 0; i < p->n_kids; i++)
        if (p->kids[i]->release)
            p->kids[i]->release(p->kids[i]);
    if (p->dict) {
        if (p->dict->release)
            p->dict->release(p->dict);
        a.free(a.ctx, p->dict, sizeof *p->dict);
    }
    if (p->kids_storage)
        a.free(a.ctx, p->kids_storage, p->n_kids * sizeof *p->kids_storage);
    if (p->kids)
        a.free(a.ctx, p->kids, p->n_kids * sizeof *p->kids);
    if (p->format)
        a.free(a.ctx, p->format, p->format_size);
    if (p->name)
        a.free(a.ctx, p->name, p->name_size);
    a.free(a.ctx, p, sizeof *p);
    s->release = NULL;
}

static char *copy_text(const avk_allocator *a, const char *text, size_t *size)
{
    char *s;
    *size = strlen(text) + 1;
    s = a->alloc(a->ctx, *size);
    if (s)
        memcpy(s, text, *size);
    return s;
}

/* The format string of a column (Arrow's C Data Interface names). */
static void format_of(const avki_col *col, char *out, size_t cap)
{
    const avk_type *t = col->type;
    size_t i, len;
    switch (col->kind) {
    case AVKI_COL_NULL:
        snprintf(out, cap, "n");
        return;
    case AVKI_COL_BOOL:
        snprintf(out, cap, "b");
        return;
    case AVKI_COL_I32:
        switch (t ? avk_type_logical(t) : AVK_LOGICAL_NONE) {
        case AVK_LOGICAL_DATE:
            snprintf(out, cap, "tdD");
            return;
        case AVK_LOGICAL_TIME_MILLIS:
            snprintf(out, cap, "ttm");
            return;
        default:
            snprintf(out, cap, "i");
            return;
        }
    case AVKI_COL_I64:
        switch (t ? avk_type_logical(t) : AVK_LOGICAL_NONE) {
        case AVK_LOGICAL_TIME_MICROS:
            snprintf(out, cap, "ttu");
            return;
        case AVK_LOGICAL_TIMESTAMP_MILLIS:
            snprintf(out, cap, "tsm:UTC");
            return;
        case AVK_LOGICAL_TIMESTAMP_MICROS:
            snprintf(out, cap, "tsu:UTC");
            return;
        case AVK_LOGICAL_TIMESTAMP_NANOS:
            snprintf(out, cap, "tsn:UTC");
            return;
        case AVK_LOGICAL_LOCAL_TIMESTAMP_MILLIS:
            snprintf(out, cap, "tsm:");
            return;
        case AVK_LOGICAL_LOCAL_TIMESTAMP_MICROS:
            snprintf(out, cap, "tsu:");
            return;
        case AVK_LOGICAL_LOCAL_TIMESTAMP_NANOS:
            snprintf(out, cap, "tsn:");
            return;
        default:
            snprintf(out, cap, "l");
            return;
        }
    case AVKI_COL_F32:
        snprintf(out, cap, "f");
        return;
    case AVKI_COL_F64:
        snprintf(out, cap, "g");
        return;
    case AVKI_COL_BINARY:
        snprintf(out, cap, col->is_string ? "u" : "z");
        return;
    case AVKI_COL_FIXED:
        snprintf(out, cap, "w:%zu", col->width);
        return;
    case AVKI_COL_DECIMAL:
        snprintf(out, cap, col->width == 16 ? "d:%d,%d" : "d:%d,%d,256",
                 avk_type_decimal_precision(t), avk_type_decimal_scale(t));
        return;
    case AVKI_COL_STRUCT:
        snprintf(out, cap, "+s");
        return;
    case AVKI_COL_LIST:
        snprintf(out, cap, "+l");
        return;
    case AVKI_COL_MAP:
        snprintf(out, cap, "+m");
        return;
    case AVKI_COL_UNION:
        len = (size_t)snprintf(out, cap, "+ud:");
        for (i = 0; i < col->n_children && len < cap; i++)
            len += (size_t)snprintf(out + len, cap - len, i ? ",%zu" : "%zu", i);
        return;
    }
}

static int is_enum(const avki_col *col)
{
    return col->kind == AVKI_COL_I32 && col->type && avk_type_kind(col->type) == AVK_ENUM;
}

static avk_status schema_fill(const avk_allocator *a, const avki_col *col, int64_t flags,
                              struct ArrowSchema *out)
{
    schema_priv *p = a->alloc(a->ctx, sizeof *p);
    char format[4 + 4 * 128];
    size_t i;
    memset(out, 0, sizeof *out);
    if (!p)
        return AVK_ERR_NO_MEMORY;
    memset(p, 0, sizeof *p);
    p->alloc = *a;
    out->private_data = p;
    out->release = schema_release;
    format_of(col, format, sizeof format);
    out->flags = flags;
    p->format = copy_text(a, format, &p->format_size);
    p->name = copy_text(a, col->name ? col->name : "", &p->name_size);
    if (!p->format || !p->name)
        return AVK_ERR_NO_MEMORY;
    out->format = p->format;
    out->name = p->name;
    if (is_enum(col)) {
        /* int32 indexes into the symbols, a utf8 dictionary */
        static const avki_col symbols = {.kind = AVKI_COL_BINARY, .is_string = 1, .name = ""};
        p->dict = a->alloc(a->ctx, sizeof *p->dict);
        if (!p->dict)
            return AVK_ERR_NO_MEMORY;
        AVK_TRY(schema_fill(a, &symbols, 0, p->dict));
        out->dictionary = p->dict;
    }
    if (col->n_children) {
        void *storage, *ptrs;
        AVK_TRY(kids_alloc(a, col->n_children, sizeof *p->kids_storage, &storage, &ptrs));
        p->kids_storage = storage;
        p->kids = ptrs;
        for (i = 0; i < col->n_children; i++)
            p->kids[i] = &p->kids_storage[i];
        p->n_kids = col->n_children;
        out->n_children = (int64_t)col->n_children;
        out->children = p->kids;
        for (i = 0; i < col->n_children; i++) {
            const avki_col *k = col->children[i];
            /* Map entries and keys are never null; a union's null branch is. */
            int64_t kf = (k->nullable || k->kind == AVKI_COL_NULL) ? ARROW_FLAG_NULLABLE : 0;
            AVK_TRY(schema_fill(a, k, kf, p->kids[i]));
        }
    }
    return AVK_OK;
}

avk_status avk_columns_export_schema(const avk_columns *c, struct ArrowSchema *out, avk_error *err)
{
    avk_status st;
    if (!c || !out)
        return avk_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                             "avk_columns_export_schema: NULL argument");
    st = schema_fill(&c->alloc, c->root, c->root->nullable ? ARROW_FLAG_NULLABLE : 0, out);
    if (st != AVK_OK) {
        schema_release(out);
        return avk_error_set(err, st, AVK_OFFSET_UNKNOWN, "out of memory exporting the schema");
    }
    return AVK_OK;
}

/* ---- arrays -------------------------------------------------------------- */

typedef struct array_priv {
    avk_allocator alloc;
    const void *bufs[3];
    uint8_t *owned[3];
    size_t owned_cap[3];
    struct ArrowArray *kids_storage;
    struct ArrowArray **kids;
    size_t n_kids;
    struct ArrowArray *dict;
} array_priv;

static void array_release(struct ArrowArray *a)
{
    array_priv *p;
    avk_allocator al;
    size_t i;
    if (!a || !a->release)
        return;
    p = a->private_data;
    al = p->alloc;
    for (i = 0; i < p->n_kids; i++)
        if (p->kids[i]->release)
            p->kids[i]->release(p->kids[i]);
    if (p->dict) {
        if (p->dict->release)
            p->dict->release(p->dict);
        al.free(al.ctx, p->dict, sizeof *p->dict);
    }
    for (i = 0; i < 3; i++)
        if (p->owned[i])
            al.free(al.ctx, p->owned[i], p->owned_cap[i]);
    if (p->kids_storage)
        al.free(al.ctx, p->kids_storage, p->n_kids * sizeof *p->kids_storage);
    if (p->kids)
        al.free(al.ctx, p->kids, p->n_kids * sizeof *p->kids);
    al.free(al.ctx, p, sizeof *p);
    a->release = NULL;
}

/* The symbols of an enum as a utf8 array (its own memory). */
static avk_status dictionary_fill(const avk_allocator *a, const avk_type *t, struct ArrowArray *out)
{
    array_priv *p = a->alloc(a->ctx, sizeof *p);
    size_t i, n = avk_type_symbol_count(t), bytes = 0;
    int32_t *offsets;
    memset(out, 0, sizeof *out);
    if (!p)
        return AVK_ERR_NO_MEMORY;
    memset(p, 0, sizeof *p);
    p->alloc = *a;
    out->private_data = p;
    out->release = array_release;
    for (i = 0; i < n; i++)
        bytes += strlen(avk_type_symbol(t, i));
    p->owned_cap[1] = (n + 1) * sizeof(int32_t);
    p->owned_cap[2] = bytes ? bytes : 1;
    p->owned[1] = a->alloc(a->ctx, p->owned_cap[1]);
    p->owned[2] = a->alloc(a->ctx, p->owned_cap[2]);
    if (!p->owned[1] || !p->owned[2])
        return AVK_ERR_NO_MEMORY;
    offsets = (int32_t *)(void *)p->owned[1];
    offsets[0] = 0;
    bytes = 0;
    for (i = 0; i < n; i++) {
        size_t len = strlen(avk_type_symbol(t, i));
        memcpy(p->owned[2] + bytes, avk_type_symbol(t, i), len);
        bytes += len;
        offsets[i + 1] = (int32_t)bytes;
    }
    p->bufs[0] = NULL;
    p->bufs[1] = p->owned[1];
    p->bufs[2] = p->owned[2];
    out->length = (int64_t)n;
    out->n_buffers = 3;
    out->buffers = p->bufs;
    return AVK_OK;
}

/* First pass: every struct the array needs, allocated before any buffer
 * moves, so running out of memory leaves the columns as they were. */
static avk_status array_alloc(const avk_allocator *a, const avki_col *col, struct ArrowArray *out)
{
    array_priv *p = a->alloc(a->ctx, sizeof *p);
    size_t i;
    memset(out, 0, sizeof *out);
    if (!p)
        return AVK_ERR_NO_MEMORY;
    memset(p, 0, sizeof *p);
    p->alloc = *a;
    out->private_data = p;
    out->release = array_release;
    if (is_enum(col)) {
        p->dict = a->alloc(a->ctx, sizeof *p->dict);
        if (!p->dict)
            return AVK_ERR_NO_MEMORY;
        AVK_TRY(dictionary_fill(a, col->type, p->dict));
        out->dictionary = p->dict;
    }
    if (col->n_children) {
        void *storage, *ptrs;
        AVK_TRY(kids_alloc(a, col->n_children, sizeof *p->kids_storage, &storage, &ptrs));
        p->kids_storage = storage;
        p->kids = ptrs;
        for (i = 0; i < col->n_children; i++)
            p->kids[i] = &p->kids_storage[i];
        p->n_kids = col->n_children;
        out->n_children = (int64_t)col->n_children;
        out->children = p->kids;
        for (i = 0; i < col->n_children; i++)
            AVK_TRY(array_alloc(a, col->children[i], p->kids[i]));
    }
    return AVK_OK;
}

/* Hands buffer b over as buffer i (an empty one as the shared zeros). */
static void take(array_priv *p, int i, avki_col_buf *b)
{
    if (b->len) {
        p->owned[i] = b->data;
        p->owned_cap[i] = b->cap;
        p->bufs[i] = b->data;
    } else {
        if (b->data)
            p->alloc.free(p->alloc.ctx, b->data, b->cap);
        p->bufs[i] = empty_buffer;
    }
    b->data = NULL;
    b->len = b->cap = 0;
}

/* Second pass: buffers moved from the columns (nothing can fail). */
static void array_move(avki_col *col, struct ArrowArray *out)
{
    array_priv *p = out->private_data;
    size_t i;
    out->length = (int64_t)col->length;
    out->null_count = (int64_t)col->null_count;
    out->offset = 0;
    out->buffers = p->bufs;
    /* Validity: none when nothing is null (Arrow allows NULL then). */
    if (col->kind != AVKI_COL_UNION && col->kind != AVKI_COL_NULL) {
        if (col->null_count) {
            take(p, 0, &col->validity);
        } else {
            p->bufs[0] = NULL;
            col->validity.len = 0; /* kept for the next values */
        }
    }
    switch (col->kind) {
    case AVKI_COL_NULL:
        out->n_buffers = 0;
        out->null_count = (int64_t)col->length;
        break;
    case AVKI_COL_STRUCT:
        out->n_buffers = 1;
        break;
    case AVKI_COL_BINARY:
        out->n_buffers = 3;
        take(p, 1, &col->values);
        take(p, 2, &col->data);
        break;
    case AVKI_COL_UNION:
        out->n_buffers = 2;
        out->null_count = 0;
        take(p, 0, &col->values);
        take(p, 1, &col->data);
        break;
    default: /* fixed-width values, or list and map offsets */
        out->n_buffers = 2;
        take(p, 1, &col->values);
        break;
    }
    col->length = 0;
    col->null_count = 0;
    for (i = 0; i < col->n_children; i++)
        array_move(col->children[i], p->kids[i]);
}

avk_status avk_columns_export(avk_columns *c, struct ArrowArray *out, avk_error *err)
{
    avk_status st;
    if (!c || !out)
        return avk_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                             "avk_columns_export: NULL argument");
    st = array_alloc(&c->alloc, c->root, out);
    if (st != AVK_OK) {
        array_release(out);
        return avk_error_set(err, st, AVK_OFFSET_UNKNOWN, "out of memory exporting the columns");
    }
    array_move(c->root, out);
    avki_col_reset_budget(c);
    return AVK_OK;
}
