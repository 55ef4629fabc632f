-- hta_memory_bw and hta_memory_bw_summary (memory_bw.c MB-1..8; spec 2.8). One trace
-- of rank 0 (no ProfilerStep: nothing is cut) and one of rank 1 without copies. The
-- job's earliest event is rank 0's cpu_op at 900000 ns, so ts_us = ts / 1000 - 900.
-- Two HtoD copies overlap (100..110 and 105..115 µs) and a third starts at 115 µs,
-- when the second ends.
CREATE TEMP TABLE ev(t, seq, cat, name, ts, dur, stream, args);
INSERT INTO trace(trace_id, rank, rank_source, file_name, file_size, content_hash, event_count)
VALUES (1, 0, 'distributedInfo', 'r0.json', 0, 'h1', 0),
       (2, 1, 'distributedInfo', 'r1.json', 0, 'h2', 0);
INSERT INTO temp.ev VALUES
  (1, 1, 'cpu_op', 'aten::copy_', 900000, 1000, NULL, NULL),
  (1, 2, 'gpu_memcpy', 'Memcpy HtoD (Pageable -> Device)', 1000000, 10000, 7,
   '{"memory bandwidth (GB/s)": 2.5, "bytes": 25000}'),
  (1, 3, 'gpu_memcpy', 'Memcpy HtoD (Pageable -> Device)', 1005000, 10000, 8,
   '{"memory bandwidth (GB/s)": 1.5}'),
  (1, 4, 'gpu_memcpy', 'Memcpy DtoD (Device -> Device)', 1010000, 5000, 7,
   '{"memory bandwidth (GB/s)": 100}'),
  (1, 5, 'gpu_memcpy', 'Memcpy HtoD (Pinned -> Device)', 1015000, 5000, 7,
   '{"memory bandwidth (GB/s)": 0.5}'),
  (1, 6, 'gpu_memset', 'Memset (Device)', 1030000, 0, 7, '{"memory bandwidth (GB/s)": 3.0}'), -- dur 0: 1 µs
  (1, 7, 'gpu_memcpy', 'Memcpy DtoH (Device -> Pageable)', 1040000, 4000, 7, '{"bytes": 8000}'), -- 2 GB/s computed
  (1, 8, 'gpu_memcpy', 'Memcpy PtoP (Device -> Device)', 1060000, 0, 7, '{"bytes": 100}'), -- dur 0: not computed
  (1, 9, 'kernel', 'dma_transfer', 1050000, 2000, 7, NULL),                          -- MEMORY, kind Memcpy Unknown
  (1, 10, 'kernel', 'hipMemcpyDtoD', 1070000, 2000, 7, '{"memory bandwidth (GB/s)": 9}'), -- hip*: COMMUNICATION
  (1, 11, 'kernel', 'k_compute', 1080000, 2000, 7, NULL),
  (1, 12, 'cuda_runtime', 'Memcpy HtoD (host side)', 1090000, 2000, NULL, '{"memory bandwidth (GB/s)": 7}'), -- no stream
  (2, 1, 'kernel', 'k_r1', 2000000, 1000, 7, NULL);
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, stream, args)
SELECT (t << 32) | seq, t, t - 1, seq, 'X', (SELECT category_id FROM category WHERE name = cat),
       (SELECT string_id FROM string WHERE value = name), 1, 1, ts, dur, stream, args
FROM temp.ev;
UPDATE trace SET
  event_count = (SELECT count(*) FROM event e WHERE e.trace_id = trace.trace_id),
  min_ts = (SELECT min(ts) FROM event e WHERE e.trace_id = trace.trace_id),
  max_end = (SELECT max(ts + dur) FROM event e WHERE e.trace_id = trace.trace_id);

-- registration, columns, parameters
SELECT 'membw_01_modules', count(*) = 2 FROM pragma_module_list
 WHERE name IN ('hta_memory_bw', 'hta_memory_bw_summary');
SELECT 'membw_02_columns', group_concat(name, ',') = 'rank,kind,ts_us,memory_bw_gbps,trace_id,computed_bw,job'
  FROM pragma_table_info('hta_memory_bw');
SELECT 'membw_03_hidden', group_concat(name, ',') =
  'include_last_profiler_step,bw_from_bytes,collapse_ties,hta_tie_order,schema'
  FROM pragma_table_xinfo('hta_memory_bw') WHERE hidden;
SELECT 'membw_04_summary_columns', group_concat(name, ',') =
  'rank,kind,count,mean,std,min,p25,p50,p75,max,trace_id,job'
  FROM pragma_table_info('hta_memory_bw_summary');
SELECT 'membw_05_summary_hidden', group_concat(name, ',') =
  'include_last_profiler_step,bw_from_bytes,collapse_ties,hta_tie_order,schema'
  FROM pragma_table_xinfo('hta_memory_bw_summary') WHERE hidden;

-- MB-1..5, MB-8: kinds in byte order; at 115 µs the end of the 1.5 GB/s copy comes
-- before the start of the 0.5 GB/s one (MB-4) and the sum is exactly 0 there (MB-5);
-- a dur 0 copy lasts 1 µs; DtoH is computed from bytes (8000 / 4000 ns = 2 GB/s)
SELECT 'membw_06_series', group_concat(kind || '@' || ts_us || '=' || memory_bw_gbps || '/' || computed_bw, ',') =
  'Memcpy DtoD@110.0=100.0/0,Memcpy DtoD@115.0=0.0/0,'
  || 'Memcpy DtoH@140.0=2.0/1,Memcpy DtoH@144.0=0.0/1,'
  || 'Memcpy HtoD@100.0=2.5/0,Memcpy HtoD@105.0=4.0/0,Memcpy HtoD@110.0=1.5/0,Memcpy HtoD@115.0=0.0/0,'
  || 'Memcpy HtoD@115.0=0.5/0,Memcpy HtoD@120.0=0.0/0,'
  || 'Memcpy PtoP@160.0=0.0/0,Memcpy PtoP@161.0=0.0/0,'
  || 'Memcpy Unknown@150.0=0.0/0,Memcpy Unknown@152.0=0.0/0,'
  || 'Memset@130.0=3.0/0,Memset@131.0=0.0/0'
  FROM hta_memory_bw;
SELECT 'membw_07_types', typeof(rank) || typeof(kind) || typeof(ts_us) || typeof(memory_bw_gbps)
  || typeof(trace_id) || typeof(computed_bw) = 'integertextrealrealintegerinteger' FROM hta_memory_bw LIMIT 1;
SELECT 'membw_08_rank_trace', group_concat(DISTINCT rank || ':' || trace_id) = '0:1' FROM hta_memory_bw;

-- MB-2: bw_from_bytes = 0 is HTA (a copy without the argument has bandwidth 0)
SELECT 'membw_09_no_bytes', group_concat(ts_us || '=' || memory_bw_gbps || '/' || computed_bw, ',') =
  '140.0=0.0/0,144.0=0.0/0' FROM hta_memory_bw WHERE bw_from_bytes = 0 AND kind = 'Memcpy DtoH';

-- MB-6: one point per (kind, ts)
SELECT 'membw_10_collapsed', group_concat(ts_us || '=' || memory_bw_gbps, ',') =
  '100.0=2.5,105.0=4.0,110.0=1.5,115.0=0.5,120.0=0.0'
  FROM hta_memory_bw(0, 1, 1) WHERE kind = 'Memcpy HtoD';
SELECT 'membw_11_readback', include_last_profiler_step = 0 AND bw_from_bytes = 1 AND collapse_ties = 1
  AND hta_tie_order = 0 FROM hta_memory_bw(0, 1, 1) LIMIT 1;

-- MB-4: HTA's order puts the start first at 115 µs (numpy's quicksort is an insertion
-- sort below 17 changes, over [starts, then ends]); collapsed, the series agree
SELECT 'membw_12_hta_order', group_concat(ts_us || '=' || memory_bw_gbps, ',') =
  '100.0=2.5,105.0=4.0,110.0=1.5,115.0=2.0,115.0=0.5,120.0=0.0'
  FROM hta_memory_bw WHERE hta_tie_order = 1 AND kind = 'Memcpy HtoD';
SELECT 'membw_13_hta_collapsed', group_concat(ts_us || '=' || memory_bw_gbps, ',') =
  '100.0=2.5,105.0=4.0,110.0=1.5,115.0=0.5,120.0=0.0'
  FROM hta_memory_bw(0, 1, 1, 1) WHERE kind = 'Memcpy HtoD';

-- MB-7: describe() over the points > 0; kinds with none have no row
SELECT 'membw_14_summary_rows', group_concat(rank || ':' || kind || ':' || count || ':' || trace_id, ',') =
  '0:Memcpy DtoD:1:1,0:Memcpy DtoH:1:1,0:Memcpy HtoD:4:1,0:Memset:1:1' FROM hta_memory_bw_summary;
SELECT 'membw_15_summary_htod', mean = 2.125 AND abs(std - 1.4930394055974097) < 1e-12 AND min = 0.5
  AND p25 = 1.25 AND p50 = 2.0 AND p75 = 2.875 AND max = 4.0
  FROM hta_memory_bw_summary WHERE kind = 'Memcpy HtoD';
SELECT 'membw_16_summary_one', std IS NULL AND mean = 100 AND min = 100 AND p50 = 100 AND max = 100
  FROM hta_memory_bw_summary WHERE kind = 'Memcpy DtoD';
SELECT 'membw_17_summary_hta', group_concat(kind || ':' || count, ',') =
  'Memcpy DtoD:1,Memcpy DtoH:1,Memcpy HtoD:5,Memset:1' FROM hta_memory_bw_summary WHERE hta_tie_order = 1;
SELECT 'membw_18_summary_collapsed', count = 4 AND mean = 2.125
  FROM hta_memory_bw_summary(0, 1, 1, 1) WHERE kind = 'Memcpy HtoD';
SELECT 'membw_19_summary_no_bytes', group_concat(kind, ',') = 'Memcpy DtoD,Memcpy HtoD,Memset'
  FROM hta_memory_bw_summary(0, 0);

-- ranks: rank 1 has no copy; absent ranks give no rows
SELECT 'membw_20_rank1', (SELECT count(*) FROM hta_memory_bw WHERE rank = 1)
  + (SELECT count(*) FROM hta_memory_bw_summary WHERE rank = 1) = 0;
SELECT 'membw_21_rank0', count(*) = 16 FROM hta_memory_bw WHERE rank = 0;
SELECT 'membw_22_rank_absent', count(*) = 0 FROM hta_memory_bw WHERE rank = 3;

-- args that are not JSON, or a bandwidth that is not a number: bandwidth 0, no error
UPDATE event SET args = 'not json' WHERE event_id = (1 << 32) | 4;
UPDATE event SET args = '{"memory bandwidth (GB/s)": "fast", "bytes": 100}' WHERE event_id = (1 << 32) | 6;
SELECT 'membw_23_bad_args', group_concat(kind || '@' || ts_us || '=' || memory_bw_gbps, ',') =
  'Memcpy DtoD@110.0=0.0,Memcpy DtoD@115.0=0.0,Memset@130.0=0.0,Memset@131.0=0.0'
  FROM hta_memory_bw WHERE kind IN ('Memcpy DtoD', 'Memset');

-- errors name the function and the parameter
.shell sh -c "sqlite3 :memory: -cmd '.load $HTA_EXT' 'SELECT * FROM hta_memory_bw(2)' 2>&1 | grep -qF 'hta_memory_bw: include_last_profiler_step must be 0 or 1' && echo 'membw_24_err_last|1' || echo 'membw_24_err_last|0'"
.shell sh -c "sqlite3 :memory: -cmd '.load $HTA_EXT' 'SELECT * FROM hta_memory_bw_summary WHERE bw_from_bytes = 5' 2>&1 | grep -qF 'hta_memory_bw_summary: bw_from_bytes must be 0 or 1' && echo 'membw_25_err_bytes|1' || echo 'membw_25_err_bytes|0'"
.shell sh -c "sqlite3 :memory: -cmd '.load $HTA_EXT' 'SELECT * FROM hta_memory_bw WHERE hta_tie_order = NULL' 2>&1 | grep -qF 'hta_memory_bw: hta_tie_order must be 0 or 1' && echo 'membw_26_err_order|1' || echo 'membw_26_err_order|0'"

-- an empty database: no rows, no error
DELETE FROM event;
DELETE FROM trace;
SELECT 'membw_27_empty_db', (SELECT count(*) FROM hta_memory_bw) + (SELECT count(*) FROM hta_memory_bw_summary) = 0;
