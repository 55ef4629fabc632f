-- The memory analyses (memory.c MEM-n) on the odd cases: no records at all, the job's
-- origin in another rank, text tids, zero-length and negative-length operators, a
-- same-name chain of three, an operator inside a DataLoader range, unknown and missing
-- device types, missing or non-integral args, invalid JSON, 0-byte records, the last
-- ProfilerStep (kept), and a second job.
INSERT INTO job(job_id, name) VALUES (1, 'a'), (2, 'b');
INSERT INTO trace(trace_id, job_id, rank, rank_source, file_name, file_size, content_hash, event_count, min_ts, max_end)
VALUES (1, 1, 0, 'distributedInfo', 'r0.json', 0, 'h1', 0, 1000, 7000),
       (2, 1, 1, 'distributedInfo', 'r1.json', 0, 'h2', 0, 100, 150);
-- no [memory] string in the database yet: no rows anywhere
SELECT 'memedge_01_none', (SELECT count(*) FROM hta_memory_timeline) + (SELECT count(*) FROM hta_memory_summary)
  + (SELECT count(*) FROM hta_memory_by_operator) + (SELECT count(*) FROM hta_memory_allocations) = 0;

-- Trace 2 (rank 1) has only aten::early at 100 ns: the job's origin, so ts_us = (ts - 100) / 1000.
-- Trace 1 (rank 0), operators:
--   thread 'main' (text): P aten::p [1000, 2000) > Z aten::zero [1500, 1500), N aten::neg at 1600, dur -5
--   thread '7' (text; the records say 7): C1 aten::c [3000, 3900) > C2 [3100, 3800) > C3 [3200, 3700)
--     (a chain of only children of one name: one call, MEM-6)
--   thread 7: L enumerate(DataLoader)#...__next__ [5000, 6000) (no operator, MEM-5) > I aten::in_loader [5100, 5200)
-- ProfilerStep 1 = [1000, 5000), 2 = [5000, 7000) (the last step: kept, MEM-1).
-- Records:
--   r11 1500 'main' GPU0 addr 10 +100 TA 100 TR 200   P (Z is zero-length: holds nothing)
--   r12 1600 'main' GPU0 addr 10 0 B  TA 100 TR 200   P (N zero-length); a 0-byte record frees addr 10
--   r13 1700 'other' GPU0 addr 20 0 B (no totals)     no operator (thread without operators); frees
--                                                      an address never allocated
--   r14 3300 7 type 13 id 0 addr 30 +64 TA 64 TR 64   C3: aten::c; device DEVICE13:0
--   r15 3400 7 no Device Type, addr 40, +8            C3; device NULL (a nested "Device Type" does
--                                                    not count; the first of two "Bytes" does)
--   r16 3500 7 type 1 without Device Id, addr 50, Bytes 1.5 (not an integer: NULL, counts as 0)   C3; device GPU
--   r17 5150 7 CPU (Device Id 3 ignored) addr 60 +16 TA 16 TR 0   I: aten::in_loader, step 2
--   r18 5500 7 args not JSON: every arg NULL          L: no operator (no fallback), device NULL, step 2
CREATE TEMP TABLE ev(t, seq, ph, cat, name, tid, ts, dur, it, args);
INSERT INTO temp.ev VALUES
  (2, 1, 'X', 'cpu_op', 'aten::early', 1, 100, 50, NULL, NULL),
  (1, 1, 'X', 'cpu_op', 'aten::p', 'main', 1000, 1000, 1, NULL),
  (1, 2, 'X', 'cpu_op', 'aten::zero', 'main', 1500, 0, 1, NULL),
  (1, 3, 'X', 'cpu_op', 'aten::neg', 'main', 1600, -5, 1, NULL),
  (1, 4, 'X', 'cpu_op', 'aten::c', '7', 3000, 900, 1, NULL),
  (1, 5, 'X', 'cpu_op', 'aten::c', '7', 3100, 700, 1, NULL),
  (1, 6, 'X', 'cpu_op', 'aten::c', '7', 3200, 500, 1, NULL),
  (1, 7, 'X', 'cpu_op', 'enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__', 7, 5000, 1000, 2, NULL),
  (1, 8, 'X', 'cpu_op', 'aten::in_loader', 7, 5100, 100, 2, NULL),
  (1, 9, 'X', 'user_annotation', 'ProfilerStep#1', 7, 1000, 4000, 1, NULL),
  (1, 10, 'X', 'user_annotation', 'ProfilerStep#2', 7, 5000, 2000, 2, NULL),
  (1, 11, 'i', 'cpu_instant_event', '[memory]', 'main', 1500, NULL, 1,
   '{"Device Type": 1, "Device Id": 0, "Addr": 10, "Bytes": 100, "Total Allocated": 100, "Total Reserved": 200}'),
  (1, 12, 'i', 'cpu_instant_event', '[memory]', 'main', 1600, NULL, 1,
   '{"Device Type": 1, "Device Id": 0, "Addr": 10, "Bytes": 0, "Total Allocated": 100, "Total Reserved": 200}'),
  (1, 13, 'i', 'cpu_instant_event', '[memory]', 'other', 1700, NULL, 1,
   '{"Device Type": 1, "Device Id": 0, "Addr": 20, "Bytes": 0}'),
  (1, 14, 'i', 'cpu_instant_event', '[memory]', 7, 3300, NULL, 1,
   '{"Device Type": 13, "Device Id": 0, "Addr": 30, "Bytes": 64, "Total Allocated": 64, "Total Reserved": 64}'),
  (1, 15, 'i', 'cpu_instant_event', '[memory]', 7, 3400, NULL, 1,
   ' { "Addr" : 40, "x": {"a": [1, "}\"],", {}], "Device Type": 1}, "Bytes":8, "Bytes": 9 } '),
  (1, 16, 'i', 'cpu_instant_event', '[memory]', 7, 3500, NULL, 1, '{"Device Type": 1, "Addr": 50, "Bytes": 1.5}'),
  (1, 17, 'i', 'cpu_instant_event', '[memory]', 7, 5150, NULL, 2,
   '{"Device Type": 0, "Device Id": 3, "Addr": 60, "Bytes": 16, "Total Allocated": 16, "Total Reserved": 0}'),
  (1, 18, 'i', 'cpu_instant_event', '[memory]', 7, 5500, NULL, 2, 'not json');
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, iteration, args)
SELECT (t << 32) | seq, t, CASE t WHEN 1 THEN 0 ELSE 1 END, seq, ph, (SELECT category_id FROM category WHERE name = cat),
       (SELECT string_id FROM string WHERE value = name), 1, tid, ts, dur, it, args
FROM temp.ev;
INSERT INTO profiler_step(trace_id, step, event_id, ts, dur) VALUES
  (1, 1, (1 << 32) | 9, 1000, 4000), (1, 2, (1 << 32) | 10, 5000, 2000);

-- MEM-2 device order: CPU, GPU (no id), GPU0, DEVICE13:0, none; MEM-1: absent or
-- non-integral args are NULL; MEM-4: zero-length nodes hold nothing; text tids match
-- numbers; no fallback from the DataLoader range; MEM-9: ts_us from rank 1's origin
SELECT 'memedge_02_timeline', group_concat(ifnull(device, '-') || '@' || ts_us || ':' || ifnull(bytes, '-') || '/'
  || ifnull(allocated_bytes, '-') || '/' || ifnull(addr, '-') || '/' || ifnull(operator, '-') || '/'
  || ifnull(step, '-'), ',') =
  'CPU@5.05:16/16/60/aten::in_loader/2,GPU@3.4:-/-/50/aten::c/1,'
  || 'GPU0@1.4:100/100/10/aten::p/1,GPU0@1.5:0/100/10/aten::p/1,GPU0@1.6:0/-/20/-/1,'
  || 'DEVICE13:0@3.2:64/64/30/aten::c/1,-@3.3:8/-/40/aten::c/1,-@5.4:-/-/-/-/2'
  FROM hta_memory_timeline WHERE job = 'a';
SELECT 'memedge_03_rank_trace', group_concat(DISTINCT rank || ':' || trace_id || ':' || job) = '0:1:a'
  FROM hta_memory_timeline WHERE job = 'a';

-- MEM-10: a 0-byte record is neither an allocation nor a free; r13 has no totals, so
-- GPU0's live_bytes_at_end is r12's; rows without totals have NULL peaks
SELECT 'memedge_04_summary', group_concat(ifnull(device, '-') || '/' || step || ':' || ifnull(peak_allocated_bytes, '-')
  || '/' || ifnull(peak_reserved_bytes, '-') || '@' || ifnull(peak_ts_us, '-') || '/' || ifnull(peak_operator, '-')
  || ' a' || allocations || '/' || allocated_bytes || ' f' || frees || '/' || freed_bytes || ' l'
  || ifnull(live_bytes_at_end, '-') || ' n' || records, ',') =
  'CPU/2:16/0@5.05/aten::in_loader a1/16 f0/0 l16 n1,'
  || 'GPU/1:-/-@-/- a0/0 f0/0 l- n1,'
  || 'GPU0/1:100/200@1.4/aten::p a1/100 f0/0 l100 n3,'
  || 'DEVICE13:0/1:64/64@3.2/aten::c a1/64 f0/0 l64 n1,'
  || '-/1:-/-@-/- a1/8 f0/0 l- n1,-/2:-/-@-/- a0/0 f0/0 l- n1'
  FROM hta_memory_summary WHERE job = 'a';

-- MEM-6, MEM-11: the chain C1 > C2 > C3 is one call and counts r14 once in its totals;
-- aten::in_loader counts although its parent is no operator; r16's NULL Bytes make no
-- row on GPU; aten::zero, aten::neg: no records, no row
SELECT 'memedge_05_by_operator', group_concat(ifnull(device, '-') || '/' || operator || ':' || calls || ' '
  || self_increase_bytes || '/' || self_allocation_bytes || '/' || self_allocations || ' ' || increase_bytes
  || '/' || allocation_bytes || '/' || allocations, ',') =
  'CPU/aten::in_loader:1 16/16/1 16/16/1,GPU0/aten::p:1 100/100/1 100/100/1,'
  || 'DEVICE13:0/aten::c:1 64/64/1 64/64/1,-/aten::c:1 8/8/1 8/8/1'
  FROM hta_memory_by_operator WHERE job = 'a';

-- MEM-12: a 0-byte record frees; one on a never allocated address is a release without
-- allocation (bytes 0); r16 (Bytes not an integer: 0) likewise; r18 has no Addr
SELECT 'memedge_06_allocations', group_concat(ifnull(device, '-') || '/' || addr || ':' || bytes || ' '
  || ifnull(alloc_ts_us, '-') || '>' || ifnull(free_ts_us, '-') || '=' || ifnull(duration_us, '-') || ' '
  || ifnull(alloc_operator, '-') || '>' || ifnull(free_operator, '-'), ',') =
  'CPU/60:16 5.05>-=- aten::in_loader>-,GPU/50:0 ->3.4=- ->aten::c,'
  || 'GPU0/10:100 1.4>1.5=0.1 aten::p>aten::p,GPU0/20:0 ->1.6=- ->-,'
  || 'DEVICE13:0/30:64 3.2>-=- aten::c>-,-/40:8 3.3>-=- aten::c>-'
  FROM hta_memory_allocations WHERE job = 'a';

-- a second job: its own origin (50000 ns), its own rows
INSERT INTO trace(trace_id, job_id, rank, rank_source, file_name, file_size, content_hash, event_count, min_ts, max_end)
VALUES (3, 2, 0, 'distributedInfo', 'b0.json', 0, 'h3', 0, 50000, 52000);
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, args)
VALUES ((3 << 32) | 1, 3, 0, 1, 'i', (SELECT category_id FROM category WHERE name = 'cpu_instant_event'),
        (SELECT string_id FROM string WHERE value = '[memory]'), 1, 1, 51000, NULL,
        '{"Device Type": 0, "Device Id": -1, "Addr": 1, "Bytes": 1, "Total Allocated": 1, "Total Reserved": 0}');
SELECT 'memedge_07_jobs', (SELECT group_concat(job || ':' || device || '@' || ts_us) FROM hta_memory_timeline
  WHERE job = 'b') = 'b:CPU@1.0' AND (SELECT count(*) FROM hta_memory_timeline) = 9
  AND (SELECT count(*) FROM hta_memory_allocations WHERE job = 'b' AND free_ts_us IS NULL) = 1;

-- no include_last_profiler_step parameter (MEM-1)
SELECT 'memedge_08_no_cut_param', count(*) = 0 FROM pragma_table_xinfo('hta_memory_summary')
 WHERE name = 'include_last_profiler_step';
