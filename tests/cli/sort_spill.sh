#!/bin/sh
# Derive's sorts give the same database whether they stay in memory or go through the
# temporary file: a generated job (with a backward thread, B/E-free) and a hand-written
# trace of odd cases (B/E pairs, unmatched B and E, GPU rows linked to GPU rows, a
# "## backward ##" marker) are ingested with the default --sort-memory and with
# --sort-memory 1 (every sort spills), and every row of event, trace and ingest_issue
# (and profiler_step) must match (-j 1: the same trace ids). When ../shared/corpus exists, its three largest files are compared too.
# Also: a --sort-memory out of range is a usage error, and an unwritable TMPDIR fails
# the file with a message naming the temporary file, leaving the other files in.
# Skips (77) without python3.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
: "${HTA_INGEST:=$top/hta-ingest}" "${HTA_TMP:=$(mktemp -d)}" "${HTA_SHARED:=$top/../shared}"
command -v python3 >/dev/null || { echo "no python3"; exit 77; }
work=$HTA_TMP/sort_spill
rm -rf "$work"; mkdir -p "$work"
cd "$work" || exit 2
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

python3 "$top/tools/gen_trace.py" gen --ranks 2 --steps 3 --target-mb 12 -q || exit 1
# odd.json: a block of odd cases, repeated 4000 times 2000 us apart (so that it spills)
python3 - <<'EOF'
import json
ev = []
for k in range(4000):
    t, c = 2000 * k, 10 * k
    def X(cat, name, tid, ts, dur, **a):
        e = dict(ph="X", cat=cat, name=name, pid=0 if cat in ("kernel", "gpu_memcpy") else 1,
                 tid=tid, ts=t + ts, dur=dur)
        if a:
            e["args"] = a
        ev.append(e)
    X("cpu_op", "ProfilerStep#%d" % k, 1, 0, 1000)
    X("cpu_op", "## backward ##", 1, 500, 400)
    X("cpu_op", "autograd::engine::evaluate_function: X", 2, 600, 100)
    X("cpu_op", "aten::mul", 2, 610, 50)
    X("cuda_runtime", "cudaLaunchKernel", 2, 620, 10, correlation=c + 5)
    X("kernel", "k", 7, 700, 20, correlation=c + 5, stream=7, device=0)
    X("kernel", "k2", 7, 730, 20, correlation=c + 6, stream=7, device=0)
    X("gpu_memcpy", "m", 8, 760, 20, correlation=c + 6, stream=-1, device=0)
    X("cpu_op", "neg", 1, 200, -5)
    for ph, name, tid, ts in (("B", "b1", 3, 100), ("B", "b2", 3, 150), ("E", "b2", 3, 180),
                              ("E", "e-alone", 4, 190)):
        ev.append(dict(ph=ph, cat="user", name=name, pid=1, tid=tid, ts=t + ts))
    ev.append(dict(ph="i", cat="cpu_instant_event", name="mark", pid=1, tid=1, ts=t + 1500, s="t"))
json.dump({"traceEvents": ev}, open("odd.json", "w"))
EOF

dump() {
  sqlite3 "$1" "SELECT * FROM event ORDER BY event_id;
    SELECT trace_id, rank, content_hash, device_type, event_count, min_ts, max_end FROM trace
      ORDER BY trace_id;
    SELECT * FROM profiler_step ORDER BY trace_id, event_id;
    SELECT * FROM ingest_issue ORDER BY 1, 2, 3;" 2>&1 | md5sum
}

# same LABEL PATH...: default and --sort-memory 1 give the same rows
same() {
  label=$1; shift
  rm -f a.db b.db
  "$HTA_INGEST" -q -j 1 a.db "$@" 2> a.err || { fail "$label: default: $(head -n 3 a.err)"; return; }
  TMPDIR=$work "$HTA_INGEST" -v -j 1 --sort-memory 1 b.db "$@" 2> b.err ||
    { fail "$label: --sort-memory 1: $(head -n 3 b.err)"; return; }
  grep -q " spilled" b.err && ! grep -q " spilled 0.0 MB" b.err ||
    fail "$label: not every file spilled: $(grep spilled b.err)"
  n=$(sqlite3 a.db "SELECT count(*) FROM event")
  if [ "$(dump a.db)" = "$(dump b.db)" ]; then echo "$label: $n events, same rows"
  else fail "$label: the databases differ"; fi
}

same "generated job" gen
same "odd cases" odd.json
# Hand-computed, per block: depths 0 step, 1 neg and "## backward ##", 2 the backward
# root under it, 3 aten::mul, 4 the launch, 5 its kernel (sum 16; others NULL); parents
# for those but the step (6); links launch <-> k and k2 <-> m (4); no dur for b1, the
# lone E and the instant (3); iterations for the 9 host rows inside the step and the
# kernel through its launch, none for k2 and m, linked to each other (10).
q="SELECT count(*), sum(depth), sum(parent_id IS NOT NULL), sum(link_id IS NOT NULL),
     sum(dur IS NULL), sum(iteration IS NOT NULL) FROM event"
got=$(sqlite3 a.db "$q")
[ "$got" = "52000|64000|24000|16000|12000|40000" ] || fail "odd cases: [$got]"
ls "$work" | grep -q '^hta-sort-' && fail "a temporary file was left in $work"

if [ -d "$HTA_SHARED/corpus" ]; then
  big=$(find "$HTA_SHARED/corpus" -name '*.json*' -type f -size +1M -exec ls -S {} + 2>/dev/null | head -n 3)
  for f in $big; do same "corpus $(basename "$(dirname "$f")")/$(basename "$f")" "$f"; done
fi

"$HTA_INGEST" --sort-memory 0 x.db odd.json > /dev/null 2>&1
[ $? = 2 ] || fail "--sort-memory 0 is not a usage error"

# An unusable TMPDIR fails the file that needs it, with the reason; the others land.
rm -f c.db
echo '{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 2}]}' > small.json
TMPDIR=$work/none "$HTA_INGEST" -q -j 1 --sort-memory 1 c.db small.json odd.json 2> c.err
rc=$?
[ $rc = 1 ] || fail "unusable TMPDIR: exit $rc, expected 1"
grep -q "^hta-ingest: odd.json: temporary file in $work/none: cannot create: " c.err || fail "unusable TMPDIR: $(head -n 2 c.err)"
[ "$(sqlite3 c.db "SELECT count(*) FROM trace")" = 1 ] || fail "unusable TMPDIR: small.json not kept"

echo "sort_spill: $fails failures"
[ $fails = 0 ]
