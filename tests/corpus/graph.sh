#!/bin/sh
# The graph replay match (ext/graph/) against TraceLens's capture merge on the corpus's graph
# jobs (graph.py), and the operator analyses on them against its report on the merged tree
# (graph_perf.py: op_perf.py's conventions). The job databases are the ones
# check_expected.py caches in HTA_TMP (one ingest per job, shared with the other checks).
# env: HTA_INGEST, HTA_EXT (absolute), HTA_SHARED (default ../shared of the repo), HTA_TMP.
# exit 0 pass, 1 fail, 77 skip (no corpus, no python3 that loads extensions).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/python_check.inc"
"$py" "$here/graph.py" "$HTA_SHARED" "$HTA_TMP" "$HTA_INGEST" "$HTA_EXT"; rc1=$?
"$py" "$here/graph_perf.py" "$HTA_SHARED" "$HTA_TMP" "$HTA_INGEST" "$HTA_EXT"; rc2=$?
[ $rc1 = 0 ] && [ $rc2 = 0 ] && exit 0
[ $rc1 = 77 ] && [ $rc2 = 77 ] && exit 77
exit 1
