#!/bin/sh
# HTA's Python API (hta_sqlite.trace_analysis / trace_diff) against HTA's expected outputs on
# a few corpus jobs (python_api.py says which and how), through the databases that
# check_expected.py caches in $HTA_TMP, with a scratch copy of python/hta_sqlite holding the
# binaries under test. exit 0 pass, 1 fail, 77 skip (no corpus, no pandas, no python3 whose
# sqlite3 loads extensions).
# env: HTA_INGEST, HTA_EXT, HTA_SHARED (default ../shared), HTA_TMP, HTA_PYTHON.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${HTA_SHARED:=$top/../shared}" "${HTA_INGEST:=$top/hta-ingest}" "${HTA_EXT:=$top/hta.so}"
: "${HTA_PYTHON:=/usr/bin/python3}"
export HTA_SHARED HTA_INGEST HTA_EXT
[ -d "$HTA_SHARED/expected" ] || { echo "skip: no $HTA_SHARED/expected"; exit 77; }
py=$HTA_PYTHON
[ -x "$py" ] || { echo "skip: $py is missing"; exit 77; }
"$py" -c "import pandas, sqlite3; sqlite3.connect(':memory:').enable_load_extension" 2>/dev/null \
  || { echo "skip: $py lacks pandas or a sqlite3 that loads extensions"; exit 77; }
work=$(mktemp -d) || exit 2
trap 'rm -rf "$work"' EXIT INT TERM
if [ -z "${HTA_TMP:-}" ]; then HTA_TMP=$work/tmp; fi
export HTA_TMP
mkdir -p "$work/pkg"
cp -R "$top/python/hta_sqlite" "$work/pkg/hta_sqlite"
cp "$HTA_EXT" "$work/pkg/hta_sqlite/hta.so"
cp "$HTA_INGEST" "$work/pkg/hta_sqlite/hta-ingest"
cp "$top/VERSION" "$work/pkg/hta_sqlite/VERSION"
PYTHONPATH="$work/pkg" HTA_SQLITE_CACHE="$work/cache" "$py" "$here/python_api.py" "$@"
