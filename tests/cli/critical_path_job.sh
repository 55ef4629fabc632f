#!/bin/sh
# The job's critical path across ranks (ext/critical_path/critical_path_job.c CPJ-1..5) on generated
# 4-rank jobs (tools/gen_trace.py) with a planted straggler: a 20 ms 'straggler_delay'
# cpu_op on one rank before its first gradient all-reduce of each step. Every other rank
# waits for it inside that all-reduce; HTA's per-rank path counts that wait as
# communication, the job's path must go through the delay itself. Skips (77) without python3.
# not under the sanitizers (tests/run.sh): tests/sql/critical_path_job.sql runs the same code
# under them on hand-made jobs; these generated ones ran in make test
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
: "${HTA_INGEST:=$top/hta-ingest}" "${HTA_EXT:=$top/hta.so}" "${HTA_TMP:=$(mktemp -d)}"
command -v python3 >/dev/null || { echo "no python3"; exit 77; }
work=$HTA_TMP/critical_path_job
rm -rf "$work"; mkdir -p "$work"
gen() { d=$1; shift; python3 "$top/tools/gen_trace.py" "$work/$d" --ranks 4 --steps 2 --layers 2 -q "$@"; }
gen last --straggler-delay-us 20000
gen second --straggler 1 --straggler-delay-us 20000
gen none
set +e
"$HTA_INGEST" -q "$work/g.db" "$work/last" "$work/second" "$work/none"
q() { sqlite3 -batch "$work/g.db" -cmd ".load $HTA_EXT" "$1"; }
fail=0
check() { # NAME EXPECTED ACTUAL
  if [ "$2" = "$3" ]; then echo "ok $1"; else echo "FAIL $1: expected '$2', got '$3'"; fail=1; fi
}
for j in last:3 second:1; do
  job=${j%:*} r=${j#*:}
  # the delay (20 ms and the op's closing gap of a few us) is on the job's path, on its rank
  check "${job}_delay" "$r|1" "$(q "SELECT rank, weight_us BETWEEN 20000 AND 20010 FROM hta_critical_path_job
                                    WHERE job = '$job' AND name = 'straggler_delay'")"
  # every rank's graph joined at each all-reduce of the first step (4 with 2 layers: a
  # bucket per layer, the embedding's gradient, the loss)
  check "${job}_stats" "ok|4|0|4" "$(q "SELECT status, ranks, ranks_left_out, collectives_joined
                                         FROM hta_critical_path_job_stats WHERE job = '$job'")"
  # HTA's path of rank 0 (not the straggler) counts its wait (>= 15 ms) as communication;
  # on the job's path the all-reduces weigh only their transfers (< 2 ms in all)
  check "${job}_rank0_waits" "1" "$(q "SELECT sum(duration_us) >= 15000 FROM hta_critical_path_summary
                                        WHERE job = '$job' AND rank = 0 AND bound_by = 'gpu_communication_bound'")"
  check "${job}_job_comm" "1" "$(q "SELECT ifnull(sum(duration_us), 0) < 2000 FROM hta_critical_path_job_summary
                                     WHERE job = '$job' AND bound_by = 'gpu_communication_bound'")"
  # the straggler's rank holds most of the job's path
  check "${job}_share" "$r" "$(q "SELECT rank FROM hta_critical_path_job_summary WHERE job = '$job'
                                   GROUP BY rank ORDER BY sum(percentage) DESC LIMIT 1")"
  # consecutive rows join: row k's dst is row k+1's src, across ranks too
  check "${job}_chain" "0" "$(q "SELECT count(*) FROM hta_critical_path_job a JOIN hta_critical_path_job b
                                  ON b.path_pos = a.path_pos + 1 AND b.job = a.job
                                  WHERE a.job = '$job' AND (b.src_event_id <> a.dst_event_id OR b.src_rank <> a.rank)")"
  # the path's length is the sum of its weights
  check "${job}_length" "1" "$(q "SELECT abs(s.path_length_us - (SELECT sum(weight_us) FROM hta_critical_path_job
                                   WHERE job = '$job')) < 1e-6 FROM hta_critical_path_job_stats s WHERE job = '$job'")"
done
check none_delay "0" "$(q "SELECT count(*) FROM hta_critical_path_job WHERE job = 'none' AND name = 'straggler_delay'")"
check none_ok "ok|4" "$(q "SELECT status, ranks FROM hta_critical_path_job_stats WHERE job = 'none'")"
# a job path crosses ranks only through the all-reduce edges
check crossing "critical_path_collective,critical_path_collective_wait" \
  "$(q "SELECT group_concat(DISTINCT edge_type) FROM (SELECT edge_type FROM hta_critical_path_job
        WHERE src_rank <> rank ORDER BY edge_type)")"
exit $fail
