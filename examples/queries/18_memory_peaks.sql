-- Question (PyTorch TensorBoard profiler, "Memory View"): how much memory does each device
-- of each rank use at its peak, when, and in which operator? The traces must be recorded with
-- profile_memory=True. Per ProfilerStep: the peak of the allocator's Total Allocated (and
-- Total Reserved), the allocations and frees, and what is still allocated at the step's end.
-- hta-sqlite: hta_memory_summary (HTA has no memory analysis). Bytes shown in MiB.
SELECT job, rank, device, step,
       round(peak_allocated_bytes / 1048576.0, 1) AS peak_allocated_mib,
       round(peak_reserved_bytes / 1048576.0, 1)  AS peak_reserved_mib,
       round(peak_ts_us, 3) AS peak_ts_us, peak_operator,
       allocations, round(allocated_bytes / 1048576.0, 1) AS allocated_mib, frees,
       round(live_bytes_at_end / 1048576.0, 1) AS live_at_end_mib
FROM hta_memory_summary
ORDER BY job, rank, device, step;

-- The whole trace's peak of each device: the maximum over its steps.
SELECT job, rank, device, round(max(peak_allocated_bytes) / 1048576.0, 1) AS peak_allocated_mib,
       round(max(peak_reserved_bytes) / 1048576.0, 1) AS peak_reserved_mib
FROM hta_memory_summary
GROUP BY job, rank, device
ORDER BY job, rank, device;
