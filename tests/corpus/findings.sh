#!/bin/sh
# hta_findings on every corpus job: its TensorBoard-plugin rules against the plugin's
# recommendations (findings.py says how), then its accounting of the step and the problems of its
# issue, checked on raw events (findings_account.py). One ingest per job, cached in HTA_TMP (shared with check_expected.py).
# env: HTA_INGEST, HTA_EXT (absolute), HTA_SHARED (default ../shared of the repo), HTA_TMP.
# exit 0 pass, 1 fail, 77 skip (no corpus, no python3).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${HTA_SHARED:=$top/../shared}"
: "${HTA_INGEST:=$top/hta-ingest}" "${HTA_EXT:=$top/hta.so}"
export HTA_SHARED HTA_INGEST HTA_EXT
if [ ! -d "$HTA_SHARED/corpus" ] || [ ! -d "$HTA_SHARED/expected" ]; then
  echo "skip: no $HTA_SHARED/corpus or $HTA_SHARED/expected"; exit 77
fi
command -v python3 >/dev/null 2>&1 || { echo "skip: no python3"; exit 77; }
own_tmp=""
if [ -z "${HTA_TMP:-}" ]; then
  HTA_TMP=$(mktemp -d) || exit 2; own_tmp=$HTA_TMP
  trap 'rm -rf "$own_tmp"' EXIT INT TERM
fi
export HTA_TMP
python3 "$here/findings.py"; rc=$?
# the accounting of the step and the issue's problems on their jobs (findings_account.py)
python3 "$here/findings_account.py"; rc2=$?
[ $rc = 0 ] && [ $rc2 = 0 ] && exit 0
[ $rc = 1 ] || [ $rc2 = 1 ] && exit 1
exit $rc
