-- Question (HTA tutorial, "Kernel breakdown", the bar chart of NCCL AllReduce across ranks):
-- what is the mean duration of each communication kernel on every rank of each job, with the shortest
-- and longest instance? A rank whose NCCL kernels are much shorter than the others' is
-- usually the straggler: the others wait for it inside the collective.
-- HTA: get_gpu_kernel_breakdown() -> kernel_metrics_df[kernel_type == 'COMMUNICATION']
SELECT job, hta_shorten_name(name) AS kernel, rank, count,
       round(mean_us, 1) AS mean_us,
       round(min_us, 1)  AS min_us,
       round(max_us, 1)  AS max_us
FROM hta_kernel_breakdown
WHERE kernel_type = 'COMMUNICATION'
ORDER BY job, name, rank;
