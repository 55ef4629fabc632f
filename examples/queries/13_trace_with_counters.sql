-- Question (HTA tutorial, "Augmented counters"): write a copy of a rank's trace with counter
-- tracks for memory bandwidth and queue length, to look at in Perfetto or chrome://tracing.
-- HTA: generate_trace_with_counters(ranks=[0])
-- This function writes a file, so it lives in the extension's second entry point, which a
-- sandboxed host (Datasette) never loads:
--   sqlite3 examples/demo.db -cmd '.load ./hta sqlite3_hta_io_init' < examples/queries/13_trace_with_counters.sql
SELECT hta_write_trace_with_counters(0, 'rank0_with_counters.json.gz') AS written;
