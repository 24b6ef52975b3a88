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
    """The policy as a tidy table, one row per (state, roll outcome of the dice it rolls).

    Columns: ``open`` (open tiles, space-separated), ``dice`` (dice the policy
    rolls there), ``roll`` (outcome label), ``cover`` (tiles to cover,
    space-separated; empty when no move is legal), and ``value_after`` (the
    value of the state left) when ``value`` is given.
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
            row = {"open": open_txt, "dice": d, "roll": oc.label[o], "cover": cover}
            if value is not None:
                row["value_after"] = float(value[s ^ m]) if m >= 0 else float("nan")
            rows.append(row)
    return pd.DataFrame(rows)


def _parse_tile_list(text, rules: BoxRules, where: str) -> int:
    text = "" if text is None or (isinstance(text, float) and math.isnan(text)) else str(text).strip()
    if text == "":
        return 0
    parts = text.replace(",", " ").split()
    try:
        tiles = [int(p) for p in parts]
    except ValueError:
        raise PolicyError(f"{where}: cannot read tiles {text!r}: write tile numbers separated by spaces") from None
    try:
        return rules.mask_of(tiles)
    except RulesError as exc:
        raise PolicyError(f"{where}: {exc}") from None


def _read_table(path: Path) -> pd.DataFrame:
    """The rows of a policy table as strings; every CSV row must have one field per column."""
    shape = f"a header {','.join(TABLE_COLUMNS)} and one row per state and roll, tiles separated by spaces"
    if path.suffix == ".parquet":
        try:
            return pd.read_parquet(path).astype(str).replace({"nan": "", "None": ""})
        except Exception:  # pyarrow raises several kinds
            raise PolicyError(f"policy table {path.name} is not a readable Parquet file: give one written by "
                              "'ludolab box solve --out DIR --table-format parquet'") from None
    import csv

    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.reader(f)
            rows = [(reader.line_num, r) for r in reader if r]
    except (UnicodeDecodeError, csv.Error):
        raise PolicyError(f"policy table {path.name} is not a text CSV file: it needs {shape}") from None
    if not rows:
        raise PolicyError(f"policy table {path.name} is empty: it needs {shape}")
    header = [h.strip() for h in rows[0][1]]
    for line, r in rows[1:]:
        if len(r) != len(header):
            raise PolicyError(f"policy table {path.name} line {line}: {len(r)} fields where the header has "
                              f"{len(header)}; separate tiles with spaces, e.g. 1 2 4")
    return pd.DataFrame([r for _, r in rows[1:]], columns=header, dtype=str)


def _check_table_rules(path: Path, rules: BoxRules) -> None:
    side = path.with_name(path.stem + ".meta.json")
    if not side.is_file():
        return
    import json

    fix = "fix it or delete it"
    try:
        meta = json.loads(side.read_text())
    except (ValueError, UnicodeDecodeError):
        raise PolicyError(f"{side.name} beside the policy table is not JSON: {fix}") from None
    meta = meta.get("rules", {}) if isinstance(meta, dict) else None
    if not isinstance(meta, dict):
        raise PolicyError(f"{side.name} beside the policy table has no readable 'rules' record: {fix}")
    mine = rules.to_dict()
    for key in ("tiles", "one_die", "moves", "max_tiles_per_move"):
        if key in meta and meta[key] != mine[key]:
            def show(v):
                if v is None:
                    return "unlimited"
                return ",".join(map(str, v)) if isinstance(v, list) else str(v)

            raise PolicyError(f"policy table {path.name} was made for {key.replace('_', ' ')} {show(meta[key])} "
                              f"but the rules here have {show(mine[key])}: give the same rules options as when "
                              "it was written")


def load_policy_table(rules: BoxRules, path: str | Path) -> Policy:
    """Load a policy table written by ``ludolab box solve --out`` (or by hand).

    The CSV has the columns ``open``, ``dice``, ``roll``, ``cover`` (see
    :func:`policy_table_frame`).  When a ``NAME.meta.json`` sidecar sits
    beside it (as ``ludolab box solve --out`` writes), its rules must match
    ``rules`` (tiles, one-die rule, moves, tiles per move).  Every row must name a legal move (STB-4,
    STB-5) and a dice count allowed in that state (STB-6).  States and rolls
    the file does not give are played by ``greedy-high``; ``info['filled']``
    counts them (for the dice each state rolls).  A state must have the same
    dice on every row.

    Raises:
        PolicyError: a missing file, a missing column, an unreadable or illegal row.
    """
    if str(path).strip() in ("", "."):
        raise PolicyError("table: needs a file name, e.g. table:policy.csv")
    path = Path(path)
    if path.is_dir():
        raise PolicyError(f"policy table {str(path)!r} is a folder: give the CSV file inside it")
    if not path.is_file():
        raise PolicyError(f"policy table {str(path)!r} not found: give a CSV written by 'ludolab box solve --out'")
    df = _read_table(path)
    missing = [c for c in ("open", "dice", "roll", "cover") if c not in df.columns]
    if missing:
        raise PolicyError(f"policy table {path.name}: missing column(s) {', '.join(missing)}; "
                          f"the columns are {', '.join(TABLE_COLUMNS)}")
    if len(df) == 0:
        raise PolicyError(f"policy table {path.name} has no rows: it must give at least one move")
    _check_table_rules(path, rules)
    base = make_policy(rules, "greedy-high")
    move = base.move.copy()
    dice = base.dice.copy()
    given = np.zeros(move.shape, dtype=bool)
    dice_line: dict[int, tuple[int, int]] = {}
    allowed = rules.dice_allowed
    for i, row in enumerate(df.itertuples(index=False), start=2):
        where = f"policy table {path.name} line {i}"
        s = _parse_tile_list(row.open, rules, where)
        if s == 0:
            raise PolicyError(f"{where}: 'open' is empty; a shut box has no move")
        dtext = str(row.dice).strip()
        if dtext not in ("1", "2"):
            raise PolicyError(f"{where}: dice must be 1 or 2, not {dtext!r}")
        d = int(dtext)
        if not allowed[s] & d:
            raise PolicyError(f"{where}: {d} {'die is' if d == 1 else 'dice are'} not allowed with open "
                              f"{rules.format_state(s)} under one-die rule {rules.one_die}")
        if s in dice_line and dice_line[s][0] != d:
            raise PolicyError(f"{where}: open {rules.format_state(s)} rolls {d} here but "
                              f"{dice_line[s][0]} on line {dice_line[s][1]}; a state has one dice choice")
        dice_line[s] = (d, i)
        dice[s] = d
        try:
            o = rules.roll_index(row.roll, d)
        except RulesError as exc:
            raise PolicyError(f"{where}: {exc}") from None
        m = _parse_tile_list(row.cover, rules, where)
        legal = rules.legal_moves(s, o)
        if m == 0:
            if legal:
                raise PolicyError(f"{where}: roll {row.roll} can be covered with open {rules.format_state(s)}, "
                                  "so 'cover' may not be empty")
            m = K.NO_MOVE
        elif m not in legal:
            raise PolicyError(f"{where}: covering {rules.format_state(m)} is not a legal move for open "
                              f"{rules.format_state(s)} and roll {row.roll}")
        if given[s, o] and move[s, o] != m:
            raise PolicyError(f"{where}: open {rules.format_state(s)} and roll {row.roll} already have another "
                              "move on an earlier line; give one move per state and roll")
        move[s, o] = m
        given[s, o] = True
    oc = rules.outcomes
    plays = oc.dice[None, :] == dice[:, None].astype(np.int64)  # outcomes of the dice each state rolls
    filled = int((~given[1:] & plays[1:]).sum())
    return Policy("table", rules, move, dice, {"policy": f"table:{path.name}", "rows": len(df), "filled": filled})
