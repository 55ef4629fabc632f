#!/bin/sh
# examples/queries/NN_*.sql on a fresh demo database (the two jobs of make demo: examples/traces
# and examples/recorded_h200): each runs without error and prints rows; 13 (which writes a
# file, through the io entry point) writes its trace with counters. Then the same queries on a
# database whose first job is the recorded one, whose ranks are 1 and 2 (no rank 0): the queries
# that pick one rank pick the first job's lowest rank, whatever it is.
# cupti_flops.sql needs CUPTI counters (tests/sql/cupti_basic.sql checks its pivot).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/hta-test.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT INT TERM
cd "$work" || exit 2
fail=0
"$HTA_INGEST" -q demo.db "$top/examples/traces" "$top/examples/recorded_h200" || { echo "FAIL: ingest the demo"; exit 1; }

# run DB: every numbered query on DB
run() {
  n=0
  for f in "$top"/examples/queries/[0-9][0-9]_*.sql; do
    q=$(basename "$f")
    case $q in 13_*) entry=sqlite3_hta_io_init ;; *) entry="" ;; esac
    rm -f rank*_with_counters.json.gz
    if ! sqlite3 -bail -batch -header "$1" -cmd ".load $HTA_EXT $entry" < "$f" > out.txt 2> err.txt; then
      echo "FAIL: $1 $q: error"; cat err.txt; fail=1; continue
    fi
    if [ -s err.txt ]; then echo "FAIL: $1 $q: wrote to stderr"; cat err.txt; fail=1; fi
    # at least one row: more lines than header lines (every query's first column is job)
    rows=$(grep -c . out.txt)
    heads=$(grep -c '^job|' out.txt)
    if [ "$rows" -le "$heads" ]; then echo "FAIL: $1 $q: no rows"; fail=1; fi
    case $q in
      13_*) [ -s rank${2:-0}_with_counters.json.gz ] || { echo "FAIL: $1 $q: no rank${2:-0}_with_counters.json.gz"; fail=1; } ;;
    esac
    # every query shows the job of its rows
    grep -q '^job|' out.txt || { echo "FAIL: $1 $q: no job column first"; fail=1; }
    n=$((n + 1))
  done
  echo "$1: $n queries"
}
run demo.db 0
[ "$n" -ge 19 ] || { echo "FAIL: only $n numbered queries"; fail=1; }

# The one-rank queries pick the first job's lowest rank: here recorded_h200 first, its ranks
# renumbered 1 and 2 (trace, event and counter carry the rank), then examples/traces.
"$HTA_INGEST" -q --job recorded shifted.db "$top/examples/recorded_h200" || { echo "FAIL: ingest recorded"; exit 1; }
sqlite3 shifted.db "UPDATE trace SET rank = rank + 1; UPDATE event SET rank = rank + 1; UPDATE counter SET rank = rank + 1;" \
  || { echo "FAIL: renumber"; exit 1; }
"$HTA_INGEST" -q shifted.db "$top/examples/traces" || { echo "FAIL: ingest traces after"; exit 1; }
[ "$(sqlite3 shifted.db "SELECT group_concat(rank) FROM (SELECT rank FROM trace WHERE job_id = 1 ORDER BY rank)")" = "1,2" ] \
  || { echo "FAIL: shifted.db's first job has not ranks 1, 2"; exit 1; }
run shifted.db 1
for q in 09 11 13; do
  case $q in 13) entry=sqlite3_hta_io_init ;; *) entry="" ;; esac
  for f in "$top"/examples/queries/${q}_*.sql; do :; done
  got=$(sqlite3 -batch shifted.db -cmd ".load $HTA_EXT $entry" < "$f" | head -n 1 | cut -d'|' -f1,2)
  [ "$got" = "recorded|1" ] || { echo "FAIL: $q on shifted.db: first row '$got', not job recorded, rank 1"; fail=1; }
done
exit $fail
