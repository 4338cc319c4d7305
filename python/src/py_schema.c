/* Schemas from and to Python, and the module's schema functions: parse, canonical form, fingerprint, compatibility. */
#include <string.h>

#include "pyavk.h"

/* JSON text of obj: str or bytes as they are, anything else through json.dumps. */
static PyObject *schema_text(PyObject *obj)
{
    PyObject *json, *text;
    if (PyUnicode_Check(obj))
        return PyUnicode_AsUTF8String(obj);
    if (PyBytes_Check(obj))
        return Py_NewRef(obj);
    if (PyObject_HasAttrString(obj, "json") && !PyDict_Check(obj)) {
        PyObject *j = PyObject_GetAttrString(obj, "json");
        if (!j)
            return NULL;
        text = schema_text(j);
        Py_DECREF(j);
        return text;
    }
    json = PyImport_ImportModule("json");
    if (!json)
        return NULL;
    text = PyObject_CallMethod(json, "dumps", "O", obj);
    Py_DECREF(json);
    if (!text)
        return NULL;
    Py_SETREF(text, PyUnicode_AsUTF8String(text));
    return text;
}

avk_schema *pyavk_schema_from_py(PyObject *obj)
{
    PyObject *text = schema_text(obj);
    avk_schema *s = NULL;
    avk_error err;
    avk_status st;
    if (!text)
        return NULL;
    st = avk_schema_parse(PyBytes_AS_STRING(text), (size_t)PyBytes_GET_SIZE(text), NULL, &s, &err);
    Py_DECREF(text);
    if (st != AVK_OK) {
        pyavk_raise(&err);
        return NULL;
    }
    return s;
}

/* Text written by fn(t) into a memory writer, as a Python str. */
static PyObject *write_text(const avk_type *t, int canonical)
{
    avk_writer w;
    avk_error err;
    avk_status st;
    const uint8_t *data;
    size_t len;
    PyObject *out;
    if (avk_writer_init_memory(&w, NULL, &err) != AVK_OK)
        return pyavk_raise(&err);
    st = canonical ? avk_type_write_canonical(t, &w, &err) : avk_type_write_json(t, 0, &w, &err);
    if (st != AVK_OK) {
        avk_writer_destroy(&w);
        return pyavk_raise(&err);
    }
    data = avk_writer_data(&w, &len);
    out = PyUnicode_DecodeUTF8((const char *)data, (Py_ssize_t)len, "strict");
    avk_writer_destroy(&w);
    return out;
}

PyObject *pyavk_schema_to_py(const avk_type *t)
{
    PyObject *text = write_text(t, 0), *json, *out;
    if (!text)
        return NULL;
    json = PyImport_ImportModule("json");
    if (!json) {
        Py_DECREF(text);
        return NULL;
    }
    out = PyObject_CallMethod(json, "loads", "O", text);
    Py_DECREF(json);
    Py_DECREF(text);
    return out;
}

PyObject *pyavk_schema_parse(PyObject *self, PyObject *arg)
{
    avk_schema *s = pyavk_schema_from_py(arg);
    PyObject *out;
    (void)self;
    if (!s)
        return NULL;
    out = pyavk_schema_to_py(avk_schema_root(s));
    avk_schema_free(s);
    return out;
}

PyObject *pyavk_canonical(PyObject *self, PyObject *arg)
{
    avk_schema *s = pyavk_schema_from_py(arg);
    PyObject *out;
    (void)self;
    if (!s)
        return NULL;
    out = write_text(avk_schema_root(s), 1);
    avk_schema_free(s);
    return out;
}

PyObject *pyavk_fingerprint(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *names[] = {"schema", "algo", NULL};
    PyObject *obj;
    const char *algo = "rabin";
    avk_fingerprint_algo a;
    avk_schema *s;
    uint8_t out[32];
    size_t len = 0;
    avk_error err;
    avk_status st;
    (void)self;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|s", names, &obj, &algo))
        return NULL;
    if (!strcmp(algo, "rabin") || !strcmp(algo, "crc-64-avro"))
        a = AVK_FINGERPRINT_RABIN;
    else if (!strcmp(algo, "md5"))
        a = AVK_FINGERPRINT_MD5;
    else if (!strcmp(algo, "sha256") || !strcmp(algo, "sha-256"))
        a = AVK_FINGERPRINT_SHA256;
    else
        return PyErr_Format(PyExc_ValueError,
                            "unknown fingerprint algorithm '%s' (rabin, md5 or sha256)", algo);
    s = pyavk_schema_from_py(obj);
    if (!s)
        return NULL;
    st = avk_type_fingerprint(avk_schema_root(s), a, out, &len, &err);
    avk_schema_free(s);
    if (st != AVK_OK)
        return pyavk_raise(&err);
    return PyBytes_FromStringAndSize((const char *)out, (Py_ssize_t)len);
}

static void collect_problem(void *ctx, const avk_compat_problem *p)
{
    PyObject *list = ctx, *item;
    if (PyErr_Occurred())
        return;
    item = Py_BuildValue("{s:s,s:s,s:s}", "reader_path", p->reader_path ? p->reader_path : "",
                         "writer_path", p->writer_path ? p->writer_path : "", "message",
                         p->message ? p->message : "");
    if (item) {
        PyList_Append(list, item);
        Py_DECREF(item);
    }
}

PyObject *pyavk_compatible(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *names[] = {"writer", "reader", NULL};
    PyObject *wobj, *robj, *problems = NULL, *out = NULL;
    avk_schema *ws = NULL, *rs = NULL;
    avk_error err;
    avk_status st;
    (void)self;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO", names, &wobj, &robj))
        return NULL;
    ws = pyavk_schema_from_py(wobj);
    if (ws)
        rs = pyavk_schema_from_py(robj);
    if (rs)
        problems = PyList_New(0);
    if (problems) {
        st = avk_schema_check_compat(avk_schema_root(ws), avk_schema_root(rs), collect_problem,
                                     problems, &err);
        if (PyErr_Occurred())
            ;
        else if (st == AVK_OK || st == AVK_ERR_RESOLUTION)
            out = Py_BuildValue("(OO)", st == AVK_OK ? Py_True : Py_False, problems);
        else
            pyavk_raise(&err);
    }
    Py_XDECREF(problems);
    avk_schema_free(ws);
    avk_schema_free(rs);
    return out;
}
