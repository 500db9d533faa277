"""A game's params carry its game in their compiled type: searches are compiled per game,
with the same results as through the run-time switch over every game."""

import pickle
import random

import numpy as np
import pytest

import mancalab
from mancalab import kernels, movemask
from mancalab.params import GameParams, GameParamsType, game_params
from mancalab.players import classic


def test_a_games_params_have_its_type_and_derived_arrays_do_not():
    from numba import typeof

    for name in mancalab.variants():
        params = mancalab.variant(name).params
        assert isinstance(params, GameParams) and params.game == params[0]
        assert typeof(params) == GameParamsType(int(params[0]))
        assert not isinstance(typeof(params[1:]), GameParamsType)
        assert not isinstance(typeof(np.asarray(params)), GameParamsType)
        assert not isinstance(typeof(params.copy()), GameParamsType)
        again = pickle.loads(pickle.dumps(params))
        assert typeof(again) == typeof(params) and list(again) == list(params)


def test_a_games_params_cannot_be_changed_to_another_games():
    params = game_params(mancalab.variant("kalah").params)
    with pytest.raises(TypeError):
        params[0] = mancalab.variant("gebeta").params[0]
    with pytest.raises(ValueError, match="read-only"):
        params.array[0] = mancalab.variant("gebeta").params[0]


def test_each_games_params_reach_its_own_compiled_kernels():
    """Two games whose params look alike to numba's dispatcher (1-D int64 arrays of one
    length) are told apart on every call."""
    from numba import njit

    @njit
    def game_of(params):
        return params[0]

    for name in mancalab.variants():
        params = mancalab.variant(name).params
        assert game_of(params) == params.game


def test_the_rules_agree_through_either_path():
    """Each game's own kernels (its params) and the run-time switch (a plain read-only
    array, as the tree statistics pass) play a whole random game alike."""
    rng = random.Random(7)
    for name in mancalab.variants():
        state = mancalab.variant(name).start()
        own, plain = state.variant.params, np.asarray(state.variant.params)
        assert not isinstance(plain, GameParams)
        mine, theirs = state.board.copy(), state.board.copy()
        for _ in range(300):
            legal = kernels.legal_mask(own, mine)
            assert legal == kernels.legal_mask(plain, theirs), name
            if not legal:
                break
            move = movemask.nth(legal, rng.randrange(movemask.count(legal)))
            kernels.play(own, mine, move)
            kernels.play(plain, theirs, move)
            assert list(mine) == list(theirs), name


def test_a_search_is_compiled_for_the_game_it_plays():
    state = mancalab.variant("gabata").start()
    classic.warm_up(state)
    games = {signature[0].game for signature in classic.leaf_extreme.signatures
             if isinstance(signature[0], GameParamsType)}
    assert int(state.variant.params[0]) in games


LOOK_AHEAD = """
import sys
import numpy as np
import mancalab
from mancalab.players import classic
for name, board in zip(sys.argv[1::2], sys.argv[2::2]):  # nothing compiled before
    board = np.array([int(cell) for cell in board.split(",")], dtype=np.int64)
    print(name, classic.leaf_extreme(mancalab.variant(name).params, board, 3, 0, False,
                                     np.array([0, 10 ** 6])))
"""


def test_two_games_compiled_in_two_processes_load_side_by_side(tmp_path):
    """One search compiled for Kalah in one process and for Gebeta in another, each the
    first function compiled there (numba numbers its functions in the order compiled), then
    both loaded from the cache into a third: each game runs its own code (their compiled
    symbols once had one name, and the third process ran one game's look-ahead for both)."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    starts = {name: ",".join(map(str, mancalab.variant(name).start().board))
              for name in ("kalah", "gebeta")}
    compiling = [subprocess.Popen([sys.executable, "-c", LOOK_AHEAD, name, board], env=env,
                                  stdout=subprocess.PIPE, text=True)
                 for name, board in starts.items()]
    compiled = "".join(process.communicate(timeout=300)[0] for process in compiling)
    loaded = subprocess.run([sys.executable, "-c", LOOK_AHEAD, *sum(starts.items(), ())],
                            env=env, capture_output=True, text=True, timeout=300)
    assert loaded.returncode == 0, loaded.stderr
    assert len(compiled.splitlines()) == 2
    assert sorted(loaded.stdout.splitlines()) == sorted(compiled.splitlines())
