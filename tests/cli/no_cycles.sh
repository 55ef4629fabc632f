#!/bin/sh
# No circles between files (STYLE: small files that stand on one another): the call graph
# of the built objects of ext/ and ingest/ (nm), the #include graph of their sources and
# the import graph of the Python packages, by tests/cli/no_cycles.py (NC-n). Every circle
# is printed with its files, the symbols or lines that tie them, and one cycle through it.
#
# First the checker must find the circles of a small tree made here (two C files that
# call each other, two headers that include each other, two modules that import each
# other, and one file of each kind that only uses them), and only those; then the real
# tree must have none.
#   sh tests/cli/no_cycles.sh        (HTA_BUILD: the build folder, default ./build)
# Exit 0 pass, 1 fail, 77 skip (no python3, nm or C compiler, or nothing built).
# not under the sanitizers (tests/run.sh): the circles between files are the same in every build; it ran in make test
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${HTA_BUILD:=$top/build}"
CC=${CC:-cc}
for t in python3 nm "$CC"; do
  command -v "$t" >/dev/null 2>&1 || { echo "skip: $t is not installed"; exit 77; }
done
work=$(mktemp -d) || exit 2
trap 'rm -rf "$work"' EXIT INT TERM
fails=0
fail() { echo "FAIL: $1"; fails=$((fails + 1)); }

# ---------------------------------------------------------------- the checker sees a circle
t=$work/tree
mkdir -p "$t/ext/a" "$t/ingest" "$t/python/pkg" "$t/build/core/ext/a" "$t/build/ingest"
printf 'int two(int);\nint one(int x) { return x > 0 ? two(x - 1) : 0; }\n' > "$t/ext/a/one.c"
printf 'int one(int);\nint two(int x) { return one(x); }\n' > "$t/ext/a/two.c"
printf 'int one(int);\nint three(void) { return one(3); }\n' > "$t/ingest/three.c"
printf '#include "y.h"\n' > "$t/ingest/x.h"
printf '#include "x.h"\n' > "$t/ingest/y.h"
printf '#include "x.h"\n#include "a/absent.h"\n' > "$t/ext/a/z.h"
: > "$t/python/pkg/__init__.py"
printf 'from . import m2\n' > "$t/python/pkg/m1.py"
printf 'def f():\n    from .m1 import g\n' > "$t/python/pkg/m2.py"
printf 'from pkg.m1 import m2\n' > "$t/python/pkg/m3.py"
for f in ext/a/one ext/a/two; do "$CC" -c "$t/$f.c" -o "$t/build/core/$f.o" || exit 2; done
"$CC" -c "$t/ingest/three.c" -o "$t/build/ingest/three.o" || exit 2
: > "$t/build/ingest/gone.o" # a stale object: its source is not in the tree
python3 "$here/no_cycles.py" "$t" "$t/build" > "$work/made.out" 2>&1
rc=$?
[ $rc = 1 ] || fail "the made-up tree: exit $rc, 1 expected"
for want in "call circle between 2 files: ext/a/one.c, ext/a/two.c" \
            "    ext/a/one.c -> ext/a/two.c: two" "    ext/a/two.c -> ext/a/one.c: one" \
            "include circle between 2 files: ingest/x.h, ingest/y.h" \
            "    ingest/x.h -> ingest/y.h: line 1: #include \"y.h\"" \
            "import circle between 2 files: python/pkg/m1.py, python/pkg/m2.py" \
            "    python/pkg/m2.py -> python/pkg/m1.py: line 2" "3 circles"; do
  grep -qxF "$want" "$work/made.out" || fail "the made-up tree: no line '$want'"
done
if grep -q 'three\|z\.h\|m3\.py\|gone' "$work/made.out"; then
  fail "the made-up tree: a file outside the circles is listed"
fi
[ $fails = 0 ] || sed 's/^/  | /' "$work/made.out"

# ---------------------------------------------------------------- the tree has none
python3 "$here/no_cycles.py" "$top" "$HTA_BUILD" > "$work/tree.out" 2>&1
rc=$?
if [ $rc = 77 ]; then
  cat "$work/tree.out"
  [ $fails = 0 ] && exit 77
elif [ $rc != 0 ]; then
  cat "$work/tree.out"
  fail "circles between files of ext/, ingest/ or python/ (above): one of each pair must stand below the other"
fi
[ $fails = 0 ] || exit 1
echo "ok: no call, include or import circle ($(tail -n 1 "$work/tree.out"))"
