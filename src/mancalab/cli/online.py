"""Playing on a server from the command line: a local player as the server's BOT."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from .common import GameOptions, app, console, fail, parse_options


@app.command()
def bot(
    server: Annotated[str, typer.Option(help="the server, e.g. http://127.0.0.1:8000")],
    token: Annotated[str, typer.Option(
        help="an API token of the BOT account (made on its account page)",
        envvar="MANCALAB_TOKEN")],
    player: Annotated[str, typer.Option(
        help="the player that plays: a level, a spec, ugi:cmd=..., engine:cmd=..., "
             "FILE.py:CLASS")] = "medium",
    upgrade: Annotated[bool, typer.Option(
        help="first make the account a BOT (before its first game; for ever)")] = False,
    accept: Annotated[Optional[str], typer.Option(
        help="the games it accepts challenges to, comma-separated (default: all)")] = None,
    rated: Annotated[bool, typer.Option(help="accept rated challenges")] = True,
    casual: Annotated[bool, typer.Option(help="accept casual challenges")] = True,
    min_clock: Annotated[float, typer.Option(
        help="decline clocks with a base below this many seconds (0: any, even none)")] = 0.0,
    at_once: Annotated[int, typer.Option(help="games played at once at most")] = 4,
    challenge: Annotated[Optional[str], typer.Option(
        help="challenge this player once online")] = None,
    game: Annotated[str, typer.Option(help="the game of --challenge")] = "kalah",
    clock: Annotated[Optional[str], typer.Option(
        help="the clock of --challenge, BASE+INCREMENT whole seconds, e.g. 60+1")] = None,
    rated_challenge: Annotated[bool, typer.Option(
        "--rated-challenge/--casual-challenge", help="whether --challenge is rated")] = False,
    games: Annotated[Optional[int], typer.Option(
        help="stop after this many games have ended (default: run until stopped)")] = None,
    option: GameOptions = [],
) -> None:
    """Bring a local player online as a BOT, as lichess-bot does: it accepts challenges by
    its policy, plays every game it starts, and reconnects (docs/web.md, "Bots")."""
    from ..analysis.compete.match import TimeControl
    from ..core import MancalabError
    from ..web.bridge import Bridge, Policy, upgrade as make_bot

    if at_once < 1:
        fail(f"--at-once must be at least 1, got {at_once}")
    if games is not None and games < 1:
        fail(f"--games must be at least 1, got {games}")
    if not server.startswith(("http://", "https://")):
        fail(f"--server is an http:// or https:// address, not {server!r}")
    try:
        control = TimeControl.parse(clock) if clock else None
        if control and (control.base != int(control.base) or
                        control.increment != int(control.increment)):
            raise MancalabError(f"a server's clock counts whole seconds, not {clock}")
    except MancalabError as error:
        fail(str(error))
    policy = Policy(None if accept is None else {g.strip() for g in accept.split(",")},
                    rated, casual, min_clock, at_once)
    bridge = Bridge(server, token, player, policy, log=console.print, games_wanted=games)
    if upgrade:  # a refusal is bad input (status 2), an unreachable server a failure (1)
        console.print(f"{make_bot(server, token)} is a BOT account now")
    bridge.start()
    if challenge:
        pair = None if control is None else (int(control.base), int(control.increment))
        bridge.challenge(challenge, game, parse_options(option), pair, rated_challenge)
        console.print(f"challenged {challenge} to {game}")
    bridge.run()
