#!/usr/bin/env python3
"""Checks the include graph of src/ against the layer order in src/layers.txt.

A file in src/<folder>/ may include "<other>/..." only when <other> is in the
same layer or an earlier one. Prints every include that reaches up, and
exits 1 when there is one (or when layers.txt and src/ disagree)."""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z0-9_]+)/[^"]+"')


def read_layers(path):
    rank = {}
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if not line:
                continue
            level = len(set(rank.values()))
            for folder in line:
                if folder in rank:
                    sys.exit("%s: %s listed twice" % (path, folder))
                rank[folder] = level
    return rank


def self_test():
    """The check must be able to fail: a tree where a lower folder includes a
    higher one, and a folder missing from the list."""
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        for folder in ("low", "high", "stray"):
            os.mkdir(os.path.join(tmp, folder))
        with open(os.path.join(tmp, "layers.txt"), "w") as f:
            f.write("low\nhigh\n")
        with open(os.path.join(tmp, "low", "a.c"), "w") as f:
            f.write('#include "high/b.h"\n')
        with open(os.path.join(tmp, "high", "b.h"), "w") as f:
            f.write('#include "low/a.h"\n')
        run = subprocess.run([sys.executable, os.path.abspath(__file__), tmp],
                             capture_output=True, text=True)
        out = run.stdout
        ok = (run.returncode == 1 and "low/a.c:1: low (layer 0) includes high (layer 1)" in out
              and "stray/ is not in" in out and "b.h" not in out)
        print("check_layers self-test: %s" % ("ok" if ok else "FAILED\n" + out))
        return 0 if ok else 1


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    src = os.path.normpath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))
    layers_file = os.path.join(src, "layers.txt")
    rank = read_layers(layers_file)
    problems = []
    folders = sorted(d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d)))
    for folder in folders:
        if folder not in rank:
            problems.append("src/%s/ is not in %s" % (folder, layers_file))
    for folder in rank:
        if folder not in folders:
            problems.append("%s lists %s, which src/ does not have" % (layers_file, folder))
    checked = 0
    for folder in folders:
        if folder not in rank:
            continue
        for root, _, files in os.walk(os.path.join(src, folder)):
            for name in sorted(files):
                if not name.endswith((".c", ".h")):
                    continue
                path = os.path.join(root, name)
                checked += 1
                with open(path, encoding="utf-8") as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m or m.group(1) not in rank:
                            continue  # public headers (avrokit/) and system ones
                        target = m.group(1)
                        if rank[target] > rank[folder]:
                            problems.append("%s:%d: %s (layer %d) includes %s (layer %d): a "
                                            "lower layer reaches up" % (
                                                os.path.relpath(path, os.path.dirname(src)),
                                                number, folder, rank[folder], target,
                                                rank[target]))
    for p in problems:
        print(p)
    if problems:
        print("check_layers: %d problem(s); the order is in %s" % (len(problems), layers_file))
        return 1
    print("check_layers: %d files in %d folders follow %s" % (checked, len(folders), layers_file))
    return 0


if __name__ == "__main__":
    sys.exit(main())
