#!/bin/sh
# The TensorBoard plugin's GPU Kernel and Operator views and tensor-core figures
# (ext/tb/tb_stats.c) against its reference files in $HTA_SHARED/expected; tb_tree.py says
# how. Its databases are check_expected.py's, cached in HTA_TMP (one ingest per job).
# env: HTA_INGEST, HTA_EXT (absolute), HTA_SHARED (default ../shared of the repo), HTA_TMP.
# exit 0 pass, 1 fail, 77 skip (no corpus, no python3).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${HTA_SHARED:=$top/../shared}" "${HTA_INGEST:=$top/hta-ingest}" "${HTA_EXT:=$top/hta.so}"
export HTA_SHARED HTA_INGEST HTA_EXT
[ -d "$HTA_SHARED/corpus" ] && [ -d "$HTA_SHARED/expected" ] || { echo "skip: no corpus"; exit 77; }
tmp_own=""
[ -n "${HTA_TMP:-}" ] || { HTA_TMP=$(mktemp -d) && tmp_own=$HTA_TMP || exit 2; }
export HTA_TMP
[ -z "$tmp_own" ] || trap 'rm -rf "$tmp_own"' EXIT INT TERM
# Debian's python3 loads extensions; another one goes through the sqlite3 shell (slower).
loads='import sqlite3, sys; sys.exit(not hasattr(sqlite3.Connection, "enable_load_extension"))'
for py in "${HTA_PYTHON:-/usr/bin/python3}" python3 ""; do
  [ -n "$py" ] && command -v "$py" >/dev/null 2>&1 && break
done
[ -n "$py" ] || { echo "skip: no python3"; exit 77; }
"$py" -c "$loads" 2>/dev/null || { HTA_SQLITE_SHELL=${HTA_SQLITE_SHELL:-sqlite3}; export HTA_SQLITE_SHELL; }
"$py" "$here/tb_tree.py"
