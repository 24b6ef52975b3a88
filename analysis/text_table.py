"""A small table of rows for commands that print a few lines at the table (``shelf score``,
``box advise``): the three things :func:`ludolab.analysis.cli_common.emit` asks of a
table (``to_string``, ``to_csv``, ``to_dict("records")``) without importing pandas, whose
import costs more than the whole answer."""

from __future__ import annotations

import csv
import io

import numpy as np


class TextTable:
    """Rows (dicts) under fixed columns, printed as pandas prints a DataFrame without its index.

    Args:
        rows: a list of dicts; a missing key is an empty cell.
        columns: the column names, in order.
    """

    def __init__(self, rows: list[dict], columns: list[str]):
        self.columns = list(columns)
        self.rows = [{c: r.get(c) for c in self.columns} for r in rows]
        self.attrs: dict = {}

    def __len__(self) -> int:
        return len(self.rows)

    @staticmethod
    def _cell(v, float_format=None, nan: str = "NaN") -> str:
        if v is None:
            return ""
        if isinstance(v, (float, np.floating)) and v != v:
            return nan
        if isinstance(v, float) and float_format is not None:
            return float_format(v)
        return str(v)

    def _numeric(self, c) -> bool:
        """Whether pandas would hold column ``c`` in a numeric dtype: every value a number, and either
        every one a bool or none of them."""
        vals = [r[c] for r in self.rows if r[c] is not None]
        if not vals or not all(isinstance(v, (int, float, np.number, np.bool_)) for v in vals):
            return False
        bools = [isinstance(v, (bool, np.bool_)) for v in vals]
        return all(bools) or not any(bools)

    def to_string(self, index: bool = False, float_format=None) -> str:
        """Every column right-justified to its widest cell (header included), one space apart; a
        numeric column's header keeps one place for the sign before it, and a missing float reads
        ``NaN``, as pandas prints them."""
        pad = [" " if self._numeric(c) else "" for c in self.columns]
        cells = [[self._cell(r[c], float_format) for c in self.columns] for r in self.rows]
        head = [pad[j] + c for j, c in enumerate(self.columns)]
        widths = [max([len(h)] + [len(row[j]) for row in cells]) for j, h in enumerate(head)]
        lines = [" ".join(c.rjust(w) for c, w in zip(head, widths))]
        lines += [" ".join(v.rjust(w) for v, w in zip(row, widths)) for row in cells]
        return "\n".join(lines)

    def to_csv(self, index: bool = False) -> str:
        """CSV text with a header line; empty cells for missing values (None or a NaN float)."""
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
