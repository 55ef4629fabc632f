#!/usr/bin/env python3
"""Prints the generated tables of docs/peaks.md from the schema's seeded rows:

  python3 tools/peaks_md.py schema/schema.sql

one row per device_peak row (pattern, spec, peak, memory, achievable figures, sources) and
per device_model row. tests/cli/peaks_doc.sh checks that docs/peaks.md holds exactly this
between its BEGIN/END generated markers."""
import sqlite3
import sys


def fmt(v):
    if v is None:
        return ""
    return ("%g" % v) if isinstance(v, float) else str(v)


def main():
    db = sqlite3.connect(":memory:")
    db.executescript(open(sys.argv[1], encoding="utf-8").read())
    out = []
    last = None
    rows = db.execute("SELECT device_pattern, priority, form_factor, compute_spec, peak_tflops,"
                      " peak_tbps, achievable_tflops, achievable_tbps, source, achievable_source"
                      " FROM device_peak ORDER BY priority, device_pattern,"
                      " compute_spec LIKE 'vector%', compute_spec").fetchall()
    for pat, pri, ff, spec, pk, bw, at, ab, src, asrc in rows:
        if (pat, pri) != last:
            out.append("")
            out.append("#### `%s` (priority %d): %s" % (pat, pri, ff))
            out.append("")
            out.append("| compute_spec | peak TFLOPS | peak TB/s | achievable TFLOPS | achievable TB/s | source | achievable from |")
            out.append("|---|---|---|---|---|---|---|")
            last = (pat, pri)
        out.append("| `%s` | %s | %s | %s | %s | %s | %s |" % (
            spec, fmt(pk), fmt(bw), fmt(at), fmt(ab), src or "", asrc or ""))
    out.append("")
    out.append("#### `device_model`: a GPU by its properties")
    out.append("")
    out.append("| device_type | compute | SMs / CUs | memory GiB | name | why |")
    out.append("|---|---|---|---|---|---|")
    for r in db.execute("SELECT device_type, compute_major, compute_minor, num_sms, min_mem_gib,"
                        " max_mem_gib, name, source FROM device_model ORDER BY rowid"):
        out.append("| %s | %d.%d | %d | %s–%s | %s | %s |" % (r[0], r[1], r[2], r[3], fmt(r[4]),
                                                           fmt(r[5]), r[6], r[7] or ""))
    print("\n".join(out).lstrip("\n"))


if __name__ == "__main__":
    main()
