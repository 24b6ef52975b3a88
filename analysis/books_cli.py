"""``ludolab books``: Shut The Books from the command line (rules clauses STK-n in seeds/shut_the_books.md)."""

from __future__ import annotations

import json

import click

from ludolab.stdlib.errors import ascii_digits

from .advice_cli import advice_options, continuation_of, emit_advice, slow_budget
from .cli_common import (CommandGroup, FloatRange, InputError, IntRange, check_out, emit, output_options, progress_flag,
                         refuse, save_outputs, seed_options, user_errors)

FORECASTS = ("heuristic", "zero", "random", "rollout")
PLAYS = ("heuristic", "random", "rollout")
#: Compared by default (the rollout policies are slow: ask for them by name).
DEFAULT_FORECASTS = ("heuristic", "zero", "random")
DEFAULT_PLAYS = ("heuristic", "random")
SCORINGS = ("rulebook", "exact-only", "linear")


def hand_rules_options(fn):
    """--players, --scoring, --void-trump: the rules of a single hand (STK-1, STK-6, STK-8)."""
    return _rules_options(fn, games=False)


def rules_options(fn):
    """--players, --scoring, --void-trump, --tie-break: the rules of whole games (STK-1, STK-6, STK-8, STK-9)."""
    return _rules_options(fn, games=True)


def _rules_options(fn, games: bool):
    opts = [
        click.option("--players", type=click.Choice(("3", "4")), default="4", show_default=True,
                     help="3 players (numbers 1-12, 16 cards each) or 4 (1-15, 15 each) (STK-1)."),
        click.option("--scoring", type=click.Choice(SCORINGS), default="rulebook", show_default=True,
                     help="rulebook 4/2/-off, exact-only 10+tricks or 0, linear 4-2*off (STK-8)."),
        click.option("--void-trump", type=click.Choice(("counts", "ignored")), default="counts", show_default=True,
                     help="Whether a red card that won while void in the colour led also matches that colour "
                          "(STK-6)."),
    ]
    if games:
        opts.append(click.option("--tie-break", type=click.Choice(("last-start", "shared")), default="last-start",
                                 show_default=True, help="Who wins a tied game (STK-9)."))
    for o in reversed(opts):
        fn = o(fn)
    return fn


def run_options(default_hands: int, unit: str = "hands"):
    """--hands (or --games), --seed, --chunks."""
    return seed_options(default_hands, (f"--{unit}",), "n",
                        "Number of simulated hands (deals)." if unit == "hands" else
                        "Number of simulated games (each as many hands as players).")


def rollout_options(fn):
    """--rollout-pool, --rollout-worlds (rollout forecaster), --play-worlds (rollout player)."""
    opts = [
        click.option("--rollout-pool", type=IntRange(1, 12), default=6, show_default=True,
                     help="Rollout forecaster: cards considered for prediction (subsets of at most 5)."),
        click.option("--rollout-worlds", type=IntRange(1, 10_000), default=4, show_default=True,
                     help="Rollout forecaster: sampled deals per candidate in the first halving round."),
        click.option("--play-worlds", type=IntRange(1, 10_000), default=16, show_default=True,
                     help="Rollout player: sampled deals per decision."),
    ]
    for o in reversed(opts):
        fn = o(fn)
    return fn


def refuse_unused(forecasts, plays):
    """Refuse the rollout budgets when no policy they tune is chosen (rather than ignore them)."""
    if "rollout" not in forecasts:
        refuse(["rollout_pool", "rollout_worlds"], "applies only with --forecast-policy rollout")
    if "rollout" not in plays:
        refuse(["play_worlds"], "applies only with --play-policy rollout")


def policies(forecast, play, rollout_pool, rollout_worlds, play_worlds):
    """Policy objects for names, with the rollout budgets applied."""
    from ludolab.sim import books as S

    f = (S.forecast_policy("rollout", pool=rollout_pool, worlds=rollout_worlds) if forecast == "rollout"
         else S.forecast_policy(forecast))
    p = S.play_policy("rollout", worlds=play_worlds) if play == "rollout" else S.play_policy(play)
    return f, p


def make_rules(players, scoring, void_trump, tie_break="last-start"):
    from ludolab.stdlib.books import BooksRules

    return BooksRules(int(players), scoring=scoring, void_trump=void_trump, tie_break=tie_break)


def _emit_tables(fmt, title, record, tables: dict):
    """Print several tables: text with a title per table; JSON with one list of rows per table."""
    from .cli_common import _clean

    if fmt == "json":
        payload = {k: _clean(v) for k, v in record.items()}
        for name, df in tables.items():
            payload[name] = [{k: _clean(v) for k, v in r.items()} for r in df.to_dict("records")]
        click.echo(json.dumps(payload, indent=2, default=str))
        return
    if fmt == "csv":
        names = list(tables)
        click.echo(tables[names[0]].to_csv(index=False), nl=False)
        if len(names) > 1:
            click.echo(f"note: CSV holds one table ({names[0]}); the others ({', '.join(names[1:])}) come with "
                       "--format json, or as files with --out DIR", err=True)
        return
    emit("table", record=record, title=title)
    for name, df in tables.items():
        click.echo(f"\n{name.replace('_', ' ')}")
        click.echo(df.to_string(index=False, float_format=lambda x: f"{x:.4g}"))


@click.group(name="books", cls=CommandGroup,
             short_help="Shut The Books: simulate, accuracy, advise, compare, variants, score.")
def group():
    """Shut The Books: forecasts laid as prediction cards, trick play, accuracy of forecasts."""


@group.command()
@rules_options
@click.option("--forecast-policy", type=click.Choice(FORECASTS), default="heuristic", show_default=True)
@click.option("--play-policy", type=click.Choice(PLAYS), default="heuristic", show_default=True)
@rollout_options
@run_options(10_000, "games")
@output_options
@user_errors
def simulate(players, scoring, void_trump, tie_break, forecast_policy, play_policy, rollout_pool, rollout_worlds,
             play_worlds, n, seed, chunks, fmt, out_dir, table_format, quiet):
    """Whole games (as many hands as players, rotating start, STK-9): win share and total per seat."""
    refuse_unused([forecast_policy], [play_policy])
    out = check_out(out_dir)
    from ludolab.analysis.results import provenance
    from ludolab.sim import books as S

    rules = make_rules(players, scoring, void_trump, tie_break)
    f, p = policies(forecast_policy, play_policy, rollout_pool, rollout_worlds, play_worlds)
    df = S.simulate(rules, f, p, n, seed, chunks, progress_flag(quiet))
    rec = {"rules": rules.describe(), "forecast": forecast_policy, "play": play_policy, "games": n, "seed": seed}
    emit(fmt, record=rec, table=df, title="Shut The Books, whole games")
    save_outputs(out, {"books_simulate": df}, {}, provenance("books", **df.attrs["provenance"],
                                                             forecast=forecast_policy, play=play_policy),
                 table_format)


@group.command()
@hand_rules_options
@click.option("--forecast-policy", type=click.Choice(FORECASTS), default="heuristic", show_default=True)
@click.option("--play-policy", type=click.Choice(PLAYS), default="heuristic", show_default=True)
@rollout_options
@run_options(20_000)
@output_options
@user_errors
def accuracy(players, scoring, void_trump, forecast_policy, play_policy, rollout_pool, rollout_worlds,
             play_worlds, n, seed, chunks, fmt, out_dir, table_format, quiet):
    """How accurate forecasts are: exact / off by 1 / off by 2+, mean score, MAE, by seat and by number of
    prediction cards, the cost of forecasting first; 95% CIs (seat 0 forecasts first in every hand)."""
    refuse_unused([forecast_policy], [play_policy])
    out = check_out(out_dir)
    from ludolab.analysis import books as A
    from ludolab.analysis.results import provenance
    from ludolab.sim import books as S

    rules = make_rules(players, scoring, void_trump)
    acc = S.accuracy(rules, [policies(forecast_policy, play_policy, rollout_pool, rollout_worlds, play_worlds)], n,
                     seed, chunks, progress_flag(quiet))
    t = A.accuracy_tables(acc)
    rec = {"rules": rules.describe(), "forecast": acc.configs[0][0], "play": acc.configs[0][1], "hands": n,
           "seed": seed}
    tables = {k: t[k].drop(columns=["forecast", "play"]) for k in
              ("overall", "by_seat", "by_predictions", "first_cost", "off_distribution")}
    bins, summ = acc.calibration()
    if len(summ):
        tables["calibration"] = summ.drop(columns=["forecast", "play"])
        tables["reliability"] = bins.drop(columns=["forecast", "play"])
        t["calibration"], t["reliability"] = summ, bins
    _emit_tables(fmt, "Shut The Books, prediction accuracy", rec, tables)
    if out is not None:
        meta = provenance("books", **acc.provenance, forecast=forecast_policy, play=play_policy)
        figs = {"books_accuracy_by_seat": A.fig_by_seat(t["by_seat"], rules),
                "books_accuracy_by_predictions": A.fig_by_predictions(t["by_predictions"], rules),
                "books_off_distribution": A.fig_off_distribution(t["off_distribution"], rules)}
        if "calibration" in t:
            figs["books_reliability"] = A.fig_reliability(t["reliability"], t["calibration"], rules)
        save_outputs(out, {f"books_accuracy_{k}": v for k, v in t.items()}, figs, meta, table_format)


@group.command()
@hand_rules_options
@click.option("--forecast-policy", "forecasts", type=click.Choice(FORECASTS), multiple=True,
              help="Forecast policies to compare (repeat; default heuristic, zero, random; rollout is slow).")
@click.option("--play-policy", "plays", type=click.Choice(PLAYS), multiple=True,
              help="Play policies to compare (repeat; default heuristic, random; rollout is slow).")
@rollout_options
@run_options(20_000)
@output_options
@user_errors
def compare(players, scoring, void_trump, forecasts, plays, rollout_pool, rollout_worlds, play_worlds, n,
            seed, chunks, fmt, out_dir, table_format, quiet):
    """Every forecast x play policy pair on the same deals (common random numbers): accuracy and the paired
    difference in mean hand score against the first pair, with 95% CIs."""
    refuse_unused(forecasts, plays)
    out = check_out(out_dir)
    from ludolab.analysis import books as A
    from ludolab.analysis.results import provenance
    from ludolab.sim import books as S

    rules = make_rules(players, scoring, void_trump)
    forecasts = forecasts or DEFAULT_FORECASTS
    plays = plays or DEFAULT_PLAYS
    configs = [(f, p) for f in dict.fromkeys(forecasts) for p in dict.fromkeys(plays)]
    acc = S.accuracy(rules, [policies(f, p, rollout_pool, rollout_worlds, play_worlds) for f, p in configs], n, seed,
                     chunks, progress_flag(quiet))
    t = A.accuracy_tables(acc)
    ov = t["overall"].merge(t["paired"][["forecast", "play", "diff_vs_first_config", "diff_vs_first_config_ci_low",
                                         "diff_vs_first_config_ci_high"]], on=["forecast", "play"])
    ov = ov.merge(t["first_cost"].drop(columns=["hands"]), on=["forecast", "play"])
    rec = {"rules": rules.describe(), "hands": n, "seed": seed,
           "baseline": f"{configs[0][0]} / {configs[0][1]}"}
    _emit_tables(fmt, "Shut The Books, policies compared on the same deals", rec, {"policies": ov})
    if out is not None:
        meta = provenance("books", **acc.provenance, configs=[list(c) for c in configs])
        figs = {"books_compare_by_seat": A.fig_by_seat(t["by_seat"], rules),
                "books_compare_by_predictions": A.fig_by_predictions(t["by_predictions"], rules),
                "books_compare_off_distribution": A.fig_off_distribution(t["off_distribution"], rules)}
        save_outputs(out, {"books_compare": ov, "books_compare_by_seat": t["by_seat"]}, figs, meta, table_format)


@group.command()
@click.option("--players", type=click.Choice(("3", "4")), default="4", show_default=True)
@click.option("--rollout-hands", type=IntRange(0, 100_000), default=0, show_default=True,
              help="Also run the rollout forecaster (slow) on this many deals per variant.")
@run_options(20_000)
@output_options
@user_errors
def variants(players, rollout_hands, n, seed, chunks, fmt, out_dir, table_format, quiet):
    """Scoring variants (rulebook, exact-only, linear; STK-8), the heuristic forecaster and player re-tuned to each:
    prediction cards laid, accuracy, skilled-minus-random spread and the cost of forecasting first."""
    out = check_out(out_dir)
    from ludolab.analysis import books as A
    from ludolab.analysis.results import provenance

    df = A.variants(int(players), n, seed, rollout_hands=rollout_hands)
    rec = {"players": int(players), "hands": n, "seed": seed}
    _emit_tables(fmt, "Shut The Books, scoring variants", rec, {"variants": df})
    if out is not None:
        save_outputs(out, {"books_variants": df}, {"books_variants": A.fig_variants(df, int(players))},
                     provenance("books", hands=n, seed=seed, players=int(players)), table_format)


# the accuracy study tracks many figures at once and has no single main metric to stop on
accuracy.no_precision = compare.no_precision = variants.no_precision = True


@group.command()
@click.argument("record_file", type=click.Path(dir_okay=False))
@click.option("--scoring", type=click.Choice(SCORINGS), default="rulebook", show_default=True)
@click.option("--void-trump", type=click.Choice(("counts", "ignored")), default="counts", show_default=True)
@click.option("--format", "fmt", type=click.Choice(("table", "json", "csv")), default="table", show_default=True)
@user_errors
def score(record_file, scoring, void_trump, fmt):
    """Replay and score a real hand written as JSON (players, start, hands, predictions, tricks; RECORD_FILE
    "-" reads it from stdin); an illegal record is refused naming the trick and the clause it breaks."""
    import pandas as pd

    from ludolab.sim import books as S

    from pathlib import Path

    import sys

    from ludolab.stdlib.jsonfile import read_input

    # "-": the record on stdin (read up to the input size limit)
    source = read_input(sys.stdin, "hand record", S.RecordError) if record_file == "-" else Path(record_file)
    res = S.score_record(source, scoring=scoring, void_trump=void_trump)
    seats = [{k: s[k] for k in ("seat", "tricks_won", "closed", "off", "score")} for s in res["seats"]]
    if fmt == "json":
        click.echo(json.dumps({"seats": seats}, indent=2))
        return
    df = pd.DataFrame(seats)
    emit(fmt, table=df, title=f"Shut The Books, hand scored ({scoring} scoring, void trump {void_trump})")


@click.command("advise")
@click.option("--players", type=click.Choice(("3", "4")), default="4", show_default=True)
@click.option("--scoring", type=click.Choice(SCORINGS), default="rulebook", show_default=True)
@click.option("--void-trump", type=click.Choice(("counts", "ignored")), default="counts", show_default=True)
@click.option("--hand", required=True, help='Your hand before forecasting, e.g. "R15 R9 B10 ..." (STK-2).')
@click.option("--position", type=IntRange(), required=True, help="Your position in forecast order (1 = first).")
@click.option("--earlier", multiple=True,
              help='Prediction cards laid by each player before you, in order; "" for one who laid none.')
@click.option("--pool", type=IntRange(1, 12), default=8, show_default=True,
              help="Cards considered for prediction (the best-rated ones); candidates are their subsets of <= 5.")
@click.option("--worlds", type=IntRange(1, 10_000), default=32, show_default=True,
              help="Sampled deals per candidate in the first round of successive halving.")
@click.option("--half-width", type=FloatRange(min=0.001), default=0.1, show_default=True,
              help="Target 95% CI half-width (points) of the expected score of the final candidates.")
@click.option("--max-worlds", type=IntRange(1, 1_000_000), default=40_000, show_default=True,
              help="Stop narrowing the final candidates' CIs once each has this many sampled deals (the halving "
                   "rounds before may already have given them more).")
@click.option("--top", type=IntRange(1, 500), default=10, show_default=True)
@click.option("--seed", type=IntRange(min=0), default=0, show_default=True)
@click.option("--format", "fmt", type=click.Choice(("table", "json", "csv")), default="table", show_default=True)
@user_errors
def advise(players, scoring, void_trump, hand, position, earlier, pool, worlds, half_width, max_worlds, top, seed,
           fmt):
    """Which prediction cards to lay: the top prediction sets by expected hand score, with P(exact) and
    P(off by 1), 95% CIs, from rollouts under heuristic play for everyone (STK-4).  With --play: which
    card to play to the trick (see ``ludolab books advise --play --help``)."""
    from ludolab.sim import books as S
    from ludolab.sim.kernel_cache import light_loads
    from ludolab.stdlib.books import BooksRules

    from .text_table import TextTable

    light_loads()  # an answer at the table: cached kernels load without numba's compiler set-up
    rules = BooksRules(int(players), scoring=scoring, void_trump=void_trump)
    rows, search = S.advise_rows(rules, hand, position, list(earlier), pool=pool, worlds=worlds,
                                 half_width=half_width, max_worlds=max_worlds, seed=seed, top=top)
    best = rows[0]
    reached = (best["expected_score_ci_high"] - best["expected_score_ci_low"]) / 2
    if reached > half_width:
        click.echo(f"note: the best set's 95% CI half-width is {reached:.3g} points, above --half-width "
                   f"{half_width:g}: its {int(best['worlds']):,} sampled deals reach --max-worlds {max_worlds:,} "
                   "(raise it for a narrower CI)", err=True)
    rec = {"rules": rules.describe(), "position": position,
           "advice": "lay " + (" ".join(best["lay"]) if best["lay"] else "no prediction card"),
           "expected_score": float(best["expected_score"]), "ci_half_width": float(reached),
           "p_exact": float(best["p_exact"]), "play_policy": "heuristic for everyone; later players forecast with the heuristic",
           **{k: v for k, v in search.items() if k in ("candidates", "rollouts", "seed")}}
    columns = S.ADVISE_COLUMNS
    if fmt == "json":
        emit("json", record=rec, table=TextTable(rows, columns, like_pandas=True))
        return
    # a few lines to print: a small text table, no pandas import at the table
    shown = [{**r, "lay": " ".join(r["lay"]) if r["lay"] or fmt == "csv" else "(none)"} for r in rows]
    if fmt == "table":
        emit("table", record=rec, table=TextTable(shown, columns[:-1], like_pandas=True),
             title="Shut The Books, forecast advice")
    else:
        emit("csv", table=TextTable(shown, columns, like_pandas=True))


# ------------------------------------------------------------------ advice at a card-play decision
#: Worlds sampled by ``advise --play`` without --budget: measured to answer within 2 s once compiled
#: (about 1 s at the first lead of a hand, 15 or 16 legal cards, on a loaded 2-core machine).  When the
#: value is a game total with later hands to play out, the default is divided by the hands left.
PLAY_ADVICE_BUDGET = 400

_SITUATION_OPTIONS = ("players", "scoring", "void_trump", "tie_break", "hand", "start", "seat", "predictions",
                      "tricks", "trick", "hand_number", "hands", "totals")


def _split_seats(text: str) -> list[str]:
    return [part.strip() for part in text.split("/")]


def situation_from_options(players, scoring, void_trump, tie_break, hand, start, seat, predictions, tricks, trick,
                           hand_number, hands, totals) -> dict:
    """The situation dict of ``advise --play``'s command-line form (the same fields as the JSON form).

    ``--predictions`` lists each seat's prediction cards, seat 0 first, seats separated by ``/``;
    ``--tricks`` the closed tricks in order separated by ``/``, each its cards from the leader, optionally
    ending ``close CARD``; ``--trick`` the trick in progress from its leader.
    """
    sit: dict = {}
    for key, v in (("players", players), ("scoring", scoring), ("void_trump", void_trump),
                   ("tie_break", tie_break), ("start", start), ("seat", seat), ("hand", hand), ("trick", trick)):
        if v is not None:
            sit[key] = int(v) if key == "players" else v
    if predictions is not None:
        sit["predictions"] = _split_seats(predictions)
    if tricks is not None and tricks.strip():
        out = []
        for i, part in enumerate(_split_seats(tricks)):
            words = part.replace(",", " ").split()
            if "close" in (w.lower() for w in words):
                at = [w.lower() for w in words].index("close")
                if at != len(words) - 2:
                    raise InputError(f"--tricks trick {i + 1}: write its cards, then optionally 'close CARD' "
                                     f"(e.g. \"B4 B9 B1 R3 close B3\"), not {part!r}")
                out.append({"cards": " ".join(words[:at]), "close": words[-1]})
            else:
                out.append({"cards": " ".join(words)})
        sit["tricks"] = out
    if hand_number is not None or hands is not None or totals is not None:
        game = {}
        if hand_number is not None:
            game["hand_number"] = hand_number
        if hands is not None:
            game["hands"] = hands
        if totals is not None:
            try:
                ascii_digits(totals, "--totals", InputError)
                game["totals"] = [int(x) for x in totals.replace(",", " ").split()]
            except ValueError:
                raise InputError(f"--totals: one whole number per seat, e.g. \"6 -3 4 2\", not {totals!r}") from None
        sit["game"] = game
    return sit


def _read_situation(source: str) -> dict:
    import sys
    from pathlib import Path

    from ludolab.stdlib.errors import SituationError
    from ludolab.stdlib.jsonfile import load_json, read_input

    if source == "-":
        return load_json(read_input(sys.stdin, "situation", SituationError), "situation", SituationError)
    return load_json(Path(source), "situation", SituationError)


def _play_advice_options(fn):
    opts = [
        click.option("--play", is_flag=True, required=True,
                     help="Advise the card to play to the trick (or the prediction card to close, STK-5, STK-6)."),
        click.option("--situation", "situation_file", default=None, metavar="FILE",
                     help='The situation as a JSON file ("-" reads standard input); or give the fields below.'),
        click.option("--players", type=click.Choice(("3", "4")), default=None, help="3 or 4 (default 4, STK-1)."),
        click.option("--scoring", type=click.Choice(SCORINGS), default=None, help="Default rulebook (STK-8)."),
        click.option("--void-trump", type=click.Choice(("counts", "ignored")), default=None,
                     help="Default counts (STK-6)."),
        click.option("--tie-break", type=click.Choice(("last-start", "shared")), default=None,
                     help="Default last-start (STK-9)."),
        click.option("--hand", default=None, help='Your cards in hand now, e.g. "R15 R9 B10" (STK-2).'),
        click.option("--start", type=IntRange(), default=None, help="The seat (0-based) that led the hand's first trick."),
        click.option("--seat", type=IntRange(), default=None,
                     help="Your seat (0-based); checked: it must be the seat to act."),
        click.option("--predictions", default=None,
                     help='Every prediction card laid, open or closed, seat 0 first, seats separated by "/": '
                          '"B3 / / Y7 P2 / R1" (STK-4).'),
        click.option("--tricks", default=None,
                     help='The closed tricks in order, separated by "/", each its cards from the leader, '
                          'then "close CARD" where the winner chose among matches: "B10 B11 B12 B13 / Y13 Y3 Y4 '
                          'Y5 close Y15" (STK-5, STK-6).'),
        click.option("--trick", default=None, help='The trick in progress, from its leader: "Y2 Y8".'),
        click.option("--hand-number", type=IntRange(), default=None,
                     help="Hands finished before this one in the game (with --hands; default: a one-hand game)."),
        click.option("--hands", type=IntRange(), default=None,
                     help="Hands in the game (STK-9); the value is then the game total at its end."),
        click.option("--totals", default=None, help='Each seat\'s points from the finished hands: "6 -3 4 2".'),
    ]
    for o in reversed(opts):
        fn = o(fn)
    return fn


@click.command("advise")
@_play_advice_options
@advice_options(default_budget=PLAY_ADVICE_BUDGET)
@user_errors
def advise_play(play, situation_file, players, scoring, void_trump, tie_break, hand, start, seat, predictions, tricks,
                trick, hand_number, hands, totals, budget, half_width, max_worlds, seed, continuation, fmt):
    """Which card to play to the trick (or which prediction card to close): every legal action with its
    expected points and 95% CI, best first, over deals of the unseen cards consistent with what you know
    (STK-5: hand sizes, colours shown out of), each played out by the continuation for every seat (default
    the heuristic).  The value is this hand's points (or, with --hands, the game total).  Give the situation
    as --situation FILE (JSON) or with --hand, --predictions, --tricks, --trick, --start (the README shows
    both)."""
    from ludolab.sim import advice
    from ludolab.sim import books as S
    from ludolab.sim import books_situation as BS
    from ludolab.sim.kernel_cache import light_loads
    from ludolab.stdlib import books as B

    light_loads()  # an answer at the table: cached kernels load without numba's compiler set-up
    fields = dict(players=players, scoring=scoring, void_trump=void_trump, tie_break=tie_break, hand=hand,
                  start=start, seat=seat, predictions=predictions, tricks=tricks, trick=trick,
                  hand_number=hand_number, hands=hands, totals=totals)
    named = [f"--{k.replace('_', '-')}" for k, v in fields.items() if v is not None]
    if situation_file is not None:
        if named:
            raise InputError(f"give the situation either as --situation FILE or as options, not both "
                             f"(--situation with {', '.join(named)})")
        sit = _read_situation(situation_file)
    else:
        if hand is None:
            raise InputError("give the situation: --situation FILE (JSON), or at least --hand and --predictions "
                             "(see ludolab books advise --play --help)")
        sit = situation_from_options(**fields)
    pos = BS.to_position(sit)
    hands_left = int(pos.obs[B.S_NHANDS]) - int(pos.obs[B.S_HANDNO])
    if hands_left > 1 and budget_default(budget):
        budget = max(50, PLAY_ADVICE_BUDGET // hands_left)  # whole later hands are played out too: same time
    game = S.step_game()
    continuation = continuation_of(continuation, game, pos.rules)
    budget = slow_budget(budget, continuation, not budget_default(budget))
    adv = advice.advise(game, pos.rules, pos.n_players, pos.seat, pos.obs, measure="books_points",
                        budget=budget, half_width=half_width, max_worlds=max_worlds, key=seed,
                        continuation=continuation)
    view = BS.from_obs(pos.rules, pos.obs)
    what = (f"close a prediction card after winning trick {len(view['tricks']) + 1}" if view["phase"] == "close"
            else f"play a card to trick {len(view['tricks']) + 1} of {view['hand_lasts']}")
    rec = {"rules": pos.books_rules.describe(),
           "seat": f"{pos.seat} (numbered from 0, STK-3)", "decision": what,
           "hand": view["hand"] or "(none)", "trick": view["trick"] or "(none: you lead)",
           "open": " / ".join(x or "-" for x in view["open"])}
    if hands_left > 1 or int(pos.obs[B.S_NHANDS]) > 1:
        rec["scope"] = BS.value_scope(pos)
    emit_advice(adv, label=lambda a: BS.action_label(pos.rules, pos.obs, a),
                title="Shut The Books, card-play advice", record=rec, fmt=fmt, seat_name=f"seat {pos.seat}",
                unit="points of this hand" if int(pos.obs[B.S_NHANDS]) == 1 else "game total at the end of the game")


def budget_default(budget) -> bool:
    """Whether ``budget`` is the default of ``advise --play`` (no --budget on the command line)."""
    from .cli_common import given

    return not given("budget")


class _AdviseCommand(click.Command):
    """``advise``: the forecast advice, or with ``--play`` the card-play advice (two commands, one name:
    their budget options share names but not defaults)."""

    def __init__(self, forecast: click.Command, play: click.Command):
        super().__init__("advise", params=list(forecast.params) + [p for p in play.params if p.name == "play"],
                         help=forecast.help,
                         short_help="Which prediction cards to lay; with --play, which card to play.")
        self.forecast, self.play = forecast, play

    @staticmethod
    def _wants_play(args) -> bool:
        args = list(args)
        head = args[:args.index("--")] if "--" in args else args
        return "--play" in head

    def make_context(self, info_name, args, parent=None, **extra):
        from .scale import refuse_repeated_options

        cmd = self.play if self._wants_play(args) else self.forecast
        refuse_repeated_options(cmd)  # as every command: an option given twice is refused
        return cmd.make_context(info_name, args, parent=parent, **extra)

    def invoke(self, ctx):  # pragma: no cover - the context always belongs to one of the two
        return ctx.command.invoke(ctx)


group.add_command(_AdviseCommand(advise, advise_play))
