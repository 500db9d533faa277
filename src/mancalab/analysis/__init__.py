"""Analysis: exact game-tree statistics and random-play statistics."""

from .playouts import RandomPlayStats, random_play_stats
from .tree import TreeRow, tree_stats, write_csv

__all__ = ["RandomPlayStats", "random_play_stats", "TreeRow", "tree_stats", "write_csv"]
