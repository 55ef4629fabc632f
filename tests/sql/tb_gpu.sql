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
CREATE TEMP TABLE ev(tr, seq, cat, name, ts, dur, corr, dev, args);
INSERT INTO job(job_id, name) VALUES (1, 'gpu');
INSERT INTO trace(trace_id, job_id, rank, rank_source, file_name, file_size, content_hash, event_count, min_ts,
                  max_end, metadata)
VALUES (1, 1, 0, 'default', 't1.json', 0, 'h1', 0, 0, 200000,
        '{"deviceProperties":[{"id":5,"name":"GPU-A","totalGlobalMem":1000,"computeMajor":8,"computeMinor":0},'
        || '{"id":0,"name":"GPU-B","totalGlobalMem":2000,"computeMajor":9,"computeMinor":0}]}'),
       (2, 1, 1, 'default', 't2.json', 0, 'h2', 0, 0, 100000, NULL),
       (3, 1, 2, 'default', 't3.json', 0, 'h3', 0, 0, 100000, '{"deviceProperties":[{"name":"only"}]}');
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
  (3, 4, 'kernel', 'k', 5, 15, 7, 3, NULL);
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, correlation,
                  device, args)
SELECT (tr << 32) | seq, tr, tr - 1, seq, 'X', (SELECT category_id FROM category WHERE name = cat),
       (SELECT string_id FROM string WHERE value = name), 1, 1, ts * 1000, dur * 1000, corr, dev, args
FROM temp.ev;

SELECT 'gm_01_columns', group_concat(name, ',') =
  'rank,device,gpu_utilization,sm_efficiency,achieved_occupancy,tensor_core_kernel_pct,tensor_core_eligible_pct,'
  || 'kernel_time_us,window_us,name,memory_bytes,compute_capability,kernels,window_start_us,window_end_us,trace_id,job'
  FROM pragma_table_info('hta_gpu_metrics');
-- GM-1: one row per GPU of the kernels, ascending; no row for the memcpy's device
SELECT 'gm_02_rows', group_concat(rank || ':' || device, ',') = '0:0,0:1,1:0,2:3' FROM hta_gpu_metrics;
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
-- GM-7: the tensor-core columns are NULL
SELECT 'gm_06_tensor_cores', count(*) = 0 FROM hta_gpu_metrics
 WHERE tensor_core_kernel_pct IS NOT NULL OR tensor_core_eligible_pct IS NOT NULL;
-- GM-2: no step, no window: NULL metrics, the kernels still counted
SELECT 'gm_07_no_window', (SELECT count(*) FROM hta_gpu_metrics WHERE rank = 1 AND gpu_utilization IS NULL
  AND sm_efficiency IS NULL AND achieved_occupancy IS NULL AND kernel_time_us IS NULL AND window_us IS NULL
  AND window_start_us IS NULL AND name IS NULL AND kernels = 2) = 1;
-- GM-2 with device-side windows and the tail rule; GM-6 with a list too short for GPU 3
SELECT 'gm_08_device_window', (SELECT window_start_us || '-' || window_end_us || ' ' || kernel_time_us || ' '
  || gpu_utilization || ' ' || ifnull(name, 'none') FROM hta_gpu_metrics WHERE rank = 2) = '0.0-20.0 15.0 0.75 none';
SELECT 'gm_09_rank', (SELECT count(*) FROM hta_gpu_metrics WHERE rank = 0) = 2;
