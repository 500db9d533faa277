"""UGI both ways: mancalab's UGI engine driven line by line as a UGI runner drives it, and an
engine written here from the profile alone (no mancalab inside) played as ``ugi:cmd=...``."""

from __future__ import annotations

import io
import random
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import mancalab
from mancalab.analysis.compete import arena
from mancalab.players.ugi import result_word, serve
from mancalab.records import GameRecord
from mancalab.variants import examples

# A random Kalah(6,4) engine written from docs/ugi.md alone (no mancalab inside)
EXAMPLES = Path(__file__).parents[2] / "docs" / "examples"
RANDOM_ENGINE = (EXAMPLES / "random_ugi_kalah.py").read_text()


def _engine(tmp_path, body: str = RANDOM_ENGINE, name: str = "random_ugi") -> str:
    path = tmp_path / f"{name}.py"
    path.write_text(body)
    return f"{sys.executable} {path}"


def _talk(lines: str, game: str = "kalah", spec: str = "greedy", **options) -> list[str]:
    out = io.StringIO()
    serve(game, options, spec, io.StringIO(textwrap.dedent(lines)), out)
    return out.getvalue().splitlines()


def test_mancalab_answers_a_runner_as_the_spec_shows():
    answers = _talk("""\
        ugi
        isready
        uginewgame
        position startpos
        query p1turn
        go movetime 300
        position startpos moves 3
        query p1turn
        query gameover
        query result
        position fen 5,2S/3,5S,1,1S 20 20 N 12
        go p1time 1000 p2time 1000 p1inc 10 p2inc 10
        """)
    assert answers[0] == "id name mancalab greedy (kalah)"
    assert "option name pits type spin default 6 min 1 max 30" in answers
    assert "option name empty_capture type check default true" in answers
    assert "option name end_rule type combo default side_empty var side_empty var no_move" \
        in answers
    rest = answers[answers.index("ugiok") + 1:]
    assert rest[:2] == ["readyok", "response true"]
    assert rest[3] == "bestmove 4"  # greedy: the pit whose last seed ends in the store
    assert rest[4:7] == ["response false", "response false", "response none"]
    assert rest[-1] == "bestmove 6"  # North's only seeds: its pit 6


def test_extra_turns_are_told_by_p1turn_and_repetition_ends_an_oware_game():
    answers = _talk("""\
        position startpos moves 4
        query p1turn
        """)
    assert answers == ["response true"]  # Kalah's pit 4 ends in the store: South again
    # Oware: a third repetition ends the game by the rule for endless play
    oware = mancalab.variant("oware")
    state = oware.state([1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 23, 23])
    record = GameRecord(oware, state)
    moves = []
    while not record.state.is_over:
        move = record.state.legal_moves()[0]
        moves.append(record.state.move_name(move))
        record.push(move)
    answers = _talk(f"""\
        position fen {state.fen()} moves {' '.join(moves)}
        query gameover
        query result
        """, game="oware")
    result = result_word(record.state)
    assert answers == ["response true", f"response {result}"]


def test_options_are_set_and_bad_lines_get_an_error_and_leave_no_position():
    answers = _talk("""\
        setoption name pits value 4
        position startpos
        query fen
        setoption name pits value 99
        setoption name colour value red
        setoption pits 4
        position fen 4S,4S/4S 0 0 S 1
        go
        position startpos moves 7
        query fen
        position startpos
        go sometime
        query weather
        dance
        """)
    assert answers[0] == "response 4S,4S,4S,4S/4S,4S,4S,4S 0 0 S 1"
    errors = answers[1:]
    assert all(a.startswith("info string error: ") for a in errors), errors
    assert "pits" in errors[0] and "unknown option 'colour'" in errors[1]
    assert "setoption name NAME value VALUE" in errors[2] and "has 4 holes, got 2" in errors[3]
    assert "no position" in errors[4]  # the bad position left none behind
    assert "no pit 7" in errors[5] and "no position" in errors[6]
    assert "sometime" in errors[7] and "weather" in errors[8] and "unknown command" in errors[9]


def test_a_whole_game_through_the_protocol_alone(tmp_path):
    """As a UGI runner plays: the moves sent after the start, whose turn asked after each."""
    engine = subprocess.Popen([sys.executable, "-m", "mancalab", "ugi", "kalah", "--player",
                               "random"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True, bufsize=1)

    def ask(line: str, until: str) -> list[str]:
        engine.stdin.write(line + "\n")
        engine.stdin.flush()
        lines = [engine.stdout.readline().strip()]
        while not lines[-1].startswith(until):
            lines.append(engine.stdout.readline().strip())
        return lines

    try:
        ask("ugi", "ugiok")
        ask("isready", "readyok")
        moves, turns = [], []
        while True:
            position = "position startpos moves " + " ".join(moves)
            if ask(position + "\nquery gameover", "response")[-1] == "response true":
                break
            turns.append(ask("query p1turn", "response")[-1] == "response true")
            moves.append(ask("go movetime 50", "bestmove")[-1].split()[1])
        result = ask("query result", "response")[-1].split()[1]
    finally:
        engine.stdin.close()
        engine.wait(timeout=10)
    record = GameRecord.new(mancalab.variant("kalah"))
    for name, p1turn in zip(moves, turns):
        assert (record.state.to_move == 0) == p1turn
        record.push(record.state.parse_move(name))
    assert record.state.is_over and result_word(record.state) == result


def test_an_engine_written_from_the_profile_plays_in_the_arena(tmp_path):
    spec = f"ugi:cmd={_engine(tmp_path)}"
    results = arena.run(arena.schedule(spec, "random", "kalah", {}, 4, seed=1))
    assert all(r.how != "error" and r.error == "" for r in results), results[0].error
    assert all(r.plies > 10 for r in results)


def test_mancalab_drives_its_own_ugi_engine_on_a_clock():
    spec = f"ugi:cmd={sys.executable} -m mancalab ugi oware --player greedy"
    results = arena.run(arena.schedule(spec, "greedy", "oware", {}, 2, seed=2))
    assert [r.error for r in results] == ["", ""]
    engine = mancalab.player(spec)
    engine.clock = (30.0, 30.0)
    start = mancalab.variant("oware").start()
    assert engine.choose(start) in start.legal_moves()
    engine.close()


HANDSHAKE = textwrap.dedent("""\
    import sys, time
    for line in sys.stdin:
        if line.split() == ["ugi"]:
            print("ugiok", flush=True)
        elif line.startswith("isready"):
            print("readyok", flush=True)
        elif line.startswith("go"):
            {go}
    """)


@pytest.mark.parametrize("case, go, words", [
    ("crash", "sys.exit(3)", "exited (status 3)"),
    ("garbage", "print('hello there', flush=True)", "instead of bestmove"),
    ("illegal", "print('bestmove 9', flush=True)", "not legal"),
    ("hang", "time.sleep(60)", "no answer to go within"),
])
def test_a_failing_ugi_engine_loses_and_the_arena_goes_on(tmp_path, case, go, words):
    command = _engine(tmp_path, HANDSHAKE.format(go=go), case)
    started = time.monotonic()
    results = arena.run(arena.schedule(f"ugi:cmd={command},time=0.2", "random", "kalah",
                                       {}, 2, seed=1))
    assert time.monotonic() - started < 20
    for result in results:
        assert result.how == "error" and words in result.error, result.error
        assert result.score_for_a == 0.0


def test_random_positions_of_every_game_go_through_the_engine():
    rng = random.Random(3)
    for variant in examples():
        state = variant.start()
        for _ in range(rng.randrange(1, 12)):
            if state.is_over:
                break
            state = state.play(rng.choice(state.legal_moves()))
        if state.is_over:
            continue
        answers = _talk(f"position fen {state.fen()}\ngo movetime 20\n", game=variant.name,
                        spec="random", **variant.options)
        assert state.parse_move(answers[-1].split()[1]) in state.legal_moves(), answers
