"""The play page's server through Flask's test client: games, moves, refusals, hints, records.

The bots and the person act through the step-interface kernels; the page's view must be a
function of the person's observation alone (no hidden card of another seat), a move that is not
legal now is refused with the game unchanged, and a saved record replays to the same score.
"""

from __future__ import annotations

import json
import random
import re

import numpy as np
import pytest
from click.testing import CliRunner

from ludolab.analysis.play.games import PlayError, adapter
from ludolab.analysis.play.server import create_app
from ludolab.analysis.play.session import Session, _search_hint, replay_record

SMALL = {"box": ("standard-1-round", 2), "books": ("rulebook-one-hand", 3), "shelf": ("standard", 2),
         "beverbende": ("one-round", 2)}
# cheap bots, so a whole game is quick
BOTS = {"box": "optimal", "books": "heuristic/heuristic", "shelf": "greedy", "beverbende": "threshold"}


@pytest.fixture()
def client():
    app = create_app()
    return app, app.test_client()


def _new(c, game, key=3, **kw):
    variant, players = SMALL[game]
    body = {"game": game, "variant": variant, "players": players, "bots": BOTS[game], "key": key, **kw}
    r = c.post("/api/new", json=body)
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def _random_action(p, rng):
    if p.get("picker"):  # a Shut The Books forecast: lay a random subset of at most 5 cards (STK-4)
        k = len(p["picker"]["items"])
        pos = rng.sample(range(k), rng.randint(0, min(5, k)))
        return sum(1 << i for i in pos)
    return rng.choice(p["actions"])["action"]


def _play_out(c, p, seed=0):
    rng = random.Random(seed)
    gid = p["id"]
    steps = 0
    while not p["over"]:
        assert p["your_turn"] and (p["actions"] or p.get("picker"))
        r = c.post(f"/api/game/{gid}/move", json={"action": _random_action(p, rng)})
        assert r.status_code == 200, r.get_json()
        p = r.get_json()
        steps += 1
        assert steps < 2000
    return p


def test_catalogue_names_the_four_games_their_variants_and_bots(client):
    _, c = client
    games = c.get("/api/catalogue").get_json()["games"]
    assert [g["id"] for g in games] == ["box", "books", "shelf", "beverbende"]
    for g in games:
        assert g["variants"] and all(v["players"] for v in g["variants"])
        assert "search" in g["bots"] and g["best"] in g["bots"]


def test_the_page_and_its_files_are_served_from_the_package(client):
    _, c = client
    page = c.get("/").get_data(as_text=True)
    assert "/static/play.js" in page and "/static/play.css" in page and "http" not in page.replace("http-equiv", "")
    assert c.get("/static/play.js").status_code == 200
    assert c.get("/static/play.css").status_code == 200
    assert c.get("/static/../server.py").status_code == 404


@pytest.mark.parametrize("game", list(SMALL))
def test_a_whole_game_of_random_legal_moves_ends_and_its_record_replays_to_the_same_score(client, game):
    app, c = client
    p = _new(c, game, key=11)
    assert p["players"] == SMALL[game][1] and p["seat"] == 0
    early = c.get(f"/api/game/{p['id']}/record")  # the record holds the key, so every hidden card
    assert early.status_code == 409 and "once the game is over" in early.get_json()["error"]
    assert "key" not in early.get_data(as_text=True)
    p = _play_out(c, p, seed=5)
    s = app.config["GAMES"][p["id"]]
    assert p["final"] == s.final() and p["result"]
    assert p["moments"], "a finished game has at least one scoring moment (hand, round, placements)"
    rec = c.get(f"/api/game/{p['id']}/record")
    assert "attachment" in rec.headers["Content-Disposition"]
    back = replay_record(json.loads(rec.get_data(as_text=True)))
    assert back["final"] == p["final"]
    assert [m["scores"] for m in back["moments"]] == [m["scores"] for m in p["moments"]]


@pytest.mark.parametrize("game", list(SMALL))
def test_the_view_is_a_function_of_the_persons_observation_only(client, game):
    """The JSON view equals the adapter's view of ``observe`` of the person's seat, and stays the same
    when everything that seat cannot see is dealt anew (``determinize``)."""
    app, c = client
    p = _new(c, game, key=21)
    rng = random.Random(2)
    for _ in range(6):
        s = app.config["GAMES"][p["id"]]
        K = s.K
        obs = s.obs()
        assert p["view"] == json.loads(json.dumps(s.ad.view(s.b, obs, s.seat)))
        for k in range(3):
            other = np.zeros(K.STATE_SIZE, dtype=np.int64)
            K.determinize(s.rules, obs, s.seat, np.uint64(1000 + k), other)
            o2 = np.zeros(K.OBS_SIZE, dtype=np.int64)
            K.observe(s.rules, other, s.seat, o2)
            assert s.ad.view(s.b, o2, s.seat) == s.ad.view(s.b, obs, s.seat)
        if p["over"]:
            break
        p = c.post(f"/api/game/{p['id']}/move", json={"action": _random_action(p, rng)}).get_json()


def test_no_card_of_another_hand_is_sent(client):
    """Shut The Books: the cards in the other players' hands never appear in what the page gets."""
    import ludolab.stdlib.books as B

    app, c = client
    p = _new(c, "books", key=5)
    s = app.config["GAMES"][p["id"]]
    text = json.dumps(p)
    hidden = [B.card_name(x) for x in range(B.N_CARD_IDS) if 1 <= s.state[B.LOC + x] - B.L_HAND <= 3]
    assert len(hidden) == 32  # two other hands of 16 (STK-3)
    for name in hidden:
        assert not re.search(rf"\b{name}\b", text), f"{name} of another hand was sent"


def test_malformed_requests_get_400_unknown_games_404_and_change_nothing(client):
    app, c = client
    p = _new(c, "box", key=2)
    gid = p["id"]
    s = app.config["GAMES"][gid]
    before, n = s.state.copy(), len(s.actions)
    bad = [c.post(f"/api/game/{gid}/move", data="not json", content_type="application/json"),
           c.post(f"/api/game/{gid}/move", json=[1, 2]),
           c.post(f"/api/game/{gid}/move", json={}),
           c.post(f"/api/game/{gid}/move", json={"action": "3"}),
           c.post(f"/api/game/{gid}/move", json={"action": True}),
           c.post(f"/api/game/{gid}/move", json={"action": 1.5}),
           c.post(f"/api/game/{gid}/hint", json={"worlds": "many"})]
    for r in bad:
        assert r.status_code == 400 and r.get_json()["error"], r.get_json()
    assert c.post("/api/game/nope/move", json={"action": 1}).status_code == 404
    assert c.get("/api/game/nope").status_code == 404
    assert c.get(f"/api/game/{gid}/move").status_code == 405
    for body in ({"game": "chess"}, {"game": "box", "variant": "x"}, {"game": "box", "players": 9},
                 {"game": "books", "players": 2}, {"game": "box", "players": 2, "bots": "nobody"}, {"game": "box", "bots": 3},
                 {"game": "box", "seat": 7}, {"game": "box", "players": 2, "bots": ["optimal", "random"]}):
        r = c.post("/api/new", json=body)
        assert r.status_code == 400 and r.get_json()["error"], body
    assert np.array_equal(s.state, before) and len(s.actions) == n


def test_new_takes_the_bots_as_a_game_answer_gives_them(client):
    """``bots`` one per seat with null at the person's seat (the form of the answer) is the same game."""
    _, c = client
    a = c.post("/api/new", json={"game": "box", "players": 2, "seat": 1, "bots": ["random"], "key": 5}).get_json()
    b = c.post("/api/new", json={"game": "box", "players": 2, "seat": 1, "bots": a["bots"], "key": 5}).get_json()
    assert a["bots"] == ["random", None] and b["bots"] == a["bots"]
    bad = c.post("/api/new", json={"game": "box", "players": 2, "seat": 1, "bots": [None, "random"]})
    assert bad.status_code == 400 and "one per seat with null at yours" in bad.get_json()["error"]


@pytest.mark.parametrize("path,body,field,allowed", [
    ("/api/new", {"game": "box", "colour": "red"}, "colour", "game, variant, players, bots, seat, key"),
    ("{game}/move", {"action": 1, "seat": 0}, "seat", "action"),
    ("{game}/hint", {"worlds": 8, "budget": 9}, "budget", "worlds"),
])
def test_an_unknown_field_is_refused_naming_it_and_the_allowed_ones(client, path, body, field, allowed):
    app, c = client
    gid = _new(c, "box", key=2)["id"]
    s = app.config["GAMES"][gid]
    before, n, games = s.state.copy(), len(s.actions), len(app.config["GAMES"])
    r = c.post(path.format(game=f"/api/game/{gid}"), json=body)
    assert r.status_code == 400
    assert r.get_json()["error"] == f"unknown field {field!r}: allowed are {allowed}"
    assert np.array_equal(s.state, before) and len(s.actions) == n and len(app.config["GAMES"]) == games


def test_seats_count_from_0_in_the_api_and_the_message_says_so(client):
    """The page shows "Your seat" 1..n and sends 0..n-1; the API, its payload and its message count from 0."""
    _, c = client
    for seat in (0, 1):
        assert _new(c, "box", seat=seat)["seat"] == seat
    for seat in (2, -1):
        r = c.post("/api/new", json={"game": "box", "variant": "standard-1-round", "players": 2, "seat": seat})
        assert r.status_code == 400
        assert r.get_json()["error"] == ("your seat must be 0..1 (seats count from 0: the page's seat 1 is 0), "
                                         f"not {seat}")


def test_the_beverbende_hint_under_win_count_ranks_the_chance_to_win_highest_first(client):
    """Win-count scoring (BVB-15): the returns count rounds won, so the hint's best action is the one
    with the highest value, in the units the page shows."""
    app, c = client
    p = c.post("/api/new", json={"game": "beverbende", "variant": "win-count", "players": 2, "bots": "threshold",
                                 "key": 5}).get_json()
    rounds = app.config["GAMES"][p["id"]].b.ctx.n_rounds
    assert p["units"] == "rounds won (higher is better)"
    while len(p["actions"]) < 2:  # up to a decision with a choice
        p = c.post(f"/api/game/{p['id']}/move", json={"action": p["actions"][0]["action"]}).get_json()
    h = c.post(f"/api/game/{p['id']}/hint", json={"worlds": 8}).get_json()
    vals = [r["value"] for r in h["rows"]]  # the game's rounds won, expected
    assert vals == sorted(vals, reverse=True) and all(0 <= v <= rounds for v in vals)
    assert h["units"] == p["units"] and "best vs second" in h["verdict"]


def test_an_illegal_move_is_refused_with_409_and_the_game_unchanged(client):
    app, c = client
    p = _new(c, "shelf", key=4)
    gid = p["id"]
    s = app.config["GAMES"][gid]
    before, n = s.state.copy(), len(s.actions)
    legal = {a["action"] for a in p["actions"]}
    illegal = next(a for a in range(10_000) if a not in legal)
    r = c.post(f"/api/game/{gid}/move", json={"action": illegal})
    assert r.status_code == 409 and "not legal" in r.get_json()["error"]
    assert np.array_equal(s.state, before) and len(s.actions) == n
    assert c.get(f"/api/game/{gid}/review").status_code == 409  # only once the game is over
    p = _play_out(c, p)
    r = c.post(f"/api/game/{gid}/move", json={"action": 0})
    assert r.status_code == 409 and "over" in r.get_json()["error"]
    assert c.post(f"/api/game/{gid}/hint", json={}).status_code == 409


def test_two_games_at_once_do_not_mix(client):
    """Two tabs: two ids, two states; moving in one changes nothing in the other."""
    app, c = client
    a, b = _new(c, "beverbende", key=8), _new(c, "beverbende", key=8)
    assert a["id"] != b["id"] and a["view"] == b["view"]
    sb = app.config["GAMES"][b["id"]]
    state_b = sb.state.copy()
    a2 = c.post(f"/api/game/{a['id']}/move", json={"action": a["actions"][0]["action"]}).get_json()
    assert a2["steps"] > a["steps"]
    assert np.array_equal(sb.state, state_b)
    assert c.get(f"/api/game/{b['id']}").get_json()["view"] == b["view"]


def test_box_hint_is_exact_and_the_review_names_the_costliest_decisions(client):
    app, c = client
    p = _new(c, "box", key=1)
    h = c.post(f"/api/game/{p['id']}/hint", json={}).get_json()
    assert h["budget"].startswith("exact")
    assert {r["action"] for r in h["rows"]} == {a["action"] for a in p["actions"]}
    vals = [r["value"] for r in h["rows"]]
    assert vals == sorted(vals)  # lower is better in Shut the Box
    # play the worst move each time: the review must find a positive cost
    gid = p["id"]
    while not p["over"]:
        h = c.post(f"/api/game/{gid}/hint", json={}).get_json()
        p = c.post(f"/api/game/{gid}/move", json={"action": h["rows"][-1]["action"]}).get_json()
    rv = c.get(f"/api/game/{gid}/review").get_json()
    assert 1 <= len(rv["rows"]) <= 3
    costs = [r["cost"] for r in rv["rows"]]
    assert costs == sorted(costs, reverse=True) and costs[0] > 0
    assert all(r["best_value"] <= r["chosen_value"] for r in rv["rows"])


def test_search_hint_agrees_with_the_exact_values_within_its_ci():
    """One seat, one turn of Shut the Box: the determinized search with the optimal continuation
    estimates the exact expected score of each move (STB-7, STB-8)."""
    s = Session("box", "standard-1-round", 1, key=9)
    ad, b = s.ad, s.b
    obs, legal = s.obs(), s.legal()
    exact = dict(ad.exact_hint(b, obs, legal)[0])
    mc = _search_hint(ad, b, 0, obs, legal, 400, key=77, t0=0.0)
    assert {r["action"] for r in mc["rows"]} == set(exact)
    for r in mc["rows"]:
        half = max(r["ci_high"] - r["value"], 1e-9)
        assert abs(r["value"] - exact[r["action"]]) <= half * 1.2, (r, exact[r["action"]])


def test_books_card_play_hint_ranks_every_legal_card(client):
    app, c = client
    p = _new(c, "books", key=6)
    gid = p["id"]
    p = c.post(f"/api/game/{gid}/move", json={"action": 0}).get_json()  # lay nothing
    assert p["actions"] and not p.get("picker")
    h = c.post(f"/api/game/{gid}/hint", json={"worlds": 8}).get_json()
    assert {r["action"] for r in h["rows"]} == {a["action"] for a in p["actions"]}
    assert all(r["ci_low"] <= r["value"] <= r["ci_high"] for r in h["rows"])
    assert h["verdict"]


def test_books_forecast_hint_searches_candidate_prediction_sets_not_all_of_them(client):
    """A forecast (STK-4) has thousands of legal sets of prediction cards: the hint ranks the forecast
    search's candidates, each a legal action, and says how many of the legal ones it searched."""
    app, c = client
    p = _new(c, "books", key=6)
    assert p.get("picker") and not p["actions"]
    h = c.post(f"/api/game/{p['id']}/hint", json={"worlds": 8}).get_json()
    s = app.config["GAMES"][p["id"]]
    legal = set(s.legal())
    assert h["rows"] and all(r["action"] in legal for r in h["rows"])
    assert all(r["label"].startswith("lay ") for r in h["rows"])
    assert all(r["ci_low"] <= r["value"] <= r["ci_high"] for r in h["rows"])
    assert f"of the {len(legal)} legal ones" in h["verdict"]


@pytest.mark.parametrize("game", ["box", "beverbende"])
def test_a_search_bot_plays_legal_moves_to_the_end(game):
    """A ``search`` bot (determinized search with the best heuristic in its playouts) at the table."""
    variant, players = SMALL[game]
    s = Session(game, variant, players, bots="search", key=12)
    rng = random.Random(3)
    while not s.over():
        s.move(rng.choice(s.legal()))
    assert any(x["who"].endswith("(search)") for x in s.log)
    assert replay_record(s.record())["final"] == s.final()


def test_session_refuses_bad_settings():
    with pytest.raises(PlayError, match="allowed are"):
        adapter("chess")
    with pytest.raises(PlayError, match="seat"):
        Session("box", "standard-1-round", 2, seat=2)
    with pytest.raises(PlayError, match="one bot per other seat"):
        Session("box", "standard-1-round", 3, bots=["random"])
    with pytest.raises(PlayError, match="3 or 4|3, 4"):
        Session("books", "rulebook", 5)


def _record(tmp_path):
    s = Session("box", "standard-1-round", 2, bots="random", key=4)
    rng = random.Random(0)
    while not s.over():
        s.move(rng.choice(s.legal()))
    path = tmp_path / "game.json"
    path.write_text(json.dumps(s.record()))
    return s, path


def test_replay_command_prints_the_scores_and_refuses_a_tampered_record(tmp_path):
    from ludolab.analysis.cli import cli

    s, path = _record(tmp_path)
    r = CliRunner().invoke(cli, ["replay", str(path)])
    assert r.exit_code == 0, r.output
    assert "after round 1" in r.output and "final" in r.output
    assert f"{s.final()[0]:g}" in r.output
    rec = json.loads(path.read_text())
    cases = {"illegal": {**rec, "actions": rec["actions"][:-1] + [10**6]},
             "game": {**rec, "game": "chess"}, "long": {**rec, "actions": rec["actions"] + [1]},
             "type": {**rec, "actions": [str(a) for a in rec["actions"]]}, "key": {**rec, "key": -1},
             "format": {k: v for k, v in rec.items() if k != "format"}, "players": {**rec, "players": 9}}
    for name, bad in cases.items():
        p = tmp_path / f"{name}.json"
        p.write_text(json.dumps(bad))
        r = CliRunner().invoke(cli, ["replay", str(p)])
        assert r.exit_code == 2, (name, r.output)
        assert len(r.output.strip().splitlines()) == 1 and "Traceback" not in r.output, r.output
    part = tmp_path / "part.json"
    part.write_text(json.dumps({**rec, "actions": rec["actions"][:1]}))
    r = CliRunner().invoke(cli, ["replay", str(part)])
    assert r.exit_code == 0 and "so far" in r.output and "before its end (after 1 action)" in r.output and "1 action replayed" in r.output
    (tmp_path / "junk.json").write_text("{")
    r = CliRunner().invoke(cli, ["replay", str(tmp_path / "junk.json")])
    assert r.exit_code == 2 and "not valid JSON" in r.output


def test_a_port_whose_last_server_just_stopped_is_free_again():
    """A server stopped after serving leaves its connections in TIME_WAIT; ``ludolab play`` started again
    on that port must not call it taken (the server itself reuses the address)."""
    import socket

    from ludolab.analysis.play.cli import _port_free

    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    port = srv.getsockname()[1]
    cli_sock = socket.create_connection(("127.0.0.1", port))
    conn, _ = srv.accept()
    conn.close()  # the server's side closes first: its end of the connection waits in TIME_WAIT
    cli_sock.close()
    assert not _port_free(port)  # still listening
    srv.close()
    assert _port_free(port)


def test_play_refuses_a_taken_port_in_one_line():
    import socket

    from ludolab.analysis.cli import cli

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)
        port = sock.getsockname()[1]
        r = CliRunner().invoke(cli, ["play", "--port", str(port), "--no-browser"])
    assert r.exit_code == 2 and f"port {port}" in r.output and len(r.output.strip().splitlines()) == 1
    r = CliRunner().invoke(cli, ["play", "--host", "0.0.0.0"])
    assert r.exit_code == 2


def test_replay_refuses_unreadable_records_in_one_line(tmp_path):
    """A missing file, bytes that are not UTF-8, a number too long to convert and a seat off the table:
    one line each, exit code 2, naming the record."""
    from ludolab.analysis.cli import cli

    s, path = _record(tmp_path)
    rec = json.loads(path.read_text())
    cases = {"missing.json": None, "binary.json": b"\xff\xfe\x00junk",
             "long.json": ('{"format": 1, "players": ' + "1" * 5001 + "}").encode(),
             "seat.json": json.dumps({**rec, "seat": 7}).encode(),
             "variant_list.json": json.dumps({**rec, "variant": ["x"]}).encode(),
             "game_dict.json": json.dumps({**rec, "game": {"a": 1}}).encode()}
    for name, data in cases.items():
        f = tmp_path / name
        if data is not None:
            f.write_bytes(data)
        r = CliRunner().invoke(cli, ["replay", str(f)])
        assert r.exit_code == 2 and r.output.startswith("Error: ") and len(r.output.strip().splitlines()) == 1, \
            (name, r.output)
    assert "seat" in CliRunner().invoke(cli, ["replay", str(tmp_path / "seat.json")]).output
    bom = tmp_path / "bom.json"
    bom.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert CliRunner().invoke(cli, ["replay", str(bom)]).exit_code == 0
