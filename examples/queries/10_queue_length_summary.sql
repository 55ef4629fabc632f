-- Question (HTA tutorial, "Augmented counters: queue length"): how many operations are
-- outstanding (launched by the CPU, not yet finished on the GPU) on each CUDA stream?
-- A queue that is often empty means the GPU waits for the host; a full queue (1024) stalls
-- the CPU until the GPU catches up.
-- HTA: get_queue_length_summary(ranks=[...]), for every job and rank.
SELECT job, rank, stream, count,
       round(mean, 2) AS mean, round(std, 2) AS std, min,
       round(p25, 1) AS p25, round(p50, 1) AS p50, round(p75, 1) AS p75, max
FROM hta_queue_length_summary
ORDER BY job, rank, stream;
