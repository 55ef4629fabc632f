#!/bin/sh
# The Python package (python/, make wheel): builds the wheel offline from the binaries under
# test, installs it with pip --no-index into a fresh venv of Debian's /usr/bin/python3 (with
# the system's site-packages, so that Debian's pandas and sqlite-utils are used when present),
# ingests examples/traces with the package's hta-ingest command, and queries it through
# hta_sqlite.connect / load with sqlite3, pandas and sqlite-utils (each of the last two
# skipped, with a note, when not importable), then runs a notebook's session with HTA's API
# (hta_sqlite.trace_analysis and trace_diff: every method once, charts on and off, HTA not
# installed). Exit 77 (skip) without python3-venv, ensurepip,
# setuptools/wheel, or a sqlite3 module that can load extensions.
# env: HTA_INGEST, HTA_EXT (the binaries under test), HTA_PYTHON (default /usr/bin/python3).
# not under the sanitizers (tests/run.sh): the wheel is packaging; it ran in make test
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${HTA_INGEST:=$top/hta-ingest}" "${HTA_EXT:=$top/hta.so}" "${HTA_PYTHON:=/usr/bin/python3}"
py=$HTA_PYTHON
[ -x "$py" ] || { echo "skip: $py is missing"; exit 77; }
"$py" -c "import venv, ensurepip" 2>/dev/null || { echo "skip: $py has no venv/ensurepip (apt-get install python3-venv)"; exit 77; }
"$py" -c "import setuptools, wheel" 2>/dev/null || { echo "skip: $py lacks setuptools or wheel (apt-get install python3-setuptools python3-wheel)"; exit 77; }
"$py" -c "import sqlite3; sqlite3.connect(':memory:').enable_load_extension" 2>/dev/null \
  || { echo "skip: $py's sqlite3 cannot load extensions (use Debian's /usr/bin/python3)"; exit 77; }
work=$(mktemp -d) || exit 2
trap 'rm -rf "$work"' EXIT INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

PYTHON=$py sh "$top/python/build_wheel.sh" "$work/dist" "$HTA_INGEST" "$HTA_EXT" > "$work/build.log" 2>&1 \
  || { cat "$work/build.log"; echo "FAIL: build_wheel.sh"; exit 1; }
whl=$(ls "$work"/dist/hta_sqlite-*.whl)
case $(basename "$whl") in
  *-py3-none-any.whl) fail "the wheel is tagged pure Python: $(basename "$whl")" ;;
  hta_sqlite-$(cat "$top/VERSION")-py3-none-*.whl) ;;
  *) fail "unexpected wheel name $(basename "$whl")" ;;
esac
"$py" -m venv --system-site-packages "$work/venv" || { echo "FAIL: venv"; exit 1; }
"$work/venv/bin/python" -m pip install -q --no-index --disable-pip-version-check "$whl" > "$work/pip.log" 2>&1 \
  || { cat "$work/pip.log"; echo "FAIL: pip install --no-index"; exit 1; }

# The console script runs the packaged binary.
[ "$("$work/venv/bin/hta-ingest" -V)" = "$("$HTA_INGEST" -V)" ] || fail "hta-ingest -V: $("$work/venv/bin/hta-ingest" -V 2>&1)"
"$work/venv/bin/hta-ingest" -q "$work/demo.db" "$top/examples/traces" || fail "hta-ingest (console script) exit $?"

cd "$work" && "$work/venv/bin/python" - "$work/demo.db" "$(cat "$top/VERSION")" <<'PY' || fails=$((fails + 1))
import os, sqlite3, sys
import hta_sqlite
db, version = sys.argv[1], sys.argv[2]
bad = []
def check(c, m):
    if not c: bad.append(m)
check(hta_sqlite.__version__ == version, "__version__ %r, VERSION %r" % (hta_sqlite.__version__, version))
check("site-packages" in hta_sqlite.path() and os.path.isfile(hta_sqlite.path()), "path() %s" % hta_sqlite.path())
check(os.access(hta_sqlite.ingest_path(), os.X_OK), "ingest_path() %s is not executable" % hta_sqlite.ingest_path())

# connect(): the extension loaded, rows come back; read-only means read-only.
conn = hta_sqlite.connect(db, readonly=True)
rows = conn.execute("SELECT rank, idle_time_us FROM hta_temporal_breakdown ORDER BY rank").fetchall()
check([r[0] for r in rows] == [0, 1] and all(r[1] > 0 for r in rows), "hta_temporal_breakdown: %r" % rows)
n = conn.execute("SELECT count(*) FROM hta_queue_length WHERE rank = 0").fetchone()[0]
check(n > 100, "hta_queue_length rank 0: %d rows" % n)
try:
    conn.execute("DELETE FROM meta")
    bad.append("readonly=True connection could write")
except sqlite3.OperationalError as e:
    check("readonly" in str(e), "readonly: %s" % e)
# Extension loading is off again: SQL cannot load the io entry point.
try:
    conn.execute("SELECT load_extension(?, 'sqlite3_hta_io_init')", [hta_sqlite.path()])
    bad.append("load_extension() callable from SQL after hta_sqlite.load")
except sqlite3.OperationalError as e:
    check("not authorized" in str(e), "load_extension: %s" % e)
check(conn.execute("SELECT count(*) FROM pragma_function_list WHERE name LIKE 'hta_write%'").fetchone()[0] == 0,
      "io functions loaded")
hta_sqlite.load(conn)  # twice: harmless
check(conn.execute("SELECT count(*) FROM hta_comm_comp_overlap").fetchone()[0] == 2, "hta_comm_comp_overlap after a second load")
conn.close()

# load() on a plain sqlite3 connection, writable.
plain = sqlite3.connect(db)
check(hta_sqlite.load(plain) is plain, "load() does not return its connection")
check(plain.execute("SELECT hta_version()").fetchone()[0].startswith("v"), "hta_version()")

try:
    import pandas
except ImportError:
    print("note: pandas is not importable: its check skipped")
else:
    df = pandas.read_sql("SELECT * FROM hta_kernel_type_breakdown", plain)
    check(len(df) > 0 and "kernel_type" in df.columns, "pandas.read_sql: %r" % df)
try:
    import sqlite_utils
except ImportError:
    print("note: sqlite_utils is not importable: its check skipped")
else:
    sdb = sqlite_utils.Database(db)
    hta_sqlite.load(sdb)
    got = list(sdb.query("SELECT rank, count(*) AS n FROM hta_kernel_launch_stats GROUP BY rank ORDER BY rank"))
    check([g["rank"] for g in got] == [0, 1] and all(g["n"] > 0 for g in got), "sqlite-utils: %r" % got)
for b in bad:
    print("FAIL: " + b)
sys.exit(1 if bad else 0)
PY

# A notebook's session with HTA's API (hta_sqlite.trace_analysis / trace_diff), HTA not
# installed: every method once, charts on and off. Charts go through a recording
# plotly.graph_objects.Figure (looked up when drawn, so this one is used) that validates
# each figure instead of showing it. Skipped, with a note, without pandas.
cp -R "$top/examples/traces" "$work/traces"  # the counters file is written beside the traces
cd "$work" && HTA_SQLITE_CACHE="$work/cache" "$work/venv/bin/python" - "$work/traces" "$work/nb" <<'PY' || fails=$((fails + 1))
import importlib.util, os, sys, warnings
try:
    import pandas
except ImportError:
    print("note: pandas is not importable: the notebook check skipped")
    sys.exit(0)
warnings.simplefilter("ignore")
traces, out = sys.argv[1], sys.argv[2]
os.makedirs(out)
bad = []
def check(c, m):
    if not c: bad.append(m)
check(importlib.util.find_spec("hta") is None, "HTA is installed in the venv: the check needs it absent")
figures = []
try:
    import plotly.graph_objects as go
except ImportError:
    go = None
    print("note: plotly is not importable: charts are skipped")
if go is not None:
    class Recorded(go.Figure):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            figures.append(self)
        def show(self, *a, **k):
            self.to_json()  # a valid figure; nothing is displayed
    go.Figure = Recorded
from hta_sqlite.trace_analysis import TimeSeriesTypes, TraceAnalysis
from hta_sqlite.trace_diff import DeviceType, LabeledTrace, TraceDiff
check("hta" not in sys.modules, "hta_sqlite imported hta")
a = TraceAnalysis(trace_dir=traces)
ranks = a.get_ranks()
check(ranks == [0, 1], "ranks %r" % ranks)
def both(name, f, charts=True):
    """F(False) and F(True): same result, and charts drawn only with visualize on."""
    n = len(figures)
    r0 = f(False)
    check(len(figures) == n, "%s drew a chart with visualize off" % name)
    r1 = f(True)
    if go is not None and charts:
        check(len(figures) > n, "%s drew no chart with visualize on" % name)
    return r0, r1
t0, t1 = both("get_temporal_breakdown", lambda v: a.get_temporal_breakdown(visualize=v))
check(t0.equals(t1) and list(t0["rank"]) == [0, 1], "temporal: %r" % t0)
both("get_comm_comp_overlap", lambda v: a.get_comm_comp_overlap(visualize=v))
(k0, _), _ = both("get_gpu_kernel_breakdown", lambda v: a.get_gpu_kernel_breakdown(visualize=v))
check(abs(k0["percentage"].sum() - 100) < 0.5, "kernel types: %r" % k0)
both("get_idle_time_breakdown", lambda v: a.get_idle_time_breakdown(ranks=ranks, visualize=v, show_idle_interval_stats=True))
(l0, _) = both("get_cuda_kernel_launch_stats", lambda v: a.get_cuda_kernel_launch_stats(ranks=ranks, visualize=v))
check(sorted(l0) == [0, 1] and len(l0[0]) > 0, "launch stats: %r" % list(l0))
both("get_gpu_user_annotation_breakdown", lambda v: a.get_gpu_user_annotation_breakdown(visualize=v))
both("get_frequent_cuda_kernel_sequences",
     lambda v: a.get_frequent_cuda_kernel_sequences("AddmmBackward0", out, visualize=v))
check(any(n.startswith("overlaid_rank0") for n in os.listdir(out)), "no pattern overlay in %s" % os.listdir(out))
ql = a.get_queue_length_time_series(ranks)
check(a.get_queue_length_summary(ranks) is not None, "queue length summary")
check(a.get_queue_length_summary_from_time_series(ql) is not None, "summary from series")
check(len(a.get_time_spent_blocked_on_full_queue(ql, 8)) == 2, "blocked on a full queue of 8")
check(len(a.get_memory_bw_time_series(ranks)) == 2 and a.get_memory_bw_summary(ranks) is not None, "memory bw")
check(len(a.get_aten_op_kernels_and_delay(ranks, visualize=False)[0]) > 0, "aten ops")
check(a.get_gpu_kernels_with_user_annotations(0) is not None, "kernels with user annotations")
check(a.get_cupti_counter_data_with_operators() == [], "cupti: the demo has no counters")
check(a.get_profiler_steps() == [5, 6, 7], "steps %r" % a.get_profiler_steps())
check(sorted(a.get_potential_stragglers(num_candidates=1)) in ([0], [1]), "stragglers")
a.generate_trace_with_counters(ranks=[0], output_suffix="_nb")
check(os.path.exists(os.path.join(traces, "rank0.pt.trace_nb.json.gz")), "trace with counters")
os.unlink(os.path.join(traces, "rank0.pt.trace_nb.json.gz"))
g, ok = a.critical_path_analysis(0, "ProfilerStep", 1)
check(ok and abs(g.summary().sum() - 100) < 1e-6, "critical path")
p = a.overlay_critical_path_analysis(0, g, out)
check(os.path.basename(p) == "overlaid_critical_path_rank0.pt.trace.json.gz", "overlay %s" % p)
control = LabeledTrace(label="r0", trace_dir=traces)
d = TraceDiff.compare_traces(control, a, control_rank=0, test_rank=1, device_type=DeviceType.GPU)
check(list(d.columns)[-1] == "counts_change_categories" and len(d) > 0, "compare_traces")
check(set(TraceDiff.ops_diff(traces, traces)) == {"added", "deleted", "increased", "decreased", "unchanged"}, "ops_diff")
n = len(figures)
TraceDiff.visualize_counts_diff(d, show_image=False)
TraceDiff.visualize_duration_diff(d, show_image=True)
check(go is None or len(figures) == n + 2, "trace diff charts")
check("hta" not in sys.modules, "hta_sqlite imported hta")
for b in bad:
    print("FAIL: " + b)
print("notebook: %d charts" % len(figures))
sys.exit(1 if bad else 0)
PY

# A Python whose sqlite3 cannot load extensions gets the clear error, not an AttributeError.
"$work/venv/bin/python" - <<'PY' || fails=$((fails + 1))
import sqlite3, hta_sqlite
class NoLoad:
    pass
try:
    hta_sqlite.load(NoLoad())
    print("FAIL: load() accepted an object without enable_load_extension")
    raise SystemExit(1)
except hta_sqlite.ExtensionLoadingUnavailable as e:
    assert "enable-loadable-sqlite-extensions" in str(e) or "/usr/bin/python3" in str(e), e
PY

[ $fails = 0 ] && echo "ok: wheel $(basename "$whl"), console script, sqlite3 / pandas / sqlite-utils"
[ $fails = 0 ]
