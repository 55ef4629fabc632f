-- hta_collectives, hta_collective_instances, hta_collective_summary, hta_collective_ranks
-- (collectives.c COL-n, collectives_out.c CO-n). Three ranks (traces 1..3 = ranks 0..2);
-- every collective kernel carries its metadata (source 'kernel'); times in µs below,
-- stored in ns. Process group "0" = ranks [0, 1, 2], group size 3; group "1" = [0, 2].
--   idx  type            dtype  in/out nelems   r0 ts+dur   r1 ts+dur   r2 ts+dur
--   0:0  allreduce       Float  1000/1000       100+50      110+42      130+20
--   0:1  allgather       Float  1000/3000       300+10      300+10      290+10
--   0:2  reducescatter   Float  3000/1000       400+8       405+3       402+6
--   0:3  all_to_all      Float  600/600         500+4       500+4       500+4
--   0:4  broadcast       Long   10/10           600+5       601+4       602+3
--   0:5  allreduce       Float  1000/1000       800+30      810+20      805+25
--   1:0  allreduce       BFloat16 500/500       700+30      -           720+10
-- Not collectives: gemm (r2, stream 7, 60+60) and an nccl-named row of category
-- gpu_user_annotation (r0). Launches 5 µs before each kernel on pid 1 / tid 1; r2's
-- host thread also runs cpu_ops aten::mm 50+20 and aten::add 80+10. The job starts
-- at 50 µs (aten::mm), so ts_us = ts - 50.
CREATE TEMP TABLE k(t, seq, name, ts, dur, coll, dt, inn, outn, pg, gs);
INSERT INTO trace(trace_id, rank, rank_source, file_name, file_size, content_hash, event_count)
VALUES (1, 0, 'distributedInfo', 'r0.json', 0, 'h1', 0),
       (2, 1, 'distributedInfo', 'r1.json', 0, 'h2', 0),
       (3, 2, 'distributedInfo', 'r2.json', 0, 'h3', 0);
INSERT INTO temp.k VALUES
  (1, 10, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL', 100, 50, 'allreduce', 'Float', 1000, 1000, '0', 3),
  (2, 10, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL', 110, 42, 'allreduce', 'Float', 1000, 1000, '0', 3),
  (3, 10, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL', 130, 20, 'allreduce', 'Float', 1000, 1000, '0', 3),
  (1, 11, 'ncclDevKernel_AllGather_RING_LL', 300, 10, 'allgather', 'Float', 1000, 3000, '0', 3),
  (2, 11, 'ncclDevKernel_AllGather_RING_LL', 300, 10, 'allgather', 'Float', 1000, 3000, '0', 3),
  (3, 11, 'ncclDevKernel_AllGather_RING_LL', 290, 10, 'allgather', 'Float', 1000, 3000, '0', 3),
  (1, 12, 'ncclDevKernel_ReduceScatter_Sum_f32_RING_LL', 400, 8, 'reducescatter', 'Float', 3000, 1000, '0', 3),
  (2, 12, 'ncclDevKernel_ReduceScatter_Sum_f32_RING_LL', 405, 3, 'reducescatter', 'Float', 3000, 1000, '0', 3),
  (3, 12, 'ncclDevKernel_ReduceScatter_Sum_f32_RING_LL', 402, 6, 'reducescatter', 'Float', 3000, 1000, '0', 3),
  (1, 13, 'ncclDevKernel_SendRecv', 500, 4, 'all_to_all', 'Float', 600, 600, '0', 3),
  (2, 13, 'ncclDevKernel_SendRecv', 500, 4, 'all_to_all', 'Float', 600, 600, '0', 3),
  (3, 13, 'ncclDevKernel_SendRecv', 500, 4, 'all_to_all', 'Float', 600, 600, '0', 3),
  (1, 14, 'ncclDevKernel_Broadcast_RING_LL', 600, 5, 'broadcast', 'Long', 10, 10, '0', 3),
  (2, 14, 'ncclDevKernel_Broadcast_RING_LL', 601, 4, 'broadcast', 'Long', 10, 10, '0', 3),
  (3, 14, 'ncclDevKernel_Broadcast_RING_LL', 602, 3, 'broadcast', 'Long', 10, 10, '0', 3),
  (1, 15, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL', 800, 30, 'allreduce', 'Float', 1000, 1000, '0', 3),
  (2, 15, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL', 810, 20, 'allreduce', 'Float', 1000, 1000, '0', 3),
  (3, 15, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL', 805, 25, 'allreduce', 'Float', 1000, 1000, '0', 3),
  (1, 16, 'ncclKernel_AllReduce_RING_LL_Sum_bf16', 700, 30, 'allreduce', 'BFloat16', 500, 500, '1', 2),
  (3, 16, 'ncclKernel_AllReduce_RING_LL_Sum_bf16', 720, 10, 'allreduce', 'BFloat16', 500, 500, '1', 2);
INSERT INTO category(category_id, name) VALUES (1, 'kernel'), (2, 'cuda_runtime'), (3, 'cpu_op'),
  (4, 'gpu_user_annotation');
INSERT INTO string(value) SELECT DISTINCT name FROM temp.k;
INSERT INTO string(value) VALUES ('cudaLaunchKernel'), ('gemm'), ('ncclKernel_Fake'), ('aten::mm'), ('aten::add');
-- kernels (seq), their launches (seq + 100)
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur,
                  stream, correlation, link_id, args)
SELECT (k.t << 32) | k.seq, k.t, k.t - 1, k.seq, 'X', 1, (SELECT string_id FROM string WHERE value = k.name),
       0, 20, k.ts * 1000, k.dur * 1000, 20, k.seq, (k.t << 32) | (k.seq + 100),
       json_object('Collective name', k.coll, 'In msg nelems', k.inn, 'Out msg nelems', k.outn,
                   'Group size', k.gs, 'dtype', k.dt, 'In split size', '[]', 'Out split size', '[]',
                   'Process Group Name', k.pg,
                   'Process Group Ranks', CASE k.pg WHEN '0' THEN '[0, 1, 2]' ELSE '[0, 2]' END)
  FROM temp.k;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur,
                  correlation, link_id)
SELECT (k.t << 32) | (k.seq + 100), k.t, k.t - 1, k.seq + 100, 'X', 2,
       (SELECT string_id FROM string WHERE value = 'cudaLaunchKernel'), 1, 1, (k.ts - 5) * 1000, 2000,
       k.seq, (k.t << 32) | k.seq
  FROM temp.k;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, stream, correlation)
VALUES ((3 << 32) | 20, 3, 2, 20, 'X', 1, (SELECT string_id FROM string WHERE value = 'gemm'), 0, 7, 60000, 60000, 7, 20),
       ((1 << 32) | 21, 1, 0, 21, 'X', 4, (SELECT string_id FROM string WHERE value = 'ncclKernel_Fake'), 0, 20, 200000, 5000, 20, 21);
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur)
VALUES ((3 << 32) | 30, 3, 2, 30, 'X', 3, (SELECT string_id FROM string WHERE value = 'aten::mm'), 1, 1, 50000, 20000),
       ((3 << 32) | 31, 3, 2, 31, 'X', 3, (SELECT string_id FROM string WHERE value = 'aten::add'), 1, 1, 80000, 10000);
UPDATE trace SET
  event_count = (SELECT count(*) FROM event e WHERE e.trace_id = trace.trace_id),
  min_ts = (SELECT min(ts) FROM event e WHERE e.trace_id = trace.trace_id),
  max_end = (SELECT max(ts + dur) FROM event e WHERE e.trace_id = trace.trace_id);

SELECT 'col_01_columns', group_concat(name, ',') = 'rank,pg_name,pg_ranks,collective_name,collective_type,group_size,dtype,in_nelems,out_nelems,in_bytes,out_bytes,index_in_group,stream,ts_us,dur_us,wait_us,metadata_source,kernel_name,event_id,trace_id,job'
  FROM pragma_table_info('hta_collectives');
-- CO-1, COL-1: 20 kernels (7 + 6 + 7), not the gemm nor the gpu_user_annotation row
SELECT 'col_02_count', count(*) = 20 FROM hta_collectives;
SELECT 'col_03_per_rank', group_concat(n, ',') = '7,6,7'
  FROM (SELECT rank, count(*) n FROM hta_collectives GROUP BY rank ORDER BY rank);
-- COL-6: index by time within the group; r1 has no group "1" kernel
SELECT 'col_04_index', group_concat(rank || ':' || pg_name || ':' || index_in_group, ',')
       = '0:0:0,0:0:1,0:0:2,0:0:3,0:0:4,0:1:0,0:0:5'
  FROM hta_collectives WHERE rank = 0;
-- r0's allreduce 0:0: ts 100 - 50 = 50 µs, wait = 130 - 100 = 30; COL-4 bytes
SELECT 'col_05_row', ts_us = 50.0 AND dur_us = 50.0 AND wait_us = 30.0 AND in_bytes = 4000
       AND out_bytes = 4000 AND metadata_source = 'kernel' AND collective_type = 'allreduce'
       AND pg_ranks = '[0, 1, 2]' AND group_size = 3 AND dtype = 'Float' AND stream = 20
       AND event_id = (1 << 32) | 10 AND trace_id = 1
  FROM hta_collectives WHERE rank = 0 AND pg_name = '0' AND index_in_group = 0;
-- the allgather's out_bytes = 3000 * 4; the broadcast's Long = 8 bytes; its wait 602 - 600
SELECT 'col_06_bytes', (SELECT out_bytes FROM hta_collectives WHERE rank = 1 AND index_in_group = 1) = 12000
       AND (SELECT in_bytes || ':' || wait_us FROM hta_collectives WHERE rank = 0 AND index_in_group = 4) = '80:2.0'
       AND (SELECT in_bytes FROM hta_collectives WHERE pg_name = '1' AND rank = 2) = 1000;

-- CO-2, COL-7: the implicit-sync instances (no broadcast), by pg_name then index
SELECT 'col_07_instances', group_concat(pg_name || ':' || index_in_group, ',') = '0:0,0:1,0:2,0:3,0:5,1:0'
  FROM hta_collective_instances;
SELECT 'col_08_all_types', group_concat(pg_name || ':' || index_in_group, ',') = '0:0,0:1,0:2,0:3,0:4,0:5,1:0'
  FROM hta_collective_instances(1);
-- 0:0: latency = min dur 20; start skew 130 - 100; end skew 152 - 150; waits 30, 20, 0
-- (avg 50/3); first r0, last r2; 4000 B / 20 µs = 0.2 GB/s, / 2^30: 0.2e9 / 2^30 GiB/s;
-- bus factor 2(3-1)/3
SELECT 'col_09_allreduce', comm_latency_us = 20.0 AND start_skew_us = 30.0 AND end_skew_us = 2.0
       AND abs(avg_wait_us - 50.0 / 3) < 1e-9 AND first_rank = 0 AND last_rank = 2
       AND msg_bytes = 4000 AND ranks_present = 3 AND ts_us = 50.0
       AND abs(algbw_gbps - 0.2) < 1e-12 AND abs(busbw_gbps - 0.2 * 4 / 3) < 1e-12
       AND abs(algbw_gibps - 0.2e9 / 1073741824.0) < 1e-12
       AND abs(busbw_gibps - 0.2e9 / 1073741824.0 * 4 / 3) < 1e-12
       AND metadata_mismatch IS NULL
  FROM hta_collective_instances WHERE pg_name = '0' AND index_in_group = 0;
-- CO-3: r2 arrived last at 130; its last GPU row to end before is gemm (ends 120, gap
-- 10); the last cpu_op of its launching thread to end before the launch (125) is aten::add
SELECT 'col_10_prev', last_rank_prev_kernel = 'gemm' AND last_rank_gap_us = 10.0
       AND last_rank_prev_op = 'aten::add'
  FROM hta_collective_instances WHERE pg_name = '0' AND index_in_group = 0;
-- COL-9: allgather: msg_bytes = the gathered output 12000; 12000 B / 10 µs = 1.2 GB/s,
-- bus factor (3-1)/3. Tie: r0 and r1 both start last at 300 -> last_rank 0 (lowest);
-- r2 first at 290; end skew 310 - 300
SELECT 'col_11_allgather_tie', msg_bytes = 12000 AND abs(algbw_gbps - 1.2) < 1e-12
       AND abs(busbw_gbps - 0.8) < 1e-12 AND last_rank = 0 AND first_rank = 2
       AND start_skew_us = 10.0 AND end_skew_us = 10.0 AND abs(avg_wait_us - 10.0 / 3) < 1e-9
  FROM hta_collective_instances WHERE pg_name = '0' AND index_in_group = 1;
-- reduce-scatter: msg_bytes = the input 12000; 12000 B / 3 µs = 4 GB/s; waits 5, 0, 3
SELECT 'col_12_reducescatter', msg_bytes = 12000 AND comm_latency_us = 3.0
       AND abs(algbw_gbps - 4.0) < 1e-12 AND abs(busbw_gbps - 8.0 / 3) < 1e-12
       AND first_rank = 0 AND last_rank = 1 AND end_skew_us = 0.0 AND abs(avg_wait_us - 8.0 / 3) < 1e-9
  FROM hta_collective_instances WHERE pg_name = '0' AND index_in_group = 2;
-- all_to_all: everyone at 500: first and last both rank 0 (ties: lowest); 2400 B / 4 µs
SELECT 'col_13_alltoall_tie', collective_type = 'alltoall' AND first_rank = 0 AND last_rank = 0
       AND start_skew_us = 0.0 AND avg_wait_us = 0.0 AND msg_bytes = 2400
       AND abs(algbw_gbps - 0.6) < 1e-12 AND abs(busbw_gbps - 0.4) < 1e-12
  FROM hta_collective_instances WHERE pg_name = '0' AND index_in_group = 3;
-- broadcast (all_types = 1): msg_bytes = input 80; bus factor 1; 80 B / 3 µs
SELECT 'col_14_broadcast', msg_bytes = 80 AND comm_latency_us = 3.0 AND start_skew_us = 2.0
       AND abs(algbw_gbps - 80.0 / 3000) < 1e-12 AND abs(busbw_gbps - 80.0 / 3000) < 1e-12
  FROM hta_collective_instances(1) WHERE index_in_group = 4;
-- group "1": two ranks; bus factor n = 2 -> 1; r2 last at 720, its previous GPU row the
-- broadcast (ends 605, gap 115); previous op still aten::add
SELECT 'col_15_second_group', ranks_present = 2 AND group_size = 2 AND pg_ranks = '[0, 2]'
       AND comm_latency_us = 10.0 AND start_skew_us = 20.0 AND end_skew_us = 0.0
       AND avg_wait_us = 10.0 AND first_rank = 0 AND last_rank = 2 AND msg_bytes = 1000
       AND abs(algbw_gbps - 0.1) < 1e-12 AND abs(busbw_gbps - 0.1) < 1e-12
       AND last_rank_prev_kernel = 'ncclDevKernel_Broadcast_RING_LL' AND last_rank_gap_us = 115.0
       AND last_rank_prev_op = 'aten::add'
  FROM hta_collective_instances WHERE pg_name = '1';
-- WHERE rank = 1: the instances where r1 has a kernel (not group "1")
SELECT 'col_16_rank_filter', group_concat(pg_name || ':' || index_in_group, ',') = '0:0,0:1,0:2,0:3,0:5'
  FROM hta_collective_instances WHERE rank = 1;

-- CO-4: summary groups ordered by total latency (ties by key): allreduce Float (20 + 20),
-- allgather (10), allreduce BFloat16 (10), all_to_all (4), reducescatter (3)
SELECT 'col_17_summary_order', group_concat(collective_name || '/' || dtype || '/' || count, ',')
       = 'allreduce/Float/2,allgather/Float/1,allreduce/BFloat16/1,all_to_all/Float/1,reducescatter/Float/1'
  FROM hta_collective_summary;
-- allreduce Float: latencies 20, 20; start skews 30, 10 (mean 20, std sqrt(200) = 14.142...);
-- end skews 2, 0 (mean 1, std sqrt(2)); algbw both 0.2e9 / 2^30
SELECT 'col_18_summary_stats', total_latency_us = 40.0 AND latency_us_mean = 20.0 AND latency_us_std = 0.0
       AND latency_us_median = 20.0 AND start_skew_us_mean = 20.0
       AND abs(start_skew_us_std - sqrt(200.0)) < 1e-9 AND start_skew_us_median = 20.0
       AND start_skew_us_min = 10.0 AND start_skew_us_max = 30.0 AND end_skew_us_mean = 1.0
       AND abs(end_skew_us_std - sqrt(2.0)) < 1e-12
       AND abs(algbw_gibps_mean - 0.2e9 / 1073741824.0) < 1e-12 AND algbw_gibps_std < 1e-12
       AND abs(busbw_gibps_max - 0.2e9 / 1073741824.0 * 4 / 3) < 1e-12
       AND pg_name = '0' AND group_size = 3 AND msg_bytes = 4000 AND in_nelems = 1000
  FROM hta_collective_summary WHERE collective_name = 'allreduce' AND dtype = 'Float';
-- one instance: std NULL (pandas, ddof 1)
SELECT 'col_19_summary_one', latency_us_std IS NULL AND latency_us_mean = 3.0
  FROM hta_collective_summary WHERE collective_name = 'reducescatter';

-- CO-5 over the 6 implicit-sync instances (0:0,0:1,0:2,0:3,0:5,1:0):
--   r0 waits 30,0,5,0,10,20 = 65 (6); last at 0:1 and 0:3 (ties), first at 0:0,0:2,0:3,0:5,1:0
--   r1 waits 20,0,0,0,0 = 20 (5); last at 0:2, 0:5; first never
--   r2 waits 0,10,3,0,5,0 = 18 (6); last at 0:0, 1:0; first at 0:1
-- total_collective_dur_us: every kernel, broadcast included: r0 50+10+8+4+5+30+30,
-- r1 42+10+3+4+4+20, r2 20+10+6+4+3+25+10
SELECT 'col_20_ranks', group_concat(rank || ':' || total_wait_us || ':' || num_collectives || ':'
       || times_arrived_last || ':' || times_arrived_first || ':' || total_collective_dur_us, ',')
       = '0:65.0:6:2:5:137.0,1:20.0:5:2:0:83.0,2:18.0:6:2:1:78.0'
  FROM hta_collective_ranks;
SELECT 'col_21_ranks_mean', abs(mean_wait_us - 65.0 / 6) < 1e-9 AND abs(pct_arrived_last - 100.0 / 3) < 1e-9
       AND trace_id = 1
  FROM hta_collective_ranks WHERE rank = 0;
SELECT 'col_22_ranks_filter', count(*) = 1 AND max(rank) = 2 FROM hta_collective_ranks WHERE rank = 2;

-- COL-10: r1 misses its allgather: its later kernels shift by one (0:1 is its
-- reducescatter, ...); the instance reports the fields that differ, nothing raises
DELETE FROM event WHERE event_id = (2 << 32) | 11;
SELECT 'col_23_mismatch', metadata_mismatch = 'collective_name,in_nelems,out_nelems' AND ranks_present = 3
  FROM hta_collective_instances WHERE pg_name = '0' AND index_in_group = 1;
-- 0:1..0:4 disagree (r1 holds the next kernel); 0:4 (r0's broadcast) is listed only with all_types
SELECT 'col_24_mismatch_count', count(*) = 3 AND (SELECT count(*) FROM hta_collective_instances(1)
       WHERE metadata_mismatch IS NOT NULL) = 4
  FROM hta_collective_instances WHERE metadata_mismatch IS NOT NULL;
SELECT 'col_25_shift_tail', ranks_present = 2
  FROM hta_collective_instances WHERE pg_name = '0' AND index_in_group = 5;
