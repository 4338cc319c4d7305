"""avrokit.reader against the interop data's expected records, logical types, ranges, threads and hostile input."""
import datetime
import decimal
import io
import random
import threading
import uuid

import pytest

import avrokit
from conftest import interop_files
from expected import load, same

FILES = [f for f in interop_files() if not f.startswith("expected/")]


def read_all(path, **kw):
    """(records, error) of a whole read: the records before an error, and the error."""
    out = []
    try:
        with avrokit.reader(path, **kw) as r:
            for rec in r:
                out.append(rec)
    except avrokit.AvroError as e:
        return out, e
    return out, None


@pytest.mark.parametrize("rel", FILES)
def test_interop_file(apache, rel):
    with avrokit.reader(str(apache / rel)) as r:
        schema = r.schema
    records, status = load(apache, rel, schema)
    got, err = read_all(str(apache / rel), raw=True)
    assert same(got, records)
    if status is None:
        assert err is None, str(err)
    else:
        assert err is not None and err.status == status, err
        assert err.block is not None and err.offset is not None


@pytest.mark.parametrize("rel", FILES[:6])
def test_file_object_same_as_path(apache, rel):
    a, ea = read_all(str(apache / rel), raw=True)
    with open(apache / rel, "rb") as f:
        b, eb = read_all(f, raw=True)
    assert same(a, b)
    assert (ea is None) == (eb is None)


def test_header_properties(apache):
    with avrokit.reader(str(apache / "share/test/data/weather-deflate.avro")) as r:
        assert r.codec == "deflate"
        assert len(r.sync) == 16
        assert r.schema["name"].endswith("Weather")
        assert r.metadata["avro.codec"] == b"deflate"


def write(tmp_path, schema, records, codec="null", name="t.avro"):
    path = tmp_path / name
    with avrokit.writer(str(path), schema, codec=codec) as w:
        for rec in records:
            w.write(rec)
    return str(path)


LOGICAL = {
    "type": "record", "name": "L", "fields": [
        {"name": "d", "type": {"type": "int", "logicalType": "date"}},
        {"name": "tm", "type": {"type": "int", "logicalType": "time-millis"}},
        {"name": "tu", "type": {"type": "long", "logicalType": "time-micros"}},
        {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "tsu", "type": {"type": "long", "logicalType": "timestamp-micros"}},
        {"name": "lts", "type": {"type": "long", "logicalType": "local-timestamp-micros"}},
        {"name": "dec", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}},
        {"name": "u", "type": {"type": "string", "logicalType": "uuid"}},
    ]}


def test_logical_types(tmp_path):
    rec = {"d": 19000, "tm": 3723004, "tu": 3723000005, "ts": 1700000000123,
           "tsu": -1, "lts": 1700000000123456, "dec": (-12345).to_bytes(3, "big", signed=True),
           "u": "12345678-1234-5678-1234-567812345678"}
    path = write(tmp_path, LOGICAL, [rec])
    (got,), err = read_all(path)
    assert err is None
    assert got["d"] == datetime.date(2022, 1, 8)
    assert got["tm"] == datetime.time(1, 2, 3, 4000)
    assert got["tu"] == datetime.time(1, 2, 3, 5)
    assert got["ts"] == datetime.datetime(2023, 11, 14, 22, 13, 20, 123000, tzinfo=datetime.timezone.utc)
    assert got["tsu"] == datetime.datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=datetime.timezone.utc)
    assert got["lts"] == datetime.datetime(2023, 11, 14, 22, 13, 20, 123456)
    assert got["dec"] == decimal.Decimal("-123.45")
    assert got["u"] == uuid.UUID("12345678-1234-5678-1234-567812345678")
    (raw,), _ = read_all(path, raw=True)
    assert raw == rec


def test_dates_out_of_range_stay_ints(tmp_path):
    schema = {"type": "record", "name": "D", "fields": [
        {"name": "d", "type": {"type": "int", "logicalType": "date"}}]}
    path = write(tmp_path, schema, [{"d": 2**31 - 1}, {"d": -(2**31)}])
    got, err = read_all(path)
    assert err is None and [r["d"] for r in got] == [2**31 - 1, -(2**31)]


def test_reader_schema_resolution(tmp_path):
    w = {"type": "record", "name": "P", "fields": [
        {"name": "a", "type": "int"}, {"name": "gone", "type": "string"}]}
    r = {"type": "record", "name": "P", "fields": [
        {"name": "a", "type": "long"}, {"name": "new", "type": "string", "default": "x"}]}
    path = write(tmp_path, w, [{"a": 1, "gone": "g"}, {"a": -7, "gone": "h"}])
    got, err = read_all(path, reader_schema=r)
    assert err is None and got == [{"a": 1, "new": "x"}, {"a": -7, "new": "x"}]
    with pytest.raises(avrokit.AvroError) as e:
        avrokit.reader(path, reader_schema={"type": "record", "name": "P", "fields": [
            {"name": "z", "type": "int"}]})
    assert e.value.status == "RESOLUTION"


SIMPLE = {"type": "record", "name": "S", "fields": [
    {"name": "i", "type": "long"}, {"name": "s", "type": "string"}]}


def many_blocks(tmp_path, n=5000, codec="deflate"):
    path = tmp_path / ("many-%s.avro" % codec)
    with avrokit.writer(str(path), SIMPLE, codec=codec, sync_interval=2000) as w:
        for i in range(n):
            w.write({"i": i, "s": "x" * (i % 50)})
    return str(path)


def test_ranges_cover_each_record_once(tmp_path):
    path = many_blocks(tmp_path)
    size = len(open(path, "rb").read())
    for step in (1, 100, 777, size // 3, size, size * 2):
        seen = []
        for start in range(0, size, step):
            seen += [r["i"] for r in avrokit.reader(path, start=start, end=start + step)]
        assert seen == list(range(5000)), step


def test_threads_share_a_reader(tmp_path):
    path = many_blocks(tmp_path)
    r = avrokit.reader(path)
    got = []
    lock = threading.Lock()

    def work():
        for rec in r:
            with lock:
                got.append(rec["i"])

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(got) == list(range(5000))


def test_hostile_bytes_raise(tmp_path):
    """Damaged copies of a valid file: AvroError or records, never a crash."""
    good = open(many_blocks(tmp_path, 300), "rb").read()
    rng = random.Random(7)
    for trial in range(300):
        data = bytearray(good)
        for _ in range(rng.randrange(1, 8)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        if trial % 5 == 0:
            data = data[:rng.randrange(len(data))]
        try:
            for _ in avrokit.reader(io.BytesIO(bytes(data))):
                pass
        except avrokit.AvroError as e:
            assert e.status in ("MALFORMED", "TRUNCATED", "SYNC", "CODEC", "LIMIT", "CHECKSUM",
                                "SCHEMA")
        except UnicodeDecodeError:
            pass  # a damaged string that is not UTF-8


def test_not_a_file(tmp_path):
    p = tmp_path / "x.avro"
    p.write_bytes(b"not avro at all")
    with pytest.raises(avrokit.AvroError) as e:
        avrokit.reader(str(p))
    assert e.value.status in ("MALFORMED", "TRUNCATED")
    with pytest.raises(avrokit.AvroError) as e:
        avrokit.reader(str(tmp_path / "missing.avro"))
    assert e.value.status == "IO"


def test_dask_is_optional():
    """import avrokit needs no dask; import avrokit.dask without it says what to install."""
    import subprocess
    import sys

    code = "\n".join([
        "import sys",
        "class NoDask:",
        "    def find_spec(self, name, path=None, target=None):",
        "        if name == 'dask' or name.startswith('dask.'):",
        "            raise ModuleNotFoundError('No module named %r' % name, name=name)",
        "sys.meta_path.insert(0, NoDask())",
        "import avrokit",
        "print(avrokit.version())",
        "try:",
        "    import avrokit.dask",
        "except ImportError as e:",
        "    print('ImportError:', e)",
    ])
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.splitlines()[0] == avrokit.version()
    assert "ImportError: avrokit.dask needs dask" in out
    assert "apt-get install python3-dask python3-distributed" in out
