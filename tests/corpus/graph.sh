#!/bin/sh
# The graph replay match (ext/graph/) against TraceLens's capture merge on the corpus's graph
# jobs (graph.py), and the operator analyses on them against its report on the merged tree
# (graph_perf.py: op_perf.py's conventions). The job databases are the ones
# check_expected.py caches in HTA_TMP (one ingest per job, shared with the other checks).
# env: HTA_INGEST, HTA_EXT (absolute), HTA_SHARED (default ../shared of the repo), HTA_TMP.
# exit 0 pass, 1 fail, 77 skip (no corpus, no python3 that loads extensions).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${HTA_SHARED:=$top/../shared}"
: "${HTA_INGEST:=$top/hta-ingest}" "${HTA_EXT:=$top/hta.so}"
if [ ! -d "$HTA_SHARED/corpus" ] || [ ! -d "$HTA_SHARED/expected" ]; then
  echo "skip: no $HTA_SHARED/corpus or $HTA_SHARED/expected"; exit 77
fi
py=""
for c in python3 /usr/bin/python3 /usr/local/bin/python3; do
  command -v "$c" >/dev/null 2>&1 || continue
  if "$c" -c 'import sqlite3, sys; sys.exit(0 if hasattr(sqlite3.Connection, "enable_load_extension") else 1)' 2>/dev/null; then
    py=$c; break
  fi
done
[ -n "$py" ] || { echo "skip: no python3 whose sqlite3 loads extensions"; exit 77; }
own_tmp=""
if [ -z "${HTA_TMP:-}" ]; then
  HTA_TMP=$(mktemp -d) || exit 2; own_tmp=$HTA_TMP
  trap 'rm -rf "$own_tmp"' EXIT INT TERM
fi
"$py" "$here/graph.py" "$HTA_SHARED" "$HTA_TMP" "$HTA_INGEST" "$HTA_EXT"; rc1=$?
"$py" "$here/graph_perf.py" "$HTA_SHARED" "$HTA_TMP" "$HTA_INGEST" "$HTA_EXT"; rc2=$?
[ $rc1 = 0 ] && [ $rc2 = 0 ] && exit 0
[ $rc1 = 77 ] && [ $rc2 = 77 ] && exit 77
exit 1
