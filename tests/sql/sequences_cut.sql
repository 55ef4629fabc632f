-- hta_frequent_kernel_sequences with the last-ProfilerStep cut (FKS-2, spec 1.13, D7):
-- two host steps in the database, so each trace loses its rows from the start of its
-- last step on (trace 1: ts >= 10000 ns); a GPU row stays when its launch stays.
-- A trace without a step of its own (trace 2) keeps nothing.
CREATE TEMP TABLE ev(t, seq, cat, name, tid, ts, dur, stream, corr, link, parent, depth);
INSERT INTO trace(trace_id, rank, rank_source, file_name, file_size, content_hash, event_count)
VALUES (1, 0, 'distributedInfo', 'a.json', 0, 'h1', 0),
       (2, 1, 'distributedInfo', 'b.json', 0, 'h2', 0);
INSERT INTO temp.ev VALUES
  (1, 1, 'user_annotation', 'ProfilerStep#1', 1, 0, 10000, NULL, NULL, NULL, NULL, 0),
  (1, 2, 'user_annotation', 'ProfilerStep#2', 1, 10000, 10000, NULL, NULL, NULL, NULL, 0),
  -- A: launched before the cut, kernels run after it: all kept
  (1, 11, 'cpu_op', 'aten::linear', 1, 1000, 500, NULL, NULL, NULL, 1, 1),
  (1, 12, 'cuda_runtime', 'cudaLaunchKernel', 1, 1010, 5, NULL, 1, 13, 11, 2),
  (1, 13, 'kernel', 'gemm', 7, 10500, 100, 7, 1, 12, 12, 3),
  (1, 14, 'cuda_runtime', 'cudaLaunchKernel', 1, 1020, 5, NULL, 2, 15, 11, 2),
  (1, 15, 'kernel', 'bias', 7, 10600, 50, 7, 2, 14, 14, 3),
  (1, 16, 'cuda_runtime', 'cudaLaunchKernel', 1, 1030, 5, NULL, 3, 17, 11, 2),
  (1, 17, 'kernel', 'relu', 7, 10700, 30, 7, 3, 16, 16, 3),
  -- F: starts before the cut; its third launch (10100) is cut, with its kernel
  (1, 21, 'cpu_op', 'aten::linear', 1, 9000, 2000, NULL, NULL, NULL, 1, 1),
  (1, 22, 'cuda_runtime', 'cudaLaunchKernel', 1, 9100, 5, NULL, 4, 23, 21, 2),
  (1, 23, 'kernel', 'gemm', 7, 11000, 100, 7, 4, 22, 22, 3),
  (1, 24, 'cuda_runtime', 'cudaLaunchKernel', 1, 9200, 5, NULL, 5, 25, 21, 2),
  (1, 25, 'kernel', 'bias', 7, 11100, 50, 7, 5, 24, 24, 3),
  (1, 26, 'cuda_runtime', 'cudaLaunchKernel', 1, 10100, 5, NULL, 6, 27, 21, 2),
  (1, 27, 'kernel', 'relu', 7, 11200, 30, 7, 6, 26, 26, 3),
  -- B: inside the last step: cut entirely
  (1, 31, 'cpu_op', 'aten::linear', 1, 12000, 500, NULL, NULL, NULL, 2, 1),
  (1, 32, 'cuda_runtime', 'cudaLaunchKernel', 1, 12010, 5, NULL, 7, 33, 31, 2),
  (1, 33, 'kernel', 'gemm', 7, 13000, 100, 7, 7, 32, 32, 3),
  (1, 34, 'cuda_runtime', 'cudaLaunchKernel', 1, 12020, 5, NULL, 8, 35, 31, 2),
  (1, 35, 'kernel', 'bias', 7, 13100, 50, 7, 8, 34, 34, 3),
  (1, 36, 'cuda_runtime', 'cudaLaunchKernel', 1, 12030, 5, NULL, 9, 37, 31, 2),
  (1, 37, 'kernel', 'relu', 7, 13200, 30, 7, 9, 36, 36, 3),
  -- trace 2 has no ProfilerStep: every host row goes, and the GPU rows with them
  (2, 1, 'cpu_op', 'aten::linear', 1, 1000, 500, NULL, NULL, NULL, NULL, 0),
  (2, 2, 'cuda_runtime', 'cudaLaunchKernel', 1, 1010, 5, NULL, 1, 3, 1, 1),
  (2, 3, 'kernel', 'gemm', 7, 2000, 100, 7, 1, 2, 2, 2),
  (2, 4, 'cuda_runtime', 'cudaLaunchKernel', 1, 1020, 5, NULL, 2, 5, 1, 1),
  (2, 5, 'kernel', 'bias', 7, 2100, 50, 7, 2, 4, 4, 2),
  (2, 6, 'cuda_runtime', 'cudaLaunchKernel', 1, 1030, 5, NULL, 3, 7, 1, 1),
  (2, 7, 'kernel', 'relu', 7, 2200, 30, 7, 3, 6, 6, 2);
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur,
                  stream, correlation, link_id, parent_id, depth, iteration)
SELECT (t << 32) | seq, t, (SELECT rank FROM trace WHERE trace_id = t), seq, 'X',
       (SELECT category_id FROM category WHERE name = cat),
       (SELECT string_id FROM string WHERE value = name), 1, tid, ts, dur, stream, corr,
       CASE WHEN link IS NOT NULL THEN (t << 32) | link END,
       CASE WHEN parent IS NOT NULL THEN (t << 32) | parent END, depth,
       CASE WHEN t = 1 AND stream IS NULL THEN CASE WHEN ts < 10000 THEN 1 ELSE 2 END END
FROM temp.ev;
INSERT INTO profiler_step(trace_id, step, event_id, ts, dur)
VALUES (1, 1, (1 << 32) | 1, 0, 10000), (1, 2, (1 << 32) | 2, 10000, 10000);
UPDATE trace SET
  event_count = (SELECT count(*) FROM event e WHERE e.trace_id = trace.trace_id),
  min_ts = (SELECT min(ts) FROM event e WHERE e.trace_id = trace.trace_id),
  max_end = (SELECT max(ts + dur) FROM event e WHERE e.trace_id = trace.trace_id);

-- A keeps its 3 kernels; F keeps 2 (too few for the default 3); B is gone
SELECT 'fks_cut_01', group_concat(pattern || ':' || count, ',') = 'aten::linear|gemm|bias|relu:1'
  FROM hta_frequent_kernel_sequences('aten::linear');
SELECT 'fks_cut_02_gpu', abs(gpu_kernel_duration_us - 0.18) < 1e-12 AND abs(cpu_op_duration_us - 0.5) < 1e-12
  FROM hta_frequent_kernel_sequences('aten::linear');
SELECT 'fks_cut_03_minlen2', group_concat(pattern || ':' || count, ',') =
  'aten::linear|gemm|bias:1,aten::linear|gemm|bias|relu:1'
  FROM hta_frequent_kernel_sequences('aten::linear', 2);
-- GPU candidates follow their launch: A's and F's gemm stay (both after the cut
-- themselves), B's goes
SELECT 'fks_cut_04_gpu_rows', group_concat(pattern || ':' || count, ',') = 'gemm|gemm:2'
  FROM hta_frequent_kernel_sequences('gemm', 1);
-- the last step itself is cut; step 1's subtree holds A's 3 kernels and F's first 2
SELECT 'fks_cut_05_step', group_concat(pattern || ':' || count, ',') =
  'ProfilerStep#1|gemm|bias|relu|gemm|bias:1'
  FROM hta_frequent_kernel_sequences('ProfilerStep', 1);
SELECT 'fks_cut_06_no_step_trace', count(*) = 0 FROM hta_frequent_kernel_sequences('aten::linear', 0) WHERE rank = 1;

-- the same through the event_parent index (index walk with the cut applied in SQL)
CREATE INDEX event_parent ON event(parent_id) WHERE parent_id IS NOT NULL;
UPDATE trace SET event_count = 1000000;
SELECT 'fks_cut_10_idx', group_concat(pattern || ':' || count, ',') =
  'aten::linear|gemm|bias:1,aten::linear|gemm|bias|relu:1'
  FROM hta_frequent_kernel_sequences('aten::linear', 2);
SELECT 'fks_cut_11_idx_step', group_concat(pattern || ':' || count, ',') =
  'ProfilerStep#1|gemm|bias|relu|gemm|bias:1'
  FROM hta_frequent_kernel_sequences('ProfilerStep', 1);
SELECT 'fks_cut_12_idx_no_step_trace', count(*) = 0 FROM hta_frequent_kernel_sequences('aten::linear', 0) WHERE rank = 1;
