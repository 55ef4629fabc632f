-- hta_kernel_launch_stats (launch_stats.c LS-1..6; spec 2.5 with D9, D15).
-- Trace 1 (rank 0) has two host ProfilerSteps, so the last-step cut is on: host rows at
-- or after 500000 ns go, with their GPU rows. Trace 2 (rank 1) has no step of its own
-- and so loses every host row unless include_last_profiler_step = 1.
-- Times are ns in the database, µs out. link = seq of the correlated partner.
CREATE TEMP TABLE ev(t, seq, cat, name, ts, dur, stream, corr, link);
INSERT INTO trace(trace_id, rank, rank_source, file_name, file_size, content_hash, event_count)
VALUES (1, 0, 'distributedInfo', 'r0.json', 0, 'h1', 0),
       (2, 1, 'distributedInfo', 'r1.json', 0, 'h2', 0);
INSERT INTO temp.ev VALUES
  (1, 0, 'Trace', 'PyTorch Profiler (0)', 0, 1000000, NULL, NULL, NULL),
  (1, 1, 'cpu_op', 'ProfilerStep#1', 0, 500000, NULL, NULL, NULL),
  (1, 2, 'cpu_op', 'ProfilerStep#2', 500000, 500000, NULL, NULL, NULL),
  (1, 3, 'cuda_runtime', 'cudaLaunchKernel', 10000, 5000, NULL, 1, 4),
  (1, 4, 'kernel', 'k_a', 20000, 3000, 7, 1, 3),                 -- delay 5 µs
  (1, 5, 'cuda_runtime', 'cudaLaunchKernel', 30000, 60000, NULL, 2, 6),
  (1, 6, 'kernel', 'k_b', 200000, 10000, 7, 2, 5),               -- delay 110 µs
  (1, 7, 'cuda_runtime', 'cudaMemcpyAsync', 100000, 4000, NULL, 3, 8),
  (1, 8, 'gpu_memcpy', 'Memcpy HtoD (Pageable -> Device)', 102000, 1000, 8, 3, 7), -- delay -2: 0
  (1, 9, 'cuda_runtime', 'cudaFuncGetAttributes', 110000, 1000, NULL, 4, NULL),
  (1, 10, 'cuda_driver', 'cuLaunchKernel', 120000, 2000, NULL, 5, 11),
  (1, 11, 'kernel', 'triton_k', 125000, 50000, 9, 5, 10),        -- gpu longer than cpu
  (1, 12, 'cuda_runtime', 'hipModuleLaunchKernel', 130000, 1500, NULL, 6, 13),  -- D15
  (1, 13, 'kernel', 'k_hip', 140000, 700, 9, 6, 12),
  (1, 14, 'kernel', 'orphan', 150000, 100, 7, 99, NULL),         -- no launch
  (1, 15, 'cuda_runtime', 'cudaLaunchKernelExC', 160000, 1000, NULL, 8, 17),
  (1, 16, 'kernel', 'kx1', 170000, 1000, 7, 8, 15),              -- two GPU rows, one launch
  (1, 17, 'kernel', 'kx2', 172000, 1000, 7, 8, 15),
  (1, 18, 'cuda_runtime', 'cudaGraphLaunch', 180000, 1000, NULL, 9, 19),  -- not a launch
  (1, 19, 'kernel', 'k_graph', 185000, 1000, 7, 9, 18),
  (1, 20, 'cuda_runtime', 'cudaLaunchKernel', 600000, 3000, NULL, 7, 21), -- after the cut
  (1, 21, 'kernel', 'k_late', 610000, 2000, 7, 7, 20),
  (2, 1, 'cuda_runtime', 'cudaLaunchKernel', 1000, 2000, NULL, 1, 2),
  (2, 2, 'kernel', 'k_r1', 5000, 1000, 7, 1, 1);
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur,
                  stream, correlation, link_id)
SELECT (t << 32) | seq, t, t - 1, seq, 'X', (SELECT category_id FROM category WHERE name = cat),
       (SELECT string_id FROM string WHERE value = name), 1, 1, ts, dur, stream, corr,
       CASE WHEN link IS NOT NULL THEN (t << 32) | link END
FROM temp.ev;
INSERT INTO profiler_step(trace_id, step, event_id, ts, dur)
VALUES (1, 1, (1 << 32) | 1, 0, 500000), (1, 2, (1 << 32) | 2, 500000, 500000);
UPDATE trace SET
  event_count = (SELECT count(*) FROM event e WHERE e.trace_id = trace.trace_id),
  min_ts = (SELECT min(ts) FROM event e WHERE e.trace_id = trace.trace_id AND e.category_id
            IS NOT (SELECT category_id FROM category WHERE name = 'Trace')),
  max_end = (SELECT max(ts + dur) FROM event e WHERE e.trace_id = trace.trace_id);

-- registration, columns, parameters
SELECT 'launch_01_module', count(*) = 1 FROM pragma_module_list WHERE name = 'hta_kernel_launch_stats';
SELECT 'launch_02_columns', group_concat(name, ',') =
  'rank,correlation,launch_name,kernel_name,cpu_duration_us,gpu_duration_us,launch_delay_us,is_short_kernel,is_runtime_outlier,is_launch_delay_outlier,trace_id,job'
  FROM pragma_table_info('hta_kernel_launch_stats');
SELECT 'launch_03_hidden', group_concat(name, ',') =
  'include_memory_events,runtime_cutoff_us,launch_delay_cutoff_us,include_last_profiler_step,schema'
  FROM pragma_table_xinfo('hta_kernel_launch_stats') WHERE hidden;

-- LS-1, LS-2, LS-3, LS-6: launches of rank 0 before the cut, in (launch, GPU row) order;
-- cudaGraphLaunch, the orphan kernel and the unlinked runtime call give nothing
SELECT 'launch_04_rows', group_concat(correlation || ':' || launch_name || ':' || kernel_name, ',') =
  '1:cudaLaunchKernel:k_a,2:cudaLaunchKernel:k_b,3:cudaMemcpyAsync:Memcpy HtoD (Pageable -> Device),'
  || '5:cuLaunchKernel:triton_k,6:hipModuleLaunchKernel:k_hip,8:cudaLaunchKernelExC:kx1,'
  || '8:cudaLaunchKernelExC:kx2'
  FROM hta_kernel_launch_stats;
SELECT 'launch_05_rank_trace', group_concat(DISTINCT rank || ':' || trace_id) = '0:1' FROM hta_kernel_launch_stats;

-- LS-4: durations and delays in µs; a negative delay is clipped at 0
SELECT 'launch_06_values', group_concat(cpu_duration_us || '/' || gpu_duration_us || '/' || launch_delay_us, ',') =
  '5.0/3.0/5.0,60.0/10.0/110.0,4.0/1.0/0.0,2.0/50.0/3.0,1.5/0.7/8.5,1.0/1.0/9.0,1.0/1.0/11.0'
  FROM hta_kernel_launch_stats;
SELECT 'launch_07_types', typeof(rank) || typeof(correlation) || typeof(launch_name) || typeof(kernel_name)
  || typeof(cpu_duration_us) || typeof(gpu_duration_us) || typeof(launch_delay_us) || typeof(is_short_kernel)
  || typeof(trace_id) = 'integerintegertexttextrealrealrealintegerinteger'
  FROM hta_kernel_launch_stats LIMIT 1;

-- LS-5: the three flags with the default cutoffs (50 µs, 100 µs)
SELECT 'launch_08_flags', group_concat(is_short_kernel || is_runtime_outlier || is_launch_delay_outlier, ',') =
  '100,011,100,000,100,000,000'
  FROM hta_kernel_launch_stats;
-- ... and with runtime_cutoff_us = 4, launch_delay_cutoff_us = 5 (equal is not an outlier)
SELECT 'launch_09_cutoffs', group_concat(is_short_kernel || is_runtime_outlier || is_launch_delay_outlier, ',') =
  '010,011,100,000,101,001,001'
  FROM hta_kernel_launch_stats(1, 4, 5);
SELECT 'launch_10_readback', include_memory_events = 1 AND runtime_cutoff_us = 4.0
  AND launch_delay_cutoff_us = 5.0 AND include_last_profiler_step = 0
  FROM hta_kernel_launch_stats(1, 4, 5) LIMIT 1;

-- LS-1: include_memory_events = 0 drops cudaMemcpyAsync
SELECT 'launch_11_no_memory', group_concat(correlation, ',') = '1,2,5,6,8,8'
  FROM hta_kernel_launch_stats(0);
SELECT 'launch_12_named_param', count(*) = 6 FROM hta_kernel_launch_stats WHERE include_memory_events = 0;

-- LS-3: the cut; rank 1 has no step of its own and loses its host rows
SELECT 'launch_13_rank1_cut', count(*) = 0 FROM hta_kernel_launch_stats WHERE rank = 1;
SELECT 'launch_14_last_step', group_concat(rank || ':' || correlation, ',') = '0:1,0:2,0:3,0:5,0:6,0:8,0:8,0:7,1:1'
  FROM hta_kernel_launch_stats WHERE include_last_profiler_step = 1;
SELECT 'launch_15_rank1_last', group_concat(correlation || ':' || launch_delay_us || ':' || trace_id) = '1:2.0:2'
  FROM hta_kernel_launch_stats(1, 50, 100, 1) WHERE rank = 1;

-- LS-6: WHERE rank = N; an absent rank, NULL or a non-integer rank give no rows
SELECT 'launch_16_rank0', count(*) = 7 FROM hta_kernel_launch_stats WHERE rank = 0;
SELECT 'launch_17_rank_absent', count(*) = 0 FROM hta_kernel_launch_stats WHERE rank = 5;
SELECT 'launch_18_rank_null', count(*) = 0 FROM hta_kernel_launch_stats WHERE rank = NULL;
SELECT 'launch_19_rank_frac', count(*) = 0 FROM hta_kernel_launch_stats WHERE rank = 0.5;

-- aggregate use, as in the header comment
SELECT 'launch_20_group', group_concat(launch_name || '=' || n, ',') =
  'cuLaunchKernel=1,cudaLaunchKernel=2,cudaLaunchKernelExC=2,cudaMemcpyAsync=1,hipModuleLaunchKernel=1'
  FROM (SELECT launch_name, count(*) AS n FROM hta_kernel_launch_stats GROUP BY 1 ORDER BY 1);

-- errors name the function and the parameter
.shell sh -c "sqlite3 :memory: -cmd '.load $HTA_EXT' 'SELECT * FROM hta_kernel_launch_stats(2)' 2>&1 | grep -qF 'hta_kernel_launch_stats: include_memory_events must be 0 or 1' && echo 'launch_21_err_memory|1' || echo 'launch_21_err_memory|0'"
.shell sh -c "sqlite3 :memory: -cmd '.load $HTA_EXT' 'SELECT * FROM hta_kernel_launch_stats(1, -1)' 2>&1 | grep -qF 'hta_kernel_launch_stats: runtime_cutoff_us must be a number >= 0' && echo 'launch_22_err_cutoff|1' || echo 'launch_22_err_cutoff|0'"
.shell sh -c "sqlite3 :memory: -cmd '.load $HTA_EXT' 'SELECT * FROM hta_kernel_launch_stats(1, 50, char(120))' 2>&1 | grep -qF 'hta_kernel_launch_stats: launch_delay_cutoff_us must be a number >= 0' && echo 'launch_23_err_text|1' || echo 'launch_23_err_text|0'"
.shell sh -c "sqlite3 :memory: -cmd '.load $HTA_EXT' 'SELECT * FROM hta_kernel_launch_stats(1, 50, 100, 0.5)' 2>&1 | grep -qF 'hta_kernel_launch_stats: include_last_profiler_step must be 0 or 1' && echo 'launch_24_err_last|1' || echo 'launch_24_err_last|0'"

-- a database without the schema is an error that names the missing table
.shell sh -c "sqlite3 :memory: -cmd '.load $HTA_EXT' 'SELECT * FROM hta_kernel_launch_stats' 2>&1 | grep -qF 'is not an hta-sqlite database' && echo 'launch_25_err_no_schema|1' || echo 'launch_25_err_no_schema|0'"

-- traces without any launch, then an empty database: no rows, no error
DELETE FROM event WHERE name_id IN (SELECT string_id FROM string WHERE value LIKE 'cu%' OR value LIKE 'hip%');
SELECT 'launch_26_no_launch', count(*) = 0 FROM hta_kernel_launch_stats(1, 50, 100, 1);
DELETE FROM profiler_step;
DELETE FROM event;
DELETE FROM trace;
DELETE FROM string;
SELECT 'launch_27_empty_db', count(*) = 0 FROM hta_kernel_launch_stats;
