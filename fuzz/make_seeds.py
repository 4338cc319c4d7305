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
