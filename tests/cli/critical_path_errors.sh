#!/bin/sh
# Argument errors of the critical path functions (ext/critical_path/critical_path.c): a bad
# instance_id or a non-text annotation is an error naming the function; an unknown
# annotation is no error (no rows, stats status 'no_annotation'). cwd is scratch.
set -u
fails=0
check() { # check LABEL EXPECTED-SUBSTRING OUTPUT
  case "$3" in *"$2"*) ;; *) echo "FAIL: $1: got: $3"; fails=$((fails + 1)) ;; esac
}
rm -rf cp_err && mkdir cp_err && cd cp_err || exit 1
cat > r0.json <<'J'
{"traceEvents": [
 {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 50},
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 20},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 2, "dur": 5, "args": {"correlation": 7}},
 {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 10, "dur": 30, "args": {"correlation": 7, "stream": 7, "device": 0}}
]}
J
"$HTA_INGEST" -q d.db r0.json || { echo "ingest failed"; exit 1; }
run() { sqlite3 d.db -cmd ".load $HTA_EXT" "$1" 2>&1; }
check inst_text "hta_critical_path: instance_id must be an integer or '[a, b]'" \
  "$(run "SELECT * FROM hta_critical_path('ProfilerStep', 'one')")"
check inst_neg "hta_critical_path_graph: instance_id must be an integer or '[a, b]'" \
  "$(run "SELECT * FROM hta_critical_path_graph('ProfilerStep', -1)")"
check inst_range "hta_critical_path_stats: instance_id must be an integer or '[a, b]'" \
  "$(run "SELECT * FROM hta_critical_path_stats('ProfilerStep', '[2, 1]')")"
check ann_num "hta_critical_path_summary: annotation must be text" \
  "$(run "SELECT * FROM hta_critical_path_summary(1)")"
check zw "hta_critical_path: add_zero_weight_launch_edges must be 0 or 1" \
  "$(run "SELECT * FROM hta_critical_path('ProfilerStep', 0, 2)")"
check unknown "0|no_annotation" "$(run "SELECT count(*) FROM hta_critical_path('Nope'); SELECT rank, status FROM hta_critical_path_stats('Nope')")"
# the one step: aten::mm start -> launch start (1 us), launch delay 2 -> 10 (8 us),
# the kernel (30 us): 4 nodes, 39 us
check path "ok|4|39.0" "$(run "SELECT status, path_nodes, path_length_us FROM hta_critical_path_stats")"
# the job's path (critical_path_job.c): the same arguments, the same messages
check job_inst "hta_critical_path_job: instance_id must be an integer or '[a, b]'" \
  "$(run "SELECT * FROM hta_critical_path_job('ProfilerStep', 'one')")"
check job_ann "hta_critical_path_job_summary: annotation must be text" \
  "$(run "SELECT * FROM hta_critical_path_job_summary(1)")"
check job_stats_rank "hta_critical_path_job_stats: the job's graph spans every rank: no rank to choose" \
  "$(run "SELECT * FROM hta_critical_path_job_stats WHERE rank = 0")"
check job_unknown "0|no rank has a critical path (rank 0: no_annotation)|1" \
  "$(run "SELECT (SELECT count(*) FROM hta_critical_path_job('Nope')), status, ranks_left_out
          FROM hta_critical_path_job_stats('Nope')")"
check job_one_rank "ok|4|39.0|1" "$(run "SELECT status, path_nodes, path_length_us, path_ranks FROM hta_critical_path_job_stats")"
# a database whose string table is gone: an error naming the function and the table, for
# each job function (their traces were once freed before being loaded: fuzz_sql, ASan)
cp d.db broken.db && sqlite3 broken.db "ALTER TABLE string RENAME TO string_old"
for f in hta_critical_path_job hta_critical_path_job_summary hta_critical_path_job_stats; do
  check "broken_$f" "$f: no such table: main.string" \
    "$(sqlite3 broken.db -cmd ".load $HTA_EXT" "SELECT * FROM $f" 2>&1)"
done
[ $fails = 0 ]
