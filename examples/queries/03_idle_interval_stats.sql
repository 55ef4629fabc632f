-- Question (HTA tutorial, "Idle time breakdown", show_idle_interval_stats=True): how long
-- are the idle intervals of each category on each stream (count, mean, std, quartiles)?
-- Many short "kernel wait" gaps call for kernel fusion or CUDA graphs; long "host wait"
-- gaps point to slow CPU code (data loading, Python overhead).
-- HTA: get_idle_time_breakdown(show_idle_interval_stats=True)[1], for every job and rank.
SELECT job, rank, stream, idle_category, count,
       round(mean_us, 2) AS mean_us, round(std_us, 2) AS std_us,
       round(min_us, 2) AS min_us, round(p25_us, 2) AS p25_us, round(p50_us, 2) AS p50_us,
       round(p75_us, 2) AS p75_us, round(max_us, 2) AS max_us
FROM hta_idle_interval_stats
WHERE consecutive_kernel_delay_us = 30
ORDER BY job, rank, stream, idle_category;
