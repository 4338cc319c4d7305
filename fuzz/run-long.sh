#!/usr/bin/env bash
# Long fuzzing: runs every libFuzzer target in BUILD/fuzz for SECONDS from its checked-in
# corpus, then replaces fuzz/corpus/<target> with a minimized merge of that corpus and what
# the run found. Named inputs (seeds written by hand or by make_seeds.py, and regression
# inputs) are always kept under their names; inputs the fuzzer found (named by their SHA-1)
# are kept only while they add coverage the rest lacks: edges (the merge runs with
# -use_counters=0, so hit counts alone keep no input), a set chosen greedily
# (-set_cover_merge). One job per target (-fork and
# -jobs off: the machine has 2 cores). A crash, leak or timeout keeps its reproducer under
# BUILD/fuzz-long/artifacts, leaves that target's corpus as it was, and fails the run once
# every target has run.
#   usage: run-long.sh [BUILD] [SECONDS] [TARGET...]   (SECONDS 0: only merge and minimize)
set -uo pipefail
build=${1:-build-fuzz}
seconds=${2:-600}
shift 2 2>/dev/null || shift $#
root=$(cd "$(dirname "$0")/.." && pwd)
out="$build/fuzz-long"
artifacts="$out/artifacts"
mkdir -p "$artifacts"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# Inputs larger than this are not tried (libFuzzer's default is the largest input in the
# corpus, at least 4096 bytes; the largest seeds are about 3 KiB).
max_len=${FUZZ_MAX_LEN:-4096}

# The targets: those named, or every one built.
targets=()
if [ $# -gt 0 ]; then
  targets=("$@")
else
  for bin in "$build"/fuzz/fuzz_*; do
    [ -x "$bin" ] || continue
    case "$(basename "$bin")" in *_replay) continue ;; esac
    targets+=("$(basename "$bin")")
  done
fi
[ ${#targets[@]} -gt 0 ] || { echo "fuzz-long: no fuzz targets built in $build/fuzz" >&2; exit 1; }

stat_of() { sed -n "s/^stat::$1: *//p" "$2" | tail -n 1; }
is_found() { [[ "$1" =~ ^[0-9a-f]{40}$ ]]; } # libFuzzer names what it finds by SHA-1

failed=0
table="$scratch/table"
printf '%-18s %7s %10s %7s %15s %s\n' target seconds runs exec/s corpus findings >"$table"
for name in "${targets[@]}"; do
  bin="$build/fuzz/$name"
  corpus="$root/fuzz/corpus/$name"
  [ -x "$bin" ] || { echo "fuzz-long: $bin is not built" >&2; failed=1; continue; }
  mkdir -p "$corpus"
  work="$scratch/$name"
  mkdir -p "$work/new" "$work/merged"
  before=$(find "$corpus" -maxdepth 1 -type f | wc -l)
  echo "fuzz-long: $name for ${seconds}s from $before inputs"
  start=$(date +%s)
  touch "$work/started"
  if [ "$seconds" -gt 0 ]; then
    "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="$max_len" \
      -print_final_stats=1 -artifact_prefix="$artifacts/$name-" \
      "$work/new" "$corpus" >"$work/log" 2>&1
    rc=$?
  else # SECONDS 0: no fuzzing, only the merge and minimizing of the corpus as it is
    : >"$work/log"
    rc=0
  fi
  took=$(($(date +%s) - start))
  runs=$(stat_of number_of_executed_units "$work/log")
  rate=$(stat_of average_exec_per_sec "$work/log")
  if [ $rc -ne 0 ]; then
    # Kept beside the reproducer; the corpus stays as it was.
    cp "$work/log" "$artifacts/$name.log"
    found=$(find "$artifacts" -maxdepth 1 -type f -name "$name-*" -newer "$work/started" \
      ! -name '*.log' | tr '\n' ' ')
    echo "fuzz-long: $name FAILED (exit $rc): ${found:-no reproducer written}; log $artifacts/$name.log" >&2
    tail -n 30 "$work/log" >&2
    printf '%-18s %7s %10s %7s %15s %s\n' "$name" "$took" "${runs:-?}" "${rate:-?}" \
      "$before->$before" "FAILED: ${found:-exit $rc}" >>"$table"
    failed=1
    continue
  fi
  # The merge: named inputs first (kept whole), then, from the checked-in corpus and the
  # run's finds, a small set that covers every edge they add (libFuzzer's greedy set cover;
  # plain -merge=1 keeps every input that adds an edge in the order it tries them, smallest
  # first, so many inputs of one new edge each stay beside one that covers them all).
  for f in "$corpus"/*; do
    [ -f "$f" ] || continue
    is_found "$(basename "$f")" || cp "$f" "$work/merged/"
  done
  if ! "$bin" -set_cover_merge=1 -use_counters=0 -timeout=10 -rss_limit_mb=2048 -max_len="$max_len" \
    -artifact_prefix="$artifacts/$name-merge-" "$work/merged" "$corpus" "$work/new" \
    >"$work/merge.log" 2>&1; then
    cp "$work/merge.log" "$artifacts/$name-merge.log"
    echo "fuzz-long: $name: merge FAILED; log $artifacts/$name-merge.log" >&2
    tail -n 30 "$work/merge.log" >&2
    printf '%-18s %7s %10s %7s %15s %s\n' "$name" "$took" "${runs:-?}" "${rate:-?}" \
      "$before->$before" "merge FAILED" >>"$table"
    failed=1
    continue
  fi
  # Replace the corpus: a new folder beside it, then two renames, so that a failure
  # anywhere before leaves the checked-in corpus as it was.
  next=$(mktemp -d "$root/fuzz/corpus/.$name.new.XXXXXX")
  cp "$work/merged"/* "$next/" 2>/dev/null || true
  chmod 755 "$next"
  after=$(find "$next" -maxdepth 1 -type f | wc -l)
  old="$root/fuzz/corpus/.$name.old.$$"
  mv -T "$corpus" "$old" && mv -T "$next" "$corpus" && rm -rf "$old" || {
    echo "fuzz-long: $name: could not replace the corpus (old copy in $old)" >&2
    failed=1
  }
  printf '%-18s %7s %10s %7s %15s %s\n' "$name" "$took" "${runs:-?}" "${rate:-?}" \
    "$before->$after" "none" >>"$table"
done

echo
cat "$table"
cp "$table" "$out/results.txt"
if [ $failed -ne 0 ]; then
  echo "fuzz-long: FAILED; reproducers and logs in $artifacts" >&2
  exit 1
fi
echo "fuzz-long: all targets ran clean; corpora in fuzz/corpus updated (not committed)"
