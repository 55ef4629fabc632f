#!/bin/sh
# hta_module_stats (ext/tb/tb_modules.c) against the plugin's Module view,
# $HTA_SHARED/expected/<job>/tb_module_view_rank<r>.csv (module_view.py says what it
# compares, with which tolerances). Reuses check_expected.py's ingest cache in HTA_TMP.
# env: HTA_SHARED, HTA_TMP (ingest cache), HTA_INGEST, HTA_EXT. exit 0 pass, 1 fail, 77 skip.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${HTA_SHARED:=$top/../shared}"
if [ ! -d "$HTA_SHARED/corpus" ] || [ ! -d "$HTA_SHARED/expected" ]; then
  echo "skip: no $HTA_SHARED/corpus or $HTA_SHARED/expected"; exit 77
fi
command -v python3 >/dev/null 2>&1 || { echo "skip: no python3"; exit 77; }
command -v "${HTA_SQLITE_SHELL:-sqlite3}" >/dev/null 2>&1 || { echo "skip: no sqlite3 shell"; exit 77; }
export HTA_SHARED
exec python3 "$here/module_view.py" "$@"
