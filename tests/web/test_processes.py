"""Several server processes on one PostgreSQL database serve one world: a game's two seats
on two processes, a seek made on one and taken on another, a flag that falls once, and a
process killed with ``kill -9`` mid-game losing nothing it acknowledged."""

import json
import os
import signal
import subprocess
import sys
import time

import httpx2 as httpx
import pytest
from fastapi.testclient import TestClient

from mancalab.web import create_app
from mancalab.web.thinking import Limits

from .conftest import free_port

LIMITS = dict(create_rate="1000/minute", account_rate="1000/hour", login_rate="1000/minute",
              move_rate="10000/second")


def until(check, seconds=5.0):
    """Poll ``check`` until it answers something true (what it answered), or fail."""
    deadline = time.monotonic() + seconds
    while True:
        found = check()
        if found:
            return found
        assert time.monotonic() < deadline, "not seen in time"
        time.sleep(0.02)


def sign_up(client, name):
    made = client.post("/api/accounts", json={"name": name, "password": "a good password"})
    assert made.status_code == 201, made.text


def meet(ada, bob, **seek):
    """Ada seeks on her process, Bob takes the seek on his: (game id, Ada's token, Bob's
    token), Ada moving first."""
    made = ada.post("/api/seeks", json={"game": "kalah", "color": "first", **seek})
    assert made.status_code == 201, made.text
    made = made.json()
    assert until(lambda: [s["id"] for s in bob.get("/api/seeks").json()["seeks"]]) == \
        [made["id"]]  # the lobby is one: Bob's process lists Ada's seek
    taken = bob.post(f"/api/seeks/{made['id']}/accept")
    assert taken.status_code == 201, taken.text
    mine = ada.get(f"/api/seeks/{made['id']}", params={"secret": made["secret"]}).json()
    return taken.json()["id"], mine["token"], taken.json()["token"]


def state(client, game_id, token=None):
    return client.get(f"/api/games/{game_id}", params={"token": token} if token else {}).json()


def test_two_processes_serve_one_game_its_seek_and_its_watchers(postgres_schema):
    """Ada on process A, Bob on process B: the seek made on A is taken on B, each sees the
    other's moves at once (B's websocket is told of A's move), a stale move is refused and
    loses nothing."""
    one, two = (create_app(postgres_schema, Limits(**LIMITS)) for _ in range(2))
    with TestClient(one) as ada, TestClient(two) as bob:
        sign_up(ada, "Ada")
        sign_up(bob, "Bob")
        game_id, adas, bobs = meet(ada, bob)
        with bob.websocket_connect(f"/api/games/{game_id}/ws?token={bobs}") as socket:
            assert socket.receive_json()["state"]["ply"] == 0
            assert ada.post(f"/api/games/{game_id}/moves",
                            json={"token": adas, "move": 2, "ply": 0}).status_code == 200
            seen = socket.receive_json()  # pushed from A through the database
            while seen["state"]["ply"] < 1:
                seen = socket.receive_json()
            assert seen["state"]["to_move"] == 0  # Kalah: 2 with 4 seeds ends in the store
        assert state(bob, game_id)["ply"] == 1
        stale = bob.post(f"/api/games/{game_id}/moves", json={"token": adas, "move": 1,
                                                               "ply": 0})
        assert stale.status_code == 409 and stale.json()["code"] == "stale"
        assert ada.post(f"/api/games/{game_id}/moves",
                        json={"token": adas, "move": 0, "ply": 1}).status_code == 200
        assert bob.post(f"/api/games/{game_id}/moves",
                        json={"token": bobs, "move": 7, "ply": 2}).status_code == 200
        assert until(lambda: state(ada, game_id)["ply"] == 3)
        assert state(ada, game_id)["moves"] == state(bob, game_id)["moves"]


def test_a_change_made_on_a_room_another_process_changed_is_made_again_on_the_stored_game(
        postgres_schema):
    """A process changes a game it holds by checking the stored version where it raises it:
    when another process moved meanwhile (and its notification has not come), the change
    is rolled back and made again on the game as stored, the other's move kept; a request
    refused by the out-of-date room is asked again of the stored game."""
    one, two = (create_app(postgres_schema, Limits(**LIMITS)) for _ in range(2))
    with TestClient(one) as ada, TestClient(two) as bob:
        sign_up(ada, "Ada")
        sign_up(bob, "Bob")
        game_id, adas, bobs = meet(ada, bob)
        assert ada.post(f"/api/games/{game_id}/moves",
                        json={"token": adas, "move": 2, "ply": 0}).status_code == 200
        assert ada.post(f"/api/games/{game_id}/moves",
                        json={"token": adas, "move": 0, "ply": 1}).status_code == 200
        assert until(lambda: state(bob, game_id)["ply"] == 2)
        one.state.hub.pushes.told = lambda message: None  # A hears no more of B
        assert bob.post(f"/api/games/{game_id}/moves",
                        json={"token": bobs, "move": 7, "ply": 2}).status_code == 200
        assert one.state.hub.games.rooms[game_id].ply == 2  # A's room is out of date
        # refused by A's room (not Ada's turn there), accepted by the stored game
        moved = ada.post(f"/api/games/{game_id}/moves", json={"token": adas, "move": 1,
                                                               "ply": 3})
        assert moved.status_code == 200 and moved.json()["ply"] == 4
        now = until(lambda: (lambda seen: seen["ply"] == 4 and seen)(state(bob, game_id)))
        made = bob.post(f"/api/games/{game_id}/moves",  # whoever is to move, on B
                        json={"token": [adas, bobs][now["to_move"]], "move": now["legal"][0],
                              "ply": 4})
        assert made.status_code == 200, made.text
        # accepted by A's out-of-date room: its version checked at the commit, rolled
        # back, made again on the stored game; A's connections kept (none was lost)
        backend = one.state.hub.store.backend
        kept = backend.db
        resigned = ada.post(f"/api/games/{game_id}/resign", json={"token": bobs}).json()
        assert resigned["ply"] == 5 and resigned["result"] is not None
        assert backend.db is kept and not kept.closed and backend.spare
        assert state(bob, game_id)["moves"] == resigned["moves"]


def test_the_lobby_and_the_players_presence_are_pushed_across_processes(postgres_schema):
    """Ada follows the lobby on A: Bob's seek made on B reaches her without her asking, and
    its taking too; once both have a page open on the game (on different processes), each
    page shows the other present, and Bob's leaving reaches Ada."""
    one, two = (create_app(postgres_schema, Limits(**LIMITS)) for _ in range(2))
    with TestClient(one) as ada, TestClient(two) as bob:
        with ada.websocket_connect("/api/lobby/ws") as lobby:
            assert lobby.receive_json() == {"type": "lobby", "seeks": [], "live": [],
                                            "arenas": []}
            made = bob.post("/api/seeks", json={"game": "kalah", "color": "second"}).json()
            assert [s["id"] for s in lobby.receive_json()["seeks"]] == [made["id"]]
            game = ada.post(f"/api/seeks/{made['id']}/accept").json()
            assert lobby.receive_json()["seeks"] == []
        bobs = bob.get(f"/api/seeks/{made['id']}", params={"secret": made["secret"]}).json()
        url = f"/api/games/{game['id']}/ws?token="
        with ada.websocket_connect(url + game["token"]) as adas:
            assert adas.receive_json()["state"]["present"] == [True, False]
            with bob.websocket_connect(url + bobs["token"]) as bobs_page:
                seen = bobs_page.receive_json()["state"]
                while seen["present"] != [True, True]:  # Ada's page is told within 0.1 s
                    seen = bobs_page.receive_json()["state"]
                seen = adas.receive_json()["state"]
                while not seen["present"][1]:
                    seen = adas.receive_json()["state"]
            seen = adas.receive_json()["state"]
            while seen["present"][1]:
                seen = adas.receive_json()["state"]
            assert seen["came"] == [True, True] and seen["gone_for"][1] is not None


def test_an_arena_whose_four_players_are_on_three_processes_runs_to_its_end(postgres_schema):
    """The arena of test_accounts.py, its players on processes A, B, C and A: each game is
    scored once, by whichever process ends it, and the standings are the tally."""
    from .test_accounts import play_an_arena_of_four

    apps = [create_app(postgres_schema, Limits(**LIMITS)) for _ in range(3)]
    with TestClient(apps[0]) as abena, TestClient(apps[1]) as kojo, \
            TestClient(apps[2]) as esi, TestClient(apps[0]) as yaw:
        play_an_arena_of_four([abena, kojo, esi, yaw])


def test_a_seek_is_taken_once_whichever_process_is_asked(postgres_schema):
    one, two = (create_app(postgres_schema, Limits(**LIMITS)) for _ in range(2))
    with TestClient(one) as ada, TestClient(one) as bob, TestClient(two) as cy:
        made = ada.post("/api/seeks", json={"game": "kalah"}).json()
        first = bob.post(f"/api/seeks/{made['id']}/accept")
        second = cy.post(f"/api/seeks/{made['id']}/accept")
        assert first.status_code == 201 and second.status_code == 409
        assert second.json()["code"] == "seek_taken"
        mine = until(lambda: cy.get(f"/api/seeks/{made['id']}",
                                    params={"secret": made["secret"]}).json().get("game_id"))
        assert mine == first.json()["id"]  # the seeker learns it from any process


def test_a_flag_falls_once_though_both_processes_time_the_game(postgres_schema):
    """A rated game on a 2-second clock held by two processes: each times it, one ends it,
    the ratings change once."""
    one, two = (create_app(postgres_schema, Limits(**LIMITS)) for _ in range(2))
    with TestClient(one) as ada, TestClient(two) as bob:
        sign_up(ada, "Ada")
        sign_up(bob, "Bob")
        game_id, adas, bobs = meet(ada, bob, rated=True, clock={"base": 2, "increment": 0})
        assert ada.post(f"/api/games/{game_id}/moves",
                        json={"token": adas, "move": 2}).status_code == 200
        assert ada.post(f"/api/games/{game_id}/moves",
                        json={"token": adas, "move": 0}).status_code == 200
        until(lambda: state(bob, game_id)["ply"] == 2)
        assert bob.post(f"/api/games/{game_id}/moves",
                        json={"token": bobs, "move": 7}).status_code == 200
        until(lambda: state(ada, game_id)["ply"] == 3)  # Ada's clock runs on both
        ended = until(lambda: state(ada, game_id)["result"], seconds=6)
        assert until(lambda: state(bob, game_id)["result"]) == ended
        assert "time" in json.dumps(ended)
        def rated(client, name):
            return client.get(f"/api/players/{name}").json()["recent"]

        # the rating follows the result (under load, a moment later): once, not once a process
        until(lambda: rated(ada, "Ada") and rated(bob, "Bob"))
        time.sleep(0.5)
        assert len(rated(ada, "Ada")) == 1 and len(rated(bob, "Bob")) == 1


@pytest.mark.slow
def test_a_killed_process_loses_no_acknowledged_move_and_its_flag_falls_once(
        postgres_schema, tmp_path):
    """Two ``mancalab serve`` processes; a clocked game played on A, A killed with SIGKILL
    between moves: on B every move A acknowledged is there, play goes on, and the flag of
    the game whose timer was A's falls on B, once."""
    ports = [free_port(), free_port()]
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path)}
    servers = [subprocess.Popen(
        [sys.executable, "-m", "mancalab", "serve", "--db", postgres_schema, "--port",
         str(port), "--no-prepare", "--create-rate", "1000/minute", "--limit",
         "account_rate=1000/hour", "--limit", "move_rate=1000/second"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for port in ports]
    try:
        a, b = (httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10)
                for port in ports)
        for client, server in zip((a, b), servers):
            until(lambda client=client, server=server: _answers(client, server), seconds=60)
        sign_up(a, "Ada")
        bobs_a = httpx.Client(base_url=a.base_url, timeout=10)
        sign_up(bobs_a, "Bob")
        game_id, adas, bobs = meet(a, bobs_a, rated=True, clock={"base": 3, "increment": 0})
        played = []
        for token, move in ((adas, 2), (adas, 0), (bobs, 7)):
            answer = a.post(f"/api/games/{game_id}/moves", json={"token": token, "move": move})
            assert answer.status_code == 200
            played.append(move)
        servers[0].send_signal(signal.SIGKILL)
        servers[0].wait()
        on_b = state(b, game_id)
        assert on_b["ply"] == len(played) and on_b["result"] is None
        ended = until(lambda: state(b, game_id)["result"], seconds=10)  # B's sweep
        assert "time" in json.dumps(ended)
        until(lambda: b.get("/api/players/Ada").json()["recent"])  # once its change commits
        time.sleep(1.5)  # another process's sweep would have ended it again by now
        assert len(b.get("/api/players/Ada").json()["recent"]) == 1
    finally:
        for server in servers:
            if server.poll() is None:
                server.send_signal(signal.SIGTERM)
                server.wait(timeout=20)


def _answers(client, server) -> bool:
    if server.poll() is not None:  # it could not start: say why
        pytest.fail(f"serve exited {server.returncode}: {server.stderr.read().decode()}")
    try:
        return client.get("/api/session").status_code == 200
    except httpx.HTTPError:
        return False


def test_a_site_is_copied_from_sqlite_to_postgresql_whole(postgres_schema, tmp_path):
    """``mancalab db copy``: accounts, ratings, a game and its moves, equal in both; the
    copy serves the same game; a second copy into the same database is refused."""
    from typer.testing import CliRunner

    from mancalab.cli import app as cli

    sqlite = tmp_path / "games.sqlite3"
    with TestClient(create_app(sqlite, Limits(**LIMITS))) as ada, \
            TestClient(create_app(sqlite, Limits(**LIMITS))) as bob:
        sign_up(ada, "Ada")
        sign_up(bob, "Bob")
        game_id, adas, _ = meet(ada, bob, rated=True)
        assert ada.post(f"/api/games/{game_id}/moves",
                        json={"token": adas, "move": 2}).status_code == 200
        before = state(ada, game_id, adas)
    copied = CliRunner().invoke(cli, ["db", "copy", str(sqlite), postgres_schema])
    assert copied.exit_code == 0, copied.output
    assert "every table equal" in copied.output and "DIFFERENT" not in copied.output
    with TestClient(create_app(postgres_schema, Limits(**LIMITS))) as ada:
        assert ada.post("/api/session", json={"name": "ada", "password": "a good password"}
                        ).status_code == 200
        after = state(ada, game_id, adas)
        assert after["moves"] == before["moves"] and after["accounts"] == ["Ada", "Bob"]
    again = CliRunner().invoke(cli, ["db", "copy", str(sqlite), postgres_schema])
    assert again.exit_code == 2 and "not empty" in again.output


def test_a_lost_database_connection_is_a_503_and_the_next_request_reconnects(
        postgres_schema):
    """PostgreSQL drops the server's connections (a restart, a failover): the request that
    meets the dead connection is answered 503 saying so, nothing acknowledged is lost, and
    the next request connects again."""
    import psycopg

    with TestClient(create_app(postgres_schema, Limits(**LIMITS))) as ada:
        made = ada.post("/api/games", json={"game": "kalah", "mode": "local"}).json()
        assert ada.post(f"/api/games/{made['id']}/moves",
                        json={"token": made["token"], "move": 2}).status_code == 200
        with psycopg.connect(postgres_schema, autocommit=True) as admin:
            killed = [pid for (pid,) in admin.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND "
                "pid <> pg_backend_pid()")]
            admin.execute("SELECT pg_terminate_backend(pid) FROM unnest(%s::int[]) AS pid",
                          (killed,))
            for _ in range(100):  # a terminated backend ends a moment later
                if not admin.execute("SELECT 1 FROM pg_stat_activity WHERE pid = ANY(%s)",
                                     (killed,)).fetchone():
                    break
                time.sleep(0.05)
        lost = ada.post(f"/api/games/{made['id']}/moves",
                        json={"token": made["token"], "move": 0})
        if lost.status_code != 200:  # the request met the dead connection first
            assert lost.status_code == 503 and "database" in lost.json()["detail"]
            lost = ada.post(f"/api/games/{made['id']}/moves",
                            json={"token": made["token"], "move": 0})
        # else the server's own sweep met it first (under load) and connected again
        assert lost.status_code == 200 and lost.json()["ply"] == 2


def test_request_rates_are_counted_per_site_in_redis(postgres_schema):
    """Two processes sharing a Redis server for their request rates: a client's 3 new games
    a minute are the site's, not 3 a process."""
    import random

    redis = pytest.importorskip("redis")
    index = random.randint(1, 15)
    try:
        redis.Redis.from_url(f"redis://127.0.0.1:6379/{index}").flushdb()
    except redis.RedisError as error:
        if os.environ.get("MANCALAB_REDIS_TESTS") == "1":
            pytest.fail(f"Redis cannot be reached at 127.0.0.1:6379: {error}")
        pytest.skip("Redis cannot be reached at 127.0.0.1:6379")
    limits = Limits(**{**LIMITS, "create_rate": "3/minute",
                       "rate_storage": f"redis://127.0.0.1:6379/{index}"})
    one, two = (create_app(postgres_schema, limits) for _ in range(2))
    with TestClient(one) as a, TestClient(two) as b:
        made = [client.post("/api/games", json={"game": "kalah", "mode": "local"}).status_code
                for client in (a, b, a, b)]
    assert made == [201, 201, 201, 429]


def test_an_arena_is_pushed_to_its_pages_from_any_process(postgres_schema):
    """A new arena reaches the lobby's pages on another process; an arena's page follows its
    socket on process A: a player joining on process B, and the game that pairs her, reach
    it without its asking; a player's own page is told its game and token."""
    one, two = (create_app(postgres_schema, Limits(**LIMITS)) for _ in range(2))
    with TestClient(one) as abena, TestClient(two) as kojo:
        sign_up(abena, "Abena")
        sign_up(kojo, "Kojo")
        with kojo.websocket_connect("/api/lobby/ws") as lobby:  # the lobby on the other one
            assert lobby.receive_json()["arenas"] == []
            arena = abena.post("/api/arenas", json={"game": "kalah", "clock": {"base": 60},
                                                    "seconds": 60}).json()
            assert [a["id"] for a in lobby.receive_json()["arenas"]] == [arena["id"]]
        assert abena.post(f"/api/arenas/{arena['id']}/join").status_code == 200
        with abena.websocket_connect(f"/api/arenas/{arena['id']}/ws") as page:
            first = page.receive_json()
            assert first["type"] == "arena" and first["arena"]["me"]["name"] == "Abena"
            assert kojo.post(f"/api/arenas/{arena['id']}/join").status_code == 200
            seen = page.receive_json()["arena"]
            while not seen["pairings"]:
                seen = page.receive_json()["arena"]
            assert seen["pairings"][0]["names"] in (["Abena", "Kojo"], ["Kojo", "Abena"])
            assert seen["me"]["game_id"] == seen["pairings"][0]["game_id"] and \
                seen["me"]["token"]
        from starlette.websockets import WebSocketDisconnect

        with pytest.raises(WebSocketDisconnect) as refused, \
                abena.websocket_connect("/api/arenas/nothing/ws") as missing:
            missing.receive_json()
        assert refused.value.code == 4404


def test_a_connection_whose_version_checks_failed_goes_on_serving_changes(postgres_schema):
    """A change whose version check fails (another process raised the version) is rolled
    back and raises Stale, nothing of it kept; the changes after it on the same
    connections go on, past the count at which psycopg prepares their statements (which
    a failed check once left counted as prepared though skipped)."""
    import asyncio

    from mancalab.web.backends import Stale
    from mancalab.web.store import Store, StoredGame

    store = Store(postgres_schema)
    store.create(StoredGame("g", time.time(), None, {"mode": "online"}))

    async def changes():
        version, stale = 0, 0
        for number in range(30):
            checked = version + 100 if number % 3 == 2 else version
            try:
                async with store.change():
                    store.execute("UPDATE games SET listed = ? WHERE id = ?", (number, "g"))
                    assert store.changed("g", None, checked) == checked + 1
                    store.backend.notify("lobby")
            except Stale:
                stale += 1
            else:
                version += 1
        return version, stale

    try:
        assert asyncio.run(changes()) == (20, 10)
        assert store.execute("SELECT version, listed FROM games").fetchone() == (20, 28)
    finally:
        store.close()


def test_a_process_told_of_a_version_its_room_has_passed_loads_nothing(postgres_schema):
    """A notification of a game's version the process's room already has or has passed
    (its own change's, arriving after its next change) loads nothing; a newer one does."""
    app = create_app(postgres_schema, Limits(**LIMITS))
    with TestClient(app) as client:
        game = client.post("/api/games", json={"game": "kalah"}).json()
        pushes, spawned = app.state.hub.pushes, []
        app.state.hub.spawn = lambda work: spawned.append(work.close())
        room = app.state.hub.games.rooms[game["id"]]
        room.stored_version = 5
        for version in (4, 5):
            pushes.told(f"game {game['id']} {version}")
        assert spawned == []
        pushes.told(f"game {game['id']} 6")
        assert len(spawned) == 1


def test_a_room_made_current_reads_only_the_moves_it_lacks_and_all_after_a_take_back(
        postgres_schema):
    """A process told of another's move replayed the whole game from the store (a long
    game cost a replay of every move at every move); it now reads and plays the moves it
    lacks. Moves taken back elsewhere change moves it holds: it then reads them all."""
    one, two = (create_app(postgres_schema, Limits(**LIMITS)) for _ in range(2))
    with TestClient(one) as ada, TestClient(two) as bob:
        sign_up(ada, "Ada")
        sign_up(bob, "Bob")
        game_id, adas, bobs = meet(ada, bob)
        tokens, store, read = (adas, bobs), two.state.hub.store, []
        load = store.load
        store.load = lambda game, after=0: read.append(after) or load(game, after)
        for ply in range(4):
            now = state(ada, game_id)
            assert ada.post(f"/api/games/{game_id}/moves", json={
                "token": tokens[now["to_move"]], "move": now["legal"][0],
                "ply": ply}).status_code == 200
            assert until(lambda: state(bob, game_id)["ply"] == ply + 1)
        assert read and all(after > 0 for after in read[1:])  # B read the moves it lacked
        one.state.hub.pushes.told = lambda message: None  # A hears no more of B
        for token in tokens:  # both ask on B: the last move taken back there
            assert bob.post(f"/api/games/{game_id}/undo", json={"token": token}) \
                .status_code == 200
        taken_back = state(ada, game_id)["moves"][-1]["move"]  # A's room still holds it
        for ply in (3, 4):  # another fourth move on B, and a fifth
            now = state(bob, game_id)
            move = [m for m in now["legal"] if ply > 3 or m != taken_back][0]
            assert bob.post(f"/api/games/{game_id}/moves", json={
                "token": tokens[now["to_move"]], "move": move, "ply": ply}).status_code == 200
        # A's room, at move 4, refuses move 5 and asks the stored game: its four moves are
        # not the stored game's first four, so it reads the game whole
        now = state(bob, game_id)
        moved = ada.post(f"/api/games/{game_id}/moves", json={
            "token": tokens[now["to_move"]], "move": now["legal"][0], "ply": 5})
        assert moved.status_code == 200, moved.text
        assert moved.json()["moves"][:5] == now["moves"]
        assert until(lambda: state(bob, game_id)["moves"] == moved.json()["moves"])
