"""The JSON API with FastAPI's test client: every mode, every bad request, and the store."""

import time

import pytest
from fastapi.testclient import TestClient

import mancalab
from mancalab.analysis.teach.puzzles import GAMES as PUZZLE_GAMES
from mancalab.records import GameRecord
from mancalab.web import create_app


@pytest.fixture
def client(db):
    """The app as a program plays it: faster than the moves a person's address may send."""
    from mancalab.web.thinking import Limits

    with TestClient(create_app(db, Limits(move_rate="10000/second"))) as test_client:
        yield test_client


def create(client, **body):
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def move(client, game, token, cell, ply=None):
    return client.post(f"/api/games/{game['id']}/moves",
                       json={"token": token, "move": cell, "ply": ply})


def state(client, game, token=None):
    return client.get(f"/api/games/{game['id']}", params={"token": token} if token else {}).json()


def wait_for(client, game, token, predicate, seconds=30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        view = state(client, game, token)
        if predicate(view):
            return view
        time.sleep(0.05)
    raise AssertionError(f"timed out; last state {view}")


@pytest.mark.parametrize("name", mancalab.variants())
def test_every_game_plays_to_the_end_on_one_screen(client, name):
    game = create(client, game=name, mode="local")
    token, view = game["token"], game["state"]
    assert view["grid"] and view["cells"] and view["legal"] and view["seat"] == 0
    assert view.get("sowing") is None
    for _ in range(400):
        if view["result"]:
            break
        before, mover, chosen = view["cells"], view["to_move"], view["legal"][-1]
        previews = client.get(f"/api/games/{game['id']}/previews", params={"token": token})
        assert previews.json()["ply"] == view["ply"]
        told = {entry["cell"]: entry for entry in previews.json()["moves"]}
        assert sorted(told) == sorted(view["legal"])
        response = move(client, game, token, chosen, view["ply"])
        assert response.status_code == 200, response.text
        score, view = view["score"], response.json()
        if view["result"] and view["result"]["termination"] == "repetition":
            break  # the record's rule, not the move: its seeds shared out after the sowing
        cells = list(before)  # the page replays the move step by step to the new position
        for kind, cell, count, hand in view["sowing"]:
            cells[cell] = count
        assert cells == view["cells"]
        # what the preview said of the move is what it did
        drops = [cell for kind, cell, *_ in view["sowing"] if kind == "drop"]
        assert told[chosen]["lands"] == drops[-1]
        assert told[chosen]["gain"] == view["score"][mover] - score[mover]
        assert told[chosen]["again"] == (not view["result"] and view["to_move"] == mover)
    assert len(view["moves"]) == view["ply"]
    record = client.get(f"/api/games/{game['id']}/record").text
    assert GameRecord.from_text(record).moves == [m["move"] for m in view["moves"]]


def test_errors_a_player_meets_carry_a_code_the_page_says_in_its_language(client):
    game = create(client, game="kalah", mode="online")
    mine, theirs = game["token"], game["links"]["invite"].split("token=")[1]
    out_of_turn = move(client, game, theirs, 9).json()
    assert out_of_turn["code"] == "not_your_turn" and out_of_turn["values"] == {
        "name": state(client, game)["names"][0]} and "turn" in out_of_turn["detail"]
    assert move(client, game, mine, 2, ply=5).json()["code"] == "stale"
    assert move(client, game, None, 2).json()["code"] == "no_seat"
    illegal = move(client, game, mine, 7).json()
    assert illegal["code"] == "illegal_move" and "legal" in illegal["detail"]
    assert client.get("/api/games/nothing-here").json()["code"] == "no_game"
    answer = client.post("/api/games", json={"game": "kalah", "options": {"pits": 99}})
    assert answer.status_code == 400 and "code" not in answer.json()  # said in English only
    for language in ("en", "fr", "rn", "am"):  # every code has its words in every language
        words = client.get(f"/static/i18n/{language}.json").json()
        assert all(f"error_{code}" in words for code in (
            "not_your_turn", "stale", "no_seat", "illegal_move", "no_game", "game_over",
            "time_out", "no_takebacks", "wait_computer", "computer_plays_on", "not_started",
            "helpers_off", "computer_thinking", "server_busy", "too_many")), language


def test_every_code_the_server_sends_has_its_words_in_every_language(client):
    """Issue 83: the lobby, accounts and arenas sent their English text in every language.
    Every ``code=`` the server's sources raise is said by the page in all four languages."""
    import re
    from pathlib import Path

    import mancalab.web

    sources = Path(mancalab.web.__file__).parent
    codes = {code for path in sources.rglob("*.py")
             for code in re.findall(r'code="(\w+)"', path.read_text())}
    assert {"too_many_seeks", "rated_needs_account", "wrong_password", "name_unclear",
            "weak_password", "arena_over", "no_abort"} <= codes
    for language in ("en", "fr", "rn", "am"):
        words = client.get(f"/static/i18n/{language}.json").json()
        assert sorted(code for code in codes if f"error_{code}" not in words) == [], language
    guest = client.post("/api/seeks", json={"game": "kalah", "rated": True}).json()
    assert guest["code"] == "rated_needs_account"
    weak = client.post("/api/accounts", json={"name": "Kofi", "password": "password"}).json()
    assert weak["code"] == "weak_password"


def test_bad_moves_are_refused_and_change_nothing(client):
    game = create(client, game="kalah", mode="online")
    mine, theirs = game["token"], game["links"]["invite"].split("token=")[1]
    before = state(client, game, mine)
    illegal = [c for c in range(14) if c not in before["legal"]][0]
    response = move(client, game, mine, illegal)
    assert response.status_code == 400 and "not a legal move" in response.json()["detail"]
    response = move(client, game, theirs, 2)
    assert response.status_code == 409 and "turn" in response.json()["detail"]
    response = move(client, game, "not-a-token", 2)
    assert response.status_code == 403
    response = move(client, game, None, 2)
    assert response.status_code == 403
    response = move(client, game, mine, "9")
    assert response.status_code == 400 and "pit" in response.json()["detail"]
    response = move(client, game, mine, 2, ply=5)
    assert response.status_code == 409 and "fetch it again" in response.json()["detail"]
    response = client.post(f"/api/games/{game['id']}/moves", json={"token": mine})
    assert response.status_code == 422
    assert state(client, game, mine) == before


def test_bad_new_games_are_refused(client):
    for body, words in [({"game": "kalah", "options": {"pits": 99}}, "pits"),
                        ({"game": "kalah", "options": {"colour": "red"}}, "colour"),
                        ({"game": "kalah", "mode": "computer", "bot": "nobody"}, "nobody"),
                        ({"game": "kalah", "setup": True}, "Urubugu")]:
        response = client.post("/api/games", json=body)
        assert response.status_code == 400, body
        assert words in response.json()["detail"], (body, response.json())
    for body, field in [({"game": "kalah", "human_seat": 2}, "human_seat"),
                        ({"game": "chess"}, "game"), ({"game": "kalah", "mode": "solo"}, "mode")]:
        response = client.post("/api/games", json=body)  # refused by the schema itself
        assert response.status_code == 422 and field in response.text
    assert client.get("/api/games/nothing").status_code == 404


def test_form_options_arrive_as_text(client):
    game = create(client, game="kalah", options={"pits": "4", "seeds": "3",
                                                 "empty_capture": "false"})
    assert game["state"]["cells"] == [3, 3, 3, 3, 0, 3, 3, 3, 3, 0]
    assert game["state"]["options"]["empty_capture"] is False


def test_online_seats_belong_to_their_tokens_and_spectators_only_watch(client):
    game = create(client, game="gebeta", mode="online", names=["Almaz", "Dawit"])
    first, second = game["token"], game["links"]["invite"].split("token=")[1]
    assert state(client, game, first)["seat"] == 0
    assert state(client, game, second)["seat"] == 1
    assert state(client, game)["seat"] is None
    view = move(client, game, first, 0, 0).json()
    assert view["to_move"] == 1
    assert move(client, game, first, view["legal"][0], 1).status_code == 409
    assert move(client, game, second, view["legal"][0], 1).status_code == 200


def test_online_undo_needs_both_players(client):
    game = create(client, game="kalah", mode="online")
    first, second = game["token"], game["links"]["invite"].split("token=")[1]
    move(client, game, first, 0, 0)  # pit 6 of 4 seeds: no extra turn
    undo = client.post(f"/api/games/{game['id']}/undo", json={"token": first}).json()
    assert undo["undo"] == "asked" and undo["state"]["ply"] == 1
    assert state(client, game)["undo_request"] == 0
    undo = client.post(f"/api/games/{game['id']}/undo", json={"token": second}).json()
    assert undo["undo"] == "undone" and undo["state"]["ply"] == 0
    assert client.post(f"/api/games/{game['id']}/undo", json={}).status_code == 403


def test_against_the_computer_it_answers_and_undo_takes_back_both(client):
    game = create(client, game="kalah", mode="computer", bot="greedy", human_seat=0)
    token = game["token"]
    assert game["state"]["names"][1] == "Computer"
    move(client, game, token, 0, 0)
    view = wait_for(client, game, token, lambda v: v["to_move"] == 0 and not v["thinking"])
    assert [m["seat"] for m in view["moves"]][:1] == [0] and view["ply"] >= 2
    undo = client.post(f"/api/games/{game['id']}/undo", json={"token": token}).json()
    assert undo["state"]["ply"] == 0


def test_the_computer_moves_first_when_the_person_takes_b(client):
    game = create(client, game="gebeta", mode="computer", bot="greedy", human_seat=1)
    view = wait_for(client, game, game["token"], lambda v: v["ply"] >= 1 and not v["thinking"])
    assert view["moves"][0]["seat"] == 0 and view["seat"] == 1


def test_show_me_the_computers_move_and_let_me_play_it(client):
    game = create(client, game="kalah", mode="computer", bot="greedy", automove=False)
    token = game["token"]
    move(client, game, token, 0, 0)
    view = wait_for(client, game, token, lambda v: v.get("suggestion") is not None)
    other = [c for c in view["legal"] if c != view["suggestion"]][0]
    assert move(client, game, token, other, 1).status_code == 409
    view = move(client, game, token, view["suggestion"], 1).json()
    assert view["ply"] == 2 and view["suggestion"] is None


def test_switch_sides_and_level_mid_game(client):
    game = create(client, game="kalah", mode="computer", bot="greedy")
    token = game["token"]
    url = f"/api/games/{game['id']}"
    view = client.post(f"{url}/computer", json={"token": token, "bot": "random:seed=3"}).json()
    assert view["bot"] == "random:seed=3"
    assert client.post(f"{url}/computer", json={"token": token, "bot": "wizard"}).status_code == 400
    view = client.post(f"{url}/switch", json={"token": token}).json()
    assert view["seat"] == 1 and view["bot_seat"] == 0 and view["names"][0] == "Computer"
    view = wait_for(client, game, token, lambda v: v["to_move"] == 1 and not v["thinking"])
    assert view["ply"] >= 1


def test_hint_changes_nothing(client):
    game = create(client, game="kalah")
    url = f"/api/games/{game['id']}/hint"
    assert client.post(url, json={"player": "greedy"}).status_code == 403  # a spectator
    hint = client.post(url, json={"player": "greedy", "token": game["token"]}).json()
    assert hint["move"] in game["state"]["legal"] and hint["name"]
    assert state(client, game)["ply"] == 0


def test_a_hint_thinks_at_most_the_hint_time(db, monkeypatch):
    from mancalab.web.thinking import Limits, Thinker

    caps = []
    choose = Thinker.choose

    async def recording(self, game_id, player, state, *args, **kwargs):
        caps.append(player.cap)
        return await choose(self, game_id, player, state, *args, **kwargs)

    monkeypatch.setattr(Thinker, "choose", recording)
    with TestClient(create_app(db, Limits(hint_think=0.05))) as client:
        game = create(client, game="kalah")
        hint = client.post(f"/api/games/{game['id']}/hint",
                           json={"player": "alphabeta:time=3", "token": game["token"]})
        assert hint.status_code == 200, hint.text
    assert caps == [0.05]


def test_previews_are_for_a_seated_player_where_hints_are_on(client):
    game = create(client, game="kalah", mode="local")
    url = f"/api/games/{game['id']}/previews"
    assert client.get(url).status_code == 403  # a spectator
    answer = client.get(url, params={"token": game["token"]}).json()
    six = next(entry for entry in answer["moves"] if entry["cell"] == 2)  # 4 seeds from pit 3
    assert six == {"cell": 2, "lands": 6, "laps": 1, "captured": [], "gain": 1, "again": True,
                   "ends": False, "way": [2, 3, 4]}  # the last seed in the store, and again;
    # the arrow from the hole through its first drops
    online = create(client, game="kalah", mode="online")  # helpers off between two people
    assert client.get(f"/api/games/{online['id']}/previews",
                      params={"token": online["token"]}).status_code == 409
    beads = create(client, game="urubugu", mode="local", setup=True)
    assert client.get(f"/api/games/{beads['id']}/previews",
                      params={"token": beads["token"]}).status_code == 409  # not started


def test_the_best_continuation_is_proven_where_the_game_is_solved(client):
    from mancalab.analysis import solving

    game = create(client, game="kalah", options={"pits": 3, "seeds": 2}, mode="local")
    view = move(client, game, game["token"], game["state"]["legal"][0], 0).json()
    url = f"/api/games/{game['id']}/positions/1/continuation"
    assert client.post(url, json={}).status_code == 403  # a spectator of a running game
    line = client.post(url, json={"token": game["token"]}).json()
    assert line["exact"] and line["ply"] == 1 and line["moves"]
    state = mancalab.variant("kalah", pits=3, seeds=2).state(view["cells"], view["to_move"])
    for step in line["moves"]:  # every move of the line keeps the position's value
        assert step["seat"] == state.to_move and step["name"] == state.move_name(step["cell"])
        solved = solving.solve(state, moves=True, solver=solving.Solver(state.variant, None))
        assert step["cell"] in solved.best_moves
        state = state.play(step["cell"])
    assert line["ends"] == state.is_over and (state.is_over or len(line["moves"]) == 6)
    assert client.post(f"/api/games/{game['id']}/positions/9/continuation",
                       json={"token": game["token"]}).status_code == 404
    online = create(client, game="kalah", mode="online")  # helpers off: not while it runs
    assert client.post(f"/api/games/{online['id']}/positions/0/continuation",
                       json={"token": online["token"]}).status_code == 409


def test_analysis_gives_every_moves_exact_value(client, tmp_path, monkeypatch):
    import mancalab
    from mancalab.analysis import solving

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # no database: the search alone
    catalogue = client.get("/api/games").json()["games"]
    assert catalogue["urubugu"]["solvable"] and not catalogue["gabata3"]["solvable"]
    game = create(client, game="kalah", options={"pits": 3, "seeds": 2}, mode="local")
    url = f"/api/games/{game['id']}/analysis"
    assert client.post(url, json={}).status_code == 403  # a spectator
    answer = client.post(url, json={"token": game["token"]}).json()
    start = mancalab.variant("kalah", pits=3, seeds=2).start()
    solved = solving.solve(start, moves=True, solver=solving.Solver(start.variant, None))
    assert answer["exact"] and answer["value"] == solved.value and answer["ply"] == 0, answer
    assert {m["cell"]: m["value"] for m in answer["moves"]} == {
        cell: low for cell, (low, _) in solved.moves.items()}, answer
    assert answer["best_cells"] == solved.best_moves
    other = create(client, game="gabata3")
    refused = client.post(f"/api/games/{other['id']}/analysis", json={"token": other["token"]})
    assert refused.status_code == 409 and "not gabata3" in refused.json()["detail"]
    urubugu = create(client, game="urubugu")  # a forced win for the first player
    answer = client.post(f"/api/games/{urubugu['id']}/analysis",
                         json={"token": urubugu["token"]}).json()
    assert answer["exact"] and answer["value"] == 64 and answer["best_cells"], answer


def test_oware_analysis_is_what_its_endgame_tables_prove_given_the_game(client, tmp_path,
                                                                         monkeypatch):
    import mancalab
    from mancalab.analysis.solving import oware_tables

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    small = mancalab.variant("oware", houses=2, seeds=2)
    assert not client.get("/api/games").json()["games"]["oware"]["tables"]
    for board in (small, mancalab.variant("oware")):
        oware_tables.save(oware_tables.build(board, 4))
    assert client.get("/api/games").json()["games"]["oware"]["tables"]
    # South's 0, North's 2, South's 1 and North's 3 come back to the start: a first recurrence
    start = {"cells": [1, 0, 1, 0, 3, 3], "to_move": 0}
    game = create(client, game="oware", options={"houses": 2, "seeds": 2}, position=start)
    url = f"/api/games/{game['id']}/analysis"
    answer = client.post(url, json={"token": game["token"]}).json()
    position = small.state(start["cells"], 0)
    tables = oware_tables.for_search(small)
    for entry in answer["moves"]:  # a move's bounds: its position's over every history
        bounds = oware_tables.proven(position.play(entry["cell"]), tables)
        assert (entry["lower"], entry["upper"]) == (-bounds["greatest"], -bounds["least"])
    assert answer["lower"] == max(entry["lower"] for entry in answer["moves"]), answer
    for ply, cell in enumerate((0, 2, 1)):
        assert move(client, game, game["token"], cell, ply).status_code == 200
        position = position.play(cell)
    answer = client.post(url, json={"token": game["token"]}).json()
    back = next(entry for entry in answer["moves"] if entry["cell"] == 3)
    repeated = position.play(3)
    assert repeated.board.tolist() == small.state(start["cells"], 0).board.tolist()
    swept = repeated.stopped()
    assert back["value"] == swept.score[1] - swept.score[0] and not back["endless"], back
    far = create(client, game="oware")  # 48 seeds on the board
    refused = client.post(f"/api/games/{far['id']}/analysis", json={"token": far["token"]})
    assert refused.status_code == 409 and refused.json()["code"] == "beyond_tables"
    assert refused.json()["values"] == {"seeds": 48, "most": 4}
    other = create(client, game="oware", options={"houses": 3})
    refused = client.post(f"/api/games/{other['id']}/analysis", json={"token": other["token"]})
    assert refused.status_code == 409 and refused.json()["code"] == "no_tables"


def test_urubugu_both_players_arrange_their_beads(client):
    game = create(client, game="urubugu", mode="online", setup=True)
    first, second = game["token"], game["links"]["invite"].split("token=")[1]
    assert game["state"]["started"] is False
    url = f"/api/games/{game['id']}/setup"
    setting = [4, 4, 4, 4, 4, 4, 4, 4] + [0] * 8
    bad = client.post(url, json={"token": first, "seat": 0, "setting": [2] * 15 + [3]})
    assert bad.status_code == 400 and "33" in bad.json()["detail"]
    stranger = client.post(url, json={"token": second, "seat": 0, "setting": setting})
    assert stranger.status_code == 403
    view = client.post(url, json={"token": first, "seat": 0, "setting": setting}).json()
    assert view["started"] is False and view["setup_done"] == [True, False]
    assert move(client, game, first, 24).status_code == 409
    view = client.post(url, json={"token": second, "seat": 1, "setting": [2] * 16}).json()
    assert view["started"] is True
    assert sorted(view["cells"][16:]) == sorted(setting)
    again = client.post(url, json={"token": second, "seat": 1, "setting": [2] * 16})
    assert again.status_code == 409


@pytest.mark.parametrize("seat", [0, 1])
def test_against_the_computer_only_the_person_arranges_beads(client, seat):
    game = create(client, game="urubugu", mode="computer", bot="greedy", human_seat=seat,
                  setup=True)
    assert game["state"]["setup_done"] == [seat == 1, seat == 0]
    setting = [4] * 8 + [0] * 8
    view = client.post(f"/api/games/{game['id']}/setup",
                       json={"token": game["token"], "seat": seat, "setting": setting}).json()
    assert view["started"] is True


def test_a_saved_record_goes_on(client):
    game = create(client, game="gabata")
    for ply in range(3):
        view = move(client, game, game["token"], state(client, game)["legal"][0], ply).json()
    text = client.get(f"/api/games/{game['id']}/record").text
    loaded = client.post("/api/games/load", json={"record": text})
    assert loaded.status_code == 201 and loaded.json()["state"]["cells"] == view["cells"]
    bad = client.post("/api/games/load", json={"record": '[Variant "gabata"]\n\n9 *\n'})
    assert bad.status_code == 400 and "line 3" in bad.json()["detail"]


def test_every_game_survives_a_restart(db):
    with TestClient(create_app(db)) as client:
        game = create(client, game="gebeta", mode="online")
        first, second = game["token"], game["links"]["invite"].split("token=")[1]
        for ply in range(6):
            token = (first, second)[state(client, game)["to_move"]]
            view = move(client, game, token, state(client, game)["legal"][0], ply).json()
    with TestClient(create_app(db)) as client:
        again = state(client, game, second)
        assert again["cells"] == view["cells"] and again["moves"] == view["moves"]
        assert again["seat"] == 1
        token = (first, second)[again["to_move"]]
        assert move(client, game, token, again["legal"][0], 6).status_code == 200


def test_an_app_run_twice_at_once_keeps_its_store_until_the_last_run_stops(db):
    """Tests run one app for several clients, each on an event loop of its own: the first
    to stop closed the store under the others (a crash in Python's sqlite3 when another
    loop's sweep was reading it)."""
    app = create_app(db)
    with TestClient(app) as first:
        with TestClient(app) as second:
            game = create(second, game="kalah", mode="online")
        assert move(first, game, game["token"], 0, 0).status_code == 200
    assert app.state.hub.store.backend is None  # closed by the last


def test_websocket_moves_are_acknowledged_and_spectators_see_them(client):
    game = create(client, game="kalah", mode="online")
    first = game["token"]
    url = f"/api/games/{game['id']}/ws"
    with client.websocket_connect(url) as watcher, \
            client.websocket_connect(f"{url}?token={first}") as player:
        assert watcher.receive_json()["state"]["seat"] is None
        assert player.receive_json()["state"]["seat"] == 0
        player.send_json({"type": "move", "move": 0, "ply": 0})
        assert next_message(player, "ack") == {"type": "ack", "move": 0, "ply": 1}
        assert next_state(watcher, lambda s: s["ply"] == 1)
        assert next_state(player, lambda s: s["ply"] == 1)  # the player sees it too
        player.send_text("hello")
        assert next_message(player, "error")
        watcher.send_json({"type": "move", "move": 7, "ply": 1})
        assert "no seat" in next_message(watcher, "error")["message"]


def next_message(socket, kind):
    """The next message of ``kind``, past the states sent meanwhile (a page that connects
    or leaves is told to the others: their presence)."""
    while True:
        message = socket.receive_json()
        if message["type"] == kind:
            return message


def next_state(socket, wanted):
    while not wanted(message := next_message(socket, "state")["state"]):
        pass
    return message


def test_the_api_is_documented(client):
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/api/games", "/api/games/{game_id}", "/api/games/{game_id}/moves"} <= set(paths)
    assert client.get("/").status_code == 200


def test_a_move_too_long_to_send_step_by_step_has_no_sowing(client, monkeypatch):
    from mancalab.web import rooms
    monkeypatch.setattr(rooms, "SOWING_STEPS", 3)
    game = create(client, game="kalah", mode="local")
    view = move(client, game, game["token"], 0).json()  # 4 seeds: 5 steps
    assert view["sowing"] is None and view["ply"] == 1


def _end(client, game, token):
    return client.post(f"/api/games/{game['id']}/end", json={"token": token})


def test_online_players_end_a_game_by_agreement_and_it_survives_a_restart(db):
    with TestClient(create_app(db)) as client:
        game = create(client, game="gebeta", mode="online")
        first, second = game["token"], game["links"]["invite"].split("token=")[1]
        move(client, game, first, 0, 0)
        asked = _end(client, game, second).json()
        assert asked["end"] == "asked" and asked["state"]["end_request"] == 1
        assert _end(client, game, second).json()["end"] == "asked"  # asking again: no end
        assert _end(client, game, None).status_code == 403
        ended = _end(client, game, first).json()
        assert ended["end"] == "ended" and ended["state"]["result"]["termination"] == "agreement"
        assert _end(client, game, first).status_code == 409  # over already
    with TestClient(create_app(db)) as client:
        again = state(client, game, first)
        assert again["result"]["termination"] == "agreement"
        record = client.get(f"/api/games/{game['id']}/record").text
        assert '[Termination "agreement"]' in record


def test_a_move_answers_a_proposal_to_end_and_one_screen_ends_at_once(client):
    game = create(client, game="kalah", mode="online")
    first = game["token"]
    assert _end(client, game, first).json()["state"]["end_request"] == 0
    assert move(client, game, first, 0, 0).json()["end_request"] is None
    local = create(client, game="gabata", mode="local")
    ended = _end(client, local, local["token"]).json()
    assert ended["end"] == "ended" and ended["state"]["result"]["termination"] == "agreement"
    undo = client.post(f"/api/games/{local['id']}/undo", json={"token": local["token"]})
    assert undo.status_code == 409  # no move was played: nothing to take back


def test_the_computer_agrees_to_end_when_it_expects_no_better(client):
    # B (the computer) is far ahead in store, and banking each side keeps it ahead: agreed
    kalah = mancalab.variant("kalah")

    def load(cells):
        text = GameRecord(kalah, kalah.state(cells, 0)).to_text()
        response = client.post("/api/games/load", json={
            "record": text, "mode": "computer", "bot": "greedy", "human_seat": 0})
        assert response.status_code == 201, response.text
        return response.json()

    game = load([0, 0, 0, 0, 0, 1, 20, 0, 0, 0, 0, 0, 1, 26])
    ended = _end(client, game, game["token"])
    assert ended.status_code == 200, ended.text
    assert ended.json()["state"]["result"]["termination"] == "agreement"
    # (when it declines, the answer is a 409 naming why: tests/test_endless.py has the rule)


# ----- what the redesigned page asks of the server -------------------------------------
def test_every_language_file_has_every_text_and_the_page_uses_only_those():
    import json
    import re
    from pathlib import Path

    static = Path(mancalab.__file__).parent / "web" / "static"
    files = {p.stem: json.loads(p.read_text()) for p in (static / "i18n").glob("*.json")}
    assert set(files) == {"en", "fr", "rn", "am"}
    for code, texts in files.items():
        assert set(texts) == set(files["en"]), code
        for key, text in texts.items():  # a plural is an object with at least "other"
            assert isinstance(text, str) or "other" in text, (code, key)
    used = set()
    for source in [static / "index.html", *(static / "js").glob("*.js")]:
        used |= set(re.findall(r'data-i18n(?:-label|-title)?="([a-z0-9_]+)"', source.read_text()))
        used |= set(re.findall(r'\bt\("([a-z0-9_]+)"\s*[,)]', source.read_text()))
    assert used <= set(files["en"]), used - set(files["en"])
    for termination in ("repetition", "agreement"):  # keys made from the server's words
        assert f"ended_{termination}" in files["en"] and f"reason_{termination}" in files["en"]
    for game in mancalab.variants():  # names, origins, lines and rules of every game
        for key in (f"game_{game}", f"game_{game}_line", f"rules_{game}", f"score_{game}"):
            assert key in files["en"], key
        for option in mancalab.variant(game).option_specs:
            assert f"option_{option}" in files["en"], option


def test_option_forms_tell_the_page_which_control_to_show(client):
    games = client.get("/api/games").json()["games"]
    kinds = {name: {k: o["kind"] for k, o in info["options"].items()}
             for name, info in games.items()}
    assert kinds["kalah"] == {"pits": "number", "seeds": "number", "empty_capture": "bool",
                              "end_rule": "choice", "board": "choice_or_number"}
    assert games["kalah"]["options"]["end_rule"]["choices"] == ["side_empty", "no_move"]
    assert games["gebeta"]["options"]["lap_limit"]["max"] == 10_000


def test_an_example_move_for_every_game(client):
    for game in mancalab.variants():
        example = client.get(f"/api/examples/{game}").json()
        start = mancalab.variant(game).start()
        assert example["before"]["cells"] == list(start.cells)
        assert example["after"]["cells"] == list(start.play(example["move"]).cells)
        assert example["sowing"] and example["name"] == start.move_name(example["move"])


def test_decline_a_request_and_rematch_with_seats_swapped(client):
    game = create(client, game="kalah", mode="online", options={"pits": 1, "seeds": 1},
                  names=["Almaz", "Bekele"])
    other = game["links"]["invite"].split("token=")[1]
    url = f"/api/games/{game['id']}"
    assert client.post(f"{url}/decline", json={"token": other}).status_code == 409
    assert client.post(f"{url}/rematch", json={"token": game["token"]}).status_code == 409
    assert move(client, game, game["token"], 0, 0).status_code == 200  # Kalah(1,1) ends
    answer = client.post(f"{url}/rematch", json={"token": game["token"]})
    assert answer.status_code == 201
    again = answer.json()
    assert again["state"]["names"] == ["Bekele", "Almaz"] and again["state"]["seat"] == 1
    offered = state(client, game, other)["rematch"]  # the other player finds it
    assert state(client, {"id": offered["id"]}, offered["token"])["seat"] == 0
    assert client.post(f"{url}/rematch", json={"token": other}).status_code == 409


def test_hints_between_two_people_only_when_agreed(client):
    for helpers, status in ((None, 409), (True, 200)):
        body = {"game": "gebeta", "mode": "online"}
        if helpers is not None:
            body["helpers"] = helpers
        game = create(client, **body)
        answer = client.post(f"/api/games/{game['id']}/hint",
                             json={"token": game["token"], "player": "greedy"})
        assert answer.status_code == status, answer.text


def test_every_position_of_a_game_can_be_reviewed(client):
    game = create(client, game="gebeta")
    variant = mancalab.variant("gebeta")
    states = [variant.start()]
    for ply in range(4):
        move_ = states[-1].legal_moves()[0]
        assert move(client, game, game["token"], move_, ply).status_code == 200
        states.append(states[-1].play(move_))
    for ply, expected in enumerate(states):
        answer = client.get(f"/api/games/{game['id']}/positions/{ply}").json()
        assert answer["state"]["cells"] == list(expected.cells)
        assert (answer["sowing"] is None) == (ply == 0)
    assert client.get(f"/api/games/{game['id']}/positions/5").status_code == 404
    assert client.get(f"/api/games/{game['id']}/positions/-1").status_code == 422


@pytest.mark.parametrize("name", mancalab.variants())
def test_a_game_starts_from_any_position_the_rules_allow(client, name):
    example = client.get(f"/api/examples/{name}").json()["after"]
    body = {"game": name, "mode": "local", "position": {"cells": example["cells"],
                                                        "to_move": 1}}
    created = create(client, **body)
    assert created["state"]["cells"] == example["cells"] and created["state"]["to_move"] == 1
    record = client.get(f"/api/games/{created['id']}/record").text
    assert ",".join(map(str, example["cells"])) in record  # the start is the record's
    for bad, said in (({"cells": example["cells"][:-1]}, ("cells",)),
                      ({"cells": [c + 1 for c in example["cells"]]}, ("add up", "hold")),
                      ({"cells": [-1] + example["cells"][1:]}, ("greater than or equal",)),
                      ({"cells": example["cells"], "to_move": 2}, ("less than or equal",))):
        refused = client.post("/api/games", json={**body, "position": {**body["position"],
                                                                       **bad}})
        assert refused.status_code in (400, 422), refused.text
        assert any(words in refused.text for words in said), refused.text


@pytest.mark.parametrize("name", PUZZLE_GAMES)
def test_a_puzzle_is_served_near_a_rating_and_its_answer_checked(client, name):
    from mancalab.analysis.teach import puzzles

    shown = client.get(f"/api/puzzles/{name}", params={"rating": 1800, "draw": 3}).json()
    puzzle = puzzles.find(shown["id"])
    assert shown["cells"] == puzzle.cells and shown["to_move"] == puzzle.to_move
    assert "best" not in shown and "values" not in shown  # the answer is not given away
    nearest = sorted(abs(p.rating - 1800) for p in puzzles.shipped(name))[9]
    assert abs(shown["rating"] - 1800) <= nearest
    url = f"/api/puzzles/answer/{shown['id']}"
    right = client.post(url, json={"move": puzzle.best}).json()
    assert right["correct"] and right["best"] == puzzle.best and right["value"] == puzzle.value
    after = puzzle.state().play(puzzle.best)
    assert right["after"]["cells"] == list(after.cells) and right["sowing"]
    assert {m["cell"]: m["value"] for m in right["moves"]} == {
        int(c): v for c, v in puzzle.values.items()}
    other = next(m for m in shown["legal"] if m != puzzle.best)
    wrong = client.post(url, json={"move": puzzle.state().move_name(other)}).json()
    assert wrong["correct"] is False and wrong["move"] == other
    illegal = next(c for c in range(len(shown["cells"])) if c not in shown["legal"])
    assert client.post(url, json={"move": illegal}).status_code == 400
    assert client.post("/api/puzzles/answer/kalah-0-0-0", json={"move": 0}).status_code == 404
    assert set(PUZZLE_GAMES) == set(mancalab.variants())  # every game has puzzles
    assert client.get("/api/puzzles/chess").status_code == 422
    missing = next(theme for theme in puzzles.THEMES if theme not in puzzles.theme_counts(name))
    assert client.get(f"/api/puzzles/{name}", params={"theme": missing}).status_code == 404
    assert client.get(f"/api/puzzles/{name}", params={"rating": "nan"}).status_code == 422


@pytest.mark.parametrize("name", PUZZLE_GAMES)
def test_puzzles_are_chosen_by_theme_and_tried_without_giving_the_answer_away(client, name):
    from mancalab.analysis.teach import puzzles

    counts = client.get(f"/api/puzzles/{name}/themes").json()["themes"]
    assert counts and sum(counts.values()) >= len(puzzles.shipped(name)) // 2
    for theme, count in counts.items():
        shown = client.get(f"/api/puzzles/{name}", params={"theme": theme, "draw": 5}).json()
        puzzle = puzzles.find(shown["id"])
        state, best = puzzle.state(), puzzle.best
        after = state.play(best)
        gained = after.score[state.to_move] - state.score[state.to_move]
        holds = {"capture": gained > 0, "family": gained > 0, "wipeout": puzzle.kind == "wipeout",
                 "again": not after.is_over and after.to_move == state.to_move,
                 "endgame": True}[theme]  # the answer does what its theme says
        assert holds, (theme, shown["id"])
        assert sum(theme in puzzles.themes(p) for p in puzzles.shipped(name)) == count
    missing = next(theme for theme in puzzles.THEMES if theme not in counts)
    refused = client.get(f"/api/puzzles/{name}", params={"theme": missing})
    assert refused.status_code == 404 and "themes:" in refused.json()["detail"]
    assert client.get(f"/api/puzzles/{name}", params={"theme": "forks"}).status_code == 422
    shown = client.get(f"/api/puzzles/{name}").json()
    puzzle = puzzles.find(shown["id"])
    url = f"/api/puzzles/try/{shown['id']}"
    other = next(m for m in shown["legal"] if m != puzzle.best)
    wrong = client.post(url, json={"move": other}).json()
    assert wrong["correct"] is False and "best" not in wrong and "moves" not in wrong
    assert wrong["after"]["cells"] == list(puzzle.state().play(other).cells)
    assert client.post(url, json={"move": puzzle.best}).json()["correct"] is True
    answer = client.post(f"/api/puzzles/answer/{shown['id']}", json={"move": other}).json()
    assert answer["themes"] == list(puzzles.themes(puzzle))


@pytest.mark.parametrize("name", mancalab.variants())
def test_exercises_ask_what_the_rules_then_do(client, name):
    kinds = client.get(f"/api/exercises/{name}").json()["kinds"]
    assert kinds[0] == "landing" and len(kinds) >= 2
    for kind in kinds:
        for number in (1, 2):
            url = f"/api/exercises/{name}/{kind}/{number}"
            shown = client.get(url).json()
            assert client.get(url).json() == shown  # made again the same: nothing is kept
            guess = shown["move"] if shown["move"] is not None else shown["legal"][0]
            told = client.post(url, json={"move": guess}).json()
            right = told["answers"]
            assert (guess in right) == told["correct"] and right
            again = client.post(url, json={"move": right[0]}).json()
            assert again["correct"]
            mover, before = shown["to_move"], shown["score"]
            steps, after = again["sowing"], again["after"]
            lifts = [i for i, step in enumerate(steps) if step[0] == "lift"]
            if kind == "landing":  # where the move's first lap drops its last seed
                lap = steps[:lifts[1]] if len(lifts) > 1 else steps
                drops = [s[1] for s in lap if s[0] == "drop"]
                assert right == [drops[-1]]
                assert shown["direction"] == [shown["move"], *drops[:-1][:2]]  # not the end
                continue
            assert again["move"] == right[0] and len(right) < len(shown["legal"])
            again_turn = not after["result"] and after["to_move"] == mover
            assert {"relay": len(lifts) >= 2,
                    "capture": any(step[0] == "capture" for step in steps),
                    "family": after["score"][mover] > before[mover],
                    "deposit": after["score"][mover] > before[mover],
                    "extra_turn": again_turn, "ends_turn": not again_turn}[kind], (kind, url)
    assert client.get(f"/api/exercises/{name}/chess/1").status_code == 400
    url = f"/api/exercises/{name}/landing/1"
    assert client.post(url, json={"move": 10**6}).status_code == 400
    assert client.post(url, json={"move": True}).status_code in (400, 422)


def test_a_worksheet_is_drawn_for_a_class_and_bad_values_refused(client):
    import re

    answer = client.get("/api/worksheets/gebeta", params={"questions": 8, "paper": "letter",
                                                          "language": "am", "seed": 3})
    assert answer.status_code == 200 and answer.headers["content-type"] == "application/pdf"
    assert "attachment" in answer.headers["content-disposition"]
    pages = re.findall(rb"/MediaBox \[ *0 0 ([\d.]+) ([\d.]+)", answer.content)
    assert [(float(w), float(h)) for w, h in pages] == [(612, 792)] * 3  # 6 + 2, and the key
    for bad in ({"questions": 0}, {"questions": 37}, {"paper": "a3"}, {"language": "de"},
                {"seed": -1}, {"questions": "nan"}):
        assert client.get("/api/worksheets/kalah", params=bad).status_code == 422, bad
    assert client.get("/api/worksheets/chess").status_code == 422


@pytest.mark.parametrize("name", mancalab.variants())
def test_a_lessons_steps_are_checked_by_the_rules(client, name):
    from mancalab.analysis.teach import lessons

    taught = client.get(f"/api/lessons/{name}").json()["steps"]
    assert [step["kind"] for step in taught] == list(lessons.LESSONS[name])
    for index, step in enumerate(taught):
        state = mancalab.variant(name).state(step["cells"], step["to_move"])
        doing = [m for m in step["legal"] if lessons.does(state, m, step["kind"])]
        assert doing  # every step can be done ...
        if step["kind"] != "sow":
            assert len(doing) <= max(1, len(step["legal"]) // 2)  # ... but not by any move
        for move in step["legal"]:
            answer = client.post(f"/api/lessons/{name}/{index}", json={"move": move}).json()
            assert answer["ok"] == (move in doing)
            assert answer["after"]["cells"] == list(state.play(move).cells)
    assert client.post(f"/api/lessons/{name}/9", json={"move": 0}).status_code == 404
    assert client.post(f"/api/lessons/{name}/0", json={"move": 99}).status_code == 400


def test_the_kinds_of_moves_are_read_from_the_rules():
    from mancalab.analysis.teach import lessons

    kalah = mancalab.variant("kalah").start()
    assert lessons.does(kalah, 2, "extra_turn")  # pit 4 of 4 seeds ends in the store
    assert not lessons.does(kalah, 0, "extra_turn")
    assert not any(lessons.does(kalah, m, "capture") for m in kalah.legal_moves())
    gebeta = mancalab.variant("gebeta").start()
    assert all(lessons.does(gebeta, m, "relay") for m in gebeta.legal_moves())  # all full


def test_no_move_is_taken_past_a_games_cap_and_the_computer_agrees_to_end(client):
    game = create(client, game="oware", mode="computer", bot="greedy", human_seat=0,
                  options={"move_cap": 2})
    token = game["token"]
    assert move(client, game, token, 0).status_code == 200
    view = wait_for(client, game, token, lambda v: v["ply"] == 2)
    refused = move(client, game, token, view["legal"][0])
    assert refused.status_code == 409 and "cap of 2 moves" in refused.text
    assert state(client, game, token)["ply"] == 2  # nothing changed
    ended = _end(client, game, token).json()
    assert ended["end"] == "ended" and ended["state"]["result"]["termination"] == "agreement"


def test_a_route_gets_its_services_by_depends_and_a_test_overrides_them(db):
    """Issue 84: the routers are module-level and get the services, the limits and the
    rates from the app they serve (``web.deps``): one app's limits are its own, and a test
    replaces a dependency (a service too) with ``app.dependency_overrides``."""
    from mancalab.web import deps
    from mancalab.web.thinking import Limits

    app = create_app(db, Limits(max_think=3.0, create_rate="2/minute"))
    with TestClient(app) as one, TestClient(create_app(db, Limits())) as other:
        assert one.get("/api/games").json()["max_think"] == 3.0
        assert other.get("/api/games").json()["max_think"] == Limits().max_think
        app.dependency_overrides[deps.limits_of] = lambda: Limits(max_think=7.0)
        assert one.get("/api/games").json()["max_think"] == 7.0

        class Adviser:  # a stand-in for the computer's service: a route asks for it alone
            def previews(self, game_id, token):
                return {"previews of": game_id}

        app.dependency_overrides[deps.computer_of] = Adviser
        assert one.get("/api/games/nothing/previews").json() == {"previews of": "nothing"}
        assert other.get("/api/games/nothing/previews").status_code == 404
        made = [one.post("/api/games", json={"game": "kalah", "mode": "local"}).status_code
                for _ in range(3)]
        assert made == [201, 201, 429]  # this app's rate, not the other's
        refused = one.post("/api/games", json={"game": "kalah", "mode": "local"})
        said = refused.json()
        assert said["code"] == "too_many" and "2 per 1 minute" in said["detail"]
        assert int(refused.headers["Retry-After"]) >= 1
        assert other.post("/api/games", json={"game": "kalah", "mode": "local"}).status_code \
            == 201


def test_every_route_asks_for_the_services_it_uses_and_never_the_hub(db):
    """Issue 84: a route names the services it uses (``web.deps``), not the whole hub, so a
    test can stand in for one: who is logged in, the lobby's seeking, one service."""
    import importlib
    import inspect
    import pkgutil

    from fastapi.routing import APIRoute, APIWebSocketRoute

    from mancalab.web import deps, routes
    from mancalab.web.errors import NotFoundError
    from mancalab.web.hub import Hub

    asked, modules = set(), pkgutil.iter_modules(routes.__path__)
    found = [route for module in modules
             for route in importlib.import_module(f"{routes.__name__}.{module.name}").router.routes
             if isinstance(route, (APIRoute, APIWebSocketRoute))]
    assert len(found) >= 100
    for route in found:
        for parameter in inspect.signature(route.endpoint).parameters.values():
            assert parameter.annotation not in (Hub, "Hub", "HubDep"), route.path
        for dependency in route.dependant.dependencies:
            assert dependency.call.__module__ == deps.__name__, (route.path, dependency.call)
            asked.add(dependency.call.__name__)
    assert {"games_of", "seeking_of", "viewer_of", "member_of", "teacher_of"} <= asked

    class Seeking:  # a stand-in: the seek route asks for seeking, who is in, the classes
        def open(self, body, by, account, client, to=None, cookie=None):
            raise NotFoundError(f"seeking stood in for {account}")

    app = create_app(db)
    app.dependency_overrides[deps.seeking_of] = Seeking
    app.dependency_overrides[deps.viewer_of] = lambda: "Ann"
    with TestClient(app) as client:
        refused = client.post("/api/seeks", json={"game": "kalah"})
        assert refused.status_code == 404 and "stood in for Ann" in refused.text
        app.dependency_overrides[deps.member_of] = lambda: "Ann"
        assert client.get("/api/tokens").json() == {"tokens": []}  # Ann's, no cookie sent


def test_a_landing_in_a_store_is_answered(client):
    """A landing exercise whose sowing ends in a store (Kalah's number 3: the store 6) was
    refused with 400 when its answers were named (a store is no move): its answers name
    the holes only."""
    asked = client.get("/api/exercises/kalah/landing/3").json()
    answer = client.post("/api/exercises/kalah/landing/3", json={"move": 6})
    assert answer.status_code == 200, answer.text
    said = answer.json()
    assert said["correct"] and said["answers"] == [6] and said["names"] == [None]
    assert said["move"] == asked["move"]
