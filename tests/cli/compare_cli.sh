#!/bin/sh
# hta-ingest --compare DB JOB_A JOB_B (ingest/compare_print.c CMP-1..6): two generated runs of
# one model, the second with GEMMs planted at 20 TFLOP/s (gen_trace --gemm-tflops), so its
# step is longer and the GEMM operators explain it. Checked: the heading names both jobs and
# ranks (CMP-1); the mean step line equals hta_job_diff_summary's step row (CMP-2); the role
# table lists the parts then the step, whose deltas add up to the step's within the print's
# rounding (the exact ns sums are tests/sql/job_diff_basic.sql's) (CMP-3); the first operators
# are aten::mm then aten::addmm, slower (CMP-4); the idle table (busy and the idle causes of
# hta_findings' accounting) likewise ends with the step and adds up to it (CMP-3); the findings'
# table shows low_efficiency appearing in the slow run, as the function's row says (CMP-7); the matched trees: every node matched (the
# same model), the largest change a GEMM kernel (CMP-5); no line wider than 100 columns when
# stdout is no terminal. Errors: a job that is not there, a missing job name: exit 2.
# env: HTA_INGEST, HTA_EXT. Exit 0 pass, 1 fail.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${HTA_INGEST:=$top/hta-ingest}" "${HTA_EXT:=$top/hta.so}"
work=$(mktemp -d) || exit 2
trap 'rm -rf "$work"' EXIT INT TERM
cd "$work" || exit 2
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ING="${VG:-} $HTA_INGEST"

python3 "$top/tools/gen_trace.py" -q --healthy --ranks 1 --steps 3 before || fail "gen_trace"
python3 "$top/tools/gen_trace.py" -q --healthy --ranks 1 --steps 3 --gemm-tflops 20 after || fail "gen_trace"
"$HTA_INGEST" -q runs.db before after || { echo "FAIL: ingest"; exit 1; }
$ING --compare runs.db before after > out.txt 2> err.txt; rc=$?
[ $rc = 0 ] || fail "exit $rc: $(cat err.txt)"
[ -s err.txt ] && fail "stderr: $(cat err.txt)"
head -n 1 out.txt | grep -qx 'Compare before (control, rank 0) with after (test, rank 0)' || fail "heading: $(head -n 1 out.txt)"
# CMP-2: the step line from the function's step row
want=$(sqlite3 runs.db -cmd ".load $HTA_EXT" "SELECT printf('Mean step: %.2f ms -> %.2f ms (%d steps -> %d steps): %+.2f ms (%+.1f%%)',
  control_us / 1000, test_us / 1000, control_count, test_count, delta_us / 1000, 100 * delta_us / control_us)
  FROM hta_job_diff_summary('before', 'after') WHERE split = 'role' AND part = 'step'")
grep -qxF "$want" out.txt || fail "step line: want '$want', got '$(grep '^Mean step' out.txt)'"
# CMP-3: the role table: parts, then the step; the deltas add up (to the print's 0.01 ms)
sed -n '/^The step difference by role/,/^$/p' out.txt > roles.txt
grep -q '^  Kernel: COMPUTATION ' roles.txt || fail "no Kernel: COMPUTATION part"
tail -n 2 roles.txt | head -n 1 | grep -q '^  step ' || fail "the step is not the table's last row"
adds_up() {
  python3 - "$1" <<'PY'
import re, sys
rows = [l for l in open(sys.argv[1]) if re.match(r"^  \S", l) and not l.startswith("  part")]
d = [float(re.findall(r"([+-]?[0-9.]+) ms", l)[2]) for l in rows]  # the delta column
parts, step = d[:-1], d[-1]
sys.exit(0 if len(parts) > 1 and abs(sum(parts) - step) <= 0.005 * (len(parts) + 1) else 1)
PY
}
adds_up roles.txt || fail "the printed deltas do not add up to the step's"
sed -n '/^The step difference by GPU busy time and idle cause/,/^$/p' out.txt > idle.txt
grep -q '^  busy ' idle.txt || fail "no busy part in the idle table"
tail -n 2 idle.txt | head -n 1 | grep -q '^  step ' || fail "the step is not the idle table's last row"
adds_up idle.txt || fail "the printed idle deltas do not add up to the step's"
# CMP-7: the finding of the slow run only
want=$(sqlite3 runs.db -cmd ".load $HTA_EXT" "SELECT printf('%.2f ms', test_us / 1000) FROM hta_job_diff_summary('before', 'after')
  WHERE split = 'finding' AND part = 'low_efficiency' AND control_ns IS NULL AND change = 'appeared'")
[ -n "$want" ] || fail "no low_efficiency row that appeared"
sed -n '/^Findings that appeared/,/^$/p' out.txt | grep -qE "^  low_efficiency +- +$want +\+$want  appeared\$" \
  || fail "findings table: $(sed -n '/^Findings that appeared/,/^$/p' out.txt)"
# CMP-4: the operators that explain it
sed -n '/^The 10 operators/,/^$/p' out.txt | sed -n '3p' | grep -qE '^  aten::mm +[0-9.]+ ms +[0-9.]+ ms +\+[0-9.]+ ms  153 -> 153$' || fail "first operator: $(sed -n '/^The 10 operators/,/^$/p' out.txt | sed -n '3p')"
sed -n '/^The 10 operators/,/^$/p' out.txt | sed -n '4p' | grep -q '^  aten::addmm ' || fail "second operator"
[ "$(sed -n '/^The 10 operators/,/^$/p' out.txt | grep -cE '^  [^ o]')" = 10 ] || fail "not 10 operators"
# CMP-5: the same model on both sides: every node matched; a GEMM kernel changed most
grep -q '^The call trees matched node by node (hta_job_diff): [0-9]* nodes, [0-9]* matched, 0 renamed,$' out.txt || fail "tree line"
grep -q '^0 control only, 0 test only; [0-9]* comparison points' out.txt || fail "one-sided nodes"
grep -A2 'Largest changes there' out.txt | tail -n 1 | grep -q 'gemm' || fail "largest change: $(grep -A2 'Largest changes there' out.txt | tail -n 1)"
wide=$(python3 -c 'import sys; print(sum(len(l.rstrip("\n")) > 100 for l in open(sys.argv[1], encoding="utf-8")))' out.txt)
[ "$wide" = 0 ] || fail "$wide lines wider than 100 columns"

# the report's comparison part (ingest/report_compare.c HRC-1..4): before the job's part,
# its waterfall (one bar per part and the two steps), the parts' table with the SQL over the
# function, the operators and the matched trees; the page passes the report's static checks
$ING -q --report cmp.html runs.db --job before --compare before after 2> err.txt; rc=$?
[ $rc = 0 ] || fail "report: exit $rc: $(cat err.txt)"
grep -q '<h1 id="compare">Comparison: before → after</h1>' cmp.html || fail "report: no comparison heading"
[ "$(grep -o '<h1 id="compare">' cmp.html | wc -l)" = 1 ] || fail "report: one comparison part"
python3 - cmp.html <<'PY' || fail "report: the comparison part's content"
import re, sys
html = open(sys.argv[1], encoding="utf-8").read()
part = html[html.index('id="compare"'):html.index("Findings: what to fix")]
svg = re.search(r'<svg class="chart"[^>]*aria-label="The mean step from one run to the other, part by part">(.*?)</svg>', part, re.S)
assert svg, "no waterfall"
titles = re.findall(r"<title>([^<]*)</title>", svg.group(1))
assert titles[0].startswith("control step: ") and titles[-1].startswith("test step: "), titles
parts = [t.split(":")[0] for t in titles[1:-1]]
assert "Kernel" in parts and "COMPUTATION" in titles[1], titles  # "Kernel: COMPUTATION: +..."
assert "hta_job_diff_summary(&#39;before&#39;, &#39;after&#39;)" in part or "hta_job_diff_summary('before', 'after')" in part, "no SQL"
for h in ("The operators whose GPU time per step changed most", "The call trees matched node by node"):
    assert h in part, h
assert re.search(r"<td>aten::mm</td>", part), "aten::mm in the operators' table"
# HRC-2: the idle split's waterfall; HRC-6: the findings' table
assert 'aria-label="The mean step from one run to the other, by busy time and idle cause"' in part, "idle waterfall"
assert "Findings that appeared, disappeared or changed cost" in part, "findings heading"
assert re.search(r"<td>low_efficiency</td>\s*<td>appeared</td>", part), "low_efficiency appeared"
PY
sh "$here/report_cli.sh" check cmp.html > check.txt 2>&1 || fail "report: static checks: $(tail -n 3 check.txt)"
$ING --report cmp.html runs.db --compare before > /dev/null 2> err.txt; rc=$?
[ $rc = 2 ] || fail "report with one job to compare: exit $rc"

# errors
$ING --compare runs.db before nope > /dev/null 2> err.txt; rc=$?
[ $rc = 2 ] || fail "unknown job: exit $rc"
grep -qF "test_job 'nope' is not a job" err.txt || fail "unknown job: $(cat err.txt)"
$ING --compare runs.db before > /dev/null 2> err.txt; rc=$?
[ $rc = 2 ] || fail "one job: exit $rc"
grep -qF -- "--compare takes one database and two job names" err.txt || fail "one job: $(cat err.txt)"
[ $fails = 0 ]
