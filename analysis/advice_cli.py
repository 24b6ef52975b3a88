"""What every ``advise`` command of a card game shares: its budget options and its answer.

The answer (:func:`emit_advice`) is the ranked table of :class:`ludolab.sim.advice.Advice`
(every legal action with its value and 95% CI, best first), the budget used, the
continuation policy, and one line saying whether the best action is separated from
the second by the report's comparison rule (better, equally good, or cannot tell yet).
"""

from __future__ import annotations

import functools

import click

from ludolab.sim import advice as _advice

from .cli_common import FloatRange, InputError, IntRange, emit
from .text_table import TextTable

COLUMNS = ["rank", "action", "value", "ci_low", "ci_high"]
#: Worlds sampled when ``--continuation`` is a search, the all-seeing bound or ``python:MODULE:FUNCTION``
#: (played one Python call per decision) and ``--budget`` is not given.
SLOW_WORLDS = 16


def continuation_of(text: str | None, game, rules):
    """The ``--continuation`` of an advise command as :func:`ludolab.sim.advice.advise` takes it: a named
    policy of the ruleset (or None, the game's best heuristic), a named policy with parameters
    (``threshold:knock=8`` in Beverbende), or any policy ``ludolab GAME ladder --policy`` takes (a search,
    the all-seeing bound, ``python:MODULE:FUNCTION``), which advice plays one decision at a time.

    Args:
        text: the option as written, or None; game: the game's step game; rules: the int64 rules array.

    Raises:
        InputError: an unknown policy or a malformed policy string (one line naming what is allowed).
    """
    from .ladder_cli import parse_contender

    if text is None:
        return None
    hook = game.extra.get("policies_for")
    named = hook(rules) if hook is not None else game.policies
    if text.strip() in named:
        return text.strip()
    try:
        return parse_contender(text, named, game.extra.get("best"), game.extra.get("policy"))
    except InputError as exc:
        msg = str(exc)
        for old, new in (("--policy", "--continuation"), ("unknown policy", "--continuation: unknown policy"),
                         ("policy ", "--continuation ")):
            if msg.startswith(old):
                msg = new + msg[len(old):]
                break
        raise InputError(msg) from None


def slow_budget(budget: int, continuation, given: bool) -> int:
    """The worlds to sample: at most :data:`SLOW_WORLDS` for a continuation played in Python (anything but a
    named policy) when ``--budget`` was not ``given``; ``budget`` otherwise."""
    if given or not hasattr(continuation, "kind") or continuation.kind == "named":
        return int(budget)
    return min(int(budget), SLOW_WORLDS)


def advice_options(default_budget: int = _advice.DEFAULT_WORLDS):
    """Click options ``--budget``, ``--half-width``, ``--max-worlds``, ``--seed``, ``--continuation``, ``--format``.

    The command receives ``budget`` already set to ``default_budget`` when the option is not
    given, and a finite ``half_width`` (or None).

    Args:
        default_budget: the worlds sampled when ``--budget`` is not given (chosen per game so
            that the answer comes within 2 s once compiled).
    """
    def deco(cmd):
        @functools.wraps(cmd)
        def fn(*args, budget=None, half_width=None, **kwargs):
            return cmd(*args, budget=budget_of(budget, half_width, default_budget), half_width=half_width, **kwargs)

        opts = [
            click.option("--budget", type=IntRange(2, _advice.MAX_WORLDS), default=None,
                         help=f"Sampled worlds per legal action (default {default_budget:,}; with --half-width, "
                              "the first round)."),
            click.option("--half-width", type=FloatRange(min=0.0, min_open=True), default=None,
                         help="Double the worlds until the best action's 95% CI half-width (points) is at most this."),
            click.option("--max-worlds", type=IntRange(2, _advice.MAX_WORLDS), default=20_000,
                         show_default=True, help="The most worlds --half-width may use, and the most consistent "
                                                     "worlds an endgame's exact advice plays."),
            click.option("--seed", type=IntRange(min=0, max=2**64 - 1), default=0, show_default=True,
                         help="The sampled worlds' stream (the same seed gives the same advice)."),
            click.option("--continuation", default=None,
                         help="The policy every seat plays after the action in each world (default: the "
                              "game's best heuristic): a named policy, or any policy `ludolab GAME ladder "
                              "--policy` takes (search:budget=B,rollout=NAME, all-seeing:..., "
                              "python:MODULE:FUNCTION). A stronger one costs more time per world; a search or "
                              f"python:... plays one Python call per decision and samples {SLOW_WORLDS} worlds "
                              "unless --budget is given."),
            click.option("--format", "fmt", type=click.Choice(("table", "json", "csv")), default="table",
                         show_default=True),
        ]
        for o in reversed(opts):
            fn = o(fn)
        return fn
    return deco


def budget_of(budget, half_width, default_budget: int) -> int:
    """The worlds to start with: ``--budget`` or the command's default (``half_width`` is read as finite:
    its option refuses NaN and infinity)."""
    return int(budget) if budget is not None else int(default_budget)


def advice_table(adv: _advice.Advice, label, codes: bool = False) -> TextTable:
    """The ranked rows of ``adv`` as a table (``label(action) -> str`` names each action; ``codes``
    adds the action's int ``code`` of the game's action encoding after its label, and the columns
    ``worlds`` (the consistent worlds when every one was played, else the sampled worlds), ``exact`` and
    ``continuation`` (the policy every seat plays after the action, as the ladder spells it))."""
    if not codes:
        return TextTable(adv.rows(label), COLUMNS)
    columns = COLUMNS[:2] + ["code"] + COLUMNS[2:]
    rows = adv.rows(label)
    columns += ["worlds", "exact", "continuation"]  # the same columns whether the worlds were listed or sampled
    for r in rows:
        r.update(worlds=adv.consistent_worlds if adv.consistent_worlds is not None else adv.worlds, exact=adv.exact,
                 continuation=adv.continuation)
    return TextTable(rows, columns)


def emit_advice(adv: _advice.Advice, label, title: str, record: dict, fmt: str, unit: str = "points",
                seat_name: str | None = None) -> None:
    """Print the advice: ``record`` (the situation in a few fields), then the budget, the
    continuation and the verdict, then the ranked table.

    Args:
        adv: the advice.
        label: ``label(action: int) -> str``, the action in the game's notation.
        title: the table's title (text format).
        record: what the answer is about (game, seat, ...), printed first.
        fmt: ``table``, ``json`` or ``csv``.
        unit: what ``value`` is, e.g. ``"points"`` or ``"penalty points of the round"``.
        seat_name: how the game's rules name the seat (default ``"seat N"``, counted from 1).

    ``worlds`` reads "all N consistent worlds (exact)" when every world consistent with the
    situation was played (JSON: ``exact``, ``consistent_worlds`` and ``passes``).
    A note on stderr says when ``--max-worlds`` stopped the doubling above the half-width the
    advice was asked for (``adv.half_width``), and when it alone kept an endgame's advice from being exact.
    """
    reached = float(adv.ci_high[0] - adv.ci_low[0]) / 2
    half_width = adv.half_width
    if half_width is not None and reached > half_width:
        click.echo(f"note: the best action's 95% CI half-width is {reached:.3g} points, above --half-width "
                   f"{half_width:g}: {adv.worlds:,} worlds reach --max-worlds (raise it for a narrower CI)", err=True)
    if adv.exact_needs is not None:
        click.echo(f"note: the {adv.exact_needs:,} consistent worlds would give exact advice, but --max-worlds is "
                   f"below that: {adv.worlds:,} sampled worlds instead (raise --max-worlds to {adv.exact_needs:,} "
                   "for the exact advice)", err=True)
    better = "lower is better" if adv.lower_is_better else "higher is better"
    rec = dict(record)
    rec.update({
        "value": f"expected {unit} for {seat_name or f'seat {adv.seat + 1}'} ({better}), 95% CI",
        "advice": label(int(adv.actions[0])),
        "worlds": adv.worlds_line() if adv.consistent_worlds is not None and fmt != "json" else adv.worlds,
        "continuation": f"{adv.continuation} for every seat after the action",
        "verdict": adv.verdict if adv.verdict is not None else "only one legal action",
        "best_vs_second": adv.verdict_line(label),
        "seconds": round(adv.seconds, 3),
    })
    if fmt == "json":
        rec["exact"] = adv.exact
        if adv.consistent_worlds is not None:
            rec.update(consistent_worlds=adv.consistent_worlds, passes=adv.passes, worlds_note=adv.worlds_line())
        rec["gap"] = None if adv.verdict is None else {"diff": adv.diff, "ci_low": adv.diff_low, "ci_high": adv.diff_high}
    emit(fmt, record=rec, table=advice_table(adv, label, codes=fmt != "table"), title=title)
