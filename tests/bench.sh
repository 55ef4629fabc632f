#!/bin/sh
# make bench: hta-ingest throughput beside the floor measured in the same rounds (cat for
# .json, zcat for .json.gz, of the same bytes), then each analysis's time on a database.
# Inputs (made once under the build directory, never in the repository):
#   tile      a real trace tiled along time to HTA_BENCH_MB (520 MiB: about 540 MB) when
#             ../shared is present (tile_trace.py), else the generator (tools/gen_trace.py)
#   tile300   the same trace tiled to HTA_BENCH_MB_SMALL (300 MiB): small events, the
#             per-row cost of real traces
#   job64     a generated 64-rank job (one file per rank), ingested with -j 2
# each as .json and .json.gz (job64: .json). For each: median wall time of
# HTA_BENCH_ROUNDS (3) interleaved rounds, MB/s of JSON, rows/s (every table's rows),
# CPU of the writer thread and of the other threads (parsers, inflaters), peak RSS, and
# for one file its two phases (the pass, then the writer), from -v.
# HTA_BENCH_BASELINE=/path/to/an/older/hta-ingest runs it in the same rounds, right
# before this one (A B A B...): a shared machine swings by a third from one minute to
# the next, so only figures of the same rounds compare.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
: "${HTA_INGEST:=$top/hta-ingest}" "${HTA_EXT:=$top/hta.so}" "${HTA_SHARED:=$top/../shared}"
: "${HTA_BENCH_MB:=520}" "${HTA_BENCH_MB_SMALL:=300}" "${HTA_BENCH_BASELINE:=}"
dir=${HTA_BENCH_DIR:-$top/build/bench}
mkdir -p "$dir"
src=$HTA_SHARED/corpus/hta_df_index_resolver/df_index_resolver.json.gz
# tile NAME MB: $dir/NAME.json and .json.gz
tile() {
  f=$dir/$1.json
  [ -s "$f" ] && [ -s "$f.gz" ] && return 0
  if [ -f "$src" ] && [ -f "$HTA_SHARED/tools/tile_trace.py" ]; then
    echo "making $f: $src tiled to $2 MB"
    python3 "$HTA_SHARED/tools/tile_trace.py" "$src" "$f" --target-mb "$2" >/dev/null
  else
    echo "making $f with tools/gen_trace.py ($2 MB)"
    rm -rf "$dir/gen"
    python3 "$top/tools/gen_trace.py" "$dir/gen" --ranks 1 --target-mb "$2" >/dev/null
    mv "$dir"/gen/*.json "$f"
    gzip -6 -k -f "$f"
  fi
}
tile tile "$HTA_BENCH_MB"
tile tile300 "$HTA_BENCH_MB_SMALL"
job=$dir/job64
if [ ! -s "$job/rank63.pt.trace.json" ]; then
  rm -rf "$job"
  python3 "$top/tools/gen_trace.py" "$job" --ranks 64 --steps "${HTA_BENCH_JOB_STEPS:-4}" -q
fi
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { print b - a }'; }
best() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b < a) ? b : a }'; }
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
rounds=${HTA_BENCH_ROUNDS:-3}
cases="tile.json tile.json.gz tile300.json tile300.json.gz job64"
input() { case $1 in job64) echo "$job" ;; *) echo "$dir/$1" ;; esac; }
json_bytes() { case $1 in job64) cat "$job"/*.json | wc -c ;; *) stat -L -c %s "$dir/${1%.gz}" ;; esac; }
# floor: the same bytes through cat (a pipe: `cat F >/dev/null` may copy in the kernel) or zcat
floor() { case $1 in *.gz) zcat "$(input "$1")" >/dev/null ;; job64) cat "$job"/*.json | wc -c >/dev/null ;; *) cat "$(input "$1")" | wc -c >/dev/null ;; esac; }
rm -f "$dir"/t-*.txt "$dir"/log-*.txt
bins="new"; [ -n "$HTA_BENCH_BASELINE" ] && bins="base new"
for r in $(seq "$rounds"); do
  for c in $cases; do
    t0=$(now); floor "$c"; t1=$(now); secs "$t0" "$t1" >> "$dir/t-floor-$c.txt"
    for b in $bins; do
      bin=$HTA_INGEST; [ $b = base ] && bin=$HTA_BENCH_BASELINE
      db=$dir/bench-$b-$c.db
      rm -f "$db"
      t0=$(now)
      "$bin" -v --no-progress -j 2 "$db" "$(input "$c")" 2>>"$dir/log-$b-$c.txt"
      t1=$(now)
      secs "$t0" "$t1" >> "$dir/t-$b-$c.txt"
    done
  done
done
echo "medians of $rounds interleaved rounds; MB/s of JSON; rows: every table's rows the traces add"
printf '%-34s %7s %7s %9s %8s %8s %8s %7s %6s %6s\n' "" "s" "MB/s" "Mrows/s" "x floor" "writer s" "other s" "RSS MB" \
  "pass s" "write s"
for c in $cases; do
  bytes=$(json_bytes "$c")
  fs=$(median < "$dir/t-floor-$c.txt")
  fl=cat; case $c in *.gz) fl=zcat ;; esac
  printf '%-34s %7.2f %7.0f\n' "$c: $fl" "$fs" "$(awk -v b="$bytes" -v s="$fs" 'BEGIN { print b / 1e6 / s }')"
  for b in $bins; do
    db=$dir/bench-$b-$c.db
    s=$(median < "$dir/t-$b-$c.txt")
    rows=$(sqlite3 "$db" "SELECT (SELECT count(*) FROM event) + (SELECT count(*) FROM flow)
      + (SELECT count(*) FROM counter) + (SELECT count(*) FROM thread)")
    w=$(sed -n 's/.*CPU: writer \([0-9.]*\) s, other threads.*/\1/p' "$dir/log-$b-$c.txt" | median)
    o=$(sed -n 's/.*CPU: writer [0-9.]* s, other threads \([0-9.]*\) s.*/\1/p' "$dir/log-$b-$c.txt" | median)
    rss=$(sed -n 's/.*peak RSS \([0-9.]*\) MB.*/\1/p' "$dir/log-$b-$c.txt" | sort -n | tail -n 1)
    # a single file's two phases (-v): its pass (read, derive's sorts), then the writer
    ps=- ws=-
    if [ "$c" != job64 ]; then
      ps=$(sed -n 's/.*(read \([0-9.]*\) s.*/\1/p' "$dir/log-$b-$c.txt" | median)
      ws=$(sed -n 's/.*, write \([0-9.]*\) s.*/\1/p' "$dir/log-$b-$c.txt" | median)
    fi
    label="hta-ingest"; [ $b = base ] && label="baseline"
    printf '%-34s %7.2f %7.0f %9.2f %8.2f %8.2f %8.2f %7s %6s %6s\n' "$c: $label" "$s" \
      "$(awk -v b="$bytes" -v s="$s" 'BEGIN { print b / 1e6 / s }')" \
      "$(awk -v r="$rows" -v s="$s" 'BEGIN { print r / 1e6 / s }')" \
      "$(awk -v a="$s" -v f="$fs" 'BEGIN { print a / f }')" "$w" "$o" "$rss" "$ps" "$ws"
  done
done
echo "(RSS: the largest of the rounds; writer/other: CPU seconds, medians; pass/write: a single"
echo " file's two phases, wall seconds, medians: the writer can start only when the pass ends)"

# Analyses on the database (default parameters), each run once, wall time.
db=$dir/bench-new-tile.json.db
[ -f "$HTA_EXT" ] || { echo "no $HTA_EXT: analyses skipped"; exit 0; }
# frequent sequences need an operator with >= 1,000 instances that launch kernels:
# aten::addmm in the usual tile, else the most frequent aten:: op
op=$(sqlite3 "$db" "SELECT value FROM string WHERE value = 'aten::addmm'
  UNION ALL SELECT * FROM (SELECT s.value FROM event e JOIN string s ON s.string_id = e.name_id
  WHERE s.value LIKE 'aten::%' GROUP BY 1 ORDER BY count(*) DESC) LIMIT 1")
echo "frequent sequences operator: $op ($(sqlite3 "$db" "SELECT count(*) FROM events WHERE name = '$op'") instances)"
while IFS='|' read -r name sql; do
  [ -n "$name" ] || continue
  if ! sqlite3 "$db" -cmd ".load $HTA_EXT" "SELECT count(*) FROM pragma_module_list WHERE name = '$name'" | grep -q 1; then
    printf '%-34s   (not available)\n' "$name"; continue
  fi
  t0=$(now)
  rows=$(sqlite3 "$db" -cmd ".load $HTA_EXT" "SELECT count(*) FROM ($sql)" 2>&1) || rows="error: $rows"
  t1=$(now)
  printf '%-34s %7.3f s  %s rows\n' "$name" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "$rows"
done <<EOS
hta_temporal_breakdown|SELECT * FROM hta_temporal_breakdown
hta_kernel_type_breakdown|SELECT * FROM hta_kernel_type_breakdown
hta_kernel_breakdown|SELECT * FROM hta_kernel_breakdown
hta_idle_time_breakdown|SELECT * FROM hta_idle_time_breakdown
hta_idle_interval_stats|SELECT * FROM hta_idle_interval_stats
hta_comm_comp_overlap|SELECT * FROM hta_comm_comp_overlap
hta_kernel_launch_stats|SELECT * FROM hta_kernel_launch_stats
hta_queue_length|SELECT * FROM hta_queue_length
hta_queue_length_summary|SELECT * FROM hta_queue_length_summary
hta_queue_full_time|SELECT * FROM hta_queue_full_time
hta_memory_bw|SELECT * FROM hta_memory_bw
hta_memory_bw_summary|SELECT * FROM hta_memory_bw_summary
hta_frequent_kernel_sequences|SELECT * FROM hta_frequent_kernel_sequences('$op')
hta_cupti_counters|SELECT * FROM hta_cupti_counters
hta_user_annotation_breakdown|SELECT * FROM hta_user_annotation_breakdown
hta_profiler_steps|SELECT * FROM hta_profiler_steps
hta_aten_op_kernels|SELECT * FROM hta_aten_op_kernels
hta_potential_stragglers|SELECT * FROM hta_potential_stragglers
hta_trace_diff|SELECT * FROM hta_trace_diff
hta_collective_instances|SELECT * FROM hta_collective_instances
hta_memory_summary|SELECT * FROM hta_memory_summary
hta_critical_path|SELECT * FROM hta_critical_path
hta_critical_path_summary|SELECT * FROM hta_critical_path_summary
hta_critical_path_job|SELECT * FROM hta_critical_path_job
hta_kernel_stats|SELECT * FROM hta_kernel_stats
hta_operator_stats|SELECT * FROM hta_operator_stats('input_shape')
hta_tensor_core_summary|SELECT * FROM hta_tensor_core_summary
hta_step_time_breakdown|SELECT * FROM hta_step_time_breakdown
hta_execution_summary|SELECT * FROM hta_execution_summary
hta_gpu_metrics|SELECT * FROM hta_gpu_metrics
hta_distributed_overlap|SELECT * FROM hta_distributed_overlap
hta_distributed_comm_ops|SELECT * FROM hta_distributed_comm_ops
hta_findings|SELECT * FROM hta_findings
hta_op_perf|SELECT * FROM hta_op_perf
hta_op_perf_summary|SELECT * FROM hta_op_perf_summary
EOS

# The HTML report of the tile's database: every section's analyses at once (the corpus
# jobs' report times are printed by tests/corpus/report_all.sh, without a budget).
t0=$(now); "$HTA_INGEST" -q --report "$dir/bench-tile.html" "$db"; t1=$(now)
printf '%-34s %7.3f s  %s bytes of HTML\n' "hta-ingest --report (tile)" "$(secs "$t0" "$t1")" \
  "$(stat -c %s "$dir/bench-tile.html")"

# Shards (DESIGN.md section 8): a generated 64-rank job ingested at once (-j 2), and the
# same job's 4 shards (--ranks, made once, not timed) merged with --merge into a new
# database; rows per second of each, over the same rows (every table's rows the traces
# add), best of the rounds. The merge reads no JSON: it copies rows between databases.
for r in 0-15 16-31 32-47 48-63; do
  [ -s "$dir/shard-$r.db" ] || "$HTA_INGEST" -q -j 1 "$dir/shard-$r.db" "$job" --ranks $r 2>/dev/null
done
ing_s= mrg_s=
for r in $(seq "$rounds"); do
  rm -f "$dir/job64.db" "$dir/job64-merged.db"
  t0=$(now); "$HTA_INGEST" -q -j 2 "$dir/job64.db" "$job"; t1=$(now)
  ing_s=$(best "$ing_s" "$(secs "$t0" "$t1")")
  t0=$(now); "$HTA_INGEST" -q --merge "$dir/job64-merged.db" "$dir"/shard-*.db; t1=$(now)
  mrg_s=$(best "$mrg_s" "$(secs "$t0" "$t1")")
done
rows=$(sqlite3 "$dir/job64-merged.db" "SELECT (SELECT count(*) FROM trace) + (SELECT count(*) FROM event)
  + (SELECT count(*) FROM counter) + (SELECT count(*) FROM flow) + (SELECT count(*) FROM thread)
  + (SELECT count(*) FROM device) + (SELECT count(*) FROM profiler_step) + (SELECT count(*) FROM ingest_issue)")
[ "$rows" = "$(sqlite3 "$dir/job64.db" "SELECT (SELECT count(*) FROM trace) + (SELECT count(*) FROM event)
  + (SELECT count(*) FROM counter) + (SELECT count(*) FROM flow) + (SELECT count(*) FROM thread)
  + (SELECT count(*) FROM device) + (SELECT count(*) FROM profiler_step) + (SELECT count(*) FROM ingest_issue)")" ] ||
  echo "note: the merged database has other rows than the ingested one"
jmb=$(du -sm "$job" | cut -f 1)
printf '%-28s %7.2f s %6s MB/s %8.2f M rows/s\n' "64-rank job: hta-ingest -j 2" "$ing_s" \
  "$(awk -v m="$jmb" -v s="$ing_s" 'BEGIN { printf "%.0f", m / s }')" "$(awk -v r="$rows" -v s="$ing_s" 'BEGIN { print r / s / 1e6 }')"
printf '%-28s %7.2f s %6s      %8.2f M rows/s  (%.1fx the ingest)\n' "64-rank job: --merge 4 shards" "$mrg_s" "" \
  "$(awk -v r="$rows" -v s="$mrg_s" 'BEGIN { print r / s / 1e6 }')" "$(awk -v a="$ing_s" -v b="$mrg_s" 'BEGIN { print a / b }')"
echo "64-rank job: $jmb MB of JSON, $rows rows; best of $rounds rounds"
# What to fix across the 64 ranks: every rule reads its analyses over the whole job.
t0=$(now); n=$(sqlite3 "$dir/job64.db" -cmd ".load $HTA_EXT" "SELECT count(*) FROM hta_findings"); t1=$(now)
printf '%-28s %7.3f s  %s rows\n' "64-rank job: hta_findings" "$(secs "$t0" "$t1")" "$n"
