-- hta_user_annotation_breakdown folding into "others" (annotations.c R2, the kernel
-- breakdown's rule via hta_topk_aggregate; spec 2.2 steps 1-3 with D3).
-- Trace 1 (rank 0): A = 60+40, B = 50, C = 10+10+10, D = 5+15 (µs), so by sum
-- descending A 100, B 50, C 30, D 20 and cumsums 100, 150, 180, 200.
-- Trace 2 (rank 1): x = 30 and y = 30 tie, z = 10.
CREATE TEMP TABLE ev(t, seq, name, ts, dur);
INSERT INTO trace(trace_id, rank, rank_source, file_name, file_size, content_hash, event_count)
VALUES (1, 0, 'distributedInfo', 'r0.json', 0, 'h1', 0),
       (2, 1, 'distributedInfo', 'r1.json', 0, 'h2', 0);
INSERT INTO temp.ev VALUES
  (1, 1, 'A', 1000000, 60000), (1, 2, 'A', 2000000, 40000),
  (1, 3, 'B', 3000000, 50000),
  (1, 4, 'C', 4000000, 10000), (1, 5, 'C', 5000000, 10000), (1, 6, 'C', 6000000, 10000),
  (1, 7, 'D', 7000000, 5000), (1, 8, 'D', 8000000, 15000),
  (2, 1, 'y', 1000000, 30000), (2, 2, 'x', 2000000, 30000), (2, 3, 'z', 3000000, 10000);
INSERT INTO category(name) VALUES ('user_annotation');
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur)
SELECT (t << 32) | seq, t, t - 1, seq, 'X', 1, (SELECT string_id FROM string WHERE value = name),
       1, 1, ts, dur
FROM temp.ev;
UPDATE trace SET
  event_count = (SELECT count(*) FROM event e WHERE e.trace_id = trace.trace_id),
  min_ts = (SELECT min(ts) FROM event e WHERE e.trace_id = trace.trace_id),
  max_end = (SELECT max(ts + dur) FROM event e WHERE e.trace_id = trace.trace_id);

-- at most num_kernels names: nothing folds (the defaults keep all 4)
SELECT 'oth_01_defaults', group_concat(name || ':' || count, ',') = 'A:2,B:1,C:3,D:2'
  FROM hta_user_annotation_breakdown(0) WHERE rank = 0;
SELECT 'oth_02_equal_num', group_concat(name, ',') = 'A,B,C,D'
  FROM hta_user_annotation_breakdown(0, 0.1, 4) WHERE rank = 0;

-- num_kernels = 2: positions >= 2 (C, D) fold; ratio 1.0 folds nothing by itself
SELECT 'oth_03_rows', group_concat(name || ':' || count || ':' || sum_us, ',') =
  'A:2:100.0,B:1:50.0,others:5:50.0'
  FROM hta_user_annotation_breakdown(0, 1.0, 2) WHERE rank = 0;
-- D3: kept names keep their per-instance statistics
SELECT 'oth_04_kept_stats', max_us = 60.0 AND min_us = 40.0 AND mean_us = 50.0
  AND abs(stddev_us - 14.142135623730951) < 1e-9
  FROM hta_user_annotation_breakdown(0, 1.0, 2) WHERE rank = 0 AND name = 'A';
-- D3: "others" = the 5 instances 10, 10, 10, 5, 15
SELECT 'oth_05_others_stats', max_us = 15.0 AND min_us = 5.0 AND mean_us = 10.0
  AND abs(stddev_us - 3.5355339059327378) < 1e-9
  FROM hta_user_annotation_breakdown(0, 1.0, 2) WHERE rank = 0 AND name = 'others';

-- duration_ratio 0.3: q = quantile([100,150,180,200], 0.3) = 145, so B, C, D fold
SELECT 'oth_06_ratio', group_concat(name || ':' || count || ':' || sum_us, ',') =
  'A:2:100.0,others:6:100.0'
  FROM hta_user_annotation_breakdown(0, 0.3, 3) WHERE rank = 0;
SELECT 'oth_07_ratio_stats', max_us = 50.0 AND min_us = 5.0
  AND abs(mean_us - 16.666666666666668) < 1e-9 AND abs(stddev_us - 16.6332999331662) < 1e-9
  FROM hta_user_annotation_breakdown(0, 0.3, 3) WHERE rank = 0 AND name = 'others';
-- duration_ratio 0.5: q = 165, so C and D fold (D also by position 3)
SELECT 'oth_08_median', group_concat(name || ':' || count, ',') = 'A:2,B:1,others:5'
  FROM hta_user_annotation_breakdown(0, 0.5, 3) WHERE rank = 0;
-- num_kernels 0: everything folds
SELECT 'oth_09_all', group_concat(name || ':' || count || ':' || sum_us || ':' || max_us || ':' || min_us, ',') =
  'others:8:200.0:60.0:5.0'
  FROM hta_user_annotation_breakdown(0, 1.0, 0) WHERE rank = 0;

-- ties in sum are ordered by name: x before y, so y folds at position 1;
-- "others" sorts among the names in byte order
SELECT 'oth_10_tie', group_concat(name || ':' || count || ':' || sum_us, ',') = 'others:2:40.0,x:1:30.0'
  FROM hta_user_annotation_breakdown(0, 1.0, 1) WHERE rank = 1;
-- each trace folds on its own
SELECT 'oth_11_per_trace', group_concat(rank || ':' || name, ',') = '0:A,0:others,1:others,1:x'
  FROM hta_user_annotation_breakdown(0, 1.0, 1);
