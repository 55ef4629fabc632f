#!/usr/bin/env python3
"""check_collectives.py DB EXT EXPECTED_DIR: compare hta_collectives, hta_collective_instances,
hta_collective_summary and hta_collective_ranks of DB (one job, ingested from the job's corpus
folder) with TraceLens's collectives_*.csv in EXPECTED_DIR, with the tolerances of the expected
README's collectives section (11.4). Prints one line per file and 'summary: ...'; exits 1 on any
difference.

Kernels are matched by (rank, ts): TraceLens indexes kernels without process group differently
(Unknown_Group, or 'all' in its simplified mode), so index_in_group is compared only for kernels
of a named process group. An expected instance is ours through its lowest rank's kernel. A
summary row (name, dtype, in_nelems) is compared when exactly one of our rows has that key (we
do not merge process groups: docs/deviations.md).
"""
import csv, io, math, subprocess, sys

db, ext, exp = sys.argv[1], sys.argv[2], sys.argv[3]
MIB = 1048576.0
errors = []


def query(sql):
    out = subprocess.run(['sqlite3', '-batch', '-header', '-csv', db, '-cmd', '.load ' + ext, sql],
                         check=True, capture_output=True, text=True).stdout
    return list(csv.DictReader(io.StringIO(out)))


def load(name):
    with open('%s/%s' % (exp, name), newline='') as f:
        return list(csv.DictReader(f))


def num(v):
    if v is None or v == '' or v.lower() == 'nan':
        return None
    return float(v)


def close(what, want, got, abs_tol, rel_tol=0.0):
    a, b = num(want), num(got) if not isinstance(got, float) else got
    if a is None and b is None:
        return
    if a is None or b is None or abs(a - b) > max(abs_tol, rel_tol * abs(a)):
        errors.append('%s: expected %r, got %r' % (what, want, got))


def same(what, want, got):
    if str(want) != str(got) and not (num_ok(want) and num_ok(got) and float(want) == float(got)):
        errors.append('%s: expected %r, got %r' % (what, want, got))


def num_ok(v):
    try:
        float(v)
        return True
    except (TypeError, ValueError):
        return False


REL = 1e-9
min_ns = int(query('SELECT min(min_ts) AS m FROM trace')[0]['m'])
ours = query('SELECT * FROM hta_collectives')
for r in ours:
    r['abs_us'] = (round(float(r['ts_us']) * 1000) + min_ns) / 1000.0
by_rank = {}
for r in ours:
    by_rank.setdefault(int(r['rank']), []).append(r)


def kernel(rank, ts):
    """Our kernel of RANK starting at TS (absolute µs, float)."""
    best = None
    for r in by_rank.get(rank, []):
        if abs(r['abs_us'] - ts) <= 2e-3 and (best is None or abs(r['abs_us'] - ts) < abs(best['abs_us'] - ts)):
            best = r
    return best


# ---------------------------------------------------------------- long
long_rows = load('collectives_long.csv')
if len(long_rows) != len(ours):
    errors.append('long: %d rows expected, %d ours' % (len(long_rows), len(ours)))
for e in long_rows:
    k = kernel(int(e['rank']), float(e['ts']))
    what = 'long rank %s ts %s' % (e['rank'], e['ts'])
    if k is None:
        errors.append(what + ': no kernel of ours')
        continue
    if e['Process Group Name'] not in ('Unknown_Group', 'all'):
        same(what + ' pg', e['Process Group Name'], k['pg_name'])
        same(what + ' index', e['index_in_group'], k['index_in_group'])
    for col, ourcol in (('Collective name', 'collective_name'), ('dtype', 'dtype'),
                        ('Process Group Ranks', 'pg_ranks'), ('stream', 'stream')):
        if e[col] not in ('', 'nan'):
            same('%s %s' % (what, col), e[col], k[ourcol])
    for col, ourcol in (('Group size', 'group_size'), ('In msg nelems', 'in_nelems'),
                        ('Out msg nelems', 'out_nelems')):
        close('%s %s' % (what, col), e[col], k[ourcol], 0)
    for col, ourcol in (('In msg size (MB)', 'in_bytes'), ('Out msg size (MB)', 'out_bytes')):
        got = float(k[ourcol]) / MIB if k[ourcol] != '' else None
        close('%s %s' % (what, col), e[col], got, 1e-9, REL)
    close(what + ' ts', e['ts'], k['abs_us'], 1e-6)
    close(what + ' dur', e['dur'], k['dur_us'], 1e-6)
print('collectives long: %d rows' % len(long_rows))

# ---------------------------------------------------------------- instances
inst = {(r['pg_name'], r['stream'] if r['pg_name'] == '' else '', r['index_in_group']): r
        for r in query('SELECT * FROM hta_collective_instances(1)')}
kept = query('SELECT count(*) AS n FROM hta_collective_instances')[0]['n']
rows = load('collectives_implicit_sync.csv')
if len(rows) != int(kept):
    errors.append('instances: %d rows expected, %d ours' % (len(rows), int(kept)))
for e in rows:
    ranks = sorted(int(c[5:-3]) for c in e if c.startswith('rank_') and c.endswith('_ts') and e[c] not in ('', 'nan'))
    what = 'instance %s' % e['collective_id']
    k = kernel(ranks[0], float(e['rank_%d_ts' % ranks[0]])) if ranks else None
    if k is None:
        errors.append(what + ': no kernel of ours')
        continue
    o = inst.get((k['pg_name'], k['stream'] if k['pg_name'] == '' else '', k['index_in_group']))
    if o is None:
        errors.append(what + ': no instance of ours')
        continue
    same(what + ' ranks', len(ranks), o['ranks_present'])
    same(what + ' name', e['Collective name'], o['collective_name'])
    close(what + ' latency', e['comm_latency'], o['comm_latency_us'], 1e-6)
    close(what + ' start skew', e['skew in start time'], o['start_skew_us'], 1e-3)
    close(what + ' end skew', e['skew in end time'], o['end_skew_us'], 1e-3)
    close(what + ' avg wait', e['avg_wait_time'], o['avg_wait_us'], 1e-3)
    same(what + ' earliest rank', e['earliest arrival rank'], o['first_rank'])
    got = float(o['msg_bytes']) / MIB if o['msg_bytes'] != '' else None
    close(what + ' full size', e['Full msg size (MB)'], got, 1e-9, REL)
    close(what + ' algbw', e['algo bw (GB/s)'], o['algbw_gibps'], 1e-9, REL)
    close(what + ' busbw', e['bus bw (GB/s)'], o['busbw_gibps'], 1e-9, REL)
    for r in ranks:  # each rank's wait against its kernel's wait_us
        kr = kernel(r, float(e['rank_%d_ts' % r]))
        if kr is None:
            errors.append('%s rank %d: no kernel of ours' % (what, r))
        else:
            close('%s rank %d wait' % (what, r), e['rank_%d_wait_time' % r], kr['wait_us'], 1e-3)
print('collective instances: %d rows' % len(rows))

# ---------------------------------------------------------------- summary
summ = query('SELECT * FROM hta_collective_summary')
rows = load('collectives_summary.csv')
STATS = (('comm_latency', 'latency_us', 1e-6), ('skew in start time', 'start_skew_us', 1e-3),
         ('skew in end time', 'end_skew_us', 1e-3), ('algo bw (GB/s)', 'algbw_gibps', 1e-9),
         ('bus bw (GB/s)', 'busbw_gibps', 1e-9))
merged = 0
for e in rows:
    key = (e['Collective name'], e['dtype'], e['In msg nelems'])
    what = 'summary %s' % (key,)
    mine = [s for s in summ if (s['collective_name'] or 'Unknown', s['dtype'] or 'Unknown',
                                s['in_nelems'] or 'Unknown') == key or
            (s['collective_name'], s['dtype']) == key[:2] and num_ok(s['in_nelems']) and num_ok(key[2])
            and float(s['in_nelems']) == float(key[2])]
    if len(mine) != 1:
        if len(mine) > 1:
            merged += 1
            continue
        errors.append(what + ': %d rows of ours' % len(mine))
        continue
    s = mine[0]
    same(what + ' count', e['count'], s['count'])
    close(what + ' total', e['Total comm latency (ms)'], float(s['total_latency_us']) / 1000, 1e-9, REL)
    for tl, us, tol in STATS:
        for st in ('mean', 'std', 'median', 'min', 'max'):
            col = '%s_%s' % (tl, st)
            if col in e:
                close('%s %s' % (what, col), e[col], s['%s_%s' % (us, st)], tol, REL)
print('collective summary: %d rows (%d merged by TraceLens across process groups, not compared)' % (len(rows), merged))

# ---------------------------------------------------------------- ranks
rk = {r['rank']: r for r in query('SELECT * FROM hta_collective_ranks')}
rows = load('collectives_straggler_summary.csv')
for e in rows:
    what = 'rank %s' % e['rank']
    o = rk.get(e['rank'])
    if o is None:
        errors.append(what + ': no row of ours')
        continue
    for col, ourcol in (('total_wait_time_us', 'total_wait_us'), ('mean_wait_time_us', 'mean_wait_us'),
                        ('pct_arrived_last', 'pct_arrived_last'), ('total_nccl_dur_us', 'total_collective_dur_us')):
        close('%s %s' % (what, col), e[col], o[ourcol], 0.05 + 1e-9)
    for col in ('times_arrived_last', 'times_arrived_first', 'num_collectives'):
        same('%s %s' % (what, col), e[col], o[col])
print('collective ranks: %d rows' % len(rows))

for m in errors[:40]:
    print('DIFF ' + m)
print('summary: %s: %d differences' % (exp.rstrip('/').split('/')[-1], len(errors)))
sys.exit(1 if errors else 0)
