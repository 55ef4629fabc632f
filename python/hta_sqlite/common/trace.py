"""HTA's Trace (hta.common.trace.Trace), the loaded traces of a job, read from the database.

    from hta_sqlite.common.trace import Trace       # was: from hta.common.trace import Trace
    t = Trace(trace_dir="traces")
    t.parse_traces()
    df = t.get_trace(0)                             # rank 0's events, HTA's columns
    t.symbol_table.add_symbols_to_trace_df(df, "name")

`TraceAnalysis(...).t` is the Trace of that analyzer (the same database). The frames are
built from SQL on first use (hta_sqlite._trace_frame: columns and defaults); nothing of
HTA is imported.

Requirements (tests cite them as TR-n):
  TR-1  Trace(trace_files, trace_dir, parser_config) opens the cached database of those
        files as TraceAnalysis does (the same files, ranks and warnings); parser_config is
        accepted and ignored (the database holds every argument). parse_traces() is
        accepted (the database is parsed already); is_parsed says True once called or
        once a frame was asked for.
  TR-2  get_ranks() are the loaded ranks; get_trace(rank) the rank's frame (_trace_frame
        TF-n), cat and name as symbol ids of symbol_table; a rank not loaded raises
        ValueError, as HTA's. get_all_traces() is {rank: frame}. Frames are built once
        per rank and handed out as they are (HTA hands out its own tables too).
  TR-3  symbol_table: sym_table (a list: id -> text) and sym_index (text -> id), with
        get_sym_table(), get_sym_id_map(), add_symbols_to_trace_df(df, col) (ids -> text
        in place, "" for an unknown id); ids are the database's string ids, category
        names that are no string get ids after them.
  TR-4  decode_symbol_ids(use_shorten_name=True) adds s_name and s_cat to every loaded
        frame (shortened with hta_shorten_name when asked), as HTA's.
  TR-5  min_ts is the job's time base in µs (the earliest kept event), trace_files the
        {rank: path} of the loaded files, get_iterations(rank) the steps of the rank
        (first rank by default), get_trace_duration(rank) max(ts) - min(ts) of its frame.
"""

from .._base import Source

DEFAULT_TRACE_DIR = "/tmp/trace"

__all__ = ["Trace", "TraceSymbolTable"]


class TraceSymbolTable:
    """Symbol ids of a database's names and categories (TR-3)."""

    def __init__(self, src):
        self._src = src
        self._cat = None
        self._table = None
        self._index = None

    def _load(self):
        if self._table is not None:
            return
        rows = self._src.rows("SELECT string_id, value FROM string ORDER BY string_id")
        top = rows[-1][0] if rows else 0
        table = [""] * (top + 1)
        for i, v in rows:
            table[i] = v
        index = {}
        for i, v in enumerate(table):
            index.setdefault(v, i)
        cat = {}
        for cid, name in self._src.rows("SELECT category_id, name FROM category ORDER BY category_id"):
            if name not in index:
                index[name] = len(table)
                table.append(name)
            cat[cid] = index[name]
        self._table, self._index, self._cat = table, index, cat

    @property
    def sym_table(self):
        self._load()
        return self._table

    @property
    def sym_index(self):
        self._load()
        return self._index

    def get_sym_table(self):
        """The list of symbols: position = id."""
        return self.sym_table

    def get_sym_id_map(self):
        """{symbol: id}."""
        return self.sym_index

    get_sym_index = get_sym_id_map

    def ids(self):
        """{'cat': {category_id: id}, 'name': {string_id: id}} for _trace_frame."""
        self._load()
        return {"cat": self._cat, "name": _Identity()}

    def add_symbols_to_trace_df(self, trace_df, col):
        """Replaces the ids of column COL of TRACE_DF by their text, in place."""
        table = self.sym_table
        n = len(table)
        trace_df[col] = trace_df[col].map(lambda i: table[int(i)] if 0 <= int(i) < n else "")


class _Identity(dict):
    """A name's symbol id is its string id."""

    def get(self, key, default=None):
        return default if key is None else int(key)


class Trace:
    """HTA's Trace over the cached database of the files (see the module's docstring)."""

    def __init__(self, trace_files=None, trace_dir=DEFAULT_TRACE_DIR, parser_config=None, *, _src=None):
        self._src = _src if _src is not None else Source(trace_dir, trace_files)
        self.trace_path = trace_dir
        self.parser_config = parser_config
        self.symbol_table = TraceSymbolTable(self._src)
        self.traces = {}
        self.is_parsed = False

    @property
    def trace_files(self):
        return self._src.trace_files()

    @property
    def min_ts(self):
        return self._src.min_ts() / 1000.0

    def parse_traces(self, max_ranks=-1, use_multiprocessing=True, use_memory_profiling=True):
        """Nothing to parse: the database holds the traces (TR-1)."""
        self.is_parsed = True

    def load_traces(self, include_last_profiler_step=False, **kwargs):
        self.is_parsed = True

    def get_ranks(self):
        return self._src.ranks()

    def get_trace(self, rank):
        if rank not in self._src.ranks():
            raise ValueError("no trace for rank %r (ranks: %s)" % (rank, self._src.ranks()))
        if rank not in self.traces:
            from .._trace_frame import event_frame

            df = event_frame(self._src, rank, symbols=self.symbol_table.ids())
            self.traces[rank] = df.drop(columns=["event_id"])
            self.is_parsed = True
        return self.traces[rank]

    def get_all_traces(self):
        for r in self.get_ranks():
            self.get_trace(r)
        return self.traces

    def get_iterations(self, rank=None):
        ranks = self.get_ranks()
        rank = ranks[0] if rank is None and ranks else rank
        if rank not in ranks:
            return []
        return [r[0] for r in self._src.rows(
            "SELECT DISTINCT step FROM profiler_step WHERE trace_id IN (SELECT trace_id FROM trace WHERE rank = ?)"
            " ORDER BY step", (rank,))]

    def get_trace_duration(self, rank=None):
        ranks = self.get_ranks()
        df = self.get_trace(ranks[0] if rank is None and ranks else rank)
        return df["ts"].max() - df["ts"].min()

    def decode_symbol_ids(self, use_shorten_name=True):
        """TR-4: s_name and s_cat beside the ids of every loaded frame."""
        table = self.symbol_table.sym_table
        n = len(table)

        def text(i):
            return table[int(i)] if 0 <= int(i) < n else ""

        for df in self.traces.values():
            names = {i: text(i) for i in set(df["name"])}
            if use_shorten_name:
                from ..utils.utils import shorten_names

                short = shorten_names(names.values())
                names = {i: short[v] for i, v in names.items()}
            df["s_name"] = df["name"].map(names)
            df["s_cat"] = df["cat"].map(text)

    def __repr__(self):
        return "Trace(ranks=%s, db=%r)" % (self.get_ranks(), self._src.db_path)
