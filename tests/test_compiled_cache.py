"""The compiled cache: named after the kernels' sources, filled by several processes at once."""

from mancalab import _cache


def test_the_cache_is_named_after_the_kernel_sources_only():
    names = {path.name for path in _cache.kernel_sources()}
    assert {"core.py", "kernels.py"} <= names
    assert not names & {"cli.py", "app.py", "terminal.py", "records.py"}
    assert _cache.source_digest() == _cache.source_digest()


def test_compiling_is_shared_by_processes_and_told_as_it_goes(monkeypatch):
    told = []
    monkeypatch.setattr(_cache, "is_warm", lambda: False)  # as on a first start
    _cache.warm_up(["kalah", "gabata"], players=False,
                   on_step=lambda done, total, what: told.append((done, total, what)), jobs=2)
    # the processes' steps as they end (the last is the loading here), then ready
    assert [done for done, _, _ in told] == [1, 2] and told[-1][:2] == (2, 2)
    assert {what for _, _, what in told} <= {"kalah", "gabata"}


def test_a_kernel_is_compiled_meanwhile_only_when_the_cache_lacks_it(monkeypatch):
    from mancalab.analysis.solving import kalah

    kalah.warm_up()
    assert _cache.is_compiled("kalah.test") and not _cache.is_compiled("kalah.no_such_kernel")
    started = []
    monkeypatch.setattr("multiprocessing.context.SpawnProcess.start",
                        lambda process: started.append(process))
    monkeypatch.setattr("multiprocessing.context.SpawnProcess.join", lambda process: None)
    with _cache.compiled_meanwhile("solve"):
        pass
    with _cache.compiled_meanwhile(None):
        pass
    assert started == []  # in the cache already: nothing started
    monkeypatch.setattr(_cache, "is_compiled", lambda prefix: False)
    with _cache.compiled_meanwhile("solve"):
        pass
    assert len(started) == 1 and started[0]._args == ("solve",)
