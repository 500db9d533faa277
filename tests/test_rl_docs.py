"""The examples of docs/rl.md run as written."""

import re
from pathlib import Path

import pytest

DOC = Path(__file__).parents[1] / "docs" / "rl.md"
EXAMPLES = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)


def test_the_doc_has_its_three_examples():
    assert len(EXAMPLES) == 3


@pytest.mark.parametrize("code", EXAMPLES)
def test_example_runs(code, capsys):
    exec(compile(code, str(DOC), "exec"), {})
    assert capsys.readouterr().out.strip()  # each example prints what it found
