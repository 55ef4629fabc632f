#!/usr/bin/env python3
"""db_canon.py: an hta-sqlite database as text with its ids replaced by what they mean,
so two databases of the same traces compare equal however their ids were numbered
(hta-ingest of a whole job vs shards merged with --merge, tests/cli/shards.sh).

    db_canon.py DB [HTA_SO]   > DB.txt

  * a trace is named by its file_name; trace_id columns become it
  * event_id, link_id, parent_id, counter_id, flow_id, profiler_step.event_id, and any
    analysis column ending in event_id become (file, ordinal) (id = trace_id << 32 | ordinal)
  * name_id, category_id become the text; job_id the job's name
  * issue_id, job.created_at and meta's times are left out (they name no content)
  * every table's rows are sorted; the schema (sqlite_schema) is printed as is
With HTA_SO, every hta_* table-valued function of its default entry point is run
(SELECT *, through the sqlite3 shell: Python's sqlite3 may not load extensions)
and its rows canonicalized the same way; REAL values are printed to 12 significant digits.
"""
import json
import sqlite3
import subprocess
import sys

# functions with a required argument: what to give them
ARGS = {'hta_frequent_kernel_sequences': "('AddmmBackward0')"}
ID_COLS = {'event_id', 'link_id', 'parent_id', 'counter_id', 'flow_id'}


def main():
    path = sys.argv[1]
    so = sys.argv[2] if len(sys.argv) > 2 else None
    db = sqlite3.connect(path)
    files = dict(db.execute('SELECT trace_id, file_name FROM trace'))
    strings = dict(db.execute('SELECT string_id, value FROM string'))
    cats = dict(db.execute('SELECT category_id, name FROM category'))
    jobs = dict(db.execute('SELECT job_id, name FROM job'))

    def ident(v):
        if v is None:
            return None
        return '%s#%d' % (files.get(v >> 32, '?%d' % (v >> 32)), v & 0xffffffff)

    def canon(table, cols, row):
        out = []
        for c, v in zip(cols, row):
            if c in ('issue_id',) or (table == 'job' and c in ('job_id', 'created_at')):
                continue
            if c in ID_COLS or c.endswith('event_id'):
                v = ident(v)
            elif c in ('trace_id', 'control_trace_id', 'test_trace_id'):
                v = files.get(v, v)
            elif c == 'name_id' and table != '_hta_column':
                v = strings.get(v, v)
            elif c == 'category_id':
                v = cats.get(v, v)
            elif c == 'job_id':
                v = jobs.get(v, v)
            elif c == 'string_id' or (table == 'category' and c == 'category_id'):
                continue
            elif isinstance(v, float):
                v = float('%.12g' % v)
            out.append(v)
        return out

    for typ, name, sql in db.execute("SELECT type, name, sql FROM sqlite_schema ORDER BY name"):
        print('schema', typ, name, sql)
    tables = [r[0] for r in db.execute(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
    for t in tables:
        cur = db.execute('SELECT * FROM "%s"' % t)
        cols = [d[0] for d in cur.description]
        rows = []
        for r in cur:
            if t == 'meta' and r[0] in ('created_at', 'updated_at'):
                continue
            if t in ('string', 'category'):
                rows.append([r[1]])
            else:
                rows.append(canon(t, cols, r))
        rows.sort(key=lambda r: json.dumps(r, default=str))
        print('table', t, len(rows), cols)
        for r in rows:
            print(' ', json.dumps(r, default=str))
    if not so:
        return
    names = subprocess.run(['sqlite3', ':memory:', '-cmd', '.load ' + so,
                            "SELECT name FROM pragma_module_list WHERE name LIKE 'hta\\_%' ESCAPE '\\' ORDER BY name"],
                           capture_output=True, text=True, check=True).stdout.split()
    for fn in names:
        q = 'SELECT * FROM %s%s' % (fn, ARGS.get(fn, ''))
        p = subprocess.run(['sqlite3', '-readonly', path, '-cmd', '.load ' + so, '-json', q],
                           capture_output=True, text=True)
        if p.returncode:
            print('analysis', fn, 'error', p.stderr.strip().replace(path, 'DB'))
            continue
        rows = json.loads(p.stdout) if p.stdout.strip() else []
        cols = list(rows[0].keys()) if rows else []
        out = sorted(json.dumps(canon(fn, cols, [r[c] for c in cols]), default=str) for r in rows)
        print('analysis', fn, len(out), cols)
        for r in out:
            print(' ', r)


if __name__ == '__main__':
    main()
