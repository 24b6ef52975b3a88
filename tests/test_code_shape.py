"""The shape of the code: no function in sim/ or analysis/ over 100 lines, no kernel with more than 10 parameters.

Parsed with ``ast`` (nothing is imported or compiled), so the test takes well under a second.  The
allow-lists name the functions (``path:function``) still being split; they only ever shrink, and a name
that is no longer too long must leave its list (the second test of each pair says which).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("sim", "analysis")
MAX_LINES = 100
MAX_KERNEL_PARAMS = 10

#: Functions over MAX_LINES lines that are being split now.
LONG_ALLOWED = {
    "sim/beverbende_kernels.py:determinize",
    "sim/books_kernels.py:_deal_hidden",
    "sim/books_kernels.py:_forecast_heuristic",
}

#: @njit functions with more than MAX_KERNEL_PARAMS parameters that are being reduced now.
PARAMS_ALLOWED = {
    "sim/beverbende_kernels.py:_play_game",
    "sim/books_kernels.py:_hand_loop",
    "sim/books_kernels.py:_play_hand",
    "sim/books_kernels.py:_play_hand_basic",
    "sim/books_kernels.py:_score_candidates",
    "sim/books_kernels.py:_simulate_games",
    "sim/books_kernels.py:_untraced_hand",
    "sim/box_kernels.py:_evaluate_p",
    "sim/box_kernels.py:_fast_step",
    "sim/box_kernels.py:_match_chunk",
    "sim/box_kernels.py:_play_turn_t",
    "sim/box_kernels.py:_simulate",
    "sim/box_kernels.py:_simulate_chunk",
    "sim/box_kernels.py:_simulate_match",
    "sim/box_kernels.py:_simulate_match_t",
    "sim/box_kernels.py:_simulate_paired_t",
    "sim/box_kernels.py:_simulate_t",
    "sim/box_kernels.py:_solve",
    "sim/box_kernels.py:_solve_p",
    "sim/box_kernels.py:_trace_games",
    "sim/box_kernels.py:_trace_games_t",
    "sim/box_thumb_kernels.py:_lex_evaluate",
    "sim/shelf_kernels.py:_best_place",
    "sim/shelf_kernels.py:_choose_place",
    "sim/shelf_kernels.py:_choose_source",
    "sim/shelf_kernels.py:_gain",
    "sim/shelf_kernels.py:_line5_points",
    "sim/shelf_kernels.py:_line_gain",
    "sim/shelf_kernels.py:_play",
    "sim/shelf_kernels.py:_play_traced",
    "sim/shelf_kernels.py:_playout",
    "sim/shelf_kernels.py:_prep_cells_pot",
    "sim/shelf_kernels.py:_simulate",
    "sim/shelf_kernels.py:_turn_then_playout",
}


def _functions():
    """(``path:name``, lines, is a jit kernel, parameters) of every function under FOLDERS, nested ones too."""
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=rel)):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    a = node.args
                    params = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs)
                    jit = any("jit" in ast.unparse(d) for d in node.decorator_list)
                    yield f"{rel}:{node.name}", node.end_lineno - node.lineno + 1, jit, params


FUNCTIONS = list(_functions())


def test_the_tree_is_found():
    assert len(FUNCTIONS) > 500 and any(name == "sim/search.py:ismcts" for name, *_ in FUNCTIONS)


def test_no_function_is_over_100_lines():
    long = sorted(f"{name} ({n} lines)" for name, n, _, _ in FUNCTIONS if n > MAX_LINES and name not in LONG_ALLOWED)
    assert not long, f"functions over {MAX_LINES} lines (split them into named pieces): {', '.join(long)}"


def test_the_long_allow_list_names_only_long_functions():
    long = {name for name, n, _, _ in FUNCTIONS if n > MAX_LINES}
    stale = sorted(LONG_ALLOWED - long)
    assert not stale, f"no longer over {MAX_LINES} lines (or gone), take them off LONG_ALLOWED: {', '.join(stale)}"


def test_no_kernel_has_more_than_10_parameters():
    wide = sorted(f"{name} ({p} parameters)" for name, _, jit, p in FUNCTIONS
                  if jit and p > MAX_KERNEL_PARAMS and name not in PARAMS_ALLOWED)
    assert not wide, (f"@njit functions with more than {MAX_KERNEL_PARAMS} parameters (pass a state, rules or work "
                      f"array or a tuple instead): {', '.join(wide)}")


def test_the_parameter_allow_list_names_only_wide_kernels():
    wide = {name for name, _, jit, p in FUNCTIONS if jit and p > MAX_KERNEL_PARAMS}
    stale = sorted(PARAMS_ALLOWED - wide)
    assert not stale, (f"no longer over {MAX_KERNEL_PARAMS} parameters (or gone), take them off PARAMS_ALLOWED: "
                       f"{', '.join(stale)}")
