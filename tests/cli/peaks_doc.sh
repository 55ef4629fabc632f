#!/bin/sh
# docs/peaks.md lists every seeded row of device_peak and device_model, with its source:
# its generated part is exactly what tools/peaks_md.py prints for schema/schema.sql.
#   python3 tools/peaks_md.py schema/schema.sql    prints the part to paste between the markers
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
command -v python3 >/dev/null 2>&1 || { echo "skip: no python3"; exit 77; }
want=$(python3 "$top/tools/peaks_md.py" "$top/schema/schema.sql") || { echo "FAIL: peaks_md.py"; exit 1; }
got=$(sed -n '/^<!-- BEGIN generated/,/^<!-- END generated/p' "$top/docs/peaks.md" | sed '1d;$d')
if [ "$want" != "$got" ]; then
  echo "FAIL: docs/peaks.md is stale: regenerate its rows with tools/peaks_md.py"
  d=$(mktemp -d) && printf '%s\n' "$want" > "$d/want" && printf '%s\n' "$got" > "$d/got" \
    && diff "$d/got" "$d/want" | head -n 10; rm -rf "$d"
  exit 1
fi
n=$(printf '%s\n' "$want" | grep -c '^| `')
echo "peaks_doc: docs/peaks.md lists the $n seeded rows"
