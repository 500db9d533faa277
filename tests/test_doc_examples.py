"""The Python examples of the README and of the docs pages run as written (each in a fresh
interpreter, within a time cap), so that no documented call drifts from the code; the
README's Quickstart is the command CI runs. (docs/rl.md and docs/players.md have their own
tests, which check what the examples find.)"""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
PAGES = ["README.md", "docs/api.md", "docs/kalah.md"]
CAP = 180  # seconds an example may take (a first run compiles the kernels it uses)


def examples():
    found = []
    for page in PAGES:
        for number, code in enumerate(re.findall(r"```python\n(.*?)```",
                                                 (ROOT / page).read_text(), re.S)):
            found.append(pytest.param(page, code, id=f"{page}-{number + 1}"))
    return found


def test_every_page_has_an_example():
    assert {param.values[0] for param in examples()} == set(PAGES)


@pytest.mark.parametrize("page, code", examples())
def test_example_runs(page, code):
    if "import mancalab\n" not in code:  # a snippet that continues the page's text
        code = "import mancalab\n" + code
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=CAP, cwd=ROOT)
    assert done.returncode == 0, f"{page}:\n{code}\n{done.stderr}"


def test_the_quickstart_is_what_ci_runs():
    quickstart = re.search(r"## Quickstart.*?```bash\n(.*?)```", (ROOT / "README.md").read_text(),
                           re.S).group(1)
    commands = [line.split("#")[0].strip() for line in quickstart.splitlines()]
    assert "pip install . && mancalab serve" in commands
    test_command = next(c for c in commands if c.startswith('pip install ".[test]"'))
    assert test_command in (ROOT / ".ci" / "run").read_text()
