"""Each game's compiled rules, a module a game (``GAME_ID``, its ``params`` slots, its kernels
and the constants they read), apart from the game's descriptor (``mancalab.variants``): an
edit to a game's rules recompiles that game's code only, an edit to its descriptor (texts,
levels, options, notation) recompiles nothing (``mancalab._cache``)."""
