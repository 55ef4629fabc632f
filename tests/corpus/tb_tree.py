#!/usr/bin/env python3
"""Corpus check of the TensorBoard plugin's GPU Kernel and Operator views and its
tensor-core figures (ext/tb/tb_stats.c, TS-n; ext/tb/tb_tree.c, TB-n) against the plugin's
files in ../shared/expected/<job>/ (expected README section 14).

  tb_tree.py [--moves] [JOB...]

Per job and rank, with plugin_quirks = 127 (the plugin's quirks reproduced), every
row and cell of tb_kernels_rank<r>.csv (hta_kernel_stats 'config'),
tb_kernels_by_name_rank<r>.csv ('name'), tb_operators_rank<r>.csv
(hta_operator_stats 'name'), tb_operators_by_shape_rank<r>.csv ('input_shape') and
tb_tensor_cores_rank<r>.csv (hta_tensor_core_summary) must match within the
tolerances of 14.10: counts, names, flags and texts exactly (grid and block as
values); a sum of n interval lengths within max(1e-6, 2 n u, 1e-9 |value|), u the
float64 spacing at the trace's times (the plugin adds float64 µs; we are exact), n =
the calls for totals and calls * 4096 for self and device times (a call's own interval,
its children's and its launches'; the most seen is 949 u per call, on
hta_mtia_trace_single_rank); a ratio within the bounds of its parts. On traces of
integer µs (u = 0) every value is equal within 1e-6 µs.
Known differences, not targets (14.10, 14.13), are listed in NOT_TARGET and only
counted: hta_ns_resolution_trace's tree (float64 ends drop 63 nodes), and the
backward regrouping of tracelens_mi300_ddp_resnet18 (the plugin loses operators; ours
keep them: every plugin row must be one of ours with at least its calls).
--moves also prints, per job and file, how many rows each deviation (a quirk bit
turned off alone, and all off = our default) moves: the table of docs/deviations.md.
Databases come from check_expected.py's cache in $HTA_TMP (one ingest per job).
Exit 0 when everything matches, 1 otherwise, 77 without ../shared.
"""
import csv
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_expected as ce  # noqa: E402

ALL = 127
BITS = [(1, "extid"), (2, "merge"), (4, "unlinked"), (8, "driver"), (16, "tc_names"),
        (32, "first_node"), (64, "op_name")]
NOT_TARGET = {
    # float64 ends move 63 children past their parents: the plugin drops them (14.10)
    "hta_ns_resolution_trace": {"kernels", "operators", "by_shape", "tensor_cores"},
    # the backward regrouping loses 45 operator nodes and 10 kernels (14.6)
    "tracelens_mi300_ddp_resnet18": {"kernels", "operators", "by_shape", "tensor_cores"},
}

fails = []
stats = {"jobs": 0, "files": 0, "rows": 0, "not target rows": 0}


def fail(msg):
    fails.append(msg)
    if len(fails) <= 60:
        print("FAIL " + msg)


def ulp(t):
    """float64 spacing at |t| µs."""
    return math.ldexp(1.0, math.frexp(abs(t))[1] - 53) if t else 0.0


def num(s):
    return None if s in ("", None) else float(s)


def close(a, b, tol):
    if a is None or b is None:
        return a is None and b is None
    return abs(float(a) - float(b)) <= tol


def sum_tol(v, n, u):
    return max(1e-6, 2.0 * n * u, 1e-9 * abs(v or 0.0))


def jlist(s):
    """A grid/block cell as a value: the plugin prints Python lists, we JSON."""
    if s in (None, "", "None"):
        return None
    return json.loads(s)


def read(folder, name):
    p = os.path.join(folder, name)
    if not os.path.exists(p):
        return None
    with open(p, newline="") as fh:
        return list(csv.DictReader(fh))


def kkey(name, op, grid, block, regs, smem):
    """A kernel group's key, ours or the plugin's: grid and block as values."""
    return (name, op, json.dumps(jlist(grid)), json.dumps(jlist(block)), int(float(regs)),
            int(float(smem)))


def both(want, ours, bad):
    """(key, reference row, our row) for the keys of both; the others go to BAD."""
    for k in set(want) | set(ours):
        if k in want and k in ours:
            yield k, want[k], ours[k]
        else:
            bad.add(k)


def kernels_by_config(db, rank, quirks):
    rows = db.sql("SELECT * FROM hta_kernel_stats WHERE group_by = 'config' AND plugin_quirks = ?"
                  " AND rank = ?", (quirks, rank))
    return {kkey(r["name"], r["operator"], r["grid"], r["block"], r["registers_per_thread"],
                 r["shared_memory"]): r for r in rows}


def kernels_by_name(db, rank, quirks):
    rows = db.sql("SELECT * FROM hta_kernel_stats WHERE group_by = 'name' AND plugin_quirks = ?"
                  " AND rank = ?", (quirks, rank))
    return {r["name"]: r for r in rows}


def operators(db, rank, quirks, by_shape):
    rows = db.sql("SELECT * FROM hta_operator_stats WHERE group_by = ? AND plugin_quirks = ?"
                  " AND rank = ?", ("input_shape" if by_shape else "name", quirks, rank))
    return {(r["name"], r["input_shape"]) if by_shape else r["name"]: r for r in rows}


def tensor_cores(db, rank, quirks):
    return db.sql("SELECT * FROM hta_tensor_core_summary WHERE plugin_quirks = ? AND rank = ?",
                  (quirks, rank))


# ------------------------------------------------------------------ comparisons

def cmp_kernels(tag, ref, ours, u, by_name):
    """Every reference row against ours; returns the keys that differ."""
    bad = set()
    want = {}
    for r in ref:
        want[r["Name"] if by_name else kkey(r["Name"], r["Operator"], r["Grid"], r["Block"],
                                             r["Register Per Thread"], r["Shared Memory"])] = r
    for k, r, x in both(want, ours, bad):
        calls = int(r["Calls"])
        ok = x["calls"] == calls and x["tensor_cores_used"] == int(
            r["Kernel Uses Tensor Cores" if not by_name else "Tensor Cores Used"])
        if not by_name:
            ok = ok and x["op_tensor_cores_eligible"] == int(r["Op is Tensor Cores eligible"])
        n = calls if not by_name else 0   # by name sums the trace's dur: exact
        for col, rc, nn in (("total_us", "Total Duration (us)", n), ("max_us", "Max Duration (us)", 1),
                            ("min_us", "Min Duration (us)", 1)):
            v = num(r[rc])
            ok = ok and close(x[col], v, sum_tol(v, nn if not by_name else 0, u))
        v = num(r["Mean Duration (us)"])
        ok = ok and close(x["mean_us"], v, sum_tol(v, 1 if not by_name else 0, u))
        mind = max(num(r["Min Duration (us)"]) or 0.0, 1e-3)
        for col, rc in (("blocks_per_sm", "Mean Blocks Per SM"),
                        ("achieved_occupancy", "Mean Est. Achieved Occupancy (%)")):
            v = num(r[rc])
            rel = 1e-9 + (0 if by_name else 4.0 * u / mind)
            ok = ok and close(x[col], v, max(1e-9, rel * abs(v or 0.0)))
        if not ok:
            bad.add(k)
    return bad, want


def cmp_operators(tag, ref, ours, u, by_shape):
    bad = set()
    want = {((r["name"], r["input_shape"]) if by_shape else r["name"]): r for r in ref}
    for k, r, x in both(want, ours, bad):
        calls = int(r["calls"])
        ok = x["calls"] == calls and x["tensor_cores_eligible"] == int(r["tc_eligible"])
        # every node sums its own interval, its children's and its runtimes': bound by
        # the row's total number of intervals, at most calls * 4096 (14.10)
        for col, rc, n in (("host_total_us", "host_total_duration", calls),
                           ("host_self_us", "host_self_duration", calls * 4096),
                           ("device_self_us", "device_self_duration", calls * 4096),
                           ("device_total_us", "device_total_duration", calls * 4096)):
            v = num(r[rc])
            ok = ok and close(x[col], v, sum_tol(v, n, u))
        for col, rc, part, whole in (("tensor_cores_self_pct", "tc_self_ratio", "tc_self_duration",
                                      "device_self_duration"),
                                     ("tensor_cores_total_pct", "tc_total_ratio", "tc_total_duration",
                                      "device_total_duration")):
            v, w = num(r[rc]), num(r[whole])
            tol = 1e-9 if not w else max(1e-9, 100.0 * 2 * 2 * calls * 4096 * u / w)
            ok = ok and close(x[col], v, tol)
        if not ok:
            bad.add(k)
    return bad, want


def cmp_tc(tag, ref, ours, u):
    if not ref:
        return
    r = ref[0]
    if not ours:
        fail("%s: tensor cores: no rows" % tag)
        return
    x = ours[0]
    used = num(r["tc_used_ratio"])
    got = x["tensor_core_used_pct"]
    if used is None:
        if got is not None:
            fail("%s: tensor_core_used_pct %s, plugin none" % (tag, got))
    elif got is None or abs(got / 100.0 - used) > 1e-9:
        fail("%s: tensor_core_used_pct %s != 100 * %s" % (tag, got, used))
    el = num(r["tc_eligible_ops_kernel_ratio"])
    den = num(r["ops_self_kernel_us"]) or 0.0
    tol = 1e-9 if not den else max(1e-9, 4.0 * int(r["bottom_eligible_nodes"] or 0) * 1000 * u / den)
    if abs(x["tensor_core_eligible_pct"] / 100.0 - el) > tol:
        fail("%s: tensor_core_eligible_pct %s != 100 * %s" % (tag, x["tensor_core_eligible_pct"], el))
    for col, rc in (("eligible_nodes", "bottom_eligible_nodes"), ("eligible_operators", "tc_eligible_operators")):
        if x[col] != int(r[rc]):
            fail("%s: %s %s != %s" % (tag, col, x[col], r[rc]))
    for col, rc in (("tc_kernel_us", "tc_kernel_us"), ("kernel_us", "kernel_us")):
        v = num(r[rc])
        if v is None and not x[col]:
            continue   # no Kernel view: the plugin writes nothing, we 0
        if not close(x[col], v, sum_tol(v, 0, 0)):
            fail("%s: %s %s != %s" % (tag, col, x[col], v))


def gpu_ratio_check(tag, folder, rank, db, quirks, u):
    ref = read(folder, "tb_gpu_metrics_rank%d.csv" % rank) or []
    ours = {x["device"]: x for x in tensor_cores(db, rank, quirks)}
    for r in ref:
        x = ours.get(int(r["gpu_id"]))
        v = num(r["tc_kernel_time_ratio"])
        got = x and x["tensor_core_kernel_pct"]
        if v is None:
            ok = got is None
        else:
            den = num(r["op_kernel_us"]) or 0.0
            ok = got is not None and abs(got / 100.0 - v) <= (1e-9 if not den else max(1e-9, 1e4 * u / den))
        if not ok:
            fail("%s: GPU %s tensor_core_kernel_pct %s, plugin ratio %s" % (tag, r["gpu_id"], got, v))


# ------------------------------------------------------------------ per job

FILES = [("kernels", "tb_kernels_rank%d.csv"), ("by_name", "tb_kernels_by_name_rank%d.csv"),
         ("operators", "tb_operators_rank%d.csv"), ("by_shape", "tb_operators_by_shape_rank%d.csv"),
         ("tensor_cores", "tb_tensor_cores_rank%d.csv")]


def ours_of(kind, db, rank, quirks):
    if kind == "kernels":
        return kernels_by_config(db, rank, quirks)
    if kind == "by_name":
        return kernels_by_name(db, rank, quirks)
    if kind == "operators":
        return operators(db, rank, quirks, False)
    if kind == "by_shape":
        return operators(db, rank, quirks, True)
    return tensor_cores(db, rank, quirks)


def compare(kind, tag, ref, ours, u):
    if kind in ("kernels", "by_name"):
        return cmp_kernels(tag, ref, ours, u, kind == "by_name")
    return cmp_operators(tag, ref, ours, u, kind == "by_shape")


def moved(a, b):
    """Keys whose rows differ between two of our outputs."""
    out = 0
    for k in set(a) | set(b):
        x, y = a.get(k), b.get(k)
        if x is None or y is None or {c: v for c, v in x.items() if c != "job"} != \
                {c: v for c, v in y.items() if c != "job"}:
            out += 1
    return out


def check_job(job, shared, tmp, ingest, ext, show_moves):
    ranks = sorted({int(f[len("tb_tensor_cores_rank"):-4]) for f in os.listdir(job.folder)
                    if f.startswith("tb_tensor_cores_rank")})
    if not ranks:
        return
    m = ce.ensure_db(job.name, job.inputs, tmp, ingest)
    if not os.path.exists(m["db"]):
        fail("%s: no database (%s)" % (job.name, m.get("stderr", "")[:200]))
        return
    db = ce.open_db(m["db"], ext)
    stats["jobs"] += 1
    top = job.name.split("/")[0]
    for rank in ranks:
        t = db.sql("SELECT max(max_end) AS e FROM trace WHERE rank = ?", (rank,))[0]["e"] or 0
        u = ulp(t / 1000.0)
        tag = "%s rank %d" % (job.name, rank)
        for kind, pat in FILES:
            ref = read(job.folder, pat % rank)
            if ref is None:
                continue
            stats["files"] += 1
            ours = ours_of(kind, db, rank, ALL)
            skip = kind in NOT_TARGET.get(top, ())
            if kind == "tensor_cores":
                if skip:
                    stats["not target rows"] += len(ref)
                else:
                    cmp_tc(tag, ref, ours, u)
                    gpu_ratio_check(tag, job.folder, rank, db, ALL, u)
                    stats["rows"] += len(ref)
                if show_moves:
                    def pcts(q):
                        return {x["device"]: x for x in tensor_cores(db, rank, q)}
                    base = pcts(ALL)
                    cells = ["%s %d" % (name, moved(base, pcts(ALL & ~bit))) for bit, name in BITS
                             if moved(base, pcts(ALL & ~bit))]
                    d = tensor_cores(db, rank, 0)
                    print("moves %s %s: %s; default used %s eligible %s kernel %s, plugin %s %s %s" % (
                        tag, kind, ", ".join(cells) or "none",
                        *[d[0][c] if d else None for c in ("tensor_core_used_pct", "tensor_core_eligible_pct",
                                                             "tensor_core_kernel_pct")],
                        *[ours[0][c] if ours else None for c in ("tensor_core_used_pct", "tensor_core_eligible_pct",
                                                                  "tensor_core_kernel_pct")]))
                continue
            bad, want = compare(kind, tag, ref, ours, u)
            if skip:
                stats["not target rows"] += len(bad)
                stats["rows"] += len(want) - len(bad)
                if top == "tracelens_mi300_ddp_resnet18":   # regrouping: ours keep more
                    for k in want:
                        if k not in ours or ours[k]["calls"] < int(want[k]["Calls" if kind == "kernels" else "calls"]):
                            fail("%s: %s %s: the plugin has more than ours" % (tag, kind, k))
                print("note %s: %s: %d of %d rows differ (not a target)" % (tag, kind, len(bad), len(want)))
            else:
                stats["rows"] += len(want)
                for k in sorted(bad, key=str)[:3]:
                    fail("%s: %s row %s: ours %s, plugin %s" % (tag, kind, k, ours.get(k), want.get(k)))
                if len(bad) > 3:
                    fail("%s: %s: %d rows differ in all" % (tag, kind, len(bad)))
            if show_moves:
                base = ours
                cells = []
                for bit, name in BITS:
                    n = moved(base, ours_of(kind, db, rank, ALL & ~bit))
                    if n:
                        cells.append("%s %d" % (name, n))
                n = moved(base, ours_of(kind, db, rank, 0))
                print("moves %s %s: %s; default %d of %d" % (tag, kind, ", ".join(cells) or "none", n,
                                                            len(want)))


def main():
    shared, tmp, ingest, ext = ce.env_paths()
    if not os.path.isdir(os.path.join(shared, "expected")):
        print("skip: no expected outputs")
        return 77
    args = sys.argv[1:]
    show = "--moves" in args
    only = [a for a in args if a != "--moves"]
    for job in ce.discover_jobs(shared):
        if only and job.name not in only and job.name.split("/")[0] not in only:
            continue
        check_job(job, shared, tmp, ingest, ext, show)
    print("summary: tb_tree: %d jobs, %d files, %d rows equal, %d rows not a target, %d failures"
          % (stats["jobs"], stats["files"], stats["rows"], stats["not target rows"], len(fails)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
