"""The Datasette plugin datasette_hta against real Datasette, through Datasette's own test
client (no server, no network).

    python3 tests/datasette/test_plugin.py [--times FILE] [--limited] [--immutable] DB...

--limited and --immutable apply to the DB after them (--immutable: served with -i).

Each DB is served alone, under its file name. Every table page, every view page, a row page
of event, every canned query (HTML and JSON), the plugin's index, job and CSV pages must answer
200, and:
  - the plugin is registered through its entry point and loads hta.so into Datasette's
    connections; visitors' SQL cannot call load_extension(), nor the io entry point's functions;
  - the canned queries are exactly those of queries.sql, with titles and descriptions;
  - for a DB after --limited (the demo, three jobs), no canned query, per job or for all
    jobs, and no page of the plugin (index, job, the findings of every job, each job's part)
    is interrupted by Datasette's time limit (its default, 1 s, which Datasette enforces: an
    interrupted query is its "SQL Interrupted" error); the times are printed, never compared
    with a number (a busy machine must not fail the test);
  - the plugin's pages are Datasette pages (its header, navigation and footer); a job page
    shows the job's findings first (from hta_findings: every title, evidence folded) and is
    computed once (a second visit computes nothing: datasette_hta.STATS);
  - the findings query has evidence as its last column, folded on the page; the module view
    query answers (rows on the demo's recorded job);
  - trace labels are the file names relative to the job's folder, the full path on hover;
  - an argument's error is the query's own message, word for word (no "JSON path error");
  - rank=abc gives an error message, not the rows of rank 0; rank=0 gives rank 0's rows only;
  - job=nope gives an error message, not an empty page; job=NAME gives that job's rows only
    (limited too), and every job of the DB has rows in some canned query;
  - event pages show names (foreign-key labels), not only ids;
  - each CSV download has every row (the count SQL gives), a bad parameter gives 400;
  - a database of two jobs or more has a compare page: a form, then for the first and the
    last job the report's comparison part (its waterfall has one bar per part of
    hta_job_diff_summary's role split, and the two steps); a job not there gives 404;
  - a database that is not an hta-sqlite one gets none of this.
Prints one line per request with its time; --times FILE appends them there. Exit 1 on failure.
"""

import asyncio
import csv
import html
import io
import json
import os
import re
import sqlite3
import sys
import tempfile
import time
import urllib.parse

from datasette.app import Datasette

import datasette_hta
import hta_sqlite

failures = []
log = []
HTA_DB = HTA_NAME = None  # the first database checked


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def check(cond, msg):
    if not cond:
        fail(msg)
    return cond


async def get(ds, path, expect=200):
    t = time.perf_counter()
    r = await ds.client.get(path)
    ms = (time.perf_counter() - t) * 1000
    log.append((path, r.status_code, ms))
    check(r.status_code == expect, "%s: HTTP %d, expected %d: %s" % (path, r.status_code, expect, r.text[:300]))
    return r, ms


def interrupted(r):
    """Datasette stopped the query at its time limit (views/base.py: "SQL Interrupted")."""
    return r.status_code == 400 and ("SQL Interrupted" in r.text or "took too long" in r.text)


async def check_hta(path, limited, immutable=False):
    global HTA_DB, HTA_NAME
    name = os.path.splitext(os.path.basename(path))[0]
    if HTA_DB is None:
        HTA_DB, HTA_NAME = path, name
    ds = Datasette(immutables=[path]) if immutable else Datasette(files=[path])
    await ds.invoke_startup()
    q = "/" + urllib.parse.quote(name)
    sql = hta_sqlite.connect(path, readonly=True)

    # The plugin is there, through its entry point.
    r, _ = await get(ds, "/-/plugins.json")
    hooks = [p for p in r.json() if "canned_queries" in p.get("hooks", []) and "prepare_connection" in p.get("hooks", [])]
    check(any(p["name"] == "hta-sqlite" for p in hooks), "the hta-sqlite plugin is not registered: %s" % r.text[:300])
    check(ds.setting("suggest_facets") is False, "facet suggestions are still on")

    # Every table and view page, hidden tables included.
    r, _ = await get(ds, q + ".json")
    info = r.json()
    tables = [t["name"] for t in info["tables"]]
    views = [v["name"] for v in info["views"]]
    for t in ("trace", "event", "string", "category", "meta", "_hta_column"):
        check(t in tables, "table %s missing from %s" % (t, q))
    check("events" in views and "kernels" in views, "views missing: %s" % views)
    check(any(t["name"] == "_hta_column" and t["hidden"] for t in info["tables"]), "_hta_column is not hidden")
    for t in tables + views:
        await get(ds, "%s/%s" % (q, urllib.parse.quote(t)))
        await get(ds, "%s/%s.json?_size=5" % (q, urllib.parse.quote(t)))

    # Descriptions from _hta_column; names instead of ids on the event pages.
    r, _ = await get(ds, q + "/event")
    desc = sql.execute("SELECT description FROM _hta_column WHERE table_name = 'event' AND column_name = ''").fetchone()[0]
    check(desc[:40] in r.text.replace("&#39;", "'").replace("&#34;", '"'), "the event page lacks its description")
    cats = {row[0] for row in sql.execute("SELECT name FROM category")}
    labels = set(re.findall(r'<a href="[^"]*/category/\d+">([^<]+)</a>', r.text))
    check(labels and labels <= cats, "event page: no category names as links (labels %s)" % sorted(labels)[:5])
    names = set(re.findall(r'<a href="[^"]*/string/\d+">([^<]+)</a>', r.text))
    check(len(names) > 0, "event page: no event names as links")
    eid, ename = sql.execute(
        "SELECT e.event_id, s.value FROM event e JOIN string s ON s.string_id = e.name_id ORDER BY e.event_id LIMIT 1 OFFSET 10"
    ).fetchone()
    r, _ = await get(ds, "%s/event/%d" % (q, eid))
    check(ename[:30] in r.text.replace("&lt;", "<").replace("&gt;", ">").replace("&#39;", "'").replace("&amp;", "&"),
          "event row page %d lacks its name %r" % (eid, ename))
    await get(ds, "%s/event/%d.json" % (q, eid))
    r, _ = await get(ds, "%s/events.json?_shape=array&_size=3" % q)
    check(all(isinstance(x.get("name"), str) for x in r.json()), "the events view has no names")

    # Canned queries: exactly those of queries.sql, with titles, each answering.
    queries = datasette_hta.parse_queries(datasette_hta._queries_sql())
    check(len(queries) >= 20, "only %d canned queries in queries.sql" % len(queries))
    canned = await ds.get_canned_queries(name, None)
    db_jobs = [row[0] for row in sql.execute("SELECT name FROM job ORDER BY job_id")]
    jobs_seen = set()
    check(sorted(canned) == sorted(n for n, _, _, _ in queries), "canned queries differ from queries.sql: %s" % sorted(canned))
    for qn, title, _, _ in queries:
        c = canned.get(qn, {})
        check(c.get("title") == title and c.get("description"), "canned query %s: title or description missing" % qn)
        r, _ = await get(ds, "%s/%s" % (q, qn))
        check(title in r.text.replace("&#34;", '"').replace("&#39;", "'"), "%s: the page lacks its title" % qn)
        r, ms = await get(ds, "%s/%s.json?_shape=objects" % (q, qn))
        body = r.json()
        if limited:
            check(not interrupted(r), "%s: interrupted by Datasette's time limit (%.0f ms)" % (qn, ms))
        if check(body.get("ok") is True, "%s: not ok: %s" % (qn, body.get("error"))):
            log.append(("  %s query_ms" % qn, 200, body.get("query_ms", -1)))
        # none in generated traces: memory_by_operator (records outside their operator),
        # module_stats (no nn.Module events; the recorded job has them: checked below)
        if qn not in ("cupti_counters", "queue_full_time", "memory_by_operator", "module_stats"):
            check(len(body.get("rows", [])) > 0, "%s: no rows" % qn)
        if "rank" in c.get("params", []):
            r, _ = await get(ds, "%s/%s.json?rank=0&_shape=objects" % (q, qn))
            rows = r.json().get("rows", [])
            check(r.json().get("ok") and all(x.get("rank", 0) == 0 for x in rows), "%s?rank=0: rows of other ranks" % qn)
            r, _ = await get(ds, "%s/%s.json?rank=abc&_shape=objects" % (q, qn), expect=400)
            b = r.json()
            if rows:
                check(b.get("ok") is False and (b.get("error") or "").startswith("rank must be an integer") and not b.get("rows"),
                      "%s?rank=abc: %s" % (qn, str(b)[:200]))
        if "job" in c.get("params", []):
            r, _ = await get(ds, "%s/%s.json?job=nope&_shape=objects" % (q, qn), expect=400)
            b = r.json()
            check(b.get("ok") is False and (b.get("error") or "").startswith("job must be the name of a job") and not b.get("rows"),
                  "%s?job=nope: %s" % (qn, str(b)[:200]))
            for j in db_jobs:
                r, ms = await get(ds, "%s/%s.json?job=%s&_shape=objects" % (q, qn, urllib.parse.quote(j)))
                b = r.json()
                rows = b.get("rows", [])
                if limited:
                    check(not interrupted(r), "%s?job=%s: interrupted by Datasette's time limit" % (qn, j))
                if check(b.get("ok") is True, "%s?job=%s: not ok: %s" % (qn, j, b.get("error"))):
                    log.append(("  %s?job=%s query_ms" % (qn, j), 200, b.get("query_ms", -1)))
                check(all(x.get("job") == j for x in rows), "%s?job=%s: rows of other jobs" % (qn, j))
                if rows:
                    jobs_seen.add(j)
    check(jobs_seen == set(db_jobs), "jobs with no rows in any canned query: %s" % sorted(set(db_jobs) - jobs_seen))
    # The TensorBoard plugin's Execution Summary through its canned query: rank 0's nine rows per
    # job, as the SQL function gives them (the canned query adds only the argument checks).
    r, _ = await get(ds, q + "/execution_summary.json?rank=0&_shape=objects")
    got = [(x.get("job"), x.get("role"), x.get("mean_us"), x.get("shown")) for x in r.json().get("rows", [])]
    want = [tuple(x) for x in sql.execute("SELECT job, role, mean_us, shown FROM hta_execution_summary WHERE rank = 0")]
    check(got == want and len(got) == 9 * len(db_jobs) and ("DataLoader" in [x[1] for x in got]),
          "execution_summary?rank=0: %s" % str(got)[:300])
    # The findings query: one job per page (the first when empty), evidence last and folded.
    r, _ = await get(ds, q + "/findings.json?_shape=objects")
    rows = r.json().get("rows", [])
    check(rows and list(rows[0])[-1] == "evidence" and {x["job"] for x in rows} == {db_jobs[0]},
          "findings: evidence is not the last column, or not the first job only: %s" % (list(rows[0]) if rows else rows))
    r, _ = await get(ds, q + "/findings")
    check("<details><summary>evidence</summary>" in r.text, "findings page: the evidence is not folded")
    # The nn.Module view: the recorded job has module events.
    if "recorded_h200" in db_jobs:
        r, _ = await get(ds, q + "/module_stats.json?job=recorded_h200&rank=0&_shape=objects")
        rows = r.json().get("rows", [])
        check(len(rows) > 10 and rows[0]["depth"] == 0 and rows[0]["path"].startswith('["'),
              "module_stats: %s" % str(rows[:2])[:200])
    # Trace labels: the file name in its job's folder, the full path on hover.
    r, _ = await get(ds, q + "/event?_size=5")
    short, full = sql.execute("SELECT t.file_name, j.source FROM trace t JOIN job j USING (job_id) ORDER BY t.trace_id").fetchone()
    rel = short[len(full.rstrip("/")) + 1:] if full and short.startswith(full.rstrip("/") + "/") else os.path.basename(short)
    check('title="%s">%s</a>' % (html.escape(short), html.escape(rel)) in r.text,
          "event page: the trace label is not %r with the full path on hover" % rel)
    r, _ = await get(ds, q + "/jobs.json?_shape=objects")
    check([x.get("job") for x in r.json().get("rows", [])] == db_jobs, "the jobs query: %s" % r.text[:200])
    r, _ = await get(ds, q + "/temporal_breakdown?job=nope", expect=400)
    check("job must be the name of a job" in r.text and "<form" in r.text, "job=nope: no error message on the page")
    # The analyses check their own parameters: an error, not a default.
    r, _ = await get(ds, q + "/idle_time_breakdown.json?consecutive_kernel_delay_us=abc", expect=400)
    check("consecutive_kernel_delay_us" in (r.json().get("error") or ""), "consecutive_kernel_delay_us=abc: %s" % r.text[:200])
    # The error is shown on the HTML page, with the form.
    r, _ = await get(ds, q + "/temporal_breakdown?rank=abc", expect=400)
    check("rank must be an integer" in r.text and "<form" in r.text and "JSON path" not in r.text,
          "rank=abc: no error message of its own on the page")

    # Strangers' SQL: no load_extension(), no io functions.
    for s in ("select load_extension('%s', 'sqlite3_hta_io_init')" % hta_sqlite.path(),
              "select hta_write_trace_with_counters(0, '/tmp/x.json')"):
        r, _ = await get(ds, "%s.json?sql=%s" % (q, urllib.parse.quote(s)), expect=400)
        check(r.json().get("ok") is False, "%s: was allowed" % s)
    r, _ = await get(ds, "%s.json?sql=%s&_shape=array" % (q, urllib.parse.quote("select hta_version() AS v")))
    check(r.json()[0]["v"].startswith("v"), "hta_version() is not loaded")

    # Index, job pages (findings first, then the report's charts), each computed once.
    def datasette_page(text):
        return '<header><nav>' in text and 'class="crumbs"' in text and 'class="ft"' in text

    r, ms = await get(ds, "/-/hta/" + urllib.parse.quote(name))
    if limited:
        check(not interrupted(r), "index: interrupted")
    jobs = datasette_hta.list_jobs(sql)
    check(all(j in r.text for j in jobs), "the index lacks the jobs %s" % jobs)
    check(datasette_page(r.text), "the index is not a Datasette page (header, navigation, footer)")
    from datasette.utils import tilde_encode

    for j in jobs:
        before = dict(datasette_hta.STATS)
        r, ms1 = await get(ds, "/-/hta/%s/job/%s" % (urllib.parse.quote(name), tilde_encode(j)))
        check(datasette_page(r.text), "job %s: not a Datasette page" % j)
        src = html.unescape((re.findall(r'class="hta-report" data-src="([^"]+)"', r.text) or [""])[0])
        rep, msr = await get(ds, src)  # the report, loaded by the page on its own
        check("<svg" in rep.text and "Temporal breakdown" in rep.text and '<section id="findings">' not in rep.text,
              "job %s: no charts in its report part, or its findings twice" % j)
        # the job page opens with the job's findings (section 1), the ones hta_findings gives
        found = [row[0] for row in sql.execute("SELECT title FROM hta_findings WHERE job IS ?", [None if j == "all" else j])]
        first = r.text.find('<section id="findings">'), r.text.find('class="hta-report"')
        check(0 <= first[0] < first[1] and "1. Findings: what to fix" in r.text and r.text.count('<section id="findings">') == 1,
              "job %s: the findings do not lead the page (once)" % j)
        page = html.unescape(r.text)
        missing = [t for t in found if t not in page]
        check(not missing, "job %s: findings missing from its page: %s" % (j, missing[:3]))
        check(not found or "<details><summary>evidence</summary>" in r.text, "job %s: evidence not folded" % j)
        check('/findings?job=' in r.text or j == "all", "job %s: no link to the findings query" % j)
        # the report part opens with the Trace health block (report_health.c); the page links the query
        temporal = re.search(r'<section id="[^"]*temporal"', rep.text)
        check(temporal is not None and 0 <= rep.text.find('health"><h2>Trace health</h2>') < temporal.start(),
              "job %s: no Trace health block above its report part's sections" % j)
        check('/trace_health?job=' in r.text or j == "all", "job %s: no link to the trace_health query" % j)
        made = dict(datasette_hta.STATS)
        r, ms2 = await get(ds, "/-/hta/%s/job/%s" % (urllib.parse.quote(name), tilde_encode(j)))
        await get(ds, src)
        check(datasette_hta.STATS == made and made != before,
              "job %s: computed again on the second visit (%s, then %s)" % (j, made, datasette_hta.STATS))
        log.append(("  job %s: page %.0f ms (report %.0f ms), then %.0f ms" % (j, ms1, msr, ms2), 200, ms2))
    await get(ds, "/-/hta/%s/job/no-such-job" % urllib.parse.quote(name), expect=404)

    # The compare page (two jobs or more): a form, then the report's comparison part for a
    # pair (the step waterfall, the operators, the matched trees), a job not there: 404.
    if len(jobs) >= 2:
        base = "/-/hta/%s/compare" % urllib.parse.quote(name)
        r, _ = await get(ds, "/-/hta/" + urllib.parse.quote(name))
        check("/compare" in r.text, "the index has no link to the compare page")
        r, _ = await get(ds, base)
        check('<select name="control">' in r.text and '<select name="test">' in r.text, "compare: no form")
        r, _ = await get(ds, "%s?control=%s&test=%s" % (base, urllib.parse.quote(jobs[0]), urllib.parse.quote(jobs[-1])))
        page = html.unescape(r.text)
        check("Comparison: %s \u2192 %s" % (jobs[0], jobs[-1]) in page, "compare: no comparison heading")
        check('aria-label="The mean step from one run to the other, part by part"' in r.text, "compare: no waterfall")
        want = sql.execute("SELECT count(*) FROM hta_job_diff_summary(?, ?) WHERE split = 'role' AND part <> 'step'",
                           [jobs[0], jobs[-1]]).fetchone()[0]
        bars = re.search(r'part by part">(.*?)</svg>', r.text, re.S)
        check(bars is not None and bars.group(1).count("<rect") == want + 2,
              "compare: the waterfall has not one bar per part (%d) and the two steps" % want)
        await get(ds, "%s?control=nope&test=%s" % (base, urllib.parse.quote(jobs[0])), expect=404)

    # The findings of every job: the page answers at once, each job's part on its own request.
    r, _ = await get(ds, "/-/hta/%s/findings" % urllib.parse.quote(name))
    check(datasette_page(r.text), "the findings page is not a Datasette page")
    srcs = [html.unescape(x) for x in re.findall(r'data-src="([^"]+)"', r.text)]
    check(len(srcs) == len(jobs), "the findings page has %d parts for %d jobs" % (len(srcs), len(jobs)))
    for src, j in zip(srcs, jobs):
        r, _ = await get(ds, src)
        if limited:
            check(not interrupted(r), "findings of %s: interrupted" % j)
        titles = [row[0] for row in sql.execute("SELECT title FROM hta_findings WHERE job IS ?", [None if j == "all" else j])]
        check(all(t in html.unescape(r.text) for t in titles), "findings part of %s: titles missing" % j)
    # CSV: every row of the series.
    for fn in datasette_hta.CSV_FUNCTIONS:
        for args, where in (("", ""), ("?rank=0", " WHERE rank = 0")):
            r, _ = await get(ds, "/-/hta/%s/%s.csv%s" % (urllib.parse.quote(name), fn, args))
            check(r.headers.get("content-type", "").startswith("text/csv"), "%s: content-type %s" % (fn, r.headers.get("content-type")))
            rows = list(csv.reader(io.StringIO(r.text)))
            want = sql.execute("SELECT count(*) FROM %s%s" % (fn, where)).fetchone()[0]
            check(len(rows) - 1 == want, "%s.csv%s: %d rows, SQL counts %d" % (fn, args, len(rows) - 1, want))
            check(want > 0, "%s%s: no rows on this database" % (fn, where))
            log.append(("  %s.csv%s rows" % (fn, args), 200, len(rows) - 1))
    r, _ = await get(ds, "/-/hta/%s/hta_queue_length.csv?rank=abc" % urllib.parse.quote(name), expect=400)
    await get(ds, "/-/hta/%s/hta_queue_length.csv?rank=1;drop" % urllib.parse.quote(name), expect=400)
    await get(ds, "/-/hta/%s/hta_queue_length.csv?nope=1" % urllib.parse.quote(name), expect=400)
    await get(ds, "/-/hta/%s/hta_version.csv" % urllib.parse.quote(name), expect=404)
    r, _ = await get(ds, "/-/hta/%s/hta_queue_length.csv?collapse_ties=1&rank=1" % urllib.parse.quote(name))
    want = sql.execute("SELECT count(*) FROM hta_queue_length(0, 1) WHERE rank = 1").fetchone()[0]
    check(r.text.count("\n") - 1 == want, "collapse_ties=1&rank=1: %d rows, SQL %d" % (r.text.count("\n") - 1, want))
    sql.close()


async def check_user_metadata():
    """The user's metadata wins over the plugin's; allow_csv_stream off turns the CSV route off."""
    ds = Datasette(files=[HTA_DB], metadata={"title": "Mine", "databases": {HTA_NAME: {"description": "my traces"}}},
                   settings={"allow_csv_stream": False})
    await ds.invoke_startup()
    r, _ = await get(ds, "/")
    check("Mine" in r.text and "hta-sqlite" not in r.text.split("<h1")[1][:100], "the user's title lost")
    r, _ = await get(ds, "/" + HTA_NAME)
    check("my traces" in r.text and "Reports with charts" not in r.text, "the user's database description lost")
    await get(ds, "/-/hta/%s/hta_queue_length.csv" % HTA_NAME, expect=403)


async def check_job_option():
    """Job pages call hta-ingest --report with --job NAME when its --help mentions --job (a
    stand-in hta-ingest records its arguments); names come from the job table."""
    from datasette.utils import tilde_encode

    d = tempfile.mkdtemp()
    db = os.path.join(d, "jobs.db")
    with open(HTA_DB, "rb") as f, open(db, "wb") as g:
        g.write(f.read())
    c = sqlite3.connect(db)
    c.execute("DELETE FROM job")
    c.execute("INSERT INTO job(job_id, name) VALUES (7, 'train run/1'), (8, 'eval')")
    c.commit()
    c.close()
    argsfile, fake = os.path.join(d, "args"), os.path.join(d, "fake-ingest")
    with open(fake, "w") as f:
        f.write('#!/bin/sh\n[ "$1" = --help ] && { echo "  --job NAME   the job to report"; exit 0; }\n'
                'printf "%%s|" "$@" > %s\nprintf "<!DOCTYPE html><html><body>fake report</body></html>" > "$2"\n' % argsfile)
    os.chmod(fake, 0o755)
    saved = datasette_hta.hta_sqlite.ingest_path, datasette_hta._has_job
    datasette_hta.hta_sqlite.ingest_path, datasette_hta._has_job = (lambda: fake), None
    try:
        ds = Datasette(files=[db])
        await ds.invoke_startup()
        r, _ = await get(ds, "/-/hta/jobs")
        check("train run/1" in r.text and "eval" in r.text and ">all<" not in r.text, "jobs index: %s" % r.text[-400:])
        r, _ = await get(ds, "/-/hta/jobs/job/" + tilde_encode("train run/1") + "/report")
        check("fake report" in r.text, "job page: not the report")
        with open(argsfile) as f:
            args = f.read().split("|")
        check(args[0] == "--report" and args[2:4] == ["--job", "train run/1"] and args[4] == db,
              "hta-ingest arguments: %r" % args)
        await get(ds, "/-/hta/jobs/job/all", expect=404)
    finally:
        datasette_hta.hta_sqlite.ingest_path, datasette_hta._has_job = saved


def check_findings_v2():
    """findings_html on rows of DESIGN.md's findings version 2 (kind, parent, caveats and the
    per-rank 'step' summary): the summary's recoverable share first, the causes inside their
    symptom, caveats shown, each finding's evidence last and folded; and on version-1 rows
    (today's columns) the same page without those parts."""
    cols = ["rank", "rule", "kind", "parent", "source", "time_us", "pct_of_step", "title", "advice", "evidence",
            "caveats", "trace_id", "job"]
    rows = [
        (0, "step", "summary", None, "hta-sqlite", 1000.0, 42.0, "Step 10 ms: 42% recoverable", None, "{}", "[]", 1, "j"),
        (0, "gpu_low_utilization", "symptom", None, "hta-sqlite", 600.0, 25.0, "GPU idle 60%", "see causes",
         '{"idle_us": 600}', '["2 of 8 ranks profiled"]', 1, "j"),
        (0, "host_sync", "cause", "gpu_low_utilization", "hta-sqlite", 400.0, 16.0, "Syncs drain the queue",
         "drop .item()", '{"calls": 3}', "[]", 1, "j"),
        (0, "dataloader", "cause", "gpu_low_utilization", "hta-sqlite", 200.0, 8.0, "DataLoader waits", "workers",
         '{"us": 200}', "[]", 1, "j"),
        (0, "low_efficiency", "busy", None, "hta-sqlite", 300.0, 12.0, "Slow GEMMs", "bf16", '{"x": 1}', "[]", 1, "j"),
    ]
    page = datasette_hta.findings_html(cols, rows)
    pos = {t: page.find(t) for t in ("42% recoverable", "GPU idle 60%", "Syncs drain", "DataLoader waits", "Slow GEMMs",
                                      "2 of 8 ranks profiled")}
    check(all(v >= 0 for v in pos.values()), "findings v2: missing parts %s" % [k for k, v in pos.items() if v < 0])
    check(pos["42% recoverable"] < pos["GPU idle 60%"] < pos["Syncs drain"] < pos["DataLoader waits"] < pos["Slow GEMMs"],
          "findings v2: not summary, symptom, its causes, then the rest: %s" % pos)
    symptom = page[pos["GPU idle 60%"]:pos["Slow GEMMs"]]
    check(symptom.count('class="hta-finding hta-cause"') == 2 and symptom.rfind("<details><summary>evidence") >
          symptom.find("DataLoader waits"), "findings v2: the causes are not inside their symptom, evidence last")
    check(pos["2 of 8 ranks profiled"] < pos["Syncs drain"] and "&#9888;" in page, "findings v2: caveat not shown")
    # hta_findings' caveats are {"check", "value", "text"} objects: their text is shown, the trace's
    # (on every row of the trace) once, under the summary; a finding's own under the finding
    trace_cav = {"check": "steps", "value": 0, "text": "no ProfilerStep: the window is one step"}
    own = {"check": "unexplained", "text": "2000 us of the idle time has no cause in the trace"}
    objs = [
        (0, "step", "summary", None, "hta-sqlite", 10.0, 1.0, "Step 10 ms", None, "{}", json.dumps([own, trace_cav]), 1, "j"),
        (0, "host_sync", "cause", "step", "hta-sqlite", 5.0, 0.5, "Syncs", "drop .item()", "{}",
         json.dumps([{"check": "outlier_steps", "text": "step 5 is an outlier"}, trace_cav]), 1, "j"),
        (0, "dataloader", "cause", "step", "hta-sqlite", 4.0, 0.4, "Loader", "workers", "{}", json.dumps([trace_cav]), 1, "j"),
    ]
    page = datasette_hta.findings_html(cols, objs)
    check(page.count("no ProfilerStep: the window is one step") == 1 and "&#x27;check&#x27;" not in page
          and "'check'" not in page, "findings v2: the trace's caveat once, as its text: %s" % page[:600])
    check(page.find("no ProfilerStep") < page.find("Syncs") and page.find("2000 us of the idle time") < page.find("Syncs")
          and page.find("Syncs") < page.find("step 5 is an outlier") < page.find("Loader"),
          "findings v2: the summary's caveats under it, a finding's own under the finding: %s" % page[:800])
    # times as hta-ingest --findings writes them; the recoverable share after a title that lacks it
    check("5 µs per step" in page and "4 µs per step" in page and "recoverable: 1.0% of the step" in page,
          "findings v2: times or share: %s" % page[:800])
    page = datasette_hta.findings_html(cols, [rows[0], rows[1][:5] + (166582.4,) + rows[1][6:]])
    check("166.6 ms per step" in page and "recoverable: 42.0%" not in page,
          "findings v2: a time in ms, no share after a title that says it: %s" % page[:600])
    cell = datasette_hta._caveats_html(json.dumps([trace_cav, "a plain string"]))
    check(str(cell) == "&#9888; no ProfilerStep: the window is one step<br>&#9888; a plain string",
          "the caveats cell: %s" % cell)
    v1 = [c for c in cols if c not in ("kind", "parent", "caveats")]
    page = datasette_hta.findings_html(v1, [tuple(r[cols.index(c)] for c in v1) for r in rows[1:]])
    check("hta-cause" not in page and page.count("<details><summary>evidence") == 4 and "Slow GEMMs" in page,
          "findings v1: %s" % page[:200])


async def check_plain():
    """A database that is not an hta-sqlite one: no canned queries, no plugin pages."""
    d = tempfile.mkdtemp()
    p = os.path.join(d, "plain.db")
    c = sqlite3.connect(p)
    c.execute("CREATE TABLE trace(x)")
    c.execute("INSERT INTO trace VALUES (1)")
    c.commit()
    c.close()
    ds = Datasette(files=[p])
    await ds.invoke_startup()
    check(await ds.get_canned_queries("plain", None) == {}, "plain.db got canned queries")
    await get(ds, "/plain")
    await get(ds, "/plain/trace")
    await get(ds, "/-/hta/plain", expect=404)
    await get(ds, "/-/hta/plain/hta_queue_length.csv", expect=404)
    r, _ = await get(ds, "/plain.json?sql=%s&_shape=array" % urllib.parse.quote("select hta_version() AS v"))
    check(r.json()[0]["v"].startswith("v"), "hta.so not loaded into a plain database's connections")

    # The user's metadata wins; allow_csv_stream off turns the CSV route off.
    if HTA_DB:
        await check_user_metadata()
        await check_job_option()

    # With Datasette's own --load-extension too, load_extension() is off once the plugin ran.
    ds = Datasette(files=[p], sqlite_extensions=[hta_sqlite.path()])
    await ds.invoke_startup()
    s = "select load_extension('%s', 'sqlite3_hta_io_init')" % hta_sqlite.path()
    r, _ = await get(ds, "/plain.json?sql=%s" % urllib.parse.quote(s), expect=400)
    check("not authorized" in (r.json().get("error") or ""), "--load-extension: load_extension() callable: %s" % r.text[:200])


def main():
    args = sys.argv[1:]
    limited, immutable, times, dbs = False, False, None, []
    while args:
        a = args.pop(0)
        if a == "--limited":
            limited = True
        elif a == "--immutable":
            immutable = True
        elif a == "--times":
            times = args.pop(0)
        else:
            dbs.append((a, limited, immutable))
            limited = immutable = False
    for db, limited, immutable in dbs:
        print("== %s%s%s" % (db, " (Datasette's 1 s limit)" if limited else "", " (immutable)" if immutable else ""))
        n0 = len(log)
        asyncio.run(check_hta(db, limited, immutable))
        for path, status, ms in log[n0:]:
            print("%4s %8.1f  %s" % (status, ms, path))
    check_findings_v2()
    asyncio.run(check_plain())
    if times:
        with open(times, "a") as f:
            for path, status, ms in log:
                f.write("%s\t%s\t%.1f\n" % (path, status, ms))
    n = sum(1 for p, _, _ in log if not p.startswith("  "))
    print("%d requests, %d failures" % (n, len(failures)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
