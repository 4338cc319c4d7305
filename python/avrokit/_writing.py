"""Writing columns (a dict of equal-length sequences or a pandas DataFrame) as records, one per row."""

import math

__all__ = ["write_columns"]


def _is_missing(v):
    """None, NaN, pandas.NA and NaT: values a nullable column writes as None."""
    if v is None:
        return True
    if isinstance(v, float):
        return math.isnan(v)
    t = type(v)
    mod = t.__module__
    if mod.startswith("pandas"):
        # pd.NA, pd.NaT (NaTType): no import of pandas needed to know them
        name = t.__name__
        return name in ("NAType", "NaTType")
    if mod == "numpy":
        name = t.__name__
        if name.startswith("float"):
            return v != v
        if name in ("datetime64", "timedelta64"):
            return str(v) == "NaT"
    return False


def _is_nan(v):
    """A float NaN (Python or numpy), not NA nor NaT."""
    return (isinstance(v, float) or type(v).__name__.startswith("float")) and v != v


def _nullable_fields(schema):
    """Names of the record's fields whose type is a union with null."""
    if not isinstance(schema, dict) or schema.get("type") not in ("record", "error"):
        return set()
    out = set()
    for f in schema.get("fields", ()):
        t = f.get("type")
        if isinstance(t, list) and any(b == "null" or (isinstance(b, dict) and b.get("type") == "null") for b in t):
            out.add(f.get("name"))
    return out


def _plain(v):
    """A numpy scalar as the Python object it stands for (int, float, bool,
    str, bytes, datetime); pandas Timestamps as datetimes; others as they are."""
    t = type(v)
    mod = t.__module__
    if mod == "numpy":
        if t.__name__ == "datetime64":
            return _datetime64(v)
        return v.item()
    if mod.startswith("pandas") and t.__name__ == "Timestamp":
        # keeps nanoseconds for timestamp-nanos: the writer reads .nanosecond
        return v
    return v


def _datetime64(v):
    import datetime

    import numpy as np

    # .item() gives an int for ns units; go through microseconds
    us = v.astype("datetime64[us]").astype(np.int64)
    return datetime.datetime(1970, 1, 1) + datetime.timedelta(microseconds=int(us))


def _columns(data):
    """(names, columns): the columns as sequences of equal length."""
    if hasattr(data, "columns") and hasattr(data, "iloc"):  # a pandas DataFrame
        names = [str(c) for c in data.columns]
        cols = [data[c] for c in data.columns]
        cols = [_column_values(c) for c in cols]
    elif isinstance(data, dict):
        names = list(data)
        for n in names:
            if not isinstance(n, str):
                raise TypeError("write_columns: column names must be str, got %r" % (n,))
        cols = [_column_values(data[n]) for n in names]
    else:
        raise TypeError(
            "write_columns takes a dict of equal-length sequences or a pandas DataFrame, not %s"
            % type(data).__name__
        )
    lengths = {len(c) for c in cols}
    if len(lengths) > 1:
        detail = ", ".join("%s: %d" % (n, len(c)) for n, c in zip(names, cols))
        raise ValueError("write_columns: columns differ in length (%s)" % detail)
    return names, cols


def _column_values(col):
    """A column as a list of Python objects."""
    if hasattr(col, "dtype") and hasattr(col, "to_numpy") and hasattr(col, "iloc"):
        # a pandas Series: object values keep pd.NA / NaT / None; datetimes stay Timestamps
        kind = getattr(col.dtype, "kind", "O")
        if kind == "M":
            return list(col)  # Timestamps, NaT
        if kind in "iufb" and getattr(col.dtype, "na_value", None) is None:
            # plain numpy dtypes: tolist gives Python scalars at once
            return col.to_numpy().tolist()
        return list(col)  # extension dtypes (Int64, boolean, string) and objects
    if hasattr(col, "dtype") and hasattr(col, "tolist"):  # a numpy array
        if col.dtype.kind == "M":
            return list(col)
        return col.tolist()
    return list(col)


def write_columns(writer, data):
    """Writes one record per row of data (a dict of column name -> equal-length
    sequence or numpy array, or a pandas DataFrame) with writer.write_many:
    numpy scalars become Python ones, and None, NaN (in float columns),
    pandas.NA and NaT become None (so a nullable field gets null). Returns
    the number of records written."""
    names, cols = _columns(data)
    n = len(cols[0]) if cols else 0
    nullable = _nullable_fields(writer.schema)
    # NaN becomes None only where the field can hold null: elsewhere it is a float
    nan_to_none = [name in nullable for name in names]

    def rows():
        for i in range(n):
            rec = {}
            for name, col, nan_null in zip(names, cols, nan_to_none):
                v = col[i]
                if v is None:
                    pass
                elif _is_missing(v):
                    # NA and NaT are always None; a NaN only where null is allowed
                    v = None if (nan_null or not _is_nan(v)) else _plain(v)
                else:
                    v = _plain(v)
                rec[name] = v
            yield rec

    return writer.write_many(rows())
