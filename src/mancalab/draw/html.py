"""A position as the browser draws it: the view the page is sent, and the same drawing in a
notebook.

There is one drawing of the board, the page's (``web/static/js/board.js`` with
``board.css``). ``board_view`` is what it draws from; ``notebook_html`` carries that script,
its look and the view into a Jupyter cell, so ``State._repr_html_`` shows the board exactly
as the browser does. Where a notebook's output runs no script (a static preview), the text
board (``draw.text``) stays in its place.
"""

from __future__ import annotations

import html
import io
import json
import secrets
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..core import State

STATIC = Path(__file__).parents[1] / "web" / "static"
TEXTS_USED = ("seeds", "hole_name", "store_name", "can_play")  # the words board.js says


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
        "score": list(state.score), "score_noun": variant.texts.score_noun,
        "status": variant.status_text(state),
        "result": None if outcome is None else {
            "kind": outcome.kind, "winner": outcome.winner,
            "code": variant.result_code(outcome)},
    }


@lru_cache(maxsize=None)
def _static(name: str) -> str:
    return (STATIC / name).read_text(encoding="utf-8")


LANGUAGES = ("en", "fr", "rn", "am")


def texts(language: str) -> dict:
    """Every text of the page's language file for ``language`` (en, fr, rn, am)."""
    if language not in LANGUAGES:
        raise ValueError(f"language must be one of {', '.join(LANGUAGES)}, got {language!r}")
    return json.loads(_static(f"i18n/{language}.json"))


def _texts(language: str) -> dict:
    found = texts(language)
    return {key: found[key] for key in TEXTS_USED if key in found}


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
    uid = f"mancalab-{secrets.token_hex(6)}"
    view = viewer if viewer in (0, 1) else 0
    names = ["A", "B"]
    options = {"view": view, "names": names, "reader": None, "last": None}
    title = f"{state.variant.title}: {'AB'[state.to_move]} to move"
    return f"""<div class="mancalab-board" data-design="{design}" id="{uid}">
<svg role="img" aria-label="{html.escape(title)}" style="width:100%;max-width:{_width(state)}px;height:auto;display:block"></svg>
<pre>{html.escape(_text(state))}</pre>
<style>{_static("board.css")}</style>
<script type="module">
{_board_script(language)}
const root = document.getElementById({_script_literal(uid)});
board.drawBoard(root.querySelector("svg"), {_script_literal(board_view(state))},
                {{...{_script_literal(options)}, playable: new Set()}});
root.querySelector("pre").remove();
</script>
</div>"""


def _board_script(language: str) -> str:
    """The start of a module script that has the page's board drawing as ``board``, its
    words in ``language`` (the page's own files, loaded from blobs: no server needed)."""
    return f"""const module = (source) => URL.createObjectURL(new Blob([source], {{type: "text/javascript"}}));
const textsUrl = module({_script_literal(_static("js/texts.js"))});
const board = await import(module({_script_literal(_static("js/board.js"))}
  .split('"./texts.js"').join(JSON.stringify(textsUrl))));
(await import(textsUrl)).useTexts({_script_literal(_texts(language))}, {_script_literal(language)});"""


def replay_page(title: str, intro: str, games: list[tuple[str, list[State], list[str]]],
                names: list[tuple[str, str]]) -> str:
    """A whole HTML page: ``intro`` (HTML, e.g. a standings table), then every game of
    ``games`` (its heading, its positions, its moves' names; ``names``: the players of each)
    as the page's board with buttons to step through it, drawn when it is opened."""
    data = [{"view": board_view(states[0]), "cells": [list(s.cells) for s in states],
             "to_move": [s.to_move for s in states], "moves": moves, "names": list(pair)}
            for (_, states, moves), pair in zip(games, names)]
    sections = "\n".join(
        f"""<details class="replay" data-game="{i}"><summary>{html.escape(heading)}</summary>
<div class="mancalab-board" data-design="wood"><svg role="img" aria-label="{html.escape(heading)}" style="width:100%;max-width:560px;height:auto;display:block"></svg></div>
<p><button data-step="first" aria-label="the start">|&lt;</button>
<button data-step="back" aria-label="previous move">&lt;</button>
<button data-step="next" aria-label="next move">&gt;</button>
<button data-step="last" aria-label="the end">&gt;|</button>
<span class="at"></span></p></details>""" for i, (heading, _, _) in enumerate(games))
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)}</title>
<style>body {{ font: 16px/1.45 system-ui, sans-serif; max-width: 60rem; margin: 1rem auto; padding: 0 .75rem; }}
table {{ border-collapse: collapse; }} th, td {{ padding: .2rem .6rem; border-bottom: 1px solid #ccc; text-align: right; }}
th:nth-child(2), td:nth-child(2) {{ text-align: left; }} button {{ min-width: 2.75rem; min-height: 2.75rem; }}
{_static("board.css")}</style></head>
<body><h1>{html.escape(title)}</h1>
{intro}
<h2>Games</h2>
{sections}
<script type="module">
{_board_script("en")}
const GAMES = {_script_literal(data)};
const replay = await import(module({_script_literal(_static("js/replay.js"))}));
replay.showReplays(board, GAMES);
</script></body></html>"""


def _text(state: State) -> str:
    """The terminal's drawing of ``state`` as plain text."""
    from rich.console import Console

    from .text import board

    console = Console(record=True, width=100, color_system=None, file=io.StringIO())
    console.print(board(state, ("A", "B")))
    return console.export_text()


def _width(state: State) -> int:
    """A board's width on the notebook's page: 70 pixels a column, as the page's phone view."""
    return 70 * max(len(row) for row in state.variant.grid(state))
