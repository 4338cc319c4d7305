#!/usr/bin/env python3
"""Writes the seed inputs of fuzz/corpus/fuzz_gen/ from records `avrokit random` makes for fuzz/gen_schemas/.

    python3 fuzz/make_gen_seeds.py build/tools/avrokit/avrokit

Rerun after adding a schema or changing fuzz_gen's input layout. A seed is
[mode byte][one record's encoding]; the mode byte's low 4 bits are the
schema's index in the sorted list of gen_schemas/*.avsc, which is the order
of fuzz_gen.c's table.
"""
import glob
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus", "fuzz_gen")

# Mode bits (fuzz_gen.c): 4-5 limits, 6 stream reader, 7 default limits.
MODES = {"mem": 0x00, "tight": 0x10, "stream": 0x40, "defaults": 0x80}


def read_long(buf, pos):
    shift = u = 0
    while True:
        b = buf[pos]
        pos += 1
        u |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return (u >> 1) ^ -(u & 1), pos


def enc(v):
    u, out = ((v << 1) ^ (v >> 63)) & 0xFFFFFFFFFFFFFFFF, bytearray()
    while u >= 0x80:
        out.append((u & 0x7F) | 0x80)
        u >>= 7
    out.append(u)
    return bytes(out)


def records(path):
    """The encoded records of a null-codec container file, one bytes each
    (the CLI writes a block per record here: count 1)."""
    buf = open(path, "rb").read()
    assert buf[:4] == b"Obj\x01", path
    pos = 4
    while True:  # metadata map blocks
        n, pos = read_long(buf, pos)
        if n == 0:
            break
        if n < 0:
            n = -n
            _, pos = read_long(buf, pos)
        for _ in range(n):
            for _ in range(2):
                ln, pos = read_long(buf, pos)
                pos += ln
    pos += 16
    out = []
    while pos < len(buf):
        count, pos = read_long(buf, pos)
        size, pos = read_long(buf, pos)
        out.append((count, buf[pos:pos + size]))
        pos += size + 16
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_gen_seeds.py PATH/TO/avrokit")
    cli = sys.argv[1]
    schemas = sorted(glob.glob(os.path.join(HERE, "gen_schemas", "*.avsc")))
    os.makedirs(OUT, exist_ok=True)
    for old in glob.glob(os.path.join(OUT, "*")):
        os.remove(old)
    with tempfile.TemporaryDirectory() as tmp:
        for index, schema in enumerate(schemas):
            base = os.path.splitext(os.path.basename(schema))[0]
            for seed, mode in enumerate(MODES):
                avro = os.path.join(tmp, "%s-%d.avro" % (base, seed))
                subprocess.run([cli, "random", "--schema", schema, "--count", "1",
                                "--seed", str(seed + 1), "--quiet", avro], check=True)
                blocks = records(avro)
                assert len(blocks) == 1 and blocks[0][0] == 1, (schema, blocks)
                data = blocks[0][1]
                if len(data) > 2000:
                    continue  # keep the corpus small
                with open(os.path.join(OUT, "%s-%s" % (base, mode)), "wb") as f:
                    f.write(bytes([MODES[mode] | index]) + data)
                if seed == 0 and len(data) > 1:
                    with open(os.path.join(OUT, "%s-truncated" % base), "wb") as f:
                        f.write(bytes([index]) + data[:len(data) // 2])
        # A linked list 200 nodes deep: past the tight limits' depth, within
        # the others.
        lst = [i for i, s in enumerate(schemas) if s.endswith("/list.avsc")]
        if lst:
            deep = b"".join(enc(i) + enc(1) for i in range(199)) + enc(199) + enc(0)
            for mode in ("mem", "tight", "defaults"):
                with open(os.path.join(OUT, "list-deep-%s" % mode), "wb") as f:
                    f.write(bytes([MODES[mode] | lst[0]]) + deep)


if __name__ == "__main__":
    main()
