#!/usr/bin/env python3
"""Writes the small graph replay jobs tests/cli/graph.sh checks (one folder each, laid out
as TraceLens has them: the replay, capture_traces/ with the captures and their index).

  graph_gen.py DIR
  graph_gen.py --example DIR    the example job of docs/sql.md (examples/graph_replay)

A replay holds iteration annotations (roots), hipGraphLaunch calls and the GPU events they
ran; a capture holds hipStreamBeginCapture/EndCapture windows with operators and the
launch calls (dispatches) inside. Kernel names are single words; a dispatch is written
(operator, kernel) with kernel "memcpy"/"memset" for hipMemcpyAsync/hipMemsetAsync calls.
"""
import json
import os
import sys

GPU = {"memcpy": ("gpu_memcpy", "Memcpy DtoD (Device -> Device)"),
       "memset": ("gpu_memset", "Memset (Device)")}


def root_name(batch):
    return ("execute_%d_context_0(sq0sk0sqsq0sqsk0)_generation_%d(sq%dsk100sqsq%dsqsk100)"
            % (batch, batch, batch, batch))


def x(cat, name, ts, dur, pid=1, tid=1, **args):
    e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur}
    if args:
        e["args"] = args
    return e


def replay(roots, eager=True, unlinked=True):
    """ROOTS: [(batch or None, [launch, ...])], a launch a list of (kernel, stream[, node])
    in start order. Each root spans 1000 us; launches at 10 us steps inside it."""
    ev = [x("python_function", "serve.py(1): loop", 0, 100000)]
    corr = 100
    for r, (batch, launches) in enumerate(roots):
        t0 = 1000 + r * 2000
        if batch is not None:
            ev.append(x("user_annotation", root_name(batch), t0, 1000))
        ev.append(x("python_function", "model_runner.py(7): execute_model", t0 + 1, 990))
        for j, kernels in enumerate(launches):
            lt = t0 + 10 + j * 300
            ev.append(x("cuda_runtime", "hipGraphLaunch", lt, 5, correlation=corr))
            kt = lt + 20
            for k in kernels:
                cat, name = GPU.get(k[0], ("kernel", k[0]))
                args = {"stream": k[1], "correlation": corr}
                if len(k) > 2:
                    args["graph node id"] = k[2]
                ev.append(x(cat, name, kt, 10, pid=0, tid=k[1], **args))
                kt += 12
            corr += 1
    if eager:  # an operator that launches its kernel itself
        ev.append(x("cpu_op", "aten::copy_", 90000, 50, **{"Input Dims": [[4], [4]]}))
        ev.append(x("cuda_runtime", "hipLaunchKernel", 90010, 5, correlation=900,
                    kernel="copy_kernel"))
        ev.append(x("kernel", "copy_kernel", 90030, 3, pid=0, tid=7, stream=7, correlation=900))
    if unlinked:  # a kernel whose launch the trace lost
        ev.append(x("kernel", "orphan", 91000, 2, pid=0, tid=7, stream=7, correlation=999))
    return {"distributedInfo": {"rank": 0, "world_size": 1}, "traceEvents": ev}


def capture(windows, dims=8):
    """WINDOWS: lists of (operator, kernel) dispatches, one list per capture window."""
    ev = [x("python_function", "capture.py(1): capture_model", 0, 100000)]
    t, corr = 10, 500
    for disp in windows:
        ev.append(x("cuda_runtime", "hipStreamBeginCapture", t, 2))
        t += 10
        for d in disp:
            op, k = d[0], d[1]
            shapes = d[2] if len(d) > 2 else [[dims, 16], [16, 16]]
            types = d[3] if len(d) > 3 else ["float", "float"]
            ev.append(x("cpu_op", op, t, 15, **{"Input Dims": shapes, "Input type": types}))
            if k in GPU:
                ev.append(x("cuda_runtime", "hipMemcpyAsync" if k == "memcpy" else "hipMemsetAsync",
                            t + 2, 5, correlation=corr))
            else:
                ev.append(x("cuda_runtime", "hipLaunchKernel", t + 2, 5, correlation=corr,
                            kernel=k))
            t += 20
            corr += 1
        ev.append(x("cuda_runtime", "hipStreamEndCapture", t, 2))
        t += 100
    return {"distributedInfo": {"rank": 0, "world_size": 1}, "traceEvents": ev}


def write_job(root, name, rep, caps, index=True):
    """CAPS: [(batch, mode, trace)]."""
    d = os.path.join(root, name)
    os.makedirs(os.path.join(d, "capture_traces") if caps else d, exist_ok=True)
    with open(os.path.join(d, "replay.json"), "w") as f:
        json.dump(rep, f)
    entries = []
    for batch, mode, tr in caps:
        fn = "bs_%d_%s.json" % (batch, mode)
        with open(os.path.join(d, "capture_traces", fn), "w") as f:
            json.dump(tr, f)
        entries.append({"file": fn, "batch_size": batch, "mode": mode})
    if caps and index:
        with open(os.path.join(d, "capture_traces", "execution_details.json"), "w") as f:
            json.dump(entries, f)


GEMM_ADD = [("aten::mm", "gemm"), ("aten::add", "add")]


def example(d):
    """Three decode iterations of batch 8 replaying one captured graph (bf16 shapes); the
    third replay runs a kernel the capture does not have."""
    bf = ["c10::BFloat16", "c10::BFloat16"]
    disp = [("aten::mm", "gemm_bf16_qkv", [[8, 4096], [4096, 6144]], bf),
            ("aten::add", "elementwise_add", [[8, 4096], [8, 4096]], bf),
            ("aten::mm", "gemm_bf16_out", [[8, 4096], [4096, 4096]], bf)]
    step = [("gemm_bf16_qkv", 7), ("elementwise_add", 7), ("gemm_bf16_out", 7)]
    odd = [("gemm_bf16_qkv", 7), ("fill_kernel", 7), ("elementwise_add", 7), ("gemm_bf16_out", 7)]
    rep = replay([(8, [step]), (8, [step]), (8, [odd])])
    os.makedirs(os.path.dirname(os.path.abspath(d)), exist_ok=True)
    write_job(os.path.dirname(os.path.abspath(d)), os.path.basename(os.path.abspath(d)), rep,
              [(8, "FULL", capture([disp]))])


def main():
    if sys.argv[1] == "--example":
        example(sys.argv[2])
        return
    root = sys.argv[1]
    full = lambda disp, dims=8: capture([disp], dims)  # noqa: E731
    # positional, with an eager and an unlinked kernel
    write_job(root, "pos", replay([(8, [[("gemm", 7), ("add", 7)]])]), [(8, "FULL", full(GEMM_ADD))])
    # reordered kernels: group by name
    write_job(root, "reorder", replay([(8, [[("add", 7), ("gemm", 7)]])]),
              [(8, "FULL", full(GEMM_ADD))])
    # a kernel missing from the replay: greedy; one dispatch discarded
    write_job(root, "missing", replay([(8, [[("gemm", 7), ("add", 7)]])]),
              [(8, "FULL", full([("aten::mm", "gemm"), ("aten::relu", "relu"), ("aten::add", "add")]))])
    # an extra kernel: aligned, the extra one alone unmatched
    write_job(root, "extra", replay([(8, [[("gemm", 7), ("extra", 7), ("add", 7)]])]),
              [(8, "FULL", full(GEMM_ADD))])
    # two streams: add (stream 8) runs first
    write_job(root, "streams", replay([(8, [[("add", 8), ("gemm", 7), ("relu", 7)]])]),
              [(8, "FULL", full([("aten::mm", "gemm"), ("aten::add", "add"),
                                 ("aten::relu", "relu")]))])
    # memcpy and memset nodes: in order (root 1), reordered (root 2)
    mem = [("aten::copy_", "memcpy"), ("aten::mm", "gemm"), ("aten::zero_", "memset")]
    write_job(root, "mem", replay([(8, [[("memcpy", 7), ("gemm", 7), ("memset", 7)]]),
                                   (8, [[("memset", 7), ("memcpy", 7), ("gemm", 7)]])]),
              [(8, "FULL", full(mem))])
    # graph node ids: start order on two streams contradicts the capture order
    write_job(root, "nodeid", replay([(8, [[("relu", 8, 12), ("gemm", 7, 10), ("add", 8, 11)]])]),
              [(8, "FULL", full([("aten::mm", "gemm"), ("aten::add", "add"),
                                 ("aten::relu", "relu")]))])
    # a batch size picked among several captures: 12 -> the capture of 16
    write_job(root, "batch", replay([(12, [[("gemm", 7), ("add", 7)]])]),
              [(8, "FULL", full(GEMM_ADD, 8)), (16, "FULL", full(GEMM_ADD, 16)),
               (32, "FULL", full(GEMM_ADD, 32))])
    # a batch larger than every capture
    write_job(root, "bigbatch", replay([(64, [[("gemm", 7), ("add", 7)]])]),
              [(8, "FULL", full(GEMM_ADD))])
    # piecewise: two windows, two launches
    write_job(root, "piecewise", replay([(8, [[("gemm", 7)], [("add", 7), ("relu", 7)]])]),
              [(8, "PIECEWISE", capture([[("aten::mm", "gemm")],
                                         [("aten::add", "add"), ("aten::relu", "relu")]]))])
    # one graph replayed by three iterations: three calls of each captured operator
    write_job(root, "replays", replay([(8, [[("gemm", 7), ("add", 7)]])] * 3),
              [(8, "FULL", full(GEMM_ADD))])
    # a capture without its EndCapture: no window
    nowin = capture([GEMM_ADD])
    nowin["traceEvents"] = [e for e in nowin["traceEvents"] if e["name"] != "hipStreamEndCapture"]
    write_job(root, "nowindow", replay([(8, [[("gemm", 7), ("add", 7)]])]), [(8, "FULL", nowin)])
    # malformed args: a kernel name that is no string, a node id that is no integer
    odd = capture([GEMM_ADD])
    for e in odd["traceEvents"]:
        if e.get("args", {}).get("kernel") == "add":
            e["args"]["kernel"] = 42
    rep = replay([(8, [[("gemm", 7, "x"), ("add", 7, 3)]])])
    write_job(root, "oddargs", rep, [(8, "FULL", odd)])
    # no capture at all
    write_job(root, "nocapture", replay([(8, [[("gemm", 7), ("add", 7)]])]), [])
    # no iteration annotation: an indexed capture cannot be chosen ...
    write_job(root, "noroot", replay([(None, [[("gemm", 7), ("add", 7)]])]),
              [(8, "FULL", full(GEMM_ADD))])
    # ... the one capture of a job without an index has no rival
    write_job(root, "noindex", replay([(None, [[("gemm", 7), ("add", 7)]])]),
              [(8, "FULL", full(GEMM_ADD))], index=False)


if __name__ == "__main__":
    main()
