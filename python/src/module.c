/* The extension module avrokit._avrokit: its functions, types, AvroError and the helpers every file shares. */
#include <stdarg.h>
#include <stdio.h>

#include "pyavk.h"
#include <datetime.h>

PyObject *pyavk_AvroError;
PyObject *pyavk_Decimal, *pyavk_UUID, *pyavk_utc;

static PyObject *raise_with(avk_status st, const char *message, const char *path, uint64_t offset,
                            int64_t block)
{
    PyObject *exc, *v;
    exc = PyObject_CallFunction(pyavk_AvroError, "s", message);
    if (!exc)
        return NULL;
    v = PyUnicode_FromString(avk_status_name(st));
    if (!v || PyObject_SetAttrString(exc, "status", v) < 0)
        goto fail;
    Py_DECREF(v);
    v = offset == AVK_OFFSET_UNKNOWN ? Py_NewRef(Py_None) : PyLong_FromUnsignedLongLong(offset);
    if (!v || PyObject_SetAttrString(exc, "offset", v) < 0)
        goto fail;
    Py_DECREF(v);
    v = PyUnicode_FromString(path ? path : "");
    if (!v || PyObject_SetAttrString(exc, "path", v) < 0)
        goto fail;
    Py_DECREF(v);
    v = block < 0 ? Py_NewRef(Py_None) : PyLong_FromLongLong(block);
    if (!v || PyObject_SetAttrString(exc, "block", v) < 0)
        goto fail;
    Py_DECREF(v);
    PyErr_SetObject(pyavk_AvroError, exc);
    Py_DECREF(exc);
    return NULL;
fail:
    Py_XDECREF(v);
    Py_DECREF(exc);
    return NULL;
}

PyObject *pyavk_raise(const avk_error *err)
{
    if (err->status == AVK_ERR_NO_MEMORY)
        return PyErr_NoMemory();
    return raise_with(err->status, err->message, err->path, err->offset, err->block);
}

PyObject *pyavk_raise_msg(avk_status st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
PyObject *pyavk_raise_msg(avk_status st, const char *fmt, ...)
{
    char msg[AVK_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return raise_with(st, msg, "", AVK_OFFSET_UNKNOWN, -1);
}

int pyavk_import_helpers(void)
{
    PyObject *m;
    if (pyavk_Decimal)
        return 0;
    PyDateTime_IMPORT;
    if (!PyDateTimeAPI)
        return -1;
    pyavk_utc = Py_NewRef(PyDateTime_TimeZone_UTC);
    m = PyImport_ImportModule("decimal");
    if (!m)
        return -1;
    pyavk_Decimal = PyObject_GetAttrString(m, "Decimal");
    Py_DECREF(m);
    m = PyImport_ImportModule("uuid");
    if (!m)
        return -1;
    pyavk_UUID = PyObject_GetAttrString(m, "UUID");
    Py_DECREF(m);
    return pyavk_Decimal && pyavk_UUID ? 0 : -1;
}

int pyavk_open_file(PyObject *source, const avk_file_reader_options *opts,
                    avk_file_reader **out, PyObject **keep)
{
    avk_error err;
    avk_status st;
    *keep = NULL;
    *out = NULL;
    if (PyObject_HasAttrString(source, "read")) {
        /* A binary file object: its bytes, read in place. */
        PyObject *data = PyObject_CallMethod(source, "read", NULL);
        if (!data)
            return -1;
        if (!PyBytes_Check(data)) {
            Py_DECREF(data);
            PyErr_SetString(PyExc_TypeError, "the file object must be opened in binary mode");
            return -1;
        }
        Py_BEGIN_ALLOW_THREADS
        st = avk_file_reader_open_memory(PyBytes_AS_STRING(data), (size_t)PyBytes_GET_SIZE(data),
                                         opts, out, &err);
        Py_END_ALLOW_THREADS
        if (st != AVK_OK) {
            Py_DECREF(data);
            pyavk_raise(&err);
            return -1;
        }
        *keep = data;
        return 0;
    } else {
        PyObject *path = NULL;
        if (!PyUnicode_FSConverter(source, &path))
            return -1;
        Py_BEGIN_ALLOW_THREADS
        st = avk_file_reader_open_path(PyBytes_AS_STRING(path), opts, out, &err);
        Py_END_ALLOW_THREADS
        Py_DECREF(path);
        if (st != AVK_OK) {
            pyavk_raise(&err);
            return -1;
        }
        return 0;
    }
}

static PyObject *version(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyUnicode_FromString(avk_version());
}

static PyObject *kernel(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyUnicode_FromString(avk_kernel_name());
}

static PyMethodDef methods[] = {
    {"schema_parse", pyavk_schema_parse, METH_O,
     "schema_parse(schema) -> the schema as JSON data, checked and normalised"},
    {"canonical", pyavk_canonical, METH_O, "canonical(schema) -> its Parsing Canonical Form"},
    {"fingerprint", (PyCFunction)(void (*)(void))pyavk_fingerprint, METH_VARARGS | METH_KEYWORDS,
     "fingerprint(schema, algo='rabin') -> bytes"},
    {"compatible", (PyCFunction)(void (*)(void))pyavk_compatible, METH_VARARGS | METH_KEYWORDS,
     "compatible(writer, reader) -> (bool, [problems])"},
    {"read_arrow", (PyCFunction)(void (*)(void))pyavk_read_arrow, METH_VARARGS | METH_KEYWORDS,
     "read_arrow(source, columns=None, reader_schema=None, start=None, end=None) -> Columns"},
    {"scan", pyavk_scan, METH_O,
     "scan(source) -> (records, record bytes): every record decoded in C, none built in Python"},
    {"version", version, METH_NOARGS, "the library's version"},
    {"kernel", kernel, METH_NOARGS, "the varint kernel in use (AVK_KERNEL chooses another)"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "avrokit._avrokit",
                                    "avrokit's C core: readers, writers, columns.", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__avrokit(void);
PyMODINIT_FUNC PyInit__avrokit(void)
{
    PyObject *m;
    if (pyavk_import_helpers() < 0 || pyavk_to_py_init() < 0)
        return NULL;
    if (PyType_Ready(&pyavk_ReaderType) < 0 || PyType_Ready(&pyavk_WriterType) < 0 ||
        PyType_Ready(&pyavk_ColumnsType) < 0 || PyType_Ready(&pyavk_BufferType) < 0)
        return NULL;
    m = PyModule_Create(&module);
    if (!m)
        return NULL;
    pyavk_AvroError = PyErr_NewExceptionWithDoc(
        "avrokit.AvroError",
        "An error from avrokit: status (e.g. 'MALFORMED'), offset (byte offset or None), "
        "path (schema path), block (container block index or None).",
        NULL, NULL);
    if (!pyavk_AvroError || PyModule_AddObjectRef(m, "AvroError", pyavk_AvroError) < 0 ||
        PyModule_AddObjectRef(m, "Reader", (PyObject *)&pyavk_ReaderType) < 0 ||
        PyModule_AddObjectRef(m, "Writer", (PyObject *)&pyavk_WriterType) < 0 ||
        PyModule_AddObjectRef(m, "Columns", (PyObject *)&pyavk_ColumnsType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
