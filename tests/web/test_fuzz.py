"""The whole JSON API fuzzed from its OpenAPI schema with schemathesis: no request, however
malformed, gets a 500, an undocumented status or an answer that breaks the schema; data the
schema forbids is refused. (A schema-valid request may still be refused with a documented
4xx: whether an option suits a game or a spec names a player is checked past the schema.)"""

import tempfile
from pathlib import Path

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings, strategies as st
from schemathesis.checks import negative_data_rejection, positive_data_acceptance

from mancalab.analysis import solving
from mancalab.web import create_app
from mancalab.web.thinking import Limits

LIMITS = Limits(create_rate="100000/minute", hint_rate="100000/minute", max_think=0.2)
APP = create_app(Path(tempfile.mkdtemp()) / "games.sqlite3", LIMITS)
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)
# Used without its context: the application's shutdown would close the game store under the
# fuzzer's requests, which share the application (whichever order the tests run in).
CLIENT = TestClient(APP)


@pytest.fixture(autouse=True, scope="module")
def _the_servers_solver_budget():
    """What the server's lifespan, not started here, keeps its solvers to."""
    with solving.kalah.budget(APP.state.solvers):
        yield


# A worksheet is a PDF of up to 36 boards drawn with matplotlib: seconds a request, so a few
# random examples (no boundary-value phase, which draws dozens) and a longer wait; the
# route's own tests check its answers.
DRAWN = "/api/worksheets/{game}"
drawn = schemathesis.openapi.from_asgi("/openapi.json", APP).include(path=DRAWN)
drawn.config.phases.update(phases=["examples", "fuzzing"])


@schema.exclude(path=DRAWN).parametrize()
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
def test_the_api_never_fails_on_any_request(case):
    case.call_and_validate(excluded_checks=[positive_data_acceptance])


@drawn.parametrize()
@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
def test_the_worksheet_route_never_fails_on_any_request(case):
    case.call_and_validate(excluded_checks=[positive_data_acceptance], timeout=120)


def _real_games():
    """Games the fuzzer's requests are aimed at, so that they get past the 404 for an unknown
    game: one of each mode (Urubugu with the setting step, the computer as B)."""
    bodies = [{"game": "kalah"}, {"game": "urubugu", "mode": "online", "setup": True},
              {"game": "gabata", "mode": "computer", "bot": "greedy"}]
    return [CLIENT.post("/api/games", json=body).json() for body in bodies]


GAMES = _real_games()


@schema.include(path_regex="{game_id}").parametrize()
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
def test_requests_on_real_games_never_fail(case):
    game = GAMES[hash(repr(case.body)) % len(GAMES)]
    case.path_parameters = {**(case.path_parameters or {}), "game_id": game["id"]}
    if isinstance(case.body, dict) and "token" in case.body:
        case.body["token"] = game["token"]  # the seat's own token: the request is looked at
    # (a request made invalid on purpose may have become valid with the real token: the
    # refusal of invalid data is checked by the test above)
    case.call_and_validate(excluded_checks=[positive_data_acceptance, negative_data_rejection])


HOSTILE = ["NaN", "Infinity", "-Infinity", "1e400", "-1e999", "9" * 40, '"\\ud800"',
           '"x\\udc00y"', '{"k": NaN}', '["\\udbff"]']


def _body_fields():
    """(path, property names) of every route that takes a JSON body, from the API's schema."""
    spec = APP.openapi()
    found = []
    for path, methods in spec["paths"].items():
        for operation in methods.values():
            body = operation.get("requestBody", {}).get("content", {})
            ref = body.get("application/json", {}).get("schema", {}).get("$ref")
            if ref:
                model = spec["components"]["schemas"][ref.rsplit("/", 1)[-1]]
                found.append((path, sorted(model["properties"])))
    return found


ROUTES = _body_fields()


def test_every_body_route_is_fuzzed_below():
    assert len(ROUTES) >= 10 and any(path == "/api/games" for path, _ in ROUTES)


@given(route=st.sampled_from(ROUTES), value=st.sampled_from(HOSTILE), data=st.data())
@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
def test_non_finite_numbers_and_lone_surrogates_anywhere_get_a_4xx(route, value, data):
    path, fields = route
    field = data.draw(st.sampled_from(fields))
    game = data.draw(st.sampled_from(GAMES))
    body = f'{{"token": "{game["token"]}", "{field}": {value}}}' if field != "token" \
        else f'{{"{field}": {value}}}'
    answer = CLIENT.post(path.replace("{game_id}", game["id"]), content=body,
                         headers={"content-type": "application/json"})
    assert 400 <= answer.status_code < 500, (path, body, answer.text)
    assert answer.json()["detail"]
