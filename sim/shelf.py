"""Shelve the Book: the validated face of the kernels (policies, scoring, Monte Carlo, conformance).

Clause ids (``SHB-n``) refer to ``seeds/shelve_the_book.md``.  Heavy work runs
in :mod:`ludolab.sim.shelf_kernels`; :mod:`ludolab.sim.shelf_reference` is the
pure-Python twin the tests hold it against.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

import numpy as np

from ludolab.stdlib.errors import LudolabError, unknown
from ludolab.stdlib.shelf import KINDS, Deck, ShelfRules

from . import shelf_kernels as K
from . import shelf_reference as R
from .shelf_score import TableauScore, score_tableau_reference  # noqa: F401
from .shelf_worlds import enumerate_worlds
from .experiment import DEFAULT_CHUNKS
from .rng import chunk_keys
from .stats import Estimate, mean_ci, paired_diff_ci, wilson_ci

#: Policy names, their kind ids, default parameters and a one-line description.
POLICIES = {
    "random": (K.P_RANDOM, (), "a uniformly random legal choice at every decision"),
    "greedy": (K.P_GREEDY, (0.5,),
               "the best immediate score gain over every offer card and place; draws blind when no offer "
               "card gains a point; keeps the card with the better next placement"),
    "potential": (K.P_POTENTIAL, (0.5, 0.3, 0.6, 0.9),
                  "greedy on score plus potential: partial runs of 2/3/4 books with an open place at an end "
                  "count 0.3/0.6/0.9"),
    "rollout": (K.P_ROLLOUT, (0.5, 0.3, 0.6, 0.9, 8, 4),
                "Monte Carlo over future draws: each candidate (every offer card and the blind draw; then the "
                "4 best placements by potential) is played out to the end of the own tableau on 8 samples of "
                "the unseen cards, greedy in the playout; the best mean final score wins"),
}
PARAM_NAMES = {
    "random": (),
    "greedy": ("draw_below",),
    "potential": ("draw_below", "open_run2", "open_run3", "open_run4"),
    "rollout": ("draw_below", "open_run2", "open_run3", "open_run4", "rollouts", "candidates"),
}


class PolicyError(LudolabError):
    """An unknown policy or a bad policy parameter."""


@dataclass(frozen=True)
class Policy:
    """A policy as data (SHB-14): ``kind`` id and float64 ``params`` (NPARAM,)."""

    name: str
    kind: int
    params: tuple

    @property
    def label(self) -> str:
        changed = [f"{n}={v:g}" for n, v, d in zip(PARAM_NAMES[self.name], self.params, POLICIES[self.name][1])
                   if v != d]
        return f"{self.name}({', '.join(changed)})" if changed else self.name

    def array(self) -> np.ndarray:
        a = np.zeros(K.NPARAM)
        a[:len(self.params)] = self.params
        return a


def make_policy(name: str, **params) -> Policy:
    """A named policy with optional parameters (see :data:`POLICIES`, :data:`PARAM_NAMES`).

    Raises:
        PolicyError: unknown name or parameter, or a parameter that is not a finite number.
    """
    if isinstance(name, Policy):
        return name
    if name not in POLICIES:
        raise unknown("policy", name, POLICIES)
    kind, defaults, _ = POLICIES[name]
    values = list(defaults)
    for k, v in params.items():
        if k not in PARAM_NAMES[name]:
            raise PolicyError(f"policy {name} has no parameter {k!r}: allowed are "
                              f"{', '.join(PARAM_NAMES[name]) or 'none'}")
        try:
            v = float(v)
        except (TypeError, ValueError):
            raise PolicyError(f"policy {name} parameter {k} must be a number, not {v!r}") from None
        if not np.isfinite(v):
            raise PolicyError(f"policy {name} parameter {k} must be finite, not {v}")
        if k in ("rollouts", "candidates") and not (v == int(v) and 1 <= v <= (256 if k == "rollouts" else 16)):
            raise PolicyError(f"policy {name} parameter {k} must be a whole number "
                              f"1..{256 if k == 'rollouts' else 16}, not {v:g}")
        values[PARAM_NAMES[name].index(k)] = v
    return Policy(name, kind, tuple(values))


def parse_policy(text: str) -> Policy:
    """``greedy`` or ``potential:open_run2=0.5,draw_below=1`` -> Policy.

    Raises:
        PolicyError: as :func:`make_policy`, or a malformed parameter list.
    """
    name, _, rest = str(text).strip().partition(":")
    params = {}
    if rest:
        for part in rest.split(","):
            k, eq, v = part.partition("=")
            if not eq:
                raise PolicyError(f"cannot read policy parameter {part!r}: write name=value, e.g. {name}:draw_below=1")
            if k.strip() in params:  # given twice: refused, never the last one taken
                raise PolicyError(f"policy parameter {k.strip()} is given twice in {str(text)!r}: give each "
                                  "parameter once")
            params[k.strip()] = v.strip()
    return make_policy(name.strip(), **params)


def _seat_policies(rules: ShelfRules, policies) -> list[Policy]:
    if isinstance(policies, (str, Policy)):
        policies = [policies]
    pols = [p if isinstance(p, Policy) else parse_policy(p) for p in policies]
    if len(pols) == 1:
        pols = pols * rules.players
    if len(pols) != rules.players:
        raise PolicyError(f"give one policy for every seat or one for all: {len(pols)} policies for "
                          f"{rules.players} players")
    return pols


def _kernel_rules(rules: ShelfRules):
    return (rules.deck.attrs.astype(np.int64), rules.points, int(rules.columns),
            1 if rules.tiebreak == "sequences" else 0)


# ------------------------------------------------------------------ scoring
def score_tableau(tableau: Deck, rules: ShelfRules | None = None) -> TableauScore:
    """Score a tableau read by :func:`ludolab.stdlib.shelf.parse_tableau` (SHB-10, SHB-11).

    The itemised combinations and the total come from the pure-Python scorer
    (:func:`ludolab.sim.shelf_score.score_tableau_reference`), checked here against the kernel
    scorer's total; ``shelf score`` prints the pure-Python one alone (no numba loaded).
    """
    rules = rules or ShelfRules(players=2)
    sc = score_tableau_reference(tableau, rules)
    attrs = tableau.attrs.astype(np.int64)
    kinds = np.zeros((1, K.NKIND), dtype=np.int64)
    out = np.zeros(1, dtype=np.int64)
    K._score_many_kinds(np.arange(15, dtype=np.int64)[None, :], attrs, rules.points, int(rules.columns), out, kinds)
    if int(out[0]) != sc.total:  # pragma: no cover - a bug, not bad input
        raise AssertionError("kernel and reference scorers disagree")
    return sc


def score_many(tabs: np.ndarray, attrs: np.ndarray, points: np.ndarray, columns: bool = False,
               out: np.ndarray | None = None) -> np.ndarray:
    """Scores int64 (N,) of tableaus tabs (N, 15), in parallel (SHB-10, SHB-11).

    tabs: card indices into ``attrs`` (n, 4), shelf by shelf from the top, -1 for an empty
    place; int8, int16, int32 or int64 are scored as given (smaller ids read faster), uint8
    too when no place is empty, any other dtype is converted to int64.  points int64 (6,):
    the points of a run by its length; columns: score the columns too.  Full uint8 tableaus
    under a scoring of runs of 3 or more only (the published one) take the fastest path,
    which reads each pair of neighbouring places as one 16-bit word.  out: an int64 (N,)
    C-contiguous array to write the scores into (and return), so that repeated calls on
    large batches do not allocate.

    Raises:
        ValueError: tabs is not (N, 15), attrs not (n, 4), points not 6 numbers, a card id is
            outside 0..n-1 (or -1 for an empty place; uint8 ids have no empty place), or ``out``
            is not a writeable C-contiguous int64 array of N scores.
    """
    tabs = np.asarray(tabs)
    if tabs.dtype not in (np.int8, np.int16, np.int32, np.int64, np.uint8):
        tabs = tabs.astype(np.int64)
    tabs = np.ascontiguousarray(tabs)
    if tabs.ndim != 2 or tabs.shape[1] != 15:
        raise ValueError(f"tabs must be (N, 15) card ids, shelf by shelf, not of shape {tabs.shape}")
    attrs = np.ascontiguousarray(attrs, dtype=np.int64)
    points = np.asarray(points, dtype=np.int64)
    if attrs.ndim != 2 or attrs.shape[1] != 4 or attrs.shape[0] < 1:
        raise ValueError(f"attrs must be (n, 4), a row of attributes per card, not of shape {attrs.shape}")
    if points.shape != (6,):
        raise ValueError(f"points must be 6 numbers (a run of 0..5 books), not of shape {points.shape}")
    n = attrs.shape[0]
    if tabs.size:
        low, high = (0, n - 1) if tabs.dtype == np.uint8 else (-1, n - 1)
        if int(tabs.max()) > high or (low < 0 and int(tabs.min()) < low):
            raise ValueError(f"a card id in tabs is outside {low}..{high} (the deck has {n} cards"
                             + (", -1 an empty place)" if low < 0 else "; uint8 ids have no empty place)"))
    if out is None:
        out = np.zeros(tabs.shape[0], dtype=np.int64)
    elif not (isinstance(out, np.ndarray) and out.dtype == np.int64 and out.shape == (tabs.shape[0],)
              and out.flags.c_contiguous and out.flags.writeable):
        raise ValueError(f"out must be a writeable C-contiguous int64 array of shape ({tabs.shape[0]},)")
    if (tabs.dtype == np.uint8 and tabs.shape[0] > 0
            and not columns and points[1] == 0 and points[2] == 0 and n <= 256
            and sys.byteorder == "little"):
        # full tableaus of byte-sized ids under a scoring of runs of 3 or more only: read the
        # pairs of neighbouring places as 16-bit words from byte 0 and from byte 1
        flat = tabs.reshape(-1)
        even = flat[: 2 * (flat.size // 2)].view(np.uint16)
        odd = flat[1: 1 + 2 * ((flat.size - 1) // 2)].view(np.uint16)
        K._score_u8_words(even, odd, tabs.shape[0], attrs, points, out)
        return out
    K._score_many(tabs, attrs, points, int(columns), out)
    return out


# ------------------------------------------------------------------ single games
def play_game(rules: ShelfRules, policies, seed: int = 0, game: int = 0, engine: str = "kernel") -> dict:
    """One game with its full record (JSON-able): deal, every turn, tableaus, scores, win shares.

    The game is game ``game`` of the first chunk of ``seed`` (as in a run with one chunk).
    engine: ``kernel`` or ``reference`` (the same game, move for move).
    """
    pols = _seat_policies(rules, policies)
    key = int(chunk_keys(seed, 1)[0])
    return _record(rules, pols, key, game, engine)


def _record(rules, pols, key, g, engine):
    attrs, points, columns, tiebreak = _kernel_rules(rules)
    P = rules.players
    n = len(rules.deck)
    kinds = np.array([p.kind for p in pols], dtype=np.int64)
    params = np.stack([p.array() for p in pols])
    if engine == "kernel":
        deal = np.zeros(n, dtype=np.int64)
        trace = np.zeros((15 * P, 8), dtype=np.int64)
        scores = np.zeros(P, dtype=np.int64)
        kinds_out = np.zeros((P, K.NKIND), dtype=np.int64)
        shares = np.zeros(P)
        state = K._play_traced(np.uint64(key), g, np.array([P, n, columns, tiebreak], dtype=np.int64), attrs, points,
                               kinds, params, (deal, trace, scores, kinds_out, shares))
        tabs = []
        tab = np.zeros(15, dtype=np.int64)
        for s in range(P):
            K._tableau(state, s, tab)
            tabs.append(tab.tolist())
        raw = {"deal": deal.tolist(), "trace": trace.tolist(), "scores": scores.tolist(),
               "kinds": kinds_out.tolist(), "shares": shares.tolist(), "tableaus": tabs,
               "first": int(state[K.S_FIRST])}
    elif engine == "reference":
        raw = R.play(key, g, P, attrs.tolist(), points.tolist(), rules.columns, kinds.tolist(),
                     params.tolist(), tiebreak)
    else:
        raise unknown("engine", engine, ("kernel", "reference"))
    ids = rules.deck.ids

    def cid(c):
        return ids[c] if c >= 0 else None

    turns = []
    for seat, src, h0, h1, h2, placed, cell, ret in raw["trace"]:
        turns.append({"seat": seat, "source": "draw" if src == K.DRAW else f"offer {src + 1}",
                      "held": [cid(c) for c in (h0, h1, h2) if c >= 0], "placed": cid(placed),
                      "cell": [cell // K.GW, cell % K.GW], "returned": cid(ret)})
    return {"players": P, "variant": rules.variant, "deck": rules.deck.label,
            "policies": [p.label for p in pols], "deal": [ids[c] for c in raw["deal"]],
            "first": raw["first"], "turns": turns,
            "tableaus": [[ids[c] for c in t] for t in raw["tableaus"]],
            "scores": raw["scores"], "kind_points": raw["kinds"],
            "win_shares": raw["shares"]}


# ------------------------------------------------------------------ Monte Carlo
def _width(n_cfg):
    return K.MAXP * K.NSEATSTAT + K.MAXP * K.NPOSSTAT + K.HBINS * K.MAXP + n_cfg + K.NGLOBAL


@dataclass
class SimResult:
    """Monte Carlo over configurations (each a policy per seat) played on the same deals.

    ``acc`` float64 (n_cfg, W): see ``shelf_kernels._simulate``.
    """

    rules: ShelfRules
    configs: list
    games: int
    acc: np.ndarray = field(repr=False)
    provenance: dict = field(default_factory=dict)

    def _seat(self, c, s, stat):
        return float(self.acc[c, s * K.NSEATSTAT + stat])

    def seat_mean(self, c: int, s: int) -> Estimate:
        """Mean final score of seat s (points) under configuration c, with a 95% CI."""
        return mean_ci(self.games, self._seat(c, s, K.ST_SCORE), self._seat(c, s, K.ST_SQ), bounds=(0, 200))

    def seat_win(self, c: int, s: int) -> Estimate:
        """Win share of seat s (ties shared), Wilson 95% CI on the share."""
        w = self._seat(c, s, K.ST_WIN)
        e = wilson_ci(int(round(w)), self.games)
        return Estimate(w / self.games, e.low, e.high, e.se)

    def position_mean(self, c: int, p: int) -> Estimate:
        """Mean score of the player p-th in turn order (0 = the starting player, SHB-3)."""
        b = K.MAXP * K.NSEATSTAT + p * K.NPOSSTAT
        return mean_ci(self.games, float(self.acc[c, b]), float(self.acc[c, b + 1]), bounds=(0, 200))

    def position_win(self, c: int, p: int) -> Estimate:
        b = K.MAXP * K.NSEATSTAT + p * K.NPOSSTAT
        w = float(self.acc[c, b + 2])
        e = wilson_ci(int(round(w)), self.games)
        return Estimate(w / self.games, e.low, e.high, e.se)

    def table_mean(self, c: int) -> Estimate:
        """Mean score over all seats of configuration c (per game, then averaged), 95% CI."""
        b = _width(len(self.configs)) - len(self.configs) - K.NGLOBAL
        tot = sum(self._seat(c, s, K.ST_SCORE) for s in range(self.rules.players)) / self.rules.players
        return mean_ci(self.games, tot, float(self.acc[c, b + c]), bounds=(0, 200))

    def paired_diff(self, c: int, d: int) -> Estimate:
        """Mean over the same deals of (table mean score of c) - (of d), 95% CI."""
        n = len(self.configs)
        b = _width(n) - n - K.NGLOBAL
        P = self.rules.players
        sc = sum(self._seat(c, s, K.ST_SCORE) for s in range(P)) / P
        sd = sum(self._seat(d, s, K.ST_SCORE) for s in range(P)) / P
        sum_d = sc - sd
        sum_d2 = float(self.acc[c, b + c] + self.acc[d, b + d] - 2 * self.acc[c, b + d])
        return paired_diff_ci(self.games, sum_d, sum_d2, bounds=(-200, 200))

    def kind_points(self, c: int, s: int | None = None) -> dict:
        """Mean points per game from each combination kind (seat s, or all seats pooled per seat)."""
        seats = range(self.rules.players) if s is None else [s]
        out = {}
        for k, name in enumerate(KINDS):
            out[name] = sum(self._seat(c, q, K.ST_KIND0 + k) for q in seats) / (self.games * len(seats))
        return out

    def draw_share(self, c: int, s: int) -> float:
        o, d = self._seat(c, s, K.ST_OFFER), self._seat(c, s, K.ST_DRAW)
        return d / (o + d)

    def offer_vs_draw(self, c: int) -> dict:
        """Hindsight at turns where both options were open: how often the best offer card gave a
        bigger immediate gain than the two cards really on top of the pile (needs track=True)."""
        o = _width(len(self.configs)) - K.NGLOBAL
        n, ob, eq, db, go, gd = (float(x) for x in self.acc[c, o:o + K.NGLOBAL])
        if n == 0:
            raise LudolabError("this run did not track the offer against the blind draw")
        return {"turns": int(n), **wilson_ci(int(ob), int(n)).as_dict("p_offer_better"),
                **wilson_ci(int(eq), int(n)).as_dict("p_equal"), **wilson_ci(int(db), int(n)).as_dict("p_draw_better"),
                "mean_offer_gain": go / n, "mean_draw_gain": gd / n}

    def histogram(self, c: int, s: int) -> np.ndarray:
        b = K.MAXP * K.NSEATSTAT + K.MAXP * K.NPOSSTAT + s * K.HBINS
        return self.acc[c, b:b + K.HBINS].copy()


def simulate(rules: ShelfRules, configs, games: int, seed: int = 0, chunks: int = DEFAULT_CHUNKS,
             progress: bool | None = False, track: bool = False) -> SimResult:
    """Play ``games`` deals under every configuration (common random numbers, SHB-3..SHB-12).

    Args:
        configs: a list; each entry a policy for every seat (a name, a Policy,
            or a list of one per seat).
        games: 1..10**12; seed >= 0; chunks 1..4096.
        track: also measure, with hindsight, the offer against the blind draw (slower).

    Raises:
        LudolabError: bad counts, unknown policies.
    """
    from .runner import RunSpec, run

    if isinstance(configs, (str, Policy)):
        configs = [configs]
    cfgs = [_seat_policies(rules, c) for c in configs]
    if not 1 <= len(cfgs) <= 16:
        raise PolicyError(f"compare 1..16 configurations at once, not {len(cfgs)}")
    attrs, points, columns, tiebreak = _kernel_rules(rules)
    kinds = np.array([[p.kind for p in c] for c in cfgs], dtype=np.int64)
    params = np.array([[p.array() for p in c] for c in cfgs], dtype=np.float64)
    spec = RunSpec(game="shelf", kernel="ludolab.sim.shelf_kernels:_simulate",
                   args=(np.array([rules.players, len(rules.deck), columns, tiebreak], dtype=np.int64), attrs, points,
                         kinds, params, bool(track)),
                   acc_shape=(len(cfgs), _width(len(cfgs))), acc_dtype="float64", games=games, seed=seed,
                   chunks=chunks, label="deals", metric="ludolab.sim.metrics:mean", metric_args=((0, K.ST_SCORE), (0, K.ST_SQ)))
    acc = run(spec, progress=progress).sum(axis=0)
    return SimResult(rules, cfgs, spec.plan().n_games, acc, {**spec.provenance(), "rules": rules.to_dict(),
                                                     "configs": [[p.label for p in c] for c in cfgs]})


# ------------------------------------------------------------------ conformance
_CONF_POLICIES = ("random", "greedy", "potential")


def _conf_rules(g: int) -> ShelfRules:
    return ShelfRules(players=2 + g % 4, variant=("standard", "columns", "pairs", "flat")[g % 4 if g % 7 else 1])


def _conf_play(seed: int, games: int, engine: str) -> list:
    key = int(chunk_keys(seed, 1)[0])
    out = []
    for g in range(games):
        rules = _conf_rules(g)
        pols = [make_policy(_CONF_POLICIES[(s + g) % 3]) for s in range(rules.players)]
        out.append(_record(rules, pols, key, g, engine))
    return out


def _dealt_state(rules: np.ndarray, deal: list) -> np.ndarray:
    """The step state of a game set up from a deck order (card indices, top of the pile last)."""
    attrs, _, _ = R._rules_deck(rules)
    state = np.zeros(K.STATE_SIZE, dtype=np.int64)
    R._write(R.Game.dealt(int(rules[K.R_NP]), attrs, deal), state)
    state[K.S_KNOWN0:K.S_KNOWN0 + K.MAXP] = -1
    return state


def _legal_actions(rules: np.ndarray, state: np.ndarray) -> list[int]:
    out = np.zeros(K.MAX_ACTIONS, dtype=np.int64)
    return out[:K.legal_actions(rules, state, out)].tolist()


def check_record(rec: dict, deck: Deck | None = None) -> None:
    """Invariants of one game record (SHB-2..SHB-12), replayed through the step interface;
    raises AssertionError naming the broken one.

    Every source and placement must be a legal action of the replayed state, the held
    cards and tableaus must be the replay's, cards are conserved
    (:func:`check_step_state`), the scores are the pure-Python scorer's and the win
    shares follow SHB-12.

    deck: the deck the game was played with (default the assumed deck)."""
    from ludolab.stdlib.shelf import assumed_deck

    deck = deck or assumed_deck()
    P = rec["players"]
    assert 2 <= P <= 5, "players out of range"
    assert sorted(rec["deal"]) == sorted(deck.ids), "the deal is not the deck"
    assert len(rec["turns"]) == 15 * P, "not 15 placements per player"
    ra = step_rules(ShelfRules(players=P, variant=rec["variant"], deck=deck))
    state = _dealt_state(ra, [deck.index(c) for c in rec["deal"]])
    assert rec["first"] == state[K.S_FIRST], "the starting player is not the lowest hand card (SHB-3)"
    for t, turn in enumerate(rec["turns"]):
        assert turn["seat"] == K.current_player(state), f"turn {t}: seat {turn['seat']} moved out of turn (SHB-4)"
        src = K.A_DRAW if turn["source"] == "draw" else int(turn["source"].split()[1]) - 1
        assert src in _legal_actions(ra, state), (
            f"turn {t}: {turn['source']} is not open with {state[K.S_OFFER]} offer cards and a pile of "
            f"{state[K.S_PILE]} (SHB-5..SHB-7)")
        K.apply_action(ra, state, src)
        held = [deck.ids[c] for c in state[K.HELD0:K.HELD0 + state[K.S_NHELD]]]
        assert turn["held"] == held, f"turn {t}: held cards differ from the replay"
        assert turn["placed"] in held, f"turn {t}: placed a card not held"
        p = held.index(turn["placed"])
        if len(held) == 3:
            assert turn["returned"] in held and turn["returned"] != turn["placed"], f"turn {t}: put back a card not held"
            r = held.index(turn["returned"])
        else:
            assert turn["returned"] is None, f"turn {t}: put a card back without drawing two"
            r = p
        row, col = turn["cell"]
        assert 0 <= row < K.GH and 0 <= col < K.GW, f"turn {t}: no cell {turn['cell']}"
        a = K.A_PLACE0 + (3 * p + r) * K.NCELL + row * K.GW + col
        assert a in _legal_actions(ra, state), (
            f"turn {t}: {turn['placed']} cannot go on row {row} col {col}: taken, not next to a placed card, "
            f"or beyond 5 x 3 (SHB-8)")
        K.apply_action(ra, state, a)
    assert K.is_terminal(state), "the game is not over after 15 placements per player (SHB-9)"
    check_step_state(ra, state)
    tab = np.zeros(15, dtype=np.int64)
    for s in range(P):
        K._tableau(state, s, tab)
        assert [deck.ids[c] for c in tab] == rec["tableaus"][s], "the tableau differs from the replay"
    scores = np.zeros(P)
    R.returns(ra, state, scores)
    assert scores.tolist() == rec["scores"], "a score differs from the rules"
    best = max(rec["scores"])
    assert abs(sum(rec["win_shares"]) - 1.0) < 1e-9, "win shares do not add up to 1"
    for s in range(P):
        if rec["scores"][s] < best:
            assert rec["win_shares"][s] == 0, "a lower score won a share (SHB-12)"


def playthrough(seed: int) -> str:
    """One short seeded 2-player game (greedy against potential), move by move."""
    rules = ShelfRules(players=2)
    rec = play_game(rules, ["greedy", "potential"], seed=seed, game=0)
    deck = rules.deck
    lines = [f"Shelve the Book, 2 players (seat 0 greedy, seat 1 potential), seed {seed}, deck {deck.label}",
             f"hands: {rec['deal'][-1]} / {rec['deal'][-2]}; offer: {', '.join(reversed(rec['deal'][-5:-2]))}",
             f"seat {rec['first']} starts (lowest number)"]
    for t, turn in enumerate(rec["turns"], start=1):
        ret = f", put back {turn['returned']}" if turn["returned"] else ""
        lines.append(f"{t:2d}. seat {turn['seat']}: {turn['source']}, holds {' '.join(turn['held'])}, "
                     f"places {turn['placed']} at row {turn['cell'][0]} col {turn['cell'][1]}{ret}")
    for s in range(2):
        t = rec["tableaus"][s]
        lines.append(f"seat {s} tableau:")
        for r in range(3):
            lines.append("  " + " ".join(f"{c:>9}" for c in t[5 * r:5 * r + 5]))
        sc = score_tableau_ids(t, rules)
        for c in sc.combinations:
            lines.append(f"    {c['line']} {c['kind']} positions {c['positions']}: {c['points']}")
        lines.append(f"  score {sc.total}")
    lines.append(f"win shares: {rec['win_shares']}")
    return "\n".join(lines) + "\n"


def score_tableau_ids(ids: list, rules: ShelfRules) -> TableauScore:
    """Score 15 deck ids (top shelf first) of the rules' deck."""
    from ludolab.stdlib.shelf import parse_tableau

    return score_tableau(parse_tableau({"shelves": [ids[0:5], ids[5:10], ids[10:15]]}, rules.deck), rules)


def conformance():
    """The hooks of the shared conformance harness (see :mod:`ludolab.sim.conformance`)."""
    from .conformance import Conformance

    return Conformance(play=_conf_play, check=check_record, playthrough=playthrough)


# ------------------------------------------------------------------ the step interface
def step_rules(rules: ShelfRules) -> np.ndarray:
    """The rules array of the step interface (layout ``R_*`` in :mod:`ludolab.sim.shelf_kernels`):
    int64 (R_ATTRS + 4 * n + aux_len(n),) for a deck of n cards: players, deck size, columns,
    tiebreak (1 = sequences), the points of a run by its length 0..5 (SHB-11), the deck's attrs
    row by row (SHB-1), then the scoring lookup tables built once from those (``_make_aux``),
    which ``returns`` reads in place."""
    attrs, points, columns, tiebreak = _kernel_rules(rules)
    out = np.zeros(K.R_ATTRS + attrs.size, dtype=np.int64)
    out[K.R_NP] = rules.players
    out[K.R_NDECK] = len(rules.deck)
    out[K.R_COLUMNS] = columns
    out[K.R_TIEBREAK] = tiebreak
    out[K.R_POINTS:K.R_POINTS + 6] = points
    out[K.R_ATTRS:] = attrs.ravel()
    return K.rules_with_aux(out)


def step_policies(rules: np.ndarray) -> dict:
    """Every named policy of :data:`POLICIES` with its default parameters, for the step interface
    under the rules array ``rules`` (from :func:`step_rules`): name -> ``(kind, params)``, params
    float64 carrying the scoring lookup tables of that deck (``shelf_kernels.policy_params``), so
    ``act`` reads them in place; the same actions and draws as the bare (NPARAM,) parameters.
    This is ``step_game().extra["policies_for"]``.

    Raises:
        ValueError: a rules array shorter than its own deck (not from :func:`step_rules`)."""
    rules = np.asarray(rules)
    if rules.ndim != 1 or rules.shape[0] < K.R_ATTRS or rules.shape[0] < K.R_ATTRS + 4 * int(rules[K.R_NDECK]):
        raise ValueError("a Shelve the Book rules array (shelf.step_rules) is needed")
    return {name: (kind, K.policy_params(make_policy(name).array(), rules))
            for name, (kind, _, _) in POLICIES.items()}


def _from_step_rules(rules: np.ndarray):
    """(players, deck size, attrs int64 (n, 4), points, columns, tiebreak) of a rules array."""
    n = int(rules[K.R_NDECK])
    attrs = np.ascontiguousarray(rules[K.R_ATTRS:K.R_ATTRS + 4 * n].reshape(n, 4), dtype=np.int64)
    return (int(rules[K.R_NP]), n, attrs, np.ascontiguousarray(rules[K.R_POINTS:K.R_POINTS + 6]),
            int(rules[K.R_COLUMNS]), int(rules[K.R_TIEBREAK]))


def _policy_arrays(policies):
    kinds = np.array([int(k) for k, _ in policies], dtype=np.int64)
    params = np.zeros((len(policies), K.NPARAM))
    for s, (_, p) in enumerate(policies):
        p = np.asarray(p, dtype=np.float64)[:K.NPARAM]  # the whole-game kernels take no lookup tables
        params[s, :len(p)] = p
    return kinds, params


def trace_actions(trace: np.ndarray) -> list[int]:
    """The step-interface actions of a whole-game trace (rows seat, src, held0..2, placed,
    cell, returned; see ``shelf_kernels._play``): per turn the source, then the placement."""
    out = []
    for _, src, h0, h1, h2, placed, cell, ret in np.asarray(trace).tolist():
        held = [h0, h1, h2]
        p = held.index(placed)
        r = held.index(ret) if ret >= 0 else p
        out += [int(src), K.A_PLACE0 + (3 * p + r) * K.NCELL + int(cell)]
    return out


def _step_fast_games(rules, policies, keys) -> list:
    P, n, attrs, points, columns, _ = _from_step_rules(rules)
    kinds, params = _policy_arrays(policies)
    tab = (attrs, points, columns, K._make_aux(attrs, points))
    games = []
    for key in np.asarray(keys, dtype=np.uint64):
        state = np.zeros(K.STATE_LEN, dtype=np.int16)
        obs = np.zeros(K.STATE_LEN, dtype=np.int16)
        trace = np.zeros((15 * P, 8), dtype=np.int64)
        K._play(state, obs, P, n, tab, kinds, params, np.uint64(key),
                (trace, True, np.zeros((K.MAXP, 2), dtype=np.int64), False, np.zeros(K.NGLOBAL)))
        games.append(trace_actions(trace))
    return games


def _step_simulate(rules, policies, keys, games_per_chunk) -> np.ndarray:
    """The whole-game ``_simulate`` on chunk keys (one configuration), summed over chunks, with
    one column appended: the games counted by seat 0's score histogram."""
    _, _, attrs, points, _, _ = _from_step_rules(rules)
    kinds, params = _policy_arrays(policies)
    keys = np.ascontiguousarray(keys, dtype=np.uint64)
    w = _width(1)
    out = np.zeros((len(keys), 1, w))
    K._simulate(keys, np.zeros(len(keys), dtype=np.int64), np.full(len(keys), games_per_chunk, dtype=np.int64),
                np.ascontiguousarray(rules, dtype=np.int64), attrs, points, kinds[None, :], params[None, :, :], False, out)
    acc = out.sum(axis=0)[0]
    o_hist = K.MAXP * K.NSEATSTAT + K.MAXP * K.NPOSSTAT
    return np.append(acc, acc[o_hist:o_hist + K.HBINS].sum())


class _FinalScores:
    """Scores, per-kind points and win shares of final states by the pure-Python rules
    (SHB-10..SHB-12), remembered per state so the accumulator's many columns score a game once."""

    def __init__(self):
        self.memo = {}

    def __call__(self, rules, state):
        head = rules[:K.R_ATTRS + 4 * int(rules[K.R_NDECK])]  # the lookup tables after it follow from it
        key = (head.tobytes(), np.asarray(state).tobytes())
        if key not in self.memo:
            attrs, points, columns = R._rules_deck(rules)
            g = R._read(rules, state)
            tabs = [g.tableau(s) for s in range(g.n)]
            scores = [R.score(t, attrs, points, columns) for t in tabs]
            kinds = [R.score_kinds(t, attrs, points, columns) for t in tabs]
            self.memo[key] = (scores, kinds, R.win_shares(scores, kinds, int(rules[K.R_TIEBREAK])), g.first)
        return self.memo[key]


def _step_accumulator(case):
    """The columns of ``_simulate``'s accumulator (one configuration) as step-interface data."""
    from .step import Column

    P = case.n_players
    fs = _FinalScores()
    tied = "tiebreak" if case.rules[K.R_TIEBREAK] else "split"
    cols = [Column((_width(1),), "games", name="games (seat 0's score histogram)")]
    for s in range(P):
        b = s * K.NSEATSTAT
        cols += [Column((b + K.ST_SCORE,), "points", s, name=f"seat {s} score"),
                 Column((b + K.ST_SQ,), "points_sq", s, name=f"seat {s} score squared"),
                 Column((b + K.ST_WIN,), "wins", s, ties=tied, name=f"seat {s} win share")]
        for k, kind in enumerate(KINDS):
            cols.append(Column((b + K.ST_KIND0 + k,), "final", s, name=f"seat {s} {kind} points",
                               final=lambda r, st, s=s, k=k: fs(r, st)[1][s][k]))
        cols += [Column((b + K.ST_OFFER,), "event", s, name=f"seat {s} offer turns",
                        event=lambda r, b_, q, a, af, s=s: float(q == s and b_[K.S_NHELD] == 0 and a != K.A_DRAW)),
                 Column((b + K.ST_DRAW,), "event", s, name=f"seat {s} draw turns",
                        event=lambda r, b_, q, a, af, s=s: float(q == s and b_[K.S_NHELD] == 0 and a == K.A_DRAW))]
        o_hist = K.MAXP * K.NSEATSTAT + K.MAXP * K.NPOSSTAT + s * K.HBINS
        for h in range(K.HBINS):
            cols.append(Column((o_hist + h,), "final", s, name=f"seat {s} games scoring {h}",
                               final=lambda r, st, s=s, h=h: float(min(fs(r, st)[0][s], K.HBINS - 1) == h)))
    for p in range(P):
        b = K.MAXP * K.NSEATSTAT + p * K.NPOSSTAT

        def seat_at(r, st, p=p):
            return (fs(r, st)[3] + p) % P
        cols += [Column((b,), "final", name=f"turn position {p} score",
                        final=lambda r, st, f=seat_at: float(fs(r, st)[0][f(r, st)])),
                 Column((b + 1,), "final", name=f"turn position {p} score squared",
                        final=lambda r, st, f=seat_at: float(fs(r, st)[0][f(r, st)]) ** 2),
                 Column((b + 2,), "final", name=f"turn position {p} win share",
                        final=lambda r, st, f=seat_at: fs(r, st)[2][f(r, st)])]
    o_cross = K.MAXP * K.NSEATSTAT + K.MAXP * K.NPOSSTAT + K.HBINS * K.MAXP
    cols.append(Column((o_cross,), "final", name="table mean score squared",
                       final=lambda r, st: (sum(fs(r, st)[0]) / P) ** 2))
    return cols


def _step_winner(rules, state):
    """The seats sharing the win after the sequences tie-break (SHB-12)."""
    shares = _FinalScores()(rules, state)[2]
    return [s for s, x in enumerate(shares) if x > 0]


def _step_max_steps(rules) -> int:
    return 2 * 15 * int(rules[K.R_NP])  # two actions a turn, 15 turns a player (SHB-9)


def _step_return_bounds(rules):
    """(0, the most a tableau can score): per line and kind the best split of the line into runs."""
    points = [int(x) for x in rules[K.R_POINTS:K.R_POINTS + 6]]

    def best(n):
        return max([points[min(n, 5)]] + [best(a) + best(n - a) for a in range(1, n)]) if n else 0
    hi = 3 * K.NKIND * best(5) + (5 * K.NKIND * best(3) if rules[K.R_COLUMNS] else 0)
    return 0.0, float(hi)


def check_step_state(rules: np.ndarray, state: np.ndarray) -> None:
    """Invariants of a step-interface state (SHB-2..SHB-9).

    Args:
        rules: from :func:`step_rules`; state: int64 (STATE_SIZE,).

    Raises:
        AssertionError: naming the broken invariant (cards conserved, counts in range,
            places beyond the counts empty, tableaus connected and within 5 x 3)."""
    st = np.asarray(state)
    P, n = int(rules[K.R_NP]), int(rules[K.R_NDECK])
    assert st[K.S_NP] == P and st[K.S_NDECK] == n, "players or deck size differ from the rules"
    p, no, nh, turn, seat = (int(st[x]) for x in (K.S_PILE, K.S_OFFER, K.S_NHELD, K.S_TURN, K.S_SEAT))
    assert 0 <= p <= n, f"pile size {p} out of range"
    assert 0 <= no <= P + 1, f"offer size {no} out of range"
    assert no == P + 1 or p == 0, "the offer shrank while the pile still holds cards (SHB-7)"
    assert nh in (0, 2, 3), f"{nh} cards held"
    assert 0 <= turn <= 15 * P and 0 <= seat < P, f"turn {turn} or seat {seat} out of range"
    assert seat == (int(st[K.S_FIRST]) + turn) % P, "seat out of turn order (SHB-4)"
    assert -1 <= st[K.S_RET] < P, "the seat that put a card back is out of range"
    assert (st[K.PILE0 + p:K.PILE0 + K.MAXD] == -1).all(), "cards beyond the pile's size"
    assert (st[K.OFFER0 + no:K.OFFER0 + K.OFFER_MAX] == -1).all(), "cards beyond the offer's size"
    assert (st[K.HELD0 + nh:K.HELD0 + 3] == -1).all(), "cards beyond the held count"
    assert (st[K.HAND0 + P:K.HAND0 + K.MAXP] == -1).all(), "a hand card for a seat not at the table"
    cards = list(st[K.PILE0:K.PILE0 + p]) + list(st[K.OFFER0:K.OFFER0 + no]) + list(st[K.HELD0:K.HELD0 + nh])
    for s in range(P):
        h = int(st[K.HAND0 + s])
        assert (h < 0) == (s == seat and nh > 0), f"seat {s} holds {'no' if h < 0 else 'a'} hand card"
        if h >= 0:
            cards.append(h)
        grid = st[K.GRID0 + s * K.NCELL:K.GRID0 + (s + 1) * K.NCELL]
        placed = [c for c in range(K.NCELL) if grid[c] >= 0]
        cards += [int(grid[c]) for c in placed]
        assert len(placed) == st[K.NPL0 + s], f"seat {s}: placed count differs from its tableau"
        assert len(placed) == sum(1 for t in range(turn) if (int(st[K.S_FIRST]) + t) % P == s), \
            f"seat {s} placed {len(placed)} cards in {turn} turns (one card a turn, SHB-4)"
        if placed:
            rs, cs = [c // K.GW for c in placed], [c % K.GW for c in placed]
            assert max(rs) - min(rs) <= 2 and max(cs) - min(cs) <= 4, f"seat {s}: tableau beyond 5 x 3 (SHB-8)"
            assert list(st[K.BB0 + 4 * s:K.BB0 + 4 * s + 4]) == [min(rs), max(rs), min(cs), max(cs)], \
                f"seat {s}: bounding box differs from its tableau"
            todo, seen = [placed[0]], {placed[0]}
            while todo:
                c = todo.pop()
                for d in (c - 1, c + 1, c - K.GW, c + K.GW):
                    if d in placed and d not in seen and (abs(d - c) == K.GW or d // K.GW == c // K.GW):
                        seen.add(d)
                        todo.append(d)
            assert len(seen) == len(placed), f"seat {s}: tableau not connected (SHB-8)"
    assert sorted(int(c) for c in cards) == list(range(n)), "cards not conserved (each card exactly once)"
    for s in range(K.MAXP):
        k = int(st[K.S_KNOWN0 + s])
        if s >= P:
            assert k == -1, f"a known hand card for seat {s}, not at the table"
        elif k >= 0:
            hand = st[K.HELD0] if s == seat and nh > 0 else st[K.HAND0 + s]
            assert hand == k, f"seat {s}'s hand card known to all is {k}, but the seat holds {hand}"


def step_variants(players: int) -> list:
    """Every named scoring variant of Shelve the Book (SHB-11) and the ``sequences`` tie-break (SHB-12) at
    ``players`` seats, as rulesets of the step game (:class:`ludolab.sim.step.RulesCase`, the potential
    policy in every seat), each otherwise the standard rules.

    Raises:
        RulesError: a player count the rules do not allow (SHB-2)."""
    from ludolab.stdlib.shelf import VARIANTS

    from .step import RulesCase

    rulesets = [(f"{v} scoring", ShelfRules(players=players, variant=v)) for v in VARIANTS]
    rulesets.append(("sequences tie-break", ShelfRules(players=players, tiebreak="sequences")))
    out = []
    for label, r in rulesets:
        ra = step_rules(r)
        named = step_policies(ra)  # each variant's own lookup tables (its points differ)
        out.append(RulesCase(label, ra, players, (named["potential"],) * players, named=named))
    return out


def step_game():
    """What the step-interface harness needs of Shelve the Book (:class:`ludolab.sim.step.StepGame`):
    the kernels and their twin, the rulesets (2..5 players, the columns variant with the sequences
    tie-break, a small deck whose pile runs out), every named policy of :data:`POLICIES` with its
    default parameters, and the fast simulate kernel's accumulator described column by column."""
    from ludolab.stdlib.shelf import generate_deck

    from .step import RulesCase, StepGame

    # the named policies carry the lookup tables of their case's deck (of the standard deck in
    # ``policies``, which serve any deck: act builds the tables where the deck differs)
    tables = {}

    def policies_for(rules):
        key = rules[K.R_POINTS:K.R_ATTRS + 4 * int(rules[K.R_NDECK])].tobytes()  # the tables' inputs
        if key not in tables:
            tables[key] = step_policies(rules)
        return tables[key]
    named = policies_for(step_rules(ShelfRules(players=2)))
    mixes = {2: ("greedy", "rollout"), 3: ("random", "greedy", "potential"),
             4: ("greedy", "potential", "random", "greedy"),
             5: ("potential", "random", "greedy", "potential", "random")}

    def case(label, rules, names):
        r = step_rules(rules)
        mine = policies_for(r)
        return RulesCase(label, r, rules.players, tuple(mine[x] for x in names), named=mine)
    cases = [case(f"{P}p-standard", ShelfRules(players=P), mixes[P]) for P in (2, 3, 4, 5)]
    cases.append(case("3p-columns-sequences", ShelfRules(players=3, variant="columns", tiebreak="sequences"),
                      ("potential", "greedy", "random")))
    cases.append(case("2p-pairs-32cards-sequences",
                      ShelfRules(players=2, variant="pairs", tiebreak="sequences", deck=generate_deck(size=32, seed=5)),
                      ("random", "greedy")))
    return StepGame(kernels=K, twin=R, cases=cases, policies=named, max_steps=_step_max_steps,
                    return_bounds=_step_return_bounds, check_state=check_step_state, simulate=_step_simulate,
                    accumulator=_step_accumulator, fast_games=_step_fast_games, lower_wins=False,
                    winner=_step_winner, extra={"slow_policies": ("rollout",), "best": "potential",
                                                "random": "random", "moments": lambda r: 16,
                                                "policies_for": policies_for, "variants": step_variants,
                                                "enumerate_worlds": enumerate_worlds})
