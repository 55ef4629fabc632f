#!/bin/sh
# hta_write_trace_with_counters (ext/io/io_counters.c) against HTA's generate_trace_with_counters
# on the corpus: for every job with trace_counters_rank<r>.csv in $HTA_SHARED/expected/<job>/
# (the small jobs), ingest the job, write rank r's trace with counters, and compare the
# counter events appended at the end of traceEvents with the CSV (expected/README.md 3, 5, 6):
#   - the same number of events, and the same set of keys (counter, name, id, ts), ts exact;
#   - per key, the last value (ties at one ts may come in another order) within 1e-9 relative
#     / 1e-6 absolute; pid equal.
# Bandwidth values of a trace whose copies carry no "memory bandwidth (GB/s)" differ by design
# (memory_bw.c MB-2: we compute bytes / dur where HTA writes 0): for those ranks only the keys
# of "Memcpy BW" events are compared, and the summary says so.
# env: HTA_INGEST, HTA_EXT, HTA_SHARED, HTA_TMP; HTA_IO_JOBS restricts the jobs.
# exit 0 pass, 1 fail, 77 skip (no corpus or no python3).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${HTA_SHARED:=$top/../shared}" "${HTA_INGEST:=$top/hta-ingest}" "${HTA_EXT:=$top/hta.so}"
exp=$HTA_SHARED/expected
if [ ! -d "$HTA_SHARED/corpus" ] || [ ! -d "$exp" ]; then echo "skip: no $HTA_SHARED/corpus"; exit 77; fi
command -v python3 >/dev/null 2>&1 || { echo "skip: no python3"; exit 77; }
work=${HTA_TMP:-$(mktemp -d)}/io_counters
rm -rf "$work" && mkdir -p "$work" || exit 2

cat > "$work/cmp.py" <<'EOF'
# cmp.py OUT N CSV COMPUTED: compare the last N traceEvents of OUT with CSV; prints one line.
import csv, decimal, gzip, json, sys
D = decimal.Decimal
out, n, path, computed = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4] == '1'
op = gzip.open if out.endswith('.gz') else open
with op(out, 'rt', encoding='utf-8') as f:
    doc = json.load(f, parse_float=D, parse_int=D)
events = doc['traceEvents'] if isinstance(doc, dict) else doc
ours = events[len(events) - n:] if n else []
def npid(p):  # 0 == "0" == "0.0"; strings as they are
    try:
        return str(int(D(str(p))))
    except decimal.InvalidOperation:
        return str(p)
def key(counter, name, id_, ts):
    return (counter, name, '' if id_ in (None, '') else str(int(D(id_))), D(ts))
mine, theirs, pid_ok = {}, {}, True
for e in ours:
    assert e['ph'] == 'C', e
    (counter, value), = e['args'].items()
    k = key(counter, e['name'], e.get('id'), e['ts'])
    mine[k] = (float(value), npid(e['pid']))
with open(path, newline='') as f:
    rows = list(csv.DictReader(f))
for r in sorted(rows, key=lambda r: int(r['hta_pos'])):  # HTA's own order: the last value wins
    theirs[key(r['counter'], r['name'], r['id'], r['ts'])] = (float(r['value']), npid(r['pid']))
bad = []
if len(ours) != len(rows):
    bad.append('%d events, expected %d' % (len(ours), len(rows)))
only_ours = set(mine) - set(theirs)
only_theirs = set(theirs) - set(mine)
if only_ours or only_theirs:
    bad.append('keys: %d only ours (e.g. %s), %d only HTA\'s (e.g. %s)' % (
        len(only_ours), sorted(only_ours)[:1], len(only_theirs), sorted(only_theirs)[:1]))
nval = nskip = 0
for k in set(mine) & set(theirs):
    (a, pa), (b, pb) = mine[k], theirs[k]
    if pa != pb:
        bad.append('pid %s vs %s at %s' % (pa, pb, k)); break
    if computed and k[0] == 'Memcpy BW':
        nskip += 1
        continue
    nval += 1
    if abs(a - b) > max(1e-6, 1e-9 * abs(b)):
        bad.append('value %r vs %r at %s' % (a, b, k)); break
print('%s %d %d %d %s' % ('ok' if not bad else 'FAIL', len(ours), nval, nskip, '; '.join(bad)))
EOF

jobs=${HTA_IO_JOBS:-$(cd "$exp" && ls -d */ | tr -d /)}
njobs=0 nranks=0 nev=0 nval=0 nskip=0 fails=0 skipped_ranks=""
for job in $jobs; do
  ls "$exp/$job"/trace_counters_rank*.csv >/dev/null 2>&1 || continue
  [ -d "$HTA_SHARED/corpus/$job" ] || continue
  db=$work/$job.db
  "$HTA_INGEST" -q "$db" "$HTA_SHARED/corpus/$job" 2>"$work/$job.ingest.txt" # non-traces are reported, not fatal
  njobs=$((njobs + 1))
  for csvf in "$exp/$job"/trace_counters_rank*.csv; do
    r=${csvf##*rank}; r=${r%.csv}
    out=$work/$job.rank$r.json.gz
    n=$(sqlite3 "$db" -cmd ".load $HTA_EXT sqlite3_hta_io_init" "SELECT hta_write_trace_with_counters($r, '$out')" 2>&1)
    case $n in
      ''|*[!0-9]*) echo "FAIL $job rank $r: $n"; fails=$((fails + 1)); continue ;;
    esac
    computed=$(sqlite3 "$db" -cmd ".load $HTA_EXT" "SELECT count(*) > 0 FROM hta_memory_bw WHERE rank = $r AND computed_bw")
    res=$(python3 "$work/cmp.py" "$out" "$n" "$csvf" "$computed")
    set -- $res
    nranks=$((nranks + 1)); nev=$((nev + $2)); nval=$((nval + $3)); nskip=$((nskip + $4))
    [ "$4" -gt 0 ] && skipped_ranks="$skipped_ranks $job/$r"
    if [ "$1" = ok ]; then echo "ok   $job rank $r: $2 events, $3 values compared"
    else echo "FAIL $job rank $r: $res"; fails=$((fails + 1)); fi
    rm -f "$out"
  done
  rm -f "$db"
done
echo "summary: io_counters: $njobs jobs, $nranks ranks, $nev counter events, $nval values equal to HTA's, $nskip bandwidth values not compared (bytes/dur, MB-2:${skipped_ranks:- none}), $fails failures"
[ $njobs -gt 0 ] || { echo "skip: no job with trace_counters_rank*.csv"; exit 77; }
[ $fails = 0 ]
