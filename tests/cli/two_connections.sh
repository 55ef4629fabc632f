#!/bin/sh
# Two reads at once on two connections (ext/core/par.c, hta_par2): the second on a
# connection of its own, in a thread, where that connection sees what the caller sees; else
# both on the caller's connection. The comparison reads its two runs so, hta_findings the
# plugin's operator trees beside its accounting. Every row of hta_job_diff,
# hta_job_diff_summary (all splits) and hta_findings must be the same either way:
#   file    the database file itself, autocommit (two connections)
#   write   the same inside BEGIN IMMEDIATE (a write transaction: one connection)
#   attach  each run in a database of its own, attached to an in-memory main under two
#           names (two connections, the second attaching its file under the same name),
#           and the same inside BEGIN IMMEDIATE
#   memory  the database restored into an in-memory main (one connection)
#   temp    the same into the temp schema (one connection)
# The test run's GEMM and attention kernels are renamed to float32 names, so the plugin's
# tensor-core rule builds its operator tree (the read done ahead) and fires.
# A change the caller has not committed is seen: every GPU event of the test run made
# twice as long in a transaction doubles the test side's kernel time. A stop of the
# caller's statement reaches the second connection: with a small control run and a large
# test run, a progress handler that stops the summary at a fifth of its time (Datasette's
# time limit) while the caller waits for the test side gets "interrupted" well before the
# summary would have ended; the same for the large run's findings.
# env: HTA_INGEST, HTA_EXT. Exit 0 pass, 1 fail.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${HTA_INGEST:=$top/hta-ingest}" "${HTA_EXT:=$top/hta.so}"
work=$(mktemp -d) || exit 2
trap 'rm -rf "$work"' EXIT INT TERM
cd "$work" || exit 2
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

python3 "$top/tools/gen_trace.py" -q --healthy --ranks 1 --steps 3 before || fail "gen_trace"
python3 "$top/tools/gen_trace.py" -q --healthy --ranks 1 --steps 3 --gemm-tflops 20 after || fail "gen_trace"
"$HTA_INGEST" -q runs.db before after || { echo "FAIL: ingest"; exit 1; }
"$HTA_INGEST" -q c.db before && "$HTA_INGEST" -q t.db after || { echo "FAIL: ingest"; exit 1; }
fp32="UPDATE string SET value = 'volta_sgemm_128x64_nn_' || string_id WHERE value LIKE '%xmma_gemm%';
  UPDATE string SET value = 'attention_f32_' || string_id WHERE value LIKE 'fmha_%';"
sqlite3 runs.db "$fp32" && sqlite3 c.db "$fp32" && sqlite3 t.db "$fp32" || fail "fp32 names"

# every row of both functions, in a fixed order; trace ids left out (they differ between
# one database and two); $1 $2: the schemas of the sides
rows() {
  echo "SELECT node_id, parent_node_id, depth, name, match, control_seq, test_seq, control_name,
    test_name, control_kind, test_kind, control_host_us, test_host_us, control_kernels,
    test_kernels, control_kernel_us, test_kernel_us, delta_us, control_busy_us, test_busy_us,
    is_comparison_point, point_control_kernels, point_test_kernels, point_control_us,
    point_test_us, point_delta_us, point_seqs
    FROM hta_job_diff('before', 'after', 0, 0, '$1', '$2') ORDER BY node_id;
  SELECT part, control_us, test_us, delta_us, split, control_ns, test_ns, delta_ns,
    control_count, test_count, share, change
    FROM hta_job_diff_summary('before', 'after', 0, 0, '$1', '$2');
  SELECT rank, rule, kind, parent, source, time_us, pct_of_step, title, advice, evidence, caveats
    FROM hta_findings(0) WHERE job = 'after' AND schema = '$2';"
}
sqlite3 runs.db -cmd ".load $HTA_EXT" "$(rows main main)" > file.txt 2>&1
[ "$(wc -l < file.txt)" -gt 100 ] || fail "file: $(head -n 3 file.txt)"
# make test-valgrind: the two threads under memcheck (its floating point differs in the
# last digit, so only the rows' count is compared)
if [ -n "${VG:-}" ]; then
  $VG sqlite3 runs.db -cmd ".load $HTA_EXT" "$(rows main main)" > vg.txt 2> vg.err ||
    fail "valgrind: exit $?: $(head -n 5 vg.err)"
  [ "$(wc -l < vg.txt)" = "$(wc -l < file.txt)" ] || fail "valgrind: $(wc -l < vg.txt) rows"
fi
grep -q 'Kernel: COMPUTATION' file.txt || fail "file: no summary rows"
grep -q '|tensor_cores_unused|configuration||tb_plugin|' file.txt ||
  fail "file: no tensor-core finding of the plugin's"
same() { # NAME FILE: FILE has file.txt's rows
  if ! cmp -s file.txt "$2"; then fail "$1: other rows than the file's"; diff file.txt "$2" | head -n 6; fi
}
sqlite3 runs.db -cmd ".load $HTA_EXT" "BEGIN IMMEDIATE; $(rows main main) ROLLBACK;" > write.txt 2>&1
same write write.txt
sqlite3 -cmd ".load $HTA_EXT" -cmd "ATTACH 'c.db' AS c" -cmd "ATTACH 't.db' AS t" \
  ":memory:" "$(rows c t)" > attach.txt 2>&1
same attach attach.txt
sqlite3 -cmd ".load $HTA_EXT" -cmd "ATTACH 'c.db' AS c" -cmd "ATTACH 't.db' AS t" \
  ":memory:" "BEGIN IMMEDIATE; $(rows c t) ROLLBACK;" > attach_write.txt 2>&1
same attach_write attach_write.txt
sqlite3 -cmd ".load $HTA_EXT" -cmd ".restore runs.db" ":memory:" "$(rows main main)" > memory.txt 2>&1
same memory memory.txt
sqlite3 -cmd ".load $HTA_EXT" -cmd ".restore temp runs.db" ":memory:" "$(rows temp temp)" > temp.txt 2>&1
same temp temp.txt

# a change not committed yet is seen (a second connection would not see it)
kus="SELECT sum(test_kernel_us) FROM hta_job_diff('before', 'after') WHERE depth = 0"
base=$(sqlite3 runs.db -cmd ".load $HTA_EXT" "$kus")
twice=$(sqlite3 runs.db -cmd ".load $HTA_EXT" "BEGIN; UPDATE event SET dur = 2 * dur
  WHERE stream IS NOT NULL AND trace_id = (SELECT t.trace_id FROM trace t JOIN job j USING (job_id)
  WHERE j.name = 'after'); $kus; ROLLBACK;")
awk -v a="$base" -v b="$twice" 'BEGIN { exit !(a > 0 && b == 2 * a) }' ||
  fail "uncommitted: test kernel time $base, after doubling every GPU event $twice"

# the stop: side 0 (small) ends at once, the caller then waits for side 1 (big)
python3 "$top/tools/gen_trace.py" -q --healthy --ranks 1 --steps 1 --layers 2 small &&
  python3 "$top/tools/gen_trace.py" -q --healthy --ranks 1 --steps 40 --layers 12 big &&
  "$HTA_INGEST" -q sb.db small big && sqlite3 sb.db "$fp32" || fail "small and big runs"
"${HTA_PYTHON:-/usr/bin/python3}" - "$HTA_EXT" <<'PY' || fail "stop"
import sqlite3, sys, time
con = sqlite3.connect("sb.db")
con.enable_load_extension(True)
con.load_extension(sys.argv[1])
for what, q in (("the summary", "SELECT count(*) FROM hta_job_diff_summary('small', 'big')"),
                ("the findings", "SELECT count(*) FROM hta_findings WHERE job = 'big'")):
    con.set_progress_handler(None, 1000)
    t0 = time.monotonic()
    con.execute(q).fetchall()
    full = time.monotonic() - t0
    start = time.monotonic()
    con.set_progress_handler(lambda: int(time.monotonic() - start > full / 5), 1000)
    try:
        con.execute(q).fetchall()
        sys.exit("%s not stopped (the whole took %.2f s)" % (what, full))
    except sqlite3.OperationalError as e:
        took = time.monotonic() - start
        if "interrupt" not in str(e):
            sys.exit("%s stopped with %r" % (what, str(e)))
        if took > 0.6 * full:
            sys.exit("%s stopped after %.2f s of %.2f s" % (what, took, full))
PY

[ $fails = 0 ] && echo "two_connections: ok" || { echo "two_connections: $fails failure(s)"; exit 1; }
