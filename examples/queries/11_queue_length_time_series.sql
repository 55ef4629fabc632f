-- Question (HTA tutorial, "Augmented counters"): how does the launch queue of a stream
-- evolve over time? One point per change; ts_us counts from the earliest event of all ranks.
-- Here: the compute stream (7) of rank 0, and the deepest the queue got.
-- HTA: get_queue_length_time_series(ranks=[0])[0]
SELECT round(ts_us, 3) AS ts_us, queue_length,
       max(queue_length) OVER () AS deepest
FROM hta_queue_length
WHERE rank = 0 AND stream = 7
ORDER BY ts_us;
