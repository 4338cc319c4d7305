#!/usr/bin/env python3
"""Writes the hand-made seed inputs of fuzz/corpus/<target>/ (rerun after changing an input layout)."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def zz(v):
    return ((v << 1) ^ (v >> 63)) & 0xFFFFFFFFFFFFFFFF


def enc(v):
    u, out = zz(v), bytearray()
    while u >= 0x80:
        out.append((u & 0x7F) | 0x80)
        u >>= 7
    out.append(u)
    return bytes(out)


def unzz(u):
    return (u >> 1) ^ -(u & 1)


def of_length(n):
    """Boundary values whose encoding is n bytes long."""
    lo = 0 if n == 1 else 1 << (7 * (n - 1))
    hi = (1 << (7 * n)) - 1 if n < 10 else (1 << 64) - 1
    return [unzz(lo), unzz(hi), unzz((lo + hi) // 2)]


def write(target, name, data):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


# ---- fuzz_varint: [n][varint bytes...] ------------------------------------
V = "fuzz_varint"
for n in range(1, 11):
    write(V, "valid-len%02d" % n, bytes([3]) + b"".join(enc(v) for v in of_length(n)))
mixed = b"".join(enc(v) for n in range(1, 11) for v in of_length(n)) * 3
write(V, "valid-mixed-all-lengths", bytes([255]) + mixed)
write(V, "valid-64-one-byte", bytes([100]) + bytes(range(0, 128, 1))[:100])
write(V, "valid-int-edges", bytes([8]) + b"".join(enc(v) for v in
      [0, -1, 1, 2**31 - 1, -2**31, 63, -64, 64, 8191, -8192]))
write(V, "valid-long-edges", bytes([6]) + b"".join(enc(v) for v in
      [2**63 - 1, -2**63, 2**31, -2**31 - 1, 2**56, -2**56]))
write(V, "valid-overlong-zero", bytes([2]) + bytes([0x80] * 9 + [0x00]) + bytes([0x80] * 4 + [0x00]))
bad11 = bytes([0xFF] * 10 + [0x01])
write(V, "malformed-11-bytes", bytes([5]) + enc(1) + enc(-300) + bad11 + enc(2))
write(V, "malformed-10th-byte-02", bytes([4]) + enc(7) + bytes([0xFF] * 9 + [0x02]) + enc(0))
write(V, "malformed-10th-byte-7f", bytes([4]) + enc(7) + bytes([0x80] * 9 + [0x7F]) + enc(0))
write(V, "malformed-int-6-bytes", bytes([3]) + enc(5) + bytes([0xFF] * 5 + [0x01]))
write(V, "malformed-int-6-byte-zero", bytes([9]) + bytes(20) + bytes([0x80] * 5 + [0x00]) + bytes(20))
write(V, "malformed-int-5th-byte-10", bytes([3]) + enc(5) + bytes([0xFF] * 4 + [0x10]))
write(V, "malformed-deep-after-64", bytes([200]) + bytes(range(70)) + bad11 + bytes(range(20)))
write(V, "malformed-deep-mixed", bytes([255]) + mixed[:150] + bytes([0xFF] * 4 + [0x10]) + mixed[:40])
for n in range(2, 11):
    write(V, "truncated-len%02d" % n, bytes([4]) + enc(9) + enc(of_length(n)[1])[:n - 1])
write(V, "truncated-after-64", bytes([90]) + bytes(range(80)) + bytes([0x80, 0x80]))
write(V, "empty", bytes([10]))

# ---- fuzz_reader: [P-1][P refill sizes][buffer][N][N x (op, arg)][data] ----
R = "fuzz_reader"
OP = dict(LONG=0, INT=1, LONGS=2, INTS=3, RAW=4, RAW_BIG=5, SKIP=6, SKIP_BIG=7,
          BOOLEAN=8, AT_END=9, FILL=10)


def reader_input(pattern, buffer_sel, ops, data):
    head = bytes([len(pattern) - 1]) + bytes(pattern) + bytes([buffer_sel, len(ops)])
    return head + b"".join(bytes([OP[o], a]) for o, a in ops) + data


longs = b"".join(enc(v) for n in range(1, 11) for v in of_length(n))
ints = b"".join(enc(v) for n in range(1, 6) for v in of_length(n) if -2**31 <= v < 2**31)
write(R, "one-byte-reads-singles", reader_input(
    [1], 0, [("LONG", 0)] * 30 + [("AT_END", 0), ("LONG", 0)], longs))
write(R, "one-byte-reads-bulk", reader_input(
    [1], 0, [("LONGS", 7), ("LONGS", 13), ("LONGS", 10), ("INTS", 5), ("AT_END", 0)], longs + ints))
write(R, "mixed-refills", reader_input(
    [1, 3, 7, 0, 2], 1, [("LONG", 0), ("RAW", 5), ("INTS", 3), ("SKIP", 4), ("BOOLEAN", 0),
                         ("FILL", 20), ("LONGS", 9), ("RAW_BIG", 20), ("AT_END", 0)],
    longs + bytes(5) + ints + bytes([1]) + longs + bytes(range(160)) + longs))
write(R, "big-raw-and-skip", reader_input(
    [0], 0, [("RAW_BIG", 40), ("SKIP_BIG", 10), ("RAW", 200), ("SKIP_BIG", 200)],
    bytes(range(256)) * 12))
write(R, "malformed-in-bulk", reader_input(
    [1, 5], 2, [("LONGS", 200)], longs * 3 + bad11 + longs))
write(R, "malformed-int-single", reader_input(
    [3], 3, [("INT", 0), ("INT", 0), ("INT", 0)], enc(5) + enc(6) + bytes([0xFF] * 4 + [0x10])))
write(R, "truncated-at-end", reader_input(
    [2, 1], 4, [("LONGS", 50), ("LONG", 0)], longs + bytes([0x80, 0x80, 0x80])))
write(R, "truncated-raw", reader_input(
    [4], 0, [("SKIP", 10), ("RAW", 100)], bytes(60)))
write(R, "boolean-bad", reader_input(
    [0], 7, [("BOOLEAN", 0)] * 4, bytes([0, 1, 2, 1])))
write(R, "empty-data", reader_input(
    [0], 0, [("AT_END", 0), ("LONG", 0), ("INT", 0)], b""))


# ---- fuzz_decode and fuzz_roundtrip: [schema + option bits][values] --------
# Random values of the schemas in fuzz_schemas.h (read from there), encoded
# by a small encoder of our own: several block layouts, sized blocks too.
import json
import random
import re
import struct


def fuzz_schemas():
    text = open(os.path.join(HERE, "fuzz_schemas.h")).read()
    block = text[text.index("AVKF_SCHEMAS_BEGIN"):text.index("AVKF_SCHEMAS_END")]
    block = re.sub(r"/\*.*?\*/", "", block, flags=re.S)
    out, cur = [], ""
    for tok in re.findall(r'"(?:[^"\\]|\\.)*"|,', block):
        if tok == ",":
            out.append(json.loads(cur.replace("'", '"')))
            cur = ""
        else:
            cur += tok[1:-1]
    return out


class Encoder:
    """Random valid encodings of one schema (names without namespaces)."""

    TEXT = ["", "a", "hello", "\u00e9t\u00e9", "\u20ac", "\U0001F600", "x" * 40]

    def __init__(self, schema, rng):
        self.rng, self.names = rng, {}
        self.register(schema)
        self.schema = schema

    def register(self, s):
        if isinstance(s, list):
            for b in s:
                self.register(b)
        elif isinstance(s, dict):
            if s["type"] in ("record", "enum", "fixed"):
                self.names[s["name"]] = s
            for f in s.get("fields", []):
                self.register(f["type"])
            for k in ("items", "values"):
                if k in s:
                    self.register(s[k])

    def string(self):
        return self.rng.choice(self.TEXT).encode()

    def blocks(self, items):
        """Items (encoded) as blocks: one, several, some with byte sizes."""
        out, i, r = bytearray(), 0, self.rng
        while i < len(items):
            n = r.randint(1, len(items) - i)
            chunk = b"".join(items[i:i + n])
            if r.random() < 0.4:
                out += enc(-n) + enc(len(chunk))
            else:
                out += enc(n)
            out += chunk
            i += n
        return bytes(out + enc(0))

    def value(self, s, depth=0):
        r = self.rng
        if isinstance(s, str) and s in self.names:
            s = self.names[s]
        if isinstance(s, list):
            # Deep down, the first branch (null in recursive unions).
            b = 0 if depth > 3 else r.randrange(len(s))
            return enc(b) + self.value(s[b], depth + 1)
        t = s["type"] if isinstance(s, dict) else s
        if isinstance(t, (dict, list)):
            return self.value(t, depth)
        if t == "null":
            return b""
        if t == "boolean":
            return bytes([r.randint(0, 1)])
        if t == "int":
            return enc(r.choice([0, -1, 1, 63, -64, 2**31 - 1, -2**31, r.randint(-2**31, 2**31 - 1)]))
        if t == "long":
            return enc(r.choice([0, 2**63 - 1, -2**63, 1 << 40, r.randint(-2**63, 2**63 - 1)]))
        if t == "float":
            return struct.pack("<f", r.choice([0.0, -0.0, 1.5, float("inf"), float("nan")]))
        if t == "double":
            return struct.pack("<d", r.choice([0.0, -0.0, 2.5, 1e300, float("-inf")]))
        if t in ("bytes", "string"):
            b = self.string() if t == "string" else bytes(r.randrange(256) for _ in range(r.randint(0, 9)))
            return enc(len(b)) + b
        if t == "fixed":
            return bytes(r.randrange(256) for _ in range(s["size"]))
        if t == "enum":
            return enc(r.randrange(len(s["symbols"])))
        if t == "record":
            return b"".join(self.value(f["type"], depth + 1) for f in s["fields"])
        if t == "array":
            n = 0 if depth > 3 else r.randint(0, 5)
            return self.blocks([self.value(s["items"], depth + 1) for _ in range(n)])
        if t == "map":
            n = 0 if depth > 3 else r.randint(0, 4)
            return self.blocks([enc(len(k)) + k + self.value(s["values"], depth + 1)
                                for k in (self.string() for _ in range(n))])
        raise ValueError(t)


COPY, UTF8, TINY, ONE_BYTE = 0x10, 0x20, 0x40, 0x80
D, RT = "fuzz_decode", "fuzz_roundtrip"
for si, schema in enumerate(fuzz_schemas()):
    e = Encoder(schema, random.Random(1000 + si))
    vals = [e.value(schema) for _ in range(4)]
    write(D, "s%02d-values" % si, bytes([si]) + b"".join(vals[:3]))
    write(D, "s%02d-copy-utf8-1byte" % si, bytes([si | COPY | UTF8 | ONE_BYTE]) + vals[3] + vals[0])
    write(D, "s%02d-tiny-limits" % si, bytes([si | TINY]) + b"".join(vals))
    whole = b"".join(vals)
    write(D, "s%02d-truncated" % si, bytes([si]) + whole[:max(0, len(whole) // 2 - 1)])
    bad = bytearray(whole)
    if bad:
        bad[len(bad) // 3] ^= 0x81
    write(D, "s%02d-corrupt" % si, bytes([si | COPY]) + bytes(bad))
    for layout, v in enumerate(vals):
        write(RT, "s%02d-layout%d" % (si, layout), bytes([si | layout << 4 | (0x40 if layout == 2 else 0)]) + v)

# Hand-made bad inputs (schema numbers as in fuzz_schemas.h).
S_UNION, S_LIST, S_STRING, S_LONGS, S_EMPTIES, S_TYPED, S_PRIMS = 5, 6, 9, 10, 11, 2, 0
write(D, "int64-min-count", bytes([S_LONGS]) + bytes([0xFF] * 9 + [0x01]) + enc(1) + enc(0))
write(D, "sized-blocks", bytes([S_LONGS]) + enc(-3) + enc(3) + enc(1) + enc(2) + enc(3) + enc(2) + enc(4) + enc(5) + enc(0))
write(D, "huge-count", bytes([S_LONGS]) + enc(1 << 40) + enc(1))
write(D, "null-flood", bytes([S_EMPTIES]) + enc(1 << 40) + enc(0) + enc(0) + enc(0))
write(D, "null-flood-tiny", bytes([S_EMPTIES | TINY]) + enc(0) + enc(9) + enc(0) + enc(0) + enc(0))
write(D, "union-out-of-range", bytes([S_UNION]) + enc(13) + enc(-1))
write(D, "deep-list", bytes([S_LIST]) + b"".join(enc(i) + enc(1) for i in range(300)) + enc(0) + enc(0))
write(D, "bad-utf8", bytes([S_STRING | UTF8]) + enc(2) + b"\xc3\x28" + enc(2) + b"\xed\xa0")
write(D, "negative-length", bytes([S_STRING]) + enc(-5) + b"abc")
write(D, "length-beyond", bytes([S_STRING | ONE_BYTE]) + enc(100) + b"abc")
write(D, "boolean-2-in-array", bytes([S_TYPED]) + enc(3) + bytes([1, 0, 2]) + enc(0) + bytes(6))
write(D, "overlong-varint", bytes([S_PRIMS]) + bytes([1, 0xFF] + [0xFF] * 9 + [0x01]))
write(D, "empty", bytes([S_STRING]))
write(RT, "overlong-zero-long", bytes([S_LONGS]) + enc(1) + bytes([0x80, 0x80, 0x00]) + enc(0))
write(RT, "sized-then-plain", bytes([S_LONGS | 0x20]) + enc(-2) + enc(2) + enc(1) + enc(2) + enc(1) + enc(3) + enc(0))
# Reproducers of failures found by fuzzing (kept as regression inputs).
# A sized block whose byte size disagrees with its items: decode and skip
# must not both succeed at different ends.
write(D, "crash-block-size-too-big", bytes([S_LONGS]) + enc(-2) + enc(3) + enc(1) + enc(2) + b"\x00" + enc(0))
write(D, "crash-block-size-too-small", bytes([S_LONGS]) + enc(-2) + enc(1) + enc(1) + enc(2) + enc(0))
# An array of fixed(0): items take no storage (NULL items, zero-size copies).
write(D, "crash-fixed0-array", bytes([S_EMPTIES]) + enc(0) + enc(1) + enc(0) + enc(0))
write(RT, "crash-fixed0-array", bytes([S_EMPTIES]) + enc(0) + enc(2) + enc(0) + enc(0))

# ---- fuzz_codec: [codec % 6][limit selector: 2^(b % 17) bytes; b & 0x80: level 1][stream...]
import bz2
import lzma
import zlib

C = "fuzz_codec"
NULL, DEFLATE, SNAPPY, ZSTD, BZIP2, XZ = range(6)


def raw_deflate(data, level=6):
    c = zlib.compressobj(level, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


def snappy_literal(data):
    """A snappy block of one literal (len < 61) plus Avro's big-endian CRC-32."""
    return bytes([len(data)]) + bytes([(len(data) - 1) << 2]) + data + zlib.crc32(data).to_bytes(4, "big")


HELLO = b"hello, avro container block " * 3
ZSTD_PIPE_HELLO = bytes.fromhex("28b52ffd045829000068656c6c6fa36d9f88")  # zstd(1) from a pipe: no size
ZSTD_FILE_HELLO = bytes.fromhex("28b52ffd240529000068656c6c6fa36d9f88")  # with its content size
for name, codec, stream in [
    ("null", NULL, HELLO),
    ("deflate", DEFLATE, raw_deflate(HELLO)),
    ("snappy", SNAPPY, snappy_literal(HELLO[:40])),
    ("snappy-empty", SNAPPY, b"\x00" + zlib.crc32(b"").to_bytes(4, "big")),
    ("zstd-unsized", ZSTD, ZSTD_PIPE_HELLO),
    ("zstd-sized", ZSTD, ZSTD_FILE_HELLO),
    ("bzip2", BZIP2, bz2.compress(HELLO, 9)),
    ("xz", XZ, lzma.compress(HELLO)),
]:
    write(C, name, bytes([codec, 10]) + stream)
    write(C, name + "-truncated", bytes([codec, 10]) + stream[: len(stream) // 2])
    write(C, name + "-level1", bytes([codec, 0x80 | 10]) + stream)
# Bombs: 1 MiB of zeros against a 4 KiB limit.
Z = bytes(1 << 20)
write(C, "bomb-deflate", bytes([DEFLATE, 12]) + raw_deflate(Z, 9))
write(C, "bomb-bzip2", bytes([BZIP2, 12]) + bz2.compress(Z, 1))
write(C, "bomb-xz", bytes([XZ, 12]) + lzma.compress(Z, preset=1))
write(C, "bomb-snappy-header", bytes([SNAPPY, 12]) + b"\x80\x80\x40" + b"\x00" * 8)
write(C, "snappy-crc-mismatch", bytes([SNAPPY, 10]) + snappy_literal(b"hello")[:-1] + b"\x00")
write(C, "deflate-reserved-block", bytes([DEFLATE, 10]) + b"\x07\x00\x00")

# ---- fuzz_file: whole object container files --------------------------------
# Small valid files of every codec (records from the Encoder above), the
# lenient codec names, and one damaged file per bad-file class.
F = "fuzz_file"
FILE_SYNC = bytes(range(0x40, 0x50))


def snappy_block(data):
    """Snappy block of literals (any length) plus Avro's big-endian CRC-32."""
    out, n = bytearray(), len(data)
    while True:  # uncompressed length, unsigned varint
        if n < 0x80:
            out.append(n)
            break
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    for i in range(0, len(data), 65536):
        chunk = data[i:i + 65536]
        m = len(chunk) - 1
        if m < 60:
            out.append(m << 2)
        elif m < 256:
            out += bytes([60 << 2, m])
        else:
            out += bytes([61 << 2]) + m.to_bytes(2, "little")
        out += chunk
    return bytes(out) + zlib.crc32(data).to_bytes(4, "big")


def zstd_raw(data):
    """A zstd frame of one raw block with its content size (len < 65792)."""
    n = len(data)
    if n < 256:
        head = bytes([0x20, n])
    else:
        head = bytes([0x60]) + (n - 256).to_bytes(2, "little")
    return bytes.fromhex("28b52ffd") + head + (1 | (n << 3)).to_bytes(3, "little") + data


CODECS = {
    "null": lambda d: d,
    "deflate": raw_deflate,
    "snappy": snappy_block,
    "zstandard": zstd_raw,
    "zstd": zstd_raw,
    "bzip2": lambda d: bz2.compress(d, 9),
    "xz": lambda d: lzma.compress(d),
    "lzma": lambda d: lzma.compress(d),
}


def container(schema_json, codec, blocks, meta=(), sync=FILE_SYNC, magic=b"Obj\x01"):
    """blocks: lists of encoded records; codec None: no avro.codec entry."""
    entries = [(b"avro.schema", schema_json.encode())]
    if codec is not None:
        entries.append((b"avro.codec", codec.encode()))
    entries += list(meta)
    out = bytearray(magic) + enc(len(entries))
    for k, v in entries:
        out += enc(len(k)) + k + enc(len(v)) + v
    out += enc(0) + sync
    for recs in blocks:
        data = CODECS[codec or "null"](b"".join(recs))
        out += enc(len(recs)) + enc(len(data)) + data + sync
    return bytes(out)


def raw_block(count, size, data, sync=FILE_SYNC):
    return enc(count) + enc(size) + data + sync


schemas = fuzz_schemas()
for si in (0, 3, 5, 9):
    schema = schemas[si]
    e = Encoder(schema, random.Random(5000 + si))
    text = json.dumps(schema)
    blocks = [[e.value(schema) for _ in range(n)] for n in (3, 1, 4)]
    for codec in CODECS:
        write(F, "s%02d-%s" % (si, codec), container(text, codec, blocks))
    write(F, "s%02d-no-codec-entry" % si, container(text, None, blocks, meta=[(b"user", b"meta")]))

LONG = '"long"'
lb = lambda first, n: [enc(j * 1000 - 3) for j in range(first, first + n)]
good = container(LONG, "deflate", [lb(0, 3), lb(3, 3), lb(6, 2)])
head = container(LONG, "null", [])
write(F, "long-deflate", good)
write(F, "header-only", head)
write(F, "legacy-magic", container(LONG, "null", [lb(0, 2)], magic=b"Obj\x00"))
write(F, "wrong-magic", container(LONG, "null", [lb(0, 2)], magic=b"Obj\x02"))
write(F, "short-header", head[:len(head) - 5])
write(F, "unknown-codec", container(LONG, "gzip", []))
write(F, "bad-schema", container('{"type": "record", "name": "R", "fields": [{"name": "a", "type": "nope"}]}', None, []))
write(F, "no-schema", b"Obj\x01" + enc(1) + enc(10) + b"avro.codec" + enc(4) + b"null" + enc(0) + FILE_SYNC)
write(F, "huge-meta-count", b"Obj\x01" + enc(1 << 40) + enc(0) + FILE_SYNC)
write(F, "negative-meta-length", b"Obj\x01" + enc(1) + enc(-11) + b"avro.schema" + enc(0) + FILE_SYNC)
d3 = b"".join(lb(6, 3))
two = container(LONG, None, [lb(0, 3), lb(3, 3)])
d100 = b"".join(lb(100, 2))
tail = raw_block(2, len(d100), d100)
write(F, "sync-mismatch", two + raw_block(3, len(d3), d3, bytes(16)) + tail)
write(F, "negative-count", two + raw_block(-1, len(d3), d3) + tail)
write(F, "count-int64-min", two + raw_block(-2**63, len(d3), d3) + tail)
write(F, "negative-size", two + raw_block(3, -5, d3) + tail)
write(F, "size-past-end", two + raw_block(3, len(d3) + 500, d3))
write(F, "size-huge", two + raw_block(3, 1 << 40, d3))
write(F, "count-more", two + raw_block(10, len(d3), d3) + tail)
write(F, "count-fewer", two + raw_block(2, len(d3), d3) + tail)
write(F, "count-huge", two + raw_block(1 << 40, len(d3), d3) + tail)
write(F, "bad-record", two + raw_block(2, 12, enc(5) + bytes([0xFF] * 10 + [0x01])) + tail)
write(F, "truncated-last-block", good[:len(good) - 20])
write(F, "truncated-in-marker", good[:len(good) - 5])
zeros = bytes(2 << 20)  # 2 MiB of zeros: over the target's 1 MiB max_block_data
bomb = raw_deflate(zeros, 9)
write(F, "bomb-deflate", container(LONG, "deflate", [lb(0, 2)]) + raw_block(len(zeros), len(bomb), bomb))
snap = bytearray(snappy_block(d3))
snap[-1] ^= 1
write(F, "snappy-crc", container(LONG, "snappy", [lb(0, 3)]) + raw_block(3, len(snap), bytes(snap)))
write(F, "corrupt-deflate", container(LONG, "deflate", [lb(0, 3)]) + raw_block(3, 16, bytes([0xFF] * 16)))
write(F, "corrupt-zstd", container(LONG, "zstandard", [lb(0, 3)]) + raw_block(3, 16, bytes([0xFF] * 16)))
d9, d11 = b"".join(lb(9, 2)), b"".join(lb(11, 1))
write(F, "skip-middle", two + raw_block(3, len(d3), d3, bytes(16)) + raw_block(2, len(d9), d9) + raw_block(1, len(d11), d11))
# The header read one way only: repeated keys and keys holding a NUL byte are
# refused, entries are limited; the map may come in several blocks (negative
# counts with their byte sizes); next_block checks counts as next does.
write(F, "meta-repeated-schema", container('"int"', None, [lb(0, 1)], meta=[(b"avro.schema", b'"string"')]))
write(F, "meta-repeated-user", container(LONG, "null", [lb(0, 2)], meta=[(b"u", b"1"), (b"v", b""), (b"u", b"2")]))
write(F, "meta-nul-key", container(LONG, "null", [lb(0, 2)], meta=[(b"a\0b", b"1"), (b"a\0c", b"2")]))
write(F, "meta-key-not-utf8", container(LONG, "null", [lb(0, 2)], meta=[(b"k\xff", b"1"), (b"k\xfe", b"2")]))
write(F, "meta-many-entries", b"Obj\x01" + enc(70000) + enc(11) + b"avro.schema" + enc(6) + LONG.encode()
      + b"\0\0" * 64 + enc(0) + FILE_SYNC)
mb = enc(10) + b"avro.codec" + enc(7) + b"deflate" + enc(1) + b"a" + enc(1) + b"1"
meta_blocks = (b"Obj\x01" + enc(1) + enc(11) + b"avro.schema" + enc(6) + LONG.encode()
               + enc(-2) + enc(len(mb)) + mb + enc(2) + enc(1) + b"b" + enc(0) + enc(1) + b"c"
               + enc(1) + b"3" + enc(0) + FILE_SYNC)
dd = raw_deflate(b"".join(lb(0, 3)))
write(F, "meta-blocks", meta_blocks + raw_block(3, len(dd), dd))
write(F, "meta-block-size-lies", b"Obj\x01" + enc(1) + enc(11) + b"avro.schema" + enc(6) + LONG.encode()
      + enc(-2) + enc(len(mb) + 1) + mb + enc(0) + FILE_SYNC)
write(F, "count-2p62-in-1-byte", container(LONG, "null", [lb(0, 2)]) + raw_block(1 << 62, 1, enc(3)))
write(F, "count-deflate-over-limit", container(LONG, "deflate", [lb(0, 2)]) + raw_block((1 << 20) + 1, len(dd), dd))
nulls = b"Obj\x01" + enc(1) + enc(11) + b"avro.schema" + enc(6) + b'"null"' + enc(0) + FILE_SYNC
write(F, "null-records", nulls + raw_block(5, 0, b"") + raw_block(1 << 62, 0, b"") + raw_block(2, 0, b""))
# Reproducers of failures found by fuzzing fuzz_file (kept as regression inputs).
# A bzip2 block of count 0 whose data holds a record: bytes left over that
# the reader did not report (it read on to the next block).
write(F, "crash-zero-count-leftover", bytes.fromhex(
    "4f626a0104166176726f2e736368656d611022737472696e6722146176726f2e636f6465630a627a69703200"
    "404142434445464748494a4b4c4d4e4f067a425a68393141592653598ec5cfbd000000417181500244d00000"
    "408004100040002000229a327a0ca1000000c1e13ab2522be2ee48a70a1211d8b9f7a0404142434445464748"
    "494a4b4c4d4e4f004e425a6839314159265359f7dedead0000004100100020002000210082b177245385090f"
    "7dedead0404142434445464748494a4b4c4d4e4f088001425a68393141592653594d966d7d00000141718150"
    "0244d0000040800410004000200031000006a68c9e90f287d70766c7504d841fc5dc914e142413659b5f4040"
    "4142434445464748494a4b4c4d4e4f"))
write(F, "zero-count-leftover", two + raw_block(0, len(d3), d3) + tail)

# ---- fuzz_resolve: [pair][writer values] or [0x80][writer\0reader\0bytes] ----
RS = "fuzz_resolve"


def rstr(b):
    b = b.encode() if isinstance(b, str) else b
    return enc(len(b)) + b


def f32(x):
    return struct.pack("<f", x)


# Pair 0: a record with promotions, a map-of-bytes array the reader drops, an aliased field.
write(RS, "record", bytes([0]) + enc(5) + enc(1 << 33) + f32(1.5) + rstr("hi")
      + enc(1) + enc(1) + rstr("k") + rstr(b"\x00\xff") + enc(0) + enc(0) + enc(9))
write(RS, "ints-as-doubles", bytes([1]) + enc(3) + enc(1) + enc(-2) + enc(300) + enc(0))
write(RS, "longs-as-floats", bytes([2]) + enc(2) + enc(1 << 40) + enc(-5) + enc(0))
write(RS, "floats-as-doubles", bytes([3]) + enc(2) + f32(0.25) + f32(-3.0)
      + enc(-1) + enc(4) + f32(7.0) + enc(0))
write(RS, "union-items-as-longs", bytes([4]) + enc(3) + enc(0) + enc(5) + enc(1) + rstr("x")
      + enc(0) + enc(-7) + enc(0))
write(RS, "enum-remap", bytes([5]) + enc(0) + enc(1) + enc(2) + enc(3))
write(RS, "enum-missing", bytes([6]) + enc(2) + rstr("k") + enc(1) + rstr("j") + enc(0) + enc(0))
write(RS, "unions", bytes([7]) + enc(0) + enc(1) + enc(5) + enc(2) + rstr("s") + enc(3) + b"abc")
write(RS, "union-to-long", bytes([8]) + enc(0) + enc(7) + enc(1) + b"\x01")
write(RS, "int-to-union", bytes([9]) + enc(42) + enc(-1))
write(RS, "list", bytes([10]) + enc(1) + enc(1) + enc(2) + enc(1) + enc(3) + enc(0))
write(RS, "skip-nested", bytes([11]) + enc(2) + rstr("a") + rstr("b") + enc(0)
      + enc(1) + enc(0) + enc(0) + enc(3))
write(RS, "pair-add-field", b"\x80" + b'{"type":"record","name":"A","fields":[{"name":"x","type":"int"}]}'
      + b"\0" + b'{"type":"record","name":"A","fields":[{"name":"x","type":"long"},'
      b'{"name":"y","type":"string","default":"z"}]}' + b"\0" + enc(5) + enc(-6))
write(RS, "pair-no-default", b"\x80" + b'{"type":"record","name":"A","fields":[]}' + b"\0"
      + b'{"type":"record","name":"A","fields":[{"name":"y","type":"int"}]}' + b"\0")
write(RS, "pair-unions", b"\x80" + b'["int",{"type":"enum","name":"E","symbols":["a","b"]}]' + b"\0"
      + b'[{"type":"enum","name":"E","symbols":["b"],"default":"b"},"double"]' + b"\0"
      + enc(0) + enc(3) + enc(1) + enc(0))
