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
from ._trace_file import _rewrite_trace

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
        """The analyses of a database hta-ingest built (one job), without reading the traces
        again (ours, not HTA's).

        Args:
            db_path: the database file (ValueError when missing or holding several jobs).
            include_last_profiler_step: keep the last ProfilerStep (cut by default, as HTA).

        Returns:
            A TraceAnalysis; its timestamps are used as stored (exact ns: no ns rounding, D1).
        """
        self = cls.__new__(cls)
        self._src = Source(None, None, include_last_profiler_step, db_path=db_path)
        self.trace_dir = None
        self.include_last_profiler_step = bool(include_last_profiler_step)
        return self

    def close(self):
        """Closes the database connection (also on leaving a `with` block; ours)."""
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
        """Runs an SQL statement on the analyzer's database (ours, not HTA's).

        Args:
            query: the SQL; every function of hta.so is there (docs/sql.md).
            params: its parameters (a tuple or a dict).

        Returns:
            A DataFrame of the rows.
        """
        return self._src.frame(query, params)

    def get_ranks(self):
        """The loaded ranks, ascending (ours: HTA reaches them through analyzer.t)."""
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
        """How much of each rank's communication time has computation running beside it.

        Args:
            visualize: draw "Computation-Communication Overlap", a bar per rank.

        Returns:
            A DataFrame with one row per rank: rank, comp_comm_overlap_pctg (the share of the
            time communication kernels run during which a computation kernel also runs, in %,
            rounded to 2 decimals as HTA rounds it).

        SQL: hta_comm_comp_overlap. Times are exact (no truncation to whole µs: D12).
        """
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
        """Where each rank's GPU time goes between its first and last kernel.

        Args:
            visualize: draw "Temporal breakdown across ranks", the three shares stacked per rank.

        Returns:
            A DataFrame with one row per rank: rank, idle_time(us) (nothing runs),
            compute_time(us) (a computation kernel runs), non_compute_time(us) (only
            communication, copies or other GPU work run), kernel_time(us) (their sum: last end
            minus first start), and the three as idle_time_pctg, compute_time_pctg,
            non_compute_time_pctg (% of kernel_time, 2 decimals). Times are int64 when the
            traces have whole µs, float64 otherwise, as in HTA.

        A rank without GPU work gives no row (HTA raises: E6). SQL: hta_temporal_breakdown.
        """
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
        """GPU time by kernel type, and the kernels that take most of each type.

        Args:
            visualize: draw HTA's figures: the kernel-type pie, then for COMPUTATION,
                COMMUNICATION and MEMORY (the last only with include_memory_kernels) a pie of
                its kernels per rank and one bar chart per kernel of its mean, min and max per
                rank.
            duration_ratio: per rank and type, keep the longest kernels until their time
                reaches this share of the type's time; the rest fold into "others".
            num_kernels: at most this many kernels per rank and type before "others".
            include_memory_kernels: count memcpy and memset as a type (MEMORY).
            image_renderer: the plotly renderer the figures are shown with ("" : plotly's
                default; "png", "svg" need kaleido).

        Returns:
            (kernel_type_df, kernel_df).
            kernel_type_df: one row per type, overlaps named ("COMPUTATION overlapping
            COMMUNICATION"): kernel_type, sum (µs of every rank, each instant counted once under
            the types running then), percentage (of all GPU time, 1 decimal); ordered by sum.
            kernel_df: one row per rank, type and kernel name (or "others"): name, sum (us),
            max (us), min (us), stddev, mean (us), kernel_type, rank.

        Differs from HTA: the statistics are over kernel instances, "others" included (D3);
        type sums are exact (D12). SQL: hta_kernel_type_breakdown, hta_kernel_breakdown.
        """
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
        """Every GPU event of RANK, each with the innermost GPU user annotation around it.

        Args:
            rank: the rank (ValueError when it is not loaded).
            expand_names: add the text columns s_name, s_cat and s_user_annotation.
            shorten_names: in s_name and s_user_annotation, drop template arguments, argument
                lists and the return type (hta_shorten_name).

        Returns:
            A DataFrame, one row per GPU event HTA keeps (kernels, copies, memsets): index,
            cat, name (the database's category and string ids), pid, tid, ts, dur (µs from the
            job's earliest event), stream, correlation, iteration, user_annotation (the
            annotation's name id, -1 outside every annotation), and the s_ columns. None (with a
            warning) when the trace has no GPU user annotation.

        Differs from HTA: ids are the database's, not HTA's symbol ids (P2).
        """
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
        """Time per user annotation (record_function ranges) per rank, top names plus "others".

        Args:
            use_gpu_annotation: the annotations on the GPU timeline (gpu_user_annotation);
                False: those of the host (user_annotation).
            visualize: draw "User annotation distribution on each rank" (a pie per rank) and
                one bar chart per name, "User annotation = NAME".
            duration_ratio, num_kernels: the fold into "others", as in get_gpu_kernel_breakdown.
            allowlist_patterns: names containing one of these texts never fold into "others".
            image_renderer: the plotly renderer.

        Returns:
            A DataFrame, one row per rank and name: name, sum (us), max (us), min (us),
            stddev, mean (us), rank; None (with a warning) without such annotations.

        SQL: hta_user_annotation_breakdown (the allowlist: SQL over the events).
        """
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
        """The most frequent sequences of kernels launched by operators named like OPERATOR_NAME.

        Args:
            operator_name: a text the operators' names contain (e.g. "aten::linear").
            output_dir: an existing writable directory: the trace with the top_k patterns
                marked is written there as overlaid_<trace file name>.
            min_pattern_len: the shortest sequence counted.
            rank: the rank analysed.
            top_k: how many patterns to mark and draw.
            visualize: draw "Top K frequent patterns for rank R" (the counts).
            compress_other_kernels: accepted; our overlay keeps every other event as it was (P3).

        Returns:
            A DataFrame: pattern (operator|kernel|kernel...), count, GPU kernel duration (us),
            CPU op duration (us), most frequent first; empty (with a warning) for an empty
            operator_name or an unusable output_dir.

        SQL: hta_frequent_kernel_sequences, hta_write_sequence_overlay.
        """
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
        """Per aten operator and the kernels it launches: how often, and how late.

        Args:
            ranks: the ranks (default [0]).
            sort_by: columns to sort by, descending (default ["occurrence_count"]).
            visualize (keyword only): draw HTA's table per rank (default True, as HTA draws it).

        Returns:
            {rank: DataFrame}: aten_op_name, kernel_sequence, occurrence_count,
            avg_aten_op_launch_delay (µs from the operator's start to its first launch),
            avg_runtime_delay (µs from a launch to its kernel's start), 3 decimals.

        Differs from HTA: computed per rank (D11), every launch API (D13). SQL: hta_aten_op_kernels.
        """
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
        """Per launched GPU event: the launch call's time, the event's time and the launch delay.

        Args:
            ranks: the ranks (default [0]).
            runtime_cutoff: µs; the charts' outlier threshold of the launch call's duration.
            launch_delay_cutoff: µs; the charts' outlier threshold of the delay.
            include_memory_events: include copies and memsets.
            visualize: draw three histograms per rank (short kernels, runtime and delay outliers).

        Returns:
            {rank: DataFrame}: correlation, cpu_duration (the launch call, µs), gpu_duration
            (µs), launch_delay (launch start to GPU start, µs).

        Differs from HTA: every launch API counts (D9). SQL: hta_kernel_launch_stats.
        """
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
        """Why each stream's GPU sits idle, per rank.

        Args:
            ranks: the ranks (default [0]).
            streams: only these streams, in this order (default all).
            visualize: draw "Idle time breakdown on rank R per CUDA stream".
            visualize_pctg: chart the ratios (True) or the µs.
            show_idle_interval_stats: also return statistics of the idle intervals.
            consecutive_kernel_delay: µs; a gap shorter than this after a kernel whose next
                kernel was launched in time is kernel_wait.

        Returns:
            (idle_time_df, stats_df or None).
            idle_time_df: rank, stream, idle_category (host_wait: the GPU waited for a launch;
            kernel_wait: short gaps between queued kernels; other), idle_time (µs), idle_time_ratio
            (of the stream's idle time), 2 decimals.
            stats_df (indexed by idle_category): rank, stream, count, mean, std, min, 25%, 50%,
            75%, max of the intervals, 2 decimals.

        A rank without kernels gives no rows (HTA raises: E6). SQL: hta_idle_time_breakdown,
        hta_idle_interval_stats.
        """
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
        """The number of launched but not yet started GPU operations of each stream, over time.

        Args:
            ranks: the ranks (default [0]).

        Returns:
            {rank: DataFrame} for ranks with GPU work: ts (µs), pid, tid, stream, queue_length,
            one row per change; changes at equal timestamps in HTA's order, so the summaries
            equal HTA's.

        Differs from HTA: the index is 0..n-1 (P2). SQL: hta_queue_length.
        """

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
        """describe() of each stream's queue length per rank.

        Args:
            ranks: the ranks (default [0]).

        Returns:
            A DataFrame indexed by (rank, stream) with columns (queue_length, count|mean|std|
            min|25%|50%|75%|max); None without any series. SQL: hta_queue_length_summary.
        """
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
        """describe() of the queue lengths of the given series.

        Args:
            queue_length_dict: {rank: DataFrame} as get_queue_length_time_series returns it.

        Returns:
            A DataFrame indexed by (rank, stream), as get_queue_length_summary; None for {}.
        """
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
        """How long a stream's launch queue stayed full, per rank.

        Args:
            queue_length_dict: {rank: DataFrame} of get_queue_length_time_series.
            max_queue_length: the length counted as full (CUDA's default queue holds 1024).

        Returns:
            A DataFrame, one row per rank that reached it: rank, stream (as HTA: the last
            stream of the series that reached it), duration_at_max_queue_length (µs),
            relative_duration_at_max_queue_length (of the rank's trace span).

        hta_queue_full_time lists every stream (D10).
        """
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
        """The bandwidth of the copies and memsets in flight, per memory kind, over time.

        Args:
            ranks: the ranks (default [0]).

        Returns:
            {rank: DataFrame} for ranks with copies: ts (µs), pid, name (the kind: "Memcpy
            HtoD", "Memset", ...), memory_bw_gbps, one point per change; the bandwidth is the
            one the trace gives each copy (as HTA).

        Differs from HTA: the index is 0..n-1 (P2). SQL: hta_memory_bw.
        """

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
        """describe() of the bandwidth points above 0, per rank and memory kind.

        Args:
            ranks: the ranks (default [0]).

        Returns:
            A DataFrame indexed by (rank, name) with columns (memory_bw_gbps, count|mean|...|
            max); None without series; empty when no point is above 0.
            SQL: hta_memory_bw_summary.
        """
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
        """Writes each rank's trace again with its queue lengths and/or bandwidths as counter events.

        Args:
            time_series: TimeSeriesTypes.QUEUE_LENGTH, MEMCPY_BANDWIDTH or both (default).
            ranks: the ranks (default [0]).
            output_suffix: put before ".json" in the file's name (default "_with_counters").

        Returns:
            None. The file lands beside the trace (rank0.json.gz -> rank0_with_counters.json.gz),
            gzip when its name ends in .gz. Opening the folder again gives HTA's warning that two
            files have the rank and loads one of them (CACHE-8).

        Differs from HTA: the suffix goes into the file name only (P3). SQL:
        hta_write_trace_with_counters (io entry point).
        """
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
        """The CUPTI range-profiler counters of each kernel, with the operators that launched it.

        Args:
            ranks: the ranks (default [0]).

        Returns:
            [DataFrame per rank]: the kernel's trace columns (index, cat, name, pid, tid, ts,
            dur, stream, correlation, the arguments HTA reads with its defaults), one column per
            counter (sorted), index_correlation, iteration, end, HTA's call-stack columns (those
            of an event that is no call-stack node), index_runtime (the launch's index),
            op_stack (the cpu_op names around the launch, outermost first), top_level_op,
            bottom_level_op; [] (with a warning) without cuda_profiler_range events. A rank
            whose kernels and launches differ in number is left out, as in HTA.

        SQL: hta_cupti_counters (kernels paired with launches by position, as HTA).
        """
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
        """The ProfilerStep numbers of the loaded ranks, sorted (the last one cut unless
        include_last_profiler_step). SQL: hta_profiler_steps.
        """
        q = "SELECT DISTINCT step FROM hta_profiler_steps(?) ORDER BY step"
        return [r[0] for r in self._src.rows(q, (self._L,))]

    def get_potential_stragglers(
        self,
        profiler_steps=None,
        num_candidates: int = 2,
        visualize: bool = False,
        straggler_identification_impl=None,
    ):
        """The ranks most often late to the job's dominant collective.

        Args:
            profiler_steps: the steps looked at (default: all; ValueError when none of the
                given is a step of the job).
            num_candidates: how many ranks per step count as late (at least 1).
            visualize: draw HTA's figures: the timeline of the long communication kernels, the
                timeline of the chosen kernels and "Potential Stragglers" (each rank's start per
                step, late ranks "Yes").
            straggler_identification_impl: a function called as HTA calls it with the selected
                steps' rows (rank, iteration, stream, name as text, ts, dur in µs), None for
                HTA's symbol table, num_candidates and visualize; it returns a Series of counts
                indexed by rank.

        Returns:
            The ranks, most straggles first (ties: the lower rank).

        Differs from HTA: newer NCCL kernel names count (E5). SQL: hta_potential_stragglers.
        """
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
        """The critical path of RANK within the instances INSTANCE_ID of ANNOTATION.

        Args:
            rank: the rank (ValueError when not loaded).
            annotation: a text the window's annotation names contain ("ProfilerStep" for the
                steps); "" for the whole trace.
            instance_id: which occurrence (0-based), a pair (a, b) for a range, None for all.
            data_load_events: regexes; host operators whose names match are bound_by
                "data_loading" on the path.

        Returns:
            None when no name contains the annotation (or instance_id has another type);
            (CPGraph, False) for a graph HTA finds invalid; else (CPGraph, True): the path
            (graph.path), summary() (% of the path by what bounds it),
            get_critical_path_breakdown(), critical_path_nodes, nodes, edges, save(out_dir).
            RuntimeError where HTA raises, with the reason.

        Honours CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE=1. SQL: hta_critical_path (the
        whole graph: hta_critical_path_graph).
        """
        return CPGraph.analyse(self._src, rank, annotation, instance_id, data_load_events)

    def overlay_critical_path_analysis(
        self,
        rank: int,
        critical_path_graph,
        output_dir: str,
        only_show_critical_events: bool = True,
        show_all_edges: bool = False,
    ) -> str:
        """Writes RANK's trace with the critical path of CRITICAL_PATH_GRAPH marked.

        Args:
            rank: the rank.
            critical_path_graph: the CPGraph critical_path_analysis returned.
            output_dir: the folder (created when missing; "~" expanded).
            only_show_critical_events: keep only the critical events (and the user annotations
                and Python frames) among the complete events.
            show_all_edges: every graph edge as a flow arrow (only without
                only_show_critical_events).

        Returns:
            The written file's path: output_dir/overlaid_critical_path_<trace file name>; critical
            events carry args.critical = 1, the path's edges are flow events.

        Differs from HTA: other events are kept as they were, gzip only for .gz names (P3).
        """
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


