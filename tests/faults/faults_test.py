#!/usr/bin/python3
"""Injected I/O faults and allocation failures at every call of the CLI and library scenarios.

Usage: faults_test.py SHIM.so AVROKIT FAULTIO_SCENARIO ORDER.avsc [SCENARIO...]

Each scenario runs once clean under the shim (tests/support/faultshim.c)
counting its calls of read, write, fsync, close (only on files of the
scenario's own directory, AVKT_FAULT_PATH) and malloc, then once per
(operation, N, kind) with the Nth call failing:
  EINTR, short   handled without a trace: exit 0, output byte-identical
  EIO, ENOSPC    exit non-zero (no signal, no sanitizer report), stderr names the
                 file and the operation, the CLI's output file is left as it
                 was before the run (a sentinel) and no temporary file
                 (.NAME.avrokit-*) stays beside it
  malloc null    exit 0 with identical output, or a non-zero exit with a
                 message on stderr, no crash, output untouched as above
A scenario may list operations it legitimately gets around (recovers): the
block index is only a shortcut, so tojson --offset and index may exit 0 with
the clean output after a read error there.
Every I/O call is tried (a few 64 KiB blocks per file keep them to tens).
Allocations are tried for every N up to 64, then with a stride that keeps
about 64 more runs per scenario (N = count is always tried too): every one
would be a few thousand runs for little more. About 1,400 runs: 30 s on an
idle machine, about 60 s on a loaded one.
Extra arguments run only the scenarios named (e.g. `cat lib-write`).
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

SENTINEL = b"previous contents of the output file\n"
OPS_IO = ("read", "write", "fsync", "close")
KINDS = {"read": ("EINTR", "short", "EIO"),
         "write": ("EINTR", "short", "EIO", "ENOSPC"),
         "fsync": ("EINTR", "EIO", "ENOSPC"),
         "close": ("EINTR", "EIO", "ENOSPC")}
OP_WORDS = {"read": ("read",), "write": ("writ",), "fsync": ("fsync", "sync", "flush"),
            "close": ("clos",)}
MALLOC_ALL = 64
MALLOC_MORE = 64

failures = []
runs = 0


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg, flush=True)


class Scenario:
    """argv uses {in}, {out}; out_kind: 'file' (CLI temp+rename: sentinel
    kept on failure), 'libfile' (the library writes in place: only the exit
    status and message are checked), 'stdout' (compared on success only)."""

    def __init__(self, name, argv, inputs, out_name, out_kind, in_name=None, recovers=(),
                 original=None):
        self.name, self.argv, self.inputs = name, argv, inputs
        # 'append': out_name is an existing file (one of the inputs) that
        # the command adds to in place; a failure must leave these bytes.
        self.original = original
        self.out_name, self.out_kind, self.in_name = out_name, out_kind, in_name
        # Operations whose failure the command may get around, exiting 0
        # with the clean run's output.
        self.recovers = recovers


def run(sc, root, fault=None, count_file=None):
    """Runs sc in a fresh directory under root; returns (rc, stdout, stderr, outbytes, dir)."""
    global runs
    runs += 1
    d = tempfile.mkdtemp(prefix="avkfault-", dir=root)
    for src, dst in sc.inputs:
        shutil.copy2(src, os.path.join(d, dst))  # the same mtime: index keeps it
    out = os.path.join(d, sc.out_name) if sc.out_name else None
    if sc.out_kind == "file":
        with open(out, "wb") as f:
            f.write(SENTINEL)
    argv = [a.format(dir=d, out=out or "") for a in sc.argv]
    env = dict(os.environ)
    env["LD_PRELOAD"] = SHIM
    env["AVKT_FAULT_PATH"] = d + "/"
    env.pop("AVKT_FAULT", None)
    if fault:
        env["AVKT_FAULT"] = fault
    if count_file:
        env["AVKT_FAULT_COUNT"] = count_file
    stdout_target = subprocess.PIPE
    fp = None
    if sc.out_kind == "stdout":
        fp = open(out, "wb")
        stdout_target = fp
    p = subprocess.run(argv, stdout=stdout_target, stderr=subprocess.PIPE, env=env, timeout=60)
    if fp:
        fp.close()
    outbytes = None
    if out and os.path.exists(out):
        with open(out, "rb") as f:
            outbytes = f.read()
    elif not sc.out_name:
        outbytes = p.stdout
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace"), outbytes, d


def normalized(sc, data):
    """A container file with its sync marker (its last 16 bytes) zeroed
    wherever it occurs: fromjson and cat draw a random one per run."""
    if data is None or sc.out_kind not in ("file", "libfile") or len(data) < 16 \
            or data == SENTINEL or not sc.out_name.endswith(".avro"):
        return data
    return data.replace(data[-16:], bytes(16))


def temps_left(sc, d):
    if not sc.out_name:
        return []
    # The CLI's (tools/avrokit/cli_output.c) and the index sidecar's
    # (src/file/file_index_sidecar.c) temporary names.
    prefixes = ("." + sc.out_name + ".avrokit-", sc.out_name + ".tmp-")
    return [n for n in os.listdir(d) if n.startswith(prefixes)]


def check(sc, fault, op, kind, clean, res):
    rc, _, err, outbytes, d = res
    outbytes = normalized(sc, outbytes)
    what = "%s AVKT_FAULT=%s" % (sc.name, fault)
    tail = " (stderr: %s)" % err.strip()[-300:]
    if rc < 0 or rc >= 128 or "Sanitizer" in err or "runtime error" in err:
        fail("%s: crashed, status %d%s" % (what, rc, tail))
        return
    left = temps_left(sc, d)
    if left:
        fail("%s: temporary file left: %s" % (what, left))
    if kind in ("EINTR", "short"):
        if rc != 0:
            fail("%s: exit %d, expected 0 as the clean run%s" % (what, rc, tail))
        elif outbytes != clean:
            fail("%s: output differs from the clean run" % what)
        return
    if rc == 0:
        nth = ":".join(fault.split(":")[:2])  # "close:2": that call only
        if (op == "malloc" or op in sc.recovers or nth in sc.recovers) and outbytes == clean:
            return  # an allocation the program recovers from
        if outbytes != clean:
            fail("%s: exit 0 with output different from the clean run (short file?)" % what)
        else:
            fail("%s: exit 0 although the fault was not recovered from%s" % (what, tail))
        return
    if not err.strip():
        fail("%s: exit %d with nothing on stderr" % (what, rc))
    if sc.out_kind == "file" and outbytes not in (None, SENTINEL):
        fail("%s: exit %d but the output file was changed" % (what, rc))
    if sc.out_kind == "append" and res[3] != sc.original:
        fail("%s: exit %d but the records appended were not taken off again" % (what, rc))
    if op == "malloc":
        return
    # The file the fault hit: the scenario's output for write/fsync/close,
    # its input for read (count/tojson write to a pipe or stdout).
    names = [sc.in_name] if op == "read" else [sc.out_name]
    if sc.out_kind == "append" and op == "read":
        names = [sc.in_name, sc.out_name]  # its blocks are read and checked first
    if sc.out_kind == "stdout" and op != "read":
        names = [sc.out_name, "standard output", "stdout"]
    low = err.lower()
    if not any(n and n in err for n in names):
        fail("%s: message does not name the file %s%s" % (what, names[0], tail))
    if not any(w in low for w in OP_WORDS[op]):
        fail("%s: message does not name the operation %s%s" % (what, op, tail))


def malloc_ns(count):
    ns = list(range(1, min(count, MALLOC_ALL) + 1))
    if count > MALLOC_ALL:
        stride = max(1, (count - MALLOC_ALL) // MALLOC_MORE)
        ns += list(range(MALLOC_ALL + stride, count + 1, stride))
        if ns[-1] != count:
            ns.append(count)
    return ns


def scenario_run(sc, root):
    cf = os.path.join(root, sc.name + ".counts")
    rc, _, err, clean, d = run(sc, root, count_file=cf)
    clean = normalized(sc, clean)
    if rc != 0:
        fail("%s: clean run failed with %d: %s" % (sc.name, rc, err))
        return
    shutil.rmtree(d)
    if not os.path.exists(cf):
        fail("%s: the shim wrote no counts (not preloaded?): %s" % (sc.name, err.strip()))
        return
    counts = {}
    with open(cf) as f:
        for line in f:
            op, n = line.split()
            counts[op] = int(n)
    print("%s: calls %s" % (sc.name, counts), flush=True)
    plan = []
    for op in OPS_IO:
        for n in range(1, counts.get(op, 0) + 1):
            for kind in KINDS[op]:
                plan.append((op, n, kind))
    for n in malloc_ns(counts.get("malloc", 0)):
        plan.append(("malloc", n, "null"))
    for op, n, kind in plan:
        fault = "%s:%d:%s" % (op, n, kind)
        res = run(sc, root, fault=fault)
        check(sc, fault, op, kind, clean, res)
        shutil.rmtree(res[4])


def main():
    global SHIM
    if len(sys.argv) < 5:
        print(__doc__)
        return 2
    SHIM, cli, scen, schema = (os.path.abspath(a) for a in sys.argv[1:5])
    only = set(sys.argv[5:])
    root = tempfile.mkdtemp(prefix="avkfaults-")
    start = time.time()
    try:
        # Inputs, made without the shim: a few blocks of orders (fromjson
        # writes a block per 64 KiB of records).
        src = os.path.join(root, "src")
        os.mkdir(src)
        avro = os.path.join(src, "in.avro")
        subprocess.run([cli, "random", "--schema", schema, "--count", "2000", "--seed", "7",
                        "--codec", "deflate", avro], check=True, stdout=subprocess.DEVNULL)
        js = os.path.join(src, "in.json")
        with open(js, "wb") as f:
            subprocess.run([cli, "tojson", avro], check=True, stdout=f)
        lib = os.path.join(src, "lib.avro")
        subprocess.run([scen, "write", lib], check=True, stdout=subprocess.DEVNULL)
        A, J, S = [(avro, "in.avro")], [(js, "in.json")], [(schema, "order.avsc")]
        scenarios = [
            Scenario("fromjson-deflate",
                     [cli, "fromjson", "--quiet", "--schema", "{dir}/order.avsc", "--codec",
                      "deflate", "{dir}/in.json", "{out}"], J + S, "out.avro", "file",
                     "in.json"),
            Scenario("fromjson-null",
                     [cli, "fromjson", "--quiet", "--schema", "{dir}/order.avsc",
                      "{dir}/in.json", "{out}"], J + S, "out.avro", "file", "in.json"),
            Scenario("cat", [cli, "cat", "--quiet", "{dir}/in.avro", "-o", "{out}"], A,
                     "out.avro", "file", "in.avro"),
            # In place: a failed run cuts the file back (tools/avrokit/cli_append.c).
            Scenario("fromjson-append",
                     [cli, "fromjson", "--quiet", "--append", "{dir}/in.json", "{out}"],
                     J + [(avro, "out.avro")], "out.avro", "append", "in.json",
                     original=open(avro, "rb").read(),
                     # The second close is of the fd kept only to cut a failed
                     # run back: nothing was written through it.
                     recovers=("close:2",)),
            Scenario("recodec", [cli, "recodec", "--quiet", "--codec", "zstandard",
                                 "{dir}/in.avro", "{out}"], A, "out.avro", "file", "in.avro"),
            Scenario("tojson", [cli, "tojson", "--quiet", "{dir}/in.avro"], A, "out.json",
                     "stdout", "in.avro"),
            # -j 2: blocks read ahead on a thread (pread, src/file/file_prefetch.c).
            Scenario("tojson-j2", [cli, "tojson", "--quiet", "-j", "2", "{dir}/in.avro"], A,
                     "out.json", "stdout", "in.avro"),
            Scenario("recodec-j2", [cli, "recodec", "--quiet", "-j", "2", "--codec", "deflate",
                                    "{dir}/in.avro", "{out}"], A, "out.avro", "file", "in.avro"),
            # --offset walks the block headers (pread, src/file/file_index.c).
            # The index only saves time: when it cannot be built the records
            # are skipped in order (tools/avrokit/cli_index.c), so a read
            # error there may end in the same output and exit 0.
            Scenario("tojson-offset", [cli, "tojson", "--quiet", "--offset", "1500",
                                       "{dir}/in.avro"], A, "out.json", "stdout", "in.avro",
                     recovers=("read",)),
            # The sidecar in.avro.avkidx: a temporary file renamed over the
            # old one (here the sentinel, which index finds damaged).
            # An old sidecar that cannot be read is rebuilt, as a damaged one.
            Scenario("index", [cli, "index", "{dir}/in.avro"], A, "in.avro.avkidx", "file",
                     "in.avro", recovers=("read",)),
            Scenario("count-verify", [cli, "count", "--verify", "{dir}/in.avro"], A, None,
                     "pipe", "in.avro"),
            Scenario("repair", [cli, "repair", "--quiet", "{dir}/in.avro", "{out}"], A,
                     "out.avro", "file", "in.avro"),
            # It reads its output too: append_path checks every block first.
            Scenario("lib-write", [scen, "write", "{out}"], [], "out.avro", "libfile",
                     "out.avro"),
            Scenario("lib-read", [scen, "read", "{dir}/lib.avro"], [(lib, "lib.avro")], None,
                     "pipe", "lib.avro"),
        ]
        for sc in scenarios:
            if not only or sc.name in only:
                scenario_run(sc, root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print("%d runs in %.1f s, %d failures" % (runs, time.time() - start, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
