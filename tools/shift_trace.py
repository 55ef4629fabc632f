#!/usr/bin/env python3
"""Writes a copy of a Kineto trace with every event moved in time: the second run of a
comparison that is the first one shifted (make bench times hta_job_diff on the bench tile
against such a copy of itself).

  shift_trace.py INPUT(.json|.json.gz) OUTPUT.json [--us N]

Every "ts": <number> gains N microseconds (default 1000000), its fractional digits kept
as text; nothing else changes. The file is read line by line (Kineto writes one key per
line or one event per line), so memory stays small whatever its size.
"""
import argparse
import gzip
import re

RE_TS = re.compile(r'("ts":\s*)(-?\d+)')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("--us", type=int, default=1000000)
    a = ap.parse_args()
    opener = gzip.open if a.input.endswith(".gz") else open
    with opener(a.input, "rt", encoding="utf-8") as src, open(a.output, "w", encoding="utf-8") as dst:
        for line in src:
            dst.write(RE_TS.sub(lambda m: m.group(1) + str(int(m.group(2)) + a.us), line))


if __name__ == "__main__":
    main()
