#!/usr/bin/env python3
"""HTA's Python API (hta_sqlite.trace_analysis, trace_diff) against the expected outputs.

For a few corpus jobs (default below; or the JOB arguments), the database that
check_expected.py caches under $HTA_TMP is opened with TraceAnalysis.from_database (no
second ingest; exact timestamps, as the expected outputs are: HTA with
HTA_DISABLE_NS_ROUNDING=1 and the deviations D1-D15), every method is called the way
expected/README.md section 3 says the CSV was made, and the frames are compared cell by
cell with that README's keys (section 5) and tolerances (section 4): HTA-rounded columns,
rounded on both sides, within 10^-dec + 1e-9, other floats within max(1e-6, 1e-9*|v|), the rest exactly, NaN
== NaN. Files HTA's tie order decides (section 6) are compared only where the API
reproduces HTA's order (queue-length and bandwidth summaries: hta_tie_order = 1); a
kernel-type label of sum 0 that exists on one side only is accepted, and mismatches of a
file whose area section 6 lists for the job are reported as "tie" without failing.
get_time_spent_blocked_on_full_queue keeps HTA's one row per rank (the last stream that
reached the maximum), so it is compared with that stream's row of queue_full_blocked_max2.

Usage: python_api.py [JOB ...]   (env: HTA_SHARED HTA_TMP HTA_INGEST; the package
hta_sqlite on PYTHONPATH with the binaries under test). Exit 0 pass, 1 fail, 77 skip.
"""
import contextlib
import csv
import io
import json
import math
import os
import re
import sys
import tempfile
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_expected as ce  # noqa: E402

JOBS = ["hta_trace_filter", "hta_ns_resolution_trace", "hta_amd_trace", "hta_trace_compare_base",
        "hta_cupti_profiler", "hta_critical_path_simple_add", "hta_mtia_trace_single_rank"]
OTHER = {"hta_trace_compare_base": "hta_trace_compare_test", "hta_trace_diff_control": "hta_trace_diff_test"}

# expected/README.md section 4: HTA-rounded columns and their decimals.
ROUNDED = {
    "temporal_breakdown": {"idle_time_pctg": 2, "compute_time_pctg": 2, "non_compute_time_pctg": 2},
    "comm_comp_overlap": {"comp_comm_overlap_pctg": 2},
    "idle_time_breakdown": {"idle_time": 2, "idle_time_ratio": 2},
    "idle_interval_stats": {c: 2 for c in ("count", "mean", "std", "min", "25%", "50%", "75%", "max")},
    "kernel_type_breakdown": {"percentage": 1},
    "aten_op_kernels_and_delay": {"avg_aten_op_launch_delay": 3, "avg_runtime_delay": 3},
}


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def num(v):
    if v is None:
        return None
    if isinstance(v, str):
        if v == "":
            return None
        try:
            f = float(v)
        except ValueError:
            return v
        return None if math.isnan(f) else f
    try:
        f = float(v)
    except (TypeError, ValueError):
        return v
    return None if math.isnan(f) else f


def same(a, b, dec=None):
    x, y = num(a), num(b)
    if x is None or y is None:
        return x is None and y is None
    if isinstance(x, str) or isinstance(y, str):
        return str(a) == str(b)
    # Both sides are rounded to DEC decimals (the API rounds as HTA does) from values that
    # differ by float error: one unit of the last decimal apart at most.
    tol = 10 ** -dec + 1e-9 if dec is not None else max(1e-6, 1e-9 * abs(y))
    return abs(x - y) <= tol


class Report(object):
    def __init__(self):
        self.files = self.cells = self.bad = self.ties = 0
        self.lines = []
        self.tie_areas = {}
        self.job = None

    def fail(self, where, msg, tie=False):
        if tie:
            self.ties += 1
        else:
            self.bad += 1
        if len([x for x in self.lines if x.startswith(where)]) < 5:
            self.lines.append("%s %s: %s" % ("tie " if tie else "FAIL", where, msg))

    def is_tie(self, where):
        """README section 6 lists a tie of this job in the file's area: reported only."""
        fname = where.split("/", 1)[1].split(" ")[0] + ".csv"
        areas = self.tie_areas.get(self.job, set())
        return any(rx.match(fname) and area in areas for rx, area in ce.TIE_AREA_OF_FILE)


def compare(rep, where, got_rows, exp_rows, keys, cols, rounded=None, zero_ok=None):
    """Rows (dicts) keyed by KEYS; COLS compared. ZERO_OK: a column whose 0 makes a
    one-sided row acceptable."""
    rep.files += 1
    rounded = rounded or {}
    tie = rep.is_tie(where)

    def key(r):
        return tuple(str(num(r[k])) if not isinstance(num(r[k]), str) else r[k] for k in keys)

    g = {key(r): r for r in got_rows}
    e = {key(r): r for r in exp_rows}
    for k in sorted(set(g) | set(e), key=str):
        if k not in g or k not in e:
            r = g.get(k) or e.get(k)
            if zero_ok and num(r[zero_ok]) == 0:
                continue
            rep.fail(where, "row %s only in %s" % (k, "ours" if k in g else "expected"), tie)
            continue
        for c in cols:
            rep.cells += 1
            if not same(g[k][c], e[k][c], rounded.get(c)):
                rep.fail(where, "%s %s: ours %r, expected %r" % (k, c, g[k][c], e[k][c]), tie)


def records(df, index=False):
    if df is None:
        return []
    d = df.reset_index() if index else df
    return [{c: v for c, v in zip(d.columns, row)} for row in d.itertuples(index=False)]


def flat(df):
    """A summary frame (index (rank, key), columns (top, stat)) as HTA's CSVs write it."""
    d = df.copy()
    d.columns = ["%s_%s" % c for c in d.columns]
    return records(d, index=True)


def check_job(job, shared, tmp, ingest, rep):
    from hta_sqlite.trace_analysis import TraceAnalysis
    from hta_sqlite.trace_diff import LabeledTrace, TraceDiff

    exp = os.path.join(shared, "expected", job)
    m = ce.ensure_db(job, [os.path.join(shared, "corpus", job)], tmp, ingest)
    if m["rc"] not in (0, 1):
        rep.fail(job, "ingest failed: %s" % m["stderr"][:200])
        return
    a = TraceAnalysis.from_database(m["db"])
    ranks = a.get_ranks()

    def have(name):
        return os.path.exists(os.path.join(exp, name))

    def expected(name):
        return read_csv(os.path.join(exp, name))

    w = job + "/"
    if have("temporal_breakdown.csv"):
        t = a.get_temporal_breakdown(visualize=False)
        compare(rep, w + "temporal_breakdown", records(t), expected("temporal_breakdown.csv"), ["rank"],
                list(t.columns[1:]), ROUNDED["temporal_breakdown"])
    if have("comm_comp_overlap.csv"):
        compare(rep, w + "comm_comp_overlap", records(a.get_comm_comp_overlap(visualize=False)),
                expected("comm_comp_overlap.csv"), ["rank"], ["comp_comm_overlap_pctg"], ROUNDED["comm_comp_overlap"])
    for suffix, args in (("", {}), ("_all", {"duration_ratio": 1.0, "num_kernels": 100000})):
        if have("kernel_type_breakdown%s.csv" % suffix):
            types, kernels = a.get_gpu_kernel_breakdown(visualize=False, **args)
            compare(rep, w + "kernel_type_breakdown" + suffix, records(types),
                    expected("kernel_type_breakdown%s.csv" % suffix), ["kernel_type"], ["sum", "percentage"],
                    ROUNDED["kernel_type_breakdown"], zero_ok="sum")
            compare(rep, w + "gpu_kernel_breakdown" + suffix, records(kernels),
                    expected("gpu_kernel_breakdown%s.csv" % suffix), ["rank", "kernel_type", "name"],
                    ["sum (us)", "max (us)", "min (us)", "stddev", "mean (us)"])
    if have("idle_time_breakdown.csv"):
        idle, stats = a.get_idle_time_breakdown(ranks=ranks, visualize=False, show_idle_interval_stats=True)
        keys = ["rank", "stream", "idle_category"]
        compare(rep, w + "idle_time_breakdown", records(idle), expected("idle_time_breakdown.csv"), keys,
                ["idle_time", "idle_time_ratio"], ROUNDED["idle_time_breakdown"])
        compare(rep, w + "idle_interval_stats", records(stats, index=True), expected("idle_interval_stats.csv"), keys,
                ["count", "mean", "std", "min", "25%", "50%", "75%", "max"], ROUNDED["idle_interval_stats"])
    launch = a.get_cuda_kernel_launch_stats(ranks=ranks, visualize=False)
    for r in ranks:
        if have("cuda_kernel_launch_stats_rank%d.csv" % r):
            compare(rep, w + "cuda_kernel_launch_stats_rank%d" % r, records(launch[r]),
                    expected("cuda_kernel_launch_stats_rank%d.csv" % r), ["correlation"],
                    ["cpu_duration", "gpu_duration", "launch_delay"])
    if have("queue_length_summary.csv"):
        compare(rep, w + "queue_length_summary", flat(a.get_queue_length_summary(ranks)),
                expected("queue_length_summary.csv"), ["rank", "stream"],
                ["queue_length_%s" % s for s in ("count", "mean", "std", "min", "25%", "50%", "75%", "max")])
    if have("queue_full_blocked_max2.csv"):
        got = records(a.get_time_spent_blocked_on_full_queue(a.get_queue_length_time_series(ranks), 2))
        rows = expected("queue_full_blocked_max2.csv")
        last = {}
        for row in rows:  # HTA's rule: the last stream (series order: ascending) per rank
            if row["rank"] not in last or int(row["stream"]) > int(last[row["rank"]]["stream"]):
                last[row["rank"]] = row
        compare(rep, w + "queue_full_blocked_max2 (last stream)", got, list(last.values()), ["rank", "stream"],
                ["duration_at_max_queue_length", "relative_duration_at_max_queue_length"])
    if have("memory_bw_summary.csv"):
        s = a.get_memory_bw_summary(ranks)
        compare(rep, w + "memory_bw_summary", flat(s) if s is not None else [], expected("memory_bw_summary.csv"),
                ["rank", "name"],
                ["memory_bw_gbps_%s" % x for x in ("count", "mean", "std", "min", "25%", "50%", "75%", "max")])
    if have("profiler_steps.csv"):
        compare(rep, w + "profiler_steps", [{"profiler_step": s} for s in a.get_profiler_steps()],
                expected("profiler_steps.csv"), ["profiler_step"], [])
    if have("potential_stragglers.csv"):
        compare(rep, w + "potential_stragglers",
                [{"position": i, "rank": r} for i, r in enumerate(a.get_potential_stragglers())],
                expected("potential_stragglers.csv"), ["position"], ["rank"])
    aten = None
    for r in ranks:
        if have("aten_op_kernels_and_delay_rank%d.csv" % r):
            aten = aten or a.get_aten_op_kernels_and_delay(ranks, visualize=False)
            compare(rep, w + "aten_op_kernels_and_delay_rank%d" % r, records(aten[r]),
                    expected("aten_op_kernels_and_delay_rank%d.csv" % r), ["aten_op_name", "kernel_sequence"],
                    ["occurrence_count", "avg_aten_op_launch_delay", "avg_runtime_delay"],
                    ROUNDED["aten_op_kernels_and_delay"])
        if have("frequent_cuda_kernel_sequences_rank%d.csv" % r):
            op = expected("frequent_kernel_op_candidates_rank%d.csv" % r)[0]["operator_name"]
            with tempfile.TemporaryDirectory() as out:
                seq = a.get_frequent_cuda_kernel_sequences(op, out, rank=r)
            compare(rep, w + "frequent_cuda_kernel_sequences_rank%d" % r, records(seq),
                    expected("frequent_cuda_kernel_sequences_rank%d.csv" % r), ["pattern"],
                    ["count", "GPU kernel duration (us)", "CPU op duration (us)"])
        if have("critical_path_summary_rank%d.csv" % r):
            calls = {}
            for row in expected("critical_path_summary_rank%d.csv" % r):
                calls.setdefault((row["annotation"], row["instance_id"], row["add_zero_weight_launch_edges"]),
                                 []).append(row)
            for (ann, inst, zw), rows in calls.items():
                os.environ["CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE"] = zw
                iid = None if inst == "" else int(inst) if re.fullmatch(r"-?\d+", inst) else tuple(
                    int(x) for x in re.findall(r"-?\d+", inst))
                g, ok = a.critical_path_analysis(r, ann, iid)
                with contextlib.redirect_stdout(io.StringIO()):  # summary() prints a line, as HTA's
                    s = g.summary()
                got = [{"bound_by": b, "percentage": p} for b, p in s.items()]
                compare(rep, w + "critical_path_summary_rank%d %r/%s/%s" % (r, ann, inst, zw), got, rows,
                        ["bound_by"], ["percentage"])
            os.environ.pop("CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE", None)
    for u in ("gpu", "cpu"):
        # allowlist_patterns=[]: the same fold done in pandas over the events (no name kept)
        for allow in (None, []):
            if have("user_annotation_breakdown_%s.csv" % u):
                df = a.get_gpu_user_annotation_breakdown(u == "gpu", visualize=False, duration_ratio=1.0,
                                                         num_kernels=100000, allowlist_patterns=allow)
                compare(rep, w + "user_annotation_breakdown_%s%s" % (u, "" if allow is None else " (allowlist)"),
                        records(df), expected("user_annotation_breakdown_%s.csv" % u), ["rank", "name"],
                        ["sum (us)", "max (us)", "min (us)", "stddev", "mean (us)"])
    cupti = a.get_cupti_counter_data_with_operators(ranks)
    for r, df in zip([r for r in ranks if have("cupti_counter_data_rank%d.csv" % r)], cupti):
        rows = expected("cupti_counter_data_rank%d.csv" % r)
        # every column of HTA's frame (51 on hta_cupti_profiler): trace data, counters, operators
        cols = [c for c in rows[0] if c != "index"] if rows else []
        missing = [c for c in cols if c not in df.columns]
        if missing:
            rep.fail(w + "cupti_counter_data_rank%d" % r, "columns missing: %s" % missing)
            cols = [c for c in cols if c in df.columns]
        got = records(df.assign(op_stack=df["op_stack"].map(lambda s: json.dumps(list(s)))))
        compare(rep, w + "cupti_counter_data_rank%d" % r, got, rows, ["index"], cols)
    # TraceDiff: labels "control" and "test" give the CSVs' column names.
    cols = ["control_counts", "control_total_duration", "test_counts", "test_total_duration", "diff_counts",
            "diff_duration", "counts_change_categories"]
    c = LabeledTrace(label="control", t=a)
    if have("trace_diff_iterations.csv") and len(c.iterations()) >= 2:
        i0, i1 = c.iterations()[:2]
        d = TraceDiff.compare_traces(c, LabeledTrace(label="test", t=a), ranks[0], ranks[0], i0, i1)
        compare(rep, w + "trace_diff_iterations", records(d.rename_axis("name"), index=True),
                expected("trace_diff_iterations.csv"), ["name"], cols)
    if have("trace_diff_ranks.csv") and len(ranks) >= 2:
        d = TraceDiff.compare_traces(c, LabeledTrace(label="test", t=a), ranks[0], ranks[1])
        compare(rep, w + "trace_diff_ranks", records(d.rename_axis("name"), index=True),
                expected("trace_diff_ranks.csv"), ["name"], cols)
    if have("trace_diff_vs_other.csv") and job in OTHER:
        mo = ce.ensure_db(OTHER[job], [os.path.join(shared, "corpus", OTHER[job])], tmp, ingest)
        other = LabeledTrace(label="test", t=TraceAnalysis.from_database(mo["db"]))
        d = TraceDiff.compare_traces(c, other)
        compare(rep, w + "trace_diff_vs_other", records(d.rename_axis("name"), index=True),
                expected("trace_diff_vs_other.csv"), ["name"], cols)


def main():
    shared, tmp, ingest, _ = ce.env_paths()
    if not os.path.isdir(os.path.join(shared, "expected")):
        print("skip: no %s/expected" % shared)
        return 77
    try:
        import pandas  # noqa: F401
    except ImportError:
        print("skip: no pandas")
        return 77
    warnings.simplefilter("ignore")
    rep = Report()
    rep.tie_areas = ce.parse_readme_ties(shared)
    for job in sys.argv[1:] or JOBS:
        rep.job = job
        if not os.path.isdir(os.path.join(shared, "expected", job)):
            rep.fail(job, "no such job")
            continue
        check_job(job, shared, tmp, ingest, rep)
    for line in rep.lines:
        print(line)
    print("summary: python API vs expected: %d files, %d cells, %d mismatches, %d at HTA's tied timestamps"
          % (rep.files, rep.cells, rep.bad, rep.ties))
    return 1 if rep.bad else 0


if __name__ == "__main__":
    sys.exit(main())
