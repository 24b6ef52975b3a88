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
LONG_ALLOWED: set[str] = set()

#: @njit functions with more than MAX_KERNEL_PARAMS parameters that are being reduced now.
PARAMS_ALLOWED: set[str] = set()


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
