"""``ludolab beverbende``: Beverbende from the command line (rules clauses BVB-n in seeds/beverbende.md)."""

from __future__ import annotations

import click

from ludolab.stdlib.errors import ascii_digits, ascii_whole

from .cli_common import (CommandGroup, FloatRange, InputError, IntRange, check_out, emit, output_options, progress_flag,
                         refuse, save_outputs, seed_options, user_errors)

SCORINGS = ("sum", "knocker-penalty", "win-count")
SPECIALS = ("swap", "peek", "draw-twice")


def rules_options(fn):
    """--players, --memory-loss, --scoring, --knock-penalty, --round-cap, --exchange-specials, --special, --deck."""
    opts = [
        click.option("--players", type=IntRange(2, 6), default=4, show_default=True,
                     help="Number of players, 2..6 (BVB-2)."),
        click.option("--memory-loss", "memory_loss", type=FloatRange(0.0, 1.0), default=0.0,
                     show_default=True, help="Chance per turn of forgetting each remembered card (BVB-13)."),
        click.option("--scoring", type=click.Choice(SCORINGS), default="sum", show_default=True,
                     help="Scoring variant (BVB-15)."),
        click.option("--knock-penalty", type=IntRange(0, 36), default=5, show_default=True,
                     help="Penalty of a knocker who is not strictly lowest, with --scoring knocker-penalty."),
        click.option("--round-cap", type=IntRange(1, 100_000), default=400, show_default=True,
                     help="Turns after which a round nobody knocks in ends (BVB-12)."),
        click.option("--exchange-specials", is_flag=True,
                     help="A drawn special card may be exchanged into the row (BVB-7 option)."),
        click.option("--special", "specials", multiple=True, metavar="NAME=FACTOR",
                     help="Remove (0) or multiply (2) a special card type: swap, peek, draw-twice; repeatable."),
        click.option("--deck", default=None, metavar="C0,...,C12",
                     help="The whole deck: copies of 0..9, swap, peek, draw twice (default 4x9,9,9,7,5) (BVB-1)."),
    ]
    for o in reversed(opts):
        fn = o(fn)
    return fn


#: Knock thresholds a sweep may try: a row's estimated total, 0 (four zeros) to 36 (four nines);
#: below 0 a player never knocks and every round runs to the round cap.
KNOCK_RANGE = (0.0, 36.0)
KNOCK_UNIT = "knock thresholds (a row's estimated total: below 0 nobody ever knocks)"


def run_options(default_rounds: int):
    """--rounds (alias --games), --seed, --chunks."""
    return seed_options(default_rounds, ("--rounds", "--games"), "rounds",
                        "Number of simulated rounds (games for whole-game runs).")


def make_rules(players, memory_loss, scoring, knock_penalty, round_cap, exchange_specials, specials, deck):
    """The :class:`~ludolab.stdlib.beverbende.BeverbendeRules` of the rules options."""
    from ludolab.stdlib.beverbende import BeverbendeRules, parse_composition

    if scoring != "knocker-penalty":
        refuse(["knock_penalty"], "applies only with --scoring knocker-penalty")
    kw = {}
    if deck is not None:
        kw["composition"] = parse_composition(deck)
    rules = BeverbendeRules(players=players, memory_loss=memory_loss, scoring=scoring, knock_penalty=knock_penalty,
                            round_cap=round_cap, exchange_specials=exchange_specials, **kw)
    seen = {}
    for s in specials:
        name, eq, f = s.partition("=")
        if eq and name.strip() in seen:
            raise InputError(f"--special {name.strip()} is given twice ({seen[name.strip()]!r} and {s!r}): "
                             "give each special card type once")
        seen[name.strip()] = s
        if not eq or name.strip() not in SPECIALS:
            raise InputError(f"cannot read --special {s!r}: write NAME=FACTOR with NAME one of {', '.join(SPECIALS)}, "
                             "e.g. swap=0 or peek=2")
        try:
            factor = float(f)
        except ValueError:
            raise InputError(f"--special {s!r}: the factor must be a number >= 0, e.g. 0 or 2") from None
        if not factor >= 0:
            raise InputError(f"--special {s!r}: the factor must be a number >= 0, e.g. 0 or 2")
        if factor != int(factor):
            raise InputError(f"--special {s!r}: the factor must be a whole number of copies per card "
                             "(0 removes the type, 1 keeps it, 2 doubles it)")
        rules = rules.with_special(name.strip(), factor)
    return rules


def _num_range(text: str, what: str, low: float | None = None, high: float | None = None,
               unit: str = "values") -> list[float]:
    """``"2:20:2"`` (start:stop:step, inclusive) or ``"4,8,12"``; every value within ``low..high``
    where given (``unit`` names the values in the message).

    Raises:
        InputError: unreadable, a step that is not > 0, an empty range (stop below start), more
            than 200 values, or a value out of ``low..high``.
    """
    shape = "give start:stop:step (e.g. 2:20:2) or a list (4,8,12)"
    ascii_digits(text, what, InputError)
    try:
        if ":" in text:
            parts = [float(x) for x in text.split(":")]
            if len(parts) != 3:
                raise ValueError
        else:
            parts = None
            vals = [float(x) for x in text.split(",") if x.strip()]
            if not vals:
                raise ValueError
    except ValueError:
        raise InputError(f"cannot read {what} {text!r}: {shape}") from None
    if parts is not None:
        if not parts[2] > 0:
            raise InputError(f"{what} {text!r}: the step must be > 0 (e.g. {parts[0]:g}:{parts[1]:g}:2)")
        if parts[1] < parts[0]:
            raise InputError(f"{what} {text!r} is an empty range: the stop {parts[1]:g} is below the start "
                             f"{parts[0]:g} (start:stop:step counts up)")
        n = int(round((parts[1] - parts[0]) / parts[2])) + 1
        if n > 200:
            raise InputError(f"{what} {text!r} has {n} values: at most 200")
        vals = [parts[0] + i * parts[2] for i in range(n)]
    bad = [v for v in vals if (low is not None and v < low) or (high is not None and v > high)]
    if bad:
        raise InputError(f"{what} {text!r}: {bad[0]:g} is out of range: {unit} are {low:g}..{high:g}")
    return vals


def _players_list(text: str) -> list[int]:
    vals = _num_range(text, "--players-list")
    out = []
    for v in vals:
        if v != int(v) or not 2 <= v <= 6:
            raise InputError(f"--players-list {text!r}: player counts are whole numbers 2..6")
        out.append(int(v))
    return out


@click.group(name="beverbende", cls=CommandGroup, short_help="Beverbende: simulate, compare, sweep knock thresholds, tune, variants.")
def group():
    """Beverbende (Biberbande): the 66-card knock game with hidden cards and memory.

    Policies: random, threshold, expected-value, with parameters as
    NAME:param=value,... e.g. threshold:knock=8,take=3 (see `simulate --help`).
    """


POLICY_HELP = ("Policy: random, threshold[:knock=10,take=2,unknown=4.5,exchange=1,swap=6,peek=1,draw2=1,late=0] or "
               "expected-value[:margin=4,kmax=6,take=1,exchange=0.5,swapgain=1]. Give it once for every seat, "
               "or once per seat.")


@group.command(short_help="Simulate rounds: mean score with its CI, per seat.")
@rules_options
@click.option("--policy", "policies", multiple=True, default=("threshold",), show_default=True, help=POLICY_HELP)
@click.option("--whole-games", is_flag=True, help="Play whole games (BVB-14) and report game win chances.")
@run_options(20_000)
@output_options
@user_errors
def simulate(players, memory_loss, scoring, knock_penalty, round_cap, exchange_specials, specials, deck, policies,
             whole_games, rounds, seed, chunks, fmt, out_dir, table_format, quiet):
    """Simulate single rounds (seat 0 starts) or whole games, every seat with its policy."""
    import pandas as pd

    from ludolab.analysis.results import provenance
    from ludolab.sim import beverbende as bev

    out_dir = check_out(out_dir)
    rules = make_rules(players, memory_loss, scoring, knock_penalty, round_cap, exchange_specials, specials, deck)
    pols = list(policies)
    if len(pols) not in (1, players):
        raise InputError(f"give --policy once (every seat) or {players} times (one per seat), not {len(pols)}")
    pols = [bev.parse_policy(p) for p in pols]
    arg = pols[0] if len(pols) == 1 else pols
    meta = provenance("beverbende", rules=rules.as_dict(), policies=[p.label for p in pols], seed=seed,
                      rounds=rounds, chunks=chunks, command="beverbende simulate")
    if whole_games:
        df = bev.simulate_games(rules, arg, rounds, seed, chunks, progress=progress_flag(quiet))
        rec = {"games": rounds, "rounds_per_game": rules.n_rounds, "scoring": rules.scoring,
               "capped_rounds": df.attrs["capped_rounds"]}
        emit(fmt, rec, df, title=f"Beverbende, {players} players, whole games")
        if df.attrs["capped_rounds"]:
            _capped_note(int(df.attrs["capped_rounds"]), rules, f"of {rounds * rules.n_rounds:,} ", "capped_rounds")
        save_outputs(out_dir, {"game_wins": df}, {}, meta, table_format)
        return
    out = bev.simulate(rules, arg, rounds, seed, chunks, progress=progress_flag(quiet))
    lo, hi = out["mean_score_ci"]
    seats = pd.DataFrame([{"seat": s["seat"], "policy": s["policy"], "mean_score": s["mean_score"],
                           "ci_low": s["mean_score_ci"][0], "ci_high": s["mean_score_ci"][1],
                           "p_lowest_alone": s["p_lowest_alone"], "p_lowest_shared": s["p_lowest_shared"],
                           "knock_rate": s["knock_rate"]} for s in out["seats"]])
    if fmt == "json":
        import json

        rec = {k: v for k, v in out.items() if k not in ("seats",)}
        rec["mean_score_ci_low"], rec["mean_score_ci_high"] = lo, hi
        rec["seats"] = out["seats"]
        click.echo(json.dumps(rec, indent=2))
    else:
        rec = {"players": players, "rounds": out["rounds"], "mean_score": out["mean_score"],
               "mean_score_ci": f"[{lo:.4f}, {hi:.4f}]" if lo is not None else "undefined (one round)",
               "mean_turns": out["mean_turns"], "capped_rounds": out["capped_rounds"], "seed": seed}
        emit(fmt, rec if fmt == "table" else None, seats, title=f"Beverbende, {players} players, single rounds")
    if out["capped_rounds"]:
        _capped_note(int(out["capped_rounds"]), rules, f"of {out['rounds']:,} ", "capped_rounds")
    if out_dir is not None:
        from ludolab.analysis.beverbende import fig_seat_scores

        save_outputs(out_dir, {"seats": seats}, {"score_distribution": fig_seat_scores(out)}, meta, table_format)


def _capped_note(n: int, rules, where: str, column: str) -> None:
    """One line on stderr: ``n`` rounds ended at the round cap (BVB-12) with nobody knocking."""
    click.echo(f"note: {n:,} rounds {where}ended at the round cap of {rules.round_cap} turns with nobody knocking "
               f"({column})", err=True)


@group.command(short_help="Policies in one seat against a field, on the same deals.")
@rules_options
@click.option("--policy", "policies", multiple=True, default=("random", "threshold", "expected-value"),
              show_default=True, help="Candidate policies for the seat (repeatable). " + POLICY_HELP)
@click.option("--field", default="threshold", show_default=True, help="Policy of every other seat.")
@click.option("--seat", type=IntRange(0, 5), default=0, show_default=True,
              help="The seat the candidates play (0 starts the round).")
@run_options(20_000)
@output_options
@user_errors
def compare(players, memory_loss, scoring, knock_penalty, round_cap, exchange_specials, specials, deck, policies,
            field, seat, rounds, seed, chunks, fmt, out_dir, table_format, quiet):
    """Compare policies on common random numbers: each plays the same rounds in the same seat."""
    from ludolab.analysis.results import provenance
    from ludolab.sim import beverbende as bev

    out_dir = check_out(out_dir)
    rules = make_rules(players, memory_loss, scoring, knock_penalty, round_cap, exchange_specials, specials, deck)
    if seat >= players:
        raise InputError(f"--seat {seat} does not exist with {players} players: seats are 0..{players - 1}")
    df = bev.compare(rules, list(policies), field, rounds, seed, chunks, seat, progress=progress_flag(quiet))
    meta = provenance("beverbende", rules=rules.as_dict(), field=field, seed=seed, rounds=rounds, chunks=chunks,
                      command="beverbende compare")
    emit(fmt, None, df, title=f"Beverbende, {players} players, seat {seat} against {field} "
                              "(diff_vs_first: paired, against the first policy)")
    if int(df["capped_rounds"].sum()):
        _capped_note(int(df["capped_rounds"].sum()), rules, f"over the {len(df)} policies ",
                     "the capped_rounds column")
    save_outputs(out_dir, {"compare": df}, {}, meta, table_format)


@group.command(short_help="Knock-threshold heatmap: own threshold against the field's.")
@rules_options
@click.option("--players-list", default=None, metavar="LIST",
              help="Player counts to sweep, e.g. 2:6:1 or 2,4 (default: --players).")
@click.option("--knock", "knocks", default="0:20:2", show_default=True, help="Own knock thresholds (start:stop:step or list).")
@click.option("--field-knock", "field_knocks", default="0:20:2", show_default=True,
              help="The field's knock thresholds.")
@click.option("--policy", "policy", default="threshold", show_default=True,
              help="The threshold policy whose knock is swept (its other parameters are kept).")
@run_options(2_000)
@output_options
@user_errors
def sweep(players, memory_loss, scoring, knock_penalty, round_cap, exchange_specials, specials, deck, players_list,
          knocks, field_knocks, policy, rounds, seed, chunks, fmt, out_dir, table_format, quiet):
    """Seat 0's knock threshold against the field's, on the same deals for every threshold."""
    from ludolab.analysis import beverbende as A
    from ludolab.analysis.results import provenance

    out_dir = check_out(out_dir)
    rules = make_rules(players, memory_loss, scoring, knock_penalty, round_cap, exchange_specials, specials, deck)
    if players_list:
        refuse(["players"], "conflicts with --players-list: give one of them")
    ps = _players_list(players_list) if players_list else [players]
    for P in ps:
        rules.with_changes(players=P)
    df = A.knock_sweep(ps, _num_range(knocks, "--knock", *KNOCK_RANGE, unit=KNOCK_UNIT),
                       _num_range(field_knocks, "--field-knock", *KNOCK_RANGE, unit=KNOCK_UNIT), rounds, seed,
                       rules, policy, progress=progress_flag(quiet))
    objective = "p_win" if rules.scoring == "win-count" else "margin"
    best = A.best_knock(df, objective)
    meta = provenance("beverbende", rules=rules.as_dict(), seed=seed, rounds=rounds, command="beverbende sweep")
    emit(fmt, None, best if fmt == "table" else df, title="Best own knock threshold for each field threshold")
    if "capped_rounds" in df and int(df["capped_rounds"].sum()) > 0:
        capped = df[df["capped_rounds"] > 0]
        _capped_note(int(df["capped_rounds"].sum()), rules, f"in {len(capped)} of the {len(df)} cells ",
                     "the capped_rounds column of the sweep table, with --format json or csv, or --out")
    figs = {}
    if out_dir is not None:
        figs["knock_heatmap"] = A.fig_heatmap(df, objective, f"{rules.scoring} scoring, {rules.n_cards}-card deck")
    save_outputs(out_dir, {"sweep": df, "best_knock": best}, figs, meta, table_format)


@group.command(short_help="Tune the threshold heuristic against a field.")
@rules_options
@click.option("--field", default="threshold", show_default=True, help="Policy of every other seat.")
@click.option("--objective", type=click.Choice(("margin", "mean_score", "p_win")), default="margin",
              show_default=True, help="Lowest score relative to the other seats' mean, lowest own score, or highest "
              "chance of the lowest row (shared counted half).")
@click.option("--passes", type=IntRange(1, 10), default=2, show_default=True,
              help="Passes of the coordinate search.")
@run_options(4_000)
@output_options
@user_errors
def tune(players, memory_loss, scoring, knock_penalty, round_cap, exchange_specials, specials, deck, field,
         objective, passes, rounds, seed, chunks, fmt, out_dir, table_format, quiet):
    """Coordinate search over knock, take, unknown, exchange and swap, each step on common random numbers."""
    from ludolab.analysis import beverbende as A
    from ludolab.analysis.results import provenance
    from ludolab.sim import beverbende as bev

    out_dir = check_out(out_dir)
    rules = make_rules(players, memory_loss, scoring, knock_penalty, round_cap, exchange_specials, specials, deck)
    best, hist = A.tune(rules, field, rounds, seed, passes, objective, progress=progress_flag(quiet))
    pol = bev.make_policy("threshold", **best)
    text = "threshold:" + ",".join(f"{k}={v:g}" for k, v in best.items())
    check = bev.compare(rules, ["threshold", pol], field, rounds, seed + 1000, chunks)
    rec = {"policy": text, "objective": objective, "field": bev.as_policy(field).label,
           "mean_score": float(check.mean_score[1]), "default_mean_score": float(check.mean_score[0]),
           "margin": float(check.margin[1]), "default_margin": float(check.margin[0]),
           "score_gain_vs_default": float(-check.diff_vs_first[1]),
           "score_gain_ci": [float(-check.diff_vs_first_ci_high[1]), float(-check.diff_vs_first_ci_low[1])],
           "check_seed": seed + 1000}
    emit(fmt, rec, hist if fmt != "table" else None, title="Tuned threshold heuristic (checked on fresh deals)")
    meta = provenance("beverbende", rules=rules.as_dict(), seed=seed, rounds=rounds, command="beverbende tune")
    save_outputs(out_dir, {"tune_history": hist}, {}, meta, table_format)


@group.command(short_help="Scoring variants: how each moves the best knock threshold.")
@rules_options
@click.option("--players-list", default="2,4,6", show_default=True, metavar="LIST", help="Player counts.")
@click.option("--knock", "knocks", default="0:20:2", show_default=True, help="Own knock thresholds.")
@run_options(2_000)
@output_options
@user_errors
def variants(players, memory_loss, scoring, knock_penalty, round_cap, exchange_specials, specials, deck,
             players_list, knocks, rounds, seed, chunks, fmt, out_dir, table_format, quiet):
    """The best own knock threshold under sum, knocker-penalty and win-count scoring (BVB-15)."""
    from ludolab.analysis import beverbende as A
    from ludolab.analysis.results import provenance

    refuse(["players"], "does not apply to variants: give --players-list")
    refuse(["scoring"], "does not apply to variants, which compare every scoring")

    out_dir = check_out(out_dir)
    rules = make_rules(players, memory_loss, scoring, knock_penalty, round_cap, exchange_specials, specials, deck)
    ps = _players_list(players_list)
    var = A.variants(ps, _num_range(knocks, "--knock"), rounds, seed, rules, progress=progress_flag(quiet))
    best = A.best_by_variant(var)
    meta = provenance("beverbende", rules=rules.as_dict(), seed=seed, rounds=rounds, command="beverbende variants")
    emit(fmt, None, best if fmt == "table" else var, title="Best own knock threshold by scoring variant")
    save_outputs(out_dir, {"variants": var, "best_knock": best}, {}, meta, table_format)


# ------------------------------------------------------------------ advice at any decision
#: The worlds sampled by ``advise`` without --budget/--half-width.  Measured once compiled on a
#: shared 2-core machine: the sampling takes about 0.1 s at five legal actions and 0.2-0.5 s at the
#: widest decision (a swap at six players, 80 actions), on top of about 1.3 s to start Python and
#: load the cached kernels, so the answer comes within 2 s; 400 worlds came to 2.3-2.9 s under load.
ADVISE_BUDGET = 200
#: The situation's options of the command-line form (refused together with --situation).
SITUATION_OPTIONS = ("seat", "turns", "start", "phase", "drawn", "draw_twice", "rows", "discard", "knocker",
                     "reshuffles")
RULES_OPTIONS = ("memory_loss", "scoring", "knock_penalty", "round_cap", "exchange_specials", "specials", "deck")


def _advise_imports():
    from ludolab.analysis import advice_cli

    return advice_cli


def _situation_of_options(players, seat, turns, start, phase, drawn, draw_twice, rows, discard, knocker,
                          reshuffles) -> dict:
    """The situation dict of the command-line form (the keys of a JSON situation)."""
    if seat is None:
        raise InputError("give the situation: --situation FILE (JSON, - for stdin) or at least --seat on the "
                         "command line (with --row, --discard, --phase, ...)")
    sit = {"players": players, "seat": seat}
    for k, v in (("turns", turns), ("start", start), ("phase", phase), ("drawn", drawn), ("knocker", knocker),
                 ("reshuffles", reshuffles)):
        if v is not None:
            sit[k] = v
    if draw_twice:
        sit["draw_twice"] = True
    if rows:
        got = {}
        for r in rows:
            q, sep, cards = r.partition(":")
            if not sep or not ascii_whole(q):
                raise InputError(f"cannot read --row {r!r}: write SEAT:CARDS, e.g. --row 1:\"2 ? ? 9\" (slots 0..3, "
                                 "? for unknown)")
            if int(q) in got:
                raise InputError(f"--row gives seat {int(q)} twice: give each seat's row once")
            got[int(q)] = cards
        sit["rows"] = {str(q): v for q, v in got.items()}
    if discard is not None:
        sit["discard"] = discard
    return sit


@group.command(short_help="Advice at any decision: every legal action's value (this round's points) with a 95% CI.")
@click.option("--situation", "situation_file", default=None, metavar="FILE",
              help="The situation as a JSON file (- reads standard input); see the README for its keys.")
@click.option("--seat", type=IntRange(), default=None, help="The seat to move (0-based, BVB-2), whose knowledge this is.")
@click.option("--turns", type=IntRange(), default=None, help="Turns completed in the round (default 0; at the knock "
                                                          "decision it counts the turn just played).")
@click.option("--start", type=IntRange(), default=None, help="The round's starting seat (default: the one that puts --seat "
                                                          "to move after --turns).")
@click.option("--phase", type=click.Choice(("action", "drawn", "swap", "peek", "knock")), default=None,
              help="The decision: take or draw (action), the drawn card (drawn), the swap or peek to carry out, or "
                   "whether to knock (default action).")
@click.option("--drawn", default=None, metavar="CARD", help="The card just drawn, with --phase drawn: 0..9, SW, PK, D2.")
@click.option("--draw-twice", is_flag=True, help="The drawn card is the first of a draw twice (discarding it draws "
                                                 "again, BVB-8).")
@click.option("--row", "rows", multiple=True, metavar="SEAT:CARDS",
              help="A row as the seat to move remembers it, slots 0..3, ? unknown, e.g. --row 0:\"3 ? ? 9\"; "
                   "repeatable, seats not given are unknown.")
@click.option("--discard", default=None, metavar="CARDS",
              help="Every card on the discard pile, the top card last, e.g. \"4 9 SW 2\".")
@click.option("--knocker", type=IntRange(), default=None, help="The seat that knocked this round, if any (BVB-9).")
@click.option("--reshuffles", type=IntRange(), default=None, help="Times the draw pile was rebuilt this round (BVB-11).")
@rules_options
@_advise_imports().advice_options(default_budget=ADVISE_BUDGET)
@user_errors
def advise(situation_file, seat, turns, start, phase, drawn, draw_twice, rows, discard, knocker, reshuffles,
           players, memory_loss, scoring, knock_penalty, round_cap, exchange_specials, specials, deck,
           budget, half_width, max_worlds, seed, continuation, fmt):
    """Rank every legal action of the seat to move by its value: the mean of this round's points for
    that seat (lower is better; under --scoring win-count the chance to win the round, higher is
    better) over sampled worlds consistent with what it knows, each action played and the round
    then played out by the continuation for every seat (default the expected-value policy).

    The situation is a JSON file (--situation) or the options --seat, --turns, --phase, --drawn,
    --row, --discard, --knocker (one form, not both).  The value is one round's: the advice treats
    the situation as a one-round game, whatever round of a game it is.
    """
    import sys

    from ludolab.analysis import advice_cli
    from ludolab.analysis.cli_common import given
    from ludolab.sim import advice
    from ludolab.sim import beverbende as bev
    from ludolab.sim import beverbende_kernels as K
    from ludolab.sim import beverbende_situation as BS
    from ludolab.sim.kernel_cache import light_loads
    from ludolab.stdlib.jsonfile import load_json, read_input

    light_loads()  # an answer at the table: cached kernels load without numba's compiler set-up
    rules_given = any(given(n) for n in RULES_OPTIONS)
    if situation_file is not None:
        refuse(SITUATION_OPTIONS + ("players",), "conflicts with --situation: give the situation in the file or as "
                                                  "options, not both")
        from pathlib import Path

        src = read_input(sys.stdin, "situation", BS.SituationError) if situation_file == "-" else Path(situation_file)
        sit = load_json(src, "situation", BS.SituationError)
        if not isinstance(sit, dict):
            raise BS.SituationError(f"the situation must be a JSON object (keys {', '.join(BS.KEYS)})")
    else:
        sit = _situation_of_options(players, seat, turns, start, phase, drawn, draw_twice, rows, discard, knocker,
                                    reshuffles)
    base = None
    if rules_given:
        base = make_rules(sit.get("players", players) if isinstance(sit.get("players"), int) else players,
                          memory_loss, scoring, knock_penalty, round_cap, exchange_specials, specials, deck)
    pos = BS.to_position(sit, base)
    wins = pos.ruleset.scoring == "win-count"  # the round won (1) or not: highest best (BVB-15)
    rules, P, s, obs = pos
    game = bev.step_game()
    continuation = advice_cli.continuation_of(continuation, game, rules)
    budget = advice_cli.slow_budget(budget, continuation, given("budget"))
    adv = advice.advise(game, rules, P, s, obs, measure="win_share" if wins else "bev_score",
                        budget=budget, half_width=half_width, max_worlds=max_worlds, key=seed,
                        lower_is_better=not wins, continuation=continuation)
    shown = BS.from_obs(rules, obs)
    own = " ".join(shown["rows"][s])
    rec = {"game": "beverbende", "players": P, "seat": s, "phase": shown["phase"], "turns": shown["turns"],
           "own row": own}
    if "drawn" in shown:
        rec["drawn"] = shown["drawn"] + (" (first of a draw twice)" if shown["draw_twice"] else "")
    rec["top discard"] = shown["discard"][-1]
    if shown["knocker"] is None:
        rec["knocked"] = "no"
    else:
        left = int(obs[K.O_LEFT])
        rec["knocked"] = f"seat {shown['knocker']}: " + ("this is the round's last turn" if left == 1 else
                                                         f"{left} turns left, this one included")
    rec["scope"] = ("one round: " + BS.describe(pos))
    if fmt == "json":
        rec["situation"] = shown
    advice_cli.emit_advice(adv, label=lambda a: BS.action_label(rules, obs, a),
                           title=f"Beverbende advice, seat {s} to move ({shown['phase']})", record=rec, fmt=fmt,
                           unit="rounds won (this round won: 1, ties all win)" if wins else "points of this round",
                           seat_name=f"seat {s}")
