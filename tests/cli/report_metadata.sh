#!/bin/sh
# The column descriptions (ingest/coldocs.c) and what is made from them:
#  1. hr_write_column_docs() describes every table, view and column of the schema,
#     in schema order, and nothing else (CD-1); running it twice changes nothing (CD-3).
#  2. When hta-ingest writes _hta_column, it is exactly that list.
#  3. examples/datasette/metadata.yml is what `datasette.sh metadata` makes for the
#     demo database, and the generated part of docs/schema.md what `schema-md` makes.
#  4. Every canned query of examples/datasette/queries.sql runs through the sqlite3
#     shell with the extension, its parameters empty (Datasette's '' = the defaults)
#     and set to text values (as Datasette passes them), job set to each of the demo's two
#     jobs, and returns rows on the demo (with some job); job=nope is an error that says
#     what job must be, in every query that takes a job.
# Starts no server: `make datasette-check` runs the queries through Datasette itself.
# Works in a scratch directory of its own. env: HTA_INGEST, HTA_EXT, HTA_BUILD (the objects), CC.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${HTA_INGEST:=$top/hta-ingest}" "${HTA_EXT:=$top/hta.so}" "${HTA_BUILD:=$top/build}" "${CC:=cc}"
ds="$top/examples/datasette"
work=$(mktemp -d) || exit 2
trap 'rm -rf "$work"' EXIT INT TERM
cd "$work" || exit 2
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# A two-line program around hr_write_column_docs (ingest/coldocs.o of the build).
[ -f "$HTA_BUILD/ingest/coldocs.o" ] || { echo "skip: no $HTA_BUILD/ingest/coldocs.o (run make)"; exit 77; }
cat > writedocs.c <<'C'
#include <stdio.h>
#include "coldocs.h"
int main(int argc, char **argv) {
  sqlite3 *db;
  if (argc != 2 || sqlite3_open(argv[1], &db) != SQLITE_OK) return 2;
  for (int i = 0; i < 2; i++) { /* twice: idempotent (CD-3) */
    int rc = hr_write_column_docs(db);
    if (rc != SQLITE_OK) { fprintf(stderr, "hr_write_column_docs: %s\n", sqlite3_errstr(rc)); return 1; }
  }
  return sqlite3_close(db) == SQLITE_OK ? 0 : 1;
}
C
san=""  # an object of the sanitizer build (make test-asan) links with its runtime
nm "$HTA_BUILD/ingest/coldocs.o" 2>/dev/null | grep -q __asan && san="-fsanitize=address,undefined"
$CC $san -I"$top/ingest" writedocs.c "$HTA_BUILD/ingest/coldocs.o" -lsqlite3 -o writedocs \
  || { echo "FAIL: cannot build the helper"; exit 1; }

# 1. coverage and order on the schema alone
sqlite3 schema.db < "$top/schema/schema.sql"
./writedocs schema.db || fail "hr_write_column_docs"
problems=$(sqlite3 schema.db "
  WITH obj AS (SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%'),
  cols AS (SELECT name AS t, '' AS c, -1 AS cid FROM obj
           UNION ALL SELECT obj.name, p.name, p.cid FROM obj, pragma_table_info(obj.name) p),
  docs AS (SELECT table_name AS t, column_name AS c,
                  row_number() OVER (PARTITION BY table_name ORDER BY rowid) - 2 AS pos FROM _hta_column)
  SELECT 'undocumented: ' || t || '.' || c FROM cols WHERE NOT EXISTS (SELECT 1 FROM docs d WHERE d.t = cols.t AND d.c = cols.c)
  UNION ALL SELECT 'not in the schema: ' || t || '.' || c FROM docs WHERE NOT EXISTS (SELECT 1 FROM cols WHERE cols.t = docs.t AND cols.c = docs.c)
  UNION ALL SELECT 'out of order: ' || t || '.' || c FROM docs JOIN cols USING (t, c) WHERE docs.pos <> cols.cid
  UNION ALL SELECT 'empty description: ' || table_name || '.' || column_name FROM _hta_column WHERE length(description) < 3")
[ -z "$problems" ] || fail "column docs: $(echo "$problems" | head -n 10)"
sqlite3 schema.db "SELECT table_name, column_name, description FROM _hta_column ORDER BY rowid" > docs.txt
./writedocs schema.db && sqlite3 schema.db "SELECT table_name, column_name, description FROM _hta_column ORDER BY rowid" > docs2.txt
cmp -s docs.txt docs2.txt || fail "hr_write_column_docs is not idempotent"

# 2. the demo database, with _hta_column from hta-ingest when it writes one
"$HTA_INGEST" -q demo.db "$top/examples/traces" "$top/examples/recorded_h200" || { echo "FAIL: ingest"; exit 1; }
if [ "$(sqlite3 demo.db "SELECT count(*) FROM sqlite_schema WHERE name = '_hta_column'")" = 1 ]; then
  sqlite3 demo.db "SELECT table_name, column_name, description FROM _hta_column ORDER BY rowid" > ingest_docs.txt
  cmp -s docs.txt ingest_docs.txt || fail "hta-ingest's _hta_column differs from hr_write_column_docs()"
else
  echo "note: hta-ingest does not write _hta_column yet: the helper writes it"
  ./writedocs demo.db || fail "hr_write_column_docs on the demo database"
fi

# 3. the generated files are current
sh "$ds/datasette.sh" metadata demo.db demo > metadata.yml || fail "datasette.sh metadata"
if ! cmp -s metadata.yml "$ds/metadata.yml"; then
  fail "examples/datasette/metadata.yml is stale: regenerate it with
      sh examples/datasette/datasette.sh metadata examples/demo.db > examples/datasette/metadata.yml"
  diff "$ds/metadata.yml" metadata.yml | head -n 10
fi
grep -q '^      "_hta_column":$' metadata.yml && grep -A 1 '^      "_hta_column":$' metadata.yml | grep -q 'hidden: true' \
  || fail "_hta_column is not hidden in the metadata"
sh "$ds/datasette.sh" schema-md demo.db > schema_md.txt || fail "datasette.sh schema-md"
sed -n '/^<!-- BEGIN generated/,/^<!-- END generated/p' "$top/docs/schema.md" | sed '1d;$d' > schema_doc.txt
if ! cmp -s schema_md.txt schema_doc.txt; then
  fail "the generated part of docs/schema.md is stale (datasette.sh schema-md)"
  diff schema_doc.txt schema_md.txt | head -n 10
fi

# 4. every canned query, with its parameters empty and set
awk -v dir=. '
  /^-- name: / { name = substr($0, 10); next }
  name != "" && /^SELECT|^WITH/ { file = dir "/q_" name ".sql"; insql = 1 }
  insql { print > file; if ($0 ~ /;[ \t]*$/) { insql = 0; name = ""; close(file) } }
' "$ds/queries.sql"
nq=0
for f in q_*.sql; do
  nq=$((nq + 1))
  q=${f#q_}; q=${q%.sql}
  setrows=0
  for mode in empty traces recorded_h200 nope; do
    {
      for p in $(grep -o ':[a-z_]*' "$f" | sort -u); do
        v="''"
        if [ $mode != empty ]; then
          case $p in
            :job) v="'$mode'" ;;
            :rank|:control_rank|:test_rank) v="'0'" ;;
            :operator_name) v="'AddmmBackward0'" ;;
            :control_iteration) v="'5'" ;; :test_iteration) v="'6'" ;;
            :duration_ratio) v="'0.9'" ;; :num_kernels) v="'5'" ;; :limit) v="'3'" ;;
            :consecutive_kernel_delay_us) v="'10'" ;; :runtime_cutoff_us) v="'20'" ;;
            :launch_delay_cutoff_us) v="'50'" ;; :max_queue_length) v="'4'" ;; :num_candidates) v="'1'" ;;
            :annotation) v="'ProfilerStep'" ;; :group_by) v="'name'" ;;
            *) v="'1'" ;;
          esac
        fi
        echo ".parameter set $p $v"
      done
      cat "$f"
    } > run.sql
    if [ $mode = nope ]; then
      grep -q ':job' "$f" || continue
      if sqlite3 -bail -batch demo.db -cmd ".load $HTA_EXT" < run.sql > out.txt 2>&1; then
        fail "canned query $q: job=nope is no error"
      elif ! grep -q "job must be the name of a job of this database.*not nope" out.txt; then
        fail "canned query $q: job=nope: $(head -n 3 out.txt)"
      fi
    elif ! sqlite3 -bail -batch demo.db -cmd ".load $HTA_EXT" < run.sql > out.txt 2>&1; then
      fail "canned query $q ($mode parameters): $(head -n 3 out.txt)"
    elif [ $mode = empty ]; then
      [ -s out.txt ] || [ "$q" = cupti_counters ] || [ "$q" = queue_full_time ] \
        || fail "canned query $q (empty parameters) returns no rows on the demo"
    elif [ -s out.txt ]; then
      setrows=1
      # a job given: that job's rows only (the job column is the last of the analyses')
      if grep -q ':job' "$f" && grep -v "|$mode\$" out.txt | grep -q "|traces$\||recorded_h200$"; then
        fail "canned query $q (job=$mode): rows of another job: $(grep -v "|$mode\$" out.txt | head -n 2)"
      fi
    fi
  done
  [ $setrows = 1 ] || [ "$q" = cupti_counters ] || [ "$q" = queue_full_time ] \
    || fail "canned query $q (parameters set) returns no rows on the demo for either job"
done
grep -q '^-- name: jobs$' "$ds/queries.sql" || fail "no canned query jobs"
[ "$nq" -ge 20 ] || fail "only $nq canned queries"
[ "$(grep -c '^      [a-z_]*:$' "$ds/metadata.yml")" -ge "$nq" ] || fail "metadata.yml lacks canned queries"

[ $fails = 0 ] && echo "ok: column docs, metadata, $nq canned queries"
[ $fails = 0 ]
