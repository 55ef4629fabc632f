-- Question (HTA tutorial, "CUDA kernel launch statistics: launch delay outliers"): which kernels
-- started long after their launch call began, more than launch_delay_cutoff_us (100 µs by
-- default)? A long delay usually means a deep queue on the stream (the GPU is busy: good)
-- or a wait on another stream.
-- HTA: get_cuda_kernel_launch_stats(launch_delay_cutoff=100), for every job and rank.
SELECT job, rank, launch_name, hta_shorten_name(kernel_name) AS kernel,
       count(*)                       AS outliers,
       round(avg(launch_delay_us), 1) AS mean_delay_us,
       round(max(launch_delay_us), 1) AS max_delay_us
FROM hta_kernel_launch_stats(1, 50, 100)
WHERE is_launch_delay_outlier
GROUP BY job, rank, launch_name, kernel
ORDER BY job, rank, outliers DESC;
