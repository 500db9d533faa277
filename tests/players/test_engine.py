"""The engine protocol: mancalab as an engine, programs as players (the examples of
docs/engine-protocol.md among them), engines that fail, and players from Python files."""

from __future__ import annotations

import io
import sys
import textwrap
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

import mancalab
from mancalab.analysis.compete import arena
from mancalab.cli import app
from mancalab.core import MancalabError, UnknownOptionError
from mancalab.players import player
from mancalab.players.engine import EngineError, EnginePlayer, serve

EXAMPLES = Path(__file__).parents[2] / "docs" / "examples"
PYTHON_ENGINE = f"{sys.executable} {EXAMPLES / 'random_engine.py'}"


def _talk(lines: str, spec: str = "greedy") -> list[str]:
    out = io.StringIO()
    serve(spec, io.StringIO(textwrap.dedent(lines)), out)
    return out.getvalue().splitlines()


def test_mancalab_speaks_the_protocol():
    answers = _talk("""\
        mep 1
        game kalah pits=6 seeds=4 empty_capture=false
        position 4,4,4,4,4,4,0,4,4,4,4,4,4,0 0
        moves 1 2 3 4 5 6
        go time 0.5 clock 100 100
        position 0,0,0,0,0,1,20,0,0,0,0,0,1,26 1
        go
        quit
        go
        """)
    assert answers[:2] == ["id name mancalab greedy", "mepok 1"]
    assert answers[2] == "move 4"  # greedy: the pit whose last seed ends in the store
    assert answers[3] == "move 1"
    assert len(answers) == 4  # nothing after quit


def test_bad_commands_get_an_error_line_and_leave_no_position():
    answers = _talk("""\
        position 4,4 0
        game chess
        game kalah pits=99
        game kalah
        position 4,4,4 0
        go
        position 4,4,4,4,4,4,0,4,4,4,4,4,4,0 2
        go time soon
        go time inf
        dance
        """)
    assert all(a.startswith("error ") for a in answers), answers
    assert len(answers) == 9  # every line but the good game line
    assert "game first" in answers[0] and "unknown game" in answers[1]
    assert "pits" in answers[2] and "14 cells" in answers[3]
    assert "before position" in answers[4]  # the bad position left none behind
    assert "0 or 1" in answers[5] and "unknown command" in answers[-1]


def test_a_gabata3_position_with_its_extra_state():
    start = mancalab.variant("gabata3").start()
    owner = ",".join(map(str, start.extra["owner"]))
    answers = _talk(f"""\
        game gabata3
        position {",".join(map(str, start.cells))} {start.to_move} owner={owner} round=1
        go
        """)
    assert start.parse_move(answers[0].split()[1]) in start.legal_moves()


def test_the_python_example_engine_plays_in_the_arena():
    results = arena.run(arena.schedule(f"engine:cmd={PYTHON_ENGINE}", "random", "gebeta", {},
                                       4, seed=1))
    assert all(r.how != "error" and r.error == "" for r in results), results[0].error
    assert all(r.plies > 10 for r in results)


def test_mancalab_as_an_engine_plays_mancalab():
    engine = f"engine:cmd={sys.executable} -m mancalab engine --player greedy,time=5"
    results = arena.run(arena.schedule(engine, "greedy", "kalah", {}, 2, seed=2))
    assert [r.error for r in results] == ["", ""]
    # greedy against greedy from the same boards: the same games, colours swapped
    assert {r.score_for_a for r in results} <= {0.0, 0.5, 1.0}


def test_the_java_example_engine_beats_random_play(java_engine):
    results = arena.run(arena.schedule(f"engine:cmd={java_engine}", "random", "kalah",
                                       {"empty_capture": False}, 6, seed=3))
    assert [r.error for r in results] == [""] * 6
    assert arena.summarize(results).score >= 5 / 6


def _engine_file(tmp_path, name: str, body: str) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text("import sys, time, subprocess\n" + body)
    return f"{sys.executable} {path}"


HANDSHAKE = textwrap.dedent("""\
    def say(text):
        print(text, flush=True)
    for line in sys.stdin:
        if line.startswith("mep"):
            say("mepok 1")
        elif line.startswith("go"):
            {go}
    """)


@pytest.mark.parametrize("case, go, words", [
    ("crash", "sys.exit(3)", "exited (status 3)"),
    ("garbage", "say('hello there')", "instead of move"),
    ("illegal", "say('move 9')", "not legal"),
    ("hang", "time.sleep(60)", "no answer to go within"),
    ("refuses", "say('error I do not know this game')", "refused the position"),
])
def test_a_failing_engine_loses_and_the_arena_goes_on(tmp_path, case, go, words):
    command = _engine_file(tmp_path, case, HANDSHAKE.format(go=go))
    started = time.monotonic()
    results = arena.run(arena.schedule(f"engine:cmd={command},time=0.2", "random", "kalah",
                                       {}, 2, seed=1))
    assert time.monotonic() - started < 20
    for result in results:
        assert result.how == "error" and words in result.error, result.error
        assert result.score_for_a == 0.0  # the engine is A and lost both games


def test_an_engine_is_killed_with_its_children_and_its_stderr_kept(tmp_path):
    child_pid = tmp_path / "child.pid"
    log = tmp_path / "engine.log"
    command = _engine_file(tmp_path, "spawner", textwrap.dedent(f"""\
        child = subprocess.Popen(["sleep", "300"])
        open({str(child_pid)!r}, "w").write(str(child.pid))
        print("starting up", file=sys.stderr, flush=True)
        """) + HANDSHAKE.format(go="time.sleep(60)"))
    engine = EnginePlayer(cmd=command, time=0.2, log=str(log))
    with pytest.raises(EngineError, match="no answer"):
        engine.choose(mancalab.variant("kalah").start())
    pid = int(child_pid.read_text())
    deadline = time.monotonic() + 5
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid)  # the engine's whole process group was killed
    assert "starting up" in log.read_text()


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split()[2]
    except OSError:
        return False
    return state != "Z"  # a zombie has ended; only its parent's wait is missing


def test_an_engine_that_cannot_start_is_a_clear_error():
    with pytest.raises(EngineError, match="cannot start"):
        EnginePlayer(cmd="/no/such/program").choose(mancalab.variant("kalah").start())
    with pytest.raises(UnknownOptionError, match="cmd"):
        player("engine")


PLAYER_FILE = '''\
from mancalab.players import Player


class FirstMove(Player):
    """Always the first legal move."""

    name = "firstmove"

    def choose(self, state):
        return state.legal_moves()[0]
'''


def test_players_from_python_files_play_with_worker_processes(tmp_path, monkeypatch):
    (tmp_path / "my_player.py").write_text(PLAYER_FILE)
    monkeypatch.chdir(tmp_path)
    results = arena.run(arena.schedule("my_player.py:FirstMove", "random", "gabata", {}, 4,
                                       seed=1), jobs=2)
    assert [r.error for r in results] == [""] * 4
    assert player("my_player.py:FirstMove").choose(mancalab.variant("kalah").start()) == 0


def test_bad_player_files_are_named_on_the_command_line(tmp_path, monkeypatch):
    (tmp_path / "broken.py").write_text("this is not python")
    (tmp_path / "my_player.py").write_text(PLAYER_FILE)
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    for spec, words in (("missing.py:Bot", "no player file"), ("broken.py:Bot", "cannot load"),
                        ("my_player.py:Nobody", "no player class")):
        result = runner.invoke(app, ["arena", spec, "random", "--game", "kalah", "--games", "2"])
        assert result.exit_code == 2 and words in result.output, result.output
    with pytest.raises(MancalabError):
        player("my_player.py:FirstMove:depth=3")  # an option the class does not take


def test_the_doc_shows_the_example_engines_as_they_are():
    doc = (EXAMPLES.parent / "engine-protocol.md").read_text()
    for name in ("random_engine.py", "GreedyKalah.java"):
        assert (EXAMPLES / name).read_text() in doc
    assert len((EXAMPLES / "random_engine.py").read_text().splitlines()) <= 35
