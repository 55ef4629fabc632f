#!/bin/sh
# Inference serving on the corpus: hta_inference_steps against the raw JSON of every
# tracelens_* job (inference_steps.py), and the inference attention model of hta_op_perf
# against TraceLens's inference report and the raw JSON (op_perf_inference.py). The job
# databases are the ones check_expected.py caches in HTA_TMP (one ingest per job, shared
# with the other checks).
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
rc=0
"$py" "$here/inference_steps.py" "$HTA_SHARED" "$HTA_TMP" "$HTA_INGEST" "$HTA_EXT" || rc=1
"$py" "$here/op_perf_inference.py" "$HTA_SHARED" "$HTA_TMP" "$HTA_INGEST" "$HTA_EXT" || rc=1
exit $rc
