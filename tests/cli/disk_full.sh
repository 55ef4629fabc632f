#!/bin/sh
# Write failures (README "hta-ingest": exit 2 when the database cannot be written). The
# file size limit (ulimit -f, SIGXFSZ ignored) makes every write past it fail, like a
# full disk:
#   F1 a new database: exit 2, a message naming the database, nothing left behind (no
#      database, no temporary file).
#   F2 an existing database (WAL, one transaction per file): each new file fails, and the
#      database still passes integrity_check and holds exactly its earlier file.
#   F3 without the limit, the same ingests succeed.
set -u
command -v python3 >/dev/null || { echo "python3 needed to generate traces"; exit 77; }
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p disk_full && cd disk_full || exit 2 # the CLI tests share one directory
rm -rf tr first ./*.db*
python3 "$top/tools/gen_trace.py" tr --ranks 3 --steps 4 --layers 4 -q || exit 1
mkdir -p first && mv tr/rank0.pt.trace.json first/
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# limited BLOCKS CMD...: CMD with a file size limit of BLOCKS (of 512 or 1024 bytes:
# either is far below a database's size, 20 tables of 64 KiB pages).
limited() (
  blocks=$1
  shift
  trap '' XFSZ
  ulimit -f "$blocks" || exit 77
  exec "$@"
)

# F1
limited 200 $HTA_INGEST -q new.db first tr > out.txt 2> err.txt; rc=$?
[ $rc = 2 ] || fail "F1: exit $rc, expected 2: $(cat err.txt)"
grep -q "^hta-ingest: new.db: " err.txt || fail "F1: no message naming the database: $(cat err.txt)"
left=$(ls | grep '^new\.db' || true)
[ -z "$left" ] || fail "F1: left behind: $left"

# F2
$HTA_INGEST -q old.db first || exit 1
before=$(sqlite3 old.db "SELECT file_name || '|' || event_count FROM trace; SELECT count(*) FROM event")
# appending writes the WAL first: 1500 blocks hold its setup (1 KiB blocks), not a file's rows
limited 1500 $HTA_INGEST -q old.db tr > out.txt 2> err.txt; rc=$?
[ $rc = 1 ] || [ $rc = 2 ] || fail "F2: exit $rc, expected 1 or 2: $(cat err.txt)"
grep -q "disk I/O error\|database or disk is full" err.txt || fail "F2: no I/O error reported: $(cat err.txt)"
[ "$(sqlite3 old.db 'PRAGMA integrity_check')" = ok ] || fail "F2: integrity_check"
after=$(sqlite3 old.db "SELECT file_name || '|' || event_count FROM trace; SELECT count(*) FROM event")
[ "$before" = "$after" ] || fail "F2: the database changed: [$before] -> [$after]"

# F3
$HTA_INGEST -q new.db first tr || fail "F3: a new database without the limit"
$HTA_INGEST -q old.db tr || fail "F3: appending without the limit"
a=$(sqlite3 new.db "SELECT count(*), sum(event_count) FROM trace")
b=$(sqlite3 old.db "SELECT count(*), sum(event_count) FROM trace")
[ "$a" = "$b" ] && [ "${a%%|*}" = 3 ] || fail "F3: new [$a], appended [$b], expected 3 traces each"

echo "disk_full: $fails failures"
[ $fails = 0 ]
