"""A real server on a free loopback port, and Debian's Chromium driven by Playwright."""

import contextlib
import dataclasses
import os
import shutil
import socket
import threading
import time
import uuid
from pathlib import Path

import pytest

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync"]
ARTIFACTS = Path(__file__).parents[2] / "artifacts" / "screenshots"


POSTGRES = os.environ.get("MANCALAB_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres")


def pytest_generate_tests(metafunc):
    """A test marked ``both_stores`` runs on SQLite and on PostgreSQL (its ``db``)."""
    if "db" in metafunc.fixturenames and metafunc.definition.get_closest_marker("both_stores"):
        metafunc.parametrize("db", ["sqlite", "postgresql"], indirect=True)


@pytest.fixture
def db(request, tmp_path):
    """Where a test's server keeps its state: a SQLite file, or (``both_stores``) a fresh
    schema of the test process's own PostgreSQL database."""
    if getattr(request, "param", "sqlite") == "sqlite":
        return tmp_path / "games.sqlite3"
    return request.getfixturevalue("postgres_schema")


@pytest.fixture(scope="session")
def postgres_database():
    """A database of its own for this test process, dropped at its end. CI
    (MANCALAB_POSTGRES_TESTS=1) must reach PostgreSQL; elsewhere these tests are skipped."""
    import psycopg

    try:
        admin = psycopg.connect(POSTGRES, autocommit=True, connect_timeout=3)
    except psycopg.Error as error:
        if os.environ.get("MANCALAB_POSTGRES_TESTS") == "1":
            pytest.fail(f"PostgreSQL cannot be reached at {POSTGRES}: {error}")
        pytest.skip(f"PostgreSQL cannot be reached at {POSTGRES}")
    name = f"mancalab_test_{uuid.uuid4().hex[:12]}"
    admin.execute(f"CREATE DATABASE {name}")
    url = POSTGRES.rsplit("/", 1)[0] + f"/{name}"
    with psycopg.connect(url, autocommit=True) as first:
        first.execute("CREATE EXTENSION IF NOT EXISTS citext")
    yield url
    admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    admin.close()


@pytest.fixture
def postgres_schema(postgres_database):
    """A fresh schema of the test process's database: the address of an empty site."""
    import psycopg

    schema = f"t{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_database, autocommit=True) as connection:
        connection.execute(f"CREATE SCHEMA {schema}")
    yield f"{postgres_database}?options=-csearch_path%3D{schema},public"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def serving(db, limits=None):
    """The mancalab web app served by uvicorn in a thread; yields its base address."""
    import uvicorn

    from mancalab.web import create_app, serving as served
    from mancalab.web.thinking import Limits

    port = free_port()
    # a test's stop need not wait for what its clients left open (a bot's streams)
    limits = dataclasses.replace(limits or Limits(), stop_seconds=1.0)
    config = served.config(create_app(db, limits), "127.0.0.1", port, limits)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("the test server did not start")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The server of the browser tests, whose many visitors all come from one address: its
    limits per address (tested in test_hardening.py) are raised out of their way."""
    from mancalab.web.thinking import Limits

    many = Limits(create_rate="1000/minute", hint_rate="1000/minute",
                  account_rate="1000/hour", login_rate="1000/minute")
    with serving(tmp_path_factory.mktemp("server") / "games.sqlite3", many) as address:
        yield address


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium headless shell, or its full Chromium. CI (MANCALAB_BROWSER_TESTS=1)
    must have one; elsewhere the browser tests are skipped when neither is installed. The shell
    is the one to have: the full browser's headless mode also draws its own toolbar pages, which
    took half of the browser tests' processor time."""
    chromium = shutil.which("chromium-headless-shell") or shutil.which("chromium")
    if chromium is None:
        missing = "chromium is not installed (apt-get install chromium-headless-shell)"
        if os.environ.get("MANCALAB_BROWSER_TESTS") == "1":
            pytest.fail(missing)
        pytest.skip(missing)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
        yield launched
        launched.close()


@pytest.fixture
def context(browser):
    """A fresh browser profile (its own storage), closed after the test."""
    opened = browser.new_context(viewport={"width": 1000, "height": 900})
    yield opened
    opened.close()
