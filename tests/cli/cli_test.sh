#!/usr/bin/env bash
# Runs the avrokit CLI: help and usage errors, interop schemas, canonical forms and fingerprints against the apache/avro tables, and the container-file commands with exact outputs.
# Usage: cli_test.sh AVROKIT_BINARY [INTEROP_DIR]
# Parts that need the shared interop data are skipped (with a message)
# when INTEROP_DIR/apache is absent; the table from JSON needs python3.
set -u

bin=${1:?usage: cli_test.sh AVROKIT_BINARY [INTEROP_DIR]}
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

# ---- help, version, usage errors ----------------------------------------------

for args in "--help" "-h" "schema --help" "schema -h" "schema check --help" \
            "schema canonical --help" "schema fingerprint --help" "schema fingerprint -h" \
            "schema check -h x.avsc"; do
  # shellcheck disable=SC2086
  run $args
  expect_rc 0 "avrokit $args" && expect_contains "$out" "Usage:" "avrokit $args"
  expect_eq "$err" "" "avrokit $args writes nothing to stderr"
done
run --help
expect_contains "$out" "schema" "top-level help lists the schema command"
run schema --help
for sub in check canonical fingerprint; do
  expect_contains "$out" "$sub" "schema help lists $sub"
done
run schema fingerprint --help
expect_contains "$out" "little-endian" "fingerprint help explains the Rabin byte order"
expect_contains "$out" "sha256" "fingerprint help lists the algorithms"

run --version
expect_rc 0 "--version"
checks=$((checks + 1))
[[ "$(head -n 1 <<<"$out")" =~ ^avrokit\ [0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "--version printed '$out'"
expect_contains "$out" "varint kernel: " "--version names the kernel that runs"
expect_contains "$out" "kernels built: " "--version lists the kernels built"
expect_contains "$out" " scalar" "--version lists the portable kernel"
expect_contains "$out" "codecs built: null deflate snappy zstandard bzip2 xz" "--version lists the codecs built"
expect_contains "$out" "fingerprints built: rabin md5 sha256" "--version lists the fingerprints built"

run
expect_rc 2 "no arguments" && expect_contains "$err" "Usage:" "no arguments prints usage"
run frobnicate
expect_rc 2 "unknown command" && expect_contains "$err" "frobnicate" "unknown command named"
run --frobnicate
expect_rc 2 "unknown option"
run schema
expect_rc 2 "schema without a subcommand"
run schema frobnicate
expect_rc 2 "unknown schema subcommand" && expect_contains "$err" "frobnicate" "unknown subcommand named"
run schema check
expect_rc 2 "check without FILE" && expect_contains "$err" "FILE" "missing FILE said"
run schema check a.avsc b.avsc
expect_rc 2 "check with two files"
run schema check --bogus a.avsc
expect_rc 2 "check with an unknown option" && expect_contains "$err" "--bogus" "bad option named"
run schema canonical --algo md5 a.avsc
expect_rc 2 "canonical does not take --algo"
run schema fingerprint --algo crc32 a.avsc
expect_rc 2 "unknown --algo" && expect_contains "$err" "crc32" "bad algorithm named"
run schema fingerprint a.avsc --algo
expect_rc 2 "--algo without a value"

# ---- files that are not schemas, I/O errors -------------------------------------

printf '"int"' >"$tmp/int.avsc"
printf '{"type": "record", "name": "User", "fields": [{"name": "a", "type": "int"}, {"name": "b", "type": "int"}, {"name": "c", "type": "int"}, {"name": "d", "type": "lnog"}]}' >"$tmp/user.avsc"
printf '{"type": "int",}' >"$tmp/syntax.avsc"
: >"$tmp/empty.avsc"

run schema check "$tmp/int.avsc"
expect_rc 0 "check int" && expect_eq "$out" "valid" "check int prints valid"
run schema check -- "$tmp/int.avsc"
expect_rc 0 "check -- FILE"
run schema check "$tmp/user.avsc"
expect_rc 1 "check an invalid schema"
expect_eq "$out" "" "an invalid schema prints nothing to stdout"
expect_contains "$err" "$tmp/user.avsc: " "error names the file"
expect_contains "$err" 'unknown type name "lnog"' "error says what is wrong"
expect_contains "$err" "User.fields[3].type" "error gives the schema path"
run schema check "$tmp/syntax.avsc"
expect_rc 1 "check a JSON syntax error" && expect_contains "$err" "line 1, column 16" "syntax error position"
run schema check "$tmp/empty.avsc"
expect_rc 1 "check an empty file" && expect_contains "$err" "$tmp/empty.avsc" "empty file named"
run schema check "$tmp/missing.avsc"
expect_rc 1 "check a missing file" && expect_contains "$err" "$tmp/missing.avsc" "missing file named"
run schema check "$tmp"
expect_rc 1 "check a directory"
run schema canonical "$tmp/missing.avsc"
expect_rc 1 "canonical of a missing file"
run schema fingerprint "$tmp/user.avsc"
expect_rc 1 "fingerprint of an invalid schema" && expect_contains "$err" "lnog" "fingerprint error"

# Standard input.
rc=0
out=$("$bin" schema check - <"$tmp/int.avsc" 2>"$tmp/err") || rc=$?
err=$(cat "$tmp/err")
expect_rc 0 "check - (stdin)" && expect_eq "$out" "valid" "check - prints valid"
rc=0
out=$("$bin" schema check - <"$tmp/user.avsc" 2>"$tmp/err") || rc=$?
err=$(cat "$tmp/err")
expect_rc 1 "check - (stdin, invalid)" && expect_contains "$err" "<stdin>: " "stdin error names <stdin>"
rc=0
out=$(printf ' {"type":"fixed","size":16,"name":"md5"} ' | "$bin" schema canonical - 2>"$tmp/err") || rc=$?
err=$(cat "$tmp/err")
expect_rc 0 "canonical - (pipe)" && expect_eq "$out" '{"name":"md5","type":"fixed","size":16}' "canonical from a pipe"

# The input size cap: one byte over is refused with a clear message.
if truncate -s $((64 * 1024 * 1024 + 1)) "$tmp/huge.avsc" 2>/dev/null; then
  run schema check "$tmp/huge.avsc"
  expect_rc 1 "a file over the size cap" && expect_contains "$err" "larger than 64 MiB" "size cap message"
  rm -f "$tmp/huge.avsc"
fi

# Output errors are reported (a full disk).
if [ -w /dev/full ]; then
  "$bin" schema canonical "$tmp/int.avsc" >/dev/full 2>"$tmp/err"
  rc=$?
  err=$(cat "$tmp/err")
  out=
  expect_rc 1 "canonical to /dev/full" && expect_contains "$err" "standard output" "write error said"
  "$bin" schema check "$tmp/int.avsc" >/dev/full 2>"$tmp/err"
  rc=$?
  expect_rc 1 "check to /dev/full"
fi

# Canonical output ends with exactly one newline; fingerprints are lowercase hex.
"$bin" schema canonical "$tmp/int.avsc" >"$tmp/out"
expect_eq "$(od -An -c "$tmp/out" | tr -s ' ' | sed 's/^ //')" '" i n t " \n' "canonical bytes"
run schema fingerprint "$tmp/int.avsc"
expect_rc 0 "fingerprint int" && expect_eq "$out" "8f5c393f1ad57572" "rabin of int (spec table bytes)"
run schema fingerprint --algo rabin "$tmp/int.avsc"
expect_eq "$out" "8f5c393f1ad57572" "--algo rabin"
run schema fingerprint --algo=md5 "$tmp/int.avsc"
expect_eq "$out" "ef524ea1b91e73173d938ade36c1db32" "--algo=md5"
run schema fingerprint "$tmp/int.avsc" --algo sha256
expect_eq "$out" "3f2b87a9fe7cc9b13835598c3981cd45e3e355309e5090aa0933d7becb6fba45" "--algo sha256 after FILE"

# ---- container-file commands ------------------------------------------------------

# run_in INPUT ARGS...: like run, with INPUT on standard input.
run_in() {
  local input=$1
  shift
  "$bin" "$@" <"$input" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  out=$(cat "$tmp/out")
  err=$(cat "$tmp/err")
}

file_cmds="tojson fromjson getschema getmeta count cat concat recodec random repair"
for c in $file_cmds; do
  run "$c" --help
  expect_rc 0 "$c --help" && expect_contains "$out" "Usage: avrokit $c" "$c --help usage line"
  expect_contains "$out" "Example:" "$c --help has an example"
  expect_eq "$err" "" "$c --help writes nothing to stderr"
done
run --help
for c in $file_cmds; do
  expect_contains "$out" "  $c " "top-level help lists $c"
done

# Usage errors: status 2, the problem named.
run tojson
expect_rc 2 "tojson without FILE" && expect_contains "$err" "missing FILE" "tojson: missing FILE said"
run tojson --head=x "$tmp/none.avro"
expect_rc 2 "tojson --head=x" && expect_contains "$err" "--head wants a non-negative whole number, not 'x'" "bad --head said"
run tojson --frob "$tmp/none.avro"
expect_rc 2 "tojson with an unknown option" && expect_contains "$err" "unknown option '--frob'" "unknown option named"
run fromjson a.json b.avro
expect_rc 2 "fromjson without --schema" && expect_contains "$err" "missing --schema" "fromjson: missing --schema said"
run fromjson --schema "$tmp/int.avsc"
expect_rc 2 "fromjson without JSON" && expect_contains "$err" "want JSON and optionally OUT.avro" "fromjson: missing JSON said"
run cat a.avro
expect_rc 2 "cat without -o" && expect_contains "$err" "missing -o OUT.avro" "cat: missing -o said"
run cat --samplerate 1.5 a.avro -o b.avro
expect_rc 2 "cat --samplerate 1.5" && expect_contains "$err" "--samplerate wants a number from 0 to 1, not '1.5'" "bad rate said"
run cat --codec lz4 a.avro -o b.avro
expect_rc 2 "cat --codec lz4" && expect_contains "$err" "unknown codec 'lz4'" "bad codec named"
run concat a.avro
expect_rc 2 "concat with one argument"
run recodec a.avro b.avro
expect_rc 2 "recodec without --codec" && expect_contains "$err" "missing --codec" "recodec: missing --codec said"
run recodec --codec gzip a.avro b.avro
expect_rc 2 "recodec --codec gzip" && expect_contains "$err" "unknown codec 'gzip'" "recodec: bad codec named"
run random --schema "$tmp/int.avsc" out.avro
expect_rc 2 "random without --count" && expect_contains "$err" "missing --count" "random: missing --count said"
run random --schema "$tmp/int.avsc" --count -3 out.avro
expect_rc 2 "random --count -3"
run repair a.avro
expect_rc 2 "repair with one argument"
run getmeta a.avro b.avro
expect_rc 2 "getmeta with two files" && expect_contains "$err" "one FILE only" "getmeta: extra file said"
run count
expect_rc 2 "count without FILE"

# Round trip: JSON lines -> container file -> JSON lines, every kind of value.
cat >"$tmp/t.avsc" <<'EOF'
{"type":"record","name":"T","namespace":"ns","fields":[{"name":"id","type":"long"},{"name":"s","type":"string"},{"name":"u","type":["null","string","int"]},{"name":"b","type":"bytes"},{"name":"f","type":{"type":"fixed","name":"F","size":2}},{"name":"e","type":{"type":"enum","name":"E","symbols":["X","Y"]}},{"name":"a","type":{"type":"array","items":"int"}},{"name":"m","type":{"type":"map","values":"double"}},{"name":"d","type":"double","default":1.5}]}
EOF
# The blank line is skipped; the last record leaves out "d" (default 1.5).
cat >"$tmp/t.json" <<'EOF'
{"id":1,"s":"one","u":null,"b":"\u0000ÿ","f":"ab","e":"X","a":[1,2,3],"m":{"k":0.5},"d":1.5}

{"id":-2,"s":"twö","u":{"string":"x"},"b":"","f":"\u0001\u0002","e":"Y","a":[],"m":{},"d":-0.25}
{"id":9007199254740993,"s":"","u":{"int":-7},"b":"\"\\","f":"zz","e":"X","a":[2147483647],"m":{"a":1.0,"b":"NaN"},"d":1e+300}
{"id":4,"s":"d defaults","u":{"int":1},"b":"","f":"zz","e":"X","a":[],"m":{}}
EOF
t_expected='{"id":1,"s":"one","u":null,"b":"\u0000ÿ","f":"ab","e":"X","a":[1,2,3],"m":{"k":0.5},"d":1.5}
{"id":-2,"s":"twö","u":{"string":"x"},"b":"","f":"\u0001\u0002","e":"Y","a":[],"m":{},"d":-0.25}
{"id":9007199254740993,"s":"","u":{"int":-7},"b":"\"\\","f":"zz","e":"X","a":[2147483647],"m":{"a":1.0,"b":"NaN"},"d":1e+300}
{"id":4,"s":"d defaults","u":{"int":1},"b":"","f":"zz","e":"X","a":[],"m":{},"d":1.5}'
t_canonical='{"name":"ns.T","type":"record","fields":[{"name":"id","type":"long"},{"name":"s","type":"string"},{"name":"u","type":["null","string","int"]},{"name":"b","type":"bytes"},{"name":"f","type":{"name":"ns.F","type":"fixed","size":2}},{"name":"e","type":{"name":"ns.E","type":"enum","symbols":["X","Y"]}},{"name":"a","type":{"type":"array","items":"int"}},{"name":"m","type":{"type":"map","values":"double"}},{"name":"d","type":"double"}]}'
run fromjson --schema "$tmp/t.avsc" "$tmp/t.json" "$tmp/t.avro"
expect_rc 0 "fromjson" && expect_eq "$out$err" "" "fromjson prints nothing"
run tojson "$tmp/t.avro"
expect_rc 0 "tojson" && expect_eq "$out" "$t_expected" "json -> avro -> json"
run tojson --head 2 "$tmp/t.avro"
expect_eq "$out" "$(printf '%s\n' "$t_expected" | head -n 2)" "tojson --head 2"
run tojson --head 0 "$tmp/t.avro"
expect_rc 0 "tojson --head 0" && expect_eq "$out" "" "tojson --head 0 prints nothing"
run tojson --pretty --head 1 "$tmp/t.avro"
expect_eq "$out" '{
  "id": 1,
  "s": "one",
  "u": null,
  "b": "\u0000ÿ",
  "f": "ab",
  "e": "X",
  "a": [
    1,
    2,
    3
  ],
  "m": {
    "k": 0.5
  },
  "d": 1.5
}' "tojson --pretty"
run tojson "$tmp/t.avro" "$tmp/t.avro"
expect_eq "$out" "$t_expected"$'\n'"$t_expected" "tojson of two files"
run_in "$tmp/t.avro" tojson -
expect_rc 0 "tojson - (stdin)" && expect_eq "$out" "$t_expected" "tojson from standard input"
run_in "$tmp/t.json" fromjson --schema "$tmp/t.avsc" --codec zstandard - "$tmp/tz.avro"
expect_rc 0 "fromjson - (stdin) with zstandard"
run tojson "$tmp/tz.avro"
expect_eq "$out" "$t_expected" "fromjson stdin zstandard round trip"
"$bin" fromjson --schema "$tmp/t.avsc" "$tmp/t.json" - 2>"$tmp/err" | "$bin" tojson - >"$tmp/out" 2>>"$tmp/err"
expect_eq "$(cat "$tmp/out")" "$t_expected" "fromjson to stdout piped into tojson"
expect_eq "$(cat "$tmp/err")" "" "the pipe writes nothing to stderr"
if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import avro.datafile' 2>/dev/null; then
  got=$(/usr/bin/python3 -c '
import sys, avro.datafile, avro.io
for r in avro.datafile.DataFileReader(open(sys.argv[1], "rb"), avro.io.DatumReader()):
    print(r["id"], r["s"], r["u"], r["b"], r["d"])' "$tmp/t.avro")
  expect_eq "$got" "1 one None b'\x00\xff' 1.5
-2 twö x b'' -0.25
9007199254740993  -7 b'\"\\\\' 1e+300
4 d defaults 1 b'' 1.5" "python3-avro reads what fromjson wrote"
fi

# fromjson errors: line numbers, no output file left behind.
printf '{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}' >"$tmp/r.avsc"
printf '{"a":1}\n\n{"a":"x"}\n' >"$tmp/bad.json"
run fromjson --schema "$tmp/r.avsc" "$tmp/bad.json" "$tmp/bad.avro"
expect_rc 1 "fromjson of a value of the wrong type"
expect_eq "$err" "$tmp/bad.json: line 3, column 6: R.a: expected an integer within 32 bits for int, found a string" "fromjson type error"
checks=$((checks + 1))
[ ! -e "$tmp/bad.avro" ] || fail "fromjson left a partial output file behind"
printf '{"a":1}\n{"a":2,}\n' >"$tmp/bad2.json"
run_in "$tmp/bad2.json" fromjson --schema "$tmp/r.avsc" - "$tmp/bad.avro"
expect_rc 1 "fromjson of a syntax error" && expect_eq "$err" "<stdin>: line 2, column 8: expected a string key, found '}' (trailing comma?)" "fromjson syntax error"
run fromjson --schema "$tmp/r.avsc" "$tmp/missing.json" "$tmp/bad.avro"
expect_rc 1 "fromjson of a missing file" && expect_contains "$err" "$tmp/missing.json: cannot open" "missing JSON named"
run fromjson --schema "$tmp/user.avsc" "$tmp/bad.json" "$tmp/bad.avro"
expect_rc 1 "fromjson with an invalid schema" && expect_contains "$err" "lnog" "schema error said"

# getschema, getmeta.
# avrokit stores the schema in full JSON with full names.
t_stored='{"type":"record","name":"ns.T","fields":[{"name":"id","type":"long"},{"name":"s","type":"string"},{"name":"u","type":["null","string","int"]},{"name":"b","type":"bytes"},{"name":"f","type":{"type":"fixed","name":"ns.F","size":2}},{"name":"e","type":{"type":"enum","name":"ns.E","symbols":["X","Y"]}},{"name":"a","type":{"type":"array","items":"int"}},{"name":"m","type":{"type":"map","values":"double"}},{"name":"d","type":"double","default":1.5}]}'
run getschema "$tmp/t.avro"
expect_rc 0 "getschema" && expect_eq "$out" "$t_stored" "getschema prints the schema as stored"
run getschema --canonical "$tmp/t.avro"
expect_eq "$out" "$t_canonical" "getschema --canonical"
run getmeta "$tmp/t.avro"
expect_rc 0 "getmeta" && expect_eq "$out" "avro.schema	$t_stored
avro.codec	null" "getmeta lists every key"
run getmeta --key avro.codec "$tmp/tz.avro"
expect_eq "$out" "zstandard" "getmeta --key avro.codec"
run getmeta --key user.none "$tmp/tz.avro"
expect_rc 1 "getmeta --key of a missing key" && expect_eq "$err" "$tmp/tz.avro: no metadata key 'user.none'" "missing key said"
# A file written by hand: codec named "lzma" (as Apache Avro C writes xz),
# user metadata with bytes that need escaping.
if python3 -c 'import lzma' 2>/dev/null; then
  python3 - "$tmp/lzma.avro" <<'EOF'
import lzma, sys
def long(n):
    n = (n << 1) ^ (n >> 63)
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)
def blob(b):
    return long(len(b)) + b
sync = bytes(range(16))
meta = [(b"avro.schema", b'{"type": "string"}'), (b"avro.codec", b"lzma"),
        (b"user.note", b"a\tb\x01\xffc\\d\n\xc3\xa9")]
head = b"Obj\x01" + long(len(meta)) + b"".join(blob(k) + blob(v) for k, v in meta) + long(0) + sync
data = lzma.compress(blob("hello".encode()) + blob("wörld".encode()), format=lzma.FORMAT_XZ)
open(sys.argv[1], "wb").write(head + long(2) + blob(data) + sync)
EOF
  run getmeta "$tmp/lzma.avro"
  expect_rc 0 "getmeta of an lzma file" && expect_eq "$out" 'avro.schema	{"type": "string"}
avro.codec	lzma (read as xz; non-standard name)
user.note	a\tb\x01\xffc\\d\né' "getmeta escapes and names the non-standard codec"
  run getmeta --key user.note "$tmp/lzma.avro"
  expect_eq "$(od -An -tx1 "$tmp/out" | tr -d ' \n')" "61096201ff635c640ac3a90a" "getmeta --key prints the bytes as stored"
  run getschema "$tmp/lzma.avro"
  expect_eq "$out" '{"type": "string"}' "getschema prints the stored text unchanged"
  run getschema --canonical "$tmp/lzma.avro"
  expect_eq "$out" '"string"' "getschema --canonical of the lzma file"
  run tojson "$tmp/lzma.avro"
  expect_eq "$out" '"hello"
"wörld"' "tojson of an lzma file"
  run recodec --codec xz "$tmp/lzma.avro" "$tmp/xz.avro"
  run getmeta "$tmp/xz.avro"
  expect_eq "$out" 'avro.schema	{"type":"string"}
avro.codec	xz
user.note	a\tb\x01\xffc\\d\né' "recodec writes the standard name and keeps user metadata"
else
  echo "SKIP: the lzma-named file (python3 with lzma needed)"
fi

# count: block counts, one total, per file with several files.
awk 'BEGIN { for (i = 0; i < 5000; i++) printf "{\"id\":%d,\"s\":\"record number %d, padded to be a bit longer\"}\n", i, i }' >"$tmp/n.json"
printf '{"type":"record","name":"N","fields":[{"name":"id","type":"int"},{"name":"s","type":"string"}]}' >"$tmp/n.avsc"
run fromjson --schema "$tmp/n.avsc" "$tmp/n.json" "$tmp/n.avro"
expect_rc 0 "fromjson of 5000 records"
run count "$tmp/n.avro"
expect_rc 0 "count" && expect_eq "$out" "5000" "count of one file"
run count "$tmp/n.avro" "$tmp/t.avro"
expect_eq "$out" "5000	$tmp/n.avro
4	$tmp/t.avro
5004	total" "count of two files"
run_in "$tmp/t.avro" count -
expect_eq "$out" "4" "count of standard input"
run count "$tmp/n.avro" "$tmp/missing.avro"
expect_rc 1 "count with a missing file" && expect_contains "$err" "$tmp/missing.avro" "count names the missing file"
expect_eq "$out" "5000	$tmp/n.avro
5000	total" "count goes on past a missing file"

# recodec to every codec and back: the same records, the codec named.
for c in null deflate snappy zstandard bzip2 xz; do
  run recodec --codec "$c" "$tmp/n.avro" "$tmp/n-$c.avro"
  expect_rc 0 "recodec --codec $c" && expect_eq "$out$err" "" "recodec $c prints nothing"
  run getmeta --key avro.codec "$tmp/n-$c.avro"
  expect_eq "$out" "$c" "recodec $c: avro.codec"
  run count "$tmp/n-$c.avro"
  expect_eq "$out" "5000" "recodec $c: count"
  "$bin" tojson "$tmp/n-$c.avro" >"$tmp/out"
  checks=$((checks + 1))
  cmp -s "$tmp/out" "$tmp/n.json" || fail "recodec $c: records differ"
done
run recodec --codec deflate --level 1 "$tmp/n.avro" "$tmp/n-deflate1.avro"
expect_rc 0 "recodec deflate level 1"
checks=$((checks + 1))
[ "$(stat -c %s "$tmp/n-deflate1.avro")" -ne "$(stat -c %s "$tmp/n-deflate.avro")" ] ||
  fail "deflate level 1 and 6 gave files of the same size"
run recodec --codec deflate --level 13 "$tmp/n.avro" "$tmp/bad.avro"
expect_rc 2 "recodec deflate level 13 (a usage error)" && expect_eq "$err" "avrokit recodec: --level 13: deflate level 13 is not within 1-12
Try 'avrokit recodec --help'." "bad level said, before anything is read"
"$bin" recodec --codec snappy - - <"$tmp/n-xz.avro" 2>"$tmp/err" | "$bin" tojson - >"$tmp/out"
checks=$((checks + 1))
cmp -s "$tmp/out" "$tmp/n.json" || fail "recodec through standard input and output"

# cat: offset and limit over several files, sampling, schema checks.
run cat "$tmp/n.avro" "$tmp/n-snappy.avro" --offset 4998 --limit 4 -o "$tmp/c.avro"
expect_rc 0 "cat --offset --limit"
run tojson "$tmp/c.avro"
expect_eq "$out" '{"id":4998,"s":"record number 4998, padded to be a bit longer"}
{"id":4999,"s":"record number 4999, padded to be a bit longer"}
{"id":0,"s":"record number 0, padded to be a bit longer"}
{"id":1,"s":"record number 1, padded to be a bit longer"}' "cat offset and limit across files"
run getmeta --key avro.codec "$tmp/c.avro"
expect_eq "$out" "null" "cat keeps the first file's codec"
run cat --codec bzip2 "$tmp/n-snappy.avro" -o "$tmp/c.avro"
run getmeta --key avro.codec "$tmp/c.avro"
expect_eq "$out" "bzip2" "cat --codec"
"$bin" tojson "$tmp/c.avro" >"$tmp/out"
checks=$((checks + 1))
cmp -s "$tmp/out" "$tmp/n.json" || fail "cat --codec bzip2: records differ"
run cat --samplerate 0 "$tmp/n.avro" -o "$tmp/c.avro"
run count "$tmp/c.avro"
expect_eq "$out" "0" "cat --samplerate 0 keeps nothing"
run cat --samplerate 1 "$tmp/n.avro" -o "$tmp/c.avro"
run count "$tmp/c.avro"
expect_eq "$out" "5000" "cat --samplerate 1 keeps everything"
run cat --samplerate 0.1 --seed 7 "$tmp/n.avro" -o "$tmp/s1.avro"
"$bin" tojson "$tmp/s1.avro" >"$tmp/s1.json"
run cat --samplerate 0.1 --seed 7 "$tmp/n-deflate.avro" -o "$tmp/s2.avro"
"$bin" tojson "$tmp/s2.avro" >"$tmp/s2.json"
checks=$((checks + 1))
cmp -s "$tmp/s1.json" "$tmp/s2.json" || fail "cat --samplerate with one seed chose differently"
n_sampled=$(wc -l <"$tmp/s1.json")
checks=$((checks + 1))
[ "$n_sampled" -ge 400 ] && [ "$n_sampled" -le 600 ] || fail "cat --samplerate 0.1 kept $n_sampled of 5000"
checks=$((checks + 1))
[ "$(sort -u "$tmp/s1.json" | wc -l)" -eq "$n_sampled" ] && grep -qxFf "$tmp/s1.json" "$tmp/n.json" ||
  fail "sampled records are not distinct records of the input"
run cat --samplerate 0.1 --seed 8 "$tmp/n.avro" -o "$tmp/s3.avro"
"$bin" tojson "$tmp/s3.avro" >"$tmp/s3.json"
checks=$((checks + 1))
! cmp -s "$tmp/s1.json" "$tmp/s3.json" || fail "cat --samplerate with two seeds chose the same records"
cp "$tmp/c.avro" "$tmp/c-before.avro"
run cat "$tmp/n.avro" "$tmp/t.avro" -o "$tmp/c.avro"
expect_rc 1 "cat of two schemas"
expect_eq "$err" "$tmp/t.avro: its schema differs from that of $tmp/n.avro (their canonical forms differ); cat needs one schema" "cat schema error"
checks=$((checks + 1))
cmp -s "$tmp/c.avro" "$tmp/c-before.avro" || fail "a failed cat changed the existing output file"
run cat "$tmp/n.avro" "$tmp/t.avro" -o "$tmp/c-new.avro"
checks=$((checks + 1))
[ ! -e "$tmp/c-new.avro" ] || fail "cat left a partial output file behind"
"$bin" cat "$tmp/t.avro" -o - 2>"$tmp/err" | "$bin" tojson - >"$tmp/out"
expect_eq "$(cat "$tmp/out")" "$t_expected" "cat -o - (standard output)"

# concat: blocks copied as they are when the codec matches, records
# re-encoded with the first file's codec otherwise; one schema.
run concat "$tmp/n-deflate1.avro" "$tmp/cc.avro"
expect_rc 0 "concat of one file"
# Copied blocks: the level-1 blocks are kept (re-encoding would use level 6).
expect_eq "$(stat -c %s "$tmp/cc.avro")" "$(stat -c %s "$tmp/n-deflate1.avro")" "concat copies blocks byte for byte"
run concat "$tmp/n-deflate1.avro" "$tmp/n-deflate1.avro" "$tmp/n-zstandard.avro" "$tmp/cc.avro"
expect_rc 0 "concat of two codecs"
run getmeta --key avro.codec "$tmp/cc.avro"
expect_eq "$out" "deflate" "concat keeps the first file's codec"
"$bin" tojson "$tmp/cc.avro" >"$tmp/out"
cat "$tmp/n.json" "$tmp/n.json" "$tmp/n.json" >"$tmp/n3.json"
checks=$((checks + 1))
cmp -s "$tmp/out" "$tmp/n3.json" || fail "concat: records differ"
run count "$tmp/cc.avro"
expect_eq "$out" "15000" "concat count"
run concat "$tmp/n.avro" "$tmp/t.avro" "$tmp/cc2.avro"
expect_rc 1 "concat of two schemas"
expect_eq "$err" "$tmp/t.avro: its schema differs from that of $tmp/n.avro (their canonical forms differ); concat needs one schema" "concat schema error"
checks=$((checks + 1))
[ ! -e "$tmp/cc2.avro" ] || fail "concat left a partial output file behind"

# random: the same seed gives the same file, byte for byte.
run random --schema "$tmp/t.avsc" --count 300 --seed 42 "$tmp/r1.avro"
expect_rc 0 "random" && expect_eq "$out$err" "" "random prints nothing"
run random --schema "$tmp/t.avsc" --count 300 --seed 42 "$tmp/r2.avro"
checks=$((checks + 1))
cmp -s "$tmp/r1.avro" "$tmp/r2.avro" || fail "random with one seed gave two files"
run random --schema "$tmp/t.avsc" --count 300 --seed 43 "$tmp/r3.avro"
checks=$((checks + 1))
! cmp -s "$tmp/r1.avro" "$tmp/r3.avro" || fail "random with two seeds gave one file"
run count "$tmp/r1.avro"
expect_eq "$out" "300" "random --count"
run random --schema "$tmp/t.avsc" --count 300 --seed 42 --codec xz "$tmp/r4.avro"
"$bin" tojson "$tmp/r1.avro" >"$tmp/r1.json"
"$bin" tojson "$tmp/r4.avro" >"$tmp/out"
checks=$((checks + 1))
cmp -s "$tmp/out" "$tmp/r1.json" || fail "random --codec xz: other records than with null"
run fromjson --schema "$tmp/t.avsc" "$tmp/r1.json" "$tmp/r5.avro"
expect_rc 0 "fromjson reads tojson's output of random records"
"$bin" tojson "$tmp/r5.avro" >"$tmp/out"
checks=$((checks + 1))
cmp -s "$tmp/out" "$tmp/r1.json" || fail "random records: json -> avro -> json differs"
run random --schema "$tmp/t.avsc" --count 0 "$tmp/r6.avro"
run count "$tmp/r6.avro"
expect_eq "$out" "0" "random --count 0"

# Damaged files: tojson stops with the file and offset; repair keeps the rest.
printf 'hello world' >"$tmp/notavro"
run tojson "$tmp/notavro"
expect_rc 1 "tojson of a file that is not Avro"
expect_eq "$err" "$tmp/notavro: not an Avro container file: the first 4 bytes are 68 65 6c 6c, not the magic \"Obj\\x01\"" "bad magic said"
run tojson "$tmp/missing.avro"
expect_rc 1 "tojson of a missing file" && expect_contains "$err" "$tmp/missing.avro" "missing file named"
# n.avro (null codec): header 147 bytes, block 0 at 147 with its sync marker
# at 65698, block 1 at 65714, block 2 at 131303.
head -c 200000 "$tmp/n.avro" >"$tmp/trunc.avro"
run tojson "$tmp/trunc.avro"
expect_rc 1 "tojson of a truncated file"
expect_eq "$(printf '%s\n' "$out" | wc -l)" "4122" "tojson prints the records of the whole blocks first"
expect_eq "$err" "$tmp/trunc.avro: block 3 at byte 196892: its size says 42144 bytes but only 3103 remain in the file" "truncation said with its offset"
run repair "$tmp/trunc.avro" "$tmp/fixed.avro"
expect_rc 0 "repair of a truncated file"
expect_eq "$out" "repaired: kept 4122 records; skipped 1 damaged block (3108 bytes)" "repair summary (truncated)"
expect_eq "$err" "$tmp/trunc.avro: skipped bytes 196892-200000 (3108 bytes): block 3 at byte 196892: its size says 42144 bytes but only 3103 remain in the file" "repair says what it skipped (truncated)"
run count "$tmp/fixed.avro"
expect_eq "$out" "4122" "repaired file count (truncated)"
cp "$tmp/n.avro" "$tmp/dmg.avro"
printf 'XXXX' | dd of="$tmp/dmg.avro" bs=1 seek=65700 conv=notrunc 2>/dev/null
run count "$tmp/dmg.avro"
expect_rc 1 "count of a file with a damaged sync marker"
expect_eq "$err" "$tmp/dmg.avro: block 0 at byte 147: the sync marker after its data (at byte 65698) does not match the header's" "bad sync said with its offset"
run repair "$tmp/dmg.avro" "$tmp/fixed.avro"
expect_rc 0 "repair of a damaged sync marker"
expect_eq "$out" "repaired: kept 2244 records; skipped 1 damaged block (131156 bytes)" "repair summary (sync)"
expect_eq "$err" "$tmp/dmg.avro: skipped bytes 147-131303 (131156 bytes): block 0 at byte 147: the sync marker after its data (at byte 65698) does not match the header's" "repair says what it skipped (sync)"
run tojson "$tmp/fixed.avro"
expect_eq "$out" "$(sed -n '2757,$p' "$tmp/n.json")" "repaired file holds the records after the damage"
run repair "$tmp/n.avro" "$tmp/fixed.avro"
expect_rc 0 "repair of a sound file" && expect_eq "$out" "nothing to repair: 5000 records, no damaged blocks" "repair of a sound file says so"
expect_eq "$err" "" "repair of a sound file writes nothing to stderr"
"$bin" repair "$tmp/t.avro" - 2>"$tmp/err" | "$bin" tojson - >"$tmp/out"
expect_eq "$(cat "$tmp/out")" "$t_expected" "repair to standard output"
expect_eq "$(cat "$tmp/err")" "nothing to repair: 4 records, no damaged blocks" "repair to stdout puts its summary on stderr"
run repair "$tmp/notavro" "$tmp/fixed2.avro"
expect_rc 1 "repair of a file with no header" && expect_contains "$err" "$tmp/notavro: not an Avro container file" "repair: bad header said"
run repair "$tmp/missing.avro" "$tmp/fixed2.avro"
expect_rc 1 "repair of a missing file"
checks=$((checks + 1))
[ ! -e "$tmp/fixed2.avro" ] || fail "repair of a missing file created an output"

# An output that is also an input is refused, and the input stays whole.
cp "$tmp/n.avro" "$tmp/same.avro"
for args in "recodec --codec xz $tmp/same.avro $tmp/./same.avro" "cat $tmp/t.avro $tmp/same.avro -o $tmp/same.avro" \
            "concat $tmp/same.avro $tmp/same.avro" "repair $tmp/same.avro $tmp/same.avro"; do
  # shellcheck disable=SC2086
  run $args
  expect_rc 1 "$args" && expect_contains "$err" "is also an input; writing it would destroy it" "$args refused"
done
run count "$tmp/same.avro"
expect_eq "$out" "5000" "the input survives being named as the output"

# Output errors: a full disk.
if [ -w /dev/full ]; then
  "$bin" tojson "$tmp/n.avro" >/dev/full 2>"$tmp/err"
  rc=$?
  out=
  err=$(cat "$tmp/err")
  expect_rc 1 "tojson to /dev/full" && expect_contains "$err" "standard output" "tojson write error said"
  "$bin" cat "$tmp/n.avro" -o - >/dev/full 2>"$tmp/err"
  rc=$?
  expect_rc 1 "cat -o - to /dev/full"
fi

# ---- the container header: one reading for every implementation ---------------
# Repeated metadata keys and keys holding a NUL byte are refused (readers differ
# on which value counts), metadata entries are limited, and count checks each
# block's count against its bytes as tojson does. Every error names the input.
hsync='0123456789abcdef'
hs_schema_int='\x16avro.schema\x0a"int"'
# Two avro.schema entries ("int" then "string"), one block of one record.
printf "Obj\x01\x04${hs_schema_int}\x16avro.schema\x10\"string\"\x00${hsync}\x02\x02\x06${hsync}" >"$tmp/hdup.avro"
hdup_msg="$tmp/hdup.avro: file header: metadata key \"avro.schema\" appears again at byte 23 (entry 1; first as entry 0); a key may appear once, as readers differ on which value counts"
for c in tojson getmeta getschema count; do
  run "$c" "$tmp/hdup.avro"
  expect_rc 1 "$c on a repeated avro.schema" && expect_eq "$err" "$hdup_msg" "$c names the input and the repeated key"
  expect_eq "$out" "" "$c prints nothing from a file with a repeated key"
done
run cat "$tmp/hdup.avro" -o "$tmp/hdup-out.avro"
expect_rc 1 "cat of a repeated key" && expect_eq "$err" "$hdup_msg" "cat blames the input, not the output"
[ ! -e "$tmp/hdup-out.avro" ] || fail "cat left an output after a header error"
run_in "$tmp/hdup.avro" getmeta -
expect_rc 1 "getmeta of a repeated key on stdin" && expect_eq "$err" "<stdin>: file header: metadata key \"avro.schema\" appears again at byte 23 (entry 1; first as entry 0); a key may appear once, as readers differ on which value counts" "stdin named"
# A key with a NUL byte: it showed as "a" twice in getmeta, and cat then
# blamed its output.
printf "Obj\x01\x06\x16avro.schema\x0c\"long\"\x06a\x00b\x021\x06a\x00c\x022\x00${hsync}\x02\x02\x06${hsync}" >"$tmp/hnul.avro"
hnul_msg="$tmp/hnul.avro: file header: metadata key \"a\\x00b\" at byte 24 holds a NUL byte (at key byte 1); keys may not, as C-string readers cut them there"
run getmeta "$tmp/hnul.avro"
expect_rc 1 "getmeta of a NUL in a key" && expect_eq "$err" "$hnul_msg" "getmeta names the input and the key"
expect_eq "$out" "" "getmeta shows no key twice"
run cat "$tmp/hnul.avro" -o "$tmp/hnul-out.avro"
expect_rc 1 "cat of a NUL in a key" && expect_eq "$err" "$hnul_msg" "cat blames the input for a NUL in a key"
# A key that is not UTF-8: the writer refuses it, so cat would have blamed
# its output; the reader refuses it first, naming the input.
printf "Obj\x01\x04\x16avro.schema\x0c\"long\"\x04k\xff\x021\x00${hsync}\x02\x02\x06${hsync}" >"$tmp/hutf.avro"
run cat "$tmp/hutf.avro" -o "$tmp/hutf-out.avro"
expect_rc 1 "cat of a key that is not UTF-8" && expect_eq "$err" "$tmp/hutf.avro: file header: metadata key \"k\\xff\" at byte 24 is not valid UTF-8; keys are Avro strings" "cat blames the input for a key that is not UTF-8"
# 70,000 metadata entries claimed: over the 65,536 limit, refused at the count.
printf "Obj\x01\xe0\xc5\x08\x16avro.schema\x0c\"long\"\x00\x00\x00${hsync}" >"$tmp/hmany.avro"
run count "$tmp/hmany.avro"
expect_rc 1 "count of 70,000 metadata entries" && expect_eq "$err" "$tmp/hmany.avro: file header: 70000 metadata entries at byte 4 exceed the limit of 65536 entries (max_meta_entries)" "the entry limit named"
# A block claiming 2^62 records in 11 bytes (count and size; 1 byte of data).
printf "Obj\x01\x02\x16avro.schema\x0c\"long\"\x00${hsync}\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01\x02\x06${hsync}" >"$tmp/h62.avro"
h62_msg="$tmp/h62.avro: block 0 at byte 41: a count of 4611686018427387904 records cannot be right for 1 bytes of data"
run count "$tmp/h62.avro"
expect_rc 1 "count of 2^62 records in 1 byte" && expect_eq "$err" "$h62_msg" "count names the file, block and offset"
expect_eq "$out" "" "count prints no number for an implausible block"
run tojson "$tmp/h62.avro"
expect_rc 1 "tojson of 2^62 records in 1 byte" && expect_eq "$err" "$h62_msg" "tojson says the same"
printf "Obj\x01\x02\x16avro.schema\x0c\"long\"\x00${hsync}\x02\x02\x06${hsync}" >"$tmp/h1.avro"
run count "$tmp/h1.avro" "$tmp/h62.avro"
expect_rc 1 "count of a good and an implausible file" && expect_eq "$out" "1	$tmp/h1.avro
1	total" "the good file is still counted" && expect_eq "$err" "$h62_msg" "the bad file named"
# Records of zero bytes (schema "null"): a block of 5 in 0 bytes is valid.
printf "Obj\x01\x02\x16avro.schema\x0c\"null\"\x00${hsync}\x0a\x00${hsync}" >"$tmp/hnull.avro"
run count "$tmp/hnull.avro"
expect_rc 0 "count of zero-byte records" && expect_eq "$out" "5" "5 null records counted"
printf "Obj\x01\x02\x16avro.schema\x0c\"null\"\x00${hsync}\x0a\x00${hsync}\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01\x00${hsync}" >"$tmp/hnull62.avro"
hnull62_msg="$tmp/hnull62.avro: block 1 at byte 59: a count of 4611686018427387904 records of zero bytes each exceeds the limit of 1048576 (max_empty_items) (a limit, not damage: --max-empty-items raises it)"
run count "$tmp/hnull62.avro"
expect_rc 1 "count of 2^62 zero-byte records" && expect_eq "$err" "$hnull62_msg" "count names the zero-byte limit"
run tojson "$tmp/hnull62.avro"
expect_rc 1 "tojson of 2^62 zero-byte records" && expect_eq "$err" "$hnull62_msg" "tojson says the same"
# ==== issue 12, CLI: outputs never harm what they replace, avro-tools habits, limits ====


# Schemas and a file of their own (the resolution section below has its twins).
cat >"$tmp/i12w.avsc" <<'EOF2'
{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"string"},
 {"name":"c","type":{"type":"enum","name":"E","symbols":["X","Y"]}}]}
EOF2
cat >"$tmp/i12r.avsc" <<'EOF2'
{"type":"record","name":"R","fields":[{"name":"c","type":{"type":"enum","name":"E","symbols":["Y","X"]}},
 {"name":"aa","aliases":["a"],"type":"double"},{"name":"d","type":"string","default":"dd"}]}
EOF2
printf '{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"age","type":"int"}]}' >"$tmp/i12bad.avsc"
printf '{"a":1,"b":"x","c":"X"}\n{"a":-2,"b":"y","c":"Y"}\n' >"$tmp/i12.json"
run fromjson --schema "$tmp/i12w.avsc" "$tmp/i12.json" "$tmp/i12.avro"
expect_rc 0 "fromjson of the issue 12 records"
# no_temp DIR: no temporary output file was left in DIR.
no_temp() {
  checks=$((checks + 1))
  if ls -A "$1" | grep -q 'avrokit-'; then
    fail "temporary files left in $1: $(ls -A "$1" | grep 'avrokit-' | tr '\n' ' ')"
  fi
}

# An existing file stays byte for byte what it was after a failed cat,
# recodec, concat or repair (each fails after its output was opened).
keep="$tmp/keep.avro"
cp "$tmp/t.avro" "$keep"
cp "$keep" "$tmp/keep-before.avro"
run cat "$tmp/n.avro" "$tmp/t.avro" -o "$keep"
expect_rc 1 "failed cat over an existing file"
run recodec --codec deflate "$tmp/trunc.avro" "$keep"
expect_rc 1 "failed recodec over an existing file"
expect_eq "$err" "$tmp/trunc.avro: block 3 at byte 196892: its size says 42144 bytes but only 3103 remain in the file" "recodec says why it failed"
run concat "$tmp/n.avro" "$tmp/t.avro" "$keep"
expect_rc 1 "failed concat over an existing file"
run repair "$tmp/notavro" "$keep"
expect_rc 1 "failed repair over an existing file"
run fromjson --schema "$tmp/r.avsc" "$tmp/bad.json" "$keep"
expect_rc 1 "failed fromjson over an existing file"
checks=$((checks + 1))
cmp -s "$keep" "$tmp/keep-before.avro" || fail "a failed command changed an existing output file"
no_temp "$tmp"

# A successful run replaces an existing file, keeping its mode; a new file
# gets 0666 less the umask, as a plain open would give it.
chmod 640 "$keep"
run cat "$tmp/n.avro" -o "$keep"
expect_rc 0 "cat over an existing file" && expect_eq "$out$err" "" "cat over an existing file prints nothing"
run count "$keep"
expect_eq "$out" "5000" "the existing file was replaced"
expect_eq "$(stat -c %a "$tmp/keep.avro")" "640" "the replaced file keeps its mode"
(umask 027 && "$bin" cat "$tmp/t.avro" -o "$tmp/new027.avro")
expect_eq "$(stat -c %a "$tmp/new027.avro")" "640" "a new file gets 0666 less the umask"
no_temp "$tmp"

# A symbolic link: the file it points to is replaced, the link stays; a
# link to nothing is refused; a directory is refused.
cp "$tmp/t.avro" "$tmp/real.avro"
ln -s real.avro "$tmp/link.avro"
run cat "$tmp/n.avro" -o "$tmp/link.avro"
expect_rc 0 "cat through a symbolic link"
checks=$((checks + 1))
[ -L "$tmp/link.avro" ] && [ "$(readlink "$tmp/link.avro")" = "real.avro" ] || fail "the symbolic link was replaced"
run count "$tmp/real.avro"
expect_eq "$out" "5000" "the link's target was replaced"
ln -s nowhere.avro "$tmp/dangling.avro"
run cat "$tmp/t.avro" -o "$tmp/dangling.avro"
expect_rc 1 "cat to a dangling link" && expect_eq "$err" "$tmp/dangling.avro: is a symbolic link to a file that does not exist; not following it" "dangling link said"
checks=$((checks + 1))
[ ! -e "$tmp/nowhere.avro" ] || fail "a dangling link was followed"
mkdir "$tmp/adir"
run cat "$tmp/t.avro" -o "$tmp/adir"
expect_rc 1 "cat to a directory" && expect_eq "$err" "$tmp/adir: is a directory" "directory said"
run cat "$tmp/t.avro" -o "$tmp/nodir/x.avro"
expect_rc 1 "cat into a directory that does not exist" && expect_eq "$err" "$tmp/nodir/x.avro: cannot create a file in $tmp/nodir to write it: No such file or directory; nothing was changed" "missing directory said"

# Device nodes are written straight and never removed, whatever happens
# (as root, a failed 'cat -o /dev/null' used to delete /dev/null).
if [ "$(id -u)" = 0 ] && mknod "$tmp/null" c 1 3 2>/dev/null && mknod "$tmp/full" c 1 7 2>/dev/null; then
  run cat "$tmp/n.avro" "$tmp/t.avro" -o "$tmp/null"
  expect_rc 1 "failed cat to a device"
  run recodec --codec snappy "$tmp/trunc.avro" "$tmp/null"
  expect_rc 1 "failed recodec to a device"
  run concat "$tmp/n.avro" "$tmp/t.avro" "$tmp/null"
  expect_rc 1 "failed concat to a device"
  run repair "$tmp/n.avro" "$tmp/full"
  expect_rc 1 "repair to a full device" && expect_contains "$err" "$tmp/full: " "the write error names the device"
  run fromjson --schema "$tmp/r.avsc" "$tmp/bad.json" "$tmp/null"
  expect_rc 1 "failed fromjson to a device"
  run cat "$tmp/t.avro" -o "$tmp/null"
  expect_rc 0 "cat to a device"
  checks=$((checks + 1))
  [ -c "$tmp/null" ] && [ -c "$tmp/full" ] || fail "a device node was removed or replaced"
else
  echo "SKIP: device nodes (mknod needs root)"
fi

# A FIFO with a reader: the records go through it, and a failure leaves it.
if mkfifo "$tmp/fifo" 2>/dev/null; then
  timeout 20 cat "$tmp/fifo" >"$tmp/fifo.out" &
  reader=$!
  run cat "$tmp/t.avro" -o "$tmp/fifo"
  wait "$reader"
  expect_rc 0 "cat into a FIFO"
  run tojson "$tmp/fifo.out"
  expect_eq "$out" "$t_expected" "the FIFO's reader got the records"
  timeout 20 cat "$tmp/fifo" >/dev/null &
  reader=$!
  run cat "$tmp/n.avro" "$tmp/t.avro" -o "$tmp/fifo"
  wait "$reader"
  expect_rc 1 "failed cat into a FIFO"
  checks=$((checks + 1))
  [ -p "$tmp/fifo" ] || fail "a failed cat removed the FIFO it wrote to"
else
  echo "SKIP: FIFO (mkfifo failed)"
fi

# A directory that cannot be written: a clear error, nothing touched. Root
# writes anyway, so as root the command runs as nobody (setpriv).
mkdir "$tmp/ro"
cp "$tmp/t.avro" "$tmp/ro/out.avro"
chmod 644 "$tmp/ro/out.avro"
chmod 555 "$tmp/ro"
as_user=()
if [ "$(id -u)" = 0 ]; then
  if command -v setpriv >/dev/null; then
    chmod 755 "$tmp"
    as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  else
    as_user=(skip)
  fi
fi
if [ "${as_user[0]:-}" != skip ] && "${as_user[@]}" "$bin" --version >/dev/null 2>&1; then
  for new in out.avro new.avro; do
    "${as_user[@]}" "$bin" cat "$tmp/t.avro" -o "$tmp/ro/$new" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    out=$(cat "$tmp/out")
    err=$(cat "$tmp/err")
    expect_rc 1 "cat into a read-only directory ($new)"
    expect_eq "$err" "$tmp/ro/$new: cannot create a file in $tmp/ro to write it: Permission denied; nothing was changed" "read-only directory said ($new)"
  done
  checks=$((checks + 1))
  cmp -s "$tmp/ro/out.avro" "$tmp/t.avro" && [ "$(ls -A "$tmp/ro")" = "out.avro" ] ||
    fail "a read-only directory was changed: $(ls -A "$tmp/ro" | tr '\n' ' ')"
else
  echo "SKIP: read-only directory (as root, needs setpriv and a binary user nobody can run)"
fi
chmod 700 "$tmp/ro" "$tmp"

# Schemas on the command line: a file, or the JSON itself.
rr_json=$(cat "$tmp/i12r.avsc")
run tojson --reader-schema "$rr_json" "$tmp/i12.avro"
expect_rc 0 "tojson --reader-schema JSON" && expect_eq "$out" '{"c":"X","aa":1.0,"d":"dd"}
{"c":"Y","aa":-2.0,"d":"dd"}' "a reader schema given inline"
run tojson --reader-schema-file "$tmp/i12r.avsc" "$tmp/i12.avro"
expect_rc 0 "tojson --reader-schema-file" && expect_eq "$out" '{"c":"X","aa":1.0,"d":"dd"}
{"c":"Y","aa":-2.0,"d":"dd"}' "a reader schema from --reader-schema-file"
run tojson --reader-schema-file '{"type":"int"}' "$tmp/i12.avro"
expect_rc 1 "--reader-schema-file takes files only" && expect_eq "$err" '{"type":"int"}: cannot open: No such file or directory' "--reader-schema-file of JSON said"
run tojson --reader-schema "$tmp/i12r.avsc" --reader-schema-file "$tmp/i12r.avsc" "$tmp/i12.avro"
expect_rc 2 "both reader schema options" && expect_eq "$err" "avrokit tojson: give --reader-schema or --reader-schema-file, not both
Try 'avrokit tojson --help'." "both reader schema options said"
run tojson --reader-schema ' {"type":"record","name":"R","fields":[{"name":"a","type":"int",}]}' "$tmp/i12.avro"
expect_rc 1 "inline schema with a syntax error" && expect_eq "$err" "<schema text>: line 1, column 65: expected a string key, found '}' (trailing comma?)" "inline schema error said"
run cat --reader-schema "$rr_json" "$tmp/i12.avro" -o "$tmp/rcat2.avro"
expect_rc 0 "cat --reader-schema JSON"
run tojson "$tmp/rcat2.avro"
expect_eq "$out" '{"c":"X","aa":1.0,"d":"dd"}
{"c":"Y","aa":-2.0,"d":"dd"}' "cat with an inline reader schema"
run random --schema '{"type":"array","items":"int"}' --count 3 --seed 1 "$tmp/rand-inline.avro"
expect_rc 0 "random --schema JSON"
run getschema "$tmp/rand-inline.avro"
expect_eq "$out" '{"type":"array","items":"int"}' "random with an inline schema"
run random --schema-file "$tmp/int.avsc" --count 2 --seed 1 "$tmp/rand-file.avro"
expect_rc 0 "random --schema-file" && run count "$tmp/rand-file.avro" && expect_eq "$out" "2" "random --schema-file count"
printf '{"a":1}\n' >"$tmp/a1.json"
run fromjson --schema '{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}' "$tmp/a1.json" "$tmp/fj-inline.avro"
expect_rc 0 "fromjson --schema JSON" && run tojson "$tmp/fj-inline.avro" && expect_eq "$out" '{"a":1}' "fromjson with an inline schema"
run schema compat "$(cat "$tmp/i12w.avsc")" "$tmp/i12bad.avsc"
expect_rc 1 "compat with an inline writer schema"

# cat as avro-tools takes it: the last of two or more files is the output.
run cat "$tmp/t.avro" "$tmp/t.avro" "$tmp/cat-pos.avro"
expect_rc 0 "cat IN IN OUT"
run tojson "$tmp/cat-pos.avro"
expect_eq "$out" "$t_expected"$'\n'"$t_expected" "cat IN IN OUT copies both"
run cat "$tmp/t.avro" "$tmp/cat-pos2.avro"
expect_rc 0 "cat IN OUT" && run count "$tmp/cat-pos2.avro" && expect_eq "$out" "4" "cat IN OUT count"
run cat "$tmp/t.avro"
expect_rc 2 "cat with one file and no -o" && expect_eq "$err" "avrokit cat: missing -o OUT.avro (or OUT.avro after the inputs; '-' for standard output)
Try 'avrokit cat --help'." "cat without an output said"
run cat "$tmp/t.avro" "$tmp/t.avro" "$tmp/t.avro"
expect_rc 1 "cat IN OUT with OUT an input" && expect_contains "$err" "is also an input" "positional output checked against the inputs"

# tojson --head with no number: 10; a file after it stays a file.
run tojson --head "$tmp/n.avro"
expect_rc 0 "tojson --head FILE" && expect_eq "$out" "$(head -n 10 "$tmp/n.json")" "tojson --head means 10"
run tojson "$tmp/n.avro" --head
expect_eq "$out" "$(head -n 10 "$tmp/n.json")" "tojson FILE --head"
run tojson --head 3 "$tmp/n.avro"
expect_eq "$out" "$(head -n 3 "$tmp/n.json")" "tojson --head 3"
run tojson --head=2 "$tmp/n.avro"
expect_eq "$out" "$(head -n 2 "$tmp/n.json")" "tojson --head=2"
run tojson --head -- "$tmp/n.avro"
expect_eq "$out" "$(head -n 10 "$tmp/n.json")" "tojson --head -- FILE"

# fingerprint and canonical at the top level, several files; --algo takes
# the specification's names in any case.
printf '"long"' >"$tmp/long.avsc"
run fingerprint "$tmp/int.avsc"
expect_rc 0 "fingerprint" && expect_eq "$out" "8f5c393f1ad57572" "fingerprint of one file"
run fingerprint --algo CRC-64-AVRO "$tmp/int.avsc" "$tmp/long.avsc"
expect_eq "$out" "8f5c393f1ad57572	$tmp/int.avsc
b71df49344e154d0	$tmp/long.avsc" "fingerprint of several files"
run fingerprint --algo MD5 "$tmp/int.avsc"
expect_eq "$out" "ef524ea1b91e73173d938ade36c1db32" "fingerprint --algo MD5"
run schema fingerprint --algo sha-256 "$tmp/int.avsc"
expect_eq "$out" "3f2b87a9fe7cc9b13835598c3981cd45e3e355309e5090aa0933d7becb6fba45" "schema fingerprint --algo sha-256"
run fingerprint --algo crc32 "$tmp/int.avsc"
expect_rc 2 "fingerprint --algo crc32" && expect_eq "$err" "avrokit fingerprint: unknown --algo 'crc32': use rabin (CRC-64-AVRO), md5 (MD5) or sha256 (SHA-256)
Try 'avrokit fingerprint --help'." "unknown algorithm said"
run canonical "$tmp/t.avsc" "$tmp/missing.avsc" "$tmp/int.avsc"
expect_rc 1 "canonical with a missing file"
expect_eq "$out" "$t_canonical	$tmp/t.avsc
\"int\"	$tmp/int.avsc" "canonical of several files goes on past a missing one"
expect_eq "$err" "$tmp/missing.avsc: cannot open: No such file or directory" "canonical names the missing file"
run canonical '{"type":"fixed","name":"x.F","size":4,"doc":"d"}'
expect_eq "$out" '{"name":"x.F","type":"fixed","size":4}' "canonical of schema JSON"
for c in fingerprint canonical; do
  run "$c" --help
  expect_rc 0 "$c --help" && expect_contains "$out" "Usage: avrokit $c" "$c --help usage line"
done
run --help
expect_contains "$out" "  fingerprint " "top-level help lists fingerprint"
expect_contains "$out" "  canonical " "top-level help lists canonical"

# getschema --pretty.
run getschema --pretty "$tmp/i12.avro"
expect_rc 0 "getschema --pretty" && expect_eq "$out" '{
  "type": "record",
  "name": "R",
  "fields": [
    {
      "name": "a",
      "type": "int"
    },
    {
      "name": "b",
      "type": "string"
    },
    {
      "name": "c",
      "type": {
        "type": "enum",
        "name": "E",
        "symbols": [
          "X",
          "Y"
        ]
      }
    }
  ]
}' "getschema --pretty indents the schema"
run getschema --pretty --canonical "$tmp/i12.avro"
expect_rc 2 "getschema --pretty --canonical"

# repair's modes (avro-tools' -o all|prior|after|report). mid.avro: block
# 1's sync marker is damaged, which costs blocks 1 and 2.
cp "$tmp/n.avro" "$tmp/mid.avro"
printf 'XXXX' | dd of="$tmp/mid.avro" bs=1 seek=131290 conv=notrunc 2>/dev/null
mid_skip="$tmp/mid.avro: skipped bytes 65714-196892 (131178 bytes): block 1 at byte 65714: the sync marker after its data (at byte 131287) does not match the header's"
run repair "$tmp/mid.avro" "$tmp/mid-all.avro"
expect_rc 0 "repair (all)" && expect_eq "$out" "repaired: kept 2268 records; skipped 1 damaged block (131178 bytes)" "repair all summary"
expect_eq "$err" "$mid_skip" "repair all says what it skipped"
run repair --mode prior "$tmp/mid.avro" "$tmp/mid-prior.avro"
expect_rc 0 "repair --mode prior" && expect_eq "$out" "repaired: kept 1390 records; skipped 1 damaged block (131178 bytes); left out 878 readable records (mode prior)" "repair prior summary"
run tojson "$tmp/mid-prior.avro"
expect_eq "$out" "$(head -n 1390 "$tmp/n.json")" "repair prior keeps the records before the damage"
run repair -o after "$tmp/mid.avro" "$tmp/mid-after.avro"
expect_rc 0 "repair -o after" && expect_eq "$out" "repaired: kept 878 records; skipped 1 damaged block (131178 bytes); left out 1390 readable records (mode after)" "repair after summary"
run tojson "$tmp/mid-after.avro"
expect_eq "$out" "$(tail -n 878 "$tmp/n.json")" "repair after keeps the records after the damage"
run repair -o report "$tmp/mid.avro" "$tmp/mid-report.avro"
expect_rc 0 "repair -o report" && expect_eq "$out" "damaged: 2268 readable records; found 1 damaged block (131178 bytes)" "repair report summary"
expect_eq "$err" "$mid_skip" "repair report says what is damaged"
checks=$((checks + 1))
[ ! -e "$tmp/mid-report.avro" ] || fail "repair -o report wrote a file"
run repair --mode report "$tmp/n.avro"
expect_rc 0 "repair --mode report of a sound file" && expect_eq "$out" "nothing to repair: 5000 records, no damaged blocks" "repair report of a sound file"
run repair --mode later "$tmp/mid.avro" "$tmp/x.avro"
expect_rc 2 "repair --mode later" && expect_eq "$err" "avrokit repair: unknown --mode 'later': use all, prior, after or report
Try 'avrokit repair --help'." "bad repair mode said"

# Limits: flags on every reading command; a valid file beyond one is never
# called damaged, and repair exits 1 when it dropped something that was
# not damage (it used to skip such blocks as damaged and exit 0).
printf '{"type":"record","name":"L","fields":[{"name":"s","type":"string"}]}' >"$tmp/l.avsc"
printf '{"s":"ab"}\n{"s":"abcdefgh"}\n' >"$tmp/l.json"
run fromjson --schema "$tmp/l.avsc" "$tmp/l.json" "$tmp/l.avro"
lim_msg="block 0 at byte 120: record 1 of 2, byte 3 of the block's data: L.s: string length 8 is above max_bytes (4)"
run repair --max-bytes 4 "$tmp/l.avro" "$tmp/l-fixed.avro"
expect_rc 1 "repair of a valid file beyond --max-bytes"
expect_eq "$err" "$tmp/l.avro: dropped bytes 120-150 (30 bytes) over a limit, not damage: $lim_msg; --max-bytes raises it" "repair reports a limit as a limit"
expect_eq "$out" "incomplete: kept 1 record; dropped 1 block over a limit (30 bytes), not damage" "repair summary with a limit"
run tojson "$tmp/l-fixed.avro"
expect_eq "$out" '{"s":"ab"}' "repair keeps what it read before the limit"
run repair --max-bytes 8 "$tmp/l.avro" "$tmp/l-fixed.avro"
expect_rc 0 "repair within the limit" && expect_eq "$out" "nothing to repair: 2 records, no damaged blocks" "repair within the limit"
run tojson --max-bytes 4 "$tmp/l.avro"
expect_rc 1 "tojson beyond --max-bytes" && expect_eq "$out" '{"s":"ab"}' "tojson prints the records before the limit"
expect_eq "$err" "$tmp/l.avro: $lim_msg (a limit, not damage: --max-bytes raises it)" "tojson names the limit and its option"
printf '{"type":"record","name":"D","fields":[{"name":"n","type":["null","D"]}]}' >"$tmp/d.avsc"
printf '{"n":{"D":{"n":{"D":{"n":{"D":{"n":null}}}}}}}\n' >"$tmp/d.json"
run fromjson --schema "$tmp/d.avsc" "$tmp/d.json" "$tmp/d.avro"
run repair --max-depth 3 "$tmp/d.avro" "$tmp/d-fixed.avro"
expect_rc 1 "repair of a record deeper than --max-depth" && expect_contains "$err" "over a limit, not damage: " "depth reported as a limit"
expect_contains "$err" "--max-depth raises it" "depth limit names its option"
run tojson --max-depth 20 "$tmp/d.avro"
expect_rc 0 "tojson within --max-depth" && expect_eq "$out" '{"n":{"D":{"n":{"D":{"n":{"D":{"n":null}}}}}}}' "deep record read"
run cat --max-bytes 4 "$tmp/l.avro" -o "$tmp/l-cat.avro"
expect_rc 1 "cat beyond --max-bytes" && expect_contains "$err" "(a limit, not damage: --max-bytes raises it)" "cat names the limit"
checks=$((checks + 1))
[ ! -e "$tmp/l-cat.avro" ] || fail "a failed cat left its output"
run count --max-block-bytes 100 "$tmp/n.avro"
expect_rc 1 "count beyond --max-block-bytes" && expect_eq "$err" "$tmp/n.avro: block 0 at byte 147: its size of 65546 bytes exceeds the limit of 100 (max_block_bytes) (a limit, not damage: --max-block-bytes raises it)" "count names the block limit"
run count --max-block-bytes 1M "$tmp/n.avro"
expect_rc 0 "count --max-block-bytes 1M" && expect_eq "$out" "5000" "a size with a suffix"
run getmeta --max-header-bytes 10 "$tmp/t.avro"
expect_rc 1 "getmeta beyond --max-header-bytes" && expect_contains "$err" "--max-header-bytes raises it" "getmeta names the header limit"
run getschema --max-header-bytes=10 "$tmp/t.avro"
expect_rc 1 "getschema beyond --max-header-bytes"
run concat --max-items 1 "$tmp/t.avro" "$tmp/tz.avro" "$tmp/cc3.avro"
expect_rc 1 "concat with records beyond --max-items" && expect_contains "$err" "--max-items raises it" "concat names the items limit"
run recodec --codec deflate --max-block-bytes 1K "$tmp/n.avro" "$tmp/rc-lim.avro"
expect_rc 1 "recodec beyond --max-block-bytes"
printf 'null\nnull\nnull\nnull\nnull\n' >"$tmp/z.json"
run fromjson --schema '"null"' "$tmp/z.json" "$tmp/z.avro"
run tojson --max-empty-items 2 "$tmp/z.avro"
expect_rc 1 "tojson of more zero-byte records than --max-empty-items" && expect_eq "$err" "$tmp/z.avro: block 0 at byte 57: a count of 5 records of zero bytes each exceeds the limit of 2 (max_empty_items) (a limit, not damage: --max-empty-items raises it)" "zero-byte records: the limit named"
run repair --max-empty-items 2 "$tmp/z.avro" "$tmp/z-fixed.avro"
expect_rc 1 "repair of more zero-byte records than --max-empty-items" && expect_eq "$out" "incomplete: kept 0 records; dropped 1 block over a limit (18 bytes), not damage" "repair: zero-byte records dropped for a limit"
for args in "tojson --max-depth x $tmp/t.avro" "cat --max-bytes 1Q $tmp/t.avro -o $tmp/q.avro" \
            "count --max-items -1 $tmp/t.avro" "repair --max-memory $tmp/t.avro" \
            "getmeta --max-bytes=99999999999999999999 $tmp/t.avro" "concat --max-empty-items 1.5 $tmp/t.avro $tmp/q.avro" \
            "recodec --codec null --max-block-bytes 1X $tmp/t.avro $tmp/q.avro" "getschema --max-depth= $tmp/t.avro"; do
  # shellcheck disable=SC2086
  run $args
  expect_rc 2 "$args (a bad limit value)"
done
run tojson --max-depth x "$tmp/t.avro"
expect_eq "$err" "avrokit tojson: --max-depth wants a non-negative whole number (K, M, G or T may follow), not 'x'
Try 'avrokit tojson --help'." "a bad limit value said"
for c in tojson cat concat recodec repair count getmeta getschema; do
  run "$c" --help
  expect_contains "$out" "--max-depth N" "$c --help lists the limits"
done

# Usage errors exit 2, before anything is read or written.
run cat --level 99 "$tmp/n-deflate.avro" -o "$tmp/lv.avro"
expect_rc 2 "cat --level 99 with the input's codec" && expect_eq "$err" "avrokit cat: --level 99: deflate level 99 is not within 1-12
Try 'avrokit cat --help'." "cat level checked against the input's codec"
run cat --codec bzip2 --level 10 "$tmp/missing.avro" -o "$tmp/lv.avro"
expect_rc 2 "cat --codec bzip2 --level 10" && expect_contains "$err" "bzip2 level 10 is not within 1-9" "cat level checked up front"
run random --schema "$tmp/int.avsc" --count 1 --codec xz --level 10 "$tmp/lv.avro"
expect_rc 2 "random --level 10 for xz" && expect_contains "$err" "xz level 10 is not within 1-9" "random level checked"
run fromjson --schema "$tmp/r.avsc" --codec deflate --level 13 "$tmp/a1.json" "$tmp/lv.avro"
expect_rc 2 "fromjson --level 13 for deflate" && expect_contains "$err" "deflate level 13 is not within 1-12" "fromjson level checked"
checks=$((checks + 1))
[ ! -e "$tmp/lv.avro" ] || fail "a bad --level created its output"
run schema compat "$tmp/missing.avsc" "$tmp/i12w.avsc"
expect_rc 2 "compat with a missing schema" && expect_eq "$err" "$tmp/missing.avsc: cannot open: No such file or directory" "compat missing schema said"
run schema compat "$tmp/i12w.avsc" "$tmp/user.avsc"
expect_rc 2 "compat with an invalid schema" && expect_contains "$err" "lnog" "compat invalid schema said"
run schema compat "$tmp/i12w.avsc" "$tmp/i12bad.avsc"
expect_rc 1 "compat incompatible is still 1"

# A reader schema that cannot be used: every problem that stops it, listed;
# union mismatches list the branches.
cat >"$tmp/rmany.avsc" <<'EOF2'
{"type":"record","name":"R","fields":[{"name":"a","type":"boolean"},{"name":"b","type":["null","int"]},
 {"name":"c","type":{"type":"enum","name":"E","symbols":["X"]}},{"name":"x","type":"int"},{"name":"y","type":"int"}]}
EOF2
many="$tmp/i12.avro: its schema cannot be read as the reader schema (4 problems):
  reader R.fields[0], writer R.fields[0]: int cannot be read as boolean
  reader R.fields[1], writer R.fields[1]: the writer's string matches no branch of the reader's union [null, int]
  reader R.fields[3], writer R: \"x\": no default and not in writer
  reader R.fields[4], writer R: \"y\": no default and not in writer"
run tojson --reader-schema "$tmp/rmany.avsc" "$tmp/i12.avro"
expect_rc 1 "tojson with an unusable reader schema" && expect_eq "$err" "$many" "tojson lists every problem"
run cat --reader-schema "$tmp/rmany.avsc" "$tmp/i12.avro" -o "$tmp/rmany.avro"
expect_rc 1 "cat with an unusable reader schema" && expect_eq "$err" "$many" "cat lists every problem"
run_in "$tmp/i12.avro" tojson --reader-schema "$tmp/rmany.avsc" -
expect_rc 1 "tojson - with an unusable reader schema" && expect_eq "$err" "<stdin>: the file's schema cannot be read as the reader schema: reader R.fields[0]: int cannot be read as boolean (writer R.fields[0])" "from standard input, the first problem"
printf '{"u":{"string":"x"}}\n' >"$tmp/u.json"
printf '{"type":"record","name":"U","fields":[{"name":"u","type":["null","string"]}]}' >"$tmp/u.avsc"
run fromjson --schema "$tmp/u.avsc" "$tmp/u.json" "$tmp/u.avro"
run tojson --reader-schema '{"type":"record","name":"U","fields":[{"name":"u","type":["null","int","boolean"]}]}' "$tmp/u.avro"
expect_rc 1 "tojson of a union branch the reader lacks"
expect_contains "$err" "no branch of the reader's union [null, int, boolean] matches" "the union's branches listed"
run schema compat "$tmp/u.avsc" '{"type":"record","name":"U","fields":[{"name":"u","type":["null","int"]}]}'
expect_eq "$out" "incompatible
  reader U.fields[0], writer U.fields[0].branch[1]: no branch of the reader's union [null, int] matches" "compat lists the union's branches"
# ---- fromjson: any stream of JSON values; tojson: always JSON (issue 12) ----------------

# Pretty output reads back: tojson --pretty | fromjson gives the same records.
"$bin" tojson --pretty "$tmp/t.avro" 2>"$tmp/err" | "$bin" fromjson --schema "$tmp/t.avsc" - "$tmp/tp.avro" 2>>"$tmp/err"
expect_eq "$(cat "$tmp/err")" "" "tojson --pretty | fromjson writes nothing to stderr"
run tojson "$tmp/tp.avro"
expect_rc 0 "tojson of the pretty round trip" && expect_eq "$out" "$t_expected" "tojson --pretty | fromjson round trip"

# Several values on a line, one over several lines, blank lines, no newline at the end.
printf '{"a":1} {"a":2}{"a":3}\n\n\n  {\n    "a": 4\n  }\n\t{"a":\n5}   {"a":6}' >"$tmp/many.json"
run fromjson --schema "$tmp/r.avsc" "$tmp/many.json" "$tmp/many.avro"
expect_rc 0 "fromjson of values in any layout"
run tojson "$tmp/many.avro"
expect_eq "$out" '{"a":1}
{"a":2}
{"a":3}
{"a":4}
{"a":5}
{"a":6}' "fromjson reads values in any layout"
run_in "$tmp/many.json" fromjson --schema "$tmp/r.avsc" - "$tmp/many2.avro"
expect_rc 0 "fromjson of values in any layout from stdin"
run tojson "$tmp/many2.avro"
expect_eq "$out" "$("$bin" tojson "$tmp/many.avro")" "the same records from standard input"
printf '  \n\n' >"$tmp/blank.json"
run fromjson --schema "$tmp/r.avsc" "$tmp/blank.json" "$tmp/blank.avro"
expect_rc 0 "fromjson of white space only"
run count "$tmp/blank.avro"
expect_eq "$out" "0" "white space only: no records"

# No output file: the container goes to standard output (avro-tools' way).
"$bin" fromjson --schema "$tmp/t.avsc" "$tmp/t.json" >"$tmp/stdout.avro" 2>"$tmp/err"
rc=$?
expect_eq "$rc $(cat "$tmp/err")" "0 " "fromjson without OUT writes to standard output"
run tojson "$tmp/stdout.avro"
expect_eq "$out" "$t_expected" "fromjson to standard output reads back"
# --schema-file is --schema.
run fromjson --schema-file "$tmp/t.avsc" "$tmp/t.json" "$tmp/sf.avro"
expect_rc 0 "fromjson --schema-file"
run tojson "$tmp/sf.avro"
expect_eq "$out" "$t_expected" "fromjson --schema-file reads the same"
run fromjson --schema "$tmp/t.avsc" --schema-file "$tmp/t.avsc" "$tmp/t.json" "$tmp/sf.avro"
expect_rc 2 "fromjson with --schema and --schema-file" && expect_contains "$err" "one schema only" "two schemas refused"
run fromjson --schema "$tmp/t.avsc" a.json b.avro c.avro
expect_rc 2 "fromjson with three files"

# Errors: the input, the exact line and column of the whole input, the value path.
printf '{"a":1}\n{\n  "a": 2\n} {"a":3}\n{\n  "a":\n    true\n}\n' >"$tmp/bad3.json"
run fromjson --schema "$tmp/r.avsc" "$tmp/bad3.json" "$tmp/bad3.avro"
expect_rc 1 "fromjson of a pretty value of the wrong type"
expect_eq "$err" "$tmp/bad3.json: line 7, column 5: R.a: expected an integer within 32 bits for int, found true" "fromjson error: line and column in the whole input"
checks=$((checks + 1))
[ ! -e "$tmp/bad3.avro" ] || fail "fromjson left a partial output file behind"
printf '{"a":1} {"a":2}\n{"a":3} {"a":4,}\n' >"$tmp/bad4.json"
run_in "$tmp/bad4.json" fromjson --schema "$tmp/r.avsc" - "$tmp/bad4.avro"
expect_rc 1 "fromjson of a syntax error after values on its line"
expect_eq "$err" "<stdin>: line 2, column 16: expected a string key, found '}' (trailing comma?)" "fromjson syntax error: column in the line"
printf '{"a":1}\n{"a":2' >"$tmp/cut.json"
run fromjson --schema "$tmp/r.avsc" "$tmp/cut.json" "$tmp/cut.avro"
expect_rc 1 "fromjson of a value cut by the end"
expect_eq "$err" "$tmp/cut.json: line 2, column 7: expected ',' or '}' after an object member, found end of input" "value cut by the end of the input"
printf '{"type":"record","name":"U","fields":[{"name":"u","type":["null",{"type":"record","name":"In","fields":[{"name":"x","type":"int"}]}]}]}' >"$tmp/u.avsc"
printf '{"u":null}\n{"u":{"In":{"x":1}}}\n{"u":{"Out":{"x":1}}}\n' >"$tmp/u.json"
run fromjson --schema "$tmp/u.avsc" "$tmp/u.json" "$tmp/u.avro"
expect_rc 1 "fromjson of an unknown union branch"
expect_eq "$err" "$tmp/u.json: line 3, column 6: U.u: \"Out\" is no branch of union [\"null\",\"In\"] (expected null or an object naming one)" "union error lists the branches"

# Limits, each with its own message.
printf '{"type":"record","name":"S","fields":[{"name":"s","type":"string"},{"name":"a","type":{"type":"array","items":"int"}}]}' >"$tmp/s.avsc"
printf '{"s":"abcd","a":[1,2,3]}\n' >"$tmp/s.json"
run fromjson --schema "$tmp/s.avsc" --max-bytes 4 --max-items 3 --max-depth 2 "$tmp/s.json" "$tmp/s.avro"
expect_rc 0 "fromjson within its limits"
run fromjson --schema "$tmp/s.avsc" --max-bytes 3 "$tmp/s.json" "$tmp/s.avro"
expect_rc 1 "fromjson --max-bytes" && expect_eq "$err" "$tmp/s.json: line 1, column 6: S.s: string of length 4 is above max_bytes (3)" "--max-bytes message"
run fromjson --schema "$tmp/s.avsc" --max-items 2 "$tmp/s.json" "$tmp/s.avro"
expect_rc 1 "fromjson --max-items" && expect_eq "$err" "$tmp/s.json: line 1, column 17: S.a: array of 3 items is above max_items (2)" "--max-items message"
run fromjson --schema "$tmp/s.avsc" --max-depth 1 "$tmp/s.json" "$tmp/s.avro"
expect_rc 1 "fromjson --max-depth" && expect_eq "$err" "$tmp/s.json: line 1, column 17: nesting deeper than 1 levels" "--max-depth message"
run fromjson --schema "$tmp/s.avsc" --max-memory 100 "$tmp/s.json" "$tmp/s.avro"
expect_rc 1 "fromjson --max-memory" && expect_eq "$err" "$tmp/s.json: reading the value needs more than max_memory (100 bytes)" "--max-memory message"
run fromjson --schema "$tmp/s.avsc" --max-depth x "$tmp/s.json" "$tmp/s.avro"
expect_rc 2 "fromjson --max-depth x" && expect_contains "$err" "--max-depth wants a non-negative whole number, not 'x'" "bad --max-depth said"
# A hostile nesting stops at the depth limit, in bounded memory and time.
head -c 10000000 /dev/zero | tr '\0' '[' >"$tmp/deep.json"
run fromjson --schema "$tmp/s.avsc" "$tmp/deep.json" "$tmp/deep.avro"
expect_rc 1 "fromjson of 10^7 brackets" && expect_eq "$err" "$tmp/deep.json: line 1, column 1000001: nesting deeper than 1000000 levels" "10^7 brackets stop at the default depth"

# A 100,000-node list (200,000 levels): JSON -> container -> JSON, byte for byte.
printf '{"type":"record","name":"LongList","fields":[{"name":"value","type":"long"},{"name":"next","type":["null","LongList"]}]}' >"$tmp/ll.avsc"
list_json() {
  awk -v n="$1" 'BEGIN { for (i = 0; i < n - 1; i++) printf "{\"value\":%d,\"next\":{\"LongList\":", i
    printf "{\"value\":%d,\"next\":null}", n - 1; for (i = 0; i < n - 1; i++) printf "}}"; print "" }'
}
list_json 100 >"$tmp/list100.json"
list_json 100000 >"$tmp/list.json"
if ! "$bin" fromjson --schema "$tmp/ll.avsc" "$tmp/list100.json" "$tmp/list100.avro" 2>/dev/null; then
  # 100 nodes are 200 levels: past what the binary encoder takes before
  # its rewrite without recursion; the JSON side is tested in avro_json_test.
  echo "SKIP: 100,000-node list through fromjson/tojson: the binary encoder stops at 200 levels" >&2
else
  run fromjson --schema "$tmp/ll.avsc" "$tmp/list.json" "$tmp/list.avro"
  expect_rc 0 "fromjson of a 100,000-node list"
  "$bin" tojson "$tmp/list.avro" >"$tmp/list.out" 2>"$tmp/err"
  checks=$((checks + 1))
  cmp -s "$tmp/list.json" "$tmp/list.out" || fail "100,000-node list: tojson does not give the text back ($(cat "$tmp/err"))"
fi

# tojson: a string that is not UTF-8 is an error naming file, block, record
# and path (the records before it printed), or U+FFFD with --invalid-utf8=replace.
# The file is written by hand: avrokit writes no such strings.
/usr/bin/python3 - "$tmp/badutf8.avro" <<'PYEOF'
import sys
def zz(n):
    n = (n << 1) ^ (n >> 63)
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])
def s(b):
    return zz(len(b)) + b
schema = b'{"type":"record","name":"R","fields":[{"name":"id","type":"int"},{"name":"s","type":"string"}]}'
sync = bytes(range(16))
out = b"Obj\x01" + zz(2) + s(b"avro.schema") + s(schema) + s(b"avro.codec") + s(b"null") + zz(0) + sync
for block in ([(1, b"ok"), (2, b"caf\xc3\xa9")], [(3, b"ab\xc3(z"), (4, b"tail\xff")]):
    data = b"".join(zz(i) + s(t) for i, t in block)
    out += zz(len(block)) + zz(len(data)) + data + sync
open(sys.argv[1], "wb").write(out)
PYEOF
run tojson "$tmp/badutf8.avro"
expect_rc 1 "tojson of a string that is not UTF-8"
expect_eq "$out" '{"id":1,"s":"ok"}
{"id":2,"s":"café"}' "tojson prints the records before the bad string"
expect_eq "$err" "$tmp/badutf8.avro: block 1, record 0: R.s: string of 5 bytes is not valid UTF-8: 0xC3 at byte 2 is not a character (--invalid-utf8=replace writes U+FFFD instead)" "tojson names file, block, record and path"
run tojson --invalid-utf8=fail "$tmp/badutf8.avro"
expect_rc 1 "tojson --invalid-utf8=fail"
run tojson --invalid-utf8=replace "$tmp/badutf8.avro"
expect_rc 0 "tojson --invalid-utf8=replace" && expect_eq "$out" '{"id":1,"s":"ok"}
{"id":2,"s":"café"}
{"id":3,"s":"ab�(z"}
{"id":4,"s":"tail�"}' "tojson writes U+FFFD for invalid sequences"
run tojson --invalid-utf8 replace --pretty --head 1 "$tmp/badutf8.avro"
expect_rc 0 "tojson --invalid-utf8 replace (separate argument)"
printf '{"type":"record","name":"R","fields":[{"name":"id","type":"int"},{"name":"s","type":"string"}]}' >"$tmp/rutf.avsc"
"$bin" tojson --invalid-utf8=replace "$tmp/badutf8.avro" 2>"$tmp/err" | "$bin" fromjson --schema "$tmp/rutf.avsc" - "$tmp/rutf.avro" 2>>"$tmp/err"
expect_eq "$? $(cat "$tmp/err")" "0 " "the replaced output is JSON that fromjson reads"
run tojson --invalid-utf8=drop "$tmp/badutf8.avro"
expect_rc 2 "tojson --invalid-utf8=drop" && expect_contains "$err" "--invalid-utf8 wants fail or replace, not 'drop'" "bad --invalid-utf8 said"


# ---- issue 12: values nested as deep as memory allows, through every command -------
# A linked list of nodes (400 levels for 200 nodes: a record and a union each)
# that Java, Python and Apache Avro C write and read; 100,000 nodes too. Every
# reading and writing command takes them with the default limits.
cat >"$tmp/ll.avsc" <<'EOF2'
{"type":"record","name":"LongList","fields":[{"name":"value","type":"long"},{"name":"next","type":["null","LongList"]}]}
EOF2
# deep_list FILE NODES CODEC: a container file of one list of NODES nodes,
# written the way every implementation writes it (python's standard library,
# no avro module: the format by hand).
deep_list() {
  /usr/bin/python3 - "$1" "$2" "$3" "$tmp/ll.avsc" <<'EOF2'
import sys, zlib
path, nodes, codec, schema = sys.argv[1], int(sys.argv[2]), sys.argv[3], open(sys.argv[4]).read().strip()
def varint(n):
    n = (n << 1) ^ (n >> 63)
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)
def text(b):
    return varint(len(b)) + b
data = bytearray()
for i in range(nodes):
    data += varint(i) + varint(1 if i + 1 < nodes else 0)
if codec == "deflate":
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    data = c.compress(bytes(data)) + c.flush()
sync = bytes(range(16))
meta = [(b"avro.schema", schema.encode()), (b"avro.codec", codec.encode())]
out = b"Obj\x01" + varint(len(meta)) + b"".join(text(k) + text(v) for k, v in meta) + varint(0)
out += sync + varint(1) + varint(len(data)) + bytes(data) + sync
open(path, "wb").write(out)
EOF2
}
if [ -x /usr/bin/python3 ]; then
  for nodes in 200 100000; do
    deep_list "$tmp/deep$nodes.avro" "$nodes" null
    run tojson "$tmp/deep$nodes.avro"
    expect_rc 0 "tojson of a $nodes-node list"
    printf '%s\n' "$out" >"$tmp/deep$nodes.json"
    expect_eq "$(head -c 60 "$tmp/deep$nodes.json")" '{"value":0,"next":{"LongList":{"value":1,"next":{"LongList":' "tojson of a $nodes-node list starts right"
    run cat "$tmp/deep$nodes.avro" -o "$tmp/deep$nodes-cat.avro"
    expect_rc 0 "cat of a $nodes-node list"
    run concat "$tmp/deep$nodes.avro" "$tmp/deep$nodes.avro" "$tmp/deep$nodes-concat.avro"
    expect_rc 0 "concat of a $nodes-node list"
    run recodec --codec deflate "$tmp/deep$nodes.avro" "$tmp/deep$nodes-deflate.avro"
    expect_rc 0 "recodec of a $nodes-node list"
    run repair "$tmp/deep$nodes.avro" "$tmp/deep$nodes-repair.avro"
    expect_rc 0 "repair of a $nodes-node list" && expect_contains "$out" "nothing to repair" "repair drops nothing of a $nodes-node list"
    run fromjson --schema "$tmp/ll.avsc" "$tmp/deep$nodes.json" "$tmp/deep$nodes-fromjson.avro"
    expect_rc 0 "fromjson of a $nodes-node list"
    for f in cat concat deflate repair fromjson; do
      run tojson --head 1 "$tmp/deep$nodes-$f.avro"
      expect_rc 0 "tojson of the $nodes-node list after $f"
      if [ "$out" != "$(cat "$tmp/deep$nodes.json")" ]; then
        fail "the $nodes-node list after $f is not the list that went in"
      fi
      checks=$((checks + 1))
    done
    run count "$tmp/deep$nodes-concat.avro"
    expect_eq "$out" "2" "concat of a $nodes-node list holds both"
  done
  # Written by python3-avro, when it is there (Python's own recursion limit
  # lets it write 200 nodes).
  if /usr/bin/python3 -c 'import avro.datafile' 2>/dev/null; then
    /usr/bin/python3 - "$tmp/ll.avsc" "$tmp/deep-py.avro" <<'EOF2'
import sys, avro.schema, avro.datafile, avro.io
schema = avro.schema.parse(open(sys.argv[1]).read())
node = None
for i in reversed(range(200)):
    node = {"value": i, "next": node}
with open(sys.argv[2], "wb") as f:
    w = avro.datafile.DataFileWriter(f, avro.io.DatumWriter(), schema, codec="deflate")
    w.append(node)
    w.close()
EOF2
    run tojson "$tmp/deep-py.avro"
    expect_rc 0 "tojson of python3-avro's 200-node list" && expect_eq "$out" "$(cat "$tmp/deep200.json")" "python3-avro's list reads as ours"
  else
    echo "SKIP: python3-avro not installed: the 200-node list it writes"
  fi
  # The limits are the user's to lower, and a limit is never damage.
  run tojson --max-depth 100 "$tmp/deep200.avro"
  expect_rc 1 "tojson --max-depth 100 of a 200-node list" && expect_contains "$err" "nesting deeper than max_depth (100)" "the depth limit named"
  expect_contains "$err" "LongList.next.branch[1]" "the path by field names"
  run repair --max-depth 100 "$tmp/deep200.avro" "$tmp/deep200-lim.avro"
  expect_rc 1 "repair --max-depth 100 drops a record for a limit: exit 1" && expect_contains "$err" "over a limit, not damage" "repair says the drop was a limit"
else
  echo "SKIP: /usr/bin/python3 not found: deep lists"
fi

# ---- block index: index, tail, tojson --offset/--limit (issue 17) ----------------
ix="$tmp/ix"
mkdir -p "$ix"
cat >"$ix/e.avsc" <<'EOF'
{"type":"record","name":"E","fields":[{"name":"id","type":"long"},{"name":"s","type":"string"},
 {"name":"d","type":["null","double"]}]}
EOF
run random --schema "$ix/e.avsc" --count 20000 --seed 17 --codec deflate "$ix/e.avro"
expect_rc 0 "random for the index"
run tojson "$ix/e.avro"
printf '%s\n' "$out" >"$ix/all.jsonl"
run index --help
expect_rc 0 "index --help" && expect_contains "$out" "Usage:" "index --help" &&
  expect_contains "$out" ".avkidx" "index --help names the sidecar"
run tail --help
expect_rc 0 "tail --help" && expect_contains "$out" "-n, --lines N" "tail --help"
run index
expect_rc 2 "index without FILE"
run index -
expect_rc 2 "index of standard input" && expect_contains "$err" "cannot be indexed" "index - refused"
run tail "$ix/e.avro" "$ix/e.avro"
expect_rc 2 "tail of two files"
run tail -n x "$ix/e.avro"
expect_rc 2 "tail -n x"
run tojson --offset x "$ix/e.avro"
expect_rc 2 "tojson --offset x"

run index "$ix/e.avro"
expect_rc 0 "index" && expect_contains "$out" "20000 records" "index summary" &&
  expect_contains "$out" "built, saved to $ix/e.avro.avkidx" "index built and saved"
checks=$((checks + 1))
[ -f "$ix/e.avro.avkidx" ] || fail "index wrote no sidecar"
blocks=$(sed -n 's/^.*: \([0-9]*\) blocks,.*$/\1/p' <<<"$out")
run index "$ix/e.avro"
expect_rc 0 "index again" && expect_contains "$out" "; up to date" "index up to date"
run index --print --no-save "$ix/e.avro"
expect_rc 0 "index --print" &&
  expect_eq "$(sed -n 2p <<<"$out")" "block	offset	records	first	stored	end" "index --print header"
expect_eq "$(($(wc -l <<<"$out") - 2))" "$blocks" "index --print lists every block"
checks=$((checks + 1))
[ "$blocks" -ge 5 ] || fail "the test file has only $blocks blocks"
# The listed blocks add up: counts sum to the total, each starts where the one before ends.
expect_eq "$(awk -F'\t' 'NR > 2 { n += $3 } END { print n }' <<<"$out")" "20000" "block counts sum"
expect_eq "$(awk -F'\t' 'NR > 3 && $2 != prev { bad++ } NR > 2 { prev = $6 } END { print bad + 0 }' <<<"$out")" "0" "blocks back to back"
b2=$(awk -F'\t' 'NR == 5 { print $4 }' <<<"$out") # first record of block 2

# tail -n N: the last N lines of tojson.
for n in 0 1 5 10 "$b2" 19999 20000 25000; do
  run tail -n "$n" "$ix/e.avro"
  expect_rc 0 "tail -n $n" && expect_eq "$out" "$(tail -n "$n" "$ix/all.jsonl")" "tail -n $n"
done
run tail "$ix/e.avro"
expect_eq "$out" "$(tail -n 10 "$ix/all.jsonl")" "tail prints 10 by default"
run tail --pretty -n 1 "$ix/e.avro"
expect_contains "$out" "  \"id\": " "tail --pretty"
"$bin" tail -n 7 - <"$ix/e.avro" >"$tmp/out" 2>"$tmp/err"
rc=$?
expect_rc 0 "tail of standard input" && expect_eq "$(cat "$tmp/out")" "$(tail -n 7 "$ix/all.jsonl")" "tail of standard input"

# tojson --offset N --limit M: what sed -n prints of tojson.
for nm in "0 3" "1 1" "$((b2 - 1)) 3" "$b2 2" "12345 10" "19998 5" "20000 5" "30000 1" "100 0"; do
  set -- $nm
  run tojson --offset "$1" --limit "$2" "$ix/e.avro"
  want=""
  [ "$2" -gt 0 ] && want=$(sed -n "$(($1 + 1)),$(($1 + $2))p" "$ix/all.jsonl")
  expect_rc 0 "tojson --offset $1 --limit $2" && expect_eq "$out" "$want" "tojson --offset $1 --limit $2"
done
run tojson --offset 19990 "$ix/e.avro"
expect_eq "$out" "$(sed -n '19991,$p' "$ix/all.jsonl")" "tojson --offset alone"
run tojson --offset 5 --limit 4 --head 2 "$ix/e.avro"
expect_eq "$out" "$(sed -n '6,7p' "$ix/all.jsonl")" "--head and --limit: the smaller"
# Over several files as if they were one, without a sidecar for the second.
cp "$ix/e.avro" "$ix/f.avro"
run tojson --offset 19998 --limit 4 "$ix/e.avro" "$ix/f.avro"
expect_eq "$out" "$(sed -n '19999,20000p' "$ix/all.jsonl"; sed -n '1,2p' "$ix/all.jsonl")" "--offset over two files"
run tojson --offset 20003 --limit 2 "$ix/e.avro" "$ix/f.avro"
expect_eq "$out" "$(sed -n '4,5p' "$ix/all.jsonl")" "--offset past the first file"
checks=$((checks + 1))
[ ! -e "$ix/f.avro.avkidx" ] || fail "tojson --offset wrote a sidecar"
"$bin" tojson --offset 777 --limit 3 - <"$ix/e.avro" >"$tmp/out" 2>"$tmp/err"
rc=$?
expect_rc 0 "tojson --offset from standard input" &&
  expect_eq "$(cat "$tmp/out")" "$(sed -n '778,780p' "$ix/all.jsonl")" "tojson --offset from standard input"

# Grown by appending blocks (the same file's blocks after its header): refreshed.
hdr=$(awk -F'\t' 'NR == 3 { print $2 }' <<<"$("$bin" index --print --no-save "$ix/e.avro")")
cp "$ix/e.avro" "$ix/g.avro"
run index "$ix/g.avro"
tail -c +$((hdr + 1)) "$ix/e.avro" >>"$ix/g.avro"
run index "$ix/g.avro"
expect_rc 0 "index of a grown file" && expect_contains "$out" "40000 records" "grown total" &&
  expect_contains "$out" "refreshed ($blocks new blocks)" "only the new blocks read"
run tail -n 3 "$ix/g.avro"
expect_eq "$out" "$(tail -n 3 "$ix/all.jsonl")" "tail of a grown file"
run tojson --offset 20001 --limit 1 "$ix/g.avro"
expect_eq "$out" "$(sed -n 2p "$ix/all.jsonl")" "--offset in the appended part"
# Rewritten: rebuilt.
run random --schema "$ix/e.avsc" --count 300 --seed 18 "$ix/g.avro"
run index "$ix/g.avro"
expect_rc 0 "index of a rewritten file" && expect_contains "$out" "rebuilt (the index was of an older version" "rewritten file rebuilt"
# A damaged sidecar: rebuilt.
printf 'not an index' >"$ix/g.avro.avkidx"
run index "$ix/g.avro"
expect_contains "$out" "rebuilt (the index could not be read" "damaged sidecar rebuilt"
run tail -n 2 "$ix/g.avro"
expect_rc 0 "tail after a rebuild" && expect_eq "$out" "$("$bin" tojson "$ix/g.avro" | tail -n 2)" "tail after a rebuild"

# A damaged file: index fails with the place; tail and --offset read in order.
head -c $(($(wc -c <"$ix/e.avro") - 100)) "$ix/e.avro" >"$ix/cut.avro"
run index --no-save "$ix/cut.avro"
expect_rc 1 "index of a cut file" && expect_contains "$err" "cut.avro: block $((blocks - 1)) at byte " "cut file: block and byte named"
run tojson "$ix/cut.avro"
printf '%s\n' "$out" >"$ix/cut.jsonl"
cut_err=$err
run tail -n 4 "$ix/cut.avro"
expect_rc 1 "tail of a cut file" && expect_eq "$out" "$(tail -n 4 "$ix/cut.jsonl")" "tail of a cut file: the last good records" &&
  expect_eq "$err" "$cut_err" "tail of a cut file: tojson's error"
run tojson --offset 100 --limit 2 "$ix/cut.avro"
expect_rc 0 "--offset in the good part of a cut file" && expect_eq "$out" "$(sed -n '101,102p' "$ix/cut.jsonl")" "--offset of a cut file"

# A record that cannot be written as JSON, reached through the index: its
# block and place in the block are the file's, as reading in order names them.
run tojson --offset 3 "$tmp/badutf8.avro"
expect_rc 1 "tojson --offset to a bad string" && expect_eq "$out" "" "nothing before it" &&
  expect_contains "$err" "badutf8.avro: block 1, record 1: R.s: string of 5 bytes is not valid UTF-8" "--offset: block and record of the bad string"
run tojson --offset 2 "$tmp/badutf8.avro"
expect_contains "$err" "badutf8.avro: block 1, record 0: R.s:" "--offset at a block's start: its place"
run tojson --offset 1 --invalid-utf8=replace "$tmp/badutf8.avro"
expect_rc 0 "--offset with --invalid-utf8=replace" && expect_eq "$(wc -l <<<"$out")" "3" "three records after the first"
run tail -n 3 "$tmp/badutf8.avro"
expect_rc 1 "tail to a bad string" && expect_eq "$out" '{"id":2,"s":"café"}' "tail prints the records before it" &&
  expect_contains "$err" "badutf8.avro: block 1, record 0: R.s:" "tail names the bad string's place"
"$bin" tail -n 2 - <"$tmp/badutf8.avro" >"$tmp/out" 2>"$tmp/err"
rc=$?
expect_rc 1 "tail of standard input to a bad string" &&
  expect_eq "$(cat "$tmp/out")" '{"id":1,"s":"ok"}
{"id":2,"s":"café"}' "tail in order: the last records before the bad one" &&
  expect_contains "$(cat "$tmp/err")" "<stdin>: block 1, record 0: R.s:" "tail in order names the bad string's place"

# A directory the sidecar cannot be written to: index says so (status 1),
# --no-save, tail and tojson --offset work. Root writes anywhere: a
# directory in the sidecar's place stands in for the read-only directory.
mkdir -p "$ix/ro"
cp "$ix/e.avro" "$ix/ro/e.avro"
if [ "$(id -u)" -ne 0 ]; then
  chmod 555 "$ix/ro"
  why="Permission denied"
else
  echo "NOTE: running as root: a directory at e.avro.avkidx stands in for a read-only directory"
  mkdir "$ix/ro/e.avro.avkidx"
  why="cannot rename"
fi
run index "$ix/ro/e.avro"
expect_rc 1 "index in a read-only directory" && expect_contains "$err" "the index was not saved" "unsaved index said" &&
  expect_contains "$err" "$why" "why it was not saved"
expect_contains "$out" "20000 records" "the summary still printed"
run index --no-save "$ix/ro/e.avro"
expect_rc 0 "index --no-save in a read-only directory"
run tail -n 3 "$ix/ro/e.avro"
expect_rc 0 "tail in a read-only directory" && expect_eq "$out" "$(tail -n 3 "$ix/all.jsonl")" "tail in a read-only directory"
run tojson --offset 4000 --limit 2 "$ix/ro/e.avro"
expect_rc 0 "tojson --offset in a read-only directory" && expect_eq "$out" "$(sed -n '4001,4002p' "$ix/all.jsonl")" "tojson --offset in a read-only directory"
chmod 755 "$ix/ro"

# ---- interop data -------------------------------------------------------------------

if [ -z "$interop" ] || [ ! -d "$apache" ]; then
  echo "SKIP: interop data not found at '$apache'; the shared apache/avro test data is expected beside the source tree at ../shared/interop"
  # ---- schema resolution: schema compat, tojson and cat --reader-schema ------
cat >"$tmp/rw.avsc" <<'EOF'
{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"string"},
 {"name":"c","type":{"type":"enum","name":"E","symbols":["X","Y"]}}]}
EOF
cat >"$tmp/rr.avsc" <<'EOF'
{"type":"record","name":"R","fields":[{"name":"c","type":{"type":"enum","name":"E","symbols":["Y","X"]}},
 {"name":"aa","aliases":["a"],"type":"double"},{"name":"d","type":"string","default":"dd"}]}
EOF
cat >"$tmp/rbad.avsc" <<'EOF'
{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"age","type":"int"}]}
EOF
run schema compat "$tmp/rw.avsc" "$tmp/rr.avsc"
expect_rc 0 "compat: compatible" && expect_eq "$out" "compatible" "compat verdict"
run schema compat "$tmp/rw.avsc" "$tmp/rbad.avsc"
expect_rc 1 "compat: incompatible" && expect_eq "$out" "incompatible
  reader R.fields[1], writer R: \"age\": no default and not in writer" "compat problem listed"
run schema compat --full "$tmp/rw.avsc" "$tmp/rr.avsc"
expect_rc 1 "compat --full" && expect_eq "$out" "writer -> reader: compatible
reader -> writer: incompatible
  reader R.fields[0], writer R: \"a\": no default and not in writer
  reader R.fields[1], writer R: \"b\": no default and not in writer" "compat --full lists both ways (aliases work reader-side only)"
run schema compat --quiet "$tmp/rw.avsc" "$tmp/rbad.avsc"
expect_rc 1 "compat --quiet" && expect_eq "$out" "" "compat --quiet prints nothing"
run schema compat "$tmp/rw.avsc"
expect_rc 2 "compat with one schema" && expect_contains "$err" "needs WRITER.avsc and READER.avsc" "compat usage"
printf '{"a":1,"b":"x","c":"X"}\n{"a":-2,"b":"y","c":"Y"}\n' >"$tmp/r.json"
run fromjson --schema "$tmp/rw.avsc" "$tmp/r.json" "$tmp/r.avro"
expect_rc 0 "fromjson for resolution"
run tojson --reader-schema "$tmp/rr.avsc" "$tmp/r.avro"
expect_rc 0 "tojson --reader-schema" && expect_eq "$out" '{"c":"X","aa":1.0,"d":"dd"}
{"c":"Y","aa":-2.0,"d":"dd"}' "tojson through the reader schema"
run tojson --reader-schema "$tmp/rbad.avsc" "$tmp/r.avro"
expect_rc 1 "tojson --reader-schema unresolvable" && expect_contains "$err" "\"age\": no default and not in writer" "unresolvable reader schema said"
run cat --reader-schema "$tmp/rr.avsc" "$tmp/r.avro" "$tmp/r.avro" -o "$tmp/rcat.avro"
expect_rc 0 "cat --reader-schema"
run tojson "$tmp/rcat.avro"
expect_rc 0 "tojson of cat --reader-schema" && expect_eq "$out" '{"c":"X","aa":1.0,"d":"dd"}
{"c":"Y","aa":-2.0,"d":"dd"}
{"c":"X","aa":1.0,"d":"dd"}
{"c":"Y","aa":-2.0,"d":"dd"}' "cat wrote the records in the reader schema"

echo "cli_test: $checks checks, $failures failures"
  [ "$failures" -eq 0 ]
  exit
fi

n_valid=0
for f in "$apache"/schemas-valid/*.avsc "$apache"/lang/c/tests/schema_tests/pass/*; do
  run schema check "$f"
  expect_rc 0 "check $f" && expect_eq "$out" "valid" "check $f output"
  n_valid=$((n_valid + 1))
done
n_invalid=0
for f in "$apache"/schemas-invalid/*.json "$apache"/lang/c/tests/schema_tests/fail/*; do
  run schema check "$f"
  expect_rc 1 "check $f (invalid)"
  expect_eq "$out" "" "check $f (invalid) stdout"
  expect_contains "$err" "$f: " "check $f (invalid) names the file"
  n_invalid=$((n_invalid + 1))
done
echo "interop schemas: $n_valid valid, $n_invalid invalid"
[ "$n_valid" -ge 100 ] || fail "only $n_valid valid interop schemas found"
[ "$n_invalid" -ge 30 ] || fail "only $n_invalid invalid interop schemas found"

# The 64-bit Rabin value as the CLI prints it: its 8 bytes, little-endian.
le_hex() {
  local v be i res=""
  v=$(printf '%016x' "$1")
  for ((i = 14; i >= 0; i -= 2)); do
    res+=${v:i:2}
  done
  printf '%s' "$res"
}
expect_eq "$(le_hex 8247732601305521295)" "8f5c393f1ad57572" "le_hex helper"

# share/test/data/schema-tests.txt: <<INPUT (one line, or a block up to a
# line "INPUT"), <<canonical, optional <<fingerprint (signed decimal).
table="$apache/share/test/data/schema-tests.txt"
rows=0
if [ -f "$table" ]; then
  input=""
  canon=""
  state=none
  check_row() {
    local id=$1
    printf '%s' "$input" >"$tmp/row.avsc"
    run schema canonical "$tmp/row.avsc"
    expect_rc 0 "schema-tests $id canonical" && expect_eq "$out" "$canon" "schema-tests $id canonical"
    if [ -n "$fingerprint" ]; then
      run schema fingerprint "$tmp/row.avsc"
      expect_rc 0 "schema-tests $id fingerprint" &&
        expect_eq "$out" "$(le_hex "$fingerprint")" "schema-tests $id fingerprint ($fingerprint)"
    fi
    rows=$((rows + 1))
  }
  id=""
  fingerprint=""
  while IFS= read -r line || [ -n "$line" ]; do
    if [ "$state" = block ]; then
      if [ "$line" = "INPUT" ]; then
        state=none
      else
        input+="$line"$'\n'
      fi
      continue
    fi
    case "$line" in
      "// "[0-9]*)
        if [ -n "$canon" ]; then check_row "$id"; fi
        id=${line#// }
        input=""; canon=""; fingerprint=""
        ;;
      "<<INPUT")
        state=block
        ;;
      "<<INPUT "*)
        input=${line#<<INPUT }
        ;;
      "<<canonical "*)
        canon=${line#<<canonical }
        ;;
      "<<fingerprint "*)
        fingerprint=${line#<<fingerprint }
        ;;
    esac
  done <"$table"
  if [ -n "$canon" ]; then check_row "$id"; fi
  echo "schema-tests.txt: $rows rows"
  [ "$rows" -ge 30 ] || fail "only $rows rows read from schema-tests.txt"
else
  fail "$table missing"
fi

# tables/py_fingerprint_examples.json: canonical form and all three fingerprints.
json_table="$apache/tables/py_fingerprint_examples.json"
if command -v python3 >/dev/null 2>&1 && [ -f "$json_table" ]; then
  python3 - "$json_table" "$tmp/py" <<'EOF'
import json, os, sys

def definitions(node, out):
    """Full names of the named types the canonical form defines, repeats included."""
    if isinstance(node, dict):
        if node.get("type") in ("record", "error", "enum", "fixed") and "name" in node:
            out.append(node["name"])
        for v in node.values():
            definitions(v, out)
    elif isinstance(node, list):
        for v in node:
            definitions(v, out)
    return out

rows = json.load(open(sys.argv[1]))
os.makedirs(sys.argv[2], exist_ok=True)
for i, r in enumerate(rows):
    names = definitions(json.loads(r["canonical_form"]), [])
    if len(names) != len(set(names)):
        # python3-avro writes a named type in full again where it is
        # referenced; the specification (and Java, whose values
        # schema-tests.txt holds) writes its name. Such rows differ by design.
        print("SKIP: py_fingerprint_examples.json row %d: python defines %s twice in its "
              "canonical form" % (i, sorted(n for n in set(names) if names.count(n) > 1)))
        continue
    d = os.path.join(sys.argv[2], "%03d" % i)
    os.makedirs(d)
    with open(os.path.join(d, "schema.avsc"), "w") as f:
        json.dump(r["schema"], f)
    fp = r["fingerprints_hex"]
    for name, text in (("canonical", r["canonical_form"]), ("rabin", fp["CRC-64-AVRO"]),
                       ("md5", fp["MD5"]), ("sha256", fp["SHA-256"])):
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
EOF
  prow=0
  for d in "$tmp"/py/*/; do
    run schema canonical "$d/schema.avsc"
    expect_rc 0 "py row $d canonical" && expect_eq "$out" "$(cat "$d/canonical")" "py row $d canonical"
    for algo in rabin md5 sha256; do
      run schema fingerprint --algo "$algo" "$d/schema.avsc"
      expect_rc 0 "py row $d $algo" && expect_eq "$out" "$(cat "$d/$algo")" "py row $d $algo"
    done
    prow=$((prow + 1))
  done
  echo "py_fingerprint_examples.json: $prow rows"
  [ "$prow" -ge 30 ] || fail "only $prow rows checked from py_fingerprint_examples.json"
else
  echo "SKIP: py_fingerprint_examples.json rows (python3 or the table missing)"
fi

# ---- schema resolution: schema compat, tojson and cat --reader-schema ------
cat >"$tmp/rw.avsc" <<'EOF'
{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"string"},
 {"name":"c","type":{"type":"enum","name":"E","symbols":["X","Y"]}}]}
EOF
cat >"$tmp/rr.avsc" <<'EOF'
{"type":"record","name":"R","fields":[{"name":"c","type":{"type":"enum","name":"E","symbols":["Y","X"]}},
 {"name":"aa","aliases":["a"],"type":"double"},{"name":"d","type":"string","default":"dd"}]}
EOF
cat >"$tmp/rbad.avsc" <<'EOF'
{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"age","type":"int"}]}
EOF
run schema compat "$tmp/rw.avsc" "$tmp/rr.avsc"
expect_rc 0 "compat: compatible" && expect_eq "$out" "compatible" "compat verdict"
run schema compat "$tmp/rw.avsc" "$tmp/rbad.avsc"
expect_rc 1 "compat: incompatible" && expect_eq "$out" "incompatible
  reader R.fields[1], writer R: \"age\": no default and not in writer" "compat problem listed"
run schema compat --full "$tmp/rw.avsc" "$tmp/rr.avsc"
expect_rc 1 "compat --full" && expect_eq "$out" "writer -> reader: compatible
reader -> writer: incompatible
  reader R.fields[0], writer R: \"a\": no default and not in writer
  reader R.fields[1], writer R: \"b\": no default and not in writer" "compat --full lists both ways (aliases work reader-side only)"
run schema compat --quiet "$tmp/rw.avsc" "$tmp/rbad.avsc"
expect_rc 1 "compat --quiet" && expect_eq "$out" "" "compat --quiet prints nothing"
run schema compat "$tmp/rw.avsc"
expect_rc 2 "compat with one schema" && expect_contains "$err" "needs WRITER.avsc and READER.avsc" "compat usage"
printf '{"a":1,"b":"x","c":"X"}\n{"a":-2,"b":"y","c":"Y"}\n' >"$tmp/r.json"
run fromjson --schema "$tmp/rw.avsc" "$tmp/r.json" "$tmp/r.avro"
expect_rc 0 "fromjson for resolution"
run tojson --reader-schema "$tmp/rr.avsc" "$tmp/r.avro"
expect_rc 0 "tojson --reader-schema" && expect_eq "$out" '{"c":"X","aa":1.0,"d":"dd"}
{"c":"Y","aa":-2.0,"d":"dd"}' "tojson through the reader schema"
run tojson --reader-schema "$tmp/rbad.avsc" "$tmp/r.avro"
expect_rc 1 "tojson --reader-schema unresolvable" && expect_contains "$err" "\"age\": no default and not in writer" "unresolvable reader schema said"
run cat --reader-schema "$tmp/rr.avsc" "$tmp/r.avro" "$tmp/r.avro" -o "$tmp/rcat.avro"
expect_rc 0 "cat --reader-schema"
run tojson "$tmp/rcat.avro"
expect_rc 0 "tojson of cat --reader-schema" && expect_eq "$out" '{"c":"X","aa":1.0,"d":"dd"}
{"c":"Y","aa":-2.0,"d":"dd"}
{"c":"X","aa":1.0,"d":"dd"}
{"c":"Y","aa":-2.0,"d":"dd"}' "cat wrote the records in the reader schema"

echo "cli_test: $checks checks, $failures failures"
[ "$failures" -eq 0 ]
