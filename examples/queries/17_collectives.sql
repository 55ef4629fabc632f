-- Question (AMD TraceLens' NCCL analysis): which collectives made the ranks wait, and for
-- whom? Each instance is one collective across its ranks; start_skew_us is how long the first
-- rank waited for the last one (last_rank: the rank everyone waited for), and what that rank
-- was doing just before it arrived. The five most skewed instances of each job (a job whose
-- collectives are not NCCL/RCCL GPU kernels, such as gloo on the CPU, has none).
-- hta-sqlite: hta_collective_instances (deviations E13)
SELECT job, pg_name, idx, collective_name, msg_bytes, comm_latency_us, start_skew_us,
       first_rank, last_rank, last_rank_prev_op, last_rank_gap_us
FROM (SELECT job, pg_name, index_in_group AS idx, collective_name, msg_bytes,
             round(comm_latency_us, 3) AS comm_latency_us, round(start_skew_us, 3) AS start_skew_us,
             first_rank, last_rank, last_rank_prev_op, round(last_rank_gap_us, 3) AS last_rank_gap_us,
             row_number() OVER (PARTITION BY job ORDER BY start_skew_us DESC) AS n
      FROM hta_collective_instances)
WHERE n <= 5
ORDER BY job, start_skew_us DESC;

-- Per rank: how long it waited in all and how often it arrived last (the straggler waits least).
SELECT job, rank, round(total_wait_us, 3) AS total_wait_us, times_arrived_last,
       times_arrived_first, pct_arrived_last, num_collectives
FROM hta_collective_ranks
ORDER BY job, rank;
