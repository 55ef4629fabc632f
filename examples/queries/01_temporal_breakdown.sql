-- Question (HTA tutorial, "Temporal breakdown"): how does each GPU spend its time?
-- Idle (no kernel running), computing (matrix multiplications, vector ops), or in
-- non-compute kernels (communication and memory)? Efficient training maximises compute
-- time and minimises idle and non-compute time.
-- HTA: TraceAnalysis(trace_dir).get_temporal_breakdown()
-- Every job of the database, each on its own (the job column); add WHERE job = 'NAME' for one.
-- Times in microseconds; percentages of the span from the first to the last kernel.
-- Run: sqlite3 examples/demo.db -cmd '.load ./hta' -box < examples/queries/01_temporal_breakdown.sql
SELECT job, rank,
       round(idle_time_us, 1)          AS idle_us,
       round(compute_time_us, 1)       AS compute_us,
       round(non_compute_time_us, 1)   AS non_compute_us,
       round(kernel_time_us, 1)        AS kernel_us,
       round(idle_time_pctg, 2)        AS idle_pct,
       round(compute_time_pctg, 2)     AS compute_pct,
       round(non_compute_time_pctg, 2) AS non_compute_pct
FROM hta_temporal_breakdown
ORDER BY job, rank;
