"""Urubugu's free initial settings: drawn uniformly from all settings, or from the families
players ask about (the Urubugu program's README: "How do initial settings influence the
game?"). A setting is 16 counts in the owner's hole order (holes 1-8 the back row, 9-16 the
front row) holding 32 beads.
"""

from __future__ import annotations

import random

HOLES = 16
BEADS = 32


def uniform(rng: random.Random, holes: int = HOLES, beads: int = BEADS) -> list[int]:
    """A setting drawn uniformly from all C(beads + holes - 1, holes - 1) settings (the
    places of the bars among stars and bars)."""
    bars = sorted(rng.sample(range(beads + holes - 1), holes - 1))
    parts, previous = [], -1
    for bar in bars + [beads + holes - 1]:
        parts.append(bar - previous - 1)
        previous = bar
    return parts


def back_row(rng: random.Random) -> list[int]:
    """Every bead in the back row (holes 1-8), spread uniformly."""
    return uniform(rng, 8) + [0] * 8


def front_row(rng: random.Random) -> list[int]:
    """Every bead in the front row (holes 9-16), spread uniformly."""
    return [0] * 8 + uniform(rng, 8)


def spread(rng: random.Random) -> list[int]:
    """Every hole holds 1 to 3 beads (2 on average, as the default)."""
    counts = [2] * HOLES
    for _ in range(rng.randint(0, 8)):  # move a bead from a hole of 2+ to one of at most 2
        source = rng.choice([h for h in range(HOLES) if counts[h] >= 2])
        target = rng.choice([h for h in range(HOLES) if counts[h] <= 2 and h != source])
        counts[source] -= 1
        counts[target] += 1
    return counts


def heaped(rng: random.Random) -> list[int]:
    """All beads in two holes chosen at random."""
    first, second = rng.sample(range(HOLES), 2)
    counts = [0] * HOLES
    counts[first] = rng.randint(1, BEADS - 1)
    counts[second] = BEADS - counts[first]
    return counts


FAMILIES = {"uniform": uniform, "back_row": back_row, "front_row": front_row,
            "spread": spread, "heaped": heaped}


def draw(family: str, rng: random.Random) -> list[int]:
    """A setting of ``family`` (one of ``FAMILIES``)."""
    return FAMILIES[family](rng)
