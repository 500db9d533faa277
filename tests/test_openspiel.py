"""The OpenSpiel games (mancalab.openspiel): OpenSpiel's own checks and algorithms on every
game, and mancalab's Kalah without empty capture against OpenSpiel's own mancala."""

from __future__ import annotations

import random

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import evaluate_bots, mcts, minimax

import mancalab
from mancalab import openspiel
from mancalab.analysis import solving

GAMES = mancalab.variants()
openspiel.register()


@pytest.mark.parametrize("name", GAMES)
def test_random_sim_test_passes(name):
    game = pyspiel.load_game(f"mancalab_{name}")
    # 3-row Gabata's random games run to hundreds of moves: one is enough
    pyspiel.random_sim_test(game, num_sims=1 if name == "gabata3" else 3, serialize=False,
                            verbose=False)


def test_parameters_are_the_games_options():
    game = pyspiel.load_game("mancalab_kalah(board=37,empty_capture=False)")
    start = game.new_initial_state()
    fair = mancalab.variant("kalah", board=37, empty_capture=False).start()
    assert start.observation_tensor(0) == list(map(float, fair.cells))
    small = pyspiel.load_game("mancalab_kalah(pits=4,seeds=3)")
    assert small.num_distinct_actions() == 4
    assert small.new_initial_state().legal_actions() == [0, 1, 2, 3]
    assert pyspiel.load_game("mancalab_gebeta(lap_limit=10)").variant.options["lap_limit"] == 10
    with pytest.raises(Exception, match="pits"):
        pyspiel.load_game("mancalab_kalah(pits=0)")


@pytest.mark.parametrize("name", GAMES)
def test_openspiel_mcts_bot_plays(name):
    """OpenSpiel's Python MCTS against its random bot: moves from the MCTS are legal and a
    game runs (cut at 60 moves; 3-row Gabata's random rollouts run to hundreds of moves in
    OpenSpiel's Python loop, so there a few moves)."""
    game = pyspiel.load_game(f"mancalab_{name}")
    rng = np.random.RandomState(1)
    bot = mcts.MCTSBot(game, uct_c=2.0, max_simulations=20,
                       evaluator=mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    state = game.new_initial_state()
    for _ in range(6 if name == "gabata3" else 60):
        if state.is_terminal():
            break
        if state.current_player() == 0:
            action = bot.step(state)
        else:
            action = rng.choice(state.legal_actions())
        assert action in state.legal_actions()
        state.apply_action(action)


def test_a_whole_game_of_openspiel_bots():
    game = pyspiel.load_game("mancalab_kalah(pits=4,seeds=2)")
    rng = np.random.RandomState(2)
    bots = [mcts.MCTSBot(game, 2.0, 50, mcts.RandomRolloutEvaluator(1, rng), random_state=rng),
            pyspiel.make_uniform_random_bot(1, 3)]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
    assert returns[0] == -returns[1] and returns[0] in (-1, 0, 1)


def test_openspiel_alpha_beta_agrees_with_the_solver():
    """OpenSpiel's alpha-beta solves small Kalahs to the same win, draw or loss as mancalab."""
    for pits, seeds in ((2, 2), (3, 1), (2, 3)):
        game = pyspiel.load_game(f"mancalab_kalah(pits={pits},seeds={seeds})")
        value, _ = minimax.alpha_beta_search(game, maximum_depth=200)
        exact = solving.solve(mancalab.variant("kalah", pits=pits, seeds=seeds).start()).value
        assert value == np.sign(exact), (pits, seeds)


@pytest.mark.parametrize("name", GAMES)
def test_depth_limited_alpha_beta_on_every_game(name):
    game = pyspiel.load_game(f"mancalab_{name}")
    state = game.new_initial_state()

    def material(s):  # the mover-independent material margin for player 0
        held = s.position.material
        return float(np.tanh((held[0] - held[1]) / 10))

    value, action = minimax.alpha_beta_search(game, state, material, maximum_depth=3,
                                              maximizing_player_id=0)
    assert -1 <= value <= 1 and action in state.legal_actions()


def _openspiel_cells(state) -> list[int]:
    """OpenSpiel mancala's board, in mancalab's Kalah cell order, read from its text."""
    top, middle, bottom = str(state).splitlines()[:3]
    ends = middle.split("-")
    return ([int(x) for x in bottom.strip("-").split("-")] + [int(ends[-1])]
            + [int(x) for x in top.strip("-").split("-")][::-1] + [int(ends[0])])


def test_kalah_without_empty_capture_is_openspiels_mancala():
    """Move for move: the legal moves, the player to move and every board agree over 200
    random games, and so does the winner (OpenSpiel leaves the seeds left on the board at
    the end, mancalab banks them, as the rules say)."""
    theirs = pyspiel.load_game("mancala")
    ours = mancalab.variant("kalah", empty_capture=False)
    rng = random.Random(5)
    for _ in range(200):
        their, our = theirs.new_initial_state(), ours.start()
        while not their.is_terminal():
            assert their.current_player() == our.to_move
            assert their.legal_actions() == sorted((c + 1) % 14 for c in our.legal_moves())
            move = rng.choice(our.legal_moves())
            their.apply_action((move + 1) % 14)
            our = our.play(move)
            if not our.is_over:
                assert _openspiel_cells(their) == list(our.cells)
        cells = _openspiel_cells(their)
        assert our.is_over and our.score == (sum(cells[:7]), sum(cells[7:]))
        a, b = our.score
        assert their.returns()[0] == np.sign(a - b)
