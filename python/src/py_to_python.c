/* Decoded values to Python objects: records as dicts with cached keys, logical types as datetime, Decimal and UUID. */
#include <string.h>

#include "pyavk.h"
#include <datetime.h>

/* Field names and enum symbols of one named type, as Python strings. */
typedef struct names_entry {
    const avk_type *type;
    PyObject **strings;
    size_t count;
} names_entry;

/* Open addressing by type pointer; filled once, read per value. */
struct pyavk_names {
    names_entry *slots;
    size_t cap; /* a power of two */
    size_t used;
};

static size_t slot_of(const pyavk_names *n, const avk_type *t)
{
    size_t h = (size_t)(((uintptr_t)t >> 4) * 0x9E3779B97F4A7C15ull);
    size_t i = h & (n->cap - 1);
    while (n->slots[i].type && n->slots[i].type != t)
        i = (i + 1) & (n->cap - 1);
    return i;
}

static int names_grow(pyavk_names *n)
{
    pyavk_names bigger;
    size_t i;
    bigger.cap = n->cap ? 2 * n->cap : 64;
    bigger.used = n->used;
    bigger.slots = PyMem_Calloc(bigger.cap, sizeof *bigger.slots);
    if (!bigger.slots)
        return -1;
    for (i = 0; i < n->cap; i++)
        if (n->slots[i].type)
            bigger.slots[slot_of(&bigger, n->slots[i].type)] = n->slots[i];
    PyMem_Free(n->slots);
    *n = bigger;
    return 0;
}

/* Adds t and everything below it (named types once). */
static int names_add(pyavk_names *n, const avk_type *t, int depth)
{
    size_t i, k;
    names_entry *e;
    if (depth > 10000) {
        PyErr_SetString(PyExc_RecursionError, "schema nested too deeply");
        return -1;
    }
    switch (avk_type_kind(t)) {
    case AVK_ARRAY:
        return names_add(n, avk_type_items(t), depth + 1);
    case AVK_MAP:
        return names_add(n, avk_type_values(t), depth + 1);
    case AVK_UNION:
        for (i = 0; i < avk_type_branch_count(t); i++)
            if (names_add(n, avk_type_branch(t, i), depth + 1) < 0)
                return -1;
        return 0;
    case AVK_RECORD:
    case AVK_ENUM:
        break;
    default:
        return 0;
    }
    if ((n->used + 1) * 2 > n->cap && names_grow(n) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    e = &n->slots[slot_of(n, t)];
    if (e->type)
        return 0;
    e->type = t;
    n->used++;
    e->count = avk_type_kind(t) == AVK_RECORD ? avk_type_field_count(t) : avk_type_symbol_count(t);
    e->strings = PyMem_Calloc(e->count ? e->count : 1, sizeof *e->strings);
    if (!e->strings) {
        PyErr_NoMemory();
        return -1;
    }
    for (k = 0; k < e->count; k++) {
        const char *s = avk_type_kind(t) == AVK_RECORD ? avk_field_name(avk_type_field(t, k))
                                                       : avk_type_symbol(t, k);
        e->strings[k] = PyUnicode_InternFromString(s);
        if (!e->strings[k])
            return -1;
    }
    if (avk_type_kind(t) == AVK_RECORD)
        for (k = 0; k < e->count; k++)
            if (names_add(n, avk_field_type(avk_type_field(t, k)), depth + 1) < 0)
                return -1;
    return 0;
}

pyavk_names *pyavk_names_new(const avk_type *root)
{
    pyavk_names *n = PyMem_Calloc(1, sizeof *n);
    if (!n) {
        PyErr_NoMemory();
        return NULL;
    }
    if (names_grow(n) < 0) {
        PyMem_Free(n);
        PyErr_NoMemory();
        return NULL;
    }
    if (names_add(n, root, 0) < 0) {
        pyavk_names_free(n);
        return NULL;
    }
    return n;
}

void pyavk_names_free(pyavk_names *n)
{
    size_t i, k;
    if (!n)
        return;
    for (i = 0; i < n->cap; i++) {
        if (!n->slots[i].type)
            continue;
        for (k = 0; k < n->slots[i].count; k++)
            Py_XDECREF(n->slots[i].strings[k]);
        PyMem_Free(n->slots[i].strings);
    }
    PyMem_Free(n->slots);
    PyMem_Free(n);
}

static PyObject **strings_of(pyavk_names *n, const avk_type *t)
{
    names_entry *e = &n->slots[slot_of(n, t)];
    return e->type ? e->strings : NULL;
}

/* ---- logical types ------------------------------------------------------ */

/* datetime's years: outside them the caller gives the raw integer. */
static int in_datetime_years(int year)
{
    return year >= 1 && year <= 9999;
}

static PyObject *date_of(int32_t days)
{
    int y;
    unsigned m, d;
    if (avk_date_to_civil(days, &y, &m, &d) != AVK_OK || !in_datetime_years(y))
        return NULL;
    return PyDate_FromDate(y, (int)m, (int)d);
}

/* A datetime (microseconds: nanoseconds are cut) of a timestamp in unit. */
static PyObject *datetime_of(int64_t t, avk_logical unit, int aware)
{
    int64_t days;
    uint32_t sod, fraction, us;
    int y;
    unsigned m, d;
    if (avk_timestamp_split(t, unit, &days, &sod, &fraction) != AVK_OK || days < INT32_MIN ||
        days > INT32_MAX || avk_date_to_civil((int32_t)days, &y, &m, &d) != AVK_OK ||
        !in_datetime_years(y))
        return NULL;
    us = unit == AVK_LOGICAL_TIMESTAMP_MILLIS || unit == AVK_LOGICAL_LOCAL_TIMESTAMP_MILLIS
             ? fraction * 1000
         : unit == AVK_LOGICAL_TIMESTAMP_MICROS || unit == AVK_LOGICAL_LOCAL_TIMESTAMP_MICROS
             ? fraction
             : fraction / 1000;
    return PyDateTimeAPI->DateTime_FromDateAndTime(y, (int)m, (int)d, (int)(sod / 3600),
                                                   (int)(sod / 60 % 60), (int)(sod % 60), (int)us,
                                                   aware ? pyavk_utc : Py_None,
                                                   PyDateTimeAPI->DateTimeType);
}

static PyObject *time_of(int64_t t, int64_t per_second)
{
    int64_t us = t * (1000000 / per_second);
    if (t < 0 || us >= INT64_C(86400000000))
        return NULL;
    return PyTime_FromTime((int)(us / 3600000000), (int)(us / 60000000 % 60),
                           (int)(us / 1000000 % 60), (int)(us % 1000000));
}

PyObject *pyavk_decimal(const uint8_t *unscaled, size_t len, int scale)
{
    char small[128], *text = small;
    size_t need = 0;
    PyObject *out;
    avk_status st = avk_decimal_to_string(unscaled, len, scale, small, sizeof small, &need);
    if (st == AVK_ERR_LIMIT && need) {
        text = PyMem_Malloc(need + 1);
        if (!text)
            return PyErr_NoMemory();
        st = avk_decimal_to_string(unscaled, len, scale, text, need + 1, &need);
    }
    /* more than AVK_DECIMAL_MAX_BYTES or a negative scale: the raw bytes */
    out = st == AVK_OK ? PyObject_CallFunction(pyavk_Decimal, "s", text) : NULL;
    if (text != small)
        PyMem_Free(text);
    return out;
}

static PyObject *uuid_of_text(const avk_bytes *b)
{
    PyObject *s = PyUnicode_DecodeUTF8((const char *)b->data, (Py_ssize_t)b->len, "strict"), *u;
    if (!s)
        return NULL;
    u = PyObject_CallOneArg(pyavk_UUID, s);
    Py_DECREF(s);
    if (!u && PyErr_ExceptionMatches(PyExc_ValueError)) {
        /* not a UUID after all: the string itself */
        PyErr_Clear();
        return PyUnicode_DecodeUTF8((const char *)b->data, (Py_ssize_t)b->len, "strict");
    }
    return u;
}

static PyObject *uuid_of_bytes(const avk_bytes *b)
{
    PyObject *args = PyTuple_New(0), *kw, *bytes, *u = NULL;
    bytes = PyBytes_FromStringAndSize((const char *)b->data, (Py_ssize_t)b->len);
    kw = bytes ? Py_BuildValue("{s:O}", "bytes", bytes) : NULL;
    if (args && kw)
        u = PyObject_Call(pyavk_UUID, args, kw);
    Py_XDECREF(args);
    Py_XDECREF(kw);
    Py_XDECREF(bytes);
    return u;
}

/* The logical value, NULL with no exception to take the raw one instead. */
static PyObject *logical_of(const avk_value *v)
{
    const avk_type *t = v->type;
    switch (avk_type_logical(t)) {
    case AVK_LOGICAL_DATE:
        return date_of(v->u.i);
    case AVK_LOGICAL_TIME_MILLIS:
        return time_of(v->u.i, 1000);
    case AVK_LOGICAL_TIME_MICROS:
        return time_of(v->u.l, 1000000);
    case AVK_LOGICAL_TIMESTAMP_MILLIS:
    case AVK_LOGICAL_TIMESTAMP_MICROS:
    case AVK_LOGICAL_TIMESTAMP_NANOS:
        return datetime_of(v->u.l, avk_type_logical(t), 1);
    case AVK_LOGICAL_LOCAL_TIMESTAMP_MILLIS:
    case AVK_LOGICAL_LOCAL_TIMESTAMP_MICROS:
    case AVK_LOGICAL_LOCAL_TIMESTAMP_NANOS:
        return datetime_of(v->u.l, avk_type_logical(t), 0);
    case AVK_LOGICAL_DECIMAL:
        return pyavk_decimal(v->u.bytes.data, v->u.bytes.len, avk_type_decimal_scale(t));
    case AVK_LOGICAL_UUID:
        return avk_type_kind(t) == AVK_STRING ? uuid_of_text(&v->u.bytes)
                                               : uuid_of_bytes(&v->u.bytes);
    default:
        return NULL;
    }
}

/* ---- values ------------------------------------------------------------- */

static PyObject *to_py(pyavk_names *n, const avk_value *v, int flags, int depth);

static PyObject *typed_item(const avk_value *arr, size_t i, size_t size)
{
    const uint8_t *items = arr->u.array.items;
    const avk_type *it = avk_type_items(arr->type);
    switch (avk_type_kind(it)) {
    case AVK_BOOLEAN:
        return PyBool_FromLong(items[i]);
    case AVK_INT: {
        int32_t x;
        memcpy(&x, items + 4 * i, 4);
        return PyLong_FromLong(x);
    }
    case AVK_LONG: {
        int64_t x;
        memcpy(&x, items + 8 * i, 8);
        return PyLong_FromLongLong(x);
    }
    case AVK_FLOAT: {
        float x;
        memcpy(&x, items + 4 * i, 4);
        return PyFloat_FromDouble(x);
    }
    case AVK_DOUBLE: {
        double x;
        memcpy(&x, items + 8 * i, 8);
        return PyFloat_FromDouble(x);
    }
    case AVK_FIXED:
        return PyBytes_FromStringAndSize((const char *)items + size * i, (Py_ssize_t)size);
    default:
        Py_RETURN_NONE;
    }
}

static PyObject *to_py_inner(pyavk_names *n, const avk_value *v, int flags, int depth);

/* Python's recursion limit bounds the C stack here: a hostile file nesting
 * values deeper raises RecursionError. */
static PyObject *to_py(pyavk_names *n, const avk_value *v, int flags, int depth)
{
    PyObject *out;
    if (Py_EnterRecursiveCall(" while converting an Avro value"))
        return NULL;
    out = to_py_inner(n, v, flags, depth);
    Py_LeaveRecursiveCall();
    return out;
}

static PyObject *to_py_inner(pyavk_names *n, const avk_value *v, int flags, int depth)
{
    const avk_type *t = v->type;
    size_t i, size;
    PyObject *out;
    if (!(flags & PYAVK_RAW) && avk_type_logical(t) != AVK_LOGICAL_NONE) {
        out = logical_of(v);
        if (out || PyErr_Occurred())
            return out;
    }
    switch (avk_type_kind(t)) {
    case AVK_NULL:
        Py_RETURN_NONE;
    case AVK_BOOLEAN:
        return PyBool_FromLong(v->u.boolean);
    case AVK_INT:
        return PyLong_FromLong(v->u.i);
    case AVK_LONG:
        return PyLong_FromLongLong(v->u.l);
    case AVK_FLOAT:
        return PyFloat_FromDouble(v->u.f);
    case AVK_DOUBLE:
        return PyFloat_FromDouble(v->u.d);
    case AVK_STRING:
        return PyUnicode_DecodeUTF8((const char *)v->u.bytes.data, (Py_ssize_t)v->u.bytes.len,
                                    "strict");
    case AVK_BYTES:
    case AVK_FIXED:
        return PyBytes_FromStringAndSize((const char *)v->u.bytes.data, (Py_ssize_t)v->u.bytes.len);
    case AVK_ENUM: {
        PyObject **s = strings_of(n, t);
        if (s && v->u.index < avk_type_symbol_count(t))
            return Py_NewRef(s[v->u.index]);
        return PyUnicode_FromString(avk_type_symbol(t, v->u.index));
    }
    case AVK_RECORD: {
        PyObject **keys = strings_of(n, t);
        size_t nf = avk_type_field_count(t);
        out = _PyDict_NewPresized((Py_ssize_t)nf);
        if (!out)
            return NULL;
        for (i = 0; i < nf; i++) {
            PyObject *x = to_py(n, &v->u.fields[i], flags, depth + 1);
            int rc;
            if (!x) {
                Py_DECREF(out);
                return NULL;
            }
            if (keys) {
                rc = PyDict_SetItem(out, keys[i], x);
            } else {
                rc = PyDict_SetItemString(out, avk_field_name(avk_type_field(t, i)), x);
            }
            Py_DECREF(x);
            if (rc < 0) {
                Py_DECREF(out);
                return NULL;
            }
        }
        return out;
    }
    case AVK_UNION:
        return to_py(n, v->u.branch.value, flags, depth + 1);
    case AVK_ARRAY: {
        int typed = avk_array_is_typed(t, &size);
        out = PyList_New((Py_ssize_t)v->u.array.count);
        if (!out)
            return NULL;
        for (i = 0; i < v->u.array.count; i++) {
            PyObject *x = typed ? typed_item(v, i, size)
                                : to_py(n, &((const avk_value *)v->u.array.items)[i], flags, depth + 1);
            if (!x) {
                Py_DECREF(out);
                return NULL;
            }
            PyList_SET_ITEM(out, (Py_ssize_t)i, x);
        }
        return out;
    }
    case AVK_MAP:
        out = PyDict_New();
        if (!out)
            return NULL;
        for (i = 0; i < v->u.map.count; i++) {
            PyObject *k = PyUnicode_DecodeUTF8((const char *)v->u.map.keys[i].data,
                                               (Py_ssize_t)v->u.map.keys[i].len, "strict");
            PyObject *x = k ? to_py(n, &v->u.map.values[i], flags, depth + 1) : NULL;
            int rc = x ? PyDict_SetItem(out, k, x) : -1;
            Py_XDECREF(k);
            Py_XDECREF(x);
            if (rc < 0) {
                Py_DECREF(out);
                return NULL;
            }
        }
        return out;
    }
    Py_RETURN_NONE;
}

int pyavk_to_py_init(void)
{
    /* datetime.h keeps its C API pointer in a static: each file imports it. */
    PyDateTime_IMPORT;
    return PyDateTimeAPI ? 0 : -1;
}

PyObject *pyavk_to_py(pyavk_names *names, const avk_value *v, int flags)
{
    return to_py(names, v, flags, 0);
}
