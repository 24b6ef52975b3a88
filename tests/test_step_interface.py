"""The step-interface harness, the same for every registered game.

Every game's face gives ``step_game()`` (a :class:`ludolab.sim.step.StepGame`)
and its kernels module the step functions of :mod:`ludolab.sim.step`.  For
each game and each of its rulesets this harness checks:

* random playouts through the step interface: a legal action exists until the
  end, the game ends within its bound, the game's invariants hold after every
  step (cards or tiles conserved), returns stay within the rules' bounds;
* same key, same game; another key, another game;
* the kernel and its pure-Python twin identical step by step (legal actions,
  state, every seat's observation, each named policy's action and stream);
* the fast simulate kernel's accumulator equal to the totals the harness
  computes from ``returns()`` and the trace of step-interface playouts of
  the same keys, column by column as the game describes its columns;
* the fast kernels' games equal to the step-interface games of the same keys;
* no peeking: every named policy gives the same action (and draws the same
  random numbers) in states that differ only in what its seat cannot see;
* ``observe(determinize(obs)) == obs``, and a determinized state plays on.
"""

from __future__ import annotations

import numpy as np
import pytest

from ludolab.sim import step as S
from ludolab.sim.rng import chunk_keys, game_state
from ludolab.stdlib import registry

IDS = [g.id for g in registry.GAMES]
_CACHE: dict = {}


def _game(game_id) -> S.StepGame:
    if game_id not in _CACHE:
        _CACHE[game_id] = registry.get(game_id).entry("step_game")()
    return _CACHE[game_id]


def _cases() -> list:
    """(game, ruleset index) pairs; a game without ``step_game()`` gives one pair that fails."""
    out = []
    for gid in IDS:
        try:
            cases = _game(gid).cases
        except AttributeError:
            out.append(pytest.param(gid, -1, id=f"{gid}-missing"))
            continue
        out += [pytest.param(gid, i, id=f"{gid}-{case.label}") for i, case in enumerate(cases)]
    return out


def _case(game_id, ci):
    """The game and its ruleset ``ci``; fails naming what the game lacks."""
    g = _game(game_id)
    assert 0 <= ci < len(g.cases)
    return g, g.cases[ci]


def _keys(seed: int, n: int) -> list[int]:
    ks = chunk_keys(seed, 1)
    return [int(game_state(ks[0], g)) for g in range(n)]


def _u64(k: int):
    return np.uint64(k)


class _Driver:
    """Plays games of one ruleset through one engine (the kernels or the twin)."""

    def __init__(self, game: S.StepGame, case: S.RulesCase, engine: str):
        self.m = game.kernels if engine == "kernel" else game.twin
        self.g = game
        self.case = case
        self.k = game.kernels
        self.acts = np.zeros(self.k.MAX_ACTIONS, dtype=np.int64)

    def new(self, key: int) -> np.ndarray:
        st = np.zeros(self.k.STATE_SIZE, dtype=np.int64)
        self.m.new_game(self.case.rules, _u64(key), st)
        return st

    def legal(self, st) -> list[int]:
        n = int(self.m.legal_actions(self.case.rules, st, self.acts))
        return [int(a) for a in self.acts[:n]]

    def obs(self, st, seat) -> np.ndarray:
        o = np.zeros(self.k.OBS_SIZE, dtype=np.int64)
        self.m.observe(self.case.rules, st, seat, o)
        return o

    def returns(self, st) -> np.ndarray:
        out = np.zeros(self.case.n_players, dtype=np.float64)
        self.m.returns(self.case.rules, st, out)
        return out

    def act(self, seat, st):
        kind, params = self.case.policies[seat]
        return int(self.m.act(kind, params, self.obs(st, seat), st))

    def play(self, key: int, chooser, check=True):
        """One game; ``chooser(driver, state, seat, legal) -> action``. Returns (trace, final, returns)."""
        st = self.new(key)
        trace = []
        bound = self.g.max_steps(self.case.rules)
        while True:
            seat = int(self.m.current_player(st))
            if seat < 0:
                assert bool(self.m.is_terminal(st)), "current_player is -1 but the game is not over"
                break
            assert not bool(self.m.is_terminal(st)), f"the game is over but seat {seat} is to act"
            assert 0 <= seat < self.case.n_players, f"seat {seat} out of range"
            legal = self.legal(st)
            assert legal, f"no legal action for seat {seat} after {len(trace)} steps"
            assert legal == sorted(set(legal)), "legal actions not ascending and distinct"
            a = chooser(self, st, seat, legal)
            assert a in legal, f"action {a} chosen but the legal actions are {legal}"
            before = st.copy()
            self.m.apply_action(self.case.rules, st, a)
            trace.append((before, seat, a, st.copy()))
            if check:
                self.g.check_state(self.case.rules, st)
            assert len(trace) <= bound, f"the game did not end within {bound} actions"
        return trace, st, self.returns(st)


def _random_chooser(rng):
    def choose(drv, st, seat, legal):
        return legal[int(rng.integers(len(legal)))]
    return choose


def _policy_chooser(drv, st, seat, legal):
    return drv.act(seat, st)


@pytest.mark.parametrize("game_id", IDS)
def test_step_interface_is_complete(game_id):
    """The kernels module and its twin define every step function and constant."""
    g = _game(game_id)
    for name in S.STEP_FUNCTIONS:
        assert hasattr(g.kernels, name), f"{game_id} kernels lack {name}"
        assert hasattr(g.twin, name), f"{game_id} twin lacks {name}"
        assert hasattr(getattr(g.kernels, name), "py_func"), f"{game_id} kernels' {name} is not @njit"
    for name in S.STEP_LOOPS:
        assert hasattr(getattr(g.kernels, name, None), "py_func"), f"{game_id} kernels lack the @njit {name}"
    for name in S.STEP_CONSTANTS:
        assert isinstance(getattr(g.kernels, name), int), f"{game_id} kernels lack the constant {name}"
    assert g.cases, "a game gives at least one ruleset"
    assert g.policies, "a game names at least one policy"


@pytest.mark.parametrize("game_id,ci", _cases())
def test_random_playouts_keep_the_rules(game_id, ci):
    g, case = _case(game_id, ci)
    drv = _Driver(g, case, "kernel")
    rng = np.random.default_rng(11)
    lo, hi = g.return_bounds(case.rules)
    for key in _keys(3, 60):
        _, final, ret = drv.play(key, _random_chooser(rng))
        assert np.all(ret >= lo) and np.all(ret <= hi), f"returns {ret} outside [{lo}, {hi}]"
        assert drv.legal(final) == [] or int(drv.m.current_player(final)) == -1


@pytest.mark.parametrize("game_id,ci", _cases())
def test_same_key_same_game(game_id, ci):
    g, case = _case(game_id, ci)
    drv = _Driver(g, case, "kernel")
    k1, k2 = _keys(5, 2)
    t1 = drv.play(k1, _policy_chooser)
    t1b = drv.play(k1, _policy_chooser)
    t2 = drv.play(k2, _policy_chooser)
    assert [x[2] for x in t1[0]] == [x[2] for x in t1b[0]]
    assert np.array_equal(t1[1], t1b[1])
    assert not np.array_equal(t1[1], t2[1]), "two keys gave the same game"


@pytest.mark.parametrize("game_id,ci", _cases())
def test_kernel_and_twin_identical_step_by_step(game_id, ci):
    g, case = _case(game_id, ci)
    kd, td = _Driver(g, case, "kernel"), _Driver(g, case, "twin")
    rng = np.random.default_rng(5)
    for key in _keys(7, 6):
        ks, ts = kd.new(key), td.new(key)
        step = 0
        while True:
            assert np.array_equal(ks, ts), f"game {key}: states differ after {step} steps"
            seat = int(kd.m.current_player(ks))
            assert seat == int(td.m.current_player(ts))
            for s in range(case.n_players):
                assert np.array_equal(kd.obs(ks, s), td.obs(ts, s)), f"seat {s}'s observation differs"
            if seat < 0:
                break
            legal = kd.legal(ks)
            assert legal == td.legal(ts), f"legal actions differ after {step} steps"
            # every named policy decides alike and draws alike from the stream
            for name, (kind, params) in S.named_policies(g, case).items():
                if name in g.extra.get("slow_policies", ()):
                    continue
                kc, tc = ks.copy(), ts.copy()
                a = int(kd.m.act(kind, params, kd.obs(kc, seat), kc))
                b = int(td.m.act(kind, params, td.obs(tc, seat), tc))
                assert a == b, f"policy {name}: kernel plays {a}, twin {b}"
                assert np.array_equal(kc, tc), f"policy {name}: the stream advanced differently"
            a = legal[int(rng.integers(len(legal)))] if step % 2 else kd.act(seat, ks.copy())
            kd.m.apply_action(case.rules, ks, a)
            td.m.apply_action(case.rules, ts, a)
            step += 1
        assert np.array_equal(kd.returns(ks), td.returns(ts))


def _step_playouts(g, case, seed, chunks, per_chunk):
    drv = _Driver(g, case, "kernel")
    keys = chunk_keys(seed, chunks)
    plays = []
    for c in range(chunks):
        for i in range(per_chunk):
            plays.append(drv.play(int(game_state(keys[c], i)), _policy_chooser, check=False))
    return keys, plays


def _compare_acc(columns, acc, expected, what):
    for c in columns:
        got = float(np.asarray(acc)[c.index])
        want = expected[c.index]
        assert np.isclose(got, want, rtol=1e-9, atol=1e-9), (
            f"{what}: accumulator column {c.name or c.kind} (index {c.index}, seat {c.seat}) "
            f"holds {got}, the step-interface playouts give {want}")


@pytest.mark.parametrize("game_id,ci", _cases())
def test_fast_accumulator_equals_step_playouts(game_id, ci):
    g, case = _case(game_id, ci)
    columns = g.accumulator(case)
    kinds = {(c.kind, c.seat) for c in columns}
    for s in range(case.n_players):
        assert ("points", s) in kinds, f"no points column for seat {s}"
        assert ("wins", s) in kinds, f"no wins column for seat {s}"
    keys, plays = _step_playouts(g, case, 21, 2, 20)
    acc = g.simulate(case.rules, case.policies, keys, 20)
    expected = S.expected_totals(g, case, columns, plays)
    _compare_acc(columns, acc, expected, f"{game_id} {case.label}")
    # the check is not vacuous: every win credited to seat 0 must fail it
    if case.n_players < 2:
        return
    wins = [c for c in columns if c.kind == "wins"]
    planted = np.array(acc, dtype=float, copy=True)
    for c in wins:
        if c.seat != 0:
            s0 = next(w for w in wins if w.seat == 0 and w.ties == c.ties)
            planted[s0.index] += planted[c.index]
            planted[c.index] = 0
    with pytest.raises(AssertionError):
        _compare_acc(columns, planted, expected, "planted bug")


@pytest.mark.parametrize("game_id,ci", _cases())
def test_fast_games_equal_step_games(game_id, ci):
    g, case = _case(game_id, ci)
    drv = _Driver(g, case, "kernel")
    keys = _keys(13, 12)
    fast = g.fast_games(case.rules, case.policies, np.array(keys, dtype=np.uint64))
    for k, actions in zip(keys, fast):
        trace, _, _ = drv.play(k, _policy_chooser, check=False)
        assert [int(a) for a in actions] == [x[2] for x in trace], f"game {k}: fast kernel and step interface differ"


def _named_acts(g, case) -> dict:
    """name -> ``act(obs, state) -> action`` for every named policy the no-peeking check covers."""
    k = g.kernels
    out = {}
    for name, (kind, params) in S.named_policies(g, case).items():
        if name not in g.extra.get("slow_policies", ()):
            out[name] = lambda obs, st, kind=kind, params=params: int(k.act(kind, params, obs, st))
    return out


def _peeking(g, case, acts: dict, keys) -> list[str]:
    """Check ``acts`` (name -> ``act(obs, state)``) in states that differ only in what the seat cannot see
    (determinized worlds and the game's own perturbations); also that determinize is consistent with the
    observation and a determinized world plays on.  Returns a message per policy that peeked."""
    drv = _Driver(g, case, "kernel")
    k = g.kernels
    rng = np.random.default_rng(17)
    lo, hi = g.return_bounds(case.rules)
    checked = differed = 0
    peeked: dict = {}
    for key in keys:
        trace, _, _ = drv.play(key, _policy_chooser, check=False)
        for before, seat, _, _ in trace[:: max(1, len(trace) // 12)]:
            obs = drv.obs(before, seat)
            world = np.zeros(k.STATE_SIZE, dtype=np.int64)
            k.determinize(case.rules, obs, seat, _u64(int(rng.integers(1, 2**63))), world)
            assert np.array_equal(drv.obs(world, seat), obs), "observe(determinize(obs)) differs from obs"
            g.check_state(case.rules, world)
            differed += not np.array_equal(world, before)
            worlds = [world]
            if g.hidden_perturbations is not None:
                worlds.append(g.hidden_perturbations(case.rules, before, seat, rng))
            for w in worlds:
                w = w.copy()
                w[k.S_RNG] = before[k.S_RNG]
                assert np.array_equal(drv.obs(w, seat), obs)
                for name, act in acts.items():
                    a_s, a_w = before.copy(), w.copy()
                    a = act(obs.copy(), a_s)
                    b = act(obs.copy(), a_w)
                    if a != b:
                        peeked.setdefault(name, f"policy {name} plays {a} in the true state and {b} in one it "
                                                "cannot tell apart")
                    elif a_s[k.S_RNG] != a_w[k.S_RNG]:
                        peeked.setdefault(name, f"policy {name} draws differently in states it cannot tell apart")
            # a determinized world plays on to a legal end
            sub = _Driver(g, case, "kernel")
            st = world.copy()
            n = 0
            while int(k.current_player(st)) >= 0:
                legal = sub.legal(st)
                assert legal, "a determinized world has no legal action"
                k.apply_action(case.rules, st, legal[int(rng.integers(len(legal)))])
                n += 1
                assert n <= g.max_steps(case.rules)
            ret = sub.returns(st)
            assert np.all(ret >= lo) and np.all(ret <= hi)
            checked += 1
    assert checked > 0
    if g.extra.get("hidden_information", True):
        assert differed > 0, "determinize never changed a hidden card: is anything hidden?"
    return list(peeked.values())


@pytest.mark.parametrize("game_id,ci", _cases())
def test_no_peeking_and_determinize(game_id, ci):
    """Every named policy sees only its seat's observation; determinize is consistent with it."""
    g, case = _case(game_id, ci)
    assert _peeking(g, case, _named_acts(g, case), _keys(19, 8)) == []


@pytest.mark.parametrize("game_id", [g for g in IDS if _game(g).extra.get("hidden_information", True)])
def test_no_peeking_catches_a_policy_that_reads_hidden_cards(game_id):
    """The check above is not blind: a planted policy that plays the legal action indexed by a hash of the
    whole state (hidden cards included) is caught, while the same choice by a hash of the observation passes."""
    g, case = _game(game_id), _game(game_id).cases[0]
    k = g.kernels
    acts = np.zeros(k.MAX_ACTIONS, dtype=np.int64)

    def pick(code, st):
        n = int(k.legal_actions(case.rules, st, acts))
        return int(acts[int(code) % n])

    def peeker(obs, st):  # reads the state it was handed for its stream only
        hidden = st.copy()
        hidden[k.S_RNG] = 0
        return pick(int(np.abs(hidden * np.arange(1, len(hidden) + 1)).sum()), st)

    def honest(obs, st):
        return pick(int(np.abs(obs * np.arange(1, len(obs) + 1)).sum()), st)

    found = _peeking(g, case, {"planted peeker": peeker, "honest hash": honest}, _keys(23, 4))
    assert len(found) == 1 and found[0].startswith("policy planted peeker plays"), found


@pytest.mark.parametrize("game_id,ci", _cases())
def test_compiled_playouts_equal_step_playouts(game_id, ci):
    """The compiled whole-game loop (``play_many``) plays the games the step functions play."""
    from ludolab.sim import play

    g, case = _case(game_id, ci)
    keys = _keys(23, 10)
    ret, steps = play.run(g.kernels, case.rules, np.array(keys, dtype=np.uint64), case.policies)
    drv = _Driver(g, case, "kernel")
    for i, k in enumerate(keys):
        trace, _, r = drv.play(k, _policy_chooser, check=False)
        assert np.array_equal(ret[i], r), f"game {k}: returns differ"
        assert steps[i].sum() == len(trace)


def _search_inputs(g, case, state, seat, worlds, key):
    from ludolab.sim import search as SR

    named = S.named_policies(g, case)
    slow = g.extra.get("slow_policies", ())
    fast = g.extra.get("best") if g.extra.get("best") in named else next(n for n in named if n not in slow)
    cfg, params = SR.config(g.kernels, seat, worlds, case.n_players, g.lower_wins, key,
                            [named[fast]] * case.n_players, g.max_steps(case.rules))
    obs = np.zeros(g.kernels.OBS_SIZE, dtype=np.int64)
    g.kernels.observe(case.rules, state, seat, obs)
    return cfg, params, obs


@pytest.mark.parametrize("game_id,ci", _cases())
def test_search_reads_only_the_observation_and_equals_its_twin(game_id, ci):
    """Determinized search (``search``, the game's cached wrapper of ``ludolab.sim.search.pimc``,
    with the game's best fast policy in the playouts) gives the same values whatever the true state
    behind the observation, and its pure-Python twin over the game's twin module gives the very
    same values."""
    from ludolab.sim import search as SR

    g, case = _case(game_id, ci)
    k = g.kernels
    drv = _Driver(g, case, "kernel")
    trace, _, _ = drv.play(_keys(29, 1)[0], _policy_chooser, check=False)
    rng = np.random.default_rng(3)
    # decisions with few legal actions keep the twin's playouts short (a forecast may have thousands)
    small = [x for x in trace if len(drv.legal(x[0])) <= 6]
    assert small, "no decision with at most 6 legal actions in a game"
    for before, seat, _, _ in small[:: max(1, len(small) // 3)][:3]:
        cfg, params, obs = _search_inputs(g, case, before, seat, 2, 77)
        other = np.zeros(k.STATE_SIZE, dtype=np.int64)
        k.determinize(case.rules, obs, seat, _u64(int(rng.integers(1, 2**63))), other)
        results = []
        for truth in (before, other):
            work = SR.work_arrays(k, case.n_players)
            n = k.search(case.rules, (cfg, params, obs, truth.copy()), work)
            results.append((work[0][:n].copy(), work[1][:n].copy()))
        assert np.array_equal(results[0][0], results[1][0]) and np.array_equal(results[0][1], results[1][1]), \
            "the search's values depend on what its seat cannot see"
        work = SR.work_arrays(k, case.n_players)
        n = SR.py_pimc(g.twin, case.rules, (cfg, params, obs, before.copy()), work)
        assert np.array_equal(work[0][:n], results[0][0]) and np.allclose(work[1][:n], results[0][1], rtol=0,
                                                                           atol=1e-9), "the search's twin differs"


@pytest.mark.parametrize("game_id", IDS)
def test_tree_search_of_the_seats_own_decisions_equals_its_twin(game_id):
    """Information-set MCTS with only the searching seat's decisions as tree nodes (the other seats play
    their rollout policy on the way down: ``ismcts_settings(own_only=True)``), on sampled worlds and given
    every hidden card, equals its pure-Python twin, and differs from the tree of every seat's decisions."""
    from ludolab.sim import search as SR

    g, case = _case(game_id, 0)
    k = g.kernels
    drv = _Driver(g, case, "kernel")
    trace, _, _ = drv.play(_keys(31, 1)[0], _policy_chooser, check=False)
    small = [x for x in trace if 2 <= len(drv.legal(x[0])) <= 6]
    assert small, "no decision with 2 to 6 legal actions in a game"
    iterations, ms = 24, int(g.max_steps(case.rules))
    low, high = (float(x) for x in g.return_bounds(case.rules))
    differs = 0
    for before, seat, _, _ in small[:: max(1, len(small) // 2)][:2]:
        for mode in (SR.SAMPLED, SR.ALL_SEEING):
            cfg, params, obs = _search_inputs(g, case, before, seat, iterations, 91)
            cfg[SR.C_MODE] = mode
            got = []
            for own, engine in ((True, "kernel"), (True, "twin"), (False, "kernel")):
                work = SR.ismcts_work(k, case.n_players, iterations, ms)
                inp = (cfg, params, obs, before.copy(), SR.ismcts_settings(low, high, own_only=own))
                n = (k.search_tree(case.rules, inp, work) if engine == "kernel"
                     else SR.py_ismcts(g.twin, case.rules, inp, work))
                got.append((work[0][:n].copy(), work[1][:n].copy()))
            assert np.array_equal(got[0][0], got[1][0])
            assert np.allclose(got[0][1], got[1][1], rtol=0, atol=1e-9), "the own-decisions tree's twin differs"
            assert got[0][1][:, 0].sum() == iterations, "every iteration visits one root action"
            differs += not np.array_equal(got[0][1], got[2][1])
    if case.n_players > 1:  # with one seat the two trees are the same tree
        assert differs > 0, "the other seats' decisions never changed the tree"
