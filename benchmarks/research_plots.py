"""The plots of docs/research.md, drawn from the results files of bench_starts.py,
bench_fair.py and the counter-setting studies (nothing long is computed here: the counter-
setting drawn as boards takes milliseconds, and the Igisoro study of 10,000 settings, not kept
in the repository, is run again in a few seconds where its file is missing).

    python benchmarks/research_plots.py [--out docs/research]
"""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import mancalab  # noqa: E402
from mancalab.variants.kalah import fair_boards, screened_boards  # noqa: E402

SCREENS = [(6, 3, True), (6, 3, False), (5, 4, True), (5, 4, False), (6, 4, True),
           (6, 4, False)]


def _signed(value: int) -> str:
    return f"{value:+d}" if value else "0"


def start_values(results: Path, out: Path) -> None:
    """Heat maps of the start values of Kalah(m, n), one per capture rule."""
    rows = [json.loads(line) for line in results.read_text().splitlines() if line.strip()]
    latest = {row["run"]: row for row in rows}
    figure, axes = plt.subplots(1, 2, figsize=(10, 4.5))
    for ax, empty_capture in zip(axes, (True, False)):
        grid = [[None] * 5 for _ in range(6)]
        for row in latest.values():
            if row["empty_capture"] == empty_capture:
                grid[row["pits"] - 1][row["seeds"] - 1] = row
        values = [[(r["value"] if r and r["exact"] else float("nan")) for r in line]
                  for line in grid]
        ax.imshow(values, cmap="RdBu", vmin=-12, vmax=12, origin="lower")
        for i, line in enumerate(grid):
            for j, row in enumerate(line):
                text = "" if row is None else (_signed(row["value"]) if row["exact"] else
                                               f"{row['lower']:+d}..{row['upper']:+d}")
                ax.text(j, i, text, ha="center", va="center", fontsize=9)
        ax.set_xticks(range(5), [str(n) for n in range(1, 6)])
        ax.set_yticks(range(6), [str(m) for m in range(1, 7)])
        ax.set_xlabel("seeds per pit (n)")
        ax.set_ylabel("pits per side (m)")
        ax.set_title(f"Kalah(m,n) {'with' if empty_capture else 'without'} empty capture")
    figure.suptitle("The first player's margin with perfect play")
    figure.tight_layout()
    figure.savefig(out / "kalah_start_values.png", dpi=110)
    plt.close(figure)


def starts_table(results: Path) -> str:
    """The start values as a markdown table (docs/research.md): value, or bounds, and time."""
    latest = {}
    for line in results.read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            latest[row["run"]] = row
    lines = ["| Kalah(m,n) | empty capture | time | no empty capture | time |",
             "|---|---|---|---|---|"]
    for pits in range(1, 7):
        for seeds in range(1, 6):
            cells = []
            for rule in ("ec", "noec"):
                row = latest.get(f"kalah({pits},{seeds}) {rule}")
                if row is None:
                    cells += ["not run", ""]
                    continue
                value = (f"**{_signed(row['value'])}**" if row["exact"] else
                         f"bounds {row['lower']:+d} to {row['upper']:+d} (not solved in "
                         f"{row['budget s']:g} s)")
                cells += [value, f"{row['search s']:g} s"]
            lines.append(f"| ({pits},{seeds}) | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def moved_seeds(out: Path) -> None:
    """Where the fair boards take seeds from and put them (cells of the standard start)."""
    figure, axes = plt.subplots(len(SCREENS), 1, figsize=(9, 2.2 * len(SCREENS)))
    for ax, (pits, seeds, empty_capture) in zip(axes, SCREENS):
        start = mancalab.variant("kalah", pits=pits, seeds=seeds).start_cells()
        # Kalah(6,4): FairKalah's boards with empty capture, the screen's list without
        found = (screened_boards(pits, seeds, empty_capture)
                 or fair_boards(pits, seeds, empty_capture))
        boards = list(found.values())
        change = [[0] * len(start) for _ in range(2)]
        for cells in boards:
            for i, (a, b) in enumerate(zip(start, cells)):
                if b < a:
                    change[0][i] += a - b
                elif b > a:
                    change[1][i] += b - a
        ax.imshow(change, cmap="Greens", aspect="auto")
        for r in range(2):
            for i, count in enumerate(change[r]):
                ax.text(i, r, str(count), ha="center", va="center", fontsize=8)
        labels = ([f"A{pits - i}" for i in range(pits)] + ["A store"]
                  + [f"B{pits - i}" for i in range(pits)] + ["B store"])
        ax.set_xticks(range(len(start)), labels, fontsize=7)
        ax.set_yticks([0, 1], ["taken", "added"])
        rule = "with" if empty_capture else "without"
        ax.set_title(f"Kalah({pits},{seeds}) {rule} empty capture: {len(boards)} fair boards",
                     fontsize=10)
    figure.tight_layout()
    figure.savefig(out / "fair_boards_moved_seeds.png", dpi=110)
    plt.close(figure)


def counter_boards(out: Path) -> None:
    """The default setting's counter-setting as boards: before the first move (the hole
    played outlined) and after it."""
    from mancalab.draw import image as picture
    from mancalab.analysis.research.counter import counter
    from mancalab.variants.urubugu import HOLE_CELL

    answer = counter([2] * 16, time_limit=60)
    game = mancalab.variant("urubugu")
    start = game.start(setting_a=answer.setting)
    move = int(HOLE_CELL[0, answer.move])
    after = game.state(start.play(move).cells, to_move=0)
    figure, axes = plt.subplots(1, 2, figsize=(11, 3.6))
    picture.draw(start, axes[0], viewer=0, marks={move})
    axes[0].set_title(f"A's counter-setting against 2 a hole; A plays hole {answer.move}",
                      fontsize=10)
    picture.draw(after, axes[1], viewer=0)
    axes[1].set_title("after that one move: all 64 beads are A's", fontsize=10)
    figure.tight_layout()
    figure.savefig(out / "counter_setting_default.png", dpi=110)
    plt.close(figure)


def counter_half_columns(results: Path, out: Path) -> None:
    """Igisoro options: settings by columns with one occupied and one empty hole, and how
    many of them have a counter-setting."""
    from mancalab.analysis.research.counter import features

    rows = [json.loads(line) for line in results.read_text().splitlines()[1:] if line.strip()]
    by_half: dict[int, list[int]] = {}
    for row in rows:
        half = features(row["opponent"])["half_columns"]
        by_half.setdefault(half, [0, 0])[row["status"] == "found"] += 1
    halves = sorted(by_half)
    figure, ax = plt.subplots(figsize=(7, 3.2))
    ax.bar(halves, [by_half[h][0] for h in halves], label="proven: no counter-setting")
    ax.bar(halves, [by_half[h][1] for h in halves], bottom=[by_half[h][0] for h in halves],
           label="counter-setting found")
    for h in halves:
        ax.text(h, sum(by_half[h]), f"{by_half[h][1]}/{sum(by_half[h])}", ha="center",
                va="bottom", fontsize=8)
    ax.set_xlabel("columns of S with one occupied and one empty hole")
    ax.set_ylabel("settings S")
    ax.set_title(f"Urubugu, Igisoro options: {len(rows):,} settings", fontsize=10)
    ax.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(out / "counter_igisoro_half_columns.png", dpi=110)
    plt.close(figure)


def counter_shares(summary: Path, out: Path) -> None:
    """Original rules: settings S by the share of all settings that answer them with a
    wipe-out (benchmarks/urubugu_counter_shares.py's estimate)."""
    found = json.loads(summary.read_text())
    counts = found["histogram"]["settings"]
    last = max(i for i, count in enumerate(counts) if count) + 1
    figure, ax = plt.subplots(figsize=(7, 3.2))
    ax.bar([i + 0.5 for i in range(last)], counts[:last], width=0.9)
    ax.axvline(100 * found["default"]["share"], color="black", linestyle="--", linewidth=1,
               label=f"2 a hole: {100 * found['default']['share']:.1f}%")
    ax.set_xlabel("share of all settings that are counter-settings of S (%)")
    ax.set_ylabel("settings S")
    ax.set_title(f"Urubugu, original rules: {found['settings']:,} settings S, "
                 f"{found['draws']:,} settings drawn for each (an estimate)", fontsize=10)
    ax.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(out / "counter_shares.png", dpi=110)
    plt.close(figure)


def game_trees(results: Path, out: Path) -> None:
    """Each game's tree by level (benchmarks/tree_deep.py's results), drawn as the tree
    command draws it."""
    import mancalab
    from mancalab.analysis.stats import tree

    for path in sorted(results.glob("*.jsonl")):
        rows = []
        for line in path.read_text().splitlines():
            r = json.loads(line)
            rows.append(tree.TreeRow(r["level"], r["turns"], r["games"], r["agency"],
                                     r["a_wins"], r["b_wins"], r["draws"], r["timeouts"],
                                     r["positions"], r["seconds"], 0))
        title = mancalab.variant(path.stem).title
        tree.plot(rows, out / f"tree_{path.stem}.png", f"{title}: game tree by level")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/research"))
    parser.add_argument("--starts", type=Path, default=Path("benchmarks/results/starts.jsonl"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    start_values(args.starts, args.out)
    moved_seeds(args.out)
    counter_boards(args.out)
    igisoro = Path("benchmarks/results/counter/igisoro.jsonl")
    if not igisoro.exists():  # docs/research.md's command
        subprocess.run(["mancalab", "counter", "urubugu", "--igisoro", "--sample", "10000",
                        "--out", str(igisoro), "--time", "10", "--jobs", "2"], check=True)
    counter_half_columns(igisoro, args.out)
    counter_shares(Path("benchmarks/results/counter/shares-10000x10000.json"), args.out)
    game_trees(Path("benchmarks/results/tree"), args.out)
    print(f"Wrote the plots to {args.out}; the start values:")
    print(starts_table(args.starts))


if __name__ == "__main__":
    main()
