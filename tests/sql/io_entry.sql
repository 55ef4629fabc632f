-- The io family (ext/io/io.c): registered only by the io entry point, every name DIRECTONLY.
-- This file runs with the DEFAULT entry point loaded (.load $HTA_EXT); the io entry point
-- is checked through .system (the shell expands $HTA_EXT). Every output line is "label|1".

-- The default entry point registers none of the io names.
SELECT 'io_default_no_functions', (SELECT count(*) FROM pragma_function_list WHERE name IN
  ('hta_ingest', 'hta_write_trace_with_counters', 'hta_write_sequence_overlay')) = 0;
SELECT 'io_default_no_module', (SELECT count(*) FROM pragma_module_list WHERE name = 'hta_trace_events') = 0;
SELECT 'io_default_call_fails', NOT EXISTS (SELECT 1 FROM pragma_function_list WHERE name = 'hta_write_trace_with_counters');

-- The io entry point: exactly these functions and arities (hta_ingest is deliberately absent,
-- see ext/io/io.c), all SQLITE_DIRECTONLY (0x80000) and not DETERMINISTIC or INNOCUOUS, plus the module.
.system sqlite3 :memory: -cmd ".load $HTA_EXT sqlite3_hta_io_init" "SELECT 'io_functions_exact', group_concat(name || '/' || narg, ',') = 'hta_write_critical_path_overlay/4,hta_write_critical_path_overlay/5,hta_write_critical_path_overlay/6,hta_write_sequence_overlay/3,hta_write_sequence_overlay/4,hta_write_sequence_overlay/5,hta_write_trace_with_counters/2,hta_write_trace_with_counters/3' FROM (SELECT name, narg FROM pragma_function_list WHERE name LIKE 'hta_write%' OR name = 'hta_ingest' ORDER BY name, narg)"
.system sqlite3 :memory: -cmd ".load $HTA_EXT sqlite3_hta_io_init" "SELECT 'io_functions_directonly', count(*) = 8 FROM pragma_function_list WHERE name LIKE 'hta_write%' AND flags & 0x80000 AND NOT flags & 0x200800"
.system sqlite3 :memory: -cmd ".load $HTA_EXT sqlite3_hta_io_init" "SELECT 'io_module', count(*) = 1 FROM pragma_module_list WHERE name = 'hta_trace_events'"
.system sqlite3 :memory: -cmd ".load $HTA_EXT sqlite3_hta_io_init" "SELECT 'io_no_hta_ingest', count(*) = 0 FROM pragma_function_list WHERE name = 'hta_ingest'"
-- The io entry point keeps every default name (it is a superset).
.system sqlite3 :memory: -cmd ".load $HTA_EXT sqlite3_hta_io_init" "SELECT 'io_superset', count(*) = 19 FROM pragma_module_list WHERE name IN ('hta_temporal_breakdown','hta_kernel_type_breakdown','hta_kernel_breakdown','hta_idle_time_breakdown','hta_idle_interval_stats','hta_comm_comp_overlap','hta_kernel_launch_stats','hta_queue_length','hta_queue_length_summary','hta_queue_full_time','hta_memory_bw','hta_memory_bw_summary','hta_frequent_kernel_sequences','hta_cupti_counters','hta_user_annotation_breakdown','hta_profiler_steps','hta_trace_diff','hta_aten_op_kernels','hta_potential_stragglers')"
