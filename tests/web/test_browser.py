"""End to end in a real browser: Debian's Chromium driven by Playwright against the server."""

import json
import time
import urllib.request
from pathlib import Path

import pytest

import mancalab

from .conftest import ARTIFACTS

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def api_state(server, page):
    game_id = page.evaluate("new URLSearchParams(location.search).get('game')")
    with urllib.request.urlopen(f"{server}/api/games/{game_id}") as response:
        return json.load(response)


def new_game(page, server, game, mode="local", options=None, bot=None, seat=0, setup=False,
             speed="0"):
    page.goto(server)
    page.check(f"input[name=game][value={game}]")
    page.check(f"input[name=mode][value={mode}]")
    if options:
        page.click("#advanced summary")  # the game's options are folded away
        for name, value in options.items():
            page.fill(f"[data-option={name}]", str(value))
    if mode == "computer":
        page.select_option("#bot", bot or "medium")
        page.select_option("#seat", str(seat))
    if setup:
        page.check("#setup")
    page.click("#new-game button[type=submit]")
    page.wait_for_selector("#play:not([hidden])")
    open_more(page)
    page.select_option("#speed", speed)


def open_more(page):
    """Unfold the play screen's further controls (level, animation speed, exact values)."""
    page.evaluate("document.getElementById('more').open = true")


def playable(page):
    """The holes the page lets its player move now (not the ones it takes a premove on)."""
    return [int(c) for c in page.eval_on_selector_all(
        ".hole.playable", "els => els.filter(e => !e.closest('.premoving'))"
                          ".map(e => e.dataset.cell)")]


def premovable(page):
    return [int(c) for c in page.eval_on_selector_all(
        "#board.premoving .hole.playable", "els => els.map(e => e.dataset.cell)")]


def wait_until(check, seconds=30, what="the page"):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def moves_shown(page):
    return page.locator("#move-list li").count()


def test_two_players_in_two_browsers_play_a_whole_game_with_a_spectator(server, browser):
    host, guest, watcher = (browser.new_context() for _ in range(3))
    try:
        first = host.new_page()
        new_game(first, server, "kalah", "online", {"pits": 3, "seeds": 2})
        invite = first.input_value("#invite-link")
        watch = first.input_value("#watch-link")
        assert "token=" in invite and "token=" not in watch
        second = guest.new_page()
        second.goto(invite)
        open_more(second)
        second.select_option("#speed", "0")
        spectator = watcher.new_page()
        spectator.goto(watch)
        wait_until(lambda: "watching" in spectator.inner_text("#status"), what="spectator")
        assert playable(spectator) == []
        pages = (first, second)
        plies = 0
        while api_state(server, first)["result"] is None:
            seat = api_state(server, first)["to_move"]
            holes = wait_until(lambda: playable(pages[seat]), what=f"seat {seat} to move")
            assert playable(pages[1 - seat]) == []  # the other seat cannot move
            pages[seat].click(f"[data-cell='{holes[0]}']")
            plies += 1
            # both pages must show the move before the next one: after an extra turn the
            # mover's page would otherwise still offer the holes of the position before
            wait_until(lambda: all(moves_shown(page) == plies for page in pages),
                       what="the move to arrive")
        final = api_state(server, first)
        wait_until(lambda: moves_shown(spectator) == plies, what="the spectator's moves")
        for page in (first, second, spectator):  # the end: the score and how it ended
            wait_until(lambda: page.is_visible("#end-dialog"), what="the end dialog")
            score = page.inner_text("#end-score")
            assert f"{final['score'][0]} – {final['score'][1]}" in score, score
        winner = final["result"]["winner"]
        if winner is not None:
            assert "You win" in pages[winner].inner_text("#end-title")
            assert "wins" in pages[1 - winner].inner_text("#end-title")
    finally:
        for opened in (host, guest, watcher):
            opened.close()


def test_a_player_who_reloads_gets_the_seat_back(server, context):
    page = context.new_page()
    new_game(page, server, "gebeta", "online")
    page.goto(page.url.split("&token=")[0])  # the link without the token: storage keeps it
    open_more(page)
    page.select_option("#speed", "0")
    holes = wait_until(lambda: playable(page), what="the seat after the reload")
    page.click(f"[data-cell='{holes[0]}']")
    wait_until(lambda: moves_shown(page) == 1, what="the move")


def test_against_the_computer_with_switch_and_show_me_its_move(server, context):
    page = context.new_page()
    new_game(page, server, "kalah", "computer", bot="easy")
    legal = api_state(server, page)["legal"]
    wait_until(lambda: sorted(playable(page)) == sorted(legal), what="the first move")
    # a move that passes the turn (one ending in the store would be answered by no one)
    now = api_state(server, page)
    start = mancalab.variant("kalah", **now["options"]).state(now["cells"], now["to_move"])
    passing = next(move for move in legal if start.play(move).to_move == 1)
    page.click(f"[data-cell='{passing}']")
    wait_until(lambda: api_state(server, page)["ply"] >= 2 and playable(page),
               what="the computer's answer")
    assert api_state(server, page)["to_move"] == 0
    page.uncheck("#game-automove")
    wait_until(lambda: not api_state(server, page)["automove"]
               and not api_state(server, page)["thinking"], what="automove off")
    page.click("#switch")  # now the person is B and it is the computer's (A's) turn
    wait_until(lambda: page.locator(".hole.suggested").count() == 1, what="the suggestion")
    assert "play it" in page.inner_text("#status")
    suggested = page.get_attribute(".hole.suggested", "data-cell")
    before = api_state(server, page)["ply"]
    page.click(f"[data-cell='{suggested}']")
    wait_until(lambda: api_state(server, page)["ply"] > before, what="the computer's move played")


@pytest.mark.parametrize("game", mancalab.variants())
def test_pointing_at_a_hole_shows_where_its_move_lands(server, context, game):
    """Hover, keyboard focus or a long press marks where the last seed lands, as the move then
    does; a long press plays nothing, and the switch turns the previews off."""
    page = context.new_page()
    new_game(page, server, game, "local")
    holes = wait_until(lambda: playable(page), what="the board")
    token = page.evaluate("new URLSearchParams(location.search).get('token')")
    game_id = api_state(server, page)["id"]
    with urllib.request.urlopen(f"{server}/api/games/{game_id}/previews?token={token}") as reply:
        told = {entry["cell"]: entry for entry in json.load(reply)["moves"]}
    cell = holes[-1]
    page.hover(f"[data-cell='{cell}']")
    wait_until(lambda: page.locator(".hole.lands").count() == 1, what="the landing hole")
    assert int(page.get_attribute(".hole.lands", "data-cell")) == told[cell]["lands"]
    assert page.locator("#board .sowing-way").count() == (len(told[cell]["way"]) >= 2)
    assert "last seed in" in page.inner_text("#hover-info")
    page.mouse.move(0, 0)  # off the board: the marks go
    wait_until(lambda: page.locator(".hole.lands").count() == 0, what="the marks gone")
    assert page.locator("#board .sowing-way").count() == 0  # the arrow too
    page.focus(f"[data-cell='{holes[0]}'] .cup")  # the keyboard's way
    wait_until(lambda: page.get_attribute(".hole.lands", "data-cell") == str(
        told[holes[0]]["lands"]), what="the focused hole's landing")
    target = f"[data-cell='{cell}'] .cup"  # a long press on a touch screen previews, not plays
    page.dispatch_event(target, "pointerdown", {"pointerType": "touch", "bubbles": True})
    page.wait_for_timeout(700)
    page.dispatch_event(target, "pointerup", {"pointerType": "touch", "bubbles": True})
    page.dispatch_event(target, "click")
    assert int(page.get_attribute(".hole.lands", "data-cell")) == told[cell]["lands"]
    assert api_state(server, page)["ply"] == 0
    page.click(f"[data-cell='{cell}']")  # a tap plays: the last seed lands where the preview said
    wait_until(lambda: api_state(server, page)["ply"] == 1, what="the move")
    drops = [step[1] for step in api_state(server, page)["sowing"] if step[0] == "drop"]
    assert drops[-1] == told[cell]["lands"]
    page.uncheck("#previews")  # off, and remembered
    holes = wait_until(lambda: playable(page), what="the next move")
    page.hover(f"[data-cell='{holes[0]}']")
    page.wait_for_timeout(500)
    assert page.locator(".hole.lands").count() == 0
    assert page.evaluate("localStorage.getItem('mancalab.previews')") == "off"


def test_the_analysis_switch_marks_every_playable_hole_with_its_exact_value(server, context):
    import mancalab
    from mancalab.analysis import solving

    page = context.new_page()
    new_game(page, server, "kalah", "local", {"pits": 3, "seeds": 2})
    wait_until(lambda: page.is_visible("#analysis-row"), what="the switch")  # after the state
    assert not page.is_checked("#analysis")  # off
    assert page.locator(".hole text.value").count() == 0
    page.check("#analysis")
    wait_until(lambda: page.locator(".hole text.value").count() == 3, what="the values")
    start = mancalab.variant("kalah", pits=3, seeds=2).start()
    solved = solving.solve(start, moves=True, solver=solving.Solver(start.variant, None))
    shown = {cell: page.text_content(f".hole[data-cell='{cell}'] text.value")
             for cell in solved.moves}
    assert shown == {cell: f"{low:+d}" if low else "0" for cell, (low, _) in solved.moves.items()}
    best = page.eval_on_selector_all(".hole.best", "els => els.map(e => Number(e.dataset.cell))")
    assert best == solved.best_moves
    page.click(f"[data-cell='{best[0]}']")  # the next position is analysed in turn
    wait_until(lambda: api_state(server, page)["ply"] == 1 and page.locator(
        ".hole text.value").count() == len(api_state(server, page)["legal"]),
        what="the values after the move")
    page.screenshot(path=str(ARTIFACTS / "analysis.png"))
    page.uncheck("#analysis")
    wait_until(lambda: page.locator(".hole text.value").count() == 0, what="the values gone")
    # a whole game with the switch on: the end screen names the move that gave value away
    new_game(page, server, "kalah", "local", {"pits": 3, "seeds": 2})
    page.check("#analysis")
    wait_until(lambda: page.locator(".hole text.value").count() == 3, what="the values")
    worst = min(solved.moves, key=lambda cell: solved.moves[cell][0])
    page.click(f"[data-cell='{worst}']")
    while not api_state(server, page)["result"]:
        holes = wait_until(lambda: playable(page), what="a move")
        page.click(f"[data-cell='{holes[0]}']")
        wait_until(lambda: api_state(server, page)["result"] or playable(page) != holes
                   or api_state(server, page)["ply"] > 1, what="the move played")
    lost = solved.value - solved.moves[worst][0]
    wait_until(lambda: page.is_visible("#losses-block"), what="the end screen")
    assert f"Move 1, First player played {start.move_name(worst)}: lost {lost}" in page.inner_text(
        "#losses")


def test_urubugu_players_arrange_their_beads_first(server, context):
    page = context.new_page()
    new_game(page, server, "urubugu", "local", setup=True)
    holes = page.locator("#setup-holes input")
    wait_until(lambda: holes.count() == 16, what="the setting's holes")  # drawn after a fetch
    holes.nth(0).fill("5")
    assert page.inner_text("#setup-sum") == "35" and page.is_disabled("#setup-done")
    counts = page.eval_on_selector_all("#board .hole.owner0 text.count",
                                       "els => els.map(e => e.textContent)")
    assert sorted(counts) == ["2"] * 15 + ["5"]  # the typed beads are on the board
    page.click("#setup-default")
    assert page.inner_text("#setup-sum") == "32" and page.is_enabled("#setup-done")
    holes.nth(0).fill("4")
    holes.nth(1).fill("0")
    page.click("#setup-done")  # A's setting
    wait_until(lambda: not page.is_disabled("#setup-done")
               and page.locator("#setup-holes").get_attribute("data-seat") == "1",
               what="B's turn to arrange")
    page.click("#setup-done")  # B keeps two a hole
    wait_until(lambda: page.locator("#setup-panel").is_hidden(), what="the game to start")
    state = api_state(server, page)
    assert state["started"] and sum(state["cells"]) == 64 and 4 in state["cells"]


@pytest.mark.parametrize("game", mancalab.variants())
def test_exercises_ask_where_a_move_lands_and_which_move_does_what(server, context, game):
    """With the system's reduce-motion setting, as here, the answers are shown at once (the
    seed-by-seed moves are the play screen's tests)."""
    page = context.new_page()
    page.emulate_media(reduced_motion="reduce")
    page.goto(server)
    wait_until(lambda: page.locator("input[name=game]").count() > 0, what="the new-game form")
    page.check(f"input[name=game][value={game}]")
    with page.expect_response(lambda r: f"/api/exercises/{game}/landing/" in r.url) as shown:
        page.click("#home-exercises")
    wait_until(lambda: playable(page), what="an exercise")
    page.evaluate("""() => { window.moved = false; new MutationObserver(() => {
        window.moved ||= document.body.classList.contains('animating'); })
        .observe(document.body, {attributes: true}); }""")
    assert f"exercises={game}" in page.evaluate("location.search")
    assert page.locator(".hole.suggested").count() == 1  # the move shown, ringed
    way = shown.value.json()["direction"]  # an arrow the way it sows (none for one seed)
    assert page.locator("#exercise-board .sowing-way").count() == (len(way) >= 2)

    # every hole and store is an answer to "where does it land?"
    drawn = sum(cell is not None for row in shown.value.json()["grid"] for cell in row)
    assert page.input_value("#exercise-kind") == "landing" and len(playable(page)) == drawn
    cells = playable(page)
    page.click(f"#exercise-board [data-cell='{cells[0]}']")
    wait_until(lambda: page.is_visible("#exercise-next"), what="the answer played")
    told = page.inner_text("#exercise-result")
    marked = page.eval_on_selector_all("#exercise-board .hole.best",
                                       "els => els.map(e => Number(e.dataset.cell))")
    assert len(marked) == 1 and ("Right" in told) == (marked == [cells[0]])
    assert "out of 1" in page.inner_text("#exercise-score")
    page.click("#exercise-next")
    wait_until(lambda: playable(page) and not page.is_visible("#exercise-next"), what="next")
    kinds = page.eval_on_selector_all("#exercise-kind option", "els => els.map(e => e.value)")
    page.select_option("#exercise-kind", kinds[1])  # which move does the game's own thing?
    wait_until(lambda: page.locator(".hole.suggested").count() == 0 and playable(page),
               what="a move to find")
    holes = playable(page)
    page.click(f"#exercise-board [data-cell='{holes[0]}']")
    wait_until(lambda: page.is_visible("#exercise-next"), what="the answer played")
    assert page.locator("#exercise-board .hole.best").count() >= 1
    assert "out of 2" in page.inner_text("#exercise-score")
    assert not page.evaluate("window.moved")  # no seed was moved step by step
    page.click("#exercise-back")
    wait_until(lambda: page.is_visible("#home"), what="the home page")


def test_the_game_cards_are_drawn_without_waiting_for_the_compiled_rules(server, context):
    """The cards' boards come with the catalogue, laid out without compiled code: on a first
    start the rules are still compiling, and the cards must not wait for them."""
    page = context.new_page()
    page.route("**/api/examples/**", lambda route: route.abort())  # as if still compiling
    page.goto(server)
    wait_until(lambda: page.locator(".card").count() == len(GAMES), what="the cards")
    catalogue = json.load(urllib.request.urlopen(f"{server}/api/games"))["games"]
    for game, info in catalogue.items():
        holes = sum(cell is not None for row in info["picture"]["grid"] for cell in row)
        drawn = page.locator(f".card:has(input[value={game}]) svg .hole").count()
        assert drawn == holes, game


def in_french(page):
    """The home page in French, once it has its texts and games (a busy machine is slow)."""
    wait_until(lambda: page.locator("input[name=game]").count() > 0, what="the new-game form")
    page.select_option("#language", "fr")
    wait_until(lambda: page.inner_text("#new-game button[type=submit]") == "Commencer",
               what="French")


def test_a_teacher_downloads_a_worksheet_from_the_home_page(server, context):
    page = context.new_page()
    page.goto(server)
    wait_until(lambda: page.locator("input[name=game]").count() > 0, what="the new-game form")
    page.check("input[name=game][value=kalah]")
    page.select_option("#language", "fr")
    wait_until(lambda: page.inner_text("#new-game button[type=submit]") == "Commencer",
               what="French")
    page.click("#worksheet summary")
    page.select_option("#worksheet-questions", "6")
    with page.expect_download() as download:
        page.click("#worksheet-link")
    saved = download.value
    assert saved.suggested_filename.startswith("kalah-worksheet")
    data = open(saved.path(), "rb").read()
    assert data.startswith(b"%PDF") and data.count(b"/MediaBox") == 2  # six boards, the key
    assert "language=fr" in page.get_attribute("#worksheet-link", "href")


def test_an_error_from_the_server_is_said_in_the_pages_language(server, context):
    page = context.new_page()
    page.goto(server)
    in_french(page)
    said = page.evaluate("""async () => {
        const named = (file) => document.querySelector(
          `link[rel=modulepreload][href*="/${file}"]`).href;  // the page's own instance
        const {sayError} = await import(named("texts.js"));
        const {api} = await import(named("server.js"));
        const game = await api("/api/games", {game: "kalah", mode: "online"});
        const theirs = game.links.invite.split("token=")[1];
        try { await api(`/api/games/${game.id}/moves`, {token: theirs, move: 9}); }
        catch (error) { return sayError(error); }
        return "no error";
    }""")
    assert said.startswith("C’est au tour de ") and "turn" not in said, said


def test_the_language_can_be_changed_and_is_remembered(server, context):
    page = context.new_page()
    page.goto(server)
    in_french(page)
    page.reload()
    wait_until(lambda: page.inner_text("#new-game button[type=submit]") == "Commencer",
               what="French after a reload")
    # a page in French names Amharic in its menu with 2 KB of letters, not the whole font
    assert page.evaluate("""[...document.fonts].filter((font) =>
        font.family.replaceAll('"', '') === 'Mancalab Ethiopic')[0].status""") == "unloaded"
    page.select_option("#language", "am")
    wait_until(lambda: page.inner_text("#new-game button[type=submit]") == "ጀምር", what="Amharic")
    # the letters are drawn with the shipped font (this machine has no Ethiopic font of its own)
    wait_until(lambda: page.evaluate("""[...document.fonts].some((font) =>
        font.family.replaceAll('"', '') === 'Mancalab Ethiopic' &&
        font.status === 'loaded')"""),
               what="the Ethiopic font loaded")
    assert page.evaluate("document.fonts.check('16px \"Mancalab Ethiopic\"', 'ጀምር')")
    page.screenshot(path=str(ARTIFACTS / "amharic.png"))


@pytest.mark.parametrize("game", mancalab.variants())
def test_every_board_is_drawn_and_playable_with_the_keyboard(server, context, game):
    page = context.new_page()
    page.set_viewport_size({"width": 390, "height": 844})  # a phone
    new_game(page, server, game, "local")
    state = api_state(server, page)
    holes = sum(cell is not None for row in state["grid"] for cell in row)
    # the board is drawn when the game's first view arrives (later than the panel on a busy
    # machine): wait for some holes, then every one of them must be there
    wait_until(lambda: page.locator("#board .hole").count() > 0, what="the board")
    assert page.locator("#board .hole").count() == holes
    first = wait_until(lambda: playable(page), what="a playable hole")
    assert sorted(first) == sorted(state["legal"])
    page.focus(f"[data-cell='{first[0]}'] .cup")  # the hole's button
    page.keyboard.press("Enter")
    wait_until(lambda: moves_shown(page) == 1, what="the keyboard move")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{game}.png"), full_page=True)


RECORD_STEPS = """() => {
  const watch = {childList: true, characterData: true, subtree: true};
  const hand = document.getElementById("hand");
  window.seen = {hand: [], counts: []};
  new MutationObserver(() => window.seen.hand.push(hand.textContent)).observe(hand, watch);
  new MutationObserver((changes) => {
    for (const change of changes) {  // a count's text replaced: the count element changed
      const count = change.target.nodeType === 1 ? change.target : change.target.parentElement;
      if (count.classList.contains("count")) {
        const cell = Number(count.closest(".hole").dataset.cell);
        window.seen.counts.push([cell, Number(count.textContent)]);
      }
    }
  }).observe(document.getElementById("board"), watch);
}"""


def test_a_move_is_animated_seed_by_seed_and_can_be_skipped(server, context):
    page = context.new_page()
    new_game(page, server, "gebeta", "local", speed="80")  # fast: 80 ms a step
    wait_until(lambda: playable(page), what="the board")
    page.evaluate(RECORD_STEPS)
    page.click("[data-cell='0']")  # 31 steps: four laps of relay sowing
    wait_until(lambda: page.evaluate("document.body.classList.contains('animating')"),
               what="the animation")
    wait_until(lambda: not page.evaluate("document.body.classList.contains('animating')"),
               what="the end of the animation")
    state = api_state(server, page)
    steps = state["sowing"]
    assert len(steps) == 31
    seen = page.evaluate("window.seen")
    # the hand as the rules hold it, step after step (an empty hand shows nothing)
    expected = [f"In hand: {hand}" if hand else "" for _, _, _, hand in steps]
    collapsed = [text for k, text in enumerate(expected) if k == 0 or text != expected[k - 1]]
    shown = [text for k, text in enumerate(seen["hand"]) if k == 0 or text != seen["hand"][k - 1]]
    assert shown == collapsed
    # every step's count appeared in its hole, in order, before the board settled
    assert [tuple(c) for c in seen["counts"]][: len(steps)] == [(cell, count)
                                                               for _, cell, count, _ in steps]
    drawn = page.eval_on_selector_all(
        "#board text.count", "els => els.map(e => [e.closest('.hole').dataset.cell, "
                             "e.textContent])")
    assert len(drawn) == 12 and all(state["cells"][int(c)] == int(n) for c, n in drawn)
    # B's hole 6 makes three families on the way (B's, then two of A's): the players' family
    # counts follow them one by one, A's passing through 1 before it settles at 2
    page.evaluate("""() => {
      window.scores = [];
      const record = () => window.scores.push([...document.querySelectorAll(".player-bar .score")]
        .map((e) => e.dataset.seat + e.textContent));
      for (const id of ["player-top", "player-bottom"]) {
        new MutationObserver(record).observe(document.getElementById(id),
                                             {childList: true, characterData: true, subtree: true});
      }
    }""")
    wait_until(lambda: 6 in playable(page), what="B's holes")
    page.click("[data-cell='6']")
    wait_until(lambda: moves_shown(page) == 2 and not page.evaluate(
        "document.body.classList.contains('animating')"), what="B's move")
    seen = [set(line) for line in page.evaluate("window.scores")]
    assert any("01 family" in line for line in seen)
    assert {"02 families", "11 family"} <= seen[-1]
    # a slow animation ends at once with Skip, showing the position after the move
    page.select_option("#speed", "450")
    holes = wait_until(lambda: playable(page), what="A's holes")
    page.click(f"[data-cell='{holes[0]}']")
    wait_until(lambda: page.evaluate("document.body.classList.contains('animating')"),
               what="the second animation")
    page.click("#skip")
    assert not page.evaluate("document.body.classList.contains('animating')")
    wait_until(lambda: moves_shown(page) == 3, what="the move list after Skip")
    assert page.inner_text("#hand") == ""


def test_two_players_at_one_screen_end_a_game_by_agreement(server, context):
    page = context.new_page()
    new_game(page, server, "gebeta")
    holes = wait_until(lambda: playable(page), what="the board")
    page.click(f".hole[data-cell='{holes[0]}']")
    wait_until(lambda: moves_shown(page) == 1, what="the move")
    page.once("dialog", lambda dialog: dialog.accept())  # the other player agrees, here
    page.click("#end-game")
    wait_until(lambda: api_state(server, page)["result"], what="the end")
    assert api_state(server, page)["result"]["termination"] == "agreement"
    wait_until(lambda: "ended by agreement" in page.inner_text("#status"), what="the status")
    assert page.locator("#end-game").is_hidden()


def test_a_person_plays_the_java_example_engine(java_engine, browser, tmp_path):
    """The operator names the Java engine of docs/engine-protocol.md; a person chooses it in
    the new-game form and it answers their moves."""
    from mancalab.web.thinking import Limits

    from .conftest import serving

    limits = Limits(players={"greedy-java": f"engine:cmd={java_engine}"})
    with serving(tmp_path / "games.sqlite3", limits) as address:
        page = browser.new_page()
        new_game(page, address, "kalah", "computer", bot="greedy-java")
        for _ in range(3):
            holes = wait_until(lambda: playable(page), what="the engine's answer")
            before = api_state(address, page)["ply"]
            page.click(f"[data-cell='{holes[0]}']")
            wait_until(lambda: api_state(address, page)["ply"] > before, what="the move")
        wait_until(lambda: api_state(address, page)["to_move"] == 0 and playable(page),
                   what="the engine's answer")
        view = api_state(address, page)
        assert view["bot"] == "greedy-java" and not view["error"]
        assert any(m["seat"] == 1 for m in view["moves"])  # the engine moved
        page.close()


# ----- the board people choose (issue 42): every game at a phone's and a desktop's width ---
GAMES = mancalab.variants()
WIDTHS = [(390, 844), (1280, 800)]
SCREENSHOTS = ARTIFACTS.parent / "docs-screenshots"
AXE = (Path(__file__).parent / "vendor" / "axe.min.js").read_text()


def no_sideways_scroll(page):
    return page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth")


def serious_violations(page):
    """axe-core's serious and critical findings on the page as it is now."""
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.add_script_tag(content=AXE)
    found = page.evaluate("async () => (await axe.run()).violations"
                          ".filter(v => ['serious', 'critical'].includes(v.impact))"
                          ".map(v => v.id + ': ' + v.nodes.map(n => n.target).join(' '))")
    return found


@pytest.mark.parametrize("width, height", WIDTHS)
def test_the_home_page_at_a_phone_and_a_desktop_width(server, browser, width, height):
    # axe-core is injected as a script of the test's: the page's own policy would refuse it
    page = browser.new_page(viewport={"width": width, "height": height}, bypass_csp=True)
    try:
        page.goto(server)
        wait_until(lambda: page.locator(".card").count() == len(GAMES), what="the game cards")
        assert no_sideways_scroll(page)
        assert serious_violations(page) == []
        if width >= 1280:  # issue 83: "Play the world" was below the fold at 1280x800
            world = page.locator("#world-title").bounding_box()
            assert world["y"] + world["height"] <= height
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"home-{width}.png"), full_page=True)
    finally:
        page.close()


@pytest.mark.parametrize("width, height", WIDTHS)
@pytest.mark.parametrize("game", GAMES)
def test_every_game_at_a_phone_and_a_desktop_width(server, browser, game, width, height):
    page = browser.new_page(viewport={"width": width, "height": height}, bypass_csp=True)
    try:
        new_game(page, server, game, "local")
        state = api_state(server, page)
        on_board = {cell for row in state["grid"] for cell in row if cell is not None}
        wait_until(lambda: page.locator("#board .hole").count() == len(on_board),
                   what="the board")
        # every seed in play is a pebble on the board
        assert page.locator("#board .seed").count() == sum(state["cells"][c] for c in on_board)
        assert no_sideways_scroll(page)
        for name in page.eval_on_selector_all("#board .hole .cup", "els => els.map(e => "
                                                                    "e.getAttribute('aria-label'))"):
            assert name and any(ch.isdigit() for ch in name), name  # owner, hole and count
        assert serious_violations(page) == []
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"{game}-{width}.png"), full_page=True)
    finally:
        page.close()


def test_a_finished_game_shows_the_score_and_offers_a_rematch(server, browser):
    page = browser.new_page(bypass_csp=True)
    new_game(page, server, "kalah", "computer", {"pits": 1, "seeds": 1}, bot="random")
    # the level menu speaks to families: what a player does, the engine only in its detail
    shown = page.eval_on_selector_all("#level option", "els => els.map(e => e.textContent)")
    assert shown and not any(word in text for text in shown
                             for word in ("MCTS", "greedy", "lpha-", "program"))
    assert "MCTS" in page.eval_on_selector("#level option[value=mcts]", "e => e.title")
    page.click("[data-cell='0']")  # Kalah(1,1): one move ends the game
    wait_until(lambda: page.is_visible("#end-dialog"), what="the end dialog")
    final = api_state(server, page)
    assert f"{final['score'][0]} – {final['score'][1]}" in page.inner_text("#end-score")
    assert page.inner_text("#end-reason")
    assert serious_violations(page) == []
    page.click("#end-rematch")
    wait_until(lambda: api_state(server, page)["id"] != final["id"], what="the rematch")
    again = api_state(server, page)
    assert again["bot_seat"] == 1 - final["bot_seat"] and again["ply"] <= 1  # seats swapped


def friends_online(browser, server, game):
    """Two browsers at one online game: (the host's context, the guest's, their pages), the
    guest's board drawn."""
    host, guest = browser.new_context(), browser.new_context()
    first = host.new_page()
    new_game(first, server, game, "online")
    second = guest.new_page()
    second.goto(first.input_value("#invite-link"))
    wait_until(lambda: second.locator("#board .hole").count() > 0, what="the board")
    return host, guest, first, second


def test_a_player_may_move_while_the_opponents_move_is_still_shown(server, browser):
    """Issue 83: the animation ran on the opponent's clock: up to 4.5 s passed before they
    could even tap. Their holes take a tap at once, which ends the animation."""
    host, guest, first, second = friends_online(browser, server, "gebeta")
    try:
        open_more(second)
        second.select_option("#speed", "450")  # slow: a relay takes seconds to show
        holes = wait_until(lambda: playable(first), what="the first move")
        first.click(f"[data-cell='{holes[0]}']")
        wait_until(lambda: second.is_visible("#skip"), what="the move being shown")
        # at once: the holes take a tap as soon as the move is being shown (a slow relay
        # takes seconds more)
        mine = wait_until(lambda: playable(second), seconds=0.5, what="a hole to tap at once")
        second.click(f"[data-cell='{mine[0]}']")
        wait_until(lambda: api_state(server, first)["ply"] == 2, seconds=3,
                   what="the reply taken during the animation")
    finally:
        host.close()
        guest.close()


def test_a_page_whose_socket_is_refused_follows_the_game_anyway(browser, tmp_path):
    """Issue 83: the 17th page from one address got an empty board and "Connection lost,
    reconnecting..." for ever. A socket refused for a full server (4429) is followed by
    asking for the game every few seconds: the page shows the game and its moves."""
    from mancalab.web.thinking import Limits

    from .conftest import serving

    with serving(tmp_path / "games.sqlite3", Limits(client_sockets=1)) as address:
        context = browser.new_context()
        try:
            first = context.new_page()
            new_game(first, address, "kalah", "local")
            game = api_state(address, first)
            token = first.evaluate(f"localStorage.getItem('mancalab.token.{game['id']}')")
            second = context.new_page()
            second.goto(f"{address}/?game={game['id']}")  # a spectator: one socket is all
            wait_until(lambda: second.locator("#board .hole").count() > 0, what="the board")
            urllib.request.urlopen(urllib.request.Request(
                f"{address}/api/games/{game['id']}/moves", method="POST",
                data=json.dumps({"token": token, "move": 0}).encode(),
                headers={"Content-Type": "application/json"}))
            wait_until(lambda: moves_shown(second) == 1, seconds=10, what="the move, polled")
            assert "reconnecting" not in second.inner_text("#status").lower()
        finally:
            context.close()


def test_a_draw_is_offered_and_accepted_between_two_browsers(server, browser):
    """Issue 83: no draw offer. Once both have moved, Offer a draw asks the other, whose
    page offers Accept and Decline; accepted, the game ends drawn on both pages."""
    host, guest, first, second = friends_online(browser, server, "kalah")
    try:
        for page, cell in ((first, 0), (second, 7)):
            wait_until(lambda p=page, c=cell: c in playable(p), what="a move")
            page.click(f"[data-cell='{cell}']")
        wait_until(lambda: first.is_visible("#offer-draw"), what="Offer a draw")
        first.click("#offer-draw")
        wait_until(lambda: "offers a draw" in second.inner_text("#request-text"),
                   what="the offer on the other page")
        second.click("#request-accept")
        for page in (first, second):
            wait_until(lambda p=page: p.is_visible("#end-dialog"), what="the end")
            assert "agreed to a draw" in page.inner_text("#end-reason")
    finally:
        host.close()
        guest.close()


def test_a_premove_is_sent_when_the_turn_comes(server, browser):
    """Issue 83: no premove. On the opponent's turn one own hole may be queued (tapped again:
    cancelled); it is played as soon as the turn comes, if the server lists it as legal."""
    host, guest, first, second = friends_online(browser, server, "kalah")
    try:
        wait_until(lambda: 7 in premovable(second), what="the guest's own holes, to premove")
        second.click("[data-cell='8']")
        second.click("[data-cell='8']")  # cancelled
        assert second.locator(".hole.queued").count() == 0
        second.click("[data-cell='7']")
        assert second.locator(".hole.queued[data-cell='7']").count() == 1
        wait_until(lambda: 0 in playable(first), what="the first move")
        first.click("[data-cell='0']")
        wait_until(lambda: api_state(server, first)["ply"] == 2, what="the premove sent")
        assert [m["move"] for m in api_state(server, first)["moves"]] == [0, 7]
    finally:
        host.close()
        guest.close()


def test_a_player_claims_the_win_when_the_other_has_left_a_clocked_game(server, browser,
                                                                         monkeypatch):
    """Issue 83: no claim-victory countdown when the opponent left a clocked game."""
    from mancalab.web import rooms

    monkeypatch.setattr(rooms, "CLAIM_SECONDS", 2.0)
    made = json.load(urllib.request.urlopen(urllib.request.Request(
        f"{server}/api/games", method="POST", headers={"Content-Type": "application/json"},
        data=json.dumps({"game": "kalah", "mode": "online",
                         "clock": {"base": 300, "increment": 3}}).encode())))
    host, guest = browser.new_context(), browser.new_context()
    try:
        first = host.new_page()
        first.goto(f"{server}{made['links']['play']}")
        second = guest.new_page()
        second.goto(f"{server}{made['links']['invite']}")
        for page, cell in ((first, 0), (second, 7)):
            wait_until(lambda p=page, c=cell: c in playable(p), what="a move")
            page.click(f"[data-cell='{cell}']")
        wait_until(lambda: api_state(server, first)["ply"] == 2, what="both moved")
        guest.close()  # the opponent leaves
        wait_until(lambda: first.is_visible("#claim"), what="the claim countdown")
        assert "left the game" in first.inner_text("#claim-text")
        wait_until(lambda: first.is_visible("#claim-win"), what="the claim button")
        first.click("#claim-win")
        wait_until(lambda: first.is_visible("#end-dialog"), what="the end")
        assert "You win" in first.inner_text("#end-title")
    finally:
        host.close()


def test_online_presence_and_accept_or_decline_a_take_back(server, browser):
    host, guest = browser.new_context(), browser.new_context()
    try:
        first = host.new_page()
        new_game(first, server, "gebeta", "online")
        # the friend has not come yet (shown once the room's first presence message arrives)
        wait_until(lambda: first.is_visible("#waiting"), what="the invitation waiting")
        wait_until(lambda: "away" in first.inner_text("#player-top"), what="the friend away")
        assert "Your turn" not in first.inner_text("#status")
        assert first.inner_text("body").count("Waiting for your friend") == 1  # said once
        assert first.locator("#undo").is_hidden() and first.locator("#end-game").is_hidden()
        invite = first.input_value("#invite-link")
        second = guest.new_page()
        second.goto(invite)
        wait_until(lambda: "here" in first.inner_text("#player-top"), what="the friend here")
        assert not first.is_visible("#waiting")
        assert first.locator("#hint").is_hidden()  # not between two people unless agreed
        holes = wait_until(lambda: playable(first), what="the first move")
        first.click(f"[data-cell='{holes[0]}']")
        wait_until(lambda: moves_shown(second) == 1, what="the move on the other page")
        # "your move" in the tab's title and icon, and first in the home page's games
        wait_until(lambda: second.title().startswith("● "), what="the other's tab title")
        assert first.title() == "mancalab" and "svg" in second.get_attribute(
            "link[rel=icon]", "href")
        home = guest.new_page()
        home.goto(server)
        wait_until(lambda: home.locator("#my-games-list .your-move").count() == 1,
                   what="the game waiting in My games")
        assert home.title() == "(1) mancalab"
        home.close()
        first.click("#undo")  # asks; the other page offers Accept and Decline
        wait_until(lambda: second.is_visible("#request-decline"), what="the request")
        second.click("#request-decline")
        wait_until(lambda: "declined to take the move back" in first.inner_text("#request"),
                   what="the proposer told the request was declined")
        assert first.locator("#request-accept").is_hidden()  # nothing to answer
        assert not second.is_visible("#request")  # the one who declined sees nothing more
        assert api_state(server, first)["ply"] == 1
        first.click("#undo")
        wait_until(lambda: second.is_visible("#request-accept"), what="the request again")
        second.click("#request-accept")
        wait_until(lambda: api_state(server, first)["ply"] == 0, what="the move taken back")
        second.close()
        wait_until(lambda: "left the game" in first.inner_text("#player-top"),
                   what="the friend gone")
    finally:
        host.close()
        guest.close()


ENGLISH = ["Choose a game", "Against the computer", "Start", "How to play", "More options",
           "Medium", "Undo", "Hint", "End game", "to move", "seeds", "families", "Computer"]


@pytest.mark.parametrize("language", ["fr", "rn", "am"])
def test_a_page_in_another_language_shows_no_english_word(server, browser, language):
    context = browser.new_context(locale={"fr": "fr-FR", "rn": "rn-BI", "am": "am-ET"}[language])
    try:
        page = context.new_page()
        page.goto(server)  # the browser's language picks the page's
        wait_until(lambda: page.evaluate("document.documentElement.lang") == language,
                   what="the browser's language")
        wait_until(lambda: page.locator(".card").count() == len(GAMES), what="the cards")
        text = page.inner_text("body")
        new_game(page, server, "gebeta", "computer", bot="easy")
        wait_until(lambda: playable(page), what="the board")
        text += page.inner_text("body") + " ".join(page.eval_on_selector_all(
            "#board .cup", "els => els.map(e => e.getAttribute('aria-label'))"))
        found = [word for word in ENGLISH if word in text]
        assert found == [], found
    finally:
        context.close()


def test_my_games_are_listed_on_the_home_page_to_resume_or_remove(server, context):
    page = context.new_page()
    new_game(page, server, "gabata", "computer", bot="easy")
    first = page.url
    new_game(page, server, "kalah", "local")
    page.goto(server)
    wait_until(lambda: page.locator("#my-games-list li").count() >= 2, what="my games")
    items = page.locator("#my-games-list li")
    assert "Kalah" in items.nth(0).inner_text() and "Gabata" in items.nth(1).inner_text()
    assert "Computer" in items.nth(1).inner_text()  # the opponent
    items.nth(1).locator("a").click()
    wait_until(lambda: page.url.split("?")[1].split("&")[0] == first.split("?")[1].split("&")[0],
               what="the game resumed")
    wait_until(lambda: page.locator("#board .hole").count() > 0, what="its board")
    page.goto(server)
    wait_until(lambda: page.locator("#my-games-list li").count() >= 2, what="my games again")
    count = page.locator("#my-games-list li").count()
    page.locator("#my-games-list li").nth(0).locator("button").click()
    assert page.locator("#my-games-list li").count() == count - 1
    page.reload()
    wait_until(lambda: page.locator("#my-games-list li").count() == count - 1,
               what="the list without it")


def test_a_game_is_reviewed_move_by_move(server, context):
    page = context.new_page()
    new_game(page, server, "kalah", "local", {"pits": 4, "seeds": 3})
    for ply in range(3):
        holes = wait_until(lambda: playable(page), what="a move")
        page.click(f"[data-cell='{holes[0]}']")
        wait_until(lambda: moves_shown(page) == ply + 1, what="the move")
    game = api_state(server, page)

    def cells_shown():
        return {int(c): int(n) for c, n in page.eval_on_selector_all(
            "#board text.count", "els => els.map(e => [e.closest('.hole').dataset.cell, "
                                 "e.textContent])")}

    def cells_after(ply):
        with urllib.request.urlopen(f"{server}/api/games/{game['id']}/positions/{ply}") as answer:
            cells = json.load(answer)["state"]["cells"]
        return {cell: cells[cell] for cell in cells_shown()}

    page.click("#move-list li:nth-child(1) button")
    wait_until(lambda: page.is_visible("#review"), what="the review")
    assert "1" in page.inner_text("#review-text") and "3" in page.inner_text("#review-text")
    wait_until(lambda: cells_shown() == cells_after(1), what="the board after move 1")
    assert playable(page) == []  # a reviewed position is looked at, not played
    page.keyboard.press("ArrowRight")
    wait_until(lambda: cells_shown() == cells_after(2), what="the board after move 2")
    page.click("#review-line")  # the best continuation from move 2: proven (a small Kalah)
    wait_until(lambda: "proven" in page.inner_text("#review-line-text"), what="the line")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    wait_until(lambda: cells_shown() == cells_after(0), what="the start")
    assert page.inner_text("#review-line-text") == ""  # it was for another position
    page.keyboard.press("Escape")
    wait_until(lambda: not page.is_visible("#review") and playable(page), what="the live game")
    page.click("#move-list li:nth-child(2) button")  # play from the position after move 2
    wait_until(lambda: cells_shown() == cells_after(2), what="the board after move 2")
    page.click("#review-play")
    wait_until(lambda: api_state(server, page)["id"] != game["id"], what="a new game")
    fresh = api_state(server, page)
    assert fresh["mode"] == "computer" and fresh["cells"] == json.load(urllib.request.urlopen(
        f"{server}/api/games/{game['id']}/positions/2"))["state"]["cells"]
    assert fresh["bot_seat"] != fresh["to_move"]  # the person moves first from there


def test_oware_analysis_shows_the_endgame_tables_word_and_a_repetition_exactly(
        server, browser, tmp_path, monkeypatch):
    """Oware's switch, where its tables are built: each hole shows its move's value where
    the tables or the game's history settle it, "?" with bounds where the positions before
    decide; a move back to a position of the game shows the sweep it ends with."""
    from mancalab.analysis.solving import oware_tables

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # the server reads its tables here
    small = mancalab.variant("oware", houses=2, seeds=2)
    oware_tables.save(oware_tables.build(small, 4))
    body = json.dumps({"game": "oware", "options": {"houses": 2, "seeds": 2}, "mode": "local",
                       "position": {"cells": [1, 0, 1, 0, 3, 3], "to_move": 0}}).encode()
    request = urllib.request.Request(f"{server}/api/games", data=body,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request) as answer:
        created = json.load(answer)
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.goto(f"{server}/?game={created['id']}&token={created['token']}")
    page.wait_for_selector("#play:not([hidden])")
    open_more(page)
    wait_until(lambda: page.is_visible("#analysis-row"), what="the switch")
    page.check("#analysis")
    wait_until(lambda: page.locator(".hole text.value").count() == 1, what="the values")
    for ply, cell in enumerate((0, 2, 1)):  # South's 0, North's 2, South's 1: North's 3
        page.click(f"[data-cell='{cell}']")  # comes back to the position the game began in
        wait_until(lambda: api_state(server, page)["ply"] == ply + 1, what="the move")
    position = small.state([1, 0, 1, 0, 3, 3], 0)
    for cell in (0, 2, 1):
        position = position.play(cell)
    swept = position.play(3).stopped()
    value = swept.score[1] - swept.score[0]
    wait_until(lambda: page.locator(".hole[data-cell='3'] text.value").count() == 1,
               what="the value of the move back")
    assert page.text_content(".hole[data-cell='3'] text.value") == (
        f"{value:+d}" if value else "0")
    shots = ARTIFACTS.parent / "docs-screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shots / "analysis-oware-390.png"))
    page.close()


def finished_by_api(server, game, options, seed=5):
    """A game of ``game`` played to its end through the API by random moves: its id and
    the first seat's token."""
    import random

    def call(path, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(f"{server}{path}", data=data,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request) as answer:
            return json.load(answer)

    created = call("/api/games", {"game": game, "options": options, "mode": "local"})
    view, rng = created["state"], random.Random(seed)
    while not view["result"]:
        view = call(f"/api/games/{created['id']}/moves",
                    {"token": created["token"], "move": rng.choice(view["legal"]),
                     "ply": view["ply"]})
    return created["id"], created["token"]


def test_a_finished_game_is_reviewed_with_marks_a_graph_and_the_best_move(server, browser):
    game_id, token = finished_by_api(server, "kalah", {"pits": 3, "seeds": 3})
    page = browser.new_page(bypass_csp=True, viewport={"width": 1000, "height": 1200})
    page.goto(f"{server}/?game={game_id}&token={token}")
    wait_until(lambda: page.is_visible("#end-dialog"), what="the end dialog")
    page.click("#end-review")
    with urllib.request.urlopen(f"{server}/api/games/{game_id}") as answer:
        moves = len(json.load(answer)["moves"])
    wait_until(lambda: page.locator("#review-graph circle.graph-exact").count() == moves + 1,
               seconds=120, what="every position appraised")
    with urllib.request.urlopen(f"{server}/api/games/{game_id}/review") as answer:
        review = json.load(answer)
    marks = [row["mark"] for row in review["moves"]]
    assert all(marks) and len(marks) == moves
    buttons = page.locator("#move-list .move")
    for i, mark in enumerate(marks):
        assert f"mark-{mark}" in buttons.nth(i).get_attribute("class")
    wrong = next((i for i, mark in enumerate(marks) if mark != "best"), None)
    if wrong is not None:
        buttons.nth(wrong).click()  # the position after it; its words say what it lost
        wait_until(lambda: "gave away" in page.inner_text("#review-words"), what="the words")
        assert "exact" in page.inner_text("#review-words")
    page.keyboard.press("Home")
    for _ in range(moves):
        page.keyboard.press("ArrowLeft")
    wait_until(lambda: "start" in page.inner_text("#review-text"), what="the start")
    best = review["moves"][0]["best_cells"]
    wait_until(lambda: sorted(int(c) for c in page.eval_on_selector_all(
        "#board .hole.best", "els => els.map(e => e.dataset.cell)")) == sorted(best),
        what="the best moves ringed")
    assert page.get_attribute("#review-graph", "aria-label")
    assert serious_violations(page) == []
    shots = ARTIFACTS.parent / "docs-screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    if wrong is not None:
        buttons.nth(wrong).click()
        wait_until(lambda: "gave away" in page.inner_text("#review-words"), what="the words")
    page.screenshot(path=str(shots / "review-1000.png"), full_page=True)


def test_a_state_in_a_notebook_is_drawn_by_the_pages_own_board_script(context):
    import mancalab

    for game in mancalab.variants():
        state = mancalab.variant(game).start()
        state = state.play(state.legal_moves()[0])
        page = context.new_page()
        page.set_content(f"<html><body>{state._repr_html_()}</body></html>")
        drawn = {cell for row in state.variant.grid(state) for cell in row if cell is not None}
        wait_until(lambda: page.locator(".mancalab-board svg .hole").count() == len(drawn),
                   what=f"the {game} board")
        counts = {int(c): int(n) for c, n in page.eval_on_selector_all(
            ".mancalab-board text.count",
            "els => els.map(e => [e.closest('.hole').dataset.cell, e.textContent])")}
        assert counts == {cell: state.cells[cell] for cell in drawn}
        assert page.locator(".mancalab-board pre").count() == 0  # the text board made way
        names = page.eval_on_selector_all(".mancalab-board .cup",
                                          "els => els.map(e => e.getAttribute('aria-label'))")
        assert all(names) and not any("hole_name" in name for name in names)
        page.close()


def test_a_results_page_steps_through_its_games_with_the_pages_board(context):
    import mancalab
    from mancalab.draw.html import replay_page

    state = mancalab.variant("kalah", pits=3, seeds=2).start()
    states, moves = [state], []
    while not state.is_over:
        move = state.legal_moves()[0]
        moves.append(state.move_name(move))
        state = state.play(move)
        states.append(state)
    page = context.new_page()
    page.set_content(replay_page("Results", "<p>standings</p>", [("Game 1", states, moves)],
                                 [("Ann", "Bo")]))
    page.click("details.replay summary")
    wait_until(lambda: page.locator("details.replay svg .hole").count() == 8, what="the board")
    page.click("button[data-step=next]")
    wait_until(lambda: page.inner_text("details.replay .at").startswith("move 1 of"),
               what="the first move")
    counts = [int(n) for n in page.eval_on_selector_all(
        "details.replay text.count", "els => els.map(e => e.textContent)")]
    assert sorted(counts) == sorted(states[1].cells[:8])
    page.click("button[data-step=last]")
    wait_until(lambda: f"move {len(moves)} of {len(moves)}" in page.inner_text(
        "details.replay .at"), what="the end")


def test_the_analysis_board_sets_up_a_position_and_shares_it_by_link(server, browser):
    context = browser.new_context(bypass_csp=True)  # axe-core is injected
    page = context.new_page()
    page.goto(server)
    page.check("input[name=game][value=kalah]")
    page.click("#advanced summary")
    page.fill("[data-option=pits]", "3")
    page.fill("[data-option=seeds]", "2")
    page.click("#home-analysis")
    wait_until(lambda: page.is_visible("#position-dialog"), what="the position editor")
    inputs = page.locator("#position-cells input")
    assert inputs.count() == 8  # 3 pits a side and 2 stores
    assert serious_violations(page) == []
    labels = [inputs.nth(i).get_attribute("aria-label") for i in range(inputs.count())]
    assert all(labels) and len(set(labels)) == len(labels)
    inputs.nth(0).fill("9")  # 14 seeds in all: refused, said, nothing made
    page.click("#position-analyse")
    wait_until(lambda: page.inner_text("#position-error"), what="the refusal")
    assert "12" in page.inner_text("#position-error") and page.is_visible("#position-dialog")
    # B's first hole empty, A's last hole 4: a position of 12 seeds, B to move
    inputs.nth(0).fill("0")
    inputs.nth(inputs.count() - 1).fill("4")
    page.select_option("#position-to-move", "1")
    page.click("#position-analyse")
    wait_until(lambda: not page.is_visible("#position-dialog"), what="the new game")
    wait_until(lambda: api_state(server, page)["to_move"] == 1, what="the position")
    state = api_state(server, page)
    assert sum(state["cells"]) == 12
    open_more(page)
    assert page.is_checked("#analysis")
    wait_until(lambda: page.locator("#board text.value").count() == len(state["legal"]),
               what="every move's exact value")
    link = page.input_value("#position-link")
    other = context.new_page()
    other.goto(link)  # the shared link: a new analysis board of the same position
    wait_until(lambda: "game=" in other.evaluate("location.search"),
               what="the shared position's game")
    shared = api_state(server, other)
    assert shared["id"] != state["id"]
    assert (shared["cells"], shared["to_move"], shared["options"]) == (
        state["cells"], state["to_move"], state["options"])
    context.close()


# A puzzle kind other than the best move's (``Variant.teaching.puzzles``): what its task says,
# what the answer says, each move's words by its value, and the width it is shown at.
PUZZLE_KINDS = {
    "capture": ("captures the most", "captures the most",
                lambda v: "captures nothing" if v == 0 else f"captures {v} seed", 390),
    "win": ("the one move that wins", "is the winning move",
            lambda v: "wins whatever the moves before" if v else "does not win", 1280),
}


@pytest.mark.parametrize("kind", PUZZLE_KINDS)
def test_a_puzzle_of_another_kind_says_what_it_asks_for(server, browser, kind):
    """A game without a solver has capture puzzles, Oware win puzzles proven by its
    endgame tables: the task, the answer and every move's words are said as such."""
    from mancalab.analysis.teach import puzzles

    task, right, words_of, width = PUZZLE_KINDS[kind]
    game = next(g for g in puzzles.GAMES if mancalab.variant(g).teaching.puzzles == kind)
    page = browser.new_page(bypass_csp=True, viewport={"width": width, "height": 844},
                            reduced_motion="reduce")  # answers shown at once
    page.goto(f"{server}/?puzzles={game}")
    wait_until(lambda: playable(page), what=f"a {kind} puzzle")
    assert task in page.inner_text("#puzzle-task")
    cells = {int(c): int(n) for c, n in page.eval_on_selector_all(
        "#puzzle-board text.count", "els => els.map(e => [e.closest('.hole').dataset.cell, "
                                    "e.textContent])")}
    found = [p for p in puzzles.shipped(game) if all(p.cells[c] == n for c, n in cells.items())
             and sorted(playable(page)) == sorted(p.state().legal_moves())]
    assert found
    page.click(f"#puzzle-board [data-cell='{found[0].best}']")
    wait_until(lambda: page.is_visible("#puzzle-next"), what="the answer played")
    said = page.inner_text("#puzzle-result")
    assert right in said and "best play" not in said
    moves, state = page.inner_text("#puzzle-moves"), found[0].state()
    for cell, value in found[0].values.items():  # each move's words, said as such
        assert f"{state.move_name(int(cell))}: {words_of(value)}" in moves, moves
    page.screenshot(path=str(ARTIFACTS / f"puzzle-{game}-{width}.png"))
    assert serious_violations(page) == []
    page.close()


def test_a_puzzle_is_solved_the_best_move_played_and_the_rating_follows(server, browser):
    from mancalab.analysis.teach import puzzles

    page = browser.new_page(bypass_csp=True, reduced_motion="reduce")  # answers at once
    page.goto(server)
    page.check("input[name=game][value=kalah]")
    page.click("#home-puzzles")
    wait_until(lambda: playable(page), what="a puzzle")
    assert "A" in page.inner_text("#puzzle-task") or "B" in page.inner_text("#puzzle-task")
    rating = page.evaluate("Number(localStorage.getItem('mancalab.puzzles.rating.kalah')) "
                           "|| 1000")
    shown = page.evaluate("location.search")
    assert "puzzles=kalah" in shown

    def current():
        cells = [int(n) for n in page.eval_on_selector_all(
            "#puzzle-board text.count", "els => els.map(e => e.textContent)")]
        cells_by = {int(c): int(n) for c, n in page.eval_on_selector_all(
            "#puzzle-board text.count", "els => els.map(e => [e.closest('.hole')"
                                        ".dataset.cell, e.textContent])")}
        found = [p for p in puzzles.shipped("kalah") if
                 all(p.cells[c] == n for c, n in cells_by.items())]
        assert len(found) == 1 and cells
        return found[0]

    puzzle = current()
    page.click(f"#puzzle-board [data-cell='{puzzle.best}']")
    wait_until(lambda: page.is_visible("#puzzle-next"), what="the answer played")
    assert "Right" in page.inner_text("#puzzle-result")
    assert page.locator("#puzzle-moves li").count() == len(puzzle.values)
    after = page.evaluate("Number(localStorage.getItem('mancalab.puzzles.rating.kalah'))")
    assert after > rating
    assert serious_violations(page) == []
    page.click("#puzzle-next")
    wait_until(lambda: playable(page), what="the next puzzle")
    assert "1 in a row" in page.inner_text("#puzzle-streak")
    puzzle = current()
    wrong = next(int(c) for c in puzzle.values if int(c) != puzzle.best)
    page.click(f"#puzzle-board [data-cell='{wrong}']")  # played out, taken back: try again
    wait_until(lambda: "Try again" in page.inner_text("#puzzle-result"), what="try again")
    assert puzzle.best_name not in page.inner_text("#puzzle-result")  # not given away
    assert page.evaluate("Number(localStorage.getItem('mancalab.puzzles.rating.kalah'))") < after
    assert page.inner_text("#puzzle-streak") == ""  # the streak broken
    wait_until(lambda: sorted(playable(page)) == sorted(
        int(c) for c in puzzle.state().legal_moves()), what="the puzzle again")
    assert current() == puzzle
    missed = page.evaluate("Number(localStorage.getItem('mancalab.puzzles.rating.kalah'))")
    page.click(f"#puzzle-board [data-cell='{puzzle.best}']")  # found at the second try
    wait_until(lambda: page.is_visible("#puzzle-next"), what="the answer played")
    assert "another try" in page.inner_text("#puzzle-result")
    assert page.evaluate("Number(localStorage.getItem('mancalab.puzzles.rating.kalah'))") == missed
    page.select_option("#puzzle-theme", "again")  # a theme: the next puzzle gives another turn
    wait_until(lambda: playable(page) and not page.is_visible("#puzzle-next"), what="a theme")
    puzzle = current()
    assert "again" in puzzles.themes(puzzle)
    wrong = next(int(c) for c in puzzle.values if int(c) != puzzle.best)
    page.click(f"#puzzle-board [data-cell='{wrong}']")
    wait_until(lambda: page.is_visible("#puzzle-solution"), what="the solution button")
    page.click("#puzzle-solution")
    wait_until(lambda: page.is_visible("#puzzle-next"), what="the solution played")
    assert puzzle.best_name in page.inner_text("#puzzle-result")
    assert "Another turn" in page.inner_text("#puzzle-result")  # its themes, once solved
    page.click("#puzzle-back")
    wait_until(lambda: page.is_visible("#home"), what="the home page")


@pytest.mark.parametrize("game", ["gebeta", "kalah", "gabata3"])  # 3-row Gabata: a round's end
def test_a_lesson_is_played_step_by_step_with_a_wrong_move_explained(server, browser, game):
    import mancalab
    from mancalab.analysis.teach import lessons

    page = browser.new_page(bypass_csp=True)
    page.goto(server)
    page.check(f"input[name=game][value={game}]")
    page.click("#home-learn")
    for index, (kind, state) in enumerate(lessons.steps(game)):
        wait_until(lambda: playable(page), what=f"step {index + 1}")
        assert f"{index + 1}" in page.inner_text("#lesson-step")
        doing = [m for m in state.legal_moves() if lessons.does(state, m, kind)]
        wrong = [m for m in state.legal_moves() if m not in doing]
        def sow(cell, shown):
            """Play ``cell``, skip the rest of its sowing (a relay is long), wait for ``shown``."""
            page.click(f"#lesson-board [data-cell='{cell}']")
            wait_until(lambda: page.is_visible("#lesson-skip") or page.is_visible(shown),
                       what="the sowing")
            if page.is_visible("#lesson-skip"):
                page.click("#lesson-skip")
            wait_until(lambda: page.is_visible(shown), what=shown)

        if wrong:
            sow(wrong[0], "#lesson-again")
            assert state.move_name(wrong[0]) in page.inner_text("#lesson-feedback")
            page.click("#lesson-again")
            wait_until(lambda: playable(page), what="the step again")
        sow(doing[0], "#lesson-next")
        if index == 0:
            assert serious_violations(page) == []
        if kind == "round_end":  # the move, the new filling and the race played out
            assert "won the race" in page.inner_text("#lesson-feedback")
            page.screenshot(path=str(ARTIFACTS / f"lesson-{game}-1280.png"))
        page.click("#lesson-next")
    wait_until(lambda: page.is_hidden("#lesson-wrap"), what="the end of the lesson")
    assert mancalab.variant(game).title.split(" ")[0] in page.inner_text("#lesson-text")
    assert page.evaluate(f"localStorage.getItem('mancalab.lesson.{game}')") == str(
        len(lessons.steps(game)))


@pytest.mark.parametrize("game", mancalab.variants())
def test_a_move_played_backwards_restores_the_position_before_it(server, context, game):
    page = context.new_page()
    page.goto(server)
    wait_until(lambda: page.locator(".card").count() == len(GAMES), what="the page")
    restored = page.evaluate("""async (game) => {
      const {backwards} = await import("/static/js/animation.js");
      const example = await (await fetch(`/api/examples/${game}`)).json();
      const cells = example.after.cells.slice();
      for (const [, cell, count] of backwards(example.before, example.sowing)) cells[cell] = count;
      return [cells, example.before.cells];
    }""", game)
    assert restored[0] == restored[1]


def test_how_to_play_leads_to_the_lesson(server, context):
    page = context.new_page()
    new_game(page, server, "kalah", "local")
    page.click("#rules")
    wait_until(lambda: page.is_visible("#rules-dialog"), what="how to play")
    page.click("#rules-learn")
    wait_until(lambda: page.is_visible("#lesson") and playable(page), what="the lesson")
    assert "learn=kalah" in page.evaluate("location.search")
    page.click("#lesson-back")
    wait_until(lambda: page.is_visible("#home"), what="the home page")


def test_a_file_of_several_games_offers_a_menu_and_loads_the_one_chosen(server, context):
    import random

    import mancalab
    from mancalab.records import GameRecord

    texts = []
    for seed in (1, 2):  # two finished games one after another, as a tournament writes them
        rng = random.Random(seed)
        record = GameRecord.new(mancalab.variant("kalah", pits=3, seeds=2), ("Ann", "Bo"))
        while not record.state.is_over:
            record.push(rng.choice(record.state.legal_moves()))
        texts.append(record)
    page = context.new_page()
    page.goto(server)
    page.click("details.load summary")
    page.set_input_files("#record-file", files=[{
        "name": "records.txt", "mimeType": "text/plain",
        "buffer": "\n".join(r.to_text() for r in texts).encode()}])
    page.wait_for_selector("#record-games:not([hidden])")
    assert page.locator("#record-game option").count() == 3  # "choose" and the two games
    assert "2. Ann – Bo" in page.locator("#record-game option").nth(2).inner_text()
    page.select_option("#record-game", "2")
    page.wait_for_selector("#play:not([hidden])")
    wait_until(lambda: api_state(server, page)["ply"] == len(texts[1].moves),
               what="the second game loaded")


def test_a_gabata_computer_turn_is_shown_in_seconds_without_console_errors(server, context):
    """At the normal speed a whole computer turn, relays and extra turns and all, is shown
    within 6 s of its last move arriving; stepping through the game makes no console error."""
    page = context.new_page()
    problems = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    new_game(page, server, "gabata", "computer", bot="easy", speed="200")
    for _ in range(3):
        wait_until(lambda: playable(page) and not page.evaluate(
            "document.body.classList.contains('animating')"), seconds=60, what="my turn")
        before = api_state(server, page)["ply"]
        page.locator(f".hole[data-cell='{playable(page)[0]}']").click()

        def my_turn_again():
            state = api_state(server, page)
            return state["ply"] > before and (state["to_move"] == 0 or state["result"])

        wait_until(my_turn_again, seconds=60, what="the computer's turn")
        arrived = time.monotonic()  # every move of the turn is in; the page shows them
        wait_until(lambda: not page.evaluate("document.body.classList.contains('animating')")
                   and moves_shown(page) == api_state(server, page)["ply"], seconds=60,
                   what="the turn shown")
        assert time.monotonic() - arrived < 6.0
        if api_state(server, page)["result"]:
            break
    if not api_state(server, page)["result"]:  # End game asks first: a mistaken tap is safe
        asked = []
        page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
        page.click("#end-game")
        wait_until(lambda: asked, what="the question")
        assert "agreement" in asked[0] and not api_state(server, page)["result"]
    for _ in range(4):  # through the game with the arrow keys and back
        page.keyboard.press("ArrowLeft")
    for _ in range(4):
        page.keyboard.press("ArrowRight")
    page.wait_for_timeout(1500)
    assert problems == [], problems


def test_puzzles_are_offered_for_every_game(server, context):
    page = context.new_page()
    page.goto(server)
    for game in mancalab.variants():
        page.check(f"input[name=game][value={game}]")
        assert page.locator("#home-puzzles").is_visible(), game


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_level_menu_names_people_levels_and_other_players_in_words(server, context,
                                                                      language):
    page = context.new_page()
    page.goto(server)
    # the language box acts once the page has its texts and games (a busy machine is slow)
    wait_until(lambda: page.locator("input[name=game]").count() > 0, what="the new-game form")
    page.select_option("#language", language)
    expected = "Calcule loin (fort)" if language == "fr" else "Thinks far ahead (strong)"

    def options():
        return page.eval_on_selector_all("#bot option", "els => els.map(e => e.textContent)")

    wait_until(lambda: expected in options(), what="the levels in the language")
    raw = {"random", "greedy", "classic", "mcts", "alphabeta", "perfect"}
    assert not raw & set(options()), options()  # no engine's bare name
    assert page.locator("#bot optgroup").count() == 1
    detail = page.eval_on_selector("#bot option[value=alphabeta]", "e => e.title")
    assert detail == ("Recherche alpha-bêta" if language == "fr" else "Alpha-beta search")


@pytest.mark.parametrize("language, said", [
    ("en", "With best play you win by 10 seeds."),
    ("fr", "Avec le meilleur jeu, vous gagnez de 10 graines."),
])
def test_a_text_about_the_reader_agrees_with_you(server, context, language, said):
    page = context.new_page()
    page.goto(server)
    wait_until(lambda: page.locator("input[name=game]").count() > 0, what="the page")
    text = page.evaluate("""async (code) => {
        const texts = await import('/static/js/texts.js');
        await texts.setLanguage(code);
        return [texts.t('review_ahead_exact', {name: texts.t('you'),
                                               amount: texts.plural('unit_kalah', 10)}),
                texts.t('wins', {name: 'Almaz'})];
    }""", language)
    assert text[0] == said and "Almaz" in text[1]


def test_a_race_start_is_said_in_words(server, context):
    page = context.new_page()
    new_game(page, server, "gabata3")
    wait_until(lambda: "won the opening race" in page.inner_text("#status"), what="the race")
    page.goto(server)  # the same game with no race: nothing said
    page.check("input[name=game][value=gabata3]")
    page.check("input[name=mode][value=local]")
    page.click("#advanced summary")
    page.select_option("[data-option=race]", "none")
    page.click("#new-game button[type=submit]")
    page.wait_for_selector("#play:not([hidden])")
    wait_until(lambda: playable(page), what="the board")
    assert "race" not in page.inner_text("#status")


def signed_up(browser, server, name, width, height):
    """A page of a new browser profile whose person has just made the account ``name``."""
    page = browser.new_context(viewport={"width": width, "height": height}).new_page()
    page.goto(server)
    page.fill("#account-name", name)
    page.fill("#account-password", "a long password")
    page.click("#sign-up")
    wait_until(lambda: page.is_visible("#account-in"), what="the account")
    return page


def test_a_seek_survives_a_reload_and_a_seat_follows_its_account_to_another_browser(
        server, browser):
    """Issue 84: a seek made, the page reloaded, the seek taken from another browser: the
    seeker's page opens the game; logged in on a second browser, she plays it from there."""
    ama, kofi = (signed_up(browser, server, name, 390, 844) for name in ("Abebe", "Tigist"))
    ama.check("input[name=game][value=gebeta]")
    ama.select_option("#seek-color", "first")
    ama.click("#seek-form button[type=submit]")
    wait_until(lambda: ama.is_visible("#seek-waiting"), what="the seek")
    ama.reload()  # the seek is the account's, not the tab's
    wait_until(lambda: ama.is_visible("#seek-waiting"), what="the seek after a reload")
    kofi.reload()
    wait_until(lambda: kofi.locator("#seeks-body button").count() == 1, what="the lobby")
    kofi.click("#seeks-body button")
    ama.wait_for_selector("#play:not([hidden])", timeout=15_000)
    game_id = api_state(server, ama)["id"]
    laptop = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    laptop.goto(server)
    wait_until(lambda: laptop.locator("input[name=game]").count() > 0, what="the page")
    laptop.fill("#account-name", "Abebe")
    laptop.fill("#account-password", "a long password")
    laptop.click("#account button[type=submit]")
    wait_until(lambda: laptop.is_visible("#account-in"), what="logged in")
    wait_until(lambda: laptop.locator("#my-games-list li").count() == 1, what="My games")
    laptop.goto(f"{server}/?game={game_id}")  # no token: the account's seat
    wait_until(lambda: playable(laptop), what="her move on the second browser")
    laptop.click(f".hole[data-cell='{playable(laptop)[0]}']")
    wait_until(lambda: moves_shown(kofi) >= 1, what="the move on the opponent's page")
    for page in (ama, kofi, laptop):
        page.context.close()


def test_the_lobby_is_pushed_and_a_guests_seek_survives_a_reload(server, browser):
    """Issue 84: a guest's seek reaches another page's lobby without its asking (the page
    asks only while the lobby's socket is away), survives its page's reload (the guest
    cookie), and once taken opens the game on the seeker's page."""
    seeker, taker = (browser.new_context(viewport={"width": 390, "height": 844}).new_page()
                     for _ in range(2))
    for page in (seeker, taker):
        page.goto(server)
        wait_until(lambda p=page: p.locator("input[name=game]").count() > 0, what="the page")
    asked = []
    taker.on("request", lambda request: asked.append(request.url)
             if "/api/seeks" in request.url else None)
    time.sleep(1)  # the lobby's socket is open
    seeker.check("input[name=game][value=kalah]")
    seeker.click("#seek-form button[type=submit]")
    wait_until(lambda: seeker.is_visible("#seek-waiting"), what="the seek")
    wait_until(lambda: taker.locator("#seeks-body button").count() == 1, seconds=3,
               what="the seek pushed to the other page")
    assert not [url for url in asked if url.endswith("/api/seeks")]  # pushed, not asked for
    assert not taker.is_visible("#lobby-offline")
    seeker.reload()  # a guest's seek is the guest cookie's, not the tab's
    wait_until(lambda: seeker.is_visible("#seek-waiting"), what="the seek after a reload")
    taker.click("#seeks-body button")
    seeker.wait_for_selector("#play:not([hidden])", timeout=15_000)
    for page in (seeker, taker):
        page.context.close()


def test_a_player_challenges_another_who_sees_it_live_and_takes_it(server, browser):
    """Issue 83: a particular person on a clock, rated: the challenge reaches only them, in
    their language, and taking it opens the game on both pages."""
    ama, kofi = (signed_up(browser, server, name, width, height)
                 for name, width, height in (("Esi", 1280, 800), ("Yaw", 390, 844)))
    kofi.select_option("#language", "fr")
    ama.check("input[name=game][value=oware]")
    ama.select_option("#seek-clock", "2")
    ama.check("#seek-rated")
    ama.fill("#challenge-name", "yaw")
    ama.click("#challenge-form button[type=submit]")
    wait_until(lambda: "Yaw" in ama.inner_text("#seek-waiting-text"), what="the challenge")
    wait_until(lambda: kofi.is_visible("#challenges"), what="the challenge on Yaw's page")
    assert "Esi vous défie" in kofi.inner_text("#challenge-list")
    assert no_sideways_scroll(kofi)
    kofi.evaluate("window.scrollTo(0, 0)")  # at the top of the home page, where one looks
    assert kofi.locator("#challenges").is_visible()
    kofi.screenshot(path=str(ARTIFACTS / "challenge-390-fr.png"))
    kofi.click("#challenge-list button.primary")
    for page in (ama, kofi):
        page.wait_for_selector("#play:not([hidden])", timeout=15_000)
    state = api_state(server, ama)
    assert state["rated"] and state["clock"] and sorted(state["names"]) == ["Esi", "Yaw"]
    for page in (ama, kofi):
        page.context.close()


def test_the_lobby_and_a_long_name_fit_a_phone_in_kirundi(server, browser):
    """Issue 83: Kirundi's lobby table overflowed a phone (420 px on 390), and a long
    opponent's name pushed their clock onto its own line. The seeker's rating is shown
    beside the name, in the lobby and in the game."""
    long_name = "Ndayishimiye Nkurunziza Bizimana"
    seeker, taker = (signed_up(browser, server, name, 390, 844)
                     for name in (long_name, "Iradukunda"))
    seeker.check("input[name=game][value=urubugu]")
    seeker.select_option("#seek-clock", "3")
    seeker.click("#seek-form button[type=submit]")
    wait_until(lambda: seeker.is_visible("#seek-waiting"), what="the seek")
    taker.select_option("#language", "rn")
    taker.reload()
    wait_until(lambda: taker.locator("#seeks-body button").count() == 1, what="the lobby")
    assert "(1500?)" in taker.inner_text("#seeks-body") and no_sideways_scroll(taker)
    taker.click("#seeks-body button")
    taker.wait_for_selector("#play:not([hidden])", timeout=15_000)
    wait_until(lambda: taker.locator("#player-top .clock").count() == 1, what="the clocks")
    taker.screenshot(path=str(ARTIFACTS / "long-name-390-rn.png"))
    name_box = wait_until(lambda: taker.locator("#player-top .name").bounding_box(),
                          what="the name drawn")  # (None while the bar is drawn again)
    clock_box = wait_until(lambda: taker.locator("#player-top .clock").bounding_box(),
                           what="the clock drawn")
    assert abs(name_box["y"] - clock_box["y"]) < name_box["height"]  # one line
    assert taker.inner_text("#player-top .rating") == "1500?" and no_sideways_scroll(taker)
    for page in (seeker, taker):
        page.context.close()


def _english_sentences() -> set[str]:
    """The English pieces of three words or more the page has words for (each text's parts
    between its {slots}): none may show on a page in another language."""
    import re

    english = json.loads((Path(mancalab.__file__).parent / "web" / "static" / "i18n" /
                          "en.json").read_text())
    texts = [v for value in english.values()
             for v in (value.values() if isinstance(value, dict) else [value])]
    return {piece.strip(" .,:;…") for text in texts for piece in re.split(r"\{[^}]*\}", text)
            if len(piece.split()) >= 3}


def _english_on(page, sentences) -> list[str]:
    shown = page.evaluate("document.body.innerText")
    return sorted(sentence for sentence in sentences if sentence in shown)


@pytest.mark.parametrize("language", ["fr", "am"])
def test_no_english_sentence_in_the_online_flows_of_another_language(server, browser,
                                                                       language):
    """Issue 83: every word a page shows in the lobby, a game, an abort and the end is in
    the reader's language, the server's errors included."""
    sentences = _english_sentences()
    ama, kofi = (signed_up(browser, server, f"{name}{language}", 1280, 800)
                 for name in ("Lina", "Musa"))
    for page in (ama, kofi):
        page.select_option("#language", language)
    ama.check("input[name=game][value=kalah]")
    ama.select_option("#seek-clock", "1")
    ama.check("#seek-rated")
    ama.click("#seek-form button[type=submit]")
    wait_until(lambda: ama.is_visible("#seek-waiting"), what="the seek")
    ama.fill("#challenge-name", "nobody-at-all")  # an error from the server, said here
    ama.click("#challenge-form button[type=submit]")
    wait_until(lambda: ama.inner_text("#world-error"), what="the server's error")
    kofi.reload()
    wait_until(lambda: kofi.locator("#seeks-body button").count() >= 1, what="the lobby")
    assert _english_on(ama, sentences) == [] and _english_on(kofi, sentences) == []
    kofi.click("#seeks-body button")
    for page in (ama, kofi):
        page.wait_for_selector("#play:not([hidden])", timeout=15_000)
        wait_until(lambda p=page: p.is_visible("#first-move"), what="the first-move countdown")
        assert _english_on(page, sentences) == [], language
    kofi.once("dialog", lambda dialog: dialog.accept())
    kofi.click("#abort")
    for page in (ama, kofi):
        wait_until(lambda p=page: p.is_visible("#end-dialog"), what="the end")
        assert _english_on(page, sentences) == [], language
    for page in (ama, kofi):
        page.context.close()


def test_two_accounts_meet_in_the_lobby_play_rated_on_the_clock_and_see_their_ratings(
        server, browser):
    """Two browsers make accounts, one seeks a rated Oware game with a clock, the other takes
    it from the lobby; both play, the clocks count down, one resigns; both see the new
    ratings in their profiles."""
    pages = [signed_up(browser, server, name, 1000, 900) for name in ("Ama", "Kofi")]
    ama, kofi = pages
    ama.check("input[name=game][value=oware]")
    assert ama.input_value("#seek-game") == "oware"  # the seek form names its game
    ama.select_option("#seek-clock", "1")  # 3+2
    ama.select_option("#seek-color", "first")
    ama.check("#seek-rated")
    ama.click("#seek-form button[type=submit]")
    wait_until(lambda: ama.is_visible("#seek-waiting"), what="the seek")
    wait_until(lambda: not ama.is_visible("#no-seeks"), what="no 'nobody is waiting'")
    kofi.reload()
    wait_until(lambda: kofi.locator("#seeks-body button").count() == 1, what="the lobby")
    assert "Ama" in kofi.inner_text("#seeks-body") and "3+2" in kofi.inner_text("#seeks-body")
    kofi.click("#seeks-body button")
    for page in pages:
        page.wait_for_selector("#play:not([hidden])", timeout=15_000)
    wait_until(lambda: playable(ama), what="Ama's turn")
    ama.click(f".hole[data-cell='{playable(ama)[0]}']")
    wait_until(lambda: kofi.locator(".clock.running").count() == 1, what="Kofi's clock")
    first = kofi.inner_text(".clock.running")
    wait_until(lambda: kofi.inner_text(".clock.running") != first, seconds=5,
               what="the clock counting down")
    assert not ama.is_visible("#undo")  # a rated game has no take-backs
    # before both have moved: Abort, not Resign, and the first move's countdown
    assert kofi.is_visible("#abort") and not kofi.is_visible("#resign")
    assert "30" in kofi.inner_text("#first-move") or "29" in kofi.inner_text("#first-move")
    kofi.screenshot(path=str(ARTIFACTS / "abort-first-move.png"))
    wait_until(lambda: playable(kofi), what="Kofi's turn")
    kofi.click(f".hole[data-cell='{playable(kofi)[0]}']")
    wait_until(lambda: kofi.is_visible("#resign"), what="Resign once both have moved")
    assert not kofi.is_visible("#abort") and not kofi.is_visible("#first-move")
    kofi.once("dialog", lambda dialog: dialog.accept())
    kofi.click("#resign")
    for page in pages:
        wait_until(lambda p=page: p.is_visible("#end-dialog"), what="the end")
    # who ended it and what it did to the ratings
    assert "Kofi resigned" in ama.inner_text("#end-reason")
    wait_until(lambda: "Ama 1500 → " in ama.inner_text("#end-ratings"), what="the ratings")
    assert "(+" in ama.inner_text("#end-ratings") and "(−" in ama.inner_text("#end-ratings")
    ama.screenshot(path=str(ARTIFACTS / "end-rated.png"))
    # a rematch on the same terms, offered to the other wherever she is on the page
    finished = api_state(server, ama)["id"]
    ama.click("#end-close")
    kofi.click("#end-rematch")
    wait_until(lambda: ama.is_visible("#rematch-offer"), what="the rematch offered")
    assert "Kofi" in ama.inner_text("#rematch-text")
    ama.screenshot(path=str(ARTIFACTS / "rematch-offer.png"))
    ama.click("#rematch-accept")
    wait_until(lambda: api_state(server, ama)["id"] != finished, what="the rematch opened")
    again = api_state(server, ama)
    assert again["rated"] and again["clock"]["base"] == 180 and again["names"] == ["Kofi", "Ama"]
    for page, gained in ((ama, True), (kofi, False)):
        page.goto(server)
        page.click("#my-profile")
        try:
            wait_until(lambda p=page: p.is_visible("#profile-dialog"), seconds=10,
                       what="the profile")
        except AssertionError:  # seen once in a loaded CI run, not since: kept for a look
            page.screenshot(path=str(ARTIFACTS / "profile-missed.png"))
            said = page.inner_text("#world-error")
            assert not said, said
            page.click("#my-profile")
            wait_until(lambda p=page: p.is_visible("#profile-dialog"), what="the profile")
        rating = int(page.inner_text("#profile-ratings td:nth-child(2)").rstrip("?"))
        assert (rating > 1500) == gained
        assert page.locator("#profile-charts svg polyline").count() == 1
        assert page.locator("#profile-charts svg text").count() >= 2  # the chart's axes
        recent = page.inner_text("#profile-recent")  # with the opponent and the date
        assert ("Kofi" if gained else "Ama") in recent
        page.screenshot(path=str(ARTIFACTS / f"profile-{'win' if gained else 'loss'}.png"))
        page.click("#profile-close")
        page.check("input[name=game][value=oware]")
        page.click("#leaderboard-open")  # one game each: both provisional, shown as such
        wait_until(lambda p=page: p.locator("#leaderboard-list li").count() == 2,
                   what="the leaderboard")
        assert "?" in page.inner_text("#leaderboard-list")
        page.click("#leaderboard-close")
    for page in pages:
        page.context.close()


def test_an_arena_opened_on_the_page_pairs_the_players_who_join(server, browser):
    pages = [signed_up(browser, server, name, 390, 844) for name in ("Adjoa", "Kwame")]
    adjoa, kwame = pages
    adjoa.check("input[name=game][value=kalah]")
    adjoa.click("#arena-form button[type=submit]")
    wait_until(lambda: adjoa.is_visible("#arena-view"), what="the arena")
    kwame.reload()
    wait_until(lambda: kwame.locator("#arena-list button").count() == 1, what="the arena list")
    assert "Kalah" in kwame.inner_text("#arena-list")
    kwame.click("#arena-list button")
    for page in pages:  # paired at once: each page opens its game by itself
        page.wait_for_selector("#play:not([hidden])", timeout=15_000)
    wait_until(lambda: adjoa.locator(".clock").count() == 2, what="the clocks")
    adjoa.screenshot(path=str(ARTIFACTS / "arena-game-390.png"))
    for page in pages:
        page.context.close()


def test_an_arena_has_a_page_of_its_own_and_its_next_game_opens_over_the_last(server,
                                                                               browser):
    """Issue 83: /?arena=ID showed the home page, the next game opened underneath the last
    game's end dialog, and the list said Join to players already in. The arena's own page
    has its clock, standings, games going on and link; each next game opens by itself."""
    adjoa, kwame = (signed_up(browser, server, name, width, 844)
                    for name, width in (("Abena", 1280), ("Kojo", 390)))
    adjoa.check("input[name=game][value=kalah]")
    adjoa.click("#arena-form button[type=submit]")
    wait_until(lambda: adjoa.is_visible("#arena-view"), what="the arena")
    arenas = adjoa.evaluate("fetch('/api/arenas').then(r => r.json())")["arenas"]
    arena_id = next(a["id"] for a in arenas if a["by"] == "Abena")  # other tests' arenas too
    adjoa.goto(server)
    wait_until(lambda: adjoa.locator("#arena-list button").count() == len(arenas),
               what="the list")
    mine = [a["id"] for a in arenas].index(arena_id)
    assert adjoa.locator("#arena-list button").nth(mine).inner_text() == "Standings"  # in it
    kwame.goto(f"{server}/?arena={arena_id}")
    wait_until(lambda: "Abena" in kwame.inner_text("#arena-page-standings"), what="the page")
    assert "left" in kwame.inner_text("#arena-when") and arena_id in kwame.input_value(
        "#arena-link")
    assert no_sideways_scroll(kwame)
    kwame.screenshot(path=str(ARTIFACTS / "arena-page-390.png"))
    kwame.click("#arena-join")
    kwame.wait_for_selector("#play:not([hidden])", timeout=15_000)
    first = api_state(server, kwame)["id"]
    kwame.once("dialog", lambda dialog: dialog.accept())
    wait_until(lambda: kwame.is_visible("#resign") or kwame.is_visible("#abort"),
               what="the game's controls")
    assert not kwame.is_visible("#abort")  # an arena game is not aborted by a player
    kwame.click("#resign")
    wait_until(lambda: api_state(server, kwame)["id"] != first, what="the next game")
    wait_until(lambda: not kwame.is_visible("#end-dialog"), what="the last end put away")
    for page in (adjoa, kwame):
        page.context.close()


def test_quick_pairing_brings_two_guests_into_one_game_that_others_can_watch(server, browser):
    pages = []
    for _ in range(2):
        context = browser.new_context(viewport={"width": 1000, "height": 900})
        page = context.new_page()
        page.goto(server)
        page.check("input[name=game][value=gebeta]")
        wait_until(lambda p=page: p.locator("#quick button").count() == 3, what="quick pairing")
        pages.append(page)
    pages[0].click("#quick button >> nth=1")  # 5+3: nobody waits, so a seek opens
    wait_until(lambda: pages[0].is_visible("#seek-waiting"), what="the seek")
    pages[1].click("#quick button >> nth=1")  # the same clock: the waiting seek is taken
    for page in pages:
        page.wait_for_selector("#play:not([hidden])", timeout=15_000)
    # The board is shown before its legal moves arrive from the server: wait for them.
    mover = wait_until(lambda: next((p for p in pages if playable(p)), None),
                       what="the first mover's legal moves")
    mover.click(f".hole[data-cell='{playable(mover)[0]}']")
    friends = json.load(urllib.request.urlopen(urllib.request.Request(  # a private game
        f"{server}/api/games", method="POST", headers={"Content-Type": "application/json"},
        data=json.dumps({"game": "gebeta", "mode": "online", "names": ["Mum", "Dad"]}).encode())))
    urllib.request.urlopen(urllib.request.Request(
        f"{server}/api/games/{friends['id']}/moves", method="POST",
        headers={"Content-Type": "application/json"},
        data=json.dumps({"token": friends["token"], "move": 0}).encode()))
    watcher = browser.new_context().new_page()
    watcher.goto(server)
    wait_until(lambda: watcher.locator("#live-list a").count() >= 1, what="the live list")
    assert "Gebeta" in watcher.inner_text("#live-list")
    links = watcher.eval_on_selector_all("#live-list a", "els => els.map(e => e.href)")
    assert not any(friends["id"] in link for link in links)  # a friend's game is not listed
    assert "Mum" not in watcher.inner_text("#live-list")
    for page in pages + [watcher]:
        page.context.close()


def bot_online(server, name: str, spec: str, **policy) -> tuple:
    """A BOT account ``name`` made through the API and brought online by the bridge (in a
    thread): the bridge and its thread."""
    import threading

    import httpx2 as httpx

    from mancalab.web.bridge import Bridge, Policy

    with httpx.Client(base_url=server) as client:
        client.post("/api/accounts", json={"name": name, "password": "a long password"})
        token = client.post("/api/tokens", json={"label": "bridge"}).json()["token"]
        client.post("/api/bot/account/upgrade", headers={"Authorization": f"Bearer {token}"})
    said: list[str] = []  # what the bridge logs, shown when a test fails
    bridge = Bridge(server, token, spec, Policy(**policy), log=said.append)
    bridge.said = said
    thread = threading.Thread(target=bridge.run, daemon=True)
    thread.start()
    return bridge, thread


def test_people_watch_two_bots_play_and_challenge_one_from_its_profile(server, browser,
                                                                       tmp_path):
    """Issue 86: a UGI engine and an engine-protocol engine, bridged as BOTs, play a rated
    clocked game while a person watches (BOT beside their names); then the person
    challenges one of them from its profile, and it accepts and plays."""
    examples = Path(__file__).parents[2] / "docs" / "examples"
    python = __import__("sys").executable
    ugi, ugi_thread = bot_online(server, "Ugibot",
                                 f"ugi:cmd={python} {examples / 'random_ugi_kalah.py'}")
    mep, mep_thread = bot_online(server, "Mepbot",
                                 f"engine:cmd={python} {examples / 'random_engine.py'}")
    import httpx2 as httpx

    person = signed_up(browser, server, "Watcher", 1280, 800)
    ugi.start()
    ugi.challenge("Mepbot", "kalah", {}, (60, 1), rated=True)
    with httpx.Client(base_url=server) as client:  # two random bots may end within a second
        game = wait_until(lambda: next((g for g in client.get("/api/live").json()["games"]
                                        if set(g["names"]) == {"Ugibot", "Mepbot"}), None),
                          what="the bots' game listed")  # other tests' games are live too
    person.goto(f"{server}/?game={game['id']}")
    wait_until(lambda: person.locator(".player-bar .bot-tag").count() == 2,
               what="BOT beside both names")
    wait_until(lambda: moves_shown(person) >= 2, what="the bots' moves")
    person.screenshot(path=str(ARTIFACTS / "bots-watched-1280.png"))
    wait_until(lambda: api_state(server, person)["result"], what="the bots' game's end")
    assert api_state(server, person)["rated"]
    person.goto(server)
    wait_until(lambda: person.is_visible("#account-in"), what="the account")
    person.check("input[name=game][value=kalah]")
    person.click("#leaderboard-open")
    person.check("#leaderboard-bots")  # bots are rated apart: a board of their own
    wait_until(lambda: person.locator("#leaderboard-list button").count() >= 1,
               what="the bots' leaderboard")
    person.click("#leaderboard-list button:text('Mepbot')")
    wait_until(lambda: person.is_visible("#profile-bot"), what="BOT on the profile")
    person.click("#profile-challenge")
    person.wait_for_selector("#play:not([hidden])", timeout=20_000)
    wait_until(lambda: person.locator(".player-bar .bot-tag").count() == 1,
               what="the bot's seat marked")
    for _ in range(2):  # the person moves; the bot answers from its bridge
        wait_until(lambda: playable(person) or api_state(server, person)["result"],
                   what="the person's turn")
        before = moves_shown(person)
        cells = playable(person)
        if api_state(server, person)["result"] or not cells:
            break
        person.click(f".hole[data-cell='{cells[0]}']")
        wait_until(lambda: moves_shown(person) > before, what="the person's move")
    try:
        wait_until(lambda: moves_shown(person) >= 3, what="the bot's answer")
    except AssertionError as error:
        state = api_state(server, person)
        raise AssertionError(f"{error}; the game: ply {state['ply']}, to move "
                             f"{state.get('to_move')}, seats {state['names']}; the bridge said "
                             f"{mep.said}") from None
    for bridge in (ugi, mep):
        bridge.stop()
    person.context.close()


def test_a_teacher_runs_a_class_of_thirty_from_one_address(browser, tmp_path, monkeypatch):
    """Issue 85, on a server with default limits: a teacher makes a class, thirty pupils
    join with its code from one address (27 programs and 3 real pages), the teacher assigns
    puzzles, pupils solve some and the progress table shows it, then a round robin of six
    is run to its end on the projector page and printed."""
    import httpx2 as httpx

    from .conftest import serving

    monkeypatch.setattr("mancalab.web.routes.classes.EXACT_SECONDS", 0.02)  # starts: unproven
    with serving(tmp_path / "games.sqlite3") as server:
        teacher = signed_up(browser, server, "Teacher", 1280, 800)
        teacher.fill("#class-make-name", "Grade 5")
        teacher.check("#class-make-games input[value=kalah]")
        teacher.click("#class-make button[type=submit]")
        wait_until(lambda: teacher.is_visible("#class-page-code"), what="the class page")
        code = teacher.inner_text("#class-page-code")
        wait_until(lambda: teacher.locator("#class-join-qr svg").count() == 1,
                   what="the join sheet's QR code")
        class_id = teacher.evaluate("new URLSearchParams(location.search).get('class')")
        pupils = []
        for number in range(27):
            client = httpx.Client(base_url=server)
            joined = client.post("/api/classes/join", json={"code": code,
                                                            "name": f"Child {number}"})
            assert joined.status_code == 201, joined.text
            pupils.append((client, joined.json()))
        pages = []
        for name in ("Abebe", "Tigist", "Kirenga"):
            page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
            page.goto(f"{server}/?join={code}")  # the join sheet's QR code leads here
            wait_until(lambda p=page: p.is_visible("#class-join"), what="the join form")
            wait_until(lambda p=page: p.input_value("#class-join-code") == code,
                       what="the code filled in from the address")  # a busy machine is slow
            page.fill("#class-join-name", name)
            page.click("#class-join button[type=submit]")
            wait_until(lambda p=page: p.is_visible("#class-pictures-shown"),
                       what="the pupil's pictures")
            pages.append(page)
        assert no_sideways_scroll(pages[0])
        teacher.select_option("#class-assign-kind", "puzzles")
        teacher.fill("#class-assign-count", "2")
        teacher.click("#class-assign button[type=submit]")
        wait_until(lambda: teacher.locator("#class-assignment-list li").count() == 1,
                   what="the assignment")
        for client, _ in pupils[:5]:
            for draw in range(2):
                puzzle = client.get("/api/puzzles/kalah", params={"draw": draw}).json()
                best = client.post(f"/api/puzzles/answer/{puzzle['id']}",
                                   json={"move": puzzle["legal"][0]}).json()["best"]
                client.post(f"/api/puzzles/try/{puzzle['id']}", json={"move": best})
        pages[0].reload()
        wait_until(lambda: pages[0].locator("#my-class-todo li").count() == 1,
                   what="the pupil's to-do")
        assert pages[0].locator("#my-class").bounding_box()["y"] < 400  # at the top
        pages[0].screenshot(path=str(ARTIFACTS / "class-pupil-390.png"))
        teacher.reload()
        wait_until(lambda: teacher.locator("#class-progress-body tr").count() == 30,
                   what="thirty pupils in the progress table")
        assert teacher.locator("#class-progress-body td:nth-child(8):text-is('2/2')").count() == 5
        teacher.screenshot(path=str(ARTIFACTS / "class-teacher-1280.png"), full_page=True)
        six = [made["pupil"] for _, made in pupils[:6]]
        link = teacher.evaluate("""async ([id, six]) => (await (await fetch(
            `/api/classes/${id}/tournaments`, {method: "POST",
            headers: {"Content-Type": "application/json"},
            body: JSON.stringify({game: "kalah", clock: {base: 300, increment: 3},
                                  pupils: six})})).json()).link""", [class_id, six])
        teacher.goto(server + link)
        for number in range(5):
            teacher.click("#tournament-next")
            wait_until(lambda n=number: teacher.locator("#tournament-rounds section").count()
                       == n + 1, what="the round started")
            while teacher.locator("#tournament-rounds button").count():
                try:  # the page redraws every 5 s: a button may go under the click
                    teacher.locator("#tournament-rounds button").first.click(timeout=2000)
                except Exception:  # noqa: BLE001 - looked at again
                    pass
                time.sleep(0.2)
        wait_until(lambda: not teacher.is_visible("#tournament-next"), what="the last round")
        assert teacher.locator("#tournament-standings tr").count() == 6
        teacher.screenshot(path=str(ARTIFACTS / "class-tournament-1280.png"), full_page=True)
        teacher.emulate_media(media="print")
        printed = teacher.pdf(path=str(tmp_path / "results.pdf"))
        assert printed[:4] == b"%PDF"
        for page in (teacher, *pages):
            page.context.close()
        for client, _ in pupils:
            client.close()
