"""Shut the Box policy tables on disk: write a policy as a tidy table, and read one back
(CSV or Parquet), checking every row against the rules (STB-4..STB-6)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from ludolab.sim import box_kernels as K
from ludolab.sim.box_exact import Policy
from ludolab.sim.box_policies import PolicyError, make_policy
from ludolab.stdlib.box import BoxRules, RulesError

# ------------------------------------------------------------ policy tables
TABLE_COLUMNS = ("open", "dice", "roll", "cover")


def policy_table_frame(policy: Policy, value: np.ndarray | None = None) -> pd.DataFrame:
    """The policy as a tidy table, one row per (state, roll outcome of the dice it rolls) (STB-4..STB-6).

    Args:
        policy: a :class:`~ludolab.sim.box_exact.Policy`.
        value: float64 (n_states,), the value of every state (a solution's
            ``value``), for the ``value_after`` column; ``None`` leaves it out.

    Returns:
        DataFrame with ``open`` (open tiles, space-separated), ``dice`` (dice
        the policy rolls there: 1 one die, 2 the full roll (two dice with 2d6,
        all the dice with NdS), 0 for random), ``roll`` (outcome label: a
        total, or faces ``3+4`` for thai moves), ``cover`` (tiles to cover,
        space-separated; empty when no move is legal, ``random`` for a random
        move, ``random: 1 7 | 3 5`` for a random one of tied moves, STB-T1,
        which is shown but not read back), and ``value_after`` (the value of the state left, NaN when no
        move) when ``value`` is given.  This is the file format
        :func:`load_policy_table` reads.
    """
    rules = policy.rules
    oc = rules.outcomes
    rows = []
    for s in range(1, rules.n_states):
        d = int(policy.dice[s])
        open_txt = " ".join(str(t) for t in rules.tiles_of(s))
        for o in range(oc.n):
            if d and oc.dice[o] != d:
                continue
            m = int(policy.move[s, o])
            cover = "" if m < 0 else " ".join(str(t) for t in rules.tiles_of(m))
            if m == K.RANDOM_MOVE:
                cover = "random"
            elif m <= K.TIE_BASE:  # a tie group (STB-T1): shown, not read back
                j = K.TIE_BASE - m
                group = policy.ties[j + 1: j + 1 + int(policy.ties[j])]
                cover = "random: " + " | ".join(" ".join(str(t) for t in rules.tiles_of(int(g))) for g in group)
            row = {"open": open_txt, "dice": d, "roll": oc.label[o], "cover": cover}
            if value is not None:
                row["value_after"] = float(value[s ^ m]) if m >= 0 else float("nan")
            rows.append(row)
    return pd.DataFrame(rows)


def _tiles_mask(text, rules: BoxRules) -> int:
    """Bitmask of a tile list written with spaces (or commas); 0 for an empty cell.

    Raises:
        PolicyError: unreadable numbers, or tiles not in the box or listed twice (without the line).
    """
    text = "" if text is None or (isinstance(text, float) and math.isnan(text)) else str(text).strip()
    if text == "":
        return 0
    parts = text.replace(",", " ").split()
    try:
        tiles = [int(p) for p in parts]
    except ValueError:
        raise PolicyError(f"cannot read tiles {text!r}: write tile numbers separated by spaces") from None
    try:
        return rules.mask_of(tiles)
    except RulesError as exc:
        raise PolicyError(str(exc)) from None


def _parse_tile_list(text, rules: BoxRules, where: str) -> int:
    """:func:`_tiles_mask`, with ``where`` (file and line) before any message."""
    try:
        return _tiles_mask(text, rules)
    except PolicyError as exc:
        raise PolicyError(f"{where}: {exc}") from None


#: Column separators a policy table may use: commas (as written), or semicolons and tabs
#: (as spreadsheet programs in many languages save "CSV").
SEPARATORS = {",": "commas", ";": "semicolons", "\t": "tabs"}


def _separator(path: Path, header: str) -> str:
    """The separator whose split of the header line holds the columns open, dice, roll and cover.

    Raises:
        PolicyError: a header that none of the separators splits into those columns but that
        uses another one (semicolons, tabs, pipes ...), naming what is expected.
    """
    need = set(TABLE_COLUMNS)
    for sep in SEPARATORS:
        if need <= {h.strip().strip('"') for h in header.split(sep)}:
            return sep
    if "," not in header:
        other = next((c for c in ";\t|:" if c in header), None)
        if other is not None:
            name = SEPARATORS.get(other, f"{other!r}")
            raise PolicyError(f"policy table {path.name}: its header {header.strip()!r} is split by {name}, "
                              f"not into the columns {','.join(TABLE_COLUMNS)}; separate the columns with commas "
                              "(semicolons or tabs are read too), tiles inside a cell with spaces")
    return ","


def _read_table(path: Path) -> tuple[pd.DataFrame, np.ndarray]:
    """The rows of a policy table as strings, and the file line of each row.

    A CSV may start with a UTF-8 byte-order mark (spreadsheet programs write one) and may
    separate its columns with commas, semicolons or tabs (found from the header); every
    row must have one field per column.  Parquet rows are numbered from line 2, as if the
    header were line 1.

    Raises:
        PolicyError: an unreadable file, an empty one, an unknown separator, or a row with
        the wrong number of fields.
    """
    shape = f"a header {','.join(TABLE_COLUMNS)} and one row per state and roll, tiles separated by spaces"
    if path.suffix == ".parquet":
        from ludolab.stdlib.jsonfile import MAX_TABLE_BYTES, check_input_size

        check_input_size(path, "policy table", PolicyError, MAX_TABLE_BYTES)
        try:
            df = pd.read_parquet(path).astype(str).replace({"nan": "", "None": ""})
        except Exception:  # pyarrow raises several kinds
            raise PolicyError(f"policy table {path.name} is not a readable Parquet file: give one written by "
                              "'ludolab box solve' as Parquet") from None
        return df, np.arange(2, len(df) + 2)
    import csv
    import io

    from ludolab.stdlib.jsonfile import MAX_TABLE_BYTES, read_input

    data = read_input(path, "policy table", PolicyError, binary=True, limit=MAX_TABLE_BYTES)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise PolicyError(f"policy table {path.name} is not a UTF-8 text CSV file: it needs {shape}") from None
    first = next((ln for ln in text.splitlines() if ln.strip()), None)
    if first is None:
        raise PolicyError(f"policy table {path.name} is empty: it needs {shape}")
    sep = _separator(path, first)
    try:
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=sep)
        rows = [(reader.line_num, r) for r in reader if r]
    except csv.Error:
        raise PolicyError(f"policy table {path.name} is not a readable CSV file: it needs {shape}") from None
    header = [h.strip() for h in rows[0][1]]
    width = len(header)
    for line, r in rows[1:]:
        if len(r) != width:
            raise PolicyError(f"policy table {path.name} line {line}: {len(r)} fields where the header has "
                              f"{width}; separate tiles with spaces, e.g. 1 2 4")
    df = pd.DataFrame([r for _, r in rows[1:]], columns=header, dtype=object)
    return df, np.array([line for line, _ in rows[1:]], dtype=np.int64)


def _check_table_rules(path: Path, rules: BoxRules) -> None:
    side = path.with_name(path.stem + ".meta.json")
    if not side.is_file():
        return
    import json

    fix = "fix it or delete it"
    try:
        from ludolab.stdlib.jsonfile import read_input

        meta = json.loads(read_input(side, "provenance sidecar", PolicyError))
    except (ValueError, UnicodeDecodeError):
        raise PolicyError(f"{side.name} beside the policy table is not JSON: {fix}") from None
    meta = meta.get("rules", {}) if isinstance(meta, dict) else None
    if not isinstance(meta, dict):
        raise PolicyError(f"{side.name} beside the policy table has no readable 'rules' record: {fix}")
    mine = rules.to_dict()
    for key in ("tiles", "one_die", "moves", "max_tiles_per_move", "dice"):
        if key in meta and meta[key] != mine[key]:
            def show(v):
                if v is None:
                    return "unlimited"
                return ",".join(map(str, v)) if isinstance(v, list) else str(v)

            raise PolicyError(f"policy table {path.name} was made for {key.replace('_', ' ')} {show(meta[key])} "
                              f"but the rules here have {show(mine[key])}: give the same rules options as when "
                              "it was written")


def load_policy_table(rules: BoxRules, path: str | Path) -> Policy:
    """Load a policy table written by ``ludolab box solve --out`` (or by hand, or saved by a spreadsheet).

    The table has the columns ``open``, ``dice``, ``roll``, ``cover`` (see
    :func:`policy_table_frame`; other columns are ignored), as CSV (UTF-8, with
    or without a byte-order mark; columns separated by commas, semicolons or
    tabs; tiles inside a cell by spaces) or Parquet.  When a
    ``NAME.meta.json`` sidecar sits beside it (as ``ludolab box solve --out``
    writes), its rules must match ``rules`` (tiles, one-die rule, moves, tiles
    per move).  Every row must name a legal move (STB-4, STB-5) and a dice
    count allowed in that state (STB-6); a state has the same dice on every
    row, and a (state, roll) one move.  States and rolls the file does not
    give are played by ``greedy-high``.

    Args:
        rules: the ruleset the table is for.
        path: the file (``.csv`` or ``.parquet``).

    Returns:
        :class:`~ludolab.sim.box_exact.Policy` named ``table``;
        ``info['policy']`` is ``table:NAME``, ``info['rows']`` the rows read,
        ``info['filled']`` the (state, roll) entries of the dice each state
        rolls that the file leaves to greedy-high.

    Raises:
        PolicyError: a missing file or a folder, an unreadable file, an
        unknown separator, a missing column, no rows, a sidecar for other
        rules, or a bad row; the message names the file and, for a row, its
        line (the first bad one) and what is wrong in the game's terms.
    """
    if str(path).strip() in ("", "."):
        raise PolicyError("table: needs a file name, e.g. table:policy.csv")
    path = Path(path)
    if path.is_dir():
        raise PolicyError(f"policy table {str(path)!r} is a folder: give the CSV file inside it")
    if not path.is_file():
        raise PolicyError(f"policy table {str(path)!r} not found: give a policy table (policy.csv) as written "
                          "by 'ludolab box solve'")
    df, lines = _read_table(path)
    missing = [c for c in TABLE_COLUMNS if c not in df.columns]
    if missing:
        raise PolicyError(f"policy table {path.name}: missing column(s) {', '.join(missing)}; "
                          f"the columns are {', '.join(TABLE_COLUMNS)}")
    if len(df) == 0:
        raise PolicyError(f"policy table {path.name} has no rows: it must give at least one move")
    _check_table_rules(path, rules)
    base = make_policy(rules, "greedy-high")
    move = base.move.copy()
    dice = base.dice.copy()
    oc = rules.outcomes
    allowed = rules.dice_allowed.astype(np.int64)

    # Each distinct cell text is read once; the checks then run on whole columns.  A row's
    # first failing check is reported, for the first bad row, in the order a reader would
    # check one row after another: open, dice, dice allowed, one dice count per state, roll,
    # cover, legal move, one move per state and roll.
    s, s_err = _decode(df["open"], lambda t: _tiles_mask(t, rules))
    dtext = df["dice"].astype(str).str.strip().to_numpy()
    d = np.where(dtext == "1", 1, np.where(dtext == "2", 2, 0))
    rolls = df["roll"].astype(str).to_numpy()
    o, o_err = _decode(pd.Series([f"{r}\x00{k}" for r, k in zip(rolls, d)]),
                       lambda key: _roll(rules, key))
    m, m_err = _decode(df["cover"], lambda t: _tiles_mask(t, rules))
    cand = np.zeros((oc.n, rules.n_states), dtype=bool)
    for k in range(oc.n):
        cand[k, oc.cand_masks[oc.cand_start[k]:oc.cand_start[k + 1]]] = True
    has_legal = base.move[s, o] != K.NO_MOVE
    legal = cand[o, m] & ((m & ~s) == 0)
    first_d = pd.Series(d).groupby(s).transform("first").to_numpy()
    m_final = np.where(m == 0, K.NO_MOVE, m)
    first_m = pd.Series(m_final).groupby([s, o]).transform("first").to_numpy()
    checks = [s_err != "", s == 0, d == 0, (allowed[s] & d) == 0, d != first_d, o_err != "", m_err != "",
              (m == 0) & has_legal, (m != 0) & ~legal, m_final != first_m]
    bad = np.logical_or.reduce(checks)
    if bad.any():
        i = int(np.argmax(bad))
        raise PolicyError(_row_error(rules, path, df, lines, i, next(k for k, c in enumerate(checks) if c[i]),
                                     s, d, o, m, s_err, o_err, m_err))
    dice[s] = d
    move[s, o] = m_final
    given = np.zeros(move.shape, dtype=bool)
    given[s, o] = True
    plays = oc.dice[None, :] == dice[:, None].astype(np.int64)  # outcomes of the dice each state rolls
    filled = int((~given[1:] & plays[1:]).sum())
    return Policy("table", rules, move, dice, {"policy": f"table:{path.name}", "rows": len(df), "filled": filled})


def _decode(column: pd.Series, read) -> tuple[np.ndarray, np.ndarray]:
    """``read`` applied once per distinct value of ``column``: (int64 results, error texts ("" when read)).

    ``read`` returns an int or raises :class:`PolicyError`/:class:`RulesError`; a failed value gives 0.
    """
    codes, uniques = pd.factorize(column.fillna(""), use_na_sentinel=False)
    vals = np.zeros(len(uniques), dtype=np.int64)
    errs = np.full(len(uniques), "", dtype=object)
    for k, u in enumerate(uniques):
        try:
            vals[k] = read(u)
        except (PolicyError, RulesError) as exc:
            errs[k] = str(exc)
    return vals[codes], errs[codes]


def _roll(rules: BoxRules, key: str) -> int:
    """Outcome index of ``"ROLL\\x00DICE"`` (dice 1 or 2); dice 0 (unreadable) gives 0, reported elsewhere."""
    roll, dice = key.rsplit("\x00", 1)
    return 0 if dice == "0" else rules.roll_index(roll, int(dice))


def _row_error(rules, path, df, lines, i, check, s, d, o, m, s_err, o_err, m_err) -> str:
    """The message of failing ``check`` (index into the checks of :func:`load_policy_table`) at row ``i``."""
    where = f"policy table {path.name} line {lines[i]}"
    si, di, roll = int(s[i]), int(d[i]), df["roll"].iat[i]
    if check == 0:
        return f"{where}: {s_err[i]}"
    if check == 1:
        return f"{where}: 'open' is empty; a shut box has no move"
    if check == 2:
        return f"{where}: dice must be 1 or 2, not {str(df['dice'].iat[i]).strip()!r}"
    if check == 3:
        return f"{where}: {di} {'die is' if di == 1 else 'dice are'} not allowed here: {rules.dice_rule_text(si)}"
    if check == 4:
        j = int(np.flatnonzero(s[:i] == si)[-1])
        return (f"{where}: open {rules.format_state(si)} rolls {di} here but {int(d[j])} on line {lines[j]}; "
                "a state has one dice choice")
    if check == 5:
        return f"{where}: {o_err[i]}"
    if check == 6:
        return f"{where}: {m_err[i]}"
    if check == 7:
        return f"{where}: roll {roll} can be covered with open {rules.format_state(si)}, so 'cover' may not be empty"
    if check == 8:
        return (f"{where}: covering {rules.format_state(int(m[i]))} is not a legal move for open "
                f"{rules.format_state(si)} and roll {roll}")
    return (f"{where}: open {rules.format_state(si)} and roll {roll} already have another move on an earlier "
            "line; give one move per state and roll")
