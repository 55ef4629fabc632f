#!/bin/sh
# hta_write_critical_path_overlay (ext/io/io_critical_path.c CO-1..3): the critical
# events get args.critical = 1, the path's launch-delay / dependency / sync edges
# become flow events; io entry point only. cwd is a scratch directory.
set -u
fails=0
check() { # check LABEL EXPECTED ACTUAL
  [ "$2" = "$3" ] || { echo "FAIL: $1: expected [$2], got [$3]"; fails=$((fails + 1)); }
}
rm -rf cp_ov && mkdir cp_ov && cd cp_ov || exit 1
cat > r0.json <<'J'
{"traceEvents": [
 {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 50},
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 20},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 2, "dur": 5, "args": {"correlation": 7}},
 {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 10, "dur": 30, "args": {"correlation": 7, "stream": 7, "device": 0}}
]}
J
"$HTA_INGEST" -q d.db r0.json || { echo "ingest failed"; exit 1; }
io() { sqlite3 d.db -cmd ".load $HTA_EXT sqlite3_hta_io_init" "$1" 2>&1; }
# path: mm.s -> launch.s (operator), launch.s -> gemm.s (launch delay), gemm: 3 events
check marked 3 "$(io "SELECT hta_write_critical_path_overlay(0, 'ProfilerStep', 0, 'o.json')")"
if command -v python3 >/dev/null 2>&1; then
  got=$(python3 - <<'P'
import json
ev = json.load(open("o.json"))["traceEvents"]
crit = [e["name"] for e in ev if e["ph"] == "X" and e.get("args", {}).get("critical") == 1]
fl = [(e["ph"], e["id"], e["pid"], e["tid"], e["ts"], e["args"]["weight"], e["args"]["type"], e.get("bp"))
      for e in ev if e.get("cat") == "critical_path"]
print(len(ev), ",".join(crit), fl)
P
)
  check flows "6 aten::mm,cudaLaunchKernel,gemm [('s', 0, 1, 1, 2, 8, 'critical_path_kernel_launch_delay', None), ('f', 0, 0, 7, 10, 8, 'critical_path_kernel_launch_delay', 'e')]" "$got"
fi
check gz 3 "$(io "SELECT hta_write_critical_path_overlay(0, NULL, NULL, 'o.json.gz')")"
check no_path "Error: stepping, hta_write_critical_path_overlay: n.json: no critical path (no name contains the annotation)" \
  "$(io "SELECT hta_write_critical_path_overlay(0, 'Nope', NULL, 'n.json')")"
[ -e n.json ] && { echo "FAIL: n.json written"; fails=$((fails + 1)); }
check inst "Error: stepping, hta_write_critical_path_overlay: instance_id must be an integer or '[a, b]'" \
  "$(io "SELECT hta_write_critical_path_overlay(0, 'ProfilerStep', 'x', 'n.json')")"
check default_ep "Error: in prepare, no such function: hta_write_critical_path_overlay" \
  "$(sqlite3 d.db -cmd ".load $HTA_EXT" "SELECT hta_write_critical_path_overlay(0, '', NULL, 'n.json')" 2>&1 | head -n 1)"
[ $fails = 0 ]
