"""mancalab's Oware expert against Aalina, the engine of the Aualé app (Joan Sala; alpha-beta
with an opening book and endgame tables), or against itself not told the game's positions.

    sh benchmarks/aalina/build.sh                      (once: from its public sources)
    python benchmarks/bench_oware.py [--games 40] [--time 1] [--opponent-time T]
        [--player alphabeta] [--opponent aalina|blind] [--aalina PATH] [--jobs 1]
        [--games-out FILE] [--cold]

``--opponent blind``: the same player valuing each position alone, as mancalab's expert did
before issue 88 (what seeing a move that repeats a position is worth). Aalina: skipped, with a
word, when it is not built. Games in pairs from the same four random opening moves, colours
swapped, played by mancalab's record (its rules: the first recurrence of a position ends the
game, each side taking the seeds on its side; OpenSpiel's cap of 1,000 moves). Aalina speaks
UCI, one process a worker, warmed up by a 2-second search before its first game and kept for
the next (``--cold``: a new process each game, whose JVM searches slowly until its compiler has
made the hot code fast); it is told the whole game (``position startpos moves ...``, so it
knows the game's positions too) and ``go movetime``; a move it gives that mancalab's rules
refuse loses it the game (none seen). Cells map one to one: A-F are South's houses (mancalab's
cells 0-5), a-f North's in sowing order (cells 6-11). Prints mancalab's score with a 95%
interval, how games ended, the mean margin, mancalab's mean depth and time a move and Aalina's
time a move, then one JSON line; ``--games-out`` writes each game (its moves, mancalab's seat,
the result) as a JSON line, to study the games lost (``oware_judge.py``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from _report import report

import mancalab
from mancalab.analysis.compete import arena
from mancalab.players import player as make_player
from mancalab.players.alphabeta import AlphaBetaPlayer
from mancalab.records import GameRecord

HOUSES = "ABCDEFabcdef"
DEFAULT = Path.home() / ".cache" / "mancalab" / "aalina" / "aalina"


class Aalina:
    """Aalina's UCI service in a process of its own, for one game."""

    def __init__(self, command: str) -> None:
        self.process = subprocess.Popen([command], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                        text=True, bufsize=1)
        self.send("uci")
        self.wait_for("uciok")
        self.send("setoption name Ponder value false")
        self.send("ucinewgame")
        self.send("isready")
        self.wait_for("readyok")

    def send(self, line: str) -> None:
        self.process.stdin.write(line + "\n")

    def wait_for(self, word: str) -> str:
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError("Aalina stopped")
            if line.split()[:1] == [word]:
                return line

    def choose(self, record: GameRecord, seconds: float) -> int:
        played = "".join(HOUSES[move] for move in record.moves)
        self.send("position startpos" + (f" moves {played}" if played else ""))
        self.send(f"go movetime {max(1, round(seconds * 1000))}")
        return HOUSES.index(self.wait_for("bestmove").split()[1])

    def warm_up(self, seconds: float = 2.0) -> None:
        """A search out of its book before the first game: a JVM just started searches
        slowly until its compiler has made the hot code fast."""
        self.send("setoption name OwnBook value false")
        self.send("position startpos")
        self.send(f"go movetime {round(seconds * 1000)}")
        self.wait_for("bestmove")
        self.send("setoption name OwnBook value true")

    def new_game(self) -> None:
        self.send("ucinewgame")
        self.send("isready")
        self.wait_for("readyok")

    def close(self) -> None:
        self.send("quit")
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()


class Blind:
    """mancalab's alpha-beta valuing each position alone (told nothing of the game)."""

    def __init__(self, seconds: float) -> None:
        self.player = AlphaBetaPlayer(time=seconds)

    def choose(self, record: GameRecord, seconds: float) -> int:
        return self.player.choose(record.state)

    def close(self) -> None:
        pass


_KEPT: dict[str, Aalina] = {}


def kept_aalina(command: str) -> Aalina:
    """This worker's Aalina, started and warmed up once, kept for its next games."""
    engine = _KEPT.get(command)
    if engine is None:
        engine = _KEPT[command] = Aalina(command)
        engine.warm_up()
    engine.new_game()
    return engine


def opponent_for(opponent: str, seconds: float, cold: bool):
    """The opponent of one game: mancalab blind, or Aalina (``cold``: a process of its own,
    not warmed up)."""
    if opponent == "blind":
        return Blind(seconds)
    return Aalina(opponent) if cold else kept_aalina(opponent)


def play(job: tuple) -> dict:
    """One game: mancalab's score, how it ended, the margin, its depths and times."""
    opening, ours_first, spec, seconds, opponent_seconds, opponent, cold = job
    variant = mancalab.variant("oware")
    record = GameRecord(variant, variant.start())
    for move in opening:
        record.push(move)
    ours = make_player(spec, "oware")
    theirs = opponent_for(opponent, opponent_seconds, cold)
    seat = 0 if ours_first else 1
    depths, spent, their_spent, illegal, booked = [], [], [], False, 0
    try:
        while not record.state.is_over and not record.at_cap:
            if record.state.to_move == seat:
                started = time.perf_counter()
                move = ours.remember(record.states).choose(record.state)
                spent.append(time.perf_counter() - started)
                if ours.last_info.get("book"):
                    booked += 1  # from the opening book: no search, no depth
                else:
                    depths.append(ours.last_info.get("depth") or 0)
            else:
                started = time.perf_counter()
                move = theirs.choose(record, opponent_seconds)
                their_spent.append(time.perf_counter() - started)
                if move not in record.state.legal_moves():
                    illegal = True
                    break
            record.push(move)
    finally:
        if cold or opponent == "blind":
            theirs.close()
        ours.close()
    state = record.state
    margin = state.score[seat] - state.score[1 - seat]
    if illegal:
        score, how = 1.0, "illegal"
    else:
        winner = state.outcome.winner if state.outcome is not None else None
        score = 0.5 if winner is None else float(winner == seat)
        how = record.termination or ("cap" if record.at_cap else "score")
    return {"score": score, "margin": margin, "how": how, "plies": len(record.moves),
            "seat": seat, "moves": list(record.moves),
            "depth": sum(depths) / max(1, len(depths)),
            "seconds": sum(spent) / max(1, len(spent)),
            "their_seconds": sum(their_spent) / max(1, len(their_spent)), "book": booked}


def interval(scores: list[float]) -> tuple[float, float]:
    """A 95% interval of the mean score (Wilson's, counting a draw as half a win)."""
    n, mean = len(scores), sum(scores) / len(scores)
    z = 1.96
    centre = (mean + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(mean * (1 - mean) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--time", type=float, default=1.0, help="mancalab's seconds a move")
    parser.add_argument("--opponent-time", type=float, default=None,
                        help="the opponent's seconds a move (default: --time)")
    parser.add_argument("--player", default="alphabeta", help="mancalab's player spec")
    parser.add_argument("--opponent", choices=("aalina", "blind"), default="aalina")
    parser.add_argument("--aalina", default=str(DEFAULT), help="Aalina's start script")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=88)
    parser.add_argument("--games-out", default=None, help="a JSON-lines file for the games")
    parser.add_argument("--cold", action="store_true",
                        help="a new Aalina each game, not warmed up (its JVM slow at first)")
    args = parser.parse_args()
    if args.opponent == "aalina" and not os.access(args.aalina, os.X_OK):
        print(f"Aalina is not built at {args.aalina}: sh benchmarks/aalina/build.sh builds it "
              "(a JDK and Debian's guice, picocli and jline3 jars); skipped")
        sys.exit(0)
    spec = args.player if ":" in args.player else f"{args.player}:time={args.time:g}"
    opponent_seconds = args.time if args.opponent_time is None else args.opponent_time
    opponent = args.aalina if args.opponent == "aalina" else "blind"
    jobs = [(opening, ours_first, spec, args.time, opponent_seconds, opponent, args.cold)
            for _, opening in arena.openings("oware", {}, (args.games + 1) // 2, args.seed)
            for ours_first in (True, False)][:args.games]
    started = time.perf_counter()
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(pool.map(play, jobs))
    if args.games_out:
        with open(args.games_out, "w") as out:
            for result in results:
                out.write(json.dumps(result) + "\n")
    scores = [r["score"] for r in results]
    low, high = interval(scores)
    wins, draws = sum(s == 1 for s in scores), sum(s == 0.5 for s in scores)
    ended = Counter(r["how"] for r in results)
    against = "Aalina" if args.opponent == "aalina" else "itself not told the game"
    report(f"Oware: mancalab's {spec} against {against} at {opponent_seconds:g} s a move",
           [{"games": len(results),
             "mancalab_wins_draws_losses": f"{wins}-{draws}-{len(results) - wins - draws}",
             "score": round(sum(scores) / len(scores), 3),
             "interval_95": f"{low:.2f}-{high:.2f}",
             "ended": ", ".join(f"{k} {v}" for k, v in sorted(ended.items())),
             "mean_margin": round(sum(r["margin"] for r in results) / len(results), 2),
             "mean_plies": round(sum(r["plies"] for r in results) / len(results), 1),
             "mancalab_depth": round(sum(r["depth"] for r in results) / len(results), 1),
             "mancalab_seconds_a_move": round(sum(r["seconds"] for r in results)
                                              / len(results), 3),
             "opponent_seconds_a_move": round(sum(r["their_seconds"] for r in results)
                                              / len(results), 3),
             "book_moves_a_game": round(sum(r["book"] for r in results) / len(results), 1),
             "wall_seconds": round(time.perf_counter() - started, 1)}],
           ["games", "mancalab_wins_draws_losses", "score", "interval_95", "ended",
            "mean_margin", "mean_plies", "mancalab_depth", "mancalab_seconds_a_move",
            "opponent_seconds_a_move", "book_moves_a_game", "wall_seconds"])


if __name__ == "__main__":
    main()
