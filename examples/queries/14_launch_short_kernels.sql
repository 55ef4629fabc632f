-- Question (HTA tutorial, "CUDA kernel launch statistics: short GPU kernels"): how often does
-- a GPU kernel run for less time than the CPU runtime call that launched it? The CPU usually
-- needs 5-20 µs per launch; kernels shorter than that are candidates for fusion or CUDA graphs.
-- HTA: get_cuda_kernel_launch_stats() -> rows with gpu_duration < cpu_duration
SELECT job, rank,
       count(*)                                     AS launches,
       sum(is_short_kernel)                         AS short_kernels,
       round(100.0 * sum(is_short_kernel) / count(*), 2) AS short_pct
FROM hta_kernel_launch_stats
GROUP BY job, rank
ORDER BY job, rank;

-- The kernels that are most often short, the ten first of each job:
SELECT job, kernel, short_launches, mean_cpu_us, mean_gpu_us
FROM (SELECT job, hta_shorten_name(kernel_name) AS kernel, count(*) AS short_launches,
             round(avg(cpu_duration_us), 2) AS mean_cpu_us, round(avg(gpu_duration_us), 2) AS mean_gpu_us,
             row_number() OVER (PARTITION BY job ORDER BY count(*) DESC) AS n
      FROM hta_kernel_launch_stats
      WHERE is_short_kernel
      GROUP BY job, kernel)
WHERE n <= 10
ORDER BY job, short_launches DESC;
