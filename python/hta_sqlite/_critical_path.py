"""critical_path_analysis and overlay_critical_path_analysis of hta_sqlite.trace_analysis.

HTA returns (CPGraph, success), CPGraph being its networkx graph of the whole analysis.
Here CPGraph holds the critical path that hta_critical_path computes and the documented
methods HTA's users call on it: summary(), get_critical_path_breakdown(),
show_critical_path(), and the sets the overlay uses. The whole graph is in SQL:
hta_critical_path_graph.

Requirements (tests cite them as CP-n):
  CP-1  analyse(): the rank must be loaded (ValueError); instance_id None, an int or a
        pair (a, b) (inclusive), anything else returns None as HTA does; the option
        CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE=1 (HTA's switch) adds the zero-weight
        launch edges. hta_critical_path_stats decides: no_annotation -> None, invalid ->
        (CPGraph without path, False), failed -> RuntimeError (HTA raises), ok ->
        (CPGraph, True).
  CP-2  critical_path_nodes lists the path's nodes in order as (event index, is_start)
        pairs, critical_path_events_set their event indices (traceEvents positions),
        critical_path_edges_set the path's edges (CPEdge: begin, end, type, weight).
  CP-3  get_critical_path_breakdown(): one row per path edge, in path order (HTA: in set
        order): event_idx (None when unattributed), duration, type, s_name, cat, pid, tid,
        stream, index, bound_by; summary() = 100 * duration per bound_by / total duration,
        a Series indexed by bound_by (sorted), as HTA's.
  CP-4  data_load_events: host operator edges whose event's (shortened) name matches one
        of the regexes are bound_by "data_loading", as HTA labels them; HTA also gives such
        events graph nodes when their category has none (not done here: a warning says
        when the trace has such events).
  CP-5  The overlay is output_dir/"overlaid_critical_path_" + the trace file's name: every
        critical event gets args.critical = 1, and the path's dependency, launch-delay and
        sync edges become flow events (hta_write_critical_path_overlay); with
        only_show_critical_events the X events that are neither critical nor user
        annotations nor python functions are dropped; with show_all_edges (and not
        only_show_critical_events) every graph edge becomes a flow, the zero-weight launch
        edges only with CRITICAL_PATH_SHOW_ZERO_WEIGHT_LAUNCH_EDGE=1, as in HTA.
  CP-6  nodes and edges are the whole graph's (hta_critical_path_graph: HTA's node ids,
        and (src, dst) pairs in insertion order), read on first use.
  CP-7  save(out_dir) writes the analysis (its parameters, the path, the graph's edges) into
        OUT_DIR and the zip OUT_DIR + ".zip", whose path it returns, as HTA's;
        restore_cpgraph(zip, t_full, rank) reads that zip (nothing is extracted) and gives
        a CPGraph with the same path, nodes, edges and summary(); t_full (a Trace, e.g.
        analyzer.t) lets critical_path() compute the path again from the database. A zip
        of another rank is ValueError. The files are JSON (HTA: pickle and CSV, which
        HTA's restore reads back; neither reads the other's).
  CP-8  critical_path() computes the path again from the database (HTA recomputes it on
        its graph, which a user may have edited; ours cannot be edited) and returns
        success, as HTA's.
"""

import collections
import json
import os
import re
import warnings
import zipfile

from ._trace_file import _rewrite_trace

CPEdge = collections.namedtuple("CPEdge", ["begin", "end", "type", "weight"])

_EDGE_TYPES_IN_VIZ = (
    "critical_path_dependency",
    "critical_path_kernel_launch_delay",
    "critical_path_sync_dependency",
)


def _flag(name):
    return os.environ.get(name, "0") == "1"


def _instance_sql(instance_id):
    """The SQL instance_id of HTA's argument, or False for a type HTA rejects (CP-1)."""
    if instance_id is None:
        return None
    if isinstance(instance_id, bool):
        return False
    if isinstance(instance_id, int):
        return instance_id
    if isinstance(instance_id, (tuple, list)) and len(instance_id) == 2 and all(
        isinstance(i, int) and not isinstance(i, bool) for i in instance_id
    ):
        return "[%d, %d]" % tuple(instance_id)
    return False


class CPGraph:
    """The critical path of one rank (see the module's docstring)."""

    def __init__(self, rank, annotation, instance_id, zero_weight, path, success):
        self.rank = rank
        self.annotation = annotation
        self.instance_id = instance_id
        self.add_zero_weight_launch_edges = zero_weight
        self.success = success
        self.path = path  # the rows of hta_critical_path, in path order
        nodes = []
        for r in path.itertuples(index=False):
            if not nodes:
                nodes.append((int(r.src_event_seq), bool(r.src_is_start)))
            nodes.append((int(r.dst_event_seq), bool(r.dst_is_start)))
        self.critical_path_nodes = nodes
        self.critical_path_events_set = {n[0] for n in nodes}
        self.critical_path_edges_set = {
            CPEdge((int(r.src_event_seq), bool(r.src_is_start)), (int(r.dst_event_seq), bool(r.dst_is_start)),
                   r.edge_type, r.weight_us)
            for r in path.itertuples(index=False)
        }
        self._data_load = []
        self._src = None  # the database (analyse, restore_cpgraph's t_full): CP-6, CP-8
        self._graph = None  # the graph's edges (CP-6), read on first use

    # ------------------------------------------------------------ construction (CP-1)
    @classmethod
    def analyse(cls, src, rank, annotation, instance_id, data_load_events=None):
        src.check_ranks([rank])
        inst = _instance_sql(instance_id)
        if inst is False:
            return None
        zw = 1 if _flag("CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE") else 0
        args = (annotation, inst, zw, src.include_last, rank)
        pd_path = src.frame(
            "SELECT path_pos, src_event_seq, src_is_start, src_ts_us, dst_event_seq, dst_is_start, dst_ts_us,"
            " edge_type, weight_us, duration_us, event_seq, name, cat, pid, tid, stream, bound_by"
            " FROM hta_critical_path(?, ?, ?, ?) WHERE rank = ? ORDER BY trace_id, path_pos",
            args,
        )
        status = "ok"
        if pd_path.empty:  # no path: the stats say why (the graph is built again only then)
            stats = src.rows(
                "SELECT status FROM hta_critical_path_stats(?, ?, ?, ?) WHERE rank = ? ORDER BY trace_id", args
            )
            status = stats[0][0] if stats else "no_annotation"
        if status == "no_annotation":
            return None
        if status == "invalid":
            g = cls(rank, annotation, instance_id, zw, pd_path.iloc[0:0], False)
            g._src = src
            return g, False
        if status != "ok":
            raise RuntimeError("critical_path_analysis: rank %s: %s" % (rank, status))
        g = cls(rank, annotation, instance_id, zw, pd_path, True)
        g._src = src
        if data_load_events:
            g._data_load = [str(p) for p in data_load_events]
            _warn_data_load_nodes(src, rank, g._data_load)
        return g, True

    # ------------------------------------------------------------ HTA's methods (CP-3)
    def get_critical_path_breakdown(self):
        if len(self.critical_path_nodes) == 0:
            return None
        p = self.path
        attributed = p["event_seq"].notna()
        df = p.assign(
            event_idx=p["event_seq"].where(attributed, None),
            duration=p["duration_us"],
            type=p["edge_type"],
            s_name=p["name"].where(attributed, None),
            index=p["event_seq"],
        )
        df = df[["event_idx", "duration", "type", "s_name", "cat", "pid", "tid", "stream", "index", "bound_by"]]
        df["bound_by"] = df["bound_by"].fillna("")
        if self._data_load:
            rx = [re.compile(x) for x in self._data_load]
            host_op = (df["bound_by"] == "cpu_bound") & df["s_name"].notna()
            hit = host_op & df["s_name"].map(lambda n: isinstance(n, str) and any(r.search(n) for r in rx))
            df.loc[hit, "bound_by"] = "data_loading"
        return df.reset_index(drop=True)

    def summary(self):
        edf = self.get_critical_path_breakdown()
        assert edf is not None, "Critical path breakdown is required for summary"
        print("Critical Path broken down by boundedness = (in % of duration)")
        return edf.groupby("bound_by")["duration"].sum() / edf["duration"].sum() * 100

    def show_critical_path(self):
        for pos, (seq, start) in enumerate(self.critical_path_nodes):
            print("Critical node %d: event %d %s" % (pos, seq, "start" if start else "end"))

    # ------------------------------------------------------------ the whole graph (CP-6)
    def _graph_frame(self):
        if self._graph is None:
            if self._src is None or not self.success:
                import pandas as pd

                self._graph = pd.DataFrame(columns=["src_node", "dst_node"])
            else:
                inst = _instance_sql(self.instance_id)
                self._graph = self._src.frame(
                    "SELECT src_node, dst_node FROM hta_critical_path_graph(?, ?, ?, ?) WHERE rank = ?"
                    " ORDER BY trace_id, edge_pos",
                    (self.annotation, None if inst is False else inst, self.add_zero_weight_launch_edges,
                     self._src.include_last, self.rank),
                )
        return self._graph

    @property
    def nodes(self):
        """The graph's node ids, ascending."""
        g = self._graph_frame()
        return sorted(set(g["src_node"].astype(int)) | set(g["dst_node"].astype(int)))

    @property
    def edges(self):
        """The graph's edges as (src node, dst node), in insertion order."""
        g = self._graph_frame()
        return list(zip(g["src_node"].astype(int), g["dst_node"].astype(int)))

    def critical_path(self):
        """CP-8: the path computed again from the database; returns success."""
        if self._src is None:
            raise ValueError("critical_path(): this graph has no database (restore it with t_full=analyzer.t)")
        got = CPGraph.analyse(self._src, self.rank, self.annotation, self.instance_id)
        if got is None:
            return False
        g, ok = got
        self.__dict__.update({k: v for k, v in g.__dict__.items() if k not in ("_data_load", "_graph")})
        return ok

    # ------------------------------------------------------------ save / restore (CP-7)
    def save(self, out_dir):
        """Writes the analysis into OUT_DIR and OUT_DIR.zip; returns the zip's path."""
        out_dir = os.path.expanduser(out_dir).rstrip("/")
        os.makedirs(out_dir, exist_ok=True)
        files = {
            _SAVE_META: json.dumps({"format": 1, "rank": int(self.rank), "annotation": self.annotation,
                                    "instance_id": self.instance_id, "success": bool(self.success),
                                    "add_zero_weight_launch_edges": int(self.add_zero_weight_launch_edges),
                                    "data_load_events": self._data_load}),
            _SAVE_PATH: self.path.to_json(orient="table", index=False),
            _SAVE_GRAPH: self._graph_frame().to_json(orient="table", index=False),
        }
        zip_path = out_dir + ".zip"
        with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED) as z:
            for name, text in files.items():
                with open(os.path.join(out_dir, name), "w", encoding="utf-8") as f:
                    f.write(text)
                z.writestr(os.path.basename(out_dir) + "/" + name, text)
        return zip_path

    def __repr__(self):
        return "CPGraph(rank=%r, annotation=%r, instance_id=%r, nodes=%d)" % (
            self.rank, self.annotation, self.instance_id, len(self.critical_path_nodes))


_SAVE_META, _SAVE_PATH, _SAVE_GRAPH = "cp_meta.json", "cp_path.json", "cp_graph.json"


def restore_cpgraph(zip_filename, t_full=None, rank=0):
    """CP-7: the CPGraph that save() wrote into ZIP_FILENAME, for RANK; T_FULL (a Trace or
    a TraceAnalysis of the same traces) lets critical_path() recompute it."""
    import io

    import pandas as pd

    with zipfile.ZipFile(os.path.expanduser(zip_filename)) as z:
        by_name = {os.path.basename(n): n for n in z.namelist()}
        missing = [n for n in (_SAVE_META, _SAVE_PATH, _SAVE_GRAPH) if n not in by_name]
        if missing:
            raise ValueError("%s: not a saved critical path graph (no %s)" % (zip_filename, ", ".join(missing)))
        meta = json.loads(z.read(by_name[_SAVE_META]).decode("utf-8"))
        path = pd.read_json(io.StringIO(z.read(by_name[_SAVE_PATH]).decode("utf-8")), orient="table")
        graph = pd.read_json(io.StringIO(z.read(by_name[_SAVE_GRAPH]).decode("utf-8")), orient="table")
    if int(rank) != meta["rank"]:
        raise ValueError("%s holds the critical path of rank %d, not %d" % (zip_filename, meta["rank"], rank))
    inst = meta["instance_id"]
    g = CPGraph(meta["rank"], meta["annotation"], tuple(inst) if isinstance(inst, list) else inst,
                meta["add_zero_weight_launch_edges"], path, meta["success"])
    g._data_load = list(meta.get("data_load_events") or [])
    g._graph = graph
    g._src = getattr(t_full, "_src", None)
    return g


def _warn_data_load_nodes(src, rank, patterns):
    for p in patterns:
        if src.rows(
            "SELECT 1 FROM event e JOIN string s ON s.string_id = e.name_id JOIN category c"
            " ON c.category_id = e.category_id WHERE e.rank = ? AND instr(s.value, ?) > 0"
            " AND c.name NOT IN ('cpu_op', 'cuda_runtime', 'cuda_driver') AND e.stream IS NULL LIMIT 1",
            (rank, p),
        ):
            warnings.warn(
                "data_load_events: events named like %r have no graph nodes here (HTA adds them)" % p, stacklevel=4
            )


# ---------------------------------------------------------------- the overlay (CP-5)


def overlay_critical_path(src, rank, graph, output_dir, only_show_critical_events=True, show_all_edges=False):
    if only_show_critical_events:
        show_all_edges = False
    path = os.path.expanduser(output_dir)
    if not os.path.exists(path):
        os.makedirs(path)
    elif not os.path.isdir(path):
        warnings.warn("%s is not a directory" % output_dir, stacklevel=3)
        return ""
    trace_file = src.trace_files()[rank]
    out = os.path.join(path, "overlaid_critical_path_" + os.path.basename(trace_file))
    inst = _instance_sql(graph.instance_id)
    if graph.success and not show_all_edges:
        with src.io_connection() as io:
            io.execute(
                "SELECT hta_write_critical_path_overlay(?, ?, ?, ?, ?)",
                (rank, graph.annotation, None if inst is False else inst, out, graph.add_zero_weight_launch_edges),
            ).fetchone()
        if only_show_critical_events:
            _rewrite_trace(out, out, _keep_critical)
        return out
    edges = _graph_edges(src, rank, graph, inst) if (graph.success and show_all_edges) else []

    def edit(trace):
        _mark_and_flow(trace, graph, edges)
        if only_show_critical_events:
            _keep_critical(trace)

    return _rewrite_trace(trace_file, out, edit)


def _keep_critical(trace):
    trace["traceEvents"] = [
        ev
        for ev in trace.get("traceEvents", [])
        if ev.get("ph") != "X"
        or ev.get("cat", "") in ("user_annotation", "python_function")
        or (isinstance(ev.get("args"), dict) and ev["args"].get("critical", 0) == 1)
    ]


def _graph_edges(src, rank, graph, inst):
    show_zero = _flag("CRITICAL_PATH_SHOW_ZERO_WEIGHT_LAUNCH_EDGE")
    rows = src.rows(
        "SELECT src_event_seq, src_is_start, dst_event_seq, dst_is_start, edge_type, weight_us, on_path"
        " FROM hta_critical_path_graph(?, ?, ?, ?) WHERE rank = ? ORDER BY edge_pos",
        (graph.annotation, inst, graph.add_zero_weight_launch_edges, src.include_last, rank),
    )
    return [
        r for r in rows if show_zero or not (r[4] == "critical_path_kernel_launch_delay" and r[5] == 0)
    ]


def _mark_and_flow(trace, graph, edges):
    """Marks the critical events and appends a pair of flow events per edge of EDGES, as
    HTA draws them (ts of the start node, or the end minus up to 1 µs on a GPU row)."""
    events = trace.setdefault("traceEvents", [])
    for seq in graph.critical_path_events_set:
        if 0 <= seq < len(events) and isinstance(events[seq], dict):
            events[seq].setdefault("args", {})["critical"] = 1

    def point(seq, is_start):
        ev = events[seq]
        ts, dur = ev.get("ts", 0), ev.get("dur", 0) or 0
        if is_start:
            return ev, int(ts)
        end = ts + dur
        if (ev.get("args") or {}).get("device", -1) >= 0:
            end -= min(1, dur)
        return ev, int(end)

    flows = []
    for fid, (s_seq, s_start, d_seq, d_start, etype, weight, on_path) in enumerate(edges):
        for seq, start, ph in ((s_seq, s_start, "s"), (d_seq, d_start, "f")):
            ev, ts = point(seq, start)
            f = {"ph": ph, "id": fid, "pid": ev.get("pid"), "tid": ev.get("tid"), "ts": ts,
                 "cat": "critical_path", "name": "critical_path",
                 "args": {"weight": int(weight), "critical": bool(on_path), "type": etype}}
            if ph == "f":
                f["bp"] = "e"
            flows.append(f)
    events.extend(flows)
