#!/usr/bin/python3
"""Container files across implementations: avrokit <-> python3-avro and Apache Avro C (avrocat, avromod), every codec each side has.

Usage: /usr/bin/python3 peers_test.py FILE_PEER_TOOL WORKDIR

FILE_PEER_TOOL is tests/interop/file_peer_tool.c built against the library
(it writes Avro JSON records into a container file with a codec, and prints
a container file's header and records as Avro JSON). Every direction and
codec is a separate named check; a summary table ends the run. Exit 0 when
every check passed, 1 when one failed, 77 (skipped) when python3-avro is
missing, or when avro-c's tools are and nothing failed.
"""

import json
import math
import os
import random
import shutil
import struct
import subprocess
import sys
import lzma

SKIP = 77

SCHEMA = {
    "type": "record", "name": "Everything", "namespace": "avk.interop",
    "fields": [
        {"name": "nul", "type": "null"},
        {"name": "flag", "type": "boolean"},
        {"name": "i32", "type": "int"},
        {"name": "i64", "type": "long"},
        {"name": "f32", "type": "float"},
        {"name": "f64", "type": "double"},
        {"name": "raw", "type": "bytes"},
        {"name": "text", "type": "string"},
        {"name": "suit", "type": {"type": "enum", "name": "Suit",
                                  "symbols": ["SPADES", "HEARTS", "DIAMONDS", "CLUBS"]}},
        {"name": "id", "type": {"type": "fixed", "name": "Id", "size": 6}},
        {"name": "longs", "type": {"type": "array", "items": "long"}},
        {"name": "words", "type": {"type": "map", "values": "string"}},
        {"name": "choice", "type": [
            "null", "string", "long",
            {"type": "record", "name": "Point",
             "fields": [{"name": "x", "type": "int"}, {"name": "y", "type": "int"}]},
            {"type": "array", "items": "Suit"}]},
        {"name": "maybe", "type": ["null", "Point"]},
        {"name": "points", "type": {"type": "array", "items": "Point"}},
        {"name": "ids", "type": {"type": "map", "values": "Id"}},
        {"name": "nested", "type": {"type": "array", "items": {
            "type": "map", "values": ["null", "float", "bytes"]}}},
        {"name": "inner", "type": {
            "type": "record", "name": "Inner", "namespace": "avk.other",
            "fields": [{"name": "tag", "type": "string"},
                       {"name": "weights", "type": {"type": "array", "items": "double"}}]}},
    ],
}

NAN, INF = float("nan"), float("inf")
F32_MAX = struct.unpack("<f", struct.pack("<I", 0x7F7FFFFF))[0]
F32_TINY = struct.unpack("<f", struct.pack("<I", 0x00000001))[0]  # smallest subnormal
USER_META = {"avk.test.binary": bytes([0, 1, 2, 0xFF, 0x80]) + "é".encode(),
             "avk.test.text": "héllo, peers".encode()}


def f32(x):
    """x rounded to a float, as a double: what a float field holds exactly."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def random_text(rng, n):
    out = []
    for _ in range(n):
        r = rng.random()
        if r < 0.5:
            out.append(chr(rng.randrange(0x20, 0x7F)))
        elif r < 0.7:
            out.append(chr(rng.randrange(0x80, 0x800)))
        elif r < 0.9:
            c = rng.randrange(0x800, 0x10000)
            out.append(chr(c if not 0xD800 <= c < 0xE000 else 0x2713))
        else:
            out.append(chr(rng.randrange(0x10000, 0x110000)))
    return "".join(out)


def random_double(rng):
    while True:
        x = struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]
        if math.isfinite(x):
            return x


def random_float(rng):
    while True:
        x = struct.unpack("<f", struct.pack("<I", rng.getrandbits(32)))[0]
        if math.isfinite(x):
            return x


def records():
    """Three records of extremes, then seeded random ones."""
    recs = [
        {"nul": None, "flag": True, "i32": -2**31, "i64": -2**63, "f32": NAN, "f64": -INF,
         "raw": bytes(range(256)),
         "text": "héllo wörld ✓ 𝄞 日本語 \"quoted\" \\ \n\t\x01\x7f\u2028",
         "suit": "CLUBS", "id": b"\x00\xff\x00\x80\x7f\x01",
         "longs": [-2**63, 2**63 - 1, 0, -1, 1, 63, 64, -64, -65, 2**31, -2**31 - 1],
         "words": {"ключ": "значение", "": "", "e\u0301": "combining", "𝄞": "clef"},
         "choice": {"x": -2**31, "y": 2**31 - 1}, "maybe": None, "points": [],
         "ids": {"zero": b"\x00" * 6, "ff": b"\xff" * 6},
         "nested": [{"n": None, "f": INF, "b": b"\x00\xff"}, {}, {"nan": NAN, "ninf": -INF}],
         "inner": {"tag": "", "weights": [5e-324, -0.0, 1.7976931348623157e308, NAN, INF, -INF]}},
        {"nul": None, "flag": False, "i32": 2**31 - 1, "i64": 2**63 - 1, "f32": INF, "f64": NAN,
         "raw": b"", "text": "", "suit": "SPADES", "id": b"abcdef", "longs": [], "words": {},
         "choice": None, "maybe": {"x": 0, "y": -1}, "points": [{"x": 1, "y": 2}] * 3,
         "ids": {}, "nested": [],
         "inner": {"tag": "日本語", "weights": []}},
        {"nul": None, "flag": True, "i32": 0, "i64": 0, "f32": -0.0, "f64": -0.0,
         "raw": b"\x00", "text": "\x00 nul inside", "suit": "HEARTS", "id": b"\x00" * 6,
         "longs": [0], "words": {"k": "v"}, "choice": "a string", "maybe": None, "points": [],
         "ids": {"a": b"123456"}, "nested": [{"tiny": F32_TINY, "max": F32_MAX, "nf": -F32_MAX}],
         "inner": {"tag": "t", "weights": [0.1, 1e300, -2.5e-310]}},
        {"nul": None, "flag": False, "i32": -1, "i64": -1, "f32": F32_TINY, "f64": 5e-324,
         "raw": b"\xc3\xa9", "text": "x", "suit": "DIAMONDS", "id": b"zzzzzz", "longs": [1],
         "words": {}, "choice": 2**63 - 1, "maybe": None, "points": [], "ids": {},
         "nested": [], "inner": {"tag": "x", "weights": [1.0]}},
        {"nul": None, "flag": False, "i32": 1, "i64": 1, "f32": -INF, "f64": INF,
         "raw": b"x", "text": "y", "suit": "SPADES", "id": b"yyyyyy", "longs": [],
         "words": {}, "choice": "é", "maybe": None, "points": [], "ids": {},
         "nested": [], "inner": {"tag": "y", "weights": []}},
        {"nul": None, "flag": True, "i32": 7, "i64": 7, "f32": F32_MAX, "f64": -1e-300,
         "raw": b"y", "text": "z", "suit": "CLUBS", "id": b"xxxxxx", "longs": [],
         "words": {}, "choice": ["HEARTS", "CLUBS"], "maybe": None, "points": [], "ids": {},
         "nested": [], "inner": {"tag": "z", "weights": []}},
    ]
    rng = random.Random(20261202)
    suits = SCHEMA["fields"][8]["type"]["symbols"]
    for _ in range(40):
        kind = rng.randrange(5)
        choice = [None, random_text(rng, rng.randrange(12)), rng.randrange(-2**63, 2**63),
                  {"x": rng.randrange(-2**31, 2**31), "y": rng.randrange(-100, 100)},
                  [rng.choice(suits) for _ in range(rng.randrange(4))]][kind]
        recs.append({
            "nul": None, "flag": rng.random() < 0.5,
            "i32": rng.randrange(-2**31, 2**31),
            "i64": rng.randrange(-2**63, 2**63) >> rng.randrange(64),
            "f32": random_float(rng), "f64": random_double(rng),
            "raw": bytes(rng.getrandbits(8) for _ in range(rng.randrange(40))),
            "text": random_text(rng, rng.randrange(30)),
            "suit": rng.choice(suits),
            "id": bytes(rng.getrandbits(8) for _ in range(6)),
            "longs": [rng.randrange(-2**63, 2**63) >> rng.randrange(64) for _ in range(rng.randrange(20))],
            "words": {random_text(rng, rng.randrange(1, 8)): random_text(rng, rng.randrange(10))
                      for _ in range(rng.randrange(6))},
            "choice": choice,
            "maybe": None if rng.random() < 0.5 else {"x": rng.randrange(-9, 9), "y": rng.randrange(-9, 9)},
            "points": [{"x": rng.randrange(-2**31, 2**31), "y": 0} for _ in range(rng.randrange(4))],
            "ids": {random_text(rng, 3): bytes(rng.getrandbits(8) for _ in range(6))
                    for _ in range(rng.randrange(3))},
            "nested": [{random_text(rng, 2): [None, f32(rng.uniform(-1e6, 1e6)), b"\x00b"][rng.randrange(3)]
                        for _ in range(rng.randrange(3))} for _ in range(rng.randrange(3))],
            "inner": {"tag": random_text(rng, 5), "weights": [random_double(rng) for _ in range(rng.randrange(5))]},
        })
    return recs


def finite(v):
    """No NaN or infinity anywhere (avrocat cannot print them)."""
    if isinstance(v, float):
        return math.isfinite(v)
    if isinstance(v, dict):
        return all(finite(x) for x in v.values())
    if isinstance(v, list):
        return all(finite(x) for x in v)
    return True


# ---- values: exact comparison -------------------------------------------------

def diff(a, b, path="$"):
    """None when a and b are the same datum (NaN equals NaN, -0.0 differs from 0.0), else where they differ."""
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return None if math.isnan(a) and math.isnan(b) else "%s: %r != %r" % (path, a, b)
        if a == b and math.copysign(1, a) == math.copysign(1, b):
            return None
        return "%s: %r != %r" % (path, a, b)
    if type(a) is not type(b):
        return "%s: %s %r != %s %r" % (path, type(a).__name__, a, type(b).__name__, b)
    if isinstance(a, dict):
        if a.keys() != b.keys():
            return "%s: keys %r != %r" % (path, sorted(a), sorted(b))
        for k in a:
            d = diff(a[k], b[k], "%s[%r]" % (path, k))
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return "%s: length %d != %d" % (path, len(a), len(b))
        for i, (x, y) in enumerate(zip(a, b)):
            d = diff(x, y, "%s[%d]" % (path, i))
            if d:
                return d
        return None
    return None if a == b else "%s: %r != %r" % (path, a, b)


def diff_records(got, want):
    if len(got) != len(want):
        return "%d records, expected %d" % (len(got), len(want))
    for i, (g, w) in enumerate(zip(got, want)):
        d = diff(g, w, "record %d" % i)
        if d:
            return d
    return None


# ---- the Avro JSON encoding, both ways ---------------------------------------

class JInt(str):
    """An integer as its JSON text: float fields keep "-0" exact."""


def branch_name(s):
    return s.fullname if hasattr(s, "fullname") else s.type


def to_avro_json(s, d, avro_io):
    t = s.type
    if t in ("null", "boolean", "int", "long", "string", "enum"):
        return d
    if t in ("float", "double"):
        if math.isnan(d):
            return "NaN"
        if math.isinf(d):
            return "Infinity" if d > 0 else "-Infinity"
        return d
    if t in ("bytes", "fixed"):
        return d.decode("latin-1")
    if t == "array":
        return [to_avro_json(s.items, x, avro_io) for x in d]
    if t == "map":
        return {k: to_avro_json(s.values, v, avro_io) for k, v in d.items()}
    if t in ("record", "error"):
        return {f.name: to_avro_json(f.type, d[f.name], avro_io) for f in s.fields}
    if t == "union":
        if d is None:
            return None
        # python3-avro 1.11 writes the LAST branch that validates, others the
        # first: the data here keeps unions unambiguous.
        fits = [b for b in s.schemas if b.type != "null" and avro_io.validate(b, d)]
        if len(fits) != 1:
            raise ValueError("%r fits %d branches of %s" % (d, len(fits), s))
        return {branch_name(fits[0]): to_avro_json(fits[0], d, avro_io)}
    raise ValueError("no JSON for %r as %s" % (d, t))


def from_avro_json(s, j, short_names=False, bytes_cut=False):
    """The datum of Avro JSON j (numbers parsed with parse_int=JInt). short_names:
    union branches may go by their short name (avro-c); bytes_cut: avro-c's JSON
    ends bytes at their first NUL, so cut the expectation, not this."""
    t = s.type
    if t == "null":
        if j is not None:
            raise ValueError("null expected, got %r" % (j,))
        return None
    if t == "boolean":
        if not isinstance(j, bool):
            raise ValueError("boolean expected, got %r" % (j,))
        return j
    if t in ("int", "long"):
        if not isinstance(j, JInt):
            raise ValueError("integer expected, got %r" % (j,))
        return int(j)
    if t in ("float", "double"):
        # A float's text has the float's shortest digits: round it to the float.
        r = f32 if t == "float" else float
        if isinstance(j, JInt):
            return r(float(j))
        if isinstance(j, float):
            return r(j)
        if j in ("NaN", "Infinity", "-Infinity"):
            return float(j.replace("Infinity", "inf"))
        raise ValueError("number expected, got %r" % (j,))
    if t in ("bytes", "fixed"):
        return j.encode("latin-1")
    if t in ("string", "enum"):
        if not isinstance(j, str) or isinstance(j, JInt):
            raise ValueError("string expected, got %r" % (j,))
        return j
    if t == "array":
        return [from_avro_json(s.items, x, short_names, bytes_cut) for x in j]
    if t == "map":
        return {k: from_avro_json(s.values, v, short_names, bytes_cut) for k, v in j.items()}
    if t in ("record", "error"):
        if list(j) != [f.name for f in s.fields]:
            raise ValueError("record fields %r, expected %r" % (list(j), [f.name for f in s.fields]))
        return {f.name: from_avro_json(f.type, j[f.name], short_names, bytes_cut) for f in s.fields}
    if t == "union":
        if j is None:
            return None
        (key, val), = j.items()
        for b in s.schemas:
            if branch_name(b) == key or (short_names and getattr(b, "name", None) == key):
                return from_avro_json(b, val, short_names, bytes_cut)
        raise ValueError("union branch %r not in the schema" % key)
    raise ValueError("unknown type %s" % t)


def cut_bytes(s, d):
    """d as avro-c's JSON shows it: bytes, fixed and strings end at their first NUL."""
    t = s.type
    if t in ("bytes", "fixed"):
        return d.split(b"\x00", 1)[0]
    if t == "string":
        return d.split("\x00", 1)[0]
    if t == "array":
        return [cut_bytes(s.items, x) for x in d]
    if t == "map":
        return {k: cut_bytes(s.values, v) for k, v in d.items()}
    if t in ("record", "error"):
        return {f.name: cut_bytes(f.type, d[f.name]) for f in s.fields}
    if t == "union" and d is not None:
        import avro.io
        for b in s.schemas:
            if b.type != "null" and avro.io.validate(b, d):
                return cut_bytes(b, d)
    return d


# ---- container files by hand (codecs python3-avro lacks) ----------------------

def read_long(buf, pos):
    n = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        n |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return (n >> 1) ^ -(n & 1), pos


def write_long(n):
    n = (n << 1) ^ (n >> 63)
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def split_container(data):
    """(metadata dict, sync, [(count, block bytes)]) of a container file."""
    assert data[:4] == b"Obj\x01", "not a container file"
    pos, meta = 4, {}
    while True:
        n, pos = read_long(data, pos)
        if n == 0:
            break
        if n < 0:
            n = -n
            _, pos = read_long(data, pos)
        for _ in range(n):
            kl, pos = read_long(data, pos)
            key = data[pos:pos + kl].decode()
            pos += kl
            vl, pos = read_long(data, pos)
            meta[key] = data[pos:pos + vl]
            pos += vl
    sync = data[pos:pos + 16]
    pos += 16
    blocks = []
    while pos < len(data):
        count, pos = read_long(data, pos)
        size, pos = read_long(data, pos)
        blocks.append((count, data[pos:pos + size]))
        pos += size
        assert data[pos:pos + 16] == sync, "sync marker mismatch"
        pos += 16
    return meta, sync, blocks


def join_container(meta, sync, blocks):
    out = bytearray(b"Obj\x01")
    out += write_long(len(meta))
    for k, v in meta.items():
        out += write_long(len(k.encode())) + k.encode() + write_long(len(v)) + v
    out += write_long(0) + sync
    for count, data in blocks:
        out += write_long(count) + write_long(len(data)) + data + sync
    return bytes(out)


def recodec(data, codec, decompress=None, compress=None):
    """The same file with each block passed through decompress or compress, named codec."""
    meta, sync, blocks = split_container(data)
    meta = dict(meta)
    meta["avro.codec"] = codec.encode()
    fn = decompress or compress
    return join_container(meta, sync, [(c, fn(b)) for c, b in blocks])


# ---- the checks ---------------------------------------------------------------

class Run:
    def __init__(self):
        self.rows = []

    def check(self, direction, codec, fn):
        try:
            detail = fn()
            status = "PASS"
            if isinstance(detail, tuple):
                status, detail = detail
        except Exception as e:  # a failing check names what went wrong
            status, detail = "FAIL", "%s: %s" % (type(e).__name__, e)
        self.rows.append((direction, codec, status, detail or ""))
        print("%-4s %-44s %-10s %s" % (status, direction, codec, detail or ""), flush=True)

    def table(self):
        w = max(len(r[0]) for r in self.rows)
        print("\nsummary")
        print("%-*s  %-10s  %-6s  %s" % (w, "direction", "codec", "result", "detail"))
        print("%s  %s  %s  %s" % ("-" * w, "-" * 10, "-" * 6, "-" * 40))
        for d, c, s, detail in self.rows:
            print("%-*s  %-10s  %-6s  %s" % (w, d, c, s, (detail.splitlines() or [""])[0][:150]))
        counts = {s: sum(1 for r in self.rows if r[2] == s) for s in ("PASS", "FAIL", "SKIP")}
        print("\n%d passed, %d failed, %d skipped" % (counts["PASS"], counts["FAIL"], counts["SKIP"]))
        return counts


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    tool, work = os.path.abspath(sys.argv[1]), sys.argv[2]
    try:
        import avro.codecs
        import avro.datafile
        import avro.io
        import avro.schema
    except ImportError as e:
        print("SKIPPED: python3-avro is not importable by %s (%s); install python3-avro "
              "(tools/install-deps.sh does)" % (sys.executable, e))
        return SKIP
    avrocat, avromod = shutil.which("avrocat"), shutil.which("avromod")
    if os.path.exists("/usr/bin/avrocat"):
        avrocat = "/usr/bin/avrocat"
    if os.path.exists("/usr/bin/avromod"):
        avromod = "/usr/bin/avromod"
    py_codecs = sorted(avro.codecs.KNOWN_CODECS)

    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    schema = avro.schema.parse(json.dumps(SCHEMA))
    recs = records()
    fin = [r for r in recs if finite(r)]
    schema_path = os.path.join(work, "everything.avsc")
    with open(schema_path, "w") as f:
        json.dump(SCHEMA, f)

    def write_jsonl(name, rs):
        path = os.path.join(work, name)
        with open(path, "w", encoding="utf-8") as f:
            for r in rs:
                f.write(json.dumps(to_avro_json(schema, r, avro.io), ensure_ascii=False) + "\n")
        return path

    all_jsonl, fin_jsonl = write_jsonl("all.jsonl", recs), write_jsonl("finite.jsonl", fin)
    # argv cannot carry NUL: avrokit writes the entries without one.
    meta_written = {k: v for k, v in USER_META.items() if b"\x00" not in v}
    meta_args = [k.encode() + b"=" + v for k, v in meta_written.items()]
    run = Run()

    def run_tool(*args):
        p = subprocess.run([tool] + [os.fsencode(a) if isinstance(a, str) else a for a in args],
                           capture_output=True)
        if p.returncode != 0:
            raise RuntimeError("file_peer_tool %s: %s" % (args[0], p.stderr.decode(errors="replace").strip()))
        return p.stdout

    def py_read(path_or_bytes):
        import io
        data = path_or_bytes if isinstance(path_or_bytes, bytes) else open(path_or_bytes, "rb").read()
        with avro.datafile.DataFileReader(io.BytesIO(data), avro.io.DatumReader()) as r:
            return list(r), {k: r.get_meta(k) for k in r.meta}

    def avrokit_read(path):
        """(header dict, records) as file_peer_tool reads them."""
        # split on LF alone: records may hold U+2028 and other line breaks
        lines = run_tool("read", path).decode("utf-8").split("\n")[:-1]
        header = json.loads(lines[0])
        return header, [from_avro_json(schema, json.loads(l, parse_int=JInt)) for l in lines[1:]]

    # 1. avrokit writes, the others read -------------------------------------------
    written = {}
    for codec in ["null", "deflate", "snappy", "zstandard", "bzip2", "xz"]:
        path = os.path.join(work, "avrokit-%s.avro" % codec)
        fpath = os.path.join(work, "avrokit-%s-finite.avro" % codec)

        def write(codec=codec, path=path, fpath=fpath):
            run_tool("write", schema_path, all_jsonl, codec, path, *meta_args)
            run_tool("write", schema_path, fin_jsonl, codec, fpath)
            written[codec] = path
            header, got = avrokit_read(path)
            if header["codec"] != codec:
                raise AssertionError("codec %r" % header["codec"])
            for k, v in meta_written.items():
                if header["meta"].get(k, "").encode("latin-1") != v:
                    raise AssertionError("metadata %s: %r" % (k, header["meta"].get(k)))
            d = diff_records(got, recs)
            if d:
                raise AssertionError(d)
            return "%d records, %d blocks" % (len(recs), len(split_container(open(path, "rb").read())[2]))
        run.check("avrokit writes, avrokit reads", codec, write)
        if codec not in written:
            continue

        def py(codec=codec, path=path):
            data = open(path, "rb").read()
            how = ""
            if codec not in py_codecs:
                if codec != "xz":
                    return "SKIP", "python3-avro has no %s codec here (python3-%s missing)" % (codec, codec)
                # python3-avro has no xz: decompress each block with the lzma module, read as null.
                data = recodec(data, "null", decompress=lambda b: lzma.decompress(b, format=lzma.FORMAT_XZ))
                how = ", blocks through python's lzma"
            got, meta = py_read(data)
            d = diff_records(got, recs)
            if d:
                raise AssertionError(d)
            if not meta_written:
                raise AssertionError("no metadata entry to check")
            for k, v in meta_written.items():
                if meta.get(k) != v:
                    raise AssertionError("metadata %s: %r != %r" % (k, meta.get(k), v))
            if codec != "xz" and meta.get("avro.codec") != codec.encode():
                raise AssertionError("avro.codec %r" % meta.get("avro.codec"))
            return "%d records exact, user metadata%s" % (len(got), how)
        run.check("avrokit writes, python3-avro reads", codec, py)

        def cat(codec=codec, fpath=fpath):
            if not avrocat:
                return "SKIP", "avrocat not installed (avro-bin)"
            if codec not in ("null", "deflate", "snappy"):
                return "SKIP", "avro-c 1.11 has no %s codec" % codec
            p = subprocess.run([avrocat, fpath], capture_output=True)
            if p.returncode != 0 or p.stderr:
                raise RuntimeError("avrocat: %s" % p.stderr.decode(errors="replace").strip())
            lines = p.stdout.decode("utf-8").split("\n")[:-1]
            got = [from_avro_json(schema, json.loads(l, parse_int=JInt), short_names=True) for l in lines]
            d = diff_records(got, [cut_bytes(schema, r) for r in fin])
            if d:
                raise AssertionError(d)
            return "%d finite records agree (avro-c's JSON ends strings and bytes at NUL)" % len(got)
        run.check("avrokit writes, avrocat reads", codec, cat)

        def mod(codec=codec, path=path):
            if not avromod:
                return "SKIP", "avromod not installed (avro-bin)"
            if codec not in ("null", "deflate", "snappy"):
                return "SKIP", "avro-c 1.11 has no %s codec" % codec
            out = os.path.join(work, "avrokit-%s-via-avroc.avro" % codec)
            p = subprocess.run([avromod, "--codec=null", path, out], capture_output=True)
            if p.returncode != 0:
                raise RuntimeError("avromod: %s" % p.stderr.decode(errors="replace").strip())
            got, _ = py_read(out)
            d = diff_records(got, recs)
            if d:
                raise AssertionError(d)
            return "%d records exact (avro-c decodes and re-encodes, python3-avro reads)" % len(got)
        run.check("avrokit writes, avro-c decodes (avromod)", codec, mod)

    # 2. python3-avro and avro-c write, avrokit reads --------------------------------
    py_null = None
    for codec in ["null", "deflate", "snappy", "zstandard", "bzip2", "xz"]:
        path = os.path.join(work, "python-%s.avro" % codec)

        def pywrite(codec=codec, path=path):
            nonlocal py_null
            how = ""
            if codec in py_codecs:
                with open(path, "wb") as f:
                    w = avro.datafile.DataFileWriter(f, avro.io.DatumWriter(), schema, codec=codec)
                    for k, v in USER_META.items():
                        w.set_meta(k, v)
                    for i, r in enumerate(recs):
                        w.append(r)
                        if i % 9 == 8:
                            w.sync()  # several blocks
                    w.close()
            elif codec == "xz" and py_null:
                # python3-avro has no xz: its null file, each block compressed by python's lzma.
                data = recodec(open(py_null, "rb").read(), "xz",
                               compress=lambda b: lzma.compress(b, format=lzma.FORMAT_XZ))
                open(path, "wb").write(data)
                how = " (python3-avro's null file, blocks through python's lzma)"
            else:
                return "SKIP", "python3-avro has no %s codec here (python3-%s missing)" % (codec, codec)
            if codec == "null":
                py_null = path
            header, got = avrokit_read(path)
            if header["codec"] != codec or header["nonstandard"] != 0:
                raise AssertionError("codec %r nonstandard %r" % (header["codec"], header["nonstandard"]))
            for k, v in USER_META.items():
                if header["meta"].get(k, "").encode("latin-1") != v:
                    raise AssertionError("metadata %s: %r != %r" % (k, header["meta"].get(k), v))
            d = diff_records(got, recs)
            if d:
                raise AssertionError(d)
            return "%d records exact, user metadata%s" % (len(got), how)
        run.check("python3-avro writes, avrokit reads", codec, pywrite)

    for codec in ["null", "deflate", "snappy", "lzma"]:
        def cwrite(codec=codec):
            if not avromod:
                return "SKIP", "avromod not installed (avro-bin)"
            if not py_null:
                return "SKIP", "no python3-avro null file to start from"
            out = os.path.join(work, "avroc-%s.avro" % codec)
            p = subprocess.run([avromod, "--codec=%s" % codec, py_null, out], capture_output=True)
            if p.returncode != 0:
                raise RuntimeError("avromod: %s" % p.stderr.decode(errors="replace").strip())
            header, got = avrokit_read(out)
            want_codec, want_ns = ("xz", 1) if codec == "lzma" else (codec, 0)
            if header["codec"] != want_codec or header["nonstandard"] != want_ns:
                raise AssertionError("codec %r nonstandard %r, expected %r %r" % (
                    header["codec"], header["nonstandard"], want_codec, want_ns))
            d = diff_records(got, recs)
            if d:
                raise AssertionError(d)
            return "%d records exact%s" % (len(got), " (\"lzma\" read as xz, nonstandard)" if codec == "lzma" else "")
        run.check("avro-c writes (avromod), avrokit reads", codec, cwrite)

    counts = run.table()
    if counts["FAIL"]:
        return 1
    if not (avrocat and avromod):
        print("SKIPPED: avro-c's avrocat/avromod are missing (install avro-bin); the python3-avro checks passed")
        return SKIP
    return 0


if __name__ == "__main__":
    sys.exit(main())
