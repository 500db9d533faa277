"""A position as the browser draws it: the view the page is sent, and the same drawing in a
notebook.

There is one drawing of the board, the page's (``web/static/js/board.js`` with
``board.css``). ``board_view`` is what it draws from; ``notebook_html`` carries that script,
its look and the view into a Jupyter cell, so ``State._repr_html_`` shows the board exactly
as the browser does. Where a notebook's output runs no script (a static preview), the text
board of ``mancalab.render`` stays in its place.
"""

from __future__ import annotations

import html
import io
import json
import secrets
from functools import lru_cache
from pathlib import Path

from .core import State

STATIC = Path(__file__).parent / "web" / "static"
TEXTS_USED = ("seeds", "hole_name", "store_name", "can_play", "player_a", "player_b")


def board_view(state: State) -> dict:
    """What the page draws of ``state``: cells, grid, owners, labels, scores, the result."""
    variant = state.variant
    outcome = state.outcome
    return {
        "cells": list(state.cells), "to_move": state.to_move,
        "legal": state.legal_moves(), "grid": variant.grid(state),
        "owners": [variant.cell_owner(state, i) for i in range(len(state.cells))],
        "labels": [[variant.cell_label(state, viewer, i) for i in range(len(state.cells))]
                   for viewer in (0, 1)],
        "score": list(state.score), "score_noun": variant.score_noun,
        "status": variant.status_text(state),
        "result": None if outcome is None else {
            "kind": outcome.kind, "winner": outcome.winner,
            "code": variant.result_code(outcome)},
    }


@lru_cache(maxsize=None)
def _static(name: str) -> str:
    return (STATIC / name).read_text(encoding="utf-8")


def _texts(language: str) -> dict:
    texts = json.loads(_static(f"i18n/{language}.json"))
    return {key: texts[key] for key in TEXTS_USED if key in texts}


def _script_literal(value) -> str:
    """``value`` as JavaScript inside a <script> element (no "</" to end it early)."""
    return json.dumps(value, ensure_ascii=False).replace("</", "<\\/")


def notebook_html(state: State, viewer: int | None = None, design: str = "wood",
                  language: str = "en") -> str:
    """``state`` drawn by the page's own board script, for a notebook cell: the first
    player's side at the bottom unless ``viewer`` is 1; ``design`` wood, contrast or
    classic; the holes' names in ``language`` (en, fr, rn, am)."""
    if design not in ("wood", "contrast", "classic"):
        raise ValueError(f"design must be wood, contrast or classic, got {design!r}")
    if language not in ("en", "fr", "rn", "am"):
        raise ValueError(f"language must be en, fr, rn or am, got {language!r}")
    uid = f"mancalab-{secrets.token_hex(6)}"
    view = viewer if viewer in (0, 1) else 0
    texts = _texts(language)
    names = ["A", "B"]
    options = {"view": view, "names": names, "reader": None, "last": None}
    title = f"{state.variant.title}: {'AB'[state.to_move]} to move"
    return f"""<div class="mancalab-board" data-design="{design}" id="{uid}">
<svg role="img" aria-label="{html.escape(title)}" style="width:100%;max-width:{_width(state)}px;height:auto;display:block"></svg>
<pre>{html.escape(_text(state))}</pre>
<style>{_static("board.css")}</style>
<script type="module">
const root = document.getElementById({_script_literal(uid)});
const module = (source) => URL.createObjectURL(new Blob([source], {{type: "text/javascript"}}));
const textsUrl = module({_script_literal(_static("js/texts.js"))});
const board = await import(module({_script_literal(_static("js/board.js"))}
  .split('"./texts.js"').join(JSON.stringify(textsUrl))));
(await import(textsUrl)).useTexts({_script_literal(texts)}, {_script_literal(language)});
board.drawBoard(root.querySelector("svg"), {_script_literal(board_view(state))},
                {{...{_script_literal(options)}, playable: new Set()}});
root.querySelector("pre").remove();
</script>
</div>"""


def _text(state: State) -> str:
    """The terminal's drawing of ``state`` as plain text."""
    from rich.console import Console

    from .render import board

    console = Console(record=True, width=100, color_system=None, file=io.StringIO())
    console.print(board(state, ("A", "B")))
    return console.export_text()


def _width(state: State) -> int:
    """A board's width on the notebook's page: 70 pixels a column, as the page's phone view."""
    return 70 * max(len(row) for row in state.variant.grid(state))
