-- hta_cupti_counters (ext/hta/cupti.c, requirements CUP-n): hand-made traces, hand-computed
-- answers. cuda_profiler_range kernels carry no correlation: they pair with the
-- cudaLaunchKernel* launches by position in ts order.
CREATE TEMP TABLE ev(t, seq, cat, name, pid, tid, ts, dur, parent, depth, args);
INSERT INTO trace(trace_id, rank, rank_source, file_name, file_size, content_hash, event_count)
VALUES (1, 0, 'distributedInfo', 'a.json', 0, 'h1', 0),
       (2, 1, 'distributedInfo', 'b.json', 0, 'h2', 0),
       (3, 2, 'distributedInfo', 'c.json', 0, 'h3', 0);
INSERT INTO temp.ev VALUES
  -- trace 1, rank 0: three launches.
  -- L1 under conv2d > convolution > cudnn_convolution (all cpu_op)
  (1, 1, 'cpu_op', 'aten::conv2d', 9, 1, 1000, 900, NULL, 0, NULL),
  (1, 2, 'cpu_op', 'aten::convolution', 9, 1, 1000, 800, 1, 1, NULL),
  (1, 3, 'cpu_op', 'aten::cudnn_convolution', 9, 1, 1010, 700, 2, 2, NULL),
  (1, 4, 'cuda_runtime', 'cudaLaunchKernel', 9, 1, 1020, 50, 3, 3, NULL),
  -- L2 under a user annotation (not a cpu_op) > relu_ > clamp_min_, with a cpu_op child
  (1, 11, 'user_annotation', 'forward', 9, 1, 2000, 1000, NULL, 0, NULL),
  (1, 12, 'cpu_op', 'aten::relu_', 9, 1, 2010, 500, 11, 1, NULL),
  (1, 13, 'cpu_op', 'aten::clamp_min_', 9, 1, 2020, 400, 12, 2, NULL),
  (1, 14, 'cuda_runtime', 'cudaLaunchKernelExC', 9, 1, 2030, 100, 13, 3, NULL),
  (1, 15, 'cpu_op', 'aten::odd "child"', 9, 1, 2040, 10, 14, 4, NULL),
  -- L3 outside every cpu_op
  (1, 21, 'cuda_runtime', 'cudaLaunchKernel', 9, 1, 3000, 50, NULL, 0, NULL),
  -- neither is a launch here (wrong category / wrong name)
  (1, 22, 'cuda_driver', 'cuLaunchKernel', 9, 1, 3100, 50, NULL, 0, NULL),
  (1, 23, 'cuda_runtime', 'cudaMemcpyAsync', 9, 1, 3200, 50, NULL, 0, NULL),
  -- the kernels: file order K_b, K_a, K_c but ts order K_a, K_b, K_c
  (1, 31, 'cuda_profiler_range', 'K_b', 0, 0, 600, 100, NULL, NULL, '{"smsp__b":3.5,"smsp__a":0}'),
  (1, 32, 'cuda_profiler_range', 'K_a', 0, 0, 500, 100, NULL, NULL, '{"smsp__b":10,"smsp__a":2}'),
  (1, 33, 'cuda_profiler_range', 'K_c', 0, 0, 700, 100, NULL, NULL, '{"smsp__a":9119334400}'),
  -- trace 2, rank 1: two kernels, one launch: CUP-3
  (2, 1, 'cuda_runtime', 'cudaLaunchKernel', 9, 1, 1000, 50, NULL, 0, NULL),
  (2, 2, 'cuda_profiler_range', 'K1', 0, 0, 500, 100, NULL, NULL, '{"smsp__a":1}'),
  (2, 3, 'cuda_profiler_range', 'K2', 0, 0, 600, 100, NULL, NULL, '{"smsp__a":1}'),
  -- trace 3, rank 2: launches but no CUPTI kernels: no rows
  (3, 1, 'cuda_runtime', 'cudaLaunchKernel', 9, 1, 1000, 50, NULL, 0, NULL);
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur,
                  parent_id, depth, args)
SELECT (t << 32) | seq, t, (SELECT rank FROM trace WHERE trace_id = t), seq, 'X',
       (SELECT category_id FROM category WHERE name = cat),
       (SELECT string_id FROM string WHERE value = name), pid, tid, ts, dur,
       CASE WHEN parent IS NOT NULL THEN (t << 32) | parent END, depth, args
FROM temp.ev;
UPDATE trace SET
  event_count = (SELECT count(*) FROM event e WHERE e.trace_id = trace.trace_id),
  min_ts = (SELECT min(ts) FROM event e WHERE e.trace_id = trace.trace_id),
  max_end = (SELECT max(ts + dur) FROM event e WHERE e.trace_id = trace.trace_id);

SELECT 'cup_module', count(*) = 1 FROM pragma_module_list WHERE name = 'hta_cupti_counters';
SELECT 'cup_columns', group_concat(name, ',') =
  'rank,kernel_event_id,kernel_name,op_stack,top_level_op,bottom_level_op,counter,value,kernel_seq,launch_seq,trace_id,job'
  FROM pragma_table_xinfo('hta_cupti_counters') WHERE hidden = 0;

CREATE TEMP TABLE r0 AS SELECT rowid AS i, * FROM hta_cupti_counters WHERE rank = 0;
-- CUP-2/5: kernels in ts order, counters by key; K_c has no smsp__b row
SELECT 'cup_01_rows', group_concat(kernel_name || '.' || counter || '=' || value, ',') =
  'K_a.smsp__a=2,K_a.smsp__b=10,K_b.smsp__a=0,K_b.smsp__b=3.5,K_c.smsp__a=9119334400'
  FROM (SELECT * FROM temp.r0 ORDER BY i);
SELECT 'cup_02_value_types', group_concat(typeof(value), ',') = 'integer,integer,integer,real,integer'
  FROM (SELECT * FROM temp.r0 ORDER BY i);
-- ids: kernel_event_id is the event, kernel_seq its traceEvents position
SELECT 'cup_03_ids', group_concat(DISTINCT (kernel_event_id - (1 << 32)) || '/' || kernel_seq) = '32/32,31/31,33/33'
  FROM (SELECT * FROM temp.r0 ORDER BY i);
-- launch_seq: the paired launch's seq (HTA's index_runtime): K_a <-> L1 (4), K_b <-> L2 (14), K_c <-> L3 (21)
SELECT 'cup_03b_launch_seq', group_concat(DISTINCT kernel_name || '/' || launch_seq) = 'K_a/4,K_b/14,K_c/21'
  FROM (SELECT * FROM temp.r0 ORDER BY i);
SELECT 'cup_04_join_events', count(*) = 5 FROM temp.r0 r JOIN events e ON e.event_id = r.kernel_event_id
  WHERE e.cat = 'cuda_profiler_range' AND e.name = r.kernel_name AND e.seq = r.kernel_seq;
-- CUP-4: K_a <-> L1: the three cpu_ops, outermost first
SELECT 'cup_05_stack_a', op_stack = '["aten::conv2d","aten::convolution","aten::cudnn_convolution"]'
  AND top_level_op = 'aten::conv2d' AND bottom_level_op = 'aten::cudnn_convolution'
  FROM temp.r0 WHERE kernel_name = 'K_a' AND counter = 'smsp__a';
-- K_b <-> L2: the annotation is no cpu_op; the launch's cpu_op child comes last (JSON-escaped)
SELECT 'cup_06_stack_b', op_stack = '["aten::relu_","aten::clamp_min_","aten::odd \"child\""]'
  AND top_level_op = 'aten::relu_' AND bottom_level_op = 'aten::odd "child"'
  FROM temp.r0 WHERE kernel_name = 'K_b' AND counter = 'smsp__b';
SELECT 'cup_07_stack_json', json_array_length(op_stack) = 3 AND json_extract(op_stack, '$[2]') = 'aten::odd "child"'
  FROM temp.r0 WHERE kernel_name = 'K_b' AND counter = 'smsp__a';
-- K_c <-> L3: no cpu_op around the launch
SELECT 'cup_08_stack_empty', op_stack = '[]' AND top_level_op IS NULL AND bottom_level_op IS NULL
  FROM temp.r0 WHERE kernel_name = 'K_c';
SELECT 'cup_09_types', typeof(rank) || typeof(kernel_event_id) || typeof(kernel_name) || typeof(op_stack)
  || typeof(counter) || typeof(kernel_seq) || typeof(trace_id) = 'integerintegertexttexttextintegerinteger'
  FROM temp.r0 WHERE i = 1;

-- CUP-3: a count mismatch is reported, not dropped
SELECT 'cup_10_mismatch', count(*) = 1 FROM hta_cupti_counters WHERE rank = 1;
SELECT 'cup_11_mismatch_row', counter = 'error' AND value IS NULL AND kernel_event_id IS NULL
  AND kernel_seq IS NULL AND launch_seq IS NULL AND op_stack IS NULL AND top_level_op IS NULL AND trace_id = 2
  AND kernel_name = 'hta_cupti_counters: rank 1 (trace 2): 2 cuda_profiler_range kernels but 1 cudaLaunchKernel launches; kernels are paired with launches by position, so none is reported'
  FROM hta_cupti_counters WHERE rank = 1;
-- no CUPTI kernels: no rows
SELECT 'cup_12_none', count(*) = 0 FROM hta_cupti_counters WHERE rank = 2;
SELECT 'cup_13_all', group_concat(rank || ':' || counter, ',') =
  '0:smsp__a,0:smsp__b,0:smsp__a,0:smsp__b,0:smsp__a,1:error' FROM hta_cupti_counters;
SELECT 'cup_14_rank_null', count(*) = 0 FROM hta_cupti_counters WHERE rank = NULL;
-- the pivot of examples/queries/cupti_flops.sql, on these numbers
SELECT 'cup_15_pivot', group_concat(kernel_name || '=' || a || '/' || coalesce(b, -1), ',') = 'K_a=2/10,K_b=0/3.5,K_c=9119334400/-1'
  FROM (SELECT kernel_name, max(value) FILTER (WHERE counter = 'smsp__a') AS a,
               max(value) FILTER (WHERE counter = 'smsp__b') AS b
        FROM hta_cupti_counters WHERE rank = 0 GROUP BY kernel_event_id ORDER BY min(rowid));
