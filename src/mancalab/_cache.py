"""Where numba keeps mancalab's compiled kernels, and what a change recompiles.

numba's cache checks only the source file of each cached function, not the files of the
functions it calls, so a changed rule kernel could leave a stale compiled search behind.
mancalab therefore keys its kernels by what they were compiled from:

- the **shared** kernel sources (every module with compiled kernels but the games' own,
  ``core.py``, whose status codes the kernels read as constants) name the folder: a change
  to one starts a fresh folder and recompiles everything;
- **a game's module** (``variants/<game>.py``, the one that sets ``GAME_ID``) keys only the
  code compiled for that game: a shared function compiled for a game's ``params`` (their
  numba type names the game, ``mancalab.params``) is filed under that game's source digest
  besides numba's own key, and one compiled for any other array (which may take the
  run-time switch over every game, ``mancalab.kernels``) under the digest of every game's
  source, a plugin's too. The game's own functions are checked by numba against their file.
  An edit to one game's module thus recompiles that game's code and the few functions
  compiled for any game, never the other games' searches. This holds because shared code
  reaches a game only through ``mancalab.kernels`` (``core.Kernels``); the only shared
  modules that import a game's module are that game's own analyses (``GAME_ANALYSES``),
  compiled for its ``params`` or for any game (tested);
- a change to the command line, the server or the page keeps every compiled kernel.

numba files a cached function under a hash of the folder its source is in, so every clone or
virtual environment would compile again. mancalab's locator (``PackageLocator``, numba's
``CACHE_LOCATOR_CLASSES`` hook) files it under its place in the package instead: the same
sources, wherever installed, find their kernels compiled (numba still checks each source
file's contents). The folder is in the user's cache (``~/.cache/mancalab/numba``), so that it
also works when the package folder is read-only; ``NUMBA_CACHE_DIR`` set by the user wins.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import re
import threading
from pathlib import Path

import numba
from numba.core.caching import UserProvidedCacheLocator

from . import warming
from .warming import SOLVER_SEARCHES

_USES_NUMBA = re.compile(rb"^(from numba\b|import numba\b)", re.MULTILINE)
PACKAGE = Path(__file__).resolve().parent
# numba's own locators after ours, for functions outside the package (and where ours fails)
LOCATORS = ("mancalab._cache.PackageLocator,UserProvidedCacheLocator,InTreeCacheLocator,"
            "UserWideCacheLocator,IPythonCacheLocator,ZipCacheLocator")


def kernel_sources() -> list[Path]:
    """The shared files that compiled code depends on (the games' own modules apart), in a
    fixed order."""
    games = set(game_sources().values())
    return [path for path in sorted(PACKAGE.rglob("*.py"))
            if path not in games and (path.parent == PACKAGE and path.name == "core.py"
                                      or path.name != "_cache.py"
                                      and _USES_NUMBA.search(path.read_bytes()))]


# shared modules that import one game's module: compiled for that game only (tested)
GAME_ANALYSES = {"analysis/research/counter.py": "urubugu", "analysis/solving/kalah.py": "kalah",
                 "analysis/solving/databases.py": "kalah",
                 "analysis/solving/oware_tables.py": "oware"}
_GAME_ID = re.compile(rb"^GAME_ID = (\d+)", re.MULTILINE)


@functools.lru_cache(maxsize=1)
def game_sources() -> dict[int, Path]:
    """mancalab's own games' modules by game id (read, not imported: the cache is set up
    before any kernel module is imported)."""
    found = {}
    for path in sorted((PACKAGE / "variants" / "rules").glob("*.py")):
        match = _GAME_ID.search(path.read_bytes())
        if match:
            found[int(match.group(1))] = path
    return found


def plugin_sources() -> list[tuple[str, bytes]]:
    """The games other packages register (``mancalab.variants``), each as its entry point
    and its module's source: the rule switch is compiled with their kernels."""
    import importlib.util
    from importlib.metadata import entry_points

    found = []
    for point in sorted(entry_points(group="mancalab.games"), key=lambda point: point.name):
        try:
            spec = importlib.util.find_spec(point.module)
            source = Path(spec.origin).read_bytes() if spec and spec.origin else b""
        except (ImportError, OSError, ValueError):
            source = b""
        found.append((f"{point.name}={point.value}", source))
    return found


@functools.lru_cache(maxsize=1)
def source_digest() -> str:
    """The digest of the shared kernel sources: the name of the folder of compiled kernels."""
    digest = hashlib.sha1(numba.__version__.encode())
    for path in kernel_sources():
        digest.update(path.relative_to(PACKAGE).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


@functools.lru_cache(maxsize=None)
def game_digest(game: int | None) -> str:
    """The digest of game ``game``'s module, or (None, or a plugin's game) of every game's,
    a plugin's too: what code compiled for that game, or for any, was compiled from."""
    sources = game_sources()
    digest = hashlib.sha1()
    if game in sources:
        digest.update(sources[game].read_bytes())
        return digest.hexdigest()[:16]
    for _, path in sorted(sources.items()):
        digest.update(path.read_bytes())
    for name, source in plugin_sources():
        digest.update(name.encode())
        digest.update(source)
    return digest.hexdigest()[:16]


def games_key(py_file: str, signature) -> tuple | None:
    """What to add to numba's cache key of a function of ``py_file`` compiled for
    ``signature``: nothing for a game's own function (numba checks its file); the games'
    digests its compiled code depends on for a shared one."""
    from .params import GameParamsType

    if _game_module(py_file):
        return None
    games = sorted({kind.game for kind in signature if isinstance(kind, GameParamsType)})
    if games:
        return tuple((game, game_digest(game)) for game in games)
    return ("any game", game_digest(None))  # may take the run-time switch over every game


@functools.lru_cache(maxsize=None)
def _game_module(py_file: str) -> bool:
    return Path(py_file).resolve() in set(game_sources().values())


GAMES = "mancalab games"  # what marks the games' part of an index key


def key_by_games() -> None:
    """File each shared function's compiled code under the games' digests too
    (``games_key``), beside numba's own key (its signature, the machine, its bytecode)."""
    from numba.core.caching import Cache

    if getattr(Cache, "_mancalab_games", False):
        return
    index_key = Cache._index_key

    def keyed(self, sig, codegen):
        key = index_key(self, sig, codegen)
        py_file = self._py_func.__code__.co_filename
        games = games_key(py_file, sig) if _in_package(py_file) else None
        return key if games is None else (*key, (GAMES, games))

    Cache._index_key = keyed
    Cache._mancalab_games = True


def _in_package(py_file: str) -> bool:
    try:
        return Path(py_file).resolve().is_relative_to(PACKAGE)
    except (OSError, ValueError):
        return False


def kernel_folder() -> Path:
    """The folder of this version's compiled kernels."""
    return Path(numba.config.CACHE_DIR or PACKAGE) / f"mancalab-{source_digest()}"


class PackageLocator(UserProvidedCacheLocator):
    """numba's locator for a cache folder, with a package function filed under its place in
    the package (``kernel_folder()/analysis/solving``), not a hash of where it is installed."""

    def __init__(self, py_func, py_file):
        super().__init__(py_func, py_file)
        relative = Path(py_file).resolve().parent.relative_to(PACKAGE)
        self._cache_path = str(kernel_folder().joinpath(*relative.parts))

    @classmethod
    def from_function(cls, py_func, py_file):
        if not numba.config.CACHE_DIR or not Path(py_file).resolve().is_relative_to(PACKAGE):
            return None
        return super().from_function(py_func, py_file)


def configure_numba_cache() -> None:
    """Compiled kernels in the user's cache folder, found by their place in the package."""
    if not os.environ.get("NUMBA_CACHE_DIR"):
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        folder = base / "mancalab" / "numba"
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            return  # numba falls back to __pycache__ next to the sources
        numba.config.CACHE_DIR = str(folder)
    numba.config.CACHE_LOCATOR_CLASSES = LOCATORS
    key_by_games()
    lock_cache_files()
    compile_once_between_processes()
    if not kernel_folder().exists():
        prune(keep=KEPT_VERSIONS - 1)
        if not os.environ.get("NUMBA_CACHE_DIR"):  # the folders of the earlier layout
            prune(keep=0, folders=Path(numba.config.CACHE_DIR).parent.glob("numba-*"))


def lock_cache_files() -> None:
    """Make numba's writes of a cached function's index and data one step between processes.

    numba saves a new compiled signature by reading the function's index, taking the first
    free data file number, writing the index, then the data, with no lock: two processes
    compiling two signatures of one function at once (a search for two games, in the
    warm-up's processes or the test workers) can both take number 1, and the index then
    names the other game's compiled code for a signature: wrong moves, or a crash. An
    exclusive lock on a file beside the index is held while a save reads and writes, a
    shared one while a load reads (numba issue 10128 proposes the same for its ufuncs).
    """
    from numba.core.caching import IndexDataCacheFile

    if getattr(IndexDataCacheFile, "_mancalab_locked", False):
        return
    save, load = IndexDataCacheFile.save, IndexDataCacheFile.load

    def locked_save(self, key, data):
        with _index_lock(self._index_path, exclusive=True):
            _forget_other_games(self, key)
            return save(self, key, data)

    def locked_load(self, key):
        with _index_lock(self._index_path, exclusive=False):
            return load(self, key)

    IndexDataCacheFile.save, IndexDataCacheFile.load = locked_save, locked_load
    IndexDataCacheFile._mancalab_locked = True


def _forget_other_games(index, key: tuple) -> None:
    """Before ``key`` is saved in ``index`` (numba's ``IndexDataCacheFile``): forget the
    entries of the same function and signature compiled from other versions of the games.
    numba forgets a function's entries when its own file changes; a shared function's
    compiled for a game that changed since stayed in its index, and their data files on
    disk, after every edit of any game."""
    if not (isinstance(key[-1], tuple) and key[-1][:1] == (GAMES,)):
        return
    entries = index._load_index()
    stale = [other for other in entries if other != key and other[:-1] == key[:-1]
             and isinstance(other[-1], tuple) and other[-1][:1] == (GAMES,)]
    if not stale:
        return
    for other in stale:
        with contextlib.suppress(OSError):
            os.remove(index._data_path(entries.pop(other)))
    index._save_index(entries)


@contextlib.contextmanager
def _index_lock(index_path: str, exclusive: bool):
    """A lock on ``index_path``'s lock file."""
    with _file_lock(index_path + ".lock", exclusive):
        yield


@contextlib.contextmanager
def _file_lock(path: str, exclusive: bool = True, wait: float | None = None):
    """An flock on ``path`` between processes, waiting at most ``wait`` seconds (None: as
    long as it takes); yields whether it is held. Not held where the system has no
    ``flock``, the folder cannot take the file or the time ran out: numba then works as it
    does alone."""
    try:
        import fcntl
        handle = open(path, "a+b")  # noqa: SIM115 - closed below
    except (ImportError, OSError):
        yield False
        return
    with handle:
        held = _flock(handle, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH, wait)
        try:
            yield held
        finally:
            if held:
                fcntl.flock(handle, fcntl.LOCK_UN)


def _flock(handle, kind: int, wait: float | None) -> bool:
    """Take ``kind`` of lock on ``handle``: whether it was taken within ``wait`` seconds."""
    import fcntl
    import time

    deadline = None if wait is None else time.monotonic() + wait
    while True:
        try:
            fcntl.flock(handle, kind if deadline is None else kind | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.02)
        except OSError:  # a file system without locks
            return False


def compile_once_between_processes() -> None:
    """Make a kernel that several processes need at once be compiled by one of them.

    Without this, each process that misses a signature in the cache compiles it: the test
    workers and the server's warm-up processes, started together, compiled the same rules and
    searches side by side, each paying the seconds on the same cores. With it, a process that
    misses takes an exclusive lock named after the function and the signature; one that finds
    the lock taken waits, then loads what the first saved. The warm-up's low-priority
    processes stay out of it (``_background_worker``): a game's own tasks, compiled again at
    the usual priority, must not wait for them.
    """
    from numba.core.compiler_lock import global_compiler_lock
    from numba.core.dispatcher import Dispatcher

    if getattr(Dispatcher, "_mancalab_compile_once", False):
        return
    compile_here = Dispatcher.compile

    def compile_once(self, sig):
        index = getattr(getattr(self._cache, "_cache_file", None), "_index_path", None)
        if index is None or not _sharing_compiles:  # not cached on disk, or kept apart
            return compile_here(self, sig)
        with global_compiler_lock:  # one compile at a time in this process, as numba does
            name = hashlib.sha1(str(sig).encode()).hexdigest()[:16]
            with _compile_lock(f"{index}.{name}.compiling"):
                return compile_here(self, sig)

    Dispatcher.compile = compile_once
    Dispatcher._mancalab_compile_once = True


_sharing_compiles = True  # False in the warm-up's low-priority processes
_HELD: set[str] = set()  # compile locks this process holds (a kernel calls itself)
COMPILE_WAIT = 300.0  # seconds to wait for another process's compile before compiling too


@contextlib.contextmanager
def _compile_lock(path: str):
    """An exclusive lock on ``path`` between processes, taken again freely in this one (held
    under numba's compiler lock, so by one thread at a time). After ``COMPILE_WAIT`` seconds
    the process goes on without it: two processes each compiling a kernel the other's calls
    would otherwise wait for each other."""
    if path in _HELD:
        yield
        return
    with _file_lock(path, wait=COMPILE_WAIT):
        _HELD.add(path)
        try:
            yield
        finally:
            _HELD.discard(path)


KEPT_VERSIONS = 3  # the kernels of the last versions compiled are kept (about 50 MB each)


def prune(keep: int, folders=None) -> None:
    """Remove the compiled kernels of other versions (``folders``, default: every version's
    folder) but the ``keep`` written last."""
    import shutil

    found = Path(numba.config.CACHE_DIR).glob("mancalab-*") if folders is None else folders
    others = sorted(found, key=lambda folder: folder.stat().st_mtime, reverse=True)
    for folder in others[keep:]:
        shutil.rmtree(folder, ignore_errors=True)


WARMED = "warmed-up"  # a file in the kernel folder: every game's rules and searches compiled


def warmed_marker() -> Path:
    """The file that says the kernel folder holds a whole warm-up of these games' sources."""
    return kernel_folder() / f"{WARMED}-{game_digest(None)}"


def is_warm() -> bool:
    """Whether a whole warm-up (every game's rules and searches) has been compiled into the
    cache from these sources (False on a first start, or after a game's edit, when compiling
    takes a while: worth a word on the screen). Some kernels in the cache are not enough:
    after one game played, or a warm-up cut short, the rest would be compiled inside the
    first moves and hints."""
    return warmed_marker().is_file()


@contextlib.contextmanager
def compiled_meanwhile(task: str | None):
    """Compile ``task`` (``compile_one``) in another process while the block runs, when its
    kernels are not in the cache yet, and wait for it at the end: on a first run the
    solver compiles while the endgame database's kernels compile and build."""
    if task is None or is_compiled(COMPILED_BY.get(task.partition(":")[0], task)):
        yield
        return
    import multiprocessing

    process = multiprocessing.get_context("spawn").Process(
        target=_compile_child, args=(task, os.getpid()), daemon=True)
    process.start()
    try:
        yield
    finally:
        process.join()


def is_compiled(prefix: str) -> bool:
    """Whether the cache holds a kernel whose file name starts with ``prefix`` (e.g.
    ``kalah._test_in``: the module's name and the function's)."""
    folder = kernel_folder()
    return folder.is_dir() and next(folder.rglob(f"{prefix}-*.nbi"), None) is not None


COMPILED_BY = {"solve": "kalah._test_in"}  # a task's kernel that says it was compiled
PLAYERS_SEARCHES = ("alphabeta", "mcts", "classic")  # every game's
SEARCHES = PLAYERS_SEARCHES + tuple(SOLVER_SEARCHES.values())
SOWING = "sowing"  # a game's traced play (``State.sowing``), a task of its own


def searches_of(game: str) -> list[str]:
    """The warm-up tasks of ``game``'s searches, each ``search:game``: a search is compiled
    once a game, with only that game's rules (``mancalab.params``)."""
    from .variants import VARIANTS

    solver = SOLVER_SEARCHES.get(VARIANTS[game].solving.method or "")
    return [f"{search}:{game}" for search in PLAYERS_SEARCHES + ((solver,) if solver else ())]


def _compile_child(task: str, parent: int) -> str:
    """``compile_one`` in a child process that ends with ``parent``."""
    from .lifetime import end_with_parent

    end_with_parent(parent)
    return compile_one(task)


def compile_one(task: str) -> str:
    """Compile (or load) one game's rules (``kalah``) or one game's search
    (``alphabeta:kalah``): a task of ``warm_up``."""
    from . import search
    from .analysis.solving import forced, kalah, repeating
    from .players import classic, mcts
    from .variants import variant

    name, _, game = task.partition(":")
    if not game:  # play, score and the rule for endless play (a player may propose to end)
        start = variant(task).start()
        state = start.play(start.legal_moves()[0])
        state.material  # noqa: B018
        if state.variant.kernels.stop is not None and not state.is_over:
            state.stopped()
        return task
    start = variant(game).start()
    if name == SOWING:  # the traced play a page animates: compiled apart, beside the rules
        start.sowing(start.legal_moves()[0])
        return task
    warm_ups = {"alphabeta": lambda: search.warm_up(start), "mcts": lambda: mcts.warm_up(start),
                "classic": lambda: classic.warm_up(start), "solve": kalah.warm_up,
                "retrograde": lambda: repeating.warm_up(game), "forced": forced.warm_up}
    warm_ups[name]()
    return task


def warm_up(games: list[str] | None = None, players: bool = True,
            on_step=None, jobs: int = 1) -> None:
    """Compile (or load from the cache) the rules of ``games`` (default: all) and, with
    ``players``, the computer players' searches, so that no first move waits for them.
    ``on_step(done, total, what)`` is told after each game's rules and each search. On a cold
    cache with ``jobs`` above 1 the compiling is shared by that many processes (each writes
    the cache), and this process then loads it all."""
    from .variants import variants

    games = list(games or variants())
    tasks = games + [f"{SOWING}:{game}" for game in games] + (
        [task for game in games for task in searches_of(game)] if players else [])
    total = len(tasks)
    shared = jobs > 1 and not is_warm()
    if shared:
        _compile_in_processes(tasks, jobs, on_step)
    for done, task in enumerate(tasks, 1):
        compile_one(task)
        if on_step and (done == total or not shared):
            on_step(done, total, task)
    if set(games) >= set(variants()) and players:
        marker = warmed_marker()
        marker.parent.mkdir(parents=True, exist_ok=True)
        for earlier in marker.parent.glob(f"{WARMED}*"):
            earlier.unlink(missing_ok=True)
        marker.touch()


class Plan:
    """The tasks a warm-up still has to compile, in order, and which are done: a game about
    to be played puts its own tasks first (``prefer``), and its search waits for them
    (``wait``) instead of compiling them a second time in the server's process."""

    def __init__(self, tasks: list[str]) -> None:
        self.pending = list(tasks)
        self.done = {task: threading.Event() for task in tasks}
        self.wanted: set[str] = set()  # asked for by a game being played
        self.lock = threading.Lock()

    def prefer(self, tasks: list[str]) -> None:
        with self.lock:
            first = [task for task in tasks if task in self.pending]
            self.pending = first + [task for task in self.pending if task not in first]
            self.wanted.update(first)

    def take(self, wanted: bool | None = None) -> str | None:
        """The next task: any (``wanted`` None), the next a game waits for (True), or the
        next no game waits for (False); None when there is none."""
        with self.lock:
            for index, task in enumerate(self.pending):
                if (wanted is None or (task in self.wanted) == wanted) and self._rules_done(task):
                    return self.pending.pop(index)
            return None

    def _rules_done(self, task: str) -> bool:
        """Whether a search's game rules are compiled (or not planned): a search started
        before would compile them a second time beside the process compiling them."""
        search, _, game = task.partition(":")
        event = self.done.get(game) if search in SEARCHES else None
        return event is None or event.is_set()

    def wait(self, tasks: list[str], timeout: float | None = None) -> None:
        for task in tasks:
            if task in self.done:
                self.done[task].wait(timeout)

    def finish(self, task: str) -> None:
        self.done[task].set()

    def finish_all(self) -> None:
        for event in self.done.values():
            event.set()




def prefer(tasks: list[str]) -> None:
    """Compile ``tasks`` (``compile_one``'s names) next in the running warm-up, if any."""
    if warming.plan is not None:
        warming.plan.prefer(tasks)


def wait_compiled(tasks: list[str], timeout: float | None = None) -> None:
    """Wait until the running warm-up has compiled ``tasks`` (at once when none runs)."""
    if warming.plan is not None:
        warming.plan.wait(tasks, timeout)


def tasks_for(player, variant, essential: bool = False) -> list[str]:
    """The warm-up tasks ``player`` needs in ``variant``, in the order they are wanted: the
    game's rules and the player's searches for that game (the perfect player's: its
    fallback's, then the game's solver). ``essential``: only those a first move must wait
    for (the perfect player plays by its fallback until its solver is compiled)."""
    game = variant.name
    needs = [SOWING] + ([player.name] if player.name in PLAYERS_SEARCHES else [])
    if player.name == "perfect":
        needs.append(player.options.get("fallback", ""))
        if not essential:
            needs.append(SOLVER_SEARCHES.get(variant.solving.method or "", "solve"))
    return [game] + [f"{search}:{game}" for search in needs if search]


def _compile_in_processes(tasks: list[str], jobs: int, on_step) -> None:
    """Compile ``tasks`` in ``jobs`` processes at a low priority, the games' rules first (a
    search waits for its game's); the tasks a game waits for (``prefer``) in ``jobs`` more
    processes at the usual priority, which therefore take the cores from the others.
    Progress: tasks done, the last one left to the loading that follows."""
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    order = sorted(tasks, key=lambda task: ":" in task)
    context = multiprocessing.get_context("spawn")
    plan = warming.plan = Plan(order)
    done = 0
    try:
        with ProcessPoolExecutor(min(jobs, len(tasks)), mp_context=context,
                                 initializer=_background_worker,
                                 initargs=(os.getpid(),)) as pool, \
                ProcessPoolExecutor(jobs, mp_context=context, initializer=_urgent_worker,
                                    initargs=(os.getpid(),)) as urgent_pool:
            for _ in range(jobs):  # started and ready before a game waits for them
                urgent_pool.submit(_imported)
            running: dict = {}  # future -> (task, whether urgent)
            while True:
                while sum(urgent for _, urgent in running.values()) < jobs and \
                        (task := plan.take(wanted=True) or _slow(running, plan)) is not None:
                    running[urgent_pool.submit(compile_one, task)] = (task, True)
                while sum(not urgent for _, urgent in running.values()) < jobs and \
                        (task := plan.take(wanted=False)) is not None:
                    running[pool.submit(compile_one, task)] = (task, False)
                if not running:
                    break
                finished, _ = wait(running, timeout=0.2, return_when=FIRST_COMPLETED)
                for future in finished:
                    what = future.result()
                    task = running.pop(future)[0]
                    if plan.done[task].is_set():
                        continue  # compiled twice (``_slow``): told once
                    plan.finish(task)
                    done += 1
                    if on_step and done < len(tasks):
                        on_step(done, len(tasks), what)
    finally:
        plan.finish_all()
        warming.plan = None


def _slow(running: dict, plan: Plan) -> str | None:
    """A task a game waits for that a low-priority process is compiling: compiled again at
    the usual priority, whichever ends first counting (each writes the same cache files)."""
    urgent = {task for task, fast in running.values() if fast}
    for task, fast in running.values():
        if not fast and task in plan.wanted and task not in urgent \
                and not plan.done[task].is_set():
            return task
    return None


BACKGROUND_NICENESS = 10  # a game's own tasks get about nine tenths of a core beside these


def _background_worker(parent: int) -> None:
    from .lifetime import end_with_parent

    global _sharing_compiles
    end_with_parent(parent)
    _sharing_compiles = False  # a kernel it holds a lock on would keep a game's process waiting
    try:
        os.nice(BACKGROUND_NICENESS)
    except OSError:
        pass


def _urgent_worker(parent: int) -> None:
    from .lifetime import end_with_parent

    end_with_parent(parent)


def _imported() -> None:
    """Import what ``compile_one`` uses (a process's start-up, paid before it is needed)."""
    from . import search  # noqa: F401
    from .analysis.solving import forced, kalah, repeating  # noqa: F401
    from .players import classic, mcts  # noqa: F401
