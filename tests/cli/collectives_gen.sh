#!/bin/sh
# Collectives on a generated 8-rank job (tools/gen_trace.py, straggler rank 5): every
# all-reduce kernel is matched across all 8 ranks in process group "0" (collectives.c
# COL-6), with metadata from the kernel (COL-3), and the straggler shows: rank 5 starts
# last in most instances and waits least in all (collectives_out.c CO-2, CO-5).
# 6 layers: with 2, the straggler's 3% slower GPU is lost in the ranks' random skews.
# Skips (77) without python3.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
: "${HTA_INGEST:=$top/hta-ingest}" "${HTA_EXT:=$top/hta.so}" "${HTA_TMP:=$(mktemp -d)}"
command -v python3 >/dev/null || { echo "no python3"; exit 77; }
work=$HTA_TMP/collectives_gen
rm -rf "$work"; mkdir -p "$work"
python3 "$top/tools/gen_trace.py" "$work/job" --ranks 8 --straggler 5 --steps 2 --layers 6 -q
"$HTA_INGEST" -q "$work/g.db" "$work/job"
q() { sqlite3 -batch "$work/g.db" -cmd ".load $HTA_EXT" "$1"; }
fail=0
check() { # NAME EXPECTED ACTUAL
  if [ "$2" = "$3" ]; then echo "ok $1"; else echo "FAIL $1: expected '$2', got '$3'"; fail=1; fi
}
# every kernel has its metadata from the kernel; 8 ranks x the same count
check kernels_source "kernel" "$(q "SELECT group_concat(DISTINCT metadata_source) FROM hta_collectives")"
check kernels_per_rank "1" "$(q "SELECT count(DISTINCT n) FROM (SELECT count(*) n FROM hta_collectives GROUP BY rank)")"
check instances_full "0" "$(q "SELECT count(*) FROM hta_collective_instances WHERE ranks_present <> 8 OR pg_name <> '0' OR metadata_mismatch IS NOT NULL")"
check instances_count "$(q "SELECT count(*) / 8 FROM hta_collectives")" "$(q "SELECT count(*) FROM hta_collective_instances")"
# rank 5 is last_rank of more than half the instances, and has the least total wait
check straggler_last "1" "$(q "SELECT 2 * count(*) > (SELECT count(*) FROM hta_collective_instances) FROM hta_collective_instances WHERE last_rank = 5")"
check straggler_most "5" "$(q "SELECT last_rank FROM hta_collective_instances GROUP BY last_rank ORDER BY count(*) DESC LIMIT 1")"
check straggler_wait "5" "$(q "SELECT rank FROM hta_collective_ranks ORDER BY total_wait_us LIMIT 1")"
# a wait is the instance's latest start minus the kernel's own: rank 5's waits are 0 where it is last
check wait_zero "0" "$(q "SELECT count(*) FROM hta_collectives c JOIN hta_collective_instances i USING (pg_name, index_in_group) WHERE i.last_rank = c.rank AND c.wait_us <> 0")"
# the all-reduce's bus bandwidth: 2(n-1)/n x algbw with n = 8
check busbw "0" "$(q "SELECT count(*) FROM hta_collective_instances WHERE abs(busbw_gibps - algbw_gibps * 14 / 8) > 1e-9 * busbw_gibps")"
# the summary's counts add up to the instances
check summary_count "$(q "SELECT count(*) FROM hta_collective_instances")" "$(q "SELECT sum(count) FROM hta_collective_summary")"
exit $fail
