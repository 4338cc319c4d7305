/* avrokit._avrokit.Reader: a container file's records as Python dicts, decoded with the GIL released. */
#include <string.h>

#include "pyavk.h"
#include "pythread.h"

/* Records decoded per release of the GIL. */
#define READER_BATCH 32

typedef struct {
    PyObject_HEAD
    avk_file_reader *fr;
    PyObject *keep;          /* the bytes a file object gave, read in place */
    avk_schema *reader_schema;
    avk_arena *arena;        /* one record's values, reset per record */
    pyavk_names *names;
    int flags;               /* PYAVK_RAW */
    uint64_t end;            /* range end (UINT64_MAX: none) */
    int finished;            /* the file (or range) has no more records */
    int failed;              /* error holds what stopped reading */
    avk_error error;
    avk_value batch[READER_BATCH]; /* decoded, not yet handed out */
    size_t batch_n, batch_i;
    PyThread_type_lock lock; /* one call at a time: the GIL is released inside */
} Reader;

/* Takes the object's lock without holding the GIL while waiting. */
static void lock_object(PyThread_type_lock lock)
{
    if (!PyThread_acquire_lock(lock, NOWAIT_LOCK)) {
        Py_BEGIN_ALLOW_THREADS
        PyThread_acquire_lock(lock, WAIT_LOCK);
        Py_END_ALLOW_THREADS
    }
}

static void Reader_dealloc(Reader *self)
{
    avk_file_reader_free(self->fr);
    avk_arena_free(self->arena);
    avk_schema_free(self->reader_schema);
    pyavk_names_free(self->names);
    Py_XDECREF(self->keep);
    if (self->lock)
        PyThread_free_lock(self->lock);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

int pyavk_past_range(const avk_file_reader *fr, uint64_t end)
{
    /* the next block's marker (16 bytes before it) starts at or after end */
    return end != UINT64_MAX && avk_file_reader_block_offset(fr) - 16 >= end &&
           avk_file_reader_block_offset(fr) >= 16;
}

/* Seeks to the first block of the range [start, end) (see file.h). */
static int seek_range(avk_file_reader *fr, PyObject *start, PyObject *end, uint64_t *end_out)
{
    avk_error err;
    avk_status st;
    *end_out = UINT64_MAX;
    if (end && end != Py_None) {
        unsigned long long e = PyLong_AsUnsignedLongLong(end);
        if (PyErr_Occurred())
            return -1;
        *end_out = e;
    }
    if (start && start != Py_None) {
        unsigned long long s = PyLong_AsUnsignedLongLong(start);
        if (PyErr_Occurred())
            return -1;
        Py_BEGIN_ALLOW_THREADS
        st = avk_file_reader_seek_sync(fr, s, &err);
        Py_END_ALLOW_THREADS
        if (st != AVK_OK) {
            pyavk_raise(&err);
            return -1;
        }
    }
    return 0;
}

static int Reader_init(Reader *self, PyObject *args, PyObject *kw)
{
    static char *names[] = {"source", "reader_schema", "raw", "start", "end", NULL};
    PyObject *source, *rs = Py_None, *start = Py_None, *end = Py_None;
    int raw = 0;
    avk_file_reader_options o;
    avk_error err;
    if (self->lock) {
        PyErr_SetString(PyExc_RuntimeError, "Reader already initialised");
        return -1;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OpOO", names, &source, &rs, &raw, &start, &end))
        return -1;
    /* Everything but the file first: a reader with a file is whole. */
    if (avk_arena_new(NULL, &self->arena, &err) != AVK_OK) {
        pyavk_raise(&err);
        return -1;
    }
    avk_file_reader_options_init(&o);
    if (rs != Py_None) {
        self->reader_schema = pyavk_schema_from_py(rs);
        if (!self->reader_schema)
            return -1;
        o.reader_schema = self->reader_schema;
    }
    if (pyavk_open_file(source, &o, &self->fr, &self->keep) < 0)
        return -1;
    self->names = pyavk_names_new(self->reader_schema ? avk_schema_root(self->reader_schema)
                                                      : avk_schema_root(avk_file_reader_schema(self->fr)));
    if (!self->names || seek_range(self->fr, start, end, &self->end) < 0)
        goto fail;
    self->flags = raw ? PYAVK_RAW : 0;
    self->lock = PyThread_allocate_lock();
    if (!self->lock) {
        PyErr_NoMemory();
        goto fail;
    }
    return 0;
fail:
    avk_file_reader_free(self->fr);
    self->fr = NULL;
    Py_CLEAR(self->keep);
    return -1;
}

/* Decodes the next records into the batch, the GIL released once for all
 * of them. A batch stays within one block: strings may view the block's
 * buffer, which the next block replaces. An error after some records is
 * kept for when they are delivered. */
static void refill(Reader *self)
{
    uint64_t block;
    avk_status st = AVK_OK;
    int more = 1;
    self->batch_n = self->batch_i = 0;
    Py_BEGIN_ALLOW_THREADS
    avk_arena_reset(self->arena);
    block = avk_file_reader_block_offset(self->fr);
    while (self->batch_n < READER_BATCH) {
        if (pyavk_past_range(self->fr, self->end)) {
            more = 0; /* the next block's marker starts at or after the range's end */
            break;
        }
        if (self->batch_n && avk_file_reader_block_offset(self->fr) != block)
            break;
        st = avk_file_reader_next(self->fr, self->arena, &self->batch[self->batch_n], &more,
                                  &self->error);
        if (st != AVK_OK || !more)
            break;
        self->batch_n++;
    }
    Py_END_ALLOW_THREADS
    if (st != AVK_OK)
        self->failed = 1;
    else if (!more)
        self->finished = 1;
}

static PyObject *Reader_next(Reader *self)
{
    PyObject *out;
    if (!self->lock) {
        PyErr_SetString(PyExc_ValueError, "the reader was not initialised");
        return NULL;
    }
    lock_object(self->lock);
    if (!self->fr) { /* closed, perhaps by another thread while we waited */
        PyThread_release_lock(self->lock);
        PyErr_SetString(PyExc_ValueError, "the reader is closed");
        return NULL;
    }
    if (self->batch_i == self->batch_n && !self->finished && !self->failed)
        refill(self);
    if (self->batch_i == self->batch_n) {
        PyThread_release_lock(self->lock);
        if (self->failed)
            return pyavk_raise(&self->error); /* raised again by every later call */
        return NULL; /* StopIteration */
    }
    out = pyavk_to_py(self->names, &self->batch[self->batch_i++], self->flags);
    PyThread_release_lock(self->lock);
    return out;
}

static PyObject *Reader_close(Reader *self, PyObject *unused)
{
    (void)unused;
    if (self->lock)
        lock_object(self->lock);
    avk_file_reader_free(self->fr);
    self->fr = NULL;
    Py_CLEAR(self->keep);
    if (self->lock)
        PyThread_release_lock(self->lock);
    Py_RETURN_NONE;
}

static PyObject *Reader_enter(Reader *self, PyObject *unused)
{
    (void)unused;
    return Py_NewRef(self);
}

static PyObject *Reader_exit(Reader *self, PyObject *args)
{
    (void)args;
    return Reader_close(self, NULL);
}

static int check_open(Reader *self)
{
    if (self->fr)
        return 0;
    PyErr_SetString(PyExc_ValueError, "the reader is closed");
    return -1;
}

static PyObject *Reader_schema(Reader *self, void *closure)
{
    (void)closure;
    if (check_open(self) < 0)
        return NULL;
    return pyavk_schema_to_py(avk_schema_root(avk_file_reader_schema(self->fr)));
}

static PyObject *Reader_metadata(Reader *self, void *closure)
{
    PyObject *out;
    size_t i, n;
    (void)closure;
    if (check_open(self) < 0)
        return NULL;
    out = PyDict_New();
    n = avk_file_reader_meta_count(self->fr);
    for (i = 0; out && i < n; i++) {
        const char *key;
        const uint8_t *val;
        size_t len;
        PyObject *b;
        if (!avk_file_reader_meta_at(self->fr, i, &key, &val, &len))
            continue;
        b = PyBytes_FromStringAndSize((const char *)val, (Py_ssize_t)len);
        if (!b || PyDict_SetItemString(out, key, b) < 0)
            Py_CLEAR(out);
        Py_XDECREF(b);
    }
    return out;
}

static PyObject *Reader_codec(Reader *self, void *closure)
{
    int nonstandard;
    (void)closure;
    if (check_open(self) < 0)
        return NULL;
    return PyUnicode_FromString(avk_codec_name(avk_file_reader_codec(self->fr, &nonstandard)));
}

static PyObject *Reader_sync(Reader *self, void *closure)
{
    (void)closure;
    if (check_open(self) < 0)
        return NULL;
    return PyBytes_FromStringAndSize((const char *)avk_file_reader_sync(self->fr), 16);
}

static PyMethodDef Reader_methods[] = {
    {"close", (PyCFunction)Reader_close, METH_NOARGS, "closes the file"},
    {"__enter__", (PyCFunction)Reader_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)Reader_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef Reader_getset[] = {
    {"schema", (getter)Reader_schema, NULL, "the writer's schema, as JSON data", NULL},
    {"metadata", (getter)Reader_metadata, NULL, "the header's metadata: str -> bytes", NULL},
    {"codec", (getter)Reader_codec, NULL, "the codec's name", NULL},
    {"sync", (getter)Reader_sync, NULL, "the 16-byte sync marker", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

PyObject *pyavk_scan(PyObject *self, PyObject *arg)
{
    avk_file_reader *fr;
    avk_file_reader_stats stats;
    avk_arena *arena;
    avk_value v;
    avk_error err;
    avk_status st;
    PyObject *keep;
    uint64_t n = 0;
    int more = 0;
    (void)self;
    if (pyavk_open_file(arg, NULL, &fr, &keep) < 0)
        return NULL;
    st = avk_arena_new(NULL, &arena, &err);
    if (st == AVK_OK) {
        Py_BEGIN_ALLOW_THREADS
        while ((st = avk_file_reader_next(fr, arena, &v, &more, &err)) == AVK_OK && more) {
            n++;
            avk_arena_reset(arena);
        }
        Py_END_ALLOW_THREADS
        avk_arena_free(arena);
    }
    avk_file_reader_get_stats(fr, &stats);
    avk_file_reader_free(fr);
    Py_XDECREF(keep);
    if (st != AVK_OK)
        return pyavk_raise(&err);
    return Py_BuildValue("(KK)", (unsigned long long)n, (unsigned long long)stats.bytes_data);
}

PyTypeObject pyavk_ReaderType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "avrokit._avrokit.Reader",
    .tp_basicsize = sizeof(Reader),
    .tp_dealloc = (destructor)Reader_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Reader(source, reader_schema=None, raw=False, start=None, end=None): the records "
              "of a container file as dicts",
    .tp_iter = PyObject_SelfIter,
    .tp_iternext = (iternextfunc)Reader_next,
    .tp_methods = Reader_methods,
    .tp_getset = Reader_getset,
    .tp_init = (initproc)Reader_init,
    .tp_new = PyType_GenericNew,
};
