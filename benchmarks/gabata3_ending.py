"""Does 3-row Gabata end? Self-play of four players under the default rules and the reload
options: the rounds and moves until the game ends, and the share of games that end within
10, 50 and 200 rounds (docs/research.md).

    python benchmarks/gabata3_ending.py [--games 40] [--max-plies 8000] [--jobs 2]

A game ends by the rules, or is cut: by the rule for endless play (a position come round a
third time, which mancalab adds; the written rules have no such end) or at --max-plies moves.
Every game is played afresh into a new folder (--out DIR keeps the results files; a
stopped run goes on from them); --saved prints the committed run in
benchmarks/results/gabata3/ instead, and says so.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from _report import results_flags, results_folder

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from mancalab.analysis.research import metrics  # noqa: E402

RESULTS = Path("benchmarks/results/gabata3")
PLAYERS = ["random", "greedy", "classic:level=4", "alphabeta:depth=4"]
RULES = {"default": {}, "round_end=either": {"round_end": "either"},
         "rounds=single": {"rounds": "single"}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--max-plies", type=int, default=8000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--plot", type=Path, default=Path("docs/research/gabata3_rounds.png"))
    results_flags(parser, RESULTS)
    args = parser.parse_args()
    folder = results_folder(args, RESULTS)
    table = []
    fig, axes = plt.subplots(1, len(RULES), figsize=(12, 3.4), sharey=True)
    for ax, (rule, options) in zip(axes, RULES.items()):
        for spec in PLAYERS:
            slug = "".join(c if c.isalnum() or c in "=.-" else "_" for c in spec)
            started = time.perf_counter()
            rows = metrics.measure("gabata3", options, spec, args.games, 1,
                                   folder / f"{rule}-{slug}.jsonl", args.jobs, args.max_plies)
            seconds = time.perf_counter() - started
            ended = [r for r in rows if r["ended"] in ("win", "draw")]
            row = {"rules": rule, "player": spec, "games": len(rows),
                   "ended by the rules": len(ended),
                   "repetition": sum(r["ended"] == "repetition" for r in rows),
                   "move cap": sum(r["ended"] == "move cap" for r in rows),
                   "timeout": sum(r["ended"] == "timeout" for r in rows),
                   "median rounds (ended)": sorted(r["rounds"] for r in ended)[len(ended) // 2]
                   if ended else None,
                   "median moves (ended)": sorted(r["plies"] for r in ended)[len(ended) // 2]
                   if ended else None,
                   **{f"ended within {k} rounds": sum(r["rounds"] <= k for r in ended)
                      for k in (10, 50, 200)},
                   "seconds": round(seconds, 1)}
            table.append(row)
            print(json.dumps(row), flush=True)
            rounds = sorted(r["rounds"] for r in ended)
            ax.step([1] + rounds, [0] + [(i + 1) / len(rows) for i in range(len(rounds))],
                    where="post", label=spec)
        ax.set_xscale("log")
        ax.set_xlim(0.9, 300)
        ax.set_title(f"3-row Gabata, {rule}", fontsize=10)
        ax.set_xlabel("rounds until the game ends")
    axes[0].set_ylabel("share of games ended")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    args.plot.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.plot, dpi=100)
    columns = list(table[0])
    print("| " + " | ".join(columns) + " |")
    print("|---" * len(columns) + "|")
    for row in table:
        print("| " + " | ".join(str(row[c]) for c in columns) + " |")


if __name__ == "__main__":
    main()
