#!/bin/sh
# Runs every test: C unit tests, SQL tests, CLI golden tests, and the corpus
# checks when ../shared exists. Prints "N passed, N failed" last; exit 1 on failure.
#   HTA_INGEST, HTA_EXT, HTA_BUILD come from the Makefile; HTA_VALGRIND=1 runs the
#   C tests and the CLI under valgrind; HTA_SHARED overrides ../shared; HTA_TEST_TIMES=FILE
#   appends "seconds name" per test to FILE (what CI's 30 minutes go to); HTA_CORPUS_CHECKS
#   ("name ...") runs only those corpus checks (CI's sanitizer step: the others ran in step 1).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
: "${HTA_INGEST:=$top/hta-ingest}" "${HTA_EXT:=$top/hta.so}" "${HTA_BUILD:=$top/build}"
: "${HTA_SHARED:=$top/../shared}"
export HTA_INGEST HTA_EXT HTA_BUILD HTA_SHARED
pass=0 fail=0 skip=0
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
export HTA_TMP="$tmp"

# An ASan-built extension loaded into the system sqlite3 or python3 needs the runtime
# preloaded: those two run through wrappers that preload it (their children inherit it).
# Not exported to every process: the runtime's start costs each of the tests' thousands of
# sh, sed and awk processes about 17 ms (minutes of CI's ASan step).
asan=0
if nm -D "$HTA_EXT" 2>/dev/null | grep -q __asan_init; then
  asan_lib=$(${CC:-cc} -print-file-name=libasan.so)
  ASAN_OPTIONS=detect_leaks=0; export ASAN_OPTIONS
  mkdir -p "$tmp/asan-bin"
  preload() { # preload NAME PROGRAM: $tmp/asan-bin/NAME runs PROGRAM with the runtime
    printf '#!/bin/sh\nLD_PRELOAD=%s exec %s "$@"\n' "$asan_lib" "$2" > "$tmp/asan-bin/$1"
    chmod +x "$tmp/asan-bin/$1"
  }
  real=$(command -v sqlite3) && preload sqlite3 "$real"
  # python3 is the tests' own Python (HTA_PYTHON, else Debian's, whose sqlite3 loads
  # extensions: a script that finds that python3 cannot would try /usr/bin/python3 itself)
  py=${HTA_PYTHON:-/usr/bin/python3}
  [ -x "$py" ] || py=$(command -v python3) || py=""
  if [ -n "$py" ]; then
    preload python3 "$py"
    HTA_PYTHON=$tmp/asan-bin/python3; export HTA_PYTHON
  fi
  PATH=$tmp/asan-bin:$PATH; export PATH
  asan=1
fi
VG=""
if [ "${HTA_VALGRIND:-0}" = 1 ]; then
  VG="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect"
fi
export VG

t0=$(date +%s)
took() { [ -n "${HTA_TEST_TIMES:-}" ] && echo "$(($(date +%s) - t0)) $1" >> "$HTA_TEST_TIMES"; t0=$(date +%s); }
ok()   { took "$1"; pass=$((pass + 1)); [ "${HTA_VERBOSE:-0}" = 1 ] && echo "ok   $1"; return 0; }
bad()  { took "$1"; fail=$((fail + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && sed 's/^/     /' "$2" | tail -n 30; return 0; }

# 1. C unit tests: each binary prints its own failures and exits non-zero on any.
for t in "$HTA_BUILD"/tests/test_*; do
  [ -x "$t" ] || continue
  n=$(basename "$t")
  if (cd "$tmp" && $VG "$t") >"$tmp/out" 2>&1; then ok "$n"; else bad "$n" "$tmp/out"; fi
done

# 2. SQL tests (sqlean style): each tests/sql/NAME.sql runs on a fresh database holding
#    the schema; every output line is "label|1" (a line ending in anything else fails).
for f in tests/sql/*.sql; do
  [ -f "$f" ] || continue
  n=$(basename "$f" .sql)
  db="$tmp/$n.db"; rm -f "$db"
  sqlite3 "$db" < schema/schema.sql
  if (cd "$tmp" && sqlite3 -bail -batch "$db" -cmd ".load $HTA_EXT" < "$top/$f") >"$tmp/out" 2>&1 \
     && [ -s "$tmp/out" ] && ! grep -qv '|1$' "$tmp/out"; then
    ok "sql/$n ($(wc -l < "$tmp/out") checks)"
  else
    grep -v '|1$' "$tmp/out" > "$tmp/bad"; bad "sql/$n" "$tmp/bad"
  fi
done

# 3. CLI and integration scripts: tests/cli/NAME.sh exits 0 to pass, 77 to skip. Under
#    valgrind only those that run a binary through $VG: the others ran without it already
#    (make test, make test-asan) and would only repeat themselves.
for f in tests/cli/*.sh; do
  [ -f "$f" ] || continue
  n=$(basename "$f" .sh)
  if [ -n "$VG" ] && ! grep -q 'VG' "$f"; then skip=$((skip + 1)); continue; fi
  # a script marked "# not under the sanitizers" checks what no sanitizer sees (the build's
  # call graph, packaging, Chromium's rendering), or code a smaller test runs under them: it
  # ran in make test already
  if [ $asan = 1 ] && grep -q '^# not under the sanitizers' "$f"; then skip=$((skip + 1)); continue; fi
  (cd "$tmp" && sh "$top/$f") >"$tmp/out" 2>&1; rc=$?
  if [ $rc = 0 ]; then ok "cli/$n"
  elif [ $rc = 77 ]; then took "cli/$n"; skip=$((skip + 1)); echo "skip cli/$n: $(tail -n 1 "$tmp/out")"
  else bad "cli/$n" "$tmp/out"; fi
done

# 4. Corpus checks against ../shared (skipped when it is absent).
for f in tests/corpus/*.sh; do
  [ -f "$f" ] || continue
  n=$(basename "$f" .sh)
  if [ ! -d "$HTA_SHARED/corpus" ]; then skip=$((skip + 1)); echo "skip corpus/$n: no $HTA_SHARED/corpus"; continue; fi
  case " ${HTA_CORPUS_CHECKS:-$n} " in
    *" $n "*) ;;
    *) skip=$((skip + 1)); echo "skip corpus/$n: not in HTA_CORPUS_CHECKS"; continue ;;
  esac
  (cd "$tmp" && sh "$top/$f") >"$tmp/out" 2>&1; rc=$?
  if [ $rc = 0 ]; then ok "corpus/$n"; grep '^summary:' "$tmp/out"
  elif [ $rc = 77 ]; then skip=$((skip + 1)); echo "skip corpus/$n: $(tail -n 1 "$tmp/out")"
  else bad "corpus/$n" "$tmp/out"; fi
done

echo "$pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
