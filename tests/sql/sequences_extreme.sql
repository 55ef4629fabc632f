-- hta_frequent_kernel_sequences on durations near the int64 limits (a fuzz finding: the
-- per-pattern sums overflowed, undefined behaviour). Sums that leave int64 ns saturate at
-- INT64_MIN / INT64_MAX as elsewhere in ext/ (hta_common.h); sums that fit stay exact.
-- Pattern big: 2 roots, cpu 9e18 ns each, kernels 9e18 ns each (both sums saturate high).
-- Pattern neg: 2 roots, cpu -9e18 ns each (saturates low), kernels 5 + 7 ns (exact).
-- Pattern near: 2 roots, cpu 9e18 + 2e17 ns (fits exactly), kernels 1 ns each.
CREATE TEMP TABLE ev(seq, cat, name, ts, dur, stream, corr, link, parent, depth);
INSERT INTO trace(trace_id, rank, rank_source, file_name, file_size, content_hash, event_count)
VALUES (1, 0, 'distributedInfo', 'a.json', 0, 'h1', 0);
INSERT INTO temp.ev VALUES
  (1, 'cpu_op', 'op::big', 1000, 9000000000000000000, NULL, NULL, NULL, NULL, 0),
  (2, 'cuda_runtime', 'cudaLaunchKernel', 1010, 10, NULL, 1, 3, 1, 1),
  (3, 'kernel', 'kbig', 2000, 9000000000000000000, 7, 1, 2, 2, 2),
  (11, 'cpu_op', 'op::big', 3000, 9000000000000000000, NULL, NULL, NULL, NULL, 0),
  (12, 'cuda_runtime', 'cudaLaunchKernel', 3010, 10, NULL, 2, 13, 11, 1),
  (13, 'kernel', 'kbig', 4000, 9000000000000000000, 7, 2, 12, 12, 2),
  (21, 'cpu_op', 'op::neg', 5000, -9000000000000000000, NULL, NULL, NULL, NULL, 0),
  (22, 'cuda_runtime', 'cudaLaunchKernel', 5010, 10, NULL, 3, 23, 21, 1),
  (23, 'kernel', 'kneg', 6000, 5, 7, 3, 22, 22, 2),
  (31, 'cpu_op', 'op::neg', 7000, -9000000000000000000, NULL, NULL, NULL, NULL, 0),
  (32, 'cuda_runtime', 'cudaLaunchKernel', 7010, 10, NULL, 4, 33, 31, 1),
  (33, 'kernel', 'kneg', 8000, 7, 7, 4, 32, 32, 2),
  (41, 'cpu_op', 'op::near', 9000, 9000000000000000000, NULL, NULL, NULL, NULL, 0),
  (42, 'cuda_runtime', 'cudaLaunchKernel', 9010, 10, NULL, 5, 43, 41, 1),
  (43, 'kernel', 'knear', 10000, 1, 7, 5, 42, 42, 2),
  (51, 'cpu_op', 'op::near', 11000, 200000000000000000, NULL, NULL, NULL, NULL, 0),
  (52, 'cuda_runtime', 'cudaLaunchKernel', 11010, 10, NULL, 6, 53, 51, 1),
  (53, 'kernel', 'knear', 12000, 1, 7, 6, 52, 52, 2);
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur,
                  stream, correlation, link_id, parent_id, depth)
SELECT (1 << 32) | seq, 1, 0, seq, 'X', (SELECT category_id FROM category WHERE name = cat),
       (SELECT string_id FROM string WHERE value = name), 1, coalesce(stream, 1), ts, dur,
       stream, corr, CASE WHEN link IS NOT NULL THEN (1 << 32) | link END,
       CASE WHEN parent IS NOT NULL THEN (1 << 32) | parent END, depth
FROM temp.ev;
-- min_ts and max_end by hand (max(ts + dur) in SQL would raise integer overflow on op::neg)
UPDATE trace SET event_count = (SELECT count(*) FROM event), min_ts = 1000,
  max_end = 9000000000000004000;

SELECT 'fksx_01_rows', count(*) = 3 FROM hta_frequent_kernel_sequences('op::', 1);
SELECT 'fksx_02_big', count = 2 AND pattern = 'op::big|kbig'
  AND gpu_kernel_duration_us = 9223372036854775807 / 1000.0
  AND cpu_op_duration_us = 9223372036854775807 / 1000.0
  FROM hta_frequent_kernel_sequences('op::big', 1);
SELECT 'fksx_03_neg', count = 2 AND gpu_kernel_duration_us = 0.012
  AND cpu_op_duration_us = -9223372036854775808 / 1000.0
  FROM hta_frequent_kernel_sequences('op::neg', 1);
SELECT 'fksx_04_near', count = 2 AND gpu_kernel_duration_us = 0.002
  AND cpu_op_duration_us = 9200000000000000000 / 1000.0
  FROM hta_frequent_kernel_sequences('op::near', 1);
