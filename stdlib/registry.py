"""The game registry: every game is described once, here.

Everything that loops over games reads :data:`GAMES`: the command line (one
subgroup per game, ``ludolab games``), the report (one section per game), the
benchmark, the provenance of every table and the conformance tests.  A game
``module = "m"`` provides the same file set as every other game:

* ``ludolab.stdlib.m``: rules as data and their validation;
* ``ludolab.sim.m_kernels`` / ``ludolab.sim.m_reference``: the numba kernels
  and their pure-Python twin;
* ``ludolab.sim.m``: the validated face, with ``conformance()``;
* ``ludolab.analysis.m``: tables, charts, ``report_section(ctx)`` and
  ``bench(games, reference_seconds, say)``;
* ``ludolab.analysis.m_cli``: ``group``, the click subgroup.
"""

from __future__ import annotations

import importlib
from dataclasses import asdict, dataclass

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

    def load(self, layer: str):
        """Import one of the game's modules: ``layer`` is ``stdlib``, ``sim``,
        ``kernels``, ``reference``, ``analysis`` or ``cli``."""
        names = {"stdlib": f"ludolab.stdlib.{self.module}", "sim": f"ludolab.sim.{self.module}",
                 "kernels": f"ludolab.sim.{self.module}_kernels",
                 "reference": f"ludolab.sim.{self.module}_reference",
                 "analysis": f"ludolab.analysis.{self.module}", "cli": f"ludolab.analysis.{self.module}_cli"}
        if layer not in names:
            raise unknown("module layer", layer, names)
        return importlib.import_module(names[layer])

    def as_dict(self) -> dict:
        return asdict(self)


#: The registered games, in the order of the report and of ``ludolab games``.
GAMES: tuple[GameInfo, ...] = (
    GameInfo("box", "Shut the Box", "box", "box", "seeds/shut_the_box.md", "1",
             "complete: exact solver, policies, Monte Carlo, matches"),
    GameInfo(id="books", title="Shut The Books", module="books", cli_name="books", rules_file="seeds/shut_the_books.md", rules_version="1", status="engine, heuristic and rollout policies, accuracy study with calibration, forecast advice, variants, hand records"),
    GameInfo(id="beverbende", title="Beverbende", module="beverbende", cli_name="beverbende", rules_file="seeds/beverbende.md", rules_version="1", status="engine with hidden information and memory, reference twin, policies, knock/memory/special-card/variant studies, tuner"),
    GameInfo(id="shelf", title="Shelve the Book", module="shelf", cli_name="shelf", rules_file="seeds/shelve_the_book.md", rules_version="1", status="deck model (assumed deck), drafting and placement engine, tableau scoring, policies, variant and deck studies"),
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
