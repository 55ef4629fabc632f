#!/bin/sh
# hta-ingest --findings DB [--job NAME] (ingest/findings_print.c FP-1..6) on a terminal: script(1)
# gives it a pty of 72 columns. The demo job's findings: per rank the recoverable share first,
# symptoms, then causes (under their symptom), wrapped to the terminal, each rule's advice once;
# a healthy generated job: its summaries and "nothing else above 1% of the step";
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
grep -qx "Job traces" out.txt || fail "no job heading"
# FP-2: per trace the recoverable share first (the summary row), then the findings
first=$(grep -m1 -v -e '^Job ' -e '^$' out.txt)
echo "$first" | grep -qE '^rank 0: [0-9.]+% of the [0-9.]+ ms step is recoverable \(the GPU computes' || fail "first line: $first"
share=$(sqlite3 demo.db -cmd ".load $HTA_EXT" "SELECT printf('%.1f%%', pct_of_step) FROM hta_findings WHERE rank = 0 AND rule = 'step'")
echo "$first" | grep -qF "rank 0: $share of the" || fail "rank 0's share: $first, hta_findings says $share"
[ "$(grep -c '^rank [01]: ' out.txt)" = 2 ] || fail "the summary lines: $(grep -c '^rank' out.txt)"
# FP-2, FP-3: every other row of hta_findings at 1% is a finding line, in its order per kind
n=$(grep -cE '^ +([0-9.]+%|-) +([0-9.]+ (µs|ms|s)|-)  [a-z_]+ \((cause|busy|symptom|configuration)' out.txt)
want=$(sqlite3 demo.db -cmd ".load $HTA_EXT" "SELECT count(*) FROM hta_findings WHERE job = 'traces' AND kind <> 'summary'")
[ "$n" = "$want" ] || fail "$n findings, $want expected (hta_findings at 1%)"
sym=$(grep -nE '\(symptom' out.txt | head -1 | cut -d: -f1); cau=$(grep -nE '\(cause' out.txt | head -1 | cut -d: -f1)
[ -n "$sym" ] && [ -n "$cau" ] && [ "$sym" -lt "$cau" ] || fail "symptoms before causes: lines $sym, $cau"
# FP-5: no line wider than the terminal (characters, not bytes)
wide=$(python3 -c 'import sys; print(sum(len(l.rstrip("\n")) > 72 for l in open(sys.argv[1], encoding="utf-8")))' out.txt)
[ "$wide" = 0 ] || fail "$wide lines wider than 72 columns"
grep -q '^ *Try: ' out.txt || fail "no advice"
# FP-4: the advice of a rule once, then "as above"
grep -q 'Try: as above.' out.txt || fail "the repeated advice"

# FP-3: causes under their symptom: a host-bound generated job (tiny kernels) has the
# plugin's gpu_low_utilization, and its causes are printed indented under it
python3 "$top/tools/gen_trace.py" -q --healthy --ranks 1 --steps 4 --tokens 8192 --tiny-kernels 2500 tiny || fail "gen_trace tiny"
"$HTA_INGEST" -q demo.db tiny || fail "ingest tiny"
$ING --findings demo.db --job tiny > tiny.txt 2>&1 || fail "tiny: exit $?"
awk '/gpu_low_utilization \(symptom/ { s = 1; next } s && /^       +[0-9.]+% .*\(cause\)/ { c++ } END { exit !(s && c >= 1) }' tiny.txt ||
  fail "tiny: no cause indented under gpu_low_utilization: $(head -20 tiny.txt)"

# FP-1: --job; a healthy job has nothing but its summaries (FP-3)
python3 "$top/tools/gen_trace.py" -q --healthy --ranks 2 --steps 7 --layers 6 healthy || fail "gen_trace"
"$HTA_INGEST" -q demo.db healthy || fail "ingest healthy"
script -qec "$ING --findings demo.db --job healthy" /dev/null > tty2.txt 2>&1; rc=$?
[ $rc = 0 ] || fail "healthy: exit $rc"
tr -d '\r' < tty2.txt > healthy.txt
[ "$(grep -c 'nothing else above 1% of the step' healthy.txt)" = 2 ] || fail "healthy: $(cat healthy.txt)"
$ING --findings demo.db > all.txt 2>&1 || fail "all jobs: exit $?"
[ "$(grep -c '^Job ' all.txt)" = 3 ] || fail "all jobs: $(grep '^Job ' all.txt)"

# FP-2, FR-2: a trace whose first kernel starts 5 ms after its launch returned (the GPU ran work the
# trace does not show): idle [0,5105) is host_other 100, the launch 5 and 5000 waiting; the second
# kernel's 2 ms wait stays unexplained; after the last kernel host_other 2600. Its summary line
# says the 5000 µs apart from the 2810 µs with a cause (fd_account.c FA-4).
python3 - late.json <<'PY' || fail "late.json"
import json, sys
ev = [{"ph": "X", "cat": "user_annotation", "name": "window", "pid": 1, "tid": 2, "ts": 0, "dur": 10000}]
for c, (launch, start) in enumerate([(100, 5105), (5300, 7305)], 1):
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": launch,
               "dur": 5, "args": {"correlation": c}})
    ev.append({"ph": "X", "cat": "kernel", "name": "k%d" % c, "pid": 0, "tid": 7, "ts": start, "dur": 95,
               "args": {"correlation": c, "stream": 7, "device": 0}})
json.dump({"traceEvents": ev, "displayTimeUnit": "ms"}, open(sys.argv[1], "w"))
PY
"$HTA_INGEST" -q late.db late.json || fail "ingest late.json"
$ING --findings late.db > late.txt 2>&1 || fail "late: exit $?"
tr -s '\n ' ' ' < late.txt |
  grep -qF '9810 µs idle, 2810 µs of it with a cause, 5000 µs waiting on GPU work from before the trace)' ||
  fail "late: $(head -4 late.txt)"
# FR-2: K2's 2 ms wait after its launch (seq 3) is the idle time without a cause: a note under the
# summary names that launch; the GPU's microseconds of latency between kernels would not be
tr -s '\n ' ' ' < late.txt |
  grep -qF 'note: 2000 µs of the idle time has no cause in the trace: the GPU waited with work queued (on another stream'"'"'s work, or on what the trace does not record); the longest wait, 2000 µs per step, held the work of cudaLaunchKernel (seq 3)' ||
  fail "late: the unexplained note: $(head -8 late.txt)"
# the report's summary row says the same (report_findings.c HRF-2, findings_rows.c FR-2)
"$HTA_INGEST" -q --report late.html late.db || fail "late: --report"
grep -qF '9810 µs idle, 2810 µs of it with a cause, 5000 µs waiting on GPU work from before the trace)' late.html ||
  fail "late: the report's summary: $(grep -o 'of it with a cause[^<]*' late.html)"
grep -qF 'note: 2000 µs of the idle time has no cause in the trace: the GPU waited with work queued' late.html ||
  fail "late: the report's unexplained note"
# the demo's summaries have no such wait
grep -q 'before the trace' out.txt && fail "the demo waits on work from before its trace: $(grep 'before the trace' out.txt)"

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
