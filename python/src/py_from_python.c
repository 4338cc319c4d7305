/* Python objects to avk_value: every Avro type and logical type, unions chosen by the Python type, errors with the schema path. */
#include "pyavk.h" /* Python.h first: it sets the feature macros (pthread_getattr_np) */

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <datetime.h>

/* Levels of nesting (each value inside another is one level) before the
 * conversion refuses: it recurses on the C stack, and deeper data would
 * risk it. 10000 levels take well under a megabyte. */
#define MAX_DEPTH 10000

/* Stack the conversion leaves unused: below this much, it refuses to go
 * deeper (a thread with a small stack reaches that before MAX_DEPTH). */
#define STACK_RESERVE (64 * 1024)

/* Path segments kept for a message: the innermost and the outermost ones
 * (a deeper path shows "...(N levels)..." between them). */
#define KEEP 16

/* Helpers kept out of the recursive functions, whose frames each level of
 * nesting pays for. */
#define NOINLINE __attribute__((noinline))

typedef enum seg_kind { SEG_FIELD, SEG_ITEM, SEG_KEY, SEG_VALUE, SEG_BRANCH } seg_kind;

typedef struct seg {
    seg_kind kind;
    size_t index;
    const char *name; /* fields: the field's name; map values: the key (arena) */
} seg;

/* One conversion. The path is collected while an error unwinds, innermost
 * segment first, so that going down costs nothing. */
typedef struct conv {
    avk_arena *arena;
    unsigned depth;
    uintptr_t stack_floor; /* the lowest stack address the conversion may reach; 0: unknown */
    int failed; /* 1: reason holds an AvroError's reason, segments are being collected */
    char reason[AVK_ERROR_MESSAGE_MAX];
    seg inner[KEEP]; /* the first KEEP segments collected: the innermost */
    seg outer[KEEP]; /* a ring of the last KEEP collected: the outermost */
    size_t nsegs;    /* segments collected */
} conv;

static int convert(conv *c, PyObject *o, const avk_type *t, avk_value *out);

/* ---- errors ---------------------------------------------------------------------------- */

/* "str 'abc'": the type and a shortened repr of o, for messages. */
static void describe(PyObject *o, char *buf, size_t cap)
{
    PyObject *r;
    const char *s;
    Py_ssize_t n;
    const char *tn = Py_TYPE(o)->tp_name;
    if (o == Py_None) {
        snprintf(buf, cap, "None");
        return;
    }
    r = PyObject_Repr(o);
    s = r ? PyUnicode_AsUTF8AndSize(r, &n) : NULL;
    if (!s) {
        PyErr_Clear();
        snprintf(buf, cap, "%s", tn);
    } else if (n > 60) {
        snprintf(buf, cap, "%s %.50s...", tn, s);
    } else {
        snprintf(buf, cap, "%s %s", tn, s);
    }
    Py_XDECREF(r);
}

static int fail(conv *c, const char *fmt, ...) AVK_PRINTF(2, 3) AVK_COLD NOINLINE;
static int fail(conv *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->reason, sizeof c->reason, fmt, ap);
    va_end(ap);
    c->failed = 1;
    return -1;
}

/* "expected <what>, got <o>". */
static int fail_type(conv *c, const char *what, PyObject *o) AVK_COLD NOINLINE;
static int fail_type(conv *c, const char *what, PyObject *o)
{
    char d[128];
    describe(o, d, sizeof d);
    return fail(c, "expected %s, got %s", what, d);
}

/* "expected <prefix><name>, got <o>". */
static int fail_type_fmt(conv *c, PyObject *o, const char *prefix, const char *name) AVK_COLD NOINLINE;
static int fail_type_fmt(conv *c, PyObject *o, const char *prefix, const char *name)
{
    char what[300];
    snprintf(what, sizeof what, "%s%s", prefix, name);
    return fail_type(c, what, o);
}

/* "<o> <reason>": the value described, then the reason with arg. */
static int fail_value(conv *c, PyObject *o, const char *fmt, ...) AVK_PRINTF(3, 4) AVK_COLD NOINLINE;
static int fail_value(conv *c, PyObject *o, const char *fmt, ...)
{
    char d[128], rest[200];
    va_list ap;
    describe(o, d, sizeof d);
    va_start(ap, fmt);
    vsnprintf(rest, sizeof rest, fmt, ap);
    va_end(ap);
    return fail(c, "%s %s", d, rest);
}

/* Called by each level as an error passes through it (returns -1). */
static int up(conv *c, seg_kind kind, size_t index, const char *name)
{
    if (c->failed) {
        seg s;
        s.kind = kind;
        s.index = index;
        s.name = name;
        if (c->nsegs < KEEP)
            c->inner[c->nsegs] = s;
        c->outer[c->nsegs % KEEP] = s;
        c->nsegs++;
    }
    return -1;
}

static size_t seg_text(const seg *s, int named, char *buf, size_t cap)
{
    int n;
    switch (s->kind) {
    case SEG_FIELD:
        n = named ? snprintf(buf, cap, ".%s", s->name) : snprintf(buf, cap, ".fields[%zu]", s->index);
        break;
    case SEG_ITEM:
        n = snprintf(buf, cap, named ? "[%zu]" : ".items[%zu]", s->index);
        break;
    case SEG_KEY:
        n = snprintf(buf, cap, ".keys[%zu]", s->index);
        break;
    case SEG_VALUE:
        n = named && s->name ? snprintf(buf, cap, "[\"%.40s\"]", s->name)
                             : snprintf(buf, cap, ".values[%zu]", s->index);
        break;
    default:
        n = snprintf(buf, cap, ".branch[%zu]", s->index);
        break;
    }
    if (n < 0)
        return 0;
    return (size_t)n < cap ? (size_t)n : cap - 1;
}

/* Segment i of the path, 0 the outermost. */
static const seg *seg_at(const conv *c, size_t i)
{
    size_t from_inner = c->nsegs - 1 - i; /* 0 is the innermost */
    if (from_inner < KEEP)
        return &c->inner[from_inner];
    return &c->outer[from_inner % KEEP];
}

/* Root and the path into buf[0..cap): whole when it fits, else its first and
 * last k segments around "...(N levels)...", k as large as fits. */
static void render(const conv *c, const char *root, int named, char *buf, size_t cap)
{
    size_t n = c->nsegs, k, i, len;
    char s[160];
    for (k = KEEP; k >= 1; k--) {
        int fits = 1;
        len = (size_t)snprintf(buf, cap, "%.60s", root);
        if (len >= cap)
            len = cap - 1;
        for (i = 0; i < n; i++) {
            size_t w;
            if (n > 2 * k && i == k) {
                w = (size_t)snprintf(s, sizeof s, "...(%zu levels)...", n - 2 * k);
                i = n - k - 1;
            } else {
                w = seg_text(seg_at(c, i), named, s, sizeof s);
            }
            if (len + w >= cap) {
                fits = 0;
                break;
            }
            memcpy(buf + len, s, w);
            len += w;
            buf[len] = 0;
        }
        if (fits)
            return;
    }
}

static const char *type_label(const avk_type *t)
{
    return avk_type_is_named(t) ? avk_type_fullname(t) : avk_kind_name(avk_type_kind(t));
}

/* Raises the AvroError for a failed conversion. */
static void raise_failed(const conv *c, const avk_type *root)
{
    /* the message holds the named path and the reason in AVK_ERROR_MESSAGE_MAX
     * bytes: the path takes at most half */
    char path[AVK_ERROR_PATH_MAX], named[AVK_ERROR_MESSAGE_MAX / 2];
    PyObject *type, *value, *tb, *p;
    render(c, type_label(root), 0, path, sizeof path);
    render(c, type_label(root), 1, named, sizeof named);
    pyavk_raise_msg(AVK_ERR_INVALID_ARGUMENT, "%s: %s", named, c->reason);
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (value) {
        p = PyUnicode_FromString(path);
        if (!p || PyObject_SetAttrString(value, "path", p) < 0)
            PyErr_Clear();
        Py_XDECREF(p);
    }
    PyErr_Restore(type, value, tb);
}

/* ---- scalars --------------------------------------------------------------------------- */

static int is_numpy_bool(PyObject *o)
{
    const char *n = Py_TYPE(o)->tp_name;
    return strcmp(n, "numpy.bool_") == 0 || strcmp(n, "numpy.bool") == 0;
}

/* An integer (int or an object with __index__, not bool) into *v. 0, 1 when
 * o is not an integer (nothing raised), -1 on error (out of int64 range
 * raises through c). */
static int get_int64(conv *c, PyObject *o, int64_t *v, const char *what)
{
    int overflow;
    long long x;
    if (PyBool_Check(o) || is_numpy_bool(o))
        return 1;
    if (PyLong_Check(o)) {
        x = PyLong_AsLongLongAndOverflow(o, &overflow);
    } else if (PyIndex_Check(o) && !Py_TYPE(o)->tp_iter) { /* not a numpy array */
        PyObject *i = PyNumber_Index(o);
        if (!i)
            return -1;
        x = PyLong_AsLongLongAndOverflow(i, &overflow);
        Py_DECREF(i);
    } else {
        return 1;
    }
    if (x == -1 && PyErr_Occurred())
        return -1;
    if (overflow)
        return fail_value(c, o, "is out of range for %s", what);
    *v = (int64_t)x;
    return 0;
}

static NOINLINE int conv_integer(conv *c, PyObject *o, const avk_type *t, avk_value *out)
{
    int64_t v = 0;
    int r;
    int is_int = avk_type_kind(t) == AVK_INT;
    const char *what = is_int ? "int" : "long";
    r = get_int64(c, o, &v, what);
    if (r < 0)
        return -1;
    if (r > 0)
        return fail_type(c, "int", o);
    if (is_int) {
        if (v < INT32_MIN || v > INT32_MAX)
            return fail_value(c, o, "is out of range for int (32 bits)");
        out->u.i = (int32_t)v;
    } else {
        out->u.l = v;
    }
    return 0;
}

/* A float or double from float, int or anything with __float__. */
static NOINLINE int conv_real(conv *c, PyObject *o, const avk_type *t, avk_value *out)
{
    double d;
    if (PyFloat_Check(o)) {
        d = PyFloat_AS_DOUBLE(o);
    } else if (PyBool_Check(o) || is_numpy_bool(o) || PyUnicode_Check(o) || PyBytes_Check(o)) {
        return fail_type(c, "float", o);
    } else if (PyLong_Check(o)) {
        d = PyLong_AsDouble(o);
        if (d == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            return fail(c, "int too large for %s", avk_kind_name(avk_type_kind(t)));
        }
    } else if (Py_TYPE(o)->tp_as_number && !Py_TYPE(o)->tp_iter &&
               (Py_TYPE(o)->tp_as_number->nb_float || Py_TYPE(o)->tp_as_number->nb_index)) {
        PyObject *f = PyNumber_Float(o);
        if (!f)
            return -1;
        d = PyFloat_AS_DOUBLE(f);
        Py_DECREF(f);
    } else {
        return fail_type(c, "float", o);
    }
    if (avk_type_kind(t) == AVK_FLOAT)
        out->u.f = (float)d;
    else
        out->u.d = d;
    return 0;
}

static int copy_bytes(conv *c, const void *p, size_t n, int nul, avk_value *out)
{
    uint8_t *dst = NULL;
    if (n || nul) {
        dst = (uint8_t *)avk_arena_alloc(c->arena, n + (nul ? 1 : 0), 1);
        if (!dst) {
            PyErr_NoMemory();
            return -1;
        }
        if (n)
            memcpy(dst, p, n);
        if (nul)
            dst[n] = 0;
    }
    out->u.bytes.data = dst;
    out->u.bytes.len = n;
    return 0;
}

static NOINLINE int conv_string(conv *c, PyObject *o, avk_value *out)
{
    Py_ssize_t n;
    const char *s;
    if (!PyUnicode_Check(o))
        return fail_type(c, "str", o);
    s = PyUnicode_AsUTF8AndSize(o, &n);
    if (!s) {
        if (!PyErr_ExceptionMatches(PyExc_UnicodeError))
            return -1;
        PyErr_Clear();
        return fail(c, "str is not valid Unicode (it holds a lone surrogate): it cannot be "
                       "encoded as UTF-8");
    }
    return copy_bytes(c, s, (size_t)n, 1, out);
}

/* bytes, bytearray, memoryview (contiguous): a view of their bytes, held
 * in *view (release it with PyBuffer_Release when *held). 1: not bytes. */
static int get_bytes(PyObject *o, Py_buffer *view, const uint8_t **p, size_t *n, int *held)
{
    *held = 0;
    if (PyBytes_Check(o)) {
        *p = (const uint8_t *)PyBytes_AS_STRING(o);
        *n = (size_t)PyBytes_GET_SIZE(o);
        return 0;
    }
    if (PyByteArray_Check(o) || PyMemoryView_Check(o)) {
        if (PyObject_GetBuffer(o, view, PyBUF_C_CONTIGUOUS) < 0)
            return -1;
        *held = 1;
        *p = (const uint8_t *)view->buf;
        *n = (size_t)view->len;
        return 0;
    }
    return 1;
}

static NOINLINE int conv_bytes(conv *c, PyObject *o, avk_value *out)
{
    Py_buffer view;
    const uint8_t *p;
    size_t n;
    int held, r = get_bytes(o, &view, &p, &n, &held);
    if (r < 0)
        return -1;
    if (r > 0)
        return fail_type(c, "bytes", o);
    r = copy_bytes(c, p, n, 0, out);
    if (held)
        PyBuffer_Release(&view);
    return r;
}

/* Raw bytes of a fixed into dst (size bytes). */
static int fixed_into(conv *c, PyObject *o, const avk_type *t, uint8_t *dst)
{
    Py_buffer view;
    const uint8_t *p;
    size_t n, size = avk_type_fixed_size(t);
    int held, r = get_bytes(o, &view, &p, &n, &held);
    if (r < 0)
        return -1;
    if (r > 0)
        return fail_type_fmt(c, o, "bytes for fixed ", avk_type_fullname(t));
    if (n != size)
        r = fail(c, "fixed %s takes exactly %zu bytes, got %zu", avk_type_fullname(t), size, n);
    else if (n)
        memcpy(dst, p, n);
    if (held)
        PyBuffer_Release(&view);
    return r;
}

/* ---- logical types --------------------------------------------------------------------- */

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static NOINLINE int conv_date(conv *c, PyObject *o, avk_value *out)
{
    int32_t days;
    avk_status st = avk_date_from_civil(PyDateTime_GET_YEAR(o), (unsigned)PyDateTime_GET_MONTH(o),
                                        (unsigned)PyDateTime_GET_DAY(o), &days);
    if (st != AVK_OK)
        return fail(c, "date out of range");
    out->u.i = days;
    return 0;
}

static int64_t time_micros(PyObject *o)
{
    return ((int64_t)PyDateTime_TIME_GET_HOUR(o) * 3600 + PyDateTime_TIME_GET_MINUTE(o) * 60 +
            PyDateTime_TIME_GET_SECOND(o)) *
               1000000 +
           PyDateTime_TIME_GET_MICROSECOND(o);
}

/* A datetime as microseconds since the epoch: aware ones in UTC, naive
 * ones as they are; *nanos gets a pandas Timestamp's extra nanoseconds. */
static int datetime_micros(conv *c, PyObject *o, int64_t *us, int *aware)
{
    int32_t days;
    PyObject *tz = PyDateTime_DATE_GET_TZINFO(o);
    *us = 0;
    *aware = 0;
    if (avk_date_from_civil(PyDateTime_GET_YEAR(o), (unsigned)PyDateTime_GET_MONTH(o),
                            (unsigned)PyDateTime_GET_DAY(o), &days) != AVK_OK)
        return fail(c, "date out of range");
    *us = (int64_t)days * 86400 * 1000000 +
          ((int64_t)PyDateTime_DATE_GET_HOUR(o) * 3600 + PyDateTime_DATE_GET_MINUTE(o) * 60 +
           PyDateTime_DATE_GET_SECOND(o)) *
              1000000 +
          PyDateTime_DATE_GET_MICROSECOND(o);
    *aware = 0;
    if (tz != Py_None) {
        PyObject *off = PyObject_CallMethod(o, "utcoffset", NULL);
        if (!off)
            return -1;
        if (PyDelta_Check(off)) {
            *us -= ((int64_t)PyDateTime_DELTA_GET_DAYS(off) * 86400 +
                    PyDateTime_DELTA_GET_SECONDS(off)) *
                       1000000 +
                   PyDateTime_DELTA_GET_MICROSECONDS(off);
            *aware = 1;
        }
        Py_DECREF(off);
    }
    return 0;
}

static NOINLINE int conv_timestamp(conv *c, PyObject *o, avk_logical lt, avk_value *out)
{
    int64_t us, v;
    int aware, local = lt == AVK_LOGICAL_LOCAL_TIMESTAMP_MILLIS ||
                       lt == AVK_LOGICAL_LOCAL_TIMESTAMP_MICROS ||
                       lt == AVK_LOGICAL_LOCAL_TIMESTAMP_NANOS;
    if (datetime_micros(c, o, &us, &aware) < 0)
        return -1;
    if (local && aware) {
        char d[128];
        describe(o, d, sizeof d);
        return fail(c, "%s takes a naive datetime (a wall-clock time in no zone), got the "
                       "aware %s",
                    avk_logical_name(lt), d);
    }
    switch (lt) {
    case AVK_LOGICAL_TIMESTAMP_MILLIS:
    case AVK_LOGICAL_LOCAL_TIMESTAMP_MILLIS:
        v = floor_div(us, 1000);
        break;
    case AVK_LOGICAL_TIMESTAMP_NANOS:
    case AVK_LOGICAL_LOCAL_TIMESTAMP_NANOS: {
        int64_t ns = 0;
        if (!PyDateTime_CheckExact(o)) {
            /* pandas.Timestamp carries nanoseconds beyond the microsecond */
            PyObject *n = PyObject_GetAttrString(o, "nanosecond");
            if (n) {
                ns = PyLong_Check(n) ? PyLong_AsLongLong(n) : 0;
                Py_DECREF(n);
                if (ns == -1 && PyErr_Occurred())
                    return -1;
            } else {
                PyErr_Clear();
            }
        }
        if (__builtin_mul_overflow(us, (int64_t)1000, &v) || __builtin_add_overflow(v, ns, &v))
            return fail(c, "datetime out of range for %s (years 1677-2262)",
                        avk_logical_name(lt));
        break;
    }
    default:
        v = us;
        break;
    }
    out->u.l = v;
    return 0;
}

/* A Decimal as the unscaled integer of the given scale: exact or an error. */
static NOINLINE int decimal_unscaled(conv *c, PyObject *o, int precision, int scale, uint8_t *buf,
                            size_t cap, size_t *len)
{
    PyObject *tup, *sign, *digits, *exponent;
    long exp, shift;
    Py_ssize_t n, first, end, i;
    size_t sig, k;
    char *text;
    int negative;
    avk_status st;

    tup = PyObject_CallMethod(o, "as_tuple", NULL);
    if (!tup)
        return -1;
    if (!PyTuple_Check(tup) || PyTuple_GET_SIZE(tup) != 3) {
        Py_DECREF(tup);
        return fail_type(c, "decimal.Decimal", o);
    }
    sign = PyTuple_GET_ITEM(tup, 0);
    digits = PyTuple_GET_ITEM(tup, 1);
    exponent = PyTuple_GET_ITEM(tup, 2);
    if (!PyLong_Check(exponent)) {
        char d[128];
        Py_DECREF(tup);
        describe(o, d, sizeof d);
        return fail(c, "%s is not a finite number: decimal cannot hold it", d);
    }
    negative = PyObject_IsTrue(sign);
    exp = PyLong_AsLong(exponent);
    if (exp == -1 && PyErr_Occurred()) {
        Py_DECREF(tup);
        return -1;
    }
    n = PyTuple_GET_SIZE(digits);
    for (first = 0; first < n && PyLong_AsLong(PyTuple_GET_ITEM(digits, first)) == 0; first++)
        ;
    if (first == n) { /* zero */
        Py_DECREF(tup);
        buf[0] = 0;
        *len = 1;
        return 0;
    }
    shift = exp + scale;
    end = n;
    if (shift < 0) {
        /* digits below the scale must all be zero */
        Py_ssize_t drop = (Py_ssize_t)-shift;
        for (i = n - 1; i >= first && i >= n - drop; i--) {
            if (PyLong_AsLong(PyTuple_GET_ITEM(digits, i)) != 0) {
                char d[128];
                Py_DECREF(tup);
                describe(o, d, sizeof d);
                return fail(c, "%s has more fractional digits than the scale %d: it would lose "
                               "digits (round it first, e.g. with .quantize())",
                            d, scale);
            }
        }
        end = n - drop;
        shift = 0;
    }
    sig = (size_t)(end - first);
    if (shift > precision || sig + (size_t)shift > (size_t)precision) {
        char d[128];
        Py_DECREF(tup);
        describe(o, d, sizeof d);
        return fail(c, "%s needs %zu digits at scale %d, more than the precision %d", d,
                    sig + (size_t)shift, scale, precision);
    }
    k = sig + (size_t)shift;
    text = (char *)avk_arena_alloc(c->arena, k + 1, 1);
    if (!text) {
        Py_DECREF(tup);
        PyErr_NoMemory();
        return -1;
    }
    text[0] = negative ? '-' : '+';
    for (i = first; i < end; i++)
        text[1 + (i - first)] = (char)('0' + PyLong_AsLong(PyTuple_GET_ITEM(digits, i)));
    memset(text + 1 + sig, '0', (size_t)shift);
    Py_DECREF(tup);
    st = avk_decimal_from_string(text, k + 1, 0, buf, cap, len);
    if (st != AVK_OK)
        return fail(c, "decimal too large (%zu digits)", k);
    return 0;
}

static NOINLINE int conv_decimal(conv *c, PyObject *o, const avk_type *t, avk_value *out)
{
    int precision = avk_type_decimal_precision(t), scale = avk_type_decimal_scale(t);
    size_t cap = (size_t)precision / 2 + 2, len; /* a digit takes log2(10)/8 < 1/2 byte */
    uint8_t *buf = (uint8_t *)avk_arena_alloc(c->arena, cap, 1);
    if (!buf) {
        PyErr_NoMemory();
        return -1;
    }
    if (decimal_unscaled(c, o, precision, scale, buf, cap, &len) < 0)
        return -1;
    if (avk_type_kind(t) == AVK_FIXED) {
        size_t size = avk_type_fixed_size(t);
        uint8_t *dst = (uint8_t *)avk_arena_alloc(c->arena, size ? size : 1, 1);
        if (!dst) {
            PyErr_NoMemory();
            return -1;
        }
        if (avk_decimal_to_fixed(buf, len, dst, size) != AVK_OK) {
            char d[128];
            describe(o, d, sizeof d);
            return fail(c, "%s does not fit in fixed %s (%zu bytes)", d, avk_type_fullname(t),
                        size);
        }
        out->u.bytes.data = dst;
        out->u.bytes.len = size;
    } else {
        out->u.bytes.data = buf;
        out->u.bytes.len = len;
    }
    return 0;
}

static NOINLINE int conv_uuid(conv *c, PyObject *o, const avk_type *t, avk_value *out)
{
    int r;
    if (avk_type_kind(t) == AVK_STRING) {
        PyObject *s = PyObject_Str(o);
        if (!s)
            return -1;
        r = conv_string(c, s, out);
        Py_DECREF(s);
    } else {
        PyObject *b = PyObject_GetAttrString(o, "bytes");
        if (!b)
            return -1;
        {
            uint8_t *dst = (uint8_t *)avk_arena_alloc(c->arena, 16, 1);
            if (!dst) {
                PyErr_NoMemory();
                r = -1;
            } else if ((r = fixed_into(c, b, t, dst)) == 0) {
                out->u.bytes.data = dst;
                out->u.bytes.len = 16;
            }
        }
        Py_DECREF(b);
    }
    return r;
}

/* duration: (months, days, milliseconds), each 0 to 2^32 - 1. */
static NOINLINE int duration_into(conv *c, PyObject *o, uint8_t *dst)
{
    uint32_t part[3];
    int i;
    if (PyTuple_GET_SIZE(o) != 3)
        return fail_type(c, "bytes of length 12 or a tuple (months, days, milliseconds)", o);
    for (i = 0; i < 3; i++) {
        int64_t v = 0;
        PyObject *x = PyTuple_GET_ITEM(o, i);
        int r = get_int64(c, x, &v, "a duration part");
        if (r < 0)
            return -1;
        if (r > 0 || v < 0 || v > UINT32_MAX)
            return fail_type(c, "a tuple of 3 ints from 0 to 2**32-1 (months, days, "
                                "milliseconds) for duration",
                             o);
        part[i] = (uint32_t)v;
    }
    avk_duration_encode(part[0], part[1], part[2], dst);
    return 0;
}

/* ---- compound types -------------------------------------------------------------------- */

/* The field of t named key[0..n): tries *hint first (dicts usually list
 * fields in schema order), then every field. */
static const avk_field *field_named(const avk_type *t, const char *key, size_t n, size_t *hint)
{
    size_t count = avk_type_field_count(t), i, j;
    for (j = 0; j < count; j++) {
        const avk_field *f;
        const char *name;
        i = *hint + j;
        if (i >= count)
            i -= count;
        f = avk_type_field(t, i);
        name = avk_field_name(f);
        if (strncmp(name, key, n) == 0 && name[n] == 0) {
            *hint = i + 1 < count ? i + 1 : 0;
            return f;
        }
    }
    return NULL;
}

/* A field's default (JSON text in the schema) as a value. */
static NOINLINE int field_default(conv *c, const avk_field *f, avk_value *out)
{
    const char *json = avk_field_default(f);
    const avk_type *ft = avk_field_type(f);
    avk_error err;
    avk_status st;
    if (avk_type_kind(ft) == AVK_UNION) {
        /* a union's default is its first branch's value, unwrapped */
        avk_value *b = (avk_value *)avk_arena_alloc(c->arena, sizeof *b, _Alignof(avk_value));
        if (!b) {
            PyErr_NoMemory();
            return -1;
        }
        st = avk_value_read_json(avk_type_branch(ft, 0), json, strlen(json), c->arena, b, &err);
        out->type = ft;
        out->u.branch.index = 0;
        out->u.branch.value = b;
    } else {
        st = avk_value_read_json(ft, json, strlen(json), c->arena, out, &err);
    }
    if (st == AVK_ERR_NO_MEMORY) {
        PyErr_NoMemory();
        return -1;
    }
    if (st != AVK_OK)
        return fail(c, "the default of field '%s' does not read: %s", avk_field_name(f),
                    err.message);
    return 0;
}

static int conv_record(conv *c, PyObject *o, const avk_type *t, avk_value *out)
{
    size_t count = avk_type_field_count(t), i, hint = 0;
    avk_value *fields = NULL;
    if (count) {
        fields = (avk_value *)avk_arena_alloc(c->arena, count * sizeof *fields,
                                              _Alignof(avk_value));
        if (!fields) {
            PyErr_NoMemory();
            return -1;
        }
        memset(fields, 0, count * sizeof *fields); /* type NULL: not yet set */
    }
    out->u.fields = fields;
    if (PyDict_Check(o)) {
        Py_ssize_t pos = 0;
        PyObject *k, *v;
        while (PyDict_Next(o, &pos, &k, &v)) {
            const char *key;
            Py_ssize_t n;
            const avk_field *f;
            if (!PyUnicode_Check(k))
                continue; /* not a field name */
            key = PyUnicode_AsUTF8AndSize(k, &n);
            if (!key) {
                PyErr_Clear();
                continue;
            }
            f = field_named(t, key, (size_t)n, &hint);
            if (!f)
                continue; /* keys the schema does not have are ignored */
            i = avk_field_index(f);
            Py_INCREF(v); /* the dict may change under a __index__ or __float__ */
            if (convert(c, v, avk_field_type(f), &fields[i]) < 0) {
                Py_DECREF(v);
                return up(c, SEG_FIELD, i, avk_field_name(f));
            }
            Py_DECREF(v);
        }
    } else if (PyMapping_Check(o) && !PyUnicode_Check(o) && !PyBytes_Check(o) &&
               !PyList_Check(o) && !PyTuple_Check(o) && PyObject_HasAttrString(o, "keys")) {
        for (i = 0; i < count; i++) {
            const avk_field *f = avk_type_field(t, i);
            PyObject *v = PyMapping_GetItemString(o, avk_field_name(f));
            if (!v) {
                if (!PyErr_ExceptionMatches(PyExc_KeyError))
                    return -1;
                PyErr_Clear();
                continue;
            }
            if (convert(c, v, avk_field_type(f), &fields[i]) < 0) {
                Py_DECREF(v);
                return up(c, SEG_FIELD, i, avk_field_name(f));
            }
            Py_DECREF(v);
        }
    } else {
        return fail_type_fmt(c, o, "a dict for record ", avk_type_fullname(t));
    }
    for (i = 0; i < count; i++) {
        const avk_field *f;
        if (fields[i].type)
            continue;
        f = avk_type_field(t, i);
        if (!avk_field_default(f)) {
            fail(c, "field '%s' of record %s is missing and has no default", avk_field_name(f),
                 avk_type_fullname(t));
            return up(c, SEG_FIELD, i, avk_field_name(f));
        }
        if (field_default(c, f, &fields[i]) < 0)
            return up(c, SEG_FIELD, i, avk_field_name(f));
    }
    return 0;
}

/* Items of an array stored as a typed C array: the scalar of tmp to dst. */
static void store_typed(const avk_value *tmp, avk_kind k, void *dst)
{
    switch (k) {
    case AVK_BOOLEAN:
        *(uint8_t *)dst = tmp->u.boolean;
        break;
    case AVK_INT:
        memcpy(dst, &tmp->u.i, 4);
        break;
    case AVK_LONG:
        memcpy(dst, &tmp->u.l, 8);
        break;
    case AVK_FLOAT:
        memcpy(dst, &tmp->u.f, 4);
        break;
    case AVK_DOUBLE:
        memcpy(dst, &tmp->u.d, 8);
        break;
    default:
        break;
    }
}

/* One item into slot i of storage (typed or avk_value[]). */
static int convert_item(conv *c, PyObject *item, const avk_type *it, int typed, size_t size,
                        void *storage, size_t i)
{
    avk_kind k = avk_type_kind(it);
    if (!typed)
        return convert(c, item, it, (avk_value *)storage + i);
    if (k == AVK_NULL) {
        if (item != Py_None)
            return fail_type(c, "None", item);
        return 0;
    }
    if (k == AVK_FIXED) {
        uint8_t *dst = (uint8_t *)storage + i * size;
        avk_logical lt = avk_type_logical(it);
        avk_value tmp;
        if ((lt == AVK_LOGICAL_DECIMAL || lt == AVK_LOGICAL_UUID ||
             (lt == AVK_LOGICAL_DURATION && PyTuple_Check(item))) &&
            !PyBytes_Check(item)) {
            tmp.type = it;
            if (convert(c, item, it, &tmp) < 0)
                return -1;
            if (size)
                memcpy(dst, tmp.u.bytes.data, size);
            return 0;
        }
        return fixed_into(c, item, it, dst);
    }
    {
        avk_value tmp;
        tmp.type = it;
        if (convert(c, item, it, &tmp) < 0)
            return -1;
        store_typed(&tmp, k, (uint8_t *)storage + i * size);
        return 0;
    }
}

/* Numeric arrays with the buffer protocol (numpy arrays, array.array):
 * items read from memory, not as objects. Returns 1 when o is not such an
 * array (nothing raised: the caller iterates). */
static NOINLINE int array_from_buffer(conv *c, PyObject *o, const avk_type *it, avk_value *out)
{
    Py_buffer view;
    avk_kind k = avk_type_kind(it);
    const char *fmt;
    char code;
    size_t n, i, size;
    void *items;
    if (!(k == AVK_BOOLEAN || k == AVK_INT || k == AVK_LONG || k == AVK_FLOAT || k == AVK_DOUBLE))
        return 1;
    if (PyBytes_Check(o) || PyByteArray_Check(o) || !PyObject_CheckBuffer(o))
        return 1;
    if (PyObject_GetBuffer(o, &view, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) {
        PyErr_Clear();
        return 1;
    }
    fmt = view.format ? view.format : "B";
    if (*fmt == '@' || *fmt == '=' || (*fmt == '<' && 1 == *(const unsigned char *)&(int){1}))
        fmt++;
    code = fmt[0];
    if (view.ndim != 1 || fmt[0] == 0 || fmt[1] != 0 || !strchr("?bBhHiIlLqQfd", code) ||
        (k == AVK_BOOLEAN) != (code == '?') || ((k == AVK_INT || k == AVK_LONG) && strchr("fd", code))) {
        PyBuffer_Release(&view);
        return 1;
    }
    n = (size_t)(view.len / (view.itemsize ? view.itemsize : 1));
    size = k == AVK_BOOLEAN ? 1 : (k == AVK_INT || k == AVK_FLOAT) ? 4 : 8;
    items = NULL;
    if (n) {
        items = avk_arena_alloc(c->arena, n * size, 8);
        if (!items) {
            PyBuffer_Release(&view);
            PyErr_NoMemory();
            return -1;
        }
    }
    for (i = 0; i < n; i++) {
        const char *p = (const char *)view.buf + i * (size_t)view.itemsize;
        int64_t sv = 0;
        uint64_t uv = 0;
        double dv = 0;
        int is_unsigned = 0, is_real = 0;
        switch (code) {
        case '?': ((uint8_t *)items)[i] = *(const uint8_t *)p != 0; continue;
        case 'b': sv = *(const signed char *)p; break;
        case 'B': uv = *(const unsigned char *)p; is_unsigned = 1; break;
        case 'h': sv = *(const short *)p; break;
        case 'H': uv = *(const unsigned short *)p; is_unsigned = 1; break;
        case 'i': sv = *(const int *)p; break;
        case 'I': uv = *(const unsigned *)p; is_unsigned = 1; break;
        case 'l': sv = *(const long *)p; break;
        case 'L': uv = *(const unsigned long *)p; is_unsigned = 1; break;
        case 'q': sv = *(const long long *)p; break;
        case 'Q': uv = *(const unsigned long long *)p; is_unsigned = 1; break;
        case 'f': dv = *(const float *)p; is_real = 1; break;
        default: dv = *(const double *)p; is_real = 1; break;
        }
        if (k == AVK_FLOAT || k == AVK_DOUBLE) {
            if (!is_real)
                dv = is_unsigned ? (double)uv : (double)sv;
            if (k == AVK_FLOAT)
                ((float *)items)[i] = (float)dv;
            else
                ((double *)items)[i] = dv;
            continue;
        }
        if (is_unsigned) {
            if (uv > (uint64_t)INT64_MAX)
                goto range;
            sv = (int64_t)uv;
        }
        if (k == AVK_INT) {
            if (sv < INT32_MIN || sv > INT32_MAX)
                goto range;
            ((int32_t *)items)[i] = (int32_t)sv;
        } else {
            ((int64_t *)items)[i] = sv;
        }
        continue;
    range:
        PyBuffer_Release(&view);
        if (is_unsigned)
            fail(c, "%llu is out of range for %s", (unsigned long long)uv, avk_kind_name(k));
        else
            fail(c, "%lld is out of range for int (32 bits)", (long long)sv);
        return up(c, SEG_ITEM, i, NULL);
    }
    PyBuffer_Release(&view);
    out->u.array.items = items;
    out->u.array.count = n;
    return 0;
}

static int conv_array(conv *c, PyObject *o, const avk_type *t, avk_value *out)
{
    const avk_type *it = avk_type_items(t);
    size_t size = sizeof(avk_value), i, n;
    int typed = avk_array_is_typed(t, &size);
    void *storage = NULL;
    int r;
    if (PyUnicode_Check(o) || PyBytes_Check(o) || PyByteArray_Check(o) || PyDict_Check(o))
        return fail_type(c, "a list for array", o);
    out->u.array.items = NULL;
    out->u.array.count = 0;
    if (PyList_Check(o) || PyTuple_Check(o)) {
        n = (size_t)PySequence_Fast_GET_SIZE(o);
        if (n && size) {
            storage = avk_arena_alloc(c->arena, n * size, 8);
            if (!storage) {
                PyErr_NoMemory();
                return -1;
            }
        }
        for (i = 0; i < n; i++) {
            /* a list may shrink while an item converts (its __index__ runs code) */
            PyObject *item;
            if (i >= (size_t)PySequence_Fast_GET_SIZE(o))
                return fail(c, "the list changed size while it was converted");
            item = PySequence_Fast_GET_ITEM(o, i);
            Py_INCREF(item);
            r = convert_item(c, item, it, typed, size, storage, i);
            Py_DECREF(item);
            if (r < 0)
                return up(c, SEG_ITEM, i, NULL);
        }
        out->u.array.items = typed && size == 0 ? NULL : storage;
        out->u.array.count = n;
        return 0;
    }
    r = array_from_buffer(c, o, it, out);
    if (r <= 0)
        return r;
    {
        PyObject *iter = PyObject_GetIter(o), *item;
        Py_ssize_t hint;
        size_t cap;
        if (!iter) {
            if (!PyErr_ExceptionMatches(PyExc_TypeError))
                return -1;
            PyErr_Clear();
            return fail_type(c, "a list (or any iterable) for array", o);
        }
        hint = PyObject_LengthHint(o, 8);
        if (hint < 0) {
            Py_DECREF(iter);
            return -1;
        }
        cap = hint > 0 ? (size_t)hint : 8;
        if (size) {
            storage = avk_arena_alloc(c->arena, cap * size, 8);
            if (!storage) {
                Py_DECREF(iter);
                PyErr_NoMemory();
                return -1;
            }
        }
        n = 0;
        while ((item = PyIter_Next(iter)) != NULL) {
            if (n == cap && size) {
                /* double (the old storage stays in the arena, unused) */
                void *bigger = avk_arena_alloc(c->arena, 2 * cap * size, 8);
                if (!bigger) {
                    Py_DECREF(item);
                    Py_DECREF(iter);
                    PyErr_NoMemory();
                    return -1;
                }
                memcpy(bigger, storage, n * size);
                storage = bigger;
                cap *= 2;
            }
            r = convert_item(c, item, it, typed, size, storage, n);
            Py_DECREF(item);
            if (r < 0) {
                Py_DECREF(iter);
                return up(c, SEG_ITEM, n, NULL);
            }
            n++;
        }
        Py_DECREF(iter);
        if (PyErr_Occurred())
            return -1;
        out->u.array.items = size ? storage : NULL;
        out->u.array.count = n;
        return 0;
    }
}

static int map_entry(conv *c, PyObject *k, PyObject *v, const avk_type *vt, size_t i,
                     avk_bytes *keys, avk_value *values)
{
    avk_value kv;
    int r;
    if (!PyUnicode_Check(k)) {
        fail_type(c, "str map keys", k);
        return up(c, SEG_KEY, i, NULL);
    }
    if (conv_string(c, k, &kv) < 0)
        return up(c, SEG_KEY, i, NULL);
    keys[i] = kv.u.bytes;
    Py_INCREF(v);
    r = convert(c, v, vt, &values[i]);
    Py_DECREF(v);
    if (r < 0)
        return up(c, SEG_VALUE, i, (const char *)kv.u.bytes.data);
    return 0;
}

static int conv_map(conv *c, PyObject *o, const avk_type *t, avk_value *out)
{
    const avk_type *vt = avk_type_values(t);
    PyObject *items = NULL;
    size_t n, i;
    avk_bytes *keys = NULL;
    avk_value *values = NULL;
    int r = 0;
    if (PyDict_Check(o)) {
        n = (size_t)PyDict_GET_SIZE(o);
    } else if (PyMapping_Check(o) && !PyList_Check(o) && !PyTuple_Check(o) &&
               !PyUnicode_Check(o) && !PyBytes_Check(o) && PyObject_HasAttrString(o, "keys")) {
        items = PyMapping_Items(o);
        if (!items)
            return -1;
        n = (size_t)PyList_GET_SIZE(items);
    } else {
        return fail_type(c, "a dict for map", o);
    }
    if (n) {
        keys = (avk_bytes *)avk_arena_alloc(c->arena, n * sizeof *keys, _Alignof(avk_bytes));
        values = (avk_value *)avk_arena_alloc(c->arena, n * sizeof *values, _Alignof(avk_value));
        if (!keys || !values) {
            Py_XDECREF(items);
            PyErr_NoMemory();
            return -1;
        }
    }
    if (!items) {
        Py_ssize_t pos = 0;
        PyObject *k, *v;
        i = 0;
        while (i < n && PyDict_Next(o, &pos, &k, &v)) {
            if ((r = map_entry(c, k, v, vt, i, keys, values)) < 0)
                break;
            i++;
        }
        if (r == 0 && i != n)
            r = fail(c, "the dict changed size while it was converted");
    } else {
        for (i = 0; i < n; i++) {
            PyObject *pair = PyList_GET_ITEM(items, i);
            if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
                r = fail(c, "items() of the mapping did not give pairs");
                break;
            }
            if ((r = map_entry(c, PyTuple_GET_ITEM(pair, 0), PyTuple_GET_ITEM(pair, 1), vt, i,
                               keys, values)) < 0)
                break;
        }
        Py_DECREF(items);
    }
    out->u.map.keys = keys;
    out->u.map.values = values;
    out->u.map.count = n;
    return r;
}

/* ---- unions ---------------------------------------------------------------------------- */

static void branch_list(const avk_type *t, char *buf, size_t cap)
{
    size_t i, len = 0, n = avk_type_branch_count(t);
    buf[0] = 0;
    for (i = 0; i < n && len + 1 < cap; i++) {
        const avk_type *b = avk_type_branch(t, i);
        avk_logical lt = avk_type_logical(b);
        int k = lt != AVK_LOGICAL_NONE
                    ? snprintf(buf + len, cap - len, "%s%s (%s)", i ? ", " : "[", type_label(b),
                               avk_logical_name(lt))
                    : snprintf(buf + len, cap - len, "%s%s", i ? ", " : "[", type_label(b));
        if (k < 0)
            break;
        len += (size_t)k;
    }
    if (len + 1 < cap)
        snprintf(buf + len, cap - len, "]");
}

/* The branch named name: a named type's full or simple name, else its
 * kind or logical type's name. -1 when none. */
static long branch_named(const avk_type *t, const char *name)
{
    size_t i, n = avk_type_branch_count(t);
    for (i = 0; i < n; i++) {
        const avk_type *b = avk_type_branch(t, i);
        if (avk_type_is_named(b)) {
            if (strcmp(avk_type_fullname(b), name) == 0 || strcmp(avk_type_name(b), name) == 0)
                return (long)i;
        } else if (strcmp(avk_kind_name(avk_type_kind(b)), name) == 0 ||
                   (avk_type_logical(b) != AVK_LOGICAL_NONE &&
                    strcmp(avk_logical_name(avk_type_logical(b)), name) == 0)) {
            return (long)i;
        }
    }
    return -1;
}

/* 1 when every field of record t without a default is a key of dict d;
 * *exact 1 when moreover every key is a field. */
static int record_fits(const avk_type *t, PyObject *d, int *exact)
{
    size_t count = avk_type_field_count(t), i, required = 0, matched = 0, matched_required = 0,
           hint = 0;
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    for (i = 0; i < count; i++)
        if (!avk_field_default(avk_type_field(t, i)))
            required++;
    while (PyDict_Next(d, &pos, &k, &v)) {
        const char *key;
        Py_ssize_t n;
        const avk_field *f;
        if (!PyUnicode_Check(k) || !(key = PyUnicode_AsUTF8AndSize(k, &n))) {
            PyErr_Clear();
            continue;
        }
        f = field_named(t, key, (size_t)n, &hint);
        if (!f)
            continue;
        matched++;
        if (!avk_field_default(f))
            matched_required++;
    }
    *exact = matched == (size_t)PyDict_GET_SIZE(d);
    return matched_required == required;
}

static int fail_union(conv *c, PyObject *o, const avk_type *t) AVK_COLD NOINLINE;
static int fail_union(conv *c, PyObject *o, const avk_type *t)
{
    char d[128], list[200];
    describe(o, d, sizeof d);
    branch_list(t, list, sizeof list);
    return fail(c, "no branch of the union %s takes %s (name one with a tuple (branch, value))",
                list, d);
}

static int is_instance(PyObject *o, PyObject *cls)
{
    int r;
    if (!cls)
        return 0;
    if ((PyObject *)Py_TYPE(o) == cls)
        return 1;
    r = PyObject_IsInstance(o, cls);
    if (r < 0) {
        PyErr_Clear();
        return 0;
    }
    return r;
}

#define FIRST(cond)                                                                            \
    do {                                                                                       \
        for (i = 0; i < n; i++) {                                                              \
            const avk_type *b = avk_type_branch(t, i);                                         \
            avk_kind bk = avk_type_kind(b);                                                    \
            avk_logical bl = avk_type_logical(b);                                              \
            (void)bk;                                                                          \
            (void)bl;                                                                          \
            if (cond)                                                                          \
                return (long)i;                                                                \
        }                                                                                      \
    } while (0)

/* The branch a Python value goes to (rules in pyavk.h's order), or -1. */
static NOINLINE long choose_branch(PyObject *o, const avk_type *t)
{
    size_t i, n = avk_type_branch_count(t);
    if (o == Py_None) {
        FIRST(bk == AVK_NULL);
        return -1;
    }
    if (PyBool_Check(o) || is_numpy_bool(o)) {
        FIRST(bk == AVK_BOOLEAN);
        return -1;
    }
    if (PyLong_Check(o) || (PyIndex_Check(o) && !PyFloat_Check(o) && !Py_TYPE(o)->tp_iter)) {
        int overflow = 0;
        long long x;
        PyObject *ix = PyNumber_Index(o);
        if (!ix) {
            PyErr_Clear();
            return -1;
        }
        x = PyLong_AsLongLongAndOverflow(ix, &overflow);
        Py_DECREF(ix);
        if (x == -1 && PyErr_Occurred())
            PyErr_Clear();
        if (!overflow && x >= INT32_MIN && x <= INT32_MAX)
            FIRST(bk == AVK_INT);
        if (!overflow)
            FIRST(bk == AVK_LONG);
        FIRST(bk == AVK_DOUBLE || bk == AVK_FLOAT);
        return -1;
    }
    if (PyFloat_Check(o)) {
        FIRST(bk == AVK_DOUBLE);
        FIRST(bk == AVK_FLOAT);
        return -1;
    }
    if (PyUnicode_Check(o)) {
        FIRST(bk == AVK_STRING);
        {
            const char *s = PyUnicode_AsUTF8(o);
            if (!s) {
                PyErr_Clear();
                return -1;
            }
            FIRST(bk == AVK_ENUM && avk_type_symbol_index(b, s) >= 0);
        }
        return -1;
    }
    if (PyBytes_Check(o) || PyByteArray_Check(o) || PyMemoryView_Check(o)) {
        Py_ssize_t len = PyObject_Length(o);
        if (len < 0) {
            PyErr_Clear();
            return -1;
        }
        FIRST(bk == AVK_BYTES || (bk == AVK_FIXED && avk_type_fixed_size(b) == (size_t)len));
        return -1;
    }
    if (PyDict_Check(o)) {
        int exact;
        FIRST(bk == AVK_RECORD && record_fits(b, o, &exact) && exact);
        FIRST(bk == AVK_RECORD && record_fits(b, o, &exact));
        FIRST(bk == AVK_MAP);
        return -1;
    }
    if (PyList_Check(o) || PyTuple_Check(o)) {
        FIRST(bk == AVK_ARRAY);
        return -1;
    }
    if (PyDateTime_Check(o)) {
        int aware = PyDateTime_DATE_GET_TZINFO(o) != Py_None;
        if (!aware)
            FIRST(bl == AVK_LOGICAL_LOCAL_TIMESTAMP_MILLIS ||
                  bl == AVK_LOGICAL_LOCAL_TIMESTAMP_MICROS ||
                  bl == AVK_LOGICAL_LOCAL_TIMESTAMP_NANOS);
        FIRST(bl == AVK_LOGICAL_TIMESTAMP_MILLIS || bl == AVK_LOGICAL_TIMESTAMP_MICROS ||
              bl == AVK_LOGICAL_TIMESTAMP_NANOS);
        return -1;
    }
    if (PyDate_Check(o)) {
        FIRST(bl == AVK_LOGICAL_DATE);
        return -1;
    }
    if (PyTime_Check(o)) {
        FIRST(bl == AVK_LOGICAL_TIME_MILLIS || bl == AVK_LOGICAL_TIME_MICROS);
        return -1;
    }
    if (is_instance(o, pyavk_Decimal)) {
        FIRST(bl == AVK_LOGICAL_DECIMAL);
        return -1;
    }
    if (is_instance(o, pyavk_UUID)) {
        FIRST(bl == AVK_LOGICAL_UUID);
        return -1;
    }
    if (PyMapping_Check(o) && PyObject_HasAttrString(o, "keys")) {
        FIRST(bk == AVK_RECORD);
        FIRST(bk == AVK_MAP);
        return -1;
    }
    if (Py_TYPE(o)->tp_iter) {
        /* before numbers: a numpy array has __float__ too */
        FIRST(bk == AVK_ARRAY);
        return -1;
    }
    if (Py_TYPE(o)->tp_as_number && Py_TYPE(o)->tp_as_number->nb_float) {
        /* numpy.float32 and other numbers that are not float */
        FIRST(bk == AVK_DOUBLE);
        FIRST(bk == AVK_FLOAT);
        return -1;
    }
    return -1;
}

static int conv_union(conv *c, PyObject *o, const avk_type *t, avk_value *out)
{
    long idx;
    size_t n = avk_type_branch_count(t);
    avk_value *bv;
    PyObject *value = o;
    /* ("branch name", value) names the branch */
    if (PyTuple_Check(o) && PyTuple_GET_SIZE(o) == 2 && PyUnicode_Check(PyTuple_GET_ITEM(o, 0))) {
        const char *name = PyUnicode_AsUTF8(PyTuple_GET_ITEM(o, 0));
        if (!name)
            PyErr_Clear();
        else if ((idx = branch_named(t, name)) >= 0) {
            value = PyTuple_GET_ITEM(o, 1);
            goto chosen;
        }
    }
    idx = choose_branch(o, t);
    if (idx < 0) {
        /* one branch besides null: convert with it, for its precise error */
        size_t i, others = 0, other = 0;
        for (i = 0; i < n; i++)
            if (avk_type_kind(avk_type_branch(t, i)) != AVK_NULL) {
                others++;
                other = i;
            }
        if (others == 1 && o != Py_None)
            idx = (long)other;
        else
            return fail_union(c, o, t);
    }
chosen:
    bv = (avk_value *)avk_arena_alloc(c->arena, sizeof *bv, _Alignof(avk_value));
    if (!bv) {
        PyErr_NoMemory();
        return -1;
    }
    out->u.branch.index = (uint32_t)idx;
    out->u.branch.value = bv;
    if (convert(c, value, avk_type_branch(t, (size_t)idx), bv) < 0)
        return up(c, SEG_BRANCH, (size_t)idx, NULL);
    return 0;
}

/* ---- dispatch -------------------------------------------------------------------------- */

static NOINLINE int conv_enum(conv *c, PyObject *o, const avk_type *t, avk_value *out)
{
    const char *s;
    long i;
    if (!PyUnicode_Check(o))
        return fail_type_fmt(c, o, "a str symbol of enum ", avk_type_fullname(t));
    s = PyUnicode_AsUTF8(o);
    if (!s) {
        PyErr_Clear();
        return fail(c, "enum symbol is not valid Unicode");
    }
    i = avk_type_symbol_index(t, s);
    if (i < 0) {
        char list[160];
        size_t k, len = 0, n = avk_type_symbol_count(t);
        list[0] = 0;
        for (k = 0; k < n && len + 8 < sizeof list; k++) {
            int w = snprintf(list + len, sizeof list - len, "%s%s", k ? ", " : "",
                             avk_type_symbol(t, k));
            if (w < 0)
                break;
            len += (size_t)w;
        }
        if (len >= sizeof list - 8)
            snprintf(list + sizeof list - 5, 5, "...");
        return fail(c, "enum %s has no symbol '%.60s' (symbols: %s)", avk_type_fullname(t), s,
                    list);
    }
    out->u.index = (uint32_t)i;
    return 0;
}

static NOINLINE int conv_fixed(conv *c, PyObject *o, const avk_type *t, avk_value *out)
{
    size_t size = avk_type_fixed_size(t);
    avk_logical lt = avk_type_logical(t);
    uint8_t *dst;
    if (lt == AVK_LOGICAL_DECIMAL && is_instance(o, pyavk_Decimal))
        return conv_decimal(c, o, t, out);
    if (lt == AVK_LOGICAL_UUID && is_instance(o, pyavk_UUID))
        return conv_uuid(c, o, t, out);
    dst = (uint8_t *)avk_arena_alloc(c->arena, size ? size : 1, 1);
    if (!dst) {
        PyErr_NoMemory();
        return -1;
    }
    out->u.bytes.data = dst;
    out->u.bytes.len = size;
    if (lt == AVK_LOGICAL_DURATION && PyTuple_Check(o))
        return duration_into(c, o, dst);
    return fixed_into(c, o, t, dst);
}

static int convert(conv *c, PyObject *o, const avk_type *t, avk_value *out)
{
    int r;
    avk_logical lt = avk_type_logical(t);
    out->type = t;
    switch (avk_type_kind(t)) {
    case AVK_NULL:
        if (o != Py_None)
            return fail_type(c, "None for null", o);
        return 0;
    case AVK_BOOLEAN:
        if (PyBool_Check(o))
            out->u.boolean = o == Py_True;
        else if (is_numpy_bool(o))
            out->u.boolean = (uint8_t)PyObject_IsTrue(o);
        else
            return fail_type(c, "bool", o);
        return 0;
    case AVK_INT:
        if (lt == AVK_LOGICAL_DATE && PyDate_Check(o)) {
            if (PyDateTime_Check(o))
                return fail_type(c, "datetime.date (not datetime) for date", o);
            return conv_date(c, o, out);
        }
        if (lt == AVK_LOGICAL_TIME_MILLIS && PyTime_Check(o)) {
            out->u.i = (int32_t)(time_micros(o) / 1000);
            return 0;
        }
        return conv_integer(c, o, t, out);
    case AVK_LONG:
        if (lt == AVK_LOGICAL_TIME_MICROS && PyTime_Check(o)) {
            out->u.l = time_micros(o);
            return 0;
        }
        if (lt >= AVK_LOGICAL_TIMESTAMP_MILLIS && lt <= AVK_LOGICAL_LOCAL_TIMESTAMP_NANOS &&
            PyDate_Check(o)) {
            if (!PyDateTime_Check(o))
                return fail_type(c, "datetime.datetime for a timestamp", o);
            return conv_timestamp(c, o, lt, out);
        }
        return conv_integer(c, o, t, out);
    case AVK_FLOAT:
    case AVK_DOUBLE:
        return conv_real(c, o, t, out);
    case AVK_STRING:
        if (lt == AVK_LOGICAL_UUID && is_instance(o, pyavk_UUID))
            return conv_uuid(c, o, t, out);
        return conv_string(c, o, out);
    case AVK_BYTES:
        if (lt == AVK_LOGICAL_DECIMAL && is_instance(o, pyavk_Decimal))
            return conv_decimal(c, o, t, out);
        return conv_bytes(c, o, out);
    case AVK_FIXED:
        return conv_fixed(c, o, t, out);
    case AVK_ENUM:
        return conv_enum(c, o, t, out);
    default:
        break;
    }
    if (++c->depth > MAX_DEPTH || (uintptr_t)&r < c->stack_floor) {
        c->depth--;
        if (c->depth >= MAX_DEPTH)
            return fail(c, "data nested deeper than %d levels", MAX_DEPTH);
        return fail(c, "data nested too deep for this thread's stack (%u levels)", c->depth);
    }
    switch (avk_type_kind(t)) {
    case AVK_RECORD:
        r = conv_record(c, o, t, out);
        break;
    case AVK_ARRAY:
        r = conv_array(c, o, t, out);
        break;
    case AVK_MAP:
        r = conv_map(c, o, t, out);
        break;
    default:
        r = conv_union(c, o, t, out);
        break;
    }
    c->depth--;
    return r;
}

/* The lowest address this thread's stack may use, STACK_RESERVE above its
 * end (stacks grow down on every platform CPython runs on with glibc);
 * found once per thread. 0 when the platform does not say. */
static uintptr_t stack_floor(void)
{
    static _Thread_local uintptr_t floor_cached;
    static _Thread_local int known;
    if (!known) {
#if defined(__GLIBC__)
        pthread_attr_t attr;
        void *addr;
        size_t size;
        if (pthread_getattr_np(pthread_self(), &attr) == 0) {
            if (pthread_attr_getstack(&attr, &addr, &size) == 0 && size > 2 * STACK_RESERVE)
                floor_cached = (uintptr_t)addr + STACK_RESERVE;
            pthread_attr_destroy(&attr);
        }
#endif
        known = 1;
    }
    return floor_cached;
}

int pyavk_from_py(PyObject *obj, const avk_type *t, avk_arena *arena, avk_value *out)
{
    conv c;
    if (!PyDateTimeAPI) {
        /* datetime.h keeps the C API pointer per file */
        PyDateTime_IMPORT;
        if (!PyDateTimeAPI)
            return -1;
    }
    c.arena = arena;
    c.depth = 0;
    c.stack_floor = stack_floor();
    c.failed = 0;
    c.nsegs = 0;
    c.reason[0] = 0;
    if (convert(&c, obj, t, out) == 0)
        return 0;
    if (c.failed && !PyErr_Occurred())
        raise_failed(&c, t);
    return -1;
}
