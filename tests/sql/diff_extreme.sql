-- hta_trace_diff on durations near INT64_MAX (trace_diff.c R4, R7): the sums that
-- leave int64 ns saturate at INT64_MIN / INT64_MAX as elsewhere in ext/ (hta_common.h)
-- instead of failing with "integer overflow"; any sum that fits stays exact.
-- rank 0, iteration 1: big 2 x 9e18 ns (saturates), neg 2 x -9e18 ns (saturates low),
--                      near 9e18 + 2e17 ns (fits exactly), small 5 ns
-- rank 1, iteration 1: big 1 x 9e18 ns, neg 1 x -5 ns, near 9223372036854775807 ns,
--                      small 5 + 7 ns
CREATE TEMP TABLE ev(t, seq, ph, cat, name, ts, dur, iter);
INSERT INTO trace(trace_id, rank, rank_source, file_name, file_size, content_hash, event_count)
VALUES (1, 0, 'distributedInfo', 'r0.json', 0, 'h1', 0),
       (2, 1, 'distributedInfo', 'r1.json', 0, 'h2', 0);
INSERT INTO temp.ev VALUES
  (1, 1, 'X', 'user_annotation', 'ProfilerStep#1', 0, 1000, 1),
  (1, 2, 'X', 'cpu_op', 'big', 0, 9000000000000000000, 1),
  (1, 3, 'X', 'cpu_op', 'big', 10, 9000000000000000000, 1),
  (1, 4, 'X', 'cpu_op', 'neg', 20, -9000000000000000000, 1),
  (1, 5, 'X', 'cpu_op', 'neg', 30, -9000000000000000000, 1),
  (1, 6, 'X', 'cpu_op', 'near', 40, 9000000000000000000, 1),
  (1, 7, 'X', 'cpu_op', 'near', 50, 200000000000000000, 1),
  (1, 8, 'X', 'cpu_op', 'small', 60, 5, 1),
  (2, 1, 'X', 'user_annotation', 'ProfilerStep#1', 0, 1000, 1),
  (2, 2, 'X', 'cpu_op', 'big', 0, 9000000000000000000, 1),
  (2, 3, 'X', 'cpu_op', 'neg', 10, -5, 1),
  (2, 4, 'X', 'cpu_op', 'near', 20, 9223372036854775807, 1),
  (2, 5, 'X', 'cpu_op', 'small', 30, 5, 1),
  (2, 6, 'X', 'cpu_op', 'small', 40, 7, 1);
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, iteration)
SELECT (t << 32) | seq, t, t - 1, seq, ph, (SELECT category_id FROM category WHERE name = cat),
       (SELECT string_id FROM string WHERE value = name), 1, 1, ts, dur, iter
FROM temp.ev;
INSERT INTO profiler_step(trace_id, step, event_id, ts, dur)
SELECT e.trace_id, e.iteration, e.event_id, e.ts, e.dur FROM event e
  JOIN string s ON s.string_id = e.name_id WHERE s.value LIKE 'ProfilerStep#%';
UPDATE trace SET event_count = (SELECT count(*) FROM event e WHERE e.trace_id = trace.trace_id);

-- the query answers (before the fix: "integer overflow"), one row per name
SELECT 'diffx_01_rows', count(*) = 5 FROM hta_trace_diff(0, 1, 1, 1);
-- counts are exact; a sum that leaves int64 ns saturates (9223372036854775.807 µs)
SELECT 'diffx_02_big', control_counts = 2 AND control_total_duration_us = 9223372036854775807 / 1000.0
  AND test_counts = 1 AND test_total_duration_us = 9000000000000000.0
  AND diff_counts = -1 AND change_class = 'decreased'
  FROM hta_trace_diff(0, 1, 1, 1) WHERE name = 'big';
SELECT 'diffx_03_neg', control_total_duration_us = -9223372036854775808 / 1000.0
  AND test_total_duration_us = -0.005 AND diff_duration_us = 9223372036854775807 / 1000.0
  FROM hta_trace_diff(0, 1, 1, 1) WHERE name = 'neg';
-- a sum that fits is exact, even when it only just fits
SELECT 'diffx_04_near', control_total_duration_us = 9200000000000000000 / 1000.0
  AND test_total_duration_us = 9223372036854775807 / 1000.0
  AND diff_duration_us = 23372036854775807 / 1000.0
  FROM hta_trace_diff(0, 1, 1, 1) WHERE name = 'near';
SELECT 'diffx_05_small', control_total_duration_us = 0.005 AND test_total_duration_us = 0.012
  AND diff_duration_us = 0.007 AND change = '+' FROM hta_trace_diff(0, 1, 1, 1) WHERE name = 'small';
-- the same rank on both sides: nothing changes, even where the sum saturated
SELECT 'diffx_06_self', count(*) = 5 AND sum(diff_duration_us = 0.0) = 5
  AND sum(change_class = 'unchanged') = 5 FROM hta_trace_diff(0, 1, 0, 1);
