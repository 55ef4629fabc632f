-- trace_writer.c takes its memory from SQLite's allocator, so SQLite's heap limit
-- applies to it: hta_trace_events copies each event's args into a tw_out memory
-- sink, and an event whose args (8 MB here) do not fit under the hard heap limit is
-- an "out of memory" error, while the same file reads under a limit that leaves
-- room. (With malloc, the 8 MB were invisible to SQLite and the limited read
-- succeeded.) The io entry point runs in a child sqlite3 through .shell.
SELECT 'heap_00_file', writefile('io_heap_limit.json',
  '{"traceEvents": [{"ph": "X", "name": "big", "args": {' ||
  (WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 8)
   SELECT group_concat(printf('"k%d": "%s"', i, replace(hex(zeroblob(500000)), '0', 'a')), ',')
   FROM k) || '}}]}') > 8000000;
SELECT 'heap_00_script', writefile('io_heap_limit.sql',
  'SELECT count(*) FROM hta_trace_events(''io_heap_limit.json'');') > 0;
.shell sh -c "sqlite3 :memory: -cmd '.load $HTA_EXT sqlite3_hta_io_init' -cmd 'PRAGMA hard_heap_limit = 64000000' < io_heap_limit.sql 2>&1 | grep -qx 1 && echo 'heap_01_fits|1' || echo 'heap_01_fits|0'"
.shell sh -c "sqlite3 :memory: -cmd '.load $HTA_EXT sqlite3_hta_io_init' -cmd 'PRAGMA hard_heap_limit = 4000000' < io_heap_limit.sql 2>&1 | grep -qF 'out of memory' && echo 'heap_02_limited|1' || echo 'heap_02_limited|0'"
