-- The TensorBoard plugin's Overview (tb_steps.c TV-1..9, tb_overview.c OV-1..3):
-- hta_step_time_breakdown and hta_execution_summary on hand-made traces. Times below are
-- us (the INSERT multiplies by 1000 into ns); every trace's min_ts is 0, so the job's origin
-- is 0 and the *_start_us / *_end_us columns read as written here.
--
-- Trace 1 (rank 0): the device walk, the tail of earlier work, the tail rule, the roles.
--   steps  S1 cpu_op ProfilerStep#1 [10,50)   S2 user_annotation ProfilerStep#2 [50,90)
--          S3 cpu_op ProfilerStep#03 [90,130)  S4 cpu_op ProfilerStep#4 [130,170)
--   runtime calls (correlation -> device work):
--          R0 [5,8) c100 -> K0 kernel [20,30)      before S1: skipped
--          R1 [12,14) c1 -> K1 kernel [35,45)      in S1
--          R2 [15,20) c2 -> M2 memcpy [45,52)      in S1
--          R3 [48,55) c3 -> K3 kernel [60,62)      starts in S1, ends after: skipped
--          R4 [60,62) c4 -> K4 kernel [70,100)     in S2
--          R5 [95,97) c5 -> K5 kernel [105,110)    in S3
--          R6 [100,101) c6 -> MS6 memset [110,112) in S3
--          R7 [140,141) c7 -> K7 kernel [150,151)  in S4
--   communication: cpu_op nccl:all_reduce [115,125) External id 500; kernel K8 [118,128)
--          whose args say "external id": 500 (its promoted External id 999 loses, TV-2)
--   others: cpu_op enumerate(DataLoader)#It.__next__ [22,33) (DataLoader), cpu_op aten::mm
--          [11,40), user_annotation fwd [60,95), python py [126,129) (CPU Exec),
--          cuda_driver cuLaunchKernel [102,104) (ignored, TV-1)
--   Walk (TV-4): S1 takes R1, R2 (2 ops: K1, M2), S2 R4 (1), S3 R5, R6 (2), S4 R7 (1).
--   Tail rule (TV-5): the last step with work is S4; S3 has 2 * 0.8 > 1: S4 goes too.
--   prev: S1 starts its work at 35; K0 (unmatched) ends at 30 < 35; K3 ends at 62: prev = 30.
--   Windows: S1 [max(30,10), max(50,52)) = [30,52); S2 [52, max(90,100)) = [52,100);
--            S3 [100, max(130,112)) = [100,130).
--   Costs (TV-7), by priority:
--     S1 [30,52): DataLoader [30,33) 3, CPU Exec [33,35) 2, Kernel K1 [35,45) 10,
--        Memcpy [45,52) 7 (R3's [48,52) is under it): Other 0; total 22.
--     S2 [52,100): Runtime R3 [52,55) 3, Other [55,60) 5, Kernel K3 [60,62) + K4 [70,100) 32,
--        CPU Exec fwd [62,70) 8; total 48.
--     S3 [100,130): Runtime R6 [100,101) 1, Other [101,105) 4 (the cuda_driver call is no
--        runtime), Kernel K5 5, Memset [110,112) 2, Other [112,115) 3, Communication
--        [115,128) 13, CPU Exec py [128,129) 1, Other [129,130) 1; total 30.
-- Trace 2 (rank 1): GPU-side step copies (gpu_user_annotation) and one call per step.
--   H7 user_annotation ProfilerStep#7 [0,40), G7 gpu_user_annotation ProfilerStep#7 [10,50),
--   H8 cpu_op ProfilerStep#8 [40,80), G8 gpu_user_annotation ProfilerStep#8 [50,90).
--   Ra [5,6) -> Ka [10,20), Rb [20,22) -> Kb [25,35), Rc [45,46) -> Kc [50,60),
--   Rd [60,62) -> Kd [65,85).
--   Walk: H7 takes Ra, Rb (2); Rc starts after H7's end: next step G7 [10,50) takes Rc (1);
--   Rd after 50: H8 takes Rd (1); G8 none. Tail: H8 is last with work, G7 has 1 * 0.8 < 1:
--   kept H7, G7, H8 ("7", "7", "8"). prev = 0. Windows: H7 [0,40), G7 [40,60), H8 [60,85).
--   Costs: H7 Kernel 10+10, Runtime 1+2, Other 17; G7 Kernel 10, Runtime 1, Other 9;
--   H8 Kernel 20, Runtime 2, Other 3.
-- Trace 3 (rank 2): no ProfilerStep: one step "0" over the cpu_op and python events
--   (cpu_op aten::add [20,30), python f [25,40); the user_annotation outer [0,100) does not
--   count) = [20,40); its call [22,24) -> kernel [30,50) moves the end to 50: window [20,50).
--   Costs: Runtime [22,24) 2, CPU Exec (outer) [20,22) + [24,30) 8, Kernel [30,50) 20.
-- Trace 4 (rank 3): kernels only, no host event: no step at all (TV-3), no rows.
-- Trace 5 (rank 4): step [0,10), its call [2,4) -> kernel [0,10): Kernel 10, Runtime 0
--   (under the kernel), Other 0 (the plugin's restart quirk would give Runtime 2, Other 8).
-- Trace 6 (rank 5): CPU only: ProfilerStep#1 [0,10), user_annotation enumerate(DataPipe)#x
--   [2,5) (DataLoader 3), cuda_sync [5,6) (ignored), Other 7.
CREATE TEMP TABLE ev(tr, seq, cat, name, ts, dur, corr, ext, args);
INSERT INTO job(job_id, name) VALUES (1, 'tb');
INSERT INTO trace(trace_id, job_id, rank, rank_source, file_name, file_size, content_hash, event_count, min_ts, max_end)
VALUES (1, 1, 0, 'default', 't1.json', 0, 'h1', 0, 0, 200000), (2, 1, 1, 'default', 't2.json', 0, 'h2', 0, 0, 100000),
       (3, 1, 2, 'default', 't3.json', 0, 'h3', 0, 0, 100000), (4, 1, 3, 'default', 't4.json', 0, 'h4', 0, 0, 100000),
       (5, 1, 4, 'default', 't5.json', 0, 'h5', 0, 0, 100000), (6, 1, 5, 'default', 't6.json', 0, 'h6', 0, 0, 100000);
INSERT INTO temp.ev VALUES
  (1, 1, 'cpu_op', 'ProfilerStep#1', 10, 40, NULL, 1, NULL),
  (1, 2, 'user_annotation', 'ProfilerStep#2', 50, 40, NULL, 2, NULL),
  (1, 3, 'cpu_op', 'ProfilerStep#03', 90, 40, NULL, 3, NULL),
  (1, 4, 'cpu_op', 'ProfilerStep#4', 130, 40, NULL, 4, NULL),
  (1, 5, 'cuda_runtime', 'cudaLaunchKernel', 5, 3, 100, NULL, NULL),
  (1, 6, 'kernel', 'k0', 20, 10, 100, NULL, NULL),
  (1, 7, 'cuda_runtime', 'cudaLaunchKernel', 12, 2, 1, NULL, NULL),
  (1, 8, 'kernel', 'k1', 35, 10, 1, NULL, NULL),
  (1, 9, 'cuda_runtime', 'cudaMemcpyAsync', 15, 5, 2, NULL, NULL),
  (1, 10, 'gpu_memcpy', 'Memcpy HtoD', 45, 7, 2, NULL, NULL),
  (1, 11, 'cuda_runtime', 'cudaLaunchKernel', 48, 7, 3, NULL, NULL),
  (1, 12, 'kernel', 'k3', 60, 2, 3, NULL, NULL),
  (1, 13, 'cuda_runtime', 'cudaLaunchKernel', 60, 2, 4, NULL, NULL),
  (1, 14, 'kernel', 'k4', 70, 30, 4, NULL, NULL),
  (1, 15, 'cuda_runtime', 'cudaLaunchKernel', 95, 2, 5, NULL, NULL),
  (1, 16, 'kernel', 'k5', 105, 5, 5, NULL, NULL),
  (1, 17, 'cuda_runtime', 'cudaMemsetAsync', 100, 1, 6, NULL, NULL),
  (1, 18, 'gpu_memset', 'Memset', 110, 2, 6, NULL, NULL),
  (1, 19, 'cuda_runtime', 'cudaLaunchKernel', 140, 1, 7, NULL, NULL),
  (1, 20, 'kernel', 'k7', 150, 1, 7, NULL, NULL),
  (1, 21, 'cpu_op', 'nccl:all_reduce', 115, 10, NULL, 500, NULL),
  (1, 22, 'kernel', 'ncclKernel', 118, 10, NULL, 999, '{"external id":500}'),
  (1, 23, 'cpu_op', 'enumerate(DataLoader)#It.__next__', 22, 11, NULL, 23, NULL),
  (1, 24, 'cpu_op', 'aten::mm', 11, 29, NULL, 24, NULL),
  (1, 25, 'user_annotation', 'fwd', 60, 35, NULL, 25, NULL),
  (1, 26, 'python', 'py', 126, 3, NULL, NULL, NULL),
  (1, 27, 'cuda_driver', 'cuLaunchKernel', 102, 2, 77, NULL, NULL),
  (2, 1, 'user_annotation', 'ProfilerStep#7', 0, 40, NULL, NULL, NULL),
  (2, 2, 'gpu_user_annotation', 'ProfilerStep#7', 10, 40, NULL, NULL, NULL),
  (2, 3, 'cpu_op', 'ProfilerStep#8', 40, 40, NULL, NULL, NULL),
  (2, 4, 'gpu_user_annotation', 'ProfilerStep#8', 50, 40, NULL, NULL, NULL),
  (2, 5, 'cuda_runtime', 'cudaLaunchKernel', 5, 1, 11, NULL, NULL),
  (2, 6, 'kernel', 'ka', 10, 10, 11, NULL, NULL),
  (2, 7, 'cuda_runtime', 'cudaLaunchKernel', 20, 2, 12, NULL, NULL),
  (2, 8, 'kernel', 'kb', 25, 10, 12, NULL, NULL),
  (2, 9, 'cuda_runtime', 'cudaLaunchKernel', 45, 1, 13, NULL, NULL),
  (2, 10, 'kernel', 'kc', 50, 10, 13, NULL, NULL),
  (2, 11, 'cuda_runtime', 'cudaLaunchKernel', 60, 2, 14, NULL, NULL),
  (2, 12, 'kernel', 'kd', 65, 20, 14, NULL, NULL),
  (3, 1, 'user_annotation', 'outer', 0, 100, NULL, NULL, NULL),
  (3, 2, 'cpu_op', 'aten::add', 20, 10, NULL, NULL, NULL),
  (3, 3, 'python', 'f', 25, 15, NULL, NULL, NULL),
  (3, 4, 'cuda_runtime', 'cudaLaunchKernel', 22, 2, 21, NULL, NULL),
  (3, 5, 'kernel', 'kx', 30, 20, 21, NULL, NULL),
  (4, 1, 'kernel', 'ky', 0, 10, NULL, NULL, NULL),
  (4, 2, 'Kernel', 'kz', 20, 10, NULL, NULL, NULL),
  (5, 1, 'cpu_op', 'ProfilerStep#1', 0, 10, NULL, NULL, NULL),
  (5, 2, 'cuda_runtime', 'cudaLaunchKernel', 2, 2, 31, NULL, NULL),
  (5, 3, 'kernel', 'kw', 0, 10, 31, NULL, NULL),
  (6, 1, 'cpu_op', 'ProfilerStep#1', 0, 10, NULL, NULL, NULL),
  (6, 2, 'user_annotation', 'enumerate(DataPipe)#x', 2, 3, NULL, NULL, NULL),
  (6, 3, 'cuda_sync', 'Stream Sync', 5, 1, NULL, NULL, NULL);
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, correlation,
                  external_id, args)
SELECT (tr << 32) | seq, tr, tr - 1, seq, 'X', (SELECT category_id FROM category WHERE name = cat),
       (SELECT string_id FROM string WHERE value = name), 1, 1, ts * 1000, dur * 1000, corr, ext, args
FROM temp.ev;
-- an instant is no event of the plugin's (TV-1)
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur)
VALUES ((1 << 32) | 99, 1, 0, 99, 'i', (SELECT category_id FROM category WHERE name = 'cpu_op'),
        (SELECT string_id FROM string WHERE value = 'ProfilerStep#4'), 1, 1, 1000, NULL);

-- registration and columns (no parameter but schema)
SELECT 'tb_01_columns', group_concat(name, ',') =
  'rank,step,kernel_us,memcpy_us,memset_us,communication_us,runtime_us,dataloader_us,cpu_exec_us,'
  || 'other_us,total_us,step_pos,step_start_us,step_end_us,host_start_us,host_end_us,device_start_us,'
  || 'device_end_us,device_ops,trace_id,job'
  FROM pragma_table_info('hta_step_time_breakdown');
SELECT 'tb_02_summary_columns', group_concat(name, ',') = 'rank,role,mean_us,percentage,shown,steps,trace_id,job'
  FROM pragma_table_info('hta_execution_summary');
SELECT 'tb_03_hidden', (SELECT group_concat(name) FROM pragma_table_xinfo('hta_step_time_breakdown') WHERE hidden)
  = 'schema' AND (SELECT group_concat(name) FROM pragma_table_xinfo('hta_execution_summary') WHERE hidden) = 'schema';

-- TV-3..7 on trace 1: the kept steps, their windows and costs (the arithmetic above)
SELECT 'tb_04_trace1', group_concat(step_pos || ':' || step || ' [' || step_start_us || ',' || step_end_us
  || ') K' || kernel_us || ' Mc' || memcpy_us || ' Ms' || memset_us || ' C' || communication_us || ' R'
  || runtime_us || ' D' || dataloader_us || ' E' || cpu_exec_us || ' O' || other_us || ' T' || total_us, ', ') =
  '0:1 [30.0,52.0) K10.0 Mc7.0 Ms0.0 C0.0 R0.0 D3.0 E2.0 O0.0 T22.0, '
  || '1:2 [52.0,100.0) K32.0 Mc0.0 Ms0.0 C0.0 R3.0 D0.0 E8.0 O5.0 T48.0, '
  || '2:3 [100.0,130.0) K5.0 Mc0.0 Ms2.0 C13.0 R1.0 D0.0 E1.0 O8.0 T30.0'
  FROM hta_step_time_breakdown WHERE rank = 0;
-- TV-4: the host windows, the device work each step launched
SELECT 'tb_05_trace1_host_device', group_concat(host_start_us || '-' || host_end_us || '/' || device_start_us
  || '-' || device_end_us || '/' || device_ops, ' ') = '10.0-50.0/35.0-52.0/2 50.0-90.0/70.0-100.0/1 90.0-130.0/105.0-112.0/2'
  FROM hta_step_time_breakdown WHERE rank = 0;
-- TV-7: the costs add up to the window
SELECT 'tb_06_costs_add_up', count(*) = 0 FROM hta_step_time_breakdown
 WHERE abs(kernel_us + memcpy_us + memset_us + communication_us + runtime_us + dataloader_us + cpu_exec_us
           + other_us - total_us) > 1e-9;

-- TV-3, TV-4 on trace 2: GPU-side copies are steps; one call is looked at for one step only
SELECT 'tb_07_trace2', group_concat(step || ' [' || step_start_us || ',' || step_end_us || ') ' || device_ops
  || ' K' || kernel_us || ' R' || runtime_us || ' O' || other_us, ', ') =
  '7 [0.0,40.0) 2 K20.0 R3.0 O17.0, 7 [40.0,60.0) 1 K10.0 R1.0 O9.0, 8 [60.0,85.0) 1 K20.0 R2.0 O3.0'
  FROM hta_step_time_breakdown WHERE rank = 1;
-- TV-3: the fallback step "0" over operators and python only; its device end
SELECT 'tb_08_fallback', group_concat(step || ' host ' || host_start_us || '-' || host_end_us || ' [' || step_start_us
  || ',' || step_end_us || ') K' || kernel_us || ' R' || runtime_us || ' E' || cpu_exec_us || ' O' || other_us) =
  '0 host 20.0-40.0 [20.0,50.0) K20.0 R2.0 E8.0 O0.0' FROM hta_step_time_breakdown WHERE rank = 2;
-- TV-3: a GPU-only trace has no step: no rows in either function (OV-1)
SELECT 'tb_09_gpu_only', (SELECT count(*) FROM hta_step_time_breakdown WHERE rank = 3) = 0
  AND (SELECT count(*) FROM hta_execution_summary WHERE rank = 3) = 0;
-- TV-7: priority, not the plugin's restart after a role that fills the steps
SELECT 'tb_10_priority', (SELECT kernel_us || '/' || runtime_us || '/' || other_us || '/' || total_us
  FROM hta_step_time_breakdown WHERE rank = 4) = '10.0/0.0/0.0/10.0';
-- TV-1, TV-6: DataPipe annotations are DataLoader time; cuda_sync is nothing
SELECT 'tb_11_cpu_only', (SELECT dataloader_us || '/' || cpu_exec_us || '/' || other_us FROM hta_step_time_breakdown
  WHERE rank = 5) = '3.0/0.0/7.0';
-- OV-1: rows in (rank, trace_id) order; the rank filter
SELECT 'tb_12_order', group_concat(rank, '') = '0001112' FROM hta_step_time_breakdown WHERE rank < 3;
SELECT 'tb_13_types', typeof(rank) || typeof(step) || typeof(kernel_us) || typeof(step_pos) || typeof(device_ops)
  || typeof(device_start_us) = 'integertextrealintegerintegerreal' FROM hta_step_time_breakdown LIMIT 1;
SELECT 'tb_14_no_device', device_start_us IS NULL AND device_end_us IS NULL AND device_ops = 0
  FROM hta_step_time_breakdown WHERE rank = 5;

-- OV-3 on trace 1: means over 3 steps (sums 47, 7, 2, 13, 4, 3, 11, 13 of 100): the
-- percentages are those sums; every row shown (runtime calls, communication time)
SELECT 'tb_15_summary', group_concat(role || '=' || printf('%.6f', mean_us) || '/' || printf('%.6f', percentage)
  || '/' || shown || '/' || steps, ', ') =
  'Kernel=15.666667/47.000000/1/3, Memcpy=2.333333/7.000000/1/3, Memset=0.666667/2.000000/1/3, '
  || 'Communication=4.333333/13.000000/1/3, Runtime=1.333333/4.000000/1/3, DataLoader=1.000000/3.000000/1/3, '
  || 'CPU Exec=3.666667/11.000000/1/3, Other=4.333333/13.000000/1/3, Average Step Time=33.333333/100.000000/1/3'
  FROM hta_execution_summary WHERE rank = 0;
-- TV-8: without communication its row is not shown; without GPU work neither are the GPU rows
SELECT 'tb_16_shown', (SELECT group_concat(shown, '') FROM hta_execution_summary WHERE rank = 1) = '111011111'
  AND (SELECT group_concat(shown, '') FROM hta_execution_summary WHERE rank = 5) = '000001111';
SELECT 'tb_17_summary_cpu', (SELECT group_concat(mean_us || '/' || percentage, ' ') FROM hta_execution_summary WHERE rank = 5)
  = '0.0/0.0 0.0/0.0 0.0/0.0 0.0/0.0 0.0/0.0 3.0/30.0 0.0/0.0 7.0/70.0 10.0/100.0';

-- OV-1: a job without traces, a rank without rows, another job does not mix in
SELECT 'tb_18_rank_none', (SELECT count(*) FROM hta_step_time_breakdown WHERE rank = 99) = 0;
INSERT INTO job(job_id, name) VALUES (2, 'other');
INSERT INTO trace(trace_id, job_id, rank, rank_source, file_name, file_size, content_hash, event_count, min_ts, max_end)
VALUES (7, 2, 0, 'default', 'o.json', 0, 'h7', 0, 0, 100000);
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur)
VALUES ((7 << 32) | 1, 7, 0, 1, 'X', (SELECT category_id FROM category WHERE name = 'cpu_op'),
        (SELECT string_id FROM string WHERE value = 'ProfilerStep#1'), 1, 1, 0, 5000);
SELECT 'tb_19_jobs', (SELECT count(*) FROM hta_step_time_breakdown WHERE job = 'tb') = 9
  AND (SELECT group_concat(step || ':' || total_us) FROM hta_step_time_breakdown WHERE job = 'other') = '1:5.0';
