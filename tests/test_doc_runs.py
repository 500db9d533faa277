"""Documented commands run as the README writes them, their output checked against what the
documents say. Those of ten seconds or more run with MANCALAB_LONG_TESTS=1
(`MANCALAB_LONG_TESTS=1 pytest tests/test_doc_runs.py`, about a minute), outside the suite's
four minutes; the same workflows run in-process in test_cli.py and test_record_files.py."""

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
LONG = pytest.mark.skipif(os.environ.get("MANCALAB_LONG_TESTS") != "1",
                          reason="ten seconds or more: MANCALAB_LONG_TESTS=1 runs it")
README = (ROOT / "README.md").read_text()


def readme_line(start: str) -> list[str]:
    """The README's command line that begins with ``start``, as words (comment dropped)."""
    for line in README.splitlines():
        if line.startswith(start):
            return shlex.split(line, comments=True)[1:]
    raise AssertionError(f"the README has no line starting {start!r}")


def run(words: list[str], tmp_path) -> str:
    done = subprocess.run([sys.executable, "-m", "mancalab", *words], capture_output=True,
                          text=True, timeout=300, cwd=tmp_path,
                          env={**os.environ, "COLUMNS": "200",
                               "XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.slow
def test_the_readmes_counter_setting_is_a_one_turn_wipe_out(tmp_path):
    words = readme_line("mancalab counter urubugu --setting 2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2  #")
    assert "Every one of the opponent's beads is taken: 64 to 0" in run(words, tmp_path)


@LONG
def test_the_readmes_fair_screen_finds_boards_the_shipped_list_holds(tmp_path):
    out = run(readme_line("mancalab fair kalah -o pits=5 --moved 1"), tmp_path)
    found = re.findall(r"^\s+([\d,]+)$", out, re.M)
    shipped = (ROOT / "src/mancalab/data/fair/kalah-5-4-ec.txt").read_text()
    assert found and all(board in shipped for board in found), (found, out)


@LONG
def test_the_readmes_estimate_holds_the_documented_count(tmp_path):
    """docs/research.md: 82.02-82.11 billion settings answer the default with a first move
    (10^8 draws a stratum); the README's 10^6 draws give an interval around it."""
    words = readme_line("mancalab counter urubugu --setting 2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2 "
                        "--estimate 1000000")
    out = run(words, tmp_path)
    row = re.search(r"settings with a winning first move\s*│\s*[\d,]+\s*│\s*([\d,]+) \.\.\s*"
                    r"([\d,]+)", out)
    low, high = (int(n.replace(",", "")) for n in row.groups())
    assert low <= 82_060_000_000 <= high, out


@LONG
def test_the_readmes_terminal_lines_play_replay_and_review(tmp_path):
    """`play kalah --bot hard -o board=37`: board 37 against the computer, no names asked;
    the game saved, then `replay` and `review` of it as the README writes them."""
    words = readme_line("mancalab play kalah --bot hard -o board=37")
    done = subprocess.run([sys.executable, "-m", "mancalab", *words, "--save", "game.txt"],
                          input="1\nquit\n", capture_output=True, text=True, timeout=300,
                          cwd=tmp_path, env={**os.environ, "COLUMNS": "200"})
    assert done.returncode == 0 and "Name of player" not in done.stdout, done.stdout
    assert re.search(r"You\s+\|\s+3 \|\s+4 \|\s+5 \|\s+4 \|\s+3 \|\s+5", done.stdout)
    assert "Computer plays" in done.stdout  # the hard level answered the move
    assert "game.txt" in os.listdir(tmp_path)
    replayed = run(readme_line("mancalab replay game.txt") + ["--all"], tmp_path)
    assert "Move 2" in replayed
    reviewed = run(readme_line("mancalab review game.txt") + ["--time", "0.2"], tmp_path)
    assert "mark" in reviewed and "best" in reviewed


def test_the_readmes_worksheet_has_its_questions_and_an_answer_key(tmp_path):
    out = run(readme_line("mancalab worksheet gebeta --questions 12 --out sheet.pdf"), tmp_path)
    assert "12 questions on 2 pages and the answer key" in out
    pdf = (tmp_path / "sheet.pdf").read_bytes()
    assert pdf.startswith(b"%PDF") and len(re.findall(rb"/Type\s*/Page[^s]", pdf)) == 3


@LONG
@pytest.mark.parametrize("start, said", [
    ("mancalab solve gebeta --moves", "loses by 2 (-2). Best: A1, B1, C1, D1"),
    ("mancalab solve gabata --moves", "wins by 48 (+48). Best: 2, 3, 5, 6."),
    ("mancalab solve kalah --moves", "wins by 10 (+10). Best: 4.")])
def test_the_readmes_solves_print_the_values_it_gives(tmp_path, start, said):
    """The README's comments: Gebeta -2, Gabata +48, Kalah(6,4) +10 with best move 4
    (seconds, seconds and about a minute on two cores)."""
    out = " ".join(run(readme_line(start), tmp_path).split())
    assert said in out, out


@LONG
def test_the_research_pages_small_kalah_is_solved_exactly(tmp_path):
    """docs/research.md: smaller Kalah boards' random play is solved like the others."""
    text = (ROOT / "docs" / "research.md").read_text()
    assert "`mancalab random-play kalah -o\npits=4 -o seeds=3`" in text
    out = run(["random-play", "kalah", "-o", "pits=4", "-o", "seeds=3", "--json"], tmp_path)
    answer = json.loads(out.strip().splitlines()[-1])
    assert answer["A wins"] == pytest.approx(0.491775706224, abs=1e-9)
    assert answer["A wins"] + answer["B wins"] + answer["draws"] == pytest.approx(1, abs=1e-12)


@pytest.mark.slow
def test_the_readmes_tree_line_prints_the_gebeta_programs_table(tmp_path):
    """README: `mancalab tree gebeta --depth 12`, level by level; its first ten levels are
    the Gebeta program's published results.csv (tests/analysis/stats/test_tree.py)."""
    from analysis.stats.test_tree import PUBLISHED  # tests/ is on the path (rootdir)

    out = run(readme_line("mancalab tree gebeta --depth 12"), tmp_path)
    rows = {}
    for line in out.splitlines():
        numbers = [int(n.replace(",", "")) for n in re.findall(r"(?<![\d.])\d[\d,]*(?![\d.])",
                                                               line)]
        if numbers and line.lstrip().startswith("│"):
            rows[numbers[0]] = numbers
    assert set(range(1, 13)) <= set(rows), out
    for published in PUBLISHED.strip().splitlines():
        turns, level, *counts = (int(n) for n in published.split(","))
        assert turns in rows[level] and all(n in rows[level] for n in counts), (level, out)


@pytest.mark.slow
def test_the_classroom_pages_letter_worksheet_is_on_letter_paper(tmp_path):
    """docs/classroom.md: 18 Kalah questions on US letter paper (612 x 792 points)."""
    text = (ROOT / "docs" / "classroom.md").read_text()
    line = next(line for line in text.splitlines()
                if line.startswith("mancalab worksheet kalah --questions 18 --paper letter"))
    out = run(shlex.split(line, comments=True)[1:], tmp_path)
    assert "18 questions" in out, out
    pdf = (tmp_path / "kalah.pdf").read_bytes()
    assert re.search(rb"/MediaBox\s*\[\s*0 0 612 792\s*\]", pdf), pdf[:2000]
