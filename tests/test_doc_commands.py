"""Every `mancalab` command written in the README's and the docs' code blocks is one the
command line takes: its command exists, its options exist and its values parse (running them
all would take hours: solving Kalah(6,5), a cluster; the Python examples are run whole by
test_doc_examples.py)."""

import re
import shlex
from pathlib import Path

import pytest
import typer

from mancalab.cli import app

ROOT = Path(__file__).parents[1]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.M | re.S)


def documented_commands() -> list[tuple[str, str]]:
    found = []
    for path in DOCUMENTS:
        for block in FENCE.findall(path.read_text()):
            text = block.replace("\\\n", " ")  # a command continued on the next line
            for line in text.splitlines():
                line = line.strip()
                if line.startswith("mancalab "):
                    found.append((f"{path.name}: {line[:60]}", line))
    return found


COMMANDS = documented_commands()


def test_the_documents_show_commands():
    assert len(COMMANDS) >= 40


@pytest.mark.parametrize("where, line", COMMANDS, ids=[where for where, _ in COMMANDS])
def test_a_documented_command_is_one_the_command_line_takes(where, line):
    words = shlex.split(line, comments=True)[1:]
    command = typer.main.get_command(app)  # typer's own click: found by what it does
    context = command.context_class(command, info_name="mancalab")
    while hasattr(command, "get_command"):  # a group: mancalab, mancalab db
        assert words, f"{where}: a group of commands without its command"
        name, words = words[0], words[1:]
        found = command.get_command(context, name)
        assert found is not None, f"{where}: no command {name!r}"
        command = found
        context = command.context_class(command, info_name=name, parent=context)
    try:
        command.make_context(context.info_name, list(words), parent=context.parent)
    except Exception as error:  # noqa: BLE001 - a usage error of typer's click
        if not hasattr(error, "format_message"):
            raise
        pytest.fail(f"{where}: {error.format_message()}")


def test_the_java_engine_runs_as_the_protocol_page_writes_it(java_engine):
    """The page's first command, taken from the page itself, plays (no compile step first:
    the JDK runs the source file); two games instead of the default twenty."""
    import os
    import subprocess
    import sys

    page = (ROOT / "docs" / "engine-protocol.md").read_text()
    line = next(line for line in FENCE.findall(page)[0].splitlines() if "java" in line)
    words = shlex.split(line, comments=True)[1:] + ["--games", "2"]
    words[words.index("expert")] = "random"  # the expert takes its seconds a move
    done = subprocess.run([sys.executable, "-m", "mancalab", *words], cwd=ROOT, timeout=300,
                          capture_output=True, text=True, env={**os.environ, "COLUMNS": "200"})
    assert done.returncode == 0, done.stderr
    assert "forfeit" not in done.stdout.lower() and "Elo" in done.stdout, done.stdout
