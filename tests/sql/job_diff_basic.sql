-- hta_job_diff and hta_job_diff_summary on two small runs written by hand (ext/diff/:
-- job_diff.c JD-n, job_diff_summary.c JS-n). Job 'a' (control, trace 1) and job 'b'
-- (test, trace 2): host thread 1, GPU stream 7; times ns. Each launch's kernel is linked by
-- the correlation id (link_id). What changed from a to b:
--   * an inserted layer: aten::addmm now runs inside aten::wrapper (under aten::linear)
--   * a kernel that got slower: gemm 5 us -> 8 us
--   * a removed op: the root aten::zero_ (between aten::add and aten::mul) is gone
--   * a reordered pair: the roots aten::sub, aten::div ran in the other order
-- Both runs: one step, ProfilerStep#1 over [0, 1000) us.
CREATE TEMP TABLE ev(t, seq, cat, name, ts, dur, corr);
INSERT INTO job(job_id, name, source, created_at) VALUES (1, 'a', 'a', 0), (2, 'b', 'b', 0);
INSERT INTO trace(trace_id, job_id, rank, rank_source, file_name, file_size, content_hash,
                  event_count, min_ts, max_end)
VALUES (1, 1, 0, 'distributedInfo', 'a.json', 0, 'ha', 0, 0, 1000000),
       (2, 2, 0, 'distributedInfo', 'b.json', 0, 'hb', 0, 0, 1000000);
INSERT INTO temp.ev VALUES
  (1, 1, 'user_annotation', 'ProfilerStep#1', 0, 1000000, NULL),
  (1, 2, 'cpu_op', 'aten::linear', 10000, 100000, NULL),
  (1, 3, 'cpu_op', 'aten::addmm', 11000, 20000, NULL),
  (1, 4, 'cuda_runtime', 'cudaLaunchKernel', 12000, 500, 1),
  (1, 5, 'kernel', 'gemm', 20000, 5000, 1),
  (1, 6, 'cpu_op', 'aten::relu', 40000, 10000, NULL),
  (1, 7, 'cuda_runtime', 'cudaLaunchKernel', 41000, 500, 2),
  (1, 8, 'kernel', 'relu_k', 42000, 1000, 2),
  (1, 9, 'cpu_op', 'aten::add', 200000, 10000, NULL),
  (1, 10, 'cuda_runtime', 'cudaLaunchKernel', 201000, 500, 3),
  (1, 11, 'kernel', 'add_k', 202000, 2000, 3),
  (1, 12, 'cpu_op', 'aten::zero_', 300000, 10000, NULL),
  (1, 13, 'cuda_runtime', 'cudaMemsetAsync', 301000, 500, 4),
  (1, 14, 'gpu_memset', 'Memset (Device)', 302000, 1000, 4),
  (1, 15, 'cpu_op', 'aten::mul', 400000, 10000, NULL),
  (1, 16, 'cuda_runtime', 'cudaLaunchKernel', 401000, 500, 5),
  (1, 17, 'kernel', 'mul_k', 402000, 1000, 5),
  (1, 18, 'cpu_op', 'aten::sub', 500000, 10000, NULL),
  (1, 19, 'cuda_runtime', 'cudaLaunchKernel', 501000, 500, 6),
  (1, 20, 'kernel', 'sub_k', 502000, 1000, 6),
  (1, 21, 'cpu_op', 'aten::div', 600000, 10000, NULL),
  (1, 22, 'cuda_runtime', 'cudaLaunchKernel', 601000, 500, 7),
  (1, 23, 'kernel', 'div_k', 602000, 3000, 7),
  (2, 1, 'user_annotation', 'ProfilerStep#1', 0, 1000000, NULL),
  (2, 2, 'cpu_op', 'aten::linear', 10000, 100000, NULL),
  (2, 3, 'cpu_op', 'aten::wrapper', 10500, 25000, NULL),
  (2, 4, 'cpu_op', 'aten::addmm', 11000, 20000, NULL),
  (2, 5, 'cuda_runtime', 'cudaLaunchKernel', 12000, 500, 1),
  (2, 6, 'kernel', 'gemm', 20000, 8000, 1),
  (2, 7, 'cpu_op', 'aten::relu', 40000, 10000, NULL),
  (2, 8, 'cuda_runtime', 'cudaLaunchKernel', 41000, 500, 2),
  (2, 9, 'kernel', 'relu_k', 42000, 1000, 2),
  (2, 10, 'cpu_op', 'aten::add', 200000, 10000, NULL),
  (2, 11, 'cuda_runtime', 'cudaLaunchKernel', 201000, 500, 3),
  (2, 12, 'kernel', 'add_k', 202000, 2000, 3),
  (2, 13, 'cpu_op', 'aten::mul', 400000, 10000, NULL),
  (2, 14, 'cuda_runtime', 'cudaLaunchKernel', 401000, 500, 5),
  (2, 15, 'kernel', 'mul_k', 402000, 1000, 5),
  (2, 16, 'cpu_op', 'aten::div', 500000, 10000, NULL),
  (2, 17, 'cuda_runtime', 'cudaLaunchKernel', 501000, 500, 7),
  (2, 18, 'kernel', 'div_k', 502000, 3000, 7),
  (2, 19, 'cpu_op', 'aten::sub', 600000, 10000, NULL),
  (2, 20, 'cuda_runtime', 'cudaLaunchKernel', 601000, 500, 6),
  (2, 21, 'kernel', 'sub_k', 602000, 1000, 6);
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur,
                  stream, correlation, link_id)
SELECT (t << 32) | seq, t, 0, seq, 'X', (SELECT category_id FROM category WHERE name = cat),
       (SELECT string_id FROM string WHERE value = name),
       CASE WHEN cat IN ('kernel', 'gpu_memset') THEN 0 ELSE 1 END,
       CASE WHEN cat IN ('kernel', 'gpu_memset') THEN 7 ELSE 1 END, ts, dur,
       CASE WHEN cat IN ('kernel', 'gpu_memset') THEN 7 END, corr,
       (SELECT (t << 32) | o.seq FROM temp.ev o WHERE o.t = ev.t AND o.corr = ev.corr AND o.seq <> ev.seq)
FROM temp.ev;
CREATE TEMP TABLE d AS SELECT * FROM hta_job_diff('a', 'b');

-- JD-7: the merged tree in pre-order, node by node (control seq / test seq, match); under
-- aten::linear, phase 3 keeps relu's match first and re-aligns addmm after it
SELECT 'jd_01_tree', group_concat(node_id || ':' || coalesce(parent_node_id, '-') || ':' ||
  coalesce(control_seq, '-') || '/' || coalesce(test_seq, '-') || ':' || match, ' ') =
  '0:-:2/2:matched 1:0:6/7:matched 2:1:7/8:matched 3:2:8/9:matched 4:0:3/4:matched 5:4:4/5:matched 6:5:5/6:matched '
  || '7:-:9/10:matched 8:7:10/11:matched 9:8:11/12:matched '
  || '10:-:12/-:control_only 11:10:13/-:control_only 12:11:14/-:control_only '
  || '13:-:15/13:matched 14:13:16/14:matched 15:14:17/15:matched '
  || '16:-:18/19:matched 17:16:19/20:matched 18:17:20/21:matched '
  || '19:-:21/16:matched 20:19:22/17:matched 21:20:23/18:matched'
  FROM (SELECT * FROM temp.d ORDER BY node_id);
-- JD-5 phase 3 with JD-e: the inserted layer aten::wrapper is skipped, addmm matched with addmm
SELECT 'jd_02_wrapper', (SELECT count(*) FROM temp.d WHERE test_name = 'aten::wrapper') = 0
  AND (SELECT match FROM temp.d WHERE control_seq = 3) = 'matched'
  AND (SELECT test_seq FROM temp.d WHERE control_seq = 3) = 4;
-- JD-8: the slower kernel's pair is a comparison point: 5 -> 8 us
SELECT 'jd_03_slower', is_comparison_point = 1 AND point_control_us = 5.0 AND point_test_us = 8.0
  AND point_delta_us = 3.0 AND control_kernel_us = 5.0 AND test_kernel_us = 8.0 AND delta_us = 3.0
  AND point_seqs = '{"control": [5], "test": [6]}'
  FROM temp.d WHERE control_seq = 5;
-- JD-2: aten::linear's subtree: gemm + relu_k = 6 us before, 9 us after, two kernels each
SELECT 'jd_04_subtree', control_kernels = 2 AND test_kernels = 2 AND control_kernel_us = 6.0
  AND test_kernel_us = 9.0 AND control_busy_us = 6.0 AND test_busy_us = 9.0
  AND control_host_us = 100.0 AND control_kind = 'cpu_op' AND is_comparison_point = 0
  FROM temp.d WHERE control_seq = 2;
-- JD-4, JD-8: the removed root is one-sided and its own comparison point (1 us of memset)
SELECT 'jd_05_removed', match = 'control_only' AND parent_node_id IS NULL AND is_comparison_point = 1
  AND point_control_kernels = 1 AND point_test_kernels = 0 AND point_control_us = 1.0
  AND point_delta_us = -1.0 FROM temp.d WHERE control_seq = 12;
-- JD-4: the reordered roots are matched with their own names (moved), not by position
SELECT 'jd_06_reordered', group_concat(name || ':' || match, ' ') = 'aten::sub:matched aten::div:matched'
  FROM (SELECT * FROM temp.d WHERE depth = 0 AND control_seq IN (18, 21) ORDER BY node_id);
-- JD-9: every GPU event is compared once: 7 + 6 events at the comparison points
SELECT 'jd_07_every_gpu', sum(point_control_kernels) = 7 AND sum(point_test_kernels) = 6
  AND sum(point_control_us) = 14.0 AND sum(point_test_us) = 16.0
  FROM temp.d WHERE is_comparison_point;
-- JD-8: kernel pairs are the comparison points here (launches matched by name)
SELECT 'jd_08_points', group_concat(name, ' ') = 'relu_k gemm add_k aten::zero_ mul_k sub_k div_k'
  FROM (SELECT name FROM temp.d WHERE is_comparison_point ORDER BY node_id);
-- the hidden parameters read back what was used
SELECT 'jd_09_params', control_job = 'a' AND test_job = 'b' AND control_rank = 0 AND test_rank = 0
  AND control_schema = 'main' AND test_schema = 'main'
  FROM hta_job_diff('a', 'b') LIMIT 1;
-- defaults: the first and the last job
SELECT 'jd_10_defaults', (SELECT count(*) FROM hta_job_diff) = (SELECT count(*) FROM temp.d);

-- JS-1, JS-2: one step of 1000 us on each side; the roles by hand (us):
--   a: Kernel 13 (gemm 5, relu 1, add 2, mul 1, sub 1, div 3), Memset 1, Runtime 7 x 0.5,
--      CPU Exec 150 of operators - 14 under GPU work - 3.5 of launches = 132.5, Other 850
--   b: Kernel 16, Runtime 3.0, CPU Exec 140 - 16 - 3 = 121, Other 860
CREATE TEMP TABLE s AS SELECT * FROM hta_job_diff_summary('a', 'b');
SELECT 'js_01_step', control_us = 1000.0 AND test_us = 1000.0 AND delta_ns = 0
  AND control_count = 1 AND test_count = 1 FROM temp.s WHERE split = 'role' AND part = 'step';
SELECT 'js_02_roles', group_concat(part || ':' || control_us || ':' || test_us || ':' || delta_us, ' ') =
  'Kernel: COMPUTATION:13.0:16.0:3.0 Memset:1.0:0.0:-1.0 Runtime:3.5:3.0:-0.5 CPU Exec:132.5:121.0:-11.5 Other:850.0:860.0:10.0'
  FROM temp.s WHERE split = 'role' AND part <> 'step';
-- the parts add up exactly to the step (and their deltas to its difference)
SELECT 'js_03_exact', sum(control_ns) = 1000000 AND sum(test_ns) = 1000000 AND sum(delta_ns) = 0
  FROM temp.s WHERE split = 'role' AND part <> 'step';
-- JS-3: per operator, by |delta| then name
SELECT 'js_04_operators', group_concat(part || ':' || control_us || ':' || test_us || ':' ||
  control_count || ':' || test_count, ' ') =
  'aten::addmm:5.0:8.0:1:1 aten::zero_:1.0:0.0:1:0 aten::add:2.0:2.0:1:1 aten::div:3.0:3.0:1:1 aten::mul:1.0:1.0:1:1 aten::relu:1.0:1.0:1:1 aten::sub:1.0:1.0:1:1'
  FROM temp.s WHERE split = 'operator';
-- JS-4: shares of the step difference are NULL when it is 0
SELECT 'js_05_share', count(share) = 0 FROM temp.s;

-- JS-2 exactness on uneven steps: job 'c' has two steps, [0, 10001) and [10001, 20002) ns,
-- each with a launch (500 ns) and a kernel (1001, then 1000 ns): over the steps Kernel 2001,
-- Runtime 1000, Other 17001 ns. Per step: 20002 / 2 = 10001 ns, and the parts 1000.5, 500,
-- 8500.5 rounded down (10000 ns) get the 1 ns left to the first largest remainder (Kernel);
-- Memset and CPU Exec are listed for job a's sake
INSERT INTO job(job_id, name, source, created_at) VALUES (3, 'c', 'c', 0);
INSERT INTO trace(trace_id, job_id, rank, rank_source, file_name, file_size, content_hash,
                  event_count, min_ts, max_end)
VALUES (3, 3, 0, 'distributedInfo', 'c.json', 0, 'hc', 0, 0, 20002);
INSERT INTO string(value) VALUES ('ProfilerStep#2');
DELETE FROM temp.ev;
INSERT INTO temp.ev VALUES
  (3, 1, 'user_annotation', 'ProfilerStep#1', 0, 10001, NULL),
  (3, 2, 'cuda_runtime', 'cudaLaunchKernel', 1000, 500, 1),
  (3, 3, 'kernel', 'gemm', 2000, 1001, 1),
  (3, 4, 'user_annotation', 'ProfilerStep#2', 10001, 10001, NULL),
  (3, 5, 'cuda_runtime', 'cudaLaunchKernel', 11000, 500, 2),
  (3, 6, 'kernel', 'gemm', 12000, 1000, 2);
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur,
                  stream, correlation, link_id)
SELECT (t << 32) | seq, t, 0, seq, 'X', (SELECT category_id FROM category WHERE name = cat),
       (SELECT string_id FROM string WHERE value = name), CASE WHEN cat = 'kernel' THEN 0 ELSE 1 END,
       CASE WHEN cat = 'kernel' THEN 7 ELSE 1 END, ts, dur, CASE WHEN cat = 'kernel' THEN 7 END, corr,
       (SELECT (t << 32) | o.seq FROM temp.ev o WHERE o.t = ev.t AND o.corr = ev.corr AND o.seq <> ev.seq)
FROM temp.ev;
SELECT 'js_06_uneven', group_concat(part || ':' || control_ns, ' ') =
  'step:10001 Kernel: COMPUTATION:1001 Memset:0 Runtime:500 CPU Exec:0 Other:8500'
  FROM hta_job_diff_summary('c', 'a') WHERE split = 'role';
SELECT 'js_07_uneven_sum', sum(control_ns) = 10001 AND sum(delta_ns) = 1000000 - 10001
  FROM hta_job_diff_summary('c', 'a') WHERE split = 'role' AND part <> 'step';
SELECT 'js_08_share', abs(sum(share) - 1.0) < 1e-12
  FROM hta_job_diff_summary('c', 'a') WHERE split = 'role' AND part <> 'step';
-- JSA-3 (job_diff_account.c): the 'idle' split adds up to the same step difference, exactly
SELECT 'js_09_idle_sum', (SELECT sum(delta_ns) FROM hta_job_diff_summary('c', 'a') WHERE split = 'idle')
  = 1000000 - 10001 AND (SELECT sum(control_ns) = 10001 FROM hta_job_diff_summary('c', 'a') WHERE split = 'idle')
  AND (SELECT sum(delta_ns) FROM hta_job_diff_summary('a', 'b') WHERE split = 'idle') = 0;

-- errors name the function and the parameter (on a copy: the message sees the data)
ATTACH 'job_diff_copy.db' AS cp;
CREATE TABLE cp.job AS SELECT * FROM main.job;
CREATE TABLE cp.trace AS SELECT * FROM main.trace;
CREATE TABLE cp.event AS SELECT * FROM main.event;
CREATE TABLE cp.string AS SELECT * FROM main.string;
CREATE TABLE cp.category AS SELECT * FROM main.category;
DETACH cp;
.shell sh -c "sqlite3 job_diff_copy.db -cmd '.load $HTA_EXT' 'SELECT * FROM hta_job_diff(char(97), char(110, 111, 112, 101))' 2>&1 | grep -F 'hta_job_diff: test_job ' | grep -qF 'is not a job of schema main' && echo 'jd_11_err_job|1' || echo 'jd_11_err_job|0'"
.shell sh -c "sqlite3 job_diff_copy.db -cmd '.load $HTA_EXT' 'SELECT * FROM hta_job_diff(char(97), char(98), 3)' 2>&1 | grep -qF 'hta_job_diff: control_rank 3 is not a rank of job' && echo 'jd_12_err_rank|1' || echo 'jd_12_err_rank|0'"
.shell sh -c "sqlite3 job_diff_copy.db -cmd '.load $HTA_EXT' 'SELECT * FROM hta_job_diff_summary(char(97), char(98), 0.5)' 2>&1 | grep -qF 'hta_job_diff_summary: control_rank must be an integer' && echo 'jd_13_err_type|1' || echo 'jd_13_err_type|0'"
.shell sh -c "sqlite3 job_diff_copy.db -cmd '.load $HTA_EXT' 'SELECT * FROM hta_job_diff(char(97), char(98), 0, 0, char(120))' 2>&1 | grep -qF 'hta_job_diff: ' && echo 'jd_14_err_schema|1' || echo 'jd_14_err_schema|0'"
.shell sh -c "sqlite3 job_diff_copy.db -cmd '.load $HTA_EXT' 'SELECT * FROM hta_job_diff(1)' 2>&1 | grep -qF 'hta_job_diff: control_job must be a job name' && echo 'jd_15_err_jobtype|1' || echo 'jd_15_err_jobtype|0'"
