#!/bin/sh
# HTA's own public-API tests against hta_sqlite.trace_analysis / trace_diff (import lines
# rewritten): tests/python/run_hta_tests.sh. Skips (77) unless HTA_SRC names an HTA checkout
# with its tests/ (CI has none); about 30 s with HTA's snapshot data.
exec sh "$(cd "$(dirname "$0")/../python" && pwd)/run_hta_tests.sh" "$@"
