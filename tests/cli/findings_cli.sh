#!/bin/sh
# hta-ingest --findings DB [--job NAME] (ingest/findings_print.c FP-1..5) on a terminal: script(1)
# gives it a pty of 72 columns. The demo job's findings, the costliest first, wrapped to the
# terminal, each rule's advice once; a healthy generated job: "no findings above 1% of a step";
# exit 0 either way; a job that is not there, a trace PATH or a file that is no database: exit 2.
# env: HTA_INGEST. Exit 0 pass, 1 fail, 77 skip (no script(1)).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${HTA_INGEST:=$top/hta-ingest}"
command -v script >/dev/null 2>&1 || { echo "skip: no script(1) (util-linux)"; exit 77; }
work=$(mktemp -d) || exit 2
trap 'rm -rf "$work"' EXIT INT TERM
cd "$work" || exit 2
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ING="${VG:-} $HTA_INGEST"

"$HTA_INGEST" -q demo.db "$top/examples/traces" || { echo "FAIL: ingest"; exit 1; }
script -qec "stty cols 72; $ING --findings demo.db" /dev/null > tty.txt 2>&1; rc=$?
[ $rc = 0 ] || fail "exit $rc under script"
tr -d '\r' < tty.txt > out.txt
grep -q "^Job traces (cost per step; share of the rank's mean step):" out.txt || fail "no job heading"
# FP-2: hta_findings' rows in its order; the demo's costliest is rank 0's pageable copies (63.8%)
first=$(grep -m1 -E '^ +[0-9.]+%' out.txt)
echo "$first" | grep -qE '^ +63\.8% +7663 µs  rank 0  pageable_memcpy$' || fail "first finding: $first"
n=$(grep -cE '^ +[0-9.]+% ' out.txt)
[ "$n" = 12 ] || fail "$n findings, 12 expected (hta_findings at 1%)"
# FP-4: no line wider than the terminal (characters, not bytes)
wide=$(python3 -c 'import sys; print(sum(len(l.rstrip("\n")) > 72 for l in open(sys.argv[1], encoding="utf-8")))' out.txt)
[ "$wide" = 0 ] || fail "$wide lines wider than 72 columns"
grep -q '^      Try: ' out.txt || fail "no advice"
# FP-5: the advice of a rule once, then "as above"
[ "$(grep -c 'Try: as above.' out.txt)" = 5 ] || fail "the repeated advice: $(grep -c 'Try: as above.' out.txt) times"

# FP-1: --job; a healthy job has none (FP-2). Its host runs a few steps ahead of the GPU (a full
# launch queue), and the plugin's first step window reaches from that step's host start to its
# last kernel: with 7 steps the GPU is busy over half of the plugin's window (about 0.59), so its
# gpu_low_utilization stays quiet too.
python3 "$top/tools/gen_trace.py" -q --healthy --ranks 2 --steps 7 --layers 6 healthy || fail "gen_trace"
"$HTA_INGEST" -q demo.db healthy || fail "ingest healthy"
script -qec "$ING --findings demo.db --job healthy" /dev/null > tty2.txt 2>&1; rc=$?
[ $rc = 0 ] || fail "healthy: exit $rc"
tr -d '\r' < tty2.txt | grep -qx 'Job healthy: no findings above 1% of a step' || fail "healthy: $(cat tty2.txt)"
$ING --findings demo.db > both.txt 2>&1 || fail "both jobs: exit $?"
[ "$(grep -c '^Job ' both.txt)" = 2 ] || fail "both jobs: $(grep '^Job ' both.txt)"

# errors: exit 2 with a message
$ING --findings demo.db --job nope > e1.txt 2>&1; rc=$?
[ $rc = 2 ] && grep -q "no job named 'nope'" e1.txt || fail "--job nope: exit $rc, $(cat e1.txt)"
$ING --findings demo.db "$top/examples/traces" > e2.txt 2>&1; rc=$?
[ $rc = 2 ] && grep -q 'takes one database' e2.txt || fail "--findings with a PATH: exit $rc"
echo "not a database" > junk.db
$ING --findings junk.db > e3.txt 2>&1; rc=$?
[ $rc = 2 ] || fail "junk.db: exit $rc"
$ING --findings demo.db --report r.html > e4.txt 2>&1; rc=$?
[ $rc = 2 ] || fail "--findings with --report: exit $rc"

[ $fails = 0 ] && echo "ok: hta-ingest --findings"
[ $fails = 0 ]
