"""avrokit: Apache Avro container files from Python, through avrokit's C library.

Records as dicts::

    import avrokit
    with avrokit.reader("users.avro") as r:
        for user in r:
            print(user["name"])

Columns as NumPy arrays, a pandas DataFrame, or Arrow (C Data Interface)::

    cols = avrokit.read_columns("users.avro", columns=["name", "age"])
    df = avrokit.to_pandas("users.avro")
    table = pyarrow.table(avrokit.read_arrow("users.avro"))   # any Arrow consumer

Writing::

    with avrokit.writer("out.avro", schema, codec="zstandard") as w:
        w.write({"name": "Ada", "age": 36})

Dask DataFrames and Bags, a partition per byte range (needs dask)::

    import avrokit.dask
    df = avrokit.dask.read_avro("data/*.avro", blocksize="64MiB")
    avrokit.dask.to_avro(df, "out/part-*.avro")
"""

import numpy as _np

from . import _avrokit
from ._avrokit import AvroError, Columns

__all__ = [
    "AvroError", "Columns", "reader", "read_columns", "to_pandas", "read_arrow", "writer",
    "schema_parse", "canonical", "fingerprint", "compatible", "scan", "version",
]


def version():
    """The C library's version."""
    return _avrokit.version()


def reader(source, reader_schema=None, raw=False, start=None, end=None):
    """The records of a container file, as dicts.

    source: a path (str, bytes, os.PathLike) or a binary file object (read whole).
    reader_schema: read the records into this schema (Avro schema resolution).
    raw: keep logical types as their underlying values (ints, bytes, str);
    otherwise date, datetime (UTC-aware; naive for local-timestamp), time,
    Decimal and UUID. A value out of datetime's range stays an int.
    start, end: only the blocks whose sync marker starts in [start, end), so
    ranges that cover a file read each record once.

    The reader has .schema (the writer's schema as JSON data), .metadata
    (str -> bytes), .codec and .sync; it iterates records and is a context
    manager. Errors raise AvroError; decoding runs without the GIL.
    """
    return _avrokit.Reader(source, reader_schema, raw, start, end)


def read_arrow(source, columns=None, reader_schema=None, start=None, end=None):
    """The records as Arrow columns: a Columns object with __arrow_c_schema__ and
    __arrow_c_array__ (the Arrow PyCapsule interface), a struct of the fields.

    columns: field paths to decode ("name", "address.city"); the other fields
    are skipped at byte level. reader_schema, start, end: as reader().
    """
    return _avrokit.read_arrow(source, columns, reader_schema, start, end)


# Arrow formats NumPy holds as they are: format -> dtype.
_NUMERIC = {"i": "<i4", "l": "<i8", "f": "<f4", "g": "<f8"}
_TEMPORAL = {"tdD": ("<i4", "datetime64[D]"), "ttm": ("<i4", "timedelta64[ms]"),
             "ttu": ("<i8", "timedelta64[us]")}
_TIMESTAMP_UNITS = {"tsm": "ms", "tsu": "us", "tsn": "ns"}


def _validity(node):
    """Boolean array: True where the value is present (None when no nulls)."""
    name, fmt, length, nulls, nullable, buffers, children, dictionary, ident = node
    if not nulls or not buffers or buffers[0] is None:
        return None
    bits = _np.frombuffer(buffers[0], dtype=_np.uint8)
    return _np.unpackbits(bits, bitorder="little")[:length].astype(bool)


def _with_nulls(values, valid):
    """NaN for floats, a masked array for the rest."""
    if valid is None:
        return values
    if values.dtype.kind == "f":
        out = values.astype(values.dtype, copy=True)
        out[~valid] = _np.nan
        return out
    if values.dtype.kind in "mM":
        out = values.copy()
        out[~valid] = _np.datetime64("NaT") if values.dtype.kind == "M" else _np.timedelta64("NaT")
        return out
    return _np.ma.MaskedArray(values, mask=~valid)


def _column(cols, node):
    """One column node as a NumPy array (views of the C buffers when it can)."""
    name, fmt, length, nulls, nullable, buffers, children, dictionary, ident = node
    valid = _validity(node)
    if dictionary is not None:
        symbols = _np.array(cols.pylist(dictionary[8]), dtype=object)
        codes = _np.frombuffer(buffers[1], dtype="<i4", count=length)
        out = symbols[codes]
        if valid is not None:
            out[~valid] = None
        return out
    if fmt in _NUMERIC:
        return _with_nulls(_np.frombuffer(buffers[1], dtype=_NUMERIC[fmt], count=length), valid)
    if fmt in _TEMPORAL:
        raw, typed = _TEMPORAL[fmt]
        # int32 days or milliseconds widen to datetime64/timedelta64's 8 bytes
        return _with_nulls(_np.frombuffer(buffers[1], dtype=raw, count=length).astype(typed), valid)
    if fmt[:3] in _TIMESTAMP_UNITS:
        unit = _TIMESTAMP_UNITS[fmt[:3]]
        values = _np.frombuffer(buffers[1], dtype="<i8", count=length).view("datetime64[%s]" % unit)
        return _with_nulls(values, valid)
    if fmt == "b":
        bits = _np.frombuffer(buffers[1], dtype=_np.uint8)
        return _with_nulls(_np.unpackbits(bits, bitorder="little")[:length].astype(bool), valid)
    out = _np.empty(length, dtype=object)
    out[:] = cols.pylist(ident)
    return out


def _flatten(cols, node, prefix, out):
    """Struct columns become their fields, named with dots ("address.city")."""
    name, fmt, length, nulls, nullable, buffers, children, dictionary, ident = node
    if fmt == "+s" and not nulls:
        for child in children:
            _flatten(cols, child, prefix + child[0] + ".", out)
    else:
        out[prefix[:-1] if prefix else name or "value"] = _column(cols, node)


def read_columns(source, columns=None, reader_schema=None, start=None, end=None):
    """A dict of NumPy arrays, one per field (nested record fields as "a.b").

    Numbers, booleans, dates, times and timestamps are arrays of their own
    dtype, built without a Python object per value (views of the decoded
    buffers where no value is null); a nullable float column has NaN for
    null, a nullable integer or boolean column is a masked array, a nullable
    date or time NaT. Strings, bytes, fixed, decimals (Decimal), enums
    (their symbols) and arrays, maps and unions are object arrays. Timestamps
    are UTC, as datetime64 has no zone. Arguments as read_arrow().
    """
    cols = read_arrow(source, columns, reader_schema, start, end)
    out = {}
    _flatten(cols, cols.describe(), "", out)
    return out


def to_pandas(source, columns=None, reader_schema=None, start=None, end=None):
    """A pandas DataFrame of the fields, nested record fields as "a.b".

    The columns and their dtypes follow from the schema alone, never from the
    values in the range read, so DataFrames of ranges of one file (or of files
    of one schema) concatenate cleanly, an empty range included: a nullable int
    or boolean field is a nullable Int32/Int64/boolean column, with or without
    nulls; an enum a categorical of all its symbols, in schema order; a record
    inside ["null", record] is flattened like any other, its fields null where
    it is; UTC timestamps are zone-aware. The rest as read_columns()."""
    import pandas as pd

    cols = read_arrow(source, columns, reader_schema, start, end)
    data = {}
    _pandas_columns(pd, cols, cols.describe(), "", None, False, data)
    return pd.DataFrame(data, copy=False)


def _pandas_columns(pd, cols, node, prefix, parent_valid, parent_nullable, out):
    """The leaves under node as pandas columns into out; the nulls and the
    nullability of enclosing records come down to their fields."""
    name, fmt, length, nulls, nullable, buffers, children, dictionary, ident = node
    if fmt == "+s":
        valid = _validity(node)
        if parent_valid is not None:
            valid = parent_valid if valid is None else valid & parent_valid
        for child in children:
            _pandas_columns(pd, cols, child, prefix + child[0] + ".", valid,
                            nullable or parent_nullable, out)
        return
    out[prefix[:-1] if prefix else name or "value"] = _pandas_column(
        pd, cols, node, parent_valid, nullable or parent_nullable)


def _pandas_column(pd, cols, node, parent_valid, nullable):
    """One leaf: its dtype from the schema (nullable says whether it or an
    enclosing record can be null), nulls from its own validity and parent_valid."""
    name, fmt, length, nulls, nullable_here, buffers, children, dictionary, ident = node
    valid = _validity(node)
    if parent_valid is not None:
        valid = parent_valid if valid is None else valid & parent_valid
    if dictionary is not None:
        # every symbol a category, in schema order, whatever this range holds
        codes = _np.frombuffer(buffers[1], dtype="<i4", count=length).astype(_np.int64)
        if valid is not None:
            codes[~valid] = -1
        return pd.Categorical.from_codes(codes, categories=cols.pylist(dictionary[8]))
    if fmt in ("i", "l", "b") and nullable:
        if fmt == "b":
            bits = _np.frombuffer(buffers[1], dtype=_np.uint8)
            values = _np.unpackbits(bits, bitorder="little")[:length].astype(bool)
        else:
            values = _np.frombuffer(buffers[1], dtype=_NUMERIC[fmt], count=length).copy()
        mask = _np.zeros(length, dtype=bool) if valid is None else ~valid
        if fmt == "b":
            return pd.arrays.BooleanArray(values, mask)
        return pd.arrays.IntegerArray(values, mask)
    values = _column(cols, node)
    if parent_valid is not None:
        # the enclosing record's nulls (the column's own are in already)
        if values.dtype == object:
            values = values.copy()
            values[~parent_valid] = None
        else:
            values = _with_nulls(values, parent_valid)
    if fmt.startswith("ts") and fmt.endswith("UTC"):
        return pd.DatetimeIndex(values).tz_localize("UTC")
    return values


def writer(dest, schema, codec="null", level=None, metadata=None, sync_interval=None):
    """A container file writer: write(record), write_many(records),
    write_columns(dict of arrays or DataFrame), close(); a context manager.

    dest: a path (written to a temporary file, renamed into place on close:
    a failed write leaves an existing file as it was) or a binary file object.
    codec: null, deflate, snappy, zstandard, bzip2 or xz; level its level.
    metadata: str -> bytes or str, added to the header.
    """
    return _avrokit.Writer(dest, schema, codec, level, metadata, sync_interval)


def schema_parse(schema):
    """The schema (JSON text, or dicts and lists) checked and normalised, as JSON data."""
    return _avrokit.schema_parse(schema)


def canonical(schema):
    """The schema's Parsing Canonical Form, as text."""
    return _avrokit.canonical(schema)


def fingerprint(schema, algo="rabin"):
    """The fingerprint of the canonical form: rabin (8 bytes, little-endian), md5 or sha256."""
    return _avrokit.fingerprint(schema, algo)


def compatible(writer_schema, reader_schema):
    """(True, []) when every value written with writer_schema can be read with
    reader_schema; else (False, problems), each a dict of reader_path,
    writer_path and message."""
    return _avrokit.compatible(writer_schema, reader_schema)


def scan(source):
    """(records, bytes of record data): every record decoded in C and dropped,
    no Python object built; what the C reader alone costs."""
    return _avrokit.scan(source)
