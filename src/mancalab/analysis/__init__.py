"""Analysis, by role: ``solving`` (exact values, databases, what exact play needs),
``stats`` (the game tree and random play), ``research`` (studies of the games), ``teach``
(lessons, puzzles, exercises, worksheets, reviews) and ``compete`` (arena, tournament,
openings, ratings). The tree, perft and random-play statistics are re-exported here."""

from .stats.perft import Perft, perft
from .stats.random_sampled import RandomPlayStats, random_play_stats
from .stats.tree import TreeRow, tree_stats, write_csv

__all__ = ["Perft", "perft", "RandomPlayStats", "random_play_stats", "TreeRow", "tree_stats", "write_csv"]
