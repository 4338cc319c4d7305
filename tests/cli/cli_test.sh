#!/usr/bin/env bash
# Runs the avrokit CLI: help and usage errors, interop schemas, canonical forms and fingerprints against the apache/avro tables.
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
[[ "$out" =~ ^avrokit\ [0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "--version printed '$out'"

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

# ---- interop data -------------------------------------------------------------------

if [ -z "$interop" ] || [ ! -d "$apache" ]; then
  echo "SKIP: interop data not found at '$apache'; the shared apache/avro test data is expected beside the source tree at ../shared/interop"
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

echo "cli_test: $checks checks, $failures failures"
[ "$failures" -eq 0 ]
