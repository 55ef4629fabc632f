#!/bin/sh
# The operator performance model (ext/perf/op_perf.c) against AMD TraceLens's perf report on
# every corpus job it ran on (op_perf.py says how). The job databases are the ones
# check_expected.py caches in HTA_TMP (one ingest per job, shared with the other checks).
# env: HTA_INGEST, HTA_EXT (absolute), HTA_SHARED (default ../shared of the repo), HTA_TMP.
# exit 0 pass, 1 fail, 77 skip (no corpus, no python3 that loads extensions).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/python_check.inc"
"$py" "$here/op_perf.py" "$HTA_SHARED" "$HTA_TMP" "$HTA_INGEST" "$HTA_EXT"
