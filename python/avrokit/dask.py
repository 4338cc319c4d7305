"""Dask: container files as a dask DataFrame or Bag read in byte ranges, and a DataFrame written one file per partition.

    import avrokit.dask

    df = avrokit.dask.read_avro("data/*.avro", blocksize="64MiB", columns=["id", "customer.tier"])
    df.groupby("customer.tier").size().compute()        # on a distributed.Client if one is active
    avrokit.dask.to_avro(df, "out/part-*.avro", codec="zstandard")

Each partition is one byte range [start, end) of one file: the blocks whose
preceding sync marker starts in the range (see avrokit.reader), so the ranges
of a file read each of its records exactly once. Nothing but the files' sizes
and the first file's header is read to build the graph; the workers read the
ranges with avrokit.to_pandas (or avrokit.reader for the Bag).
"""

try:
    import dask
    import dask.bag
    import dask.dataframe
    import pandas as pd
    from dask.utils import parse_bytes
except ImportError as _e:  # pragma: no cover - tested where dask is missing
    raise ImportError(
        "avrokit.dask needs dask (with dask.dataframe and pandas); on Debian: "
        "apt-get install python3-dask python3-distributed (%s)" % _e
    ) from _e

import functools
import glob
import numbers
import os
import re

import numpy as np

import avrokit

__all__ = ["read_avro", "read_avro_bag", "to_avro", "schema_from_dtypes", "byte_ranges"]


# ---- reading ----------------------------------------------------------------


def _expand(paths):
    """The files: each glob's matches sorted, a directory's *.avro files sorted,
    lists in their own order; absolute paths, so workers find them too."""
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    out = []
    for p in paths:
        p = os.fsdecode(p)
        if os.path.isdir(p):
            hits = sorted(glob.glob(os.path.join(glob.escape(p), "*.avro")))
            if not hits:
                raise FileNotFoundError("avrokit.dask: no *.avro file in the directory %r" % p)
            out.extend(hits)
        elif os.path.exists(p):  # before globbing: a name may hold [ or ?
            out.append(p)
        elif any(c in p for c in "*?["):
            hits = sorted(glob.glob(p))
            if not hits:
                raise FileNotFoundError("avrokit.dask: no file matches %r" % p)
            out.extend(hits)
        else:
            raise FileNotFoundError("avrokit.dask: no such file: %r" % p)
    if not out:
        raise ValueError("avrokit.dask: no files given")
    return [os.path.abspath(p) for p in out]


def _blocksize(blocksize):
    """Bytes per range (None: whole files). Ints, or strings such as "64MiB", "1MB"."""
    if blocksize is None:
        return None
    if isinstance(blocksize, str):
        blocksize = parse_bytes(blocksize)
    if isinstance(blocksize, bool) or not isinstance(blocksize, numbers.Integral):
        raise TypeError("blocksize must be an int, a string such as '64MiB', or None; got %r"
                        % (blocksize,))
    if blocksize <= 0:
        raise ValueError("blocksize must be positive, got %d" % blocksize)
    return int(blocksize)


def byte_ranges(paths, blocksize="64MiB"):
    """The partitions read_avro makes: a list of (path, start, end), start and
    end None for a whole file (blocksize None, or a file no larger than it)."""
    files = _expand(paths)
    size = _blocksize(blocksize)
    out = []
    for path in files:
        n = os.stat(path).st_size
        if size is None or n <= size:
            out.append((path, None, None))
        else:
            out.extend((path, a, min(a + size, n)) for a in range(0, n, size))
    return out


def _with_note(e, path, start, end):
    """Says which file and range failed: the note travels with the error to the client."""
    if hasattr(e, "add_note"):
        where = "" if start is None else ", bytes [%d, %d)" % (start, end)
        e.add_note("avrokit.dask: while reading %s%s" % (path, where))
    return e


class _RangeReader:
    """What dask calls per partition: one (path, start, end) into a DataFrame.

    It has dask's DataFrameIOFunction shape (columns, project_columns), so
    dask's optimizer hands a later column selection down to the read: only
    those fields are decoded."""

    def __init__(self, fields, reader_schema, path_column, paths, meta, projectable, cheapest):
        self.fields = fields            # field paths for to_pandas (None: all)
        self.reader_schema = reader_schema
        self.path_column = path_column  # None, or the name of the file's column
        self.paths = paths              # the files, the path column's categories
        self.meta = meta                # the partition's columns and dtypes
        self.projectable = projectable  # a record root: fields can be chosen
        self.cheapest = cheapest        # a field to read when no field is wanted

    @property
    def columns(self):
        return list(self.meta.columns)

    def project_columns(self, columns):
        columns = list(columns)
        if columns == self.columns or not self.projectable:
            return self
        fields = [c for c in columns if c != self.path_column]
        path_column = self.path_column if self.path_column in columns else None
        return _RangeReader(fields, self.reader_schema, path_column, self.paths,
                            self.meta[columns], True, self.cheapest)

    def __call__(self, part):
        path, start, end = part
        fields = self.fields
        no_field = fields is not None and not fields
        if no_field:
            fields = self.cheapest  # only the path column wanted: read one field for the rows
        try:
            df = avrokit.to_pandas(path, fields, self.reader_schema, start, end)
        except avrokit.AvroError as e:
            raise _with_note(e, path, start, end)
        if no_field:
            df = df[[]]
        if self.path_column is not None:
            df[self.path_column] = pd.Categorical.from_codes(
                np.full(len(df), self.paths.index(path), dtype=np.int32), categories=self.paths)
        wanted = list(self.meta.columns)
        if list(df.columns) != wanted:
            if set(df.columns) != set(wanted):
                raise ValueError(_other_schema(path, self.meta, df))
            df = df[wanted]
        if not df.dtypes.equals(self.meta.dtypes):
            raise ValueError(_other_schema(path, self.meta, df))
        return df


def _other_schema(path, meta, df):
    """The message for a partition whose columns differ from the first file's."""
    def name(t):
        if isinstance(t, pd.CategoricalDtype):
            return "category of %s" % list(t.categories)
        return str(t)

    have = dict(df.dtypes.items())
    diff = []
    for c, t in meta.dtypes.items():
        if c not in have:
            diff.append("%s: missing" % c)
        elif have[c] != t:
            diff.append("%s: %s, not %s" % (c, name(have[c]), name(t)))
    diff += ["%s: not in the first file" % c for c in have if c not in meta.columns]
    return ("avrokit.dask: %s has another schema than the first file (%s); pass a reader_schema "
            "that both resolve to" % (path, "; ".join(diff[:5])))


def _path_column_name(include_path_column):
    if include_path_column is True:
        return "path"
    if include_path_column in (False, None):
        return None
    if isinstance(include_path_column, str):
        return include_path_column
    raise TypeError("include_path_column must be a bool or a column name")


def read_avro(paths, blocksize="64MiB", columns=None, reader_schema=None,
              include_path_column=False):
    """A dask DataFrame of container files, one partition per byte range.

    paths: a path, a glob ("data/*.avro", matches sorted), a directory (its
    *.avro files), or a list of these.
    blocksize: bytes per partition: an int or a string ("64MiB", "1MB"); None
    makes one partition per file. A range holds the blocks whose preceding
    sync marker starts in it, so a range smaller than a block may hold none
    (an empty partition) and every record is read exactly once.
    columns: field paths to read ("id", "customer.tier"); the others are
    skipped at byte level. reader_schema: read into this schema (resolution).
    include_path_column: True adds a categorical column "path" naming each
    record's file (a string names the column).

    Columns and dtypes are those of avrokit.to_pandas, decided by the schema
    (of the first file, or reader_schema) before anything is read: the files
    should share it, or reader_schema should resolve them all. Errors in a
    file raise avrokit.AvroError when the partition is computed, with a note
    naming the file and range.
    """
    parts = byte_ranges(paths, blocksize)
    files = list(dict.fromkeys(p for p, _, _ in parts))
    path_column = _path_column_name(include_path_column)
    if isinstance(columns, str):
        columns = [columns]
    fields = None if columns is None else list(columns)
    first = files[0]
    size = os.stat(first).st_size
    # a range past the last block: the header alone, the columns with no rows
    try:
        meta = avrokit.to_pandas(first, fields, reader_schema, start=size, end=size)
    except avrokit.AvroError as e:
        raise _with_note(e, first, None, None)
    with avrokit.reader(first, reader_schema) as r:
        root = r.schema if reader_schema is None else avrokit.schema_parse(reader_schema)
    projectable = isinstance(root, dict) and root.get("type") in ("record", "error")
    if path_column is not None:
        if path_column in meta.columns:
            raise ValueError("include_path_column: the schema already has a column %r" % path_column)
        meta[path_column] = pd.Categorical([], categories=files)
    cheapest = [c for c in meta.columns if c != path_column][:1] or None
    reader = _RangeReader(fields, reader_schema, path_column, files, meta, projectable, cheapest)
    stamps = [(p, os.stat(p).st_size, os.stat(p).st_mtime_ns) for p in files]
    token = dask.base.tokenize(stamps, parts, fields, reader_schema, path_column)
    return dask.dataframe.from_map(reader, parts, meta=meta, label="read-avro", token=token)


def _read_dicts(path, start, end, reader_schema, raw):
    try:
        with avrokit.reader(path, reader_schema, raw, start, end) as r:
            return list(r)
    except avrokit.AvroError as e:
        raise _with_note(e, path, start, end)


def read_avro_bag(paths, blocksize="64MiB", reader_schema=None, raw=False):
    """A dask Bag of the records as dicts (avrokit.reader's), one partition
    per byte range; arguments as read_avro, raw as avrokit.reader."""
    parts = byte_ranges(paths, blocksize)
    stamps = [(p, os.stat(p).st_size, os.stat(p).st_mtime_ns) for p in dict.fromkeys(
        p for p, _, _ in parts)]
    name = "read-avro-bag-" + dask.base.tokenize(stamps, parts, reader_schema, raw)
    read = functools.partial(_read_dicts, reader_schema=reader_schema, raw=raw)
    graph = {(name, i): (read, path, start, end) for i, (path, start, end) in enumerate(parts)}
    return dask.bag.Bag(graph, name, len(parts))


# ---- writing ----------------------------------------------------------------

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

_INTS = {"int8": "int", "int16": "int", "int32": "int", "uint8": "int", "uint16": "int",
         "int64": "long", "uint32": "long"}
_FLOATS = {"float16": "float", "float32": "float", "float64": "double"}


def _sample_type(name, values):
    """The Avro type of an object column from its non-null values."""
    kinds = set()
    for v in values:
        if v is None or (isinstance(v, float) and v != v) or v is pd.NA:
            continue
        if isinstance(v, str):
            kinds.add("string")
        elif isinstance(v, (bytes, bytearray, memoryview)):
            kinds.add("bytes")
        elif isinstance(v, (bool, np.bool_)):
            kinds.add("boolean")
        elif isinstance(v, (int, np.integer)):
            kinds.add("long")
        elif isinstance(v, (float, np.floating)):
            kinds.add("double")
        else:
            raise TypeError("to_avro: column %r holds %s values, which have no Avro type here; "
                            "pass schema=" % (name, type(v).__name__))
    if len(kinds) > 1:
        raise TypeError("to_avro: column %r mixes %s values; pass schema=" % (
            name, " and ".join(sorted(kinds))))
    return kinds.pop() if kinds else "string"


def _avro_type(name, dtype, sample):
    """(type, nullable) for a column of this dtype."""
    if isinstance(dtype, pd.CategoricalDtype):
        cats = dtype.categories
        known = not (len(cats) == 1 and cats[0] == "__UNKNOWN_CATEGORIES__")
        if known and cats.dtype == object and all(
                isinstance(c, str) and _NAME.match(c) for c in cats):
            return {"type": "enum", "name": "%s_enum" % name, "symbols": list(cats)}, True
        if not known or cats.dtype == object:
            return _sample_type(name, sample if not known else list(cats)), True
        return _avro_type(name, cats.dtype, sample)[0], True
    if isinstance(dtype, pd.DatetimeTZDtype):
        return {"type": "long", "logicalType": "timestamp-micros"}, True
    if isinstance(dtype, pd.StringDtype):
        return "string", True
    if isinstance(dtype, pd.BooleanDtype):
        return "boolean", True
    if isinstance(dtype, pd.api.extensions.ExtensionDtype) and dtype.kind in "iuf" and \
            getattr(dtype, "numpy_dtype", None) is not None:
        base, _ = _avro_type(name, dtype.numpy_dtype, sample)
        return base, True
    if isinstance(dtype, np.dtype):
        if dtype.kind == "M":
            return {"type": "long", "logicalType": "local-timestamp-micros"}, True
        if dtype.kind == "b":
            return "boolean", False
        if dtype.name in _INTS:
            return _INTS[dtype.name], False
        if dtype.name in _FLOATS:
            return _FLOATS[dtype.name], False
        if dtype.kind == "O":
            return _sample_type(name, sample), True
        if dtype.name == "uint64":
            raise TypeError("to_avro: column %r is uint64, which Avro's long (signed 64-bit) "
                            "cannot hold; cast it (e.g. to int64) or pass schema=" % name)
    raise TypeError("to_avro: column %r has dtype %s, which has no Avro type here "
                    "(see docs/python.md, Dask); cast it or pass schema=" % (name, dtype))


def schema_from_dtypes(df, name="Row", sample=None):
    """The record schema to_avro derives from a (pandas or dask) DataFrame's
    dtypes: int64 long, int32 int, float64 double, float32 float, bool
    boolean, datetime64 timestamp-micros (zone-aware) or local-timestamp-micros
    (naive), categoricals of name-like strings enums, object columns string or
    bytes (from the values of sample, a pandas DataFrame; default df's own
    values, or a dask DataFrame's first partition). Columns that can hold a
    missing value anywhere (object, datetime, categorical, pandas' nullable
    Int64/boolean/string/Float64) are ["null", T]; a float64 NaN stays a
    double NaN. The index is not written."""
    if not _NAME.match(name):
        raise ValueError("to_avro: the record name %r is not an Avro name" % (name,))
    meta = getattr(df, "_meta", df)
    for col in meta.columns:
        if not isinstance(col, str) or not _NAME.match(col):
            raise ValueError(
                "to_avro: column name %r is not an Avro field name ([A-Za-z_][A-Za-z0-9_]*); "
                "rename it, e.g. df.rename(columns=lambda c: str(c).replace('.', '_'))" % (col,))
    if len(set(meta.columns)) != len(meta.columns):
        raise ValueError("to_avro: the column names are not unique")
    wants_sample = [c for c in meta.columns if meta[c].dtype == object or (
        isinstance(meta[c].dtype, pd.CategoricalDtype) and
        list(meta[c].dtype.categories) == ["__UNKNOWN_CATEGORIES__"])]
    if wants_sample and sample is None:
        if hasattr(df, "dask"):
            # not df.head(): a first partition shorter than asked for warns on the worker
            first = df[wants_sample].partitions[0]
            sample = first.map_partitions(pd.DataFrame.head, 1000, meta=first._meta).compute()
        else:
            sample = df
    fields = []
    for col in meta.columns:
        values = list(sample[col]) if col in wants_sample else ()
        t, nullable = _avro_type(col, meta[col].dtype, values)
        if nullable:
            fields.append({"name": col, "type": ["null", t], "default": None})
        else:
            fields.append({"name": col, "type": t})
    return {"type": "record", "name": name, "fields": fields}


def _write_part(frame, name, schema, codec, level, sync_interval, metadata):
    os.makedirs(os.path.dirname(name) or ".", exist_ok=True)
    # a temporary file renamed into place on close: a failed task leaves no half file
    with avrokit.writer(name, schema, codec=codec, level=level, metadata=metadata,
                        sync_interval=sync_interval) as w:
        w.write_columns(frame)
    return name


def _file_names(path, n, name_function):
    path = os.path.abspath(os.fspath(path))
    if "*" not in path:
        path = os.path.join(path, "part.*.avro")  # a directory
    if path.count("*") != 1:
        raise ValueError("to_avro: the file name needs exactly one '*' (the partition number): %r"
                         % path)
    if name_function is None:
        width = len(str(max(n - 1, 0)))
        name_function = lambda i: str(i).zfill(width)  # noqa: E731 - sorts as the partitions do
    names = [path.replace("*", name_function(i)) for i in range(n)]
    if len(set(names)) != n:
        raise ValueError("to_avro: name_function gives the same name to two partitions")
    return names


def to_avro(df, path, schema=None, codec="zstandard", level=None, sync_interval=None,
            metadata=None, name_function=None, compute=True, record_name="Row"):
    """Writes a dask (or pandas) DataFrame as container files, one per partition.

    path: a name with one "*", replaced by the partition number (zero-padded,
    so the names sort as the partitions do; name_function(i) gives another),
    or a directory (files part.<i>.avro in it). Directories are created.
    schema: the record schema; by default schema_from_dtypes(df). codec,
    level, sync_interval, metadata: as avrokit.writer. Each file is written
    to a temporary name and renamed into place when its partition is done.
    compute: True writes now and returns the list of file names; False
    returns one dask.delayed per file, to compute later.
    """
    if isinstance(df, pd.DataFrame):
        df = dask.dataframe.from_pandas(df, npartitions=1)
    if schema is None:
        schema = schema_from_dtypes(df, record_name)
    schema = avrokit.schema_parse(schema)  # checked once here, not on every worker
    names = _file_names(path, df.npartitions, name_function)
    for d in {os.path.dirname(n) for n in names}:
        os.makedirs(d, exist_ok=True)
    write = dask.delayed(_write_part, pure=False)
    tasks = [write(part, name, schema, codec, level, sync_interval, metadata,
                   dask_key_name="to-avro-%d-%s" % (i, dask.base.tokenize(name, schema)))
             for i, (part, name) in enumerate(zip(df.to_delayed(), names))]
    if not compute:
        return tasks
    return list(dask.compute(*tasks))
