-- Question (HTA tutorial, "Augmented counters"): how does the launch queue of a stream
-- evolve over time? One point per change; ts_us counts from the earliest event of the job's ranks.
-- Here: the lowest rank of the database's first job, its busiest stream (the most points: the
-- compute stream), and the deepest the queue got.
-- HTA: get_queue_length_time_series(ranks=[0])[0]
WITH pick(job, rank) AS (
  SELECT name, (SELECT min(rank) FROM trace WHERE trace.job_id = job.job_id)
  FROM job ORDER BY job_id LIMIT 1),
series AS (
  SELECT q.* FROM pick CROSS JOIN hta_queue_length q
  WHERE q.job = pick.job AND q.rank = pick.rank),
busiest(stream) AS (
  SELECT stream FROM series GROUP BY stream ORDER BY count(*) DESC, stream LIMIT 1)
SELECT job, rank, stream, round(ts_us, 3) AS ts_us, queue_length,
       max(queue_length) OVER () AS deepest
FROM series
WHERE stream = (SELECT stream FROM busiest)
ORDER BY ts_us;
