#!/usr/bin/env python3
"""Query an hta-sqlite database from Python with the standard sqlite3 module.

    make demo                          # builds ./hta-ingest, ./hta.so and examples/demo.db
    python3 examples/python_example.py [DB] [EXTENSION]

DB defaults to examples/demo.db and EXTENSION to ./hta (SQLite adds .so/.dylib/.dll).
Needs a Python whose sqlite3 module can load extensions (enable_load_extension); the
python.org macOS installers and some distributions build it without that.
"""
import sqlite3
import sys


def table(cur, title):
    """Print the rows of CUR under TITLE, columns aligned."""
    cols = [d[0] for d in cur.description]
    rows = [[('%.2f' % v) if isinstance(v, float) else str(v) for v in r] for r in cur.fetchall()]
    width = [max([len(c)] + [len(r[i]) for r in rows]) for i, c in enumerate(cols)]
    print('\n' + title)
    print('  '.join(c.rjust(w) for c, w in zip(cols, width)))
    for r in rows:
        print('  '.join(v.rjust(w) for v, w in zip(r, width)))


def main(argv):
    path = argv[1] if len(argv) > 1 else 'examples/demo.db'
    ext = argv[2] if len(argv) > 2 else './hta'
    db = sqlite3.connect(path)
    if not hasattr(db, 'enable_load_extension'):
        sys.exit('%s: this Python was built without SQLite extension loading '
                 '(pyenv: PYTHON_CONFIGURE_OPTS=--enable-loadable-sqlite-extensions); '
                 'try /usr/bin/python3' % argv[0])
    db.enable_load_extension(True)
    db.load_extension(ext)
    db.enable_load_extension(False)
    print('hta', db.execute('SELECT hta_version()').fetchone()[0], 'on', path)

    # Where does each GPU spend its time? (HTA: get_temporal_breakdown)
    table(db.execute('SELECT rank, idle_time_pctg, compute_time_pctg, non_compute_time_pctg '
                     'FROM hta_temporal_breakdown'),
          'Temporal breakdown (% of the kernel span):')

    # Is communication hidden behind computation? (HTA: get_comm_comp_overlap)
    table(db.execute('SELECT rank, comp_comm_overlap_pctg FROM hta_comm_comp_overlap'),
          'Communication overlapped by computation (%):')

    # Parameters are hidden columns: pass them as arguments, or constrain them in WHERE.
    table(db.execute('SELECT rank, stream, idle_category, idle_time_us, idle_time_ratio '
                     'FROM hta_idle_time_breakdown(?) WHERE rank = ?', (30, 0)),
          'Idle time of rank 0 by cause:')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
