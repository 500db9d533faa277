"""Alpha-beta's search speed: positions a second and the depth reached, from each game's start.

    python benchmarks/bench_search.py [--games kalah gebeta ...] [--time 1] [--repeat 3]

For each game a fresh ``alphabeta:time=T`` player chooses the first move (compiled search
loaded before the clock starts); ``last_info`` gives the positions searched, the last depth
completed and the seconds spent. Each game is measured ``--repeat`` times with a new player
(empty transposition table) and the median run is shown, since one run's depth depends on
whether the next iteration was predicted to end in time. Run it on an idle machine: the
search uses one core.

``--to-depth D`` instead searches Oware positions along games (two random moves, then
depth-5 moves) to depth D with a fresh table of ``2 ** bits`` entries for each of
``--table-bits``: the nodes and seconds in all (how much the transposition table saves).

``--along-games D`` instead searches every position of ``--count`` Oware games (two random
moves, then depth-7 moves) to depth D, one ``Search`` (its table) kept across each game's
moves as a player keeps it: the nodes and seconds in all (what the table's policy saves
where it is used).

``--vs-openspiel`` instead times MCTS decisions of 1,000 simulations beside OpenSpiel's C++
``MCTSBot`` (one random rollout a leaf, UCT 1.4) on the same positions (Kalah as OpenSpiel's
``mancala`` and Oware, from the start and along random games), the two alternated.
"""

from __future__ import annotations

import argparse
import random
import time

import mancalab

from _report import report

GAMES = ["kalah", "gebeta", "gabata", "urubugu", "gabata3"]


def measure(game: str, seconds: float) -> dict:
    """One first move from the start by a fresh player."""
    player = mancalab.player(f"alphabeta:time={seconds}")
    player.choose(mancalab.variant(game).start())
    info = player.last_info
    return {"nodes": info["nodes"], "seconds": info["seconds"], "depth": info["depth"]}


def oware_positions(count: int, seed: int = 5) -> list:
    """Oware positions along games: two random moves, then depth-5 alpha-beta moves."""
    from mancalab.search import Search

    rng, variant, found = random.Random(seed), mancalab.variant("oware"), []
    while len(found) < count:
        state = variant.start()
        for ply in range(rng.randint(4, 40)):
            if state.is_over:
                break
            move = (rng.choice(state.legal_moves()) if ply < 2
                    else Search().deepen(state, 1, depth=5, unlimited=True)[0])
            state = state.play(move)
        if not state.is_over and len(state.legal_moves()) > 1:
            found.append(state)
    return found


def to_depth(depth: int, bits: list[int], positions: int = 20) -> list[dict]:
    """Nodes and seconds to search ``positions`` Oware positions to ``depth``, a fresh
    table of ``2 ** b`` entries for each ``b`` in ``bits``."""
    from mancalab.search import Search, warm_up

    states = oware_positions(positions)
    warm_up(states[0])
    rows = []
    for b in bits:
        nodes, started = 0, time.perf_counter()
        for state in states:
            nodes += Search(b).deepen(state, 1e9, depth=depth, unlimited=True)[3]
        rows.append({"table entries": f"2^{b}", "nodes": nodes,
                     "seconds": time.perf_counter() - started})
    return rows


def along_games(depth: int, games: int, seed: int = 11) -> list[dict]:
    """Nodes and seconds to search every position of ``games`` Oware games to ``depth``,
    one search's table kept across each game."""
    from mancalab.records import GameRecord
    from mancalab.search import Search, warm_up

    rng, variant, lines = random.Random(seed), mancalab.variant("oware"), []
    for _ in range(games):
        record, search = GameRecord(variant, variant.start()), Search()
        while not record.state.is_over and len(record.moves) < 70:
            state = record.state
            record.push(rng.choice(state.legal_moves()) if len(record.moves) < 2 else
                        search.deepen(state, 1e9, depth=7, unlimited=True,
                                      history=list(record.states)[:-1])[0])
        lines.append(record.moves)
    warm_up(variant.start())
    nodes, seconds = 0, 0.0
    for moves in lines:
        record, search = GameRecord(variant, variant.start()), Search()
        for move in moves:
            started = time.perf_counter()
            nodes += search.deepen(record.state, 1e9, depth=depth, unlimited=True,
                                   history=list(record.states)[:-1])[3]
            seconds += time.perf_counter() - started
            record.push(move)
    return [{"games": games, "positions": sum(map(len, lines)), "depth": depth,
             "nodes": nodes, "seconds": seconds}]


OPENSPIEL = {"kalah": ("mancala", {"empty_capture": False}), "oware": ("oware", {})}


def mcts_against_openspiel(simulations: int = 1000, positions: int = 20,
                           rounds: int = 3) -> list[dict]:
    """Milliseconds a decision of ``simulations`` for mancalab's MCTS and OpenSpiel's C++
    MCTSBot on ``positions`` positions a game (reached by the same random moves), the best
    of ``rounds`` alternated runs each."""
    import pyspiel

    rows = []
    for name, (theirs, options) in OPENSPIEL.items():
        game = pyspiel.load_game(theirs)
        bot = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, 0), 1.4, simulations,
                              10**9, False, 0, False, pyspiel.ChildSelectionPolicy.UCT)
        player = mancalab.player(f"mcts:playouts={simulations},seed=1")
        rng = random.Random(5)
        pairs = []
        while len(pairs) < positions:
            ours, spiel = mancalab.variant(name, **options).start(), game.new_initial_state()
            for _ in range(rng.randrange(30)):
                if ours.is_over:
                    break
                move = rng.choice(ours.legal_moves())
                spiel.apply_action(spiel.legal_actions()[ours.legal_moves().index(move)])
                ours = ours.play(move)
            if not ours.is_over and len(ours.legal_moves()) > 1:
                pairs.append((ours, spiel))
        player.choose(pairs[0][0]), bot.step(pairs[0][1])  # compiled, warmed
        ours_ms, theirs_ms = [], []
        for _ in range(rounds):
            started = time.perf_counter()
            for state, _ in pairs:
                player.choose(state)
            ours_ms.append((time.perf_counter() - started) / positions * 1e3)
            started = time.perf_counter()
            for _, state in pairs:
                bot.step(state)
            theirs_ms.append((time.perf_counter() - started) / positions * 1e3)
        rows.append({"game": name, "mancalab ms a decision": min(ours_ms),
                     "OpenSpiel C++ ms": min(theirs_ms),
                     "ratio": min(theirs_ms) / min(ours_ms)})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=GAMES)
    parser.add_argument("--time", type=float, default=1.0, help="seconds a move")
    parser.add_argument("--repeat", type=int, default=3, help="runs per game (median shown)")
    parser.add_argument("--vs-openspiel", action="store_true",
                        help="MCTS decisions of 1,000 simulations beside OpenSpiel's C++")
    parser.add_argument("--to-depth", type=int, default=0,
                        help="search 20 Oware positions to this depth instead")
    parser.add_argument("--table-bits", type=int, nargs="+", default=[18, 20, 22])
    parser.add_argument("--along-games", type=int, default=0, metavar="DEPTH",
                        help="search every position of --games Oware games to this depth")
    parser.add_argument("--count", type=int, default=3, help="games for --along-games")
    parser.add_argument("--seed", type=int, default=11, help="their openings, --along-games")
    args = parser.parse_args()
    if args.along_games:
        rows = along_games(args.along_games, args.count, args.seed)
        report(f"Oware games searched to depth {args.along_games}, a table kept a game",
               rows, list(rows[0]))
        return
    if args.to_depth:
        rows = to_depth(args.to_depth, args.table_bits)
        report(f"Oware, 20 positions searched to depth {args.to_depth}", rows, list(rows[0]))
        return
    if args.vs_openspiel:
        rows = mcts_against_openspiel()
        report("MCTS against OpenSpiel's C++ MCTSBot, 1,000 simulations", rows,
               list(rows[0]))
        return
    rows = []
    for game in args.games:
        runs = sorted((measure(game, args.time) for _ in range(args.repeat)),
                      key=lambda run: run["nodes"] / run["seconds"])
        median = runs[len(runs) // 2]
        rows.append({"game": game, "positions/s": median["nodes"] / median["seconds"],
                     "depth": median["depth"], "seconds": median["seconds"],
                     "depths seen": " ".join(str(run["depth"]) for run in runs)})
    report(f"alpha-beta from the start, {args.time} s a move", rows, list(rows[0]))


if __name__ == "__main__":
    main()
