#!/usr/bin/env bash
# Installs the Debian packages avrokit builds, tests and benchmarks with, if any are missing.
# Runs as root or through sudo; does nothing when everything is present.
#   tools/install-deps.sh           the native build, tests, fuzzing and benchmarks
#   tools/install-deps.sh aarch64   the arm64 cross build and qemu for its tests (make test-aarch64)
#   tools/install-deps.sh m32       the 32-bit x86 build, gcc -m32 (make test-m32)
set -euo pipefail
mode=${1:-native}

# The libraries the library and its tests link: native, or :arm64 / :i386
# through Debian's multiarch. The codec libraries and nettle are optional for
# the library alone (CMake's AVK_WITH_* options); the tests need them all.
LIBS=(libcmocka-dev libcjson-dev libdeflate-dev libzstd-dev libsnappy-dev libbz2-dev liblzma-dev
      nettle-dev)
# interop peers (tests/interop/peers_test.py): avro-c's avrocat/avromod, and python3-avro
# with the modules that give it the snappy and zstandard codecs. Build-machine
# programs in every mode: cross builds run them against the emulated library.
PEERS=(avro-bin python3-avro python3-snappy python3-zstandard)
BUILD=(cmake make gcc g++ pkg-config python3)
foreign=""

case "$mode" in
  native)
    PACKAGES=(
      "${BUILD[@]}" "${LIBS[@]}" "${PEERS[@]}"
      clang libclang-rt-14-dev llvm valgrind       # fuzzing, sanitizers, memcheck
      gcovr                                        # make coverage
      libbenchmark-dev libavro-dev                 # benchmarks and the avro-c peer
      python3-dev python3-numpy python3-pandas python3-pytest  # the Python package
      python3-dask python3-distributed                         # and its Dask tests (avrokit.dask)
    )
    ;;
  aarch64)
    foreign=arm64
    PACKAGES=("${BUILD[@]}" "${PEERS[@]}" gcc-aarch64-linux-gnu g++-aarch64-linux-gnu
              libc6-dev-arm64-cross qemu-user-static)
    for p in "${LIBS[@]}"; do PACKAGES+=("$p:arm64"); done
    ;;
  m32)
    # What gcc-multilib and g++-multilib bring for -m32, without them: Debian
    # has gcc-multilib conflict with the cross compilers (gcc-aarch64-linux-gnu),
    # and both builds should fit on one machine. qemu-user-static runs the
    # 32-bit programs where the kernel has no IA32 emulation.
    foreign=i386
    PACKAGES=("${BUILD[@]}" "${PEERS[@]}" lib32gcc-12-dev lib32stdc++-12-dev libc6-dev-i386
              qemu-user-static)
    for p in "${LIBS[@]}"; do PACKAGES+=("$p:i386"); done
    ;;
  *)
    echo "usage: install-deps.sh [native|aarch64|m32]" >&2
    exit 2
    ;;
esac

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
if [ -n "$foreign" ] && ! dpkg --print-foreign-architectures | grep -qx "$foreign"; then
  $SUDO dpkg --add-architecture "$foreign"
fi
# A mirror in the middle of a sync serves index files of the wrong size for a
# minute or two ("File has unexpected size ... Mirror sync in progress?"),
# which failed a CI run: each apt step is tried a few times, 30 s apart. An
# update that keeps failing leaves the indexes it could not fetch as they were,
# and the install is still tried with them.
attempt() {
  local tries=$1 n=1; shift
  until "$@"; do
    [ "$n" -ge "$tries" ] && return 1
    echo "install-deps: '$*' failed (try $n of $tries); again in 30 s" >&2
    n=$((n + 1))
    sleep 30
  done
}
update_log=$(mktemp)
trap 'rm -f "$update_log"' EXIT
update() {
  local rc=0
  $SUDO apt-get update -qq 2>"$update_log" || rc=$?
  cat "$update_log" >&2
  return $rc
}
if ! attempt 4 update; then
  echo "install-deps: apt-get update kept failing; installing with the indexes there are" >&2
  # A foreign architecture's index that stays the wrong size leaves its
  # packages at older versions than the native ones already installed from
  # the same suite, and Multi-Arch: same packages must match exactly (seen:
  # bookworm-security's i386 index for days, so test-m32 could not install).
  # With AVK_APT_INDEX_FALLBACK=1 (CI sets it) such an index is fetched as
  # served and used without the Release file's size and hash check; apt
  # still checks every package against the index.
  if [ -n "$foreign" ] && [ "${AVK_APT_INDEX_FALLBACK:-0}" = 1 ]; then
    grep -o "Failed to fetch http://[^ ]*/binary-$foreign/Packages.xz  File has unexpected size" \
        "$update_log" | awk '{print $4}' | sort -u | while read -r url; do
      list=/var/lib/apt/lists/$(echo "${url#http://}" | tr / _)
      echo "install-deps: AVK_APT_INDEX_FALLBACK: $url taken as served (its Release entry does not match)" >&2
      $SUDO /usr/lib/apt/apt-helper download-file "$url" "$list.partial" &&
        $SUDO mv "$list.partial" "$list"
    done
  elif [ -n "$foreign" ] && grep -q "binary-$foreign/.*unexpected size" "$update_log"; then
    echo "install-deps: the mirror's $foreign index does not match its Release file;" \
         "AVK_APT_INDEX_FALLBACK=1 uses it as served" >&2
  fi
fi
attempt 3 $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
