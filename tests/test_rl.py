"""The PettingZoo and Gymnasium environments (mancalab.rl): the libraries' own checkers on
every game, and what the checkers do not look at (extra turns, rewards, truncation, bad
input, random fair boards)."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pettingzoo
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

from mancalab import IllegalMoveError, UnknownOptionError
import mancalab
from mancalab import rl
from mancalab.variants import VARIANTS

from test_endless import GEBETA_CYCLE  # tests/ is on the path (rootdir)

# every registered game with its defaults and the option sets its class gives the tests
GAMES = [(name, options) for name, game in VARIANTS.items()
         for options in ({}, *game.examples)]


@pytest.fixture(autouse=True)
def _quiet():
    # PettingZoo's checker warns about Dict observations, which its own board games use too
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


@pytest.mark.parametrize("game,options", GAMES)
def test_pettingzoo_api_and_seed_tests_pass(game, options):
    api_test(rl.aec_env(game, **options), num_cycles=300, verbose_progress=False)
    seed_test(lambda: rl.aec_env(game, **options), num_cycles=300)


@pytest.mark.parametrize("game,options", GAMES)
def test_gymnasium_check_env_passes(game, options):
    check_env(rl.gym_env(game, opponent="greedy", **options), skip_render_check=True)


def test_registered_with_both_libraries():
    env = pettingzoo.make("aec", "mancalab/kalah-v0", board="random")
    env.reset(seed=7)
    first = env.unwrapped.game.variant.options["board"]
    env.reset(seed=7)
    assert env.unwrapped.game.variant.options["board"] == first  # the seed picks the board
    boards = set()
    for seed in range(12):
        env.reset(seed=seed)
        boards.add(env.unwrapped.game.variant.options["board"])
    assert len(boards) > 1  # a new fair board each reset
    gym = gymnasium.make("mancalab/gebeta-v0", opponent="easy", seat=1)
    observation, info = gym.reset(seed=1)
    assert info["seat"] == 1 and observation.shape == gym.observation_space.shape


def test_an_extra_turn_selects_the_same_agent():
    env = rl.aec_env("kalah")
    env.reset()
    assert env.agent_selection == "player_0"
    env.step(3)  # pit 4: its 4 seeds end in the store
    assert env.agent_selection == "player_0"
    env.step(0)
    assert env.agent_selection == "player_1"


def _play_out(env, rng) -> None:
    for agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))


def test_rewards_at_the_end_as_outcome_or_margin():
    rng = np.random.default_rng(3)
    for reward in ("outcome", "margin"):
        env = rl.aec_env("kalah", reward=reward)
        env.reset(seed=1)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        last_state = None
        for agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            last_state = env.unwrapped.game.state
            totals[agent] += env._cumulative_rewards[agent]
            if terminated or truncated:
                env.step(None)
            else:
                env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        a, b = last_state.score
        expected = a - b if reward == "margin" else float(np.sign(a - b))
        assert totals["player_0"] == expected == -totals["player_1"]


def test_max_moves_truncates_and_repetition_ends_by_the_rule():
    env = rl.aec_env("gabata3", max_moves=5)
    env.reset(seed=2)
    _play_out(env, np.random.default_rng(1))
    assert len(env.unwrapped.game.record.moves) == 5
    game = rl.Game("gebeta", "outcome", None, "lose", {})
    for cell in GEBETA_CYCLE:  # reaches one position a third time at the last move
        assert not game.over
        game.play(cell % 6)  # Gebeta's actions are the homes from the mover's first
    assert game.over and game.info()["termination"] == "repetition"


def test_illegal_actions_lose_or_raise():
    env = rl.aec_env("kalah", illegal="raise")
    env.reset()
    env.step(3)  # pit 4 sows into the store: an extra turn, and pit 4 is empty
    for bad in (3, 99, -1, "1", None):
        with pytest.raises(IllegalMoveError, match="not legal here"):
            env.step(bad)
    assert env.unwrapped.game.record.moves == [2]  # nothing changed
    env = rl.aec_env("kalah")
    env.reset()
    env.step(99)  # out of range: the mover loses
    assert env.terminations["player_0"]
    assert env.rewards == {"player_0": -1.0, "player_1": 1.0}


def test_bad_options_are_refused_with_a_message():
    for kwargs in ({"reward": "points"}, {"max_moves": 0}, {"max_moves": 2.5},
                   {"render_mode": "human"}, {"illegal": "ignore"}, {"pits": 0}, {"colour": 1}):
        with pytest.raises(UnknownOptionError):
            rl.aec_env("kalah", **kwargs)
    with pytest.raises(UnknownOptionError):
        rl.gym_env("kalah", seat=2)
    with pytest.raises(UnknownOptionError):
        rl.gym_env("kalah", opponent="grandmaster")


@pytest.mark.parametrize("game", mancalab.variants())
def test_render_modes(game):
    env = rl.aec_env(game, render_mode="ansi")
    env.reset()
    text = env.render()
    assert "Turn: A" in text
    env = rl.aec_env(game, render_mode="rgb_array")
    env.reset()
    picture = env.render()
    assert picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape[2] == 3
    assert picture.std() > 0  # not a blank image
