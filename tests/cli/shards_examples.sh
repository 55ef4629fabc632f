#!/bin/sh
# examples/shards: the Slurm script's per-task command lines (SLURM_ARRAY_TASK_ID set,
# run here in parallel) and then its merge step, its local mode (more tasks than ranks:
# some tasks have none), and the pods' commands of the Kubernetes manifest (read from the
# YAML when Python's yaml module is there, /data pointed at a scratch directory): each
# gives the database that one ingest of the whole job gives (tools/db_canon.py).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
# a directory of its own: the scratch directory is shared with the other tests
work=$(mktemp -d "${TMPDIR:-/tmp}/hta-test.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT INT TERM
cd "$work" || exit 2
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
fails=0
check() { label=$1; shift; if "$@"; then :; else echo "FAIL: $label"; fails=$((fails + 1)); fi; }
ex=$top/examples/shards
mkdir -p bin && ln -sf "$HTA_INGEST" bin/hta-ingest
export HTA_INGEST PATH="$PWD/bin:$PATH"

python3 "$top/tools/gen_trace.py" traces/run1 --ranks 8 --steps 1 --layers 1 -q || { echo "FAIL: gen_trace"; exit 1; }
hta-ingest -q whole.db traces/run1 || { echo "FAIL: whole ingest"; exit 1; }
python3 "$top/tools/db_canon.py" whole.db > whole.txt
same_as_whole() { # LABEL DB: the same once file paths are read relative to here
  python3 "$top/tools/db_canon.py" "$2" | sed "s|$PWD/k8s/traces/|traces/|g; s|$PWD/traces/|traces/|g" > "$2.txt"
  sed "s|$PWD/traces/|traces/|g" whole.txt > whole_rel.txt
  if ! cmp -s whole_rel.txt "$2.txt"; then
    echo "FAIL: $1 differs from one ingest:"; diff whole_rel.txt "$2.txt" | head -n 10; fails=$((fails + 1))
  fi
}

# 1. Slurm: 3 array tasks over 8 ranks: 0-1, 2-4, 5-7
for i in 0 1 2; do
  SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_TASK_COUNT=3 sh "$ex/slurm_ingest.sh" traces/run1 out &
done
wait
for s in 0:0-1 1:2-4 2:5-7; do
  i=${s%%:*} r=${s#*:}
  check "task $i: ranks $r" [ "$(sqlite3 out/shard-$i.db "SELECT min(rank) || '-' || max(rank) FROM trace")" = "$r" ]
done
sh "$ex/slurm_ingest.sh" merge traces/run1 out > list.txt; check "merge step exit 0" [ $? = 0 ]
check "merge step lists the job" [ "$(sed -n 2p list.txt | tr -s ' ' | cut -d ' ' -f 1-4)" = "run1 8 0-7 8" ]
same_as_whole "slurm tasks + merge" out/job.db

# 2. local mode, 10 tasks for 8 ranks
HTA_TASKS=10 sh "$ex/slurm_ingest.sh" local traces/run1 out2 > /dev/null; check "local exit 0" [ $? = 0 ]
check "local: 8 shards (2 tasks had no rank)" [ "$(ls out2/shard-*.db | wc -l)" = 8 ]
same_as_whole "local mode" out2/job.db

# 3. the Kubernetes pods' commands, /data being ./k8s
if python3 -c 'import yaml' 2>/dev/null; then
  mkdir -p k8s/traces k8s/out && cp -r traces/run1 k8s/traces/
  python3 - "$ex/k8s_indexed_job.yaml" "$PWD/k8s" <<'PY'
import sys, yaml
docs = list(yaml.safe_load_all(open(sys.argv[1])))
def script(doc, init=False):
    spec = doc['spec']['template']['spec']
    c = (spec['initContainers'] if init else spec['containers'])[0]
    env = {e['name']: e['value'] for e in c.get('env', [])}
    cmd = c['command'][2].replace('/data', sys.argv[2])
    return env, cmd
env, cmd = script(docs[0])
open('pod.sh', 'w').write(cmd)
open('pod.env', 'w').write('N=%s R=%s completions=%s\n' % (env['N'], env['R'], docs[0]['spec']['completions']))
_, wait = script(docs[1], init=True)
open('wait.sh', 'w').write(wait)
_, merge = script(docs[1])
open('merge.sh', 'w').write(merge)
PY
  read -r envline < pod.env
  eval "$envline"
  check "manifest: N = completions" [ "$N" = "$completions" ]
  i=0
  while [ $i -lt "$N" ]; do
    JOB_COMPLETION_INDEX=$i N=$N R=8 sh pod.sh &  # R: this job's 8 ranks
    i=$((i + 1))
  done
  wait
  N=$N timeout 60 sh wait.sh; check "pods: the merge's wait ends" [ $? = 0 ]
  sh merge.sh > /dev/null; check "pods: merge exit 0" [ $? = 0 ]
  same_as_whole "kubernetes pods" k8s/out/job.db
else
  echo "note: no Python yaml module: the Kubernetes manifest's commands not run"
fi

[ $fails = 0 ] && echo "shards_examples: all checks passed"
[ $fails = 0 ]
