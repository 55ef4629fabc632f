#!/bin/sh
# The two entry points of hta.so (DESIGN 2, README, STYLE 7):
#   P1 `.load ./hta` (sqlite3_hta_init) registers only hta_* names, none of which reads or
#      writes files: no name in pragma_function_list / pragma_module_list looks like I/O,
#      and none of the names the I/O entry point adds is there.
#   P2 its functions are INNOCUOUS, and its tables can be used from a view even with
#      PRAGMA trusted_schema = OFF (safe where strangers run SQL, e.g. Datasette).
#   P3 `.load ./hta sqlite3_hta_io_init` adds the I/O names; each one is SQLITE_DIRECTONLY:
#      a function has the flag and cannot be called from a view or a trigger ("unsafe use
#      of"), a table cannot be read from a view or a trigger. Called directly, they prepare.
# Exit 77 (skip) when the I/O entry point adds nothing yet, after P1 and P2 have passed.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${HTA_TMP:-/tmp}/entry.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT INT TERM
cd "$work" || exit 2
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
SQLITE_INNOCUOUS=2097152 SQLITE_DIRECTONLY=524288
IO_WORDS='read|write|file|files|ingest|load|dump|export|import|open|path|dir|fs|io|save|copy|trace_events'

sqlite3 s.db < "$top/schema/schema.sql" || exit 1
# names [ENTRY]: "f NAME NARG FLAGS" for functions, "m NAME" for modules that the sqlite3
# shell does not have by itself (it registers readfile, writefile, ... of its own).
# No argument: the shell alone; "" the default entry point; else that entry point.
list() {
  sqlite3 s.db "$@" "SELECT 'f ' || name || ' ' || narg || ' ' || flags FROM pragma_function_list
     UNION ALL SELECT 'm ' || name FROM pragma_module_list ORDER BY 1"
}
list > shell.txt || exit 1
names() {
  list -cmd ".load $HTA_EXT $1" > names.tmp || return 1
  grep -vxF -f shell.txt names.tmp
}

# P1
names "" > default.txt || { echo "FAIL: .load $HTA_EXT"; exit 1; }
nf=$(grep -c '^f ' default.txt) nm=$(grep -c '^m ' default.txt)
[ "$nf" -gt 0 ] && [ "$nm" -gt 0 ] || fail "P1 the default entry point registers $nf functions and $nm modules"
while read -r kind name rest; do
  case $name in hta_*) ;; *) fail "P1 $name: not prefixed hta_ (STYLE 2)" ;; esac
  # "critical_path" (HTA's analysis) names no file path
  if printf '%s\n' "$name" | sed 's/critical_path//' | grep -Eq "(^|_)($IO_WORDS)(_|$)"; then
    fail "P1 the default entry point registers $name, a name for file I/O"
  fi
done < default.txt

# P2
while read -r kind name narg flags; do
  [ "$kind" = f ] || continue
  [ $((flags & SQLITE_INNOCUOUS)) != 0 ] || fail "P2 function $name is not SQLITE_INNOCUOUS"
  [ $((flags & SQLITE_DIRECTONLY)) = 0 ] || fail "P2 function $name is DIRECTONLY in the default entry point"
done < default.txt
for m in $(sed -n 's/^m //p' default.txt); do
  cp s.db c.db
  out=$(sqlite3 c.db -cmd ".load $HTA_EXT" "PRAGMA trusted_schema = OFF; CREATE VIEW v AS SELECT * FROM $m;
        SELECT count(*) FROM v;" 2>&1)
  case $out in *unsafe*) fail "P2 $m cannot be used from a view: $out" ;; esac
done

# P3
names sqlite3_hta_io_init > io_all.txt || { echo "FAIL: .load $HTA_EXT sqlite3_hta_io_init"; exit 1; }
grep -vxF -f default.txt io_all.txt > io.txt
missing=$(grep -vxF -f io_all.txt default.txt)
[ -z "$missing" ] || fail "P3 the I/O entry point lacks default names: $missing"
if [ ! -s io.txt ]; then
  [ $fails = 0 ] || exit 1
  echo "entry_points: default entry point: $nf functions, $nm modules, no I/O names (checked)"
  echo "skip: sqlite3_hta_io_init registers nothing beyond the default entry point yet"
  exit 77
fi
io_fn=0 io_mod=0
# A call with NARG NULL arguments (one when the function takes any number).
call() { n=$2; [ "$n" -lt 0 ] && n=1; a=""; i=0
  while [ $i -lt "$n" ]; do a="$a${a:+, }NULL"; i=$((i + 1)); done; echo "$1($a)"; }
blocked() { # blocked LABEL SQL: SQL must fail with "unsafe use of"
  cp s.db c.db
  out=$(sqlite3 c.db -cmd ".load $HTA_EXT sqlite3_hta_io_init" "$2" 2>&1)
  case $out in *"unsafe use of"*) ;; *) fail "P3 $1 ran from a view or trigger: ${out:-no error}" ;; esac
}
while read -r kind name narg flags; do
  case $kind in
  f)
    io_fn=$((io_fn + 1))
    printf '%s\n' "$name" | grep -q '^hta_' || fail "P3 $name: not prefixed hta_"
    [ $((flags & SQLITE_DIRECTONLY)) != 0 ] || fail "P3 function $name ($narg args) is not SQLITE_DIRECTONLY"
    c=$(call "$name" "$narg")
    blocked "$c in a view" "CREATE VIEW v AS SELECT $c; SELECT * FROM v;"
    blocked "$c in a trigger" "CREATE TABLE t(x); CREATE TRIGGER tr AFTER INSERT ON t BEGIN SELECT $c; END;
      INSERT INTO t VALUES (1);"
    out=$(sqlite3 s.db -cmd ".load $HTA_EXT sqlite3_hta_io_init" "EXPLAIN SELECT $c;" 2>&1 >/dev/null)
    case $out in *unsafe*|*"no such function"*) fail "P3 $c cannot be prepared directly: $out" ;; esac
    ;;
  m)
    io_mod=$((io_mod + 1))
    blocked "table $name in a view" "CREATE VIEW v AS SELECT * FROM $name; SELECT * FROM v;"
    blocked "table $name in a trigger" "CREATE TABLE t(x); CREATE TRIGGER tr AFTER INSERT ON t BEGIN
      SELECT count(*) FROM $name; END; INSERT INTO t VALUES (1);"
    out=$(sqlite3 s.db -cmd ".load $HTA_EXT sqlite3_hta_io_init" "EXPLAIN SELECT * FROM $name;" 2>&1 >/dev/null)
    case $out in *unsafe*|*"no such table"*) fail "P3 $name cannot be used directly: $out" ;; esac
    ;;
  esac
done < io.txt
# The harness itself: a default function in a view and a trigger is allowed.
cp s.db c.db
out=$(sqlite3 c.db -cmd ".load $HTA_EXT sqlite3_hta_io_init" "CREATE VIEW v AS SELECT hta_version();
      SELECT * FROM v; CREATE TABLE t(x); CREATE TRIGGER tr AFTER INSERT ON t BEGIN SELECT hta_version(); END;
      INSERT INTO t VALUES (1);" 2>&1)
case $out in v*) ;; *) fail "control: hta_version() from a view: $out" ;; esac
echo "entry_points: default $nf functions, $nm modules; I/O entry point adds $io_fn functions, $io_mod modules; $fails failures"
[ $fails = 0 ]
