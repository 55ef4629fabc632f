"""HTA's TraceDiff, LabeledTrace and DeviceType, backed by the hta-sqlite database.

    from hta_sqlite.trace_diff import DeviceType, LabeledTrace, TraceDiff   # was: hta.trace_diff
    TraceDiff.compare_traces("control_traces/", "test_traces/", device_type=DeviceType.GPU)

As in HTA, a trace is compared as loaded, without alignment and without the
last-ProfilerStep cut; the operator counts and durations are SQL aggregates over the
cached database of each directory (hta_sqlite._cache).

Requirements (tests cite them as TD-n):
  TD-1  LabeledTrace(label=None, t=None, trace_dir=None): the label defaults to "t<0..10>"
        as in HTA; t may be a TraceAnalysis (its database is reused) or a LabeledTrace;
        without t, trace_dir must be an existing directory, else ValueError.
  TD-2  ranks(): the loaded ranks; iterations(): the numbers of every ProfilerStep#N name
        of the trace, sorted.
  TD-3  extract_ops(rank, iteration, device_type): rank and iteration default to the
        first, may be an int or a list, and anything else, or a value the trace lacks,
        is ValueError; rows: the events HTA loads (with dur and category, category not
        "Trace") of those ranks in those iterations; DeviceType.CPU keeps stream == -1,
        GPU the others. cat and name are the strings (HTA: symbol ids).
  TD-4  get_ops_summary(ops): per (cat, name): counts and total_duration (µs), with
        short_name (hta_shorten_name), cat_id and name_id.
  TD-5  compare_traces: control and test are a directory, a TraceAnalysis or a
        LabeledTrace (labels "Control" and "Test" for directories); equal labels rename the
        test's to label + "_control_test"; per name (or short name) the counts and total
        durations of both sides, outer-joined (missing = 0), diff_counts, diff_duration and
        counts_change_categories ("+", "-", "="), in HTA's row order.
  TD-6  ops_diff: the names added, deleted, increased, decreased, unchanged (by counts).
  TD-7  visualize_counts_diff / visualize_duration_diff draw HTA's grouped bar chart with
        one plotly.graph_objects.Figure (looked up when drawn) and return None.

Not HTA's: TraceDiff.compare_jobs, the structural diff of two runs (SQL hta_job_diff and
hta_job_diff_summary, docs/sql.md):

    cmp = TraceDiff.compare_jobs("before/", "after/")        # two trace directories
    cmp = TraceDiff.compare_jobs("run_a", "run_b", db="runs.db")   # two jobs of a database
    cmp.step            # {'control_us': ..., 'test_us': ..., 'delta_us': ..., ...}
    cmp.parts()         # the step difference by role: the parts add up to it exactly (ns)
    cmp.operators(10)   # the operators whose GPU time per step changed most
    cmp.points(10)      # the matched call trees' comparison points that changed most

  CJ-1  With db (a path, opened read-only, or an open sqlite3 connection, hta.so loaded on
        it when missing): control and test are job names of that database (None: its first
        and its last job). Without db: each is a trace directory, a TraceAnalysis or a
        LabeledTrace, whose cached databases are attached to one connection.
  CJ-2  control_rank, test_rank as the SQL functions take them (None: their defaults). A job
        or rank that is not there is ValueError with the function's message.
  CJ-3  The result's summary and tree are the two functions' rows as DataFrames (with the
        ranks used); step is the role split's step row; parts(split) that split's other
        rows; operators(n) the first n operator rows; points(n) the n comparison points with
        the largest |point_delta_us| (then node_id).
"""

import enum
import os
import random

from . import _plots
from ._base import Source

__all__ = ["DeviceType", "JobComparison", "LabeledTrace", "TraceDiff"]


class DeviceType(enum.Enum):
    CPU = 1
    GPU = 2
    ALL = 3


def _pd():
    import pandas as pd

    return pd


class LabeledTrace:
    """A trace directory (or a TraceAnalysis) with a label (TD-1)."""

    def __init__(self, label=None, t=None, trace_dir=None):
        from .trace_analysis import TraceAnalysis

        self.label = label if label else "t%d" % random.randint(0, 10)
        if isinstance(t, TraceAnalysis):
            self._src = t._src
        elif isinstance(t, LabeledTrace):
            self._src = t._src
        elif t is not None:
            raise ValueError("LabeledTrace: t must be a TraceAnalysis or a LabeledTrace")
        elif trace_dir is not None and os.path.isdir(trace_dir):
            self._src = Source(trace_dir, include_last_profiler_step=True)
        else:
            raise ValueError(
                "either a trace object or a valid trace dir must be provided in LabeledTrace.__init__()"
            )
        self.t = self  # HTA users reach the loaded trace as .t

    # ------------------------------------------------------------ TD-2
    def ranks(self):
        """The loaded ranks, ascending."""
        return self._src.ranks()

    def iterations(self):
        """The numbers of every ProfilerStep#N of the trace, sorted (the trace as loaded: no cut)."""
        out = []
        for (v,) in self._src.rows("SELECT value FROM string WHERE value GLOB 'ProfilerStep#*'"):
            try:
                out.append(int(v[len("ProfilerStep#"):]))
            except ValueError:
                pass
        return sorted(out)

    # ------------------------------------------------------------ TD-3
    def extract_ops(self, rank=None, iteration=None, device_type=DeviceType.ALL):
        """The events of some ranks and iterations.

        Args:
            rank: an int or a list (default: the first rank); ValueError for a rank the trace lacks.
            iteration: an int or a list (default: the first iteration); ValueError likewise.
            device_type: DeviceType.CPU (host events), GPU, or ALL.

        Returns:
            A DataFrame: index, cat, name (texts: HTA gives symbol ids), pid, tid, ts, dur (µs),
            stream, correlation, iteration, and rank when several ranks were asked for.
        """
        ranks = _choose(rank, self.ranks(), "rank", self.label)
        iterations = _choose(iteration, self.iterations(), "iteration", self.label)
        df = self._ops(ranks, iterations, device_type)
        if len(ranks) == 1:
            df = df.drop(columns=["rank"])
        return df

    def _ops(self, ranks, iterations, device_type):
        where = {DeviceType.CPU: " AND e.stream IS NULL", DeviceType.GPU: " AND e.stream IS NOT NULL"}.get(
            device_type, ""
        )
        sql = (
            "SELECT e.rank, e.seq AS 'index', c.name AS cat, s.value AS name, e.pid, e.tid,"
            " (e.ts / 1000) + (e.ts %% 1000) / 1000.0 AS ts, e.dur / 1000.0 AS dur,"
            " coalesce(e.stream, -1) AS stream, coalesce(e.correlation, -1) AS correlation, e.iteration"
            " FROM event e JOIN category c ON c.category_id = e.category_id"
            " LEFT JOIN string s ON s.string_id = e.name_id"
            " WHERE e.rank IN (%s) AND e.iteration IN (%s) AND e.dur IS NOT NULL AND c.name <> 'Trace'%s"
            " ORDER BY e.rank, e.event_id"
        ) % (",".join("?" * len(ranks)), ",".join("?" * len(iterations)), where)
        df = self._src.frame(sql, tuple(ranks) + tuple(iterations))
        for r in ranks[:1]:
            self._src.cast(df, r, {"ts": "ts", "dur": "dur", "stream": "stream", "correlation": "correlation",
                                   "pid": "pid", "tid": "tid", "index": "index"})
        return df

    # ------------------------------------------------------------ TD-4
    def get_ops_summary(self, ops):
        """Counts and total duration per (category, name) of OPS (extract_ops' frame).

        Returns:
            A DataFrame: cat, name, short_name (hta_shorten_name), counts, total_duration (µs),
            cat_id, name_id (the database's ids).
        """
        pd = _pd()
        cols = ["cat", "name", "short_name", "counts", "total_duration", "cat_id", "name_id"]
        if ops is None or len(ops) == 0:
            empty = pd.DataFrame(columns=cols)
            return empty.astype({"counts": "int64", "total_duration": "float64", "cat_id": "int64", "name_id": "int64"})
        df = ops[["cat", "name", "dur"]].groupby(["cat", "name"]).aggregate(["count", "sum"])
        df.columns = ["counts", "total_duration"]
        df = df.reset_index()
        names = list(df["name"].unique())
        short, ids = {}, {}
        for i in range(0, len(names), 500):
            chunk = names[i : i + 500]
            for v, sn, sid in self._src.rows(
                "SELECT value, hta_shorten_name(value), string_id FROM string WHERE value IN (%s)"
                % ",".join("?" * len(chunk)),
                chunk,
            ):
                short[v], ids[v] = sn, sid
        cats = {n: i for i, n in self._src.rows("SELECT category_id, name FROM category")}
        df["short_name"] = df["name"].map(lambda n: short.get(n, n))
        df["cat_id"] = df["cat"].map(lambda c: cats.get(c, -1))
        df["name_id"] = df["name"].map(lambda n: ids.get(n, -1))
        return df[cols]


def _choose(value, available, what, label):
    """TD-3: VALUE (None: the first available, an int, or a list) checked against AVAILABLE."""
    if value is None:
        if not available:
            raise ValueError("Trace %s doesn't have any %s." % (label, what))
        return available[:1]
    if isinstance(value, int) and not isinstance(value, bool):
        chosen = [value]
    elif isinstance(value, list):
        chosen = value
    else:
        raise ValueError("Invalid type for argument `%s` %s." % (what, value))
    for v in chosen:
        if v not in available:
            raise ValueError("Invalid argument %s=%s." % (what, v))
    return chosen


def _adapt(t, default_label):
    from .trace_analysis import TraceAnalysis

    if isinstance(t, str):
        return LabeledTrace(label=default_label, trace_dir=t)
    if isinstance(t, TraceAnalysis):
        return LabeledTrace(label=default_label, t=t)
    if isinstance(t, LabeledTrace):
        return t
    raise ValueError("Invalid argument type for (%s)." % (t,))


class JobComparison:
    """What TraceDiff.compare_jobs returns (CJ-3)."""

    def __init__(self, summary, tree):
        self.summary = summary
        self.tree = tree

    @property
    def step(self):
        rows = self.summary[(self.summary["split"] == "role") & (self.summary["part"] == "step")]
        return rows.iloc[0].to_dict() if len(rows) else None

    def parts(self, split="role"):
        df = self.summary[(self.summary["split"] == split) & (self.summary["part"] != "step")]
        return df.reset_index(drop=True)

    def operators(self, n=10):
        return self.summary[self.summary["split"] == "operator"].head(n).reset_index(drop=True)

    def points(self, n=10):
        df = self.tree[self.tree["is_comparison_point"] == 1].copy()
        df["_abs"] = df["point_delta_us"].abs()
        df = df.sort_values(["_abs", "node_id"], ascending=[False, True], kind="mergesort")
        return df.drop(columns=["_abs"]).head(n).reset_index(drop=True)


def _job_connection(control, test, db):
    """CJ-1: (connection, control job, test job, control schema, test schema, owned)."""
    import sqlite3
    import urllib.parse

    from . import connect, load

    if db is not None:
        if isinstance(db, (str, bytes, os.PathLike)):
            if not os.path.isfile(db):
                raise ValueError("no database %s" % os.fspath(db))
            return connect(db, readonly=True), control, test, "main", "main", True
        return load(db), control, test, "main", "main", False
    sides = [_adapt(control, "Control"), _adapt(test, "Test")]
    conn = connect(":memory:")
    try:
        for k, lt in enumerate(sides):
            if lt._src.db_path is None:
                raise ValueError("%s: no trace file" % lt.label)
            uri = "file:%s?mode=ro" % urllib.parse.quote(os.path.abspath(lt._src.db_path))
            conn.execute("ATTACH ? AS %s" % ("hta_control", "hta_test")[k], (uri,))
    except (sqlite3.Error, ValueError):
        conn.close()
        raise
    return conn, None, None, "hta_control", "hta_test", True


class TraceDiff:
    @classmethod
    def compare_jobs(cls, control, test, control_rank=None, test_rank=None, db=None):
        """The structural diff of two runs (CJ-1..3): SQL hta_job_diff_summary and
        hta_job_diff on control and test. Not in HTA (deviations E19: TraceLens's TraceDiff,
        with its call trees aligned rather than paired by position).

        Args:
            control, test: two trace directories, TraceAnalysis or LabeledTrace objects (each
                read from its own cached database), or, with db, two job names of that
                database.
            control_rank, test_rank: the rank compared on each side (default: the control's
                lowest rank, and the same rank of the test when it has it).
            db: None, a database path, or an open sqlite3 connection holding both jobs.

        Returns:
            A JobComparison: .summary (hta_job_diff_summary's rows: split, part, control_ns,
            test_ns, delta_ns, counts, change; the findings' and the operators' rows), .tree
            (hta_job_diff's rows: the merged call tree, one row per node pair), .step (the mean
            step of each run as a dict), .parts(split) (the parts that add up to the step
            difference: split 'role', or 'idle' for busy time and idle causes), .operators(n)
            and .points(n) (the largest changes).
        Raises ValueError naming the job, rank or database that is not there."""
        import sqlite3

        pd = _pd()
        conn, cj, tj, cs, ts, owned = _job_connection(control, test, db)
        args = (cj, tj, control_rank, test_rank, cs, ts)
        try:
            summary = pd.read_sql_query(
                "SELECT *, control_rank, test_rank FROM hta_job_diff_summary(?, ?, ?, ?, ?, ?)", conn,
                params=args)
            tree = pd.read_sql_query("SELECT * FROM hta_job_diff(?, ?, ?, ?, ?, ?)", conn, params=args)
            for c in ("control_ns", "test_ns", "delta_ns", "control_count", "test_count"):
                summary[c] = summary[c].astype("Int64")  # NULL on the operator rows
        except (sqlite3.Error, pd.errors.DatabaseError) as e:
            raise ValueError(str(e).split(": ", 1)[-1] if "hta_job_diff" in str(e) else str(e)) from None
        finally:
            if owned:
                conn.close()
        return JobComparison(summary, tree)

    @classmethod
    def compare_traces(
        cls,
        control,
        test,
        control_rank=None,
        test_rank=None,
        control_iteration=None,
        test_iteration=None,
        device_type=DeviceType.ALL,
        use_short_name=False,
    ):
        """Per operator name: counts and total duration in two traces, and their differences.

        Args:
            control, test: a trace directory, a TraceAnalysis or a LabeledTrace (directories
                get the labels "Control" and "Test").
            control_rank, test_rank, control_iteration, test_iteration: as extract_ops.
            device_type: DeviceType.CPU, GPU or ALL.
            use_short_name: group by the shortened name.

        Returns:
            A DataFrame indexed by name: <control>_counts, <control>_total_duration,
            <test>_counts, <test>_total_duration (0 where a side lacks the name), diff_counts,
            diff_duration (test - control), counts_change_categories ("+", "-", "="). Equal
            labels rename the test's to label + "_control_test".
        """
        pd = _pd()
        control_trace = _adapt(control, "Control")
        test_trace = _adapt(test, "Test")
        if control_trace.label == test_trace.label:
            test_trace.label = test_trace.label + "_control_test"
        cl, tl = control_trace.label, test_trace.label
        col = "short_name" if use_short_name else "name"
        sides = []
        for lt, rank, it in ((control_trace, control_rank, control_iteration), (test_trace, test_rank, test_iteration)):
            summary = lt.get_ops_summary(lt.extract_ops(rank, it, device_type))
            sides.append(summary.groupby(col)[["counts", "total_duration"]].sum())
        comp = pd.concat(sides, axis=1, join="outer", keys=[cl, tl])
        comp.fillna(0, inplace=True)
        comp.columns = ["_".join(c).rstrip("_") for c in comp.columns.values]
        comp["diff_counts"] = comp["%s_counts" % tl] - comp["%s_counts" % cl]
        comp["diff_duration"] = comp["%s_total_duration" % tl] - comp["%s_total_duration" % cl]
        comp["counts_change_categories"] = comp["diff_counts"].apply(lambda c: "+" if c > 0 else "-" if c < 0 else "=")
        return comp

    @classmethod
    def ops_diff(
        cls,
        control,
        test,
        control_rank=None,
        test_rank=None,
        control_iteration=None,
        test_iteration=None,
        device_type=DeviceType.ALL,
    ):
        """The names of operators added, deleted, increased, decreased and unchanged (by count)
        from CONTROL to TEST.

        Args: as compare_traces (without use_short_name).

        Returns:
            {"added": [...], "deleted": [...], "increased": [...], "decreased": [...],
            "unchanged": [...]}.
        """
        control_trace = _adapt(control, "Control")
        test_trace = _adapt(test, "Test")
        df = cls.compare_traces(
            control_trace, test_trace, control_rank, test_rank, control_iteration, test_iteration, device_type
        )
        c = df["%s_counts" % control_trace.label]
        t = df["%s_counts" % test_trace.label]
        d = df["diff_counts"]
        return {
            "added": df.loc[c.eq(0) & t.gt(0)].index.tolist(),
            "deleted": df.loc[c.gt(0) & t.eq(0)].index.tolist(),
            "increased": df.loc[c.gt(0) & d.gt(0)].index.tolist(),
            "decreased": df.loc[t.gt(0) & d.lt(0)].index.tolist(),
            "unchanged": df.loc[t.gt(0) & d.eq(0)].index.tolist(),
        }

    @classmethod
    def _visualize(cls, df, what, layout, show_image, export_image_path):
        labels = [c[: -len("_total_duration")] for c in df.columns if c.endswith("_total_duration")]
        assert len(labels) >= 2
        suffix = "counts" if what == "counts" else "total_duration"
        diff = "diff_counts" if what == "counts" else "diff_duration"
        _plots.draw(
            lambda go: [
                go.Bar(name=labels[0], x=df.index, y=df["%s_%s" % (labels[0], suffix)]),
                go.Bar(name=labels[1], x=df.index, y=df["%s_%s" % (labels[1], suffix)]),
                go.Bar(name="Difference", x=df.index, y=df[diff]),
            ],
            layout,
            show=show_image,
            export_image_path=export_image_path,
        )

    @classmethod
    def visualize_counts_diff(cls, df, show_image=True, export_image_path=None):
        """Draws "Ops Count Comparison": per name the counts of both traces and their difference.

        Args:
            df: compare_traces' frame (or a part of it).
            show_image: show the figure.
            export_image_path: also write it to this file (needs kaleido).

        Returns:
            None.
        """
        cls._visualize(df, "counts", {"barmode": "group", "title_text": "Ops Count Comparison"}, show_image,
                       export_image_path)

    @classmethod
    def visualize_duration_diff(cls, df, show_image=True, export_image_path=None):
        """Draws "Ops Duration Comparison": per name the total durations of both traces and their
        difference (µs).

        Args: as visualize_counts_diff.

        Returns:
            None.
        """
        cls._visualize(
            df,
            "duration",
            {"barmode": "group", "title_text": "Ops Duration Comparison", "yaxis_title": "Total Duration (us)",
             "autosize": True, "width": 1000, "height": 1000},
            show_image,
            export_image_path,
        )
