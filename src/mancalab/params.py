"""A game's option array typed by its game, so that compiled code is specialised per game.

The kernels read a game's options from ``params`` (an int64 array, ``params[0]`` the game's
id). Compiled searches call the rules through one switch over every game
(``mancalab.kernels``); had ``params`` one numba type for all games, every search would be
compiled with all six games' rules in it (16 s for the classic look-ahead on one core) before
a first move in any of them. ``Variant.params`` is therefore a ``GameParams``: the int64
array with a numba type (``GameParamsType``) that carries the game's id, so numba compiles
(and caches) each search once per game, with only that game's rules (3–4.5 s), when that
game is first played. Any other array (a copy, a slice, a plain array) has the plain array
type and takes the switch over every game.

``GameParams`` holds its array rather than subclassing ``numpy.ndarray``: numba's dispatcher
types an ndarray subclass by its shape and dtype alone (one cached type for every game's
params), while an object it cannot fingerprint is asked for its ``_numba_type_`` each call.
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.core.boxing import box_array, unbox_array
from numba.core.imputils import lower_cast
from numba.extending import (NativeValue, box, models, overload_classmethod, register_model,
                             typeof_impl, unbox)
from numba.np.arrayobj import intrin_alloc


class GameParamsType(types.Array):
    """numba's type of one game's ``params``: a 1-D C int64 array, one type per game."""

    def __init__(self, game: int) -> None:
        self.game = game
        super().__init__(types.int64, 1, "C", name=f"params(game {game})")

    @property
    def key(self):
        return super().key + (self.game,)

    @property
    def mangling_args(self):
        """The game in the compiled symbols' names too: two games' searches compiled in two
        processes (same function, same numba counter) were given one name, and a process
        that loaded both from the cache ran one game's code for the other's."""
        name, args = super().mangling_args
        return name, [*args, f"game{self.game}"]

    def copy(self, dtype=None, ndim=None, layout=None, readonly=None, aligned=None):
        """The same type where nothing changes (a copy of a game's params is its params);
        a plain array type otherwise."""
        same = (dtype in (None, self.dtype) and ndim in (None, 1) and layout in (None, "C")
                and not readonly and aligned in (None, True))
        if same:
            return self
        return types.Array(self.dtype if dtype is None else dtype, ndim or self.ndim,
                           layout or self.layout, readonly=bool(readonly),
                           aligned=True if aligned is None else aligned)


class GameParams:
    """A game's ``params``: its int64 array (``array``, ``array[0]`` the game's id ``game``),
    read like the array from Python and typed by its game in compiled code."""

    __slots__ = ("array", "game", "_numba_type_")

    def __init__(self, array) -> None:
        self.array = np.array(array, dtype=np.int64)  # its own copy, fixed: its type is
        self.array.setflags(write=False)              # chosen by its first entry
        self.game = int(self.array[0])
        self._numba_type_ = _type_of(self.game)

    def __getattr__(self, name):  # shape, dtype, copy, tolist ... as the array's
        return getattr(self.array, name)

    def __getitem__(self, index):
        return self.array[index]

    def __len__(self) -> int:
        return len(self.array)

    def __iter__(self):
        return iter(self.array)

    def __array__(self, dtype=None, copy=None):
        return self.array if dtype is None else self.array.astype(dtype)

    def __eq__(self, other):
        return self.array == np.asarray(other)

    __hash__ = None

    def __reduce__(self):
        return GameParams, (self.array,)

    def __repr__(self) -> str:
        return f"GameParams({self.array.tolist()})"


_TYPES: dict[int, GameParamsType] = {}  # each game's type, made once


def _type_of(game: int) -> GameParamsType:
    known = _TYPES.get(game)
    if known is None:
        known = _TYPES[game] = GameParamsType(game)
    return known


def game_params(array) -> GameParams:
    """``array`` (int64, ``array[0]`` the game's id) as a game's ``params``."""
    return GameParams(array)


@typeof_impl.register(GameParams)
def _typeof(value, context):
    return value._numba_type_


register_model(GameParamsType)(models.ArrayModel)
box(GameParamsType)(box_array)  # comes back to Python as a plain array


@unbox(GameParamsType)
def _unbox(typ, obj, c):
    """The held array, unboxed as any array (``obj`` keeps it alive through the call)."""
    array = c.pyapi.object_getattr_string(obj, "array")
    native = unbox_array(typ, array, c)
    c.pyapi.decref(array)
    return NativeValue(native.value, is_error=native.is_error)


@lower_cast(GameParamsType, types.Array)
def _as_array(context, builder, from_type, to_type, value):
    return value


@overload_classmethod(GameParamsType, "_allocate")
def _allocate(cls, size, align):
    """New arrays of this type (``params.copy()`` in compiled code) are allocated as any."""
    def allocate(cls, size, align):
        return intrin_alloc(size, align)
    return allocate
