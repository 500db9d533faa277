"""Game statistics any game has: the exact game tree level by level, and random play (sampled
and solved exactly)."""
