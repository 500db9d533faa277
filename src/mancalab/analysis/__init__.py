"""Analysis: random-play statistics (and, from later issues, tree statistics and the arena)."""

from .playouts import RandomPlayStats, random_play_stats

__all__ = ["RandomPlayStats", "random_play_stats"]
