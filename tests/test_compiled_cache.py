"""The compiled cache: named after the kernels' sources, filled by several processes at once,
shared by every copy of the same sources."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import mancalab
from mancalab import _cache, warming


def test_the_cache_is_named_after_the_shared_kernel_sources_only():
    names = {path.relative_to(_cache.PACKAGE).as_posix() for path in _cache.kernel_sources()}
    assert {"core.py", "kernels.py", "search.py", "variants/common.py"} <= names
    assert not names & {"app.py", "terminal.py", "records.py", "_cache.py"}
    assert not names & {f"variants/{game}.py" for game in mancalab.variants()}
    assert _cache.source_digest() == _cache.source_digest()
    assert {path.stem for path in _cache.game_sources().values()} == set(mancalab.variants())


def test_shared_compiled_code_reaches_a_game_only_through_the_kernels_switch():
    """A shared module importing a game's module would compile that game into code filed
    under another game's digest (an edit to it would leave that code stale): only a game's
    own analyses do, and they name their game."""
    import re

    game = "|".join(mancalab.variants())
    imports = re.compile(rf"^from \.+variants(\.rules)?(\.({game})\b| import .*\b({game})\b)",
                         re.M)
    found = {}
    for path in _cache.kernel_sources():
        match = imports.search(path.read_text())
        if match:
            found[path.relative_to(_cache.PACKAGE).as_posix()] = match.group(3) or match.group(4)
    assert found == _cache.GAME_ANALYSES


def test_shared_code_is_keyed_by_the_games_it_was_compiled_for(monkeypatch, tmp_path):
    """A search compiled for Kalah's params is filed under Kalah's source, one compiled for
    any array under every game's; a game's own kernels under nothing more (numba checks
    their file): an edit to Kalah misses Kalah's entries only."""
    import numpy as np
    from numba import typeof

    kalah, gebeta = (mancalab.variant(game) for game in ("kalah", "gebeta"))
    board = typeof(np.zeros(3, dtype=np.int64))
    search = str(_cache.PACKAGE / "search.py")
    own = str(_cache.game_sources()[kalah.game_id])

    def keys():
        _cache.game_digest.cache_clear()
        return [_cache.games_key(search, (typeof(kalah.params), board)),
                _cache.games_key(search, (typeof(gebeta.params), board)),
                _cache.games_key(search, (board, board)),
                _cache.games_key(own, (typeof(kalah.params), board))]

    before = keys()
    assert before[0] == ((kalah.game_id, _cache.game_digest(kalah.game_id)),)
    assert before[2][0] == "any game" and before[3] is None
    edited = tmp_path / "kalah.py"
    edited.write_bytes(Path(own).read_bytes() + b"# an edit\n")
    sources = {**_cache.game_sources(), kalah.game_id: edited}
    monkeypatch.setattr(_cache, "game_sources", lambda: sources)
    after = keys()
    _cache.game_digest.cache_clear()
    assert after[0] != before[0] and after[2] != before[2]  # Kalah's, and any game's
    assert after[1] == before[1]  # Gebeta's searches kept


def test_an_entry_compiled_for_games_edited_since_is_forgotten_with_its_file(tmp_path):
    """A shared function's code compiled for a game is keyed by the game's digest: after
    an edit to the game, the entry of the old digest stayed in the function's index for
    ever, and its data file on disk. Saving the same function and signature for other
    digests now forgets it; other signatures, and keys with no games, are kept."""
    from numba.core.caching import IndexDataCacheFile

    index = IndexDataCacheFile(str(tmp_path), "search.negamax", ("a stamp",))
    numba_key = ("a signature", ("a machine",), ("its bytecode", ""))
    other_signature = ("another signature", *numba_key[1:])
    old, new = ((*numba_key, (_cache.GAMES, ((1, digest),))) for digest in ("old", "new"))
    kept = [(*other_signature, (_cache.GAMES, ((1, "old"),))), numba_key]
    for key in (old, *kept):
        index.save(key, f"compiled for {key}")
    files = set(tmp_path.glob("*.nbc"))
    index.save(new, "compiled for the edited game")
    entries = index._load_index()
    assert set(entries) == {new, *kept}
    assert index.load(new) == "compiled for the edited game"
    assert set(tmp_path.glob("*.nbc")) == files  # the old entry's file taken by the new


def test_the_cache_is_warm_only_after_a_whole_warm_up(monkeypatch, tmp_path):
    """One game's kernels in the cache (a game played, a warm-up cut short) do not make it
    warm: the rest would be compiled inside the first moves and hints, under their caps."""
    compiled = []
    monkeypatch.setattr(_cache, "kernel_folder", lambda: tmp_path / "kernels")
    monkeypatch.setattr(_cache, "compile_one", compiled.append)
    (tmp_path / "kernels").mkdir()
    (tmp_path / "kernels" / "kalah.play-1.py311.nbi").write_bytes(b"")
    assert not _cache.is_warm()
    _cache.warm_up(["kalah"])
    _cache.warm_up(players=False)
    assert not _cache.is_warm() and "kalah" in compiled
    _cache.warm_up()
    assert _cache.is_warm()
    assert {task for task in compiled if ":" not in task} == set(mancalab.variants())


def test_compiling_is_shared_by_processes_and_told_as_it_goes(monkeypatch):
    told = []
    monkeypatch.setattr(_cache, "is_warm", lambda: False)  # as on a first start
    _cache.warm_up(["kalah", "gabata"], players=False,
                   on_step=lambda done, total, what: told.append((done, total, what)), jobs=2)
    # the processes' steps as they end (the last is the loading here), then ready
    assert [done for done, _, _ in told] == [1, 2, 3, 4] and told[-1][:2] == (4, 4)
    assert {what for _, _, what in told} <= {"kalah", "gabata", "sowing:kalah",
                                             "sowing:gabata"}


def test_a_kernel_is_compiled_meanwhile_only_when_the_cache_lacks_it(monkeypatch):
    from mancalab.analysis.solving import kalah

    kalah.warm_up()
    assert _cache.is_compiled("kalah._test_in") and not _cache.is_compiled("kalah.no_such_kernel")
    started = []
    monkeypatch.setattr("multiprocessing.context.SpawnProcess.start",
                        lambda process: started.append(process))
    monkeypatch.setattr("multiprocessing.context.SpawnProcess.join", lambda process: None)
    with _cache.compiled_meanwhile("solve:kalah"):
        pass
    with _cache.compiled_meanwhile(None):
        pass
    assert started == []  # in the cache already: nothing started
    monkeypatch.setattr(_cache, "is_compiled", lambda prefix: False)
    with _cache.compiled_meanwhile("solve:kalah"):
        pass
    assert len(started) == 1 and started[0]._args[0] == "solve:kalah"


def test_a_copy_of_the_package_elsewhere_loads_the_kernels_compiled_here(tmp_path):
    """Kernels are filed by their place in the package, not the folder it is installed in:
    another clone or virtual environment of the same sources compiles nothing."""
    mancalab.variant("kalah").start().play(0)  # compiled (or loaded) here
    copy = tmp_path / "a" / "much" / "longer" / "folder" / "src"
    shutil.copytree(Path(mancalab.__file__).parent, copy / "mancalab",
                    ignore=shutil.ignore_patterns("__pycache__"))
    script = ("import mancalab\nfrom mancalab.variants import kalah\n"
              "mancalab.variant('kalah').start().play(0)\n"
              "print(mancalab.__file__, sum(kalah.step.stats.cache_hits.values()),"
              " sum(kalah.step.stats.cache_misses.values()))")
    found = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           env={**os.environ, "PYTHONPATH": str(copy)}, check=True)
    where, hits, misses = found.stdout.split()
    assert where.startswith(str(copy)) and (hits, misses) == ("1", "0")


def test_only_the_last_versions_kernels_are_kept(tmp_path, monkeypatch):
    monkeypatch.setattr(_cache.numba.config, "CACHE_DIR", str(tmp_path / "numba"))
    for age, name in enumerate(["mancalab-old", "mancalab-older", "mancalab-oldest"]):
        folder = tmp_path / "numba" / name
        folder.mkdir(parents=True)
        os.utime(folder, (1e9 - age, 1e9 - age))
    legacy = tmp_path / "numba-0123456789abcdef"
    legacy.mkdir()
    _cache.prune(keep=2)
    _cache.prune(keep=0, folders=tmp_path.glob("numba-*"))
    assert sorted(p.name for p in (tmp_path / "numba").iterdir()) == ["mancalab-old",
                                                                      "mancalab-older"]
    assert not legacy.exists()


def test_a_game_about_to_be_played_is_compiled_first_and_waited_for():
    """A first start's warm-up takes a game's own tasks next when it is played (``prefer``),
    and its search waits for them (``wait``) instead of compiling them again."""
    import threading

    plan = _cache.Plan(["alphabeta", "mcts", "solve", "kalah", "gebeta"])
    assert plan.take() == "alphabeta" and plan.take(wanted=True) is None
    plan.prefer(["gebeta", "mcts", "no such task"])
    # a game waits: its tasks go to the processes at the usual priority
    assert plan.take(wanted=False) == "solve"  # the low-priority processes take the rest
    assert [plan.take(wanted=True), plan.take(wanted=True)] == ["gebeta", "mcts"]
    assert plan.take(wanted=True) is None
    assert plan.take() == "kalah" and plan.take() is None
    # a game's search waits for its rules: compiled beside them, it would compile them again
    searches = _cache.Plan(["mcts:kalah", "kalah", "sowing:kalah"])
    assert searches.take() == "kalah" and searches.take() == "sowing:kalah"
    assert searches.take() is None
    searches.finish("kalah")
    assert searches.take() == "mcts:kalah"
    waited = threading.Event()
    waiter = threading.Thread(target=lambda: (plan.wait(["gebeta", "mcts"]), waited.set()))
    waiter.start()
    plan.finish("gebeta")
    assert not waited.wait(0.2)  # mcts is not compiled yet
    plan.finish("mcts")
    assert waited.wait(5)
    waiter.join()
    plan.wait(["not planned"])  # nothing to wait for
    plan.finish_all()
    plan.wait(["solve", "kalah"])


def test_the_tasks_a_player_needs_are_its_rules_and_its_searches():
    from mancalab.players import player

    kalah, gebeta = mancalab.variant("kalah"), mancalab.variant("gebeta")
    # the rules, the traced play a page shows the move with, the player's searches
    assert _cache.tasks_for(player("greedy"), kalah) == ["kalah", "sowing:kalah"]
    assert _cache.tasks_for(player("mcts"), gebeta) == ["gebeta", "sowing:gebeta", "mcts:gebeta"]
    assert _cache.tasks_for(player("expert", game="kalah"), kalah) == [
        "kalah", "sowing:kalah", "alphabeta:kalah", "solve:kalah"]
    expert = player("expert", game="gebeta")
    assert _cache.tasks_for(expert, gebeta) == ["gebeta", "sowing:gebeta", "mcts:gebeta",
                                                "retrograde:gebeta"]
    # a first move waits for the fallback only: the solver is used once it is compiled
    assert _cache.tasks_for(expert, gebeta, essential=True) == [
        "gebeta", "sowing:gebeta", "mcts:gebeta"]
    urubugu = mancalab.variant("urubugu")
    assert _cache.tasks_for(player("perfect"), urubugu) == [
        "urubugu", "sowing:urubugu", "alphabeta:urubugu", "forced:urubugu"]
    every = {task for game in mancalab.variants()
             for task in [game, f"sowing:{game}", *_cache.searches_of(game)]}
    assert set(_cache.tasks_for(expert, gebeta)) <= every


def test_the_perfect_player_plays_by_its_fallback_while_its_solver_compiles(monkeypatch):
    from mancalab.players import player

    gebeta = mancalab.variant("gebeta")
    plan = _cache.Plan(["gebeta", "mcts:gebeta", "retrograde:gebeta"])
    monkeypatch.setattr(warming, "plan", plan)
    assert not warming.solver_compiled(gebeta)
    assert warming.solver_compiled(mancalab.variant("gabata3"))  # no solver: nothing to wait for
    expert = player("perfect:time=0.2,fallback=mcts")
    expert.choose(gebeta.start())
    assert expert.last_info["exact"] is False and "compiled" in expert.last_info["fallback"]
    plan.finish("retrograde:gebeta")
    assert warming.solver_compiled(gebeta)


def test_two_processes_saving_two_signatures_at_once_keep_both(tmp_path, monkeypatch):
    """numba's save reads the index, takes a free data file number and writes: without the
    lock (mancalab._cache.lock_cache_files), two saves at once take one number, and one
    signature's entry names the other's compiled code."""
    import threading
    import time

    from numba.core.caching import IndexDataCacheFile

    import mancalab  # noqa: F401 - its import locks numba's cache files

    write_index = IndexDataCacheFile._save_index

    def slowly(self, overloads):  # the two saves would meet between reading and writing
        time.sleep(0.2)
        write_index(self, overloads)

    monkeypatch.setattr(IndexDataCacheFile, "_save_index", slowly)

    def cache_file():  # each process opens the function's files afresh
        return IndexDataCacheFile(cache_path=str(tmp_path), filename_base="kernel-1.py311",
                                  source_stamp=("stamp", 1))

    savers = [threading.Thread(target=cache_file().save, args=(key, f"code of {key}"))
              for key in ("game 1", "game 2")]
    for saver in savers:
        saver.start()
    for saver in savers:
        saver.join()
    assert cache_file().load("game 1") == "code of game 1"
    assert cache_file().load("game 2") == "code of game 2"


KERNEL = '''
import numba
import numpy as np


@numba.njit(cache=True)
def kernel(n):
    counts = {0: 0}
    for k in np.argsort(np.arange(n)[::-1]):
        counts[k % 7] = counts.get(k % 7, 0) + 1
    return len(counts)
'''

COMPILER = '''
import sys

import mancalab  # noqa: F401 - its import shares compiling between processes

sys.path.insert(0, sys.argv[1])
import kernel

print("ready", flush=True)
sys.stdin.readline()  # go
assert kernel.kernel(20) == 7
print(sum(kernel.kernel.stats.cache_hits.values()))
'''


def test_a_kernel_two_processes_need_at_once_is_compiled_by_one(tmp_path):
    """Two processes miss one signature in the cache at the same moment: one compiles it,
    the other waits and loads it (mancalab._cache.compile_once_between_processes)."""
    (tmp_path / "kernel.py").write_text(KERNEL)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    runs = [subprocess.Popen([sys.executable, "-c", COMPILER, str(tmp_path)], env=env,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            for _ in range(2)]
    for run in runs:  # both imported: told to go together
        assert run.stdout.readline() == "ready\n"
    for run in runs:
        run.stdin.write("go\n")
        run.stdin.flush()
    hits = sorted(int(run.communicate(timeout=120)[0]) for run in runs)
    assert all(run.returncode == 0 for run in runs)
    assert hits == [0, 1]  # one compiled, one loaded
