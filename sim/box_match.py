"""Shut the Box with several players: the exact one-round equilibrium (STB-9,
STB-10) and multi-round or elimination games by simulation (STB-11, STB-12)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ludolab.stdlib.box import BoxRules
from ludolab.stdlib.errors import LudolabError

from .box_exact import Policy, evaluate, solve_utility
from .box_montecarlo import _sim_args
from .experiment import DEFAULT_CHUNKS
from .runner import RunSpec, run
from .stats import wilson_ci

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
    """Exact win and tie probabilities of a one-round match by backward induction (STB-9, STB-10).

    Players take one turn each in seat order (STB-9).  Each seat knows the
    best score so far and plays the policy that maximises its chance of
    winning given that every later seat does the same (the last seat plays the
    beat-target policy, STB-10).  A shut box wins at once; ties lose unless
    ``ties_win`` (then a shared lowest score is worth a win to the seat
    choosing its policy; probabilities reported are still of sole wins and
    ties).

    Args:
        rules: the ruleset (its scoring decides the scores compared).
        players: 2..6.
        ties_win: see above.
        keep_policies: keep the per-(seat, best score) tables in
            ``policies`` (they take memory for 12 tiles with many distinct
            scores).

    Returns:
        :class:`MatchSolution`: ``seats`` (DataFrame per seat: ``seat``,
        ``p_win``, ``p_tie``, ``p_play``, ``expected_score``) and
        ``p_tie_game``, the probability that the game ends tied.

    Raises:
        LudolabError: players outside 2..6.
    """
    import pandas as pd

    if isinstance(players, bool) or int(players) != players or not 2 <= players <= 6:
        raise LudolabError(f"players must be 2..6, not {players}")
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
        LudolabError: bad seat count, rounds (1..max_rounds) or threshold, or
        elimination under a scoring other than sum or count.
    """
    import pandas as pd

    if not 2 <= len(policies) <= 6:
        raise LudolabError(f"players must be 2..6, not {len(policies)}")
    rules = policies[0].rules
    if any(p.rules != rules for p in policies):
        raise LudolabError("every seat must play the same rules")
    if rounds is not None:
        if isinstance(rounds, bool) or int(rounds) != rounds or not 1 <= rounds <= max_rounds:
            raise LudolabError(f"rounds must be a whole number 1..{max_rounds}, not {rounds}")
        n_rounds, thr = int(rounds), 0
    else:
        if threshold is None or isinstance(threshold, bool) or int(threshold) != threshold or threshold < 1:
            raise LudolabError(f"the elimination threshold must be a whole number >= 1, not {threshold}")
        if rules.score not in ("sum", "count"):
            raise LudolabError(f"elimination adds up scores against a threshold: use the scoring sum or count, "
                             f"not {rules.score}")
        if threshold > 10**9:
            raise LudolabError(f"the elimination threshold must be 1..1000000000, not {threshold}")
        n_rounds, thr = 0, int(threshold)
    moves = np.stack([p.move for p in policies])
    dices = np.stack([p.dice for p in policies])
    n = len(policies)
    if any(getattr(p, "ties", None) is not None for p in policies):  # random tie-breaks (STB-T1)
        ties = [np.zeros(1, dtype=np.int64) if p.ties is None else np.asarray(p.ties, dtype=np.int64)
                for p in policies]
        tie_start = np.concatenate([[0], np.cumsum([len(t) for t in ties])]).astype(np.int64)
        spec = RunSpec("box", "ludolab.sim.box_kernels:_simulate_match_t",
                       (_sim_args(rules), moves, dices, np.concatenate(ties), tie_start,
                        (rules.scores, n_rounds, thr, int(max_rounds))), (n, 5), "int64", games, seed, chunks, label="match")
    else:
        spec = RunSpec("box", "ludolab.sim.box_kernels:_simulate_match",
                       (_sim_args(rules), moves, dices, (rules.scores, n_rounds, thr, int(max_rounds))),
                       (n, 5), "int64", games, seed, chunks, label="match")
    out = run(spec, progress).sum(axis=0)
    plan = spec.plan()
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
