-- Canned queries for Datasette, one per analysis of hta.so (the default entry point).
-- examples/datasette/coldocs.sh turns this file into the `queries:` of metadata.yml;
-- tests/cli/report_metadata.sh runs every query with the sqlite3 shell, with its
-- parameters empty (the defaults) and set.
-- Datasette passes every :parameter as text, '' when the form field is empty, so each
-- one reads `coalesce(nullif(:p, ''), default)` (the analyses check their own parameters),
-- an empty :rank means every rank and an empty :job every job (the analyses answer per job;
-- the `jobs` query lists them). :rank and :job are checked in the `arg` CTE, evaluated first
-- (CROSS JOIN keeps it the outer loop), so that a rank that is not an integer, or a job that is
-- not in the job table, is an error (shown by Datasette) even when the analysis has no rows,
-- not a silent rank 0 or an empty page; a given rank or job reaches the analysis as `rank = N`,
-- `job = 'NAME'` (it then reads that rank's events, that job's traces only). Of the UNION ALL's
-- four parts only the one whose IS NULL tests match the arguments runs: the others stop at
-- their outer loop (arg), or at a `= NULL` constraint, which gives no rows at once.
-- Format: a `-- name:`, `-- title:` and `-- description:` line, then the query, ending in `;`.

-- name: jobs
-- title: Jobs
-- description: The jobs (runs) of this database, one row each: its ranks, files, ProfilerSteps, events, JSON bytes ingested and where its files came from. Pass a job's name as the job parameter of the analyses.
SELECT * FROM job_summary ORDER BY job_id;

-- name: traces
-- title: Traces
-- description: One row per ingested trace file: its job, rank, where the rank came from, device, size and time span (µs).
WITH arg(job) AS (
  SELECT CASE WHEN nullif(:job, '') IS NULL THEN NULL
              WHEN :job IN (SELECT name FROM job) THEN :job
              ELSE hta_error('job must be the name of a job of this database (the jobs query lists them; empty for every job), not ' || :job) END)
SELECT j.name AS job, t.rank, t.trace_id, t.rank_source, t.file_name, t.device_type, t.world_size,
       t.backend, t.event_count, (t.max_end - t.min_ts) / 1000.0 AS span_us, t.file_size
FROM arg CROSS JOIN trace t JOIN job j ON j.job_id = t.job_id
WHERE arg.job IS NULL OR j.name = arg.job
ORDER BY t.job_id, t.rank, t.trace_id;

-- name: findings
-- title: Findings: what to fix
-- description: What to change first, ranked by its cost: per rank (or for the job), each finding's title, its cost per ProfilerStep (µs) and share of the rank's mean step (%), what to try and the evidence to check it (JSON, last). The TensorBoard plugin's recommendations (source tb_plugin) and hta-sqlite's own rules. One job per page: job empty is the first job (the findings of every job: the plugin's findings page). min_pct: leave out findings under this share of a step.
WITH arg(rank, job) AS (
  SELECT CASE WHEN nullif(:rank, '') IS NULL THEN NULL
              WHEN :rank NOT GLOB '*[^0-9]*' THEN CAST(:rank AS INTEGER)
              ELSE hta_error('rank must be an integer (or empty for every rank), not ' || :rank) END,
         CASE WHEN nullif(:job, '') IS NULL THEN (SELECT name FROM job ORDER BY job_id LIMIT 1)
              WHEN :job IN (SELECT name FROM job) THEN :job
              ELSE hta_error('job must be the name of a job of this database (the jobs query lists them; empty for the first job), not ' || :job) END)
SELECT t.* FROM arg CROSS JOIN hta_findings(coalesce(nullif(:min_pct, ''), 1)) t WHERE t.rank = arg.rank AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_findings(coalesce(nullif(:min_pct, ''), 1)) t WHERE t.rank = arg.rank AND arg.job IS NULL
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_findings(coalesce(nullif(:min_pct, ''), 1)) t WHERE arg.rank IS NULL AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_findings(coalesce(nullif(:min_pct, ''), 1)) t WHERE arg.rank IS NULL AND arg.job IS NULL;

-- name: trace_health
-- title: Trace health: can I trust this trace?
-- description: One row per check of each trace (and one of the whole job: rank empty), failures first, then warnings: the profiler's own log (a full GPU buffer, broken records), what ingest repaired, GPU-only or CPU-only, kernels without a launch and launches without a kernel, flows, steps (collapsed, a truncated last step), the ranks' clock offsets from collectives that end together, ranks profiled of the world size, distributedInfo, device properties, time units. value is what was measured, threshold where the check stops being ok, detail the counts behind it (JSON), message what it means.
WITH arg(rank, job) AS (
  SELECT CASE WHEN nullif(:rank, '') IS NULL THEN NULL
              WHEN :rank NOT GLOB '*[^0-9]*' THEN CAST(:rank AS INTEGER)
              ELSE hta_error('rank must be an integer (or empty for every rank), not ' || :rank) END,
         CASE WHEN nullif(:job, '') IS NULL THEN NULL
              WHEN :job IN (SELECT name FROM job) THEN :job
              ELSE hta_error('job must be the name of a job of this database (the jobs query lists them; empty for every job), not ' || :job) END)
SELECT * FROM (
SELECT t.* FROM arg CROSS JOIN hta_trace_health t WHERE t.rank = arg.rank AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_trace_health t WHERE t.rank = arg.rank AND arg.job IS NULL
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_trace_health t WHERE arg.rank IS NULL AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_trace_health t WHERE arg.rank IS NULL AND arg.job IS NULL)
ORDER BY verdict = 'ok', verdict = 'warn', job, rank, trace_id, "check";

-- name: temporal_breakdown
-- title: Temporal breakdown
-- description: Per rank: idle, compute and non-compute GPU time between the first and the last kernel (µs and %). HTA get_temporal_breakdown.
WITH arg(rank, job) AS (
  SELECT CASE WHEN nullif(:rank, '') IS NULL THEN NULL
              WHEN :rank NOT GLOB '*[^0-9]*' THEN CAST(:rank AS INTEGER)
              ELSE hta_error('rank must be an integer (or empty for every rank), not ' || :rank) END,
         CASE WHEN nullif(:job, '') IS NULL THEN NULL
              WHEN :job IN (SELECT name FROM job) THEN :job
              ELSE hta_error('job must be the name of a job of this database (the jobs query lists them; empty for every job), not ' || :job) END)
SELECT t.* FROM arg CROSS JOIN hta_temporal_breakdown t WHERE t.rank = arg.rank AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_temporal_breakdown t WHERE t.rank = arg.rank AND arg.job IS NULL
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_temporal_breakdown t WHERE arg.rank IS NULL AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_temporal_breakdown t WHERE arg.rank IS NULL AND arg.job IS NULL;

-- name: kernel_type_breakdown
-- title: Kernel type breakdown
-- description: GPU time of all ranks of each job by kernel type and overlap of types (µs, %). HTA get_gpu_kernel_breakdown, first table. include_memory_kernels: 1 or 0.
WITH arg(job) AS (
  SELECT CASE WHEN nullif(:job, '') IS NULL THEN NULL
              WHEN :job IN (SELECT name FROM job) THEN :job
              ELSE hta_error('job must be the name of a job of this database (the jobs query lists them; empty for every job), not ' || :job) END)
SELECT t.* FROM arg CROSS JOIN hta_kernel_type_breakdown(coalesce(nullif(:include_memory_kernels, ''), 1)) t WHERE t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_kernel_type_breakdown(coalesce(nullif(:include_memory_kernels, ''), 1)) t WHERE arg.job IS NULL;

-- name: kernel_breakdown
-- title: Top kernels per type and rank
-- description: Per rank and kernel type, the kernels that take most of the time and "others" (count, sum, max, min, mean, stddev in µs). HTA get_gpu_kernel_breakdown, second table.
WITH arg(rank, job) AS (
  SELECT CASE WHEN nullif(:rank, '') IS NULL THEN NULL
              WHEN :rank NOT GLOB '*[^0-9]*' THEN CAST(:rank AS INTEGER)
              ELSE hta_error('rank must be an integer (or empty for every rank), not ' || :rank) END,
         CASE WHEN nullif(:job, '') IS NULL THEN NULL
              WHEN :job IN (SELECT name FROM job) THEN :job
              ELSE hta_error('job must be the name of a job of this database (the jobs query lists them; empty for every job), not ' || :job) END)
SELECT t.* FROM arg CROSS JOIN hta_kernel_breakdown(coalesce(nullif(:duration_ratio, ''), 0.8), coalesce(nullif(:num_kernels, ''), 10), coalesce(nullif(:include_memory_kernels, ''), 1)) t WHERE t.rank = arg.rank AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_kernel_breakdown(coalesce(nullif(:duration_ratio, ''), 0.8), coalesce(nullif(:num_kernels, ''), 10), coalesce(nullif(:include_memory_kernels, ''), 1)) t WHERE t.rank = arg.rank AND arg.job IS NULL
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_kernel_breakdown(coalesce(nullif(:duration_ratio, ''), 0.8), coalesce(nullif(:num_kernels, ''), 10), coalesce(nullif(:include_memory_kernels, ''), 1)) t WHERE arg.rank IS NULL AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_kernel_breakdown(coalesce(nullif(:duration_ratio, ''), 0.8), coalesce(nullif(:num_kernels, ''), 10), coalesce(nullif(:include_memory_kernels, ''), 1)) t WHERE arg.rank IS NULL AND arg.job IS NULL;

-- name: idle_time_breakdown
-- title: Idle time per stream
-- description: GPU idle time per stream by cause: host_wait, kernel_wait (gap < consecutive_kernel_delay_us), other (µs and ratio). HTA get_idle_time_breakdown.
WITH arg(rank, job) AS (
  SELECT CASE WHEN nullif(:rank, '') IS NULL THEN NULL
              WHEN :rank NOT GLOB '*[^0-9]*' THEN CAST(:rank AS INTEGER)
              ELSE hta_error('rank must be an integer (or empty for every rank), not ' || :rank) END,
         CASE WHEN nullif(:job, '') IS NULL THEN NULL
              WHEN :job IN (SELECT name FROM job) THEN :job
              ELSE hta_error('job must be the name of a job of this database (the jobs query lists them; empty for every job), not ' || :job) END)
SELECT t.* FROM arg CROSS JOIN hta_idle_time_breakdown(coalesce(nullif(:consecutive_kernel_delay_us, ''), 30)) t WHERE t.rank = arg.rank AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_idle_time_breakdown(coalesce(nullif(:consecutive_kernel_delay_us, ''), 30)) t WHERE t.rank = arg.rank AND arg.job IS NULL
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_idle_time_breakdown(coalesce(nullif(:consecutive_kernel_delay_us, ''), 30)) t WHERE arg.rank IS NULL AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_idle_time_breakdown(coalesce(nullif(:consecutive_kernel_delay_us, ''), 30)) t WHERE arg.rank IS NULL AND arg.job IS NULL;

-- name: idle_interval_stats
-- title: Idle interval statistics
-- description: describe() of the idle gaps per stream and cause (µs). HTA get_idle_time_breakdown(show_idle_interval_stats=True).
WITH arg(rank, job) AS (
  SELECT CASE WHEN nullif(:rank, '') IS NULL THEN NULL
              WHEN :rank NOT GLOB '*[^0-9]*' THEN CAST(:rank AS INTEGER)
              ELSE hta_error('rank must be an integer (or empty for every rank), not ' || :rank) END,
         CASE WHEN nullif(:job, '') IS NULL THEN NULL
              WHEN :job IN (SELECT name FROM job) THEN :job
              ELSE hta_error('job must be the name of a job of this database (the jobs query lists them; empty for every job), not ' || :job) END)
SELECT t.* FROM arg CROSS JOIN hta_idle_interval_stats(coalesce(nullif(:consecutive_kernel_delay_us, ''), 30)) t WHERE t.rank = arg.rank AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_idle_interval_stats(coalesce(nullif(:consecutive_kernel_delay_us, ''), 30)) t WHERE t.rank = arg.rank AND arg.job IS NULL
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_idle_interval_stats(coalesce(nullif(:consecutive_kernel_delay_us, ''), 30)) t WHERE arg.rank IS NULL AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_idle_interval_stats(coalesce(nullif(:consecutive_kernel_delay_us, ''), 30)) t WHERE arg.rank IS NULL AND arg.job IS NULL;

-- name: comm_comp_overlap
-- title: Communication / computation overlap
-- description: Per rank, the % of communication time during which computation runs. HTA get_comm_comp_overlap.
WITH arg(rank, job) AS (
  SELECT CASE WHEN nullif(:rank, '') IS NULL THEN NULL
              WHEN :rank NOT GLOB '*[^0-9]*' THEN CAST(:rank AS INTEGER)
              ELSE hta_error('rank must be an integer (or empty for every rank), not ' || :rank) END,
         CASE WHEN nullif(:job, '') IS NULL THEN NULL
              WHEN :job IN (SELECT name FROM job) THEN :job
              ELSE hta_error('job must be the name of a job of this database (the jobs query lists them; empty for every job), not ' || :job) END)
SELECT t.* FROM arg CROSS JOIN hta_comm_comp_overlap t WHERE t.rank = arg.rank AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_comm_comp_overlap t WHERE t.rank = arg.rank AND arg.job IS NULL
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_comm_comp_overlap t WHERE arg.rank IS NULL AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_comm_comp_overlap t WHERE arg.rank IS NULL AND arg.job IS NULL;

-- name: kernel_launch_stats
-- title: Kernel launch statistics
-- description: Each launch call with its GPU work: CPU and GPU duration, launch delay (µs) and the outlier flags for the cutoffs. HTA get_cuda_kernel_launch_stats.
WITH arg(rank, job) AS (
  SELECT CASE WHEN nullif(:rank, '') IS NULL THEN NULL
              WHEN :rank NOT GLOB '*[^0-9]*' THEN CAST(:rank AS INTEGER)
              ELSE hta_error('rank must be an integer (or empty for every rank), not ' || :rank) END,
         CASE WHEN nullif(:job, '') IS NULL THEN NULL
              WHEN :job IN (SELECT name FROM job) THEN :job
              ELSE hta_error('job must be the name of a job of this database (the jobs query lists them; empty for every job), not ' || :job) END)
SELECT t.* FROM arg CROSS JOIN hta_kernel_launch_stats(coalesce(nullif(:include_memory_events, ''), 1), coalesce(nullif(:runtime_cutoff_us, ''), 50), coalesce(nullif(:launch_delay_cutoff_us, ''), 100)) t WHERE t.rank = arg.rank AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_kernel_launch_stats(coalesce(nullif(:include_memory_events, ''), 1), coalesce(nullif(:runtime_cutoff_us, ''), 50), coalesce(nullif(:launch_delay_cutoff_us, ''), 100)) t WHERE t.rank = arg.rank AND arg.job IS NULL
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_kernel_launch_stats(coalesce(nullif(:include_memory_events, ''), 1), coalesce(nullif(:runtime_cutoff_us, ''), 50), coalesce(nullif(:launch_delay_cutoff_us, ''), 100)) t WHERE arg.rank IS NULL AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_kernel_launch_stats(coalesce(nullif(:include_memory_events, ''), 1), coalesce(nullif(:runtime_cutoff_us, ''), 50), coalesce(nullif(:launch_delay_cutoff_us, ''), 100)) t WHERE arg.rank IS NULL AND arg.job IS NULL;

-- name: launch_outliers
-- title: Launch outliers per rank
-- description: Per job and rank: launches, short kernels, runtime outliers (CPU > runtime_cutoff_us) and launch-delay outliers (delay > launch_delay_cutoff_us), with median and max delays (µs).
WITH arg(job) AS (
  SELECT CASE WHEN nullif(:job, '') IS NULL THEN NULL
              WHEN :job IN (SELECT name FROM job) THEN :job
              ELSE hta_error('job must be the name of a job of this database (the jobs query lists them; empty for every job), not ' || :job) END),
launch AS (
  SELECT t.* FROM arg CROSS JOIN hta_kernel_launch_stats(1, coalesce(nullif(:runtime_cutoff_us, ''), 50), coalesce(nullif(:launch_delay_cutoff_us, ''), 100)) t WHERE t.job = arg.job
  UNION ALL
  SELECT t.* FROM arg CROSS JOIN hta_kernel_launch_stats(1, coalesce(nullif(:runtime_cutoff_us, ''), 50), coalesce(nullif(:launch_delay_cutoff_us, ''), 100)) t WHERE arg.job IS NULL)
SELECT job, rank, trace_id, count(*) AS launches,
       sum(is_short_kernel) AS short_kernels,
       sum(is_runtime_outlier) AS runtime_outliers,
       sum(is_launch_delay_outlier) AS launch_delay_outliers,
       hta_median(launch_delay_us) AS delay_p50_us, max(launch_delay_us) AS delay_max_us
FROM launch
GROUP BY job, rank, trace_id
ORDER BY (SELECT job_id FROM job WHERE name = launch.job), rank, trace_id;

-- name: queue_length
-- title: Queue length over time
-- description: Per stream, launched GPU work not yet started, after every change (ts_us from the job's first event). collapse_ties 1 keeps one point per timestamp. HTA get_queue_length_time_series.
WITH arg(rank, job) AS (
  SELECT CASE WHEN nullif(:rank, '') IS NULL THEN NULL
              WHEN :rank NOT GLOB '*[^0-9]*' THEN CAST(:rank AS INTEGER)
              ELSE hta_error('rank must be an integer (or empty for every rank), not ' || :rank) END,
         CASE WHEN nullif(:job, '') IS NULL THEN NULL
              WHEN :job IN (SELECT name FROM job) THEN :job
              ELSE hta_error('job must be the name of a job of this database (the jobs query lists them; empty for every job), not ' || :job) END)
SELECT t.* FROM arg CROSS JOIN hta_queue_length(0, coalesce(nullif(:collapse_ties, ''), 0)) t WHERE t.rank = arg.rank AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_queue_length(0, coalesce(nullif(:collapse_ties, ''), 0)) t WHERE t.rank = arg.rank AND arg.job IS NULL
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_queue_length(0, coalesce(nullif(:collapse_ties, ''), 0)) t WHERE arg.rank IS NULL AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_queue_length(0, coalesce(nullif(:collapse_ties, ''), 0)) t WHERE arg.rank IS NULL AND arg.job IS NULL;

-- name: queue_length_summary
-- title: Queue length summary
-- description: describe() of the queue length per stream. HTA get_queue_length_summary.
WITH arg(rank, job) AS (
  SELECT CASE WHEN nullif(:rank, '') IS NULL THEN NULL
              WHEN :rank NOT GLOB '*[^0-9]*' THEN CAST(:rank AS INTEGER)
              ELSE hta_error('rank must be an integer (or empty for every rank), not ' || :rank) END,
         CASE WHEN nullif(:job, '') IS NULL THEN NULL
              WHEN :job IN (SELECT name FROM job) THEN :job
              ELSE hta_error('job must be the name of a job of this database (the jobs query lists them; empty for every job), not ' || :job) END)
SELECT t.* FROM arg CROSS JOIN hta_queue_length_summary t WHERE t.rank = arg.rank AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_queue_length_summary t WHERE t.rank = arg.rank AND arg.job IS NULL
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_queue_length_summary t WHERE arg.rank IS NULL AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_queue_length_summary t WHERE arg.rank IS NULL AND arg.job IS NULL;

-- name: queue_full_time
-- title: Time blocked on a full queue
-- description: Per stream, the time (µs) and share of the trace spent with at least max_queue_length launches queued. HTA get_time_spent_blocked_on_full_queue.
WITH arg(rank, job) AS (
  SELECT CASE WHEN nullif(:rank, '') IS NULL THEN NULL
              WHEN :rank NOT GLOB '*[^0-9]*' THEN CAST(:rank AS INTEGER)
              ELSE hta_error('rank must be an integer (or empty for every rank), not ' || :rank) END,
         CASE WHEN nullif(:job, '') IS NULL THEN NULL
              WHEN :job IN (SELECT name FROM job) THEN :job
              ELSE hta_error('job must be the name of a job of this database (the jobs query lists them; empty for every job), not ' || :job) END)
SELECT t.* FROM arg CROSS JOIN hta_queue_full_time(coalesce(nullif(:max_queue_length, ''), 1024)) t WHERE t.rank = arg.rank AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_queue_full_time(coalesce(nullif(:max_queue_length, ''), 1024)) t WHERE t.rank = arg.rank AND arg.job IS NULL
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_queue_full_time(coalesce(nullif(:max_queue_length, ''), 1024)) t WHERE arg.rank IS NULL AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_queue_full_time(coalesce(nullif(:max_queue_length, ''), 1024)) t WHERE arg.rank IS NULL AND arg.job IS NULL;

-- name: memory_bw
-- title: Memory bandwidth over time
-- description: Per memory kind, the bandwidth of the copies in flight (GB/s) after every change. bw_from_bytes 0 gives HTA's numbers for AMD copies. HTA get_memory_bw_time_series.
WITH arg(rank, job) AS (
  SELECT CASE WHEN nullif(:rank, '') IS NULL THEN NULL
              WHEN :rank NOT GLOB '*[^0-9]*' THEN CAST(:rank AS INTEGER)
              ELSE hta_error('rank must be an integer (or empty for every rank), not ' || :rank) END,
         CASE WHEN nullif(:job, '') IS NULL THEN NULL
              WHEN :job IN (SELECT name FROM job) THEN :job
              ELSE hta_error('job must be the name of a job of this database (the jobs query lists them; empty for every job), not ' || :job) END)
SELECT t.* FROM arg CROSS JOIN hta_memory_bw(0, coalesce(nullif(:bw_from_bytes, ''), 1)) t WHERE t.rank = arg.rank AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_memory_bw(0, coalesce(nullif(:bw_from_bytes, ''), 1)) t WHERE t.rank = arg.rank AND arg.job IS NULL
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_memory_bw(0, coalesce(nullif(:bw_from_bytes, ''), 1)) t WHERE arg.rank IS NULL AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_memory_bw(0, coalesce(nullif(:bw_from_bytes, ''), 1)) t WHERE arg.rank IS NULL AND arg.job IS NULL;

-- name: memory_bw_summary
-- title: Memory bandwidth summary
-- description: describe() of the bandwidth (GB/s, points above 0) per memory kind. HTA get_memory_bw_summary.
WITH arg(rank, job) AS (
  SELECT CASE WHEN nullif(:rank, '') IS NULL THEN NULL
              WHEN :rank NOT GLOB '*[^0-9]*' THEN CAST(:rank AS INTEGER)
              ELSE hta_error('rank must be an integer (or empty for every rank), not ' || :rank) END,
         CASE WHEN nullif(:job, '') IS NULL THEN NULL
              WHEN :job IN (SELECT name FROM job) THEN :job
              ELSE hta_error('job must be the name of a job of this database (the jobs query lists them; empty for every job), not ' || :job) END)
SELECT t.* FROM arg CROSS JOIN hta_memory_bw_summary(0, coalesce(nullif(:bw_from_bytes, ''), 1)) t WHERE t.rank = arg.rank AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_memory_bw_summary(0, coalesce(nullif(:bw_from_bytes, ''), 1)) t WHERE t.rank = arg.rank AND arg.job IS NULL
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_memory_bw_summary(0, coalesce(nullif(:bw_from_bytes, ''), 1)) t WHERE arg.rank IS NULL AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_memory_bw_summary(0, coalesce(nullif(:bw_from_bytes, ''), 1)) t WHERE arg.rank IS NULL AND arg.job IS NULL;

-- name: frequent_kernel_sequences
-- title: Frequent kernel sequences
-- description: Operators whose name contains operator_name (default AddmmBackward0), grouped by their whole kernel sequence: count and GPU / CPU time (µs). HTA get_frequent_cuda_kernel_sequences.
WITH arg(rank, job) AS (
  SELECT CASE WHEN nullif(:rank, '') IS NULL THEN NULL
              WHEN :rank NOT GLOB '*[^0-9]*' THEN CAST(:rank AS INTEGER)
              ELSE hta_error('rank must be an integer (or empty for every rank), not ' || :rank) END,
         CASE WHEN nullif(:job, '') IS NULL THEN NULL
              WHEN :job IN (SELECT name FROM job) THEN :job
              ELSE hta_error('job must be the name of a job of this database (the jobs query lists them; empty for every job), not ' || :job) END)
SELECT t.* FROM arg CROSS JOIN hta_frequent_kernel_sequences(coalesce(nullif(:operator_name, ''), 'AddmmBackward0'), coalesce(nullif(:min_pattern_len, ''), 3)) t WHERE t.rank = arg.rank AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_frequent_kernel_sequences(coalesce(nullif(:operator_name, ''), 'AddmmBackward0'), coalesce(nullif(:min_pattern_len, ''), 3)) t WHERE t.rank = arg.rank AND arg.job IS NULL
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_frequent_kernel_sequences(coalesce(nullif(:operator_name, ''), 'AddmmBackward0'), coalesce(nullif(:min_pattern_len, ''), 3)) t WHERE arg.rank IS NULL AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_frequent_kernel_sequences(coalesce(nullif(:operator_name, ''), 'AddmmBackward0'), coalesce(nullif(:min_pattern_len, ''), 3)) t WHERE arg.rank IS NULL AND arg.job IS NULL;

-- name: cupti_counters
-- title: CUPTI counters
-- description: CUPTI range-profiler counters of each kernel with the CPU operators that launched it (one row per kernel and counter). HTA get_cupti_counter_data_with_operators.
WITH arg(rank, job) AS (
  SELECT CASE WHEN nullif(:rank, '') IS NULL THEN NULL
              WHEN :rank NOT GLOB '*[^0-9]*' THEN CAST(:rank AS INTEGER)
              ELSE hta_error('rank must be an integer (or empty for every rank), not ' || :rank) END,
         CASE WHEN nullif(:job, '') IS NULL THEN NULL
              WHEN :job IN (SELECT name FROM job) THEN :job
              ELSE hta_error('job must be the name of a job of this database (the jobs query lists them; empty for every job), not ' || :job) END)
SELECT t.* FROM arg CROSS JOIN hta_cupti_counters t WHERE t.rank = arg.rank AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_cupti_counters t WHERE t.rank = arg.rank AND arg.job IS NULL
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_cupti_counters t WHERE arg.rank IS NULL AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_cupti_counters t WHERE arg.rank IS NULL AND arg.job IS NULL;

-- name: user_annotation_breakdown
-- title: User annotation breakdown
-- description: Time per user annotation (record_function), GPU-side (use_gpu_annotation 1) or CPU-side (0), with "others" (µs).
WITH arg(rank, job) AS (
  SELECT CASE WHEN nullif(:rank, '') IS NULL THEN NULL
              WHEN :rank NOT GLOB '*[^0-9]*' THEN CAST(:rank AS INTEGER)
              ELSE hta_error('rank must be an integer (or empty for every rank), not ' || :rank) END,
         CASE WHEN nullif(:job, '') IS NULL THEN NULL
              WHEN :job IN (SELECT name FROM job) THEN :job
              ELSE hta_error('job must be the name of a job of this database (the jobs query lists them; empty for every job), not ' || :job) END)
SELECT t.* FROM arg CROSS JOIN hta_user_annotation_breakdown(coalesce(nullif(:use_gpu_annotation, ''), 1), coalesce(nullif(:duration_ratio, ''), 0.8), coalesce(nullif(:num_kernels, ''), 1000)) t WHERE t.rank = arg.rank AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_user_annotation_breakdown(coalesce(nullif(:use_gpu_annotation, ''), 1), coalesce(nullif(:duration_ratio, ''), 0.8), coalesce(nullif(:num_kernels, ''), 1000)) t WHERE t.rank = arg.rank AND arg.job IS NULL
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_user_annotation_breakdown(coalesce(nullif(:use_gpu_annotation, ''), 1), coalesce(nullif(:duration_ratio, ''), 0.8), coalesce(nullif(:num_kernels, ''), 1000)) t WHERE arg.rank IS NULL AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_user_annotation_breakdown(coalesce(nullif(:use_gpu_annotation, ''), 1), coalesce(nullif(:duration_ratio, ''), 0.8), coalesce(nullif(:num_kernels, ''), 1000)) t WHERE arg.rank IS NULL AND arg.job IS NULL;

-- name: profiler_steps
-- title: Profiler steps
-- description: The ProfilerStep#N iterations of each rank (ts absolute, dur; µs).
WITH arg(rank, job) AS (
  SELECT CASE WHEN nullif(:rank, '') IS NULL THEN NULL
              WHEN :rank NOT GLOB '*[^0-9]*' THEN CAST(:rank AS INTEGER)
              ELSE hta_error('rank must be an integer (or empty for every rank), not ' || :rank) END,
         CASE WHEN nullif(:job, '') IS NULL THEN NULL
              WHEN :job IN (SELECT name FROM job) THEN :job
              ELSE hta_error('job must be the name of a job of this database (the jobs query lists them; empty for every job), not ' || :job) END)
SELECT t.* FROM arg CROSS JOIN hta_profiler_steps t WHERE t.rank = arg.rank AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_profiler_steps t WHERE t.rank = arg.rank AND arg.job IS NULL
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_profiler_steps t WHERE arg.rank IS NULL AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_profiler_steps t WHERE arg.rank IS NULL AND arg.job IS NULL;

-- name: potential_stragglers
-- title: Potential stragglers
-- description: Per job, the ranks whose collectives start last most often. HTA's straggler analysis.
WITH arg(job) AS (
  SELECT CASE WHEN nullif(:job, '') IS NULL THEN NULL
              WHEN :job IN (SELECT name FROM job) THEN :job
              ELSE hta_error('job must be the name of a job of this database (the jobs query lists them; empty for every job), not ' || :job) END)
SELECT t.* FROM arg CROSS JOIN hta_potential_stragglers(coalesce(nullif(:num_candidates, ''), 2)) t WHERE t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_potential_stragglers(coalesce(nullif(:num_candidates, ''), 2)) t WHERE arg.job IS NULL;

-- name: trace_diff
-- title: Trace diff
-- description: Per event name, counts and total duration (µs) in a control and a test (rank, iteration); empty fields mean the lowest rank and the first step. HTA TraceDiff.compare_traces.
SELECT *
FROM hta_trace_diff(nullif(:control_rank, ''), nullif(:control_iteration, ''),
                    nullif(:test_rank, ''), nullif(:test_iteration, ''));

-- name: aten_op_kernels
-- title: Kernels of each aten operator
-- description: Per aten:: operator and kernel sequence: occurrences and average launch delays (µs). HTA get_aten_op_kernels_and_delay.
WITH arg(rank, job) AS (
  SELECT CASE WHEN nullif(:rank, '') IS NULL THEN NULL
              WHEN :rank NOT GLOB '*[^0-9]*' THEN CAST(:rank AS INTEGER)
              ELSE hta_error('rank must be an integer (or empty for every rank), not ' || :rank) END,
         CASE WHEN nullif(:job, '') IS NULL THEN NULL
              WHEN :job IN (SELECT name FROM job) THEN :job
              ELSE hta_error('job must be the name of a job of this database (the jobs query lists them; empty for every job), not ' || :job) END)
SELECT t.* FROM arg CROSS JOIN hta_aten_op_kernels t WHERE t.rank = arg.rank AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_aten_op_kernels t WHERE t.rank = arg.rank AND arg.job IS NULL
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_aten_op_kernels t WHERE arg.rank IS NULL AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_aten_op_kernels t WHERE arg.rank IS NULL AND arg.job IS NULL;

-- name: top_kernels
-- title: Top GPU kernels (SQL over the kernels view)
-- description: The kernels with the most total time over all ranks of a job, with HTA's shortened names and their job (µs).
WITH arg(job) AS (
  SELECT CASE WHEN nullif(:job, '') IS NULL THEN NULL
              WHEN :job IN (SELECT name FROM job) THEN :job
              ELSE hta_error('job must be the name of a job of this database (the jobs query lists them; empty for every job), not ' || :job) END)
SELECT j.name AS job, k.kernel_type, hta_shorten_name(k.name) AS kernel, count(*) AS n,
       sum(k.dur) / 1000.0 AS total_us, avg(k.dur) / 1000.0 AS mean_us
FROM arg CROSS JOIN kernels k JOIN trace t ON t.trace_id = k.trace_id JOIN job j ON j.job_id = t.job_id
WHERE arg.job IS NULL OR j.name = arg.job
GROUP BY t.job_id, k.name
ORDER BY sum(k.dur) DESC
LIMIT coalesce(nullif(:limit, ''), 20);

-- name: collective_instances
-- title: Collective instances
-- description: One row per collective (NCCL/RCCL kernels matched across ranks by process group and index): message bytes, latency, start and end skew (µs), the rank that started first and the rank everyone waited for (last_rank) with what it did before, bandwidths (GiB/s, GB/s). all_types 1 lists broadcast and reduce too. A job whose collectives run on the CPU (gloo) has none. TraceLens NcclAnalyser.
WITH arg(rank, job) AS (
  SELECT CASE WHEN nullif(:rank, '') IS NULL THEN NULL
              WHEN :rank NOT GLOB '*[^0-9]*' THEN CAST(:rank AS INTEGER)
              ELSE hta_error('rank must be an integer (or empty for every rank), not ' || :rank) END,
         CASE WHEN nullif(:job, '') IS NULL THEN NULL
              WHEN :job IN (SELECT name FROM job) THEN :job
              ELSE hta_error('job must be the name of a job of this database (the jobs query lists them; empty for every job), not ' || :job) END)
SELECT t.* FROM arg CROSS JOIN hta_collective_instances(coalesce(nullif(:all_types, ''), 0)) t WHERE t.rank = arg.rank AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_collective_instances(coalesce(nullif(:all_types, ''), 0)) t WHERE t.rank = arg.rank AND arg.job IS NULL
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_collective_instances(coalesce(nullif(:all_types, ''), 0)) t WHERE arg.rank IS NULL AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_collective_instances(coalesce(nullif(:all_types, ''), 0)) t WHERE arg.rank IS NULL AND arg.job IS NULL;

-- name: collective_ranks
-- title: Collective waits per rank
-- description: Who made the others wait: per rank, the time it waited in collectives (µs), how often it arrived last and first, and its time in collective kernels (µs). The straggler is the rank that waits least.
WITH arg(rank, job) AS (
  SELECT CASE WHEN nullif(:rank, '') IS NULL THEN NULL
              WHEN :rank NOT GLOB '*[^0-9]*' THEN CAST(:rank AS INTEGER)
              ELSE hta_error('rank must be an integer (or empty for every rank), not ' || :rank) END,
         CASE WHEN nullif(:job, '') IS NULL THEN NULL
              WHEN :job IN (SELECT name FROM job) THEN :job
              ELSE hta_error('job must be the name of a job of this database (the jobs query lists them; empty for every job), not ' || :job) END)
SELECT t.* FROM arg CROSS JOIN hta_collective_ranks(coalesce(nullif(:all_types, ''), 0)) t WHERE t.rank = arg.rank AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_collective_ranks(coalesce(nullif(:all_types, ''), 0)) t WHERE t.rank = arg.rank AND arg.job IS NULL
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_collective_ranks(coalesce(nullif(:all_types, ''), 0)) t WHERE arg.rank IS NULL AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_collective_ranks(coalesce(nullif(:all_types, ''), 0)) t WHERE arg.rank IS NULL AND arg.job IS NULL;

-- name: memory_summary
-- title: Memory peaks per step
-- description: Per rank, device and ProfilerStep: the peak allocated and reserved memory (bytes), when (µs from the job's first event) and in which operator it was reached, allocations and frees (count, bytes), bytes still allocated at the end. Needs profile_memory=True. TensorBoard Memory View.
WITH arg(rank, job) AS (
  SELECT CASE WHEN nullif(:rank, '') IS NULL THEN NULL
              WHEN :rank NOT GLOB '*[^0-9]*' THEN CAST(:rank AS INTEGER)
              ELSE hta_error('rank must be an integer (or empty for every rank), not ' || :rank) END,
         CASE WHEN nullif(:job, '') IS NULL THEN NULL
              WHEN :job IN (SELECT name FROM job) THEN :job
              ELSE hta_error('job must be the name of a job of this database (the jobs query lists them; empty for every job), not ' || :job) END)
SELECT t.* FROM arg CROSS JOIN hta_memory_summary t WHERE t.rank = arg.rank AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_memory_summary t WHERE t.rank = arg.rank AND arg.job IS NULL
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_memory_summary t WHERE arg.rank IS NULL AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_memory_summary t WHERE arg.rank IS NULL AND arg.job IS NULL;

-- name: memory_by_operator
-- title: Memory per operator
-- description: Per rank, device and operator name: calls, and the bytes allocated and the net increase (bytes) in its own allocations (self_*) and with the operators below it. Needs profile_memory=True. TensorBoard Memory View, operator table.
WITH arg(rank, job) AS (
  SELECT CASE WHEN nullif(:rank, '') IS NULL THEN NULL
              WHEN :rank NOT GLOB '*[^0-9]*' THEN CAST(:rank AS INTEGER)
              ELSE hta_error('rank must be an integer (or empty for every rank), not ' || :rank) END,
         CASE WHEN nullif(:job, '') IS NULL THEN NULL
              WHEN :job IN (SELECT name FROM job) THEN :job
              ELSE hta_error('job must be the name of a job of this database (the jobs query lists them; empty for every job), not ' || :job) END)
SELECT t.* FROM arg CROSS JOIN hta_memory_by_operator t WHERE t.rank = arg.rank AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_memory_by_operator t WHERE t.rank = arg.rank AND arg.job IS NULL
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_memory_by_operator t WHERE arg.rank IS NULL AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_memory_by_operator t WHERE arg.rank IS NULL AND arg.job IS NULL;

-- name: kernel_stats
-- title: GPU kernels by launch configuration
-- description: Per rank, kernel, operator that launched it and launch configuration (grid, block, registers, shared memory): calls, time (µs), blocks per SM, achieved occupancy (%), tensor-core use. group_by: config (default) or name (every kernel by name). TensorBoard GPU Kernel view.
WITH arg(rank, job) AS (
  SELECT CASE WHEN nullif(:rank, '') IS NULL THEN NULL
              WHEN :rank NOT GLOB '*[^0-9]*' THEN CAST(:rank AS INTEGER)
              ELSE hta_error('rank must be an integer (or empty for every rank), not ' || :rank) END,
         CASE WHEN nullif(:job, '') IS NULL THEN NULL
              WHEN :job IN (SELECT name FROM job) THEN :job
              ELSE hta_error('job must be the name of a job of this database (the jobs query lists them; empty for every job), not ' || :job) END)
SELECT t.* FROM arg CROSS JOIN hta_kernel_stats(coalesce(nullif(:group_by, ''), 'config')) t WHERE t.rank = arg.rank AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_kernel_stats(coalesce(nullif(:group_by, ''), 'config')) t WHERE t.rank = arg.rank AND arg.job IS NULL
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_kernel_stats(coalesce(nullif(:group_by, ''), 'config')) t WHERE arg.rank IS NULL AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_kernel_stats(coalesce(nullif(:group_by, ''), 'config')) t WHERE arg.rank IS NULL AND arg.job IS NULL;

-- name: operator_stats
-- title: Operators
-- description: Per rank and operator name (group_by: name, default) or name and input shape (input_shape): calls, device and host time, self and total (µs), tensor-core eligibility and share of device time (%). TensorBoard Operator view.
WITH arg(rank, job) AS (
  SELECT CASE WHEN nullif(:rank, '') IS NULL THEN NULL
              WHEN :rank NOT GLOB '*[^0-9]*' THEN CAST(:rank AS INTEGER)
              ELSE hta_error('rank must be an integer (or empty for every rank), not ' || :rank) END,
         CASE WHEN nullif(:job, '') IS NULL THEN NULL
              WHEN :job IN (SELECT name FROM job) THEN :job
              ELSE hta_error('job must be the name of a job of this database (the jobs query lists them; empty for every job), not ' || :job) END)
SELECT t.* FROM arg CROSS JOIN hta_operator_stats(coalesce(nullif(:group_by, ''), 'name')) t WHERE t.rank = arg.rank AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_operator_stats(coalesce(nullif(:group_by, ''), 'name')) t WHERE t.rank = arg.rank AND arg.job IS NULL
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_operator_stats(coalesce(nullif(:group_by, ''), 'name')) t WHERE arg.rank IS NULL AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_operator_stats(coalesce(nullif(:group_by, ''), 'name')) t WHERE arg.rank IS NULL AND arg.job IS NULL;

-- name: module_stats
-- title: nn.Module view
-- description: Per rank and nn.Module path (the module names from the root, JSON), depth first: calls, direct operator children, host and device time, total and self (µs); numbers per module over all its calls. Needs module events (profile with with_stack=True or with_modules=True). TensorBoard Module view.
WITH arg(rank, job) AS (
  SELECT CASE WHEN nullif(:rank, '') IS NULL THEN NULL
              WHEN :rank NOT GLOB '*[^0-9]*' THEN CAST(:rank AS INTEGER)
              ELSE hta_error('rank must be an integer (or empty for every rank), not ' || :rank) END,
         CASE WHEN nullif(:job, '') IS NULL THEN NULL
              WHEN :job IN (SELECT name FROM job) THEN :job
              ELSE hta_error('job must be the name of a job of this database (the jobs query lists them; empty for every job), not ' || :job) END)
SELECT t.* FROM arg CROSS JOIN hta_module_stats t WHERE t.rank = arg.rank AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_module_stats t WHERE t.rank = arg.rank AND arg.job IS NULL
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_module_stats t WHERE arg.rank IS NULL AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_module_stats t WHERE arg.rank IS NULL AND arg.job IS NULL;

-- name: tensor_core_summary
-- title: Tensor cores
-- description: Per rank and GPU: share of the operators' kernel time on tensor cores, of all kernel time, and of the time of tensor-core eligible operators (%). Eligible time without tensor-core time: mixed precision or TF32 could help. TensorBoard tensor-core figures.
WITH arg(rank, job) AS (
  SELECT CASE WHEN nullif(:rank, '') IS NULL THEN NULL
              WHEN :rank NOT GLOB '*[^0-9]*' THEN CAST(:rank AS INTEGER)
              ELSE hta_error('rank must be an integer (or empty for every rank), not ' || :rank) END,
         CASE WHEN nullif(:job, '') IS NULL THEN NULL
              WHEN :job IN (SELECT name FROM job) THEN :job
              ELSE hta_error('job must be the name of a job of this database (the jobs query lists them; empty for every job), not ' || :job) END)
SELECT t.* FROM arg CROSS JOIN hta_tensor_core_summary t WHERE t.rank = arg.rank AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_tensor_core_summary t WHERE t.rank = arg.rank AND arg.job IS NULL
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_tensor_core_summary t WHERE arg.rank IS NULL AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_tensor_core_summary t WHERE arg.rank IS NULL AND arg.job IS NULL;

-- name: execution_summary
-- title: Execution summary: where a step's time goes
-- description: Per rank: the mean step split into Kernel, Memcpy, Memset, Communication, Runtime, DataLoader, CPU Exec and Other (µs, % of the step; shown = the rows the plugin lists). TensorBoard Overview.
WITH arg(rank, job) AS (
  SELECT CASE WHEN nullif(:rank, '') IS NULL THEN NULL
              WHEN :rank NOT GLOB '*[^0-9]*' THEN CAST(:rank AS INTEGER)
              ELSE hta_error('rank must be an integer (or empty for every rank), not ' || :rank) END,
         CASE WHEN nullif(:job, '') IS NULL THEN NULL
              WHEN :job IN (SELECT name FROM job) THEN :job
              ELSE hta_error('job must be the name of a job of this database (the jobs query lists them; empty for every job), not ' || :job) END)
SELECT t.* FROM arg CROSS JOIN hta_execution_summary t WHERE t.rank = arg.rank AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_execution_summary t WHERE t.rank = arg.rank AND arg.job IS NULL
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_execution_summary t WHERE arg.rank IS NULL AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_execution_summary t WHERE arg.rank IS NULL AND arg.job IS NULL;

-- name: step_time_breakdown
-- title: Step time breakdown
-- description: Per rank and step: the step's window (moved to the GPU work it launched) split into the eight roles of the execution summary (µs). TensorBoard Overview.
WITH arg(rank, job) AS (
  SELECT CASE WHEN nullif(:rank, '') IS NULL THEN NULL
              WHEN :rank NOT GLOB '*[^0-9]*' THEN CAST(:rank AS INTEGER)
              ELSE hta_error('rank must be an integer (or empty for every rank), not ' || :rank) END,
         CASE WHEN nullif(:job, '') IS NULL THEN NULL
              WHEN :job IN (SELECT name FROM job) THEN :job
              ELSE hta_error('job must be the name of a job of this database (the jobs query lists them; empty for every job), not ' || :job) END)
SELECT t.* FROM arg CROSS JOIN hta_step_time_breakdown t WHERE t.rank = arg.rank AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_step_time_breakdown t WHERE t.rank = arg.rank AND arg.job IS NULL
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_step_time_breakdown t WHERE arg.rank IS NULL AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_step_time_breakdown t WHERE arg.rank IS NULL AND arg.job IS NULL;

-- name: gpu_metrics
-- title: GPU summary
-- description: Per rank and GPU, over the steps: utilization and estimated SM efficiency (fractions 0-1), estimated achieved occupancy (%), busy and window time (µs), the device's name and memory. TensorBoard GPU Summary.
WITH arg(rank, job) AS (
  SELECT CASE WHEN nullif(:rank, '') IS NULL THEN NULL
              WHEN :rank NOT GLOB '*[^0-9]*' THEN CAST(:rank AS INTEGER)
              ELSE hta_error('rank must be an integer (or empty for every rank), not ' || :rank) END,
         CASE WHEN nullif(:job, '') IS NULL THEN NULL
              WHEN :job IN (SELECT name FROM job) THEN :job
              ELSE hta_error('job must be the name of a job of this database (the jobs query lists them; empty for every job), not ' || :job) END)
SELECT t.* FROM arg CROSS JOIN hta_gpu_metrics t WHERE t.rank = arg.rank AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_gpu_metrics t WHERE t.rank = arg.rank AND arg.job IS NULL
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_gpu_metrics t WHERE arg.rank IS NULL AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_gpu_metrics t WHERE arg.rank IS NULL AND arg.job IS NULL;

-- name: distributed_overlap
-- title: Distributed view: computation, communication, waiting
-- description: Per rank and step (all = the mean step): computation alone, overlapped with communication, communication alone and other time; the collectives' data transfer and synchronizing (waiting) time (µs). Only when every rank has collectives. TensorBoard Distributed view.
WITH arg(rank, job) AS (
  SELECT CASE WHEN nullif(:rank, '') IS NULL THEN NULL
              WHEN :rank NOT GLOB '*[^0-9]*' THEN CAST(:rank AS INTEGER)
              ELSE hta_error('rank must be an integer (or empty for every rank), not ' || :rank) END,
         CASE WHEN nullif(:job, '') IS NULL THEN NULL
              WHEN :job IN (SELECT name FROM job) THEN :job
              ELSE hta_error('job must be the name of a job of this database (the jobs query lists them; empty for every job), not ' || :job) END)
SELECT t.* FROM arg CROSS JOIN hta_distributed_overlap t WHERE t.rank = arg.rank AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_distributed_overlap t WHERE t.rank = arg.rank AND arg.job IS NULL
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_distributed_overlap t WHERE arg.rank IS NULL AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_distributed_overlap t WHERE arg.rank IS NULL AND arg.job IS NULL;

-- name: distributed_comm_ops
-- title: Distributed view: collectives
-- description: Per rank and collective name: calls, input bytes, total, data transfer and synchronizing (waiting) time (µs). TensorBoard Distributed view.
WITH arg(rank, job) AS (
  SELECT CASE WHEN nullif(:rank, '') IS NULL THEN NULL
              WHEN :rank NOT GLOB '*[^0-9]*' THEN CAST(:rank AS INTEGER)
              ELSE hta_error('rank must be an integer (or empty for every rank), not ' || :rank) END,
         CASE WHEN nullif(:job, '') IS NULL THEN NULL
              WHEN :job IN (SELECT name FROM job) THEN :job
              ELSE hta_error('job must be the name of a job of this database (the jobs query lists them; empty for every job), not ' || :job) END)
SELECT t.* FROM arg CROSS JOIN hta_distributed_comm_ops t WHERE t.rank = arg.rank AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_distributed_comm_ops t WHERE t.rank = arg.rank AND arg.job IS NULL
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_distributed_comm_ops t WHERE arg.rank IS NULL AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_distributed_comm_ops t WHERE arg.rank IS NULL AND arg.job IS NULL;

-- name: critical_path_summary
-- title: Critical path summary
-- description: Per rank, the critical path of one annotation instance (default the first ProfilerStep) by what bounds it: CPU, GPU compute or communication, kernel-kernel or launch overhead; duration (µs) and % of the path. HTA CriticalPathAnalysis summary().
WITH arg(rank, job) AS (
  SELECT CASE WHEN nullif(:rank, '') IS NULL THEN NULL
              WHEN :rank NOT GLOB '*[^0-9]*' THEN CAST(:rank AS INTEGER)
              ELSE hta_error('rank must be an integer (or empty for every rank), not ' || :rank) END,
         CASE WHEN nullif(:job, '') IS NULL THEN NULL
              WHEN :job IN (SELECT name FROM job) THEN :job
              ELSE hta_error('job must be the name of a job of this database (the jobs query lists them; empty for every job), not ' || :job) END)
SELECT t.* FROM arg CROSS JOIN hta_critical_path_summary(coalesce(nullif(:annotation, ''), 'ProfilerStep')) t WHERE t.rank = arg.rank AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_critical_path_summary(coalesce(nullif(:annotation, ''), 'ProfilerStep')) t WHERE t.rank = arg.rank AND arg.job IS NULL
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_critical_path_summary(coalesce(nullif(:annotation, ''), 'ProfilerStep')) t WHERE arg.rank IS NULL AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_critical_path_summary(coalesce(nullif(:annotation, ''), 'ProfilerStep')) t WHERE arg.rank IS NULL AND arg.job IS NULL;

-- name: critical_path_job
-- title: The job's critical path, across ranks
-- description: Per job, the critical path of one annotation instance (default the first ProfilerStep) across ranks: every rank's graph joined at the collectives, so the path runs through the work that made the others wait. Time (µs) and % of the path per rank and what bounds it. Beyond HTA (one rank at a time).
WITH arg(job) AS (
  SELECT CASE WHEN nullif(:job, '') IS NULL THEN NULL
              WHEN :job IN (SELECT name FROM job) THEN :job
              ELSE hta_error('job must be the name of a job of this database (the jobs query lists them; empty for every job), not ' || :job) END)
SELECT t.* FROM arg CROSS JOIN hta_critical_path_job_summary(coalesce(nullif(:annotation, ''), 'ProfilerStep')) t WHERE t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_critical_path_job_summary(coalesce(nullif(:annotation, ''), 'ProfilerStep')) t WHERE arg.job IS NULL;

-- name: op_perf
-- title: Operator performance (roofline)
-- description: Per rank and operator signature (name and recorded shapes), the FLOPs and bytes its shapes imply, its GPU kernel time (µs), the TFLOPS and TB/s achieved, and how close it ran to the GPU's peak (pct_of_peak of the roofline from device_peak; bound says compute or memory). Needs record_shapes=True. AMD TraceLens's performance model.
WITH arg(rank, job) AS (
  SELECT CASE WHEN nullif(:rank, '') IS NULL THEN NULL
              WHEN :rank NOT GLOB '*[^0-9]*' THEN CAST(:rank AS INTEGER)
              ELSE hta_error('rank must be an integer (or empty for every rank), not ' || :rank) END,
         CASE WHEN nullif(:job, '') IS NULL THEN NULL
              WHEN :job IN (SELECT name FROM job) THEN :job
              ELSE hta_error('job must be the name of a job of this database (the jobs query lists them; empty for every job), not ' || :job) END)
SELECT t.* FROM arg CROSS JOIN hta_op_perf t WHERE t.rank = arg.rank AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_op_perf t WHERE t.rank = arg.rank AND arg.job IS NULL
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_op_perf t WHERE arg.rank IS NULL AND t.job = arg.job
UNION ALL
SELECT t.* FROM arg CROSS JOIN hta_op_perf t WHERE arg.rank IS NULL AND arg.job IS NULL;
