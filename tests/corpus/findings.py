#!/usr/bin/env python3
"""Corpus check of hta_findings' TensorBoard-plugin rules (ext/findings_tb.c) against the plugin's
recommendations, tb_recommendations_rank<r>.csv of every expected folder.

  findings.py [JOB ...]      env: HTA_SHARED HTA_TMP HTA_INGEST HTA_EXT (check_expected.py's)

Per job (the per-file sub-jobs of kineto_resnet50_2021jun_nw4_two_spans too), one ingest into
the cache check_expected.py keeps in $HTA_TMP/corpus-db, then for each reference file and each
rule of CHECKED: the rule fires on that rank exactly when the plugin recommends it, and where
VALUE says how to read our number, it equals the recommendation's `value` (relative 1e-9) and
DEVICE its `gpus`. Every job must answer hta_findings(0) without an error.

To check another rule, add it to CHECKED (and to VALUE / DEVICE when the plugin prints a number or
a device). Prints one line per failure and a summary; exit 0 pass, 1 fail, 77 skip.
"""
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
# (ROW: rank, rule, time_us, pct_of_step, count, evidence as text; EV: the evidence parsed), e.g.
# "dataloader": lambda row, ev: row["pct_of_step"] when the rule's pct_of_step is the plugin's share.
CHECKED = {"dataparallel", "ddp_without_nccl", "memory_near_capacity"}
VALUE = {"memory_near_capacity": lambda row, ev: ev.get("peak_pct")}
DEVICE = {"memory_near_capacity": lambda row, ev: (ev.get("device") or "").replace("GPU", ""),
          "dataparallel": lambda row, ev: " ".join(str(d) for d in ev.get("devices", []))}

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
            ours = query(m["db"], ext, "SELECT rank, rule, time_us, pct_of_step, count, evidence FROM hta_findings(0)"
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
                        fail("%s rank %d: %s value %s, plugin %s" % (job.name, rank, rule, v, want[rule]["value"]))
                if rule in DEVICE and want[rule]["gpus"] != "":
                    d = DEVICE[rule](got[rule], ev)
                    if d != want[rule]["gpus"]:
                        fail("%s rank %d: %s on %r, plugin %r" % (job.name, rank, rule, d, want[rule]["gpus"]))
    print("summary: findings: %d reference files, %d rule checks, %d recommendations matched, %d failures"
          % (n_files, n_checks, n_fired, len(fails)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
