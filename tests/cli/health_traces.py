#!/usr/bin/env python3
"""health_traces.py OUTDIR: the small traces tests/cli/health.sh ingests, one job folder each,
written the way Kineto writes them, each with one thing wrong that hta_trace_health must see
(numbers in the comments are what the checks must give; times in µs).

  clock/     3 ranks (world size 3), 3 steps of 1000 each, 4 all-reduces ending together at
             1150, 1650, 2150, 2650 (+ a gemm per step); rank 2's clock is 700 µs ahead (all
             its times + 700): clock_offset 0, 0, 700 (warn).
  noflows/   10 kernels, 3 of which lost their correlation id (so did their launches': they
             carry ids nothing matches), no flows: 30% of kernels without a launch, 30% of
             launches without a kernel (warn), flows 0 (warn).
  steps/     6 steps of 1000 but step 3 (50: collapsed) and the last (200: truncated); a kernel
             in each: collapsed_steps 1 (warn), last_step 0.2 (warn).
  gpuonly/   launches and kernels, no operator or step around them: cpu_activity 0% (warn).
  cpuonly/   operators only: gpu_activity 0 (warn).
  cpu4/      4 ranks of cpuonly's kind: hta-ingest says it once for the 4 traces.
  ns/        displayTimeUnit "ns", times with 3 decimals: time_unit 'ns' with ns_resolution,
             ts stored exact (1000.125 µs is 1000125 ns).
  stopped/   Kineto's log says its GPU buffer filled: profiler_stopped_early 1 (fail).
"""
import json
import os
import sys

DEV = [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85520809984,
        "computeMajor": 9, "computeMinor": 0, "numSms": 132}]


class Trace:
    def __init__(self, rank=None, world=None, shift=0.0, unit="ms", ops=True, flows=True):
        self.ev, self.corr, self.rank, self.world = [], 100, rank, world
        self.shift, self.unit, self.ops, self.flows = shift, unit, ops, flows

    def x(self, cat, name, pid, tid, ts, dur, **args):
        e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid,
             "ts": round(ts + self.shift, 3), "dur": dur}
        if args:
            e["args"] = args
        self.ev.append(e)

    def step(self, n, ts, dur):
        self.x("user_annotation", "ProfilerStep#%d" % n, 1, 1, ts, dur)

    def kernel(self, name, ts, dur, linked=True, stream=7, **meta):
        """A launch 20 µs before the kernel (inside an aten op when self.ops), the kernel, a flow."""
        self.corr += 1
        c = self.corr
        if self.ops:
            self.x("cpu_op", "aten::op", 1, 1, ts - 25, 10, **{"External id": c})
        self.x("cuda_runtime", "cudaLaunchKernel", 1, 1, ts - 20, 5,
               correlation=c if linked else c + 10000, **{"External id": c})
        args = {"device": 0, "stream": stream, "External id": c}
        if linked:
            args["correlation"] = c
        args.update(meta)
        self.x("kernel", name, 0, stream, ts, dur, **args)
        if self.flows and linked:
            for ph, t, pid, tid in (("s", ts - 20, 1, 1), ("f", ts, 0, stream)):
                e = {"ph": ph, "id": c, "pid": pid, "tid": tid, "ts": round(t + self.shift, 3),
                     "cat": "ac2g", "name": "ac2g"}
                if ph == "f":
                    e["bp"] = "e"
                self.ev.append(e)

    def write(self, path, **meta):
        doc = {"schemaVersion": 1, "deviceProperties": DEV, "traceEvents": self.ev,
               "displayTimeUnit": self.unit, "traceName": os.path.basename(path)}
        if self.rank is not None:
            doc["distributedInfo"] = {"backend": "nccl", "rank": self.rank, "world_size": self.world}
        doc.update(meta)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            json.dump(doc, f)


def allreduce(i):
    return {"Collective name": "allreduce", "Process Group Name": "0", "Process Group Ranks": "[0, 1, 2]",
            "Group size": 3, "dtype": "Float", "In msg nelems": 1024, "Out msg nelems": 1024}


def main(out):
    # clock/: the all-reduces start at different times on each rank but end together
    for r in range(3):
        t = Trace(rank=r, world=3, shift=700.0 if r == 2 else 0.0)
        for s in range(3):
            t.step(s + 1, 1000 + 1000 * s, 1000)
            t.kernel("gemm_kernel", 1100 + 1000 * s, 200)
        for i in range(4):
            start = 1100 + 500 * i + 10 * r
            t.kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", start, 1150 + 500 * i - start, stream=20,
                     **allreduce(i))
        t.write(os.path.join(out, "clock", "rank%d.json" % r))
    # noflows/: kernels 0, 3 and 6 lost their correlation
    t = Trace(flows=False)
    t.step(1, 900, 2000)
    for i in range(10):
        t.kernel("gemm_kernel", 1000 + 100 * i, 50, linked=i % 3 != 0 or i == 9)
    t.write(os.path.join(out, "noflows", "trace.json"))
    # steps/
    t = Trace()
    ts = 1000
    for n, dur in enumerate([1000, 1000, 50, 1000, 1000, 200]):
        t.step(n + 1, ts, dur)
        t.kernel("gemm_kernel", ts + 30, 10)
        ts += dur
    t.write(os.path.join(out, "steps", "trace.json"))
    # gpuonly/ and cpuonly/
    t = Trace(ops=False)  # no CPU activity recorded: no step either
    for i in range(5):
        t.kernel("gemm_kernel", 1000 + 100 * i, 50)
    t.write(os.path.join(out, "gpuonly", "trace.json"))
    t = Trace()
    t.step(1, 900, 1000)
    for i in range(5):
        t.x("cpu_op", "aten::add", 1, 1, 1000 + 100 * i, 50)
    t.write(os.path.join(out, "cpuonly", "trace.json"))
    for r in range(4):
        t = Trace(rank=r, world=4)
        t.x("cpu_op", "aten::add", 1, 1, 1000, 50)
        t.write(os.path.join(out, "cpu4", "rank%d.json" % r))
    # ns/
    t = Trace(unit="ns")
    t.step(1, 999.5, 1000)
    for i in range(5):
        t.kernel("gemm_kernel", 1000.125 + 100 * i, 50.25)
    t.write(os.path.join(out, "ns", "trace.json"), baseTimeNanoseconds=1700000000000000000)
    # stopped/
    t = Trace()
    t.step(1, 900, 1000)
    t.kernel("gemm_kernel", 1000, 50)
    t.write(os.path.join(out, "stopped", "trace.json"), INFO=[
        "INFO:2024-05-22 17:15:22 1:1 CuptiActivityProfiler.cpp:297] Processed 127395 GPU records (4774824 bytes)",
        "INFO:2024-05-22 17:15:22 1:1 CuptiActivityProfiler.cpp:333] Record counts: Out-of-range = 4181, "
        "Blocklisted runtime = 37458, Invalid ext correlations = 0, CPU GPU out-of-order = 0, "
        "Unexpected CUDA events = 0, CUPTI stopped early? = 1"],
        ERROR=["ERROR:2024-05-22 17:15:22 1:1 GenericActivityProfiler.cpp:799] State: CollectTrace stopped by GPU "
               "profiler. (Buffer size configured is 128MB)"])


if __name__ == "__main__":
    main(sys.argv[1])
