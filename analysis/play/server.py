"""The play page's server: a small Flask app that holds the games and validates every move.

Routes (JSON in and out; the page is ``static/index.html`` with ``play.css`` and ``play.js``):

``GET  /api/catalogue``              the games, their variants, player counts and bots
``POST /api/new``                    ``{"game", "variant", "players", "bots": [..] or "name", "seat", "key"}``
                                     -> ``{"id", ...payload}``; ``seat`` counts from 0 like every seat
                                     of the API (the page's "Your seat 1" is ``"seat": 0``)
``GET  /api/game/<id>``              the payload (see :meth:`Session.payload`)
``POST /api/game/<id>/move``         ``{"action": int}`` -> the payload
``POST /api/game/<id>/hint``         ``{"worlds": int}`` (optional) -> the advice table
``GET  /api/game/<id>/review``       the person's costliest decisions (once the game is over)
``GET  /api/game/<id>/record``       the record as a JSON download, once the game is over (409 before)

A game lives on the server under a random id that the page keeps in JavaScript (no cookie), so
two tabs play two games.  An unknown id is 404; a body that is not a JSON object, a missing field,
a field the route does not take (named with the ones it does) or a wrong type is 400; a move that
is not legal now or not the person's turn is 409; each with ``{"error": message}`` and the game
unchanged.
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from pathlib import Path

from flask import Flask, abort, jsonify, request, send_from_directory

from .games import ADAPTERS, PlayError
from .session import HINT_WORLDS, Session

STATIC = Path(__file__).with_name("static")
#: Games kept at once; the oldest is dropped beyond this.
MAX_GAMES = 64


class _BadRequest(Exception):
    def __init__(self, msg, code=400):
        super().__init__(msg)
        self.code = code


#: The fields each JSON request body may hold; any other is refused (400) naming it and these.
NEW_FIELDS = ("game", "variant", "players", "bots", "seat", "key")
MOVE_FIELDS = ("action",)
HINT_FIELDS = ("worlds",)


def _body(allowed: tuple, empty_ok: bool = False) -> dict:
    """The request's JSON object, refusing a field not in ``allowed`` (400, naming it and the allowed ones)."""
    if empty_ok and not request.data:
        return {}
    data = request.get_json(silent=True, force=True)
    if not isinstance(data, dict):
        raise _BadRequest("the request body must be a JSON object")
    unknown = [k for k in data if k not in allowed]
    if unknown:
        raise _BadRequest(f"unknown field {unknown[0]!r}: allowed are {', '.join(allowed)}")
    return data


def _int(data, name, default=None, lo=None, hi=None):
    if name not in data:
        if default is None:
            raise _BadRequest(f"missing field {name!r}")
        return default
    v = data[name]
    if isinstance(v, bool) or not isinstance(v, int):
        raise _BadRequest(f"field {name!r} must be a whole number, not {v!r}")
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise _BadRequest(f"field {name!r} must be {lo}..{hi}, not {v}")
    return v


def _str(data, name, default=None):
    if name not in data:
        if default is None:
            raise _BadRequest(f"missing field {name!r}")
        return default
    v = data[name]
    if not isinstance(v, str):
        raise _BadRequest(f"field {name!r} must be text, not {v!r}")
    return v


def catalogue() -> list:
    """The games the page offers: id, title, units, variants (name, text, players) and bots."""
    out = []
    for ad in ADAPTERS.values():
        out.append({"id": ad.id, "title": ad.title, "units": ad.units, "best": ad.best,
                    "variants": [{"name": v.name, "text": v.text, "players": list(v.players)}
                                 for v in ad.variants.values()], "bots": ad.bots()})
    return out


def new_session(data: dict) -> Session:
    """A new game from the body of ``POST /api/new`` (see the module's docstring).

    ``seat`` counts from 0, as every seat in the API does (the page's seat 1 is ``"seat": 0``).

    Raises:
        _BadRequest: an unknown field or game, a field of the wrong type, or settings the game refuses
            (variant, players, bots, seat, key), with the message naming what is allowed.
    """
    game = _str(data, "game")
    if game not in ADAPTERS:
        raise _BadRequest(f"unknown game {game!r}: allowed are {', '.join(ADAPTERS)}")
    ad = ADAPTERS[game]
    variant = _str(data, "variant", next(iter(ad.variants)))
    players = _int(data, "players", min(ad.variants[variant].players) if variant in ad.variants else 2)
    seat = _int(data, "seat", 0)
    key = _int(data, "key", secrets.randbelow(2**62), 0, 2**63 - 1)
    bots = data.get("bots")
    if isinstance(bots, list) and isinstance(players, int) and len(bots) == players and 0 <= seat < players \
            and bots[seat] is None:
        bots = [b for i, b in enumerate(bots) if i != seat]  # the answer's form: one per seat, null for yours
    if bots is not None and not (isinstance(bots, str) or (isinstance(bots, list)
                                                          and all(isinstance(x, str) for x in bots))):
        raise _BadRequest("field 'bots' must be a bot name, a list of one bot name per other seat, or one per "
                          "seat with null at yours (as a game's answer gives it)")
    try:
        return Session(game, variant, players, bots=bots, seat=seat, key=key)
    except PlayError as e:
        raise _BadRequest(str(e)) from None


def _register_errors_and_files(app: Flask) -> None:
    """Errors as ``{"error": message}`` with their codes; the page and its two files."""

    @app.errorhandler(_BadRequest)
    def _bad(e):
        return jsonify({"error": str(e)}), e.code

    @app.errorhandler(PlayError)
    def _refused(e):
        return jsonify({"error": str(e)}), 409

    @app.errorhandler(404)
    def _nf(e):
        return jsonify({"error": "no such page"}), 404

    @app.errorhandler(405)
    def _na(e):
        return jsonify({"error": "method not allowed here"}), 405

    @app.get("/")
    def index():
        return send_from_directory(STATIC, "index.html")

    @app.get("/static/<path:name>")
    def static_file(name):
        if name not in ("play.js", "play.css"):
            abort(404)
        return send_from_directory(STATIC, name)

    @app.get("/api/catalogue")
    def api_catalogue():
        return jsonify({"games": catalogue()})


def _register_games(app: Flask, games: OrderedDict, lock, max_games: int) -> None:
    """The routes of the games held in ``games`` (guarded by ``lock``; the oldest dropped beyond ``max_games``)."""

    def get(gid) -> Session:
        s = games.get(gid)
        if s is None:
            raise _BadRequest(f"no game {gid!r} on this server (it may have been closed): start a new one", 404)
        return s

    @app.post("/api/new")
    def api_new():
        data = _body(NEW_FIELDS)
        with lock:
            s = new_session(data)
            gid = secrets.token_urlsafe(12)
            games[gid] = s
            while len(games) > max_games:
                games.popitem(last=False)
            return jsonify({"id": gid, **s.payload()})

    @app.get("/api/game/<gid>")
    def api_game(gid):
        with lock:
            return jsonify({"id": gid, **get(gid).payload()})

    @app.post("/api/game/<gid>/move")
    def api_move(gid):
        with lock:
            s = get(gid)
            action = _int(_body(MOVE_FIELDS), "action")
            s.move(action)
            return jsonify({"id": gid, **s.payload()})

    @app.post("/api/game/<gid>/hint")
    def api_hint(gid):
        with lock:
            s = get(gid)
            worlds = _int(_body(HINT_FIELDS, empty_ok=True), "worlds", HINT_WORLDS, 2, 4096)
            return jsonify(_clean(s.hint(worlds)))

    @app.get("/api/game/<gid>/review")
    def api_review(gid):
        with lock:
            s = get(gid)
            if not s.over():
                raise PlayError("the review comes once the game is over")
            return jsonify({"rows": _clean(s.review()), "scores": s.moments, "final": s.final()})

    @app.get("/api/game/<gid>/record")
    def api_record(gid):
        with lock:
            s = get(gid)
            if not s.over():  # the record holds the key, and so the deal: every hidden card
                raise PlayError("the record holds the deal (every hidden card): it is given once the game is over")
            resp = jsonify(s.record())
            resp.headers["Content-Disposition"] = f"attachment; filename=ludolab-{s.ad.id}-{s.key}.json"
            return resp


def create_app(max_games: int = MAX_GAMES) -> Flask:
    """The Flask app of the play page (testable with ``app.test_client()``).

    Args:
        max_games: games kept at once (the oldest dropped beyond).

    Returns:
        The app; ``app.config["GAMES"]`` is the ordered dict of the games held (id -> :class:`Session`).
    """
    app = Flask(__name__, static_folder=None)
    games: OrderedDict[str, Session] = OrderedDict()
    app.config["GAMES"] = games
    _register_errors_and_files(app)
    _register_games(app, games, threading.RLock(), max_games)
    return app


def _clean(x):
    """NaN -> None, so the JSON is valid."""
    import math

    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_clean(v) for v in x]
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x
