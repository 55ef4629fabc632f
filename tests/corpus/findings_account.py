#!/usr/bin/env python3
"""Corpus check of hta_findings' accounting of the step (ext/findings/fd_account.c FA-n, findings.c
FD-4) and of the ten problems of its issue (the first version's findings on real traces), each on
its corpus job, from the raw events where a number can be checked independently.

  findings_account.py [JOB ...]      env: HTA_SHARED HTA_TMP HTA_INGEST HTA_EXT (check_expected.py's)

On every corpus job (one ingest each, check_expected.py's cache): hta_findings(0) answers; per
trace, the summary's parts add up to its idle time, the causes' time_us to at most the idle time,
causes and busy findings to at most the step, and every cause's parent is its trace's
gpu_low_utilization symptom or 'step'. Then the problems:
  1 overlap       tracelens_h100_owlv2, tracelens_mi300_ddp_resnet18: the costs add up to at most
                  the step (they added up to 193% and 286%).
  2 host_sync     tracelens_h100_owlv2: host_sync is at most the compute streams' idle time inside
                  the synchronizations plus the idle gaps that follow one (raw events), far under
                  the calls' 358.8 ms (the GPU computed through most of them).
  3 straggler     hta_trace_filter: no straggler on send/recv (no rank waits for all); the
                  bubble and exposed time of a rank at most its communication kernels' time; the
                  caveat says 2 of 128 ranks were profiled.
  4 NCCL stream   hta_trace_filter rank 0: the compute streams are 7 and 23, never NCCL's 84.
  5 60-byte copy  tracelens_sglang_qwen3_prefilldecode: blocking_copy over 480 ms per step, its
                  costliest call a hipMemcpyWithStream of 60 bytes.
  6 tensor cores  kineto_resnet50_2021jun_nw4_two_spans (V100, 7.0): the advice says float16, never
                  bf16 or TF32, and the plugin's rule is a configuration with no time; the Hopper
                  kernels of tracelens_h100_qwen15_chat are tensor-core kernels by name.
  7 no steps      tracelens_mi300_ddp_resnet18, tracelens_sglang_qwen3_prefilldecode: every finding
                  carries the steps caveat: the window is one step (resnet18), the steps are the
                  engine's iterations (SGLang's step[...] annotations: fd_steps.c FS-2).
  8 outliers      kineto_resnet50_2021jun_nw4_two_spans: no finding names a ProfilerStep as its
                  operator; each profiling window's first step (its warm-up: step 16 holds a
                  40 ms copy) is named an outlier and left out.
  9 advice        tracelens_mi300_ddp_resnet18: the costliest cause is allocator_churn (the caching
                  allocator, ROCm's spelling) and no finding over 1% of the step suggests graphs
                  (the GPU idled in hipFree, not in launches); tracelens_h100_owlv2:
                  low_efficiency names scaled_dot_product_attention; kineto 2021: the launch-bound
                  idle names a foreach or fused optimizer.
 10 speed         not a pass/fail test here: make bench prints hta_findings' time on the tile.
Prints one line per failure and a summary; exit 0 pass, 1 fail, 77 skip.
"""
import importlib.util
import json
import os
import sqlite3
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("check_expected", os.path.join(HERE, "check_expected.py"))
ce = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ce)

EPS = 1e-6  # µs: sums of the same ns
fails = []
checks = 0


def fail(msg):
    fails.append(msg)
    print("FAIL " + msg)


def check(cond, msg):
    global checks
    checks += 1
    if not cond:
        fail(msg)


def query(db, ext, sql):
    p = subprocess.run(["sqlite3", "-json", "-cmd", ".load " + ext, db, sql], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(p.stderr.strip())
    return json.loads(p.stdout) if p.stdout.strip() else []


def sums(job, rows):
    """FD-4 on every trace of the job."""
    for s in (r for r in rows if r["rule"] == "step"):
        ev = json.loads(s["evidence"])
        mine = [r for r in rows if r["trace_id"] == s["trace_id"]]
        causes = sum(r["time_us"] for r in mine if r["kind"] == "cause")
        costs = sum(r["time_us"] for r in mine if r["kind"] in ("cause", "busy"))
        parts = sum(ev["parts"].values())
        where = "%s trace %s" % (job, s["trace_id"])
        check(abs(parts - ev["idle_us"]) <= EPS * max(1, len(ev["parts"])), "%s: parts %.3f != idle %.3f" % (where, parts, ev["idle_us"]))
        check(causes <= ev["idle_us"] + EPS, "%s: causes %.3f > idle %.3f" % (where, causes, ev["idle_us"]))
        check(costs <= ev["step_us"] + EPS, "%s: costs %.3f > step %.3f" % (where, costs, ev["step_us"]))
        symptom = any(r["rule"] == "gpu_low_utilization" for r in mine)
        for r in mine:
            if r["kind"] == "cause":
                check(r["parent"] == ("gpu_low_utilization" if symptom else "step"), "%s: %s's parent %s" % (where, r["rule"], r["parent"]))


def gpu_busy_iv(con, trace_id, streams):
    """The compute streams' non-communication work, merged (FA-2), ns."""
    rows = con.execute(
        "SELECT e.ts, e.ts + e.dur FROM event e JOIN string s ON s.string_id = e.name_id JOIN category c"
        " ON c.category_id = e.category_id WHERE e.trace_id = ? AND e.stream IN (%s) AND e.dur > 0"
        " AND lower(c.name) IN ('kernel', 'gpu_memcpy', 'gpu_memset', 'memcpy', 'memset')"
        " AND lower(s.value) NOT LIKE '%%nccl%%' AND lower(s.value) NOT LIKE '%%rccl%%' ORDER BY 1"
        % ",".join(str(int(x)) for x in streams), (trace_id,)).fetchall()
    out = []
    for a, b in rows:
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def idle_in(busy, a, b):
    """Idle ns of [a, b) given merged busy intervals."""
    t = a
    idle = 0
    for s, e in busy:
        if e <= t:
            continue
        if s >= b:
            break
        idle += max(0, min(s, b) - t)
        t = max(t, e)
    return idle + max(0, b - t)


def problems(job, db, ext, rows):
    by = lambda rule, **kw: [r for r in rows if r["rule"] == rule and all(r.get(k) == v for k, v in kw.items())]
    if job in ("tracelens_h100_owlv2", "tracelens_mi300_ddp_resnet18"):  # 1
        s = by("step")[0]
        total = sum(r["time_us"] for r in rows if r["kind"] in ("cause", "busy"))
        check(total <= json.loads(s["evidence"])["step_us"] + EPS, "1 %s: the costs add up to %.1f%% of the step" % (job, 100 * total / json.loads(s["evidence"])["step_us"]))
    if job == "tracelens_h100_owlv2":  # 2
        s = json.loads(by("step")[0]["evidence"])
        con = sqlite3.connect(db)
        tid = by("step")[0]["trace_id"]
        busy = gpu_busy_iv(con, tid, s["compute_streams"])
        syncs = con.execute("SELECT e.ts, e.ts + e.dur FROM event e JOIN string s ON s.string_id = e.name_id"
                            " WHERE e.trace_id = ? AND s.value IN ('cudaStreamSynchronize', 'cudaDeviceSynchronize',"
                            " 'cudaEventSynchronize') ORDER BY 1", (tid,)).fetchall()
        bound = 0
        for a, b in syncs:  # idle inside the call, then the idle gap that follows it
            bound += idle_in(busy, a, b)
            nxt = next((s0 for s0, _ in busy if s0 >= b), b)
            bound += idle_in(busy, b, nxt)
        steps = con.execute("SELECT count(*) FROM profiler_step WHERE trace_id = ?", (tid,)).fetchone()[0]
        hs = by("host_sync")
        got = hs[0]["time_us"] if hs else 0.0
        check(got * 1000 <= bound / max(1, s["steps"]) + 1e-3 or got * 1000 * s["steps"] <= bound + 1e-3,
              "2 %s: host_sync %.1f us per step over its bound %.1f" % (job, got, bound / 1000 / max(1, s["steps"])))
        check(got < 35880, "2 %s: host_sync %.1f us is near the calls' time" % (job, got))
        con.close()
    if job == "hta_trace_filter":  # 3, 4
        check(not by("straggler"), "3 %s: a straggler on send/recv" % job)
        con = sqlite3.connect(db)
        for s in by("step"):
            ev = json.loads(s["evidence"])
            comm = con.execute("SELECT sum(e.dur) FROM event e JOIN string s ON s.string_id = e.name_id WHERE"
                               " e.trace_id = ? AND e.stream IS NOT NULL AND s.value LIKE '%nccl%'", (s["trace_id"],)).fetchone()[0] or 0
            p = ev["parts"]
            waited = p["waits_for_ranks"] + p["pipeline_bubble"] + p["exposed_communication"]
            check(waited * ev["steps"] <= comm / 1000 + EPS, "3 %s rank %d: %.1f us of communication causes over its %.1f us of communication kernels" % (job, s["rank"], waited, comm / 1000))
            check("2 of 128 ranks profiled" in s["caveats"], "3 %s rank %d: no caveat on the ranks profiled" % (job, s["rank"]))
            if s["rank"] == 0:
                check(7 in ev["compute_streams"] and 84 not in ev["compute_streams"], "4 %s: compute streams %s" % (job, ev["compute_streams"]))
        con.close()
    if job == "tracelens_sglang_qwen3_prefilldecode":  # 5, 7
        bc = by("blocking_copy")
        ok = bc and bc[0]["time_us"] > 480000 and json.loads(bc[0]["evidence"])["top"][0]["name"] == "hipMemcpyWithStream" \
            and json.loads(bc[0]["evidence"])["top"][0].get("bytes") == 60
        check(ok, "5 %s: blocking_copy %s" % (job, bc[0]["title"] if bc else "missing"))
    if job in ("tracelens_mi300_ddp_resnet18", "tracelens_sglang_qwen3_prefilldecode"):  # 7
        what = "engine iteration" if "sglang" in job else "the whole window"
        check(all(any(c["check"] == "steps" and what in c["text"] for c in json.loads(r["caveats"]))
                  for r in rows if r["trace_id"] is not None and r["source"] == "hta-sqlite"),
              "7 %s: a finding without the steps caveat (%s)" % (job, what))
    if job == "kineto_resnet50_2021jun_nw4_two_spans":  # 6, 8, 9
        tc = [r for r in by("tensor_cores_unused")]
        check(tc and all("dtype=torch.float16" in r["advice"] and "dtype=torch.bfloat16" not in r["advice"]
                         and "allow_tf32" not in r["advice"] for r in tc),
              "6 %s: tensor-core advice for compute capability 7.0" % job)
        check(all(r["time_us"] is None for r in tc if r["source"] == "tb_plugin"), "6 %s: the plugin's rule presents a time" % job)
        check(not any("ProfilerStep#" in (r["title"] or "") for r in rows if r["kind"] != "summary"), "8 %s: a step named as an operator" % job)
        con = sqlite3.connect(db)
        for r in by("step"):  # each profiling window's first step is its warm-up
            first = con.execute("SELECT step FROM profiler_step WHERE trace_id = ? ORDER BY ts LIMIT 1", (r["trace_id"],)).fetchone()[0]
            outl = json.loads(r["evidence"])["outlier_steps"]
            check(first in outl, "8 %s trace %d: the warm-up step %d is no outlier: %s" % (job, r["trace_id"], first, outl))
        con.close()
        gw = by("gpu_waits_for_host")
        check(gw and all("foreach" in r["advice"] for r in gw), "9 %s: launch-bound idle without the foreach optimizer" % job)
    if job == "tracelens_h100_qwen15_chat":  # 6
        names = query(db, ext, "SELECT DISTINCT s.value AS name FROM event e JOIN string s ON s.string_id = e.name_id"
                               " WHERE e.stream IS NOT NULL AND (s.value LIKE 'nvjet%' OR s.value LIKE '%gmma%')")
        got = query(db, ext, "SELECT count(*) AS n FROM event e JOIN string s ON s.string_id = e.name_id WHERE e.stream IS NOT NULL"
                             " AND (s.value LIKE 'nvjet%' OR s.value LIKE '%gmma%') AND hta_tensor_cores(s.value) IS NULL")
        check(not names or got[0]["n"] == 0, "6 %s: Hopper kernels not recognised" % job)
    if job == "tracelens_mi300_ddp_resnet18":  # 9
        causes = sorted((r for r in rows if r["kind"] == "cause"), key=lambda r: -r["time_us"])
        check(causes and causes[0]["rule"] == "allocator_churn" and "PYTORCH_HIP_ALLOC_CONF" in causes[0]["advice"]
              and "empty_cache" in causes[0]["advice"], "9 %s: the costliest cause %s" % (job, causes[0]["rule"] if causes else None))
        check(not any("graphs" in (r["advice"] or "") and r["pct_of_step"] >= 1 for r in rows if r["source"] == "hta-sqlite"),
              "9 %s: advice above 1%% of the step suggests graphs" % job)
    if job == "tracelens_h100_owlv2":  # 9
        le = by("low_efficiency")
        check(le and "scaled_dot_product_attention" in le[0]["advice"], "9 %s: low_efficiency's advice: %s" % (job, le[0]["advice"][:60] if le else None))


def main(argv):
    shared, tmp, ingest, ext = ce.env_paths()
    if not os.path.isdir(os.path.join(shared, "corpus")):
        print("skip: no %s/corpus" % shared)
        return 77
    jobs = [j for j in ce.discover_jobs(shared) if not argv or j.name in argv or j.name.split("/")[0] in argv]
    n = 0
    for job in jobs:
        m = ce.ensure_db(job.name, job.inputs, tmp, ingest)
        if m["rc"] not in (0, 1):
            fail("%s: ingest failed: %s" % (job.name, m["stderr"].strip()[:200]))
            continue
        try:
            rows = query(m["db"], ext, "SELECT rank, trace_id, rule, kind, parent, source, time_us, pct_of_step, title,"
                                       " advice, evidence, caveats FROM hta_findings(0)")
        except RuntimeError as e:
            fail("%s: hta_findings: %s" % (job.name, e))
            continue
        n += 1
        sums(job.name, rows)
        problems(job.name.split("/")[0], m["db"], ext, rows)
    print("summary: findings accounting: %d jobs, %d checks, %d failures" % (n, checks, len(fails)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
