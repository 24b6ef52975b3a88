"""Shelve the Book as data: decks, the ruleset, scoring variants, tableau parsing.

Clause ids (``SHB-n``) refer to ``seeds/shelve_the_book.md``.

A deck is a :class:`Deck`: per card an id, a field, a colour, an author
surname and an accession number.  The kernels see a card as a small int (its
index in the deck) and a deck as ``attrs``, an int16 array of shape (n, 4):
column 0 the field index, 1 the colour index, 2 the accession number, 3 the
author's alphabetical rank (equal surnames, compared ignoring case, share a
rank, so they never form a strictly alphabetical run).
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np

from .errors import LudolabError, ascii_whole, unknown
from .jsonfile import load_json

#: Name of the default deck (ruling S1); it is an assumption, not the real deck.
ASSUMED_DECK = "assumed-90"
ASSUMED_LABEL = "assumed-90 (assumed deck: the real deck list is unpublished)"

#: Attribute columns of ``Deck.attrs``.
A_FIELD, A_COLOUR, A_NUMBER, A_AUTHOR = 0, 1, 2, 3

#: Combination kinds (SHB-10), in the order the kernels index them.
KINDS = ("colour", "field", "number-up", "number-down", "author-up", "author-down")
#: Kinds grouped as the report shows them.
KIND_GROUPS = {"colour": "colour", "field": "field", "number-up": "number", "number-down": "number",
               "author-up": "author", "author-down": "author"}

#: Scoring variants (SHB-11): points by run length 0..5, and whether columns score.
VARIANTS = {
    "standard": ((0, 0, 0, 1, 3, 5), False),
    "flat": ((0, 0, 0, 1, 2, 3), False),
    "linear": ((0, 0, 0, 3, 4, 5), False),
    "pairs": ((0, 0, 1, 2, 4, 6), False),
    "columns": ((0, 0, 0, 1, 3, 5), True),
}
VARIANT_TEXT = {
    "standard": "runs of 3/4/5 score 1/3/5 (published)",
    "flat": "runs of 3/4/5 score 1/2/3",
    "linear": "one point per book in a run of 3+",
    "pairs": "runs of 2/3/4/5 score 1/2/4/6",
    "columns": "1/3/5, columns scored too",
}
TIEBREAKS = ("shared", "sequences")

MIN_PLAYERS, MAX_PLAYERS = 2, 5
CARDS_PER_PLAYER = 15  # SHB-9
ROWS, COLS = 3, 5  # SHB-8
MAX_DECK = 512

# ------------------------------------------------------------------ the assumed deck
ASSUMED_FIELDS = (("PHI", "philosophy"), ("ECO", "economics"), ("PSY", "psychology"),
                  ("PHY", "physics"), ("HIS", "history"), ("MAT", "mathematics"))
ASSUMED_COLOURS = (("R", "red"), ("B", "blue"), ("G", "green"), ("Y", "yellow"), ("K", "black"))
ASSUMED_SCHOLARS = {
    "philosophy": ("Austin", "Hegel", "Nietzsche", "Kant", "Hume", "Locke", "Descartes", "Spinoza",
                   "Leibniz", "Kierkegaard", "Wittgenstein", "Russell", "Husserl", "Heidegger", "Sartre"),
    "economics": ("Marx", "Greenspan", "Keynes", "Smith", "Ricardo", "Hayek", "Friedman", "Samuelson",
                  "Schumpeter", "Walras", "Pareto", "Malthus", "Veblen", "Arrow", "Coase"),
    "psychology": ("Jung", "Freud", "Piaget", "Skinner", "Pavlov", "Maslow", "Adler", "Wundt",
                   "Bandura", "Milgram", "Vygotsky", "Kahneman", "Tversky", "Erikson", "Rogers"),
    "physics": ("Einstein", "Newton", "Bohr", "Planck", "Feynman", "Maxwell", "Faraday", "Heisenberg",
                "Schrodinger", "Dirac", "Curie", "Fermi", "Boltzmann", "Galilei", "Rutherford"),
    "history": ("Herodotus", "Thucydides", "Gibbon", "Braudel", "Bloch", "Hobsbawm", "Ranke", "Toynbee",
                "Burckhardt", "Carr", "Febvre", "Mommsen", "Macaulay", "Michelet", "Tacitus"),
    "mathematics": ("Blackwell", "Gauss", "Euler", "Riemann", "Hilbert", "Noether", "Cantor", "Fermat",
                    "Galois", "Lagrange", "Cauchy", "Poincare", "Turing", "Ramanujan", "Kolmogorov"),
}
#: The seed the assumed deck was drawn with, once (the result is the checked-in CSV).
ASSUMED_SEED = 90_2026
CSV_COLUMNS = ("id", "field", "colour", "author", "number")


class DeckError(LudolabError):
    """A deck file or deck parameter that cannot be used; the message names the card and the problem."""


class RulesError(LudolabError):
    """An invalid Shelve the Book ruleset; the message names what is allowed."""


class TableauError(LudolabError):
    """A tableau that cannot be scored; the message names the card and what is wrong."""


def _author_key(name: str) -> str:
    return name.strip().casefold()


@dataclass(frozen=True, eq=False)
class Deck:
    """A deck of book cards (SHB-1).

    Attributes:
        name: ``assumed-90``, a file name, or ``generated(...)``.
        ids, fields, colours, authors: tuples of str, one per card.
        numbers: tuple of int accession numbers (distinct).
        assumed: True for the assumed default deck (labelled as assumed everywhere).
    """

    name: str
    ids: tuple
    fields: tuple
    colours: tuple
    authors: tuple
    numbers: tuple
    assumed: bool = False
    field_names: tuple = field(init=False)
    colour_names: tuple = field(init=False)
    attrs: np.ndarray = field(init=False, repr=False)

    def __post_init__(self):
        n = len(self.ids)
        fnames = tuple(sorted(set(self.fields)))
        cnames = tuple(sorted(set(self.colours)))
        keys = sorted({_author_key(a) for a in self.authors})
        rank = {k: i for i, k in enumerate(keys)}
        attrs = np.zeros((n, 4), dtype=np.int16)
        for i in range(n):
            attrs[i, A_FIELD] = fnames.index(self.fields[i])
            attrs[i, A_COLOUR] = cnames.index(self.colours[i])
            attrs[i, A_NUMBER] = self.numbers[i]
            attrs[i, A_AUTHOR] = rank[_author_key(self.authors[i])]
        attrs.setflags(write=False)
        object.__setattr__(self, "field_names", fnames)
        object.__setattr__(self, "colour_names", cnames)
        object.__setattr__(self, "attrs", attrs)

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def label(self) -> str:
        """The deck's name as tables and charts show it (says 'assumed' for the default deck)."""
        return ASSUMED_LABEL if self.assumed else self.name

    @property
    def short_label(self) -> str:
        """A short name for table columns: ``assumed-90 (assumed)`` for the default deck."""
        return f"{self.name} (assumed)" if self.assumed else self.name

    def index(self, card_id: str) -> int:
        """Index of the card with this id.

        Raises:
            DeckError: if no card has this id.
        """
        try:
            return self._index_map()[str(card_id)]
        except KeyError:
            raise DeckError(f"unknown card id {card_id!r}: not in deck {self.name}") from None

    def _index_map(self) -> dict:
        m = self.__dict__.get("_idx")
        if m is None:
            m = {c: i for i, c in enumerate(self.ids)}
            object.__setattr__(self, "_idx", m)
        return m

    def card(self, i: int) -> dict:
        """Card ``i`` as a JSON-able dict (id, field, colour, author, number)."""
        return {"id": self.ids[i], "field": self.fields[i], "colour": self.colours[i],
                "author": self.authors[i], "number": int(self.numbers[i])}

    def describe(self, i: int) -> str:
        """Card ``i`` in words: ``PHY-R-17 (physics, red, Bohr, 17)``."""
        return f"{self.ids[i]} ({self.fields[i]}, {self.colours[i]}, {self.authors[i]}, {self.numbers[i]})"

    def to_csv(self) -> str:
        """The deck as CSV text with the columns of :data:`CSV_COLUMNS`."""
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(CSV_COLUMNS)
        for i in range(len(self)):
            w.writerow([self.ids[i], self.fields[i], self.colours[i], self.authors[i], self.numbers[i]])
        return buf.getvalue()

    def summary(self) -> dict:
        """Counts describing the deck's composition (JSON-able)."""
        pairs = {}
        for f, c in zip(self.fields, self.colours):
            pairs[(f, c)] = pairs.get((f, c), 0) + 1
        return {"deck": self.label, "cards": len(self), "fields": len(self.field_names),
                "colours": len(self.colour_names), "number_min": int(min(self.numbers)),
                "number_max": int(max(self.numbers)), "distinct_authors": len({_author_key(a) for a in self.authors}),
                "field_colour_pairs": len(pairs), "max_cards_per_pair": max(pairs.values()),
                "assumed": self.assumed}


def _check_cards(rows: list[dict], where: str) -> None:
    """Validate card rows (dicts with the CSV columns as str); raises DeckError naming the card."""
    if not rows:
        raise DeckError(f"{where}: the deck holds no card")
    seen_id, seen_num = {}, {}
    for k, row in enumerate(rows, start=1):
        cid = (row.get("id") or "").strip()
        name = f"{where}: card {k}" + (f" ({cid})" if cid else "")
        for col in CSV_COLUMNS:
            v = row.get(col)
            if v is None or str(v).strip() == "":
                raise DeckError(f"{name}: the {col} is missing or empty")
        num = str(row["number"]).strip()
        try:
            if not ascii_whole(num):  # int() also reads fullwidth digits
                raise ValueError
            n = int(num)
        except ValueError:
            raise DeckError(f"{name}: number {num!r} is not a whole number") from None
        if not 0 <= n <= 32000:
            raise DeckError(f"{name}: number {n} is out of range 0..32000")
        if cid in seen_id:
            raise DeckError(f"{name}: id {cid!r} appears twice (cards {seen_id[cid]} and {k})")
        if n in seen_num:
            raise DeckError(f"{name}: number {n} appears twice (cards {seen_num[n]} and {k}); "
                            "accession numbers must be distinct")
        seen_id[cid] = k
        seen_num[n] = k
    if len(rows) > MAX_DECK:
        raise DeckError(f"{where}: {len(rows)} cards is more than the {MAX_DECK} allowed")


def _deck_from_rows(rows: list[dict], name: str, assumed: bool = False) -> Deck:
    _check_cards(rows, name)
    return Deck(name=name,
                ids=tuple(r["id"].strip() for r in rows),
                fields=tuple(r["field"].strip() for r in rows),
                colours=tuple(r["colour"].strip() for r in rows),
                authors=tuple(r["author"].strip() for r in rows),
                numbers=tuple(int(str(r["number"]).strip()) for r in rows),
                assumed=assumed)


def read_deck_csv(text: str, name: str) -> Deck:
    """A deck from CSV text with a header naming the columns id, field, colour, author, number.

    Raises:
        DeckError: a missing column, or a card with a missing or empty value, a
            number that is not a whole number, a repeated id or number.
    """
    reader = csv.DictReader(io.StringIO(text))
    header = [h.strip() for h in (reader.fieldnames or [])]
    missing = [c for c in CSV_COLUMNS if c not in header]
    if missing:
        raise DeckError(f"{name}: a deck CSV needs the columns {', '.join(CSV_COLUMNS)}; "
                        f"missing {', '.join(missing)}")
    rows = []
    for row in reader:
        extra = row.pop(None, None)
        row = {(k or "").strip(): v for k, v in row.items()}
        if extra and any(str(x).strip() for x in extra):
            raise DeckError(f"{name}: card {len(rows) + 1} has more fields than the header "
                            f"({', '.join(CSV_COLUMNS)})")
        if all(v is None or str(v).strip() == "" for v in row.values()):
            continue  # a line of empty fields
        rows.append(row)
    return _deck_from_rows(rows, name)


def load_deck(path: str | Path | None) -> Deck:
    """The deck in a CSV file (SHB-1); ``None`` or ``"assumed-90"`` gives the assumed default deck.

    Raises:
        DeckError: the file cannot be read or a card is invalid (see :func:`read_deck_csv`).
    """
    if path is None or str(path) == ASSUMED_DECK:
        return assumed_deck()
    from .jsonfile import read_input

    p = Path(path)
    data = read_input(p, "deck file", DeckError, binary=True, cannot=f"cannot read deck file {p.name}")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise DeckError(f"deck file {p.name} is not UTF-8 text (a CSV with columns "
                        f"{', '.join(CSV_COLUMNS)} is expected)") from None
    return read_deck_csv(text, p.name)


@lru_cache(maxsize=1)
def assumed_deck() -> Deck:
    """The default deck ``assumed-90`` (ruling S1), read from the checked-in data file."""
    text = resources.files("ludolab.stdlib").joinpath("data", "assumed-90.csv").read_text(encoding="utf-8")
    d = read_deck_csv(text, ASSUMED_DECK)
    return Deck(d.name, d.ids, d.fields, d.colours, d.authors, d.numbers, assumed=True)


def build_assumed_deck(seed: int = ASSUMED_SEED) -> Deck:
    """Draw the assumed deck from scratch (done once; the result is the checked-in CSV).

    6 fields x 5 colours x 3 cards; numbers 1..90 dealt to the cards in a random
    order; each field's 15 scholars dealt to its 15 cards in a random order.
    """
    rng = np.random.default_rng(seed)
    numbers = rng.permutation(90) + 1
    rows = []
    k = 0
    for code, fname in ASSUMED_FIELDS:
        names = list(ASSUMED_SCHOLARS[fname])
        order = rng.permutation(len(names))
        j = 0
        for letter, cname in ASSUMED_COLOURS:
            for _ in range(3):
                num = int(numbers[k])
                rows.append({"id": f"{code}-{letter}-{num}", "field": fname, "colour": cname,
                             "author": names[order[j]], "number": str(num)})
                k += 1
                j += 1
    return _deck_from_rows(rows, ASSUMED_DECK, assumed=True)


def generate_deck(fields: int = 6, colours: int = 5, numbers: tuple[int, int] = (1, 90),
                  correlation: float = 0.0, size: int = 90, seed: int = 0) -> Deck:
    """A synthetic deck for sensitivity studies (SHB-1).

    Args:
        fields: number of academic fields, 1..26; cards are spread evenly over them.
        colours: number of cover colours, 1..26.
        numbers: (low, high) range the accession numbers are drawn from,
            without repetition; needs ``high - low + 1 >= size``.
        correlation: 0..1; 0 spreads the colours evenly over every field, 1
            gives each field its own colour (field k gets colour k mod colours)
            on every card; in between, that fraction of cards (chosen at random)
            takes its field's colour.
        size: number of cards, 32..512 (16 per player for 2 players at least).
        seed: the generator's seed (a local numpy Generator; no global state).

    Author surnames are synthetic (``Scholar-0001`` ...), in a random
    alphabetical order independent of everything else.

    Raises:
        DeckError: a parameter out of range.
    """
    if not 1 <= int(fields) <= 26:
        raise DeckError(f"the number of fields must be 1..26, not {fields}")
    if not 1 <= int(colours) <= 26:
        raise DeckError(f"the number of colours must be 1..26, not {colours}")
    if not 32 <= int(size) <= MAX_DECK:
        raise DeckError(f"the deck size must be 32..{MAX_DECK}, not {size}")
    lo, hi = int(numbers[0]), int(numbers[1])
    if lo < 0 or hi > 32000 or hi - lo + 1 < size:
        raise DeckError(f"the number range {lo}..{hi} must lie in 0..32000 and hold at least {size} numbers")
    if not 0.0 <= float(correlation) <= 1.0:
        raise DeckError(f"the field-colour correlation must be between 0 and 1, not {correlation}")
    rng = np.random.default_rng(int(seed))
    size = int(size)
    f_of = np.arange(size) % fields
    c_of = (np.arange(size) // fields) % colours
    n_corr = int(round(float(correlation) * size))
    pick = rng.permutation(size)[:n_corr]
    c_of[pick] = f_of[pick] % colours
    nums = rng.choice(np.arange(lo, hi + 1), size=size, replace=False)
    author_rank = rng.permutation(size)
    rows = []
    for k in range(size):
        rows.append({"id": f"G{k + 1:03d}", "field": f"field-{chr(65 + f_of[k])}",
                     "colour": f"colour-{chr(65 + c_of[k])}", "author": f"Scholar-{author_rank[k] + 1:04d}",
                     "number": str(int(nums[k]))})
    name = (f"generated(fields={fields}, colours={colours}, numbers={lo}-{hi}, "
            f"correlation={float(correlation):g}, size={size}, seed={seed})")
    return _deck_from_rows(rows, name)


# ------------------------------------------------------------------ the ruleset
@dataclass(frozen=True, eq=False)
class ShelfRules:
    """A Shelve the Book ruleset.

    Attributes:
        players: 2..5 (SHB-2).
        variant: a scoring variant of :data:`VARIANTS` (SHB-11).
        tiebreak: ``shared`` or ``sequences`` (SHB-12).
        deck: the deck (SHB-1); default the assumed deck.

    Raises:
        RulesError: a value outside the allowed ones, or a deck too small for the players.
    """

    players: int = 4
    variant: str = "standard"
    tiebreak: str = "shared"
    deck: Deck = None

    def __post_init__(self):
        if self.deck is None:
            object.__setattr__(self, "deck", assumed_deck())
        if isinstance(self.players, bool) or not isinstance(self.players, (int, np.integer)) \
                or not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise RulesError(f"players must be {MIN_PLAYERS}..{MAX_PLAYERS}, not {self.players!r}")
        object.__setattr__(self, "players", int(self.players))
        if self.variant not in VARIANTS:
            raise unknown("scoring variant", self.variant, VARIANTS)
        if self.tiebreak not in TIEBREAKS:
            raise unknown("tiebreak", self.tiebreak, TIEBREAKS)
        need = (CARDS_PER_PLAYER + 1) * self.players
        if len(self.deck) < need:
            raise RulesError(f"deck {self.deck.label} has {len(self.deck)} cards; {self.players} players "
                             f"need at least {need} (16 per player, SHB-2)")

    def replace(self, **changes) -> "ShelfRules":
        d = {"players": self.players, "variant": self.variant, "tiebreak": self.tiebreak, "deck": self.deck}
        d.update(changes)
        return ShelfRules(**d)

    @property
    def points(self) -> np.ndarray:
        """int64 (6,): points of a run by its length 0..5 (SHB-11)."""
        return np.array(VARIANTS[self.variant][0], dtype=np.int64)

    @property
    def columns(self) -> bool:
        """Whether columns score too (variant ``columns``, SHB-10)."""
        return VARIANTS[self.variant][1]

    @property
    def min_run(self) -> int:
        return int(np.flatnonzero(self.points)[0])

    def label(self) -> str:
        return (f"Shelve the Book, {self.players} players, scoring {self.variant} "
                f"({VARIANT_TEXT[self.variant]}), ties {self.tiebreak}, deck {self.deck.label}")

    def to_dict(self) -> dict:
        return {"players": self.players, "variant": self.variant, "tiebreak": self.tiebreak,
                "deck": self.deck.label, "deck_cards": len(self.deck), "deck_assumed": self.deck.assumed}


# ------------------------------------------------------------------ tableaus
def _json_kind(v) -> str:
    """What a JSON value is, in JSON's words (for messages)."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    return {dict: "an object", str: "a string", int: "a number", float: "a number"}.get(type(v), "a value")


#: What a card given by its attributes holds (besides an optional ``id``), SHB-1.
CARD_KEYS = ("field", "colour", "author", "number")


def parse_tableau(obj, deck: Deck | None = None) -> Deck:
    """Read a tableau ``{"shelves": [[card x5] x3]}`` (top shelf first, SHB-15).

    A card is an object ``{"field", "colour", "author", "number"}`` or a string,
    the id of a card of ``deck`` (default the assumed deck).

    Returns:
        A :class:`Deck` of the 15 cards in shelf order (card ``5 * r + c`` is
        shelf ``r`` position ``c``), so its ``attrs`` feed the scorers.

    Raises:
        TableauError: the wrong shape, a missing or empty field, a non-integer
            number, a duplicate card, an unknown deck id; one line naming the card.
    """
    if isinstance(obj, str):
        obj = load_json(obj, "tableau", TableauError)
    if not isinstance(obj, dict) or "shelves" not in obj:
        raise TableauError('a tableau is a JSON object {"shelves": [[5 cards], [5 cards], [5 cards]]}')
    shelves = obj["shelves"]
    if not isinstance(shelves, list) or len(shelves) != ROWS:
        got = f"{len(shelves)} shelves" if isinstance(shelves, list) else _json_kind(shelves)
        raise TableauError(f'a tableau has exactly {ROWS} shelves of {COLS} cards ("shelves": a list of {ROWS} '
                           f"lists), not {got}")
    rows = []
    for r, shelf in enumerate(shelves, start=1):
        if not isinstance(shelf, list) or len(shelf) != COLS:
            got = len(shelf) if isinstance(shelf, list) else _json_kind(shelf)
            raise TableauError(f"shelf {r} must hold exactly {COLS} cards, not {got}")
        for c, card in enumerate(shelf, start=1):
            where = f"shelf {r} position {c}"
            if card is None or (isinstance(card, str) and card.strip() in ("", ".")):
                raise TableauError(f"{where} is empty: a scored tableau is full, a card in every place "
                                   "(a deck id or an object with field, colour, author, number)")
            if isinstance(card, str):
                d = deck if deck is not None else assumed_deck()
                try:
                    i = d.index(card)
                except DeckError:
                    raise TableauError(f"{where}: unknown card id {card!r} (not in deck {d.label})") from None
                row = {k: str(v) for k, v in d.card(i).items()}
            elif isinstance(card, dict):
                extra = sorted(set(card) - {"id", *CARD_KEYS})
                if extra:
                    raise TableauError(f"{where}: unknown key {extra[0]!r} on a card: allowed are id, "
                                       + ", ".join(CARD_KEYS))
                row = {"id": str(card.get("id", f"s{r}p{c}"))}
                for col in CARD_KEYS:
                    v = card.get(col)
                    if v is None or (isinstance(v, str) and not v.strip()):
                        raise TableauError(f"{where}: the {col} is missing or empty")
                    if col == "number":  # one rule: a whole number, written as 10, 10.0 or "10"
                        whole = (not isinstance(v, bool) and (
                            isinstance(v, int) or (isinstance(v, float) and v.is_integer())
                            or ascii_whole(v)))
                        if not whole:
                            raise TableauError(f"{where}: number {v!r} is not a whole number: write a whole "
                                               "number 0..32000 (10, 10.0 or \"10\")")
                        v = int(float(v)) if isinstance(v, float) else int(v)
                        if not 0 <= v <= 32000:
                            raise TableauError(f"{where}: number {v} is out of range 0..32000")
                    elif not isinstance(v, str):
                        raise TableauError(f"{where}: the {col} must be text, not {v!r}")
                    row[col] = str(v)
            else:
                raise TableauError(f"{where}: a card is a deck id or an object with field, colour, author, "
                                   f"number, not {json.dumps(card)}")
            row["where"] = where
            rows.append(row)
    seen = {}
    for row in rows:
        key = int(row["number"])
        if key in seen:
            raise TableauError(f"{row['where']}: duplicate card, number {key} is also at {seen[key]}")
        seen[key] = row["where"]
    ids = {}
    for row in rows:
        if row["id"] in ids:
            raise TableauError(f"{row['where']}: duplicate card, id {row['id']!r} is also at {ids[row['id']]}")
        ids[row["id"]] = row["where"]
    return Deck(name="tableau", ids=tuple(r["id"] for r in rows), fields=tuple(r["field"].strip() for r in rows),
                colours=tuple(r["colour"].strip() for r in rows), authors=tuple(r["author"].strip() for r in rows),
                numbers=tuple(int(r["number"]) for r in rows))
