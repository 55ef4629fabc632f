#!/bin/sh
# A plain file read in two halves at once (--split-min) gives the database one reader
# gives, row for row in every table, and the same message when it fails: generated
# rank files, and hand-made traces of what could go wrong at the seam (metadata after
# traceEvents, a bare array, a boundary guessed inside a string, non-object elements,
# B/E events in the second half, bad JSON in either half, a second traceEvents, no
# whitespace at all). -v must say which files were split, so the test knows the
# split happened where it should and fell back where it must. When ../shared/corpus
# exists, each of its traces is unpacked to a temporary .json and compared too (unless
# HTA_CORPUS_CHECKS leaves split_scan out).
# Skips (77) without python3.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
: "${HTA_INGEST:=$top/hta-ingest}" "${HTA_TMP:=$(mktemp -d)}" "${HTA_SHARED:=$top/../shared}"
command -v python3 >/dev/null || { echo "no python3"; exit 77; }
work=$HTA_TMP/split_scan
rm -rf "$work"; mkdir -p "$work"
cd "$work" || exit 2
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ING=$HTA_INGEST

# Every table; names and categories by value: their ids are numbered in the order
# the writer first meets them, which depends on when flows were sent, not on the data.
dump() {
  sqlite3 "$1" "SELECT * FROM trace; SELECT * FROM device ORDER BY 1, 2;
    SELECT value FROM string ORDER BY 1; SELECT name FROM category ORDER BY 1;
    SELECT * FROM thread ORDER BY 1, 2, 3;
    SELECT event_id, trace_id, rank, seq, ph, (SELECT name FROM category WHERE category_id = e.category_id),
      (SELECT value FROM string WHERE string_id = name_id), pid, tid, ts, dur, stream, device,
      correlation, external_id, link_id, parent_id, depth, iteration, args FROM event e ORDER BY 1;
    SELECT * FROM profiler_step ORDER BY 1, 3;
    SELECT counter_id, trace_id, rank, seq, (SELECT value FROM string WHERE string_id = name_id),
      pid, ts, series, value FROM counter ORDER BY 1;
    SELECT flow_id, trace_id, seq, ph, id, (SELECT name FROM category WHERE category_id = f.category_id),
      (SELECT value FROM string WHERE string_id = name_id), pid, tid, ts, bp FROM flow f ORDER BY 1;
    SELECT * FROM ingest_issue ORDER BY 1;" 2>&1 | md5sum
}

# same LABEL FILE SPLIT: one pass and --split-min 1 give the same rows and messages;
# SPLIT says whether the file must have been read in two halves (yes, no, any).
same() {
  label=$1 f=$2 want=$3
  rm -f a.db b.db
  $ING -v --split-min 0 a.db "$f" > /dev/null 2> a.err
  ra=$?
  $ING -v --split-min 1 b.db "$f" > /dev/null 2> b.err
  rb=$?
  [ $ra = $rb ] || { fail "$label: exit $ra in one pass, $rb in two halves"; return; }
  grep -v -e "events (read" -e " ingested" -e "peak RSS" a.err > a.msg
  grep -v -e "events (read" -e " ingested" -e "peak RSS" b.err > b.msg
  cmp -s a.msg b.msg || { fail "$label: messages differ: $(cat a.msg) / $(cat b.msg)"; return; }
  if grep -q "in two halves" b.err; then got=yes; else got=no; fi
  [ "$want" = any ] || [ "$got" = "$want" ] || { fail "$label: split $got, expected $want"; return; }
  if [ "$(dump a.db)" = "$(dump b.db)" ]; then
    echo "$label: split $got, exit $ra, $(sqlite3 a.db "SELECT count(*) FROM event") events, same rows"
  else
    fail "$label: the databases differ"
  fi
}

python3 "$top/tools/gen_trace.py" gen --ranks 2 --steps 3 --target-mb 16 -q || exit 1
for f in gen/*.json; do same "generated $(basename "$f")" "$f" yes; done
# both halves' sorts through the temporary file: the part's runs are read with the whole's
rm -f c.db
TMPDIR=$work "$HTA_INGEST" -v --sort-memory 1 --split-min 1 c.db "$f" 2> c.err
grep -q "in two halves" c.err && ! grep -q " spilled 0.0 MB" c.err ||
  fail "spilled halves: $(head -n 1 c.err)"
[ "$(dump c.db)" = "$(dump a.db)" ] || fail "spilled halves: the databases differ"

# Hand-made traces, each over 1 MiB so that --split-min 1 applies.
python3 - <<'EOF'
import json

def events(n, t0=0, flows=True):
    ev = []
    for k in range(n):
        t = t0 + 100 * k
        ev.append(dict(ph="X", cat="cpu_op", name="op%d" % (k % 7), pid=1, tid=1, ts=t, dur=50,
                       args={"External id": k}))
        ev.append(dict(ph="X", cat="cuda_runtime", name="cudaLaunchKernel", pid=1, tid=1,
                       ts=t + 10, dur=5, args={"correlation": k}))
        ev.append(dict(ph="X", cat="kernel", name="k%d" % (k % 3), pid=0, tid=7, ts=t + 20,
                       dur=30, args={"correlation": k, "stream": 7, "device": 0}))
        if flows:
            ev.append(dict(ph="s", cat="ac2g", name="ac2g", id=k, pid=1, tid=1, ts=t + 10))
            ev.append(dict(ph="f", cat="ac2g", name="ac2g", id=k, pid=0, tid=7, ts=t + 20, bp="e"))
        if k % 500 == 0:
            ev.append(dict(ph="X", cat="cpu_op", name="ProfilerStep#%d" % (k // 500), pid=1,
                           tid=1, ts=t, dur=500 * 100 - 1))
    return ev

def dump(name, text):
    open(name, "w").write(text)

n = 4000
ev = events(n)
# metadata before and after the events (the second distributedInfo wins)
dump("meta_after.json", '{"schemaVersion": 1, "distributedInfo": {"rank": 3, "backend": "gloo"},'
     ' "traceEvents": ' + json.dumps(ev, indent=1) + ', "deviceProperties": [{"id": 0, "name": "X"}],'
     ' "distributedInfo": {"rank": 5, "world_size": 8}, "traceName": "t", "baseTimeNanoseconds": 7}')
dump("bare_array.json", json.dumps(ev, indent=1))
dump("compact.json", json.dumps({"traceEvents": ev}, separators=(",", ":")))
# non-object elements all through (counted in seq), and a metadata event in the second half
mixed = []
for i, e in enumerate(ev):
    mixed.append(e)
    if i % 97 == 0:
        mixed.append([1, {"a": "}, {"}] if i % 2 else 42)
mixed.insert(len(mixed) * 3 // 4, dict(ph="M", name="thread_name", pid=1, tid=1, args={"name": "main"}))
dump("mixed.json", json.dumps({"traceEvents": mixed}, indent=1))
# the middle of the file inside one long string full of boundaries
half = ev[: len(ev) // 2]
trap = dict(ph="X", cat="cpu_op", name="trap", pid=1, tid=1, ts=1, dur=1,
            args={"s": "}, {" * 300000})
dump("string_trap.json", json.dumps({"traceEvents": half + [trap] + ev[len(ev) // 2:]}, indent=1))
# B/E pairs in the second half: the split must give up
be = list(ev)
for k in range(50):
    be.append(dict(ph="B", cat="user", name="b", pid=1, tid=2, ts=10 * k))
    be.append(dict(ph="E", cat="user", name="b", pid=1, tid=2, ts=10 * k + 5))
dump("be_second_half.json", json.dumps({"traceEvents": be}, indent=1))
text = json.dumps({"traceEvents": ev}, indent=1)
# bad JSON in the second half, and in the first
i = text.index('"ph"', len(text) * 3 // 4)
dump("bad_second.json", text[:i] + '"ph": tru' + text[i + 4:])
i = text.index('"ph"', len(text) // 4)
dump("bad_first.json", text[:i] + '"ph": tru' + text[i + 4:])
dump("dup_events.json", text[:-1] + ', "traceEvents": []}')
dump("truncated.json", text[: len(text) * 7 // 8])
EOF

# Under valgrind (make test-valgrind) these four: a join, a part that gives up, a
# part that fails, a wrong guess (the second reader stopped while it runs).
ING="${VG:-} $HTA_INGEST"
same "metadata after traceEvents" meta_after.json yes
[ "$(sqlite3 b.db "SELECT rank, world_size, backend, base_time_ns FROM trace")" = "5|8|gloo|7" ] ||
  fail "metadata after traceEvents: $(sqlite3 b.db "SELECT rank, world_size, backend, base_time_ns FROM trace")"
same "B/E in the second half" be_second_half.json no
same "bad JSON in the second half" bad_second.json no
grep -q "^hta-ingest: bad_second.json: byte [0-9]*: " a.err || fail "bad second half: $(cat a.err)"
same "boundary inside a string" string_trap.json no
ING=$HTA_INGEST
same "bare array" bare_array.json yes
same "no whitespace" compact.json yes
same "non-object elements" mixed.json yes
same "bad JSON in the first half" bad_first.json no
same "a second traceEvents" dup_events.json no
same "truncated" truncated.json no
"$HTA_INGEST" --split-min x x.db meta_after.json > /dev/null 2>&1
[ $? = 2 ] || fail "--split-min x is not a usage error"

# (HTA_CORPUS_CHECKS, tests/run.sh: a run naming its corpus checks without split_scan, as
# CI's sanitizer step does, leaves this pass out: it reads every corpus trace twice)
case " ${HTA_CORPUS_CHECKS:-split_scan} " in *" split_scan "*) corpus=1 ;; *) corpus=0 ;; esac
if [ $corpus = 1 ] && [ -d "$HTA_SHARED/corpus" ]; then
  n=0 split=0
  for f in $(find "$HTA_SHARED/corpus" -name '*.json*' -type f | sort); do
    case $f in
    *.gz) gzip -dc "$f" > t.json 2> /dev/null || continue ;;
    *) cp "$f" t.json ;;
    esac
    same "corpus $(basename "$(dirname "$f")")/$(basename "$f")" t.json any
    n=$((n + 1))
    grep -q "in two halves" b.err && split=$((split + 1))
  done
  echo "corpus: $n traces compared, $split read in two halves"
fi

echo "split_scan: $fails failures"
[ $fails = 0 ]
