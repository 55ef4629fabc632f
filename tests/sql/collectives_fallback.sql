-- Collective metadata fallbacks and stream matching (collectives.c COL-1, COL-3, COL-6,
-- COL-7; collectives_out.c CO-3). Two ranks (traces 1, 2); r1 runs every kernel 2 µs
-- after r0 with the same duration, on streams numbered one higher. Times in µs.
--   seq  kernel                       r0 stream  ts+dur  metadata
--   10   ncclDevKernel_AllReduce      20         100+10  none on the kernel; its launch sits in
--                                                        nccl:all_reduce in record_param_comms
--                                                        (pg "0", allreduce Float 256, size 2)
--   11   ncclDevKernel_SendRecv       30         200+5   args without metadata
--   12   ncclDevKernel_SendRecv       40         210+5   malformed args
--   13   ncclDevKernel_SendRecv       30         300+5   no args
--   14   cross_device_reduce_2stage   20         400+4   no args, no record_param_comms
-- Kernels without process group are matched by stream: the streams of such kernels of
-- each rank, by id (r0: 20, 30, 40; r1: 21, 31, 41), are groups 0, 1, 2.
-- Launches 5 µs before their kernel (dur 2); nccl:all_reduce 15 before (dur 12);
-- record_param_comms 20 before (dur 18); on r1 also cpu_ops aten::copy_ 50+10 and,
-- inside record_param_comms, aten::empty 83+1. Steps: ProfilerStep#1 at 0, #2 at 250.
CREATE TEMP TABLE k(seq, name, stream, ts, dur, args);
INSERT INTO trace(trace_id, rank, rank_source, file_name, file_size, content_hash, event_count)
VALUES (1, 0, 'distributedInfo', 'r0.json', 0, 'h1', 0),
       (2, 1, 'distributedInfo', 'r1.json', 0, 'h2', 0);
INSERT INTO temp.k VALUES
  (10, 'ncclDevKernel_AllReduce', 20, 100, 10, NULL),
  (11, 'ncclDevKernel_SendRecv', 30, 200, 5, '{"queued": 0}'),
  (12, 'ncclDevKernel_SendRecv', 40, 210, 5, '{"Collective name": '),
  (13, 'ncclDevKernel_SendRecv', 30, 300, 5, NULL),
  (14, 'cross_device_reduce_2stage', 20, 400, 4, NULL);
INSERT INTO category(category_id, name) VALUES (1, 'kernel'), (2, 'cuda_runtime'), (3, 'cpu_op'),
  (4, 'user_annotation');
INSERT INTO string(value) SELECT DISTINCT name FROM temp.k;
INSERT INTO string(value) VALUES ('cudaLaunchKernel'), ('nccl:all_reduce'), ('record_param_comms'),
  ('aten::copy_'), ('aten::empty'), ('ProfilerStep#1'), ('ProfilerStep#2');
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur,
                  stream, correlation, link_id, args)
SELECT (t.trace_id << 32) | k.seq, t.trace_id, t.rank, k.seq, 'X', 1,
       (SELECT string_id FROM string WHERE value = k.name), 0, k.stream + t.rank,
       (k.ts + 2 * t.rank) * 1000, k.dur * 1000, k.stream + t.rank, k.seq,
       (t.trace_id << 32) | (k.seq + 100), k.args
  FROM temp.k, trace t;
-- launches; the first one's parent is nccl:all_reduce (seq 210), whose parent is
-- record_param_comms (seq 310)
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur,
                  correlation, link_id, parent_id)
SELECT (t.trace_id << 32) | (k.seq + 100), t.trace_id, t.rank, k.seq + 100, 'X', 2,
       (SELECT string_id FROM string WHERE value = 'cudaLaunchKernel'), 1, 1,
       (k.ts + 2 * t.rank - 5) * 1000, 2000, k.seq, (t.trace_id << 32) | k.seq,
       CASE k.seq WHEN 10 THEN (t.trace_id << 32) | 210 END
  FROM temp.k, trace t;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, parent_id, args)
SELECT (t.trace_id << 32) | 210, t.trace_id, t.rank, 210, 'X', 4,
       (SELECT string_id FROM string WHERE value = 'nccl:all_reduce'), 1, 1, (85 + 2 * t.rank) * 1000, 12000,
       (t.trace_id << 32) | 310, NULL
  FROM trace t
UNION ALL
SELECT (t.trace_id << 32) | 310, t.trace_id, t.rank, 310, 'X', 3,
       (SELECT string_id FROM string WHERE value = 'record_param_comms'), 1, 1, (80 + 2 * t.rank) * 1000, 18000,
       NULL, '{"Record function id": 0, "Process Group Name": "0", "Process Group Ranks": "[0, 1]",'
       || ' "Group size": 2, "In msg nelems": 256, "Out msg nelems": 256, "dtype": "Float",'
       || ' "In split size": "[]", "Out split size": "[]", "Collective name": "allreduce"}'
  FROM trace t;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, parent_id)
VALUES ((2 << 32) | 400, 2, 1, 400, 'X', 3, (SELECT string_id FROM string WHERE value = 'aten::copy_'), 1, 1, 50000, 10000, NULL),
       ((2 << 32) | 401, 2, 1, 401, 'X', 3, (SELECT string_id FROM string WHERE value = 'aten::empty'), 1, 1, 83000, 1000, (2 << 32) | 310);
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, iteration)
SELECT (t.trace_id << 32) | (500 + s.n), t.trace_id, t.rank, 500 + s.n, 'X', 4,
       (SELECT string_id FROM string WHERE value = 'ProfilerStep#' || s.n), 1, 1,
       CASE s.n WHEN 1 THEN 0 ELSE 250000 END, CASE s.n WHEN 1 THEN 250000 ELSE 750000 END, s.n
  FROM trace t, (SELECT 1 AS n UNION ALL SELECT 2) s;
INSERT INTO profiler_step(trace_id, step, event_id, ts, dur)
SELECT trace_id, iteration, event_id, ts, dur FROM event WHERE seq > 500;
UPDATE trace SET
  event_count = (SELECT count(*) FROM event e WHERE e.trace_id = trace.trace_id),
  min_ts = (SELECT min(ts) FROM event e WHERE e.trace_id = trace.trace_id),
  max_end = (SELECT max(ts + dur) FROM event e WHERE e.trace_id = trace.trace_id);

-- COL-3: the record_param_comms above the launch gives the first kernel's metadata
SELECT 'fb_01_rpc', group_concat(metadata_source || ':' || pg_name || ':' || collective_name || ':'
       || in_nelems || ':' || in_bytes || ':' || group_size || ':' || pg_ranks, ',')
       = 'record_param_comms:0:allreduce:256:1024:2:[0, 1],record_param_comms:0:allreduce:256:1024:2:[0, 1]'
  FROM hta_collectives WHERE kernel_name = 'ncclDevKernel_AllReduce';
-- no metadata anywhere (also malformed args): NULL source, NULL fields, no error
SELECT 'fb_02_none', count(*) = 6 AND count(metadata_source) = 0 AND count(pg_name) = 0
       AND count(collective_name) = 0 AND count(in_bytes) = 0
  FROM hta_collectives WHERE kernel_name = 'ncclDevKernel_SendRecv';
-- TraceLens names an unnamed cross_device_reduce kernel allreduce
SELECT 'fb_03_cross_device', group_concat(collective_name || ':' || collective_type || ':'
       || coalesce(metadata_source, '-') || ':' || coalesce(pg_name, '-'), ',')
       = 'allreduce:allreduce:-:-,allreduce:allreduce:-:-'
  FROM hta_collectives WHERE kernel_name = 'cross_device_reduce_2stage';
-- COL-6: groups by stream ordinal (r0 20/30/40 ~ r1 21/31/41); index within each
SELECT 'fb_04_index', group_concat(stream || ':' || index_in_group, ',') = '20:0,30:0,40:0,30:1,20:0'
  FROM hta_collectives WHERE rank = 0;
-- instances: the process group's first, then stream groups 0, 1, 2; the unnamed ones are
-- kept (TraceLens's simplified mode, COL-7)
SELECT 'fb_05_instances', group_concat(coalesce(pg_name, '-') || ':' || stream || ':' || index_in_group
       || ':' || ranks_present || ':' || last_rank || ':' || start_skew_us, ',')
       = '0:20:0:2:1:2.0,-:20:0:2:1:2.0,-:30:0:2:1:2.0,-:30:1:2:1:2.0,-:40:0:2:1:2.0'
  FROM hta_collective_instances;
-- the metadata-less ones have no size, so no bandwidth; the rpc one: 1024 B / 10 µs,
-- bus factor 2(2-1)/2 = 1
SELECT 'fb_06_bw', (SELECT count(*) FROM hta_collective_instances WHERE algbw_gbps IS NULL
                    AND msg_bytes IS NULL AND busbw_gibps IS NULL) = 4
       AND (SELECT abs(algbw_gbps - 0.1024) < 1e-12 AND abs(busbw_gbps - 0.1024) < 1e-12
            FROM hta_collective_instances WHERE pg_name = '0');
-- CO-3: r1 (last) launches inside record_param_comms (82): aten::empty (83-84) is inside
-- it, so the op before is aten::copy_ (ends 60); no GPU row of r1 ends before 102
SELECT 'fb_07_prev_op', last_rank_prev_op = 'aten::copy_' AND last_rank_prev_kernel IS NULL
       AND last_rank_gap_us IS NULL
  FROM hta_collective_instances WHERE pg_name = '0';
-- COL-1: include_last_profiler_step = 0 cuts at the last step (250): kernels launched
-- before it stay (seq 10, 11, 12 on both ranks)
SELECT 'fb_08_cut', (SELECT count(*) FROM hta_collectives) = 10
       AND (SELECT count(*) FROM hta_collectives(0)) = 6
       AND (SELECT count(*) FROM hta_collective_instances(0, 0)) = 3
       AND (SELECT include_last_profiler_step FROM hta_collectives LIMIT 1) = 1;
-- a kernel of category 'Kernel' (old traces) counts; one without correlation does not
UPDATE category SET name = 'Kernel' WHERE category_id = 1;
UPDATE event SET correlation = NULL WHERE event_id = (1 << 32) | 13;
SELECT 'fb_09_category', count(*) = 9 FROM hta_collectives;
-- ranks: r0 lost its second stream-30 kernel, so instance (stream 30, 1) holds r1 only:
-- r1 is last (and first there) in its 5, r0 first in its 4
SELECT 'fb_10_ranks', group_concat(rank || ':' || times_arrived_last || ':' || times_arrived_first
       || ':' || num_collectives, ',') = '0:0:4:4,1:5:1:5'
  FROM hta_collective_ranks;
-- extremes: a count whose bytes leave int64 has no size (COL-4), a group size of 0 no
-- bus factor (COL-9); times at the int64 limits saturate (no error)
UPDATE event SET args = json_object('Collective name', 'allreduce', 'In msg nelems', 9223372036854775807,
  'Out msg nelems', -4, 'dtype', 'Float', 'Group size', 0, 'Process Group Name', 7)
 WHERE event_id IN ((1 << 32) | 11, (2 << 32) | 11);
UPDATE event SET ts = 9223372036854775000, dur = 9223372036854775000 WHERE event_id = (2 << 32) | 14;
SELECT 'fb_11_extreme_bytes', in_bytes IS NULL AND out_bytes IS NULL AND out_nelems = -4 AND pg_name = '7'
  FROM hta_collectives WHERE event_id = (1 << 32) | 11;
SELECT 'fb_12_extreme_bw', msg_bytes IS NULL AND busbw_gbps IS NULL AND group_size = 0
  FROM hta_collective_instances WHERE pg_name = '7';
SELECT 'fb_13_extreme_times', (SELECT count(*) FROM hta_collective_instances(1)) = 5
       AND (SELECT count(*) FROM hta_collective_summary(1)) > 0
       AND (SELECT end_skew_us FROM hta_collective_instances WHERE collective_name = 'allreduce'
            AND pg_name IS NULL) = (9223372036854775807 - 404000) / 1000.0;
