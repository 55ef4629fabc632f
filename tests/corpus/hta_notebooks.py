#!/usr/bin/env python3
"""HTA's example notebooks, run on hta_sqlite with only their imports rewritten.

The code cells of the notebooks of HTA's repository ($HTA_SRC/examples) that use its
TraceAnalysis / TraceDiff API are run one after the other, in a fresh process per notebook,
as a user who changed `hta` into `hta_sqlite` would run them:

  * imports: `from hta.X import Y` -> `from hta_sqlite.X import Y`, `import hta` ->
    `import hta_sqlite as hta`; nothing else of the code changes, except
  * the data: each notebook reads HTA's test data under its checkout; here a scratch HOME
    holds a copy of the corpus jobs at those places (vision_transformer, whose files HTA's
    snapshot lacks, is hta_trace_filter), and the placeholders a reader must edit
    (`"<PATH TO HTA>"`, `<update base path here>`, ...) and the output folders under /tmp
    are replaced by scratch paths (SUBST below: each must be found, so a changed
    notebook fails here instead of running something else);
  * IPython syntax: `X?` shows help(X), `%%time` / `%magic` lines are dropped, `x = !cmd`
    runs the shell command (HOME = the scratch home) and gives its lines, the last
    expression of a cell is shown (repr), as a notebook does;
  * figures: plotly's Figure.show records the figure (count, title) instead of drawing it.

A cell passes when it runs without an exception. After the run, values the notebook
computed are compared with HTA's expected outputs of the corpus job (CHECKS; the same
cell-by-cell rules as python_api.py), with HTA_DISABLE_NS_ROUNDING=1 as those outputs were
made (HTA's own switch; the notebooks' code is the same). The figures each cell draws are
checked against those HTA's code draws there (FIGURES: count, titles, trace names).

Usage: hta_notebooks.py [NOTEBOOK ...]   (env: HTA_SRC, HTA_SHARED; the package hta_sqlite
on PYTHONPATH). Prints one line per notebook (cells run / cells, figures) and the
failures; exit 0 all cells of all notebooks ran and the checks hold, 1 otherwise, 77 skip
(no HTA_SRC, no corpus).
"""
import ast
import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))

# HTA's test-data folders the notebooks read -> the corpus jobs copied there.
DATA = {
    "HolisticTraceAnalysis/tests/data/vision_transformer": "hta_trace_filter",
    "HolisticTraceAnalysis/tests/data/ns_resolution_trace": "hta_ns_resolution_trace",
    "HolisticTraceAnalysis/tests/data/critical_path/simple_add": "hta_critical_path_simple_add",
    "HolisticTraceAnalysis/tests/data/trace_diff/control": "hta_trace_diff_control",
    "HolisticTraceAnalysis/tests/data/trace_diff/test": "hta_trace_diff_test",
    "Work/hta/debug_cupti_yang": "hta_cupti_profiler",
}

# Per notebook: (text in a code cell, replacement): the placeholders and /tmp outputs.
# {home} and {tmp} are the scratch home and a scratch output folder.
SUBST = {
    "trace_analysis_demo.ipynb": [
        ('hta_dir = "<PATH TO HTA>"', 'hta_dir = "{home}/HolisticTraceAnalysis"'),
        ('output_dir="/tmp/"', 'output_dir="{tmp}/"'),
    ],
    "kernel_breakdown_demo.ipynb": [],
    "identify_stragglers.ipynb": [
        ('path_to_hta = "/path/to/HolisticTraceAnalysis"', 'path_to_hta = "{home}/HolisticTraceAnalysis"'),
        # the notebook's own NameError (trace_path is never set) and a step of this data
        ("TraceAnalysis(trace_dir = trace_path)", "TraceAnalysis(trace_dir = trace_dir)"),
        ("profiler_steps=[18]", "profiler_steps=[551]"),
    ],
    "critical_path_analysis.ipynb": [
        ('base_dir = <update base path here> #"~/Work/hta/HolisticTraceAnalysis2"',
         'base_dir = "{home}/HolisticTraceAnalysis"'),
        ('out_dir="/tmp/my_saved_cp_graph"', 'out_dir="{tmp}/my_saved_cp_graph"'),
    ],
    "cupti_flops_analysis.ipynb": [],
    "trace_diff_demo.ipynb": [],
}

# HTA's own switches set for a notebook, as its reference outputs were made.
ENV = {"critical_path_analysis.ipynb": {"CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE": "1"}}

# Notebooks of HTA's examples not run here, and why.
NOT_RUN = {
    "execution_trace_demo.ipynb": "its subject is hta.common.execution_trace (not provided)",
    "customize_trace_parser.ipynb": "HTA's parser configuration only",
    "plot_timeline.ipynb": "HTA's Trace internals and hta.analyzers.timeline only",
    "timeline_demo.ipynb": "HTA's Trace internals and hta.common.timeline only",
    "trace_filter_demo.ipynb": "HTA's Trace internals and hta.common.trace_filter only",
}


# ---------------------------------------------------------------- one notebook (child process)

def rewrite_imports(src):
    src = re.sub(r"(?m)^(\s*)from hta(\.[\w.]+)? import", lambda m: "%sfrom hta_sqlite%s import" % (
        m.group(1), m.group(2) or ""), src)
    return re.sub(r"(?m)^(\s*)import hta\s*$", r"\1import hta_sqlite as hta", src)


def ipython_to_python(src):
    """The IPython syntax of the notebooks, in plain Python (see the module's docstring)."""
    out = []
    for line in src.split("\n"):
        s = line.strip()
        m = re.fullmatch(r"([\w.]+)\?{1,2}", s)
        if m:
            out.append(line[: len(line) - len(line.lstrip())] + "_nb_help(%s)" % m.group(1))
        elif s.startswith("%"):
            continue
        else:
            m = re.fullmatch(r"(\s*)(\w+)\s*=\s*!(.*)", line)
            out.append("%s%s = _nb_sh(%r)" % (m.group(1), m.group(2), m.group(3)) if m else line)
    return "\n".join(out)


def run_cells(cells, ns):
    """Runs each cell; returns [(ok, error text, figures made)]."""
    results = []
    for src in cells:
        before = len(ns["_nb_figures"])
        try:
            tree = ast.parse(src)
            last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
            exec(compile(tree, "<cell>", "exec"), ns)
            if last is not None:
                repr(eval(compile(ast.Expression(last.value), "<cell>", "eval"), ns))
            results.append((True, "", ns["_nb_figures"][before:]))
        except BaseException:  # noqa: B902 - a cell's failure of any kind is reported
            results.append((False, traceback.format_exc(limit=4), ns["_nb_figures"][before:]))
    return results


def child(notebook, home, tmp):
    import pydoc
    import warnings

    import plotly.basedatatypes

    warnings.simplefilter("ignore")
    figures = []

    def show(fig, *a, **kw):
        title = fig.layout.title.text if fig.layout.title else None
        figures.append({"title": title, "traces": [t.name for t in fig.data]})

    plotly.basedatatypes.BaseFigure.show = show

    def nb_help(obj):
        pydoc.render_doc(obj, renderer=pydoc.plaintext)

    def nb_sh(cmd):
        r = subprocess.run(cmd, shell=True, stdout=subprocess.PIPE, text=True)
        return r.stdout.splitlines()

    with open(os.path.join(os.environ["HTA_SRC"], "examples", notebook)) as f:
        nb = json.load(f)
    cells = []
    text = {"home": home, "tmp": tmp}
    used = set()
    for c in nb["cells"]:
        if c["cell_type"] != "code":
            continue
        src = "".join(c["source"])
        for i, (old, new) in enumerate(SUBST[notebook]):
            if old in src:
                used.add(i)
                src = src.replace(old, new.format(**text))
        cells.append(ipython_to_python(rewrite_imports(src)))
    unused = [SUBST[notebook][i][0] for i in range(len(SUBST[notebook])) if i not in used]
    ns = {"__name__": "__main__", "_nb_help": nb_help, "_nb_sh": nb_sh, "_nb_figures": figures}
    with contextlib.redirect_stdout(io.StringIO()):
        results = run_cells(cells, ns)
    checks = CHECKS.get(notebook, lambda ns, rep: None)
    rep = {"checked": 0, "cells_compared": 0, "bad": check_figures(notebook, ns, results)}
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            checks(ns, rep)
    except Exception:  # noqa: BLE001 - a check that cannot run is a failure
        rep["bad"].append("checks raised: " + traceback.format_exc(limit=3))
    return {"cells": [{"ok": ok, "error": err, "figures": figs} for ok, err, figs in results],
            "unused_substitutions": unused, "checks": rep}


# ---------------------------------------------------------------- value checks

def _compare(rep, where, got_rows, exp_name, job, keys, cols, rounded=None):
    sys.path.insert(0, HERE)
    import python_api as pa

    r = pa.Report()
    exp = pa.read_csv(os.path.join(os.environ["HTA_SHARED"], "expected", job, exp_name))
    pa.compare(r, job + "/" + where, got_rows, exp, keys, cols, rounded)
    rep["checked"] += 1
    rep["cells_compared"] += r.cells
    rep["bad"] += r.lines


def _records(df, index=False):
    sys.path.insert(0, HERE)
    import python_api as pa

    return pa.records(df, index)


def check_trace_analysis_demo(ns, rep):
    sys.path.insert(0, HERE)
    import python_api as pa

    job = "hta_trace_filter"
    t = ns["time_spent_df"]
    _compare(rep, "time_spent_df", _records(t), "temporal_breakdown.csv", job, ["rank"], list(t.columns[1:]),
             pa.ROUNDED["temporal_breakdown"])
    _compare(rep, "kernel_type_metrics_df", _records(ns["kernel_type_metrics_df"]), "kernel_type_breakdown.csv", job,
             ["kernel_type"], ["sum", "percentage"], pa.ROUNDED["kernel_type_breakdown"])
    _compare(rep, "overlap_df", _records(ns["overlap_df"]), "comm_comp_overlap.csv", job, ["rank"],
             ["comp_comm_overlap_pctg"], pa.ROUNDED["comm_comp_overlap"])
    exp = pa.read_csv(os.path.join(os.environ["HTA_SHARED"], "expected", job, "idle_time_breakdown.csv"))
    got = _records(ns["idle_time_df"])
    r = pa.Report()
    pa.compare(r, job + "/idle_time_df", got, [e for e in exp if e["rank"] == "1"], ["rank", "stream", "idle_category"],
               ["idle_time", "idle_time_ratio"], pa.ROUNDED["idle_time_breakdown"])
    rep["checked"] += 1
    rep["cells_compared"] += r.cells
    rep["bad"] += r.lines
    flat = ns["analyzer"].get_queue_length_summary(ranks=[1])
    flat.columns = ["%s_%s" % c for c in flat.columns]
    exp = pa.read_csv(os.path.join(os.environ["HTA_SHARED"], "expected", job, "queue_length_summary.csv"))
    r = pa.Report()
    pa.compare(r, job + "/get_queue_length_summary(ranks=[1])", _records(flat, index=True),
               [e for e in exp if e["rank"] == "1"], ["rank", "stream"], list(flat.columns))
    rep["checked"] += 1
    rep["cells_compared"] += r.cells
    rep["bad"] += r.lines


def check_critical_path(ns, rep):
    exp = [e for e in _read("hta_critical_path_simple_add", "critical_path_summary_rank0.csv")
           if e["annotation"] == ns["annotation"] and e["instance_id"] == str(ns["instance_id"])
           and e["add_zero_weight_launch_edges"] == "1"]
    for name in ("cp_graph", "rest_graph"):
        s = ns[name].summary()
        sys.path.insert(0, HERE)
        import python_api as pa

        r = pa.Report()
        pa.compare(r, "hta_critical_path_simple_add/" + name + ".summary()", [{"bound_by": b, "percentage": p} for b, p in s.items()],
                   exp, ["bound_by"], ["percentage"])
        rep["checked"] += 1
        rep["cells_compared"] += r.cells
        rep["bad"] += r.lines
    if ns["rest_graph"].nodes != ns["cp_graph"].nodes or len(ns["cp_graph"].nodes) == 0:
        rep["bad"].append("restored graph: nodes differ (or none)")


def check_cupti(ns, rep):
    """The notebook's flops column = the sum over HTA's counters of counter x factor."""
    exp = _read("hta_cupti_profiler", "cupti_counter_data_rank0.csv")
    table = ns["CUDA_SASS_INSTRUCTION_COUNTER_FLOPS"]
    want = {int(e["index"]): sum(int(e[c]) * f for c, f in table.items()) for e in exp}
    got = dict(zip(ns["gpu_kernels"]["index"].astype(int), ns["gpu_kernels"]["flops"].astype(int)))
    rep["checked"] += 1
    rep["cells_compared"] += len(want)
    if got != want:
        rep["bad"].append("flops: %d of %d kernels differ" % (sum(got.get(k) != v for k, v in want.items()), len(want)))


def check_stragglers(ns, rep):
    got = ns["analyzer"].get_potential_stragglers()
    want = [int(e["rank"]) for e in _read("hta_trace_filter", "potential_stragglers.csv")]
    rep["checked"] += 1
    rep["cells_compared"] += len(want)
    if got != want:
        rep["bad"].append("get_potential_stragglers(): %r, expected %r" % (got, want))


def _read(job, name):
    sys.path.insert(0, HERE)
    import python_api as pa

    return pa.read_csv(os.path.join(os.environ["HTA_SHARED"], "expected", job, name))


CHECKS = {
    "trace_analysis_demo.ipynb": check_trace_analysis_demo,
    "critical_path_analysis.ipynb": check_critical_path,
    "cupti_flops_analysis.ipynb": check_cupti,
    "identify_stragglers.ipynb": check_stragglers,
}


# The figures HTA's code draws (hta/analyzers/*: the show() calls) in a notebook's cells:
# {notebook: function(namespace) -> [(cell, [(title, trace names or None)])]}; trace names
# None: not compared (pies and timelines: one trace per rank or kernel label).
def figures_kernel_breakdown(ns):
    """get_gpu_kernel_breakdown: the kernel-type pie; per type (COMPUTATION, COMMUNICATION,
    MEMORY) a pie of its kernels per rank, then a bar chart per kernel name (not
    "others") of its mean duration per rank (one trace, px's unnamed one)."""
    k = ns["kernel_metrics_df"]
    want = [("Kernel Type Percentage Across All Ranks", None)]
    for kt in ("COMPUTATION", "COMMUNICATION", "MEMORY"):
        want.append(('Kernel type "%s" - kernel distribution on each rank' % kt, None))
        for name in sorted(set(k.loc[k["kernel_type"] == kt, "name"]) - {"others"}):
            want.append(('Kernel type "%s" - %s' % (kt, name), [""]))
    return [(2, want)]


def figures_stragglers(ns):
    """get_potential_stragglers(visualize=True): two timelines and the bar chart."""
    def want(colours):
        return [("Timeline of Communication Kernels Longer Than 1.00% of Iteration Time\n", None),
                ("Timeline of Candidate Kernels (Iterations=[551])", None),
                ("Potential Stragglers", colours)]

    # 2 ranks: one candidate (cell 6) colours one rank "Yes" and the other "No"; the
    # default two (cell 9) make both "Yes"
    assert ns["analyzer"].get_ranks() == [0, 1] and ns["analyzer"].get_profiler_steps() == [551]
    return [(6, want(["No", "Yes"])), (9, want(["Yes"]))]


def figures_trace_diff(ns):
    """visualize_counts_diff four times, visualize_duration_diff once: three bar traces."""
    counts = [("Ops Count Comparison", ["Control", "Test", "Difference"])]
    return [(10, counts), (11, counts), (12, counts), (14, counts),
            (16, [("Ops Duration Comparison", ["Control", "Test", "Difference"])])]


FIGURES = {
    "kernel_breakdown_demo.ipynb": figures_kernel_breakdown,
    "identify_stragglers.ipynb": figures_stragglers,
    "trace_diff_demo.ipynb": figures_trace_diff,
}


def check_figures(notebook, ns, results):
    """[message] for each cell whose figures differ from HTA's (count, titles, trace names);
    notebooks without an entry in FIGURES must draw nothing (their cells say visualize=False)."""
    bad = []
    want_by_cell = dict(FIGURES[notebook](ns)) if notebook in FIGURES else {}
    for cell, (_, _, figs) in enumerate(results):
        want = want_by_cell.get(cell, [])
        got = [(f["title"], f["traces"]) for f in figs]
        if [w[0] for w in want] != [g[0] for g in got]:
            bad.append("cell %d figures: HTA draws %r, ours %r" % (cell, [w[0] for w in want], [g[0] for g in got]))
            continue
        for (title, names), (_, traces) in zip(want, got):
            if names is not None and sorted(names) != sorted(set(traces)):
                bad.append("cell %d figure %r: traces %r, HTA's %r" % (cell, title, traces, names))
    return bad


# ---------------------------------------------------------------- driver

def prepare(root, shared):
    home = os.path.join(root, "home")
    for place, job in DATA.items():
        dst = os.path.join(home, place)
        os.makedirs(dst, exist_ok=True)
        src = os.path.join(shared, "corpus", job)
        for n in os.listdir(src):
            if os.path.isfile(os.path.join(src, n)):
                shutil.copy(os.path.join(src, n), dst)  # copies: notebooks write beside the traces
    os.makedirs(os.path.join(home, "HolisticTraceAnalysis", "hta"), exist_ok=True)
    tmp = os.path.join(root, "out")
    os.makedirs(tmp, exist_ok=True)
    return home, tmp


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        res = child(sys.argv[2], sys.argv[3], sys.argv[4])
        sys.stdout.write("\n@@RESULT@@" + json.dumps(res))
        return 0
    src = os.environ.get("HTA_SRC")
    shared = os.environ.get("HTA_SHARED") or os.path.join(HERE, "..", "..", "..", "shared")
    shared = os.path.abspath(shared)
    if not src or not os.path.isdir(os.path.join(src, "examples")):
        print("skip: HTA's notebooks are not here (set HTA_SRC to an HTA checkout with examples/)")
        return 77
    if not os.path.isdir(os.path.join(shared, "corpus")):
        print("skip: no %s/corpus" % shared)
        return 77
    names = sys.argv[1:] or sorted(SUBST)
    fails = 0
    total_cells = total_ok = 0
    for nb in names:
        root = tempfile.mkdtemp(prefix="hta_nb_")
        try:
            home, tmp = prepare(root, shared)
            env = dict(os.environ, HOME=home, HTA_SHARED=shared, HTA_DISABLE_NS_ROUNDING="1",
                       HTA_SQLITE_CACHE=os.path.join(root, "cache"), PYTHONDONTWRITEBYTECODE="1",
                       **ENV.get(nb, {}))
            r = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", nb, home, tmp], cwd=root,
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=1200)
            if "@@RESULT@@" not in r.stdout:
                print("FAIL %s: the notebook's process died (exit %d): %s" % (nb, r.returncode, r.stderr[-2000:]))
                fails += 1
                continue
            res = json.loads(r.stdout.split("@@RESULT@@", 1)[1])
        finally:
            shutil.rmtree(root, ignore_errors=True)
        cells = res["cells"]
        ok = sum(c["ok"] for c in cells)
        figs = sum(len(c["figures"]) for c in cells)
        total_cells += len(cells)
        total_ok += ok
        chk = res["checks"]
        print("%-30s %2d of %2d cells ran, %2d figures, %d checks (%d cells) against HTA's expected outputs" % (
            nb, ok, len(cells), figs, chk["checked"], chk["cells_compared"]))
        for i, c in enumerate(cells):
            if not c["ok"]:
                fails += 1
                print("FAIL %s cell %d:\n%s" % (nb, i, "\n".join("    " + x for x in c["error"].splitlines()[-6:])))
        for old in res["unused_substitutions"]:
            fails += 1
            print("FAIL %s: the text to replace is not in the notebook any more: %r" % (nb, old))
        for line in chk["bad"]:
            fails += 1
            print("FAIL %s: %s" % (nb, line))
    for nb, why in sorted(NOT_RUN.items()):
        print("not run: %s (%s)" % (nb, why))
    print("summary: HTA's notebooks on hta_sqlite: %d notebooks, %d of %d cells ran, %d failures" % (
        len(names), total_ok, total_cells, fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
