"""Beverbende: the validated face of the engine (policies, simulation, comparison, conformance).

Every function here validates its arguments (a :class:`LudolabError` subclass
naming the bad value and the allowed ones), runs the numba kernels of
:mod:`ludolab.sim.beverbende_kernels` through the generic runner and returns
plain dicts or pandas DataFrames.  Clause ids (``BVB-n``) refer to
``seeds/beverbende.md``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from ludolab.stdlib.beverbende import CARD_NAMES, DRAW2, PEEK, SLOTS, SWAP, BeverbendeRules, card_name
from ludolab.stdlib.errors import LudolabError, unknown

from . import beverbende_kernels as K
from . import beverbende_reference as REF
from .conformance import Conformance
from .experiment import DEFAULT_CHUNKS
from .rng import chunk_keys, py_game_state
from .runner import RunSpec, run
from .stats import mean_ci, paired_diff_ci, wilson_ci

GAME_ID = "beverbende"
KERNELS = "ludolab.sim.beverbende_kernels"


class PolicyError(LudolabError):
    """An unknown policy name or bad policy parameters."""


# ------------------------------------------------------------------ policies
#: Parameter names and defaults of each policy kind (the order of the kernel's parameter array).
POLICY_PARAMS = {
    "random": {},
    "threshold": {"knock": 10.0, "take": 2.0, "unknown": 4.5, "exchange": 1.0, "swap": 6.0, "peek": 1.0,
                  "draw2": 1.0},
    "expected-value": {"margin": 4.0, "kmax": 6.0, "take": 1.0, "exchange": 0.5, "swapgain": 1.0},
}
POLICY_KINDS = {"random": K.K_RANDOM, "threshold": K.K_THRESHOLD, "expected-value": K.K_EV}
POLICY_HELP = {
    "random": "uniformly random among the legal decisions",
    "threshold": "knock when the believed total <= knock; take the discard when it improves the worst "
                 "believed card by >= take; unknown cards count as `unknown`; exchange a drawn card when it "
                 "improves by >= exchange; swap away a card >= swap; peek/draw2 on (1) or off (0)",
    "expected-value": "unknown cards valued at the mean of the unseen number cards; knock when the own "
                      "expected total + margin <= every opponent's, or <= kmax",
}


@dataclass(frozen=True)
class Policy:
    """A policy as data: the catalogue ``name``, the kernel's ``kind`` id and its parameters.

    Attributes:
        name: ``random``, ``threshold`` or ``expected-value``.
        params: tuple of ``beverbende_kernels.N_PARAMS`` floats (names in :data:`POLICY_PARAMS`).
    """

    name: str
    kind: int
    params: tuple = field(default=(0.0,) * K.N_PARAMS)

    @property
    def label(self) -> str:
        """Name with the parameters that differ from the defaults, e.g. ``threshold(knock=8)``."""
        names = list(POLICY_PARAMS[self.name])
        defaults = list(POLICY_PARAMS[self.name].values())
        diff = [f"{n}={_fmt(v)}" for n, v, d in zip(names, self.params, defaults) if v != d]
        return self.name + (f"({','.join(diff)})" if diff else "")

    def as_dict(self) -> dict:
        return {"name": self.name, "label": self.label,
                "params": dict(zip(POLICY_PARAMS[self.name], self.params[:len(POLICY_PARAMS[self.name])]))}


def _fmt(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:g}"


def make_policy(name: str = "threshold", **params) -> Policy:
    """A policy of the catalogue (BVB-13: it sees only its player's knowledge).

    Args:
        name: ``random``, ``threshold`` or ``expected-value``.
        params: parameter overrides by name (see :data:`POLICY_PARAMS`).

    Raises:
        PolicyError: unknown name, unknown parameter or a value that is not a finite number.
    """
    if name not in POLICY_PARAMS:
        raise PolicyError(unknown("policy", name, POLICY_PARAMS).args[0])
    vals = dict(POLICY_PARAMS[name])
    for k, v in params.items():
        if k not in vals:
            allowed = ", ".join(vals) if vals else "none"
            raise PolicyError(f"policy {name} has no parameter {k!r}: allowed are {allowed}")
        try:
            v = float(v)
        except (TypeError, ValueError):
            raise PolicyError(f"parameter {k} of policy {name} must be a number, not {v!r}") from None
        if not np.isfinite(v):
            raise PolicyError(f"parameter {k} of policy {name} must be a finite number, not {v!r}")
        vals[k] = v
    p = list(vals.values()) + [0.0] * (K.N_PARAMS - len(vals))
    return Policy(name, POLICY_KINDS[name], tuple(p))


def parse_policy(text: str) -> Policy:
    """Read ``"threshold"``, ``"threshold:knock=8,take=3"`` or ``"expected-value:margin=2"``.

    Raises:
        PolicyError: unknown name or parameter, or unreadable text.
    """
    text = str(text).strip()
    name, _, rest = text.partition(":")
    params = {}
    if rest.strip():
        for part in rest.split(","):
            k, eq, v = part.partition("=")
            if not eq:
                raise PolicyError(f"cannot read policy parameter {part!r} in {text!r}: write name=value, "
                                  "e.g. threshold:knock=8,take=3")
            if k.strip() in params:  # given twice: refused, never the last one taken
                raise PolicyError(f"policy parameter {k.strip()} is given twice in {str(text)!r}: give each "
                                  "parameter once")
            params[k.strip()] = v.strip()
    return make_policy(name.strip(), **params)


def as_policy(p) -> Policy:
    return p if isinstance(p, Policy) else parse_policy(p)


def seat_arrays(rules: BeverbendeRules, policies) -> tuple[np.ndarray, np.ndarray]:
    """Kind ids int64 (P,) and parameters float64 (P, N_PARAMS) from one policy or one per seat.

    Raises:
        PolicyError: a list whose length is not the number of players, or a bad policy.
    """
    P = rules.players
    pl = list(policies) if isinstance(policies, (list, tuple)) else [policies] * P
    if len(pl) != P:
        raise PolicyError(f"give one policy, or one for each of the {P} seats, not {len(pl)}")
    pl = [as_policy(x) for x in pl]
    return (np.array([x.kind for x in pl], dtype=np.int64),
            np.array([x.params for x in pl], dtype=np.float64))


def memory_array(rules: BeverbendeRules, memory_loss=None) -> np.ndarray:
    """Forgetting thresholds int64 (P,) out of 2**24 (BVB-13): the rules' q for every seat, or one q per seat.

    Raises:
        LudolabError: a q outside [0, 1] or a list of the wrong length.
    """
    P = rules.players
    if memory_loss is None:
        qs = [rules.memory_loss] * P
    elif isinstance(memory_loss, (list, tuple, np.ndarray)):
        qs = list(memory_loss)
        if len(qs) != P:
            raise LudolabError(f"give one memory loss, or one for each of the {P} seats, not {len(qs)}")
    else:
        qs = [memory_loss] * P
    out = []
    for q in qs:
        out.append(rules.with_changes(memory_loss=q).memory_q24)
    return np.array(out, dtype=np.int64)


# ------------------------------------------------------------------ simulation
def _spec(kernel, args, shape, games, seed, chunks, label):
    return RunSpec(GAME_ID, f"{KERNELS}:{kernel}", args, shape, "int64", games, seed, chunks, label)


def _ci_dict(e) -> dict:
    return {"value": e.value, "ci_low": None if np.isnan(e.low) else e.low,
            "ci_high": None if np.isnan(e.high) else e.high}


def simulate(rules: BeverbendeRules, policies="threshold", rounds: int = 10_000, seed: int = 0,
             chunks: int = DEFAULT_CHUNKS, memory_loss=None, progress=False) -> dict:
    """Monte Carlo of single rounds, seat 0 starting (BVB-3..BVB-13, BVB-15 for the round score).

    Args:
        policies: one policy (name, text or :class:`Policy`) for every seat, or a list, one per seat.
        rounds: number of rounds; seed: root seed; memory_loss: q for all seats or one per seat
            (default the rules' q).

    Returns:
        JSON-able dict: ``rounds``, ``mean_score`` (mean round score over all seats) with its 95% CI,
        ``capped_rounds``, ``mean_turns`` and ``seats``, one dict per seat (mean score and CI,
        probability of the strictly lowest row, of a shared lowest, knock rate, ``row_value_counts``: the
        number of rounds ending with each row value 0..36, ...).

    Raises:
        PolicyError, LudolabError: bad policies, counts or seed.
    """
    kinds, params = seat_arrays(rules, policies)
    mem = memory_array(rules, memory_loss)
    P = rules.players
    spec = _spec("_simulate_rounds", (rules.rules_array(), kinds, params, mem), (P + 1, K.N_ROUND_STATS),
                 rounds, seed, chunks, "rounds").with_metric("ludolab.sim.metrics:mean", (P, K.RT_MEAN), (P, K.RT_MEAN2), 1 / P)
    out = run(spec, progress).sum(axis=0)
    n = spec.plan().n_games
    hi = 36 + (rules.knock_penalty if rules.scoring == "knocker-penalty" else 0)
    t = out[P]
    mean = mean_ci(n, t[K.RT_MEAN] / P, t[K.RT_MEAN2] / P / P, bounds=(0, hi))
    labels = [as_policy(x).label for x in (policies if isinstance(policies, (list, tuple)) else [policies] * P)]
    seats = []
    for p in range(P):
        o = out[p]
        sc = mean_ci(n, o[K.RS_SCORE], o[K.RS_SCORE2], bounds=(0, hi))
        win = wilson_ci(int(o[K.RS_WIN]), n)
        tie = wilson_ci(int(o[K.RS_TIE]), n)
        kn = wilson_ci(int(o[K.RS_KNOCK]), n)
        seats.append({"seat": p, "policy": labels[p], "mean_score": sc.value, "mean_score_ci": [sc.low, sc.high],
                      "p_lowest_alone": win.value, "p_lowest_alone_ci": [win.low, win.high],
                      "p_lowest_shared": tie.value, "p_lowest_shared_ci": [tie.low, tie.high],
                      "knock_rate": kn.value, "knock_rate_ci": [kn.low, kn.high],
                      "p_knock_wins": (float(o[K.RS_KNOCK_WIN] / o[K.RS_KNOCK]) if o[K.RS_KNOCK] else None),
                      "row_value_counts": [int(x) for x in o[K.RS_HIST:K.RS_HIST + 37]]})
    turns = mean_ci(n, t[K.RT_TURNS], t[K.RT_TURNS2])
    return {"game": GAME_ID, "rules": rules.as_dict(), "rounds": int(n), **spec.provenance(),
            "mean_score": mean.value, "mean_score_ci": [_nan_none(mean.low), _nan_none(mean.high)],
            "mean_turns": turns.value, "capped_rounds": int(t[K.RT_CAPPED]),
            "reshuffles_per_round": float(t[K.RT_RESHUFFLES] / n), "seats": _clean_seats(seats)}


def _nan_none(x):
    return None if x is None or (isinstance(x, float) and np.isnan(x)) else float(x)


def _clean_seats(seats):
    for s in seats:
        for k, v in list(s.items()):
            if isinstance(v, list):
                s[k] = [_nan_none(x) for x in v]
            elif isinstance(v, (float, np.floating)):
                s[k] = _nan_none(float(v))
    return seats


def compare(rules: BeverbendeRules, candidates, field="threshold", rounds: int = 10_000, seed: int = 0,
            chunks: int = DEFAULT_CHUNKS, focal: int = 0, memory_loss=None, progress=False):
    """Candidates in seat ``focal`` against a field, on common random numbers (the same deals and
    streams for every candidate).

    Args:
        candidates: list of policies for the focal seat.
        field: the policy of every other seat.
        focal: the seat the candidates play (0 starts the round).

    Returns:
        pandas DataFrame, one row per candidate: ``policy``, ``mean_score`` and CI (the focal seat's round
        score), ``p_lowest_alone`` (strictly lowest row) and CI, ``p_lowest_shared``, ``knock_rate``,
        ``diff_vs_first`` (paired mean score difference against the first candidate) and its CI,
        ``margin`` (the focal seat's round score minus the mean of the other seats': what decides a game
        scored by sums; negative is good) and its CI, ``capped_rounds``.

    Raises:
        PolicyError, LudolabError: bad policies, seat or counts.
    """
    import pandas as pd

    P = rules.players
    if isinstance(focal, bool) or not isinstance(focal, (int, np.integer)) or not 0 <= focal < P:
        raise LudolabError(f"the focal seat must be 0..{P - 1}, not {focal!r}")
    cands = [as_policy(c) for c in candidates]
    if not cands:
        raise PolicyError("give at least one candidate policy")
    fld = as_policy(field)
    kinds = np.zeros((len(cands), P), dtype=np.int64)
    params = np.zeros((len(cands), P, K.N_PARAMS), dtype=np.float64)
    for a, c in enumerate(cands):
        seats = [fld] * P
        seats[focal] = c
        kinds[a], params[a] = seat_arrays(rules, seats)
    mem = np.tile(memory_array(rules, memory_loss), (len(cands), 1))
    Kc = len(cands)
    spec = _spec("_compare_rounds", (rules.rules_array(), kinds, params, mem, int(focal)), (Kc, Kc + 10),
                 rounds, seed, chunks, "rounds").with_metric("ludolab.sim.metrics:mean", (0, Kc), (0, Kc + 1))
    out = run(spec, progress).sum(axis=0)
    n = int(spec.plan().n_games)
    hi = 36 + (rules.knock_penalty if rules.scoring == "knocker-penalty" else 0)
    rows = []
    for a, c in enumerate(cands):
        sc = mean_ci(n, out[a, Kc], out[a, Kc + 1], bounds=(0, hi))
        win = wilson_ci(int(out[a, Kc + 2]), n)
        d = paired_diff_ci(n, float(out[a, Kc] - out[0, Kc]), float(out[a, 0]), bounds=(-hi, hi))
        mg = mean_ci(n, out[a, Kc + 8] / (P - 1), out[a, Kc + 9] / (P - 1) ** 2, bounds=(-hi, hi))
        rows.append({"policy": c.label, "field": fld.label, "players": P, "seat": int(focal),
                     "mean_score": sc.value, "mean_score_ci_low": sc.low, "mean_score_ci_high": sc.high,
                     "p_lowest_alone": win.value, "p_lowest_alone_ci_low": win.low,
                     "p_lowest_alone_ci_high": win.high,
                     "p_lowest_shared": out[a, Kc + 3] / n, "knock_rate": out[a, Kc + 5] / n,
                     "diff_vs_first": d.value, "diff_vs_first_ci_low": d.low, "diff_vs_first_ci_high": d.high,
                     "margin": mg.value, "margin_ci_low": mg.low, "margin_ci_high": mg.high,
                     "table_mean_score": out[a, Kc + 6] / n / P,
                     "capped_rounds": int(out[a, Kc + 4]), "rounds": n})
    return pd.DataFrame(rows)


def simulate_games(rules: BeverbendeRules, policies="threshold", games: int = 2_000, seed: int = 0,
                   chunks: int = DEFAULT_CHUNKS, memory_loss=None, progress=False):
    """Whole games (BVB-14, BVB-15): per seat the probability of winning the game.

    Returns:
        pandas DataFrame, one row per seat: ``p_win_alone`` (sole winner) and CI, ``p_win_shared``,
        ``mean_total`` and CI; ``attrs["capped_rounds"]``.
    """
    import pandas as pd

    kinds, params = seat_arrays(rules, policies)
    mem = memory_array(rules, memory_loss)
    P = rules.players
    spec = _spec("_simulate_games", (rules.rules_array(), kinds, params, mem), (P + 1, 4), games, seed, chunks,
                 "games").with_metric("ludolab.sim.metrics:proportion", (0, 0))
    out = run(spec, progress).sum(axis=0)
    n = int(spec.plan().n_games)
    labels = [as_policy(x).label for x in (policies if isinstance(policies, (list, tuple)) else [policies] * P)]
    rows = []
    for p in range(P):
        w = wilson_ci(int(out[p, 0]), n)
        t = mean_ci(n, out[p, 2], out[p, 3])
        rows.append({"seat": p, "policy": labels[p], "p_win_alone": w.value, "p_win_alone_ci_low": w.low,
                     "p_win_alone_ci_high": w.high, "p_win_shared": out[p, 1] / n, "mean_total": t.value,
                     "mean_total_ci_low": t.low, "mean_total_ci_high": t.high, "games": n})
    df = pd.DataFrame(rows)
    df.attrs["capped_rounds"] = int(out[P, 0])
    df.attrs.update(spec.provenance())
    return df


# ------------------------------------------------------------------ traces, conformance
_ARGN = {1: 4, 2: 2, 3: 4, 4: 2, 5: 4, 6: 3, 7: 1, 8: 1, 9: 3, 10: 3, 11: 2, 12: 2, 13: 1, 14: 3, 15: 1}
#: positions (after the event name) that hold a card
_CARD_ARGS = {"take": (2, 3), "draw": (1,), "exchange": (2, 3), "discard": (1,), "peek": (2,), "replace": (2,),
              "perform": (1,), "aside": (2,)}


def _named(events):
    out = []
    for e in events:
        e = list(e)
        for i in _CARD_ARGS.get(e[0], ()):
            e[i + 1] = card_name(e[i + 1])
        out.append(e)
    return out


def trace_round(rules: BeverbendeRules, policies, key: int, g: int, start: int = 0, memory_loss=None,
                engine: str = "kernel") -> dict:
    """One round traced move by move (JSON-able), by the kernel or the reference engine.

    Returns:
        dict with ``players``, ``start``, ``composition``, ``exchange_specials``, ``policies``, ``deal``
        (the shuffled deck as card names), ``events`` (``[name, args...]``), ``knocker``, ``capped``,
        ``scores``.
    """
    kinds, params = seat_arrays(rules, policies)
    mem = memory_array(rules, memory_loss)
    P = rules.players
    if engine == "kernel":
        trace = np.zeros((50_000, 5), dtype=np.int64)
        deal = np.zeros(rules.n_cards, dtype=np.int64)
        sc = np.zeros(P, dtype=np.int64)
        kn = K._trace_round(np.uint64(key), g, rules.rules_array(), kinds, params, mem, start, deal, trace, sc)
        n = int(trace[0, 0])
        if n >= trace.shape[0] - 1:
            raise LudolabError("the round is too long to trace: lower the round cap")
        from .beverbende_reference import EVENTS
        events = [[EVENTS[int(r[0])]] + [int(x) for x in r[1:1 + _ARGN[int(r[0])]]] for r in trace[1:n + 1]]
        deck, scores, knocker = deal.tolist(), sc.tolist(), (None if kn < 0 else int(kn))
        capped = any(e[0] == "cap" for e in events)
    elif engine == "reference":
        r, scores, _, deck = REF.play_round(rules, kinds.tolist(), params.tolist(), mem.tolist(),
                                            py_game_state(key, g), start)
        events, knocker, capped = r.events, r.knocker, r.capped
    else:
        raise unknown("engine", engine, ("kernel", "reference"))
    return {"players": P, "start": int(start), "composition": list(rules.composition),
            "exchange_specials": rules.exchange_specials, "round_cap": rules.round_cap,
            "policies": [as_policy(x).label for x in (policies if isinstance(policies, (list, tuple))
                                                      else [policies] * P)],
            "deal": [card_name(c) for c in deck], "events": _named(events), "knocker": knocker,
            "capped": bool(capped), "scores": [int(x) for x in scores]}


def _conformance_case(g: int):
    """The rules and policies of conformance game g: all player counts, every policy kind, memory loss,
    the exchange_specials option, and rounds nobody knocks (round cap, reshuffles)."""
    P = 2 + g % 5
    q = (0.0, 0.1, 0.5)[g % 3]
    never = make_policy("threshold", knock=-1)
    menu = [make_policy("random"), make_policy("threshold"), make_policy("expected-value"), never]
    pols = [menu[(g // 5 + p) % 4] for p in range(P)]
    if g % 7 == 3:
        pols = [never] * P
    cap = 30 + 37 * (g % 4)
    rules = BeverbendeRules(players=P, memory_loss=q, round_cap=cap, exchange_specials=(g % 11 == 5))
    return rules, pols, (g // 3) % P


def _play(seed: int, games: int, engine: str) -> list:
    key = int(chunk_keys(seed, 1)[0])
    out = []
    for g in range(games):
        rules, pols, start = _conformance_case(g)
        out.append(trace_round(rules, pols, key, g, start, engine=engine))
    return out


def check_record(rec: dict) -> None:
    """Replay a traced round and assert the rules (BVB-1..BVB-12) and the conservation of every card.

    Raises:
        AssertionError: naming the broken invariant and the event.
    """
    P = rec["players"]
    comp = rec["composition"]
    idx = {n: i for i, n in enumerate(CARD_NAMES)}
    deck = [idx[c] for c in rec["deal"]]
    assert Counter(deck) == Counter({k: n for k, n in enumerate(comp) if n}), "BVB-1: the deal is not the deck"
    full = Counter(deck)
    rows = [deck[SLOTS * p:SLOTS * p + SLOTS] for p in range(P)]
    discard = [deck[SLOTS * P]]
    pile_order = deck[SLOTS * P + 1:]
    pile = Counter(pile_order)
    ordered = True
    aside = []
    hand = []
    seat = None
    turns = 0
    knocker = None
    performing = None
    acted = False
    may_draw = False
    pending_two = False
    first_of_two = False
    ended = False
    replacing = False
    replace_order = []

    def conserved(where):
        c = Counter(pile)
        for r in rows:
            c.update(x for x in r if x is not None)
        c.update(discard)
        c.update(aside)
        c.update(hand)
        c = +c
        assert c == full, f"cards not conserved after {where}"

    for i, e in enumerate(rec["events"]):
        name = e[0]
        a = [idx[x] if isinstance(x, str) else x for x in e[1:]]
        where = f"event {i} {e}"
        if name == "turn":
            assert not ended and not replacing, f"a turn after the end of the round ({where})"
            assert not hand, f"a card left in hand ({where})"
            expect = rec["start"] if seat is None else (seat + 1) % P
            assert a[0] == expect, f"BVB-5: seat {a[0]} moved, expected {expect}"
            seat = a[0]
            turns += 1
            assert seat != knocker, "BVB-9: the knocker played again"
            acted = False
            performing = None
            may_draw, pending_two, first_of_two = True, False, False
        elif name == "forget":
            assert a[0] == seat
        elif name == "take":
            assert a[0] == seat and not acted
            assert discard and discard[-1] == a[2], f"BVB-6: took {e[3]} which is not the top discard"
            assert a[2] < 10, f"BVB-6: a special card was taken from the discard pile ({where})"
            assert rows[seat][a[1]] == a[3], f"wrong card replaced ({where})"
            discard.pop()
            rows[seat][a[1]] = a[2]
            discard.append(a[3])
            acted = True
            may_draw = False
            conserved(where)
        elif name == "draw":
            assert a[0] == seat and may_draw, f"BVB-5, BVB-8: a draw that no action allows ({where})"
            may_draw = False
            first_of_two, pending_two = pending_two, False
            assert pile[a[1]] > 0, f"drew {e[2]} which is not in the pile ({where})"
            if ordered:
                assert pile_order and pile_order[-1] == a[1], f"BVB-3: drew {e[2]}, not the top of the pile"
                pile_order.pop()
            pile[a[1]] -= 1
            hand.append(a[1])
            acted = True
        elif name == "exchange":
            assert hand == [a[2]], f"exchanged a card not in hand ({where})"
            assert a[2] < 10 or rec["exchange_specials"], f"BVB-7: a special card was exchanged ({where})"
            assert rows[seat][a[1]] == a[3]
            hand.clear()
            rows[seat][a[1]] = a[2]
            discard.append(a[3])
            first_of_two = False
            conserved(where)
        elif name in ("discard", "perform"):
            assert hand == [a[1]], f"{name} of a card not in hand ({where})"
            if name == "perform":
                assert a[1] >= 10, f"BVB-8: performed a number card ({where})"
                performing = a[1]
                if a[1] == DRAW2:
                    may_draw, pending_two = True, True
            elif first_of_two:
                may_draw = True
            first_of_two = False
            hand.clear()
            discard.append(a[1])
            conserved(where)
        elif name == "swap":
            assert performing == SWAP and a[2] != seat, f"BVB-8: bad swap ({where})"
            rows[seat][a[1]], rows[a[2]][a[3]] = rows[a[2]][a[3]], rows[seat][a[1]]
            conserved(where)
        elif name == "peek":
            assert performing == PEEK and rows[seat][a[1]] == a[2], f"BVB-8: bad peek ({where})"
        elif name == "reshuffle":
            assert sum(pile.values()) == 0, f"BVB-11: reshuffled a pile that was not empty ({where})"
            top = discard[-1]
            pile = Counter(discard[:-1])
            assert a[0] == len(discard) - 1
            discard = [top]
            ordered = False
            conserved(where)
        elif name == "knock":
            assert knocker is None and a[0] == seat, f"BVB-9: a second knock ({where})"
            assert turns >= P, f"BVB-9: knocked before every player had a turn ({where})"
            knocker = seat
        elif name == "cap":
            assert knocker is None and a[0] == rec["round_cap"], f"BVB-12: cap at the wrong turn ({where})"
            ended = True
        elif name == "aside":
            replacing = True
            assert rows[a[0]][a[1]] == a[2] and a[2] >= 10, f"BVB-10: put aside a number card ({where})"
            replace_order.append(a[0])
            aside.append(rows[a[0]][a[1]])
            rows[a[0]][a[1]] = None
        elif name == "replace":
            assert rows[a[0]][a[1]] is None and pile[a[2]] > 0, f"BVB-10: replacement not from the pile ({where})"
            if ordered:
                assert pile_order and pile_order[-1] == a[2], f"BVB-10: replaced with {e[3]}, not the top of the pile"
                pile_order.pop()
            pile[a[2]] -= 1
            rows[a[0]][a[1]] = a[2]
            conserved(where)
        elif name == "score":
            replacing = True
            assert all(c < 10 for c in rows[a[0]]), f"BVB-10: a special card left in a row ({where})"
            assert a[1] == sum(rows[a[0]]), f"BVB-10: score {a[1]} is not the row's sum ({where})"
        else:
            raise AssertionError(f"unknown event {where}")
    # turns played: count 'turn' events
    nturns = sum(1 for e in rec["events"] if e[0] == "turn")
    if knocker is not None:
        kpos = max(i for i, e in enumerate(rec["events"]) if e[0] == "knock")
        later = sum(1 for e in rec["events"][kpos:] if e[0] == "turn")
        assert later == P - 1, f"BVB-9: {later} turns after the knock, expected {P - 1}"
        assert not rec["capped"]
    else:
        assert rec["capped"] and nturns == rec["round_cap"], "BVB-12: a round without a knock must end at the cap"
    first = knocker if knocker is not None else rec["start"]
    order = [(first + i) % P for i in range(P)]
    pos = [order.index(p) for p in replace_order]
    assert pos == sorted(pos), "BVB-10: replacement not in order from the knocker clockwise"
    scores = [sum(r) for r in rows]
    assert rec["scores"] == scores, f"BVB-10: scores {rec['scores']} are not the rows' sums {scores}"
    assert all(0 <= s <= 36 for s in rec["scores"])
    assert rec["knocker"] == knocker


def playthrough(seed: int) -> str:
    """One short seeded round of three players, move by move, as text (the golden regression)."""
    rules = BeverbendeRules(players=3)
    pols = [make_policy("threshold"), make_policy("expected-value"), make_policy("threshold", knock=7)]
    key = int(chunk_keys(seed, 1)[0])
    rec = trace_round(rules, pols, key, 0, 0, engine="reference")
    P = rules.players
    lines = [f"Beverbende, {P} players, seed {seed}: " + ", ".join(f"seat {p} {x}" for p, x in
                                                                   enumerate(rec["policies"]))]
    for p in range(P):
        lines.append(f"seat {p} is dealt " + " ".join(rec["deal"][SLOTS * p:SLOTS * p + SLOTS]))
    lines.append(f"discard pile starts with {rec['deal'][SLOTS * P]}")
    say = {
        "turn": lambda a: f"-- seat {a[0]} to play",
        "take": lambda a: f"seat {a[0]} takes {a[2]} from the discard pile into slot {a[1]}, discarding {a[3]}",
        "draw": lambda a: f"seat {a[0]} draws {a[1]}",
        "exchange": lambda a: f"seat {a[0]} puts it into slot {a[1]}, discarding {a[3]}",
        "discard": lambda a: f"seat {a[0]} discards {a[1]}",
        "perform": lambda a: f"seat {a[0]} plays {a[1]}",
        "swap": lambda a: f"seat {a[0]} swaps its slot {a[1]} with seat {a[2]} slot {a[3]}",
        "peek": lambda a: f"seat {a[0]} looks at its slot {a[1]}: {a[2]}",
        "knock": lambda a: f"seat {a[0]} knocks",
        "reshuffle": lambda a: f"the discard pile is shuffled into a new pile of {a[0]} cards",
        "forget": lambda a: f"seat {a[0]} forgets seat {a[1]} slot {a[2]}",
        "cap": lambda a: f"the round ends at the cap after {a[0]} turns",
        "aside": lambda a: f"seat {a[0]} puts aside {a[2]} from slot {a[1]}",
        "replace": lambda a: f"seat {a[0]} fills slot {a[1]} with {a[2]}",
        "score": lambda a: f"seat {a[0]} scores {a[1]}",
    }
    for e in rec["events"]:
        lines.append(say[e[0]](e[1:]))
    return "\n".join(lines) + "\n"


def conformance() -> Conformance:
    """The conformance hooks (kernel and reference traces, the replay check, the golden playthrough)."""
    return Conformance(play=_play, check=check_record, playthrough=playthrough)
