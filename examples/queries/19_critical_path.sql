-- Question (HTA, "Critical path analysis"): what bounds each rank's iteration: the CPU, the
-- GPU's compute or communication kernels, or the overheads between kernels and launches?
-- The critical path of the first ProfilerStep, split by what each of its edges is bound by,
-- with its share of the path (%), for every rank of every job.
-- HTA: CriticalPathAnalysis(rank, annotation='ProfilerStep', instance_id=0) then summary()
SELECT job, rank, bound_by,
       round(duration_us, 3) AS duration_us,
       round(percentage, 2)  AS pct
FROM hta_critical_path_summary
WHERE bound_by <> ''
ORDER BY job, rank, duration_us DESC;
