"""How do initial settings influence Urubugu? Self-play of a strong player from settings
drawn from each family (both players' settings drawn alike): the first player's score and
the game's length with 95% intervals, and a plot (docs/research/urubugu_settings.png).

    python benchmarks/urubugu_settings.py [--games 200] [--player alphabeta:depth=4] [--jobs 2]

Every game is played afresh into a new folder (--out DIR keeps the results files; a
stopped run goes on from them); --saved prints the committed run in
benchmarks/results/urubugu/ instead, and says so.
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
from mancalab.analysis.research.settings import FAMILIES  # noqa: E402

RESULTS = Path("benchmarks/results/urubugu")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--player", default="alphabeta:depth=4")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--plot", type=Path, default=Path("docs/research/urubugu_settings.png"))
    results_flags(parser, RESULTS)
    args = parser.parse_args()
    folder = results_folder(args, RESULTS)
    slug = "".join(c if c.isalnum() or c in "=.-" else "_" for c in args.player)
    runs = {"default (2 a hole)": (None, metrics.OPENING)}
    runs.update({family: (family, 0) for family in FAMILIES})
    found = {}
    print("| settings | games | first player's score | first player wins | moves a game | "
          "time |")
    print("|---|---|---|---|---|---|")
    for name, (family, opening) in runs.items():
        started = time.perf_counter()
        rows = metrics.measure("urubugu", {}, args.player, args.games, 1,
                               folder / f"{family or 'default'}-{slug}.jsonl", args.jobs,
                               opening=opening, family=family)
        result = metrics.summary(rows)
        found[name] = result
        wins = metrics.share_interval(sum(r["winner"] == 0 for r in rows), len(rows))
        b, length = result["balance"], result["length"]
        print(f"| {name} | {len(rows)} | {b['mean']:.2f} ({b['low']:.2f}–{b['high']:.2f}) | "
              f"{100 * wins['mean']:.0f}% | {length['mean']:.1f} ({length['low']:.1f}–"
              f"{length['high']:.1f}) | {time.perf_counter() - started:.0f} s |", flush=True)
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.4))
    for ax, metric, words in ((axes[0], "balance", "first player's score (win 1)"),
                              (axes[1], "length", "moves a game")):
        names = list(found)
        means = [found[n][metric]["mean"] for n in names]
        errs = [[m - found[n][metric]["low"] for n, m in zip(names, means)],
                [found[n][metric]["high"] - m for n, m in zip(names, means)]]
        ax.errorbar(range(len(names)), means, yerr=errs, fmt="o", capsize=4)
        ax.set_xticks(range(len(names)), names, rotation=20, fontsize=8)
        ax.set_title(f"Urubugu, {args.player} self-play: {words}", fontsize=10)
    axes[0].axhline(0.5, color="grey", linewidth=0.8)
    fig.tight_layout()
    args.plot.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.plot, dpi=100)


if __name__ == "__main__":
    main()
