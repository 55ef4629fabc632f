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

-- A CUDA/HIP graph's capture trace: recorded while the graph was captured (its operators with
-- their shapes, and the launches the graph replays), stored in the job of its replays. It is no
-- profiled window of its rank: every analysis skips the traces listed here except the graph
-- replay's, which reads them. batch_size and mode come from the capture index, the
-- execution_details.json beside the captures (NULL when the index does not list the file).
CREATE TABLE IF NOT EXISTS capture(
  trace_id   INTEGER PRIMARY KEY REFERENCES trace(trace_id),
  batch_size INTEGER,                    -- the batch size the graph was captured for
  mode       TEXT,                       -- 'FULL' | 'PIECEWISE' (vLLM's CUDA graph modes) | ...
  index_file TEXT                        -- the capture index it was listed in; NULL when none
);

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

-- The roofline's peaks (hta_op_perf): per device name pattern and compute spec, the peak
-- TFLOPS and the memory bandwidth, dense (no sparsity), from the vendors' public datasheets
-- and architecture whitepapers (source says which, form_factor which board). The device
-- of a trace is the first pattern by priority that GLOBs its device.name. NVIDIA's
-- matrix_fp32 is the TF32 tensor-core peak (float32 GEMMs run on it when TF32 is allowed,
-- torch.set_float32_matmul_precision('high'); the FP32 peak is vector_fp32's). Users may
-- edit and add rows (an H800, an RTX card...): the next query uses them.
CREATE TABLE IF NOT EXISTS device_peak(
  device_pattern TEXT NOT NULL,          -- GLOB over device.name, case-sensitive
  priority       INTEGER NOT NULL,       -- patterns are tried by ascending priority
  compute_spec   TEXT NOT NULL,          -- as hta_op_perf.compute_spec: matrix_bf16, vector_fp32...
  peak_tflops    REAL NOT NULL,          -- dense TFLOPS (10^12 / s)
  peak_tbps      REAL NOT NULL,          -- memory bandwidth, TB/s (10^12 bytes / s)
  form_factor    TEXT,
  source         TEXT,
  PRIMARY KEY(device_pattern, compute_spec)
);

INSERT OR IGNORE INTO device_peak(device_pattern, priority, compute_spec, peak_tflops, peak_tbps,
                                  form_factor, source) VALUES
  ('*H100*PCIe*', 10, 'matrix_fp64', 51.2, 2.0, 'H100 PCIe 80GB', 'NVIDIA H100 Tensor Core GPU Architecture whitepaper, PCIe column'),
  ('*H100*PCIe*', 10, 'matrix_fp32', 378, 2.0, 'H100 PCIe 80GB', 'NVIDIA H100 Tensor Core GPU Architecture whitepaper, PCIe column'),
  ('*H100*PCIe*', 10, 'matrix_fp16', 756, 2.0, 'H100 PCIe 80GB', 'NVIDIA H100 Tensor Core GPU Architecture whitepaper, PCIe column'),
  ('*H100*PCIe*', 10, 'matrix_bf16', 756, 2.0, 'H100 PCIe 80GB', 'NVIDIA H100 Tensor Core GPU Architecture whitepaper, PCIe column'),
  ('*H100*PCIe*', 10, 'matrix_fp8', 1513, 2.0, 'H100 PCIe 80GB', 'NVIDIA H100 Tensor Core GPU Architecture whitepaper, PCIe column'),
  ('*H100*PCIe*', 10, 'vector_fp64', 25.6, 2.0, 'H100 PCIe 80GB', 'NVIDIA H100 Tensor Core GPU Architecture whitepaper, PCIe column'),
  ('*H100*PCIe*', 10, 'vector_fp32', 51.2, 2.0, 'H100 PCIe 80GB', 'NVIDIA H100 Tensor Core GPU Architecture whitepaper, PCIe column'),
  ('*H100*PCIe*', 10, 'vector_fp16', 102.4, 2.0, 'H100 PCIe 80GB', 'NVIDIA H100 Tensor Core GPU Architecture whitepaper, PCIe column'),
  ('*H100*PCIe*', 10, 'vector_bf16', 102.4, 2.0, 'H100 PCIe 80GB', 'NVIDIA H100 Tensor Core GPU Architecture whitepaper, PCIe column'),
  ('*H100*', 11, 'matrix_fp64', 66.9, 3.35, 'H100 SXM5 80GB', 'NVIDIA H100 Tensor Core GPU Architecture whitepaper, SXM5 column (memory: H100 datasheet)'),
  ('*H100*', 11, 'matrix_fp32', 494.7, 3.35, 'H100 SXM5 80GB', 'NVIDIA H100 Tensor Core GPU Architecture whitepaper, SXM5 column (memory: H100 datasheet)'),
  ('*H100*', 11, 'matrix_fp16', 989.4, 3.35, 'H100 SXM5 80GB', 'NVIDIA H100 Tensor Core GPU Architecture whitepaper, SXM5 column (memory: H100 datasheet)'),
  ('*H100*', 11, 'matrix_bf16', 989.4, 3.35, 'H100 SXM5 80GB', 'NVIDIA H100 Tensor Core GPU Architecture whitepaper, SXM5 column (memory: H100 datasheet)'),
  ('*H100*', 11, 'matrix_fp8', 1978.9, 3.35, 'H100 SXM5 80GB', 'NVIDIA H100 Tensor Core GPU Architecture whitepaper, SXM5 column (memory: H100 datasheet)'),
  ('*H100*', 11, 'vector_fp64', 33.5, 3.35, 'H100 SXM5 80GB', 'NVIDIA H100 Tensor Core GPU Architecture whitepaper, SXM5 column (memory: H100 datasheet)'),
  ('*H100*', 11, 'vector_fp32', 66.9, 3.35, 'H100 SXM5 80GB', 'NVIDIA H100 Tensor Core GPU Architecture whitepaper, SXM5 column (memory: H100 datasheet)'),
  ('*H100*', 11, 'vector_fp16', 133.8, 3.35, 'H100 SXM5 80GB', 'NVIDIA H100 Tensor Core GPU Architecture whitepaper, SXM5 column (memory: H100 datasheet)'),
  ('*H100*', 11, 'vector_bf16', 133.8, 3.35, 'H100 SXM5 80GB', 'NVIDIA H100 Tensor Core GPU Architecture whitepaper, SXM5 column (memory: H100 datasheet)'),
  ('*H200*', 20, 'matrix_fp64', 67, 4.8, 'H200 SXM 141GB', 'NVIDIA H200 datasheet, SXM (tensor figures halved: the sheet gives them with sparsity); vector fp16/bf16: the H100 SXM5 whitepaper (same chip)'),
  ('*H200*', 20, 'matrix_fp32', 494.5, 4.8, 'H200 SXM 141GB', 'NVIDIA H200 datasheet, SXM (tensor figures halved: the sheet gives them with sparsity); vector fp16/bf16: the H100 SXM5 whitepaper (same chip)'),
  ('*H200*', 20, 'matrix_fp16', 989.5, 4.8, 'H200 SXM 141GB', 'NVIDIA H200 datasheet, SXM (tensor figures halved: the sheet gives them with sparsity); vector fp16/bf16: the H100 SXM5 whitepaper (same chip)'),
  ('*H200*', 20, 'matrix_bf16', 989.5, 4.8, 'H200 SXM 141GB', 'NVIDIA H200 datasheet, SXM (tensor figures halved: the sheet gives them with sparsity); vector fp16/bf16: the H100 SXM5 whitepaper (same chip)'),
  ('*H200*', 20, 'matrix_fp8', 1979, 4.8, 'H200 SXM 141GB', 'NVIDIA H200 datasheet, SXM (tensor figures halved: the sheet gives them with sparsity); vector fp16/bf16: the H100 SXM5 whitepaper (same chip)'),
  ('*H200*', 20, 'vector_fp64', 34, 4.8, 'H200 SXM 141GB', 'NVIDIA H200 datasheet, SXM (tensor figures halved: the sheet gives them with sparsity); vector fp16/bf16: the H100 SXM5 whitepaper (same chip)'),
  ('*H200*', 20, 'vector_fp32', 67, 4.8, 'H200 SXM 141GB', 'NVIDIA H200 datasheet, SXM (tensor figures halved: the sheet gives them with sparsity); vector fp16/bf16: the H100 SXM5 whitepaper (same chip)'),
  ('*H200*', 20, 'vector_fp16', 133.8, 4.8, 'H200 SXM 141GB', 'NVIDIA H200 datasheet, SXM (tensor figures halved: the sheet gives them with sparsity); vector fp16/bf16: the H100 SXM5 whitepaper (same chip)'),
  ('*H200*', 20, 'vector_bf16', 133.8, 4.8, 'H200 SXM 141GB', 'NVIDIA H200 datasheet, SXM (tensor figures halved: the sheet gives them with sparsity); vector fp16/bf16: the H100 SXM5 whitepaper (same chip)'),
  ('*A100*80GB*PCIe*', 30, 'matrix_fp64', 19.5, 1.935, 'A100 PCIe 80GB', 'NVIDIA A100 datasheet and A100 Tensor Core GPU Architecture whitepaper (vector fp16/bf16)'),
  ('*A100*80GB*PCIe*', 30, 'matrix_fp32', 156, 1.935, 'A100 PCIe 80GB', 'NVIDIA A100 datasheet and A100 Tensor Core GPU Architecture whitepaper (vector fp16/bf16)'),
  ('*A100*80GB*PCIe*', 30, 'matrix_fp16', 312, 1.935, 'A100 PCIe 80GB', 'NVIDIA A100 datasheet and A100 Tensor Core GPU Architecture whitepaper (vector fp16/bf16)'),
  ('*A100*80GB*PCIe*', 30, 'matrix_bf16', 312, 1.935, 'A100 PCIe 80GB', 'NVIDIA A100 datasheet and A100 Tensor Core GPU Architecture whitepaper (vector fp16/bf16)'),
  ('*A100*80GB*PCIe*', 30, 'vector_fp64', 9.7, 1.935, 'A100 PCIe 80GB', 'NVIDIA A100 datasheet and A100 Tensor Core GPU Architecture whitepaper (vector fp16/bf16)'),
  ('*A100*80GB*PCIe*', 30, 'vector_fp32', 19.5, 1.935, 'A100 PCIe 80GB', 'NVIDIA A100 datasheet and A100 Tensor Core GPU Architecture whitepaper (vector fp16/bf16)'),
  ('*A100*80GB*PCIe*', 30, 'vector_fp16', 78, 1.935, 'A100 PCIe 80GB', 'NVIDIA A100 datasheet and A100 Tensor Core GPU Architecture whitepaper (vector fp16/bf16)'),
  ('*A100*80GB*PCIe*', 30, 'vector_bf16', 39, 1.935, 'A100 PCIe 80GB', 'NVIDIA A100 datasheet and A100 Tensor Core GPU Architecture whitepaper (vector fp16/bf16)'),
  ('*A100*80GB*', 31, 'matrix_fp64', 19.5, 2.039, 'A100 SXM4 80GB', 'NVIDIA A100 datasheet and A100 Tensor Core GPU Architecture whitepaper (vector fp16/bf16)'),
  ('*A100*80GB*', 31, 'matrix_fp32', 156, 2.039, 'A100 SXM4 80GB', 'NVIDIA A100 datasheet and A100 Tensor Core GPU Architecture whitepaper (vector fp16/bf16)'),
  ('*A100*80GB*', 31, 'matrix_fp16', 312, 2.039, 'A100 SXM4 80GB', 'NVIDIA A100 datasheet and A100 Tensor Core GPU Architecture whitepaper (vector fp16/bf16)'),
  ('*A100*80GB*', 31, 'matrix_bf16', 312, 2.039, 'A100 SXM4 80GB', 'NVIDIA A100 datasheet and A100 Tensor Core GPU Architecture whitepaper (vector fp16/bf16)'),
  ('*A100*80GB*', 31, 'vector_fp64', 9.7, 2.039, 'A100 SXM4 80GB', 'NVIDIA A100 datasheet and A100 Tensor Core GPU Architecture whitepaper (vector fp16/bf16)'),
  ('*A100*80GB*', 31, 'vector_fp32', 19.5, 2.039, 'A100 SXM4 80GB', 'NVIDIA A100 datasheet and A100 Tensor Core GPU Architecture whitepaper (vector fp16/bf16)'),
  ('*A100*80GB*', 31, 'vector_fp16', 78, 2.039, 'A100 SXM4 80GB', 'NVIDIA A100 datasheet and A100 Tensor Core GPU Architecture whitepaper (vector fp16/bf16)'),
  ('*A100*80GB*', 31, 'vector_bf16', 39, 2.039, 'A100 SXM4 80GB', 'NVIDIA A100 datasheet and A100 Tensor Core GPU Architecture whitepaper (vector fp16/bf16)'),
  ('*A100*', 32, 'matrix_fp64', 19.5, 1.555, 'A100 40GB (SXM4 and PCIe; A100-PG509-200 is the SXM4 40GB board)', 'NVIDIA A100 datasheet and A100 Tensor Core GPU Architecture whitepaper (vector fp16/bf16)'),
  ('*A100*', 32, 'matrix_fp32', 156, 1.555, 'A100 40GB (SXM4 and PCIe; A100-PG509-200 is the SXM4 40GB board)', 'NVIDIA A100 datasheet and A100 Tensor Core GPU Architecture whitepaper (vector fp16/bf16)'),
  ('*A100*', 32, 'matrix_fp16', 312, 1.555, 'A100 40GB (SXM4 and PCIe; A100-PG509-200 is the SXM4 40GB board)', 'NVIDIA A100 datasheet and A100 Tensor Core GPU Architecture whitepaper (vector fp16/bf16)'),
  ('*A100*', 32, 'matrix_bf16', 312, 1.555, 'A100 40GB (SXM4 and PCIe; A100-PG509-200 is the SXM4 40GB board)', 'NVIDIA A100 datasheet and A100 Tensor Core GPU Architecture whitepaper (vector fp16/bf16)'),
  ('*A100*', 32, 'vector_fp64', 9.7, 1.555, 'A100 40GB (SXM4 and PCIe; A100-PG509-200 is the SXM4 40GB board)', 'NVIDIA A100 datasheet and A100 Tensor Core GPU Architecture whitepaper (vector fp16/bf16)'),
  ('*A100*', 32, 'vector_fp32', 19.5, 1.555, 'A100 40GB (SXM4 and PCIe; A100-PG509-200 is the SXM4 40GB board)', 'NVIDIA A100 datasheet and A100 Tensor Core GPU Architecture whitepaper (vector fp16/bf16)'),
  ('*A100*', 32, 'vector_fp16', 78, 1.555, 'A100 40GB (SXM4 and PCIe; A100-PG509-200 is the SXM4 40GB board)', 'NVIDIA A100 datasheet and A100 Tensor Core GPU Architecture whitepaper (vector fp16/bf16)'),
  ('*A100*', 32, 'vector_bf16', 39, 1.555, 'A100 40GB (SXM4 and PCIe; A100-PG509-200 is the SXM4 40GB board)', 'NVIDIA A100 datasheet and A100 Tensor Core GPU Architecture whitepaper (vector fp16/bf16)'),
  ('*B200*', 40, 'matrix_fp64', 37, 8.0, 'B200 (HGX B200, per GPU)', 'NVIDIA HGX B200 datasheet, eight GPUs divided by 8 (tensor figures halved: the sheet gives them with sparsity); vector fp16/bf16: no published figure, the FP32 rate'),
  ('*B200*', 40, 'matrix_fp32', 1125, 8.0, 'B200 (HGX B200, per GPU)', 'NVIDIA HGX B200 datasheet, eight GPUs divided by 8 (tensor figures halved: the sheet gives them with sparsity); vector fp16/bf16: no published figure, the FP32 rate'),
  ('*B200*', 40, 'matrix_fp16', 2250, 8.0, 'B200 (HGX B200, per GPU)', 'NVIDIA HGX B200 datasheet, eight GPUs divided by 8 (tensor figures halved: the sheet gives them with sparsity); vector fp16/bf16: no published figure, the FP32 rate'),
  ('*B200*', 40, 'matrix_bf16', 2250, 8.0, 'B200 (HGX B200, per GPU)', 'NVIDIA HGX B200 datasheet, eight GPUs divided by 8 (tensor figures halved: the sheet gives them with sparsity); vector fp16/bf16: no published figure, the FP32 rate'),
  ('*B200*', 40, 'matrix_fp8', 4500, 8.0, 'B200 (HGX B200, per GPU)', 'NVIDIA HGX B200 datasheet, eight GPUs divided by 8 (tensor figures halved: the sheet gives them with sparsity); vector fp16/bf16: no published figure, the FP32 rate'),
  ('*B200*', 40, 'matrix_fp4', 9000, 8.0, 'B200 (HGX B200, per GPU)', 'NVIDIA HGX B200 datasheet, eight GPUs divided by 8 (tensor figures halved: the sheet gives them with sparsity); vector fp16/bf16: no published figure, the FP32 rate'),
  ('*B200*', 40, 'vector_fp64', 37, 8.0, 'B200 (HGX B200, per GPU)', 'NVIDIA HGX B200 datasheet, eight GPUs divided by 8 (tensor figures halved: the sheet gives them with sparsity); vector fp16/bf16: no published figure, the FP32 rate'),
  ('*B200*', 40, 'vector_fp32', 75, 8.0, 'B200 (HGX B200, per GPU)', 'NVIDIA HGX B200 datasheet, eight GPUs divided by 8 (tensor figures halved: the sheet gives them with sparsity); vector fp16/bf16: no published figure, the FP32 rate'),
  ('*B200*', 40, 'vector_fp16', 75, 8.0, 'B200 (HGX B200, per GPU)', 'NVIDIA HGX B200 datasheet, eight GPUs divided by 8 (tensor figures halved: the sheet gives them with sparsity); vector fp16/bf16: no published figure, the FP32 rate'),
  ('*B200*', 40, 'vector_bf16', 75, 8.0, 'B200 (HGX B200, per GPU)', 'NVIDIA HGX B200 datasheet, eight GPUs divided by 8 (tensor figures halved: the sheet gives them with sparsity); vector fp16/bf16: no published figure, the FP32 rate'),
  ('*L4', 50, 'matrix_fp32', 60, 0.3, 'L4 PCIe 24GB', 'NVIDIA L4 datasheet (tensor figures halved: the sheet gives them with sparsity); vector fp16/bf16: no published figure, the FP32 rate'),
  ('*L4', 50, 'matrix_fp16', 121, 0.3, 'L4 PCIe 24GB', 'NVIDIA L4 datasheet (tensor figures halved: the sheet gives them with sparsity); vector fp16/bf16: no published figure, the FP32 rate'),
  ('*L4', 50, 'matrix_bf16', 121, 0.3, 'L4 PCIe 24GB', 'NVIDIA L4 datasheet (tensor figures halved: the sheet gives them with sparsity); vector fp16/bf16: no published figure, the FP32 rate'),
  ('*L4', 50, 'matrix_fp8', 242.5, 0.3, 'L4 PCIe 24GB', 'NVIDIA L4 datasheet (tensor figures halved: the sheet gives them with sparsity); vector fp16/bf16: no published figure, the FP32 rate'),
  ('*L4', 50, 'vector_fp32', 30.3, 0.3, 'L4 PCIe 24GB', 'NVIDIA L4 datasheet (tensor figures halved: the sheet gives them with sparsity); vector fp16/bf16: no published figure, the FP32 rate'),
  ('*L4', 50, 'vector_fp16', 30.3, 0.3, 'L4 PCIe 24GB', 'NVIDIA L4 datasheet (tensor figures halved: the sheet gives them with sparsity); vector fp16/bf16: no published figure, the FP32 rate'),
  ('*L4', 50, 'vector_bf16', 30.3, 0.3, 'L4 PCIe 24GB', 'NVIDIA L4 datasheet (tensor figures halved: the sheet gives them with sparsity); vector fp16/bf16: no published figure, the FP32 rate'),
  ('*A10G*', 60, 'matrix_fp32', 62.5, 0.6, 'A10G 24GB (AWS)', 'NVIDIA A10 datasheet: NVIDIA publishes no A10G sheet (AWS''s variant of the A10), so an approximation; vector fp16/bf16: the FP32 rate'),
  ('*A10G*', 60, 'matrix_fp16', 125, 0.6, 'A10G 24GB (AWS)', 'NVIDIA A10 datasheet: NVIDIA publishes no A10G sheet (AWS''s variant of the A10), so an approximation; vector fp16/bf16: the FP32 rate'),
  ('*A10G*', 60, 'matrix_bf16', 125, 0.6, 'A10G 24GB (AWS)', 'NVIDIA A10 datasheet: NVIDIA publishes no A10G sheet (AWS''s variant of the A10), so an approximation; vector fp16/bf16: the FP32 rate'),
  ('*A10G*', 60, 'vector_fp32', 31.2, 0.6, 'A10G 24GB (AWS)', 'NVIDIA A10 datasheet: NVIDIA publishes no A10G sheet (AWS''s variant of the A10), so an approximation; vector fp16/bf16: the FP32 rate'),
  ('*A10G*', 60, 'vector_fp16', 31.2, 0.6, 'A10G 24GB (AWS)', 'NVIDIA A10 datasheet: NVIDIA publishes no A10G sheet (AWS''s variant of the A10), so an approximation; vector fp16/bf16: the FP32 rate'),
  ('*A10G*', 60, 'vector_bf16', 31.2, 0.6, 'A10G 24GB (AWS)', 'NVIDIA A10 datasheet: NVIDIA publishes no A10G sheet (AWS''s variant of the A10), so an approximation; vector fp16/bf16: the FP32 rate'),
  ('*V100S*', 70, 'matrix_fp64', 8.2, 1.134, 'V100S PCIe 32GB', 'NVIDIA V100 datasheet; vector fp16: twice the FP32 rate (Volta''s half precision); no bfloat16'),
  ('*V100S*', 70, 'matrix_fp32', 16.4, 1.134, 'V100S PCIe 32GB', 'NVIDIA V100 datasheet; vector fp16: twice the FP32 rate (Volta''s half precision); no bfloat16'),
  ('*V100S*', 70, 'matrix_fp16', 130, 1.134, 'V100S PCIe 32GB', 'NVIDIA V100 datasheet; vector fp16: twice the FP32 rate (Volta''s half precision); no bfloat16'),
  ('*V100S*', 70, 'vector_fp64', 8.2, 1.134, 'V100S PCIe 32GB', 'NVIDIA V100 datasheet; vector fp16: twice the FP32 rate (Volta''s half precision); no bfloat16'),
  ('*V100S*', 70, 'vector_fp32', 16.4, 1.134, 'V100S PCIe 32GB', 'NVIDIA V100 datasheet; vector fp16: twice the FP32 rate (Volta''s half precision); no bfloat16'),
  ('*V100S*', 70, 'vector_fp16', 32.8, 1.134, 'V100S PCIe 32GB', 'NVIDIA V100 datasheet; vector fp16: twice the FP32 rate (Volta''s half precision); no bfloat16'),
  ('*V100*PCIE*', 71, 'matrix_fp64', 7, 0.9, 'V100 PCIe 16/32GB', 'NVIDIA V100 datasheet; vector fp16: twice the FP32 rate (Volta''s half precision); no bfloat16'),
  ('*V100*PCIE*', 71, 'matrix_fp32', 14, 0.9, 'V100 PCIe 16/32GB', 'NVIDIA V100 datasheet; vector fp16: twice the FP32 rate (Volta''s half precision); no bfloat16'),
  ('*V100*PCIE*', 71, 'matrix_fp16', 112, 0.9, 'V100 PCIe 16/32GB', 'NVIDIA V100 datasheet; vector fp16: twice the FP32 rate (Volta''s half precision); no bfloat16'),
  ('*V100*PCIE*', 71, 'vector_fp64', 7, 0.9, 'V100 PCIe 16/32GB', 'NVIDIA V100 datasheet; vector fp16: twice the FP32 rate (Volta''s half precision); no bfloat16'),
  ('*V100*PCIE*', 71, 'vector_fp32', 14, 0.9, 'V100 PCIe 16/32GB', 'NVIDIA V100 datasheet; vector fp16: twice the FP32 rate (Volta''s half precision); no bfloat16'),
  ('*V100*PCIE*', 71, 'vector_fp16', 28, 0.9, 'V100 PCIe 16/32GB', 'NVIDIA V100 datasheet; vector fp16: twice the FP32 rate (Volta''s half precision); no bfloat16'),
  ('*V100*', 72, 'matrix_fp64', 7.8, 0.9, 'V100 SXM2 16/32GB (and the DGX Station V100-DGXS)', 'NVIDIA V100 datasheet; vector fp16: twice the FP32 rate (Volta''s half precision); no bfloat16'),
  ('*V100*', 72, 'matrix_fp32', 15.7, 0.9, 'V100 SXM2 16/32GB (and the DGX Station V100-DGXS)', 'NVIDIA V100 datasheet; vector fp16: twice the FP32 rate (Volta''s half precision); no bfloat16'),
  ('*V100*', 72, 'matrix_fp16', 125, 0.9, 'V100 SXM2 16/32GB (and the DGX Station V100-DGXS)', 'NVIDIA V100 datasheet; vector fp16: twice the FP32 rate (Volta''s half precision); no bfloat16'),
  ('*V100*', 72, 'vector_fp64', 7.8, 0.9, 'V100 SXM2 16/32GB (and the DGX Station V100-DGXS)', 'NVIDIA V100 datasheet; vector fp16: twice the FP32 rate (Volta''s half precision); no bfloat16'),
  ('*V100*', 72, 'vector_fp32', 15.7, 0.9, 'V100 SXM2 16/32GB (and the DGX Station V100-DGXS)', 'NVIDIA V100 datasheet; vector fp16: twice the FP32 rate (Volta''s half precision); no bfloat16'),
  ('*V100*', 72, 'vector_fp16', 31.4, 0.9, 'V100 SXM2 16/32GB (and the DGX Station V100-DGXS)', 'NVIDIA V100 datasheet; vector fp16: twice the FP32 rate (Volta''s half precision); no bfloat16'),
  ('*MI300X*', 80, 'matrix_fp64', 163.4, 5.3, 'MI300X OAM 192GB (and its VF)', 'AMD Instinct MI300X datasheet; vector fp16/bf16: no published figure, the FP32 vector rate'),
  ('*MI300X*', 80, 'matrix_fp32', 163.4, 5.3, 'MI300X OAM 192GB (and its VF)', 'AMD Instinct MI300X datasheet; vector fp16/bf16: no published figure, the FP32 vector rate'),
  ('*MI300X*', 80, 'matrix_fp16', 1307.4, 5.3, 'MI300X OAM 192GB (and its VF)', 'AMD Instinct MI300X datasheet; vector fp16/bf16: no published figure, the FP32 vector rate'),
  ('*MI300X*', 80, 'matrix_bf16', 1307.4, 5.3, 'MI300X OAM 192GB (and its VF)', 'AMD Instinct MI300X datasheet; vector fp16/bf16: no published figure, the FP32 vector rate'),
  ('*MI300X*', 80, 'matrix_fp8', 2614.9, 5.3, 'MI300X OAM 192GB (and its VF)', 'AMD Instinct MI300X datasheet; vector fp16/bf16: no published figure, the FP32 vector rate'),
  ('*MI300X*', 80, 'vector_fp64', 81.7, 5.3, 'MI300X OAM 192GB (and its VF)', 'AMD Instinct MI300X datasheet; vector fp16/bf16: no published figure, the FP32 vector rate'),
  ('*MI300X*', 80, 'vector_fp32', 163.4, 5.3, 'MI300X OAM 192GB (and its VF)', 'AMD Instinct MI300X datasheet; vector fp16/bf16: no published figure, the FP32 vector rate'),
  ('*MI300X*', 80, 'vector_fp16', 163.4, 5.3, 'MI300X OAM 192GB (and its VF)', 'AMD Instinct MI300X datasheet; vector fp16/bf16: no published figure, the FP32 vector rate'),
  ('*MI300X*', 80, 'vector_bf16', 163.4, 5.3, 'MI300X OAM 192GB (and its VF)', 'AMD Instinct MI300X datasheet; vector fp16/bf16: no published figure, the FP32 vector rate'),
  ('*MI325X*', 81, 'matrix_fp64', 163.4, 6.0, 'MI325X OAM 256GB', 'AMD Instinct MI325X datasheet; vector fp16/bf16: no published figure, the FP32 vector rate'),
  ('*MI325X*', 81, 'matrix_fp32', 163.4, 6.0, 'MI325X OAM 256GB', 'AMD Instinct MI325X datasheet; vector fp16/bf16: no published figure, the FP32 vector rate'),
  ('*MI325X*', 81, 'matrix_fp16', 1307.4, 6.0, 'MI325X OAM 256GB', 'AMD Instinct MI325X datasheet; vector fp16/bf16: no published figure, the FP32 vector rate'),
  ('*MI325X*', 81, 'matrix_bf16', 1307.4, 6.0, 'MI325X OAM 256GB', 'AMD Instinct MI325X datasheet; vector fp16/bf16: no published figure, the FP32 vector rate'),
  ('*MI325X*', 81, 'matrix_fp8', 2614.9, 6.0, 'MI325X OAM 256GB', 'AMD Instinct MI325X datasheet; vector fp16/bf16: no published figure, the FP32 vector rate'),
  ('*MI325X*', 81, 'vector_fp64', 81.7, 6.0, 'MI325X OAM 256GB', 'AMD Instinct MI325X datasheet; vector fp16/bf16: no published figure, the FP32 vector rate'),
  ('*MI325X*', 81, 'vector_fp32', 163.4, 6.0, 'MI325X OAM 256GB', 'AMD Instinct MI325X datasheet; vector fp16/bf16: no published figure, the FP32 vector rate'),
  ('*MI325X*', 81, 'vector_fp16', 163.4, 6.0, 'MI325X OAM 256GB', 'AMD Instinct MI325X datasheet; vector fp16/bf16: no published figure, the FP32 vector rate'),
  ('*MI325X*', 81, 'vector_bf16', 163.4, 6.0, 'MI325X OAM 256GB', 'AMD Instinct MI325X datasheet; vector fp16/bf16: no published figure, the FP32 vector rate'),
  ('*MI250X*', 82, 'matrix_fp64', 95.7, 3.2768, 'MI250X OAM 128GB', 'AMD Instinct MI250X datasheet; vector fp16/bf16: no published figure, the FP32 vector rate'),
  ('*MI250X*', 82, 'matrix_fp32', 95.7, 3.2768, 'MI250X OAM 128GB', 'AMD Instinct MI250X datasheet; vector fp16/bf16: no published figure, the FP32 vector rate'),
  ('*MI250X*', 82, 'matrix_fp16', 383, 3.2768, 'MI250X OAM 128GB', 'AMD Instinct MI250X datasheet; vector fp16/bf16: no published figure, the FP32 vector rate'),
  ('*MI250X*', 82, 'matrix_bf16', 383, 3.2768, 'MI250X OAM 128GB', 'AMD Instinct MI250X datasheet; vector fp16/bf16: no published figure, the FP32 vector rate'),
  ('*MI250X*', 82, 'vector_fp64', 47.9, 3.2768, 'MI250X OAM 128GB', 'AMD Instinct MI250X datasheet; vector fp16/bf16: no published figure, the FP32 vector rate'),
  ('*MI250X*', 82, 'vector_fp32', 47.9, 3.2768, 'MI250X OAM 128GB', 'AMD Instinct MI250X datasheet; vector fp16/bf16: no published figure, the FP32 vector rate'),
  ('*MI250X*', 82, 'vector_fp16', 47.9, 3.2768, 'MI250X OAM 128GB', 'AMD Instinct MI250X datasheet; vector fp16/bf16: no published figure, the FP32 vector rate'),
  ('*MI250X*', 82, 'vector_bf16', 47.9, 3.2768, 'MI250X OAM 128GB', 'AMD Instinct MI250X datasheet; vector fp16/bf16: no published figure, the FP32 vector rate'),
  ('*MI210*', 83, 'matrix_fp64', 45.3, 1.6384, 'MI210 PCIe 64GB', 'AMD Instinct MI210 datasheet; vector fp16/bf16: no published figure, the FP32 vector rate'),
  ('*MI210*', 83, 'matrix_fp32', 45.3, 1.6384, 'MI210 PCIe 64GB', 'AMD Instinct MI210 datasheet; vector fp16/bf16: no published figure, the FP32 vector rate'),
  ('*MI210*', 83, 'matrix_fp16', 181, 1.6384, 'MI210 PCIe 64GB', 'AMD Instinct MI210 datasheet; vector fp16/bf16: no published figure, the FP32 vector rate'),
  ('*MI210*', 83, 'matrix_bf16', 181, 1.6384, 'MI210 PCIe 64GB', 'AMD Instinct MI210 datasheet; vector fp16/bf16: no published figure, the FP32 vector rate'),
  ('*MI210*', 83, 'vector_fp64', 22.6, 1.6384, 'MI210 PCIe 64GB', 'AMD Instinct MI210 datasheet; vector fp16/bf16: no published figure, the FP32 vector rate'),
  ('*MI210*', 83, 'vector_fp32', 22.6, 1.6384, 'MI210 PCIe 64GB', 'AMD Instinct MI210 datasheet; vector fp16/bf16: no published figure, the FP32 vector rate'),
  ('*MI210*', 83, 'vector_fp16', 22.6, 1.6384, 'MI210 PCIe 64GB', 'AMD Instinct MI210 datasheet; vector fp16/bf16: no published figure, the FP32 vector rate'),
  ('*MI210*', 83, 'vector_bf16', 22.6, 1.6384, 'MI210 PCIe 64GB', 'AMD Instinct MI210 datasheet; vector fp16/bf16: no published figure, the FP32 vector rate');

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
-- ranks and steps are the profiled traces'; files, events and json_bytes count the graph
-- captures too (captures: how many of the files they are).
CREATE VIEW IF NOT EXISTS job_summary AS
  SELECT j.job_id, j.name AS job, count(DISTINCT CASE WHEN c.trace_id IS NULL THEN t.rank END) AS ranks,
         min(CASE WHEN c.trace_id IS NULL THEN t.rank END) AS min_rank,
         max(CASE WHEN c.trace_id IS NULL THEN t.rank END) AS max_rank, count(t.trace_id) AS files,
         (SELECT count(DISTINCT p.step) FROM profiler_step p JOIN trace pt ON pt.trace_id = p.trace_id
          WHERE pt.job_id = j.job_id AND pt.trace_id NOT IN (SELECT trace_id FROM capture)) AS steps,
         coalesce(sum(t.event_count), 0) AS events, coalesce(sum(t.file_size), 0) AS json_bytes,
         j.source, count(c.trace_id) AS captures
  FROM job j LEFT JOIN trace t ON t.job_id = j.job_id LEFT JOIN capture c ON c.trace_id = t.trace_id
  GROUP BY j.job_id;
