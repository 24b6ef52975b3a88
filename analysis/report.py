"""``ludolab report``: a Markdown report of every registered game, on built-in defaults.

Each game contributes a section: ``report_section(ctx) -> str`` in its
analysis module, which writes its tables and charts through the
:class:`ReportContext` and returns Markdown.  The sections come from the game
registry (:mod:`ludolab.stdlib.registry`), in its order.
"""

from __future__ import annotations

import datetime as _dt
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pandas as pd

from ludolab.stdlib import registry
from ludolab.stdlib.errors import LudolabError

from .results import _atomic_write, save_figure, save_table, versions


@dataclass
class ReportContext:
    """What a report section gets: the output folder, the run size, the seed,
    and helpers that write a table or a chart and return its Markdown."""

    out_dir: Path
    quick: bool
    seed: int
    log: Callable[[str], None] | None = None
    files: list = field(default_factory=list)

    def say(self, msg: str) -> None:
        if self.log:
            self.log(msg)

    def table(self, df: pd.DataFrame, name: str, meta: dict, floatfmt: str = ".4g", rows: int | None = None) -> str:
        """Save ``df`` (CSV + provenance sidecar) and return it as a Markdown table."""
        self.files += save_table(df, self.out_dir / "tables", name, "csv", meta)
        shown = df if rows is None else df.head(rows)
        return markdown_table(shown, floatfmt) + f"\n\n<sub>Table: `tables/{name}.csv`</sub>\n"

    def figure(self, fig, name: str, caption: str) -> str:
        path = save_figure(fig, self.out_dir / "charts", name)
        self.files.append(path)
        return f"![{caption}](charts/{name}.png)\n"


def markdown_table(df: pd.DataFrame, floatfmt: str = ".4g") -> str:
    """A DataFrame as a GitHub Markdown table."""
    def fmt(v):
        if isinstance(v, float):
            return format(v, floatfmt)
        return str(v)

    head = "| " + " | ".join(str(c) for c in df.columns) + " |"
    sep = "|" + "|".join("---" for _ in df.columns) + "|"
    body = ["| " + " | ".join(fmt(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join([head, sep, *body])


def build_report(out_dir: str | Path = "ludolab-report", quick: bool = False, seed: int = 2026,
                 log: Callable[[str], None] | None = None) -> Path:
    """Write ``report.md`` with its ``tables/`` and ``charts/`` into ``out_dir``.

    Returns:
        Path of report.md.
    """
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise LudolabError(f"the report folder {str(out_dir)!r} is a file: give a folder")
    t0 = time.perf_counter()
    ctx = ReportContext(out_dir, quick, seed, log)
    parts = [g.load("analysis").report_section(ctx) for g in registry.GAMES]
    v = versions()
    head = ("# ludolab report\n\n"
            f"Made {_dt.datetime.now(_dt.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')} with ludolab {v['ludolab']} "
            f"(numpy {v['numpy']}, numba {v['numba']}, pandas {v['pandas']}); root seed {seed}"
            f"{', quick run' if quick else ''}. Every table is also saved as CSV with a `.meta.json` provenance "
            "sidecar.\n")
    tail = f"\n---\nBuilt in {time.perf_counter() - t0:.1f} s.\n"
    path = out_dir / "report.md"
    _atomic_write(path, lambda tmp: Path(tmp).write_text(head + "\n" + "\n\n".join(parts) + tail))
    return path
