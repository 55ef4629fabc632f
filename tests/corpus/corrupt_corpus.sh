#!/bin/sh
# The corrupt-input suite (tests/cli/corrupt_inputs.sh) on the real traces of
# $HTA_SHARED/corpus: for every job, its files are ingested into a database, then one of
# them (the first that landed) is corrupted and ingested again, case by case:
#   truncated at T offsets, plain and gzip; B single-byte flips, plain (XOR 0x80) and gzip
#   (XOR 1 after the header); the gzip file followed by garbage.
# T = 8 and B = 4 for jobs up to 4 MB of JSON, 4 and 2 up to 32 MB, 2 and 1 above (the
# corpus is 680 MB of JSON, and each case reads its file up to the damage).
# Each case: exit 1 and "hta-ingest: FILE: byte N: what"; after the job's cases the database
# passes integrity_check and every file ingested before holds exactly its rows.
# env: HTA_INGEST, HTA_SHARED (default ../shared of the repo), HTA_TMP (scratch).
# exit 0 pass, 1 fail, 77 skip (no corpus).
# Prints "summary: corrupt corpus: J jobs, C cases, F failures".
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${HTA_SHARED:=$top/../shared}"
: "${HTA_INGEST:=$top/hta-ingest}"
if [ ! -d "$HTA_SHARED/corpus" ]; then echo "skip: no $HTA_SHARED/corpus"; exit 77; fi
ING=$HTA_INGEST # not under valgrind (1500 runs): the CLI tests cover that
work=$(mktemp -d "${HTA_TMP:-/tmp}/corrupt-corpus.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT INT TERM
cd "$work" || exit 2
jobs=0 cases=0 fails=0
fail() { echo "FAIL: $job: $*"; fails=$((fails + 1)); }

snapshot() {
  sqlite3 "$1" "SELECT t.file_name, t.event_count,
      (SELECT count(*) FROM event WHERE event_id BETWEEN t.trace_id << 32 AND (t.trace_id << 32) | 0xffffffff),
      (SELECT count(*) FROM counter WHERE trace_id = t.trace_id),
      (SELECT count(*) FROM flow WHERE trace_id = t.trace_id),
      (SELECT count(*) FROM profiler_step WHERE trace_id = t.trace_id),
      (SELECT count(*) FROM thread WHERE trace_id = t.trace_id)
    FROM trace t ORDER BY t.trace_id;
    SELECT 'all', (SELECT count(*) FROM event), (SELECT count(*) FROM string), (SELECT count(*) FROM category)"
}

# expect FILE: ingest the corrupt FILE into j.db: exit 1 and a message with a byte offset.
expect() {
  cases=$((cases + 1))
  $ING -q j.db "$1" > out.txt 2> err.txt; rc=$?
  [ $rc = 1 ] || fail "$1: exit $rc, expected 1 ($(head -c 200 err.txt))"
  grep -q -e 'runtime error' -e 'Sanitizer' -e 'ERROR SUMMARY: [1-9]' err.txt && fail "$1: $(grep -m 1 -e 'runtime error' -e 'Sanitizer' -e 'ERROR SUMMARY' err.txt)"
  grep -q "^hta-ingest: $1: byte [0-9][0-9]*: " err.txt || fail "$1: no message with file and byte offset: $(head -c 200 err.txt)"
  rm -f "$1"
}

flip() { # flip FILE OFFSET XOR OUT
  cp "$1" "$4"
  b=$(od -An -tu1 -j "$2" -N 1 "$1" | tr -d ' ')
  printf "\\$(printf '%03o' $((b ^ $3)))" | dd of="$4" bs=1 seek="$2" conv=notrunc 2>/dev/null
}

# Length of the gzip header of FILE (RFC 1952: FEXTRA, FNAME, FCOMMENT, FHCRC).
gzheader() {
  od -An -tu1 -N 4096 "$1" | tr -s ' \n' '\n\n' | sed '/^$/d' | awk '
    { b[NR - 1] = $1 }
    END {
      flg = b[3]; p = 10
      if (int(flg / 4) % 2) p += 2 + b[p] + 256 * b[p + 1]
      if (int(flg / 8) % 2) { while (b[p] != 0) p++; p++ }
      if (int(flg / 16) % 2) { while (b[p] != 0) p++; p++ }
      if (int(flg / 2) % 2) p += 2
      print p
    }'
}

for dir in "$HTA_SHARED"/corpus/*/; do
  job=$(basename "$dir")
  ls "$dir" | grep -q -e '\.json$' -e '\.json\.gz$' || continue
  jobs=$((jobs + 1))
  rm -f j.db j.db-wal j.db-shm
  $HTA_INGEST -q j.db "$dir" > /dev/null 2> base_err.txt # a job may hold a file that is not a trace
  src=$(sqlite3 j.db "SELECT file_name FROM trace ORDER BY file_name LIMIT 1" 2>/dev/null)
  if [ -z "$src" ]; then fail "no file of the job ingested: $(head -c 200 base_err.txt)"; continue; fi
  snapshot j.db > ref.txt
  case $src in
    *.gz) gunzip -c "$src" > p.json && cp "$src" g.json.gz ;;
    *) cp "$src" p.json && gzip -c "$src" > g.json.gz ;;
  esac
  s=$(wc -c < p.json) g=$(wc -c < g.json.gz) h=$(gzheader g.json.gz)
  if [ "$s" -le 4000000 ]; then nt=8 nf=4; elif [ "$s" -le 32000000 ]; then nt=4 nf=2; else nt=2 nf=1; fi
  i=1
  while [ $i -le $nt ]; do
    head -c $((s * i / (nt + 1))) p.json > "t$i.json"
    expect "t$i.json"
    head -c $((g * i / (nt + 1))) g.json.gz > "t$i.json.gz"
    expect "t$i.json.gz"
    i=$((i + 1))
  done
  i=1
  while [ $i -le $nf ]; do
    flip p.json $((s * (2 * i - 1) / (2 * nf))) 128 "f$i.json"
    expect "f$i.json"
    flip g.json.gz $((h + (g - h) * (2 * i - 1) / (2 * nf))) 1 "f$i.json.gz"
    expect "f$i.json.gz"
    i=$((i + 1))
  done
  { cat g.json.gz; printf 'garbage'; } > garbage.json.gz
  expect garbage.json.gz
  [ "$(sqlite3 j.db 'PRAGMA integrity_check')" = ok ] || fail "integrity_check"
  snapshot j.db > now.txt
  cmp -s ref.txt now.txt || { fail "the database changed"; diff ref.txt now.txt | head -n 6; }
  echo "$job: $((2 * nt + 2 * nf + 1)) cases on $(basename "$src") ($s bytes of JSON)"
  rm -f p.json g.json.gz j.db j.db-wal j.db-shm
done
echo "summary: corrupt corpus: $jobs jobs, $cases cases, $fails failures"
[ $fails = 0 ]
