#!/usr/bin/env python3
"""Compiles every C code block of README.md and of the public headers, so the
docs cannot drift from the API.

README: every ```c block. Headers: every run of comment lines indented by
four or more spaces after " *" that starts after an empty comment line
(" *"): the examples; indented prose continues a line instead. A block that defines a
function compiles at file scope; any other block compiles as the body of a
function that declares the variables the examples share (data, len, schema,
plan, arena, err, ...), in an inner block so an example may declare its own.
"..." stands for elided code and becomes an empty statement.

Usage: check_snippets.py SOURCE_DIR CC [extra compiler flags...]
Exits 1 when a block does not compile (its text and the compiler's message
are printed)."""
import glob
import os
import re
import subprocess
import sys
import tempfile

PRELUDE = r'''
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <avrokit/avrokit.h>
static void use(const avk_value *v) { (void)v; }
'''

# The variables examples use without declaring them.
CONTEXT = r'''
static int snippet(const uint8_t *data, size_t len, const char *text, const avk_schema *schema,
                   const avk_schema *writer, const avk_schema *reader, avk_plan *plan,
                   avk_arena *arena, avk_writer w, const double *xs, size_t nx, avk_value v,
                   avk_value value, avk_reader r, avk_file_reader *fr, avk_error err,
                   const avk_type *t, char *buf, size_t n, avk_json_read_options o, avk_status st,
                   size_t used, int at_eof, int more)
{
    {
%s
    }
    return 0;
}
'''

FUNCTION_START = re.compile(r'^[A-Za-z_][\w \*]*\b\w+\([^;]*\)\s*$')


def readme_blocks(path):
    blocks, current, start = [], None, 0
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if current is None and line.strip() == "```c":
                current, start = [], number + 1
            elif current is not None and line.strip().startswith("```"):
                blocks.append(("%s:%d" % (path, start), "".join(current)))
                current = None
            elif current is not None:
                current.append(line)
    if current is not None:
        blocks.append(("%s:%d" % (path, start), "UNCLOSED CODE FENCE\n"))
    return blocks


def header_blocks(path):
    blocks, current, start = [], [], 0
    with open(path, encoding="utf-8") as f:
        lines = f.readlines()
    for number, line in enumerate(lines + ["\n"], 1):
        m = re.match(r'^ \*    ( .*)$', line.rstrip("\n"))
        if m and not current and (number < 2 or lines[number - 2].rstrip() != " *"):
            m = None  # indented prose, not an example
        if m:
            if not current:
                start = number
            current.append(m.group(1)[1:] + "\n")
        elif current:
            blocks.append(("%s:%d" % (path, start), "".join(current)))
            current = []
    return blocks


def wrap(code):
    # "..." as a statement (a line of its own, or after an if's condition);
    # inside comments and strings it stays as it is.
    code = re.sub(r'^(\s*)\.\.\.', r'\1{ /* elided */ }', code, flags=re.M)
    code = re.sub(r'\)\s*\.\.\.\s*$', ') { /* elided */ }', code, flags=re.M)
    lines = code.splitlines()
    defines_function = any(FUNCTION_START.match(l) and i + 1 < len(lines) and
                           lines[i + 1].startswith("{") for i, l in enumerate(lines))
    if defines_function:
        return PRELUDE + code
    return PRELUDE + CONTEXT % code


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    source, cc, flags = sys.argv[1], sys.argv[2], sys.argv[3:]
    blocks = readme_blocks(os.path.join(source, "README.md"))
    for header in sorted(glob.glob(os.path.join(source, "include", "avrokit", "*.h"))):
        blocks += header_blocks(header)
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for where, code in blocks:
            unit = os.path.join(tmp, "snippet.c")
            with open(unit, "w") as f:
                f.write(wrap(code))
            cmd = [cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-Wno-unused-variable",
                   "-Wno-unused-but-set-variable", "-Wno-unused-parameter", "-Wno-unused-function",
                   "-Wno-unused-value", "-I", os.path.join(source, "include"), "-c", unit, "-o",
                   os.path.join(tmp, "snippet.o")] + flags
            run = subprocess.run(cmd, capture_output=True, text=True)
            if run.returncode != 0:
                failed += 1
                print("%s: this code block does not compile:\n%s\n%s" % (
                    os.path.relpath(where, source), code, run.stderr))
    print("check_snippets: %d of %d code blocks compile" % (len(blocks) - failed, len(blocks)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
