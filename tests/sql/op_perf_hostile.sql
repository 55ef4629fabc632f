-- hta_op_perf and hta_kernel_stats on hostile shapes and kernel args (found by review under UBSan:
-- signed overflow and float-to-int casts). A model whose arithmetic would overflow int64 drops
-- the call (no row, as a model that raises); a kernel's registers or shared memory beyond int64
-- count as absent (0). Under make test-asan any overflow left aborts this file.
CREATE TEMP TABLE ev(seq, tid, cat, name, ts, dur, args);
INSERT INTO trace(trace_id, rank, rank_source, file_name, file_size, content_hash, event_count, min_ts, max_end)
VALUES (1, 0, 'distributedInfo', 'r0.json', 0, 'h1', 0, 0, 100000000);
INSERT INTO temp.ev VALUES
  -- padding of 2^63 - 1 on a side: the output shape overflows
  (1, 1, 'cpu_op', 'aten::replication_pad2d', 0, 10000, '{"Input Dims":[[1,3,8,8],[]],"Input Strides":[[192,64,8,1],[]],"Input type":["float","ScalarList"],"Concrete Inputs":["","[9223372036854775807, 9223372036854775807, 1, 1]"]}'),
  -- an input dimension of 2^63 - 1 with a padding of 2^63 - 1
  (2, 1, 'cpu_op', 'aten::convolution', 20000, 10000,
   '{"Input Dims":[[1,3,8,9223372036854775807],[4,3,3,3],[],[],[],[],[],[],[]],"Input type":["c10::BFloat16","c10::BFloat16","","ScalarList","ScalarList","ScalarList","Scalar","ScalarList","Scalar"],"Concrete Inputs":["","","","[1, 1]","[9223372036854775807, 1]","[1, 1]","False","[0, 0]","1"]}'),
  -- a transposed convolution with a stride of 2^63 - 1
  (3, 1, 'cpu_op', 'aten::convolution', 40000, 10000,
   '{"Input Dims":[[1,3,8,8],[4,3,3,3],[],[],[],[],[],[],[]],"Input type":["c10::BFloat16","c10::BFloat16","","ScalarList","ScalarList","ScalarList","Scalar","ScalarList","Scalar"],"Concrete Inputs":["","","","[9223372036854775807, 1]","[1, 1]","[1, 1]","True","[0, 0]","1"]}'),
  -- a sane one: x [1,3,8,8], w [4,3,3,3], stride 1, no padding: y [1,4,6,6];
  -- FLOPs 2 * (3*3*3) * (4*6*6) = 7776
  (4, 1, 'cpu_op', 'aten::convolution', 60000, 10000,
   '{"Input Dims":[[1,3,8,8],[4,3,3,3],[],[],[],[],[],[],[]],"Input type":["c10::BFloat16","c10::BFloat16","","ScalarList","ScalarList","ScalarList","Scalar","ScalarList","Scalar"],"Concrete Inputs":["","","","[1, 1]","[0, 0]","[1, 1]","False","[0, 0]","1"]}'),
  (5, 1, 'kernel', 'k', 80000, 10, '{"registers per thread": 1e300, "shared memory": 1e400, "grid":[1,1,1]}'),
  (6, 1, 'kernel', 'k2', 90000, 10, '{"registers per thread": 32, "shared memory": 1024.0, "grid":[1,1,1]}');
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, stream, args, device)
SELECT (1 << 32) | seq, 1, 0, seq, 'X', (SELECT category_id FROM category WHERE name = cat),
       (SELECT string_id FROM string WHERE value = name), 1, tid, ts, dur,
       CASE WHEN cat = 'kernel' THEN 7 END, args, CASE WHEN cat = 'kernel' THEN 0 END
FROM temp.ev;

SELECT 'oph_rows', (SELECT group_concat(event_id & 0xffffffff) FROM hta_op_perf('instance')) = '4';
SELECT 'oph_sane_conv', (SELECT gflops FROM hta_op_perf('instance') WHERE (event_id & 0xffffffff) = 4) = 7.776e-06;
SELECT 'oph_kernel_args', (SELECT group_concat(name || ':' || registers_per_thread || ':' || shared_memory, ' ')
  FROM (SELECT * FROM hta_kernel_stats ORDER BY name)) = 'k:0:0 k2:32:1024';
