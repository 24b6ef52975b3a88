"""``ludolab report``: a report of every registered game, on built-in defaults.

Each game contributes a section: ``report_section(ctx) -> str`` in its
analysis module, which writes its tables and charts through the
:class:`ReportContext` and returns Markdown.  The sections come from the game
registry (:mod:`ludolab.stdlib.registry`), in its order.  The report is written
as ``report.md`` and as a self-contained ``report.html`` (charts embedded, a
table of contents, the provenance of every figure: game, rules, seed, the runs
that drew it and the backend), see :mod:`ludolab.analysis.html`.
"""

from __future__ import annotations

import datetime as _dt
import json
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
    game: str | None = None
    figure_provenance: dict = field(default_factory=dict)
    _runs_seen: int = 0
    _table_runs_seen: int = 0
    _table_runs: list = field(default_factory=list)
    _figure_runs: list = field(default_factory=list)

    def say(self, msg: str) -> None:
        if self.log:
            self.log(msg)

    def table(self, df: pd.DataFrame, name: str, meta: dict, floatfmt: str = ".4g", rows: int | None = None) -> str:
        """Save ``df`` (CSV + provenance sidecar) and return it as a Markdown table."""
        from ludolab.sim.runner import current_session

        outcomes = current_session().outcomes
        runs = [o.as_dict() for o in outcomes[self._table_runs_seen:]] or self._table_runs
        self._table_runs_seen, self._table_runs = len(outcomes), runs  # no new run: the same runs as before
        meta = {**meta, "runs": runs} if "runs" not in meta else meta  # the runs behind this table only
        self.files += save_table(df, self.out_dir / "tables", name, "csv", meta)
        shown = df if rows is None else df.head(rows)
        return markdown_table(shown, floatfmt) + f"\n\n<sub>Table: `tables/{name}.csv`</sub>\n"

    def figure(self, fig, name: str, caption: str, meta: dict | None = None) -> str:
        """Save ``fig`` as ``charts/NAME.png`` with its provenance (``charts/NAME.meta.json``:
        the game, the report's seed, the runs made since the previous chart, ``meta``)."""
        path = save_figure(fig, self.out_dir / "charts", name)
        self.files.append(path)
        prov = self._figure_provenance(caption, meta)
        self.figure_provenance[f"charts/{name}.png"] = _condensed(prov)
        side = self.out_dir / "charts" / f"{name}.meta.json"
        _atomic_write(side, lambda tmp: Path(tmp).write_text(json.dumps(prov, indent=2, default=str) + "\n"))
        self.files.append(side)
        return f"![{caption}](charts/{name}.png)\n"

    def _figure_provenance(self, caption: str, meta: dict | None) -> dict:
        from ludolab.sim.runner import current_session

        sess = current_session()
        runs = [o.as_dict() for o in sess.outcomes[self._runs_seen:]] or self._figure_runs
        self._runs_seen, self._figure_runs = len(sess.outcomes), runs  # no new run: the same runs as before
        rec = {"figure": caption}
        if self.game:
            rec.update(registry.game_provenance(self.game))
        rec.update({"report_seed": self.seed, "quick": self.quick, "execution": sess.settings.describe()})
        if runs:
            rec["runs"] = [{k: v for k, v in r.items() if k in ("label", "games", "seed", "chunks", "backend",
                                                                  "fingerprint")} for r in runs]
        if meta:
            rec.update(meta)
        return rec


def _condensed(prov: dict, most: int = 4) -> dict:
    """The provenance shown beside a chart: many runs summed up (the sidecar keeps each)."""
    runs = prov.get("runs")
    if not runs or len(runs) <= most:
        return prov
    out = dict(prov)
    out["runs"] = {"count": len(runs), "total_games": sum(int(r.get("games", 0)) for r in runs),
                   "games_each": sorted({int(r.get("games", 0)) for r in runs}),
                   "seeds": sorted({int(r.get("seed", 0)) for r in runs}),
                   "chunks": sorted({int(r.get("chunks", 0)) for r in runs}),
                   "backends": sorted({str(r.get("backend")) for r in runs})}
    return out


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


def _backend() -> str:
    from ludolab.sim.runner import current_execution

    ex = current_execution()
    return ex.backend if ex.backend == "local" else f"dask ({ex.describe().get('scheduler')})"


def build_report(out_dir: str | Path = "ludolab-report", quick: bool = False, seed: int = 2026,
                 log: Callable[[str], None] | None = None, force: bool = False) -> Path:
    """Write ``report.md`` and ``report.html`` with its ``tables/`` and ``charts/`` into ``out_dir``.

    The Monte Carlo runs execute with the :class:`~ludolab.sim.runner.Execution` in force
    (``ludolab report --backend dask`` sets one).  The report is built in a staging folder
    and published with :func:`ludolab.analysis.outputs.publish_tree`: it replaces the files
    an earlier report wrote (saying so through ``log``) and never a file ludolab did not
    write, unless ``force``.

    Returns:
        Path of report.md.

    Raises:
        LudolabError: the folder is a file, a file in the way is not ludolab's, or the
            folder cannot be written (one line naming the file and the cause).
    """
    from .outputs import OutputError, os_error, publish_tree, staging_folder

    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise LudolabError(f"the report folder {str(out_dir)!r} is a file: give a folder")
    # Built in a staging folder and moved into place only when complete, so an
    # interrupted or failed run never mixes its tables into an earlier report.
    import shutil
    import tempfile

    final_dir = out_dir
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        out_dir = Path(tempfile.mkdtemp(prefix=".report-building-", dir=final_dir))
    except OSError as exc:
        raise OutputError(os_error(exc, final_dir)) from None
    try:
        with staging_folder(out_dir):
            try:
                path = _build(out_dir, quick, seed, log)
            except OSError as exc:
                raise OutputError(os_error(exc)) from None
        done = publish_tree(out_dir, final_dir, group="report", force=force)
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)
    if log and done.summary():
        log(f"{final_dir}: {done.summary()}")
    return final_dir / path.name


def _build(out_dir: Path, quick: bool, seed: int, log) -> Path:
    """Write the whole report into ``out_dir``; returns the path of report.md there."""
    t0 = time.perf_counter()
    ctx = ReportContext(out_dir, quick, seed, log)
    parts = []
    for g in registry.GAMES:
        ctx.game = g.id
        from ludolab.sim.runner import current_session

        ctx._runs_seen = ctx._table_runs_seen = len(current_session().outcomes)
        ctx._table_runs, ctx._figure_runs = [], []
        parts.append(g.load("analysis").report_section(ctx))
    ctx.game = None
    v = versions()
    head = ("# ludolab report\n\n"
            f"Made {_dt.datetime.now(_dt.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')} with ludolab {v['ludolab']} "
            f"(numpy {v['numpy']}, numba {v['numba']}, pandas {v['pandas']}); root seed {seed}"
            f"{', quick run' if quick else ''}; Monte Carlo on the {_backend()} backend. Every table is also "
            "saved as CSV with a `.meta.json` provenance sidecar, every chart with its own `.meta.json`; "
            "`report.html` is this report as one page, charts embedded.\n")
    tail = f"\n---\nBuilt in {time.perf_counter() - t0:.1f} s.\n"
    path = out_dir / "report.md"
    _atomic_write(path, lambda tmp: Path(tmp).write_text(head + "\n" + "\n\n".join(parts) + tail))
    from .html import write_html

    write_html(path, out_dir / "report.html", ctx.figure_provenance)
    return path
