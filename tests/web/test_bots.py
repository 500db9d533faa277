"""API tokens, BOT accounts, the Bot API and challenges by token: every route with its bad
input, and two bots (a UGI engine and an engine-protocol engine) bridged by ``mancalab bot``
playing a rated clocked game to its end on a real server."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import httpx2 as httpx
import pytest
from fastapi.testclient import TestClient

from mancalab.web import create_app
from mancalab.web.bridge import Bridge, BridgeRefused
from mancalab.web.tokens import TOKENS_KEPT

from .conftest import serving

EXAMPLES = Path(__file__).parents[2] / "docs" / "examples"
PASSWORD = "a good password"


@pytest.fixture
def app(db):
    return create_app(db)


def account(client, name: str, bot: bool = False, **token) -> dict:
    """Sign ``name`` up on ``client``; a token's header (and the account made a BOT)."""
    assert client.post("/api/accounts", json={"name": name, "password": PASSWORD}) \
        .status_code == 201
    made = client.post("/api/tokens", json={"label": f"{name}'s", **token})
    assert made.status_code == 201, made.text
    header = {"Authorization": f"Bearer {made.json()['token']}"}
    if bot:
        assert client.post("/api/bot/account/upgrade", headers=header).json() == \
            {"name": name, "bot": True}
    return header


def lines(client, path: str, header: dict, count: int) -> list[dict | None]:
    """The first ``count`` lines of a stream (None for a keep-alive)."""
    got = []
    with client.stream("GET", path, headers=header) as stream:
        for line in stream.iter_lines():
            got.append(json.loads(line) if line else None)
            if len(got) == count:
                break
    return got


@pytest.mark.both_stores
def test_tokens_are_made_listed_used_and_revoked_and_only_their_digest_kept(app):
    with TestClient(app) as ada:
        header = account(ada, "Ada", scopes=["challenge:read"])
        token = header["Authorization"].split()[1]
        listed = ada.get("/api/tokens").json()["tokens"]
        assert [t["scopes"] for t in listed] == [["challenge:read"]]
        assert "token" not in listed[0] and token not in json.dumps(listed)
        hub = app.state.hub
        assert hub.store.execute("SELECT COUNT(*) FROM tokens WHERE digest = ?",
                                 (token,)).fetchone()[0] == 0  # the digest, not the token
        assert ada.get("/api/account", headers=header).json() == {"name": "Ada", "bot": False}
        refused = {
            "no header": ada.get("/api/account"),
            "not bearer": ada.get("/api/account", headers={"Authorization": f"Basic {token}"}),
            "unknown": ada.get("/api/account", headers={"Authorization": "Bearer mcl_nope"}),
            "huge": ada.get("/api/account", headers={"Authorization": "Bearer " + "x" * 5000}),
            "scope": ada.post("/api/bot/account/upgrade", headers=header),
        }
        assert {k: r.status_code for k, r in refused.items()} == dict.fromkeys(refused, 401)
        assert refused["scope"].json()["code"] == "token_scope"
        # a cookie is not a token: the API of programs reads the header only
        assert ada.get("/api/account").json()["code"] == "no_token"
        assert ada.post("/api/tokens", json={"scopes": ["admin"]}).status_code == 422
        assert ada.post("/api/tokens", json={"scopes": []}).status_code == 422
        assert ada.delete("/api/tokens/nope").json()["code"] == "unknown_token"
        assert ada.delete(f"/api/tokens/{listed[0]['id']}").status_code == 200
        assert ada.get("/api/account", headers=header).json()["code"] == "bad_token"
        for _ in range(TOKENS_KEPT):
            ada.post("/api/tokens", json={})
        assert ada.post("/api/tokens", json={}).json()["code"] == "too_many_tokens"
    with TestClient(app) as nobody:
        assert nobody.get("/api/tokens").status_code == 401
        assert nobody.post("/api/tokens", json={}).status_code == 401


def test_an_account_becomes_a_bot_only_before_its_first_game_and_for_ever(app):
    with TestClient(app) as ada, TestClient(app) as cy:
        header = account(ada, "Ada")
        cy_header = account(cy, "Cyrus", bot=True)
        assert ada.post("/api/bot/account/upgrade", headers=header).status_code == 200
        assert ada.post("/api/bot/account/upgrade", headers=header).json()["bot"]  # again
        seek = cy.post("/api/bot/seek", headers=cy_header, json={"game": "kalah"}).json()
        with TestClient(app) as dawit:
            late = account(dawit, "Dawit")
            assert dawit.post(f"/api/seeks/{seek['id']}/accept").status_code == 201
            refused = dawit.post("/api/bot/account/upgrade", headers=late)
            assert refused.status_code == 409 and refused.json()["code"] == "bot_after_games"
            assert dawit.get("/api/players/Cyrus").json()["bot"] is True
            assert dawit.get("/api/players/Dawit").json()["bot"] is False


def test_a_person_challenges_a_bot_which_plays_through_its_streams(app):
    with TestClient(app) as ada, TestClient(app) as bot:
        account(ada, "Ada")
        header = account(bot, "Stonebot", bot=True)
        made = ada.post("/api/seeks", json={"game": "kalah", "to": "Stonebot", "rated": True,
                                            "clock": {"base": 60, "increment": 1},
                                            "color": "first"}).json()
        (event,) = lines(bot, "/api/stream/event", header, 1)
        assert event["type"] == "challenge" and event["challenge"]["by"] == "Ada"
        started = bot.post(f"/api/challenge/{made['id']}/accept", headers=header).json()
        game_id = started["id"]
        assert started["seat"] == 1
        events = lines(bot, "/api/stream/event", header, 1)
        assert events == [{"type": "gameStart", "game": {"id": game_id}}]
        mine = [s for s in ada.get("/api/session/seeks").json()["seeks"]
                if s["id"] == made["id"]][0]
        assert ada.post(f"/api/games/{game_id}/moves",
                        json={"token": mine["token"], "move": "3"}).status_code == 200
        with bot.stream("GET", f"/api/bot/game/stream/{game_id}", headers=header) as stream:
            following = stream.iter_lines()  # kept: a dropped iterator closes the stream
            full = json.loads(next(following))
            # a bot following its game is here, as a page is: the other cannot claim a win
            assert ada.get(f"/api/games/{game_id}").json()["present"][1] is True
        assert ada.get(f"/api/games/{game_id}").json()["present"][1] is False
        assert full["type"] == "gameFull" and full["seat"] == 1 and full["bots"] == [False, True]
        assert full["state"]["moves"] == ["3"] and full["state"]["to_move"] == 1
        assert full["start"] == "4S,4S,4S,4S,4S,4S/4S,4S,4S,4S,4S,4S 0 0 S 1"
        refused = {
            "illegal": bot.post(f"/api/bot/game/{game_id}/move/9", headers=header),
            "garbage": bot.post(f"/api/bot/game/{game_id}/move/{'x' * 300}", headers=header),
            "no game": bot.post("/api/bot/game/nope/move/1", headers=header),
        }
        assert {k: r.status_code for k, r in refused.items()} == \
            {"illegal": 400, "garbage": 400, "no game": 404}
        legal = full["state"]["legal"][0]
        answers = {ply: bot.post(f"/api/bot/game/{game_id}/move/{legal}?ply={ply}",
                                 headers=header) for ply in ("0", "-1", "1e99")}
        assert answers["0"].json()["code"] == "stale"  # the game is at ply 1
        assert [answers[ply].status_code for ply in ("-1", "1e99")] == [422, 422]
        assert bot.post(f"/api/bot/game/{game_id}/move/{full['state']['legal'][0]}",
                        headers=header).json() == {"ok": True}
        assert bot.post(f"/api/bot/game/{game_id}/resign", headers=header).json() == \
            {"ok": True}
        view = ada.get(f"/api/games/{game_id}").json()
        assert view["result"]["termination"] == "resign" and view["bots"] == [False, True]
        people = ada.get("/api/leaderboard/kalah").json()["players"]
        bots = ada.get("/api/leaderboard/kalah?bots=true").json()["players"]
        assert [p["name"] for p in people] == ["Ada"] and [p["name"] for p in bots] == \
            ["Stonebot"]


def test_a_bot_acts_only_where_it_is_seated_and_people_need_a_bot(app):
    with TestClient(app) as ada, TestClient(app) as bot, TestClient(app) as other:
        person = account(ada, "Ada", scopes=["bot:play", "challenge:write"])
        header = account(bot, "Stonebot", bot=True)
        stranger = account(other, "Otherbot", bot=True)
        game = ada.post("/api/games", json={"game": "kalah", "mode": "online"}).json()
        assert bot.post(f"/api/bot/game/{game['id']}/move/4", headers=header).json()["code"] \
            == "no_seat"
        assert bot.get(f"/api/bot/game/stream/{game['id']}", headers=header).status_code == 403
        seek = bot.post("/api/bot/seek", headers=header, json={"game": "oware"}).json()
        taken = other.post(f"/api/challenge/{seek['id']}/accept", headers=stranger).json()
        assert ada.post(f"/api/bot/game/{taken['id']}/move/A", headers=person).json()["code"] \
            == "not_a_bot"
        assert ada.post("/api/bot/seek", headers=person, json={"game": "kalah"}).status_code \
            == 403
        assert bot.post("/api/bot/seek", headers=header,
                        json={"game": "kalah", "to": "Ada"}).status_code == 403


def test_challenges_by_token_are_accepted_declined_and_bounded(app):
    with TestClient(app) as ada, TestClient(app) as bot:
        person = account(ada, "Ada", scopes=["challenge:read", "challenge:write"])
        header = account(bot, "Stonebot", bot=True)
        made = bot.post("/api/challenge/Ada", headers=header,
                        json={"game": "gebeta", "clock": {"base": 30, "increment": 0}})
        assert made.status_code == 201
        challenge_id = made.json()["id"]
        assert [c["id"] for c in ada.get("/api/session/challenges").json()["challenges"]] == \
            [challenge_id]
        with bot.stream("GET", "/api/stream/event", headers=header) as stream:
            events = (json.loads(line) for line in stream.iter_lines() if line)
            assert next(events)["type"] == "challenge"  # its own, open
            assert ada.post(f"/api/challenge/{challenge_id}/decline", headers=person,
                            json={"reason": "later"}).json()["reason"] == "later"
            assert next(events) == {"type": "challengeDeclined",
                                    "challenge": {"id": challenge_id, "reason": "later"}}
        refused = {
            "no player": bot.post("/api/challenge/Nobody", headers=header, json={"game": "kalah"}),
            "self": bot.post("/api/challenge/Stonebot", headers=header, json={"game": "kalah"}),
            "bad game": bot.post("/api/challenge/Ada", headers=header, json={"game": "chess"}),
            "bad option": bot.post("/api/challenge/Ada", headers=header,
                                   json={"game": "kalah", "options": {"pits": 99}}),
            "huge clock": bot.post("/api/challenge/Ada", headers=header,
                                   json={"game": "kalah", "clock": {"base": 10 ** 12}}),
            "not for you": bot.post(f"/api/challenge/{challenge_id}/accept", headers=header),
            "no such": bot.post("/api/challenge/nope/accept", headers=header),
            "bad reason": ada.post(f"/api/challenge/{challenge_id}/decline", headers=person,
                                   json={"reason": "because"}),
        }
        assert {k: r.status_code for k, r in refused.items()} == {
            "no player": 404, "self": 409, "bad game": 422, "bad option": 400,
            "huge clock": 422, "not for you": 409, "no such": 404, "bad reason": 422}
        for _ in range(3):  # the bound on a challenger's open seeks holds for tokens too
            bot.post("/api/challenge/Ada", headers=header, json={"game": "kalah"})
        assert bot.post("/api/challenge/Ada", headers=header,
                        json={"game": "kalah"}).json()["code"] == "too_many_seeks"


def test_bots_stay_out_of_peoples_arenas(app):
    with TestClient(app) as ada, TestClient(app) as cy, TestClient(app) as bot:
        account(ada, "Ada")
        account(cy, "Cyrus")
        header = account(bot, "Stonebot", bot=True)
        people = ada.post("/api/arenas", json={"game": "kalah", "clock": {"base": 60}}).json()
        open_to_bots = cy.post("/api/arenas", json={"game": "kalah", "clock": {"base": 60},
                                                    "bots": True}).json()
        refused = bot.post(f"/api/bot/arena/{people['id']}/join", headers=header)
        assert refused.status_code == 403 and refused.json()["code"] == "arena_no_bots"
        assert bot.post(f"/api/bot/arena/{open_to_bots['id']}/join", headers=header) \
            .status_code == 200


def test_two_bridged_engines_play_a_rated_clocked_game_to_its_end(tmp_path):
    """A UGI engine and an engine-protocol engine, each a BOT brought online by ``mancalab
    bot``: one challenges the other, which accepts by its policy; both play to the end,
    rated."""
    import subprocess

    from mancalab.web.thinking import Limits

    many = Limits(account_rate="100/hour")
    with serving(tmp_path / "games.sqlite3", many) as address:
        tokens = {}
        for name in ("Ugibot", "Mepbot"):
            with httpx.Client(base_url=address) as client:
                header = account(client, name)  # the bridge makes it a BOT (--upgrade)
                tokens[name] = header["Authorization"].split()[1]
        command = [sys.executable, "-m", "mancalab", "bot", "--server", address, "--games", "1",
                   "--upgrade"]
        mep = subprocess.Popen(command + [
            "--token", tokens["Mepbot"], "--accept", "kalah", "--min-clock", "10",
            "--player", f"engine:cmd={sys.executable} {EXAMPLES / 'random_engine.py'}"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        ugi = subprocess.Popen(command + [
            "--token", tokens["Ugibot"], "--challenge", "Mepbot", "--game", "kalah",
            "--clock", "20+1", "--rated-challenge",
            "--player", f"ugi:cmd={sys.executable} {EXAMPLES / 'random_ugi_kalah.py'}"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        said = [process.communicate(timeout=120)[0] for process in (ugi, mep)]
        assert [ugi.returncode, mep.returncode] == [0, 0], said
        assert "challenged Mepbot" in said[0] and "accepted Ugibot's challenge" in said[1]
        with httpx.Client(base_url=address) as client:
            board = client.get("/api/leaderboard/kalah?bots=true").json()["players"]
            assert sorted(p["name"] for p in board) == ["Mepbot", "Ugibot"]
            assert all(p["games"] == 1 for p in board)
            (played,) = client.get("/api/players/Ugibot").json()["recent"]
            view = client.get(f"/api/games/{played['id']}").json()
            assert view["result"]["termination"] is None  # played out by the rules
            assert view["clock"]["base"] == 20 and view["bots"] == [True, True]
            assert len(view["moves"]) > 10
        with pytest.raises(BridgeRefused, match="not a BOT"):
            with httpx.Client(base_url=address) as client:
                person = account(client, "Person")
            Bridge(address, person["Authorization"].split()[1], "random").start()


@pytest.mark.parametrize("args, code, says", [
    (["--server", "ftp://x"], 2, "http://"),
    (["--clock", "1.5+0", "--challenge", "Ada"], 2, "whole seconds"),
    (["--games", "0"], 2, "at least 1"),
    (["--at-once", "0"], 2, "at least 1"),
    (["--player", "nobody"], 1, "cannot reach"),  # the server first: nothing listens there
])
def test_the_bridge_command_names_bad_values(args, code, says):
    from typer.testing import CliRunner

    from mancalab.cli import app as cli

    base = ["bot", "--server", "http://127.0.0.1:9", "--token", "mcl_x"]
    result = CliRunner().invoke(cli, base + args)
    assert result.exit_code == code and says in result.output, result.output


def test_a_flooding_bot_is_limited_per_account_whatever_its_tokens(tmp_path):
    from mancalab.web.thinking import Limits

    app = create_app(tmp_path / "games.sqlite3", Limits(create_rate="4/minute",
                                                          account_rate="100/hour"))
    with TestClient(app) as ada, TestClient(app) as bot:
        account(ada, "Ada")
        first = account(bot, "Stonebot", bot=True)
        second = {"Authorization": "Bearer " + bot.post("/api/tokens", json={}).json()["token"]}
        answers = [bot.post("/api/bot/seek", headers=header, json={"game": "kalah"})
                   for header in (first, second) * 3]
        codes = [a.json().get("code") for a in answers]
        assert "too_many" in codes[4:]  # the account's allowance, its two tokens together


def test_a_bot_aborts_before_both_moved(app):
    with TestClient(app) as ada, TestClient(app) as bot:
        account(ada, "Ada")
        header = account(bot, "Stonebot", bot=True)
        seek = bot.post("/api/bot/seek", headers=header, json={"game": "oware",
                                                               "color": "second"}).json()
        game_id = ada.post(f"/api/seeks/{seek['id']}/accept").json()["id"]
        assert bot.post(f"/api/bot/game/{game_id}/abort", headers=header).json() == {"ok": True}
        assert ada.get(f"/api/games/{game_id}").json()["result"]["termination"] == "abort"
        assert bot.post(f"/api/bot/game/{game_id}/resign", headers=header).status_code == 409


def test_the_bridge_sends_again_a_move_whose_sending_failed(tmp_path):
    """A move the bridge could not send (the server too slow to answer, a dropped
    connection) is chosen and sent again once the game is followed again, with its ply, so
    that a move which did arrive is not played twice. And a bot's streams, which never end
    by themselves, do not hold the server's stop beyond ``stop_seconds`` (a test server's:
    1 s, ``serving``)."""
    import threading
    import time

    from mancalab.web.bridge import BridgeError

    class Flaky(Bridge):
        failed = 0

        def call(self, method, path, body=None):
            if "/move/" in path and not self.failed:
                self.failed += 1
                raise BridgeError("the server took too long")
            return super().call(method, path, body)

    with serving(tmp_path / "games.sqlite3") as address, \
            httpx.Client(base_url=address) as ada, httpx.Client(base_url=address) as bot:
        account(ada, "Ada")
        header = account(bot, "Stonebot", bot=True)
        bridge = Flaky(address, header["Authorization"].split()[1], "random", log=print)
        threading.Thread(target=bridge.run, daemon=True).start()
        made = ada.post("/api/seeks", json={"game": "kalah", "to": "Stonebot",
                                            "color": "second"}).json()
        deadline = time.monotonic() + 30
        seek = f"/api/seeks/{made['id']}?secret={made['secret']}"
        while not (view := ada.get(seek).json()).get("game_id"):
            assert time.monotonic() < deadline, view
            time.sleep(0.1)
        game_id = view["game_id"]
        while not ada.get(f"/api/games/{game_id}").json()["moves"]:
            assert time.monotonic() < deadline, "the bot's move never came"
            time.sleep(0.1)
        assert bridge.failed == 1 and ada.get(f"/api/games/{game_id}").json()["ply"] >= 1
        stopping = time.monotonic()  # the bridge's streams still open
    assert time.monotonic() - stopping < 5  # the server stopped (it waited 10 s, then gave up)
    bridge.stop()
