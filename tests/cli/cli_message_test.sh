#!/usr/bin/env bash
# Runs jsontofrag, fragtojson, frame and unframe: round trips of every interop container file in every framing and delimiting, Java's single-object example byte for byte, exact stream bytes, bad input with exact statuses and messages.
# Usage: cli_message_test.sh AVROKIT_BINARY [INTEROP_DIR]
# Parts that need the shared interop data are skipped (with a message)
# when INTEROP_DIR/apache is absent; the comparison with avro-tools is
# skipped when avro-tools is not installed.
set -u

bin=${1:?usage: cli_message_test.sh AVROKIT_BINARY [INTEROP_DIR]}
interop=${2:-}
apache="$interop/apache"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

checks=0
failures=0

fail() {
  failures=$((failures + 1))
  echo "FAIL: $*" >&2
}

# run ARGS...: runs the CLI; sets $rc, and $out / $err to its stdout / stderr.
run() {
  "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  out=$(cat "$tmp/out")
  err=$(cat "$tmp/err")
}

# run_in INPUT ARGS...: like run, with INPUT on standard input.
run_in() {
  local input=$1
  shift
  "$bin" "$@" <"$input" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  out=$(cat "$tmp/out")
  err=$(cat "$tmp/err")
}

# expect_rc WANT DESCRIPTION
expect_rc() {
  checks=$((checks + 1))
  if [ "$rc" -ne "$1" ]; then
    fail "$2: exit status $rc, expected $1 (stdout: ${out:0:200}) (stderr: ${err:0:300})"
    return 1
  fi
  return 0
}

# expect_eq GOT WANT DESCRIPTION
expect_eq() {
  checks=$((checks + 1))
  if [ "$1" != "$2" ]; then
    fail "$3: got '${1:0:300}', expected '${2:0:300}'"
    return 1
  fi
  return 0
}

# expect_contains TEXT NEEDLE DESCRIPTION
expect_contains() {
  checks=$((checks + 1))
  case "$1" in
    *"$2"*) return 0 ;;
  esac
  fail "$3: '${1:0:300}' does not contain '$2'"
  return 1
}

# expect_same_file GOT WANT DESCRIPTION: byte for byte.
expect_same_file() {
  checks=$((checks + 1))
  if ! cmp -s "$1" "$2"; then
    fail "$3: $1 differs from $2 ($(cmp "$1" "$2" 2>&1 | head -n 1))"
    return 1
  fi
  return 0
}

# hexof FILE: the file's bytes as one line of lowercase hex.
hexof() {
  od -An -v -tx1 "$1" | tr -d ' \n'
}

# ---- help and usage errors ------------------------------------------------------

run --help
for c in jsontofrag fragtojson frame unframe; do
  expect_contains "$out" "$c" "top-level help lists $c"
done
for c in jsontofrag fragtojson frame unframe; do
  run "$c" --help
  expect_rc 0 "$c --help" && expect_contains "$out" "Usage: avrokit $c" "$c --help prints its usage"
  expect_eq "$err" "" "$c --help writes nothing to stderr"
done
run frame --help
expect_contains "$out" "4 bytes big-endian" "frame help gives the length prefix"
expect_contains "$out" "RFC 4648" "frame help gives the base64 alphabet"

printf '"int"' >"$tmp/int.avsc"
printf '{"type": "int",}' >"$tmp/syntax.avsc"
printf '1\n2\n' >"$tmp/ints.json"

run jsontofrag "$tmp/ints.json"
expect_rc 2 "jsontofrag without --schema" && expect_contains "$err" "missing --schema" "missing schema said"
run fragtojson "$tmp/ints.json"
expect_rc 2 "fragtojson without --schema"
run jsontofrag --schema "$tmp/int.avsc" --schema-file "$tmp/int.avsc" "$tmp/ints.json"
expect_rc 2 "jsontofrag with two schemas"
run frame --schema "$tmp/int.avsc" "$tmp/ints.json"
expect_rc 2 "frame without --format" && expect_contains "$err" "missing --format" "missing format said"
run frame --format avro --schema "$tmp/int.avsc" "$tmp/ints.json"
expect_rc 2 "frame --format avro" && expect_contains "$err" "'avro'" "bad format named"
run frame --format confluent --schema "$tmp/int.avsc" "$tmp/ints.json"
expect_rc 2 "confluent without --id" && expect_contains "$err" "--format confluent needs --id" "missing --id said"
run frame --format confluent --id 4294967296 --schema "$tmp/int.avsc" "$tmp/ints.json"
expect_rc 2 "--id above 2^32-1" && expect_contains "$err" "0-4294967295" "id range said"
run frame --format raw --id 3 --schema "$tmp/int.avsc" "$tmp/ints.json"
expect_rc 2 "--id without confluent"
run frame --format raw --delimit comma --schema "$tmp/int.avsc" "$tmp/ints.json"
expect_rc 2 "--delimit comma" && expect_contains "$err" "length, hex, base64 or none" "delimit choices listed"
run frame --format raw --from xml --schema "$tmp/int.avsc" "$tmp/ints.json"
expect_rc 2 "--from xml"
run unframe --format raw "$tmp/ints.json"
expect_rc 2 "unframe without a schema"
run unframe --format raw --schema "$tmp/int.avsc" --schema "$tmp/int.avsc" "$tmp/ints.json"
expect_rc 2 "unframe raw with two schemas" && expect_contains "$err" "exactly one --schema" "one schema said"
run unframe --format confluent --schema "$tmp/int.avsc" "$tmp/ints.json"
expect_rc 2 "unframe confluent without an id" && expect_contains "$err" "--schema N=FILE" "ids asked for"
run unframe --format single-object --schema "$tmp/int.avsc" --to text "$tmp/ints.json"
expect_rc 2 "--to text"

# Bad schema files: exit 1 naming the file.
run jsontofrag --schema "$tmp/syntax.avsc" "$tmp/ints.json"
expect_rc 1 "jsontofrag with a bad schema" && expect_contains "$err" "$tmp/syntax.avsc: " "bad schema file named"
expect_contains "$err" "line 1, column 16" "bad schema's place"
run frame --format single-object --schema "$tmp/missing.avsc" "$tmp/ints.json"
expect_rc 1 "frame with a missing schema" && expect_contains "$err" "$tmp/missing.avsc" "missing schema named"
run unframe --format single-object --schema "$tmp/syntax.avsc" "$tmp/ints.json"
expect_rc 1 "unframe with a bad schema" && expect_contains "$err" "$tmp/syntax.avsc" "bad schema named"

# ---- exact bytes --------------------------------------------------------------------

# int 1 is zigzag 02, -1 is 01; "ab" is 04 61 62.
run jsontofrag --schema "$tmp/int.avsc" "$tmp/ints.json" -o "$tmp/ints.bin"
expect_rc 0 "jsontofrag ints" && expect_eq "$(hexof "$tmp/ints.bin")" "0204" "jsontofrag bytes"
printf '1 2\n[\n]' >"$tmp/layout.json"
run jsontofrag --schema-json '{"type":"array","items":"int"}' "$tmp/layout.json" -o "$tmp/layout.bin"
expect_rc 1 "jsontofrag: 1 is no array" && expect_contains "$err" "line 1, column 1" "place of the bad value"
printf '[1, 2] [\n3\n]\n\n[]' >"$tmp/layout.json"
run jsontofrag --schema-json '{"type":"array","items":"int"}' "$tmp/layout.json" -o "$tmp/layout.bin"
expect_rc 0 "jsontofrag: values in any layout" && expect_eq "$(hexof "$tmp/layout.bin")" "0402040002060000" "arrays back to back"
run fragtojson --schema-json '{"type":"array","items":"int"}' "$tmp/layout.bin"
expect_rc 0 "fragtojson arrays" && expect_eq "$out" '[1,2]
[3]
[]' "fragtojson arrays"
run_in "$tmp/ints.json" jsontofrag --schema-file "$tmp/int.avsc" -
expect_rc 0 "jsontofrag from standard input" && expect_eq "$(hexof "$tmp/out")" "0204" "jsontofrag stdin bytes"

run frame --format raw --schema "$tmp/int.avsc" "$tmp/ints.json" -o "$tmp/f.bin"
expect_rc 0 "frame raw length" && expect_eq "$(hexof "$tmp/f.bin")" "00000001020000000104" "length prefixes, big-endian"
run frame --format confluent --id 258 --delimit hex --schema "$tmp/int.avsc" "$tmp/ints.json"
expect_rc 0 "frame confluent hex" && expect_eq "$out" "000000010202
000000010204" "confluent messages in hex: 00, id 258 big-endian, datum"
run frame --format confluent --id 258 --delimit base64 --schema "$tmp/int.avsc" "$tmp/ints.json"
expect_rc 0 "frame confluent base64" && expect_eq "$out" "AAAAAQIC
AAAAAQIE" "confluent messages in base64"
run frame --format confluent --id 258 --delimit none --schema "$tmp/int.avsc" "$tmp/ints.json" -o "$tmp/c.bin"
expect_rc 0 "frame confluent none" && expect_eq "$(hexof "$tmp/c.bin")" "000000010202000000010204" "confluent back to back"
# "int" has the CRC-64-AVRO fingerprint whose little-endian bytes are
# 8f5c393f1ad57572 (the specification's table, and `avrokit fingerprint`).
run frame --format single-object --delimit hex --schema "$tmp/int.avsc" "$tmp/ints.json"
expect_rc 0 "frame single-object hex" && expect_eq "$out" "c3018f5c393f1ad5757202
c3018f5c393f1ad5757204" "single-object messages in hex"
# base64 padding: 1, 2 and 3 bytes of a last group.
printf '"a"\n"ab"\n"abc"\n""\n' >"$tmp/strs.json"
printf '"string"' >"$tmp/string.avsc"
run frame --format raw --delimit base64 --schema "$tmp/string.avsc" "$tmp/strs.json"
expect_rc 0 "frame raw base64" && expect_eq "$out" "AmE=
BGFi
BmFiYw==
AA==" "base64 with padding"
run frame --format raw --delimit base64 --schema "$tmp/string.avsc" "$tmp/strs.json" -o "$tmp/strs.b64"
run unframe --format raw --delimit base64 --schema "$tmp/string.avsc" "$tmp/strs.b64"
expect_rc 0 "unframe raw base64" && expect_eq "$out" "$(cat "$tmp/strs.json")" "base64 read back"
# An empty message (a datum of no bytes) is an empty line, and reads back.
printf 'null\nnull\n' >"$tmp/nulls.json"
run frame --format raw --delimit hex --schema '"null"' "$tmp/nulls.json" -o "$tmp/nulls.hex"
expect_rc 0 "frame nulls hex" && expect_eq "$(hexof "$tmp/nulls.hex")" "0a0a" "empty lines"
run unframe --format raw --delimit hex --schema '"null"' "$tmp/nulls.hex"
expect_rc 0 "unframe nulls hex" && expect_eq "$out" "null
null" "empty messages read back"
run frame --format raw --delimit length --schema '"null"' "$tmp/nulls.json" -o "$tmp/nulls.len"
run unframe --format raw --schema '"null"' "$tmp/nulls.len"
expect_rc 0 "unframe nulls length" && expect_eq "$out" "null
null" "zero lengths read back"
run fragtojson --schema '"null"' "$tmp/nulls.len"
expect_rc 1 "fragtojson of values that take no bytes" && expect_contains "$err" "datum 1 at byte 0: raw datums of this schema take no bytes" "empty datums said"

# Uppercase hex and CRLF line ends are read too.
printf '000000010202\r\n000000010204\r\n' | tr 'a-f' 'A-F' >"$tmp/upper.hex"
run unframe --format confluent --id 258 --delimit hex --schema "$tmp/int.avsc" "$tmp/upper.hex"
expect_rc 0 "unframe CRLF hex" && expect_eq "$out" "1
2" "CRLF hex"

# --from binary: raw datums in, the same messages out as from JSON.
run frame --format confluent --id 258 --delimit none --from binary --schema "$tmp/int.avsc" "$tmp/ints.bin" -o "$tmp/c2.bin"
expect_rc 0 "frame --from binary" && expect_same_file "$tmp/c2.bin" "$tmp/c.bin" "frame --from binary = from JSON"
# --to binary: the raw datums back.
run unframe --format confluent --schema 258="$tmp/int.avsc" --delimit none --to binary "$tmp/c.bin" -o "$tmp/d.bin"
expect_rc 0 "unframe --to binary" && expect_same_file "$tmp/d.bin" "$tmp/ints.bin" "unframe --to binary = jsontofrag"

# ---- schema stores: --schema N=FILE, --schemas DIR and FILE.json, reader schemas ----

printf '{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}' >"$tmp/r1.avsc"
printf '{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"string"}]}' >"$tmp/r2.avsc"
printf '{"a":1}\n{"a":2}\n' >"$tmp/r1.json"
printf '{"a":3,"b":"x"}\n' >"$tmp/r2.json"
if ! { "$bin" frame --format confluent --id 1 --schema "$tmp/r1.avsc" "$tmp/r1.json" -o "$tmp/m1" &&
  "$bin" frame --format confluent --id 2 --schema "$tmp/r2.avsc" "$tmp/r2.json" -o "$tmp/m2" &&
  "$bin" frame --format single-object --schema "$tmp/r1.avsc" "$tmp/r1.json" -o "$tmp/s1" &&
  "$bin" frame --format single-object --schema "$tmp/r2.avsc" "$tmp/r2.json" -o "$tmp/s2"; }; then
  fail "framing the schema-store inputs"
fi
cat "$tmp/m1" "$tmp/m2" "$tmp/m1" >"$tmp/mixed"
cat "$tmp/s2" "$tmp/s1" >"$tmp/smixed"
mixed_json='{"a":1}
{"a":2}
{"a":3,"b":"x"}
{"a":1}
{"a":2}'
run unframe --format confluent --schema 1="$tmp/r1.avsc" --schema 2="$tmp/r2.avsc" "$tmp/mixed"
expect_rc 0 "two ids by --schema N=FILE" && expect_eq "$out" "$mixed_json" "values of two schemas"
mkdir "$tmp/reg"
cp "$tmp/r1.avsc" "$tmp/reg/1.avsc"
cp "$tmp/r2.avsc" "$tmp/reg/2.avsc"
run unframe --format confluent --schemas "$tmp/reg" "$tmp/mixed"
expect_rc 0 "--schemas DIR" && expect_eq "$out" "$mixed_json" "schemas from a directory"
printf '{"1": %s, "2": %s}' "$(cat "$tmp/r1.avsc")" "$(cat "$tmp/r2.avsc")" >"$tmp/reg.json"
run unframe --format confluent --schemas "$tmp/reg.json" "$tmp/mixed"
expect_rc 0 "--schemas FILE.json" && expect_eq "$out" "$mixed_json" "schemas from a JSON file"
run unframe --format confluent --schema 1="$tmp/r1.avsc" --schemas "$tmp/reg" "$tmp/mixed"
expect_rc 0 "--schema and --schemas together" && expect_eq "$out" "$mixed_json" "both sources"
run unframe --format single-object --schema "$tmp/r1.avsc" --schema "$tmp/r2.avsc" "$tmp/smixed"
expect_rc 0 "single-object, two schemas" && expect_eq "$out" '{"a":3,"b":"x"}
{"a":1}
{"a":2}' "single-object values found by fingerprint"
printf '{"type":"record","name":"R","fields":[{"name":"a","type":"long"},{"name":"c","type":"string","default":"d"}]}' >"$tmp/rr.avsc"
run unframe --format confluent --schemas "$tmp/reg" --reader-schema "$tmp/rr.avsc" "$tmp/mixed"
expect_rc 0 "unframe --reader-schema" && expect_eq "$out" '{"a":1,"c":"d"}
{"a":2,"c":"d"}
{"a":3,"c":"d"}
{"a":1,"c":"d"}
{"a":2,"c":"d"}' "values resolved into the reader schema"
run unframe --format confluent --schemas "$tmp/reg" --reader-schema "$tmp/rr.avsc" --to binary "$tmp/mixed" -o "$tmp/rr.bin"
run fragtojson --schema "$tmp/rr.avsc" "$tmp/rr.bin"
expect_rc 0 "--to binary in the reader schema" && expect_eq "$(head -n 1 <<<"$out")" '{"a":1,"c":"d"}' "reader-schema datums"
"$bin" jsontofrag --schema "$tmp/r2.avsc" "$tmp/r2.json" -o "$tmp/r2.bin"
run fragtojson --schema "$tmp/r2.avsc" --reader-schema "$tmp/rr.avsc" "$tmp/r2.bin"
expect_rc 0 "fragtojson --reader-schema" && expect_eq "$out" '{"a":3,"c":"d"}' "fragtojson resolves"
printf '{"type":"record","name":"R","fields":[{"name":"z","type":"int"}]}' >"$tmp/rz.avsc"
run fragtojson --schema "$tmp/r2.avsc" --reader-schema "$tmp/rz.avsc" "$tmp/r2.bin"
expect_rc 1 "fragtojson, a reader schema that cannot be resolved" && expect_contains "$err" "avrokit fragtojson: the schema cannot be read as the reader schema: " "unresolvable said"
expect_contains "$err" '"z": no default and not in writer' "the problem given"
run unframe --format confluent --schemas "$tmp/reg" --reader-schema "$tmp/rz.avsc" "$tmp/mixed"
expect_rc 1 "unframe, a writer schema that cannot be resolved" && expect_contains "$err" "$tmp/mixed: message 1 at byte 0: " "unresolvable message named"
expect_contains "$err" '"z": no default and not in writer' "the problem given"
run fragtojson --schema "$tmp/r2.avsc" --pretty "$tmp/r2.bin"
expect_rc 0 "fragtojson --pretty" && expect_eq "$(wc -l <"$tmp/out" | tr -d ' ')" "4" "pretty values over several lines"

# ---- regression tests --------------------------------------------------------------

# avro-tools' positional form: SCHEMA then FILE.
run jsontofrag '"int"' "$tmp/ints.json" -o "$tmp/pos.bin"
expect_rc 0 "jsontofrag SCHEMA FILE" && expect_eq "$(hexof "$tmp/pos.bin")" "0204" "jsontofrag positional schema bytes"
run fragtojson '"int"' "$tmp/pos.bin"
expect_rc 0 "fragtojson SCHEMA FILE" && expect_eq "$out" '1
2' "fragtojson positional schema values"
run fragtojson --no-pretty '"int"' "$tmp/pos.bin"
expect_rc 0 "fragtojson --no-pretty" && expect_eq "$out" '1
2' "fragtojson --no-pretty values"

# A 10 MB raw datum (an array of 10,000,000 longs of one byte each) in well under 5 s.
python3 -c '
import sys
n = 10000000
z = n << 1
v = bytearray()
while z >= 0x80:
    v.append((z & 0x7f) | 0x80)
    z >>= 7
v.append(z)
sys.stdout.buffer.write(bytes(v) + b"\x02" * n + b"\x00")
' >"$tmp/big.bin"
t0=$(date +%s%N)
timeout 20 "$bin" fragtojson --schema '{"type":"array","items":"long"}' "$tmp/big.bin" >"$tmp/big.out" 2>"$tmp/err"
rc=$?
t1=$(date +%s%N)
out=''
err=$(cat "$tmp/err")
ms=$(((t1 - t0) / 1000000))
if expect_rc 0 "fragtojson of a 10 MB datum"; then
  expect_eq "$(wc -c <"$tmp/big.out" | tr -d ' ')" 20000002 "fragtojson of a 10 MB datum: one line of 20,000,002 bytes"
  expect_eq "$(wc -l <"$tmp/big.out" | tr -d ' ')" 1 "fragtojson of a 10 MB datum: one line"
fi
checks=$((checks + 1))
[ "$ms" -lt 5000 ] || fail "fragtojson of a 10 MB datum took $ms ms (expected < 5000)"
echo "fragtojson of a 10 MB datum: $ms ms"
rm -f "$tmp/big.bin" "$tmp/big.out"

# An existing -o file keeps its owner and group (root only: chown needs it).
if [ "$(id -u)" -eq 0 ]; then
  printf 'old' >"$tmp/owned.bin"
  chown 65534:65534 "$tmp/owned.bin"
  run jsontofrag --schema "$tmp/int.avsc" "$tmp/ints.json" -o "$tmp/owned.bin"
  expect_rc 0 "jsontofrag -o a file owned by nobody" &&
    expect_eq "$(hexof "$tmp/owned.bin")" "0204" "jsontofrag -o a file owned by nobody: bytes"
  expect_eq "$(stat -c %u:%g "$tmp/owned.bin")" "65534:65534" "-o file keeps its owner and group"
else
  echo "skipped: -o keeps owner and group (needs root to chown)"
fi

# Values before an error come out before it when stdout and stderr are one pipe.
# m1 holds two messages of id 1 (each 4 + 5 + 1 bytes, length-prefixed), m2 one of id 2.
cat "$tmp/m1" "$tmp/m2" >"$tmp/m12"
"$bin" unframe --format confluent --schema 1="$tmp/r1.avsc" "$tmp/m12" 2>&1 | cat >"$tmp/both"
rc=${PIPESTATUS[0]}
out=$(cat "$tmp/both")
err=''
expect_rc 1 "unframe: values then an unknown id" &&
  expect_eq "$out" "{\"a\":1}
{\"a\":2}
$tmp/m12: message 3 at byte 20: schema id 2 is not in the schema store" "values then the error, in order, on one pipe"

# ---- bad input: exact statuses, message numbers and offsets -----------------------

# Unknown id: the third message, at byte 20 (two of 4 + 5 + 1 bytes before it).
run unframe --format confluent --schema 1="$tmp/r1.avsc" "$tmp/mixed"
expect_rc 1 "unknown id" && expect_contains "$err" "$tmp/mixed: message 3 at byte 20" "unknown id: message and offset"
expect_contains "$err" "id 2 " "unknown id named"
expect_eq "$out" '{"a":1}
{"a":2}' "the values before the unknown id are printed"
# Unknown fingerprint.
run unframe --format single-object --schema "$tmp/r1.avsc" "$tmp/smixed"
expect_rc 1 "unknown fingerprint" && expect_contains "$err" "message 1 at byte 0" "unknown fingerprint: message and offset"
expect_contains "$err" "fingerprint" "unknown fingerprint said"
# Bad marker: C3 02.
printf 'c302%s\n' "7275d51a3f395c8f02" >"$tmp/badmark.hex"
run unframe --format single-object --delimit hex --schema "$tmp/int.avsc" "$tmp/badmark.hex"
expect_rc 1 "bad single-object marker" && expect_contains "$err" "message 1 (line 1) at byte 0" "bad marker: message and place"
expect_contains "$err" "0xC3 0x02" "bad marker bytes named"
# Bad magic byte of a Confluent message.
printf '\0\0\0\6\1\0\0\0\1\2' >"$tmp/badmagic"
run unframe --format confluent --schema 1="$tmp/int.avsc" "$tmp/badmagic"
expect_rc 1 "bad confluent magic byte" && expect_contains "$err" "message 1 at byte 0" "bad magic: message and offset"
expect_contains "$err" "magic byte" "bad magic byte said"
# A length prefix cut short, after one good message.
{ cat "$tmp/m1"; printf '\0\0'; } >"$tmp/cutlen"
run unframe --format confluent --schema 1="$tmp/r1.avsc" "$tmp/cutlen"
expect_rc 1 "truncated length prefix" && expect_contains "$err" "message 3 at byte 20" "cut prefix: message and offset"
expect_contains "$err" "4-byte length" "cut length prefix said"
expect_eq "$out" '{"a":1}
{"a":2}' "the values before the cut prefix are printed"
# A message shorter than its length says.
{ printf '\0\0\0\12'; head -c 7 "$tmp/c.bin"; } >"$tmp/cutmsg"
run unframe --format confluent --schema 258="$tmp/int.avsc" "$tmp/cutmsg"
expect_rc 1 "truncated message" && expect_contains "$err" "message 1 at byte 0" "cut message: message and offset"
expect_contains "$err" "10 bytes" "the length the message claims said"
# A datum cut short: fragtojson names it and its offset.
"$bin" jsontofrag --schema "$tmp/r2.avsc" "$tmp/r2.json" -o "$tmp/one.bin"
cat "$tmp/one.bin" "$tmp/one.bin" >"$tmp/two.bin"
head -c $(($(wc -c <"$tmp/two.bin") - 1)) "$tmp/two.bin" >"$tmp/cut.bin"
run fragtojson --schema "$tmp/r2.avsc" "$tmp/cut.bin"
expect_rc 1 "truncated datum" && expect_contains "$err" "$tmp/cut.bin: datum 2 at byte 3" "cut datum: number and offset"
expect_eq "$out" '{"a":3,"b":"x"}' "the datum before the cut one is printed"
run fragtojson --schema "$tmp/r2.avsc" /dev/null
expect_rc 0 "fragtojson of nothing" && expect_eq "$out" "" "no datums, no lines"
# Hex lines: an odd number of digits, a character that is not hex.
printf '000000010202\nabc\n' >"$tmp/odd.hex"
run unframe --format confluent --id 258 --delimit hex --schema "$tmp/int.avsc" "$tmp/odd.hex"
expect_rc 1 "odd hex line" && expect_contains "$err" "message 2 (line 2) at byte 16: an odd number of hex digits (3)" "odd hex said"
expect_eq "$out" "1" "the message before the odd line is printed"
printf '00000001020x\n' >"$tmp/nothex.hex"
run unframe --format confluent --id 258 --delimit hex --schema "$tmp/int.avsc" "$tmp/nothex.hex"
expect_rc 1 "non-hex character" && expect_contains "$err" "'x' is not a hex digit" "bad hex digit said"
printf 'AAAAAQI\n' >"$tmp/bad.b64"
run unframe --format confluent --id 258 --delimit base64 --schema "$tmp/int.avsc" "$tmp/bad.b64"
expect_rc 1 "base64 without padding" && expect_contains "$err" "not a multiple of 4" "base64 length said"
# Bytes left after a datum inside a message.
printf '00000001020202\n' >"$tmp/extra.hex"
run unframe --format confluent --id 258 --delimit hex --schema "$tmp/int.avsc" "$tmp/extra.hex"
expect_rc 1 "bytes after the datum" && expect_contains "$err" "message 1 (line 1)" "extra bytes: message named"

# Limits: a message above --max-message is refused, naming the option.
run unframe --format confluent --schema 1="$tmp/r1.avsc" --max-message 4 "$tmp/mixed"
expect_rc 1 "length above --max-message" && expect_contains "$err" "message 1 at byte 0: " "limit: message named"
expect_contains "$err" "(a limit, not damage: --max-message raises it)" "limit: option named"
run unframe --format confluent --id 258 --delimit hex --schema "$tmp/int.avsc" --max-message 5 "$tmp/upper.hex"
expect_rc 1 "hex line above --max-message" && expect_contains "$err" "message 1 (line 1) at byte 0: 6 bytes, more than max_message (5)" "hex limit said"
run unframe --format confluent --id 258 --delimit hex --schema "$tmp/int.avsc" --max-message 1K "$tmp/upper.hex"
expect_rc 0 "--max-message 1K" && expect_eq "$out" "1
2" "--max-message with a unit"
run unframe --format confluent --id 258 --schema "$tmp/int.avsc" --max-message 1X "$tmp/c.bin"
expect_rc 2 "--max-message 1X" && expect_contains "$err" "--max-message" "bad size named"

# A failed run leaves an existing output as it was, and no temporary file.
mkdir "$tmp/keep"
printf 'precious\n' >"$tmp/keep/out"
printf '1\n"x"\n' >"$tmp/bad.json"
for cmd in "jsontofrag --schema $tmp/int.avsc $tmp/bad.json" \
           "frame --format raw --schema $tmp/int.avsc $tmp/bad.json" \
           "fragtojson --schema $tmp/r2.avsc $tmp/cut.bin" \
           "unframe --format confluent --schema 1=$tmp/r1.avsc $tmp/mixed"; do
  # shellcheck disable=SC2086
  run $cmd -o "$tmp/keep/out"
  expect_rc 1 "$cmd -o existing" && expect_eq "$(cat "$tmp/keep/out")" "precious" "$cmd: the output is untouched"
  expect_eq "$(ls -A "$tmp/keep")" "out" "$cmd: no temporary file left"
done
# Killed while writing (SIGTERM): the temporary file goes, the output stays.
if mkfifo "$tmp/fifo" 2>/dev/null; then
  "$bin" frame --format raw --schema "$tmp/int.avsc" "$tmp/fifo" -o "$tmp/keep/out" 2>/dev/null &
  pid=$!
  # Read-write: opening a FIFO so never waits for the other end (Linux),
  # so the script cannot hang should frame fail to start.
  exec 3<>"$tmp/fifo"
  printf '1\n' >&3
  for _ in $(seq 50); do
    [ "$(find "$tmp/keep" -mindepth 1 | wc -l)" -ge 2 ] && break
    sleep 0.1
  done
  checks=$((checks + 1))
  [ "$(find "$tmp/keep" -mindepth 1 | wc -l)" -eq 2 ] || fail "frame writing to a temporary file while it runs"
  kill -TERM "$pid"
  wait "$pid"
  rc=$?
  exec 3>&-
  out='' err=''
  expect_rc 143 "frame killed by SIGTERM"
  expect_eq "$(ls -A "$tmp/keep")" "out" "killed: the temporary file is removed"
  expect_eq "$(cat "$tmp/keep/out")" "precious" "killed: the output is untouched"
fi
run jsontofrag --schema "$tmp/int.avsc" "$tmp/bad.json" -o "$tmp/keep/new"
expect_rc 1 "jsontofrag -o new on failure" && expect_contains "$err" "$tmp/bad.json: line 2, column 1" "bad value's place"
checks=$((checks + 1))
[ ! -e "$tmp/keep/new" ] || fail "a failed run created its output"
run jsontofrag --schema "$tmp/int.avsc" "$tmp/ints.json" -o "$tmp/keep/out"
expect_rc 0 "jsontofrag -o existing on success" && expect_eq "$(hexof "$tmp/keep/out")" "0204" "the output is replaced"
run jsontofrag --schema "$tmp/int.avsc" "$tmp/ints.json" -o "$tmp/ints.json"
expect_rc 1 "output is the input" && expect_contains "$err" "is also an input" "same file refused"

# ---- interop data ----------------------------------------------------------------------

if [ -z "$interop" ] || [ ! -d "$apache" ]; then
  echo "SKIP: interop data not found at '$apache'; the shared apache/avro test data is expected beside the source tree at ../shared/interop"
  echo "cli_message_test: $checks checks, $failures failures"
  [ "$failures" -eq 0 ]
  exit
fi

# Java's single-object example (share/test/data/messageV1): its bytes read,
# and written again byte for byte.
mv1="$apache/share/test/data/messageV1"
java_json='{"id":42,"name":"Bill","tags":["dog_lover","cat_hater"]}'
run unframe --format single-object --delimit none --schema "$mv1/test_schema.avsc" "$mv1/test_message.bin"
expect_rc 0 "unframe Java's single-object message" && expect_eq "$out" "$java_json" "Java's message read"
printf '%s\n' "$java_json" >"$tmp/java.json"
run frame --format single-object --delimit none --schema "$mv1/test_schema.avsc" "$tmp/java.json" -o "$tmp/java.bin"
expect_rc 0 "frame Java's record" && expect_same_file "$tmp/java.bin" "$mv1/test_message.bin" "single-object bytes = Java's"
run frame --format single-object --schema "$mv1/test_schema.avsc" "$tmp/java.json" -o "$tmp/java.len"
expect_eq "$(hexof "$tmp/java.len")" "00000026$(hexof "$mv1/test_message.bin")" "length prefix of Java's message (38 bytes)"
run frame --format single-object --delimit hex --schema "$mv1/test_schema.avsc" "$tmp/java.json"
expect_eq "$out" "$(hexof "$mv1/test_message.bin")" "Java's message in hex"
if command -v base64 >/dev/null; then
  run frame --format single-object --delimit base64 --schema "$mv1/test_schema.avsc" "$tmp/java.json"
  expect_eq "$out" "$(base64 -w0 "$mv1/test_message.bin")" "Java's message in base64 (as coreutils writes it)"
fi
run_in "$mv1/test_message.bin" unframe --format single-object --delimit none --schema "$mv1/test_schema.avsc" -
expect_rc 0 "Java's message from standard input" && expect_eq "$out" "$java_json" "Java's message from a pipe"

# Every container file of MANIFEST.md that reads cleanly: its records as
# JSON lines, through every framing and delimiting and back.
avro_tools=$(command -v avro-tools || true)
[ -n "$avro_tools" ] || echo "SKIP: avro-tools not installed; jsontofrag bytes are not compared with it"
datasets=0
while IFS= read -r rel; do
  f="$apache/$rel"
  [ -f "$f" ] || continue
  "$bin" tojson "$f" >"$tmp/exp.jsonl" 2>/dev/null || continue
  "$bin" getschema "$f" >"$tmp/s.avsc" 2>/dev/null || { fail "getschema $rel"; continue; }
  datasets=$((datasets + 1))
  want=$(cat "$tmp/exp.jsonl")
  run jsontofrag --schema "$tmp/s.avsc" "$tmp/exp.jsonl" -o "$tmp/frag.bin"
  expect_rc 0 "jsontofrag $rel"
  run fragtojson --schema "$tmp/s.avsc" "$tmp/frag.bin"
  expect_rc 0 "fragtojson $rel" && expect_eq "$out" "$want" "jsontofrag | fragtojson of $rel"
  if [ -n "$avro_tools" ]; then
    "$avro_tools" jsontofrag --schema-file "$tmp/s.avsc" "$tmp/exp.jsonl" >"$tmp/java.frag" 2>/dev/null &&
      expect_same_file "$tmp/frag.bin" "$tmp/java.frag" "jsontofrag bytes = avro-tools' for $rel"
  fi
  for format in single-object confluent raw; do
    id=()
    [ "$format" = confluent ] && id=(--id 7)
    for delimit in length hex base64 none; do
      run frame --format "$format" "${id[@]}" --delimit "$delimit" --schema "$tmp/s.avsc" "$tmp/exp.jsonl" -o "$tmp/msgs"
      expect_rc 0 "frame $format $delimit $rel" || continue
      run unframe --format "$format" "${id[@]}" --delimit "$delimit" --schema "$tmp/s.avsc" "$tmp/msgs"
      expect_rc 0 "unframe $format $delimit $rel" && expect_eq "$out" "$want" "frame | unframe $format $delimit of $rel"
    done
  done
  # The message stream from standard input, through --to binary.
  run frame --format single-object --schema "$tmp/s.avsc" "$tmp/exp.jsonl" -o "$tmp/msgs"
  "$bin" unframe --format single-object --schema "$tmp/s.avsc" --to binary - <"$tmp/msgs" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  out=''
  err=$(cat "$tmp/err")
  expect_rc 0 "unframe --to binary $rel"
  expect_same_file "$tmp/out" "$tmp/frag.bin" "unframe --to binary = jsontofrag for $rel"
done < <(sed -n 's/^| \([^ |]*\.avro\) |.*/\1/p' "$apache/MANIFEST.md")
checks=$((checks + 1))
[ "$datasets" -ge 15 ] || fail "only $datasets interop container files read cleanly (expected at least 15)"
echo "interop: $datasets container files round-tripped"

echo "cli_message_test: $checks checks, $failures failures"
[ "$failures" -eq 0 ]
