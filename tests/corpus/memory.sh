#!/bin/sh
# The memory analyses (ext/memory/memory.c) on every corpus job with [memory] events: peaks and
# record counts against the raw JSON, and the TensorBoard plugin's reference CSVs
# (memory.py says how). One ingest per job, cached in HTA_TMP.
# env: HTA_INGEST, HTA_EXT (absolute), HTA_SHARED (default ../shared of the repo), HTA_TMP.
# exit 0 pass, 1 fail, 77 skip (no corpus, no python3).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${HTA_SHARED:=$top/../shared}"
: "${HTA_INGEST:=$top/hta-ingest}" "${HTA_EXT:=$top/hta.so}"
if [ ! -d "$HTA_SHARED/corpus" ] || [ ! -d "$HTA_SHARED/expected" ]; then
  echo "skip: no $HTA_SHARED/corpus or $HTA_SHARED/expected"; exit 77
fi
command -v python3 >/dev/null 2>&1 || { echo "skip: no python3"; exit 77; }
own_tmp=""
if [ -z "${HTA_TMP:-}" ]; then
  HTA_TMP=$(mktemp -d) || exit 2; own_tmp=$HTA_TMP
  trap 'rm -rf "$own_tmp"' EXIT INT TERM
fi
python3 "$here/memory.py" "$HTA_SHARED" "$HTA_TMP" "$HTA_INGEST" "$HTA_EXT"
