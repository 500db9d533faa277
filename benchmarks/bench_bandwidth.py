"""The home page over a slow link: bytes downloaded and the time until the lobby can be used,
on a first visit and a second one (the browser's cache kept).

    python benchmarks/bench_bandwidth.py [--kbit 400] [--latency 400] [--language en]

Starts `mancalab serve` on loopback and drives Debian's Chromium headless shell with its
network emulation (Chrome DevTools' Network.emulateNetworkConditions: the throughput both
ways and the round trip): the bytes are what crossed the link (compressed, headers
included), the lobby usable when the home page is shown with its quick-pairing buttons and
the lobby's seeks have arrived (its socket's first message). Prints a row per visit, then one JSON line.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from _report import report
from bench_web import free_port, start_server

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
# the home page shown with its quick-pairing buttons (the catalogue and the language's texts
# are in); the lobby's seeks come by its socket's first message (visit)
HOME_READY = ("() => document.getElementById('home')?.hidden === false && "
              "document.querySelectorAll('#quick button').length === 3")


def visit(page, session, url: str, language: str) -> dict:
    """One visit of ``url``: bytes over the link, requests, seconds to a usable lobby."""
    received = {"bytes": 0, "requests": 0}

    def finished(event) -> None:
        received["bytes"] += int(event.get("encodedDataLength", 0))
        received["requests"] += 1

    lobby: list[float] = []  # when the lobby's socket brought the seeks

    def follow(socket) -> None:
        if socket.url.endswith("/api/lobby/ws"):
            socket.on("framereceived", lambda _: lobby.append(time.perf_counter()))

    session.on("Network.loadingFinished", finished)
    page.on("websocket", follow)
    started = time.perf_counter()
    page.goto(url, wait_until="commit")
    page.wait_for_function(HOME_READY, timeout=120_000)
    shown = time.perf_counter()
    while not lobby and time.perf_counter() - started < 120:
        page.wait_for_timeout(20)
    ready = max(shown, lobby[0]) - started
    page.remove_listener("websocket", follow)
    page.wait_for_load_state("networkidle")
    session.remove_listener("Network.loadingFinished", finished)
    return {"language": language, "kb": received["bytes"] / 1024,
            "requests": received["requests"], "lobby_seconds": ready}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kbit", type=float, default=400.0, help="kbit/s each way")
    parser.add_argument("--latency", type=float, default=400.0, help="round trip, ms")
    parser.add_argument("--language", default="en", choices=["en", "fr", "rn", "am"])
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    port = free_port()
    server = start_server(port, Path(tempfile.mkdtemp()) / "games.sqlite3")
    chromium = shutil.which("chromium-headless-shell") or shutil.which("chromium")
    rows = []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, args=FLAGS)
            context = browser.new_context(locale=args.language)
            context.add_init_script(f"localStorage.setItem('mancalab.language', "
                                    f"'{args.language}')")
            page = context.new_page()
            session = context.new_cdp_session(page)
            session.send("Network.enable")
            rate = args.kbit * 1000 / 8  # bytes a second
            session.send("Network.emulateNetworkConditions", {
                "offline": False, "latency": args.latency, "downloadThroughput": rate,
                "uploadThroughput": rate})
            url = f"http://127.0.0.1:{port}/"
            for name in ("first visit", "second visit"):
                row = {"visit": name, **visit(page, session, url, args.language)}
                rows.append(row)
                print(row, flush=True)
            browser.close()
    finally:
        server.kill()
    report(f"the home page at {args.kbit:g} kbit/s, {args.latency:g} ms", rows, list(rows[0]))


if __name__ == "__main__":
    main()
