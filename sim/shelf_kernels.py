"""Numba kernels for Shelve the Book (private; the face is :mod:`ludolab.sim.shelf`).

Clause ids (``SHB-n``) refer to ``seeds/shelve_the_book.md``.

Cards are small ints (indices into a deck); a deck is ``attrs`` int16 (n, 4):
field index, colour index, accession number, author rank
(:mod:`ludolab.stdlib.shelf`).  Scoring takes ``points`` int64 (6,), the points
of a run by its length (0 for lengths that do not score), and ``columns``
(0/1).

The state of a game is one int16 array of :data:`STATE_LEN` with the named
offsets below.  Each player's tableau lives on a 9 x 5 grid (cell = 9 * row +
col); the first card goes to the centre cell (SHB-8: "anywhere"; only the
relative layout matters), so any tableau of at most 5 columns and 3 rows fits.

A policy is a kind id (:data:`P_RANDOM`, :data:`P_GREEDY`,
:data:`P_POTENTIAL`, :data:`P_ROLLOUT`) and a float64 parameter array; it
reads only ``observe(state, seat)`` (SHB-14), never the state itself.  A turn
is two decisions: the source (an offer index, or :data:`DRAW`), then, with the
cards in hand known, which held card to place where and which to put back.

The step interface (:mod:`ludolab.sim.step`; ``new_game`` ... ``act`` at the end
of this module) plays the same game one action at a time on an int64 state of
:data:`STATE_SIZE`: the layout above, then the game's stream at :data:`S_RNG`
and, at :data:`S_KNOWN0` (one per seat), the hand card the whole table knows.
The rules array is int64 (``R_*`` offsets; built by ``shelf.step_rules``).

Actions (a turn is two actions, as ``_take`` and ``_finish`` split it):

* the source: ``j`` (0 .. offer size - 1) takes offer card ``j`` (SHB-5);
  :data:`A_DRAW` (= :data:`DRAW` = 6) draws the top two of the pile, legal while
  it holds two or more (SHB-6, SHB-7);
* the placement: ``A_PLACE0 + (3 * p + r) * NCELL + cell`` places held card
  ``p`` (0 = the card kept from the last turn, then the cards just taken, the
  pile's top first) on ``cell`` (``9 * row + col`` of the seat's grid, SHB-8);
  with three held, ``r != p`` is the held card put back face down on the pile
  and the third is kept; with two held, ``r == p`` and the other is kept.

``legal_actions`` lists them ascending; :data:`MAX_ACTIONS` bounds both their
count and their values.  No chance happens after ``new_game``: the shuffle fixes
the pile, and the stream then serves only the policies' own random choices, in
the order ``_play`` draws them.

What a seat observes (SHB-14; :data:`OBS_SIZE`): the state's layout with the
pile's cards -1 (but the top card if this seat put it back and nobody has taken
it since), other hands and another mover's held cards -1 (but a card that mover
just took face up from the offer, and a hand card every player can tell: one
taken from the offer by a player who then placed their other card, known until
that player next draws two); then :data:`O_SEAT`, the known hand cards at
:data:`O_KNOWN0` and the rules a policy scores by (:data:`O_COLUMNS`,
:data:`O_POINTS`, :data:`O_ATTRS`), so ``act`` needs nothing else.  Not carried:
what a player could still narrow down about hidden cards from the history
(that a card it put back was then drawn by the next player, or that a hand card
known to all is now either in that hand or on the pile after a draw); those
cards count as unseen, and ``determinize`` deals them uniformly with the rest.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from . import kernel_cache as _kernel_cache  # noqa: F401  (processes sharing the cache take turns)

from .lowlevel import popcount64 as _popcount
from . import play as _loops
from . import search as _search
from .rng import game_state, next_below, shuffle_inplace

MAXP = 5
MAXD = 512
OFFER_MAX = MAXP + 1
GW, GH = 9, 5
NCELL = GW * GH
CENTRE = 2 * GW + 4
DRAW = OFFER_MAX  # the source "draw two from the pile"
NKIND = 6
AUX_T = 96  # offset of the pair codes in the aux table

# header
S_NP, S_SEAT, S_TURN, S_PILE, S_OFFER, S_RET, S_FIRST, S_NDECK, S_NHELD, S_SRC = range(10)
HDR = 10
PILE0 = HDR
OFFER0 = PILE0 + MAXD
HAND0 = OFFER0 + OFFER_MAX
HELD0 = HAND0 + MAXP
GRID0 = HELD0 + 3
NPL0 = GRID0 + MAXP * NCELL
BB0 = NPL0 + MAXP
STATE_LEN = BB0 + 4 * MAXP

P_RANDOM, P_GREEDY, P_POTENTIAL, P_ROLLOUT = 0, 1, 2, 3
NPARAM = 8
WS_STAMP = NCELL + 12  # turn (+1) whose legal places and prepared shelves the scratch holds
WS_NCELL = NCELL + 13
WS_LEN = NCELL + 14
NPRE = 21  # columns of the per-decision table of legal places (see _prep_cells)

# statistics per seat (simulate accumulator)
ST_SCORE, ST_SQ, ST_WIN = 0, 1, 2
ST_KIND0 = 3
ST_OFFER = ST_KIND0 + NKIND
ST_DRAW = ST_OFFER + 1
NSEATSTAT = ST_DRAW + 1
NPOSSTAT = 3
HBINS = 128
NGLOBAL = 6  # turns compared, offer better, equal, draw better, sum of offer gains, of draw gains


# ------------------------------------------------------------------ scoring (SHB-10, SHB-11)
@njit(cache=True, inline="always")
def _cont(attrs, a, b, k):
    """Does card b continue a run of kind k after card a?"""
    if k == 0:
        return attrs[a, 1] == attrs[b, 1]
    if k == 1:
        return attrs[a, 0] == attrs[b, 0]
    if k == 2:
        return attrs[a, 2] < attrs[b, 2]
    if k == 3:
        return attrs[a, 2] > attrs[b, 2]
    if k == 4:
        return attrs[a, 3] < attrs[b, 3]
    return attrs[a, 3] > attrs[b, 3]


@njit(cache=True)
def _score_line(cards, n, attrs, points, kinds_out):
    """Points of one line (a shelf left to right, or a column top to bottom).

    cards: int array, card ids with -1 for an empty place (a gap ends a run);
    n: number of places.  Adds each kind's points to kinds_out (NKIND,).
    """
    total = 0
    for k in range(NKIND):
        run = 0
        prev = -1
        for j in range(n + 1):
            c = cards[j] if j < n else -1
            if c < 0:
                if run > 0:
                    p = points[min(run, 5)]
                    total += p
                    kinds_out[k] += p
                run = 0
            elif prev >= 0 and _cont(attrs, prev, c, k):
                run += 1
            else:
                if run > 0:
                    p = points[min(run, 5)]
                    total += p
                    kinds_out[k] += p
                run = 1
            prev = c
    return total


@njit(cache=True)
def _score_tableau(tab, attrs, points, columns, kinds_out):
    """Score of a finished tableau (SHB-10, SHB-11).

    tab: int (15,) card ids, shelf by shelf from the top, left to right.
    columns: 1 to score the columns too.  Adds per-kind points to kinds_out.
    """
    total = 0
    line = np.empty(5, dtype=np.int64)
    for r in range(3):
        for c in range(5):
            line[c] = tab[5 * r + c]
        total += _score_line(line, 5, attrs, points, kinds_out)
    if columns:
        for c in range(5):
            for r in range(3):
                line[r] = tab[5 * r + c]
            total += _score_line(line, 3, attrs, points, kinds_out)
    return total


@njit(cache=True)
def _make_aux(attrs, points):
    """Lookup tables for the fast greedy gain and the playouts' scoring: int64
    (AUX_T + n * n + (n + 1) ** 2,).

    aux[16 * L + m] (L = 0..5): points of a block of L books whose neighbour pairs
    continue a run exactly at the set bits of m (one kind); aux[AUX_T + a * n + b]:
    bit k set when card b continues a run of kind k after card a; from AUX_T + n * n on,
    :func:`_pair_codes` (the same codes with an empty place at index 0)."""
    n = attrs.shape[0]
    aux = np.zeros(AUX_T + n * n + (n + 1) * (n + 1), dtype=np.int64)
    for L in range(1, 6):
        for m in range(1 << (L - 1)):
            total = 0
            run = 1
            for j in range(L - 1):
                if (m >> j) & 1:
                    run += 1
                else:
                    total += points[run]
                    run = 1
            aux[16 * L + m] = total + points[run]
    pc = _pair_codes(attrs)  # the same codes with an empty place at index 0: read each pair once
    for a in range(n):
        for b in range(n):
            aux[AUX_T + a * n + b] = pc[(a + 1) * (n + 1) + b + 1]
    aux[AUX_T + n * n:] = pc
    return aux


@njit(cache=True)
def _pair_codes(attrs):
    """The pair-code table of the fast scorer: uint8 ((n + 1) ** 2,) for a deck of n cards.

    pc[(a + 1) * (n + 1) + b + 1] has bit k set when card b continues a run of kind k
    (KINDS order, SHB-10) after card a; index 0 stands for an empty place (card -1), which
    continues nothing and is continued by nothing (a gap ends a run)."""
    n = attrs.shape[0]
    pc = np.zeros((n + 1) * (n + 1), dtype=np.uint8)
    for a in range(n):
        for b in range(n):
            code = 0
            for k in range(NKIND):
                if _cont(attrs, a, b, k):
                    code |= 1 << k
            pc[(a + 1) * (n + 1) + b + 1] = code
    return pc


@njit(cache=True, inline="always")
def _long_runs5(e1, e2, e3, e4, full, p3, p4, p5):
    """Points of the runs of 3, 4 and 5 books in lines of 5 places, several lines at once.

    e1..e4: uint64 pair codes of places (0, 1) .. (3, 4), one line per 8-bit lane, all six
    kinds in a lane (bit k: kind k); full: 0x3f in every lane used; p3, p4, p5: the points
    of a run of 3, 4 and 5 books (SHB-10).  A run of 3 or more places in a line of 5 passes
    through its middle place, so there is at most one such run per kind and line and each
    length is one mask; each mask's popcount counts the runs (kinds x lines)."""
    n1 = full ^ e1
    n3 = full ^ e3
    a = e1 & e2
    d = e3 & e4
    tot = p5 * _popcount(a & d)
    tot += p4 * _popcount((a & e3 & (full ^ e4)) | (n1 & e2 & d))
    tot += p3 * _popcount((a & n3) | (n1 & e2 & e3 & (full ^ e4)) | ((full ^ e2) & d))
    return tot


@njit(cache=True, inline="always")
def _line5_points(e1, e2, e3, e4, full, occ, pts):
    """Points of lines of 5 places from their pair codes, several lines at once.

    e1..e4, full: as :func:`_long_runs5`; occ = (o0, ..., o4): ``full`` masked to the lanes
    whose place j is occupied (needed only when p1 != 0); pts = (p1, ..., p5): the points of
    a run of 1..5 books (SHB-10).  Runs of 3 to 5 are counted by :func:`_long_runs5`; runs
    of 1 and 2 are summed place by place."""
    o0, o1, o2, o3, o4 = occ
    p1, p2, p3, p4, p5 = pts
    n1 = full ^ e1
    n2 = full ^ e2
    n3 = full ^ e3
    n4 = full ^ e4
    tot = _long_runs5(e1, e2, e3, e4, full, p3, p4, p5)
    if p2 != 0:
        tot += p2 * (_popcount(e1 & n2) + _popcount(n1 & e2 & n3) + _popcount(n2 & e3 & n4) + _popcount(n3 & e4))
    if p1 != 0:
        tot += p1 * (_popcount(n1 & o0) + _popcount(n1 & n2 & o1) + _popcount(n2 & n3 & o2)
                     + _popcount(n3 & n4 & o3) + _popcount(n4 & o4))
    return tot


@njit(cache=True, inline="always")
def _line3_points(f1, f2, full, o0, o1, o2, p1, p2, p3):
    """Points of lines of 3 places (columns) from their pair codes, as :func:`_line5_points`."""
    m1 = full ^ f1
    m2 = full ^ f2
    tot = p3 * _popcount(f1 & f2)
    if p2 != 0:
        tot += p2 * (_popcount(f1 & m2) + _popcount(m1 & f2))
    if p1 != 0:
        tot += p1 * (_popcount(m1 & o0) + _popcount(m1 & m2 & o1) + _popcount(m2 & o2))
    return tot


@njit(cache=True, inline="always")
def _occ(x, shift):
    """0x3f in the lane at ``shift`` when place x holds a card (x >= 0), else 0."""
    return np.uint64(0x3F << shift) if x >= 0 else np.uint64(0)


@njit(cache=True, inline="always")
def _code(pc, s, a, b):
    """Pair code of cards a then b (-1: empty) from the flat table pc of stride s (unsigned
    indices: no negative-index wraparound in the hot loop)."""
    return np.uint64(pc[np.uint64(a + 1) * s + np.uint64(b + 1)])


@njit(cache=True, inline="always")
def _shelf_codes(tab, pc, s):
    """Pair codes of the three shelves of tab, one shelf per 8-bit lane: (e1, e2, e3, e4),
    uint64, e_j holding the codes of places (j - 1, j) of every shelf (:func:`_long_runs5`).

    tab: int (15,) card ids, shelf by shelf from the top, -1 for an empty place;
    pc: :func:`_pair_codes` of the deck, s = n + 1 (uint64) its stride."""
    z = np.uint64(0)
    e1 = z
    e2 = z
    e3 = z
    e4 = z
    for r in range(3):
        sh = np.uint64(8 * r)
        e1 |= _code(pc, s, tab[5 * r], tab[5 * r + 1]) << sh
        e2 |= _code(pc, s, tab[5 * r + 1], tab[5 * r + 2]) << sh
        e3 |= _code(pc, s, tab[5 * r + 2], tab[5 * r + 3]) << sh
        e4 |= _code(pc, s, tab[5 * r + 3], tab[5 * r + 4]) << sh
    return e1, e2, e3, e4


@njit(cache=True, inline="always")
def _score_fast(tab, pc, s, points, columns):
    """Score of a tableau (SHB-10, SHB-11) without the per-kind split: the throughput path.

    tab: int (15,) card ids, shelf by shelf from the top, -1 for an empty place;
    pc: :func:`_pair_codes` of the deck, s = n + 1 (uint64) its stride; points int64 (6,);
    columns 0/1.  The three
    shelves are scored together, one per 8-bit lane, by :func:`_line5_points` (12 table
    lookups and three popcounts a tableau under the published scoring, 10 more lookups
    for the columns, no data-dependent branches); the same total as :func:`_score_tableau`."""
    p1 = points[1]
    p2 = points[2]
    z = np.uint64(0)
    e1, e2, e3, e4 = _shelf_codes(tab, pc, s)
    o0 = z
    o1 = z
    o2 = z
    o3 = z
    o4 = z
    if p1 != 0:
        for r in range(3):
            o0 |= _occ(tab[5 * r], 8 * r)
            o1 |= _occ(tab[5 * r + 1], 8 * r)
            o2 |= _occ(tab[5 * r + 2], 8 * r)
            o3 |= _occ(tab[5 * r + 3], 8 * r)
            o4 |= _occ(tab[5 * r + 4], 8 * r)
    total = _line5_points(e1, e2, e3, e4, np.uint64(0x3F3F3F), (o0, o1, o2, o3, o4),
                          (p1, p2, points[3], points[4], points[5]))
    if columns:
        f1 = z
        f2 = z
        for c in range(5):
            sh = np.uint64(8 * c)
            f1 |= _code(pc, s, tab[c], tab[5 + c]) << sh
            f2 |= _code(pc, s, tab[5 + c], tab[10 + c]) << sh
        if p1 != 0:
            o0 = z
            o1 = z
            o2 = z
            for c in range(5):
                o0 |= _occ(tab[c], 8 * c)
                o1 |= _occ(tab[5 + c], 8 * c)
                o2 |= _occ(tab[10 + c], 8 * c)
        total += _line3_points(f1, f2, np.uint64(0x3F3F3F3F3F), o0, o1, o2, p1, p2, points[3])
    return total


@njit(cache=True, parallel=True)
def _score_many(tabs, attrs, points, columns, out):
    """Score every tableau of tabs int (N, 15) (-1 for an empty place) into out int64 (N,).

    Where only runs of 3 or more score and the columns do not (the published scoring and
    every variant like it), each tableau is scored by :func:`_long_runs5` straight from its
    shelves' pair codes, a loop with no branch on the scoring left in it; otherwise by
    :func:`_score_fast`.  Both give :func:`_score_tableau`'s total."""
    pc = _pair_codes(attrs)
    s = np.uint64(attrs.shape[0] + 1)
    if points[1] == 0 and points[2] == 0 and columns == 0:
        p3 = points[3]
        p4 = points[4]
        p5 = points[5]
        full = np.uint64(0x3F3F3F)
        for i in prange(tabs.shape[0]):
            e1, e2, e3, e4 = _shelf_codes(tabs[i], pc, s)
            out[i] = _long_runs5(e1, e2, e3, e4, full, p3, p4, p5)
    else:
        for i in prange(tabs.shape[0]):
            out[i] = _score_fast(tabs[i], pc, s, points, columns)


@njit(cache=True)
def _pair_codes_u8(attrs):
    """The pair-code table read by 16-bit words: uint8 (65536,), for a deck of at most 256 cards.

    pc[a | (b << 8)] has bit k set when card b continues a run of kind k after card a (the
    codes of :func:`_pair_codes`): ``a | (b << 8)`` is the little-endian 16-bit word of two
    neighbouring uint8 places a, b, so a pair's code is read with one load of the word and
    one of the table (:func:`_score_u8_words`)."""
    n = attrs.shape[0]
    pc = _pair_codes(attrs)
    out = np.zeros(65536, dtype=np.uint8)
    for a in range(n):
        for b in range(n):
            out[a | (b << 8)] = pc[(a + 1) * (n + 1) + b + 1]
    return out


@njit(cache=True, inline="always")
def _wcode(pc, words, j, shift):
    """Code of the pair held by 16-bit word ``words[j]``, shifted into the lane at ``shift``."""
    return np.uint64(pc[words[j]]) << np.uint64(shift)


@njit(cache=True, inline="always")
def _long_runs_words(pc, even, odd, h, parity, full, p3, p4, p5):
    """Points of the runs of 3 or more of one full tableau of uint8 card ids, read by words.

    even, odd: the tableaus' bytes as uint16 words from byte 0 and from byte 1; the tableau
    starts at byte 2 * h + parity (parity 0 or 1, a compile-time branch in the caller's
    unrolled pair of tableaus); place p, p + 1 of the tableau is the word ``even[(b + p) // 2]``
    when b + p is even, else ``odd[(b + p - 1) // 2]`` (b its first byte).  The same lanes as
    :func:`_shelf_codes`, the same total as :func:`_long_runs5`."""
    if parity == 0:
        e1 = _wcode(pc, even, h, 0) | _wcode(pc, odd, h + 2, 8) | _wcode(pc, even, h + 5, 16)
        e2 = _wcode(pc, odd, h, 0) | _wcode(pc, even, h + 3, 8) | _wcode(pc, odd, h + 5, 16)
        e3 = _wcode(pc, even, h + 1, 0) | _wcode(pc, odd, h + 3, 8) | _wcode(pc, even, h + 6, 16)
        e4 = _wcode(pc, odd, h + 1, 0) | _wcode(pc, even, h + 4, 8) | _wcode(pc, odd, h + 6, 16)
    else:
        e1 = _wcode(pc, odd, h, 0) | _wcode(pc, even, h + 3, 8) | _wcode(pc, odd, h + 5, 16)
        e2 = _wcode(pc, even, h + 1, 0) | _wcode(pc, odd, h + 3, 8) | _wcode(pc, even, h + 6, 16)
        e3 = _wcode(pc, odd, h + 1, 0) | _wcode(pc, even, h + 4, 8) | _wcode(pc, odd, h + 6, 16)
        e4 = _wcode(pc, even, h + 2, 0) | _wcode(pc, odd, h + 4, 8) | _wcode(pc, even, h + 7, 16)
    return _long_runs5(e1, e2, e3, e4, full, p3, p4, p5)


@njit(cache=True, parallel=True)
def _score_u8_words(even, odd, n_tabs, attrs, points, out):
    """Scores of ``n_tabs`` full tableaus of uint8 card ids under a scoring where only runs of
    3 or more count and the columns do not (SHB-10): the throughput path of :func:`_score_many`.

    even, odd: the C-contiguous (n_tabs, 15) uint8 tableaus' bytes viewed as uint16 words from
    byte 0 and from byte 1 (the caller's views, each at least 15 * n_tabs // 2 - 1 words long;
    tableau i starts at byte 15 * i); out int64 (n_tabs,).  Each pair of neighbouring places
    is one word load and one table load (:func:`_pair_codes_u8`), with no index arithmetic:
    two tableaus (30 bytes, an even start) per step, so every word's view is fixed."""
    pc = _pair_codes_u8(attrs)
    p3 = points[3]
    p4 = points[4]
    p5 = points[5]
    full = np.uint64(0x3F3F3F)
    for k in prange(n_tabs // 2):
        h = 15 * k
        out[2 * k] = _long_runs_words(pc, even, odd, h, 0, full, p3, p4, p5)
        out[2 * k + 1] = _long_runs_words(pc, even, odd, h + 7, 1, full, p3, p4, p5)
    if n_tabs % 2:
        out[n_tabs - 1] = _long_runs_words(pc, even, odd, 15 * (n_tabs // 2), 0, full, p3, p4, p5)


@njit(cache=True)
def _score_many_kinds(tabs, attrs, points, columns, out, kinds):
    """Score tabs (N, 15) into out (N,) and kinds (N, NKIND) (per-kind points)."""
    for i in range(tabs.shape[0]):
        out[i] = _score_tableau(tabs[i], attrs, points, columns, kinds[i])


# ------------------------------------------------------------------ setup (SHB-3)
@njit(cache=True)
def _setup(state, n_players, n_deck, attrs, st):
    """Shuffle, deal one card per seat, turn up players + 1 cards; returns the stream state."""
    state[:] = 0
    deck = np.arange(n_deck)
    st = shuffle_inplace(deck, st)
    for j in range(n_deck):
        state[PILE0 + j] = deck[j]
    state[S_NP] = n_players
    state[S_NDECK] = n_deck
    state[S_RET] = -1
    pile = n_deck
    for s in range(MAXP):
        state[HAND0 + s] = -1
    for s in range(n_players):
        pile -= 1
        state[HAND0 + s] = state[PILE0 + pile]
    for j in range(OFFER_MAX):
        state[OFFER0 + j] = -1
    for j in range(n_players + 1):
        pile -= 1
        state[OFFER0 + j] = state[PILE0 + pile]
    state[S_OFFER] = n_players + 1
    state[S_PILE] = pile
    for j in range(pile, MAXD):
        state[PILE0 + j] = -1
    for s in range(MAXP):
        for c in range(NCELL):
            state[GRID0 + s * NCELL + c] = -1
        state[NPL0 + s] = 0
    first = 0
    for s in range(1, n_players):
        if attrs[state[HAND0 + s], 2] < attrs[state[HAND0 + first], 2]:
            first = s
    state[S_FIRST] = first
    state[S_SEAT] = first
    for j in range(3):
        state[HELD0 + j] = -1
    state[S_SRC] = -1
    return st


# ------------------------------------------------------------------ placement (SHB-8)
@njit(cache=True)
def _legal_cells(state, seat, cells):
    """Legal cells for the next card of ``seat``, ascending; returns the count."""
    base = GRID0 + seat * NCELL
    if state[NPL0 + seat] == 0:
        cells[0] = CENTRE
        return 1
    r0 = state[BB0 + 4 * seat]
    r1 = state[BB0 + 4 * seat + 1]
    c0 = state[BB0 + 4 * seat + 2]
    c1 = state[BB0 + 4 * seat + 3]
    n = 0
    for r in range(max(r0 - 1, 0), min(r1 + 2, GH)):
        for c in range(max(c0 - 1, 0), min(c1 + 2, GW)):
            cell = r * GW + c
            if state[base + cell] >= 0:
                continue
            adj = False
            if r > 0 and state[base + cell - GW] >= 0:
                adj = True
            elif r < GH - 1 and state[base + cell + GW] >= 0:
                adj = True
            elif c > 0 and state[base + cell - 1] >= 0:
                adj = True
            elif c < GW - 1 and state[base + cell + 1] >= 0:
                adj = True
            if not adj:
                continue
            if max(r1, r) - min(r0, r) > 2 or max(c1, c) - min(c0, c) > 4:
                continue
            cells[n] = cell
            n += 1
    return n


@njit(cache=True)
def _place(state, seat, card, cell):
    """Put ``card`` on ``cell`` of ``seat``'s grid and update the bounding box."""
    state[GRID0 + seat * NCELL + cell] = card
    r = cell // GW
    c = cell % GW
    b = BB0 + 4 * seat
    if state[NPL0 + seat] == 0:
        state[b] = r
        state[b + 1] = r
        state[b + 2] = c
        state[b + 3] = c
    else:
        state[b] = min(state[b], r)
        state[b + 1] = max(state[b + 1], r)
        state[b + 2] = min(state[b + 2], c)
        state[b + 3] = max(state[b + 3], c)
    state[NPL0 + seat] += 1


@njit(cache=True)
def _tableau(state, seat, tab):
    """The finished 5 x 3 tableau of ``seat`` into tab (15,), top shelf first."""
    b = BB0 + 4 * seat
    r0 = state[b]
    c0 = state[b + 2]
    for r in range(3):
        for c in range(5):
            tab[5 * r + c] = state[GRID0 + seat * NCELL + (r0 + r) * GW + c0 + c]


# ------------------------------------------------------------------ the turn (SHB-5..SHB-7)
@njit(cache=True)
def _n_sources(state):
    """Number of legal sources: the offer cards, plus the pile if it holds 2 or more."""
    return state[S_OFFER] + (1 if state[S_PILE] >= 2 else 0)


@njit(cache=True)
def _source_at(state, j):
    """The j-th legal source: offer index j, or DRAW after the offer."""
    if j < state[S_OFFER]:
        return j
    return DRAW


@njit(cache=True)
def _take(state, src):
    """The mover takes from the offer (src = index) or draws two (src = DRAW): cards go to HELD."""
    seat = state[S_SEAT]
    state[HELD0] = state[HAND0 + seat]
    state[HAND0 + seat] = -1
    state[S_SRC] = src
    if src == DRAW:
        p = state[S_PILE]
        state[HELD0 + 1] = state[PILE0 + p - 1]
        state[HELD0 + 2] = state[PILE0 + p - 2]
        state[PILE0 + p - 1] = -1
        state[PILE0 + p - 2] = -1
        state[S_PILE] = p - 2
        state[S_NHELD] = 3
        state[S_RET] = -1
    else:
        state[HELD0 + 1] = state[OFFER0 + src]
        state[HELD0 + 2] = -1
        state[S_NHELD] = 2
        p = state[S_PILE]
        if p > 0:
            state[OFFER0 + src] = state[PILE0 + p - 1]
            state[PILE0 + p - 1] = -1
            state[S_PILE] = p - 1
            state[S_RET] = -1
        else:
            n = state[S_OFFER]
            for j in range(src, n - 1):
                state[OFFER0 + j] = state[OFFER0 + j + 1]
            state[OFFER0 + n - 1] = -1
            state[S_OFFER] = n - 1


@njit(cache=True)
def _finish(state, place_i, cell, ret_i):
    """Place held card place_i on cell; with three held, put held card ret_i back on the pile;
    keep the last; pass the turn clockwise."""
    seat = state[S_SEAT]
    _place(state, seat, state[HELD0 + place_i], cell)
    nh = state[S_NHELD]
    if nh == 3:
        p = state[S_PILE]
        state[PILE0 + p] = state[HELD0 + ret_i]
        state[S_PILE] = p + 1
        state[S_RET] = seat
        keep = 3 - place_i - ret_i
    else:
        keep = 1 - place_i
    state[HAND0 + seat] = state[HELD0 + keep]
    for j in range(3):
        state[HELD0 + j] = -1
    state[S_NHELD] = 0
    state[S_SRC] = -1
    state[S_TURN] += 1
    state[S_SEAT] = (seat + 1) % state[S_NP]


# ------------------------------------------------------------------ information (SHB-14)
@njit(cache=True)
def _observe(state, seat, obs):
    """What ``seat`` knows, in the state's layout: the pile's cards are -1 (only the
    count is known) except a top card this seat put back; other hands are -1."""
    for j in range(PILE0):
        obs[j] = state[j]
    for j in range(OFFER0, STATE_LEN):
        obs[j] = state[j]
    # the pile region of obs holds -1 except, at most, a known top card left from an
    # earlier observation; the pile changes by at most two cards between observations
    # (a fresh obs array is cleared once: its last pile slot, never used by a game, is not -1)
    p = state[S_PILE]
    n_clear = MAXD if obs[PILE0 + MAXD - 1] != -1 else min(MAXD, p + 3)
    for j in range(n_clear):
        obs[PILE0 + j] = -1
    if p > 0 and state[S_RET] == seat:
        obs[PILE0 + p - 1] = state[PILE0 + p - 1]
    for s in range(MAXP):
        if s != seat:
            obs[HAND0 + s] = -1
    if state[S_SEAT] != seat:
        for j in range(3):
            obs[HELD0 + j] = -1


# ------------------------------------------------------------------ evaluation for policies
# A placement changes only the line through the placed card, and there only the
# block of adjacent cards it joins: gain = E(new block) - E(block left of it) -
# E(block right of it), for the shelf (and the column under the columns variant).
# E(block) = its points, plus (potential policies) params[L - 2] (open_run2..4) for each run of
# L = 2..4 books with an open end: the place next to that end of the block is
# empty and still inside the feasible frame (SHB-8).


@njit(cache=True)
def _block_eval(attrs, buf, n, points, params, use_pot, open_lo, open_hi):
    """E of the block buf[:n]; open_lo/open_hi: may the block grow at its start/end."""
    total = 0
    pot = 0.0
    for k in range(NKIND):
        run = 1
        start = 0
        for j in range(1, n + 1):
            if j < n and _cont(attrs, buf[j - 1], buf[j], k):
                run += 1
            else:
                total += points[run]
                if use_pot and run >= 2 and run < 5:
                    if (start == 0 and open_lo) or (j == n and open_hi):
                        pot += params[run - 2]
                run = 1
                start = j
    return total + pot


@njit(cache=True)
def _line_gain(obs, base, fixed, cell_of_pos, pos, npos, card, ev, span, buf):
    """Gain along one line (a row: positions are columns; a column: positions are rows).

    cell_of_pos: cell = fixed * cell_of_pos[0] + pos * cell_of_pos[1]; npos places;
    ev = (attrs, points, params, use_pot): how :func:`_block_eval` values a block;
    span = (lo_b, hi_b, lo_a, hi_a): the feasible span of positions before and after placing (SHB-8).
    """
    attrs, points, params, use_pot = ev
    lo_b, hi_b, lo_a, hi_a = span
    # the left block: positions l0..pos-1; the right block pos+1..r1
    l0 = pos
    while l0 - 1 >= 0 and obs[base + fixed * cell_of_pos[0] + (l0 - 1) * cell_of_pos[1]] >= 0:
        l0 -= 1
    r1 = pos
    while r1 + 1 < npos and obs[base + fixed * cell_of_pos[0] + (r1 + 1) * cell_of_pos[1]] >= 0:
        r1 += 1
    n = 0
    for p in range(l0, r1 + 1):
        if p == pos:
            buf[n] = card
        else:
            buf[n] = obs[base + fixed * cell_of_pos[0] + p * cell_of_pos[1]]
        n += 1
    g = _block_eval(attrs, buf, n, points, params, use_pot, l0 - 1 >= lo_a, r1 + 1 <= hi_a)
    if pos > l0:
        g -= _block_eval(attrs, buf, pos - l0, points, params, use_pot, l0 - 1 >= lo_b, pos <= hi_b)
    if r1 > pos:
        for j in range(r1 - pos):
            buf[j] = buf[pos - l0 + 1 + j]
        g -= _block_eval(attrs, buf, r1 - pos, points, params, use_pot, pos >= lo_b, r1 + 1 <= hi_b)
    return g


@njit(cache=True, inline="always")
def _shelf_block(obs, row, c):
    """(first, last) position of the run of occupied cells that a card put at position ``c`` of the
    shelf starting at ``row`` joins (``c`` itself included)."""
    l0 = c
    while l0 > 0 and obs[row + l0 - 1] >= 0:
        l0 -= 1
    r1 = c
    while r1 < GW - 1 and obs[row + r1 + 1] >= 0:
        r1 += 1
    return l0, r1


@njit(cache=True)
def _row_gain_fast(obs, base, r, c, card, aux, nd):
    """Points gained along the shelf by putting card on (r, c): table lookups only (no potential)."""
    row = base + r * GW
    l0, r1 = _shelf_block(obs, row, c)
    n = r1 - l0 + 1
    if n == 1:
        return 0.0
    nl = c - l0
    nr = r1 - c
    c0 = 0
    c1 = 0
    c2 = 0
    c3 = 0
    prev = obs[row + l0] if l0 < c else card
    for p in range(l0 + 1, r1 + 1):
        cur = obs[row + p] if p != c else card
        code = aux[AUX_T + prev * nd + cur]
        j = p - l0 - 1
        if j == 0:
            c0 = code
        elif j == 1:
            c1 = code
        elif j == 2:
            c2 = code
        else:
            c3 = code
        prev = cur
    g = 0
    lmask = (1 << max(nl - 1, 0)) - 1
    for k in range(NKIND):
        bits = ((c0 >> k) & 1) | (((c1 >> k) & 1) << 1) | (((c2 >> k) & 1) << 2) | (((c3 >> k) & 1) << 3)
        g += aux[16 * n + bits]
        if nl > 0:
            g -= aux[16 * nl + (bits & lmask)]
        if nr > 0:
            g -= aux[16 * nr + (bits >> (nl + 1))]
    return float(g)


@njit(cache=True)
def _gain(obs, seat, card, cell, tab, params, use_pot, buf, geom):
    """Change in evaluation when ``card`` goes on ``cell`` of ``seat`` (obs is not changed).

    tab = (attrs, points, columns, aux): the deck's attrs, the points of a run by its length,
    the columns variant (SHB-11) and :func:`_make_aux`'s tables; params: the potential's
    weights (read when ``use_pot``); buf: int64 scratch (>= 8); geom: int64 (4,) scratch for
    the line geometry."""
    attrs, points, columns, aux = tab
    r = cell // GW
    c = cell % GW
    base = GRID0 + seat * NCELL
    b = BB0 + 4 * seat
    if not use_pot and not columns:
        return _row_gain_fast(obs, base, r, c, card, aux, attrs.shape[0])
    if obs[NPL0 + seat] == 0:
        r0 = r
        r1 = r
        c0 = c
        c1 = c
    else:
        r0 = obs[b]
        r1 = obs[b + 1]
        c0 = obs[b + 2]
        c1 = obs[b + 3]
    nr0 = min(r0, r)
    nr1 = max(r1, r)
    nc0 = min(c0, c)
    nc1 = max(c1, c)
    ev = (attrs, points, params, use_pot)
    geom[0] = GW
    geom[1] = 1
    g = _line_gain(obs, base, r, geom, c, GW, card, ev,
                   (max(c1 - 4, 0), min(c0 + 4, GW - 1), max(nc1 - 4, 0), min(nc0 + 4, GW - 1)), buf)
    if columns:
        geom[2] = 1
        geom[3] = GW
        g += _line_gain(obs, base, c, geom[2:], r, GH, card, ev,
                        (max(r1 - 2, 0), min(r0 + 2, GH - 1), max(nr1 - 2, 0), min(nr0 + 2, GH - 1)), buf)
    return g


@njit(cache=True)
def _prep_cells(obs, seat, cells, ncell, aux, nd, pre):
    """Per legal cell, what the greedy gain needs from the shelf around it (once per decision):
    pre[j] = nl, nr, last card of the left block, first of the right block, the left and
    right blocks' continuation bits per kind (6 + 6), their current points (16), and (19, 20)
    the left and right blocks' pair codes packed 8 bits a pair, first pair lowest."""
    base = GRID0 + seat * NCELL
    for j in range(ncell):
        cell = cells[j]
        r = cell // GW
        c = cell % GW
        row = base + r * GW
        l0, r1 = _shelf_block(obs, row, c)
        nl = c - l0
        nr = r1 - c
        pre[j, 0] = nl
        pre[j, 1] = nr
        pre[j, 2] = obs[row + c - 1] if nl > 0 else -1
        pre[j, 3] = obs[row + c + 1] if nr > 0 else -1
        for k in range(2 * NKIND):
            pre[j, 4 + k] = 0
        pre[j, 19] = 0
        pre[j, 20] = 0
        for q in range(l0 + 1, c):
            code = aux[AUX_T + obs[row + q - 1] * nd + obs[row + q]]
            pre[j, 19] |= code << (8 * (q - l0 - 1))
            for k in range(NKIND):
                pre[j, 4 + k] |= ((code >> k) & 1) << (q - l0 - 1)
        for q in range(c + 2, r1 + 1):
            code = aux[AUX_T + obs[row + q - 1] * nd + obs[row + q]]
            pre[j, 20] |= code << (8 * (q - c - 2))
            for k in range(NKIND):
                pre[j, 10 + k] |= ((code >> k) & 1) << (q - c - 2)
        sub = 0
        for k in range(NKIND):
            if nl > 0:
                sub += aux[16 * nl + pre[j, 4 + k]]
            if nr > 0:
                sub += aux[16 * nr + pre[j, 10 + k]]
        pre[j, 16] = sub


@njit(cache=True, inline="always")
def _block_points(w, n, aux):
    """Points of a block of n <= 5 adjacent books (one shelf, SHB-10) from its pair codes w
    packed 8 bits a pair (first pair lowest): the run counting of :func:`_line5_points`
    on one lane, the points of a run read back from :func:`_make_aux`'s tables."""
    m = np.uint64(0xFF)
    full = np.uint64(0x3F)
    z = np.uint64(0)
    return _line5_points(w & m, (w >> np.uint64(8)) & m, (w >> np.uint64(16)) & m, (w >> np.uint64(24)) & m, full,
                         (full, full if n > 1 else z, full if n > 2 else z, full if n > 3 else z,
                          full if n > 4 else z), (aux[16], aux[33], aux[51], aux[71], aux[95]))


@njit(cache=True)
def _best_place_pre(card, cells, ncell, pre, aux, nd):
    """Greedy (points only, shelves only) best (gain, cell) for card from :func:`_prep_cells`;
    the same values and ties as :func:`_best_place`.  The joined block's pair codes are the
    left block's, the two the card makes and the right block's, scored all kinds at once by
    :func:`_block_points`."""
    best = -1e300
    bc = cells[0]
    for j in range(ncell):
        nl = pre[j, 0]
        nr = pre[j, 1]
        if nl == 0 and nr == 0:
            g = 0.0
        else:
            w = np.uint64(pre[j, 19]) | (np.uint64(pre[j, 20]) << np.uint64(8 * (nl + 1)))
            if nl > 0:
                w |= np.uint64(aux[AUX_T + pre[j, 2] * nd + card]) << np.uint64(8 * (nl - 1))
            if nr > 0:
                w |= np.uint64(aux[AUX_T + card * nd + pre[j, 3]]) << np.uint64(8 * nl)
            g = float(_block_points(w, nl + 1 + nr, aux) - pre[j, 16])
        if g > best + 1e-9:
            best = g
            bc = cells[j]
    return best, bc


@njit(cache=True)
def _prep_cells_pot(obs, seat, cells, ncell, tab, pp, pre, pref, buf):
    """:func:`_prep_cells` plus what the potential needs: pre[j, 17..18] whether the joined
    block may grow at its start / end after the placement, pref[j] the left and right
    blocks' current evaluations (points + potential weights ``pp``); tab as in :func:`_gain`."""
    attrs, points, _, aux = tab
    _prep_cells(obs, seat, cells, ncell, aux, attrs.shape[0], pre)
    base = GRID0 + seat * NCELL
    b = BB0 + 4 * seat
    for j in range(ncell):
        cell = cells[j]
        r = cell // GW
        c = cell % GW
        row = base + r * GW
        if obs[NPL0 + seat] == 0:
            c0 = c
            c1 = c
        else:
            c0 = obs[b + 2]
            c1 = obs[b + 3]
        lo_b = max(c1 - 4, 0)
        hi_b = min(c0 + 4, GW - 1)
        lo_a = max(max(c1, c) - 4, 0)
        hi_a = min(min(c0, c) + 4, GW - 1)
        nl = pre[j, 0]
        nr = pre[j, 1]
        l0 = c - nl
        r1 = c + nr
        pre[j, 17] = 1 if l0 - 1 >= lo_a else 0
        pre[j, 18] = 1 if r1 + 1 <= hi_a else 0
        pref[j, 0] = 0.0
        pref[j, 1] = 0.0
        if nl > 0:
            for q in range(nl):
                buf[q] = obs[row + l0 + q]
            pref[j, 0] = _block_eval(attrs, buf, nl, points, pp, True, l0 - 1 >= lo_b, c <= hi_b)
        if nr > 0:
            for q in range(nr):
                buf[q] = obs[row + c + 1 + q]
            pref[j, 1] = _block_eval(attrs, buf, nr, points, pp, True, c >= lo_b, r1 + 1 <= hi_b)


@njit(cache=True)
def _best_place_pot(card, cells, ncell, pre, pref, aux, nd, pp):
    """Potential-policy best (gain, cell) from :func:`_prep_cells_pot` (shelves only); the same
    values, in the same floating-point order, as :func:`_best_place` with the potential."""
    best = -1e300
    bc = cells[0]
    for j in range(ncell):
        nl = pre[j, 0]
        nr = pre[j, 1]
        n = nl + 1 + nr
        open_lo = pre[j, 17] == 1
        open_hi = pre[j, 18] == 1
        cl = aux[AUX_T + pre[j, 2] * nd + card] if nl > 0 else 0
        cr = aux[AUX_T + card * nd + pre[j, 3]] if nr > 0 else 0
        total = 0
        pot = 0.0
        for k in range(NKIND):
            bits = pre[j, 4 + k] | (pre[j, 10 + k] << (nl + 1))
            if nl > 0:
                bits |= ((cl >> k) & 1) << (nl - 1)
            if nr > 0:
                bits |= ((cr >> k) & 1) << nl
            total += aux[16 * n + bits]
            f = 1
            while f < n and (bits >> (f - 1)) & 1:
                f += 1
            if f == n:
                if n >= 2 and n < 5 and (open_lo or open_hi):
                    pot += pp[n - 2]
            else:
                if f >= 2 and f < 5 and open_lo:
                    pot += pp[f - 2]
                L = 1
                while L < n and (bits >> (n - 1 - L)) & 1:
                    L += 1
                if L >= 2 and L < 5 and open_hi:
                    pot += pp[L - 2]
        g = total + pot
        if nl > 0:
            g -= pref[j, 0]
        if nr > 0:
            g -= pref[j, 1]
        if g > best + 1e-9:
            best = g
            bc = cells[j]
    return best, bc


@njit(cache=True)
def _best_place(obs, seat, card, cells, ncell, tab, params, use_pot, buf, geom):
    """Best (gain, cell) for ``card`` among cells[:ncell] (:func:`_gain`, same arguments); ties go to
    the lowest cell."""
    best = -1e300
    bc = cells[0]
    for j in range(ncell):
        g = _gain(obs, seat, card, cells[j], tab, params, use_pot, buf, geom)
        if g > best + 1e-9:
            best = g
            bc = cells[j]
    return best, bc


# ------------------------------------------------------------------ the rollout policy
# P_ROLLOUT: params = (draw_below, open_run2, open_run3, open_run4, rollouts R, candidates K).
# Each decision samples R determinizations (the unseen cards in a random order, drawn
# from the game's stream) and scores every candidate on the same R samples (common
# random numbers inside the decision).  A candidate is played out to the end of the
# player's own tableau: each remaining turn offers the kept card and the next two
# cards of the sample, placed greedily; the value is the finished tableau's score.
# Source candidates: every offer card and the blind draw (this turn placed by the
# potential rule).  Placement candidates: the K best (card, place) pairs by potential.


@njit(cache=True)
def _unseen(obs, seat, out):
    """Cards ``seat`` has not seen (ascending): not on any tableau, not in the offer, not
    in its hand or held; returns the count."""
    n_deck = obs[S_NDECK]
    seen = np.zeros(n_deck, dtype=np.bool_)
    for s in range(obs[S_NP]):
        for c in range(NCELL):
            x = obs[GRID0 + s * NCELL + c]
            if x >= 0:
                seen[x] = True
    for j in range(obs[S_OFFER]):
        seen[obs[OFFER0 + j]] = True
    if obs[HAND0 + seat] >= 0:
        seen[obs[HAND0 + seat]] = True
    for j in range(3):
        if obs[HELD0 + j] >= 0:
            seen[obs[HELD0 + j]] = True
    n = 0
    for x in range(n_deck):
        if not seen[x]:
            out[n] = x
            n += 1
    return n


@njit(cache=True)
def _grid_points(sim, seat, aux, nd, points, columns, tab):
    """Points of seat's grid as it stands (rows, and columns under the columns variant).

    The cards lie inside the feasible frame of 3 shelves x 5 places (SHB-8), so the
    frame's window from the top left of their bounding box is copied to tab int64 (>= 15,
    scratch; -1 for an empty place) and scored by :func:`_score_fast` with the pair codes
    that :func:`_make_aux` keeps at ``AUX_T + nd * nd`` (empty places end runs); the same
    total as scoring every line of the 9 x 5 grid."""
    if sim[NPL0 + seat] == 0:
        return 0
    base = GRID0 + seat * NCELL
    b = BB0 + 4 * seat
    r0 = sim[b]
    c0 = sim[b + 2]
    for i in range(3):
        for j in range(5):
            r = r0 + i
            c = c0 + j
            tab[5 * i + j] = sim[base + r * GW + c] if r < GH and c < GW else -1
    return _score_fast(tab, aux[AUX_T + nd * nd:], np.uint64(nd + 1), points, columns)


@njit(cache=True, inline="always")
def _kept(gains, cards, n, placed):
    """The card kept in hand after placing cards[placed]: among the others of cards[:n], the first whose
    gain beats every earlier one by more than 1e-9 (the greedy rule's tie tolerance); -1 if none."""
    keep = -1
    kg = -1e300
    for i in range(n):
        if i != placed and gains[i] > kg + 1e-9:
            kg = gains[i]
            keep = cards[i]
    return keep


@njit(cache=True)
def _playout(sim, seat, hand, upcoming, tab, scratch):
    """Finish seat's tableau: each turn the kept card and seq[k], seq[k + 1]; greedy.  Returns
    the finished tableau's points.

    Args:
        upcoming: ``(seq, n, k)``: the sampled order of the unseen cards, seq[k:n] still to come.
        tab: ``(attrs, points, columns, aux)``, as :func:`_gain`.
        scratch: ``(buf, geom, cells, line)``: int64 scratch of >= 8, 4, NCELL and 15.
    """
    seq, n, k = upcoming
    attrs, points, columns, aux = tab
    buf, geom, cells, line = scratch
    zero = np.zeros(NPARAM)
    nd = attrs.shape[0]
    pre = np.empty((NCELL, NPRE), dtype=np.int64)
    cand = np.empty(3, dtype=np.int64)
    gains = np.empty(3)
    while sim[NPL0 + seat] < 15:
        m = 0
        if hand >= 0:
            cand[m] = hand
            m += 1
        for j in range(2):
            if k < n:
                cand[m] = seq[k]
                m += 1
                k += 1
        if m == 0:
            break
        ncell = _legal_cells(sim, seat, cells)
        best = -1e300
        bi = 0
        bc = cells[0]
        if columns == 0:
            _prep_cells(sim, seat, cells, ncell, aux, nd, pre)
        for i in range(m):
            if columns == 0:
                g, c = _best_place_pre(cand[i], cells, ncell, pre, aux, nd)
            else:
                g, c = _best_place(sim, seat, cand[i], cells, ncell, tab, zero, False, buf, geom)
            gains[i] = g
            if g > best + 1e-9:
                best = g
                bi = i
                bc = c
        _place(sim, seat, cand[bi], bc)
        hand = _kept(gains, cand, m, bi)
    return _grid_points(sim, seat, aux, nd, points, columns, line)


@njit(cache=True)
def _turn_then_playout(obs, sim, seat, held, nh, upcoming, tab, pp, scratch):
    """This turn placed by the potential rule (weights ``pp``) from held[:nh], then the playout
    (:func:`_playout`: ``upcoming``, ``tab`` and ``scratch`` as there) in ``sim``."""
    buf, geom, cells, _ = scratch
    for j in range(STATE_LEN):
        sim[j] = obs[j]
    ncell = _legal_cells(sim, seat, cells)
    gains = np.empty(3)
    best = -1e300
    bi = 0
    bc = cells[0]
    for i in range(nh):
        g, c = _best_place(sim, seat, held[i], cells, ncell, tab, pp, True, buf, geom)
        gains[i] = g
        if g > best + 1e-9:
            best = g
            bi = i
            bc = c
    _place(sim, seat, held[bi], bc)
    keep = _kept(gains, held, nh, bi)
    return _playout(sim, seat, keep, upcoming, tab, scratch)


@njit(cache=True)
def _rollout_source(params, obs, tab, st):
    """The rollout policy's first decision: (source, stream state); tab as in :func:`_gain`."""
    seat = obs[S_SEAT]
    pp = params[1:]
    R = max(1, int(params[4]))
    U = np.empty(MAXD, dtype=np.int64)
    nU = _unseen(obs, seat, U)
    seq = np.empty(MAXD, dtype=np.int64)
    sim = np.empty(STATE_LEN, dtype=np.int16)
    scratch = (np.empty(8, dtype=np.int64), np.empty(4, dtype=np.int64), np.empty(NCELL, dtype=np.int64),
               np.empty(15, dtype=np.int64))
    held = np.empty(3, dtype=np.int64)
    n_src = _n_sources(obs)
    values = np.zeros(OFFER_MAX + 1)
    for r in range(R):
        for j in range(nU):
            seq[j] = U[j]
        st = shuffle_inplace(seq[:nU], st)
        for si in range(n_src):
            src = _source_at(obs, si)
            held[0] = obs[HAND0 + seat]
            if src == DRAW:
                held[1] = seq[0]
                held[2] = seq[1]
                v = _turn_then_playout(obs, sim, seat, held, 3, (seq, nU, 2), tab, pp, scratch)
            else:
                held[1] = obs[OFFER0 + src]
                v = _turn_then_playout(obs, sim, seat, held, 2, (seq, nU, 0), tab, pp, scratch)
            values[si] += v
    best = -1e300
    bs = 0
    for si in range(n_src):
        if values[si] > best + 1e-9:
            best = values[si]
            bs = si
    return _source_at(obs, bs), st


@njit(cache=True)
def _rollout_place(params, obs, tab, st):
    """The rollout policy's second decision: (held index, cell, held index put back or -1, stream);
    tab as in :func:`_gain`."""
    seat = obs[S_SEAT]
    nh = obs[S_NHELD]
    pp = params[1:]
    R = max(1, int(params[4]))
    K = min(16, max(1, int(params[5])))
    buf = np.empty(8, dtype=np.int64)
    geom = np.empty(4, dtype=np.int64)
    cells = np.empty(NCELL, dtype=np.int64)
    line = np.empty(15, dtype=np.int64)
    ncell = _legal_cells(obs, seat, cells)
    # the K best (card, place) pairs by potential, stable in enumeration order
    top_g = np.empty(16)
    top_i = np.empty(16, dtype=np.int64)
    top_c = np.empty(16, dtype=np.int64)
    nt = 0
    for i in range(nh):
        for j in range(ncell):
            g = _gain(obs, seat, obs[HELD0 + i], cells[j], tab, pp, True, buf, geom)
            pos = nt
            while pos > 0 and top_g[pos - 1] < g:
                pos -= 1
            if pos < K:
                last = min(nt, K - 1)
                for q in range(last, pos, -1):
                    top_g[q] = top_g[q - 1]
                    top_i[q] = top_i[q - 1]
                    top_c[q] = top_c[q - 1]
                top_g[pos] = g
                top_i[pos] = i
                top_c[pos] = cells[j]
                if nt < K:
                    nt += 1
    # what each candidate keeps (three held: the better next placement, as the greedy rule)
    keep = np.empty(16, dtype=np.int64)
    ret = np.empty(16, dtype=np.int64)
    sim = np.empty(STATE_LEN, dtype=np.int16)
    cells2 = np.empty(NCELL, dtype=np.int64)
    for t in range(nt):
        bi = top_i[t]
        if nh == 2:
            keep[t] = 1 - bi
            ret[t] = -1
        else:
            a = 1 if bi == 0 else 0
            b = 3 - bi - a
            for q in range(STATE_LEN):
                sim[q] = obs[q]
            _place(sim, seat, obs[HELD0 + bi], top_c[t])
            n2 = _legal_cells(sim, seat, cells2)
            ga, _ = _best_place(sim, seat, obs[HELD0 + a], cells2, n2, tab, pp, True, buf, geom)
            gb, _ = _best_place(sim, seat, obs[HELD0 + b], cells2, n2, tab, pp, True, buf, geom)
            if ga >= gb - 1e-9:
                keep[t] = a
                ret[t] = b
            else:
                keep[t] = b
                ret[t] = a
    U = np.empty(MAXD, dtype=np.int64)
    nU = _unseen(obs, seat, U)
    seq = np.empty(MAXD, dtype=np.int64)
    values = np.zeros(16)
    for r in range(R):
        for j in range(nU):
            seq[j] = U[j]
        st = shuffle_inplace(seq[:nU], st)
        for t in range(nt):
            for q in range(STATE_LEN):
                sim[q] = obs[q]
            _place(sim, seat, obs[HELD0 + top_i[t]], top_c[t])
            values[t] += _playout(sim, seat, obs[HELD0 + keep[t]], (seq, nU, 0), tab, (buf, geom, cells2, line))
    best = -1e300
    bt = 0
    for t in range(nt):
        if values[t] > best + 1e-9:
            best = values[t]
            bt = t
    return top_i[bt], top_c[bt], ret[bt], st


# ------------------------------------------------------------------ policies (SHB-14)
@njit(cache=True)
def _workspace():
    """Scratch space for the policies' decisions, made once per game: (wsi, pre, pref)."""
    return (np.zeros(WS_LEN, dtype=np.int64), np.zeros((NCELL, NPRE), dtype=np.int64),
            np.zeros((NCELL, 2)))


@njit(cache=True)
def _choose_source(kind, params, obs, tab, st, ws):
    """The first decision of a turn, from the observation only; returns (src, stream state).

    tab = (attrs, points, columns, aux): the rules a policy scores by (see :func:`_gain`);
    ws = (wsi int64 (WS_LEN,), pre int64 (NCELL, NPRE), pref float64 (NCELL, 2)): scratch space
    (see :func:`_workspace`), reused so a decision allocates nothing."""
    seat = obs[S_SEAT]
    if kind == P_RANDOM:
        j, st = next_below(st, _n_sources(obs))
        return _source_at(obs, j), st
    if kind == P_ROLLOUT:
        return _rollout_source(params, obs, tab, st)
    attrs, _, columns, aux = tab
    wsi, pre, pref = ws
    use_pot = kind == P_POTENTIAL
    pp = params[1:]
    cells = wsi[:NCELL]
    buf = wsi[NCELL:NCELL + 8]
    geom = wsi[NCELL + 8:NCELL + 12]
    ncell = _legal_cells(obs, seat, cells)
    hand = obs[HAND0 + seat]
    best = -1e300
    bsrc = 0
    fast = (not use_pot) and columns == 0
    fpot = use_pot and columns == 0
    nd = attrs.shape[0]
    # the second decision of this turn sees the same shelves: it may reuse these places
    wsi[WS_STAMP] = 1 + obs[S_TURN]
    wsi[WS_NCELL] = ncell
    if fast:
        _prep_cells(obs, seat, cells, ncell, aux, nd, pre)
        gh, _ = _best_place_pre(hand, cells, ncell, pre, aux, nd)
    elif fpot:
        _prep_cells_pot(obs, seat, cells, ncell, tab, pp, pre, pref, buf)
        gh, _ = _best_place_pot(hand, cells, ncell, pre, pref, aux, nd, pp)
    else:
        gh, _ = _best_place(obs, seat, hand, cells, ncell, tab, pp, use_pot, buf, geom)
    for j in range(obs[S_OFFER]):
        if fast:
            g, _ = _best_place_pre(obs[OFFER0 + j], cells, ncell, pre, aux, nd)
        elif fpot:
            g, _ = _best_place_pot(obs[OFFER0 + j], cells, ncell, pre, pref, aux, nd, pp)
        else:
            g, _ = _best_place(obs, seat, obs[OFFER0 + j], cells, ncell, tab, pp, use_pot, buf, geom)
        g = max(g, gh)
        if g > best + 1e-9:
            best = g
            bsrc = j
    if obs[S_PILE] >= 2 and (obs[S_OFFER] == 0 or best < params[0]):
        return DRAW, st
    return bsrc, st


@njit(cache=True)
def _choose_place(kind, params, obs, tab, st, ws):
    """The second decision: (held index to place, cell, held index to put back or -1, stream);
    ``tab`` and ``ws`` as in :func:`_choose_source`."""
    attrs, _, columns, aux = tab
    wsi, pre, pref = ws
    seat = obs[S_SEAT]
    nh = obs[S_NHELD]
    cells = wsi[:NCELL]
    same_turn = wsi[WS_STAMP] == 1 + obs[S_TURN]
    if same_turn:
        ncell = wsi[WS_NCELL]
    else:
        ncell = _legal_cells(obs, seat, cells)
    wsi[WS_STAMP] = 0
    if kind == P_RANDOM:
        pi, st = next_below(st, nh)
        cj, st = next_below(st, ncell)
        ri = -1
        if nh == 3:
            rj, st = next_below(st, 2)
            ri = rj if rj < pi else rj + 1
        return pi, cells[cj], ri, st
    if kind == P_ROLLOUT:
        return _rollout_place(params, obs, tab, st)
    use_pot = kind == P_POTENTIAL
    pp = params[1:]
    buf = wsi[NCELL:NCELL + 8]
    geom = wsi[NCELL + 8:NCELL + 12]
    best = -1e300
    bi = 0
    bc = cells[0]
    fast = (not use_pot) and columns == 0
    fpot = use_pot and columns == 0
    nd = attrs.shape[0]
    if fast and not same_turn:
        _prep_cells(obs, seat, cells, ncell, aux, nd, pre)
    elif fpot and not same_turn:
        _prep_cells_pot(obs, seat, cells, ncell, tab, pp, pre, pref, buf)
    for i in range(nh):
        if fast:
            g, c = _best_place_pre(obs[HELD0 + i], cells, ncell, pre, aux, nd)
        elif fpot:
            g, c = _best_place_pot(obs[HELD0 + i], cells, ncell, pre, pref, aux, nd, pp)
        else:
            g, c = _best_place(obs, seat, obs[HELD0 + i], cells, ncell, tab, pp, use_pot, buf, geom)
        if g > best + 1e-9:
            best = g
            bi = i
            bc = c
    ri = -1
    if nh == 3:
        # keep the card with the better best placement after this one
        a = 1 if bi == 0 else 0
        b = 3 - bi - a
        _place(obs, seat, obs[HELD0 + bi], bc)
        ncell2 = _legal_cells(obs, seat, cells)
        if fast:
            _prep_cells(obs, seat, cells, ncell2, aux, nd, pre)
            ga, _ = _best_place_pre(obs[HELD0 + a], cells, ncell2, pre, aux, nd)
            gb, _ = _best_place_pre(obs[HELD0 + b], cells, ncell2, pre, aux, nd)
        elif fpot:
            _prep_cells_pot(obs, seat, cells, ncell2, tab, pp, pre, pref, buf)
            ga, _ = _best_place_pot(obs[HELD0 + a], cells, ncell2, pre, pref, aux, nd, pp)
            gb, _ = _best_place_pot(obs[HELD0 + b], cells, ncell2, pre, pref, aux, nd, pp)
        else:
            ga, _ = _best_place(obs, seat, obs[HELD0 + a], cells, ncell2, tab, pp, use_pot, buf, geom)
            gb, _ = _best_place(obs, seat, obs[HELD0 + b], cells, ncell2, tab, pp, use_pot, buf, geom)
        ri = b if ga >= gb - 1e-9 else a
    return bi, bc, ri, st


@njit(cache=True)
def _offer_vs_draw(state, seat, tab, ovd):
    """The simulator's hindsight at one turn: the best immediate score gain from the best
    offer card against that from the two cards really on top of the pile (SHB-5, SHB-6).

    Adds to ovd: [0] turns, [1] offer better, [2] equal, [3] draw better, [4] offer gain,
    [5] draw gain.  Uses the true pile, so it is a measurement, never a policy input; tab as in
    :func:`_gain`."""
    cells = np.empty(NCELL, dtype=np.int64)
    buf = np.empty(8, dtype=np.int64)
    geom = np.empty(4, dtype=np.int64)
    pp = np.zeros(NPARAM)
    ncell = _legal_cells(state, seat, cells)
    g_hand, _ = _best_place(state, seat, state[HAND0 + seat], cells, ncell, tab, pp, False, buf, geom)
    g_offer = g_hand
    for j in range(state[S_OFFER]):
        g, _ = _best_place(state, seat, state[OFFER0 + j], cells, ncell, tab, pp, False, buf, geom)
        g_offer = max(g_offer, g)
    p = state[S_PILE]
    g_draw = g_hand
    for j in range(2):
        g, _ = _best_place(state, seat, state[PILE0 + p - 1 - j], cells, ncell, tab, pp, False, buf, geom)
        g_draw = max(g_draw, g)
    ovd[0] += 1.0
    if g_offer > g_draw + 1e-9:
        ovd[1] += 1.0
    elif g_draw > g_offer + 1e-9:
        ovd[3] += 1.0
    else:
        ovd[2] += 1.0
    ovd[4] += g_offer
    ovd[5] += g_draw


# ------------------------------------------------------------------ a whole game (SHB-3..SHB-12)
@njit(cache=True)
def _play(state, obs, n_players, n_deck, tab, kinds, params, st, rec):
    """Play one game to the end; returns the stream state.

    tab = (attrs, points, columns, aux): the deck's attrs, the points of a run by its length,
    the columns variant (SHB-11) and :func:`_make_aux`'s tables.
    kinds int64 (n_players,), params float64 (n_players, NPARAM): each seat's policy.
    rec = (trace, ntrace, srcs, track, ovd), what the game records: trace int64 (15 * n_players, 8)
    or (0, 8): per turn seat, src, held0..2, placed card, cell, returned card (-1 if none); written
    when ntrace is true.  srcs int64 (MAXP, 2): adds each seat's offer turns (column 0) and draw
    turns (column 1).  track: when true, adds to ovd float64 (NGLOBAL,) the comparison of
    :func:`_offer_vs_draw` at every turn where both options are open.
    """
    trace, ntrace, srcs, track, ovd = rec
    st = _setup(state, n_players, n_deck, tab[0], st)
    ws = _workspace()
    n_turns = 15 * n_players
    for t in range(n_turns):
        seat = state[S_SEAT]
        if track and state[S_PILE] >= 2 and state[S_OFFER] > 0:
            _offer_vs_draw(state, seat, tab, ovd)
        _observe(state, seat, obs)
        src, st = _choose_source(kinds[seat], params[seat], obs, tab, st, ws)
        _take(state, src)
        srcs[seat, 1 if src == DRAW else 0] += 1
        _observe(state, seat, obs)
        pi, cell, ri, st = _choose_place(kinds[seat], params[seat], obs, tab, st, ws)
        if ntrace:
            trace[t, 0] = seat
            trace[t, 1] = src
            trace[t, 2] = state[HELD0]
            trace[t, 3] = state[HELD0 + 1]
            trace[t, 4] = state[HELD0 + 2]
            trace[t, 5] = state[HELD0 + pi]
            trace[t, 6] = cell
            trace[t, 7] = state[HELD0 + ri] if ri >= 0 else -1
        _finish(state, pi, cell, ri)
    return st


@njit(cache=True)
def _final_scores(state, n_players, attrs, points, columns, scores, kinds_out):
    """Scores (n_players,) and per-kind points (n_players, NKIND) of a finished game."""
    tab = np.empty(15, dtype=np.int64)
    for s in range(n_players):
        _tableau(state, s, tab)
        scores[s] = _score_tableau(tab, attrs, points, columns, kinds_out[s])


@njit(cache=True)
def _win_shares(scores, kinds_out, n_players, tiebreak, shares):
    """Win shares (SHB-12): equal shares among the best; tiebreak 1 removes, among
    them, those with fewer sequence points than the most."""
    best = scores[0]
    for s in range(1, n_players):
        best = max(best, scores[s])
    seqbest = -1
    for s in range(n_players):
        shares[s] = 0.0
        if scores[s] == best:
            q = kinds_out[s, 2] + kinds_out[s, 3] + kinds_out[s, 4] + kinds_out[s, 5]
            seqbest = max(seqbest, q)
    n = 0
    for s in range(n_players):
        if scores[s] == best:
            q = kinds_out[s, 2] + kinds_out[s, 3] + kinds_out[s, 4] + kinds_out[s, 5]
            if tiebreak == 0 or q == seqbest:
                shares[s] = 1.0
                n += 1
    for s in range(n_players):
        shares[s] /= n


@njit(cache=True)
def _play_traced(key, g, rules, attrs, points, kinds, params, out):
    """Game ``g`` of the chunk with ``key``, with its full record; returns the final state.

    Args:
        rules: int64, read at R_NP, R_NDECK, R_COLUMNS and R_TIEBREAK (the step interface's rules
            array, or its first four entries); attrs int64 (n_deck, 4), points int64 (6,).
        kinds int64 (n_players,), params float64 (n_players, NPARAM): each seat's policy.
        out: ``(deal, trace, scores, kinds_out, shares)`` written: deal int64 (n_deck,) = the
            shuffled pile order (last = top), trace int64 (15 * n_players, 8) as :func:`_play`,
            scores int64 (n_players,), per-kind points int64 (n_players, NKIND), win shares float64
            (n_players,) (SHB-12).
    """
    n_players = rules[R_NP]
    n_deck = rules[R_NDECK]
    columns = rules[R_COLUMNS]
    deal, trace, scores, kinds_out, shares = out
    state = np.zeros(STATE_LEN, dtype=np.int16)
    obs = np.zeros(STATE_LEN, dtype=np.int16)
    st = game_state(key, g)
    deck = np.arange(n_deck)
    shuffle_inplace(deck, st)
    for j in range(n_deck):
        deal[j] = deck[j]
    srcs = np.zeros((MAXP, 2), dtype=np.int64)
    aux = _make_aux(attrs, points)
    ovd = np.zeros(NGLOBAL)
    _play(state, obs, n_players, n_deck, (attrs, points, columns, aux), kinds, params, st,
          (trace, True, srcs, False, ovd))
    _final_scores(state, n_players, attrs, points, columns, scores, kinds_out)
    _win_shares(scores, kinds_out, n_players, rules[R_TIEBREAK], shares)
    return state


@njit(cache=True, parallel=True)
def _simulate(keys, starts, stops, rules, attrs, points, cfg_kinds, cfg_params, track, out):
    """Monte Carlo over configurations played on the same deals (common random numbers).

    rules int64, read at R_NP, R_NDECK, R_COLUMNS and R_TIEBREAK (the step interface's rules
    array, or its first four entries); attrs int64 (n_deck, 4), points int64 (6,).
    cfg_kinds int64 (n_cfg, n_players), cfg_params float64 (n_cfg, n_players, NPARAM).
    out float64 (n_chunks, n_cfg, W) with W = MAXP * NSEATSTAT + MAXP * NPOSSTAT +
    HBINS * MAXP + n_cfg + NGLOBAL: per seat (index) score sum, square, win share,
    points per kind, offer turns, draw turns; per turn position (0 = the starting
    player) score sum, square, win share; a score histogram per seat; the sum of the
    products of the table mean score with every configuration's (paired CIs); then
    (with track) the NGLOBAL offer-versus-draw counts of :func:`_offer_vs_draw`.
    """
    n_players = rules[R_NP]
    n_deck = rules[R_NDECK]
    columns = rules[R_COLUMNS]
    tiebreak = rules[R_TIEBREAK]
    n_cfg = cfg_kinds.shape[0]
    tab = (attrs, points, columns, _make_aux(attrs, points))
    o_pos = MAXP * NSEATSTAT
    o_hist = o_pos + MAXP * NPOSSTAT
    o_cross = o_hist + HBINS * MAXP
    for i in prange(keys.shape[0]):
        state = np.zeros(STATE_LEN, dtype=np.int16)
        obs = np.zeros(STATE_LEN, dtype=np.int16)
        scores = np.zeros(MAXP, dtype=np.int64)
        kinds_out = np.zeros((MAXP, NKIND), dtype=np.int64)
        shares = np.zeros(MAXP)
        means = np.zeros(n_cfg)
        empty = np.zeros((0, 8), dtype=np.int64)
        srcs = np.zeros((MAXP, 2), dtype=np.int64)
        ovd = np.zeros(NGLOBAL)
        o_glob = o_cross + n_cfg
        for g in range(starts[i], stops[i]):
            for c in range(n_cfg):
                st = game_state(keys[i], g)
                _play(state, obs, n_players, n_deck, tab, cfg_kinds[c], cfg_params[c], st,
                      (empty, False, srcs, track, ovd))
                kinds_out[:, :] = 0
                _final_scores(state, n_players, attrs, points, columns, scores, kinds_out)
                _win_shares(scores, kinds_out, n_players, tiebreak, shares)
                first = state[S_FIRST]
                m = 0.0
                for s in range(n_players):
                    sc = float(scores[s])
                    m += sc
                    b = s * NSEATSTAT
                    out[i, c, b + ST_SCORE] += sc
                    out[i, c, b + ST_SQ] += sc * sc
                    out[i, c, b + ST_WIN] += shares[s]
                    for k in range(NKIND):
                        out[i, c, b + ST_KIND0 + k] += kinds_out[s, k]
                    out[i, c, b + ST_OFFER] += srcs[s, 0]
                    out[i, c, b + ST_DRAW] += srcs[s, 1]
                    srcs[s, 0] = 0
                    srcs[s, 1] = 0
                    pos = (s - first) % n_players
                    pb = o_pos + pos * NPOSSTAT
                    out[i, c, pb] += sc
                    out[i, c, pb + 1] += sc * sc
                    out[i, c, pb + 2] += shares[s]
                    out[i, c, o_hist + s * HBINS + min(scores[s], HBINS - 1)] += 1.0
                means[c] = m / n_players
                if track:
                    for q in range(NGLOBAL):
                        out[i, c, o_glob + q] += ovd[q]
                        ovd[q] = 0.0
            for c in range(n_cfg):
                for d in range(n_cfg):
                    out[i, c, o_cross + d] += means[c] * means[d]


# ------------------------------------------------------------------ the step interface (ludolab.sim.step)
# The step state is int64 (STATE_SIZE,): the whole-game kernels' layout above in
# [0, STATE_LEN), then the game's stream at S_RNG (its uint64 bits).  The rules
# array is int64: R_NP players, R_NDECK cards, R_COLUMNS, R_TIEBREAK, the points of
# a run by its length 0..5 at R_POINTS, then the deck's attrs row by row at R_ATTRS.
S_RNG = STATE_LEN
S_KNOWN0 = S_RNG + 1  # per seat the hand card every player knows (-1: not known), see observe
STATE_SIZE = S_KNOWN0 + MAXP
R_NP, R_NDECK, R_COLUMNS, R_TIEBREAK = 0, 1, 2, 3
R_POINTS = 4
R_ATTRS = R_POINTS + 6
# After the attrs (at R_ATTRS + 4 * n) the rules array built by the face carries the
# lookup tables of _make_aux (aux_len(n) entries), so returns need not rebuild them; a
# rules array without them is still read (returns then builds them on every call).
# A policy's params may carry them too, after its NPARAM values: PX_MARK, the deck size,
# the points (6), the deck's attrs (4 * n) the tables were built for, then the tables'
# int64 bits stored as float64 (see policy_params); act reads them in place when the
# deck and points match those of its observation, and builds them otherwise.
PX_MARK = NPARAM
PX_NDECK = NPARAM + 1
PX_POINTS = NPARAM + 2
PX_ATTRS = PX_POINTS + 6
AUX_MARK = 7.25e9  # no policy parameter: it only marks params that carry the tables
# The observation: the state's layout with what the seat cannot see set to -1, then
# the observing seat and the rules a policy scores by (act reads nothing else).
O_SEAT = STATE_LEN
O_COLUMNS = O_SEAT + 1
O_POINTS = O_SEAT + 2
O_KNOWN0 = O_POINTS + 6
O_ATTRS = O_KNOWN0 + MAXP
OBS_SIZE = O_ATTRS + 4 * MAXD
# Actions: the source (offer index, or DRAW), then the placement.
A_DRAW = DRAW
A_PLACE0 = DRAW + 1
MAX_ACTIONS = A_PLACE0 + 8 * NCELL


@njit(cache=True)
def _rules_deck(rules):
    """(attrs int64 (n, 4), points int64 (6,), columns) of a rules array."""
    n = rules[R_NDECK]
    attrs = np.empty((n, 4), dtype=np.int64)
    for i in range(n):
        for a in range(4):
            attrs[i, a] = rules[R_ATTRS + 4 * i + a]
    return attrs, rules[R_POINTS:R_POINTS + 6].copy(), rules[R_COLUMNS]


@njit(cache=True)
def aux_len(n):
    """The length of :func:`_make_aux`'s tables for a deck of ``n`` cards."""
    return AUX_T + n * n + (n + 1) * (n + 1)


def rules_with_aux(rules):
    """``rules`` (int64, the layout ``R_*`` up to the attrs) with the lookup tables of
    :func:`_make_aux` appended at ``R_ATTRS + 4 * n``: a new int64 array; the rest unchanged."""
    n = int(rules[R_NDECK])
    head = np.ascontiguousarray(rules[:R_ATTRS + 4 * n], dtype=np.int64)
    attrs = np.ascontiguousarray(head[R_ATTRS:].reshape(n, 4))
    aux = _make_aux(attrs, np.ascontiguousarray(head[R_POINTS:R_POINTS + 6]))
    return np.concatenate([head, aux])


def policy_params(params, rules):
    """A policy's float64 parameters (at most NPARAM values) followed by the lookup tables
    of :func:`_make_aux` for the deck and points of ``rules`` (the layout ``PX_*``): float64
    (PX_ATTRS + 4 * n + aux_len(n),).  ``act`` then reads the tables in place instead of
    building them for every decision; its decisions and draws are the same either way.

    Raises:
        ValueError: more than NPARAM parameters."""
    params = np.asarray(params, dtype=np.float64).ravel()
    if params.shape[0] > NPARAM:
        raise ValueError(f"a policy has at most {NPARAM} parameters, not {params.shape[0]}")
    n = int(rules[R_NDECK])
    attrs = np.ascontiguousarray(np.asarray(rules[R_ATTRS:R_ATTRS + 4 * n], dtype=np.int64).reshape(n, 4))
    points = np.ascontiguousarray(rules[R_POINTS:R_POINTS + 6], dtype=np.int64)
    aux = _make_aux(attrs, points)
    out = np.zeros(PX_ATTRS + 4 * n + aux.shape[0])
    out[:params.shape[0]] = params
    out[PX_MARK] = AUX_MARK
    out[PX_NDECK] = n
    out[PX_POINTS:PX_POINTS + 6] = points
    out[PX_ATTRS:PX_ATTRS + 4 * n] = attrs.ravel()
    out[PX_ATTRS + 4 * n:] = aux.view(np.float64)  # the int64 bits, read back by a view
    return out


@njit(cache=True)
def _carries_aux(params, obs):
    """True when ``params`` carry the lookup tables (see ``PX_*``) of the observation's deck and
    points, so ``act`` may read them in place."""
    n = obs[S_NDECK]
    if params.shape[0] < PX_ATTRS + 4 * n + aux_len(n) or params[PX_MARK] != AUX_MARK or params[PX_NDECK] != n:
        return False
    for j in range(6):
        if params[PX_POINTS + j] != obs[O_POINTS + j]:
            return False
    for j in range(4 * n):
        if params[PX_ATTRS + j] != obs[O_ATTRS + j]:
            return False
    return True


@njit(cache=True, inline="always")
def _place_action(place_i, cell, ret_i):
    """The placement action: held card place_i on cell, held card ret_i put back (-1: none)."""
    r = place_i if ret_i < 0 else ret_i
    return A_PLACE0 + (3 * place_i + r) * NCELL + cell


@njit(cache=True)
def new_game(rules, key, state):
    """Set up a game in ``state`` int64 (STATE_SIZE,) from the stream start ``key`` (uint64),
    exactly as the whole-game kernels set up game ``g`` from ``game_state(chunk_key, g)``
    (SHB-3: shuffle, one card per seat, players + 1 face up, the lowest number starts)."""
    attrs, _, _ = _rules_deck(rules)
    st = _setup(state, rules[R_NP], rules[R_NDECK], attrs, np.uint64(key))
    state[S_RNG] = np.int64(st)
    for s in range(MAXP):
        state[S_KNOWN0 + s] = -1


@njit(cache=True)
def is_terminal(state):
    """True once every player has placed 15 cards (SHB-9)."""
    return state[S_TURN] >= 15 * state[S_NP]


@njit(cache=True)
def current_player(state):
    """The seat to act (SHB-4), or -1 once the game is over."""
    if state[S_TURN] >= 15 * state[S_NP]:
        return -1
    return state[S_SEAT]


@njit(cache=True)
def legal_actions(rules, state, out):
    """The legal actions, ascending, into out int64 (MAX_ACTIONS,); returns their count.

    First decision of a turn: the offer indices, then DRAW while the pile holds two
    or more (SHB-5..SHB-7).  Second: every held card on every legal cell (SHB-8),
    with each other held card as the one put back when three are held (SHB-6)."""
    if state[S_TURN] >= 15 * state[S_NP]:
        return 0
    nh = state[S_NHELD]
    if nh == 0:
        n = _n_sources(state)
        for j in range(n):
            out[j] = _source_at(state, j)
        return n
    cells = np.empty(NCELL, dtype=np.int64)
    ncell = _legal_cells(state, state[S_SEAT], cells)
    n = 0
    for p in range(nh):
        for r in range(3):
            if (nh == 2) != (r == p):
                continue
            for j in range(ncell):
                out[n] = A_PLACE0 + (3 * p + r) * NCELL + cells[j]
                n += 1
    return n


@njit(cache=True)
def apply_action(rules, state, action):
    """Play a legal ``action`` of the current player (see the module docstring's encoding).

    No chance follows an action: the pile's order is fixed by the shuffle in new_game."""
    if state[S_NHELD] == 0:
        _take(state, action)
        return
    q = (action - A_PLACE0) // NCELL
    cell = (action - A_PLACE0) % NCELL
    p = q // 3
    r = q % 3
    seat = state[S_SEAT]
    if state[S_NHELD] == 3:
        state[S_KNOWN0 + seat] = -1  # the kept card may be one nobody else has seen
    elif p == 0:
        state[S_KNOWN0 + seat] = state[HELD0 + 1]  # kept the card taken face up from the offer
    _finish(state, p, cell, -1 if r == p else r)


@njit(cache=True)
def observe(rules, state, seat, obs):
    """What ``seat`` knows (SHB-14) into obs int64 (OBS_SIZE,): every placed card, the offer,
    the pile's size, whose turn and its phase, its own hand (and held cards on its turn),
    the top of the pile if it put that card back and nobody has drawn it since, the card
    another player just took from the offer, and every hand card the whole table knows (a
    player who took a card from the offer and placed the other one keeps the taken card;
    it stays known until that player draws two); then the seat, those known hands and the
    rules (O_SEAT, O_COLUMNS, O_POINTS, O_KNOWN0, O_ATTRS).  Other hands and the pile's
    order are -1."""
    obs[PILE0 + MAXD - 1] = 0  # _observe then clears the whole pile region
    _observe(state, seat, obs)
    mover = state[S_SEAT]
    if mover != seat and state[S_NHELD] == 2:
        obs[HELD0 + 1] = state[HELD0 + 1]  # taken face up from the offer (SHB-5)
    for s in range(MAXP):
        k = state[S_KNOWN0 + s]
        obs[O_KNOWN0 + s] = k
        if k >= 0 and s != seat:
            if s == mover and state[S_NHELD] > 0:
                obs[HELD0] = k
            else:
                obs[HAND0 + s] = k
    obs[O_SEAT] = seat
    obs[O_COLUMNS] = rules[R_COLUMNS]
    for j in range(6):
        obs[O_POINTS + j] = rules[R_POINTS + j]
    n = 4 * rules[R_NDECK]
    for j in range(n):
        obs[O_ATTRS + j] = rules[R_ATTRS + j]
    for j in range(n, 4 * MAXD):
        obs[O_ATTRS + j] = 0


@njit(cache=True)
def determinize(rules, obs, seat, key, state):
    """A full state consistent with ``seat``'s observation into ``state`` int64 (STATE_SIZE,).

    The cards ``seat`` has not seen (the pile below a top card it knows, the other
    hands, the cards another player holds unseen mid-turn) are shuffled from the
    stream start ``key`` (uint64) and dealt to those places in a fixed order, so
    every arrangement consistent with the observation is equally likely; the
    state's stream then continues from that shuffle.

    Raises:
        ValueError: if the observation's hidden places do not match its unseen cards."""
    for j in range(STATE_LEN):
        state[j] = obs[j]
    n_deck = obs[S_NDECK]
    n_players = obs[S_NP]
    mover = obs[S_SEAT]
    nh = obs[S_NHELD]
    seen = np.zeros(n_deck, dtype=np.bool_)
    for j in range(PILE0, PILE0 + obs[S_PILE]):  # a known top card
        if obs[j] >= 0:
            seen[obs[j]] = True
    for j in range(OFFER0, GRID0 + n_players * NCELL):  # offer, hands, held, tableaus
        if obs[j] >= 0:
            seen[obs[j]] = True
    unseen = np.empty(n_deck, dtype=np.int64)
    n_u = 0
    for x in range(n_deck):
        if not seen[x]:
            unseen[n_u] = x
            n_u += 1
    st = shuffle_inplace(unseen[:n_u], np.uint64(key))
    k = 0
    for j in range(obs[S_PILE]):
        if obs[PILE0 + j] < 0:
            if k >= n_u:
                raise ValueError("observation has more hidden places than unseen cards")
            state[PILE0 + j] = unseen[k]
            k += 1
    for s in range(n_players):
        if s != seat and not (s == mover and nh > 0) and obs[HAND0 + s] < 0:
            if k >= n_u:
                raise ValueError("observation has more hidden places than unseen cards")
            state[HAND0 + s] = unseen[k]
            k += 1
    if mover != seat:
        for j in range(nh):
            if obs[HELD0 + j] < 0:
                if k >= n_u:
                    raise ValueError("observation has more hidden places than unseen cards")
                state[HELD0 + j] = unseen[k]
                k += 1
    if k != n_u:
        raise ValueError("observation has fewer hidden places than unseen cards")
    state[S_RNG] = np.int64(st)
    for s in range(MAXP):
        state[S_KNOWN0 + s] = obs[O_KNOWN0 + s]


@njit(cache=True)
def returns(rules, state, out):
    """Points of every seat's tableau as it stands into out float64 (n_players,)
    (SHB-10, SHB-11: the final scores once the game is over).  Reads the lookup tables that
    ``shelf.step_rules`` stores after the attrs; a rules array without them is scored line by
    line from the deck's attributes (the same points)."""
    n = rules[R_NDECK]
    o = R_ATTRS + 4 * n
    m = aux_len(n)
    tab = np.empty(15, dtype=np.int64)
    if rules.shape[0] >= o + m:  # the tables the face stored after the attrs: the fast scorer
        aux = rules[o:o + m]
        points = rules[R_POINTS:R_POINTS + 6]
        for s in range(state[S_NP]):
            out[s] = float(_grid_points(state, s, aux, n, points, rules[R_COLUMNS], tab))
        return
    attrs, points, columns = _rules_deck(rules)
    kinds = np.zeros(NKIND, dtype=np.int64)
    for s in range(state[S_NP]):
        # the frame's window from the top left of the cards placed (as _grid_points reads it), scored
        # line by line from the deck's attributes: no table of every pair of the deck is needed
        if state[NPL0 + s] == 0:
            out[s] = 0.0
            continue
        b = BB0 + 4 * s
        for i in range(3):
            for j in range(5):
                r = state[b] + i
                c = state[b + 2] + j
                tab[5 * i + j] = state[GRID0 + s * NCELL + r * GW + c] if r < GH and c < GW else -1
        out[s] = float(_score_tableau(tab, attrs, points, columns, kinds))


@njit(cache=True, inline="always")
def _renumber(view, j, local, cards, m):
    """Give the card at view[j] (if any) its number among the m cards renumbered so far."""
    x = view[j]
    if x >= 0:
        if local[x] < 0:
            local[x] = m
            cards[m] = x
            m += 1
        view[j] = local[x]
    return m


@njit(cache=True)
def act(kind, params, obs, state):
    """The named policy ``kind`` (P_RANDOM, P_GREEDY, P_POTENTIAL, P_ROLLOUT) with float64
    ``params`` (NPARAM,) decides the current decision from ``obs`` alone (SHB-14); its random
    choices advance ``state[S_RNG]`` exactly as in the whole-game kernels.  Returns the action.

    ``params`` may be longer: from :func:`policy_params`, it carries the scoring lookup tables
    for a deck, read in place when that deck and its points are the observation's.  Otherwise the
    tables are built for this decision: for greedy and potential over the few cards they compare
    (renumbered), for rollout over the whole deck (some 100 us for the standard deck); random
    play reads none.
    The action and the draws are the same either way."""
    n = obs[S_NDECK]
    attrs = obs[O_ATTRS:O_ATTRS + 4 * n].reshape((n, 4))  # read in place (act writes nothing to obs)
    points = obs[O_POINTS:O_POINTS + 6]
    columns = obs[O_COLUMNS]
    # the deciders read (and mark places on) a copy in the whole-game kernels' int16 layout,
    # so both run the same compiled code
    view = np.empty(STATE_LEN, dtype=np.int16)
    for j in range(STATE_LEN):
        view[j] = obs[j]
    mover = view[S_SEAT]
    for s in range(MAXP):
        if s != mover:
            view[HAND0 + s] = -1  # the policies decide on what the whole-game kernels show them
    carried = _carries_aux(params, obs)
    if carried:
        aux = params[PX_ATTRS + 4 * n:PX_ATTRS + 4 * n + aux_len(n)].view(np.int64)
    elif kind == P_GREEDY or kind == P_POTENTIAL:
        # these decisions compare only the mover's placed cards and the cards it may place (hand,
        # held, offer): they run on those cards renumbered 0..m-1, with their own small lookup
        # tables, instead of the tables of every pair of the deck (the same decisions, by index)
        local = np.full(n, -1, dtype=np.int64)
        cards = np.empty(NCELL + OFFER_MAX + 4, dtype=np.int64)
        m = 0
        for j in range(GRID0 + mover * NCELL, GRID0 + (mover + 1) * NCELL):
            m = _renumber(view, j, local, cards, m)
        for j in range(OFFER0, OFFER0 + OFFER_MAX):
            m = _renumber(view, j, local, cards, m)
        m = _renumber(view, HAND0 + mover, local, cards, m)
        for j in range(HELD0, HELD0 + 3):
            m = _renumber(view, j, local, cards, m)
        for j in range(PILE0, PILE0 + MAXD):
            view[j] = -1  # not read by these policies (only the pile's size is)
        for s in range(MAXP):
            if s != mover:
                for c in range(NCELL):
                    view[GRID0 + s * NCELL + c] = -1  # nor the other tableaus
        lattrs = np.empty((m, 4), dtype=np.int64)
        for i in range(m):
            for a in range(4):
                lattrs[i, a] = attrs[cards[i], a]
        attrs = lattrs
        aux = _make_aux(attrs, points)
    elif kind == P_RANDOM:
        aux = np.zeros(AUX_T, dtype=np.int64)  # random play reads no lookup table (its draws alone decide)
    else:
        aux = _make_aux(attrs, points)
    ws = _workspace()
    tab = (attrs, points, columns, aux)
    st = np.uint64(state[S_RNG])
    if view[S_NHELD] == 0:
        src, st = _choose_source(kind, params, view, tab, st, ws)
        state[S_RNG] = np.int64(st)
        return np.int64(src)
    pi, cell, ri, st = _choose_place(kind, params, view, tab, st, ws)
    state[S_RNG] = np.int64(st)
    return np.int64(_place_action(pi, cell, ri))


# ------------------------------------------- the shared loops over the step interface
@njit(cache=True)
def running_score(rules, state, out):
    """Each seat's tableau score as it stands (SHB-10, SHB-11) into out; returns the rounds of
    placements complete (the fewest cards any seat has placed)."""
    returns(rules, state, out)
    k = state[NPL0]
    for s in range(1, state[S_NP]):
        k = min(k, state[NPL0 + s])
    return k


@njit(cache=True, nogil=True)
def play_many(rules, inp, out):
    """Whole games of named policies (:func:`ludolab.sim.play.play_games`) on these rules."""
    _loops.play_games(new_game, current_player, legal_actions, apply_action, observe, returns, act, rules, inp, out)


@njit(cache=True, nogil=True)
def play_traced_many(rules, inp, out):
    """Whole games with their running scores (:func:`ludolab.sim.play.play_traced`)."""
    _loops.play_traced(new_game, current_player, apply_action, observe, returns, act, running_score,
                      rules, inp, out)


@njit(cache=True)
def search(rules, inp, work):
    """Determinized search at one decision (:func:`ludolab.sim.search.pimc`) on these rules."""
    return _search.pimc(current_player, legal_actions, apply_action, observe, determinize, returns, act,
                        rules, inp, work)


@njit(cache=True)
def search_tree(rules, inp, work):
    """Information-set MCTS at one decision (:func:`ludolab.sim.search.ismcts`) on these rules."""
    return _search.ismcts(current_player, legal_actions, apply_action, observe, determinize, returns, act,
                          rules, inp, work)
