-- hta_aten_op_kernels (ext/hta/aten_ops.c, requirements AOK-n): hand-made traces,
-- hand-computed answers (ns in the database, us in the output).
CREATE TEMP TABLE ev(t, seq, cat, name, tid, ts, dur, stream, corr, link);
INSERT INTO trace(trace_id, rank, rank_source, file_name, file_size, content_hash, event_count)
VALUES (1, 0, 'distributedInfo', 'a.json', 0, 'h1', 0),
       (2, 1, 'distributedInfo', 'b.json', 0, 'h2', 0),
       (3, 2, 'distributedInfo', 'c.json', 0, 'h3', 0);
INSERT INTO temp.ev VALUES
  -- trace 1, rank 0. linear and addmm start together: the launches inside addmm go to
  -- addmm (the innermost at equal start, AOK-3); the one after it to linear.
  (1, 1, 'cpu_op', 'aten::linear', 1, 1000, 1000, NULL, NULL, NULL),
  (1, 2, 'cpu_op', 'aten::addmm', 1, 1000, 500, NULL, NULL, NULL),
  (1, 3, 'cuda_runtime', 'cudaLaunchKernel', 1, 1100, 50, NULL, 1, 4),
  (1, 4, 'kernel', 'gemm', 7, 3000, 100, 7, 1, 3),
  (1, 5, 'cuda_runtime', 'cudaLaunchKernel', 1, 1200, 50, NULL, 2, 6),
  (1, 6, 'kernel', 'bias', 7, 3200, 100, 7, 2, 5),
  (1, 7, 'cuda_runtime', 'cudaLaunchKernelExC', 1, 1600, 50, NULL, 3, 8),
  (1, 8, 'kernel', 'relu', 7, 3500, 100, 7, 3, 7),
  -- the second instance: relu starts 100 ns later (runtime delay 2000 instead of 1900)
  (1, 11, 'cpu_op', 'aten::linear', 1, 5000, 1000, NULL, NULL, NULL),
  (1, 12, 'cpu_op', 'aten::addmm', 1, 5000, 500, NULL, NULL, NULL),
  (1, 13, 'cuda_runtime', 'cudaLaunchKernel', 1, 5100, 50, NULL, 11, 14),
  (1, 14, 'kernel', 'gemm', 7, 7000, 100, 7, 11, 13),
  (1, 15, 'cuda_runtime', 'cudaLaunchKernel', 1, 5200, 50, NULL, 12, 16),
  (1, 16, 'kernel', 'bias', 7, 7300, 100, 7, 12, 15),
  (1, 17, 'cuda_runtime', 'cudaLaunchKernel', 1, 5600, 50, NULL, 13, 18),
  (1, 18, 'kernel', 'relu', 7, 7600, 100, 7, 13, 17),
  -- an op on thread 2 wraps a launch of thread 1 (any thread, AOK-3)
  (1, 21, 'cpu_op', 'aten::add_', 2, 8000, 300, NULL, NULL, NULL),
  (1, 22, 'cuda_runtime', 'cudaLaunchKernel', 1, 8100, 10, NULL, 21, 23),
  (1, 23, 'kernel', 'add_kernel', 7, 9000, 100, 7, 21, 22),
  -- aten::mul's launch has no GPU row (D13: skipped); the memcpy is no kernel launch
  (1, 31, 'cpu_op', 'aten::mul', 1, 10000, 100, NULL, NULL, NULL),
  (1, 32, 'cuda_runtime', 'cudaLaunchKernel', 1, 10010, 10, NULL, 31, NULL),
  (1, 33, 'cuda_runtime', 'cudaMemcpyAsync', 1, 10020, 10, NULL, 32, 34),
  (1, 34, 'gpu_memcpy', 'Memcpy HtoD (Pageable -> Device)', 7, 10500, 100, 7, 32, 33),
  -- aten::slow starts later but ends before the launch does: aten::outer wraps it
  (1, 41, 'cpu_op', 'aten::outer', 1, 10900, 1000, NULL, NULL, NULL),
  (1, 42, 'cpu_op', 'aten::slow', 1, 11000, 100, NULL, NULL, NULL),
  (1, 43, 'cuda_runtime', 'cudaLaunchKernel', 1, 11050, 100, NULL, 41, 44),
  (1, 44, 'kernel', 'outer_kernel', 7, 12000, 100, 7, 41, 43),
  -- same start, same end: the later event (aten::_to_copy) wins (AOK-3)
  (1, 51, 'cpu_op', 'aten::to', 1, 13000, 200, NULL, NULL, NULL),
  (1, 52, 'cpu_op', 'aten::_to_copy', 1, 13000, 200, NULL, NULL, NULL),
  (1, 53, 'cuda_runtime', 'cudaLaunchKernel', 1, 13050, 10, NULL, 51, 54),
  (1, 54, 'kernel', 'copy_kernel', 7, 13500, 100, 7, 51, 53),
  -- another linear with a different kernel list: a row of its own (AOK-5)
  (1, 61, 'cpu_op', 'aten::linear', 1, 15000, 1000, NULL, NULL, NULL),
  (1, 62, 'cuda_runtime', 'cudaLaunchKernel', 1, 15100, 10, NULL, 61, 63),
  (1, 63, 'kernel', 'gelu', 7, 15500, 100, 7, 61, 62),
  -- launches written in the file in another order than their ts: file order counts (AOK-4)
  (1, 81, 'cpu_op', 'aten::swap', 1, 30000, 1000, NULL, NULL, NULL),
  (1, 82, 'cuda_runtime', 'cudaLaunchKernel', 1, 30500, 10, NULL, 81, 83),
  (1, 83, 'kernel', 'second', 7, 31500, 100, 7, 81, 82),
  (1, 84, 'cuda_runtime', 'cudaLaunchKernel', 1, 30100, 10, NULL, 82, 85),
  (1, 85, 'kernel', 'first', 7, 31000, 100, 7, 82, 84),
  -- a launch inside no aten:: op, and one linked to a host row only (a sync event)
  (1, 71, 'cpu_op', 'custom::op', 1, 20000, 500, NULL, NULL, NULL),
  (1, 72, 'cuda_runtime', 'cudaLaunchKernel', 1, 20010, 10, NULL, 71, 73),
  (1, 73, 'kernel', 'lonely_kernel', 7, 21000, 100, 7, 71, 72),
  (1, 74, 'cpu_op', 'aten::sync_like', 1, 22000, 500, NULL, NULL, NULL),
  (1, 75, 'cuda_runtime', 'cudaLaunchKernel', 1, 22010, 10, NULL, 72, 76),
  (1, 76, 'cuda_sync', 'Event Sync', 1, 22100, 100, NULL, 72, 75),
  -- trace 2, rank 1: AMD (stream 0) and the other launch names of D13/D15, MTIA's too
  (2, 1, 'cpu_op', 'aten::conv', 1, 1000, 1000, NULL, NULL, NULL),
  (2, 2, 'cuda_runtime', 'hipLaunchKernel', 1, 1100, 10, NULL, 1, 3),
  (2, 3, 'kernel', 'conv_kernel', 0, 2000, 100, 0, 1, 2),
  (2, 4, 'cuda_runtime', 'hipModuleLaunchKernel', 1, 1200, 10, NULL, 2, 5),
  (2, 5, 'kernel', 'triton_k', 0, 2100, 100, 0, 2, 4),
  (2, 6, 'cuda_driver', 'cuLaunchKernel', 1, 1300, 10, NULL, 3, 7),
  (2, 7, 'kernel', 'cu_k', 0, 2200, 100, 0, 3, 6),
  (2, 8, 'cuda_runtime', 'hipExtModuleLaunchKernel', 1, 1400, 10, NULL, 4, 9),
  (2, 9, 'kernel', 'ext_k', 0, 2300, 100, 0, 4, 8),
  (2, 10, 'cuda_runtime', 'hipMemcpyAsync', 1, 1500, 10, NULL, 5, 11),
  (2, 11, 'gpu_memcpy', 'Memcpy HtoD', 0, 2400, 100, 0, 5, 10),
  (2, 12, 'cuda_driver', 'cuLaunchKernelEx', 1, 1600, 10, NULL, 6, 13),
  (2, 13, 'kernel', 'cuex_k', 0, 2500, 100, 0, 6, 12),
  (2, 21, 'cpu_op', 'aten::mtia_op', 1, 5000, 1000, NULL, NULL, NULL),
  (2, 22, 'mtia_runtime', 'runFunction - job_prep_and_submit_for_execution', 1, 5123, 10, NULL, 21, 23),
  (2, 23, 'mtia_ccp_events', 'pe_exe_k', 3, 5500, 100, 3, 21, 22),
  -- trace 3, rank 2: launches but no aten:: op at all (AOK-7)
  (3, 1, 'cpu_op', 'custom::op', 1, 1000, 1000, NULL, NULL, NULL),
  (3, 2, 'cuda_runtime', 'cudaLaunchKernel', 1, 1100, 10, NULL, 1, 3),
  (3, 3, 'kernel', 'k', 7, 2000, 100, 7, 1, 2);
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur,
                  stream, correlation, link_id)
SELECT (t << 32) | seq, t, (SELECT rank FROM trace WHERE trace_id = t), seq, 'X',
       (SELECT category_id FROM category WHERE name = cat),
       (SELECT string_id FROM string WHERE value = name), 1, tid, ts, dur, stream, corr,
       CASE WHEN link IS NOT NULL THEN (t << 32) | link END
FROM temp.ev;
UPDATE trace SET
  event_count = (SELECT count(*) FROM event e WHERE e.trace_id = trace.trace_id),
  min_ts = (SELECT min(ts) FROM event e WHERE e.trace_id = trace.trace_id),
  max_end = (SELECT max(ts + dur) FROM event e WHERE e.trace_id = trace.trace_id);

SELECT 'aok_module', count(*) = 1 FROM pragma_module_list WHERE name = 'hta_aten_op_kernels';
SELECT 'aok_columns', group_concat(name, ',') =
  'rank,aten_op_name,kernel_sequence,occurrence_count,avg_aten_op_launch_delay_us,avg_runtime_delay_us,trace_id,job'
  FROM pragma_table_xinfo('hta_aten_op_kernels') WHERE hidden = 0;

CREATE TEMP TABLE r0 AS SELECT rowid AS i, * FROM hta_aten_op_kernels WHERE rank = 0;
-- AOK-6: count desc, then op name, then sequence (byte order: '_' < 'a')
SELECT 'aok_01_order', group_concat(aten_op_name || '[' || kernel_sequence || ']' || occurrence_count, ',') =
  'aten::addmm[gemm -> bias]2,aten::linear[relu]2,aten::_to_copy[copy_kernel]1,aten::add_[add_kernel]1,aten::linear[gelu]1,aten::outer[outer_kernel]1,aten::swap[second -> first]1'
  FROM (SELECT * FROM temp.r0 ORDER BY i);
-- AOK-4/5: first launch's delays, averaged over the instances
SELECT 'aok_02_addmm', abs(avg_aten_op_launch_delay_us - 0.1) < 1e-12 AND abs(avg_runtime_delay_us - 1.9) < 1e-12
  FROM temp.r0 WHERE aten_op_name = 'aten::addmm';
SELECT 'aok_03_linear', abs(avg_aten_op_launch_delay_us - 0.6) < 1e-12 AND abs(avg_runtime_delay_us - 1.95) < 1e-12
  FROM temp.r0 WHERE aten_op_name = 'aten::linear' AND kernel_sequence = 'relu';
SELECT 'aok_04_other_thread', abs(avg_aten_op_launch_delay_us - 0.1) < 1e-12 AND abs(avg_runtime_delay_us - 0.9) < 1e-12
  FROM temp.r0 WHERE aten_op_name = 'aten::add_';
SELECT 'aok_05_outer', abs(avg_aten_op_launch_delay_us - 0.15) < 1e-12 AND abs(avg_runtime_delay_us - 0.95) < 1e-12
  FROM temp.r0 WHERE aten_op_name = 'aten::outer';
SELECT 'aok_06_to_copy', abs(avg_aten_op_launch_delay_us - 0.05) < 1e-12 AND abs(avg_runtime_delay_us - 0.45) < 1e-12
  FROM temp.r0 WHERE aten_op_name = 'aten::_to_copy';
SELECT 'aok_07_skipped', count(*) = 0 FROM temp.r0
  WHERE aten_op_name IN ('aten::mul', 'aten::slow', 'aten::to', 'aten::sync_like') OR kernel_sequence LIKE '%lonely%';
SELECT 'aok_08_trace_id', count(*) = 7 FROM temp.r0 WHERE trace_id = 1;
-- the first launch in file order gives the delays: 30500 - 30000, 31500 - 30500
SELECT 'aok_08b_file_order', abs(avg_aten_op_launch_delay_us - 0.5) < 1e-12 AND abs(avg_runtime_delay_us - 1.0) < 1e-12
  FROM temp.r0 WHERE aten_op_name = 'aten::swap';
SELECT 'aok_09_types', typeof(rank) || typeof(aten_op_name) || typeof(kernel_sequence) || typeof(occurrence_count)
  || typeof(avg_aten_op_launch_delay_us) || typeof(avg_runtime_delay_us) || typeof(trace_id)
  = 'integertexttextintegerrealrealinteger' FROM temp.r0 WHERE i = 1;

-- D13, D15, stream 0, MTIA runFunction; hipMemcpyAsync is no kernel launch
SELECT 'aok_10_amd', count(*) = 1 FROM hta_aten_op_kernels WHERE rank = 1 AND trace_id = 2
  AND aten_op_name = 'aten::conv' AND kernel_sequence = 'conv_kernel -> triton_k -> cu_k -> ext_k -> cuex_k'
  AND occurrence_count = 1 AND abs(avg_aten_op_launch_delay_us - 0.1) < 1e-12 AND abs(avg_runtime_delay_us - 0.9) < 1e-12;
SELECT 'aok_11_mtia', count(*) = 1 FROM hta_aten_op_kernels WHERE rank = 1
  AND aten_op_name = 'aten::mtia_op' AND kernel_sequence = 'pe_exe_k'
  AND abs(avg_aten_op_launch_delay_us - 0.123) < 1e-12 AND abs(avg_runtime_delay_us - 0.377) < 1e-12;
-- AOK-1 (D11): ranks are not mixed; AOK-7: no aten op, no rows (no error)
SELECT 'aok_12_rank1_rows', count(*) = 2 FROM hta_aten_op_kernels WHERE rank = 1;
SELECT 'aok_13_rank2_empty', count(*) = 0 FROM hta_aten_op_kernels WHERE rank = 2;
SELECT 'aok_14_all', group_concat(rank || ':' || trace_id, ',') = '0:1,0:1,0:1,0:1,0:1,0:1,0:1,1:2,1:2'
  FROM hta_aten_op_kernels;
SELECT 'aok_15_rank_null', count(*) = 0 FROM hta_aten_op_kernels WHERE rank = NULL;
SELECT 'aok_16_rank_text', count(*) = 2 FROM hta_aten_op_kernels WHERE rank = '1';
SELECT 'aok_17_rank_in', count(*) = 9 FROM hta_aten_op_kernels WHERE rank IN (0, 1);
SELECT 'aok_18_rank_join', group_concat(r.x || '=' || a.occurrence_count, ',') = '1=1,1=1'
  FROM (SELECT 1 AS x) r, hta_aten_op_kernels a WHERE a.rank = r.x;
