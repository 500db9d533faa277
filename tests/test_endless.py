"""The end for endless play: each game's rule (``State.stopped``), a third repetition or an
agreement ending a record, and every driver (records, terminal, arena) using it."""

import random

import pytest
from typer.testing import CliRunner

import mancalab
from mancalab.analysis.compete.arena import GameSpec, play_game
from mancalab.cli import app
from mancalab.core import IllegalMoveError
from mancalab.players.base import Player
from mancalab.records import GameRecord, RecordError

GAMES = mancalab.variants()
# random moves from Gebeta's start that reach one position a third time at the last move
GEBETA_CYCLE = [2, 8, 5, 8, 4, 10, 0, 9, 5, 11, 2, 6, 0, 7, 3, 10, 4, 11, 1, 8, 5, 6, 2, 9, 0,
                10, 3, 7, 1, 8, 4, 11, 5, 6, 2, 7, 3, 9, 0, 10]


def random_positions(name, count, seed):
    rng = random.Random(seed)
    variant = mancalab.variant(name)
    found = []
    while len(found) < count:
        state = variant.start()
        for _ in range(rng.randrange(60)):
            if state.is_over:
                break
            state = state.play(rng.choice(state.legal_moves()))
        if not state.is_over:
            found.append(state)
    return found


def own_side(state):
    """What each player banks by the rule, from the game's own quantities."""
    v, cells = state.variant, state.cells
    if v.name == "gebeta":
        return cells[12] + sum(cells[:6]) // 4, cells[13] + sum(cells[6:12]) // 4
    if v.name in ("urubugu", "gabata3"):
        return state.material  # the beads held; store plus holes owned
    owned = [sum(c for i, c in enumerate(cells) if v.cell_owner(state, i) == player)
             for player in (0, 1)]
    return tuple(owned)  # each player's store (or deposit) and their row


@pytest.mark.parametrize("name", GAMES)
def test_each_game_ends_by_banking_each_side(name):
    for state in random_positions(name, 15, seed=4):
        ended = state.stopped()
        a, b = own_side(state)
        assert ended.is_over and ended.score == (a, b)
        kind = "draw" if a == b else "win"
        assert ended.outcome.kind == kind
        if kind == "win":
            assert ended.outcome.winner == (0 if a > b else 1)
        with pytest.raises(IllegalMoveError):
            ended.stopped()


def test_a_third_repetition_ends_the_game_and_the_record_says_so():
    record = GameRecord(mancalab.variant("gebeta"), mancalab.variant("gebeta").start(),
                        moves=GEBETA_CYCLE)
    assert record.termination == "repetition" and record.state.is_over
    before = record.prefix(len(GEBETA_CYCLE) - 1)
    assert before.termination is None and not before.state.is_over
    assert record.state == before.state.play(GEBETA_CYCLE[-1]).stopped()
    text = record.to_text()
    assert '[Termination "repetition"]' in text
    again = GameRecord.from_text(text)
    assert again.termination == "repetition" and again.result == record.result
    with pytest.raises(IllegalMoveError):
        record.push(record.states[-2].legal_moves()[0])
    record.pop()  # undo: the game goes on from before the last move
    assert record.termination is None and not record.state.is_over
    assert record.state == before.state


def test_records_of_agreed_ends_and_bad_terminations():
    variant = mancalab.variant("kalah")
    record = GameRecord.new(variant)
    record.push(3)
    record.end("agreement")
    assert record.state.is_over and record.result in ("A", "B", "D")
    loaded = GameRecord.from_text(record.to_text())
    assert loaded.termination == "agreement" and loaded.state == record.state
    for bad, words in [('[Termination "boredom"]', "not 'boredom'"),
                       ('[Termination "repetition"]', "do not end the game by repetition")]:
        text = record.to_text().replace('[Termination "agreement"]', bad)
        with pytest.raises(RecordError, match=words):
            GameRecord.from_text(text)
    with pytest.raises(RecordError):
        record.end("boredom")
    cycle = GameRecord.new(mancalab.variant("gebeta"))
    text = GameRecord(cycle.variant, cycle.start, moves=GEBETA_CYCLE).to_text()
    lines = [line for line in text.splitlines() if not line.startswith(("[Result", "[Term"))]
    lines[-1] = lines[-1].rsplit(" ", 1)[0] + " A1"  # a move where the result was
    with pytest.raises(RecordError, match="game is over"):
        GameRecord.from_text("\n".join(lines))


def test_the_arena_ends_a_cycling_game_by_the_rule():
    spec = GameSpec(1, "gebeta", {}, "random:seed=1", "random:seed=2", True,
                    tuple(GEBETA_CYCLE))
    result = play_game(spec)
    assert result.how == "repetition" and result.plies == len(GEBETA_CYCLE)
    assert '[Termination "repetition"]' in result.record


class _Judging(Player):
    name = "judging"

    def __init__(self, value):
        super().__init__()
        self.value = value

    def choose(self, state):
        self.last_info = {"value": self.value}
        return state.legal_moves()[0]


def test_the_computer_agrees_when_the_rule_is_no_worse_than_its_evaluation():
    state = mancalab.variant("kalah").state([0, 0, 0, 0, 0, 1, 20, 0, 0, 0, 0, 0, 1, 26], 0)
    # ending now: A 21, B 27: a win for B, the player not to move
    assert _Judging(+5).accepts_end(state)  # B expected to lose: the rule is better
    assert _Judging(-5).accepts_end(state)  # B expected to win: the rule is as good
    lost = mancalab.variant("kalah").state([0, 0, 0, 0, 0, 1, 26, 0, 0, 0, 0, 0, 1, 20], 0)
    assert not _Judging(-5).accepts_end(lost)  # B would lose by the rule, expects to win
    assert _Judging(+5).accepts_end(lost)


def test_the_terminal_ends_a_game_by_agreement():
    runner = CliRunner()
    result = runner.invoke(app, ["play", "kalah", "--a", "Ann", "--b", "Bob"],
                           input="4\nend\nn\nend\ny\n")
    assert result.exit_code == 0, result.output
    assert "Ending now, each player banks their own side: 24 to 24." in result.output
    assert "Game over: ended by agreement: each player banks their own side. A draw" in \
        result.output.replace("\n", " ")
