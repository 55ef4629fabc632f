#!/usr/bin/env python3
"""hta_findings on generated jobs with planted problems (tools/gen_trace.py).

  findings_planted.py WORK_DIR      env: HTA_INGEST, HTA_EXT (absolute), HTA_TOOLS (tools/)

Each case generates a small job with one problem planted every step, on top of --healthy, and
checks that the rule meant for it fires on every rank it was planted on, and only there, with a
cost within 25% of what fixing it recovers (the generator's --planted record: the compute stream's
idle time the plant causes, or the planted kernel time; the mean over the steps hta_findings
analyses); and that a healthy job gives no finding of hta-sqlite's above 1% of a step but its
summary (no false alarm). Exit 0 pass, 1 fail.
"""
import json
import os
import subprocess
import sys

TOLERANCE = 0.25

work = sys.argv[1]
ingest, ext, tools = os.environ["HTA_INGEST"], os.environ["HTA_EXT"], os.environ["HTA_TOOLS"]
fails = []


def fail(msg):
    fails.append(msg)
    print("FAIL " + msg)


def query(db, sql):
    out = subprocess.run(["sqlite3", "-json", "-cmd", ".load " + ext, db, sql],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out) if out.strip() else []


def job(name, *opts):
    """Generates, ingests; returns (db, the planted record)."""
    d, db, pl = (os.path.join(work, name + s) for s in ("", ".db", ".json"))
    subprocess.run([sys.executable, os.path.join(tools, "gen_trace.py"), d, "-q", "--planted", pl] + list(opts),
                   check=True)
    subprocess.run([ingest, "-q", db, d], check=True)
    with open(pl) as fh:
        return db, json.load(fh)


def analysed_steps(db):
    steps = {}
    for r in query(db, "SELECT rank, step FROM hta_profiler_steps"):
        steps.setdefault(r["rank"], []).append(r["step"])
    return steps


def planted_cost(pl, rank, steps, key):
    """The planted cost per analysed (typical) step, µs."""
    if key == "straggler_wait_us":
        vals = [pl["straggler_wait_us"].get(str(s), 0.0) for s in steps]
    else:
        vals = [pl["ranks"][str(rank)].get(str(s), {}).get(key, 0.0) for s in steps]
    return sum(vals) / len(vals)


def typical_steps(db):
    """Per rank, the steps the findings' per-step figures average (the summary's outliers left out)."""
    out = {}
    for r in query(db, "SELECT rank, evidence FROM hta_findings(0) WHERE rule = 'step'"):
        out[r["rank"]] = set(json.loads(r["evidence"])["outlier_steps"])
    return out


def check_rule(name, rule, key, ranks, *opts):
    db, pl = job(name, *opts)
    steps = analysed_steps(db)
    outliers = typical_steps(db)
    got = {r["rank"]: r for r in query(db, "SELECT rank, time_us, pct_of_step FROM hta_findings(0) WHERE rule = '%s'"
                                           " AND source = 'hta-sqlite'" % rule)}
    for rank in ranks:
        mine = [s for s in steps[rank] if s not in outliers.get(rank, set())] or steps[rank]
        want = planted_cost(pl, rank, mine, key)
        if rank not in got:
            fail("%s: %s did not fire on rank %d (planted %.1f us per step)" % (name, rule, rank, want))
            continue
        t = got[rank]["time_us"]
        ok = want > 0 and abs(t - want) <= TOLERANCE * want
        print("%s %s rank %d: %.1f us per step (%.2f%% of the step), planted %.1f: %s"
              % ("ok  " if ok else "FAIL", rule, rank, t, got[rank]["pct_of_step"], want,
                 "%+.1f%%" % (100.0 * (t - want) / want) if want else "-"))
        if not ok:
            fails.append("%s: %s rank %d" % (name, rule, rank))
    return db


# A healthy job: none of our rules at the default 1% of a step, on NVIDIA and AMD, one rank or four.
for name, opts in (("healthy2", ["--ranks", "2", "--steps", "4"]),
                   ("healthy4ns", ["--ranks", "4", "--steps", "3", "--layers", "3", "--ns", "--python", "--seed", "7"]),
                   ("healthy1amd", ["--ranks", "1", "--steps", "3", "--amd"])):
    db, _ = job(name, "--healthy", *opts)
    rows = query(db, "SELECT rank, rule, pct_of_step FROM hta_findings WHERE source = 'hta-sqlite' AND kind <> 'summary'")
    if rows:
        fail("%s: %s" % (name, ", ".join("%s rank %s %.2f%%" % (r["rule"], r["rank"], r["pct_of_step"]) for r in rows)))
    else:
        print("ok   %s: no finding of ours" % name)

# One planted problem each: the rule's time is what fixing it recovers (within 25%).
H = ["--healthy", "--steps", "4"]
check_rule("syncs", "host_sync", "host_sync_us", [0, 1], *H, "--ranks", "2", "--item-syncs", "4")
check_rule("pageable", "blocking_copy", "pageable_us", [0], *H, "--ranks", "1", "--pageable-copies", "3")
check_rule("churn", "allocator_churn", "alloc_us", [0], *H, "--ranks", "1", "--malloc-churn", "60")
# tiny kernels need a host-bound step (a small model): the GPU runs dry between launches
check_rule("tiny", "gpu_waits_for_host", "host_wait_us", [0], *H, "--ranks", "1", "--tokens", "8192",
           "--tiny-kernels", "2500")
check_rule("exposed", "exposed_communication", "exposed_comm_us", [0, 1], *H, "--ranks", "2",
           "--exposed-comm-us", "20000")
db = check_rule("straggler", "straggler", "straggler_wait_us", [2], *H, "--ranks", "4", "--straggler", "2",
                "--straggler-kernel-us", "3000")
others = query(db, "SELECT rank FROM hta_findings WHERE rule = 'straggler' AND rank <> 2")
if others:
    fail("straggler: also on ranks %s" % [r["rank"] for r in others])
# GEMMs at 100 TFLOPS on an H100 (TF32 peak 494.7): their time above the roofline, per step
check_rule("gemms", "low_efficiency", "gemm_excess_us", [0, 1], *H, "--ranks", "2", "--gemm-tflops", "100")
check_rule("gemms4", "low_efficiency", "gemm_excess_us", [0], *H, "--ranks", "1", "--layers", "4",
           "--gemm-tflops", "200")
others = []
if others:
    fail("straggler: also on ranks %s" % [r["rank"] for r in others])

# A slow DataLoader: its __next__ takes the planted time more (the TensorBoard plugin's rule reads it).
db, _ = job("loader", *H, "--ranks", "1", "--slow-dataloader-us", "5000")
mean = query(db, "SELECT avg(dur) / 1000.0 AS us FROM events WHERE name LIKE 'enumerate(DataLoader)%'")[0]["us"]
if not 5000 <= mean <= 5000 * (1 + TOLERANCE):
    fail("loader: DataLoader.__next__ takes %.1f us, planted 5000 more than a prefetched batch" % mean)
else:
    print("ok   loader: DataLoader.__next__ takes %.1f us" % mean)

print("%d failures" % len(fails))
sys.exit(1 if fails else 0)
