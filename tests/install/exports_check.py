#!/usr/bin/env python3
"""The shared library exports exactly the public API: every function the
public headers declare (and every constant, AVK_EXPORT extern const) is marked
AVK_EXPORT and exported, and nothing else is.

Usage: exports_check.py INCLUDE_DIR LIBRARY [NM]
       exports_check.py --self-test
"""
import re
import subprocess
import sys
from pathlib import Path


def strip(text):
    """Drops comments, preprocessor lines and the extern "C" braces."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", "", text, flags=re.M)
    text = re.sub(r'extern\s+"C"\s*\{', "", text)
    # The closing brace of extern "C" sat between #ifdef __cplusplus and
    # #endif: with those lines gone it is a lone "}" at the top level.
    return text


def statements(text):
    """Top-level declarations and definitions, in order."""
    out, cur, depth = [], [], 0
    for ch in text:
        if ch == "}" and depth == 0:
            continue  # extern "C"'s closing brace
        cur.append(ch)
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            head = "".join(cur).split("{", 1)[0]
            # A function body ends its statement; a struct body does not.
            if depth == 0 and head.rstrip().endswith(")"):
                out.append(" ".join("".join(cur).split()))
                cur = []
        elif ch == ";" and depth == 0:
            out.append(" ".join("".join(cur).split()))
            cur = []
    return [s for s in out if s]


def declarations(text):
    """(name, marked) for each function a header declares for linking:
    not static or inline, not a typedef; and for each exported constant
    (AVK_EXPORT extern const). Problems (other data) come back as
    (None, statement)."""
    found = []
    for s in statements(strip(text)):
        words = re.findall(r"\w+", s.split("(", 1)[0])
        if not words or words[0] == "typedef":
            continue
        if "static" in words or "AVK_INLINE" in words:
            continue
        if re.match(r"^(struct|union|enum)\s+\w+\s*(\{|;)", s):
            continue  # a tag definition or forward declaration
        m = re.search(r"(\w+)\s*\(", s)
        if not m:
            # Data may be public only as an exported constant (the tables of
            # an inline codec); anything else is a problem.
            d = re.match(r"^AVK_EXPORT\s+extern\s+const\b[^=;]*?\b(\w+)\s*(\[[^\]]*\])?\s*;$", s)
            if d:
                found.append((d.group(1), True))
            else:
                found.append((None, "public data: " + s))
            continue
        found.append((m.group(1), "AVK_EXPORT" in s[: m.start()]))
    return found


ODR_PREFIX = "__odr_asan."


def without_odr_indicators(names):
    """ASan adds an ODR indicator __odr_asan.X beside every exported global
    X; it is the sanitizer's, not ours, so drop it when X is there too."""
    return {n for n in names
            if not (n.startswith(ODR_PREFIX) and n[len(ODR_PREFIX):] in names)}


def exported(library, nm):
    lines = subprocess.run([nm, "-D", "--defined-only", library], check=True,
                           capture_output=True, text=True).stdout.splitlines()
    return without_odr_indicators(
        {line.split()[-1].split("@")[0] for line in lines if line.strip()})


def check(include_dir, library, nm):
    problems, declared = [], set()
    for header in sorted(Path(include_dir).glob("avrokit/*.h")):
        for name, marked in declarations(header.read_text()):
            if name is None:
                problems.append(f"{header.name}: {marked}")
                continue
            declared.add(name)
            if not name.startswith("avk_"):
                problems.append(f"{header.name}: {name} is public but not named avk_")
            if not marked:
                problems.append(f"{header.name}: {name} is not marked AVK_EXPORT")
    symbols = exported(library, nm)
    for name in sorted(symbols - declared):
        problems.append(f"{library} exports {name}, which no public header declares")
    for name in sorted(declared - symbols):
        problems.append(f"{library} does not export {name}, which a public header declares")
    for p in problems:
        print("exports_check:", p, file=sys.stderr)
    if not problems:
        print(f"exports_check: {len(symbols)} symbols exported, each declared AVK_EXPORT "
              "in a public header")
    return 1 if problems else 0


def self_test():
    header = '''
#ifndef X_H
#define X_H
#include "avrokit/macros.h"
#ifdef __cplusplus
extern "C" {
#endif
typedef struct avk_thing { int a; void (*f)(int); } avk_thing;
typedef avk_status (*avk_sink_fn)(void *ctx, const void *data, size_t len);
struct avk_fwd;
/* avk_in_comment(void); */
AVK_EXPORT const char *avk_name(int c);
AVK_EXPORT avk_status avk_two_lines(const avk_thing *t,
                                    int (*cb)(int));
avk_status avk_unmarked(void);
int helper(void);
static inline int avk_inline_one(int x) { if (x) { return 1; } return 0; }
AVK_INLINE int avk_inline_two(void) { return 2; }
extern int avk_global;
AVK_EXPORT extern const uint64_t avk_table[65];
#ifdef __cplusplus
}
#endif
#endif
'''
    got = declarations(header)
    want = [("avk_name", True), ("avk_two_lines", True), ("avk_unmarked", False),
            ("helper", False), (None, "public data: extern int avk_global;"),
            ("avk_table", True)]
    if got != want:
        print(f"exports_check self-test: got {got}, want {want}", file=sys.stderr)
        return 1
    names = {"avk_table", "__odr_asan.avk_table", "__odr_asan.avk_stray"}
    kept = without_odr_indicators(names)
    if kept != {"avk_table", "__odr_asan.avk_stray"}:
        print(f"exports_check self-test: ODR indicators left {sorted(kept)}", file=sys.stderr)
        return 1
    print("exports_check self-test: declarations found as expected")
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    if len(sys.argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(check(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) == 4 else "nm"))
