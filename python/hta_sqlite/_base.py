"""What hta_sqlite.trace_analysis and hta_sqlite.trace_diff share: one cached database of a
set of trace files, read through the extension, and SQL results as pandas DataFrames.

Requirements (tests cite them as BASE-n):
  BASE-1  A Source opens its cached database read-only with hta.so loaded; every
          analysis is SQL on that connection.
  BASE-2  ranks() are the ranks with events HTA keeps (an empty file's rank is dropped,
          as HTA drops it), ascending; check_ranks() raises ValueError for a rank that
          is not loaded, as HTA's Trace.get_trace does.
  BASE-3  kept_condition() selects the rows HTA's loader keeps: with the last-ProfilerStep
          cut (when the job has two or more step numbers and include_last_profiler_step
          is off) a host row stays when it starts before its trace's last step; a GPU row
          with a correlation when the launch it is linked to stays (none: dropped), one
          without when it starts before the cut; a trace with host rows but no step of its
          own keeps none (the rule of the extension's hta_gpu_load).
  BASE-4  hta_dtypes()/cast(): result columns get the dtypes HTA's loaded table gives them.
"""

import contextlib
import json
import os
import sqlite3
import warnings

from . import connect
from . import _cache

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1


def _pandas():
    import pandas as pd

    return pd


def _int_dtype(lo, hi):
    """pandas.to_numeric(downcast="integer")'s choice for values in [lo, hi]."""
    if lo is None or hi is None or isinstance(lo, str) or isinstance(hi, str):
        return "int64"
    for t, b in (("int8", 7), ("int16", 15), ("int32", 31)):
        if -(1 << b) <= lo and hi < (1 << b):
            return t
    return "int64"


_TEXT_COLUMNS = {"name", "kernel_type", "idle_category", "pattern", "aten_op_name", "kernel_sequence",
                 "counter", "op_stack", "top_level_op", "bottom_level_op", "kernel_name", "cat", "kind",
                 "edge_type", "bound_by", "status", "s_name", "s_cat", "s_user_annotation"}


def _typed_empty(df):
    for c in df.columns:
        df[c] = df[c].astype(object if c in _TEXT_COLUMNS else "float64")
    return df


def _hide_captures(conn):
    """A database of hta-ingest may hold graph capture traces (schema.sql's capture table:
    vLLM's capture_traces/), which are no rank's window: HTA's API sees the profiled traces
    only. A TEMP view named trace shadows main.trace for this connection's own SQL (the
    extension's functions leave the captures out themselves)."""
    has = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'capture'").fetchone()
    if has and conn.execute("SELECT 1 FROM capture LIMIT 1").fetchone():
        conn.execute("CREATE TEMP VIEW trace AS SELECT * FROM main.trace"
                     " WHERE trace_id NOT IN (SELECT trace_id FROM main.capture)")


class Source:
    """One cached database (BASE-1)."""

    def __init__(self, trace_dir, trace_files=None, include_last_profiler_step=False, ns_rounding=None,
                 db_path=None):
        self.trace_dir = trace_dir
        self.include_last = 1 if include_last_profiler_step else 0
        if db_path is None:
            self.files = _cache.trace_file_list(trace_dir, trace_files)
            self.ns_rounding = _cache.hta_ns_rounding() if ns_rounding is None else bool(ns_rounding)
            self.db_path = _cache.database_for(self.files, self.ns_rounding) if self.files else None
        else:
            self.db_path = os.fspath(db_path)
            if not os.path.isfile(self.db_path):
                raise ValueError("no database %s" % self.db_path)
        self.conn = connect(self.db_path, readonly=True) if self.db_path else None
        if db_path is not None:
            _hide_captures(self.conn)
        for msg in _cache.same_rank(self.conn) if self.conn is not None else []:
            warnings.warn(msg, stacklevel=3)  # HTA's warning, on every open (CACHE-8)
        self._cuts = None
        self._dtypes = {}
        if db_path is not None:
            jobs = self.rows("SELECT count(DISTINCT job_id) FROM trace")[0][0]
            if jobs > 1:
                self.close()
                raise ValueError("%s holds %d jobs: open a database of one job" % (self.db_path, jobs))
            self.files = [(None, p) for (p,) in self.rows("SELECT file_path FROM trace ORDER BY trace_id")]
            self.ns_rounding = bool(self.rows("SELECT 1 FROM meta WHERE key = 'pyapi_hta_ns_rounding'"))
        frac = self.rows("SELECT value FROM meta WHERE key = 'pyapi_fractional_us'")
        if not frac and self.conn is not None:
            frac = [("1" if self.rows("SELECT 1 FROM event WHERE ts % 1000 <> 0 LIMIT 1") else "0",)]
        # HTA's time columns are float64 when a trace has fractional µs (rounded or not).
        self.fractional = bool(frac and frac[0][0] == "1")

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    # ------------------------------------------------------------ SQL helpers
    def rows(self, sql, params=()):
        if self.conn is None:
            return []
        return self.conn.execute(sql, params).fetchall()

    def frame(self, sql, params=(), columns=None):
        """The result of SQL as a DataFrame (COLUMNS names them; default: the SQL's). An
        empty result has float64 columns, except the text columns HTA's frames have."""
        pd = _pandas()
        if self.conn is None:
            return _typed_empty(pd.DataFrame(columns=columns or []))
        cur = self.conn.execute(sql, params)
        names = columns or [d[0] for d in cur.description]
        df = pd.DataFrame.from_records(cur.fetchall(), columns=names)
        return _typed_empty(df) if df.empty else df

    # ------------------------------------------------------------ ranks (BASE-2)
    def ranks(self):
        return [r[0] for r in self.rows("SELECT DISTINCT rank FROM trace WHERE min_ts IS NOT NULL ORDER BY rank")]

    def check_ranks(self, ranks):
        have = set(self.ranks())
        for r in ranks:
            if r not in have:
                raise ValueError("Rank %r not in the loaded traces (ranks: %s)" % (r, sorted(have)))

    def trace_files(self):
        """{rank: file path} of the loaded traces, as HTA's Trace.trace_files."""
        return {r: p for r, p in self.rows("SELECT rank, file_path FROM trace ORDER BY trace_id")}

    def traces_of(self, rank):
        """The trace_ids of RANK (normally one file)."""
        return [r[0] for r in self.rows("SELECT trace_id FROM trace WHERE rank = ? ORDER BY trace_id", (rank,))]

    # ------------------------------------------------------------ dtypes (BASE-4)
    def hta_dtypes(self, rank):
        """{column: dtype} HTA's loader gives RANK's table (BASE-4), from the facts the
        cache recorded at build time (_cache.trace_facts)."""
        if rank in self._dtypes:
            return self._dtypes[rank]
        f = None
        for tid in self.traces_of(rank):
            try:
                r = self.rows("SELECT facts FROM pyapi_file WHERE trace_id = ?", (tid,))
                f = json.loads(r[0][0]) if r and r[0][0] else None
            except sqlite3.OperationalError:  # a database hta-ingest built (from_database)
                f = _cache.trace_facts(self.conn, tid)
            break
        f = f or {}

        def rng(k):
            v = f.get(k) or [None, None]
            return v[0], v[1]

        dur_float = self.fractional or bool(f.get("dur_float", True))
        out = {
            "stream": _int_dtype(*rng("stream")),
            "correlation": _int_dtype(*rng("correlation")),
            "index": _int_dtype(*rng("seq")),
            "ts": "float64" if self.fractional else "int64",
            "dur": "float64" if dur_float else _int_dtype(*rng("dur_us")),
            "time": "float64" if dur_float else "int64",
            "pid": "object" if f.get("pid_text", True) else _int_dtype(*rng("pid")),
            "tid": "object" if f.get("tid_text", True) else _int_dtype(*rng("tid")),
        }
        self._dtypes[rank] = out
        return out

    def cast(self, df, rank, columns):
        """Casts COLUMNS ({column: kind in hta_dtypes}) of DF to HTA's dtypes for RANK;
        a column holding NaN or a non-integral value is left alone."""
        dt = self.hta_dtypes(rank)
        for col, kind in columns.items():
            if col not in df.columns:
                continue
            want = dt[kind]
            if want == "object":
                df[col] = df[col].astype(object)
                continue
            v = df[col]
            if want.startswith("int"):
                if v.dtype.kind == "f" and (v.isna().any() or not ((v % 1) == 0).all()):
                    continue
                if v.dtype.kind not in "if":
                    continue
            df[col] = v.astype(want)
        return df

    # ------------------------------------------------------------ the loaded rows (BASE-3)
    def cuts(self):
        """{trace_id: bound}: host rows with ts < bound survive the last-step cut."""
        if self._cuts is None:
            cuts = {}
            traces = [r[0] for r in self.rows("SELECT trace_id FROM trace ORDER BY trace_id")]
            nsteps = self.rows("SELECT count(DISTINCT step) FROM profiler_step")[0][0] if traces else 0
            for tid in traces:
                bound = INT64_MAX
                if not self.include_last and nsteps >= 2:
                    last = self.rows("SELECT max(ts) FROM profiler_step WHERE trace_id = ?", (tid,))[0][0]
                    if last is not None:
                        bound = last
                    elif self.rows(
                        "SELECT 1 FROM event WHERE event_id BETWEEN ? AND ? AND stream IS NULL"
                        " AND dur IS NOT NULL LIMIT 1",
                        (tid << 32, (tid << 32) | 0xFFFFFFFF),
                    ):
                        bound = INT64_MIN
                cuts[tid] = bound
            self._cuts = cuts
        return self._cuts

    @staticmethod
    def kept_condition(alias="e"):
        """SQL condition on event ALIAS for the rows kept by the cut; binds :lo, :hi
        (the trace's event_id range) and :cut."""
        e = alias
        return (
            "({e}.event_id BETWEEN :lo AND :hi AND (({e}.stream IS NULL AND {e}.ts < :cut) OR"
            " ({e}.stream IS NOT NULL AND CASE WHEN :cut = %d THEN 1"
            " WHEN coalesce({e}.correlation, -1) < 0 THEN {e}.ts < :cut"
            " ELSE (SELECT l.ts FROM event l WHERE l.event_id = {e}.link_id) < :cut END)))"
        ).format(e=e) % INT64_MAX

    def trace_params(self, trace_id):
        return {"lo": trace_id << 32, "hi": (trace_id << 32) | 0xFFFFFFFF, "cut": self.cuts()[trace_id]}

    def min_ts(self):
        """The job's time base (ns): the earliest kept event of every rank (HTA's min_ts)."""
        r = self.rows("SELECT min(min_ts) FROM trace")
        return r[0][0] if r and r[0][0] is not None else 0

    @contextlib.contextmanager
    def io_connection(self):
        """A connection with the extension's io entry point (the file writers)."""
        from . import path

        conn = sqlite3.connect(self.db_path)
        try:
            conn.enable_load_extension(True)
            conn.execute("SELECT load_extension(?, 'sqlite3_hta_io_init')", (path(),))
            conn.enable_load_extension(False)
            yield conn
        finally:
            conn.close()
