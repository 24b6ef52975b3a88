"""Charts.  Plot helpers take an ``ax`` and tidy data and return the artists;
figure builders (``fig_*``) make a ``matplotlib.figure.Figure`` without pyplot
state, so library code never touches a global figure."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ludolab.sim import box


def _figure(w=7.0, h=4.2) -> tuple[Figure, object]:
    fig = Figure(figsize=(w, h))
    return fig, fig.add_subplot(1, 1, 1)


# -------------------------------------------------------------- Shut the Box
def plot_score_distributions(ax, dist: pd.DataFrame, title: str = "Final score distribution by policy"):
    """Lines of P(score = x) per policy, on ``ax``.

    Args:
        ax: a matplotlib Axes.
        dist: tidy DataFrame with columns ``policy``, ``score`` (points),
            ``probability`` (as :func:`ludolab.analysis.box.score_distributions`).
        title: the axes title.

    Returns:
        The Line2D artists, one per policy.
    """
    artists = []
    for name, g in dist.groupby("policy", sort=False):
        g = g.sort_values("score")
        artists += ax.plot(g["score"], g["probability"], marker="o", ms=2.5, lw=1.2, label=name)
    ax.set_title(title)
    ax.set_xlabel("final score (lower is better)")
    ax.set_ylabel("probability")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    return artists


def fig_score_distributions(dist: pd.DataFrame, title: str = "Final score distribution by policy") -> Figure:
    """A Figure of :func:`plot_score_distributions` (no pyplot state)."""
    fig, ax = _figure()
    plot_score_distributions(ax, dist, title)
    return fig


def plot_mc_distribution(ax, exact: pd.Series, sampled: pd.Series, games: int):
    """Exact P(score = x) as bars and a Monte Carlo frequency with 95% CI bars, on ``ax``.

    Args:
        ax: a matplotlib Axes.
        exact: probabilities indexed by score (``Evaluation.distribution()``).
        sampled: frequencies indexed by score (``SimResult.distribution()``).
        games: games simulated (the CI half-width is 1.96 sqrt(p(1-p)/games)).

    Returns:
        ``[bars, errorbar]`` artists.
    """
    bars = ax.bar(exact.index, exact.values, color="#bcd", label="exact")
    x = sampled.index.to_numpy()
    p = sampled.to_numpy()
    half = 1.96 * np.sqrt(p * (1 - p) / games)
    err = ax.errorbar(x, p, yerr=half, fmt="o", ms=2.5, color="#c33", lw=1, label=f"simulated ({games:,} games, 95% CI)")
    ax.set_xlabel("final score (lower is better)")
    ax.set_ylabel("probability")
    ax.set_title("Final score: simulation against the exact distribution")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    return [bars, err]


def fig_mc_distribution(exact: pd.Series, sampled: pd.Series, games: int) -> Figure:
    """A Figure of :func:`plot_mc_distribution` (no pyplot state)."""
    fig, ax = _figure()
    plot_mc_distribution(ax, exact, sampled, games)
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


def plot_policy_map(ax, grid: pd.DataFrame, title: str = "Optimal policy: tiles to cover"):
    """Heat map of a policy grid (:func:`policy_map_frame`) on ``ax``: colour = tiles covered.

    Cells are labelled with the tiles (``x``: the turn ends) when the grid has
    at most 70 rows; rolls not rolled are grey.

    Returns:
        ``[image]``, the AxesImage.
    """
    n_cov = np.array([[0 if c in ("", "-") else len(c.split()) for c in row] for row in grid.to_numpy()], dtype=float)
    mask = np.array([[c == "-" for c in row] for row in grid.to_numpy()])
    shown = np.ma.masked_array(n_cov, mask)
    import matplotlib as mpl

    cmap = mpl.colormaps["Blues"].with_extremes(bad="#e4e4e4")
    im = ax.imshow(shown, aspect="auto", cmap=cmap, vmin=0, vmax=max(3, n_cov.max()))
    small = grid.shape[0] <= 70
    for i in range(grid.shape[0]):
        for j in range(grid.shape[1]):
            c = grid.iat[i, j]
            if c not in ("-",) and small:
                ax.text(j, i, c if c else "x", ha="center", va="center", fontsize=5.5,
                        color="white" if n_cov[i, j] >= 2 else "black")
    ax.set_xticks(range(grid.shape[1]), grid.columns, fontsize=7, rotation=45)
    ax.set_yticks(range(grid.shape[0]), grid.index, fontsize=6)
    ax.set_xlabel("roll")
    ax.set_ylabel("open tiles")
    ax.set_title(title)
    return [im]


def fig_policy_map(grid: pd.DataFrame, title: str = "Optimal policy: tiles to cover (x: turn ends)") -> Figure:
    """A Figure of :func:`plot_policy_map` with a colour bar of tiles covered (no pyplot state)."""
    fig, ax = _figure(8.5, max(3.0, 0.16 * grid.shape[0] + 1.5))
    im = plot_policy_map(ax, grid, title)[0]
    cb = fig.colorbar(im, ax=ax, fraction=0.03)
    from matplotlib.ticker import MaxNLocator

    cb.locator = MaxNLocator(integer=True)
    cb.update_ticks()
    cb.set_label("tiles covered")
    return fig


def plot_beat_curve(ax, curve: pd.DataFrame, column: str = "p_beat"):
    """P(score < T) against T, one line per one-die rule, on ``ax`` (STB-O3).

    Args:
        ax: a matplotlib Axes.
        curve: DataFrame with ``one_die``, ``target`` and ``column``
            (as :func:`ludolab.analysis.box.beat_curve`).
        column: the probability column drawn.

    Returns:
        The Line2D artists, one per rule.
    """
    artists = []
    for rule, g in curve.groupby("one_die", sort=False):
        artists += ax.plot(g["target"], g[column], lw=1.3, label=rule)
    ax.set_xlabel("target T (score to beat)")
    ax.set_ylabel("P(score < T), playing to beat T")
    ax.set_title("Chance to beat a target, by one-die rule")
    ax.legend(title="one-die rule", fontsize=7)
    ax.grid(alpha=0.3)
    return artists


def fig_beat_curve(curve: pd.DataFrame) -> Figure:
    """A Figure of :func:`plot_beat_curve` (no pyplot state)."""
    fig, ax = _figure()
    plot_beat_curve(ax, curve)
    return fig


def plot_seat_wins(ax, seats: pd.DataFrame, ci: bool = False):
    """Bars of P(win outright) per seat, grouped by player count, on ``ax`` (STB-9..STB-12).

    Args:
        ax: a matplotlib Axes.
        seats: DataFrame with ``seat``, ``p_win`` and optionally ``players``
            (one group when absent) and ``p_win_ci_low``/``p_win_ci_high``.
        ci: draw the 95% CI as error bars (simulated matches).

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
    ax.set_title("Win probability by seat")
    ax.set_ylim(0, float(df["p_win"].max()) * 1.3)
    ax.legend(fontsize=7, ncol=3, loc="upper right")
    ax.grid(alpha=0.3, axis="y")
    return artists


def fig_seat_wins(seats: pd.DataFrame, ci: bool = False) -> Figure:
    """A Figure of :func:`plot_seat_wins` (no pyplot state)."""
    fig, ax = _figure()
    plot_seat_wins(ax, seats, ci)
    return fig


def plot_variants_matrix(ax, matrix: pd.DataFrame):
    """Heat map of the cost (in % of the best) of optimising for one scoring and being scored by another (STB-8).

    Args:
        ax: a matplotlib Axes.
        matrix: the tidy matrix of :func:`ludolab.analysis.box.variants_matrix`.

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
            ax.text(j, i, f"{piv.iat[i, j]:.1f}%", ha="center", va="center", fontsize=8,
                    color="white" if vals[i, j] > 0.55 * top else "black")
    ax.set_xticks(range(len(order)), order, rotation=20)
    ax.set_yticks(range(len(order)), order)
    ax.set_xlabel("scored by")
    ax.set_ylabel("policy optimised for")
    ax.set_title("Cost of playing for the wrong scoring (% above the best)")
    return [im]


def fig_variants_matrix(matrix: pd.DataFrame) -> Figure:
    """A Figure of :func:`plot_variants_matrix` (no pyplot state)."""
    fig, ax = _figure(6.2, 4.8)
    plot_variants_matrix(ax, matrix)
    return fig
