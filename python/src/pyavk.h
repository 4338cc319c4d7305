/* What the extension's files share: errors, schemas, conversions between avk_value and Python objects. */
#ifndef PYAVK_H
#define PYAVK_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <avrokit/avrokit.h>

/* avrokit.AvroError (module.c): an Exception with attributes status (the
 * status name, e.g. "MALFORMED"), offset (int or None), path (str), block
 * (int or None). */
extern PyObject *pyavk_AvroError;

/* Raises AvroError from err; returns NULL. */
PyObject *pyavk_raise(const avk_error *err);
/* Raises AvroError with status st and a formatted message; returns NULL. */
PyObject *pyavk_raise_msg(avk_status st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The Python classes the conversions need, imported once (module.c):
 * decimal.Decimal, uuid.UUID, datetime.timezone.utc. datetime's C API
 * pointer is a static of datetime.h: every file that uses it imports it
 * (pyavk_to_py_init for py_to_python.c). */
extern PyObject *pyavk_Decimal, *pyavk_UUID, *pyavk_utc;
int pyavk_import_helpers(void);

/* ---- schemas (py_schema.c) -------------------------------------------- */

/* A schema from Python: JSON text (str or bytes), a dict or list (as JSON),
 * or an object with a .json attribute. Raises and returns NULL on error.
 * The caller frees it with avk_schema_free. */
avk_schema *pyavk_schema_from_py(PyObject *obj);
/* The schema as a Python object (json.loads of its JSON text). */
PyObject *pyavk_schema_to_py(const avk_type *t);
/* Module functions. */
PyObject *pyavk_schema_parse(PyObject *self, PyObject *arg);
PyObject *pyavk_canonical(PyObject *self, PyObject *arg);
PyObject *pyavk_fingerprint(PyObject *self, PyObject *args, PyObject *kw);
PyObject *pyavk_compatible(PyObject *self, PyObject *args, PyObject *kw);

/* ---- avk_value -> Python (py_to_python.c) ------------------------------ */

/* Per-schema cache of field names and enum symbols as Python strings, so
 * a record becomes a dict without making a string per key. */
typedef struct pyavk_names pyavk_names;
pyavk_names *pyavk_names_new(const avk_type *root); /* raises MemoryError on NULL */
void pyavk_names_free(pyavk_names *n);

#define PYAVK_RAW 0x1 /* logical types as their underlying values */

/* A new reference, or NULL with an exception set. Records are dicts,
 * unions their branch's value, enums str, bytes and fixed bytes; logical
 * types date, datetime (UTC-aware; naive for local-timestamp-*), time,
 * Decimal, UUID, unless flags has PYAVK_RAW. */
PyObject *pyavk_to_py(pyavk_names *names, const avk_value *v, int flags);
/* Decimal(unscaled * 10^-scale) exactly, from big-endian two's complement
 * (avk_decimal_to_string); NULL with no exception set when the library
 * cannot write it (the caller keeps the raw bytes). */
PyObject *pyavk_decimal(const uint8_t *unscaled, size_t len, int scale);
/* Imports datetime's C API for py_to_python.c; 0 or -1 with an exception. */
int pyavk_to_py_init(void);

/* ---- Python -> avk_value (py_from_python.c) ---------------------------- */

/* Converts obj into *out as a value of type t, allocating from arena.
 * Returns 0, or -1 with AvroError (status INVALID_ARGUMENT, path the
 * schema path of the bad part, message what was wrong) or MemoryError. */
int pyavk_from_py(PyObject *obj, const avk_type *t, avk_arena *arena, avk_value *out);

/* ---- the types (py_reader.c, py_writer.c, py_arrow.c) ------------------ */

extern PyTypeObject pyavk_ReaderType;
extern PyTypeObject pyavk_WriterType;
extern PyTypeObject pyavk_ColumnsType;
extern PyTypeObject pyavk_BufferType;

/* 1 when the reader's next block lies past a range ending at end (its
 * sync marker starts at or after end; UINT64_MAX: no end) (py_reader.c). */
int pyavk_past_range(const avk_file_reader *fr, uint64_t end);

/* Module function: scan(source) -> (records, bytes of record data): every
 * record decoded in C and dropped, the speed of the C reader (py_reader.c). */
PyObject *pyavk_scan(PyObject *self, PyObject *arg);

/* Module function: read_arrow(source, columns=None, reader_schema=None,
 * start=None, end=None) -> Columns (py_arrow.c). */
PyObject *pyavk_read_arrow(PyObject *self, PyObject *args, PyObject *kw);

/* A file opened from a path (str, bytes, os.PathLike) or the bytes of a
 * binary file object (read whole). Returns 0 or -1 with an exception. The
 * bytes object, when one is made, goes to *keep (the reader reads it in
 * place; keep it alive as long as the reader). */
int pyavk_open_file(PyObject *source, const avk_file_reader_options *opts,
                    avk_file_reader **out, PyObject **keep);

#endif
