"""The four games as the play page sees them: rule variants, bots, the seat's view and the labels.

Each game is a :class:`Adapter` over its step interface (:mod:`ludolab.sim.step`): it builds the
rules array of a variant for a player count, names the bots (the game's named policies), and
turns one seat's observation (``kernels.observe`` of that seat, nothing else) into the view the
page draws and each action into words.  Where a game's situation module
(``ludolab.sim.<game>_situation``: ``from_obs(rules, obs) -> dict`` and
``action_label(rules, obs, action) -> str``) is present, its labels and its dict are used; the
views below decode the observation themselves, so the page works without it.

A view is JSON: ``{"status": str, "sections": [{"title", "rows": [{"label", "cards": [{"text",
"cls"}], "note"}], "grid": [[card or None]], "note"}]}``; ``play.js`` draws any such dict.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ludolab.stdlib.errors import LudolabError


class PlayError(LudolabError):
    """A request the play page refuses: an unknown game, variant, bot or player count; an illegal move."""


@dataclass(frozen=True)
class Variant:
    """One rule variant offered on the page.

    Attributes:
        name: the key (``"rulebook"``); text: what it means, for the page.
        players: the player counts it allows; build: ``build(n) -> (rules_array, ctx)``, ctx the
            game's own ruleset object (deck names, roll labels) the view needs.
    """

    name: str
    text: str
    players: tuple
    build: Callable


@dataclass
class Built:
    """A variant built for a player count: the rules array, the ruleset object and the named policies."""

    game: str
    variant: str
    n: int
    rules: np.ndarray
    ctx: object
    policies: dict = field(default_factory=dict)
    #: The direction, units and comparison measure of the returns under these rules (the adapter's
    #: unless a scoring variant turns them: Beverbende's win-count counts rounds won, highest best).
    lower_better: bool = False
    units: str = "points"
    measure: str = ""


def card(text, cls="", title=""):
    """One card of a view: its text and a CSS class (colour), optionally a tooltip."""
    d = {"text": str(text), "cls": cls}
    if title:
        d["title"] = title
    return d


def seat_name(seat: int, you: int) -> str:
    """``"You"`` for the person's seat, else ``"Seat k"`` (1-based)."""
    return "You" if seat == you else f"Seat {seat + 1}"


class Adapter:
    """What the page needs of one game (subclasses per game)."""

    id = ""
    title = ""
    units = "points"
    lower_better = False
    measure = ""
    moment = "hand"
    variants: dict = {}

    def __init__(self):
        self._step = None
        self._situation = None
        self._situation_checked = False

    # ------------------------------------------------------------ engine
    @property
    def step(self):
        """The game's :class:`~ludolab.sim.step.StepGame` (imported on first use)."""
        if self._step is None:
            mod = importlib.import_module(f"ludolab.sim.{self.face}")
            self._step = mod.step_game()
        return self._step

    face = ""

    @property
    def kernels(self):
        """The game's kernels module (its ``S_*``, ``O_*`` offsets and step functions)."""
        return self.step.kernels

    def situation(self):
        """The game's situation module when it is installed (``from_obs``, ``action_label``), else None."""
        if not self._situation_checked:
            self._situation_checked = True
            try:
                mod = importlib.import_module(f"ludolab.sim.{self.face}_situation")
                if hasattr(mod, "from_obs") and hasattr(mod, "action_label"):
                    self._situation = mod
            except ImportError:
                self._situation = None
        return self._situation

    def build(self, variant: str, n: int) -> Built:
        """The rules of ``variant`` for ``n`` players.

        Raises:
            PlayError: an unknown variant or a player count the variant does not allow.
        """
        if variant not in self.variants:
            raise PlayError(f"unknown {self.title} variant {variant!r}: allowed are {', '.join(self.variants)}")
        v = self.variants[variant]
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or int(n) not in v.players:
            raise PlayError(f"{self.title} ({variant}) is played by {', '.join(map(str, v.players))} players, "
                            f"not {n!r}")
        rules, ctx = v.build(int(n))
        b = Built(self.id, variant, int(n), np.asarray(rules, dtype=np.int64), ctx)
        b.policies = self.named_policies(b)
        b.lower_better, b.units, b.measure = self.scoring(ctx)
        return b

    def scoring(self, ctx) -> tuple:
        """``(lower_better, units, measure)`` of the returns under the ruleset ``ctx`` (the game's own)."""
        return self.lower_better, self.units, self.measure

    def named_policies(self, b: Built) -> dict:
        """name -> ``(kind, params)`` of every named policy under these rules (the bots)."""
        return dict(self.step.policies)

    @property
    def best(self) -> str:
        """The name of the game's best named heuristic (the hints' continuation, the default bot)."""
        return self.step.extra.get("best")

    def bots(self) -> list:
        """The bot names offered: every named policy of the game (the rollout policies, slower, last)
        and ``search`` (determinized search with the best heuristic in its playouts)."""
        slow = set(self.step.extra.get("slow_policies", ()))
        names = [n for n in self.step.policies if n not in slow] + [n for n in self.step.policies if n in slow]
        return names + ["search"]

    # ------------------------------------------------------------ words
    def view(self, b: Built, obs: np.ndarray, you: int) -> dict:
        """The table as seat ``you`` sees it, from its observation ``obs`` only (see the module doc)."""
        v = self._view(b, obs, you)
        sit = self.situation()
        if sit is not None:
            try:
                v["situation"] = _jsonable(sit.from_obs(b.rules, obs))
            except Exception:  # noqa: BLE001 - a situation module of another branch: the page works without it
                pass
        return v

    def label(self, b: Built, obs: np.ndarray, action: int) -> str:
        """The action in words, for the seat whose observation ``obs`` is (the game's notation)."""
        sit = self.situation()
        if sit is not None and self.situation_labels(obs):
            try:
                return str(sit.action_label(b.rules, obs, int(action)))
            except Exception:  # noqa: BLE001 - fall back to the page's own words
                pass
        return self._label(b, obs, int(action))

    def situation_labels(self, obs: np.ndarray) -> bool:
        """Whether the situation module's labels name this decision in the page's own notation."""
        return True

    def picker(self, b: Built, obs: np.ndarray, legal: np.ndarray):
        """None (one button per legal action), or a special chooser where the actions are too many."""
        return None

    def public_label(self, b: Built, seat: int, before: np.ndarray, after: np.ndarray, action: int) -> str:
        """What seat ``you`` (whose observations before and after the move are given) saw ``seat`` do."""
        return self._label(b, before, int(action))

    def log_text(self, b: Built, seat: int, you: int, before: np.ndarray, after: np.ndarray, action: int) -> str:
        """The line of the move log: the person's own move in their words, another seat's as seen by ``you``."""
        if seat == you:
            return self._label(b, before, action)
        return self.public_label(b, seat, before, after, action)

    def moment_name(self, k: int) -> str:
        """The name of the k-th scoring moment (``hand 2``, ``round 1``)."""
        return f"{self.moment} {k}"

    def exact_hint(self, b: Built, obs: np.ndarray, legal: list):
        """An exact hint where the game allows one: rows ``(action, value)`` best first, or None."""
        return None

    def _view(self, b, obs, you):  # pragma: no cover - each game defines it
        raise NotImplementedError

    def _label(self, b, obs, action):  # pragma: no cover
        return str(action)


def _jsonable(x):
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return [_jsonable(v) for v in x.tolist()]
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating,)):
        return float(x)
    if isinstance(x, (str, int, float, bool)) or x is None:
        return x
    return str(x)


# ====================================================================== Shut the Box
class BoxAdapter(Adapter):
    """Shut the Box as a match (STB-9, STB-11): each seat plays whole turns in seat order."""

    id = "box"
    face = "box"
    title = "Shut the Box"
    units = "points (open tiles; lower is better)"
    lower_better = True
    measure = "box_score"
    moment = "round"

    def __init__(self):
        super().__init__()
        from ludolab.stdlib.box import BoxRules, parse_tiles

        def make(rules_fn, rounds):
            def build(n):
                from ludolab.sim.box_step import rules_array

                r = rules_fn()
                return rules_array(r, seats=n, rounds=rounds), r
            return build

        self.variants = {
            "standard-1-round": Variant("standard-1-round", "tiles 1-9, one die once 7, 8, 9 are shut; one turn each",
                                        (1, 2, 3, 4), make(BoxRules, 1)),
            "standard-3-rounds": Variant("standard-3-rounds", "tiles 1-9, one-die rule 789-optional; three rounds, "
                                         "scores add up", (1, 2, 3, 4), make(BoxRules, 3)),
            "1-6-always": Variant("1-6-always", "tiles 1-6, one die always allowed; one turn each", (1, 2, 3, 4),
                                  make(lambda: BoxRules(tiles=parse_tiles("1-6"), one_die="always-optional"), 1)),
        }

    def named_policies(self, b):
        from ludolab.sim.box_policies import POLICY_NAMES, make_policy
        from ludolab.sim.box_step import policy_params

        return {name: policy_params(make_policy(b.ctx, name)) for name in POLICY_NAMES}

    def bots(self):
        from ludolab.sim.box_policies import POLICY_NAMES

        return list(POLICY_NAMES) + ["search"]

    def _tiles(self, b, mask):
        return list(b.ctx.tiles_of(int(mask)))

    def _view(self, b, obs, you):
        K = self.kernels
        r = b.ctx
        n = b.n
        acting = int(obs[K.O_ACTING])
        phase = int(obs[K.O_PHASE])
        open_mask = int(obs[K.O_OPEN])
        sections = []
        if phase != K.PH_OVER and acting >= 0:
            open_t = set(self._tiles(b, open_mask))
            tiles = [card(t, "tile open" if t in open_t else "tile shut") for t in r.tiles]
            roll = ""
            if phase == K.PH_MOVE and obs[K.O_OUT] >= 0:
                roll = f"rolled {r.outcomes.label[int(obs[K.O_OUT])]} with {'one die' if obs[K.O_DICE] == 1 else 'two dice'}"
            rows = [{"label": "tiles", "cards": tiles, "note": f"open sum {sum(open_t)}"}]
            if roll:
                rows.append({"label": "roll", "cards": [card(r.outcomes.label[int(obs[K.O_OUT])], "die")],
                             "note": roll})
            sections.append({"title": f"The box: {seat_name(acting, you)} to play", "rows": rows})
        rows = []
        for p in range(n):
            last = int(obs[K.O_LAST + p])
            alive = "" if obs[K.O_ALIVE + p] else " (out)"
            if last < 0:
                tiles = [card("not played yet", "none")]
            else:
                left = set(self._tiles(b, last))
                tiles = [card(t, "tile open" if t in left else "tile shut") for t in r.tiles]
            rows.append({"label": seat_name(p, you) + alive, "cards": [card(int(obs[K.O_TOTAL + p]), "score")] + tiles,
                         "note": "total; the box after the latest turn"})
        sections.append({"title": f"Totals (round {int(obs[K.O_ROUND])})", "rows": rows})
        if phase == K.PH_OVER or acting < 0:
            status = "The match is over."
        elif acting == you:
            status = "Your turn: " + ("choose one die or two." if phase == K.PH_DICE else "cover tiles that add up to the roll.")
        else:
            status = f"Seat {acting + 1} is playing."
        return {"status": status, "sections": sections, "turn": acting}

    def _label(self, b, obs, action):
        K = self.kernels
        if int(obs[K.O_PHASE]) == K.PH_DICE:
            return "roll one die" if action == 1 else "roll two dice"
        return "cover " + "+".join(map(str, self._tiles(b, action)))

    def log_text(self, b, seat, you, before, after, action):
        K = self.kernels
        text = self._label(b, before, action)
        if int(before[K.O_PHASE]) == K.PH_MOVE:
            text = f"rolled {b.ctx.outcomes.label[int(before[K.O_OUT])]}, {text}"
        ended = (int(after[K.O_ACTING]) != seat or int(after[K.O_PHASE]) == K.PH_OVER
                 or after[K.O_LAST + seat] != before[K.O_LAST + seat] or after[K.O_ROUND] != before[K.O_ROUND])
        if ended:
            last = int(after[K.O_LAST + seat])
            left = " ".join(map(str, self._tiles(b, last))) if last > 0 else ""
            text += f"; {'the box is shut' if last == 0 else 'turn over, left open: ' + left}"
        return text

    def exact_hint(self, b, obs, legal):
        """The exact expected score of the turn for each legal action (``sim/box.py`` ``advise_rows``)."""
        from ludolab.sim.box import advise_rows

        K = self.kernels
        r = b.ctx
        open_t = self._tiles(b, int(obs[K.O_OPEN]))
        if int(obs[K.O_PHASE]) == K.PH_DICE:
            rows, _, info = advise_rows(r, open_t, None)
            vals = {int(row["dice"]): float(row["value"]) for row in rows}
        else:
            roll = r.outcomes.label[int(obs[K.O_OUT])]
            rows, _, info = advise_rows(r, open_t, roll, dice=int(obs[K.O_DICE]))
            vals = {}
            for row in rows:
                m = r.mask_of([int(x) for x in str(row["cover"]).replace("+", ",").split(",") if x.strip()])
                vals[int(m)] = float(row["value"])
        out = [(int(a), vals[int(a)]) for a in legal if int(a) in vals]
        out.sort(key=lambda t: t[1])
        return out, f"exact expected score of this turn ({info.get('objective', 'expected score')})"


# ====================================================================== Shut The Books
class BooksAdapter(Adapter):
    """Shut The Books: forecasts laid as prediction cards, then tricks (STK-4..STK-9)."""

    id = "books"
    face = "books"
    title = "Shut The Books"
    measure = "books_points"
    moment = "hand"

    def __init__(self):
        super().__init__()
        from ludolab.stdlib.books import BooksRules

        def make(hands, **kw):
            def build(n):
                r = BooksRules(n, **kw)
                return r.game_array(hands=1 if hands == 1 else None), r
            return build

        self.variants = {
            "rulebook-one-hand": Variant("rulebook-one-hand", "the rulebook's scoring (+4 exact, +2 off by one, "
                                         "-k otherwise), one hand", (3, 4), make(1)),
            "rulebook": Variant("rulebook", "the rulebook: as many hands as players", (3, 4), make(None)),
            "linear": Variant("linear", "linear scoring (4 - 2 x off), as many hands as players", (3, 4),
                              make(None, scoring="linear")),
        }

    def named_policies(self, b):
        from ludolab.sim.books import step_policies

        return step_policies(b.ctx)

    def _cards(self, obs, where):
        from ludolab.stdlib.books import LOC, N_CARD_IDS

        return [c for c in range(N_CARD_IDS) if int(obs[LOC + c]) == where]

    @staticmethod
    def _card(c):
        from ludolab.stdlib.books import COLOUR_NAMES, card_name, colour_of

        return card(card_name(c), "bk " + COLOUR_NAMES[colour_of(c)])

    def _view(self, b, obs, you):
        import ludolab.stdlib.books as B

        P = b.n
        phase = int(obs[B.S_PHASE])
        turn = int(obs[B.S_TURN])
        trick = int(obs[B.S_TRICK])
        sections = []
        hand = self._cards(obs, B.L_HAND + you)
        sections.append({"title": "Your hand", "rows": [{"label": f"{len(hand)} card{'s' if len(hand) != 1 else ''}",
                                                          "cards": [self._card(c) for c in hand]}]})
        rows = []
        for s in range(P):
            op = self._cards(obs, B.L_OPEN + s)
            cl = self._cards(obs, B.L_CLOSED + s)
            note = (f"{int(obs[B.NHAND + s])} in hand, {int(obs[B.NWON + s])} tricks won, "
                    f"{int(obs[B.NEXTRA + s])} extra; closed: {' '.join(B.card_name(c) for c in cl) or '-'}")
            rows.append({"label": seat_name(s, you) + (" (starts)" if s == int(obs[B.S_START]) else ""),
                         "cards": [self._card(c) for c in op] or [card("no open prediction", "none")], "note": note})
        sections.append({"title": "Open prediction cards", "rows": rows})
        if phase in (B.PH_PLAY, B.PH_CLOSE, B.PH_DONE) or trick > 0:
            rows = []
            for t in (trick - 1, trick):
                if t < 0 or t >= B.MAX_TRICKS:
                    continue
                played = [(s, int(obs[B.T_CARDS + 4 * t + s])) for s in range(P)]
                if all(c < 0 for _, c in played):
                    continue
                cards = [card(f"{seat_name(s, you)}: {B.card_name(c)}", "bk " + B.COLOUR_NAMES[B.colour_of(c)])
                         for s, c in played if c >= 0]
                win = int(obs[B.T_WIN + t])
                note = ""
                if t < trick and win >= 0:
                    closed = int(obs[B.T_CLOSE + t])
                    note = f"won by {seat_name(win, you)}: " + (f"closes {B.card_name(closed)}" if closed >= 0
                                                                  else "an extra trick")
                rows.append({"label": f"trick {t + 1}" + (" (last)" if t < trick else ""), "cards": cards,
                             "note": note})
            if rows:
                sections.append({"title": "Tricks", "rows": rows})
        rows = [{"label": seat_name(s, you), "cards": [card(int(obs[B.S_TOTAL + s]), "score")]} for s in range(P)]
        sections.append({"title": f"Game totals after {int(obs[B.S_HANDNO])} of {int(obs[B.S_NHANDS])} hands",
                         "rows": rows})
        if turn < 0 or phase == B.PH_DONE and int(obs[B.S_HANDNO]) >= int(obs[B.S_NHANDS]):
            status = "The game is over."
        elif turn == you:
            status = {B.PH_FORECAST: "Your forecast: choose 0 to 5 cards to lay as prediction cards.",
                      B.PH_PLAY: "Your turn: play a card (follow the colour led if you can).",
                      B.PH_CLOSE: "You won the trick: choose which prediction card to close."}.get(phase, "Your turn.")
        else:
            status = f"Seat {turn + 1} is playing."
        return {"status": status, "sections": sections, "turn": turn}

    def _hand_order(self, obs, seat):
        import ludolab.stdlib.books as B

        return self._cards(obs, B.L_HAND + seat)

    def _label(self, b, obs, action):
        import ludolab.stdlib.books as B

        phase = int(obs[B.S_PHASE])
        if phase == B.PH_FORECAST:
            hand = self._hand_order(obs, int(obs[B.S_TURN]))
            if int(obs[B.S_TURN]) != int(obs[B.S_VIEWER]) and int(obs[B.S_VIEWER]) >= 0:
                return f"lays {bin(action).count('1')} prediction cards"
            laid = [B.card_name(hand[i]) for i in range(len(hand)) if (action >> i) & 1]
            return "lay " + " ".join(laid) if laid else "lay nothing"
        if phase == B.PH_CLOSE:
            return f"close {B.card_name(action)}"
        return f"play {B.card_name(action)}"

    def situation_labels(self, obs):
        import ludolab.stdlib.books as B

        return int(obs[B.S_PHASE]) != B.PH_FORECAST

    def public_label(self, b, seat, before, after, action):
        import ludolab.stdlib.books as B

        phase = int(before[B.S_PHASE])
        if phase == B.PH_FORECAST:
            laid = [B.card_name(c) for c in self._cards(after, B.L_OPEN + seat)]
            return "lays " + (" ".join(laid) if laid else "nothing")
        return self._label(b, before, action).replace("play ", "plays ").replace("close ", "closes ")

    def picker(self, b, obs, legal):
        import ludolab.stdlib.books as B

        if int(obs[B.S_PHASE]) != B.PH_FORECAST:
            return None
        hand = self._hand_order(obs, int(obs[B.S_VIEWER]) if int(obs[B.S_VIEWER]) >= 0 else int(obs[B.S_TURN]))
        return {"kind": "subset", "max": B.MAX_PREDICTIONS, "button": "Lay these prediction cards",
                "items": [self._card(c) for c in hand]}


# ====================================================================== Shelve the Book
class ShelfAdapter(Adapter):
    """Shelve the Book: draft from the offer or the pile, shelve one book per turn (SHB-5..SHB-11)."""

    id = "shelf"
    face = "shelf"
    title = "Shelve the Book"
    measure = "shelf_points"
    moment = "round of placements"

    def __init__(self):
        super().__init__()
        from ludolab.stdlib.shelf import ShelfRules

        def make(**kw):
            def build(n):
                from ludolab.sim.shelf import step_rules

                r = ShelfRules(players=n, **kw)
                return step_rules(r), r
            return build

        self.variants = {
            "standard": Variant("standard", "the assumed 90-card deck, runs score on shelves (rows)", (2, 3, 4, 5),
                                make()),
            "columns": Variant("columns", "runs score on shelves and in columns", (2, 3, 4, 5),
                               make(variant="columns")),
        }

    def moment_name(self, k):
        return f"{k} books shelved each"

    def _cardinfo(self, b, c):
        d = b.ctx.deck
        colour = d.colours[c]
        return card(f"{d.fields[c][:3].upper()} {int(d.numbers[c])} {d.authors[c]}", "sh " + str(colour),
                    title=d.describe(c))

    def _view(self, b, obs, you):
        K = self.kernels
        P = b.n
        mover = int(obs[K.S_SEAT])
        nheld = int(obs[K.S_NHELD])
        sections = []
        offer = [int(obs[K.OFFER0 + j]) for j in range(int(obs[K.S_OFFER]))]
        sections.append({"title": "The offer", "rows": [
            {"label": f"pile: {int(obs[K.S_PILE])} cards", "cards": [self._cardinfo(b, c) if c >= 0 else card("?", "hidden")
                                                                      for c in offer]}]})
        held = []
        if mover == you and nheld > 0:
            held = [int(obs[K.HELD0 + i]) for i in range(nheld)]
        else:
            h = int(obs[K.HAND0 + you])
            held = [h] if h >= 0 else []
        sections.append({"title": "In your hand", "rows": [
            {"label": "held" if mover == you and nheld > 0 else "kept",
             "cards": [self._cardinfo(b, c) if c >= 0 else card("?", "hidden") for c in held] or [card("-", "none")]}]})
        for s in [you] + [q for q in range(P) if q != you]:
            grid = [[int(obs[K.GRID0 + s * K.NCELL + K.GW * r + c]) for c in range(K.GW)] for r in range(K.GH)]
            fr = self._frame(obs, s)
            if fr is not None:
                rmin, rmax, cmin, cmax = fr
                # the places a card may still go: one beyond the frame while it is under 3 x 5 (SHB-8)
                r0, r1 = max(0, rmin - 1, rmax - 2), min(K.GH - 1, rmax + 1, rmin + 2)
                c0, c1 = max(0, cmin - 1, cmax - 4), min(K.GW - 1, cmax + 1, cmin + 4)
            else:
                rmin = r0 = r1 = K.CENTRE // K.GW
                cmin = c0 = c1 = K.CENTRE % K.GW
            g = {"cols": [f"c{c - cmin + 1}" for c in range(c0, c1 + 1)],
                 "rows": [{"label": f"r{r - rmin + 1}", "cells": [self._cardinfo(b, grid[r][c]) if grid[r][c] >= 0
                                                                  else None for c in range(c0, c1 + 1)]}
                          for r in range(r0, r1 + 1)]}
            known = int(obs[K.O_KNOWN0 + s]) if s != you else -1
            note = f"{int(obs[K.NPL0 + s])} books shelved"
            if known >= 0:
                note += f"; holds {b.ctx.deck.ids[known]}"
            sections.append({"title": f"{seat_name(s, you)}: tableau", "grid": g, "note": note})
        if self._over(obs, b):
            status = "The game is over."
        elif mover == you:
            status = ("Your turn: take a card from the offer, or draw two from the pile." if nheld == 0 or int(obs[K.S_SRC]) < 0
                      else "Shelve one held book (and choose what to keep or put back).")
        else:
            status = f"Seat {mover + 1} is playing."
        return {"status": status, "sections": sections, "turn": -1 if self._over(obs, b) else mover}

    def _frame(self, obs, s):
        """(top row, bottom row, left column, right column) of seat s's placed cards on the grid, or None."""
        K = self.kernels
        if int(obs[K.NPL0 + s]) == 0:
            return None
        q = K.BB0 + 4 * s
        return int(obs[q]), int(obs[q + 1]), int(obs[q + 2]), int(obs[q + 3])

    def _place(self, obs, s, cell):
        """A place of seat s's tableau as ``rRcC``: shelf R and place C counted from 1 in the frame of the
        cards placed so far (0: a new shelf above, a new place to the left); ``r1c1`` for the first card."""
        K = self.kernels
        fr = self._frame(obs, s)
        if fr is None:
            return "r1c1"
        row, col = divmod(cell, K.GW)
        return f"r{row - fr[0] + 1}c{col - fr[2] + 1}"

    def _over(self, obs, b):
        from ludolab.stdlib.shelf import CARDS_PER_PLAYER

        K = self.kernels
        return all(int(obs[K.NPL0 + s]) >= CARDS_PER_PLAYER for s in range(b.n))

    def _label(self, b, obs, action):
        K = self.kernels
        if action < K.A_PLACE0:
            if action == K.A_DRAW:
                return "draw two from the pile"
            c = int(obs[K.OFFER0 + action])
            return f"take {b.ctx.deck.ids[c]} from the offer" if c >= 0 else f"take offer card {action + 1}"
        x = action - K.A_PLACE0
        pr, cell = divmod(x, K.NCELL)
        p, r = divmod(pr, 3)
        nheld = int(obs[K.S_NHELD])
        held = [int(obs[K.HELD0 + i]) for i in range(max(nheld, 0))]

        def name(i):
            return b.ctx.deck.ids[held[i]] if i < len(held) and held[i] >= 0 else f"held card {i + 1}"
        text = f"shelve {name(p)} at {self._place(obs, int(obs[K.S_SEAT]), cell)}"
        if nheld == 3:
            keep = ({0, 1, 2} - {p, r}).pop()
            text += f", put {name(r)} back, keep {name(keep)}"
        elif nheld == 2:
            text += f", keep {name(1 - p)}"
        return text

    def public_label(self, b, seat, before, after, action):
        K = self.kernels
        if action < K.A_PLACE0:
            return self._label(b, before, action).replace("take ", "takes ").replace("draw two", "draws two")
        cell = (action - K.A_PLACE0) % K.NCELL
        c = int(after[K.GRID0 + seat * K.NCELL + cell])
        return f"shelves {b.ctx.deck.ids[c] if c >= 0 else 'a book'} at {self._place(before, seat, cell)}"


# ====================================================================== Beverbende
class BeverbendeAdapter(Adapter):
    """Beverbende: four face-down cards per player, draw or take, specials, knock (BVB-6..BVB-15)."""

    id = "beverbende"
    face = "beverbende"
    title = "Beverbende"
    units = "penalty points (lower is better)"
    lower_better = True
    measure = "bev_score"
    moment = "round"

    def __init__(self):
        super().__init__()
        from ludolab.stdlib.beverbende import BeverbendeRules

        def make(**kw):
            def build(n):
                r = BeverbendeRules(players=n, **kw)
                return r.rules_array(), r
            return build

        self.variants = {
            "one-round": Variant("one-round", "the rulebook's deck and rules, a single round", (2, 3, 4, 5, 6),
                                 make(rounds=1)),
            "rulebook": Variant("rulebook", "the rulebook: the rulebook's number of rounds", (2, 3, 4, 5, 6), make()),
            "exchange-specials": Variant("exchange-specials", "a drawn special card may be put into the row; one round",
                                         (2, 3, 4, 5, 6), make(rounds=1, exchange_specials=True)),
            "win-count": Variant("win-count", "the rulebook's rounds, each won by the lowest row (ties all win): "
                                 "the most rounds won wins (BVB-15)", (2, 3, 4, 5, 6), make(scoring="win-count")),
        }

    def scoring(self, ctx):
        """Penalty points, lowest best; under win-count scoring rounds won, highest best (BVB-15)."""
        if ctx.scoring == "win-count":
            return False, "rounds won (higher is better)", "win_share"
        return super().scoring(ctx)

    def situation_labels(self, obs):
        # the situation module counts seats and slots from 0 (the advise command's notation); the page
        # counts both from 1 on every game, so it keeps its own words here
        return False

    @staticmethod
    def _c(v):
        from ludolab.stdlib.beverbende import CARD_NAMES

        if v < 0:
            return card("?", "hidden")
        cls = "bv special" if v >= 10 else ("bv low" if v <= 3 else "bv high" if v >= 7 else "bv mid")
        return card(CARD_NAMES[v], cls)

    def _view(self, b, obs, you):
        K = self.kernels
        P = b.n
        phase = int(obs[K.O_PHASE])
        turn = int(obs[K.O_TURN])
        over = int(obs[K.O_OVER]) == 1
        sections = []
        top = int(obs[K.O_TOP])
        rows = [{"label": "discard pile", "cards": [self._c(top) if top >= 0 else card("empty", "none")],
                 "note": f"draw pile: {int(obs[K.O_PILE_N])} cards"}]
        if int(obs[K.O_CARD]) >= 0:
            rows.append({"label": "drawn card", "cards": [self._c(int(obs[K.O_CARD]))],
                         "note": "first of a draw twice" if int(obs[K.O_MODE]) == 1 else ""})
        sections.append({"title": "The table", "rows": rows})
        rows = []
        for s in [you] + [q for q in range(P) if q != you]:
            slots = [self._c(int(obs[K.O_KNOW + 4 * s + i])) for i in range(K.SLOTS)]
            for i, sl in enumerate(slots):
                sl["text"] = f"{i + 1}: {sl['text']}"
            note = ""
            if int(obs[K.O_KNOCKER]) == s:
                note = "knocked"
            rows.append({"label": seat_name(s, you), "cards": slots, "note": note})
        sections.append({"title": "Rows (what you know; ? = not seen or forgotten)", "rows": rows})
        rows = [{"label": seat_name(s, you), "cards": [card(int(obs[K.O_TOTAL + s]), "score")]} for s in range(P)]
        what = "Penalty points" if b.lower_better else "Rounds won"
        sections.append({"title": f"{what} (round {int(obs[K.O_ROUND]) + 1})", "rows": rows})
        if over or turn < 0:
            status = "The game is over."
        elif turn == you:
            status = {K.PH_ACTION: "Your turn: take the top discard into a slot, or draw.",
                      K.PH_DRAWN: "You drew a card: exchange it, discard it, or use it.",
                      K.PH_SWAP: "Swap: choose one of your cards and one of another player's.",
                      K.PH_PEEK: "Peek: choose one of your cards to look at.",
                      K.PH_KNOCK: "Knock now (the others get one more turn) or not?"}.get(phase, "Your turn.")
        else:
            status = f"Seat {turn + 1} is playing."
        return {"status": status, "sections": sections, "turn": -1 if over else turn}

    def _label(self, b, obs, action):
        from ludolab.stdlib.beverbende import CARD_NAMES

        K = self.kernels
        phase = int(obs[K.O_PHASE])
        if phase == K.PH_ACTION:
            top = int(obs[K.O_TOP])
            return "draw from the pile" if action == 4 else (
                f"take the discard {CARD_NAMES[top] if top >= 0 else ''} into slot {action + 1}")
        if phase == K.PH_DRAWN:
            if action < 4:
                return f"exchange the drawn card into slot {action + 1}"
            if action == 4:
                return "discard it and draw again" if int(obs[K.O_MODE]) == 1 else "discard it"
            return "use the special card"
        if phase == K.PH_SWAP:
            own, rest = divmod(action, 24)
            q, s = divmod(rest, 4)
            return f"swap your slot {own + 1} with seat {q + 1}'s slot {s + 1}"
        if phase == K.PH_PEEK:
            return f"look at your slot {action + 1}"
        if phase == K.PH_KNOCK:
            return "knock" if action == 1 else "don't knock"
        return str(action)

    def public_label(self, b, seat, before, after, action):
        from ludolab.stdlib.beverbende import CARD_NAMES

        K = self.kernels
        phase = int(before[K.O_PHASE])
        if phase == K.PH_DRAWN:
            if action < 4:
                return f"exchanges the drawn card into slot {action + 1}"
            top = int(after[K.O_TOP])
            if action == 4:
                return f"discards {CARD_NAMES[top] if top >= 0 else 'it'}"
            return f"plays the special card {CARD_NAMES[top] if top >= 0 else ''}"
        if phase == K.PH_SWAP:
            own, rest = divmod(action, 24)
            q, s = divmod(rest, 4)
            whose = "your" if q == int(before[K.O_SEAT]) else f"seat {q + 1}'s"
            return f"swaps its slot {own + 1} with {whose} slot {s + 1}"
        if phase == K.PH_PEEK:
            return f"looks at slot {action + 1}"
        if phase == K.PH_KNOCK:
            return "knocks" if action == 1 else "does not knock"
        t = self._label(b, before, action)
        return t.replace("draw from", "draws from").replace("take the", "takes the")


ADAPTERS = {a.id: a for a in (BoxAdapter(), BooksAdapter(), ShelfAdapter(), BeverbendeAdapter())}


def adapter(game: str) -> Adapter:
    """The adapter of ``game`` (box, books, shelf, beverbende).

    Raises:
        PlayError: an unknown game, naming the allowed ones.
    """
    if not isinstance(game, str) or game not in ADAPTERS:
        raise PlayError(f"unknown game {game!r}: allowed are {', '.join(ADAPTERS)}")
    return ADAPTERS[game]
