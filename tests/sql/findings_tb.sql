-- hta_findings' TensorBoard-plugin rules (findings_tb.c FT-1..3), one trace per case (job 'tb').
--   rank 0: DataParallel.forward, kernels on pids 0 and 1          -> dataparallel, devices [0,1]
--   rank 1: DataParallel.forward, kernels on pid 0 only            -> none
--   rank 2: DistributedDataParallel.forward x2, no nccl:*, cc 7.0  -> ddp_without_nccl, count 2
--   rank 3: the same with an nccl:all_reduce annotation            -> none
--   rank 4: the same without nccl, cc 3.0 (< 3.5)                  -> none
--   rank 5: the same, cc 3.5 (the bound)                           -> ddp_without_nccl
--   rank 6: GPU0 of 80 GiB, peak Total Allocated 78 GiB: 97.5 %    -> memory_near_capacity
--   rank 7: GPU0 of 100 B, peak 90 B (90 %: not over); CPU peak 99 B: the plugin compares it
--           with the last GPU's 100 B and says "at the limit"; CPU memory has no capacity here
--   rank 8: GPU0 of 100 B peak 95 B, GPU1 of 100 B peak 99 B        -> one finding, GPU1, 99 %
-- None of these is a time: time_us and pct_of_step NULL, so they come last, by rule then rank.
INSERT INTO job(job_id, name) VALUES (1, 'tb');
INSERT INTO trace(trace_id, job_id, rank, rank_source, file_name, file_size, content_hash, event_count, backend)
SELECT r + 1, 1, r, 'distributedInfo', 'r' || r || '.json', 0, 'h' || r, 0, CASE WHEN r = 2 THEN 'gloo' END
FROM (WITH RECURSIVE n(r) AS (SELECT 0 UNION ALL SELECT r + 1 FROM n WHERE r < 8) SELECT r FROM n);
INSERT INTO device(trace_id, device_id, total_global_mem, compute_major, compute_minor) VALUES
  (3, 0, 85899345920, 7, 0), (4, 0, 85899345920, 8, 0), (5, 0, 85899345920, 3, 0), (6, 0, 85899345920, 3, 5),
  (7, 0, 85899345920, 9, 0), (8, 0, 100, 9, 0), (9, 0, 100, 9, 0), (9, 1, 100, 9, 0);
CREATE TEMP TABLE ev(t, seq, ph, cat, name, pid, ts, dur, stream, args);
INSERT INTO temp.ev VALUES
  (1, 1, 'X', 'user_annotation', 'DataParallel.forward', 10, 0, 100, NULL, NULL),
  (1, 2, 'X', 'kernel', 'k', 0, 10, 5, 7, NULL),
  (1, 3, 'X', 'kernel', 'k', 1, 20, 5, 7, NULL),
  (2, 1, 'X', 'user_annotation', 'DataParallel.forward', 10, 0, 100, NULL, NULL),
  (2, 2, 'X', 'kernel', 'k', 0, 10, 5, 7, NULL),
  (3, 1, 'X', 'user_annotation', 'DistributedDataParallel.forward', 10, 0, 100, NULL, NULL),
  (3, 2, 'X', 'user_annotation', 'DistributedDataParallel.forward', 10, 200, 100, NULL, NULL),
  (4, 1, 'X', 'user_annotation', 'DistributedDataParallel.forward', 10, 0, 100, NULL, NULL),
  (4, 2, 'X', 'user_annotation', 'nccl:all_reduce', 10, 150, 10, NULL, NULL),
  (5, 1, 'X', 'user_annotation', 'DistributedDataParallel.forward', 10, 0, 100, NULL, NULL),
  (6, 1, 'X', 'user_annotation', 'DistributedDataParallel.forward', 10, 0, 100, NULL, NULL),
  (7, 1, 'X', 'cpu_op', 'aten::empty', 10, 0, 100, NULL, NULL),
  (7, 2, 'i', 'cpu_instant_event', '[memory]', 10, 10, NULL, NULL,
   '{"Device Type":1,"Device Id":0,"Addr":1,"Bytes":53687091200,"Total Allocated":53687091200,"Total Reserved":53687091200}'),
  (7, 3, 'i', 'cpu_instant_event', '[memory]', 10, 20, NULL, NULL,
   '{"Device Type":1,"Device Id":0,"Addr":2,"Bytes":30064771072,"Total Allocated":83751862272,"Total Reserved":83751862272}'),
  (7, 4, 'i', 'cpu_instant_event', '[memory]', 10, 30, NULL, NULL,
   '{"Device Type":1,"Device Id":0,"Addr":2,"Bytes":-30064771072,"Total Allocated":53687091200,"Total Reserved":83751862272}'),
  (8, 1, 'i', 'cpu_instant_event', '[memory]', 10, 10, NULL, NULL,
   '{"Device Type":1,"Device Id":0,"Addr":1,"Bytes":90,"Total Allocated":90,"Total Reserved":100}'),
  (8, 2, 'i', 'cpu_instant_event', '[memory]', 10, 20, NULL, NULL,
   '{"Device Type":0,"Device Id":-1,"Addr":5,"Bytes":99,"Total Allocated":99,"Total Reserved":0}'),
  (9, 1, 'i', 'cpu_instant_event', '[memory]', 10, 10, NULL, NULL,
   '{"Device Type":1,"Device Id":0,"Addr":1,"Bytes":95,"Total Allocated":95,"Total Reserved":100}'),
  (9, 2, 'i', 'cpu_instant_event', '[memory]', 10, 20, NULL, NULL,
   '{"Device Type":1,"Device Id":1,"Addr":2,"Bytes":99,"Total Allocated":99,"Total Reserved":100}');
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, stream, args)
SELECT (t << 32) | seq, t, t - 1, seq, ph, (SELECT category_id FROM category WHERE name = cat),
       (SELECT string_id FROM string WHERE value = name), pid, 10, ts * 1000, dur * 1000, stream, args
FROM temp.ev;
UPDATE trace SET event_count = (SELECT count(*) FROM event e WHERE e.trace_id = trace.trace_id),
  min_ts = (SELECT min(ts) FROM event e WHERE e.trace_id = trace.trace_id),
  max_end = (SELECT max(ts + coalesce(dur, 0)) FROM event e WHERE e.trace_id = trace.trace_id);

SELECT 'ft_rows', (SELECT group_concat(rule || ':' || rank, ' ') FROM hta_findings WHERE source = 'tb_plugin') =
  'dataparallel:0 ddp_without_nccl:2 ddp_without_nccl:5 memory_near_capacity:6 memory_near_capacity:8';
SELECT 'ft_no_time', (SELECT count(*) FROM hta_findings WHERE time_us IS NULL AND pct_of_step IS NULL AND source = 'tb_plugin'
  AND kind = 'configuration' AND parent IS NULL) = 5;
-- FD-6: without a time, min_pct does not apply.
SELECT 'ft_min_pct', (SELECT count(*) FROM hta_findings(100) WHERE source = 'tb_plugin') = 5;
-- FT-1
SELECT 'ft_dp', (SELECT json_extract(evidence, '$.forward_calls') = 1 AND json_extract(evidence, '$.devices') = '[0,1]' AND title = 'DataParallel drives 2 GPUs from one process'
  FROM hta_findings WHERE rule = 'dataparallel');
-- FT-2
SELECT 'ft_ddp', (SELECT json_extract(evidence, '$.ddp_forward_calls') = 2 AND json_extract(evidence, '$.backend') = 'gloo' AND json_extract(evidence, '$.compute_capability') = '7.0'
  AND title = 'DistributedDataParallel runs without NCCL collectives (backend gloo)' FROM hta_findings WHERE rule = 'ddp_without_nccl' AND rank = 2);
SELECT 'ft_ddp_bound', (SELECT json_extract(evidence, '$.compute_capability') = '3.5' AND json_extract(evidence, '$.backend') IS NULL
  AND title = 'DistributedDataParallel runs without NCCL collectives' FROM hta_findings WHERE rule = 'ddp_without_nccl' AND rank = 5);
-- FT-3: 83751862272 / 85899345920 = 0.975; the peak's time, operator and step come from hta_memory_summary.
SELECT 'ft_mem', (SELECT json_extract(evidence, '$.device') = 'GPU0' AND json_extract(evidence, '$.peak_pct') = 97.5
  AND json_extract(evidence, '$.peak_bytes') = 83751862272 AND json_extract(evidence, '$.capacity_bytes') = 85899345920
  AND json_extract(evidence, '$.peak_operator') = 'aten::empty' AND json_extract(evidence, '$.step') IS NULL
  AND title = 'Peak memory on GPU0 is 97.5% of its 80.0 GB' FROM hta_findings WHERE rule = 'memory_near_capacity' AND rank = 6);
SELECT 'ft_mem_two_gpus', (SELECT json_extract(evidence, '$.device') = 'GPU1' AND json_extract(evidence, '$.peak_pct') = 99
  FROM hta_findings WHERE rule = 'memory_near_capacity' AND rank = 8);
SELECT 'ft_mem_cpu_not_compared', (SELECT count(*) FROM hta_findings WHERE rank = 7 AND source = 'tb_plugin') = 0;
