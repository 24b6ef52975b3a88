"""Rules of thumb for Shut the Box: rules a person can remember, searched and costed exactly (STB-O6).

A *rule of thumb* is a short list of preferences read in order (a
lexicographic rule): among the legal moves, keep those best on the first
preference, among them those best on the second, and so on; any tie left goes
to the move with the highest tiles (``tie_break="low"``: the lowest, STB-T1).  The preferences (:data:`KEYS`):

==================  ====================================================
``highest-tile``    cover the highest tile you can
``fewest-tiles``    cover as few tiles as possible
``most-tiles``      cover as many tiles as possible
``most-ways``       leave the most ways to cover the next roll (legal
                    (roll, move) pairs, weighted by the chance of the roll)
``best-cover``      leave the best chance that the next roll can be covered
``lowest-top``      leave the highest open tile as low as possible
``one-die-ready``   leave a box where the one-die rule allows one die
``lowest-sum``      leave the lowest total open (matters with thai moves)
==================  ====================================================

Shutting the box is always preferred by the last five.  Where the one-die rule
(STB-6) leaves the choice, a rule of thumb also has a dice habit
(:data:`DICE_HABITS`): ``cover`` (the count with the better chance that the
roll can be covered; two dice on a tie), ``one`` (one die whenever allowed) or
``full`` (the full roll whenever allowed).  The two preferences that judge the
next roll do so with the dice the habit would roll there.

:func:`search_rules_of_thumb` tries every ordered list of 1 to 3 distinct
preferences with every dice habit (8 + 56 + 336 lists, times 3 habits when the
one-die rule gives a choice) and evaluates each exactly (forward pass,
:func:`ludolab.sim.box_exact.evaluate`); rules that play the same move in
every state they reach are listed once, under the shortest list.  The cost of
a rule is its distance from optimal play for the objective.  Functions for
tables and the report: :func:`best_rules_of_thumb`, :func:`thumb_survey` (every
one-die rule and objective), :func:`thumb_policy`, :func:`describe_rule` and
:func:`thumb_exceptions` (where a rule goes wrong and what to do instead).
"""

from __future__ import annotations

import itertools

import numpy as np

from ludolab.stdlib.box import DICE_BOTH, DICE_ONE, BoxRules
from ludolab.stdlib.errors import LudolabError

from . import box_exact
from . import box_thumb_kernels as TK
from .box_exact import Policy

KEYS = ("highest-tile", "fewest-tiles", "most-tiles", "most-ways", "best-cover", "lowest-top",
        "one-die-ready", "lowest-sum")
DICE_HABITS = ("cover", "one", "full")
#: How the last tie is broken (STB-T1): the move with the highest tiles, or the lowest.
TIE_BREAKS = ("high", "low")
#: Preferences judged on the move itself (the others on the open tiles it leaves).
_ON_MOVE = ("highest-tile", "fewest-tiles", "most-tiles")
KEY_WORDS = {
    "highest-tile": "cover the highest tile you can",
    "fewest-tiles": "cover as few tiles as possible",
    "most-tiles": "cover as many tiles as possible",
    "most-ways": "leave the most ways to cover the next roll",
    "best-cover": "leave the best chance that the next roll can be covered",
    "lowest-top": "leave the highest open tile as low as possible",
    "one-die-ready": "leave a box where one die is allowed",
    "lowest-sum": "leave the lowest total open",
}
MAX_KEYS = 3


class ThumbError(LudolabError):
    """An unknown preference or dice habit, or a rule of thumb that cannot be built."""


def _probs(rules: BoxRules) -> np.ndarray:
    """Chance of each roll outcome once the dice count is chosen (weights over their dice count's total)."""
    oc = rules.outcomes
    w = oc.weight.astype(np.float64)
    p = np.empty(oc.n)
    for d in (1, 2):
        sel = oc.dice == d
        if sel.any():
            p[sel] = w[sel] / w[sel].sum()
    return p


def _bits(n_states: int, n_tiles: int):
    states = np.arange(n_states, dtype=np.int64)
    count = np.zeros(n_states)
    top = np.zeros(n_states)
    for i in range(n_tiles):
        on = (states >> i) & 1
        count += on
        top = np.where(on == 1, i + 1, top)
    return count, top


class _Tables:
    """Per-ruleset arrays the rules of thumb are built from (computed once per ruleset)."""

    def __init__(self, rules: BoxRules):
        oc = rules.outcomes
        n = rules.n_states
        self.rules = rules
        self.prob = _probs(rules)
        self.out_dice = oc.dice.astype(np.int64)
        self.starts = oc.cand_start.astype(np.int64)
        self.masks = oc.cand_masks.astype(np.int64)
        self.cover = np.zeros((2, n))
        self.ways = np.zeros((2, n))
        TK._coverage(n, oc.dice.astype(np.int64), self.prob, oc.cand_start.astype(np.int64),
                     oc.cand_masks.astype(np.int64), self.cover, self.ways)
        self.allowed = np.asarray(rules.dice_allowed)
        self.count, self.top = _bits(n, rules.n_tiles)
        tiles = np.array(rules.tiles, dtype=np.float64)
        states = np.arange(n, dtype=np.int64)
        self.open_sum = sum(((states >> i) & 1) * t for i, t in enumerate(tiles))
        self.choice = bool((self.allowed == DICE_BOTH).any())

    def dice(self, habit: str) -> np.ndarray:
        """int8 (n_states,): the dice code each state rolls under a dice habit."""
        a = self.allowed
        d = np.where(a == DICE_ONE, 1, 2).astype(np.int8)
        both = a == DICE_BOTH
        if habit == "one":
            d[both] = 1
        elif habit == "cover":
            d[both & (self.cover[0] > self.cover[1] + 1e-12)] = 1
        return d

    def key(self, name: str, dice: np.ndarray) -> np.ndarray:
        """float64 (n_states,): the value of a preference for every bitmask (higher is preferred)."""
        idx = np.arange(len(dice))
        if name == "highest-tile":
            v = self.top.copy()
        elif name == "fewest-tiles":
            v = -self.count
        elif name == "most-tiles":
            v = self.count.copy()
        elif name == "most-ways":
            v = self.ways[dice - 1, idx]
            v[0] = 1e12
        elif name == "best-cover":
            v = self.cover[dice - 1, idx]
            v[0] = 2.0
        elif name == "lowest-top":
            v = -self.top
        elif name == "one-die-ready":
            v = ((self.allowed & DICE_ONE) != 0).astype(np.float64)
            v[0] = 2.0
        else:  # lowest-sum
            v = -self.open_sum.astype(np.float64)
        return np.round(v, 12)


def _check_tie_break(tie_break: str) -> bool:
    if tie_break not in TIE_BREAKS:
        raise ThumbError(f"a rule of thumb breaks its last ties high or low, not {tie_break!r} "
                         "(random ties make a chance mix, not a rule to remember)")
    return tie_break == "low"


def _check_rule(keys, habit: str):
    keys = tuple(keys)
    if not 1 <= len(keys) <= MAX_KEYS:
        raise ThumbError(f"a rule of thumb has 1 to {MAX_KEYS} preferences, not {len(keys)}: "
                         f"choose from {', '.join(KEYS)}")
    for k in keys:
        if k not in KEYS:
            raise ThumbError(f"unknown preference {k!r}: allowed are {', '.join(KEYS)}")
    if len(set(keys)) != len(keys):
        raise ThumbError(f"preference {next(k for k in keys if keys.count(k) > 1)!r} is listed twice: "
                         "each preference appears once")
    if habit not in DICE_HABITS:
        raise ThumbError(f"unknown dice habit {habit!r}: allowed are {', '.join(DICE_HABITS)}")
    return keys


def _build(tab: _Tables, keys, habit: str, reached_only: bool = False, tie_break: str = "high"):
    """The policy of a rule; with ``reached_only`` its moves only where the turn can go, and its
    exact :class:`~ludolab.sim.box_exact.Evaluation` (one forward pass)."""
    rules = tab.rules
    oc = rules.outcomes
    dice = tab.dice(habit)
    vals = np.zeros((MAX_KEYS, rules.n_states))
    on_move = np.zeros(MAX_KEYS, dtype=np.bool_)
    for i, k in enumerate(keys):
        vals[i] = tab.key(k, dice)
        on_move[i] = k in _ON_MOVE
    move = np.full((rules.n_states, oc.n), TK.NO_MOVE, dtype=getattr(rules, "move_dtype", np.int16))
    low = _check_tie_break(tie_break)
    name = rule_name(keys, habit if tab.choice else None, tie_break)
    pol = Policy(name, rules, move, dice, {"policy": name, "keys": list(keys), "dice_habit": habit,
                                           "tie_break": tie_break})
    if not reached_only:
        TK._lex_table(rules.n_states, oc.n, tab.starts, tab.masks, vals, on_move, len(keys), low, move)
        return pol
    final = np.zeros(rules.n_states)
    visit = np.zeros(rules.n_states)
    TK._lex_evaluate(rules.full, (tab.out_dice, tab.prob, tab.starts, tab.masks), (vals, on_move, len(keys), low),
                     dice, move, final, visit)
    return pol, box_exact.Evaluation(pol, final, visit)


def rule_name(keys, habit: str | None = None, tie_break: str = "high") -> str:
    """Short name of a rule of thumb: ``highest-tile > most-ways`` (``; dice cover`` when a habit is given,
    ``; ties low`` when the last ties go to the lowest tiles)."""
    text = " > ".join(keys)
    if habit:
        text += f"; dice {habit}"
    return text + "; ties low" if tie_break == "low" else text


def thumb_policy(rules: BoxRules, keys, habit: str = "cover", tie_break: str = "high") -> Policy:
    """The policy table of one rule of thumb (STB-O6).

    Args:
        rules: the ruleset.
        keys: 1 to 3 distinct preferences from :data:`KEYS`, most important first.
        habit: the dice habit, one of :data:`DICE_HABITS` (used where the one-die
            rule gives a choice, STB-6).
        tie_break: ``high`` or ``low``: where the last tie goes (STB-T1).

    Returns:
        :class:`~ludolab.sim.box_exact.Policy`: ``move`` (n_states, n_outcomes)
        bitmasks (-1 where no move is legal), ``dice`` int8 (n_states,) 1 or 2,
        named by :func:`rule_name`.

    Raises:
        ThumbError: an unknown or repeated preference, too many, or an unknown habit or tie-break.
    """
    keys = _check_rule(keys, habit)
    return _build(_Tables(rules), keys, habit, tie_break=tie_break)


def describe_rule(rules: BoxRules, keys, habit: str = "cover", tie_break: str = "high") -> list[str]:
    """The rule of thumb in words, one line per preference, then the dice habit if the rules give a choice.

    Raises:
        ThumbError: as :func:`thumb_policy`.
    """
    keys = _check_rule(keys, habit)
    _check_tie_break(tie_break)
    lines = [KEY_WORDS[keys[0]].capitalize()] + [f"then {KEY_WORDS[k]}" for k in keys[1:]]
    lines[-1] += f"; any tie left: cover the {'lowest' if tie_break == 'low' else 'highest'} tiles"
    if bool((np.asarray(rules.dice_allowed) == DICE_BOTH).any()):
        full = rules.dice_words(2) if hasattr(rules, "dice_words") else "two dice"
        lines.append({
            "cover": f"When one die is allowed, roll it if it is likelier than {full} to make a roll you can cover",
            "one": "Roll one die whenever the rules allow it",
            "full": f"Roll {full} whenever the rules allow it",
        }[habit])
    return lines


def _objective_value(ev, objective: str, target, ties_win: bool) -> float:
    if objective == "expected-score":
        return ev.mean()
    if objective == "shut":
        return ev.p_shut
    return ev.p_below(target, ties_win)


def search_rules_of_thumb(rules: BoxRules, objective: str = "expected-score", target: int | None = None,
                          ties_win: bool = False, max_keys: int = MAX_KEYS, tie_break: str = "high") -> "pd.DataFrame":
    """Every rule of thumb of up to ``max_keys`` preferences, each evaluated exactly, best first (STB-O6).

    Args:
        rules: the ruleset.
        objective, target, ties_win: what the cost is measured in (STB-O1..STB-O3:
            mean score, chance to shut, chance to beat ``target``).
        max_keys: longest preference list tried, 1..3.
        tie_break: ``high`` or ``low``: where every rule's last tie goes (STB-T1).

    Returns:
        DataFrame, one row per distinct way of playing, best first (then
        shortest): ``rule`` (name, :func:`rule_name`), ``keys`` (number of
        preferences), ``dice`` (habit, or ``None`` when the one-die rule gives
        no choice), ``mean_score`` (points), ``p_shut`` (probability), ``value``
        (the objective), ``optimal`` (the optimal value), ``cost`` (how much
        worse than optimal, in points or probability, >= 0).  ``attrs``:
        ``objective`` (label), ``tried`` (rules evaluated), ``distinct``,
        ``optimal``.

    Raises:
        LudolabError: a bad objective or target; ThumbError: ``max_keys`` out of range.
    """
    import pandas as pd

    if isinstance(max_keys, bool) or not isinstance(max_keys, (int, np.integer)) or not 1 <= max_keys <= MAX_KEYS:
        raise ThumbError(f"a rule of thumb has 1 to {MAX_KEYS} preferences; max_keys {max_keys!r} is not allowed")
    _check_tie_break(tie_break)
    sol = box_exact.solve(rules, objective, target, ties_win)
    best = sol.start_value
    sense = -1.0 if objective == "expected-score" else 1.0
    tab = _Tables(rules)
    habits = DICE_HABITS if tab.choice else ("cover",)
    seen = set()
    rows = []
    tried = 0
    for n_keys in range(1, max_keys + 1):
        for keys in itertools.permutations(KEYS, n_keys):
            for habit in habits:
                tried += 1
                pol, ev = _build(tab, keys, habit, reached_only=True, tie_break=tie_break)
                reached = ev.visit > 0
                sig = (pol.move[reached].tobytes(), pol.dice[reached].tobytes())
                if sig in seen:
                    continue
                seen.add(sig)
                v = _objective_value(ev, objective, target, ties_win)
                rows.append({"rule": pol.name, "keys": n_keys, "dice": habit if tab.choice else None,
                             "mean_score": ev.mean(), "p_shut": ev.p_shut, "value": v, "optimal": best,
                             "cost": max(0.0, sense * (best - v))})
    df = pd.DataFrame(rows)
    df = df.sort_values(["cost", "keys"], kind="stable").reset_index(drop=True)
    df.attrs.update(objective=sol.label, tried=tried, distinct=len(df), optimal=best)
    return df


def best_rules_of_thumb(rules: BoxRules, objective: str = "expected-score", target: int | None = None,
                        ties_win: bool = False, top: int = 5, max_keys: int = MAX_KEYS,
                        tie_break: str = "high") -> "pd.DataFrame":
    """The ``top`` best rules of thumb (:func:`search_rules_of_thumb`), with their exact cost against optimal play.

    Returns:
        The first ``top`` rows of :func:`search_rules_of_thumb`, same columns and attrs.

    Raises:
        As :func:`search_rules_of_thumb`; ThumbError: ``top`` below 1.
    """
    if isinstance(top, bool) or not isinstance(top, (int, np.integer)) or top < 1:
        raise ThumbError(f"top must be a whole number >= 1, not {top!r}")
    df = search_rules_of_thumb(rules, objective, target, ties_win, max_keys, tie_break)
    out = df.head(top).copy()
    out.attrs.update(df.attrs)
    return out


def thumb_survey(rules: BoxRules, one_die_rules=None, objectives=("expected-score", "shut"),
                 top: int = 3, tie_break: str = "high") -> "pd.DataFrame":
    """The best rules of thumb for each one-die rule and objective (STB-6, STB-O6).

    Args:
        rules: the other rules (tiles, dice, moves, scoring).
        one_die_rules: one-die rules to survey; ``None`` for today's six names.
        objectives: ``expected-score`` and/or ``shut``.
        top: rules listed per (one-die rule, objective).

    Returns:
        DataFrame with ``one_die``, ``objective`` (label), ``rank`` (1 = best),
        then the columns of :func:`search_rules_of_thumb`.

    Raises:
        RulesError: an invalid one-die rule; LudolabError: a bad objective.
    """
    import pandas as pd

    from ludolab.stdlib.box import ONE_DIE_RULES

    parts = []
    for rule in (ONE_DIE_RULES if one_die_rules is None else one_die_rules):
        r = rules.replace(one_die=rule)
        for objective in objectives:
            df = best_rules_of_thumb(r, objective, top=top, tie_break=tie_break)
            df.insert(0, "rank", np.arange(1, len(df) + 1))
            df.insert(0, "objective", df.attrs["objective"])
            df.insert(0, "one_die", rule)
            parts.append(df)
    return pd.concat(parts, ignore_index=True)


def parse_rule(text: str) -> tuple[tuple[str, ...], str | None]:
    """Read a rule written as :func:`rule_name` writes it: ``highest-tile > most-ways; dice cover``.

    Preferences may also be separated by commas.  Returns ``(keys, habit)``,
    ``habit`` ``None`` when not given; a ``; ties low`` part is read by
    :func:`parse_tie_break`.

    Raises:
        ThumbError: an unknown or repeated preference, habit or tie-break.
    """
    parts = [p.strip() for p in str(text).strip().split(";")]
    text, habit = parts[0], None
    for rest in parts[1:]:
        if rest.startswith("ties"):
            parse_tie_break(f"x; {rest}")
        else:
            habit = rest.removeprefix("dice").strip()
    keys = tuple(k.strip() for k in text.replace(">", ",").split(",") if k.strip())
    _check_rule(keys, habit or "cover")
    return keys, habit


def parse_tie_break(text: str) -> str:
    """The tie-break of a rule written as :func:`rule_name` writes it: ``low`` after ``; ties low``, else ``high``.

    Raises:
        ThumbError: a tie-break other than high or low.
    """
    for part in str(text).split(";")[1:]:
        part = part.strip()
        if part.startswith("ties"):
            tb = part.removeprefix("ties").strip()
            _check_tie_break(tb)
            return tb
    return "high"


def thumb_exceptions(rules: BoxRules, keys, habit: str = "cover", objective: str = "expected-score",
                     target: int | None = None, ties_win: bool = False, top: int | None = 6,
                     tie_break: str = "high") -> "pd.DataFrame":
    """Where a rule of thumb goes wrong, and what to do instead, most costly first (STB-O6).

    Each row is one situation the rule meets (open tiles and roll, or the dice
    choice before a roll) where its choice is worse than the optimal one.  The
    loss is judged with the optimal values of what follows (so each row says
    what fixing that one situation alone gains).

    Args:
        rules, keys, habit, tie_break: the rule of thumb (:func:`thumb_policy`).
        objective, target, ties_win: the objective (STB-O1..STB-O3).
        top: rows returned (``None`` for every situation where the rule loses).

    Returns:
        DataFrame: ``open`` (open tiles, text ``"1,2,4"``), ``dice`` (1 or 2,
        the dice of the roll), ``roll`` (label, ``None`` for a dice choice),
        ``rule_plays`` (tiles the rule covers, or the dice it rolls),
        ``instead`` (the optimal choice), ``loss`` (value lost each time, in
        points or probability), ``how_often`` (chance per turn that the rule
        meets the situation), ``expected_loss`` (``loss * how_often``).

    Raises:
        ThumbError, LudolabError: as :func:`thumb_policy` and :func:`search_rules_of_thumb`.
    """
    import pandas as pd

    keys = _check_rule(keys, habit)
    tab = _Tables(rules)
    pol = _build(tab, keys, habit, tie_break=tie_break)
    ev = box_exact.evaluate(pol)
    sol = box_exact.solve(rules, objective, target, ties_win)
    sense = -1.0 if objective == "expected-score" else 1.0
    terminal, _ = box_exact.terminal_utility(rules, objective, target, ties_win)
    value = sol.value
    oc = rules.outcomes
    prob = tab.prob
    words = (lambda d: rules.dice_words(d)) if hasattr(rules, "dice_words") else (lambda d: "one die" if d == 1
                                                                                    else "two dice")

    def after(s, o, m):
        return terminal[s] if m < 0 else value[s ^ m]

    def q(s, d):
        return sum(prob[o] * after(s, o, int(sol.move[s, o])) for o in range(oc.n) if oc.dice[o] == d)

    rows = []
    for s in np.nonzero(ev.visit > 0)[0]:
        s = int(s)
        if s == 0:
            continue
        d = int(pol.dice[s])
        if int(rules.dice_allowed[s]) == DICE_BOTH and d != int(sol.dice[s]):
            loss = sense * (q(s, int(sol.dice[s])) - q(s, d))
            if loss > 1e-12:
                rows.append({"open": rules.format_state(s), "dice": d, "roll": None, "rule_plays": words(d),
                             "instead": words(int(sol.dice[s])), "loss": loss, "how_often": ev.visit[s]})
        for o in range(oc.n):
            if oc.dice[o] != d:
                continue
            m, best = int(pol.move[s, o]), int(sol.move[s, o])
            if m == best or m < 0:
                continue
            loss = sense * (value[s ^ best] - value[s ^ m])
            if loss > 1e-12:
                rows.append({"open": rules.format_state(s), "dice": d, "roll": oc.label[o],
                             "rule_plays": rules.format_state(m), "instead": rules.format_state(best),
                             "loss": loss, "how_often": ev.visit[s] * prob[o]})
    df = pd.DataFrame(rows, columns=["open", "dice", "roll", "rule_plays", "instead", "loss", "how_often"])
    df["expected_loss"] = df["loss"] * df["how_often"]
    df = df.sort_values("expected_loss", ascending=False, kind="stable")
    if top is not None:
        df = df.head(top)
    df = df.reset_index(drop=True)
    df.attrs.update(rule=pol.name, objective=sol.label)
    return df
