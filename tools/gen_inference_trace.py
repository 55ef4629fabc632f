#!/usr/bin/env python3
"""Writes a small inference-server trace, the example of hta_inference_steps and of the
inference models of hta_op_perf (docs/sql.md):

  python3 tools/gen_inference_trace.py examples/inference/serve.pt.trace.json.gz

A vLLM-style engine on one AMD MI300X whose deviceProperties name is empty, as vLLM's ROCm
traces have it (gfx942: compute 9.4, 304 compute units, 192 GiB: hta_op_perf finds its peaks
through device_model). 13 engine iterations, each wrapped in vLLM's detailed annotation
execute_<tokens>_context_<c>(sq..sk..sqsq..sqsk..)_generation_<g>(sq..sk..sqsq..sqsk..):
a prefill of 4 requests, a ramp, 8 steps at a batch of 8 or 9 (one of them takes a prefill
chunk), a drain. Every step runs, on the host thread: the attention of the batch
(vllm::unified_attention_with_output, eager, with its shapes), an FP8 block-scaled GEMM
(aiter::gemm_a8w8_blockscale_ck) and the two stages of an FP8 mixture of experts
(aiter::ck_moe_stage1, aiter::ck_moe_stage2: 8 experts, top-2), each launching one kernel;
decode steps also replay a HIP graph (hipGraphLaunch, three kernels). Kernel times follow
from the operators' FLOPs and bytes at fixed fractions of the MI300X's peaks, so the
numbers are those of a plausible run, not of a measured one. Deterministic: no randomness.
"""
import gzip
import json
import sys

PEAK_TF, PEAK_TBPS = 1307.4e12, 5.3e12
H_Q, H_KV, D = 32, 8, 128        # attention heads and head size
HIDDEN, INTER, E, TOPK = 4096, 1024, 8, 2
F8, BF = "c10::Float8_e4m3fnuz", "c10::BFloat16"


class Trace:
    def __init__(self):
        self.ev = []
        self.corr = 1000
        self.ext = 1
        self.gpu_t = 0.0  # when the stream is free (µs)

    def x(self, cat, name, ts, dur, pid=100, tid=100, args=None):
        a = {"External id": self.ext}
        self.ext += 1
        a.update(args or {})
        self.ev.append({"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid,
                        "ts": round(ts, 3), "dur": round(dur, 3), "args": a})

    def kernels(self, ts, names_durs, launch="hipLaunchKernel"):
        """A launch at ts and its kernels, queued on stream 7; returns the launch's end."""
        self.corr += 1
        self.x("cuda_runtime", launch, ts, 6.0, args={"correlation": self.corr})
        start = max(ts + 8.0, self.gpu_t)
        for name, dur in names_durs:
            self.x("kernel", name, start, dur, pid=0, tid=7,
                   args={"correlation": self.corr, "stream": 7, "device": 0})
            start += dur + 1.0
        self.gpu_t = start
        return ts + 6.0


def op_time(flops, nbytes, eff_c, eff_m):
    return max(flops / (PEAK_TF * eff_c), nbytes / (PEAK_TBPS * eff_m)) * 1e6


def step_plan():
    """(context requests with (new tokens, context) each, decode requests' contexts)."""
    plan = [([(512, 512)] * 4, [])]
    plan.append(([], [513] * 4))
    plan.append(([(512, 512)] * 4, [514] * 4))
    for i in range(8):
        ctx = [515 + i] * 8
        plan.append(([(256, 256)] if i == 3 else [], ctx))
    plan.append(([], [523] * 4))
    plan.append(([], [524] * 2))
    return plan


def main():
    out = sys.argv[1]
    t = Trace()
    ts = 1000.0
    for ctx, gen in step_plan():
        c_sq = sum(q for q, _ in ctx)
        c_sk = sum(k for _, k in ctx)
        c_sqsq = sum(q * q for q, _ in ctx)
        c_sqsk = sum(q * k for q, k in ctx)
        g_sq, g_sk, g_sqsq, g_sqsk = len(gen), sum(gen), len(gen), sum(gen)
        tokens = c_sq + g_sq
        name = ("execute_%d_context_%d(sq%dsk%dsqsq%dsqsk%d)_generation_%d(sq%dsk%dsqsq%dsqsk%d)"
                % (tokens, len(ctx), c_sq, c_sk, c_sqsq, c_sqsk, len(gen), g_sq, g_sk, g_sqsq,
                   g_sqsk))
        start = ts
        t.gpu_t = max(t.gpu_t, ts)
        # attention over the batch
        dsum = 2 * D
        aflops = H_Q * (2 * c_sqsk - c_sqsq) * dsum + 2 * H_Q * g_sqsk * dsum
        abytes = 2 * ((c_sq + g_sq) * (H_Q + H_KV) * dsum + (c_sk - c_sq + g_sk - g_sq) * H_KV * dsum)
        q = [tokens, H_Q, D]
        kv = [tokens, H_KV, D]
        t.x("cpu_op", "vllm::unified_attention_with_output", ts, 40.0,
            args={"Input Dims": [q, kv, kv, q, [], [], [], [0]],
                  "Input type": [BF, BF, BF, BF, "", "", "", BF],
                  "Input Strides": [[H_Q * D, D, 1], [H_KV * D, D, 1], [H_KV * D, D, 1],
                                    [H_Q * D, D, 1], [], [], [], [1]],
                  "Concrete Inputs": [""] * 8})
        t.kernels(ts + 10, [("kernel_unified_attention_2d", op_time(aflops, abytes, 0.3, 0.5))])
        ts += 45
        # FP8 GEMM (the attention output projection, say)
        n_out = 6144
        gflops = 2 * tokens * n_out * HIDDEN
        gbytes = tokens * HIDDEN + n_out * HIDDEN + tokens * n_out * 2
        t.x("cpu_op", "aiter::gemm_a8w8_blockscale_ck", ts, 30.0,
            args={"Input Dims": [[tokens, HIDDEN], [n_out, HIDDEN], [tokens, HIDDEN // 128],
                                 [n_out // 128, HIDDEN // 128], [tokens, n_out]],
                  "Input type": [F8, F8, "float", "float", BF],
                  "Input Strides": [[HIDDEN, 1], [HIDDEN, 1], [HIDDEN // 128, 1],
                                    [HIDDEN // 128, 1], [n_out, 1]],
                  "Concrete Inputs": [""] * 5})
        t.kernels(ts + 8, [("gemm_a8w8_blockscale_kernel", op_time(gflops, gbytes, 0.45, 0.6))])
        ts += 35
        # MoE, two stages: 8 experts, top-2, gated up projection
        e_act = E * (1 - ((E - TOPK) / E) ** tokens)
        up_f = 2 * tokens * HIDDEN * INTER * TOPK * 2
        up_b = tokens * HIDDEN + e_act * 2 * HIDDEN * INTER + tokens * INTER * TOPK * 2
        t.x("cpu_op", "aiter::ck_moe_stage1", ts, 30.0,
            args={"Input Dims": [[tokens, HIDDEN], [E, 2 * INTER, HIDDEN], [E, HIDDEN, INTER],
                                 [tokens * TOPK], [E], [1], [tokens, TOPK, INTER]],
                  "Input type": [F8, F8, F8, "int", "int", "int", BF],
                  "Input Strides": [[HIDDEN, 1], [2 * INTER * HIDDEN, HIDDEN, 1],
                                    [HIDDEN * INTER, INTER, 1], [1], [1], [1],
                                    [TOPK * INTER, INTER, 1]],
                  "Concrete Inputs": [""] * 7})
        t.kernels(ts + 8, [("ck_moe_stage1_gemm_fp8", op_time(up_f, up_b, 0.35, 0.55))])
        ts += 35
        dn_f = 2 * tokens * INTER * HIDDEN * TOPK
        dn_b = tokens * INTER * TOPK + e_act * INTER * HIDDEN + tokens * HIDDEN * 2
        t.x("cpu_op", "aiter::ck_moe_stage2", ts, 30.0,
            args={"Input Dims": [[tokens, TOPK, INTER], [E, 2 * INTER, HIDDEN],
                                 [E, HIDDEN, INTER], [tokens * TOPK], [E], [1],
                                 [tokens, HIDDEN]],
                  "Input type": [F8, F8, F8, "int", "int", "int", BF],
                  "Input Strides": [[TOPK * INTER, INTER, 1], [2 * INTER * HIDDEN, HIDDEN, 1],
                                    [HIDDEN * INTER, INTER, 1], [1], [1], [1], [HIDDEN, 1]],
                  "Concrete Inputs": [""] * 7})
        t.kernels(ts + 8, [("ck_moe_stage2_gemm_fp8", op_time(dn_f, dn_b, 0.35, 0.55))])
        ts += 35
        if not ctx:  # decode steps replay the rest of the layer as a graph
            t.kernels(ts, [("rmsnorm_kernel", 3.2 + 0.1 * tokens), ("rope_kernel", 2.1),
                           ("act_and_mul_kernel", 2.8 + 0.1 * tokens)], launch="hipGraphLaunch")
            ts += 10
        end = max(ts + 5, t.gpu_t + 2)
        t.x("user_annotation", name, start - 2, end - start + 2)
        ts = end + 20
    doc = {
        "schemaVersion": 1,
        "deviceProperties": [{"id": 0, "name": "", "totalGlobalMem": 206141652992,
                              "computeMajor": 9, "computeMinor": 4, "maxThreadsPerBlock": 1024,
                              "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536,
                              "warpSize": 64, "sharedMemPerBlock": 65536, "numSms": 304,
                              "maxSharedMemoryPerMultiProcessor": 65536}],
        "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1},
        "traceEvents": [{"ph": "M", "name": "process_name", "pid": 100, "tid": 0,
                         "args": {"name": "vllm engine"}},
                        {"ph": "M", "name": "process_name", "pid": 0, "tid": 0,
                         "args": {"name": "GPU 0"}}] + sorted(t.ev, key=lambda e: e["ts"]),
        "displayTimeUnit": "ms",
    }
    with gzip.GzipFile(out, "wb", mtime=0) as fh:
        fh.write(json.dumps(doc, separators=(",", ":")).encode())


if __name__ == "__main__":
    main()
