#!/usr/bin/env python3
"""Corpus check of hta_trace_health (ext/health/): every corpus job, ingested as a user would (its
folder), answers without an error, and every check that does not say 'ok' on it is listed below
with the verdict it must give and why; every check not listed must say 'ok' on every trace of the
job. A new corpus job, or a check that starts or stops firing, fails until this table says why.

  health.py [JOB ...]      env: HTA_SHARED HTA_TMP HTA_INGEST HTA_EXT (check_expected.py's)

One ingest per job, cached in $HTA_TMP/corpus-db (check_expected.py's cache). Prints one line per
failure and a summary; exit 0 pass, 1 fail, 77 skip.
"""
import importlib.util
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("check_expected", os.path.join(HERE, "check_expected.py"))
ce = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ce)

NO_CAPTURE = ("CUDA/HIP graph replays (%d launches, %d kernels) without their capture trace: no replayed kernel "
              "has its operator (hta_graph_kernels: no_capture)")
NO_STEP = "no ProfilerStep in the trace (profiled without a schedule's step() calls)"
NO_DEVPROPS = "the trace has no deviceProperties"
SAMPLED = "one of HTA's sampled test traces: the authors kept events, not flows or deviceProperties"
OLD_FLOWS = "its launch-to-kernel flows are in an older category (%s), not ac2g"

# job -> {check: (verdict, why)}; a check of the job itself (ranks_profiled) is judged the same way.
EXPECTED = {
    "hta_amd_trace": {
        "last_step": ("warn", "ProfilerStep#2 lasts 49 ms against 9.3 s for step 1: cut by the end of the profile"),
    },
    "hta_call_stack": {
        "flows": ("warn", "a 7-event extract of a trace: no flows kept"),
        "device_properties": ("warn", NO_DEVPROPS + " (metadata: distributedInfo only)"),
    },
    "hta_cpu_only": {
        "ranks_profiled": ("warn", "rank 34 of a 300-rank job, alone"),
        "gpu_activity": ("warn", "a CPU-only trace (no GPU activity was recorded)"),
    },
    "hta_critical_path_alexnet": {"steps": ("warn", NO_STEP)},
    "hta_critical_path_cuda_event_sync": {},
    "hta_critical_path_cuda_event_sync_multi_stream": {"steps": ("warn", NO_STEP)},
    "hta_critical_path_simple_add": {"steps": ("warn", NO_STEP)},
    "hta_cupti_profiler": {
        "gpu_activity": ("warn", "CUPTI range profiling: kernels are cuda_profiler_range counters, not GPU rows"),
        "launches_without_kernel": ("fail", "the same: none of its 94 launch calls has a kernel row"),
        "steps": ("warn", NO_STEP),
    },
    "hta_df_index_resolver": {"ranks_profiled": ("warn", "rank 1 of world size 2, alone")},
    "hta_distributed_info_unavailable": {"gpu_activity": ("warn", "a CPU-only trace (cpu_op and user_annotation only)")},
    "hta_execution_trace": {"steps": ("warn", NO_STEP)},
    "hta_hist_large_integer_trace": {
        "gpu_activity": ("warn", "a hand-written 2-event file whose kernel row has no stream: no GPU work"),
        "steps": ("warn", NO_STEP),
    },
    "hta_mtia_inference_trace": {
        "profiler_log_errors": ("warn", "Kineto logged 'gpuGetDeviceCount failed with code 35' (an MTIA host, no CUDA device)"),
        "kernels_without_launch": ("warn", "322 of 1313 mtia_ccp_events carry no correlation id: nothing links them to a launch"),
        "steps": ("warn", NO_STEP),
    },
    "hta_mtia_trace_single_rank": {
        "profiler_log_errors": ("warn", "Kineto logged 'gpuGetDeviceCount failed with code 35' (an MTIA host, no CUDA device)"),
        "kernels_without_launch": ("fail", "22224 of 25677 mtia_ccp_events carry no correlation id"),
        "device_properties": ("warn", "deviceProperties is an empty list (the failed device count above)"),
    },
    "hta_nccl_parser_config": {"ranks_profiled": ("warn", "rank 0 of world size 2, alone")},
    "hta_negative_queue_length_values_check": {
        "ranks_profiled": ("warn", "rank 0 of world size 16, alone"),
        "graph_coverage": ("warn", NO_CAPTURE % (70, 345)),
    },
    "hta_ns_resolution_trace": {},
    "hta_rank_non_gpu": {"gpu_activity": ("warn", "a CPU-only trace")},
    "hta_rank_unavailable": {"gpu_activity": ("warn", "a CPU-only trace")},
    "hta_timeline_analysis": {
        "ranks_profiled": ("warn", "rank 0 of world size 128, alone"),
        "flows": ("warn", SAMPLED),
        "device_properties": ("warn", SAMPLED),
    },
    "hta_trace_compare_base": {
        "kernels_without_launch": ("warn", "a 33-event cut of a trace: 5 of 18 GPU rows lost their launch call"),
        "flows": ("warn", "the same cut kept no flows"),
        "device_properties": ("warn", NO_DEVPROPS),
    },
    "hta_trace_compare_test": {
        "kernels_without_launch": ("warn", "a 34-event cut of a trace: 5 of 17 GPU rows lost their launch call"),
        "launches_without_kernel": ("warn", "the same cut: one of its 2 cudaLaunchKernel calls lost its kernel"),
        "flows": ("warn", "the same cut kept no flows"),
        "device_properties": ("warn", NO_DEVPROPS),
    },
    "hta_trace_diff_control": {
        "ranks_profiled": ("warn", "rank 3 of world size 8, alone"),
        "flows": ("warn", OLD_FLOWS % "async_cpu_to_gpu"),
    },
    "hta_trace_diff_test": {
        "ranks_profiled": ("warn", "rank 1 of world size 2, alone"),
        "flows": ("warn", OLD_FLOWS % "async_cpu_to_gpu"),
        "graph_coverage": ("warn", NO_CAPTURE % (12, 5046)),
    },
    "hta_trace_file_list": {
        "cpu_activity": ("warn", "4 launches and 4 kernels with no operator around them (no Operator events kept)"),
        "flows": ("warn", OLD_FLOWS % "async_gpu"),
        "steps": ("warn", NO_STEP),
        "device_properties": ("warn", NO_DEVPROPS),
    },
    "hta_trace_filter": {
        "ranks_profiled": ("warn", "ranks 0 and 1 of world size 128"),
        "flows": ("warn", SAMPLED),
        "device_properties": ("warn", SAMPLED),
    },
    "hta_triton_example": {},
    "kineto_docs_after_fix": {"steps": ("warn", NO_STEP)},
    "kineto_docs_before_fix": {"steps": ("warn", NO_STEP)},
    "kineto_resnet50_2020_nw0": {
        "flows": ("warn", OLD_FLOWS % "async, Kineto 2020"),
        "device_properties": ("warn", "the oldest Kineto schema wrote no deviceProperties"),
    },
    "kineto_resnet50_2021jun_nw4_two_spans": {
        "flows": ("warn", OLD_FLOWS % "async, Kineto 2021"),
        "rank_identity": ("warn", "two profiling windows of one worker: both files are rank 0"),
        "distributed_info": ("warn", "no distributedInfo in a job of two files: the rank comes from the file name"),
    },
    "kineto_resnet50_autograd_api_nw0": {
        "flows": ("warn", OLD_FLOWS % "async, Kineto 2021"),
        "steps": ("warn", "the legacy torch.autograd.profiler API: no ProfilerStep"),
        "device_properties": ("warn", "that Kineto wrote no deviceProperties"),
    },
    "param_linear_kineto": {"steps": ("warn", NO_STEP + ": a micro-benchmark")},
    "tracelens_h100_owlv2": {},
    "tracelens_h100_qwen15_chat": {},
    "tracelens_mi210_gpu_only": {
        "cpu_activity": ("warn", "a GPU-only trace: hip runtime calls and kernels, no operator recorded"),
        "steps": ("warn", NO_STEP + " (no CPU activity recorded)"),
    },
    "tracelens_mi300_ddp_resnet18": {"steps": ("warn", NO_STEP)},
    "tracelens_mi300_owlv2": {},
    "tracelens_sglang_decode_capture": {
        "launches_without_kernel": ("fail", "a HIP-graph capture: 544 of 546 launches are recorded into the graph, not run"),
    },
    "tracelens_sglang_decode_graph": {"steps": ("warn", NO_STEP + " (SGLang's own iteration annotations)")},
    "tracelens_sglang_qwen3_prefilldecode": {"steps": ("warn", NO_STEP + " (SGLang's own iteration annotations)")},
    "tracelens_torch_compile_triton": {"steps": ("warn", NO_STEP)},
    "tracelens_vllm_decode_graph_capture": {
        "launches_without_kernel": ("fail", "a full-graph capture: 421 of 431 launches are recorded into graphs, not run"),
        "steps": ("warn", NO_STEP + " (vLLM)"),
    },
    "tracelens_vllm_piecewise_graph": {"steps": ("warn", NO_STEP + " (vLLM)")},
    "tracelens_xdit_flux_aiter_sage": {"graph_coverage": ("warn", NO_CAPTURE % (4, 6264))},
}

fails = []


def fail(msg):
    fails.append(msg)
    print("FAIL " + msg)


def query(db, ext, sql):
    p = subprocess.run(["sqlite3", "-json", "-cmd", ".load " + ext, db, sql], capture_output=True, text=True)
    if p.returncode != 0 or p.stderr.strip():
        raise RuntimeError((p.stderr or "exit %d" % p.returncode).strip())
    return json.loads(p.stdout) if p.stdout.strip() else []


def main(argv):
    shared, tmp, ingest, ext = ce.env_paths()
    corpus = os.path.join(shared, "corpus")
    if not os.path.isdir(corpus):
        print("skip: no %s" % corpus)
        return 77
    jobs = sorted(j for j in os.listdir(corpus) if os.path.isdir(os.path.join(corpus, j)))
    for j in sorted(set(EXPECTED) - set(jobs)):
        fail("%s: in the table but not in the corpus" % j)
    if argv:
        jobs = [j for j in jobs if j in argv]
    n_rows = n_fired = 0
    for job in jobs:
        if job not in EXPECTED:
            fail("%s: a corpus job this table does not know: add its expected verdicts" % job)
            continue
        m = ce.ensure_db(job, [os.path.join(corpus, job)], tmp, ingest)
        if m["rc"] not in (0, 1):
            fail("%s: ingest failed: %s" % (job, m["stderr"].strip()[:200]))
            continue
        try:
            rows = query(m["db"], ext, "SELECT job, rank, trace_id, \"check\", verdict, message"
                                       " FROM hta_trace_health")
        except RuntimeError as e:
            fail("%s: hta_trace_health: %s" % (job, e))
            continue
        want = EXPECTED[job]
        seen = set()
        for r in rows:
            if r["job"] != job:  # a folder of job folders: only the folder's own job is judged
                continue
            n_rows += 1
            verdict, why = want.get(r["check"], ("ok", None))
            who = "job" if r["rank"] is None else "rank %s trace %s" % (r["rank"], r["trace_id"])
            if r["verdict"] != verdict:
                fail("%s %s: %s says %s, %s expected (%s): %s" % (job, who, r["check"], r["verdict"], verdict,
                                                                 why or "nothing wrong known", r["message"]))
            elif verdict != "ok":
                n_fired += 1
                seen.add(r["check"])
        for check in sorted(set(want) - seen):
            fail("%s: %s never said %s (%s)" % (job, check, want[check][0], want[check][1]))
    print("summary: hta_trace_health: %d jobs, %d rows, %d warnings or failures each explained, %d failures"
          % (len(jobs), n_rows, n_fired, len(fails)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
