#!/bin/sh
# Builds the hta-sqlite wheel offline (no build isolation, no downloads), with Debian's
# python3-setuptools and python3-wheel, from a staging copy of python/ (the source tree is
# left untouched) with the built binaries, VERSION and the canned queries copied in.
#   sh python/build_wheel.sh OUTDIR [HTA_INGEST HTA_EXT]     (make wheel: OUTDIR dist)
# env: PYTHON (default /usr/bin/python3 when it exists, else python3).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
out=$1
ingest=${2:-$top/hta-ingest} ext=${3:-$top/hta.so}
if [ -z "${PYTHON:-}" ]; then
  if [ -x /usr/bin/python3 ]; then PYTHON=/usr/bin/python3; else PYTHON=python3; fi
fi
for f in "$ingest" "$ext"; do
  [ -f "$f" ] || { echo "build_wheel.sh: $f is missing: run make first" >&2; exit 2; }
done
"$PYTHON" -c "import setuptools, wheel" 2>/dev/null ||
  { echo "build_wheel.sh: $PYTHON lacks setuptools or wheel (apt-get install python3-setuptools python3-wheel)" >&2; exit 2; }
stage=$(mktemp -d) && trap 'rm -rf "$stage"' EXIT INT TERM
cp -R "$here/." "$stage/"
rm -rf "$stage/build" "$stage"/*.egg-info "$stage"/*/__pycache__
cp "$ingest" "$stage/hta_sqlite/hta-ingest"
cp "$ext" "$stage/hta_sqlite/hta.so"
chmod 755 "$stage/hta_sqlite/hta-ingest" "$stage/hta_sqlite/hta.so"
cp "$top/VERSION" "$stage/hta_sqlite/VERSION"
cp "$top/examples/datasette/queries.sql" "$stage/datasette_hta/queries.sql"
mkdir -p "$out"
out=$(cd "$out" && pwd)
if "$PYTHON" -m pip --version >/dev/null 2>&1; then
  (cd "$stage" && "$PYTHON" -m pip wheel -q --no-build-isolation --no-deps --no-index -w "$out" .)
else
  # No pip: setuptools' own bdist_wheel (python3-wheel provides it).
  (cd "$stage" && "$PYTHON" setup.py -q bdist_wheel -d "$out" >/dev/null)
fi
ls "$out"/hta_sqlite-*.whl
