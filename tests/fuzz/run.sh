#!/bin/sh
# Runs libFuzzer targets for a bounded time each and records what they did.
#   sh tests/fuzz/run.sh SECONDS DIR TARGET...     (make fuzz-quick / make fuzz)
# DIR holds the binaries (DIR/TARGET); each target keeps its growing corpus in
# DIR/corpus-TARGET, starts from its seeds (tests/fuzz/seed for the JSON targets,
# tests/fuzz/seed-sql for fuzz_sql) and first replays tests/fuzz/regress-* (inputs that
# once crashed: reproducers). A crash, leak, timeout or sanitizer report is a finding:
# the input is kept as DIR/findings/TARGET-crash-*. One line per target goes to stdout
# and is appended, dated, to DIR/fuzz-log.txt:
#   fuzz_json: 12345 execs in 60 s (205/s), corpus 321, 0 findings
# Exit 1 when any target has a finding. FUZZ_JOBS=N runs N targets at once.
set -u
secs=$1 dir=$2
shift 2
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$dir/findings" || exit 2
status=0
run_one() {
  t=$1
  case $t in
    fuzz_sql) seeds="$top/tests/fuzz/seed-sql" dict="$top/tests/fuzz/sql.dict" regress="$top/tests/fuzz/regress-sql" ;;
    *) seeds="$top/tests/fuzz/seed" dict="$top/tests/fuzz/json.dict" regress="$top/tests/fuzz/regress-json" ;;
  esac
  corpus="$dir/corpus-$t"
  mkdir -p "$corpus"
  set -- "$corpus" "$seeds"
  [ -d "$regress" ] && set -- "$@" "$regress"
  log="$dir/$t.log"
  before=$(ls "$dir/findings" | grep -c "^$t-")
  # -timeout: one input over 10 s is a hang; -rss_limit_mb: a runaway allocation.
  "$dir/$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -dict="$dict" -artifact_prefix="$dir/findings/$t-" "$@" > "$log" 2>&1
  rc=$?
  # After a crash libFuzzer prints no final stats: take the last status line ("#N ...").
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  [ -n "$execs" ] || execs=$(sed -n 's/^#\([0-9][0-9]*\)[[:space:]].*/\1/p' "$log" | tail -n 1)
  took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -n 1)
  after=$(ls "$dir/findings" | grep -c "^$t-")
  found=$((after - before))
  [ $rc = 0 ] || [ $found -gt 0 ] || found=1 # an exit without an artifact (e.g. a failed start)
  n=$(ls "$corpus" | wc -l)
  if [ -n "$took" ]; then
    line="$t: ${execs:-0} execs in $took s ($((${execs:-0} / (took > 0 ? took : 1)))/s), corpus $n, $found findings"
  else
    line="$t: ${execs:-0} execs before it stopped, corpus $n, $found findings"
  fi
  echo "$line"
  echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) $secs s: $line" >> "$dir/fuzz-log.txt"
  if [ $found -gt 0 ]; then
    grep -m 3 -e 'ERROR:' -e 'runtime error' -e 'SUMMARY' -e 'fuzz_sql:' -e 'FJ[0-9]' -e 'differ' "$log" | sed 's/^/    /'
    ls -t "$dir/findings" | grep "^$t-" | head -n 3 | sed "s|^|    input: $dir/findings/|"
    return 1
  fi
  return 0
}
if [ "${FUZZ_JOBS:-1}" -gt 1 ]; then
  for t in "$@"; do (run_one "$t" > "$dir/$t.line"; echo $? > "$dir/$t.rc") & done
  wait
  for t in "$@"; do cat "$dir/$t.line"; [ "$(cat "$dir/$t.rc")" = 0 ] || status=1; done
else
  for t in "$@"; do run_one "$t" || status=1; done
fi
exit $status
