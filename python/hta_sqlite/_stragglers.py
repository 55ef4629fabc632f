"""get_potential_stragglers of hta_sqlite.trace_analysis.

Requirements (tests cite them as ST-n):
  ST-1  num_candidates below 1 counts as 1; profiler_steps None means every step (then
        the SQL function hta_potential_stragglers answers); otherwise only the given steps
        that the job has count, and none of them is ValueError, as in HTA.
  ST-2  For a subset of steps the rules of hta_potential_stragglers (R4 of
        ext/hta/annotations.c: mean iteration time over the kept rows of those steps, the
        ncclKernel / ncclDevKernel GPU rows on streams > 0 lasting >= 1% of it, the last
        one per rank, stream, step and name, the (stream, name) with the largest mean
        across-rank spread, per step the num_candidates latest ranks) are applied to
        those steps only, in pandas over SQL rows.
  ST-3  The result is the list of ranks, most straggles first (ties: lower rank).
  ST-4  A custom straggler_identification_impl is called as HTA calls it, with a frame of
        the selected steps' rows (rank, iteration, stream, name as text, ts, dur in µs),
        None for HTA's symbol table, num_candidates and visualize; it returns a Series
        of counts indexed by rank.
  ST-5  visualize=True (without a custom implementation) computes the answer with ST-2 in
        pandas and draws HTA's three figures: the timeline of the long communication
        kernels, the timeline of the candidate kernels (the chosen stream and name), and
        "Potential Stragglers", each rank's normalized start time per step coloured by
        whether it straggled there (a column per step when there are several).
"""

from . import _plots
from ._base import Source


def _pd():
    import pandas as pd

    return pd


def potential_stragglers(src, profiler_steps, num_candidates, visualize, impl, available):
    n = max(int(num_candidates), 1)
    if profiler_steps is None:
        steps = [s for s in available]
    else:
        steps = [i for i in profiler_steps if i in available]
    if not steps:
        raise ValueError(
            "invalid value for argument: profiler_steps=%s; available profiler steps=%s" % (profiler_steps, available)
        )
    if impl is None and not visualize and (profiler_steps is None or sorted(set(steps)) == sorted(available)):
        return [r[0] for r in src.rows("SELECT rank FROM hta_potential_stragglers(?, ?)", (n, src.include_last))]
    rows = _selected_rows(src, steps)
    if impl is not None:
        counts = impl(rows, None, n, visualize)
    else:
        counts = _late_start_counts(rows, n, visualize)
    if counts is None or len(counts) == 0:
        return []
    pd = _pd()
    c = pd.DataFrame({"rank": list(counts.index), "count": list(counts.values)})
    c = c.sort_values(["count", "rank"], ascending=[False, True], kind="mergesort")
    return [int(r) for r in c["rank"][:n]]


def _selected_rows(src, steps):
    """The kept rows of every rank whose iteration is one of STEPS (ST-4's frame)."""
    pd = _pd()
    parts = []
    marks = ",".join("?" * len(steps))
    for tid in [r[0] for r in src.rows("SELECT trace_id FROM trace WHERE min_ts IS NOT NULL ORDER BY rank, trace_id")]:
        p = src.trace_params(tid)
        sql = (
            "SELECT e.event_id, e.rank, e.iteration, coalesce(e.stream, -1) AS stream, s.value AS name,"
            " e.ts / 1000.0 AS ts, e.dur / 1000.0 AS dur, e.ts AS ts_ns FROM event e"
            " JOIN category c ON c.category_id = e.category_id LEFT JOIN string s ON s.string_id = e.name_id"
            " WHERE e.dur IS NOT NULL AND c.name <> 'Trace' AND e.iteration IN (%s) AND %s ORDER BY e.event_id"
        ) % (marks, Source.kept_condition())
        q = sql.replace(":lo", str(p["lo"])).replace(":hi", str(p["hi"])).replace(":cut", str(p["cut"]))
        parts.append(src.frame(q, tuple(steps)))
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def _late_start_counts(df, n, visualize=False):
    """ST-2 over the rows of the selected steps: straggle counts by rank (ST-5: and HTA's
    figures when VISUALIZE)."""
    pd = _pd()
    if df.empty:
        return pd.Series(dtype=int)
    iterations = df["iteration"].unique()
    t_min = df["ts"].min()
    mean_iter = ((df["ts"] + df["dur"]).max() - t_min) / float(len(iterations))
    if not mean_iter > 0:
        return pd.Series(dtype=int)
    name = df["name"].fillna("")
    comm = df[
        (df["stream"] > 0)
        & (df["iteration"] > 0)
        & (df["dur"] >= 0.01 * mean_iter)
        & (name.str.startswith("ncclKernel") | name.str.startswith("ncclDevKernel"))
    ]
    ranks = sorted(df["rank"].unique())
    steps = sorted(i for i in iterations if i != -1)
    if visualize:
        _plots.timeline(comm, "Timeline of Communication Kernels Longer Than 1.00% of Iteration Time\n", ranks,
                        min_us=2000)
    if comm.empty:
        return pd.Series(dtype=int)
    last = comm.sort_values("event_id", kind="mergesort").groupby(
        ["rank", "stream", "iteration", "name"], as_index=False
    ).last()
    last["duration"] = last["dur"] / mean_iter
    spread = last.groupby(["stream", "iteration", "name"])["duration"].std()
    mean_spread = spread.groupby(["stream", "name"]).mean().dropna()
    if mean_spread.empty:
        return pd.Series(dtype=int)
    best = mean_spread.max()
    stream, kname = [k for k, v in mean_spread.items() if v == best][0]
    cand = last[(last["stream"] == stream) & (last["name"] == kname)]
    if visualize:
        _plots.timeline(cand, "Timeline of Candidate Kernels (Iterations=%s)" % [int(i) for i in steps], ranks)
    counts = {}
    late = []
    for it, g in cand.groupby("iteration"):
        delta = g["ts_ns"] - g["ts_ns"].min()
        ordered = sorted(delta, reverse=True)
        thr = ordered[min(n, len(ordered)) - 1]
        for rank, d in zip(g["rank"], delta):
            late.append((int(rank), int(it), (g.loc[g["rank"] == rank, "ts"].iloc[0] - t_min) / mean_iter,
                         "Yes" if d >= thr else "No"))
            if d >= thr:
                counts[int(rank)] = counts.get(int(rank), 0) + 1
    if visualize:
        m = pd.DataFrame(late, columns=["rank", "iteration", "normalized_start_time", "is_straggler"])
        several = m["iteration"].nunique() > 1
        _plots.faceted_bars(m, "rank", "normalized_start_time", "iteration" if several else None, "is_straggler",
                            "Potential Stragglers", 300 * m["iteration"].nunique(), {"Yes": "red", "No": "blue"})
    return pd.Series(counts, dtype=int)
