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

    progress: "BuildProgress | None" = None
    #: a deep-run folder (``ludolab report --deep DIR``): its complete summaries are shown before the stored ones
    deep_dir: str | None = None

    def note(self, msg: str) -> None:
        """Record a timing or other build fact in ``build.log`` (never in report.md, which stays the same
        from build to build)."""
        if self.progress is not None:
            self.progress.notes.append(msg)

    def say(self, msg: str) -> None:
        """Start a new stage named ``msg`` (``"game: what ..."``): logged with the time so far and an
        estimate of what remains (:class:`BuildProgress`)."""
        if self.progress is not None:
            msg = self.progress.stage(msg)
        if self.log:
            self.log(msg)

    def table(self, df: pd.DataFrame, name: str, meta: dict, floatfmt: str = ".4g", rows: int | None = None,
              shown: pd.DataFrame | None = None) -> str:
        """Save ``df`` (CSV + provenance sidecar) and return it as a Markdown table.

        ``rows`` shows only the first rows; ``shown`` shows that frame instead (a part of ``df``: fewer
        rows or columns), while the CSV keeps every row and column of ``df``."""
        from ludolab.sim.runner import current_session

        outcomes = current_session().outcomes
        runs = [o.as_dict() for o in outcomes[self._table_runs_seen:]] or self._table_runs
        self._table_runs_seen, self._table_runs = len(outcomes), runs  # no new run: the same runs as before
        meta = {**meta, "runs": runs} if "runs" not in meta else meta  # the runs behind this table only
        self.files += save_table(df, self.out_dir / "tables", name, "csv", meta)
        shown = df if shown is None else shown
        layout = table_layout(shown)
        shown = shown if rows is None else shown.head(rows)
        return (markdown_table(compact_table(shown, floatfmt, layout), floatfmt)
                + f"\n\n<sub>Table: `tables/{name}.csv`</sub>\n")

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


def _stage_key(msg: str) -> str:
    """A stage's name without its run sizes and dots (``"box: policy comparison"``), to match it across builds."""
    import re

    return re.sub(r"[\s.]+$", "", re.sub(r"\d[\d,]*", "N", msg)).strip()


class BuildProgress:
    """Times the stages of a report build and estimates what remains.

    The estimate uses the stage times of the previous build in the same folder (``build.log``, same quick
    flag), scaled by how fast this build has gone so far; without one it scales the time so far by the
    share of games done.  A background timer says "still on ..." every ``beat`` seconds so no stage sits
    silent.

    Args:
        log: where messages go (``None``: nowhere, the timings are still kept).
        previous: stage name -> seconds of the previous build (:meth:`read_log`), or ``{}``.
        n_games: sections of the report (each game's, and the designers'); beat: seconds between "still on"
            messages (0: none).
    """

    def __init__(self, log=None, previous: dict | None = None, n_games: int = 1, beat: float = 30.0):
        self.log, self.previous, self.n_games, self.beat = log, dict(previous or {}), max(1, n_games), beat
        self.t0 = time.perf_counter()
        self.stages: list[list] = []  # [name, start, end]
        self.games_done = 0
        self.notes: list[str] = []
        self._timer = None

    def _now(self) -> float:
        return time.perf_counter() - self.t0

    def _close(self) -> None:
        if self.stages and self.stages[-1][2] is None:
            self.stages[-1][2] = self._now()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def remaining(self) -> float | None:
        """Seconds the build still needs, estimated; ``None`` before anything is known."""
        now = self._now()
        done = {_stage_key(n) for n, _, end in self.stages if end is not None}  # not the stage now running
        if self.previous:
            prev_done = sum(v for k, v in self.previous.items() if k in done)
            left = sum(v for k, v in self.previous.items() if k not in done)
            pace = now / prev_done if prev_done > 0 else 1.0
            return max(0.0, left * pace)
        if self.games_done:
            return now * (self.n_games - self.games_done) / self.games_done
        return None

    def stage(self, msg: str) -> str:
        """Close the running stage, open ``msg``; returns the message to show."""
        self._close()
        now = self._now()
        self.stages.append([msg, now, None])
        left = self.remaining()
        est = "" if left is None else f", about {_clock(left)} left"
        self._arm(msg)
        return f"[{_clock(now)}{est}] {msg}"

    def game_done(self) -> None:
        """One more game's section is finished."""
        self._close()
        self.games_done += 1

    def _arm(self, msg: str, start: float | None = None) -> None:
        """Say "still on ``msg``" after every ``beat`` seconds the stage runs."""
        if not self.beat or self.log is None:
            return
        import threading

        start = self._now() if start is None else start

        def still():
            if not (self.stages and self.stages[-1][0] == msg and self.stages[-1][2] is None):
                return
            self.log(f"[{_clock(self._now())}] still on {msg.rstrip(' .')} ({_clock(self._now() - start)} so far)")
            self._arm(msg, start)

        self._timer = threading.Timer(self.beat, still)
        self._timer.daemon = True
        self._timer.start()

    def finish(self) -> str:
        """Close the last stage; returns the one-line summary of where the time went."""
        self._close()
        total = self._now()
        by_game: dict = {}
        for name, a, b in self.stages:
            by_game[name.split(":")[0]] = by_game.get(name.split(":")[0], 0.0) + (b - a)
        top = sorted(self.stages, key=lambda st: st[1] - st[2])[:3]
        return (f"Built in {_clock(total)}: " + ", ".join(f"{g} {_clock(t)}" for g, t in by_game.items())
                + "; longest stages: " + ", ".join(f"{n.rstrip(' .')} {_clock(b - a)}" for n, a, b in top) + ".")

    def log_text(self, quick: bool) -> str:
        """The build log: one tab-separated line per stage (seconds, stage), then the summary."""
        self._close()
        lines = [f"# ludolab report build log ({'quick' if quick else 'full'}); seconds\tstage"]
        lines += [f"{b - a:.2f}\t{_stage_key(n)}" for n, a, b in self.stages]
        lines += [f"# {n}" for n in self.notes]
        return "\n".join(lines) + "\n# " + self.finish() + "\n"

    @staticmethod
    def read_log(path: Path, quick: bool) -> dict:
        """Stage name -> seconds from a previous ``build.log`` of the same kind (``{}`` when absent or other)."""
        try:
            text = Path(path).read_text().splitlines()
        except OSError:
            return {}
        if not text or f"({'quick' if quick else 'full'})" not in text[0]:
            return {}
        out = {}
        for ln in text[1:]:
            sec, _, name = ln.partition("\t")
            if ln.startswith("#") or not name:
                continue
            try:
                out[name] = out.get(name, 0.0) + float(sec)
            except ValueError:
                continue
        return out


def _clock(seconds: float) -> str:
    """Seconds as ``"42 s"`` or ``"3 min 05 s"``."""
    seconds = max(0.0, float(seconds))
    if seconds < 60:
        return f"{seconds:.0f} s"
    m, sec = divmod(int(round(seconds)), 60)
    return f"{m} min {sec:02d} s"


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


#: At most this many columns of a table are shown in the report; the CSV keeps every column.
MAX_SHOWN_COLUMNS = 8


@dataclass(frozen=True)
class TableLayout:
    """How a table is shown: the columns in the page, those shown as a value with its 95% CI in brackets
    (``X`` with ``X_ci_low`` and ``X_ci_high``), the columns with one value on every row (stated once above
    the table), and the columns kept for the CSV only."""

    shown: tuple
    with_ci: frozenset
    constant: dict
    hidden: tuple

    def note(self) -> str:
        """The words said once above the table: what is the same on every row, what is in the CSV only, and
        what the brackets hold (empty when nothing needs saying)."""
        parts = []
        if self.constant:
            parts.append("On every row: " + ", ".join(f"{k} {_plain(v)}" for k, v in self.constant.items()) + ".")
        if self.with_ci:
            parts.append("In brackets: the 95% confidence interval.")
        if self.hidden:
            parts.append("In the CSV only: " + ", ".join(self.hidden) + ".")
        return " ".join(parts)


def _plain(v) -> str:
    return _number(v) if isinstance(v, float) else str(v)


def table_layout(df: pd.DataFrame, max_columns: int = MAX_SHOWN_COLUMNS) -> TableLayout:
    """Which columns of ``df`` the report shows (:class:`TableLayout`): CI limits folded into their value's
    cell, columns with one value on every row (of two rows or more) stated once, at most ``max_columns``
    columns in the page, the rest in the CSV.

    Raises:
        ValueError: ``max_columns`` below 1.
    """
    if max_columns < 1:
        raise ValueError(f"max_columns must be at least 1, not {max_columns}")
    cols = [str(c) for c in df.columns]
    with_ci = {c for c in cols if f"{c}_ci_low" in cols and f"{c}_ci_high" in cols}
    folded = {f"{c}_ci_{e}" for c in with_ci for e in ("low", "high")}
    rest = [c for c in cols if c not in folded]
    constant = {}
    if len(df) >= 2:
        for c in rest:
            vals = df[c]
            if c not in with_ci and vals.nunique(dropna=False) == 1 and len(constant) < len(rest) - 1:
                constant[c] = vals.iloc[0]
    rest = [c for c in rest if c not in constant]
    return TableLayout(tuple(rest[:max_columns]), frozenset(with_ci & set(rest[:max_columns])), constant,
                       tuple(rest[max_columns:]))


def _number(v: float, floatfmt: str = ".4g") -> str:
    """A number for people: ``floatfmt`` for fixed formats, else that many significant digits without
    scientific notation (0.000068, 16,000)."""
    import math

    if v != v:  # NaN
        return ""
    if floatfmt.endswith("f"):
        return format(v, floatfmt)
    digits = int(floatfmt.strip(".g") or 4)
    if v == 0:
        return "0"
    if float(v).is_integer() and abs(v) < 1e15:
        return f"{int(v):,}" if abs(v) >= 10_000 else str(int(v))
    mag = math.floor(math.log10(abs(v)))
    if mag >= digits - 1:
        return f"{v:,.0f}"
    text = f"{v:.{digits - 1 - mag}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def compact_table(df: pd.DataFrame, floatfmt: str = ".4g", layout: TableLayout | None = None) -> pd.DataFrame:
    """``df`` as shown in the report (:func:`table_layout`): strings, a value and its CI in one cell
    ("21.42 (21.38 to 21.46)"), no scientific notation."""
    layout = layout or table_layout(df)
    out = {}
    for c in layout.shown:
        if c in layout.with_ci:
            out[c] = [ci_cell(v, lo, hi, floatfmt) for v, lo, hi in zip(df[c], df[f"{c}_ci_low"], df[f"{c}_ci_high"])]
        else:
            out[c] = [_plain_fmt(v, floatfmt) for v in df[c]]
    return pd.DataFrame(out, columns=list(layout.shown))


def ci_cell(value, low, high, floatfmt: str = ".4g") -> str:
    """A value and its 95% CI in one cell, ``"21.42 (21.38 to 21.46)"``: the last decimal shown is at most
    a 2.5th of the CI's half-width (``floatfmt`` when the interval is empty or undefined); an empty cell
    where the value is NaN (not measured on that row)."""
    import math

    vals = [float(v) for v in (value, low, high)]
    if vals[0] != vals[0]:  # not measured on this row: an empty cell
        return ""
    half = (vals[2] - vals[1]) / 2
    if not all(math.isfinite(v) for v in vals) or half <= 0:
        return f"{_plain_fmt(value, floatfmt)} ({_plain_fmt(low, floatfmt)} to {_plain_fmt(high, floatfmt)})"
    dec = min(6, max(0, -math.floor(math.log10(half / 2.5))))
    v, lo, hi = (f"{x:.{dec}f}" for x in vals)
    lo, hi = (ci_bound(x, t) for x, t in ((vals[1], lo), (vals[2], hi)))
    return f"{v} ({lo} to {hi})"


def ci_bound(x: float, text: str) -> str:
    """A CI bound as written (``text``, e.g. ``"-0.00"``, ``"+0.0"``, ``"0.0%"``), with decimals added (up to
    6) where a bound that is not 0 would read as 0: which side of 0 a bound lies on decides the comparison
    words, so it must show (``ci_bound(-0.004, "-0.00") == "-0.004"``)."""
    import math

    x = float(x)
    if x == 0 or not math.isfinite(x) or any(ch in "123456789" for ch in text):
        return text
    pct = text.endswith("%")
    y = abs(x) * (100 if pct else 1)
    dec = min(6, max(0, -math.floor(math.log10(y))))
    sign = "-" if x < 0 else ("+" if text.startswith("+") else "")
    return f"{sign}{y:.{dec}f}{'%' if pct else ''}"


def _plain_fmt(v, floatfmt: str) -> str:
    import numpy as np

    if isinstance(v, (float, np.floating)):
        return _number(float(v), floatfmt)
    return str(v)


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
                 log: Callable[[str], None] | None = None, force: bool = False, deep_dir=None) -> Path:
    """Write ``report.md`` and ``report.html`` with its ``tables/`` and ``charts/`` into ``out_dir``.

    The Monte Carlo runs execute with the :class:`~ludolab.sim.runner.Execution` in force
    (``ludolab report --backend dask`` sets one).  The report is built in a staging folder
    and published with :func:`ludolab.analysis.outputs.publish_tree`: it replaces the files
    an earlier report wrote (saying so through ``log``) and never a file ludolab did not
    write, unless ``force``.

    ``deep_dir``: a deep-run folder whose complete summaries the report shows in place of the ones kept
    with ludolab (:mod:`ludolab.analysis.deep`; ``ludolab report --deep DIR`` fills it first).

    Returns:
        Path of report.md.

    Raises:
        LudolabError: the folder is a file, a file in the way is not ludolab's, or the
            folder cannot be written (one line naming the file and the cause).
    """
    from .outputs import OutputError, os_error, publish_tree, refuse_foreign, staging_folder

    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise LudolabError(f"the report folder {str(out_dir)!r} is a file: give a folder")
    refuse_foreign(out_dir, ("report.md", "report.html"), force)  # before the build, not after it
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
                path = _build(out_dir, quick, seed, log, deep_dir=deep_dir)
            except OSError as exc:
                raise OutputError(os_error(exc)) from None
        done = publish_tree(out_dir, final_dir, group="report", force=force)
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)
    if log and done.summary():
        log(f"{final_dir}: {done.summary()}")
    return final_dir / path.name


def _build(out_dir: Path, quick: bool, seed: int, log, deep_dir=None) -> Path:
    """Write the whole report into ``out_dir``; returns the path of report.md there.

    The stage timings go to ``build.log`` (estimates for the next build come from it), never into report.md:
    two builds with the same seed differ in report.md only in its one line starting ``Build:``."""
    previous = BuildProgress.read_log(out_dir.parent / "build.log", quick)
    progress = BuildProgress(log, previous, n_games=len(registry.GAMES) + 1)  # the games, then the designers' section
    ctx = ReportContext(out_dir, quick, seed, log, progress=progress, deep_dir=deep_dir)
    parts = []
    for g in registry.GAMES:
        ctx.game = g.id
        from ludolab.sim.runner import current_session

        ctx._runs_seen = ctx._table_runs_seen = len(current_session().outcomes)
        ctx._table_runs, ctx._figure_runs = [], []
        parts.append(g.entry("report_section")(ctx))
        progress.game_done()
    ctx.game = None
    from .designer import report_section as designer_section

    parts += [md for md in [designer_section(ctx)] if md]
    v = versions()
    head = ("# ludolab report\n\n"
            f"Build: {_dt.datetime.now(_dt.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')} (the only line that "
            "differs between two builds with the same seed; timings are in `build.log`).\n\n"
            f"Made with ludolab {v['ludolab']} "
            f"(numpy {v['numpy']}, numba {v['numba']}, pandas {v['pandas']}); root seed {seed}"
            f"{', quick run' if quick else ''}; Monte Carlo on the {_backend()} backend. Every table is also "
            "saved as CSV with a `.meta.json` provenance sidecar, every chart with its own `.meta.json`; "
            "`report.html` is this report as one page, charts embedded.\n")
    path = out_dir / "report.md"
    _atomic_write(path, lambda tmp: Path(tmp).write_text(head + "\n" + "\n\n".join(parts) + "\n"))
    from .html import write_html

    write_html(path, out_dir / "report.html", ctx.figure_provenance)
    text = progress.log_text(quick)
    _atomic_write(out_dir / "build.log", lambda tmp: Path(tmp).write_text(text))
    if log:
        log(text.rstrip().splitlines()[-1].lstrip("# "))
    return path
