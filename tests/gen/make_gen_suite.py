#!/usr/bin/env python3
"""Builds the inputs of the `avrokit gen` suite (tests/gen/gen_test.c) from the shared apache data.

Usage:
  make_gen_suite.py prepare INTEROP_DIR OUT_DIR
      At configure time: every valid schema of INTEROP_DIR/apache
      (schemas-valid/*.avsc, lang/c/tests/schema_tests/pass/*, and the
      schemas of tables/py_io_schema_datum_binary.json) written once each
      (identical JSON kept once) as OUT_DIR/schemas/sNNN.avsc; the table
      rows' bytes kept with their schema; OUT_DIR/cases.cmake sets
      AVK_GEN_CASES to the ids; OUT_DIR/cxx/sNNN_cxx.cc includes the
      generated sNNN.c, so the same source is compiled as C++ too; and
      OUT_DIR/cases.json keeps what the generate step needs. A missing
      INTEROP_DIR gives an empty case list (the suite is then skipped).
      The few valid schemas gen must refuse (REFUSED) are written but are
      not cases.
  make_gen_suite.py generate OUT_DIR AVROKIT_COMMAND...
      At build time: `avrokit gen --list --prefix sNNN -o OUT_DIR/gen
      OUT_DIR/schemas/sNNN.avsc` for every case (a unique prefix per schema,
      so every generated file links into one program), then OUT_DIR/registry.c:
      per case, wrapper functions over the generated FN_* functions (through
      void pointers, so one table drives every schema) and the table rows.
      A failed run, or a REFUSED schema that gen does not refuse with its
      message, fails the build. Also one run on several schemas sharing a
      named type (run_multi).

Files are rewritten only when their contents change, so an unchanged
generator output does not rebuild the suite.
"""

import glob
import json
import os
import subprocess
import sys


# Valid schemas `avrokit gen` must refuse, with what its message says: a
# record that holds itself by value (Y holds Z holds Y, no union, array or
# map between) has no finite value, so no C struct. The generate step checks
# the refusal; the schema is left out of the suite.
REFUSED = {
    "lang/c/tests/schema_tests/pass/namespace_fullname":
        "record x.Y contains itself with no union, array or map in between: it has no finite value",
    "lang/c/tests/schema_tests/pass/namespace_null_record":
        "record Z contains itself with no union, array or map in between: it has no finite value",
    "lang/c/tests/schema_tests/pass/namespace_simple":
        "record x.Z contains itself with no union, array or map in between: it has no finite value",
}

# Schemas with two types of one short name: refused without
# --namespace-prefix (with this message, {id} the case's prefix), generated with it.
NAMESPACED = {
    "lang/c/tests/schema_tests/pass/namespace_recursive":
        "types namespace1.MutuallyRecursive and namespace2.MutuallyRecursive both get the C name "
        "{id}_MutuallyRecursive (try --namespace-prefix)",
}


def write_if_changed(path, text):
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    except OSError:
        pass
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def collect(interop):
    """[(origin, schema JSON text, [hex rows])], identical schemas once."""
    apache = os.path.join(interop, "apache")
    found = []
    for path in sorted(glob.glob(os.path.join(apache, "schemas-valid", "*.avsc"))):
        found.append((os.path.relpath(path, apache), open(path, encoding="utf-8").read(), None))
    for path in sorted(glob.glob(os.path.join(apache, "lang/c/tests/schema_tests/pass", "*"))):
        found.append((os.path.relpath(path, apache), open(path, encoding="utf-8").read(), None))
    table = os.path.join(apache, "tables", "py_io_schema_datum_binary.json")
    for i, row in enumerate(json.load(open(table, encoding="utf-8"))):
        found.append(("tables/py_io_schema_datum_binary.json[%d]" % i, json.dumps(row["schema"]),
                      row["binary_hex"]))
    cases, by_key = [], {}
    for origin, text, hexrow in found:
        key = json.dumps(json.loads(text), sort_keys=True)
        if key not in by_key:
            by_key[key] = len(cases)
            cases.append({"id": "s%03d" % len(cases), "origin": origin, "text": text, "hex": []})
        if hexrow is not None:
            cases[by_key[key]]["hex"].append(hexrow)
    return cases


def prepare(interop, out):
    cases = collect(interop) if os.path.isdir(os.path.join(interop, "apache")) else []
    for name in ("multi_a", "multi_b"):
        write_if_changed(os.path.join(out, "cxx", name + "_cxx.cc"),
                         "// %s compiled as C++17.\n#include \"%s.c\"\n" % (name, name))
    for c in cases:
        c["refused"] = REFUSED.get(c["origin"])
        c["namespaced"] = NAMESPACED.get(c["origin"])
        write_if_changed(os.path.join(out, "schemas", c["id"] + ".avsc"), c["text"])
        if not c["refused"]:
            write_if_changed(os.path.join(out, "cxx", c["id"] + "_cxx.cc"),
                             "// %s compiled as C++17.\n#include \"%s.c\"\n" % (c["id"], c["id"]))
    write_if_changed(os.path.join(out, "cases.json"),
                     json.dumps([{k: c[k] for k in ("id", "origin", "hex", "refused", "namespaced")} for c in cases],
                                indent=1))
    write_if_changed(os.path.join(out, "cases.cmake"),
                     "set(AVK_GEN_CASES %s)\nset(AVK_GEN_SCHEMAS %s)\n" % (
                         " ".join(c["id"] for c in cases if not c["refused"]),
                         " ".join(c["id"] for c in cases)))


def c_string(s):
    out = []
    for ch in s:
        if ch in "\\\"":
            out.append("\\" + ch)
        elif 32 <= ord(ch) < 127:
            out.append(ch)
        else:
            out.append("\\x%02x\"\"" % ord(ch) if ord(ch) < 256 else "?")
    return "\"" + "".join(out) + "\""


WRAPPERS = """
/* ---- {id}: {origin} ---- */
static avk_status {id}_decode(avk_reader *r, avk_arena *a, int mode, const avk_limits *lim,
                              void **obj, avk_error *err)
{{
    {T} *p = ({T} *)avk_arena_alloc(a, sizeof *p, _Alignof({T}));
    if (!p)
        return AVK_ERR_NO_MEMORY;
    memset(p, 0, sizeof *p);
    *obj = p;
    return mode ? {FN}_decode_limits(r, a, lim, p, err) : {FN}_decode(r, a, p, err);
}}
static avk_status {id}_skip(avk_reader *r, const avk_limits *lim, avk_error *err)
{{
    return {FN}_skip(r, lim, err);
}}
static avk_status {id}_encode(const void *obj, avk_writer *w, avk_error *err)
{{
    return {FN}_encode((const {T} *)obj, w, err);
}}
static avk_status {id}_to_value(const void *obj, const avk_type *t, avk_arena *a, avk_value *out,
                                avk_error *err)
{{
    return {FN}_to_value((const {T} *)obj, t, a, out, err);
}}
static avk_status {id}_from_value(const avk_value *v, avk_arena *a, void **obj, avk_error *err)
{{
    {T} *p = ({T} *)avk_arena_alloc(a, sizeof *p, _Alignof({T}));
    if (!p)
        return AVK_ERR_NO_MEMORY;
    memset(p, 0, sizeof *p);
    *obj = p;
    return {FN}_from_value(v, a, p, err);
}}
static const char *{id}_schema_json(void)
{{
    return {FN}_schema_json();
}}
static avk_status {id}_file_open(void **fr, const char *path, const avk_file_reader_options *o,
                                 avk_error *err)
{{
    {FN}_file_reader *f = NULL;
    avk_status s = {FN}_file_reader_open(&f, path, o, err);
    *fr = f;
    return s;
}}
static avk_status {id}_file_next(void *fr, avk_arena *a, void **obj, int *more, avk_error *err)
{{
    {T} *p = ({T} *)avk_arena_alloc(a, sizeof *p, _Alignof({T}));
    if (!p)
        return AVK_ERR_NO_MEMORY;
    memset(p, 0, sizeof *p);
    *obj = p;
    return {FN}_file_reader_next(({FN}_file_reader *)fr, a, p, more, err);
}}
static void {id}_file_free(void *fr)
{{
    {FN}_file_reader_free(({FN}_file_reader *)fr);
}}
static avk_status {id}_file_write(avk_file_writer *fw, const void *obj, avk_error *err)
{{
    return {FN}_file_write(fw, (const {T} *)obj, err);
}}
"""


def run_multi(out, avrokit):
    """Several schemas in one run: tests/gen/data/multi_{a,b}.avsc share the
    record m.Address (emitted once, in multi_a.h, which multi_b.h includes),
    generated with --copy-strings into OUT_DIR/multi; and conflict.avsc,
    whose m.Address differs, must be refused with nothing written."""
    data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
    multi = os.path.join(out, "multi")
    os.makedirs(multi, exist_ok=True)
    schemas = [os.path.join(data, "multi_a.avsc"), os.path.join(data, "multi_b.avsc")]
    cmd = avrokit + ["gen", "--list", "--prefix", "mm", "--copy-strings"] + schemas + ["-o", multi]
    run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    want = ["%s\t%s\t%s\tmm_%s\tmm_%s" % (sch, os.path.join(multi, b + ".h"), os.path.join(multi, b + ".c"),
                                          t, t)
            for sch, b, t in zip(schemas, ("multi_a", "multi_b"), ("Person", "Letter"))]
    if run.returncode != 0 or run.stdout.splitlines() != want:
        sys.exit("make_gen_suite.py: %s: exit %d, expected the --list lines\n%s\ngot\n%s%s" % (
            " ".join(cmd), run.returncode, "\n".join(want), run.stdout, run.stderr))
    conflict = os.path.join(out, "conflict")
    os.makedirs(conflict, exist_ok=True)
    for f in os.listdir(conflict):
        os.remove(os.path.join(conflict, f))
    cmd = avrokit + ["gen", "--prefix", "mm", schemas[0], os.path.join(data, "conflict.avsc"),
                     "-o", conflict]
    run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    message = "named type m.Address differs from its definition in %s" % schemas[0]
    if run.returncode != 1 or message not in run.stderr or os.listdir(conflict):
        sys.exit("make_gen_suite.py: %s: expected exit 1, the message\n  %s\nand no file written; got "
                 "exit %d, files %s:\n%s" % (" ".join(cmd), message, run.returncode,
                                               os.listdir(conflict), run.stderr))


def generate(out, avrokit):
    cases = json.load(open(os.path.join(out, "cases.json"), encoding="utf-8"))
    gen_dir = os.path.join(out, "gen")
    os.makedirs(gen_dir, exist_ok=True)
    run_multi(out, avrokit)
    parts = ["/* Generated by tests/gen/make_gen_suite.py: wrappers over the generated code of every\n"
             " * schema of the gen suite, and the table rows. Do not edit. */\n",
             "#include <string.h>\n\n#include \"gen_registry.h\"\n"]
    for c in cases:
        schema = os.path.join(out, "schemas", c["id"] + ".avsc")
        cmd = avrokit + ["gen", "--list", "--prefix", c["id"], schema, "-o", gen_dir]
        run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        refusal = (c["refused"] or c["namespaced"] or "").replace("{id}", c["id"])
        if refusal:
            if run.returncode != 1 or refusal not in run.stderr or run.stdout:
                sys.exit("make_gen_suite.py: %s (%s): expected exit 1 and the message\n  %s\n"
                         "got exit %d:\n%s%s" % (" ".join(cmd), c["origin"], refusal,
                                                  run.returncode, run.stdout, run.stderr))
            if c["refused"]:
                continue
            cmd.insert(2, "--namespace-prefix")
            run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if run.returncode != 0:
            sys.exit("make_gen_suite.py: %s (%s) failed with exit %d:\n%s" % (
                " ".join(cmd), c["origin"], run.returncode, run.stderr))
        lines = [l.split("\t") for l in run.stdout.splitlines() if l.strip()]
        if len(lines) != 1 or len(lines[0]) != 5:
            sys.exit("make_gen_suite.py: %s (%s): expected one --list line of 5 fields, got %r" % (
                " ".join(cmd), c["origin"], run.stdout))
        _, header, source, ctype, fn = lines[0]
        want = os.path.join(gen_dir, c["id"])
        if os.path.normpath(header) != want + ".h" or os.path.normpath(source) != want + ".c":
            sys.exit("make_gen_suite.py: %s: --list names %s and %s, expected %s.h and %s.c" % (
                " ".join(cmd), header, source, want, want))
        c["ctype"], c["fn"] = ctype, fn
        parts.append("#include \"%s.h\"\n" % c["id"])
    cases = [c for c in cases if not c["refused"]]
    for c in cases:
        parts.append(WRAPPERS.format(id=c["id"], origin=c["origin"], T=c["ctype"], FN=c["fn"]))
        if c["hex"]:
            parts.append("static const char *const %s_hex[] = {%s};\n" % (
                c["id"], ", ".join(c_string(h) for h in c["hex"])))
    parts.append("\nconst gen_case gen_cases[] = {\n")
    for c in cases:
        hexes = ("%s_hex, %d" % (c["id"], len(c["hex"]))) if c["hex"] else "NULL, 0"
        parts.append("    {%s, %s, %s, %s, %s, %s,\n"
                     "     %s_decode, %s_skip, %s_encode, %s_to_value, %s_from_value, %s_schema_json,\n"
                     "     %s_file_open, %s_file_next, %s_file_free, %s_file_write},\n" % (
                         c_string(c["id"]), c_string(c["origin"]),
                         c_string(os.path.join(out, "schemas", c["id"] + ".avsc")),
                         c_string(c["ctype"]), c_string(c["fn"]), hexes,
                         *([c["id"]] * 10)))
    if not cases:
        parts.append("    {NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL,\n"
                     "     NULL, NULL, NULL, NULL},\n")
    parts.append("};\nconst size_t gen_case_count = %d;\n" % len(cases))
    write_if_changed(os.path.join(out, "registry.c"), "".join(parts))


def main(argv):
    if len(argv) == 4 and argv[1] == "prepare":
        prepare(argv[2], argv[3])
    elif len(argv) >= 4 and argv[1] == "generate":
        generate(argv[2], argv[3:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
