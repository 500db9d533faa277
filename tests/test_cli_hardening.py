"""Regression tests for bad input on the command line (issue 15): one line naming the
problem and exit code 2, never a traceback; files never replace what they must not."""

import os
import socket
import stat

import pytest
from typer.testing import CliRunner

from mancalab.cli import app
from mancalab.records import GameRecord

runner = CliRunner()


def run(args, text=""):
    return runner.invoke(app, args, input=text)


@pytest.mark.parametrize("args", [
    ["play", "kalah", "-o", "seeds=" + "9" * 30, "--a", "A", "--b", "B"],
    ["play", "gebeta", "--bot", "mcts:playouts=99999999999999999999999", "--a", "A", "--b", "B"],
    ["play", "gebeta", "--bot", "mcts:time=inf", "--a", "A", "--b", "B"],
    ["play", "kalah", "-o", "pits=3.7", "--a", "A", "--b", "B"],
    ["play", "gebeta", "--a", "Al\u2028ice", "--b", "Bob"],
    ["tree", "kalah", "--depth", "100000"],
    ["arena", "greedy", "mcts:time=1e308", "--games", "2"],
    ["solve", "kalah", "-o", "pits=2", "-o", "seeds=2", "--settle"],
    ["random-play", "kalah", "-o", "seeds=1", "--memory", "8X"],
    ["random-play", "kalah", "-o", "seeds=1", "--memory", "0"],
    ["random-play", "kalah", "-o", "seeds=1", "--memory", "1M"],  # a graph over the budget
    ["db", "book", "oware", "--minutes", "nan"],
    ["db", "book", "oware", "--depth", "0"],
    ["db", "book", "oware", "--jobs", "999"],
    ["db", "book", "oware", "--out", "/no/such/folder/book.txt"],
])
def test_bad_numbers_and_names_are_one_line_and_exit_2(args):
    result = run(args)
    assert result.exit_code == 2, (args, result.output)
    assert "Traceback" not in result.output and "mancalab:" in result.output


def test_a_record_with_a_huge_round_is_refused(tmp_path):
    cells = ",".join(["3"] * 18) + ",0,0"
    path = tmp_path / "g.txt"
    path.write_text(f'[Variant "gabata3"]\n[Start "{cells}"]\n[Round "{"9" * 30}"]\n\n*\n')
    result = run(["replay", str(path), "--all"])
    assert result.exit_code == 2 and "line 2" in result.output


def test_replay_does_not_read_an_endless_file():
    result = run(["replay", "/dev/zero", "--all"])
    assert result.exit_code == 2 and "larger than" in result.output


def test_a_huge_input_line_is_refused_not_echoed():
    result = run(["play", "gebeta", "--a", "Ann", "--b", "Bo"], "x" * 2_000_000 + "\nquit\n")
    assert result.exit_code == 0 and "too long" in result.output
    assert "x" * 300 not in result.output


def test_a_failing_hint_keeps_the_game(tmp_path):
    path = tmp_path / "g.txt"
    result = run(["play", "kalah", "--a", "Ann", "--b", "Bo"],
                 f"hint mcts:playouts=99999999999999999999999\n1\nsave {path}\nquit\n")
    assert result.exit_code == 0 and "Traceback" not in result.output
    assert "playouts" in result.output and GameRecord.load(path).moves


def test_names_are_asked_again_until_valid():
    result = run(["play", "gebeta", "--b", "Bo"], "\u0007bell\nAnn\nquit\n")
    assert result.exit_code == 0 and "control" in result.output


def test_out_writes_through_a_link_and_never_over_a_device(tmp_path):
    target = tmp_path / "real.csv"
    target.write_text("old")
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    assert run(["tree", "kalah", "-o", "pits=2", "-o", "seeds=1", "--depth", "2",
                "--out", str(link)]).exit_code == 0
    assert link.is_symlink() and target.read_text().startswith("turns")
    result = run(["tree", "kalah", "-o", "pits=2", "--depth", "2", "--out", "/dev/null"])
    assert result.exit_code == 2 and "regular file" in result.output
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_serve_says_a_busy_port_first():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run(["serve", "--port", str(port), "--db", "/tmp/unused-mancalab.sqlite3"])
    assert result.exit_code == 2 and "cannot listen" in result.output
    assert "serving at" not in result.output


def test_a_second_server_on_one_sqlite_file_is_refused(tmp_path):
    """Issue 84: two serve processes on one --db file split the world (one's moves refused as
    stale by the other). The second is refused, naming the first."""
    import fcntl

    db = tmp_path / "games.sqlite3"
    with open(f"{db}.lock", "a+") as first:
        fcntl.flock(first, fcntl.LOCK_EX | fcntl.LOCK_NB)
        first.write("pid 4242")
        first.flush()
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        result = run(["serve", "--port", str(port), "--db", str(db)])
    assert result.exit_code == 2 and "pid 4242" in result.output, result.output
    assert "serving at" not in result.output


@pytest.mark.parametrize("args", [["serve", "--max-think", "inf"], ["serve", "--searches", "0"],
                                  ["serve", "--create-rate", "lots"],
                                  ["serve", "--limit", "login_rate=lots"],
                                  ["serve", "--limit", "account_rate=0/hour"],
                                  ["serve", "--limit", "write_seconds=0"],
                                  ["serve", "--limit", "stop_seconds=inf"],
                                  ["serve", "--limit", "stop_seconds=4000"]])
def test_serve_refuses_bad_limits(args):
    result = run(args)
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_every_limit_of_the_readme_table_is_settable():
    """Issue 82: account_rate and login_rate were named in docs/web.md and refused by
    --limit. Every limit the README's table names with --limit is one it takes."""
    import re
    from pathlib import Path

    import dataclasses

    from mancalab.cli.serve import _other_limits
    from mancalab.web.thinking import Limits

    readme = (Path(__file__).parents[1] / "README.md").read_text()
    named = set(re.findall(r"`(?:--limit )?(\w+)=(?:N|S|BYTES|RATE)`", readme))
    assert {"account_rate", "login_rate", "write_seconds", "hash_queue"} <= named
    kinds = {f.name: f.type for f in dataclasses.fields(Limits)}
    for name in named:
        value = "5/hour" if kinds[name] == "str" else "7"
        assert name in _other_limits([f"{name}={value}"])


@pytest.mark.parametrize("args, words", [
    (["solve", "kalah", "--frobnicate"], "No such option: --frobnicate"),
    (["solve"], "Missing argument 'game'"),
    (["tree", "kalah", "--depth", "abc"], "Invalid value for '--depth'"),
    (["frobnicate"], "No such command 'frobnicate'"),
])
def test_command_line_errors_are_one_line(args, words):
    result = run(args)
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines() == [result.output.strip()]  # one line
    assert words in result.output and "mancalab:" in result.output


def test_the_small_things_of_the_workflows(tmp_path):
    import json

    import mancalab
    from mancalab.core import IllegalMoveError

    start = mancalab.variant("kalah").start()
    for bad in (40, -1, True, 2.0):
        with pytest.raises(IllegalMoveError, match="no hole"):
            start.move_name(bad)
    with pytest.raises(IllegalMoveError):
        start.play(True)  # not move 1
    existing = tmp_path / "f.txt"
    existing.write_text("x")
    for out in (existing, existing / "sub"):
        result = run(["tournament", "greedy", "random", "--out", str(out)])
        assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    result = run(["db", "build", "urubugu"])
    assert result.exit_code == 2 and "no endgame databases" in result.output
    # no opening of 4 random moves leaves Kalah(1,1) going: once a loop without end
    arena = run(["arena", "greedy", "random", "-o", "pits=1", "-o", "seeds=1", "--games", "2",
                 "--json"])
    summary = json.loads(arena.stdout[arena.stdout.index("{"):])
    assert all(not isinstance(v, str) for k, v in summary.items() if k.startswith("elo"))
    played = run(["random-play", "kalah", "-o", "seeds=1", "--position",
                  "0,1,1,1,1,1,1,1,1,1,1,1,1,0", "--to-move", "1", "--json"])
    assert json.loads(played.stdout)["margins_for"] == "B"


def test_a_failure_exits_1_and_bad_input_2_each_in_one_line():
    """Errors in two branches: bad input (a ValueError) and failures that are not the
    input's fault (an engine that crashed), each with its exit code and HTTP status."""
    from typer.testing import CliRunner

    from mancalab.cli.common import Commands
    from mancalab.core import MancalabError, MancalabFailure
    from mancalab.players.engine import EngineError

    commands = Commands()

    @commands.command()
    def fails(kind: str) -> None:
        raise (EngineError("the engine crashed") if kind == "engine" else
               MancalabError("no such thing"))

    @commands.command()
    def other() -> None:
        pass

    runner = CliRunner()
    crashed = runner.invoke(commands, ["fails", "engine"])
    assert crashed.exit_code == 1 and "the engine crashed" in crashed.output
    assert len(crashed.output.strip().splitlines()) == 1
    bad = runner.invoke(commands, ["fails", "input"])
    assert bad.exit_code == 2 and "no such thing" in bad.output
    assert issubclass(MancalabError, ValueError) and not issubclass(MancalabFailure, ValueError)
    assert MancalabError.status == 400 and EngineError.status == 503
