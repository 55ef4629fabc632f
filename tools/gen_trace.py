#!/usr/bin/env python3
"""gen_trace.py: write a realistic multi-rank PyTorch-profiler (Kineto) trace directory.

    gen_trace.py OUTDIR [--ranks 2] [--steps 4] [--layers 6] [--seed 0]
                        [--gzip] [--ns] [--amd] [--python] [--target-mb N]

No GPU is needed: the events come from a small simulation of a data-parallel
transformer training loop (embedding, N pre-LN blocks, LM head, cross-entropy,
AdamW, DDP gradient all-reduce), written the way libkineto writes them:

  * host side: ProfilerStep#N user_annotation windows, nested cpu_op events
    (aten::linear -> aten::t/aten::addmm, aten::layer_norm -> aten::native_layer_norm,
    ...), the backward pass on an autograd thread (autograd::engine::evaluate_function:
    XBackward0 ...), record_param_comms + nccl:all_reduce for DDP buckets, optional
    python_function frames (--python), [memory] instant events, fwdbwd flows;
  * cuda_runtime cudaLaunchKernel / cudaMemcpyAsync / cudaMemsetAsync /
    cudaStreamSynchronize / cudaEventRecord / cudaStreamWaitEvent / cudaEventSynchronize /
    cudaDeviceSynchronize, and cuda_driver cuLaunchKernel (a Triton kernel), each with a
    correlation id and the External id of the op that issued it;
  * GPU side: kernel / gpu_memcpy / gpu_memset rows on compute stream 7 and NCCL
    stream 20 (correlation, External id, device, stream, grid/block, bytes,
    'memory bandwidth (GB/s)'), NCCL kernels (ncclDevKernel_AllReduce_Sum_f32_RING_LL
    for gradients, the older ncclKernel_AllReduce_RING_LL_Sum_float for the loss)
    overlapping compute, gpu_user_annotation rows, cuda_sync rows (Stream Sync,
    Stream Wait Event, Event Sync, Context Sync), ac2g flows (ph s/f);
  * M metadata (process/thread names and sort indexes), the "PyTorch Profiler (0)"
    Trace span, a GPU-memory counter (ph C) per step, distributedInfo,
    deviceProperties, baseTimeNanoseconds, displayTimeUnit "ms".

The simulation keeps the GPU consistent: a kernel starts after its runtime call
starts (launch delay >= 0), never overlaps another on its stream, waits for the
events its stream waits on, and a collective ends on every rank only after the
slowest rank joined it. The forward and backward passes are GPU-bound (the launch
queue builds up), data loading and gradient clipping are host-bound (the GPU
idles), the loss .item() drains the queue. The last rank is a straggler: slower
host and slightly slower GPU, so the others wait for it inside NCCL kernels.

--ns       timestamps in fractional microseconds with 3 decimals (ns resolution,
           PyTorch >= 2.4); otherwise integer microseconds.
--amd      ROCm flavour: hipLaunchKernel / hipExtModuleLaunchKernel / hipMemcpyAsync /
           hipMemsetAsync, every GPU row on stream 0 (RCCL included, so there is no
           comm/compute overlap), runtime 'stream' args "0x0", no cuda_sync rows, no
           bandwidth arg (bytes only).
--target-mb N  run as many steps as it takes to write N MB of JSON in all (for benchmarks).

Healthy jobs and planted problems (what hta_findings looks for):
--healthy  none of the problems above: the data loader prefetches (its batch is ready), inputs
           are pinned and copied with non_blocking=True, nothing reads the loss on the host
           (no .item(), no timing event), no rank is slower than the others, and the model is
           large enough (--tokens 65536 x 6 / min(layers, 6) unless given) that the last all-reduce is a
           small part of the step. The GPU never waits for the host once the queue is full.
Each of these plants one problem (on top of --healthy, or of the default), every step:
--slow-dataloader-us N   the DataLoader's __next__ takes N us more on the host
--item-syncs N           N .item()-style reads in the forward pass: a copy into pinned memory
                         and a cudaStreamSynchronize that waits for the GPU's queue
--pageable-copies N      N more .to('cuda') copies of --pageable-kb KB from pageable memory
--malloc-churn N         N cudaMalloc (120 us) in aten::empty and N cudaFree (60 us) at the end
                         of the step (torch.cuda.empty_cache())
--tiny-kernels N         N tiny kernels (2 us) launched one by one at the end of the step: the
                         GPU runs dry and waits for each launch
--exposed-comm-us N      an all-reduce of N us after the optimizer that the next step waits for
--straggler R --straggler-kernel-us N
                         an N us kernel on rank R before its first gradient all-reduce, so the
                         others wait for it
--gemm-tflops N          the linear layers' (and the LM head's) float GEMMs run at N TFLOPS
                         (an H100 SXM peaks at 494.7 in TF32): under 247, more than twice their
                         roofline time
--planted FILE           write what was planted (JSON): per rank and step what fixing each plant
                         recovers: the compute stream's idle time caused by the synchronizations,
                         pageable copies and allocator calls (during them, and after one until the
                         host is ahead of the GPU again), the GPU's wait for the tiny kernels'
                         launches, the planted
                         all-reduce's kernel time and the GEMMs' time above their roofline;
                         per step the others' mean wait on the collectives the straggler
                         reached last.

The output is deterministic for a given set of options (gzip mtime is 0).
Only the Python standard library is used.
"""

import argparse
import gzip
import os
import random
import shutil
import sys
import time

# --------------------------------------------------------------------------- constants

BASE_TIME_NS = 1735689600000000000          # baseTimeNanoseconds (2025-01-01T00:00:00Z)
T0_NS = 2106453117384215                    # first event, ns after BASE_TIME_NS (~24 days)
QUEUE_MAX = 1024                            # CUDA's launch queue: a launch blocks when it is full
COMPUTE_STREAM = 7
NCCL_STREAM = 20
CTX_SYNC_STREAM = 4294967295

H100 = ('"id": %d, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85029158912,\n'
        '      "computeMajor": 9, "computeMinor": 0,\n'
        '      "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048,\n'
        '      "regsPerBlock": 65536, "warpSize": 32,\n'
        '      "sharedMemPerBlock": 49152, "numSms": 132\n'
        '    , "regsPerMultiprocessor": 65536, "sharedMemPerBlockOptin": 232448, '
        '"sharedMemPerMultiprocessor": 233472')
MI300 = ('"id": %d, "name": "AMD Instinct MI300X", "totalGlobalMem": 206141652992,\n'
         '      "computeMajor": 9, "computeMinor": 4,\n'
         '      "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048,\n'
         '      "regsPerBlock": 131072, "warpSize": 64,\n'
         '      "sharedMemPerBlock": 65536, "numSms": 304\n'
         '    , "maxSharedMemoryPerMultiProcessor": 65536')

# Kernel names. NVIDIA first, AMD override where hipcc/hipBLASLt/aotriton names differ.
_EW = 'void at::native::vectorized_elementwise_kernel<4, %s, at::detail::Array<char*, %d> >(int, %s, at::detail::Array<char*, %d>)'


def _ew(functor, n):
    return _EW % (functor, n, functor, n)


K = {
    'embed': 'void at::native::(anonymous namespace)::indexSelectLargeIndex<float, long, unsigned int, 2, 2, -2, true>(at::cuda::detail::TensorInfo<float, unsigned int>, at::cuda::detail::TensorInfo<float const, unsigned int>, at::cuda::detail::TensorInfo<long const, unsigned int>, int, int, unsigned int, unsigned int, long)',
    'embed_bwd': 'void at::native::(anonymous namespace)::embedding_backward_feature_kernel<float, float, long>(long const*, float const*, float*, int, long, int, int)',
    'ln': 'void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, float const*, float const*, float const*, float*, float*, float*)',
    'ln_bwd_in': 'void at::native::(anonymous namespace)::layer_norm_grad_input_kernel_vectorized<float, float>(float const*, float const*, float const*, float const*, float const*, float*, int)',
    'ln_bwd_gb': 'void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel_32x32<float, float>(long, long, float const*, float const*, float const*, float const*, float*, float*)',
    'gemm_tn': 'sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas',
    'gemm_nn': 'sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas',
    'gemm_nt': 'sm90_xmma_gemm_f32f32_tf32f32_f32_nt_n_tilesize128x256x32_warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas',
    'attn': 'fmha_cutlassF_f32_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<float, cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)',
    'attn_bwd': 'fmha_cutlassB_f32_aligned_64x64_k64_sm80(PyTorchMemEffAttention::AttentionBackwardKernel<cutlass::arch::Sm80, float, true, false, true, 64, 64, 64, false>::Params)',
    'add': _ew('at::native::CUDAFunctor_add<float>', 3),
    'gelu': _ew('at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}', 2),
    'gelu_bwd': _ew('at::native::GeluBackwardCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(float, float)#1}', 3),
    'sum': 'void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4>)',
    'logsm': 'void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::native::(anonymous namespace)::LogSoftMaxForwardEpilogue>(float*, float const*, int)',
    'logsm_bwd': 'void at::native::(anonymous namespace)::cunn_SoftMaxBackward<4, float, float, float, at::native::(anonymous namespace)::LogSoftMaxBackwardEpilogue>(float*, float const*, float const*, long)',
    'nll': 'void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<float, float, long>(float*, float*, float const*, long const*, float const*, bool, long, long, long, long)',
    'nll_bwd': 'void at::native::(anonymous namespace)::nll_loss_backward_reduce_cuda_kernel_2d<float, long>(float*, float const*, long const*, float const*, float const*, bool, int, int, long, long)',
    'fill': _ew('at::native::FillFunctor<float>', 1),
    'div': _ew('at::native::BinaryFunctor<float, float, float, at::native::binary_internal::DivFunctor<float> >', 3),
    'mul': _ew('at::native::AUnaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> >', 2),
    'norm': 'void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::LpNormFunctor<float, (at::native::(anonymous namespace)::NormType)1, float, float>, float*, int>(at::native::(anonymous namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::LpNormFunctor<float, (at::native::(anonymous namespace)::NormType)1, float, float>, float*, int)',
    'norm_cleanup': 'void at::native::lpnorm_cleanup<float, (at::native::(anonymous namespace)::NormType)1, float, float>(float const*, at::native::(anonymous namespace)::TensorListAddresses, int)',
    'clip': 'triton_per_fused_clamp_div_linalg_vector_norm_0',
    'adam': 'void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, false>, float*, double, double, double, double, double, bool, float*, float*>(at::native::(anonymous namespace)::TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, false>, float*, double, double, double, double, double, bool, float*, float*)',
    'nccl_grad': 'ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)',
    'nccl_loss': 'ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)',
}
K_AMD = dict(K)
K_AMD.update({
    'gemm_tn': 'Cijk_Alik_Bljk_S_B_Bias_HA_S_SAV_UserArgs_MT128x128x32_MI16x16x1_SN_LDSB1_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_EPS0_GRVWA4_GRVWB4_GSUAMB_IU1_K1_LBSPPA128_LBSPPB128_LBSPPM0_LPA4_LPB4_LPM0_LRVW4_LWPMn1_MIAV0_MIWT4_4_MO40_NTn1_NTA0_NTB0_NTC0_NTD0_NTM0_NEPBS16_NLCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO0_SRVW0_SSO0_SVW4_TLDS1_USFGROn1_VSn1_VWA4_VWB4_WSGRA0_WSGRB0_WS64_WG32_8_1',
    'gemm_nn': 'Cijk_Ailk_Bljk_S_B_Bias_HA_S_SAV_UserArgs_MT128x128x32_MI16x16x1_SN_LDSB1_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_EPS0_GRVWA4_GRVWB4_GSUAMB_IU1_K1_LBSPPA128_LBSPPB128_LBSPPM0_LPA4_LPB4_LPM0_LRVW4_LWPMn1_MIAV0_MIWT4_4_MO40_NTn1_NTA0_NTB0_NTC0_NTD0_NTM0_NEPBS16_NLCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO0_SRVW0_SSO0_SVW4_TLDS1_USFGROn1_VSn1_VWA4_VWB4_WSGRA0_WSGRB0_WS64_WG32_8_1',
    'gemm_nt': 'Cijk_Alik_Bjlk_S_B_Bias_HA_S_SAV_UserArgs_MT128x256x32_MI16x16x1_SN_LDSB1_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_EPS0_GRVWA4_GRVWB4_GSUAMB_IU1_K1_LBSPPA128_LBSPPB128_LBSPPM0_LPA4_LPB4_LPM0_LRVW4_LWPMn1_MIAV0_MIWT4_4_MO40_NTn1_NTA0_NTB0_NTC0_NTD0_NTM0_NEPBS16_NLCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO0_SRVW0_SSO0_SVW4_TLDS1_USFGROn1_VSn1_VWA4_VWB4_WSGRA0_WSGRB0_WS64_WG32_8_1',
    'attn': 'attn_fwd',
    'attn_bwd': 'bwd_kernel_dk_dv',
    'nccl_grad': 'ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)',
    'nccl_loss': 'ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)',
})
GEMMS = ('gemm_tn', 'gemm_nn', 'gemm_nt')

# Launch geometry per kernel: grid, block, registers per thread, shared memory.
GEOM = {
    'embed': ((256, 1, 1), (128, 1, 1), 40, 0), 'embed_bwd': ((24, 1, 1), (32, 32, 1), 38, 8192),
    'ln': ((4096, 1, 1), (128, 1, 1), 32, 0), 'ln_bwd_in': ((4096, 1, 1), (128, 1, 1), 40, 0),
    'ln_bwd_gb': ((24, 1, 1), (32, 32, 1), 48, 8448),
    'gemm_tn': ((18, 32, 1), (384, 1, 1), 168, 213504), 'gemm_nn': ((6, 32, 1), (384, 1, 1), 168, 213504),
    'gemm_nt': ((3, 6, 8), (384, 1, 1), 168, 230400),
    'attn': ((16, 12, 4), (32, 4, 1), 128, 30720), 'attn_bwd': ((16, 12, 4), (32, 4, 1), 168, 73728),
    'add': ((3072, 1, 1), (128, 1, 1), 24, 0), 'gelu': ((12288, 1, 1), (128, 1, 1), 26, 0),
    'gelu_bwd': ((12288, 1, 1), (128, 1, 1), 28, 0), 'sum': ((24, 4, 1), (32, 16, 1), 32, 16),
    'logsm': ((4096, 1, 1), (1024, 1, 1), 38, 64), 'logsm_bwd': ((4096, 1, 1), (1024, 1, 1), 38, 64),
    'nll': ((1, 1, 1), (32, 1, 1), 24, 256), 'nll_bwd': ((1, 1, 1), (32, 1, 1), 20, 0),
    'fill': ((1, 1, 1), (64, 1, 1), 16, 0), 'div': ((3072, 1, 1), (128, 1, 1), 22, 0),
    'mul': ((1280, 1, 1), (128, 1, 1), 20, 0), 'norm': ((320, 1, 1), (512, 1, 1), 32, 2048),
    'norm_cleanup': ((1, 1, 1), (512, 1, 1), 24, 2048), 'clip': ((1, 1, 1), (256, 1, 1), 26, 16),
    'adam': ((1280, 1, 1), (512, 1, 1), 56, 0),
    'nccl_grad': ((2, 1, 1), (640, 1, 1), 96, 87568), 'nccl_loss': ((2, 1, 1), (512, 1, 1), 96, 87568),
}

MEMCPY_NAMES = {
    'HtoD': ('Memcpy HtoD (Pageable -> Device)', 'Memcpy HtoD (Host -> Device)'),
    'DtoH': ('Memcpy DtoH (Device -> Pageable)', 'Memcpy DtoH (Device -> Host)'),
    'DtoD': ('Memcpy DtoD (Device -> Device)', 'Memcpy DtoD (Device -> Device)'),
}

# --------------------------------------------------------------------------- formatting


def _dims_args(dims, types):
    """The record_shapes args of a cpu_op: Concrete Inputs, Input type, Input Strides, Input Dims."""
    def strides(d):
        s, acc = [], 1
        for x in reversed(d):
            s.append(acc)
            acc *= x
        return list(reversed(s))
    conc = ', '.join('""' for _ in dims)
    typ = ', '.join('"%s"' % t for t in types)
    st = ', '.join(str(strides(d)) for d in dims)
    dm = ', '.join(str(list(d)) for d in dims)
    return ('"Record function id": 0, "Concrete Inputs": [%s], "Input type": [%s], '
            '"Input Strides": [%s], "Input Dims": [%s], ' % (conc, typ, st, dm))


class Fmt:
    """Event text in libkineto's layout (ChromeTraceLogger)."""

    def __init__(self, ns):
        self.ns = ns

    def tsdur(self, ts, dur):
        if self.ns:
            return '%d.%03d' % divmod(ts, 1000), '%d.%03d' % divmod(dur, 1000)
        t = ts // 1000
        return '%d' % t, '%d' % ((ts + dur) // 1000 - t)

    def ts(self, ts):
        if self.ns:
            return '%d.%03d' % divmod(ts, 1000)
        return '%d' % (ts // 1000)

    def x(self, cat, name, pid, tid, ts, dur, args):
        t, d = self.tsdur(ts, dur)
        return ('  {\n    "ph": "X", "cat": "%s", "name": "%s", "pid": %s, "tid": %s,\n'
                '    "ts": %s, "dur": %s,\n    "args": {\n      %s\n    }\n  },\n'
                % (cat, name, pid, tid, t, d, args))

    def flow(self, ph, fid, pid, tid, ts, cat='ac2g'):
        if ph == 's':
            return ('  {\n    "ph": "s", "id": %d, "pid": %s, "tid": %s, "ts": %s,\n'
                    '    "cat": "%s", "name": "%s"\n  },\n' % (fid, pid, tid, self.ts(ts), cat, cat))
        return ('  {\n    "ph": "f", "id": %d, "pid": %s, "tid": %s, "ts": %s,\n'
                '    "cat": "%s", "name": "%s", "bp": "e"\n  },\n' % (fid, pid, tid, self.ts(ts), cat, cat))

    def meta(self, name, pid, tid, ts, key, value):
        return ('  {\n    "name": "%s", "ph": "M", "ts": %s, "pid": %s, "tid": %s,\n'
                '    "args": {\n      "%s": %s\n    }\n  },\n' % (name, self.ts(ts), pid, tid, key, value))


def _f6(x):
    return '%f' % x


# --------------------------------------------------------------------------- one rank


class Rec:
    """An open or closed host event (cpu_op, user_annotation, python_function)."""
    __slots__ = ('cat', 'name', 'tid', 'ts', 'dur', 'ext', 'evidx', 'args', 'gpu', 'pyid', 'pyparent', 'post')

    def __init__(self, cat, name, tid, ts, ext, evidx, args):
        self.cat, self.name, self.tid, self.ts, self.ext, self.evidx, self.args = cat, name, tid, ts, ext, evidx, args
        self.dur = 0
        self.gpu = None
        self.pyid = self.pyparent = None
        self.post = ''        # text written right after the event (its fwdbwd flow)


class Rank:
    """One rank's simulation: host clocks per thread, the time each stream becomes free, the open
    host events per thread; events are written per step into the cpu / python / gpu part files."""

    def __init__(self, rank, cfg, parts):
        self.r = rank
        self.cfg = cfg
        self.world = cfg.ranks
        self.amd = cfg.amd
        self.rng = random.Random(cfg.seed * 1000003 + rank * 7919 + 17)
        self.f = Fmt(cfg.ns)
        self.K = K_AMD if cfg.amd else K
        self.dev = rank % 8
        self.pid = 48213 + 1117 * rank
        self.main = self.pid
        self.bwd = self.pid + 203
        self.gpid = self.dev
        self.cs = 0 if cfg.amd else COMPUTE_STREAM       # compute stream
        self.ns_ = 0 if cfg.amd else NCCL_STREAM          # NCCL stream
        straggler = cfg.straggler if cfg.straggler is not None else self.world - 1
        slow = rank == straggler and self.world > 1
        self.slow = slow
        # --healthy: no rank is slower than the others unless a straggler is planted on purpose
        self.host_scale = 1.15 if slow and not cfg.healthy else 1.0
        self.gpu_scale = 1.03 if slow and not cfg.healthy else 1.0
        self.planted = {}         # --planted: step -> {quantity: us}
        self.pl = None            # the current step's entry (None outside steps)
        self.cur_step = None
        self.track_wait = False   # the tiny kernels: count the GPU's wait for their launches
        self.blame = None         # --planted: the quantity charged with the GPU's idle gaps until the host is ahead again
        self.blame_since = 0      # when the call that set it began
        start_skew = self.rng.randint(0, 40000)
        self.clock = {self.main: T0_NS + 120000 + start_skew, self.bwd: T0_NS + 120000 + start_skew}
        self.stack = {self.main: [], self.bwd: []}
        self.sfree = {self.cs: 0, self.ns_: 0}
        self.queued = []          # ends of the GPU work queued and not done (the launch queue)
        self.corr = 1200 + 31 * rank
        self.ext = 0
        self.evidx = 0
        self.pyid = 0
        self.seqno = 9000
        self.cpu, self.py, self.gpu = parts       # file objects (text parts)
        self.cpu_recs = []
        self.py_recs = []
        self.gbuf = []
        self.annots = []          # closed user annotations with GPU spans, emitted at step end
        self.bytes = 0
        self.mem_alloc = 0
        self.launch_rt = 'hipLaunchKernel' if cfg.amd else 'cudaLaunchKernel'
        self.ranks_str = '[%s]' % ', '.join(str(i) for i in range(self.world))
        H, T = cfg.hidden, cfg.tokens
        self.H, self.T, self.V, self.B_, self.S = H, T, cfg.vocab, cfg.batch, T // cfg.batch
        self.gs = (H / 768.0) ** 2 * (T / 4096.0)     # GEMM/attention time scale vs. the defaults
        # the linear layers' GEMMs: at 150 TFLOPS by default (30% of an H100's TF32 peak, a
        # low_efficiency finding); --healthy runs them at 330 (67%)
        self.gemm_s = self.gs * (0.45 if cfg.healthy else 1.0)
        self.gemm_tflops = 330e6 if cfg.healthy else 150e6
        self.es = (H / 768.0) * (T / 4096.0)          # elementwise time scale
        self._args_cache = {}
        self.fwd_seq = []         # forward ops that made an autograd node: (seq, Rec), a stack
        self.flow_id = 0

    # ---------------------------------------------------------------- helpers
    def gap(self, lo, hi):
        """Host time in ns, uniform in [lo, hi] µs, scaled for the straggler."""
        return int(self.rng.uniform(lo, hi) * 1000 * self.host_scale)

    def gemm(self, m, n, k, bias, us):
        """A float GEMM (m x k) . (k x n) (+ a bias of n) that takes US by default; with
        --gemm-tflops it takes its FLOPs at that rate. Returns (us, the roofline time on an
        H100 SXM's TF32 peak, 494.7 TFLOPS and 3.35 TB/s, or None without the plant), the FLOPs
        and bytes counted as hta_op_perf counts them (2mnk + mn; (mk + kn + mn + n) x 4)."""
        if not self.cfg.gemm_tflops:
            return us, None
        flops = 2.0 * m * n * k + (m * n if bias else 0)
        nbytes = 4.0 * (m * k + k * n + m * n + (n if bias else 0))
        return flops / (self.cfg.gemm_tflops * 1e6), max(flops / 494.7e6, nbytes / 3.35e6)

    def gdur(self, us, jitter=0.06):
        if self.cfg.healthy:
            jitter /= 6.0   # identical GPUs: the same kernel takes the same time within 1%
        d = us * self.gpu_scale * (1.0 + self.rng.gauss(0.0, jitter))
        return max(600, int(d * 1000))

    def A(self, key, dims, types):
        """Cached record_shapes args text."""
        a = self._args_cache.get(key)
        if a is None:
            a = self._args_cache[key] = _dims_args(dims, types)
        return a

    def B(self, tid, name, cat='cpu_op', args='', lo=1.0, hi=4.0, gpu=False, seq=None):
        t = self.clock[tid] + self.gap(lo, hi)
        self.clock[tid] = t
        self.evidx += 1
        if cat == 'python_function':
            self.pyid += 1
            rec = Rec(cat, name, tid, t, None, self.evidx, args)
            rec.pyid = self.pyid
            parent = None
            for p in reversed(self.stack[tid]):
                if p.cat == 'python_function':
                    parent = p.pyid
                    break
            rec.pyparent = parent
            self.py_recs.append(rec)
        else:
            self.ext += 1
            if seq is not None:   # autograd: forward ops carry the node's sequence number, backward ops also the forward thread
                args = ('%s"Sequence number": %d, ' % (args, seq) if tid == self.main else
                        '%s"Sequence number": %d, "Fwd thread id": 1, ' % (args, seq))
            rec = Rec(cat, name, tid, t, self.ext, self.evidx, args)
            if seq is not None and tid == self.main:
                self.fwd_seq.append((seq, rec))
            self.cpu_recs.append(rec)
            if gpu:
                rec.gpu = {}
        self.stack[tid].append(rec)
        return rec

    def E(self, tid, lo=0.5, hi=2.5):
        rec = self.stack[tid].pop()
        self.clock[tid] += self.gap(lo, hi)
        rec.dur = self.clock[tid] - rec.ts
        if rec.gpu:
            self.annots.append(rec)
        return rec

    def op(self, tid, name, args='', lo=1.0, hi=4.0, tail=(0.5, 2.5)):
        """A leaf cpu_op without GPU work."""
        self.B(tid, name, args=args, lo=lo, hi=hi)
        self.clock[tid] += self.gap(0.3, 1.5)
        self.E(tid, *tail)

    def cur_ext(self, tid):
        st = self.stack[tid]
        for rec in reversed(st):
            if rec.cat != 'python_function':
                return rec.ext
        return 0

    def next_corr(self):
        self.corr += 1 + (self.rng.random() < 0.3) * self.rng.randint(1, 4)
        return self.corr

    def runtime(self, tid, name, cbid, extra='', lo=3.0, hi=7.0, pre=(0.8, 3.0), ext=True):
        """A cuda_runtime event with no GPU partner (cudaEventRecord, ...). Returns (ts, dur, corr)."""
        t = self.clock[tid] + self.gap(*pre)
        d = self.gap(lo, hi)
        corr = self.next_corr()
        self.clock[tid] = t + d
        self.emit_runtime(tid, name, t, d, corr, cbid, extra, ext)
        return t, d, corr

    def emit_runtime(self, tid, name, t, d, corr, cbid, extra='', ext=True, cat='cuda_runtime'):
        e = ('"External id": %d,      ' % self.cur_ext(tid)) if ext else ''
        if self.amd:
            args = '%s%s"cid": %d, "correlation": %d' % (e, extra, cbid, corr)
        else:
            args = '%s"cbid": %d, "correlation": %d%s' % (e, cbid, corr, extra)
        self.gbuf.append(self.f.x(cat, name, self.pid, tid, t, d, args))

    def _touch_annots(self, tid, stream, ks, ke):
        for rec in self.stack[tid]:
            g = rec.gpu
            if g is not None:
                span = g.get(stream)
                if span is None:
                    g[stream] = [ks, ke]
                else:
                    if ks < span[0]:
                        span[0] = ks
                    if ke > span[1]:
                        span[1] = ke

    def launch(self, tid, key, us, stream=None, dep=0, rt_lo=3.5, rt_hi=8.0, driver=False,
               extra_kargs='', coll=None, transfer_us=None, roof_us=None):
        """cudaLaunchKernel (or cuLaunchKernel / hip*) plus its kernel. Returns (kstart, kend)."""
        stream = self.cs if stream is None else stream
        t = self.clock[tid] + self.gap(1.0, 3.5)
        d = self.gap(rt_lo, rt_hi)
        if self.rng.random() < 0.004:
            d += self.gap(50, 160)               # a slow launch: runtime outlier
        d = self.queue_wait(t, d)
        corr = self.next_corr()
        ext = self.cur_ext(tid)
        name = self.K[key]
        kstart = max(t + int(d * self.rng.uniform(0.55, 0.95)), self.sfree[stream] + self.rng.randint(700, 2200), dep)
        self.charge_gap(stream, t + d, kstart)
        if self.track_wait and t > self.sfree[stream]:
            # the stream ran dry before this launch began: the GPU waited for the host
            self.pl['host_wait_us'] = self.pl.get('host_wait_us', 0) + (kstart - self.sfree[stream]) / 1000.0
        if coll is not None:
            # A collective: every rank joins, the slowest one sets the end.
            end = yield ('coll', kstart, coll, transfer_us, self.cur_step)
            kend = max(kstart + 1500, end + self.rng.randint(0, 2500))
            dur = kend - kstart
            if transfer_us is not None:
                self.pl['exposed_comm_us'] = self.pl.get('exposed_comm_us', 0) + dur / 1000.0
        else:
            dur = self.gdur(us)
            kend = kstart + dur
            if roof_us is not None:   # --gemm-tflops: its time above the roofline
                self.pl['gemm_excess_us'] = self.pl.get('gemm_excess_us', 0) + dur / 1000.0 - roof_us
        self.sfree[stream] = kend
        self.queued.append(kend)
        self.clock[tid] = t + d
        g = GEOM[key]
        f = self.f
        if self.amd:
            rt_name = 'hipExtModuleLaunchKernel' if key in GEMMS else self.launch_rt
            rt_extra = ('"kernel": "%s", ' % name)
            rt_tail = ', "stream": "0x0",      "grid": [%d, %d, %d],      "block": [%d, %d, %d],      "shared memory": %d' % (g[0] + g[1] + (g[3],))
            kargs = ('"External id": %d,      "device": %d, "stream": %d,      "correlation": %d, "kind": "Dispatch Kernel", '
                     '"grid": [%d, %d, %d], "block": [%d, %d, %d]%s' % ((ext, self.dev, stream, corr) + g[0] + g[1] + (extra_kargs,)))
            self.gbuf.append(f.x('kernel', name, self.gpid, 0, kstart, dur, kargs))
            self.gbuf.append(f.flow('f', corr, self.gpid, 0, kstart))
            e = '"External id": %d,          ' % ext
            self.gbuf.append(f.x('cuda_runtime', rt_name, self.pid, tid, t, d,
                                 '%s%s"cid": %d, "correlation": %d%s' % (e, rt_extra, 107 if rt_name == 'hipLaunchKernel' else 65, corr, rt_tail)))
            self.gbuf.append(f.flow('s', corr, self.pid, tid, t))
        else:
            blocks = g[0][0] * g[0][1] * g[0][2]
            threads = g[1][0] * g[1][1] * g[1][2]
            bps = blocks / 132.0
            wps = bps * threads / 32.0
            occ = min(100, int(wps / 64.0 * 100))
            kargs = ('"External id": %d,      "queued": 0, "device": %d, "context": 1,      "stream": %d, "correlation": %d,'
                     '      "registers per thread": %d,      "shared memory": %d,      "blocks per SM": %s,      "warps per SM": %s,'
                     '      "grid": [%d, %d, %d],      "block": [%d, %d, %d],      "est. achieved occupancy %%": %d%s'
                     % ((ext, self.dev, stream, corr, g[2], g[3], _f6(bps), _f6(wps)) + g[0] + g[1] + (occ, extra_kargs)))
            self.gbuf.append(f.x('kernel', name, self.gpid, stream, kstart, dur, kargs))
            self.gbuf.append(f.flow('f', corr, self.gpid, stream, kstart))
            if driver:
                self.gbuf.append(f.x('cuda_driver', 'cuLaunchKernel', self.pid, tid, t, d,
                                     '"External id": %d,      "cbid": 307, "correlation": %d' % (ext, corr)))
            else:
                self.gbuf.append(f.x('cuda_runtime', 'cudaLaunchKernel', self.pid, tid, t, d,
                                     '"External id": %d,      "cbid": 211, "correlation": %d' % (ext, corr)))
            self.gbuf.append(f.flow('s', corr, self.pid, tid, t))
        self._touch_annots(tid, stream, kstart, kend)
        return kstart, kend

    def set_blame(self, key, since):
        """A planted call that drains the queue began at SINCE: the idle from then is KEY's (a
        chain of such calls keeps the first one's start)."""
        if self.blame != key:
            self.blame, self.blame_since = key, since

    def charge_gap(self, stream, call_end, kstart):
        """--planted: what fixing a planted call recovers is the compute stream's idle time it causes.
        A sync, a pageable copy or a device-synchronizing free drains the queue (self.blame): the
        stream's idle gaps are that call's until a launch returns before the stream runs dry (the
        host is ahead again). The gap before this work: [the stream's free time, KSTART)."""
        if stream != self.cs or self.pl is None or self.blame is None:
            return
        free = self.sfree[stream]
        if call_end <= free:
            self.blame = None
        elif kstart > max(free, self.blame_since):   # only the idle after the call began
            self.pl[self.blame] = self.pl.get(self.blame, 0) + (kstart - max(free, self.blame_since)) / 1000.0

    def queue_wait(self, t, d):
        """The launch queue holds QUEUE_MAX operations: a call made when it is full returns only
        once the oldest one is done. Returns the call's duration D, lengthened if it blocked."""
        q = self.queued
        q.sort()
        k = 0
        while k < len(q) and q[k] <= t:
            k += 1
        del q[:k]
        if len(q) >= QUEUE_MAX:
            d = max(d, q[len(q) - QUEUE_MAX] - t + 1500)
        return d

    def memop(self, tid, kind, nbytes, stream=None, sync=False, pinned=False):
        """cudaMemcpyAsync / cudaMemsetAsync plus the gpu_memcpy / gpu_memset row. A copy from or
        to pageable memory returns when it is done; PINNED: from or to pinned memory, it returns
        at once (non_blocking=True)."""
        stream = self.cs if stream is None else stream
        t = self.clock[tid] + self.gap(1.0, 3.0)
        corr = self.next_corr()
        ext = self.cur_ext(tid)
        if kind == 'Memset':
            gbps, lat = 1800.0, 0.9
            name, cat = 'Memset (Device)', 'gpu_memset'
            rt = 'hipMemsetAsync' if self.amd else 'cudaMemsetAsync'
            cbid = 51
        else:
            gbps, lat = {'HtoD': (6.5, 3.0), 'DtoH': (4.0, 1.5), 'DtoD': (1100.0, 1.2)}[kind]
            name = MEMCPY_NAMES[kind][1 if self.amd else 0]
            if pinned and not self.amd:
                name = name.replace('Pageable', 'Pinned')
            cat = 'gpu_memcpy'
            rt = 'hipMemcpyAsync' if self.amd else 'cudaMemcpyAsync'
            cbid = 41
        dur = max(700, int((lat + nbytes / (gbps * 1e3)) * 1000 * self.gpu_scale * self.rng.uniform(0.95, 1.08)))
        d = self.queue_wait(t, self.gap(4.0, 9.0) + (self.gap(2, 6) if kind == 'HtoD' else 0))
        kstart = max(t + int(d * self.rng.uniform(0.4, 0.9)), self.sfree[stream] + self.rng.randint(900, 2500))
        if kind in ('HtoD', 'DtoH') and not pinned and not self.amd:
            self.set_blame('pageable_us', t)   # a pageable copy returns when done: it drains the queue
            self.charge_gap(stream, kstart + dur, kstart)
        else:
            self.charge_gap(stream, t + d, kstart)
        kend = kstart + dur
        self.sfree[stream] = kend
        self.queued.append(kend)
        if kind in ('HtoD', 'DtoH') and not pinned:
            d = max(d, kend - t + self.gap(1, 3))   # pageable copies return when done
        self.clock[tid] = t + d
        f = self.f
        if self.amd:
            akind = 'Device' if kind == 'Memset' else kind
            args = ('"External id": %d,      "device": %d, "stream": %d,      "correlation": %d, "kind": "%s", "bytes": %d'
                    % (ext, self.dev, stream, corr, akind, nbytes))
            self.gbuf.append(f.x(cat, name, self.gpid, 0, kstart, dur, args))
            self.gbuf.append(f.flow('f', corr, self.gpid, 0, kstart))
            kcode = {'HtoD': 1, 'DtoH': 2, 'DtoD': 3}.get(kind)
            tail = (', "src": "0x7f%010x", "dst": "0x7f%010x", "size": "%d", "kind": "%d"' % (self.rng.getrandbits(36), self.rng.getrandbits(36), nbytes, kcode)
                    if kcode else ', "dst": "0x7f%010x", "size": "%d"' % (self.rng.getrandbits(36), nbytes))
            self.gbuf.append(f.x('cuda_runtime', rt, self.pid, tid, t, d,
                                 '"External id": %d,          "stream": "0x0", "cid": %d, "correlation": %d%s'
                                 % (ext, 142 if kind == 'Memset' else 160, corr, tail)))
        else:
            bw = nbytes / float(dur)
            args = ('"External id": %d,      "device": %d, "context": 1,      "stream": %d, "correlation": %d,      '
                    '"bytes": %d, "memory bandwidth (GB/s)": %r' % (ext, self.dev, stream, corr, nbytes, bw))
            self.gbuf.append(f.x(cat, name, self.gpid, stream, kstart, dur, args))
            self.gbuf.append(f.flow('f', corr, self.gpid, stream, kstart))
            self.gbuf.append(f.x('cuda_runtime', rt, self.pid, tid, t, d,
                                 '"External id": %d,      "cbid": %d, "correlation": %d' % (ext, cbid, corr)))
        self.gbuf.append(f.flow('s', corr, self.pid, tid, t))
        self._touch_annots(tid, stream, kstart, kend)
        return kstart, kend

    def event_record(self, tid, stream):
        """cudaEventRecord on STREAM: returns (corr, the time the recorded work completes)."""
        _, _, corr = self.runtime(tid, 'hipEventRecord' if self.amd else 'cudaEventRecord', 135 if not self.amd else 127, lo=1.5, hi=4.0)
        return corr, self.sfree[stream]

    def stream_wait(self, tid, stream, on_stream, rec_corr, ready):
        """cudaStreamWaitEvent: STREAM waits for work of ON_STREAM that completes at READY."""
        name = 'hipStreamWaitEvent' if self.amd else 'cudaStreamWaitEvent'
        t = self.clock[tid] + self.gap(0.8, 2.5)
        d = self.gap(2.0, 5.0)
        corr = self.next_corr()
        self.clock[tid] = t + d
        self.emit_runtime(tid, name, t, d, corr, 147 if not self.amd else 130)
        if not self.amd:
            ext = self.cur_ext(tid)
            st = t + int(d * 0.4)
            self.gbuf.append(self.f.x('cuda_sync', 'Stream Wait Event', self.gpid, stream, st, self.rng.randint(8, 40),
                                      '"External id": %d,      "cuda_sync_kind": "Stream Wait Event",      "wait_on_stream": %d,'
                                      '      "wait_on_cuda_event_record_corr_id": %d,      "wait_on_cuda_event_id": %d,'
                                      '      "stream": %d, "correlation": %d,      "device": %d, "context": 1'
                                      % (ext, on_stream, rec_corr, 1 + rec_corr % 64, stream, corr, self.dev)))
            self.gbuf.append(self.f.flow('f', corr, self.gpid, stream, st))
            self.gbuf.append(self.f.flow('s', corr, self.pid, tid, t))
        self.sfree[stream] = max(self.sfree[stream], ready)

    def host_sync(self, tid, what, stream=None, rec_corr=None):
        """cudaStreamSynchronize / cudaEventSynchronize / cudaDeviceSynchronize: block the host until
        the GPU work is done, with the matching cuda_sync row."""
        stream = self.cs if stream is None else stream
        if what == 'stream':
            rt, cbid, sname, stid, sstream = 'cudaStreamSynchronize', 131, 'Stream Sync', stream, stream
            ready = self.sfree[stream]
        elif what == 'event':
            rt, cbid, sname, stid, sstream = 'cudaEventSynchronize', 137, 'Event Sync', -1, -1
            ready = self.sfree[stream]
        else:
            rt, cbid, sname, stid, sstream = 'cudaDeviceSynchronize', 165, 'Context Sync', -1, CTX_SYNC_STREAM
            ready = max(self.sfree.values())
        if self.amd:
            rt = rt.replace('cuda', 'hip')
        t = self.clock[tid] + self.gap(0.8, 3.0)
        d = max(ready - t, 0) + self.gap(2.0, 6.0)
        corr = self.next_corr()
        self.clock[tid] = t + d
        if self.pl is not None:   # it drains the queue: the idle after it is its cost
            self.set_blame('host_sync_us', t)
        self.emit_runtime(tid, rt, t, d, corr, cbid, ext=(what != 'device'))
        if not self.amd:
            ext = self.cur_ext(tid) if what != 'device' else corr
            st = t + self.gap(0.5, 1.5)
            sd = max(t + d - self.gap(0.3, 1.0) - st, 10)
            extra = ''
            if what == 'event':
                extra = ('      "wait_on_stream": %d,      "wait_on_cuda_event_record_corr_id": %d,      "wait_on_cuda_event_id": %d,'
                         % (stream, rec_corr, 1 + rec_corr % 64))
            self.gbuf.append(self.f.x('cuda_sync', sname, self.gpid, stid, st, sd,
                                      '"External id": %d,      "cuda_sync_kind": "%s",%s      "stream": %d, "correlation": %d,      "device": %d, "context": 1'
                                      % (ext, sname, extra, sstream, corr, self.dev)))
            self.gbuf.append(self.f.flow('f', corr, self.gpid, stid, st))
            self.gbuf.append(self.f.flow('s', corr, self.pid, tid, t))

    def memory(self, tid, nbytes):
        """A [memory] instant event (profile_memory)."""
        self.mem_alloc += nbytes
        self.evidx += 1
        self.gbuf_cpu_instant.append(
            '  {\n    "ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]",\n    "pid": %d, "tid": %d,\n'
            '    "ts": %s,\n    "args": {\n      "Total Reserved": %d, "Total Allocated": %d, "Bytes": %d, "Device Id": %d, '
            '"Device Type": 1, "Addr": %d, "Ev Idx": %d\n    }\n  },\n'
            % (self.pid, tid, self.f.ts(self.clock[tid]), 2 * 1024 ** 3 + (1 << 30), max(self.mem_alloc, 0) + 1500000000,
               nbytes, self.dev, 139800000000000 + self.rng.getrandbits(32) * 512, self.evidx))

    # ---------------------------------------------------------------- the model
    def linear_fwd(self, tid, i, n_in, n_out, gemm_us):
        T = self.T
        self.B(tid, 'aten::linear', args=self.A(('lin', n_in, n_out), [(self.B_, self.S, n_in), (n_out, n_in), (n_out,)], ['float'] * 3))
        self.B(tid, 'aten::t', args=self.A(('t', n_in, n_out), [(n_out, n_in)], ['float']))
        self.B(tid, 'aten::transpose', args=self.A(('tr', n_in, n_out), [(n_out, n_in), (), ()], ['float', 'Scalar', 'Scalar']), lo=0.5, hi=1.5)
        self.op(tid, 'aten::as_strided', args=self.A(('as', n_in, n_out), [(n_out, n_in), (), (), ()], ['float', '', '', '']), lo=0.3, hi=1.0)
        self.E(tid)
        self.E(tid)
        self.B(tid, 'aten::addmm', args=self.A(('mm', n_in, n_out), [(n_out,), (T, n_in), (n_in, n_out), (), ()], ['float'] * 3 + ['Scalar'] * 2),
               seq=self._seq())
        us, roof = self.gemm(T, n_out, n_in, True, gemm_us * self.gemm_s)
        yield from self.launch(tid, 'gemm_tn', us, roof_us=roof)
        self.E(tid)
        self.E(tid)

    def _seq(self):
        self.seqno += 1
        return self.seqno

    def layer_norm_fwd(self, tid):
        H = self.H
        self.B(tid, 'aten::layer_norm', args=self.A('ln', [(self.B_, self.S, H), (H,), (H,), (H,), ()], ['float'] * 4 + ['Scalar']))
        self.B(tid, 'aten::native_layer_norm', args=self.A('nln', [(self.B_, self.S, H), (H,), (H,), (H,), ()], ['float'] * 4 + ['Scalar']),
               seq=self._seq())
        for _ in range(3):
            self.op(tid, 'aten::empty', args=self.A('empty', [(), (), (), (), (), ()], ['ScalarList', 'Scalar', '', '', 'Scalar', '']), lo=0.4, hi=1.2)
        yield from self.launch(tid, 'ln', 14 * self.es)
        self.E(tid)
        self.E(tid)

    def elementwise(self, tid, opname, key, us, nargs=2):
        H = self.H
        self.B(tid, opname, args=self.A(('ew', opname), [(self.B_, self.S, H)] * nargs + [()], ['float'] * nargs + ['Scalar']), seq=self._seq())
        yield from self.launch(tid, key, us * self.es)
        self.E(tid)

    def forward_layer(self, tid, i):
        H = self.H
        if self.cfg.python:
            self.B(tid, 'torch/nn/modules/module.py(1747): _call_impl', cat='python_function')
            self.B(tid, 'model.py(58): forward', cat='python_function')
        yield from self.layer_norm_fwd(tid)
        yield from self.linear_fwd(tid, i, H, 3 * H, 95)
        self.B(tid, 'aten::scaled_dot_product_attention',
               args=self.A('sdpa', [(self.B_, 12, self.S, 64)] * 3 + [(), (), (), ()], ['float'] * 3 + ['', 'Scalar', 'Scalar', '']))
        self.B(tid, 'aten::_scaled_dot_product_efficient_attention',
               args=self.A('sdpae', [(self.B_, 12, self.S, 64)] * 3 + [(), (), (), ()], ['float'] * 3 + ['', 'Scalar', 'Scalar', '']), seq=self._seq())
        self.B(tid, 'aten::_efficient_attention_forward',
               args=self.A('eaf', [(self.B_, self.S, 12, 64)] * 3 + [(), (), ()], ['float'] * 3 + ['', '', '']))
        self.op(tid, 'aten::empty', args=self.A('empty', [(), (), (), (), (), ()], ['ScalarList', 'Scalar', '', '', 'Scalar', '']), lo=0.4, hi=1.2)
        yield from self.launch(tid, 'attn', 160 * self.gs)
        self.E(tid)
        self.E(tid)
        self.E(tid)
        yield from self.linear_fwd(tid, i, H, H, 35)
        yield from self.elementwise(tid, 'aten::add', 'add', 12)
        yield from self.layer_norm_fwd(tid)
        yield from self.linear_fwd(tid, i, H, 4 * H, 125)
        yield from self.elementwise(tid, 'aten::gelu', 'gelu', 22, 1)
        yield from self.linear_fwd(tid, i, 4 * H, H, 125)
        yield from self.elementwise(tid, 'aten::add', 'add', 12)
        if self.cfg.python:
            self.E(tid)
            self.E(tid)

    def bwd_node(self, tid, node, args=''):
        """autograd::engine::evaluate_function: NODE -> NODE (on the autograd thread), linked to the
        forward op that made the node by a fwdbwd flow. Nodes run in the reverse order of the forward
        ops, so the forward ops are a stack; AccumulateGrad nodes have no forward op."""
        if node == 'torch::autograd::AccumulateGrad':
            self.B(tid, 'autograd::engine::evaluate_function: %s' % node, lo=2.0, hi=6.0)
            self.B(tid, node, args=args, lo=0.8, hi=2.0)
            return
        seq, fwd = self.fwd_seq.pop()
        ev = self.B(tid, 'autograd::engine::evaluate_function: %s' % node, lo=2.0, hi=6.0, seq=seq)
        self.B(tid, node, args=args, lo=0.8, hi=2.0, seq=seq)
        self.flow_id += 1
        fwd.post += self.f.flow('s', self.flow_id, self.pid, fwd.tid, fwd.ts, cat='fwdbwd')
        ev.post += self.f.flow('f', self.flow_id, self.pid, tid, ev.ts, cat='fwdbwd')

    def linear_bwd(self, tid, n_in, n_out, gemm_us):
        T = self.T
        self.bwd_node(tid, 'AddmmBackward0', args=self.A(('addmmb', n_out), [(T, n_out)], ['float']))
        self.B(tid, 'aten::t', args=self.A(('t', n_in, n_out), [(n_out, n_in)], ['float']), lo=0.5, hi=1.5)
        self.op(tid, 'aten::transpose', args=self.A(('tr', n_in, n_out), [(n_out, n_in), (), ()], ['float', 'Scalar', 'Scalar']), lo=0.4, hi=1.2)
        self.E(tid)
        self.B(tid, 'aten::mm', args=self.A(('mmd', n_in, n_out), [(T, n_out), (n_out, n_in)], ['float', 'float']))
        us, roof = self.gemm(T, n_in, n_out, False, gemm_us * self.gemm_s)
        yield from self.launch(tid, 'gemm_nn', us, roof_us=roof)
        self.E(tid)
        self.B(tid, 'aten::mm', args=self.A(('mmw', n_in, n_out), [(n_out, T), (T, n_in)], ['float', 'float']))
        us, roof = self.gemm(n_out, n_in, T, False, gemm_us * 1.05 * self.gemm_s)
        yield from self.launch(tid, 'gemm_nt', us, roof_us=roof)
        self.E(tid)
        self.B(tid, 'aten::sum', args=self.A(('sum', n_out), [(T, n_out), (), (), ()], ['float', 'ScalarList', 'Scalar', '']))
        yield from self.launch(tid, 'sum', 6 + n_out / 400.0)
        self.E(tid)
        self.E(tid)
        self.E(tid)
        for _ in range(2):
            self.bwd_node(tid, 'torch::autograd::AccumulateGrad')
            self.op(tid, 'aten::detach', args=self.A(('det', n_out), [(n_out,)], ['float']), lo=0.4, hi=1.0)
            self.E(tid)
            self.E(tid)

    def ln_bwd(self, tid):
        H = self.H
        self.bwd_node(tid, 'NativeLayerNormBackward0', args=self.A('lnb', [(self.B_, self.S, H)], ['float']))
        self.B(tid, 'aten::native_layer_norm_backward',
               args=self.A('nlnb', [(self.B_, self.S, H), (self.B_, self.S, H), (), (self.B_, self.S, 1), (self.B_, self.S, 1), (H,), (H,), ()],
                           ['float', 'float', 'ScalarList', 'float', 'float', 'float', 'float', 'ScalarList']))
        yield from self.launch(tid, 'ln_bwd_in', 24 * self.es)
        yield from self.launch(tid, 'ln_bwd_gb', 19 * self.es)
        self.E(tid)
        self.E(tid)
        self.E(tid)

    def ew_bwd(self, tid, node, opname, key, us):
        H = self.H
        self.bwd_node(tid, node, args=self.A(('ewb', node), [(self.B_, self.S, H)], ['float']))
        if key:
            self.B(tid, opname, args=self.A(('ewbo', opname), [(self.B_, self.S, H), (self.B_, self.S, H), ()], ['float', 'float', '']))
            yield from self.launch(tid, key, us * self.es)
            self.E(tid)
        self.E(tid)
        self.E(tid)

    def backward_layer(self, tid, i):
        H = self.H
        yield from self.ew_bwd(tid, 'AddBackward0', None, None, 0)
        yield from self.linear_bwd(tid, 4 * H, H, 125)
        yield from self.ew_bwd(tid, 'GeluBackward0', 'aten::gelu_backward', 'gelu_bwd', 30)
        yield from self.linear_bwd(tid, H, 4 * H, 125)
        yield from self.ln_bwd(tid)
        yield from self.ew_bwd(tid, 'AddBackward0', None, None, 0)
        yield from self.linear_bwd(tid, H, H, 35)
        self.bwd_node(tid, 'ScaledDotProductEfficientAttentionBackward0', args=self.A('sdpab', [(self.B_, 12, self.S, 64)], ['float']))
        self.B(tid, 'aten::_scaled_dot_product_efficient_attention_backward',
               args=self.A('sdpaeb', [(self.B_, 12, self.S, 64)] * 6 + [(), ()], ['float'] * 6 + ['ScalarList', 'Scalar']))
        self.B(tid, 'aten::_efficient_attention_backward',
               args=self.A('eab', [(self.B_, self.S, 12, 64)] * 6 + [(), ()], ['float'] * 6 + ['', '']))
        yield from self.launch(tid, 'attn_bwd', 380 * self.gs)
        self.E(tid)
        self.E(tid)
        self.E(tid)
        self.E(tid)
        yield from self.linear_bwd(tid, H, 3 * H, 95)
        yield from self.ln_bwd(tid)

    def allreduce(self, tid, key, nelems, ann_args='', transfer_us=None):
        """DDP / c10d all-reduce: record_param_comms > nccl:all_reduce > event record, stream wait, NCCL kernel."""
        ws = self.world
        pg = ('"Process Group Name": "0", "Process Group Description": "default_pg", "Process Group Ranks": "%s", '
              % self.ranks_str)
        rpc = ('"Record function id": 0, %s"Global rank stride": 1, "Out msg nelems": %d, "Group size": %d, '
               '"Global rank start": 0, "In msg nelems": %d, "In split size": "[]", "Out split size": "[]", "dtype": "Float", '
               '"Collective name": "allreduce", ' % (pg, nelems, ws, nelems))
        self.B(tid, 'record_param_comms', args=rpc, lo=2.0, hi=5.0)
        self.B(tid, 'nccl:all_reduce', cat='user_annotation', args='"Record function id": 0, ', gpu=True, lo=1.0, hi=3.0)
        rec_corr, ready = self.event_record(tid, self.cs)
        self.stream_wait(tid, self.ns_, self.cs, rec_corr, ready)
        kargs = (', "Collective name": "allreduce", "In msg nelems": %d, "Out msg nelems": %d, "Group size": %d, '
                 '"dtype": "Float", "In split size": "[]", "Out split size": "[]", %s' % (nelems, nelems, ws, pg.rstrip(', ')))
        yield from self.launch(tid, key, 0, stream=self.ns_, rt_lo=5.0, rt_hi=12.0, extra_kargs=kargs,
                               coll=nelems * 4, transfer_us=transfer_us)
        self.E(tid)
        self.E(tid)

    # ---------------------------------------------------------------- planted problems
    def item_sync(self, tid):
        """.item()-style read: a copy into pinned memory, then cudaStreamSynchronize waits for the
        GPU's whole queue (--item-syncs)."""
        self.B(tid, 'aten::item', args=self.A('item', [()], ['float']))
        self.B(tid, 'aten::_local_scalar_dense', args=self.A('lsd', [()], ['float']))
        self.memop(tid, 'DtoH', 4, pinned=True)
        self.host_sync(tid, 'stream')
        self.E(tid)
        self.E(tid)

    def alloc_call(self, tid, name, us):
        """cudaMalloc / cudaFree of the driver, US long (--malloc-churn); a free synchronizes the
        device first (it waits for the GPU's queue, as cudaFree and hipFree do)."""
        if self.amd:
            name = name.replace('cuda', 'hip')
        self.set_blame('alloc_us', self.clock[tid])
        if name.endswith('Free'):
            wait = max(self.sfree[self.cs] - self.clock[tid], 0)
            self.runtime(tid, name, 22, lo=us + wait / 1000.0, hi=us + wait / 1000.0)
        else:
            self.runtime(tid, name, 20, lo=us, hi=us)


    def step(self, n):
        self.cur_step = n
        self.pl = self.planted.setdefault(n, {})
        yield from self.step_body(n)
        self.pl = None

    def step_body(self, n):
        cfg, H, T, main, bwd = self.cfg, self.H, self.T, self.main, self.bwd
        py = cfg.python
        self.B_ = cfg.batch
        # ------------------------------------------------ data loading (host bound: GPU idles)
        self.B(main, 'ProfilerStep#%d' % n, cat='user_annotation', args='"Record function id": 0, ', gpu=True, lo=5, hi=15)
        if py:
            self.B(main, 'train.py(112): train_step', cat='python_function')
        self.B(main, 'enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__', cat='user_annotation',
               args='"Record function id": 0, ', lo=2, hi=6)
        if cfg.healthy:   # prefetched by the workers: the batch is ready
            self.clock[main] += self.gap(20, 60)
        else:
            for _ in range(2):
                self.op(main, 'aten::stack', args=self.A('stack', [(), ()], ['TensorList', 'Scalar']), lo=30, hi=90, tail=(20, 60))
            self.clock[main] += self.gap(300, 900)
        self.clock[main] += int(cfg.slow_dataloader_us * 1000)
        self.E(main)
        for k in range(2 + cfg.pageable_copies):   # input ids, labels: .to('cuda'), then planted ones
            planted = k >= 2
            nbytes = cfg.pageable_kb * 1024 if planted else T * 8
            self.B(main, 'aten::to', args=self.A('to', [(self.B_, self.S), (), (), (), (), (), (), ()], ['long int', 'Scalar', 'Scalar', 'Scalar', 'Scalar', 'Scalar', 'Scalar', '']))
            self.B(main, 'aten::_to_copy', args=self.A('toc', [(self.B_, self.S), (), (), (), (), (), ()], ['long int', 'Scalar', 'Scalar', 'Scalar', 'Scalar', 'Scalar', '']))
            self.op(main, 'aten::empty_strided', args=self.A('es', [(), (), (), (), (), ()], ['ScalarList', 'ScalarList', 'Scalar', 'Scalar', 'Scalar', 'Scalar']))
            self.B(main, 'aten::copy_', args=self.A('cp', [(self.B_, self.S), (self.B_, self.S), ()], ['long int', 'long int', 'Scalar']))
            self.memop(main, 'HtoD', nbytes, pinned=cfg.healthy and not planted)
            self.E(main)
            self.E(main)
            self.E(main)
        self.B(main, 'Optimizer.zero_grad#AdamW.zero_grad', cat='user_annotation', args='"Record function id": 0, ', lo=3, hi=8)
        self.clock[main] += self.gap(40, 120)
        self.E(main)
        # ------------------------------------------------ forward (GPU bound: the queue builds up)
        self.B(main, 'DistributedDataParallel.forward' if self.world > 1 else '## forward ##', cat='user_annotation',
                     args='"Record function id": 0, ', gpu=True, lo=3, hi=8)
        self.clock[main] += self.gap(20, 60)
        if py:
            self.B(main, 'model.py(91): forward', cat='python_function')
        self.B(main, 'aten::embedding', args=self.A('emb', [(self.V, H), (self.B_, self.S), (), (), ()], ['float', 'long int', 'Scalar', 'Scalar', 'Scalar']), seq=self._seq())
        self.B(main, 'aten::index_select', args=self.A('isel', [(self.V, H), (), (T,)], ['float', 'Scalar', 'long int']))
        yield from self.launch(main, 'embed', 18)
        self.E(main)
        self.E(main)
        self.memory(main, T * H * 4)
        for i in range(cfg.layers):
            yield from self.forward_layer(main, i)
            if i % 2 == 1:
                self.memory(main, T * H * 4 * 6)
            for k in range(cfg.item_syncs):   # planted: spread over the layers
                if k % cfg.layers == i:
                    self.item_sync(main)
            for k in range(cfg.malloc_churn):
                if k % cfg.layers == i:   # the caching allocator asks the driver for a block
                    self.B(main, 'aten::empty', args=self.A('empty', [(), (), (), (), (), ()], ['ScalarList', 'Scalar', '', '', 'Scalar', '']))
                    self.alloc_call(main, 'cudaMalloc', 120)
                    self.E(main)
        yield from self.layer_norm_fwd(main)
        self.B(main, 'aten::linear', args=self.A('lmh', [(self.B_, self.S, H), (self.V, H)], ['float', 'float']))
        self.op(main, 'aten::t', args=self.A(('t', H, self.V), [(self.V, H)], ['float']))
        self.B(main, 'aten::matmul', args=self.A('mmul', [(self.B_, self.S, H), (H, self.V)], ['float', 'float']))
        self.B(main, 'aten::mm', args=self.A('lmmm', [(T, H), (H, self.V)], ['float', 'float']), seq=self._seq())
        us, roof = self.gemm(T, self.V, H, False, 2.0 * T * H * self.V / self.gemm_tflops)
        yield from self.launch(main, 'gemm_tn', us, roof_us=roof)
        self.E(main)
        self.E(main)
        self.E(main)
        if py:
            self.E(main)
        self.E(main)   # DDP forward
        # loss
        self.B(main, 'aten::cross_entropy_loss', args=self.A('ce', [(T, self.V), (T,), (), (), (), ()], ['float', 'long int', '', 'Scalar', 'Scalar', 'Scalar']))
        self.B(main, 'aten::log_softmax', args=self.A('ls', [(T, self.V), (), ()], ['float', 'Scalar', '']))
        self.B(main, 'aten::_log_softmax', args=self.A('_ls', [(T, self.V), (), ()], ['float', 'Scalar', 'Scalar']), seq=self._seq())
        yield from self.launch(main, 'logsm', T * self.V * 8 / 2.5e6)
        self.E(main)
        self.E(main)
        self.B(main, 'aten::nll_loss_nd', args=self.A('nllnd', [(T, self.V), (T,), (), (), ()], ['float', 'long int', '', 'Scalar', 'Scalar']))
        self.B(main, 'aten::nll_loss', args=self.A('nll', [(T, self.V), (T,), (), (), ()], ['float', 'long int', '', 'Scalar', 'Scalar']))
        self.B(main, 'aten::nll_loss_forward', args=self.A('nllf', [(T, self.V), (T,), (), (), ()], ['float', 'long int', '', 'Scalar', 'Scalar']), seq=self._seq())
        yield from self.launch(main, 'nll', 7)
        self.E(main)
        self.E(main)
        self.E(main)
        self.E(main)
        # ------------------------------------------------ backward (autograd thread)
        if py:
            self.B(main, 'torch/_tensor.py(581): backward', cat='python_function')
        self.B(main, 'aten::ones_like', args=self.A('ol', [(), (), (), (), (), ()], ['float', 'Scalar', 'Scalar', 'Scalar', 'Scalar', 'Scalar']))
        self.B(main, 'aten::fill_', args=self.A('fill', [(), ()], ['float', 'Scalar']))
        yield from self.launch(main, 'fill', 1.8)
        self.E(main)
        self.E(main)
        self.clock[bwd] = max(self.clock[bwd], self.clock[main] + self.gap(8, 20))
        self.bwd_node(bwd, 'NllLossBackward0', args=self.A('nllb', [()], ['float']))
        self.B(bwd, 'aten::nll_loss_backward', args=self.A('nllbw', [(), (T, self.V), (T,), (), (), (), ()], ['float', 'float', 'long int', '', 'Scalar', 'Scalar', 'float']))
        self.B(bwd, 'aten::zero_', args=self.A('z', [(T, self.V)], ['float']))
        self.B(bwd, 'aten::fill_', args=self.A('fillz', [(T, self.V), ()], ['float', 'Scalar']))
        yield from self.launch(bwd, 'fill', T * self.V * 4 / 2.4e6)
        self.E(bwd)
        self.E(bwd)
        yield from self.launch(bwd, 'nll_bwd', 9)
        self.E(bwd)
        self.E(bwd)
        self.E(bwd)
        self.bwd_node(bwd, 'LogSoftmaxBackward0', args=self.A('lsb', [(T, self.V)], ['float']))
        self.B(bwd, 'aten::_log_softmax_backward_data', args=self.A('lsbd', [(T, self.V), (T, self.V), (), ()], ['float', 'float', 'Scalar', 'Scalar']))
        yield from self.launch(bwd, 'logsm_bwd', T * self.V * 12 / 2.5e6)
        self.E(bwd)
        self.E(bwd)
        self.E(bwd)
        self.bwd_node(bwd, 'MmBackward0', args=self.A('mmb', [(T, self.V)], ['float']))
        self.B(bwd, 'aten::mm', args=self.A('mmd2', [(T, self.V), (self.V, H)], ['float', 'float']))
        us, roof = self.gemm(T, H, self.V, False, 2.0 * T * H * self.V / self.gemm_tflops)
        yield from self.launch(bwd, 'gemm_nn', us, roof_us=roof)
        self.E(bwd)
        self.B(bwd, 'aten::mm', args=self.A('mmw2', [(self.V, T), (T, H)], ['float', 'float']))
        us, roof = self.gemm(self.V, H, T, False, 2.0 * T * H * self.V / (self.gemm_tflops * 145 / 150))
        yield from self.launch(bwd, 'gemm_nt', us, roof_us=roof)
        self.E(bwd)
        self.E(bwd)
        self.E(bwd)
        yield from self.ln_bwd(bwd)
        layer_elems = 12 * H * H + 13 * H
        pending = planted = 0
        for i in reversed(range(cfg.layers)):
            yield from self.backward_layer(bwd, i)
            pending += layer_elems
            if self.world > 1 and (pending * 4 >= cfg.bucket_mb * 1e6 or i == 0):
                # DDP: the bucket is full: average it and all-reduce it on the NCCL stream
                self.B(bwd, 'aten::div_', args=self.A('div', [(pending,), ()], ['float', 'Scalar']))
                yield from self.launch(bwd, 'div', pending * 8 / 2.5e6)
                self.E(bwd)
                if self.slow and (cfg.straggler_delay_us or cfg.straggler_kernel_us) and planted == 0:
                    self.B(bwd, 'straggler_delay')   # planted: host work before its first all-reduce
                    self.clock[bwd] += int(cfg.straggler_delay_us * 1000)
                    if cfg.straggler_kernel_us:      # planted: GPU work the others wait for
                        yield from self.launch(bwd, 'mul', cfg.straggler_kernel_us / self.gpu_scale)
                    self.E(bwd)
                    planted = 1
                yield from self.allreduce(bwd, 'nccl_grad', pending)
                pending = 0
        self.bwd_node(bwd, 'EmbeddingBackward0', args=self.A('embb', [(self.B_, self.S, H)], ['float']))
        self.B(bwd, 'aten::embedding_backward', args=self.A('embbw', [(self.B_, self.S, H), (self.B_, self.S), (), (), (), ()], ['float', 'long int', 'Scalar', 'Scalar', 'Scalar', 'Scalar']))
        self.B(bwd, 'aten::embedding_dense_backward', args=self.A('embdb', [(self.B_, self.S, H), (self.B_, self.S), (), (), ()], ['float', 'long int', 'Scalar', 'Scalar', 'Scalar']))
        self.B(bwd, 'aten::zeros', args=self.A('zeros', [(), (), (), (), ()], ['ScalarList', 'Scalar', '', 'Scalar', '']))
        self.B(bwd, 'aten::zero_', args=self.A('zemb', [(self.V, H)], ['float']))
        self.memop(bwd, 'Memset', self.V * H * 4)
        self.E(bwd)
        self.E(bwd)
        yield from self.launch(bwd, 'embed_bwd', 40)
        self.E(bwd)
        self.E(bwd)
        self.E(bwd)
        self.E(bwd)
        if self.world > 1:
            yield from self.allreduce(bwd, 'nccl_grad', self.V * H + 2 * H)
            # DDP finalize: the compute stream waits for the last all-reduce, then a bucket copy
            self.B(bwd, 'torch.distributed.ddp.reducer::copy_bucket_to_grad', args='"Record function id": 0, ', lo=3, hi=9)
            rec_corr, ready = self.event_record(bwd, self.ns_)
            self.stream_wait(bwd, self.cs, self.ns_, rec_corr, ready)
            self.B(bwd, 'aten::copy_', args=self.A('cpb', [(H,), (H,), ()], ['float', 'float', 'Scalar']))
            self.memop(bwd, 'DtoD', 2 * H * 4 * 64)
            self.E(bwd)
            self.E(bwd)
        self.clock[main] = max(self.clock[main], self.clock[bwd] + self.gap(10, 30))
        if py:
            self.E(main)
        # ------------------------------------------------ gradient clipping (host bound: many tiny kernels)
        if py:
            self.B(main, 'torch/nn/utils/clip_grad.py(77): clip_grad_norm_', cat='python_function')
        self.B(main, 'aten::_foreach_norm', args=self.A('fen', [(), ()], ['TensorList', 'Scalar']))
        for _ in range(2):
            yield from self.launch(main, 'norm', 9)
        yield from self.launch(main, 'norm_cleanup', 2.5)
        self.E(main)
        self.B(main, 'aten::stack', args=self.A('stk', [(), ()], ['TensorList', 'Scalar']))
        yield from self.launch(main, 'fill', 1.6)
        self.E(main)
        self.B(main, 'Torch-Compiled Region: 0/0', cat='user_annotation', args='"Record function id": 0, ', lo=5, hi=12)
        self.B(main, 'CompiledFunction', args=self.A('cf', [(), ()], ['', 'float']), lo=8, hi=20)
        yield from self.launch(main, 'clip', 2.2, driver=not self.amd)
        self.E(main, 4, 10)
        self.E(main)
        self.B(main, 'aten::_foreach_mul_', args=self.A('fem', [(), ()], ['TensorList', 'float']))
        for _ in range(3):
            yield from self.launch(main, 'mul', 7)
        self.E(main)
        if py:
            self.E(main)
        # ------------------------------------------------ optimizer
        if py:
            self.B(main, 'torch/optim/optimizer.py(487): wrapper', cat='python_function')
        self.B(main, 'Optimizer.step#AdamW.step', cat='user_annotation', args='"Record function id": 0, ', gpu=True, lo=4, hi=10)
        self.B(main, 'aten::_fused_adamw_', args=self.A('adam', [(), (), (), (), (), (), (), (), (), (), (), (), (), ()], ['TensorList'] * 6 + ['Scalar'] * 8))
        n_params = 12 * H * H * cfg.layers + self.V * H
        for _ in range(max(1, min(8, n_params // 4000000))):
            yield from self.launch(main, 'adam', n_params * 16 / 2.6e6 / max(1, min(8, n_params // 4000000)))
        self.E(main)
        self.E(main, 3, 8)
        if py:
            self.E(main)
        # ------------------------------------------------ loss: all-reduce for logging, .item() drains the queue
        if self.world > 1 and (not cfg.healthy or cfg.exposed_comm_us):
            # --exposed-comm-us: the all-reduce takes that long and the next step waits for it
            self.B(main, 'c10d::allreduce_', args=self.A('ar_', [(), (), (), (), ()], ['TensorList', '', '', '', 'Scalar']), lo=3, hi=9)
            yield from self.allreduce(main, 'nccl_loss', 1, transfer_us=cfg.exposed_comm_us or None)
            rec_corr, ready = self.event_record(main, self.ns_)
            self.stream_wait(main, self.cs, self.ns_, rec_corr, ready)
            self.E(main)
        if not cfg.healthy:
            self.B(main, 'aten::item', args=self.A('item', [()], ['float']))
            self.B(main, 'aten::_local_scalar_dense', args=self.A('lsd', [()], ['float']))
            self.memop(main, 'DtoH', 4)
            self.host_sync(main, 'stream')
            self.E(main)
            self.E(main)
        if n % 2 == 0 and not cfg.healthy:
            # a timing event: torch.cuda.Event.record() + synchronize()
            rec_corr, _ = self.event_record(main, self.cs)
            if not self.amd:
                self.host_sync(main, 'event', rec_corr=rec_corr)
        if cfg.tiny_kernels:   # planted: metrics updated one tiny kernel at a time
            self.track_wait = True
            for _ in range(cfg.tiny_kernels):
                self.B(main, 'aten::add_', args=self.A('add_', [(), (), ()], ['float', 'float', 'Scalar']))
                yield from self.launch(main, 'add', 2.0 / self.gpu_scale)
                self.E(main)
                self.clock[main] += self.gap(4, 8)   # Python between the calls
            self.track_wait = False
        for _ in range(cfg.malloc_churn):   # planted: torch.cuda.empty_cache() returns the blocks
            self.alloc_call(main, 'cudaFree', 60)
        if py:
            self.E(main)
        self.E(main, 10, 30)   # ProfilerStep
        self.clock[main] += self.gap(20, 60)
        assert not self.fwd_seq, 'forward ops without a backward node: %r' % (self.fwd_seq[:3],)
        if n >= cfg.first_step:
            self.counter(n)
            self.flush()

    def discard(self):
        """Forgets what the last step wrote (a warm-up step before the profiler's window)."""
        self.cpu_recs, self.py_recs, self.gbuf, self.annots, self.gbuf_cpu_instant = [], [], [], [], []
        self.planted.pop(self.cur_step, None)

    def counter(self, n):
        self.gbuf.append('  {\n    "ph": "C", "name": "GPU Memory", "pid": %d, "ts": %s,\n'
                         '    "args": {\n      "Allocated (MB)": %.1f, "Reserved (MB)": %.1f\n    }\n  },\n'
                         % (self.gpid, self.f.ts(self.clock[self.main]), 3100 + 13.5 * (n % 7) + self.r, 4096.0))
        self.mem_alloc = 0

    # ---------------------------------------------------------------- output
    def flush(self):
        f = self.f
        out = []
        pid = self.pid
        for rec in self.cpu_recs:
            t, d = f.tsdur(rec.ts, rec.dur)
            out.append('  {\n    "ph": "X", "cat": "%s", "name": "%s", "pid": %d, "tid": %d,\n    "ts": %s, "dur": %s,\n'
                       '    "args": {\n      "External id": %d,%s"Ev Idx": %d\n    }\n  },\n%s'
                       % (rec.cat, rec.name, pid, rec.tid, t, d, rec.ext, rec.args, rec.evidx, rec.post))
        s = ''.join(out) + ''.join(self.gbuf_cpu_instant)
        self.cpu.write(s)
        self.bytes += len(s)
        out = []
        for rec in self.py_recs:
            t, d = f.tsdur(rec.ts, rec.dur)
            out.append('  {\n    "ph": "X", "cat": "python_function", "name": "%s", "pid": %d, "tid": %d,\n    "ts": %s, "dur": %s,\n'
                       '    "args": {\n      "Python parent id": %s, "Python id": %d, "Ev Idx": %d\n    }\n  },\n'
                       % (rec.name, pid, rec.tid, t, d, 'null' if rec.pyparent is None else rec.pyparent, rec.pyid, rec.evidx))
        s = ''.join(out)
        self.py.write(s)
        self.bytes += len(s)
        if not self.amd:
            for rec in self.annots:
                for stream in sorted(rec.gpu):
                    ks, ke = rec.gpu[stream]
                    self.gbuf.append(f.x('gpu_user_annotation', rec.name, self.gpid, stream, ks, ke - ks, '"External id": %d' % rec.ext))
        s = ''.join(self.gbuf)
        self.gpu.write(s)
        self.bytes += len(s)
        self.cpu_recs, self.py_recs, self.gbuf, self.annots, self.gbuf_cpu_instant = [], [], [], [], []

    def run(self):
        """The whole profile, as a generator: yields ('coll', arrival_ns, bytes) at each collective
        (the coordinator sends back its end) and ('step', bytes_written) after each step (it sends
        back True to continue)."""
        self.gbuf_cpu_instant = []
        self.B_ = self.cfg.batch
        n = self.cfg.first_step
        if self.cfg.healthy:
            # The profiler starts in the middle of training (its schedule's wait and warmup
            # steps): the launch queue is full already, so the host runs at the GPU's pace.
            # These steps are simulated and not written.
            for k in range(warmup_steps(self.cfg)):
                yield from self.step(n - 1 - k)
                self.discard()
        while True:
            yield from self.step(n)
            n += 1
            if not (yield ('step', self.bytes)):
                break
        # profiler stop: cudaDeviceSynchronize (Context Sync)
        self.host_sync(self.main, 'device')
        self.flush()
        self.end_ts = self.clock[self.main] + self.gap(200, 600)

    def header(self):
        cfg = self.cfg
        devs = ',\n'.join('    {\n      %s\n    }' % ((MI300 if cfg.amd else H100) % i) for i in range(min(8, max(cfg.ranks, 1))))
        pgc = ('{"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cuda:nccl", "pg_size": %d, "ranks": %s}'
               % (self.world, self.ranks_str))
        s = ['{\n  "schemaVersion": 1,\n  "deviceProperties": [\n%s\n  ],\n' % devs]
        if not cfg.amd:
            s.append('  "cupti_version": 24,\n  "cuda_runtime_version": 12040,\n  "cuda_driver_version": 12080,\n')
        s.append('  "with_flops": 0,\n  "record_shapes": 1,\n  "profile_memory": 1,\n  "with_stack": 0,\n')
        s.append('  "trace_id": "%032X",\n' % random.Random(cfg.seed * 31 + self.r).getrandbits(128))
        s.append('  "distributedInfo": {"backend": "nccl", "rank": %d, "world_size": %d, "pg_count": 1, "pg_config": [%s], "nccl_version": "%s"},\n'
                 % (self.r, self.world, pgc, '2.21.5'))
        s.append('  "traceEvents": [\n')
        return ''.join(s)

    def trailer(self, fname):
        f = self.f
        cfg = self.cfg
        t0 = T0_NS
        tm = T0_NS + 95000
        pid = self.pid
        s = []
        pname = 'python3' if cfg.amd else 'python'
        s.append(f.meta('process_name', pid, 0, tm, 'name', '"%s"' % pname))
        s.append(f.meta('process_labels', pid, 0, tm, 'labels', '"CPU"'))
        s.append(f.meta('process_sort_index', pid, 0, tm, 'sort_index', pid))
        s.append(f.meta('process_name', self.gpid, 0, tm, 'name', '"%s"' % pname))
        s.append(f.meta('process_labels', self.gpid, 0, tm, 'labels', '"GPU %d"' % self.dev))
        s.append(f.meta('process_sort_index', self.gpid, 0, tm, 'sort_index', 16777216 + self.dev))
        streams = [0] if cfg.amd else ([COMPUTE_STREAM, NCCL_STREAM] if self.world > 1 else [COMPUTE_STREAM])
        for st in streams:
            s.append(f.meta('thread_name', self.gpid, st, tm, 'name', '"stream %d "' % st))
            s.append(f.meta('thread_sort_index', self.gpid, st, tm, 'sort_index', st))
        s.append(f.meta('thread_name', pid, self.main, tm, 'name', '"thread %d (python)"' % self.main))
        s.append(f.meta('thread_sort_index', pid, self.main, tm, 'sort_index', self.main))
        s.append(f.meta('thread_name', pid, self.bwd, tm, 'name', '"thread %d (pt_autograd_0)"' % self.bwd))
        s.append(f.meta('thread_sort_index', pid, self.bwd, tm, 'sort_index', self.bwd))
        ts, dur = f.tsdur(t0, self.end_ts - t0)
        s.append('  {\n    "ph": "X", "cat": "Trace", "ts": %s, "dur": %s,\n    "pid": "Spans", "tid": "PyTorch Profiler",\n'
                 '    "name": "PyTorch Profiler (0)",\n    "args": {\n      "Op count": 0\n    }\n  },\n' % (ts, dur))
        s.append('  {\n    "name": "process_sort_index", "ph": "M", "ts": %s,\n    "pid": "Spans", "tid": 0,\n'
                 '    "args": {\n      "sort_index": 536870912\n    }\n  },\n' % ts)
        s.append('  {\n    "name": "Iteration Start: PyTorch Profiler", "ph": "i", "s": "g",\n'
                 '    "pid": "Traces", "tid": "Trace PyTorch Profiler", "ts": %s\n  },\n' % ts)
        s.append('  {\n    "name": "Record Window End", "ph": "i", "s": "g",\n    "pid": "", "tid": "", "ts": %s\n  }\n' % f.ts(self.end_ts))
        s.append('  ],\n  "traceName": "%s",\n  "displayTimeUnit": "ms",\n  "baseTimeNanoseconds": %d\n}\n' % (fname, BASE_TIME_NS))
        return ''.join(s)


# --------------------------------------------------------------------------- driver


def warmup_steps(cfg):
    """Steps simulated before the profiler's window with --healthy: enough to fill the launch
    queue (about 28 GPU operations per layer and step, and 30 more), the same on every rank."""
    return min(24, 2 + QUEUE_MAX // (28 * cfg.layers + 30))


def transfer_ns(nbytes, world, rng):
    """Ring all-reduce time once every rank has joined: latency + 2(n-1)/n * bytes / bus bandwidth."""
    return int(14000 + 2.0 * (world - 1) / world * nbytes / 95.0 + rng.uniform(0, 3000))


def generate(cfg, out=sys.stderr):
    os.makedirs(cfg.outdir, exist_ok=True)
    tmpdir = os.path.join(cfg.outdir, '.gen_tmp')
    os.makedirs(tmpdir, exist_ok=True)
    ranks, gens, parts = [], [], []
    for r in range(cfg.ranks):
        p = [open(os.path.join(tmpdir, 'r%d.%s' % (r, k)), 'w', encoding='utf-8', newline='\n') for k in ('cpu', 'py', 'gpu')]
        parts.append(p)
        rk = Rank(r, cfg, p)
        ranks.append(rk)
        gens.append(rk.run())
    crng = random.Random(cfg.seed * 7 + 3)
    target = cfg.target_mb * 1e6 if cfg.target_mb else None
    steps_done = 0
    msgs = [next(g) for g in gens]
    live = True
    strag = {}   # --planted: step -> the others' mean wait (us) on the collectives the straggler reached last
    while live:
        kinds = set(m[0] for m in msgs)
        if len(kinds) != 1:
            raise RuntimeError('ranks out of step: %r' % (kinds,))
        if msgs[0][0] == 'coll':
            arrive = [m[1] for m in msgs]
            if msgs[0][3] is not None:   # --exposed-comm-us: the transfer takes that long
                end = max(arrive) + int(msgs[0][3] * 1000)
            else:
                end = max(arrive) + transfer_ns(msgs[0][2], cfg.ranks, crng)
            last = arrive.index(max(arrive))   # the first rank of the latest start
            if cfg.straggler is not None and last == cfg.straggler and cfg.ranks > 1:
                w = sum(arrive[last] - a for a in arrive) / (cfg.ranks - 1) / 1000.0
                strag[msgs[0][4]] = strag.get(msgs[0][4], 0) + w
            reply = end
        else:
            steps_done += 1
            total = sum(m[1] for m in msgs)
            reply = (total < target) if target else (steps_done < cfg.steps)
        nxt = []
        for g in gens:
            try:
                nxt.append(g.send(reply))
            except StopIteration:
                live = False
        msgs = nxt
    for p in parts:
        for fh in p:
            fh.close()
    written = 0
    names = []
    for r, rk in enumerate(ranks):
        fname = 'rank%d.pt.trace.json' % r
        path = os.path.join(cfg.outdir, fname + ('.gz' if cfg.gzip else ''))
        if cfg.gzip:
            raw = open(path, 'wb')
            fh = gzip.GzipFile(filename='', mode='wb', fileobj=raw, compresslevel=cfg.gzip_level, mtime=0)
        else:
            raw = None
            fh = open(path, 'wb')
        head = rk.header().encode()
        fh.write(head)
        written += len(head)
        for k in ('cpu', 'py', 'gpu'):
            pp = os.path.join(tmpdir, 'r%d.%s' % (r, k))
            with open(pp, 'rb') as src:
                while True:
                    buf = src.read(1 << 22)
                    if not buf:
                        break
                    fh.write(buf)
                    written += len(buf)
            os.remove(pp)
        tail = rk.trailer('/tmp/hta-sqlite-gen/%s' % fname).encode()
        fh.write(tail)
        written += len(tail)
        fh.close()
        if raw:
            raw.close()
        names.append(path)
    shutil.rmtree(tmpdir, ignore_errors=True)
    if cfg.planted:
        import json
        doc = {'steps': sorted(ranks[0].planted), 'straggler': cfg.straggler,
               'ranks': {str(r): {str(k): v for k, v in sorted(rk.planted.items())} for r, rk in enumerate(ranks)},
               'straggler_wait_us': {str(k): v for k, v in sorted(strag.items())}}
        with open(cfg.planted, 'w') as fh:
            json.dump(doc, fh, indent=1, sort_keys=True)
    return names, written, steps_done


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('outdir')
    ap.add_argument('--ranks', type=int, default=2, help='ranks, one file each (default 2)')
    ap.add_argument('--steps', type=int, default=4, help='ProfilerStep windows (default 4)')
    ap.add_argument('--layers', type=int, default=6, help='transformer blocks (default 6)')
    ap.add_argument('--seed', type=int, default=0, help='random seed: same options, same bytes (default 0)')
    ap.add_argument('--gzip', action='store_true', help='write .json.gz')
    ap.add_argument('--gzip-level', type=int, default=6, help='zlib level for --gzip (default 6)')
    ap.add_argument('--ns', action='store_true', help='fractional-µs timestamps (ns resolution)')
    ap.add_argument('--amd', action='store_true', help='ROCm/HIP flavour')
    ap.add_argument('--python', action='store_true', help='add python_function frames')
    ap.add_argument('--target-mb', type=float, default=0, help='run steps until N MB of JSON are written (all ranks)')
    ap.add_argument('--straggler', type=int, default=None, help='the slow rank (default: the last one)')
    ap.add_argument('--straggler-delay-us', type=float, default=0,
                    help="a 'straggler_delay' cpu_op of N us on the slow rank before each step's first "
                         'gradient all-reduce (default 0: none)')
    ap.add_argument('--first-step', type=int, default=5, help='number of the first ProfilerStep (default 5)')
    ap.add_argument('--hidden', type=int, default=768, help='model width (default 768)')
    ap.add_argument('--tokens', type=int, default=None, help='tokens per step (batch x sequence; default 4096, '
                    '65536 x 6 / layers with --healthy)')
    ap.add_argument('--batch', type=int, default=4, help='sequences per step (default 4)')
    ap.add_argument('--vocab', type=int, default=8192, help='vocabulary size (default 8192)')
    ap.add_argument('--bucket-mb', type=float, default=25.0, help='DDP bucket size')
    ap.add_argument('--healthy', action='store_true', help='none of the default problems (see above)')
    ap.add_argument('--slow-dataloader-us', type=float, default=0, help='planted: N us more in DataLoader.__next__')
    ap.add_argument('--item-syncs', type=int, default=0, help='planted: N .item()-style syncs per step')
    ap.add_argument('--pageable-copies', type=int, default=0, help='planted: N copies from pageable memory per step')
    ap.add_argument('--pageable-kb', type=int, default=1024, help='size of each planted pageable copy (default 1024)')
    ap.add_argument('--malloc-churn', type=int, default=0, help='planted: N cudaMalloc + N cudaFree per step')
    ap.add_argument('--tiny-kernels', type=int, default=0, help='planted: N tiny kernels launched one by one per step')
    ap.add_argument('--exposed-comm-us', type=float, default=0, help='planted: an N us all-reduce nothing overlaps')
    ap.add_argument('--straggler-kernel-us', type=float, default=0,
                    help='planted: an N us kernel on the --straggler rank before its first gradient all-reduce')
    ap.add_argument('--gemm-tflops', type=float, default=0,
                    help='planted: the linear layers\' GEMMs run at N TFLOPS (an H100 peaks at 494.7 in TF32)')
    ap.add_argument('--planted', default=None, metavar='FILE', help='write what was planted to FILE (JSON)')
    ap.add_argument('-q', '--quiet', action='store_true', help='no summary line on stderr')
    cfg = ap.parse_args(argv)
    if cfg.tokens is None:
        # --healthy: 6 layers at 65536 tokens, or as much computation with fewer layers
        cfg.tokens = 65536 * 6 // min(cfg.layers, 6) // cfg.batch * cfg.batch if cfg.healthy else 4096
    if cfg.ranks < 1 or cfg.steps < 1 or cfg.layers < 1:
        ap.error('--ranks, --steps and --layers must be at least 1')
    if cfg.tokens % cfg.batch:
        ap.error('--tokens must be a multiple of --batch')
    return cfg


def main(argv=None):
    cfg = parse_args(sys.argv[1:] if argv is None else argv)
    t = time.time()
    names, written, steps = generate(cfg)
    el = time.time() - t
    if not cfg.quiet:
        disk = sum(os.path.getsize(n) for n in names)
        sys.stderr.write('gen_trace: %d files, %d steps, %.1f MB JSON (%.1f MB on disk) in %.1f s (%.1f MB/s)\n'
                         % (len(names), steps, written / 1e6, disk / 1e6, el, written / 1e6 / max(el, 1e-9)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
