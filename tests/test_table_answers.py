"""The answers at the table (``ludolab bench --startup``): what they import and that their shortcuts
answer exactly as the full engines do.

* A small box is solved by the uncompiled backward induction (``box_exact`` engine ``python``) and a
  tableau scored by the pure-Python scorer alone: the same values, moves, dice and points as the
  kernels, and the same printed lines, on several rulesets and tableaus.
* The small text table prints, writes CSV and gives records as pandas does.
* ``books advise`` prints from plain rows exactly what it printed from its DataFrame.
* In a fresh interpreter, none of the six commands loads pandas, pyarrow or matplotlib, and the three
  that answer without a search do not load numba either (not a timing: ``ludolab bench --startup``
  and ``python -X importtime`` measure the time).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys

import numpy as np
import pytest
from click.testing import CliRunner

from ludolab.analysis.cli import cli
from ludolab.analysis.text_table import TextTable
from ludolab.sim import box_exact
from ludolab.stdlib.box import BoxRules

RULESETS = [
    {}, {"tiles": 6}, {"tiles": 10}, {"tiles": "1-11", "score": "digital"}, {"tiles": 9, "moves": "thai"},
    {"tiles": 8, "one_die": "always-optional", "max_tiles_per_move": 2}, {"tiles": 7, "dice": "3d6"},
    {"tiles": 9, "one_die": "le6-forced", "score": "count"}, {"tiles": 5, "dice": "1d6", "one_die": "never"},
]
OBJECTIVES = [("expected-score", None, False), ("shut", None, False), ("beat", 10, False), ("beat", 6, True)]


def _rules(kw):
    kw = dict(kw)
    if "tiles" in kw and isinstance(kw["tiles"], str):
        lo, hi = map(int, kw["tiles"].split("-"))
        kw["tiles"] = list(range(lo, hi + 1))
    return BoxRules(**kw)


@pytest.mark.parametrize("kw", RULESETS, ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()) or "default")
def test_the_python_engine_solves_a_box_exactly_as_the_kernel(kw):
    """Every value (to the last bit), move and dice choice, under every objective and both senses."""
    rules = _rules(kw)
    for objective, target, ties_win in OBJECTIVES:
        terminal, sense = box_exact.terminal_utility(rules, objective, target, ties_win)
        for s in (sense, -sense):
            py = box_exact.solve_utility(rules, terminal, s, engine="python")
            nb = box_exact.solve_utility(rules, terminal, s, engine="kernel")
            assert py[0].tobytes() == nb[0].tobytes(), (objective, s)
            assert np.array_equal(py[1], nb[1]) and py[1].dtype == nb[1].dtype
            assert np.array_equal(py[2], nb[2])


def test_an_unknown_engine_is_refused():
    with pytest.raises(box_exact.LudolabError, match="unknown engine 'gpu': allowed are kernel, python"):
        box_exact.solve(BoxRules(tiles=3), engine="gpu")


def test_the_table_engine_is_python_up_to_twelve_tiles():
    assert box_exact.table_engine(BoxRules(tiles=12)) == "python"
    assert box_exact.table_engine(BoxRules(tiles=13)) == "kernel"


BOX_COMMANDS = [
    ["box", "solve"], ["box", "solve", "--tiles", "10", "--objective", "shut"], ["box", "solve", "--adversarial"],
    ["box", "solve", "--tiles", "6", "--objective", "beat", "--target", "5", "--ties-win", "--exact"],
    ["box", "advise", "--open", "1,2,3,4,5,6,7,8,9", "--roll", "8"], ["box", "advise", "--open", "1,2,3"],
    ["box", "advise", "--open", "1,2", "--roll", "3"], ["box", "advise", "--open", "4,5", "--roll", "9", "--objective", "shut"],
    ["box", "advise", "--open", "1,4,7,8", "--roll", "8", "--objective", "beat", "--target", "10"],
    ["box", "advise", "--open", "1,2,3,4,5,6", "--roll", "3+4", "--moves", "thai"],
    ["box", "advise", "--open", "3,4", "--roll", "12"], ["box", "advise", "--open", "1,5,9", "--roll", "11", "--tiles", "11"],
]


def _outputs(argvs):
    return [CliRunner().invoke(cli, argv + ["--format", fmt]).output for argv in argvs for fmt in ("table", "json", "csv")]


def test_box_solve_and_advise_print_the_same_with_either_engine(monkeypatch):
    """Every printed line of the commands on a small box (the python engine) is what the kernel prints."""
    python = _outputs(BOX_COMMANDS)
    monkeypatch.setattr(box_exact, "PYTHON_ENGINE_MAX_STATES", 0)
    assert box_exact.table_engine(BoxRules()) == "kernel"
    assert _outputs(BOX_COMMANDS) == python
    assert "11.00920859" in python[0] and "cover 8" in python[12]


def _random_tableaus(n, seed=0):
    """``n`` tableaus of 15 distinct cards of the assumed deck (by id), top shelf first."""
    from ludolab.stdlib.shelf import assumed_deck

    ids, rnd = assumed_deck().ids, random.Random(seed)
    return [{"shelves": [t[0:5], t[5:10], t[10:15]]} for t in (rnd.sample(ids, 15) for _ in range(n))]


@pytest.mark.parametrize("variant", ["standard", "columns", "pairs"])
def test_the_pure_python_scorer_scores_as_the_kernel(variant):
    """The total and every combination, on random tableaus of the assumed deck (and the kernel check
    inside ``sim.shelf.score_tableau`` passing on each)."""
    from ludolab.sim import shelf as S
    from ludolab.sim.shelf_score import score_tableau_reference
    from ludolab.stdlib.shelf import ShelfRules, assumed_deck, parse_tableau

    rules = ShelfRules(players=2, variant=variant)
    for t in _random_tableaus(40):
        tab = parse_tableau(t, assumed_deck())
        assert score_tableau_reference(tab, rules) == S.score_tableau(tab, rules)


def test_shelf_score_prints_the_same_as_with_the_kernel_check(tmp_path, monkeypatch):
    """``shelf score`` prints from the pure-Python scorer what it printed from the kernel-checked one."""
    from ludolab.sim import shelf as S
    from ludolab.sim import shelf_score

    files = []
    for i, t in enumerate(_random_tableaus(4, seed=3)):
        files.append(tmp_path / f"t{i}.json")
        files[-1].write_text(json.dumps(t))
    argvs = [["shelf", "score", str(f), "--variant", v] for f in files for v in ("standard", "columns")]
    alone = _outputs(argvs)
    monkeypatch.setattr(shelf_score, "score_tableau_reference", S.score_tableau)
    assert _outputs(argvs) == alone


def test_the_text_table_prints_writes_and_gives_records_as_pandas():
    """Random small tables of ints, floats (NaN, tiny, large), bools and text."""
    import pandas as pd

    rnd = random.Random(1)
    cells = [lambda: rnd.randint(-5, 5000), lambda: rnd.choice([1.5, 2.0, -0.25, float("nan"), 1e-9, 123456.789, 0.0]),
             lambda: rnd.choice([True, False]), lambda: rnd.choice(["a", "bb", "shut", "1,2,3", ""])]
    ff = lambda x: f"{x:.6g}"  # noqa: E731  (the float format of emit)
    for _ in range(300):
        kinds = [rnd.randrange(len(cells)) for _ in range(rnd.randint(1, 4))]
        names = [rnd.choice(["x", "n", "value", "best", "a_long_name"]) + str(j) for j in range(len(kinds))]
        rows = [{n: cells[k]() for n, k in zip(names, kinds)} for _ in range(rnd.randint(1, 5))]
        df, tt = pd.DataFrame(rows, columns=names), TextTable(rows, names, like_pandas=True)
        assert tt.to_string(index=False, float_format=ff) == df.to_string(index=False, float_format=ff)
        assert tt.to_csv(index=False) == df.to_csv(index=False)
        assert json.dumps(tt.to_dict("records")) == json.dumps(df.to_dict("records"))


BOOKS_HAND = "R15 R9 B10 B3 B7 Y1 Y5 Y12 P2 P4 P8 P11 P13 R2 B14"


BOOKS_CASES = [  # (command-line options, the same as advise_rows arguments)
    (["--position", "3", "--earlier", "P12 Y3", "--earlier", "", "--pool", "1", "--worlds", "1", "--max-worlds", "1"],
     {"position": 3, "earlier": ["P12 Y3", ""], "pool": 1, "worlds": 1, "max_worlds": 1}),
    (["--position", "1", "--pool", "4", "--worlds", "4", "--max-worlds", "64"],
     {"position": 1, "pool": 4, "worlds": 4, "max_worlds": 64}),
    (["--position", "2", "--earlier", "R1", "--pool", "3", "--worlds", "2", "--max-worlds", "8", "--top", "3",
      "--seed", "5"], {"position": 2, "earlier": ["R1"], "pool": 3, "worlds": 2, "max_worlds": 8, "top": 3, "seed": 5}),
]


@pytest.mark.parametrize("options, kw", BOOKS_CASES)
def test_books_advise_prints_what_its_dataframe_printed(options, kw):
    """The forecast advice printed from plain rows, as its DataFrame printed (table, CSV, JSON rows)."""
    from ludolab.analysis.cli_common import emit
    from ludolab.sim import books as S
    from ludolab.stdlib.books import BooksRules

    df = S.advise(BooksRules(4), BOOKS_HAND, **kw)
    rows, _ = S.advise_rows(BooksRules(4), BOOKS_HAND, **kw)
    assert json.dumps(df.to_dict("records")) == json.dumps(rows)
    out = {fmt: CliRunner().invoke(cli, ["books", "advise", "--hand", BOOKS_HAND, *options, "--format", fmt])
           for fmt in ("table", "csv", "json")}
    assert all(r.exit_code == 0 for r in out.values()), {k: r.output for k, r in out.items()}
    shown = df.copy()
    shown["lay"] = [" ".join(x) if x else "(none)" for x in shown["lay"]]
    table = CliRunner().invoke(click_command(lambda: emit("table", table=shown.drop(columns=["best"])))).output
    assert out["table"].stdout.endswith("\n\n" + table)
    csv = df.copy()
    csv["lay"] = [" ".join(x) for x in csv["lay"]]
    assert out["csv"].stdout == csv.to_csv(index=False)
    nan_free = [{k: (None if isinstance(v, float) and v != v else v) for k, v in r.items()} for r in rows]
    assert json.loads(out["json"].stdout)["rows"] == nan_free


def click_command(fn):
    """A click command running ``fn`` (to capture what it prints)."""
    import click

    return click.command()(fn)


_RUN_EACH = r"""
import json, sys
from ludolab.analysis.cli import main
heavy = ("pandas", "pyarrow", "matplotlib", "numba")
seen = []
for argv in json.loads(sys.argv[1]):
    try:
        main(argv)
    except SystemExit as e:
        assert not e.code, (argv, e.code)
    seen.append(sorted(m for m in heavy if m in sys.modules))
print(json.dumps(seen))
"""


def _imports_after_each(commands):
    """The heavy modules loaded after each command, the commands run in turn in one fresh interpreter."""
    from ludolab.analysis.bench import startup_argv

    out = subprocess.run([sys.executable, "-c", _RUN_EACH, json.dumps(startup_argv(commands))],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def _searching(commands):
    """The start-up bench's commands that run a search: the card games' ``advise``."""
    return [c for c in commands if c[1] == "advise" and c[0] != "box"]


def test_the_answers_without_a_search_load_neither_pandas_nor_numba():
    """``box advise``, ``box solve`` and ``shelf score`` (of the start-up bench): no pandas, pyarrow,
    matplotlib, nor numba, in a fresh interpreter."""
    from ludolab.analysis.bench import STARTUP_COMMANDS

    plain = [c for c in STARTUP_COMMANDS if c not in _searching(STARTUP_COMMANDS)]
    assert [c[:2] for c in plain] == [("box", "advise"), ("box", "solve"), ("shelf", "score")]
    assert _imports_after_each(plain) == [[], [], []]


def test_the_answers_with_a_search_load_no_pandas():
    """``books advise`` (forecast and --play), ``beverbende advise`` and ``shelf advise`` (of the
    start-up bench) load numba but neither pandas, pyarrow nor matplotlib, in a fresh interpreter
    (sharing numba's cache with this session, so the kernels are compiled once either way)."""
    from ludolab.analysis.bench import STARTUP_COMMANDS

    searching = _searching(STARTUP_COMMANDS)
    assert len(searching) == 4
    assert _imports_after_each(searching) == [["numba"]] * 4


_RUN_ONE = r"""
import json, sys
from ludolab.sim import kernel_cache
if sys.argv[1] == "full":
    kernel_cache.light_loads = lambda: None  # numba's own cache load: the registries filled first
from ludolab.analysis.cli import main
try:
    main(json.loads(sys.argv[2]))
except SystemExit as e:
    assert not e.code, e.code
print(json.dumps({**kernel_cache._LIGHT, "arrayobj": "numba.np.arrayobj" in sys.modules}), file=sys.stderr)
"""


#: A Shut The Books endgame whose advice plays every consistent world (the README's example).
BOOKS_ENDGAME = ("books", "advise", "--play", "--players", "4", "--start", "0", "--hand", "B6 B9 B13",
                 "--predictions", "R2 R3 / R4 R7 P2 / R15 Y7 Y14 / R5", "--tricks",
                 "R11 R13 R14 R9 close Y14 / R1 R12 R6 R8 / P1 P12 P15 P4 / Y4 Y15 Y13 Y1 close R15 / "
                 "Y12 Y8 Y10 Y5 / P5 P3 P13 P14 / Y6 B15 Y3 R10 close R3 / B2 B8 B14 B12 / P7 P6 B1 Y9 / "
                 "P8 P10 B5 B10", "--trick", "Y2")


@pytest.mark.parametrize("which", range(5), ids=["books-forecast", "books-play", "beverbende", "shelf",
                                                 "books-endgame"])
def test_the_advise_commands_answer_the_same_with_light_kernel_loads(which):
    """Each card game's ``advise``, in fresh interpreters with numba's cache warm, loads its kernels
    without numba's registries (``kernel_cache.light_loads``) and prints exactly what it prints when
    numba fills them first, as numba does by itself; with a larger search than the start-up bench's,
    so that the answer is not a tie of two worlds, and in an endgame answered over every consistent
    world (the enumeration's kernels).  The light loads leave numba's lowering modules unimported
    (``kernel_cache._rebuild_env``)."""
    from ludolab.analysis.bench import STARTUP_COMMANDS, startup_argv

    argv = startup_argv([*_searching(STARTUP_COMMANDS), BOOKS_ENDGAME])[which]
    argv = [{"2": "64"}.get(a, a) if i and argv[i - 1] == "--budget" else a for i, a in enumerate(argv)]
    if argv[:2] == ["books", "advise"] and "--play" not in argv:
        argv = argv[:argv.index("--pool")] + ["--pool", "3", "--worlds", "8", "--max-worlds", "200"]

    def run(mode):
        done = subprocess.run([sys.executable, "-c", _RUN_ONE, mode, json.dumps(argv)], capture_output=True,
                              text=True)
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout, json.loads(done.stderr.strip().splitlines()[-1])

    run("full")  # numba's cache filled, as a warm start finds it
    full, full_state = run("full")
    light, light_state = run("light")
    assert not full_state["on"] and full_state["loads"] == 0
    assert light_state["on"] and light_state["loads"] >= 1, "no kernel was loaded the light way"
    assert full_state["arrayobj"] and not light_state["arrayobj"]  # numba's lowering modules left unimported

    def answer(text):  # everything but the search's wall time
        return [ln for ln in text.splitlines() if not ln.strip().startswith("seconds")]
    assert answer(light) == answer(full) and len(answer(full)) > 5
