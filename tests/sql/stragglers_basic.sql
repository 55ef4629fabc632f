-- hta_potential_stragglers (annotations.c R4; spec 3, HTA analyzers/straggler.py).
-- 3 ranks, steps 1..3 each; the cut leaves S = {1, 2}. Every rank's steps are
-- [0, 1 ms), [1, 2 ms), [2, 3 ms), so mean_iter = (2 ms - 0) / 2 = 1 ms and the
-- 1% threshold is 10 µs. Kernels (stream 7, launched 50 µs earlier):
--   ncclDevKernel_AllReduce  durs 20, 20, 20.6 µs: the largest across-rank std
--   ncclKernel_Broadcast     30 µs everywhere: std 0
--   ncclKernel_Tiny          1, 9, 1 µs: would have the largest std, but < 1%
--   gemm                     not a communication kernel
-- AllReduce starts (µs): iteration 1: r0 480 (its last row; an earlier row of the
-- same kernel starts at 700), r1 520, r2 600; iteration 2: r0 1560, r1 1500, r2 1650.
CREATE TEMP TABLE k(t, seq, name, ts, dur, iter);
INSERT INTO trace(trace_id, rank, rank_source, file_name, file_size, content_hash, event_count)
VALUES (1, 0, 'distributedInfo', 'r0.json', 0, 'h1', 0),
       (2, 1, 'distributedInfo', 'r1.json', 0, 'h2', 0),
       (3, 2, 'distributedInfo', 'r2.json', 0, 'h3', 0);
INSERT INTO temp.k VALUES
  (1, 10, 'ncclDevKernel_AllReduce', 700000, 20000, 1),
  (1, 11, 'ncclDevKernel_AllReduce', 480000, 20000, 1),
  (2, 11, 'ncclDevKernel_AllReduce', 520000, 20000, 1),
  (3, 11, 'ncclDevKernel_AllReduce', 600000, 20600, 1),
  (1, 12, 'ncclDevKernel_AllReduce', 1560000, 20000, 2),
  (2, 12, 'ncclDevKernel_AllReduce', 1500000, 20000, 2),
  (3, 12, 'ncclDevKernel_AllReduce', 1650000, 20600, 2),
  (1, 13, 'ncclDevKernel_AllReduce', 2900000, 90000, 3),   -- the cut step: ignored
  (2, 13, 'ncclDevKernel_AllReduce', 2100000, 10000, 3),
  (3, 13, 'ncclDevKernel_AllReduce', 2100000, 10000, 3),
  (1, 14, 'ncclKernel_Broadcast', 300000, 30000, 1),
  (2, 14, 'ncclKernel_Broadcast', 300000, 30000, 1),
  (3, 14, 'ncclKernel_Broadcast', 300000, 30000, 1),
  (1, 15, 'ncclKernel_Broadcast', 1300000, 30000, 2),
  (2, 15, 'ncclKernel_Broadcast', 1300000, 30000, 2),
  (3, 15, 'ncclKernel_Broadcast', 1300000, 30000, 2),
  (1, 16, 'ncclKernel_Tiny', 800000, 1000, 1),
  (2, 16, 'ncclKernel_Tiny', 400000, 9000, 1),
  (3, 16, 'ncclKernel_Tiny', 400000, 1000, 1),
  (1, 17, 'ncclKernel_Tiny', 1800000, 1000, 2),
  (2, 17, 'ncclKernel_Tiny', 1400000, 9000, 2),
  (3, 17, 'ncclKernel_Tiny', 1400000, 1000, 2),
  (1, 18, 'gemm', 900000, 80000, 1),
  (2, 18, 'gemm', 200000, 10000, 1),
  (3, 18, 'gemm', 200000, 50000, 1);
INSERT INTO category(category_id, name) VALUES (1, 'user_annotation'), (2, 'cuda_runtime'), (3, 'kernel');
INSERT INTO string(value) SELECT DISTINCT name FROM temp.k;
INSERT INTO string(value) VALUES ('cudaLaunchKernel'), ('ProfilerStep#1'), ('ProfilerStep#2'), ('ProfilerStep#3');
-- steps (seq 1..3), kernels (their seq), launches (seq + 100)
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, iteration)
SELECT (t.trace_id << 32) | s.n, t.trace_id, t.rank, s.n, 'X', 1,
       (SELECT string_id FROM string WHERE value = 'ProfilerStep#' || s.n), 1, 1,
       (s.n - 1) * 1000000, 1000000, s.n
  FROM trace t, (SELECT 1 AS n UNION ALL SELECT 2 UNION ALL SELECT 3) s;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur,
                  stream, correlation, link_id, iteration)
SELECT (k.t << 32) | k.seq, k.t, k.t - 1, k.seq, 'X', 3, (SELECT string_id FROM string WHERE value = k.name),
       0, 7, k.ts, k.dur, 7, k.seq, (k.t << 32) | (k.seq + 100), k.iter
  FROM temp.k;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur,
                  correlation, link_id, iteration)
SELECT (k.t << 32) | (k.seq + 100), k.t, k.t - 1, k.seq + 100, 'X', 2,
       (SELECT string_id FROM string WHERE value = 'cudaLaunchKernel'), 1, 1, k.ts - 50000, 5000,
       k.seq, (k.t << 32) | k.seq, (k.ts - 50000) / 1000000 + 1
  FROM temp.k;
INSERT INTO profiler_step(trace_id, step, event_id, ts, dur)
SELECT trace_id, iteration, event_id, ts, dur FROM event WHERE category_id = 1;
UPDATE trace SET
  event_count = (SELECT count(*) FROM event e WHERE e.trace_id = trace.trace_id),
  min_ts = (SELECT min(ts) FROM event e WHERE e.trace_id = trace.trace_id),
  max_end = (SELECT max(ts + dur) FROM event e WHERE e.trace_id = trace.trace_id);

SELECT 'stg_01_columns', group_concat(name, ',') = 'rank,straggler_count,job'
  FROM pragma_table_info('hta_potential_stragglers');
-- num_candidates 1: the latest AllReduce of each iteration is rank 2's
SELECT 'stg_02_one', group_concat(rank || ':' || straggler_count, ',') = '2:2'
  FROM hta_potential_stragglers(1);
-- the default 2: iteration 1 -> r2, r1; iteration 2 -> r2, r0; ties by rank
SELECT 'stg_03_default', group_concat(rank || ':' || straggler_count, ',') = '2:2,0:1'
  FROM hta_potential_stragglers;
SELECT 'stg_04_three', group_concat(rank || ':' || straggler_count, ',') = '0:2,1:2,2:2'
  FROM hta_potential_stragglers(3);
SELECT 'stg_05_more_than_ranks', count(*) = 3 FROM hta_potential_stragglers(10);
SELECT 'stg_06_rank_filter', group_concat(rank || ':' || straggler_count, ',') = '0:1'
  FROM hta_potential_stragglers WHERE rank = 0;
SELECT 'stg_07_rank_not_listed', count(*) = 0 FROM hta_potential_stragglers WHERE rank = 1;
SELECT 'stg_08_readback', num_candidates = 2 AND include_last_profiler_step = 0
  FROM hta_potential_stragglers LIMIT 1;
.shell sh -c "sqlite3 :memory: -cmd '.load $HTA_EXT' 'SELECT * FROM hta_potential_stragglers(0)' 2>&1 | grep -qF 'hta_potential_stragglers: num_candidates must be a positive integer' && echo 'stg_09_err|1' || echo 'stg_09_err|0'"

-- with the last step included, S = {1, 2, 3} (mean_iter still 1 ms); in iteration 3
-- rank 0 is late and ranks 1 and 2 tie for second: r2 counts 3, r0 2, r1 2
SELECT 'stg_10_last_step', group_concat(rank || ':' || straggler_count, ',') = '2:3,0:2'
  FROM hta_potential_stragglers(2, 1);

-- older NCCL names (ncclKernel_*) count too: with AllReduce gone, Broadcast has
-- std 0 and is still the only candidate (a mean of 0 is a mean); every rank ties
DELETE FROM event WHERE name_id = (SELECT string_id FROM string WHERE value = 'ncclDevKernel_AllReduce');
SELECT 'stg_11_old_names', group_concat(rank || ':' || straggler_count, ',') = '0:2,1:2'
  FROM hta_potential_stragglers;
-- one rank only: the across-rank std is NaN everywhere, no rows (not an error)
DELETE FROM trace WHERE trace_id > 1;
SELECT 'stg_12_one_rank', count(*) = 0 FROM hta_potential_stragglers;
-- no step: no rows
DELETE FROM profiler_step;
SELECT 'stg_13_no_steps', count(*) = 0 FROM hta_potential_stragglers;
