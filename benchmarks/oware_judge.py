"""Where mancalab's Oware expert lost its games against Aalina: each of its moves judged by
Aalina thinking longer.

    python benchmarks/oware_judge.py GAMES.jsonl [--time 2] [--lost-only] [--jobs 2]
        [--judge aalina|mancalab]

GAMES.jsonl is what ``bench_oware.py --games-out`` writes. For every move mancalab made (in
the games it lost, with ``--lost-only``), Aalina is asked for its move in that position
(``go movetime``) and, where it differs, for the position after mancalab's move: the
difference of its two scores (the mover's side, Aalina's centipawns: 2.5 of its units, a
seed captured about 60) is what mancalab's move cost by Aalina's judgement. Prints the costs
by phase of the game (the seeds still on the board) and the worst moves with their games, then
one JSON line. A judge that thinks longer is not the truth: the figures show where to look.

``--judge mancalab``: mancalab's own expert, thinking ``--time`` with the game's positions and
the endgame tables, values each position where mancalab is to move; prints, for each game, the
first move after which that value says the game is lost (a search that proves it: exact in
the tables' reach), with the seeds then on the board.
"""

from __future__ import annotations

import argparse
import json
from concurrent.futures import ProcessPoolExecutor

from _report import report
from bench_oware import DEFAULT, HOUSES, Aalina

import mancalab
from mancalab.records import GameRecord

PHASES = ((48, 36), (35, 24), (23, 13), (12, 0))  # seeds on the board, high to low


class Judge:
    """Aalina asked for its move and score in a position given by its moves."""

    def __init__(self, command: str) -> None:
        self.engine = Aalina(command)

    def judge(self, moves: list[int], seconds: float) -> tuple[int, int]:
        """Aalina's move and score (for the mover) after ``moves``."""
        engine = self.engine
        played = "".join(HOUSES[move] for move in moves)
        engine.send("position startpos" + (f" moves {played}" if played else ""))
        engine.send(f"go movetime {max(1, round(seconds * 1000))}")
        score = 0
        while True:
            words = engine.process.stdout.readline().split()
            if not words:
                raise RuntimeError("Aalina stopped")
            if words[0] == "info" and "score" in words:
                score = int(words[words.index("score") + 2])
            if words[0] == "bestmove":  # no house when the game is over
                return HOUSES.find(words[1]) if len(words) > 1 else -1, score


def judge_game(job: tuple) -> list[dict]:
    """Every move of mancalab's in one game, with what it cost by Aalina's judgement."""
    game, seconds, command = job
    variant = mancalab.variant("oware")
    record = GameRecord(variant, variant.start())
    judge = Judge(command)
    costs = []
    try:
        for ply, move in enumerate(game["moves"]):
            state = record.state
            if state.to_move == game["seat"] and len(state.legal_moves()) > 1 and ply >= 4:
                best, best_score = judge.judge(record.moves, seconds)
                cost = 0
                after = state.play(move)
                if best != move and (after.is_over or after in set(record.states)):
                    cost = None  # the move ended the game: no score to compare
                elif best != move:
                    _, reply_score = judge.judge(record.moves + [move], seconds)
                    cost = best_score + reply_score  # the mover's score after its move
                costs.append({"ply": ply, "seeds": sum(state.cells[:12]), "move": move,
                              "best": best, "cost": cost, "score": game["score"],
                              "moves": record.moves[:]})
            record.push(move)
    finally:
        judge.engine.close()
    return costs


def turning_point(job: tuple) -> dict | None:
    """The first of mancalab's positions in a game that its expert, thinking ``seconds``,
    proves lost, and the seeds on the board at mancalab's move before it."""
    from mancalab.players.alphabeta import AlphaBetaPlayer
    from mancalab.search import WIN

    game, seconds, _ = job
    variant = mancalab.variant("oware")
    record = GameRecord(variant, variant.start())
    player = AlphaBetaPlayer(time=seconds)
    before = None
    for ply, move in enumerate(game["moves"]):
        state = record.state
        if state.to_move == game["seat"] and len(state.legal_moves()) > 1 and ply >= 4:
            player.remember(list(record.states)).choose(state)
            value = player.last_info.get("value")
            if value is not None and value <= -WIN // 2:
                return {"ply": ply, "seeds": None if before is None else before["seeds"],
                        "lost_at": sum(state.cells[:12]), "after_ply": before and before["ply"]}
            before = {"ply": ply, "seeds": sum(state.cells[:12])}
        record.push(move)
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games")
    parser.add_argument("--time", type=float, default=2.0, help="Aalina's seconds a position")
    parser.add_argument("--lost-only", action="store_true")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--aalina", default=str(DEFAULT))
    parser.add_argument("--judge", choices=("aalina", "mancalab"), default="aalina")
    args = parser.parse_args()
    with open(args.games) as lines:
        games = [json.loads(line) for line in lines if line.strip()]
    if args.lost_only:
        games = [game for game in games if game["score"] < 1]
    if args.judge == "mancalab":
        with ProcessPoolExecutor(args.jobs) as pool:
            points = list(pool.map(turning_point, [(game, args.time, None) for game in games]))
        for game, point in zip(games, points):
            print(f"{game['how']} {game['margin']:+d}: " + (
                "never proven lost" if point is None else
                f"proven lost at ply {point['ply']} ({point['lost_at']} seeds on the board); "
                f"mancalab's move before at ply {point['after_ply']} ({point['seeds']} seeds)"))
        return
    with ProcessPoolExecutor(args.jobs) as pool:
        judged = [move for moves in pool.map(
            judge_game, [(game, args.time, args.aalina) for game in games]) for move in moves]
    ended = [m for m in judged if m["cost"] is None]
    judged = [m for m in judged if m["cost"] is not None]
    print(f"{len(ended)} moves that Aalina would not have played ended the game")
    rows = []
    for high, low in PHASES:
        phase = [m for m in judged if low <= m["seeds"] <= high]
        if phase:
            rows.append({"seeds_on_board": f"{low}-{high}", "moves": len(phase),
                         "differed": sum(m["best"] != m["move"] for m in phase),
                         "cost_per_move": round(sum(m["cost"] for m in phase) / len(phase), 1),
                         "costly_moves": sum(m["cost"] >= 60 for m in phase)})
    for move in sorted(judged, key=lambda m: -m["cost"])[:10]:
        print(f"cost {move['cost']:>5} at ply {move['ply']} ({move['seeds']} seeds): played "
              f"{HOUSES[move['move']]}, Aalina {HOUSES[move['best']]}; moves "
              f"{''.join(HOUSES[m] for m in move['moves'])}")
    report(f"mancalab's Oware moves judged by Aalina at {args.time:g} s", rows,
           ["seeds_on_board", "moves", "differed", "cost_per_move", "costly_moves"])


if __name__ == "__main__":
    main()
