-- hta_trace_health (ext/health: HL-n in health.c, HT-n in health_trace.c, HC-n in
-- health_clock.c) on four small jobs written by hand. Times below in µs (stored in ns).
--
-- Job 'a' (world size 4, three ranks):
--   every trace: an aten::mm cpu_op [10000, 40000) that holds its launch calls, 4 all-reduce
--   kernels (metadata: process group '0', 3 ranks) at 11000, 16000, 21000, 26000 (+100 µs)
--   and gemm kernels, each launched 50 µs before by a cudaLaunchKernel.
--   trace 1, rank 0: healthy. Steps 1..3 of 10000 µs from 10000; gemms at 12000, 22000,
--     32000 (+1000); 7 ac2g flows; one cudaMemsetAsync without a GPU row (memsets are apart:
--     HT-2); Kineto's "Record counts" line (3 out of range, nothing broken); a device.
--   trace 2, rank 1: its clock 500 µs ahead (every time + 500); no flows; two of its gemms
--     lost their correlation (no link either way); rank from the file name; no
--     distributedInfo.
--   trace 3, rank 2: steps [10000, 20000) [20000, 30000) [30000, 30500) [30500, 40500)
--     [40500, 42500): step 3 lasts 500 (< 10% of the median 10000), no kernel starts in
--     step 4, the last lasts 2000 (0.2 of the median); gemms at 12000, 22000, 30100, 41000;
--     the profiler stopped early, 2 invalid correlations + 1 out of order, 2 ERROR lines;
--     ingest repaired 3 events (negative_duration 1, unmatched_end 2; rank_default is not
--     a repair); displayTimeUnit 'us'.
-- Job 'pair' (world size 2): two ranks, 3 all-reduces each, rank 1's ends 3000 µs later:
--   each rank gets half, -1500 and +1500 (HC-4).
-- Job 'cpu': one trace of cpu_ops only, at 0 and at 7200 s (a span of 2 hours).
-- Job 'gpuonly': 100 kernels of 1 µs and one of 200 µs, each launched by a call outside any
--   operator (parent_id NULL); ns timestamps (x.500 µs), displayTimeUnit 'ns'.
INSERT INTO job(job_id, name) VALUES (1, 'a'), (2, 'pair'), (3, 'cpu'), (4, 'gpuonly');
INSERT INTO category(category_id, name) VALUES (1, 'kernel'), (2, 'cuda_runtime'), (3, 'cpu_op'),
  (4, 'ac2g'), (5, 'user_annotation');
INSERT INTO string(string_id, value) VALUES (1, 'cudaLaunchKernel'), (2, 'cudaMemsetAsync'),
  (3, 'gemm'), (4, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL'), (5, 'aten::mm'), (6, 'ProfilerStep#1');
INSERT INTO trace(trace_id, job_id, rank, rank_source, file_name, file_size, content_hash, world_size,
                  display_time_unit, event_count, metadata) VALUES
  (1, 1, 0, 'distributedInfo', 'a/rank0.json', 0, 'h1', 4, 'ms', 0,
   json_object('distributedInfo', json_object('rank', 0, 'world_size', 4), 'INFO', json_array(
     'INFO:2024 CuptiActivityProfiler.cpp:1] Processing 1 CPU buffers',
     'INFO:2024 CuptiActivityProfiler.cpp:2] Record counts: Out-of-range = 3, Blocklisted runtime = 7, Invalid ext correlations = 0, CPU GPU out-of-order = 0, Unexpected CUDA events = 0, CUPTI stopped early? = 0'))),
  (2, 1, 1, 'file_name', 'a/rank1.json', 0, 'h2', NULL, 'ms', 0, '{}'),
  (3, 1, 2, 'distributedInfo', 'a/rank2.json', 0, 'h3', 4, 'us', 20,
   json_object('distributedInfo', json_object('rank', 2, 'world_size', 4), 'INFO', json_array(
     'INFO:2024 CuptiActivityProfiler.cpp:2] Record counts: Out-of-range = 0, Blocklisted runtime = 0, Invalid ext correlations = 2, CPU GPU out-of-order = 1, Unexpected CUDA events = 0, GPU stopped early? = 1'),
     'ERROR', json_array('ERROR:2024 DeviceProperties.cpp:47] gpuGetDeviceCount failed', 'ERROR:2024 second'))),
  (4, 2, 0, 'distributedInfo', 'pair/r0.json', 0, 'h4', 2, NULL, 0, '{"distributedInfo":{"rank":0}}'),
  (5, 2, 1, 'distributedInfo', 'pair/r1.json', 0, 'h5', 2, NULL, 0, '{"distributedInfo":{"rank":1}}'),
  (6, 3, 0, 'default', 'cpu/t.json', 0, 'h6', NULL, NULL, 0, '{}'),
  (7, 4, 0, 'default', 'gpuonly/t.json', 0, 'h7', NULL, 'ns', 0, '{}');
INSERT INTO device(trace_id, device_id, name) VALUES (1, 0, 'NVIDIA H100 80GB HBM3');
INSERT INTO ingest_issue(trace_id, code, count, message) VALUES (3, 'negative_duration', 1, 'x'),
  (3, 'unmatched_end', 2, 'x'), (3, 'rank_default', 1, 'x');

-- GPU kernels of job 'a' (t, n, name, ts µs, dur µs, correlation: NULL = lost) and their launches.
CREATE TEMP TABLE k(t, n, name, ts, dur, corr);
INSERT INTO temp.k VALUES
  (1, 1, 4, 11000, 100, 101), (1, 2, 4, 16000, 100, 102), (1, 3, 4, 21000, 100, 103), (1, 4, 4, 26000, 100, 104),
  (1, 5, 3, 12000, 1000, 105), (1, 6, 3, 22000, 1000, 106), (1, 7, 3, 32000, 1000, 107),
  (2, 1, 4, 11500, 100, 101), (2, 2, 4, 16500, 100, 102), (2, 3, 4, 21500, 100, 103), (2, 4, 4, 26500, 100, 104),
  (2, 5, 3, 12500, 1000, 105), (2, 6, 3, 22500, 1000, NULL), (2, 7, 3, 32500, 1000, NULL),
  (3, 1, 4, 10900, 200, 101), (3, 2, 4, 16000, 100, 102), (3, 3, 4, 21050, 50, 103), (3, 4, 4, 26000, 100, 104),
  (3, 5, 3, 12000, 1000, 105), (3, 6, 3, 22000, 1000, 106), (3, 7, 3, 30100, 100, 107), (3, 8, 3, 41000, 1000, 108);
-- ordinals: the cpu_op 0, kernels n, launches 100 + n, steps 200 + n
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, stream, correlation, link_id, args)
SELECT (k.t << 32) | k.n, k.t, k.t - 1, k.n, 'X', 1, k.name, 0, 7, k.ts * 1000, k.dur * 1000,
       CASE k.name WHEN 4 THEN 20 ELSE 7 END, k.corr,
       CASE WHEN k.corr IS NOT NULL THEN (k.t << 32) | (100 + k.n) END,
       CASE k.name WHEN 4 THEN json_object('Collective name', 'allreduce', 'Process Group Name', '0',
         'Process Group Ranks', '[0, 1, 2]', 'Group size', 3, 'dtype', 'Float', 'In msg nelems', 100,
         'Out msg nelems', 100) END
  FROM temp.k;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, correlation, link_id, parent_id, depth)
SELECT (k.t << 32) | (100 + k.n), k.t, k.t - 1, 100 + k.n, 'X', 2, 1, 1, 1, (k.ts - 50) * 1000, 10000,
       coalesce(k.corr, 900 + k.n), CASE WHEN k.corr IS NOT NULL THEN (k.t << 32) | k.n END, k.t << 32, 1
  FROM temp.k;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, parent_id, depth, correlation)
VALUES (1 << 32 | 150, 1, 0, 150, 'X', 2, 2, 1, 1, 35000000, 5000, 1 << 32, 1, 150);
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, depth)
SELECT t << 32, t, t - 1, 0, 'X', 3, 5, 1, 1, (10000 + 500 * (t = 2)) * 1000, 30000000, 0 FROM (SELECT 1 t UNION SELECT 2 UNION SELECT 3);
INSERT INTO profiler_step(trace_id, step, event_id, ts, dur)
SELECT t, s, (t << 32) | (200 + s), (ts + 500 * (t = 2)) * 1000, dur * 1000
  FROM (SELECT 1 t UNION SELECT 2) JOIN (SELECT 1 s, 10000 ts, 10000 dur UNION SELECT 2, 20000, 10000 UNION SELECT 3, 30000, 10000)
UNION ALL SELECT 3, s, (3 << 32) | (200 + s), ts * 1000, dur * 1000
  FROM (SELECT 1 s, 10000 ts, 10000 dur UNION SELECT 2, 20000, 10000 UNION SELECT 3, 30000, 500
        UNION SELECT 4, 30500, 10000 UNION SELECT 5, 40500, 2000);
INSERT INTO flow(flow_id, trace_id, seq, ph, id, category_id, ts)
SELECT (1 << 32) | (2 * n + p), 1, 2 * n + p, CASE p WHEN 0 THEN 's' ELSE 'f' END, 100 + n, 4, 0
  FROM (SELECT n FROM temp.k WHERE t = 1) JOIN (SELECT 0 p UNION SELECT 1);

-- job 'pair': all-reduces at 1000, 2000, 3000 (+100); rank 1's end 3000 µs later
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, stream, correlation, args)
SELECT (t << 32) | n, t, t - 4, n, 'X', 1, 4, 0, 7, (1000 * n + 3000 * (t = 5)) * 1000, 100000, 20, n,
       json_object('Collective name', 'allreduce', 'Process Group Name', '0', 'Group size', 2, 'dtype', 'Float',
                   'In msg nelems', 10, 'Out msg nelems', 10)
  FROM (SELECT 4 t UNION SELECT 5) JOIN (SELECT 1 n UNION SELECT 2 UNION SELECT 3);
-- job 'cpu'
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur)
VALUES (6 << 32, 6, 0, 0, 'X', 3, 5, 1, 1, 0, 1000), (6 << 32 | 1, 6, 0, 1, 'X', 3, 5, 1, 1, 7200000000000, 1000);
-- job 'gpuonly': kernel n at 10 n + 0.5 µs, launched at 10 n - 4.5
WITH RECURSIVE n(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM n WHERE n < 101)
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, stream, correlation, link_id)
SELECT (7 << 32) | (2 * n + p), 7, 0, 2 * n + p, 'X', CASE p WHEN 0 THEN 1 ELSE 2 END, CASE p WHEN 0 THEN 3 ELSE 1 END,
       p, p, 10000 * n + 500 - 5000 * p, CASE WHEN p = 1 THEN 1000 WHEN n = 101 THEN 200000 ELSE 1000 END,
       CASE p WHEN 0 THEN 7 END, n, (7 << 32) | (2 * n + 1 - p)
  FROM n JOIN (SELECT 0 p UNION SELECT 1);
UPDATE trace SET
  event_count = CASE trace_id WHEN 3 THEN 20 ELSE (SELECT count(*) FROM event e WHERE e.trace_id = trace.trace_id) END,
  min_ts = (SELECT min(ts) FROM event e WHERE e.trace_id = trace.trace_id),
  max_end = (SELECT max(ts + dur) FROM event e WHERE e.trace_id = trace.trace_id);

CREATE TEMP VIEW h AS SELECT * FROM hta_trace_health;
SELECT 'hl_01_columns', group_concat(name, ',') = 'rank,trace_id,check,value,threshold,verdict,detail,message,job'
  FROM pragma_table_info('hta_trace_health');
-- HL-1: the job's check first, then each trace's 20 checks in order, jobs in job_id order
SELECT 'hl_02_rows', (SELECT count(*) FROM h) = 4 + 20 * 7;
SELECT 'hl_03_order', (SELECT group_concat("check", ',') FROM (SELECT "check" FROM h WHERE job = 'a' AND (trace_id IS NULL OR trace_id = 1)))
  = 'ranks_profiled,profiler_stopped_early,profiler_record_errors,profiler_log_errors,ingest_repairs,gpu_activity,cpu_activity,kernels_without_launch,launches_without_kernel,flows,graph_coverage,steps,collapsed_steps,last_step,dominant_gpu_event,clock_offset,rank_identity,distributed_info,device_properties,time_unit,time_span';
SELECT 'hl_04_job_order', (SELECT group_concat(DISTINCT job) FROM h) = 'a,pair,cpu,gpuonly';
SELECT 'hl_05_trace_order', (SELECT group_concat(trace_id) FROM (SELECT DISTINCT trace_id FROM h WHERE trace_id IS NOT NULL)) = '1,2,3,4,5,6,7';
-- trace 1 is healthy: nothing but ok
SELECT 'hl_06_healthy', (SELECT count(*) FROM h WHERE trace_id = 1 AND verdict != 'ok') = 0;
-- ranks_profiled: 3 of world size 4
SELECT 'hl_07_ranks', (SELECT value = 3 AND threshold = 4 AND verdict = 'warn' AND rank IS NULL
  AND json_extract(detail, '$.ranks') = '[0,1,2]' FROM h WHERE job = 'a' AND "check" = 'ranks_profiled');
SELECT 'hl_08_ranks_all', (SELECT value = 2 AND verdict = 'ok' FROM h WHERE job = 'pair' AND "check" = 'ranks_profiled');
SELECT 'hl_09_ranks_unknown', (SELECT value = 1 AND threshold IS NULL AND verdict = 'ok' FROM h WHERE job = 'cpu' AND "check" = 'ranks_profiled');
-- HT-6: the profiler's log
SELECT 'hl_10_stopped', (SELECT group_concat(trace_id || ':' || coalesce(value, 'null') || ':' || verdict) FROM h
  WHERE job = 'a' AND "check" = 'profiler_stopped_early') = '1:0:ok,2:null:ok,3:1:fail';
SELECT 'hl_11_record_errors', (SELECT value = 3 AND verdict = 'warn' AND json_extract(detail, '$.invalid_external_correlations') = 2
  FROM h WHERE trace_id = 3 AND "check" = 'profiler_record_errors');
SELECT 'hl_12_record_ok', (SELECT value = 0 AND verdict = 'ok' AND json_extract(detail, '$.out_of_range') = 3
  AND json_extract(detail, '$.blocklisted_runtime') = 7 FROM h WHERE trace_id = 1 AND "check" = 'profiler_record_errors');
SELECT 'hl_13_log_errors', (SELECT value = 2 AND verdict = 'warn' AND message LIKE '%gpuGetDeviceCount failed'
  FROM h WHERE trace_id = 3 AND "check" = 'profiler_log_errors');
-- HT-7: 3 repaired of 20 events: 15% > 1%
SELECT 'hl_14_repairs', (SELECT value = 3 AND verdict = 'fail' AND json_extract(detail, '$.codes') = '{"negative_duration":1,"unmatched_end":2}'
  FROM h WHERE trace_id = 3 AND "check" = 'ingest_repairs');
-- HT-1, HT-2: trace 2 lost two correlations: 2 of 7 kernels, 2 of 7 launches
SELECT 'hl_15_kernels', (SELECT value = 100.0 * 2 / 7 AND verdict = 'warn' AND threshold = 5
  FROM h WHERE trace_id = 2 AND "check" = 'kernels_without_launch');
SELECT 'hl_16_launches', (SELECT value = 100.0 * 2 / 7 AND verdict = 'warn'
  FROM h WHERE trace_id = 2 AND "check" = 'launches_without_kernel');
SELECT 'hl_17_memsets_apart', (SELECT value = 0 AND json_extract(detail, '$.launches') = 7 AND json_extract(detail, '$.memset_calls') = 1
  AND json_extract(detail, '$.memset_calls_without_row') = 1 FROM h WHERE trace_id = 1 AND "check" = 'launches_without_kernel');
-- job 'pair' has kernels and no launch call at all: 100%, fail
SELECT 'hl_18_no_launches', (SELECT group_concat(coalesce(value, 'null') || ':' || verdict) FROM h
  WHERE job = 'pair' AND "check" IN ('kernels_without_launch', 'launches_without_kernel') AND rank = 0) = '100.0:fail,null:ok';
-- HT-4: flows
SELECT 'hl_19_flows', (SELECT group_concat(value || ':' || verdict) FROM h WHERE job = 'a' AND "check" = 'flows') = '7:ok,0:warn,0:warn';
-- HT-5: steps, collapsed steps (3 and 4 of trace 3's first four), the last step
SELECT 'hl_20_steps', (SELECT group_concat(value || ':' || verdict) FROM h WHERE job = 'a' AND "check" = 'steps') = '3:ok,3:ok,5:ok';
SELECT 'hl_21_collapsed', (SELECT value = 2 AND verdict = 'fail' AND json_extract(detail, '$.median_step_us') = 10000
  AND json_extract(detail, '$.collapsed') = '[{"step":3,"dur_us":500.0,"gpu_rows":1},{"step":4,"dur_us":10000.0,"gpu_rows":0}]'
  FROM h WHERE trace_id = 3 AND "check" = 'collapsed_steps');
SELECT 'hl_22_last_step', (SELECT value = 0.2 AND verdict = 'warn' AND json_extract(detail, '$.step') = 5
  FROM h WHERE trace_id = 3 AND "check" = 'last_step');
SELECT 'hl_23_last_step_ok', (SELECT value = 1.0 AND verdict = 'ok' FROM h WHERE trace_id = 1 AND "check" = 'last_step');
SELECT 'hl_24_no_steps', (SELECT group_concat("check" || ':' || coalesce(value, 'null') || ':' || verdict) FROM h
  WHERE trace_id = 6 AND "check" IN ('steps', 'collapsed_steps', 'last_step')) = 'steps:0:warn,collapsed_steps:null:ok,last_step:null:ok';
-- HC-3: medians of {E, E + 500, E} are E: rank 1 is 500 µs late, the others on time
SELECT 'hl_25_clock', (SELECT group_concat(value || ':' || verdict) FROM h WHERE job = 'a' AND "check" = 'clock_offset') = '0.0:ok,500.0:warn,0.0:ok';
SELECT 'hl_26_clock_detail', (SELECT json_extract(detail, '$.collectives') = 4 AND json_extract(detail, '$.max_us') = 500 FROM h WHERE trace_id = 2 AND "check" = 'clock_offset');
-- HC-4: two ranks 3000 µs apart: each is half of it off, both past 1000 µs
SELECT 'hl_27_clock_pair', (SELECT group_concat(value || ':' || verdict) FROM h WHERE job = 'pair' AND "check" = 'clock_offset') = '-1500.0:fail,1500.0:fail';
SELECT 'hl_28_clock_one_rank', (SELECT value IS NULL AND verdict = 'ok' FROM h WHERE job = 'gpuonly' AND "check" = 'clock_offset');
-- identity, distributedInfo, devices
SELECT 'hl_29_identity', (SELECT group_concat(value || ':' || verdict) FROM h WHERE job = 'a' AND "check" = 'rank_identity')
  = 'distributedInfo:ok,file_name:warn,distributedInfo:ok';
SELECT 'hl_30_identity_alone', (SELECT value = 'default' AND verdict = 'ok' FROM h WHERE trace_id = 6 AND "check" = 'rank_identity');
SELECT 'hl_31_dist_info', (SELECT group_concat(value || ':' || verdict) FROM h WHERE job = 'a' AND "check" = 'distributed_info') = '1:ok,0:warn,1:ok';
SELECT 'hl_32_devices', (SELECT group_concat(value || ':' || verdict) FROM h WHERE job = 'a' AND "check" = 'device_properties') = '1:ok,0:warn,0:warn';
SELECT 'hl_33_devices_cpu', (SELECT value = 0 AND verdict = 'ok' FROM h WHERE trace_id = 6 AND "check" = 'device_properties');
-- CPU-only and GPU-only
SELECT 'hl_34_cpu_only', (SELECT value = 0 AND verdict = 'warn' FROM h WHERE trace_id = 6 AND "check" = 'gpu_activity');
SELECT 'hl_35_gpu_rows', (SELECT value = 101 AND verdict = 'ok' FROM h WHERE trace_id = 7 AND "check" = 'gpu_activity');
SELECT 'hl_36_gpu_only', (SELECT value = 0.0 AND verdict = 'warn' AND json_extract(detail, '$.launches') = 101 FROM h WHERE trace_id = 7 AND "check" = 'cpu_activity');
SELECT 'hl_37_in_operators', (SELECT value = 100.0 AND verdict = 'ok' FROM h WHERE trace_id = 1 AND "check" = 'cpu_activity');
-- one kernel of 200 µs among 100 of 1 µs: 200 / 300 of the GPU time
SELECT 'hl_38_dominant', (SELECT value = 100.0 * 200 / 300 AND verdict = 'warn' FROM h WHERE trace_id = 7 AND "check" = 'dominant_gpu_event');
SELECT 'hl_39_dominant_few', (SELECT value IS NULL AND verdict = 'ok' FROM h WHERE trace_id = 1 AND "check" = 'dominant_gpu_event');
-- time units and span
SELECT 'hl_40_unit_us', (SELECT value = 'us' AND verdict = 'warn' FROM h WHERE trace_id = 3 AND "check" = 'time_unit');
SELECT 'hl_41_unit_ns', (SELECT value = 'ns' AND verdict = 'ok' AND json_extract(detail, '$.ns_resolution') = 1
  AND json_extract(detail, '$.sub_microsecond_events') = 202 FROM h WHERE trace_id = 7 AND "check" = 'time_unit');
SELECT 'hl_42_unit_ms', (SELECT value = 'ms' AND json_extract(detail, '$.ns_resolution') = 0 FROM h WHERE trace_id = 1 AND "check" = 'time_unit');
SELECT 'hl_43_span', (SELECT abs(value - 7200.000001) < 1e-9 AND verdict = 'warn' FROM h WHERE trace_id = 6 AND "check" = 'time_span');
SELECT 'hl_44_span_ok', (SELECT value = 0.03 AND verdict = 'ok' FROM h WHERE trace_id = 1 AND "check" = 'time_span');
-- HL-1: rank = N keeps that rank's traces and no job check
SELECT 'hl_45_rank', (SELECT count(*) = 20 AND min(trace_id) = 2 AND max(trace_id) = 2 FROM hta_trace_health WHERE job = 'a' AND rank = 1);
SELECT 'hl_46_rank_clock', (SELECT value = 500.0 FROM hta_trace_health WHERE job = 'a' AND rank = 1 AND "check" = 'clock_offset');
-- every detail is a JSON object, every message a sentence
SELECT 'hl_47_detail_json', (SELECT count(*) FROM h WHERE json_type(detail) != 'object' OR message IS NULL OR message = '') = 0;
-- a job alone gives what it gives in the database of four
SELECT 'hl_48_job', (SELECT count(*) FROM hta_trace_health WHERE job = 'pair') = 1 + 2 * 20;
-- an empty database: no rows
.system sqlite3 :memory: -cmd ".load $HTA_EXT" "SELECT count(*) FROM hta_trace_health" 2>&1 | grep -q "hta_trace_health: " && echo 'hl_49_no_schema\|1' || echo 'hl_49_no_schema\|0'
