#!/bin/sh
# hta-ingest --report (ingest/report.c): exit codes, messages, the atomic write,
# a read-only database, partial failures (HR-5, HR-6), and the HTML itself:
# well-formed, self-contained (no script, no external resource), every chart
# present with its hover titles. Needs python3 (exit 77 without it); no browser
# (tests/cli/report_render.sh renders it).
#
#   sh tests/cli/report_cli.sh                 the tests (run by tests/run.sh)
#   sh tests/cli/report_cli.sh check OUT.html  the static HTML checks of one report
# Works in a scratch directory of its own; HTA_INGEST is the binary under test.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${HTA_INGEST:=$top/hta-ingest}"
command -v python3 >/dev/null 2>&1 || { echo "skip: python3 is needed"; exit 77; }
work=$(mktemp -d) || exit 2
trap 'rm -rf "$work"' EXIT INT TERM

# check_html FILE [demo]: the static checks; with "demo", also the demo job's content.
check_html() {
  python3 - "$1" "${2:-}" <<'PY'
import html.parser, re, sys
path, demo = sys.argv[1], sys.argv[2] == "demo"
text = open(path, encoding="utf-8").read()
bad = []
if not text.startswith("<!DOCTYPE html>"): bad.append("no <!DOCTYPE html>")
VOID = {"meta", "br", "hr", "img", "input", "link", "wbr", "col", "area", "base", "source"}
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.count, self.titles_in_svg, self.errors = [], {}, 0, []
    def handle_starttag(self, tag, attrs):
        self.count[tag] = self.count.get(tag, 0) + 1
        for k, v in attrs:
            if k == "src" or k.startswith("on"): self.errors.append("attribute %s on <%s>" % (k, tag))
            if k == "href" and not (v or "").startswith("#"): self.errors.append("external href %r" % v)
        if tag in ("script", "link", "iframe", "object", "embed", "img", "base"): self.errors.append("<%s>" % tag)
        if tag == "title" and "svg" in self.stack: self.titles_in_svg += 1
        if tag not in VOID: self.stack.append(tag)
    def handle_startendtag(self, tag, attrs):
        self.count[tag] = self.count.get(tag, 0) + 1
        for k, v in attrs:
            if k == "src" or k.startswith("on"): self.errors.append("attribute %s on <%s>" % (k, tag))
    def handle_endtag(self, tag):
        if tag in VOID: return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append("</%s> closes <%s>" % (tag, self.stack[-1] if self.stack else "nothing"))
            if tag in self.stack:
                while self.stack.pop() != tag: pass
        else:
            self.stack.pop()
p = P(); p.feed(text); p.close()
bad += p.errors[:10]
if p.stack: bad.append("unclosed: " + " ".join(p.stack[-5:]))
if re.search(r"url\(|@import", text): bad.append("url() or @import in the CSS")
if text.count("<svg") != text.count("</svg>"): bad.append("<svg> not closed")
if p.count.get("section", 0) != 17: bad.append("%d sections, 17 expected" % p.count.get("section", 0))
if re.search(r"\bNaN\b|\binf\b", " ".join(re.findall(r'(?:d|x|y|width|height|cx|cy)="([^"]*)"', text))):
    bad.append("NaN or inf in SVG coordinates")
if demo:
    if re.search(r"https?://", text): bad.append("a URL in the demo report")
    ids = re.findall(r'<section id="([^"]+)"', text)
    want = ["findings", "overview", "temporal", "kernel-type", "top-kernels", "across-ranks", "idle", "overlap", "queue", "membw", "launch",
            "collectives", "memory", "critical-path", "operators", "perf", "tb-views"]
    if ids != want: bad.append("sections %s" % ids)
    # section 1 (report_findings.c HRF-2): the demo's findings, per rank its summary first, each
    # finding linking to its evidence
    m = re.search(r'<section id="findings">(.*?)</section>', text, re.S)
    body = m.group(1) if m else ""
    if not re.search(r'<h2>1\. Findings: what to fix</h2>', body): bad.append("findings: not section 1")
    for t in ("step is recoverable", "straggler", "gpu_waits_for_host", "exposed_communication",
              'href="#collectives"', 'href="#idle"', "what to try", "Rank 1 arrives last", "symptom", "cause"):
        if t not in body: bad.append("findings: missing %r" % t)
    if body.count("<tr>") < 1 + 5: bad.append("findings: %d rows" % (body.count("<tr>") - 1))
    if body.count('<tr class="sum">') != 2: bad.append("findings: %d summary rows, 2 expected" % body.count('<tr class="sum">'))
    if body.find('<tr class="sum">') > body.find('<tr><td>'): bad.append("findings: a finding before the first summary")
    if re.search(r'>\d{5,}(\.\d+)? \u00b5s<', body): bad.append("findings: a time of 10 ms or more in \u00b5s")
    if p.count.get("svg", 0) < 31: bad.append("only %d charts" % p.count.get("svg", 0))
    # sections 12-14 (report_more.c): charts on the demo's NCCL kernels, [memory] events and
    # ProfilerSteps: collectives 3 (bandwidth, skew, waits), memory 1 per rank, critical path 1
    # per rank and 1 for the job's path across ranks (which crosses at an all-reduce)
    for sec, charts, texts in (("collectives", 3, ("Bus bandwidth by message size", "27.04 MiB", "start skew", "Total wait in collectives per rank")),
                               ("memory", 2, ("GPU0 allocated", "GPU1 reserved", " GiB", "peak:", "1663577856")),
                               ("critical-path", 3, ("GPU compute", "GPU communication", "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
                                                     "The job's path, across ranks", "path_ranks")),
                               # section 14 (report_ops.c): an operator chart per rank
                               ("operators", 2, ("tensor-core kernels", "aten::mm", "sm90_xmma_gemm",
                                                 "tensor_core_eligible_pct", "registers_per_thread")),
                               # section 15 (report_perf.c): a roofline per rank, the top operators
                               ("perf", 2, ("Roofline, rank 0", "matrix_fp32: 494.7 TFLOPS, 3.35 TB/s", "aten::mm (GEMM)",
                                            "Top 15 operators", "launcher_category")),
                               # section 16 (report_tb.c): mean step by role, the steps of each rank, GPU
                               # utilization, the Distributed view's two charts
                               ("tb-views", 6, ("Mean step time by role", "DataLoader", "Steps of rank 1",
                                                "GPU utilization over the steps", "NVIDIA H100 80GB HBM3",
                                                "synchronizing", "nccl:all_reduce", "dataloader_pct"))):
        m = re.search(r'<section id="%s">(.*?)</section>' % sec, text, re.S)
        body = m.group(1) if m else ""
        if body.count("<svg") != charts: bad.append("%s: %d charts, %d expected" % (sec, body.count("<svg"), charts))
        if body.count("<table") < 2: bad.append("%s: %d tables" % (sec, body.count("<table")))
        for t in texts:
            if t not in body: bad.append("%s: missing %r" % (sec, t))
    if p.titles_in_svg < 150: bad.append("only %d hover titles" % p.titles_in_svg)
    if 'class="error"' in text: bad.append("an analysis failed")
    for want_text in ("rank 0", "rank 1", "COMPUTATION overlapping COMMUNICATION", "stream 7", "Memcpy HtoD",
                      "launch_delay_cutoff_us = 100", "runtime_cutoff_us = 50", "host_wait", "ncclDevKernel_AllReduce"):
        if want_text not in text: bad.append("missing %r" % want_text)
for b in bad: print("FAIL: %s: %s" % (path, b))
print("html: %d bytes, %d charts, %d hover titles, %d tables" % (len(text), p.count.get("svg", 0), p.titles_in_svg, p.count.get("table", 0)))
sys.exit(1 if bad else 0)
PY
}

if [ "${1:-}" = check ]; then
  check_html "$2"
  exit $?
fi
cd "$work" || exit 2

fails=0
check() { # check LABEL CONDITION...
  label=$1; shift
  if "$@"; then :; else echo "FAIL: $label"; fails=$((fails + 1)); fi
}
ING="${VG:-} $HTA_INGEST"
ING_PLAIN=$HTA_INGEST # for a repeat of a report valgrind has seen already (make test-valgrind's time)

# 1. the demo job: exit 0, one line on stderr, the file and no temporary left over
$ING -q demo.db "$top/examples/traces" || { echo "FAIL: ingest"; exit 1; }
cp demo.db demo.orig
$ING --report report.html demo.db 2> err.txt; rc=$?
check "report exit 0" [ $rc = 0 ]
check "report message" grep -q '^hta-ingest: report.html: report written' err.txt
check "report written" [ -s report.html ]
check "no temporary left" [ -z "$(ls | grep 'tmp-')" ]
check "database unchanged" cmp -s demo.db demo.orig
check "demo html" check_html report.html demo
$ING_PLAIN -q --report report.html demo.db 2> err.txt; rc=$?
check "-q: silent" [ $rc = 0 ] && check "-q: nothing on stderr" [ ! -s err.txt ]

# 2. usage errors: exit 2, no file
rm -f out.html
$ING --report 2> err.txt; rc=$?
check "--report without OUT: 2" [ $rc = 2 ]
check "--report without OUT: message" grep -q 'Incorrect parameter: --report needs an output file' err.txt
$ING --report out.html 2> err.txt; rc=$?
check "--report without DB: 2" [ $rc = 2 ]
$ING --report out.html demo.db "$top/examples/traces" 2> err.txt; rc=$?
check "--report with a PATH: 2" [ $rc = 2 ]
check "--report with a PATH: message" grep -q -- '--report OUT takes one database and no trace PATH' err.txt
check "usage errors write nothing" [ ! -e out.html ]

# 3. a database that cannot be used: exit 2, the database named
$ING --report out.html missing.db 2> err.txt; rc=$?
check "missing db: 2" [ $rc = 2 ]
check "missing db: message" grep -q '^hta-ingest: missing.db: ' err.txt
check "missing db: not created" [ ! -e missing.db ]
echo "not a database at all" > junk.db
$ING --report out.html junk.db 2> err.txt; rc=$?
check "junk db: 2" [ $rc = 2 ]
check "junk db: message" grep -q 'not an hta-sqlite database' err.txt
sqlite3 other.db "CREATE TABLE t(x); INSERT INTO t VALUES (1);"
$ING --report out.html other.db 2> err.txt; rc=$?
check "foreign db: 2" [ $rc = 2 ]
check "foreign db: message" grep -q 'other.db: not an hta-sqlite database' err.txt
check "nothing written for a bad db" [ ! -e out.html ]

# 4. an output that cannot be written: exit 2, nothing left behind
$ING --report no/such/dir/out.html demo.db 2> err.txt; rc=$?
check "unwritable output: 2" [ $rc = 2 ]
check "unwritable output: message" grep -q '^hta-ingest: no/such/dir/out.html' err.txt

# 5. an existing report is replaced whole
echo "old" > again.html
$ING_PLAIN -q --report again.html demo.db; rc=$?
check "replace: 0" [ $rc = 0 ]
check "replace: new content" grep -q '<!DOCTYPE html>' again.html

# 6. an empty database (schema only): a report with empty charts, exit 0
$ING -q empty.db "$top/examples/traces/rank0.pt.trace.json.gz" >/dev/null 2>&1
sqlite3 empty.db "DELETE FROM event; DELETE FROM profiler_step; DELETE FROM device; DELETE FROM thread;
                  DELETE FROM counter; DELETE FROM flow; DELETE FROM ingest_issue; DELETE FROM trace;"
$ING -q --report empty.html empty.db; rc=$?
check "empty db: 0" [ $rc = 0 ]
check "empty db: html" check_html empty.html
check "empty db: says so" grep -q 'no data' empty.html
check "empty db: no collectives" grep -q 'No collectives' empty.html
check "empty db: no memory records" grep -q 'No memory records' empty.html

# 7. an appended database (WAL mode) opened read-only
$ING -q wal.db "$top/examples/traces/rank0.pt.trace.json.gz" && $ING -q wal.db "$top/examples/traces/rank1.pt.trace.json.gz"
check "wal db" [ "$(sqlite3 wal.db 'PRAGMA journal_mode')" = wal ]
$ING -q --report wal.html wal.db; rc=$?
check "wal db: 0" [ $rc = 0 ]
check "wal db: html" check_html wal.html

# 8. an analysis that fails: its message in its section, the rest written, exit 1 (HR-5)
cp demo.db broken.db
sqlite3 broken.db "DROP TABLE kernel_type_rule; CREATE TABLE kernel_type_rule(priority, pattern, kernel_type);
                   INSERT INTO kernel_type_rule VALUES (1, NULL, 'COMPUTATION');" 2>/dev/null
sqlite3 broken.db "DROP INDEX IF EXISTS profiler_step_step; ALTER TABLE profiler_step RENAME TO profiler_step_gone;"
$ING --report broken.html broken.db 2> err.txt; rc=$?
check "failed analysis: 1" [ $rc = 1 ]
check "failed analysis: message" grep -q '^hta-ingest: broken.html: written, but an analysis failed: ' err.txt
check "failed analysis: shown" grep -q 'class="error"' broken.html
check "failed analysis: still well-formed" check_html broken.html

# 9. two traces of one rank are told apart (HR-7)
mkdir -p two
cp "$top/examples/traces/rank0.pt.trace.json.gz" two/a.json.gz
gzip -dc "$top/examples/traces/rank0.pt.trace.json.gz" | sed 's/"ProfilerStep#5"/"ProfilerStep#5 "/' > two/b.json
$ING -q two.db two 2>/dev/null
$ING -q --report two.html two.db; rc=$?
check "shared rank: 0" [ $rc = 0 ]
check "shared rank: labels" grep -q 'rank 0 / trace 2' two.html

# 10. two kernels that shorten alike (cutlass::Kernel2) keep apart in the pies: numbered
mkdir -p alike
python3 - alike/r.json <<'PY'
import json, sys
k1 = "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4>(cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4::Params)"
k2 = "void cutlass::Kernel2<cutlass_80_simt_sgemm_128x64_8x5_nn_align1>(cutlass_80_simt_sgemm_128x64_8x5_nn_align1::Params)"
ev = [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1 + 10 * i,
       "dur": 2, "args": {"correlation": i + 1}} for i in range(2)]
ev += [{"ph": "X", "cat": "kernel", "name": k, "pid": 0, "tid": 7, "ts": 5 + 10 * i, "dur": 4 + i,
        "args": {"correlation": i + 1, "stream": 7, "device": 0}} for i, k in enumerate((k1, k2))]
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY
$ING -q alike.db alike && $ING -q --report alike.html alike.db
check "alike: both numbered" grep -q 'cutlass::Kernel2 (2)' alike.html

# 11. a trace without ProfilerStep: the critical path section says so, with no chart
mkdir -p nostep
gzip -dc "$top/examples/traces/rank0.pt.trace.json.gz" | sed 's/ProfilerStep#/Iteration#/g' > nostep/r0.json
$ING -q nostep.db nostep 2>/dev/null
$ING -q --report nostep.html nostep.db; rc=$?
check "no ProfilerStep: 0" [ $rc = 0 ]
check "no ProfilerStep: says so" grep -q 'rank 0: no critical path (no event whose name contains <code>ProfilerStep</code>)' nostep.html
check "no ProfilerStep: html" check_html nostep.html

# 12. the nn.Module view (report_modules.c): in section 14 of the recorded job, whose traces have
# module events, the path of the model under DDP with its calls; none for the generated demo
$ING -q rec.db "$top/examples/recorded_h200" && $ING -q --report rec.html rec.db
python3 - rec.html report.html <<'PY' || fails=$((fails + 1))
import re, sys
rec, demo = (open(p, encoding="utf-8").read() for p in sys.argv[1:3])
sec = lambda t: (re.search(r'<section id="operators">(.*?)</section>', t, re.S) or [None, ""])[1]
m = sec(rec)
ok = "<h3>nn.Module view</h3>" in m and "[&quot;DistributedDataParallel_0&quot;,&quot;LM_0&quot;]" in m \
    and "FROM hta_module_stats" in m and "nn.Module view" not in demo
print("" if ok else "FAIL: the nn.Module view of the recorded job (or one on the demo)")
sys.exit(0 if ok else 1)
PY
check "module view: html" check_html rec.html

[ $fails = 0 ] && echo "ok: report cli"
[ $fails = 0 ]
