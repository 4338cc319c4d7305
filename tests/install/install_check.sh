#!/usr/bin/env bash
# Installs the built tree into a scratch prefix, then builds a consumer with
# find_package(avrokit) and with pkg-config, and runs both; also checks that
# the shared library exports avk_* symbols only.
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
LD_LIBRARY_PATH="$prefix/lib:$prefix/lib64:$prefix/lib/x86_64-linux-gnu" \
  "${emulator[@]}" "$prefix/consumer-build/consumer_cmake"
"${emulator[@]}" "$prefix/consumer-build/consumer_cmake_static"
pcdir=$(dirname "$(find "$prefix" -name avrokit.pc | head -n1)")
flags=$(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs avrokit)
# shellcheck disable=SC2086
"$cc" "${cflags[@]}" -std=c11 -Wall -Werror "$src/tests/install/consumer/consumer.c" $flags \
  -o "$prefix/consumer_pc"
LD_LIBRARY_PATH="$(dirname "$pcdir")" "${emulator[@]}" "$prefix/consumer_pc"
so=$(find "$prefix" -name 'libavrokit.so' | head -n1)
bad=$("${AVK_NM:-nm}" -D --defined-only "$so" | awk '{print $3}' | grep -v '^avk_' || true)
if [ -n "$bad" ]; then
  echo "install_check: the shared library exports non-avk_ symbols:" >&2
  echo "$bad" >&2
  exit 1
fi
echo "install_check: find_package, pkg-config and the export list are fine"
