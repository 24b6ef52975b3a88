"""``ludolab shelf``: Shelve the Book from the command line (rules clauses SHB-n in seeds/shelve_the_book.md)."""

from __future__ import annotations

import click

from .cli_common import (FORMATS, CommandGroup, InputError, check_out, emit, output_options, progress_flag, refuse, save_outputs,
                         seed_options, user_errors)

VARIANT_NAMES = ("standard", "flat", "linear", "pairs", "columns")
POLICY_HELP = ("random, greedy or potential, optionally with parameters, e.g. "
               "potential:open_run2=0.5,draw_below=1")


def rules_options(fn):
    """--players, --variant, --tiebreak, --deck (SHB-1, SHB-2, SHB-11, SHB-12)."""
    opts = [
        click.option("--players", type=int, default=4, show_default=True, help="Players, 2..5 (SHB-2)."),
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
    """Score FILE, a tableau {"shelves": [[5 cards], [5 cards], [5 cards]]} (top shelf first); a card is
    {"field", "colour", "author", "number"} or a deck id.  Prints the total and every combination (shelf
    1-3 from the top, or column 1-5 under --variant columns; kind; positions from the left or the top;
    cards; points)."""
    import json
    from pathlib import Path

    from ludolab.sim import shelf as S
    from ludolab.stdlib.shelf import ShelfRules, TableauError, load_deck, parse_tableau

    from .text_table import TextTable

    deck = load_deck(deck_file)
    from ludolab.stdlib.jsonfile import load_json, read_input

    obj = load_json(Path(file) if file != "-" else read_input(click.get_text_stream("stdin"), "tableau", TableauError),
                    "tableau", TableauError)
    if not isinstance(obj, dict):  # parsed JSON (a JSON string is not a tableau, nor JSON text to read again)
        raise TableauError('a tableau is a JSON object {"shelves": [[5 cards], [5 cards], [5 cards]]}')
    tab = parse_tableau(obj, deck)
    sc = S.score_tableau(tab, ShelfRules(players=2, variant=variant, deck=deck if len(deck) >= 32 else None))
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
    df = TextTable(rows, ["shelf", "column", "kind", "positions", "cards", "points"])
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
@click.option("--players", type=int, default=4, show_default=True, help="Players, 2..5.")
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
@click.option("--fields", type=int, default=6, show_default=True, help="Generated deck: number of fields.")
@click.option("--colours", type=int, default=5, show_default=True, help="Generated deck: number of colours.")
@click.option("--numbers", default="1-90", show_default=True, help="Generated deck: accession number range LOW-HIGH.")
@click.option("--correlation", type=float, default=0.0, show_default=True,
              help="Generated deck: share of cards whose colour follows their field, 0..1.")
@click.option("--size", type=int, default=90, show_default=True, help="Generated deck: number of cards.")
@click.option("--deck-seed", type=click.IntRange(min=0), default=0, show_default=True, help="Generated deck: seed.")
@click.option("--write", "write_file", type=click.Path(dir_okay=False), default=None,
              help="Write the deck as CSV to this file (a new file: an existing one is never overwritten).")
@click.option("--sensitivity", is_flag=True, help="Run the deck sensitivity study (Monte Carlo).")
@click.option("--players", type=int, default=4, show_default=True, help="Players for --sensitivity.")
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
        m = re.fullmatch(r"\s*(\d+)\s*-\s*(\d+)\s*", numbers)
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
