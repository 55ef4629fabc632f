-- hta_frequent_kernel_sequences (ext/hta/sequences.c, requirements FKS-n): hand-made traces,
-- hand-computed answers. Times are ns in the database, us (REAL) in the output; every
-- duration here is below 1 us, so the sub-us path is exercised throughout.
--
-- Fixture: ev rows become event rows with event_id = trace_id<<32 | seq; link and parent
-- name a seq of the same trace.
CREATE TEMP TABLE ev(t, seq, cat, name, tid, ts, dur, stream, corr, link, parent, depth);
INSERT INTO trace(trace_id, rank, rank_source, file_name, file_size, content_hash, event_count)
VALUES (1, 0, 'distributedInfo', 'a.json', 0, 'h1', 0),
       (2, 1, 'distributedInfo', 'b.json', 0, 'h2', 0),
       (3, 0, 'file_name', 'c.json', 0, 'h3', 0);
INSERT INTO temp.ev VALUES
  -- trace 1, rank 0. A: linear > addmm > 3 launches; kernels gemm, bias, relu on stream 7.
  (1, 1, 'cpu_op', 'aten::linear', 1, 1000, 500, NULL, NULL, NULL, NULL, 0),
  (1, 2, 'cpu_op', 'aten::addmm', 1, 1010, 400, NULL, NULL, NULL, 1, 1),
  (1, 3, 'cuda_runtime', 'cudaLaunchKernel', 1, 1020, 10, NULL, 11, 4, 2, 2),
  (1, 4, 'kernel', 'gemm', 7, 2000, 100, 7, 11, 3, 3, 3),
  (1, 5, 'cuda_runtime', 'cudaLaunchKernel', 1, 1100, 10, NULL, 12, 6, 2, 2),
  (1, 6, 'kernel', 'bias', 7, 2100, 50, 7, 12, 5, 5, 3),
  (1, 7, 'cuda_runtime', 'cudaLaunchKernel', 1, 1200, 10, NULL, 13, 8, 2, 2),
  (1, 8, 'kernel', 'relu', 7, 2200, 30, 7, 13, 7, 7, 3),
  -- B: the same shape: gemm 110, bias 40, relu 20; linear 600, addmm 500.
  (1, 11, 'cpu_op', 'aten::linear', 1, 11000, 600, NULL, NULL, NULL, NULL, 0),
  (1, 12, 'cpu_op', 'aten::addmm', 1, 11010, 500, NULL, NULL, NULL, 11, 1),
  (1, 13, 'cuda_runtime', 'cudaLaunchKernel', 1, 11020, 10, NULL, 21, 14, 12, 2),
  (1, 14, 'kernel', 'gemm', 7, 12000, 110, 7, 21, 13, 13, 3),
  (1, 15, 'cuda_runtime', 'cudaLaunchKernel', 1, 11100, 10, NULL, 22, 16, 12, 2),
  (1, 16, 'kernel', 'bias', 7, 12100, 40, 7, 22, 15, 15, 3),
  (1, 17, 'cuda_runtime', 'cudaLaunchKernel', 1, 11200, 10, NULL, 23, 18, 12, 2),
  (1, 18, 'kernel', 'relu', 7, 12200, 20, 7, 23, 17, 17, 3),
  -- C: two kernels only (gemm 100, bias 50); linear 300, addmm 200.
  (1, 21, 'cpu_op', 'aten::linear', 1, 21000, 300, NULL, NULL, NULL, NULL, 0),
  (1, 22, 'cpu_op', 'aten::addmm', 1, 21010, 200, NULL, NULL, NULL, 21, 1),
  (1, 23, 'cuda_runtime', 'cudaLaunchKernel', 1, 21020, 10, NULL, 31, 24, 22, 2),
  (1, 24, 'kernel', 'gemm', 7, 22000, 100, 7, 31, 23, 23, 3),
  (1, 25, 'cuda_runtime', 'cudaLaunchKernel', 1, 21100, 10, NULL, 32, 26, 22, 2),
  (1, 26, 'kernel', 'bias', 7, 22100, 50, 7, 32, 25, 25, 3),
  -- D: launched relu, gemm, bias, but they run bias (32000), gemm (32100), relu (32200).
  (1, 31, 'cpu_op', 'aten::linear', 1, 31000, 450, NULL, NULL, NULL, NULL, 0),
  (1, 32, 'cuda_runtime', 'cudaLaunchKernel', 1, 31010, 10, NULL, 41, 33, 31, 1),
  (1, 33, 'kernel', 'relu', 7, 32200, 30, 7, 41, 32, 32, 2),
  (1, 34, 'cuda_runtime', 'cudaLaunchKernel', 1, 31100, 10, NULL, 42, 35, 31, 1),
  (1, 35, 'kernel', 'gemm', 7, 32100, 100, 7, 42, 34, 34, 2),
  (1, 36, 'cuda_runtime', 'cudaLaunchKernel', 1, 31200, 10, NULL, 43, 37, 31, 1),
  (1, 37, 'kernel', 'bias', 7, 32000, 50, 7, 43, 36, 36, 2),
  -- E: k_b (stream 7) and k_a (stream 8) start at the same ns: file order decides (FKS-5).
  (1, 41, 'cpu_op', 'aten::linear', 1, 41000, 100, NULL, NULL, NULL, NULL, 0),
  (1, 42, 'cuda_runtime', 'cudaLaunchKernel', 1, 41010, 10, NULL, 51, 43, 41, 1),
  (1, 43, 'kernel', 'k_b', 7, 42000, 10, 7, 51, 42, 42, 2),
  (1, 44, 'cuda_runtime', 'cudaLaunchKernel', 1, 41020, 10, NULL, 52, 45, 41, 1),
  (1, 45, 'kernel', 'k_a', 8, 42000, 10, 8, 52, 44, 44, 2),
  (1, 46, 'cuda_runtime', 'cudaLaunchKernel', 1, 41030, 10, NULL, 53, 47, 41, 1),
  (1, 47, 'kernel', 'k_c', 7, 42050, 10, 7, 53, 46, 46, 2),
  -- Not candidates although their names contain 'aten::linear' (FKS-2): an instant
  -- (no dur) and the profiler's 'Trace' span, both outside every call stack.
  (1, 51, 'cpu_op', 'aten::linear instant', 1, 50000, NULL, NULL, NULL, NULL, NULL, NULL),
  (1, 52, 'Trace', 'aten::linear (PyTorch Profiler)', 1, 0, 60000, NULL, NULL, NULL, NULL, NULL),
  (1, 53, 'cpu_op', 'aten::mm', 1, 52000, 100, NULL, NULL, NULL, NULL, 0),
  -- trace 2, rank 1 (AMD): my_linear launches 3 kernels on stream 0 (D14) via hipLaunchKernel.
  (2, 1, 'cpu_op', 'my_linear', 1, 1000, 900, NULL, NULL, NULL, NULL, 0),
  (2, 2, 'cuda_runtime', 'hipLaunchKernel', 1, 1010, 10, NULL, 1, 3, 1, 1),
  (2, 3, 'kernel', 'Cijk_gemm', 0, 2000, 123, 0, 1, 2, 2, 2),
  (2, 4, 'cuda_runtime', 'hipLaunchKernel', 1, 1100, 10, NULL, 2, 5, 1, 1),
  (2, 5, 'kernel', 'elementwise', 0, 2200, 45, 0, 2, 4, 4, 2),
  (2, 6, 'cuda_runtime', 'hipLaunchKernel', 1, 1200, 10, NULL, 3, 7, 1, 1),
  (2, 7, 'kernel', 'reduce', 0, 2300, 6, 0, 3, 6, 6, 2),
  -- an unlinked kernel whose name contains 'linear': outside every stack, depth -1 (FKS-3)
  (2, 8, 'kernel', 'orphan_linear_kernel', 0, 3000, 10, 0, 99, NULL, NULL, NULL),
  -- fused::a is shallow (depth 0) with 1 kernel; fused::b is deeper with 3 (FKS-3)
  (2, 11, 'cpu_op', 'fused::a', 1, 5000, 100, NULL, NULL, NULL, NULL, 0),
  (2, 12, 'cuda_runtime', 'hipLaunchKernel', 1, 5010, 10, NULL, 11, 13, 11, 1),
  (2, 13, 'kernel', 'fa', 0, 6000, 10, 0, 11, 12, 12, 2),
  (2, 21, 'cpu_op', 'wrapper', 1, 7000, 500, NULL, NULL, NULL, NULL, 0),
  (2, 22, 'cpu_op', 'fused::b', 1, 7010, 400, NULL, NULL, NULL, 21, 1),
  (2, 23, 'cuda_runtime', 'hipLaunchKernel', 1, 7020, 10, NULL, 21, 24, 22, 2),
  (2, 24, 'kernel', 'fb1', 0, 8000, 10, 0, 21, 23, 23, 3),
  (2, 25, 'cuda_runtime', 'hipLaunchKernel', 1, 7030, 10, NULL, 22, 26, 22, 2),
  (2, 26, 'kernel', 'fb2', 0, 8100, 10, 0, 22, 25, 25, 3),
  (2, 27, 'cuda_runtime', 'hipLaunchKernel', 1, 7040, 10, NULL, 23, 28, 22, 2),
  (2, 28, 'kernel', 'fb3', 0, 8200, 10, 0, 23, 27, 27, 3),
  -- trace 3, also rank 0 (a second profiling window): one more A-shaped instance.
  (3, 1, 'cpu_op', 'aten::linear', 1, 1000, 700, NULL, NULL, NULL, NULL, 0),
  (3, 2, 'cuda_runtime', 'cudaLaunchKernel', 1, 1010, 10, NULL, 1, 3, 1, 1),
  (3, 3, 'kernel', 'gemm', 7, 2000, 1, 7, 1, 2, 2, 2),
  (3, 4, 'cuda_runtime', 'cudaLaunchKernel', 1, 1020, 10, NULL, 2, 5, 1, 1),
  (3, 5, 'kernel', 'bias', 7, 2001, 2, 7, 2, 4, 4, 2),
  (3, 6, 'cuda_runtime', 'cudaLaunchKernel', 1, 1030, 10, NULL, 3, 7, 1, 1),
  (3, 7, 'kernel', 'relu', 7, 2003, 3, 7, 3, 6, 6, 2);
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur,
                  stream, correlation, link_id, parent_id, depth)
SELECT (t << 32) | seq, t, (SELECT rank FROM trace WHERE trace_id = t), seq,
       CASE WHEN dur IS NULL THEN 'i' ELSE 'X' END,
       (SELECT category_id FROM category WHERE name = cat),
       (SELECT string_id FROM string WHERE value = name), 1, tid, ts, dur, stream, corr,
       CASE WHEN link IS NOT NULL THEN (t << 32) | link END,
       CASE WHEN parent IS NOT NULL THEN (t << 32) | parent END, depth
FROM temp.ev;
UPDATE trace SET
  event_count = (SELECT count(*) FROM event e WHERE e.trace_id = trace.trace_id),
  min_ts = (SELECT min(ts) FROM event e WHERE e.trace_id = trace.trace_id AND dur IS NOT NULL),
  max_end = (SELECT max(ts + dur) FROM event e WHERE e.trace_id = trace.trace_id);

-- the module and its columns (DESIGN 4: parameters are HIDDEN, trace_id last visible)
SELECT 'fks_module', count(*) = 1 FROM pragma_module_list WHERE name = 'hta_frequent_kernel_sequences';
SELECT 'fks_columns', group_concat(name || ':' || hidden, ',') =
  'rank:0,pattern:0,count:0,gpu_kernel_duration_us:0,cpu_op_duration_us:0,trace_id:0,operator_name:1,min_pattern_len:1,top_k:1,schema:1,job:0'
  FROM pragma_table_xinfo('hta_frequent_kernel_sequences');

-- FKS-3..7 on rank 0, default min_pattern_len 3: A+B group (gpu 180+170 ns, cpu 500+600 ns),
-- C has too few kernels, D is ordered by kernel ts, E keeps file order at the tie;
-- then trace 3 (same rank) on its own.
CREATE TEMP TABLE r1 AS SELECT rowid AS i, * FROM hta_frequent_kernel_sequences('aten::linear') WHERE rank = 0;
SELECT 'fks_01_rows', count(*) = 4 FROM temp.r1;
SELECT 'fks_02_order', group_concat(trace_id || ':' || pattern || ':' || count, ',') =
  '1:aten::linear|gemm|bias|relu:2,1:aten::linear|bias|gemm|relu:1,1:aten::linear|k_b|k_a|k_c:1,3:aten::linear|gemm|bias|relu:1'
  FROM (SELECT * FROM temp.r1 ORDER BY i);
SELECT 'fks_03_ab_gpu', abs(gpu_kernel_duration_us - 0.35) < 1e-12 FROM temp.r1 WHERE i = 1;
SELECT 'fks_04_ab_cpu', abs(cpu_op_duration_us - 1.1) < 1e-12 FROM temp.r1 WHERE i = 1;
SELECT 'fks_05_d', abs(gpu_kernel_duration_us - 0.18) < 1e-12 AND abs(cpu_op_duration_us - 0.45) < 1e-12 FROM temp.r1 WHERE i = 2;
SELECT 'fks_06_e', abs(gpu_kernel_duration_us - 0.03) < 1e-12 AND abs(cpu_op_duration_us - 0.1) < 1e-12 FROM temp.r1 WHERE i = 3;
SELECT 'fks_07_trace3', rank = 0 AND abs(gpu_kernel_duration_us - 0.006) < 1e-12 AND abs(cpu_op_duration_us - 0.7) < 1e-12 FROM temp.r1 WHERE i = 4;
SELECT 'fks_08_types', typeof(rank) || typeof(pattern) || typeof(count) || typeof(gpu_kernel_duration_us) || typeof(cpu_op_duration_us) || typeof(trace_id) = 'integertextintegerrealrealinteger' FROM temp.r1 WHERE i = 1;

-- FKS-3: min_pattern_len 2 lets C in (gemm 100 + bias 50, linear 300)
SELECT 'fks_10_minlen2', count(*) = 1 FROM hta_frequent_kernel_sequences('aten::linear', 2)
  WHERE rank = 0 AND trace_id = 1 AND pattern = 'aten::linear|gemm|bias' AND count = 1
    AND abs(gpu_kernel_duration_us - 0.15) < 1e-12 AND abs(cpu_op_duration_us - 0.3) < 1e-12;
SELECT 'fks_11_minlen2_rows', count(*) = 5 FROM hta_frequent_kernel_sequences('aten::linear', 2) WHERE rank = 0;
SELECT 'fks_12_minlen4', count(*) = 0 FROM hta_frequent_kernel_sequences('aten::linear', 4);
-- named parameters, and the hidden columns read back what was used (defaults included)
SELECT 'fks_13_named', count(*) = 5 FROM hta_frequent_kernel_sequences
  WHERE operator_name = 'aten::linear' AND min_pattern_len = 2 AND rank = 0;
SELECT 'fks_14_hidden', operator_name = 'aten::linear' AND min_pattern_len = 3 AND top_k = 5
  FROM hta_frequent_kernel_sequences('aten::linear') LIMIT 1;
SELECT 'fks_15_hidden_set', min_pattern_len = 2 AND top_k = 1
  FROM hta_frequent_kernel_sequences('aten::linear', 2, 1) LIMIT 1;
-- top_k never limits the rows (spec 2.6)
SELECT 'fks_16_topk', count(*) = 5 FROM hta_frequent_kernel_sequences('aten::linear', 2, 1) WHERE rank = 0;

-- FKS-3: the shallowest candidates decide: addmm (depth 1) in A, B (C too short)
SELECT 'fks_20_depth1', count(*) = 1 FROM hta_frequent_kernel_sequences('addmm')
  WHERE pattern = 'aten::addmm|gemm|bias|relu' AND count = 2
    AND abs(gpu_kernel_duration_us - 0.35) < 1e-12 AND abs(cpu_op_duration_us - 0.9) < 1e-12;
-- kernel names match too: the 'gemm' kernels are candidates at depths 3 (A, B, C) and 2
-- (D, launched by linear directly): min_depth 2 leaves D's gemm (100 ns), its own root
-- with one kernel, itself (pattern 'gemm|gemm')
SELECT 'fks_21_kernel_root', count(*) = 1 FROM hta_frequent_kernel_sequences('gemm', 1)
  WHERE trace_id = 1 AND pattern = 'gemm|gemm' AND count = 1
    AND abs(gpu_kernel_duration_us - 0.1) < 1e-12 AND abs(cpu_op_duration_us - 0.1) < 1e-12;
SELECT 'fks_22_kernel_root_minlen', count(*) = 0 FROM hta_frequent_kernel_sequences('gemm');
-- shallow fused::a has one kernel, so the deeper fused::b (3 kernels) is never reached
SELECT 'fks_23_shallow_wins', count(*) = 0 FROM hta_frequent_kernel_sequences('fused::');
SELECT 'fks_24_deeper_alone', count(*) = 1 FROM hta_frequent_kernel_sequences('fused::b')
  WHERE pattern = 'fused::b|fb1|fb2|fb3' AND count = 1 AND rank = 1;
-- an unlinked kernel (no depth) among the candidates makes min_depth -1: no rows
SELECT 'fks_25_unlinked', count(*) = 0 FROM hta_frequent_kernel_sequences('linear') WHERE rank = 1;
-- case-sensitive substring
SELECT 'fks_26_case', count(*) = 0 FROM hta_frequent_kernel_sequences('ATEN::LINEAR');

-- D14: stream-0 (AMD) kernels, sub-us durations 123 + 45 + 6 ns
SELECT 'fks_30_amd', count(*) = 1 FROM hta_frequent_kernel_sequences('my_linear') WHERE rank = 1
  AND trace_id = 2 AND pattern = 'my_linear|Cijk_gemm|elementwise|reduce' AND count = 1
  AND abs(gpu_kernel_duration_us - 0.174) < 1e-12 AND abs(cpu_op_duration_us - 0.9) < 1e-12;
-- FKS-1: rank filtering
SELECT 'fks_31_rank1', count(*) = 0 FROM hta_frequent_kernel_sequences('aten::linear') WHERE rank = 1;
SELECT 'fks_32_all_ranks', count(*) = 4 FROM hta_frequent_kernel_sequences('aten::linear');
SELECT 'fks_33_rank_null', count(*) = 0 FROM hta_frequent_kernel_sequences('aten::linear') WHERE rank = NULL;
SELECT 'fks_34_rank_text', count(*) = 4 FROM hta_frequent_kernel_sequences('aten::linear') WHERE rank = '0';
SELECT 'fks_35_rank_frac', count(*) = 0 FROM hta_frequent_kernel_sequences('aten::linear') WHERE rank = 0.5;
SELECT 'fks_36_rank_nomatch', count(*) = 0 FROM hta_frequent_kernel_sequences('aten::linear') WHERE rank = 7;
-- the operator name can come from another table (join)
SELECT 'fks_37_join', count(*) = 5 FROM (SELECT 'aten::linear' AS op, 2 AS n) o,
  hta_frequent_kernel_sequences(o.op, o.n) f WHERE f.rank = 0;
SELECT 'fks_38_join_multi', group_concat(o.op || '=' || f.count, ',') = 'addmm=2,my_linear=1'
  FROM (SELECT 'addmm' AS op UNION ALL SELECT 'my_linear') o, hta_frequent_kernel_sequences(o.op) f;

-- FKS-8: arguments
SELECT 'fks_40_empty', count(*) = 0 FROM hta_frequent_kernel_sequences('');
SELECT 'fks_41_nomatch', count(*) = 0 FROM hta_frequent_kernel_sequences('no such op');
SELECT 'fks_42_minlen_text_number', count(*) = 5 FROM hta_frequent_kernel_sequences('aten::linear', '2') WHERE rank = 0;
SELECT 'fks_43_minlen_zero', count(*) >= 5 FROM hta_frequent_kernel_sequences('aten::linear', 0) WHERE rank = 0;
-- min_pattern_len 0 admits a root without kernels: its pattern is its name alone
SELECT 'fks_43b_no_kernels', group_concat(pattern || ':' || count || ':' || gpu_kernel_duration_us || ':' || cpu_op_duration_us) = 'aten::mm:1:0.0:0.1'
  FROM hta_frequent_kernel_sequences('aten::mm', 0);
.shell sh -c "sqlite3 :memory: -cmd '.load $HTA_EXT' 'SELECT * FROM hta_frequent_kernel_sequences' 2>&1 | grep -qF 'hta_frequent_kernel_sequences: operator_name is required' && echo 'fks_44_err_required|1' || echo 'fks_44_err_required|0'"
.shell sh -c "sqlite3 :memory: -cmd '.load $HTA_EXT' 'SELECT * FROM hta_frequent_kernel_sequences WHERE min_pattern_len = 2' 2>&1 | grep -qF 'hta_frequent_kernel_sequences: operator_name is required' && echo 'fks_45_err_required_named|1' || echo 'fks_45_err_required_named|0'"
.shell sh -c "sqlite3 :memory: -cmd '.load $HTA_EXT' 'SELECT * FROM hta_frequent_kernel_sequences(NULL)' 2>&1 | grep -qF 'hta_frequent_kernel_sequences: operator_name must be a string' && echo 'fks_46_err_null|1' || echo 'fks_46_err_null|0'"
.shell sh -c "sqlite3 :memory: -cmd '.load $HTA_EXT' 'SELECT * FROM hta_frequent_kernel_sequences(char(97), -1)' 2>&1 | grep -qF 'hta_frequent_kernel_sequences: min_pattern_len must be a non-negative integer' && echo 'fks_47_err_minlen|1' || echo 'fks_47_err_minlen|0'"
.shell sh -c "sqlite3 :memory: -cmd '.load $HTA_EXT' 'SELECT * FROM hta_frequent_kernel_sequences(char(97), char(120))' 2>&1 | grep -qF 'hta_frequent_kernel_sequences: min_pattern_len must be a non-negative integer' && echo 'fks_48_err_minlen_text|1' || echo 'fks_48_err_minlen_text|0'"
.shell sh -c "sqlite3 :memory: -cmd '.load $HTA_EXT' 'SELECT * FROM hta_frequent_kernel_sequences(char(97), 3, 1.5)' 2>&1 | grep -qF 'hta_frequent_kernel_sequences: top_k must be a non-negative integer' && echo 'fks_49_err_topk|1' || echo 'fks_49_err_topk|0'"

-- The same answers through the event_parent index (hta-ingest builds it from
-- schema/indexes.sql; this database has schema.sql only, so everything above took the
-- in-memory walk). With the index, trace 1 (39 rows, a budget of 4 rows for the index
-- walk) walks A through the index and switches to the in-memory walk from B on.
CREATE TEMP TABLE q(op, n);
INSERT INTO temp.q VALUES ('aten::linear', 0), ('aten::mm', 0), ('aten::linear', 2), ('aten::linear', 3), ('addmm', 3),
  ('gemm', 1), ('fused::', 3), ('fused::b', 3), ('linear', 3), ('my_linear', 3);
CREATE TEMP TABLE noidx AS SELECT q.op, q.n, f.rowid AS i, f.* FROM temp.q, hta_frequent_kernel_sequences(q.op, q.n) f;
CREATE INDEX event_parent ON event(parent_id) WHERE parent_id IS NOT NULL;
CREATE TEMP TABLE withidx AS SELECT q.op, q.n, f.rowid AS i, f.* FROM temp.q, hta_frequent_kernel_sequences(q.op, q.n) f;
SELECT 'fks_50_index_rows', (SELECT count(*) FROM temp.noidx) = (SELECT count(*) FROM temp.withidx)
  AND (SELECT count(*) FROM temp.noidx) >= 15;
SELECT 'fks_51_index_same', count(*) = 0 FROM (
  SELECT op, n, i, rank, pattern, count, gpu_kernel_duration_us, cpu_op_duration_us, trace_id FROM temp.noidx
  EXCEPT
  SELECT op, n, i, rank, pattern, count, gpu_kernel_duration_us, cpu_op_duration_us, trace_id FROM temp.withidx);
-- a large budget (one root at a time): every subtree through the index
UPDATE trace SET event_count = 1000000;
CREATE TEMP TABLE idxonly AS SELECT q.op, q.n, f.rowid AS i, f.* FROM temp.q, hta_frequent_kernel_sequences(q.op, q.n) f;
SELECT 'fks_52_index_only_same', count(*) = 0 FROM (
  SELECT op, n, i, rank, pattern, count, gpu_kernel_duration_us, cpu_op_duration_us, trace_id FROM temp.noidx
  EXCEPT
  SELECT op, n, i, rank, pattern, count, gpu_kernel_duration_us, cpu_op_duration_us, trace_id FROM temp.idxonly);
