#!/bin/sh
# Runs HTA's own public-API tests (tests/python/hta_public_tests.txt) against hta_sqlite: a
# scratch copy of HTA's tests/ has its import lines rewritten from hta.trace_analysis /
# hta.trace_diff to hta_sqlite.trace_analysis / hta_sqlite.trace_diff, nothing else changed;
# each test runs in a fresh process (python3 -m unittest, 300 s at most) on that run's fresh
# copy of tests/data, with one cache directory for the run. HTA stays importable (from
# $HTA_SRC) for the tests' own utilities and mocks; hta_sqlite itself must not import it.
#   HTA_SRC=/path/to/HolisticTraceAnalysis sh tests/python/run_hta_tests.sh [TEST_ID...]
# env: HTA_SRC (an HTA checkout holding hta/ and tests/; without it: exit 77, skip),
#      HTA_EXT, HTA_INGEST (the binaries under test, default the built ones at the top),
#      HTA_SUITE_TARGET (hta_sqlite, default; hta: run HTA itself, for reference),
#      HTA_PYTHON (default /usr/bin/python3), HTA_SUITE_KEEP=1 (keep the scratch directory).
# Prints PASS / FAIL / MISSING (the test's data folders are absent or empty) per test and
# a summary line; exit 1 when any test failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${HTA_PYTHON:=/usr/bin/python3}" "${HTA_SUITE_TARGET:=hta_sqlite}"
: "${HTA_INGEST:=$top/hta-ingest}" "${HTA_EXT:=$top/hta.so}"
src=${HTA_SRC:-}
if [ -z "$src" ] || [ ! -d "$src/tests" ] || [ ! -d "$src/hta" ]; then
  echo "skip: HTA's tests are not here (set HTA_SRC to an HTA checkout with hta/ and tests/)"
  exit 77
fi
"$HTA_PYTHON" -c "import pandas" 2>/dev/null || { echo "skip: $HTA_PYTHON has no pandas"; exit 77; }
work=$(mktemp -d) || exit 2
[ "${HTA_SUITE_KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT INT TERM
cp -R "$src/tests" "$work/tests" || exit 2
if [ "$HTA_SUITE_TARGET" = hta_sqlite ]; then
  for f in "$work"/tests/*.py; do
    sed -e 's/^\( *\)from hta\.trace_analysis import/\1from hta_sqlite.trace_analysis import/' \
        -e 's/^\( *\)from hta\.trace_diff import/\1from hta_sqlite.trace_diff import/' "$f" > "$f.new" && mv "$f.new" "$f"
  done
fi
# hta_sqlite as a package holding the binaries under test (as the wheel does)
mkdir -p "$work/pkg"
cp -R "$top/python/hta_sqlite" "$work/pkg/hta_sqlite"
cp "$HTA_EXT" "$work/pkg/hta_sqlite/hta.so"
cp "$HTA_INGEST" "$work/pkg/hta_sqlite/hta-ingest"
cp "$top/VERSION" "$work/pkg/hta_sqlite/VERSION"
export PYTHONPATH="$work:$src:$work/pkg${PYTHONPATH:+:$PYTHONPATH}"
export TEST_DATA_PREFIX_PATH="$work" HTA_SQLITE_CACHE="$work/cache"

# hta_sqlite must work without HTA: importing it imports nothing of hta.
if [ "$HTA_SUITE_TARGET" = hta_sqlite ]; then
  "$HTA_PYTHON" -c "
import sys, hta_sqlite.trace_analysis, hta_sqlite.trace_diff
bad = sorted(m for m in sys.modules if m == 'hta' or m.startswith('hta.'))
sys.exit('hta_sqlite imported ' + ', '.join(bad) if bad else 0)" || { echo "FAIL: hta_sqlite imports hta"; exit 1; }
fi

pass=0 fail=0 missing=0
ids=${*:-}
list() {
  if [ -n "$ids" ]; then
    for i in $ids; do grep "^$i " "$here/hta_public_tests.txt" || echo "$i -"; done
  else
    grep -v '^#' "$here/hta_public_tests.txt"
  fi
}
list > "$work/list"
while read -r id data; do
  [ -n "$id" ] || continue
  absent=""
  if [ "$data" != "-" ]; then
    for d in $(echo "$data" | tr ',' ' '); do
      [ -n "$(ls -A "$work/tests/data/$d" 2>/dev/null)" ] || absent="$absent $d"
    done
  fi
  if [ -n "$absent" ]; then
    missing=$((missing + 1)); echo "MISSING $id (no data:$absent)"; continue
  fi
  if (cd "$work" && timeout 300 "$HTA_PYTHON" -m unittest -q "$id") > "$work/out" 2>&1 < /dev/null; then
    pass=$((pass + 1)); echo "PASS    $id"
  else
    fail=$((fail + 1)); echo "FAIL    $id"; grep -v '^\(WARNING\|INFO\|DEBUG\)' "$work/out" | tail -n 25 | sed 's/^/        /'
  fi
done < "$work/list"
echo "summary: HTA public API tests against $HTA_SUITE_TARGET: $pass passed, $fail failed, $missing missing data"
[ $fail = 0 ]
