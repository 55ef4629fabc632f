#!/bin/sh
# DESIGN 4 on real traces: the corpus jobs of 20 KB to 1.2 MB (a dozen or more; the smallest say
# little, the largest take long) ingested into one database, every
# analysis of every job equal to that job's database alone, cell for cell (tests/jobs_alone.py).
# env: HTA_SHARED, HTA_INGEST, HTA_EXT.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
: "${HTA_SHARED:=$top/../shared}" "${HTA_INGEST:=$top/hta-ingest}" "${HTA_EXT:=$top/hta.so}"
corpus=$HTA_SHARED/corpus
py=${HTA_PYTHON:-/usr/bin/python3}
"$py" -c 'import sqlite3; sqlite3.connect(":memory:").enable_load_extension(True)' 2>/dev/null \
  || { echo "skip: no Python whose sqlite3 loads extensions"; exit 77; }
work=$(mktemp -d) || exit 2
trap 'rm -rf "$work"' EXIT INT TERM
jobs=$(cd "$corpus" && du -s -- */ | sort -n | awk '$1 >= 20 && $1 <= 1200 { print $2 }' | tr -d /)
pairs=""
for j in $jobs; do
  # a job HTA cannot read at all is still a job here; -q: its ingest issues are not this test's
  $HTA_INGEST -q -j 2 "$work/$j.db" "$corpus/$j" >/dev/null 2>&1
  [ -f "$work/$j.db" ] || continue
  pairs="$pairs $j=$work/$j.db"
  set -- "$@" "$corpus/$j"
done
$HTA_INGEST -q -j 2 "$work/all.db" "$@" >/dev/null 2>&1
n=$(sqlite3 "$work/all.db" "SELECT count(*) FROM job")
echo "summary: jobs alone: $n corpus jobs in one database"
[ "$n" -ge 10 ] || { echo "FAIL: only $n jobs in the database"; exit 1; }
# shellcheck disable=SC2086
"$py" "$top/tests/jobs_alone.py" "$HTA_EXT" "$work/all.db" $pairs
