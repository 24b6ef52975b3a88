"""Charts.  Plot helpers take an ``ax`` and tidy data and return the artists;
figure builders (``fig_*``) make a ``matplotlib.figure.Figure`` without pyplot
state, so library code never touches a global figure.

Every chart is meant to be read at a glance at normal zoom: the rules named in
the title (pass ``rules``), no text smaller than 8 points, series that coincide
drawn once and labelled with every name they stand for, series that would lie on
top of each other drawn as differences from a reference, and a legend (or colour
bar) for every colour."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ludolab.sim import box

#: Smallest font used in the charts (points); at the report's 110 dpi this is about 12 pixels.
FONT = 9
_STYLES = [("-", "o"), ("--", "s"), (":", "^"), ("-.", "D"), ((0, (5, 1, 1, 1)), "v"), ((0, (1, 1)), "P"),
           ((0, (8, 2)), "X"), ((0, (3, 1, 1, 1, 1, 1)), "*")]


def _figure(w=7.0, h=4.2) -> tuple[Figure, object]:
    fig = Figure(figsize=(w, h), layout="constrained")
    return fig, fig.add_subplot(1, 1, 1)


def _title(title: str, rules=None) -> str:
    """A chart title, with the rules on a second line when given."""
    return title if rules is None else f"{title}\n{rules.label()}"


def _style_axes(ax) -> None:
    ax.tick_params(labelsize=FONT)
    ax.xaxis.label.set_size(FONT + 1)
    ax.yaxis.label.set_size(FONT + 1)
    ax.grid(alpha=0.3)


def _width(i: int, n: int) -> float:
    """Line width of the i-th of n series: earlier ones wider, so a later one lying on it stays visible."""
    return 1.3 + 1.3 * (n - 1 - i)


def merge_identical(series: dict, tol: float = 1e-9) -> dict:
    """Series that coincide, drawn once: ``{label: values}`` -> ``{"a = b": values, ...}``.

    Args:
        series: ordered mapping of label to a 1-d array (all of one length).
        tol: largest absolute difference still counted as the same curve.

    Returns:
        An ordered mapping whose keys join the labels of identical series with
        ``" = "``, in their first order.
    """
    groups: list[tuple[list[str], np.ndarray]] = []
    for label, y in series.items():
        y = np.asarray(y, dtype=float)
        for names, ref in groups:
            if ref.shape == y.shape and np.allclose(ref, y, rtol=0, atol=tol):
                names.append(label)
                break
        else:
            groups.append(([label], y))
    return {" = ".join(names): y for names, y in groups}


# -------------------------------------------------------------- Shut the Box
def _pmf_table(dist: pd.DataFrame) -> pd.DataFrame:
    """score x policy table of P(score = x), zeros filled, policies in first order."""
    order = list(dict.fromkeys(dist["policy"]))
    t = dist.pivot_table(index="score", columns="policy", values="probability", aggfunc="sum").fillna(0.0)
    full = np.arange(int(t.index.min()), int(t.index.max()) + 1)
    return t.reindex(full, fill_value=0.0)[order]


def split_close(dist: pd.DataFrame, max_distance: float = 0.2) -> tuple[str, list[str], list[str]]:
    """Which policies' score distributions would overlap the first one's (the reference).

    Args:
        dist: tidy ``policy``, ``score``, ``probability`` (first policy = reference).
        max_distance: total variation distance (half the summed absolute
            difference of the probabilities, 0..1) up to which a distribution is
            "close" to the reference.

    Returns:
        ``(reference, close, far)``: policy labels, in their first order.
    """
    t = _pmf_table(dist)
    ref = t.columns[0]
    close, far = [], []
    for p in t.columns[1:]:
        (close if 0.5 * np.abs(t[p] - t[ref]).sum() <= max_distance else far).append(p)
    return ref, close, far


def _means(t: pd.DataFrame) -> pd.Series:
    return (t.mul(t.index.to_numpy(), axis=0)).sum()


def plot_score_distributions(ax, dist: pd.DataFrame, title: str = "Final score distribution by policy",
                             policies=None, reference_bars: bool = True):
    """P(score = x) per policy, on ``ax``: the first policy as bars, the others as lines.

    Args:
        ax: a matplotlib Axes.
        dist: tidy DataFrame with columns ``policy``, ``score`` (points),
            ``probability`` (as :func:`ludolab.analysis.box.score_distributions`).
        title: the axes title.
        policies: the policies drawn besides the first (default: all).
        reference_bars: draw the first policy as bars (else as a line).

    Returns:
        The artists: the bar container (if any), then one Line2D per line.
    """
    t = _pmf_table(dist)
    means = _means(t)
    ref = t.columns[0]
    others = list(t.columns[1:]) if policies is None else [p for p in policies if p != ref]
    artists = []
    if reference_bars:
        artists.append(ax.bar(t.index, t[ref], color="#b8c8dc", label=f"{ref} (mean {means[ref]:.2f})"))
    else:
        others = [ref] + others
    for i, name in enumerate(others):
        ls, mk = _STYLES[i % len(_STYLES)]
        col = list(t.columns).index(name)
        artists += ax.plot(t.index, t[name], ls=ls, marker=mk, ms=3.5, lw=1.4, color=f"C{col}",
                           label=f"{name} (mean {means[name]:.2f})")
    ax.set_title(title, fontsize=FONT + 1)
    ax.set_xlabel("final score (lower is better)")
    ax.set_ylabel("probability")
    ax.legend(fontsize=FONT - 0.5)
    _style_axes(ax)
    return artists


def plot_score_differences(ax, dist: pd.DataFrame, policies, title: str = "Close to the first policy"):
    """P(score <= x) of each policy minus the first policy's, in percentage points, on ``ax``.

    A line below zero at x means the policy finishes at or below x less often
    than the reference.  Identical curves are drawn once (:func:`merge_identical`).

    Args:
        ax: a matplotlib Axes.
        dist: tidy ``policy``, ``score``, ``probability``; the first policy is the reference.
        policies: the policies drawn.
        title: the axes title.

    Returns:
        One Line2D per (merged) policy, and the zero line last.
    """
    t = _pmf_table(dist)
    means = _means(t)
    ref = t.columns[0]
    cdf = t.cumsum()
    series = {f"{p} (mean {means[p]:.2f}, {means[p] - means[ref]:+.2f})": 100 * (cdf[p] - cdf[ref]).to_numpy()
              for p in policies}
    artists = []
    cols = list(t.columns)
    merged = merge_identical(series)
    for i, (label, y) in enumerate(merged.items()):
        ls, mk = _STYLES[i % len(_STYLES)]
        name = label.split(" (mean")[0]
        artists += ax.plot(t.index, y, ls=ls, marker=mk, ms=3.5 + 1.5 * (len(merged) - 1 - i),
                           lw=_width(i, len(merged)), alpha=0.6 if i < len(merged) - 1 else 1.0,
                           color=f"C{cols.index(name)}", label=label)
    artists.append(ax.axhline(0, color="#555", lw=1.0, label=f"{ref} (reference)"))
    ax.set_title(title, fontsize=FONT + 1)
    ax.set_xlabel("final score x (lower is better)")
    ax.set_ylabel("P(score \u2264 x) minus the reference's\n(percentage points; below 0: worse)")
    ax.legend(fontsize=FONT - 0.5, loc="lower right")
    _style_axes(ax)
    return artists


def fig_score_distributions(dist: pd.DataFrame, title: str = "Final score distribution by policy",
                            rules=None, max_distance: float = 0.2) -> Figure:
    """Score distributions that can be told apart (no pyplot state).

    The first policy is the reference, drawn as bars.  Policies whose
    distribution is far from it (total variation distance above
    ``max_distance``, :func:`split_close`) are drawn as lines beside it;
    those close to it, whose lines would lie on the reference's, are drawn in a
    second panel as differences from it (:func:`plot_score_differences`).

    Args:
        dist: tidy ``policy``, ``score``, ``probability`` (as
            :func:`ludolab.analysis.box.score_distributions`); one policy or more.
        title: the figure title; rules: a ``BoxRules`` named under the title.
        max_distance: see :func:`split_close`.
    """
    ref, close, far = split_close(dist, max_distance)
    if not close:
        fig, ax = _figure(7.5, 4.4)
        plot_score_distributions(ax, dist, "P(final score = x)", policies=far)
    else:
        fig = Figure(figsize=(10.0, 4.6), layout="constrained")
        a, b = fig.subplots(1, 2)
        plot_score_distributions(a, dist, "(a) P(final score = x)", policies=far)
        plot_score_differences(b, dist, close, f"(b) close to {ref}: cumulative difference")
    fig.suptitle(_title(title, rules), fontsize=FONT + 2)
    return fig


def plot_mc_distribution(ax, exact: pd.Series, sampled: pd.Series, games: int,
                         title: str = "Final score: simulation against the exact distribution"):
    """Exact P(score = x) as bars and a Monte Carlo frequency with 95% CI bars, on ``ax``.

    Args:
        ax: a matplotlib Axes.
        exact: probabilities indexed by score (``Evaluation.distribution()``).
        sampled: frequencies indexed by score (``SimResult.distribution()``).
        games: games simulated (the CI half-width is 1.96 sqrt(p(1-p)/games)).
        title: the axes title.

    Returns:
        ``[bars, errorbar]`` artists.
    """
    bars = ax.bar(exact.index, exact.values, color="#b8c8dc", label="exact")
    x = sampled.index.to_numpy()
    p = sampled.to_numpy()
    half = 1.96 * np.sqrt(p * (1 - p) / games)
    err = ax.errorbar(x, p, yerr=half, fmt="o", ms=3, color="#c33", lw=1, label=f"simulated ({games:,} games, 95% CI)")
    ax.set_xlabel("final score (lower is better)")
    ax.set_ylabel("probability")
    ax.set_title(title, fontsize=FONT + 1)
    ax.legend(fontsize=FONT)
    _style_axes(ax)
    return [bars, err]


def fig_mc_distribution(exact: pd.Series, sampled: pd.Series, games: int, rules=None, policy: str | None = None) -> Figure:
    """A Figure of :func:`plot_mc_distribution` (no pyplot state); ``rules`` and ``policy`` named in the title."""
    fig, ax = _figure(7.5, 4.4)
    head = "Final score: simulation against the exact distribution" + (f", {policy}" if policy else "")
    plot_mc_distribution(ax, exact, sampled, games, _title(head, rules))
    return fig


def policy_map_frame(solution: box.Solution, states=None) -> pd.DataFrame:
    """The policy of a solution as a grid of text (STB-4, STB-6).

    Args:
        solution: a :class:`~ludolab.sim.box_exact.Solution`.
        states: open-tile bitmasks, one row each, in order; default every
            state but the shut box, most tiles first.

    Returns:
        DataFrame indexed by ``open`` (tiles as text), one column per roll
        outcome the shown states roll (one-die columns marked ``(1 die)``);
        cells hold the tiles to cover (space-separated), ``""`` when no move is
        legal, ``"-"`` for a dice count the policy does not roll there.
    """
    rules = solution.rules
    oc = rules.outcomes
    if states is None:
        states = sorted(range(1, rules.n_states), key=lambda s: (-int(s).bit_count(), -s))
    labels = list(oc.label)
    cols = [labels[o] + ("" if oc.dice[o] == 2 else " (1 die)") for o in range(oc.n)]
    data = []
    for s in states:
        row = []
        for o in range(oc.n):
            if oc.dice[o] != solution.dice[s]:
                row.append("-")
                continue
            m = int(solution.move[s, o])
            row.append("" if m < 0 else " ".join(str(t) for t in rules.tiles_of(m)))
        data.append(row)
    df = pd.DataFrame(data, index=[rules.format_state(s) for s in states], columns=cols)
    df.index.name = "open"
    return df.loc[:, (df != "-").any(axis=0)]


_MAP_COLOURS = ["#ffffff", "#d6e4f2", "#8fb5dc", "#3f7fbf", "#14457a", "#0a2440"]


def plot_policy_map(ax, grid: pd.DataFrame, title: str = "Optimal policy: tiles to cover", n_rows: int | None = None,
                    fontsize: float = FONT - 1):
    """Map of a policy grid (:func:`policy_map_frame`) on ``ax``: each cell names the tiles to cover.

    Cell colour counts the tiles covered (white with ``x``: the roll cannot be
    covered and the turn ends); cells of a dice count the policy does not roll
    there are light grey.  Cell text is written when the grid has at most 70 rows.

    Args:
        ax: a matplotlib Axes; grid: the grid; title: the axes title.
        n_rows: rows of height kept for the axes (default the grid's), so panels
            of different lengths share one row height.
        fontsize: points of the cell text.

    Returns:
        ``[image]``, the AxesImage.
    """
    import matplotlib as mpl

    vals = grid.to_numpy()
    n_cov = np.array([[0 if c in ("", "-") else len(c.split()) for c in row] for row in vals], dtype=float)
    mask = np.array([[c == "-" for c in row] for row in vals])
    top = len(_MAP_COLOURS) - 1
    cmap = mpl.colors.ListedColormap(_MAP_COLOURS).with_extremes(bad="#e4e4e4")
    im = ax.imshow(np.ma.masked_array(np.minimum(n_cov, top), mask), aspect="auto", cmap=cmap,
                   vmin=-0.5, vmax=top + 0.5, interpolation="nearest")
    if grid.shape[0] <= 70:
        for i in range(grid.shape[0]):
            for j in range(grid.shape[1]):
                c = grid.iat[i, j]
                if c != "-":
                    ax.text(j, i, c if c else "x", ha="center", va="center", fontsize=fontsize,
                            color="white" if n_cov[i, j] >= 3 else ("#999" if not c else "black"))
    ax.set_xticks(range(grid.shape[1]), [c.replace(" (1 die)", "") for c in grid.columns], fontsize=FONT)
    ax.set_yticks(range(grid.shape[0]), grid.index, fontsize=fontsize)
    ax.xaxis.set_ticks_position("both")
    ax.tick_params(labeltop=True)
    nr, nc = grid.shape
    ax.vlines(np.arange(-0.5, nc), -0.5, nr - 0.5, color="#ccc", lw=0.4)
    ax.hlines(np.arange(-0.5, nr), -0.5, nc - 0.5, color="#ccc", lw=0.4)
    for side in ("left", "right", "top", "bottom"):
        ax.spines[side].set_visible(False)
    ax.vlines([-0.5, nc - 0.5], -0.5, nr - 0.5, color="#444", lw=0.8)
    ax.hlines([-0.5, nr - 0.5], -0.5, nc - 0.5, color="#444", lw=0.8)
    ax.set_xlim(-0.5, nc - 0.5)
    ax.set_ylim((n_rows or grid.shape[0]) - 0.5, -0.5)
    if n_rows and n_rows > nr:  # a short panel: the roll labels on top only, next to its cells
        ax.tick_params(labelbottom=False, bottom=False)
        ax.xaxis.set_label_position("top")
    ax.set_xlabel("roll", fontsize=FONT + 1)
    ax.set_ylabel("open tiles" if not n_rows or n_rows <= nr else "", fontsize=FONT + 1)
    ax.set_title(title, fontsize=FONT + 1)
    return [im]


def fig_policy_map(grid: pd.DataFrame, title: str = "Optimal policy: tiles to cover", rules=None) -> Figure:
    """The policy map, legible at normal zoom (no pyplot state).

    Rows where the policy rolls two dice and rows where it rolls one die are
    drawn as two panels, each with only its own roll columns; a legend gives the
    colour of each number of tiles covered and ``x`` (turn ends).

    Args:
        grid: from :func:`policy_map_frame`; title: the figure title; rules: named under it.
    """
    from matplotlib.patches import Patch

    one = [c for c in grid.columns if c.endswith("(1 die)")]
    two = [c for c in grid.columns if c not in one]
    parts = []
    for cols, name in ((two, "two dice"), (one, "one die")):
        if not cols:
            continue
        g = grid.loc[(grid[cols] != "-").any(axis=1), cols]
        if len(g):
            parts.append((g, name))
    n_rows = max(len(g) for g, _ in parts)
    widths = [len(g.columns) for g, _ in parts]
    fig = Figure(figsize=(min(10.0, 1.6 + 0.52 * sum(widths) + 1.1 * (len(parts) - 1)), 1.9 + 0.22 * n_rows),
                 layout="constrained")
    axes = fig.subplots(1, len(parts), gridspec_kw={"width_ratios": widths}, squeeze=False)[0]
    for ax, (g, name) in zip(axes, parts):
        plot_policy_map(ax, g, f"rolling {name} ({len(g)} positions)", n_rows=n_rows)
    labels = ["x: no move, the turn ends", "1 tile", "2 tiles", "3 tiles", "4 tiles", "5 or more tiles"]
    shown = int(max(len(c.split()) for c in grid.to_numpy().ravel() if c not in ("", "-")) if (
        (grid != "-") & (grid != "")).to_numpy().any() else 0)
    handles = [Patch(facecolor=_MAP_COLOURS[k], edgecolor="#888", label=labels[k])
               for k in range(min(shown, len(_MAP_COLOURS) - 1) + 1)]
    fig.legend(handles=handles, loc="outside lower center", ncol=len(handles), fontsize=FONT, title="colour: tiles covered",
               title_fontsize=FONT, frameon=False)
    fig.suptitle(_title(title, rules), fontsize=FONT + 2)
    return fig


def plot_beat_curve(ax, curve: pd.DataFrame, column: str = "p_beat", rules=None, title: str | None = None):
    """P(score < T) against T, one line per one-die rule, on ``ax`` (STB-O3).

    Rules whose curves coincide are drawn once and named together.

    Args:
        ax: a matplotlib Axes.
        curve: DataFrame with ``one_die``, ``target`` and ``column``
            (as :func:`ludolab.analysis.box.beat_curve`).
        column: the probability column drawn.
        rules: a ``BoxRules`` named in the title; title: the axes title.

    Returns:
        The Line2D artists, one per drawn curve.
    """
    series = {rule: g.sort_values("target")[column].to_numpy() for rule, g in curve.groupby("one_die", sort=False)}
    x = np.sort(curve["target"].unique())
    artists = []
    for i, (label, y) in enumerate(merge_identical(series).items()):
        ls, mk = _STYLES[i % len(_STYLES)]
        artists += ax.plot(x, y, ls=ls, lw=1.4, color=f"C{i}", label=label)
    ax.set_xlabel("target T (score to beat)")
    ax.set_ylabel("P(score < T), playing to beat T")
    ax.set_title(title or _title("Chance to beat a target, by one-die rule", rules), fontsize=FONT + 1)
    ax.legend(title="one-die rule", fontsize=FONT - 0.5, title_fontsize=FONT)
    _style_axes(ax)
    return artists


def fig_beat_curve(curve: pd.DataFrame, rules=None, reference: str | None = None,
                   differences: bool = True) -> Figure:
    """What the one-die rule and playing for the target change, read at a glance (no pyplot state).

    Three panels: (a) P(score < T) against T under ``reference`` (default: the
    rules' one-die rule, else the first in ``curve``); (b) each other one-die
    rule minus ``never`` (two dice always), in percentage points, identical
    curves merged; (c) the gain of playing for T over playing for the lowest
    expected score, for the reference rule and ``never``.

    Args:
        curve: from :func:`ludolab.analysis.box.beat_curve` (``one_die``,
            ``target``, ``p_beat``, ``p_beat_min_mean``).
        rules: a ``BoxRules`` named in the title (its one-die rule is not used there).
        reference: the one-die rule of panel (a) (default: the rules' one-die rule, or the default rules'
            when ``rules`` is not given, if the curve has it; else its first rule).
        differences: draw panel (b); without it the figure has two panels, (a) and what was (c), now (b)
            (the report leaves the one-die rules' differences to its table).
    """
    rule_names = list(dict.fromkeys(curve["one_die"]))
    if reference is None:
        from ludolab.stdlib.box import BoxRules

        default = (rules or BoxRules()).one_die
        reference = default if default in rule_names else rule_names[0]
    ref = reference
    base = "never" if "never" in rule_names else rule_names[0]
    by = {r: g.sort_values("target") for r, g in curve.groupby("one_die", sort=False)}
    x = by[ref]["target"].to_numpy()
    if differences:
        fig = Figure(figsize=(10.0, 5.4), layout="constrained")
        a, b, c = fig.subplots(1, 3)
    else:
        fig = Figure(figsize=(9.0, 4.8), layout="constrained")
        a, c = fig.subplots(1, 2)
        b = None
    a.plot(x, 100 * by[ref]["p_beat"].to_numpy(), color="C0", lw=1.8, label=f"one-die {ref}")
    if base != ref:
        a.plot(x, 100 * by[base]["p_beat"].to_numpy(), color="C3", ls="--", lw=1.4, label=f"one-die {base}")
    a.set_xlabel("target T (score to beat)")
    a.set_ylabel("P(score < T), % (playing to beat T)")
    a.set_title("(a) chance to beat T", fontsize=FONT + 1)
    a.legend(fontsize=FONT, loc="upper center", bbox_to_anchor=(0.5, -0.2))
    _style_axes(a)
    series = {r: 100 * (by[r]["p_beat"].to_numpy() - by[base]["p_beat"].to_numpy()) for r in rule_names if r != base}
    merged = merge_identical(series) if b is not None else {}
    for i, (label, y) in enumerate(merged.items()):
        ls, mk = _STYLES[i % len(_STYLES)]
        b.plot(x, y, ls=ls, marker=mk, ms=3 + 1.5 * (len(merged) - 1 - i), lw=_width(i, len(merged)),
               alpha=0.55 if i < len(merged) - 1 else 1.0, color=f"C{i}", label=label)
    if b is not None:
        b.axhline(0, color="#555", lw=1.0, label=f"{base} (reference)")
        b.set_xlim(0, min(x.max(), 30) + 0.5)
        b.set_xlabel("target T (score to beat)")
        b.set_ylabel(f"percentage points against {base}")
        b.set_title(f"(b) each one-die rule against {base}", fontsize=FONT + 1)
        b.legend(fontsize=FONT - 1, title="one-die rule", title_fontsize=FONT - 0.5, loc="upper center",
                 bbox_to_anchor=(0.5, -0.2), ncol=2)
        _style_axes(b)
    for i, r in enumerate(dict.fromkeys([ref, base])):
        g = by[r]
        c.plot(x, 100 * (g["p_beat"].to_numpy() - g["p_beat_min_mean"].to_numpy()), ls=_STYLES[i][0],
               marker=_STYLES[i][1], ms=3, lw=1.3, color="C0" if r == ref else "C3", label=f"one-die {r}")
    c.set_xlim(0, min(x.max(), 30) + 0.5)
    c.set_ylim(bottom=0)
    c.set_xlabel("target T (score to beat)")
    c.set_ylabel("percentage points gained")
    c.set_title(f"({'c' if b is not None else 'b'}) playing for T instead of\nfor the lowest expected score",
                fontsize=FONT + 1)
    c.legend(fontsize=FONT, loc="upper center", bbox_to_anchor=(0.5, -0.2))
    _style_axes(c)
    fig.suptitle(_beat_title(rules), fontsize=FONT + 2)
    return fig


def _beat_title(rules) -> str:
    head = "Chance to beat a target T: the one-die rule and playing for the target"
    if rules is None:
        return head
    rest = ", ".join(p for p in rules.label().split(", ") if not p.startswith("one-die"))
    return f"{head}\n{rest}, every one-die rule"


def plot_seat_wins(ax, seats: pd.DataFrame, ci: bool = False, title: str = "Win probability by seat"):
    """Bars of P(win outright) per seat, grouped by player count, on ``ax`` (STB-9..STB-12).

    Args:
        ax: a matplotlib Axes.
        seats: DataFrame with ``seat``, ``p_win`` and optionally ``players``
            (one group when absent) and ``p_win_ci_low``/``p_win_ci_high``.
        ci: draw the 95% CI as error bars (simulated matches).
        title: the axes title.

    Returns:
        The bar containers, one per seat and group.
    """
    df = seats.copy()
    if "players" not in df:
        df["players"] = df["seat"].max()
    groups = list(df.groupby("players"))
    width = 0.8 / max(df["seat"].max(), 1)
    artists = []
    for gi, (p, g) in enumerate(groups):
        for _, r in g.iterrows():
            x = gi + (r["seat"] - 1 - (p - 1) / 2) * width
            yerr = None
            if ci and "p_win_ci_low" in r:
                yerr = [[r["p_win"] - r["p_win_ci_low"]], [r["p_win_ci_high"] - r["p_win"]]]
            artists.append(ax.bar(x, r["p_win"], width * 0.9, yerr=yerr, color=f"C{int(r['seat']) - 1}",
                                  label=f"seat {int(r['seat'])}" if gi == len(groups) - 1 else None))
    ax.set_xticks(range(len(groups)), [f"{p} players" for p, _ in groups])
    ax.set_ylabel("P(win outright)")
    ax.set_title(title, fontsize=FONT + 1)
    ax.set_ylim(0, float(df["p_win"].max()) * 1.3)
    ax.legend(fontsize=FONT, ncol=3, loc="upper right")
    _style_axes(ax)
    ax.grid(False)
    ax.grid(alpha=0.3, axis="y")
    return artists


def fig_seat_wins(seats: pd.DataFrame, ci: bool = False, rules=None,
                  title: str = "Win probability by seat, one round") -> Figure:
    """A Figure of :func:`plot_seat_wins` (no pyplot state); ``rules`` named in the title."""
    fig, ax = _figure(7.5, 4.4)
    plot_seat_wins(ax, seats, ci, _title(title, rules))
    return fig


def plot_variants_matrix(ax, matrix: pd.DataFrame, title: str = "Cost of playing for the wrong scoring (% above the best)"):
    """Heat map of the cost (in % of the best) of optimising for one scoring and being scored by another (STB-8).

    Args:
        ax: a matplotlib Axes.
        matrix: the tidy matrix of :func:`ludolab.analysis.box.variants_matrix`.
        title: the axes title.

    Returns:
        ``[image]``, the AxesImage.
    """
    piv = matrix.pivot(index="optimised_for", columns="scored_by", values="cost_pct")
    order = list(dict.fromkeys(matrix["optimised_for"]))
    piv = piv.loc[order, order]
    vals = piv.to_numpy()
    im = ax.imshow(vals, cmap="Reds", vmin=0)
    top = vals.max() if vals.size and vals.max() > 0 else 1.0
    for i in range(piv.shape[0]):
        for j in range(piv.shape[1]):
            ax.text(j, i, f"{piv.iat[i, j]:.1f}%", ha="center", va="center", fontsize=FONT + 1,
                    color="white" if vals[i, j] > 0.55 * top else "black")
    ax.set_xticks(range(len(order)), order, rotation=20, fontsize=FONT)
    ax.set_yticks(range(len(order)), order, fontsize=FONT)
    ax.set_xlabel("scored by", fontsize=FONT + 1)
    ax.set_ylabel("policy optimised for", fontsize=FONT + 1)
    ax.set_title(title, fontsize=FONT + 1)
    return [im]


def fig_variants_matrix(matrix: pd.DataFrame, rules=None) -> Figure:
    """A Figure of :func:`plot_variants_matrix` with a colour bar (no pyplot state); ``rules`` named in the title
    (its scoring is left out: the chart spans every scoring)."""
    fig, ax = _figure(7.0, 5.2)
    title = "Cost of playing for the wrong scoring"
    if rules is not None:
        title += "\n" + ", ".join(p for p in rules.label().split(", ") if not p.startswith("score"))
    im = plot_variants_matrix(ax, matrix, title)[0]
    cb = fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    cb.set_label("expected score above the best for the column, %", fontsize=FONT)
    cb.ax.tick_params(labelsize=FONT)
    return fig


def plot_skill(ax, table: pd.DataFrame, column: str, xlabel: str, fmt: str = "{:.1%}", title: str = ""):
    """Horizontal bars of one figure per player, least able at the top, each bar labelled with its value.

    Args:
        ax: a matplotlib Axes.
        table: DataFrame with ``player`` and ``column`` (as
            :func:`ludolab.sim.box_foresight.foresight_table`).
        column: the figure drawn; xlabel: its axis label with units;
        fmt: format of the value labels; title: the axes title.

    Returns:
        The bar container.
    """
    y = np.arange(len(table))
    vals = table[column].to_numpy(dtype=float)
    bars = ax.barh(y, vals, color="C0", height=0.6)
    top = float(np.nanmax(vals)) if len(vals) else 1.0
    for yi, v in zip(y, vals):
        ax.text(v + 0.01 * top, yi, fmt.format(v), va="center", ha="left", fontsize=FONT)
    labels = [p if "policy" not in table or str(q) in (p, "") or str(p).startswith("optimal") else f"{p}\n({q})"
              for p, q in zip(table["player"], table["policy"] if "policy" in table else table["player"])]
    ax.set_yticks(y, labels, fontsize=FONT)
    if not ax.yaxis_inverted():
        ax.invert_yaxis()
    ax.set_xlim(0, top * 1.22)
    from matplotlib.ticker import MaxNLocator, PercentFormatter

    ax.xaxis.set_major_locator(MaxNLocator(5))
    if "%" in fmt:
        ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    ax.set_xlabel(xlabel)
    ax.set_title(title, fontsize=FONT + 1)
    _style_axes(ax)
    ax.grid(False)
    ax.grid(alpha=0.3, axis="x")
    return bars


def fig_skill(table: pd.DataFrame, rules=None, title: str = "How much is skill: from random play to foresight") -> Figure:
    """Chance to shut and mean score of each player, random play to foresight (no pyplot state).

    Args:
        table: :func:`ludolab.sim.box_foresight.foresight_table` (``player``, ``p_shut``, ``mean_score``).
        rules: a ``BoxRules`` named in the title; title: the figure title.
    """
    fig = Figure(figsize=(10.0, 0.55 * len(table) + 1.9), layout="constrained")
    a, b = fig.subplots(1, 2, sharey=True)
    plot_skill(a, table, "p_shut", "chance to shut the box", "{:.1%}", "(a) chance to shut (higher is better)")
    plot_skill(b, table, "mean_score", "mean final score (points)", "{:.2f}", "(b) mean score (lower is better)")
    b.tick_params(labelleft=False)
    fig.suptitle(_title(title, rules), fontsize=FONT + 2)
    return fig


def fig_one_die_decisions(decisions: pd.DataFrame, max_total: int | None = None, rules=None,
                          title: str = "When to roll one die: every position with a choice") -> Figure:
    """What one die is worth against two in each position where the rules leave the choice (STB-6).

    One bar per position, by the total of the open tiles: to the right (one die better) or to the left (two dice
    better), in points of expected score; a dashed line marks the total at which a player who follows "one die
    at a total of ``max_total`` or less" switches.  No pyplot state.

    Args:
        decisions: :func:`ludolab.analysis.box.one_die_decisions` (``open``, ``total``, ``dice``, ``gain``).
        max_total: the total the one-die rule of thumb switches at, or ``None``.
        rules: a ``BoxRules`` named in the title; title: the figure title.
    """
    d = decisions.reset_index(drop=True)
    worth = np.where(d["dice"] == 1, d["gain"], -d["gain"])  # one die against two, in points
    fig = Figure(figsize=(7.0, 0.16 * len(d) + 1.6), layout="constrained")
    ax = fig.subplots()
    y = np.arange(len(d))[::-1]
    colours = np.where(worth > 0, "#1b7837", "#762a83")
    ax.barh(y, worth, color=colours, height=0.75)
    ax.set_yticks(y, [f"{o} (total {t})" for o, t in zip(d["open"], d["total"])], fontsize=8)
    ax.axvline(0, color="black", lw=0.8)
    if max_total is not None:
        below = d.index[d["total"] <= max_total]
        if len(below) and len(below) < len(d):
            ax.axhline(y[below[-1]] - 0.5, color="grey", ls="--", lw=1)
            ax.text(ax.get_xlim()[0], y[below[-1]] - 0.5, f"  one die above this line (total {max_total} or less)",
                    va="bottom", fontsize=8, color="grey")
    ax.set_xlabel("one die is better by (points of expected score; left of 0: two dice are better)")
    ax.set_ylim(-1, len(d))
    _style_axes(ax)
    fig.suptitle(_title(title, rules), fontsize=FONT + 1)
    return fig
