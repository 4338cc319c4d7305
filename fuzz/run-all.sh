#!/usr/bin/env bash
# Runs every libFuzzer target in BUILD/fuzz for SECONDS each, starting from its seed corpus.
# New corpus entries go to a scratch folder, so the checked-in corpus only grows by hand.
set -euo pipefail
build=${1:-build-fuzz}
seconds=${2:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
found=0
for bin in "$build"/fuzz/fuzz_*; do
  [ -x "$bin" ] || continue
  name=$(basename "$bin")
  case "$name" in *_replay) continue ;; esac
  found=1
  mkdir -p "$scratch/$name"
  echo "fuzz: $name for ${seconds}s"
  "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$scratch/$name-" "$scratch/$name" "$root/fuzz/corpus/$name" 2>&1 | tail -n 12
  if [ "${PIPESTATUS[0]}" -ne 0 ]; then
    echo "fuzz: $name FAILED; reproducer in $scratch (kept)" >&2
    ls -l "$scratch" >&2
    trap - EXIT
    exit 1
  fi
done
[ "$found" -eq 1 ] || { echo "fuzz: no fuzz targets built in $build/fuzz" >&2; exit 1; }
echo "fuzz: all targets ran clean"
