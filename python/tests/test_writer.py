"""avrokit's Writer and write_columns, checked by reading the files back with Apache's python3-avro."""
import datetime
import decimal
import io
import math
import os
import threading
import uuid
import warnings

import pytest

import avrokit._avrokit as C

avro_datafile = pytest.importorskip("avro.datafile")
avro_io = pytest.importorskip("avro.io")
np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")

try:
    import avrokit  # noqa: F401  (the pure-Python package, for write_columns)
    from avrokit._writing import write_columns
except Exception:  # pragma: no cover - the package is not assembled
    write_columns = None

UTC = datetime.timezone.utc

# python3-avro 1.11 warns about logical types it does not know (timestamp-nanos, ...)
pytestmark = pytest.mark.filterwarnings("ignore::avro.errors.IgnoredLogicalType")


def read_back(data):
    """Records of a container file (path or bytes) read by python3-avro."""
    f = open(data, "rb") if isinstance(data, (str, os.PathLike)) else io.BytesIO(data)
    with f:
        r = avro_datafile.DataFileReader(f, avro_io.DatumReader())
        out = list(r)
        r.close()
    return out


def write_bytes(schema, records, **kw):
    buf = io.BytesIO()
    w = C.Writer(buf, schema, **kw)
    for rec in records:
        w.write(rec)
    w.close()
    return buf.getvalue()


def roundtrip(schema, records, **kw):
    return read_back(write_bytes(schema, records, **kw))


def rec_schema(t, name="R", default=None, **extra):
    field = {"name": "x", "type": t}
    if default is not None:
        field["default"] = default
    s = {"type": "record", "name": name, "fields": [field]}
    s.update(extra)
    return s


def one(t, value):
    """value written as field x of a one-field record, read back."""
    (rec,) = roundtrip(rec_schema(t), [{"x": value}])
    return rec["x"]


def avro_error(fn, *args):
    with pytest.raises(C.AvroError) as ei:
        fn(*args)
    e = ei.value
    assert e.status == "INVALID_ARGUMENT", (e.status, str(e))
    return e


def bad(t, value):
    """The AvroError of writing value as field x of type t."""
    w = C.Writer(io.BytesIO(), rec_schema(t))
    try:
        return avro_error(w.write, {"x": value})
    finally:
        w.close()


# ---- primitives -----------------------------------------------------------------------------


def test_primitives_round_trip():
    schema = {
        "type": "record",
        "name": "P",
        "fields": [
            {"name": "n", "type": "null"},
            {"name": "b", "type": "boolean"},
            {"name": "i", "type": "int"},
            {"name": "l", "type": "long"},
            {"name": "f", "type": "float"},
            {"name": "d", "type": "double"},
            {"name": "s", "type": "string"},
            {"name": "y", "type": "bytes"},
        ],
    }
    recs = [
        {"n": None, "b": True, "i": 0, "l": 0, "f": 0.0, "d": 0.0, "s": "", "y": b""},
        {"n": None, "b": False, "i": 2**31 - 1, "l": 2**63 - 1, "f": 1.5, "d": 1e300,
         "s": "h\u00e9llo \u2603 \U0001f600", "y": bytes(range(256))},
        {"n": None, "b": True, "i": -2**31, "l": -2**63, "f": -0.25, "d": -2.5e-300,
         "s": "a\x00b", "y": bytearray(b"\x00\xff")},
        {"n": None, "b": False, "i": 7, "l": 5, "f": 3, "d": 4, "s": "x", "y": memoryview(b"mv")},
    ]
    got = roundtrip(schema, recs)
    assert got[0] == recs[0]
    assert got[1] == recs[1]
    assert got[2]["y"] == b"\x00\xff" and got[2]["i"] == -2**31 and got[2]["l"] == -2**63
    assert got[2]["s"] == "a\x00b"
    assert got[3]["y"] == b"mv" and got[3]["f"] == 3.0 and got[3]["d"] == 4.0


def test_float_specials_and_rounding():
    got = roundtrip(rec_schema("double"), [{"x": v} for v in (math.inf, -math.inf, math.nan, 0.1)])
    assert got[0]["x"] == math.inf and got[1]["x"] == -math.inf and math.isnan(got[2]["x"])
    assert got[3]["x"] == 0.1
    assert one("float", 0.1) == pytest.approx(0.1, rel=1e-7)


def test_numpy_scalars():
    schema = {
        "type": "record",
        "name": "N",
        "fields": [
            {"name": "b", "type": "boolean"},
            {"name": "i", "type": "int"},
            {"name": "l", "type": "long"},
            {"name": "f", "type": "float"},
            {"name": "d", "type": "double"},
        ],
    }
    rec = {"b": np.bool_(True), "i": np.int16(-7), "l": np.uint32(4000000000),
           "f": np.float32(2.5), "d": np.float64(0.125)}
    assert roundtrip(schema, [rec]) == [{"b": True, "i": -7, "l": 4000000000, "f": 2.5, "d": 0.125}]
    assert one("int", np.int64(2**31 - 1)) == 2**31 - 1
    e = bad("int", np.int64(2**31))
    assert "out of range" in str(e)


# ---- complex types --------------------------------------------------------------------------


def test_fixed_enum_array_map_record():
    schema = {
        "type": "record",
        "name": "ns.Outer",
        "fields": [
            {"name": "fx", "type": {"type": "fixed", "name": "F4", "size": 4}},
            {"name": "en", "type": {"type": "enum", "name": "Color", "symbols": ["RED", "GREEN"]}},
            {"name": "arr", "type": {"type": "array", "items": "string"}},
            {"name": "mp", "type": {"type": "map", "values": "long"}},
            {"name": "inner", "type": {"type": "record", "name": "Inner", "fields": [
                {"name": "a", "type": "int"}, {"name": "b", "type": {"type": "array", "items": "Inner"}}]}},
            {"name": "nested", "type": {"type": "array", "items": {"type": "array", "items": "int"}}},
        ],
    }
    rec = {
        "fx": b"abcd",
        "en": "GREEN",
        "arr": ["x", "yy", ""],
        "mp": {"k": 1, "\u00e9": -2},
        "inner": {"a": 1, "b": [{"a": 2, "b": []}, {"a": 3, "b": [{"a": 4, "b": []}]}]},
        "nested": [[1, 2], [], [3]],
    }
    assert roundtrip(schema, [rec]) == [rec]


@pytest.mark.parametrize("items,values", [
    ("boolean", [True, False, True]),
    ("int", [0, -1, 2**31 - 1, -2**31]),
    ("long", [0, -1, 2**63 - 1, -2**63]),
    ("float", [0.5, -1.25, 3.0]),
    ("double", [0.1, -1e300, 2.0]),
    ("null", [None, None]),
    ({"type": "fixed", "name": "F2", "size": 2}, [b"ab", b"\x00\xff"]),
    ({"type": "int", "logicalType": "date"}, [0, -1, 18000]),
])
def test_typed_arrays(items, values):
    t = {"type": "array", "items": items}
    assert one(t, values) == ([datetime.date(1970, 1, 1) + datetime.timedelta(days=v) for v in values]
                              if isinstance(items, dict) and items.get("logicalType") == "date" else values)
    # the same from a tuple and a generator (unknown length, grows)
    assert one(t, tuple(values)) == one(t, values)
    assert one(t, (v for v in values * 40)) == one(t, values * 40)


@pytest.mark.parametrize("dtype,items", [
    ("int8", "int"), ("int16", "int"), ("int32", "int"), ("int64", "long"), ("uint8", "int"),
    ("uint16", "long"), ("uint32", "long"), ("int64", "int"), ("float32", "float"),
    ("float64", "double"), ("int32", "double"), ("bool", "boolean"),
])
def test_numpy_arrays(dtype, items):
    a = np.arange(-3, 5).astype(dtype) if dtype != "bool" else np.array([True, False, True])
    got = one({"type": "array", "items": items}, a)
    assert got == a.tolist()
    # a strided view and a big-endian array take the per-item path
    got = one({"type": "array", "items": items}, a[::2])
    assert got == a[::2].tolist()
    be = a.astype(a.dtype.newbyteorder(">"))
    assert one({"type": "array", "items": items}, be) == a.tolist()


def test_numpy_array_range_errors():
    e = bad({"type": "array", "items": "int"}, np.array([1, 2**40], dtype=np.int64))
    assert e.path == "R.fields[0].items[1]"
    assert "out of range" in str(e)
    e = bad({"type": "array", "items": "long"}, np.array([1, 2**64 - 1], dtype=np.uint64))
    assert e.path == "R.fields[0].items[1]"
    e = bad({"type": "array", "items": "int"}, np.array([1.5]))
    assert "expected int" in str(e)
    e = bad({"type": "array", "items": "boolean"}, np.array([1, 0]))
    assert "expected bool" in str(e)


def test_numpy_array_of_records_and_strings():
    t = {"type": "array", "items": "string"}
    assert one(t, np.array(["a", "bc"])) == ["a", "bc"]


def test_recursive_linked_list_deep():
    schema = {"type": "record", "name": "Node", "fields": [
        {"name": "v", "type": "int"}, {"name": "next", "type": ["null", "Node"]}]}
    node = None
    for i in range(3000):  # 6000 levels: record, union, record, ...
        node = {"v": i, "next": node}
    data = write_bytes(schema, [node])
    # the C reader is not needed: python3-avro recurses, so check the first few levels only
    # through a shorter list
    short = None
    for i in range(50):
        short = {"v": i, "next": short}
    got = roundtrip(schema, [short])[0]
    assert got["v"] == 49 and got["next"]["v"] == 48
    assert len(data) > 3000


def test_too_deep_is_an_error_not_a_crash():
    t = {"type": "array", "items": ["int", {"type": "array", "items": ["int", "Deep"]}]}
    # a named recursive array needs a record around it
    schema = {"type": "record", "name": "Deep", "fields": [
        {"name": "a", "type": {"type": "array", "items": "Deep"}}]}
    del t
    v = {"a": []}
    for _ in range(20000):
        v = {"a": [v]}
    w = C.Writer(io.BytesIO(), schema)
    e = avro_error(w.write, v)
    assert "deeper" in str(e)
    assert "levels)..." in e.path  # the middle of a long path is elided
    w.close()


def test_map_and_record_from_other_mappings():
    import collections
    schema = {"type": "record", "name": "M", "fields": [
        {"name": "m", "type": {"type": "map", "values": "int"}}, {"name": "k", "type": "int", "default": 5}]}
    om = collections.OrderedDict([("m", collections.OrderedDict([("a", 1)]))])

    class Mapping(collections.abc.Mapping):
        def __init__(self, d):
            self.d = d

        def __getitem__(self, k):
            return self.d[k]

        def __iter__(self):
            return iter(self.d)

        def __len__(self):
            return len(self.d)

    assert roundtrip(schema, [om, Mapping({"m": Mapping({"b": 2}), "k": 1})]) == [
        {"m": {"a": 1}, "k": 5}, {"m": {"b": 2}, "k": 1}]


def test_extra_keys_are_ignored():
    assert roundtrip(rec_schema("int"), [{"x": 1, "unknown": object()}]) == [{"x": 1}]


# ---- defaults -------------------------------------------------------------------------------


def test_defaults_fill_missing_fields():
    schema = {"type": "record", "name": "D", "fields": [
        {"name": "req", "type": "int"},
        {"name": "i", "type": "int", "default": 42},
        {"name": "s", "type": "string", "default": "dflt"},
        {"name": "y", "type": "bytes", "default": "\u00ff\u0000"},
        {"name": "u", "type": ["null", "string"], "default": None},
        {"name": "u2", "type": ["long", "null"], "default": 7},
        {"name": "a", "type": {"type": "array", "items": "int"}, "default": [1, 2]},
        {"name": "m", "type": {"type": "map", "values": "string"}, "default": {"k": "v"}},
        {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["A", "B"]}, "default": "B"},
        {"name": "f", "type": {"type": "fixed", "name": "F", "size": 2}, "default": "ab"},
        {"name": "r", "type": {"type": "record", "name": "Sub", "fields": [
            {"name": "z", "type": "double"}]}, "default": {"z": 1.5}},
    ]}
    got = roundtrip(schema, [{"req": 1}])
    assert got == [{"req": 1, "i": 42, "s": "dflt", "y": b"\xff\x00", "u": None, "u2": 7,
                    "a": [1, 2], "m": {"k": "v"}, "e": "B", "f": b"ab", "r": {"z": 1.5}}]


# ---- logical types --------------------------------------------------------------------------


def test_logical_types_round_trip():
    schema = {"type": "record", "name": "L", "fields": [
        {"name": "date", "type": {"type": "int", "logicalType": "date"}},
        {"name": "tms", "type": {"type": "int", "logicalType": "time-millis"}},
        {"name": "tus", "type": {"type": "long", "logicalType": "time-micros"}},
        {"name": "tsms", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "tsus", "type": {"type": "long", "logicalType": "timestamp-micros"}},
        {"name": "dec", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 3}},
        {"name": "decf", "type": {"type": "fixed", "name": "D8", "size": 8, "logicalType": "decimal",
                                  "precision": 18, "scale": 2}},
        {"name": "uid", "type": {"type": "string", "logicalType": "uuid"}},
    ]}
    u = uuid.UUID("12345678-1234-5678-1234-567812345678")
    plus2 = datetime.timezone(datetime.timedelta(hours=2))
    recs = [
        {"date": datetime.date(2024, 2, 29), "tms": datetime.time(23, 59, 59, 999000),
         "tus": datetime.time(0, 0, 0, 1), "tsms": datetime.datetime(2001, 9, 9, 1, 46, 40, tzinfo=UTC),
         "tsus": datetime.datetime(2020, 1, 1, 2, 0, 0, 5, tzinfo=plus2),
         "dec": decimal.Decimal("-123456.789"), "decf": decimal.Decimal("1.5"), "uid": u},
        {"date": datetime.date(1, 1, 1), "tms": datetime.time(0, 0), "tus": datetime.time(12, 30),
         "tsms": datetime.datetime(1969, 12, 31, 23, 59, 59, 999000),  # naive: taken as UTC
         "tsus": datetime.datetime(1900, 1, 1, tzinfo=UTC),
         "dec": decimal.Decimal("0.001"), "decf": decimal.Decimal("-99999999999999.99"),
         "uid": str(u)},
        # raw underlying values are accepted too
        {"date": 0, "tms": 1000, "tus": 1, "tsms": -1, "tsus": 0,
         "dec": b"\x01", "decf": b"\xff" * 8, "uid": "not checked"},
    ]
    got = roundtrip(schema, recs)
    assert got[0] == {"date": datetime.date(2024, 2, 29), "tms": datetime.time(23, 59, 59, 999000),
                      "tus": datetime.time(0, 0, 0, 1),
                      "tsms": datetime.datetime(2001, 9, 9, 1, 46, 40, tzinfo=UTC),
                      "tsus": datetime.datetime(2020, 1, 1, 0, 0, 0, 5, tzinfo=UTC),
                      "dec": decimal.Decimal("-123456.789"), "decf": decimal.Decimal("1.50"),
                      "uid": str(u)}
    assert got[1]["date"] == datetime.date(1, 1, 1)
    assert got[1]["tsms"] == datetime.datetime(1969, 12, 31, 23, 59, 59, 999000, tzinfo=UTC)
    assert got[1]["tsus"] == datetime.datetime(1900, 1, 1, tzinfo=UTC)
    assert got[1]["dec"] == decimal.Decimal("0.001")
    assert got[1]["decf"] == decimal.Decimal("-99999999999999.99")
    assert got[2]["date"] == datetime.date(1970, 1, 1)
    assert got[2]["dec"] == decimal.Decimal("0.001") and got[2]["decf"] == decimal.Decimal("-0.01")
    assert got[2]["uid"] == "not checked"


def test_timestamps_raw_units():
    # python3-avro 1.11 does not know the nanos and local kinds: it returns the longs
    dt = datetime.datetime(2020, 1, 2, 3, 4, 5, 678901)
    base = 1577934245678901
    assert one({"type": "long", "logicalType": "timestamp-nanos"}, dt) == base * 1000
    assert one({"type": "long", "logicalType": "timestamp-nanos"},
               pd.Timestamp("2020-01-02T03:04:05.678901234")) == base * 1000 + 234
    assert one({"type": "long", "logicalType": "local-timestamp-millis"}, dt) == base // 1000
    assert one({"type": "long", "logicalType": "local-timestamp-micros"}, dt) == base
    assert one({"type": "long", "logicalType": "local-timestamp-nanos"}, dt) == base * 1000
    # millis floor toward the past, before 1970 too
    assert one({"type": "long", "logicalType": "local-timestamp-millis"},
               datetime.datetime(1969, 12, 31, 23, 59, 59, 999999)) == -1
    # an aware pandas Timestamp
    ts = pd.Timestamp("2020-01-02T05:04:05.678901", tz="Etc/GMT-2")
    assert one({"type": "long", "logicalType": "timestamp-micros"}, ts) == \
        datetime.datetime(2020, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)
    e = bad({"type": "long", "logicalType": "local-timestamp-micros"}, dt.replace(tzinfo=UTC))
    assert "naive" in str(e)
    e = bad({"type": "long", "logicalType": "timestamp-nanos"}, datetime.datetime(3000, 1, 1))
    assert "out of range" in str(e)


def test_uuid_fixed_and_duration():
    u = uuid.uuid4()
    assert one({"type": "fixed", "name": "U", "size": 16, "logicalType": "uuid"}, u) == u.bytes
    dur = {"type": "fixed", "name": "Dur", "size": 12, "logicalType": "duration"}
    assert one(dur, (1, 2, 3)) == (1).to_bytes(4, "little") + (2).to_bytes(4, "little") + \
        (3).to_bytes(4, "little")
    assert one(dur, b"\x00" * 12) == b"\x00" * 12
    e = bad(dur, (1, 2, -3))
    assert "duration" in str(e)


@pytest.mark.parametrize("value,scale,precision,expect", [
    ("1.5", 2, 10, b"\x00\x96"),  # 150: 0x96 needs a sign byte
    ("-1.28", 2, 10, b"\x80"),
    ("-1.29", 2, 10, b"\xff\x7f"),
    ("1.27", 2, 10, b"\x7f"),
    ("0", 2, 10, b"\x00"),
    ("0E+10", 0, 1, b"\x00"),
    ("-0.00", 2, 10, b"\x00"),
    ("1E+2", 0, 3, b"\x64"),
    ("1.000", 0, 3, b"\x01"),  # trailing zeros below the scale are not lost digits
    ("99999999999999999999999999999999999999", 0, 38,
     (10**38 - 1).to_bytes(16, "big", signed=True)),
    ("-12345678901234567890.123456789", 9, 38,
     (-12345678901234567890123456789).to_bytes(12, "big", signed=True)),
    ("-1.00000000000000000000000000000000000", 37, 38,
     (-10**37).to_bytes(16, "big", signed=True)),
])
def test_decimal_encoding(value, scale, precision, expect):
    t = {"type": "bytes", "logicalType": "decimal", "precision": precision, "scale": scale}
    s = rec_schema(t)
    data = write_bytes(s, [{"x": decimal.Decimal(value)}])
    # read it raw: the same schema without the logical type
    raw = read_back_raw(data)
    assert raw == expect
    assert roundtrip(s, [{"x": decimal.Decimal(value)}])[0]["x"] == decimal.Decimal(value)


def read_back_raw(data):
    f = io.BytesIO(data)
    r = avro_datafile.DataFileReader(f, avro_io.DatumReader())
    plain = avro_schema_parse(rec_schema("bytes"))  # the same, without the logical type
    r.datum_reader.writers_schema = plain
    r.datum_reader.readers_schema = plain
    (rec,) = list(r)
    return rec["x"]


def avro_schema_parse(s):
    import json

    import avro.schema
    return avro.schema.parse(json.dumps(s))


def test_decimal_errors():
    t = {"type": "bytes", "logicalType": "decimal", "precision": 4, "scale": 2}
    e = bad(t, decimal.Decimal("1.234"))
    assert "lose digits" in str(e) and e.path == "R.fields[0]"
    e = bad(t, decimal.Decimal("123.4"))
    assert "precision" in str(e)
    e = bad(t, decimal.Decimal("NaN"))
    assert "finite" in str(e)
    e = bad(t, decimal.Decimal("Infinity"))
    assert "finite" in str(e)
    e = bad(t, decimal.Decimal("1E+999999999"))
    assert "precision" in str(e)
    fx = {"type": "fixed", "name": "F1", "size": 1, "logicalType": "decimal", "precision": 2, "scale": 0}
    assert one(fx, decimal.Decimal("-99")) == decimal.Decimal("-99")
    e = bad(fx, decimal.Decimal("100"))
    assert "precision" in str(e)
    fx16 = {"type": "fixed", "name": "F16", "size": 16, "logicalType": "decimal", "precision": 38,
            "scale": 10}
    big = decimal.Decimal("-" + "9" * 28 + "." + "9" * 10)
    assert one(fx16, big) == big


# ---- unions ---------------------------------------------------------------------------------


def test_union_branch_choice():
    A = {"type": "record", "name": "A", "fields": [{"name": "a", "type": "int"}]}
    B = {"type": "record", "name": "B", "fields": [{"name": "a", "type": "int"}, {"name": "b", "type": "string"}]}
    E = {"type": "enum", "name": "E", "symbols": ["X", "Y"]}
    F3 = {"type": "fixed", "name": "F3", "size": 3}
    t = ["null", "boolean", "int", "long", "double", "string", "bytes", F3, A, B,
         {"type": "map", "values": "int"}, {"type": "array", "items": "int"}]
    vals = [None, True, 5, 2**40, 1.5, "s", b"by", {"a": 1}, {"a": 1, "b": "x"}, {"q": 3}, [1, 2]]
    assert roundtrip(rec_schema(t), [{"x": v} for v in vals]) == [{"x": v} for v in vals]

    # which branch: read the branch index back through a schema that tells them apart
    def branch(t, v):
        data = write_bytes(rec_schema(t), [{"x": v}])
        f = io.BytesIO(data)
        r = avro_datafile.DataFileReader(f, avro_io.DatumReader())
        (rec,) = list(r)
        return rec["x"]

    assert branch(["long", "int"], 1) == 1
    assert roundtrip(rec_schema(["string", E]), [{"x": "X"}]) == [{"x": "X"}]
    assert roundtrip(rec_schema(["null", E]), [{"x": "Y"}]) == [{"x": "Y"}]
    assert roundtrip(rec_schema(["bytes", F3]), [{"x": b"abc"}]) == [{"x": b"abc"}]
    assert roundtrip(rec_schema(["null", F3]), [{"x": b"abc"}]) == [{"x": b"abc"}]
    # an int beyond 32 bits goes to long; a float to double rather than float
    assert roundtrip(rec_schema(["int", "long"]), [{"x": 2**33}]) == [{"x": 2**33}]
    assert roundtrip(rec_schema(["float", "double"]), [{"x": 0.1}]) == [{"x": 0.1}]
    # an int with no int or long branch goes to a double
    assert roundtrip(rec_schema(["null", "double"]), [{"x": 3}]) == [{"x": 3.0}]
    # numpy values: scalars by their kind, arrays to the array branch
    t2 = ["null", "double", "long", {"type": "array", "items": "long"}]
    got = roundtrip(rec_schema(t2), [{"x": np.float32(0.5)}, {"x": np.int64(7)},
                                     {"x": np.array([1, 2])}, {"x": np.bool_(True)} if False else {"x": None}])
    assert [g["x"] for g in got] == [0.5, 7, [1, 2], None]


def test_union_record_choice_by_fields():
    A = {"type": "record", "name": "A", "fields": [{"name": "a", "type": "int"}]}
    B = {"type": "record", "name": "B", "fields": [{"name": "a", "type": "int"},
                                                   {"name": "b", "type": "int"}]}
    C_ = {"type": "record", "name": "Cc", "fields": [{"name": "c", "type": "int", "default": 0}]}
    s = {"type": "record", "name": "R", "fields": [{"name": "x", "type": [A, B, C_]}]}
    # exact key match wins over the first record whose required fields are present
    buf = write_bytes(s, [{"x": {"a": 1, "b": 2}}, {"x": {"a": 1}}, {"x": {"c": 9}}, {"x": {}}])
    r = avro_datafile.DataFileReader(io.BytesIO(buf), avro_io.DatumReader())
    got = list(r)
    assert got == [{"x": {"a": 1, "b": 2}}, {"x": {"a": 1}}, {"x": {"c": 9}}, {"x": {"c": 0}}]


def test_union_explicit_branch_tuple():
    A = {"type": "record", "name": "ns.A", "fields": [{"name": "v", "type": "long"}]}
    t = ["null", "int", "long", {"type": "map", "values": "long"}, A]
    # ("long", 1) writes branch long though 1 fits int: readable by its different schema
    data = write_bytes(rec_schema(t), [{"x": ("long", 1)}, {"x": ("ns.A", {"v": 2})},
                                       {"x": ("A", {"v": 3})}, {"x": ("map", {"v": 4})}])
    assert read_back(data) == [{"x": 1}, {"x": {"v": 2}}, {"x": {"v": 3}}, {"x": {"v": 4}}]
    # the long branch really was chosen: read with a reader schema without int
    reader = avro_schema_parse(rec_schema(["null", "long", {"type": "map", "values": "long"}, A]))
    r = avro_datafile.DataFileReader(io.BytesIO(data), avro_io.DatumReader(readers_schema=reader))
    assert list(r)[0] == {"x": 1}


def test_union_logical_branches():
    t = ["null", {"type": "int", "logicalType": "date"},
         {"type": "long", "logicalType": "timestamp-micros"},
         {"type": "bytes", "logicalType": "decimal", "precision": 5, "scale": 1},
         {"type": "string", "logicalType": "uuid"}]
    u = uuid.uuid4()
    vals = [datetime.date(2000, 1, 1), datetime.datetime(2000, 1, 1, tzinfo=UTC),
            decimal.Decimal("12.5"), u, None]
    got = roundtrip(rec_schema(t), [{"x": v} for v in vals])
    assert [g["x"] for g in got] == [vals[0], vals[1], vals[2], str(u), None]
    # a time goes to the time branch, a naive datetime to a timestamp one
    t = ["null", {"type": "long", "logicalType": "time-micros"}]
    assert one(t, datetime.time(1, 2, 3)) == datetime.time(1, 2, 3)
    t = ["null", {"type": "long", "logicalType": "timestamp-millis"}]
    assert one(t, datetime.datetime(2000, 1, 1)) == datetime.datetime(2000, 1, 1, tzinfo=UTC)


def test_union_errors():
    e = bad(["null", "int", "string"], 1.5)
    assert "no branch" in str(e) and "[null, int, string]" in str(e)
    assert e.path == "R.fields[0]"
    e = bad(["null", {"type": "record", "name": "A", "fields": [{"name": "a", "type": "int"}]}],
            {"b": 1})
    # one branch besides null: its own error, with the branch in the path
    assert e.path == "R.fields[0].branch[1].fields[0]"
    assert "'a'" in str(e) and "missing" in str(e)
    e = bad(["null", "int"], True)  # bool is not an int
    assert "bool" in str(e)
    e = bad(["int", "string"], None)
    assert "no branch" in str(e)


# ---- errors ---------------------------------------------------------------------------------


PERSON = {"type": "record", "name": "Person", "fields": [
    {"name": "name", "type": "string"},
    {"name": "tags", "type": {"type": "array", "items": "string"}},
    {"name": "age", "type": "int"},
    {"name": "color", "type": {"type": "enum", "name": "Color", "symbols": ["RED", "GREEN"]}},
    {"name": "extra", "type": {"type": "map", "values": ["null", "long"]}, "default": {}},
]}


def person(**kw):
    p = {"name": "n", "tags": [], "age": 1, "color": "RED"}
    p.update(kw)
    return p


@pytest.mark.parametrize("rec,path,words", [
    (person(age="x"), "Person.fields[2]", ["Person.age", "expected int", "str 'x'"]),
    (person(age=2**31), "Person.fields[2]", ["out of range", "2147483648"]),
    (person(age=1.0), "Person.fields[2]", ["expected int", "float"]),
    (person(age=True), "Person.fields[2]", ["expected int", "bool"]),
    (person(color="BLUE"), "Person.fields[3]", ["no symbol 'BLUE'", "RED, GREEN"]),
    (person(color=1), "Person.fields[3]", ["enum"]),
    (person(tags=["a", 2]), "Person.fields[1].items[1]", ["Person.tags[1]", "expected str"]),
    (person(tags="abc"), "Person.fields[1]", ["list"]),
    (person(name=b"bytes"), "Person.fields[0]", ["expected str"]),
    (person(name="\udc80"), "Person.fields[0]", ["surrogate"]),
    ({"tags": [], "age": 1, "color": "RED"}, "Person.fields[0]", ["'name'", "missing"]),
    (person(extra={"k": "v"}), "Person.fields[4].values[0].branch[1]", ['Person.extra["k"]']),
    (person(extra={1: 2}), "Person.fields[4].keys[0]", ["str map keys"]),
    ([1, 2], "Person", ["dict for record Person"]),
])
def test_errors_have_status_path_and_message(rec, path, words):
    w = C.Writer(io.BytesIO(), PERSON)
    e = avro_error(w.write, rec)
    assert e.path == path, str(e)
    for word in words:
        assert word in str(e), (word, str(e))
    # the writer goes on after a refused record
    w.write(person())
    w.close()


def test_fixed_size_and_bytes_type_errors():
    e = bad({"type": "fixed", "name": "F", "size": 4}, b"abc")
    assert "exactly 4 bytes" in str(e)
    e = bad("bytes", "str")
    assert "expected bytes" in str(e)
    e = bad("null", 0)
    assert "None" in str(e)
    e = bad("boolean", 1)
    assert "bool" in str(e)
    e = bad("long", np.array([1]))  # an array is not a number, even of one item
    assert "expected int" in str(e)
    e = bad("double", np.array([1.0]))
    assert "expected float" in str(e)
    e = bad({"type": "int", "logicalType": "date"}, datetime.datetime(2020, 1, 1))
    assert "date" in str(e)


def test_python_exceptions_pass_through():
    class Boom:
        def __index__(self):
            raise ZeroDivisionError("boom")

    w = C.Writer(io.BytesIO(), rec_schema("long"))
    with pytest.raises(ZeroDivisionError):
        w.write({"x": Boom()})

    def gen():
        yield 1
        raise KeyError("gen")

    with pytest.raises(KeyError):
        w.write({"x": 1, "y": 2}) or w.write_many(({"x": i} for i in gen()))
    w.close()


# ---- codecs ---------------------------------------------------------------------------------


def python_avro_codecs():
    import avro.codecs
    names = ["null", "deflate", "bzip2"]
    if getattr(avro.codecs, "has_snappy", False):
        names.append("snappy")
    if getattr(avro.codecs, "has_zstandard", False):
        names.append("zstandard")
    return names


@pytest.mark.parametrize("codec", python_avro_codecs())
def test_codecs_read_by_python_avro(codec, tmp_path):
    schema = {"type": "record", "name": "C", "fields": [
        {"name": "i", "type": "long"}, {"name": "s", "type": "string"},
        {"name": "a", "type": {"type": "array", "items": "double"}}]}
    recs = [{"i": i, "s": "row %d " % i * (i % 5), "a": [i / 3.0] * (i % 7)} for i in range(5000)]
    p = tmp_path / ("c_%s.avro" % codec)
    with C.Writer(str(p), schema, codec=codec, sync_interval=4096) as w:
        assert w.write_many(recs) == len(recs)
    assert read_back(p) == recs
    with open(p, "rb") as f:
        r = avro_datafile.DataFileReader(f, avro_io.DatumReader())
        assert r.meta.get("avro.codec", b"null").decode() == codec
        r.close()


@pytest.mark.parametrize("codec,level", [("deflate", 1), ("deflate", 12), ("zstandard", 19), ("bzip2", 1)])
def test_codec_levels(codec, level):
    recs = [{"x": "abc" * i} for i in range(100)]
    assert roundtrip(rec_schema("string"), recs, codec=codec, level=level) == recs


def test_xz_codec_written():
    # python3-avro cannot read xz; check the header and, if the package's reader is there, the records
    data = write_bytes(rec_schema("int"), [{"x": i} for i in range(10)], codec="xz")
    assert data[:4] == b"Obj\x01" and b"avro.codec" in data and b"xz" in data
    reader = getattr(C, "Reader", None)
    if reader is not None:
        try:
            got = list(reader(io.BytesIO(data)))
        except Exception:  # pragma: no cover - the reader is another file's business
            return
        assert got == [{"x": i} for i in range(10)]


def test_bad_codec_and_options():
    with pytest.raises(C.AvroError) as ei:
        C.Writer(io.BytesIO(), rec_schema("int"), codec="lz4")
    assert ei.value.status == "CODEC"
    with pytest.raises(C.AvroError) as ei:
        C.Writer(io.BytesIO(), rec_schema("int"), codec="deflate", level=99)
    assert ei.value.status == "INVALID_ARGUMENT"
    with pytest.raises(C.AvroError):
        C.Writer(io.BytesIO(), rec_schema("int"), sync_interval=0)
    with pytest.raises(TypeError):
        C.Writer(io.BytesIO(), rec_schema("int"), metadata={"k": 1})
    with pytest.raises(C.AvroError) as ei:
        C.Writer(io.BytesIO(), rec_schema("int"), metadata={"avro.codec": b"x"})
    assert ei.value.status == "INVALID_ARGUMENT"
    with pytest.raises(C.AvroError) as ei:
        C.Writer(io.BytesIO(), {"type": "record", "name": "1bad", "fields": []})
    assert ei.value.status == "SCHEMA"


# ---- the writer object ----------------------------------------------------------------------


def test_metadata_sync_schema_and_closed():
    buf = io.BytesIO()
    s = rec_schema("int")
    w = C.Writer(buf, s, metadata={"user.text": "h\u00e9", "user.bin": b"\x00\xff"})
    assert isinstance(w.sync, bytes) and len(w.sync) == 16
    assert w.schema == s
    assert not w.closed
    w.write({"x": 1})
    w.close()
    assert w.closed
    w.close()  # twice is harmless
    with pytest.raises(ValueError):
        w.write({"x": 2})
    data = buf.getvalue()
    r = avro_datafile.DataFileReader(io.BytesIO(data), avro_io.DatumReader())
    assert r.meta["user.text"] == "h\u00e9".encode() and r.meta["user.bin"] == b"\x00\xff"
    assert r.sync_marker == w.sync
    assert list(r) == [{"x": 1}]


def test_flush_writes_a_block():
    buf = io.BytesIO()
    w = C.Writer(buf, rec_schema("int"))
    w.write({"x": 1})
    before = len(buf.getvalue())
    w.flush()
    after = len(buf.getvalue())
    assert after > before
    assert read_back(buf.getvalue()) == [{"x": 1}]
    w.write({"x": 2})
    w.close()
    assert read_back(buf.getvalue()) == [{"x": 1}, {"x": 2}]


def test_file_object_destination_write_failure_reraises():
    class Flaky(io.RawIOBase):
        def __init__(self):
            self.n = 0
            self.data = bytearray()

        def writable(self):
            return True

        def write(self, b):
            self.n += 1
            raise OSError(28, "disk full")
            self.data += b
            return len(b)

    f = Flaky()
    w = C.Writer(f, rec_schema("string"), sync_interval=64)
    for i in range(100):
        w.write({"x": "y" * 50})  # blocks wait in the writer's buffer
    with pytest.raises(OSError) as ei:
        w.flush()
    assert "disk full" in str(ei.value)  # the file object's own exception
    # the writer is broken now: close reports it as an I/O error, and is closed
    with pytest.raises((OSError, C.AvroError)) as ei:
        w.close()
    if isinstance(ei.value, C.AvroError):
        assert ei.value.status == "IO"
    assert w.closed


def test_short_writes_are_completed():
    class Short(io.RawIOBase):
        def __init__(self):
            self.data = bytearray()

        def writable(self):
            return True

        def write(self, b):
            b = bytes(b)[:7]
            self.data += b
            return len(b)

    f = Short()
    with C.Writer(f, rec_schema("int")) as w:
        w.write_many({"x": i} for i in range(100))
    assert read_back(bytes(f.data)) == [{"x": i} for i in range(100)]


def test_path_destination_and_pathlike(tmp_path):
    p = tmp_path / "out.avro"
    with C.Writer(p, rec_schema("int")) as w:
        w.write({"x": 1})
        assert not p.exists()  # written beside it, renamed at close
    assert read_back(p) == [{"x": 1}]
    with C.Writer(os.fsencode(str(p)), rec_schema("int")) as w:
        w.write({"x": 2})
    assert read_back(p) == [{"x": 2}]
    assert sorted(os.listdir(tmp_path)) == ["out.avro"]
    mode = os.stat(p).st_mode & 0o777
    umask = os.umask(0)
    os.umask(umask)
    assert mode == 0o666 & ~umask


def test_failed_write_leaves_existing_file_unchanged(tmp_path):
    p = tmp_path / "keep.avro"
    original = b"precious bytes, not avro at all\n" * 10
    p.write_bytes(original)
    # an exception inside the with block
    with pytest.raises(C.AvroError):
        with C.Writer(str(p), PERSON) as w:
            w.write(person())
            w.write(person(age="not an int"))
    assert p.read_bytes() == original
    # an exception of the user's own
    with pytest.raises(RuntimeError):
        with C.Writer(str(p), PERSON) as w:
            w.write_many([person()] * 10000)
            raise RuntimeError("stop")
    assert p.read_bytes() == original
    # a writer dropped without close
    w = C.Writer(str(p), PERSON)
    w.write(person())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        del w
    assert p.read_bytes() == original
    # a bad schema or option: nothing is even started
    with pytest.raises(C.AvroError):
        C.Writer(str(p), PERSON, codec="nope")
    assert p.read_bytes() == original
    assert sorted(os.listdir(tmp_path)) == ["keep.avro"]  # no temporary file left behind


def test_unwritable_directory(tmp_path):
    with pytest.raises(OSError):
        C.Writer(str(tmp_path / "no" / "such" / "dir.avro"), rec_schema("int"))


def test_threads_share_a_writer(tmp_path):
    p = tmp_path / "t.avro"
    schema = {"type": "record", "name": "T", "fields": [
        {"name": "t", "type": "int"}, {"name": "i", "type": "int"},
        {"name": "s", "type": "string"}]}
    w = C.Writer(str(p), schema, codec="deflate", sync_interval=2048)

    def work(t):
        for i in range(2000):
            w.write({"t": t, "i": i, "s": "x" * (i % 30)})

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    w.close()
    got = read_back(p)
    assert len(got) == 8000
    for t in range(4):
        assert [r["i"] for r in got if r["t"] == t] == list(range(2000))


def test_reentrant_write_is_refused():
    holder = {}

    class Evil(io.RawIOBase):
        def writable(self):
            return True

        def write(self, b):
            if "w" in holder:
                holder["w"].write({"x": 1})
            return len(b)

    w = C.Writer(Evil(), rec_schema("int"))
    holder["w"] = w
    w.write({"x": 1})
    with pytest.raises(RuntimeError):
        w.flush()
    holder.clear()


def test_many_records():
    buf = io.BytesIO()
    with C.Writer(buf, PERSON) as w:
        n = w.write_many(person(name="n%d" % i, tags=["t"] * (i % 10)) for i in range(20000))
    assert n == 20000
    assert len(read_back(buf.getvalue())) == 20000


def test_write_many_error_names_the_record():
    w = C.Writer(io.BytesIO(), rec_schema("int"))
    with pytest.raises(C.AvroError) as ei:
        w.write_many([{"x": 1}, {"x": 2}, {"x": "three"}])
    assert any("record 2" in n for n in getattr(ei.value, "__notes__", []))
    w.close()


# ---- write_columns --------------------------------------------------------------------------


needs_columns = pytest.mark.skipif(write_columns is None, reason="the avrokit package is not importable")

COLS = {"type": "record", "name": "Cols", "fields": [
    {"name": "i", "type": "int"},
    {"name": "l", "type": ["null", "long"]},
    {"name": "f", "type": ["null", "double"]},
    {"name": "d", "type": "double"},
    {"name": "b", "type": "boolean"},
    {"name": "s", "type": ["null", "string"]},
    {"name": "ts", "type": ["null", {"type": "long", "logicalType": "timestamp-micros"}]},
]}


@needs_columns
def test_write_columns_numpy_dict():
    data = {
        "i": np.array([1, 2, 3], dtype=np.int32),
        "l": np.array([10, 20, 30], dtype=np.int64),
        "f": np.array([1.5, np.nan, 3.5]),
        "d": np.array([np.nan, 0.5, 1.0]),  # not nullable: NaN stays a float
        "b": np.array([True, False, True]),
        "s": ["a", None, "c"],
        "ts": np.array(["2020-01-01T00:00:00.000001", "NaT", "1960-01-01"], dtype="datetime64[us]"),
    }
    buf = io.BytesIO()
    w = C.Writer(buf, COLS)
    assert write_columns(w, data) == 3
    w.close()
    got = read_back(buf.getvalue())
    assert [r["i"] for r in got] == [1, 2, 3]
    assert [r["l"] for r in got] == [10, 20, 30]
    assert [r["f"] for r in got] == [1.5, None, 3.5]
    assert math.isnan(got[0]["d"]) and got[1]["d"] == 0.5
    assert [r["b"] for r in got] == [True, False, True]
    assert [r["s"] for r in got] == ["a", None, "c"]
    assert got[0]["ts"] == datetime.datetime(2020, 1, 1, 0, 0, 0, 1, tzinfo=UTC)
    assert got[1]["ts"] is None
    assert got[2]["ts"] == datetime.datetime(1960, 1, 1, tzinfo=UTC)


@needs_columns
def test_write_columns_dataframe_with_missing_values():
    df = pd.DataFrame({
        "i": pd.Series([1, 2, 3], dtype="int64"),
        "l": pd.Series([1, None, 3], dtype="Int64"),  # pd.NA
        "f": [0.5, float("nan"), None],
        "d": [1.0, 2.0, 3.0],
        "b": [True, False, True],
        "s": pd.Series(["x", None, pd.NA], dtype="object"),
        "ts": pd.to_datetime(["2021-05-06 07:08:09.123456", None, "1999-12-31"], utc=True),
    })
    buf = io.BytesIO()
    w = C.Writer(buf, COLS)
    assert write_columns(w, df) == 3
    w.close()
    got = read_back(buf.getvalue())
    assert got[0] == {"i": 1, "l": 1, "f": 0.5, "d": 1.0, "b": True, "s": "x",
                      "ts": datetime.datetime(2021, 5, 6, 7, 8, 9, 123456, tzinfo=UTC)}
    assert got[1] == {"i": 2, "l": None, "f": None, "d": 2.0, "b": False, "s": None, "ts": None}
    assert got[2]["f"] is None and got[2]["s"] is None and got[2]["l"] == 3
    assert got[2]["ts"] == datetime.datetime(1999, 12, 31, tzinfo=UTC)


@needs_columns
def test_write_columns_through_the_package(tmp_path):
    import avrokit
    p = tmp_path / "cols.avro"
    with avrokit.writer(str(p), COLS) as w:
        n = w.write_columns({"i": np.array([1, 2]), "l": [None, 5], "f": [np.nan, 1.0],
                             "d": [0.0, 1.0], "b": [False, True], "s": ["a", "b"], "ts": [None, None]})
    assert n == 2
    assert [r["l"] for r in read_back(p)] == [None, 5]
    assert [r["f"] for r in read_back(p)] == [None, 1.0]


@needs_columns
def test_write_columns_errors():
    w = C.Writer(io.BytesIO(), COLS)
    with pytest.raises(ValueError):
        write_columns(w, {"i": [1, 2], "d": [1.0]})
    with pytest.raises(TypeError):
        write_columns(w, [1, 2])
    with pytest.raises(C.AvroError) as ei:
        write_columns(w, {"i": [1], "d": [1.0], "b": [True]})  # l, f, s, ts have no defaults
    assert ei.value.status == "INVALID_ARGUMENT"
    w.close()
