"""Urubugu counter-settings (IMPAGA): given the opponent's setting S, a setting T of the
starter's 32 beads and a first move that takes every one of the opponent's beads in that
single turn.

The search never enumerates the ~7.5e11 settings T. It plays the first move with T unknown
and decides a hole's count only when the move first *reads* it: the hole lifted first, and
each hole where a lap ends (whether it was empty decides between the end of the turn and a
relay, and how many beads it holds is the next lap's hand). Drops into a hole not yet read
only add to it. So one branch stands for every setting that agrees on the holes read so far,
and a wipe-out reached with holes never read stands for every way of putting the beads left
into them. A depth-first search over these decisions, compiled, with its stack in arrays so
that it can stop at a time limit and go on, either finds a counter-setting, or exhausts every
branch of every first move: then none exists (a proof, by exhaustion), or it runs out of time
(no claim). Each setting found is checked by playing it with the game's own move.

How many counter-settings a setting has is counted exactly by exhausting the search
(``want_all``: proven bounds while it runs) or estimated by playing settings drawn uniformly
(``estimate``: a sample with its interval, no proof).

The laps and the capture rule are the game's own (``mancalab.variants.urubugu``): this
module decides only when to read a hole.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
import numpy as np
from numba import njit

from ... import kernels
from ...borrow import borrowed
from ...cluster import each
from .journal import Journal
from .metrics import wilson
from .settings import uniform
from ...variants.rules.urubugu import (HOLE_CELL, P_MAX_LAPS, P_SINGLETONS, P_TURN_ORIGIN,
                                       beads, captures, sow_lap)
from ...variants.rules.urubugu import play as play_move
from ...variants.urubugu import BEADS_EACH, Urubugu

HOLES = 16
DEPTH = HOLES + 1  # a decision for each hole read, and one to spare
# a frame: the decision it makes and the move's state when it was reached
F_HOLE, F_NEXT, F_LAST_X, F_UNDECIDED, F_BUDGET, F_PLAYED, F_ORIGIN, F_LAPS, F_FIRST = range(9)
FRAME = 9

FOUND, EXHAUSTED, PAUSED = 0, 1, 2


@njit(cache=True)
def _undecided_count(mask):
    count = 0
    for h in range(1, HOLES + 1):
        if mask >> h & 1:
            count += 1
    return count


@njit(cache=True)
def _run(params, board, p, frame, last):
    """Go on with the move from the end of a lap at hole ``last`` (decided), until the
    opponent is wiped out (1), the turn ends or is cut off (0), or a lap ends on a hole not
    read yet (2; ``frame[F_HOLE]`` says which). ``frame`` holds the move's state."""
    q = 1 - p
    played, origin, laps = frame[F_PLAYED], frame[F_ORIGIN], frame[F_LAPS]
    max_laps = params[P_MAX_LAPS]
    while True:
        if last >= 9 and captures(params, board, p, q, last):
            if laps == max_laps:
                return 0
            front = HOLE_CELL[q, 25 - last]
            back = HOLE_CELL[q, last - 8]
            hand = board[front] + board[back]
            board[front] = 0
            board[back] = 0
            start = played if params[P_TURN_ORIGIN] == 1 else origin
        else:
            cell = HOLE_CELL[p, last]
            if board[cell] == 1 or laps == max_laps:  # it was empty: the turn ends
                return 0
            hand = board[cell]  # relay
            board[cell] = 0
            origin = last
            start = last
        last = sow_lap(board, p, start, hand, None)
        laps += 1
        frame[F_ORIGIN], frame[F_LAPS] = origin, laps
        if beads(board, q) == 0:
            return 1
        if frame[F_UNDECIDED] >> last & 1:
            frame[F_HOLE] = last
            return 2


@njit(cache=True)
def search(params, boards, frames, depth, p, first_hole, beads_each, max_nodes, want_all,
           found):
    """Advance the search of first move ``first_hole`` (the starter holding ``beads_each``
    beads) by at most ``max_nodes`` decisions.

    ``boards[d]``/``frames[d]`` is the stack (``depth[0]`` frames deep; 0: not begun).
    Returns (status, nodes, settings that win, settings that do not). The first
    counter-setting found goes to ``found`` (counts by hole number 1..16, ``found[0]`` set
    to 1 once it holds one)."""
    params, boards, frames = borrowed(params), borrowed(boards), borrowed(frames)
    found = borrowed(found)
    need = 1 if params[P_SINGLETONS] == 1 else 2
    nodes = 0
    counted = 0
    lost = 0
    if depth[0] == 0:  # the first decision: how many beads the played hole holds
        f = frames[0]
        f[F_HOLE] = first_hole
        f[F_NEXT] = need
        f[F_LAST_X] = beads_each
        f[F_UNDECIDED] = 0
        for h in range(1, HOLES + 1):
            f[F_UNDECIDED] |= 1 << h
        f[F_BUDGET] = beads_each
        f[F_PLAYED] = first_hole
        f[F_ORIGIN] = first_hole
        f[F_LAPS] = 0
        f[F_FIRST] = 1
        depth[0] = 1
    scratch = np.empty(FRAME, np.int64)
    while depth[0] > 0:
        if nodes >= max_nodes:
            return PAUSED, nodes, counted, lost
        d = depth[0] - 1
        f = frames[d]
        x = f[F_NEXT]
        if x > min(f[F_LAST_X], f[F_BUDGET]):
            depth[0] -= 1  # every count of this hole tried: back up
            continue
        f[F_NEXT] = x + 1
        nodes += 1
        board = boards[d + 1]
        kernels.copy_into(board, boards[d])
        kernels.copy_into(scratch, f)
        hole = f[F_HOLE]
        cell = HOLE_CELL[p, hole]
        scratch[F_UNDECIDED] = f[F_UNDECIDED] & ~(1 << hole)
        scratch[F_BUDGET] = f[F_BUDGET] - x
        if f[F_FIRST] == 1:  # lift the played hole and sow the first lap
            board[cell] = 0
            last = sow_lap(board, p, hole, x, None)
            scratch[F_LAPS] = 1
            if beads(board, 1 - p) == 0:
                outcome = 1
            elif scratch[F_UNDECIDED] >> last & 1:
                scratch[F_HOLE] = last
                outcome = 2
            else:
                outcome = _run(params, board, p, scratch, last)
        else:
            board[cell] += x
            outcome = _run(params, board, p, scratch, hole)
        if outcome == 0:
            lost += _completions(scratch)
        elif outcome == 1:
            settings = _completions(scratch)
            if settings == 0:
                continue  # beads left and no hole left to hold them
            counted += settings
            if found[0] == 0:  # the first setting found is kept (found[0] flags it)
                _solution(boards, frames, d, x, scratch, found)
                found[0] = 1
            if not want_all:
                return FOUND, nodes, counted, lost
        elif outcome == 2:
            g = frames[d + 1]
            kernels.copy_into(g, scratch)
            g[F_NEXT] = 0
            g[F_LAST_X] = beads_each
            g[F_FIRST] = 0
            depth[0] = d + 2
    return EXHAUSTED, nodes, counted, lost


@njit(cache=True)
def _completions(frame):
    """The settings a branch stands for: the beads left over the holes never read (0 when
    beads are left and no hole is)."""
    free = _undecided_count(frame[F_UNDECIDED])
    if free == 0:
        return 1 if frame[F_BUDGET] == 0 else 0
    return comb_int(frame[F_BUDGET] + free - 1, free - 1)


@njit(cache=True)
def comb_int(n, k):
    result = 1
    for i in range(1, k + 1):
        result = result * (n - k + i) // i
    return result


@njit(cache=True)
def _solution(boards, frames, d, x, scratch, found):
    """The counts decided on the path to this wipe-out; the beads left go to a hole never
    read (any will do: the move never looked at it)."""
    found[:] = 0
    for level in range(d):
        f = frames[level]
        found[f[F_HOLE]] = f[F_NEXT] - 1
    found[frames[d][F_HOLE]] = x
    budget = scratch[F_BUDGET]
    if budget > 0:
        for h in range(1, HOLES + 1):
            if scratch[F_UNDECIDED] >> h & 1:
                found[h] += budget
                break


@dataclass
class Answer:
    """What the search established for one setting S."""

    status: str  # "found", "none" (every branch exhausted) or "unknown" (out of time)
    setting: list[int] | None = None  # T, the starter's counts in their hole order 1..16
    move: int | None = None  # the starter's winning hole 1..16
    count: int | None = None  # with all: the winning (setting, first move) pairs
    # with all: proven bounds on that count (the pairs found winning, and all pairs but those
    # found not to), equal to it once every branch is searched
    count_low: int | None = None
    count_high: int | None = None
    counts_by_move: dict[int, int] = field(default_factory=dict)
    nodes: int = 0
    seconds: float = 0.0
    moves_exhausted: list[int] = field(default_factory=list)
    reason: str = ""  # how "none" was proven, or why no claim is made

    def to_dict(self) -> dict:
        return {"status": self.status, "setting": self.setting, "move": self.move,
                "count": self.count, "count_low": self.count_low, "count_high": self.count_high,
                "counts_by_move": {str(k): v for k, v in sorted(self.counts_by_move.items())},
                "nodes": self.nodes, "seconds": round(self.seconds, 6),
                "moves_exhausted": sorted(self.moves_exhausted), "reason": self.reason}


def check_setting(setting) -> list[int]:
    """The opponent's setting: 16 whole counts >= 0 holding exactly 32 beads."""
    return Urubugu.check_setting(setting, 1)


# The traditional rules of the options (docs/rules/urubugu.md): only holes of two or more are
# played, a capture needs an occupied landing hole and both opposite holes occupied, and the
# captured beads are sown from after the hole the turn began at.
IGISORO = {"singletons_playable": False, "capture_requires_occupied_landing": True,
           "capture_requires_both_opposite": True, "captured_sow_origin": "turn_origin"}


def unreachable_column(game: Urubugu, s: list[int]) -> int | None:
    """A column of S that no move can capture, or None. The opponent's holes only lose
    beads during the starter's turn, a whole column at a time; where a capture needs both
    opposite holes occupied, a column with one empty and one occupied hole stays so."""
    if not game.options["capture_requires_both_opposite"]:
        return None
    for back in range(1, 9):
        front = 17 - back  # the opponent's front hole in the column of their back hole
        if (s[back - 1] > 0) != (s[front - 1] > 0):
            return back
    return None


def counter(setting, time_limit: float = 10.0, want_all: bool = False,
            chunk: int = 20_000, first_moves: list[int] | None = None, **options) -> Answer:
    """Search a counter-setting for the opponent's ``setting`` S (16 counts, their hole
    order) under the game's ``options``, for at most ``time_limit`` seconds, with the first
    moves ``first_moves`` (holes 1..16; default all). The starter is player 0 (A); the
    answer's setting is theirs."""
    return search_setting(Urubugu(**options), check_setting(setting), BEADS_EACH, time_limit,
                          want_all, chunk, first_moves)


def _opponent_only(game: Urubugu, s: list[int]) -> np.ndarray:
    """The board with the opponent's setting ``s`` and the starter (player 0, to move)
    holding nothing yet."""
    cells = [0] * 32
    for hole, count in enumerate(s, start=1):
        cells[int(HOLE_CELL[1, hole])] = count
    return game.state(cells, to_move=0).board


def search_setting(game: Urubugu, s: list[int], beads_each: int, time_limit: float,
                   want_all: bool = False, chunk: int = 20_000,
                   first_moves: list[int] | None = None) -> Answer:
    """``counter`` for any number of beads (the rules allow fewer, and tests check the
    search against every setting of small ones): the opponent's counts ``s`` by hole, the
    starter's ``beads_each`` to place."""
    column = unreachable_column(game, s)
    if column is not None:
        return Answer("none", count=0 if want_all else None, count_low=0 if want_all else None,
                      count_high=0 if want_all else None,
                      moves_exhausted=list(range(1, HOLES + 1)),
                      reason=f"the column of the opponent's holes {column} and {17 - column} "
                      "has one occupied and one empty hole: no capture can take it")
    p = 0
    base = _opponent_only(game, s)
    answer = Answer("unknown")
    stacks = {}
    for move in range(1, HOLES + 1):
        boards = np.zeros((DEPTH + 1, base.size), np.int64)
        boards[0] = base
        stacks[move] = (boards, np.zeros((DEPTH + 1, FRAME), np.int64), np.zeros(1, np.int64))
    found = np.zeros(HOLES + 1, np.int64)
    # a call that decides nothing: the compiled search is loaded before the clock starts
    search(game.params, *stacks[1], p, 1, beads_each, 0, want_all, found)
    started = time.perf_counter()
    open_moves = list(first_moves or range(1, HOLES + 1))
    total = 0
    need = 1 if game.params[P_SINGLETONS] == 1 else 2  # the fewest beads a hole played holds
    # every (setting, move) pair of the moves searched, less those found not to win
    possible = len(open_moves) * (comb_int(beads_each - need + HOLES - 1, HOLES - 1)
                                  if beads_each >= need else 0)
    # round robin over the first moves, a chunk of decisions each, so a quick win by any
    # move is found early and the time is shared fairly when there is none
    while open_moves:
        if time.perf_counter() - started > time_limit:
            break
        for move in list(open_moves):
            boards, frames, depth = stacks[move]
            had_one = found[0] == 1
            status, nodes, counted, lost = search(game.params, boards, frames, depth, p,
                                                  move, beads_each, chunk, want_all, found)
            answer.nodes += int(nodes)
            possible -= int(lost)
            if found[0] == 1 and not had_one:
                answer.move, answer.setting = move, [int(c) for c in found[1:]]
                verifying = time.perf_counter()
                _verify(game, s, answer)
                started += time.perf_counter() - verifying  # the search's time, not the check's
            if counted:
                answer.counts_by_move[move] = answer.counts_by_move.get(move, 0) + int(counted)
                total += int(counted)
            if status == FOUND:
                answer.status = "found"
                answer.seconds = time.perf_counter() - started
                return answer
            if status == EXHAUSTED:
                open_moves.remove(move)
                answer.moves_exhausted.append(move)
            if time.perf_counter() - started > time_limit:
                break
    answer.seconds = time.perf_counter() - started
    if want_all:
        answer.count_low, answer.count_high = total, possible
    if not open_moves and first_moves is not None:  # only some first moves: no claim of none
        answer.status = "found" if answer.setting is not None else "unknown"
        answer.reason = f"only the first moves {first_moves} were searched"
    elif not open_moves:
        answer.status = "found" if total else "none"
        answer.count = total
        answer.reason = (f"every branch of all 16 first moves searched ({answer.nodes:,} "
                         "decisions)")
    elif answer.setting is not None:  # found, still counting when the time ran out
        answer.status = "found"
        answer.count = None
        answer.reason = f"counting not finished within {time_limit:g} s"
    else:
        answer.count = None  # not all counted: no count claimed
        answer.reason = (f"not decided within {time_limit:g} s ({answer.nodes:,} decisions; "
                         f"{len(answer.moves_exhausted)} of 16 first moves exhausted)")
    return answer


# ----- the count estimated: settings T drawn uniformly and played -------------------------

Z95 = 1.96  # the two-sided 95% point of the normal distribution (as in ``wilson``)


@dataclass
class Estimate:
    """The counter-settings of one setting S estimated by playing settings T drawn uniformly:
    a sample, not a proof (``Answer`` has the proven bounds). Two counts, each with its 95%
    interval: the winning (setting, first move) pairs, drawn for each first move apart (the
    16 strata: the normal interval of their sum), and the settings with at least one winning
    first move, drawn from all settings (Wilson's interval)."""

    samples: int  # settings T drawn for each first move, and again from all settings
    wins_by_move: dict[int, int]  # of those drawn for each move, the ones that win
    settings_by_move: int  # the settings T each first move can be played from
    pairs: float
    pairs_low: float
    pairs_high: float
    winning_drawn: int  # of those drawn from all settings, the ones that win
    settings_total: int  # all settings T
    settings: float
    settings_low: float
    settings_high: float
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return {key: getattr(self, key) for key in self.__dataclass_fields__}


@njit(cache=True, nogil=True)
def _sample_wipeouts(params, base, hole, need, beads_each, samples, seed):
    """Of ``samples`` settings T drawn uniformly, how many take every opposing bead in the
    first turn (the game's own move): played from ``hole``, among the settings with at least
    ``need`` beads there; or (``hole`` 0) among all settings, from any hole they can play."""
    params, base = borrowed(params), borrowed(base)
    np.random.seed(seed)
    extra = need if hole > 0 else 0
    slots = beads_each - extra + HOLES - 1
    bar = np.zeros(slots, dtype=np.bool_)
    drawn = np.empty_like(base)
    board = np.empty_like(base)
    wins = 0
    for _ in range(samples):
        _draw(bar, base, drawn)
        if hole > 0:
            drawn[HOLE_CELL[0, hole]] += extra
        for h in range(1, HOLES + 1):
            cell = HOLE_CELL[0, h]
            if (hole > 0 and h != hole) or drawn[cell] < need:
                continue
            kernels.copy_into(board, drawn)
            play_move(params, board, cell)
            if beads(board, 1) == 0:
                wins += 1
                break
    return wins


@njit(cache=True, inline="always")
def _draw(bar, base, board):
    """``base`` with a setting of the starter drawn uniformly: the places of the bars among
    the stars and bars picked by Floyd's sampling of a subset."""
    slots = bar.shape[0]
    bar[:] = False
    for j in range(slots - HOLES + 1, slots):
        t = np.random.randint(0, j + 1)
        bar[j if bar[t] else t] = True
    kernels.copy_into(board, base)
    h = 1
    for k in range(slots):
        if bar[k]:
            h += 1
        else:
            board[HOLE_CELL[0, h]] += 1


def estimate_setting(game: Urubugu, s: list[int], beads_each: int, samples: int,
                     seed: int = 1, jobs: int = 2, by_move: bool = True) -> Estimate:
    """``samples`` settings T drawn uniformly for each of the 16 first moves and ``samples``
    from all settings, each played with the game's own move (see ``Estimate``). Runs on
    ``jobs`` threads (the sampling releases the interpreter lock); the same seed and jobs
    draw the same settings. Without ``by_move`` only the settings are estimated (the pairs'
    fields are then 0)."""
    if samples < 1:
        raise ValueError(f"samples must be at least 1, got {samples}")
    base = _opponent_only(game, s)
    need = 1 if game.params[P_SINGLETONS] == 1 else 2
    per_move = comb_int(beads_each - need + HOLES - 1, HOLES - 1) if beads_each >= need else 0
    started = time.perf_counter()
    holes = range(HOLES + 1) if by_move else range(1)
    wins = _sampled(game.params, base, need, beads_each, samples, seed, max(1, jobs), holes)
    pairs, variance = 0.0, 0.0
    for hole in range(1, HOLES + 1):
        share = wins[hole] / samples
        pairs += per_move * share
        variance += per_move ** 2 * share * (1 - share) / samples
    spread = Z95 * variance ** 0.5
    total = comb_int(beads_each + HOLES - 1, HOLES - 1)
    low, high = wilson(wins[0], samples)
    return Estimate(samples, {hole: wins[hole] for hole in range(1, HOLES + 1)}, per_move,
                    pairs, max(0.0, pairs - spread), pairs + spread, wins[0], total,
                    total * wins[0] / samples, total * low, total * high,
                    time.perf_counter() - started)


def _sampled(params, base, need, beads_each, samples, seed, jobs, holes) -> list[int]:
    """The wins among ``samples`` draws for each of ``holes`` (1..16: that first move; 0:
    all settings, any move), each split over ``jobs`` threads with a seed of its own."""
    from concurrent.futures import ThreadPoolExecutor

    share = [samples // jobs + (1 if i < samples % jobs else 0) for i in range(jobs)]
    tasks = [(hole, part) for hole in holes for part in range(jobs) if share[part]]
    wins = [0] * (HOLES + 1)
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        found = pool.map(lambda task: int(_sample_wipeouts(
            params, base, task[0], need, beads_each, share[task[1]],
            (seed * (HOLES + 1) + task[0]) * jobs + task[1])), tasks)
        for (hole, _), won in zip(tasks, found):
            wins[hole] += won
    return wins


def estimate(setting, samples: int, seed: int = 1, jobs: int = 2, **options) -> Estimate:
    """``estimate_setting`` for the opponent's ``setting`` under the game's ``options``."""
    return estimate_setting(Urubugu(**options), check_setting(setting), BEADS_EACH, samples,
                            seed, jobs)


# ----- the study: many settings S drawn uniformly ------------------------------------------

def settings(count: int, seed: int) -> list[list[int]]:
    """The study's settings: the default (2 a hole) first, then ``count - 1`` drawn from
    ``seed`` (the same seed, the same settings: a study can be extended)."""
    rng = random.Random(seed)
    return [[2] * HOLES] + [uniform(rng) for _ in range(count - 1)]


def features(s: list[int]) -> dict:
    """What a setting looks like: empty holes, beads in the back row (holes 1-8) and the
    front row, the fullest hole, and columns with one occupied and one empty hole."""
    return {"empty": sum(c == 0 for c in s), "back": sum(s[:8]), "front": sum(s[8:]),
            "largest": max(s),
            "half_columns": sum((s[b - 1] > 0) != (s[16 - b] > 0) for b in range(1, 9))}


def study(count: int, seed: int, path: str | Path, time_limit: float, jobs: int = 1,
          on_setting: Callable[[dict], None] | None = None, cluster: str | None = None,
          **options) -> list[dict]:
    """Search a counter-setting for each of ``settings(count, seed)``, ``time_limit`` seconds
    each, ``jobs`` processes (or the workers of the Dask scheduler at ``cluster``); each
    answer goes to ``path`` (JSON lines) as it comes, and a stopped study goes on from
    there."""
    game = Urubugu(**options)
    header = {"study": "urubugu counter-settings", "rules": game.options, "seed": seed,
              "time": time_limit}
    journal = Journal(path, header, key=lambda row: row["index"],
                      mismatch="another study (other rules, seed or time)")
    todo = [(i, s) for i, s in enumerate(settings(count, seed)) if i not in journal]
    with journal:
        for row in each(_study_row, todo, time_limit, game.options, jobs=jobs, cluster=cluster,
                        initializer=_warm, initargs=(game.options,)):
            journal.add(row)
            if on_setting:
                on_setting(row)
    return journal.finish(range(count))


def _warm(options: dict) -> None:
    """Load the compiled search before any setting is timed (a worker's first call)."""
    counter([2] * HOLES, 1.0, **options)


def _study_row(item: tuple[int, list[int]], time_limit: float, options: dict) -> dict:
    index, s = item
    answer = counter(s, time_limit, **options)
    return {"index": index, "opponent": s, **answer.to_dict()}


def summary(rows: list[dict]) -> dict:
    """Shares found / proven none / unknown with 95% intervals, time per setting, and the
    look of the settings without a counter-setting beside all settings."""
    n = len(rows)
    out: dict = {"settings": n}
    for status in ("found", "none", "unknown"):
        k = sum(r["status"] == status for r in rows)
        low, high = wilson(k, n)
        out[status] = {"count": k, "share": k / n if n else 0.0, "low": low, "high": high}
    seconds = sorted(r["seconds"] for r in rows)
    out["seconds_median"] = seconds[n // 2] if n else 0.0
    out["seconds_max"] = seconds[-1] if n else 0.0
    out["seconds_total"] = sum(seconds)
    for name, group in (("all", rows), ("none", [r for r in rows if r["status"] == "none"])):
        looks = [features(r["opponent"]) for r in group]
        out[f"features_{name}"] = {key: sum(f[key] for f in looks) / len(looks) if looks
                                   else None for key in features([2] * HOLES)}
    return out


def _verify(game: Urubugu, s: list[int], answer: Answer) -> None:
    """Play the setting found with the game's own move: it must take every opposing bead."""
    cells = [0] * 32
    for player, setting in ((0, answer.setting), (1, s)):
        for hole, count in enumerate(setting, start=1):
            cells[int(HOLE_CELL[player, hole])] = count
    after = game.state(cells, to_move=0).play(int(HOLE_CELL[0, answer.move]))
    if sum(after.cells[:16]) != 0:
        raise AssertionError(f"counter-setting {answer.setting} move {answer.move} does not "
                             f"wipe out {s}: {after.cells}")


__all__ = ["Answer", "Estimate", "IGISORO", "counter", "check_setting", "estimate", "search",
           "settings", "study", "summary", "wilson"]
