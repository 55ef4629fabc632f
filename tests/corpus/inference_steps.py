#!/usr/bin/env python3
"""Corpus check of hta_inference_steps (ext/inference/inference_steps.c, IS-n; the steps
of ext/core/steps.c, STP-n) against the raw trace JSON, on every tracelens_* job.

  inference_steps.py SHARED TMP INGEST EXT     (tests/corpus/inference.sh runs it)

Per trace file of the job's database (check_expected.py's cache in TMP), this script
reads the file itself and finds the steps on its own: complete events of category
user_annotation whose name has one of the iteration forms (our own regular expressions
of the forms engine_ann.c lists), less those inside another one on the same (pid, tid).
For each step it counts, from the JSON alone, the GPU events (kernel, gpu_memcpy,
gpu_memset) whose launching runtime call (same correlation id) starts inside the step,
their busy time, and the graph launches (a runtime call whose name contains
"graphlaunch", any case, lying inside the step, with GPU work). Compared with the
function's rows: the count of steps, each step's name, start and duration, kernels,
kernel time (1e-3 us) and graph launches.
The annotation fields (phase, batch size, tokens, request counts) are checked against
HAND, worked out by hand from the annotation texts below. Every corpus file with an
annotation must be in HAND, and every file without must give no row.
Exit 0 when everything matches, 1 otherwise.
"""
import gzip
import json
import os
import re
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_expected import ensure_db  # noqa: E402

FORMS = [
    re.compile(r"execute_\d+_context_\d+\(sq\d+sk\d+sqsq\d+sqsk\d+\)"
               r"_generation_\d+\(sq\d+sk\d+sqsq\d+sqsk\d+\)"),
    re.compile(r"execute_context_\d+\(\d+\)_generation_\d+\(\d+\)"),
    re.compile(r"step\[(EXTEND|DECODE|MIXED)[ \]].*\]"),
    re.compile(r"(prefill|decode)\[.*\]"),
    re.compile(r"execute_diffusion_\d+_\d+x\d+"),
]

# (job, file name) -> per step: (phase, batch_size, tokens, context_requests,
# generation_requests), by hand from the annotation:
HAND = {
    # execute_32_context_0(sq0...)_generation_32(sq32sk32785...): 0 + 32 requests, 0 + 32
    # tokens, decode only. The step[DECODE bs=32] inside it is the same iteration.
    ("tracelens_sglang_decode_graph", "sglang_Qwen3-8B_decode.json.gz"):
        [("decode", 32, 32, 0, 32)],
    # execute_15360_context_15(sq15360...)_generation_0(sq0...): 15 prefill requests of
    # 15360 tokens in all; step[EXTEND bs=15 toks=15360] inside it says the same.
    ("tracelens_sglang_qwen3_prefilldecode", "sglang_Qwen3-8B_prefilldecode.json.gz"):
        [("prefill", 15, 15360, 15, 0)],
    # execute_8192_context_9(sq8155...)_generation_37(sq37...): 9 + 37 = 46 requests,
    # 8155 + 37 = 8192 tokens, both kinds: mixed.
    ("tracelens_vllm_piecewise_graph", "graph_execution.json.gz"):
        [("mixed", 46, 8192, 9, 37)],
    # execute_diffusion_1_256x256: batch 1, no LLM phase, no token count.
    ("tracelens_xdit_flux_aiter_sage", "profile_trace_rank_0.json.gz"):
        [(None, 1, None, None, None)],
}

fails = []


def fail(msg):
    fails.append(msg)
    print("FAIL " + msg)


def is_step_name(name):
    return any(f.match(name) for f in FORMS)


def expected_steps(path):
    """The steps of the trace file at PATH, from its JSON alone."""
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as fh:
        doc = json.load(fh)
    evs = doc["traceEvents"] if isinstance(doc, dict) else doc
    cands = [e for e in evs if e.get("ph") == "X" and e.get("cat") == "user_annotation"
             and isinstance(e.get("name"), str) and is_step_name(e["name"])]
    cands.sort(key=lambda e: (str(e.get("pid")), str(e.get("tid")), e["ts"], -e.get("dur", 0)))
    steps = []
    for e in cands:
        last = steps[-1] if steps else None
        if (last and last["pid"] == e.get("pid") and last["tid"] == e.get("tid")
                and e["ts"] >= last["ts"] and e["ts"] + e["dur"] <= last["ts"] + last["dur"]):
            continue
        steps.append(e)
    steps.sort(key=lambda e: e["ts"])
    launch = {}
    for e in evs:
        if e.get("cat") in ("cuda_runtime", "cuda_driver") and e.get("ph") == "X":
            c = (e.get("args") or {}).get("correlation")
            if c is not None:
                launch[c] = e
    gpu = [e for e in evs if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")
           and e.get("ph") == "X"]
    out = []
    for s in steps:
        s0, s1 = s["ts"], s["ts"] + s["dur"]
        ivs, graphs, n = [], set(), 0
        for g in gpu:
            rt = launch.get((g.get("args") or {}).get("correlation"))
            if rt is None or not (s0 <= rt["ts"] <= s1):
                continue
            n += 1
            ivs.append((g["ts"], g["ts"] + g["dur"]))
            if "graphlaunch" in rt["name"].lower() and rt["ts"] + rt["dur"] <= s1:
                graphs.add(id(rt))
        ivs.sort()
        busy, cur = 0.0, None
        for a, b in ivs:
            if cur is None or a > cur[1]:
                if cur:
                    busy += cur[1] - cur[0]
                cur = [a, b]
            else:
                cur[1] = max(cur[1], b)
        if cur:
            busy += cur[1] - cur[0]
        out.append({"name": s["name"], "ts": s0, "dur": s["dur"], "kernels": n,
                    "graphs": len(graphs), "kernel_us": busy})
    return out


def main():
    shared, tmp, ingest, ext = sys.argv[1:5]
    jobs = sorted(j for j in os.listdir(os.path.join(shared, "corpus"))
                  if j.startswith("tracelens_"))
    nsteps = ncheck = 0
    seen = set()
    for job in jobs:
        m = ensure_db(job, [os.path.join(shared, "corpus", job)], tmp, ingest)
        if m["rc"] not in (0, 3):
            fail("%s: hta-ingest failed (%s)" % (job, m["stderr"].strip()[:200]))
            continue
        db = sqlite3.connect(m["db"])
        db.enable_load_extension(True)
        db.load_extension(ext)
        traces = db.execute("SELECT trace_id, coalesce(file_path, file_name) FROM trace"
                            " ORDER BY trace_id").fetchall()
        for tid, path in traces:
            key = (job, os.path.basename(path))
            exp = expected_steps(path)
            rows = db.execute(
                "SELECT step, name, phase, batch_size, tokens, context_requests,"
                " generation_requests, start_us, dur_us, kernels, kernel_us, graph_launches"
                " FROM hta_inference_steps WHERE trace_id = ? ORDER BY step", (tid,)).fetchall()
            if len(rows) != len(exp):
                fail("%s: %d steps, expected %d" % (key, len(rows), len(exp)))
                continue
            if exp and key not in HAND:
                fail("%s: %d steps and no hand-computed fields" % (key, len(exp)))
            if exp:
                seen.add(key)
            for i, (r, e) in enumerate(zip(rows, exp)):
                nsteps += 1
                want = [i, e["name"]] + list(HAND.get(key, [()] * len(exp))[i])
                got = list(r[:7])
                if got != want:
                    fail("%s step %d: %s, expected %s" % (key, i, got, want))
                checks = [("start_us", r[7], e["ts"], 1e-3), ("dur_us", r[8], e["dur"], 1e-3),
                          ("kernels", r[9], e["kernels"], 0),
                          ("kernel_us", r[10], e["kernel_us"], 1e-3 * max(1, e["kernels"])),
                          ("graph_launches", r[11], e["graphs"], 0)]
                for what, g, w, tol in checks:
                    ncheck += 1
                    if abs(g - w) > tol:
                        fail("%s step %d: %s %r, expected %r" % (key, i, what, g, w))
        db.close()
    for key in HAND:
        if key not in seen:
            fail("%s: expected steps, found none" % (key,))
    print("summary: inference_steps: %d jobs, %d steps, %d values, %d failures"
          % (len(jobs), nsteps, ncheck, len(fails)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
