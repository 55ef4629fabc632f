#!/bin/sh
# The collective analysis (ext/collectives/collectives.c, ext/collectives/collectives_out.c) against TraceLens's
# NcclAnalyser outputs: for every job with collectives_long.csv in $HTA_SHARED/expected/<job>/,
# ingest $HTA_SHARED/corpus/<job>/ and compare hta_collectives, hta_collective_instances,
# hta_collective_summary and hta_collective_ranks with its collectives_*.csv
# (check_collectives.py says how, with the tolerances of the expected README's section 11.4).
# env: HTA_INGEST, HTA_EXT, HTA_SHARED, HTA_TMP. exit 0 pass, 1 fail, 77 skip (no corpus,
# no such job, no python3).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${HTA_SHARED:=$top/../shared}" "${HTA_INGEST:=$top/hta-ingest}" "${HTA_EXT:=$top/hta.so}"
exp=$HTA_SHARED/expected
if [ ! -d "$HTA_SHARED/corpus" ] || [ ! -d "$exp" ]; then echo "skip: no $HTA_SHARED/corpus"; exit 77; fi
command -v python3 >/dev/null 2>&1 || { echo "skip: no python3"; exit 77; }
work=${HTA_TMP:-$(mktemp -d)}/collectives
rm -rf "$work" && mkdir -p "$work" || exit 2
fail=0 n=0
for f in "$exp"/*/collectives_long.csv; do
  [ -f "$f" ] || continue
  d=$(dirname "$f"); job=$(basename "$d")
  [ -d "$HTA_SHARED/corpus/$job" ] || continue
  n=$((n + 1))
  echo "== $job"
  if ! "$HTA_INGEST" -q "$work/$job.db" "$HTA_SHARED/corpus/$job"; then
    echo "FAIL $job: ingest"; fail=1; continue
  fi
  python3 "$here/check_collectives.py" "$work/$job.db" "$HTA_EXT" "$d" || fail=1
done
[ $n = 0 ] && { echo "skip: no job with collectives_long.csv"; exit 77; }
exit $fail
