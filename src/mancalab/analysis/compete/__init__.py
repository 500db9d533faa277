"""Players against each other: the arena, the round-robin tournament, balanced openings and
Glicko-2 ratings."""
