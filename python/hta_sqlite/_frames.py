"""Small pandas reshapings shared by the HTA-compatible API.

Requirements (tests cite them as FR-n):
  FR-1  np_round(x, d) rounds as HTA does (numpy: round half to even of x * 10**d).
  FR-2  intify() turns float columns whose values are all integral into int64, the
        dtype HTA's frames have for traces in whole µs; a column with NaN stays float.
  FR-3  describe_columns() gives the summaries' shape: index (rank, key), columns
        (TOP, count|mean|std|min|25%|50%|75%|max), count as float, as pandas'
        groupby().describe() makes them; None when there is nothing (HTA's None).
  FR-4  aggregate_with_allowlist() folds names into "others" with HTA's rule (names by
        total descending, ties by name; with more than NUM names a name folds when its
        running total exceeds the RATIO quantile of the running totals or its position
        is NUM or later), except names containing an allowlist pattern (literally); every
        row reports count, sum, max, min, mean and sample std (0 for one instance) over
        its instances, in µs (the SQL functions' statistics, deviation D3).
"""

import math


def _pd():
    import pandas as pd

    return pd


def np_round(series, decimals):
    """FR-1 (pandas' Series.round is numpy's round)."""
    return series.round(decimals)


def intify(df, cols):
    """FR-2, in place."""
    for c in cols:
        if c not in df.columns or df[c].dtype.kind != "f" or len(df) == 0:
            continue
        v = df[c]
        if v.isna().any():
            continue
        if ((v % 1) == 0).all() and (v.abs() < 2**62).all():
            df[c] = v.astype("int64")
    return df


_STATS = ["count", "mean", "std", "min", "25%", "50%", "75%", "max"]


def describe_columns(parts, index_cols, top, none_if_empty=True):
    """FR-3. PARTS: frames with INDEX_COLS then count, mean, std, min, p25, p50, p75, max."""
    pd = _pd()
    parts = [p for p in parts if not p.empty]
    if not parts:
        if none_if_empty:
            return None
        return pd.DataFrame(columns=pd.MultiIndex.from_product([[top], _STATS]), dtype=float)
    df = pd.concat(parts, ignore_index=True)
    df = df.set_index(index_cols)
    df.columns = pd.MultiIndex.from_product([[top], _STATS])
    return df.astype(float)


def aggregate_with_allowlist(ev, num, ratio, patterns):
    """FR-4. EV: frame of (name, dur ns) rows; returns name, sum (us), max (us), min (us),
    stddev, mean (us), by name."""
    pd = _pd()
    cols = ["name", "sum (us)", "max (us)", "min (us)", "stddev", "mean (us)"]
    if ev.empty:
        return pd.DataFrame(columns=cols)
    us = ev.assign(dur=ev["dur"].astype("int64"))  # ns: sums stay exact
    totals = us.groupby("name")["dur"].sum().reset_index()
    totals = totals.sort_values(["dur", "name"], ascending=[False, True], kind="mergesort", ignore_index=True)
    fold = set()
    if len(totals) > num:
        cums = totals["dur"].cumsum()
        q = cums.quantile(ratio)
        keep = totals["name"].map(lambda n: any(p in n for p in patterns))
        folded = ~keep & ((cums > q) | (totals.index >= num))
        fold = set(totals.loc[folded, "name"])
    us["group"] = us["name"].map(lambda n: "others" if n in fold else n)
    rows = []
    for name, g in us.groupby("group", sort=True):
        d = g["dur"]
        n = len(d)
        std = float((d / 1000.0).std(ddof=1)) if n > 1 else 0.0
        total = int(d.sum())
        rows.append([name, total / 1000.0, int(d.max()) / 1000.0, int(d.min()) / 1000.0,
                     std if not math.isnan(std) else 0.0, total / n / 1000.0])
    return pd.DataFrame(rows, columns=cols)
