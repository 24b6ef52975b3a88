"""Bad inputs and failed writes: every one refused in one line with exit code 2, nothing lost."""

from __future__ import annotations

import errno

import pytest
from click.testing import CliRunner

from ludolab.analysis.cli import cli


def one_line(res) -> str:
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error:"), res.output
    return lines[0]


def invoke(*args, **kw):
    return CliRunner().invoke(cli, list(args), **kw)


# ------------------------------------------------------------------ inputs have a size limit
@pytest.mark.parametrize("args", [("books", "score", "/dev/zero"), ("shelf", "score", "/dev/zero"),
                                  ("shelf", "score", "--deck", "/dev/zero", "x.json"),
                                  ("box", "simulate", "--policy", "table:/dev/zero.csv")])
def test_an_endless_input_is_refused_by_its_size(args, monkeypatch, tmp_path):
    import ludolab.stdlib.jsonfile as J

    monkeypatch.setattr(J, "MAX_INPUT_BYTES", 1 << 16)
    monkeypatch.setattr(J, "MAX_TABLE_BYTES", 1 << 16)
    if args[-1] == "x.json":
        (tmp_path / "x.json").write_text("{}")
        args = (*args[:-1], str(tmp_path / "x.json"))
    if args[-1] == "table:/dev/zero.csv":
        (tmp_path / "t.csv").write_text("x" * 70000)  # a huge table
        args = (*args[:-1], "table:" + str(tmp_path / "t.csv"))
    line = one_line(invoke(*args))
    assert "larger than 65536 bytes" in line or "not a regular file" in line, line


@pytest.mark.parametrize("args,what", [(("books", "score", "-"), "hand record"),
                                       (("shelf", "score", "-"), "tableau")])
def test_a_huge_stdin_is_refused_by_its_size(args, what, monkeypatch):
    import ludolab.stdlib.jsonfile as J

    monkeypatch.setattr(J, "MAX_INPUT_BYTES", 1000)
    line = one_line(invoke(*args, input=" " * 5000))
    assert what in line and "standard input" in line and "larger than 1000 bytes" in line


def test_a_huge_saved_table_is_refused_before_it_is_read(tmp_path, monkeypatch):
    import ludolab.stdlib.jsonfile as J

    monkeypatch.setattr(J, "MAX_TABLE_BYTES", 100)
    (tmp_path / "t.csv").write_text("a\n" + "1\n" * 200)
    assert "larger than 100 bytes" in one_line(invoke("show", str(tmp_path / "t.csv")))


# ------------------------------------------------------------------ every OSError writing is one line
def test_out_where_no_folder_can_be_made_names_the_path_and_cause():
    line = one_line(invoke("box", "solve", "--tiles", "4", "--out", "/proc/x"))
    assert "/proc/x" in line and "cannot be made there" in line


@pytest.mark.parametrize("err,words", [(errno.ENOSPC, "no space left on the device"),
                                       (errno.EROFS, "the file system is read-only"),
                                       (errno.EIO, "Input/output error")])
def test_a_disk_error_while_writing_is_one_line_and_keeps_the_earlier_files(tmp_path, monkeypatch, err, words):
    import os

    import pandas as pd

    out = tmp_path / "o"
    args = ["box", "simulate", "--games", "200", "--chunks", "2", "--quiet", "--out", str(out)]
    assert invoke(*args).exit_code == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    def fail(self, path, *a, **k):
        raise OSError(err, os.strerror(err))

    monkeypatch.setattr(pd.DataFrame, "to_csv", fail)
    line = one_line(invoke(*args, "--seed", "8"))
    assert words in line and str(out) in line
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_a_disk_error_building_the_report_is_one_line_and_keeps_the_earlier_report(tmp_path, monkeypatch):
    from ludolab.analysis import report

    def fake_build(out_dir, quick, seed, log, deep_dir=None):
        (out_dir / "report.md").write_text("# first\n")
        return out_dir / "report.md"

    monkeypatch.setattr(report, "_build", fake_build)
    out = tmp_path / "r"
    assert invoke("report", "--out", str(out)).exit_code == 0

    def full(out_dir, quick, seed, log, deep_dir=None):
        (out_dir / "tables").mkdir()
        raise OSError(errno.ENOSPC, "No space left on device", str(out_dir / "tables" / "x.csv"))

    monkeypatch.setattr(report, "_build", full)
    line = one_line(invoke("report", "--out", str(out)))
    assert "no space left on the device" in line and "x.csv" in line
    assert (out / "report.md").read_text() == "# first\n"
    assert not [p for p in out.iterdir() if p.name.startswith(".report-building-")]


# ------------------------------------------------------------------ bad input accepted or misreported
@pytest.mark.parametrize("args,words", [
    (("beverbende", "simulate", "--special", "swap=1.5"), "whole number of copies"),
    (("beverbende", "simulate", "--special", "swap=0", "--special", "swap=2"), "swap is given twice"),
    (("beverbende", "simulate", "--rounds", "100", "--games", "200"), "--games and --rounds are one option"),
    (("box", "simulate", "--seed", "1", "--seed", "2"), "--seed is given 2 times"),
    # every command, not only the Monte Carlo ones: click would keep the last silently
    (("balance", "box", "--players", "2", "--players", "3"), "--players is given 2 times"),
    (("report", "--quick", "--out", "a", "--out", "b"), "--out is given 2 times"),
    (("play", "--port", "1", "--port", "2", "--no-browser"), "--port is given 2 times"),
    (("books", "advise", "--hand", "R1", "--position", "3", "--position", "2"), "--position is given 2 times"),
    (("books", "advise", "--play", "--hand", "R1", "--budget", "5", "--budget", "6"), "--budget is given 2 times"),
    (("box", "solve", "--tiles", "9", "--tiles", "10"), "--tiles is given 2 times"),
    (("beverbende", "sweep", "--knock", "-5:5:5"), "below 0 nobody ever knocks"),
    (("beverbende", "sweep", "--knock", "0:20:0"), "the step must be > 0"),
    (("beverbende", "sweep", "--knock", "20:0:2"), "empty range"),
    (("beverbende", "sweep", "--field-knock", "0,40"), "0..36"),
    (("shelf", "deck", "--fields", "3"), "add --generate"),
    (("shelf", "deck", "--size", "40"), "add --generate"),
    (("box", "advise", "--open", "1,2,3,4", "--roll", "3+4"), "--moves thai"),
    (("box", "match", "--players", "6", "--rounds", "20", "--exact"), "exact or adaptive match's players"),
    (("report", "--quick", "--backend", "local", "--workers", "2"), "--workers applies with --backend dask"),
    (("shelf", "simulate", "--policy", "potential:open_run2=1,open_run2=2"), "open_run2 is given twice"),
    (("beverbende", "simulate", "--policy", "threshold:knock=1,knock=2"), "knock is given twice"),
])
def test_bad_input_is_one_line_naming_what_is_allowed(args, words):
    assert words in one_line(invoke(*args))


@pytest.mark.parametrize("number,ok", [(10, True), (10.0, True), ("10", True), (10.5, False), ("ten", False),
                                       (True, False)])
def test_shelf_score_reads_a_number_by_one_rule(number, ok):
    from ludolab.stdlib.shelf import TableauError, assumed_deck, parse_tableau

    card = {"field": "Art", "colour": "red", "author": "A", "number": number}
    deck = assumed_deck()
    card = {**card, **{k: deck.card(0)[k] for k in ("field", "colour", "author")}}
    tab = {"shelves": [[dict(card, id=f"c{r}{c}", number=number if r == c == 0 else 20 + 5 * r + c)
                        for c in range(5)] for r in range(3)]}
    if ok:
        parse_tableau(tab, deck)
    else:
        with pytest.raises(TableauError, match="not a whole number: write a whole number"):
            parse_tableau(tab, deck)


def test_a_header_gives_the_games_a_precision_used():
    import json

    res = invoke("shelf", "compare", "--precision", "0.5", "--games", "20", "--quiet", "--format", "json")
    assert res.exit_code == 0, res.output
    rec = json.loads(res.stdout)
    assert rec["games"] > 20
    assert f"reached with {rec['games']:,} games" in res.stderr


def test_a_sweep_reports_its_capped_rounds():
    res = invoke("beverbende", "sweep", "--knock", "0", "--field-knock", "0", "--rounds", "100", "--quiet")
    assert res.exit_code == 0, res.output
    assert "ended at the round cap of 400 turns" in res.stderr
    res = invoke("beverbende", "sweep", "--knock", "0", "--field-knock", "0", "--rounds", "100", "--quiet",
                 "--format", "json")
    import json

    rows = json.loads(res.stdout)
    rows = rows["rows"] if isinstance(rows, dict) else rows
    assert sum(r["capped_rounds"] for r in rows) > 0


# ------------------------------------------------------------------ numbers are written with 0-9
@pytest.mark.parametrize("args,what", [
    (("box", "advise", "--open", "1,2,3", "--roll", "３"), "--roll '３': '３' (fullwidth digit three)"),
    (("box", "advise", "--open", "1,2,3", "--roll=７"), "--roll '７'"),
    (("box", "advise", "--open", "1,２,3"), "--open '1,２,3'"),
    (("box", "solve", "--tiles", "1-９"), "--tiles '1-９'"),
    (("box", "simulate", "--games", "１0"), "--games '１0'"),
    (("books", "advise", "--hand", "R１５ R9", "--position", "1"), "--hand 'R１５ R9'"),
    (("beverbende", "advise", "--seat", "٣"), "'٣' (arabic-indic digit three)"),
])
def test_a_digit_other_than_0_to_9_on_the_command_line_is_one_line(args, what):
    line = one_line(invoke(*args))
    assert what in line and "is not one of the digits 0-9" in line, line


def test_a_file_whose_name_has_such_digits_is_still_read(tmp_path):
    p = tmp_path / "hand１.json"
    p.write_text("{")
    line = one_line(invoke("books", "score", str(p)))
    assert "digits 0-9" not in line and "JSON" in line, line


@pytest.mark.parametrize("parse,text", [
    ("box.parse_tiles", "1-９"), ("box.parse_tiles", "９"), ("box.parse_dice", "２d6"),
    ("box.parse_one_die", "sum-le-６-forced"), ("books.parse_card", "R１５"),
    ("beverbende.parse_composition", "4,4,4,4,4,4,4,4,4,9,9,7,５"),
])
def test_the_rules_and_card_parsers_read_ascii_digits_only(parse, text):
    """``int``, ``str.isdigit`` and ``re``'s ``\\d`` all take fullwidth digits; the parsers do not (STB-1, STB-2,
    STB-6, STK-2, BVB-1)."""
    import importlib

    from ludolab.stdlib.errors import LudolabError

    mod, fn = parse.split(".")
    f = getattr(importlib.import_module(f"ludolab.stdlib.{mod}"), fn)
    f(text.translate(str.maketrans("０１２３４５６７８９", "0123456789")))  # the same in 0-9 is read
    with pytest.raises(LudolabError):
        f(text)


def test_a_roll_with_a_fullwidth_digit_is_refused_by_the_rules():
    from ludolab.stdlib.box import BoxRules, RulesError

    r = BoxRules()
    assert r.roll_index("7") >= 0
    with pytest.raises(RulesError, match="digits 0-9"):
        r.roll_index("７")


@pytest.mark.parametrize("module,sit,words", [
    ("shelf_situation", {"seat": "１"}, "seat"),
    ("beverbende_situation", {"seat": "１"}, "seat"),
])
def test_situation_files_read_ascii_digits_only(module, sit, words):
    """A seat written as a string of digits is read only when the digits are 0-9."""
    import importlib

    from ludolab.stdlib.errors import LudolabError

    mod = importlib.import_module(f"ludolab.sim.{module}")
    seat_of = {"shelf_situation": lambda v: mod._seat_no(v, "seat", 2),
               "beverbende_situation": lambda v: mod._whole(v, "seat", 0, 1)}[module]
    assert seat_of("1") in (0, 1)
    with pytest.raises(LudolabError, match=words):
        seat_of(sit["seat"])


def test_a_whole_number_in_a_deck_or_tableau_file_is_written_with_0_to_9():
    """The check the deck's and tableau's accession numbers pass (``"10"`` is read, ``"１0"`` is not)."""
    from ludolab.stdlib.errors import ascii_whole

    assert ascii_whole("10") and ascii_whole(" -3 ") and not ascii_whole("１0") and not ascii_whole("")
    assert not ascii_whole(10)


@pytest.mark.parametrize("args,words", [
    (("box", "simulate", "--games", "abc"), "'abc' is not a whole number: allowed are whole numbers from 1 to"),
    (("box", "simulate", "--games", "1e3"), "allowed are whole numbers from 1 to"),
    (("box", "simulate", "--games", "-5"), "-5 is out of range: allowed are whole numbers from 1 to"),
    (("box", "simulate", "--seed", "x"), "allowed are whole numbers 0 or more"),
    (("beverbende", "simulate", "--memory-loss", "x"), "'x' is not a number: allowed are numbers from 0.0 to 1.0"),
    (("beverbende", "simulate", "--memory-loss", "2"), "2 is out of range: allowed are numbers from 0.0 to 1.0"),
    (("shelf", "advise", "--half-width", "0"), "allowed are numbers above 0.0"),
    (("shelf", "deck", "--generate", "--size", "abc"), "'abc' is not a whole number: allowed are whole numbers"),
    (("shelf", "deck", "--players", "-1"), "-1 is out of range: allowed are whole numbers from 2 to 5"),
    (("box", "simulate", "--precision", "x"), "'x' is not a number: allowed are numbers"),
])
def test_a_bad_number_names_its_kind_and_range(capsys, args, words):
    """Through the console entry point, as a user meets it: click's own message for a non-number
    ("'abc' is not a valid integer range") named no range."""
    from ludolab.analysis.cli import main

    with pytest.raises(SystemExit) as exc:
        main(list(args))
    out, err = capsys.readouterr()
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert exc.value.code == 2 and out == "" and len(lines) == 1, err
    assert lines[0].startswith("Error:") and words in lines[0], lines[0]


def test_every_number_option_says_its_range_in_words():
    """No option keeps click's own range types, whose message for a non-number ("'abc' is not a valid
    integer range") names no range."""
    import click

    from ludolab.analysis.cli_common import FloatRange, IntRange

    def commands(cmd, ctx=None):
        yield cmd
        if isinstance(cmd, click.Group):  # groups load their commands when asked for them
            ctx = click.Context(cmd, parent=ctx)
            for name in cmd.list_commands(ctx):
                yield from commands(cmd.get_command(ctx, name), ctx)

    params = [(cmd.name, p) for cmd in commands(cli) for p in cmd.params
              if isinstance(p.type, (click.types.IntParamType, click.types.FloatParamType))]  # click.INT too
    assert len(params) > 70
    assert [(name, p.name) for name, p in params if not isinstance(p.type, (IntRange, FloatRange))] == []


@pytest.mark.parametrize("args,what", [(("books", "score", "-"), "hand record"),
                                       (("shelf", "score", "-"), "tableau")])
def test_a_closed_stdin_is_one_line(args, what):
    """Started with standard input closed, a command told to read it says so in one line (exit 2)."""
    import os
    import subprocess
    import sys

    code = "import sys; from ludolab.analysis.cli import main; sys.argv = ['ludolab', *sys.argv[1:]]; main()"
    r = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=300,
                       stdin=subprocess.DEVNULL, preexec_fn=lambda: os.close(0))
    assert r.returncode == 2, r.stderr
    lines = (r.stdout + r.stderr).strip().splitlines()
    assert len(lines) == 1 and what in lines[0] and "closed" in lines[0], lines


@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", "1e999"])
def test_a_number_option_refuses_nan_and_infinity_in_the_words_of_its_range(value):
    """A bounded number option refuses NaN (which passes click's own comparisons) and infinity (which a bound
    on one side lets through) in the same words, naming what is allowed."""
    import click
    from ludolab.analysis.cli_common import FloatRange

    with pytest.raises(click.BadParameter) as err:
        FloatRange(0.001, 100.0).convert(value, None, None)
    assert str(err.value) == f"{value} is not a finite number: allowed are numbers from 0.001 to 100.0"
    with pytest.raises(click.BadParameter) as err:
        FloatRange(min=0.001).convert(value, None, None)
    assert str(err.value) == f"{value} is not a finite number: allowed are numbers 0.001 or more"


def test_no_help_text_shows_a_range_of_none():
    """A number option with no bound shows no range note in its help (click's own would read ``x<=None``)."""
    from click.testing import CliRunner

    from ludolab.analysis.cli import cli

    def walk(cmd, path):
        if hasattr(cmd, "commands"):
            for name, sub in cmd.commands.items():
                yield from walk(sub, [*path, name])
        else:
            yield path

    bad = []
    for path in walk(cli, []):
        r = CliRunner().invoke(cli, [*path, "--help"])
        if "None]" in r.output or "None;" in r.output:
            bad.append(" ".join(path))
    assert not bad, bad
