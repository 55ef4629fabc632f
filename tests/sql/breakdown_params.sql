-- Parameters, the rank constraint and errors of the breakdown table-valued functions
-- (vtab_util.c TVF-1..3). Error messages are checked in a child sqlite3, since an
-- error stops this script.

-- An empty database (schema only) is never an error: no rows anywhere.
SELECT 'empty_tb', (SELECT count(*) FROM hta_temporal_breakdown) = 0;
SELECT 'empty_ktb', (SELECT count(*) FROM hta_kernel_type_breakdown) = 0;
SELECT 'empty_kb', (SELECT count(*) FROM hta_kernel_breakdown) = 0;
SELECT 'empty_it', (SELECT count(*) FROM hta_idle_time_breakdown) = 0;
SELECT 'empty_is', (SELECT count(*) FROM hta_idle_interval_stats) = 0;
SELECT 'empty_cc', (SELECT count(*) FROM hta_comm_comp_overlap) = 0;

-- Two ranks with one kernel each: rank 0 [0,10), rank 1 [0,20) (µs, stored as ns).
INSERT INTO trace(trace_id, rank, rank_source, file_name, file_size, content_hash, event_count, min_ts, max_end)
VALUES (1, 0, 'distributedInfo', 'r0.json', 0, 'h1', 1, 0, 10000), (2, 1, 'distributedInfo', 'r1.json', 0, 'h2', 1, 0, 20000);
INSERT INTO category(category_id, name) VALUES (1, 'kernel');
INSERT INTO string(string_id, value) VALUES (1, 'gemm');
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, ts, dur, stream)
VALUES (1 << 32, 1, 0, 0, 'X', 1, 1, 0, 10000, 7), (2 << 32, 2, 1, 0, 'X', 1, 1, 0, 20000, 7);

-- The rank constraint (TVF-2).
SELECT 'rank_eq', (SELECT group_concat(kernel_time_us) FROM hta_temporal_breakdown WHERE rank = 1) = '20.0';
SELECT 'rank_text', (SELECT count(*) FROM hta_temporal_breakdown WHERE rank = '1') = 1;
SELECT 'rank_real_integral', (SELECT count(*) FROM hta_temporal_breakdown WHERE rank = 1.0) = 1;
SELECT 'rank_real_fraction', (SELECT count(*) FROM hta_temporal_breakdown WHERE rank = 0.5) = 0;
SELECT 'rank_null', (SELECT count(*) FROM hta_temporal_breakdown WHERE rank = NULL) = 0;
SELECT 'rank_in', (SELECT group_concat(rank) FROM hta_temporal_breakdown WHERE rank IN (0, 1)) = '0,1';
SELECT 'rank_range', (SELECT group_concat(rank) FROM hta_temporal_breakdown WHERE rank > 0) = '1';
SELECT 'rank_subquery', (SELECT count(*) FROM hta_temporal_breakdown WHERE rank = (SELECT max(rank) FROM trace)) = 1;
SELECT 'rank_join', (SELECT group_concat(t.trace_id) FROM trace t JOIN hta_temporal_breakdown b ON b.rank = t.rank) = '1,2';
SELECT 'rank_hidden_join', (SELECT group_concat(k.sum_us) FROM trace t JOIN hta_kernel_type_breakdown k ON k.rank = t.rank) = '10.0,20.0';
SELECT 'rank_hidden_null', (SELECT rank IS NULL FROM hta_kernel_type_breakdown) = 1;
-- Parameters by position, by name, from a join, as text or as an integral REAL (TVF-1).
SELECT 'param_positional', (SELECT DISTINCT num_kernels FROM hta_kernel_breakdown(0.5, 7)) = 7;
SELECT 'param_named', (SELECT DISTINCT duration_ratio FROM hta_kernel_breakdown WHERE num_kernels = 7 AND duration_ratio = 0.25) = 0.25;
SELECT 'param_text_number', (SELECT DISTINCT duration_ratio FROM hta_kernel_breakdown('0.5')) = 0.5;
SELECT 'param_integral_real', (SELECT DISTINCT num_kernels FROM hta_kernel_breakdown(0.5, 3.0)) = 3;
SELECT 'param_types', (SELECT typeof(duration_ratio) || typeof(num_kernels) FROM hta_kernel_breakdown LIMIT 1) = 'realinteger';
SELECT 'param_join', (SELECT group_concat(d.x || ':' || b.consecutive_kernel_delay_us) FROM (SELECT 5 AS x UNION ALL SELECT 7) d
  JOIN hta_idle_time_breakdown b ON b.consecutive_kernel_delay_us = d.x WHERE b.rank = 0) = '5:5.0,7:7.0';
SELECT 'param_defaults', (SELECT duration_ratio || '/' || num_kernels || '/' || include_memory_kernels || '/' || include_last_profiler_step
  FROM hta_kernel_breakdown LIMIT 1) = '0.8/10/1/0';
SELECT 'param_default_delay', (SELECT DISTINCT consecutive_kernel_delay_us FROM hta_idle_interval_stats) = 30.0;

-- Errors (TVF-1): "<function>: <parameter> must be <what>".
.system sqlite3 :memory: -cmd ".load $HTA_EXT" "SELECT * FROM hta_kernel_breakdown(2)" 2>&1 | grep -q "hta_kernel_breakdown: duration_ratio must be a number between 0 and 1" && echo 'err_ratio_high\|1' || echo 'err_ratio_high\|0'
.system sqlite3 :memory: -cmd ".load $HTA_EXT" "SELECT * FROM hta_kernel_breakdown(-0.1)" 2>&1 | grep -q "hta_kernel_breakdown: duration_ratio must be a number between 0 and 1" && echo 'err_ratio_low\|1' || echo 'err_ratio_low\|0'
.system sqlite3 :memory: -cmd ".load $HTA_EXT" "SELECT * FROM hta_kernel_breakdown(NULL)" 2>&1 | grep -q "hta_kernel_breakdown: duration_ratio must be a number between 0 and 1" && echo 'err_ratio_null\|1' || echo 'err_ratio_null\|0'
.system sqlite3 :memory: -cmd ".load $HTA_EXT" "SELECT * FROM hta_kernel_breakdown('most')" 2>&1 | grep -q "hta_kernel_breakdown: duration_ratio must be a number between 0 and 1" && echo 'err_ratio_text\|1' || echo 'err_ratio_text\|0'
.system sqlite3 :memory: -cmd ".load $HTA_EXT" "SELECT * FROM hta_kernel_breakdown(0.8, 1.5)" 2>&1 | grep -q "hta_kernel_breakdown: num_kernels must be a non-negative integer" && echo 'err_num_fraction\|1' || echo 'err_num_fraction\|0'
.system sqlite3 :memory: -cmd ".load $HTA_EXT" "SELECT * FROM hta_kernel_breakdown(0.8, -1)" 2>&1 | grep -q "hta_kernel_breakdown: num_kernels must be a non-negative integer" && echo 'err_num_negative\|1' || echo 'err_num_negative\|0'
.system sqlite3 :memory: -cmd ".load $HTA_EXT" "SELECT * FROM hta_kernel_breakdown(0.8, 10, 2)" 2>&1 | grep -q "hta_kernel_breakdown: include_memory_kernels must be 0 or 1" && echo 'err_kb_memory\|1' || echo 'err_kb_memory\|0'
.system sqlite3 :memory: -cmd ".load $HTA_EXT" "SELECT * FROM hta_kernel_type_breakdown(-1)" 2>&1 | grep -q "hta_kernel_type_breakdown: include_memory_kernels must be 0 or 1" && echo 'err_ktb_memory\|1' || echo 'err_ktb_memory\|0'
.system sqlite3 :memory: -cmd ".load $HTA_EXT" "SELECT * FROM hta_idle_time_breakdown(-1)" 2>&1 | grep -q "hta_idle_time_breakdown: consecutive_kernel_delay_us must be a non-negative number" && echo 'err_delay_negative\|1' || echo 'err_delay_negative\|0'
.system sqlite3 :memory: -cmd ".load $HTA_EXT" "SELECT * FROM hta_idle_interval_stats(x'00')" 2>&1 | grep -q "hta_idle_interval_stats: consecutive_kernel_delay_us must be a non-negative number" && echo 'err_delay_blob\|1' || echo 'err_delay_blob\|0'
.system sqlite3 :memory: -cmd ".load $HTA_EXT" "SELECT * FROM hta_temporal_breakdown(2)" 2>&1 | grep -q "hta_temporal_breakdown: include_last_profiler_step must be 0 or 1" && echo 'err_last_step\|1' || echo 'err_last_step\|0'
.system sqlite3 :memory: -cmd ".load $HTA_EXT" "SELECT * FROM hta_comm_comp_overlap(0.5)" 2>&1 | grep -q "hta_comm_comp_overlap: include_last_profiler_step must be 0 or 1" && echo 'err_last_step_fraction\|1' || echo 'err_last_step_fraction\|0'
.system sqlite3 :memory: -cmd ".load $HTA_EXT" "SELECT * FROM hta_kernel_breakdown(0.8, 10, 1, 0, 9, 9)" 2>&1 | grep -q "too many arguments on hta_kernel_breakdown" && echo 'err_too_many_args\|1' || echo 'err_too_many_args\|0'
-- A database that hta-ingest did not make: the SQLite error, named.
.system sqlite3 :memory: -cmd ".load $HTA_EXT" "SELECT * FROM hta_temporal_breakdown" 2>&1 | grep -q "hta_temporal_breakdown: database .main. is not an hta-sqlite database (no trace table)" && echo 'err_no_schema\|1' || echo 'err_no_schema\|0'
