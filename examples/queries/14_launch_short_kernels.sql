-- Question (HTA tutorial, "CUDA kernel launch statistics: short GPU kernels"): how often does
-- a GPU kernel run for less time than the CPU runtime call that launched it? The CPU usually
-- needs 5-20 µs per launch; kernels shorter than that are candidates for fusion or CUDA graphs.
-- HTA: get_cuda_kernel_launch_stats() -> rows with gpu_duration < cpu_duration
SELECT rank,
       count(*)                                     AS launches,
       sum(is_short_kernel)                         AS short_kernels,
       round(100.0 * sum(is_short_kernel) / count(*), 2) AS short_pct
FROM hta_kernel_launch_stats
GROUP BY rank
ORDER BY rank;

-- The kernels that are most often short:
SELECT hta_shorten_name(kernel_name) AS kernel, count(*) AS short_launches,
       round(avg(cpu_duration_us), 2) AS mean_cpu_us, round(avg(gpu_duration_us), 2) AS mean_gpu_us
FROM hta_kernel_launch_stats
WHERE is_short_kernel
GROUP BY kernel
ORDER BY short_launches DESC
LIMIT 10;
