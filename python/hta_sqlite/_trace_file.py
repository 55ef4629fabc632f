"""Trace files as JSON, shared by trace_analysis and _critical_path (neither imports the
other): read one (gzip or plain, by its content; a bare list of events becomes
{"traceEvents": [...]}), let a function change it, and write it back (gzip when the
name ends in .gz) through a temporary file renamed into place, so the output is never
half written and no temporary file is left behind.
"""

import gzip
import json
import os


def _rewrite_trace(src_path, out, edit):
    """Reads the trace SRC_PATH (gzip or plain), lets EDIT change the parsed object, and
    writes it to OUT (gzip when OUT ends in .gz), atomically."""
    opener = gzip.open if _is_gzip(src_path) else open
    with opener(src_path, "rt", encoding="utf-8") as f:
        trace = json.load(f)
    if isinstance(trace, list):
        trace = {"traceEvents": trace}
    edit(trace)
    tmp = out + ".tmp-%d" % os.getpid()
    wopen = gzip.open if out.endswith(".gz") else open
    try:
        with wopen(tmp, "wt", encoding="utf-8") as f:
            json.dump(trace, f)
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return out


def _is_gzip(path):
    with open(path, "rb") as f:
        return f.read(2) == b"\x1f\x8b"

