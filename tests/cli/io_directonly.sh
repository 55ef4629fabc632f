#!/bin/sh
# DIRECTONLY (ext/io/io.c): the io functions and hta_trace_events run only from top-level
# SQL. A view, a trigger or a DEFAULT clause that calls them fails with SQLite's "unsafe
# use of ..." and writes or reads nothing; a generated column cannot be declared; the
# default entry point does not register them at all. cwd is a scratch directory.
set -u
fails=0
VG=${VG:-}
check() { # check LABEL CONDITION...
  label=$1; shift
  if "$@"; then :; else echo "FAIL: $label"; fails=$((fails + 1)); fi
}
rm -rf io_do && mkdir io_do && cd io_do || exit 1
# vgrun CMD...: runs CMD, prints its stdout and stderr without valgrind's own lines; a
# valgrind error (exit 99 under HTA_VALGRIND=1) is recorded in vg_errors and fails the test.
vgrun() {
  "$@" > vg.out 2>&1
  [ $? = 99 ] && [ -n "$VG" ] && echo "$*" >> vg_errors
  grep -v '^==[0-9]*==' vg.out
}
has() { echo "$2" | grep -q -- "$1" || { echo "  got: $2"; return 1; }; } # has PATTERN TEXT

cat > r0.json <<'J'
{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 1}]}
J
$VG "$HTA_INGEST" -q d.db r0.json || { echo "ingest failed"; exit 1; }
# a database that a stranger could hand over: views, a trigger and a DEFAULT clause calling
# the io functions, created by a session that had the io entry point loaded
$VG sqlite3 d.db -cmd ".load $HTA_EXT sqlite3_hta_io_init" <<'S'
CREATE VIEW v_counters AS SELECT hta_write_trace_with_counters(0, 'from_view.json') AS n;
CREATE VIEW v_overlay AS SELECT hta_write_sequence_overlay(0, 'aten', 'from_view2.json') AS n;
CREATE VIEW v_events AS SELECT * FROM hta_trace_events('r0.json');
CREATE TABLE t(x);
CREATE TRIGGER t_ins AFTER INSERT ON t BEGIN SELECT hta_write_trace_with_counters(0, 'from_trigger.json'); END;
CREATE TABLE d(x, y DEFAULT (hta_write_trace_with_counters(0, 'from_default.json')));
S
# unsafe DB SQL NAME: SQL fails with SQLite's "unsafe use of NAME"
unsafe() {
  vgrun $VG sqlite3 d.db -cmd ".load $HTA_EXT sqlite3_hta_io_init" "$1" > out.txt
  grep -q "^Error: in prepare, unsafe use of $2" out.txt || { cat out.txt; return 1; }
}
check "view: unsafe use" unsafe "SELECT * FROM v_counters" "hta_write_trace_with_counters()"
check "view overlay: unsafe use" unsafe "SELECT * FROM v_overlay" "hta_write_sequence_overlay()"
check "view vtab: unsafe use" unsafe "SELECT count(*) FROM v_events" 'virtual table "hta_trace_events"'
check "trigger: unsafe use" unsafe "INSERT INTO t VALUES (1)" "hta_write_trace_with_counters()"
check "default: unsafe use" unsafe "INSERT INTO d(x) VALUES (1)" "hta_write_trace_with_counters()"
# a generated column cannot even be declared (the functions are not deterministic)
r=$(vgrun $VG sqlite3 d.db -cmd ".load $HTA_EXT sqlite3_hta_io_init" "CREATE TABLE g(x, y AS (hta_write_trace_with_counters(0, 'from_gen.json')))")
check "generated column refused" has 'non-deterministic functions prohibited in generated columns' "$r"
# (SQLite 3.40.1 does not apply DIRECTONLY to CHECK constraints, for its own writefile()
# as for these: see ext/io/io.c. Not asserted here either way.)
check "nothing written" [ -z "$(ls | grep '^from_')" ]
check "trigger rolled back" [ "$(sqlite3 d.db 'SELECT count(*) FROM t')" = 0 ]
io() { vgrun $VG sqlite3 d.db -cmd ".load $HTA_EXT sqlite3_hta_io_init" "$@"; }
# top-level SQL may call them
check "top level works" [ "$(io "SELECT hta_write_trace_with_counters(0, 'top.json')")" = 0 ]
check "top level vtab works" [ "$(io "SELECT count(*) FROM hta_trace_events('r0.json')")" = 1 ]
# the default entry point: no such function / table
r=$(vgrun $VG sqlite3 d.db -cmd ".load $HTA_EXT" "SELECT hta_write_trace_with_counters(0, 'x.json')")
check "default: no function" has '^Error: in prepare, no such function: hta_write_trace_with_counters' "$r"
r=$(vgrun $VG sqlite3 d.db -cmd ".load $HTA_EXT" "SELECT count(*) FROM hta_trace_events('r0.json')")
check "default: no table" has '^Error: in prepare, no such table: hta_trace_events' "$r"
check "default: names absent" [ "$(vgrun $VG sqlite3 :memory: -cmd ".load $HTA_EXT" "SELECT (SELECT count(*) FROM pragma_function_list WHERE name LIKE 'hta_write%' OR name = 'hta_ingest') + (SELECT count(*) FROM pragma_module_list WHERE name = 'hta_trace_events')")" = 0 ]
[ -s vg_errors ] && { echo "FAIL: valgrind errors in:"; cat vg_errors; fails=$((fails + 1)); }
[ $fails = 0 ] || { echo "$fails failures"; exit 1; }
exit 0
