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

from ludolab.stdlib.beverbende import CARD_NAMES, DRAW2, PEEK, SCORINGS, SLOTS, SWAP, BeverbendeRules, card_name
from ludolab.stdlib.errors import LudolabError, unknown

from . import beverbende_kernels as K
from . import beverbende_reference as REF
from .beverbende_worlds import enumerate_worlds
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
                  "draw2": 1.0, "late": 0.0},
    "expected-value": {"margin": 4.0, "kmax": 6.0, "take": 1.0, "exchange": 0.5, "swapgain": 1.0},
}
POLICY_KINDS = {"random": K.K_RANDOM, "threshold": K.K_THRESHOLD, "expected-value": K.K_EV}
POLICY_HELP = {
    "random": "uniformly random among the legal decisions",
    "threshold": "knock when the believed total <= knock; take the discard when it improves the worst "
                 "believed card by >= take; unknown cards count as `unknown`; exchange a drawn card when it "
                 "improves by >= exchange; swap away a card >= swap; peek/draw2 on (1) or off (0); "
                 "the knock bar moves by `late` points for each lap of the table completed before the turn",
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


#: The largest size of a policy parameter (points, or a switch): a round's scores are at most 36 plus a penalty.
PARAM_LIMIT = 1000.0


def make_policy(name: str = "threshold", **params) -> Policy:
    """A policy of the catalogue (BVB-13: it sees only its player's knowledge).

    Args:
        name: ``random``, ``threshold`` or ``expected-value``.
        params: parameter overrides by name (see :data:`POLICY_PARAMS`).

    Raises:
        PolicyError: unknown name, unknown parameter or a value that is not a number from -1000 to 1000.
    """
    if name not in POLICY_PARAMS:
        raise PolicyError(unknown("policy", name, POLICY_PARAMS).args[0])
    vals = dict(POLICY_PARAMS[name])
    for k, v in params.items():
        if not vals:
            raise PolicyError(f"policy {name} takes no parameters, not {k!r}")
        if k not in vals:
            raise PolicyError(f"policy {name} has no parameter {k!r}: allowed are {', '.join(vals)}")
        bad = f"parameter {k} of policy {name} must be a number from {-PARAM_LIMIT:g} to {PARAM_LIMIT:g}, not"
        try:
            x = float(v)
        except (TypeError, ValueError):
            raise PolicyError(f"{bad} {v!r}") from None
        if not -PARAM_LIMIT <= x <= PARAM_LIMIT:   # nan and +-inf too
            raise PolicyError(f"{bad} {v if isinstance(v, str) else repr(v)}")
        vals[k] = x
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
        scored by sums; negative is good) and its CI, ``margin_diff_vs_first`` (paired margin difference
        against the first candidate on the same deals) and its CI, ``share_differs_from_first`` (share of
        rounds in which the focal seat's round score differs from the first candidate's on the same deal),
        ``capped_rounds``.

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
    spec = _spec("_compare_rounds", (rules.rules_array(), kinds, params, mem, int(focal)), (Kc, 2 * Kc + 11),
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
        md = paired_diff_ci(n, float(out[a, Kc + 8] - out[0, Kc + 8]) / (P - 1),
                            float(out[a, Kc + 10]) / (P - 1) ** 2, bounds=(-2 * hi, 2 * hi))
        rows.append({"policy": c.label, "field": fld.label, "players": P, "seat": int(focal),
                     "mean_score": sc.value, "mean_score_ci_low": sc.low, "mean_score_ci_high": sc.high,
                     "p_lowest_alone": win.value, "p_lowest_alone_ci_low": win.low,
                     "p_lowest_alone_ci_high": win.high,
                     "p_lowest_shared": out[a, Kc + 3] / n, "knock_rate": out[a, Kc + 5] / n,
                     "diff_vs_first": d.value, "diff_vs_first_ci_low": d.low, "diff_vs_first_ci_high": d.high,
                     "margin": mg.value, "margin_ci_low": mg.low, "margin_ci_high": mg.high,
                     "margin_diff_vs_first": md.value, "margin_diff_vs_first_ci_low": md.low,
                     "margin_diff_vs_first_ci_high": md.high,
                     "share_differs_from_first": out[a, 2 * Kc + 10] / n,
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
        ``scores``, and what a replay needs: ``stream`` (the round's stream start), ``memory_q24``
        (each seat's forgetting threshold) and ``policy_arrays`` (each seat's policy kind and parameters).
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
            "stream": int(py_game_state(key, g)), "memory_q24": [int(x) for x in mem],
            "policy_arrays": [[int(k)] + [float(x) for x in par] for k, par in zip(kinds, params)],
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


class _Replay:
    """A traced round replayed through the step interface (the record's stream, start, memory and seat
    policies, whose random choices draw from the stream as they did)."""

    def __init__(self, rec: dict):
        P = rec["players"]
        self.P, self.rec = P, rec
        self.rules = BeverbendeRules(players=P, composition=tuple(rec["composition"]), rounds=1,
                                     exchange_specials=rec["exchange_specials"],
                                     round_cap=rec["round_cap"]).rules_array()
        self.state = np.zeros(K.STATE_SIZE, dtype=np.int64)
        K._setup(self.rules, np.uint64(rec["stream"]), rec["start"], np.array(rec["memory_q24"], dtype=np.int64),
                 self.state)
        self.acts = np.zeros(K.MAX_ACTIONS, dtype=np.int64)
        self.draw_due = False      # the last action draws a card the record shows next
        self.before_end = None     # the state before the action that ended the round
        self.reshuffles = 0
        self.turn_open = False     # a turn event opened the turn of the seat to move

    def row(self, p, s) -> int:
        return int(self.state[K.S_ROWS + 4 * p + s])

    def phase(self) -> int:
        return int(self.state[K.S_PHASE])

    def play(self, action: int, where: str) -> None:
        """Apply a decision of the seat to move after checking that the rules allow it."""
        assert not K.is_terminal(self.state), f"a decision after the end of the round ({where})"
        n = K.legal_actions(self.rules, self.state, self.acts)
        assert action in self.acts[:n], (f"BVB-5..BVB-9: decision {action} is not legal when the seat to move "
                                         f"is at its {REF._PHASES[self.phase()]} decision ({where})")
        seat = int(K.current_player(self.state))
        kind, *par = self.rec["policy_arrays"][seat]
        obs = np.zeros(K.OBS_SIZE, dtype=np.int64)
        K.observe(self.rules, self.state, seat, obs)
        d = int(K.act(int(kind), np.array(par, dtype=np.float64), obs, self.state))
        assert d == action, f"seat {seat}'s policy decides {d}, the record {action} ({where})"
        before = self.state.copy()
        K.apply_action(self.rules, self.state, action)
        check_state(self.rules, self.state)
        if K.is_terminal(self.state):
            self.before_end = before

    def expect(self, seat, phase, where):
        assert not K.is_terminal(self.state), f"a move after the end of the round ({where})"
        assert seat == K.current_player(self.state), f"BVB-5: seat {seat} moved out of turn ({where})"
        assert self.phase() == phase, f"BVB-5..BVB-9: {where} does not fit the seat's {REF._PHASES[self.phase()]} decision"


def _replay_event(rp: _Replay, name: str, a: list, where: str) -> None:
    st = rp.state
    if rp.phase() == K.PH_KNOCK and name != "knock" and not K.is_terminal(st):
        rp.play(0, where)   # BVB-9: no knock
    if name == "reshuffle":
        rp.reshuffles += 1
        if not K.is_terminal(st):   # in play every card but the rows and the top discard is reshuffled
            assert a[0] == sum(rp.rec["composition"]) - SLOTS * rp.P - 1, f"BVB-11: a reshuffle of {a[0]} cards ({where})"
        return
    if name == "draw" and rp.draw_due:
        assert a[0] == K.current_player(st) and st[K.S_CARD] == a[1], f"BVB-8, BVB-11: drew a card not on the pile ({where})"
        rp.draw_due = False
        return
    assert not rp.draw_due, f"BVB-8: a draw twice without its draw ({where})"
    if name in ("take", "draw"):
        assert rp.turn_open, f"BVB-5: a move without its turn ({where})"
        rp.turn_open = False
    if name == "turn":
        rp.expect(a[0], K.PH_ACTION, where)
        assert not rp.turn_open, f"BVB-5: a turn without a move ({where})"
        rp.turn_open = True
        assert rp.reshuffles == st[K.S_RESHUFFLES], f"BVB-11: reshuffles do not match the pile ({where})"
    elif name == "forget":
        assert a[0] == K.current_player(st) and st[K.S_KNOW + 24 * a[0] + 4 * a[1] + a[2]] == -1, (
            f"BVB-13: a forgotten value that is still remembered ({where})")
    elif name == "take":
        rp.expect(a[0], K.PH_ACTION, where)
        top = st[K.S_DISC + st[K.S_DISC_N] - 1]
        assert top == a[2], f"BVB-6: took {a[2]} which is not the top discard ({where})"
        assert rp.row(a[0], a[1]) == a[3], f"wrong card replaced ({where})"
        rp.play(a[1], where)
    elif name == "draw":
        rp.expect(a[0], K.PH_ACTION, where)
        rp.play(K.D_DRAW, where)
        assert st[K.S_CARD] == a[1], f"BVB-3, BVB-7: drew {a[1]}, not the top of the pile ({where})"
    elif name in ("exchange", "discard", "perform"):
        rp.expect(a[0], K.PH_DRAWN, where)
        c = a[2] if name == "exchange" else a[1]
        assert st[K.S_CARD] == c, f"{name} of a card not in hand ({where})"
        if name == "exchange":
            assert rp.row(a[0], a[1]) == a[3], f"wrong card replaced ({where})"
        mode = st[K.S_MODE]
        rp.play(a[1] if name == "exchange" else (K.D_DISCARD if name == "discard" else K.D_PERFORM), where)
        rp.draw_due = (name == "discard" and mode == 1) or (name == "perform" and c == DRAW2)
    elif name == "swap":
        rp.expect(a[0], K.PH_SWAP, where)
        rp.play(a[1] * 24 + a[2] * 4 + a[3], where)
    elif name == "peek":
        rp.expect(a[0], K.PH_PEEK, where)
        assert rp.row(a[0], a[1]) == a[2], f"BVB-8: peeked {a[2]} which is not there ({where})"
        rp.play(a[1], where)
    elif name == "knock":
        rp.expect(a[0], K.PH_KNOCK, where)
        rp.play(1, where)
    elif name == "cap":
        assert K.is_terminal(st) and st[K.S_CAPPED] == 1 and a[0] == st[K.S_TURNS] == rp.rec["round_cap"], (
            f"BVB-12: cap at the wrong turn ({where})")
    elif name not in ("aside", "replace", "score"):
        raise AssertionError(f"unknown event {where}")


def _check_round_end(rp: _Replay, events: list) -> None:
    """BVB-10: the specials put aside and replaced from the pile, knocker first, and the scores."""
    st, P, rec = rp.state, rp.P, rp.rec
    assert K.is_terminal(st) and rp.before_end is not None, "the round did not end"
    final = [[rp.row(p, s) for s in range(SLOTS)] for p in range(P)]
    aside = [e for e in events if e[0] == "aside"]
    repl = [e for e in events if e[0] == "replace"]
    put = [int(x) for x in st[K.S_ASIDE:K.S_ASIDE + st[K.S_ASIDE_N]]]
    assert [e[3] for e in aside] == put and all(c >= 10 for c in put), (
        f"BVB-10: put aside {[e[3] for e in aside]}, the rows held the specials {put}")
    assert [e[1:3] for e in aside] == [e[1:3] for e in repl], "BVB-10: a slot put aside is not filled at once"
    b = rp.before_end
    if b[K.S_RESHUFFLES] == st[K.S_RESHUFFLES]:
        top_down = [int(x) for x in b[K.S_PILE:K.S_PILE + b[K.S_PILE_N]]][::-1]
        assert [e[3] for e in repl] == top_down[:len(repl)], "BVB-10: replacements not from the top of the pile"
    last = {(e[1], e[2]): e[3] for e in repl}
    assert all(final[p][s] == c for (p, s), c in last.items()), "BVB-10: a slot not filled by its last replacement"
    score = [e for e in events if e[0] == "score"]
    assert [e[1] for e in score] == list(range(P)), "BVB-10: not one score for every seat, in seat order"
    for e in score:
        assert e[2] == sum(final[e[1]]), f"BVB-10: score {e[2]} is not the row's sum ({e})"
    order = [e[1] for e in aside]
    kn = int(st[K.S_KNOCKER])
    first = kn if kn >= 0 else rec["start"]
    pos = [(p - first) % P for p in order]
    assert pos == sorted(pos), "BVB-10: replacement not in order from the knocker clockwise"
    assert rp.reshuffles == st[K.S_RESHUFFLES], "BVB-11: reshuffles do not match the pile"
    scores = [sum(r) for r in final]
    assert rec["scores"] == scores, f"BVB-10: scores {rec['scores']} are not the rows' sums {scores}"
    assert rec["knocker"] == (None if kn < 0 else kn), "BVB-9: the knocker differs from the replay"
    assert rec["capped"] == bool(st[K.S_CAPPED]), "BVB-12: a round without a knock ends at the cap, only then"


def check_record(rec: dict) -> None:
    """Replay a traced round through the step interface (BVB-1..BVB-13): the record's stream, start
    and memory deal the round; every event must be a legal decision of the seat to move (its
    policy's, whose random choices take their draws) with the effect the record gives, or the
    chance that follows it; cards are conserved after every step.

    Raises:
        AssertionError: naming the broken rule and the event.
    """
    P = rec["players"]
    idx = {n: i for i, n in enumerate(CARD_NAMES)}
    deck = [idx[c] for c in rec["deal"]]
    assert Counter(deck) == Counter({k: n for k, n in enumerate(rec["composition"]) if n}), "BVB-1: the deal is not the deck"
    rp = _Replay(rec)
    st = rp.state
    assert [int(x) for x in st[K.S_ROWS:K.S_ROWS + SLOTS * P]] == deck[:SLOTS * P], "BVB-3: the rows are not the deal"
    assert st[K.S_DISC] == deck[SLOTS * P], "BVB-3: the discard pile does not start with the next card"
    pile = [int(x) for x in st[K.S_PILE:K.S_PILE + st[K.S_PILE_N]]]
    assert pile == deck[SLOTS * P + 1:], "BVB-3: the draw pile is not the rest of the deal"
    events = [[e[0]] + [idx[x] if isinstance(x, str) else x for x in e[1:]] for e in rec["events"]]
    for i, e in enumerate(events):
        where = f"event {i} {rec['events'][i]}"
        try:
            _replay_event(rp, e[0], e[1:], where)
        except (IndexError, KeyError, TypeError, ValueError) as err:
            raise AssertionError(f"a malformed event ({where}): {err}") from None
    if rp.phase() == K.PH_KNOCK and not K.is_terminal(st):
        rp.play(0, "the end of the record")
    assert not rp.draw_due, "BVB-8: a draw twice without its draw at the end of the record"
    _check_round_end(rp, events)


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


# ------------------------------------------------------------------ the step interface
def _step_policies() -> dict:
    """Every named policy of :data:`POLICY_PARAMS` as ``(kind, params)`` with its default parameters."""
    return {name: (int(p.kind), np.array(p.params, dtype=np.float64))
            for name, p in ((n, make_policy(n)) for n in POLICY_PARAMS)}


def _as_step(p: Policy) -> tuple:
    return int(p.kind), np.array(p.params, dtype=np.float64)


def step_policy(text: str) -> tuple[str, tuple]:
    """A named policy with parameters for the step interface (the ladder's ``threshold:knock=8,take=4``):
    ``(label, (kind, params))``, the label its canonical spelling (the parameters that differ from the
    defaults, in :data:`POLICY_PARAMS` order, written with ``:g``; the bare name when none differs).

    Raises:
        PolicyError: as :func:`parse_policy`.
    """
    p = parse_policy(text)
    changed = [f"{k}={v:g}" for (k, d), v in zip(POLICY_PARAMS[p.name].items(), p.params) if v != d]
    return (f"{p.name}:{','.join(changed)}" if changed else p.name), _as_step(p)


def _step_cases() -> list:
    """The rulebook at every player count (2..6, BVB-2), seats mixing the named policies, and two
    variants: the knocker penalty with forgetting and special cards exchanged (BVB-7, BVB-13,
    BVB-15), and single rounds where only a cautious seat knocks, so that some end at the cap and many
    reshuffle (BVB-11, BVB-12)."""
    from .step import RulesCase

    names = list(POLICY_PARAMS)
    cases = []
    for P in range(2, 7):
        rules = BeverbendeRules(players=P)
        pols = tuple(_as_step(make_policy(names[(p + P) % len(names)])) for p in range(P))
        cases.append(RulesCase(f"{P}p-rulebook", rules.rules_array(), P, pols))
    rules = BeverbendeRules(players=3, scoring="knocker-penalty", memory_loss=0.25, exchange_specials=True)
    cases.append(RulesCase("3p-penalty-forgetful-exchange-specials", rules.rules_array(), 3,
                           tuple(_as_step(make_policy(n)) for n in names)))
    rules = BeverbendeRules(players=3, rounds=1, round_cap=90, memory_loss=0.1)
    late = (make_policy("threshold", knock=-1), make_policy("expected-value", margin=100, kmax=-1),
             make_policy("threshold", knock=5, take=0))
    cases.append(RulesCase("3p-one-round-cap-90", rules.rules_array(), 3, tuple(_as_step(p) for p in late)))
    return cases


def _step_arrays(rules: np.ndarray, policies) -> tuple:
    P = int(rules[K.R_PLAYERS])
    kinds = np.array([int(k) for k, _ in policies], dtype=np.int64)
    params = np.array([np.asarray(p, dtype=np.float64) for _, p in policies], dtype=np.float64)
    return kinds, params, np.full(P, rules[K.R_MEMQ], dtype=np.int64)


def _step_simulate(rules, policies, keys, per_chunk):
    """The fast kernel of the step game on chunk keys: _simulate_rounds for a one-round game (seat 0
    starts, as new_game deals), _simulate_games otherwise; returns its accumulator summed over chunks."""
    P = int(rules[K.R_PLAYERS])
    kinds, params, mem = _step_arrays(rules, policies)
    keys = np.asarray(keys, dtype=np.uint64)
    starts = np.zeros(len(keys), dtype=np.int64)
    stops = np.full(len(keys), per_chunk, dtype=np.int64)
    if rules[K.R_ROUNDS] == 1:
        out = np.zeros((len(keys), P + 1, K.N_ROUND_STATS), dtype=np.int64)
        K._simulate_rounds(keys, starts, stops, rules, kinds, params, mem, out)
    else:
        out = np.zeros((len(keys), P + 1, 4), dtype=np.int64)
        K._simulate_games(keys, starts, stops, rules, kinds, params, mem, out)
    return out.sum(axis=0)


def _raw(state, P):
    return [int(x) for x in state[K.S_ROWS:K.S_ROWS + SLOTS * P].reshape(P, SLOTS).sum(axis=1)]


def _final_raw(p, f):
    """A final-state column of seat p from its row value, the lowest row value and how many hold it."""
    def final(rules, state):
        raw = _raw(state, int(rules[K.R_PLAYERS]))
        lo = min(raw)
        return float(f(raw[p], lo, raw.count(lo), int(state[K.S_KNOCKER]) == p))
    return final


def _final_state(offset, square=False):
    def final(rules, state):
        x = float(state[offset])
        return x * x if square else x
    return final


def _knocks(p):
    def event(rules, before, seat, action, after):
        return 1.0 if seat == p and before[K.S_PHASE] == K.PH_KNOCK and action == 1 else 0.0
    return event


def _step_accumulator(case) -> list:
    """The fast accumulator's columns as data (see :func:`_step_simulate` for the kernel)."""
    from .step import Column

    P = case.n_players
    rules = case.rules
    cols = []
    if rules[K.R_ROUNDS] == 1:
        t = (P,)
        cols.append(Column(t + (K.RT_GAMES,), "games", name="rounds"))
        wincount = rules[K.R_SCORING] == K.SC_WINCOUNT

        def table(sq):
            def final(r, state):
                raw = _raw(state, P)
                x = float(sum(raw) if wincount else sum(state[K.S_TOTAL:K.S_TOTAL + P]))
                return x * x if sq else x
            return final
        for p in range(P):
            if not wincount:
                cols += [Column((p, K.RS_SCORE), "points", p, name="round score"),
                         Column((p, K.RS_SCORE2), "points_sq", p, name="round score squared")]
            if rules[K.R_SCORING] == K.SC_SUM:
                cols.append(Column((p, K.RS_WIN), "wins", p, ties="sole", name="strictly lowest row"))
            else:
                cols.append(Column((p, K.RS_WIN), "final", p, final=_final_raw(p, lambda x, lo, n, k: x == lo and n == 1),
                                   name="strictly lowest row"))
            cols += [Column((p, K.RS_TIE), "final", p, final=_final_raw(p, lambda x, lo, n, k: x == lo and n > 1),
                            name="lowest row shared"),
                     Column((p, K.RS_KNOCK), "event", p, event=_knocks(p), name="knocks"),
                     Column((p, K.RS_KNOCK_WIN), "final", p,
                            final=_final_raw(p, lambda x, lo, n, k: k and x == lo and n == 1), name="knocked and won"),
                     Column((p, K.RS_RAW), "final", p, final=_final_raw(p, lambda x, lo, n, k: x), name="row value"),
                     Column((p, K.RS_RAW2), "final", p, final=_final_raw(p, lambda x, lo, n, k: x * x),
                            name="row value squared")]
            for v in range(37):
                cols.append(Column((p, K.RS_HIST + v), "final", p,
                                   final=_final_raw(p, lambda x, lo, n, k, v=v: x == v), name=f"rows of value {v}"))
        cols += [Column(t + (K.RT_CAPPED,), "final", final=_final_state(K.S_CAPPED), name="capped rounds"),
                 Column(t + (K.RT_TURNS,), "final", final=_final_state(K.S_TURNS), name="turns"),
                 Column(t + (K.RT_TURNS2,), "final", final=_final_state(K.S_TURNS, True), name="turns squared"),
                 Column(t + (K.RT_MEAN,), "final", final=table(False), name="table score"),
                 Column(t + (K.RT_MEAN2,), "final", final=table(True), name="table score squared"),
                 Column(t + (K.RT_RESHUFFLES,), "final", final=_final_state(K.S_RESHUFFLES), name="reshuffles")]
        return cols
    sign = -1 if rules[K.R_SCORING] == K.SC_WINCOUNT else 1

    def shared(p):
        def final(r, state):
            tot = [sign * int(x) for x in state[K.S_TOTAL:K.S_TOTAL + P]]
            best = min(tot)
            return float(tot[p] == best and tot.count(best) > 1)
        return final
    cols.append(Column((P, 1), "games", name="games"))
    for p in range(P):
        if sign == 1:
            cols.append(Column((p, 0), "wins", p, ties="sole", name="sole wins"))
        cols += [Column((p, 1), "final", p, final=shared(p), name="shared wins"),
                 Column((p, 2), "points", p, name="game total"),
                 Column((p, 3), "points_sq", p, name="game total squared")]
    cols.append(Column((P, 0), "final", final=_final_state(K.S_CAPS), name="capped rounds"))
    return cols


def _trace_actions(events, P: int) -> list:
    """The step actions of a traced game (the kernels' EV_* events): a take, the first draw of a turn,
    an exchange, a discard, a carried-out special, its swap or peek, and the knock decision where BVB-9
    offers one (a knock event, else 0 at the end of the turn); later draws and the rest are chance."""
    acts = []
    turns, knocker, scores = 0, -1, 0
    turn = None   # (knocker at the start of the turn, knocked, drawn)

    def close():
        nonlocal turn, turns
        if turn is not None:
            turns += 1
            if turn[0] < 0 and turns >= P:
                acts.append(1 if turn[1] else 0)
            turn = None
    for code, a, b, c, d in events:
        if code == K.EV_TURN:
            close()
            turn = [knocker, False, False]
        elif code == K.EV_TAKE:
            acts.append(b)
        elif code == K.EV_DRAW:
            if not turn[2]:
                acts.append(K.D_DRAW)
                turn[2] = True
        elif code == K.EV_EXCHANGE:
            acts.append(b)
        elif code == K.EV_DISCARD:
            acts.append(K.D_DISCARD)
        elif code == K.EV_PERFORM:
            acts.append(K.D_PERFORM)
        elif code == K.EV_SWAP:
            acts.append(b * 24 + c * 4 + d)
        elif code == K.EV_PEEK:
            acts.append(b)
        elif code == K.EV_KNOCK:
            turn[1] = True
            knocker = a
        elif code in (K.EV_CAP, K.EV_ASIDE, K.EV_REPLACE):
            close()
        elif code == K.EV_SCORE:
            close()
            scores += 1
            if scores == P:
                turns, knocker, scores = 0, -1, 0
    close()
    return acts


def _step_fast_games(rules, policies, keys) -> list:
    """The fast kernels' own game for each stream start (_trace_game), as step actions."""
    kinds, params, mem = _step_arrays(rules, policies)
    P = int(rules[K.R_PLAYERS])
    out = []
    for key in np.asarray(keys, dtype=np.uint64):
        trace = np.zeros((400_000, 5), dtype=np.int64)
        K._trace_game(np.uint64(key), rules, kinds, params, mem, trace, np.zeros(P, dtype=np.int64))
        n = int(trace[0, 0])
        if n >= trace.shape[0] - 1:
            raise LudolabError("the game is too long to trace: lower the round cap")
        out.append(_trace_actions(trace[1:n + 1].tolist(), P))
    return out


def _step_bounds(rules) -> tuple:
    """Each seat's game total within (BVB-10, BVB-14, BVB-15)."""
    n = int(rules[K.R_ROUNDS])
    if rules[K.R_SCORING] == K.SC_WINCOUNT:
        return 0.0, float(n)
    pen = int(rules[K.R_PENALTY]) if rules[K.R_SCORING] == K.SC_PENALTY else 0
    return 0.0, float(n * (36 + pen))


def _step_max_steps(rules) -> int:
    """A bound on a game's decisions: per turn a draw, the draw-twice chain (two decisions a drawn
    card), a swap or peek and the knock; per round the cap plus the turns after a knock (BVB-9, BVB-12)."""
    P = int(rules[K.R_PLAYERS])
    per_turn = 6 + 2 * int(rules[K.R_COMP + DRAW2])
    return int(rules[K.R_ROUNDS]) * (int(rules[K.R_CAP]) + P) * per_turn


def check_state(rules, state) -> None:
    """The step state's invariants: every card of the deck once (rows, piles, put aside, in hand;
    BVB-1), the discard counts, counts and seats in range, and while a round is played every
    remembered value is the card in its slot (BVB-13).

    Raises:
        AssertionError: naming the broken invariant.
    """
    P = int(rules[K.R_PLAYERS])
    comp = [int(x) for x in rules[K.R_COMP:K.R_COMP + K.N_KINDS]]
    assert int(state[K.S_NP]) == P, f"the state has {state[K.S_NP]} players, the rules {P}"
    for name, off in (("draw pile", K.S_PILE_N), ("discard pile", K.S_DISC_N), ("cards put aside", K.S_ASIDE_N)):
        assert 0 <= state[off] <= K.MAX_CARDS, f"{name} holds {state[off]} cards"
    cards = [int(x) for x in state[K.S_ROWS:K.S_ROWS + SLOTS * P]]
    cards += [int(x) for x in state[K.S_PILE:K.S_PILE + state[K.S_PILE_N]]]
    disc = [int(x) for x in state[K.S_DISC:K.S_DISC + state[K.S_DISC_N]]]
    cards += disc + [int(x) for x in state[K.S_ASIDE:K.S_ASIDE + state[K.S_ASIDE_N]]]
    over = bool(state[K.S_GAMEOVER])
    if state[K.S_PHASE] == K.PH_DRAWN and not over:
        assert 0 <= state[K.S_CARD] < K.N_KINDS, f"no card in hand in phase drawn ({state[K.S_CARD]})"
        cards.append(int(state[K.S_CARD]))
    else:
        assert state[K.S_CARD] == -1, f"a card in hand ({state[K.S_CARD]}) outside phase drawn"
    assert all(0 <= c < K.N_KINDS for c in cards), "a card that is no card kind"
    got = [0] * K.N_KINDS
    for c in cards:
        got[c] += 1
    assert got == comp, f"BVB-1: cards not conserved: {got} instead of the deck {comp}"
    dc = [0] * K.N_KINDS
    for c in disc:
        dc[c] += 1
    assert dc == [int(x) for x in state[K.S_DCOUNT:K.S_DCOUNT + K.N_KINDS]], "discard counts differ from the pile"
    assert 0 <= state[K.S_TURN] < P, f"seat to move {state[K.S_TURN]} out of range"
    assert -1 <= state[K.S_KNOCKER] < P, f"knocker {state[K.S_KNOCKER]} out of range"
    assert 0 <= state[K.S_PHASE] <= K.PH_KNOCK, f"phase {state[K.S_PHASE]} unknown"
    assert 0 <= state[K.S_TURNS] <= rules[K.R_CAP] + P, f"{state[K.S_TURNS]} turns in the round"
    assert 0 <= state[K.S_ROUND] < rules[K.R_ROUNDS], f"round {state[K.S_ROUND]} out of range"
    assert 0 <= state[K.S_CAPS] <= rules[K.R_ROUNDS], f"{state[K.S_CAPS]} capped rounds"
    if over:
        assert all(c < 10 for c in cards[:SLOTS * P]), "BVB-10: a special card left in a row at the end"
        return
    assert state[K.S_OVER] == 0, "a finished round is still being played"
    for o in range(P):
        for j in range(SLOTS * P):
            v = state[K.S_KNOW + 24 * o + j]
            assert v == -1 or v == cards[j], (
                f"BVB-13: seat {o} remembers {v} at seat {j // SLOTS} slot {j % SLOTS}, which holds {cards[j]}")


def step_variants(players: int) -> list:
    """Every named rule variant of Beverbende at ``players`` seats, as rulesets of the step game
    (:class:`ludolab.sim.step.RulesCase`, the expected-value policy in every seat): the penalty scorings
    (BVB-15: ``sum``, ``knocker-penalty``) and exchangeable special cards (the BVB-7 option), each otherwise
    the rulebook.  ``win-count`` is left out: it counts rounds won, highest best, where the step game's
    measures read the lowest return as best.

    Raises:
        RulesError: a player count the rules do not allow (BVB-2)."""
    from .step import RulesCase

    pol = _step_policies()["expected-value"]
    rulesets = [(f"{sc} scoring", BeverbendeRules(players=players, scoring=sc)) for sc in SCORINGS
                if sc != "win-count"]
    rulesets.append(("exchange specials", BeverbendeRules(players=players, exchange_specials=True)))
    return [RulesCase(label, r.rules_array(), players, (pol,) * players) for label, r in rulesets]


def step_game():
    """The step interface of Beverbende (:class:`ludolab.sim.step.StepGame`): a game of the rules'
    rounds (BVB-14) one decision at a time, its rulesets, named policies and fast accumulators."""
    from .step import StepGame

    return StepGame(kernels=K, twin=REF, cases=_step_cases(), policies=_step_policies(),
                    max_steps=_step_max_steps, return_bounds=_step_bounds, check_state=check_state,
                    simulate=_step_simulate, accumulator=_step_accumulator, fast_games=_step_fast_games,
                    lower_wins=True, extra={"best": "expected-value", "random": "random",
                                            "moments": lambda r: int(r[K.R_ROUNDS]) + 1,
                                            "variants": step_variants, "enumerate_worlds": enumerate_worlds,
                                            "policy": step_policy})
