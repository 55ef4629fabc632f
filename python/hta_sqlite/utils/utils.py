"""HTA's hta.utils.utils helpers that notebooks call.

    from hta_sqlite.utils.utils import shorten_name, flatten_column_names   # was: hta.utils.utils
    shorten_name("void at::native::vectorized_elementwise_kernel<4, ...>(int, ...)")
    # 'at::native::vectorized_elementwise_kernel'

Requirements (tests cite them as UT-n):
  UT-1  shorten_name(name) is HTA's: the extension's hta_shorten_name (one implementation,
        the SQL one: template arguments, argument lists and the return type dropped;
        memory kernel names and names without '<' or '(' unchanged).
  UT-2  shorten_names(names) gives {name: shorten_name(name)} in one query.
  UT-3  flatten_column_names(df) turns a MultiIndex of columns into one level in place,
        the levels joined by "_" and trailing "_" removed (("queue_length", "mean") ->
        "queue_length_mean", ("name", "") -> "name"); other frames are left alone.
"""

import threading

__all__ = ["shorten_name", "shorten_names", "flatten_column_names"]

_local = threading.local()  # one in-memory connection with the extension per thread


def _conn():
    conn = getattr(_local, "conn", None)
    if conn is None:
        from .. import connect

        conn = _local.conn = connect(":memory:")
    return conn


def shorten_name(name):
    """UT-1: NAME without its template arguments, argument list and return type."""
    return _conn().execute("SELECT hta_shorten_name(?)", (name,)).fetchone()[0]


def shorten_names(names):
    """UT-2: {name: shorten_name(name)} of NAMES."""
    import json

    names = list(dict.fromkeys(names))
    rows = _conn().execute("SELECT value, hta_shorten_name(value) FROM json_each(?)", (json.dumps(names),))
    return dict(rows.fetchall())


def flatten_column_names(df):
    """UT-3, in place."""
    import pandas as pd

    if isinstance(df.columns, pd.MultiIndex):
        df.columns = ["_".join(str(level) for level in col).rstrip("_") for col in df.columns]
