"""A game's review through the API: each position's value and each move's mark."""

import time

import numpy as np
import pytest
from fastapi.testclient import TestClient

import mancalab
from mancalab.analysis.teach import review
from mancalab.analysis import solving
from mancalab.web import create_app


@pytest.fixture
def client(tmp_path, small_databases):
    with TestClient(create_app(tmp_path / "games.sqlite3")) as test_client:
        yield test_client


def finished_game(client, game, options, seed, mode="local", moves=None):
    """A game of random moves to its end (or ended by agreement after ``moves``)."""
    created = client.post("/api/games", json={"game": game, "options": options,
                                               "mode": mode}).json()
    rng = np.random.default_rng(seed)
    view = created["state"]
    while not view["result"]:
        if moves is not None and view["ply"] >= moves:
            view = client.post(f"/api/games/{created['id']}/end",
                               json={"token": created["token"]}).json()["state"]
            break
        view = client.post(f"/api/games/{created['id']}/moves",
                           json={"token": created["token"], "move": int(rng.choice(view["legal"])),
                                 "ply": view["ply"]}).json()
    return created, view


def reviewed(client, created, seconds=120):
    answer = client.post(f"/api/games/{created['id']}/review",
                         json={"token": created["token"]})
    assert answer.status_code == 200, answer.text
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        answer = client.get(f"/api/games/{created['id']}/review").json()
        if answer["appraised"] == answer["positions"] and not answer["running"]:
            return answer
        time.sleep(0.1)
    raise AssertionError(f"the review did not end: {answer}")


@pytest.mark.parametrize("seed", [1, 2])
def test_the_reviews_values_and_marks_are_the_solvers(client, seed):
    options = {"pits": 3, "seeds": 2}
    created, view = finished_game(client, "kalah", options, seed)
    answer = reviewed(client, created)
    variant = mancalab.variant("kalah", **options)
    state = variant.start()
    assert len(answer["moves"]) == len(view["moves"]) == answer["positions"] - 1
    for row, played in zip(answer["moves"], view["moves"]):
        solved = solving.solve(state, moves=True, solver=solving.Solver(variant, None))
        value = solved.moves[played["move"]][0]
        assert row["exact"] and row["value"] == value and row["best_value"] == solved.value
        assert set(row["best_cells"]) == set(solved.best_moves)
        lost = solved.value - value
        assert row["lost"] == lost
        expected = review.judge(solved.value, value, True, variant.teaching.review_bands)[0]
        assert row["mark"] == expected and (row["mark"] == "best") == (lost == 0)
        mover_value = answer["values"][row["ply"]]["value"]
        assert mover_value == (solved.value if state.to_move == 0 else -solved.value)
        state = state.play(played["move"])
    final = answer["values"][-1]
    assert final["exact"] and final["value"] == view["score"][0] - view["score"][1]


def test_a_game_without_a_solver_is_reviewed_with_estimates(client, monkeypatch):
    from mancalab.web import reviews as app

    monkeypatch.setattr(app, "REVIEW_SECONDS", 0.02)  # quick estimates
    created, view = finished_game(client, "gabata3", {}, 3, moves=80)
    assert view["result"] and len(view["moves"]) == 80
    answer = reviewed(client, created, seconds=600)
    assert answer["moves"] and all(not row["exact"] for row in answer["moves"][:-1])
    assert all(row["mark"] in review.MARKS for row in answer["moves"])
    assert answer["values"][-1]["exact"]  # the end: its final margin


def test_a_running_games_review_is_for_its_players_with_helpers(client):
    created = client.post("/api/games", json={"game": "kalah", "mode": "online",
                                               "options": {"pits": 3, "seeds": 2}}).json()
    url = f"/api/games/{created['id']}/review"
    assert client.post(url, json={}).status_code == 403  # a spectator
    refused = client.post(url, json={"token": created["token"]})
    assert refused.status_code in (403, 409) and "hint" in refused.text.lower()
    assert client.get(url).status_code == 403


def test_judging_a_move():
    bands = (1, 3, 6)
    assert review.judge(4, 4, True, bands) == ("best", 0)
    assert review.judge(4, 3, True, bands) == ("good", 1)
    assert review.judge(4, 2, True, bands) == ("inaccuracy", 2)
    assert review.judge(4, -1, True, bands) == ("blunder", 5)  # a win into a loss
    assert review.judge(4, -1, False, bands) == ("mistake", 5)  # an estimate: by the bands
    assert review.judge(20, 10, True, bands) == ("blunder", 10)
    assert review.judge(None, 3, True, bands) == (None, None)


def test_the_games_reviewed_at_once_are_bounded(tmp_path, monkeypatch, small_databases):
    from mancalab.web import reviews as app
    from mancalab.web.thinking import Limits

    monkeypatch.setattr(app, "REVIEW_SECONDS", 0.5)  # the first review lasts a while
    with TestClient(create_app(tmp_path / "games.sqlite3", Limits(reviews=1))) as client:
        first, _ = finished_game(client, "gabata3", {}, 4, moves=40)
        second, _ = finished_game(client, "gabata3", {}, 5, moves=40)
        assert client.post(f"/api/games/{first['id']}/review", json={}).status_code == 200
        busy = client.post(f"/api/games/{second['id']}/review", json={})
        assert busy.status_code == 429 and "at once" in busy.json()["detail"]
        again = client.post(f"/api/games/{first['id']}/review", json={})
        assert again.status_code == 200 and again.json()["running"]  # the same review


def test_a_client_runs_few_reviews_each_of_bounded_length(tmp_path, monkeypatch,
                                                          small_databases):
    from mancalab.web import reviews as app
    from mancalab.web.thinking import Limits

    monkeypatch.setattr(app, "REVIEW_SECONDS", 0.5)
    limits = Limits(client_reviews=1, review_positions=3)
    with TestClient(create_app(tmp_path / "games.sqlite3", limits)) as client:
        first, _ = finished_game(client, "gabata3", {}, 4, moves=40)
        second, _ = finished_game(client, "gabata3", {}, 5, moves=40)
        assert client.post(f"/api/games/{first['id']}/review", json={}).status_code == 200
        busy = client.post(f"/api/games/{second['id']}/review", json={})
        assert busy.status_code == 429 and "already reviewing 1" in busy.json()["detail"]
        deadline = time.monotonic() + 60
        while (answer := client.get(f"/api/games/{first['id']}/review").json())["running"]:
            assert time.monotonic() < deadline
            time.sleep(0.1)
        assert answer["appraised"] == 3 < answer["positions"] and answer["limit"] == 3
        assert client.post(f"/api/games/{second['id']}/review", json={}).status_code == 200


def test_a_review_nobody_asks_about_stops(tmp_path, monkeypatch, small_databases):
    from mancalab.web import reviews as app

    monkeypatch.setattr(app, "REVIEW_SECONDS", 0.5)
    monkeypatch.setattr(app, "REVIEW_UNWATCHED", 0.5)
    with TestClient(create_app(tmp_path / "games.sqlite3")) as client:
        created, _ = finished_game(client, "gabata3", {}, 4, moves=60)
        assert client.post(f"/api/games/{created['id']}/review", json={}).json()["running"]
        hub = client.app.state.hub
        deadline = time.monotonic() + 30
        while hub.reviews.running:
            assert time.monotonic() < deadline, "the unwatched review went on"
            time.sleep(0.1)
        answer = client.get(f"/api/games/{created['id']}/review").json()
        assert not answer["running"] and answer["appraised"] < answer["positions"]


def test_a_review_that_fails_says_why(tmp_path, small_databases):
    with TestClient(create_app(tmp_path / "games.sqlite3")) as client:
        created, _ = finished_game(client, "kalah", {}, 4, moves=10)

        async def broken(*args, **kwargs):
            raise OverflowError("(34, 'Numerical result out of range')")

        client.app.state.hub.thinker.run = broken
        client.post(f"/api/games/{created['id']}/review", json={})
        deadline = time.monotonic() + 30
        while (answer := client.get(f"/api/games/{created['id']}/review").json())["running"]:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert "Numerical result out of range" in answer["error"]
