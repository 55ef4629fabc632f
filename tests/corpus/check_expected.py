#!/usr/bin/env python3
"""Oracle comparison: our SQL analyses against HTA 0.6.1's expected outputs.

For every job folder of $HTA_SHARED/expected (and the per-file sub-jobs of
kineto_resnet50_2021jun_nw4_two_spans), the corpus traces are ingested once
with $HTA_INGEST into a cached database under $HTA_TMP, the extension
$HTA_EXT is loaded with python's sqlite3, and every CSV that
shared/expected/README.md section 3 maps to one of our table-valued functions
is compared cell by cell:

  * keys of README section 5 (per-rank files take the rank from `_rank<r>`;
    series timestamps are keyed by integer ns = round(ts_us * 1000));
  * tolerances of README section 4: integers / counts / strings exactly,
    unrounded floats |d| <= max(1e-6, 1e-9*|v|), HTA-rounded columns
    |d| <= 0.5*10^-dec + 1e-9; NaN == NaN == NULL;
  * tie-sensitive files (section 6) are not compared: the series are checked
    through *_at_ts_rank<r>.csv (ours collapsed per (stream|kind, ts) keeping
    the value after the last change) and the summaries through
    *_summary_at_ts.csv (describe() of our collapsed series, computed here with
    pandas' linear quantile rule and ddof=1);  time_series, queue_length_summary,
    memory_bw_summary and trace_counters files are skipped.  Where section 6
    lists a tie for a job (aten-op, frequent sequences, ...), mismatches of the
    affected file are reported as "tie" and do not fail the run.  A row that
    exists on one side only is accepted when its value is 0 in the two places
    where section 6 says such a row depends on tie order
    (kernel_type_breakdown sum 0, queue_full_blocked duration 0);
  * idle time with consecutive_kernel_delay 0: HTA's float ts differences turn
    an exact 0 gap into -1e-10 (kernel_wait instead of other); a one-sided row
    of zero-length intervals is accepted, and the count of the category that
    holds them on our side may differ by exactly that many;
  * memory bandwidth: hidden bw_from_bytes => 0 (called without it when the
    function has no such parameter); HTA's running-sum residues in (0, 1e-6]
    are left out of the summaries on both sides for the (rank, kind) they hit;
  * extra: hta_queue_length_summary / hta_memory_bw_summary with the hidden
    collapse_ties => 1 against the *_summary_at_ts files (skipped when the
    parameter does not exist);
  * errors.json: where HTA raised, ours must run without error (any rows);
  * status "ok-empty" without a file (HTA returned nothing): ours must return
    no rows (series, summaries, user annotations).

A function that does not exist yet is reported as "missing" and does not fail
the run unless HTA_STRICT=1.  Each job runs in its own worker process, so a
crash of the extension is reported for that file and the job continues; a
query is interrupted after HTA_QUERY_TIMEOUT seconds (default 60) and a
worker stuck longer than that + 30 s in one file is killed.  When python's
sqlite3 cannot load extensions the queries go through the sqlite3 shell
(HTA_SQLITE_SHELL, `.mode json` prints REALs with %!.20g: exact).

Usage: check_expected.py [-j N] [-v] [JOB ...]   (env: HTA_INGEST HTA_EXT
HTA_SHARED HTA_TMP HTA_STRICT HTA_QUERY_TIMEOUT HTA_SQLITE_SHELL)
       check_expected.py --selftest   (describe() of HTA's *_at_ts files must
                                       give its *_summary_at_ts files)
Exit 0 pass, 1 fail, 77 skip.  Standard library only.
"""
import csv
import fcntl
import json
import math
import os
import re
import sqlite3
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
MAX_SHOW = 5            # mismatches printed per file
QUERY_TIMEOUT_S = int(os.environ.get("HTA_QUERY_TIMEOUT", "60"))   # one SQL query, seconds
INGEST_TIMEOUT_S = 600

csv.field_size_limit(1 << 30)


# --------------------------------------------------------------------------- environment

def env_paths():
    shared = os.environ.get("HTA_SHARED") or os.path.join(REPO, "..", "shared")
    tmp = os.environ.get("HTA_TMP") or os.path.join(REPO, "build", "corpus-tmp")
    ingest = os.environ.get("HTA_INGEST") or os.path.join(REPO, "hta-ingest")
    ext = os.environ.get("HTA_EXT") or os.path.join(REPO, "hta.so")
    return (os.path.abspath(shared), os.path.abspath(tmp), os.path.abspath(ingest),
            os.path.abspath(ext))


def strict():
    return os.environ.get("HTA_STRICT", "0") == "1"


# --------------------------------------------------------------------------- ingest cache
# Shared with check_counts.py: one database per (job, inputs), built once per $HTA_TMP.

def db_name(name):
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name.replace("/", "__"))


def ensure_db(name, inputs, tmp, ingest):
    """Ingests INPUTS (files or folders) into $HTA_TMP/corpus-db/<name>.db once.
    Returns dict(db, rc, stderr, seconds, cached).  rc -1: could not run."""
    d = os.path.join(tmp, "corpus-db")
    os.makedirs(d, exist_ok=True)
    db = os.path.join(d, db_name(name) + ".db")
    meta = db + ".ingest.json"
    with open(db + ".lock", "w") as lk:
        fcntl.flock(lk, fcntl.LOCK_EX)
        if os.path.exists(meta):
            with open(meta) as fh:
                m = json.load(fh)
            if m.get("inputs") == inputs:
                m["cached"] = True
                return m
        for suffix in ("", "-wal", "-shm", "-journal"):
            if os.path.exists(db + suffix):
                os.unlink(db + suffix)
        t0 = time.monotonic()
        try:
            p = subprocess.run([ingest, db] + inputs, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, timeout=INGEST_TIMEOUT_S)
            rc, err = p.returncode, p.stderr.decode("utf-8", "replace")
        except subprocess.TimeoutExpired:
            rc, err = -1, "hta-ingest timed out after %ds" % INGEST_TIMEOUT_S
        except OSError as e:
            rc, err = -1, "cannot run %s: %s" % (ingest, e)
        m = {"db": db, "rc": rc, "stderr": err, "inputs": inputs,
             "seconds": time.monotonic() - t0}
        with open(meta + ".part", "w") as fh:
            json.dump(m, fh)
        os.replace(meta + ".part", meta)
        m["cached"] = False
        return m


# --------------------------------------------------------------------------- numbers and statistics

def num(v):
    """A CSV cell or SQL value as float; None for empty/NULL; raises ValueError."""
    if v is None:
        return None
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, bytes):
        v = v.decode()
    s = str(v).strip()
    if s == "":
        return None
    if s.lower() in ("true", "false"):
        return 1.0 if s.lower() == "true" else 0.0
    return float(s)


def is_nan(x):
    return x is None or (isinstance(x, float) and math.isnan(x))


def quantile(sorted_v, q):
    """numpy/pandas 'linear': v[lo] + (v[hi]-v[lo])*frac at position (n-1)*q."""
    n = len(sorted_v)
    if n == 0:
        return float("nan")
    pos = (n - 1) * q
    lo = int(math.floor(pos))
    hi = min(lo + 1, n - 1)
    frac = pos - lo
    a, b = sorted_v[lo], sorted_v[hi]
    return a + (b - a) * frac


def describe(values):
    """pandas Series.describe(): count, mean, std (ddof 1, NaN below 2), min, 25%, 50%, 75%, max."""
    v = sorted(float(x) for x in values)
    n = len(v)
    nan = float("nan")
    if n == 0:
        return {"count": 0.0, "mean": nan, "std": nan, "min": nan, "p25": nan, "p50": nan,
                "p75": nan, "max": nan}
    mean = math.fsum(v) / n
    std = math.sqrt(math.fsum((x - mean) ** 2 for x in v) / (n - 1)) if n > 1 else nan
    return {"count": float(n), "mean": mean, "std": std, "min": v[0], "p25": quantile(v, 0.25),
            "p50": quantile(v, 0.5), "p75": quantile(v, 0.75), "max": v[-1]}


DESCRIBE_COLS = ["count", "mean", "std", "min", "p25", "p50", "p75", "max"]
HTA_DESCRIBE = {"count": "count", "mean": "mean", "std": "std", "min": "min", "p25": "25%",
                "p50": "50%", "p75": "75%", "max": "max"}


class Ns(int):
    """An integer-ns key that prints as µs."""

    def __str__(self):
        return "%d.%03dus" % divmod(int(self), 1000) if self >= 0 else "-" + str(Ns(-self))

    __repr__ = __str__


def ts_key(v):
    """Series timestamps (µs REAL) as integer ns: float-rounding-proof key."""
    x = num(v)
    return None if x is None else Ns(int(round(x * 1000.0)))


def int_key(v):
    x = num(v)
    return None if x is None else int(x)


def str_key(v):
    if v is None:
        return ""
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


# --------------------------------------------------------------------------- cell comparison

def cmp_cell(kind, ours, hta):
    """True when OURS matches HTA's cell under KIND: 'int', 'float', ('round', d), 'str',
    'bool', 'json'."""
    if kind == "str":
        return str_key(ours) == str_key(hta)
    if kind == "json":
        try:
            a = json.loads(ours) if isinstance(ours, str) else ours
            b = json.loads(hta) if isinstance(hta, str) and hta != "" else None
        except ValueError:
            return False
        return a == b
    try:
        a, b = num(ours), num(hta)
    except ValueError:
        return False
    if is_nan(a) or is_nan(b):
        return is_nan(a) and is_nan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    if kind in ("int", "bool"):
        return a == b
    if kind == "float":
        return abs(a - b) <= max(1e-6, 1e-9 * max(abs(a), abs(b)))
    if isinstance(kind, tuple) and kind[0] == "round":
        return abs(a - b) <= 0.5 * 10.0 ** (-kind[1]) + 1e-9
    raise ValueError("bad kind %r" % (kind,))


def show(v):
    if isinstance(v, float):
        return repr(v)
    s = str_key(v) if v is not None else "NULL"
    return s if len(s) <= 90 else s[:87] + "..."


class FileResult(object):
    """Outcome of one expected CSV (or one check)."""

    def __init__(self, job, file, func):
        self.job, self.file, self.func = job, file, func
        self.status = "ok"      # ok | mismatch | tie | missing | error | skipped
        self.cells = 0
        self.matched = 0
        self.mismatches = []    # first MAX_SHOW*2 strings
        self.n_mismatch = 0
        self.notes = []
        self.seconds = 0.0

    def cell(self, ok, what=None):
        self.cells += 1
        if ok:
            self.matched += 1
        else:
            self.n_mismatch += 1
            if len(self.mismatches) < MAX_SHOW * 2 and what is not None:
                self.mismatches.append(what)

    def to_json(self):
        return dict(self.__dict__)

    @staticmethod
    def from_json(d):
        r = FileResult(d["job"], d["file"], d["func"])
        r.__dict__.update(d)
        return r


def fmt_key(key):
    if isinstance(key, tuple):
        return "(" + ", ".join(show(k) for k in key) + ")"
    return show(key)


def compare_rows(res, exp_rows, our_rows, keyf_exp, keyf_ours, cols, one_sided_ok=None):
    """Compares two row lists matched by key.  COLS: [(label, hta_col, our_col, kind)].
    Each expected row contributes one cell per column (a key-only file: one per row);
    a row on one side only is one mismatch per column.  one_sided_ok(side, row) -> bool
    accepts a one-sided row (counted as a matched cell, with a note)."""
    exp, ours = {}, {}
    for r in exp_rows:
        k = keyf_exp(r)
        if k in exp:
            res.notes.append("duplicate key in HTA's file: %s" % fmt_key(k))
        exp[k] = r
    for r in our_rows:
        k = keyf_ours(r)
        if k in ours:
            res.cell(False, "duplicate key in ours: %s" % fmt_key(k))
        ours[k] = r
    ncell = max(1, len(cols))
    accepted = 0
    if not exp and not ours:
        res.cell(True)      # both empty
    reasons = {}
    for k, er in exp.items():
        orow = ours.get(k)
        if orow is None:
            why = one_sided_ok("hta", er) if one_sided_ok else None
            if why:
                reasons[why] = reasons.get(why, 0) + 1
                accepted += 1
                for _ in range(ncell):
                    res.cell(True)
                continue
            for i in range(ncell):
                res.cell(False, "row %s: missing in ours" % fmt_key(k) if i == 0 else None)
            continue
        if not cols:
            res.cell(True)
        for label, hc, oc, kind in cols:
            hv = er.get(hc)
            ov = orow.get(oc)
            ok = cmp_cell(kind, ov, hv)
            res.cell(ok, None if ok else "row %s %s: ours %s, HTA %s" % (
                fmt_key(k), label, show(ov), show(hv)))
    for k, orow in ours.items():
        if k in exp:
            continue
        why = one_sided_ok("ours", orow) if one_sided_ok else None
        if why:
            reasons[why] = reasons.get(why, 0) + 1
            accepted += 1
            continue
        for i in range(ncell):
            res.cell(False, "row %s: extra in ours (not in HTA's)" % fmt_key(k) if i == 0 else None)
    for why, n in sorted(reasons.items()):
        res.notes.append("%d one-sided row(s) accepted: %s" % (n, why))


# --------------------------------------------------------------------------- CSV reading

def read_csv(path):
    with open(path, newline="", encoding="utf-8") as fh:
        rd = csv.reader(fh)
        try:
            header = next(rd)
        except StopIteration:
            return [], []
        rows = [dict(zip(header, r)) for r in rd if r]
    return header, rows


# --------------------------------------------------------------------------- SQL access

class Missing(Exception):
    pass


class QueryError(Exception):
    pass


class NoParam(Exception):
    """An optional hidden parameter (ours only) does not exist."""


class Db(object):
    def __init__(self, path, ext):
        self.path = path
        self.con = sqlite3.connect(path)
        self.con.enable_load_extension(True)
        self.con.load_extension(ext)
        self.con.enable_load_extension(False)
        self.cache = {}
        self.deadline = None
        self.con.set_progress_handler(self._progress, 20000)
        self.attached = set()

    def _progress(self):
        if self.deadline is not None and time.monotonic() > self.deadline:
            return 1
        return 0

    def sql(self, q, params=()):
        """Runs Q; returns list of dicts (column name -> value) in output order."""
        key = (q, tuple(params))
        if key in self.cache:
            v = self.cache[key]
            if isinstance(v, Exception):
                raise v
            return v
        self.deadline = time.monotonic() + QUERY_TIMEOUT_S
        try:
            cur = self.con.execute(q, params)
            names = [d[0] for d in cur.description] if cur.description else []
            rows = [dict(zip(names, r)) for r in cur.fetchall()]
        except sqlite3.Error as e:
            msg = str(e)
            m = re.search(r"no such (?:table|function|module): (\w+)", msg)
            if m and m.group(1).startswith("hta_"):
                ex = Missing(m.group(1))
            elif msg == "interrupted":
                ex = QueryError("timed out after %ds: %s" % (QUERY_TIMEOUT_S, q))
            else:
                ex = QueryError("%s [%s %s]" % (msg, q, list(params)))
            self.cache[key] = ex
            raise ex
        finally:
            self.deadline = None
        self.cache[key] = rows
        return rows

    def tvf(self, func, params=None, rank=None, cols="*"):
        """SELECT cols FROM func WHERE p = ? AND ... [AND rank = ?]."""
        where, args = [], []
        for k, v in (params or {}).items():
            where.append("%s = ?" % k)
            args.append(v)
        if rank is not None:
            where.append("rank = ?")
            args.append(rank)
        q = "SELECT %s FROM %s" % (cols, func)
        if where:
            q += " WHERE " + " AND ".join(where)
        return self.sql(q, args)

    def attach(self, path, schema):
        if schema not in self.attached:
            self.con.execute("ATTACH DATABASE ? AS %s" % schema, (path,))
            self.attached.add(schema)


class CliDb(Db):
    """The same interface through the sqlite3 shell (`.load`, `.mode json`), for pythons
    whose sqlite3 module cannot load extensions.  REALs print with %!.20g: exact."""

    def __init__(self, path, ext, shell="sqlite3"):
        self.path, self.ext, self.shell = path, ext, shell
        self.cache = {}
        self.attached = {}
        self.run_sql("SELECT 1")

    def attach(self, path, schema):
        self.attached[schema] = path

    @staticmethod
    def literal(v):
        if v is None:
            return "NULL"
        if isinstance(v, bool):
            return str(int(v))
        if isinstance(v, (int, float)):
            return repr(v)
        return "'" + str(v).replace("'", "''") + "'"

    def run_sql(self, q):
        script = "".join("ATTACH DATABASE %s AS %s;\n" % (self.literal(p), s)
                         for s, p in sorted(self.attached.items()))
        script += q + ";\n"
        try:
            p = subprocess.run([self.shell, "-bail", "-batch", "-json", "-cmd",
                                ".load " + self.ext, self.path], input=script.encode(),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               timeout=QUERY_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise QueryError("timed out after %ds: %s" % (QUERY_TIMEOUT_S, q))
        err = p.stderr.decode("utf-8", "replace").strip()
        if p.returncode != 0 or err:
            m = re.search(r"no such (?:table|function|module): (\w+)", err)
            if m and m.group(1).startswith("hta_"):
                raise Missing(m.group(1))
            if p.returncode < 0:
                raise QueryError("sqlite3 shell killed by signal %d: %s" % (-p.returncode, q))
            raise QueryError("%s [%s]" % (err[-300:], q))
        out = p.stdout.decode("utf-8", "replace").strip()
        return json.loads(out) if out else []

    def sql(self, q, params=()):
        parts = q.split("?")
        if len(parts) - 1 != len(params):
            raise QueryError("parameter count mismatch in %s" % q)
        text = parts[0] + "".join(self.literal(v) + rest for v, rest in zip(params, parts[1:]))
        key = (text, tuple(sorted(self.attached.items())))
        if key in self.cache:
            v = self.cache[key]
            if isinstance(v, Exception):
                raise v
            return v
        try:
            rows = self.run_sql(text)
        except (Missing, QueryError) as e:
            self.cache[key] = e
            raise
        self.cache[key] = rows
        return rows


def open_db(path, ext):
    if os.environ.get("HTA_SQLITE_SHELL"):
        return CliDb(path, ext, os.environ["HTA_SQLITE_SHELL"])
    return Db(path, ext)


BW_NOTE = []


def tvf_bw(db, func, rank=None, params=None):
    """Memory-bandwidth functions with the hidden bw_from_bytes => 0 (oracle semantics);
    called without it when the function does not have that parameter."""
    p = dict(params or {})
    p["bw_from_bytes"] = 0
    try:
        return db.tvf(func, p, rank)
    except QueryError as e:
        if "no such column: bw_from_bytes" not in str(e):
            raise
        if not BW_NOTE:
            BW_NOTE.append("%s has no bw_from_bytes parameter; called without it" % func)
        return db.tvf(func, params, rank)


# --------------------------------------------------------------------------- expected-file metadata

def parse_readme_ties(shared):
    """README section 6 table: job -> set of affected areas."""
    out = {}
    try:
        with open(os.path.join(shared, "expected", "README.md"), encoding="utf-8") as fh:
            t = fh.read()
        s = t[t.index("## 6."):t.index("## 7.")]
    except (OSError, ValueError):
        return out
    for line in s.splitlines():
        m = re.match(r"\|\s*([^|`]+?)\s*\|\s*(.+?)\s*\|$", line)
        if not m or m.group(1) in ("job",) or m.group(1).startswith("---"):
            continue
        areas = set()
        txt = m.group(2)
        for key, area in (("aten-op", "aten"), ("frequent sequences", "freq"),
                          ("idle", "idle"), ("CUPTI", "cupti"), ("others", "others"),
                          ("kernel_type", "kernel_type"), ("queue length", "queue"),
                          ("memory bandwidth", "membw")):
            if key in txt:
                areas.add(area)
        out[m.group(1)] = areas
    return out


TIE_AREA_OF_FILE = [
    (re.compile(r"^aten_op_kernels_and_delay_rank"), "aten"),
    (re.compile(r"^frequent_cuda_kernel_sequences_rank"), "freq"),
    (re.compile(r"^idle_"), "idle"),
    (re.compile(r"^cupti_counter_data_rank"), "cupti"),
    (re.compile(r"^gpu_kernel_breakdown\.csv$"), "others"),
]


def readme_call(folder, fname):
    """The 'HTA call:' line of FNAME's section in the folder's README.md."""
    try:
        with open(os.path.join(folder, "README.md"), encoding="utf-8") as fh:
            t = fh.read()
    except OSError:
        return ""
    i = t.find("### `%s`" % fname)
    if i < 0:
        return ""
    m = re.search(r"\* HTA call: `(.*)`", t[i:])
    return m.group(1) if m else ""


def call_int(call, name):
    m = re.search(r"\b%s=(-?\d+)" % name, call)
    return int(m.group(1)) if m else None


# --------------------------------------------------------------------------- per-file checks

def rank_of(fname):
    m = re.search(r"_rank(-?\d+)\.csv$", fname)
    return int(m.group(1)) if m else None


def c_simple(func, params, keys, cols, rank_from_file=False, one_sided_ok=None):
    """Generic: keys [(hta_col, our_col, keyfn)], cols [(hta_col, our_col, kind)]."""
    def check(ctx, res, path, fname):
        _, exp = read_csv(path)
        r = rank_of(fname) if rank_from_file else None
        ours = ctx.db.tvf(func, params, r)
        need_cols(ours, [oc for _, oc, _ in keys] + [oc for _, oc, _ in cols], res)
        if res.status == "error":
            return
        ke = lambda row: tuple(f(row.get(hc)) for hc, _, f in keys)
        ko = lambda row: tuple(f(row.get(oc)) for _, oc, f in keys)
        compare_rows(res, exp, ours, ke, ko, [(hc, hc, oc, kind) for hc, oc, kind in cols],
                     one_sided_ok)
    return check


def need_cols(rows, names, res):
    if not rows:
        return
    missing = [n for n in names if n not in rows[0]]
    if missing:
        res.status = "error"
        res.notes.append("our result lacks column(s) %s (has %s)" % (
            ", ".join(missing), ", ".join(rows[0].keys())))
        res.cell(False, "missing column(s): %s" % ", ".join(missing))


K_RANK = ("rank", "rank", int_key)
K_STREAM = ("stream", "stream", int_key)

BREAKDOWN_COLS = [("count", "count", "int"), ("sum (us)", "sum_us", "float"),
                  ("max (us)", "max_us", "float"), ("min (us)", "min_us", "float"),
                  ("stddev", "stddev_us", "float"), ("mean (us)", "mean_us", "float")]


TIE_ZERO = "value 0, exists or not depending on tie order (README section 6)"
FLIP_ZERO = ("zero-length idle intervals only: HTA's float ts differences put an exact 0 gap "
             "a hair below/above the threshold (ours: integer ns)")


def kt_zero(side, row):
    try:
        v = num(row.get("sum") if side == "hta" else row.get("sum_us"))
    except ValueError:
        return None
    return TIE_ZERO if v == 0.0 else None


def qf_zero(side, row):
    try:
        v = num(row.get("duration_at_max_queue_length") if side == "hta"
                else row.get("duration_at_max_us"))
    except ValueError:
        return None
    return TIE_ZERO if v == 0.0 else None


def near0(v):
    try:
        x = num(v)
    except ValueError:
        return False
    return x is not None and not math.isnan(x) and abs(x) <= 1e-6


def idle_zero(side, row):
    """A row of zero-length idle intervals (HTA's side is rounded to 2 decimals)."""
    if side == "hta":
        if "count" not in row:
            return FLIP_ZERO if near0(row.get("idle_time")) else None
        ok = all(near0(row.get(c)) for c in ("mean", "min", "max"))
    else:
        if "count" not in row:
            return FLIP_ZERO if near0(row.get("idle_time_us")) else None
        ok = all(near0(row.get(c)) for c in ("mean_us", "min_us", "max_us"))
    try:
        return FLIP_ZERO if ok and (num(row.get("count")) or 0) > 0 else None
    except ValueError:
        return None


def c_temporal(ctx, res, path, fname):
    c_simple("hta_temporal_breakdown", None, [K_RANK],
             [("idle_time(us)", "idle_time_us", "float"),
              ("compute_time(us)", "compute_time_us", "float"),
              ("non_compute_time(us)", "non_compute_time_us", "float"),
              ("kernel_time(us)", "kernel_time_us", "float"),
              ("idle_time_pctg", "idle_time_pctg", ("round", 2)),
              ("compute_time_pctg", "compute_time_pctg", ("round", 2)),
              ("non_compute_time_pctg", "non_compute_time_pctg", ("round", 2))])(
        ctx, res, path, fname)


def c_queue_at_ts(ctx, res, path, fname):
    _, exp = read_csv(path)
    r = rank_of(fname)
    ours = collapse(ctx.db.tvf("hta_queue_length", None, r), "stream", int_key, "queue_length")
    compare_rows(res, exp, ours,
                 lambda row: (int_key(row["stream"]), ts_key(row["ts"])),
                 lambda row: (row["stream"], row["ts"]),
                 [("queue_length", "queue_length", "queue_length", "int")])


def c_membw_at_ts(ctx, res, path, fname):
    _, exp = read_csv(path)
    r = rank_of(fname)
    ours = collapse(tvf_bw(ctx.db, "hta_memory_bw", r), "kind", str_key, "memory_bw_gbps")
    compare_rows(res, exp, ours,
                 lambda row: (str_key(row["name"]), ts_key(row["ts"])),
                 lambda row: (row["kind"], row["ts"]),
                 [("memory_bw_gbps", "memory_bw_gbps", "memory_bw_gbps", "float")])


def collapse(rows, group_col, group_key, value_col):
    """Our series collapsed per (group, ts): the value after the last change at that ts
    (the last row in output order).  Rows keep the first occurrence's position."""
    if rows and ("ts_us" not in rows[0] or group_col not in rows[0] or value_col not in rows[0]):
        raise QueryError("series lacks ts_us/%s/%s (has %s)" % (group_col, value_col,
                                                                ", ".join(rows[0].keys())))
    out = {}
    for row in rows:
        k = (row.get("rank"), group_key(row[group_col]), ts_key(row["ts_us"]))
        out[k] = row[value_col]
    return [{"rank": k[0], group_col: k[1], "ts": k[2], value_col: v} for k, v in out.items()]


def c_queue_summary_at_ts(ctx, res, path, fname):
    _, exp = read_csv(path)
    ours = summary_rows(collapse(ctx.db.tvf("hta_queue_length"), "stream", int_key,
                                 "queue_length"), "stream", "queue_length", positive=False)
    compare_rows(res, exp, ours,
                 lambda row: (int_key(row["rank"]), int_key(row["stream"])),
                 lambda row: (int_key(row["rank"]), row["stream"]),
                 [(HTA_DESCRIBE[c], HTA_DESCRIBE[c], c, "int" if c == "count" else "float")
                  for c in DESCRIBE_COLS])


def summary_rows(collapsed, group_col, value_col, positive):
    groups = {}
    for row in collapsed:
        v = num(row[value_col])
        if v is None or (positive and not v > 0):
            continue
        groups.setdefault((row["rank"], row[group_col]), []).append(v)
    out = []
    for (rank, g), vals in groups.items():
        d = describe(vals)
        d["rank"], d[group_col] = rank, g
        out.append(d)
    return out


RESIDUE = 1e-6


def membw_residue_groups(folder):
    """(rank, kind) -> HTA's collapsed values, from the folder's memory_bw_at_ts files."""
    groups = {}
    for f in sorted(os.listdir(folder)):
        r = rank_of(f)
        if not f.startswith("memory_bw_at_ts_rank") or r is None:
            continue
        _, rows = read_csv(os.path.join(folder, f))
        for row in rows:
            groups.setdefault((r, row["name"]), []).append(num(row["memory_bw_gbps"]))
    return groups


def c_membw_summary_at_ts(ctx, res, path, fname):
    _, exp = read_csv(path)
    # HTA's running sums leave float residues (e.g. 5.7e-14) that count as points > 0 in
    # its summary; ours need not have them.  For a (rank, kind) whose expected at_ts series
    # holds values in (0, 1e-6], both sides are summarised over the points > 1e-6 instead
    # (HTA's side recomputed from its at_ts file with the same describe()).
    hta_series = membw_residue_groups(os.path.dirname(path))
    affected = set(k for k, vals in hta_series.items()
                   if any(v is not None and 0 < v <= RESIDUE for v in vals))
    exp2 = []
    for row in exp:
        k = (int_key(row["rank"]), row["name"])
        if k not in affected:
            exp2.append(row)
            continue
        d = describe([v for v in hta_series[k] if v is not None and v > RESIDUE])
        if d["count"] == 0:
            continue
        d2 = dict((HTA_DESCRIBE[c], d[c]) for c in DESCRIBE_COLS)
        d2.update({"rank": row["rank"], "name": row["name"]})
        exp2.append(d2)
        res.notes.append("rank %d %s: residues in (0, 1e-6] left out on both sides" % k)
    coll = collapse(tvf_bw(ctx.db, "hta_memory_bw"), "kind", str_key, "memory_bw_gbps")
    kept = []
    for row in coll:
        v = num(row["memory_bw_gbps"])
        lim = RESIDUE if (int_key(row["rank"]), row["kind"]) in affected else 0.0
        if v is not None and v > lim:
            kept.append(row)
    ours = summary_rows(kept, "kind", "memory_bw_gbps", positive=True)
    compare_rows(res, exp2, ours,
                 lambda row: (int_key(row["rank"]), str_key(row["name"])),
                 lambda row: (int_key(row["rank"]), row["kind"]),
                 [(HTA_DESCRIBE[c], HTA_DESCRIBE[c], c, "int" if c == "count" else "float")
                  for c in DESCRIBE_COLS])


def c_freq(ctx, res, path, fname):
    _, exp = read_csv(path)
    r = rank_of(fname)
    folder = os.path.dirname(path)
    op = None
    cand = os.path.join(folder, "frequent_kernel_op_candidates_rank%d.csv" % r)
    if os.path.exists(cand):
        _, crow = read_csv(cand)
        if crow:
            op = crow[0]["operator_name"]
    if op is None:
        m = re.search(r"operator_name='((?:[^'\\]|\\.)*)'", readme_call(folder, fname))
        op = m.group(1) if m else None
    if op is None:
        res.status = "skipped"
        res.notes.append("no operator_name (no candidates file)")
        return
    ours = ctx.db.tvf("hta_frequent_kernel_sequences",
                      {"operator_name": op, "min_pattern_len": 3, "top_k": 5}, r)
    compare_rows(res, exp, ours, lambda row: str_key(row["pattern"]),
                 lambda row: str_key(row.get("pattern")),
                 [("count", "count", "count", "int"),
                  ("GPU kernel duration (us)", "GPU kernel duration (us)",
                   "gpu_kernel_duration_us", "float"),
                  ("CPU op duration (us)", "CPU op duration (us)", "cpu_op_duration_us", "float")])


def c_cupti(ctx, res, path, fname):
    header, exp = read_csv(path)
    r = rank_of(fname)
    try:
        counters = header[header.index("out_split_size") + 1:header.index("index_correlation")]
    except ValueError:
        res.status = "error"
        res.notes.append("cannot find the counter columns in HTA's header")
        return
    ours = ctx.db.tvf("hta_cupti_counters", None, r)
    if ours:
        cols = ours[0].keys()
        if "kernel_seq" in cols:
            idx = lambda row: int_key(row["kernel_seq"])
        elif "kernel_event_id" in cols:
            ids = sorted(set(row["kernel_event_id"] for row in ours
                             if row["kernel_event_id"] is not None))
            seq = {}
            for i in range(0, len(ids), 500):
                chunk = ids[i:i + 500]
                for row in ctx.db.sql("SELECT event_id, seq FROM event WHERE event_id IN (%s)"
                                      % ",".join("?" * len(chunk)), chunk):
                    seq[row["event_id"]] = row["seq"]
            idx = lambda row: seq.get(row["kernel_event_id"])
        elif "index" in cols:
            idx = lambda row: int_key(row["index"])
        else:
            need_cols(ours, ["kernel_event_id"], res)
            return
        need_cols(ours, ["kernel_name", "op_stack", "top_level_op", "bottom_level_op",
                         "counter", "value"], res)
        if res.status == "error":
            return
    per_kernel, values = {}, {}
    for row in ours:
        i = idx(row)
        per_kernel.setdefault(i, row)
        values[(i, str_key(row["counter"]))] = row["value"]
    exp_k = {}
    for row in exp:
        i = int_key(row["index"])
        exp_k[i] = row
        orow = per_kernel.get(i)
        if orow is None:
            res.cell(False, "kernel index %d: missing in ours" % i)
            continue
        for hc, oc, kind in (("name", "kernel_name", "str"), ("op_stack", "op_stack", "json"),
                             ("top_level_op", "top_level_op", "str"),
                             ("bottom_level_op", "bottom_level_op", "str")):
            ok = cmp_cell(kind, orow.get(oc), row.get(hc))
            res.cell(ok, None if ok else "index %d %s: ours %s, HTA %s" % (
                i, hc, show(orow.get(oc)), show(row.get(hc))))
        for c in counters:
            hv = row.get(c)
            k = (i, c)
            if k not in values:
                ok = num(hv) == -1.0
                ov = "(no row)"
            else:
                ov = values[k]
                ok = cmp_cell("float", ov, hv) or (num(hv) == -1.0 and ov is None)
            res.cell(ok, None if ok else "index %d counter %s: ours %s, HTA %s" % (
                i, c, show(ov), show(hv)))
    for i in per_kernel:
        if i not in exp_k:
            res.cell(False, "kernel index %s: extra in ours" % show(i))
    expected_counters = set(counters)
    extra = sorted(set(c for (_, c) in values) - expected_counters)
    if extra:
        res.cell(False, "counters not in HTA's file: %s" % ", ".join(extra[:5]))


DIFF_COLS = [("control_counts", "control_counts", "int"),
             ("control_total_duration", "control_total_duration_us", "float"),
             ("test_counts", "test_counts", "int"),
             ("test_total_duration", "test_total_duration_us", "float"),
             ("diff_counts", "diff_counts", "int"),
             ("diff_duration", "diff_duration_us", "float"),
             ("counts_change_categories", "change", "str")]


def c_trace_diff(ctx, res, path, fname):
    folder = os.path.dirname(path)
    call = readme_call(folder, fname)
    params = {}
    if fname == "trace_diff_vs_other.csv":
        m = re.search(r"LabeledTrace\('test', trace_dir='(?:corpus/)?([^']+)'\)", call)
        if not m:
            res.status = "error"
            res.notes.append("cannot find the other job in README's HTA call")
            return
        other = m.group(1)
        mo = ensure_db(other, [os.path.join(ctx.shared, "corpus", other)], ctx.tmp, ctx.ingest)
        if mo["rc"] == -1 or not os.path.exists(mo["db"]):
            res.status = "error"
            res.notes.append("ingest of %s failed: %s" % (other, mo["stderr"][-300:]))
            return
        ctx.db.attach(mo["db"], "other")
        params["test_schema"] = "other"
        res.notes.append("test_schema = %s" % other)
    else:
        for p in ("control_rank", "control_iteration", "test_rank", "test_iteration"):
            v = call_int(call, p)
            if v is not None:
                params[p] = v
        if not params:
            res.status = "error"
            res.notes.append("cannot parse the HTA call from README: %r" % call)
            return
        res.notes.append(", ".join("%s=%d" % kv for kv in sorted(params.items())))
    c_simple("hta_trace_diff", params, [("name", "name", str_key)], DIFF_COLS)(
        ctx, res, path, fname)


def c_profiler_steps(ctx, res, path, fname):
    _, exp = read_csv(path)
    ours = ctx.db.sql("SELECT DISTINCT step FROM hta_profiler_steps")
    compare_rows(res, exp, ours, lambda row: int_key(row["profiler_step"]),
                 lambda row: int_key(row["step"]), [])


def c_stragglers(ctx, res, path, fname):
    _, exp = read_csv(path)
    ours = ctx.db.tvf("hta_potential_stragglers", {"num_candidates": 2})
    ours = [{"position": i, "rank": row.get("rank")} for i, row in enumerate(ours)]
    compare_rows(res, exp, ours, lambda row: int_key(row["position"]),
                 lambda row: row["position"], [("rank", "rank", "rank", "int")])


def c_user_annotation(gpu):
    return lambda ctx, res, path, fname: c_simple(
        "hta_user_annotation_breakdown",
        {"use_gpu_annotation": 1 if gpu else 0, "duration_ratio": 1.0, "num_kernels": 100000},
        [K_RANK, ("name", "name", str_key)], BREAKDOWN_COLS)(ctx, res, path, fname)


def c_idle_time(delay):
    return c_simple("hta_idle_time_breakdown", {"consecutive_kernel_delay_us": delay},
                    [K_RANK, K_STREAM, ("idle_category", "idle_category", str_key)],
                    [("idle_time", "idle_time_us", ("round", 2)),
                     ("idle_time_ratio", "idle_time_ratio", ("round", 2))],
                    one_sided_ok=idle_zero)


IDLE_STATS_COLS = [("count", "count", "int")] + [
    (h, o, ("round", 2)) for h, o in (("mean", "mean_us"), ("std", "std_us"), ("min", "min_us"),
                                      ("25%", "p25_us"), ("50%", "p50_us"), ("75%", "p75_us"),
                                      ("max", "max_us"))]


def c_idle_stats(delay):
    """As c_simple, plus: a one-sided row of zero-length intervals (idle_zero) is accepted,
    and the count of the row of the same (rank, stream) that took those intervals on the
    other side may differ by exactly that many."""
    def check(ctx, res, path, fname):
        _, exp = read_csv(path)
        ours = ctx.db.tvf("hta_idle_interval_stats", {"consecutive_kernel_delay_us": delay})
        need_cols(ours, ["rank", "stream", "idle_category"] + [o for _, o, _ in IDLE_STATS_COLS],
                  res)
        if res.status == "error":
            return
        key = lambda r: (int_key(r["rank"]), int_key(r["stream"]), str_key(r["idle_category"]))
        ek = dict((key(r), r) for r in exp)
        ok = dict((key(r), r) for r in ours)
        delta = {}
        for k, r in ek.items():
            if k not in ok and idle_zero("hta", r):
                delta[k[:2]] = delta.get(k[:2], 0) + int(num(r["count"]))
        for k, r in ok.items():
            if k not in ek and idle_zero("ours", r):
                delta[k[:2]] = delta.get(k[:2], 0) - int(num(r["count"]))
        adj = []
        for k, r in ok.items():
            d = delta.get(k[:2])
            if d and k in ek and num(r["count"]) - num(ek[k]["count"]) == d:
                r = dict(r)
                r["count"] = num(r["count"]) - d
                delta[k[:2]] = 0
                res.notes.append("%s count: ours %d includes %d zero-length interval(s) HTA "
                                 "put in another category" % (fmt_key(k), num(r["count"]) + d, d))
            adj.append(r)
        compare_rows(res, exp, adj, key, key,
                     [(h, h, o, kind) for h, o, kind in IDLE_STATS_COLS], one_sided_ok=idle_zero)
    return check


def c_kernel_type(ctx, res, path, fname):
    c_simple("hta_kernel_type_breakdown", {"include_memory_kernels": 1},
             [("kernel_type", "kernel_type", str_key)],
             [("sum", "sum_us", "float"), ("percentage", "percentage", ("round", 1))],
             one_sided_ok=kt_zero)(ctx, res, path, fname)


def c_kernel_breakdown(ratio, n):
    return c_simple("hta_kernel_breakdown",
                    {"duration_ratio": ratio, "num_kernels": n, "include_memory_kernels": 1},
                    [K_RANK, ("kernel_type", "kernel_type", str_key), ("name", "name", str_key)],
                    BREAKDOWN_COLS)


def c_queue_full(maxlen):
    return c_simple("hta_queue_full_time", {"max_queue_length": maxlen}, [K_RANK, K_STREAM],
                    [("duration_at_max_queue_length", "duration_at_max_us", "float"),
                     ("relative_duration_at_max_queue_length", "relative_duration", "float")],
                    one_sided_ok=qf_zero)


def c_aten(ctx, res, path, fname):
    c_simple("hta_aten_op_kernels", None,
             [("aten_op_name", "aten_op_name", str_key),
              ("kernel_sequence", "kernel_sequence", str_key)],
             [("occurrence_count", "occurrence_count", "int"),
              ("avg_aten_op_launch_delay", "avg_aten_op_launch_delay_us", ("round", 3)),
              ("avg_runtime_delay", "avg_runtime_delay_us", ("round", 3))],
             rank_from_file=True)(ctx, res, path, fname)
    if res.n_mismatch:      # a hint for tie-affected jobs: op instances with launches
        _, exp = read_csv(path)
        ours = ctx.db.tvf("hta_aten_op_kernels", None, rank_of(fname))
        res.notes.append("rows ours %d, HTA %d; sum of occurrence_count ours %s, HTA %s" % (
            len(ours), len(exp), sum(int_key(r.get("occurrence_count")) or 0 for r in ours),
            sum(int_key(r["occurrence_count"]) or 0 for r in exp)))


# file pattern -> (function name for the report, checker)
CHECKS = [
    (r"temporal_breakdown\.csv", "hta_temporal_breakdown", c_temporal),
    (r"kernel_type_breakdown(_all)?\.csv", "hta_kernel_type_breakdown", c_kernel_type),
    (r"gpu_kernel_breakdown\.csv", "hta_kernel_breakdown", c_kernel_breakdown(0.8, 10)),
    (r"gpu_kernel_breakdown_all\.csv", "hta_kernel_breakdown", c_kernel_breakdown(1.0, 100000)),
    (r"idle_time_breakdown\.csv", "hta_idle_time_breakdown", c_idle_time(30)),
    (r"idle_time_breakdown_delay0\.csv", "hta_idle_time_breakdown", c_idle_time(0)),
    (r"idle_interval_stats\.csv", "hta_idle_interval_stats", c_idle_stats(30)),
    (r"idle_interval_stats_delay0\.csv", "hta_idle_interval_stats", c_idle_stats(0)),
    (r"comm_comp_overlap\.csv", "hta_comm_comp_overlap",
     c_simple("hta_comm_comp_overlap", None, [K_RANK],
              [("comp_comm_overlap_pctg", "comp_comm_overlap_pctg", ("round", 2))])),
    (r"cuda_kernel_launch_stats_rank-?\d+\.csv", "hta_kernel_launch_stats",
     c_simple("hta_kernel_launch_stats",
              {"include_memory_events": 1, "runtime_cutoff_us": 50, "launch_delay_cutoff_us": 100},
              [("correlation", "correlation", int_key)],
              [("launch_name", "launch_name", "str"), ("kernel_name", "kernel_name", "str"),
               ("cpu_duration", "cpu_duration_us", "float"),
               ("gpu_duration", "gpu_duration_us", "float"),
               ("launch_delay", "launch_delay_us", "float"),
               ("is_short_kernel", "is_short_kernel", "bool"),
               ("is_runtime_outlier", "is_runtime_outlier", "bool"),
               ("is_launch_delay_outlier", "is_launch_delay_outlier", "bool")],
              rank_from_file=True)),
    (r"queue_length_at_ts_rank-?\d+\.csv", "hta_queue_length", c_queue_at_ts),
    (r"queue_length_summary_at_ts\.csv", "hta_queue_length", c_queue_summary_at_ts),
    (r"queue_full_blocked\.csv", "hta_queue_full_time", c_queue_full(1024)),
    (r"queue_full_blocked_max2\.csv", "hta_queue_full_time", c_queue_full(2)),
    (r"memory_bw_at_ts_rank-?\d+\.csv", "hta_memory_bw", c_membw_at_ts),
    (r"memory_bw_summary_at_ts\.csv", "hta_memory_bw", c_membw_summary_at_ts),
    (r"frequent_cuda_kernel_sequences_rank-?\d+\.csv", "hta_frequent_kernel_sequences", c_freq),
    (r"cupti_counter_data_rank-?\d+\.csv", "hta_cupti_counters", c_cupti),
    (r"trace_diff_(ranks|iterations|vs_other)\.csv", "hta_trace_diff", c_trace_diff),
    (r"user_annotation_breakdown_gpu\.csv", "hta_user_annotation_breakdown",
     c_user_annotation(True)),
    (r"user_annotation_breakdown_cpu\.csv", "hta_user_annotation_breakdown",
     c_user_annotation(False)),
    (r"profiler_steps\.csv", "hta_profiler_steps", c_profiler_steps),
    (r"potential_stragglers\.csv", "hta_potential_stragglers", c_stragglers),
    (r"aten_op_kernels_and_delay_rank-?\d+\.csv", "hta_aten_op_kernels", c_aten),
]

def c_summary_collapsed(func, group_col, hta_group, positive):
    """Our summary function with collapse_ties => 1 against HTA's *_summary_at_ts.csv.
    For memory bandwidth, (rank, kind) groups whose HTA series holds float residues in
    (0, 1e-6] are left out (see c_membw_summary_at_ts)."""
    def check(ctx, res, path, fname):
        _, exp = read_csv(path)
        params = {"collapse_ties": 1}
        try:
            ours = tvf_bw(ctx.db, func, params=params) if positive else ctx.db.tvf(func, params)
        except QueryError as e:
            if "no such column: collapse_ties" in str(e):
                raise NoParam("collapse_ties")
            raise
        if positive:
            series = membw_residue_groups(os.path.dirname(path))
            bad = set(k for k, vals in series.items()
                      if any(v is not None and 0 < v <= RESIDUE for v in vals))
            if bad:
                res.notes.append("groups with HTA residues left out: %s" % sorted(bad))
            exp = [r for r in exp if (int_key(r["rank"]), r[hta_group]) not in bad]
            ours = [r for r in ours if (int_key(r.get("rank")), r.get(group_col)) not in bad]
        keyg = int_key if group_col == "stream" else str_key
        compare_rows(res, exp, ours,
                     lambda row: (int_key(row["rank"]), keyg(row[hta_group])),
                     lambda row: (int_key(row.get("rank")), keyg(row.get(group_col))),
                     [(HTA_DESCRIBE[c], HTA_DESCRIBE[c], c, "int" if c == "count" else "float")
                      for c in DESCRIBE_COLS])
    return check


# Second checks of a file: (pattern, label suffix, function, checker).
EXTRA_CHECKS = [
    (r"queue_length_summary_at_ts\.csv", " (summary fn, collapse_ties)",
     "hta_queue_length_summary",
     c_summary_collapsed("hta_queue_length_summary", "stream", "stream", False)),
    (r"memory_bw_summary_at_ts\.csv", " (summary fn, collapse_ties)", "hta_memory_bw_summary",
     c_summary_collapsed("hta_memory_bw_summary", "kind", "name", True)),
]

# Files deliberately not compared (README sections 3, 6 and 9).
NOT_COMPARED = re.compile(
    r"^(queue_length_time_series_rank.*|memory_bw_time_series_rank.*|queue_length_summary\.csv|"
    r"memory_bw_summary\.csv|trace_counters_rank.*|frequent_kernel_op_candidates_rank.*|"
    r"trace_diff_.*_ops_diff\.csv|gpu_kernels_with_user_annotations.*)$")

# errors.json analysis -> queries that must run without error on our side.
ERROR_QUERIES = {
    "temporal_breakdown": [("hta_temporal_breakdown", None)],
    "gpu_kernel_breakdown": [("hta_kernel_breakdown", None), ("hta_kernel_type_breakdown", None)],
    "gpu_kernel_breakdown_all": [("hta_kernel_breakdown",
                                  {"duration_ratio": 1.0, "num_kernels": 100000})],
    "idle_time_breakdown": [("hta_idle_time_breakdown", {"consecutive_kernel_delay_us": 30}),
                            ("hta_idle_interval_stats", {"consecutive_kernel_delay_us": 30})],
    "idle_time_breakdown_delay0": [
        ("hta_idle_time_breakdown", {"consecutive_kernel_delay_us": 0}),
        ("hta_idle_interval_stats", {"consecutive_kernel_delay_us": 0})],
    "comm_comp_overlap": [("hta_comm_comp_overlap", None)],
    "cuda_kernel_launch_stats": [("hta_kernel_launch_stats", None)],
    "queue_length_time_series": [("hta_queue_length", None)],
    "queue_length_summary": [("hta_queue_length_summary", None)],
    "queue_full_blocked": [("hta_queue_full_time", None)],
    "memory_bw_time_series": [("hta_memory_bw", "bw")],
    "memory_bw_summary": [("hta_memory_bw_summary", "bw")],
    "cupti_counter_data": [("hta_cupti_counters", None)],
    "trace_diff_ranks": [("hta_trace_diff", None)],
    "trace_diff_iterations": [("hta_trace_diff", None)],
    "user_annotation_breakdown_gpu": [("hta_user_annotation_breakdown",
                                       {"use_gpu_annotation": 1})],
    "user_annotation_breakdown_cpu": [("hta_user_annotation_breakdown",
                                       {"use_gpu_annotation": 0})],
    "profiler_steps": [("hta_profiler_steps", None)],
    "potential_stragglers": [("hta_potential_stragglers", {"num_candidates": 2})],
    "aten_op_kernels_and_delay": [("hta_aten_op_kernels", None)],
}

# timings.json status "ok-empty" with no file: ours must return no rows.
EMPTY_QUERIES = {
    "queue_length_time_series": [("hta_queue_length", None)],
    "queue_length_summary": [("hta_queue_length_summary", None)],
    "memory_bw_time_series": [("hta_memory_bw", "bw")],
    "memory_bw_summary": [("hta_memory_bw_summary", "bw")],
    "user_annotation_breakdown_gpu": [("hta_user_annotation_breakdown",
                                       {"use_gpu_annotation": 1})],
    "user_annotation_breakdown_cpu": [("hta_user_annotation_breakdown",
                                       {"use_gpu_annotation": 0})],
}


def run_query(db, func, params):
    if params == "bw":
        return tvf_bw(db, func)
    return db.tvf(func, params)


# --------------------------------------------------------------------------- jobs

class Job(object):
    def __init__(self, name, folder, inputs):
        self.name, self.folder, self.inputs = name, folder, inputs


def discover_jobs(shared):
    exp = os.path.join(shared, "expected")
    jobs = []
    for j in sorted(os.listdir(exp)):
        folder = os.path.join(exp, j)
        if not os.path.isdir(folder):
            continue
        if os.path.exists(os.path.join(folder, "timings.json")):
            jobs.append(Job(j, folder, [os.path.join(shared, "corpus", j)]))
            continue
        for sub in sorted(os.listdir(folder)):   # one job per file (two_spans)
            sf = os.path.join(folder, sub)
            tj = os.path.join(sf, "timings.json")
            if not os.path.exists(tj):
                continue
            with open(tj) as fh:
                facts = json.load(fh).get("facts", {})
            files = [f["file"] for f in facts.get("d6", {}).get("files", [])]
            if not files:
                files = [c for c in os.listdir(os.path.join(shared, "corpus", j))
                         if c.startswith(sub + ".json")]
            jobs.append(Job(j + "/" + sub, sf, [os.path.join(shared, "corpus", j, f)
                                                for f in files]))
    return jobs


class Ctx(object):
    pass


def check_job(job, shared, tmp, ingest, ext, ties, skip, emit):
    """Runs every check of JOB; EMIT(result) after each (the parent reads them)."""
    m = ensure_db(job.name, job.inputs, tmp, ingest)
    if m["rc"] != 0 and not (m["rc"] > 0 and "(ingest)" in skip):
        r = FileResult(job.name, "(ingest)", "hta-ingest")
        r.notes.append("hta-ingest exit %d%s: %s" % (
            m["rc"], " (cached)" if m.get("cached") else "",
            " | ".join(m["stderr"].strip().splitlines()[-3:])[:400]))
        r.status = "skipped" if os.path.exists(m["db"]) and m["rc"] > 0 else "error"
        emit(r)
        if r.status == "error":
            return
    ctx = Ctx()
    ctx.shared, ctx.tmp, ctx.ingest = shared, tmp, ingest
    try:
        ctx.db = open_db(m["db"], ext)
    except (sqlite3.Error, QueryError, Missing) as e:
        r = FileResult(job.name, "(open)", "load_extension")
        r.status = "error"
        r.notes.append(str(e))
        emit(r)
        return
    tie_areas = ties.get(job.name, set())
    files = sorted(f for f in os.listdir(job.folder) if f.endswith(".csv"))
    for f in files:
        if f in skip or NOT_COMPARED.match(f):
            continue
        todo = [(f, func, fn) for pat, func, fn in CHECKS if re.match("^" + pat + "$", f)]
        todo += [(f + suffix, func, fn) for pat, suffix, func, fn in EXTRA_CHECKS
                 if re.match("^" + pat + "$", f)]
        if not todo:
            r = FileResult(job.name, f, "?")
            r.status = "skipped"
            r.notes.append("no mapping for this file")
            emit(r)
            continue
        for label, func, fn in todo:
            if label in skip:
                continue
            emit({"start": label, "func": func})
            r = FileResult(job.name, label, func)
            t0 = time.monotonic()
            try:
                fn(ctx, r, os.path.join(job.folder, f), f)
            except Missing as e:
                r.status = "missing"
                r.func = e.args[0]
            except NoParam as e:
                r.status = "skipped"
                r.notes.append("parameter %s does not exist: not checked" % e.args[0])
            except QueryError as e:
                r.status = "error"
                r.notes.append(str(e)[:500])
            except Exception as e:  # a bug of ours or odd data: report and continue
                r.status = "error"
                r.notes.append("%s: %s" % (type(e).__name__, str(e)[:300]))
            r.seconds = time.monotonic() - t0
            if r.status == "ok" and r.n_mismatch:
                area = [a for p, a in TIE_AREA_OF_FILE if p.match(f)]
                r.status = "tie" if area and area[0] in tie_areas else "mismatch"
                if r.status == "tie":
                    r.notes.append("README section 6 lists a tie for this job: not failing")
            emit(r)
    if BW_NOTE:
        r = FileResult(job.name, "(note)", "hta_memory_bw")
        r.status = "skipped"
        r.notes.append(BW_NOTE[0])
        emit(r)
    # errors.json: HTA raised; ours must answer without an error.
    try:
        with open(os.path.join(job.folder, "errors.json")) as fh:
            errors = json.load(fh)
    except (OSError, ValueError):
        errors = []
    for e in errors:
        a = e.get("analysis", "?")
        name = "errors.json:" + a
        if name in skip:
            continue
        qs = ERROR_QUERIES.get(a)
        if not qs:
            r = FileResult(job.name, name, "?")
            r.status = "skipped"
            r.notes.append("no SQL counterpart for this analysis")
            emit(r)
            continue
        for func, params in qs:
            emit({"start": name})
            r = FileResult(job.name, name, func)
            try:
                rows = run_query(ctx.db, func, params)
                r.cell(True)
                r.notes.append("HTA raised %s; ours: %d rows" % (e.get("exception_type"), len(rows)))
            except Missing as ex:
                r.status, r.func = "missing", ex.args[0]
            except QueryError as ex:
                r.status = "mismatch"
                r.cell(False, "ours raised where HTA raised %s: %s" % (
                    e.get("exception_type"), str(ex)[:200]))
            emit(r)
    # timings.json: ok-empty without a file -> ours returns no rows.
    try:
        with open(os.path.join(job.folder, "timings.json")) as fh:
            analyses = json.load(fh).get("analyses", {})
    except (OSError, ValueError):
        analyses = {}
    for a, info in sorted(analyses.items()):
        if info.get("status") != "ok-empty" or info.get("files") or a not in EMPTY_QUERIES:
            continue
        name = "empty:" + a
        if name in skip:
            continue
        for func, params in EMPTY_QUERIES[a]:
            emit({"start": name})
            r = FileResult(job.name, name, func)
            try:
                rows = run_query(ctx.db, func, params)
                r.cell(not rows, "HTA returned nothing; ours %d rows, first %s" % (
                    len(rows), rows[0] if rows else None))
                if rows:
                    r.status = "mismatch"
            except Missing as ex:
                r.status, r.func = "missing", ex.args[0]
            except QueryError as ex:
                r.status = "error"
                r.notes.append(str(ex)[:300])
            emit(r)


def selftest(shared):
    """Checks the helpers on HTA's own files: describe() of the *_at_ts series must give
    the *_summary_at_ts files.  Returns the FileResults."""
    out = []
    for job in discover_jobs(shared):
        for summ, prefix, group, value, positive in (
                ("queue_length_summary_at_ts.csv", "queue_length_at_ts_rank", "stream",
                 "queue_length", False),
                ("memory_bw_summary_at_ts.csv", "memory_bw_at_ts_rank", "name", "memory_bw_gbps",
                 True)):
            path = os.path.join(job.folder, summ)
            if not os.path.exists(path):
                continue
            res = FileResult(job.name, summ, "selftest")
            coll = []
            for f in sorted(os.listdir(job.folder)):
                r = rank_of(f)
                if f.startswith(prefix) and r is not None:
                    for row in read_csv(os.path.join(job.folder, f))[1]:
                        row["rank"] = r
                        coll.append(row)
            ours = summary_rows(coll, group, value, positive)
            _, exp = read_csv(path)
            compare_rows(res, exp, ours,
                         lambda row: (int_key(row["rank"]), str_key(row[group])),
                         lambda row: (int_key(row["rank"]), str_key(row[group])),
                         [(HTA_DESCRIBE[c], HTA_DESCRIBE[c], c, "int" if c == "count" else "float")
                          for c in DESCRIBE_COLS])
            if res.n_mismatch:
                res.status = "mismatch"
            out.append(res)
    return out


def worker_main(argv):
    # check_expected.py --worker NAME OUT [SKIP...]
    name, out = argv[0], argv[1]
    skip = set(argv[2:])
    shared, tmp, ingest, ext = env_paths()
    job = [j for j in discover_jobs(shared) if j.name == name][0]
    ties = parse_readme_ties(shared)
    with open(out, "a") as fh:
        def emit(r):
            d = r if isinstance(r, dict) else r.to_json()
            fh.write(json.dumps(d) + "\n")
            fh.flush()
        check_job(job, shared, tmp, ingest, ext, ties, skip, emit)
    return 0


def read_results(out):
    """(results, file being checked or None, its function) from a worker's output."""
    started, func, results = None, "?", []
    with open(out) as fh:
        for line in fh:
            if not line.endswith("\n"):
                break           # being written
            d = json.loads(line)
            if "start" in d:
                started, func = d["start"], d.get("func", "?")
                continue
            results.append(FileResult.from_json(d))
            if d["file"] == started:
                started = None
    return results, started, func


def run_job_isolated(job, tmp):
    """Runs JOB in a worker process; a file that crashes the worker, or runs longer than
    the query timeout + 30 s without returning (a C loop the progress handler cannot
    stop), is reported as an error and the worker restarts past it."""
    out = os.path.join(tmp, "expected-results", db_name(job.name) + ".jsonl")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    if os.path.exists(out):
        os.unlink(out)
    open(out, "w").close()
    errf = out + ".stderr"
    for _attempt in range(30):
        done = set(r.file for r in read_results(out)[0])
        with open(errf, "w") as ef:
            p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker", job.name,
                                  out] + sorted(done), stdout=ef, stderr=ef)
            last, t_last, hung = None, time.monotonic(), False
            while p.poll() is None:
                time.sleep(0.2)
                _, started, _ = read_results(out)
                if started != last:
                    last, t_last = started, time.monotonic()
                elif started is not None and \
                        time.monotonic() - t_last > QUERY_TIMEOUT_S + 30:
                    p.kill()
                    p.wait()
                    hung = True
        results, started, func = read_results(out)
        if p.returncode == 0 and not hung:
            return sorted(results, key=lambda x: x.file)
        r = FileResult(job.name, started or "(worker)", func if started else "?")
        r.status = "error"
        with open(errf) as ef:
            tail = ef.read().strip()[-400:]
        r.notes.append(("hung: killed after %ds" % (QUERY_TIMEOUT_S + 30)) if hung else
                       "worker died (exit %d) %s" % (p.returncode, tail))
        with open(out, "a") as fh:      # the next attempt skips it
            fh.write(json.dumps(r.to_json()) + "\n")
        if started is None:
            return sorted(results + [r], key=lambda x: x.file)
    return sorted(read_results(out)[0], key=lambda x: x.file)


# --------------------------------------------------------------------------- report

def report(all_results, verbose):
    per_func = {}
    total_files = total_cells = total_matched = 0
    missing_files = 0
    failing = []
    for r in all_results:
        is_file = r.file.endswith(".csv")
        f = per_func.setdefault(r.func, {"files": 0, "cells": 0, "matched": 0, "mismatched_files": 0,
                                         "missing": 0, "errors": 0, "tie": 0, "examples": []})
        if r.status == "missing":
            f["missing"] += 1
            if is_file:
                missing_files += 1
        elif r.status == "skipped":
            pass
        else:
            f["files"] += 1
            f["cells"] += r.cells
            f["matched"] += r.matched
            if r.status == "error":
                f["errors"] += 1
            if r.status == "mismatch":
                f["mismatched_files"] += 1
            if r.status == "tie":
                f["tie"] += 1
            if r.status in ("mismatch", "error") and len(f["examples"]) < 3:
                f["examples"].append("%s/%s: %s" % (r.job, r.file, (r.mismatches or r.notes or
                                                                   ["?"])[0]))
        if is_file and r.status not in ("skipped",):
            total_files += 1
        if r.status not in ("missing", "skipped"):
            total_cells += r.cells
            total_matched += r.matched
        if r.status in ("mismatch", "error"):
            failing.append(r)
    print("")
    print("per function:")
    print("  %-32s %6s %10s %10s %7s %6s %7s %6s" % ("function", "files", "cells", "matched",
                                                    "mism.f", "tie.f", "missing", "errors"))
    for func in sorted(per_func):
        f = per_func[func]
        if not (f["files"] or f["missing"] or f["errors"]):
            continue
        print("  %-32s %6d %10d %10d %7d %6d %7d %6d" % (func, f["files"], f["cells"], f["matched"],
                                                        f["mismatched_files"], f["tie"],
                                                        f["missing"], f["errors"]))
        for ex in f["examples"]:
            print("      e.g. %s" % ex)
    return total_files, total_cells, total_matched, missing_files, failing


def print_job(job_name, results, verbose):
    print("== %s" % job_name)
    for r in results:
        mark = {"ok": "ok  ", "mismatch": "FAIL", "tie": "tie ", "missing": "miss", "error": "ERR ",
                "skipped": "skip"}.get(r.status, r.status)
        slow = "  [%.1fs]" % r.seconds if r.seconds >= 1.0 else ""
        if not verbose and (r.status == "ok" or (r.status == "skipped" and
                                                  not r.file.startswith("("))):
            print("  %s %-48s %-30s %d/%d%s" % (mark, r.file, r.func, r.matched, r.cells, slow))
            continue
        print("  %s %-48s %-30s %d/%d%s%s" % (mark, r.file, r.func, r.matched, r.cells,
                                              ("  (%d mismatches)" % r.n_mismatch)
                                              if r.n_mismatch else "", slow))
        for n in r.notes[:4]:
            print("         note: %s" % n)
        for mm in r.mismatches[:MAX_SHOW]:
            print("         - %s" % mm)


def main(argv):
    if len(argv) > 1 and argv[1] == "--worker":
        return worker_main(argv[2:])
    verbose = "-v" in argv
    jobs_arg = [a for a in argv[1:] if not a.startswith("-")]
    nproc = 2
    for i, a in enumerate(argv):
        if a == "-j" and i + 1 < len(argv):
            nproc = int(argv[i + 1])
            jobs_arg = [x for x in jobs_arg if x != argv[i + 1]]
    shared, tmp, ingest, ext = env_paths()
    if not os.path.isdir(os.path.join(shared, "corpus")) or \
            not os.path.isdir(os.path.join(shared, "expected")):
        print("skip: no %s/corpus or expected" % shared)
        return 77
    t_self = time.monotonic()
    if "--selftest" in argv:
        st = selftest(shared)
        bad = [r for r in st if r.status != "ok"]
        for r in bad:
            print_job(r.job, [r], True)
        print("summary: selftest: %d files, %d cells compared, %d matched (%.1fs)" % (
            len(st), sum(r.cells for r in st), sum(r.matched for r in st), time.monotonic() - t_self))
        return 1 if bad else 0
    for path, what in ((ingest, "hta-ingest"), (ext, "hta.so")):
        if not os.path.exists(path):
            print("%s: %s not built" % ("FAIL" if strict() else "skip", path))
            return 1 if strict() else 77
    if not hasattr(sqlite3.Connection, "enable_load_extension") and \
            not os.environ.get("HTA_SQLITE_SHELL"):
        import shutil
        if shutil.which("sqlite3"):
            os.environ["HTA_SQLITE_SHELL"] = shutil.which("sqlite3")
            print("note: python's sqlite3 cannot load extensions; using the sqlite3 shell")
        else:
            print("%s: python's sqlite3 cannot load extensions and there is no sqlite3 shell"
                  % ("FAIL" if strict() else "skip"))
            return 1 if strict() else 77
    os.makedirs(tmp, exist_ok=True)
    t0 = time.monotonic()
    jobs = discover_jobs(shared)
    if jobs_arg:
        jobs = [j for j in jobs if j.name in jobs_arg or j.name.split("/")[0] in jobs_arg]
    # Ingest sequentially first (hta-ingest is parallel itself), then check in parallel.
    for j in jobs:
        ensure_db(j.name, j.inputs, tmp, ingest)
    t_ingest = time.monotonic() - t0
    results = {}
    import concurrent.futures as cf
    with cf.ThreadPoolExecutor(max_workers=max(1, nproc)) as pool:
        futs = {j.name: pool.submit(run_job_isolated, j, tmp) for j in jobs}
        for j in jobs:
            results[j.name] = futs[j.name].result()
            print_job(j.name, results[j.name], verbose)
    all_results = [r for j in jobs for r in results[j.name]]
    nfiles, cells, matched, nmissing, failing = report(all_results, verbose)
    missing_funcs = sorted(set(r.func for r in all_results if r.status == "missing"))
    if missing_funcs:
        print("missing functions: %s" % ", ".join(missing_funcs))
    print("time: %.1fs (ingest %.1fs)" % (time.monotonic() - t0, t_ingest))
    print("summary: expected: %d files, %d cells compared, %d matched, %d files missing a function"
          % (nfiles, cells, matched, nmissing))
    if failing:
        print("FAIL: %d file(s) mismatch or error" % len(failing))
        return 1
    if missing_funcs and strict():
        print("FAIL: HTA_STRICT=1 and functions are missing")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
