#!/usr/bin/env python3
"""mk_seeds.py: writes the generated seed inputs of the fuzz targets.

    python3 tests/fuzz/mk_seeds.py        # from the repository root

seed/gen_*.json[.gz]  the head of small traces from tools/gen_trace.py (CUDA, ROCm,
                      ns timestamps, python frames): the first events of traceEvents and
                      every top-level key, so each seed is a complete, valid trace of a
                      few kB (libFuzzer's -max_len follows the largest seed).
seed-sql/*            small programs for fuzz_sql (see its header): one per kind of
                      operation, over every target index, with each hostile value kind.
"""
import gzip, json, os, subprocess, sys, tempfile

here = os.path.dirname(os.path.abspath(__file__))
top = os.path.dirname(os.path.dirname(here))


def trace_heads():
    flavours = {"cuda": [], "amd": ["--amd"], "ns": ["--ns"], "python": ["--python"]}
    with tempfile.TemporaryDirectory() as d:
        for name, extra in flavours.items():
            out = os.path.join(d, name)
            subprocess.run([sys.executable, os.path.join(top, "tools", "gen_trace.py"), out, "--ranks", "1",
                            "--steps", "1", "--layers", "1", "-q"] + extra, check=True)
            src = os.path.join(out, sorted(os.listdir(out))[0])
            with open(src) as f:
                t = json.load(f)
            ev = t["traceEvents"]
            # a mix: the first events, a few GPU ones, the metadata events
            gpu = [e for e in ev if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")][:4]
            meta = [e for e in ev if e.get("ph") in ("M", "C", "s", "f")][:4]
            t["traceEvents"] = ev[:12] + gpu + meta
            text = json.dumps(t, separators=(",", ":") if name == "python" else (", ", ": "))
            path = os.path.join(here, "seed", "gen_%s.json" % name)
            if name == "amd":
                with gzip.open(path + ".gz", "wb", compresslevel=6) as f:
                    f.write(text.encode())
            else:
                with open(path, "w") as f:
                    f.write(text)


def sql_seeds():
    d = os.path.join(here, "seed-sql")
    os.makedirs(d, exist_ok=True)
    seeds = {}
    # op byte % 10: 0-1 corrupt, 2 insert event, 3-6 tvf, 7-8 function, 9 aggregate over event
    for form in range(7):  # every TVF form, a few targets each
        seeds["tvf_form%d" % form] = bytes([0, 3, form * 5, form, 28, 3, 27, 1, 5, 13, 18, 4, 19, 8, 6, 0, 9])
    for k in range(4):
        seeds["function%d" % k] = bytes([0, 7, k, 2, 1, 28, 4, 19, 3, 25] + [0xff] * 8 + [8, k, 3, 0])
    seeds["aggregate_events"] = bytes([0, 9, 0, 9, 1, 9, 3, 4, 5, 9, 2])
    seeds["corrupt_then_tvf"] = bytes([0, 0, 1, 0, 4, 3, 3, 0, 0, 1, 2, 5, 3, 11, 2])
    seeds["insert_then_tvf"] = bytes([0, 2] + [27, 1, 5] * 16 + [3, 0, 2, 0, 0])
    seeds["oom"] = bytes([1, 0, 40, 3, 0, 4, 1, 0, 3, 5, 0])
    seeds["interrupt"] = bytes([2, 30, 3, 3, 0, 7, 2, 0, 3, 9, 1])
    for name, b in seeds.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(b)


trace_heads()
sql_seeds()
