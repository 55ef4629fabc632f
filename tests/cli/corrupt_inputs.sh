#!/bin/sh
# Corrupt input never crashes hta-ingest and never costs data (DESIGN 7, README "hta-ingest").
# A database holds two good generated traces (plain and gzip); then each corrupt file is
# ingested into it on its own. Every case must:
#   C1 exit with status 1,
#   C2 print "hta-ingest: FILE: byte N: what" (N within the uncompressed input; 0 for
#      what is found before any byte is decoded: an empty file, a directory),
#   C3 leave a database that passes PRAGMA integrity_check,
#   C4 leave every previously ingested file with exactly its rows (event, counter, flow,
#      profiler_step, thread, device, string, category: nothing added, nothing lost).
# The cases: truncation at 16 offsets (plain and gzip), 8 single-byte flips each, a gzip
# member followed by garbage, empty files, a 0-byte .gz, a directory named x.json, valid
# JSON that is not a trace, 100k '[' (and deep nesting inside an event), numbers beyond
# int64 and doubles beyond range, invalid UTF-8 and lone surrogates in names. Then all of
# them at once beside a new good file (-j 2): exit 1, one message each, the good one lands.
# (Valid traces with extreme times are extreme_times.sh.)
set -u
command -v python3 >/dev/null || { echo "python3 needed to generate traces"; exit 77; }
top=$(cd "$(dirname "$0")/../.." && pwd)
ING="${VG:-} $HTA_INGEST"
fails=0 cases=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

work=$(mktemp -d "${HTA_TMP:-/tmp}/corrupt.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT INT TERM
cd "$work" || exit 2
python3 "$top/tools/gen_trace.py" gen --ranks 2 --steps 2 --layers 2 -q || exit 1
mkdir -p base c
cp gen/rank0.pt.trace.json base/rank0.json
gzip -c gen/rank1.pt.trace.json > base/rank1.json.gz
$HTA_INGEST -q t.db base || { echo "the good traces did not ingest"; exit 1; }

# Everything a failed file must not change, one line per trace plus the shared tables.
snapshot() {
  sqlite3 "$1" "SELECT t.file_name, t.event_count,
      (SELECT count(*) FROM event WHERE event_id BETWEEN t.trace_id << 32 AND (t.trace_id << 32) | 0xffffffff),
      (SELECT count(*) FROM counter WHERE trace_id = t.trace_id),
      (SELECT count(*) FROM flow WHERE trace_id = t.trace_id),
      (SELECT count(*) FROM profiler_step WHERE trace_id = t.trace_id),
      (SELECT count(*) FROM thread WHERE trace_id = t.trace_id),
      (SELECT count(*) FROM device WHERE trace_id = t.trace_id)
    FROM trace t ORDER BY t.trace_id;
    SELECT 'all', (SELECT count(*) FROM event), (SELECT count(*) FROM string), (SELECT count(*) FROM category),
      (SELECT count(*) FROM counter), (SELECT count(*) FROM flow)"
}
snapshot t.db > ref.txt
[ "$(wc -l < ref.txt)" = 3 ] || { echo "unexpected reference:"; cat ref.txt; exit 1; }

# expect FILE [_ MAX]: ingest FILE alone into t.db and check C1-C4 (offset <= MAX if given).
expect() {
  f=$1
  cases=$((cases + 1))
  # under valgrind every other case (the others ran under ASan and plain): half the step
  ing=$ING
  [ -n "${VG:-}" ] && [ $((cases % 2)) = 0 ] && ing=$HTA_INGEST
  $ing -q t.db "$f" > out.txt 2> err.txt; rc=$?
  [ $rc = 1 ] || fail "$f: exit $rc, expected 1 ($(head -c 300 err.txt))"
  sanitizer err.txt && fail "$f: $(grep -m 1 -e 'runtime error' -e 'Sanitizer' -e 'ERROR SUMMARY' err.txt)"
  line=$(grep "^hta-ingest: $f: byte [0-9][0-9]*: " err.txt | head -n 1)
  if [ -z "$line" ]; then
    fail "$f: no message with file and byte offset: $(head -c 300 err.txt)"
  else
    off=$(printf '%s\n' "$line" | sed 's/^[^:]*: [^:]*: byte \([0-9]*\):.*/\1/')
    max=${3:-}
    [ -z "$max" ] || [ "$off" -le "$max" ] || fail "$f: offset $off beyond the input ($max bytes): $line"
  fi
  [ "$(sqlite3 t.db 'PRAGMA integrity_check')" = ok ] || fail "$f: integrity_check"
  snapshot t.db > now.txt
  cmp -s ref.txt now.txt || { fail "$f: the database changed"; diff ref.txt now.txt | head -n 10; }
  [ "$(sqlite3 t.db "SELECT count(*) FROM ingest_issue WHERE code = 'file_failed' AND example = '$f'")" -ge 1 ] ||
    fail "$f: failure not recorded in ingest_issue"
}

# 0 when FILE holds a sanitizer or valgrind report (UBSan exits 1 too, like a failed file).
sanitizer() { grep -q -e 'runtime error' -e 'Sanitizer' -e 'ERROR SUMMARY: [1-9]' "$1"; }

# Byte at OFFSET of FILE XOR VALUE, written to OUT (dd: no python per case).
flip() { # flip FILE OFFSET XOR OUT
  cp "$1" "$4"
  b=$(od -An -tu1 -j "$2" -N 1 "$1" | tr -d ' ')
  printf "\\$(printf '%03o' $((b ^ $3)))" | dd of="$4" bs=1 seek="$2" conv=notrunc 2>/dev/null
}

plain=gen/rank0.pt.trace.json
sed 's/"rank": 0/"rank": 5/' "$plain" > c.json # a new content (hash) that is otherwise the same trace
psize=$(wc -c < c.json)
gzip -9 -c c.json > c.json.gz
gsize=$(wc -c < c.json.gz)

# 1. truncation at 16 offsets, plain and gzip (the offset of a cut gzip is in the JSON text)
i=1
while [ $i -le 16 ]; do
  head -c $((psize * i / 17)) c.json > "c/trunc$i.json"
  expect "c/trunc$i.json" "" $((psize * i / 17))
  head -c $((gsize * i / 17)) c.json.gz > "c/trunc$i.json.gz"
  expect "c/trunc$i.json.gz" "" "$psize"
  i=$((i + 1))
done

# 2. single-byte flips: XOR 0x80 always breaks JSON text (an ASCII byte becomes a byte that
#    is not valid UTF-8 where it lands, and a non-ASCII one leaves a broken sequence); in the
#    gzip file any change after the header breaks the deflate data or its CRC.
i=1
while [ $i -le 8 ]; do
  o=$((psize * (2 * i - 1) / 16))
  flip c.json $o 128 "c/flip$i.json"
  expect "c/flip$i.json" "" "$psize"
  o=$((20 + (gsize - 20) * (2 * i - 1) / 16))
  flip c.json.gz $o 1 "c/flip$i.json.gz"
  expect "c/flip$i.json.gz" "" "$psize"
  i=$((i + 1))
done

# 3. a gzip member followed by garbage; a gzip member with a second, truncated one
{ cat c.json.gz; printf 'garbage\n'; } > c/garbage.json.gz
expect c/garbage.json.gz "" "$psize"
{ cat c.json.gz; head -c 30 base/rank1.json.gz; } > c/member2.json.gz
expect c/member2.json.gz

# 4. empty files, a 0-byte .gz, a directory named x.json (found in a directory listing: a
#    directory, not a trace; with nothing else there, the directory has nothing to ingest)
: > c/empty.json
expect c/empty.json "" 0
: > c/empty.json.gz
expect c/empty.json.gz "" 0
mkdir -p dir/x.json
cases=$((cases + 1))
$ING -q t.db dir > out.txt 2> err.txt; rc=$?
[ $rc = 1 ] || fail "dir/x.json: exit $rc, expected 1"
grep -q "^hta-ingest: dir: nothing to ingest: " err.txt || fail "dir/x.json: no 'nothing to ingest': $(cat err.txt)"
snapshot t.db > now.txt
cmp -s ref.txt now.txt || fail "dir/x.json: the database changed"

# 5. valid JSON that is not a trace
printf '{"name": "not a trace", "events": [1, 2]}\n' > c/notrace.json
expect c/notrace.json
printf '42\n' > c/number.json
expect c/number.json
printf '{"traceEvents": {"ph": "X"}}\n' > c/wrongtype.json
expect c/wrongtype.json

# 6. deep nesting: 100k '[' at the top, and under an event's args
python3 -c "import sys; sys.stdout.write('[' * 100000)" > c/deep.json
expect c/deep.json "" 100000
python3 -c "import sys; sys.stdout.write('{\"traceEvents\": [{\"ph\": \"X\", \"args\": ' + '{\"a\": [' * 50000 + '1' + ']}' * 50000 + '}]}')" > c/deep_args.json
expect c/deep_args.json

# 7. numbers beyond int64 and doubles beyond range
ev() { printf '{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 1},\n%s]}\n' "$1"; }
ev '{"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": 9223372036854775808, "dur": 1}' > c/ts_int64.json
expect c/ts_int64.json
ev '{"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": 9223372036854775.808, "dur": 1}' > c/ts_ns_int64.json
expect c/ts_ns_int64.json
ev '{"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": 1, "dur": -99999999999999999999999}' > c/dur_neg.json
expect c/dur_neg.json
ev '{"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": 1e999, "dur": 1}' > c/ts_double.json
expect c/ts_double.json
ev '{"ph": "X", "name": "b", "pid": 18446744073709551616, "tid": 1, "ts": 1, "dur": 1}' > c/pid.json
expect c/pid.json
ev '{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 1, "args": {"stream": 7, "correlation": 99999999999999999999}}' > c/corr.json
expect c/corr.json
ev '{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 1, "args": {"stream": -1e300}}' > c/stream.json
expect c/stream.json
ev '{"ph": "C", "name": "mem", "pid": 1, "ts": 1, "args": {"bytes": 1e309}}' > c/counter.json
expect c/counter.json

# 8. invalid UTF-8 (a stray byte, overlong, an encoded surrogate, a cut sequence, beyond
#    U+10FFFF, a lone continuation byte) and lone surrogates in names
n=0
for s in 'a\377b' '\300\257' '\355\240\200' '\342\202' '\364\220\200\200' 'x\200'; do
  n=$((n + 1))
  b=$(printf "$s")
  ev "{\"ph\": \"X\", \"name\": \"$b\", \"pid\": 1, \"tid\": 1, \"ts\": 2, \"dur\": 1}" > "c/utf8_$n.json"
  expect "c/utf8_$n.json"
done
for s in '\ud800' '\udc00' 'a\ud800\u0041' '\ud83d' '\ude00\ud83d'; do
  n=$((n + 1))
  ev "{\"ph\": \"X\", \"name\": \"$s\", \"pid\": 1, \"tid\": 1, \"ts\": 2, \"dur\": 1}" > "c/surrogate_$n.json"
  expect "c/surrogate_$n.json"
done
printf '{"traceEvents": [], "\377": 1}' > c/utf8_key.json
expect c/utf8_key.json

# 9. every case at once beside a new good file: exit 1, one message per bad file, the good one lands
cp base/rank0.json c/zgood.json
printf ' ' >> c/zgood.json # new content
nbad=$(ls c | grep -c -v zgood)
$ING -j 2 -q t.db c > out.txt 2> err.txt; rc=$?
cases=$((cases + 1))
[ $rc = 1 ] || fail "all at once: exit $rc, expected 1"
[ "$(grep -c '^hta-ingest: c/' err.txt)" = "$nbad" ] || fail "all at once: $(grep -c '^hta-ingest: c/' err.txt) messages for $nbad bad files"
[ "$(sqlite3 t.db "SELECT count(*) FROM trace WHERE file_name = 'c/zgood.json'")" = 1 ] || fail "all at once: the good file did not land"
[ "$(sqlite3 t.db 'PRAGMA integrity_check')" = ok ] || fail "all at once: integrity_check"
snapshot t.db | grep -v -e '^c/zgood.json|' -e '^all|' > now.txt
grep -v '^all|' ref.txt | cmp -s - now.txt || fail "all at once: earlier files changed"

echo "corrupt_inputs: $cases cases, $fails failures"
[ $fails = 0 ]
