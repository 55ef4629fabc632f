"""The trace cache behind hta_sqlite.trace_analysis and hta_sqlite.trace_diff.

A TraceAnalysis(trace_dir=...) ingests the directory's trace files once into a database
in the cache directory and reuses it while the files are unchanged.

Requirements (tests cite them as CACHE-n):
  CACHE-1  The files are the ones HTA reads: the entries of trace_dir whose names end in
           .gz or .json (not recursive), or the given trace_files (a {rank: path} dict, or
           a list of paths), relative paths joined to trace_dir as HTA joins them; a listed
           file that is missing, unreadable or not .gz/.json is ValueError("Trace files
           validation failed.").
  CACHE-2  One database per set of file contents: its name is a digest of the files'
           content hashes (sha256), the ranks a dict gave, the rounding mode and the
           package version. A file's hash is computed once per (path, size, mtime, inode)
           and remembered in index.db, so a current cache costs a few stat() calls.
  CACHE-3  The directory is $HTA_SQLITE_CACHE, else $XDG_CACHE_HOME/hta-sqlite, else
           ~/.cache/hta-sqlite (one that cannot be written: $TMPDIR/hta-sqlite-<uid>, with
           a warning). Nothing is ever written into the trace directory.
  CACHE-4  A database is built by the packaged hta-ingest into a temporary file under a
           lock, then renamed into place: concurrent processes build it once and never
           see half a database.
  CACHE-5  A {rank: path} dict gives each file its rank, whatever the file says.
  CACHE-6  HTA's ns rounding (its loader's default; HTA_DISABLE_NS_ROUNDING=1 turns it
           off, as in HTA): in a trace with a fractional-µs timestamp every event gets
           ts = ceil(ts) and end = floor(ts + dur) in float64 µs, as HTA computes them,
           so durations shrink by up to 2 µs and sub-µs events get 0 or -1.
  CACHE-7  When the same contents are found at another path (a copied directory), the
           database's trace.file_path is pointed at the current files, so the writers
           (overlays, counters) re-read files that exist.
  CACHE-8  One trace per rank, as HTA loads them: when two files (of a directory or a
           list) have the same rank, the later one in the file order (names sorted; a
           list's order) is kept and the other left out of the database; same_rank()
           gives HTA's warning for each file left out, on every open (HTA takes the
           last in os.listdir order, which the file system decides).
"""

import contextlib
import fcntl
import hashlib
import json
import os
import sqlite3
import subprocess
import stat
import tempfile
import warnings

from . import __version__, ingest_path

# Bumped when what a cached database holds changes for the same inputs.
_FORMAT = "3"


def cache_dir():
    """The directory of the cached databases (CACHE-3)."""
    d = os.environ.get("HTA_SQLITE_CACHE")
    if not d:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        d = os.path.join(base, "hta-sqlite")
    return d


def _writable(cdir):
    """CDIR, created if needed; when it cannot be written (a read-only home), a directory
    of this user under the system's temporary directory, with a warning."""
    try:
        os.makedirs(cdir, exist_ok=True)
        if os.access(cdir, os.W_OK):
            return cdir
    except OSError:
        pass
    alt = os.path.join(tempfile.gettempdir(), "hta-sqlite-%d" % os.getuid())
    warnings.warn("cannot write the cache %s: using %s (set HTA_SQLITE_CACHE)" % (cdir, alt), stacklevel=4)
    os.makedirs(alt, mode=0o700, exist_ok=True)
    # a shared temporary directory: another user could have made that name first (or a link
    # to elsewhere) and planted databases under the names we look up; use only our own
    st = os.lstat(alt)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o022:
        raise OSError("the fallback cache %s is not a directory of this user that only it can write "
                      "(set HTA_SQLITE_CACHE)" % alt)
    return alt


def hta_ns_rounding():
    """HTA's loader rounds fractional-µs timestamps unless HTA_DISABLE_NS_ROUNDING=1."""
    return os.environ.get("HTA_DISABLE_NS_ROUNDING", "0") != "1"


# ---------------------------------------------------------------- which files (CACHE-1)


def _normalize_dir(trace_dir):
    # HTA expands ./ and ~/ prefixes of trace_dir.
    if trace_dir.startswith("~"):
        trace_dir = os.path.expanduser(trace_dir)
    if trace_dir.startswith("./"):
        trace_dir = os.path.join(os.getcwd(), trace_dir[2:])
    return trace_dir


def _is_trace_name(name):
    return name.endswith(".gz") or name.endswith(".json")


def trace_file_list(trace_dir, trace_files=None):
    """[(rank or None, absolute path)] of the files HTA would load, in a stable order."""
    trace_dir = _normalize_dir(trace_dir or "")
    if trace_files is None:
        if not os.path.isdir(trace_dir):
            warnings.warn("trace_dir %r is not a directory: no traces loaded" % trace_dir, stacklevel=3)
            return []
        names = sorted(n for n in os.listdir(trace_dir) if _is_trace_name(n))
        files = [(None, os.path.abspath(os.path.join(trace_dir, n))) for n in names]
        files = [f for f in files if os.path.isfile(f[1])]
        if not files:
            warnings.warn("no trace files (.json, .gz) in %r" % trace_dir, stacklevel=3)
        return files
    if isinstance(trace_files, dict):
        items = [(int(r), p) for r, p in trace_files.items()]
    elif isinstance(trace_files, (list, tuple)):
        items = [(None, p) for p in trace_files]
    else:
        raise ValueError("trace_files must be a dict {rank: path} or a list of paths")
    out = []
    for rank, p in items:
        p = os.fspath(p)
        if not (p.startswith("/") or (trace_dir and p.startswith(trace_dir))):
            p = os.path.join(trace_dir, p)
        out.append((rank, os.path.abspath(p)))
    for _, p in out:
        if not (os.path.isfile(p) and os.access(p, os.R_OK) and _is_trace_name(p)):
            raise ValueError("Trace files validation failed.")
    return out


# ---------------------------------------------------------------- content hashes (CACHE-2)


def _index(cdir):
    db = sqlite3.connect(os.path.join(cdir, "index.db"), timeout=60)
    db.execute(
        "CREATE TABLE IF NOT EXISTS file(path TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER,"
        " ino INTEGER, digest TEXT)"
    )
    return db


def _sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def file_digests(cdir, paths):
    """{path: sha256 of its bytes}, reusing index.db while (size, mtime, inode) hold."""
    out = {}
    with contextlib.closing(_index(cdir)) as db:
        for p in paths:
            st = os.stat(p)
            row = db.execute("SELECT size, mtime_ns, ino, digest FROM file WHERE path = ?", (p,)).fetchone()
            if row and row[:3] == (st.st_size, st.st_mtime_ns, st.st_ino):
                out[p] = row[3]
                continue
            d = _sha256(p)
            with db:
                db.execute(
                    "INSERT OR REPLACE INTO file VALUES (?, ?, ?, ?, ?)",
                    (p, st.st_size, st.st_mtime_ns, st.st_ino, d),
                )
            out[p] = d
    return out


# ---------------------------------------------------------------- building a database


@contextlib.contextmanager
def _locked(path):
    fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _apply_ranks(db, wanted):
    """CACHE-5: trace rows (and their events and counters) take the ranks a dict gave."""
    for trace_id, rank in wanted:
        first, last = trace_id << 32, (trace_id << 32) | 0xFFFFFFFF
        db.execute("UPDATE trace SET rank = ?, rank_source = 'trace_files' WHERE trace_id = ?", (rank, trace_id))
        db.execute("UPDATE event SET rank = ? WHERE event_id BETWEEN ? AND ? AND rank <> ?", (rank, first, last, rank))
        db.execute(
            "UPDATE counter SET rank = ? WHERE counter_id BETWEEN ? AND ? AND rank <> ?", (rank, first, last, rank)
        )


def _hta_round(ts, dur):
    """HTA's ns rounding of one trace's events (CACHE-6), on numpy int64 arrays of ns.
    Returns the new (ts, dur) in ns. float(ts_ns / 1000) is built as q + r / 1000 with
    q, r integers, which is the correctly rounded float64 of the decimal µs (q is exact
    below 2**53 and r / 1000 only decides the rounding of the sum), as json.loads reads it."""
    import numpy as np

    q, r = np.divmod(ts, 1000)
    ts_f = q.astype(np.float64) + r.astype(np.float64) / 1000.0
    end_f = ts_f + dur.astype(np.float64) / 1000.0
    ts_r = np.ceil(ts_f)
    end_r = np.floor(end_f)
    return (ts_r.astype(np.int64) * 1000, (end_r - ts_r).astype(np.int64) * 1000)


def _round_like_hta(db):
    """CACHE-6 over every trace of DB that has a fractional-µs timestamp."""
    import numpy as np

    traces = [r[0] for r in db.execute("SELECT trace_id FROM trace ORDER BY trace_id")]
    db.execute("CREATE TEMP TABLE IF NOT EXISTS pyapi_round(event_id INTEGER PRIMARY KEY, ts INTEGER, dur INTEGER)")
    for tid in traces:
        first, last = tid << 32, (tid << 32) | 0xFFFFFFFF
        frac = db.execute(
            "SELECT 1 FROM event WHERE event_id BETWEEN ? AND ? AND ts % 1000 <> 0 LIMIT 1", (first, last)
        ).fetchone()
        if not frac:
            continue
        rows = db.execute(
            "SELECT event_id, ts, coalesce(dur, 0), dur IS NULL FROM event"
            " WHERE event_id BETWEEN ? AND ? AND ts IS NOT NULL",
            (first, last),
        ).fetchall()
        if not rows:
            continue
        a = np.array(rows, dtype=np.int64)
        ts, dur = _hta_round(a[:, 1], a[:, 2])
        changed = (ts != a[:, 1]) | ((dur != a[:, 2]) & (a[:, 3] == 0))
        ids = a[changed, 0].tolist()
        new_ts = ts[changed].tolist()
        new_dur = [None if n else d for d, n in zip(dur[changed].tolist(), a[changed, 3].tolist())]
        db.execute("DELETE FROM pyapi_round")
        db.executemany("INSERT INTO pyapi_round VALUES (?, ?, ?)", zip(ids, new_ts, new_dur))
        db.execute(
            "UPDATE event SET ts = r.ts, dur = r.dur FROM pyapi_round r WHERE event.event_id = r.event_id"
        )
        db.execute(
            "UPDATE profiler_step SET ts = e.ts, dur = e.dur FROM event e"
            " WHERE profiler_step.event_id = e.event_id AND profiler_step.trace_id = ?",
            (tid,),
        )
        # The time base: the earliest and latest of the events HTA keeps (dur and cat, cat != Trace).
        db.execute(
            "UPDATE trace SET (min_ts, max_end) = (SELECT min(e.ts), max(e.ts + e.dur) FROM event e"
            " JOIN category c ON c.category_id = e.category_id"
            " WHERE e.event_id BETWEEN ? AND ? AND e.dur IS NOT NULL AND c.name <> 'Trace')"
            " WHERE trace_id = ? AND min_ts IS NOT NULL",
            (first, last, tid),
        )
    db.execute("DROP TABLE pyapi_round")
    db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('pyapi_hta_ns_rounding', '1')")


def _ingest(dbpath, files, job):
    """Runs the packaged hta-ingest over FILES into the new database DBPATH."""
    exe = ingest_path()
    if not os.path.exists(exe):
        raise RuntimeError("hta_sqlite: the hta-ingest binary is missing (%s): build or reinstall the package" % exe)
    cmd = [exe, "-q", "--no-progress", "--job", job, dbpath] + [p for _, p in files]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode not in (0, 1) or not os.path.exists(dbpath):
        raise RuntimeError("hta-ingest failed (exit %d): %s" % (r.returncode, r.stderr.strip()))
    if r.stderr.strip():
        # A file that is not a Kineto trace is reported and left out; the others are loaded.
        warnings.warn(r.stderr.strip(), stacklevel=4)


def _record_files(db, files, digests):
    """pyapi_file: which trace row came from which file (by the ingest's file_path)."""
    db.execute(
        "CREATE TABLE IF NOT EXISTS pyapi_file(trace_id INTEGER PRIMARY KEY, digest TEXT, rank INTEGER, facts TEXT)"
    )
    by_path = {p: (rank, digests[p]) for rank, p in files}
    wanted = []
    for trace_id, path in db.execute("SELECT trace_id, file_path FROM trace").fetchall():
        rank, digest = by_path.get(path, (None, None))
        db.execute(
            "INSERT OR REPLACE INTO pyapi_file VALUES (?, ?, ?, ?)",
            (trace_id, digest, rank, json.dumps(trace_facts(db, trace_id))),
        )
        if rank is not None:
            wanted.append((trace_id, rank))
    return wanted


def trace_facts(db, trace_id):
    """What decides the dtypes of HTA's loaded table for one file (its loader downcasts
    integer columns to the smallest type holding the whole column; dur is float when
    some event has no dur (metadata, instant, flow, counter events) or a fractional one;
    pid/tid are objects when some event has a text pid/tid; rows that carry args.stream
    without being GPU work (deviation D5) keep it in HTA's stream column)."""
    lo, hi = trace_id << 32, (trace_id << 32) | 0xFFFFFFFF
    r = db.execute(
        "SELECT min(coalesce(stream, -1)), max(coalesce(stream, -1)), min(coalesce(correlation, -1)),"
        " max(coalesce(correlation, -1)), min(dur) / 1000, max(dur) / 1000, max(dur % 1000 <> 0),"
        " max(typeof(pid) = 'text'), min(pid), max(pid), max(typeof(tid) = 'text'), min(tid), max(tid), max(seq),"
        " min(CASE WHEN stream IS NULL AND instr(args, '\"stream\"') THEN json_extract(args, '$.stream') END),"
        " max(CASE WHEN stream IS NULL AND instr(args, '\"stream\"') THEN json_extract(args, '$.stream') END)"
        " FROM event WHERE event_id BETWEEN ? AND ? AND dur IS NOT NULL",
        (lo, hi),
    ).fetchone()
    stream = [r[0], r[1]]
    for v in (r[14], r[15]):
        if isinstance(v, int) and stream[0] is not None:
            stream = [min(stream[0], v), max(stream[1], v)]
    nodur = db.execute(
        "SELECT 1 FROM event WHERE event_id BETWEEN ? AND ? AND dur IS NULL LIMIT 1", (lo, hi)
    ).fetchone()
    other = {}
    for t in ("flow", "counter", "thread"):
        other[t] = db.execute("SELECT 1 FROM %s WHERE trace_id = ? LIMIT 1" % t, (trace_id,)).fetchone() is not None
    text = {
        col: any(
            db.execute("SELECT 1 FROM %s WHERE trace_id = ? AND typeof(%s) = 'text' LIMIT 1" % (t, col),
                       (trace_id,)).fetchone()
            for t in ("thread", "flow")
        )
        for col in ("pid", "tid")
    }
    return {
        "stream": stream,
        "correlation": [r[2], r[3]],
        "dur_us": [r[4], r[5]],
        "dur_float": bool(r[6] or nodur or other["flow"] or other["counter"] or other["thread"]),
        "pid_text": bool(r[7] or text["pid"]),
        "pid": [r[8], r[9]] if not r[7] else None,
        "tid_text": bool(r[10] or text["tid"]),
        "tid": [r[11], r[12]] if not r[10] else None,
        "seq": [0, r[13]],
    }


def _repoint(dbpath, files, digests):
    """CACHE-7: trace.file_path follows the files where they are now."""
    by_digest = {}
    for _, p in files:
        by_digest.setdefault(digests[p], p)
    with contextlib.closing(sqlite3.connect(dbpath, timeout=60)) as db:
        rows = db.execute(
            "SELECT t.trace_id, t.file_path, f.digest FROM trace t JOIN pyapi_file f USING (trace_id)"
        ).fetchall()
        moved = [(by_digest[d], tid) for tid, path, d in rows if d in by_digest and path != by_digest[d]]
        if moved:
            with db:
                db.executemany("UPDATE trace SET file_path = ? WHERE trace_id = ?", moved)


def database_for(files, rounding=None):
    """The path of the cached database holding FILES ([(rank or None, path)]), built when
    missing (CACHE-2, CACHE-4)."""
    if rounding is None:
        rounding = hta_ns_rounding()
    cdir = _writable(cache_dir())
    digests = file_digests(cdir, [p for _, p in files])
    key_src = json.dumps(
        {
            "format": _FORMAT,
            "version": __version__,
            "rounding": bool(rounding),
            "files": sorted([r if r is not None else -1, digests[p]] for r, p in files),
        },
        sort_keys=True,
    )
    key = hashlib.sha256(key_src.encode()).hexdigest()[:32]
    dbpath = os.path.join(cdir, key + ".db")
    if not os.path.exists(dbpath):
        with _locked(dbpath + ".lock"):
            if not os.path.exists(dbpath):
                _build(dbpath, files, digests, rounding, cdir)
    _repoint(dbpath, files, digests)
    return dbpath


def _same_rank_files(dbpath, files):
    """CACHE-8: [(left-out path, kept path, rank)] of the files of FILES whose rank a later
    file of FILES also has (ranks as the database DBPATH gives them)."""
    real = {os.path.realpath(p): p for _, p in files}
    with contextlib.closing(sqlite3.connect(dbpath)) as db:
        rank_of = {real[os.path.realpath(fp)]: r for r, fp in db.execute("SELECT rank, file_path FROM trace")
                   if fp and os.path.realpath(fp) in real}
    kept = {}
    for _, p in files:  # the last file of a rank wins
        if p in rank_of:
            kept[rank_of[p]] = p
    return [(p, kept[rank_of[p]], rank_of[p]) for _, p in files if p in rank_of and kept[rank_of[p]] != p]


def same_rank(conn):
    """CACHE-8: HTA's warning for each file the database of CONN left out for its rank."""
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'pyapi_same_rank'").fetchone()
    except sqlite3.Error:
        return []
    return [
        "File %s and file %s has the same rank. Will use %s as the path to rank: %s." % (a, b, b, r)
        for a, b, r in (json.loads(row[0]) if row else [])
    ]


def _build(dbpath, files, digests, rounding, cdir):
    fd, tmp = tempfile.mkstemp(prefix=".build-", suffix=".db", dir=cdir)
    os.close(fd)
    os.unlink(tmp)  # hta-ingest creates it
    try:
        _ingest(tmp, files, "trace")
        dropped = [] if any(r is not None for r, _ in files) else _same_rank_files(tmp, files)
        if dropped:  # ingest again without them (rare: cheaper than deleting their rows)
            os.unlink(tmp)
            gone = {d[0] for d in dropped}
            files = [f for f in files if f[1] not in gone]
            _ingest(tmp, files, "trace")
        with contextlib.closing(sqlite3.connect(tmp)) as db:
            with db:
                db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('pyapi_same_rank', ?)",
                           (json.dumps(dropped),))
                wanted = _record_files(db, files, digests)
                _apply_ranks(db, wanted)
                frac = db.execute("SELECT 1 FROM event WHERE ts % 1000 <> 0 LIMIT 1").fetchone() is not None
                db.execute(
                    "INSERT OR REPLACE INTO meta(key, value) VALUES ('pyapi_fractional_us', ?)", ("1" if frac else "0",)
                )
                if rounding and frac:
                    _round_like_hta(db)
            db.execute("PRAGMA journal_mode = DELETE")
        os.replace(tmp, dbpath)
    finally:
        for suffix in ("", "-wal", "-shm", "-journal"):
            with contextlib.suppress(OSError):
                if os.path.exists(tmp + suffix):
                    os.unlink(tmp + suffix)


def clear_cache():
    """Removes every cached database (they are rebuilt on the next use)."""
    cdir = cache_dir()
    if not os.path.isdir(cdir):
        return
    for n in os.listdir(cdir):
        if n.endswith((".db", ".lock")) or n.startswith(".build-"):
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(cdir, n))


__all__ = ["cache_dir", "database_for", "trace_file_list", "clear_cache", "hta_ns_rounding", "same_rank"]
