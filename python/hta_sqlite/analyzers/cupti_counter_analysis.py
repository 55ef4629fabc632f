"""HTA's hta.analyzers.cupti_counter_analysis names that notebooks import.

    from hta_sqlite.analyzers.cupti_counter_analysis import CUDA_SASS_INSTRUCTION_COUNTER_FLOPS
    kernels = analyzer.get_cupti_counter_data_with_operators(ranks=[0])[0]
    kernels["flops"] = sum(kernels[c] * f for c, f in CUDA_SASS_INSTRUCTION_COUNTER_FLOPS.items())

CUDA_SASS_INSTRUCTION_COUNTER_FLOPS maps the CUPTI counters of executed floating-point SASS
instructions (smsp__sass_thread_inst_executed_op_<op>_pred_on.sum) to the FLOPs each
instruction does: 2 for a fused multiply-add (ffma, hfma, dfma), 1 for an add or a
multiply, in single (f), half (h) and double (d) precision: HTA's table. The analysis itself
is TraceAnalysis.get_cupti_counter_data_with_operators (SQL: hta_cupti_counters).
"""

_OPS = ["ffma", "fmul", "fadd", "hfma", "hmul", "hadd", "dfma", "dmul", "dadd"]

CUDA_SASS_INSTRUCTION_COUNTER_FLOPS = {
    "smsp__sass_thread_inst_executed_op_%s_pred_on.sum" % op: 2 if op.endswith("fma") else 1 for op in _OPS
}

__all__ = ["CUDA_SASS_INSTRUCTION_COUNTER_FLOPS"]
