#!/bin/sh
# hta_trace_events(path) (ext/io/io_events.c EV-n): a raw trace file as a table, plain and
# gzip, both layouts, the value rules, and errors with the file and the byte offset.
# cwd is a scratch directory; HTA_EXT is the extension under test.
set -u
fails=0
VG=${VG:-}
check() { # check LABEL CONDITION...
  label=$1; shift
  if "$@"; then :; else echo "FAIL: $label"; fails=$((fails + 1)); fi
}
# vgrun CMD...: runs CMD, prints its stdout and stderr without valgrind's own lines; a
# valgrind error (exit 99 under HTA_VALGRIND=1) is recorded in vg_errors and fails the test.
vgrun() {
  "$@" > vg.out 2>&1
  [ $? = 99 ] && [ -n "$VG" ] && echo "$*" >> vg_errors
  grep -v '^==[0-9]*==' vg.out
}
has() { echo "$2" | grep -q -- "$1" || { echo "  got: $2"; return 1; }; } # has PATTERN TEXT
# ev SQL...: the io entry point on an in-memory database; stdout and stderr together
ev() { vgrun $VG sqlite3 :memory: -cmd ".load $HTA_EXT sqlite3_hta_io_init" "$@"; }
rm -rf io_ev && mkdir io_ev && cd io_ev || exit 1

cat > t.json <<'J'
{"deviceProperties": [{"id": 0}],
 "traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 10, "tid": "main", "ts": 1000, "dur": 500.25, "args": {"a": [1, 2.50, {"b": null}], "s": "x\ny\u00e9"}},
  7,
  {"name": "k", "ph": "X", "cat": "kernel", "pid": 1.5, "tid": 99999999999999999999, "ts": 1.682725898110321e15, "dur": "12", "args": {}},
  {"ph": "i", "ph": "C", "name": null, "cat": {"x": 1}, "ts": -5, "args": 3},
  [1, 2],
  {}
 ],
 "traceName": "t"}
J
gzip -c t.json > t.json.gz
cp t.json.gz t_gz_named.json   # gzip is told by magic bytes, not by the name
printf '[{"ph": "X", "ts": 1, "name": "a"}, {"ph": "X", "ts": 2, "name": "b"}]' > arr.json

# EV-1: one row per object element, seq counts every element
check "rows and seqs" [ "$(ev "SELECT group_concat(seq, ',') FROM hta_trace_events('t.json')")" = "0,2,3,5" ]
# EV-2, EV-3, EV-4: the value rules
check "row 0" [ "$(ev "SELECT ph, cat, name, pid, typeof(pid), tid, typeof(tid), ts_us, typeof(ts_us), dur_us, args FROM hta_trace_events('t.json') WHERE seq = 0")" = \
  'X|cpu_op|aten::mm|10|integer|main|text|1000.0|real|500.25|{"a":[1,2.50,{"b":null}],"s":"x\ny'"$(printf '\303\251')"'"}' ]
check "row 2" [ "$(ev "SELECT name, typeof(pid), pid, typeof(tid), ts_us = 1.682725898110321e15, dur_us IS NULL, args FROM hta_trace_events('t.json') WHERE seq = 2")" = 'k|real|1.5|real|1|1|{}' ]
check "row 3: last ph wins, NULL name, object cat, non-object args" [ "$(ev "SELECT ph, name IS NULL, cat IS NULL, ts_us, dur_us IS NULL, args FROM hta_trace_events('t.json') WHERE seq = 3")" = 'C|1|1|-5.0|1|3' ]
check "row 5: empty object" [ "$(ev "SELECT ph IS NULL AND ts_us IS NULL AND args IS NULL FROM hta_trace_events('t.json') WHERE seq = 5")" = 1 ]
check "args is JSON" [ "$(ev "SELECT json_extract(args, '\$.a[2].b') IS NULL AND json_extract(args, '\$.a[1]') = 2.5 FROM hta_trace_events('t.json') WHERE seq = 0")" = 1 ]
# gzip and plain give the same table
check "gz = plain" [ "$(ev "SELECT count(*) FROM (SELECT * FROM hta_trace_events('t.json') EXCEPT SELECT * FROM hta_trace_events('t.json.gz'))")" = 0 ]
check "gz by magic" [ "$(ev "SELECT count(*) FROM hta_trace_events('t_gz_named.json')")" = 4 ]
check "bare array" [ "$(ev "SELECT group_concat(seq || name, ',') FROM hta_trace_events('arr.json')")" = "0a,1b" ]
check "named argument" [ "$(ev "SELECT count(*) FROM hta_trace_events WHERE path = 'arr.json'")" = 2 ]
check "path column" [ "$(ev "SELECT DISTINCT path FROM hta_trace_events('arr.json')")" = arr.json ]
check "join drives the path" [ "$(ev "SELECT count(*) FROM (SELECT 'arr.json' AS p UNION ALL SELECT 't.json') f, hta_trace_events(f.p)")" = 6 ]

# EV-5: errors name the file and the byte offset (offset in the uncompressed JSON)
printf '{"traceEvents": [{"ph": "X", "ts": 1}, {"ph": "X", "ts": 2,]}' > bad.json
# the ']' at byte 59 (0-based) where a key should be; the row before it comes out first
r=$(ev "SELECT seq FROM hta_trace_events('bad.json')")
check "bad: the rows before the error" has '^0$' "$r"
check "bad: the error" has '^Error: stepping, hta_trace_events: bad.json: byte 59: expected a string key$' "$r"
head -c 60 t.json.gz > trunc.json.gz
r=$(ev "SELECT count(*) FROM hta_trace_events('trunc.json.gz')")
check "truncated gzip" has 'hta_trace_events: trunc.json.gz: byte [0-9]*: truncated gzip stream' "$r"
r=$(ev "SELECT count(*) FROM hta_trace_events('nope.json')")
check "missing file" [ "$r" = "Error: stepping, hta_trace_events: nope.json: byte 0: cannot open: No such file or directory" ] || echo "  got: $r"
echo '{"a": 1}' > nt.json
r=$(ev "SELECT count(*) FROM hta_trace_events('nt.json')")
check "not a trace" [ "$r" = "Error: stepping, hta_trace_events: nt.json: byte 7: not a Kineto trace: no traceEvents array" ] || echo "  got: $r"
printf '{"traceEvents": [], "traceEvents": []}' > dup.json
r=$(ev "SELECT count(*) FROM hta_trace_events('dup.json')")
check "duplicate traceEvents" [ "$r" = 'Error: stepping, hta_trace_events: dup.json: byte 20: duplicate "traceEvents"' ] || echo "  got: $r"
printf '{"traceEvents": {}}' > obj.json
r=$(ev "SELECT count(*) FROM hta_trace_events('obj.json')")
check "traceEvents not an array" [ "$r" = 'Error: stepping, hta_trace_events: obj.json: byte 16: wrong type: "traceEvents" must be an array' ] || echo "  got: $r"
printf '[{"ph": "X"}] x' > trail.json
r=$(ev "SELECT count(*) FROM hta_trace_events('trail.json')")
check "trailing data" has 'hta_trace_events: trail.json: byte 14: ' "$r"
: > empty.json
r=$(ev "SELECT count(*) FROM hta_trace_events('empty.json')")
check "empty file" has 'hta_trace_events: empty.json: byte 0: empty file' "$r"
check "directory" has 'hta_trace_events: \.: byte 0: cannot read: Is a directory' "$(ev "SELECT count(*) FROM hta_trace_events('.')")"
r=$(ev "SELECT count(*) FROM hta_trace_events")
check "path required" [ "$r" = "Error: in prepare, hta_trace_events: path is required" ] || echo "  got: $r"
r=$(ev "SELECT count(*) FROM hta_trace_events(NULL)")
check "NULL path" [ "$r" = "Error: stepping, hta_trace_events: path must be a string" ] || echo "  got: $r"
# the error does not stick to the cursor: the next statement works
check "after an error" [ "$(printf "SELECT count(*) FROM hta_trace_events('bad.json');\nSELECT count(*) FROM hta_trace_events('arr.json');\n" | vgrun $VG sqlite3 :memory: -cmd ".load $HTA_EXT sqlite3_hta_io_init" | tail -n 1)" = 2 ]

# EV-6 streaming: a generated 200k-event trace is read without trouble
awk 'BEGIN { printf "{\"traceEvents\": ["; for (i = 0; i < 200000; i++) printf "%s{\"ph\": \"X\", \"name\": \"e%d\", \"ts\": %d.5, \"dur\": 1, \"args\": {\"i\": %d}}", (i ? "," : ""), i, i, i; print "]}" }' > big.json
gzip -c big.json > big.json.gz
check "big count and sums" [ "$(ev "SELECT count(*), sum(ts_us), max(seq), sum(json_extract(args, '\$.i')) FROM hta_trace_events('big.json.gz')")" = "200000|20000000000.0|199999|19999900000" ]

[ -s vg_errors ] && { echo "FAIL: valgrind errors in:"; cat vg_errors; fails=$((fails + 1)); }
[ $fails = 0 ] || { echo "$fails failures"; exit 1; }
exit 0
