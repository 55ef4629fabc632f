#!/bin/sh
# hta_trace_health on traces written for it (tests/cli/health_traces.py says what each has
# wrong and what the checks must give), on a healthy generated job (nothing fires) and on the
# same job with one rank's clock moved; and what hta-ingest prints after an ingest
# (ingest/health_print.c HP-n): one line per failed or warned check naming the file, -q none.
# Works in a scratch directory of its own; HTA_INGEST and HTA_EXT are the binaries under test.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${HTA_INGEST:=$top/hta-ingest}" "${HTA_EXT:=$top/hta.so}"
command -v python3 >/dev/null 2>&1 || { echo "skip: no python3"; exit 77; }
# a scratch directory of its own: tests/run.sh runs every script in one directory
work=$(mktemp -d "${TMPDIR:-/tmp}/hta-test.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT INT TERM
cd "$work" || exit 2
fails=0
check() { # check LABEL CONDITION...
  label=$1; shift
  if "$@"; then :; else echo "FAIL: $label"; fails=$((fails + 1)); fi
}
h() { sqlite3 "$1" -cmd ".load $HTA_EXT" "$2"; }
# v DB JOB RANK CHECK: "value|verdict" of that check
v() { h "$1" "SELECT coalesce(value, 'null') || '|' || verdict FROM hta_trace_health WHERE job = '$2' AND rank = $3 AND \"check\" = '$4'"; }

python3 "$here/health_traces.py" t || exit 2
${VG:-} "$HTA_INGEST" -j 1 t.db t/clock t/noflows t/steps t/gpuonly t/cpuonly t/cpu4 t/ns t/stopped 2> said.txt
check "ingest exit 0" [ $? = 0 ]

# a rank's clock 700 µs ahead: the medians of the ends are the two others' (HC-3)
check "clock r0" [ "$(v t.db clock 0 clock_offset)" = "0.0|ok" ]
check "clock r1" [ "$(v t.db clock 1 clock_offset)" = "0.0|ok" ]
check "clock r2" [ "$(v t.db clock 2 clock_offset)" = "700.0|warn" ]
check "clock collectives" [ "$(h t.db "SELECT json_extract(detail, '$.collectives') FROM hta_trace_health WHERE job = 'clock' AND rank = 2 AND \"check\" = 'clock_offset'")" = 4 ]
check "clock job healthy otherwise" [ "$(h t.db "SELECT count(*) FROM hta_trace_health WHERE job = 'clock' AND verdict != 'ok'")" = 1 ]
check "clock, attached" [ "$(sqlite3 :memory: -cmd ".load $HTA_EXT" "ATTACH 't.db' AS o; SELECT value FROM hta_trace_health WHERE schema = 'o' AND job = 'clock' AND rank = 2 AND \"check\" = 'clock_offset'")" = "700.0" ]
# missing correlations and flows: 3 of 10 each way
check "kernels without launch" [ "$(v t.db noflows 0 kernels_without_launch)" = "30.0|warn" ]
check "launches without kernel" [ "$(v t.db noflows 0 launches_without_kernel)" = "30.0|warn" ]
check "no flows" [ "$(v t.db noflows 0 flows)" = "0|warn" ]
# a collapsed step (50 of a median 1000) and a truncated last step (200)
check "collapsed" [ "$(v t.db steps 0 collapsed_steps)" = "1|warn" ]
check "collapsed step 3" [ "$(h t.db "SELECT json_extract(detail, '$.collapsed[0].step') FROM hta_trace_health WHERE job = 'steps' AND \"check\" = 'collapsed_steps'")" = 3 ]
check "last step" [ "$(v t.db steps 0 last_step)" = "0.2|warn" ]
# GPU-only, CPU-only
check "gpu only" [ "$(v t.db gpuonly 0 cpu_activity)" = "0.0|warn" ]
check "gpu only has GPU rows" [ "$(v t.db gpuonly 0 gpu_activity)" = "5|ok" ]
check "cpu only" [ "$(v t.db cpuonly 0 gpu_activity)" = "0|warn" ]
check "cpu only launches nothing" [ "$(v t.db cpuonly 0 cpu_activity)" = "null|ok" ]
# ns time units: kept exact
check "ns unit" [ "$(v t.db ns 0 time_unit)" = "ns|ok" ]
check "ns resolution" [ "$(h t.db "SELECT json_extract(detail, '$.ns_resolution') FROM hta_trace_health WHERE job = 'ns' AND \"check\" = 'time_unit'")" = 1 ]
check "ns exact" [ "$(sqlite3 t.db "SELECT min(ts) || '|' || min(dur) FROM events WHERE name = 'gemm_kernel' AND trace_id = (SELECT trace_id FROM trace WHERE file_name = 't/ns/trace.json')")" = "1000125|50250" ]
check "ms: no ns resolution" [ "$(h t.db "SELECT json_extract(detail, '$.ns_resolution') FROM hta_trace_health WHERE job = 'steps' AND \"check\" = 'time_unit'")" = 0 ]
# the profiler's buffer filled
check "stopped early" [ "$(v t.db stopped 0 profiler_stopped_early)" = "1|fail" ]
check "stopped: out of range" [ "$(h t.db "SELECT json_extract(detail, '$.out_of_range') FROM hta_trace_health WHERE job = 'stopped' AND \"check\" = 'profiler_record_errors'")" = 4181 ]

# HP-1, HP-2: a line per failed or warned check, naming the file; failures first
check "said: one line each" [ "$(grep -c '^hta-ingest: t/' said.txt)" = 11 ]
check "said: clock" grep -q '^hta-ingest: t/clock/rank2.json: clock_offset (warn): collectives that end together end 700.0 µs later' said.txt
check "said: fail first" [ "$(grep 't/stopped/' said.txt | head -n 1 | grep -c 'profiler_stopped_early (fail)')" = 1 ]
check "said: nothing ok" [ "$(grep -c '(ok)' said.txt)" = 0 ]
# HP-3: the same check on 4 traces of a job is one line
check "said: once for 4" grep -q '^hta-ingest: job cpu4: gpu_activity (warn) on 4 traces, e.g. t/cpu4/rank0.json: no GPU activity' said.txt
check "said: not per file" [ "$(grep -c 't/cpu4/rank[123]' said.txt)" = 0 ]
# a job's own check; files already present say nothing; -q says nothing
"$HTA_INGEST" --job solo j.db t/clock/rank0.json 2> solo.txt
check "said: job check" grep -q '^hta-ingest: job solo: ranks_profiled (warn): 1 of 3 ranks profiled' solo.txt
"$HTA_INGEST" -j 1 t.db t/noflows 2> again.txt
check "said: nothing new" [ "$(grep -c 'flows' again.txt)" = 0 ]
"$HTA_INGEST" -q -j 1 q.db t/noflows 2> quiet.txt
check "said: -q" [ ! -s quiet.txt ]

# a healthy generated job: no check fires, hta-ingest says nothing but its summary
python3 "$top/tools/gen_trace.py" healthy --ranks 3 --healthy -q || exit 2
"$HTA_INGEST" -j 1 g.db healthy 2> healthy.txt
check "healthy: all ok" [ "$(h g.db "SELECT count(*) || '|' || sum(verdict = 'ok') FROM hta_trace_health")" = "61|61" ]
check "healthy: one line" [ "$(wc -l < healthy.txt)" = 1 ]
check "healthy: clocks agree" [ "$(h g.db "SELECT max(abs(value)) < 5 AND min(json_extract(detail, '$.collectives')) >= 20 FROM hta_trace_health WHERE \"check\" = 'clock_offset'")" = 1 ]
# the same job with rank 1's clock 2500 µs ahead: only rank 1 is off, by 2500 (± the generator's
# few µs of jitter between the ends)
mkdir shifted
python3 - healthy shifted <<'PY' || exit 2
import json, os, sys
src, dst = sys.argv[1], sys.argv[2]
for f in sorted(os.listdir(src)):
    d = json.load(open(os.path.join(src, f)))
    if f.startswith("rank1"):
        for e in d["traceEvents"]:
            if "ts" in e:
                e["ts"] = e["ts"] + 2500
    json.dump(d, open(os.path.join(dst, f), "w"))
PY
"$HTA_INGEST" -q -j 1 s.db shifted
check "shifted: rank 1 off" [ "$(h s.db "SELECT verdict = 'fail' AND abs(value - 2500) < 5 FROM hta_trace_health WHERE rank = 1 AND \"check\" = 'clock_offset'")" = 1 ]
check "shifted: others on time" [ "$(h s.db "SELECT max(abs(value)) < 5 FROM hta_trace_health WHERE rank != 1 AND \"check\" = 'clock_offset'")" = 1 ]
check "shifted: nothing else" [ "$(h s.db "SELECT group_concat(\"check\") FROM hta_trace_health WHERE verdict != 'ok'")" = clock_offset ]

# the report opens each job with the block (report_health.c HRH-n), before the findings
"$HTA_INGEST" -q --report r.html --job stopped t.db
check "report: counts" grep -q 'Of the 21 checks of <code>hta_trace_health</code> on 1 trace, 1 failed and 1 warned' r.html
check "report: fail first" [ "$(grep -o '<code>profiler_[a-z_]*</code></td><td style="color:#[0-9a-f]*' r.html | tr '\n' ' ')" = '<code>profiler_stopped_early</code></td><td style="color:#d62728 <code>profiler_log_errors</code></td><td style="color:#b8860b ' ]
check "report: before the findings" [ "$(grep -o 'id="health"\|id="findings"' r.html | tr '\n' ' ')" = 'id="health" id="findings" ' ]
"$HTA_INGEST" -q --report g.html g.db
check "report: healthy" grep -q 'All 61 checks of <code>hta_trace_health</code> on 3 traces say ok.' g.html
check "report: healthy, no table" [ "$(sed -n '/id="health"/,/id="findings"/p' g.html | grep -c '<table')" = 0 ]

[ $fails = 0 ]
