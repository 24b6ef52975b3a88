"""Pure-Python reference of the Shelve the Book kernels (slow, readable, same random numbers).

Clause ids (``SHB-n``) refer to ``seeds/shelve_the_book.md``.  Every function
here is the twin of a kernel in :mod:`ludolab.sim.shelf_kernels`: the same
deal, the same legal places in the same order, the same policy decisions, the
same draws from the game's stream, so a game played here and in the kernel is
the same game move for move.  It is the baseline of ``ludolab bench``.
"""

from __future__ import annotations

from .rng import py_game_state, py_next_below, py_shuffle
from .shelf_score import KINDS, combinations, continues, line_runs, score, score_kinds  # noqa: F401  (scoring)
GW, GH = 9, 5
CENTRE = (2, 4)
P_RANDOM, P_GREEDY, P_POTENTIAL = 0, 1, 2
DRAW = 6


# ------------------------------------------------------------------ the game state
class Game:
    """A game in plain Python objects (the state array of the kernels, spelled out)."""

    def __init__(self, n_players: int, n_deck: int, attrs, state: int):
        deck = list(range(n_deck))
        st = py_shuffle(deck, state)  # SHB-3
        self._deal(n_players, attrs, deck)
        self.st = st

    @classmethod
    def dealt(cls, n_players: int, attrs, deck: list) -> "Game":
        """The game set up from a given deck order (card indices, top of the pile last; SHB-3),
        as a record gives it; no stream (``st`` is None)."""
        g = cls.__new__(cls)
        g._deal(n_players, attrs, list(deck))
        g.st = None
        return g

    def _deal(self, n_players: int, attrs, deck: list) -> None:
        self.n = n_players
        self.attrs = attrs
        self.deal = list(deck)
        self.pile = list(deck)  # top = last
        self.hand = [self.pile.pop() for _ in range(n_players)]
        self.offer = [self.pile.pop() for _ in range(n_players + 1)]
        self.grid = [dict() for _ in range(n_players)]  # (r, c) -> card
        self.ret = None  # seat that knows the top card (SHB-6)
        self.first = min(range(n_players), key=lambda s: (attrs[self.hand[s]][2], s))
        self.seat = self.first
        self.held: list = []
        self.turn = 0

    # SHB-8
    def bbox(self, seat):
        g = self.grid[seat]
        rs = [r for r, _ in g]
        cs = [c for _, c in g]
        return min(rs), max(rs), min(cs), max(cs)

    def legal_cells(self, seat) -> list[tuple[int, int]]:
        """Legal places for the next card, in the kernel's order (row, then column)."""
        g = self.grid[seat]
        if not g:
            return [CENTRE]
        r0, r1, c0, c1 = self.bbox(seat)
        out = []
        for r in range(GH):
            for c in range(GW):
                if (r, c) in g:
                    continue
                if not any(n in g for n in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))):
                    continue
                if max(r1, r) - min(r0, r) > 2 or max(c1, c) - min(c0, c) > 4:
                    continue
                out.append((r, c))
        return out

    def tableau(self, seat) -> list:
        r0, _, c0, _ = self.bbox(seat)
        return [self.grid[seat][(r0 + r, c0 + c)] for r in range(3) for c in range(5)]

    # SHB-5..SHB-7
    def sources(self) -> list[int]:
        return list(range(len(self.offer))) + ([DRAW] if len(self.pile) >= 2 else [])

    def take(self, src):
        seat = self.seat
        if src == DRAW:
            self.held = [self.hand[seat], self.pile.pop(), self.pile.pop()]
            self.ret = None
        else:
            self.held = [self.hand[seat], self.offer[src]]
            if self.pile:
                self.offer[src] = self.pile.pop()
                self.ret = None
            else:
                del self.offer[src]
        self.hand[seat] = None
        self.src = src

    def finish(self, place_i, cell, ret_i):
        seat = self.seat
        assert cell in self.legal_cells(seat), f"illegal place {cell}"
        self.grid[seat][cell] = self.held[place_i]
        if len(self.held) == 3:
            self.pile.append(self.held[ret_i])
            self.ret = seat
            keep = 3 - place_i - ret_i
        else:
            keep = 1 - place_i
        self.hand[seat] = self.held[keep]
        self.held = []
        self.turn += 1
        self.seat = (seat + 1) % self.n

    def observe(self, seat) -> dict:
        """What seat knows (SHB-14): no pile order, except a top card it put back."""
        return {"seat": seat, "hand": self.hand[seat], "held": list(self.held) if self.seat == seat else [],
                "offer": list(self.offer), "pile_size": len(self.pile),
                "pile_top": self.pile[-1] if self.pile and self.ret == seat else None,
                "n_deck": len(self.deal),
                "grids": [dict(g) for g in self.grid]}


# ------------------------------------------------------------------ evaluation (policy twins)
# A placement changes only the line through the placed card, and there only the
# block of adjacent cards it joins: gain = E(new block) - E(left block) - E(right
# block).  E = points, plus (potential) params[L - 2] per run of L = 2..4 books
# with an open end (the place beyond that end of the block is empty and inside
# the feasible frame, SHB-8).
def block_eval(block: list, attrs, points, params, use_pot, open_lo: bool, open_hi: bool) -> float:
    total, pot = 0, 0.0
    n = len(block)
    for k in range(len(KINDS)):
        run, start = 1, 0
        for j in range(1, n + 1):
            if j < n and continues(attrs, block[j - 1], block[j], k):
                run += 1
            else:
                total += points[run]
                if use_pot and 2 <= run < 5 and ((start == 0 and open_lo) or (j == n and open_hi)):
                    pot += params[run - 2]
                run, start = 1, j
    return total + pot


def line_gain(line: list, pos: int, card, attrs, points, params, use_pot, span_before, span_after) -> float:
    """Gain of putting card at pos of a line (a list with None for empty places)."""
    l0 = pos
    while l0 - 1 >= 0 and line[l0 - 1] is not None:
        l0 -= 1
    r1 = pos
    while r1 + 1 < len(line) and line[r1 + 1] is not None:
        r1 += 1
    left, right = line[l0:pos], line[pos + 1:r1 + 1]
    lo_b, hi_b = span_before
    lo_a, hi_a = span_after
    g = block_eval(left + [card] + right, attrs, points, params, use_pot, l0 - 1 >= lo_a, r1 + 1 <= hi_a)
    if left:
        g -= block_eval(left, attrs, points, params, use_pot, l0 - 1 >= lo_b, pos <= hi_b)
    if right:
        g -= block_eval(right, attrs, points, params, use_pot, pos >= lo_b, r1 + 1 <= hi_b)
    return g


def gain(grid: dict, card, cell, attrs, points, columns, params, use_pot) -> float:
    """Change of evaluation when card goes on cell (grid is left unchanged)."""
    r, c = cell
    if grid:
        r0, r1, c0, c1 = _bb(grid)
    else:
        r0 = r1 = r
        c0 = c1 = c
    nr0, nr1, nc0, nc1 = min(r0, r), max(r1, r), min(c0, c), max(c1, c)
    row = [grid.get((r, x)) for x in range(GW)]
    g = line_gain(row, c, card, attrs, points, params, use_pot,
                  (max(c1 - 4, 0), min(c0 + 4, GW - 1)), (max(nc1 - 4, 0), min(nc0 + 4, GW - 1)))
    if columns:
        col = [grid.get((y, c)) for y in range(GH)]
        g += line_gain(col, r, card, attrs, points, params, use_pot,
                       (max(r1 - 2, 0), min(r0 + 2, GH - 1)), (max(nr1 - 2, 0), min(nr0 + 2, GH - 1)))
    return g


def _bb(grid):
    if not grid:
        return None
    rs = [r for r, _ in grid]
    cs = [c for _, c in grid]
    return min(rs), max(rs), min(cs), max(cs)


def _legal_cells_grid(grid) -> list:
    if not grid:
        return [CENTRE]
    r0, r1, c0, c1 = _bb(grid)
    out = []
    for r in range(GH):
        for c in range(GW):
            if (r, c) in grid:
                continue
            if not any(n in grid for n in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))):
                continue
            if max(r1, r) - min(r0, r) > 2 or max(c1, c) - min(c0, c) > 4:
                continue
            out.append((r, c))
    return out


def best_place(grid, card, cells, attrs, points, columns, params, use_pot):
    """(best gain, cell) for card; ties go to the first cell."""
    best, bc = -1e300, (cells[0] if cells else None)
    for cell in cells:
        g = gain(grid, card, cell, attrs, points, columns, params, use_pot)
        if g > best + 1e-9:
            best, bc = g, cell
    return best, bc


# ------------------------------------------------------------------ the rollout policy (twin)
P_ROLLOUT = 3


def unseen(obs) -> list:
    """Cards the seat has not seen, ascending (twin of the kernel's _unseen)."""
    seen = set()
    for g in obs["grids"]:
        seen |= set(g.values())
    seen |= set(obs["offer"])
    if obs["hand"] is not None:
        seen.add(obs["hand"])
    seen |= set(obs["held"])
    return [x for x in range(obs["n_deck"]) if x not in seen]


def grid_points(grid, attrs, points, columns) -> int:
    total = 0
    for r in range(GH):
        total += sum(p for *_, p in line_runs([grid.get((r, c)) for c in range(GW)], attrs, points))
    if columns:
        for c in range(GW):
            total += sum(p for *_, p in line_runs([grid.get((r, c)) for r in range(GH)], attrs, points))
    return total


def playout(grid, hand, seq, k, attrs, points, columns) -> int:
    """Finish the tableau: each turn the kept card and the next two of seq, placed greedily."""
    grid = dict(grid)
    zero = [0.0] * 7
    while len(grid) < 15:
        cand = ([hand] if hand is not None else []) + seq[k:k + 2]
        k += len(seq[k:k + 2])
        if not cand:
            break
        cells = _legal_cells_grid(grid)
        best, bi, bc, gains = -1e300, 0, cells[0], []
        for i, card in enumerate(cand):
            g, c = best_place(grid, card, cells, attrs, points, columns, zero, False)
            gains.append(g)
            if g > best + 1e-9:
                best, bi, bc = g, i, c
        grid[bc] = cand[bi]
        hand, kg = None, -1e300
        for i, card in enumerate(cand):
            if i != bi and gains[i] > kg + 1e-9:
                kg, hand = gains[i], card
    return grid_points(grid, attrs, points, columns)


def turn_then_playout(grid, held, seq, k, attrs, points, columns, pp) -> int:
    cells = _legal_cells_grid(grid)
    best, bi, bc, gains = -1e300, 0, cells[0], []
    for i, card in enumerate(held):
        g, c = best_place(grid, card, cells, attrs, points, columns, pp, True)
        gains.append(g)
        if g > best + 1e-9:
            best, bi, bc = g, i, c
    g2 = dict(grid)
    g2[bc] = held[bi]
    keep, kg = None, -1e300
    for i, card in enumerate(held):
        if i != bi and gains[i] > kg + 1e-9:
            kg, keep = gains[i], card
    return playout(g2, keep, seq, k, attrs, points, columns)


def rollout_source(params, obs, attrs, points, columns, st):
    """Twin of the kernel's _rollout_source."""
    pp = list(params[1:])
    R = max(1, int(params[4]))
    U = unseen(obs)
    grid = obs["grids"][obs["seat"]]
    sources = list(range(len(obs["offer"]))) + ([DRAW] if obs["pile_size"] >= 2 else [])
    values = [0.0] * len(sources)
    for _ in range(R):
        seq = list(U)
        st = py_shuffle(seq, st)
        for si, src in enumerate(sources):
            if src == DRAW:
                v = turn_then_playout(grid, [obs["hand"], seq[0], seq[1]], seq, 2, attrs, points, columns, pp)
            else:
                v = turn_then_playout(grid, [obs["hand"], obs["offer"][src]], seq, 0, attrs, points, columns, pp)
            values[si] += v
    best, bs = -1e300, 0
    for si, v in enumerate(values):
        if v > best + 1e-9:
            best, bs = v, si
    return sources[bs], st


def rollout_place(params, obs, attrs, points, columns, st):
    """Twin of the kernel's _rollout_place."""
    pp = list(params[1:])
    R = max(1, int(params[4]))
    K = min(16, max(1, int(params[5])))
    held = obs["held"]
    grid = obs["grids"][obs["seat"]]
    cells = _legal_cells_grid(grid)
    items = [(gain(grid, card, cell, attrs, points, columns, pp, True), i, cell)
             for i, card in enumerate(held) for cell in cells]
    top = sorted(items, key=lambda t: -t[0])[:K]
    plans = []
    for _, bi, cell in top:
        if len(held) == 2:
            plans.append((bi, cell, 1 - bi, -1))
            continue
        a = 1 if bi == 0 else 0
        b = 3 - bi - a
        g2 = dict(grid)
        g2[cell] = held[bi]
        cells2 = _legal_cells_grid(g2)
        ga, _ = best_place(g2, held[a], cells2, attrs, points, columns, pp, True)
        gb, _ = best_place(g2, held[b], cells2, attrs, points, columns, pp, True)
        plans.append((bi, cell, a, b) if ga >= gb - 1e-9 else (bi, cell, b, a))
    U = unseen(obs)
    values = [0.0] * len(plans)
    for _ in range(R):
        seq = list(U)
        st = py_shuffle(seq, st)
        for t, (bi, cell, keep, _ret) in enumerate(plans):
            g2 = dict(grid)
            g2[cell] = held[bi]
            values[t] += playout(g2, held[keep], seq, 0, attrs, points, columns)
    best, bt = -1e300, 0
    for t, v in enumerate(values):
        if v > best + 1e-9:
            best, bt = v, t
    bi, cell, _keep, ret = plans[bt]
    return bi, cell, ret, st


def choose_source(kind, params, obs, attrs, points, columns, st):
    """Twin of the kernel's first decision; returns (source, stream state)."""
    n_src = len(obs["offer"]) + (1 if obs["pile_size"] >= 2 else 0)
    if kind == P_RANDOM:
        j, st = py_next_below(st, n_src)
        return (j if j < len(obs["offer"]) else DRAW), st
    if kind == P_ROLLOUT:
        return rollout_source(params, obs, attrs, points, columns, st)
    use_pot = kind == P_POTENTIAL
    pp = list(params[1:])
    grid = obs["grids"][obs["seat"]]
    cells = _legal_cells_grid(grid)
    gh, _ = best_place(grid, obs["hand"], cells, attrs, points, columns, pp, use_pot)
    best, bsrc = -1e300, 0
    for j, card in enumerate(obs["offer"]):
        g, _ = best_place(grid, card, cells, attrs, points, columns, pp, use_pot)
        g = max(g, gh)
        if g > best + 1e-9:
            best, bsrc = g, j
    if obs["pile_size"] >= 2 and (not obs["offer"] or best < params[0]):
        return DRAW, st
    return bsrc, st


def choose_place(kind, params, obs, attrs, points, columns, st):
    """Twin of the kernel's second decision: (held index placed, cell, held index put back or -1, stream)."""
    held = obs["held"]
    nh = len(held)
    grid = obs["grids"][obs["seat"]]
    cells = _legal_cells_grid(grid)
    if kind == P_RANDOM:
        pi, st = py_next_below(st, nh)
        cj, st = py_next_below(st, len(cells))
        ri = -1
        if nh == 3:
            rj, st = py_next_below(st, 2)
            ri = rj if rj < pi else rj + 1
        return pi, cells[cj], ri, st
    if kind == P_ROLLOUT:
        return rollout_place(params, obs, attrs, points, columns, st)
    use_pot = kind == P_POTENTIAL
    pp = list(params[1:])
    best, bi, bc = -1e300, 0, cells[0]
    for i, card in enumerate(held):
        g, c = best_place(grid, card, cells, attrs, points, columns, pp, use_pot)
        if g > best + 1e-9:
            best, bi, bc = g, i, c
    ri = -1
    if nh == 3:
        a = 1 if bi == 0 else 0
        b = 3 - bi - a
        g2 = dict(grid)
        g2[bc] = held[bi]
        cells2 = _legal_cells_grid(g2)
        ga, _ = best_place(g2, held[a], cells2, attrs, points, columns, pp, use_pot)
        gb, _ = best_place(g2, held[b], cells2, attrs, points, columns, pp, use_pot)
        ri = b if ga >= gb - 1e-9 else a
    return bi, bc, ri, st


# ------------------------------------------------------------------ a whole game
def play(key: int, g: int, n_players: int, attrs, points, columns, kinds, params, tiebreak: int = 0,
         hook=None) -> dict:
    """Play game g of the chunk with ``key``; the twin of the kernel's ``_play_traced``.

    kinds: policy kind per seat; params: a parameter list per seat.
    hook: called as hook(game) before every turn (tests use it to check invariants).
    Returns deal, trace (rows seat, src, held0..2, placed, cell index, returned),
    scores, per-kind points, win shares, tableaus, first player."""
    attrs = [tuple(int(x) for x in row) for row in attrs]
    game = Game(n_players, len(attrs), attrs, py_game_state(key, g))
    st = game.st
    trace = []
    for _ in range(15 * n_players):
        if hook is not None:
            hook(game)
        seat = game.seat
        src, st = choose_source(kinds[seat], params[seat], game.observe(seat), attrs, points, columns, st)
        game.take(src)
        obs = game.observe(seat)
        pi, cell, ri, st = choose_place(kinds[seat], params[seat], obs, attrs, points, columns, st)
        held = list(game.held) + [-1] * (3 - len(game.held))
        trace.append([seat, src, held[0], held[1], held[2], game.held[pi], cell[0] * GW + cell[1],
                      game.held[ri] if ri >= 0 else -1])
        game.finish(pi, cell, ri)
    if hook is not None:
        hook(game)
    tabs = [game.tableau(s) for s in range(n_players)]
    scores = [score(t, attrs, points, columns) for t in tabs]
    kinds_pts = [score_kinds(t, attrs, points, columns) for t in tabs]
    return {"deal": game.deal, "trace": trace, "scores": scores, "kinds": kinds_pts,
            "shares": win_shares(scores, kinds_pts, tiebreak), "tableaus": tabs, "first": game.first}


def win_shares(scores, kinds_pts, tiebreak: int = 0) -> list[float]:
    """SHB-12: equal shares among the highest; tiebreak 1 keeps only the tied players
    with the most sequence points."""
    best = max(scores)
    tied = [s for s, x in enumerate(scores) if x == best]
    if tiebreak:
        seq = {s: sum(kinds_pts[s][2:]) for s in tied}
        top = max(seq.values())
        tied = [s for s in tied if seq[s] == top]
    return [1.0 / len(tied) if s in tied else 0.0 for s in range(len(scores))]


def offer_vs_draw(game: Game, attrs, points, columns) -> tuple[int, float, float]:
    """Twin of the kernel's _offer_vs_draw at the turn about to be played (hindsight on the true
    pile): returns (+1 offer better, 0 equal, -1 draw better), the offer gain and the draw gain."""
    seat = game.seat
    grid = game.grid[seat]
    cells = _legal_cells_grid(grid)
    zero = [0.0] * 7
    g_hand, _ = best_place(grid, game.hand[seat], cells, attrs, points, columns, zero, False)
    g_offer = g_hand
    for card in game.offer:
        g_offer = max(g_offer, best_place(grid, card, cells, attrs, points, columns, zero, False)[0])
    g_draw = g_hand
    for card in (game.pile[-1], game.pile[-2]):
        g_draw = max(g_draw, best_place(grid, card, cells, attrs, points, columns, zero, False)[0])
    verdict = 1 if g_offer > g_draw + 1e-9 else (-1 if g_draw > g_offer + 1e-9 else 0)
    return verdict, g_offer, g_draw


# ------------------------------------------------------------------ the step interface (twin)
# The same nine functions as the kernels' step interface, on the same int64 arrays
# (layout and action encoding: ludolab.sim.shelf_kernels), played by the Game above.
from . import shelf_kernels as _L  # noqa: E402  (the layout constants only)


def _u64(x) -> int:
    return int(x) & ((1 << 64) - 1)


def _i64(x: int) -> int:
    x &= (1 << 64) - 1
    return x - (1 << 64) if x >= 1 << 63 else x


def _rules_deck(rules):
    """(attrs as tuples, points list, columns bool) of a rules array."""
    n = int(rules[_L.R_NDECK])
    a = [int(x) for x in rules[_L.R_ATTRS:_L.R_ATTRS + 4 * n]]
    attrs = [tuple(a[4 * i:4 * i + 4]) for i in range(n)]
    return attrs, [int(x) for x in rules[_L.R_POINTS:_L.R_POINTS + 6]], bool(rules[_L.R_COLUMNS])


def _read(rules, state) -> Game:
    """The Game held by a state array (the deal's order is not kept, only its size)."""
    g = Game.__new__(Game)
    n = int(state[_L.S_NP])
    g.n = n
    g.attrs = _rules_deck(rules)[0]
    g.deal = [None] * int(state[_L.S_NDECK])
    g.pile = [int(x) for x in state[_L.PILE0:_L.PILE0 + int(state[_L.S_PILE])]]
    g.offer = [int(x) for x in state[_L.OFFER0:_L.OFFER0 + int(state[_L.S_OFFER])]]
    g.hand = [int(h) if h >= 0 else None for h in state[_L.HAND0:_L.HAND0 + n]]
    g.grid = []
    for s in range(n):
        cells = state[_L.GRID0 + s * _L.NCELL:_L.GRID0 + (s + 1) * _L.NCELL]
        g.grid.append({(c // GW, c % GW): int(x) for c, x in enumerate(cells) if x >= 0})
    g.ret = int(state[_L.S_RET]) if state[_L.S_RET] >= 0 else None
    g.first = int(state[_L.S_FIRST])
    g.seat = int(state[_L.S_SEAT])
    g.turn = int(state[_L.S_TURN])
    g.held = [int(x) for x in state[_L.HELD0:_L.HELD0 + int(state[_L.S_NHELD])]]
    g.src = int(state[_L.S_SRC])
    return g


def _write(g: Game, state) -> None:
    """Write a Game into state[:STATE_LEN] in the kernels' layout (the stream is left alone)."""
    state[:_L.STATE_LEN] = 0
    state[_L.S_NP] = g.n
    state[_L.S_SEAT] = g.seat
    state[_L.S_TURN] = g.turn
    state[_L.S_PILE] = len(g.pile)
    state[_L.S_OFFER] = len(g.offer)
    state[_L.S_RET] = -1 if g.ret is None else g.ret
    state[_L.S_FIRST] = g.first
    state[_L.S_NDECK] = len(g.deal)
    state[_L.S_NHELD] = len(g.held)
    state[_L.S_SRC] = g.src if g.held else -1
    state[_L.PILE0:_L.GRID0] = -1
    state[_L.PILE0:_L.PILE0 + len(g.pile)] = g.pile
    state[_L.OFFER0:_L.OFFER0 + len(g.offer)] = g.offer
    for s in range(g.n):
        state[_L.HAND0 + s] = -1 if g.hand[s] is None else g.hand[s]
    state[_L.HELD0:_L.HELD0 + len(g.held)] = g.held
    state[_L.GRID0:_L.NPL0] = -1
    for s in range(g.n):
        for (r, c), card in g.grid[s].items():
            state[_L.GRID0 + s * _L.NCELL + r * GW + c] = card
        state[_L.NPL0 + s] = len(g.grid[s])
        if g.grid[s]:
            state[_L.BB0 + 4 * s:_L.BB0 + 4 * s + 4] = _bb(g.grid[s])


def new_game(rules, key, state) -> None:
    """Twin of the kernels' new_game: Game's deal (SHB-3) from the stream start ``key``."""
    attrs, _, _ = _rules_deck(rules)
    g = Game(int(rules[_L.R_NP]), len(attrs), attrs, _u64(key))
    state[:] = 0
    _write(g, state)
    state[_L.S_RNG] = _i64(g.st)
    state[_L.S_KNOWN0:_L.S_KNOWN0 + _L.MAXP] = -1


def is_terminal(state) -> bool:
    """Twin of the kernels' is_terminal (SHB-9)."""
    return int(state[_L.S_TURN]) >= 15 * int(state[_L.S_NP])


def current_player(state) -> int:
    """Twin of the kernels' current_player: the seat to act, -1 once the game is over."""
    return -1 if is_terminal(state) else int(state[_L.S_SEAT])


def _cell_actions(held: int, cells: list) -> list:
    out = []
    for p in range(held):
        for r in ([p] if held == 2 else [x for x in range(3) if x != p]):
            out += [_L.A_PLACE0 + (3 * p + r) * _L.NCELL + r_ * GW + c_ for r_, c_ in cells]
    return out


def legal_actions(rules, state, out) -> int:
    """Twin of the kernels' legal_actions: Game.sources, then Game.legal_cells per held card."""
    if is_terminal(state):
        return 0
    g = _read(rules, state)
    acts = g.sources() if not g.held else _cell_actions(len(g.held), g.legal_cells(g.seat))
    out[:len(acts)] = acts
    return len(acts)


def apply_action(rules, state, action) -> None:
    """Twin of the kernels' apply_action: Game.take, or Game.finish."""
    g = _read(rules, state)
    action = int(action)
    if not g.held:
        g.take(action)
    else:
        q, cell = divmod(action - _L.A_PLACE0, _L.NCELL)
        p, r = divmod(q, 3)
        if len(g.held) == 3:
            state[_L.S_KNOWN0 + g.seat] = -1  # the kept card may be one nobody else has seen
        elif p == 0:
            state[_L.S_KNOWN0 + g.seat] = g.held[1]  # kept the card taken face up from the offer
        g.finish(p, divmod(cell, GW), -1 if r == p else r)
    _write(g, state)


def observe(rules, state, seat, obs) -> None:
    """Twin of the kernels' observe, from Game.observe (SHB-14)."""
    g = _read(rules, state)
    view = g.observe(int(seat))
    obs[:] = 0
    _write(g, obs)
    obs[_L.PILE0:_L.PILE0 + _L.MAXD] = -1
    if view["pile_top"] is not None:
        obs[_L.PILE0 + view["pile_size"] - 1] = view["pile_top"]
    obs[_L.HAND0:_L.HAND0 + _L.MAXP] = -1
    obs[_L.HAND0 + seat] = -1 if view["hand"] is None else view["hand"]
    obs[_L.HELD0:_L.HELD0 + 3] = -1
    obs[_L.HELD0:_L.HELD0 + len(view["held"])] = view["held"]
    if g.seat != seat and len(g.held) == 2:
        obs[_L.HELD0 + 1] = g.held[1]  # taken face up from the offer (SHB-5)
    for s in range(_L.MAXP):  # hand cards the whole table knows
        k = int(state[_L.S_KNOWN0 + s])
        obs[_L.O_KNOWN0 + s] = k
        if k >= 0 and s != seat:
            obs[_L.HELD0 if s == g.seat and g.held else _L.HAND0 + s] = k
    obs[_L.O_SEAT] = seat
    obs[_L.O_COLUMNS] = rules[_L.R_COLUMNS]
    obs[_L.O_POINTS:_L.O_POINTS + 6] = rules[_L.R_POINTS:_L.R_POINTS + 6]
    n = 4 * int(rules[_L.R_NDECK])
    obs[_L.O_ATTRS:_L.O_ATTRS + n] = rules[_L.R_ATTRS:_L.R_ATTRS + n]


def _view(obs) -> tuple:
    """The policies' observation dict, attrs, points and columns, read from an observation array."""
    seat = int(obs[_L.S_SEAT])
    n = int(obs[_L.S_NDECK])
    p = int(obs[_L.S_PILE])
    grids = []
    for s in range(int(obs[_L.S_NP])):
        cells = obs[_L.GRID0 + s * _L.NCELL:_L.GRID0 + (s + 1) * _L.NCELL]
        grids.append({(c // GW, c % GW): int(x) for c, x in enumerate(cells) if x >= 0})
    hand = int(obs[_L.HAND0 + seat])
    view = {"seat": seat, "hand": hand if hand >= 0 else None,
            "held": [int(x) for x in obs[_L.HELD0:_L.HELD0 + int(obs[_L.S_NHELD])]],
            "offer": [int(x) for x in obs[_L.OFFER0:_L.OFFER0 + int(obs[_L.S_OFFER])]],
            "pile_size": p, "pile_top": int(obs[_L.PILE0 + p - 1]) if p and obs[_L.PILE0 + p - 1] >= 0 else None,
            "n_deck": n, "grids": grids}
    a = [int(x) for x in obs[_L.O_ATTRS:_L.O_ATTRS + 4 * n]]
    attrs = [tuple(a[4 * i:4 * i + 4]) for i in range(n)]
    return view, attrs, [int(x) for x in obs[_L.O_POINTS:_L.O_POINTS + 6]], bool(obs[_L.O_COLUMNS])


def act(kind, params, obs, state) -> int:
    """Twin of the kernels' act: choose_source or choose_place on the observation, drawing from
    state[S_RNG].  Reads the first NPARAM parameters: the lookup tables the kernels' params may
    carry after them (``shelf_kernels.policy_params``) only spare the kernels work."""
    view, attrs, points, columns = _view(obs)
    st = _u64(state[_L.S_RNG])
    params = [float(x) for x in params[:_L.NPARAM]]
    if not view["held"]:
        src, st = choose_source(int(kind), params, view, attrs, points, columns, st)
        state[_L.S_RNG] = _i64(st)
        return int(src)
    pi, (r, c), ri, st = choose_place(int(kind), params, view, attrs, points, columns, st)
    state[_L.S_RNG] = _i64(st)
    return _L.A_PLACE0 + (3 * pi + (pi if ri < 0 else ri)) * _L.NCELL + r * GW + c


def hidden_places(obs, seat) -> list[int]:
    """The state offsets :func:`determinize` fills with the unseen cards, in its order (SHB-14): the
    pile's unseen positions bottom to top, the other hands in seat order, the mover's unseen held cards.

    Args:
        obs: int64 (OBS_SIZE,), ``seat``'s observation.
        seat: the observing seat.
    """
    n_players, mover, nh = int(obs[_L.S_NP]), int(obs[_L.S_SEAT]), int(obs[_L.S_NHELD])
    places = [_L.PILE0 + j for j in range(int(obs[_L.S_PILE])) if obs[_L.PILE0 + j] < 0]
    places += [_L.HAND0 + s for s in range(n_players)
               if s != seat and not (s == mover and nh > 0) and obs[_L.HAND0 + s] < 0]
    if mover != seat:
        places += [_L.HELD0 + j for j in range(nh) if obs[_L.HELD0 + j] < 0]
    return places


def determinize(rules, obs, seat, key, state) -> None:
    """Twin of the kernels' determinize: the unseen cards shuffled from ``key`` into the hidden
    places (pile bottom to top, other hands in seat order, the mover's unseen held cards)."""
    state[:_L.STATE_LEN] = obs[:_L.STATE_LEN]
    n_players = int(obs[_L.S_NP])
    p = int(obs[_L.S_PILE])
    seen = {int(x) for x in obs[_L.PILE0:_L.PILE0 + p] if x >= 0}
    seen |= {int(x) for x in obs[_L.OFFER0:_L.GRID0 + n_players * _L.NCELL] if x >= 0}
    unseen = [x for x in range(int(obs[_L.S_NDECK])) if x not in seen]
    st = py_shuffle(unseen, _u64(key))
    places = hidden_places(obs, seat)
    if len(places) != len(unseen):
        raise ValueError(f"observation has {len(places)} hidden places and {len(unseen)} unseen cards")
    for q, card in zip(places, unseen):
        state[q] = card
    state[_L.S_RNG] = _i64(st)
    state[_L.S_KNOWN0:_L.S_KNOWN0 + _L.MAXP] = obs[_L.O_KNOWN0:_L.O_KNOWN0 + _L.MAXP]


def returns(rules, state, out) -> None:
    """Twin of the kernels' returns: grid_points of every seat's tableau as it stands."""
    attrs, points, columns = _rules_deck(rules)
    g = _read(rules, state)
    for s in range(g.n):
        out[s] = float(grid_points(g.grid[s], attrs, points, columns))
