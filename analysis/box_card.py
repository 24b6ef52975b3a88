"""Luck, skill and rules of thumb for Shut the Box: the "how much is skill" chart, the rule-of-thumb
chart and the one-page strategy card (PNG and PDF).  Clause ids refer to ``seeds/shut_the_box.md``
(STB-O5 foresight, STB-O6 rules of thumb).

Functions for the report: :func:`card_data` (the best rule of thumb, its cost and where it goes
wrong, as data), :func:`findings` (the same as plain-language sentences), :func:`fig_card` (the card), :func:`fig_foresight` (the skill table as a chart),
:func:`fig_thumb` (the best rules of thumb and their cost), :func:`save_card` (PNG and PDF).  The
tables themselves come from :func:`ludolab.sim.box_foresight.foresight_table` and
:func:`ludolab.sim.box_thumb.best_rules_of_thumb`.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from ludolab.sim import box_exact, box_thumb
from ludolab.stdlib.box import BoxRules

FONT = 9
_COLOURS = {"random": "#9e9e9e", "best named heuristic": "#8c6d31", "best rule of thumb": "#e6550d",
            "optimal for the mean score": "#3182bd", "optimal for shutting": "#6baed6", "foresight": "#31a354"}


def fig_foresight(table, rules: BoxRules | None = None) -> Figure:
    """The "how much is skill" chart: chance to shut and mean score of each player (STB-O5).

    Args:
        table: :func:`ludolab.sim.box_foresight.foresight_table`.
        rules: named in the title when given.

    Returns:
        A Figure with two bar panels, each bar labelled with its value.
    """
    fig = Figure(figsize=(9.0, 4.2), layout="constrained")
    axes = fig.subplots(1, 2, sharey=True)
    players = list(table["player"])
    y = np.arange(len(players))[::-1]
    colours = [_COLOURS.get(p, "#636363") for p in players]
    for ax, col, xlabel, fmt in ((axes[0], "p_shut", "chance to shut the box (%)", "{:.2f}%"),
                                 (axes[1], "mean_score", "mean score (points, lower is better)", "{:.2f}")):
        vals = table[col].to_numpy(dtype=float) * (100.0 if col == "p_shut" else 1.0)
        ax.barh(y, vals, color=colours)
        for yi, v in zip(y, vals):
            ax.text(v, yi, " " + fmt.format(v), va="center", fontsize=FONT)
        ax.set_xlabel(xlabel, fontsize=FONT + 1)
        ax.set_xlim(0, vals.max() * 1.3)
        ax.tick_params(labelsize=FONT)
        ax.grid(axis="x", alpha=0.3)
    labels = [f"{p}\n" + textwrap.fill(f"({q})", 34) if p in ("best named heuristic", "best rule of thumb") else p
              for p, q in zip(players, table["policy"])]
    axes[0].set_yticks(y, labels)
    title = "How much is skill: random play, rules of thumb, optimal play and a player who knows every die"
    fig.suptitle(title if rules is None else f"{title}\n{rules.label()}", fontsize=FONT + 1)
    return fig


def fig_thumb(table, rules: BoxRules | None = None) -> Figure:
    """The best rules of thumb and their exact cost against optimal play (STB-O6).

    Args:
        table: :func:`ludolab.sim.box_thumb.best_rules_of_thumb` (``rule``, ``cost``; ``attrs['objective']``).
        rules: named in the title when given.

    Returns:
        A Figure, one bar per rule, best at the top.
    """
    objective = table.attrs.get("objective", "")
    in_points = "E[score]" in objective
    fig = Figure(figsize=(9.0, 0.9 + 0.45 * len(table)), layout="constrained")
    ax = fig.add_subplot(1, 1, 1)
    y = np.arange(len(table))[::-1]
    cost = table["cost"].to_numpy(dtype=float) * (1.0 if in_points else 100.0)
    ax.barh(y, cost, color="#e6550d")
    for yi, v in zip(y, cost):
        ax.text(v, yi, f" {v:.3f}" + ("" if in_points else " pp"), va="center", fontsize=FONT)
    ax.set_yticks(y, [textwrap.fill(r, 60) for r in table["rule"]])
    ax.set_xlim(0, max(cost.max(), 1e-9) * 1.3)
    ax.set_xlabel("cost against optimal play (" + ("points of mean score" if in_points else
                                                   "percentage points") + f"; objective {objective})",
                  fontsize=FONT + 1)
    ax.tick_params(labelsize=FONT)
    ax.grid(axis="x", alpha=0.3)
    title = "Best rules of thumb (preferences read in order)"
    ax.set_title(title if rules is None else f"{title}\n{rules.label()}", fontsize=FONT + 1)
    return fig


def card_data(rules: BoxRules, objective: str = "expected-score", rule: str | None = None,
              exceptions: int = 6, tie_break: str = "high") -> dict:
    """What the strategy card says, as data (STB-O6).

    Args:
        rules: the ruleset.
        objective: ``expected-score`` or ``shut`` (what the rule is chosen and costed for).
        rule: a rule of thumb as :func:`ludolab.sim.box_thumb.rule_name` writes it
            (``"fewest-tiles > lowest-top; dice cover"``); ``None`` for the best one found.
        exceptions: how many situations where the rule goes wrong to list (the costliest dice
            choices and the costliest moves, about half each where both kinds occur).
        tie_break: ``high`` or ``low``, where the rule's last tie goes (STB-T1); a rule given as
            text may say it itself (``"...; ties low"``).

    Returns:
        dict: ``rule`` (name), ``keys``, ``habit``, ``words`` (lines of the rule),
        ``mean_score``, ``p_shut``, ``optimal_mean_score``, ``optimal_p_shut``,
        ``cost`` (in the objective's units), ``objective`` (label), ``exceptions``
        (DataFrame of :func:`ludolab.sim.box_thumb.thumb_exceptions`), ``compare``
        (DataFrame ``player``, ``policy``, ``p_shut``, ``mean_score``: random play, the
        best named heuristic, this rule, optimal play and, where it can be computed,
        foresight, :func:`ludolab.sim.box_foresight.foresight_table`).

    Raises:
        ThumbError: an unreadable rule; LudolabError: a bad objective.
    """
    import pandas as pd

    if rule is None:
        rule = box_thumb.best_rules_of_thumb(rules, objective, top=1, tie_break=tie_break).iloc[0]["rule"]
    keys, habit = box_thumb.parse_rule(rule)
    if "; ties" in rule:
        tie_break = box_thumb.parse_tie_break(rule)
    habit = habit or "cover"
    pol = box_thumb.thumb_policy(rules, keys, habit, tie_break)
    ev = box_exact.evaluate(pol)
    opt_mean = box_exact.solve(rules, "expected-score").start_value
    opt_shut = box_exact.solve(rules, "shut").start_value
    label = box_exact.objective_label(objective)
    cost = ev.mean() - opt_mean if objective == "expected-score" else opt_shut - ev.p_shut
    every = box_thumb.thumb_exceptions(rules, keys, habit, objective, top=None, tie_break=tie_break)
    # the costliest dice choices and the costliest moves, so the card shows both kinds of mistake
    dice_rows = every[every["roll"].isna()]
    move_rows = every[every["roll"].notna()]
    n_dice = min(len(dice_rows), max(exceptions // 2, exceptions - len(move_rows)))
    exc = (every.loc[list(dice_rows.index[:n_dice]) + list(move_rows.index[:exceptions - n_dice])]
           .sort_values("expected_loss", ascending=False, kind="stable").reset_index(drop=True))
    exc.attrs.update(every.attrs)
    from ludolab.sim.box_foresight import ForesightError, foresight_table

    try:
        compare = foresight_table(rules, thumb=False)
    except ForesightError:  # too large for foresight: compare with the other players only
        compare = foresight_table(rules, thumb=False, with_foresight=False)
    compare = compare[["player", "policy", "p_shut", "mean_score"]].copy()
    at = int((compare["player"] == "best named heuristic").to_numpy().nonzero()[0][0]) + 1
    this = {"player": "this rule of thumb", "policy": pol.name, "p_shut": ev.p_shut, "mean_score": ev.mean()}
    compare = pd.concat([compare.iloc[:at], pd.DataFrame([this]), compare.iloc[at:]], ignore_index=True)
    return {"rule": pol.name, "keys": list(keys), "habit": habit, "words": box_thumb.describe_rule(rules, keys, habit, tie_break),
            "mean_score": ev.mean(), "p_shut": ev.p_shut, "optimal_mean_score": opt_mean,
            "optimal_p_shut": opt_shut, "cost": cost, "objective": label, "exceptions": exc, "compare": compare}


def findings(rules: BoxRules, data: dict | None = None) -> list[str]:
    """Plain-language findings on luck, skill and rules of thumb, computed from the exact numbers.

    Args:
        rules: the ruleset.
        data: :func:`card_data` of the ruleset when already computed (else it is computed).

    Returns:
        Sentences: the best rule of thumb and its cost, where it goes wrong most, and how much
        of the game is skill (random play, optimal play and foresight side by side).

    Raises:
        As :func:`card_data`.
    """
    data = data or card_data(rules)
    cmp = data["compare"].set_index("player")
    out = [f"The best rule of thumb is: {'; '.join(w[0].lower() + w[1:] for w in data['words'])}. "
           f"It scores {data['mean_score']:.2f} on average, {data['mean_score'] - data['optimal_mean_score']:.2f} "
           f"points more than perfect play ({data['optimal_mean_score']:.2f}), and shuts the box "
           f"{100 * data['p_shut']:.1f}% of the time (perfect play for shutting: {100 * data['optimal_p_shut']:.1f}%)."]
    exc = data["exceptions"]
    if len(exc):
        row = exc.iloc[0]
        if row["roll"] is None or row["roll"] != row["roll"]:
            where = f"with {row['open']} open, roll {row['instead']}, not {row['rule_plays']}"
        else:
            where = f"with {row['open']} open and a roll of {row['roll']}, cover {row['instead']}, not {row['rule_plays']}"
        out.append(f"Where the rule costs most: {where}.")
    if "foresight" in cmp.index:
        rnd, opt, fs = cmp.loc["random"], cmp.loc["optimal for shutting"], cmp.loc["foresight"]
        out.append(f"How much is luck: random play shuts the box {100 * rnd['p_shut']:.1f}% of the time, perfect "
                   f"play {100 * opt['p_shut']:.1f}%, and even a player who knew every die in advance only "
                   f"{100 * fs['p_shut']:.1f}%.")
    return out


def _exception_line(rules: BoxRules, row, in_points: bool) -> str:
    unit = "points" if in_points else "percentage points of P(shut)"
    loss = row["loss"] if in_points else 100 * row["loss"]
    often = 100 * row["how_often"]
    if row["roll"] is None or (isinstance(row["roll"], float) and np.isnan(row["roll"])):
        what = f"open {row['open']}, before rolling: roll {row['instead']}, not {row['rule_plays']}"
    else:
        dice = "one die" if int(row["dice"]) == 1 else (rules.dice_words(2) if hasattr(rules, "dice_words")
                                                          else "two dice")
        what = (f"open {row['open']}, roll {row['roll']} ({dice}): cover {row['instead']}, "
                f"not {row['rule_plays']}")
    return f"{what}  (saves {loss:.3g} {unit}; met in {often:.2g}% of turns)"


def fig_card(data: dict, rules: BoxRules) -> Figure:
    """The one-page strategy card (A4 portrait): the rule of thumb, its cost, and where it goes wrong.

    Args:
        data: :func:`card_data`.
        rules: the ruleset (named on the card).

    Returns:
        A Figure of 8.27 x 11.69 inches with text only; the text is set smaller when a long list
        of situations would not fit on the page otherwise.
    """
    for scale in (1.0, 0.92, 0.84, 0.76, 0.68, 0.6):
        fig, y = _draw_card(data, rules, scale)
        if y >= 0.02:
            break
    return fig


def _draw_card(data: dict, rules: BoxRules, scale: float):
    fig = Figure(figsize=(8.27, 11.69))
    y = 0.95

    def put(text, size=11, weight="normal", x=0.07, gap=0.021, colour="black", wrap=92):
        nonlocal y
        size, gap, wrap = size * scale, gap * scale, int(wrap / scale)
        for i, line in enumerate(textwrap.wrap(text, wrap) or [""]):
            fig.text(x if i == 0 else x + 0.03, y, line, fontsize=size, weight=weight, color=colour, va="top")
            y -= gap * size / (11 * scale)
        return y

    put("Shut the Box: a rule of thumb", size=20, weight="bold", gap=0.024)
    put(rules.label(), size=11, colour="#444444")
    y -= 0.015 * scale
    put("The rule", size=14, weight="bold")
    for i, line in enumerate(data["words"], 1):
        put(f"{i}. {line[0].upper() + line[1:]}.", size=12, wrap=84)
    y -= 0.015 * scale
    put("What it costs", size=14, weight="bold")
    put(f"Mean score {data['mean_score']:.2f} points against {data['optimal_mean_score']:.2f} with perfect play "
        f"(+{data['mean_score'] - data['optimal_mean_score']:.2f}).", size=12, wrap=80)
    put(f"Shuts the box in {100 * data['p_shut']:.2f}% of turns; play for shutting does "
        f"{100 * data['optimal_p_shut']:.2f}%.", size=12, wrap=80)
    put(f"Chosen as the best of every rule of up to three preferences for {data['objective']}, each "
        "evaluated exactly.", size=10, colour="#444444", wrap=95)
    y -= 0.015 * scale
    in_points = "E[score]" in data["objective"]
    exc = data["exceptions"]
    put("Where it goes wrong, and what to do instead", size=14, weight="bold")
    if len(exc) == 0:
        put("Nowhere that it meets: the rule plays perfectly.", size=11)
    for _, row in exc.iterrows():
        put("- " + _exception_line(rules, row, in_points), size=11, wrap=92)
    y -= 0.015 * scale
    put("How it compares", size=14, weight="bold")
    cols = (0.07, 0.50, 0.70)
    for j, head in enumerate(("player", "mean score", "shuts the box")):
        fig.text(cols[j], y, head, fontsize=11 * scale, weight="bold", va="top")
    y -= 0.022 * scale
    for _, row in data["compare"].iterrows():
        name = row["player"] + (f" ({row['policy']})" if row["player"] == "best named heuristic" else "")
        bold = "bold" if row["player"] == "this rule of thumb" else "normal"
        for j, text in enumerate((name, f"{row['mean_score']:.2f}", f"{100 * row['p_shut']:.2f}%")):
            fig.text(cols[j], y, text, fontsize=11 * scale, weight=bold, va="top")
        y -= 0.019 * scale
    y -= 0.012 * scale
    put("Tiles are named by their numbers; a roll is the total of the dice. Each saving counts that one "
        "situation alone, played well from then on. Optimal play is for the mean score (its chance to shut is "
        "for play aimed at shutting). Foresight: a player who knows every die in advance. All figures exact.",
        size=9, colour="#444444", wrap=110)
    return fig, y


def save_card(fig: Figure, out_dir, name: str = "strategy_card") -> list[Path]:
    """Write the card as ``NAME.png`` and ``NAME.pdf`` (each written whole or not at all).

    Returns:
        The two paths.

    Raises:
        ludolab.analysis.outputs.OutputError: a file in the way that ludolab did not write, or
            the folder cannot be written (one line naming the file).
    """
    from .outputs import writing

    out_dir = Path(out_dir)
    paths = []
    with writing(out_dir) as w:  # the output folder's manifest: never a file ludolab did not write
        for ext, dpi in (("png", 110), ("pdf", None)):
            path = out_dir / f"{name}.{ext}"
            w.write(path.name if w.root.absolute() == out_dir.absolute() else
                    path.absolute().relative_to(w.root.absolute()).as_posix(),
                    lambda tmp, ext=ext, dpi=dpi: fig.savefig(tmp, format=ext, dpi=dpi))
            paths.append(path)
    return paths
