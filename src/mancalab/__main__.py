"""``python -m mancalab``: the ``mancalab`` command."""

from .cli import main

main()
