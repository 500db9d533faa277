"""A mancalab player against the Gebeta reference program's own MCTS, at equal time a move.

    python benchmarks/bench_reference.py --reference PATH [--player expert] [--games 20]
                                         [--time 0.3] [--results FILE.jsonl]

PATH is the reference program's folder (or its ``Gebeta_MCTS.py``) from
https://github.com/oliver-thiel/Gebeta; nothing of it is copied into mancalab. Its search
needs ``monte-carlo-tree-search`` 2.1.0 (the version in its requirements.txt), installed into
this Python on first use. Colours alternate game by game. Both programs keep their own board
and every move is played on both, so the run also checks that they agree move for move. A game
whose position comes round a third time ends by mancalab's rule for endless play (each side
banks the families its counters make: docs/gebeta.md), which the reference program does not
have; those games are counted apart. Each game is appended to ``--results`` as it ends, so an
interrupted run goes on from there (with each game's moves, to study them). Prints wins, draws
and losses by seat, the score with a 95% interval, then one JSON line.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import subprocess
import sys
import time
from pathlib import Path

from _report import report

import mancalab
from mancalab.players import player as make_player
from mancalab.players import with_seed, with_time
from mancalab.records import GameRecord

REFERENCE_PACKAGE = "monte-carlo-tree-search==2.1.0"
MAX_PLIES = 1000


def load_reference(path: Path):
    """The reference program's module, its search package installed on demand."""
    source = path / "Gebeta_MCTS.py" if path.is_dir() else path
    if not source.is_file():
        sys.exit(f"bench_reference: no Gebeta_MCTS.py at {path} (clone "
                 "https://github.com/oliver-thiel/Gebeta and give its folder)")
    if importlib.util.find_spec("mcts") is None:
        print(f"Installing {REFERENCE_PACKAGE} for the reference program...", flush=True)
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", REFERENCE_PACKAGE],
                       check=True)
    spec = importlib.util.spec_from_file_location("Gebeta_MCTS", source)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def to_cell(move: int, seat: int) -> int:
    """The reference's move (home A..F as 0..5 for the player to move) as mancalab's cell."""
    return move if seat == 0 else 11 - move


def play(reference, spec: str, ours: int, seconds: float, number: int) -> dict:
    """One game; ``ours`` is mancalab's seat."""
    from mcts.searcher.mcts import MCTS

    variant = mancalab.variant("gebeta")
    record = GameRecord(variant, variant.start(), ("mancalab", "reference")[::1 - 2 * ours])
    theirs = reference.GebetaGameState()
    theirs.maximising = 1 - ours
    searcher = MCTS(time_limit=int(seconds * 1000))
    player = make_player(with_seed(spec, number, "gebeta"), "gebeta")
    while not record.state.is_over and len(record.moves) < MAX_PLIES:
        seat = record.state.to_move
        if seat == ours:
            cell = player.choose(record.state)
            move = cell if seat == 0 else 11 - cell
        else:
            move = searcher.search(initial_state=theirs).move
            cell = to_cell(move, seat)
        record.push(cell)
        theirs = theirs.take_action(reference.Action(move))
        if record.termination is None and list(theirs.board) != list(record.state.cells):
            raise SystemExit(f"game {number}: the programs disagree after {record.moves}: "
                             f"{theirs.board} against {record.state.cells}")
    outcome = record.state.outcome
    score = 0.5 if outcome is None or outcome.kind != "win" else float(outcome.winner == ours)
    return {"game": number, "seat": "AB"[ours], "score": score,
            "families": list(record.state.score), "plies": len(record.moves),
            "ended": record.termination or ("cap" if outcome is None else outcome.kind),
            "moves": " ".join(record.log())}  # to replay or study a game later


def interval(scores: list[float]) -> tuple[float, float]:
    """A 95% interval of the mean score (normal approximation, clipped to [0, 1])."""
    n = len(scores)
    mean = sum(scores) / n
    spread = math.sqrt(sum((s - mean) ** 2 for s in scores) / max(n - 1, 1) / n)
    return max(0.0, mean - 1.96 * spread), min(1.0, mean + 1.96 * spread)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", type=Path, required=True)
    parser.add_argument("--player", default="expert")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--time", type=float, default=0.3)
    parser.add_argument("--results", type=Path,
                        default=Path("benchmarks/results/reference.jsonl"))
    args = parser.parse_args()
    reference = load_reference(args.reference)
    spec = with_time(args.player, args.time, "gebeta")
    run = {"player": spec, "time": args.time}
    done = []
    if args.results.exists():
        for line in args.results.read_text().splitlines():
            row = json.loads(line)
            if row.get("run") == run:
                done.append(row)
    for number in range(len(done), args.games):
        started = time.perf_counter()
        row = {"run": run, **play(reference, spec, number % 2, args.time, number),
               "seconds": round(time.perf_counter() - started, 1)}
        done.append(row)
        print(json.dumps(row), flush=True)
        with open(args.results, "a") as handle:
            handle.write(json.dumps(row) + "\n")
    rows = []
    for seat in ("A", "B", "both"):
        games = [r for r in done if seat in (r["seat"], "both")]
        if not games:
            continue
        scores = [r["score"] for r in games]
        low, high = interval(scores)
        rows.append({"seat": seat, "games": len(games),
                     "wins": sum(s == 1 for s in scores), "draws": sum(s == 0.5 for s in scores),
                     "losses": sum(s == 0 for s in scores),
                     "score %": round(100 * sum(scores) / len(scores), 1),
                     "95% interval": f"{100 * low:.0f}-{100 * high:.0f}%",
                     "by repetition": sum(r["ended"] == "repetition" for r in games)})
    report(f"{spec} against the reference MCTS, {args.time:g} s a move", rows,
           ["seat", "games", "wins", "draws", "losses", "score %", "95% interval",
            "by repetition"])


if __name__ == "__main__":
    main()
