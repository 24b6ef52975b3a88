"""Numba kernel of the value of foresight in Shut the Box (STB-O5; private, the face is
:func:`ludolab.sim.box_foresight.foresight`).

The same search ``F(knowledge set, best)`` as the pure-Python reference
(:class:`ludolab.sim.box_foresight._Search`, method in that module's docstring), visiting the
knowledge sets in the same order and adding up the faces in the same order, so the two agree to
the last bit.  Numba has no frozenset, so:

* a *position* (open tiles ``s``, faces ``j`` thrown of the roll so far, their ``code``: the
  faces' total, or for thai moves the first face minus one) is one int64
  ``s << rules[TILE_SHIFT] | j << rules[CODE_BITS] | code``; the shut box is position 0;
* a knowledge set is a run of distinct positions in a flat pool, in the order they were met;
  the memo is one open-addressing hash table keyed by (knowledge set, best), ``best`` being the
  lowest score of the paths that already had to stop (``-1`` for none), hashed without regard to
  order and compared as sets in full on a collision (the new set's positions are stamped in an
  array of one entry a position, so no set is ever sorted); a memo row holds (mean score, chance to shut);
* the moves of a state on every roll outcome are listed once, the first time a knowledge set
  holds it (the reference caches them the same way);
* the recursion runs on an explicit stack, one frame per face thrown; the search stops when an
  array is out of room, and resumes once it has grown (so its arrays never change under it).

The ruleset comes as one int64 array (:func:`pack_rules`): a header of named fields (:data:`N_DICE`
... :data:`PER_POS`) and the offsets (:data:`ALLOWED` ... :data:`CAND_MASKS`) of the tables of
:class:`ludolab.stdlib.box.Outcomes` laid after it.  Kernels never print, never read mutable
globals and never call back into Python; running out of ``max_sets`` comes back as a flag and the
face raises.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import kernel_cache as _kernel_cache  # noqa: F401  (processes sharing the cache take turns)

#: Header fields of the rules array: dice per full roll, sides of a die, 1 for thai moves, the full
#: box (bitmask), bits of a position below its faces count and below its open tiles, most
#: positions one position can move to on one face.
N_DICE, SIDES, THAI, FULL, CODE_BITS, TILE_SHIFT, PER_POS = range(7)
#: Header fields holding where each table starts: allowed dice per state (DICE_ONE | DICE_TWO),
#: score per state, outcome of one die per face, outcome of the full roll per ordered draw, outcome
#: of the full roll per pip total (subset moves; -1 where none), candidate moves of each outcome
#: (start per outcome, then the masks).
ALLOWED, SCORES, DRAW1, DRAW2, BY_TOTAL, CAND_START, CAND_MASKS = range(7, 14)
HEADER = 14
_EMPTY = -1
#: Columns of the memo's key rows: where the knowledge set starts in the pool, its length, best, hash.
_START, _LENGTH, _BEST, _HASH = range(4)
#: Counters of a search: memo rows, pool entries and moves entries in use, memo rows complete, the
#: depth of the top stack frame, the pool entries the next face may need, the memo limit.
_ROWS, _POOL, _MOVES, _COMPLETE, _TOP, _NEED, _LIMIT, _STAMP = range(8)
_COUNTERS = 8
#: What :func:`_search` stopped on.
_DONE, _OVERFLOW, _NO_ROOM = range(3)
#: The last stamp of a position's mark (the marks are int32, half the cache of int64).
_STAMP_MAX = 2**31 - 1
_MIX = -7046029254386353131  # 0x9E3779B97F4A7C15, the golden-ratio multiplier, as a signed int64


def pack_rules(header: dict, tables: list) -> np.ndarray:
    """The rules array of :func:`_foresight`: the header then the tables, in the order of
    :data:`ALLOWED` ... :data:`CAND_MASKS`.

    Args:
        header: field index (:data:`N_DICE` ... :data:`PER_POS`) -> int.
        tables: seven 1-d integer arrays (allowed dice, scores, draw maps of one die and of the
            full roll, outcome per total, candidate starts, candidate masks).
    """
    out = np.zeros(HEADER, dtype=np.int64)
    for k, v in header.items():
        out[k] = v
    at = HEADER
    for k, a in zip(range(ALLOWED, CAND_MASKS + 1), tables):
        out[k] = at
        at += len(a)
    return np.concatenate([out] + [np.asarray(a, dtype=np.int64) for a in tables])


@njit(cache=True)
def _state_moves(rules, moves, at, s):
    """Write the moves of open tiles ``s`` on every roll outcome into ``moves[at:]`` (room for
    :func:`_moves_room` entries): first where the moves of each outcome ``o`` start, then the
    positions they lead to, so outcome ``o`` gives ``moves[moves[at + o]:moves[at + o + 1]]``
    (STB-4, STB-7).  Returns the end of what it wrote."""
    starts, masks, shift = rules[CAND_START], rules[CAND_MASKS], rules[TILE_SHIFT]
    n_out = masks - starts - 1
    w = at + n_out + 1
    for o in range(n_out):
        moves[at + o] = w
        for c in range(masks + rules[starts + o], masks + rules[starts + o + 1]):
            m = rules[c]
            if m & s == m:
                moves[w] = (s ^ m) << shift
                w += 1
    moves[at + n_out] = w
    return w


@njit(cache=True)
def _moves_room(rules):
    """Most entries :func:`_state_moves` writes for one state: an offset per outcome and one more,
    and every candidate move."""
    return rules.size - rules[CAND_START]


@njit(cache=True)
def _known_moves(rules, moves, where, count, pool, lo, hi):
    """Write the moves of the open tiles of every position of ``pool[lo:hi]`` into ``moves`` where
    not written yet (``where[s]`` is where those of ``s`` start, -1 before; ``count[MOVES]`` entries
    are in use; the caller leaves room for :func:`_moves_room` entries a position)."""
    shift = rules[TILE_SHIFT]
    for i in range(lo, hi):
        s = pool[i] >> shift
        if where[s] < 0:
            where[s] = count[_MOVES]
            count[_MOVES] = _state_moves(rules, moves, count[_MOVES], s)


@njit(cache=True, inline="always")
def _mixed(x):
    """One position's term of :func:`_hash_key` (a mix of ``x``, summed over a set)."""
    y = (x + 1) * _MIX
    y ^= y >> 29
    return y * _MIX


@njit(cache=True, inline="always")
def _after_face(rules, moves, where, pool, lo, hi, face, best, out):
    """The knowledge set after the next face is ``face``, from the set ``pool[lo:hi]`` (STB-2, STB-4,
    STB-6, STB-7): its distinct positions in the order first met, into ``buf`` (room for
    ``rules[PER_POS]`` per position), and the lowest score of the paths that stop on it (``best``
    before; -1 for none).  The moves of the positions' open tiles are in ``moves`` from ``where[s]``
    on (:func:`_known_moves`).

    out = (buf, seen, stamp): a position is kept the first time it is met, and marked ``stamp`` (new
    for each call) in ``seen`` (one entry a position), so a set held elsewhere equals the result when
    it has as many positions and all of them are so marked (:func:`_find`).

    Returns (count in ``buf``, lowest score, True when the shut box, position 0, is among them, the
    sum of :func:`_mixed` over the kept positions: :func:`_hash_key` without the count and best)."""
    buf, seen, stamp = out
    n_dice, sides, thai = rules[N_DICE], rules[SIDES], rules[THAI] != 0
    c_bits, shift = rules[CODE_BITS], rules[TILE_SHIFT]
    c_mask, j_mask = (1 << c_bits) - 1, (1 << (shift - c_bits)) - 1
    scores, one_die, full_roll, by_total = rules[SCORES], rules[DRAW1] + face - 1, rules[DRAW2], rules[BY_TOTAL]
    n = 0
    b = best
    acc = 0
    for i in range(lo, hi):
        pos = pool[i]
        s = pos >> shift
        j = (pos >> c_bits) & j_mask
        code = pos & c_mask
        o1 = o2 = -1  # the roll outcomes the face completes: of one die, of the full roll
        x = -1  # a position inside a roll of several dice, not complete yet
        if j == 0:  # between rolls: the player picks the dice this face starts
            a = rules[rules[ALLOWED] + s]
            if a & 1:
                o1 = rules[one_die]
            if a & 2:
                if n_dice == 1:
                    o2 = rules[full_roll + face - 1]
                else:
                    x = (s << shift) | (1 << c_bits) | (face - 1 if thai else face)
        elif j + 1 < n_dice:
            x = (s << shift) | ((j + 1) << c_bits) | (code * sides + face - 1 if thai else code + face)
        elif thai:
            o2 = rules[full_roll + code * sides + face - 1]
        else:
            o2 = rules[by_total + code + face]
        if x >= 0 and seen[x] != stamp:
            seen[x] = stamp
            buf[n] = x
            n += 1
            acc += _mixed(x)
        for o in (o1, o2):  # cover tiles (STB-4); a roll that cannot be covered ends the path (STB-7)
            if o < 0:
                continue
            at = where[s] + o
            if moves[at] == moves[at + 1]:
                if b < 0 or rules[scores + s] < b:
                    b = rules[scores + s]
                continue
            for c in range(moves[at], moves[at + 1]):
                y = moves[c]
                if seen[y] != stamp:
                    seen[y] = stamp
                    buf[n] = y
                    n += 1
                    acc += _mixed(y)
    return n, b, seen[0] == stamp, acc


@njit(cache=True, inline="always")
def _key_hash(acc, n, best):
    """The memo key's hash from the sum ``acc`` of :func:`_mixed` over its ``n`` positions and its best."""
    h = (acc + n * _MIX) ^ ((best + 1) * _MIX)
    return h ^ (h >> 31)


@njit(cache=True, inline="always")
def _hash_key(buf, n, best):
    """A hash of the memo key (knowledge set ``buf[:n]`` in any order, best): a sum of mixed
    positions, so the order of a set's positions does not change it."""
    acc = 0
    for i in range(n):
        acc += _mixed(buf[i])
    return _key_hash(acc, n, best)


@njit(cache=True)
def _grown(a, need):
    """``a`` (1-d or 2-d) copied into an array with at least twice and at least ``need`` rows."""
    shape = (max(2 * a.shape[0], need),) + a.shape[1:]
    out = np.empty(shape, dtype=a.dtype)
    out[:a.shape[0]] = a
    return out


@njit(cache=True)
def _table_of(keys, n, size):
    """An open-addressing table of ``size`` slots (a power of two) holding rows ``0..n-1`` of
    ``keys`` at their hashes ``keys[:, HASH]`` (linear probing; ``_EMPTY`` marks a free slot)."""
    table = np.full(size, _EMPTY, dtype=np.int64)
    mask = size - 1
    for k in range(n):
        i = keys[k, _HASH] & mask
        while table[i] != _EMPTY:
            i = (i + 1) & mask
        table[i] = k
    return table


@njit(cache=True, inline="always")
def _find(pool, keys, table, n, best, h, seen, stamp):
    """The slot of ``table`` holding the memo key (the knowledge set of ``n`` positions marked
    ``stamp`` in ``seen`` by :func:`_after_face`, ``best``) of hash ``h``, or the free slot where it
    belongs; returns (slot, memo row or -1).  ``keys`` rows are (start in
    ``pool``, length, best, hash) (:data:`_START` ... :data:`_HASH`)."""
    mask = table.size - 1
    i = h & mask
    while table[i] != _EMPTY:
        k = table[i]
        if keys[k, _HASH] == h and keys[k, _LENGTH] == n and keys[k, _BEST] == best:
            base = keys[k, _START]
            same = True
            for t in range(n):  # as many distinct positions, all of them in the new set
                if seen[pool[base + t]] != stamp:
                    same = False
                    break
            if same:
                return i, k
        i = (i + 1) & mask
    return i, -1


@njit(cache=True, inline="always")
def _add(pool, keys, table, count, buf, n, best, slot, h):
    """Add the memo key (knowledge set ``buf[:n]``, distinct positions, ``best``; hash ``h``, not held
    yet, ``slot`` the free slot :func:`_find` gave) as row ``count[ROWS]``, its set at
    ``pool[count[POOL]:]`` (the caller leaves room).  Returns the row."""
    k, used = count[_ROWS], count[_POOL]
    pool[used:used + n] = buf[:n]
    keys[k, _START], keys[k, _LENGTH], keys[k, _BEST], keys[k, _HASH] = used, n, best, h
    table[slot] = k
    count[_ROWS], count[_POOL] = k + 1, used + n
    return k


@njit(cache=True, inline="always")
def _max_score(rules, buf, n):
    """The highest score a path from the positions ``buf[:n]`` can end on: that of their open tiles
    (scores only fall as tiles are covered, STB-8)."""
    scores, shift = rules[SCORES], rules[TILE_SHIFT]
    top = rules[scores + (buf[0] >> shift)]
    for i in range(1, n):
        top = max(top, rules[scores + (buf[i] >> shift)])
    return top


@njit(cache=True)
def _bits(mask):
    """How many bits of ``mask`` are set (tiles of a box)."""
    n = 0
    while mask:
        n += mask & 1
        mask >>= 1
    return n


@njit(cache=True)
def _search(rules, work, floats):
    """Run the search ``F(set, best)`` (explicit stack, faces in order) until it is complete, the memo
    would outgrow ``count[_LIMIT]`` rows or an array is out of room; resumable after :func:`_make_room`.

    Args:
        rules: int64 rules array of :func:`pack_rules`.
        work: (pool, memo keys, memo table, moves, where, buf, count, frames, seen) of
            :func:`_foresight`; ``frames[d]`` = (memo row, next face) of the stack frame at depth
            ``d``; ``seen`` one stamp a position (:func:`_after_face`).
        floats: (memo values, frame sums), rows (mean score, chance to shut).

    Returns:
        :data:`_DONE`, :data:`_OVERFLOW` or :data:`_NO_ROOM` (``count[_NEED]`` pool entries).
    """
    pool, keys, table, moves, where, buf, count, frames, seen = work
    values, frame = floats
    sides, per_pos, moves_room = rules[SIDES], rules[PER_POS], _moves_room(rules)
    one = 1.0 / sides
    while True:
        top = count[_TOP]
        row, face = frames[top, 0], frames[top, 1]
        if face > sides:  # F(set, best) is complete
            values[row, 0], values[row, 1] = frame[top, 0], frame[top, 1]
            count[_COMPLETE] += 1
            if top == 0:
                return _DONE
            count[_TOP] = top - 1
            frame[top - 1, 0] += one * frame[top, 0]
            frame[top - 1, 1] += one * frame[top, 1]
            continue
        lo, size = keys[row, _START], keys[row, _LENGTH]
        need = size * per_pos  # most positions after one face
        if (count[_POOL] + need > pool.size or need > buf.size or count[_ROWS] >= keys.shape[0]
                or 2 * (count[_ROWS] + 1) > table.size or count[_MOVES] + size * moves_room > moves.size):
            count[_NEED] = need
            return _NO_ROOM
        if face == 1:  # a new knowledge set: the moves of its open tiles
            _known_moves(rules, moves, where, count, pool, lo, lo + size)
        frames[top, 1] = face + 1
        if count[_STAMP] >= _STAMP_MAX:  # int32 stamps: start the marks again (never within a test-sized box)
            seen[:] = 0
            count[_STAMP] = 0
        count[_STAMP] += 1
        n, b, shut, acc = _after_face(rules, moves, where, pool, lo, lo + size, face, keys[row, _BEST],
                                      (buf, seen, count[_STAMP]))
        if shut:  # some path shuts the box: score 0
            frame[top, 1] += one
            continue
        if n == 0:
            frame[top, 0] += one * b
            continue
        if b >= 0 and b >= _max_score(rules, buf, n):
            b = -1  # every remaining path ends at or below b: b no longer matters
        h = _key_hash(acc, n, b)
        slot, k = _find(pool, keys, table, n, b, h, seen, count[_STAMP])
        if k >= 0:  # held, and complete: a set never leads back to itself
            frame[top, 0] += one * values[k, 0]
            frame[top, 1] += one * values[k, 1]
            continue
        if count[_COMPLETE] >= count[_LIMIT]:
            return _OVERFLOW
        count[_TOP] = top + 1
        frames[top + 1, 0], frames[top + 1, 1] = _add(pool, keys, table, count, buf, n, b, slot, h), 1
        frame[top + 1, 0] = 0.0
        frame[top + 1, 1] = 0.0


@njit(cache=True)
def _make_room(rules, work, floats):
    """``work`` and ``floats`` of :func:`_search` with room for one more face: arrays at least
    doubled where short, the memo table rebuilt when it would be half full."""
    pool, keys, table, moves, where, buf, count, frames, seen = work
    values, frame = floats
    need = count[_NEED]
    if count[_POOL] + need > pool.size:
        pool = _grown(pool, count[_POOL] + need)
    if need > buf.size:
        buf = np.empty(2 * need, dtype=np.int64)
    if count[_ROWS] >= keys.shape[0]:
        keys, values = _grown(keys, count[_ROWS] + 1), _grown(values, count[_ROWS] + 1)
    if 2 * (count[_ROWS] + 1) > table.size:
        table = _table_of(keys, count[_ROWS], 2 * table.size)
    room = need * _moves_room(rules)  # need >= positions of the set
    if count[_MOVES] + room > moves.size:
        moves = _grown(moves, count[_MOVES] + room)
    return (pool, keys, table, moves, where, buf, count, frames, seen), (values, frame)


@njit(cache=True)
def _foresight(rules, max_sets):
    """The mean score and the chance to shut of the foresight player (STB-O5), as the reference
    ``_Search.value`` computes them in floats.

    Args:
        rules: int64 rules array of :func:`pack_rules` (read only).
        max_sets: the most memo entries (knowledge sets with their best) the search may complete
            before it gives up, as the reference counts them.

    Returns:
        (mean score in points, chance to shut, memo entries, True when the memo would outgrow
        ``max_sets``: the figures are then meaningless).
    """
    if max_sets <= 0:
        return 0.0, 0.0, 0, True
    depth_max = (_bits(rules[FULL]) + 2) * rules[N_DICE] + 2  # every roll covers a tile
    count = np.zeros(_COUNTERS, dtype=np.int64)
    count[_LIMIT] = max_sets
    work = (np.empty(1024, dtype=np.int64), np.empty((256, 4), dtype=np.int64), np.full(512, _EMPTY, dtype=np.int64),
            np.empty(4096, dtype=np.int64), np.full(rules[FULL] + 1, -1, dtype=np.int64),
            np.empty(1024, dtype=np.int64), count, np.zeros((depth_max, 2), dtype=np.int64),
            np.zeros((rules[FULL] + 1) << rules[TILE_SHIFT], dtype=np.int32))
    floats = (np.zeros((256, 2)), np.zeros((depth_max, 2)))
    pool, keys, table, buf, frames = work[0], work[1], work[2], work[5], work[7]
    buf[0] = rules[FULL] << rules[TILE_SHIFT]
    h = _hash_key(buf, 1, -1)
    frames[0, 0], frames[0, 1] = _add(pool, keys, table, count, buf, 1, -1, h & (table.size - 1), h), 1
    while True:
        status = _search(rules, work, floats)
        if status == _NO_ROOM:
            work, floats = _make_room(rules, work, floats)
            continue
        values = floats[0]
        return values[0, 0], values[0, 1], count[_COMPLETE], status == _OVERFLOW
