"""Shelve the Book: the validated face of the kernels (policies, scoring, Monte Carlo, conformance).

Clause ids (``SHB-n``) refer to ``seeds/shelve_the_book.md``.  Heavy work runs
in :mod:`ludolab.sim.shelf_kernels`; :mod:`ludolab.sim.shelf_reference` is the
pure-Python twin the tests hold it against.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ludolab.stdlib.errors import LudolabError, unknown
from ludolab.stdlib.shelf import KINDS, Deck, ShelfRules

from . import shelf_kernels as K
from . import shelf_reference as R
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
@dataclass(frozen=True)
class TableauScore:
    """The score of one tableau: ``total`` and every combination (line, kind, positions, points)."""

    total: int
    combinations: list

    def by_kind(self) -> dict:
        out = {k: 0 for k in KINDS}
        for c in self.combinations:
            out[c["kind"]] += c["points"]
        return out


def score_tableau(tableau: Deck, rules: ShelfRules | None = None) -> TableauScore:
    """Score a tableau read by :func:`ludolab.stdlib.shelf.parse_tableau` (SHB-10, SHB-11).

    The total comes from the kernel scorer and the itemised combinations from
    the pure-Python reference; they must agree (checked here).
    """
    rules = rules or ShelfRules(players=2)
    points = rules.points
    attrs = tableau.attrs.astype(np.int64)
    combos = R.combinations(list(range(15)), attrs.tolist(), points.tolist(), rules.columns)
    kinds = np.zeros((1, K.NKIND), dtype=np.int64)
    out = np.zeros(1, dtype=np.int64)
    K._score_many_kinds(np.arange(15, dtype=np.int64)[None, :], attrs, points, int(rules.columns), out, kinds)
    total = int(out[0])
    if total != sum(c["points"] for c in combos):  # pragma: no cover - a bug, not bad input
        raise AssertionError("kernel and reference scorers disagree")
    return TableauScore(total, combos)


def score_many(tabs: np.ndarray, attrs: np.ndarray, points: np.ndarray, columns: bool = False) -> np.ndarray:
    """Scores int64 (N,) of tableaus tabs (N, 15), in parallel (SHB-10, SHB-11).

    tabs: card indices into ``attrs`` (n, 4), shelf by shelf from the top, -1 for an empty
    place; int8, int16, int32 or int64 are scored as given (smaller ids read faster), uint8
    too when no place is empty, any other dtype is converted to int64.  points int64 (6,):
    the points of a run by its length; columns: score the columns too.
    """
    tabs = np.asarray(tabs)
    if tabs.dtype not in (np.int8, np.int16, np.int32, np.int64, np.uint8):
        tabs = tabs.astype(np.int64)
    tabs = np.ascontiguousarray(tabs)
    out = np.zeros(tabs.shape[0], dtype=np.int64)
    K._score_many(tabs, np.ascontiguousarray(attrs, dtype=np.int64), np.asarray(points, dtype=np.int64),
                  int(columns), out)
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
        state = K._play_traced(np.uint64(key), g, P, n, attrs, points, columns, kinds, params, tiebreak,
                               deal, trace, scores, kinds_out, shares)
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
                   args=(rules.players, len(rules.deck), attrs, points, columns, tiebreak, kinds, params, bool(track)),
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


def check_record(rec: dict, deck: Deck | None = None) -> None:
    """Invariants of one game record (SHB-2..SHB-12); raises AssertionError naming the broken one.

    deck: the deck the game was played with (default the assumed deck)."""
    from ludolab.stdlib.shelf import VARIANTS, assumed_deck

    deck = deck or assumed_deck()
    P = rec["players"]
    assert 2 <= P <= 5, "players out of range"
    assert sorted(rec["deal"]) == sorted(deck.ids), "the deal is not the deck"
    assert len(rec["turns"]) == 15 * P, "not 15 placements per player"
    # replay the record through the reference rules
    num = {c: deck.numbers[deck.index(c)] for c in deck.ids}
    pile = list(rec["deal"])
    hands = [pile.pop() for _ in range(P)]
    offer = [pile.pop() for _ in range(P + 1)]
    first = min(range(P), key=lambda s: num[hands[s]])
    assert rec["first"] == first, "the starting player is not the lowest hand card (SHB-3)"
    grids = [dict() for _ in range(P)]
    seat = first
    for t, turn in enumerate(rec["turns"]):
        assert turn["seat"] == seat, f"turn {t}: seat {turn['seat']} moved out of turn (SHB-4)"
        if turn["source"] == "draw":
            assert len(pile) >= 2, f"turn {t}: drew two from a pile of {len(pile)} (SHB-7)"
            held = [hands[seat], pile.pop(), pile.pop()]
        else:
            j = int(turn["source"].split()[1]) - 1
            assert 0 <= j < len(offer), f"turn {t}: no offer card {j + 1}"
            held = [hands[seat], offer[j]]
            if pile:
                offer[j] = pile.pop()
            else:
                del offer[j]
        assert turn["held"] == held, f"turn {t}: held cards differ from the replay"
        assert turn["placed"] in held, f"turn {t}: placed a card not held"
        g = grids[seat]
        cell = tuple(turn["cell"])
        assert cell not in g, f"turn {t}: cell taken"
        if g:
            assert any(n in g for n in ((cell[0] - 1, cell[1]), (cell[0] + 1, cell[1]),
                                        (cell[0], cell[1] - 1), (cell[0], cell[1] + 1))), \
                f"turn {t}: card not next to a placed card (SHB-8)"
        g[cell] = turn["placed"]
        rs = [r for r, _ in g]
        cs = [c for _, c in g]
        assert max(rs) - min(rs) <= 2 and max(cs) - min(cs) <= 4, f"turn {t}: tableau beyond 5 x 3 (SHB-8)"
        rest = [c for c in held if c != turn["placed"]]
        if len(held) == 3:
            assert turn["returned"] in rest, f"turn {t}: put back a card not held"
            pile.append(turn["returned"])
            rest.remove(turn["returned"])
        else:
            assert turn["returned"] is None
        hands[seat] = rest[0]
        seat = (seat + 1) % P
    seen = set(pile) | set(offer) | set(hands)
    for s in range(P):
        g = grids[s]
        assert len(g) == 15, "a tableau does not hold 15 cards"
        rs = [r for r, _ in g]
        cs = [c for _, c in g]
        assert max(rs) - min(rs) == 2 and max(cs) - min(cs) == 4, "a tableau is not 5 x 3 (SHB-8)"
        r0, c0 = min(rs), min(cs)
        tab = [g[(r0 + r, c0 + c)] for r in range(3) for c in range(5)]
        assert tab == rec["tableaus"][s], "the tableau differs from the replay"
        seen |= set(tab)
    assert len(seen) == len(deck) and len(pile) + len(offer) + P + 15 * P == len(deck), "cards not conserved"
    points, columns = VARIANTS[rec["variant"]]
    attrs = deck.attrs.tolist()
    for s in range(P):
        idx = [deck.index(c) for c in rec["tableaus"][s]]
        assert R.score(idx, attrs, list(points), columns) == rec["scores"][s], "a score differs from the rules"
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
