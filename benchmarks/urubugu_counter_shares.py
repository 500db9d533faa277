"""How common counter-settings are, setting by setting: for each of ``--settings`` settings S
of Urubugu's opponent (the default first, then drawn uniformly with the study's seed, as
``mancalab counter --sample``), the share of all the starter's settings T that take every
bead of S in the first turn, estimated from ``--draws`` settings T drawn uniformly and played
with the game's own move (``counter.estimate_setting``). A sample, not a proof: a setting S
whose share comes out 0 is not proven to have no counter-setting.

    python benchmarks/urubugu_counter_shares.py [--settings 10000] [--draws 10000]
                                                [--results FILE.jsonl] [--igisoro]

Each setting's row (index, S, wins among the draws) is appended to ``--results`` as it is
made, so a stopped run goes on. Prints the distribution of the shares (mean, quantiles, the
smallest and the largest with their settings and 95% intervals) and how the share goes with
the fullest hole of S, then one JSON line.
"""

from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
from _report import machine

from mancalab.analysis.research import counter
from mancalab.analysis.research.metrics import wilson
from mancalab.variants.urubugu import BEADS_EACH, Urubugu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--settings", type=int, default=10_000)
    parser.add_argument("--draws", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--results", type=Path)
    parser.add_argument("--igisoro", action="store_true")
    args = parser.parse_args()
    game = Urubugu(**(counter.IGISORO if args.igisoro else {}))
    done = {}
    if args.results and args.results.exists():
        for line in args.results.read_text().splitlines():
            row = json.loads(line)
            if row["draws"] == args.draws and row["igisoro"] == args.igisoro:
                done[row["index"]] = row
    todo = [(i, s) for i, s in enumerate(counter.settings(args.settings, args.seed))
            if i not in done]
    started = time.perf_counter()

    def one(item):
        index, s = item
        found = counter.estimate_setting(game, s, BEADS_EACH, args.draws, seed=args.seed + index,
                                         jobs=1, by_move=False)
        return {"index": index, "opponent": s, "draws": args.draws, "igisoro": args.igisoro,
                "wins": found.winning_drawn}

    with ThreadPoolExecutor(max_workers=2) as pool:  # the sampling releases the GIL
        for row in pool.map(one, todo):
            done[row["index"]] = row
            if args.results:
                with open(args.results, "a") as handle:
                    handle.write(json.dumps(row) + "\n")
    seconds = time.perf_counter() - started
    rows = [done[i] for i in range(args.settings)]
    shares = np.array([row["wins"] / args.draws for row in rows])
    order = np.argsort(shares, kind="stable")

    def described(row: dict) -> dict:
        low, high = wilson(row["wins"], args.draws)
        return {"setting": row["opponent"], "share": row["wins"] / args.draws, "low": low,
                "high": high}

    fullest = np.array([max(row["opponent"]) for row in rows])
    by_fullest = {}
    for top in (range(0, 5), range(5, 9), range(9, 13), range(13, 33)):
        chosen = (fullest >= top.start) & (fullest < top.stop)
        if chosen.any():
            by_fullest[f"{top.start}-{top.stop - 1}"] = {
                "settings": int(chosen.sum()), "mean share": float(shares[chosen].mean())}
    result = {
        "settings": args.settings, "draws": args.draws, "igisoro": args.igisoro,
        "mean share": float(shares.mean()),
        "quantiles": {q: float(np.quantile(shares, q)) for q in (0.01, 0.1, 0.5, 0.9, 0.99)},
        "share 0": int((shares == 0).sum()),
        "smallest": [described(rows[i]) for i in order[:5]],
        "largest": described(rows[order[-1]]),
        "default": described(rows[0]),
        "by fullest hole": by_fullest,
        "histogram": {"percent from": list(range(100)),  # settings S by share, 1% a bin
                      "settings": np.histogram(shares, bins=np.arange(101) / 100)[0].tolist()},
        "seconds": round(seconds, 1), "machine": machine()}
    print(f"{args.settings:,} settings, {args.draws:,} settings T drawn for each "
          f"({seconds:.0f} s): mean share {result['mean share']:.4f}; quantiles "
          + ", ".join(f"{q}: {v:.4f}" for q, v in result["quantiles"].items()))
    print(f"share 0 (no counter-setting among the draws): {result['share 0']} settings")
    for item in result["smallest"]:
        print(f"  smallest {item['share']:.4f} [{item['low']:.4f}, {item['high']:.4f}] "
              f"{item['setting']}")
    print(f"  largest {result['largest']['share']:.4f} {result['largest']['setting']}")
    for band, figures in by_fullest.items():
        print(f"  fullest hole {band:>5}: {figures['settings']:6,} settings, mean share "
              f"{figures['mean share']:.4f}")
    print("JSON: " + json.dumps(result))


if __name__ == "__main__":
    main()
