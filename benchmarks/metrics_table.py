"""The game-metrics table of the README and a plot per metric (docs/research/metrics_*.png):
self-play of a strong player at a small budget and of random play in every game.

    python benchmarks/metrics_table.py [--games 100] [--player alphabeta:depth=4] [--jobs 2]

Every game is played afresh into a new folder (--out DIR keeps the results files; a
stopped run goes on from them); --saved prints the committed run in
benchmarks/results/metrics/ instead, and says so.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from _report import results_flags, results_folder

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from mancalab.analysis.research import metrics  # noqa: E402
from mancalab.variants import VARIANTS  # noqa: E402

RESULTS = Path("benchmarks/results/metrics")


def figure(x: float) -> str:
    return f"{x:,.0f}" if abs(x) >= 100 else f"{x:.2f}"


def cell(m: dict) -> str:
    if m.get("mean") is None:
        return "–"
    if "low" in m:
        return f"{figure(m['mean'])} ({figure(m['low'])}–{figure(m['high'])})"
    return figure(m["mean"])


def plot(results: dict, players: list[str], out: Path) -> None:
    games = list(results)
    for name, words in metrics.METRICS.items():
        fig, ax = plt.subplots(figsize=(7, 3))
        for k, spec in enumerate(players):
            xs, ys, errs = [], [], []
            for g, game in enumerate(games):
                m = results[game][spec][name]
                if m.get("mean") is None:
                    continue
                xs.append(g + (k - 0.5) * 0.25)
                ys.append(m["mean"])
                errs.append([[m["mean"] - m.get("low", m["mean"])],
                             [m.get("high", m["mean"]) - m["mean"]]])
            ax.errorbar(xs, ys, yerr=[[e[0][0] for e in errs], [e[1][0] for e in errs]],
                        fmt="o", capsize=3, label=spec)
        ax.set_xticks(range(len(games)), games)
        ax.set_title(words, fontsize=10)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out / f"metrics_{name}.png", dpi=100)
        plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--player", default="alphabeta:depth=4")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--max-plies", type=int, default=1000)
    parser.add_argument("--plots", type=Path, default=Path("docs/research"))
    results_flags(parser, RESULTS)
    args = parser.parse_args()
    folder = results_folder(args, RESULTS)
    players = [args.player, "random"]
    results: dict = {}
    for game in VARIANTS:
        results[game] = {}
        for spec in players:
            slug = "".join(c if c.isalnum() or c in "=.-" else "_" for c in spec)
            started = time.perf_counter()
            rows = metrics.measure(game, {}, spec, args.games, 1, folder / f"{game}-{slug}.jsonl",
                                   args.jobs, args.max_plies)
            results[game][spec] = metrics.summary(rows)
            print(f"{game} {spec}: {len(rows)} games, {time.perf_counter() - started:.0f} s "
                  "(0 s: from the results file)", flush=True)
    args.plots.mkdir(parents=True, exist_ok=True)
    plot(results, players, args.plots)
    print("| metric | " + " | ".join(f"{g} ({p})" for g in results for p in
                                       ("strong", "random")) + " |")
    print("|---" * (1 + 2 * len(results)) + "|")
    for name in metrics.METRICS:
        print(f"| {name} | " + " | ".join(cell(results[g][p][name]) for g in results
                                          for p in players) + " |")


if __name__ == "__main__":
    main()
