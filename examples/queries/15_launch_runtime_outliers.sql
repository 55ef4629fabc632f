-- Question (HTA tutorial, "CUDA kernel launch statistics: runtime event outliers"): which CPU
-- runtime calls (cudaLaunchKernel, cudaMemcpyAsync, ...) took unusually long, more than
-- runtime_cutoff_us (50 µs by default)?
-- HTA: get_cuda_kernel_launch_stats(runtime_cutoff=50), for every job and rank.
SELECT job, rank, correlation, launch_name, hta_shorten_name(kernel_name) AS kernel,
       round(cpu_duration_us, 2) AS cpu_duration_us
FROM hta_kernel_launch_stats
WHERE runtime_cutoff_us = 50 AND is_runtime_outlier
ORDER BY job, cpu_duration_us DESC;
