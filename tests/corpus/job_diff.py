#!/usr/bin/env python3
"""Corpus check of the structural diff (ext/diff/job_diff.c, JD-n) against AMD TraceLens's
TraceDiff on the reference pair, and of the step-difference summary's exact sums.

  job_diff.py SHARED TMP INGEST EXT

The pair: SHARED/expected/tracediff_<A>_vs_<B>/tld_*.csv, control = corpus job A,
test = corpus job B, both ingested into one database (check_expected.ensure_db).
Compared (keys and tolerances of the expected README 17.5):
 1. tld_nodes.csv, every merged node, keyed by (uid1, uid2, merged_type) with the
    parent's (uid1, uid2): our hta_job_diff row with (control_seq, test_seq, match) and
    the parent row's seqs. Also node_id = merged_id, names_match = (match = 'matched'),
    and per side n_gpu_events, kernel_time (summed dur) and busy_time (union) within
    1e-6 us.
 2. tld_lca_summary.csv, every comparison point (lca_uid1, lca_uid2, lca_merged_type):
    our point with is_comparison_point, its kernel busy time per side within 1e-3 us
    (TraceLens rounds to 3 decimals) and its GPU event count per side.
 3. tld_diff_stats.csv, every row (source, gpu_op_uid): the GPU event is in our
    point_seqs at the node of its lowest_common_ancestor_id's (uid1, uid2); and every
    GPU event of our points is a row there (no extra).
 4. tld_ops.csv (per nearest cpu_op name): our hta_job_diff_summary 'operator' rows
    summed over the steps give the same kernel counts and times.
 5. hta_job_diff_summary on every pair of the corpus pairs below: the parts of each
    split ('role', 'idle': job_diff_account.c JSA-3) add up exactly (integer ns) to the
    step difference (the 'role' split's step row), each side's to its step.
Prints the match figures ("summary: ...") and one line per failure; exits 1 on any.
"""
import csv
import json
import os
import sqlite3
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_expected import ensure_db  # noqa: E402

csv.field_size_limit(1 << 30)
PAIR = ("tracelens_h100_owlv2", "tracelens_mi300_owlv2")
# Other pairs whose summary parts must add up (HTA's own diff traces, flow-less).
SUM_PAIRS = [PAIR, ("hta_trace_diff_control", "hta_trace_diff_test")]
TYPES = {"combined": None, "trace1": "control_only", "trace2": "test_only"}

fails = []


def fail(msg):
    fails.append(msg)
    if len(fails) <= 40:
        print("FAIL " + msg)


def key_int(v):
    return int(v) if v not in ("", None) else None


def main():
    shared, tmp, ingest, ext = sys.argv[1:5]
    exp = os.path.join(shared, "expected", "tracediff_%s_vs_%s" % PAIR)
    if not os.path.isdir(exp):
        print("skip: no %s" % exp)
        return 77
    jobs = sorted({j for p in SUM_PAIRS for j in p})
    inputs = [os.path.join(shared, "corpus", j) for j in jobs]
    if not all(os.path.isdir(i) for i in inputs):
        print("skip: a corpus job of the pairs is missing")
        return 77
    m = ensure_db("job_diff_pairs", inputs, tmp, ingest)
    if m["rc"] != 0:
        fail("ingest failed: %s" % m["stderr"][-400:])
        return 1
    db = sqlite3.connect(m["db"])
    db.enable_load_extension(True)
    db.load_extension(ext)
    db.row_factory = sqlite3.Row

    rows = db.execute("SELECT * FROM hta_job_diff(?, ?)", PAIR).fetchall()
    by_id = {r["node_id"]: r for r in rows}

    def side_key(r):
        if r is None:
            return (None, None)
        return (r["control_seq"], r["test_seq"])

    ours = {}
    for r in rows:
        typ = "combined" if r["match"] in ("matched", "renamed") else \
            ("trace1" if r["match"] == "control_only" else "trace2")
        parent = by_id.get(r["parent_node_id"]) if r["parent_node_id"] is not None else None
        ours[(r["control_seq"], r["test_seq"], typ, side_key(parent))] = r

    # 1. nodes
    nodes = list(csv.DictReader(open(os.path.join(exp, "tld_nodes.csv"))))
    tl_by_id = {n["merged_id"]: n for n in nodes}
    equal = same_id = times_ok = 0
    for n in nodes:
        p = tl_by_id.get(n["parent_merged_id"]) if n["parent_merged_id"] else None
        pk = (key_int(p["uid1"]), key_int(p["uid2"])) if p else (None, None)
        k = (key_int(n["uid1"]), key_int(n["uid2"]), n["merged_type"], pk)
        r = ours.get(k)
        if r is None:
            fail("node %s %s not matched as TraceDiff does" % (n["merged_id"], k))
            continue
        equal += 1
        same_id += int(n["merged_id"]) == r["node_id"]
        if n["merged_type"] == "combined" and (n["names_match"] == "1") != (r["match"] == "matched"):
            fail("node %s: names_match %s, ours %s" % (n["merged_id"], n["names_match"], r["match"]))
        ok = True
        for side, pre in (("1", "control"), ("2", "test")):
            if n["uid" + side] == "":
                continue
            if int(n["n_gpu_events" + side]) != r[pre + "_kernels"]:
                ok = False
                fail("node %s: n_gpu_events%s %s, ours %s" % (n["merged_id"], side,
                     n["n_gpu_events" + side], r[pre + "_kernels"]))
            for col, ourcol in (("kernel_time%s_us", "_kernel_us"), ("busy_time%s_us", "_busy_us")):
                want = float(n[col % side])
                if abs(want - r[pre + ourcol]) > 1e-6:
                    ok = False
                    fail("node %s: %s %s, ours %s" % (n["merged_id"], col % side, want,
                         r[pre + ourcol]))
        times_ok += ok
    extra = len(rows) - equal

    # 2. comparison points
    lcas = list(csv.DictReader(open(os.path.join(exp, "tld_lca_summary.csv"))))
    pts = {(r["control_seq"], r["test_seq"]): r for r in rows if r["is_comparison_point"]}
    lca_equal = lca_time = 0
    for a in lcas:
        k = (key_int(a["lca_uid1"]), key_int(a["lca_uid2"]))
        r = pts.get(k)
        if r is None:
            fail("comparison point %s %s missing" % (a["lowest_common_ancestor_id"], k))
            continue
        lca_equal += 1
        ok = True
        for side, pre in (("1", "control"), ("2", "test")):
            want, n = float(a["kernel_time_trace%s_us" % side]), int(a["num_kernels_trace%s" % side])
            if abs(want - r["point_%s_us" % pre]) > 1e-3 or n != r["point_%s_kernels" % pre]:
                ok = False
                fail("point %s: trace%s %s us (%d), ours %s us (%d)" % (
                    a["lowest_common_ancestor_id"], side, want, n, r["point_%s_us" % pre],
                    r["point_%s_kernels" % pre]))
        lca_time += ok
    extra_pts = len(pts) - lca_equal

    # 3. diff_stats rows
    ds = list(csv.DictReader(open(os.path.join(exp, "tld_diff_stats.csv"))))
    ours_rows = set()
    for r in pts.values():
        js = json.loads(r["point_seqs"])
        for side, src in (("control", "trace1"), ("test", "trace2")):
            for s in js[side]:
                ours_rows.add((src, s, r["control_seq"], r["test_seq"]))
    theirs = set()
    for d in ds:
        lca = tl_by_id.get(d["lowest_common_ancestor_id"])
        k = (key_int(lca["uid1"]), key_int(lca["uid2"])) if lca else (None, None)
        theirs.add((d["source"], int(d["gpu_op_uid"]), k[0], k[1]))
    rows_equal = len(theirs & ours_rows)
    for t in sorted(theirs - ours_rows, key=str)[:10]:
        fail("diff_stats row %s not at that comparison point here" % (t,))
    for t in sorted(ours_rows - theirs, key=str)[:10]:
        fail("our row %s is no diff_stats row" % (t,))

    # 4. per operator (tld_ops) from the summary operator rows
    ops_equal = ops_total = 0
    steps = {}
    for r in db.execute("SELECT part, control_count, test_count FROM hta_job_diff_summary(?, ?)"
                        " WHERE split = 'role' AND part = 'step'", PAIR):
        steps = {"control": r["control_count"], "test": r["test_count"]}
    op_rows = {r["part"]: r for r in db.execute(
        "SELECT * FROM hta_job_diff_summary(?, ?) WHERE split = 'operator'", PAIR)}
    for o in csv.DictReader(open(os.path.join(exp, "tld_ops.csv"))):
        ops_total += 1
        r = op_rows.get(o["cpu_op_name"])
        if r is None:
            fail("operator %s missing from the summary" % o["cpu_op_name"])
            continue
        ok = True
        for side, pre in (("1", "control"), ("2", "test")):
            want_n = int(o["kernels_trace%s" % side] or 0)
            want_us = float(o["kernel_time_trace%s_us" % side] or 0)
            got_us = r["%s_us" % pre] * max(steps[pre], 1)
            if want_n != (r["%s_count" % pre] or 0) or abs(want_us - got_us) > 1e-3 * max(1, want_n):
                ok = False
                fail("operator %s trace%s: %d kernels %.3f us, ours %s kernels %.3f us" % (
                    o["cpu_op_name"], side, want_n, want_us, r["%s_count" % pre], got_us))
        ops_equal += ok

    # 5. exact sums on every pair
    sums_ok = sums = 0
    for a, b in SUM_PAIRS:
        by_split = defaultdict(list)
        for r in db.execute("SELECT * FROM hta_job_diff_summary(?, ?)", (a, b)):
            by_split[r["split"]].append(r)
        step = [r for r in by_split.get("role", []) if r["part"] == "step"]
        if not step:
            fail("%s vs %s: no step row" % (a, b))
            continue
        if "idle" not in by_split:
            fail("%s vs %s: no idle split" % (a, b))
        for split, parts in by_split.items():
            if split in ("operator", "finding"):
                continue
            # every split adds up to the one step difference (the 'role' split's step row)
            t = step[0]
            rest = [r for r in parts if r["part"] != "step"]
            sums += 1
            good = (sum(r["control_ns"] for r in rest) == t["control_ns"] and
                    sum(r["test_ns"] for r in rest) == t["test_ns"] and
                    sum(r["delta_ns"] for r in rest) == t["delta_ns"] == t["test_ns"] - t["control_ns"])
            sums_ok += good
            if not good:
                fail("%s vs %s: the %s parts do not add up to the step difference" % (a, b, split))

    print("summary: job_diff %s vs %s: node pairs equal %d / %d (%d of ours extra; node_id = "
          "merged_id %d; GPU counts and times equal %d); comparison points equal %d / %d "
          "(kernel times equal %d; %d of ours extra); diff_stats rows equal %d / %d (ours %d); "
          "operators equal %d / %d; summary splits adding up exactly %d / %d" % (
              PAIR[0], PAIR[1], equal, len(nodes), extra, same_id, times_ok, lca_equal, len(lcas),
              lca_time, extra_pts, rows_equal, len(theirs), len(ours_rows), ops_equal, ops_total,
              sums_ok, sums))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
