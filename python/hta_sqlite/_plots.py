"""The charts of visualize=True: the figures HTA draws, with plotly's graph_objects.

Requirements (tests cite them as PLOT-n):
  PLOT-1  plotly is optional: without it a chart is skipped with one warning per process,
          never an error; the analysis still returns its result.
  PLOT-2  Every chart is built by one call of plotly.graph_objects.Figure looked up when
          the chart is drawn (so a patched Figure, as HTA's own tests patch it, is the one
          used), then shown with fig.show(renderer=...) when show is true.
  PLOT-3  draw() returns the figure it showed (None when plotly is missing).
  PLOT-4  Each helper draws one figure of HTA's (hta/analyzers/*), with HTA's title, axis
          titles and trace names (px.bar with one y: a trace named ""; with color=C: one
          trace per value of C); the layout within a figure (subplot grids, sizes) may differ.
"""

import importlib
import re
import warnings

_warned = []


def graph_objects():
    """plotly.graph_objects, or None (PLOT-1)."""
    try:
        return importlib.import_module("plotly.graph_objects")
    except ImportError:
        if not _warned:
            _warned.append(1)
            warnings.warn("plotly is not importable: charts are skipped (pip install plotly)", stacklevel=3)
        return None


def draw(make_traces, layout=None, show=True, renderer=None, export_image_path=None):
    """Builds go.Figure(data=make_traces(go)) with LAYOUT and shows it (PLOT-2)."""
    go = graph_objects()
    if go is None:
        return None
    fig = go.Figure(data=make_traces(go))
    if layout:
        fig.update_layout(**layout)
    if show:
        if renderer:
            fig.show(renderer=renderer)
        else:
            fig.show()
    if export_image_path:
        fig.write_image(export_image_path)
    return fig


def bars(series, title, xaxis_title=None, yaxis_title=None, barmode="group", renderer=None, layout=None):
    """One go.Bar per (name, x, y) of SERIES, grouped or stacked."""
    lay = {"title_text": title, "barmode": barmode}
    if xaxis_title:
        lay["xaxis_title"] = xaxis_title
    if yaxis_title:
        lay["yaxis_title"] = yaxis_title
    lay.update(layout or {})
    return draw(lambda go: [go.Bar(name=n, x=list(x), y=list(y)) for n, x, y in series], lay, renderer=renderer)


def pie(labels, values, title, renderer=None):
    return draw(lambda go: [go.Pie(labels=list(labels), values=list(values))],
                {"title_text": title, "height": 500, "margin": {"l": 50, "r": 50, "b": 50, "t": 50},
                 "legend": {"yanchor": "bottom", "y": -0.4, "xanchor": "left", "x": 0}}, renderer=renderer)


def histogram(values, title, xaxis_title, nbins=None, renderer=None):
    def traces(go):
        kw = {"x": list(values), "name": ""}
        if nbins:
            kw["nbinsx"] = nbins
        return [go.Histogram(**kw)]

    return draw(traces, {"title_text": title, "xaxis_title": xaxis_title, "yaxis_title": "count"}, renderer=renderer)


def table(header, columns, title, renderer=None):
    return draw(
        lambda go: [go.Table(header={"values": header}, cells={"values": [list(c) for c in columns]})],
        {"title_text": title},
        renderer=renderer,
    )


def rank_pies(df, label_col, value_col, title, renderer=None):
    """A pie per rank of DF (LABEL_COL's shares of VALUE_COL), two to a row, each titled
    "Rank R" (HTA's kernel and annotation distributions)."""
    ranks = list(dict.fromkeys(df["rank"]))
    cols = 2
    rows = max((len(ranks) + 1) // 2, 1)

    def traces(go):
        out = []
        for i, rank in enumerate(ranks):
            g = df[df["rank"] == rank]
            r, c = divmod(i, cols)
            out.append(go.Pie(labels=list(g[label_col]), values=list(g[value_col]), title="Rank %s" % rank,
                              domain={"x": [c / cols, (c + 1) / cols], "y": [1 - (r + 1) / rows, 1 - r / rows]}))
        return out

    return draw(traces, {"title_text": title, "showlegend": True, "height": 400 * (1 + len(ranks) / 2),
                         "margin": {"l": 50, "r": 50, "b": 50, "t": 50},
                         "legend": {"yanchor": "bottom", "y": -0.1, "xanchor": "left", "x": 0}}, renderer=renderer)


def mean_bar(df, title, renderer=None):
    """The mean duration of one name per rank with min-max error bars (HTA's px.bar of
    x=rank, y="mean (us)": one trace named "")."""

    def traces(go):
        return [go.Bar(name="", x=list(df["rank"]), y=list(df["mean (us)"]),
                       error_y={"type": "data", "symmetric": False, "array": list(df["max (us)"] - df["mean (us)"]),
                                "arrayminus": list(df["mean (us)"] - df["min (us)"])})]

    return draw(traces, {"title_text": title, "xaxis_title": "Rank", "yaxis_title": "Mean Duration (us)",
                         "xaxis": {"tickmode": "linear", "tick0": 0, "dtick": 1}}, renderer=renderer)


def short_kernel_label(name):
    """HTA's label of a kernel on its timelines: argument lists, template arguments, a
    leading "void", blanks and "autograd::engine::evaluate_function" removed, cut to 45
    characters ("..." ending)."""
    for pattern in (r"\(.+\)", r"<[^<]+>?", r"^void\s+", r"\s+", r"autograd::engine::evaluate_function"):
        name = re.sub(pattern, "", name)
    return name if len(name) < 45 else name[:42] + "..."


def timeline(events, title, ranks, min_us=1000):
    """HTA's GPU-kernel timeline: a row "rank R stream S" per (rank, stream) of EVENTS
    (rank, stream, name, ts, dur in µs), a bar per kernel at least MIN_US long for
    visibility, one trace per kernel label (short_kernel_label)."""
    import pandas as pd

    ev = events.sort_values(["rank", "stream", "ts"], kind="mergesort")
    start = pd.to_datetime(ev["ts"], unit="us")
    end = pd.to_datetime(ev["ts"] + ev["dur"].clip(lower=min_us), unit="us")
    ev = ev.assign(label=ev["name"].map(short_kernel_label), start=start,
                   ms=(end - start).dt.total_seconds() * 1000.0,
                   task="rank " + ev["rank"].astype(str) + " stream " + ev["stream"].astype(str))
    tasks = sorted(ev["task"].unique())

    def traces(go):
        return [go.Bar(name=label, base=list(g["start"]), x=list(g["ms"]), y=list(g["task"]), orientation="h")
                for label, g in ev.groupby("label", sort=False)]

    return draw(traces, {"title_text": title, "width": 1600, "height": 200 + 120 * len(ranks), "barmode": "overlay",
                         "xaxis": {"type": "date"}, "xaxis_title": "calibrated_start_global",
                         "yaxis": {"categoryorder": "array", "categoryarray": tasks}, "yaxis_title": "task",
                         "legend_title": "label"})


def faceted_bars(df, x, y, facet, color, title, width, colors=None):
    """HTA's px.bar(x, y, facet_col=FACET, color=COLOR): a column of bars per value of FACET
    (none: one), a trace per (COLOR value, facet) named by the COLOR value, coloured by
    COLORS ({value: colour}) when given."""
    facets = sorted(df[facet].unique()) if facet else [None]
    n = len(facets)

    def traces(go):
        out, seen = [], set()
        for c in dict.fromkeys(df[color]):
            for i, f in enumerate(facets):
                g = df[(df[color] == c) & ((df[facet] == f) if facet else True)]
                if g.empty:
                    continue
                out.append(go.Bar(name=str(c), legendgroup=str(c), showlegend=c not in seen, x=list(g[x]),
                                  y=list(g[y]), xaxis="x" if i == 0 else "x%d" % (i + 1),
                                  marker={"color": (colors or {}).get(c)}))
                seen.add(c)
        return out

    lay = {"title_text": title, "width": width, "yaxis_title": y, "legend_title": color}
    for i, f in enumerate(facets):
        key = "xaxis" if i == 0 else "xaxis%d" % (i + 1)
        lay[key] = {"domain": [i / n, (i + 1) / n - (0.02 if n > 1 else 0)], "title": {"text": x},
                    "anchor": "y"}
    if facet:
        lay["annotations"] = [{"text": "%s=%s" % (facet, f), "x": (i + 0.5) / n, "y": 1.02, "xref": "paper",
                               "yref": "paper", "showarrow": False} for i, f in enumerate(facets)]
    return draw(traces, lay)


def icicle(df, title):
    """The Module view's boxes: one per path of DF (a list of names), nested under its
    parent path, sized by host_total_us (ours: HTA draws no module view)."""
    ids = ["/".join(p) for p in df["path"]]
    parents = ["/".join(p[:-1]) for p in df["path"]]

    def traces(go):
        return [go.Icicle(ids=ids, labels=list(df["name"]), parents=parents, values=list(df["host_total_us"]),
                          branchvalues="remainder", name="", tiling={"orientation": "v"},
                          customdata=list(zip(df["device_total_us"], df["occurrences"])),
                          hovertemplate="%{label}<br>host %{value:.1f} us<br>device %{customdata[0]:.1f} us"
                                        "<br>calls %{customdata[1]}<extra></extra>")]

    return draw(traces, {"title_text": title})
