"""The game registry: every game is described once, here.

Everything that loops over games reads :data:`GAMES`: the command line (one
subgroup per game, ``ludolab games``), the report (one section per game), the
benchmark, the provenance of every table, the conformance and step-interface
harnesses.  Each entry names the game's modules (:data:`LAYERS`) and its entry
points (:data:`ENTRY_POINTS`, ``"module:attribute"``) outright:

* ``stdlib``: rules as data and their validation;
* ``kernels`` / ``reference``: the numba kernels (the step interface of
  :mod:`ludolab.sim.step` among them) and their pure-Python twin;
* ``sim``: the validated face;
* ``analysis``: tables and charts; ``cli``: the click subgroup;
* entry points ``step_game`` (the step-interface harness), ``conformance``
  (the record harness), ``report_section(ctx)``, ``bench(games,
  reference_seconds, say)`` and ``cli_group``.
"""

from __future__ import annotations

import importlib
from dataclasses import asdict, dataclass, field

from .errors import unknown


@dataclass(frozen=True)
class GameInfo:
    """One game.

    Attributes:
        id: short id used in provenance records and file names (``box``).
        title: the game's name as players know it.
        module: stem of the game's modules (see the module docstring).
        cli_name: name of the ``ludolab`` subgroup.
        rules_file: the rules text, clause by clause, relative to the project root.
        rules_version: bumped whenever a rule clause changes meaning.
        status: what works, in a few words.
    """

    id: str
    title: str
    module: str
    cli_name: str
    rules_file: str
    rules_version: str
    status: str
    modules: dict = field(default_factory=dict)
    entry_points: dict = field(default_factory=dict)

    def module_name(self, layer: str) -> str:
        """The module of one layer (:data:`LAYERS`), as the entry names it.

        Raises:
            UnknownNameError: a layer not in :data:`LAYERS`.
        """
        if layer not in LAYERS:
            raise unknown("module layer", layer, LAYERS)
        return self.modules.get(layer) or _default_modules(self.module)[layer]

    def load(self, layer: str):
        """Import one of the game's modules: ``layer`` is one of :data:`LAYERS`."""
        return importlib.import_module(self.module_name(layer))

    def entry(self, name: str):
        """One of the game's entry points (:data:`ENTRY_POINTS`), imported.

        Raises:
            UnknownNameError: a name not in :data:`ENTRY_POINTS`.
        """
        if name not in ENTRY_POINTS:
            raise unknown("entry point", name, ENTRY_POINTS)
        target = self.entry_points.get(name) or _default_entries(self)[name]
        mod, _, attr = target.partition(":")
        return getattr(importlib.import_module(mod), attr)

    def as_dict(self) -> dict:
        d = asdict(self)
        d.pop("modules")
        d.pop("entry_points")
        return d


#: The module layers of a game.
LAYERS = ("stdlib", "kernels", "reference", "sim", "analysis", "cli")
#: The entry points of a game.
ENTRY_POINTS = ("step_game", "conformance", "report_section", "bench", "cli_group")


def _default_modules(stem: str) -> dict:
    """The modules of a game laid out as ``m``, ``m_kernels``, ... (a game made for a test)."""
    return {"stdlib": f"ludolab.stdlib.{stem}", "sim": f"ludolab.sim.{stem}",
            "kernels": f"ludolab.sim.{stem}_kernels", "reference": f"ludolab.sim.{stem}_reference",
            "analysis": f"ludolab.analysis.{stem}", "cli": f"ludolab.analysis.{stem}_cli"}


def _default_entries(g: "GameInfo") -> dict:
    m = {layer: g.module_name(layer) for layer in LAYERS}
    return {"step_game": f"{m['sim']}:step_game", "conformance": f"{m['sim']}:conformance",
            "report_section": f"{m['analysis']}:report_section", "bench": f"{m['analysis']}:bench",
            "cli_group": f"{m['cli']}:group"}


def _entry(stem: str, report: str | None = None) -> dict:
    """The modules and entry points of a registered game, written out."""
    mods = _default_modules(stem)
    return {"modules": mods,
            "entry_points": {"step_game": f"{mods['sim']}:step_game", "conformance": f"{mods['sim']}:conformance",
                             "report_section": f"{report or mods['analysis']}:report_section",
                             "bench": f"{mods['analysis']}:bench", "cli_group": f"{mods['cli']}:group"}}


#: The registered games, in the order of the report and of ``ludolab games``.
GAMES: tuple[GameInfo, ...] = (
    GameInfo("box", "Shut the Box", "box", "box", "seeds/shut_the_box.md", "1",
             "complete: exact solver, policies, Monte Carlo, matches", **_entry("box", report="ludolab.analysis.box_report")),
    GameInfo("books", "Shut The Books", "books", "books", "seeds/shut_the_books.md", "1",
             "engine, heuristic and rollout policies, accuracy study with calibration, forecast advice, "
             "variants, hand records", **_entry("books")),
    GameInfo("beverbende", "Beverbende", "beverbende", "beverbende", "seeds/beverbende.md", "1",
             "engine with hidden information and memory, reference twin, policies, "
             "knock/memory/special-card/variant studies, tuner", **_entry("beverbende")),
    GameInfo("shelf", "Shelve the Book", "shelf", "shelf", "seeds/shelve_the_book.md", "1",
             "deck model (assumed deck), drafting and placement engine, tableau scoring, policies, "
             "variant and deck studies", **_entry("shelf")),
)


def get(game_id: str) -> GameInfo:
    """The registered game with this id (or CLI name).

    Raises:
        UnknownNameError: listing the registered ids.
    """
    for g in GAMES:
        if game_id in (g.id, g.cli_name):
            return g
    raise unknown("game", game_id, [g.id for g in GAMES])


def game_provenance(game_id: str) -> dict:
    """The game part of a provenance record: id, title, rules file and version."""
    g = get(game_id)
    return {"game": g.id, "title": g.title, "rules_file": g.rules_file, "rules_version": g.rules_version}
