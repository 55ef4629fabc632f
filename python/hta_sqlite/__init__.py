"""hta-sqlite from Python: PyTorch profiler (Kineto) traces in SQLite, analysed in SQL.

    import hta_sqlite
    db = hta_sqlite.connect("traces.db", readonly=True)   # sqlite3 connection, hta.so loaded
    db.execute("SELECT * FROM hta_temporal_breakdown").fetchall()

    hta_sqlite.load(conn)      # load hta.so into an open sqlite3 (or sqlite-utils) connection
    hta_sqlite.path()          # the packaged hta.so
    hta_sqlite.ingest_path()   # the packaged hta-ingest binary (also the `hta-ingest` command)

HTA's own Python API, backed by the database (docs/python.md): change the import line.

    from hta_sqlite.trace_analysis import TraceAnalysis   # was: from hta.trace_analysis
    from hta_sqlite.trace_diff import TraceDiff           # was: from hta.trace_diff

Only the extension's default entry point is loaded into connect()/load(): the read-only
analyses and functions. The io entry point (sqlite3_hta_io_init: functions that read and write files) is
left out on purpose; load it yourself with the sqlite3 shell's `.load` when you need it.
"""

import os
import sqlite3
import urllib.parse

__all__ = ["load", "connect", "path", "ingest_path", "__version__", "ExtensionLoadingUnavailable"]

_here = os.path.dirname(os.path.abspath(__file__))


def _find(name):
    """The packaged binary NAME; in a source checkout (python/ not yet built), the one that
    `make` left at the top of the repository."""
    packaged = os.path.join(_here, name)
    if os.path.exists(packaged):
        return packaged
    top = os.path.dirname(os.path.dirname(_here))
    built = os.path.join(top, name)
    if os.path.exists(built):
        return built
    return packaged


def _read_version():
    for p in (os.path.join(_here, "VERSION"), os.path.join(os.path.dirname(os.path.dirname(_here)), "VERSION")):
        try:
            with open(p, encoding="utf-8") as f:
                return f.read().strip()
        except OSError:
            pass
    return "0+unknown"


__version__ = _read_version()


class ExtensionLoadingUnavailable(RuntimeError):
    """This Python's sqlite3 module cannot load extensions."""


def path():
    """Path of the packaged loadable extension hta.so."""
    return _find("hta.so")


def ingest_path():
    """Path of the packaged hta-ingest executable."""
    return _find("hta-ingest")


def _raw(conn):
    # sqlite_utils.Database (and similar wrappers) keep the sqlite3 connection in .conn.
    if not isinstance(conn, sqlite3.Connection) and isinstance(getattr(conn, "conn", None), sqlite3.Connection):
        return conn.conn
    return conn


def _loaded(conn):
    try:
        return conn.execute("SELECT 1 FROM pragma_function_list WHERE name = 'hta_version'").fetchone() is not None
    except sqlite3.Error:
        return False


def load(conn):
    """Load hta.so's default entry point (sqlite3_hta_init: the read-only analyses) into
    CONN, a sqlite3.Connection or an object holding one in .conn (sqlite_utils.Database).
    Loading twice is harmless. Extension loading is switched off again afterwards, so SQL
    run on the connection cannot call load_extension(). Returns CONN."""
    raw = _raw(conn)
    if not hasattr(raw, "enable_load_extension"):
        import sys

        raise ExtensionLoadingUnavailable(
            "this Python's sqlite3 module was built without extension loading (%s): use a Python "
            "whose sqlite3 can load extensions, e.g. Debian's /usr/bin/python3, or one built with "
            "--enable-loadable-sqlite-extensions" % sys.executable
        )
    if _loaded(raw):
        return conn
    raw.enable_load_extension(True)
    try:
        # sqlite3 derives the entry point from the file name: sqlite3_hta_init.
        raw.load_extension(path())
    finally:
        raw.enable_load_extension(False)
    return conn


def connect(database, readonly=False, **kwargs):
    """sqlite3.connect(DATABASE) with hta.so loaded. readonly=True opens the file read-only
    (it must exist). Other keyword arguments go to sqlite3.connect."""
    if readonly:
        uri = "file:%s?mode=ro" % urllib.parse.quote(os.path.abspath(os.fspath(database)))
        conn = sqlite3.connect(uri, uri=True, **kwargs)
    else:
        conn = sqlite3.connect(database, **kwargs)
    try:
        load(conn)
    except BaseException:
        conn.close()
        raise
    return conn
