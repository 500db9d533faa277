"""Accounts, the lobby and ratings through the API: two players make accounts, meet in the
lobby, play a rated game to its end and see their new ratings; every bad request refused."""

import pytest
from fastapi.testclient import TestClient

from mancalab.analysis.compete.glicko import Rating, after_game
from mancalab.web import create_app
from mancalab.web.routes.accounts import COOKIE


pytestmark = pytest.mark.both_stores  # online play: on SQLite and on PostgreSQL


@pytest.fixture
def app(db):
    return create_app(db)


def sign_up(client, name, password="a good password"):
    made = client.post("/api/accounts", json={"name": name, "password": password})
    assert made.status_code == 201, made.text
    return made


def test_accounts_sessions_and_their_refusals(app):
    with TestClient(app) as ada:
        made = sign_up(ada, "Ada")
        assert COOKIE in made.cookies and "httponly" in made.headers["set-cookie"].lower()
        assert ada.get("/api/session").json() == {"name": "Ada"}
        refused = [
            (ada.post("/api/accounts", json={"name": "ada", "password": "another one"}), 409),
            (ada.post("/api/accounts", json={"name": "Cy", "password": "short"}), 400),
            (ada.post("/api/accounts", json={"name": "Computer", "password": "long enough"}),
             400),
            (ada.post("/api/accounts", json={"name": "x\ny", "password": "long enough"}), 400),
            (ada.post("/api/session", json={"name": "Ada", "password": "wrong password"}), 401),
            (ada.post("/api/session", json={"name": "Nobody", "password": "wrong password"}),
             401),
            (ada.post("/api/session/password", json={"old": "a good password", "new": "new one!"},
                      headers={"Origin": "http://evil.example"}), 403),
            (ada.post("/api/session/password", json={"old": "not it at all", "new": "new one!"}),
             401),
        ]
        assert [r.status_code for r, _ in refused] == [code for _, code in refused]
        assert ada.post("/api/session/password", json={"old": "a good password",
                                                       "new": "a better password"}).status_code \
            == 200
        assert ada.delete("/api/session").json() == {"name": None}
        assert ada.get("/api/session").json() == {"name": None}
        assert ada.post("/api/session", json={"name": "ADA",
                                              "password": "a better password"}).json() == \
            {"name": "Ada"}
        assert ada.post("/api/accounts/delete", json={"password": "nope nope"}).status_code == 401
        assert ada.post("/api/accounts/delete",
                        json={"password": "a better password"}).json() == {"deleted": "Ada"}
        assert ada.get("/api/players/Ada").status_code == 404
        assert ada.get("/api/session").json() == {"name": None}


@pytest.mark.parametrize("name", [
    "C\u043emputer",  # a Cyrillic o
    "\u2102omputer",  # a double-struck C
    "COMPUTER", "Guest 0042", "guest42", "G\u03c5est 7",  # a Greek upsilon
    "Expert", "\u3164\u3164",  # two Hangul fillers
    "\u2800", "Ada\u200bBekele",  # a blank Braille pattern, a zero-width space
    "e" + "\u0301" * 3,  # three combining marks on one letter
    "Abebe \u0411\u0438\u043a\u0438\u043b\u0430",  # Latin and Cyrillic
    "!!!",
])
def test_names_that_look_like_others_or_nothing_are_refused(app, name):
    """Issue 82: "Cоmputer" with a Cyrillic о, "Guest 0042", two U+3164, U+2800 and 39
    combining marks were accepted as names."""
    with TestClient(app) as visitor:
        made = visitor.post("/api/accounts", json={"name": name, "password": "a good password"})
        assert made.status_code == 400, made.text


def test_names_are_one_account_whatever_their_case_or_look_alikes(tmp_path):
    from mancalab.web.thinking import Limits

    app = create_app(tmp_path / "games.sqlite3", Limits(account_rate="100/hour"))
    with TestClient(app) as visitor:
        for name in ("Ṭäẞ", "ጌታቸው", "Абебе", "José", "Ama Serwaa", "山田花子"):
            sign_up(TestClient(app), name)
        taken = [("ṭÄSS", 409), ("ṬÄẞ", 409), ("\u0410\u0431\u0435\u0431\u0435", 409),
                 ("Jose\u0301", 409), ("ama serwaa", 409), ("AmaSerwaa", 409)]
        for name, status in taken:
            made = visitor.post("/api/accounts", json={"name": name,
                                                       "password": "a good password"})
            assert made.status_code == status, (name, made.text)
        logged = visitor.post("/api/session", json={"name": "JOSE\u0301",
                                                    "password": "a good password"})
        assert logged.json() == {"name": "José"}


@pytest.mark.parametrize("password", ["password", "12345678", "qwertyuiop", "iloveyou"])
def test_the_most_guessed_passwords_are_refused(app, password):
    with TestClient(app) as visitor:
        made = visitor.post("/api/accounts", json={"name": "Kofi", "password": password})
        assert made.status_code == 400 and "guesser" in made.json()["detail"]
        made = visitor.post("/api/accounts", json={"name": "Kofi", "password": "Kofi" * 3})
        assert made.status_code == 400  # the name itself


def test_a_deleted_account_resigns_its_games_and_its_name_is_not_given_again(app):
    """Issue 82: a loser who deleted the account denied the winner the rating change, and a
    new account of the same name inherited the old one's arena seat and results."""
    with TestClient(app) as ada, TestClient(app) as bob:
        game, adas, bobs = _both_moved(ada, bob)
        assert bob.post("/api/accounts/delete",
                        json={"password": "a good password"}).status_code == 200
        view = ada.get(f"/api/games/{game['id']}").json()
        assert view["result"]["termination"] == "resign" and view["result"]["winner"] == 0
        assert ada.get("/api/players/Ada").json()["ratings"]["kalah"]["games"] == 1
        again = TestClient(app).post("/api/accounts", json={"name": "bob",
                                                             "password": "a good password"})
        assert again.status_code == 409


def test_two_players_meet_in_the_lobby_play_rated_and_are_rated(app):
    import time

    with TestClient(app) as ada:
        bob, guest = TestClient(app), TestClient(app)
        sign_up(ada, "Ada")
        sign_up(bob, "Bob")
        assert guest.post("/api/seeks", json={"game": "oware", "rated": True}).status_code == 403
        assert ada.post("/api/seeks", json={"game": "oware", "clock": {"base": -5}}
                        ).status_code == 422
        assert ada.post("/api/seeks", json={"game": "chess"}).status_code == 422
        opened = ada.post("/api/seeks", json={"game": "oware", "rated": True, "color": "first"})
        assert opened.status_code == 201, opened.text
        seek = opened.json()
        assert [s["by"] for s in guest.get("/api/seeks").json()["seeks"]] == ["Ada"]
        assert ada.post(f"/api/seeks/{seek['id']}/accept").status_code == 409  # her own
        assert guest.post(f"/api/seeks/{seek['id']}/accept").status_code == 403  # rated
        taken = bob.post(f"/api/seeks/{seek['id']}/accept")
        assert taken.status_code == 201, taken.text
        game = taken.json()
        assert game["seat"] == 1 and game["state"]["names"] == ["Ada", "Bob"]
        assert game["state"]["rated"] and "links" not in game
        assert bob.post(f"/api/seeks/{seek['id']}/accept").status_code == 409  # taken
        assert guest.get("/api/seeks").json()["seeks"] == []
        mine = ada.get(f"/api/seeks/{seek['id']}", params={"secret": seek["secret"]}).json()
        assert mine["game_id"] == game["id"] and mine["token"] != game["token"]
        assert "token" not in guest.get(f"/api/seeks/{seek['id']}").json()
        moved = ada.post(f"/api/games/{game['id']}/moves", json={"token": mine["token"],
                                                                 "move": 3})
        assert moved.status_code == 200
        assert ada.post(f"/api/games/{game['id']}/undo",
                        json={"token": mine["token"]}).status_code == 409  # rated: none
        assert bob.post(f"/api/games/{game['id']}/moves", json={"token": game["token"],
                                                                "move": 9}).status_code == 200
        assert guest.post(f"/api/games/{game['id']}/resign", json={}).status_code == 403
        resigned_at = time.time()
        ended = ada.post(f"/api/games/{game['id']}/resign", json={"token": mine["token"]})
        assert ended.json()["result"]["termination"] == "resign"
        assert abs(ended.json()["result"]["ended_at"] - resigned_at) < 1
        assert ended.json()["result"]["winner"] == 1
        assert bob.post(f"/api/games/{game['id']}/moves", json={"token": game["token"],
                                                                "move": 9}).status_code == 409
        expected = after_game(Rating(), Rating(), 0)
        profile = guest.get("/api/players/bob").json()
        assert profile["name"] == "Bob"
        assert profile["ratings"]["oware"]["rating"] == round(expected[1].rating, 1)
        assert profile["ratings"]["oware"]["games"] == 1
        assert profile["ratings"]["oware"]["provisional"] is True
        assert profile["recent"][0]["id"] == game["id"] and profile["recent"][0]["score"] == 1
        ada_rating = guest.get("/api/players/Ada").json()["ratings"]["oware"]["rating"]
        assert ada_rating == round(expected[0].rating, 1) < 1500
        record = guest.get(f"/api/games/{game['id']}/record").text
        assert '[Termination "resign"]' in record and '[Result "B"]' in record


def test_a_visitor_cannot_fill_the_lobby(app):
    with TestClient(app) as visitor:
        for _ in range(3):
            assert visitor.post("/api/seeks", json={"game": "kalah"}).status_code == 201
        assert visitor.post("/api/seeks", json={"game": "kalah"}).status_code == 429
        first = visitor.get("/api/seeks").json()["seeks"][0]["id"]
        assert visitor.delete(f"/api/seeks/{first}").status_code == 403  # no secret


def test_taken_seeks_leave_the_lobby_and_its_bounds(monkeypatch, db):
    """Issue 82: 500 seek+accept pairs filled the lobby with taken seeks, and every new seek
    got 429. A taken seek now leaves the lobby at once; its seeker learns the game for a
    minute."""
    from mancalab.web import lobby
    from mancalab.web.store import Store
    from mancalab.web.thinking import Limits

    hall = lobby.Lobby(Limits(seeks=5, client_seeks=3), Store(db))
    for i in range(20):  # from 20 addresses, each seek taken at once
        seek = hall.add(lobby.Seek(f"s{i}", "kalah", {}, False, "random", f"Guest {i}", None,
                                   f"127.0.0.{i}"))
        hall.check_taker(seek, None)
        hall.take(seek, f"game{i}", "token")
    assert hall.open() == []
    assert hall.add(lobby.Seek("new", "kalah", {}, False, "random", "Guest", None, "x"))
    assert hall.get("s19").game_id == "game19"  # the seeker learns the game
    with pytest.raises(lobby.ConflictError):  # once: a second taker is refused
        hall.take(hall.get("s19"), "another", "token")
    later = lobby.time.time() + lobby.TAKEN_SECONDS + 1
    monkeypatch.setattr(lobby.time, "time", lambda: later)
    hall.sweep()
    with pytest.raises(lobby.NotFoundError):
        hall.get("s19")
    assert [s.id for s in hall.open()] == ["new"]


def _rated_game(seeker, taker, clock=None):
    """A rated Kalah game from a seek of ``seeker`` taken by ``taker``: (game, seeker's
    token, taker's token); the seeker moves first."""
    body = {"game": "kalah", "rated": True, "color": "first"}
    if clock:
        body["clock"] = clock
    seek = seeker.post("/api/seeks", json=body).json()
    game = taker.post(f"/api/seeks/{seek['id']}/accept").json()
    mine = seeker.get(f"/api/seeks/{seek['id']}", params={"secret": seek["secret"]}).json()
    return game, mine["token"], game["token"]


def _both_moved(ada, bob, clock=None):
    """Ada and Bob sign up and start a rated Kalah game (Ada first), each making a move:
    (game, Ada's token, Bob's token)."""
    sign_up(ada, "Ada")
    sign_up(bob, "Bob")
    game, adas, bobs = _rated_game(ada, bob, clock)
    for token, move in ((adas, 0), (bobs, 7)):
        ada.post(f"/api/games/{game['id']}/moves", json={"token": token, "move": move})
    return game, adas, bobs


def test_games_ended_before_both_moved_are_not_rated_and_may_be_aborted(app):
    """Issue 82: 15 rated games resigned at once by a second account took a rating from 1500
    to 1870. A game ended before both players moved is not rated; either player may abort it
    (no result), and not once both have moved."""
    with TestClient(app) as ada, TestClient(app) as bob:
        sign_up(ada, "Ada")
        sign_up(bob, "Bob")
        for _ in range(3):
            game, _, bobs = _rated_game(ada, bob)
            assert game["state"]["abortable"] and game["state"]["first_move_by"] is not None
            ended = bob.post(f"/api/games/{game['id']}/resign", json={"token": bobs}).json()
            assert ended["result"]["winner"] == 0
        assert ada.get("/api/players/Ada").json()["ratings"] == {}  # not rated
        game, adas, bobs = _rated_game(ada, bob)
        assert ada.post(f"/api/games/{game['id']}/moves", json={"token": adas,
                                                               "move": 0}).status_code == 200
        assert bob.post(f"/api/games/{game['id']}/abort", json={}).status_code == 403
        aborted = bob.post(f"/api/games/{game['id']}/abort", json={"token": bobs}).json()
        assert aborted["result"]["termination"] == "abort" and aborted["result"]["winner"] \
            is None and aborted["result"]["aborted_by"] == 1
        assert '[Termination "abort"]' in bob.get(f"/api/games/{game['id']}/record").text
        game, adas, bobs = _rated_game(ada, bob)
        for token, move in ((adas, 0), (bobs, 7)):
            assert ada.post(f"/api/games/{game['id']}/moves",
                            json={"token": token, "move": move}).status_code == 200
        assert not ada.get(f"/api/games/{game['id']}").json()["abortable"]
        assert ada.post(f"/api/games/{game['id']}/abort",
                        json={"token": adas}).json()["code"] == "no_abort"
        bob.post(f"/api/games/{game['id']}/resign", json={"token": bobs})
        assert ada.get("/api/players/Ada").json()["ratings"]["kalah"]["games"] == 1


def test_a_first_move_not_made_in_time_aborts_the_game(app, monkeypatch):
    """Issue 82: a game whose first player never moved lasted for ever (and held an arena).
    On a clock the first move comes within 30 s (each player's first), or the game is
    aborted by the server, with nobody sending anything."""
    import time

    from mancalab.web import rooms

    monkeypatch.setattr(rooms, "FIRST_MOVE_SECONDS", 1.5)
    with TestClient(app) as ada, TestClient(app) as bob:
        sign_up(ada, "Ada")
        sign_up(bob, "Bob")
        game, adas, bobs = _rated_game(ada, bob, {"base": 180, "increment": 2})
        time.sleep(1.0)
        assert ada.post(f"/api/games/{game['id']}/moves", json={"token": adas,
                                                               "move": 0}).status_code == 200
        time.sleep(1.0)  # Ada's move gave Bob his own 1.5 s
        assert ada.get(f"/api/games/{game['id']}").json()["result"] is None
        deadline = time.time() + 5
        while time.time() < deadline:
            view = ada.get(f"/api/games/{game['id']}").json()
            if view["result"]:
                break
            time.sleep(0.05)
        assert view["result"]["termination"] == "abort" and view["result"]["aborted_by"] is None
        assert view["clock"]["running"] is None and ada.get("/api/players/Bob").json()[
            "ratings"] == {}


def test_password_hashing_has_its_own_bounded_queue():
    """Issue 82: 10 addresses x 20 wrong log-ins queued Argon2 work without bound in the
    pool shared with record loading (a real log-in took 32-68 s). Hashing now has its own
    threads, one waiting hash a client, a bounded queue (429 beyond), and a hash whose client
    left is not computed."""
    import asyncio
    import threading

    from mancalab.web.accounts import ClientGone, Hashing
    from mancalab.web.errors import BusyError

    release, done = threading.Event(), []

    def slow(name):
        release.wait(5)
        done.append(name)
        return name

    async def never_gone():
        await asyncio.sleep(3600)

    async def left():
        return {"type": "http.disconnect"}

    async def flood():
        hashing = Hashing(queue=3, per_client=1)
        first = asyncio.ensure_future(hashing.run("a", never_gone, slow, "a1"))
        await asyncio.sleep(0.05)
        with pytest.raises(BusyError, match="being checked already"):
            await hashing.run("a", never_gone, slow, "a2")
        second = asyncio.ensure_future(hashing.run("b", never_gone, slow, "b1"))
        third = asyncio.ensure_future(hashing.run("c", left, slow, "c1"))  # will have left
        await asyncio.sleep(0.05)
        with pytest.raises(BusyError, match="many passwords"):
            await hashing.run("d", never_gone, slow, "d1")
        release.set()
        assert await first == "a1" and await second == "b1"
        with pytest.raises(ClientGone):
            await third
        assert "c1" not in done and await hashing.run("d", never_gone, slow, "d1") == "d1"

    asyncio.run(flood())


def test_friends_games_are_not_listed_to_watch(app):
    """Issue 83: private friend games appeared in the public "being played now" list, with
    names. Only games from the lobby and arenas are listed."""
    with TestClient(app) as ada, TestClient(app) as bob:
        friends = ada.post("/api/games", json={"game": "kalah", "mode": "online",
                                                "names": ["Mum", "Dad"]}).json()
        ada.post(f"/api/games/{friends['id']}/moves", json={"token": friends["token"],
                                                            "move": 0})
        seek = ada.post("/api/seeks", json={"game": "kalah", "color": "first"}).json()
        public = bob.post(f"/api/seeks/{seek['id']}/accept").json()
        mine = ada.get(f"/api/seeks/{seek['id']}", params={"secret": seek["secret"]}).json()
        ada.post(f"/api/games/{public['id']}/moves", json={"token": mine["token"], "move": 0})
        assert [game["id"] for game in bob.get("/api/live").json()["games"]] == [public["id"]]


def test_a_rematch_keeps_the_terms_and_may_be_declined(app):
    """Issue 83: a rematch of a rated 3+2 game was casual and had no clock, and the other
    player could only ignore it. It keeps the clock and the rating, the seats swapped, and
    the other player is offered it and may decline (its game is then aborted)."""
    with TestClient(app) as ada, TestClient(app) as bob:
        game, adas, bobs = _both_moved(ada, bob, {"base": 180, "increment": 2})
        ada.post(f"/api/games/{game['id']}/resign", json={"token": adas})
        again = ada.post(f"/api/games/{game['id']}/rematch", json={"token": adas}).json()
        state = again["state"]
        assert state["rated"] and state["names"] == ["Bob", "Ada"] and \
            state["accounts"] == ["Bob", "Ada"]
        assert state["clock"]["base"] == 180 and state["clock"]["increment"] == 2
        offered = bob.get(f"/api/games/{game['id']}", params={"token": bobs}).json()["rematch"]
        assert offered["by"] == 0 and offered["id"] == again["id"] and not offered["declined"]
        assert ada.post(f"/api/games/{game['id']}/rematch/decline",
                        json={"token": adas}).status_code == 409  # she asked
        bob.post(f"/api/games/{game['id']}/rematch/decline", json={"token": bobs})
        seen = ada.get(f"/api/games/{game['id']}", params={"token": adas}).json()["rematch"]
        assert seen["declined"]
        ended = ada.get(f"/api/games/{again['id']}").json()["result"]
        assert ended["termination"] == "abort" and ended["aborted_by"] == 0  # Bob's seat


def test_a_guests_seeks_and_seats_follow_the_guest_cookie(app):
    """A guest's seek outlives the page that made it: another page of the same browser (the
    guest cookie) lists it, and learns its game once taken; another browser does not. Both
    guests' seats are their cookies': listed, and reached without a token."""
    with TestClient(app) as page, TestClient(app) as stranger:
        made = page.post("/api/seeks", json={"game": "kalah"}).json()
        assert "mancalab_guest" in page.cookies
        again = TestClient(app, cookies={"mancalab_guest": page.cookies["mancalab_guest"]})
        listed = again.get("/api/session/seeks").json()["seeks"]
        assert [(s["id"], s["secret"]) for s in listed] == [(made["id"], made["secret"])]
        assert stranger.get("/api/session/seeks").json() == {"seeks": []}
        game = stranger.post(f"/api/seeks/{made['id']}/accept").json()
        taken = again.get("/api/session/seeks").json()["seeks"]
        assert taken[0]["game_id"] == game["id"] and taken[0]["token"]
        assert again.get("/api/session/seeks").json() == {"seeks": []}  # told once
        # and the seats: each guest's game is listed, its seat reached without a token
        mine = again.get("/api/session/games").json()["games"]
        assert [(g["id"], g["token"]) for g in mine] == [(game["id"], taken[0]["token"])]
        assert again.get(f"/api/games/{game['id']}/seat").json()["token"] == \
            taken[0]["token"]
        assert stranger.get(f"/api/games/{game['id']}/seat").json() == {
            "seat": game["seat"], "token": game["token"]}
        assert TestClient(app).get(f"/api/games/{game['id']}/seat").status_code == 401


def test_seats_and_seeks_belong_to_the_account_on_every_device(app):
    """Issue 84: a seek lived in the seeking tab's memory and a seat in the browser that took
    it. The account's seeks and seats are reachable from any of its sessions."""
    with TestClient(app) as phone, TestClient(app) as laptop, TestClient(app) as bob, \
            TestClient(app) as guest:
        sign_up(phone, "Ada")
        laptop.post("/api/session", json={"name": "Ada", "password": "a good password"})
        sign_up(bob, "Bob")
        made = phone.post("/api/seeks", json={"game": "kalah", "color": "first"}).json()
        mine = laptop.get("/api/session/seeks").json()["seeks"]
        assert [(s["id"], s["secret"], s["game_id"]) for s in mine] == [
            (made["id"], made["secret"], None)]
        assert laptop.delete(f"/api/seeks/{made['id']}", params={
            "secret": mine[0]["secret"]}).status_code == 200  # cancelled on the other device
        made = phone.post("/api/seeks", json={"game": "kalah", "color": "first"}).json()
        game = bob.post(f"/api/seeks/{made['id']}/accept").json()
        taken = laptop.get("/api/session/seeks").json()["seeks"][0]
        assert taken["game_id"] == game["id"]
        assert phone.get("/api/session/seeks").json()["seeks"] == []  # given to one page
        seat = laptop.get(f"/api/games/{game['id']}/seat").json()
        assert seat == {"seat": 0, "token": taken["token"]}
        assert laptop.post(f"/api/games/{game['id']}/moves", json={
            "token": seat["token"], "move": 0}).status_code == 200
        assert laptop.get("/api/session/games").json()["games"] == [
            {"id": game["id"], "seat": 0, "token": seat["token"]}]
        assert bob.get(f"/api/games/{game['id']}/seat").json()["seat"] == 1
        assert guest.get(f"/api/games/{game['id']}/seat").status_code == 401
        sign_up(guest, "Cy")
        assert guest.get(f"/api/games/{game['id']}/seat").json()["code"] == "no_seat_here"


def test_a_challenge_is_for_one_player_who_takes_it_or_declines_it(app):
    """Issue 83: there was no way to play a particular person on a clock or rated. A
    challenge is a seek for one account: only that player sees it and may take it, or
    declines it saying why, and the challenger is told."""
    with TestClient(app) as ada, TestClient(app) as bob, TestClient(app) as cy:
        for client, name in ((ada, "Ada"), (bob, "Bob"), (cy, "Cy")):
            sign_up(client, name)
        terms = {"game": "oware", "rated": True, "color": "second",
                 "clock": {"base": 300, "increment": 3}}
        refused = [ada.post("/api/seeks", json={**terms, "to": "Nobody"}).json()["code"],
                   ada.post("/api/seeks", json={**terms, "to": "ada"}).json()["code"],
                   TestClient(app).post("/api/seeks", json={"game": "oware", "to": "Bob"}
                                        ).status_code]
        assert refused == ["no_player", "own_seek", 401]
        made = ada.post("/api/seeks", json={**terms, "to": "bob"}).json()
        assert made["seek"]["to"] == "Bob"
        assert cy.get("/api/seeks").json()["seeks"] == []  # not in the lobby
        assert cy.get("/api/session/challenges").json()["challenges"] == []
        assert cy.post(f"/api/seeks/{made['id']}/accept").json()["code"] == "not_for_you"
        mine = bob.get("/api/session/challenges").json()["challenges"]
        assert [c["by"] for c in mine] == ["Ada"] and mine[0]["clock"]["base"] == 300
        assert bob.post(f"/api/seeks/{made['id']}/decline", json={"reason": "later"}
                        ).json() == {"declined": made["id"], "reason": "later"}
        told = ada.get("/api/session/seeks").json()["seeks"]
        assert [(s["to"], s["declined"]) for s in told] == [("Bob", "later")]
        again = ada.post("/api/seeks", json={**terms, "to": "Bob"}).json()
        game = bob.post(f"/api/seeks/{again['id']}/accept").json()
        state = game["state"]
        assert state["rated"] and state["names"] == ["Bob", "Ada"] and \
            state["clock"]["increment"] == 3 and game["seat"] == 0


def test_a_player_who_left_a_game_on_the_clock_loses_when_the_other_claims(app,
                                                                            monkeypatch):
    """Issue 83: no claim-victory when the opponent has left a clocked game. Once both have
    moved, a seat with no page open for CLAIM_SECONDS may be claimed as a win (rated)."""
    import time

    from mancalab.web import rooms

    with TestClient(app) as ada, TestClient(app) as bob:
        game, adas, bobs = _both_moved(ada, bob, {"base": 180, "increment": 2})
        with bob.websocket_connect(f"/api/games/{game['id']}/ws?token={bobs}") as socket:
            socket.receive_json()
        early = ada.post(f"/api/games/{game['id']}/claim", json={"token": adas}).json()
        assert early["code"] == "claim_early" and early["values"]["name"] == "Bob"
        monkeypatch.setattr(rooms, "CLAIM_SECONDS", 0.2)
        time.sleep(0.3)
        assert bob.post(f"/api/games/{game['id']}/claim", json={"token": bobs}).json()[
            "code"] == "claim_early"  # Ada never left: she cannot be claimed against
        won = ada.post(f"/api/games/{game['id']}/claim", json={"token": adas}).json()
        assert won["result"]["termination"] == "abandon" and won["result"]["winner"] == 0
        assert '[Termination "abandon"]' in ada.get(f"/api/games/{game['id']}/record").text
        assert ada.get("/api/players/Ada").json()["ratings"]["kalah"]["games"] == 1


def test_a_draw_is_offered_declined_and_agreed(app):
    """Issue 83: no draw offer. Once both have moved, either player offers a draw; the other
    accepts (a drawn game, rated as a draw) or declines, and a move of the other player's
    passes it over."""
    with TestClient(app) as ada, TestClient(app) as bob:
        game, adas, bobs = _both_moved(ada, bob, {"base": 180, "increment": 2})
        url = f"/api/games/{game['id']}"
        assert ada.post(f"{url}/draw", json={"token": adas}).json()["draw_request"] == 0
        declined = bob.post(f"{url}/decline", json={"token": bobs}).json()
        assert declined["draw_request"] is None and declined["declined"]["kind"] == "draw"
        ada.post(f"{url}/draw", json={"token": adas})
        assert ada.post(f"{url}/moves", json={"token": adas, "move": 2}).json()[
            "draw_request"] == 0  # her own move keeps her offer
        assert bob.post(f"{url}/moves", json={"token": bobs, "move": 8}).json()[
            "draw_request"] is None  # his move passes it over
        ada.post(f"{url}/draw", json={"token": adas})
        drawn = bob.post(f"{url}/draw", json={"token": bobs}).json()
        assert drawn["result"]["termination"] == "draw" and drawn["result"]["winner"] is None
        record = ada.get(f"{url}/record").text
        assert '[Termination "draw"]' in record and '[Result "D"]' in record
        rating = ada.get("/api/players/Ada").json()["ratings"]["kalah"]
        assert rating["games"] == 1 and rating["rating"] == 1500.0
        again, adas2, _ = _rated_game(ada, bob)
        assert ada.post(f"/api/games/{again['id']}/draw", json={"token": adas2}).json()[
            "code"] == "no_draw"  # before both have moved


def test_the_clock_charges_moves_adds_increments_and_flags():
    from mancalab.web.clocks import Clock

    clock = Clock(10, 2)
    assert clock.moved(0, 1, now=100.0)  # the first move is not timed
    assert clock.left(1, now=104.0) == 6 and clock.deadline() == 110.0
    assert clock.moved(1, 0, now=104.0) and clock.remaining == [10, 8]
    assert not clock.moved(0, 1, now=115.0)  # A's time ran out at 114: nothing changes
    assert clock.running == 0 and clock.flag() == 0 and clock.ended_at == 114.0
    assert clock.view(now=200.0)["remaining"] == [0.0, 8.0]


def clocked_game(ada, bob, base, rated=True):
    seek = ada.post("/api/seeks", json={"game": "kalah", "rated": rated, "color": "first",
                                        "clock": {"base": base, "increment": 0}}).json()
    game = bob.post(f"/api/seeks/{seek['id']}/accept").json()
    mine = ada.get(f"/api/seeks/{seek['id']}", params={"secret": seek["secret"]}).json()
    moved = ada.post(f"/api/games/{game['id']}/moves", json={"token": mine["token"],
                                                             "move": 0})  # untimed
    assert moved.status_code == 200, moved.text
    # Bob's token sent through Ada's client, whose event loop lasts (the clock's timer runs
    # on the loop of the request that starts it)
    replied = ada.post(f"/api/games/{game['id']}/moves", json={"token": game["token"],
                                                               "move": 7})  # Ada's time runs
    assert replied.status_code == 200, replied.text
    return game, mine["token"]


def test_a_player_loses_on_time_while_nobody_sends_anything(app):
    import time

    with TestClient(app) as ada:
        bob = TestClient(app)
        sign_up(ada, "Ada")
        sign_up(bob, "Bob")
        game, _ = clocked_game(ada, bob, base=3)  # room for a busy machine between the moves
        view = bob.get(f"/api/games/{game['id']}").json()
        deadline = time.time() + view["clock"]["remaining"][0]
        assert view["clock"]["running"] == 0 and 0 < view["clock"]["remaining"][0] <= 3
        time.sleep(max(0.0, deadline - time.time()) + 0.5)
        over = bob.get(f"/api/games/{game['id']}").json()
        assert over["result"]["termination"] == "time" and over["result"]["winner"] == 1
        assert over["clock"]["flagged"] == 0 and over["clock"]["remaining"][0] == 0
        assert abs(over["clock"]["ended_at"] - deadline) < 0.25  # when time ran out
        assert over["result"]["ended_at"] == over["clock"]["ended_at"]
        assert bob.post(f"/api/games/{game['id']}/moves", json={"token": game["token"],
                                                                "move": 9}).status_code == 409
        assert ada.get("/api/players/Ada").json()["ratings"]["kalah"]["games"] == 1


def test_a_clock_that_ran_out_while_the_server_was_down_ends_when_it_ran_out(tmp_path):
    import time

    db = tmp_path / "games.sqlite3"
    with TestClient(create_app(db)) as ada:
        bob = TestClient(ada.app)
        sign_up(ada, "Ada")
        sign_up(bob, "Bob")
        game, _ = clocked_game(ada, bob, base=3, rated=False)
        deadline = bob.get(f"/api/games/{game['id']}").json()["clock"]["remaining"][0] + \
            time.time()
    time.sleep(max(0.0, deadline - time.time()) + 0.5)  # the server is stopped meanwhile
    with TestClient(create_app(db)) as again:
        time.sleep(0.2)
        over = again.get(f"/api/games/{game['id']}").json()
        assert over["result"]["termination"] == "time"
        assert abs(over["clock"]["ended_at"] - deadline) < 0.2


def test_an_arena_of_four_runs_to_its_end_with_correct_standings(app):
    with TestClient(app) as first:
        assert TestClient(app).post("/api/arenas", json={
            "game": "kalah", "clock": {"base": 60}, "seconds": 3}).status_code == 401
        play_an_arena_of_four([first] + [TestClient(app) for _ in range(3)])


def play_an_arena_of_four(clients):
    """Four players (``clients``, the first opening the arena) join a short arena and are
    paired again after every game; in each game the player whose name comes later resigns.
    The standings are the tally of those games."""
    import time

    first = clients[0]
    names = ["Abena", "Kojo", "Esi", "Yaw"]
    for client, name in zip(clients, names):
        sign_up(client, name)
    arena = first.post("/api/arenas", json={"game": "kalah", "clock": {"base": 60},
                                            "seconds": 3}).json()
    for client in clients:
        assert client.post(f"/api/arenas/{arena['id']}/join").status_code == 200
    tally, seen = {name: 0 for name in names}, set()
    deadline = time.time() + 30
    while time.time() < deadline:
        view = first.get(f"/api/arenas/{arena['id']}").json()
        if view["finished"]:
            break
        for client, name in zip(clients, names):
            me = client.get(f"/api/arenas/{arena['id']}").json()["me"]
            if not me["game_id"] or me["game_id"] in seen:
                continue
            game = client.get(f"/api/games/{me['game_id']}").json()
            other = game["names"][1 - game["names"].index(name)]
            if name > other:  # the later name resigns
                client.post(f"/api/games/{me['game_id']}/resign", json={"token": me["token"]})
                seen.add(me["game_id"])
                tally[other] += 2
        time.sleep(0.05)
    view = first.get(f"/api/arenas/{arena['id']}").json()
    assert view["finished"] and view["games"] == len(seen) >= 2
    assert {row["name"]: row["points"] for row in view["standings"]} == tally
    assert [row["points"] for row in view["standings"]] == sorted(tally.values(),
                                                                  reverse=True)
    assert view["winner"] == "Abena"  # her name comes first: she won every game
    assert first.post(f"/api/arenas/{arena['id']}/join").status_code == 409  # over


def test_an_arena_whose_game_nobody_starts_still_ends_at_its_time(app, monkeypatch):
    """Issue 82: a paired game in which nobody moved kept its arena from finishing (19
    accounts held all 20 arena slots). The game is aborted when its first move does not
    come, the player who did not move is withdrawn, and the arena ends at its time."""
    import time

    from mancalab.web import rooms

    monkeypatch.setattr(rooms, "FIRST_MOVE_SECONDS", 0.3)
    with TestClient(app) as ama, TestClient(app) as kofi:
        sign_up(ama, "Ama")
        sign_up(kofi, "Kofi")
        arena = ama.post("/api/arenas", json={"game": "kalah", "clock": {"base": 60},
                                              "seconds": 2}).json()
        for client in (ama, kofi):
            assert client.post(f"/api/arenas/{arena['id']}/join").status_code == 200
        paired = ama.get(f"/api/arenas/{arena['id']}").json()
        assert paired["games"] == 1
        time.sleep(1.0)
        view = ama.get(f"/api/arenas/{arena['id']}").json()
        rows = {row["name"]: row for row in view["standings"]}
        assert [row["games"] for row in rows.values()] == [0, 0]  # counted for nobody
        assert sorted(row["present"] for row in rows.values()) == [False, True]
        assert ama.post("/api/arenas", json={"game": "kalah", "clock": {"base": 60},
                                             "seconds": 2}).status_code == 409  # hers runs
        time.sleep(1.2)
        view = ama.get(f"/api/arenas/{arena['id']}").json()
        assert view["finished"] and not view["running"]
        assert ama.post("/api/arenas", json={"game": "kalah", "clock": {"base": 60},
                                             "seconds": 2}).status_code == 201


def test_arena_pairings_keep_to_an_accounts_games_and_allowance(tmp_path):
    """Issue 82: arena games skipped every new-game allowance (530 games in 20 s) and one
    account sat in 18 arena games at once. Each pairing is charged to both accounts, and an
    account at its limit is withdrawn rather than paired."""
    from mancalab.web.thinking import Limits

    app = create_app(tmp_path / "games.sqlite3", Limits(client_games=1))
    with TestClient(app) as ama, TestClient(app) as kofi, TestClient(app) as esi:
        for client, name in ((ama, "Ama"), (kofi, "Kofi"), (esi, "Esi")):
            sign_up(client, name)
        arena = ama.post("/api/arenas", json={"game": "kalah", "clock": {"base": 60},
                                              "seconds": 60}).json()
        for client in (ama, kofi):
            client.post(f"/api/arenas/{arena['id']}/join")
        me = ama.get(f"/api/arenas/{arena['id']}").json()["me"]
        ama.post(f"/api/games/{me['game_id']}/resign", json={"token": me["token"]})
        esi.post(f"/api/arenas/{arena['id']}/join")  # Ama and Kofi have had their one game
        view = ama.get(f"/api/arenas/{arena['id']}").json()
        assert view["games"] == 1
        assert {row["name"]: row["present"] for row in view["standings"]} == {
            "Ama": False, "Kofi": False, "Esi": True}


def test_arena_pairings_keep_to_the_create_rate(tmp_path):
    """Issue 82: 530 arena games in 20 s from 2 addresses. An account is paired at most at
    the create rate, as the games a client makes."""
    from mancalab.web.thinking import Limits

    app = create_app(tmp_path / "games.sqlite3", Limits(create_rate="3/minute"))
    with TestClient(app) as ama, TestClient(app) as kofi:
        sign_up(ama, "Ama")
        sign_up(kofi, "Kofi")
        arena = ama.post("/api/arenas", json={"game": "kalah", "clock": {"base": 60},
                                              "seconds": 60}).json()
        for client in (ama, kofi):
            client.post(f"/api/arenas/{arena['id']}/join")
        for _ in range(5):
            me = ama.get(f"/api/arenas/{arena['id']}").json()["me"]
            if not me["game_id"]:
                break
            ama.post(f"/api/games/{me['game_id']}/resign", json={"token": me["token"]})
        view = ama.get(f"/api/arenas/{arena['id']}").json()
        assert view["games"] == 3 and not any(row["present"] for row in view["standings"])


def test_a_correspondence_clock_gives_each_move_its_days():
    from mancalab.web.clocks import Clock

    clock = Clock(86400, 0, per_move=True)
    clock.moved(0, 1, now=0.0)
    assert clock.moved(1, 0, now=80000.0) and clock.remaining == [86400, 86400]
    assert clock.deadline() == 80000.0 + 86400
    assert not clock.moved(0, 1, now=80000.0 + 86401)  # a day and a second: too late


def test_the_computer_thinks_within_its_clock(app):
    import time

    with TestClient(app) as person:
        # its first move ever also compiles and builds its solver (seconds on a cold cache):
        # that once, before the clock, so that the clock measures its thinking
        warm = person.post("/api/games", json={"game": "kalah", "mode": "local"}).json()
        assert person.post(f"/api/games/{warm['id']}/hint",
                           json={"token": warm["token"], "player": "hard"}).status_code == 200
        made = person.post("/api/games", json={"game": "kalah", "mode": "computer",
                                               "bot": "hard", "human_seat": 0,
                                               "clock": {"base": 10, "increment": 0}}).json()
        assert made["state"]["clock"]["remaining"] == [10, 10]
        person.post(f"/api/games/{made['id']}/moves", json={"token": made["token"], "move": 0})
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            view = person.get(f"/api/games/{made['id']}").json()
            if view["to_move"] == 0 and not view["thinking"]:
                break
            time.sleep(0.05)
        spent = 10 - view["clock"]["remaining"][1]
        # a fortieth of its time, and the hand-over (0.85 s once on a loaded machine, 1.3 s
        # once under CI's load); below the third of its clock a budget gone wrong would take
        assert 0 < spent < 10 / 40 + 2.0
        assert view["result"] is None
