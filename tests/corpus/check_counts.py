#!/usr/bin/env python3
"""Ingest check: every job folder of $HTA_SHARED/corpus is ingested with $HTA_INGEST
(all files of the folder in one call) and our per-file event counts are compared with
what shared/tools/describe.py counts in the raw JSON (its describe_file(), i.e. the
numbers of `describe.py --json`).

Where each trace event lands in our database (schema/schema.sql):
  ph X, i/I, B/E pair (one row), other timed phases -> event  (category_id NULL when no cat)
  ph s / t / f (flow)                                 -> flow   (with its category)
  ph C (counter)                                      -> counter (one row per args key,
                                                         same seq; no category column)
  ph M (metadata)                                     -> thread  (one row per (pid, tid):
                                                         not countable per event)

Cells, per trace file (matched by base name; several files may share a rank):
  * cat <c>: describe's cats[c] == events of category c + flow rows of category c.
    For "no category" (describe's key null) the M events are subtracted from describe's
    count first (they are never rows).  C events have no category on our side: when a file
    has C events, shortfalls that add up exactly to its C events are accepted.
  * ph X (+ B pairs), ph i, ph s/t/f, ph C (distinct counter seq), any other ph: counts.
  * trace.event_count == rows in event for the trace.
  * rank and rank_source == expected/<job>/timings.json facts.d6 (when present).
  * a file of the directory that is not a trace (no traceEvents: the execution trace of
    hta_execution_trace) must be named on stderr as skipped, hta-ingest must exit 0 (only
    --strict fails the run for it), and the other files must land; otherwise exit 0 too.
  * two files with the same rank: ingest_issue must mention the shared rank (graph captures
    excepted: a capture_traces/ folder's traces must be stored as captures of the job, with
    the batch size and mode its execution_details.json gives, and that index is no trace).
Prints per-job lines, then `summary: ingest counts: N jobs, M cells compared, K mismatches`.
Exit 0 pass, 1 fail, 77 skip.  Standard library only.
"""
import gzip
import importlib.util
import json
import os
import sqlite3
import sys
import time
from concurrent.futures import ProcessPoolExecutor

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_expected as ce  # noqa: E402  (shared ingest cache and env)

SHOW = 6


def load_describe(shared):
    p = os.path.join(shared, "tools", "describe.py")
    spec = importlib.util.spec_from_file_location("hta_describe", p)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_DESCRIBE = None


def describe_one(args):
    shared, path = args
    global _DESCRIBE
    if _DESCRIBE is None:
        _DESCRIBE = load_describe(shared)
    d = _DESCRIBE.describe_file(path)
    d["path"] = path
    # describe does not say whether the traceEvents key exists: decide it for empty files
    d["is_trace"] = True
    if d.get("error") is None and d.get("n_events", 0) == 0:
        try:
            op = gzip.open if path.lower().endswith(".gz") else open
            with op(path, "rb") as fh:
                doc = json.loads(fh.read())
            d["is_trace"] = isinstance(doc, list) or (isinstance(doc, dict) and
                                                      "traceEvents" in doc)
        except (OSError, ValueError, EOFError):
            d["is_trace"] = False
    elif d.get("error"):
        d["is_trace"] = False
    return d


class Job(object):
    def __init__(self, name):
        self.name = name
        self.cells = 0
        self.bad = []

    def cell(self, ok, what):
        self.cells += 1
        if not ok:
            self.bad.append(what)


def cat_key(c):
    return "(none)" if c is None or c == "null" else c


def check_job(job, files, shared, tmp, ingest, d6):
    inputs = [os.path.join(shared, "corpus", job.name)]
    m = ce.ensure_db(job.name, inputs, tmp, ingest)
    # a capture_traces/ folder (TraceLens's layout of a graph replay job): its
    # execution_details.json is the capture index, its traces are the job's captures
    index = [f for f in files if is_capture_index(f)]
    files = [f for f in files if not is_capture_index(f)]
    nontrace = [f for f in files if not f["is_trace"]]
    err = m["stderr"]
    if nontrace:
        job.cell(m["rc"] == 0, "hta-ingest exit %d, expected 0 (not a trace, skipped: %s)" % (
            m["rc"], ", ".join(f["file"] for f in nontrace)))
        for f in nontrace:
            job.cell(f["file"] + ": skipped: " in err,
                     "stderr does not name %s as skipped: %r" % (f["file"], err[-300:]))
    else:
        job.cell(m["rc"] == 0, "hta-ingest exit %d: %s" % (m["rc"], err.strip()[-300:]))
    if not os.path.exists(m["db"]):
        job.cell(False, "no database written")
        return
    con = sqlite3.connect(m["db"])
    try:
        traces = {}
        for tid, rank, src, fname, evc in con.execute(
                "SELECT trace_id, rank, rank_source, file_name, event_count FROM trace"):
            traces.setdefault(os.path.basename(fname), []).append((tid, rank, src, evc))
    except sqlite3.Error as e:
        job.cell(False, "cannot read trace table: %s" % e)
        return
    for f in nontrace:
        job.cell(f["file"] not in traces, "%s (not a trace) has a trace row" % f["file"])
    captured = dict((os.path.basename(p), (bs, mode)) for p, bs, mode in con.execute(
        "SELECT t.file_name, c.batch_size, c.mode FROM capture c JOIN trace t USING (trace_id)"))
    for f in index:
        job.cell(f["file"] not in traces, "%s (the capture index) has a trace row" % f["file"])
        with open(f["path"]) as fh:
            for e in json.load(fh):
                got = captured.get(e.get("file"))
                job.cell(got == (e.get("batch_size"), e.get("mode")),
                         "%s: capture %s stored as %s, the index says batch %s, mode %s" % (
                             f["file"], e.get("file"), got, e.get("batch_size"), e.get("mode")))
    for f in files:
        if f["is_trace"] and in_capture_dir(f):
            job.cell(f["file"] in captured, "%s: not stored as a capture" % f["file"])
    ranks = {}
    for f in files:
        if not f["is_trace"]:
            continue
        t = traces.get(f["file"])
        if not t:
            job.cell(False, "%s: no trace row (file did not land)" % f["file"])
            continue
        if len(t) > 1:
            job.cell(False, "%s: %d trace rows" % (f["file"], len(t)))
        tid, rank, src, evc = t[0]
        ranks.setdefault(rank, []).append(f["file"])
        check_file(job, con, f, tid, evc)
        exp = d6.get(f["file"])
        if exp:
            job.cell(rank == exp["rank"], "%s: rank %s, expected %s (%s)" % (
                f["file"], rank, exp["rank"], exp["rank_source"]))
            job.cell(src == exp["rank_source"], "%s: rank_source %s, expected %s" % (
                f["file"], src, exp["rank_source"]))
    for f in files:  # captures share their replay's rank by design: no shared_rank
        if in_capture_dir(f) and f["file"] in traces:
            ranks.get(traces[f["file"]][0][1], []).remove(f["file"])
    for rank, fl in ranks.items():
        if len(fl) > 1:
            n = con.execute("SELECT count(*) FROM ingest_issue WHERE code LIKE '%rank%' "
                            "OR message LIKE '%rank%'").fetchone()[0]
            job.cell(n > 0, "files %s share rank %s but ingest_issue says nothing" % (fl, rank))
    con.close()


def in_capture_dir(f):
    return os.path.basename(os.path.dirname(f["path"])) == "capture_traces"


def is_capture_index(f):
    return in_capture_dir(f) and f["file"] == "execution_details.json"


def check_file(job, con, f, tid, evc):
    fn = f["file"]
    q = lambda sql: con.execute(sql, (tid,)).fetchall()
    ev_cat = dict((cat_key(c), n) for c, n in q(
        "SELECT c.name, count(*) FROM event e LEFT JOIN category c USING(category_id) "
        "WHERE e.trace_id = ? GROUP BY 1"))
    fl_cat = dict((cat_key(c), n) for c, n in q(
        "SELECT c.name, count(*) FROM flow f LEFT JOIN category c USING(category_id) "
        "WHERE f.trace_id = ? GROUP BY 1"))
    ev_ph = dict(q("SELECT ph, count(*) FROM event WHERE trace_id = ? GROUP BY 1"))
    fl_ph = dict(q("SELECT ph, count(*) FROM flow WHERE trace_id = ? GROUP BY 1"))
    n_counter = q("SELECT count(DISTINCT seq) FROM counter WHERE trace_id = ?")[0][0]
    n_event = q("SELECT count(*) FROM event WHERE trace_id = ?")[0][0]
    phs = f.get("phs") or {}
    cats = dict((cat_key(c), n) for c, n in (f.get("cats") or {}).items())
    # categories
    n_m, n_c = phs.get("M", 0), phs.get("C", 0)
    short = []
    for c in sorted(set(cats) | set(ev_cat) | set(fl_cat)):
        want = cats.get(c, 0) - (n_m if c == "(none)" else 0)
        have = ev_cat.get(c, 0) + fl_cat.get(c, 0)
        if want != have and n_c and want > have:
            short.append((c, want, have))
            continue
        job.cell(want == have, "%s cat %s: ours %d (event %d + flow %d), describe %d%s" % (
            fn, c, have, ev_cat.get(c, 0), fl_cat.get(c, 0), want,
            " (M events subtracted)" if c == "(none)" and n_m else ""))
    if short:
        total = sum(w - h for _, w, h in short)
        for c, w, h in short:
            job.cell(total == n_c, "%s cat %s: ours %d, describe %d (C events: %d)" % (
                fn, c, h, w, n_c))
    # phases
    done = set(["M"])
    want_x = phs.get("X", 0) + phs.get("B", 0)
    job.cell(ev_ph.get("X", 0) == want_x, "%s ph X: ours %d, describe X %d + B %d" % (
        fn, ev_ph.get("X", 0), phs.get("X", 0), phs.get("B", 0)))
    done |= set(["X", "B", "E"])
    want_i = phs.get("i", 0) + phs.get("I", 0)
    have_i = ev_ph.get("i", 0) + ev_ph.get("I", 0)
    job.cell(have_i == want_i, "%s ph i: ours %d, describe %d" % (fn, have_i, want_i))
    done |= set(["i", "I"])
    for ph in ("s", "t", "f"):
        job.cell(fl_ph.get(ph, 0) == phs.get(ph, 0), "%s ph %s: ours %d (flow), describe %d" % (
            fn, ph, fl_ph.get(ph, 0), phs.get(ph, 0)))
        done.add(ph)
    job.cell(n_counter == n_c, "%s ph C: ours %d (counter seqs), describe %d" % (
        fn, n_counter, n_c))
    done.add("C")
    for ph in sorted(set(phs) - done, key=str):
        job.cell(ev_ph.get(ph, 0) == phs[ph], "%s ph %s: ours %d, describe %d" % (
            fn, ph, ev_ph.get(ph, 0), phs[ph]))
    job.cell(evc == n_event, "%s trace.event_count %s != %d event rows" % (fn, evc, n_event))


def main(argv):
    shared, tmp, ingest, _ext = ce.env_paths()
    corpus = os.path.join(shared, "corpus")
    if not os.path.isdir(corpus):
        print("skip: no %s" % corpus)
        return 77
    if not os.path.exists(ingest):
        print("%s: %s not built" % ("FAIL" if ce.strict() else "skip", ingest))
        return 1 if ce.strict() else 77
    os.makedirs(tmp, exist_ok=True)
    t0 = time.monotonic()
    only = [a for a in argv[1:] if not a.startswith("-")]
    jobs = sorted(d for d in os.listdir(corpus)
                  if os.path.isdir(os.path.join(corpus, d)) and not d.startswith("."))
    if only:
        jobs = [j for j in jobs if j in only]
    desc = load_describe(shared)
    work = []
    for j in jobs:
        for p in desc.trace_files(os.path.join(corpus, j)):
            work.append((shared, p))
    # describe (CPU bound, parallel) while the jobs are ingested one after another
    with ProcessPoolExecutor(max_workers=max(1, min(4, os.cpu_count() or 1))) as pool:
        futs = [pool.submit(describe_one, w) for w in work]
        for j in jobs:
            ce.ensure_db(j, [os.path.join(corpus, j)], tmp, ingest)
        described = [fu.result() for fu in futs]
    by_job = {}
    for d in described:
        j = os.path.relpath(d["path"], corpus).split(os.sep)[0]
        by_job.setdefault(j, []).append(d)
    total_cells = total_bad = 0
    failed = []
    for j in jobs:
        d6 = {}
        tj = os.path.join(shared, "expected", j, "timings.json")
        if os.path.exists(tj):
            with open(tj) as fh:
                for f in json.load(fh).get("facts", {}).get("d6", {}).get("files", []):
                    d6[f["file"]] = f
        job = Job(j)
        try:
            check_job(job, by_job.get(j, []), shared, tmp, ingest, d6)
        except Exception as e:  # report and continue
            job.cell(False, "%s: %s" % (type(e).__name__, e))
        total_cells += job.cells
        total_bad += len(job.bad)
        print("%s %-52s %4d cells, %d mismatches" % ("ok  " if not job.bad else "FAIL", j,
                                                      job.cells, len(job.bad)))
        for b in job.bad[:SHOW]:
            print("       - %s" % b)
        if job.bad:
            failed.append(j)
    print("time: %.1fs" % (time.monotonic() - t0))
    print("summary: ingest counts: %d jobs, %d cells compared, %d mismatches"
          % (len(jobs), total_cells, total_bad))
    return 1 if total_bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
