"""``ludolab shelf``: Shelve the Book from the command line (rules clauses SHB-n in seeds/shelve_the_book.md)."""

from __future__ import annotations

import sys

import click

from .cli_common import (FORMATS, CommandGroup, FloatRange, InputError, IntRange, check_out, emit, output_options,
                         progress_flag, refuse, save_outputs, seed_options, user_errors)

VARIANT_NAMES = ("standard", "flat", "linear", "pairs", "columns")
POLICY_HELP = ("random, greedy or potential, optionally with parameters, e.g. "
               "potential:open_run2=0.5,draw_below=1")


def rules_options(fn):
    """--players, --variant, --tiebreak, --deck (SHB-1, SHB-2, SHB-11, SHB-12)."""
    opts = [
        click.option("--players", type=IntRange(), default=4, show_default=True, help="Players, 2..5 (SHB-2)."),
        click.option("--variant", type=click.Choice(VARIANT_NAMES), default="standard", show_default=True,
                     help="Scoring variant (SHB-11): standard 1/3/5, flat 1/2/3, linear, pairs, columns."),
        click.option("--tiebreak", type=click.Choice(("shared", "sequences")), default="shared", show_default=True,
                     help="Ties share the win, or the fewest sequence points lose (SHB-12)."),
        click.option("--deck", "deck_file", default=None,
                     help="Deck CSV (columns id, field, colour, author, number); default: the assumed deck "
                          "assumed-90 (SHB-1)."),
    ]
    for o in reversed(opts):
        fn = o(fn)
    return fn


def make_rules(players, variant, tiebreak, deck_file):
    from ludolab.stdlib.shelf import ShelfRules, load_deck

    return ShelfRules(players=players, variant=variant, tiebreak=tiebreak, deck=load_deck(deck_file))


@click.group(name="shelf", cls=CommandGroup, short_help="Shelve the Book: simulate, score, compare, variants, deck.")
def group():
    """Shelve the Book: tableau scoring, drafting policies, scoring variants and deck studies.

    The default deck is assumed (the real deck list is unpublished); results say so.
    """


@group.command(short_help="Monte Carlo of one policy per seat, with 95% CIs.")
@rules_options
@click.option("--policy", "policies", multiple=True,
              help=f"One for every seat, or one per seat (repeat): {POLICY_HELP}. Default: potential.")
@seed_options(20_000)
@output_options
@user_errors
def simulate(players, variant, tiebreak, deck_file, policies, games, seed, chunks, fmt, out_dir, table_format, quiet):
    """Play deals with a policy in each seat: score, win share and turn-order effects per seat."""
    import pandas as pd

    from ludolab.analysis import shelf as A
    from ludolab.analysis.results import provenance
    from ludolab.sim import shelf as S

    out_dir = check_out(out_dir)
    rules = make_rules(players, variant, tiebreak, deck_file)
    pols = list(policies) or ["potential"]
    res = S.simulate(rules, [pols], games, seed, chunks, progress_flag(quiet), track=True)
    rows = []
    for s, p in enumerate(res.configs[0]):
        rows.append({"seat": s, "policy": p.label, **res.seat_mean(0, s).as_dict("mean_score"),
                     **res.seat_win(0, s).as_dict("win_share"), "draw_share": res.draw_share(0, s)})
    seats = pd.DataFrame(rows)
    pos = A.position_table(res, 0)
    ovd = res.offer_vs_draw(0)
    rec = {"rules": rules.label(), "deck": rules.deck.label, "games": res.games, "seed": seed,
           "chunks": res.provenance["chunks"], **res.table_mean(0).as_dict("mean_score"),
           "p_offer_better": ovd["p_offer_better"], "p_draw_better": ovd["p_draw_better"]}
    emit(fmt, rec, seats, title="Shelve the Book: Monte Carlo")
    if fmt == "table":
        click.echo("\nBy turn order (position 1 starts):")
        click.echo(pos.drop(columns=["policy", "deck"]).to_string(index=False, float_format=lambda x: f"{x:.4g}"))
    meta = provenance("shelf", **A.rules_meta(rules, policies=[p.label for p in res.configs[0]], games=games,
                                              seed=seed, chunks=res.provenance["chunks"], command="shelf simulate"))
    if out_dir is not None:
        dist = A.fig_score_distribution(S.SimResult(rules, res.configs, res.games, res.acc), rules.deck.label)
        save_outputs(out_dir, {"shelf_simulate_seats": seats, "shelf_simulate_positions": pos},
                     {"shelf_simulate_scores": dist}, meta, table_format)


@group.command(short_help="Score a tableau given as JSON.")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--variant", type=click.Choice(VARIANT_NAMES), default="standard", show_default=True,
              help="Scoring variant (SHB-11).")
@click.option("--deck", "deck_file", default=None, help="Deck CSV the card ids refer to (default assumed-90).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
              help="How the score is printed.")
@user_errors
def score(file, variant, deck_file, fmt):
    """Score FILE (- reads standard input), a tableau {"shelves": [[5 cards], [5 cards], [5 cards]]} (top
    shelf first); a card is {"field", "colour", "author", "number"} or a deck id.  Prints the total and
    every combination (shelf 1-3 from the top, or column 1-5 under --variant columns; kind; positions from the left or the top;
    cards; points).  One tableau is scored by the pure-Python scorer, which answers before the compiled
    one has loaded (the same points)."""
    import json
    from pathlib import Path

    from ludolab.sim.shelf_score import score_tableau_reference
    from ludolab.stdlib.shelf import ShelfRules, TableauError, load_deck, parse_tableau

    from .text_table import TextTable

    deck = load_deck(deck_file)
    from ludolab.stdlib.jsonfile import load_json, read_input

    obj = load_json(Path(file) if file != "-" else read_input(sys.stdin, "tableau", TableauError),
                    "tableau", TableauError)
    if not isinstance(obj, dict):  # parsed JSON (a JSON string is not a tableau, nor JSON text to read again)
        raise TableauError('a tableau is a JSON object {"shelves": [[5 cards], [5 cards], [5 cards]]}')
    tab = parse_tableau(obj, deck)
    # one tableau: the pure-Python scorer answers before the compiled one has loaded (the same points)
    sc = score_tableau_reference(tab, ShelfRules(players=2, variant=variant, deck=deck if len(deck) >= 32 else None))
    combos = []
    for c in sc.combinations:
        what, num = c["line"].split()
        num = int(num)
        on_shelf = what == "shelf"
        cards = [tab.ids[(num - 1) * 5 + p - 1] if on_shelf else tab.ids[(p - 1) * 5 + num - 1]
                 for p in c["positions"]]
        combos.append({"shelf": num if on_shelf else None, "column": None if on_shelf else num, "kind": c["kind"],
                       "positions": c["positions"], "cards": cards, "points": c["points"]})
    if fmt == "json":
        click.echo(json.dumps({"total": sc.total, "variant": variant, "combinations": combos}, indent=2))
        return
    sep = " " if fmt == "csv" else ","
    rows = [{**c, "shelf": "" if c["shelf"] is None else str(c["shelf"]),
             "column": "" if c["column"] is None else str(c["column"]),
             "positions": sep.join(map(str, c["positions"])), "cards": " ".join(c["cards"])} for c in combos]
    df = TextTable(rows, ["shelf", "column", "kind", "positions", "cards", "points"], like_pandas=True)
    if fmt == "csv":
        emit("csv", table=df)
        return
    emit("table", {"total": sc.total, "variant": variant}, df if len(df) else None, title="Tableau score")


@group.command(short_help="Compare policies in self-play on the same deals (paired CIs).")
@rules_options
@click.option("--policy", "policies", multiple=True, help=f"A policy to compare (repeat): {POLICY_HELP}. "
                                                          "Default: random, greedy, potential.")
@seed_options(5_000)
@output_options
@user_errors
def compare(players, variant, tiebreak, deck_file, policies, games, seed, chunks, fmt, out_dir, table_format, quiet):
    """Each policy in every seat, all on the same deals: mean score, paired difference to the first
    policy, draw share, first-player win share, points by kind, offer against blind draw."""
    from ludolab.analysis import shelf as A
    from ludolab.analysis.results import provenance

    out_dir = check_out(out_dir)
    rules = make_rules(players, variant, tiebreak, deck_file)
    pols = list(policies) or list(A.DEFAULT_POLICIES)
    df, res = A.policy_table(rules, pols, games, seed, chunks, progress_flag(quiet), track=True)
    from .scale import games_used

    games = games_used(games)  # with --precision: the games the runs used
    rec = {"rules": rules.label(), "deck": rules.deck.label, "games": games, "seed": seed,
           "chunks": res.provenance["chunks"]}
    emit(fmt, rec, df, title="Shelve the Book: policies on the same deals")
    meta = provenance("shelf", **A.rules_meta(rules, policies=list(df["policy"]), games=games, seed=seed,
                                              command="shelf compare"))
    if out_dir is not None:
        save_outputs(out_dir, {"shelf_compare": df},
                     {"shelf_compare_scores": A.fig_score_distribution(res, rules.deck.label),
                      "shelf_compare_sources": A.fig_points_sources(df, f"Where the points come from\n{rules.deck.label}")},
                     meta, table_format)


@group.command(short_help="What each scoring variant does to the game.")
@click.option("--players", type=IntRange(), default=4, show_default=True, help="Players, 2..5.")
@click.option("--policy", "skilled", default="potential", show_default=True,
              help=f"The skilled policy set against random play: {POLICY_HELP}.")
@click.option("--deck", "deck_file", default=None, help="Deck CSV (default: the assumed deck assumed-90).")
@seed_options(1_000)
@output_options
@user_errors
def variants(players, skilled, deck_file, games, seed, chunks, fmt, out_dir, table_format, quiet):
    """Every scoring variant (SHB-11) on the same deals: the spread between skilled and random play
    and the share of points per kind of combination."""
    from ludolab.analysis import shelf as A
    from ludolab.analysis.results import provenance
    from ludolab.sim import shelf as S
    from ludolab.stdlib.shelf import ShelfRules, load_deck

    out_dir = check_out(out_dir)
    deck = load_deck(deck_file)
    ShelfRules(players=players, deck=deck)  # validates players and deck size
    S.parse_policy(skilled)
    df = A.variant_table(players, skilled, games, seed, deck, progress_flag(quiet))
    from .scale import games_used

    games = games_used(games)  # with --precision: the games the runs used
    rec = {"players": players, "deck": deck.label, "skilled": skilled, "games": games, "seed": seed}
    emit(fmt, rec, df, title="Shelve the Book: scoring variants")
    meta = provenance("shelf", game_rules="shelf", deck=deck.label, players=players, skilled=skilled, games=games,
                      seed=seed, command="shelf variants")
    if out_dir is not None:
        save_outputs(out_dir, {"shelf_variants": df},
                     {"shelf_variant_spread": A.fig_ci_bars(df, "variant", "spread_sd",
                                                            f"Skill spread by scoring variant\n{deck.label}",
                                                            "spread (SD of a random player's score)"),
                      "shelf_variant_sources": A.fig_points_sources(df, "Share of points by kind, per variant",
                                                                    "variant", "share_", "share of points")},
                     meta, table_format)


@group.command(short_help="Describe a deck, write a generated one, or study deck sensitivity.")
@click.option("--deck", "deck_file", default=None, help="Deck CSV to describe (default: the assumed deck).")
@click.option("--generate", is_flag=True, help="Describe a generated deck instead (options below).")
@click.option("--fields", type=IntRange(), default=6, show_default=True, help="Generated deck: number of fields.")
@click.option("--colours", type=IntRange(), default=5, show_default=True, help="Generated deck: number of colours.")
@click.option("--numbers", default="1-90", show_default=True, help="Generated deck: accession number range LOW-HIGH.")
@click.option("--correlation", type=FloatRange(), default=0.0, show_default=True,
              help="Generated deck: share of cards whose colour follows their field, 0..1.")
@click.option("--size", type=IntRange(), default=90, show_default=True, help="Generated deck: number of cards.")
@click.option("--deck-seed", type=IntRange(min=0), default=0, show_default=True, help="Generated deck: seed.")
@click.option("--write", "write_file", type=click.Path(dir_okay=False), default=None,
              help="Write the deck as CSV to this file (a new file: an existing one is never overwritten).")
@click.option("--sensitivity", is_flag=True, help="Run the deck sensitivity study (Monte Carlo).")
@click.option("--players", type=IntRange(2, 5), default=4, show_default=True, help="Players for --sensitivity.")
@seed_options(500)
@output_options
@user_errors
def deck(deck_file, generate, fields, colours, numbers, correlation, size, deck_seed, write_file, sensitivity,
         players, games, seed, chunks, fmt, out_dir, table_format, quiet):
    """Describe a deck (the assumed default, a CSV, or a generated one); with --sensitivity, how the
    best policy's edge changes with the deck's composition."""
    import re
    from pathlib import Path

    from ludolab.stdlib.shelf import generate_deck, load_deck

    out_dir = check_out(out_dir)
    if write_file and Path(write_file).exists():
        raise InputError(f"--write {write_file!r} exists already: give a new file name (a deck file is never "
                         "overwritten)")
    if generate and deck_file:
        raise InputError("--generate and --deck exclude each other: describe a file or generate a deck")
    if not generate:
        refuse(["fields", "colours", "numbers", "correlation", "size", "deck_seed"],
               "describes a generated deck: add --generate (without it the deck is a file or the assumed deck)")
    if generate:
        m = re.fullmatch(r"\s*([0-9]+)\s*-\s*([0-9]+)\s*", numbers)
        if not m:
            raise InputError(f"cannot read --numbers {numbers!r}: write LOW-HIGH, e.g. 1-90")
        d = generate_deck(fields, colours, (int(m.group(1)), int(m.group(2))), correlation, size, deck_seed)
    else:
        d = load_deck(deck_file)
    if write_file:
        with open(write_file, "x", encoding="utf-8") as fh:
            fh.write(d.to_csv())
        click.echo(f"wrote {len(d)} cards to {write_file}", err=True)
    if not sensitivity:
        import pandas as pd

        cards = pd.DataFrame([d.card(i) for i in range(len(d))])
        emit(fmt, d.summary(), cards if fmt != "table" else None, title="Deck")
        return
    from ludolab.analysis import shelf as A
    from ludolab.analysis.results import provenance

    df = A.deck_table(players, "potential", games, seed, deck_seed=deck_seed, progress=progress_flag(quiet))
    from .scale import games_used

    games = games_used(games)  # with --precision: the games the runs used
    emit(fmt, {"players": players, "games": games, "seed": seed, "skilled": "potential"}, df,
         title="Shelve the Book: deck sensitivity")
    meta = provenance("shelf", players=players, games=games, seed=seed, command="shelf deck --sensitivity")
    if out_dir is not None:
        save_outputs(out_dir, {"shelf_decks": df},
                     {"shelf_deck_sensitivity": A.fig_ci_bars(df, "deck", "skilled_win_share",
                                                              "Win share of one potential player against greedy ones",
                                                              "win share", fair=1 / players)}, meta, table_format)


#: The situation's fields on the command line (option -> key of ludolab.sim.shelf_situation).
SITUATION_OPTIONS = {"players": "players", "seat": "seat", "variant": "variant", "tiebreak": "tiebreak",
                     "tableaus": "tableaus", "first_placed": "first_placed", "hand": "hand", "source": "source",
                     "offer_place": "offer_place", "taken": "taken", "drawn": "drawn", "offer": "offer",
                     "pile": "pile", "draw_two": "draw_two", "put_back_by": "put_back_by", "known": "known_hands"}
#: Worlds per decision by default, at most: fewer where the decision has many legal actions and much
#: of the game is still to play, so that the answer comes within 2 s once compiled (see
#: :func:`default_worlds`).
ADVISE_BUDGET = 100
#: Playout work of the default budget: worlds x legal actions x turns left to play.  One unit took
#: 24 microseconds on a quiet 2-core machine and up to 70 on a busy, shared one (2, 4 and 5 players,
#: every decision kind from the first turn to the last, up to 60 legal actions), so this is 0.5 to
#: 1.4 seconds.
ADVISE_WORK = 20_000
#: The fewest worlds the default budget samples (0.45 to 1.4 s at the largest decisions of 5 players).
ADVISE_MIN_WORLDS = 6


def default_worlds(n_actions: int, turns_left: int) -> int:
    """The default budget at a decision with ``n_actions`` legal actions and ``turns_left`` turns of
    the game still to play (this one included): :data:`ADVISE_WORK` shared out, between
    :data:`ADVISE_MIN_WORLDS` and :data:`ADVISE_BUDGET` worlds."""
    return int(max(ADVISE_MIN_WORLDS, min(ADVISE_BUDGET, ADVISE_WORK // max(1, n_actions * turns_left))))


def _seat_cards(pairs, option):
    """``SEAT=CARD`` options -> {"SEAT": "CARD"}."""
    from ludolab.stdlib.errors import SituationError

    out = {}
    for text in pairs:
        seat, eq, card = text.partition("=")
        if not eq or not seat.strip() or not card.strip():
            raise SituationError(f"cannot read {option} {text!r}: write SEAT=CARD, e.g. {option} 2=PHY-R-10")
        if seat.strip() in out:
            raise SituationError(f"{option} names seat {seat.strip()} twice: give each seat once")
        out[seat.strip()] = card.strip()
    return out


def _advice_options_lazy():
    """advice_cli.advice_options with this game's default budget."""
    from .advice_cli import advice_options

    return advice_options(default_budget=ADVISE_BUDGET)


def _situation_from_options(opts: dict) -> dict:
    """The situation dict of the command-line options that were given (None: not given)."""
    sit = {}
    for opt, key in SITUATION_OPTIONS.items():
        v = opts[opt]
        if v is None or v == ():
            continue
        if opt == "tableaus":
            v = list(v)
        elif opt in ("first_placed", "known"):
            v = _seat_cards(v, "--" + opt.replace("_", "-"))
        elif opt == "drawn":
            v = v.replace(",", " ").split()
        sit[key] = v
    return sit


@group.command(short_help="Every legal action at one decision, with its expected final score and 95% CI.")
@click.option("--situation", "situation_file", default=None,
              help="The situation as a JSON file ('-': standard input); see the README. Or give it with the "
                   "options below.")
@click.option("--players", type=IntRange(), default=None, help="Players, 2..5 (SHB-2).")
@click.option("--seat", type=IntRange(), default=None, help="Your seat, 1..players: the seat to act.")
@click.option("--variant", type=click.Choice(VARIANT_NAMES), default=None, help="Scoring variant (SHB-11); standard.")
@click.option("--tiebreak", type=click.Choice(("shared", "sequences")), default=None, help="Tie-break (SHB-12); shared.")
@click.option("--tableau", "tableaus", multiple=True,
              help="One per seat in seat order: the shelves top first joined by '/', the cards of a shelf left to "
                   "right separated by spaces, '.' an empty place, '' or '-' no card yet "
                   "(e.g. 'PHY-R-10 HIS-B-26/. ECO-G-47').")
@click.option("--first-placed", "first_placed", multiple=True,
              help="SEAT=CARD: a seat's first placed card where it is not the first of its top shelf.")
@click.option("--hand", default=None, help="Your hand card (at a place decision: the one held before this turn).")
@click.option("--offer", default=None, help="The offer cards in order, separated by spaces.")
@click.option("--pile", type=IntRange(), default=None, help="Cards left in the pile.")
@click.option("--draw-two/--no-draw-two", "draw_two", default=None,
              help="Whether drawing two is allowed (optional: checked against the pile, SHB-7).")
@click.option("--source", type=click.Choice(("offer", "draw")), default=None,
              help="At a place decision: you took an offer card, or drew two.")
@click.option("--offer-place", "offer_place", type=IntRange(), default=None,
              help="With --source offer: the offer place (1 = first) the card was taken from; default 1.")
@click.option("--taken", default=None, help="With --source offer: the card you took.")
@click.option("--drawn", default=None, help="With --source draw: the two cards drawn, the pile's top first.")
@click.option("--put-back-by", "put_back_by", type=IntRange(), default=None,
              help="The seat that put the pile's top card back, if nobody has drawn from the pile since.")
@click.option("--known", multiple=True, help="SEAT=CARD: a hand card the whole table knows (repeat).")
@click.option("--deck", "deck_file", default=None,
              help="Deck CSV the card ids refer to; default the assumed deck assumed-90 (SHB-1).")
@_advice_options_lazy()
@user_errors
def advise(situation_file, players, seat, variant, tiebreak, tableaus, first_placed, hand, offer, pile, draw_two,
           source, offer_place, taken, drawn, put_back_by, known, deck_file, budget, half_width, max_worlds, seed,
           continuation, fmt):
    """Advice at one decision of Shelve the Book: every legal action (take an offer card or draw two;
    which held card goes where, and which goes back on the pile) with the seat's expected final score
    of the game (points, not the chance to win) and its 95% CI, best first.

    A value is the mean over worlds sampled from what the seat knows (the pile's order, the other hands
    and cards drawn unseen dealt at random), the action played, then the rest of the game played by the
    continuation policy named in the output for every seat.  The last line says whether the best action
    is better than the second, equally good, or cannot be told apart yet at the budget used.  Without
    --budget a decision samples at most 100 worlds, fewer where it has many legal actions and much of
    the game left, to answer within 2 s."""
    from ludolab.sim import advice as AD
    from ludolab.sim import shelf as S
    from ludolab.sim import shelf_situation as SS
    from ludolab.sim.kernel_cache import light_loads
    from ludolab.stdlib.errors import SituationError
    from ludolab.stdlib.jsonfile import load_json, read_input
    from ludolab.stdlib.shelf import load_deck

    from .advice_cli import emit_advice

    light_loads()  # an answer at the table: cached kernels load without numba's compiler set-up

    opts = dict(players=players, seat=seat, variant=variant, tiebreak=tiebreak, tableaus=tableaus,
                first_placed=first_placed, hand=hand, offer=offer, pile=pile, draw_two=draw_two, source=source,
                offer_place=offer_place, taken=taken, drawn=drawn, put_back_by=put_back_by, known=known)
    given_opts = ["--" + k.replace("_", "-") for k, v in opts.items() if v is not None and v != ()]
    if situation_file is not None and given_opts:
        raise InputError(f"give the situation either as --situation FILE or as options, not both ({given_opts[0]} "
                         "was given too)")
    if situation_file is None and not given_opts:
        raise InputError("give the situation: --situation FILE (JSON, '-' for standard input) or the options "
                         "--players, --seat, --tableau (one per seat), --hand, --offer, --pile, ...")
    deck = load_deck(deck_file)
    if situation_file is not None:
        import sys
        from pathlib import Path

        src = read_input(sys.stdin, "situation", SituationError) if situation_file == "-" \
            else Path(situation_file)
        sit = load_json(src, "situation", SituationError)
    else:
        sit = _situation_from_options(opts)
    pos = SS.to_position(sit, deck)
    if pos.to_move != pos.seat:
        raise SituationError(f"seat {pos.seat + 1} has no decision here: "
                             + ("the game is over" if pos.to_move < 0 else f"seat {pos.to_move + 1} is to act")
                             + " (advice is for the seat to act: to_move must be your seat)")
    game = S.step_game()
    from .cli_common import given

    if not given("budget") and half_width is None:
        import numpy as np

        from ludolab.sim import shelf_kernels as K

        world = np.zeros(K.STATE_SIZE, dtype=np.int64)
        K.determinize(pos.rules, pos.obs, pos.seat, np.uint64(seed), world)
        n_actions = int(K.legal_actions(pos.rules, world, np.zeros(K.MAX_ACTIONS, dtype=np.int64)))
        budget = default_worlds(n_actions, 15 * pos.n_players - int(pos.obs[K.S_TURN]))
    from .advice_cli import continuation_of, slow_budget

    continuation = continuation_of(continuation, game, pos.rules)
    budget = slow_budget(budget, continuation, given("budget"))
    adv = AD.advise(game, pos.rules, pos.n_players, pos.seat, pos.obs, measure="shelf_points", budget=budget,
                    half_width=half_width, max_worlds=max_worlds, key=seed, continuation=continuation)
    view = SS.from_obs(pos.rules, pos.obs, deck)

    def label(a):
        return SS.action_label(pos.rules, pos.obs, a, deck)

    placed = sum(1 for t in view["tableaus"] for row in t for c in row.split() if c != SS.EMPTY)
    record = {"game": "Shelve the Book", "rules": pos.shelf_rules.label(), "seat": pos.seat + 1,
              "decision": view["decision"] + (f" (after {'drawing two' if view['source'] == 'draw' else 'taking ' + view['taken']})"
                                              if view["decision"] == "place" else ""),
              "turn": f"{placed + 1} of {15 * pos.n_players} (cards placed so far: {placed})",
              "hand": view["hand"], "offer": " ".join(view["offer"]), "pile": view["pile"],
              "scope": "the whole game: the value is the seat's final score when every tableau is complete"}
    emit_advice(adv, label, title="Shelve the Book: advice", record=record, fmt=fmt,
                unit="final points of the game")
