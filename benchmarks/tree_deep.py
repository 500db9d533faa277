"""The deepest exact game-tree tables this machine makes: Gebeta to level 40, the first levels
of the other games, with a plot of distinct positions and outcome shares by level.

    python benchmarks/tree_deep.py [--games gebeta kalah ...] [--depth 40] [--budget 600]
                                   [--work DIR]

Each game runs to ``--depth`` (Gebeta) or until its levels so far took ``--budget`` seconds
(the others: their trees grow faster). Every finished level is kept in ``--work`` (default:
the user's cache folder), so a stopped run goes on from where it was; the tables so far are
rewritten after each level to ``benchmarks/results/tree/GAME.csv`` (the reference program's
columns) and ``GAME.jsonl`` (with distinct positions, seconds and peak memory a level);
``research_plots.py`` draws them into docs/research.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from pathlib import Path

import mancalab
from mancalab.analysis.stats import tree
from mancalab.records import write_atomic

from _report import machine

RESULTS = Path(__file__).parent / "results" / "tree"
DEPTHS = {"gebeta": 40}


class Enough(Exception):
    """The game's time budget is spent (its levels are kept)."""


def run(name: str, depth: int, budget: float, work: Path) -> dict:
    game = mancalab.variant(name)
    rows: list[tree.TreeRow] = []
    lines: list[dict] = []
    started = time.perf_counter()

    def on_level(row: tree.TreeRow) -> None:
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB -> GiB
        rows.append(row)
        lines.append({"level": row.level, "turns": row.turns, "games": row.games,
                      "agency": row.agency, "a_wins": row.a_wins, "b_wins": row.b_wins,
                      "draws": row.draws, "timeouts": row.timeouts,
                      "positions": row.positions, "seconds": round(row.seconds, 2),
                      "tables_gib": round(row.peak_bytes / 2**30, 3),
                      "peak_rss_gib": round(rss, 2)})
        tree.write_csv(rows, RESULTS / f"{name}.csv")
        write_atomic(RESULTS / f"{name}.jsonl", "".join(json.dumps(x) + "\n" for x in lines))
        print(f"{name} level {row.level}: {row.positions or 0:,} positions, "
              f"{row.seconds:.1f} s, peak RSS {rss:.1f} GiB", flush=True)
        if sum(r.seconds for r in rows) > budget and row.level < depth:
            raise Enough

    stopped = "depth"
    try:
        tree.tree_stats(game, depth, on_level=on_level, checkpoint=work / name)
    except Enough:
        stopped = "budget"
    except tree.TreeMemoryError as error:
        stopped = f"memory: {error}"
    return {"game": name, "levels": len(rows), "stopped": stopped,
            "seconds": round(sum(r.seconds for r in rows), 1),
            "this_run_seconds": round(time.perf_counter() - started, 1),
            "positions_at_deepest": rows[-1].positions if rows else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+",
                        default=["gebeta", "kalah", "gabata", "urubugu", "gabata3"])
    parser.add_argument("--depth", type=int, default=None,
                        help="levels of Gebeta (default 40) or of the others (default 40)")
    parser.add_argument("--budget", type=float, default=600.0,
                        help="seconds of levels per game other than Gebeta")
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    parser.add_argument("--work", type=Path, default=cache / "mancalab" / "tree")
    args = parser.parse_args()
    RESULTS.mkdir(parents=True, exist_ok=True)
    summary = []
    for name in args.games:
        depth = args.depth or DEPTHS.get(name, 40)
        budget = float("inf") if name in DEPTHS else args.budget
        summary.append(run(name, depth, budget, args.work))
    kept = RESULTS / "summary.json"  # games run before stay, those run now are replaced
    games = json.loads(kept.read_text())["games"] if kept.exists() else []
    games = [g for g in games if g["game"] not in args.games] + summary
    write_atomic(kept, json.dumps({"machine": machine(), "games": games}, indent=1) + "\n")
    print("JSON: " + json.dumps({"benchmark": "tree_deep", "machine": machine(),
                                 "results": summary}))


if __name__ == "__main__":
    main()
