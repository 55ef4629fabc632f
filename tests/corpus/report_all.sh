#!/bin/sh
# The HTML report of every corpus job ($HTA_SHARED/corpus/<job>/): hta-ingest
# --report must succeed (exit 0, no failed analysis), the HTML must pass the
# static checks, headless Chromium must render it without a console message into
# a non-blank screenshot (tests/cli/report_render.sh check). Prints one line per job
# with the report's wall and CPU seconds and the CPU seconds per 100 MB of trace JSON
# (uncompressed), and a summary: figures to read, never a pass/fail budget (a test's
# verdict must not depend on the machine it runs on; make bench measures speed).
# env: HTA_INGEST, HTA_SHARED, HTA_TMP (scratch), HTA_REPORT_JOBS (space-separated
#      job names to restrict the run), HTA_RENDER_JOBS (Chromiums at once, default 2),
#      HTA_RENDER_EVERY (default 4: Chromium renders every 4th report in name order and the
#      largest one, which keeps CI within its 30 minutes: the 45 renders took 240-430 s of
#      it; 1 renders all). Every report gets the static checks.
# Exit 0 pass, 1 fail, 77 skip (no corpus, no chromium, no python3).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${HTA_SHARED:=$top/../shared}" "${HTA_INGEST:=$top/hta-ingest}" "${HTA_RENDER_JOBS:=2}"
: "${HTA_RENDER_EVERY:=4}"
[ -d "$HTA_SHARED/corpus" ] || { echo "skip: no $HTA_SHARED/corpus"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "skip: python3 is needed"; exit 77; }
chromium_ok=0
for c in ${CHROMIUM:-} chromium chromium-browser google-chrome; do
  command -v "$c" >/dev/null 2>&1 && chromium_ok=1
done
[ $chromium_ok = 1 ] || { echo "skip: chromium is not installed (apt-get install chromium)"; exit 77; }
own=""
if [ -z "${HTA_TMP:-}" ]; then HTA_TMP=$(mktemp -d) || exit 2; own=$HTA_TMP; fi
work="$HTA_TMP/report_all"
rm -rf "$work"
mkdir -p "$work" || exit 2
trap 'rm -rf "$work" ${own:+"$own"}' EXIT INT TERM

# timed CMD...: runs it, prints "RC WALL_S CPU_S" (CPU = user + sys of the command)
timed() {
  python3 -c '
import resource, subprocess, sys, time
t0 = time.time(); r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL)
t1 = time.time(); r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
print(rc, "%.3f" % (t1 - t0), "%.3f" % (r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime))' "$@"
}

# 1. per job: ingest, report (timed), the size of its JSON
jobs=""
for d in "$HTA_SHARED"/corpus/*/; do
  job=$(basename "$d")
  if [ -n "${HTA_REPORT_JOBS:-}" ]; then
    case " $HTA_REPORT_JOBS " in *" $job "*) ;; *) continue ;; esac
  fi
  jobs="$jobs $job"
  db="$work/$job.db"
  "$HTA_INGEST" -q "$db" "$d" 2>/dev/null
  bytes=0
  for f in $(find "$d" -type f \( -name '*.json' -o -name '*.json.gz' \) | sort); do
    case $f in
      *.gz) n=$(gzip -l "$f" | awk 'NR == 2 { print $2 }') ;; # uncompressed size (< 4 GB)
      *) n=$(wc -c < "$f") ;;
    esac
    bytes=$((bytes + n))
  done
  set -- $(timed "$HTA_INGEST" -q --report "$work/$job.html" "$db")
  echo "$job $(echo "$bytes" | awk '{ printf "%.2f", $1 / 1e6 }') $1 $2 $3" > "$work/$job.time"
  rm -f "$db"
done

# 2. render the sampled reports (HTA_RENDER_EVERY), HTA_RENDER_JOBS at a time
largest=$(ls -S "$work"/*.html 2>/dev/null | head -n 1)
n=0 k=0
for job in $jobs; do
  [ -s "$work/$job.html" ] || continue
  k=$((k + 1))
  [ $(((k - 1) % HTA_RENDER_EVERY)) = 0 ] || [ "$work/$job.html" = "$largest" ] || continue
  sh "$top/tests/cli/report_render.sh" check "$work/$job.html" "$work/$job.png" 2000 > "$work/$job.render" 2>&1 &
  n=$((n + 1))
  [ $((n % HTA_RENDER_JOBS)) = 0 ] && wait
done
wait

# 3. results
fails=0
printf '%-46s %9s %8s %8s %11s %8s\n' job "MB(json)" wall_s cpu_s cpu_s/100MB render_s
for job in $jobs; do
  read -r _ mb rc wall cpu < "$work/$job.time"
  per=$(echo "$cpu $mb" | awk '{ printf "%.3f", ($2 > 0 ? 100 * $1 / $2 : 0) }')
  render=$(sed -n 's/^render_s=//p' "$work/$job.render" 2>/dev/null)
  msg=""
  if [ "$rc" != 0 ]; then
    msg="report exit $rc"
  elif grep -q 'class="error"' "$work/$job.html"; then
    msg="an analysis failed: $(grep -o 'class="error">[^<]*' "$work/$job.html" | head -n 1)"
  elif grep -q FAIL "$work/$job.render" 2>/dev/null; then
    msg="render: $(grep -m 1 FAIL "$work/$job.render")"
  fi
  printf '%-46s %9s %8s %8s %11s %8s\n' "$job" "$mb" "$wall" "$cpu" "$per" "${render:--}"
  if [ -n "$msg" ]; then echo "FAIL: $job: $msg"; fails=$((fails + 1)); fi
  echo "$mb $wall $cpu ${render:-0}" >> "$work/totals"
done
awk -v fails=$fails '
  { mb += $1; wall += $2; cpu += $3; render += $4; n++; if ($4 > 0) r++ }
  END { printf "summary: report_all: %d jobs, %.0f MB of trace JSON; report %.2f s wall (%.2f s per 100 MB), %.2f s CPU (%.2f s per 100 MB); Chromium renders %d of them in %.1f s; %d failed\n",
          n, mb, wall, (mb > 0 ? 100 * wall / mb : 0), cpu, (mb > 0 ? 100 * cpu / mb : 0), r, render, fails }' "$work/totals"
[ $fails = 0 ]
