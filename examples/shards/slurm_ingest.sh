#!/bin/sh
#SBATCH --job-name=hta-shards
#SBATCH --array=0-7
#SBATCH --cpus-per-task=2
#SBATCH --mem=2G
#SBATCH --output=hta-shard-%a.log
#
# Ingest one large profiled job (a directory of rank*.json[.gz] files) as shards on a
# Slurm cluster, one array task per rank range, then merge the shards into one database.
#
#   sbatch examples/shards/slurm_ingest.sh TRACES OUT            # task i writes OUT/shard-i.db
#   sbatch --dependency=afterok:JOBID examples/shards/slurm_ingest.sh merge TRACES OUT
#                                                                # OUT/job.db from the shards
#   sh examples/shards/slurm_ingest.sh local TRACES OUT          # no Slurm: every task here,
#                                                                # in parallel, then the merge
#
# Task i of N (SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN, SLURM_ARRAY_TASK_COUNT; N = 8 in
# local mode, or HTA_TASKS) ingests ranks i*R/N to (i+1)*R/N - 1, R being HTA_RANKS or else
# the number of trace files in TRACES (one file per rank):
#   hta-ingest -q -j CPUS OUT/shard-i.db TRACES --ranks LO-HI
# Every shard holds the same job (named after TRACES), so the merge gives one job:
#   hta-ingest --merge OUT/job.db OUT/shard-*.db
# OUT must be a directory every task can write (a shared filesystem). A task rerun adds
# nothing to its shard (the content hashes are there); a merge rerun skips what job.db has.
# env: HTA_INGEST (default: hta-ingest on PATH).
set -eu
ingest=${HTA_INGEST:-hta-ingest}
mode=shard
case ${1:-} in merge | local) mode=$1 && shift ;; esac
[ $# = 2 ] || { echo "usage: slurm_ingest.sh [merge|local] TRACES OUT" >&2; exit 2; }
traces=$1 out=$2
mkdir -p "$out"
ranks=${HTA_RANKS:-$(ls "$traces" | grep -c '\.json$\|\.json\.gz$')}
tasks=${SLURM_ARRAY_TASK_COUNT:-${HTA_TASKS:-8}}

# shard I: the ranks of task I, or nothing when it has none (more tasks than ranks)
shard() {
  lo=$(($1 * ranks / tasks)) hi=$((($1 + 1) * ranks / tasks - 1))
  [ "$hi" -ge "$lo" ] || return 0
  "$ingest" -q -j "${SLURM_CPUS_PER_TASK:-2}" "$out/shard-$1.db" "$traces" --ranks "$lo-$hi"
}

merge() {
  "$ingest" -q --merge "$out/job.db" "$out"/shard-*.db
  "$ingest" --list "$out/job.db"
}

case $mode in
shard) shard $((SLURM_ARRAY_TASK_ID - ${SLURM_ARRAY_TASK_MIN:-0})) ;;
merge) merge ;;
local)
  pids=
  i=0
  while [ $i -lt "$tasks" ]; do
    shard $i &
    pids="$pids $!"
    i=$((i + 1))
  done
  failed=0
  for p in $pids; do wait "$p" || failed=1; done
  [ $failed = 0 ] || { echo "slurm_ingest.sh: a shard failed" >&2; exit 1; }
  merge
  ;;
esac
