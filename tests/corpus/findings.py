#!/usr/bin/env python3
"""Corpus check of hta_findings' TensorBoard-plugin rules (ext/findings/findings_tb.c) against the plugin's
recommendations, tb_recommendations_rank<r>.csv of every expected folder.

  findings.py [JOB ...]      env: HTA_SHARED HTA_TMP HTA_INGEST HTA_EXT (check_expected.py's)

Per job (the per-file sub-jobs of kineto_resnet50_2021jun_nw4_two_spans too), one ingest into
the cache check_expected.py keeps in $HTA_TMP/corpus-db, then for each reference file and each
rule of CHECKED: the rule fires on that rank exactly when the plugin recommends it, and where
VALUE says how to read our number, it equals the recommendation's `value` (relative 1e-9) and
DEVICE its `gpus`. Every job must answer hta_findings(0) without an error.

To check another rule, add it to CHECKED (and to VALUE / DEVICE when the plugin prints a number or
a device). Prints one line per failure and a summary; exit 0 pass, 1 fail, 77 skip.

A difference from the plugin passes only when the data show that a documented deviation causes it
(explained(), counted in the summary):
  - tensor_cores_unused: the rule reads hta_tensor_core_summary, which deviates from the plugin on
    purpose (docs/deviations.md, the operator tree's quirk bits: kernels attributed to the operator
    that launched them, AMD matrix-core kernel names, ...). With every quirk put back
    (hta_tensor_core_summary(127)), the plugin's condition on those numbers must give exactly the
    plugin's recommendation and value.
  - gpu_low_utilization on a trace without any step window (GPU-only traces: the plugin's empty
    sentinel step, utilization -0.0): our hta_step_time_breakdown has no step and the GPU has no
    utilization, so there is nothing to call low.
  - hta_ns_resolution_trace's tensor-core value: the plugin's float64 times drop 63 operators of
    that trace (a float artefact): the value may differ by a relative 1e-4.
  - tracelens_mi300_ddp_resnet18: the plugin regroups that trace's backward operators and loses 10
    kernels (our tree keeps them, documented): the quirks' rule must fire as the plugin's does,
    and its value is not compared.
"""
# Jobs whose operator tree the plugin regroups (it loses operators and kernels there; we do not).
REGROUPED = {"tracelens_mi300_ddp_resnet18"}
import csv
import importlib.util
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("check_expected", os.path.join(HERE, "check_expected.py"))
ce = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ce)

# The plugin's rules hta_findings gives, and how to read the plugin's `value` and `gpus` from a row
# (ROW: rank, rule, time_us, pct_of_step, kind, evidence as text; EV: the evidence parsed), e.g.
# "dataloader": lambda row, ev: row["pct_of_step"] when the rule's pct_of_step is the plugin's share.
CHECKED = {"dataparallel", "ddp_without_nccl", "memory_near_capacity", "dataloader", "communication",
           "gpu_low_utilization", "tensor_cores_unused"}
VALUE = {"memory_near_capacity": lambda row, ev: ev.get("peak_pct"),
         "dataloader": lambda row, ev: row["pct_of_step"],
         "communication": lambda row, ev: row["pct_of_step"],
         "tensor_cores_unused": lambda row, ev: ev.get("eligible_pct")}
DEVICE = {"memory_near_capacity": lambda row, ev: (ev.get("device") or "").replace("GPU", ""),
          "dataparallel": lambda row, ev: " ".join(str(d) for d in ev.get("devices", [])),
          "gpu_low_utilization": lambda row, ev: " ".join(str(g["device"]) for g in ev.get("gpus", []))}

fails = []


def fail(msg):
    fails.append(msg)
    print("FAIL " + msg)


def query(db, ext, sql):
    p = subprocess.run(["sqlite3", "-json", "-cmd", ".load " + ext, db, sql],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(p.stderr.strip())
    return json.loads(p.stdout) if p.stdout.strip() else []


def close(a, b):
    return abs(a - b) <= max(1e-9, 1e-9 * abs(b))


n_explained = 0


def explained(db, ext, job, rank, rule, want, value=None):
    """1 when a documented deviation, checked on the data, accounts for the difference (module doc)."""
    global n_explained
    ok = False
    if rule == "tensor_cores_unused":
        if job == "hta_ns_resolution_trace" and value is not None:
            ok = abs(value - float(want["value"])) <= 1e-4 * abs(float(want["value"]))
        else:
            q = query(db, ext, "SELECT max(tensor_core_used_pct) used, max(tensor_core_eligible_pct) elig"
                               " FROM hta_tensor_core_summary(127) WHERE rank = %d" % rank)
            cc = query(db, ext, "SELECT compute_major FROM device d JOIN trace t USING (trace_id)"
                                " WHERE t.rank = %d ORDER BY d.device_id LIMIT 1" % rank)
            fires = (bool(q) and q[0]["used"] == 0 and (q[0]["elig"] or 0) > 0
                     and bool(cc) and (cc[0]["compute_major"] or 0) >= 7)
            # the plugin's float64 times move a ratio by far less than 1e-6 (the views' corpus checks)
            ok = fires == (want is not None) and (
                want is None or job in REGROUPED
                or abs(q[0]["elig"] - float(want["value"])) <= 1e-6 * float(want["value"]))
    elif rule == "gpu_low_utilization" and want is not None:
        steps = query(db, ext, "SELECT count(*) n FROM hta_step_time_breakdown WHERE rank = %d" % rank)
        util = query(db, ext, "SELECT count(gpu_utilization) n FROM hta_gpu_metrics WHERE rank = %d" % rank)
        ok = steps[0]["n"] == 0 and util[0]["n"] == 0
    if ok:
        n_explained += 1
        print("deviation: %s rank %d: %s (documented; checked on the data)" % (job, rank, rule))
    return ok


def main(argv):
    shared, tmp, ingest, ext = ce.env_paths()
    if not os.path.isdir(os.path.join(shared, "expected")) or not os.path.isdir(os.path.join(shared, "corpus")):
        print("skip: no %s/expected or corpus" % shared)
        return 77
    jobs = [j for j in ce.discover_jobs(shared) if not argv or j.name in argv or j.name.split("/")[0] in argv]
    n_files = n_checks = n_fired = 0
    for job in jobs:
        refs = sorted(f for f in os.listdir(job.folder) if f.startswith("tb_recommendations_rank"))
        if not refs:
            continue
        m = ce.ensure_db(job.name, job.inputs, tmp, ingest)
        if m["rc"] not in (0, 1):
            fail("%s: ingest failed: %s" % (job.name, m["stderr"].strip()[:200]))
            continue
        try:
            ours = query(m["db"], ext, "SELECT rank, rule, time_us, pct_of_step, kind, evidence FROM hta_findings(0)"
                                       " WHERE source = 'tb_plugin'")
        except RuntimeError as e:
            fail("%s: hta_findings: %s" % (job.name, e))
            continue
        for ref in refs:
            rank = int(ref[len("tb_recommendations_rank"):-len(".csv")])
            with open(os.path.join(job.folder, ref), newline="") as fh:
                want = {r["rule"]: r for r in csv.DictReader(fh) if r["rule"] in CHECKED}
            got = {r["rule"]: r for r in ours if r["rank"] == rank and r["rule"] in CHECKED}
            n_files += 1
            for rule in sorted(CHECKED):
                n_checks += 1
                if (rule in want) != (rule in got):
                    if explained(m["db"], ext, job.name, rank, rule, want.get(rule)):
                        continue
                    fail("%s rank %d: %s %s" % (job.name, rank, rule,
                                                "missing" if rule in want else "not in the plugin's recommendations"))
                    continue
                if rule not in want:
                    continue
                n_fired += 1
                ev = json.loads(got[rule]["evidence"])
                if rule in VALUE and want[rule]["value"] != "":
                    v = VALUE[rule](got[rule], ev)
                    if v is None or not close(float(v), float(want[rule]["value"])):
                        if v is not None and explained(m["db"], ext, job.name, rank, rule, want[rule], float(v)):
                            continue
                        fail("%s rank %d: %s value %s, plugin %s" % (job.name, rank, rule, v, want[rule]["value"]))
                if rule in DEVICE and want[rule]["gpus"] != "":
                    d = DEVICE[rule](got[rule], ev)
                    if d != want[rule]["gpus"]:
                        fail("%s rank %d: %s on %r, plugin %r" % (job.name, rank, rule, d, want[rule]["gpus"]))
    print("summary: findings: %d reference files, %d rule checks, %d recommendations matched, "
          "%d documented deviations, %d failures" % (n_files, n_checks, n_fired, n_explained, len(fails)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
