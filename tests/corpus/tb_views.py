#!/usr/bin/env python3
"""The TensorBoard plugin's Overview, GPU summary and Distributed view against its
reference files (expected/README.md section 14), cell by cell:

  tb_overview_steps_rank<r>.csv    hta_step_time_breakdown  (by step_pos: name, the eight
                                   costs, Total, the step/host/device windows, device_ops)
  tb_overview_summary_rank<r>.csv  hta_execution_summary    (by role: mean, percentage, shown)
  tb_gpu_metrics_rank<r>.csv       hta_gpu_metrics          (by gpu_id: utilization, SM
                                   efficiency, occupancy, busy time, window, device props;
                                   with tb_tensor_cores_rank<r>.csv, the tensor-core columns
                                   at plugin_quirks 127, but on tb_tree.py's NOT_TARGET jobs)
  tb_distributed_overlap.csv,      hta_distributed_overlap  (by rank and step; '' = NULL)
  tb_distributed_wait.csv
  tb_distributed_comm_ops.csv      hta_distributed_comm_ops (by rank and name)

A job without the distributed files must give no distributed rows. Tolerances (14.10):
names, counts, flags exact; a value made of n interval lengths |d| <= max(1e-6,
1e-9*|v|, 2*n*u), u the float64 spacing at the file's largest time (0 when every ts and
dur of the file is a whole us: those are exact), n bounded by the number of events that
overlap the step window (+1); ratios carry the bounds of numerator and denominator.
Documented deviations (docs/deviations.md) are counted apart, not failed: the sentinel
step of a file without host events (no step or summary rows, NULL GPU metrics).

Uses the sqlite3 shell for the functions, python's sqlite3 for raw rows, and the ingest
cache of check_expected.py. Exit 0 pass, 1 fail, 77 skip.
  tb_views.py [-v] [JOB ...]
"""
import bisect
import csv
import glob
import math
import os
import sqlite3
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_expected as ce  # noqa: E402

from critical_path import q  # noqa: E402  (the sqlite3 shell with the extension, -json)
import tb_tree as tbt  # noqa: E402  (its list of the files that are no target)

ROLES = ["Kernel", "Memcpy", "Memset", "Communication", "Runtime", "DataLoader", "CPU Exec", "Other"]
OURS = ["kernel_us", "memcpy_us", "memset_us", "communication_us", "runtime_us", "dataloader_us",
        "cpu_exec_us", "other_us"]
SENTINEL_TOTAL = "-18446744073709551615"


def num(s):
    return None if s in ("", None) else float(s)


class Check(object):
    def __init__(self, verbose):
        self.verbose, self.cells, self.fails, self.deviations = verbose, 0, [], 0

    def ok(self, cond, msg):
        self.cells += 1
        if not cond:
            self.fails.append(msg)
            if len(self.fails) <= 40 or self.verbose:
                print("FAIL " + msg)
        return cond

    def close(self, ref, ours, tol, msg):
        if ref is None or ours is None:
            return self.ok(ref is None and ours is None, "%s: ref %r ours %r" % (msg, ref, ours))
        return self.ok(abs(ref - ours) <= max(1e-6, 1e-9 * abs(ref), tol),
                       "%s: ref %r ours %r (tol %.3g)" % (msg, ref, ours, tol))


class Trace(object):
    """Raw facts of one trace file for the tolerances: its events' intervals, u."""

    def __init__(self, con, trace_id, origin_ns):
        lo, hi = trace_id << 32, (trace_id << 32) | 0xFFFFFFFF
        rows = con.execute("SELECT ts, coalesce(dur, 0) FROM event WHERE event_id BETWEEN ? AND ?"
                           " AND ph = 'X' AND ts IS NOT NULL", (lo, hi)).fetchall()
        self.starts = sorted(r[0] for r in rows)
        self.ends = sorted(r[0] + max(r[1], 0) for r in rows)
        whole = all(r[0] % 1000 == 0 and r[1] % 1000 == 0 for r in rows)
        top = max([abs(x) for x in self.ends] + [1]) / 1000.0
        self.u = 0.0 if whole else math.ulp(top)
        self.origin_us = origin_ns / 1000.0

    def n_in(self, start_us, end_us):
        """Events overlapping [start, end] (µs), + 1: bounds the runs of any role there."""
        s, e = start_us * 1000, end_us * 1000
        return bisect.bisect_right(self.starts, e) - bisect.bisect_right(self.ends, s) + 1

    def tol(self, n):
        return 2 * n * self.u


def rank_files(folder, prefix):
    out = {}
    for f in glob.glob(os.path.join(folder, prefix + "_rank*.csv")):
        out[int(f.rsplit("_rank", 1)[1][:-4])] = list(csv.DictReader(open(f)))
    return out


def check_steps(c, job, db, ext, traces, folder):
    steps_by_rank = rank_files(folder, "tb_overview_steps")
    summ_by_rank = rank_files(folder, "tb_overview_summary")
    for rank, ref in sorted(steps_by_rank.items()):
        tr = traces.get(rank)
        if not c.ok(tr is not None, "%s rank %d: no trace" % (job, rank)):
            continue
        ours = q(db, ext, "SELECT * FROM hta_step_time_breakdown WHERE rank = %d ORDER BY step_pos" % rank)
        summ = q(db, ext, "SELECT * FROM hta_execution_summary WHERE rank = %d" % rank)
        if ref and ref[0]["Total"] == SENTINEL_TOTAL:  # deviation: no step, no window
            c.ok(not ours and not summ, "%s rank %d: sentinel step gives rows" % (job, rank))
            c.deviations += 1
            continue
        if not c.ok(len(ours) == len(ref), "%s rank %d: %d steps, reference %d" % (job, rank, len(ours), len(ref))):
            continue
        tol_sum = [0.0] * 9
        for a, b in zip(ref, ours):
            where = "%s rank %d step_pos %s" % (job, rank, a["step_pos"])
            c.ok(a["Step"] == b["step"], "%s: step %s, ours %s" % (where, a["Step"], b["step"]))
            c.ok(int(a["device_ops"]) == b["device_ops"], "%s: device_ops" % where)
            tol = tr.tol(tr.n_in(float(a["step_start"]), float(a["step_end"])))
            for i, (rc, oc) in enumerate(zip(ROLES + ["Total"], OURS + ["total_us"])):
                c.close(float(a[rc]), b[oc], tol, "%s: %s" % (where, rc))
                tol_sum[i] += tol
            for rc in ("step_start", "step_end", "host_start", "host_end", "device_start", "device_end"):
                v = b[rc + "_us"]
                c.close(num(a[rc]), None if v is None else v + tr.origin_us, tr.tol(1), "%s: %s" % (where, rc))
        ref_s = {r["role"]: r for r in summ_by_rank.get(rank, [])}
        c.ok([r["role"] for r in summ] == list(ref_s), "%s rank %d: summary roles" % (job, rank))
        n = len(ref)
        total = ref_s.get("Average Step Time")
        for i, b in enumerate(summ):
            a = ref_s.get(b["role"])
            if a is None:
                continue
            where = "%s rank %d summary %s" % (job, rank, b["role"])
            tol_m = tol_sum[min(i, 8)] / n
            c.close(float(a["avg_us"]), b["mean_us"], tol_m, where + " mean")
            mt = float(total["avg_us"])
            tol_p = 100 * (tol_m + float(a["percentage"]) / 100 * tol_sum[8] / n) / mt if mt else 0
            c.close(float(a["percentage"]), b["percentage"], tol_p, where + " percentage")
            c.ok(int(a["shown"]) == b["shown"], where + " shown")


def check_gpu(c, job, db, ext, traces, folder):
    tcs = rank_files(folder, "tb_tensor_cores")
    for rank, ref in sorted(rank_files(folder, "tb_gpu_metrics").items()):
        tr = traces.get(rank)
        # plugin_quirks 127: the tensor-core columns by the plugin's own rules (the tree's
        # deviations, with 0, are tb_tree.py's to check)
        ours = {r["device"]: r for r in q(db, ext, "SELECT * FROM hta_gpu_metrics(127) WHERE rank = %d" % rank)}
        tc = (tcs.get(rank) or [None])[0]
        c.ok(sorted(ours) == sorted(int(r["gpu_id"]) for r in ref), "%s rank %d: GPUs %s" % (job, rank, sorted(ours)))
        for a in ref:
            b = ours.get(int(a["gpu_id"]))
            if b is None:
                continue
            where = "%s rank %d gpu %s" % (job, rank, a["gpu_id"])
            c.ok(int(a["kernels"]) == b["kernels"], where + " kernels")
            for rc, oc in (("name", "name"), ("compute_capability", "compute_capability")):
                c.ok((a[rc] or None) == (b[oc] or None), "%s %s: %r vs %r" % (where, rc, a[rc], b[oc]))
            c.ok(num(a["memory_bytes"]) == b["memory_bytes"], where + " memory_bytes")
            if "tensor_cores" not in tbt.NOT_TARGET.get(job.split("/")[0], ()):
                k = int(a["kernels"])
                r, den = num(a["tc_kernel_time_ratio"]), num(a["op_kernel_us"]) or 1
                c.close(None if r is None else 100 * r, b["tensor_core_kernel_pct"],
                        100 * tr.tol(k + 1) / den, where + " tensor_core_kernel_pct")
                if tc is not None:
                    r, den = num(tc["tc_eligible_ops_kernel_ratio"]), num(tc["ops_self_kernel_us"]) or 1
                    c.close(None if r is None else 100 * r, b["tensor_core_eligible_pct"],
                            100 * tr.tol(k + 1) / den, where + " tensor_core_eligible_pct")
            if a["window_us"] == SENTINEL_TOTAL:  # deviation: no window, NULL metrics
                c.ok(all(b[k] is None for k in ("gpu_utilization", "sm_efficiency", "achieved_occupancy",
                                                "kernel_time_us", "window_us")), where + " sentinel metrics")
                c.deviations += 1
                continue
            k = int(a["kernels"])
            w, tw = float(a["window_us"]), tr.tol(2)
            busy, tb = float(a["kernel_busy_us"]), tr.tol(k + 1)
            c.close(w, b["window_us"], tw, where + " window_us")
            c.close(busy, b["kernel_time_us"], tb, where + " kernel_time_us")
            c.close(float(a["gpu_utilization"]), b["gpu_utilization"], (tb + busy / w * tw) / w, where + " util")
            sm = num(a["est_sm_efficiency"])
            c.close(sm, b["sm_efficiency"], (tr.tol(2 * k + 1) + (sm or 0) * tw) / w, where + " sm_efficiency")
            occ, den = num(a["est_achieved_occupancy"]), num(a["occupancy_time_us"])
            c.close(occ, b["achieved_occupancy"], (100 + (occ or 0)) * tr.tol(k + 1) / (den or 1), where + " occupancy")


def check_distributed(c, job, db, ext, traces, folder):
    ov = q(db, ext, "SELECT * FROM hta_distributed_overlap")
    ops = q(db, ext, "SELECT * FROM hta_distributed_comm_ops")
    f_ov = os.path.join(folder, "tb_distributed_overlap.csv")
    if not os.path.exists(f_ov):
        c.ok(not ov and not ops, "%s: no Distributed view, ours has %d + %d rows" % (job, len(ov), len(ops)))
        return
    wait = {(int(r["rank"]), r["step"]): r for r in csv.DictReader(open(os.path.join(folder, "tb_distributed_wait.csv")))}
    ref = {(int(r["rank"]), r["step"]): r for r in csv.DictReader(open(f_ov))}
    got = {(r["rank"], r["step"] if r["step"] is not None else ""): r for r in ov}
    c.ok(sorted(got) == sorted(set(ref) | set(wait)), "%s: overlap keys %s vs %s" % (job, sorted(got), sorted(set(ref) | set(wait))))
    for key, b in sorted(got.items()):
        where = "%s overlap %s" % (job, key)
        tr = traces[key[0]]
        a = ref.get(key)
        tol = tr.tol(len(tr.starts) + 1) if key[1] == "all" else None
        if a is None:
            c.ok(b["computation_us"] is None, where + " overlap figures of a step the plugin has not")
        else:
            if tol is None:
                st = q(db, ext, "SELECT step_start_us s, step_end_us e FROM hta_step_time_breakdown"
                       " WHERE rank = %d AND step = '%s'" % (key[0], key[1]))
                tol = max(tr.tol(tr.n_in(x["s"] + tr.origin_us, x["e"] + tr.origin_us)) for x in st)
            for rc, oc in (("Computation", "computation_us"), ("Overlapping", "overlapping_us"),
                           ("Communication", "communication_us"), ("Other", "other_us")):
                c.close(float(a[rc]), b[oc], 2 * tol, "%s %s" % (where, rc))
        a = wait.get(key)
        nr = tr.tol(len(tr.starts) + 1)
        if a is None:
            c.ok(b["transfer_us"] is None and b["wait_us"] is None, where + " wait figures of a step the plugin has not")
        else:
            c.close(float(a["Data Transfer Time"]), b["transfer_us"], nr, where + " transfer")
            c.close(float(a["Synchronizing Time"]), b["wait_us"], 2 * nr, where + " wait")
    ref = {(int(r["rank"]), r["Name"]): r for r in csv.DictReader(open(os.path.join(folder, "tb_distributed_comm_ops.csv")))}
    got = {(r["rank"], r["name"]): r for r in ops}
    c.ok(sorted(got) == sorted(ref), "%s: comm ops keys %s vs %s" % (job, sorted(got), sorted(ref)))
    for key in sorted(set(got) & set(ref)):
        a, b = ref[key], got[key]
        where = "%s comm ops %s" % (job, key)
        tr = traces[key[0]]
        nr = tr.tol(len(tr.starts) + 1)
        c.ok(int(a["Calls"]) == b["calls"], where + " calls")
        c.ok(int(a["Total Size (bytes)"]) == b["bytes"], where + " bytes")
        c.close(float(a["Total Latency (us)"]), b["total_us"], nr, where + " total")
        c.close(float(a["Data Transfer Time (us)"]), b["transfer_us"], nr, where + " transfer")
        c.close(float(a["Total Latency (us)"]) - float(a["Data Transfer Time (us)"]), b["wait_us"], 2 * nr, where + " wait")


def main():
    args = sys.argv[1:]
    verbose = "-v" in args
    only = [a for a in args if a != "-v"]
    shared, tmp, ingest, ext = ce.env_paths()
    if not os.path.isdir(os.path.join(shared, "expected")):
        print("skip: no expected outputs")
        return 77
    c, jobs = Check(verbose), 0
    for job in ce.discover_jobs(shared):
        if only and job.name not in only:
            continue
        if not glob.glob(os.path.join(job.folder, "tb_overview_steps_rank*.csv")):
            continue
        m = ce.ensure_db(job.name, job.inputs, tmp, ingest)
        if not c.ok(os.path.exists(m["db"]) and m["rc"] == 0, "%s: ingest failed" % job.name):
            continue
        jobs += 1
        db, before = m["db"], c.cells
        con = sqlite3.connect(db)
        origin = con.execute("SELECT min(min_ts) FROM trace").fetchone()[0]
        traces = {}
        for tid, rank in con.execute("SELECT trace_id, rank FROM trace WHERE min_ts IS NOT NULL"):
            traces[rank] = Trace(con, tid, origin)
        con.close()
        try:
            check_steps(c, job.name, db, ext, traces, job.folder)
            check_gpu(c, job.name, db, ext, traces, job.folder)
            check_distributed(c, job.name, db, ext, traces, job.folder)
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            c.ok(False, "%s: %s" % (job.name, e))
        if verbose:
            print("checked %s: %d cells" % (job.name, c.cells - before))
    print("summary: tb_views: %d jobs, %d cells, %d failures, %d sentinel files (documented deviation)"
          % (jobs, c.cells, len(c.fails), c.deviations))
    return 1 if c.fails else 0


if __name__ == "__main__":
    sys.exit(main())
