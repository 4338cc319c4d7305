#!/usr/bin/env bash
# avrokit added to another CMake project with add_subdirectory builds only its
# library: no tests, benchmarks, tools, examples, fuzz replays or install rules.
# Usage: embed_check.sh SOURCE_DIR C_COMPILER CXX_COMPILER
set -euo pipefail
src=$1 cc=$2 cxx=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake -S "$src/tests/embed" -B "$work/build" -DAVK_SOURCE_DIR="$src" \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; echo "FAIL: configure"; exit 1; }
targets=$(cmake --build "$work/build" --target help)
fail=0
for unwanted in avrokit_cli kernels_test varint_test avrokit_bench fuzz_varint_replay records_demo; do
  if grep -qw "$unwanted" <<<"$targets"; then
    echo "FAIL: the embedding project got target $unwanted"
    fail=1
  fi
done
for wanted in avrokit avrokit_static embed_user; do
  grep -qw "$wanted" <<<"$targets" || { echo "FAIL: no target $wanted"; fail=1; }
done
if grep -q "install" "$work/build/avrokit/cmake_install.cmake" 2>/dev/null &&
   grep -q "avrokit/include\|libavrokit" "$work/build/avrokit/cmake_install.cmake"; then
  echo "FAIL: the embedding project got avrokit's install rules"
  fail=1
fi
cmake --build "$work/build" --target embed_user -j 2 >"$work/build.log" 2>&1 ||
  { tail -30 "$work/build.log"; echo "FAIL: build"; exit 1; }
"$work/build/embed_user" || { echo "FAIL: embed_user did not run"; exit 1; }
[ $fail -eq 0 ] && echo "embed_check: only the library is built"
exit $fail
