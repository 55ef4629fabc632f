#!/usr/bin/env python3
"""Corpus check of the graph replay match (ext/graph/, GM-n and GA-n) against TraceLens's
capture merge on every corpus job it ran on.

  graph.py SHARED TMP INGEST EXT [JOB...]

Per job with SHARED/expected/<job>/tlg_kernels_rank<r>.csv, the job folder (the replay and
its capture_traces/) is ingested as a user would (check_expected.ensure_db, cached in TMP).
Compared, ids and names exactly:
 1. tlg_kernels (one row per GPU event of the replay, key kernel_uid = kernel_seq) with
    hta_graph_kernels: name, graph launch (its seq), graph_pos, match, match_rule, and for
    a matched kernel the capture file, window (capture_root), dispatch position and seq
    (capture_launch_pos, capture_launch_capture_uid); the operator: op_capture_uid
    (matched) or op_uid (eager: the replay's) = op_seq, op_name, op_input_dims (Python's
    repr against our JSON, compared as values);
 2. tlg_graph_launches (key graph_launch_uid = graph_launch_seq) with hta_graph_launches:
    GPU events, their time (within 1e-9 relative), batch sizes, window, dispatches,
    multistream, rule, matched, unmatched, discarded dispatches, result;
 3. the coverage of hta_graph_coverage: the replayed and matched counts and times of the
    tlg_README's table (recomputed here from tlg_kernels).
Prints the figures per job (kernels matched / replayed, time coverage, rows equal per
file) and one line per difference; exits 1 on any difference.
"""
import ast
import csv
import glob
import json
import os
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_expected import ensure_db  # noqa: E402

csv.field_size_limit(1 << 30)
fails = []


def fail(msg):
    fails.append(msg)
    if len(fails) <= 60:
        print("FAIL " + msg)


def opt_int(v):
    return None if v in ("", None) else int(float(v))


def dims_equal(py_text, json_text):
    if py_text in ("", None) and json_text is None:
        return True
    if py_text in ("", None) or json_text is None:
        return False
    return ast.literal_eval(py_text) == json.loads(json_text)


def close(a, b, rel=1e-9):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-12)


def check_kernels(job, con, folder, rank, seq_of, file_of):
    exp = list(csv.DictReader(open(os.path.join(folder, "tlg_kernels_rank%d.csv" % rank))))
    ours = {r["kernel_seq"]: r for r in con.execute(
        "SELECT * FROM hta_graph_kernels WHERE rank = ?", (rank,))}
    equal = 0
    for e in exp:
        key = int(e["kernel_uid"])
        o = ours.pop(key, None)
        if o is None:
            fail("%s kernel %d: missing" % (job, key))
            continue
        bad = []
        if o["name"] != e["name"]:
            bad.append("name")
        launch = seq_of(o["graph_launch_event_id"]) if o["graph_launch_event_id"] else None
        if launch != opt_int(e["graph_launch_uid"]):
            bad.append("graph_launch %s != %s" % (launch, e["graph_launch_uid"]))
        if o["graph_pos"] != opt_int(e["graph_pos"]):
            bad.append("graph_pos %s != %s" % (o["graph_pos"], e["graph_pos"]))
        if o["match"] != e["match"]:
            bad.append("match %s != %s" % (o["match"], e["match"]))
        if (o["match_rule"] or "") != e["match_rule"]:
            bad.append("rule %s != %s" % (o["match_rule"], e["match_rule"]))
        if e["match"] == "matched":
            cfile = file_of(o["capture_trace_id"]) if o["capture_trace_id"] else None
            if cfile != e["capture_file"]:
                bad.append("capture_file %s != %s" % (cfile, e["capture_file"]))
            for ours_col, exp_col in (("capture_window", "capture_root"),
                                      ("capture_launch_pos", "capture_launch_pos"),
                                      ("capture_launch_seq", "capture_launch_capture_uid")):
                if o[ours_col] != opt_int(e[exp_col]):
                    bad.append("%s %s != %s" % (ours_col, o[ours_col], e[exp_col]))
            op_exp = opt_int(e["op_capture_uid"])
        else:
            op_exp = opt_int(e["op_uid"])
        if o["op_seq"] != op_exp:
            bad.append("op_seq %s != %s" % (o["op_seq"], op_exp))
        if (o["op_name"] or "") != e["op_name"]:
            bad.append("op_name %s != %s" % (o["op_name"], e["op_name"]))
        if not dims_equal(e["op_input_dims"], o["op_input_dims"]):
            bad.append("op_input_dims")
        if bad:
            fail("%s kernel %d: %s" % (job, key, "; ".join(bad)))
        else:
            equal += 1
    for key in sorted(ours):
        fail("%s kernel %d: ours only" % (job, key))
    return equal, len(exp)


def check_launches(job, con, folder, rank, seq_of):
    exp = list(csv.DictReader(open(os.path.join(folder,
                                                "tlg_graph_launches_rank%d.csv" % rank))))
    ours = {r["graph_launch_seq"]: r for r in con.execute(
        "SELECT * FROM hta_graph_launches WHERE rank = ?", (rank,))}
    equal = 0
    for e in exp:
        key = int(e["graph_launch_uid"])
        o = ours.pop(key, None)
        if o is None:
            fail("%s launch %d: missing" % (job, key))
            continue
        bad = []
        pairs = (("gpu_events", "gpu_events"), ("batch_size", "batch_size"),
                 ("capture_batch_size", "capture_batch_size"), ("capture_window", "capture_root"),
                 ("capture_dispatches", "capture_dispatches"), ("multistream", "multistream"),
                 ("matched", "matched"), ("unmatched", "unmatched"),
                 ("discarded_dispatches", "discarded_dispatches"))
        for oc, ec in pairs:
            if o[oc] != opt_int(e[ec]):
                bad.append("%s %s != %s" % (oc, o[oc], e[ec]))
        if not close(o["gpu_time_us"], float(e["gpu_time"])):
            bad.append("gpu_time %s != %s" % (o["gpu_time_us"], e["gpu_time"]))
        if (o["match_rule"] or "") != e["match_rule"]:
            bad.append("rule %s != %s" % (o["match_rule"], e["match_rule"]))
        if o["result"] != e["result"]:
            bad.append("result %s != %s" % (o["result"], e["result"]))
        root = seq_of(o["root_event_id"]) if o["root_event_id"] else None
        if root != opt_int(e["exec_root_uid"]):
            bad.append("root %s != %s" % (root, e["exec_root_uid"]))
        if bad:
            fail("%s launch %d: %s" % (job, key, "; ".join(bad)))
        else:
            equal += 1
    for key in sorted(ours):
        fail("%s launch %d: ours only" % (job, key))
    return equal, len(exp)


def check_coverage(job, con, folder, rank):
    exp = list(csv.DictReader(open(os.path.join(folder, "tlg_kernels_rank%d.csv" % rank))))
    rep = [e for e in exp if e["graph_launch_uid"]]
    mat = [e for e in rep if e["match"] == "matched" and e["op_capture_uid"]]
    row = con.execute("SELECT * FROM hta_graph_coverage WHERE rank = ?", (rank,)).fetchone()
    want = (len(rep), len(mat), sum(float(e["dur"]) for e in rep),
            sum(float(e["dur"]) for e in mat))
    got = (row["replayed"], row["matched"], row["replayed_us"], row["matched_us"])
    if got[:2] != want[:2] or not close(got[2], want[2]) or not close(got[3], want[3]):
        fail("%s coverage %s != %s" % (job, got, want))
    return row


def main():
    shared, tmp, ingest, ext = sys.argv[1:5]
    only = set(sys.argv[5:])
    jobs = sorted(os.path.basename(os.path.dirname(p)) for p in
                  glob.glob(os.path.join(shared, "expected", "*", "tlg_kernels_rank*.csv")))
    jobs = sorted(set(j for j in jobs if not only or j in only))
    if not jobs:
        print("skip: no tlg_kernels files")
        return 77
    for job in jobs:
        folder = os.path.join(shared, "expected", job)
        m = ensure_db(job, [os.path.join(shared, "corpus", job)], tmp, ingest)
        if m["rc"] not in (0,):
            fail("%s: hta-ingest exit %s: %s" % (job, m["rc"], m["stderr"][-400:]))
            continue
        con = sqlite3.connect(m["db"])
        con.row_factory = sqlite3.Row
        con.enable_load_extension(True)
        con.load_extension(ext)

        def seq_of(event_id):
            r = con.execute("SELECT seq FROM event WHERE event_id = ?", (event_id,)).fetchone()
            return r[0] if r else None

        def file_of(trace_id):
            r = con.execute("SELECT file_name FROM trace WHERE trace_id = ?",
                            (trace_id,)).fetchone()
            return os.path.basename(r[0]) if r else None

        for path in sorted(glob.glob(os.path.join(folder, "tlg_kernels_rank*.csv"))):
            rank = int(path.rsplit("rank", 1)[1].split(".")[0])
            ke, kn = check_kernels(job, con, folder, rank, seq_of, file_of)
            le, ln = check_launches(job, con, folder, rank, seq_of)
            cov = check_coverage(job, con, folder, rank)
            print("%s rank %d: kernels matched %d / replayed %d (of %d GPU events), time "
                  "coverage %.2f %% (%.3f / %.3f us); tlg_kernels %d/%d rows equal, "
                  "tlg_graph_launches %d/%d" % (job, rank, cov["matched"], cov["replayed"],
                                                cov["gpu_events"], 100 * (cov["coverage"] or 0),
                                                cov["matched_us"], cov["replayed_us"], ke, kn,
                                                le, ln))
        con.close()
    print("graph: %d difference(s)" % len(fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
