"""``ludolab balance GAME``: the designer's measures of :mod:`ludolab.sim.balance` for any game.

The command reads everything about the game from its step game (the
registry's ``step_game``): its rulesets by seat count, its named policies, and
in ``extra`` the field's default policy (``best``), random play (``random``)
and the most scoring moments a game has (``moments(rules)``).
"""

from __future__ import annotations

import json

import click

from .cli_common import InputError, IntRange, user_errors


@click.command("balance", short_help="Seat edge, skill, decisiveness, drama, length and ties of a game.")
@click.argument("game")
@click.option("--players", type=IntRange(2, 6), default=None,
              help="Seats at the table (default: the game's first table of two or more; a count the game has "
                   "no table for is refused, naming those it has).")
@click.option("--policy", "policies", multiple=True,
              help="The policy of each seat in order (repeat); one plays every seat. A named policy (in "
                   "Beverbende with parameters too), or any policy `ludolab GAME ladder --policy` takes: "
                   "search:budget=B,rollout=NAME, tree:..., all-seeing:..., all-seeing-tree:..., "
                   "python:MODULE:FUNCTION, played one decision at a time (slow). Default: the game's best "
                   "heuristic.")
@click.option("--games", type=IntRange(2, 10**7), default=20_000, show_default=True,
              help="Duplicate deals (each also played with every seat in turn at random for the skill measures).")
@click.option("--seed", type=IntRange(min=0), default=0, show_default=True)
@click.option("--no-skill", is_flag=True,
              help="Leave out the skill measures (one run instead of one per seat more, and no skill chain).")
@click.option("--variants", is_flag=True,
              help="Every named scoring or rule variant of the game side by side, one column each, on the same "
                   "deals (the same seed).")
@click.option("--strong", is_flag=True,
              help="Every seat plays strong play: the top of a strength ladder of the game's named policies "
                   "(the rollout players included) against its best heuristic, on 200 duplicate deals; the "
                   "heuristic where nothing beats it by a paired 95% CI. Slow for the card games.")
@click.option("--format", "fmt", type=click.Choice(("table", "json")), default="table", show_default=True)
@user_errors
def balance(game, players, policies, games, seed, no_skill, variants, strong, fmt):
    """One row per measure: its value, 95% CI and what it means (definitions in the README,
    section "Balance"); with --variants one column per rule variant."""
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
    if strong and policies:
        raise InputError("--strong chooses every seat's policy: give it or --policy, not both")
    if variants:
        if "variants" not in g.extra:
            raise InputError(f"--variants: {info.title} has no rule variants to set side by side here "
                             f"(its own command compares them: ludolab {info.cli_name} --help)")
        cases = list(g.extra["variants"](cases[0].n_players))
    else:
        cases = cases[:1]
    from ludolab.sim import balance as BAL

    rows, picked = [], []
    for case in cases:
        if strong:
            pick = BAL.strongest(g, case, min(int(games), BAL.STRONG_DEALS), seed)
            picked.append((case.label, pick))
            policies = (pick["policy"],)
            rows.append(_strong_row(pick, case.label))
        rows += _study(g, info, case, policies, games, seed, no_skill)
        if strong and "exact_match" in g.extra:
            seats, tie = g.extra["exact_match"](case)
            rows += [{**r, "_seats": rows[-1]["_seats"]} for r in BAL.exact_match(seats, tie, case.label)]
    names = rows[-1]["_seats"]
    if fmt == "json":
        keys = ("metric", "variant", "value", "ci_low", "ci_high", "steps", "chain",  # skill_chain's
                "policy", "baseline", "deals")  # strong_play's
        click.echo(json.dumps([{k: r[k] for k in keys if k in r} for r in rows], indent=2))
        return
    better = "lower" if g.lower_wins else "higher"
    for label, pick in picked:
        where = "" if not variants else f" ({label})"
        if pick["policy"] == pick["baseline"]:
            click.echo(f"strong play{where}: {pick['policy']}: no named policy beat it by a paired 95% CI in a "
                       f"ladder on {pick['deals']} duplicate deals")
            continue
        click.echo(f"strong play{where}: {pick['policy']}, the top of a ladder of the named policies on "
                   f"{pick['deals']} duplicate deals, {pick['diff']:+.4f} ({pick['ci_low']:+.4f} to "
                   f"{pick['ci_high']:+.4f}) against {pick['baseline']} in the same seat ({better} is better); the "
                   "best one seat against a table of the heuristic, which may score less when every seat plays it")
    rows = [r for r in rows if r["metric"] != "strong_play"]
    if not variants:
        click.echo(f"Balance of {info.title} ({cases[0].label}; seats {', '.join(names)}; {games} games, seed {seed})")
        w = max(len(r["metric"]) for r in rows)
        for r in rows:
            ci = ("(exact)" if r["metric"].startswith("exact_") else f"(of {r['steps']} steps)" if "steps" in r
                  else f"({r['ci_low']:.4f} to {r['ci_high']:.4f})")
            value = f"{int(r['value']):5d}     " if "steps" in r else f"{r['value']:10.4f}"
            click.echo(f"{r['metric']:<{w}}  {value}  {ci:<20}  {r['meaning']}")
        return
    seats = {tuple(r["_seats"]) for r in rows if r.get("_seats")}
    who = (f"seats {', '.join(names)}" if len(seats) == 1 else
           "each variant's seats its strong play, named above")  # --strong may pick another policy per variant
    click.echo(f"Balance of {info.title} by rule variant ({cases[0].n_players} players; {who}; "
               f"{games} games on the same deals, seed {seed}); each cell the value (95% CI)")
    from .text_table import TextTable

    labels = [c.label for c in cases]
    table = {}
    for r in rows:
        table.setdefault(r["metric"], {"metric": r["metric"]})[r["variant"]] = (
            f"{_num(r['value'])} (exact)" if r["metric"].startswith("exact_") else
            f"{int(r['value'])} of {r['steps']} steps" if "steps" in r else
            f"{_num(r['value'])} ({_num(r['ci_low'])} to {_num(r['ci_high'])})")
    click.echo(TextTable(list(table.values()), ["metric", *labels]).to_string())
    first = {r["metric"]: (r["value"], r["ci_low"], r["ci_high"]) for r in rows if r["variant"] == labels[0]}
    for lab in labels[1:]:
        mine = {r["metric"]: (r["value"], r["ci_low"], r["ci_high"]) for r in rows if r["variant"] == lab}
        if mine == first:
            click.echo(f"note: {lab} equals {labels[0]} in every measure: with these policies the rule changes "
                       "nothing these measures see (a tie-break is not seen by win shares that split ties, a "
                       "heuristic may never use an option)")


def _seat(text: str, named: dict, g, info):
    """The contender of one ``--policy``: a named policy (in Beverbende with parameters too), a search, the
    all-seeing bound or ``python:MODULE:FUNCTION``, spelled as for ``ludolab GAME ladder --policy``.

    Raises:
        InputError: a name the game does not have, or a malformed policy string (one line)."""
    from .ladder_cli import SEARCH_KINDS, parse_contender

    head = text.partition(":")[0].strip()
    if text.strip() not in named and head not in named and head not in (*SEARCH_KINDS, "python"):
        raise InputError(f"--policy {text!r} is not a named policy of {info.title}: allowed {', '.join(named)}, "
                         "or search:..., tree:..., all-seeing:..., all-seeing-tree:..., python:MODULE:FUNCTION")
    try:
        return parse_contender(text, named, g.extra.get("best"), g.extra.get("policy"))
    except InputError as exc:
        raise InputError(f"--{str(exc)}" if str(exc).startswith("policy ") else str(exc)) from None


def _strong_row(pick: dict, variant: str) -> dict:
    """The JSON row naming strong play: ``value`` its paired difference from the best heuristic."""
    return {"metric": "strong_play", "variant": variant, "value": pick["diff"], "ci_low": pick["ci_low"],
            "ci_high": pick["ci_high"], "policy": pick["policy"], "baseline": pick["baseline"],
            "deals": pick["deals"], "_seats": []}


def _num(x: float) -> str:
    """A measure for people: no scientific notation, 4 decimals below 1, 2 up to 1,000."""
    x = float(x)
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.2f}" if abs(x) >= 1 else f"{x:.4f}"


def _study(g, info, case, policies, games, seed, no_skill) -> list:
    """The measures of one ruleset (rows of :func:`ludolab.sim.balance.study`, each with ``_seats``).

    Raises:
        InputError: a policy name the game does not have, or not one per seat."""
    from ludolab.sim import balance as BAL
    from ludolab.sim.step import named_policies

    named = named_policies(g, case)
    best = g.extra.get("best", next(iter(named)))
    names = list(policies) or [best]
    if len(names) == 1:
        names = names * case.n_players
    if len(names) != case.n_players:
        raise InputError(f"--policy: give one name, or one per seat ({case.n_players}), not {len(names)}")
    seats = [_seat(n, named, g, info) for n in names]
    names = [c.label for c in seats]
    rnd = g.extra.get("random")
    random_policy = None if (no_skill or rnd not in named) else named[rnd]
    moments = int(g.extra["moments"](case.rules)) if "moments" in g.extra else int(g.max_steps(case.rules)) + 1
    if all(c.kind == "named" for c in seats):  # compiled: every game in the kernel
        rows = BAL.study(g.kernels, case.rules, [c.policy for c in seats], bool(g.lower_wins), games, seed, moments,
                         random_policy=random_policy, variant=case.label)
    else:  # a search, the bound or a Python function in a seat: one decision at a time
        from ludolab.sim import ladder as L

        random_seat = None if random_policy is None else L.Contender(rnd, "named", random_policy)
        try:
            rows = BAL.study_seats(L.Table(g, case), seats, bool(g.lower_wins), games, seed, moments,
                                   random_seat=random_seat, variant=case.label)
        except L.PolicyError as exc:
            raise InputError(str(exc)) from None
    if random_policy is not None:
        rows.append(BAL.skill_chain(g, case, min(int(games), BAL.CHAIN_DEALS), seed, variant=case.label))
    plain = all(c.kind == "named" and c.label in named for c in seats)  # the exact measures know plain names
    dists = g.extra["exact_seats"](case, names) if "exact_seats" in g.extra and plain else None
    if dists is not None:
        rows += BAL.exact_seats(dists, bool(g.lower_wins), variant=case.label)
    return [{**r, "_seats": names} for r in rows]
