-- hta_profiler_steps (annotations.c R3; HTA get_profiler_steps, spec 3): the host
-- ProfilerStep rows of table profiler_step that survive the last-step cut, per trace,
-- rows by (rank, trace_id, step); ts and dur in µs, ts on the trace's own clock.
INSERT INTO trace(trace_id, rank, rank_source, file_name, file_size, content_hash, event_count, min_ts, max_end)
VALUES (1, 0, 'distributedInfo', 'r0.json', 0, 'h1', 3, 1682725898079292000, 1682725898082292000),
       (2, 1, 'distributedInfo', 'r1.json', 0, 'h2', 3, 1682725898079484000, 1682725898082484000),
       (3, 0, 'file_name', 'r0_later.json', 0, 'h3', 2, 1682725899000000000, 1682725899002000000);
INSERT INTO category(category_id, name) VALUES (1, 'user_annotation');
INSERT INTO string(string_id, value) VALUES
  (1, 'ProfilerStep#1'), (2, 'ProfilerStep#2'), (3, 'ProfilerStep#3'), (7, 'ProfilerStep#7'), (8, 'ProfilerStep#8');
-- the step rows themselves, for completeness (hta_profiler_steps reads profiler_step)
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur)
VALUES ((1 << 32) | 1, 1, 0, 1, 'X', 1, 1, 1, 1, 1682725898079292000, 1000000),
       ((1 << 32) | 2, 1, 0, 2, 'X', 1, 2, 1, 1, 1682725898080292500, 999500),
       ((1 << 32) | 3, 1, 0, 3, 'X', 1, 3, 1, 1, 1682725898081292000, 1000000),
       ((2 << 32) | 1, 2, 1, 1, 'X', 1, 1, 1, 1, 1682725898079484000, 1000000),
       ((2 << 32) | 2, 2, 1, 2, 'X', 1, 2, 1, 1, 1682725898080484000, 1000000),
       ((2 << 32) | 3, 2, 1, 3, 'X', 1, 3, 1, 1, 1682725898081484000, 1000000),
       ((3 << 32) | 1, 3, 0, 1, 'X', 1, 7, 1, 1, 1682725899000000000, 1000000),
       ((3 << 32) | 2, 3, 0, 2, 'X', 1, 8, 1, 1, 1682725899001000000, 1000000);
INSERT INTO profiler_step(trace_id, step, event_id, ts, dur)
SELECT trace_id, CAST(substr(s.value, 14) AS INTEGER), event_id, ts, dur
  FROM event JOIN string s ON s.string_id = name_id;

-- >= 2 step numbers: each trace loses its last step
SELECT 'steps_01_rows', group_concat(rank || ':' || trace_id || ':' || step, ',') = '0:1:1,0:1:2,0:3:7,1:2:1,1:2:2'
  FROM hta_profiler_steps;
SELECT 'steps_02_distinct', group_concat(step, ',') = '1,2,7'
  FROM (SELECT DISTINCT step FROM hta_profiler_steps ORDER BY step);
-- µs, exact to the double nearest the ns value (1682725898080292.5 is representable)
SELECT 'steps_03_us', ts = 1682725898080292.5 AND dur = 999.5
  FROM hta_profiler_steps WHERE trace_id = 1 AND step = 2;
SELECT 'steps_04_types', typeof(ts) = 'real' AND typeof(dur) = 'real' AND typeof(step) = 'integer'
  FROM hta_profiler_steps LIMIT 1;
SELECT 'steps_05_rank', group_concat(trace_id || ':' || step, ',') = '1:1,1:2,3:7'
  FROM hta_profiler_steps WHERE rank = 0;
SELECT 'steps_06_last', count(*) = 8 FROM hta_profiler_steps(1);
SELECT 'steps_07_last_named', count(*) = 3 FROM hta_profiler_steps
 WHERE include_last_profiler_step = 1 AND rank = 1;
.shell sh -c "sqlite3 :memory: -cmd '.load $HTA_EXT' 'SELECT * FROM hta_profiler_steps(2)' 2>&1 | grep -qF 'hta_profiler_steps: include_last_profiler_step must be 0 or 1' && echo 'steps_08_err|1' || echo 'steps_08_err|0'"

-- one step number left in the database: nothing is cut (spec 1.13)
DELETE FROM profiler_step WHERE step <> 1;
SELECT 'steps_09_one_step', group_concat(rank || ':' || step, ',') = '0:1,1:1' FROM hta_profiler_steps;
-- no step at all: no rows, no error
DELETE FROM profiler_step;
SELECT 'steps_10_none', count(*) = 0 FROM hta_profiler_steps;
