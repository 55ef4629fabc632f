-- hta_module_stats (ext/tb/tb_modules.c TM-n), the TensorBoard plugin's Module view, on a
-- hand-made trace of rank 0 (and a rank 1 without modules). Times are ns; output is us.
--
-- Thread 10, python ids in brackets, parent ids after "<-":
--   ProfilerStep#1 (user_annotation) [0, 100000) ext 1
--   nn.Module: Net_0 [1] [1000, 60000)                       a root
--     forward (python_function, no module) [2] <- 1 [1100, 59000)
--       nn.Module: Linear_0 [3] <- 2 [2000, 20000)          parent module Net_0 (TM-2)
--         aten::linear [3000, 18000) ext 10
--           aten::addmm [4000, 17000) ext 11; runtime [5000, 6000) ext 11 -> K1 2000 ns
--       nn.Module: ReLU_0 [4] <- 2 [21000, 30000)
--         aten::relu [22000, 29000) ext 12; runtime [23000, 24000) ext 12 -> K2 1000 ns
--         runtime [29500, 29800) without External id -> K3 500 ns
--       nn.Module: Linear_0 [5] <- 2 [31000, 40000)          the same path again
--     helper (python_function) [6] <- 1 [45000, 50000)
--   nn.Module: Net_0 [7] [61000, 90000)                      a second pass: same root path
--     nn.Module: Drop"out_0 [8] <- 7 [62000, 63000)
--   nn.Module: Aux_3 [9] <- 999 (no such id: a root) [91000, 95000), module id 3
-- Thread 20: nn.Module: Block_0 [10] <- 7 [70000, 75000): Net_0's child across threads
-- Thread 30: loop_a [20] <- 21, loop_b [21] <- 20 (a cycle), nn.Module: Cyc_0 [22] <- 20
--   [0, 2000): a root (TM-2)
-- Rank 1: one cpu_op, no python_function: no rows (TM-1).
CREATE TEMP TABLE ev(t, seq, cat, name, tid, ts, dur, stream, ext, link, args);
INSERT INTO trace(trace_id, rank, rank_source, file_name, file_size, content_hash, event_count, min_ts, max_end)
VALUES (1, 0, 'distributedInfo', 'r0.json', 0, 'h1', 0, 0, 100000),
       (2, 1, 'distributedInfo', 'r1.json', 0, 'h2', 0, 0, 1000);
INSERT INTO temp.ev VALUES
  (1, 1, 'user_annotation', 'ProfilerStep#1', 10, 0, 100000, NULL, 1, NULL, NULL),
  (1, 2, 'python_function', 'nn.Module: Net_0', 10, 1000, 59000, NULL, NULL, NULL,
   '{"Python id":1,"Python parent id":null,"Python module id":0}'),
  (1, 3, 'python_function', 'forward', 10, 1100, 57900, NULL, NULL, NULL, '{"Python id":2,"Python parent id":1}'),
  (1, 4, 'python_function', 'nn.Module: Linear_0', 10, 2000, 18000, NULL, NULL, NULL,
   '{"Python id":3,"Python parent id":2,"Python module id":0}'),
  (1, 5, 'cpu_op', 'aten::linear', 10, 3000, 15000, NULL, 10, NULL, NULL),
  (1, 6, 'cpu_op', 'aten::addmm', 10, 4000, 13000, NULL, 11, NULL, NULL),
  (1, 7, 'cuda_runtime', 'cudaLaunchKernel', 10, 5000, 1000, NULL, 11, 31, NULL),
  (1, 8, 'python_function', 'nn.Module: ReLU_0', 10, 21000, 9000, NULL, NULL, NULL,
   '{"Python id":4,"Python parent id":2,"Python module id":0}'),
  (1, 9, 'cpu_op', 'aten::relu', 10, 22000, 7000, NULL, 12, NULL, NULL),
  (1, 10, 'cuda_runtime', 'cudaLaunchKernel', 10, 23000, 1000, NULL, 12, 32, NULL),
  (1, 11, 'cuda_runtime', 'cudaLaunchKernel', 10, 29500, 300, NULL, NULL, 33, NULL),
  (1, 12, 'python_function', 'nn.Module: Linear_0', 10, 31000, 9000, NULL, NULL, NULL,
   '{"Python id":5,"Python parent id":2,"Python module id":0}'),
  (1, 13, 'python_function', 'helper', 10, 45000, 5000, NULL, NULL, NULL, '{"Python id":6,"Python parent id":1}'),
  (1, 14, 'python_function', 'nn.Module: Net_0', 10, 61000, 29000, NULL, NULL, NULL,
   '{"Python id":7,"Python module id":0}'),
  (1, 15, 'python_function', 'nn.Module: Drop"out_0', 10, 62000, 1000, NULL, NULL, NULL,
   '{"Python id":8,"Python parent id":7,"Python module id":0}'),
  (1, 16, 'python_function', 'nn.Module: Aux_3', 10, 91000, 4000, NULL, NULL, NULL,
   '{"Python id":9,"Python parent id":999,"Python module id":3}'),
  (1, 17, 'python_function', 'nn.Module: Block_0', 20, 70000, 5000, NULL, NULL, NULL,
   '{"Python id":10,"Python parent id":7,"Python module id":0}'),
  (1, 18, 'python_function', 'loop_a', 30, 0, 2000, NULL, NULL, NULL, '{"Python id":20,"Python parent id":21}'),
  (1, 19, 'python_function', 'loop_b', 30, 0, 2000, NULL, NULL, NULL, '{"Python id":21,"Python parent id":20}'),
  (1, 20, 'python_function', 'nn.Module: Cyc_0', 30, 0, 2000, NULL, NULL, NULL,
   '{"Python id":22,"Python parent id":20,"Python module id":0}'),
  (1, 31, 'kernel', 'k_linear', 7, 7000, 2000, 7, 11, 7, NULL),
  (1, 32, 'kernel', 'k_relu', 7, 25000, 1000, 7, 12, 10, NULL),
  (1, 33, 'kernel', 'k_noext', 7, 30000, 500, 7, NULL, 11, NULL),
  (2, 1, 'cpu_op', 'aten::mm', 10, 0, 1000, NULL, 1, NULL, NULL);
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, stream,
                  device, external_id, link_id, args)
SELECT (t << 32) | seq, t, t - 1, seq, 'X', (SELECT category_id FROM category WHERE name = cat),
       (SELECT string_id FROM string WHERE value = name), 1, tid, ts, dur, stream,
       CASE WHEN stream IS NOT NULL THEN 0 END, ext, CASE WHEN link IS NOT NULL THEN (t << 32) | link END, args
FROM temp.ev;
UPDATE trace SET event_count = (SELECT count(*) FROM event e WHERE e.trace_id = trace.trace_id);

SELECT 'tm_01_module', count(*) = 1 FROM pragma_module_list WHERE name = 'hta_module_stats';
SELECT 'tm_02_columns', group_concat(name, ',') =
  'rank,path,name,module_id,depth,occurrences,operators,host_total_us,host_self_us,device_total_us,'
  || 'device_self_us,trace_id,job' FROM pragma_table_info('hta_module_stats');
SELECT 'tm_03_hidden', (SELECT group_concat(name) FROM pragma_table_xinfo('hta_module_stats') WHERE hidden)
  = 'plugin_quirks,schema';

-- TM-2, TM-3: one row per path, depth first; roots by name; children by first call; the
-- plain python calls (forward, helper) and the cycle are no rows; Net_0's two passes and
-- Linear_0's two calls are one path each; Block_0 is Net_0's child from thread 20.
SELECT 'tm_04_rows', group_concat(path || '@' || depth, ' ') =
  '["Aux_3"]@0 ["Cyc_0"]@0 ["Net_0"]@0 ["Net_0","Linear_0"]@1 ["Net_0","ReLU_0"]@1 '
  || '["Net_0","Drop\"out_0"]@1 ["Net_0","Block_0"]@1'
  FROM (SELECT * FROM hta_module_stats WHERE rank = 0 ORDER BY rowid);
SELECT 'tm_05_names_ids', group_concat(name || ':' || module_id, ',') =
  'Aux_3:3,Cyc_0:0,Net_0:0,Linear_0:0,ReLU_0:0,Drop"out_0:0,Block_0:0'
  FROM (SELECT * FROM hta_module_stats ORDER BY rowid);
SELECT 'tm_06_json', count(*) = 7 AND sum(json_valid(path)) = 7
  AND max(json_extract(path, '$[1]')) IS NOT NULL FROM hta_module_stats;
SELECT 'tm_07_path_is_json_array', (SELECT path FROM hta_module_stats WHERE name = 'Drop"out_0')
  = json_array('Net_0', 'Drop"out_0');

-- TM-4 (plugin_quirks 0): Net_0 = two calls of 59 and 29 us: host 88, self 59 - (18 + 9 + 9)
-- + 29 - 1 = 51; device total 2 (Linear_0) + 1 + 0.5 (ReLU_0) = 3.5, self 0 (no operator
-- child, no runtime). Linear_0: calls 18 + 9 = 27, self (18 - 15) + 9 = 12, one operator
-- child (aten::linear, device total 2 = self). ReLU_0: self 9 - 7 - 0.3 (the id-less
-- runtime hangs under ReLU_0, which holds it: TB-6) = 1.7; device 1 + 0.5; self the same.
SELECT 'tm_08_net', occurrences || '|' || operators || '|' || host_total_us || '|' || host_self_us || '|'
  || device_total_us || '|' || device_self_us = '2|0|88.0|51.0|3.5|0.0'
  FROM hta_module_stats WHERE path = '["Net_0"]';
SELECT 'tm_09_linear', occurrences || '|' || operators || '|' || host_total_us || '|' || host_self_us || '|'
  || device_total_us || '|' || device_self_us = '2|1|27.0|12.0|2.0|2.0'
  FROM hta_module_stats WHERE name = 'Linear_0';
SELECT 'tm_10_relu', occurrences || '|' || operators || '|' || host_self_us || '|' || device_total_us || '|'
  || device_self_us = '1|1|1.7|1.5|1.5' FROM hta_module_stats WHERE name = 'ReLU_0';
SELECT 'tm_11_leaves', group_concat(name || '=' || occurrences || '/' || host_total_us || '/' || host_self_us, ',')
  = 'Aux_3=1/4.0/4.0,Cyc_0=1/2.0/2.0,Drop"out_0=1/1.0/1.0,Block_0=1/5.0/5.0'
  FROM (SELECT * FROM hta_module_stats WHERE name IN ('Aux_3', 'Cyc_0', 'Drop"out_0', 'Block_0') ORDER BY rowid);

-- TM-5 with the plugin's attachment (bit 1): the id-less runtime goes to the first module
-- (Net_0's first call): ReLU_0 self 9 - 7 = 2.0, device 1.0; Net_0 self 51 - 0.3 = 50.7,
-- device self 0.5, total unchanged.
SELECT 'tm_12_quirk_relu', host_self_us || '|' || device_total_us || '|' || device_self_us = '2.0|1.0|1.0'
  FROM hta_module_stats(127) WHERE name = 'ReLU_0';
SELECT 'tm_13_quirk_net', host_self_us || '|' || device_total_us || '|' || device_self_us = '50.7|3.5|0.5'
  FROM hta_module_stats(1) WHERE name = 'Net_0';

-- TM-1: rank 1 has no module; rank filter; trace_id; bad parameter
SELECT 'tm_14_no_modules', count(*) = 0 FROM hta_module_stats WHERE rank = 1;
SELECT 'tm_15_rank_trace', count(*) = 7 AND min(rank) = 0 AND max(trace_id) = 1 FROM hta_module_stats WHERE rank = 0;
.shell sh -c "sqlite3 :memory: -cmd '.load $HTA_EXT' 'SELECT * FROM hta_module_stats(128)' 2>&1 | grep -qF 'hta_module_stats: plugin_quirks must be an integer from 0 to 127' && echo 'tm_16_bad_quirks|1' || echo 'tm_16_bad_quirks|0'"
