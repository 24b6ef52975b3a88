"""Shut the Box: exact solver, policy catalogue, exact evaluation, Monte Carlo, multi-player.

Every function here is a thin face over the numba kernels of
:mod:`ludolab.sim.box_kernels`: it validates its arguments (``ValueError``
naming the bad value and the allowed ones), resolves the seed, calls the
kernel and returns numpy arrays or pandas DataFrames.  Clause ids (``STB-n``,
``STB-On``) refer to ``seeds/shut_the_box.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd

from ludolab.stdlib.box import DICE_BOTH, DICE_ONE, BoxRules, RulesError

from . import box_kernels as K
from .experiment import DEFAULT_CHUNKS, plan_run, run_chunks
from .stats import Estimate, mean_ci, wilson_ci

OBJECTIVES = ("expected-score", "shut", "beat")
#: The named policies of the catalogue (besides ``worst`` and policy tables).
POLICY_NAMES = ("optimal", "greedy-high", "fewest-tiles", "most-tiles", "most-options", "random")


class PolicyError(ValueError):
    """An unknown policy name or a malformed / illegal policy table."""


# ---------------------------------------------------------------- objectives
def terminal_utility(rules: BoxRules, objective: str = "expected-score", target: int | None = None,
                     ties_win: bool = False) -> tuple[np.ndarray, float]:
    """Utility of ending a turn in each state, and the sense of the objective.

    Args:
        rules: the ruleset (its ``score`` rule is used, STB-8).
        objective: ``expected-score`` (STB-O1, minimise), ``shut`` (STB-O2,
            maximise the probability to shut) or ``beat`` (STB-O3, maximise
            P(score < target); with ``ties_win`` P(score <= target)).
        target: the score to beat, required for ``beat``.

    Returns:
        ``(terminal, sense)``: float64 array (n_states,), and +1.0 (maximise)
        or -1.0 (minimise).

    Raises:
        ValueError: unknown objective, missing or negative target.
    """
    if objective not in OBJECTIVES:
        raise ValueError(f"unknown objective {objective!r}: allowed are {', '.join(OBJECTIVES)}")
    scores = rules.scores
    if objective == "expected-score":
        if target is not None:
            raise ValueError("--target applies only to the objective 'beat'")
        return scores.astype(np.float64), -1.0
    if objective == "shut":
        if target is not None:
            raise ValueError("--target applies only to the objective 'beat'")
        u = np.zeros(rules.n_states)
        u[0] = 1.0
        return u, 1.0
    if target is None:
        raise ValueError("the objective 'beat' needs a target score (--target T)")
    if isinstance(target, bool) or int(target) != target or target < 0:
        raise ValueError(f"the target must be a whole number >= 0, not {target}")
    if target == 0 and not ties_win:
        raise ValueError("no score is below 0, so target 0 cannot be beaten: use a target >= 1 "
                         "(or --ties-win with target 0 to play to shut)")
    hit = scores <= target if ties_win else scores < target
    return hit.astype(np.float64), 1.0


def objective_label(objective: str, target: int | None = None, ties_win: bool = False,
                    adversarial: bool = False) -> str:
    """Human label: ``min E[score]``, ``max P(shut)``, ``max P(score < 10)``, ..."""
    if objective == "expected-score":
        text = "max E[score]" if adversarial else "min E[score]"
    elif objective == "shut":
        text = "min P(shut)" if adversarial else "max P(shut)"
    else:
        op = "<=" if ties_win else "<"
        text = f"{'min' if adversarial else 'max'} P(score {op} {target})"
    return text


# ------------------------------------------------------------------- policies
@dataclass
class Policy:
    """A policy compiled to a lookup table (what the kernels play).

    Attributes:
        name: catalogue name (``optimal``, ``greedy-high``, ...).
        rules: the ruleset the table is for.
        move: int16 (n_states, n_outcomes): tiles to cover (bitmask), -1 when
            no move is legal, -2 for a uniformly random legal move.
        dice: int8 (n_states,): dice to roll (1 or 2), 0 for random.
        info: provenance (objective, target, source file, ...).
    """

    name: str
    rules: BoxRules
    move: np.ndarray
    dice: np.ndarray
    info: dict = field(default_factory=dict)

    @property
    def label(self) -> str:
        """Name shown in tables: ``info['policy']`` when set, else ``name``."""
        return self.info.get("policy", self.name)


@dataclass
class Solution:
    """Result of :func:`solve`.

    Attributes:
        value: float64 (n_states,): the value of every state (expected score,
            P(shut) or P(beat) from that state on, under optimal play).
        move: int16 (n_states, n_outcomes): the optimal move for every
            (state, roll outcome); -1 where no move is legal.
        dice: int8 (n_states,): the optimal number of dice in every state.
        value_exact: list of Fraction (n_states,) when solved with ``exact``.
    """

    rules: BoxRules
    objective: str
    target: int | None
    ties_win: bool
    adversarial: bool
    value: np.ndarray
    move: np.ndarray
    dice: np.ndarray
    value_exact: list | None = None

    @property
    def start_value(self) -> float:
        """Value of the start state (every tile open)."""
        return float(self.value[self.rules.full])

    @property
    def start_value_exact(self) -> Fraction | None:
        return None if self.value_exact is None else self.value_exact[self.rules.full]

    @property
    def label(self) -> str:
        return objective_label(self.objective, self.target, self.ties_win, self.adversarial)

    def policy(self) -> Policy:
        """The optimal (or, adversarial, the worst) policy as a table."""
        name = "worst" if self.adversarial else "optimal"
        return Policy(name, self.rules, self.move.copy(), self.dice.copy(),
                      {"objective": self.objective, "target": self.target, "ties_win": self.ties_win,
                       "adversarial": self.adversarial})


def _kernel_args(rules: BoxRules):
    oc = rules.outcomes
    return oc, rules.dice_allowed


def solve_utility(rules: BoxRules, terminal: np.ndarray, sense: float):
    """Dynamic programming over all 2^N states for a general terminal utility.

    Args:
        terminal: float64 (n_states,): utility of a turn ending in each state.
        sense: +1.0 maximise the expected utility, -1.0 minimise it.

    Returns:
        ``(value, move, dice)`` as in :class:`Solution`.
    """
    oc, allowed = _kernel_args(rules)
    n = rules.n_states
    value = np.zeros(n)
    move = np.zeros((n, oc.n), dtype=np.int16)
    dice = np.zeros(n, dtype=np.int8)
    K._solve(n, oc.dice, oc.weight.astype(np.float64), oc.cand_start, oc.cand_masks, allowed,
             np.ascontiguousarray(terminal, dtype=np.float64), float(sense), value, move, dice)
    return value, move, dice


def solve(rules: BoxRules, objective: str = "expected-score", target: int | None = None,
          ties_win: bool = False, adversarial: bool = False, exact: bool = False) -> Solution:
    """Solve Shut the Box exactly for one objective (STB-O1..STB-O4).

    Args:
        rules: the ruleset.
        objective: ``expected-score``, ``shut`` or ``beat`` (see
            :func:`terminal_utility`); ``target`` and ``ties_win`` for beat.
        adversarial: play the worst moves and dice instead (STB-O4).
        exact: also compute the value of every state as a Fraction with the
            pure-Python reference solver (slow for 12 tiles: seconds).

    Returns:
        :class:`Solution` with the value of every state, the optimal move for
        every (state, roll) and the dice choice for every state.

    Raises:
        ValueError: see :func:`terminal_utility`.
    """
    terminal, sense = terminal_utility(rules, objective, target, ties_win)
    if adversarial:
        sense = -sense
    value, move, dice = solve_utility(rules, terminal, sense)
    sol = Solution(rules, objective, target, ties_win, adversarial, value, move, dice)
    if exact:
        from .box_reference import solve_exact

        sol.value_exact = solve_exact(rules, objective, target, ties_win, adversarial)
    return sol


def _coverable(rules: BoxRules) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """P(next roll can be covered) with two dice, with one die, and the number
    of (outcome, legal move) pairs weighted by probability, per state."""
    oc = rules.outcomes
    n = rules.n_states
    cov = {1: np.zeros(n), 2: np.zeros(n)}
    ways = {1: np.zeros(n), 2: np.zeros(n)}
    states = np.arange(n)
    for o in range(oc.n):
        d = int(oc.dice[o])
        p = oc.weight[o] / (36.0 if d == 2 else 6.0)
        cands = oc.cand_masks[oc.cand_start[o]:oc.cand_start[o + 1]]
        legal = np.zeros(n, dtype=np.int64)
        for m in cands:
            legal += (states & m) == m
        cov[d] += p * (legal > 0)
        ways[d] += p * legal
    return cov[1], cov[2], ways


def _heuristic_dice(rules: BoxRules) -> np.ndarray:
    """Dice choice of the heuristic policies: the count with the higher chance
    that the next roll can be covered; two dice on a tie (STB-6)."""
    cov1, cov2, _ = _coverable(rules)
    allowed = rules.dice_allowed
    dice = np.where(allowed == DICE_ONE, 1, 2).astype(np.int8)
    both = allowed == DICE_BOTH
    dice[both & (cov1 > cov2 + 1e-12)] = 1
    return dice


def _heuristic_table(rules: BoxRules, key) -> np.ndarray:
    """Move table choosing, among legal moves, the one maximising ``key(state, move)``;
    ties go to the move with the highest tiles (the largest bitmask)."""
    oc = rules.outcomes
    n = rules.n_states
    move = np.full((n, oc.n), K.NO_MOVE, dtype=np.int16)
    for s in range(1, n):
        for o in range(oc.n):
            best, best_key = K.NO_MOVE, None
            for m in oc.cand_masks[oc.cand_start[o]:oc.cand_start[o + 1]]:
                m = int(m)
                if m & s != m:
                    continue
                k = (key(s, m), m)
                if best_key is None or k > best_key:
                    best, best_key = m, k
            move[s, o] = best
    return move


def make_policy(rules: BoxRules, name: str, objective: str = "expected-score", target: int | None = None,
                ties_win: bool = False) -> Policy:
    """A policy from the catalogue, compiled to a table.

    Args:
        name: ``optimal`` (for ``objective``/``target``), ``worst`` (the
            adversarial policy), ``random`` (a uniformly random legal move and
            dice count), ``greedy-high`` (cover the highest tile possible),
            ``fewest-tiles``, ``most-tiles``, ``most-options`` (leave the
            state where the next roll is most likely coverable, then with the
            most ways to cover it), or ``table:PATH`` / a path to a ``.csv``
            policy table (see :func:`load_policy_table`).  The heuristics
            choose the dice count with the higher chance to cover the next
            roll, and break ties towards the highest tiles.

    Raises:
        PolicyError: unknown name; ValueError: bad objective or target.
    """
    if name in ("optimal", "worst"):
        pol = solve(rules, objective, target, ties_win, adversarial=(name == "worst")).policy()
        pol.info["policy"] = name
        return pol
    if name.startswith("table:") or name.endswith((".csv", ".parquet")):
        return load_policy_table(rules, name.removeprefix("table:"))
    if name not in POLICY_NAMES:
        raise PolicyError(f"unknown policy {name!r}: allowed are {', '.join(POLICY_NAMES + ('worst',))} "
                          "or table:FILE.csv")
    if name == "random":
        oc = rules.outcomes
        move = np.full((rules.n_states, oc.n), K.RANDOM_MOVE, dtype=np.int16)
        dice = np.zeros(rules.n_states, dtype=np.int8)
        return Policy("random", rules, move, dice, {"policy": "random"})
    dice = _heuristic_dice(rules)
    if name == "greedy-high":
        move = _heuristic_table(rules, lambda s, m: 0)
    elif name == "fewest-tiles":
        move = _heuristic_table(rules, lambda s, m: -m.bit_count())
    elif name == "most-tiles":
        move = _heuristic_table(rules, lambda s, m: m.bit_count())
    else:  # most-options
        cov1, cov2, ways = _coverable(rules)
        cov = np.where(dice == 1, cov1, cov2)
        w = np.where(dice == 1, ways[1], ways[2])
        cov[0], w[0] = 2.0, 1e9  # shutting the box beats everything
        move = _heuristic_table(rules, lambda s, m: (round(float(cov[s ^ m]), 12), round(float(w[s ^ m]), 12)))
    return Policy(name, rules, move, dice, {"policy": name})


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


# ----------------------------------------------------------- exact evaluation
@dataclass
class Evaluation:
    """Exact distribution of the end of a turn under a policy (forward pass).

    Attributes:
        final: float64 (n_states,): probability that the turn ends with open
            tiles s; ``final[0]`` is the probability to shut the box.
        visit: float64 (n_states,): probability that the turn reaches state s.
    """

    policy: Policy
    final: np.ndarray
    visit: np.ndarray

    @property
    def rules(self) -> BoxRules:
        return self.policy.rules

    def _scores(self, scoring: str | None) -> np.ndarray:
        return self.rules.scores if scoring is None else self.rules.scores_under(scoring)

    def mean(self, scoring: str | None = None) -> float:
        """Expected score (under the ruleset's scoring, or another one, STB-8)."""
        return float(self.final @ self._scores(scoring))

    def sd(self, scoring: str | None = None) -> float:
        sc = self._scores(scoring).astype(np.float64)
        m = self.final @ sc
        return float(math.sqrt(max(self.final @ (sc * sc) - m * m, 0.0)))

    @property
    def p_shut(self) -> float:
        return float(self.final[0])

    def p_below(self, target: int, ties_win: bool = False, scoring: str | None = None) -> float:
        """P(score < target), or P(score <= target) with ``ties_win`` (STB-10)."""
        sc = self._scores(scoring)
        return float(self.final[(sc <= target) if ties_win else (sc < target)].sum())

    def distribution(self, scoring: str | None = None) -> pd.Series:
        """P(score = x) for every reachable score x, indexed by x."""
        sc = self._scores(scoring)
        s = pd.Series(self.final).groupby(sc).sum()
        s.index.name = "score"
        s.name = "probability"
        return s[s > 0]


def evaluate(policy: Policy) -> Evaluation:
    """Exact evaluation of any policy: the whole distribution of the final state.

    Returns:
        :class:`Evaluation` (mean, sd, P(shut), P(score < T), distribution).
    """
    rules = policy.rules
    oc, allowed = _kernel_args(rules)
    final = np.zeros(rules.n_states)
    visit = np.zeros(rules.n_states)
    K._evaluate(rules.full, oc.dice, oc.weight.astype(np.float64), oc.cand_start, oc.cand_masks, allowed,
                policy.move, policy.dice, final, visit)
    return Evaluation(policy, final, visit)


# ---------------------------------------------------------------- Monte Carlo
@dataclass
class SimResult:
    """Monte Carlo result: ``counts`` int64 (n_states,) games ending in each state."""

    policy: Policy
    counts: np.ndarray
    provenance: dict

    @property
    def games(self) -> int:
        return int(self.counts.sum())

    def mean(self, scoring: str | None = None) -> Estimate:
        """Mean score with its 95% confidence interval."""
        sc = (self.policy.rules.scores if scoring is None else self.policy.rules.scores_under(scoring)).astype(float)
        return mean_ci(self.games, float(self.counts @ sc), float(self.counts @ (sc * sc)),
                       bounds=(float(sc.min()), float(sc.max())))

    def p_shut(self) -> Estimate:
        """P(shut) with its 95% Wilson interval."""
        return wilson_ci(int(self.counts[0]), self.games)

    def p_below(self, target: int, ties_win: bool = False) -> Estimate:
        sc = self.policy.rules.scores
        hit = (sc <= target) if ties_win else (sc < target)
        return wilson_ci(int(self.counts[hit].sum()), self.games)

    def distribution(self) -> pd.Series:
        sc = self.policy.rules.scores
        s = pd.Series(self.counts).groupby(sc).sum() / self.games
        s.index.name = "score"
        s.name = "frequency"
        return s[s > 0]


def _sim_args(rules: BoxRules):
    oc = rules.outcomes
    return (rules.full, rules.dice_allowed, oc.draw_map1, oc.draw_map2, oc.cand_start, oc.cand_masks)


def simulate(policy: Policy, games: int, seed: int = 0, chunks: int = DEFAULT_CHUNKS,
             progress: bool | None = False) -> SimResult:
    """Monte Carlo of ``games`` turns under ``policy`` (numba, parallel over chunks).

    Args:
        games: number of turns (>= 1); seed: root seed (>= 0); chunks: how
            the run is cut (the result depends on seed and chunks only, never
            on the thread count).

    Raises:
        ValueError: bad games, seed or chunks.
    """
    plan = plan_run(games, seed, chunks)
    rules = policy.rules
    args = _sim_args(rules)

    def kernel(keys, gms):
        counts = np.zeros((len(keys), rules.n_states), dtype=np.int64)
        K._simulate(keys, gms, *args, policy.move, policy.dice, counts)
        return counts

    counts = run_chunks(plan, kernel, progress, desc="box").sum(axis=0)
    return SimResult(policy, counts, plan.provenance())


def compare(policies: list[Policy], games: int, seed: int = 0, chunks: int = DEFAULT_CHUNKS,
            progress: bool | None = False) -> pd.DataFrame:
    """Compare policies exactly and by paired Monte Carlo (common random numbers).

    Every policy plays the same games (game g of chunk c uses the same dice
    stream for all), so differences to the first policy are paired.

    Returns:
        DataFrame, one row per policy: ``policy``, exact ``mean_score``,
        ``sd_score``, ``p_shut``; Monte Carlo ``mc_mean_score`` with CI; and
        ``diff_vs_first`` (mean paired score difference to the first policy)
        with its 95% CI bounds.

    Raises:
        ValueError: fewer than one policy, policies for different rules.
    """
    if not policies:
        raise ValueError("compare needs at least one policy")
    rules = policies[0].rules
    if any(p.rules != rules for p in policies):
        raise ValueError("all compared policies must be for the same rules")
    plan = plan_run(games, seed, chunks)
    moves = np.stack([p.move for p in policies])
    dices = np.stack([p.dice for p in policies])
    scores = rules.scores.astype(np.float64)
    k = len(policies)
    args = _sim_args(rules)

    def kernel(keys, gms):
        sums = np.zeros((len(keys), k, k + 1))
        K._simulate_paired(keys, gms, *args, moves, dices, scores, sums)
        return sums

    sums = run_chunks(plan, kernel, progress, desc="compare").sum(axis=0)
    n = plan.n_games
    rows = []
    for a, pol in enumerate(policies):
        ev = evaluate(pol)
        span = float(scores.max() - scores.min())
        mc = mean_ci(n, sums[a, k], sums[a, a], bounds=(float(scores.min()), float(scores.max())))
        diff = mean_ci(n, sums[a, k] - sums[0, k], sums[a, a] - 2 * sums[a, 0] + sums[0, 0], bounds=(-span, span))
        rows.append({
            "policy": pol.label,
            "mean_score": ev.mean(), "sd_score": ev.sd(), "p_shut": ev.p_shut,
            **mc.as_dict("mc_mean_score"), **diff.as_dict("diff_vs_first"),
        })
    df = pd.DataFrame(rows)
    df.attrs.update(plan.provenance())
    return df


# ------------------------------------------------------------------ advice
def advise(rules: BoxRules, open_tiles, roll=None, objective: str = "expected-score",
           target: int | None = None, ties_win: bool = False, dice: int | None = None):
    """Advice at the table.

    Args:
        open_tiles: the open tile numbers.
        roll: the roll (see :meth:`BoxRules.roll_index`), or ``None`` for the
            dice choice before rolling.

    Returns:
        With a roll: DataFrame of every legal move, best first, columns
        ``cover``, ``tiles_left``, ``value`` (value of the state left, under
        ``objective``), ``best`` (True for every move as good as the first).  Without: DataFrame of the allowed dice
        counts with their values, best first.

    Raises:
        RulesError, ValueError: bad tiles, objective, or a roll that cannot
        happen (including dice the one-die rule does not allow there, STB-6).
    """
    s = rules.mask_of(open_tiles)
    if s == 0:
        raise RulesError("the box is already shut: there is nothing to advise")
    if roll is None and dice is not None:
        raise RulesError("--dice goes with --roll (the dice the roll was made with)")
    sol = solve(rules, objective, target, ties_win)
    terminal, sense = terminal_utility(rules, objective, target, ties_win)
    oc = rules.outcomes
    if roll is None:
        rows = []
        for d in (2, 1):
            if not rules.dice_allowed[s] & d:
                continue
            v = 0.0
            for o in range(oc.n):
                if oc.dice[o] != d:
                    continue
                m = int(sol.move[s, o])
                v += oc.weight[o] / (36.0 if d == 2 else 6.0) * (terminal[s] if m < 0 else sol.value[s ^ m])
            rows.append({"dice": d, "value": v})
        df = pd.DataFrame(rows).sort_values("value", ascending=(sense < 0), kind="stable").reset_index(drop=True)
        df["best"] = (df["value"] - df["value"].iloc[0]).abs() <= 1e-12
        df.attrs["objective"] = sol.label
        return df
    o = rules.roll_index(roll, dice, state=s)
    rows = []
    for m in rules.legal_moves(s, o):
        rows.append({"cover": rules.format_state(m), "tiles_left": rules.format_state(s ^ m),
                     "value": float(sol.value[s ^ m]), "_mask": m})
    df = pd.DataFrame(rows, columns=["cover", "tiles_left", "value", "_mask"])
    if len(df):
        df = df.sort_values(["value", "_mask"], ascending=[sense < 0, False], kind="stable").reset_index(drop=True)
    df["best"] = (df["value"] - df["value"].iloc[0]).abs() <= 1e-12 if len(df) else []
    df = df.drop(columns="_mask")
    df.attrs["objective"] = sol.label
    df.attrs["stop_value"] = float(terminal[s])
    return df


# ------------------------------------------------------------- multi-player
@dataclass
class MatchSolution:
    """Exact equilibrium of a one-round match (STB-9, STB-10).

    Attributes:
        seats: DataFrame per seat: ``seat``, ``p_win`` (sole winner), ``p_tie``
            (shares the lowest score), ``p_play`` (takes a turn: a shut box
            ends the game), ``expected_score`` (given the seat plays).
        domain: int64 sorted distinct scores; policies[(seat, b)] the table of
            seat (0-based) facing best score index b (len(domain) = no score yet).
    """

    rules: BoxRules
    players: int
    ties_win: bool
    seats: pd.DataFrame
    domain: np.ndarray
    policies: dict
    p_tie_game: float


def match_exact(rules: BoxRules, players: int = 2, ties_win: bool = False,
                keep_policies: bool = True) -> MatchSolution:
    """Exact win and tie probabilities of a one-round match by backward induction.

    Players take one turn each in seat order (STB-9).  Each seat knows the
    best score so far and plays the policy that maximises its chance of
    winning given that every later seat does the same (the last seat plays the
    beat-target policy, STB-10).  A shut box wins at once; ties lose unless
    ``ties_win`` (then a shared lowest score is worth a win to the seat
    choosing its policy; probabilities reported are still of sole wins and
    ties).  With ``keep_policies=False`` the per-(seat, best score) tables are
    not kept (they take memory for 12 tiles with many distinct scores).

    Raises:
        ValueError: players outside 2..6.
    """
    if isinstance(players, bool) or int(players) != players or not 2 <= players <= 6:
        raise ValueError(f"players must be 2..6, not {players}")
    players = int(players)
    tv = 1.0 if ties_win else 0.0
    scores = rules.scores
    domain = np.unique(scores)
    nb = len(domain)
    none = nb
    idx_of_state = np.searchsorted(domain, scores)
    assert domain[0] == 0 and scores[0] == 0  # a shut box scores 0 (STB-8): index 0 is "shut"
    # L[j][b] = P(no seat from j on scores < domain[b]); M: <=
    L = np.ones((players + 1, nb))
    M = np.ones((players + 1, nb))
    dist = {}  # (seat, b) -> P(X = domain[i]) array
    mean = {}
    policies = {}
    for j in range(players - 1, -1, -1):
        bs = [none] if j == 0 else list(range(1, nb))
        for b in bs:
            # utility of ending in score index i
            u_idx = np.zeros(nb)
            u_idx[0] = 1.0  # shut: wins at once
            for i in range(1, nb):
                if b == none or i < b:
                    u_idx[i] = M[j + 1][i] + tv * (L[j + 1][i] - M[j + 1][i])
                elif i == b:
                    u_idx[i] = tv * L[j + 1][b]
            terminal = u_idx[idx_of_state]
            value, move, dice = solve_utility(rules, terminal, 1.0)
            pol = Policy("match", rules, move, dice, {"seat": j + 1, "best": None if b == none else int(domain[b])})
            final = evaluate(pol).final
            px = np.bincount(idx_of_state, weights=final, minlength=nb)
            dist[(j, b)] = px
            mean[(j, b)] = float(px @ domain)
            if keep_policies:
                policies[(j, b)] = pol
            if b != none:
                L[j][b] = px[b:].sum() * L[j + 1][b]
                M[j][b] = px[b + 1:].sum() * M[j + 1][b]
    # forward pass
    D = {none: 1.0}
    rows = []
    p_tie_game = 0.0
    for j in range(players):
        win = tie = play = esc = 0.0
        nxt: dict = {}
        for b, pb in D.items():
            if pb == 0.0:
                continue
            px = dist[(j, b)]
            play += pb
            esc += pb * mean[(j, b)]
            win += pb * px[0]
            top = nb if b == none else b
            for i in range(1, top):
                win += pb * px[i] * M[j + 1][i]
                tie += pb * px[i] * (L[j + 1][i] - M[j + 1][i])
                nxt[i] = nxt.get(i, 0.0) + pb * px[i]
            if b != none:
                tie += pb * px[b] * L[j + 1][b]
                nxt[b] = nxt.get(b, 0.0) + pb * px[b:].sum()
        rows.append({"seat": j + 1, "p_win": win, "p_tie": tie, "p_play": play,
                     "expected_score": esc / play if play else float("nan")})
        D = nxt
    # P(the game ends tied): tied leaders at the end
    seats = pd.DataFrame(rows)
    p_tie_game = 1.0 - float(seats["p_win"].sum())
    return MatchSolution(rules, players, ties_win, seats, domain, policies, p_tie_game)


MAX_ROUNDS = 1000


def simulate_rounds(policies: list[Policy], games: int, seed: int = 0, rounds: int | None = None,
                    threshold: int | None = 45, chunks: int = DEFAULT_CHUNKS,
                    progress: bool | None = False, max_rounds: int = MAX_ROUNDS) -> pd.DataFrame:
    """Multi-round play by simulation: totals over ``rounds`` (STB-11), or,
    with ``rounds=None``, elimination at ``threshold`` (STB-12).

    Args:
        policies: one policy per seat (2..6 seats), all for the same rules.

    An elimination game that is still running after ``max_rounds`` rounds
    is decided by the lowest total then; ``df.attrs['games_cut']`` counts
    such games.

    Returns:
        DataFrame per seat: ``seat``, ``policy``, ``p_win`` and ``p_tie`` with
        95% Wilson CIs, ``mean_total``, and ``mean_rounds`` (game length).

    Raises:
        ValueError: bad seat count, rounds (1..max_rounds) or threshold, or
        elimination under a scoring other than sum or count.
    """
    if not 2 <= len(policies) <= 6:
        raise ValueError(f"players must be 2..6, not {len(policies)}")
    rules = policies[0].rules
    if any(p.rules != rules for p in policies):
        raise ValueError("every seat must play the same rules")
    if rounds is not None:
        if isinstance(rounds, bool) or int(rounds) != rounds or not 1 <= rounds <= max_rounds:
            raise ValueError(f"rounds must be a whole number 1..{max_rounds}, not {rounds}")
        n_rounds, thr = int(rounds), 0
    else:
        if threshold is None or isinstance(threshold, bool) or int(threshold) != threshold or threshold < 1:
            raise ValueError(f"the elimination threshold must be a whole number >= 1, not {threshold}")
        if rules.score not in ("sum", "count"):
            raise ValueError(f"elimination adds up scores against a threshold: use --score sum or count, "
                             f"not {rules.score}")
        if threshold > 10**9:
            raise ValueError(f"the elimination threshold must be 1..1000000000, not {threshold}")
        n_rounds, thr = 0, int(threshold)
    plan = plan_run(games, seed, chunks)
    moves = np.stack([p.move for p in policies])
    dices = np.stack([p.dice for p in policies])
    args = _sim_args(rules)
    n = len(policies)

    def kernel(keys, gms):
        out = np.zeros((len(keys), n, 5), dtype=np.int64)
        K._simulate_match(keys, gms, *args, moves, dices, rules.scores, n_rounds, thr, int(max_rounds), out)
        return out

    out = run_chunks(plan, kernel, progress, desc="match").sum(axis=0)
    rows = []
    for p in range(n):
        rows.append({"seat": p + 1, "policy": policies[p].label,
                     **wilson_ci(int(out[p, 0]), plan.n_games).as_dict("p_win"),
                     **wilson_ci(int(out[p, 1]), plan.n_games).as_dict("p_tie"),
                     "mean_total": out[p, 2] / plan.n_games, "mean_rounds": out[p, 3] / plan.n_games})
    df = pd.DataFrame(rows)
    df.attrs.update(plan.provenance())
    df.attrs["mode"] = (f"{rounds} round{'s' if rounds != 1 else ''}" if rounds else f"elimination at {thr}")
    df.attrs["games_cut"] = int(out[0, 4])
    return df
