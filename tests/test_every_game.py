"""Every registered game through the checks any game must pass (``mancalab.testing``), and a
game from another package (``tests/plugin``: its entry point, no edit of mancalab) registered,
checked and played like mancalab's own."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mancalab.testing import simulate
from mancalab.variants import examples

PLUGIN = Path(__file__).parent / "plugin"


@pytest.mark.parametrize("variant", examples(), ids=repr)
def test_random_games_keep_every_promise(variant):
    simulate(variant, games=3)


def test_a_broken_promise_is_named():
    class Misnamed(type(examples()[0])):
        def move_name(self, state, move):
            return "A1"

    with pytest.raises(AssertionError, match="reads back as another move"):
        simulate(Misnamed(), games=1)


@pytest.mark.slow
def test_a_game_from_another_package_plays_everywhere(tmp_path):
    """Installed beside mancalab (its folder on the path holds the package and its
    entry point), the game is listed, passes the checks and plays in the arena. Its own
    compiled kernels go to a folder of their own: the switch over the games then differs."""
    environment = {**os.environ, "PYTHONPATH": str(PLUGIN), "NUMBA_CACHE_DIR": str(tmp_path),
                   "COLUMNS": "120"}
    checked = subprocess.run(
        [sys.executable, "-c", "import mancalab; from mancalab.testing import simulate; "
         "assert 'tiny' in mancalab.variants(); simulate(mancalab.variant('tiny'), games=20)"],
        env=environment, capture_output=True, text=True, timeout=300)
    assert checked.returncode == 0, checked.stderr
    mancalab_command = [sys.executable, "-m", "mancalab"]
    listed = subprocess.run([*mancalab_command, "games"], env=environment, capture_output=True,
                            text=True, timeout=120)
    assert "tiny: Tiny" in listed.stdout
    arena = subprocess.run([*mancalab_command, "arena", "random", "greedy", "--game", "tiny",
                            "--games", "2", "--json"], env=environment, capture_output=True,
                           text=True, timeout=300)
    assert arena.returncode == 0 and '"games": 2' in arena.stdout, arena.stderr + arena.stdout


@pytest.mark.parametrize("variant", examples(), ids=repr)
def test_a_move_name_of_no_hole_is_a_value_error_naming_it(variant):
    start = variant.start()
    stores = variant.score_cells() or ()
    for move in (40, -1, True, 2.5, *stores):
        with pytest.raises(ValueError, match="no hole of this board"):
            variant.move_name(start, move)
    assert all(start.parse_move(start.move_name(m)) == m for m in start.legal_moves())


def test_a_games_facts_are_frozen_records_and_a_flat_fact_is_refused_by_name():
    """Issue 87: what a game says beyond its kernels is in four frozen records (history,
    texts, teaching, solving); a record's fact is not changed in place, an instance whose
    options change one has its own (Kalah's graph layout by its pits), and a game class
    written with a flat fact is refused naming the record to give it in."""
    import dataclasses

    import mancalab
    from mancalab.core import Variant
    from mancalab.variants import VARIANTS

    for cls in VARIANTS.values():
        for group in ("history", "texts", "teaching", "solving"):
            assert dataclasses.is_dataclass(getattr(cls, group)), (cls.name, group)
    oware = mancalab.variant("oware", move_cap=50)
    with pytest.raises(dataclasses.FrozenInstanceError):
        oware.history.move_cap = 7
    assert oware.history.move_cap == 50 and mancalab.variant("oware").history.move_cap == 1000
    small, board = mancalab.variant("kalah", pits=3), mancalab.variant("kalah")
    assert small.solving.graph_layout["slots"] == (0, 1, 2, 4, 5, 6)
    assert len(board.solving.graph_layout["slots"]) == 12
    assert "pit (1-3" in small.texts.move_hint and "seeds in store" == small.texts.score_noun
    with pytest.raises(TypeError, match=r"Old\.puzzle_seeds.*teaching = Teaching\("):
        type("Old", (Variant,), {"puzzle_seeds": 12})
