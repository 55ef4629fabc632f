#!/usr/bin/env python3
"""A notebook's session timed three ways, one after the other on the same machine:
hta_sqlite.trace_analysis with an empty cache (ingest included), the same again (cache
current), and HTA itself from an HTA checkout. Each runs in a fresh process: the
constructor, then the same eight methods; wall-clock seconds and peak RSS are printed.

    python3 tests/python/bench_vs_hta.py TRACE_DIR HTA_SRC   [--skip-hta]

Not run by the test suite (HTA takes minutes and gigabytes on a large trace); README's
figures come from it.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))

METHODS = [
    ("get_temporal_breakdown", "a.get_temporal_breakdown(visualize=False)"),
    ("get_gpu_kernel_breakdown", "a.get_gpu_kernel_breakdown(visualize=False)"),
    ("get_idle_time_breakdown", "a.get_idle_time_breakdown(ranks=ranks, visualize=False)"),
    ("get_comm_comp_overlap", "a.get_comm_comp_overlap(visualize=False)"),
    ("get_cuda_kernel_launch_stats", "a.get_cuda_kernel_launch_stats(ranks=ranks, visualize=False)"),
    ("get_queue_length_summary", "a.get_queue_length_summary(ranks=ranks)"),
    ("get_memory_bw_summary", "a.get_memory_bw_summary(ranks=ranks)"),
    ("critical_path_analysis", "a.critical_path_analysis(ranks[0], 'ProfilerStep', 1)"),
]

CHILD = r"""
import json, logging, os, resource, sys, time, warnings
warnings.simplefilter("ignore"); logging.disable(logging.CRITICAL)
mod, trace_dir = sys.argv[1], sys.argv[2]
t = {}
t0 = time.time()
TraceAnalysis = __import__(mod + ".trace_analysis", fromlist=["TraceAnalysis"]).TraceAnalysis
t["import"] = time.time() - t0
t0 = time.time()
a = TraceAnalysis(trace_dir=trace_dir)
t["constructor"] = time.time() - t0
ranks = sorted(a.t.traces.keys()) if hasattr(a, "t") else a.get_ranks()
for name, expr in json.loads(sys.argv[3]):
    t0 = time.time()
    eval(expr)
    t[name] = time.time() - t0
t["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
print(json.dumps(t))
"""


def run(mod, trace_dir, pythonpath, cache):
    env = dict(os.environ, PYTHONPATH=pythonpath, HTA_SQLITE_CACHE=cache)
    p = subprocess.run([sys.executable, "-c", CHILD, mod, trace_dir, json.dumps(METHODS)], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if p.returncode != 0:
        raise SystemExit("%s failed:\n%s" % (mod, p.stderr[-2000:]))
    return json.loads(p.stdout.strip().splitlines()[-1])


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    trace_dir, hta_src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    ours_path = os.path.join(TOP, "python")
    with tempfile.TemporaryDirectory() as cache:
        cols = [("hta_sqlite, empty cache", run("hta_sqlite", trace_dir, ours_path, cache)),
                ("hta_sqlite, cache current", run("hta_sqlite", trace_dir, ours_path, cache))]
    if "--skip-hta" not in sys.argv:
        cols.append(("HTA " + hta_src, run("hta", trace_dir, hta_src, "")))
    rows = ["import", "constructor"] + [m for m, _ in METHODS]
    print("%-30s" % "seconds" + "".join("%28s" % c for c, _ in cols))
    for r in rows:
        print("%-30s" % r + "".join("%28.2f" % t[r] for _, t in cols))
    total = ["%28.2f" % sum(t[r] for r in rows) for _, t in cols]
    print("%-30s" % "total" + "".join(total))
    print("%-30s" % "peak RSS (MB)" + "".join("%28.0f" % t["peak_rss_mb"] for _, t in cols))


if __name__ == "__main__":
    main()
