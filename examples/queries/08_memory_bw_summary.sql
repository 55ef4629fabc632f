-- Question (HTA tutorial, "Augmented counters: memory bandwidth"): what memory bandwidth do
-- the memcpy (HtoD, DtoH, DtoD) and memset operations reach, per job, rank and kind?
-- Summary statistics of the bandwidth time series (GB/s): count, mean, std, min, quartiles, max.
-- HTA: get_memory_bw_summary(ranks=[...])
SELECT job, rank, kind, count,
       round(mean, 3) AS mean_gbps, round(std, 3) AS std_gbps, round(min, 3) AS min_gbps,
       round(p25, 3) AS p25_gbps, round(p50, 3) AS p50_gbps, round(p75, 3) AS p75_gbps,
       round(max, 3) AS max_gbps
FROM hta_memory_bw_summary
ORDER BY job, rank, kind;
