"""Fixtures shared by the test folders."""

import dataclasses
import os
from collections import OrderedDict
import shutil
import subprocess
from pathlib import Path

import numba
import pytest

import mancalab  # noqa: F401 - names numba's cache folder (mancalab._cache)

# numba loads SciPy's BLAS when it first compiles or loads a kernel (SciPy comes with
# OpenSpiel), and OpenBLAS starts a thread a core that spins for a while: 0.2 CPU-s in each of
# the suite's processes, for a library mancalab never calls. Set before any of them loads it.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

# One compiled cache for the whole session, worker processes and commands included: a test
# that moves XDG_CACHE_HOME (for a fresh database folder) must not move the kernels too.
os.environ.setdefault("NUMBA_CACHE_DIR", numba.config.CACHE_DIR)

EXAMPLES = Path(__file__).parents[1] / "docs" / "examples"


@pytest.fixture(scope="session")
def java_engine(tmp_path_factory) -> str:
    """The command of the Java example engine (docs/engine-protocol.md), compiled with the
    JDK. CI (MANCALAB_JAVA_TESTS=1) must have one; elsewhere its tests are skipped without."""
    if shutil.which("javac") is None:
        if os.environ.get("MANCALAB_JAVA_TESTS") == "1":
            pytest.fail("javac is not installed (apt-get install default-jdk-headless)")
        pytest.skip("javac is not installed")
    classes = tmp_path_factory.mktemp("java")
    subprocess.run(["javac", "-d", str(classes), str(EXAMPLES / "GreedyKalah.java")],
                   check=True)
    return f"java -cp {classes} GreedyKalah"


@pytest.fixture
def small_databases(monkeypatch, tmp_path):
    """A fresh cache whose databases built on first use are small (Kalah 4 seeds, Gebeta 8
    counters, Gabata 6 marbles), and no solver or database kept from other tests: a test
    of what happens on first use does not spend its time building."""
    from mancalab.analysis.research import fair
    from mancalab.analysis.solving import book, kalah, retrograde
    from mancalab.variants import VARIANTS

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    for name, seeds in (("kalah", 4), ("gebeta", 8), ("gabata", 6)):
        solving = dataclasses.replace(VARIANTS[name].solving, on_demand_seeds=seeds)
        monkeypatch.setattr(VARIANTS[name], "solving", solving)
    monkeypatch.setattr(fair, "SCREEN_SEEDS", 4)
    monkeypatch.setattr(kalah, "_SOLVERS", OrderedDict())
    monkeypatch.setattr(retrograde, "_DATABASES", {})
    monkeypatch.setattr(book, "_BOOKS", {})


def pytest_configure(config):
    """Compile the rules and searches once, shared by the cores, before the test processes
    start: else every process compiles the same kernels on a cold cache."""
    from mancalab._cache import is_warm, warm_up

    if not hasattr(config, "workerinput") and not is_warm():
        warm_up(jobs=os.cpu_count() or 1)


def pytest_xdist_auto_num_workers(config):
    """One test process more than cores (``-n auto``): a share of the tests waits on the
    browser, the server or a subprocess, and a third process on two cores ran the whole suite
    in 287 s where two took 327 s and four 316 s."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (cores or 1) + 1
