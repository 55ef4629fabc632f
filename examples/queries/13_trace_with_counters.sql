-- Question (HTA tutorial, "Augmented counters"): write a copy of a rank's trace with counter
-- tracks for memory bandwidth and queue length, to look at in Perfetto or chrome://tracing.
-- HTA: generate_trace_with_counters(ranks=[0])
-- Here: the trace file of the lowest rank of the database's first job. A database with several
-- jobs has several files of each rank, so the file is picked by its trace_id (rank NULL).
-- This function writes a file, so it lives in the extension's second entry point, which a
-- sandboxed host (Datasette) never loads:
--   sqlite3 examples/demo.db -cmd '.load ./hta sqlite3_hta_io_init' < examples/queries/13_trace_with_counters.sql
WITH first_job AS (SELECT job_id, name FROM job ORDER BY job_id LIMIT 1),
pick AS (
  SELECT t.trace_id, t.rank, first_job.name AS job
  FROM trace t JOIN first_job USING (job_id)
  ORDER BY t.rank, t.trace_id LIMIT 1)
SELECT job, rank, trace_id,
       hta_write_trace_with_counters(NULL, 'rank' || rank || '_with_counters.json.gz', trace_id) AS written
FROM pick;
