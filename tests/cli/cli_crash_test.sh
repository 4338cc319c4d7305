#!/usr/bin/env bash
# Kills the CLI's writers (fromjson, fromjson --append, cat --append) with SIGKILL at random moments: a new file is absent or whole, an appended file keeps every record it had and reads as a prefix of what was being written, and a torn tail is refused, then cut with --truncate-torn-tail.
# Usage: cli_crash_test.sh AVROKIT_BINARY [KILLS_PER_SCENARIO]
set -u

bin=${1:?usage: cli_crash_test.sh AVROKIT_BINARY [KILLS_PER_SCENARIO]}
kills=${2:-${AVKT_CLI_CRASH_RUNS:-100}}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

checks=0
failures=0
torn=0
fail() {
  failures=$((failures + 1))
  echo "FAIL: $*" >&2
}
check() { # check CONDITION-STATUS WHAT
  checks=$((checks + 1))
  [ "$1" -eq 0 ] || fail "$2"
}

cat >s.avsc <<'EOF'
{"type":"record","name":"R","fields":[{"name":"i","type":"long"},{"name":"pad","type":"string"}]}
EOF
awk 'BEGIN { for (i = 0; i < 30000; i++) printf "{\"i\":%d,\"pad\":\"%s\"}\n", i, substr("abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz", 1 + i % 26, 10 + i % 17) }' >big.json
awk 'BEGIN { for (i = 0; i < 50; i++) printf "{\"i\":%d,\"pad\":\"base\"}\n", -i - 1 }' >base.json
"$bin" fromjson --quiet --schema s.avsc --codec deflate big.json ref.avro || exit 1
"$bin" fromjson --quiet --schema s.avsc --codec deflate base.json base.avro || exit 1
"$bin" tojson --quiet ref.avro >ref.out || exit 1
"$bin" tojson --quiet base.avro >base.out || exit 1
cat base.out ref.out >appended.out

# How long a whole run takes, in ms: kills land anywhere in it.
start=$(date +%s%N)
"$bin" fromjson --quiet --schema s.avsc --codec deflate big.json probe.avro || exit 1
span=$((($(date +%s%N) - start) / 1000000 + 5))
rm -f probe.avro

# run_and_kill ARGS...: starts the CLI and kills it with SIGKILL at a random
# moment of a whole run's span (it may have finished by then).
run_and_kill() {
  "$bin" "$@" >/dev/null 2>&1 &
  local pid=$!
  sleep "$(printf '0.%03d' $((RANDOM % span % 1000)))"
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
}

# is_prefix PART WHOLE: PART's bytes begin WHOLE.
is_prefix() {
  local n
  n=$(stat -c %s "$1")
  head -c "$n" "$2" | cmp -s - "$1"
}

# A new file is written beside its target and renamed when whole: after a
# kill the target is absent or whole. SIGKILL cannot be caught, so the
# temporary file (.out.avro.avrokit-XXXXXX) may stay; it never has the
# target's name.
for ((k = 0; k < kills; k++)); do
  rm -f out.avro .out.avro.avrokit-*
  run_and_kill fromjson --quiet --schema s.avsc --codec deflate big.json out.avro
  if [ -e out.avro ]; then
    "$bin" tojson --quiet out.avro >out.out 2>/dev/null
    cmp -s out.out ref.out
    check $? "fromjson kill $k: out.avro exists but is not the whole output"
  fi
done

# append_round CMD...: a copy of base.avro gets records appended by CMD,
# killed at random; the file must then read as base's records followed by
# a prefix of the new ones, and take a clean append afterwards.
append_round() {
  local k=$1
  shift
  cp base.avro f.avro
  run_and_kill "$@"
  "$bin" tojson --quiet f.avro >f.out 2>f.err
  local rc=$?
  is_prefix base.out f.out
  check $? "$* kill $k: records that were in the file before are gone"
  is_prefix f.out appended.out
  check $? "$* kill $k: the file is not base's records and a prefix of the appended ones"
  if [ "$rc" -ne 0 ]; then
    grep -q 'ends before\|remain in the file\|cut short\|truncated' f.err
    check $? "$* kill $k: the read stopped with something else than a torn tail: $(cat f.err)"
    "$bin" fromjson --quiet --append base.json f.avro 2>f.err
    [ $? -ne 0 ] && grep -q 'torn tail' f.err
    check $? "$* kill $k: an append after a torn tail was not refused: $(cat f.err)"
    cp f.avro torn.avro
    "$bin" fromjson --quiet --append --truncate-torn-tail base.json f.avro 2>f.err
    check $? "$* kill $k: --truncate-torn-tail failed: $(cat f.err)"
    # What was read before the cut, less any records of a block whose marker
    # alone was cut, then base's records again.
    "$bin" tojson --quiet f.avro >cut.out 2>/dev/null
    tail -n 50 cut.out | cmp -s - base.out
    check $? "$* kill $k: the records appended after the cut are not base's"
    head -n -50 cut.out >kept.out
    is_prefix kept.out f.out
    check $? "$* kill $k: the cut took records of complete blocks"
    torn=$((torn + 1))
  else
    "$bin" fromjson --quiet --append base.json f.avro 2>f.err
    check $? "$* kill $k: appending to a clean file failed: $(cat f.err)"
  fi
  "$bin" count --verify f.avro >/dev/null 2>f.err
  check $? "$* kill $k: the file is not clean after the append: $(cat f.err)"
}

for ((k = 0; k < kills; k++)); do
  append_round "$k" fromjson --quiet --append big.json f.avro
  append_round "$k" cat --quiet --append ref.avro f.avro
done

# SIGTERM (or Ctrl-C) is caught: an append it interrupts is taken off again,
# so the file is the old one or, when the run had finished, the whole result.
for ((k = 0; k < kills / 3; k++)); do
  cp base.avro f.avro
  "$bin" fromjson --quiet --append big.json f.avro >/dev/null 2>&1 &
  pid=$!
  sleep "$(printf '0.%03d' $((RANDOM % span % 1000)))"
  kill -TERM "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  if ! cmp -s f.avro base.avro; then
    "$bin" tojson --quiet f.avro >f.out 2>f.err
    cmp -s f.out appended.out
    check $? "fromjson --append SIGTERM $k: the file is neither the old one nor the whole result"
  fi
done

echo "cli_crash_test: $((kills * 3)) kills ($torn torn tails cut), $((kills / 3)) SIGTERMs, $checks checks, $failures failures"
[ "$failures" -eq 0 ]
