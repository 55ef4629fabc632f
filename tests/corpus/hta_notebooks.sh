#!/bin/sh
# HTA's example notebooks (tests/corpus/hta_notebooks.py) on hta_sqlite: the code cells of
# $HTA_SRC/examples/*.ipynb run with only their imports rewritten, on corpus traces, through
# a scratch copy of python/hta_sqlite holding the binaries under test. exit 0 pass, 1 fail,
# 77 skip (no HTA_SRC, no corpus, no pandas/plotly, no python3 whose sqlite3 loads extensions).
# env: HTA_SRC, HTA_INGEST, HTA_EXT, HTA_SHARED (default ../shared), HTA_PYTHON.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${HTA_SHARED:=$top/../shared}" "${HTA_INGEST:=$top/hta-ingest}" "${HTA_EXT:=$top/hta.so}"
: "${HTA_PYTHON:=/usr/bin/python3}"
[ -n "${HTA_SRC:-}" ] && [ -d "$HTA_SRC/examples" ] \
  || { echo "skip: HTA's notebooks are not here (set HTA_SRC to an HTA checkout with examples/)"; exit 77; }
[ -d "$HTA_SHARED/corpus" ] || { echo "skip: no $HTA_SHARED/corpus"; exit 77; }
py=$HTA_PYTHON
"$py" -c "import pandas, plotly, sqlite3; sqlite3.connect(':memory:').enable_load_extension" 2>/dev/null \
  || { echo "skip: $py lacks pandas, plotly or a sqlite3 that loads extensions"; exit 77; }
work=$(mktemp -d) || exit 2
trap 'rm -rf "$work"' EXIT INT TERM
mkdir -p "$work/pkg"
cp -R "$top/python/hta_sqlite" "$work/pkg/hta_sqlite"
cp "$HTA_EXT" "$work/pkg/hta_sqlite/hta.so"
cp "$HTA_INGEST" "$work/pkg/hta_sqlite/hta-ingest"
cp "$top/VERSION" "$work/pkg/hta_sqlite/VERSION"
HTA_SHARED=$(cd "$HTA_SHARED" && pwd) PYTHONPATH="$work/pkg" "$py" "$here/hta_notebooks.py" "$@"
