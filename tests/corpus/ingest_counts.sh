#!/bin/sh
# Ingest check: every job folder of $HTA_SHARED/corpus ingested in one hta-ingest call;
# per-file event counts compared with shared/tools/describe.py (check_counts.py says how).
# env: HTA_INGEST (absolute), HTA_SHARED (default ../shared of the repo), HTA_TMP (scratch;
#      databases are cached there and shared with expected.sh).
# exit 0 pass, 1 fail, 77 skip (no corpus, no python3).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${HTA_SHARED:=$top/../shared}"
: "${HTA_INGEST:=$top/hta-ingest}"
export HTA_SHARED HTA_INGEST
if [ ! -d "$HTA_SHARED/corpus" ]; then echo "skip: no $HTA_SHARED/corpus"; exit 77; fi
own_tmp=""
if [ -z "${HTA_TMP:-}" ]; then
  HTA_TMP=$(mktemp -d) || exit 2; own_tmp=$HTA_TMP
  trap 'rm -rf "$own_tmp"' EXIT INT TERM
fi
export HTA_TMP
py=""
for c in python3 /usr/bin/python3 python3.13 python3.12 python3.11 python3.10 python3.9; do
  if command -v "$c" >/dev/null 2>&1; then py=$c; break; fi
done
if [ -z "$py" ]; then echo "skip: no python3"; exit 77; fi
"$py" "$here/check_counts.py" ${HTA_COUNT_JOBS:-}
