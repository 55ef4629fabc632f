-- Foreign keys to trace need no index: event, counter and flow ids encode trace_id (schema.sql).
-- Created with the schema, before the first row: the GPU index is partial and cheap to keep up.
-- GPU work is 10-20% of events: a partial covering index serves every per-stream analysis.
CREATE INDEX IF NOT EXISTS event_gpu ON event(trace_id, stream, ts, dur, name_id, category_id, link_id, correlation, seq)
  WHERE stream IS NOT NULL;
CREATE INDEX IF NOT EXISTS ingest_issue_trace ON ingest_issue(trace_id);
CREATE INDEX IF NOT EXISTS profiler_step_step ON profiler_step(step);
CREATE INDEX IF NOT EXISTS trace_job ON trace(job_id, rank);
