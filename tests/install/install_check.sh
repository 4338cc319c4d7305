#!/usr/bin/env bash
# Installs the built tree into a scratch prefix, then builds a consumer with
# find_package(avrokit) and with pkg-config (linked with an rpath from
# pkg-config's libdir, run without LD_LIBRARY_PATH), and runs both; checks
# that avrokit.pc holds clean paths that name the install, also for odd
# prefix and libdir forms; and that the shared library exports avk_* only.
# Cross and -m32 builds (tests/install/CMakeLists.txt sets these):
# AVK_TOOLCHAIN_FILE for the consumer, AVK_CFLAGS for the pkg-config compile,
# AVK_EMULATOR to run the consumers, AVK_NM for the export list.
set -euo pipefail
build=$1
src=$2
cc=${3:-cc}
read -r -a emulator <<<"${AVK_EMULATOR:-}"
read -r -a cflags <<<"${AVK_CFLAGS:-}"
toolchain=()
[ -n "${AVK_TOOLCHAIN_FILE:-}" ] && toolchain=(-DCMAKE_TOOLCHAIN_FILE="$AVK_TOOLCHAIN_FILE")
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
cmake -S "$src/tests/install/consumer" -B "$prefix/consumer-build" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_C_COMPILER="$cc" "${toolchain[@]}" >/dev/null
cmake --build "$prefix/consumer-build" >/dev/null
# No LD_LIBRARY_PATH: CMake gives the program an rpath to the imported library.
env -u LD_LIBRARY_PATH "${emulator[@]}" "$prefix/consumer-build/consumer_cmake"
"${emulator[@]}" "$prefix/consumer-build/consumer_cmake_static"
so=$(find "$prefix" -name 'libavrokit.so' | head -n1)
pcdir=$(dirname "$(find "$prefix" -name avrokit.pc | head -n1)")
pc() { PKG_CONFIG_PATH="$1" pkg-config "${@:2}"; }
fail() { echo "install_check: $*" >&2; exit 1; }
# Clean paths: the prefix given to --install, libdir the folder that holds
# the library, includedir the one that holds the headers, each written out
# (no //, /./ or /../, which pkg-config would pass on into -L, -I and rpaths).
flags=$(pc "$pcdir" --cflags --libs avrokit)
libdir=$(pc "$pcdir" --variable=libdir avrokit)
includedir=$(pc "$pcdir" --variable=includedir avrokit)
for v in "$flags" "$libdir" "$includedir"; do
  case "$v" in *//* | */./* | */../* | */. | */..) fail "avrokit.pc gives an unclean path: $v" ;; esac
done
[ "$(pc "$pcdir" --variable=prefix avrokit)" = "$prefix" ] || fail "avrokit.pc's prefix is not $prefix"
[ "$libdir" = "$(dirname "$so")" ] || fail "avrokit.pc's libdir $libdir does not hold $so"
[ -f "$includedir/avrokit/avrokit.h" ] || fail "avrokit.pc's includedir $includedir has no avrokit/avrokit.h"
# The README's way to link to a prefix off the loader's path: an rpath from
# libdir, and the program runs with no LD_LIBRARY_PATH.
# shellcheck disable=SC2086
"$cc" "${cflags[@]}" -std=c11 -Wall -Werror "$src/tests/install/consumer/consumer.c" $flags \
  -Wl,-rpath,"$libdir" -o "$prefix/consumer_pc"
env -u LD_LIBRARY_PATH "${emulator[@]}" "$prefix/consumer_pc"
# The .pc writer on the forms of prefix, libdir and includedir a user may
# configure (trailing or doubled slashes, ./, absolute dirs in and out of
# the prefix, the prefix /): expected prefix, libdir, includedir.
while read -r p l i want; do
  cmake -DAVK_PC_TEMPLATE="$build/avrokit.pc.in" -DAVK_PC_OUTPUT="$prefix/pc-case/avrokit.pc" \
    -DAVK_PC_PREFIX="$p" -DAVK_PC_LIBDIR="$l" -DAVK_PC_INCLUDEDIR="$i" -P "$src/cmake/avrokit_pc.cmake"
  got="$(pc "$prefix/pc-case" --variable=prefix avrokit),$(pc "$prefix/pc-case" --variable=libdir avrokit),$(pc "$prefix/pc-case" --variable=includedir avrokit)"
  [ "$got" = "$want" ] || fail "avrokit.pc for prefix $p, libdir $l, includedir $i: got $got, want $want"
done <<'CASES'
/opt/a lib include /opt/a,/opt/a/lib,/opt/a/include
/opt/a/ ./lib/ include/ /opt/a,/opt/a/lib,/opt/a/include
/opt//a/./b/.. lib/x86_64-linux-gnu include /opt/a,/opt/a/lib/x86_64-linux-gnu,/opt/a/include
/ lib include /,/lib,/include
/opt/a /usr/lib64/ /usr//include /opt/a,/usr/lib64,/usr/include
/opt/a /opt/a//lib64 /opt/a/include /opt/a,/opt/a/lib64,/opt/a/include
/opt/a /opt/ab/lib include /opt/a,/opt/ab/lib,/opt/a/include
CASES
bad=$("${AVK_NM:-nm}" -D --defined-only "$so" | awk '{print $3}' | grep -v '^avk_' || true)
if [ -n "$bad" ]; then
  echo "install_check: the shared library exports non-avk_ symbols:" >&2
  echo "$bad" >&2
  exit 1
fi
echo "install_check: find_package, pkg-config (clean paths, rpath link) and the export list are fine"
