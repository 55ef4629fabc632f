#!/bin/sh
# Ctrl-C (SIGINT) and SIGTERM during an ingest on a terminal (script(1) gives hta-ingest a
# pty): the progress line is ended with a newline, "hta-ingest: interrupted" follows, the exit
# status is non-zero and no DB.tmp-* file is left. Skips (77) without script.
# env: HTA_INGEST.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
: "${HTA_INGEST:=$top/hta-ingest}"
command -v script >/dev/null 2>&1 || { echo "no script(1) (util-linux)"; exit 77; }
work=$(mktemp -d) || exit 2
trap 'rm -rf "$work"' EXIT INT TERM
cd "$work" || exit 2
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# big enough to be under way after 0.5 s (one parser thread: 2-4 s here)
python3 "$top/tools/gen_trace.py" job --ranks 4 --target-mb 200 -q || exit 2

for sig in INT TERM; do
  rm -f pid
  # the shell writes its pid, then becomes hta-ingest (exec): that pid gets the signal
  script -qec "echo \$\$ > pid; exec $HTA_INGEST --progress -j 1 $sig.db job" /dev/null \
    > "$sig.txt" 2>&1 &
  spid=$!
  i=0
  while [ ! -s pid ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
  sleep 0.5
  kill -s "$sig" "$(cat pid)" || fail "$sig: no process to signal"
  wait "$spid"; rc=$?
  [ $rc != 0 ] || fail "$sig: exit status 0 after the signal"
  grep -q "hta-ingest: interrupted" "$sig.txt" || fail "$sig: no 'interrupted': $(cat "$sig.txt")"
  # the progress line (drawn within 0.16 s) is ended: "interrupted" starts a line of its own
  python3 - "$sig.txt" <<'PY' || fail "$sig: the progress line was not ended before 'interrupted'"
import re, sys
out = open(sys.argv[1], encoding="utf-8", errors="replace", newline="").read()
sys.exit(0 if re.search(r"ETA [^\r\n]*\r*\n\r*hta-ingest: interrupted\r*\n", out) else 1)
PY
  left=$(ls | grep "^$sig\.db\.tmp-")
  [ -z "$left" ] || fail "$sig: temporary database left: $left"
  [ -e "$sig.db" ] && fail "$sig: $sig.db created by an interrupted ingest"
done
[ $fails = 0 ] || exit 1
echo "progress_sigint: ok"
