-- Question (HTA tutorial, "Augmented counters"): "when the queue length on a stream reaches
-- 1024, new events cannot be scheduled on it and the CPU stalls": how long was each stream
-- blocked on a full queue, absolutely and as a share of the rank's profile?
-- HTA: get_time_spent_blocked_on_full_queue(queue_length_dict, max_queue_length=1024)
-- Every job and rank. A stream that never reached max_queue_length has no row (the example
-- jobs never do).
SELECT job, rank, stream,
       round(duration_at_max_us, 1) AS duration_at_max_us,
       round(relative_duration, 4)  AS relative_duration
FROM hta_queue_full_time(1024)
ORDER BY job, rank, stream;

-- max_queue_length is a hidden parameter: lower it to see how long the queues stayed deep.
SELECT job, rank, stream,
       round(duration_at_max_us, 1) AS duration_at_or_above_90_us,
       round(relative_duration, 4)  AS relative_duration
FROM hta_queue_full_time
WHERE max_queue_length = 90
ORDER BY job, rank, stream;
