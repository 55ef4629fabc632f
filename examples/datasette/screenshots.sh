#!/bin/sh
# Screenshots of the Datasette plugin's pages with headless Chromium, into
# examples/datasette/screenshots/: index.png (the instance), jobs.png (the jobs canned query),
# job.png (a job's report charts),
# event.png (the event table: names, not ids), query.png (a canned analysis).
#   PYTHON=venv/bin/python sh examples/datasette/screenshots.sh [DB]
# PYTHON must import datasette and the installed hta-sqlite wheel (make wheel); DB defaults to
# examples/demo.db (make demo), served as "demo" on 127.0.0.1 for the time of the shots.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
: "${PYTHON:=python3}"
db=${1:-$here/../demo.db}
name=$(basename "$db"); name=${name%.*}
command -v chromium >/dev/null || { echo "screenshots.sh: chromium is not installed" >&2; exit 2; }
"$PYTHON" -c "import datasette, datasette_hta" || { echo "screenshots.sh: $PYTHON lacks datasette or the hta-sqlite wheel" >&2; exit 2; }
port=$((8100 + $$ % 800))
"$PYTHON" -m datasette "$db" -h 127.0.0.1 -p $port >/dev/null 2>&1 &
pid=$!
prof=$(mktemp -d)
trap 'kill $pid 2>/dev/null; rm -rf "$prof"' EXIT INT TERM
"$PYTHON" - $port <<'PY'
import sys, time, urllib.request
for _ in range(100):
    try:
        urllib.request.urlopen("http://127.0.0.1:%s/-/versions.json" % sys.argv[1], timeout=1); break
    except OSError:
        time.sleep(0.1)
PY
mkdir -p "$here/screenshots"
for page in "index:/" "jobs:/$name/jobs" "job:/-/hta/$name/job/all" "event:/$name/event" "query:/$name/temporal_breakdown"; do
  out=${page%%:*} path=${page#*:}
  if [ "$out" = job ]; then  # the first job in the database
    j=$("$PYTHON" -c "import sqlite3,sys,datasette_hta; from datasette.utils import tilde_encode; print(tilde_encode(datasette_hta.list_jobs(sqlite3.connect(sys.argv[1]))[0]))" "$db")
    path="/-/hta/$name/job/$j"
  fi
  chromium --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update \
    --disable-sync --no-first-run --hide-scrollbars --user-data-dir="$prof" --window-size=1400,1000 \
    --screenshot="$here/screenshots/$out.png" "http://127.0.0.1:$port$path" >/dev/null 2>&1
  echo "wrote examples/datasette/screenshots/$out.png ($path)"
done
