#!/bin/sh
# The Datasette plugin (python/datasette_hta) in real Datasette, through Datasette's own test
# client (tests/datasette/test_plugin.py): the wheel is built from the binaries under test and
# installed into a venv of Debian's /usr/bin/python3, so the plugin is found through its entry
# point as users get it. Three databases: the demo (make demo's two jobs: examples/traces and
# examples/recorded_h200, and a third, small generated job) under the name demo.db, checked
# under Datasette's own time limit (1 s: no canned query or page interrupted; the times are
# printed, never compared); the same file under another name, served immutable (-i); a
# generated 64-rank job (tools/gen_trace.py, one small step).
# Datasette itself is not vendored: it must be importable by /usr/bin/python3, installed or
# from HTA_DATASETTE_PATH (prepended to PYTHONPATH; see README, "Datasette"). Exit 77 (skip)
# without it, python3-venv, setuptools/wheel or a sqlite3 module that loads extensions.
# env: HTA_INGEST, HTA_EXT, HTA_DATASETTE_PATH, HTA_PYTHON (default /usr/bin/python3),
#      HTA_DATASETTE_TIMES (a file the request times are appended to).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${HTA_INGEST:=$top/hta-ingest}" "${HTA_EXT:=$top/hta.so}" "${HTA_PYTHON:=/usr/bin/python3}"
py=$HTA_PYTHON
[ -x "$py" ] || { echo "skip: $py is missing"; exit 77; }
if [ -n "${HTA_DATASETTE_PATH:-}" ]; then
  PYTHONPATH=$HTA_DATASETTE_PATH${PYTHONPATH:+:$PYTHONPATH}; export PYTHONPATH
fi
"$py" -c "import datasette.app" 2>/dev/null \
  || { echo "skip: datasette is not importable by $py (install it, or set HTA_DATASETTE_PATH)"; exit 77; }
"$py" -c "import venv, ensurepip" 2>/dev/null || { echo "skip: $py has no venv/ensurepip (apt-get install python3-venv)"; exit 77; }
"$py" -c "import setuptools, wheel" 2>/dev/null || { echo "skip: $py lacks setuptools or wheel"; exit 77; }
"$py" -c "import sqlite3; sqlite3.connect(':memory:').enable_load_extension" 2>/dev/null \
  || { echo "skip: $py's sqlite3 cannot load extensions (use Debian's /usr/bin/python3)"; exit 77; }
work=$(mktemp -d) || exit 2
trap 'rm -rf "$work"' EXIT INT TERM

PYTHON=$py sh "$top/python/build_wheel.sh" "$work/dist" "$HTA_INGEST" "$HTA_EXT" > "$work/build.log" 2>&1 \
  || { cat "$work/build.log"; echo "FAIL: build_wheel.sh"; exit 1; }
"$py" -m venv --system-site-packages "$work/venv" || { echo "FAIL: venv"; exit 1; }
"$work/venv/bin/python" -m pip install -q --no-index --disable-pip-version-check "$work"/dist/hta_sqlite-*.whl \
  > "$work/pip.log" 2>&1 || { cat "$work/pip.log"; echo "FAIL: pip install --no-index"; exit 1; }

python3 "$top/tools/gen_trace.py" -q --ranks 2 --steps 3 --layers 2 "$work/small" || { echo "FAIL: gen_trace.py"; exit 1; }
"$HTA_INGEST" -q "$work/demo.db" "$top/examples/traces" "$top/examples/recorded_h200" "$work/small" \
  || { echo "FAIL: ingest the demo"; exit 1; }
cp "$work/demo.db" "$work/my_traces-v2.db"
python3 "$top/tools/gen_trace.py" -q --ranks 64 --steps 1 --layers 1 "$work/r64" || { echo "FAIL: gen_trace.py"; exit 1; }
"$HTA_INGEST" -q "$work/ranks64.db" "$work/r64" || { echo "FAIL: ingest 64 ranks"; exit 1; }

cd "$work" && "$work/venv/bin/python" "$top/tests/datasette/test_plugin.py" \
  ${HTA_DATASETTE_TIMES:+--times "$HTA_DATASETTE_TIMES"} \
  --limited "$work/demo.db" --immutable "$work/my_traces-v2.db" "$work/ranks64.db" > "$work/out.txt" 2>&1
rc=$?
grep -E '^(FAIL|==)|requests,' "$work/out.txt"
if [ $rc != 0 ]; then tail -n 40 "$work/out.txt"; exit 1; fi
# The slowest canned queries of the demo, for the log.
awk '/^== /{db=$2} / query_ms$/{print $2 " ms  " db " " $3}' "$work/out.txt" | sort -rn | head -n 3
exit 0
