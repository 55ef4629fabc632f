-- Question (HTA tutorial, "Augmented counters"): how does the memory bandwidth in use change
-- over time? The time series has a point only where the value changes; it stays constant
-- until the next point. ts_us counts from the earliest event of all ranks.
-- HTA: get_memory_bw_time_series(ranks=[0])[0]
SELECT rank, kind, round(ts_us, 3) AS ts_us, round(memory_bw_gbps, 3) AS memory_bw_gbps
FROM hta_memory_bw
WHERE rank = 0
ORDER BY kind, ts_us;
