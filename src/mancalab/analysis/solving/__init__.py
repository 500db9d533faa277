"""Exact values of positions, for every game with a solver, in one place.

``solve(state)`` is the entry (``dispatch``); how a game is solved is its
``Variant.solving.method``:

- ``kalah``: Kalah's MTD(f) search over ``databases`` (endgame databases, built here or on a
  Dask cluster by ``databases_cluster``);
- ``retrograde`` (the databases of Gebeta and Gabata, whose positions repeat), ``graph`` (the
  positions a position reaches above them), ``book`` (the start's graph kept on disk),
  ``repeating`` (a position's value and its moves' from those), and ``questions`` closing
  what a walk leaves open by yes-or-no questions to ``proof`` (depth-first proof search)
  and ``threshold`` (the attractor walk);
- ``forced``: Urubugu's search for forced ends;
- shared by all: ``results`` (what a solve answers, its errors and cancelling), ``ranking``
  (numbering the positions of k seeds) and ``files`` (the database files).
"""

from .dispatch import database_for, method_of, no_databases, ready, renew, repeats, solve
from .kalah import Solver, decide, kept_solver_memory, mover_pits, solver_for
from .results import (Cancel, SolveError, SolveResult, describe, describe_bounds, store_margin,
                      unsolvable)

__all__ = ["solve", "decide", "SolveResult", "SolveError", "Cancel", "describe",
           "describe_bounds", "unsolvable", "no_databases", "database_for",
           "renew", "ready", "method_of", "repeats", "Solver", "solver_for",
           "kept_solver_memory", "mover_pits", "store_margin"]
