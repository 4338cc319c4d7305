"""avrokit.dask on a real distributed.LocalCluster of 2 worker processes: ranges read every record once, writes read back equal, errors reach the client."""
import os
import pickle
import time

import numpy as np
import pytest

try:
    import dask.dataframe as dd
    import distributed
    import pandas as pd
    from dask.dataframe.optimize import optimize_dataframe_getitem
except ImportError as e:  # pragma: no cover
    pytest.skip("dask and distributed are not importable (%s): apt-get install python3-dask "
                "python3-distributed" % e, allow_module_level=True)

import avrokit
import avrokit.dask as ad

# distributed 2022.12's tornado loop on Python 3.11; the README's cluster asks for the
# dashboard's port, which another cluster on the machine may hold
pytestmark = [pytest.mark.filterwarnings("ignore:make_current is deprecated:DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:Port 8787 is already in use")]

# Every compute that should end has this long: a hang fails the test instead of the run.
TIMEOUT = 60

SCHEMA = {"type": "record", "name": "Event", "fields": [
    {"name": "id", "type": "long"},
    {"name": "tier", "type": {"type": "enum", "name": "Tier", "symbols": ["BASIC", "SILVER", "GOLD"]}},
    {"name": "name", "type": "string"},
    {"name": "v", "type": "double"},
    {"name": "n", "type": ["null", "int"], "default": None},
    {"name": "ok", "type": ["null", "boolean"], "default": None},
    {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
    {"name": "where", "type": ["null", {"type": "record", "name": "Place", "fields": [
        {"name": "x", "type": "int"}, {"name": "city", "type": "string"}]}], "default": None},
]}
CODECS = ["null", "deflate", "zstandard"]
ROWS = 1500


def event(k, i):
    # the nulls come in runs, so some ranges hold none and others only nulls
    return {"id": k * 100000 + i, "tier": ["BASIC", "SILVER", "GOLD"][(i * 7 + k) % 3],
            "name": "n%d" % (i % 13), "v": (i % 101) / 4, "n": None if (i // 200) % 3 == 1 else i,
            "ok": None if i % 400 < 150 else i % 2 == 0, "at": 1_700_000_000_000 + i * 1000,
            "where": None if (i // 300) % 2 else {"x": i, "city": "c%d" % (i % 5)}}


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
    c = distributed.Client(cluster)
    try:
        yield c
    finally:
        c.close()
        cluster.close()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("dask")
    out = []
    for k, codec in enumerate(CODECS):
        path = d / ("events-%d.avro" % k)
        with avrokit.writer(str(path), SCHEMA, codec=codec, sync_interval=700) as w:
            w.write_many(event(k, i) for i in range(ROWS))
        out.append(str(path))
    return out


@pytest.fixture(scope="module")
def expected(files):
    """The single-process read: to_pandas of each file, one after the other."""
    return pd.concat([avrokit.to_pandas(f) for f in files], ignore_index=True)


def blocks(path):
    """The offsets of the file's blocks (their sync markers' ends)."""
    out = []
    fr = avrokit.reader(path)
    sync = fr.sync
    data = open(path, "rb").read()
    at = data.find(sync)
    while at >= 0:
        out.append(at + 16)
        at = data.find(sync, at + 16)
    return out


def run(client, collection):
    """Computes on the cluster, failing after TIMEOUT seconds rather than hanging."""
    if isinstance(collection, list):
        futures = client.compute(collection)
        distributed.wait(futures, timeout=TIMEOUT)
        return client.gather(futures)
    return client.compute(collection).result(timeout=TIMEOUT)


def test_files_have_many_blocks(files):
    for f in files:
        assert len(blocks(f)) > 20


@pytest.mark.parametrize("blocksize", [100, 300, "third", "1MiB", None])
def test_read_every_record_once(client, files, expected, blocksize):
    size = os.path.getsize(files[0])
    assert all(300 < size // len(blocks(f)) < 2000 for f in files)  # 300 is below a block
    if blocksize == "third":
        blocksize = size // 3 + 1
    ddf = ad.read_avro(os.path.join(os.path.dirname(files[0]), "events-*.avro"), blocksize=blocksize)
    if blocksize in (None, "1MiB"):
        assert ddf.npartitions == 3
    else:
        assert ddf.npartitions == sum(-(-os.path.getsize(f) // blocksize) for f in files)
    # one graph: the frame and the aggregates, against the single-process frame
    got, count, vsum, nsum, by, cities = run(client, [
        ddf, ddf["id"].count(), ddf["v"].sum(), ddf["n"].sum(),
        ddf.groupby("tier", observed=True)["v"].sum(), ddf.groupby("where.city")["id"].count()])
    got = got.reset_index(drop=True)
    assert sorted(got["id"]) == sorted(expected["id"])
    pd.testing.assert_frame_equal(got, expected)
    assert count == len(expected) == 3 * ROWS
    assert vsum == pytest.approx(expected["v"].sum()) and nsum == expected["n"].sum()
    want = expected.groupby("tier", observed=True)["v"].sum()
    pd.testing.assert_series_equal(by.sort_index(), want.sort_index())
    assert cities.sort_index().to_dict() == expected.groupby("where.city")["id"].count().to_dict()


def test_blocksize_one_byte(client, tmp_path):
    path = tmp_path / "tiny.avro"
    with avrokit.writer(str(path), SCHEMA, codec="deflate", sync_interval=100) as w:
        w.write_many(event(0, i) for i in range(16))
    assert len(blocks(str(path))) >= 4
    size = path.stat().st_size
    ddf = ad.read_avro(str(path), blocksize=1)
    assert ddf.npartitions == size
    got = run(client, ddf).reset_index(drop=True)
    pd.testing.assert_frame_equal(got, avrokit.to_pandas(str(path)))
    bag = ad.read_avro_bag(str(path), blocksize=1)
    assert run(client, bag) == list(avrokit.reader(str(path)))


def test_empty_partitions_keep_dtypes(client, files):
    ddf = ad.read_avro(files[1], blocksize=250)  # below a block: most ranges hold none
    frames = run(client, ddf.to_delayed())
    empty = [f for f in frames if len(f) == 0]
    full = [f for f in frames if len(f)]
    assert empty and full
    for f in frames:
        assert list(f.columns) == list(ddf.columns)
        assert list(f.dtypes) == list(ddf.dtypes), f.dtypes
        assert list(f["tier"].cat.categories) == ["BASIC", "SILVER", "GOLD"]
    assert str(ddf.dtypes["n"]) == "Int32" and str(ddf.dtypes["ok"]) == "boolean"
    assert str(ddf.dtypes["where.x"]) == "Int32"  # inside ["null", record]
    assert str(ddf.dtypes["at"]).endswith("UTC]")


def test_columns_projection_and_options(client, files, expected):
    ddf = ad.read_avro(files, blocksize="8KiB", columns=["id", "where.city", "tier"])
    assert list(ddf.columns) == ["id", "where.city", "tier"]
    got = run(client, ddf).reset_index(drop=True)
    pd.testing.assert_frame_equal(got, expected[["id", "where.city", "tier"]])
    # a selection after the read reaches the read (dask's column projection)
    full = ad.read_avro(files, blocksize="8KiB")
    sel = full[["v", "id"]]
    graph = optimize_dataframe_getitem(sel.__dask_graph__(), keys=sel.__dask_keys__())
    io = [layer for layer in graph.layers.values() if hasattr(layer, "io_func")]
    assert len(io) == 1 and sorted(io[0].io_func.columns) == ["id", "v"]
    pd.testing.assert_frame_equal(run(client, sel).reset_index(drop=True), expected[["v", "id"]])
    # the file each record came from
    with_path = ad.read_avro(files, blocksize="8KiB", include_path_column=True)
    counts = run(client, with_path.groupby("path", observed=True)["id"].count())
    assert counts.to_dict() == {f: ROWS for f in files}
    only_path = run(client, with_path[["path"]])
    assert len(only_path) == 3 * ROWS
    # a reader's schema: fields dropped, int promoted to long
    reader = {"type": "record", "name": "Event", "fields": [
        {"name": "id", "type": "long"}, {"name": "n", "type": ["null", "long"], "default": None},
        {"name": "extra", "type": "string", "default": "x"}]}
    rs = ad.read_avro(files, blocksize="8KiB", reader_schema=reader)
    assert list(rs.columns) == ["id", "n", "extra"] and str(rs.dtypes["n"]) == "Int64"
    got = run(client, rs)
    assert got["n"].sum() == expected["n"].sum() and set(got["extra"]) == {"x"}


def test_bag_equals_reader(client, files):
    third = os.path.getsize(files[0]) // 3
    bag = ad.read_avro_bag(files, blocksize=third)
    assert bag.npartitions == sum(-(-os.path.getsize(f) // third) for f in files) >= 7
    want = [rec for f in files for rec in avrokit.reader(f)]
    assert run(client, bag) == want
    assert run(client, bag.pluck("v").sum()) == pytest.approx(sum(r["v"] for r in want))


FRAME_ROWS = 600


def frame():
    n = FRAME_ROWS
    i = np.arange(n)
    return pd.DataFrame({
        "i64": i.astype(np.int64) * 10**10, "i32": i.astype(np.int32) - 300,
        "f64": i / 7, "f32": (i / 3).astype(np.float32), "flag": i % 3 == 0,
        "s": ["s%d" % k if k % 9 else None for k in i],
        "raw": [bytes([k % 256]) * (k % 4) for k in i],
        "maybe": pd.array([None if k % 5 == 0 else k for k in i], dtype="Int64"),
        "yes": pd.array([None if k % 4 == 0 else k % 2 == 0 for k in i], dtype="boolean"),
        "utc": pd.date_range("2024-03-01", periods=n, freq="37s", tz="UTC"),
        "local": pd.Series(pd.date_range("2024-03-01", periods=n, freq="1500us")).where(
            i % 11 != 0),
        "color": pd.Categorical([["red", "green", None, "blue"][k % 4] for k in i],
                                categories=["red", "green", "blue"]),
        "nanf": np.where(i % 6 == 0, np.nan, i / 2),
    })


def test_to_avro_round_trip(client, tmp_path):
    pdf = frame()
    ddf = dd.from_pandas(pdf, npartitions=4)
    schema = ad.schema_from_dtypes(ddf)
    types = {f["name"]: f["type"] for f in schema["fields"]}
    assert types["i64"] == "long" and types["i32"] == "int" and types["f32"] == "float"
    assert types["f64"] == "double" and types["flag"] == "boolean" and types["nanf"] == "double"
    assert types["s"] == ["null", "string"] and types["raw"] == ["null", "bytes"]
    assert types["maybe"] == ["null", "long"] and types["yes"] == ["null", "boolean"]
    assert types["utc"][1]["logicalType"] == "timestamp-micros"
    assert types["local"][1]["logicalType"] == "local-timestamp-micros"
    assert types["color"][1] == {"type": "enum", "name": "color_enum",
                                 "symbols": ["red", "green", "blue"]}
    names = ad.to_avro(ddf, str(tmp_path / "out" / "part-*.avro"))
    assert names == [str(tmp_path / "out" / ("part-%d.avro" % k)) for k in range(4)]
    for name in names:
        assert avrokit.reader(name).codec == "zstandard"
    back = run(client, ad.read_avro(str(tmp_path / "out" / "*.avro"), blocksize=None))
    back = back.reset_index(drop=True)
    pd.testing.assert_frame_equal(back, pdf, check_dtype=False)
    for col in ("i64", "i32", "f64", "f32", "flag", "maybe", "yes", "utc", "local", "nanf"):
        assert back[col].dtype == pdf[col].dtype, col
    assert list(back["color"].cat.categories) == ["red", "green", "blue"]


def test_to_avro_with_schema_and_python_avro(client, tmp_path):
    pdf = frame()[["i64", "i32", "f64", "s", "maybe", "utc", "color"]]
    schema = {"type": "record", "name": "Given", "fields": [
        {"name": "i64", "type": "long"}, {"name": "i32", "type": "long"},
        {"name": "f64", "type": "double"}, {"name": "s", "type": ["null", "string"]},
        {"name": "maybe", "type": ["null", "long"]},
        {"name": "utc", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "color", "type": ["null", "string"]}]}
    ddf = dd.from_pandas(pdf, npartitions=3)
    tasks = ad.to_avro(ddf, str(tmp_path / "given"), schema=schema, codec="deflate",
                       sync_interval=1000, compute=False)
    assert len(tasks) == 3
    names = run(client, tasks)
    assert [os.path.basename(n) for n in names] == ["part.0.avro", "part.1.avro", "part.2.avro"]
    back = run(client, ad.read_avro(str(tmp_path / "given"), blocksize=2000)).reset_index(drop=True)
    assert back["i32"].dtype == np.int64 and list(back["i32"]) == list(pdf["i32"])
    assert back["color"].dtype == object
    assert back["color"].tolist() == [None if x is np.nan else x for x in pdf["color"].astype(object)]
    pd.testing.assert_series_equal(back["utc"], pdf["utc"])
    pd.testing.assert_series_equal(back["maybe"], pdf["maybe"], check_dtype=False)

    # Debian's python3-avro reads what the workers wrote
    avro_datafile = pytest.importorskip("avro.datafile")
    import avro.io

    records = []
    for name in names:
        with open(name, "rb") as f:
            with avro_datafile.DataFileReader(f, avro.io.DatumReader()) as r:
                records.extend(r)
    assert len(records) == len(pdf)
    assert [r["i64"] for r in records] == list(pdf["i64"])
    assert [r["s"] for r in records] == list(pdf["s"])
    assert [r["maybe"] for r in records] == [None if x is pd.NA else x for x in pdf["maybe"]]
    assert records[5]["utc"] == pdf["utc"][5].to_pydatetime()


def test_to_avro_refuses_what_has_no_type(tmp_path):
    with pytest.raises(ValueError, match="not an Avro field name"):
        ad.to_avro(pd.DataFrame({"a.b": [1]}), str(tmp_path / "x-*.avro"))
    with pytest.raises(TypeError, match="uint64"):
        ad.to_avro(pd.DataFrame({"u": np.array([1], dtype=np.uint64)}), str(tmp_path / "x-*.avro"))
    with pytest.raises(TypeError, match="timedelta64"):
        ad.to_avro(pd.DataFrame({"d": pd.to_timedelta([1], unit="s")}), str(tmp_path / "x-*.avro"))
    with pytest.raises(TypeError, match="mixes"):
        ad.to_avro(pd.DataFrame({"o": ["a", b"b"]}), str(tmp_path / "x-*.avro"))
    with pytest.raises(ValueError, match="exactly one"):
        ad.to_avro(pd.DataFrame({"a": [1]}), str(tmp_path / "x-*-*.avro"))
    assert not list(tmp_path.iterdir())


def test_error_pickles():
    try:
        avrokit.read_columns(__file__)
    except avrokit.AvroError as e:
        e.add_note("a note")
        back = pickle.loads(pickle.dumps(e))
        assert type(back) is avrokit.AvroError and str(back) == str(e)
        assert (back.status, back.offset, back.path, back.block) == (e.status, e.offset, e.path, e.block)
        assert back.__notes__ == ["a note"]
    else:
        pytest.fail("not an Avro file, read without error")


def test_damaged_file_fails_the_compute(client, tmp_path, files):
    path = tmp_path / "damaged.avro"
    with avrokit.writer(str(path), SCHEMA, codec="snappy", sync_interval=700) as w:
        w.write_many(event(9, i) for i in range(ROWS))
    offsets = blocks(str(path))
    mid = offsets[len(offsets) // 2]
    data = bytearray(path.read_bytes())
    for k in range(mid + 8, mid + 40):  # inside the block's data (snappy checks a CRC)
        data[k] ^= 0x5A
    path.write_bytes(bytes(data))
    # building the graph reads the header only: no error yet
    ddf = ad.read_avro([files[0], str(path)], blocksize=4096)
    t = time.monotonic()
    with pytest.raises(avrokit.AvroError) as e:
        run(client, ddf["v"].sum())
    assert time.monotonic() - t < TIMEOUT
    err = e.value
    assert err.status in ("CHECKSUM", "CODEC", "MALFORMED", "SYNC")
    assert err.block is not None and err.offset is not None
    assert any(str(path) in note for note in getattr(err, "__notes__", []))
    with pytest.raises(avrokit.AvroError) as e:
        run(client, ad.read_avro_bag(str(path), blocksize=None).count())
    assert e.value.status == err.status
    # the cluster is still fine afterwards
    assert run(client, ad.read_avro(files[0], blocksize=4096)["id"].count()) == ROWS


def test_files_of_another_schema(client, tmp_path, files):
    other = dict(SCHEMA, fields=[dict(f, type="int") if f["name"] == "id" else f
                                 for f in SCHEMA["fields"]])
    path = tmp_path / "other.avro"
    with avrokit.writer(str(path), other) as w:
        w.write_many(dict(event(5, i), id=i) for i in range(10))
    with pytest.raises(ValueError, match="another schema.*id: int32, not int64.*reader_schema"):
        run(client, ad.read_avro([files[0], str(path)]))
    reader = dict(SCHEMA, fields=SCHEMA["fields"][:2])  # id long: the int is promoted
    both = run(client, ad.read_avro([files[0], str(path)], reader_schema=reader))
    assert len(both) == ROWS + 10 and both["id"].dtype == np.int64


def test_bad_arguments(files):
    with pytest.raises(FileNotFoundError):
        ad.read_avro(files[0] + ".nope")
    with pytest.raises(FileNotFoundError):
        ad.read_avro(os.path.dirname(files[0]) + "/*.nope")
    with pytest.raises(ValueError):
        ad.read_avro(files, blocksize=0)
    with pytest.raises(TypeError):
        ad.read_avro(files, blocksize=1.5)
    assert ad.byte_ranges(files[0], "1KiB")[1][1:] == (1024, 2048)
    assert ad.byte_ranges(files[0], "1kB")[1][1:] == (1000, 2000)
    with pytest.raises(avrokit.AvroError) as e:
        ad.read_avro(files, columns=["nope"])  # the schema is checked at once
    assert e.value.status == "INVALID_ARGUMENT"


def test_readme_example(client, tmp_path, capsys):
    """The README's Dask example runs as written, after its first Python example."""
    import pathlib
    import re

    text = (pathlib.Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = text[text.index("\n## Python\n"):]
    first, example = re.findall(r"```python\n(.*?)```", section, re.S)[:2]
    assert "avrokit.dask" in example
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        exec(compile(first, "README.md (## Python)", "exec"), {})
        capsys.readouterr()
        exec(compile(example, "README.md (## Python, Dask)", "exec"), {"__name__": "__main__"})
    finally:
        os.chdir(cwd)
    out = capsys.readouterr().out.splitlines()
    assert out == ["2 {'s0': 49.8, 's1': 49.9, 's2': 50.0, 's3': 50.1}", "2 166833"]
