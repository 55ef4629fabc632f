#!/bin/sh
# The progress line on a terminal (script(1) gives hta-ingest a pty): a percentage, MB done of
# total, MB/s of input, an ETA; percentages never go back; the last line is redrawn at 100%
# and ended with a newline before the summary, whose MB/s of input it equals. Without a
# terminal, or with --no-progress, nothing is drawn. Skips (77) without script.
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
python3 "$top/tools/gen_trace.py" job --ranks 4 --target-mb 60 -q || exit 2

script -qec "$HTA_INGEST --progress -j 1 a.db job" /dev/null > tty.txt 2>&1; rc=$?
[ $rc = 0 ] || fail "exit $rc under script"
python3 - tty.txt <<'PY' || fails=$((fails + 1))
import re, sys
out = open(sys.argv[1], encoding="utf-8", errors="replace", newline="").read()
bad = []
lines = re.findall(r"\r\x1b\[K([^\r\n]*)", out)
if not lines: bad.append("no progress line drawn")
line_re = re.compile(r"^ *(\d+)% [\d.]+/60\.\d MB, ([\d.]+) MB/s of input, ETA (\d+:\d\d|--:--), (\d)/4 files")
pcts = []
for ln in lines:
    m = line_re.match(ln)
    if not m: bad.append("line not as expected: %r" % ln); continue
    pcts.append(int(m.group(1)))
if not any(re.search(r"ETA \d+:\d\d", ln) for ln in lines): bad.append("no ETA")
if pcts != sorted(pcts): bad.append("percentages went back: %s" % pcts)
m = re.search(r"\r\x1b\[K(100% [^\r\n]*4/4 files)\r*\n\r*(hta-ingest: 4 files ingested[^\r\n]*)", out)
if not m: bad.append("the line at 100%% is not ended with a newline before the summary: %r" % out[-400:])
else:
    r1 = re.search(r"([\d.]+) MB/s of input", m.group(1)).group(1)
    r2 = re.search(r"([\d.]+) MB/s of input$", m.group(2))
    if not r2 or r2.group(1) != r1: bad.append("rates differ: %r vs %r" % (m.group(1), m.group(2)))
for b in bad: print("FAIL:", b)
sys.exit(1 if bad else 0)
PY

# no terminal: nothing drawn; --no-progress on a terminal: nothing drawn
$HTA_INGEST b.db job 2> err.txt || fail "exit $? without a terminal"
grep -q "ETA" err.txt && fail "progress drawn without a terminal: $(cat err.txt)"
script -qec "$HTA_INGEST --no-progress c.db job" /dev/null > tty2.txt 2>&1 || fail "--no-progress: exit $?"
grep -q "ETA" tty2.txt && fail "progress drawn with --no-progress"
grep -q "4 files ingested" tty2.txt || fail "--no-progress: no summary: $(cat tty2.txt)"
[ $fails = 0 ] || exit 1
echo "progress_tty: ok"
