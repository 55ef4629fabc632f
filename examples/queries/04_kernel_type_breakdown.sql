-- Question (HTA tutorial, "Kernel breakdown"): across all ranks of a job, what share of GPU time
-- goes to each kernel type: communication (COMMUNICATION), computation (COMPUTATION),
-- memory (MEMORY)? This is HTA's pie chart.
-- HTA: kernel_type_metrics_df, _ = get_gpu_kernel_breakdown(), one pie per job.
SELECT job, kernel_type,
       round(sum_us, 1)     AS sum_us,
       round(percentage, 2) AS percentage
FROM hta_kernel_type_breakdown
ORDER BY job, sum_us DESC;
