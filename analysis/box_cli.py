"""``ludolab box``: Shut the Box from the command line (rules clauses STB-n in seeds/shut_the_box.md)."""

from __future__ import annotations

import click

from ludolab.stdlib.errors import ascii_whole

from .cli_common import (FORMATS, CommandGroup, InputError, IntRange, check_out, emit, given, output_options,
                         progress_flag, refuse, refuse_foreign_out, save_outputs, seed_options, user_errors)

ONE_DIE = ("never", "789-optional", "789-forced", "le6-optional", "le6-forced", "always-optional")
SCORES = ("sum", "count", "digital", "all-or-nothing")
#: The rules of thumb whose moves can tie, which --tie-break applies to (STB-T1).
TIE_POLICIES = ("fewest-tiles", "most-tiles", "most-options")


def _keep_in_context(ctx, param, value):
    """Keep an option of the rules bundle that commands do not take as an argument (--dice, --tie-break)."""
    ctx.meta[f"box_{param.name}"] = value
    return value


def box_rules_options(fn):
    """--tiles, --dice, --one-die, --moves, --max-tiles-per-move, --score, --tie-break (STB-1, STB-2,
    STB-4..STB-8, STB-T1).  --dice and --tie-break are read by :func:`make_rules` and :func:`_policy`
    from the command's context, so every command taking the bundle has them."""
    opts = [
        click.option("--tiles", default="9", show_default=True,
                     help="Tile count 1..20, a range like 4-9, or a list like 1,3,5,7,9,11 (tiles 1..20) (STB-1)."),
        click.option("--dice", "dice", default="2d6", show_default=True, expose_value=False, is_eager=True,
                     callback=_keep_in_context,
                     help="The dice of a full roll, NdS: e.g. 2d6, 3d6, 1d20 (STB-2)."),
        click.option("--one-die", default=None,
                     help="When one die may (or must) be rolled (STB-6): never, always-optional, sum-le-K, "
                          "sum-lt-K, max-le-K or only-1 with -optional or -forced (e.g. sum-lt-6-forced), or "
                          "789-optional (the default; never with a single die), 789-forced, le6-optional, "
                          "le6-forced."),
        click.option("--moves", type=click.Choice(("subset", "thai")), default="subset", show_default=True,
                     help="subset: any tiles adding up to the roll; thai: one tile equal to a die or the total."),
        click.option("--max-tiles-per-move", type=IntRange(1, 20), default=None,
                     help="At most K tiles per move (default: no limit) (STB-4)."),
        click.option("--score", "scoring", type=click.Choice(SCORES), default="sum", show_default=True,
                     help="Scoring of the open tiles (STB-8)."),
        click.option("--tie-break", "tie_break", type=click.Choice(("high", "low", "random")), default="high",
                     show_default=True, expose_value=False, is_eager=True, callback=_keep_in_context,
                     help="How the rules of thumb (fewest-tiles, most-tiles, most-options) break ties: high (the "
                          "highest tiles), low (the lowest tiles) or random (a random one of the tied moves) "
                          "(STB-T1)."),
    ]
    roll_dice = [p for p in getattr(fn, "__click_params__", []) if p.name == "dice"]
    if roll_dice:  # advise: one --dice for the dice of the game (NdS) and those of the roll (1 or 2)
        fn.__click_params__.remove(roll_dice[0])
        opts[1] = click.option("--dice", "dice", multiple=True, callback=_dice_and_roll,
                               help="The dice of a full roll, NdS (default 2d6, STB-2), and/or the dice the roll "
                                    "was made with, 1 or 2 (default: the full roll unless the total needs one "
                                    "die); e.g. --dice 3d6 --dice 1.")
    for o in reversed(opts):
        fn = o(fn)
    return fn


def _dice_and_roll(ctx, param, values):
    """--dice of advise: NdS values go to the rules (kept in the context), 1 or 2 is the roll's dice count."""
    import re

    roll = None
    ctx.meta["box_dice"] = "2d6"
    for v in values:
        if re.fullmatch(r"\s*[0-9]+\s*[dD]\s*[0-9]+\s*", v):
            ctx.meta["box_dice"] = v.replace(" ", "")
        elif v.strip() in ("1", "2"):
            roll = v.strip()
        else:
            raise click.BadParameter(f"{v!r} is neither dice NdS (e.g. 2d6, 3d6) nor a dice count 1 or 2",
                                     ctx=ctx, param=param)
    return roll


def _context_option(name, default):
    ctx = click.get_current_context(silent=True)
    return default if ctx is None else ctx.meta.get(f"box_{name}", default)


def objective_options(fn):
    """--objective, --target, --ties-win (STB-O1..O3)."""
    opts = [
        click.option("--objective", type=click.Choice(("expected-score", "shut", "beat")), default="expected-score",
                     show_default=True, help="What the optimal policy plays for."),
        click.option("--target", type=IntRange(0, 10**15), default=None,
                     help="Score to beat, for --objective beat (a score strictly below T wins)."),
        click.option("--ties-win", is_flag=True, help="With --objective beat, a score equal to T also counts."),
    ]
    for o in reversed(opts):
        fn = o(fn)
    return fn


MATCH_SITUATION = ("my_total", "their_totals", "seat", "rounds_left", "elimination", "threshold")


def match_situation_options(fn):
    """--my-total, --their-total, --seat, --rounds-left, --elimination, --threshold: advice in a match (STB-O5)."""
    opts = [
        click.option("--my-total", type=IntRange(0), default=0, show_default=True,
                     help="In a match: your total so far (STB-11, STB-12)."),
        click.option("--their-total", "their_totals", type=IntRange(0), multiple=True,
                     help="In a match: an opponent's total (repeat for a second opponent, in seat order)."),
        click.option("--seat", type=IntRange(1, 3), default=1, show_default=True,
                     help="In a match: your seat this round; the seats before yours have played it already."),
        click.option("--rounds-left", type=IntRange(1, 1000), default=None,
                     help="In a match of several rounds: rounds still to play, this one included (STB-11)."),
        click.option("--elimination", is_flag=True, help="In an elimination game (STB-12)."),
        click.option("--threshold", type=IntRange(1, 10**6), default=45, show_default=True,
                     help="Elimination threshold (with --elimination)."),
    ]
    for o in reversed(opts):
        fn = o(fn)
    return fn


def _in_match() -> bool:
    """Whether advise was given a match situation; checks the situation's options go together."""
    if not any(given(n) for n in MATCH_SITUATION):
        return False
    refuse(["objective", "target"], "does not apply to advice in a match, which ranks moves by the chance to "
                                    "win the match")
    ctx = click.get_current_context()
    p = ctx.params
    if not p["their_totals"]:
        raise InputError("advice in a match needs --their-total (each opponent's total, in seat order)")
    if p["elimination"] == (p["rounds_left"] is not None):
        raise InputError("advice in a match needs --rounds-left R (rounds still to play, this one included) or "
                         "--elimination, one of them")
    if not p["elimination"]:
        refuse(["threshold"], "applies only with --elimination")
    return True


def make_rules(tiles, one_die, moves, max_tiles_per_move, scoring):
    """The :class:`~ludolab.stdlib.box.BoxRules` of the rules options; a thai limit on tiles per move is refused.

    ``--dice`` comes from the command's context (2d6 outside a command); ``one_die`` ``None`` is the
    default rule, 789-optional (never with a single die).
    """
    from ludolab.stdlib.box import BoxRules, RulesError, parse_dice, parse_one_die, parse_tiles

    if moves == "thai" and max_tiles_per_move is not None:
        raise InputError("--max-tiles-per-move does not apply to --moves thai, which always covers one tile (STB-5)")
    dice = _context_option("dice", "2d6")
    try:
        n_dice, _ = parse_dice(dice)
    except RulesError as e:
        raise InputError(f"--dice: {e}") from None
    if one_die is None:
        one_die = "never" if n_dice == 1 else "789-optional"
    try:
        parse_one_die(one_die)
    except RulesError as e:
        raise InputError(f"--one-die: {e}") from None
    if n_dice == 1 and parse_one_die(one_die)[0] != "never":
        raise InputError(f"--one-die {one_die} does not apply to --dice {dice}: with a single die every roll is "
                         "already one die (leave --one-die out, or give never)")
    if moves == "thai" and n_dice != 2:
        raise InputError(f"--moves thai needs two dice (a tile equal to either die or their total, STB-5), "
                         f"not --dice {dice}")
    tie_break = _context_option("tie_break", "high")
    ctx = click.get_current_context(silent=True)
    if tie_break != "high" and ctx is not None:
        names = ctx.params.get("policy_names") or [ctx.params.get("policy_name")]
        if not any(n in TIE_POLICIES for n in names):
            raise InputError(f"--tie-break {tie_break} applies only to the rules of thumb that can tie: --policy "
                             f"{', '.join(TIE_POLICIES)} (STB-T1)")
    return BoxRules(tiles=parse_tiles(tiles), one_die=one_die, moves=moves,
                    max_tiles_per_move=max_tiles_per_move, score=scoring, dice=dice)


def _check_objective(objective, target, ties_win=False, policies=None):
    if objective == "beat" and target is None:
        raise InputError("--objective beat needs --target T (the score to beat)")
    if objective != "beat" and target is not None:
        raise InputError("--target applies only to --objective beat")
    if ties_win and objective != "beat":
        raise InputError("--ties-win applies only to --objective beat")
    if policies is not None and not any(p in ("optimal", "worst") for p in policies):
        refuse(["objective", "target", "ties_win"],
                "applies only to the policies optimal and worst, which play for an objective")


@click.group(name="box", cls=CommandGroup, short_help="Shut the Box: solve, advise, evaluate, simulate, compare, variants, match.")
def group():
    """Shut the Box: exact solver, policies, simulation, advice, variants, matches."""


def _policy(rules, name, objective, target, ties_win):
    from ludolab.analysis.box import catalogue

    pol = catalogue(rules, (name,), objective, target, ties_win)[0]
    tie_break = _context_option("tie_break", "high")
    if tie_break != "high" and name in ("greedy-high", "fewest-tiles", "most-tiles", "most-options"):
        from ludolab.sim.box_policies import make_policy

        pol = make_policy(rules, name, tie_break=tie_break)
    if "filled" in pol.info and pol.info["filled"]:
        click.echo(f"note: {pol.label} leaves {pol.info['filled']} (state, roll) entries that the policy "
                   "meets unset; greedy-high plays them", err=True)
    return pol


def _rules_out(fmt, rules, with_score=True):
    """The rules as JSON prints them (an object, as in the provenance sidecars), else their label."""
    if fmt != "json":
        return rules.label(with_score)
    rec = rules.to_dict()
    if not with_score:
        rec.pop("score")
    return rec


def _tiles_json(text):
    """Tiles written ``"3,4"`` (``"shut"`` or ``""`` for none) as a list of ints."""
    text = str(text)
    return [] if text in ("", "shut") else [int(t) for t in text.split(",")]


def _roll_json(rules, label):
    """A roll label as JSON: the total (``7``) for subset moves, the faces (``[3, 4]``, ``[5]``) for thai moves."""
    faces = [int(p) for p in str(label).split("+")]
    return faces if rules.moves == "thai" else faces[0]


def _json_table(rules, df, tiles=(), rolls=()):
    """A copy of ``df`` (a DataFrame or a :class:`~ludolab.analysis.text_table.TextTable`) with tile
    columns as lists and roll columns as numbers, for ``--format json``."""
    if not hasattr(df, "iloc"):  # a TextTable: rows of dicts
        from .text_table import TextTable

        out = []
        for r in df.to_dict("records"):
            r.update({c: _tiles_json(r[c]) for c in tiles})
            r.update({c: _roll_json(rules, r[c]) for c in rolls})
            out.append(r)
        return TextTable(out, df.columns, like_pandas=True)
    df = df.copy()
    for c in tiles:
        df[c] = [_tiles_json(v) for v in df[c]]
    for c in rolls:
        df[c] = [_roll_json(rules, v) for v in df[c]]
    return df


def _csv_note(fmt, holds, rest):
    """Under ``--format csv``, say on stderr which table the CSV holds and where the rest is."""
    if fmt == "csv":
        click.echo(f"note: the CSV holds {holds}; {rest} are printed with --format table or json", err=True)


@group.command(short_help="Solve exactly: value of every state, optimal moves and dice.")
@box_rules_options
@objective_options
@click.option("--adversarial", is_flag=True,
              help="Solve for the worst play instead (the other bound: how much decisions matter).")
@click.option("--exact", is_flag=True, help="Also give the value as an exact fraction p/q.")
@output_options
@user_errors
def solve(tiles, one_die, moves, max_tiles_per_move, scoring, objective, target, ties_win, adversarial, exact,
          fmt, out_dir, table_format, quiet):
    """Solve the game exactly (dynamic programming over every set of open tiles).  A box of up to 12
    tiles is solved by the pure-Python engine, which answers before the compiled one has loaded (the
    same values)."""
    from ludolab.sim import box_exact

    _check_objective(objective, target, ties_win)
    out_dir = check_out(out_dir)
    rules = make_rules(tiles, one_die, moves, max_tiles_per_move, scoring)
    # a small box is solved by the pure-Python engine, which answers before the compiled one has loaded
    sol = box_exact.solve(rules, objective, target, ties_win, adversarial, exact, engine=box_exact.table_engine(rules))
    start_dice = int(sol.dice[rules.full])
    rec = {"rules": _rules_out(fmt, rules), "objective": sol.label, "value": sol.start_value}
    if exact:
        v = sol.start_value_exact
        rec["value_exact"] = ({"numerator": v.numerator, "denominator": v.denominator} if fmt == "json"
                              else f"{v.numerator}/{v.denominator}")
    rec["start_dice"] = start_dice if fmt != "table" else rules.dice_words(start_dice)
    rec["states"] = rules.n_states
    emit(fmt, rec, title="Shut the Box, exact solution")
    if out_dir is not None:
        import pandas as pd

        from ludolab.analysis import box as ba
        from ludolab.analysis.box_plots import fig_policy_map, policy_map_frame
        from ludolab.analysis.box_tables import policy_table_frame
        from ludolab.analysis.results import provenance

        values = pd.DataFrame({"open": [rules.format_state(s) for s in range(rules.n_states)],
                               "score": rules.scores, "value": sol.value, "dice": sol.dice})
        if exact:
            values["value_exact"] = [f"{v.numerator}/{v.denominator}" for v in sol.value_exact]
        table = policy_table_frame(sol.policy(), sol.value)
        meta = provenance("box", rules=rules.to_dict(), method="exact", policy="worst" if adversarial else "optimal",
                          objective=sol.label, command="box solve")
        if rules.n_tiles <= 6:
            grid = policy_map_frame(sol)
        else:
            top = ba.decision_states(sol, None)
            states = list(dict.fromkeys(rules.mask_of([int(t) for t in o.split(",")]) for o in top["open"]))
            grid = policy_map_frame(sol, states[:40])
        save_outputs(out_dir, {"values": values, "policy": table}, {"policy_map": fig_policy_map(grid)}, meta,
                     table_format)


@group.command(short_help="Every legal move for a roll, best first; or one die or two.")
@box_rules_options
@objective_options
@click.option("--open", "open_tiles", required=True,
              help="The open tiles, e.g. 1,2,3,4,5; ranges as in --tiles, e.g. 1-5 or 1-3,7.")
@click.option("--roll", default=None, help="The roll: a total (7), or the dice (3+4) for thai moves; omit it for the dice choice.")
@click.option("--dice", type=click.Choice(("1", "2")), default=None, help="Dice the roll was made with (default: two unless the total needs one).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
              help="How the advice is printed.")
@match_situation_options
@user_errors
def advise(tiles, one_die, moves, max_tiles_per_move, scoring, objective, target, ties_win, open_tiles, roll, dice, fmt,
           my_total, their_totals, seat, rounds_left, elimination, threshold):
    """Advice at the table: every legal move with its value, best first, or the dice choice before a roll;
    in a match (--their-total with --rounds-left or --elimination), ranked by the chance to win the match.
    A box of up to 12 tiles is solved by the pure-Python engine, which answers before the compiled one
    has loaded (the same values)."""
    from ludolab.sim import box_exact

    in_match = _in_match()
    if not in_match:
        _check_objective(objective, target, ties_win)
    if roll is None and dice is not None:
        raise InputError("--dice goes with --roll (the dice the roll was made with); without --roll the advice "
                         "is the dice choice")
    rules = make_rules(tiles, one_die, moves, max_tiles_per_move, scoring)
    import re

    parts = [p for p in re.split(r"[\s,]+", open_tiles.strip()) if p]

    def span(p):  # a tile, or a range of tiles a-b as --tiles takes them
        a, dash, b = p.partition("-")
        if not dash:
            return [int(p)] if ascii_whole(p) else None
        return list(range(int(a), int(b) + 1)) if ascii_whole(a) and ascii_whole(b) and int(a) <= int(b) else None

    spans = [span(p) for p in parts]
    if not parts or any(t is None for t in spans) or re.search(r",\s*,", open_tiles):
        raise InputError(f"cannot read --open {open_tiles!r}: give the open tiles as numbers separated by commas, "
                         "ranges allowed, e.g. 1,2,3,4,5 or 1-5 or 1-3,7")
    tiles_open = [t for sp in spans for t in sp]
    if in_match:
        return _advise_in_match(rules, tiles_open, roll, dice, my_total, their_totals, seat, rounds_left,
                                threshold if elimination else None, ties_win, fmt)
    from .text_table import TextTable

    rows, columns, info = box_exact.advise_rows(rules, tiles_open, roll, objective, target, ties_win,
                                                None if dice is None else int(dice),
                                                engine=box_exact.table_engine(rules))
    df = TextTable(rows, columns, like_pandas=True)  # a few lines to print: no pandas import at the table
    df.attrs = info
    label = info.get("objective")
    state = rules.mask_of(tiles_open)
    open_out = list(rules.tiles_of(state)) if fmt == "json" else rules.format_state(state)
    if roll is None:
        best_dice = int(rows[0]["dice"])
        rec = {"open": open_out, "objective": label, "advice": f"roll {rules.dice_words(best_dice)}"}
        if len(df) == 1:
            rec["advice"] += " (the only choice under --one-die " + rules.one_die + ")"
        if fmt == "json":
            rec["dice"] = best_dice
        _csv_note(fmt, "the dice counts with their values", "the open tiles, objective and advice")
        emit(fmt, rec, df, title="Before the roll")
        return
    o = rules.roll_index(roll, None if dice is None else int(dice), state=state)
    rec = {"open": open_out, "roll": _roll_json(rules, rules.outcomes.label[o]) if fmt == "json" else roll}
    if fmt == "json":
        rec["dice"] = int(rules.outcomes.dice[o])
    rec["objective"] = label
    _emit_moves(fmt, rules, df, rec, "value", "the open tiles, roll, objective and advice",
                "Legal moves, best first")


def _emit_moves(fmt, rules, df, rec: dict, value_key: str, rest: str, title: str) -> None:
    """Print the ranked legal moves of an advice (``df`` from ``rank_choices``) with the advice
    line; with no legal move, the value of ending the turn under ``value_key``."""
    rows = _json_table(rules, df, tiles=("cover", "tiles_left")) if fmt == "json" else df
    _csv_note(fmt, "the legal moves, best first", rest)
    if len(df) == 0:
        rec["advice"] = "no legal move: the turn ends"
        rec[value_key] = df.attrs.get("stop_value")
        emit(fmt, rec, None if fmt == "table" else rows, title="No legal move")
        return
    best = [r["cover"] for r in df.to_dict("records") if r["best"]]
    rec["advice"] = f"cover {best[0]}" + (f" (as good: {'; '.join(best[1:])})" if len(best) > 1 else "")
    emit(fmt, rec, rows, title=title)


@group.command(short_help="Exact distribution of the final score under a policy.")
@box_rules_options
@objective_options
@click.option("--policy", "policy_name", default="optimal", show_default=True,
              help="optimal, worst, random, greedy-high, fewest-tiles, most-tiles, most-options, or table:FILE.csv")
@output_options
@user_errors
def evaluate(tiles, one_die, moves, max_tiles_per_move, scoring, objective, target, ties_win, policy_name,
             fmt, out_dir, table_format, quiet):
    """Exact evaluation of a policy: the whole distribution of the final score."""
    from ludolab.sim import box_exact

    _check_objective(objective, target, ties_win, [policy_name])
    out_dir = check_out(out_dir)
    rules = make_rules(tiles, one_die, moves, max_tiles_per_move, scoring)
    pol = _policy(rules, policy_name, objective, target, ties_win)
    ev = box_exact.evaluate(pol)
    dist = ev.distribution().reset_index()
    rec = {"rules": _rules_out(fmt, rules), "policy": pol.label, "mean_score": ev.mean(),
           "sd_score": ev.sd(), "p_shut": ev.p_shut}
    _csv_note(fmt, "the score distribution", "the mean, standard deviation and P(shut)")
    emit(fmt, rec, dist, title="Exact evaluation")
    if out_dir is not None:
        from ludolab.analysis.box_plots import fig_score_distributions
        from ludolab.analysis.results import provenance

        d2 = dist.copy()
        d2.insert(0, "policy", pol.label)
        meta = provenance("box", rules=rules.to_dict(), method="exact", policy=pol.label, command="box evaluate")
        save_outputs(out_dir, {"evaluate_distribution": dist},
                     {"evaluate_distribution": fig_score_distributions(d2)}, meta, table_format)


@group.command(short_help="Monte Carlo of a policy with 95% confidence intervals.")
@box_rules_options
@objective_options
@click.option("--policy", "policy_name", default="optimal", show_default=True,
              help="optimal, worst, random, greedy-high, fewest-tiles, most-tiles, most-options, or table:FILE.csv")
@seed_options(1_000_000)
@output_options
@user_errors
def simulate(tiles, one_die, moves, max_tiles_per_move, scoring, objective, target, ties_win, policy_name,
             games, seed, chunks, fmt, out_dir, table_format, quiet):
    """Monte Carlo of a policy, with 95% confidence intervals (and the exact values beside them)."""
    from ludolab.sim import box_exact, box_montecarlo

    _check_objective(objective, target, ties_win, [policy_name])
    out_dir = check_out(out_dir)
    rules = make_rules(tiles, one_die, moves, max_tiles_per_move, scoring)
    pol = _policy(rules, policy_name, objective, target, ties_win)
    res = box_montecarlo.simulate(pol, games, seed, chunks, progress=progress_flag(quiet))
    ev = box_exact.evaluate(pol)
    m, p = res.mean(), res.p_shut()
    rec = {"rules": rules.label(), "policy": pol.label, "games": res.games, "seed": seed,
           "chunks": res.provenance["chunks"],
           "mean_score": m.value, "mean_score_ci_low": m.low, "mean_score_ci_high": m.high,
           "p_shut": p.value, "p_shut_ci_low": p.low, "p_shut_ci_high": p.high,
           "exact_mean_score": ev.mean(), "exact_p_shut": ev.p_shut}
    emit(fmt, {**rec, "rules": _rules_out(fmt, rules)}, title="Monte Carlo")
    if out_dir is not None:
        import pandas as pd

        from ludolab.analysis.box_plots import fig_mc_distribution
        from ludolab.analysis.results import provenance

        dist = pd.concat([ev.distribution().rename("exact"), res.distribution().rename("simulated")], axis=1)
        dist = dist.fillna(0.0).reset_index()
        meta = provenance("box", rules=rules.to_dict(), method="Monte Carlo, with the exact values beside it",
                          policy=rec["policy"], games=games, seed=seed,
                          chunks=res.provenance["chunks"], command="box simulate")
        save_outputs(out_dir, {"simulate_summary": pd.DataFrame([rec]), "simulate_distribution": dist},
                     {"simulate_distribution": fig_mc_distribution(ev.distribution(), res.distribution(), res.games)},
                     meta, table_format)


@group.command(short_help="Compare policies, exactly and by paired Monte Carlo.")
@box_rules_options
@objective_options
@click.option("--policy", "policy_names", multiple=True,
              help="A policy to compare (repeat the option); default: optimal and every heuristic.")
@seed_options(200_000)
@output_options
@user_errors
def compare(tiles, one_die, moves, max_tiles_per_move, scoring, objective, target, ties_win, policy_names,
            games, seed, chunks, fmt, out_dir, table_format, quiet):
    """Compare policies: exact values, and paired Monte Carlo differences (common random numbers)."""
    from ludolab.analysis import box as ba
    from ludolab.sim import box_montecarlo

    names = policy_names or ("optimal",) + ba.HEURISTICS
    _check_objective(objective, target, ties_win, names)
    out_dir = check_out(out_dir)
    rules = make_rules(tiles, one_die, moves, max_tiles_per_move, scoring)
    pols = [_policy(rules, n, objective, target, ties_win) for n in names]
    df = box_montecarlo.compare(pols, games, seed, chunks, progress=progress_flag(quiet))
    first = df["policy"].iloc[0]
    _csv_note(fmt, "the policy comparison", "the rules, games, seed and the policy compared against")
    emit(fmt, {"rules": _rules_out(fmt, rules), "games": games, "seed": seed, "paired_against": first}
         if fmt != "csv" else None,
         df, title="Policy comparison (diff_vs_first: paired, same dice for every policy)")
    if out_dir is not None:
        from ludolab.analysis.box_plots import fig_score_distributions
        from ludolab.analysis.results import provenance

        meta = provenance("box", rules=rules.to_dict(), method="exact, and paired Monte Carlo (common random numbers)",
                          policies=[p.label for p in pols], paired_against=first, games=games, seed=seed,
                          chunks=min(chunks, games), command="box compare")
        save_outputs(out_dir, {"compare": df}, {"distributions": fig_score_distributions(ba.score_distributions(pols))},
                     meta, table_format)


@group.command(short_help="What playing for the wrong scoring costs.")
@box_rules_options
@click.option("--top", type=IntRange(min=1), default=10, show_default=True,
              help="How many disagreements to list.")
@output_options
@user_errors
def variants(tiles, one_die, moves, max_tiles_per_move, scoring, top, fmt, out_dir, table_format, quiet):
    """Scoring variants: what the policy optimal for one scoring costs under every other."""
    from ludolab.analysis import box as ba

    refuse(["scoring"], "does not apply: variants compares every scoring (sum, count, digital, all-or-nothing)")
    out_dir = check_out(out_dir)
    rules = make_rules(tiles, one_die, moves, max_tiles_per_move, scoring)
    matrix, dis = ba.variants_matrix(rules)
    if fmt == "json":
        shown = _json_table(rules, dis.head(top), tiles=("open", "cover_a", "cover_b"), rolls=("roll",))
        emit(fmt, {"rules": _rules_out(fmt, rules, with_score=False), "matrix": matrix.to_dict("records"),
                   "disagreements": shown.to_dict("records")})
    elif fmt == "csv":
        _csv_note(fmt, "the cost matrix", "the disagreements")
        emit(fmt, None, matrix)
    else:
        click.echo(f"Scoring variants ({rules.label(with_score=False)}): expected score of the policy optimised "
                   "for one scoring (rows) under each scoring (columns)")
        piv = matrix.pivot(index="optimised_for", columns="scored_by", values="expected_score")
        order = list(dict.fromkeys(matrix["optimised_for"]))
        click.echo(piv.loc[order, order].to_string(float_format=lambda x: f"{x:.6g}"))
        click.echo("\nCost (% above the best for the column's scoring)")
        piv = matrix.pivot(index="optimised_for", columns="scored_by", values="cost_pct")
        click.echo(piv.loc[order, order].to_string(float_format=lambda x: f"{x:.3g}"))
        click.echo(f"\nWhere the policies disagree most (top {top}, weighted by how often it happens)")
        click.echo(dis.head(top).to_string(index=False, float_format=lambda x: f"{x:.4g}"))
    if out_dir is not None:
        from ludolab.analysis.box_plots import fig_variants_matrix
        from ludolab.analysis.results import provenance

        meta = provenance("box", **ba.rules_meta(rules, score=("optimised_for, scored_by", list(ba.SCORINGS))),
                          method="exact",
                          objective="min E[score] under each scoring", command="box variants")
        save_outputs(out_dir, {"variants_matrix": matrix, "variants_disagreements": dis},
                     {"variants_matrix": fig_variants_matrix(matrix)}, meta, table_format)


@group.command(short_help="2-6 players: win and tie chances per seat.")
@box_rules_options
@click.option("--players", type=IntRange(2, 6), default=2, show_default=True, help="Players (2..6).")
@click.option("--ties-win", is_flag=True, help="A shared lowest score is worth a win when choosing a policy.")
@click.option("--rounds", type=IntRange(1, 1000), default=None,
              help="Multi-round game: totals over this many rounds, by simulation (STB-11).")
@click.option("--elimination", is_flag=True, help="Elimination game by simulation (STB-12).")
@click.option("--threshold", type=IntRange(1, 10**9), default=45, show_default=True,
              help="Elimination threshold (with --elimination).")
@click.option("--policy", "policy_name", default="optimal", show_default=True,
              help="Policy every seat plays in multi-round and elimination games (the one-round game is "
                   "an exact equilibrium); adaptive: every turn for the best chance to win the match, given "
                   "the totals and rounds left (STB-O5; 2 or 3 players, 20,000 matches unless --games).")
@click.option("--exact", "exact_match", is_flag=True,
              help="With --rounds or --elimination: solve the match exactly (2 players; 3 where it fits), "
                   "every seat playing each turn for the lowest score, one seat or every seat playing for "
                   "the match (STB-O5).")
@seed_options(200_000)
@output_options
@user_errors
def match(tiles, one_die, moves, max_tiles_per_move, scoring, players, ties_win, rounds, elimination, threshold,
          policy_name, exact_match, games, seed, chunks, fmt, out_dir, table_format, quiet):
    """Several players: exact win and tie probabilities per seat for one round
    (later seats play to beat the score so far), or multi-round / elimination by simulation."""
    from ludolab.sim import box_match

    rules = make_rules(tiles, one_die, moves, max_tiles_per_move, scoring)
    out_dir = check_out(out_dir)
    if rounds is not None and elimination:
        raise InputError("give either --rounds R or --elimination, not both")
    if not elimination:
        refuse(["threshold"], "applies only with --elimination")
    if rounds is None and not elimination:
        refuse(["exact_match"], "applies only with --rounds or --elimination (the one-round game is always exact)")
    elif exact_match or policy_name == "adaptive":
        return _match_play(rules, players, ties_win, rounds, threshold if elimination else None, exact_match,
                           games, seed, chunks, fmt, out_dir, table_format)
    if rounds is None and not elimination:
        refuse(["policy_name", "games", "seed", "chunks"],
                "applies only with --rounds or --elimination (the one-round game is exact)")
    else:
        refuse(["ties_win"], "applies only to the exact one-round game")
    if rounds is None and not elimination:
        sol = box_match.match_exact(rules, players, ties_win, keep_policies=False)
        df = sol.seats
        rec = {"rules": _rules_out(fmt, rules), "players": players, "mode": "one round, exact equilibrium",
               "p_game_tied": sol.p_tie_game}
        meta = dict(method="exact", players=players, ties_win=ties_win,
                    policy="exact equilibrium: each seat maximises its chance to win (STB-10)")
        ci = False
        stem = "match"
    else:
        pol = _policy(rules, policy_name, "expected-score", None, False)
        df = box_match.simulate_rounds([pol] * players, games, seed, rounds=rounds,
                                       threshold=threshold if elimination else None, chunks=chunks,
                                       progress=progress_flag(quiet))
        rec = {"rules": _rules_out(fmt, rules), "players": players, "mode": df.attrs["mode"], "policy": pol.label,
               "games": games, "seed": seed}
        if df.attrs.get("games_cut"):
            rec["games_cut"] = df.attrs["games_cut"]
            click.echo(f"note: {df.attrs['games_cut']} games were still running after 1000 rounds and were "
                       "decided by the lowest total", err=True)
        meta = dict(method="Monte Carlo", players=players, games=games, seed=seed, chunks=min(chunks, games),
                    policy=pol.label, rounds=rounds, threshold=threshold if elimination else None)
        ci = True
        stem = "match_rounds" if rounds else "match_elimination"
    _csv_note(fmt, "the table of seats", "the rules, mode and " +
              ("the chance of a tied game" if not ci else "policy, games and seed"))
    emit(fmt, rec if fmt != "csv" else None, df, title="Match")
    if out_dir is not None:
        from ludolab.analysis.box_plots import fig_seat_wins
        from ludolab.analysis.results import provenance

        meta = provenance("box", rules=rules.to_dict(), **meta, command="box match")
        save_outputs(out_dir, {stem: df}, {f"{stem}_seat_wins": fig_seat_wins(df, ci)}, meta, table_format)


# ------------------------------------------------------------- match play (STB-O5)
MATCH_PLAY_COLUMNS = ("p_win_lowest: every seat plays each turn for the lowest score; p_win_alone: only this "
                      "seat plays for the match; gain: p_win_alone - p_win_lowest; p_win_all, p_tie_all: every "
                      "seat plays for the match")


def _match_play(rules, players, ties_win, rounds, threshold, exact, games, seed, chunks, fmt, out_dir,
                table_format):
    """box match --exact (the exact table of :func:`~ludolab.sim.box_matchplay.adaptive_gain_table`) or
    --policy adaptive (matches played roll by roll with the solved plays, exact figures beside)."""
    from ludolab.sim import box_matchplay as mpl

    mode = f"{rounds} round{'s' if rounds != 1 else ''}" if rounds else f"elimination at {threshold}"
    rec = {"rules": _rules_out(fmt, rules), "players": players, "mode": mode}
    if exact:
        refuse(["games", "seed", "chunks"], "does not apply with --exact")
        refuse(["policy_name"], "does not apply with --exact, which shows every seat playing for the lowest "
                                "score and for the match")
        df = mpl.adaptive_gain_table(rules, players, rounds=(rounds,) if rounds else (),
                                     thresholds=(threshold,) if threshold else (), ties_win=ties_win)
        df = df.drop(columns="match")
        rec["method"] = "exact"
        title = f"Match play, exact ({MATCH_PLAY_COLUMNS}" + ("; a tie counts as a win)" if ties_win else ")")
        stem = "match_play_exact"
        meta = dict(method="exact", policies=["optimal (min E[score], STB-O1)", "adaptive (STB-O5)"])
    else:
        n = games if given("games") else 20_000
        mp = mpl.adaptive_play(rules, players, rounds, threshold, ties_win)
        solved = isinstance(mp, mpl.MatchPlay)
        if not solved:
            click.echo(f"note: {players} players, {mode}, is too large to solve exactly: every seat plays the solved "
                       "2-player match against its strongest opponent (the lowest total still in)", err=True)
        exact_df = mp.seats() if solved else None
        df = mpl.simulate_match_play(mp, n, seed, chunks)
        if solved:
            df["exact_p_win"] = exact_df["p_win"].to_numpy()
            df["exact_p_tie"] = exact_df["p_tie"].to_numpy()
        rec.update(policy="adaptive" if solved else "adaptive heads-up", games=n, seed=seed)
        title = ("Match play by simulation, every seat playing for the match"
                 + (" (exact figures beside)" if solved else " (heads-up, against the strongest opponent)"))
        stem = "match_play_simulated"
        meta = dict(method="Monte Carlo, roll by roll" + (", with the exact values beside it" if solved else ""),
                    policy="adaptive (STB-O5)" if solved else "adaptive heads-up (STB-O5, the 2-player solution "
                                                              "against the strongest opponent)",
                    games=n, seed=seed, chunks=min(chunks, n))
    rec["ties_win"] = ties_win
    _csv_note(fmt, "the table of seats", "the rules, mode and method")
    emit(fmt, rec if fmt != "csv" else None, df, title=title)
    if out_dir is not None:
        from ludolab.analysis.results import provenance

        meta = provenance("box", rules=rules.to_dict(), players=players, rounds=rounds, threshold=threshold,
                          ties_win=ties_win, **meta, command="box match")
        save_outputs(out_dir, {stem: df}, {}, meta, table_format)


def _advise_in_match(rules, tiles_open, roll, dice, my_total, their_totals, seat, rounds_left, threshold, ties_win,
                     fmt):
    """box advise in a match: the legal moves (or the dice choice) ranked by the chance to win the match."""
    from ludolab.sim import box_matchplay as mpl

    df = mpl.advise_match(rules, tiles_open, roll, my_total, list(their_totals), seat, rounds_left, threshold,
                          ties_win, None if dice is None else int(dice))
    state = rules.mask_of(tiles_open)
    rec = {"open": list(rules.tiles_of(state)) if fmt == "json" else rules.format_state(state)}
    if roll is not None:
        o = rules.roll_index(roll, None if dice is None else int(dice), state=state)
        rec["roll"] = _roll_json(rules, rules.outcomes.label[o]) if fmt == "json" else roll
        if fmt == "json":
            rec["dice"] = int(rules.outcomes.dice[o])
    rec.update(my_total=my_total, their_totals=list(their_totals) if fmt == "json" else
               ", ".join(map(str, their_totals)), seat=seat)
    if threshold is None:
        rec["rounds_left"] = rounds_left
    else:
        rec["threshold"] = threshold
    rec["objective"] = df.attrs["objective"]
    rec["p_win_now"] = df.attrs["p_win_now"]
    if roll is None:
        best_dice = int(df["dice"].iloc[0])
        rec["advice"] = f"roll {rules.dice_words(best_dice)}"
        if fmt == "json":
            rec["dice"] = best_dice
        _csv_note(fmt, "the dice counts with the chance to win the match", "the situation and advice")
        emit(fmt, rec, df, title="Before the roll, in a match (p_win_match: the chance to win the match)")
        return
    _emit_moves(fmt, rules, df, rec, "p_win_match", "the situation and advice",
                "Legal moves in a match, best first (p_win_match: the chance to win the match after the move)")


# ------------------------------------------------- luck against skill, rules of thumb (STB-O6, STB-T2)
FORESIGHT_COLUMNS = ("p_shut: chance to shut the box; mean_score: mean final score (points); share_of_p_shut, "
                     "share_of_mean: how far the player gets from random play (0) towards foresight (1)")
THUMB_COLUMNS = ("keys: preferences in the rule; dice: the dice habit where the one-die rule gives a choice; "
                 "value: the objective; optimal: its optimal value; cost: how much worse than optimal play")


def _thumb_ties():
    """--tie-break of the searched rules of thumb: high or low (STB-T1, STB-T2); random is refused."""
    tie_break = _context_option("tie_break", "high")
    if tie_break not in ("high", "low"):
        raise InputError("--tie-break random makes a chance mix, not a rule to remember: the rules of thumb "
                         "break their last ties high or low (STB-T2)")
    return tie_break


def _thumb_rules(tiles, one_die, moves, max_tiles_per_move, scoring):
    """:func:`make_rules` for the commands that apply --tie-break themselves (foresight, thumb, card)."""
    ctx = click.get_current_context()
    tie_break = ctx.meta.get("box_tie_break", "high")
    ctx.meta["box_tie_break"] = "high"  # the rules themselves do not depend on it
    try:
        return make_rules(tiles, one_die, moves, max_tiles_per_move, scoring)
    finally:
        ctx.meta["box_tie_break"] = tie_break


@group.command(short_help="Luck against skill: foresight beside optimal, heuristic and random play.")
@box_rules_options
@click.option("--thumb/--no-thumb", default=True, show_default=True,
              help="Also list the best rule of thumb (a search of every rule of up to 3 preferences).")
@output_options
@user_errors
def foresight(tiles, one_die, moves, max_tiles_per_move, scoring, thumb, fmt, out_dir, table_format, quiet):
    """How much is skill (STB-O6): the exact chance to shut and mean score of a player who knows every
    die in advance, beside random play, the best named heuristic, the best rule of thumb and optimal play."""
    from ludolab.sim.box_foresight import foresight_table

    out_dir = check_out(out_dir)
    rules = _thumb_rules(tiles, one_die, moves, max_tiles_per_move, scoring)
    df = foresight_table(rules, thumb=thumb, tie_break=_context_option("tie_break", "high"))
    rec = {"rules": _rules_out(fmt, rules), "method": "exact (foresight: every path of each dice sequence)",
           "knowledge_sets": df.attrs["knowledge_sets"]}
    _csv_note(fmt, "the table of players", "the rules")
    emit(fmt, rec if fmt != "csv" else None, df, title=f"How much is skill ({FORESIGHT_COLUMNS})")
    if out_dir is not None:
        from ludolab.analysis.box_card import fig_foresight
        from ludolab.analysis.results import provenance

        meta = provenance("box", rules=rules.to_dict(), method="exact", command="box foresight",
                          columns=FORESIGHT_COLUMNS)
        save_outputs(out_dir, {"foresight": df}, {"foresight_skill": fig_foresight(df, rules)}, meta, table_format)


@group.command(short_help="Rules of thumb: every rule of up to 3 preferences, costed exactly.")
@box_rules_options
@objective_options
@click.option("--top", type=IntRange(min=1), default=5, show_default=True, help="Rules listed.")
@click.option("--max-keys", type=IntRange(1, 3), default=3, show_default=True,
              help="Longest list of preferences tried.")
@click.option("--every-one-die", is_flag=True,
              help="Survey every one-die rule (never, 789-optional, ...) and both objectives instead.")
@output_options
@user_errors
def thumb(tiles, one_die, moves, max_tiles_per_move, scoring, objective, target, ties_win, top, max_keys,
          every_one_die, fmt, out_dir, table_format, quiet):
    """Rules a person can remember (STB-T2): every lexicographic rule of up to 3 preferences (cover the
    highest tile, fewest tiles, leave the most ways to cover the next roll, ...) with every dice habit,
    each evaluated exactly; the best few with their cost against optimal play."""
    from ludolab.sim import box_thumb

    _check_objective(objective, target, ties_win)
    tie_break = _thumb_ties()
    out_dir = check_out(out_dir)
    if every_one_die:
        refuse(["one_die"], "does not apply with --every-one-die, which surveys every one-die rule")
        refuse(["objective", "target", "ties_win"], "does not apply with --every-one-die, which surveys both "
                                                    "the mean score and the chance to shut")
        rules = _thumb_rules(tiles, None, moves, max_tiles_per_move, scoring)
        df = box_thumb.thumb_survey(rules, top=top, tie_break=tie_break)
        rec = {"rules": _rules_out(fmt, rules), "preferences": ", ".join(box_thumb.KEYS)}
        title = f"Best rules of thumb per one-die rule and objective ({THUMB_COLUMNS})"
    else:
        rules = _thumb_rules(tiles, one_die, moves, max_tiles_per_move, scoring)
        df = box_thumb.best_rules_of_thumb(rules, objective, target, ties_win, top=top, max_keys=max_keys,
                                           tie_break=tie_break)
        rec = {"rules": _rules_out(fmt, rules), "objective": df.attrs["objective"], "optimal": df.attrs["optimal"],
               "rules_tried": df.attrs["tried"], "distinct_ways_of_play": df.attrs["distinct"]}
        title = f"Best rules of thumb, best first ({THUMB_COLUMNS})"
    _csv_note(fmt, "the table of rules", "the objective and counts")
    emit(fmt, rec if fmt != "csv" else None, df, title=title)
    if out_dir is not None:
        from ludolab.analysis.box_card import fig_thumb
        from ludolab.analysis.results import provenance

        meta = provenance("box", rules=rules.to_dict(), method="exact", command="box thumb", columns=THUMB_COLUMNS,
                          preferences=list(box_thumb.KEYS), dice_habits=list(box_thumb.DICE_HABITS))
        figs = {} if every_one_die else {"thumb_rules": fig_thumb(df, rules)}
        save_outputs(out_dir, {"thumb_survey" if every_one_die else "thumb_rules": df}, figs, meta, table_format)


@group.command(short_help="A one-page strategy card (PNG and PDF): the rule of thumb and where it goes wrong.")
@box_rules_options
@click.option("--objective", type=click.Choice(("expected-score", "shut")), default="expected-score",
              show_default=True, help="What the rule of thumb is chosen and costed for.")
@click.option("--rule", default=None,
              help="A rule of thumb to put on the card, e.g. 'fewest-tiles > lowest-top; dice cover' "
                   "(default: the best one found).")
@click.option("--exceptions", type=IntRange(1, 20), default=6, show_default=True,
              help="Situations where the rule goes wrong to list.")
@output_options
@user_errors
def card(tiles, one_die, moves, max_tiles_per_move, scoring, objective, rule, exceptions, fmt, out_dir,
         table_format, quiet):
    """The strategy card (STB-T2): the best rule of thumb in words, its exact cost against optimal play,
    and the situations where it goes wrong with what to do instead; --out writes strategy_card.png and .pdf."""
    from ludolab.analysis import box_card

    tie_break = _thumb_ties()
    out_dir = check_out(out_dir)
    from ludolab.analysis.results import table_files

    refuse_foreign_out(out_dir, ("strategy_card.png", "strategy_card.pdf")
                       + table_files("strategy_card_exceptions", table_format))
    rules = _thumb_rules(tiles, one_die, moves, max_tiles_per_move, scoring)
    data = box_card.card_data(rules, objective, rule, exceptions, tie_break)
    exc = data["exceptions"]
    if fmt == "json":
        exc = _json_table(rules, exc, tiles=("open",))
        exc["roll"] = [None if r is None or r != r else _roll_json(rules, r) for r in data["exceptions"]["roll"]]
    elif fmt == "table":
        exc = exc.assign(roll=exc["roll"].fillna("(dice)"))
    rec = {"rules": _rules_out(fmt, rules), "rule": data["rule"],
           "words": data["words"] if fmt == "json" else " / ".join(data["words"]),
           "objective": data["objective"], "mean_score": data["mean_score"],
           "optimal_mean_score": data["optimal_mean_score"], "p_shut": data["p_shut"],
           "optimal_p_shut": data["optimal_p_shut"], "cost": data["cost"]}
    if fmt == "json":
        rec["compare"] = [{k: (float(v) if k in ("p_shut", "mean_score") else v) for k, v in r.items()}
                          for r in data["compare"].to_dict("records")]
    _csv_note(fmt, "the situations where the rule goes wrong", "the rule and its cost")
    emit(fmt, rec if fmt != "csv" else None, exc,
         title="Strategy card (where it goes wrong: rule_plays, what to do instead; loss each time; how_often: "
               "chance per turn; expected_loss = loss x how_often)")
    if out_dir is not None:
        from ludolab.analysis.results import provenance

        meta = provenance("box", rules=rules.to_dict(), method="exact", command="box card", rule=data["rule"],
                          objective=data["objective"])
        fig = box_card.fig_card(data, rules)
        save_outputs(out_dir, {"strategy_card_exceptions": data["exceptions"]}, {}, meta, table_format,
                     also=[lambda: box_card.save_card(fig, out_dir)])
