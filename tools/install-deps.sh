#!/usr/bin/env bash
# Installs the Debian packages avrokit builds, tests and benchmarks with, if any are missing.
# Runs as root or through sudo; does nothing when everything is present.
set -euo pipefail

PACKAGES=(
  cmake make gcc g++ pkg-config python3          # build
  libcmocka-dev                                  # tests
  clang libclang-rt-14-dev llvm valgrind         # fuzzing, sanitizers, memcheck
  libbenchmark-dev libavro-dev                   # benchmarks and the avro-c peer
  libcjson-dev libdeflate-dev libzstd-dev libsnappy-dev libbz2-dev liblzma-dev nettle-dev
  # interop peers (tests/interop/peers_test.py): avro-c's avrocat/avromod, and python3-avro
  # with the modules that give it the snappy and zstandard codecs
  avro-bin python3-avro python3-snappy python3-zstandard
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "install-deps: missing packages (${missing[*]}) and not root; install them or rerun with sudo" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
