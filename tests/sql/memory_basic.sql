-- The memory analyses (memory.c MEM-1..13): hta_memory_timeline, hta_memory_summary,
-- hta_memory_by_operator, hta_memory_allocations on one hand-made trace of rank 0.
-- Times below are ns; the job's origin is the trace's min_ts, 1000 ns, so
-- ts_us = (ts - 1000) / 1000.
--
-- Operators of thread 10 (cpu_op; the ProfilerSteps are user_annotation, no nodes):
--   A aten::outer [1000, 3000)  > B aten::inner [1500, 2000)
--   C aten::free_op [3500, 4500)
--   D aten::chain [5000, 5500)  > E aten::chain [5100, 5300)   (only child, same name: merged, MEM-6)
--   F aten::wrap [6000, 7000)   > G Optimizer.step#SGD.step [6100, 6600)   (no operator, MEM-5)
--                               > K aten::overlap [6500, 7500)  ends after F: dropped (MEM-3)
--   H aten::nest [8000, 9000)   > I aten::nest [8100, 8200), J aten::x [8500, 8600)
-- [memory] records (dev: GPU0 = type 1 id 0, GPU1 = type 6 (HIP) id 1, CPU = type 0):
--   R1  ts 1000 GPU0 addr 100 +1000 TA 1000 TR 2000  at A's start: A (MEM-4)
--   R2  ts 1500 GPU0 addr 200  +300 TA 1300 TR 2000  tid written '10' (text): B
--   R3  ts 2000 GPU0 addr 300   +50 TA 1350 TR 2000  at B's end: A
--   R13 ts 2500 GPU0 no addr    +16 (no totals)       A
--   R4  ts 3000 GPU0 addr 300   -50 TA 1300 TR 2000  at A's end: no operator
--   R5  ts 3600 GPU0 addr 200  -300 TA 1000 TR 4000  C: freed in another operator
--   R6  ts 4000 CPU  addr 900    +8 TA    8 TR    0  C
--   R7  ts 5200 GPU0 addr 400  +500 TA 1500 TR 4000  E: aten::chain
--   R8  ts 6200 GPU0 addr 400  -500 TA 1000 TR 4000  G: no operator (no fallback to F)
--   R9  ts 6300 GPU0 addr 400  -500 TA 1000 TR 4000  G; addr 400 freed twice
--   R15 ts 6800 GPU0 addr 600    +2 TA 1002 TR 4000  F (K was dropped)
--   R10 ts 8150 GPU1 addr 100   +64 TA   64 TR  128  I: aten::nest
--   R14 ts 9500 GPU1 addr 100   +32 TA   64 TR  128  no operator; addr 100 allocated
--                                                    again while open (totals left at 64 to
--                                                    test "first record reaching the peak")
--   R11 ts 12000 GPU0 addr 500   +7 TA 1007 TR 4000  thread 99 (no operators), no step
-- R1..R6, R13 are in step 1, R7..R10, R14, R15 in step 2.
CREATE TEMP TABLE ev(seq, ph, cat, name, tid, ts, dur, it, args);
INSERT INTO trace(trace_id, rank, rank_source, file_name, file_size, content_hash, event_count, min_ts, max_end)
VALUES (1, 0, 'distributedInfo', 'r0.json', 0, 'h1', 0, 1000, 10000);
INSERT INTO temp.ev VALUES
  (1, 'X', 'user_annotation', 'ProfilerStep#1', 10, 1000, 4000, 1, NULL),
  (2, 'X', 'cpu_op', 'aten::outer', 10, 1000, 2000, 1, NULL),
  (3, 'X', 'cpu_op', 'aten::inner', 10, 1500, 500, 1, NULL),
  (4, 'X', 'cpu_op', 'aten::free_op', 10, 3500, 1000, 1, NULL),
  (5, 'X', 'cpu_op', 'aten::chain', 10, 5000, 500, 2, NULL),
  (6, 'X', 'cpu_op', 'aten::chain', 10, 5100, 200, 2, NULL),
  (7, 'X', 'cpu_op', 'aten::wrap', 10, 6000, 1000, 2, NULL),
  (8, 'X', 'cpu_op', 'Optimizer.step#SGD.step', 10, 6100, 500, 2, NULL),
  (9, 'X', 'cpu_op', 'aten::overlap', 10, 6500, 1000, 2, NULL),
  (10, 'X', 'cpu_op', 'aten::nest', 10, 8000, 1000, 2, NULL),
  (11, 'X', 'cpu_op', 'aten::nest', 10, 8100, 100, 2, NULL),
  (12, 'X', 'cpu_op', 'aten::x', 10, 8500, 100, 2, NULL),
  (0, 'X', 'user_annotation', 'ProfilerStep#2', 10, 5000, 5000, 2, NULL),
  (13, 'i', 'cpu_instant_event', '[memory]', 10, 1000, NULL, 1,
   '{"Device Type": 1, "Device Id": 0, "Addr": 100, "Bytes": 1000, "Total Allocated": 1000, "Total Reserved": 2000}'),
  (14, 'i', 'cpu_instant_event', '[memory]', '10', 1500, NULL, 1,
   '{"Device Type": 1, "Device Id": 0, "Addr": 200, "Bytes": 300, "Total Allocated": 1300, "Total Reserved": 2000}'),
  (15, 'i', 'cpu_instant_event', '[memory]', 10, 2000, NULL, 1,
   '{"Device Type": 1, "Device Id": 0, "Addr": 300, "Bytes": 50, "Total Allocated": 1350, "Total Reserved": 2000}'),
  (16, 'i', 'cpu_instant_event', '[memory]', 10, 2500, NULL, 1,
   '{"Device Type": 1, "Device Id": 0, "Bytes": 16}'),
  (17, 'i', 'cpu_instant_event', '[memory]', 10, 3000, NULL, 1,
   '{"Device Type": 1, "Device Id": 0, "Addr": 300, "Bytes": -50, "Total Allocated": 1300, "Total Reserved": 2000}'),
  (18, 'i', 'cpu_instant_event', '[memory]', 10, 3600, NULL, 1,
   '{"Device Type": 1, "Device Id": 0, "Addr": 200, "Bytes": -300, "Total Allocated": 1000, "Total Reserved": 4000}'),
  (19, 'i', 'cpu_instant_event', '[memory]', 10, 4000, NULL, 1,
   '{"Device Type": 0, "Device Id": -1, "Addr": 900, "Bytes": 8, "Total Allocated": 8, "Total Reserved": 0}'),
  (20, 'i', 'cpu_instant_event', '[memory]', 10, 5200, NULL, 2,
   '{"Device Type": 1, "Device Id": 0, "Addr": 400, "Bytes": 500, "Total Allocated": 1500, "Total Reserved": 4000}'),
  (21, 'i', 'cpu_instant_event', '[memory]', 10, 6200, NULL, 2,
   '{"Device Type": 1, "Device Id": 0, "Addr": 400, "Bytes": -500, "Total Allocated": 1000, "Total Reserved": 4000}'),
  (22, 'i', 'cpu_instant_event', '[memory]', 10, 6300, NULL, 2,
   '{"Device Type": 1, "Device Id": 0, "Addr": 400, "Bytes": -500, "Total Allocated": 1000, "Total Reserved": 4000}'),
  (23, 'i', 'cpu_instant_event', '[memory]', 10, 6800, NULL, 2,
   '{"Device Type": 1, "Device Id": 0, "Addr": 600, "Bytes": 2, "Total Allocated": 1002, "Total Reserved": 4000}'),
  (24, 'i', 'cpu_instant_event', '[memory]', 10, 8150, NULL, 2,
   '{"Device Type": 6, "Device Id": 1, "Addr": 100, "Bytes": 64, "Total Allocated": 64, "Total Reserved": 128}'),
  (25, 'i', 'cpu_instant_event', '[memory]', 10, 9500, NULL, 2,
   '{"Device Type": 6, "Device Id": 1, "Addr": 100, "Bytes": 32, "Total Allocated": 64, "Total Reserved": 128}'),
  (26, 'i', 'cpu_instant_event', '[memory]', 99, 12000, NULL, NULL,
   '{"Device Type": 1, "Device Id": 0, "Addr": 500, "Bytes": 7, "Total Allocated": 1007, "Total Reserved": 4000}');
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, iteration, args)
SELECT (1 << 32) | seq, 1, 0, seq, ph, (SELECT category_id FROM category WHERE name = cat),
       (SELECT string_id FROM string WHERE value = name), 1, tid, ts, dur, it, args
FROM temp.ev;
INSERT INTO profiler_step(trace_id, step, event_id, ts, dur) VALUES
  (1, 1, (1 << 32) | 1, 1000, 4000), (1, 2, (1 << 32) | 0, 5000, 5000);
UPDATE trace SET event_count = (SELECT count(*) FROM event);

-- registration and columns; no parameter but schema (MEM-1)
SELECT 'mem_01_modules', count(*) = 4 FROM pragma_module_list
 WHERE name IN ('hta_memory_timeline', 'hta_memory_summary', 'hta_memory_by_operator', 'hta_memory_allocations');
SELECT 'mem_02_timeline_columns', group_concat(name, ',') =
  'rank,device,ts_us,bytes,allocated_bytes,reserved_bytes,addr,operator,step,event_seq,trace_id,event_id,job'
  FROM pragma_table_info('hta_memory_timeline');
SELECT 'mem_03_summary_columns', group_concat(name, ',') =
  'rank,device,step,peak_allocated_bytes,peak_reserved_bytes,peak_ts_us,peak_operator,allocations,'
  || 'allocated_bytes,frees,freed_bytes,live_bytes_at_end,records,trace_id,job'
  FROM pragma_table_info('hta_memory_summary');
SELECT 'mem_04_by_operator_columns', group_concat(name, ',') =
  'rank,device,operator,calls,self_increase_bytes,self_allocation_bytes,self_allocations,'
  || 'increase_bytes,allocation_bytes,allocations,trace_id,job'
  FROM pragma_table_info('hta_memory_by_operator');
SELECT 'mem_05_allocations_columns', group_concat(name, ',') =
  'rank,device,addr,bytes,alloc_ts_us,free_ts_us,duration_us,alloc_operator,free_operator,'
  || 'alloc_event_seq,free_event_seq,trace_id,job'
  FROM pragma_table_info('hta_memory_allocations');
SELECT 'mem_06_hidden', (SELECT group_concat(name) FROM pragma_table_xinfo('hta_memory_timeline') WHERE hidden)
  = 'schema' AND (SELECT group_concat(name) FROM pragma_table_xinfo('hta_memory_allocations') WHERE hidden) = 'schema';

-- MEM-2, MEM-4, MEM-7..9: devices CPU, GPU0, GPU1 (HIP read as CUDA); records by ts within
-- a device; operators by half-open intervals; R13's missing args are NULL
SELECT 'mem_07_timeline', group_concat(device || '@' || ts_us || ':' || ifnull(bytes, '-') || '/'
  || ifnull(allocated_bytes, '-') || '/' || ifnull(reserved_bytes, '-') || '/' || ifnull(addr, '-') || '/'
  || ifnull(operator, '-') || '/' || ifnull(step, '-'), ',') =
  'CPU@3.0:8/8/0/900/aten::free_op/1,'
  || 'GPU0@0.0:1000/1000/2000/100/aten::outer/1,GPU0@0.5:300/1300/2000/200/aten::inner/1,'
  || 'GPU0@1.0:50/1350/2000/300/aten::outer/1,GPU0@1.5:16/-/-/-/aten::outer/1,'
  || 'GPU0@2.0:-50/1300/2000/300/-/1,GPU0@2.6:-300/1000/4000/200/aten::free_op/1,'
  || 'GPU0@4.2:500/1500/4000/400/aten::chain/2,GPU0@5.2:-500/1000/4000/400/-/2,'
  || 'GPU0@5.3:-500/1000/4000/400/-/2,GPU0@5.8:2/1002/4000/600/aten::wrap/2,'
  || 'GPU0@11.0:7/1007/4000/500/-/-,'
  || 'GPU1@7.15:64/64/128/100/aten::nest/2,GPU1@8.5:32/64/128/100/-/2'
  FROM hta_memory_timeline;
SELECT 'mem_08_timeline_ids', group_concat(event_seq || ':' || (event_id = (1 << 32 | event_seq)) || ':' || trace_id
  || ':' || rank, ',') = '19:1:1:0,13:1:1:0,14:1:1:0,15:1:1:0,16:1:1:0,17:1:1:0,18:1:1:0,20:1:1:0,21:1:1:0,'
  || '22:1:1:0,23:1:1:0,26:1:1:0,24:1:1:0,25:1:1:0' FROM hta_memory_timeline;
SELECT 'mem_09_timeline_types', typeof(rank) || typeof(device) || typeof(ts_us) || typeof(bytes)
  || typeof(allocated_bytes) || typeof(addr) || typeof(step) || typeof(event_seq)
  = 'integertextrealintegerintegerintegerintegerinteger' FROM hta_memory_timeline LIMIT 1;

-- MEM-10. CPU step 1: R6. GPU0 step NULL (first): R11. GPU0 step 1: peak 1350 first at R3
-- (1.0 us, aten::outer); reserved 4000; allocations R1+R2+R3+R13 = 4, 1366 B; frees R4+R5 =
-- 2, 350 B; live = R5's 1000 (R13 has no total); 6 records. GPU0 step 2: peak 1500 at R7
-- (4.2, aten::chain); allocations R7+R15 = 2, 502 B; frees R8+R9 = 2, 1000 B; live = R15's
-- 1002. GPU1 step 2: peak 64, first reached by R10 (7.15, aten::nest), not R14; 2, 96 B.
SELECT 'mem_10_summary', group_concat(device || '/' || ifnull(step, '-') || ':' || peak_allocated_bytes || '/'
  || peak_reserved_bytes || '@' || peak_ts_us || '/' || ifnull(peak_operator, '-') || ' a' || allocations
  || '/' || allocated_bytes || ' f' || frees || '/' || freed_bytes || ' l' || live_bytes_at_end
  || ' n' || records, ',') =
  'CPU/1:8/0@3.0/aten::free_op a1/8 f0/0 l8 n1,'
  || 'GPU0/-:1007/4000@11.0/- a1/7 f0/0 l1007 n1,'
  || 'GPU0/1:1350/4000@1.0/aten::outer a4/1366 f2/350 l1000 n6,'
  || 'GPU0/2:1500/4000@4.2/aten::chain a2/502 f2/1000 l1002 n4,'
  || 'GPU1/2:64/128@7.15/aten::nest a2/96 f0/0 l64 n2'
  FROM hta_memory_summary;
-- every record is in exactly one summary row
SELECT 'mem_11_summary_covers', (SELECT sum(records) FROM hta_memory_summary)
  = (SELECT count(*) FROM hta_memory_timeline);

-- MEM-11. outer: self R1+R3+R13 = 1066 (3 allocations), total + inner's R2 = 1366 (4).
-- free_op: R5 (-300) on GPU0, R6 (+8) on CPU. chain: R7 once (E merged into D: 1 call).
-- wrap: R15 (K dropped; G's records R8, R9 count nowhere). nest: R10 self once, in the totals
-- of I and H (128, 2 allocations), 2 calls. No row for aten::x, Optimizer, overlap.
SELECT 'mem_12_by_operator', group_concat(device || '/' || operator || ':' || calls || ' ' || self_increase_bytes
  || '/' || self_allocation_bytes || '/' || self_allocations || ' ' || increase_bytes || '/'
  || allocation_bytes || '/' || allocations, ',') =
  'CPU/aten::free_op:1 8/8/1 8/8/1,'
  || 'GPU0/aten::chain:1 500/500/1 500/500/1,GPU0/aten::free_op:1 -300/0/0 -300/0/0,'
  || 'GPU0/aten::inner:1 300/300/1 300/300/1,GPU0/aten::outer:1 1066/1066/3 1366/1366/4,'
  || 'GPU0/aten::wrap:1 2/2/1 2/2/1,'
  || 'GPU1/aten::nest:2 64/64/1 128/128/2'
  FROM hta_memory_by_operator;

-- MEM-12. GPU0 addr 100 (R1) and 500 (R11), CPU 900 (R6), GPU0 600 (R15): never freed.
-- 200: R2 -> R5 in another operator; 300: R3 -> R4 (no operator); 400: R7 -> R8, then R9
-- frees it again: a row without allocation (bytes = 500). GPU1 addr 100 is not GPU0's; R10
-- is allocated over by R14: both never freed. R13 has no Addr: no row.
SELECT 'mem_13_allocations', group_concat(device || '/' || addr || ':' || bytes || ' ' || ifnull(alloc_ts_us, '-')
  || '>' || ifnull(free_ts_us, '-') || '=' || ifnull(duration_us, '-') || ' ' || ifnull(alloc_operator, '-')
  || '>' || ifnull(free_operator, '-') || ' ' || ifnull(alloc_event_seq, '-') || '>'
  || ifnull(free_event_seq, '-'), ',') =
  'CPU/900:8 3.0>-=- aten::free_op>- 19>-,'
  || 'GPU0/100:1000 0.0>-=- aten::outer>- 13>-,'
  || 'GPU0/200:300 0.5>2.6=2.1 aten::inner>aten::free_op 14>18,'
  || 'GPU0/300:50 1.0>2.0=1.0 aten::outer>- 15>17,'
  || 'GPU0/400:500 4.2>5.2=1.0 aten::chain>- 20>21,'
  || 'GPU0/400:500 ->5.3=- ->- ->22,'
  || 'GPU0/600:2 5.8>-=- aten::wrap>- 23>-,'
  || 'GPU0/500:7 11.0>-=- ->- 26>-,'
  || 'GPU1/100:64 7.15>-=- aten::nest>- 24>-,'
  || 'GPU1/100:32 8.5>-=- ->- 25>-'
  FROM hta_memory_allocations;

-- rank filter; another rank has no rows
SELECT 'mem_14_rank', (SELECT count(*) FROM hta_memory_timeline WHERE rank = 0) = 14
  AND (SELECT count(*) FROM hta_memory_summary WHERE rank = 1) = 0
  AND (SELECT count(*) FROM hta_memory_allocations WHERE rank = 0) = 10;
