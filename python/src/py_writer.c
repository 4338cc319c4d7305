/* avrokit._avrokit.Writer: container files written from Python records, to a path (atomically) or a binary file object. */
#include "pyavk.h" /* Python.h first: it sets the feature macros (mkostemp) */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pythread.h>

typedef struct Writer {
    PyObject_HEAD
    avk_file_writer *fw;     /* NULL once closed (or never opened) */
    avk_schema *schema;      /* the schema as given, for the schema property */
    const avk_type *root;    /* the writer's own root type, values are built against it */
    avk_arena *arena;        /* one record's value; reset per record */
    PyThread_type_lock lock; /* one call at a time; taken with the GIL released */
    unsigned long owner;     /* thread holding lock (re-entry from dest.write is refused) */
    PyObject *dest;          /* the file object, or NULL for a path */
    PyObject *exc_type, *exc_value, *exc_tb; /* what dest.write raised */
    char *tmp_path;          /* path destination: the temporary file (PyMem) ... */
    char *final_path;        /* ... renamed to this on a successful close */
    int fd;                  /* the temporary file, or -1 */
    int closed;
    uint8_t sync[AVK_FILE_SYNC_SIZE];
} Writer;

/* ---- the lock ---------------------------------------------------------------------------- */

static int lock_writer(Writer *self)
{
    unsigned long me = PyThread_get_thread_ident();
    if (self->owner == me) {
        PyErr_SetString(PyExc_RuntimeError,
                        "Writer called again from inside its own write (the destination's "
                        "write method called the writer)");
        return -1;
    }
    if (!PyThread_acquire_lock(self->lock, NOWAIT_LOCK)) {
        Py_BEGIN_ALLOW_THREADS
        PyThread_acquire_lock(self->lock, WAIT_LOCK);
        Py_END_ALLOW_THREADS
    }
    self->owner = me;
    return 0;
}

static void unlock_writer(Writer *self)
{
    self->owner = 0;
    PyThread_release_lock(self->lock);
}

/* ---- the file-object sink ---------------------------------------------------------------- */

/* Runs with the GIL released (inside the C calls): takes it to call
 * dest.write. A Python exception is kept for the caller to re-raise. */
static avk_status sink_write(void *ctx, const void *data, size_t len, avk_error *err)
{
    Writer *self = (Writer *)ctx;
    PyGILState_STATE g = PyGILState_Ensure();
    avk_status st = AVK_OK;
    const char *p = (const char *)data;
    while (len > 0) {
        PyObject *b = PyBytes_FromStringAndSize(p, (Py_ssize_t)len), *r;
        Py_ssize_t n;
        if (!b)
            goto failed;
        r = PyObject_CallMethod(self->dest, "write", "O", b);
        Py_DECREF(b);
        if (!r)
            goto failed;
        if (r == Py_None) { /* written whole, as most file objects do without saying */
            Py_DECREF(r);
            break;
        }
        n = PyLong_AsSsize_t(r);
        Py_DECREF(r);
        if (n == -1 && PyErr_Occurred())
            goto failed;
        if (n <= 0 || (size_t)n > len) {
            PyErr_Format(PyExc_OSError, "the file object's write() returned %zd for %zu bytes",
                         n, len);
            goto failed;
        }
        p += n;
        len -= (size_t)n;
    }
    PyGILState_Release(g);
    return st;
failed:
    if (!self->exc_type)
        PyErr_Fetch(&self->exc_type, &self->exc_value, &self->exc_tb);
    else
        PyErr_Clear();
    PyGILState_Release(g);
    return avk_error_set(err, AVK_ERR_IO, AVK_OFFSET_UNKNOWN,
                         "the file object's write() raised an exception");
}

/* Raises for a failed C call: the exception dest.write raised, if any,
 * else AvroError from err. Returns NULL. */
static PyObject *raise_from(Writer *self, const avk_error *err)
{
    if (self->exc_type) {
        PyErr_Restore(self->exc_type, self->exc_value, self->exc_tb);
        self->exc_type = self->exc_value = self->exc_tb = NULL;
        return NULL;
    }
    return pyavk_raise(err);
}

/* ---- path destinations: a temporary file renamed at close ---------------------------------- */

static mode_t file_mode(void)
{
    /* 0666 less the umask, as open(2) would give; the umask read from
     * /proc (umask(2) cannot read it without setting it, racing threads) */
    mode_t mask = 022;
    FILE *f = fopen("/proc/self/status", "r");
    if (f) {
        char line[128];
        while (fgets(line, sizeof line, f)) {
            unsigned m;
            if (sscanf(line, "Umask: %o", &m) == 1) {
                mask = (mode_t)m;
                break;
            }
        }
        fclose(f);
    }
    return (mode_t)(0666 & ~mask);
}

/* Creates "<dir>/.<name>.XXXXXX" beside path: 0 or -1 with OSError. */
static int open_temp(Writer *self, const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0, n = strlen(path);
    char *tmp = PyMem_Malloc(n + 16), *final = PyMem_Malloc(n + 1);
    int fd;
    if (!tmp || !final) {
        PyMem_Free(tmp);
        PyMem_Free(final);
        PyErr_NoMemory();
        return -1;
    }
    memcpy(final, path, n + 1);
    memcpy(tmp, path, dirlen);
    snprintf(tmp + dirlen, n + 16 - dirlen, ".%s.XXXXXX", path + dirlen);
    Py_BEGIN_ALLOW_THREADS
    fd = mkostemp(tmp, O_CLOEXEC);
    if (fd >= 0)
        (void)fchmod(fd, file_mode());
    Py_END_ALLOW_THREADS
    if (fd < 0) {
        PyErr_SetFromErrnoWithFilename(PyExc_OSError, path);
        PyMem_Free(tmp);
        PyMem_Free(final);
        return -1;
    }
    self->fd = fd;
    self->tmp_path = tmp;
    self->final_path = final;
    return 0;
}

/* Drops the temporary file (an unfinished or failed write). */
static void discard_temp(Writer *self)
{
    if (self->fd >= 0) {
        close(self->fd);
        self->fd = -1;
    }
    if (self->tmp_path) {
        unlink(self->tmp_path);
        PyMem_Free(self->tmp_path);
        self->tmp_path = NULL;
    }
    PyMem_Free(self->final_path);
    self->final_path = NULL;
}

/* ---- the type -------------------------------------------------------------------------- */

static int Writer_init(Writer *self, PyObject *args, PyObject *kw)
{
    /* arrays, not literals: the parser wants char *, and literals are const */
    static char k_dest[] = "dest", k_schema[] = "schema", k_codec[] = "codec",
                k_level[] = "level", k_metadata[] = "metadata",
                k_interval[] = "sync_interval";
    static char *kwlist[] = {k_dest, k_schema, k_codec, k_level, k_metadata, k_interval, NULL};
    PyObject *dest, *schema_obj, *codec_obj = Py_None, *level_obj = Py_None,
                                 *meta_obj = Py_None, *interval_obj = Py_None;
    PyObject *keep = NULL; /* keys and values of the metadata, alive during open */
    avk_file_writer_options o;
    avk_file_meta *meta = NULL;
    avk_error err;
    avk_status st;
    avk_file_writer *fw = NULL;

    if (self->lock) {
        PyErr_SetString(PyExc_RuntimeError, "Writer.__init__ called twice");
        return -1;
    }
    self->fd = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|OOOO:Writer", kwlist, &dest, &schema_obj,
                                     &codec_obj, &level_obj, &meta_obj, &interval_obj))
        return -1;
    self->lock = PyThread_allocate_lock();
    if (!self->lock) {
        PyErr_NoMemory();
        return -1;
    }
    avk_file_writer_options_init(&o);

    if (codec_obj != Py_None) {
        const char *name;
        Py_ssize_t n;
        avk_codec codec;
        if (!PyUnicode_Check(codec_obj)) {
            PyErr_Format(PyExc_TypeError, "codec must be a str such as 'deflate', not %s",
                         Py_TYPE(codec_obj)->tp_name);
            return -1;
        }
        name = PyUnicode_AsUTF8AndSize(codec_obj, &n);
        if (!name)
            return -1;
        if (avk_codec_from_name(name, (size_t)n, &codec, NULL, &err) != AVK_OK) {
            pyavk_raise(&err);
            return -1;
        }
        o.codec = codec;
    }
    if (level_obj != Py_None) {
        int overflow;
        long lv = PyLong_AsLongAndOverflow(level_obj, &overflow);
        if (lv == -1 && PyErr_Occurred())
            return -1;
        if (overflow || lv < -1000000 || lv > 1000000) {
            pyavk_raise_msg(AVK_ERR_INVALID_ARGUMENT, "codec level %ld is out of range",
                            overflow ? (overflow > 0 ? LONG_MAX : LONG_MIN) : lv);
            return -1;
        }
        o.level = (int)lv;
    }
    if (interval_obj != Py_None) {
        Py_ssize_t iv = PyNumber_AsSsize_t(interval_obj, PyExc_OverflowError);
        if (iv == -1 && PyErr_Occurred())
            return -1;
        if (iv <= 0) {
            pyavk_raise_msg(AVK_ERR_INVALID_ARGUMENT,
                            "sync_interval must be a positive number of bytes, not %zd", iv);
            return -1;
        }
        o.block_bytes = (size_t)iv;
    }
    if (meta_obj != Py_None) {
        Py_ssize_t pos = 0, i = 0, n;
        PyObject *k, *v;
        if (!PyDict_Check(meta_obj)) {
            PyErr_Format(PyExc_TypeError, "metadata must be a dict of str to bytes or str, not %s",
                         Py_TYPE(meta_obj)->tp_name);
            return -1;
        }
        n = PyDict_GET_SIZE(meta_obj);
        keep = PyList_New(0);
        meta = PyMem_Calloc((size_t)n + 1, sizeof *meta);
        if (!keep || !meta) {
            Py_XDECREF(keep);
            PyMem_Free(meta);
            PyErr_NoMemory();
            return -1;
        }
        while (i < n && PyDict_Next(meta_obj, &pos, &k, &v)) {
            PyObject *bv;
            if (!PyUnicode_Check(k)) {
                PyErr_Format(PyExc_TypeError, "metadata keys must be str, not %s",
                             Py_TYPE(k)->tp_name);
                goto fail_meta;
            }
            if (PyUnicode_Check(v))
                bv = PyUnicode_AsUTF8String(v);
            else if (PyBytes_Check(v))
                bv = Py_NewRef(v);
            else {
                PyErr_Format(PyExc_TypeError, "metadata value of %R must be bytes or str, not %s",
                             k, Py_TYPE(v)->tp_name);
                goto fail_meta;
            }
            if (!bv || PyList_Append(keep, k) < 0 || PyList_Append(keep, bv) < 0) {
                Py_XDECREF(bv);
                goto fail_meta;
            }
            Py_DECREF(bv);
            meta[i].key = PyUnicode_AsUTF8(k);
            if (!meta[i].key)
                goto fail_meta;
            meta[i].value = PyBytes_AS_STRING(bv);
            meta[i].len = (size_t)PyBytes_GET_SIZE(bv);
            i++;
        }
        o.meta = meta;
        o.meta_count = (size_t)i;
    }

    self->schema = pyavk_schema_from_py(schema_obj);
    if (!self->schema)
        goto fail_meta;
    if (avk_arena_new(NULL, &self->arena, &err) != AVK_OK) {
        pyavk_raise(&err);
        goto fail_meta;
    }

    if (PyObject_HasAttrString(dest, "write")) {
        self->dest = Py_NewRef(dest);
        Py_BEGIN_ALLOW_THREADS
        st = avk_file_writer_open_sink(sink_write, self, self->schema, &o, &fw, &err);
        Py_END_ALLOW_THREADS
    } else {
        PyObject *path = NULL;
        if (!PyUnicode_FSConverter(dest, &path))
            goto fail_meta;
        if (open_temp(self, PyBytes_AS_STRING(path)) < 0) {
            Py_DECREF(path);
            goto fail_meta;
        }
        Py_DECREF(path);
        Py_BEGIN_ALLOW_THREADS
        st = avk_file_writer_open_fd(self->fd, self->schema, &o, &fw, &err);
        Py_END_ALLOW_THREADS
    }
    if (st != AVK_OK) {
        raise_from(self, &err);
        discard_temp(self);
        goto fail_meta;
    }
    self->fw = fw;
    self->root = avk_schema_root(avk_file_writer_schema(fw));
    memcpy(self->sync, avk_file_writer_sync(fw), AVK_FILE_SYNC_SIZE);
    Py_XDECREF(keep);
    PyMem_Free(meta);
    return 0;

fail_meta:
    Py_XDECREF(keep);
    PyMem_Free(meta);
    self->closed = 1;
    return -1;
}

static int writer_usable(Writer *self)
{
    if (!self->lock) {
        PyErr_SetString(PyExc_ValueError, "Writer is not initialised");
        return -1;
    }
    if (self->closed || !self->fw) {
        PyErr_SetString(PyExc_ValueError, "I/O operation on a closed Writer");
        return -1;
    }
    return 0;
}

/* One record, with the lock held. 0 or -1 with an exception. */
static int write_one(Writer *self, PyObject *record)
{
    avk_value v;
    avk_error err;
    avk_status st;
    if (self->closed || !self->fw) {
        PyErr_SetString(PyExc_ValueError, "I/O operation on a closed Writer");
        return -1;
    }
    avk_arena_reset(self->arena);
    if (pyavk_from_py(record, self->root, self->arena, &v) < 0)
        return -1;
    Py_BEGIN_ALLOW_THREADS
    st = avk_file_writer_append(self->fw, &v, &err);
    Py_END_ALLOW_THREADS
    if (st != AVK_OK) {
        raise_from(self, &err);
        return -1;
    }
    return 0;
}

static PyObject *Writer_write(Writer *self, PyObject *record)
{
    int r;
    if (writer_usable(self) < 0 || lock_writer(self) < 0)
        return NULL;
    r = write_one(self, record);
    unlock_writer(self);
    if (r < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* Adds "record <i> of write_many" to the exception being raised (a note). */
static void note_record(Py_ssize_t i)
{
    PyObject *type, *value, *tb, *r;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (value && PyObject_HasAttrString(value, "add_note")) {
        PyObject *note = PyUnicode_FromFormat("while writing record %zd (from 0) of write_many", i);
        r = note ? PyObject_CallMethod(value, "add_note", "O", note) : NULL;
        if (!r)
            PyErr_Clear();
        Py_XDECREF(r);
        Py_XDECREF(note);
    }
    PyErr_Restore(type, value, tb);
}

static PyObject *Writer_write_many(Writer *self, PyObject *records)
{
    PyObject *iter, *item;
    Py_ssize_t count = 0;
    if (writer_usable(self) < 0)
        return NULL;
    iter = PyObject_GetIter(records);
    if (!iter)
        return NULL;
    /* the lock is taken per record: the iterable's own code (a generator)
     * runs without it, and may use the writer's other methods */
    while ((item = PyIter_Next(iter)) != NULL) {
        int r;
        if (lock_writer(self) < 0) {
            Py_DECREF(item);
            Py_DECREF(iter);
            return NULL;
        }
        r = write_one(self, item);
        unlock_writer(self);
        Py_DECREF(item);
        if (r < 0) {
            Py_DECREF(iter);
            note_record(count);
            return NULL;
        }
        count++;
    }
    Py_DECREF(iter);
    if (PyErr_Occurred())
        return NULL;
    return PyLong_FromSsize_t(count);
}

static PyObject *Writer_flush(Writer *self, PyObject *unused)
{
    avk_error err;
    avk_status st = AVK_OK;
    (void)unused;
    if (writer_usable(self) < 0 || lock_writer(self) < 0)
        return NULL;
    if (self->fw) {
        Py_BEGIN_ALLOW_THREADS
        st = avk_file_writer_flush(self->fw, &err);
        Py_END_ALLOW_THREADS
    }
    unlock_writer(self);
    if (st != AVK_OK)
        return raise_from(self, &err);
    if (self->dest && PyObject_HasAttrString(self->dest, "flush")) {
        PyObject *r = PyObject_CallMethod(self->dest, "flush", NULL);
        if (!r)
            return NULL;
        Py_DECREF(r);
    }
    Py_RETURN_NONE;
}

/* Finishes the file: flush, close, rename a temporary file over the path.
 * abort: drop everything instead (a path destination leaves no file). */
static PyObject *finish(Writer *self, int abort)
{
    avk_error err;
    avk_status st = AVK_OK;
    int rename_errno = 0;
    if (!self->lock)
        Py_RETURN_NONE;
    if (lock_writer(self) < 0)
        return NULL;
    if (self->closed) {
        unlock_writer(self);
        Py_RETURN_NONE;
    }
    self->closed = 1;
    if (abort) {
        Py_BEGIN_ALLOW_THREADS
        avk_file_writer_free(self->fw);
        Py_END_ALLOW_THREADS
        self->fw = NULL;
        discard_temp(self);
        unlock_writer(self);
        Py_RETURN_NONE;
    }
    Py_BEGIN_ALLOW_THREADS
    st = avk_file_writer_close(self->fw, &err);
    if (st == AVK_OK && self->fd >= 0) {
        /* the data reaches the disk before the name does: a crash must not
         * leave an empty file where the old one was */
        if (fsync(self->fd) != 0 && errno != EINVAL && errno != EROFS) {
            rename_errno = errno;
            close(self->fd);
        } else if (close(self->fd) != 0) {
            rename_errno = errno;
        } else if (rename(self->tmp_path, self->final_path) != 0) {
            rename_errno = errno;
        }
        self->fd = -1;
    }
    Py_END_ALLOW_THREADS
    self->fw = NULL;
    if (st != AVK_OK || rename_errno) {
        PyObject *r;
        if (st != AVK_OK)
            r = raise_from(self, &err);
        else {
            errno = rename_errno;
            r = PyErr_SetFromErrnoWithFilename(PyExc_OSError, self->final_path);
        }
        discard_temp(self);
        unlock_writer(self);
        return r;
    }
    PyMem_Free(self->tmp_path);
    PyMem_Free(self->final_path);
    self->tmp_path = self->final_path = NULL;
    unlock_writer(self);
    if (self->dest && PyObject_HasAttrString(self->dest, "flush")) {
        PyObject *r = PyObject_CallMethod(self->dest, "flush", NULL);
        if (!r)
            return NULL;
        Py_DECREF(r);
    }
    Py_RETURN_NONE;
}

static PyObject *Writer_close(Writer *self, PyObject *unused)
{
    (void)unused;
    return finish(self, 0);
}

static PyObject *Writer_enter(Writer *self, PyObject *unused)
{
    (void)unused;
    if (writer_usable(self) < 0)
        return NULL;
    return Py_NewRef(self);
}

static PyObject *Writer_exit(Writer *self, PyObject *args)
{
    PyObject *et = Py_None, *ev = Py_None, *tb = Py_None, *r;
    if (!PyArg_UnpackTuple(args, "__exit__", 0, 3, &et, &ev, &tb))
        return NULL;
    if (et == Py_None)
        r = finish(self, 0);
    else if (!self->dest)
        r = finish(self, 1); /* a path: leave no half-written file */
    else {
        /* a file object: keep what was written; a failure here must not
         * hide the exception that ended the block */
        r = finish(self, 0);
        if (!r)
            PyErr_Clear();
        r = Py_NewRef(Py_None);
    }
    if (!r)
        return NULL;
    Py_DECREF(r);
    Py_RETURN_FALSE;
}

static void Writer_dealloc(Writer *self)
{
    if (self->fw) {
        /* never closed: nothing is finished or renamed */
        PyObject *et, *ev, *tb;
        PyErr_Fetch(&et, &ev, &tb);
        if (PyErr_ResourceWarning(NULL, 1,
                                  "avrokit Writer was not closed: its file is not finished "
                                  "(a path is left as it was)") < 0)
            PyErr_WriteUnraisable(NULL);
        PyErr_Restore(et, ev, tb);
        avk_file_writer_free(self->fw);
        self->fw = NULL;
    }
    discard_temp(self);
    avk_arena_free(self->arena);
    avk_schema_free(self->schema);
    Py_XDECREF(self->dest);
    Py_XDECREF(self->exc_type);
    Py_XDECREF(self->exc_value);
    Py_XDECREF(self->exc_tb);
    if (self->lock)
        PyThread_free_lock(self->lock);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Writer_get_schema(Writer *self, void *closure)
{
    (void)closure;
    if (!self->schema) {
        PyErr_SetString(PyExc_ValueError, "Writer is not initialised");
        return NULL;
    }
    return pyavk_schema_to_py(avk_schema_root(self->schema));
}

static PyObject *Writer_get_sync(Writer *self, void *closure)
{
    (void)closure;
    return PyBytes_FromStringAndSize((const char *)self->sync, AVK_FILE_SYNC_SIZE);
}

static PyObject *Writer_get_closed(Writer *self, void *closure)
{
    (void)closure;
    return PyBool_FromLong(self->closed || !self->fw);
}

/* One record per row, through avrokit._writing (NumPy and pandas are its
 * business, not the C core's). */
static PyObject *Writer_write_columns(Writer *self, PyObject *data)
{
    PyObject *m = PyImport_ImportModule("avrokit._writing"), *out;
    if (!m)
        return NULL;
    out = PyObject_CallMethod(m, "write_columns", "OO", (PyObject *)self, data);
    Py_DECREF(m);
    return out;
}

/* fd -1 from the start: a Writer dropped before __init__ closes nothing. */
static PyObject *Writer_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    Writer *self = (Writer *)PyType_GenericNew(type, args, kw);
    if (self)
        self->fd = -1;
    return (PyObject *)self;
}

static PyMethodDef Writer_methods[] = {
    {"write", (PyCFunction)Writer_write, METH_O, "write(record): append one record"},
    {"write_many", (PyCFunction)Writer_write_many, METH_O,
     "write_many(records) -> the number of records written"},
    {"flush", (PyCFunction)Writer_flush, METH_NOARGS,
     "flush(): write the pending records as a block and flush the destination"},
    {"close", (PyCFunction)Writer_close, METH_NOARGS,
     "close(): finish the file (a path is only replaced now); closing twice is harmless"},
    {"write_columns", (PyCFunction)Writer_write_columns, METH_O,
     "write_columns(dict of arrays or DataFrame) -> the number of records written"},
    {"__enter__", (PyCFunction)Writer_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)Writer_exit, METH_VARARGS,
     "close; with an exception, a path destination is left as it was"},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef Writer_getset[] = {
    {"schema", (getter)Writer_get_schema, NULL, "the schema, as JSON data", NULL},
    {"sync", (getter)Writer_get_sync, NULL, "the file's 16-byte sync marker", NULL},
    {"closed", (getter)Writer_get_closed, NULL, "True once closed", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject pyavk_WriterType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "avrokit._avrokit.Writer",
    .tp_basicsize = sizeof(Writer),
    .tp_dealloc = (destructor)Writer_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Writer(dest, schema, codec='null', level=None, metadata=None, sync_interval=None):"
              " a container file written record by record. dest is a path (written to a "
              "temporary file beside it and renamed over it at close) or a binary file object.",
    .tp_methods = Writer_methods,
    .tp_getset = Writer_getset,
    .tp_init = (initproc)Writer_init,
    .tp_new = Writer_new,
};
