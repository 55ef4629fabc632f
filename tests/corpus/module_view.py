#!/usr/bin/env python3
"""hta_module_stats against the TensorBoard plugin's Module view (expected/README.md
section 14.14), cell by cell, on every job with a tb_module_view_rank<r>.csv (and
tb_pl_module_view_rank<r>.csv, Lightning's, where one exists):

  * rows: the reference's rows with dup = 0 (a dup > 0 row repeats its path's numbers)
    and ours (plugin_quirks = 127, the plugin's runtime attachment) have the same
    paths, matched on (rank, path); a path on one side only fails;
  * name, module_id, depth, occurrences (the plugin's `occurences`), operators: exact;
  * host_total_us, host_self_us, device_total_us, device_self_us against host_duration,
    self_host_duration, device_duration, self_device_duration: |d| <= max(1e-6,
    1e-9*|v|, 2*n*u), u the float64 spacing at the file's largest time (0 when every ts
    and dur is a whole µs: exact), n the intervals the value sums: occurrences x (1 +
    the module's direct children and runtimes), bounded here by occurrences x the
    events of the file that overlap the module's calls (tb_views.Trace.n_in).

With plugin_quirks = 0 (our default: a runtime without External id hangs under the node
whose interval holds it, not under the first nn.Module) the cells that differ from the
plugin's are counted and printed as the documented deviation (docs/deviations.md E19),
never failed. Exit 0 pass, 1 fail, 77 skip.
  module_view.py [-v] [JOB ...]
"""
import csv
import glob
import json
import os
import sqlite3
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_expected as ce  # noqa: E402
import tb_views as tv  # noqa: E402  (Check, Trace: cells and tolerances)
from critical_path import q  # noqa: E402  (the sqlite3 shell with the extension, -json)

TIMES = [("host_total_us", "host_duration"), ("host_self_us", "self_host_duration"),
         ("device_total_us", "device_duration"), ("device_self_us", "self_device_duration")]


def reference(folder):
    """{rank: [rows]} of the module view files of FOLDER (dup 0 only)."""
    out = {}
    for f in glob.glob(os.path.join(folder, "tb_module_view_rank*.csv")) + glob.glob(
            os.path.join(folder, "tb_pl_module_view_rank*.csv")):
        rank = int(f.rsplit("_rank", 1)[1][:-4])
        with open(f, newline="") as fh:
            out.setdefault(rank, []).extend(r for r in csv.DictReader(fh) if r["dup"] == "0")
    return out


def window(con, trace_id, names):
    """{(name, module id): (first start, last end) in µs} of the module calls of a trace."""
    lo, hi = trace_id << 32, (trace_id << 32) | 0xFFFFFFFF
    out = {}
    for name, mid, ts, end in con.execute(
            "SELECT s.value, json_extract(e.args, '$.\"Python module id\"'), e.ts, e.ts + e.dur FROM event e"
            " JOIN string s ON s.string_id = e.name_id JOIN category c ON c.category_id = e.category_id"
            " WHERE e.event_id BETWEEN ? AND ? AND lower(c.name) = 'python_function'"
            " AND json_extract(e.args, '$.\"Python module id\"') IS NOT NULL", (lo, hi)):
        k = (name.replace("nn.Module: ", ""), mid)
        if k in names:
            a, b = out.get(k, (ts, end))
            out[k] = (min(a, ts) / 1000.0, max(b, end) / 1000.0)
    return out


def check_job(c, job, db, ext, refs, traces, con, deviations):
    for rank, ref in sorted(refs.items()):
        tr = traces.get(rank)
        if not c.ok(tr is not None, "%s rank %d: no trace" % (job, rank)):
            continue
        ours = q(db, ext, "SELECT * FROM hta_module_stats(127) WHERE rank = %d" % rank)
        mine = {r["path"]: r for r in ours}
        theirs = {json.dumps(json.loads(r["path"]), separators=(",", ":")): r for r in ref}
        c.ok(len(mine) == len(ours), "%s rank %d: a path twice in ours" % (job, rank))
        for p in sorted(set(mine) ^ set(theirs)):
            c.ok(False, "%s rank %d path %s: only in %s" % (job, rank, p, "ours" if p in mine else "the plugin's"))
        tid = con.execute("SELECT trace_id FROM trace WHERE rank = ?", (rank,)).fetchone()[0]
        spans = window(con, tid, {(r["name"], int(r["module_id"])) for r in ref})
        for p in sorted(set(mine) & set(theirs)):
            o, r = mine[p], theirs[p]
            where = "%s rank %d %s" % (job, rank, p)
            c.ok(o["name"] == r["name"], "%s name: ref %r ours %r" % (where, r["name"], o["name"]))
            for col, ref_col in (("module_id", "module_id"), ("depth", "depth"), ("occurrences", "occurences"),
                                 ("operators", "operators")):
                c.ok(o[col] == int(r[ref_col]), "%s %s: ref %s ours %s" % (where, col, r[ref_col], o[col]))
            a, b = spans.get((r["name"], int(r["module_id"])), (0.0, 0.0))
            n = int(r["occurences"]) * tr.n_in(a, b)
            for col, ref_col in TIMES:
                c.close(tv.num(r[ref_col]), o[col], tr.tol(n), "%s %s" % (where, col))
        # our default (plugin_quirks 0): the cells that move, counted as the deviation
        plain = {x["path"]: x for x in q(db, ext, "SELECT * FROM hta_module_stats WHERE rank = %d" % rank)}
        for p in sorted(set(plain) & set(theirs)):
            for col, ref_col in TIMES:
                v, w = plain[p][col], tv.num(theirs[p][ref_col])
                if abs(v - w) > max(1e-6, 1e-9 * abs(w), tr.tol(int(theirs[p]["occurences"]) * 10 ** 6)):
                    deviations.append("%s rank %d %s %s: plugin %r, ours %r" % (job, rank, p, col, w, v))


def main():
    args = sys.argv[1:]
    verbose = "-v" in args
    only = [a for a in args if a != "-v"]
    shared, tmp, ingest, ext = ce.env_paths()
    if not os.path.isdir(os.path.join(shared, "expected")):
        print("skip: no expected outputs")
        return 77
    c, jobs, deviations = tv.Check(verbose), 0, []
    for job in ce.discover_jobs(shared):
        if only and job.name not in only:
            continue
        refs = reference(job.folder)
        if not refs:
            continue
        m = ce.ensure_db(job.name, job.inputs, tmp, ingest)
        if not c.ok(os.path.exists(m["db"]) and m["rc"] == 0, "%s: ingest failed" % job.name):
            continue
        jobs += 1
        before = c.cells
        con = sqlite3.connect(m["db"])
        origin = con.execute("SELECT min(min_ts) FROM trace").fetchone()[0]
        traces = {rank: tv.Trace(con, tid, origin)
                  for tid, rank in con.execute("SELECT trace_id, rank FROM trace WHERE min_ts IS NOT NULL")}
        try:
            check_job(c, job.name, m["db"], ext, refs, traces, con, deviations)
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            c.ok(False, "%s: %s" % (job.name, e))
        con.close()
        if verbose:
            print("checked %s: %d cells" % (job.name, c.cells - before))
    for d in deviations[: (len(deviations) if verbose else 10)]:
        print("deviation " + d)
    print("summary: module_view: %d jobs, %d cells, %d failures; plugin_quirks 0 moves %d cells (E22)"
          % (jobs, c.cells, len(c.fails), len(deviations)))
    return 1 if c.fails else 0


if __name__ == "__main__":
    sys.exit(main())
