#!/usr/bin/env python3
"""Corpus check of the operator performance model (ext/perf/op_perf.c, OP-n) against
AMD TraceLens's perf report on every corpus job it ran on.

  op_perf.py SHARED TMP INGEST EXT [JOB...]

Per job with TraceLens files (SHARED/expected/<job>/tl_perf_*_rank<r>.csv), the job's
database is the one check_expected.py caches in TMP (ensure_db: one ingest per job and
inputs, shared with the other corpus checks). Compared:
 1. tl_perf_events (one row per call and pass) with hta_op_perf('instance'), keyed by
    (table, backward pass, the call's seq): name, every parameter, GFLOPS, bytes,
    FLOPS/Byte, compute spec, the GPU events (as a set of seq), kernel time, TFLOPS/s,
    TB/s and, on the MI300X files, the roofline with TraceLens's MI300X peaks (put into
    device_peak inside a transaction that is rolled back);
 2. tl_perf_ops (one row per signature) with hta_op_perf, keyed by (table, first call):
    name, calls, the first call's GFLOPS, bytes and FLOPS/Byte, the kernel time
    mean/median/std/min/max/sum, the means of TFLOPS/s, TB/s, Pct Roofline;
 3. tl_perf_summary (per launcher category) and tl_perf_summary_ops (per launcher
    name) with hta_op_perf_summary('category' / 'name'): launchers, kernel time,
    percentage.
Tolerances (TraceLens's float64 absolute times, expected README 15.9): a kernel time
within 2 * n * u (n GPU events, u the float64 spacing of the trace's largest ts in us),
sums and means within the sum of the calls' bounds, rates relatively within bound /
time; FLOPs, bytes, FLOPS/Byte and roofline times within 1e-12 relative.

Where we deliberately differ (docs/deviations.md; OP-6 of ext/perf/op_perf.c), the row is
checked against the right value, computed here on its own from the call's recorded
args (read back from the database) rather than against TraceLens:
  a  reductions: output elements from the reduced dims;
  b  attention: bytes at the dtype's element size;
  c  convolution: the bias counted; the backward's output_mask honoured;
  d  normalization: flags from the arguments (output_mask of the backward);
  e  GPU events linked by correlation: TraceLens loses those whose launch has no
     ac2g flow pair ('s' and 'f'); a call whose GPU set differs only by such events is
     a deviation; the kernel time and rates that depend on it are not compared;
  g  inference attention calls of ours only: the model reads the engine step's
     annotation, which TraceLens's plain report never looks for (op_perf_inference.py
     checks those rows against its inference report and the raw JSON).
Every deviation is counted per tag and job and printed; any other difference fails.
Files TraceLens could not read (tl_perf_README.md "failed"): ours must run without
error. Prints one line per failure and a summary; exits 1 on any failure.
"""
import csv
import json
import math
import os
import sqlite3
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_expected import discover_jobs, ensure_db  # noqa: E402

csv.field_size_limit(1 << 30)

# TraceLens's MI300X table (TreePerf arch "MI300X"): matrix/vector peaks (TFLOPS) and
# memory (GB/s), the figures its roofline columns were computed with.
MI300X = {"matrix_fp16": 654, "matrix_bf16": 708, "matrix_fp32": 163, "matrix_fp64": 81,
          "matrix_fp8": 1273, "matrix_int8": 2600, "vector_fp16": 163, "vector_bf16": 163,
          "vector_fp32": 81, "vector_fp64": 40}
MI300X_GBPS = 5300

BPE = {"double": 8, "long int": 8, "float": 4, "scalar": 4, "int": 4, "c10::half": 2,
       "c10::bfloat16": 2, "c10::float8_e4m3fnuz": 1, "c10::float8_e4m3fn": 1,
       "c10::float8_e5m2": 1, "c10::float8_e8m0fnu": 1, "unsigned char": 1, "signed char": 1,
       "c10::float4_e2m1fn_x2": 1, "fp8": 1, "fp4": 1}

DTYPE_PARAMS = ("dtype_A_B", "dtype_input_weight", "dtype_in_out", "dtype_in1_in2_out", "dtype")

fails = []
counts = defaultdict(int)
devs = defaultdict(int)


def fail(msg):
    fails.append(msg)
    if len(fails) <= 60:
        print("FAIL " + msg)


def num(v):
    if v is None or v == "":
        return None
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def close(a, b, rel=1e-12, abs_=0.0):
    """Numbers equal within a tolerance; None/NaN equal None/NaN."""
    a = None if a is None or (isinstance(a, float) and math.isnan(a)) else a
    b = None if b is None or (isinstance(b, float) and math.isnan(b)) else b
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= abs_ + rel * max(abs(a), abs(b))


def jval(cell):
    """A CSV parameter cell as a value: JSON where it parses, else the text."""
    if cell == "":
        return None
    try:
        return json.loads(cell)
    except ValueError:
        return cell


def same_param(ours, exp):
    if isinstance(ours, bool):
        ours = int(ours)
    if isinstance(exp, bool):
        exp = int(exp)
    if isinstance(ours, list) and isinstance(exp, list):
        return len(ours) == len(exp) and all(same_param(x, y) for x, y in zip(ours, exp))
    if isinstance(ours, (int, float)) and isinstance(exp, (int, float)):
        return float(ours) == float(exp)
    return ours == exp


def spacing(ts_us):
    """float64 spacing at ts_us: TraceLens's resolution for absolute times."""
    return 2.0 ** (math.floor(math.log2(ts_us)) - 52) if ts_us > 0 else 0.0


# --------------------------------------------------------------------------- our side

class Ours(object):
    def __init__(self, db_path, ext):
        self.db = sqlite3.connect(db_path, isolation_level=None)
        self.db.enable_load_extension(True)
        self.db.load_extension(ext)
        self.db.row_factory = sqlite3.Row
        self.flows = {}  # trace_id -> ac2g ids with both ends

    def q(self, sql, args=()):
        return self.db.execute(sql, args).fetchall()


def roofline_query(o, sql, args, mi300x):
    """Runs SQL with TraceLens's MI300X peaks in device_peak when MI300X (rolled back)."""
    if not mi300x:
        return o.q(sql, args)
    o.db.execute("BEGIN")
    try:
        o.db.execute("CREATE TABLE IF NOT EXISTS device_peak(device_pattern TEXT, priority INTEGER,"
                     " compute_spec TEXT, peak_tflops REAL, peak_tbps REAL, form_factor TEXT,"
                     " source TEXT, PRIMARY KEY(device_pattern, compute_spec))")
        o.db.execute("DELETE FROM device_peak")
        for spec, tf in MI300X.items():
            o.db.execute("INSERT INTO device_peak(device_pattern, priority, compute_spec, peak_tflops,"
                         " peak_tbps) VALUES ('*MI300X*', 1, ?, ?, ?)", (spec, tf, MI300X_GBPS / 1000))
        return o.q(sql, args)
    finally:
        o.db.execute("ROLLBACK")


# --------------------------------------------------------------------------- deviations

# The inference attention models (op_perf_model_infer.c OI-4): they need the engine step's
# detailed annotation (deviation g).
STEP_MODELS = {"vllm::unified_attention_with_output", "aiter::mha_varlen_fwd",
               "aiter::fmha_v3_varlen_fwd", "aiter::mha_batch_prefill",
               "sglang_profiler::attention_paged_attention_ragged", "aiter::pa_decode_gluon"}

def args_of(o, event_id):
    r = o.q("SELECT args FROM event WHERE event_id = ?", (event_id,))
    try:
        return json.loads(r[0]["args"]) if r and r[0]["args"] else {}
    except ValueError:
        return {}


def lit_list(text):
    """'[-1, -2]' / '[True, False]' / '-1' as a list of ints (bools 1/0); None."""
    t = (text or "").strip()
    if not t:
        return None
    if t[0] in "[(":
        items = [x.strip() for x in t[1:-1].split(",") if x.strip()]
    else:
        items = [t]
    out = []
    for x in items:
        if x in ("True", "False"):
            out.append(1 if x == "True" else 0)
        else:
            try:
                out.append(int(x))
            except ValueError:
                return None
    return out


def right_reduce_out(name, a):
    """Rule a: the elements a reduction's dims leave (independent of ext/)."""
    dims, types, conc = a.get("Input Dims") or [], a.get("Input type") or [], a.get("Concrete Inputs") or []
    if not dims or not isinstance(dims[0], list):
        return None
    x = dims[0]
    n = 1
    for d in x:
        n *= d
    if "cumsum" in name or "cumprod" in name:
        return n
    pos = None
    if "norm" in name:
        pos = 2 if len(types) > 2 and types[2] == "ScalarList" else None
    elif name in ("aten::max", "aten::min"):
        pos = 1 if len(dims) == 3 and len(types) > 1 and types[1] == "Scalar" else None
    elif len(types) > 1 and types[1] == "ScalarList":
        pos = 1
    red = lit_list(conc[pos]) if pos is not None and pos < len(conc) else None
    if not red:
        return 1
    keep = set(range(len(x))) - {d % len(x) for d in red if -len(x) <= d < len(x)}
    out = 1
    for i in keep:
        out *= x[i]
    return out


def conv_right(name, a, flops_tl, bytes_tl, params):
    """Rule c: (flops, bytes) with the bias counted / output_mask honoured."""
    dims, conc = a.get("Input Dims") or [], a.get("Concrete Inputs") or []
    bpe = BPE.get((a.get("Input type") or [""])[0].lower() if name == "aten::convolution"
                  else (a.get("Input type") or ["", ""])[1].lower())
    x = params["input_shape"]
    w = params["filter_shape"]
    if name == "aten::convolution":
        if len(dims) > 2 and dims[2]:
            y = out_shape(x, w, params)
            py = 1
            for d in y:
                py *= d
            return flops_tl + py, bytes_tl + y[1] * bpe if bytes_tl is not None else None
        return flops_tl, bytes_tl
    mask = lit_list(conc[10]) if len(conc) > 10 else None
    if not mask or len(mask) != 3:
        return flops_tl, bytes_tl
    y = out_shape(x, w, params)
    py, px, pw = prod(y), prod(x), prod(w)
    in_g = 2 * prod(w[1:]) * py
    w_g = 2 * pw * y[0] * prod(y[2:])
    f = (in_g if mask[0] else 0) + (w_g if mask[1] else 0) + (py if mask[2] else 0)
    el = ((py + pw + px) if mask[0] else 0) + ((py + px + pw) if mask[1] else 0) + \
        ((py + y[1]) if mask[2] else 0)
    return f, el * bpe


def prod(v):
    p = 1
    for d in v:
        p *= d
    return p


def out_shape(x, w, p):
    y = [x[0], w[0]]
    for i in range(len(x) - 2):
        y.append(int((x[2 + i] + 2 * p["padding"][i] - p["dilation"][i] * (w[2 + i] - 1) - 1)
                      / p["stride"][i] + 1))
    return y


def ac2g_pairs(o, tid):
    """The ac2g flow ids of trace TID with both an 's' and an 'f' event."""
    if tid not in o.flows:
        phs = defaultdict(set)
        for f in o.q("SELECT id, ph FROM flow WHERE trace_id = ? AND category_id ="
                     " (SELECT category_id FROM category WHERE name = 'ac2g')", (tid,)):
            phs[f["id"]].add(f["ph"])
        o.flows[tid] = {i for i, p in phs.items() if "s" in p and "f" in p}
    return o.flows[tid]


def lost_by_flows(o, tid, gpu_ids):
    """Rule e: 1 when every GPU event of GPU_IDS (event ids) was launched by a call
    without an ac2g flow pair (TraceLens links only through them), else 0."""
    pairs = ac2g_pairs(o, tid)
    for g in gpu_ids:
        r = o.q("SELECT e.correlation, (SELECT value FROM string WHERE string_id = h.name_id) AS hname"
                " FROM event e LEFT JOIN event h ON h.event_id = e.link_id WHERE e.event_id = ?", (g,))
        if not r or r[0]["hname"] in ("cudaGraphLaunch", "hipGraphLaunch") or r[0]["correlation"] in pairs:
            return 0
    return 1


# --------------------------------------------------------------------------- per job

def rank_files(folder, prefix):
    out = {}
    for f in os.listdir(folder):
        if f.startswith(prefix) and f.endswith(".csv") and "_rank" in f:
            out[int(f[len(prefix):-4])] = os.path.join(folder, f)
    return out


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def merged_params(row):
    p = json.loads(row["shapes"]) if row["shapes"] else {}
    if row["dtypes"] is not None:
        p["__dtype__"] = json.loads(row["dtypes"])
    return p


def compare_params(ctx, ours, exp_row, skip=()):
    expected = {k[7:]: jval(v) for k, v in exp_row.items() if k.startswith("param: ") and v != ""}
    bad = []
    for k, v in expected.items():
        if k in skip:
            continue
        ov = ours.get("__dtype__") if k in DTYPE_PARAMS else ours.get(k, "<absent>")
        if k in DTYPE_PARAMS and "__dtype__" not in ours:
            ov = "<absent>"
        if not same_param(ov, v):
            bad.append("%s ours %s tl %s" % (k, json.dumps(ov), json.dumps(v)))
    for k, v in ours.items():
        if k == "__dtype__" or k in skip:
            continue
        if k not in expected and v is not None:
            bad.append("%s ours %s tl <empty>" % (k, json.dumps(v)))
    return bad


def check_job(job, shared, tmp, ingest, ext):
    folder = job.folder
    events_files = rank_files(folder, "tl_perf_events_rank")
    readme = os.path.join(folder, "tl_perf_README.md")
    if not os.path.exists(readme):
        return
    m = ensure_db(job.name, job.inputs, tmp, ingest)
    if not os.path.exists(m["db"]):
        fail("%s: no database (hta-ingest exit %s)" % (job.name, m["rc"]))
        return
    o = Ours(m["db"], ext)
    counts["jobs"] += 1
    if not events_files:  # TraceLens failed on the job: ours must simply run
        for f in ("hta_op_perf", "hta_op_perf('instance')", "hta_op_perf_summary"):
            try:
                o.q("SELECT count(*) FROM %s" % f)
            except sqlite3.Error as e:
                fail("%s: %s raised %s" % (job.name, f, e))
        return
    traces = {r["rank"]: (r["trace_id"], r["name"]) for r in o.q(
        "SELECT t.rank, t.trace_id, (SELECT d.name FROM device d WHERE d.trace_id = t.trace_id"
        " ORDER BY d.device_id LIMIT 1) AS name FROM trace t")}
    for rank, path in sorted(events_files.items()):
        if rank not in traces:
            fail("%s: rank %d has no trace" % (job.name, rank))
            continue
        tid, dev = traces[rank]
        mi300x = bool(dev and "MI300X" in dev)
        maxts = o.q("SELECT max(ts + coalesce(dur, 0)) AS m FROM event WHERE trace_id = ?", (tid,))[0]["m"]
        u = spacing(maxts / 1000.0)
        check_events(job, o, tid, rank, read_csv(path), mi300x, u)
        ops = os.path.join(folder, "tl_perf_ops_rank%d.csv" % rank)
        if os.path.exists(ops):
            check_ops(job, o, tid, rank, read_csv(ops), read_csv(path), mi300x, u)
        for kind in ("summary", "summary_ops"):
            p = os.path.join(folder, "tl_perf_%s_rank%d.csv" % (kind, rank))
            if os.path.exists(p):
                lp = os.path.join(folder, "tl_perf_launchers_rank%d.csv" % rank)
                launchers = read_csv(lp) if os.path.exists(lp) else []
                check_summary(job, o, tid, rank, kind, read_csv(p), launchers, u)


SQL_INSTANCE = ("SELECT p.*, e.seq AS seq FROM hta_op_perf('instance') p"
                " JOIN event e ON e.event_id = p.event_id WHERE p.rank = ? AND p.trace_id = ?")
SQL_SIGNATURE = ("SELECT p.*, e.seq AS seq FROM hta_op_perf p"
                 " JOIN event e ON e.event_id = p.event_id WHERE p.rank = ? AND p.trace_id = ?")


def check_events(job, o, tid, rank, exp, mi300x, u):
    rows = roofline_query(o, SQL_INSTANCE, (rank, tid), mi300x)
    # the seeded device_peak's achievable figures of the MI300X are TraceLens's table: our
    # pct_of_achievable, without the substitution above, is its Pct Roofline
    seeded = {}
    if mi300x:
        seeded = {(r["category"], r["is_backward"], r["seq"]): r["pct_of_achievable"]
                  for r in o.q(SQL_INSTANCE, (rank, tid))}
    kseq = {r["event_id"]: r["seq"] for r in o.q(
        "SELECT event_id, seq FROM event WHERE trace_id = ? AND stream IS NOT NULL", (tid,))}
    ours = {}
    for r in rows:
        ours[(r["category"], r["is_backward"], r["seq"])] = r
    seen = set()
    where = "%s rank %d events" % (job.name, rank)
    for e in exp:
        key = (e["sheet"], int(e["bwd_pass"]), int(e["UID"]))
        counts["events rows"] += 1
        r = ours.get(key)
        if r is None:
            fail("%s %s: no row of ours" % (where, key))
            continue
        seen.add(key)
        tags, bad = compare_call(o, tid, r, e, kseq, mi300x, u)
        if mi300x and r["pct_of_peak"] is not None:
            # equal to our pct_of_peak at TraceLens's peaks, which compare_call checks
            # against its Pct Roofline within the kernel-time bound
            counts["pct_of_achievable = Pct Roofline"] += 1
            if not close(seeded.get(key), r["pct_of_peak"], 1e-12):
                bad.append("pct_of_achievable ours %r, at TraceLens's peaks %r"
                           % (seeded.get(key), r["pct_of_peak"]))
        if tags:
            devs_calls[job.name + str(rank)][(e["sheet"], int(e["UID"]))] = set(tags)
        for t in tags:
            devs[(job.name, t)] += 1
        for b in bad:
            fail("%s %s %s: %s" % (where, key, e["name"], b))
    for key in ours:
        if key not in seen:
            r = ours[key]
            if key[0] == "InferenceAttention_fwd" and r["name"] in STEP_MODELS:
                # g: the attention of a batch of requests from the step's annotation, which
                # TraceLens's plain report does not read (its inference report does, the
                # same way: op_perf_inference.py checks those rows)
                devs[(job.name, "g")] += 1
                continue
            # rule e: a call whose GPU events TraceLens lost is still a row for TraceLens,
            # so a row of ours alone is a real difference, except convolutions' rows that
            # TraceLens drops for its mixed-type or dims errors (none expected)
            fail("%s %s %s: row of ours only" % (where, key, r["name"]))


def compare_call(o, tid, r, e, kseq, mi300x, u):
    """Compares one call; returns (deviation tags, differences)."""
    tags, bad = [], []
    name = e["name"]
    if r["name"] != name:
        bad.append("name ours %s" % r["name"])
        return tags, bad
    ours_p = merged_params(r)
    gf_tl, mb_tl, fpb_tl = num(e["GFLOPS"]), num(e["Data Moved (MB)"]), num(e["FLOPS/Byte"])
    bytes_ours = r["bytes"]
    gf_ours = r["gflops"]
    skip_params = set()
    right_flops, right_bytes = None, None
    sheet = e["sheet"]
    a = None
    if sheet.startswith("Reduce"):
        a = args_of(o, r["event_id"])
        n_out = right_reduce_out(name, a)
        p_out = jval(e.get("param: num_output_elems", ""))
        if n_out is not None and p_out is not None and n_out != p_out:
            tags.append("a")
            skip_params.add("num_output_elems")
            if ours_p.get("num_output_elems") != n_out:
                bad.append("a: num_output_elems ours %s right %s" % (ours_p.get("num_output_elems"), n_out))
            bpe = BPE.get(((a.get("Input type") or [""])[0] or "").lower())
            n_in = jval(e["param: num_input_elems"])
            right_bytes = (n_in + n_out) * bpe if bpe else None
    if sheet.startswith("SDPA"):
        a = args_of(o, r["event_id"])
        bpe = BPE.get(((a.get("Input type") or [""])[0] or "").lower())
        if bpe and bpe != 2 and mb_tl is not None:
            tags.append("b")
            right_bytes = round(mb_tl * 1048576) * bpe // 2
    if sheet.startswith("CONV"):
        a = args_of(o, r["event_id"])
        params = {k[7:]: jval(v) for k, v in e.items() if k.startswith("param: ") and v != ""}
        bytes_tl = round(mb_tl * 1048576) if mb_tl is not None else None
        f, b = conv_right(name, a, round(gf_tl * 1e9), bytes_tl, params)
        skip_params.add("bias")
        want_bias = (len(a.get("Input Dims") or []) > 2 and bool(a["Input Dims"][2])) \
            if name == "aten::convolution" else bool((lit_list((a.get("Concrete Inputs") or [""] * 11)[10]) or [0, 0, 0])[2])
        if ours_p.get("bias") != want_bias:
            bad.append("c: bias ours %s right %s" % (ours_p.get("bias"), want_bias))
        if f != round(gf_tl * 1e9) or b != bytes_tl:
            tags.append("c")
            right_flops, right_bytes = f, b
        elif params.get("bias") not in (None, 0, False) or want_bias:
            tags.append("c0")  # the bias parameter only (TraceLens: [] or False)
    if name.endswith("batch_norm_backward"):
        skip_params.add("output_mask")
        if ours_p.get("output_mask") != [True, True, True] and ours_p.get("output_mask") is not None:
            a = args_of(o, r["event_id"])
            want = [bool(x) for x in (lit_list((a.get("Concrete Inputs") or [""] * 10)[9]) or [])]
            if ours_p.get("output_mask") != want:
                bad.append("d: output_mask ours %s right %s" % (ours_p.get("output_mask"), want))
        tags.append("d")
    bad += ["param " + x for x in compare_params(None, ours_p, e, skip_params)]
    # FLOPs and bytes
    if right_flops is not None:
        if not close(gf_ours, right_flops / 1e9):
            bad.append("GFLOPS ours %r right %r" % (gf_ours, right_flops / 1e9))
    elif not close(gf_ours, gf_tl):
        bad.append("GFLOPS ours %r tl %r" % (gf_ours, gf_tl))
    if right_bytes is not None:
        if bytes_ours != right_bytes:
            bad.append("bytes ours %r right %r" % (bytes_ours, right_bytes))
    else:
        if not close(None if bytes_ours is None else bytes_ours / 1048576.0, mb_tl):
            bad.append("Data Moved (MB) ours %r tl %r" % (bytes_ours, mb_tl))
        if not close(r["flops_per_byte"], fpb_tl):
            bad.append("FLOPS/Byte ours %r tl %r" % (r["flops_per_byte"], fpb_tl))
    if (r["compute_spec"] or "") != e["Compute Spec"]:
        bad.append("Compute Spec ours %r tl %r" % (r["compute_spec"], e["Compute Spec"]))
    # the GPU events
    kids = json.loads(r["kernel_event_ids"] or "[]")
    ours_k = [kseq.get(k) for k in kids]
    tl_k = json.loads(e["kernel_uids"]) if e["kernel_uids"] else []
    timed = True
    if set(ours_k) != set(tl_k):
        extra, missing = set(ours_k) - set(tl_k), set(tl_k) - set(ours_k)
        if not missing and lost_by_flows(o, tid, [k for k in kids if kseq.get(k) in extra]):
            tags.append("e")
            timed = False
        else:
            bad.append("kernels ours-only %s tl-only %s" % (sorted(extra)[:5], sorted(missing)[:5]))
            timed = False
    if int(e["num_kernels"] or 0) != len(tl_k):
        bad.append("num_kernels %s vs kernel_uids %d" % (e["num_kernels"], len(tl_k)))
    if timed:
        kt_tl = num(e["Kernel Time (µs)"])
        bound = 2 * len(tl_k) * u + 1e-9
        if not close(r["kernel_us_total"], kt_tl, 0, bound):
            bad.append("Kernel Time ours %r tl %r (bound %g)" % (r["kernel_us_total"], kt_tl, bound))
        rel = bound / kt_tl + 1e-12 if kt_tl else 0
        if right_flops is None and not close(r["tflops"], num(e["TFLOPS/s"]), rel):
            bad.append("TFLOPS/s ours %r tl %r" % (r["tflops"], num(e["TFLOPS/s"])))
        if right_bytes is None and not close(r["tbps"], num(e["TB/s"]), rel):
            bad.append("TB/s ours %r tl %r" % (r["tbps"], num(e["TB/s"])))
        if mi300x and right_flops is None and right_bytes is None:
            if not close(r["roofline_us"], num(e.get("Roofline Time (µs)"))):
                bad.append("Roofline ours %r tl %r" % (r["roofline_us"], e.get("Roofline Time (µs)")))
            tb = {"COMPUTE_BOUND": "compute", "MEMORY_BOUND": "memory"}.get(e.get("Roofline Bound"), None)
            if r["bound"] != tb:
                bad.append("bound ours %r tl %r" % (r["bound"], e.get("Roofline Bound")))
            if not close(r["pct_of_peak"], num(e.get("Pct Roofline")), rel):
                bad.append("Pct Roofline ours %r tl %r" % (r["pct_of_peak"], e.get("Pct Roofline")))
    return tags, bad


def check_ops(job, o, tid, rank, exp, exp_events, mi300x, u):
    rows = roofline_query(o, SQL_SIGNATURE, (rank, tid), mi300x)
    ours = {(r["category"], r["seq"]): r for r in rows}
    nk = defaultdict(int)  # (sheet, first UID) -> GPU events of its calls, for the bound
    where = "%s rank %d ops" % (job.name, rank)
    # the calls of each expected signature (regrouped from the events file)
    groups = defaultdict(list)
    for e in exp_events:
        groups[(e["sheet"], e["name"]) + tuple((k, v) for k, v in sorted(e.items())
                                               if k.startswith("param: "))].append(e)
    first_of = {}
    for g in groups.values():
        first = min(int(x["UID"]) for x in g)
        first_of[(g[0]["sheet"], first)] = g
        nk[(g[0]["sheet"], first)] = sum(int(x["num_kernels"] or 0) for x in g)
    deviated = devs_calls.get(job.name + str(rank), {})
    for e in exp:
        key = (e["sheet"], int(e["UID_first"]))
        counts["ops rows"] += 1
        r = ours.get(key)
        calls = first_of.get(key, [])
        dev_tags = set()
        for c in calls:
            dev_tags |= deviated.get((c["sheet"], int(c["UID"])), set())
        if r is None:
            if dev_tags:
                devs[(job.name, "signature regrouped")] += 1
                continue
            fail("%s %s %s: no row of ours" % (where, key, e["name"]))
            continue
        if r["name"] != e["name"]:
            fail("%s %s: name ours %s tl %s" % (where, key, r["name"], e["name"]))
            continue
        if dev_tags - {"a", "b", "c0", "d"}:  # FLOPs or kernel time differ: checked per call
            devs[(job.name, "signature with deviations %s" % "".join(sorted(dev_tags)))] += 1
            continue
        if dev_tags:
            devs[(job.name, "signature with deviations %s (times compared)" % "".join(sorted(dev_tags)))] += 1
        bad = []
        if r["calls"] != int(e["name_count"]):
            bad.append("calls ours %s tl %s" % (r["calls"], e["name_count"]))
        bound = 2 * nk[key] * u + 1e-9
        for ours_c, tl_c, tol in (("gflops", "GFLOPS_first", 0), ("kernel_us_total", "Kernel Time (µs)_sum", bound),
                                  ("kernel_us_mean", "Kernel Time (µs)_mean", bound),
                                  ("kernel_us_median", "Kernel Time (µs)_median", bound),
                                  ("kernel_us_min", "Kernel Time (µs)_min", bound),
                                  ("kernel_us_max", "Kernel Time (µs)_max", bound),
                                  ("kernel_us_std", "Kernel Time (µs)_std", 2 * bound)):
            if not close(r[ours_c], num(e[tl_c]), 1e-12, tol):
                bad.append("%s ours %r tl %r" % (ours_c, r[ours_c], e[tl_c]))
        mb = num(e["Data Moved (MB)_first"])
        if not dev_tags and not close(None if r["bytes"] is None else r["bytes"] / 1048576.0, mb):
            bad.append("bytes ours %r tl %r" % (r["bytes"], mb))
        ktsum = num(e["Kernel Time (µs)_sum"]) or 0
        rel = bound / ktsum * max(1, int(e["name_count"])) + 1e-12 if ktsum else 0
        for ours_c, tl_c in (("tflops", "TFLOPS/s_mean"), ("tbps", "TB/s_mean"),
                             ("pct_of_peak", "Pct Roofline_mean")):
            if (tl_c not in e and ours_c == "pct_of_peak") or (dev_tags and ours_c != "tflops"):
                continue
            if not close(r[ours_c], num(e.get(tl_c)), rel):
                bad.append("%s ours %r tl %r" % (ours_c, r[ours_c], e.get(tl_c)))
        for b in bad:
            fail("%s %s %s: %s" % (where, key, e["name"], b))


devs_calls = defaultdict(dict)


def check_summary(job, o, tid, rank, kind, exp, launchers, u):
    mode = "category" if kind == "summary" else "name"
    rows = o.q("SELECT * FROM hta_op_perf_summary(?) WHERE rank = ? AND trace_id = ?", (mode, rank, tid))
    where = "%s rank %d %s" % (job.name, rank, kind)
    if kind == "summary":
        ours = {r["launcher_category"]: r for r in rows}
        key_col, ms_col = "op category", "total_direct_kernel_time_ms"
    else:
        ours = {}
        for r in rows:
            x = ours.setdefault(r["name"], {"calls": 0, "kernel_us_total": 0.0, "subtree": 0.0})
            x["calls"] += r["calls"]
            x["kernel_us_total"] += r["kernel_us_total"]
            x["subtree"] += r["subtree_kernel_us_total"] or 0
        key_col, ms_col = "name", "total_direct_kernel_time_ms"
    lost = devs_lost.get((job.name, rank))
    if (job.name, tid) not in MOVED:  # float64 too coarse for ns (15.8 (1))
        MOVED[(job.name, tid)] = float_moved(o, tid) if u >= 0.01 else set()
    moved = MOVED[(job.name, tid)]
    nk = defaultdict(int)  # GPU events of the launchers of each key, for the bound
    for x in launchers:
        nk[x["op category"] if kind == "summary" else x["name"]] += int(x["direct_kernel_count"] or 0)
    for e in exp:
        counts["%s rows" % kind] += 1
        r = ours.get(e[key_col])
        if kind == "summary_ops" and e[key_col] in moved:
            devs[(job.name, "f: float64 nesting moves %s" % e[key_col])] += 1
            continue
        if r is None:
            fail("%s %s: no row of ours" % (where, e[key_col]))
            continue
        tl_us = num(e[ms_col]) * 1000
        # each launcher's busy time: within 2 * its events * u; the sum of those
        bound = 2 * nk[e[key_col]] * u + 1e-6
        dc, dus = int(r["calls"]) - int(e["Count"]), r["kernel_us_total"] - tl_us
        if lost and (dc or abs(dus) > bound):
            # rule e: launches TraceLens cannot link add launchers and time, never remove
            if 0 <= dc <= lost[0] and -bound <= dus <= lost[1] + bound:
                devs[(job.name, "e: summary row %s" % e[key_col])] += 1
                continue
        if dc:
            fail("%s %s: launchers ours %s tl %s" % (where, e[key_col], r["calls"], e["Count"]))
        if abs(dus) > bound + 1e-9 * abs(tl_us):
            fail("%s %s: kernel us ours %r tl %r" % (where, e[key_col], r["kernel_us_total"], tl_us))
    extra = set(ours) - moved - {e[key_col] for e in exp}
    if lost and extra:
        devs[(job.name, "e: summary rows of ours only (%d)" % len(extra))] += 1
    elif extra or len({e[key_col] for e in exp} - moved - set(ours)):
        fail("%s: %d rows of ours, %d of TraceLens (%s)" % (where, len(ours), len(exp),
             sorted(set(ours) ^ {e[key_col] for e in exp})[:5]))


devs_lost = {}
MOVED = {}


def float_moved(o, tid):
    """Rule f: the call tree built from float64 microseconds, as TraceLens builds it,
    against the exact one: the names of the host events whose parent or tree membership
    the float rounding changes, with their parents' names (an independent nesting)."""
    from decimal import Decimal
    ev = o.q("SELECT e.seq, e.pid, e.tid, e.ts, e.dur, s.value AS name FROM event e"
             " JOIN category c ON c.category_id = e.category_id LEFT JOIN string s ON"
             " s.string_id = e.name_id WHERE e.trace_id = ? AND e.dur IS NOT NULL AND c.name IN"
             " ('cpu_op', 'cuda_runtime', 'cuda_driver')", (tid,))

    def nest(key):
        parent, out = {}, set()
        by = defaultdict(list)
        for r in ev:
            by[(r["pid"], r["tid"])].append(r)
        for rows in by.values():
            rows.sort(key=lambda r: (key(r)[0], r["seq"]))
            st = []
            for r in rows:
                t, e = key(r)
                while st and t >= key(st[-1])[1]:
                    st.pop()
                if st and e > key(st[-1])[1]:
                    if key(st[-1])[1] - t < one and len(st) >= 2:
                        st.pop()
                    else:
                        out.add(r["seq"])
                        continue
                parent[r["seq"]] = st[-1]["seq"] if st else None
                st.append(r)
        return parent, out

    one = 1000
    exact = nest(lambda r: (r["ts"], r["ts"] + r["dur"]))
    one = 1.0
    fl = {}
    for r in ev:
        t = float(Decimal(r["ts"]) / 1000)
        fl[r["seq"]] = (t, t + float(Decimal(r["dur"]) / 1000))
    floats = nest(lambda r: fl[r["seq"]])
    name = {r["seq"]: r["name"] for r in ev}
    names = set()
    for s in name:
        if exact[0].get(s, -1) != floats[0].get(s, -1) or (s in exact[1]) != (s in floats[1]):
            names.add(name[s])
            for p in (exact[0].get(s), floats[0].get(s)):
                if p is not None:
                    names.add(name[p])
    return names


def lost_gpu_events(o, tid):
    """Rule e at the job level: the GPU events linked here to a launch without an ac2g
    flow pair (TraceLens cannot link them): (their number, their total us), or None."""
    pairs = ac2g_pairs(o, tid)
    n, us = 0, 0.0
    for r in o.q("SELECT e.correlation AS c, e.dur AS dur, (SELECT value FROM string"
                 " WHERE string_id = h.name_id) AS hname FROM event e JOIN event h"
                 " ON h.event_id = e.link_id WHERE e.trace_id = ? AND e.stream IS NOT NULL"
                 " AND e.correlation IS NOT NULL", (tid,)):
        if r["hname"] not in ("cudaGraphLaunch", "hipGraphLaunch") and r["c"] not in pairs:
            n += 1
            us += (r["dur"] or 0) / 1000.0
    return (n, us) if n else None


def main(argv):
    if len(argv) < 5:
        print(__doc__)
        return 2
    shared, tmp, ingest, ext = argv[1:5]
    only = set(argv[5:])
    jobs = [j for j in discover_jobs(shared) if not only or j.name in only]
    for job in jobs:
        if not os.path.exists(os.path.join(job.folder, "tl_perf_README.md")):
            continue
        m = ensure_db(job.name, job.inputs, tmp, ingest)
        if os.path.exists(m["db"]) and rank_files(job.folder, "tl_perf_events_rank"):
            o = Ours(m["db"], ext)
            for r in o.q("SELECT rank, trace_id FROM trace"):
                n = lost_gpu_events(o, r["trace_id"])
                if n:
                    devs_lost[(job.name, r["rank"])] = n
                    devs[(job.name, "e: GPU events without flows (%d)" % n[0])] += 1
        check_job(job, shared, tmp, ingest, ext)
    for (j, t), n in sorted(devs.items()):
        print("  deviation %s: %s x%d" % (j, t, n))
    print("summary: op_perf: %s; %d deviations (docs/deviations.md E18), %d failures" % (
        ", ".join("%s %d" % kv for kv in sorted(counts.items())), sum(devs.values()), len(fails)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
