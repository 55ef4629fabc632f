#!/usr/bin/env python3
"""Corpus check of the operator analyses on graph replays (ext/perf/op_perf_tree.c OP-17:
the captured operators grafted under their launches) against TraceLens's perf report on
the merged tree (tlg_* files), with op_perf.py's conventions and tolerances.

  graph_perf.py SHARED TMP INGEST EXT [JOB...]

Per job with SHARED/expected/<job>/tlg_events_rank<r>.csv (the job folder ingested as a
user would, cached by check_expected.ensure_db):
 1. tlg_events (one row per modelled call) with hta_op_perf('instance'), keyed by (table,
    the file and position of the call: the capture's for a captured operator, capture_uid,
    else the replay's, UID): op_perf.compare_call (name, parameters, FLOPs, bytes, compute
    spec, the GPU events as replay positions, kernel time within 2 * n * u, rates);
 2. tlg_ops (one row per signature) with hta_op_perf: matched by (table, name,
    parameters); calls, GFLOPS, bytes, kernel time sum/mean/median/min/max/std within the
    summed bounds;
 3. tlg_summary and tlg_summary_ops (per launcher category / name and parent module)
    summed over parent modules, with hta_op_perf_summary('category' / 'name'): launchers
    and kernel time.
Known differences, counted and printed, never failures: operators TraceLens models that
we do not yet (sglang_profiler::attention_paged_attention_ragged, vllm::moe_forward's
pseudo-ops: the inference models of issue 30's other part): their calls have no row of
ours and their launchers fall in our 'other' category; TraceLens's report renames
sglang_profiler::x_<n> to sglang_profiler::x (names compared after that rename); its
preset groups signatures by their number of kernels too (group_by_num_kernels), which ours
does not: such rows are compared summed (calls, sum, min, max, mean) and regrouped from
tlg_events (median, std).
Any other difference fails. Exits 1 on failure, 77 when no job has the files.
"""
import glob
import json
import os
import re
import sqlite3
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_expected import ensure_db  # noqa: E402
import op_perf  # noqa: E402
from op_perf import Ours, close, compare_call, compare_params, merged_params, num, read_csv, spacing  # noqa: E402

# TraceLens models these (its paged attention and MoE pseudo-ops); we do not yet.
UNMODELLED = re.compile(r"^(sglang_profiler::attention_paged_attention_ragged|pseudo_op::|"
                        r"vllm::moe_forward)")
# TraceLens's unified-attention rows carry the heads of K and V, dropout, causal, the flash
# implementation and the dtypes; our inference attention model (op_perf_model_infer.c) gives
# N_Q, N_KV, H_Q, H_KV, d_h and the per-request sums its FLOPs and bytes need, not those.
ATTN_NOT_GIVEN = ("H_V", "H_K", "dropout", "causal", "flash_impl", "dtype_Q", "dtype_KV")
ATTN_PARAMS_NOT_GIVEN = re.compile(r'^param (%s) ours "<absent>"' % "|".join(ATTN_NOT_GIVEN))
known = defaultdict(int)
counts = defaultdict(int)


def fail(msg):
    op_perf.fail(msg)


def renamed(name):
    """TraceLens's report: sglang_profiler::x_<n> -> sglang_profiler::x."""
    m = re.match(r"^(sglang_profiler::.*)_\d+$", name or "")
    return m.group(1) if m else name


def check_events(job, o, tid, rank, exp, u):
    rows = o.q("SELECT p.*, e.seq AS seq, e.trace_id AS etrace FROM hta_op_perf('instance') p"
               " JOIN event e ON e.event_id = p.event_id WHERE p.rank = ? AND p.trace_id = ?",
               (rank, tid))
    kseq = {r["event_id"]: r["seq"] for r in o.q(
        "SELECT event_id, seq FROM event WHERE trace_id = ? AND stream IS NOT NULL", (tid,))}
    ours = {}
    for r in rows:
        key = (r["category"], r["etrace"] != tid, r["seq"])
        if key in ours:
            fail("%s rank %d events: two calls of ours at %s (one window merged twice)"
                 % (job, rank, key))
        ours[key] = r
    where = "%s rank %d events" % (job, rank)
    seen, equal = set(), 0
    for e in exp:
        cap = e["capture_uid"] != ""
        key = (e["sheet"], cap, int(e["capture_uid"] if cap else e["UID"]))
        counts["events rows"] += 1
        if UNMODELLED.match(e["name"]):
            known["calls of an operator we do not model (%s)" % renamed(e["name"])] += 1
            continue
        r = ours.get(key)
        if r is None:
            fail("%s %s %s: no row of ours" % (where, key, e["name"]))
            continue
        seen.add(key)
        tags, bad = compare_call(o, tid, r, e, kseq, False, u)
        if tags:
            bad.append("deviation tags %s" % tags)
        if e["sheet"] == "InferenceAttention_fwd":  # FLOPs and bytes compared; these not given
            extra = [b for b in bad if ATTN_PARAMS_NOT_GIVEN.match(b)]
            for b in extra:
                known["inference attention parameters we do not give (%s)" % b.split()[1]] += 1
            bad = [b for b in bad if b not in extra]
        for b in bad:
            fail("%s %s %s: %s" % (where, key, e["name"], b))
        equal += not bad
    for key in set(ours) - seen:
        fail("%s %s %s: row of ours only" % (where, key, ours[key]["name"]))
    return equal, len(exp)


def sig_of(e):
    return (e["sheet"], e["name"]) + tuple(sorted((k, v) for k, v in e.items()
                                                  if k.startswith("param: ") and v))


def pstats(v):
    """pandas' median and sample std of the list V."""
    v = sorted(v)
    n = len(v)
    med = (v[(n - 1) // 2] + v[n // 2]) / 2 if n else None
    mean = sum(v) / n if n else None
    std = (sum((x - mean) ** 2 for x in v) / (n - 1)) ** 0.5 if n > 1 else float("nan")
    return med, std


def check_ops(job, o, tid, rank, exp, events, u):
    rows = o.q("SELECT * FROM hta_op_perf WHERE rank = ? AND trace_id = ?", (rank, tid))
    nk = defaultdict(int)  # kernels of each signature's calls, for the bound
    per_call = defaultdict(list)  # each signature's calls' kernel times
    for e in events:
        nk[sig_of(e)] += int(e["num_kernels"] or 0)
        per_call[sig_of(e)].append(num(e["Kernel Time (µs)"]) or 0.0)
    groups = defaultdict(list)  # TraceLens's rows of one signature (split by num_kernels)
    for e in exp:
        groups[sig_of(e)].append(e)
    where = "%s rank %d ops" % (job, rank)
    used, equal = set(), 0
    for sig, g in groups.items():
        e = g[0]
        counts["ops rows"] += len(g)
        if UNMODELLED.match(e["name"]):
            known["signatures of an operator we do not model (%s)" % renamed(e["name"])] += len(g)
            continue
        cands = [i for i, r in enumerate(rows) if i not in used and r["category"] == e["sheet"]
                 and r["name"] == e["name"]
                 and not compare_params(None, merged_params(r), e,
                                        ATTN_NOT_GIVEN if e["sheet"] == "InferenceAttention_fwd" else ())]
        if len(cands) != 1:
            fail("%s %s %s: %d rows of ours with its signature" % (where, e["sheet"], e["name"],
                                                                   len(cands)))
            continue
        used.add(cands[0])
        r = rows[cands[0]]
        calls = sum(int(x["name_count"]) for x in g)
        total = sum(num(x["Kernel Time (µs)_sum"]) for x in g)
        if len(g) > 1:
            known["signatures TraceLens splits by number of kernels (compared summed)"] += 1
            med, std = pstats(per_call[sig])
            want = {"kernel_us_total": total, "kernel_us_mean": total / calls, "kernel_us_median": med,
                    "kernel_us_std": std,
                    "kernel_us_min": min(num(x["Kernel Time (µs)_min"]) for x in g),
                    "kernel_us_max": max(num(x["Kernel Time (µs)_max"]) for x in g)}
        else:
            want = {k: num(e[c]) for k, c in (
                ("kernel_us_total", "Kernel Time (µs)_sum"), ("kernel_us_mean", "Kernel Time (µs)_mean"),
                ("kernel_us_median", "Kernel Time (µs)_median"), ("kernel_us_min", "Kernel Time (µs)_min"),
                ("kernel_us_max", "Kernel Time (µs)_max"), ("kernel_us_std", "Kernel Time (µs)_std"))}
        bound = 2 * nk[sig] * u + 1e-9
        bad = []
        if r["calls"] != calls:
            bad.append("calls ours %s tl %s" % (r["calls"], calls))
        if not close(r["gflops"], num(e["GFLOPS_first"])):
            bad.append("gflops ours %r tl %r" % (r["gflops"], e["GFLOPS_first"]))
        for oc, w in want.items():
            if not close(r[oc], w, 1e-12, 2 * bound if oc == "kernel_us_std" else bound):
                bad.append("%s ours %r tl %r" % (oc, r[oc], w))
        mb = num(e["Data Moved (MB)_first"])
        if not close(None if r["bytes"] is None else r["bytes"] / 1048576.0, mb):
            bad.append("bytes ours %r tl %r" % (r["bytes"], mb))
        for b in bad:
            fail("%s %s %s: %s" % (where, e["sheet"], e["name"], b))
        equal += len(g) if not bad else 0
    for i, r in enumerate(rows):
        if i not in used:
            fail("%s %s %s: signature of ours only" % (where, r["category"], r["name"]))
    return equal, len(exp)


def check_summary(job, o, tid, rank, kind, exp, launchers, u):
    mode = "category" if kind == "summary" else "name"
    col = "op category" if kind == "summary" else "name"
    rows = o.q("SELECT * FROM hta_op_perf_summary(?) WHERE rank = ? AND trace_id = ?",
               (mode, rank, tid))
    ours = defaultdict(lambda: [0, 0.0])
    for r in rows:
        k = r["launcher_category"] if kind == "summary" else renamed(r["name"])
        ours[k][0] += r["calls"]
        ours[k][1] += r["kernel_us_total"]
    want = defaultdict(lambda: [0, 0.0])
    for e in exp:  # summed over parent modules
        want[e[col]][0] += int(e["Count"])
        want[e[col]][1] += num(e["total_direct_kernel_time_ms"]) * 1000
    nk = defaultdict(int)
    ours_cat = {renamed(r["name"]): r["launcher_category"] for r in o.q(
        "SELECT * FROM hta_op_perf_summary('name') WHERE rank = ? AND trace_id = ?", (rank, tid))}
    for x in launchers:
        k = x["op category"] if kind == "summary" else renamed(x["name"])
        mine = ours_cat.get(renamed(x["name"]))
        if kind == "summary" and mine != k and UNMODELLED.match(x["name"]):
            # a launcher whose category TraceLens takes from a model we do not have
            known["launchers of %s: TraceLens's %s, ours %s" % (renamed(x["name"]), k, mine)] += 1
            want[k][0] -= 1
            want[k][1] -= num(x["total_direct_kernel_time"])
            want[mine][0] += 1
            want[mine][1] += num(x["total_direct_kernel_time"])
            k = mine
        nk[k] += int(x["direct_kernel_count"] or 0)
    for k in [k for k, v in want.items() if v[0] == 0]:
        del want[k]
    where = "%s rank %d %s" % (job, rank, kind)
    equal = 0
    for k in sorted(set(want) | set(ours)):
        counts["%s rows" % kind] += 1
        if k not in ours or k not in want:
            fail("%s %s: %s only" % (where, k, "TraceLens's" if k in want else "ours"))
            continue
        bound = 2 * nk[k] * u + 1e-6
        bad = []
        if ours[k][0] != want[k][0]:
            bad.append("launchers ours %d tl %d" % (ours[k][0], want[k][0]))
        if abs(ours[k][1] - want[k][1]) > bound + 1e-9 * abs(want[k][1]):
            bad.append("kernel us ours %r tl %r" % (ours[k][1], want[k][1]))
        for b in bad:
            fail("%s %s: %s" % (where, k, b))
        equal += not bad
    return equal, len(want)


def main(argv):
    shared, tmp, ingest, ext = argv[1:5]
    only = set(argv[5:])
    jobs = sorted({os.path.basename(os.path.dirname(p)) for p in glob.glob(
        os.path.join(shared, "expected", "*", "tlg_events_rank*.csv"))})
    jobs = [j for j in jobs if not only or j in only]
    if not jobs:
        print("skip: no tlg_events files")
        return 77
    for job in jobs:
        folder = os.path.join(shared, "expected", job)
        m = ensure_db(job, [os.path.join(shared, "corpus", job)], tmp, ingest)
        if m["rc"] != 0:
            fail("%s: hta-ingest exit %s" % (job, m["rc"]))
            continue
        o = Ours(m["db"], ext)
        for path in sorted(glob.glob(os.path.join(folder, "tlg_events_rank*.csv"))):
            rank = int(path.rsplit("rank", 1)[1].split(".")[0])
            tid = o.q("SELECT trace_id FROM trace WHERE rank = ? AND trace_id NOT IN"
                      " (SELECT trace_id FROM capture)", (rank,))[0]["trace_id"]
            maxts = o.q("SELECT max(ts + coalesce(dur, 0)) AS m FROM event WHERE trace_id = ?",
                        (tid,))[0]["m"]
            u = spacing(maxts / 1000.0)
            f = lambda k: os.path.join(folder, "tlg_%s_rank%d.csv" % (k, rank))  # noqa: E731
            events = read_csv(path)
            res = [("tlg_events",) + check_events(job, o, tid, rank, events, u),
                   ("tlg_ops",) + check_ops(job, o, tid, rank, read_csv(f("ops")), events, u)]
            launchers = read_csv(f("launchers"))
            for kind in ("summary", "summary_ops"):
                res.append(("tlg_" + kind,) + check_summary(job, o, tid, rank, kind,
                                                             read_csv(f(kind)), launchers, u))
            print("%s rank %d: %s" % (job, rank, ", ".join("%s %d/%d rows equal" % r for r in res)))
    for k, n in sorted(known.items()):
        print("  known: %s x%d" % (k, n))
    print("graph_perf: %s; %d failures" % (", ".join("%s %d" % kv for kv in sorted(counts.items())),
                                           len(op_perf.fails)))
    return 1 if op_perf.fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
