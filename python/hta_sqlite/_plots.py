"""The charts of visualize=True: the kinds HTA draws, with plotly's graph_objects.

Requirements (tests cite them as PLOT-n):
  PLOT-1  plotly is optional: without it a chart is skipped with one warning per process,
          never an error; the analysis still returns its result.
  PLOT-2  Every chart is built by one call of plotly.graph_objects.Figure looked up when
          the chart is drawn (so a patched Figure, as HTA's own tests patch it, is the one
          used), then shown with fig.show(renderer=...) when show is true.
  PLOT-3  draw() returns the figure it showed (None when plotly is missing).
"""

import importlib
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
    return draw(lambda go: [go.Pie(labels=list(labels), values=list(values))], {"title_text": title}, renderer=renderer)


def histogram(values, title, xaxis_title, nbins=None, renderer=None):
    def traces(go):
        kw = {"x": list(values)}
        if nbins:
            kw["nbinsx"] = nbins
        return [go.Histogram(**kw)]

    return draw(traces, {"title_text": title, "xaxis_title": xaxis_title}, renderer=renderer)


def table(header, columns, title, renderer=None):
    return draw(
        lambda go: [go.Table(header={"values": header}, cells={"values": [list(c) for c in columns]})],
        {"title_text": title},
        renderer=renderer,
    )
