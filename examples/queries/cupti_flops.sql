-- cupti_flops.sql: floating-point operations per GPU kernel from CUPTI range-profiler
-- counters, attributed to the PyTorch operators that launched each kernel.
--
--   sqlite3 -header -column traces.db -cmd '.load ./hta' < examples/queries/cupti_flops.sql
--
-- The trace must come from torch.profiler with CUPTI profiler metrics, e.g.
--   experimental_config=torch.profiler._ExperimentalConfig(profiler_metrics=[
--     "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", ... (the nine below)],
--     profiler_measure_per_kernel=True)
-- Its kernels are `cuda_profiler_range` events; hta_cupti_counters returns one row per
-- (kernel, counter) with the kernel's operator stack (top_level_op = the outermost
-- cpu_op, bottom_level_op = the innermost).
--
-- This is the SQL form of the pandas recipe in HTA's CUPTI issue:
--   CUDA_SASS_INSTRUCTION_COUNTER_FLOPS = {
--     f"smsp__sass_thread_inst_executed_op_{op}_pred_on.sum": (2 if "fma" in op else 1)
--     for op in ["ffma", "fmul", "fadd", "hfma", "hmul", "hadd", "dfma", "dmul", "dadd"]}
--   gpu_kernels["flops"] = sum(gpu_kernels[counter] * flops for counter, flops in ...)
-- A fused multiply-add counts as 2 FLOPs, an add or a multiply as 1. These counters are
-- thread-level SASS instructions, so one instruction is one operation per thread.
--
-- Note: in range-profiler mode a kernel event's `dur` is the duration of the profiling
-- pass (every kernel is replayed once per counter group), not the kernel's own run time,
-- so FLOP/s needs kernel durations from a normal (non-CUPTI) profile of the same model.

-- 1. FLOPs of every kernel, split by precision, in kernel order.
CREATE TEMP VIEW IF NOT EXISTS cupti_kernel_flops AS
WITH weight(counter, flops_per_inst, precision) AS (VALUES
  ('smsp__sass_thread_inst_executed_op_hfma_pred_on.sum', 2, 'fp16'),
  ('smsp__sass_thread_inst_executed_op_hmul_pred_on.sum', 1, 'fp16'),
  ('smsp__sass_thread_inst_executed_op_hadd_pred_on.sum', 1, 'fp16'),
  ('smsp__sass_thread_inst_executed_op_ffma_pred_on.sum', 2, 'fp32'),
  ('smsp__sass_thread_inst_executed_op_fmul_pred_on.sum', 1, 'fp32'),
  ('smsp__sass_thread_inst_executed_op_fadd_pred_on.sum', 1, 'fp32'),
  ('smsp__sass_thread_inst_executed_op_dfma_pred_on.sum', 2, 'fp64'),
  ('smsp__sass_thread_inst_executed_op_dmul_pred_on.sum', 1, 'fp64'),
  ('smsp__sass_thread_inst_executed_op_dadd_pred_on.sum', 1, 'fp64'))
SELECT c.rank, c.trace_id, c.kernel_event_id, c.kernel_seq, c.kernel_name,
       c.top_level_op, c.bottom_level_op,
       sum(c.value * w.flops_per_inst) AS flops,
       sum(c.value * w.flops_per_inst) FILTER (WHERE w.precision = 'fp16') AS fp16_flops,
       sum(c.value * w.flops_per_inst) FILTER (WHERE w.precision = 'fp32') AS fp32_flops,
       sum(c.value * w.flops_per_inst) FILTER (WHERE w.precision = 'fp64') AS fp64_flops,
       count(*) AS counters_found      -- < 9: some counters were not collected
FROM hta_cupti_counters c
JOIN weight w ON w.counter = c.counter
GROUP BY c.trace_id, c.kernel_event_id;

-- 2. The ten kernels with the most FLOPs.
SELECT rank, kernel_seq, substr(kernel_name, 1, 60) AS kernel, bottom_level_op,
       round(flops / 1e9, 3) AS gflops, fp16_flops, fp32_flops, fp64_flops
FROM temp.cupti_kernel_flops
ORDER BY flops DESC
LIMIT 10;

-- 3. FLOPs per model-level operator (top of the stack), with its share of the total.
SELECT rank, coalesce(top_level_op, '(no cpu_op)') AS top_level_op,
       count(*) AS kernels, round(sum(flops) / 1e9, 3) AS gflops,
       round(100.0 * sum(flops) / sum(sum(flops)) OVER (PARTITION BY rank), 2) AS pct
FROM temp.cupti_kernel_flops
GROUP BY rank, top_level_op
ORDER BY rank, sum(flops) DESC;

-- 4. FLOPs per leaf operator (the aten op that launched the kernel).
SELECT rank, coalesce(bottom_level_op, '(no cpu_op)') AS bottom_level_op,
       count(*) AS kernels, round(sum(flops) / 1e9, 3) AS gflops
FROM temp.cupti_kernel_flops
GROUP BY rank, bottom_level_op
ORDER BY rank, sum(flops) DESC;

-- 5. Traces whose kernels could not be paired with their launches (reported, not dropped).
SELECT rank, trace_id, kernel_name AS problem
FROM hta_cupti_counters WHERE counter = 'error';
