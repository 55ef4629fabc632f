#!/bin/sh
# hta_trace_health on every corpus job: each check that warns or fails there is in health.py's
# table with its reason, every other says ok. One ingest per job, cached in HTA_TMP (shared with
# check_expected.py).
# env: HTA_INGEST, HTA_EXT (absolute), HTA_SHARED (default ../shared of the repo), HTA_TMP.
# exit 0 pass, 1 fail, 77 skip (no corpus, no python3).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${HTA_SHARED:=$top/../shared}"
: "${HTA_INGEST:=$top/hta-ingest}" "${HTA_EXT:=$top/hta.so}"
export HTA_SHARED HTA_INGEST HTA_EXT
[ -d "$HTA_SHARED/corpus" ] || { echo "skip: no $HTA_SHARED/corpus"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "skip: no python3"; exit 77; }
own_tmp=""
if [ -z "${HTA_TMP:-}" ]; then
  HTA_TMP=$(mktemp -d) || exit 2; own_tmp=$HTA_TMP
  trap 'rm -rf "$own_tmp"' EXIT INT TERM
fi
export HTA_TMP
python3 "$here/health.py"
