"""A small table of rows for commands that print a few lines at the table (``shelf score``,
``box advise``): the three things :func:`ludolab.analysis.cli_common.emit` asks of a
table (``to_string``, ``to_csv``, ``to_dict("records")``) without importing pandas, whose
import costs more than the whole answer."""

from __future__ import annotations

import csv
import io

import numpy as np


class TextTable:
    """Rows (dicts) under fixed columns, printed right-justified without an index.

    Args:
        rows: a list of dicts; a missing key is an empty cell.
        columns: the column names, in order.
        like_pandas: print, and write CSV, exactly as pandas does a DataFrame of the same rows
            (``to_string(index=False)``, ``to_csv(index=False)``): a numeric column's header
            (bools included) keeps one place for the sign before it, its cells do not, and a NaN
            float reads ``NaN`` (an empty CSV cell).  The tables of the commands that printed a
            DataFrame before (``box advise``, ``shelf score``, ``books advise``) use it; without
            it, an integer column's header and cells both keep that place (the advice tables,
            which were always printed this way).
    """

    def __init__(self, rows: list[dict], columns: list[str], like_pandas: bool = False):
        self.columns = list(columns)
        self.rows = [{c: r.get(c) for c in self.columns} for r in rows]
        self.attrs: dict = {}
        self.like_pandas = bool(like_pandas)

    def __len__(self) -> int:
        return len(self.rows)

    def _cell(self, v, float_format=None, nan: str = "NaN") -> str:
        if v is None:
            return ""
        if self.like_pandas and isinstance(v, (float, np.floating)) and v != v:
            return nan
        if isinstance(v, float) and float_format is not None:
            return float_format(v)
        return str(v)

    def _numeric(self, c) -> bool:
        """Whether column ``c`` keeps a place for the sign: like pandas, whether pandas would hold it in
        a numeric dtype (every value a number, and either every one a bool or none of them); else
        whether every value is an integer (not a bool)."""
        vals = [r[c] for r in self.rows if r[c] is not None]
        if not self.like_pandas:
            return bool(vals) and all(isinstance(v, int) and not isinstance(v, bool) for v in vals)
        if not vals or not all(isinstance(v, (int, float, np.number, np.bool_)) for v in vals):
            return False
        bools = [isinstance(v, (bool, np.bool_)) for v in vals]
        return all(bools) or not any(bools)

    def to_string(self, index: bool = False, float_format=None) -> str:
        """Every column right-justified to its widest cell (header included), one space apart."""
        pad = [" " if self._numeric(c) else "" for c in self.columns]
        cells = [[("" if self.like_pandas else pad[j]) + self._cell(r[c], float_format)
                  for j, c in enumerate(self.columns)] for r in self.rows]
        head = [pad[j] + c for j, c in enumerate(self.columns)]
        widths = [max([len(h)] + [len(row[j]) for row in cells]) for j, h in enumerate(head)]
        lines = [" ".join(c.rjust(w) for c, w in zip(head, widths))]
        lines += [" ".join(v.rjust(w) for v, w in zip(row, widths)) for row in cells]
        return "\n".join(lines)

    def to_csv(self, index: bool = False) -> str:
        """CSV text with a header line; empty cells for missing values (None, and like pandas a NaN)."""
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(self.columns)
        for r in self.rows:
            w.writerow([self._cell(r[c], nan="") for c in self.columns])
        return buf.getvalue()

    def to_dict(self, orient: str = "records") -> list[dict]:
        """The rows as dicts (``orient="records"`` only).

        Raises:
            ValueError: another orient."""
        if orient != "records":
            raise ValueError(f"orient must be 'records', not {orient!r}")
        return [dict(r) for r in self.rows]
