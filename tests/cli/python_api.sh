#!/bin/sh
# HTA's Python API over the database (hta_sqlite.trace_analysis, hta_sqlite.trace_diff):
# tests/python/test_api.py's hand-computed checks on small traces it writes, run against
# a scratch copy of python/hta_sqlite holding the binaries under test. Exit 77 (skip)
# without pandas or a sqlite3 module that can load extensions.
# env: HTA_INGEST, HTA_EXT (the binaries under test), HTA_PYTHON (default /usr/bin/python3).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${HTA_INGEST:=$top/hta-ingest}" "${HTA_EXT:=$top/hta.so}" "${HTA_PYTHON:=/usr/bin/python3}"
py=$HTA_PYTHON
[ -x "$py" ] || { echo "skip: $py is missing"; exit 77; }
"$py" -c "import pandas, numpy" 2>/dev/null || { echo "skip: $py has no pandas (apt-get install python3-pandas)"; exit 77; }
"$py" -c "import sqlite3; sqlite3.connect(':memory:').enable_load_extension" 2>/dev/null \
  || { echo "skip: $py's sqlite3 cannot load extensions"; exit 77; }
work=$(mktemp -d) || exit 2
trap 'rm -rf "$work"' EXIT INT TERM
mkdir -p "$work/pkg"
cp -R "$top/python/hta_sqlite" "$work/pkg/hta_sqlite"
cp "$HTA_EXT" "$work/pkg/hta_sqlite/hta.so"
cp "$HTA_INGEST" "$work/pkg/hta_sqlite/hta-ingest"
cp "$top/VERSION" "$work/pkg/hta_sqlite/VERSION"
cd "$work" && PYTHONPATH="$work/pkg" HTA_SQLITE_CACHE="$work/cache" "$py" "$top/tests/python/test_api.py" "$@"
