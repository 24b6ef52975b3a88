"""Helpers of the findings tests: small tables built by hand, and the check that every finding is a Finding
whose quoted numbers are in the tables it names."""

from __future__ import annotations

import pandas as pd

from ludolab.analysis.findings import Finding, quote_problems


def with_ci(df: pd.DataFrame, half: float, *cols: str) -> pd.DataFrame:
    """``df`` with ``c_ci_low`` and ``c_ci_high`` = ``c`` -/+ ``half`` for every column ``c`` of ``cols``."""
    return df.assign(**{f"{c}_ci_{e}": df[c] + (half if e == "high" else -half) for c in cols for e in ("low", "high")})


def check_findings(found: list, tables: dict, count: int, quoted=()) -> str:
    """Every finding a Finding with quotes, each quote in its table, and each string of ``quoted`` in the text;
    returns the findings' Markdown."""
    assert len(found) == count and all(isinstance(f, Finding) and f.quotes for f in found)
    assert quote_problems(found, tables) == []
    text = "\n".join(f.markdown() for f in found)
    for q in quoted:
        assert q in text
    return text


def check_change_caught(found: list, tables: dict, table: str, column: str, values: list) -> None:
    """Changing ``table.column`` to ``values`` makes the quotes of ``found`` fail against it."""
    changed = {**tables, table: tables[table].assign(**{column: values})}
    assert any(f"{table}.{column}" in p for p in quote_problems(found, changed))
