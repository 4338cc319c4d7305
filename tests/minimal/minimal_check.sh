#!/usr/bin/env bash
# avrokit configured with every AVK_WITH_* option off builds its library with
# none of the codec libraries or nettle: the shared library needs none of
# them, avrokit.pc and the CMake package name none, the export list is the
# public API, and a program using a left-out codec gets AVK_ERR_UNSUPPORTED
# naming it (minimal_user.c). Library only: no tests, benchmarks, tools or
# examples in this build.
# Usage: minimal_check.sh SOURCE_DIR C_COMPILER CXX_COMPILER
set -euo pipefail
src=$1 cc=$2 cxx=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
cmake -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DAVK_WERROR=ON \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
  -DAVK_WITH_DEFLATE=OFF -DAVK_WITH_SNAPPY=OFF -DAVK_WITH_ZSTD=OFF -DAVK_WITH_BZIP2=OFF \
  -DAVK_WITH_XZ=OFF -DAVK_WITH_NETTLE=OFF \
  -DAVK_BUILD_TOOLS=OFF -DAVK_BUILD_EXAMPLES=OFF >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; echo "FAIL: configure"; exit 1; }
# Tests and benchmarks default off when an AVK_WITH_* option is off.
for opt in AVK_BUILD_TESTS AVK_BUILD_BENCH; do
  grep -qx "$opt:BOOL=OFF" "$work/build/CMakeCache.txt" ||
    { echo "FAIL: $opt is not off by default in a build without every codec"; fail=1; }
done
cmake --build "$work/build" -j 2 >"$work/build.log" 2>&1 ||
  { tail -30 "$work/build.log"; echo "FAIL: build"; exit 1; }
cmake --install "$work/build" --prefix "$work/prefix" >/dev/null

so=$(find "$work/prefix" -name 'libavrokit.so' | head -n1)
needed=$(readelf -d "$so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
for lib in libdeflate libzstd libsnappy libbz2 liblzma libnettle; do
  if grep -q "$lib" <<<"$needed"; then
    echo "FAIL: libavrokit.so needs $lib (it needs: $needed)"
    fail=1
  fi
done
python3 "$src/tests/install/exports_check.py" "$src/include" "$so" || fail=1

pcdir=$(dirname "$(find "$work/prefix" -name avrokit.pc | head -n1)")
requires=$(PKG_CONFIG_PATH="$pcdir" pkg-config --print-requires-private avrokit)
libs=$(PKG_CONFIG_PATH="$pcdir" pkg-config --static --libs-only-l avrokit)
if [ -n "$requires" ] || [ "$(echo $libs)" != "-lavrokit -lpthread -lm" ]; then
  echo "FAIL: avrokit.pc asks for Requires.private '$requires', static libs '$libs'"
  fail=1
fi
config=$(find "$work/prefix" -name avrokitConfig.cmake | head -n1)
if grep -q "pkg_check_modules\|PkgConfig" "$config"; then
  echo "FAIL: avrokitConfig.cmake looks for libraries the build did not link:"
  grep "pkg_check_modules\|PkgConfig" "$config"
  fail=1
fi

cmake -S "$src/tests/minimal" -B "$work/user" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_C_COMPILER="$cc" >"$work/user.log" 2>&1 &&
  cmake --build "$work/user" >>"$work/user.log" 2>&1 ||
  { tail -30 "$work/user.log"; echo "FAIL: the program using the installed package did not build"; exit 1; }
LD_LIBRARY_PATH="$(dirname "$so")" "$work/user/minimal_user" || fail=1
"$work/user/minimal_user_static" || fail=1
[ $fail -eq 0 ] && echo "minimal_check: a build without codecs or nettle links none and says so"
exit $fail
