#!/bin/sh
# The structural diff of two runs (ext/diff/) against AMD TraceLens's TraceDiff on the
# reference pair, and the step-difference summary's exact sums (job_diff.py says how).
# env: HTA_INGEST, HTA_EXT (absolute), HTA_SHARED (default ../shared of the repo), HTA_TMP.
# exit 0 pass, 1 fail, 77 skip (no corpus, no python3 that loads extensions).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/python_check.inc"
"$py" "$here/job_diff.py" "$HTA_SHARED" "$HTA_TMP" "$HTA_INGEST" "$HTA_EXT"
