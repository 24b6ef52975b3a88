"""``ludolab balance GAME``: the designer's measures of :mod:`ludolab.sim.balance` for any game.

The command reads everything about the game from its step game (the
registry's ``step_game``): its rulesets by seat count, its named policies, and
in ``extra`` the field's default policy (``best``), random play (``random``)
and the most scoring moments a game has (``moments(rules)``).
"""

from __future__ import annotations

import json

import click

from .cli_common import InputError, user_errors


@click.command("balance", short_help="Seat edge, skill, decisiveness, drama, length and ties of a game.")
@click.argument("game")
@click.option("--players", type=click.IntRange(2, 6), default=None,
              help="Seats at the table (default: the game's first table of two or more; a count the game has "
                   "no table for is refused, naming those it has).")
@click.option("--policy", "policies", multiple=True,
              help="The named policy of each seat in order (repeat); one name plays every seat. "
                   "Default: the game's best heuristic.")
@click.option("--games", type=click.IntRange(2, 10**7), default=20_000, show_default=True,
              help="Duplicate deals (each also played with every seat in turn at random for the skill measures).")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True)
@click.option("--no-skill", is_flag=True, help="Leave out the skill measures (one run instead of one per seat more).")
@click.option("--format", "fmt", type=click.Choice(("table", "json")), default="table", show_default=True)
@user_errors
def balance(game, players, policies, games, seed, no_skill, fmt):
    """One row per measure: its value, 95% CI and what it means (definitions in the README,
    section "Balance")."""
    from ludolab.sim import balance as BAL
    from ludolab.sim.step import named_policies
    from ludolab.stdlib import registry
    from ludolab.stdlib.errors import LudolabError

    try:
        info = registry.get(game)
    except LudolabError:
        raise InputError(f"unknown game {game!r}: allowed {', '.join(g.cli_name for g in registry.GAMES)}") from None
    g = info.entry("step_game")()
    sizes = sorted({c.n_players for c in g.cases if c.n_players >= 2})
    cases = [c for c in g.cases if c.n_players >= 2 and (players is None or c.n_players == players)]
    if not cases:
        raise InputError(f"--players {players}: {info.title} is measured at {', '.join(map(str, sizes))} players")
    case = cases[0]
    named = named_policies(g, case)
    best = g.extra.get("best", next(iter(named)))
    names = list(policies) or [best]
    if len(names) == 1:
        names = names * case.n_players
    if len(names) != case.n_players:
        raise InputError(f"--policy: give one name, or one per seat ({case.n_players}), not {len(names)}")
    for n in names:
        if n not in named:
            raise InputError(f"--policy {n!r} is not a named policy of {info.title}: allowed {', '.join(named)}")
    rnd = g.extra.get("random")
    random_policy = None if (no_skill or rnd not in named) else named[rnd]
    moments = int(g.extra["moments"](case.rules)) if "moments" in g.extra else int(g.max_steps(case.rules)) + 1
    rows = BAL.study(g.kernels, case.rules, [named[n] for n in names], bool(g.lower_wins), games, seed, moments,
                     random_policy=random_policy, variant=case.label)
    if fmt == "json":
        click.echo(json.dumps([{k: r[k] for k in ("metric", "variant", "value", "ci_low", "ci_high")} for r in rows],
                              indent=2))
        return
    click.echo(f"Balance of {info.title} ({case.label}; seats {', '.join(names)}; {games} games, seed {seed})")
    w = max(len(r["metric"]) for r in rows)
    for r in rows:
        click.echo(f"{r['metric']:<{w}}  {r['value']:10.4f}  ({r['ci_low']:.4f} to {r['ci_high']:.4f})  {r['meaning']}")
