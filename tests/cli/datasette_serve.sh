#!/bin/sh
# examples/datasette/datasette.sh serve DB [DATASETTE OPTIONS...]: a real Datasette on
# 127.0.0.1 with the extension and the metadata, the options after DB passed through (-p, -h,
# --setting). Exit 77 without Datasette (importable by HTA_PYTHON, default /usr/bin/python3, or
# HTA_DATASETTE_PATH) or curl. env: HTA_INGEST, HTA_EXT, HTA_DATASETTE_PATH, HTA_PYTHON.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
: "${HTA_INGEST:=$top/hta-ingest}" "${HTA_EXT:=$top/hta.so}"
py=${HTA_PYTHON:-/usr/bin/python3}
export PYTHONPATH="${HTA_DATASETTE_PATH:-}${PYTHONPATH:+:$PYTHONPATH}"
"$py" -c 'import datasette' 2>/dev/null || { echo "skip: datasette is not importable"; exit 77; }
command -v curl >/dev/null && command -v setsid >/dev/null || { echo "skip: no curl or setsid"; exit 77; }
work=$(mktemp -d) || exit 2
pid=""
# each request has a time limit
get() { curl -s -m 60 "$@"; }
# the server runs in a session of its own (setsid), so that the whole group (the script and
# its python) is stopped at the end
trap '[ -n "$pid" ] && kill -- -"$pid" 2>/dev/null; rm -rf "$work"' EXIT INT TERM
cd "$work" || exit 2
$HTA_INGEST -q t.db "$top/examples/traces" || { echo "FAIL: ingest"; exit 1; }
port=$("$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
HTA_EXT=$HTA_EXT setsid sh "$top/examples/datasette/datasette.sh" serve t.db -p "$port" -h 127.0.0.1 \
  --setting sql_time_limit_ms 4321 > log.txt 2>&1 &
pid=$!
i=0
until get -f -m 5 "http://127.0.0.1:$port/-/settings.json" > settings.json 2>/dev/null; do
  i=$((i + 1))
  [ $i -gt 100 ] && { echo "FAIL: no server on port $port"; tail -n 5 log.txt; exit 1; }
  sleep 0.2
done
fails=0
grep -q '"sql_time_limit_ms": 4321' settings.json || { echo "FAIL: --setting not passed: $(head -c 200 settings.json)"; fails=1; }
code=$(get -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/t/event")
[ "$code" = 200 ] || { echo "FAIL: /t/event answered $code"; fails=1; }
code=$(get -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/t/temporal_breakdown")
[ "$code" = 200 ] || { echo "FAIL: the canned query answered $code"; fails=1; }
[ $fails = 0 ] && echo "ok: datasette.sh serve"
[ $fails = 0 ]
