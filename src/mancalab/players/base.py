"""The player protocol: anything with ``choose(state) -> move`` plays; this base adds options."""

from __future__ import annotations

import os
from typing import Any

from ..core import Option, State, resolve_options


def new_seed() -> int:
    """A fresh random seed for a player created without one."""
    return int.from_bytes(os.urandom(4), "little")


class Player:
    """Base of mancalab's players: options from a spec string, and info on the last choice.

    ``last_info`` holds what the last ``choose`` found (playouts, seconds, value), for display.
    """

    name = ""
    option_specs: dict[str, Option] = {}

    def __init__(self, **options: Any) -> None:
        self.options = resolve_options(f"the player {self.name}", self.option_specs, options)
        self.last_info: dict[str, Any] = {}

    @property
    def spec(self) -> str:
        shown = {k: v for k, v in self.options.items() if v != self.option_specs[k].default}
        return self.name + (":" + ",".join(f"{k}={v}" for k, v in shown.items()) if shown else "")

    def choose(self, state: State) -> int:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"mancalab.player({self.spec!r})"
