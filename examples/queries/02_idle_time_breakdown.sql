-- Question (HTA tutorial, "Idle time breakdown"): why is the GPU idle?
--   host wait:   the CPU does not enqueue kernels fast enough to keep the GPU busy;
--   kernel wait: the short gap between back-to-back kernels (less than
--                consecutive_kernel_delay_us apart, 30 µs by default; CUDA graphs help);
--   other:       idle time that cannot be attributed (for example cross-stream syncs).
-- HTA: get_idle_time_breakdown(ranks=[...], consecutive_kernel_delay=30)
-- HTA computes rank 0 only by default; here every rank of every job is computed: filter with
-- WHERE job = 'NAME' AND rank = N.
-- The parameter is a hidden column: hta_idle_time_breakdown(50) changes the threshold.
SELECT job, rank, stream, idle_category,
       round(idle_time_us, 1)    AS idle_us,
       round(idle_time_ratio, 4) AS ratio
FROM hta_idle_time_breakdown(30)
ORDER BY job, rank, stream, idle_category;
