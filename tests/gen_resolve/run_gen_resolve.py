#!/usr/bin/env python3
"""Runs `avrokit gen --reader` on every writer/reader pair of the apache data,
builds the generated code with gen_resolve_main.c and runs it (see there).

Usage: run_gen_resolve.py --cli AVROKIT --interop DIR --work DIR --cc CC
         --include DIR --lib LIBAVROKIT --src PROJECT_SOURCE_DIR [--cxx CXX]
         [--cflags FLAGS]
Exits 77 (skipped) when the interop data is absent."""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys


def c_string(s):
    out = ['"']
    for ch in s.encode("utf-8"):
        if ch in (0x22, 0x5C):
            out.append("\\" + chr(ch))
        elif ch < 0x20 or ch >= 0x7F or ch == 0x3F:
            out.append("\\%03o" % ch)
        else:
            out.append(chr(ch))
    out.append('"')
    return "".join(out)


def collect(interop, own):
    """(name, writer schema, reader schema, hex or None, gen options) for
    every pair: this folder's pairs/ (what the apache data lacks: recursion,
    aliases, every union form, typed arrays with promotions, defaults of
    every kind), also with --copy-strings, then the apache ones."""
    pairs = []
    for opts in ([], ["--copy-strings"]):
        for path in sorted(glob.glob(os.path.join(own, "*.json"))):
            with open(path) as f:
                d = json.load(f)
            pairs.append((" ".join(["pairs/" + os.path.basename(path)] + opts), d["writer"],
                          d["reader"], None, opts))
    for path in sorted(glob.glob(os.path.join(interop, "apache/resolution-pairs/*.json"))):
        with open(path) as f:
            d = json.load(f)
        pairs.append((os.path.basename(path), d["writer"], d["reader"], None, []))
    tables = [("py_io_resolution_reads.json", "input_hex"),
              ("py_io_default_values.json", "binary_hex")]
    for table, key in tables:
        with open(os.path.join(interop, "apache/tables", table)) as f:
            rows = json.load(f)
        for i, d in enumerate(rows):
            pairs.append(("%s[%d]" % (table, i), d["writer_schema"], d["reader_schema"], d.get(key),
                          []))
    return pairs


def main():
    ap = argparse.ArgumentParser()
    for opt in ("--cli", "--interop", "--work", "--cc", "--include", "--lib", "--src"):
        ap.add_argument(opt, required=True)
    ap.add_argument("--cxx")
    ap.add_argument("--cflags", default="", help="the build's C flags (sanitizers)")
    ap.add_argument("--emulator", default="",
                    help="a cross build's emulator (a CMake list) that runs the test program")
    a = ap.parse_args()
    if not os.path.isdir(os.path.join(a.interop, "apache", "resolution-pairs")):
        print("gen_resolve: skipped: the shared interop data (%s) is absent" % a.interop)
        return 77
    if os.path.isdir(a.work):
        shutil.rmtree(a.work)
    gen_dir = os.path.join(a.work, "gen")
    os.makedirs(gen_dir)
    base_cmd = [a.cc] + a.cflags.split() + ["-std=c11", "-O1", "-g", "-Wall", "-Wextra", "-Werror",
                                            "-D_DEFAULT_SOURCE", "-I", a.include]
    pairs = []
    for n, (name, writer, reader, hexdata, gen_opts) in enumerate(collect(
            a.interop, os.path.join(a.src, "tests", "gen_resolve", "pairs"))):
        tag = "p%d" % n
        d = os.path.join(gen_dir, tag)
        os.makedirs(d)
        wpath = os.path.join(d, tag + "_writer.avsc")
        rpath = os.path.join(d, tag + "_reader.avsc")
        wtext, rtext = json.dumps(writer), json.dumps(reader)
        with open(wpath, "w") as f:
            f.write(wtext)
        with open(rpath, "w") as f:
            f.write(rtext)
        run = subprocess.run([a.cli, "gen", "--reader", rpath, "--prefix", tag, "--list"] + gen_opts +
                             [wpath, "-o", d], capture_output=True, text=True)
        if run.returncode not in (0, 1):
            print("gen_resolve: %s: avrokit gen exited %d: %s" % (name, run.returncode, run.stderr))
            return 1
        p = {"tag": tag, "name": name, "w": wtext, "r": rtext, "hex": hexdata,
             "ok": run.returncode == 0, "msg": run.stderr, "objs": [], "cerr": None,
             "reader_err": None}
        if p["ok"]:
            lines = [l.split("\t") for l in run.stdout.splitlines() if l]
            own = [l for l in lines if l[0] != "resolve"][0]
            res = [l for l in lines if l[0] == "resolve"][0]
            p.update(fn=own[4], header=res[3], func=res[6], sources=[own[2], res[4]])
        pairs.append(p)

    # Each pair's sources on their own, two compilers at a time: a pair whose
    # code does not compile is reported and the others still run.
    cmds = []
    for p in pairs:
        if not p["ok"]:
            continue
        for k, src in enumerate(p["sources"]):
            obj = src[:-2] + ".o"
            cmds.append((p, base_cmd + ["-c", src, "-o", obj], obj if k else "reader"))
        if a.cxx:
            # The pair's source compiles as C++17 too (the spec's rule).
            cmds.append((p, [a.cxx, "-std=c++17", "-x", "c++", "-fsyntax-only", "-Wall", "-Wextra",
                             "-Werror", "-I", a.include, p["sources"][1]], None))
    running = []

    def finish(job):
        p, proc, obj = job
        out, _ = proc.communicate()
        if proc.returncode != 0 and obj == "reader":
            p["reader_err"] = out[:4000]
        elif proc.returncode != 0:
            p["cerr"] = (p["cerr"] or "") + out[:4000]
        elif obj == "reader":
            p["objs"].append(p["sources"][0][:-2] + ".o")
        elif obj:
            p["objs"].append(obj)

    for p, cmd, obj in cmds:
        if len(running) >= 2:
            finish(running.pop(0))
        running.append((p, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                            text=True), obj))
    for job in running:
        finish(job)
    compile_failures = reader_failures = 0
    entries, glue, objs = [], [], []
    for p in pairs:
        decode = "NULL"
        if p["ok"] and p["reader_err"]:
            # The reader's own files (the type emitter, gen_run) do not
            # compile, and the pair's files include its header: nothing of
            # the resolution can be checked here. Reported, not failed:
            # tests/gen covers the reader's files.
            reader_failures += 1
            print("SKIP %s (%s): the reader's own generated files do not compile:\n%s" %
                  (p["tag"], p["name"], p["reader_err"]))
        elif p["ok"] and p["cerr"]:
            compile_failures += 1
            print("FAIL %s (%s): the generated code does not compile:\n%s" %
                  (p["tag"], p["name"], p["cerr"]))
        elif p["ok"]:
            objs += p["objs"]
            tag, fn = p["tag"], p["fn"]
            glue.append('#include "%s/%s"\n' % (tag, os.path.basename(p["header"])))
            glue.append(
                "static avk_status glue_%s(avk_reader *r, avk_arena *a, const avk_limits *lim,\n"
                "                          const avk_type *t, avk_value *out, avk_error *err)\n{\n"
                "    /* In the arena: the value may point into it (fixed bytes). */\n"
                "    %s *x = (%s *)avk_arena_alloc(a, sizeof *x, 16);\n    avk_status st;\n"
                "    if (!x)\n        return AVK_ERR_NO_MEMORY;\n    memset(x, 0, sizeof *x);\n"
                "    st = %s(r, a, lim, x, err);\n"
                "    return st != AVK_OK ? st : %s_to_value(x, t, a, out, err);\n}\n"
                % (tag, fn, fn, p["func"], fn))
            decode = "glue_" + tag
        entries.append("    {%s, %s, %s, %s, %d, %s, %s},\n" % (
            c_string("%s (%s)" % (p["tag"], p["name"])), c_string(p["w"]), c_string(p["r"]),
            c_string(p["hex"]) if p["hex"] else "NULL", 1 if p["ok"] else 0,
            c_string(p["msg"]), decode))
    with open(os.path.join(gen_dir, "pairs.inc"), "w") as f:
        f.write("/* Written by run_gen_resolve.py. */\n")
        f.write("".join(glue))
        f.write("static const pair pairs[] = {\n%s};\n" % "".join(entries))
    exe = os.path.join(a.work, "gen_resolve_run")
    cmd = base_cmd + ["-I", gen_dir, "-I", os.path.join(a.src, "tools", "avrokit"),
                      os.path.join(a.src, "tests", "gen_resolve", "gen_resolve_main.c"),
                      os.path.join(a.src, "tools", "avrokit", "random_value.c")] + objs + [
        a.lib, "-Wl,-rpath," + os.path.dirname(os.path.abspath(a.lib)), "-lm", "-o", exe]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        print("gen_resolve: the test program does not build:\n" + run.stderr[:20000])
        return 1
    emulator = [w for w in a.emulator.split(";") if w]
    run = subprocess.run(emulator + [exe], capture_output=True, text=True)
    sys.stdout.write(run.stdout)
    sys.stdout.write(run.stderr)
    if reader_failures:
        print("gen_resolve: %d pairs skipped: the reader's own files do not compile" %
              reader_failures)
    if compile_failures:
        print("gen_resolve: %d pairs' resolving code does not compile" % compile_failures)
        return 1
    return run.returncode


if __name__ == "__main__":
    sys.exit(main())
