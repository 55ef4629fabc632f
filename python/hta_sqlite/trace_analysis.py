"""HTA's TraceAnalysis, backed by the hta-sqlite database.

    from hta_sqlite.trace_analysis import TraceAnalysis     # was: from hta.trace_analysis ...
    analyzer = TraceAnalysis(trace_dir="traces")
    analyzer.get_temporal_breakdown()

The constructor ingests the trace files once into a cached database (hta_sqlite._cache);
every method is SQL over the extension's analyses, reshaped into the DataFrames, dicts and
lists HTA 0.6 returns. Nothing of HTA is imported. docs/python.md lists what differs.

Requirements (tests cite them as TA-n):
  TA-1  Names, arguments and defaults are HTA 0.6's; results have HTA's column names,
        index and dtypes; values HTA rounds are rounded as HTA rounds them (temporal
        and overlap percentages, idle times to 2 decimals, kernel-type percentage to 1,
        aten-op delays to 3).
  TA-2  Methods taking `ranks` default to [0] (None or []) and raise ValueError for a
        rank that is not loaded; dict results are keyed by rank in the order given.
  TA-3  Series (queue length, memory bandwidth) and the summaries over them follow
        HTA's order of changes at equal timestamps (hta_tie_order = 1), so summaries
        equal HTA's; memory bandwidth comes from the trace's argument only
        (bw_from_bytes = 0), as in HTA.
  TA-4  get_time_spent_blocked_on_full_queue works on the dict it is given, as HTA:
        one row per rank, for the last stream (in the series' order) that reached the
        maximum (hta_queue_full_time lists every stream).
  TA-5  visualize=True draws the kinds of charts HTA draws (hta_sqlite._plots); it never
        changes the returned values.
  TA-6  critical_path_analysis returns None where HTA does (no name contains the
        annotation, or an instance_id of another type), (CPGraph, False) for an invalid
        graph, raises RuntimeError where HTA raises, else (CPGraph, True); the CPGraph
        holds the path (hta_critical_path) and gives HTA's summary().
  TA-7  The writers (frequent-pattern overlay, critical-path overlay, trace with counters)
        write the files HTA writes, under the names HTA gives them.
"""

import enum
import json
import os
import sqlite3
import warnings

from . import _plots
from ._base import Source, _int_dtype
from ._critical_path import CPGraph, overlay_critical_path
from ._frames import aggregate_with_allowlist, describe_columns, intify, np_round

DEFAULT_TRACE_DIR = "/tmp/trace"
# The CUPTI frames: HTA's trailing trace columns, and its call-stack columns of a row that
# is no call-stack node (GPU activity).
TAIL = ["index_correlation", "iteration", "end"]
OFF_STACK = [("depth", -1), ("height", -1), ("parent", -1), ("num_kernels", 0), ("kernel_dur_sum", 0.0),
             ("kernel_span", 0.0), ("first_kernel_start", -1.0), ("last_kernel_end", -1.0)]
CUDA_MAX_LAUNCH_QUEUE_PER_STREAM = 1024

__all__ = ["TraceAnalysis", "TimeSeriesTypes", "CPGraph"]


class TimeSeriesTypes(enum.Flag):
    QUEUE_LENGTH = enum.auto()
    MEMCPY_BANDWIDTH = enum.auto()


def _pd():
    import pandas as pd

    return pd


def _ranks_arg(ranks):
    return [0] if not ranks else list(ranks)


class TraceAnalysis:
    """HTA's TraceAnalysis over a cached hta-sqlite database of the traces.

    trace_files: {rank: path} (or a list of paths), joined to trace_dir when relative;
    trace_dir: a directory of .json / .json.gz traces (used when trace_files is None);
    include_last_profiler_step: keep the last ProfilerStep (HTA cuts it on load).
    ns_rounding (keyword only, not in HTA): round fractional-µs timestamps as HTA's
    loader does (default: yes unless HTA_DISABLE_NS_ROUNDING=1, HTA's own switch).
    """

    def __init__(
        self,
        trace_files=None,
        trace_dir=DEFAULT_TRACE_DIR,
        include_last_profiler_step=False,
        *,
        ns_rounding=None,
    ):
        self._src = Source(trace_dir, trace_files, include_last_profiler_step, ns_rounding)
        self.trace_dir = trace_dir
        self.include_last_profiler_step = bool(include_last_profiler_step)

    # ------------------------------------------------------------ beyond HTA
    @classmethod
    def from_database(cls, db_path, include_last_profiler_step=False):
        """The analyses of a database hta-ingest built (one job), without re-reading the
        traces; its timestamps are used as stored (exact: no ns rounding)."""
        self = cls.__new__(cls)
        self._src = Source(None, None, include_last_profiler_step, db_path=db_path)
        self.trace_dir = None
        self.include_last_profiler_step = bool(include_last_profiler_step)
        return self

    def close(self):
        """Closes the database connection (also on leaving a `with` block)."""
        self._src.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def db_path(self):
        """The cached database these analyses read (open it with hta_sqlite.connect)."""
        return self._src.db_path

    @property
    def connection(self):
        """The read-only sqlite3 connection (hta.so loaded) the methods use."""
        return self._src.conn

    def sql(self, query, params=()):
        """Runs QUERY on the connection and returns a DataFrame."""
        return self._src.frame(query, params)

    def get_ranks(self):
        """The loaded ranks, ascending."""
        return self._src.ranks()

    @property
    def t(self):
        """HTA's Trace of these traces (hta_sqlite.common.trace.Trace: get_trace(rank),
        symbol_table, ...), over the same database."""
        if getattr(self, "_trace", None) is None:
            from .common.trace import Trace

            self._trace = Trace(trace_dir=self.trace_dir, _src=self._src)
        return self._trace

    def _times(self, df, cols):
        """HTA's time columns over all ranks: float64 when any rank's are (BASE-4)."""
        if any(self._src.hta_dtypes(r)["time"] == "float64" for r in self._src.ranks()):
            for c in cols:
                df[c] = df[c].astype("float64")
        else:
            intify(df, cols)

    @property
    def _L(self):
        return self._src.include_last

    # ------------------------------------------------------------ temporal, overlap
    def get_comm_comp_overlap(self, visualize: bool = True):
        """Per rank, the percentage of communication time overlapped by computation."""
        df = self._src.frame(
            "SELECT rank, comp_comm_overlap_pctg FROM hta_comm_comp_overlap(?)", (self._L,)
        )
        ratio = df["comp_comm_overlap_pctg"].astype(float) / 100.0
        df["comp_comm_overlap_pctg"] = np_round(df["comp_comm_overlap_pctg"].astype(float), 2)
        if visualize:
            _plots.bars([("", df["rank"], ratio)], "Computation-Communication Overlap", "Rank",
                        "Computation-Communication Overlap Percentage", layout={"yaxis_tickformat": ".2%"})
        return df

    def get_temporal_breakdown(self, visualize: bool = True):
        """Per rank: idle, compute and non-compute GPU time (µs) and their percentages."""
        df = self._src.frame(
            "SELECT rank, idle_time_us, compute_time_us, non_compute_time_us, kernel_time_us,"
            " idle_time_pctg, compute_time_pctg, non_compute_time_pctg FROM hta_temporal_breakdown(?)",
            (self._L,),
            [
                "rank",
                "idle_time(us)",
                "compute_time(us)",
                "non_compute_time(us)",
                "kernel_time(us)",
                "idle_time_pctg",
                "compute_time_pctg",
                "non_compute_time_pctg",
            ],
        )
        self._times(df, ["idle_time(us)", "compute_time(us)", "non_compute_time(us)", "kernel_time(us)"])
        shares = [(c[: -len("_pctg")], df["rank"], df[c].astype(float) / 100.0)
                  for c in ("idle_time_pctg", "compute_time_pctg", "non_compute_time_pctg")]
        for c in ("idle_time_pctg", "compute_time_pctg", "non_compute_time_pctg"):
            df[c] = np_round(df[c].astype(float), 2)
        if visualize:  # HTA's bars of the three fractions, stacked, shown as percentages
            _plots.bars(shares, "Temporal breakdown across ranks", "Rank", "Percentage", barmode="relative",
                        layout={"yaxis_tickformat": ".2%", "legend_title": "Time Breakdown"})
        return df

    # ------------------------------------------------------------ kernels
    def get_gpu_kernel_breakdown(
        self,
        visualize: bool = True,
        duration_ratio: float = 0.8,
        num_kernels: int = 10,
        include_memory_kernels: bool = True,
        image_renderer: str = "",
    ):
        """(time by kernel type, per-kernel statistics per rank)."""
        mem = 1 if include_memory_kernels else 0
        types = self._src.frame(
            "SELECT kernel_type, sum_us, percentage FROM hta_kernel_type_breakdown(?, ?)",
            (mem, self._L),
            ["kernel_type", "sum", "percentage"],
        )
        intify(types, ["sum"])
        if types.empty:
            types["sum"] = types["sum"].astype("int64")
        # HTA's order: the types alphabetically (its groupby), then its one-key sort by sum.
        types = types.sort_values("kernel_type", kind="mergesort")
        types = types.sort_values("sum", ascending=False, ignore_index=True)
        types["percentage"] = np_round(types["percentage"].astype(float), 1)
        kernels = self._src.frame(
            "SELECT name, sum_us, max_us, min_us, stddev_us, mean_us, kernel_type, rank"
            " FROM hta_kernel_breakdown(?, ?, ?, ?)",
            (float(duration_ratio), int(num_kernels), mem, self._L),
            ["name", "sum (us)", "max (us)", "min (us)", "stddev", "mean (us)", "kernel_type", "rank"],
        )
        kernels = kernels.sort_values(["kernel_type", "name", "rank"], kind="mergesort", ignore_index=True)
        kernels["rank"] = kernels["rank"].astype("int64")
        self._times(kernels, ["sum (us)", "max (us)", "min (us)"])
        if visualize:  # HTA's figures: the types, then per type its kernels per rank and each kernel
            r = image_renderer or None
            shown = types[types["percentage"] > 0]
            _plots.pie(shown["kernel_type"], shown["percentage"], "Kernel Type Percentage Across All Ranks", r)
            for kt in ["COMPUTATION", "COMMUNICATION"] + (["MEMORY"] if include_memory_kernels else []):
                g = kernels[kernels["kernel_type"] == kt]
                _plots.rank_pies(g, "name", "sum (us)", 'Kernel type "%s" - kernel distribution on each rank' % kt, r)
                for name in g["name"].unique():
                    if name != "others":
                        _plots.mean_bar(g[g["name"] == name], 'Kernel type "%s" - %s' % (kt, name), r)
        return types, kernels

    def get_gpu_kernels_with_user_annotations(self, rank: int, expand_names: bool = True, shorten_names: bool = True):
        """The GPU rows of RANK, each with the innermost GPU user annotation around it
        (user_annotation = its name's id, -1 for none); None without GPU annotations."""
        src = self._src
        src.check_ranks([rank])
        if not src.rows("SELECT 1 FROM category WHERE name = 'gpu_user_annotation'"):
            warnings.warn("Trace for rank %s does not contain any GPU user annotations" % rank, stacklevel=2)
            return None
        pd = _pd()
        base = src.min_ts()
        parts, annos = [], []
        for tid in src.traces_of(rank):
            p = src.trace_params(tid)
            p["base"] = base
            parts.append(
                src.frame(
                    "SELECT e.seq AS 'index', e.category_id AS cat, e.name_id AS name, e.pid, e.tid,"
                    " (e.ts - :base) / 1000.0 AS ts, e.dur / 1000.0 AS dur, e.stream, coalesce(e.correlation, -1)"
                    " AS correlation, coalesce(e.iteration, -1) AS iteration FROM event e"
                    " WHERE e.stream IS NOT NULL AND " + Source.kept_condition() + " ORDER BY e.event_id",
                    p,
                )
            )
            annos.append(
                src.frame(
                    "SELECT e.name_id AS name, e.pid, e.tid, (e.ts - :base) / 1000.0 AS ts, e.dur / 1000.0 AS dur"
                    " FROM event e JOIN category c ON c.category_id = e.category_id"
                    " WHERE c.name = 'gpu_user_annotation' AND " + Source.kept_condition() + " ORDER BY e.event_id",
                    p,
                )
            )
        k = pd.concat(parts, ignore_index=True)
        a = pd.concat(annos, ignore_index=True)
        k["user_annotation"] = -1
        # Longest first, so that an inner (shorter) annotation overwrites an outer one.
        a = a.sort_values("dur", ascending=False, kind="mergesort")
        kend = k["ts"] + k["dur"]
        for row in a.itertuples(index=False):
            hit = (k["pid"] == row.pid) & (k["tid"] == row.tid) & (k["ts"] < row.ts + row.dur) & (row.ts < kend)
            k.loc[hit, "user_annotation"] = row.name
        src.cast(k, rank, {"index": "index", "ts": "ts", "dur": "dur", "stream": "stream",
                           "correlation": "correlation", "pid": "pid", "tid": "tid"})
        if expand_names:
            names = _string_map(src, set(k["name"]) | set(k["user_annotation"]), shorten_names)
            cats = {i: n for i, n in src.rows("SELECT category_id, name FROM category")}
            k["s_name"] = k["name"].map(lambda i: names.get(i, ""))
            k["s_cat"] = k["cat"].map(lambda i: cats.get(i, ""))
            k["s_user_annotation"] = k["user_annotation"].map(lambda i: names.get(i, "") if i >= 0 else "")
        return k

    def get_gpu_user_annotation_breakdown(
        self,
        use_gpu_annotation: bool = True,
        visualize: bool = True,
        duration_ratio: float = 0.8,
        num_kernels: int = 1000,
        allowlist_patterns=None,
        image_renderer=None,
    ):
        """Per rank, the time of each user annotation (GPU or CPU), top names + others;
        None when the trace has no such annotation."""
        cat = "gpu_user_annotation" if use_gpu_annotation else "user_annotation"
        src = self._src
        if not src.rows("SELECT 1 FROM category WHERE name = ?", (cat,)):
            warnings.warn("Trace does not contain any %s" % cat, stacklevel=2)
            return None
        cols = ["name", "sum (us)", "max (us)", "min (us)", "stddev", "mean (us)", "rank"]
        if allowlist_patterns is None:
            df = src.frame(
                "SELECT name, sum_us, max_us, min_us, stddev_us, mean_us, rank"
                " FROM hta_user_annotation_breakdown(?, ?, ?, ?)",
                (1 if use_gpu_annotation else 0, float(duration_ratio), int(num_kernels), self._L),
                cols,
            )
        else:
            # The allowlist (names containing a pattern, literally, never fold into
            # "others") is not a parameter of the SQL function: fold here.
            pats = [str(p) for p in allowlist_patterns]
            frames = []
            for rank in src.ranks():
                for tid in src.traces_of(rank):
                    p = src.trace_params(tid)
                    p["cat"] = cat
                    ev = src.frame(
                        "SELECT s.value AS name, e.dur AS dur FROM event e JOIN category c"
                        " ON c.category_id = e.category_id JOIN string s ON s.string_id = e.name_id"
                        " WHERE c.name = :cat AND e.dur IS NOT NULL AND " + Source.kept_condition(),
                        p,
                    )
                    agg = aggregate_with_allowlist(ev, int(num_kernels), float(duration_ratio), pats)
                    agg["rank"] = rank
                    frames.append(agg)
            pd = _pd()
            df = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=cols)
            df = df[cols]
        df = df.sort_values(["rank", "name"], kind="mergesort", ignore_index=True)
        self._times(df, ["sum (us)", "max (us)", "min (us)"])
        if visualize:  # HTA's figures: the names per rank, then each name's mean per rank
            r = image_renderer or None
            _plots.rank_pies(df, "name", "sum (us)", "User annotation distribution on each rank", r)
            for name in df["name"].unique():
                if name != "others":
                    _plots.mean_bar(df[df["name"] == name], "User annotation = %s" % name, r)
        return df

    def get_frequent_cuda_kernel_sequences(
        self,
        operator_name: str,
        output_dir: str,
        min_pattern_len: int = 3,
        rank: int = 0,
        top_k: int = 5,
        visualize: bool = False,
        compress_other_kernels: bool = True,
    ):
        """The kernel sequences launched by the operators named like OPERATOR_NAME, by
        count; writes the overlaid trace of the top_k patterns into OUTPUT_DIR."""
        pd = _pd()
        if not operator_name:
            warnings.warn("operator_name must be a non-empty string", stacklevel=2)
            return pd.DataFrame()
        if not (output_dir and os.path.isdir(output_dir) and os.access(output_dir, os.W_OK)):
            warnings.warn("output_dir %r is not a writable directory" % (output_dir,), stacklevel=2)
            return pd.DataFrame()
        src = self._src
        src.check_ranks([rank])
        df = src.frame(
            "SELECT pattern, count, gpu_kernel_duration_us, cpu_op_duration_us"
            " FROM hta_frequent_kernel_sequences(?, ?, ?) WHERE rank = ?",
            (operator_name, int(min_pattern_len), max(int(top_k), 1), rank),
            ["pattern", "count", "GPU kernel duration (us)", "CPU op duration (us)"],
        )
        if df.empty:
            return pd.DataFrame()
        self._times(df, ["GPU kernel duration (us)", "CPU op duration (us)"])
        trace_file = src.trace_files()[rank]
        out = os.path.join(output_dir, "overlaid_" + os.path.basename(trace_file))
        k = min(max(int(top_k), 0), len(df))
        if k > 0:
            try:
                with src.io_connection() as io:
                    io.execute(
                        "SELECT hta_write_sequence_overlay(?, ?, ?, ?)", (rank, operator_name, out, k)
                    ).fetchone()
            except sqlite3.Error as e:  # e.g. an overlay too large to write: the patterns still count
                warnings.warn("the overlaid trace was not written: %s" % e, stacklevel=2)
        if visualize:
            top = df[:k]
            _plots.bars([("", [str(i) for i in top.index], top["count"])],
                        "Top %d frequent patterns for rank %d" % (top_k, rank), "Pattern Index", "Pattern Count",
                        layout={"xaxis_type": "category"})
        return df

    def get_aten_op_kernels_and_delay(self, ranks=None, sort_by=None, *, visualize: bool = True):
        """{rank: frame}: per aten op and its kernel sequence, the occurrences and the mean
        delays op start -> first launch and launch -> kernel start (µs)."""
        ranks = _ranks_arg(ranks)
        sort_by = sort_by or ["occurrence_count"]
        self._src.check_ranks(ranks)
        out = {}
        for rank in ranks:
            df = self._src.frame(
                "SELECT aten_op_name, kernel_sequence, occurrence_count, avg_aten_op_launch_delay_us,"
                " avg_runtime_delay_us FROM hta_aten_op_kernels WHERE rank = ?",
                (rank,),
                ["aten_op_name", "kernel_sequence", "occurrence_count", "avg_aten_op_launch_delay",
                 "avg_runtime_delay"],
            )
            # HTA's index: the position in (aten_op_name, kernel_sequence) order.
            df = df.sort_values(["aten_op_name", "kernel_sequence"], kind="mergesort", ignore_index=True)
            df = df.sort_values(sort_by, ascending=False)  # HTA's sort (numpy's order at ties)
            for c in ("avg_aten_op_launch_delay", "avg_runtime_delay"):
                df[c] = np_round(df[c].astype(float), 3)
            out[rank] = df
            if visualize:
                _plots.table(
                    ["ATen Operation", "Kernel Sequence", "Occurrence Count",
                     "Average ATen Op Launch Delay (us)", "Average Runtime Delay (us)"],
                    [df[c] for c in df.columns],
                    "ATen Operations, Associated Kernels, ATen and Runtime Delays for Rank %s" % rank,
                )
        return out

    def get_cuda_kernel_launch_stats(
        self,
        ranks=None,
        runtime_cutoff: int = 50,
        launch_delay_cutoff: int = 100,
        include_memory_events: bool = True,
        visualize: bool = True,
    ):
        """{rank: frame}: per launched GPU event, the launch call's duration, the GPU
        duration and the launch delay (µs)."""
        ranks = _ranks_arg(ranks)
        self._src.check_ranks(ranks)
        out = {}
        for rank in ranks:
            df = self._src.frame(
                "SELECT correlation, cpu_duration_us, gpu_duration_us, launch_delay_us"
                " FROM hta_kernel_launch_stats(?, ?, ?, ?) WHERE rank = ?",
                (1 if include_memory_events else 0, runtime_cutoff, launch_delay_cutoff, self._L, rank),
                ["correlation", "cpu_duration", "gpu_duration", "launch_delay"],
            )
            self._src.cast(df, rank, {"correlation": "correlation", "cpu_duration": "dur", "gpu_duration": "dur",
                                      "launch_delay": "time"})
            out[rank] = df
            if visualize:
                short = df[(df["cpu_duration"] <= runtime_cutoff) & (df["gpu_duration"] < df["cpu_duration"])]
                _plots.histogram(
                    short["cpu_duration"],
                    "Short GPU kernels (gpu op duration < cpu op duration) on rank %d" % rank,
                    "Cuda Runtime Event Duration (us)",
                )
                _plots.histogram(
                    df.loc[df["cpu_duration"] > runtime_cutoff, "cpu_duration"],
                    "Runtime Event Duration Outliers (duration > %s us)  on rank %d" % (runtime_cutoff, rank),
                    "Cuda Runtime Event Duration (us)",
                    nbins=300,
                )
                _plots.histogram(
                    df.loc[df["launch_delay"] > launch_delay_cutoff, "launch_delay"],
                    "Launch Delay Outliers (duration > %s us) on rank %d" % (launch_delay_cutoff, rank),
                    "Launch Delay Duration (us)",
                    nbins=300,
                )
        return out

    # ------------------------------------------------------------ idle time
    def get_idle_time_breakdown(
        self,
        ranks=None,
        streams=None,
        visualize: bool = True,
        visualize_pctg: bool = True,
        show_idle_interval_stats=False,
        consecutive_kernel_delay: int = 30,
    ):
        """(idle time per rank, stream and category, [interval statistics or None])."""
        pd = _pd()
        ranks = _ranks_arg(ranks)
        self._src.check_ranks(ranks)
        delay = float(consecutive_kernel_delay)
        idle_parts, stat_parts = [], []
        for rank in ranks:
            df = self._src.frame(
                "SELECT rank, stream, idle_category, idle_time_us, idle_time_ratio"
                " FROM hta_idle_time_breakdown(?, ?) WHERE rank = ?",
                (delay, self._L, rank),
                ["rank", "stream", "idle_category", "idle_time", "idle_time_ratio"],
            )
            if streams:
                df = _in_stream_order(df, streams)
            self._src.cast(df, rank, {"stream": "stream"})
            df["idle_time"] = np_round(df["idle_time"].astype(float), 2)
            df["idle_time_ratio"] = np_round(df["idle_time_ratio"].astype(float), 2)
            idle_parts.append(df.reset_index(drop=True))
            if show_idle_interval_stats:
                st = self._src.frame(
                    "SELECT idle_category, rank, stream, count, mean_us, std_us, min_us, p25_us, p50_us,"
                    " p75_us, max_us FROM hta_idle_interval_stats(?, ?) WHERE rank = ?",
                    (delay, self._L, rank),
                    ["idle_category", "rank", "stream", "count", "mean", "std", "min", "25%", "50%", "75%", "max"],
                )
                if streams:
                    st = _in_stream_order(st, streams)
                self._src.cast(st, rank, {"stream": "stream"})
                st = st.set_index("idle_category")
                for c in ("count", "mean", "std", "min", "25%", "50%", "75%", "max"):
                    st[c] = np_round(st[c].astype(float), 2)
                stat_parts.append(st)
            if visualize:
                y = "idle_time_ratio" if visualize_pctg else "idle_time"
                _plots.bars(
                    [(cat, [str(s) for s in g["stream"]], g[y]) for cat, g in df.groupby("idle_category", sort=False)],
                    "Idle time breakdown on rank %d per CUDA stream" % rank,
                    "stream",
                    "Percentage" if visualize_pctg else "Idle time (us)",
                    barmode="relative",
                    layout=dict({"legend_title": "Idle Time Breakdown"},
                                **({"yaxis_tickformat": ".2%"} if visualize_pctg else {})),
                )
        idle = pd.concat(idle_parts) if idle_parts else pd.DataFrame()
        stats = (pd.concat(stat_parts) if stat_parts else pd.DataFrame()) if show_idle_interval_stats else None
        return idle, stats

    # ------------------------------------------------------------ queue length
    def _series(self, ranks, sql, columns, finish):
        """{rank: FINISH(rank, frame)} of SQL (binds include_last_profiler_step and the
        rank) for each rank with points, in the order given (TA-2)."""
        ranks = _ranks_arg(ranks)
        self._src.check_ranks(ranks)
        out = {}
        for rank in ranks:
            df = self._src.frame(sql, (self._L, rank), columns)
            if not df.empty:
                out[rank] = finish(rank, df)
        return out

    def get_queue_length_time_series(self, ranks=None):
        """{rank: frame(ts, pid, tid, stream, queue_length)}: one point per change of the
        number of launched but not yet started GPU operations of a stream."""

        def finish(rank, df):
            ids = self._stream_ids(rank)
            df["pid"] = df["stream"].map(lambda s: ids.get(s, (None, None))[0])
            df["tid"] = df["stream"].map(lambda s: ids.get(s, (None, None))[1])
            intify(df, ["ts"])  # HTA's series has int64 ts even for a rounded trace
            self._src.cast(df, rank, {"pid": "pid", "tid": "tid", "stream": "stream"})
            df = df[["ts", "pid", "tid", "stream", "queue_length"]]
            df.index.name = "index"
            return df

        return self._series(
            ranks,
            "SELECT ts_us, stream, queue_length FROM hta_queue_length(?, 0, 1) WHERE rank = ?",
            ["ts", "stream", "queue_length"],
            finish,
        )

    def _stream_ids(self, rank):
        """{stream: (pid, tid)} of RANK's GPU rows (the GPU and stream ids of the trace)."""
        ids = {}
        for tid_ in self._src.traces_of(rank):
            for s, pid, tid in self._src.rows(
                "SELECT stream, pid, tid FROM event WHERE event_id BETWEEN ? AND ? AND stream IS NOT NULL"
                " GROUP BY stream",
                (tid_ << 32, (tid_ << 32) | 0xFFFFFFFF),
            ):
                ids.setdefault(s, (pid, tid))
        return ids

    def get_queue_length_summary(self, ranks=None):
        """describe() of the queue length per (rank, stream); None without series."""
        parts = self._per_rank(
            ranks,
            "SELECT rank, stream, count, mean, std, min, p25, p50, p75, max"
            " FROM hta_queue_length_summary(?, 0, 1) WHERE rank = ?",
        )
        return describe_columns(parts, ["rank", "stream"], "queue_length")

    def _per_rank(self, ranks, sql):
        """The frames of SQL (binds include_last_profiler_step and the rank) per rank (TA-2)."""
        ranks = _ranks_arg(ranks)
        self._src.check_ranks(ranks)
        return [self._src.frame(sql, (self._L, rank)) for rank in ranks]

    def get_queue_length_summary_from_time_series(self, queue_length_dict):
        """describe() of the queue length per (rank, stream) of the given series."""
        pd = _pd()
        results = []
        for rank, rank_df in queue_length_dict.items():
            d = rank_df[["stream", "queue_length"]].copy()
            d.insert(0, "rank", rank)
            results.append(d.groupby(["rank", "stream"]).describe())
        return pd.concat(results) if results else None

    def get_time_spent_blocked_on_full_queue(
        self, queue_length_dict, max_queue_length: int = CUDA_MAX_LAUNCH_QUEUE_PER_STREAM
    ):
        """Time at max_queue_length or more, per rank (HTA's rule: the last stream of the
        series that reaches it) and as a share of the rank's trace span."""
        pd = _pd()
        result = {}
        for rank, ql in queue_length_dict.items():
            span = self._trace_span_us(rank)
            for stream in ql["stream"].unique():
                df = ql.loc[ql["stream"] == stream].copy()
                df["dur"] = df["ts"].shift(-1) - df["ts"]
                df = df.loc[df["queue_length"] >= max_queue_length]
                if df.empty:
                    continue
                dur = df["dur"].sum()
                result[rank] = [stream, dur, dur * 1.0 / span if span else float("nan")]
        df = pd.DataFrame.from_dict(
            result,
            orient="index",
            columns=["stream", "duration_at_max_queue_length", "relative_duration_at_max_queue_length"],
        )
        return df.reset_index(names="rank")

    def _trace_span_us(self, rank):
        """max(ts) - min(ts) over RANK's loaded rows (µs), HTA's get_trace_duration."""
        lo, hi = None, None
        for tid in self._src.traces_of(rank):
            r = self._src.rows(
                "SELECT min(e.ts), max(e.ts) FROM event e JOIN category c ON c.category_id = e.category_id"
                " WHERE e.dur IS NOT NULL AND c.name <> 'Trace' AND " + Source.kept_condition(),
                self._src.trace_params(tid),
            )[0]
            if r[0] is not None:
                lo = r[0] if lo is None else min(lo, r[0])
                hi = r[1] if hi is None else max(hi, r[1])
        return None if lo is None else (hi - lo) / 1000.0

    # ------------------------------------------------------------ memory bandwidth
    def get_memory_bw_time_series(self, ranks=None):
        """{rank: frame(ts, pid, name, memory_bw_gbps)}: per memory kind, the bandwidth
        of the copies in flight, one point per change."""

        def finish(rank, df):
            pids = self._src.rows("SELECT pid FROM event WHERE rank = ? AND stream IS NOT NULL LIMIT 1", (rank,))
            df["pid"] = pids[0][0] if pids else None
            self._src.cast(df, rank, {"ts": "time", "pid": "pid"})
            return df[["ts", "pid", "name", "memory_bw_gbps"]]

        return self._series(
            ranks,
            "SELECT ts_us, kind, memory_bw_gbps FROM hta_memory_bw(?, 0, 0, 1) WHERE rank = ?",
            ["ts", "name", "memory_bw_gbps"],
            finish,
        )

    def get_memory_bw_summary(self, ranks=None):
        """describe() of the bandwidth points above 0 per (rank, kind); None without
        series, an empty frame when no point is above 0."""
        ranks = _ranks_arg(ranks)
        parts = self._per_rank(
            ranks,
            "SELECT rank, kind AS name, count, mean, std, min, p25, p50, p75, max"
            " FROM hta_memory_bw_summary(?, 0, 0, 1) WHERE rank = ?",
        )
        if all(p.empty for p in parts):
            has_series = any(
                self._src.rows("SELECT 1 FROM hta_memory_bw(?, 0, 0, 1) WHERE rank = ? LIMIT 1", (self._L, r))
                for r in ranks
            )
            if not has_series:
                return None
        return describe_columns(parts, ["rank", "name"], "memory_bw_gbps", none_if_empty=False)

    # ------------------------------------------------------------ counters in the trace
    def generate_trace_with_counters(self, time_series=None, ranks=None, output_suffix: str = "_with_counters"):
        """Writes, next to each rank's trace, a copy with the queue-length and/or memory
        bandwidth series as counter events (name: the trace's with OUTPUT_SUFFIX before
        .json)."""
        ranks = _ranks_arg(ranks)
        if time_series is None:
            time_series = TimeSeriesTypes.QUEUE_LENGTH | TimeSeriesTypes.MEMCPY_BANDWIDTH
        output_suffix = output_suffix or "_with_counters"
        self._src.check_ranks(ranks)
        files = self._src.trace_files()
        both = TimeSeriesTypes.QUEUE_LENGTH in time_series and TimeSeriesTypes.MEMCPY_BANDWIDTH in time_series
        for rank in ranks:
            src_path = files[rank]
            out = os.path.join(
                os.path.dirname(src_path), os.path.basename(src_path).replace(".json", output_suffix + ".json")
            )
            if both:
                with self._src.io_connection() as io:
                    io.execute("SELECT hta_write_trace_with_counters(?, ?)", (rank, out)).fetchone()
            else:
                self._write_counters_subset(rank, src_path, out, time_series)

    def _write_counters_subset(self, rank, src_path, out, time_series):
        """One of the two series: the original events, then the counter events (as
        hta_write_trace_with_counters writes them)."""
        events = []
        base = self._src.min_ts() / 1000.0
        if TimeSeriesTypes.QUEUE_LENGTH in time_series:
            for r, s in self.get_queue_length_time_series([rank]).items():
                for ts, pid, stream, q in zip(s["ts"], s["pid"], s["stream"], s["queue_length"]):
                    events.append({"ph": "C", "name": "Queue Length", "pid": pid, "ts": ts + base, "id": int(stream),
                                   "args": {"Queue Length": int(q)}})
        if TimeSeriesTypes.MEMCPY_BANDWIDTH in time_series:
            for r, s in self.get_memory_bw_time_series([rank]).items():
                for ts, pid, kind, v in zip(s["ts"], s["pid"], s["name"], s["memory_bw_gbps"]):
                    events.append({"ph": "C", "name": kind, "pid": pid, "ts": ts + base, "args": {"Memcpy BW": v}})
        _rewrite_trace(src_path, out, lambda trace: trace.setdefault("traceEvents", []).extend(events))

    # ------------------------------------------------------------ CUPTI counters
    def get_cupti_counter_data_with_operators(self, ranks=None):
        """[frame per rank]: the CUPTI counters of each kernel (one column per counter)
        with the operators around its launch; [] without cuda_profiler_range events."""
        from ._trace_frame import event_frame

        ranks = _ranks_arg(ranks)
        src = self._src
        if not src.rows("SELECT 1 FROM category WHERE name = 'cuda_profiler_range'"):
            warnings.warn("Could not find events of 'cuda_profiler_range' category", stacklevel=2)
            return []
        src.check_ranks(ranks)
        out = []
        for rank in ranks:
            long = src.frame(
                "SELECT kernel_event_id, op_stack, top_level_op, bottom_level_op, counter, value, launch_seq"
                " FROM hta_cupti_counters WHERE rank = ?",
                (rank,),
            )
            if long.empty or (long["counter"] == "error").any():
                continue
            wide = long.pivot_table(index="kernel_event_id", columns="counter", values="value", aggfunc="first")
            wide.columns.name = None
            info = long.drop_duplicates("kernel_event_id").set_index("kernel_event_id")
            ev = event_frame(src, rank, "c.name = 'cuda_profiler_range'").set_index("event_id")
            ev = ev[ev.index.isin(info.index)]
            counters = list(wide.columns)
            df = ev.drop(columns=TAIL).join(wide).join(ev[TAIL])
            for c in counters:
                v = df[c]
                if not v.isna().any() and ((v % 1) == 0).all():
                    df[c] = v.astype(_int_dtype(min(v.min(), -1), v.max()))  # HTA: -1 elsewhere, downcast
            # The rows are GPU activity, never call-stack nodes: HTA's values off the stack.
            for c, v in OFF_STACK:
                df[c] = v
            df["index_runtime"] = info["launch_seq"].astype("int64")
            df["op_stack"] = info["op_stack"].map(lambda s: json.loads(s) if s else [])
            df["top_level_op"] = info["top_level_op"].fillna("")
            df["bottom_level_op"] = info["bottom_level_op"].fillna("")
            out.append(df.sort_values("ts", kind="mergesort").reset_index(drop=True))
        return out

    # ------------------------------------------------------------ steps, stragglers
    def get_profiler_steps(self):
        """The ProfilerStep numbers of every rank, sorted."""
        q = "SELECT DISTINCT step FROM hta_profiler_steps(?) ORDER BY step"
        return [r[0] for r in self._src.rows(q, (self._L,))]

    def get_potential_stragglers(
        self,
        profiler_steps=None,
        num_candidates: int = 2,
        visualize: bool = False,
        straggler_identification_impl=None,
    ):
        """The ranks most often late to the job's dominant communication kernel."""
        from ._stragglers import potential_stragglers

        return potential_stragglers(self._src, profiler_steps, num_candidates, visualize, straggler_identification_impl,
                                    self.get_profiler_steps())

    # ------------------------------------------------------------ nn.Module view (not HTA's)
    def get_module_breakdown(self, ranks=None, visualize: bool = True, plugin_quirks: int = 0):
        """Not in HTA: time per nn.Module, the TensorBoard plugin's Module view (SQL:
        hta_module_stats). See the docstring of the module for the parameters' rules.

        Needs module events in the trace: PyTorch writes them when profiling with
        with_stack=True (or with_modules=True); without them the frame is empty.

        Args:
            ranks: the ranks (default [0]); a rank not loaded is ValueError.
            visualize: draw an icicle chart per rank, "Module view on rank R": a box per
                path, sized by its host time.
            plugin_quirks: 0 (ours) or tb_tree's bits; 127 reproduces the plugin's
                numbers (docs/deviations.md E19).

        Returns:
            A DataFrame, one row per rank and module path, depth first: rank, path (the
            module names from the root, a list), name, module_id, depth, occurrences
            (calls), operators (direct operator children), host_total_us, host_self_us,
            device_total_us, device_self_us. The numbers are per (name, module_id) over all
            its calls, whatever the path; self excludes child modules, not the operators
            called directly.
        """
        ranks = _ranks_arg(ranks)
        self._src.check_ranks(ranks)
        pd = _pd()
        cols = ["rank", "path", "name", "module_id", "depth", "occurrences", "operators", "host_total_us",
                "host_self_us", "device_total_us", "device_self_us"]
        parts = [self._src.frame("SELECT %s FROM hta_module_stats(?) WHERE rank = ?" % ", ".join(cols),
                                 (int(plugin_quirks), rank)) for rank in ranks]
        df = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=cols)
        df["path"] = df["path"].map(json.loads)
        if visualize:
            for rank in ranks:
                g = df[df["rank"] == rank]
                if not g.empty:
                    _plots.icicle(g, "Module view on rank %s" % rank)
        return df

    # ------------------------------------------------------------ critical path
    def critical_path_analysis(self, rank: int, annotation: str, instance_id, data_load_events=None):
        """The critical path of RANK within the instances INSTANCE_ID of ANNOTATION:
        None, or (CPGraph, success)."""
        return CPGraph.analyse(self._src, rank, annotation, instance_id, data_load_events)

    def overlay_critical_path_analysis(
        self,
        rank: int,
        critical_path_graph,
        output_dir: str,
        only_show_critical_events: bool = True,
        show_all_edges: bool = False,
    ) -> str:
        """Writes the rank's trace with the critical path marked (args.critical = 1 and
        flow arrows) into OUTPUT_DIR; returns the file's path."""
        return overlay_critical_path(
            self._src, rank, critical_path_graph, output_dir, only_show_critical_events, show_all_edges
        )


# ---------------------------------------------------------------- helpers


def _in_stream_order(df, streams):
    pd = _pd()
    parts = [df[df["stream"] == s] for s in streams]
    return pd.concat(parts) if parts else df.iloc[0:0]


def _string_map(src, ids, shorten):
    ids = [int(i) for i in ids if i is not None and int(i) >= 0]
    out = {}
    expr = "hta_shorten_name(value)" if shorten else "value"
    for i in range(0, len(ids), 500):
        chunk = ids[i : i + 500]
        q = "SELECT string_id, %s FROM string WHERE string_id IN (%s)" % (expr, ",".join("?" * len(chunk)))
        out.update(dict(src.rows(q, chunk)))
    return out


def _rewrite_trace(src_path, out, edit):
    """Reads the trace SRC_PATH (gzip or plain), lets EDIT change the parsed object, and
    writes it to OUT (gzip when OUT ends in .gz), atomically."""
    import gzip

    opener = gzip.open if _is_gzip(src_path) else open
    with opener(src_path, "rt", encoding="utf-8") as f:
        trace = json.load(f)
    if isinstance(trace, list):
        trace = {"traceEvents": trace}
    edit(trace)
    tmp = out + ".tmp-%d" % os.getpid()
    wopen = gzip.open if out.endswith(".gz") else open
    try:
        with wopen(tmp, "wt", encoding="utf-8") as f:
            json.dump(trace, f)
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return out


def _is_gzip(path):
    with open(path, "rb") as f:
        return f.read(2) == b"\x1f\x8b"

