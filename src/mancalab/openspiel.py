"""Every mancalab game as a Python OpenSpiel game. Needs ``pip install "mancalab[openspiel]"``.

    import pyspiel, mancalab.openspiel
    mancalab.openspiel.register()
    game = pyspiel.load_game("mancalab_kalah(board=37,empty_capture=false)")

Game parameters are the game's options (``mancalab games`` lists them). OpenSpiel games are
deterministic given their parameters, so Kalah's ``board`` is a fair board's number, or 0 for
the standard start (no ``random``). Actions are the mover's holes (``Variant.action_cells``),
the observation tensor is ``Variant.observation`` from the observer's side, returns are
+1/0/-1, and a third repetition ends the game by the game's rule for endless play, as in every
mancalab driver (``GameRecord``). OpenSpiel's C++ ``MCTSBot.step`` crashes on Python games (in
OpenSpiel itself); use its Python ``mcts.MCTSBot``. docs/rl.md has examples.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .core import Variant
from .records import GameRecord
from .variants import VARIANTS, variant as make_variant

try:
    import pyspiel
except ImportError as error:  # pragma: no cover - the message is the point
    raise ImportError('mancalab.openspiel needs the openspiel extra: '
                      'pip install "mancalab[openspiel]"') from error

PREFIX = "mancalab_"
# OpenSpiel ends every game within max_game_length moves: games longer than this are ended
# by the game's rule for endless play, as a third repetition ends them.
MAX_GAME_LENGTH = 1000


def _parameters(name: str) -> dict[str, Any]:
    """The game's options as OpenSpiel parameters: their defaults, with Kalah's board as a
    number (0: the standard start)."""
    spec = VARIANTS[name].option_specs
    parameters = {key: option.default for key, option in spec.items()}
    if "board" in parameters:
        parameters["board"] = 0
    return parameters


def _options(params: dict[str, Any]) -> dict[str, Any]:
    """OpenSpiel parameters as the game's options: board 0 is the standard start."""
    options = dict(params)
    if options.get("board") == 0:
        options["board"] = "standard"
    return options


def _game_type(name: str) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=PREFIX + name,
        long_name=f"mancalab {VARIANTS[name].title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_parameters(name))


class MancalaGame(pyspiel.Game):
    """One mancalab game with its options, for OpenSpiel (a subclass per game: ``GAMES``)."""

    name = ""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        name = self.name
        merged = {**_parameters(name), **(params or {})}
        self.variant: Variant = make_variant(name, **_options(merged))
        info = pyspiel.GameInfo(
            num_distinct_actions=len(self.variant.action_cells(0)),
            max_chance_outcomes=0, num_players=2, min_utility=-1.0, max_utility=1.0,
            utility_sum=0.0, max_game_length=MAX_GAME_LENGTH)
        super().__init__(_game_type(name), info, merged)

    def new_initial_state(self) -> MancalaState:
        return MancalaState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> Observer:
        return Observer(self.variant, params)


class MancalaState(pyspiel.State):
    """A position and the game so far (a ``GameRecord``, for the repetition rule)."""

    def __init__(self, game: MancalaGame) -> None:
        super().__init__(game)
        self.variant = game.variant
        self.record = GameRecord.new(game.variant)

    @property
    def position(self):
        return self.record.state

    def current_player(self) -> int:
        if self.position.is_over:
            return pyspiel.PlayerId.TERMINAL
        return self.position.to_move

    def _legal_actions(self, player: int) -> list[int]:
        legal = set(self.position.legal_moves())
        return [a for a, cell in enumerate(self.variant.action_cells(player)) if cell in legal]

    def _apply_action(self, action: int) -> None:
        self.record.push(self.variant.action_cells(self.position.to_move)[action])
        if not self.position.is_over and len(self.record.moves) >= MAX_GAME_LENGTH:
            self.record.end("repetition")

    def _action_to_string(self, player: int, action: int) -> str:
        return self.variant.move_name(self.position, self.variant.action_cells(player)[action])

    def is_terminal(self) -> bool:
        return self.position.is_over

    def returns(self) -> list[float]:
        outcome = self.position.outcome
        if outcome is None or outcome.kind != "win":
            return [0.0, 0.0]
        return [1.0, -1.0] if outcome.winner == 0 else [-1.0, 1.0]

    def __str__(self) -> str:
        state = self.position
        return f"{list(state.cells)} {'AB'[state.to_move]} to move" + (
            f" {state.extra}" if state.extra else "")


class Observer:
    """The observation tensor (``Variant.observation``, as float32) and string."""

    def __init__(self, variant: Variant, params) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        self.variant = variant
        self.tensor = np.zeros(len(variant.observation_high()), np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: MancalaState, player: int) -> None:
        self.tensor[:] = self.variant.observation(state.position.board, player)

    def string_from(self, state: MancalaState, player: int) -> str:
        return " ".join(str(int(x)) for x in self.variant.observation(state.position.board,
                                                                        player))


# OpenSpiel's registry takes a class (a closure as factory crashes the interpreter at exit)
GAMES = {name: type(f"Mancala{name.title()}Game", (MancalaGame,), {"name": name})
         for name in VARIANTS}


def register() -> list[str]:
    """Register every game with OpenSpiel as ``mancalab_GAME``; the names registered."""
    names = []
    for name, cls in GAMES.items():
        short = PREFIX + name
        if short not in pyspiel.registered_names():
            pyspiel.register_game(_game_type(name), cls)
        names.append(short)
    return names
