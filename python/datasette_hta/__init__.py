"""datasette-hta: Datasette plugin for hta-sqlite databases (part of the hta-sqlite package).

- Loads hta.so's default entry point (sqlite3_hta_init: read-only analyses) into every
  connection, then switches extension loading off, so visitors' SQL cannot call
  load_extension(). The io entry point (sqlite3_hta_io_init, which reads and writes files)
  is never loaded.
- Any database that is an hta-sqlite database (tables trace and event, meta.schema_version),
  whatever its file name, gets the canned queries of queries.sql (titles, descriptions,
  their defaults), the table and column descriptions of its _hta_column table, labels for
  the foreign keys (names instead of ids on event pages) and links to the pages below.
- /-/hta/DB                       the database's jobs and downloads
- /-/hta/DB/job/NAME              the job's findings (what to fix, hta_findings: per rank the
                                  step's recoverable share first, causes under their symptom,
                                  caveats shown, evidence last and folded), then its report
                                  (hta-ingest --report: the checks of hta_trace_health that
                                  failed or warned, then HTA's charts), loaded on its own from
- /-/hta/DB/job/NAME/report       the report's styles and body (an HTML fragment), cached
- /-/hta/DB/findings              the findings of every job, each job's part loaded on its own
- /-/hta/DB/findings/NAME         one job's findings (an HTML fragment), cached
- /-/hta/DB/FUNCTION.csv?...      every row of a series analysis as CSV (no row limit)
- /-/hta/DB/compare?control=A&test=B
                                  what changed from job A to job B (hta-ingest --report
                                  --compare): the step difference by part (a waterfall),
                                  the operators and the matched call trees; without both
                                  jobs, a form to pick them
All pages but the CSV use Datasette's own page (its header, navigation and footer). A job's
findings and report are computed once per database version (STATS counts the computations).

Plugin configuration (metadata: plugins: datasette-hta: ...):
  suggest_facets: true    keep Datasette's facet suggestions (turned off by default: on the
                          event table of a large job each column's suggestion costs a query)
"""

import asyncio
import atexit
import csv
import html
import io
import os
import re
import shutil
import sqlite3
import subprocess
import tempfile
import threading
import urllib.parse

from datasette import hookimpl
from datasette.utils import tilde_decode, tilde_encode
from datasette.utils.asgi import AsgiStream, Response

import hta_sqlite

PLUGIN = "datasette-hta"
_here = os.path.dirname(os.path.abspath(__file__))

# Analyses whose whole output /-/hta/DB/FUNCTION.csv streams: the long series (Datasette's
# pages stop at max_returned_rows).
CSV_FUNCTIONS = ("hta_queue_length", "hta_memory_bw", "hta_kernel_launch_stats")
# Canned queries that show a link to the full series as CSV.
QUERY_CSV = {"queue_length": "hta_queue_length", "memory_bw": "hta_memory_bw", "kernel_launch_stats": "hta_kernel_launch_stats"}
# Foreign-key targets whose label Datasette shows instead of the id.
LABEL_COLUMNS = {"trace": "file_name", "job": "name", "string": "value", "category": "name"}

# What the plugin computed (tests read it: a second visit must not compute again).
STATS = {"reports": 0, "findings": 0}

_NUMBER = re.compile(r"^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$")


# ------------------------------------------------------------------ canned queries


def _queries_sql():
    for p in (os.path.join(_here, "queries.sql"), os.path.join(_here, "..", "..", "examples", "datasette", "queries.sql")):
        if os.path.exists(p):
            with open(p, encoding="utf-8") as f:
                return f.read()
    return ""


def parse_queries(text):
    """The canned queries of queries.sql: [(name, title, description, sql)], in file order.
    Format: `-- name:`, `-- title:`, `-- description:` lines, then the query up to a line
    ending in `;`."""
    out, name, title, desc, sql = [], None, "", "", None
    for line in text.splitlines():
        if sql is None:
            if line.startswith("-- name: "):
                name, title, desc = line[9:].strip(), "", ""
            elif line.startswith("-- title: "):
                title = line[10:].strip()
            elif line.startswith("-- description: "):
                desc = line[16:].strip()
            elif name and (line.startswith("SELECT") or line.startswith("WITH")):
                sql = []
        if sql is not None:
            sql.append(line)
            if re.search(r";\s*$", line):
                out.append((name, title, desc, re.sub(r";\s*$", "", "\n".join(sql))))
                name, sql = None, None
    return out


def query_defaults(sql):
    """{param: default} from the `coalesce(nullif(:param, ''), DEFAULT)` of SQL."""
    return {m.group(1): m.group(2).strip() for m in re.finditer(r"coalesce\(nullif\(:(\w+), ''\),\s*([^()]+?)\)", sql)}


_QUERIES = None


def _evidence_last(sql, columns):
    """SQL with `SELECT t.*` spelled out so that the evidence column comes last (the findings
    query: what to try stays on the first screen)."""
    if "evidence" not in columns:
        return sql
    cols = [c for c in columns if c != "evidence"] + ["evidence"]
    return sql.replace("SELECT t.*", "SELECT " + ", ".join('t."%s"' % c.replace('"', '""') for c in cols))


def canned(database, datasette=None, info=None):
    """Datasette's canned queries for the hta-sqlite database DATABASE (INFO: its db_info)."""
    global _QUERIES
    if _QUERIES is None:
        _QUERIES = parse_queries(_queries_sql())
    q = {}
    for name, title, desc, sql in _QUERIES:
        params = re.findall(r":(\w+)", sql)
        params = list(dict.fromkeys(params))
        defaults = query_defaults(sql)
        notes = []
        if defaults:
            notes.append("Empty fields take the defaults: " + ", ".join("%s = %s" % (p, d.strip("'")) for p, d in defaults.items()) + ".")
        if "rank" in params:
            notes.append("rank: an integer, or empty for every rank.")
        if "job" in params:
            notes.append("job: a job's name (the Jobs query lists them), or empty for %s." % (
                "the first job" if name == "findings" else "every job"))
        text = desc + (" " + " ".join(notes) if notes else "")
        # hide_sql: the rank check makes the SQL long; "show" displays it.
        if name == "findings" and info is not None:
            sql = _evidence_last(sql, info.findings_columns)
        entry = {"sql": sql, "title": title, "description": text, "params": params, "hide_sql": True}
        if name == "findings":
            url = _url(datasette, database, "findings")
            entry["description_html"] = html.escape(text) + ' <a href="%s">The findings of every job</a>.' % html.escape(url)
        if name in QUERY_CSV:
            url = _url(datasette, database, QUERY_CSV[name], suffix=".csv")
            entry["description_html"] = (
                html.escape(text) + ' The page shows the first rows only: <a href="%s">every row as CSV</a> '
                "(add ?rank=N or ?job=NAME to the address for one rank or job)." % html.escape(url)
            )
        q[name] = entry
    return q


def _url(datasette, *parts, suffix=""):
    """/-/hta/PART/PART... (tilde-encoded, under Datasette's base_url)."""
    path = "/-/hta/" + "/".join(tilde_encode(p) for p in parts) + suffix
    return datasette.urls.path(path) if datasette is not None else path


# ------------------------------------------------------------------ which databases


def _db_file(db):
    if getattr(db, "is_memory", False) or not getattr(db, "path", None):
        return None
    return db.path


def _open_ro(path):
    return sqlite3.connect("file:%s?mode=ro" % urllib.parse.quote(os.path.abspath(path)), uri=True)


def _stamp(path):
    """What changes when the database changes: size and mtime of the file and its WAL."""
    out = []
    for p in (path, path + "-wal"):
        try:
            st = os.stat(p)
            out.append((st.st_size, st.st_mtime_ns))
        except OSError:
            out.append(None)
    return tuple(out)


class _Info:
    __slots__ = ("stamp", "is_hta", "tables", "jobs", "views", "traces", "findings_columns")


_info_cache = {}
_info_lock = threading.Lock()


def db_info(path):
    """What the plugin knows of the database file PATH (cached until the file changes):
    whether it is an hta-sqlite database, its table and column descriptions, its jobs."""
    stamp = _stamp(path)
    with _info_lock:
        info = _info_cache.get(path)
        if info is not None and info.stamp == stamp:
            return info
    info = _Info()
    info.stamp, info.is_hta, info.tables, info.jobs, info.views = stamp, False, {}, [], []
    info.traces, info.findings_columns = {}, []
    try:
        conn = _open_ro(path)
        try:
            names = {r[0]: r[1] for r in conn.execute("SELECT name, type FROM sqlite_schema WHERE type IN ('table', 'view')")}
            if "trace" in names and "event" in names and "meta" in names:
                info.is_hta = conn.execute("SELECT 1 FROM meta WHERE key = 'schema_version'").fetchone() is not None
            if info.is_hta:
                info.views = sorted(n for n, t in names.items() if t == "view")
                if "_hta_column" in names:
                    for t, c, d in conn.execute("SELECT table_name, column_name, description FROM _hta_column ORDER BY rowid"):
                        if t not in names:
                            continue
                        tm = info.tables.setdefault(t, {"columns": {}})
                        if c == "":
                            tm["description"] = d
                        else:
                            tm["columns"][c] = d
                    info.tables.setdefault("_hta_column", {})["hidden"] = True
                for t, label in LABEL_COLUMNS.items():
                    if t in names:
                        info.tables.setdefault(t, {})["label_column"] = label
                info.jobs = list_jobs(conn, names)
                info.traces = trace_labels(conn, names)
                try:
                    hta_sqlite.load(conn)
                    info.findings_columns = [r[0] for r in conn.execute("SELECT name FROM pragma_table_info('hta_findings')")]
                except (sqlite3.Error, RuntimeError):
                    info.findings_columns = []
        finally:
            conn.close()
    except sqlite3.Error:
        info.is_hta = False
    with _info_lock:
        _info_cache[path] = info
    return info


def list_jobs(conn, names=None):
    """The database's job names (the job table); a database without jobs (written before
    the job table) has one, 'all'."""
    if names is None:
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_schema")}
    jobs = []
    if "job" in names:
        jobs = [r[0] for r in conn.execute("SELECT name FROM job ORDER BY job_id")]
    return jobs or ["all"]


def trace_labels(conn, names):
    """{trace_id: (short name, full path)}: a trace's file name relative to its job's
    directory (else its base name), for labels; the full path goes into the tooltip."""
    has_job = "job" in names
    sql = ("SELECT t.trace_id, t.file_name, j.source FROM trace t LEFT JOIN job j ON j.job_id = t.job_id" if has_job
           else "SELECT trace_id, file_name, NULL FROM trace")
    out = {}
    for tid, name, source in conn.execute(sql):
        name = name or ""
        short = os.path.basename(name) or name
        if source and name.startswith(source.rstrip("/") + "/"):
            short = name[len(source.rstrip("/")) + 1:]
        out[tid] = (short, name)
    return out


def hta_database(datasette, database):
    """(Database, path, info) when DATABASE is an hta-sqlite database Datasette serves; else None."""
    db = datasette.databases.get(database)
    if db is None:
        return None
    path = _db_file(db)
    if path is None or not os.path.exists(path):
        return None
    info = db_info(path)
    return (db, path, info) if info.is_hta else None


# ------------------------------------------------------------------ hooks


@hookimpl
def prepare_connection(conn, database, datasette):
    # Every connection, hta-sqlite database or not: the functions cost nothing until called.
    hta_sqlite.load(conn)
    # Datasette's --load-extension leaves load_extension() callable from SQL (visitors could
    # load the io entry point, or any library); this hook runs after it, so switch it off.
    conn.enable_load_extension(False)


@hookimpl
def startup(datasette):
    cfg = datasette.plugin_config(PLUGIN) or {}
    if not cfg.get("suggest_facets", False):
        # Facet suggestions run a query per column of every table page (the event table of
        # a large job has millions of rows). Facets themselves still work (?_facet=col).
        datasette._settings["suggest_facets"] = False

    for name in list(datasette.databases):
        hta_database(datasette, name)  # reads each database's descriptions once, now


def _database_metadata(datasette, database, info):
    jobs = ", ".join('<a href="%s">%s</a>' % (html.escape(_url(datasette, database, "job", j)), html.escape(j)) for j in info.jobs)
    desc_html = (
        "PyTorch profiler (Kineto) traces ingested by hta-ingest, with HTA's analyses as canned queries "
        "(hta.so). Times in tables are integer nanoseconds (absolute timestamps); analyses report "
        "microseconds (columns ending in _us). Leave a query's field empty for its default, its "
        "job field empty for every job (each analysed on its own; the job column names it). "
        "Reports with charts: %s. Full series as CSV: <a href=\"%s\">downloads</a>." % (jobs, html.escape(_url(datasette, database)))
    )
    tables = {}
    for t, m in info.tables.items():
        tables[t] = dict(m)
    for t in ("event", "counter", "flow"):
        tables.setdefault(t, {})["sort"] = {"event": "event_id", "counter": "counter_id", "flow": "flow_id"}[t]
    return {"description_html": desc_html, "tables": tables}


@hookimpl
def get_metadata(datasette, key, database, table):
    dbs = {}
    for name, db in list(datasette.databases.items()):
        path = _db_file(db)
        if path is None or not os.path.exists(path):
            continue
        info = db_info(path)
        if info.is_hta:
            dbs[name] = _database_metadata(datasette, name, info)
    if not dbs:
        return {}
    links = "; ".join(
        '<a href="%s">%s</a> (reports: %s)'
        % (
            html.escape(datasette.urls.database(n)),
            html.escape(n),
            ", ".join('<a href="%s">%s</a>' % (html.escape(_url(datasette, n, "job", j)), html.escape(j)) for j in db_info(_db_file(datasette.databases[n])).jobs),
        )
        for n in dbs
    )
    out = {"databases": dbs}
    # The instance's title and description, unless the user's metadata has its own (theirs
    # wins key by key; a description of theirs beside our description_html would be hidden).
    local = getattr(datasette, "_metadata_local", None) or {}
    if not any(local.get(k) for k in ("title", "description", "description_html")):
        out["title"] = "hta-sqlite"
        out["description_html"] = (
            "PyTorch profiler (Kineto) traces with Holistic Trace Analysis (HTA) as canned queries. "
            "Times in tables are integer nanoseconds; analyses report microseconds (columns ending in _us). %s." % links
        )
    for n in dbs:
        mine = ((local.get("databases") or {}).get(n)) or {}
        if mine.get("description") or mine.get("description_html"):
            dbs[n].pop("description_html", None)
    return out


@hookimpl
def canned_queries(datasette, database, actor):
    found = hta_database(datasette, database)
    if found:
        return canned(database, datasette, found[2])
    return None


# Columns shown with a name: (table, label column, key column) of what they point to. Datasette
# labels foreign keys on table pages itself (those values reach render_cell as dicts); the row
# page and the event links (link_id, parent_id: no foreign key) get their labels here.
_LABELLED = {
    "name_id": ("string", "value", "string_id"),
    "category_id": ("category", "name", "category_id"),
    "trace_id": ("trace", "file_name", "trace_id"),
    "job_id": ("job", "name", "job_id"),
}
_EVENT_LINKS = {("event", "link_id"), ("event", "parent_id"), ("profiler_step", "event_id")}
_LABELLED_TABLES = {"event", "counter", "flow", "profiler_step", "device", "thread", "trace", "ingest_issue"}


def _short_float(v):
    """A REAL shown on a query page: 3 decimals (µs to the ns), 4 significant digits below 1."""
    if v != v or v in (float("inf"), float("-inf")):
        return None
    return "%.3f" % v if abs(v) >= 1 or v == 0 else "%.4g" % v


def _folded_json(text, summary):
    """A JSON text as a closed <details>, pretty-printed inside (None when not JSON)."""
    import json

    import markupsafe

    try:
        pretty = json.dumps(json.loads(text), indent=1)
    except ValueError:
        return None
    return markupsafe.Markup('<details><summary>%s</summary><pre style="white-space: pre-wrap">%s</pre></details>'
                             % (markupsafe.escape(summary), markupsafe.escape(pretty)))


def _caveat_texts(text):
    """The sentences of a caveats cell: a JSON list of {"check", "value", "text"} objects (hta_findings)
    or of strings; None when it is no JSON list."""
    import json

    try:
        items = json.loads(text) if text else []
    except (TypeError, ValueError):
        return None
    if not isinstance(items, list):
        return None
    return [str(x.get("text") or x.get("check") or "") if isinstance(x, dict) else str(x) for x in items]


def _caveats_html(text):
    """A JSON list of caveats as visible lines (None when not a list)."""
    import markupsafe

    items = _caveat_texts(text)
    if items is None:
        return None
    return markupsafe.Markup("<br>".join("&#9888; %s" % markupsafe.escape(x) for x in items))


def _trace_link(datasette, database, tid, info):
    """A trace as a link labelled with its job-relative file name, the full path on hover."""
    import markupsafe

    short, full = info.traces.get(tid, (str(tid), ""))
    return markupsafe.Markup('<a href="%s" title="%s">%s</a>&nbsp;<em>%d</em>' % (
        markupsafe.escape(datasette.urls.row(database, "trace", str(tid))), markupsafe.escape(full),
        markupsafe.escape(short), tid))


@hookimpl
def render_cell(row, value, column, table, database, datasette):
    if table is None and type(value) is float:
        # Query pages (canned analyses): floats rounded for reading; .json and .csv keep them whole.
        if hta_database(datasette, database):
            return _short_float(value)
        return None
    if table is None and column in ("evidence", "caveats") and isinstance(value, str) and value[:1] in "[{":
        # The findings: evidence folded (what to try stays in view), caveats as lines.
        if hta_database(datasette, database):
            return _folded_json(value, "evidence") if column == "evidence" else _caveats_html(value)
        return None
    if column == "trace_id" and isinstance(value, dict) and isinstance(value.get("value"), int):
        found = hta_database(datasette, database)  # a foreign key Datasette expanded: our label
        return _trace_link(datasette, database, value["value"], found[2]) if found else None
    if table == "trace" and column == "file_name" and isinstance(value, str):
        found = hta_database(datasette, database)
        if found:
            import markupsafe

            tid = dict(zip(row.keys(), tuple(row))).get("trace_id") if hasattr(row, "keys") else None
            short = found[2].traces.get(tid, (os.path.basename(value), value))[0]
            return markupsafe.Markup('<span title="%s">%s</span>' % (markupsafe.escape(value), markupsafe.escape(short)))
        return None
    if table not in _LABELLED_TABLES or type(value) is not int:
        return None
    if column == "trace_id" and table != "trace":
        found = hta_database(datasette, database)
        return _trace_link(datasette, database, value, found[2]) if found else None
    if (table, column) in _EVENT_LINKS:
        target, sql = "event", "SELECT s.value FROM event e JOIN string s ON s.string_id = e.name_id WHERE e.event_id = ?"
    elif column in _LABELLED and table != _LABELLED[column][0]:
        target, label, key = _LABELLED[column]
        sql = 'SELECT "%s" FROM "%s" WHERE "%s" = ?' % (label, target, key)
    else:
        return None
    if not hta_database(datasette, database):
        return None

    async def inner():
        import markupsafe

        try:
            res = await datasette.get_database(database).execute(sql, [value])
        except Exception:
            return None
        first = res.first()
        if first is None or first[0] is None:
            return None
        return markupsafe.Markup(
            '<a href="%s">%s</a>&nbsp;<em>%d</em>'
            % (markupsafe.escape(datasette.urls.row(database, target, str(value))), markupsafe.escape(str(first[0])), value)
        )

    return inner


# Table pages: the list of column descriptions (20 entries for event) goes into a closed
# <details>, so that the rows are on the first screen (headers keep them as tooltips), and a
# long args JSON stays on one line, cut (the row page shows it whole).
_FOLD_DESCRIPTIONS = """
(function () {
  var st = document.createElement("style");
  st.textContent = ".rows-and-columns td.col-args { max-width: 36em; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }";
  document.head.appendChild(st);
  var dl = document.querySelector("dl.column-descriptions");
  if (!dl || dl.parentNode.tagName === "DETAILS") return;
  var d = document.createElement("details");
  var s = document.createElement("summary");
  s.textContent = "Column descriptions (" + dl.querySelectorAll("dt").length + ")";
  d.appendChild(s);
  dl.parentNode.insertBefore(d, dl);
  d.appendChild(dl);
  d.style.margin = "0 0 1em 0";
})();
"""


@hookimpl
def extra_body_script(template, database, table, columns, view_name, request, datasette):
    if view_name == "table" and database and hta_database(datasette, database):
        return _FOLD_DESCRIPTIONS
    return None


@hookimpl
def register_routes(datasette):
    return [
        (r"^/-/hta/(?P<database>[^/]+)/?$", index_view),
        (r"^/-/hta/(?P<database>[^/]+)/job/(?P<job>[^/]+)$", job_view),
        (r"^/-/hta/(?P<database>[^/]+)/job/(?P<job>[^/]+)/report$", report_part_view),
        (r"^/-/hta/(?P<database>[^/]+)/findings/?$", findings_view),
        (r"^/-/hta/(?P<database>[^/]+)/findings/(?P<job>[^/]+)$", findings_part_view),
        (r"^/-/hta/(?P<database>[^/]+)/(?P<function>hta_[a-z_]+)\.csv$", csv_view),
        (r"^/-/hta/(?P<database>[^/]+)/compare$", compare_view),
    ]


# ------------------------------------------------------------------ routes


async def _check(datasette, request):
    database = tilde_decode(request.url_vars["database"])
    await datasette.ensure_permissions(request.actor, [("view-database", database), "view-instance"])
    found = hta_database(datasette, database)
    if not found:
        return database, None
    return database, found


async def _render(datasette, request, title, body, database=None, extra_head="", status=200):
    """A page of the plugin inside Datasette's own page (templates/hta_page.html)."""
    text = await datasette.render_template(
        "hta_page.html", {"title": title, "body": body, "database": database, "extra_head": extra_head}, request=request)
    return Response.html(text, status=status)


async def _not_hta(datasette, request, database):
    return await _render(datasette, request, "Not found",
                         "<p>%s is not an hta-sqlite database.</p>" % html.escape(database), status=404)


def _links(datasette, database, here=None):
    """The plugin's navigation of DATABASE: the database, its jobs, the findings, downloads."""
    items = [('<a href="%s">%s in Datasette</a>' % (html.escape(datasette.urls.database(database)), html.escape(database)))]
    items.append('<a href="%s">jobs and downloads</a>' % html.escape(_url(datasette, database)))
    items.append('<a href="%s">findings of every job</a>' % html.escape(_url(datasette, database, "findings")))
    items.append('<a href="%s">nn.Module view</a>' % html.escape(datasette.urls.database(database) + "/module_stats"))
    return '<p class="hta-links">%s</p>' % " &middot; ".join(items)


async def index_view(datasette, request):
    database, found = await _check(datasette, request)
    if not found:
        return await _not_hta(datasette, request, database)
    db, path, info = found
    items = "".join('<li><a href="%s">%s</a></li>' % (html.escape(_url(datasette, database, "job", j)), html.escape(j)) for j in info.jobs)
    csvs = "".join('<li><a href="%s">%s.csv</a></li>' % (html.escape(_url(datasette, database, f, suffix=".csv")), f) for f in CSV_FUNCTIONS)
    body = (
        _links(datasette, database)
        + _compare_link(datasette, database, info)
        + "<h2>Jobs: findings and report</h2><ul>%s</ul>"
        "<h2>Full series as CSV</h2><p>Every row, no page limit. Filter with the analysis' parameters "
        "and columns as numbers, e.g. <code>?rank=0</code>, <code>?collapse_ties=1</code>.</p><ul>%s</ul>" % (items, csvs)
    )
    return await _render(datasette, request, "hta-sqlite: " + database, body, database)


# ---- findings (hta_findings), per job, cached per database version

_findings_cache = {}
_findings_locks = {}


def _open_for(db, path):
    """A read-only connection to the served database (immutable when Datasette serves it so)
    with hta.so loaded, usable from a worker thread."""
    if db.is_mutable:
        return hta_sqlite.connect(path, readonly=True, check_same_thread=False)
    uri = "file:%s?immutable=1" % urllib.parse.quote(os.path.abspath(path))
    return hta_sqlite.load(sqlite3.connect(uri, uri=True, check_same_thread=False))


async def job_findings(db, path, info, job):
    """(columns, rows) of hta_findings for JOB, computed once per database version and job."""
    key = (os.path.abspath(path), info.stamp, job)
    if key in _findings_cache:
        return _findings_cache[key]
    lock = _findings_locks.setdefault(key, asyncio.Lock())
    async with lock:
        if key not in _findings_cache:

            def run():
                conn = _open_for(db, path)
                try:
                    cur = conn.execute("SELECT * FROM hta_findings WHERE job = ?" if job != "all" else
                                       "SELECT * FROM hta_findings", [job] if job != "all" else [])
                    return [d[0] for d in cur.description], cur.fetchall()
                finally:
                    conn.close()

            _findings_cache[key] = await asyncio.get_running_loop().run_in_executor(None, run)
            STATS["findings"] += 1
    return _findings_cache[key]


def _num(v, fmt):
    return "" if v is None else fmt % v


def _time_us(us):
    """A time in µs as people read it, as hta-ingest --findings writes it: µs under 10 ms, ms
    under 10 s, else s."""
    if us >= 1e7:
        return "%.2f s" % (us / 1e6)
    if us >= 1e4:
        return "%.1f ms" % (us / 1e3)
    return "%.0f µs" % us


def findings_html(columns, rows, datasette=None, database=None, info=None):
    """The findings as HTML, per rank: the step's summary (its recoverable share) first, then
    each finding by cost with its causes under it (a symptom's causes: kind 'cause', parent =
    its rule), caveats shown, evidence last and folded. Columns kind, parent and caveats
    (findings version 2) are used when the database's hta_findings has them."""
    import json

    rows = [dict(zip(columns, r)) for r in rows]
    if not rows:
        return "<p>No findings: nothing costs enough to report.</p>"

    def caveats_of(r):
        texts = _caveat_texts(r.get("caveats"))
        return [r["caveats"]] if texts is None else texts

    def one(r, cls="hta-finding", shown=()):
        cost = ""
        if r.get("time_us") is not None:
            cost = "%s per step" % _time_us(r["time_us"])
            if r.get("pct_of_step") is not None:
                cost += ", %s of the step" % _num(r["pct_of_step"], "%.1f%%")
        head = '<b>%s</b>%s <span class="hta-rule">(%s%s)</span>' % (
            html.escape(r.get("title") or r.get("rule") or ""), (" &mdash; " + cost) if cost else "",
            html.escape(str(r.get("rule"))), (", " + html.escape(str(r["source"]))) if r.get("source") else "")
        parts = ['<div class="%s"><p>%s</p>' % (cls, head)]
        for c in caveats_of(r):  # those its trace's summary shows are not repeated
            if c not in shown:
                parts.append('<p class="hta-caveat">&#9888; %s</p>' % html.escape(c))
        if r.get("advice"):
            parts.append('<p class="hta-advice">What to try: %s</p>' % html.escape(r["advice"]))
        for c in r.get("_causes", []):
            parts.append(one(c, "hta-finding hta-cause", shown))
        if r.get("evidence"):
            try:
                ev = json.dumps(json.loads(r["evidence"]), indent=1)
            except ValueError:
                ev = r["evidence"]
            parts.append("<details><summary>evidence</summary><pre>%s</pre></details>" % html.escape(ev))
        parts.append("</div>")
        return "".join(parts)

    out = []
    by_rank = {}
    for r in rows:
        by_rank.setdefault(r.get("rank"), []).append(r)
    for rank, rs in by_rank.items():
        label = "the job" if rank is None else "rank %s" % rank
        if info is not None and rs and rs[0].get("trace_id") in getattr(info, "traces", {}):
            short, full = info.traces[rs[0]["trace_id"]]
            label += ' <span title="%s">(%s)</span>' % (html.escape(full), html.escape(short))
        out.append("<h3>%s</h3>" % (label if rank is None else "R" + label[1:]))
        summary = [r for r in rs if r.get("rule") == "step" or r.get("kind") == "summary"]
        shown = set()
        for r in summary:  # the recoverable share first, then its caveats (the trace's, once)
            pct = r.get("pct_of_step")
            title = r.get("title") or ""
            out.append('<p class="hta-summary"><b>%s</b>%s</p>' % (  # the share, unless the title says it
                html.escape(title), (" &mdash; recoverable: %s of the step" % _num(pct, "%.1f%%"))
                if pct is not None and "recover" not in title else ""))
            for c in caveats_of(r):
                if c not in shown:
                    out.append('<p class="hta-caveat">&#9888; %s</p>' % html.escape(c))
                    shown.add(c)
        rest = [r for r in rs if r not in summary]
        rules = {r.get("rule") for r in rest if r.get("kind") == "symptom"}
        top = []
        for r in rest:
            r["_causes"] = []
        for r in rest:
            parent = r.get("parent")
            host = next((x for x in rest if parent and x.get("rule") == parent and x.get("kind") == "symptom"), None)
            if parent in rules and host is not None and host is not r:
                host["_causes"].append(r)
            else:
                top.append(r)
        out.extend(one(r, shown=shown) for r in top)
    return "".join(out)


_FINDINGS_CSS = """<style>
.hta-finding { border-left: 3px solid #c66; padding: 0.1em 0.8em; margin: 0.6em 0; }
.hta-cause { border-left-color: #e99; margin-left: 1.5em; }
.hta-caveat { color: #8a5a00; margin: 0.2em 0; }
.hta-rule { color: #666; font-size: 0.9em; }
.hta-summary { background: #f3f3f8; padding: 0.4em 0.8em; }
.hta-links { margin: 0.3em 0 1em 0; }
.hta-finding pre { white-space: pre-wrap; font-size: 0.85em; }
</style>"""


async def findings_view(datasette, request):
    """Every job's findings: the page answers at once, each job's part loads on its own
    (/-/hta/DB/findings/NAME, cached), so no request computes more than one job."""
    database, found = await _check(datasette, request)
    if not found:
        return await _not_hta(datasette, request, database)
    db, path, info = found
    parts = []
    for j in info.jobs:
        parts.append('<section class="hta-job-findings" data-src="%s"><h2><a href="%s">%s</a></h2><p>Loading&hellip;</p></section>' % (
            html.escape(_url(datasette, database, "findings", j)), html.escape(_url(datasette, database, "job", j)), html.escape(j)))
    script = """<script>
document.querySelectorAll("section.hta-job-findings").forEach(function (s) {
  fetch(s.dataset.src).then(function (r) { return r.text(); }).then(function (t) {
    s.querySelector("p").outerHTML = t;
  });
});
</script>"""
    return await _render(datasette, request, "Findings: " + database, _links(datasette, database) + "".join(parts) + script,
                         database, _FINDINGS_CSS)


async def findings_part_view(datasette, request):
    database, found = await _check(datasette, request)
    if not found:
        return Response.html("<p>%s is not an hta-sqlite database.</p>" % html.escape(database), status=404)
    db, path, info = found
    job = tilde_decode(request.url_vars["job"])
    if job not in info.jobs:
        return Response.html("<p>No job %s.</p>" % html.escape(job), status=404)
    try:
        columns, rows = await job_findings(db, path, info, job)
    except sqlite3.Error as e:
        return Response.html("<p>hta_findings failed: %s</p>" % html.escape(str(e)), status=500)
    return Response.html(findings_html(columns, rows, datasette, database, info))


# ---- job reports

_report_dir = None
_report_locks = {}


def _ingest_has_job_option(exe):
    try:
        out = subprocess.run([exe, "--help"], capture_output=True, text=True, timeout=10)
        return "--job" in (out.stdout + out.stderr)
    except (OSError, subprocess.SubprocessError):
        return False


_has_job = None


async def make_report(path, job, info):
    """The report of JOB in the database PATH (hta-ingest --report), cached per database
    version and job: (html text, None) or (None, error message)."""
    global _report_dir, _has_job
    if _report_dir is None:
        _report_dir = tempfile.mkdtemp(prefix="datasette-hta-")
        atexit.register(shutil.rmtree, _report_dir, True)
    exe = hta_sqlite.ingest_path()
    if _has_job is None:
        _has_job = _ingest_has_job_option(exe)
    key = "%x-%s" % (abs(hash((os.path.abspath(path), info.stamp))), re.sub(r"[^A-Za-z0-9_.-]", "_", job)[:64] + "-%x" % abs(hash(job)))
    out = os.path.join(_report_dir, key + ".html")
    lock = _report_locks.setdefault(key, asyncio.Lock())
    async with lock:
        if not os.path.exists(out):
            args = [exe, "--report", out + ".tmp"]
            if _has_job and job != "all":
                args += ["--job", job]
            args.append(path)
            proc = await asyncio.create_subprocess_exec(*args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
            _, err = await proc.communicate()
            if proc.returncode != 0 or not os.path.exists(out + ".tmp"):
                return None, "hta-ingest --report failed (exit %s): %s" % (proc.returncode, err.decode("utf-8", "replace").strip())
            os.replace(out + ".tmp", out)
            STATS["reports"] += 1
    with open(out, encoding="utf-8") as f:
        return f.read(), None


def _health_link(datasette, database, job):
    """The job page's link to the trace_health canned query of JOB (the report's Trace health
    block, at the top of the page, lists the checks that failed or warned; the query has all)."""
    url = datasette.urls.database(database) + "/trace_health" + ("" if job == "all" else "?job=" + urllib.parse.quote(job))
    return ' &middot; <a href="%s">its health checks as a table</a>' % html.escape(url)


def _report_parts(text):
    """(its <style> blocks, its body) of a report's HTML, its own findings section left out
    (the job page shows the findings first, from hta_findings)."""
    styles = "".join(re.findall(r"<style[^>]*>.*?</style>", text, flags=re.S))
    m = re.search(r"<body[^>]*>(.*)</body>", text, flags=re.S)
    body = m.group(1) if m else text
    a, b = body.find('<section id="findings">'), body.find("<section", body.find('<section id="findings">') + 1)
    if a >= 0 and b > a:
        body = body[:a] + body[b:]
    return styles, body


async def _job(datasette, request):
    """(database, found, job, error response) of a job route."""
    database, found = await _check(datasette, request)
    if not found:
        return database, None, None, await _not_hta(datasette, request, database)
    job = tilde_decode(request.url_vars["job"])
    if job not in found[2].jobs:
        return database, found, job, await _render(datasette, request, "Not found", "<p>No job %s in %s. Jobs: %s</p>" % (
            html.escape(job), html.escape(database), html.escape(", ".join(found[2].jobs))), database, status=404)
    return database, found, job, None


async def job_view(datasette, request):
    """The job's findings, then its report, which the browser loads on its own (it takes
    hta-ingest --report a second or more the first time)."""
    database, found, job, bad = await _job(datasette, request)
    if bad:
        return bad
    db, path, info = found
    try:
        columns, rows = await job_findings(db, path, info, job)
        found_html = findings_html(columns, rows, datasette, database, info)
    except sqlite3.Error as e:
        found_html = "<p>hta_findings failed: %s</p>" % html.escape(str(e))
    query = datasette.urls.database(database) + "/findings" + ("" if job == "all" else "?job=" + urllib.parse.quote(job))
    report = _url(datasette, database, "job", job) + "/report"
    page = (
        _links(datasette, database)
        + '<section id="findings"><h2>1. Findings: what to fix</h2><p><a href="%s">its findings as a table</a>%s</p>%s</section>'
        % (html.escape(query), _health_link(datasette, database, job), found_html)
        + '<div class="hta-report" data-src="%s"><p>Loading the report (HTA\'s charts)&hellip;</p></div>' % html.escape(report)
        + """<script>
(function (d) {
  fetch(d.dataset.src).then(function (r) { return r.text(); }).then(function (t) { d.innerHTML = t; });
})(document.querySelector("div.hta-report"));
</script>"""
    )
    return await _render(datasette, request, "Job %s" % job, page, database, _FINDINGS_CSS)


async def report_part_view(datasette, request):
    """The job's report (hta-ingest --report, cached) as a fragment: its styles and its body
    without its own findings section (the job page has them)."""
    database, found, job, bad = await _job(datasette, request)
    if bad:
        return bad
    db, path, info = found
    text, err = await make_report(path, job, info)
    if err:
        return Response.html("<pre>%s</pre>" % html.escape(err), status=500)
    styles, body = _report_parts(text)
    return Response.html(styles + body)


# ---- CSV of a whole series


def _columns(conn, function):
    """(output columns, hidden parameter columns) of the table-valued function."""
    cols, params = [], []
    for row in conn.execute("SELECT name, hidden FROM pragma_table_xinfo(?)", [function]):
        (params if row[1] else cols).append(row[0])
    return cols, params


def _bad(message):
    return Response.text(message + "\n", status=400)


async def csv_view(datasette, request):
    database, found = await _check(datasette, request)
    if not found:
        return Response.text("%s is not an hta-sqlite database\n" % database, status=404)
    db, path, info = found
    if not datasette.setting("allow_csv_stream"):
        return Response.text("full CSV downloads are off here (setting allow_csv_stream)\n", status=403)
    function = request.url_vars["function"]
    if function not in CSV_FUNCTIONS:
        return Response.text("%s: not downloadable here (only %s)\n" % (function, ", ".join(CSV_FUNCTIONS)), status=404)
    loop = asyncio.get_running_loop()

    conn = await loop.run_in_executor(None, _open_for, db, path)
    try:
        cols, params = await loop.run_in_executor(None, _columns, conn, function)
        where, values = [], []
        for key in request.args.keys():
            if key == "_dl":
                continue
            if len(request.args.getlist(key)) != 1:
                return _bad("%s: %s given more than once" % (function, key))
            value = request.args.get(key)
            if key not in cols and key not in params:
                return _bad("%s: no parameter or column %s (parameters: %s; columns: %s)" % (function, key, ", ".join(params), ", ".join(cols)))
            if key == "job" and "job" in cols:
                values.append(value)  # a job's name: bound, never spliced into the SQL
            elif _NUMBER.match(value):
                values.append(int(value) if re.match(r"^-?\d+$", value) else float(value))
            else:
                return _bad("%s: %s must be a number, not %r" % (function, key, value))
            where.append('"%s" = ?' % key.replace('"', '""'))
        sql = 'SELECT %s FROM "%s"' % (", ".join('"%s"' % c.replace('"', '""') for c in cols), function)
        if where:
            sql += " WHERE " + " AND ".join(where)
        try:
            cur = await loop.run_in_executor(None, conn.execute, sql, values)
        except sqlite3.Error as e:
            return _bad(str(e) if str(e).startswith(function) else "%s: %s" % (function, e))
    except BaseException:
        conn.close()
        raise

    async def stream(writer):
        try:
            buf = io.StringIO()
            w = csv.writer(buf, lineterminator="\n")
            w.writerow(cols)
            while True:
                rows = await loop.run_in_executor(None, cur.fetchmany, 5000)
                if not rows:
                    break
                w.writerows(rows)
                await writer.write(buf.getvalue())
                buf.seek(0)
                buf.truncate()
            if buf.tell():
                await writer.write(buf.getvalue())
        finally:
            conn.close()

    name = "%s-%s.csv" % (re.sub(r"[^A-Za-z0-9_.-]", "_", database), function)
    return AsgiStream(
        stream,
        headers={"content-disposition": 'attachment; filename="%s"' % name},
        content_type="text/csv; charset=utf-8",
    )


# ---- two jobs compared (hta_job_diff, hta_job_diff_summary)


def _compare_link(datasette, database, info):
    """The index's link to the compare page (when the database has two jobs or more)."""
    if len(info.jobs) < 2:
        return ""
    return '<h2>Compare two runs</h2><p><a href="%s">%s</a></p>' % (
        html.escape(_url(datasette, database, "compare")),
        "pick two jobs: the step difference by part, the operators, the matched call trees")


async def make_compare_report(path, control, test, info):
    """The report of PATH opened by the comparison of jobs CONTROL and TEST (hta-ingest
    --report OUT DB --job TEST --compare CONTROL TEST), cached per database version and pair:
    (html text, None) or (None, error message)."""
    global _report_dir
    if _report_dir is None:
        _report_dir = tempfile.mkdtemp(prefix="datasette-hta-")
        atexit.register(shutil.rmtree, _report_dir, True)
    key = "cmp-%x-%x" % (abs(hash((os.path.abspath(path), info.stamp))), abs(hash((control, test))))
    out = os.path.join(_report_dir, key + ".html")
    lock = _report_locks.setdefault(key, asyncio.Lock())
    async with lock:
        if not os.path.exists(out):
            args = [hta_sqlite.ingest_path(), "-q", "--report", out + ".tmp", path, "--job", test, "--compare", control, test]
            proc = await asyncio.create_subprocess_exec(*args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
            _, err = await proc.communicate()
            if proc.returncode not in (0, 1) or not os.path.exists(out + ".tmp"):
                return None, "hta-ingest --report --compare failed (exit %s): %s" % (proc.returncode, err.decode("utf-8", "replace").strip())
            os.replace(out + ".tmp", out)
    with open(out, encoding="utf-8") as f:
        return f.read(), None


def _compare_form(datasette, database, info, control, test, note=""):
    def options(selected):
        return "".join('<option%s>%s</option>' % (" selected" if j == selected else "", html.escape(j)) for j in info.jobs)

    first = info.jobs[0] if info.jobs else ""
    last = info.jobs[-1] if info.jobs else ""
    return (
        "%s<form method=\"get\" action=\"%s\"><p>Control (before) <select name=\"control\">%s</select> "
        "test (after) <select name=\"test\">%s</select> <input type=\"submit\" value=\"Compare\"></p></form>"
        "<p>Each side is one trace file: the lowest rank of the control job, and the same rank of the test job "
        "when it has it. The page is <code>hta-ingest --report OUT DB --compare CONTROL TEST</code>; in SQL, "
        "<code>hta_job_diff_summary(control, test)</code> and <code>hta_job_diff(control, test)</code>.</p>"
        % (note, html.escape(_url(datasette, database, "compare")), options(control or first), options(test or last))
    )


async def compare_view(datasette, request):
    """Two jobs of the database compared (hta-ingest --report --compare), in Datasette's page;
    without both jobs named, a form to pick them."""
    database, found = await _check(datasette, request)
    if not found:
        return await _not_hta(datasette, request, database)
    db, path, info = found
    control, test = request.args.get("control"), request.args.get("test")
    title = "Compare two runs of " + database
    if not control or not test:
        return await _render(datasette, request, title, _links(datasette, database) + _compare_form(datasette, database, info, control, test), database)
    missing = [j for j in (control, test) if j not in info.jobs]
    if missing:
        note = '<p class="message-error">No job %s in %s.</p>' % (html.escape(", ".join(missing)), html.escape(database))
        return await _render(datasette, request, title, _links(datasette, database) + _compare_form(datasette, database, info, control, test, note),
                             database, status=404)
    text, err = await make_compare_report(path, control, test, info)
    if err:
        return await _render(datasette, request, "Comparison failed", "<pre>%s</pre>" % html.escape(err), database, status=500)
    styles, body = _report_parts(text)
    links = _links(datasette, database) + '<p><a href="%s">compare other jobs</a></p>' % html.escape(_url(datasette, database, "compare"))
    return await _render(datasette, request, "%s \u2192 %s" % (control, test), links + body, database, styles)