/* read_arrow: a file's records into columns (the C columnar core), held by a Columns object that hands them to NumPy (buffers) and to any Arrow consumer (PyCapsules). */
#include <stdlib.h>
#include <string.h>

#include "pyavk.h"

typedef struct {
    PyObject_HEAD
    struct ArrowSchema schema;
    struct ArrowArray array;
} Columns;

typedef struct {
    PyObject_HEAD
    PyObject *owner; /* the Columns whose memory this is */
    const void *ptr;
    Py_ssize_t len;
} Buffer;

/* ---- Buffer: one Arrow buffer through the buffer protocol ---------------- */

static void Buffer_dealloc(Buffer *self)
{
    Py_XDECREF(self->owner);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int Buffer_getbuffer(Buffer *self, Py_buffer *view, int flags)
{
    static const char empty = 0;
    return PyBuffer_FillInfo(view, (PyObject *)self, (void *)(self->ptr ? self->ptr : &empty),
                             self->len, 1, flags);
}

static PyBufferProcs Buffer_as_buffer = {(getbufferproc)Buffer_getbuffer, NULL};

PyTypeObject pyavk_BufferType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "avrokit._avrokit.Buffer",
    .tp_basicsize = sizeof(Buffer),
    .tp_dealloc = (destructor)Buffer_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "read-only bytes of an Arrow buffer, alive while the Columns they belong to are",
    .tp_as_buffer = &Buffer_as_buffer,
};

static PyObject *buffer_new(PyObject *owner, const void *ptr, size_t len)
{
    Buffer *b = PyObject_New(Buffer, &pyavk_BufferType);
    if (!b)
        return NULL;
    b->owner = Py_NewRef(owner);
    b->ptr = ptr;
    b->len = (Py_ssize_t)len;
    return (PyObject *)b;
}

/* ---- describing the columns to Python ----------------------------------- */

static int is_fixed_width(const char *f, size_t *width)
{
    switch (f[0]) {
    case 'i':
    case 'f':
        *width = 4;
        return f[1] == '\0';
    case 'l':
    case 'g':
        *width = 8;
        return f[1] == '\0';
    case 't':
        if (f[1] == 'd' || (f[1] == 't' && f[2] == 'm')) {
            *width = 4;
            return 1;
        }
        *width = 8;
        return 1;
    case 'w':
        *width = (size_t)strtoul(f + 2, NULL, 10);
        return 1;
    case 'd':
        *width = strstr(f, ",256") ? 32 : 16;
        return 1;
    default:
        return 0;
    }
}

/* (name, format, length, null_count, nullable, [buffers], [children],
 * dictionary or None, id): id numbers the nodes in pre-order for pylist(). */
static PyObject *describe(PyObject *owner, const struct ArrowSchema *s, const struct ArrowArray *a,
                          long *id)
{
    PyObject *bufs = PyList_New(0), *kids = PyList_New(0), *dict = NULL, *out = NULL;
    const char *f = s->format;
    size_t width, n = (size_t)a->length;
    long my_id = (*id)++;
    int64_t i;
    if (!bufs || !kids)
        goto done;
    for (i = 0; i < a->n_buffers; i++) {
        size_t len = 0;
        PyObject *b;
        const void *p = a->buffers[i];
        if (f[0] == '+' && f[1] == 'u') {
            len = i == 0 ? n : 4 * n;
        } else if (i == 0) {
            len = p ? (n + 7) / 8 : 0;
        } else if (f[0] == 'b') {
            len = (n + 7) / 8;
        } else if (f[0] == 'u' || f[0] == 'z') {
            len = i == 1 ? 4 * (n + 1) : (size_t)((const int32_t *)a->buffers[1])[n];
        } else if (f[0] == '+' && (f[1] == 'l' || f[1] == 'm')) {
            len = 4 * (n + 1);
        } else if (is_fixed_width(f, &width)) {
            len = width * n;
        }
        b = p ? buffer_new(owner, p, len) : Py_NewRef(Py_None);
        if (!b || PyList_Append(bufs, b) < 0) {
            Py_XDECREF(b);
            goto done;
        }
        Py_DECREF(b);
    }
    for (i = 0; i < a->n_children; i++) {
        PyObject *k = describe(owner, s->children[i], a->children[i], id);
        if (!k || PyList_Append(kids, k) < 0) {
            Py_XDECREF(k);
            goto done;
        }
        Py_DECREF(k);
    }
    if (s->dictionary) {
        dict = describe(owner, s->dictionary, a->dictionary, id);
        if (!dict)
            goto done;
    }
    out = Py_BuildValue("(ssLLOOOOl)", s->name ? s->name : "", f, (long long)a->length,
                        (long long)a->null_count,
                        (s->flags & ARROW_FLAG_NULLABLE) ? Py_True : Py_False, bufs, kids,
                        dict ? dict : Py_None, my_id);
done:
    Py_XDECREF(bufs);
    Py_XDECREF(kids);
    Py_XDECREF(dict);
    return out;
}

/* ---- a column as Python objects ----------------------------------------- */

static int is_null(const struct ArrowArray *a, int64_t i)
{
    const uint8_t *v = a->buffers[0];
    if (!v || a->n_buffers == 0 || a->null_count == 0)
        return 0;
    i += a->offset;
    return !(v[i >> 3] & (1u << (i & 7)));
}

static PyObject *pylist(const struct ArrowSchema *s, const struct ArrowArray *a);

/* A decimal128/256 cell (little-endian) as a Decimal. */
static PyObject *decimal_le(const uint8_t *p, size_t width, int scale)
{
    uint8_t be[32];
    size_t k;
    for (k = 0; k < width; k++)
        be[k] = p[width - 1 - k];
    return pyavk_decimal(be, width, scale);
}

/* Value i of a column (not null). */
static PyObject *item(const struct ArrowSchema *s, const struct ArrowArray *a, PyObject *kids,
                      int64_t i)
{
    const char *f = s->format;
    int64_t j = i + a->offset;
    size_t width;
    if (s->dictionary) {
        /* an enum: its symbol */
        int32_t k = ((const int32_t *)a->buffers[1])[j];
        const int32_t *o = a->dictionary->buffers[1];
        const char *d = a->dictionary->buffers[2];
        return PyUnicode_DecodeUTF8(d + o[k], o[k + 1] - o[k], "strict");
    }
    switch (f[0]) {
    case 'n':
        Py_RETURN_NONE;
    case 'b':
        return PyBool_FromLong((((const uint8_t *)a->buffers[1])[j >> 3] >> (j & 7)) & 1);
    case 'i':
        return PyLong_FromLong(((const int32_t *)a->buffers[1])[j]);
    case 'l':
        return PyLong_FromLongLong(((const int64_t *)a->buffers[1])[j]);
    case 'f':
        return PyFloat_FromDouble(((const float *)a->buffers[1])[j]);
    case 'g':
        return PyFloat_FromDouble(((const double *)a->buffers[1])[j]);
    case 'u':
    case 'z': {
        const int32_t *o = a->buffers[1];
        const char *d = a->buffers[2];
        return f[0] == 'u' ? PyUnicode_DecodeUTF8(d + o[j], o[j + 1] - o[j], "strict")
                           : PyBytes_FromStringAndSize(d + o[j], o[j + 1] - o[j]);
    }
    case 'w':
        width = (size_t)strtoul(f + 2, NULL, 10);
        return PyBytes_FromStringAndSize((const char *)a->buffers[1] + width * (size_t)j,
                                         (Py_ssize_t)width);
    case 'd': {
        const char *comma = strchr(f, ',');
        width = strstr(f, ",256") ? 32 : 16;
        return decimal_le((const uint8_t *)a->buffers[1] + width * (size_t)j, width,
                          comma ? atoi(comma + 1) : 0);
    }
    case 't': /* dates, times, timestamps: their integers (read_columns types them) */
        if (f[1] == 'd' || (f[1] == 't' && f[2] == 'm'))
            return PyLong_FromLong(((const int32_t *)a->buffers[1])[j]);
        return PyLong_FromLongLong(((const int64_t *)a->buffers[1])[j]);
    case '+':
        break;
    default:
        return PyErr_Format(PyExc_TypeError, "unknown Arrow format '%s'", f);
    }
    if (f[1] == 's') {
        PyObject *d = PyDict_New();
        int64_t k;
        for (k = 0; d && k < s->n_children; k++)
            if (PyDict_SetItemString(d, s->children[k]->name,
                                     PyList_GET_ITEM(PyList_GET_ITEM(kids, k), j)) < 0)
                Py_CLEAR(d);
        return d;
    }
    if (f[1] == 'l') {
        const int32_t *o = a->buffers[1];
        return PyList_GetSlice(PyList_GET_ITEM(kids, 0), o[j], o[j + 1]);
    }
    if (f[1] == 'm') {
        /* entries: a list of {key, value} dicts */
        const int32_t *o = a->buffers[1];
        PyObject *entries = PyList_GET_ITEM(kids, 0), *d = PyDict_New();
        int32_t k;
        for (k = o[j]; d && k < o[j + 1]; k++) {
            PyObject *e = PyList_GET_ITEM(entries, k);
            if (PyDict_SetItem(d, PyDict_GetItemString(e, "key"), PyDict_GetItemString(e, "value")) < 0)
                Py_CLEAR(d);
        }
        return d;
    }
    if (f[1] == 'u') {
        int8_t t = ((const int8_t *)a->buffers[0])[j];
        int32_t o = ((const int32_t *)a->buffers[1])[j];
        return Py_NewRef(PyList_GET_ITEM(PyList_GET_ITEM(kids, t), o));
    }
    return PyErr_Format(PyExc_TypeError, "unknown Arrow format '%s'", f);
}

static PyObject *pylist(const struct ArrowSchema *s, const struct ArrowArray *a)
{
    PyObject *kids = PyList_New(a->n_children), *out = NULL;
    int64_t i;
    if (!kids)
        return NULL;
    if (Py_EnterRecursiveCall(" while converting a column")) {
        Py_DECREF(kids);
        return NULL;
    }
    for (i = 0; i < a->n_children; i++) {
        PyObject *k = pylist(s->children[i], a->children[i]);
        if (!k)
            goto done;
        PyList_SET_ITEM(kids, i, k);
    }
    out = PyList_New(a->length);
    for (i = 0; out && i < a->length; i++) {
        PyObject *x = (s->format[0] != '+' || s->format[1] != 'u') && is_null(a, i)
                          ? Py_NewRef(Py_None)
                          : item(s, a, kids, i);
        if (!x)
            Py_CLEAR(out);
        else
            PyList_SET_ITEM(out, i, x);
    }
done:
    Py_LeaveRecursiveCall();
    Py_DECREF(kids);
    return out;
}

/* Node number id (pre-order, as describe numbers them). */
static int find_node(const struct ArrowSchema *s, const struct ArrowArray *a, long *id,
                     const struct ArrowSchema **so, const struct ArrowArray **ao)
{
    int64_t i;
    if ((*id)-- == 0) {
        *so = s;
        *ao = a;
        return 1;
    }
    for (i = 0; i < a->n_children; i++)
        if (find_node(s->children[i], a->children[i], id, so, ao))
            return 1;
    if (s->dictionary && find_node(s->dictionary, a->dictionary, id, so, ao))
        return 1;
    return 0;
}

/* ---- Columns ------------------------------------------------------------- */

static void Columns_dealloc(Columns *self)
{
    if (self->schema.release)
        self->schema.release(&self->schema);
    if (self->array.release)
        self->array.release(&self->array);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static Py_ssize_t Columns_len(Columns *self)
{
    return (Py_ssize_t)self->array.length;
}

static PyObject *Columns_describe(Columns *self, PyObject *unused)
{
    long id = 0;
    (void)unused;
    return describe((PyObject *)self, &self->schema, &self->array, &id);
}

static PyObject *Columns_pylist(Columns *self, PyObject *arg)
{
    long id = PyLong_AsLong(arg);
    const struct ArrowSchema *s = NULL;
    const struct ArrowArray *a = NULL;
    if (id == -1 && PyErr_Occurred())
        return NULL;
    if (id < 0 || !find_node(&self->schema, &self->array, &id, &s, &a))
        return PyErr_Format(PyExc_IndexError, "no column node %ld", id);
    return pylist(s, a);
}

/* Copies for consumers: each node holds a reference to the Columns, so the
 * buffers stay valid until every node a consumer moved out is released. */
typedef struct copy_priv {
    PyObject *owner;
    void *kids_storage;
    void **kids;
    int64_t n_kids;
    void *dict;
    char *format, *name;
} copy_priv;

/* n zeroed child structs of elem bytes and pointers to them, into p. */
static int kids_alloc(copy_priv *p, int64_t n, size_t elem)
{
    p->kids_storage = calloc((size_t)n, elem);
    p->kids = calloc((size_t)n, sizeof *p->kids);
    if (!p->kids_storage || !p->kids)
        return -1;
    p->n_kids = n;
    return 0;
}

static void drop_owner(PyObject *owner)
{
    /* Consumers may release on any thread, with or without the GIL; after
     * the interpreter is gone the buffers go with the process. */
    PyGILState_STATE g;
    if (!Py_IsInitialized())
        return;
    g = PyGILState_Ensure();
    Py_DECREF(owner);
    PyGILState_Release(g);
}

static void array_copy_release(struct ArrowArray *a)
{
    copy_priv *p = a->private_data;
    int64_t i;
    for (i = 0; i < p->n_kids; i++) {
        struct ArrowArray *k = p->kids[i];
        if (k->release)
            k->release(k);
    }
    if (p->dict) {
        struct ArrowArray *d = p->dict;
        if (d->release)
            d->release(d);
        free(d);
    }
    free(p->kids_storage);
    free(p->kids);
    drop_owner(p->owner);
    free(p);
    a->release = NULL;
}

static int array_copy(PyObject *owner, const struct ArrowArray *src, struct ArrowArray *dst)
{
    copy_priv *p = calloc(1, sizeof *p);
    struct ArrowArray *kids;
    int64_t i;
    *dst = *src;
    dst->release = NULL;
    if (!p)
        return -1;
    p->owner = Py_NewRef(owner);
    dst->private_data = p;
    dst->release = array_copy_release;
    dst->children = NULL;
    dst->dictionary = NULL;
    if (src->n_children) {
        if (kids_alloc(p, src->n_children, sizeof *kids) < 0)
            return -1;
        kids = p->kids_storage;
        for (i = 0; i < src->n_children; i++)
            p->kids[i] = &kids[i];
        dst->children = (struct ArrowArray **)p->kids;
        for (i = 0; i < src->n_children; i++)
            if (array_copy(owner, src->children[i], &kids[i]) < 0)
                return -1;
    }
    if (src->dictionary) {
        p->dict = calloc(1, sizeof(struct ArrowArray));
        if (!p->dict)
            return -1;
        dst->dictionary = p->dict;
        if (array_copy(owner, src->dictionary, p->dict) < 0)
            return -1;
    }
    return 0;
}

static void schema_copy_release(struct ArrowSchema *s)
{
    copy_priv *p = s->private_data;
    int64_t i;
    for (i = 0; i < p->n_kids; i++) {
        struct ArrowSchema *k = p->kids[i];
        if (k->release)
            k->release(k);
    }
    if (p->dict) {
        struct ArrowSchema *d = p->dict;
        if (d->release)
            d->release(d);
        free(d);
    }
    free(p->kids_storage);
    free(p->kids);
    free(p->format);
    free(p->name);
    free(p);
    s->release = NULL;
}

static char *dup_text(const char *s)
{
    size_t n = s ? strlen(s) + 1 : 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s ? s : "", n);
    return d;
}

/* A schema copy owns its strings: no reference to the Columns needed. */
static int schema_copy(const struct ArrowSchema *src, struct ArrowSchema *dst)
{
    copy_priv *p = calloc(1, sizeof *p);
    struct ArrowSchema *kids;
    int64_t i;
    *dst = *src;
    dst->release = NULL;
    if (!p)
        return -1;
    dst->private_data = p;
    dst->release = schema_copy_release;
    dst->children = NULL;
    dst->dictionary = NULL;
    dst->metadata = NULL;
    p->format = dup_text(src->format);
    p->name = dup_text(src->name);
    dst->format = p->format;
    dst->name = p->name;
    if (!p->format || !p->name)
        return -1;
    if (src->n_children) {
        if (kids_alloc(p, src->n_children, sizeof *kids) < 0)
            return -1;
        kids = p->kids_storage;
        for (i = 0; i < src->n_children; i++)
            p->kids[i] = &kids[i];
        dst->children = (struct ArrowSchema **)p->kids;
        for (i = 0; i < src->n_children; i++)
            if (schema_copy(src->children[i], &kids[i]) < 0)
                return -1;
    }
    if (src->dictionary) {
        p->dict = calloc(1, sizeof(struct ArrowSchema));
        if (!p->dict)
            return -1;
        dst->dictionary = p->dict;
        if (schema_copy(src->dictionary, p->dict) < 0)
            return -1;
    }
    return 0;
}

static void schema_capsule_free(PyObject *cap)
{
    struct ArrowSchema *s = PyCapsule_GetPointer(cap, "arrow_schema");
    if (s) {
        if (s->release)
            s->release(s);
        free(s);
    }
}

static void array_capsule_free(PyObject *cap)
{
    struct ArrowArray *a = PyCapsule_GetPointer(cap, "arrow_array");
    if (a) {
        if (a->release)
            a->release(a);
        free(a);
    }
}

static PyObject *schema_capsule(Columns *self)
{
    struct ArrowSchema *s = calloc(1, sizeof *s);
    PyObject *cap;
    if (!s)
        return PyErr_NoMemory();
    if (schema_copy(&self->schema, s) < 0) {
        if (s->release)
            s->release(s);
        free(s);
        return PyErr_NoMemory();
    }
    cap = PyCapsule_New(s, "arrow_schema", schema_capsule_free);
    if (!cap) {
        s->release(s);
        free(s);
    }
    return cap;
}

static PyObject *Columns_arrow_c_schema(Columns *self, PyObject *unused)
{
    (void)unused;
    return schema_capsule(self);
}

static PyObject *Columns_arrow_c_array(Columns *self, PyObject *args, PyObject *kw)
{
    static char *names[] = {"requested_schema", NULL};
    PyObject *requested = Py_None, *scap, *acap;
    struct ArrowArray *a;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O", names, &requested))
        return NULL;
    (void)requested; /* the columns' own types are the only ones offered */
    scap = schema_capsule(self);
    if (!scap)
        return NULL;
    a = calloc(1, sizeof *a);
    if (!a || array_copy((PyObject *)self, &self->array, a) < 0) {
        if (a && a->release)
            a->release(a);
        free(a);
        Py_DECREF(scap);
        return PyErr_NoMemory();
    }
    acap = PyCapsule_New(a, "arrow_array", array_capsule_free);
    if (!acap) {
        a->release(a);
        free(a);
        Py_DECREF(scap);
        return NULL;
    }
    return Py_BuildValue("(NN)", scap, acap);
}

static PyMethodDef Columns_methods[] = {
    {"describe", (PyCFunction)Columns_describe, METH_NOARGS,
     "the column tree: (name, format, length, null_count, nullable, buffers, children, "
     "dictionary, id)"},
    {"pylist", (PyCFunction)Columns_pylist, METH_O, "pylist(id): node id's values as a list"},
    {"__arrow_c_schema__", (PyCFunction)Columns_arrow_c_schema, METH_NOARGS,
     "the Arrow schema, as a PyCapsule named 'arrow_schema'"},
    {"__arrow_c_array__", (PyCFunction)(void (*)(void))Columns_arrow_c_array,
     METH_VARARGS | METH_KEYWORDS,
     "(schema capsule, array capsule) of the Arrow C Data Interface"},
    {NULL, NULL, 0, NULL}};

static PySequenceMethods Columns_as_sequence = {.sq_length = (lenfunc)Columns_len};

PyTypeObject pyavk_ColumnsType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "avrokit._avrokit.Columns",
    .tp_basicsize = sizeof(Columns),
    .tp_dealloc = (destructor)Columns_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "records decoded into Arrow columns (read_arrow)",
    .tp_methods = Columns_methods,
    .tp_as_sequence = &Columns_as_sequence,
};

/* ---- read_arrow ----------------------------------------------------------- */

/* Blocks of the range straight into the columns (GIL released by the caller). */
static avk_status read_blocks(avk_file_reader *fr, avk_columns *c, uint64_t end, avk_error *err)
{
    avk_file_block b;
    int more;
    avk_status st;
    for (;;) {
        st = avk_file_reader_next_block(fr, &b, &more, err);
        if (st != AVK_OK || !more)
            return st;
        if (end != UINT64_MAX && b.offset >= 16 && b.offset - 16 >= end)
            return AVK_OK;
        st = avk_columns_decode_block(c, fr, &b, NULL, err);
        if (st != AVK_OK)
            return st;
    }
}

PyObject *pyavk_read_arrow(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *names[] = {"source", "columns", "reader_schema", "start", "end", NULL};
    PyObject *source, *cols = Py_None, *rs = Py_None, *start = Py_None, *end = Py_None;
    PyObject *keep = NULL, *fields_seq = NULL, *out = NULL;
    avk_schema *reader_schema = NULL;
    avk_file_reader *fr = NULL;
    avk_file_reader_options o;
    avk_columns_options co;
    avk_columns *c = NULL;
    const char **fields = NULL;
    Py_ssize_t i, nf = 0;
    uint64_t end_at = UINT64_MAX;
    avk_error err;
    avk_status st;
    Columns *result;
    (void)self;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OOOO", names, &source, &cols, &rs, &start, &end))
        return NULL;
    avk_file_reader_options_init(&o);
    avk_columns_options_init(&co);
    if (rs != Py_None) {
        reader_schema = pyavk_schema_from_py(rs);
        if (!reader_schema)
            return NULL;
    }
    if (cols != Py_None) {
        /* A tuple of its own: the strings stay alive while the GIL is
         * released, whatever other threads do to the caller's list. */
        fields_seq = PySequence_Tuple(cols);
        if (!fields_seq)
            goto done;
        nf = PyTuple_GET_SIZE(fields_seq);
        fields = PyMem_Calloc((size_t)nf + 1, sizeof *fields);
        if (!fields) {
            PyErr_NoMemory();
            goto done;
        }
        for (i = 0; i < nf; i++) {
            fields[i] = PyUnicode_AsUTF8(PyTuple_GET_ITEM(fields_seq, i));
            if (!fields[i])
                goto done;
        }
        co.fields = fields;
        co.field_count = (size_t)nf;
    }
    if (pyavk_open_file(source, &o, &fr, &keep) < 0)
        goto done;
    if (end != Py_None) {
        end_at = PyLong_AsUnsignedLongLong(end);
        if (PyErr_Occurred())
            goto done;
    }
    {
        unsigned long long start_at = 0;
        if (start != Py_None) {
            start_at = PyLong_AsUnsignedLongLong(start);
            if (PyErr_Occurred())
                goto done;
        }
        Py_BEGIN_ALLOW_THREADS
        /* With a reader's schema, the column set resolves each record
         * itself: the file reader hands over raw blocks either way. */
        if (reader_schema)
            co.reader = avk_schema_root(reader_schema);
        st = avk_columns_new(avk_schema_root(avk_file_reader_schema(fr)), &co, &c, &err);
        if (st == AVK_OK && start != Py_None)
            st = avk_file_reader_seek_sync(fr, start_at, &err);
        if (st == AVK_OK)
            st = read_blocks(fr, c, end_at, &err);
        Py_END_ALLOW_THREADS
    }
    if (st != AVK_OK) {
        pyavk_raise(&err);
        goto done;
    }
    result = PyObject_New(Columns, &pyavk_ColumnsType);
    if (!result)
        goto done;
    result->schema.release = NULL;
    result->array.release = NULL;
    if (avk_columns_export_schema(c, &result->schema, &err) != AVK_OK ||
        avk_columns_export(c, &result->array, &err) != AVK_OK) {
        pyavk_raise(&err);
        Py_DECREF(result);
        goto done;
    }
    out = (PyObject *)result;
done:
    avk_columns_free(c);
    avk_file_reader_free(fr);
    avk_schema_free(reader_schema);
    Py_XDECREF(keep);
    Py_XDECREF(fields_seq);
    PyMem_Free(fields);
    return out;
}
