#!/usr/bin/env bash
# Runs the reading commands with -j 1 and with several threads (tojson, cat, count --verify, recodec, repair) on good and damaged files: the same output, messages and exit status.
# Usage: cli_jobs_test.sh AVROKIT_BINARY SCHEMA.avsc
set -u

bin=${1:?usage: cli_jobs_test.sh AVROKIT_BINARY SCHEMA.avsc}
schema=${2:?usage: cli_jobs_test.sh AVROKIT_BINARY SCHEMA.avsc}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

checks=0
failures=0

fail() {
  failures=$((failures + 1))
  echo "FAIL: $*" >&2
}

# outcome NAME ARGS...: runs the CLI; keeps stdout, stderr (progress lines
# are off: --quiet where the command has it) and the exit status in
# $tmp/NAME.{out,err,rc}.
outcome() {
  local name=$1
  shift
  "$bin" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
  echo $? >"$tmp/$name.rc"
}

# same A B WHAT: A's and B's outcomes are equal.
same() {
  local part
  for part in out err rc; do
    checks=$((checks + 1))
    if ! cmp -s "$tmp/$1.$part" "$tmp/$2.$part"; then
      fail "$3: $part differs between $1 and $2: $(diff "$tmp/$1.$part" "$tmp/$2.$part" | head -5)"
    fi
  done
}

# expect_rc NAME WANT WHAT
expect_rc() {
  checks=$((checks + 1))
  if [ "$(cat "$tmp/$1.rc")" != "$2" ]; then
    fail "$3: exit status $(cat "$tmp/$1.rc"), expected $2 ($(head -c 300 "$tmp/$1.err"))"
  fi
}

# Files: many blocks of 8,000 random orders, with three codecs.
"$bin" random --quiet --schema "$schema" --count 8000 --seed 7 "$tmp/null.avro" || exit 1
for c in deflate zstandard; do
  "$bin" recodec --quiet -j 1 --codec "$c" "$tmp/null.avro" "$tmp/$c.avro" || exit 1
done

# Damaged copies: a byte changed in the middle (record or codec damage),
# a sync marker broken, cut short.
damage() { # FILE OFFSET BYTE OUT
  cp "$1" "$4"
  printf "\\x$3" | dd of="$4" bs=1 seek="$2" conv=notrunc status=none
}
for c in null deflate zstandard; do
  f="$tmp/$c.avro"
  size=$(stat -c %s "$f")
  damage "$f" $((size / 2)) ff "$tmp/$c-flip.avro"
  damage "$f" $((size / 3)) 00 "$tmp/$c-zero.avro"
  head -c $((size * 2 / 3)) "$f" >"$tmp/$c-cut.avro"
  # A file that ends cleanly ends with its sync marker: the third copy of
  # it (after the second block) is broken.
  python3 - "$f" "$tmp/$c-sync.avro" <<'PY' || exit 1
import sys
data = bytearray(open(sys.argv[1], 'rb').read())
sync = bytes(data[-16:])
at = -1
for _ in range(3):
    at = data.find(sync, at + 1)
data[at + 5] ^= 0x55
open(sys.argv[2], 'wb').write(data)
PY
done

inputs="null deflate zstandard null-flip deflate-flip zstandard-flip null-zero deflate-zero
        zstandard-zero null-cut deflate-cut zstandard-cut null-sync deflate-sync zstandard-sync"

for name in $inputs; do
  f="$tmp/$name.avro"
  for j in 1 2 3; do
    outcome "tojson-$j" tojson --quiet -j $j "$f"
    outcome "tojsonhead-$j" tojson --quiet -j $j --head 7777 --pretty "$f"
    outcome "count-$j" count --verify -j $j "$f"
    # Outputs go to one name, so that messages naming them are the same.
    outcome "cat-$j" cat --quiet -j $j "$f" "$tmp/o.avro"
    [ -f "$tmp/o.avro" ] && "$bin" tojson --quiet "$tmp/o.avro" >>"$tmp/cat-$j.out" 2>&1
    rm -f "$tmp/o.avro"
    outcome "recodec-$j" recodec --quiet -j $j --codec snappy "$f" "$tmp/o.avro"
    [ -f "$tmp/o.avro" ] && "$bin" tojson --quiet "$tmp/o.avro" >>"$tmp/recodec-$j.out" 2>&1
    rm -f "$tmp/o.avro"
    outcome "repair-$j" repair --quiet -j $j "$f" "$tmp/o.avro"
    [ -f "$tmp/o.avro" ] && "$bin" tojson --quiet "$tmp/o.avro" >>"$tmp/repair-$j.out" 2>&1
    rm -f "$tmp/o.avro"
  done
  for cmd in tojson tojsonhead count cat recodec repair; do
    same "$cmd-1" "$cmd-2" "$cmd $name -j 2"
    same "$cmd-1" "$cmd-3" "$cmd $name -j 3"
  done
  # Good files read whole (a byte changed may still leave valid data, or
  # only a string that is not UTF-8, which tojson refuses and count does
  # not); repair reports damage and exits 0.
  case $name in
    *-*) ;;
    *)
      expect_rc tojson-1 0 "tojson $name"
      expect_rc count-1 0 "count --verify $name"
      ;;
  esac
  case $name in
    *-cut | *-sync) expect_rc count-1 1 "count --verify $name" ;;
  esac
  expect_rc repair-1 0 "repair $name"
done

# The default (no -j) reads these files (over 1 MiB) on every core: the same.
outcome "default" tojson --quiet "$tmp/deflate.avro"
outcome "one" tojson --quiet -j1 "$tmp/deflate.avro"
same default one "tojson without -j"
checks=$((checks + 1))
[ "$(wc -l <"$tmp/one.out")" = 8000 ] || fail "tojson printed $(wc -l <"$tmp/one.out") lines"
outcome "count" count --verify "$tmp/zstandard.avro"
checks=$((checks + 1))
[ "$(cat "$tmp/count.out")" = 8000 ] || fail "count --verify printed $(cat "$tmp/count.out")"

# Usage: -j wants a number; count takes it only with --verify.
outcome bad tojson -j x "$tmp/null.avro"
expect_rc bad 2 "tojson -j x"
outcome bad count -j 2 "$tmp/null.avro"
expect_rc bad 2 "count -j without --verify"

echo "cli_jobs_test: $checks checks, $failures failures"
[ "$failures" -eq 0 ]
