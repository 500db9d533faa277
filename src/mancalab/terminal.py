"""Play and replay in the terminal: the prompt loop, its commands, names and the computer.

Works with piped stdin: every prompt reads one line, and the end of input (or Ctrl-C) ends
the session cleanly.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass

from rich.console import Console

from .draw import text as render
from .core import MancalabError, MancalabFailure, Variant
from .players import Player
from .players import player as make_player
from .records import GameRecord, check_name

COMPUTER = "Computer"

HELP = """\
Commands at the prompt:
  MOVE        play {hint}
  undo        take back the last move (and the computer's reply, when playing it)
  hint [P]    the move player P would make here, with its evaluation (default: expert);
              hint perfect: every move's exact value (Kalah), e.g. "3: wins by 4"
  switch      swap sides with the computer (or, between two people, hand this side to it)
  level P     the computer plays as P from now on: beginner, easy, medium, hard, expert
              or any player spec such as alphabeta:time=3
  end         propose to end the game now by the game's rule for endless play (each
              player banks their own side); it ends if the other player agrees
  save FILE   write the game record to FILE
  help        this list
  quit        end the game (save it first to resume it with --load)"""


class EndSession(Exception):
    """The person asked to stop, or the input ended."""


LINE_LENGTH = 200  # the longest line a prompt takes; a longer one is refused, not echoed


def ask(console: Console, prompt: str) -> str:
    """A line from the person (or a script piped in); '' for a line that is too long."""
    while True:
        try:
            if sys.stdin.isatty():
                line = console.input(prompt)
            else:  # piped input: read a bounded line, so a huge one cannot fill the memory
                console.print(prompt, end="")
                line = _bounded_line(sys.stdin)
        except EOFError:
            console.print()
            raise EndSession("input ended") from None
        if len(line) <= LINE_LENGTH:
            return line
        console.print(f"[red]That line is too long (at most {LINE_LENGTH} characters).[/red]")


def _bounded_line(stream) -> str:
    """The next line of ``stream`` without its end, or LINE_LENGTH + 1 characters of it when
    it is longer (the rest of it is skipped); EOFError at the end of the input."""
    line = stream.readline(LINE_LENGTH + 1)
    if not line:
        raise EOFError
    if len(line) > LINE_LENGTH and not line.endswith("\n"):
        while (rest := stream.readline(1 << 16)) and not rest.endswith("\n"):
            pass
    return line.rstrip("\n")


def ask_names(console: Console, a: str | None, b: str | None) -> tuple[str, str]:
    """Ask for the names not given, as the reference program does."""
    hint = f" (enter '{COMPUTER}' for the computer)"
    a = a if a is not None else _ask_name(console, f"Name of player A{hint}: ", "A")
    if a == COMPUTER:
        hint = ""
    while b is None or b == a:
        if b == a:
            console.print(f"[red]Player B cannot have the same name as player A ({a}).[/red]")
        b = _ask_name(console, f"Name of player B{hint}: ", "B")
    return a, b


def _ask_name(console: Console, prompt: str, default: str) -> str:
    """A valid name (``records.check_name``), asked again until one is given."""
    while True:
        try:
            return check_name(ask(console, prompt).strip() or default)
        except MancalabError as error:
            console.print(f"[red]{error}[/red]")


def ask_setting(console: Console, variant: Variant, name: str,
                player: int) -> list[int] | None:
    """A player's setting (the games with a setting step, as Urubugu's free arrangement), or
    None for the usual start."""
    answer = ask(console, f"{name} ({'AB'[player]}), {variant.texts.setting_question} "
                          "\\[y/N]: ").strip().lower()
    if answer not in ("y", "yes"):
        return None
    console.print(variant.texts.setting_help)
    while True:
        text = ask(console, "Setting: ").replace(",", " ").strip()
        if not text:
            return None
        try:
            return variant.check_setting(text.split(), player)
        except MancalabError as error:
            console.print(f"[red]{error}[/red]")


AFTER = ("The game is over. 'save FILE', 'review' (every move's value and mark), 'new' (a "
         "new game, same players), 'undo' or 'quit': ")


@dataclass
class TerminalGame:
    record: GameRecord
    bot: Player
    console: Console
    save_to: str | None = None  # the record is written here after every move (--save)

    @property
    def names(self) -> tuple[str, str]:
        return self.record.names

    def is_computer(self, player: int) -> bool:
        return self.names[player] == COMPUTER

    @property
    def viewer(self) -> int | None:
        """The person's seat when they play the computer: the board stays on their side
        (two people at one screen: the mover's side, as the original Gebeta program)."""
        people = [seat for seat in (0, 1) if not self.is_computer(seat)]
        return people[0] if len(people) == 1 else None

    def run(self) -> bool:
        """Play until the game ends and the person is done with it (True: they want a new
        game) or stops (EndSession)."""
        advice = getattr(self.bot, "advice", None)
        if advice and COMPUTER in self.names and (said := advice(self.record.state)):
            self.console.print(f"[dim]Note: {said}.[/dim]")
        while True:
            while self.record.state.outcome is None:
                self.console.print()
                self.console.print(render.position(self.record, self.viewer))
                if self.record.at_cap:  # no move is taken: the game can only be ended
                    self.console.print(f"The game has reached its cap of "
                                       f"{self.record.variant.history.move_cap:,} moves; it "
                                       "ends by the rule for endless play.")
                    self.record.end("agreement")
                elif self.is_computer(self.record.state.to_move):
                    self.computer_turn()
                else:
                    self.human_turn()
                self._autosave()
            self.console.print()
            self.console.print(render.position(self.record, self.viewer))
            self.console.print(render.result(self.record.state.outcome, self.names,
                                             self.record.termination))
            if self.save_to:
                self.console.print(f"The game is saved in {self.save_to}.")
            after = self.after_the_game()
            if after != "undo":
                return after == "new"

    def after_the_game(self) -> str:
        """What the person does with a finished game: save it, review it, take back, start a
        new one or quit ("new", "undo" or "quit"; the end of the input is a quit)."""
        while True:
            try:
                text = ask(self.console, AFTER).strip()
            except EndSession:
                return "quit"
            word, _, rest = text.partition(" ")
            command = word.lower()
            if command in ("quit", "exit", "q", ""):
                return "quit"
            if command == "new":
                return "new"
            if command == "save":
                self.save(rest.strip())
            elif command == "review":
                review_table(self.record, self.console)
            elif command == "undo":
                if self.undo():
                    return "undo"
            else:
                self.console.print(f"[red]Unknown command {word[:40]!r}.[/red]")

    def _autosave(self) -> None:
        if self.save_to:
            try:
                self.record.save(self.save_to)
            except OSError as error:
                self.console.print(f"[red]Cannot save to {self.save_to}: "
                                   f"{error.strerror or error}[/red]")

    def computer_turn(self) -> None:
        state = self.record.state
        started = time.perf_counter()
        move = self.bot.remember(self.record.states).choose(state)
        seconds = time.perf_counter() - started
        info = self.bot.last_info
        detail = f"{seconds:.2f} s"
        if info.get("playouts"):
            detail += f", {info['playouts']:,} playouts"
        if info.get("value") is not None:
            detail += f", expects {info['value']:+.1f}"
        self.record.push(move)
        self.console.print(f"[bold magenta]{COMPUTER}[/] plays "
                           f"[bold]{state.variant.move_name(state, move)}[/] ({detail}).")

    def human_turn(self) -> None:
        """Prompt until a legal move is played or a command changes the game."""
        state = self.record.state
        prompt = (f"{self.names[state.to_move]} ({'AB'[state.to_move]}), "
                  f"choose {state.variant.texts.move_hint} or 'help': ")
        while True:
            text = ask(self.console, prompt).strip()
            word, _, rest = text.partition(" ")
            command = word.lower()
            if command in ("quit", "exit"):
                raise EndSession("quit")
            if command == "help":
                self.console.print(HELP.format(hint=state.variant.texts.move_hint), markup=False)
            elif command == "undo":
                if self.undo():
                    return
            elif command == "end":
                if self.propose_end():
                    return
            elif command == "save":
                self.save(rest.strip())
            elif command == "hint":
                self.hint(rest.strip() or "expert")
            elif command == "switch":
                self.switch()
                return
            elif command == "level":
                self.change_level(rest.strip())
            else:
                try:
                    self.record.push(state.variant.parse_move(state, text))
                    return
                except MancalabError as error:
                    self.console.print(f"[red]{error}[/red]")

    def undo(self) -> bool:
        """Take back to the last human move; True when the position changed."""
        humans = [p for p in (0, 1) if not self.is_computer(p)]
        taken = 0
        while self.record.moves:
            mover = self.record.states[-2].to_move
            self.record.pop()
            taken += 1
            if mover in humans and not self.is_computer(self.record.state.to_move):
                break
        if not taken:
            self.console.print("[red]Nothing to undo: no move has been played.[/red]")
            return False
        self.console.print(f"Took back {taken} move{'s' if taken > 1 else ''}.")
        return True

    def propose_end(self) -> bool:
        """The person to move proposes to end the game by the rule for endless play; the
        other player (the computer by its evaluation, or a person asked) agrees or not."""
        state = self.record.state
        mover, other = state.to_move, 1 - state.to_move
        a, b = state.stopped().score
        self.console.print(f"Ending now, each player banks their own side: {a} to {b}.")
        if self.is_computer(other):
            agreed = self.bot.accepts_end(state)
            self.console.print(f"{COMPUTER} {'agrees' if agreed else 'declines'}.")
        else:
            answer = ask(self.console, f"{self.names[other]} ({'AB'[other]}), "
                                       f"{self.names[mover]} proposes to end the game so. "
                                       "Agree? \\[y/N]: ").strip().lower()
            agreed = answer in ("y", "yes")
        if agreed:
            self.record.end("agreement")
        return agreed

    def hint(self, spec: str) -> None:
        """Show the move ``spec`` would choose, without playing it."""
        try:
            adviser = make_player(spec, self.record.variant.name)
        except (MancalabError, MancalabFailure) as error:
            self.console.print(f"[red]{error}[/red]")
            return
        state = self.record.state
        if adviser.name == "perfect":  # every move's exact value first, then its own move
            self.exact_hint(state, adviser.options["time"])
        try:
            move = adviser.remember(self.record.states).choose(state)
        except Exception as error:  # noqa: BLE001 - a hint that fails must not end the game
            self.console.print(f"[red]The hint from {adviser.spec} failed: {error}[/red]")
            return
        self.console.print(f"Hint from {adviser.spec}: [bold]{state.variant.move_name(state, move)}"
                           f"[/]{_value_words(adviser.last_info)}.")

    def exact_hint(self, state, seconds: float) -> bool:
        """Every legal move with its exact value for the mover, or its bounds when not proven
        in ``seconds``; False when the game has no exact solver (the caller hints instead)."""
        from .analysis import solving

        if solving.unsolvable(state.variant) or state.is_over:
            return False
        try:
            with self.console.status("Solving..."):
                result = solving.solve(state, time=seconds, moves=True)
        except MancalabError as error:
            self.console.print(f"[red]The exact hint failed: {error}[/red]")
            return True
        overall = (_for_you(result.value) if result.exact else "the value is " +
                   solving.describe_bounds(result.lower, result.upper, result.endless))
        self.console.print(f"Exact values of your moves (with perfect play {overall}):")
        for move, (lower, upper) in result.moves.items():
            best = lower == upper == result.value
            line = (f"  {result.move_names[move]}: "
                    f"{solving.describe_bounds(lower, upper, result.endless)}")
            self.console.print(f"[bold green]{line}  (best)[/]" if best else line)
        return True

    def switch(self) -> None:
        """The person to move takes the other side; the computer plays the side they left."""
        mover = self.record.state.to_move
        names = list(self.names)
        if self.is_computer(1 - mover):
            names[mover], names[1 - mover] = names[1 - mover], names[mover]
        else:
            names[mover] = COMPUTER
        self.record.names = (names[0], names[1])
        self.console.print(f"{COMPUTER} now plays {'AB'[names.index(COMPUTER)]}.")

    def change_level(self, spec: str) -> None:
        if not spec:
            self.console.print("[red]level needs a player: level expert[/red]")
            return
        try:
            self.bot = make_player(spec, self.record.variant.name)
        except (MancalabError, MancalabFailure) as error:
            self.console.print(f"[red]{error}[/red]")
            return
        self.console.print(f"{COMPUTER} now plays as {self.bot.spec}.")

    def save(self, path: str) -> None:
        if not path:
            self.console.print("[red]save needs a file name: save FILE[/red]")
            return
        try:
            self.record.save(path)
        except OSError as error:
            self.console.print(f"[red]Cannot save to {path}: {error.strerror or error}[/red]")
            return
        self.console.print(f"Saved the game to {path}.")


def review_table(record: GameRecord, console: Console, time: float = 2.0) -> None:
    """Every move of ``record`` with its value and mark (best ... blunder): exact where the
    solver proves it in ``time`` seconds a position, else the expert's estimate ("~")."""
    from rich.table import Table

    from .analysis import solving
    from .analysis.teach import review

    states = list(record.states)
    reviewer = make_player(f"perfect:time={2 * time}")  # half to solve, half to estimate
    with console.status("Appraising the positions..."):
        appraisals = [reviewer.appraise(state) for state in states]
    table = Table(title=f"{record.variant.title}: {record.names[0]} (A) vs {record.names[1]} "
                        f"(B), values for the player moving (~ an estimate)")
    for column in ("move", "player", "played", "value", "best", "mark"):
        table.add_column(column, overflow="fold")
    for row in review.judged(states, list(record.moves), appraisals):
        value = "?" if row["value"] is None else (
            solving.describe(int(row["value"])) if row["exact"] else f"~{row['value']:+g}")
        mark = row["mark"] or "?"
        if row["lost"]:
            mark += f" (-{row['lost']:g})"
        table.add_row(str(row["ply"] + 1), "AB"[row["mover"]], row["name"], value,
                      ", ".join(row["best_moves"]) or "-", mark)
    console.print(table)


def replay(record: GameRecord, console: Console, step: bool) -> None:
    """Show a recorded game position by position; with ``step``, wait for a key each time."""
    views = [record.prefix(k) for k in range(len(record.moves) + 1)]
    console.print(f"{record.variant.title}: {record.names[0]} (A) against {record.names[1]} (B), "
                  f"{record.date}, {len(record.moves)} moves, result {record.result}")
    k = 0
    while True:
        view = views[k]
        console.print()
        if k:
            prev = view.states[-2]
            console.print(f"Move {k}: [bold]{record.variant.move_name(prev, view.moves[-1])}[/]")
        else:
            console.print("Start position")
        console.print(render.position(view))
        if view.state.outcome is not None:
            console.print(render.result(view.state.outcome, record.names, view.termination))
        if not step:
            if k == len(views) - 1:
                return
            k += 1
            continue
        answer = ask(console, "[Enter] next, b back, NUMBER go to move, q quit: ").strip().lower()
        if answer in ("q", "quit"):
            return
        if answer == "b":
            k = max(0, k - 1)
        elif answer.isdigit():
            k = min(int(answer), len(views) - 1)
        elif answer == "":
            if k == len(views) - 1:
                return
            k += 1
        else:
            console.print(f"[red]Unknown input {answer!r}.[/red]")


__all__ = ["TerminalGame", "ask_names", "replay", "EndSession", "COMPUTER"]


def _value_words(info: dict) -> str:
    """What a player's evaluation says, in words: exact values as exact, a game's end the
    search reached by force as a win or loss by at least its margin, estimates as the
    player's estimate."""
    from .search import WIN, margin_of

    value = info.get("value")
    if value is None:
        return ""
    if info.get("exact"):
        return f": with perfect play {_for_you(int(value))}"
    if abs(value) > WIN // 2:  # every line searched ends the game: the margin is a bound
        margin = abs(margin_of(int(value)))
        return f" (found by force: you {'win' if value > 0 else 'lose'} by at least {margin})"
    return f" (its estimate for you: {value:+.2g})"


def _for_you(value: int) -> str:
    """An exact value for the player being spoken to."""
    return "it is a draw" if value == 0 else (f"you win by {value}" if value > 0
                                              else f"you lose by {-value}")
