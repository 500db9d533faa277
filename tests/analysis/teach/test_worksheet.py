"""Classroom worksheets: every answer checked against the engine, the PDF's pages and paper."""

import re
import warnings

import pytest
from typer.testing import CliRunner

import mancalab
from mancalab.analysis.teach import worksheet
from mancalab.cli import app


def engine_answer(question) -> str:
    """The answer worked out again from the rules: the sowing's steps and the scores."""
    state = question.state
    if question.kind == "landing":
        steps = state.sowing(question.move)
        lifts = [i for i, step in enumerate(steps) if step.kind == "lift"]
        first_lap = steps[:lifts[1]] if len(lifts) > 1 else steps
        last = [step.cell for step in first_lap if step.kind == "drop"][-1]
        return worksheet.cell_name(state, last)
    gains = {move: state.play(move).score[state.to_move] - state.score[state.to_move]
             for move in state.legal_moves()}
    if question.kind == "gain":
        return str(gains[question.move])
    most = max(gains.values())
    (best,) = [move for move, won in gains.items() if won == most]
    return f"{worksheet.cell_name(state, best)} ({most})"


@pytest.mark.parametrize("game", mancalab.variants())
def test_every_answer_is_the_engines(game):
    made = worksheet.questions(game, 18, seed=3)
    assert [q.number for q in made] == list(range(1, 19))
    assert {q.kind for q in made} == set(worksheet.KINDS)
    for question in made:
        assert question.answer == engine_answer(question), question.text
        if question.kind == "gain":  # a number
            assert question.answer_cells == ()
        else:  # the key's board rings the answer's cell
            (ringed,) = question.answer_cells
            assert worksheet.cell_name(question.state, ringed) in question.answer
        if question.kind == "landing":  # its arrow: the way it sows, never its last drop
            steps = question.state.sowing(question.move)
            lifts = [i for i, step in enumerate(steps) if step.kind == "lift"]
            lap = steps[:lifts[1]] if len(lifts) > 1 else steps
            drops = [step.cell for step in lap if step.kind == "drop"]
            way = worksheet.direction(question.state, question.move)
            assert way == [question.move, *drops[:-1][:2]]
        if question.move is not None:
            assert question.move in question.state.legal_moves()
            assert worksheet.cell_name(question.state, question.move) in question.text
    assert [q.text for q in worksheet.questions(game, 18, seed=3)] == [q.text for q in made]


def pdf_pages(path) -> list[tuple[float, float]]:
    data = path.read_bytes()
    assert data.startswith(b"%PDF")
    pages = re.findall(rb"/Type /Page\b(?!s).*?/MediaBox \[ *0 0 ([\d.]+) ([\d.]+) *\]", data,
                       re.S)
    return [(float(w), float(h)) for w, h in pages]


@pytest.mark.parametrize("paper, size", [("a4", (595.44, 841.68)), ("letter", (612, 792))])
def test_the_worksheet_has_six_boards_a_page_and_the_key_last(tmp_path, paper, size):
    out = tmp_path / "sheet.pdf"
    result = CliRunner().invoke(app, ["worksheet", "gebeta", "--out", str(out),
                                      "--questions", "13", "--paper", paper])
    assert result.exit_code == 0, result.output
    pages = pdf_pages(out)
    assert len(pages) == 3 + 2  # 6 + 6 + 1 questions, then the key, twelve boards a page
    assert all(abs(w - size[0]) < 1 and abs(h - size[1]) < 1 for w, h in pages)


@pytest.mark.parametrize("args", [["worksheet", "chess", "--out", "x.pdf"],
                                  ["worksheet", "gebeta", "--out", "x.pdf", "--questions", "0"],
                                  ["worksheet", "gebeta", "--out", "x.pdf", "--paper", "a3"],
                                  ["worksheet", "gebeta", "--out", "/no/such/dir/x.pdf"]])
def test_a_bad_worksheet_request_is_refused(args):
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2 and result.output.strip()


def test_a_worksheet_speaks_the_pages_languages(tmp_path):
    french = worksheet.questions("kalah", 6, seed=2, language="fr")
    english = worksheet.questions("kalah", 6, seed=2)
    assert [q.state for q in french] == [q.state for q in english]  # the same positions
    words = worksheet.Words("fr")
    for question, same in zip(french, english):
        assert "grenier" in question.text or "sème" in question.text
        if question.kind == "gain":
            assert question.answer == same.answer
        else:
            assert question.answer != same.answer or question.answer.isdigit()
        if question.kind == "landing":
            steps = question.state.sowing(question.move)
            last = [s.cell for s in steps if s.kind == "drop"][-1]
            assert question.answer == worksheet.cell_name(question.state, last, words)
    out = tmp_path / "fr.pdf"
    result = CliRunner().invoke(app, ["worksheet", "kalah", "--out", str(out), "--language",
                                      "fr", "--questions", "6"])
    assert result.exit_code == 0 and len(pdf_pages(out)) == 2
    bad = CliRunner().invoke(app, ["worksheet", "kalah", "--out", str(out), "--language", "de"])
    assert bad.exit_code == 2


def test_an_amharic_worksheet_prints_its_letters_with_the_shipped_font(tmp_path):
    """No Ethiopic font on the machine is needed: matplotlib takes the shipped one, and no
    letter is missing from the fonts (matplotlib logs a missing glyph, which would be a box)."""
    out = tmp_path / "am.pdf"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "Glyph ... missing from font(s)"
        pages = worksheet.write_pdf(worksheet.questions("kalah", 3, language="am"), out,
                                    title="ገበጣ", language="am")
    assert pages == 2 and b"NotoSansEthiopic" in out.read_bytes()
