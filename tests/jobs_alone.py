#!/usr/bin/env python3
"""jobs_alone.py: every analysis of every job of a database that holds several jobs equals
the same job's database ingested alone, cell for cell (DESIGN 4: jobs are never mixed).

    python3 tests/jobs_alone.py HTA_EXT ALL.db NAME=ALONE.db [NAME=ALONE.db ...]

Each hta_* table-valued function of the default entry point runs in ALL.db with
WHERE job = NAME and in ALONE.db; the rows must be equal (as a multiset: two traces of one
rank come in trace_id order, which parallel ingest numbers either way). Ids that only number
rows of a database (trace_id, event ids) are compared by what they name: the trace's file
name, and for an event id its ordinal within its trace. Every function that takes a
required parameter gets one (frequent kernel sequences: each job's most common cpu_op).
Prints one line per job and "N functions x M jobs compared", exit 1 on any difference.
"""
import sqlite3
import sys

# Columns holding a database's own numbering, compared by what they name.
TRACE_COLS = {"trace_id", "control_trace_id", "test_trace_id"}


def is_event_col(name):
    return name == "event_id" or name.endswith("_event_id")


def connect(path, ext):
    db = sqlite3.connect(path)
    db.enable_load_extension(True)
    db.load_extension(ext)
    return db


def files(db):
    return {tid: name for tid, name in db.execute("SELECT trace_id, file_path FROM trace")}


def canon(rows, cols, tfiles):
    out = []
    for r in rows:
        c = []
        for name, v in zip(cols, r):
            if name in TRACE_COLS and v is not None:
                v = ("trace", tfiles.get(v))
            elif is_event_col(name) and isinstance(v, int):
                v = ("event", tfiles.get(v >> 32), v & 0xFFFFFFFF)
            elif name == "job":
                continue  # ALL.db says NAME, ALONE.db its own name for the same job
            c.append(v)
        out.append(tuple(c))
    return out


def functions(db):
    return [n for (n,) in db.execute(
        "SELECT name FROM pragma_module_list WHERE name LIKE 'hta%' ORDER BY name")]


def calls(fn, db, job):
    """The SQL that runs FN for JOB (None: the whole of a one-job database)."""
    where = "job = :job" if job is not None else "1"
    if fn == "hta_frequent_kernel_sequences":
        op = db.execute(
            "SELECT s.value FROM event e JOIN category c ON c.category_id = e.category_id"
            " JOIN string s ON s.string_id = e.name_id JOIN trace t ON t.trace_id = e.trace_id"
            " LEFT JOIN job j ON j.job_id = t.job_id"
            " WHERE c.name = 'cpu_op' AND (:job IS NULL OR j.name = :job)"
            " GROUP BY s.value ORDER BY count(*) DESC, s.value LIMIT 1", {"job": job}).fetchone()
        if not op:
            return None
        return ("SELECT * FROM %s WHERE operator_name = :op AND %s" % (fn, where),
                {"op": op[0], "job": job})
    if fn == "hta_trace_diff":
        if job is None:
            return ("SELECT * FROM hta_trace_diff", {})
        return ("SELECT * FROM hta_trace_diff WHERE control_job = :job AND test_job = :job",
                {"job": job})
    if fn in ("hta_job_diff", "hta_job_diff_summary"):  # two jobs: the job against itself
        if job is None:
            return ("SELECT * FROM %s" % fn, {})
        return ("SELECT * FROM %s(:job, :job)" % fn, {"job": job})
    return ("SELECT * FROM %s WHERE %s" % (fn, where), {"job": job})


def run(db, fn, job, tfiles):
    q = calls(fn, db, job)
    if q is None:
        return None, []
    cur = db.execute(q[0], q[1])
    cols = [d[0] for d in cur.description]
    return cols, canon(cur.fetchall(), cols, tfiles)


def main(argv):
    if len(argv) < 4:
        print(__doc__)
        return 2
    ext, all_path, pairs = argv[1], argv[2], [a.split("=", 1) for a in argv[3:]]
    both = connect(all_path, ext)
    fns = functions(both)
    fails = compared = 0
    nonempty = 0
    for name, alone_path in pairs:
        alone = connect(alone_path, ext)
        fa, fb = files(both), files(alone)
        bad = []
        for fn in fns:
            ca, ra = run(both, fn, name, fa)
            cb, rb = run(alone, fn, None, fb)
            compared += 1
            nonempty += bool(rb)
            # two traces of one rank (two profiling windows) come in trace_id order, which
            # parallel ingest may assign either way: rows are compared as a multiset
            if ca != cb or sorted(ra, key=repr) != sorted(rb, key=repr):
                bad.append("%s (%d rows vs %d alone)" % (fn, len(ra), len(rb)))
                for x, y in zip(ra, rb):
                    if x != y:
                        bad.append("  first difference: %r vs %r" % (x, y))
                        break
        print("job %s: %d functions, %s" % (name, len(fns), "equal" if not bad else
                                             "DIFFERENT: " + "; ".join(bad)))
        fails += len(bad) > 0
    print("%d functions x %d jobs compared (%d with rows), %d jobs different"
          % (len(fns), len(pairs), nonempty, fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
