-- hta-sqlite database schema: the one definition, compiled into hta-ingest and hta.so.
-- Times are integer nanoseconds, absolute as in the trace (µs × 1000, fractional µs kept).
-- event_id = (trace_id << 32) | n, n = 0, 1, 2... the event's ordinal among its trace's event
-- rows (in traceEvents order; `seq` is its position in traceEvents). One trace's events are one
-- contiguous rowid range: that range is the index for event.trace_id (none is built for it).
-- counter_id and flow_id are (trace_id << 32) | n likewise.
PRAGMA application_id = 0x48544131;  -- 'HTA1'

CREATE TABLE IF NOT EXISTS meta(
  key   TEXT PRIMARY KEY,
  value TEXT
);

-- One profiled run: the files of one training or inference job, all its ranks. Every analysis
-- reads one job at a time; a database holds any number of them.
CREATE TABLE IF NOT EXISTS job(
  job_id     INTEGER PRIMARY KEY,
  name       TEXT NOT NULL UNIQUE,
  source     TEXT,                       -- the directory (or file) it was named after
  created_at TEXT                        -- ISO 8601, UTC
);

CREATE TABLE IF NOT EXISTS trace(
  trace_id          INTEGER PRIMARY KEY,
  job_id            INTEGER NOT NULL DEFAULT 1 REFERENCES job(job_id),
  rank              INTEGER NOT NULL,
  rank_source       TEXT NOT NULL,       -- 'distributedInfo' | 'file_name' | 'default'
  file_name         TEXT NOT NULL,       -- as given on the command line
  file_path         TEXT,                -- absolute path at ingest time (to re-read the original)
  file_size         INTEGER NOT NULL,    -- bytes on disk
  content_hash      TEXT NOT NULL,       -- one file once per job (trace_content below)
  world_size        INTEGER,
  backend           TEXT,
  device_type       TEXT,                -- 'NVIDIA GPU' | 'AMD GPU' | 'MTIA' | 'UNKNOWN GPU' (spec 1.8)
  schema_version    TEXT,
  base_time_ns      INTEGER,
  display_time_unit TEXT,
  event_count       INTEGER NOT NULL,    -- rows in event
  min_ts            INTEGER,             -- ns: earliest ts of the events HTA keeps (dur and cat, cat != 'Trace')
  max_end           INTEGER,             -- ns: latest ts+dur of those events
  metadata          TEXT                 -- JSON: every top-level key except traceEvents
);

-- The same bytes may belong to two jobs (a file copied into both runs' folders), once each.
CREATE UNIQUE INDEX IF NOT EXISTS trace_content ON trace(job_id, content_hash);

CREATE TABLE IF NOT EXISTS device(
  trace_id         INTEGER NOT NULL REFERENCES trace(trace_id),
  device_id        INTEGER NOT NULL,
  name             TEXT,
  total_global_mem INTEGER,
  compute_major    INTEGER,
  compute_minor    INTEGER,
  num_sms          INTEGER,
  properties       TEXT,                 -- JSON object as in deviceProperties
  PRIMARY KEY(trace_id, device_id)
);

CREATE TABLE IF NOT EXISTS string(
  string_id INTEGER PRIMARY KEY,
  value     TEXT NOT NULL UNIQUE
);

CREATE TABLE IF NOT EXISTS category(
  category_id INTEGER PRIMARY KEY,
  name        TEXT NOT NULL UNIQUE
);

CREATE TABLE IF NOT EXISTS thread(
  trace_id     INTEGER NOT NULL REFERENCES trace(trace_id),
  pid,                      -- integer, or text as written ('Spans', 'stream 7')
  tid,
  process_name TEXT,
  thread_name  TEXT,
  sort_index   INTEGER,
  PRIMARY KEY(trace_id, pid, tid)
);

CREATE TABLE IF NOT EXISTS event(
  event_id    INTEGER PRIMARY KEY,       -- (trace_id << 32) | ordinal in the trace
  trace_id    INTEGER NOT NULL REFERENCES trace(trace_id),
  rank        INTEGER NOT NULL,
  seq         INTEGER NOT NULL,          -- position in traceEvents (HTA's `index`)
  ph          TEXT NOT NULL,             -- 'X' (B/E pairs become X), 'i', ...
  category_id INTEGER REFERENCES category(category_id),
  name_id     INTEGER REFERENCES string(string_id),
  pid,
  tid,
  ts          INTEGER,                   -- ns
  dur         INTEGER,                   -- ns; NULL for instants
  stream      INTEGER,                   -- GPU work only (deviation D5); NULL for host events
  device      INTEGER,
  correlation INTEGER,
  external_id INTEGER,
  link_id     INTEGER,                   -- event_id of the correlated partner (launch <-> GPU event)
  parent_id   INTEGER,                   -- event_id of the enclosing call-stack node
  depth       INTEGER,                   -- call-stack depth: 0 = top level
  iteration   INTEGER,                   -- ProfilerStep number; NULL outside every step
  args        TEXT                       -- JSON of the args not promoted to columns; NULL if none
);

CREATE TABLE IF NOT EXISTS profiler_step(
  trace_id INTEGER NOT NULL REFERENCES trace(trace_id),
  step     INTEGER NOT NULL,
  event_id INTEGER NOT NULL REFERENCES event(event_id),
  ts       INTEGER NOT NULL,
  dur      INTEGER NOT NULL,
  PRIMARY KEY(trace_id, event_id)
);

CREATE TABLE IF NOT EXISTS counter(
  counter_id INTEGER PRIMARY KEY,         -- (trace_id << 32) | n
  trace_id   INTEGER NOT NULL REFERENCES trace(trace_id),
  rank       INTEGER NOT NULL,
  seq        INTEGER NOT NULL,
  name_id    INTEGER REFERENCES string(string_id),
  pid,
  ts         INTEGER,                    -- ns
  series     TEXT NOT NULL,              -- the args key
  value      REAL
);

CREATE TABLE IF NOT EXISTS flow(
  flow_id     INTEGER PRIMARY KEY,        -- (trace_id << 32) | n
  trace_id    INTEGER NOT NULL REFERENCES trace(trace_id),
  seq         INTEGER NOT NULL,
  ph          TEXT NOT NULL,             -- 's' | 't' | 'f'
  id,
  category_id INTEGER REFERENCES category(category_id),
  name_id     INTEGER REFERENCES string(string_id),
  pid,
  tid,
  ts          INTEGER,                   -- ns
  bp          TEXT
);

CREATE TABLE IF NOT EXISTS ingest_issue(
  issue_id  INTEGER PRIMARY KEY,
  trace_id  INTEGER REFERENCES trace(trace_id),    -- NULL for a file that failed as a whole
  code      TEXT NOT NULL,
  count     INTEGER NOT NULL,
  first_seq INTEGER,
  example   TEXT,
  message   TEXT NOT NULL
);

-- Kernel classification (spec 1.16) as data: first rule by priority whose GLOB matches wins.
CREATE TABLE IF NOT EXISTS kernel_type_rule(
  priority    INTEGER PRIMARY KEY,
  pattern     TEXT NOT NULL,             -- GLOB, case-sensitive, whole name
  kernel_type TEXT NOT NULL CHECK (kernel_type IN ('COMMUNICATION','MEMORY','COMPUTATION','OTHER'))
);

-- HTA's rules (common/types.py) as GLOBs, plus ncclDevKernel (already nccl*), rccl and hip memcpy/memset
-- names. 100s: COMMUNICATION; 200s: MEMORY; 300s: names HTA's COMPUTATION test excludes; 900: the rest.
INSERT OR IGNORE INTO kernel_type_rule(priority, pattern, kernel_type) VALUES
  (100, 'nccl*', 'COMMUNICATION'),
  (101, '*ncclKernel*', 'COMMUNICATION'),
  (102, 'rccl*', 'COMMUNICATION'),
  (103, 'hccl*', 'COMMUNICATION'),
  (104, 'hip*', 'COMMUNICATION'),
  (200, 'Memcpy*', 'MEMORY'),
  (201, 'Memset*', 'MEMORY'),
  (202, 'dma*', 'MEMORY'),
  (300, '*Memcpy*', 'OTHER'),
  (301, '*Memset*', 'OTHER'),
  (302, '*dma*', 'OTHER'),
  (303, '*Sync*', 'OTHER'),
  (304, 'Stream Wait Event*', 'OTHER'),
  (305, 'cuda*LaunchKernel*', 'OTHER'),
  (306, 'runFunction*', 'OTHER'),
  (307, 'job_exe*', 'OTHER'),
  (308, 'packet*', 'OTHER'),
  (309, 'pe_exe*', 'OTHER'),
  (310, 'cpum_exe_subgraph*', 'OTHER'),
  (311, 'collective_subgraph_execution*', 'OTHER'),
  (900, '*', 'COMPUTATION');

CREATE VIEW IF NOT EXISTS events AS
  SELECT e.event_id, e.rank, e.ph, c.name AS cat, s.value AS name, e.pid, e.tid, e.ts, e.dur,
         e.stream, e.correlation, e.external_id, e.link_id, e.parent_id, e.depth, e.iteration, e.args,
         e.trace_id, e.seq, e.device
  FROM event e
  LEFT JOIN category c ON c.category_id = e.category_id
  LEFT JOIN string s ON s.string_id = e.name_id;

-- GPU work (deviation D5): the rows that carry a stream.
CREATE VIEW IF NOT EXISTS kernels AS
  SELECT e.event_id, e.trace_id, e.rank, c.name AS cat, s.value AS name, e.pid, e.tid, e.ts, e.dur,
         e.stream, e.device, e.correlation, e.external_id, e.link_id, e.iteration, e.args,
         (SELECT r.kernel_type FROM kernel_type_rule r WHERE s.value GLOB r.pattern
          ORDER BY r.priority LIMIT 1) AS kernel_type
  FROM event e
  JOIN category c ON c.category_id = e.category_id
  JOIN string s ON s.string_id = e.name_id
  WHERE e.stream IS NOT NULL;

-- One row per job: what `hta-ingest --list` prints. steps: distinct host ProfilerStep numbers.
CREATE VIEW IF NOT EXISTS job_summary AS
  SELECT j.job_id, j.name AS job, count(DISTINCT t.rank) AS ranks, min(t.rank) AS min_rank,
         max(t.rank) AS max_rank, count(t.trace_id) AS files,
         (SELECT count(DISTINCT p.step) FROM profiler_step p JOIN trace pt ON pt.trace_id = p.trace_id
          WHERE pt.job_id = j.job_id) AS steps,
         coalesce(sum(t.event_count), 0) AS events, coalesce(sum(t.file_size), 0) AS json_bytes,
         j.source
  FROM job j LEFT JOIN trace t ON t.job_id = j.job_id
  GROUP BY j.job_id;
