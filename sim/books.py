"""Shut The Books: the validated face of the engine (policies, simulation, accuracy study, records).

Every function here validates its arguments (a :class:`LudolabError` subclass
naming the bad value and the allowed ones), resolves the seed, runs the numba
kernels of :mod:`ludolab.sim.books_kernels` through the generic runner and
returns plain dicts or pandas DataFrames.  Clause ids (``STK-n``) refer to
``seeds/shut_the_books.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from pathlib import Path

import numpy as np

from ludolab.stdlib import books as B
from ludolab.stdlib.books import BooksRules, CardError, card_name
from ludolab.stdlib.errors import LudolabError, unknown

from . import books_kernels as K

if TYPE_CHECKING:
    import pandas as pd
from . import books_reference as REF
from .books_worlds import enumerate_worlds
from .rng import chunk_keys, py_game_state
from .stats import mean_ci, wilson_ci

GAME_ID = "books"


class PolicyError(LudolabError):
    """An unknown policy name or bad policy parameters."""


class RecordError(LudolabError):
    """A hand record that is malformed or breaks a rule; the message names the trick and the clause."""


# ------------------------------------------------------------------ policies
@dataclass(frozen=True)
class Policy:
    """A forecast or play policy as data: ``kind`` id plus a float64 parameter vector.

    Attributes:
        role: ``forecast`` or ``play``.
        name: catalogue name (``zero``, ``heuristic``, ``random``, ``rollout``).
        kind: the kernel's policy id (``F_*`` / ``P_*`` of :mod:`ludolab.stdlib.books`).
        params: tuple of N_PARAMS floats.
    """

    role: str
    name: str
    kind: int
    params: tuple = field(default=(0.0,) * B.N_PARAMS)

    @property
    def label(self) -> str:
        return self.name

    def array(self) -> np.ndarray:
        return np.array(self.params, dtype=np.float64)


IMPLEMENTED_FORECAST = ("zero", "heuristic", "random", "rollout")
IMPLEMENTED_PLAY = ("random", "heuristic", "rollout")


def forecast_policy(name: str = "heuristic", params=None, pool: int = 6, worlds: int = 4,
                    max_cards: int = 5) -> Policy:
    """A forecast policy (STK-4).

    Args:
        name: ``zero`` (lay nothing), ``heuristic`` (hand strength, see
            ``books_reference.forecast_heuristic``) or ``random`` (k uniform on
            0..5, then k random cards).
        params: for ``heuristic``, up to 9 floats overriding
            :data:`ludolab.stdlib.books.HEURISTIC_FORECAST_PARAMS`.
        pool, worlds, max_cards: for ``rollout`` (determinization): the candidate prediction sets
            are the subsets of at most ``max_cards`` of the ``pool`` cards the hand-strength
            ranking rates best as prediction cards (4,944 sets of at most 5 of 15 would be too
            many to roll out; this prunes the sets built on cards that share colour and number
            with few strong cards); successive halving starts with ``worlds`` sampled deals of
            the hidden cards per candidate and doubles them while halving the candidates; every
            rollout plays heuristic forecasts and play for everyone.  The hand score is judged
            under the ruleset's scoring.

    Raises:
        PolicyError: unknown name or bad parameters.
    """
    if name not in IMPLEMENTED_FORECAST:
        raise PolicyError(unknown("forecast policy", name, IMPLEMENTED_FORECAST).args[0])
    p = [0.0] * B.N_PARAMS
    if name == "heuristic":
        base = list(B.HEURISTIC_FORECAST_PARAMS)
        if params is not None:
            params = [float(x) for x in params]
            if len(params) > len(base) or not all(np.isfinite(params)):
                raise PolicyError(f"the heuristic forecaster takes up to {len(base)} finite parameters "
                                  f"({', '.join(B.FORECAST_PARAM_NAMES)}), not {params}")
            base[:len(params)] = params
        if not 0.0 <= base[3] < 1.0:
            raise PolicyError(f"high_cut must be in [0, 1), not {base[3]}")
        p[:len(base)] = base
    if name == "rollout":
        p[B.ROLLOUT_HEURISTIC_AT:B.ROLLOUT_HEURISTIC_AT + 9] = B.HEURISTIC_FORECAST_PARAMS
        if not (1 <= int(pool) <= 12 and 1 <= int(worlds) <= 100_000 and 0 <= int(max_cards) <= 5):
            raise PolicyError(f"the rollout forecaster needs pool 1..12, worlds 1..100000 and max_cards 0..5, "
                              f"not {pool}, {worlds}, {max_cards}")
        p[0], p[1], p[3] = float(pool), float(worlds), float(max_cards)
    kind = {"zero": B.F_ZERO, "heuristic": B.F_HEURISTIC, "random": B.F_RANDOM, "rollout": B.F_ROLLOUT}[name]
    label = name if name != "rollout" else f"rollout(pool {pool}, {worlds} world{'s' if worlds != 1 else ''})"
    return Policy("forecast", label if name == "rollout" else name, kind, tuple(p))


def play_policy(name: str = "heuristic", keep_low: bool = True, worlds: int = 16) -> Policy:
    """A card-play policy (STK-5, STK-6 closing choice).

    Args:
        name: ``random`` (uniform over legal cards and over the matching
            prediction cards to close) or ``heuristic`` (see
            ``books_reference.play_heuristic`` and ``close_heuristic``).
        keep_low: heuristic only: duck with the lowest losing card while
            predictions are open (else the highest).
        worlds: ``rollout`` only (determinization / perfect-information Monte
            Carlo): worlds sampled consistent with everything the player has seen
            (hidden hands dealt in their public sizes, respecting shown voids), shared
            by all candidate cards; each card is played out with heuristic play for
            everyone; the card (or prediction card to close) with the best mean hand
            score under the ruleset's scoring is chosen.

    Raises:
        PolicyError: unknown name.
    """
    if name not in IMPLEMENTED_PLAY:
        raise PolicyError(unknown("play policy", name, IMPLEMENTED_PLAY).args[0])
    p = [0.0] * B.N_PARAMS
    p[0] = 1.0 if keep_low else 0.0
    if name == "rollout":
        p[B.ROLLOUT_HEURISTIC_AT:B.ROLLOUT_HEURISTIC_AT + 9] = B.HEURISTIC_FORECAST_PARAMS
        if not 1 <= int(worlds) <= 100_000:
            raise PolicyError(f"the rollout player needs worlds 1..100000, not {worlds}")
        p[1] = float(worlds)
    kind = {"random": B.P_RANDOM, "heuristic": B.P_HEURISTIC, "rollout": B.P_ROLLOUT}[name]
    return Policy("play", name if name != "rollout" else f"rollout({worlds} world{'s' if worlds != 1 else ''})",
                  kind, tuple(p))


def _as_forecast(p) -> Policy:
    return p if isinstance(p, Policy) else forecast_policy(p)


def _as_play(p) -> Policy:
    return p if isinstance(p, Policy) else play_policy(p)


def _seat_arrays(rules: BooksRules, forecast, play):
    """Per-seat kind and parameter arrays from one policy or a list with one per seat."""
    P = rules.players
    fl = list(forecast) if isinstance(forecast, (list, tuple)) else [forecast] * P
    pl = list(play) if isinstance(play, (list, tuple)) else [play] * P
    if len(fl) != P or len(pl) != P:
        raise PolicyError(f"give one policy for every seat ({P}), not {len(fl)} forecast and {len(pl)} play")
    fl = [_as_forecast(x) for x in fl]
    pl = [_as_play(x) for x in pl]
    fk = np.array([x.kind for x in fl], dtype=np.int64)
    pk = np.array([x.kind for x in pl], dtype=np.int64)
    fp = np.array([x.params for x in fl], dtype=np.float64)
    pp = np.array([x.params for x in pl], dtype=np.float64)
    fp[fk == B.F_ROLLOUT, 2] = rules.scoring_id  # rollouts judge hands under the ruleset's scoring
    pp[pk == B.P_ROLLOUT, 2] = rules.scoring_id
    return fk, fp, pk, pp, fl, pl


def _run(kernel: str, args: tuple, acc_shape: tuple, games: int, seed: int, chunks: int, progress, label):
    from .runner import RunSpec, run

    spec = RunSpec(GAME_ID, f"ludolab.sim.books_kernels:{kernel}", args, acc_shape, "float64", games, seed,
                   chunks, label, **({"metric": "ludolab.sim.metrics:proportion", "metric_args": ((0, K.G_WINS),)} if kernel == "_simulate_games" else {}))
    return run(spec, progress=progress).sum(axis=0), spec.provenance()


# ------------------------------------------------------------------ simulate whole games
def _frame(*rows):
    """A DataFrame of ``rows`` (pandas is imported here, not with the module: the commands answered at
    the table print a few lines without it)."""
    import pandas as pd

    return pd.DataFrame(*rows)


def simulate(rules: BooksRules, forecast="heuristic", play="heuristic", games: int = 10_000, seed: int = 0,
             chunks: int = 64, progress=False) -> pd.DataFrame:
    """Monte Carlo of whole games (STK-9) with one policy pair per seat.

    Args:
        forecast, play: a policy (name or :class:`Policy`) for every seat, or a list with one per seat.
        games: number of games (each of ``players`` hands).

    Returns:
        DataFrame, one row per seat: forecast, play, games, win share and mean game
        total, each with its 95% CI (Wilson for the win share).  The win share follows
        ``rules.tie_break`` (STK-9): ``last-start`` gives every game one winner;
        ``shared`` makes every tied player a winner, so the shares can add up to more
        than 1.

    Raises:
        PolicyError, LudolabError: bad policies or counts.
    """
    fk, fp, pk, pp, fl, pl = _seat_arrays(rules, forecast, play)
    P = rules.players
    acc, prov = _run("_simulate_games", (rules.game_array(), fk, fp, pk, pp),
                     (P, K.N_GSTATS), games, seed, chunks, progress, "games")
    n = prov["games"]
    rows = []
    lo, hi = rules.score_bounds()
    for s in range(P):
        win = acc[s, K.G_WINS] / n
        w = wilson_ci(int(round(acc[s, K.G_WINS])), n)
        tot = mean_ci(n, acc[s, K.G_TOTAL], acc[s, K.G_TOTAL2], bounds=(lo * P, hi * P))
        rows.append({"seat": s, "forecast": fl[s].label, "play": pl[s].label, "games": n,
                     "win_share": win, "win_share_ci_low": w.low, "win_share_ci_high": w.high,
                     **tot.as_dict("mean_total")})
    df = _frame(rows)
    df.attrs["provenance"] = {"rules": rules.as_dict(), **prov}
    return df


# ------------------------------------------------------------------ the accuracy study
@dataclass
class Accuracy:
    """The accumulators of an accuracy study and the tables made from them.

    Attributes:
        rules: the ruleset; configs: list of (forecast Policy, play Policy) labels;
        acc: float64 (C, players + 1, 6, N_STATS) summed over chunks (see ``books_kernels``);
        provenance: seed, hands, chunks.
    """

    rules: BooksRules
    configs: list
    acc: np.ndarray
    provenance: dict

    def _row(self, o, extra: dict) -> dict:
        n = int(o[K.ST_N])
        d = dict(extra)
        d["player_hands"] = n  # one per seat and deal
        if n == 0:
            for key in ("exact", "off_by_1", "off_by_2_plus", "mean_score", "mae", "mean_off", "mean_predictions"):
                d[key] = None
            return d
        lo, hi = self.rules.score_bounds()
        ex = wilson_ci(int(o[K.ST_EXACT]), n)
        o1 = wilson_ci(int(o[K.ST_OFF1]), n)
        o2 = wilson_ci(n - int(o[K.ST_EXACT]) - int(o[K.ST_OFF1]), n)
        d.update(ex.as_dict("exact"))
        d.update(o1.as_dict("off_by_1"))
        d.update(o2.as_dict("off_by_2_plus"))
        d.update(mean_ci(n, o[K.ST_SCORE], o[K.ST_SCORE2], bounds=(lo, hi)).as_dict("mean_score"))
        d.update(mean_ci(n, o[K.ST_ABSERR], o[K.ST_ABSERR2], bounds=(0, 16)).as_dict("mae"))
        d.update(mean_ci(n, o[K.ST_OFF], o[K.ST_OFF2], bounds=(0, 21)).as_dict("mean_off"))
        return d

    def _label(self, c):
        f, p = self.configs[c]
        return {"forecast": f, "play": p}

    def overall(self) -> pd.DataFrame:
        """One row per policy config: share exact / off by 1 / off by 2+, mean hand score, MAE, mean off."""
        P = self.rules.players
        rows = []
        for c in range(len(self.configs)):
            o = self.acc[c, :P].sum(axis=(0, 1))
            r = self._row(o, self._label(c))
            r["mean_predictions"] = float((self.acc[c, :P, :, K.ST_N] * np.arange(6)).sum() / max(o[K.ST_N], 1))
            rows.append(r)
        return _frame(rows)

    def by_seat(self) -> pd.DataFrame:
        """One row per config and forecast position (1 = forecasts first)."""
        P = self.rules.players
        rows = []
        for c in range(len(self.configs)):
            for s in range(P):
                o = self.acc[c, s].sum(axis=0)
                r = self._row(o, {**self._label(c), "position": s + 1})
                r["mean_predictions"] = float((self.acc[c, s, :, K.ST_N] * np.arange(6)).sum() / max(o[K.ST_N], 1))
                rows.append(r)
        return _frame(rows)

    def by_predictions(self) -> pd.DataFrame:
        """One row per config and number of prediction cards laid (0..5), hands where it happened."""
        P = self.rules.players
        rows = []
        for c in range(len(self.configs)):
            for k in range(6):
                o = self.acc[c, :P, k].sum(axis=0)
                if o[K.ST_N] == 0:
                    continue
                r = self._row(o, {**self._label(c), "predictions": k})
                r["share_of_hands"] = float(o[K.ST_N] / self.acc[c, :P, :, K.ST_N].sum())
                rows.append(r)
        return _frame(rows)

    def off_distribution(self) -> pd.DataFrame:
        """Share of player-hands by off (0..21, 21 meaning 21 or more), per config."""
        P = self.rules.players
        rows = []
        for c in range(len(self.configs)):
            h = self.acc[c, :P, :, K.ST_HIST:].sum(axis=(0, 1))
            n = h.sum()
            for off in range(len(h)):
                if h[off] > 0:
                    rows.append({**self._label(c), "off": off, "player_hands": int(h[off]), "share": h[off] / n})
        return _frame(rows)

    def first_cost(self) -> pd.DataFrame:
        """How much forecasting first costs: per config, the paired mean of (score of position 1)
        minus (mean score of the others) in the same hand, with its 95% CI (negative = a cost)."""
        from .stats import mean_ci as _m

        P = self.rules.players
        rows = []
        for c in range(len(self.configs)):
            h = self.acc[c, P, 0]
            n = int(h[K.HP_N])
            e = _m(n, h[K.HP_DFIRST], h[K.HP_DFIRST2])
            rows.append({**self._label(c), "hands": n, **e.as_dict("first_minus_others")})
        return _frame(rows)

    def calibration(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        """Calibration of forecasters that state their own P(exact) (the rollout forecaster).

        Returns:
            (bins, summary): bins, one row per config and bin of stated P(exact) (width 0.1):
            forecasts, mean stated P(exact), observed share exact with its Wilson 95% CI;
            summary, one row per config: forecasts, mean stated P(exact), observed share exact,
            Brier score (mean of (P - exact)^2, lower is better) with its 95% CI.  Configs whose
            forecaster states no probability are left out.
        """
        P = self.rules.players
        rows, summ = [], []
        for c in range(len(self.configs)):
            cal = self.acc[c, P, 4]
            n = int(cal[1])
            if n == 0:
                continue
            b = mean_ci(n, cal[0], cal[4], bounds=(0.0, 1.0))
            ex = wilson_ci(int(cal[3]), n)
            summ.append({**self._label(c), "forecasts": n, "mean_stated_p_exact": cal[2] / n,
                         **ex.as_dict("observed_exact"), **b.as_dict("brier")})
            for k in range(K.N_CAL_BINS):
                m = int(self.acc[c, P, 1, k])
                if m == 0:
                    continue
                o = wilson_ci(int(self.acc[c, P, 3, k]), m)
                rows.append({**self._label(c), "bin_low": k / K.N_CAL_BINS, "bin_high": (k + 1) / K.N_CAL_BINS,
                             "forecasts": m, "mean_stated_p_exact": self.acc[c, P, 2, k] / m,
                             **o.as_dict("observed_exact")})
        return _frame(rows), _frame(summ)

    def paired(self) -> pd.DataFrame:
        """Mean hand score per seat of every config minus config 0 on the same deals, with 95% CI."""
        P = self.rules.players
        rows = []
        for c in range(len(self.configs)):
            h = self.acc[c, P, 0]
            n = int(h[K.HP_N])
            m = mean_ci(n, h[K.HP_MEAN], h[K.HP_MEAN2])
            d = mean_ci(n, h[K.HP_D0], h[K.HP_D02]) if c > 0 else None
            rows.append({**self._label(c), "hands": n, **m.as_dict("mean_score"),
                         **(d.as_dict("diff_vs_first_config") if d else
                            {"diff_vs_first_config": 0.0, "diff_vs_first_config_ci_low": None,
                             "diff_vs_first_config_ci_high": None})})
        return _frame(rows)


def accuracy(rules: BooksRules, configs, hands: int = 20_000, seed: int = 0, chunks: int = 64,
             progress=False) -> Accuracy:
    """The prediction-accuracy study: every config plays the same deals (common random numbers).

    Seat 0 forecasts first in every hand, so seat s is forecast position s + 1.

    Args:
        configs: list of (forecast, play) pairs (names or :class:`Policy`, or lists with one per
            seat, seat 0 forecasting first), optionally with a third item (forecast label, play label).
        hands: number of deals.

    Raises:
        PolicyError, LudolabError: bad policies or counts.
    """
    if not configs:
        raise PolicyError("give at least one (forecast, play) policy pair")
    P = rules.players
    fks, fps, pks, pps, labels = [], [], [], [], []
    for cfg in configs:
        f, p = cfg[0], cfg[1]
        fk, fp, pk, pp, fl, pl = _seat_arrays(rules, f, p)
        fks.append(fk), fps.append(fp), pks.append(pk), pps.append(pp)
        fname = fl[0].label if all(x.label == fl[0].label for x in fl) else " / ".join(x.label for x in fl)
        pname = pl[0].label if all(x.label == pl[0].label for x in pl) else " / ".join(x.label for x in pl)
        labels.append(tuple(cfg[2]) if len(cfg) > 2 else (fname, pname))
    args = (rules.as_array(), rules.scoring_id, np.stack(fks), np.stack(fps), np.stack(pks), np.stack(pps))
    acc, prov = _run("_simulate_hands", args, (len(configs), P + 1, 6, K.N_STATS), hands, seed, chunks,
                     progress, "hands")
    prov = {"rules": rules.as_dict(), "hands": prov["games"], "seed": prov["seed"], "chunks": prov["chunks"]}
    return Accuracy(rules, labels, acc, prov)


# ------------------------------------------------------------------ conformance
_CONF_POLICIES = ((B.F_HEURISTIC, B.P_HEURISTIC), (B.F_RANDOM, B.P_RANDOM), (B.F_HEURISTIC, B.P_RANDOM),
                  (B.F_RANDOM, B.P_HEURISTIC))


def _conf_setup(g: int):
    P = 4 if g % 2 == 0 else 3
    rules = BooksRules(P, void_trump="counts" if g % 4 < 2 else "ignored")
    fk = np.array([_CONF_POLICIES[(s + g) % 4][0] for s in range(P)], dtype=np.int64)
    pk = np.array([_CONF_POLICIES[(s + g) % 4][1] for s in range(P)], dtype=np.int64)
    fp = np.zeros((P, B.N_PARAMS))
    fp[:, :9] = B.HEURISTIC_FORECAST_PARAMS
    pp = np.zeros((P, B.N_PARAMS))
    pp[:, 0] = 1.0
    return rules, fk, fp, pk, pp


def trace_game(rules: BooksRules, key: int, g: int, fk, fp, pk, pp, engine: str = "kernel") -> list:
    """Event rows ``(code, seat, card)`` of game g on stream key (STK-9), from the kernel or the reference."""
    if engine == "kernel":
        tr = np.zeros((4 * (1 + 64 + 25 + 4 * 16 * 2 + 4), 3), dtype=np.int64)
        n = K._trace_game(np.uint64(key), g, rules.as_array(), rules.scoring_id, fk, fp, pk, pp, tr)
        return [tuple(int(x) for x in row) for row in tr[:n]]
    if engine == "reference":
        tr = []
        REF.play_game(rules.as_array(), rules.scoring_id, [int(x) for x in fk], fp.tolist(),
                      [int(x) for x in pk], pp.tolist(), py_game_state(int(key), g), tr)
        return tr
    raise ValueError(f"engine must be 'kernel' or 'reference', not {engine!r}")


def record_from_trace(rules: BooksRules, rows) -> dict:
    """A JSON-able game record (cards as strings) from trace rows."""
    hands = []
    cur = None
    trick = None
    for code, seat, card in rows:
        if code == B.A_HAND:
            cur = {"start": card, "deal": [[] for _ in range(rules.players)],
                   "predictions": [[] for _ in range(rules.players)], "tricks": [], "scores": []}
            hands.append(cur)
        elif code == B.A_DEAL:
            cur["deal"][seat].append(card_name(card))
        elif code == B.A_PREDICT:
            cur["predictions"][seat].append(card_name(card))
        elif code == B.A_FORECAST:
            pass
        elif code == B.A_PLAY:
            if trick is None:
                trick = {"leader": seat, "cards": []}
            trick["cards"].append(card_name(card))
        elif code in (B.A_CLOSE, B.A_EXTRA):
            trick["winner"] = seat
            trick["close"] = card_name(card) if code == B.A_CLOSE else None
            cur["tricks"].append(trick)
            trick = None
        elif code == B.A_SCORE:
            cur["scores"].append(card)
    totals = [sum(h["scores"][s] for h in hands) for s in range(rules.players)]
    return {"players": rules.players, "void_trump": rules.void_trump, "scoring": rules.scoring,
            "hands": hands, "totals": totals,
            "winners": REF.winners(totals, (rules.players - 1) % rules.players, 0)}


def _conformance_play(seed: int, games: int, engine: str) -> list:
    key = int(chunk_keys(seed, 1)[0])
    out = []
    for g in range(games):
        rules, fk, fp, pk, pp = _conf_setup(g)
        out.append(record_from_trace(rules, trace_game(rules, key, g, fk, fp, pk, pp, engine)))
    return out


def _step_legal(rules_arr, state) -> np.ndarray:
    out = np.zeros(K.MAX_ACTIONS, dtype=np.int64)
    return out[:K.legal_actions(rules_arr, state, out)]


def _step_play(rules_arr, state, action: int, seat: int, what: str) -> None:
    """One recorded action through the step interface: ``seat`` must be the one to act and the action legal."""
    assert int(K.current_player(state)) == seat, f"{what}: seat {seat} acts, but seat {K.current_player(state)} is to act"
    assert bool((_step_legal(rules_arr, state) == action).any()), f"{what}: not a legal action"
    K.apply_action(rules_arr, state, action)


def _replay_hand_by_steps(rules: BooksRules, h: int, hand: dict, totals: list) -> list[int]:
    """Replay hand ``h`` of a game record through the step interface (``books_kernels``' step functions);
    returns the hand's scores per seat (the step game's totals after the hand less ``totals``)."""
    P = rules.players
    ra = rules.game_array(hands=h + 1)  # this hand is the game's last: no deal follows it
    state = np.zeros(K.STATE_SIZE, dtype=np.int64)
    state[:B.STATE_SIZE] = REF.state_from_hands(rules.as_array(), [rules.parse_cards(c) for c in hand["deal"]],
                                                hand["start"])
    state[B.S_HANDNO], state[B.S_NHANDS] = h, h + 1
    state[B.S_TOTAL:B.S_TOTAL + P] = totals
    for i in range(P):  # STK-4: the forecast, clockwise from the starting player
        s = (hand["start"] + i) % P
        held = REF.hand_cards(state, s)
        laid = rules.parse_cards(hand["predictions"][s])
        assert set(laid) <= set(held), f"hand {h}: seat {s} lays a prediction card it does not hold (STK-4)"
        _step_play(ra, state, sum(1 << held.index(c) for c in laid), s, f"hand {h}: seat {s}'s forecast (STK-4)")
    for t, tr in enumerate(hand["tricks"]):
        where = f"hand {h} trick {t + 1}"
        assert not K.is_terminal(state), f"{where}: the hand is already over (STK-7)"
        assert tr["leader"] == state[B.S_LEADER], f"{where}: the wrong seat leads (STK-5)"
        for k, c in enumerate(rules.parse_cards(tr["cards"])):
            _step_play(ra, state, c, (tr["leader"] + k) % P, f"{where}: card {k + 1} (STK-5)")
        close = None if tr["close"] is None else rules.parse_cards([tr["close"]])[0]
        if not K.is_terminal(state) and state[B.S_PHASE] == B.PH_CLOSE:
            assert state[B.S_TURN] == tr["winner"], f"{where}: winner (STK-5)"
            assert close is not None, f"{where}: the winner's close is missing (STK-6)"
            _step_play(ra, state, close, tr["winner"], f"{where}: close (STK-6)")
        assert state[B.T_WIN + t] == tr["winner"], f"{where}: winner (STK-5)"
        done = int(state[B.T_CLOSE + t])
        assert (None if done < 0 else done) == close, f"{where}: the prediction card closed (STK-6)"
    assert K.is_terminal(state), f"hand {h}: the hand goes on after the recorded tricks (STK-7)"
    out = np.zeros(P)
    K.returns(ra, state, out)
    return [int(out[s]) - totals[s] for s in range(P)]


def _conformance_check(rec: dict) -> None:
    """A game record's invariants, replayed through the step interface (STK-1..STK-9)."""
    rules = BooksRules(rec["players"], scoring=rec["scoring"], void_trump=rec["void_trump"])
    P = rules.players
    assert len(rec["hands"]) == P, "a game has as many hands as players (STK-9)"
    totals = [0] * P
    for h, hand in enumerate(rec["hands"]):
        assert hand["start"] == h % P, f"hand {h}: the start moves one seat clockwise (STK-9)"
        dealt = [c for cards in hand["deal"] for c in cards]
        assert len(dealt) == len(set(dealt)) == P * rules.hand_size, "cards conserved in the deal (STK-1, STK-3)"
        assert set(dealt) == {card_name(int(c)) for c in rules.deck}, "the deal is the deck in play (STK-1)"
        scores = _replay_hand_by_steps(rules, h, hand, totals)
        kmax = max(len(p) for p in hand["predictions"])
        assert len(hand["tricks"]) == rules.hand_size - kmax, "hand length = the shortest hand (STK-7)"
        for s in range(P):
            assert hand["scores"][s] == scores[s], f"hand {h} seat {s}: score (STK-8)"
            totals[s] += hand["scores"][s]
    assert totals == rec["totals"], "game totals (STK-9)"
    assert rec["winners"] == REF.winners(totals, (P - 1) % P, 0), "winner and tie-break (STK-9)"


def _conformance_playthrough(seed: int) -> str:
    rec = _conformance_play(seed, 1, "kernel")[0]
    lines = [f"Shut The Books, {rec['players']} players, void trump {rec['void_trump']}, "
             f"scoring {rec['scoring']}, seed {seed}"]
    for h, hand in enumerate(rec["hands"]):
        lines.append(f"hand {h + 1}: seat {hand['start']} starts")
        for s, cards in enumerate(hand["deal"]):
            lines.append(f"  seat {s} dealt {' '.join(cards)}")
        for i in range(rec["players"]):
            s = (hand["start"] + i) % rec["players"]
            lines.append(f"  seat {s} predicts {' '.join(hand['predictions'][s]) or '(nothing)'}")
        for t, tr in enumerate(hand["tricks"]):
            close = f"closes {tr['close']}" if tr["close"] else "extra trick"
            lines.append(f"  trick {t + 1}: seat {tr['leader']} leads {' '.join(tr['cards'])}; "
                         f"seat {tr['winner']} wins, {close}")
        lines.append(f"  scores {hand['scores']}")
    lines.append(f"totals {rec['totals']}; winner seat {rec['winners'][0]}")
    return "\n".join(lines) + "\n"


def conformance():
    """The hooks of the shared conformance harness (:class:`ludolab.sim.conformance.Conformance`)."""
    from .conformance import Conformance

    return Conformance(_conformance_play, _conformance_check, _conformance_playthrough)


# ------------------------------------------------------------------ replaying and scoring records
def _rerr(msg: str) -> RecordError:
    return RecordError(msg)


def _cards(rules: BooksRules, value, where: str) -> list[int]:
    if not isinstance(value, (list, str)):
        raise _rerr(f"{where}: expected a list of cards like [\"R15\", \"Y3\"] (STK-2)")
    try:
        return rules.parse_cards(value)
    except CardError as e:
        raise _rerr(f"{where}: {e} (STK-2)") from None


#: The fields of a hand record, and of each of its tricks.
RECORD_KEYS = frozenset({"players", "start", "hands", "predictions", "tricks"})
TRICK_KEYS = frozenset({"leader", "cards", "close"})


def replay_hand(rules: BooksRules, record: dict, strict_close: bool = False) -> dict:
    """Replay a hand record and score it (STK-3..STK-8), refusing any illegal record.

    Args:
        record: dict with ``players``, ``start``, ``hands``, ``predictions``, ``tricks``
            (each ``leader``, ``cards``, optional ``close``); see ``seeds/shut_the_books.md``.
        strict_close: require ``close`` whenever a prediction is closed (used by checks).

    Returns:
        ``{"seats": [{"seat", "tricks_won", "closed", "off", "score"}, ...], "tricks": [{"winner", "close"}]}``.

    Raises:
        RecordError: one line naming the trick (or field) and the clause broken.
    """
    P = rules.players
    start, dealt = _record_deal(rules, record)
    state = _record_forecast(rules, record, dealt, start)
    tricks = record.get("tricks")
    if not isinstance(tricks, list):
        raise _rerr("tricks must be a list of tricks (STK-5)")
    n_tricks = state[B.S_NTRICKS]
    if len(tricks) != n_tricks:
        raise _rerr(f"the record has {len(tricks)} tricks; with these predictions the hand lasts exactly "
                    f"{n_tricks} tricks (STK-7)")
    out_tricks = []
    for t, tr in enumerate(tricks):
        where = f"trick {t + 1}"
        _record_trick_play(rules, state, t, tr, where)
        w = state[B.T_WIN + t]
        _record_trick_close(rules, state, t, tr.get("close"), where, strict_close)
        out_tricks.append({"winner": int(w), "close": (card_name(state[B.T_CLOSE + t])
                                                         if state[B.T_CLOSE + t] >= 0 else None)})
    seats = []
    for s in range(P):
        off = REF.off_of(state, s)
        seats.append({"seat": s, "tricks_won": int(state[B.NWON + s]), "predictions": int(state[B.NPRED + s]),
                      "closed": int(state[B.NCLOSED + s]), "off": int(off),
                      "score": int(REF.score_of(off, state[B.NWON + s], rules.scoring_id))})
    return {"seats": seats, "tricks": out_tricks}


def _record_deal(rules: BooksRules, record: dict) -> tuple[int, list[list[int]]]:
    """A hand record's starting seat (STK-3) and the cards dealt to each seat, each card once (STK-1, STK-3)."""
    P = rules.players
    start = record.get("start")
    if type(start) is not int or not 0 <= start < P:
        got = "it is missing" if start is None else f"not {start!r}"
        raise _rerr(f"start must be a seat number 0..{P - 1}, {got} (STK-3)")
    hands = record.get("hands")
    if not isinstance(hands, list) or len(hands) != P:
        raise _rerr(f"hands must list the cards dealt to each of the {P} seats (STK-3)")
    dealt = [_cards(rules, h, f"hands[{s}]") for s, h in enumerate(hands)]
    seen = {}
    for s, h in enumerate(dealt):
        if len(h) != rules.hand_size:
            raise _rerr(f"hands[{s}]: seat {s} holds {len(h)} cards; each seat is dealt {rules.hand_size} (STK-3)")
        for c in h:
            if c in seen:
                raise _rerr(f"hands[{s}]: card {card_name(c)} is also dealt to seat {seen[c]} (STK-1)")
            seen[c] = s
    return start, dealt


def _record_forecast(rules: BooksRules, record: dict, dealt: list[list[int]], start: int) -> list:
    """The reference hand state after a record's deal and forecast (STK-4), in turn order from ``start``."""
    P = rules.players
    preds = record.get("predictions")
    if not isinstance(preds, list) or len(preds) != P:
        raise _rerr(f"predictions must list the prediction cards of each of the {P} seats (STK-4)")
    pcards = [_cards(rules, p, f"predictions[{s}]") for s, p in enumerate(preds)]
    state = REF.state_from_hands(rules.as_array(), dealt, start)
    for i in range(P):
        s = (start + i) % P
        pc = pcards[s]
        if len(pc) > B.MAX_PREDICTIONS:
            raise _rerr(f"predictions[{s}]: seat {s} laid {len(pc)} prediction cards; at most "
                        f"{B.MAX_PREDICTIONS} are allowed (STK-4)")
        for c in pc:
            if c not in dealt[s]:
                raise _rerr(f"predictions[{s}]: seat {s} was not dealt {card_name(c)} (STK-4)")
        REF.apply_forecast(state, s, sorted(pc))
    return state


def _record_trick_play(rules: BooksRules, state: list, t: int, tr, where: str) -> None:
    """Play trick ``t`` of a record on ``state``: its leader (STK-5), one card each, following suit (STK-5)."""
    P = rules.players
    if not isinstance(tr, dict):
        raise _rerr(f"{where}: expected an object with leader, cards and close (STK-5)")
    extra = sorted(set(tr) - TRICK_KEYS)
    if extra:
        raise _rerr(f"{where}: unknown field {extra[0]!r}: a trick has leader, cards and close (STK-5)")
    leader = tr.get("leader")
    if type(leader) is not int or not 0 <= leader < P:
        got = "it is missing" if leader is None else f"not {leader!r}"
        raise _rerr(f"{where}: the leader must be a seat number 0..{P - 1}, {got} (STK-5)")
    if leader != state[B.S_LEADER]:
        who = "the starting player" if t == 0 else "the winner of the previous trick"
        raise _rerr(f"{where}: the leader is seat {leader!r}, but {who}, seat {state[B.S_LEADER]}, "
                    f"leads (STK-5)")
    cards = _cards(rules, tr.get("cards"), where)
    if len(cards) != P:
        raise _rerr(f"{where}: {len(cards)} cards played; every one of the {P} players plays one (STK-5)")
    for k, c in enumerate(cards):
        s = (leader + k) % P
        if state[B.LOC + c] != B.L_HAND + s:
            raise _rerr(f"{where}: seat {s} plays {card_name(c)}, a card not in their hand (STK-5)")
        legal = REF.legal_plays(state, s)
        if c not in legal:
            led = B.COLOUR_NAMES[REF.led_colour(state)]
            raise _rerr(f"{where}: seat {s} plays {card_name(c)} but holds {led} and must follow suit (STK-5)")
        REF.play_card(state, c)


def _record_trick_close(rules: BooksRules, state: list, t: int, close, where: str, strict_close: bool) -> None:
    """Close the prediction card the record names for trick ``t`` when the winner has a choice, or check
    the one the rules close (STK-6); ``strict_close`` requires it named whenever one is closed."""
    w = state[B.T_WIN + t]
    if state[B.S_PHASE] == B.PH_CLOSE:
        options = REF.pending_matches(state)
        if close is None:
            raise _rerr(f"{where}: seat {w} wins and may close {' or '.join(card_name(o) for o in options)}; "
                        f"the record must say which (close) (STK-6)")
        cc = _cards(rules, [close], where)[0]
        if cc not in options:
            raise _rerr(f"{where}: seat {w} cannot close {card_name(cc)}: the winning card matches only the "
                        f"open prediction cards {' '.join(card_name(o) for o in options)} (STK-6)")
        REF.close_card(state, cc)
        return
    done = state[B.T_CLOSE + t]
    if close is not None:
        cc = _cards(rules, [close], where)[0]
        if done < 0:
            raise _rerr(f"{where}: seat {w} cannot close {card_name(cc)}: the winning card matches no open "
                        f"prediction card of seat {w} (STK-6)")
        if cc != done:
            raise _rerr(f"{where}: seat {w} cannot close {card_name(cc)}: only {card_name(done)} is open and "
                        f"matches (STK-6)")
    elif strict_close and done >= 0:
        raise _rerr(f"{where}: close is missing")


def score_record(record, scoring: str = "rulebook", void_trump: str = "counts") -> dict:
    """Replay and score a real hand record (a dict, JSON text, or a :class:`~pathlib.Path` to a JSON file).

    Returns:
        ``{"seats": [{"seat", "tricks_won", "predictions", "closed", "off", "score"}, ...], "tricks": [...]}``
        in seat order.

    Raises:
        RecordError: unreadable JSON, a missing field, or a rule broken (naming the trick and clause).
    """
    if isinstance(record, (Path, str)):
        from ludolab.stdlib.jsonfile import load_json

        record = load_json(record, "hand record", RecordError)
    if not isinstance(record, dict):
        raise _rerr("a hand record is a JSON object with players, start, hands, predictions and tricks")
    unknown_keys = sorted(set(record) - RECORD_KEYS)
    if unknown_keys:
        raise _rerr(f"unknown field {unknown_keys[0]!r} in the hand record: allowed are "
                    f"{', '.join(sorted(RECORD_KEYS))}")
    players = record.get("players")
    if type(players) is not int or players not in B.PLAYER_COUNTS:
        got = "it is missing" if players is None else f"not {players!r}"
        raise _rerr(f"players must be the whole number 3 or 4, {got} (STK-1)")
    rules = BooksRules(players, scoring=scoring, void_trump=void_trump)
    return replay_hand(rules, record)


# ------------------------------------------------------------------ forecast advice
def advice_observation(rules: BooksRules, hand, position: int, earlier) -> np.ndarray:
    """The forecasting player's observation (int16 state layout) from their hand, their position in the
    forecast order (1 = first) and the prediction cards laid by the players before them (STK-4).

    Seat 0 starts, so the player is seat ``position - 1``.

    Raises:
        LudolabError: wrong hand size, unknown or repeated cards, a position outside 1..players,
            not one earlier forecast per earlier player, more than 5 prediction cards.
    """
    P, H = rules.players, rules.hand_size
    try:
        own = rules.parse_cards(hand)
    except CardError as e:
        raise CardError(f"hand: {e}") from None
    if len(own) != H:
        raise LudolabError(f"the hand before forecasting holds {H} cards with {P} players, not {len(own)} (STK-3)")
    if isinstance(position, bool) or not isinstance(position, (int, np.integer)) or not 1 <= position <= P:
        raise LudolabError(f"the position in forecast order must be 1..{P} (1 = forecasts first), not {position!r}")
    earlier = list(earlier or [])
    if len(earlier) != position - 1:
        if position == 1:
            raise LudolabError(f"position 1 forecasts first: no earlier forecast is allowed, not {len(earlier)}")
        need = "the forecast of the 1 player" if position == 2 else f"the forecasts of the {position - 1} players"
        raise LudolabError(f"position {position} needs {need} before, in order (an empty one for a player who laid "
                           f"nothing), not {len(earlier)}")
    seen = {c: "your hand" for c in own}
    laid = []
    for i, e in enumerate(earlier):
        try:
            cs = rules.parse_cards(e)
        except CardError as err:
            raise CardError(f"earlier forecast {i + 1}: {err}") from None
        if len(cs) > B.MAX_PREDICTIONS:
            raise LudolabError(f"earlier forecast {i + 1} has {len(cs)} prediction cards; at most "
                               f"{B.MAX_PREDICTIONS} are allowed (STK-4)")
        for c in cs:
            if c in seen:
                raise CardError(f"card {card_name(c)} of earlier forecast {i + 1} is also in {seen[c]}: "
                                "every card is unique (STK-1)")
            seen[c] = f"earlier forecast {i + 1}"
        laid.append(cs)
    me = position - 1
    st = [0] * B.STATE_SIZE
    REF.new_hand(st, rules.as_array(), 0, 0)
    for c in rules.deck:
        st[B.LOC + int(c)] = B.L_HIDDEN
    for c in own:
        st[B.LOC + c] = B.L_HAND + me
    for s, cs in enumerate(laid):
        for c in cs:
            st[B.LOC + c] = B.L_OPEN + s
        st[B.NPRED + s] = len(cs)
        st[B.NHAND + s] = H - len(cs)
    st[B.S_NFORECAST] = me
    st[B.S_TURN] = me
    st[B.S_VIEWER] = me
    REF.sync_masks(st)
    return np.array(st, dtype=np.int16)


def advise(rules: BooksRules, hand, position: int, earlier=(), pool: int = 8, worlds: int = 32,
           half_width: float = 0.1, max_worlds: int = 40_000, seed: int = 0, top: int = 10) -> pd.DataFrame:
    """Which prediction cards to lay: the rollout forecaster's search for one hand (STK-4), as a
    DataFrame of the rows of :func:`advise_rows` (which see: the same search, the same numbers).

    Returns:
        DataFrame, best first, with the columns of :func:`advise_rows`; ``df.attrs["search"]``
        holds the search details.

    Raises:
        LudolabError: bad hand, position, earlier forecasts or search sizes.
    """
    rows, search = advise_rows(rules, hand, position, earlier, pool, worlds, half_width, max_worlds, seed, top)
    df = _frame(rows, None, ADVISE_COLUMNS)
    df.attrs["search"] = search
    return df


#: The columns of :func:`advise_rows`, in order.
ADVISE_COLUMNS = ["lay", "cards", "worlds", "expected_score", "expected_score_ci_low", "expected_score_ci_high",
                  "p_exact", "p_exact_ci_low", "p_exact_ci_high", "p_off_by_1", "p_off_by_1_ci_low",
                  "p_off_by_1_ci_high", "final", "best"]


def advise_rows(rules: BooksRules, hand, position: int, earlier=(), pool: int = 8, worlds: int = 32,
                half_width: float = 0.1, max_worlds: int = 40_000, seed: int = 0,
                top: int = 10) -> tuple[list[dict], dict]:
    """Which prediction cards to lay: the rollout forecaster's search for one hand (STK-4), as
    plain rows (the command at the table prints them without pandas).

    Candidates are the subsets of at most 5 of the ``pool`` cards rated best as prediction cards
    (see :func:`forecast_policy`); successive halving starts at ``worlds`` sampled deals of the
    hidden cards per candidate (common to all candidates in a round) and doubles them while
    halving the candidates; the last (at most 8) candidates are then rolled out until the 95%
    CI half-width of each mean hand score is at most ``half_width`` points (or ``max_worlds``).
    Every rollout plays heuristic forecasts for the later players and heuristic play for all.
    No candidate is dropped as dominated: no sound dominance between prediction sets exists under
    the rules (see ``books_kernels._forecast_candidates``), so pruning is statistical only.

    Returns:
        ``(rows, search)``: rows, dicts best first (the finalists by expected score, then the rest;
        ties keep the candidates' order), at most ``top`` (all with ``top`` 0): ``lay`` (cards, as a
        list of strings), ``cards``, ``worlds``, ``expected_score`` with CI, ``p_exact`` and
        ``p_off_by_1`` with Wilson CIs, ``final`` (reached the last round), ``best`` (the search's
        pick); search: the search details (candidates, pool, start worlds, rollouts, ...).

    Raises:
        LudolabError: bad hand, position, earlier forecasts or search sizes.
    """
    if not 1 <= int(pool) <= 12:
        raise PolicyError(f"pool must be 1..12 cards, not {pool}")
    if not 1 <= int(worlds) <= 10_000:
        raise PolicyError(f"worlds must be 1..10000, not {worlds}")
    if not 0.0 < float(half_width) < float("inf"):
        raise PolicyError(f"the CI half-width must be a finite number of points > 0, not {half_width}")
    if not 1 <= int(max_worlds) <= 10**6:
        raise PolicyError(f"the most sampled deals per candidate must be 1..1000000, not {max_worlds}")
    obs = advice_observation(rules, hand, position, earlier)
    cands = np.empty(1 << 12, dtype=np.int64)
    params = np.zeros(B.N_PARAMS)
    params[0], params[1], params[2] = pool, worlds, rules.scoring_id
    params[B.ROLLOUT_HEURISTIC_AT:B.ROLLOUT_HEURISTIC_AT + 9] = B.HEURISTIC_FORECAST_PARAMS
    nc = K._forecast_candidates(obs, int(pool), B.MAX_PREDICTIONS, cands, params)
    stats = np.zeros((nc, 6))
    rng = np.uint64(py_game_state(int(chunk_keys(seed, 1)[0]), 0))  # the kernel's stream, as uint64
    best, _ = K._forecast_search(obs, params, rng, cands, nc, stats, int(max_worlds), float(half_width))
    last = stats[:, 5].max()
    lo, hi = rules.score_bounds()
    rows = []
    for i in range(nc):
        n = int(stats[i, 0])
        cs = [card_name(c) for c in range(B.N_CARD_IDS) if (int(cands[i]) >> c) & 1]
        m = mean_ci(n, stats[i, 1], stats[i, 2], bounds=(lo, hi))
        ex = wilson_ci(int(stats[i, 3]), n)
        o1 = wilson_ci(int(stats[i, 4]), n)
        rows.append({"lay": cs, "cards": len(cs), "worlds": n, **m.as_dict("expected_score"),
                     **ex.as_dict("p_exact"), **o1.as_dict("p_off_by_1"), "final": bool(stats[i, 5] == last),
                     "best": i == best})
    # best first, as a stable sort on (final, expected_score) both descending (a NaN score last)
    rows.sort(key=lambda r: (not r["final"], r["expected_score"] != r["expected_score"], -r["expected_score"]))
    search = {"candidates": int(nc), "pool": int(pool), "start_worlds": int(worlds),
              "rollouts": int(stats[:, 0].sum()), "half_width": float(half_width), "seed": int(seed),
              "play_policy": "heuristic for everyone", "later_forecasts": "heuristic"}
    return (rows[:int(top)] if top else rows), search


# ------------------------------------------------------------------ the step interface
#: Budgets of the rollout policies among the step interface's named policies: small, so that the
#: harness can afford them (the policies are the same at any budget).
STEP_ROLLOUT_BUDGET = {"pool": 3, "worlds": 1}


def policy_pair(rules: BooksRules, forecast="heuristic", play="heuristic") -> tuple:
    """One seat's forecast and play policies as the step interface's ``(kind, params)`` (see
    ``books_kernels.act``): ``kind = POLICY_PAIR_BASE * forecast kind + play kind``, ``params``
    float64 (2 * N_PARAMS,), the forecast parameters then the play parameters (rollouts judge hands
    under ``rules``' scoring).

    Raises:
        PolicyError: unknown policy names or bad parameters.
    """
    fk, fp, pk, pp, _, _ = _seat_arrays(rules, [forecast] * rules.players, [play] * rules.players)
    return int(B.POLICY_PAIR_BASE * fk[0] + pk[0]), np.concatenate([fp[0], pp[0]])


def _pair_arrays(policies) -> tuple:
    """Per-seat forecast / play kinds and parameter arrays of the fast kernels from ``(kind, params)`` pairs."""
    fk = np.array([k // B.POLICY_PAIR_BASE for k, _ in policies], dtype=np.int64)
    pk = np.array([k % B.POLICY_PAIR_BASE for k, _ in policies], dtype=np.int64)
    fp = np.array([np.asarray(p, dtype=np.float64)[:B.N_PARAMS] for _, p in policies])
    pp = np.array([np.asarray(p, dtype=np.float64)[B.N_PARAMS:] for _, p in policies])
    return fk, fp, pk, pp


def _rules_of(rules_arr) -> BooksRules:
    """The ruleset of a game rules array (``BooksRules.game_array``)."""
    return BooksRules(int(rules_arr[0]), scoring=B.SCORINGS[int(rules_arr[B.R_SCORING])],
                      void_trump=B.VOID_TRUMP[1 - int(rules_arr[3])], tie_break=B.TIE_BREAKS[int(rules_arr[B.R_TIE_BREAK])])


def _named_policy(rules: BooksRules, forecast: str, play: str) -> tuple:
    budget = STEP_ROLLOUT_BUDGET
    f = forecast_policy(forecast, pool=budget["pool"], worlds=budget["worlds"]) if forecast == "rollout" else forecast
    p = play_policy(play, worlds=budget["worlds"]) if play == "rollout" else play
    return policy_pair(rules, f, p)


def step_policies(rules: BooksRules | None = None) -> dict:
    """Every named policy pair of the step interface, ``"forecast/play" -> (kind, params)``: each forecast
    policy of :data:`ludolab.stdlib.books.FORECAST_POLICIES` with each play policy of
    :data:`~ludolab.stdlib.books.PLAY_POLICIES`, rollouts at :data:`STEP_ROLLOUT_BUDGET`."""
    rules = rules or BooksRules()
    return {f"{f}/{p}": _named_policy(rules, f, p) for f in B.FORECAST_POLICIES for p in B.PLAY_POLICIES}


_CARD_BITS = np.left_shift(np.int64(1), np.arange(B.N_CARD_IDS, dtype=np.int64))
_IN_DECK = {N: np.arange(B.N_CARD_IDS) % B.MAX_NUMBER < N for N in (12, 15)}


def _card_set(st, base: int) -> int:
    return sum(int(st[base + k]) << (15 * k) for k in range(4))


def _step_check_state(rules_arr, state) -> None:
    """The invariants of a step-interface state (STK-1, STK-3..STK-9): every card of the deck in play in
    exactly one place (a hand, a prediction card open or closed, a trick), the counts and card sets
    agreeing with the places, one winner per won trick, hand number and totals in range.

    Raises:
        AssertionError: naming the broken invariant.
    """
    st = np.asarray(state)
    P, N, H = int(rules_arr[0]), int(rules_arr[1]), int(rules_arr[2])
    assert st[B.S_PLAYERS] == P and st[B.S_NMAX] == N and st[B.S_HAND] == H, "the rules in the state (STK-1)"
    loc = st[B.LOC:B.LOC + B.N_CARD_IDS]
    bad = np.flatnonzero((loc != B.L_OUT) != _IN_DECK[N])
    assert bad.size == 0, f"card {card_name(int(bad[0]))}: in the deck in play exactly when its number is at most {N} (STK-1)"
    placed = (loc == B.L_OUT) | (loc == B.L_PLAYED) | ((loc >= 0) & (loc < B.L_PLAYED) & (loc % 4 < P))
    bad = np.flatnonzero(~placed)
    assert bad.size == 0, f"card {card_name(int(bad[0]))} has no place (location {loc[bad[0]]}): cards conserved"
    n_rows = min(int(st[B.S_TRICK]) + 1, B.MAX_TRICKS)
    tc = st[B.T_CARDS:B.T_CARDS + 4 * n_rows].reshape(n_rows, 4)[:, :P]
    cards = tc[tc >= 0]
    assert np.all(loc[cards] == B.L_PLAYED), "a card in a trick is not marked played"
    played = (tc >= 0).sum(axis=0)
    assert int((loc == B.L_PLAYED).sum()) == cards.size, "every played card is in a trick: cards conserved"
    for s in range(P):
        in_hand = loc == B.L_HAND + s
        opn = loc == B.L_OPEN + s
        closed = int((loc == B.L_CLOSED + s).sum())
        hand = int(in_hand.sum())
        assert hand == st[B.NHAND + s], f"seat {s}: {hand} cards in hand but the count says {st[B.NHAND + s]}"
        assert int(opn.sum()) + closed == st[B.NPRED + s] <= B.MAX_PREDICTIONS, f"seat {s}: prediction cards (STK-4)"
        assert closed == st[B.NCLOSED + s], f"seat {s}: closed prediction cards"
        assert hand + int(opn.sum()) + closed + int(played[s]) == H, f"seat {s}: cards conserved (dealt {H})"
        assert _card_set(st, B.HMASK + 4 * s) == int(_CARD_BITS[in_hand].sum()), f"seat {s}: hand card set"
        assert _card_set(st, B.OMASK + 4 * s) == int(_CARD_BITS[opn].sum()), f"seat {s}: open card set"
    pending = int(st[B.S_PHASE] == B.PH_CLOSE)  # a won trick waiting for its close
    assert int(st[B.NWON:B.NWON + P].sum()) == st[B.S_TRICK] + pending, "one winner per won trick (STK-5)"
    assert int(st[B.NCLOSED:B.NCLOSED + P].sum() + st[B.NEXTRA:B.NEXTRA + P].sum()) == st[B.S_TRICK], (
        "a finished trick closes one prediction card or is an extra trick (STK-6)")
    nh = int(st[B.S_NHANDS])
    assert nh == rules_arr[B.R_HANDS] and 0 <= st[B.S_HANDNO] <= nh, "hand number within the game (STK-9)"
    lo, hi = _rules_of(rules_arr).score_bounds()
    done = int(st[B.S_HANDNO])
    for s in range(P):
        assert lo * done <= st[B.S_TOTAL + s] <= hi * done, f"seat {s}: total out of bounds (STK-8)"


def _step_simulate(rules_arr, policies, keys, games_per_chunk) -> np.ndarray:
    """The fast whole-game kernel (``_simulate_games``) on chunk keys; its accumulator summed over chunks."""
    if int(rules_arr[B.R_HANDS]) != int(rules_arr[0]):
        raise ValueError("the fast kernels play whole games: as many hands as players (STK-9)")
    fk, fp, pk, pp = _pair_arrays(policies)
    keys = np.asarray(keys, dtype=np.uint64)
    P = int(rules_arr[0])
    out = np.zeros((keys.shape[0], P, K.N_GSTATS))
    K._simulate_games(keys, np.zeros(keys.shape[0], dtype=np.int64), np.full(keys.shape[0], games_per_chunk, np.int64),
                      np.ascontiguousarray(rules_arr, dtype=np.int64), fk, fp, pk, pp, out)
    return out.sum(axis=0)


def trace_actions(rules_arr, rows) -> list[int]:
    """The step interface's actions of a game from the fast kernels' trace rows ``(code, seat, card)``:
    each forecast as the bitmask of its cards' positions in the seat's sorted hand, each card played,
    and each close where several open prediction cards matched (replayed on the reference's rules)."""
    r4 = [int(x) for x in rules_arr[:4]]
    actions, hands, preds, st, start = [], None, [], None, 0
    for code, seat, card in rows:
        if code == B.A_HAND:
            start, hands, st = card, [[] for _ in range(r4[0])], None
        elif code == B.A_DEAL:
            hands[seat].append(card)
        elif code in (B.A_PREDICT, B.A_FORECAST):
            if st is None:
                st = REF.state_from_hands(r4, hands, start)
            if code == B.A_PREDICT:
                preds.append(card)
                continue
            hand = REF.hand_cards(st, seat)
            actions.append(sum(1 << hand.index(c) for c in preds))
            REF.apply_forecast(st, seat, sorted(preds))
            preds = []
        elif code == B.A_PLAY:
            actions.append(card)
            REF.play_card(st, card)
        elif code == B.A_CLOSE and st[B.S_PHASE] == B.PH_CLOSE:
            actions.append(card)
            REF.close_card(st, card)
    return actions


def _step_fast_games(rules_arr, policies, keys) -> list:
    """The fast kernels' own games (their tracing mode) for each stream start, as step actions."""
    fk, fp, pk, pp = _pair_arrays(policies)
    out = []
    for key in np.asarray(keys, dtype=np.uint64):
        tr = np.zeros((4 * (1 + 64 + 25 + 4 * 16 * 2 + 4), 3), dtype=np.int64)
        n = K._trace_stream(np.uint64(key), np.ascontiguousarray(rules_arr[:4]), int(rules_arr[B.R_SCORING]),
                            fk, fp, pk, pp, tr)
        out.append(trace_actions(rules_arr, [tuple(int(x) for x in row) for row in tr[:n]]))
    return out


def _step_winner(rules_arr, state) -> int:
    """The winner under the last-start tie-break (STK-9)."""
    P = int(rules_arr[0])
    totals = [int(state[B.S_TOTAL + s]) for s in range(P)]
    return REF.winners(totals, (int(rules_arr[B.R_HANDS]) - 1) % P, 0)[0]


def _step_accumulator(case) -> list:
    """The columns of ``_simulate_games``' accumulator (players, N_GSTATS), described as data."""
    from .step import Column

    tb = B.TIE_BREAKS[int(case.rules[B.R_TIE_BREAK])]
    cols = []
    for s in range(case.n_players):
        cols += [Column((s, K.G_GAMES), "games", None if s == 0 else s, name=f"games (seat {s}'s row)"),
                 Column((s, K.G_TOTAL), "points", s, name="game total"),
                 Column((s, K.G_TOTAL2), "points_sq", s, name="game total squared"),
                 Column((s, K.G_WINS), "wins", s, ties="tiebreak" if tb == "last-start" else "all",
                        name=f"games won ({tb})"),
                 Column((s, K.G_SHARED), "wins", s, ties="split", name="win share")]
    return cols


def _step_cases() -> list:
    from .step import RulesCase

    specs = [
        ("4p-rulebook", BooksRules(4), ("heuristic/heuristic", "random/random", "zero/heuristic", "heuristic/random")),
        ("3p-rulebook", BooksRules(3), ("heuristic/heuristic", "random/heuristic", "rollout/rollout")),
        ("4p-exact-only-void-ignored-shared", BooksRules(4, scoring="exact-only", void_trump="ignored", tie_break="shared"),
         ("random/heuristic", "heuristic/rollout", "zero/random", "heuristic/heuristic")),
        ("3p-linear", BooksRules(3, scoring="linear"), ("random/random", "heuristic/heuristic", "zero/random")),
    ]
    cases = []
    for label, rules, seats in specs:
        named = step_policies(rules)
        cases.append(RulesCase(label, rules.game_array(), rules.players, tuple(named[n] for n in seats)))
    return cases


def step_variants(players: int) -> list:
    """Every named rule variant of Shut The Books at ``players`` seats, as rulesets of the step game
    (:class:`ludolab.sim.step.RulesCase`, the best heuristic in every seat): each scoring (STK-8), void
    trump ignored (STK-6) and shared ties (STK-9), each otherwise the rulebook.

    Raises:
        RulesError: a player count the rules do not allow (STK-1)."""
    from .step import RulesCase

    rulesets = [(f"{sc} scoring", BooksRules(players, scoring=sc)) for sc in B.SCORINGS]
    rulesets += [("void trump ignored", BooksRules(players, void_trump="ignored")),
                 ("ties shared", BooksRules(players, tie_break="shared"))]
    out = []
    for label, rules in rulesets:
        named = step_policies(rules)
        out.append(RulesCase(label, rules.game_array(), players, (named["heuristic/heuristic"],) * players,
                             named=named))
    return out


def step_game():
    """Shut The Books for the step-interface harness (:class:`ludolab.sim.step.StepGame`): a whole game
    (STK-9) of as many hands as players, stepped by ``books_kernels``' step functions."""
    from .step import StepGame

    def max_steps(rules_arr):
        P, H, nh = int(rules_arr[0]), int(rules_arr[2]), int(rules_arr[B.R_HANDS])
        return nh * (P + P * H + H)  # forecasts, cards played, closes

    def return_bounds(rules_arr):
        lo, hi = _rules_of(rules_arr).score_bounds()
        nh = int(rules_arr[B.R_HANDS])
        return lo * nh, hi * nh

    named = step_policies()
    return StepGame(kernels=K, twin=REF, cases=_step_cases(), policies=named, max_steps=max_steps,
                    return_bounds=return_bounds, check_state=_step_check_state, simulate=_step_simulate,
                    accumulator=_step_accumulator, fast_games=_step_fast_games, lower_wins=False,
                    winner=_step_winner,
                    extra={"slow_policies": tuple(n for n in named if "rollout" in n), "hidden_information": True,
                           "best": "heuristic/heuristic", "random": "random/random",
                           "moments": lambda r: int(r[B.R_HANDS]) + 1, "variants": step_variants,
                           "enumerate_worlds": enumerate_worlds})
