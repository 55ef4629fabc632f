#!/bin/sh
# docs/sql.md documents exactly what hta.so registers: the `### hta_...` headings
# against the hta_* names of pragma_function_list and pragma_module_list, both
# ways; the names only the io entry point (sqlite3_hta_io_init) registers are
# documented under its section ("## File I/O"), the others before it.
# Also: every table of the schema has its entry in docs/schema.md, and every
# deviation D1-D15 of DESIGN.md has its section in docs/deviations.md.
#   sh tests/cli/docs_list.sh          the check (run by tests/run.sh; works in a scratch directory)
#   sh tests/cli/docs_list.sh update   rewrite the example outputs of docs/sql.md
# env: HTA_EXT (absolute path of hta.so), HTA_INGEST.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${HTA_EXT:=$top/hta.so}" "${HTA_INGEST:=$top/hta-ingest}"
mode=${1:-check}
scratch=$(mktemp -d) || exit 2
trap 'rm -rf "$scratch"' EXIT INT TERM
cd "$scratch" || exit 2
doc="$top/docs/sql.md"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
[ -f "$doc" ] || { echo "FAIL: no docs/sql.md"; exit 1; }

names() { # names ENTRY_POINT_ARGS: the registered hta_* names, sorted
  sqlite3 :memory: -cmd ".load $HTA_EXT $1" \
    "SELECT name FROM pragma_function_list WHERE name LIKE 'hta%'
     UNION SELECT name FROM pragma_module_list WHERE name LIKE 'hta%'" | sort -u
}
names "" > default.txt || { echo "FAIL: cannot load $HTA_EXT"; exit 1; }
names sqlite3_hta_io_init > all.txt || { echo "FAIL: cannot load the io entry point"; exit 1; }
comm -13 default.txt all.txt > io_only.txt
[ -s default.txt ] || fail "the extension registers nothing"

# the headings, and which of them come after the io section starts
awk '/^## File I\/O/ { io = 1 }
     /^### `?hta_[a-z0-9_]+/ { match($0, /hta_[a-z0-9_]+/); print substr($0, RSTART, RLENGTH), (io ? "io" : "default") }' \
  "$doc" > headings.txt
cut -d' ' -f1 headings.txt | sort > doc_names.txt
dups=$(uniq -d doc_names.txt)
[ -z "$dups" ] || fail "documented twice: $dups"
sort -u doc_names.txt -o doc_names.txt

missing=$(comm -23 all.txt doc_names.txt)
[ -z "$missing" ] || fail "registered but not in docs/sql.md: $(echo $missing)"
extra=$(comm -13 all.txt doc_names.txt)
[ -z "$extra" ] || fail "in docs/sql.md but not registered: $(echo $extra)"
while read -r name where; do
  if grep -qx "$name" io_only.txt; then
    [ "$where" = io ] || fail "$name (io entry point only) is documented outside the File I/O section"
  elif [ "$where" = io ]; then
    fail "$name (default entry point) is documented in the File I/O section"
  fi
done < headings.txt

# Every ```sql example of docs/sql.md followed by a ```text block still prints that
# text (sqlite3 -box, io entry point, on the demo database, in a scratch directory
# that sees examples/, serve.db (the inference example, for `ATTACH 'serve.db' AS serve`)
# and graph.db (the graph replay example); an example whose first line is "-- on
# examples/recorded_h200" on that job's database instead: its traces were recorded with
# nn.Module events); `docs_list.sh update` rewrites the outputs instead.
if command -v python3 >/dev/null 2>&1; then
  "$HTA_INGEST" -q -j 1 demo.db "$top/examples/traces" || fail "ingest of the demo traces"
  # the inference server's example (tools/gen_inference_trace.py), ATTACHed as serve
  "$HTA_INGEST" -q -j 1 serve.db "$top/examples/inference" || fail "ingest of the inference example"
  # the graph replay examples ATTACH it (examples/graph_replay: a replay and its capture)
  "$HTA_INGEST" -q -j 1 graph.db "$top/examples/graph_replay" || fail "ingest of the graph example"
  "$HTA_INGEST" -q -j 1 recorded.db "$top/examples/recorded_h200" || fail "ingest of examples/recorded_h200"
  ln -sf "$top/examples" examples
  python3 - "$doc" "$HTA_EXT" "$mode" <<'PY' || fails=$((fails + 1))
import subprocess, sys
doc, ext, mode = sys.argv[1], sys.argv[2], sys.argv[3]
lines = open(doc, encoding="utf-8").read().split("\n")
out, i, n, stale = [], 0, 0, []
while i < len(lines):
    out.append(lines[i])
    if lines[i] != "```sql":
        i += 1; continue
    j = lines.index("```", i + 1)
    sql = "\n".join(lines[i + 1:j])
    out.extend(lines[i + 1:j + 1]); i = j + 1
    if i < len(lines) and lines[i] == "```text":
        k = lines.index("```", i + 1)
        db = "recorded.db" if sql.startswith("-- on examples/recorded_h200") else "demo.db"
        r = subprocess.run(["sqlite3", "-box", "-bail", db, "-cmd", ".load %s sqlite3_hta_io_init" % ext],
                           input=sql + "\n", capture_output=True, text=True)
        got = (r.stdout + r.stderr).rstrip("\n").split("\n")
        n += 1
        if got != lines[i + 1:k]: stale.append(sql.split("\n")[0])
        out.append("```text"); out.extend(got if mode == "update" else lines[i + 1:k]); out.append("```")
        i = k + 1
if mode == "update":
    open(doc, "w", encoding="utf-8").write("\n".join(out))
    print("docs/sql.md: %d example outputs, %d rewritten" % (n, len(stale)))
else:
    for s in stale: print("FAIL: docs/sql.md example prints something else now: %s" % s)
    print("docs/sql.md: %d examples checked" % n)
    sys.exit(1 if stale else 0)
PY
fi

# docs/schema.md: a section per table and view
sqlite3 schema.db < "$top/schema/schema.sql"
for t in $(sqlite3 schema.db "SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%'"); do
  grep -q "^### \`$t\`\$" "$top/docs/schema.md" || fail "docs/schema.md has no section for $t"
done
# docs/deviations.md: D1-D15
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do
  grep -q "^## D$i[ .:]" "$top/docs/deviations.md" || fail "docs/deviations.md has no section D$i"
done

[ $fails = 0 ] && echo "ok: docs/sql.md lists the $(wc -l < all.txt) registered names ($(wc -l < io_only.txt) io only)"
[ $fails = 0 ]
