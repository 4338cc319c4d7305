"""read_columns, to_pandas and read_arrow against the row reader: every interop file, every type, projections, ranges."""
import ctypes
import datetime
import decimal
import math

import numpy as np
import pytest

import avrokit
from conftest import interop_files
from expected import same

FILES = [f for f in interop_files() if not f.startswith("expected/")]


def rows(path, **kw):
    out = []
    try:
        for rec in avrokit.reader(path, **kw):
            out.append(rec)
    except avrokit.AvroError:
        pass
    return out


def flat(rec, prefix=""):
    """A record as read_columns names its columns ("a.b" for nested records)."""
    out = {}
    for k, v in rec.items():
        if isinstance(v, dict) and k in NESTED:
            out.update(flat(v, prefix + k + "."))
        else:
            out[prefix + k] = v
    return out


NESTED = set()


def cell(v):
    """A column cell as a plain Python value."""
    if v is None or v is np.ma.masked:
        return None
    if isinstance(v, np.generic):
        return v.item()
    return v


def as_row_value(v, col_value):
    """The row reader's raw value in the form read_columns gives it."""
    if isinstance(col_value, float) and math.isnan(col_value) and v is None:
        return col_value
    return v


@pytest.mark.parametrize("rel", FILES)
def test_columns_match_rows(apache, rel):
    path = str(apache / rel)
    want = rows(path, raw=True)
    try:
        cols = avrokit.read_columns(path)
    except avrokit.AvroError:
        # a damaged file: the row reader stopped too; the blocks before it
        # are what read_arrow would have held
        assert rel.rsplit("/", 1)[-1] in ("avro-1237-bad-union-discriminant.avro",
                                          "avro-1238-truncated.avro",
                                          "person-10.no-codec.avro")
        return
    schema = avrokit.reader(path).schema
    if not isinstance(schema, dict) or schema.get("type") != "record":
        (name, values), = cols.items()
        assert [cell(x) for x in values] == [w for w in want]
        return
    NESTED.clear()
    for f in schema["fields"]:
        t = f["type"]
        if isinstance(t, dict) and t.get("type") == "record":
            NESTED.add(f["name"])
    for i, rec in enumerate(want):
        for name, v in flat(rec).items():
            got = cell(cols[name][i])
            assert same(got, v) or (v is None and isinstance(got, float) and math.isnan(got)), \
                (rel, i, name, got, v)
    for values in cols.values():
        assert len(values) == len(want)


EVERYTHING = {
    "type": "record", "name": "E", "fields": [
        {"name": "n", "type": "null"},
        {"name": "b", "type": "boolean"},
        {"name": "i", "type": "int"},
        {"name": "l", "type": "long"},
        {"name": "f", "type": "float"},
        {"name": "d", "type": "double"},
        {"name": "s", "type": "string"},
        {"name": "by", "type": "bytes"},
        {"name": "fx", "type": {"type": "fixed", "name": "F4", "size": 4}},
        {"name": "e", "type": {"type": "enum", "name": "Color", "symbols": ["RED", "GREEN", "BLUE"]}},
        {"name": "arr", "type": {"type": "array", "items": "long"}},
        {"name": "m", "type": {"type": "map", "values": "double"}},
        {"name": "oi", "type": ["null", "int"]},
        {"name": "od", "type": ["double", "null"]},
        {"name": "os", "type": ["null", "string"]},
        {"name": "u", "type": ["null", "int", "string"]},
        {"name": "inner", "type": {"type": "record", "name": "In", "fields": [
            {"name": "x", "type": "int"}, {"name": "y", "type": "string"}]}},
        {"name": "recs", "type": {"type": "array", "items": "In"}},
        {"name": "date", "type": {"type": "int", "logicalType": "date"}},
        {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-micros"}},
        {"name": "dec", "type": {"type": "bytes", "logicalType": "decimal", "precision": 20, "scale": 3}},
    ]}


def everything(i):
    return {
        "n": None, "b": i % 2 == 0, "i": i - 50, "l": (i - 50) * 10**12, "f": i / 4,
        "d": i / 3, "s": "s%d" % i, "by": bytes([i % 256]) * (i % 5), "fx": i.to_bytes(4, "little"),
        "e": ["RED", "GREEN", "BLUE"][i % 3], "arr": list(range(i % 4)),
        "m": {"k%d" % j: j / 2 for j in range(i % 3)},
        "oi": None if i % 3 == 0 else i, "od": None if i % 4 == 0 else i * 1.5,
        "os": None if i % 2 else "o%d" % i, "u": [None, i, "u%d" % i][i % 3],
        "inner": {"x": i, "y": "y%d" % i}, "recs": [{"x": j, "y": str(j)} for j in range(i % 3)],
        "date": 18000 + i, "ts": 1_700_000_000_000_000 + i,
        "dec": (i * 1000 - 123456).to_bytes(8, "big", signed=True),
    }


@pytest.fixture
def every_file(tmp_path):
    path = tmp_path / "every.avro"
    with avrokit.writer(str(path), EVERYTHING, codec="zstandard") as w:
        for i in range(200):
            w.write(everything(i))
    return str(path)


def test_every_type(every_file):
    cols = avrokit.read_columns(every_file)
    n = 200
    assert cols["i"].dtype == np.int32 and list(cols["i"]) == [i - 50 for i in range(n)]
    assert cols["l"].dtype == np.int64 and cols["l"][7] == -43 * 10**12
    assert cols["f"].dtype == np.float32 and cols["d"].dtype == np.float64
    assert cols["b"].dtype == bool and list(cols["b"][:4]) == [True, False, True, False]
    assert list(cols["n"]) == [None] * n
    assert cols["s"][5] == "s5" and cols["by"][3] == b"\x03\x03\x03"
    assert cols["fx"][1] == (1).to_bytes(4, "little")
    assert list(cols["e"][:4]) == ["RED", "GREEN", "BLUE", "RED"]
    assert cols["arr"][3] == [0, 1, 2] and cols["m"][2] == {"k0": 0.0, "k1": 0.5}
    oi = cols["oi"]
    assert isinstance(oi, np.ma.MaskedArray) and oi.mask[0] and not oi.mask[1] and oi[1] == 1
    assert math.isnan(cols["od"][0]) and cols["od"][1] == 1.5
    assert cols["os"][1] is None and cols["os"][0] == "o0"
    assert [cols["u"][k] for k in range(3)] == [None, 1, "u2"]
    assert cols["inner.x"][9] == 9 and cols["inner.y"][9] == "y9"
    assert cols["recs"][2] == [{"x": 0, "y": "0"}, {"x": 1, "y": "1"}]
    assert cols["date"][0] == np.datetime64("2019-04-14")
    assert cols["ts"][1] == np.datetime64(1_700_000_000_000_001, "us")
    assert cols["dec"][0] == decimal.Decimal("-123.456")


def test_projection(every_file):
    cols = avrokit.read_columns(every_file, columns=["s", "inner.y", "oi"])
    assert list(cols) == ["s", "inner.y", "oi"]
    assert cols["inner.y"][4] == "y4"
    with pytest.raises(avrokit.AvroError) as e:
        avrokit.read_columns(every_file, columns=["nope"])
    assert e.value.status == "INVALID_ARGUMENT"


def test_to_pandas(every_file):
    df = avrokit.to_pandas(every_file, columns=["i", "d", "oi", "e", "ts", "s"])
    assert df.shape == (200, 6)
    assert str(df["oi"].dtype) == "Int32" and df["oi"].isna().sum() == 67
    assert str(df["e"].dtype) == "category"
    assert str(df["ts"].dtype) == "datetime64[us, UTC]" or str(df["ts"].dtype).endswith("UTC]")
    assert df["s"][3] == "s3"


def test_reader_schema_columns(tmp_path, every_file):
    reader = {"type": "record", "name": "E", "fields": [
        {"name": "i", "type": "long"}, {"name": "extra", "type": "string", "default": "z"}]}
    cols = avrokit.read_columns(every_file, reader_schema=reader)
    assert cols["i"].dtype == np.int64 and cols["i"][0] == -50
    assert list(cols["extra"][:2]) == ["z", "z"]


def test_ranges(tmp_path):
    path = tmp_path / "r.avro"
    schema = {"type": "record", "name": "R", "fields": [{"name": "v", "type": "double"}]}
    with avrokit.writer(str(path), schema, codec="deflate", sync_interval=1000) as w:
        for i in range(20000):
            w.write({"v": float(i)})
    size = path.stat().st_size
    parts = [avrokit.read_columns(str(path), start=a, end=a + size // 7)["v"]
             for a in range(0, size, size // 7)]
    assert np.array_equal(np.concatenate(parts), np.arange(20000, dtype=float))


def test_numeric_columns_are_views(tmp_path):
    path = tmp_path / "v.avro"
    schema = {"type": "record", "name": "R", "fields": [{"name": "v", "type": "long"}]}
    with avrokit.writer(str(path), schema) as w:
        w.write_many({"v": i} for i in range(1000))
    v = avrokit.read_columns(str(path))["v"]
    assert not v.flags.owndata and v.base is not None
    assert int(v.sum()) == sum(range(1000))


class ArrowSchema(ctypes.Structure):
    pass


ArrowSchema._fields_ = [
    ("format", ctypes.c_char_p), ("name", ctypes.c_char_p), ("metadata", ctypes.c_char_p),
    ("flags", ctypes.c_int64), ("n_children", ctypes.c_int64),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowSchema))),
    ("dictionary", ctypes.POINTER(ArrowSchema)),
    ("release", ctypes.c_void_p), ("private_data", ctypes.c_void_p)]


class ArrowArray(ctypes.Structure):
    pass


ArrowArray._fields_ = [
    ("length", ctypes.c_int64), ("null_count", ctypes.c_int64), ("offset", ctypes.c_int64),
    ("n_buffers", ctypes.c_int64), ("n_children", ctypes.c_int64),
    ("buffers", ctypes.POINTER(ctypes.c_void_p)),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowArray))),
    ("dictionary", ctypes.POINTER(ArrowArray)),
    ("release", ctypes.c_void_p), ("private_data", ctypes.c_void_p)]

_get = ctypes.pythonapi.PyCapsule_GetPointer
_get.restype = ctypes.c_void_p
_get.argtypes = [ctypes.py_object, ctypes.c_char_p]


def test_arrow_capsules(every_file):
    cols = avrokit.read_arrow(every_file, columns=["i", "s", "e", "oi"])
    scap, acap = cols.__arrow_c_array__()
    s = ArrowSchema.from_address(_get(scap, b"arrow_schema"))
    a = ArrowArray.from_address(_get(acap, b"arrow_array"))
    assert s.format == b"+s" and s.n_children == 4 and a.length == 200
    kids = [s.children[k].contents for k in range(4)]
    assert [(k.name, k.format) for k in kids] == [(b"i", b"i"), (b"s", b"u"), (b"e", b"i"), (b"oi", b"i")]
    assert kids[2].dictionary.contents.format == b"u"
    ints = ctypes.cast(a.children[0].contents.buffers[1], ctypes.POINTER(ctypes.c_int32))
    assert [ints[k] for k in range(3)] == [-50, -49, -48]
    assert a.children[3].contents.null_count == 67
    del cols  # the capsules keep the buffers alive
    assert [ints[k] for k in range(3)] == [-50, -49, -48]
    assert len(cols2 := avrokit.read_arrow(every_file)) == 200
    assert cols2.__arrow_c_schema__() is not None
