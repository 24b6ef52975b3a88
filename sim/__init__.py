"""ludolab.sim: numba kernels, exact solvers, named policies and pure-Python reference engines.

Conventions every game follows:

* rules run as private ``@njit(cache=True)`` kernels over small integer arrays
  or bitmasks, with a thin public face that validates and returns arrays or
  DataFrames;
* a policy compiles to data the kernel reads (Shut the Box: a move table per
  state and roll; card games: a policy id plus a parameter array), never to a
  Python callback;
* chance goes through :mod:`ludolab.sim.rng` (one stream per game, keyed by
  chunk), so a kernel and its pure-Python twin draw the same dice or deal the
  same cards, and several policies can be played on the same deals;
* runs go through :mod:`ludolab.sim.experiment` (chunked, seeded, parallel) and
  estimates through :mod:`ludolab.sim.stats` (95% confidence intervals).
"""
