-- Question (HTA tutorial, "Augmented counters"): how does the memory bandwidth in use change
-- over time? The time series has a point only where the value changes; it stays constant
-- until the next point. ts_us counts from the earliest event of the job's ranks.
-- Here: the lowest rank of the database's first job (change the job's name, or the rank, for
-- another one; `hta-ingest --list DB` lists the jobs).
-- HTA: get_memory_bw_time_series(ranks=[0])[0]
WITH pick(job, rank) AS (
  SELECT name, (SELECT min(rank) FROM trace WHERE trace.job_id = job.job_id)
  FROM job ORDER BY job_id LIMIT 1)
SELECT m.job, m.rank, m.kind, round(m.ts_us, 3) AS ts_us, round(m.memory_bw_gbps, 3) AS memory_bw_gbps
FROM pick CROSS JOIN hta_memory_bw m
WHERE m.job = pick.job AND m.rank = pick.rank
ORDER BY m.kind, m.ts_us;
