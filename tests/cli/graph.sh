#!/bin/sh
# Graph replays matched to their captures (ext/graph/: GM-n, GA-n, KG-n) on the small jobs
# graph_gen.py writes, each answer worked out by hand from the traces:
#  1. positional; an eager kernel under its own operator; a kernel without launch 'unlinked'
#  2. reordered kernels: group by name; a kernel missing from the replay: greedy, one
#     dispatch discarded; an extra kernel: aligned, that kernel alone unmatched (GA-5)
#  3. two streams: per-stream FIFO; graph node ids: their order is the capture's (GA-6)
#  4. memcpy and memset nodes, in order and reordered (group by name keeps them: GA-2)
#  5. the capture of the smallest batch size >= the root's (12 -> 16); a batch above every
#     capture; a piecewise capture: k-th window with the k-th launch
#  6. no capture; no iteration annotation (an indexed capture is not chosen); the one
#     capture of a job without index serves the launches in no root (GM-3)
#  7. hta_graph_launches and hta_graph_coverage; a job without a graph launch has no rows;
#     hta_trace_health's graph_coverage (health.c HL-6): the same figure as a percentage,
#     'warn' under 95%, NULL and 'ok' without a graph launch
# 10. hostile input: a capture without EndCapture (no_window), a kernel name that is no
#     string (a dispatch that may run any kernel), node ids on some kernels only, times at
#     the int64 limits: answers, never an error
#  9. the report (HR-11): the coverage per trace, the launches not merged; none without
#     graph launches
#  8. the operator analyses see a replayed kernel under its captured operator (OP-17,
#     TB-14): hta_op_perf with the captured shapes, its summary, hta_operator_stats (no host
#     time: the CPU ran none of it at replay), hta_kernel_stats; a graph replayed three
#     times is three calls; an unmatched kernel stays under its launch
set -u
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/hta-test.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT INT TERM
cd "$work" || exit 2
command -v python3 >/dev/null 2>&1 || { echo "skip: no python3"; exit 77; }
fails=0
check() { label=$1; shift; if "$@"; then :; else echo "FAIL: $label"; fails=$((fails + 1)); fi; }
# kernels JOB: name:match:rule-or-reason:operator@window.dispatch, by kernel_seq, one line
kernels() {
  sqlite3 "$1.db" -cmd ".load $HTA_EXT" "SELECT group_concat(name || ':' || match || ':' ||
    coalesce(match_rule, unmatched_reason, '') || ':' || coalesce(op_name, '') ||
    coalesce('@' || capture_window || '.' || capture_launch_pos, ''), ' ')
    FROM (SELECT * FROM hta_graph_kernels ORDER BY kernel_seq)"
}
q() { db=$1; shift; sqlite3 "$db.db" -cmd ".load $HTA_EXT" "$@"; }

python3 "$here/graph_gen.py" jobs || exit 2
for j in jobs/*; do
  ${VG:-} "$HTA_INGEST" -q "$(basename "$j").db" "$j" 2>/dev/null
  check "$j: ingest exit 0" [ $? = 0 ]
done

# 1.
check "pos" [ "$(kernels pos)" = "gemm:matched:positional:aten::mm@0.0 add:matched:positional:aten::add@0.1 copy_kernel:eager::aten::copy_ orphan:unlinked::" ]
check "pos: the captured shapes and the dispatch's seq" [ "$(q pos "SELECT op_input_dims || ' ' || capture_launch_seq || ' ' || op_seq FROM hta_graph_kernels WHERE name = 'gemm'")" = "[[8,16],[16,16]] 3 2" ]
# 2.
check "reorder" [ "$(kernels reorder)" = "add:matched:group_by_name:aten::add@0.1 gemm:matched:group_by_name:aten::mm@0.0 copy_kernel:eager::aten::copy_ orphan:unlinked::" ]
check "missing" [ "$(kernels missing)" = "gemm:matched:greedy_forward:aten::mm@0.0 add:matched:greedy_forward:aten::add@0.2 copy_kernel:eager::aten::copy_ orphan:unlinked::" ]
check "missing: one dispatch discarded" [ "$(q missing "SELECT discarded_dispatches || ' ' || result FROM hta_graph_launches")" = "1 merged" ]
check "extra" [ "$(kernels extra)" = "gemm:matched:aligned:aten::mm@0.0 extra:unmatched:no_dispatch: add:matched:aligned:aten::add@0.1 copy_kernel:eager::aten::copy_ orphan:unlinked::" ]
check "extra: partial" [ "$(q extra "SELECT matched || ' ' || unmatched || ' ' || result FROM hta_graph_launches")" = "2 1 partial" ]
# 3.
check "streams" [ "$(kernels streams)" = "add:matched:per_stream_fifo:aten::add@0.1 gemm:matched:per_stream_fifo:aten::mm@0.0 relu:matched:per_stream_fifo:aten::relu@0.2 copy_kernel:eager::aten::copy_ orphan:unlinked::" ]
check "streams: multistream" [ "$(q streams "SELECT multistream FROM hta_graph_launches")" = 1 ]
check "nodeid" [ "$(kernels nodeid)" = "relu:matched:graph_node_id:aten::relu@0.2 gemm:matched:graph_node_id:aten::mm@0.0 add:matched:graph_node_id:aten::add@0.1 copy_kernel:eager::aten::copy_ orphan:unlinked::" ]
check "nodeid: the ids" [ "$(q nodeid "SELECT group_concat(graph_node_id) FROM hta_graph_kernels")" = "12,10,11" ]
# 4.
check "mem" [ "$(kernels mem)" = "Memcpy DtoD (Device -> Device):matched:positional:aten::copy_@0.0 gemm:matched:positional:aten::mm@0.1 Memset (Device):matched:positional:aten::zero_@0.2 Memset (Device):matched:group_by_name:aten::zero_@0.2 Memcpy DtoD (Device -> Device):matched:group_by_name:aten::copy_@0.0 gemm:matched:group_by_name:aten::mm@0.1 copy_kernel:eager::aten::copy_ orphan:unlinked::" ]
# 5.
check "batch: 12 takes the capture of 16" [ "$(q batch "SELECT batch_size || ' ' || capture_batch_size || ' ' || t.file_name FROM hta_graph_launches l JOIN trace t ON t.trace_id = l.capture_trace_id")" = "12 16 jobs/batch/capture_traces/bs_16_FULL.json" ]
check "batch: its shapes" [ "$(q batch "SELECT op_input_dims FROM hta_graph_kernels WHERE name = 'gemm'")" = "[[16,16],[16,16]]" ]
check "bigbatch" [ "$(kernels bigbatch)" = "gemm:unmatched:no_capture_batch_size: add:unmatched:no_capture_batch_size: copy_kernel:eager::aten::copy_ orphan:unlinked::" ]
check "piecewise" [ "$(kernels piecewise)" = "gemm:matched:positional:aten::mm@0.0 add:matched:positional:aten::add@1.0 relu:matched:positional:aten::relu@1.1 copy_kernel:eager::aten::copy_ orphan:unlinked::" ]
# 6.
check "nocapture" [ "$(kernels nocapture)" = "gemm:unmatched:no_capture: add:unmatched:no_capture: copy_kernel:eager::aten::copy_ orphan:unlinked::" ]
check "noroot" [ "$(kernels noroot)" = "gemm:unmatched:no_root: add:unmatched:no_root: copy_kernel:eager::aten::copy_ orphan:unlinked::" ]
check "noindex" [ "$(kernels noindex)" = "gemm:matched:positional:aten::mm@0.0 add:matched:positional:aten::add@0.1 copy_kernel:eager::aten::copy_ orphan:unlinked::" ]
# 7. coverage: gemm, extra and add ran 10 µs each; 20 of 30 µs matched
check "coverage: extra" [ "$(q extra "SELECT gpu_events || ' ' || replayed || ' ' || matched || ' ' || replayed_us || ' ' || matched_us || ' ' || round(coverage, 6) || ' ' || launches || ' ' || launches_merged FROM hta_graph_coverage")" = "5 3 2 30.0 20.0 0.666667 1 0" ]
check "coverage: nocapture" [ "$(q nocapture "SELECT replayed || ' ' || matched || ' ' || coverage FROM hta_graph_coverage")" = "2 0 0.0" ]
check "launches: piecewise" [ "$(q piecewise "SELECT group_concat(capture_window || '/' || gpu_events || '/' || capture_dispatches || '/' || gpu_time_us, ' ') FROM hta_graph_launches")" = "0/1/1/10.0 1/2/2/20.0" ]
# health: 100 x the same coverage; extra 66.7% warns, pos (every kernel matched) is ok
hc() { q "$1" "SELECT round(value, 3) || '|' || threshold || '|' || verdict || '|' || json_extract(detail, '$.replayed') || '|' || json_extract(detail, '$.matched') FROM hta_trace_health WHERE \"check\" = 'graph_coverage'"; }
check "health: extra's graph coverage" [ "$(hc extra)" = "66.667|95.0|warn|3|2" ]
check "health: pos's graph coverage" [ "$(hc pos)" = "100.0|95.0|ok|2|2" ]
check "health: coverage is hta_graph_coverage's" [ "$(q nocapture "SELECT (SELECT value FROM hta_trace_health WHERE \"check\" = 'graph_coverage') = 100 * (SELECT coverage FROM hta_graph_coverage)")" = 1 ]
# a job without any graph launch: no rows, no error
"$HTA_INGEST" -q plain.db jobs/nocapture/replay.json 2>/dev/null
sqlite3 plain.db "UPDATE string SET value = 'hipKernelRun' WHERE value = 'hipGraphLaunch'"
check "no graph launch: no rows" [ "$(q plain "SELECT (SELECT count(*) FROM hta_graph_kernels) + (SELECT count(*) FROM hta_graph_launches) + (SELECT count(*) FROM hta_graph_coverage)")" = 0 ]
check "no graph launch: health has nothing to measure" [ "$(q plain "SELECT coalesce(value, 'null') || '|' || verdict FROM hta_trace_health WHERE \"check\" = 'graph_coverage'")" = "null|ok" ]

# 8. aten::mm of the capture: M 8, N 16, K 16: 2 * 8 * 16 * 16 = 4096 FLOPs; 10 µs of gemm
check "op_perf: the captured GEMM" [ "$(q pos "SELECT p.m || ' ' || p.n || ' ' || p.k || ' ' || round(p.gflops * 1e9) || ' ' || p.kernel_us_total || ' ' || (SELECT group_concat(k.name) FROM json_each(p.kernel_event_ids) j JOIN hta_graph_kernels k ON k.kernel_event_id = j.value) FROM hta_op_perf('instance') p WHERE p.name = 'aten::mm'")" = "8 16 16 4096.0 10.0 gemm" ]
check "op_perf: the shapes of the capture of 16" [ "$(q batch "SELECT m FROM hta_op_perf WHERE name = 'aten::mm'")" = 16 ]
check "op_perf summary: launchers" [ "$(q pos "SELECT group_concat(name || ':' || launcher_category || ':' || calls || ':' || kernel_us_total, ' ') FROM (SELECT * FROM hta_op_perf_summary('name') ORDER BY name)")" = "aten::add:elementwise:1:10.0 aten::copy_:elementwise:1:3.0 aten::mm:GEMM:1:10.0" ]
check "op_perf summary: the unmatched kernel under its launch" [ "$(q extra "SELECT calls || ' ' || kernel_us_total FROM hta_op_perf_summary('name') WHERE name = 'hipGraphLaunch'")" = "1 10.0" ]
check "operator_stats: device time, no host time" [ "$(q pos "SELECT group_concat(name || ':' || calls || ':' || device_self_us || ':' || host_total_us, ' ') FROM (SELECT * FROM hta_operator_stats WHERE name IN ('aten::mm', 'aten::add') ORDER BY name)")" = "aten::add:1:10.0:0.0 aten::mm:1:10.0:0.0" ]
check "kernel_stats: the kernels' operators" [ "$(q extra "SELECT group_concat(name || ':' || operator, ' ') FROM (SELECT * FROM hta_kernel_stats ORDER BY name)")" = "add:aten::add copy_kernel:aten::copy_ extra:CallTreeRoot gemm:aten::mm orphan:CallTreeRoot" ]
check "replays: three calls" [ "$(q replays "SELECT calls || ' ' || kernel_us_total FROM hta_op_perf WHERE name = 'aten::mm'; SELECT calls || ' ' || device_self_us FROM hta_operator_stats WHERE name = 'aten::mm'")" = "3 30.0
3 30.0" ]
check "replays: each call names its launch" [ "$(q replays "SELECT count(DISTINCT graph_launch_event_id) || ' ' || count(DISTINCT event_id) FROM hta_op_perf('instance') WHERE name = 'aten::mm'")" = "3 1" ]

# the example job of docs/sql.md is what graph_gen.py --example writes
python3 "$here/graph_gen.py" --example example && diff -r example "$here/../../examples/graph_replay" >/dev/null
check "examples/graph_replay is graph_gen.py --example's" [ $? = 0 ]
# its health: 9 of 10 replayed kernels (90 of 100 µs) matched: coverage 0.9, 'warn', and
# hta-ingest says so after the ingest
"$HTA_INGEST" example.db example 2> example_said.txt
check "example: graph coverage 90% warns" [ "$(q example "SELECT value || '|' || verdict FROM hta_trace_health WHERE \"check\" = 'graph_coverage'")" = "90.0|warn" ]
check "example: hta-ingest prints it" grep -qF 'graph_coverage (warn): 90.0% of the replayed GPU time (90.0 µs of 100 µs; 9 of 10 kernels)' example_said.txt

# 10.
check "nowindow" [ "$(kernels nowindow)" = "gemm:unmatched:no_window: add:unmatched:no_window: copy_kernel:eager::aten::copy_ orphan:unlinked::" ]
check "oddargs" [ "$(kernels oddargs)" = "gemm:matched:positional:aten::mm@0.0 add:matched:positional:aten::add@0.1 copy_kernel:eager::aten::copy_ orphan:unlinked::" ]
cp pos.db huge.db
sqlite3 huge.db "UPDATE event SET ts = 9223372036854775000, dur = 9223372036854775000 WHERE seq % 2 = 0"
for f in hta_graph_kernels hta_graph_launches hta_graph_coverage "hta_op_perf('instance')" hta_op_perf_summary hta_operator_stats hta_kernel_stats; do
  q huge "SELECT count(*) FROM $f" >/dev/null 2>err.txt; check "int64 limits: $f runs" [ $? = 0 ]
done

# 9. the report
"$HTA_INGEST" --report extra.html extra.db 2>/dev/null; check "report: exit 0" [ $? = 0 ]
check "report: the coverage row" grep -qF '<td class="n">1</td><td class="n">0</td><td class="n">3</td><td class="n">2</td><td class="n">30</td><td class="n">20</td><td class="n">66.667</td>' extra.html
check "report: the launch not merged" grep -qF '<td class="n">1</td><td>aligned</td>' extra.html
"$HTA_INGEST" --report pos.html pos.db 2>/dev/null
check "report: every launch merged: no such table" [ "$(grep -cF 'FROM hta_graph_launches' pos.html)" = 0 ]
check "report: a job without graph launch has no such part" [ "$("$HTA_INGEST" --report plain.html plain.db 2>/dev/null; grep -c 'Graph replays' plain.html)" = 0 ]

[ $fails = 0 ] && echo "graph: all checks passed"
[ $fails = 0 ]
