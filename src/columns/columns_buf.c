/* Column buffers: growth, nulls and placeholders, decimals, and the marks a failed call goes back to. */
#include <string.h>

#include "avrokit/logical.h"
#include "columns_internal.h"

avk_status avki_col_grow(avk_columns *c, avki_col_buf *b, size_t need)
{
    size_t cap = b->cap ? b->cap : 64;
    uint8_t *p;
    if (need > SIZE_MAX - b->len)
        return AVK_ERR_NO_MEMORY;
    while (cap < b->len + need) {
        if (cap > SIZE_MAX / 2)
            return AVK_ERR_NO_MEMORY;
        cap *= 2;
    }
    p = b->data ? c->alloc.realloc(c->alloc.ctx, b->data, b->cap, cap)
                : c->alloc.alloc(c->alloc.ctx, cap);
    if (!p)
        return AVK_ERR_NO_MEMORY;
    b->data = p;
    b->cap = cap;
    return AVK_OK;
}

avk_status avki_col_too_large(avki_col_ctx *d, const char *what)
{
    d->own_error = 1;
    return avk_error_set(d->err, AVK_ERR_LIMIT, d->r ? avk_reader_offset(d->r) : AVK_OFFSET_UNKNOWN,
                         "the column set holds more than 2^31-1 %s, the most Arrow's 32-bit "
                         "offsets reach: export or clear it and go on",
                         what);
}


/* A null of a nullable column: bit clear, an empty value under it. */
avk_status avki_col_append_null(avki_col_ctx *d, avki_col *col)
{
    if (AVK_UNLIKELY(col->empty_size > d->c->placeholder_left)) {
        d->own_error = 1;
        return avk_error_set(d->err, AVK_ERR_LIMIT, d->r ? d->at : AVK_OFFSET_UNKNOWN,
                             "the nulls of column \"%s\" would take more than max_memory (%llu "
                             "bytes) of placeholder values (Arrow keeps a value under every "
                             "null): raise limits.max_memory, project fewer fields or export "
                             "more often",
                             col->name ? col->name : "",
                             (unsigned long long)d->c->limits.max_memory);
    }
    d->c->placeholder_left -= col->empty_size;
    AVK_TRY(avki_col_put_bit(d->c, &col->validity, col->length, 0));
    col->null_count++;
    return avki_col_append_empty(d, col);
}

/* A placeholder value (zeros, empty strings and lists): what sits under a
 * null, in every column of a null struct (Arrow's children are as long as
 * their struct). */
avk_status avki_col_append_empty(avki_col_ctx *d, avki_col *col)
{
    static const uint8_t zeros[32];
    size_t i;
    switch (col->kind) {
    case AVKI_COL_NULL:
        break;
    case AVKI_COL_BOOL:
        AVK_TRY(avki_col_put_bit(d->c, &col->values, col->length, 0));
        break;
    case AVKI_COL_I32:
    case AVKI_COL_F32:
        AVK_TRY(avki_col_put(d->c, &col->values, zeros, 4));
        break;
    case AVKI_COL_I64:
    case AVKI_COL_F64:
        AVK_TRY(avki_col_put(d->c, &col->values, zeros, 8));
        break;
    case AVKI_COL_FIXED:
    case AVKI_COL_DECIMAL:
        for (i = 0; i < col->width; i += sizeof zeros)
            AVK_TRY(avki_col_put(d->c, &col->values, zeros,
                        col->width - i < sizeof zeros ? col->width - i : sizeof zeros));
        break;
    case AVKI_COL_BINARY:
        AVK_TRY(avki_col_put_offset(d, col, col->data.len, "bytes of strings or bytes"));
        break;
    case AVKI_COL_LIST:
    case AVKI_COL_MAP:
        AVK_TRY(avki_col_put_offset(d, col, col->children[0]->length, "items of arrays or maps"));
        break;
    case AVKI_COL_STRUCT:
        for (i = 0; i < col->n_children; i++) {
            avki_col *k = col->children[i];
            AVK_TRY(k->nullable ? avki_col_append_null(d, k) : avki_col_append_empty(d, k));
        }
        break;
    case AVKI_COL_UNION: {
        /* branch 0's placeholder */
        int8_t id = 0;
        int32_t at;
        avki_col *k = col->children[0];
        if (k->length > AVKI_COL_MAX_OFFSET)
            return avki_col_too_large(d, "values in a union branch");
        at = (int32_t)k->length;
        AVK_TRY(avki_col_put(d->c, &col->values, &id, 1));
        AVK_TRY(avki_col_put(d->c, &col->data, &at, 4));
        AVK_TRY(k->nullable ? avki_col_append_null(d, k) : avki_col_append_empty(d, k));
        break;
    }
    }
    col->length++;
    return AVK_OK;
}

/* ---- marks: where a call started, to go back to on error ---------------- */

/* Big-endian two's complement of any length, sign-extended to width
 * (avk_decimal_to_fixed), stored little-endian as Arrow keeps decimals. */
avk_status avki_col_put_decimal(avki_col_ctx *d, avki_col *col, const uint8_t *p, uint64_t n,
                                uint64_t offset)
{
    uint8_t be[32], le[32];
    size_t i;
    if (avk_decimal_to_fixed(p, (size_t)n, be, col->width) != AVK_OK) {
        d->own_error = 1;
        return avk_error_set(d->err, AVK_ERR_MALFORMED, offset,
                             "a decimal of %llu bytes does not fit Arrow's %zu-byte decimal "
                             "(precision %d)",
                             (unsigned long long)n, col->width,
                             avk_type_decimal_precision(col->type));
    }
    for (i = 0; i < col->width; i++)
        le[i] = be[col->width - 1 - i];
    return avki_col_put(d->c, &col->values, le, col->width);
}

void avki_col_mark(avki_col *col)
{
    size_t i;
    col->mark_length = col->length;
    col->mark_nulls = col->null_count;
    for (i = 0; i < col->n_children; i++)
        avki_col_mark(col->children[i]);
}

/* Lengths back to length (buffers' bytes follow from it). */
static void col_set_length(avki_col *col, uint64_t length, uint64_t nulls)
{
    col->length = length;
    col->null_count = nulls;
    col->validity.len = col->nullable ? (size_t)((length + 7) / 8) : 0;
    switch (col->kind) {
    case AVKI_COL_BOOL:
        col->values.len = (size_t)((length + 7) / 8);
        break;
    case AVKI_COL_I32:
    case AVKI_COL_F32:
        col->values.len = (size_t)length * 4;
        break;
    case AVKI_COL_I64:
    case AVKI_COL_F64:
        col->values.len = (size_t)length * 8;
        break;
    case AVKI_COL_FIXED:
    case AVKI_COL_DECIMAL:
        col->values.len = (size_t)length * col->width;
        break;
    case AVKI_COL_BINARY:
    case AVKI_COL_LIST:
    case AVKI_COL_MAP:
        if (col->values.len)
            col->values.len = (size_t)(length + 1) * 4;
        if (col->kind == AVKI_COL_BINARY)
            col->data.len = (size_t)avki_col_offset_at(col, length);
        break;
    case AVKI_COL_UNION:
        col->values.len = (size_t)length;
        col->data.len = (size_t)length * 4;
        break;
    default:
        break;
    }
}

void avki_col_rollback(avki_col *col)
{
    size_t i;
    col_set_length(col, col->mark_length, col->mark_nulls);
    for (i = 0; i < col->n_children; i++)
        avki_col_rollback(col->children[i]);
}

void avki_col_reset_budget(avk_columns *c)
{
    c->placeholder_left = c->limits.max_memory;
}

void avki_col_clear(avki_col *col)
{
    size_t i;
    col_set_length(col, 0, 0);
    col->values.len = 0;
    for (i = 0; i < col->n_children; i++)
        avki_col_clear(col->children[i]);
}

