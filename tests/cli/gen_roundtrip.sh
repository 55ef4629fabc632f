#!/bin/sh
# Generated traces survive ingest exactly: tools/gen_trace.py writes small jobs in every
# flavour (integer µs / ns resolution, NVIDIA / AMD, plain / gzip, python frames), hta-ingest
# loads them without an ingest_issue, and the database holds what the JSON holds: event,
# flow, counter and thread rows, the sum of every ts and dur to the nanosecond (read with
# Decimal), ranks from distributedInfo, a partner for every GPU row, an iteration for every
# kernel. Also checks that the bundled example job is still what the generator makes.
# Skips (77) without python3.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
: "${HTA_INGEST:=$top/hta-ingest}" "${HTA_TMP:=$(mktemp -d)}"
command -v python3 >/dev/null || { echo "no python3"; exit 77; }
gen=$top/tools/gen_trace.py
work=$HTA_TMP/gen_roundtrip
rm -rf "$work"; mkdir -p "$work"
fail=0

# expect DIR: print the facts of DIR's JSON files, one "key|value" line each, sorted.
expect() {
  python3 - "$1" <<'EOF'
import decimal, glob, gzip, json, sys
D = decimal.Decimal
facts = {}
def add(k, v): facts[k] = facts.get(k, 0) + v
for path in sorted(glob.glob(sys.argv[1] + '/*.json*')):
    op = gzip.open if path.endswith('.gz') else open
    with op(path, 'rt', encoding='utf-8') as f:
        d = json.load(f, parse_float=D)
    add('files', 1)
    for e in d['traceEvents']:
        ph = e.get('ph')
        if ph in ('X', 'i'):
            add('events', 1)
            add('sum_ts', int(D(e['ts']) * 1000))
            add('sum_dur', int(D(e.get('dur', 0)) * 1000))
            if e.get('cat') in ('kernel', 'gpu_memcpy', 'gpu_memset'):
                add('gpu', 1)
        elif ph in ('s', 't', 'f'):
            add('flows', 1)
        elif ph == 'C':
            add('counters', sum(1 for v in e['args'].values() if isinstance(v, (int, D))))
        elif ph == 'M' and e['name'] in ('thread_name', 'process_name'):
            pass
    add('ranks', d['distributedInfo']['rank'] * 1000 + 1)
for k in sorted(facts):
    print('%s|%s' % (k, facts[k]))
EOF
}

# actual DB: the same facts from the database.
actual() {
  sqlite3 -batch "$1" "
    SELECT 'counters|' || count(*) FROM counter;
    SELECT 'events|' || count(*) FROM event;
    SELECT 'files|' || count(*) FROM trace;
    SELECT 'flows|' || count(*) FROM flow;
    SELECT 'gpu|' || count(*) FROM kernels;
    SELECT 'ranks|' || sum(rank * 1000 + 1) FROM trace WHERE rank_source = 'distributedInfo';
    SELECT 'sum_dur|' || sum(coalesce(dur, 0)) FROM event;
    SELECT 'sum_ts|' || sum(ts) FROM event;" | sort
}

check() {   # check NAME GEN-OPTIONS...
  name=$1; shift
  dir=$work/$name
  python3 "$gen" "$dir" -q --seed 7 "$@"
  db=$work/$name.db
  if ! "$HTA_INGEST" -q "$db" "$dir" >"$work/$name.log" 2>&1; then
    echo "FAIL $name: hta-ingest failed"; cat "$work/$name.log"; fail=1; return 0
  fi
  expect "$dir" | sort >"$work/$name.want"
  actual "$db" >"$work/$name.got"
  if ! diff "$work/$name.want" "$work/$name.got" >"$work/$name.diff"; then
    echo "FAIL $name: database differs from the JSON (< json, > db)"; cat "$work/$name.diff"; fail=1
  fi
  issues=$(sqlite3 -batch "$db" "SELECT group_concat(code || ': ' || message, '; ') FROM ingest_issue")
  [ -z "$issues" ] || { echo "FAIL $name: ingest issues: $issues"; fail=1; }
  bad=$(sqlite3 -batch "$db" "
    SELECT (SELECT count(*) FROM kernels WHERE link_id IS NULL)
         + (SELECT count(*) FROM kernels WHERE cat = 'kernel' AND iteration IS NULL)
         + (SELECT count(*) FROM kernels k JOIN event r ON r.event_id = k.link_id
            WHERE r.link_id IS NOT k.event_id OR r.correlation IS NOT k.correlation OR r.ts > k.ts)")
  [ "$bad" = 0 ] || { echo "FAIL $name: $bad GPU rows badly linked or without iteration"; fail=1; }
  return 0
}

check us_nvidia --ranks 2 --steps 2 --layers 1
check ns_nvidia_gz --ranks 3 --steps 2 --layers 1 --ns --gzip --python
check ns_amd --ranks 2 --steps 2 --layers 1 --ns --amd
check one_rank --ranks 1 --steps 3 --layers 1 --ns

# The committed example job is reproducible from its documented command line.
python3 "$gen" "$work/example" -q --ranks 2 --steps 4 --layers 4 --ns --gzip --gzip-level 9 --python
for f in "$top"/examples/traces/*; do
  b=$(basename "$f")
  if ! cmp -s "$f" "$work/example/$b"; then
    # zlib versions may compress differently: compare the JSON then.
    if ! python3 -c 'import gzip,sys; sys.exit(gzip.open(sys.argv[1]).read() != gzip.open(sys.argv[2]).read())' "$f" "$work/example/$b"; then
      echo "FAIL examples/traces/$b is not what tools/gen_trace.py makes (see examples/README.md)"; fail=1
    fi
  fi
done
exit $fail
