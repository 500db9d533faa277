"""Reinforcement-learning environments: PettingZoo (two agents) and Gymnasium (one agent
against a mancalab player), for every game and its options. Needs ``pip install
"mancalab[rl]"``.

    import pettingzoo, mancalab.rl      # importing registers mancalab/GAME-v0
    env = pettingzoo.make("aec", "mancalab/kalah-v0", board="random")
    env = mancalab.rl.aec_env("gebeta")
    env = mancalab.rl.gym_env("kalah", opponent="expert", seat="random")

Actions are ``Discrete`` over the mover's holes (``Variant.action_cells``: the same hole for
the same action from either seat), observations ``{"observation", "action_mask"}`` from the
mover's side (``Variant.observation``). A game that repeats a position a third time ends by
the game's rule for endless play (``GameRecord``), as everywhere in mancalab; ``max_moves``
truncates longer games. docs/rl.md has examples.
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np

from .core import IllegalMoveError, State, UnknownOptionError, Variant
from .records import GameRecord
from .variants import DEFAULT_GAME, VARIANTS, variant as make_variant

try:
    import gymnasium
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ImportError as error:  # pragma: no cover - the message is the point
    raise ImportError('mancalab.rl needs the rl extra: pip install "mancalab[rl]"') from error

AGENTS = ("player_0", "player_1")
REWARDS = ("outcome", "margin")
ILLEGAL = ("lose", "raise")
RENDER_MODES = ("ansi", "rgb_array")


class Game:
    """What both environments share: the game's variant (a new fair board each reset when
    asked for ``board="random"``), the record of the game being played, and the spaces."""

    def __init__(self, game: str, reward: str, max_moves: int | None, illegal: str,
                 options: dict) -> None:
        if illegal not in ILLEGAL:
            raise UnknownOptionError(f"illegal must be {' or '.join(ILLEGAL)}, not {illegal!r}")
        if reward not in REWARDS:
            raise UnknownOptionError(f"reward must be {' or '.join(REWARDS)}, not {reward!r}")
        if max_moves is not None and (isinstance(max_moves, bool) or
                                      not isinstance(max_moves, int) or max_moves < 1):
            raise UnknownOptionError(f"max_moves must be a whole number >= 1, not {max_moves!r}")
        self.name, self.reward, self.max_moves, self.illegal = game, reward, max_moves, illegal
        self.forfeit: int | None = None  # the player who lost by an illegal action
        self.random_board = str(options.get("board", "")).strip().lower() == "random"
        self.options = options
        self.variant: Variant = make_variant(game, **options)
        self.record = GameRecord.new(self.variant)
        n = len(self.variant.action_cells(0))
        high = np.array(self.variant.observation_high(), dtype=np.int64)
        self.observation_space = spaces.Dict({
            "observation": spaces.Box(0, high, dtype=np.int64),
            "action_mask": spaces.Box(0, 1, (n,), dtype=np.int8)})
        self.action_space = spaces.Discrete(n)

    def new_game(self, rng: np.random.Generator) -> None:
        if self.random_board:
            from .variants.kalah import fair_boards

            v = self.variant
            count = len(fair_boards(v.pits, v.options["seeds"], v.options["empty_capture"]))
            board = int(rng.integers(1, count + 1))
            self.variant = make_variant(self.name, **{**self.options, "board": board})
        self.record = GameRecord.new(self.variant)
        self.forfeit = None

    @property
    def over(self) -> bool:
        return self.forfeit is not None or self.state.is_over

    @property
    def state(self) -> State:
        return self.record.state

    def mask(self, player: int) -> np.ndarray:
        state = self.state
        if self.over or state.to_move != player:
            return np.zeros(self.action_space.n, dtype=np.int8)
        legal = set(state.legal_moves())
        return np.array([c in legal for c in self.variant.action_cells(player)], dtype=np.int8)

    def observe(self, player: int) -> dict[str, np.ndarray]:
        board = self.state.board
        return {"observation": self.variant.observation(board, player),
                "action_mask": self.mask(player)}

    def play(self, action: Any) -> None:
        """Play the mover's ``action``. An illegal one loses the game (``illegal="lose"``)
        or raises IllegalMoveError naming it and changes nothing (``"raise"``)."""
        player = self.state.to_move
        if not isinstance(action, (int, np.integer)) or not 0 <= action < self.action_space.n \
                or not self.mask(player)[action]:
            legal = np.flatnonzero(self.mask(player)).tolist()
            if self.illegal == "raise":
                raise IllegalMoveError(f"action {action!r} is not legal here (legal: {legal})")
            self.forfeit = player
            return
        self.record.push(self.variant.action_cells(player)[int(action)])

    @property
    def truncated(self) -> bool:
        return (not self.over and self.max_moves is not None
                and len(self.record.moves) >= self.max_moves)

    def result(self, player: int) -> float:
        """``player``'s reward for a finished game: +1/0/-1, or the final margin (a game lost
        by an illegal action: -1, or minus every counter in the game)."""
        if self.forfeit is not None:
            sign = 1.0 if self.forfeit != player else -1.0
            return sign * (1 if self.reward == "outcome" else self.variant.observation_high()[0])
        score = self.state.score
        margin = score[player] - score[1 - player]
        if self.reward == "margin":
            return float(margin)
        outcome = self.state.outcome
        return 0.0 if outcome.kind != "win" else 1.0 if outcome.winner == player else -1.0

    def info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"moves": len(self.record.moves)}
        if self.forfeit is not None:
            info["termination"] = "illegal action"
        elif self.state.is_over:
            info["score"] = self.state.score
            info["termination"] = self.record.termination or self.state.outcome.kind
        return info

    def render(self, mode: str | None) -> Any:
        if mode == "ansi":
            from rich.console import Console

            from .draw import text as render

            console = Console(width=100, record=True, file=io.StringIO(), color_system=None)
            console.print(render.position(self.record))
            return console.export_text()
        if mode == "rgb_array":
            from .draw import image as picture

            last = self.record.moves[-1:] or []
            return picture.rgb(self.state, marks=set(last))
        return None


def _check_render_mode(mode: str | None) -> None:
    if mode is not None and mode not in RENDER_MODES:
        raise UnknownOptionError(f"render_mode must be {' or '.join(RENDER_MODES)}, not {mode!r}")


class MancalaAEC(AECEnv):
    """A two-agent PettingZoo environment of one mancalab game (``aec_env`` wraps it)."""

    metadata = {"render_modes": list(RENDER_MODES), "name": "mancalab_v0",
                "is_parallelizable": False, "render_fps": 2}

    def __init__(self, game: str = DEFAULT_GAME, render_mode: str | None = None,
                 reward: str = "outcome", max_moves: int | None = 1000, illegal: str = "lose",
                 **options: Any) -> None:
        super().__init__()
        _check_render_mode(render_mode)
        self.game = Game(game, reward, max_moves, illegal, options)
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "name": f"mancalab_{game}_v0"}
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        self.observation_spaces = {a: self.game.observation_space for a in AGENTS}
        self.action_spaces = {a: self.game.action_space for a in AGENTS}
        self._rng = np.random.default_rng()
        self._start_episode()

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def _start_episode(self) -> None:
        self.agents = list(AGENTS)
        self.rewards = {a: 0.0 for a in AGENTS}
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos = {a: self.game.info() for a in AGENTS}
        self.agent_selection = AGENTS[self.game.state.to_move]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.game.new_game(self._rng)
        self._start_episode()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return self.game.observe(AGENTS.index(agent))

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.game.play(action)
        state = self.game.state
        if self.game.over:
            for player, name in enumerate(AGENTS):
                self.rewards[name] = self.game.result(player)
                self.terminations[name] = True
        elif self.game.truncated:
            self.truncations = {a: True for a in AGENTS}
        self.infos = {a: self.game.info() for a in AGENTS}
        self.agent_selection = AGENTS[state.to_move]
        self._accumulate_rewards()

    def render(self) -> Any:
        return self.game.render(self.render_mode)

    def close(self) -> None:
        pass


def aec_env(game: str = DEFAULT_GAME, **kwargs: Any) -> AECEnv:
    """The PettingZoo environment of ``game`` with its options (``board="random"``,
    ``empty_capture=False``...) and the environment's own: ``render_mode`` ("ansi" or
    "rgb_array"), ``reward`` ("outcome": +1/0/-1 at the end; "margin": the final margin),
    ``max_moves`` (truncate longer games; default 1000) and ``illegal`` ("lose": an illegal
    action loses the game; "raise": it raises IllegalMoveError)."""
    return wrappers.OrderEnforcingWrapper(MancalaAEC(game, **kwargs))


SEATS = ("0", "1", "random")


class MancalaGym(gymnasium.Env):
    """A one-agent Gymnasium environment: the agent plays one seat of a mancalab game and a
    mancalab player (``opponent``: a level or a spec) plays the other. The observation is
    the array from the agent's side; ``info["action_mask"]`` says which actions are legal."""

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 2}

    def __init__(self, game: str = DEFAULT_GAME, opponent: Any = "random",
                 seat: int | str = "random",
                 render_mode: str | None = None, reward: str = "outcome",
                 max_moves: int | None = 1000, illegal: str = "lose", **options: Any) -> None:
        _check_render_mode(render_mode)
        if str(seat) not in SEATS:
            raise UnknownOptionError(f"seat must be 0, 1 or random, not {seat!r}")
        self.game = Game(game, reward, max_moves, illegal, options)
        self.render_mode = render_mode
        self.opponent_spec = opponent
        self.seat_choice = str(seat)
        self.seat = 0
        self.opponent = self._opponent(None)
        self.observation_space = self.game.observation_space["observation"]
        self.action_space = self.game.action_space

    def _opponent(self, seed: int | None):
        """The opponent player; a spec gets a seed from the environment's, for replays."""
        from .players import player, with_seed

        spec = self.opponent_spec
        if not isinstance(spec, str):
            return spec  # a Player object of the caller's
        if seed is not None:
            spec = with_seed(spec, seed, self.game.name)
        return player(spec, self.game.name)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self.game.new_game(self.np_random)
        if seed is not None:
            self.opponent = self._opponent(int(self.np_random.integers(10**9)))
        self.seat = int(self.np_random.integers(2)) if self.seat_choice == "random" \
            else int(self.seat_choice)
        self._opponent_moves()
        return self._observe(), self._info()

    def _opponent_moves(self) -> None:
        """The opponent plays while it is its turn (extra turns included)."""
        while not self.game.over and self.game.state.to_move != self.seat \
                and not self.game.truncated:
            opponent = self.opponent.remember(self.game.record.states)
            self.game.record.push(opponent.choose(self.game.state))

    def _observe(self) -> np.ndarray:
        return self.game.variant.observation(self.game.state.board, self.seat)

    def _info(self) -> dict[str, Any]:
        return {**self.game.info(), "seat": self.seat, "action_mask": self.game.mask(self.seat)}

    def step(self, action: Any):
        self.game.play(action)
        self._opponent_moves()
        over = self.game.over
        reward = self.game.result(self.seat) if over else 0.0
        return self._observe(), reward, over, self.game.truncated, self._info()

    def render(self) -> Any:
        return self.game.render(self.render_mode)


def gym_env(game: str = DEFAULT_GAME, **kwargs: Any) -> MancalaGym:
    """The Gymnasium environment of ``game`` against ``opponent`` (default "random"; any
    level or player spec, or a Player), the agent in ``seat`` 0, 1 or "random" (drawn each
    reset), with the game's options and ``render_mode``, ``reward``, ``max_moves`` and
    ``illegal`` as for ``aec_env``."""
    return MancalaGym(game, **kwargs)


def register() -> None:
    """Register ``mancalab/GAME-v0`` for every game with PettingZoo and Gymnasium (done on
    import): ``pettingzoo.make("aec", "mancalab/kalah-v0")``, ``gymnasium.make(
    "mancalab/kalah-v0", opponent="expert")``."""
    import warnings

    import pettingzoo

    for game in VARIANTS:
        with warnings.catch_warnings():  # registering again (a reload) only overrides
            warnings.simplefilter("ignore")
            pettingzoo.register("aec", f"mancalab/{game}-v0", entry_point=aec_env,
                                kwargs={"game": game})
            gymnasium.register(f"mancalab/{game}-v0", entry_point=gym_env,
                               kwargs={"game": game}, disable_env_checker=True)


register()
