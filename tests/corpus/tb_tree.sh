#!/bin/sh
# The TensorBoard plugin's GPU Kernel and Operator views and tensor-core figures
# (ext/tb_stats.c) against its reference files in $HTA_SHARED/expected (tb_tree.py says
# how). Databases are check_expected.py's, cached in HTA_TMP (one ingest per job).
# env: HTA_INGEST, HTA_EXT (absolute), HTA_SHARED (default ../shared of the repo), HTA_TMP.
# exit 0 pass, 1 fail, 77 skip (no corpus, or no python3 that can load extensions).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${HTA_SHARED:=$top/../shared}"
: "${HTA_INGEST:=$top/hta-ingest}" "${HTA_EXT:=$top/hta.so}"
export HTA_SHARED HTA_INGEST HTA_EXT
if [ ! -d "$HTA_SHARED/corpus" ] || [ ! -d "$HTA_SHARED/expected" ]; then
  echo "skip: no $HTA_SHARED/corpus or $HTA_SHARED/expected"; exit 77
fi
own_tmp=""
if [ -z "${HTA_TMP:-}" ]; then
  HTA_TMP=$(mktemp -d) || exit 2; own_tmp=$HTA_TMP
  trap 'rm -rf "$own_tmp"' EXIT INT TERM
fi
export HTA_TMP
# A python3 whose sqlite3 module can load extensions (pyenv builds often cannot);
# otherwise check_expected.py's Db runs the queries through the sqlite3 shell.
py=""
for c in python3 /usr/bin/python3 /usr/local/bin/python3; do
  command -v "$c" >/dev/null 2>&1 || continue
  if "$c" -c 'import sqlite3, sys; sys.exit(0 if hasattr(sqlite3.Connection, "enable_load_extension") else 1)' 2>/dev/null; then
    py=$c; break
  fi
  [ -z "${py_any:-}" ] && py_any=$c
done
[ -z "$py" ] && { py=${py_any:-}; HTA_SQLITE_SHELL=${HTA_SQLITE_SHELL:-sqlite3}; export HTA_SQLITE_SHELL; }
if [ -z "$py" ]; then echo "skip: no python3"; exit 77; fi
exec "$py" "$here/tb_tree.py"
