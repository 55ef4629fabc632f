-- Question (HTA tutorial, "Kernel duration distribution"): which kernels take the most
-- time on each rank, and how are their durations distributed (count, min, max, mean,
-- standard deviation, sum), by kernel type?
-- The top kernels of each type covering duration_ratio (0.8) of its time, at most
-- num_kernels (10) of them; the rest is folded into one "others" row.
-- Every job and rank (WHERE job = 'NAME' AND rank = N for one).
-- HTA: _, kernel_metrics_df = get_gpu_kernel_breakdown(duration_ratio=0.8, num_kernels=10)
SELECT job, rank, kernel_type,
       hta_shorten_name(name) AS kernel,
       count,
       round(sum_us, 1)    AS sum_us,
       round(min_us, 2)    AS min_us,
       round(max_us, 2)    AS max_us,
       round(mean_us, 2)   AS mean_us,
       round(stddev_us, 2) AS stddev_us
FROM hta_kernel_breakdown(0.8, 10)
ORDER BY job, rank, kernel_type, sum_us DESC;
