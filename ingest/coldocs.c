/*
** coldocs.c: what every table, view and column of an hta-sqlite database holds,
** its unit, and the trace field it comes from (coldocs.h). Written into the
** database as _hta_column by hta-ingest (hr_write_column_docs), and turned into
** Datasette's metadata.yml and docs/schema.md by examples/datasette/coldocs.sh.
**
**   SELECT column_name, description FROM _hta_column WHERE table_name = 'event';
**
** Requirements (tests cite them as CD-n; tests/cli/report_metadata.sh checks them):
**  1. Every table and view of schema/schema.sql has one row with column_name ''
**     (the table itself) and one row per column, in schema order; nothing else.
**  2. Times say their unit (ns in tables; µs only in the analyses) and every
**     column read from the trace names the trace field it comes from.
**  3. hr_write_column_docs() is idempotent: the rows are replaced, never added twice.
*/
#include "coldocs.h"

#include <stddef.h>

/* "" as column: the table itself. Keep schema order (CD-1). */
static const hr_coldoc hr_docs[] = {
    /* meta */
    {"meta", "",
     "Facts about the database: schema_version (4: with jobs, device_peak and capture), "
     "tool_version (the "
     "hta-ingest that "
     "wrote it), "
     "created_at and updated_at (UTC, ISO 8601)."},
    {"meta", "key", "The fact's name: schema_version, tool_version, created_at, updated_at."},
    {"meta", "value", "The fact's value, as text."},
    /* job */
    {"job", "",
     "One profiled run: the trace files of one training or inference job, all its ranks. "
     "Every analysis reads one job at a time."},
    {"job", "job_id", "Number of the job in this database (1, 2, ...)."},
    {"job", "name",
     "The job's name: hta-ingest --job NAME, else the name of the directory its files came "
     "from. Files ingested later under the same name join the job."},
    {"job", "source", "Absolute path of the directory (or file) the job was named after."},
    {"job", "created_at", "When the job's first trace was written (UTC, ISO 8601)."},
    /* trace */
    {"trace", "",
     "One row per ingested trace file: one profiling window of one rank, or a graph capture "
     "(listed in capture)."},
    {"trace", "trace_id",
     "Number of the file in this database (1, 2, ...); event_id >> 32 of its events."},
    {"trace", "job_id", "The job the file belongs to (job.job_id)."},
    {"trace", "rank",
     "The rank: distributedInfo.rank (an integer or a digit string), else the number in the file "
     "name (rank-N, rank_N, rankN, workerN), else 0; rank_source says which."},
    {"trace", "rank_source", "Where rank came from: 'distributedInfo', 'file_name' or 'default'."},
    {"trace", "file_name",
     "The file's path as given to hta-ingest (or found in a given directory)."},
    {"trace", "file_path", "Absolute path of the file at ingest time, to re-read the original."},
    {"trace", "file_size", "Bytes on disk (the compressed size of a .json.gz)."},
    {"trace", "content_hash",
     "Hash of the file's bytes (hex); ingesting the same content again adds nothing."},
    {"trace", "world_size", "distributedInfo.world_size; NULL when absent."},
    {"trace", "backend", "distributedInfo.backend (e.g. nccl); NULL when absent."},
    {"trace", "device_type",
     "'NVIDIA GPU' (a cudaLaunchKernel call), 'AMD GPU' (hipLaunchKernel), 'MTIA' "
     "(runFunction launches or an mtia:hccl backend) or 'UNKNOWN GPU'."},
    {"trace", "schema_version", "schemaVersion of the trace, as text; NULL when absent."},
    {"trace", "base_time_ns",
     "baseTimeNanoseconds: Unix time of the trace's clock origin, ns; NULL when absent."},
    {"trace", "display_time_unit",
     "displayTimeUnit (ms or ns): a viewer setting only; ts and dur are always read "
     "as microseconds."},
    {"trace", "event_count", "Rows this file added to the event table."},
    {"trace", "min_ts",
     "ns, absolute: the earliest ts of the events HTA keeps (with dur and cat, cat not 'Trace'); "
     "NULL when there is none (the analyses then skip the trace)."},
    {"trace", "max_end", "ns, absolute: the latest ts + dur of those events."},
    {"trace", "metadata",
     "JSON object: every top-level key of the file except traceEvents (schemaVersion, "
     "distributedInfo, deviceProperties, ...)."},
    /* capture */
    {"capture", "",
     "CUDA/HIP graph capture traces (recorded while a graph was captured), stored in the job of "
     "their replays. They are no profiled window of their rank: analyses skip them."},
    {"capture", "trace_id", "The capture's trace row."},
    {"capture", "batch_size",
     "The batch size the graph was captured for, from the capture index "
     "(execution_details.json); NULL when the index does not list the file."},
    {"capture", "mode",
     "The graph mode from the capture index: FULL or PIECEWISE (vLLM's modes); NULL when not "
     "listed."},
    {"capture", "index_file", "Path of the capture index that listed it; NULL when none did."},
    /* device */
    {"device", "", "One row per deviceProperties entry of a trace."},
    {"device", "trace_id", "The trace (trace.trace_id)."},
    {"device", "device_id", "deviceProperties[].id, else the entry's position in the array."},
    {"device", "name", "deviceProperties[].name, e.g. 'NVIDIA H100 80GB HBM3'."},
    {"device", "total_global_mem", "deviceProperties[].totalGlobalMem, bytes."},
    {"device", "compute_major",
     "deviceProperties[].computeMajor (CUDA compute capability, major)."},
    {"device", "compute_minor", "deviceProperties[].computeMinor."},
    {"device", "num_sms",
     "deviceProperties[].numSms: streaming multiprocessors (compute units on AMD)."},
    {"device", "properties", "The whole deviceProperties entry, as JSON."},
    /* string, category */
    {"string", "",
     "Interned event names: event.name_id, counter.name_id and flow.name_id point here."},
    {"string", "string_id", "The id."},
    {"string", "value", "The name, exactly as in the trace's name field."},
    {"category", "",
     "Interned event categories (the trace's cat field): kernel, cpu_op, cuda_runtime, ..."},
    {"category", "category_id", "The id."},
    {"category", "name", "The category, exactly as in the trace's cat field."},
    /* thread */
    {"thread", "", "Process and thread names and sort order, from the ph:'M' metadata events."},
    {"thread", "trace_id", "The trace (trace.trace_id)."},
    {"thread", "pid", "pid of the metadata event: an integer, or text as written (e.g. 'Spans')."},
    {"thread", "tid",
     "tid of the metadata event: an integer, or text as written (e.g. 'stream 7')."},
    {"thread", "process_name", "args.name of the process_name event."},
    {"thread", "thread_name", "args.name of the thread_name event."},
    {"thread", "sort_index",
     "args.sort_index of the process_sort_index / thread_sort_index event."},
    /* event */
    {"event", "",
     "One row per trace event with a timestamp: complete events (ph X), instants, and B/E "
     "pairs joined into one X row. Times are integer ns."},
    {"event", "event_id",
     "(trace_id << 32) | n, n = 0, 1, 2... the event's ordinal among its trace's rows."},
    {"event", "trace_id", "The trace (trace.trace_id)."},
    {"event", "rank", "The trace's rank (copied from trace.rank)."},
    {"event", "seq", "Position of the event in traceEvents, from 0 (HTA's index)."},
    {"event", "ph", "The ph field: 'X' complete (B/E pairs become X), 'i'/'I' instant, ..."},
    {"event", "category_id", "cat, interned (category.category_id); NULL when absent."},
    {"event", "name_id", "name, interned (string.string_id); NULL when absent."},
    {"event", "pid", "pid as written: an integer, or text."},
    {"event", "tid", "tid as written: an integer, or text (e.g. 'stream 7')."},
    {"event", "ts", "ns, absolute: the ts field (µs) × 1000, fractional µs kept exactly."},
    {"event", "dur",
     "ns: the dur field (µs) × 1000, or E.ts - B.ts for a B/E pair; NULL for instants."},
    {"event", "stream",
     "args.stream of GPU work (cat kernel, gpu_memcpy, gpu_memset, their legacy spellings "
     "Kernel/Memcpy/Memset, mtia_ccp_events); NULL for every host event (deviation D5)."},
    {"event", "device", "args.device (the GPU index); NULL when absent."},
    {"event", "correlation",
     "args.correlation: pairs a runtime call (cudaLaunchKernel...) with its GPU work."},
    {"event", "external_id",
     "args.\"External id\": links a runtime call to the CPU operator that made it."},
    {"event", "link_id",
     "event_id of the correlated partner (launch <-> kernel/memcpy/memset/sync, equal "
     "correlation); NULL when there is none."},
    {"event", "parent_id",
     "event_id of the enclosing host event on the same thread (call stack; backward-pass "
     "roots hang under the forward thread); a GPU row's parent is its launch. NULL at the "
     "top."},
    {"event", "depth", "Call-stack depth: 0 at the top; NULL outside every call stack."},
    {"event", "iteration",
     "N of the host ProfilerStep#N whose span holds ts (GPU rows take their launch's); "
     "NULL outside every step."},
    {"event", "args",
     "JSON object of the args members not promoted to columns; NULL when nothing is left."},
    /* profiler_step */
    {"profiler_step", "",
     "The host ProfilerStep#N events (not their gpu_user_annotation copies, deviation D7): "
     "the iterations."},
    {"profiler_step", "trace_id", "The trace (trace.trace_id)."},
    {"profiler_step", "step", "N of ProfilerStep#N."},
    {"profiler_step", "event_id", "The step's event (event.event_id)."},
    {"profiler_step", "ts", "ns, absolute: the step's start."},
    {"profiler_step", "dur", "ns: the step's duration."},
    /* counter */
    {"counter", "",
     "Counter events (ph 'C'): one row per numeric args member (series) of each event."},
    {"counter", "counter_id", "(trace_id << 32) | n."},
    {"counter", "trace_id", "The trace (trace.trace_id)."},
    {"counter", "rank", "The trace's rank."},
    {"counter", "seq", "Position of the event in traceEvents."},
    {"counter", "name_id", "The event's name, interned (string.string_id)."},
    {"counter", "pid", "pid as written."},
    {"counter", "ts", "ns, absolute."},
    {"counter", "series", "The args key, e.g. 'Allocated (MB)'."},
    {"counter", "value", "The args value (REAL), in the unit its key names."},
    /* flow */
    {"flow", "",
     "Flow events (ph 's', 't', 'f'): the arrows of the trace viewer (ac2g, fwdbwd, ...)."},
    {"flow", "flow_id", "(trace_id << 32) | n."},
    {"flow", "trace_id", "The trace (trace.trace_id)."},
    {"flow", "seq", "Position of the event in traceEvents."},
    {"flow", "ph", "'s' start, 't' step or 'f' finish."},
    {"flow", "id", "The flow's id field as written (an integer or text)."},
    {"flow", "category_id", "cat, interned (category.category_id)."},
    {"flow", "name_id", "name, interned (string.string_id)."},
    {"flow", "pid", "pid as written."},
    {"flow", "tid", "tid as written."},
    {"flow", "ts", "ns, absolute."},
    {"flow", "bp", "The bp (binding point) field as written, e.g. 'e'; NULL when absent."},
    /* ingest_issue */
    {"ingest_issue", "",
     "Everything ingest dropped, repaired or guessed, and every file that failed: nothing "
     "is silently lost."},
    {"ingest_issue", "issue_id", "The id."},
    {"ingest_issue", "trace_id",
     "The trace; NULL for a file that failed as a whole (code file_failed)."},
    {"ingest_issue", "code",
     "What happened: negative_duration, unmatched_begin, unmatched_end, no_timestamp, "
     "bad_step_name, negative_duration_stack, shared_rank, rank_from_file_name, "
     "rank_default, file_failed, ..."},
    {"ingest_issue", "count", "How many events (or files) it concerns."},
    {"ingest_issue", "first_seq",
     "traceEvents position of the first occurrence; NULL when not about one event."},
    {"ingest_issue", "example", "An example: the first event's name, or the file's path."},
    {"ingest_issue", "message",
     "What was done, in words (for file_failed: the file, byte offset and error)."},
    /* kernel_type_rule */
    {"kernel_type_rule", "",
     "How GPU event names are classified (HTA's rules as GLOB patterns, plus ncclDevKernel, "
     "rccl and hip names). Insert your own rules: every later analysis uses them."},
    {"kernel_type_rule", "priority",
     "Rules are tried by ascending priority; the first that matches wins."},
    {"kernel_type_rule", "pattern", "GLOB over the whole name, case-sensitive (e.g. 'nccl*')."},
    {"kernel_type_rule", "kernel_type", "COMMUNICATION, MEMORY, COMPUTATION or OTHER."},
    /* device_peak */
    {"device_peak", "",
     "The roofline's peaks (hta_op_perf): per GPU name pattern and compute spec, dense peak "
     "TFLOPS and memory TB/s from the vendors' datasheets (source, form_factor). Edit or add "
     "rows: every later query uses them."},
    {"device_peak", "device_pattern",
     "GLOB over device.name, case-sensitive (e.g. '*H100*PCIe*'); a trace's device is the first "
     "pattern, by priority, that matches."},
    {"device_peak", "priority", "Patterns are tried by ascending priority."},
    {"device_peak", "compute_spec",
     "matrix_ or vector_ and a precision (fp64, fp32, fp16, bf16, fp8, fp4): "
     "hta_op_perf.compute_spec."},
    {"device_peak", "peak_tflops", "Dense peak, TFLOPS (10^12 floating-point operations / s)."},
    {"device_peak", "peak_tbps", "Memory bandwidth, TB/s (10^12 bytes / s)."},
    {"device_peak", "form_factor", "The board the figures are for (SXM, PCIe, OAM, memory size)."},
    {"device_peak", "source", "Where the figures come from, and what was derived."},
    /* views */
    {"events", "", "View: event with its name and category as text."},
    {"events", "event_id", "event.event_id."},
    {"events", "rank", "event.rank."},
    {"events", "ph", "event.ph."},
    {"events", "cat", "The category (the trace's cat field)."},
    {"events", "name", "The name (the trace's name field)."},
    {"events", "pid", "event.pid."},
    {"events", "tid", "event.tid."},
    {"events", "ts", "ns, absolute (event.ts)."},
    {"events", "dur", "ns (event.dur)."},
    {"events", "stream", "event.stream: GPU work only."},
    {"events", "correlation", "event.correlation."},
    {"events", "external_id", "event.external_id."},
    {"events", "link_id", "event.link_id: the correlated partner."},
    {"events", "parent_id", "event.parent_id: the call-stack parent."},
    {"events", "depth", "event.depth."},
    {"events", "iteration", "event.iteration: the ProfilerStep number."},
    {"events", "args", "event.args (JSON)."},
    {"events", "trace_id", "event.trace_id."},
    {"events", "seq", "event.seq: position in traceEvents."},
    {"events", "device", "event.device."},
    {"kernels", "",
     "View: GPU work (the events with a stream: kernels, memcpy, memset) with its kernel type."},
    {"kernels", "event_id", "event.event_id."},
    {"kernels", "trace_id", "event.trace_id."},
    {"kernels", "rank", "event.rank."},
    {"kernels", "cat",
     "The category: kernel, gpu_memcpy, gpu_memset (or Kernel, Memcpy, Memset, mtia_ccp_events)."},
    {"kernels", "name", "The kernel's name."},
    {"kernels", "pid", "event.pid (the GPU)."},
    {"kernels", "tid", "event.tid (the stream, as the trace writes it)."},
    {"kernels", "ts", "ns, absolute (event.ts)."},
    {"kernels", "dur", "ns (event.dur)."},
    {"kernels", "stream", "event.stream."},
    {"kernels", "device", "event.device."},
    {"kernels", "correlation", "event.correlation."},
    {"kernels", "external_id", "event.external_id."},
    {"kernels", "link_id", "event.link_id: the launch."},
    {"kernels", "iteration", "event.iteration: the launch's ProfilerStep number."},
    {"kernels", "args",
     "event.args (JSON: grid, block, registers, bytes, memory bandwidth (GB/s), ...)."},
    {"kernels", "kernel_type",
     "COMMUNICATION, MEMORY, COMPUTATION or OTHER: the first kernel_type_rule matching "
     "the name."},
    /* job_summary */
    {"job_summary", "", "View: one row per job, as hta-ingest --list prints it."},
    {"job_summary", "job_id", "job.job_id."},
    {"job_summary", "job", "job.name."},
    {"job_summary", "ranks", "Distinct ranks among the job's traces (graph captures aside)."},
    {"job_summary", "min_rank", "The lowest rank; NULL for a job without traces."},
    {"job_summary", "max_rank", "The highest rank."},
    {"job_summary", "files", "Trace files (rows of trace) in the job, graph captures included."},
    {"job_summary", "steps",
     "Distinct host ProfilerStep numbers (profiler_step.step) over the job's traces (graph "
     "captures aside)."},
    {"job_summary", "events", "Rows of event (sum of trace.event_count)."},
    {"job_summary", "json_bytes",
     "Bytes on disk of the job's trace files (sum of trace.file_size: the compressed size of "
     "a .json.gz)."},
    {"job_summary", "source", "job.source."},
    {"job_summary", "captures", "Graph capture traces among the files (table capture)."},
    /* this table */
    {"_hta_column", "", "These descriptions (written by hta-ingest; hidden in Datasette)."},
    {"_hta_column", "table_name", "A table or view."},
    {"_hta_column", "column_name", "One of its columns; '' for the table itself."},
    {"_hta_column", "description", "What it holds, its unit, and the trace field it comes from."},
};

int hr_write_column_docs(sqlite3 *db) {
  /* a savepoint: one transaction of its own, or nested in the caller's (CD-3) */
  int rc = sqlite3_exec(db,
                        "SAVEPOINT hr_coldocs;\n"
                        "CREATE TABLE IF NOT EXISTS _hta_column(\n"
                        "  table_name  TEXT NOT NULL,\n"
                        "  column_name TEXT NOT NULL,  -- '' for the table itself\n"
                        "  description TEXT NOT NULL,\n"
                        "  PRIMARY KEY(table_name, column_name)\n"
                        ");\n"
                        "DELETE FROM _hta_column;",
                        NULL, NULL, NULL);
  sqlite3_stmt *st = NULL;
  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2(
        db, "INSERT INTO _hta_column(table_name, column_name, description) VALUES (?, ?, ?)", -1,
        &st, NULL);
  for (size_t i = 0; i < sizeof hr_docs / sizeof hr_docs[0] && rc == SQLITE_OK; i++) {
    sqlite3_bind_text(st, 1, hr_docs[i].table, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, hr_docs[i].column, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, hr_docs[i].description, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_OK) {
    sqlite3_exec(db, "ROLLBACK TO hr_coldocs; RELEASE hr_coldocs;", NULL, NULL, NULL);
    return rc;
  }
  return sqlite3_exec(db, "RELEASE hr_coldocs;", NULL, NULL, NULL);
}
