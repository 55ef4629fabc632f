#!/usr/bin/env python3
"""Corpus check of the inference attention model of hta_op_perf (ext/perf/
op_perf_model_infer.c OI-4: the sums of the engine step's detailed annotation).

  op_perf_inference.py SHARED TMP INGEST EXT     (tests/corpus/inference.sh runs it)

1. tracelens_vllm_piecewise_graph: AMD TraceLens's inference report
   (expected/<job>/tlg_events_rank0.csv, sheet InferenceAttention_fwd) has a row per
   vllm::unified_attention_with_output call (run eagerly between the graph pieces): ours
   must have the same calls (by traceEvents position), GFLOPS and bytes exactly, the same
   kernels (as traceEvents positions) and kernel time within 1e-3 us.
2. tracelens_sglang_qwen3_prefilldecode: TraceLens's plain report cannot model
   aiter::mha_batch_prefill (it needs the step's annotation); here every call is computed
   from the raw JSON alone: q = Input Dims[0] (N_Q, H_Q, d), H_kv from Input Dims[1],
   d_v from Input Dims[2], the sums from the execute_..._context_...(sq.. sk.. sqsq..
   sqsk..) annotation around the call, and the formulas of OI-4 written out again here.
Databases come from check_expected.py's cache in TMP. Exit 0 when all match, else 1.
"""
import csv
import gzip
import json
import os
import re
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_expected import ensure_db  # noqa: E402

csv.field_size_limit(1 << 30)
fails = []
checked = {"vllm calls": 0, "sglang calls": 0}


def fail(msg):
    fails.append(msg)
    if len(fails) <= 40:
        print("FAIL " + msg)


def connect(shared, tmp, ingest, ext, job):
    m = ensure_db(job, [os.path.join(shared, "corpus", job)], tmp, ingest)
    if m["rc"] not in (0, 3):
        fail("%s: hta-ingest failed" % job)
        return None
    db = sqlite3.connect(m["db"])
    db.row_factory = sqlite3.Row
    db.enable_load_extension(True)
    db.load_extension(ext)
    return db


def ours(db, name):
    rows = db.execute(
        "SELECT e.seq, p.gflops, p.bytes, p.kernel_us_total, p.kernel_event_ids, p.shapes"
        " FROM hta_op_perf('instance') p JOIN event e ON e.event_id = p.event_id"
        " WHERE p.name = ? AND p.category = 'InferenceAttention_fwd'", (name,)).fetchall()
    seq = {r[0]: r[1] for r in db.execute(
        "SELECT event_id, seq FROM event WHERE stream IS NOT NULL")}
    return {r["seq"]: (r, sorted(seq[k] for k in json.loads(r["kernel_event_ids"])))
            for r in rows}


def check_vllm(shared, db):
    job = "tracelens_vllm_piecewise_graph"
    got = ours(db, "vllm::unified_attention_with_output")
    exp = [r for r in csv.DictReader(open(os.path.join(shared, "expected", job,
                                                       "tlg_events_rank0.csv")))
           if r["sheet"] == "InferenceAttention_fwd"]
    if len(exp) != len(got) or not exp:
        fail("%s: %d calls of ours, %d of TraceLens" % (job, len(got), len(exp)))
    for e in exp:
        uid = int(e["UID"])
        if uid not in got:
            fail("%s: call %d: no row of ours" % (job, uid))
            continue
        r, kseq = got[uid]
        checked["vllm calls"] += 1
        if abs(r["gflops"] - float(e["GFLOPS"])) > 1e-12 * r["gflops"]:
            fail("%s %d: GFLOPS %r, TraceLens %r" % (job, uid, r["gflops"], e["GFLOPS"]))
        if r["bytes"] != round(float(e["Data Moved (MB)"]) * 1048576):
            fail("%s %d: bytes %r, TraceLens %r MB" % (job, uid, r["bytes"], e["Data Moved (MB)"]))
        if kseq != sorted(json.loads(e["kernel_uids"])):
            fail("%s %d: kernels %r, TraceLens %r" % (job, uid, kseq, e["kernel_uids"]))
        if abs(r["kernel_us_total"] - float(e["Kernel Time (µs)"])) > 1e-3:
            fail("%s %d: kernel time %r, TraceLens %r" % (job, uid, r["kernel_us_total"],
                                                         e["Kernel Time (µs)"]))


SQSK = re.compile(r"execute_\d+_context_(\d+)\(sq(\d+)sk(\d+)sqsq(\d+)sqsk(\d+)\)"
                  r"_generation_(\d+)\(sq(\d+)sk(\d+)sqsq(\d+)sqsk(\d+)\)")
BPE = {"c10::bfloat16": 2, "c10::half": 2, "float": 4}


def check_sglang(shared, db):
    job = "tracelens_sglang_qwen3_prefilldecode"
    got = ours(db, "aiter::mha_batch_prefill")
    path = os.path.join(shared, "corpus", job, "sglang_Qwen3-8B_prefilldecode.json.gz")
    evs = json.load(gzip.open(path))["traceEvents"]
    steps = [(e["ts"], e["ts"] + e["dur"], SQSK.match(e["name"])) for e in evs
             if e.get("cat") == "user_annotation" and SQSK.match(e.get("name", ""))]
    n = 0
    for i, e in enumerate(evs):
        if e.get("name") != "aiter::mha_batch_prefill" or e.get("cat") != "cpu_op":
            continue
        n += 1
        st = [m for (a, b, m) in steps if a <= e["ts"] <= b]
        if len(st) != 1:
            fail("%s %d: %d steps around the call" % (job, i, len(st)))
            continue
        c_sq, c_sk, c_sqsq, c_sqsk = (int(st[0].group(k)) for k in (2, 3, 4, 5))
        g_sq, g_sk, g_sqsq, g_sqsk = (int(st[0].group(k)) for k in (7, 8, 9, 10))
        d = e["args"]["Input Dims"]
        t = e["args"]["Input type"]
        hq, dqk = d[0][1], d[0][2]
        hkv, dv = d[1][-2], d[2][-1]
        flops = (hq * (2 * c_sqsk * dqk) - hq * c_sqsq * dqk + hq * (2 * c_sqsk * dv)
                 - hq * c_sqsq * dv + hq * 2 * g_sqsk * dqk + hq * 2 * g_sqsk * dv)
        eq = BPE.get(t[0].lower(), 2)
        ekv = BPE.get(t[1].lower(), eq)
        qpart = (c_sq + g_sq) * (hq * dqk + hq * dv + hkv * dqk + hkv * dv)
        kvpart = (c_sk - c_sq + g_sk - g_sq) * (hkv * dqk + hkv * dv)
        nbytes = qpart * eq + kvpart * ekv
        if i not in got:
            fail("%s %d: no row of ours" % (job, i))
            continue
        r = got[i][0]
        checked["sglang calls"] += 1
        if r["gflops"] != flops / 1e9 or r["bytes"] != nbytes:
            fail("%s %d: %r GFLOPS %r bytes, expected %r, %r" % (job, i, r["gflops"], r["bytes"],
                                                                 flops / 1e9, nbytes))
    if n == 0 or n != len(got):
        fail("%s: %d calls in the JSON, %d rows of ours" % (job, n, len(got)))


def main():
    shared, tmp, ingest, ext = sys.argv[1:5]
    db = connect(shared, tmp, ingest, ext, "tracelens_vllm_piecewise_graph")
    if db:
        check_vllm(shared, db)
    db = connect(shared, tmp, ingest, ext, "tracelens_sglang_qwen3_prefilldecode")
    if db:
        check_sglang(shared, db)
    print("summary: op_perf_inference: %d vLLM attention calls equal to TraceLens's, %d SGLang"
          " calls equal to the formulas from the raw JSON; %d failures"
          % (checked["vllm calls"], checked["sglang calls"], len(fails)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
