#!/bin/sh
# Oracle comparison: our analyses (hta.so) against HTA's expected outputs in
# $HTA_SHARED/expected, cell by cell (check_expected.py says how).
# env: HTA_INGEST, HTA_EXT (absolute), HTA_SHARED (default ../shared of the repo),
#      HTA_TMP (scratch; databases are cached there), HTA_STRICT=1 (missing functions fail),
#      HTA_EXPECTED_JOBS (space-separated job names to restrict the run), HTA_JOBS (parallel jobs).
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
own_tmp=""
if [ -z "${HTA_TMP:-}" ]; then
  HTA_TMP=$(mktemp -d) || exit 2; own_tmp=$HTA_TMP
  trap 'rm -rf "$own_tmp"' EXIT INT TERM
fi
export HTA_TMP
# A python3 whose sqlite3 module can load extensions (pyenv builds often cannot);
# otherwise any python3 (check_expected.py then runs the queries through the sqlite3 shell).
py=""
for c in python3 /usr/bin/python3 /usr/local/bin/python3 python3.13 python3.12 python3.11 python3.10 python3.9; do
  command -v "$c" >/dev/null 2>&1 || continue
  if "$c" -c 'import sqlite3, sys; sys.exit(0 if hasattr(sqlite3.Connection, "enable_load_extension") else 1)' 2>/dev/null; then
    py=$c; break
  fi
  [ -z "${py_any:-}" ] && py_any=$c
done
[ -z "$py" ] && py=${py_any:-}
if [ -z "$py" ]; then echo "skip: no python3"; exit 77; fi
"$py" "$here/check_expected.py" --selftest || exit 1
# shellcheck disable=SC2086
exec "$py" "$here/check_expected.py" -j "${HTA_JOBS:-2}" ${HTA_EXPECTED_JOBS:-}
