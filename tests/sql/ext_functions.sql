-- Scalar and aggregate functions of hta.so, the registered names, and error messages.
-- Every line of output is "label|1". Requirement ids (SC-n, AG-n, KT-n, IV-n, ST-n)
-- refer to the header comments of ext/core/scalars.c, aggregates.c, classify.c, interval.c, stats.c.

-- Registered names: the default entry point has exactly DESIGN 4's scalar and
-- aggregate functions, and only DESIGN 4's table-valued functions (no I/O).
SELECT 'functions_exact', (SELECT group_concat(name, ',') FROM (SELECT DISTINCT name FROM pragma_function_list WHERE name LIKE 'hta%' ORDER BY name))
  = 'hta_debug,hta_error,hta_kernel_type,hta_median,hta_memory_kind,hta_quantile,hta_shorten_name,hta_tensor_cores,hta_union_length,hta_version';
SELECT 'functions_narg', (SELECT group_concat(name || '/' || narg, ',') FROM (SELECT name, narg FROM pragma_function_list WHERE name LIKE 'hta%' ORDER BY name))
  = 'hta_debug/0,hta_error/1,hta_kernel_type/1,hta_median/1,hta_memory_kind/1,hta_quantile/2,hta_shorten_name/1,hta_tensor_cores/1,hta_union_length/2,hta_version/0';
-- DETERMINISTIC (0x800) | INNOCUOUS (0x200000) for pure functions; the two that read kernel_type_rule are INNOCUOUS only.
SELECT 'functions_flags_pure', (SELECT count(*) FROM pragma_function_list WHERE name IN ('hta_version','hta_debug','hta_memory_kind','hta_tensor_cores','hta_union_length','hta_quantile','hta_median') AND flags & 0x200800 = 0x200800) = 7;
SELECT 'functions_flags_rules', (SELECT count(*) FROM pragma_function_list WHERE name IN ('hta_kernel_type','hta_shorten_name') AND flags & 0x200800 = 0x200000) = 2;
SELECT 'modules_breakdown', (SELECT group_concat(name, ',') FROM (SELECT name FROM pragma_module_list WHERE name IN
  ('hta_temporal_breakdown','hta_kernel_type_breakdown','hta_kernel_breakdown','hta_idle_time_breakdown','hta_idle_interval_stats','hta_comm_comp_overlap') ORDER BY name))
  = 'hta_comm_comp_overlap,hta_idle_interval_stats,hta_idle_time_breakdown,hta_kernel_breakdown,hta_kernel_type_breakdown,hta_temporal_breakdown';
SELECT 'modules_only_design', (SELECT count(*) FROM pragma_module_list WHERE name LIKE 'hta%' AND name NOT IN
  ('hta_temporal_breakdown','hta_kernel_type_breakdown','hta_kernel_breakdown','hta_idle_time_breakdown','hta_idle_interval_stats',
   'hta_comm_comp_overlap','hta_kernel_launch_stats','hta_queue_length','hta_queue_length_summary','hta_queue_full_time',
   'hta_memory_bw','hta_memory_bw_summary','hta_frequent_kernel_sequences','hta_cupti_counters','hta_user_annotation_breakdown',
   'hta_profiler_steps','hta_trace_diff','hta_aten_op_kernels','hta_potential_stragglers',
   'hta_collectives','hta_collective_instances','hta_collective_summary','hta_collective_ranks',
   'hta_memory_timeline','hta_memory_summary','hta_memory_by_operator','hta_memory_allocations',
   'hta_critical_path','hta_critical_path_summary','hta_critical_path_graph','hta_critical_path_stats',
   'hta_critical_path_job','hta_critical_path_job_summary','hta_critical_path_job_stats',
   'hta_kernel_stats','hta_operator_stats','hta_tensor_core_summary','hta_module_stats',
   'hta_step_time_breakdown','hta_execution_summary','hta_gpu_metrics','hta_distributed_overlap',
   'hta_distributed_comm_ops','hta_findings','hta_op_perf','hta_op_perf_summary',
   'hta_job_diff','hta_job_diff_summary','hta_inference_steps','hta_trace_health',
   'hta_graph_kernels','hta_graph_launches','hta_graph_coverage')) = 0;
SELECT 'modules_inference', (SELECT count(*) FROM pragma_module_list WHERE name = 'hta_inference_steps') = 1;
SELECT 'modules_tb_modules', (SELECT count(*) FROM pragma_module_list WHERE name = 'hta_module_stats') = 1;
SELECT 'modules_op_perf', (SELECT count(*) FROM pragma_module_list WHERE name IN ('hta_op_perf','hta_op_perf_summary')) = 2;
SELECT 'modules_graph', (SELECT count(*) FROM pragma_module_list WHERE name IN ('hta_graph_kernels','hta_graph_launches','hta_graph_coverage')) = 3;
SELECT 'modules_tb_views', (SELECT count(*) FROM pragma_module_list WHERE name IN ('hta_step_time_breakdown',
  'hta_execution_summary','hta_gpu_metrics','hta_distributed_overlap','hta_distributed_comm_ops')) = 5;
SELECT 'no_io_by_default', (SELECT count(*) FROM pragma_module_list WHERE name = 'hta_trace_events')
  + (SELECT count(*) FROM pragma_function_list WHERE name IN ('hta_ingest','hta_write_trace_with_counters','hta_write_sequence_overlay')) = 0;
-- The io entry point adds I/O functions on top (whatever they are, all DIRECTONLY 0x80000).
.system sqlite3 :memory: -cmd ".load $HTA_EXT sqlite3_hta_io_init" "SELECT 'io_entry_loads', count(*) >= 8 FROM pragma_function_list WHERE name LIKE 'hta%'"

-- hta_error (SC-4): the message word for word, only where the query reaches it; NULL: NULL
SELECT 'error_not_reached', CASE WHEN 1 THEN 'ok' ELSE hta_error('never') END = 'ok';
SELECT 'error_null', hta_error(NULL) IS NULL;
SELECT 'error_flags', (SELECT flags & 0x200800 FROM pragma_function_list WHERE name = 'hta_error') = 0x200000;
.shell sh -c "sqlite3 :memory: -cmd '.load $HTA_EXT' 'SELECT hta_error(1234.5)' 2>&1 | grep -q '[ :]1234.5$' && echo 'error_message|1' || echo 'error_message|0'"

-- hta_version / hta_debug (SC-3)
SELECT 'version_format', hta_version() GLOB 'v[0-9]*.[0-9]*.[0-9]*';
SELECT 'debug_has_version', instr(hta_debug(), 'Version: ' || hta_version()) = 1;
SELECT 'debug_has_sqlite', instr(hta_debug(), 'SQLite: ' || sqlite_version()) > 0;
SELECT 'debug_has_commit', instr(hta_debug(), char(10) || 'Commit: ') > 0;

-- hta_kernel_type (SC-1, KT-1): HTA's rules as seeded, first match by priority wins.
SELECT 'kt_nccl', hta_kernel_type('ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)') = 'COMMUNICATION';
SELECT 'kt_nccl_dev', hta_kernel_type('ncclDevKernel_AllGather_RING_LL(ncclDevComm*)') = 'COMMUNICATION';
SELECT 'kt_ncclkernel_inside', hta_kernel_type('void foo<ncclKernel>(int)') = 'COMMUNICATION';
SELECT 'kt_rccl', hta_kernel_type('rccl_main_kernel') = 'COMMUNICATION';
SELECT 'kt_hip_is_comm', hta_kernel_type('hipMemcpyAsync') = 'COMMUNICATION';
SELECT 'kt_memcpy', hta_kernel_type('Memcpy HtoD (Pageable -> Device)') = 'MEMORY';
SELECT 'kt_memset', hta_kernel_type('Memset (Device)') = 'MEMORY';
SELECT 'kt_dma', hta_kernel_type('dma_request') = 'MEMORY';
SELECT 'kt_memcpy_inside_other', hta_kernel_type('cudaMemcpyAsync') = 'OTHER';
SELECT 'kt_sync_other', hta_kernel_type('Context Sync') = 'OTHER';
SELECT 'kt_wait_other', hta_kernel_type('Stream Wait Event') = 'OTHER';
SELECT 'kt_launch_other', hta_kernel_type('cudaLaunchKernel') = 'OTHER';
SELECT 'kt_mtia_other', hta_kernel_type('pe_exe_1') = 'OTHER';
SELECT 'kt_compute', hta_kernel_type('void at::native::vectorized_elementwise_kernel<4>(int)') = 'COMPUTATION';
SELECT 'kt_case_sensitive', hta_kernel_type('NCCLkernel') = 'COMPUTATION';
SELECT 'kt_null', hta_kernel_type(NULL) IS NULL;
-- A user's rule changes the answer at once (KT-1), and removing it restores HTA's.
INSERT INTO kernel_type_rule(priority, pattern, kernel_type) VALUES (50, 'my_copy*', 'MEMORY');
SELECT 'kt_user_rule', hta_kernel_type('my_copy_kernel') = 'MEMORY';
DELETE FROM kernel_type_rule WHERE priority = 50;
SELECT 'kt_user_rule_removed', hta_kernel_type('my_copy_kernel') = 'COMPUTATION';
-- No rule matches: OTHER.
CREATE TEMP TABLE saved_rules AS SELECT * FROM kernel_type_rule;
DELETE FROM kernel_type_rule WHERE pattern = '*';
SELECT 'kt_no_match_other', hta_kernel_type('gemm') = 'OTHER';
INSERT INTO kernel_type_rule SELECT * FROM saved_rules WHERE pattern = '*';
SELECT 'kt_rules_restored', hta_kernel_type('gemm') = 'COMPUTATION';
-- A database without kernel_type_rule uses HTA's rules (KT-2).
.system sqlite3 :memory: -cmd ".load $HTA_EXT" "SELECT 'kt_no_table', hta_kernel_type('ncclKernel_x') = 'COMMUNICATION' AND hta_kernel_type('gemm') = 'COMPUTATION'"
-- Many rows in one statement (the classifier is cached per call site where SQLite allows).
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
SELECT 'kt_many_rows', sum(hta_kernel_type(CASE i % 3 WHEN 0 THEN 'ncclKernel' WHEN 1 THEN 'Memset' ELSE 'gemm' END) = CASE i % 3 WHEN 0 THEN 'COMMUNICATION' WHEN 1 THEN 'MEMORY' ELSE 'COMPUTATION' END) = 500 FROM n;

-- hta_shorten_name (SC-2, spec 1.7, KT-3)
SELECT 'short_template', hta_shorten_name('void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>, at::detail::Array<char*, 3> >(int, at::native::AddFunctor<float>, at::detail::Array<char*, 3>)') = 'at::native::vectorized_elementwise_kernel';
SELECT 'short_autograd', hta_shorten_name('autograd::engine::evaluate_function: torch::autograd::CppNode<SplitLookupFunction>') = 'torch::autograd::CppNode';
SELECT 'short_unmatched_closer', hta_shorten_name('foo(a > b)') = '';
SELECT 'short_arrow', hta_shorten_name('x->y(int)') = 'xy';
SELECT 'short_memcpy_kept', hta_shorten_name('Memcpy DtoH (Device -> Pageable)') = 'Memcpy DtoH (Device -> Pageable)';
SELECT 'short_hip_memcpy_kept', hta_shorten_name('hipMemcpyWithStream(int)') = 'hipMemcpyWithStream(int)';
SELECT 'short_dma_kept', hta_shorten_name('dma_request(x)') = 'dma_request(x)';
SELECT 'short_plain', hta_shorten_name('aten::add_') = 'aten::add_';
SELECT 'short_space_no_bracket', hta_shorten_name('ProfilerStep#5 extra') = 'ProfilerStep#5 extra';
SELECT 'short_null', hta_shorten_name(NULL) IS NULL;
INSERT INTO kernel_type_rule(priority, pattern, kernel_type) VALUES (51, 'copy_*', 'MEMORY');
SELECT 'short_user_memory_kept', hta_shorten_name('copy_kernel<float>(int)') = 'copy_kernel<float>(int)';
DELETE FROM kernel_type_rule WHERE priority = 51;
SELECT 'short_user_memory_removed', hta_shorten_name('copy_kernel<float>(int)') = 'copy_kernel';

-- hta_memory_kind (SC-2, spec 1.16)
SELECT 'kind_htod', hta_memory_kind('Memcpy HtoD (Pageable -> Device)') = 'Memcpy HtoD';
SELECT 'kind_dtod', hta_memory_kind('Memcpy DtoD (Device -> Device)') = 'Memcpy DtoD';
SELECT 'kind_memset', hta_memory_kind('Memset (Device)') = 'Memset';
SELECT 'kind_unknown', hta_memory_kind('dma_request') = 'Memcpy Unknown';
SELECT 'kind_short', hta_memory_kind('Memcpy') = 'Memcpy';
SELECT 'kind_null', hta_memory_kind(NULL) IS NULL;

-- hta_union_length (AG-1, AG-2, IV-1, IV-2)
SELECT 'union_basic', (SELECT hta_union_length(column1, column2) FROM (VALUES (0, 10), (5, 15), (15, 20), (30, 40))) = 30;
SELECT 'union_integer_type', (SELECT typeof(hta_union_length(s, e)) FROM (SELECT 1 AS s, 3 AS e)) = 'integer';
SELECT 'union_real', (SELECT hta_union_length(column1, column2) FROM (VALUES (0.5, 1.5), (1.0, 2.0), (3, 4))) = 2.5;
SELECT 'union_real_type', (SELECT typeof(hta_union_length(column1, column2)) FROM (VALUES (1, 2), (2.5, 3))) = 'real';
SELECT 'union_nested', (SELECT hta_union_length(column1, column2) FROM (VALUES (0, 100), (10, 20), (30, 40))) = 100;
SELECT 'union_null_ignored', (SELECT hta_union_length(column1, column2) FROM (VALUES (0, 10), (NULL, 50), (20, NULL))) = 10;
SELECT 'union_no_rows', (SELECT hta_union_length(s, e) FROM (SELECT 1 AS s, 2 AS e WHERE 0)) IS NULL;
SELECT 'union_negative_kept', (SELECT hta_union_length(column1, column2) FROM (VALUES (10, 5))) = -5;
SELECT 'union_grouped', (SELECT group_concat(u, ',') FROM (SELECT column1, hta_union_length(column2, column3) AS u FROM (VALUES (1, 0, 5), (1, 3, 9), (2, 0, 1), (2, 5, 6)) GROUP BY column1 ORDER BY column1)) = '9,2';

-- hta_quantile / hta_median: pandas' linear rule (AG-3, ST-1)
SELECT 'q_p25', (SELECT hta_quantile(column1, 0.25) FROM (VALUES (4), (1), (3), (2))) = 1.75;
SELECT 'q_p75', (SELECT hta_quantile(column1, 0.75) FROM (VALUES (4), (1), (3), (2))) = 3.25;
SELECT 'q_upper_branch', (SELECT hta_quantile(column1, 0.9) FROM (VALUES (0), (10))) = 9.0;
SELECT 'q_lower_branch', (SELECT hta_quantile(column1, 0.1) FROM (VALUES (10), (20), (30))) = 12.0;
SELECT 'q_ends', (SELECT hta_quantile(column1, 0) FROM (VALUES (5), (7))) = 5 AND (SELECT hta_quantile(column1, 1) FROM (VALUES (5), (7))) = 7;
SELECT 'q_single', (SELECT hta_quantile(column1, 0.3) FROM (VALUES (42))) = 42;
SELECT 'q_null_ignored', (SELECT hta_quantile(column1, 0.5) FROM (VALUES (1), (NULL), (3))) = 2;
SELECT 'q_no_rows', (SELECT hta_quantile(x, 0.5) FROM (SELECT 1 AS x WHERE 0)) IS NULL;
SELECT 'median_even', (SELECT hta_median(column1) FROM (VALUES (1), (2), (3), (10))) = 2.5;
SELECT 'median_odd', (SELECT hta_median(column1) FROM (VALUES (3), (1), (2))) = 2;
SELECT 'median_grouped', (SELECT group_concat(m, ',') FROM (SELECT column1, hta_median(column2) AS m FROM (VALUES (1, 1), (1, 3), (2, 5)) GROUP BY column1 ORDER BY column1)) = '2.0,5.0';

-- Error messages (AG-3, AG-4): checked in a child sqlite3, since an error stops this script.
.system sqlite3 :memory: -cmd ".load $HTA_EXT" "SELECT hta_quantile(x, 2) FROM (SELECT 1 AS x)" 2>&1 | grep -q "2nd argument to hta_quantile() must be a number between 0.0 and 1.0" && echo 'err_quantile_q_range\|1' || echo 'err_quantile_q_range\|0'
.system sqlite3 :memory: -cmd ".load $HTA_EXT" "SELECT hta_quantile(x, 'abc') FROM (SELECT 1 AS x)" 2>&1 | grep -q "2nd argument to hta_quantile() must be a number between 0.0 and 1.0" && echo 'err_quantile_q_text\|1' || echo 'err_quantile_q_text\|0'
.system sqlite3 :memory: -cmd ".load $HTA_EXT" "SELECT hta_quantile(column1, column1 / 10.0) FROM (VALUES (1), (2))" 2>&1 | grep -q "2nd argument to hta_quantile() must be the same for all rows" && echo 'err_quantile_q_varies\|1' || echo 'err_quantile_q_varies\|0'
.system sqlite3 :memory: -cmd ".load $HTA_EXT" "SELECT hta_median(column1) FROM (VALUES ('abc'))" 2>&1 | grep -q "1st argument to hta_median() must be a number" && echo 'err_median_text\|1' || echo 'err_median_text\|0'
.system sqlite3 :memory: -cmd ".load $HTA_EXT" "SELECT hta_union_length(column1, column2) FROM (VALUES ('a', 1))" 2>&1 | grep -q "hta_union_length(): start and end must be numbers" && echo 'err_union_text\|1' || echo 'err_union_text\|0'
SELECT 'modules_job_diff', (SELECT count(*) FROM pragma_module_list WHERE name IN ('hta_job_diff','hta_job_diff_summary')) = 2;
