"""The events of one rank as HTA's loaded trace table holds them: one row per event HTA
keeps, its columns, its defaults for what an event does not carry.

    from hta_sqlite._trace_frame import event_frame
    df = event_frame(src, rank)                       # every kept event of the rank
    df = event_frame(src, rank, "c.name = 'kernel'")  # a selection (SQL on event e, category c)

Used by hta_sqlite.common.trace.Trace.get_trace and by the CUPTI counter frames.

Requirements (tests cite them as TF-n):
  TF-1  Rows: the events HTA's loader keeps (a dur, a category other than 'Trace', the
        last-step cut of _base.Source.kept_condition), in traceEvents order.
  TF-2  Columns, in this order: index (traceEvents position), cat, name (symbol ids of
        the trace's SymbolTable, or the text with decode=True), pid, tid, ts (µs from the
        job's earliest kept event), dur (µs), stream, correlation, then the args HTA's
        default parser reads (ARGS below: column, args key, kind, HTA's default when the
        event lacks it), then index_correlation, iteration, end.
  TF-3  stream: the GPU event's stream, else args.stream of a host event, else -1;
        correlation likewise; external_id: the promoted External id, else -1.
  TF-4  index_correlation: the index of the correlated partner (launch <-> GPU event),
        0 when the event has a correlation but no partner in the trace, -1 without one;
        iteration: the ProfilerStep the event belongs to, -1 outside every step;
        end = ts + dur.
  TF-5  Object args (input shapes, split sizes) are the JSON text of the value (HTA: a
        symbol id of its text); a text arg HTA reads is None when absent (HTA's frames
        show NaN there); integer args are int64 with HTA's default.
"""

# HTA's default parser configuration (event_args 1.0.0: ARGS_DEFAULT without the minimum
# pair, which is stream and correlation above): output column, args key, kind, default.
ARGS = [
    ("bytes", "bytes", "int", -1),
    ("memory_bw_gbps", "memory bandwidth (GB/s)", "float", 0.0),
    ("wait_on_stream", "wait_on_stream", "int", -1),
    ("wait_on_cuda_event_record_corr_id", "wait_on_cuda_event_record_corr_id", "int", -1),
    ("input_dims", "Input Dims", "object", -1),
    ("input_type", "Input type", "object", -1),
    ("input_strides", "Input Strides", "object", -1),
    ("external_id", "External id", "int", -1),
    ("python_id", "Python id", "int", -1),
    ("python_parent_id", "Python parent id", "int", -1),
    ("collective_name", "Collective name", "text", None),
    ("in_msg_nelems", "In msg nelems", "int", 0),
    ("out_msg_nelems", "Out msg nelems", "int", 0),
    ("msg_dtype", "dtype", "text", None),
    ("group_size", "Group size", "int", 0),
    ("process_rank", "Rank", "int", -1),
    ("in_split_size", "In split size", "object", "[]"),
    ("out_split_size", "Out split size", "object", "[]"),
]

BASE_COLUMNS = ["index", "cat", "name", "pid", "tid", "ts", "dur", "stream", "correlation"]
TAIL_COLUMNS = ["index_correlation", "iteration", "end"]


def _arg_sql(col, key, kind, default):
    path = "'$.\"%s\"'" % key.replace('"', '\\"')
    if col == "external_id":  # promoted by ingest (K5); a non-integer stays in args
        got = "coalesce(e.external_id, json_extract(e.args, %s))" % path
    else:
        got = "json_extract(e.args, %s)" % path
    if kind == "object":
        # json_extract gives arrays and objects as JSON text, scalars as SQL values
        got = "CASE WHEN json_type(e.args, %s) IN ('array', 'object') THEN %s ELSE CAST(%s AS TEXT) END" % (
            path, got, got)
    if default is None:
        return "%s AS %s" % (got, col)
    return "coalesce(%s, %r) AS %s" % (got, default, col)


def _sql(where):
    args = ",\n ".join(_arg_sql(*a) for a in ARGS)
    return (
        "SELECT e.seq AS 'index', e.category_id AS cat_id, e.name_id AS name_id, e.pid, e.tid,"
        " (e.ts - :base) / 1000.0 AS ts, e.dur / 1000.0 AS dur,"
        " coalesce(e.stream, CAST(json_extract(e.args, '$.stream') AS INTEGER), -1) AS stream,"
        " coalesce(e.correlation, CAST(json_extract(e.args, '$.correlation') AS INTEGER), -1) AS correlation,\n "
        + args
        + ",\n CASE WHEN coalesce(e.correlation, -1) < 0 THEN -1"
        "  ELSE coalesce((SELECT l.seq FROM event l WHERE l.event_id = e.link_id), 0) END AS index_correlation,"
        " coalesce(e.iteration, -1) AS iteration, e.event_id AS event_id"
        " FROM event e JOIN category c ON c.category_id = e.category_id"
        " WHERE e.dur IS NOT NULL AND c.name <> 'Trace' AND " + _kept() + (" AND (%s)" % where if where else "")
        + " ORDER BY e.event_id"
    )


def _kept():
    from ._base import Source

    return Source.kept_condition()


def event_frame(src, rank, where=None, params=None, symbols=None, decode=False):
    """TF-1..TF-5: the frame of RANK's kept events (WHERE: an SQL condition on event e and
    category c, binding PARAMS by name). SYMBOLS maps category_id and name_id to HTA's
    symbol ids ({'cat': {...}, 'name': {...}}: see common.trace.SymbolTable); without it
    (or with DECODE) cat and name are the strings. Keeps an `event_id` column last for
    the callers' joins; drop it before handing the frame out."""
    import pandas as pd

    src.check_ranks([rank])
    parts = []
    for tid in src.traces_of(rank):
        p = src.trace_params(tid)
        p["base"] = src.min_ts()
        p.update(params or {})
        parts.append(src.frame(_sql(where), p))
    df = pd.concat(parts, ignore_index=True) if parts else src.frame(_sql(where) + " LIMIT 0", {
        "lo": 0, "hi": -1, "cut": 0, "base": 0, **(params or {})})
    if symbols is None or decode:
        cats = dict(src.rows("SELECT category_id, name FROM category"))
        names = _names(src, df["name_id"])
        cat = df["cat_id"].map(lambda i: cats.get(i, ""))
        name = df["name_id"].map(lambda i: names.get(i, ""))
    else:
        cat = df["cat_id"].map(lambda i: symbols["cat"].get(i, -1))
        name = df["name_id"].map(lambda i: symbols["name"].get(i, -1))
    df.insert(1, "cat", cat)
    df.insert(2, "name", name)
    df = df.drop(columns=["cat_id", "name_id"])
    df["end"] = df["ts"] + df["dur"]
    for col, _, kind, default in ARGS:
        if kind == "int":
            df[col] = pd.to_numeric(df[col], errors="coerce").fillna(default).astype("int64")
        elif kind == "float":
            df[col] = pd.to_numeric(df[col], errors="coerce").fillna(default).astype("float64")
        elif kind == "text" and df[col].isna().all():
            df[col] = df[col].astype("float64")  # none has it: NaN, as HTA's frames
    for col in ("index", "stream", "correlation", "index_correlation", "iteration"):
        df[col] = df[col].astype("int64")
    src.cast(df, rank, {"index": "index", "ts": "ts", "dur": "dur", "pid": "pid", "tid": "tid"})
    if str(df["ts"].dtype).startswith("int") and str(df["dur"].dtype).startswith("int"):
        df["end"] = df["end"].astype(df["ts"].dtype)
    return df[BASE_COLUMNS + [a[0] for a in ARGS] + TAIL_COLUMNS + ["event_id"]]


def _names(src, ids):
    ids = sorted({int(i) for i in ids if i is not None})
    out = {}
    for k in range(0, len(ids), 500):
        chunk = ids[k:k + 500]
        out.update(src.rows("SELECT string_id, value FROM string WHERE string_id IN (%s)" % ",".join("?" * len(chunk)),
                            chunk))
    return out
