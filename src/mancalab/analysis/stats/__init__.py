"""Game statistics any game has: the exact game tree level by level, perft (the move
sequences of a length), and random play (sampled and solved exactly)."""
