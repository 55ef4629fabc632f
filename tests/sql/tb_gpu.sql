-- hta_gpu_metrics (tb_gpu.c GM-1..7) on hand-made traces. Times below are us (x1000 into
-- ns); min_ts 0 everywhere, so the job's origin is 0.
--
-- Trace 1 (rank 0): one step ProfilerStep#1 [0,100) and no runtime call, so the window W is
-- the host window [0,100) (TV-4). Kernels (args.device, "blocks per SM", occupancy):
--   A dev 0 [10,30)   bps 0.5   occ 40
--   B dev 0 [20,40)   bps 0.75  occ 60
--   C dev 0 [90,120)  bps 2.0   occ 10     (runs past W)
--   D dev 0 [50,60)   bps 0     occ -1     (left out of both, GM-4, GM-5)
--   E dev 0 [-20,5)   no args             (before W but for [0,5))
--   F dev 1 [0,100)   no bps    occ 0
--   G no device [0,100)                     (counts nowhere, GM-1)
--   a memcpy on device 2 [0,100)           (no kernel: no GPU 2)
-- GPU 0: busy in W = [0,5) + [10,40) + [50,60) + [90,100) = 55 -> utilization 0.55.
--   SM efficiency: levels [10,20) 0.5, [20,30) min(1.25, 1) = 1, [30,40) 0.75, [90,100) 1
--   (C's 2 capped; [100,120) outside W): 5 + 10 + 7.5 + 10 = 32.5 over |W| 100 = 0.325.
--   Occupancy: A 40*20 + B 60*20 + C 10*10 = 2100 over 50 us = 42 (percent).
-- GPU 1: busy 100 -> 1.0; no blocks per SM: NULL; occupancy 0 (0 counts, >= 0).
-- deviceProperties: [{"id":5, "name":"GPU-A", ...8.0}, {"id":0, "name":"GPU-B", ...9.0}]:
--   read by position (GM-6): GPU 0 is "GPU-A" (whatever its id), GPU 1 "GPU-B".
-- Trace 2 (rank 1): kernels only (no step, TV-3): one row, every metric NULL, kernels 2.
-- Trace 3 (rank 2): steps moved to the device side: ProfilerStep#1 [0,10), its call [2,3)
--   -> kernel dev 3 [5,20) ends after it: W = [0,20); ProfilerStep#2 [10,30) launches nothing
--   and starts at prev = 20: [20,30); the tail rule drops it (the last step with work is
--   step 1). W = [0,20): busy 15 -> 0.75. deviceProperties has one entry: none for GPU 3.
-- Trace 4 (rank 3), the tensor-core columns (GM-7, from tb_tree.c's operator tree): under
--   ProfilerStep#1 [0,100) (External id 1), aten::mm [10,50) (id 2, tensor-core eligible)
--   launches [12,14) sm80_xmma_gemm_f16 on GPU 4 [20,40) (a tensor-core kernel), aten::add
--   [60,80) (id 3) launches [62,64) elementwise on GPU 5 [70,90), and the step itself launches
--   [90,91) another on GPU 4 [92,96) (under a step: in no tensor-core sum).
--   GPU 4: 20 us of tensor-core kernels of 20 under operators: 100; GPU 5: 0 of 20: 0.
--   Eligible: aten::mm's 20 us of the operators' 40: 50, on both rows.
--   Trace 1 has no launch at all: no kernel under an operator, so NULL per GPU and an
--   eligible share of 0 (nothing of 0).
CREATE TEMP TABLE ev(tr, seq, cat, name, ts, dur, corr, dev, args);
INSERT INTO job(job_id, name) VALUES (1, 'gpu');
INSERT INTO trace(trace_id, job_id, rank, rank_source, file_name, file_size, content_hash, event_count, min_ts,
                  max_end, metadata)
VALUES (1, 1, 0, 'default', 't1.json', 0, 'h1', 0, 0, 200000,
        '{"deviceProperties":[{"id":5,"name":"GPU-A","totalGlobalMem":1000,"computeMajor":8,"computeMinor":0},'
        || '{"id":0,"name":"GPU-B","totalGlobalMem":2000,"computeMajor":9,"computeMinor":0}]}'),
       (2, 1, 1, 'default', 't2.json', 0, 'h2', 0, 0, 100000, NULL),
       (3, 1, 2, 'default', 't3.json', 0, 'h3', 0, 0, 100000, '{"deviceProperties":[{"name":"only"}]}'),
       (4, 1, 3, 'default', 't4.json', 0, 'h4', 0, 0, 100000, NULL);
INSERT INTO temp.ev VALUES
  (1, 1, 'cpu_op', 'ProfilerStep#1', 0, 100, NULL, NULL, NULL),
  (1, 2, 'kernel', 'A', 10, 20, NULL, 0, '{"blocks per SM":0.5,"est. achieved occupancy %":40}'),
  (1, 3, 'kernel', 'B', 20, 20, NULL, 0, '{"blocks per SM":0.75,"est. achieved occupancy %":60}'),
  (1, 4, 'kernel', 'C', 90, 30, NULL, 0, '{"blocks per SM":2.0,"est. achieved occupancy %":10}'),
  (1, 5, 'kernel', 'D', 50, 10, NULL, 0, '{"blocks per SM":0,"est. achieved occupancy %":-1}'),
  (1, 6, 'kernel', 'E', -20, 25, NULL, 0, '{}'),
  (1, 7, 'kernel', 'F', 0, 100, NULL, 1, '{"est. achieved occupancy %":0}'),
  (1, 8, 'kernel', 'G', 0, 100, NULL, NULL, '{"blocks per SM":1}'),
  (1, 9, 'gpu_memcpy', 'Memcpy', 0, 100, NULL, 2, NULL),
  (2, 1, 'kernel', 'k', 0, 10, NULL, 0, NULL),
  (2, 2, 'kernel', 'k', 20, 10, NULL, 0, NULL),
  (3, 1, 'cpu_op', 'ProfilerStep#1', 0, 10, NULL, NULL, NULL),
  (3, 2, 'cpu_op', 'ProfilerStep#2', 10, 20, NULL, NULL, NULL),
  (3, 3, 'cuda_runtime', 'cudaLaunchKernel', 2, 1, 7, NULL, NULL),
  (3, 4, 'kernel', 'k', 5, 15, 7, 3, NULL),
  (4, 1, 'cpu_op', 'ProfilerStep#1', 0, 100, NULL, NULL, NULL),
  (4, 2, 'cpu_op', 'aten::mm', 10, 40, NULL, NULL, NULL),
  (4, 3, 'cuda_runtime', 'cudaLaunchKernel', 12, 2, 41, NULL, NULL),
  (4, 4, 'kernel', 'sm80_xmma_gemm_f16', 20, 20, 41, 4, NULL),
  (4, 5, 'cpu_op', 'aten::add', 60, 20, NULL, NULL, NULL),
  (4, 6, 'cuda_runtime', 'cudaLaunchKernel', 62, 2, 42, NULL, NULL),
  (4, 7, 'kernel', 'elementwise', 70, 20, 42, 5, NULL),
  (4, 8, 'cuda_runtime', 'cudaLaunchKernel', 90, 1, 43, NULL, NULL),
  (4, 9, 'kernel', 'elementwise', 92, 4, 43, 4, NULL);
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, correlation,
                  device, args)
SELECT (tr << 32) | seq, tr, tr - 1, seq, 'X', (SELECT category_id FROM category WHERE name = cat),
       (SELECT string_id FROM string WHERE value = name), 1, 1, ts * 1000, dur * 1000, corr, dev, args
FROM temp.ev;
-- trace 4: External ids (a launch's is its operator's) and the launches' links
UPDATE event SET external_id = CASE seq WHEN 1 THEN 1 WHEN 2 THEN 2 WHEN 3 THEN 2 WHEN 4 THEN 2
  WHEN 5 THEN 3 WHEN 6 THEN 3 WHEN 7 THEN 3 ELSE 1 END WHERE trace_id = 4;
UPDATE event SET link_id = (4 << 32) | (seq - 1) WHERE trace_id = 4 AND seq IN (4, 7, 9);

SELECT 'gm_01_columns', group_concat(name, ',') =
  'rank,device,gpu_utilization,sm_efficiency,achieved_occupancy,tensor_core_kernel_pct,tensor_core_eligible_pct,'
  || 'kernel_time_us,window_us,name,memory_bytes,compute_capability,kernels,window_start_us,window_end_us,trace_id,job'
  FROM pragma_table_info('hta_gpu_metrics');
-- GM-8
.shell sh -c "sqlite3 :memory: -cmd '.load $HTA_EXT' 'SELECT * FROM hta_gpu_metrics(128)' 2>&1 | grep -qF 'hta_gpu_metrics: plugin_quirks must be an integer from 0 to 127' && echo 'gm_01b_bad_quirks|1' || echo 'gm_01b_bad_quirks|0'"
-- GM-1: one row per GPU of the kernels, ascending; no row for the memcpy's device
SELECT 'gm_02_rows', group_concat(rank || ':' || device, ',') = '0:0,0:1,1:0,2:3,3:4,3:5' FROM hta_gpu_metrics;
-- GM-2..5 on GPU 0
SELECT 'gm_03_gpu0', (SELECT printf('%.6f %.6f %.6f %.1f %.1f %d %.1f %.1f', gpu_utilization, sm_efficiency,
  achieved_occupancy, kernel_time_us, window_us, kernels, window_start_us, window_end_us)
  FROM hta_gpu_metrics WHERE rank = 0 AND device = 0) = '0.550000 0.325000 42.000000 55.0 100.0 5 0.0 100.0';
-- GM-3..5 on GPU 1: no blocks per SM gives NULL; an occupancy of 0 counts
SELECT 'gm_04_gpu1', (SELECT gpu_utilization || '/' || ifnull(sm_efficiency, 'null') || '/' || achieved_occupancy
  FROM hta_gpu_metrics WHERE rank = 0 AND device = 1) = '1.0/null/0.0';
-- GM-6: deviceProperties by list position, not by the entries' id
SELECT 'gm_05_properties', (SELECT group_concat(device || '=' || name || '/' || memory_bytes || '/' || compute_capability, ',')
  FROM hta_gpu_metrics WHERE rank = 0) = '0=GPU-A/1000/8.0,1=GPU-B/2000/9.0';
-- GM-7: the tensor-core columns, per GPU and for the file; none under an operator: NULL and 0
SELECT 'gm_06_tensor_cores', (SELECT group_concat(device || ':' || tensor_core_kernel_pct || '/'
  || tensor_core_eligible_pct, ',') FROM hta_gpu_metrics WHERE rank = 3) = '4:100.0/50.0,5:0.0/50.0'
  AND (SELECT group_concat(ifnull(tensor_core_kernel_pct, 'null') || '/' || tensor_core_eligible_pct, ',')
       FROM hta_gpu_metrics WHERE rank = 0) = 'null/0.0,null/0.0';
-- TVF-7: the other columns do not need the tree, and give the same rows without it
SELECT 'gm_06b_columns', (SELECT group_concat(device || ':' || gpu_utilization) FROM hta_gpu_metrics WHERE rank = 3)
  = (SELECT group_concat(device || ':' || gpu_utilization) FROM (SELECT * FROM hta_gpu_metrics WHERE rank = 3));
-- GM-8: plugin_quirks (127: the plugin's rules; the same figures here)
SELECT 'gm_06c_quirks', (SELECT group_concat(tensor_core_kernel_pct || '/' || tensor_core_eligible_pct)
  FROM hta_gpu_metrics(127) WHERE rank = 3) = '100.0/50.0,0.0/50.0';
-- GM-2: no step, no window: NULL metrics, the kernels still counted
SELECT 'gm_07_no_window', (SELECT count(*) FROM hta_gpu_metrics WHERE rank = 1 AND gpu_utilization IS NULL
  AND sm_efficiency IS NULL AND achieved_occupancy IS NULL AND kernel_time_us IS NULL AND window_us IS NULL
  AND window_start_us IS NULL AND name IS NULL AND kernels = 2) = 1;
-- GM-2 with device-side windows and the tail rule; GM-6 with a list too short for GPU 3
SELECT 'gm_08_device_window', (SELECT window_start_us || '-' || window_end_us || ' ' || kernel_time_us || ' '
  || gpu_utilization || ' ' || ifnull(name, 'none') FROM hta_gpu_metrics WHERE rank = 2) = '0.0-20.0 15.0 0.75 none';
SELECT 'gm_09_rank', (SELECT count(*) FROM hta_gpu_metrics WHERE rank = 0) = 2;
