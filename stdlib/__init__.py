"""ludolab.stdlib: the games as data (rulesets, variants, decks, validation).

Pure Python and numpy; no numba.  Shut the Box: :mod:`ludolab.stdlib.box`.
"""
