"""Hand-computed checks of hta_sqlite.trace_analysis and hta_sqlite.trace_diff on small traces
written here (run by tests/cli/python_api.sh; needs pandas, not HTA).

The main trace (rank 0), times in µs after B = 1_000_000 (the job's time base: L1 at B):
  ProfilerStep#1  user_annotation  [0, 50)
  aten::mm        cpu_op           [0, 3)      wraps L1
  L1 cudaLaunchKernel  [0, 2)  corr 1 -> K1 "void gemm_kernel"   stream 7   [3, 13)
  L2 cudaLaunchKernel  [4, 7)  corr 2 -> K2 "ncclKernel_AllReduce" stream 20 [8, 23)
  L3 cudaLaunchKernel  [10, 12) corr 3 -> K3 "void gemm_kernel"  stream 7   [33, 43)
  L4 cudaMemcpyAsync   [14, 15) corr 4 -> M1 "Memcpy HtoD (Pageable -> Device)" stream 7
                                          [15, 19), 2.5 GB/s
  fwd  gpu_user_annotation on stream 7's timeline [2, 14)
"""

import gzip
import json
import os
import shutil
import sys
import tempfile
import unittest
import warnings

B = 1_000_000


def gpu(name, cat, ts, dur, stream, corr, extra=None):
    args = {"stream": stream, "correlation": corr, "device": 0}
    args.update(extra or {})
    return {"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": stream, "ts": ts, "dur": dur, "args": args}


def host(name, cat, ts, dur, corr=None, tid=10):
    ev = {"ph": "X", "cat": cat, "name": name, "pid": 100, "tid": tid, "ts": ts, "dur": dur, "args": {}}
    if corr is not None:
        ev["args"]["correlation"] = corr
    return ev


def main_trace(base=B):
    return {
        "distributedInfo": {"rank": 0},
        "traceEvents": [
            host("ProfilerStep#1", "user_annotation", base + 0, 50),
            host("aten::mm", "cpu_op", base + 0, 3),
            host("cudaLaunchKernel", "cuda_runtime", base + 0, 2, 1),
            host("cudaLaunchKernel", "cuda_runtime", base + 4, 3, 2),
            host("cudaLaunchKernel", "cuda_runtime", base + 10, 2, 3),
            host("cudaMemcpyAsync", "cuda_runtime", base + 14, 1, 4),
            gpu("void gemm_kernel", "kernel", base + 3, 10, 7, 1),
            gpu("ncclKernel_AllReduce", "kernel", base + 8, 15, 20, 2),
            gpu("void gemm_kernel", "kernel", base + 33, 10, 7, 3),
            gpu("Memcpy HtoD (Pageable -> Device)", "gpu_memcpy", base + 15, 4, 7, 4,
                {"memory bandwidth (GB/s)": 2.5}),
            {"ph": "X", "cat": "gpu_user_annotation", "name": "fwd", "pid": 0, "tid": 7, "ts": base + 2, "dur": 12,
             "args": {}},
        ],
    }


def write(path, trace, gz=True):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    data = json.dumps(trace, indent=1).encode()
    with (gzip.open(path, "wb") if gz else open(path, "wb")) as f:
        f.write(data)


def write_late_allreduce(d):
    """Two ranks, steps 1..3 at B + 0, 100, 200 µs: an allreduce launched at +1 runs from +10,
    5 µs later on rank 1 in step 1 and on rank 0 in step 2, lasting 20 + rank µs."""
    for r, late in ((0, 2), (1, 1)):
        ev = []
        for step in (1, 2, 3):
            t0 = B + 100 * (step - 1)
            ev.append(host("ProfilerStep#%d" % step, "user_annotation", t0, 100))
            ev.append(host("cudaLaunchKernel", "cuda_runtime", t0 + 1, 2, step))
            ev.append(gpu("ncclKernel_AllReduce", "kernel", t0 + 10 + (5 if step == late else 0), 20 + r, 20, step))
        write(os.path.join(d, "rank%d.json.gz" % r), {"distributedInfo": {"rank": r}, "traceEvents": ev})


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="hta_pyapi_")
        os.environ["HTA_SQLITE_CACHE"] = os.path.join(self.tmp, "cache")
        os.environ.pop("HTA_DISABLE_NS_ROUNDING", None)
        os.environ.pop("CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE", None)
        self.dir = os.path.join(self.tmp, "job")
        write(os.path.join(self.dir, "rank0.json.gz"), main_trace())
        warnings.simplefilter("ignore")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def analyzer(self, d=None, **kw):
        from hta_sqlite.trace_analysis import TraceAnalysis

        return TraceAnalysis(trace_dir=d or self.dir, **kw)


class TestCache(Base):
    def test_reuse_copy_change(self):
        """CACHE-2, CACHE-3, CACHE-7: same contents -> same database, also from a copy of the
        directory (whose paths then are the ones the database reads); new contents -> another."""
        a = self.analyzer()
        self.assertTrue(a.db_path.startswith(os.environ["HTA_SQLITE_CACHE"]))
        self.assertEqual(sorted(os.listdir(self.dir)), ["rank0.json.gz"])  # nothing written beside the trace
        mtime = os.stat(a.db_path).st_mtime_ns
        self.assertEqual(self.analyzer().db_path, a.db_path)
        self.assertEqual(os.stat(a.db_path).st_mtime_ns, mtime)
        copy = os.path.join(self.tmp, "copy")
        shutil.copytree(self.dir, copy)
        b = self.analyzer(copy)
        self.assertEqual(b.db_path, a.db_path)
        self.assertEqual(b.sql("SELECT file_path FROM trace")["file_path"][0], os.path.join(copy, "rank0.json.gz"))
        t = main_trace()
        t["traceEvents"][1]["dur"] = 2
        write(os.path.join(copy, "rank0.json.gz"), t)
        with self.analyzer(copy) as c:
            self.assertNotEqual(c.db_path, a.db_path)
        self.assertIsNone(c.connection)  # closed by the with block

    def test_unwritable_cache(self):
        """CACHE-3: a cache directory that cannot be created falls back to a temporary one."""
        blocker = os.path.join(self.tmp, "file")
        open(blocker, "w").close()
        os.environ["HTA_SQLITE_CACHE"] = os.path.join(blocker, "cache")  # under a file: impossible
        saved, tempfile.tempdir = tempfile.tempdir, os.path.join(self.tmp, "systmp")
        os.makedirs(tempfile.tempdir)
        try:
            a = self.analyzer()
            want = os.path.join(self.tmp, "systmp", "hta-sqlite-%d" % os.getuid())
            self.assertEqual(os.path.dirname(a.db_path), want)
            self.assertEqual(a.get_ranks(), [0])
        finally:
            tempfile.tempdir = saved

    def test_trace_files_and_validation(self):
        """CACHE-1, CACHE-5: a {rank: path} dict names the rank; a missing file or a name
        that is not .json/.gz is ValueError; a missing directory loads no rank."""
        from hta_sqlite.trace_analysis import TraceAnalysis

        a = TraceAnalysis(trace_files={3: "rank0.json.gz"}, trace_dir=self.dir)
        self.assertEqual(a.get_ranks(), [3])
        self.assertEqual(list(a.get_cuda_kernel_launch_stats(ranks=[3], visualize=False)), [3])
        with self.assertRaises(ValueError):
            TraceAnalysis(trace_files={0: "nope.json.gz"}, trace_dir=self.dir)
        open(os.path.join(self.tmp, "x.txt"), "w").close()
        with self.assertRaises(ValueError):
            TraceAnalysis(trace_files={0: os.path.join(self.tmp, "x.txt")}, trace_dir="")
        empty = TraceAnalysis(trace_dir=os.path.join(self.tmp, "absent"))
        self.assertEqual(empty.get_ranks(), [])
        with self.assertRaises(ValueError):  # TA-2: rank 0 is not loaded
            empty.get_idle_time_breakdown(visualize=False)

    def test_same_rank_one_trace(self):
        """CACHE-8: two files of rank 1 (the trace, and a copy with one counter event, as
        generate_trace_with_counters writes beside it): one trace per rank, the later name
        (rank1_with_counters) kept, HTA's warning on every open; the temporal breakdown
        has one row per rank (rank 1 twice before), the kernel types sum rank 0's and one
        rank 1's time: COMPUTATION 15 + 15."""
        t1 = main_trace()
        t1["distributedInfo"] = {"rank": 1}
        write(os.path.join(self.dir, "rank1.json.gz"), t1)
        t1["traceEvents"].append({"ph": "C", "name": "Queue Length", "pid": 0, "ts": B, "args": {"v": 1}})
        write(os.path.join(self.dir, "rank1_with_counters.json.gz"), t1)
        for _ in range(2):  # built, then from the cache: the warning both times
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                a = self.analyzer()
            said = [str(x.message) for x in w if "same rank" in str(x.message)]
            f1, f2 = (os.path.join(self.dir, n) for n in ("rank1.json.gz", "rank1_with_counters.json.gz"))
            self.assertEqual(said, ["File %s and file %s has the same rank. Will use %s as the path to rank: 1."
                                    % (f1, f2, f2)])
            self.assertEqual(a.get_ranks(), [0, 1])
            self.assertEqual(a.sql("SELECT count(*) AS n FROM trace")["n"].tolist(), [2])
            self.assertEqual(a.get_temporal_breakdown(visualize=False)["rank"].tolist(), [0, 1])
            types, _ = a.get_gpu_kernel_breakdown(visualize=False)
            self.assertEqual(types.loc[types["kernel_type"] == "COMPUTATION", "sum"].tolist(), [30])
            self.assertEqual(a._src.trace_files()[1], f2)
        # a {rank: path} dict names each file's rank: nothing is left out
        from hta_sqlite.trace_analysis import TraceAnalysis

        a = TraceAnalysis(trace_files={0: "rank1.json.gz", 1: "rank1_with_counters.json.gz"}, trace_dir=self.dir)
        self.assertEqual(a.get_temporal_breakdown(visualize=False)["rank"].tolist(), [0, 1])

    def test_ns_rounding(self):
        """CACHE-6: a trace with fractional µs is rounded as HTA's loader rounds it, unless
        HTA_DISABLE_NS_ROUNDING=1. K [1000.4, +2.2): ts = ceil(1000.4) = 1001,
        end = floor(1002.6) = 1002, dur 1; S [1010.3, +0.5): ts 1011, end floor(1010.8) =
        1010, dur -1; host L [999.5, +0.2): ts 1000, end floor(999.7) = 999, dur -1."""
        t = {"traceEvents": [
            host("cudaLaunchKernel", "cuda_runtime", 999.5, 0.2, 1),
            gpu("void k", "kernel", 1000.4, 2.2, 7, 1),
            gpu("void s", "kernel", 1010.3, 0.5, 7, 2),
        ]}
        d = os.path.join(self.tmp, "frac")
        write(os.path.join(d, "t.json"), t, gz=False)
        q = "SELECT s.value, ts, dur FROM event e JOIN string s ON s.string_id = e.name_id ORDER BY seq"
        rows = self.analyzer(d).sql(q).values.tolist()
        self.assertEqual(rows, [["cudaLaunchKernel", 1000000, -1000], ["void k", 1001000, 1000],
                                ["void s", 1011000, -1000]])
        os.environ["HTA_DISABLE_NS_ROUNDING"] = "1"
        rows = self.analyzer(d).sql(q).values.tolist()
        self.assertEqual(rows, [["cudaLaunchKernel", 999500, 200], ["void k", 1000400, 2200],
                                ["void s", 1010300, 500]])


class TestAnalyses(Base):
    def test_temporal_and_overlap(self):
        """TA-1: kernel time 43 - 3 = 40; busy [3, 23) + [33, 43) = 30, idle 10; compute
        10 + 10 = 20; non-compute 10 -> 25.0 / 50.0 / 25.0 %. Overlap: communication
        [8, 23) = 15 of which [8, 13) = 5 under computation -> 33.33 %."""
        a = self.analyzer()
        t = a.get_temporal_breakdown(visualize=False)
        self.assertEqual(list(t.columns), ["rank", "idle_time(us)", "compute_time(us)", "non_compute_time(us)",
                                           "kernel_time(us)", "idle_time_pctg", "compute_time_pctg",
                                           "non_compute_time_pctg"])
        self.assertEqual(t.iloc[0].tolist(), [0, 10, 20, 10, 40, 25.0, 50.0, 25.0])
        # every event of the file has an integral dur: HTA's columns are int64 (BASE-4)
        self.assertEqual(str(t["idle_time(us)"].dtype), "int64")
        o = a.get_comm_comp_overlap(visualize=False)
        self.assertEqual(o["comp_comm_overlap_pctg"].tolist(), [33.33])

    def test_kernel_breakdown(self):
        """Segments: [3,8) COMP 5, [8,13) COMP+COMM 5, [13,15) COMM 2, [15,19) COMM+MEM 4,
        [19,23) COMM 4, [33,43) COMP 10 -> COMPUTATION 15 (50.0 %), COMMUNICATION 6 (20.0),
        COMPUTATION overlapping COMMUNICATION 5 (16.7), COMMUNICATION overlapping MEMORY 4
        (13.3). Kernels: gemm 2 x 10 -> sum 20, mean 10, std 0."""
        types, kernels = self.analyzer().get_gpu_kernel_breakdown(visualize=False)
        self.assertEqual(types.values.tolist(), [
            ["COMPUTATION", 15, 50.0], ["COMMUNICATION", 6, 20.0],
            ["COMPUTATION overlapping COMMUNICATION", 5, 16.7], ["COMMUNICATION overlapping MEMORY", 4, 13.3]])
        self.assertEqual(list(kernels.columns),
                         ["name", "sum (us)", "max (us)", "min (us)", "stddev", "mean (us)", "kernel_type", "rank"])
        self.assertEqual(kernels[["name", "sum (us)", "stddev", "mean (us)", "kernel_type"]].values.tolist(), [
            ["ncclKernel_AllReduce", 15, 0.0, 15.0, "COMMUNICATION"],
            ["void gemm_kernel", 20, 0.0, 10.0, "COMPUTATION"],
            ["Memcpy HtoD (Pageable -> Device)", 4, 0.0, 4.0, "MEMORY"]])

    def test_idle_time(self):
        """Stream 7: K1 first (other, no gap); M1 gap 15 - 13 = 2, its launch (14) after K1's
        end (13): host_wait; K3 gap 33 - 19 = 14, launch 10 before 19, 14 < 30: kernel_wait.
        Ratios 2/16 = 0.125 -> 0.12 (numpy rounds half to even), 14/16 = 0.875 -> 0.88.
        With consecutive_kernel_delay 10, K3 is other (14). Stream 20: other 0, ratio NaN."""
        a = self.analyzer()
        idle, stats = a.get_idle_time_breakdown(visualize=False, show_idle_interval_stats=True)
        got = idle[idle["stream"] == 7][["idle_category", "idle_time", "idle_time_ratio"]].values.tolist()
        self.assertEqual(got, [["host_wait", 2.0, 0.12], ["kernel_wait", 14.0, 0.88], ["other", 0.0, 0.0]])
        s20 = idle[idle["stream"] == 20]
        self.assertEqual(s20["idle_category"].tolist(), ["other"])
        self.assertTrue(s20["idle_time_ratio"].isna().all())
        self.assertEqual(stats.index.name, "idle_category")
        self.assertEqual(stats.loc["kernel_wait", "mean"], 14.0)
        idle10, none = a.get_idle_time_breakdown(visualize=False, consecutive_kernel_delay=10)
        self.assertIsNone(none)
        self.assertEqual(idle10[idle10["stream"] == 7]["idle_time"].tolist(), [2.0, 14.0])
        self.assertEqual(idle10[idle10["stream"] == 7]["idle_category"].tolist(), ["host_wait", "other"])
        only20, _ = a.get_idle_time_breakdown(streams=[20], visualize=False)
        self.assertEqual(only20["stream"].tolist(), [20])

    def test_launch_stats(self):
        """delay = max(0, gpu ts - launch end): K1 3 - 2 = 1, K2 8 - 7 = 1, K3 33 - 12 = 21,
        M1 15 - 15 = 0; without memory events the memcpy row goes."""
        a = self.analyzer()
        d = a.get_cuda_kernel_launch_stats(visualize=False)
        self.assertEqual(list(d), [0])
        self.assertEqual(d[0].sort_values("correlation").values.tolist(),
                         [[1, 2, 10, 1], [2, 3, 15, 1], [3, 2, 10, 21], [4, 1, 4, 0]])
        d = a.get_cuda_kernel_launch_stats(include_memory_events=False, visualize=False)
        self.assertEqual(sorted(d[0]["correlation"]), [1, 2, 3])
        with self.assertRaises(ValueError):
            a.get_cuda_kernel_launch_stats(ranks=[5], visualize=False)

    def test_queue_length(self):
        """TA-3, TA-4. Stream 7: +1 at 0, -1 at 3, +1 at 10, +1 at 14, -1 at 15, -1 at 33 -> 1 0 1 2 1 0
        (mean 5/6); stream 20: +1 at 4, -1 at 8. At >= 1: stream 7 for 3 + 4 + 1 + 18 = 26,
        stream 20 for 4; TA-4 keeps the last stream, 20: 4 / (33 - 0) of the span of ts."""
        a = self.analyzer()
        ts = a.get_queue_length_time_series()
        s7 = ts[0][ts[0]["stream"] == 7]
        self.assertEqual(s7["ts"].tolist(), [0, 3, 10, 14, 15, 33])
        self.assertEqual(s7["queue_length"].tolist(), [1, 0, 1, 2, 1, 0])
        self.assertEqual(list(ts[0].columns), ["ts", "pid", "tid", "stream", "queue_length"])
        summ = a.get_queue_length_summary()
        self.assertEqual(summ.index.tolist(), [(0, 7), (0, 20)])
        self.assertAlmostEqual(summ.loc[(0, 7), ("queue_length", "mean")], 5 / 6)
        self.assertEqual(summ.loc[(0, 20), ("queue_length", "count")], 2.0)
        full = a.get_time_spent_blocked_on_full_queue(ts, max_queue_length=1)
        self.assertEqual(full.values.tolist(), [[0, 20, 4, 4 / 33]])
        self.assertTrue(a.get_queue_length_summary_from_time_series(ts).equals(summ))

    def test_memory_bw(self):
        """M1 adds 2.5 GB/s at 15 and removes it at 19."""
        a = self.analyzer()
        bw = a.get_memory_bw_time_series()[0]
        self.assertEqual(bw[["ts", "name", "memory_bw_gbps"]].values.tolist(),
                         [[15, "Memcpy HtoD", 2.5], [19, "Memcpy HtoD", 0.0]])
        s = a.get_memory_bw_summary()
        self.assertEqual(s.loc[(0, "Memcpy HtoD"), ("memory_bw_gbps", "mean")], 2.5)
        self.assertEqual(s.loc[(0, "Memcpy HtoD"), ("memory_bw_gbps", "count")], 1.0)

    def test_annotations_and_sequences(self):
        """fwd [2, 14) on stream 7 covers K1 [3, 13) only; the CPU annotation ProfilerStep#1
        lasts 50; aten::mm [0, 3) wraps L1: delays 0 and 3 - 0 = 3; with min_pattern_len 1
        the pattern aten::mm|void gemm_kernel occurs once (GPU 10, CPU 3)."""
        a = self.analyzer()
        k = a.get_gpu_kernels_with_user_annotations(rank=0)
        self.assertEqual(k[k["s_user_annotation"] == "fwd"]["correlation"].tolist(), [1])
        # shortened names: none of these has a template or parameter list to cut
        self.assertEqual(sorted(k["s_name"]), ["Memcpy HtoD (Pageable -> Device)", "ncclKernel_AllReduce",
                                               "void gemm_kernel", "void gemm_kernel"])
        u = a.get_gpu_user_annotation_breakdown(use_gpu_annotation=False, visualize=False)
        self.assertEqual(u[["name", "sum (us)", "rank"]].values.tolist(), [["ProfilerStep#1", 50, 0]])
        g = a.get_gpu_user_annotation_breakdown(visualize=False, allowlist_patterns=["fw"], num_kernels=0)
        self.assertEqual(g["name"].tolist(), ["fwd"])  # allowlisted: never folded into others
        aten = a.get_aten_op_kernels_and_delay()[0]
        self.assertEqual(aten.values.tolist(), [["aten::mm", "void gemm_kernel", 1, 0.0, 3.0]])
        out = os.path.join(self.tmp, "out")
        os.makedirs(out)
        seq = a.get_frequent_cuda_kernel_sequences("aten::mm", out, min_pattern_len=1)
        self.assertEqual(seq.values.tolist(), [["aten::mm|void gemm_kernel", 1, 10, 3]])
        self.assertEqual(os.listdir(out), ["overlaid_rank0.json.gz"])
        self.assertTrue(a.get_frequent_cuda_kernel_sequences("aten::nothing", out).empty)
        self.assertTrue(a.get_frequent_cuda_kernel_sequences("aten::mm", os.path.join(self.tmp, "none")).empty)
        self.assertEqual(a.get_profiler_steps(), [1])
        self.assertEqual(a.get_cupti_counter_data_with_operators(), [])

    def test_counters_file(self):
        """TA-7: the trace with counters lands beside the trace, named as HTA names it, with
        6 + 2 queue points and 2 bandwidth points; QUEUE_LENGTH alone writes the 8."""
        from hta_sqlite.trace_analysis import TimeSeriesTypes

        a = self.analyzer()
        a.generate_trace_with_counters()
        out = os.path.join(self.dir, "rank0_with_counters.json.gz")
        with gzip.open(out) as f:
            c = [e for e in json.load(f)["traceEvents"] if e.get("ph") == "C"]
        self.assertEqual(sorted(e["name"] for e in c), ["Memcpy HtoD"] * 2 + ["Queue Length"] * 8)
        a.generate_trace_with_counters(time_series=TimeSeriesTypes.QUEUE_LENGTH, output_suffix="_q")
        with gzip.open(os.path.join(self.dir, "rank0_q.json.gz")) as f:
            c = [e for e in json.load(f)["traceEvents"] if e.get("ph") == "C"]
        self.assertEqual(len(c), 8)
        self.assertEqual(c[0]["ts"], B + 0)  # absolute µs, stream 7 first

    def test_critical_path_answers(self):
        """TA-6: None for an annotation no name contains and for an instance_id of another
        type; else a path whose summary adds up to 100."""
        a = self.analyzer()
        self.assertIsNone(a.critical_path_analysis(0, "__absent__", 0))
        self.assertIsNone(a.critical_path_analysis(0, "ProfilerStep", "one"))
        g, ok = a.critical_path_analysis(0, "ProfilerStep", 0)
        self.assertTrue(ok)
        self.assertAlmostEqual(g.summary().sum(), 100.0)
        self.assertEqual(len(g.critical_path_nodes), len(g.critical_path_edges_set) + 1)
        out = a.overlay_critical_path_analysis(0, g, os.path.join(self.tmp, "cp"))
        self.assertEqual(os.path.basename(out), "overlaid_critical_path_rank0.json.gz")
        with gzip.open(out) as f:
            ev = json.load(f)["traceEvents"]
        marked = {i for i, e in enumerate(ev) if e.get("ph") == "X" and e.get("args", {}).get("critical") == 1}
        self.assertEqual(len(marked), len(g.critical_path_events_set))


class TestNotebookModules(Base):
    """What HTA's notebooks import beside the two classes (UT-n, CP-6..8, TR-n, TF-n)."""

    def test_utils(self):
        """UT-1..3: shorten_name cuts the template and argument lists, leaves a memory
        kernel's name alone; flatten_column_names joins MultiIndex levels by "_"."""
        import pandas as pd
        from hta_sqlite.utils.utils import flatten_column_names, shorten_name, shorten_names

        self.assertEqual(shorten_name("void at::native::k<4, float>(int, float*)"), "at::native::k")
        self.assertEqual(shorten_name("Memcpy HtoD (Pageable -> Device)"), "Memcpy HtoD (Pageable -> Device)")
        self.assertEqual(shorten_names(["a<b>(c)", "plain"]), {"a<b>(c)": "a", "plain": "plain"})
        df = pd.DataFrame([[1, 2]], columns=pd.MultiIndex.from_tuples([("q", "mean"), ("name", "")]))
        flatten_column_names(df)
        self.assertEqual(list(df.columns), ["q_mean", "name"])
        flat = pd.DataFrame([[1]], columns=["x"])
        flatten_column_names(flat)
        self.assertEqual(list(flat.columns), ["x"])

    def test_cupti_flops_table(self):
        """HTA's table: 2 FLOPs per fused multiply-add, 1 per add or multiply, 3 precisions."""
        from hta_sqlite.analyzers.cupti_counter_analysis import CUDA_SASS_INSTRUCTION_COUNTER_FLOPS as T

        self.assertEqual(len(T), 9)
        name = "smsp__sass_thread_inst_executed_op_%s_pred_on.sum"
        self.assertEqual([T[name % o] for o in ("ffma", "hfma", "dfma", "fadd", "hmul", "dadd")], [2, 2, 2, 1, 1, 1])

    def test_save_restore(self):
        """CP-6..8: the saved zip restores the same path, nodes, edges and summary; the node
        count is hta_critical_path_stats' graph_nodes; critical_path() recomputes it with
        t_full; another rank, or no database, is an error."""
        from hta_sqlite.analyzers.critical_path_analysis import CPGraph, restore_cpgraph

        a = self.analyzer()
        g, ok = a.critical_path_analysis(0, "ProfilerStep", 0)
        self.assertIsInstance(g, CPGraph)
        stats = a.sql("SELECT graph_nodes, graph_edges FROM hta_critical_path_stats('ProfilerStep', 0) WHERE rank = 0")
        self.assertEqual((len(g.nodes), len(g.edges)), tuple(stats.iloc[0].tolist()))
        z = g.save(out_dir=os.path.join(self.tmp, "saved"))
        self.assertEqual(z, os.path.join(self.tmp, "saved.zip"))
        import zipfile

        self.assertEqual(sorted(zipfile.ZipFile(z).namelist()),
                         ["saved/cp_graph.json", "saved/cp_meta.json", "saved/cp_path.json"])
        r = restore_cpgraph(zip_filename=z, t_full=a.t, rank=0)
        self.assertEqual(r.critical_path_nodes, g.critical_path_nodes)
        self.assertEqual(r.critical_path_edges_set, g.critical_path_edges_set)
        self.assertEqual((r.nodes, r.edges), (g.nodes, g.edges))
        self.assertEqual(r.summary().to_dict(), g.summary().to_dict())
        self.assertTrue(r.critical_path())
        self.assertEqual(r.critical_path_nodes, g.critical_path_nodes)
        with self.assertRaises(ValueError):
            restore_cpgraph(z, a.t, rank=1)
        with self.assertRaises(ValueError):
            restore_cpgraph(z, None, 0).critical_path()

    def test_trace_frame(self):
        """TR-n, TF-n on the main trace: 11 kept events in file order; L1 <-> K1 and
        L4 <-> M1 link by index; M1's bandwidth 2.5 from its args, other events HTA's
        defaults; ts from the time base (L1 at 0), end = ts + dur; all 11 are in step 1
        (GPU work by its launch); symbol ids decode to the names."""
        a = self.analyzer()
        t = a.t
        self.assertEqual(t.get_ranks(), [0])
        df = t.get_trace(0)
        self.assertEqual(list(df.columns)[:9], ["index", "cat", "name", "pid", "tid", "ts", "dur", "stream",
                                                "correlation"])
        self.assertEqual(list(df.columns)[-3:], ["index_correlation", "iteration", "end"])
        self.assertEqual(len(df.columns), 30)
        self.assertEqual(df["index"].tolist(), list(range(11)))
        self.assertEqual(df["index_correlation"].tolist(), [-1, -1, 6, 7, 8, 9, 2, 3, 4, 5, -1])
        self.assertEqual(df["memory_bw_gbps"].tolist(), [0.0] * 9 + [2.5, 0.0])
        self.assertEqual(set(df["bytes"]), {-1})
        self.assertEqual(df["stream"].tolist(), [-1] * 6 + [7, 20, 7, 7, -1])  # fwd: no args.stream
        self.assertEqual(df.loc[2, ["ts", "dur", "end"]].tolist(), [0, 2, 2])
        self.assertEqual(df["iteration"].tolist(), [1] * 11)
        self.assertTrue(df["collective_name"].isna().all())
        self.assertEqual(set(df["in_split_size"]), {"[]"})
        names = df.copy()
        t.symbol_table.add_symbols_to_trace_df(names, "name")
        t.symbol_table.add_symbols_to_trace_df(names, "cat")
        self.assertEqual(names.loc[6, ["cat", "name"]].tolist(), ["kernel", "void gemm_kernel"])
        t.decode_symbol_ids(use_shorten_name=True)
        self.assertEqual(t.get_trace(0).loc[0, ["s_name", "s_cat"]].tolist(), ["ProfilerStep#1", "user_annotation"])
        self.assertEqual(t.symbol_table.sym_table[t.symbol_table.sym_index["aten::mm"]], "aten::mm")
        with self.assertRaises(ValueError):
            t.get_trace(5)

    def test_cupti_frame(self):
        """TF-n in the CUPTI frame: HTA's trace columns, the counters, the call-stack
        columns of a row off the stack, index_runtime = the paired launch's index (2),
        op_stack = the cpu_op around it."""
        t = {"traceEvents": [
            host("aten::mm", "cpu_op", B + 0, 10),
            {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 100, "tid": 10, "ts": B + 1, "dur": 8,
             "args": {"Input Dims": [[2, 3], [3]], "Python id": 7}},
            host("cudaLaunchKernel", "cuda_runtime", B + 2, 2),
            {"ph": "X", "cat": "cuda_profiler_range", "name": "void k<1>()", "pid": 0, "tid": 0, "ts": B + 20,
             "dur": 5, "args": {"smsp__a.sum": 4, "smsp__b.sum": 6}},
        ]}
        d = os.path.join(self.tmp, "cupti")
        write(os.path.join(d, "rank0.json.gz"), t)
        df = self.analyzer(d).get_cupti_counter_data_with_operators()[0]
        self.assertEqual(len(df.columns), 42 + 2)
        row = df.iloc[0]
        self.assertEqual(row[["index", "name", "ts", "dur", "end", "smsp__a.sum", "smsp__b.sum"]].tolist(),
                         [3, "void k<1>()", 20, 5, 25, 4, 6])
        self.assertEqual(row[["index_runtime", "top_level_op", "bottom_level_op"]].tolist(), [2, "aten::mm", "aten::addmm"])
        self.assertEqual(row["op_stack"], ["aten::mm", "aten::addmm"])
        self.assertEqual(row[["depth", "parent", "num_kernels", "kernel_dur_sum", "last_kernel_end"]].tolist(),
                         [-1, -1, 0, 0.0, -1.0])
        self.assertEqual(row[["input_dims", "external_id", "python_id", "iteration", "index_correlation"]].tolist(),
                         [-1, -1, -1, -1, -1])
        frame = self.analyzer(d).t.get_trace(0)  # the operator's args, as HTA's columns
        self.assertEqual(frame.loc[1, ["input_dims", "python_id"]].tolist(), ["[[2,3],[3]]", 7])


class TestHelp(unittest.TestCase):
    def test_every_parameter_documented(self):
        """Item 5 of issue 32: every public method of TraceAnalysis, LabeledTrace and TraceDiff
        names each of its parameters in its docstring and says what it returns (a "Returns"
        section, or a one-line answer for the small ones)."""
        import inspect

        from hta_sqlite.trace_analysis import TraceAnalysis
        from hta_sqlite.trace_diff import LabeledTrace, TraceDiff

        bad = []
        for cls in (TraceAnalysis, LabeledTrace, TraceDiff):
            for name, fn in inspect.getmembers(cls, lambda f: inspect.isfunction(f) or inspect.ismethod(f)):
                if name.startswith("_"):
                    continue
                doc = inspect.getdoc(fn) or ""
                params = [p for p in inspect.signature(fn).parameters if p not in ("self", "cls")]
                missing = [p for p in params if p not in doc and not ("Args: as " in doc)]
                if missing or not doc:
                    bad.append("%s.%s: %s" % (cls.__name__, name, missing or "no docstring"))
                if len(params) > 1 and "Returns" not in doc:
                    bad.append("%s.%s: no Returns" % (cls.__name__, name))
        self.assertEqual(bad, [])


class TestModules(Base):
    def test_module_breakdown(self):
        """get_module_breakdown (ours, SQL hta_module_stats): Net_0 [0, 100) holds aten::mm
        [10, 30) (a launch [12, 14) -> kernel of 5 us) and Linear_0 [40, 90), reached
        through a plain Python frame; Net_0: host 100, self 100 - 20 - 50 = 30, device 5
        (self: its operator child's 5); Linear_0: 50 / 50 / 0; the icicle's title."""
        def py(name, ts, dur, pid_, parent=None, module=None):
            args = {"Python id": pid_}
            if parent is not None:
                args["Python parent id"] = parent
            if module is not None:
                args["Python module id"] = module
            return {"ph": "X", "cat": "python_function", "name": name, "pid": 100, "tid": 10, "ts": B + ts,
                    "dur": dur, "args": args}

        mm = host("aten::mm", "cpu_op", B + 10, 20)
        mm["args"]["External id"] = 5
        launch = host("cudaLaunchKernel", "cuda_runtime", B + 12, 2, 1)
        launch["args"]["External id"] = 5
        t = {"traceEvents": [
            py("nn.Module: Net_0", 0, 100, 1, module=0), mm, launch,
            py("model.py(3): forward", 35, 60, 2, parent=1),
            py("nn.Module: Linear_0", 40, 50, 3, parent=2, module=0),
            gpu("void k", "kernel", B + 20, 5, 7, 1)]}
        d = os.path.join(self.tmp, "mod")
        write(os.path.join(d, "rank0.json.gz"), t)
        a = self.analyzer(d)
        figs = TestPlots.shown(self, lambda: a.get_module_breakdown())
        df = a.get_module_breakdown(visualize=False)
        self.assertEqual(df["path"].tolist(), [["Net_0"], ["Net_0", "Linear_0"]])
        self.assertEqual(df[["occurrences", "operators", "host_total_us", "host_self_us", "device_total_us",
                             "device_self_us"]].values.tolist(), [[1, 1, 100, 30, 5, 5], [1, 0, 50, 50, 0, 0]])
        self.assertEqual([f[0] for f in figs], ["Module view on rank 0"])
        with self.assertRaises(ValueError):
            a.get_module_breakdown(ranks=[3])


class TestStragglers(Base):
    def test_subset_of_steps(self):
        """ST-1, ST-2: two ranks, steps 1..3 (3 is cut). The allreduce starts 5 µs late on
        rank 1 in step 1 and on rank 0 in step 2 (durations differ across ranks, so the
        spread is not 0): per step the latest rank straggles."""
        write_late_allreduce(os.path.join(self.tmp, "two"))
        a = self.analyzer(os.path.join(self.tmp, "two"))
        self.assertEqual(a.get_profiler_steps(), [1, 2])
        self.assertEqual(a.get_potential_stragglers(profiler_steps=[1], num_candidates=1), [1])
        self.assertEqual(a.get_potential_stragglers(profiler_steps=[2, 7], num_candidates=-3), [0])
        with self.assertRaises(ValueError):
            a.get_potential_stragglers(profiler_steps=[9])


class TestTraceDiff(Base):
    def test_compare(self):
        """TD-3..TD-6: the test trace drops the memcpy call and adds a second aten::mm."""
        from hta_sqlite.trace_diff import DeviceType, LabeledTrace, TraceDiff

        t = main_trace()
        t["traceEvents"] = [e for e in t["traceEvents"] if e["name"] != "cudaMemcpyAsync"]
        t["traceEvents"].append(host("aten::mm", "cpu_op", B + 20, 4))
        write(os.path.join(self.tmp, "test", "rank0.json.gz"), t)
        c = LabeledTrace(label="C", trace_dir=self.dir)
        self.assertEqual((c.ranks(), c.iterations()), ([0], [1]))
        cpu = c.extract_ops(device_type=DeviceType.CPU)
        self.assertTrue((cpu["stream"] == -1).all())
        # the step, aten::mm, 4 runtime calls and fwd (no stream: a host row for HTA too)
        self.assertEqual(len(cpu), 7)
        with self.assertRaises(ValueError):
            c.extract_ops(rank="0")
        with self.assertRaises(ValueError):
            c.extract_ops(iteration=2)
        df = TraceDiff.compare_traces(self.dir, os.path.join(self.tmp, "test"), device_type=DeviceType.CPU)
        self.assertEqual(df.loc["aten::mm"].tolist(), [1, 3, 2, 7, 1, 4, "+"])
        self.assertEqual(df.loc["cudaMemcpyAsync", "counts_change_categories"], "-")
        d = TraceDiff.ops_diff(self.dir, os.path.join(self.tmp, "test"), device_type=DeviceType.CPU)
        self.assertEqual(d["increased"], ["aten::mm"])
        self.assertEqual(d["deleted"], ["cudaMemcpyAsync"])
        with self.assertRaises(ValueError):
            LabeledTrace(trace_dir=os.path.join(self.tmp, "absent"))
        self.assertIsNone(TraceDiff.visualize_counts_diff(df, show_image=False))


class TestCompareJobs(Base):
    def test_compare_jobs(self):
        """CJ-1..3: the test run's second GEMM (K3) takes 16 us instead of 10. The plugin's one
        step is [0, 50) us on both sides; by role (us): Kernel: COMPUTATION, the GEMMs' union,
        20 -> 26; Kernel: COMMUNICATION, the all-reduce [8, 23) less the first GEMM, 10;
        Runtime, L1's [0, 2) (the others run under kernels), 2; CPU Exec, aten::mm and fwd's
        [2, 3), 1; Other, the rest, 17 -> 11. Only aten::mm is a root: its launch and kernel
        K1 match (10 us on both sides, a comparison point); the other launches have no
        operator above them."""
        import subprocess

        import hta_sqlite
        from hta_sqlite.trace_diff import TraceDiff

        t = main_trace()
        for e in t["traceEvents"]:
            if e["name"] == "void gemm_kernel" and e["ts"] == B + 33:
                e["dur"] = 16
        write(os.path.join(self.tmp, "slower", "rank0.json.gz"), t)
        cmp = TraceDiff.compare_jobs(self.dir, os.path.join(self.tmp, "slower"))
        self.assertEqual((cmp.step["control_ns"], cmp.step["test_ns"], cmp.step["delta_ns"]), (50000, 50000, 0))
        parts = {r["part"]: (r["control_ns"], r["test_ns"]) for _, r in cmp.parts().iterrows()}
        self.assertEqual(parts, {"Kernel: COMPUTATION": (20000, 26000), "Kernel: COMMUNICATION": (10000, 10000),
                                 "Runtime": (2000, 2000), "CPU Exec": (1000, 1000), "Other": (17000, 11000)})
        self.assertEqual(int(cmp.parts()["delta_ns"].sum()), 0)
        ops = cmp.operators()
        self.assertEqual(ops["part"].tolist(), ["(no operator)", "aten::mm"])
        self.assertEqual(ops["delta_us"].tolist(), [6.0, 0.0])
        self.assertEqual(ops["test_count"].tolist(), [3, 1])
        self.assertEqual(cmp.tree["match"].tolist(), ["matched"] * 3)
        p = cmp.points(5)
        self.assertEqual((len(p), p.loc[0, "name"], p.loc[0, "point_control_us"]), (1, "void gemm_kernel", 10.0))
        # CJ-1: two jobs of one database, by name
        db = os.path.join(self.tmp, "runs.db")
        subprocess.run([hta_sqlite.ingest_path(), "-q", db, self.dir, os.path.join(self.tmp, "slower")], check=True)
        by_name = TraceDiff.compare_jobs("job", "slower", db=db)
        self.assertEqual(by_name.parts()["test_ns"].tolist(), cmp.parts()["test_ns"].tolist())
        self.assertEqual((by_name.step["control_rank"], by_name.step["test_rank"]), (0, 0))
        # CJ-2: a job or rank that is not there
        with self.assertRaises(ValueError) as e:
            TraceDiff.compare_jobs("job", "nope", db=db)
        self.assertIn("test_job 'nope' is not a job", str(e.exception))
        with self.assertRaises(ValueError):
            TraceDiff.compare_jobs("job", "slower", control_rank=3, db=db)


class TestPlots(Base):
    def shown(self, call):
        """(title, trace names) of each figure CALL shows, with plotly's show() recording."""
        try:
            import plotly.basedatatypes as pb
        except ImportError:
            self.skipTest("no plotly")
        got = []
        saved = pb.BaseFigure.show
        pb.BaseFigure.show = lambda fig, *a, **kw: got.append(
            (fig.layout.title.text, [t.name for t in fig.data], fig))
        try:
            call()
        finally:
            pb.BaseFigure.show = saved
        return got

    def test_kernel_breakdown_figures(self):
        """PLOT-4: HTA's figures: the type pie, then per type (COMPUTATION, COMMUNICATION,
        MEMORY) its kernels per rank and one bar chart per kernel: 1 + 3 x 2 = 7; the
        gemm bar: mean 10 on rank 0, error bars 0 (min = max = 10)."""
        a = self.analyzer()
        figs = self.shown(lambda: a.get_gpu_kernel_breakdown(visualize=True))
        self.assertEqual([f[0] for f in figs], [
            "Kernel Type Percentage Across All Ranks",
            'Kernel type "COMPUTATION" - kernel distribution on each rank',
            'Kernel type "COMPUTATION" - void gemm_kernel',
            'Kernel type "COMMUNICATION" - kernel distribution on each rank',
            'Kernel type "COMMUNICATION" - ncclKernel_AllReduce',
            'Kernel type "MEMORY" - kernel distribution on each rank',
            'Kernel type "MEMORY" - Memcpy HtoD (Pageable -> Device)'])
        gemm = figs[2][2]
        self.assertEqual((list(gemm.data[0].x), list(gemm.data[0].y), list(gemm.data[0].error_y.array)),
                         ([0], [10.0], [0.0]))
        self.assertEqual((gemm.layout.xaxis.title.text, gemm.layout.yaxis.title.text), ("Rank", "Mean Duration (us)"))
        u = self.shown(lambda: a.get_gpu_user_annotation_breakdown(visualize=True))
        self.assertEqual([f[0] for f in u], ["User annotation distribution on each rank", "User annotation = fwd"])

    def test_straggler_figures(self):
        """ST-5: two ranks, steps 1 and 2 (3 is cut), the mean step 200 / 2 = 100 µs; the
        allreduce starts at 10 and 15 µs in step 1 (rank 1 late) and at 115 and 110 in step
        2 (rank 0 late): normalized starts 0.1 / 0.15 and 1.15 / 1.1, one column per step,
        the late rank "Yes"."""
        write_late_allreduce(os.path.join(self.tmp, "two"))
        a = self.analyzer(os.path.join(self.tmp, "two"))
        got = []
        figs = self.shown(lambda: got.append(a.get_potential_stragglers(num_candidates=1, visualize=True)))
        self.assertEqual(got[0], a.get_potential_stragglers(num_candidates=1))
        self.assertEqual([f[0] for f in figs], [
            "Timeline of Communication Kernels Longer Than 1.00% of Iteration Time\n",
            "Timeline of Candidate Kernels (Iterations=[1, 2])", "Potential Stragglers"])
        self.assertEqual(figs[0][1], ["ncclKernel_AllReduce"])
        bars = {(t.name, t.xaxis): [round(y, 6) for y in t.y] for t in figs[2][2].data}
        self.assertEqual(bars, {("No", "x"): [0.1], ("No", "x2"): [1.1], ("Yes", "x"): [0.15], ("Yes", "x2"): [1.15]})

    def test_figure_looked_up_when_drawn(self):
        """PLOT-2: one plotly.graph_objects.Figure per chart, looked up at call time; PLOT-1,
        TA-5: without plotly the analysis still answers."""
        import importlib
        import types

        from hta_sqlite.trace_diff import TraceDiff

        made = []

        class Fig:
            def __init__(self, data=None):
                made.append(data)

            def update_layout(self, **kw):
                pass

            def show(self, **kw):
                made.append("shown")

        fake = types.SimpleNamespace(Figure=Fig, Bar=lambda **kw: ("bar", kw.get("name")))
        real = importlib.import_module

        def imp(name, *a):
            if name == "plotly.graph_objects":
                if fake is None:
                    raise ImportError(name)
                return fake
            return real(name, *a)

        import hta_sqlite._plots as plots

        plots.importlib = types.SimpleNamespace(import_module=imp)
        try:
            df = TraceDiff.compare_traces(self.dir, self.dir)
            TraceDiff.visualize_counts_diff(df, show_image=False)
            self.assertEqual(made, [[("bar", "Control"), ("bar", "Test"), ("bar", "Difference")]])
            fake = None
            t = self.analyzer().get_temporal_breakdown(visualize=True)
            self.assertEqual(len(t), 1)
        finally:
            plots.importlib = importlib


if __name__ == "__main__":
    sys.exit(unittest.main())
