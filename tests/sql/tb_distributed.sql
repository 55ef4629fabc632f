-- The TensorBoard plugin's Distributed view (tb_distributed.c DV-1..6):
-- hta_distributed_overlap and hta_distributed_comm_ops on hand-made jobs. Times are us
-- (x1000 into ns). No runtime call anywhere: every step keeps its host window (TV-4).
--
-- Job dist2, two ranks, NCCL. Both: ProfilerStep#1 [0,100), ProfilerStep#2 [100,200).
--   rank 0: compute kernels [10,40) [110,150); operations (cpu_op, External id):
--     op1 nccl:all_reduce [20,30) id 1, its kernel [30,50); Input Dims [[2,3],[4]] of
--         float, c10::Half: 6*4 + 4*2 = 32 bytes
--     op2 nccl:all_reduce [120,125) id 2, kernel [140,170); "Input dims" [[10]] long int: 80
--     op3 nccl:broadcast [205,210) id 3, kernel [210,215); [[1],[]] of bool, int: 0 + 1*4 = 4
--   rank 1: compute kernels [40,60) [160,180); op1 [25,28) id 7 + kernel [28,45);
--     op2 [130,131) id 8 + [150,170); op3 broadcast [205,206) id 9 + [212,215); no shapes.
-- Steps of the operations (DV-3): op1 step 1, op2 step 2, op3 after the last step: none.
-- Transfer (DV-4), range by range, m = the shortest of the two ranks:
--   op1 [20,30)|[25,28) m 3 -> [27,30)|[25,28); [30,50)|[28,45) m 17 -> [33,50)|[28,45)
--   op2 [120,125)|[130,131) m 1 -> [124,125)|[130,131); [140,170)|[150,170) m 20 -> both [150,170)
--   op3 [205,210)|[205,206) m 1 -> [209,210)|[205,206); [210,215)|[212,215) m 3 -> both [212,215)
-- Wait (DV-5): rank 0 step 1: |[20,50)| = 30, transfer 3 + 17 = 20, wait 10; step 2: 5 + 30 =
--   35, transfer 1 + 20 = 21, wait 14; no step: 10, transfer 1 + 3 = 4, wait 6; all: transfer
--   (20 + 21 + 4) / 3 = 15, wait (10 + 14 + 6) / 3 = 10. rank 1: 20/20, 21/21, 4/4: wait 0.
-- Overlap (DV-5), computation = the Kernel role (compute kernels), communication = the
--   operations and their kernels. rank 0 step 1: comp 30, comm |[20,50)| 30, ov [20,40) 20:
--   10/20/10/60 (other 100 + 20 - 30 - 30); step 2: comp 40, comm 5 + 30, ov 5 + 10:
--   25/15/20/40; all 17.5/17.5/15/50. rank 1 step 1: comp 20, comm 20, ov [40,45) 5:
--   15/5/15/65; step 2: comp 20, comm 1 + 20, ov [160,170) 10: 10/10/11/69; all 12.5/7.5/13/67.
-- Comm ops (DV-6): rank 0 all_reduce 2 calls, 112 B, total 30 + 5 + 30 = 65, transfer 41,
--   wait 24; broadcast 1, 4 B, 10, 4, 6. rank 1: all_reduce 2, 0 B, 41, 41, 0; broadcast 1,
--   0 B, 4, 4, 0.
-- Job copy, one rank: ProfilerStep#3 cpu_op [0,100) and gpu_user_annotation ProfilerStep#3
--   [100,150); nccl:all_gather cpu_op [10,20) id 5 and its GPU-side copy (gpu_user_annotation)
--   [30,40) id 5: one operation, the copy's [30,40), in the host event's place; kernel id 5
--   [30,40). No Kernel-role kernel: computation is CPU Exec: cpu_op aten::mul [15,35).
--   Step "3" (first): comp 20, comm [10,20) + [30,40) = 20, ov [15,20) + [30,35) = 10:
--   10/10/10/70; the second "3" [100,150): 0/0/0/50, which the row shows (the last of the
--   name); all = (10/10/10/70 + 0/0/0/50) / 2 = 5/5/5/60. One worker: transfer = latency =
--   |[30,40)| = 10, wait 0.
-- Job spans: rank 0 twice, files w.1.json (one gloo:broadcast [10,30) id 1) and w.2.json
--   (gloo:broadcast [10,20) id 1 and [50,55) without External id: its own operation): two
--   spans of one file each (DV-1), both shown, though their operation counts differ.
-- Job many, one rank: 20 steps ProfilerStep#1..20 over [10(i-1), 10i) and one operation
--   nccl:all_reduce [2,4) id 1 in step 1 (no kernel; computation is CPU Exec: none). Step 1:
--   0/0/2/8, the others 0/0/0/10; all: 0/0/(2/20)/((8 + 19*10)/20) = 0/0/0.1/9.9; transfer 2,
--   wait 0. 21 rows: the "all" row, written last, must survive the result table's growth.
-- Jobs mismatch (2 operations on rank 0, 1 on rank 1), nocomm (rank 1 without operation) and
--   mixed (NCCL and Gloo names in one file) have no Distributed view: no rows.
CREATE TEMP TABLE ev(tr, seq, cat, name, ts, dur, ext, dev, args);
INSERT INTO job(job_id, name) VALUES (1, 'dist2'), (2, 'copy'), (3, 'mismatch'), (4, 'nocomm'), (5, 'mixed'),
  (6, 'spans'), (7, 'many');
INSERT INTO trace(trace_id, job_id, rank, rank_source, file_name, file_size, content_hash, event_count, min_ts, max_end)
VALUES (1, 1, 0, 'default', 'r0.json', 0, 'h1', 0, 0, 300000), (2, 1, 1, 'default', 'r1.json', 0, 'h2', 0, 0, 300000),
       (3, 2, 0, 'default', 'c.json', 0, 'h3', 0, 0, 300000),
       (4, 3, 0, 'default', 'm0.json', 0, 'h4', 0, 0, 300000), (5, 3, 1, 'default', 'm1.json', 0, 'h5', 0, 0, 300000),
       (6, 4, 0, 'default', 'n0.json', 0, 'h6', 0, 0, 300000), (7, 4, 1, 'default', 'n1.json', 0, 'h7', 0, 0, 300000),
       (8, 5, 0, 'default', 'x.json', 0, 'h8', 0, 0, 300000),
       (9, 6, 0, 'default', 'w.1.json', 0, 'h9', 0, 0, 300000), (10, 6, 0, 'default', 'w.2.json', 0, 'h10', 0, 0, 300000),
       (11, 7, 0, 'default', 'many.json', 0, 'h11', 0, 0, 300000);
INSERT INTO temp.ev VALUES
  (1, 1, 'cpu_op', 'ProfilerStep#1', 0, 100, NULL, NULL, NULL),
  (1, 2, 'cpu_op', 'ProfilerStep#2', 100, 100, NULL, NULL, NULL),
  (1, 3, 'kernel', 'gemm', 10, 30, NULL, 0, NULL),
  (1, 4, 'kernel', 'gemm', 110, 40, NULL, 0, NULL),
  (1, 5, 'cpu_op', 'nccl:all_reduce', 20, 10, 1, NULL, '{"Input Dims":[[2,3],[4]],"Input type":["float","c10::Half"]}'),
  (1, 6, 'kernel', 'ncclKernel', 30, 20, 1, 0, NULL),
  (1, 7, 'cpu_op', 'nccl:all_reduce', 120, 5, 2, NULL, '{"Input dims":[[10]],"Input type":["long int"]}'),
  (1, 8, 'kernel', 'ncclKernel', 140, 30, 2, 0, NULL),
  (1, 9, 'cpu_op', 'nccl:broadcast', 205, 5, 3, NULL, '{"Input Dims":[[1],[]],"Input type":["bool","int"]}'),
  (1, 10, 'kernel', 'ncclKernel', 210, 5, 3, 0, NULL),
  (2, 1, 'cpu_op', 'ProfilerStep#1', 0, 100, NULL, NULL, NULL),
  (2, 2, 'cpu_op', 'ProfilerStep#2', 100, 100, NULL, NULL, NULL),
  (2, 3, 'kernel', 'gemm', 40, 20, NULL, 0, NULL),
  (2, 4, 'kernel', 'gemm', 160, 20, NULL, 0, NULL),
  (2, 5, 'cpu_op', 'nccl:all_reduce', 25, 3, 7, NULL, NULL),
  (2, 6, 'kernel', 'ncclKernel', 28, 17, 7, 0, NULL),
  (2, 7, 'cpu_op', 'nccl:all_reduce', 130, 1, 8, NULL, NULL),
  (2, 8, 'kernel', 'ncclKernel', 150, 20, 8, 0, NULL),
  (2, 9, 'cpu_op', 'nccl:broadcast', 205, 1, 9, NULL, NULL),
  (2, 10, 'kernel', 'ncclKernel', 212, 3, 9, 0, NULL),
  (3, 1, 'cpu_op', 'ProfilerStep#3', 0, 100, NULL, NULL, NULL),
  (3, 2, 'gpu_user_annotation', 'ProfilerStep#3', 100, 50, NULL, NULL, NULL),
  (3, 3, 'cpu_op', 'nccl:all_gather', 10, 10, 5, NULL, NULL),
  (3, 4, 'gpu_user_annotation', 'nccl:all_gather', 30, 10, 5, NULL, NULL),
  (3, 5, 'kernel', 'ncclKernel', 30, 10, 5, 0, NULL),
  (3, 6, 'cpu_op', 'aten::mul', 15, 20, NULL, NULL, NULL),
  (4, 1, 'cpu_op', 'ProfilerStep#1', 0, 100, NULL, NULL, NULL),
  (4, 2, 'cpu_op', 'nccl:all_reduce', 10, 10, 1, NULL, NULL),
  (4, 3, 'cpu_op', 'nccl:all_reduce', 30, 10, 2, NULL, NULL),
  (5, 1, 'cpu_op', 'ProfilerStep#1', 0, 100, NULL, NULL, NULL),
  (5, 2, 'cpu_op', 'nccl:all_reduce', 10, 10, 1, NULL, NULL),
  (6, 1, 'cpu_op', 'ProfilerStep#1', 0, 100, NULL, NULL, NULL),
  (6, 2, 'cpu_op', 'nccl:all_reduce', 10, 10, 1, NULL, NULL),
  (7, 1, 'cpu_op', 'ProfilerStep#1', 0, 100, NULL, NULL, NULL),
  (8, 1, 'cpu_op', 'ProfilerStep#1', 0, 100, NULL, NULL, NULL),
  (8, 2, 'cpu_op', 'nccl:all_reduce', 10, 10, 1, NULL, NULL),
  (8, 3, 'cpu_op', 'gloo:all_reduce', 30, 10, 2, NULL, NULL),
  (9, 1, 'cpu_op', 'ProfilerStep#1', 0, 100, NULL, NULL, NULL),
  (9, 2, 'cpu_op', 'gloo:broadcast', 10, 20, 1, NULL, NULL),
  (10, 1, 'cpu_op', 'ProfilerStep#1', 0, 100, NULL, NULL, NULL),
  (10, 2, 'cpu_op', 'gloo:broadcast', 10, 10, 1, NULL, NULL),
  (10, 3, 'cpu_op', 'gloo:broadcast', 50, 5, NULL, NULL, NULL);
WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < 20)
INSERT INTO temp.ev SELECT 11, n, 'cpu_op', 'ProfilerStep#' || n, 10 * (n - 1), 10, NULL, NULL, NULL FROM i;
INSERT INTO temp.ev VALUES (11, 21, 'cpu_op', 'nccl:all_reduce', 2, 2, 1, NULL, NULL);
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, external_id,
                  device, args)
SELECT (tr << 32) | seq, tr, (SELECT rank FROM trace WHERE trace_id = tr), seq, 'X',
       (SELECT category_id FROM category WHERE name = cat), (SELECT string_id FROM string WHERE value = name),
       1, 1, ts * 1000, dur * 1000, ext, dev, args
FROM temp.ev;

SELECT 'dv_01_columns', (SELECT group_concat(name, ',') FROM pragma_table_info('hta_distributed_overlap')) =
  'rank,step,computation_us,overlapping_us,communication_us,other_us,transfer_us,wait_us,trace_id,job'
  AND (SELECT group_concat(name, ',') FROM pragma_table_info('hta_distributed_comm_ops')) =
  'rank,name,calls,bytes,total_us,transfer_us,wait_us,trace_id,job';
-- DV-3..5 on dist2: rows all, the steps, then the operations without step (NULL: no overlap)
SELECT 'dv_02_overlap', group_concat(rank || ' ' || ifnull(step, '-') || ': ' || ifnull(computation_us, '-') || '/'
  || ifnull(overlapping_us, '-') || '/' || ifnull(communication_us, '-') || '/' || ifnull(other_us, '-') || ' '
  || transfer_us || '/' || wait_us, ', ') =
  '0 all: 17.5/17.5/15.0/50.0 15.0/10.0, 0 1: 10.0/20.0/10.0/60.0 20.0/10.0, 0 2: 25.0/15.0/20.0/40.0 21.0/14.0, '
  || '0 -: -/-/-/- 4.0/6.0, '
  || '1 all: 12.5/7.5/13.0/67.0 15.0/0.0, 1 1: 15.0/5.0/15.0/65.0 20.0/0.0, 1 2: 10.0/10.0/11.0/69.0 21.0/0.0, '
  || '1 -: -/-/-/- 4.0/0.0'
  FROM hta_distributed_overlap WHERE job = 'dist2';
-- DV-6 on dist2: bytes from Input Dims (or Input dims) and Input type
SELECT 'dv_03_comm_ops', group_concat(rank || ' ' || name || ': ' || calls || ' ' || bytes || ' ' || total_us || '/'
  || transfer_us || '/' || wait_us, ', ') =
  '0 nccl:all_reduce: 2 112 65.0/41.0/24.0, 0 nccl:broadcast: 1 4 10.0/4.0/6.0, '
  || '1 nccl:all_reduce: 2 0 41.0/41.0/0.0, 1 nccl:broadcast: 1 0 4.0/4.0/0.0'
  FROM hta_distributed_comm_ops WHERE job = 'dist2';
-- DV-1: WHERE rank = 1 shows rank 1's rows of the view over both ranks
SELECT 'dv_04_rank', (SELECT group_concat(transfer_us) FROM hta_distributed_overlap WHERE job = 'dist2' AND rank = 1)
  = '15.0,20.0,21.0,4.0';
-- DV-2, DV-5 on copy: the GPU-side copy replaces the host event; a repeated step name shows its
-- last step; CPU Exec is the computation without Kernel-role kernels
SELECT 'dv_05_copy', group_concat(ifnull(step, '-') || ': ' || computation_us || '/' || overlapping_us || '/'
  || communication_us || '/' || other_us || ' ' || ifnull(transfer_us, '-') || '/' || ifnull(wait_us, '-'), ', ') =
  'all: 5.0/5.0/5.0/60.0 10.0/0.0, 3: 0.0/0.0/0.0/50.0 10.0/0.0'
  FROM hta_distributed_overlap WHERE job = 'copy';
SELECT 'dv_06_copy_ops', (SELECT group_concat(name || ' ' || calls || ' ' || total_us || '/' || transfer_us)
  FROM hta_distributed_comm_ops WHERE job = 'copy') = 'nccl:all_gather 1 10.0/10.0';
-- DV-1: no view for mismatched counts, a rank without operations, both libraries in a file
SELECT 'dv_07_no_view', (SELECT count(*) FROM hta_distributed_overlap WHERE job IN ('mismatch', 'nocomm', 'mixed'))
  + (SELECT count(*) FROM hta_distributed_comm_ops WHERE job IN ('mismatch', 'nocomm', 'mixed')) = 0;
-- DV-1, DV-2: two files of one rank are two spans; an operation without External id is its own
SELECT 'dv_08_spans', (SELECT group_concat(trace_id || ' ' || name || ' ' || calls || ' ' || total_us, ', ')
  FROM hta_distributed_comm_ops WHERE job = 'spans') = '9 gloo:broadcast 1 20.0, 10 gloo:broadcast 2 15.0';
SELECT 'dv_09_types', typeof(rank) || typeof(step) || typeof(computation_us) || typeof(trace_id)
  = 'integertextrealinteger' FROM hta_distributed_overlap LIMIT 1;
-- DV-5 on many: the "all" row (first, filled last) over 20 steps
SELECT 'dv_10_many', (SELECT count(*) FROM hta_distributed_overlap WHERE job = 'many') = 21
  AND (SELECT computation_us || '/' || overlapping_us || '/' || communication_us || '/' || other_us || ' '
       || transfer_us || '/' || wait_us FROM hta_distributed_overlap WHERE job = 'many' AND step = 'all')
      = '0.0/0.0/0.1/9.9 2.0/0.0';
