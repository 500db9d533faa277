"""The long computations on a Dask cluster (mancalab.cluster): the same results as on this
machine, a worker killed in the middle changing nothing, and clear errors."""

from __future__ import annotations

import json
import os
import signal

import numpy as np
import pytest
from distributed import Client, LocalCluster
from typer.testing import CliRunner

import mancalab
from mancalab.analysis.compete import arena
from mancalab.analysis.research import counter, metrics
from mancalab.analysis.stats import tree, tree_cluster
from mancalab.analysis.solving import databases, databases_cluster
from mancalab.cli import app

pytestmark = [pytest.mark.cluster, pytest.mark.slow]


@pytest.fixture(scope="module")
def cluster():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as local:
        yield local.scheduler_address


def test_an_arena_on_the_cluster_plays_the_same_games(cluster):
    schedule = arena.schedule("greedy", "random", "gebeta", {}, 6, seed=2)
    here = arena.run(schedule)
    there = arena.run(schedule, cluster=cluster)
    assert [r.record for r in there] == [r.record for r in here]


def test_a_study_on_the_cluster_writes_the_same_results(cluster, tmp_path):
    here = counter.study(6, 3, tmp_path / "here.jsonl", 5.0)
    there = counter.study(6, 3, tmp_path / "there.jsonl", 5.0, cluster=cluster)
    strip = [{k: v for k, v in row.items() if k not in ("seconds", "nodes")} for row in here]
    assert [{k: v for k, v in row.items() if k not in ("seconds", "nodes")}
            for row in there] == strip


def test_a_worker_killed_in_the_middle_changes_nothing(cluster, tmp_path):
    # games of some length, so that the killed worker dies with games under way
    here = metrics.measure("gabata3", {}, "random", 12, 5, tmp_path / "here.jsonl")
    with Client(cluster) as client:
        pids = list(client.run(os.getpid).values())
    killed = []

    def kill_one(row: dict) -> None:
        if not killed and len(seen) >= 2:
            os.kill(pids[0], signal.SIGKILL)
            killed.append(pids[0])
        seen.append(row)

    seen: list = []
    there = metrics.measure("gabata3", {}, "random", 12, 5, tmp_path / "there.jsonl",
                            on_game=kill_one, cluster=cluster)
    assert killed and there == here


def test_an_unreachable_scheduler_is_one_line_and_exit_2(tmp_path, monkeypatch):
    monkeypatch.setattr("mancalab.cluster.CONNECT_SECONDS", 0.5)
    runner = CliRunner()
    for args in (["arena", "greedy", "random", "--games", "2"],
                 ["metrics", "kalah", "--games", "2", "--out", str(tmp_path)],
                 ["counter", "urubugu", "--sample", "2", "--out", str(tmp_path / "c.jsonl")],
                 ["db", "build", "kalah", "--seeds", "4", "--dir", str(tmp_path)]):
        result = runner.invoke(app, [*args, "--cluster", "tcp://127.0.0.1:9"])
        assert result.exit_code == 2 and "cannot reach the Dask scheduler" in result.output


@pytest.mark.parametrize("name, options, depth, times", [
    ("gebeta", {}, 11, 1),
    ("kalah", {"pits": 4, "seeds": 3}, 10, 2**64 + 3)])  # two-word multiplicities throughout
def test_the_tree_on_the_cluster_has_the_same_totals_level_by_level(cluster, name, options,
                                                                    depth, times):
    game = mancalab.variant(name, **options)
    here = tree.tree_stats(game, depth, start_multiplicity=times)
    there = tree_cluster.tree_stats(game, depth, cluster, start_multiplicity=times)
    assert [r[:9] for r in there] == [r[:9] for r in here]


def test_a_worker_killed_in_the_middle_of_the_tree_changes_nothing(cluster):
    game = mancalab.variant("gebeta")
    here = tree.tree_stats(game, 11)
    with Client(cluster) as client:
        pids = list(client.run(os.getpid).values())

    def kill_after_level_6(row) -> None:
        if row.level == 6:
            os.kill(pids[1], signal.SIGKILL)

    there = tree_cluster.tree_stats(game, 11, cluster, on_level=kill_after_level_6)
    assert [r[:9] for r in there] == [r[:9] for r in here]


def test_the_tree_command_on_the_cluster(cluster, tmp_path):
    out = tmp_path / "results.csv"
    result = CliRunner().invoke(app, ["tree", "gebeta", "--depth", "8", "--cluster", cluster,
                                      "--out", str(out)])
    assert result.exit_code == 0, result.output
    expected = tmp_path / "here.csv"
    tree.write_csv(tree.tree_stats(mancalab.variant("gebeta"), 8), expected)
    assert out.read_text() == expected.read_text()  # the reference results.csv, exactly


def test_a_scheduler_that_goes_away_ends_the_run_and_the_file_goes_on(tmp_path):
    """Kill the scheduler in the middle of a sweep: one line, exit 2; the same command
    without the cluster goes on from the games written and ends as a run without fault."""
    import contextlib
    import socket
    import subprocess
    import sys
    import time

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    dask = [sys.executable, "-m", "distributed.cli.dask_scheduler"]
    scheduler = subprocess.Popen(dask + ["--port", str(port), "--dashboard-address", ":0"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    worker = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker",
                               f"tcp://127.0.0.1:{port}", "--nthreads", "1"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out = tmp_path / "m"
    command = [sys.executable, "-m", "mancalab", "metrics", "gabata3", "--games", "8",
               "--player", "greedy", "--max-plies", "1500", "--out", str(out)]
    try:
        started = time.monotonic() + 30
        while time.monotonic() < started:  # the scheduler listens
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                break
            time.sleep(0.1)
        run = subprocess.Popen(command + ["--cluster", f"tcp://127.0.0.1:{port}"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        partial = out / "gabata3-greedy-seed1-opening2.jsonl.partial"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and (
                not partial.exists() or len(partial.read_text().splitlines()) < 3):
            time.sleep(0.2)
        scheduler.kill()
        _, errors = run.communicate(timeout=120)
        assert run.returncode == 2 and "lost the Dask cluster" in errors, errors
    finally:
        scheduler.kill()
        worker.kill()
    kept = len(partial.read_text().splitlines()) - 1
    assert 2 <= kept < 8
    again = CliRunner().invoke(app, command[3:])  # the same command, in this process
    assert again.exit_code == 0, again.output
    fresh = metrics.measure("gabata3", {}, "greedy", 8, 1, tmp_path / "fresh.jsonl",
                            max_plies=1500)
    done = out / "gabata3-greedy-seed1-opening2.jsonl"
    rows = [json.loads(line) for line in done.read_text().splitlines()[1:]]
    assert rows == fresh


@pytest.mark.parametrize("options", [{"pits": 4}, {"pits": 3, "empty_capture": False}])
def test_a_database_built_on_the_cluster_is_the_one_built_here(cluster, options, monkeypatch):
    monkeypatch.setattr(databases_cluster, "MIN_SLICE", 64)  # many slices a level
    variant = mancalab.variant("kalah", **options)
    here = databases.build(variant, 14)
    there = databases_cluster.build(variant, 14, cluster)
    assert np.array_equal(there.values, here.values)


def test_a_worker_killed_in_the_middle_of_a_database_build_changes_nothing(cluster,
                                                                           monkeypatch):
    monkeypatch.setattr(databases_cluster, "MIN_SLICE", 64)
    variant = mancalab.variant("kalah", pits=4)
    here = databases.build(variant, 15)
    with Client(cluster) as client:
        pids = list(client.run(os.getpid).values())

    def kill_after_level_8(level, done, total) -> None:
        if level == 8:
            os.kill(pids[0], signal.SIGKILL)

    there = databases_cluster.build(variant, 15, cluster, kill_after_level_8)
    assert np.array_equal(there.values, here.values)


def test_the_db_build_command_on_the_cluster(cluster, tmp_path):
    result = CliRunner().invoke(app, ["db", "build", "kalah", "-o", "pits=3", "--seeds", "10",
                                      "--dir", str(tmp_path), "--cluster", cluster])
    assert result.exit_code == 0, result.output
    built = databases.load(next(tmp_path.glob("*.db")))
    assert np.array_equal(built.values,
                          databases.build(mancalab.variant("kalah", pits=3), 10).values)
