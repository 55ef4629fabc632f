#!/bin/sh
# DESIGN 4: a database holding several jobs gives, for each job, exactly the rows that job
# gives alone. Three generated jobs (one with a single ProfilerStep beside two with several,
# one of them AMD) are ingested together and each alone; tests/jobs_alone.py compares every
# analysis cell for cell. Then the same through ATTACH: the hidden schema parameter reads
# the attached database (SQLite connects eponymous tables in main whatever they are
# qualified with, so `schema` is how a function is pointed at another database).
# env: HTA_INGEST, HTA_EXT.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
: "${HTA_INGEST:=$top/hta-ingest}" "${HTA_EXT:=$top/hta.so}"
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
work=$(mktemp -d) || exit 2
trap 'rm -rf "$work"' EXIT INT TERM
cd "$work" || exit 2
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
gen() { python3 "$top/tools/gen_trace.py" -q "$@" || fail "gen_trace $*"; }
gen one_step --ranks 2 --steps 1 --layers 2 --seed 3
gen four_steps --ranks 3 --steps 4 --layers 2 --first-step 20 --seed 1
gen amd --ranks 2 --steps 2 --layers 2 --amd --seed 2

$HTA_INGEST -q -j 2 all.db one_step four_steps amd || fail "ingest of the three jobs"
for j in one_step four_steps amd; do
  $HTA_INGEST -q -j 2 "$j.db" "$j" || fail "ingest of $j alone"
done
[ "$(sqlite3 all.db 'SELECT group_concat(name, ",") FROM (SELECT name FROM job ORDER BY job_id)')" = \
  "one_step,four_steps,amd" ] || fail "jobs of all.db: $(sqlite3 all.db 'SELECT name FROM job')"
py=${HTA_PYTHON:-/usr/bin/python3} # a Python whose sqlite3 loads extensions (pyenv builds may not)
if "$py" -c 'import sqlite3; sqlite3.connect(":memory:").enable_load_extension(True)' 2>/dev/null; then
  "$py" "$top/tests/jobs_alone.py" "$HTA_EXT" all.db one_step=one_step.db four_steps=four_steps.db \
    amd=amd.db || fail "a job's analyses differ from the job alone"
else
  echo "note: no Python that loads SQLite extensions: the cell-for-cell comparison is skipped"
fi

# the one-step job is not cut by the others' steps (the cut was database-wide: TR-3)
n=$(sqlite3 all.db -cmd ".load $HTA_EXT" "SELECT count(*) FROM hta_temporal_breakdown WHERE job = 'one_step' AND kernel_time_us > 0")
[ "$n" = 2 ] || fail "one_step has $n ranks with kernel time in all.db, expected 2"

# schema: every analysis of an attached database equals that database's own answer
for f in hta_temporal_breakdown hta_idle_time_breakdown hta_kernel_breakdown hta_queue_length_summary hta_profiler_steps; do
  a=$(sqlite3 main_other.db -cmd ".load $HTA_EXT" -cmd "ATTACH 'four_steps.db' AS s" "SELECT * FROM $f WHERE schema = 's'" 2>&1)
  b=$(sqlite3 four_steps.db -cmd ".load $HTA_EXT" "SELECT * FROM $f")
  [ -n "$b" ] && [ "$a" = "$b" ] || fail "$f WHERE schema = 's' differs from the attached database's own rows"
done
# two attached databases that both hold rank 0: each reads its own
a=$(sqlite3 one_step.db -cmd ".load $HTA_EXT" -cmd "ATTACH 'amd.db' AS x" \
  "SELECT group_concat(round(idle_time_pctg, 6)) FROM hta_temporal_breakdown WHERE rank = 0 AND schema = 'x'")
b=$(sqlite3 amd.db -cmd ".load $HTA_EXT" "SELECT group_concat(round(idle_time_pctg, 6)) FROM hta_temporal_breakdown WHERE rank = 0")
c=$(sqlite3 one_step.db -cmd ".load $HTA_EXT" -cmd "ATTACH 'amd.db' AS x" \
  "SELECT group_concat(round(idle_time_pctg, 6)) FROM hta_temporal_breakdown WHERE rank = 0")
[ "$a" = "$b" ] && [ "$a" != "$c" ] || fail "rank 0 of the attached database: '$a', alone '$b', main '$c'"
# hta_trace_diff across two jobs of one database and across two attached databases
d1=$(sqlite3 all.db -cmd ".load $HTA_EXT" "SELECT count(*), sum(control_counts), sum(test_counts) FROM hta_trace_diff WHERE control_job = 'one_step' AND test_job = 'four_steps'")
d2=$(sqlite3 one_step.db -cmd ".load $HTA_EXT" -cmd "ATTACH 'four_steps.db' AS t" "SELECT count(*), sum(control_counts), sum(test_counts) FROM hta_trace_diff WHERE test_schema = 't'")
[ -n "$d1" ] && [ "$d1" = "$d2" ] || fail "trace diff of two jobs '$d1' vs two databases '$d2'"
case $d1 in 0\|*) fail "trace diff of two jobs has no rows" ;; esac
e=$(sqlite3 all.db -cmd ".load $HTA_EXT" "SELECT * FROM hta_trace_diff WHERE control_job = 'nope'" 2>&1)
case $e in *"control_job 'nope' is not a job of schema main"*) ;; *) fail "unknown job: $e" ;; esac
e=$(sqlite3 all.db -cmd ".load $HTA_EXT" "SELECT * FROM hta_temporal_breakdown WHERE schema = 'nope'" 2>&1)
case $e in *"no database named 'nope'"*) ;; *) fail "unknown schema: $e" ;; esac
[ "$(sqlite3 all.db -cmd ".load $HTA_EXT" "SELECT count(*) FROM hta_temporal_breakdown WHERE job = 'nope'")" = 0 ] \
  || fail "an unknown job gives rows"
[ $fails = 0 ] && echo "ok: jobs alone"
[ $fails = 0 ]
