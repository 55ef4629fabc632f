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
. "$here/python_check.inc"
rc=0
"$py" "$here/inference_steps.py" "$HTA_SHARED" "$HTA_TMP" "$HTA_INGEST" "$HTA_EXT" || rc=1
"$py" "$here/op_perf_inference.py" "$HTA_SHARED" "$HTA_TMP" "$HTA_INGEST" "$HTA_EXT" || rc=1
exit $rc
