"""Environment steps a second (mancalab.rl), for every game, with random legal actions.

    python benchmarks/bench_rl.py [--seconds 3] [--opponent random]

- Gymnasium steps/s: ``env.step`` of the one-agent environment, the opponent's replies
  included (the opponent given, default the random player), resets included;
- PettingZoo steps/s: ``env.step`` of the two-agent environment through its order-enforcing
  wrapper, each agent's ``last()`` observation read as a learner would.
Repeats the measurement ``--repeats`` times and reports the median.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from mancalab import rl
from mancalab.variants import VARIANTS

from _report import report


def gym_rate(game: str, opponent: str, seconds: float) -> float:
    env = rl.gym_env(game, opponent=opponent)
    rng = np.random.default_rng(0)
    _, info = env.reset(seed=0)
    steps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        _, _, terminated, truncated, info = env.step(action)
        steps += 1
        if terminated or truncated:
            _, info = env.reset()
    return steps / (time.perf_counter() - t0)


def aec_rate(game: str, seconds: float) -> float:
    env = rl.aec_env(game)
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    steps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        if not env.agents:  # both agents done: the next game
            env.reset()
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
            steps += 1
    return steps / (time.perf_counter() - t0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--opponent", default="random")
    args = parser.parse_args()
    rows = []
    for game in VARIANTS:
        gym_rate(game, args.opponent, 0.2)  # compile or load the kernels first
        gym = [gym_rate(game, args.opponent, args.seconds) for _ in range(args.repeats)]
        aec = [aec_rate(game, args.seconds) for _ in range(args.repeats)]
        rows.append({"game": game, "opponent": args.opponent,
                     "gymnasium steps/s": statistics.median(gym),
                     "pettingzoo steps/s": statistics.median(aec)})
    report("Environment steps a second (median of repeats)", rows,
           ["game", "opponent", "gymnasium steps/s", "pettingzoo steps/s"])


if __name__ == "__main__":
    main()
