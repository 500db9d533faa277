"""Classes through the API: a teacher, thirty pupils joining from one address on a server
with default limits, assignments and progress, pupils kept to their class, a round robin run
to its end, and every bad request refused."""

from __future__ import annotations

import csv
import io

import pytest
from fastapi.testclient import TestClient

from mancalab.web import create_app
from mancalab.web.classes import CODE_ALPHABET, PICTURES, PUPIL_TRIES
from mancalab.web.routes.classes import WRONG_CODES

PASSWORD = "a good password"


@pytest.fixture
def app(db):
    return create_app(db)


def teacher(client, name="Teacher", **klass) -> dict:
    assert client.post("/api/accounts", json={"name": name, "password": PASSWORD}) \
        .status_code == 201
    made = client.post("/api/classes", json={"name": "Grade 5", "games": ["kalah", "gebeta"],
                                             **klass})
    assert made.status_code == 201, made.text
    return made.json()


def pupil(app, code: str, name: str) -> tuple[TestClient, dict]:
    """A pupil's own browser (the app already started by the teacher's client)."""
    client = TestClient(app)
    joined = client.post("/api/classes/join", json={"code": code, "name": name})
    assert joined.status_code == 201, joined.text
    return client, joined.json()


@pytest.mark.both_stores
def test_thirty_pupils_join_from_one_address_and_their_progress_is_counted(app):
    with TestClient(app) as t:
        klass = teacher(t)
        code = klass["code"]
        assert len(code) == 9 and code[4] == "-" and set(code) - {"-"} <= set(CODE_ALPHABET)
        pupils = [pupil(app, code.lower().replace("-", " "), f"Child {i}") for i in range(30)]
        names = sorted(p["real_name"] for _, p in pupils)
        seen = t.get(f"/api/classes/{klass['id']}").json()
        assert sorted(p["real_name"] for p in seen["pupils"]) == names
        assert seen["address_pupils"] >= 30  # one school address, counted as its pupils
        assert seen["limits"]["connections"] > 30 * 2
        task = t.post(f"/api/classes/{klass['id']}/assignments",
                      json={"kind": "puzzles", "game": "kalah", "count": 3}).json()
        client, me = pupils[0]
        todo = client.get("/api/session/class").json()
        assert todo["real_name"] == "Child 0" and todo["todo"][0]["done"] == 0
        assert "code" not in todo["class"]
        for _ in range(3):  # three puzzles solved: the best move of each
            puzzle = client.get("/api/puzzles/kalah", params={"draw": _}).json()
            answer = client.post(f"/api/puzzles/answer/{puzzle['id']}",
                                 json={"move": puzzle["legal"][0]}).json()
            assert client.post(f"/api/puzzles/try/{puzzle['id']}",
                               json={"move": answer["best"]}).json()["correct"]
        exercise = client.get("/api/exercises/kalah/landing/1").json()
        client.post("/api/exercises/kalah/landing/1", json={"move": exercise["legal"][0]})
        assert client.post("/api/lessons/kalah/0", json={"move": 0}).status_code in (200, 400)
        todo = client.get("/api/session/class").json()["todo"]
        assert todo[0]["done"] == 3 and todo[0]["wanted"] == 3
        progress = t.get(f"/api/classes/{klass['id']}/progress").json()
        row = next(r for r in progress["pupils"] if r["real_name"] == "Child 0")
        assert row["puzzles_solved"] == 3 and row["puzzle_rating"] > 1500
        assert row["assignments"][task["id"]] == {"done": 3, "wanted": 3}
        assert sum(k["right"] + k["wrong"] for k in row["exercises"].values()) == 1
        table = list(csv.reader(io.StringIO(
            t.get(f"/api/classes/{klass['id']}/progress?format=csv").text)))
        assert len(table) == 31 and table[0][0] == "name"
        assert any(r[0] == "Child 0" and r[-1] == "3/3" for r in table)


def test_pupils_log_in_by_pictures_and_a_guessing_address_is_stopped(app):
    with TestClient(app) as t:
        klass = teacher(t)
        _, made = pupil(app, klass["code"], "Abebe")
        again = TestClient(app)
        log_in = {"code": klass["code"], "name": "Abebe"}
        assert again.post("/api/classes/login", json={**log_in, "pictures": made["pictures"]}) \
            .json() == {"pupil": made["pupil"]}
        assert again.get("/api/session/class").json()["pupil"] == made["pupil"]
        wrong = [p for p in PICTURES if p not in made["pictures"]][:2]  # never the pair
        for _ in range(PUPIL_TRIES):
            assert again.post("/api/classes/login", json={**log_in, "pictures": wrong}) \
                .json()["code"] == "wrong_pictures"
        locked = again.post("/api/classes/login", json={**log_in, "pictures": made["pictures"]})
        assert locked.status_code == 401 and locked.json()["code"] == "pupil_locked"
        pictures = t.post(f"/api/classes/{klass['id']}/pupils/{made['pupil']}/reset").json()
        assert again.post("/api/classes/login", json={**log_in, "pictures": pictures["pictures"]}) \
            .status_code == 200
        guesser = TestClient(app)
        codes = [guesser.post("/api/classes/join", json={"code": "AAAA-AAAA", "name": "X"})
                 .json()["code"] for _ in range(WRONG_CODES[0] + 1)]
        assert codes[0] == "wrong_class_code" and codes[-1] == "too_many_tries"


def test_teachers_and_pupils_see_only_their_own_class(app):
    with TestClient(app) as t, TestClient(app) as other:
        klass = teacher(t, size=2)
        elsewhere = teacher(other, "Other")
        kid, made = pupil(app, klass["code"], "Abebe")
        pupil(app, klass["code"], "Tigist")
        full = TestClient(app).post("/api/classes/join", json={"code": klass["code"],
                                                               "name": "Third"})
        assert full.status_code == 429 and full.json()["code"] == "class_full"
        refused = {
            "another teacher's class": other.get(f"/api/classes/{klass['id']}"),
            "its progress": other.get(f"/api/classes/{klass['id']}/progress"),
            "its pupils": other.post(f"/api/classes/{klass['id']}/pupils/{made['pupil']}/reset"),
            "a pupil teaching": kid.post("/api/classes", json={"name": "x", "games": ["kalah"]}),
            "a pupil's look": kid.get(f"/api/classes/{elsewhere['id']}"),
            "no game": t.post("/api/classes", json={"name": "x", "games": []}),
            "bad game": t.post("/api/classes", json={"name": "x", "games": ["chess"]}),
            "bad size": t.post("/api/classes", json={"name": "x", "games": ["kalah"],
                                                      "size": 1000}),
            "not the class's game": t.post(f"/api/classes/{klass['id']}/assignments",
                                           json={"kind": "lesson", "game": "oware"}),
            "bad kind": t.post(f"/api/classes/{klass['id']}/assignments",
                               json={"kind": "homework", "game": "kalah"}),
            "a stranger's pupil": t.post(f"/api/classes/{klass['id']}/pupils/Nobody/reset"),
            "no log-in": TestClient(app).post("/api/classes", json={"name": "x",
                                                                    "games": ["kalah"]}),
        }
        assert {k: r.status_code for k, r in refused.items()} == {
            "another teacher's class": 404, "its progress": 404, "its pupils": 404,
            "a pupil teaching": 403, "a pupil's look": 403, "no game": 422, "bad game": 422,
            "bad size": 422, "not the class's game": 403, "bad kind": 422,
            "a stranger's pupil": 404, "no log-in": 401}


def test_pupils_meet_their_classmates_only_and_have_no_public_profile(app):
    with TestClient(app) as t, TestClient(app) as stranger:
        klass = teacher(t)
        stranger.post("/api/accounts", json={"name": "Stranger", "password": PASSWORD})
        kid, made = pupil(app, klass["code"], "Abebe")
        mate, other = pupil(app, klass["code"], "Tigist")
        assert kid.post("/api/seeks", json={"game": "kalah"}).json()["code"] == "class_account"
        assert stranger.get(f"/api/players/{made['pupil']}").status_code == 404
        assert stranger.post("/api/seeks", json={"game": "kalah", "to": made["pupil"]}) \
            .json()["code"] == "no_player"
        open_seek = stranger.post("/api/seeks", json={"game": "kalah"}).json()
        assert kid.post(f"/api/seeks/{open_seek['id']}/accept").json()["code"] == \
            "class_account"
        challenge = kid.post("/api/seeks", json={"game": "kalah", "to": other["pupil"]})
        assert challenge.status_code == 201
        started = mate.post(f"/api/seeks/{challenge.json()['id']}/accept")
        assert started.status_code == 201
        arena = t.post("/api/arenas", json={"game": "kalah", "clock": {"base": 60}}).json()
        assert kid.post(f"/api/arenas/{arena['id']}/join").json()["code"] == "class_account"


def test_removing_a_pupil_or_the_class_deletes_their_personal_data(app):
    with TestClient(app) as t:
        klass = teacher(t)
        kid, made = pupil(app, klass["code"], "Abebe")
        mate, other = pupil(app, klass["code"], "Tigist")
        challenge = kid.post("/api/seeks", json={"game": "kalah", "to": other["pupil"]}).json()
        game_id = mate.post(f"/api/seeks/{challenge['id']}/accept").json()["id"]
        assert t.delete(f"/api/classes/{klass['id']}/pupils/{made['pupil']}").status_code == 200
        assert t.get(f"/api/games/{game_id}").json()["result"]["termination"] == "resign"
        assert kid.get("/api/session/class").json() == {"class": None}
        store = app.state.hub.store
        assert store.execute("SELECT COUNT(*) FROM accounts WHERE name = ?",
                             (made["pupil"],)).fetchone()[0] == 0
        assert t.delete(f"/api/classes/{klass['id']}").status_code == 200
        assert store.execute("SELECT COUNT(*) FROM accounts").fetchone()[0] == 1  # the teacher
        assert store.execute("SELECT COUNT(*) FROM activity").fetchone()[0] == 0
        assert t.get(f"/api/games/{game_id}").status_code == 200  # the game stays


def test_a_round_robin_is_run_to_its_end_by_the_teacher(app, monkeypatch):
    monkeypatch.setattr("mancalab.web.routes.classes.EXACT_SECONDS", 0.02)  # starts: unproven
    with TestClient(app) as t:
        klass = teacher(t)
        pupils = [pupil(app, klass["code"], f"Child {i}") for i in range(6)]
        names = [made["pupil"] for _, made in pupils]
        made = t.post(f"/api/classes/{klass['id']}/tournaments",
                      json={"game": "kalah", "clock": {"base": 300, "increment": 5},
                            "pupils": names})
        assert made.status_code == 201
        tour = made.json()
        assert len(tour["rounds"]) == 5 and all(len(r) == 3 for r in tour["rounds"])
        assert tour["link"] == f"/?tournament={tour['id']}"
        absent = names[0]
        for number in range(5):
            view = t.post(f"/api/tournaments/{tour['id']}/rounds",
                          json={"absent": [absent] if number == 0 else []}).json()
            pairs = view["rounds"][number]
            assert all(p["skipped"] == (absent in (p["first"], p["second"]) and number == 0)
                       for p in pairs)
            first = next(p for p in pairs if p["game_id"])
            seat = names.index(first["first"])
            client = pupils[seat][0]
            games = client.get("/api/session/class").json()["games"]
            assert [g["id"] for g in games] == [first["game_id"]]
            busy = t.post(f"/api/tournaments/{tour['id']}/rounds", json={})
            assert busy.json()["code"] == ("round_going" if number < 4 else "tournament_over")
            for pair in pairs:
                if pair["game_id"]:
                    ended = t.post(f"/api/tournaments/{tour['id']}/games/{pair['game_id']}"
                                   "/end").json()
                    assert ended["ended"] == pair["game_id"]
        final = t.get(f"/api/tournaments/{tour['id']}").json()
        assert final["finished"]
        assert sum(row["games"] for row in final["standings"]) == 2 * (15 - 1)
        assert t.post(f"/api/tournaments/{tour['id']}/rounds", json={}).json()["code"] == \
            "tournament_over"
        refused = {
            "a stranger": t.post(f"/api/classes/{klass['id']}/tournaments", json={
                "game": "kalah", "clock": {"base": 60}, "pupils": ["Nobody", names[0]]}),
            "one pupil": t.post(f"/api/classes/{klass['id']}/tournaments", json={
                "game": "kalah", "clock": {"base": 60}, "pupils": [names[0], names[0]]}),
            "knockout": t.post(f"/api/classes/{klass['id']}/tournaments", json={
                "kind": "knockout", "game": "kalah", "clock": {"base": 60}, "pupils": names}),
            "no such": t.get("/api/tournaments/nope"),
        }
        assert {k: r.status_code for k, r in refused.items()} == {
            "a stranger": 404, "one pupil": 403, "knockout": 422, "no such": 404}


def test_a_swiss_system_pairs_by_points_and_never_twice(app, monkeypatch):
    monkeypatch.setattr("mancalab.web.routes.classes.EXACT_SECONDS", 0.02)
    with TestClient(app) as t:
        klass = teacher(t)
        names = [pupil(app, klass["code"], f"Child {i}")[1]["pupil"] for i in range(7)]
        tour = t.post(f"/api/classes/{klass['id']}/tournaments", json={
            "kind": "swiss", "game": "gebeta", "clock": {"base": 300}, "pupils": names,
            "rounds": 3}).json()
        assert tour["planned"] == 3 and tour["rounds"] == []
        met = set()
        for number in range(3):
            view = t.post(f"/api/tournaments/{tour['id']}/rounds", json={}).json()
            pairs = view["rounds"][number]
            assert sum(None in (p["first"], p["second"]) for p in pairs) == 1  # a bye of 7
            for pair in pairs:
                if pair["game_id"]:
                    key = frozenset((pair["first"], pair["second"]))
                    assert key not in met
                    met.add(key)
                    t.post(f"/api/tournaments/{tour['id']}/games/{pair['game_id']}/end")
        final = t.get(f"/api/tournaments/{tour['id']}").json()
        assert final["finished"] and len(met) == 9


def test_a_class_arena_takes_its_pupils_only_and_is_not_listed(app):
    with TestClient(app) as t, TestClient(app) as stranger:
        klass = teacher(t)
        stranger.post("/api/accounts", json={"name": "Stranger", "password": PASSWORD})
        kid, made = pupil(app, klass["code"], "Abebe")
        other_class = teacher(TestClient(app), "Other")
        outsider, _ = pupil(app, other_class["code"], "Kofi")
        arena = t.post(f"/api/classes/{klass['id']}/tournaments", json={
            "kind": "arena", "game": "kalah", "clock": {"base": 120}, "pupils": [
                made["pupil"], made["pupil"]], "seconds": 600})
        assert arena.status_code == 403  # two pupils at least, as any tournament
        mate = pupil(app, klass["code"], "Tigist")[1]["pupil"]
        arena = t.post(f"/api/classes/{klass['id']}/tournaments", json={
            "kind": "arena", "game": "kalah", "clock": {"base": 120},
            "pupils": [made["pupil"], mate], "seconds": 600}).json()
        assert arena["link"] == f"/?arena={arena['id']}"
        assert arena["id"] not in [a["id"] for a in t.get("/api/arenas").json()["arenas"]]
        assert kid.post(f"/api/arenas/{arena['id']}/join").status_code == 200
        for refused in (stranger, outsider):
            assert refused.post(f"/api/arenas/{arena['id']}/join").json()["code"] == \
                "class_arena"
        assert [a["id"] for a in t.get(f"/api/classes/{klass['id']}").json()["arenas"]] == \
            [arena["id"]]


def test_a_puzzle_assignment_of_a_theme_counts_that_theme_only(app):
    with TestClient(app) as t:
        klass = teacher(t)
        kid, _ = pupil(app, klass["code"], "Abebe")
        themes = kid.get("/api/puzzles/kalah/themes").json()["themes"]
        wanted, other = sorted(themes, key=themes.get, reverse=True)[:2]
        task = t.post(f"/api/classes/{klass['id']}/assignments",
                      json={"kind": "puzzles", "game": "kalah", "count": 1,
                            "theme": wanted}).json()

        def solve(theme: str) -> None:
            for draw in range(20):  # one of that theme and not of the other
                puzzle = kid.get("/api/puzzles/kalah", params={"theme": theme,
                                                               "draw": draw}).json()
                answer = kid.post(f"/api/puzzles/answer/{puzzle['id']}",
                                  json={"move": puzzle["legal"][0]}).json()
                if (wanted in answer["themes"]) == (theme == wanted):
                    kid.post(f"/api/puzzles/try/{puzzle['id']}", json={"move": answer["best"]})
                    return
            pytest.skip("no puzzle of one theme alone")

        solve(other)
        assert kid.get("/api/session/class").json()["todo"][0]["done"] == 0
        solve(wanted)
        done = t.get(f"/api/classes/{klass['id']}/progress").json()["pupils"][0]
        assert done["assignments"][task["id"]] == {"done": 1, "wanted": 1}


def test_a_class_behind_one_address_challenges_within_itself_freely(app):
    """Seeks are bounded per client (3 open): a class's pupils are each a client, not their
    school's one address."""
    with TestClient(app) as t:
        klass = teacher(t)
        pupils = [pupil(app, klass["code"], f"Child {i}") for i in range(8)]
        for (kid, _), (_, other) in zip(pupils[::2], pupils[1::2]):
            for _ in range(2):
                made = kid.post("/api/seeks", json={"game": "kalah", "to": other["pupil"]})
                assert made.status_code == 201, made.text
