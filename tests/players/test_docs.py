"""The player examples in docs/players.md run as written."""

import re
from pathlib import Path

from mancalab.players import PLAYERS

DOC = Path(__file__).parents[2] / "docs" / "players.md"


def test_writing_a_player_example_runs():
    code = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)[0]
    namespace: dict = {}
    try:
        exec(code, namespace)
        assert namespace["bot"].choose(namespace["mancalab"].variant("gebeta").start()) in range(6)
    finally:
        PLAYERS.pop("twoply", None)


def test_every_level_in_the_doc_is_a_real_player():
    from mancalab.players import LEVELS, player
    text = DOC.read_text()
    for level, spec in LEVELS.items():
        assert f"| `{level}` | `{spec}` |" in text
        assert player(level).spec == player(spec).spec


def test_every_game_level_in_the_doc_is_a_real_player():
    from mancalab.players import GAME_LEVELS, player
    text = DOC.read_text()
    for game, levels in GAME_LEVELS.items():
        for level, spec in levels.items():
            assert f"| `{game}` | `{level}` | `{spec}` |" in text
            assert player(level, game).spec == player(spec).spec
            assert player(level).spec != player(spec).spec
