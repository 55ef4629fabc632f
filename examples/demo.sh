#!/bin/sh
# make demo: ingest the two bundled example jobs into a fresh examples/demo.db, one job per
# directory (examples/traces: 2 ranks of a small data-parallel transformer training loop with
# NCCL, made by tools/gen_trace.py; examples/recorded_h200: 2 ranks of a real training loop
# recorded with torch.profiler on an H200), then print a few results per job with the sqlite3
# CLI and the extension.
# Needs only sqlite3 (>= 3.40) and the two binaries that `make` builds; no Python.
#   HTA_INGEST, HTA_EXT: the binaries (the Makefile exports them; default ./hta-ingest, ./hta.so)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
: "${HTA_INGEST:=./hta-ingest}" "${HTA_EXT:=./hta.so}"
db=examples/demo.db

for f in "$HTA_INGEST" "$HTA_EXT"; do
  [ -f "$f" ] || { echo "demo: $f is missing: run make first" >&2; exit 2; }
done
command -v sqlite3 >/dev/null || { echo "demo: the sqlite3 command-line shell is needed" >&2; exit 2; }

rm -f "$db" "$db-wal" "$db-shm" "$db-journal"
echo "\$ hta-ingest $db examples/traces examples/recorded_h200"
"$HTA_INGEST" "$db" examples/traces examples/recorded_h200
echo "\$ hta-ingest --list $db"
"$HTA_INGEST" --list "$db"

# sql TITLE QUERY: print TITLE and QUERY's result as a box table, with the extension loaded.
sql() {
  printf '\n%s\n' "$1"
  sqlite3 -bail -box -cmd ".load $HTA_EXT" "$db" "$2"
}
# has NAME: the extension provides the function or table-valued function NAME.
has() {
  n=$(sqlite3 -batch -cmd ".load $HTA_EXT" "$db" \
    "SELECT (SELECT count(*) FROM pragma_function_list WHERE name = '$1')
          + (SELECT count(*) FROM pragma_module_list WHERE name = '$1')" 2>/dev/null) || n=0
  [ "${n:-0}" -gt 0 ]
}
# Kernel names are long C++ signatures; shorten them the way HTA does when the function exists.
if has hta_shorten_name; then kname="hta_shorten_name(name)"; else kname="name"; fi
kname="CASE WHEN length($kname) > 64 THEN substr($kname, 1, 61) || '...' ELSE $kname END"

sql "Traces (one row per file):" "
  SELECT j.name AS job, rank, rank_source, world_size, device_type, event_count AS events,
         replace(file_name, rtrim(file_name, replace(file_name, '/', '')), '') AS file
  FROM trace JOIN job j USING (job_id) ORDER BY job_id, rank, trace_id"

sql "Ingest issues (what was repaired, guessed or dropped):" "
  SELECT coalesce((SELECT group_concat(code || ' x' || count, ', ') FROM ingest_issue), 'none') AS issues"

sql "Top 5 GPU kernels by total time of the example job, all ranks (view kernels):" "
  SELECT kernel_type, $kname AS kernel, count(*) AS n,
         round(sum(dur) / 1000.0, 1) AS total_us, round(avg(dur) / 1000.0, 1) AS mean_us
  FROM kernels WHERE trace_id IN (SELECT trace_id FROM trace JOIN job USING (job_id)
                                  WHERE name = 'traces')
  GROUP BY name ORDER BY sum(dur) DESC LIMIT 5"

if has hta_version; then
  printf '\nExtension: %s\n' "$(sqlite3 -batch -cmd ".load $HTA_EXT" "$db" 'SELECT hta_version()')"
else
  printf '\nThe extension provides no analyses yet: only the tables and views are shown.\n'
  exit 0
fi

if has hta_findings; then
  sql "What to fix first, per job and rank, the costliest first (hta_findings; hta-ingest --findings):" "
    SELECT job, rank, rule, round(time_us, 1) AS us_per_step, round(pct_of_step, 2) AS pct_of_step
    FROM hta_findings"
fi

if has hta_temporal_breakdown; then
  sql "Temporal breakdown: where each GPU spends its time (hta_temporal_breakdown):" "
    SELECT job, rank, round(idle_time_us, 1) AS idle_us, round(compute_time_us, 1) AS compute_us,
           round(non_compute_time_us, 1) AS non_compute_us, round(kernel_time_us, 1) AS kernel_us,
           round(idle_time_pctg, 2) AS idle_pct, round(compute_time_pctg, 2) AS compute_pct,
           round(non_compute_time_pctg, 2) AS non_compute_pct
    FROM hta_temporal_breakdown"
fi

if has hta_kernel_type_breakdown; then
  sql "Kernel type breakdown per job, all ranks (hta_kernel_type_breakdown):" "
    SELECT job, kernel_type, round(sum_us, 1) AS sum_us, round(percentage, 2) AS pct
    FROM hta_kernel_type_breakdown"
fi

if has hta_idle_time_breakdown; then
  sql "Idle time by cause, per stream, of the example job (hta_idle_time_breakdown):" "
    SELECT rank, stream, idle_category, round(idle_time_us, 1) AS idle_us,
           round(idle_time_ratio, 3) AS ratio
    FROM hta_idle_time_breakdown WHERE job = 'traces'"
fi

if has hta_comm_comp_overlap; then
  sql "Communication overlapped by computation (hta_comm_comp_overlap):" "
    SELECT job, rank, round(comp_comm_overlap_pctg, 2) AS overlap_pct FROM hta_comm_comp_overlap"
fi

if has hta_queue_length_summary; then
  sql "Launch queue length per stream (hta_queue_length_summary):" "
    SELECT job, rank, stream, count, round(mean, 1) AS mean, min, round(p50, 1) AS p50, max
    FROM hta_queue_length_summary"
fi

printf '\nThe database is %s; try: sqlite3 %s -cmd ".load ./hta" -box "SELECT * FROM hta_kernel_breakdown"\n' "$db" "$db"
printf 'More questions, one per file: examples/queries/*.sql\n'
