"""The server's background preparation of exact play, and the analyses it keeps."""

import time

from fastapi.testclient import TestClient

import mancalab
from mancalab.analysis.solving import preparation
from mancalab.analysis.solving import databases
from mancalab.analysis import solving
from mancalab.analysis.solving.preparation import Step
from mancalab.web import create_app
from mancalab.web.preparing import Preparation
from mancalab.web.store import Store, analysis_key

SMALL = (("pits", 3), ("seeds", 2))


def wait_ready(client, seconds=120):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        status = client.get("/api/preparation").json()
        if all(step["state"] not in ("waiting", "running") for step in status["steps"]):
            return status
        time.sleep(0.2)
    raise AssertionError(f"the preparation did not end: {status}")


def test_a_server_builds_the_database_and_keeps_the_starts_analysis(small_databases, tmp_path):
    steps = [Step("kalah", "database", 6, 1, 1 << 20, 1 << 20, SMALL),
             Step("kalah", "start", None, 1, 1 << 20, 0, SMALL),
             Step("gebeta", "book", 16, 1, 1 << 50, 0)]  # over any budget: skipped, said why
    variant = mancalab.variant("kalah", pits=3, seeds=2)
    assert not databases.path_of(variant, 6).exists()
    db = tmp_path / "games.sqlite3"
    with TestClient(create_app(db, prepare=steps)) as client:
        status = wait_ready(client)
        assert [step["state"] for step in status["steps"]] == ["ready", "ready", "skipped"]
        assert "budget" in status["steps"][2]["reason"]
        assert status["games"]["kalah"] == {"ready": True, "seconds_left": 0, "missing": [],
                                        "late": False}
        assert not status["games"]["gebeta"]["ready"]
        assert databases.path_of(variant, 6).exists()
        game = client.post("/api/games", json={"game": "kalah", "mode": "local",
                                                "options": dict(SMALL)}).json()
        answer = client.post(f"/api/games/{game['id']}/analysis",
                             json={"token": game["token"]}).json()
    solved = solving.solve(variant.start(), moves=True,
                           solver=solving.Solver(variant, None))
    assert answer["exact"] and answer["value"] == solved.value
    assert {m["cell"]: m["value"] for m in answer["moves"]} == {
        cell: low for cell, (low, _) in solved.moves.items()}
    kept = Store(db).analysis(analysis_key(variant.start()))  # made by the preparing process
    assert kept is not None and kept["value"] == solved.value


def test_a_settled_analysis_is_kept_and_answered_again(small_databases, tmp_path):
    db = tmp_path / "games.sqlite3"
    with TestClient(create_app(db)) as client:
        game = client.post("/api/games", json={"game": "kalah", "mode": "local",
                                                "options": dict(SMALL)}).json()
        url = f"/api/games/{game['id']}/analysis"
        first = client.post(url, json={"token": game["token"]}).json()
        start = mancalab.variant("kalah", **dict(SMALL)).start()
        kept = Store(db).analysis(analysis_key(start))
        assert kept is not None and kept["value"] == first["value"]
        kept["value"] = 99  # what is kept is what is answered: no second search
        Store(db).keep_analysis(analysis_key(start), kept)
        assert client.post(url, json={"token": game["token"]}).json()["value"] == 99


def test_the_kept_analyses_are_bounded(tmp_path, monkeypatch):
    from mancalab.web import store

    monkeypatch.setattr(store, "ANALYSES_KEPT", 3)
    kept = Store(tmp_path / "games.sqlite3")
    for i in range(5):
        kept.keep_analysis(f"p{i}", {"value": i})
        time.sleep(0.01)
    assert kept.analysis("p0") is None and kept.analysis("p1") is None
    assert [kept.analysis(f"p{i}")["value"] for i in (2, 3, 4)] == [2, 3, 4]


def test_prepared_analyses_stay_and_a_client_keeps_a_bounded_share(tmp_path, monkeypatch):
    from mancalab.web import store

    monkeypatch.setattr(store, "ANALYSES_KEPT", 4)
    monkeypatch.setattr(store, "CLIENT_ANALYSES", 2)
    kept = Store(tmp_path / "games.sqlite3")
    kept.keep_analysis("start", {"value": 10}, pinned=True)
    kept.keep_analysis("start", {"value": 10}, client="203.0.113.9")  # stays pinned
    for i in range(6):
        kept.keep_analysis(f"a{i}", {"value": i}, client="203.0.113.9")
        time.sleep(0.01)
    assert [kept.analysis(f"a{i}") is not None for i in range(6)] == [False] * 4 + [True] * 2
    for i in range(8):
        kept.keep_analysis(f"b{i}", {"value": i}, client=f"198.51.100.{i}")
        time.sleep(0.01)
    assert kept.analysis("start") == {"value": 10}  # the flood did not flush it
    assert [kept.analysis(f"b{i}") is not None for i in range(8)] == [False] * 4 + [True] * 4


def test_an_older_games_file_gains_the_new_columns(tmp_path):
    import sqlite3

    path = tmp_path / "games.sqlite3"
    old = sqlite3.connect(path)
    old.execute("CREATE TABLE analyses (position TEXT PRIMARY KEY, answer TEXT NOT NULL, "
                "used REAL NOT NULL)")
    old.execute("INSERT INTO analyses VALUES ('p', '{\"value\": 1}', 0)")
    old.commit()
    old.close()
    kept = Store(path)
    assert kept.analysis("p") == {"value": 1}
    kept.keep_analysis("q", {"value": 2}, pinned=True)
    assert kept.analysis("q") == {"value": 2} and kept.size() > 0


def test_the_status_estimates_the_time_left_game_by_game():
    steps = [Step("kalah", "database", 18, 20, 0, 0), Step("gebeta", "book", 16, 300, 0, 0)]
    prep = Preparation(steps, lambda step, payload: None, done=lambda step: False)
    status = prep.status()
    assert status["games"]["kalah"]["seconds_left"] == 20
    assert status["games"]["gebeta"]["seconds_left"] == 320 == status["seconds_left"]
    now = time.monotonic()
    prep.state[0], prep.fraction[0] = "running", 0.5
    prep.began[0], prep.updated[0] = now - 30, now  # half done in 30 s: about 30 s to go
    status = prep.status()
    assert 29 <= status["games"]["kalah"]["seconds_left"] <= 31
    # half done 30 s after it began, and no progress for 20 s since: the time left counts down
    prep.began[0], prep.updated[0] = now - 50, now - 20
    assert 9 <= prep.status()["games"]["kalah"]["seconds_left"] <= 11
    prep.began[0], prep.updated[0] = now - 200, now - 100  # past the end its pace foretold
    late = prep.status()["games"]["kalah"]
    assert late["seconds_left"] == 0 and late["late"] and not late["ready"]
    prep.state[0] = "ready"
    assert prep.status()["games"]["kalah"] == {"ready": True, "seconds_left": 0, "missing": [],
                                               "late": False}
    assert prep.status()["seconds_left"] == 300


def test_only_settled_analyses_count():
    assert preparation.is_settled({"exact": True, "moves": [{"value": 2}, {"value": -1}]})
    assert not preparation.is_settled({"exact": True, "moves": [{"value": None}]})
    assert preparation.is_settled({"exact": True, "moves": [{"value": None, "endless": True}]})
    assert not preparation.is_settled({"exact": False, "moves": []})


def test_the_expert_plays_a_kept_analysis_exactly_without_solving(small_databases, tmp_path):
    db = tmp_path / "games.sqlite3"
    variant = mancalab.variant("kalah", pits=4, seeds=4)
    start = variant.start()
    planted = start.legal_moves()[-1]  # told best by the kept analysis: played from it
    Store(db).keep_analysis(analysis_key(start), {
        "value": 7, "exact": True, "best_cells": [planted], "best_moves": ["x"],
        "moves": [{"cell": m, "value": 7 if m == planted else 0}
                  for m in start.legal_moves()]})
    with TestClient(create_app(db)) as client:
        game = client.post("/api/games", json={"game": "kalah", "mode": "computer",
                                                "options": {"pits": 4, "seeds": 4},
                                                "bot": "perfect:time=0.05",
                                                "human_seat": 1}).json()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            view = client.get(f"/api/games/{game['id']}").json()
            if view["moves"]:
                break
            time.sleep(0.05)
        assert view["moves"][0]["move"] == planted
        hint = client.post(f"/api/games/{game['id']}/hint",
                           json={"token": game["token"], "player": "perfect:time=0.05"})
        assert hint.status_code == 200  # a position with nothing kept: solved as before


ORPHAN = '''
import multiprocessing, os, time

def orphan(parent):
    from mancalab.lifetime import end_with_parent
    end_with_parent(parent)
    time.sleep(120)

if __name__ == "__main__":
    child = multiprocessing.get_context("spawn").Process(target=orphan, args=(os.getpid(),))
    child.start()
    print(child.pid, flush=True)
    time.sleep(120)
'''


def _ended(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


def test_a_child_process_ends_with_a_killed_server(tmp_path):
    """The preparing process and the compiling processes (mancalab.lifetime)."""
    import signal
    import subprocess
    import sys

    script = tmp_path / "server.py"
    script.write_text(ORPHAN)
    server = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    child = int(server.stdout.readline())
    time.sleep(1.0)  # the child is up and watching
    assert not _ended(child)
    server.send_signal(signal.SIGKILL)
    server.wait()
    deadline = time.monotonic() + 5
    while not _ended(child):
        assert time.monotonic() < deadline, "the preparing process outlived its server"
        time.sleep(0.1)


def test_a_second_builder_waits_for_the_first(tmp_path, monkeypatch):
    import fcntl
    import queue as queues
    import threading

    from mancalab.web import preparing

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    from mancalab.analysis.solving.files import default_dir

    default_dir().mkdir(parents=True)
    told, inside = queues.Queue(), threading.Event()

    def second():
        with preparing._only_builder(told):
            inside.set()

    with open(default_dir() / "prepare.lock", "a") as first:
        fcntl.flock(first, fcntl.LOCK_EX)
        thread = threading.Thread(target=second)
        thread.start()
        assert told.get(timeout=5)[3] == "another server on this machine is preparing"
        assert not inside.wait(0.5)
        fcntl.flock(first, fcntl.LOCK_UN)
    assert inside.wait(5)
    thread.join()
