-- hta_job_diff_summary's splits read from hta_findings (ext/diff/job_diff_account.c JSA-n)
-- on two small runs written here. Times in us below, stored as ns; host thread 1, compute
-- stream 7; each launch's kernel linked by its correlation id.
-- Both runs: ProfilerStep#1 [0,250) on the host; its step reaches to the end of the GPU work
-- it launched (the plugin's device window, tb_steps.c TV-4, and the accounting's,
-- fd_steps.c FS-4, agree here: other_steps is 0 on both sides).
--   'a' (control): L1 [0,5) K1 [5,105); L2 [10,15) K2 [105,205); L3 [20,25) K3 [205,305).
--      The host is ahead: step 305, busy 300, idle [0,5) = the first launch call
--      (gpu_waits_for_host 5).
--   'b' (test): K2 is 10 us shorter, [105,195); a cudaStreamSynchronize [20,195) drains the
--      queue (FA-6), the host launches K3 only at L3 [230,235), K3 [235,335): the idle
--      [195,235) is the sync's (host_sync 40). Step 335, busy 290, idle 5 + 40.
--   Step difference +30 us = busy -10 + host_sync +40.
-- Findings (hta_findings): host_sync appears in b (40 us of 335); gpu_waits_for_host costs
-- 5 us on both sides (left out: the same cost).
--   'c': b with K3 launched 10 us later (L3 [240,245), K3 [245,345)): host_sync 50, step 345.
--   'd': three steps [0,100), [100,200), [200,1200), each launching one 45 us kernel 5 us in
--      (L [s,s+5), K [s+5,s+50)). The plugin's step is their mean, 400 us; the accounting
--      analyses #1 and #2 (the last step is cut in every analysis but the plugin's: spec
--      1.13): 100 us, busy 45. other_steps = 400 - 100 = 300 us (JSA-3).
INSERT INTO job(job_id, name) VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd');
INSERT INTO trace(trace_id, job_id, rank, rank_source, file_name, file_size, content_hash, event_count, device_type)
VALUES (1, 1, 0, 'distributedInfo', 'a.json', 0, 'ha', 0, 'NVIDIA GPU'),
       (2, 2, 0, 'distributedInfo', 'b.json', 0, 'hb', 0, 'NVIDIA GPU'),
       (3, 3, 0, 'distributedInfo', 'c.json', 0, 'hc', 0, 'NVIDIA GPU'),
       (4, 4, 0, 'distributedInfo', 'd.json', 0, 'hd', 0, 'NVIDIA GPU');
CREATE TEMP TABLE ev(t, seq, cat, name, ts, dur, corr);
INSERT INTO temp.ev VALUES
  (1, 1, 'user_annotation', 'ProfilerStep#1', 0, 250, NULL),
  (1, 2, 'cuda_runtime', 'cudaLaunchKernel', 0, 5, 1),
  (1, 3, 'kernel', 'k1', 5, 100, 1),
  (1, 4, 'cuda_runtime', 'cudaLaunchKernel', 10, 5, 2),
  (1, 5, 'kernel', 'k2', 105, 100, 2),
  (1, 6, 'cuda_runtime', 'cudaLaunchKernel', 20, 5, 3),
  (1, 7, 'kernel', 'k3', 205, 100, 3),
  (2, 1, 'user_annotation', 'ProfilerStep#1', 0, 250, NULL),
  (2, 2, 'cuda_runtime', 'cudaLaunchKernel', 0, 5, 1),
  (2, 3, 'kernel', 'k1', 5, 100, 1),
  (2, 4, 'cuda_runtime', 'cudaLaunchKernel', 10, 5, 2),
  (2, 5, 'kernel', 'k2', 105, 90, 2),
  (2, 6, 'cuda_runtime', 'cudaStreamSynchronize', 20, 175, NULL),
  (2, 7, 'cuda_runtime', 'cudaLaunchKernel', 230, 5, 3),
  (2, 8, 'kernel', 'k3', 235, 100, 3),
  (4, 1, 'user_annotation', 'ProfilerStep#1', 0, 100, NULL),
  (4, 2, 'cuda_runtime', 'cudaLaunchKernel', 0, 5, 1),
  (4, 3, 'kernel', 'k', 5, 45, 1),
  (4, 4, 'user_annotation', 'ProfilerStep#2', 100, 100, NULL),
  (4, 5, 'cuda_runtime', 'cudaLaunchKernel', 100, 5, 2),
  (4, 6, 'kernel', 'k', 105, 45, 2),
  (4, 7, 'user_annotation', 'ProfilerStep#3', 200, 1000, NULL),
  (4, 8, 'cuda_runtime', 'cudaLaunchKernel', 200, 5, 3),
  (4, 9, 'kernel', 'k', 205, 45, 3);
INSERT INTO temp.ev SELECT 3, seq, cat, name, ts + CASE WHEN seq >= 7 THEN 10 ELSE 0 END, dur, corr
  FROM temp.ev WHERE t = 2; -- c: b with L3 and K3 10 us later
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, stream,
                  correlation, link_id, iteration)
SELECT (t << 32) | seq, t, 0, seq, 'X', (SELECT category_id FROM category WHERE name = cat),
       (SELECT string_id FROM string WHERE value = name),
       CASE WHEN cat = 'kernel' THEN 0 ELSE 1 END, CASE WHEN cat = 'kernel' THEN 7 ELSE 1 END,
       ts * 1000, dur * 1000, CASE WHEN cat = 'kernel' THEN 7 END, corr,
       (SELECT (t << 32) | o.seq FROM temp.ev o WHERE o.t = ev.t AND o.corr = ev.corr AND o.seq <> ev.seq),
       CASE WHEN cat <> 'kernel' THEN 1 + (ts >= 100 AND t = 4) + (ts >= 200 AND t = 4) END
FROM temp.ev;
INSERT INTO profiler_step(trace_id, step, event_id, ts, dur)
SELECT t, CAST(substr(name, 14) AS INTEGER), (t << 32) | seq, ts * 1000, dur * 1000 FROM temp.ev
 WHERE name LIKE 'ProfilerStep#%';
UPDATE trace SET event_count = (SELECT count(*) FROM event e WHERE e.trace_id = trace.trace_id),
  min_ts = (SELECT min(ts) FROM event e WHERE e.trace_id = trace.trace_id),
  max_end = (SELECT max(ts + dur) FROM event e WHERE e.trace_id = trace.trace_id);
CREATE TEMP TABLE s AS SELECT * FROM hta_job_diff_summary('a', 'b');

-- JSA-2: busy and the idle causes per step, by hand (ns), parts 0 on both sides left out
SELECT 'jsa_01_idle', group_concat(part || ':' || control_ns || ':' || test_ns || ':' || delta_ns, ' ') =
  'busy:300000:290000:-10000 host_sync:0:40000:40000 gpu_waits_for_host:5000:5000:0'
  FROM temp.s WHERE split = 'idle';
-- JSA-3: each side's parts add up to its step (JS-1), their deltas to the step difference
SELECT 'jsa_02_exact', sum(control_ns) = 305000 AND sum(test_ns) = 335000 AND sum(delta_ns) = 30000
  AND abs(sum(share) - 1.0) < 1e-12
  AND sum(delta_ns) = (SELECT delta_ns FROM temp.s WHERE split = 'role' AND part = 'step')
  FROM temp.s WHERE split = 'idle';
-- JSA-4: a finding in the test run only appeared: no control cost, its delta its cost; the
-- gpu_waits_for_host finding costs 5 us on both sides: left out; the summary row 'step' never
SELECT 'jsa_03_appeared', group_concat(part || ':' || coalesce(control_ns, 'null') || ':' || test_ns
  || ':' || delta_ns || ':' || control_count || ':' || test_count || ':' || change, ' ') =
  'host_sync:null:40000:40000:0:1:appeared' FROM temp.s WHERE split = 'finding';
SELECT 'jsa_04_disappeared', group_concat(part || ':' || control_ns || ':' || coalesce(test_ns, 'null')
  || ':' || delta_ns || ':' || change, ' ') = 'host_sync:40000:null:-40000:disappeared'
  FROM hta_job_diff_summary('b', 'a') WHERE split = 'finding';
SELECT 'jsa_05_changed', group_concat(part || ':' || control_ns || ':' || test_ns || ':' || delta_ns
  || ':' || change, ' ') = 'host_sync:40000:50000:10000:changed'
  FROM hta_job_diff_summary('b', 'c') WHERE split = 'finding';
-- the same run against itself: no idle delta, no finding row
SELECT 'jsa_06_self', (SELECT count(*) FROM hta_job_diff_summary('b', 'b') WHERE split = 'finding') = 0
  AND (SELECT count(*) = 3 AND sum(abs(delta_ns)) = 0 FROM hta_job_diff_summary('b', 'b') WHERE split = 'idle');
-- JSA-3: the plugin's mean step of d is 400 us, the accounting's 100 us (two steps analysed,
-- busy 45): other_steps holds the 300 us between them; the parts still add up exactly
CREATE TEMP TABLE sd AS SELECT * FROM hta_job_diff_summary('d', 'a');
SELECT 'jsa_07_other_steps', (SELECT control_ns = 400000 AND control_count = 3 FROM temp.sd
    WHERE split = 'role' AND part = 'step')
  AND (SELECT control_ns = 300000 AND test_ns = 0 FROM temp.sd WHERE split = 'idle' AND part = 'other_steps')
  AND (SELECT control_ns = 45000 FROM temp.sd WHERE split = 'idle' AND part = 'busy')
  AND (SELECT sum(control_ns) = 400000 AND sum(test_ns) = 305000 AND sum(delta_ns) = -95000
       FROM temp.sd WHERE split = 'idle');
-- the columns: change is the last (the findings' rows say what happened to them)
SELECT 'jsa_08_columns', (SELECT group_concat(name, ',') FROM pragma_table_info('hta_job_diff_summary')) =
  'part,control_us,test_us,delta_us,split,control_ns,test_ns,delta_ns,control_count,test_count,share,control_trace_id,test_trace_id,change';
-- rows: role, idle, finding, then operator
SELECT 'jsa_09_order', group_concat(split, ',') = 'role,idle,finding,operator'
  FROM (SELECT split FROM temp.s GROUP BY split ORDER BY min(rowid));
-- WHERE split = 'x' computes only that split (and the step): the same rows as the whole
-- answer filtered (+split: a filter SQLite keeps to itself)
CREATE TEMP TABLE splits(x);
INSERT INTO temp.splits VALUES ('role'), ('idle'), ('finding'), ('operator'), ('nope');
SELECT 'jsa_10_split_eq', count(*) = 5 AND sum(pushed IS whole) = 5 FROM (SELECT x,
    (SELECT group_concat(part || ':' || coalesce(control_ns, '') || ':' || coalesce(test_ns, ''), ' ')
       FROM hta_job_diff_summary('a', 'b') WHERE split = x) AS pushed,
    (SELECT group_concat(part || ':' || coalesce(control_ns, '') || ':' || coalesce(test_ns, ''), ' ')
       FROM hta_job_diff_summary('a', 'b') WHERE +split = x) AS whole FROM temp.splits);
SELECT 'jsa_11_split_rows', (SELECT count(*) FROM hta_job_diff_summary('a', 'b') WHERE split = 'finding') = 1
  AND (SELECT count(*) FROM hta_job_diff_summary('a', 'b') WHERE split = 'role') = 4
  AND (SELECT count(*) FROM hta_job_diff_summary('a', 'b') WHERE split = 'nope') = 0
  AND (SELECT group_concat(part) FROM hta_job_diff_summary('a', 'b') WHERE split = 'idle')
    = 'busy,host_sync,gpu_waits_for_host';
