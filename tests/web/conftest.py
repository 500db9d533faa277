"""A real server on a free loopback port, and Debian's Chromium driven by Playwright."""

import contextlib
import os
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync"]
ARTIFACTS = Path(__file__).parents[2] / "artifacts" / "screenshots"


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
    limits = limits or Limits()
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
