/* avk_columns_append_value: values already decoded (resolved, generated, built) appended to the columns. */
#include <string.h>

#include "columns_internal.h"
#include "json/json_utf8.h"

static avk_status mismatch(avki_col_ctx *d, const avki_col *col, const avk_value *v)
{
    d->own_error = 1;
    return avk_error_set(d->err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                         "a %s value where column \"%s\" holds %s",
                         v->type ? avk_kind_name(avk_type_kind(v->type)) : "typeless",
                         col->name ? col->name : "",
                         col->type ? avk_kind_name(avk_type_kind(col->type)) : "values");
}

static avk_status append(avki_col_ctx *d, avki_col *col, const avk_value *v);

/* A string or map key under AVK_COLUMNS_CHECK_UTF8: valid UTF-8. */
static avk_status check_text(avki_col_ctx *d, const avki_col *col, const avk_bytes *b)
{
    if (!col->is_string || !(d->c->flags & AVK_COLUMNS_CHECK_UTF8) ||
        avki_utf8_valid_prefix(b->data, b->len) == b->len)
        return AVK_OK;
    d->own_error = 1;
    return avk_error_set(d->err, AVK_ERR_MALFORMED, AVK_OFFSET_UNKNOWN,
                         "a string of column \"%s\" is not valid UTF-8", col->name ? col->name : "");
}

/* Item i of an array value, whether stored typed or boxed. */
static avk_status append_item(avki_col_ctx *d, avki_col *col, const avk_value *arr, size_t i)
{
    size_t size;
    avk_value tmp;
    const avk_type *it = avk_type_items(arr->type);
    const uint8_t *items = arr->u.array.items;
    if (!avk_array_is_typed(arr->type, &size))
        return append(d, col, &((const avk_value *)arr->u.array.items)[i]);
    memset(&tmp, 0, sizeof tmp);
    tmp.type = it;
    switch (avk_type_kind(it)) {
    case AVK_BOOLEAN:
        tmp.u.boolean = items[i];
        break;
    case AVK_INT:
        memcpy(&tmp.u.i, items + 4 * i, 4);
        break;
    case AVK_LONG:
        memcpy(&tmp.u.l, items + 8 * i, 8);
        break;
    case AVK_FLOAT:
        memcpy(&tmp.u.f, items + 4 * i, 4);
        break;
    case AVK_DOUBLE:
        memcpy(&tmp.u.d, items + 8 * i, 8);
        break;
    case AVK_FIXED:
        tmp.u.bytes.data = items + size * i;
        tmp.u.bytes.len = size;
        break;
    default: /* null */
        break;
    }
    return append(d, col, &tmp);
}

static avk_status append_payload(avki_col_ctx *d, avki_col *col, const avk_value *v)
{
    avk_kind k = v->type ? avk_type_kind(v->type) : AVK_NULL;
    size_t i;
    switch (col->kind) {
    case AVKI_COL_NULL:
        if (k != AVK_NULL)
            return mismatch(d, col, v);
        break;
    case AVKI_COL_BOOL:
        if (k != AVK_BOOLEAN)
            return mismatch(d, col, v);
        AVK_TRY(avki_col_put_bit(d->c, &col->values, col->length, v->u.boolean != 0));
        break;
    case AVKI_COL_I32:
        if (k == AVK_ENUM && avk_type_kind(col->type) == AVK_ENUM) {
            int32_t x = (int32_t)v->u.index;
            if (v->u.index >= avk_type_symbol_count(col->type))
                return mismatch(d, col, v);
            AVK_TRY(avki_col_put(d->c, &col->values, &x, 4));
        } else if (k == AVK_INT && avk_type_kind(col->type) == AVK_INT) {
            AVK_TRY(avki_col_put(d->c, &col->values, &v->u.i, 4));
        } else {
            return mismatch(d, col, v);
        }
        break;
    case AVKI_COL_I64:
        if (k != AVK_LONG)
            return mismatch(d, col, v);
        AVK_TRY(avki_col_put(d->c, &col->values, &v->u.l, 8));
        break;
    case AVKI_COL_F32:
        if (k != AVK_FLOAT)
            return mismatch(d, col, v);
        AVK_TRY(avki_col_put(d->c, &col->values, &v->u.f, 4));
        break;
    case AVKI_COL_F64:
        if (k != AVK_DOUBLE)
            return mismatch(d, col, v);
        AVK_TRY(avki_col_put(d->c, &col->values, &v->u.d, 8));
        break;
    case AVKI_COL_BINARY:
        if (k != AVK_STRING && k != AVK_BYTES)
            return mismatch(d, col, v);
        AVK_TRY(check_text(d, col, &v->u.bytes));
        if (v->u.bytes.len > AVKI_COL_MAX_OFFSET - col->data.len)
            return avki_col_too_large(d, "bytes of strings or bytes");
        if (v->u.bytes.len)
            AVK_TRY(avki_col_put(d->c, &col->data, v->u.bytes.data, v->u.bytes.len));
        AVK_TRY(avki_col_put_offset(d, col, col->data.len, "bytes of strings or bytes"));
        break;
    case AVKI_COL_FIXED:
        if (k != AVK_FIXED || v->u.bytes.len != col->width)
            return mismatch(d, col, v);
        if (col->width)
            AVK_TRY(avki_col_put(d->c, &col->values, v->u.bytes.data, col->width));
        break;
    case AVKI_COL_DECIMAL:
        if ((k != AVK_BYTES && k != AVK_FIXED) ||
            (col->src_fixed && v->u.bytes.len != col->src_fixed))
            return mismatch(d, col, v);
        AVK_TRY(avki_col_put_decimal(d, col, v->u.bytes.data, v->u.bytes.len,
                                      AVK_OFFSET_UNKNOWN));
        break;
    case AVKI_COL_STRUCT:
        if (k != AVK_RECORD || avk_type_field_count(v->type) != col->n_steps)
            return mismatch(d, col, v);
        for (i = 0; i < col->n_steps; i++)
            if (col->steps[i].child)
                AVK_TRY(append(d, col->steps[i].child, &v->u.fields[i]));
        break;
    case AVKI_COL_LIST:
        if (k != AVK_ARRAY)
            return mismatch(d, col, v);
        for (i = 0; i < v->u.array.count; i++)
            AVK_TRY(append_item(d, col->children[0], v, i));
        AVK_TRY(avki_col_put_offset(d, col, col->children[0]->length, "items of arrays or maps"));
        break;
    case AVKI_COL_MAP: {
        avki_col *entries = col->children[0];
        if (k != AVK_MAP)
            return mismatch(d, col, v);
        for (i = 0; i < v->u.map.count; i++) {
            avk_value key;
            memset(&key, 0, sizeof key);
            key.type = NULL;
            key.u.bytes = v->u.map.keys[i];
            /* keys: a string column; the value's own type is not needed */
            AVK_TRY(check_text(d, entries->children[0], &key.u.bytes));
            if (key.u.bytes.len > AVKI_COL_MAX_OFFSET - entries->children[0]->data.len)
                return avki_col_too_large(d, "bytes of strings or bytes");
            if (key.u.bytes.len)
                AVK_TRY(avki_col_put(d->c, &entries->children[0]->data, key.u.bytes.data,
                                     key.u.bytes.len));
            AVK_TRY(avki_col_put_offset(d, entries->children[0], entries->children[0]->data.len,
                                        "bytes of strings or bytes"));
            entries->children[0]->length++;
            AVK_TRY(append(d, entries->children[1], &v->u.map.values[i]));
            entries->length++;
        }
        AVK_TRY(avki_col_put_offset(d, col, entries->length, "items of arrays or maps"));
        break;
    }
    case AVKI_COL_UNION: {
        uint32_t b;
        int8_t id;
        int32_t at;
        avki_col *kid;
        if (k != AVK_UNION || !v->u.branch.value)
            return mismatch(d, col, v);
        b = v->u.branch.index;
        if (b >= col->n_children)
            return mismatch(d, col, v);
        kid = col->children[b];
        if (kid->length > AVKI_COL_MAX_OFFSET)
            return avki_col_too_large(d, "values in a union branch");
        id = (int8_t)b;
        at = (int32_t)kid->length;
        AVK_TRY(avki_col_put(d->c, &col->values, &id, 1));
        AVK_TRY(avki_col_put(d->c, &col->data, &at, 4));
        AVK_TRY(append(d, kid, v->u.branch.value));
        break;
    }
    }
    col->length++;
    return AVK_OK;
}

static avk_status append(avki_col_ctx *d, avki_col *col, const avk_value *v)
{
    if (!col->nullable)
        return append_payload(d, col, v);
    /* a nullable column is a union of two branches: an index past them is
     * another shape, as for any other union */
    if (!v->type || avk_type_kind(v->type) != AVK_UNION || !v->u.branch.value ||
        v->u.branch.index > 1)
        return mismatch(d, col, v);
    if (v->u.branch.index == col->null_branch)
        return avki_col_append_null(d, col);
    AVK_TRY(avki_col_put_bit(d->c, &col->validity, col->length, 1));
    return append_payload(d, col, v->u.branch.value);
}

avk_status avk_columns_append_value(avk_columns *c, const avk_value *v, avk_error *err)
{
    avki_col_ctx d;
    avk_status st;
    uint64_t budget;
    if (!c || !v)
        return avk_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                             "avk_columns_append_value: NULL argument");
    memset(&d, 0, sizeof d);
    d.c = c;
    d.err = err;
    budget = c->placeholder_left;
    avki_col_mark(c->root);
    st = append(&d, c->root, v);
    if (st != AVK_OK) {
        avki_col_rollback(c->root);
        c->placeholder_left = budget;
        if (!d.own_error)
            avk_error_set(err, st, AVK_OFFSET_UNKNOWN, "out of memory for the columns");
    }
    return st;
}
