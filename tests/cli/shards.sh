#!/bin/sh
# Shards (DESIGN.md section 8): a generated 64-rank job ingested at once, and the same
# job ingested as 4 shards (--ranks 0-15 ... 48-63, run in parallel) then merged with
# --merge, give the same database once ids are read for what they mean
# (tools/db_canon.py: every table's rows, the schema and its indexes, trace.min_ts /
# max_end, and the full output of every hta_* analysis of ./hta.so).
# Also: each shard holds exactly its ranks and lists the others as skipped; merging
# the shards again adds nothing.
# not under the sanitizers (tests/run.sh): the same --ranks and --merge code runs under them on
# smaller jobs in shards_examples.sh; this one's 64 ranks ingested five times ran in make test
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
# a directory of its own: the scratch directory is shared with the other tests
work=$(mktemp -d "${TMPDIR:-/tmp}/hta-test.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT INT TERM
cd "$work" || exit 2
# not under valgrind either (tests/run.sh runs a script there only when it uses its wrapper)
ING=$HTA_INGEST
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
fails=0
check() { label=$1; shift; if "$@"; then :; else echo "FAIL: $label"; fails=$((fails + 1)); fi; }

# small: 2 steps, 1 layer (about 19 MB of JSON, 42k events)
python3 "$top/tools/gen_trace.py" job64 --ranks 64 --steps 2 --layers 1 -q || { echo "FAIL: gen_trace"; exit 1; }
$ING -q whole.db job64 || { echo "FAIL: whole ingest"; exit 1; }
for r in 0-15 16-31 32-47 48-63; do
  $ING -j 1 shard-$r.db job64 --ranks $r 2> shard-$r.log &
done
wait
for r in 0-15 16-31 32-47 48-63; do
  lo=${r%-*} hi=${r#*-}
  check "shard $r: its 16 ranks" [ "$(sqlite3 shard-$r.db 'SELECT count(*), min(rank), max(rank) FROM trace')" = "16|$lo|$hi" ]
  check "shard $r: 48 skipped, one line each" [ "$(grep -c ": skipped: rank [0-9]* not in $r\$" shard-$r.log)" = 48 ]
done
$ING -v --merge merged.db shard-0-15.db shard-16-31.db shard-32-47.db shard-48-63.db 2> merge.log; rc=$?
check "merge exit 0" [ $rc = 0 ]
# the first shard is copied page by page (a new output), the other 48 traces row by row
check "merge: first shard copied whole" [ "$(grep -c 'shard-0-15.db: copied whole, page by page (16 traces)$' merge.log)" = 1 ]
check "merge: 48 traces copied" [ "$(grep -c ': copied as trace [0-9]*$' merge.log)" = 48 ]
check "merged: 64 traces, 1 job" [ "$(sqlite3 merged.db 'SELECT count(*), count(DISTINCT job_id) FROM trace')" = "64|1" ]
check "merged: integrity" [ "$(sqlite3 merged.db 'PRAGMA integrity_check')" = ok ]

so=$HTA_EXT; [ -f "$so" ] || so=
python3 "$top/tools/db_canon.py" whole.db $so > whole.txt || { echo "FAIL: db_canon whole"; exit 1; }
python3 "$top/tools/db_canon.py" merged.db $so > merged.txt || { echo "FAIL: db_canon merged"; exit 1; }
if ! cmp -s whole.txt merged.txt; then
  echo "FAIL: whole and merged differ:"; diff whole.txt merged.txt | head -n 20; fails=$((fails + 1))
fi
# the comparison compared something: events, the shifted ids, analyses with rows
check "compared 42k events" [ "$(grep -c '^  \[' whole.txt)" -gt 42000 ]
check "links compared" [ "$(sqlite3 whole.db 'SELECT count(*) FROM event WHERE link_id IS NOT NULL')" -gt 1000 ]
if [ -n "$so" ]; then
  n=$(grep -c '^analysis hta_[a-z_]* [1-9]' whole.txt)
  check "at least 12 analyses with rows ($n)" [ "$n" -ge 12 ]
fi

# merging the same shards again: every trace skipped as already present
$ING --merge merged.db shard-0-15.db 2> again.log; rc=$?
check "merge again exit 0" [ $rc = 0 ]
check "merge again: 16 skipped" [ "$(grep -c 'skipped: already in the output (same content)$' again.log)" = 16 ]
check "merge again: still 64 traces" [ "$(sqlite3 merged.db 'SELECT count(*) FROM trace')" = 64 ]

[ $fails = 0 ] && echo "shards: all checks passed"
[ $fails = 0 ]
