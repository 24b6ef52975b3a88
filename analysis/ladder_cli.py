"""``ludolab GAME ladder``: the strength ladder of :mod:`ludolab.sim.ladder`, one command for every game.

The command is built once here and added to every game's group by the root
command line; it reads everything about the game from its step game
(``step_game()`` in the registry): the named policies, the rulesets, whether
the lowest return wins.

Contenders are written as policy strings:

* a named policy of the game (``ludolab GAME ladder --help`` lists them); in
  Beverbende with parameters too (``threshold:knock=8,take=4``, the spelling
  of ``ludolab beverbende simulate --policy``), named canonically (parameters
  at their default dropped);
* ``search:budget=B,rollout=NAME``: perfect-information Monte Carlo over
  sampled worlds, B playouts per decision, NAME playing every seat in the
  playouts (in Beverbende with parameters too:
  ``rollout=threshold:knock=8,take=3``, the ``k=v`` right after it being the
  rollout's, up to the first search option); ``tree:budget=B,rollout=NAME``: information-set MCTS; each
  search also takes ``objective=wins`` (a playout is worth the share of the
  other seats the seat finishes ahead of, ties 1/2, in place of its points:
  a search that plays to win);
  ``all-seeing:budget=B,rollout=NAME``: the same search given every hidden
  card (an estimate of the ceiling, not a strategy);
  ``all-seeing-tree:budget=B,rollout=NAME``: a tree search of the seat's own
  decisions given every hidden card, the other seats playing NAME: its best
  reply to them knowing every card once B covers the seat's choices (in small
  endgames it plays the exact best action), weaker than ``all-seeing`` where
  B is small beside the number of legal actions (a forecast in Shut The Books);
* ``python:MODULE:FUNCTION``: a function ``f(obs, legal) -> action`` of the
  seat's observation (the slow path for a policy of your own).
"""

from __future__ import annotations

import contextlib
import importlib
import json
import sys

import click

from ludolab.stdlib.errors import LudolabError, ascii_digits

from .cli_common import InputError, IntRange, user_errors

SEARCH_KINDS = ("search", "tree", "all-seeing", "all-seeing-tree")


def _table(game_id: str, players: int | None, variant: str | None = None, case=None):
    from ludolab.sim import ladder as L
    from ludolab.stdlib import registry

    g = registry.get(game_id).entry("step_game")()
    if case is not None:  # a ruleset made by the caller
        return g, case, L.Table(g, case)
    counts = sorted({c.n_players for c in g.cases if c.n_players >= 2})
    cases = [c for c in g.cases if c.n_players >= 2 and (players is None or c.n_players == players)]
    if not cases:
        raise InputError(f"--players {players} is not a table of this game's ladder: allowed "
                         f"{', '.join(map(str, counts))}")
    if variant is not None:  # a named rule variant of the game at that size (its step game's ``variants``)
        n = cases[0].n_players
        every = g.extra["variants"](n)
        found = [c for c in every if c.label == variant]
        if not found:
            raise InputError(f"variant {variant!r} is not one of this game's at {n} players: allowed "
                             f"{', '.join(repr(c.label) for c in every)}")
        return g, found[0], L.Table(g, found[0])
    # the first ruleset of that size is the game's default rules at that size
    return g, cases[0], L.Table(g, cases[0])


def ladder_field(game_id: str, players: int | None, baseline: str | None, policies, variant: str | None = None,
                 case=None):
    """The table and players of a ladder: ``(step game, ruleset, Table, baseline contender, contenders)``.

    Args:
        variant: None for the game's default rules at ``players`` seats, else the label of one of its named
            rule variants at that size (its step game's ``extra["variants"]``, e.g. ``"pairs scoring"`` in
            Shelve the Book), the named policies then carrying that ruleset's own tables.
        case: a ruleset of the game's step interface (:class:`ludolab.sim.step.RulesCase`, with its own named
            policies) to play instead of ``players`` and ``variant`` (e.g. Shelve the Book on a generated deck:
            :func:`ludolab.analysis.shelf.deck_case`).
        baseline: the other seats' named policy (parameters allowed where the game reads them); None: the
            game's best heuristic.
        policies: the contenders' policy strings (:func:`parse_contender`); empty: every named policy.
            One spelled as the baseline is the baseline itself.

    Raises:
        InputError: a seat count the game's ladder has no table for, a variant the game does not have, a
            baseline that is not a named policy, a bad policy string (one line).
    """
    from ludolab.sim.step import named_policies

    g, case, table = _table(game_id, players, variant, case)
    named = named_policies(g, case)
    if baseline is not None and not baseline.strip():
        raise InputError(f"--baseline is empty: give a named policy, allowed {', '.join(named)}")
    base_name = baseline or g.extra.get("best", next(iter(named)))
    if base_name.partition(":")[0].strip() not in named:
        raise InputError(f"--baseline {base_name!r} is not a named policy: allowed {', '.join(named)}")
    try:
        base = named_contender(base_name, named, g.extra.get("policy"))
    except InputError as exc:
        raise InputError(f"--baseline {str(exc).removeprefix('policy ')}") from None
    contenders = [parse_contender(p, named, g.extra.get("best"), g.extra.get("policy"))
                  for p in (policies or list(named))]
    return g, case, table, base, [base if c.label == base.label else c for c in contenders]


class PolicyEnded(Exception):
    """A policy of your own asked the program to end (``SystemExit``) instead of returning an action."""


def _ended_is_an_error(f):
    """``f`` whose ``SystemExit`` (or other exit that is not an ``Exception``) becomes :class:`PolicyEnded`, so
    that a policy of your own that ends the program is refused in one line like any other error of it, not
    taken for the command's own exit; Ctrl-C stays Ctrl-C.  What it prints goes to standard error, so the
    command's JSON or CSV on standard output stays whole."""
    import functools

    @functools.wraps(f)
    def policy(obs, legal):
        try:
            with contextlib.redirect_stdout(sys.stderr):
                return f(obs, legal)
        except (Exception, KeyboardInterrupt):
            raise
        except BaseException as exc:  # noqa: BLE001 - SystemExit, GeneratorExit: the user's code ended itself
            raise PolicyEnded(f"{type(exc).__name__}({exc}) ended it instead of returning an action") from None
    return policy


def _import_from_here() -> None:
    """Let a user's module in the current folder be imported, as ``python -m`` and ``python -c`` do (the
    ``ludolab`` command itself starts without it on the path): the folder goes last on ``sys.path``, so it
    never hides an installed module."""
    import os
    import sys

    here = os.getcwd()
    if here not in sys.path and "" not in sys.path:
        sys.path.append(here)


def parse_contender(text: str, named: dict, best: str | None = None, policy=None):
    """A contender from its policy string (see the module docstring); a search's budget defaults to
    64 playouts per decision and its rollout to ``best`` (the game's best heuristic).

    ``policy``: the game's reader of a named policy with parameters (``NAME:k=v,...`` ->
    ``(label, (kind, params))``, its step game's ``extra["policy"]``), or None where the game has none.

    Raises:
        InputError: naming the bad part and what is allowed.
    """
    from ludolab.sim import ladder as L

    text = text.strip()
    if not text:
        raise InputError(f"--policy is empty: give a policy, allowed {', '.join(named)}, search:..., tree:..., "
                         "all-seeing:..., all-seeing-tree:..., python:MODULE:FUNCTION")
    if text in named:
        return L.Contender(text, "named", named[text])
    head, _, rest = text.partition(":")
    if head in named:
        return named_contender(text, named, policy)
    if head == "python":
        mod, _, fn = rest.rpartition(":")
        mod, fn = mod.strip(), fn.strip()  # "python: my_policy:choose" reads as written without the space
        if not mod or not fn:
            raise InputError(f"policy {text!r}: write python:MODULE:FUNCTION")
        if "/" in mod or "\\" in mod or mod.startswith("."):
            raise InputError(f"policy {text!r}: MODULE is a module's name (my_policy for my_policy.py in this "
                             "folder, or a dotted name Python can import), not a path")
        _import_from_here()
        try:
            with contextlib.redirect_stdout(sys.stderr):  # what the module prints: not into the JSON or CSV
                module = importlib.import_module(mod)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001 - any failure to import the user's module is one line, exits too
            raise InputError(f"policy {text!r}: cannot load {mod}:{fn} ({type(exc).__name__}: {exc})") from None
        f = getattr(module, fn, None)
        if f is None:
            import os

            mine = os.path.join(os.getcwd(), f"{mod}.py")
            if os.path.exists(mine) and os.path.abspath(getattr(module, "__file__", "") or "") != mine:
                raise InputError(f"policy {text!r}: {mod} is found before your {mod}.py in this folder (Python's "
                                 f"or an installed module of that name): give your file another name")
            raise InputError(f"policy {text!r}: cannot load {mod}:{fn} (the module has no {fn!r})")
        if not callable(f):
            raise InputError(f"policy {text!r}: {mod}:{fn} is not a function f(obs, legal) -> action")
        return L.Contender(text, "python", fn=_ended_is_an_error(f))
    if head in SEARCH_KINDS:
        return _search_contender(text, head, rest, named, best, policy)
    raise InputError(f"unknown policy {text!r}: allowed {', '.join(named)}, search:..., tree:..., all-seeing:..., "
                     "all-seeing-tree:..., python:MODULE:FUNCTION")


def named_contender(text: str, named: dict, policy=None):
    """The contender of a named policy, bare (``threshold``) or with parameters (``threshold:knock=8``, for a
    game whose step game reads them), labelled by its canonical spelling (parameters left at their default
    are dropped, so ``threshold:knock=10`` is ``threshold`` where 10 is the default).

    Raises:
        InputError: an unknown name, a game without parameterised policies, or a bad parameter (one line).
    """
    from ludolab.sim import ladder as L

    text = text.strip()
    if text in named:
        return L.Contender(text, "named", named[text])
    head, _, rest = text.partition(":")
    if head not in named:
        raise InputError(f"policy {text!r}: not a named policy of this game: allowed {', '.join(named)}")
    if policy is None:
        raise InputError(f"policy {text!r}: this game's ladder takes its named policies without parameters: "
                         f"write one of {', '.join(named)}")
    if not rest.strip():
        raise InputError(f"policy {text!r}: nothing follows the colon; write {head}, or {head}:NAME=VALUE,...")
    try:
        label, pol = policy(text)
    except LudolabError as exc:
        raise InputError(f"policy {text!r}: {exc}") from None
    return L.Contender(label, "named", named[label] if label in named else pol)


SEARCH_OPTIONS = ("budget", "rollout", "objective")
_EXAMPLE = {"budget": "budget=64", "rollout": "rollout=NAME", "objective": "objective=wins"}


def search_options(text: str) -> dict:
    """The options of a search's policy string ``HEAD:budget=B,rollout=NAME[:k=v,...],objective=O`` as
    written: ``{option: value}``, the rollout's parameters kept with its name (each ``k=v`` right after
    ``rollout=NAME:`` up to the first search option); a ladder label reads back the same way.

    Raises:
        InputError: an empty option, an unknown one or one without a value, or one given twice (one line).
    """
    head, _, rest = text.partition(":")
    opts = {}
    for part in rest.split(",") if rest else []:
        k, eq, v = part.partition("=")
        if not part:
            raise InputError(f"policy {text!r}: an empty option (a stray comma); write e.g. {head}:budget=64")
        if eq and v and k not in SEARCH_OPTIONS and ":" in opts.get("rollout", "") and list(opts)[-1] == "rollout":
            opts["rollout"] += "," + part  # a parameter of the rollout policy
            continue
        if eq and k in SEARCH_OPTIONS and not v:
            raise InputError(f"policy {text!r}: {k} has no value; write e.g. {_EXAMPLE[k]}")
        if eq and v and k not in SEARCH_OPTIONS and ":" in opts.get("rollout", ""):
            raise InputError(f"policy {text!r}: {part!r} is not a search option; the rollout's parameters go "
                             "right after rollout=NAME:, before the search's other options")
        if not eq or k not in SEARCH_OPTIONS or not v:
            raise InputError(f"policy {text!r}: options are budget=N, rollout=NAME and objective=points|wins, "
                             f"not {part!r}")
        if k in opts:
            raise InputError(f"policy {text!r}: {k} is given twice")
        opts[k] = v
    return opts


def _search_contender(text: str, head: str, rest: str, named: dict, best: str | None, policy=None):
    """The search contender of ``HEAD:budget=B,rollout=NAME,objective=points|wins`` (every option may be
    left out); its label is the canonical spelling (options in that order, the objective only when it is
    ``wins``), so two spellings of one search are one rung.  Where the game's named policies take parameters
    (``policy``, as for :func:`named_contender`), the rollout may carry them: ``rollout=threshold:knock=8,take=3``
    (the ``k=v`` right after it, up to the first search option, are the rollout's), labelled canonically too.

    Raises:
        InputError: an empty or unknown option, one given twice, nothing after the colon, a budget not
            written 1..1000000 in plain digits, or an unknown rollout, rollout parameter or objective.
    """
    from ludolab.sim import ladder as L
    from ludolab.sim.search import OBJECTIVES

    if text.endswith(":"):
        if rest[:-1].strip():  # a rollout named with a colon and nothing after it
            raise InputError(f"policy {text!r}: nothing follows the last colon; write {text[:-1]}"
                             + (", or give the rollout's parameters after it (NAME:k=v,...)" if policy else ""))
        raise InputError(f"policy {text!r}: nothing follows the colon; write {head}, or e.g. {head}:budget=64")
    opts = search_options(text)
    b = opts.get("budget", "64")
    if not (b.isascii() and b.isdigit() and b[0] != "0") or not 1 <= int(b) <= 1_000_000:
        raise InputError(f"policy {text!r}: budget must be a whole number 1..1000000 in digits 0-9 with no "
                         f"sign or leading zero, not {b!r}")
    budget = int(b)
    rollout = opts.get("rollout", best if best in named else next(iter(named)))
    if rollout in named:
        roll = named[rollout]
    elif rollout.partition(":")[0] in named:
        try:
            r = named_contender(rollout, named, policy)
        except InputError as exc:
            raise InputError(f"policy {text!r}: rollout {str(exc).removeprefix('policy ')}") from None
        rollout, roll = r.label, r.policy
    else:
        raise InputError(f"policy {text!r}: rollout {rollout!r} is not a named policy: allowed {', '.join(named)}")
    objective = opts.get("objective", "points")
    if objective not in OBJECTIVES:
        raise InputError(f"policy {text!r}: objective {objective!r}: allowed {', '.join(OBJECTIVES)}")
    label = f"{head}:budget={budget},rollout={rollout}" + (",objective=wins" if objective == "wins" else "")
    return L.Contender(label, head, budget=budget, rollout=roll, objective=objective)


def make_ladder_command(game_id: str) -> click.Command:
    """The ``ladder`` command of one game (added to its group by the root command line)."""

    @click.command("ladder", short_help="Every policy against the baseline field on duplicate deals.")
    @click.option("--policy", "policies", multiple=True,
                  help="A contender (repeat): a named policy (in Beverbende with parameters too, "
                       "threshold:knock=8,take=4), search:budget=B,rollout=NAME[,objective=wins] (in Beverbende "
                       "the rollout with parameters too, rollout=threshold:knock=8,take=4), tree:..., "
                       "all-seeing:..., all-seeing-tree:..., python:MODULE:FUNCTION. Default: every named policy.")
    @click.option("--baseline", default=None, help="The named policy of the other seats (default: the game's best "
                                                   "heuristic; in Beverbende parameters may follow, as for --policy).")
    @click.option("--players", type=IntRange(2, 6), default=None,
                  help="Seats at the table (default: the game's first ladder table, 4 players in Shut The Books "
                       "and 2 in the other games; a count the game's ladder has no table for is refused, naming "
                       "those it has).")
    @click.option("--deals", type=IntRange(2, 10**7), default=200, show_default=True,
                  help="Duplicate deals; each is played once per seat per contender.")
    @click.option("--seed", type=IntRange(min=0), default=0, show_default=True)
    @click.option("--saturate", "saturate", default=None,
                  help="B:TOL: double the budget of the one search, tree, all-seeing or all-seeing-tree --policy "
                       "from B (in place of its budget=) until a doubling gains less than TOL points (its 95% CI "
                       "below TOL; gain is signed so that positive is better), at most 6 doublings.")
    @click.option("--variant", default=None,
                  help="Play a named rule variant instead of the game's default rules, as `ludolab balance GAME "
                       "--variants` names them (e.g. \"pairs scoring\" in Shelve the Book); one the game does not "
                       "have at that player count is refused, naming those it has.")
    @click.option("--format", "fmt", type=click.Choice(("table", "json")), default="table", show_default=True)
    @user_errors
    def ladder(policies, baseline, players, deals, seed, saturate, variant, fmt):
        """Play each policy in every seat against the baseline on the same deals: its mean
        return, the paired 95% CI of its return minus the baseline's in the same seat, its
        share of pairs won at the table and a Bradley-Terry rating (Elo scale, baseline 0)."""
        from ludolab.sim import ladder as L

        g, case, table, base, contenders = ladder_field(game_id, players, baseline, policies, variant)
        base_name = base.label
        seen = set()
        for c in contenders:
            if c.label in seen:
                raise InputError(f"--policy: {c.label} is given twice (two spellings of one policy are one rung)")
            seen.add(c.label)
        plan = _saturate_plan(contenders, saturate) if saturate is not None else None  # refused before any play
        try:
            rows = L.ladder(table, contenders, base, deals=deals, seed=seed)
        except L.PolicyError as exc:
            raise InputError(str(exc)) from None
        sat = None
        if plan is not None:
            c, b, tol = plan
            sat = L.saturate(table, lambda n: L.Contender(f"{c.kind} {n}", c.kind, budget=n, rollout=c.rollout,
                                                          objective=c.objective),
                             base, b, tol, deals=deals, seed=seed)
        for r in rows:  # the saturated budget belongs to the row of the search whose budget was doubled
            r["saturated_budget"] = sat["saturated_budget"] if sat and r["policy"] == plan[0].label else None
        _print(rows, sat, fmt, game_id, case, base_name, deals, seed, g.lower_wins)

    return ladder


def _saturate_plan(contenders, spec):
    """``(the search contender, start budget, tolerance)`` of ``--saturate START:TOL``.

    Raises:
        InputError: a malformed value, or not exactly one search among the contenders.
    """
    from ludolab.sim import ladder as L

    b, _, tol = spec.partition(":")
    ascii_digits(spec, "--saturate", InputError)
    try:
        b, tol = int(b), float(tol)
    except ValueError:
        raise InputError(f"--saturate {spec!r}: write START:TOLERANCE, e.g. 16:0.1") from None
    if not 1 <= b <= 1_000_000 // 2 ** L.MAX_DOUBLINGS or not 0 < tol < float("inf"):
        raise InputError(f"--saturate {spec!r}: the start budget must be 1..{1_000_000 // 2 ** L.MAX_DOUBLINGS} "
                         "and the tolerance a finite number > 0")
    searches = [c for c in contenders if c.kind in SEARCH_KINDS]
    if len(searches) != 1:
        raise InputError("--saturate needs exactly one search, tree, all-seeing or all-seeing-tree --policy")
    return searches[0], b, tol


def _print(rows, sat, fmt, game_id, case, base_name, deals, seed, lower):
    if fmt == "json":
        clean = [{k: (None if isinstance(v, float) and v != v else v) for k, v in r.items()} for r in rows]
        click.echo(json.dumps({"game": game_id, "rules": case.label, "players": case.n_players, "seed": seed,
                               "baseline": base_name, "deals": deals, "rows": clean, "saturation": sat}, indent=2))
        return
    better = "lower" if lower else "higher"
    rules = case.label if case.label[:1].isdigit() else f"{case.label}, {case.n_players} players"
    click.echo(f"Strength ladder: {rules}, baseline {base_name} in the other seats, {deals} duplicate deals "
               f"(diff: the policy's return minus the baseline's in the same seat; {better} is better)")
    w = max(len(r["policy"]) for r in rows)
    click.echo(f"{'policy':<{w}}  {'mean':>8}  {'diff (95% CI)':>26}  {'changed':>7}  {'win share':>9}  "
               f"{'rating (95% CI)':>22}")
    def elo(x):
        return "n/a" if x != x else f"{x:.0f}"

    for r in rows:
        click.echo(f"{r['policy']:<{w}}  {r['mean']:8.3f}  {r['diff']:8.3f} ({r['ci_low']:7.3f} to {r['ci_high']:7.3f})"
                   f"  {r['share_changed']:7.1%}  {r['win_share']:9.3f}  {elo(r['rating']):>6} ({elo(r['rating_ci_low']):>5} to "
                   f"{elo(r['rating_ci_high']):>5})")
    click.echo("changed: the share of games (deal by seat) whose return the policy changes against the baseline's; "
               "rating: Bradley-Terry strength on the Elo scale, baseline 0; n/a where a share of 0 or 1 "
               "leaves it unbounded")
    from ludolab.sim.ladder import chain_text

    line = chain_text(rows)
    click.echo(f"skill chain: {rows[0]['skill_chain']} of {len(rows) - 1} steps between neighbouring rungs told "
               f"apart (paired 95% CI of their difference excludes 0; '>' told apart, '~' not): {line}")
    if sat:
        click.echo("Budget doubling (gain of each doubling, 95% CI):")
        for s in sat["steps"]:
            click.echo(f"  {s['budget']:>7}: {s['gain']:.3f} ({s['ci_low']:.3f} to {s['ci_high']:.3f})")
        sb = sat["saturated_budget"]
        click.echo(f"saturated budget: {sb}" if sb else
                   f"saturated budget: not reached in {len(sat['steps'])} doublings (no doubling's gain CI "
                   "lay below the tolerance; a CI of width 0, every deal alike, is not taken as proof)")
