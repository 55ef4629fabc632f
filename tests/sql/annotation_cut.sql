-- The last-ProfilerStep cut in the annotation family (annotations.c R1, spec 1.13, D7):
-- two host steps in the database, so trace 1 (rank 0) loses every annotation that
-- starts at or after its last step's start (2000000 ns), gpu_user_annotation rows
-- included (host-like rows for HTA's cut), and trace 2 (rank 1, no step of its own)
-- loses everything. include_last_profiler_step = 1 turns the cut off.
CREATE TEMP TABLE ev(t, seq, cat, name, ts, dur);
INSERT INTO trace(trace_id, rank, rank_source, file_name, file_size, content_hash, event_count)
VALUES (1, 0, 'distributedInfo', 'r0.json', 0, 'h1', 0),
       (2, 1, 'distributedInfo', 'r1.json', 0, 'h2', 0);
INSERT INTO temp.ev VALUES
  (1, 1, 'user_annotation', 'ProfilerStep#1', 1000000, 1000000),
  (1, 2, 'user_annotation', 'ProfilerStep#2', 2000000, 1000000),
  (1, 3, 'user_annotation', 'a', 1500000, 100000),
  (1, 4, 'user_annotation', 'a', 2500000, 200000),
  (1, 5, 'gpu_user_annotation', 'g', 1900000, 300000),          -- starts before the cut
  (1, 6, 'gpu_user_annotation', 'g', 2100000, 50000),
  (1, 7, 'gpu_user_annotation', 'ProfilerStep#2', 2050000, 900000), -- a GPU copy: no step (D7)
  (2, 1, 'user_annotation', 'a', 1200000, 10000);
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, iteration)
SELECT (t << 32) | seq, t, t - 1, seq, 'X', (SELECT category_id FROM category WHERE name = cat),
       (SELECT string_id FROM string WHERE value = name), 1, 1, ts, dur,
       CASE WHEN t = 1 AND ts >= 1000000 AND ts < 3000000 THEN ts / 1000000 END
FROM temp.ev;
INSERT INTO profiler_step(trace_id, step, event_id, ts, dur)
VALUES (1, 1, (1 << 32) | 1, 1000000, 1000000), (1, 2, (1 << 32) | 2, 2000000, 1000000);
UPDATE trace SET
  event_count = (SELECT count(*) FROM event e WHERE e.trace_id = trace.trace_id),
  min_ts = (SELECT min(ts) FROM event e WHERE e.trace_id = trace.trace_id),
  max_end = (SELECT max(ts + dur) FROM event e WHERE e.trace_id = trace.trace_id);

SELECT 'cut_01_cpu', group_concat(rank || ':' || name || ':' || count, ',') = '0:ProfilerStep#1:1,0:a:1'
  FROM hta_user_annotation_breakdown(0);
SELECT 'cut_02_cpu_last', group_concat(rank || ':' || name || ':' || count, ',') =
  '0:ProfilerStep#1:1,0:ProfilerStep#2:1,0:a:2,1:a:1'
  FROM hta_user_annotation_breakdown(0, 0.8, 1000, 1);
SELECT 'cut_03_gpu', group_concat(name || ':' || count || ':' || sum_us, ',') = 'g:1:300.0'
  FROM hta_user_annotation_breakdown;
SELECT 'cut_04_gpu_last', group_concat(name || ':' || count, ',') = 'ProfilerStep#2:1,g:2'
  FROM hta_user_annotation_breakdown WHERE include_last_profiler_step = 1;
SELECT 'cut_05_rank1_cut', count(*) = 0 FROM hta_user_annotation_breakdown(0) WHERE rank = 1;

-- hta_profiler_steps (R3): host steps before the cut; ts and dur in µs, ts absolute
SELECT 'cut_06_steps', group_concat(rank || ':' || step || ':' || ts || ':' || dur || ':' || trace_id, ',') =
  '0:1:1000.0:1000.0:1' FROM hta_profiler_steps;
SELECT 'cut_07_steps_last', group_concat(step, ',') = '1,2' FROM hta_profiler_steps(1);
SELECT 'cut_08_steps_rank1', count(*) = 0 FROM hta_profiler_steps(1) WHERE rank = 1;
SELECT 'cut_09_steps_readback', include_last_profiler_step = 1 FROM hta_profiler_steps(1) LIMIT 1;
SELECT 'cut_10_steps_columns', group_concat(name, ',') = 'rank,step,ts,dur,trace_id,job'
  FROM pragma_table_info('hta_profiler_steps');
