"""Child processes that end with the process that started them, however it ends (``kill -9``
included): a server's background builds and compiles must not outlive it."""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import signal
import threading
import time

PR_SET_PDEATHSIG = 1  # prctl(2): the signal a process gets when its parent ends


def end_with_parent(parent: int) -> None:
    """End this process when ``parent`` ends: the kernel's parent-death signal on Linux, and
    a thread that checks each second anywhere (it also closes the gap before the signal was
    asked for). Call it first thing in a child process."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="mancalab-parent-watch", daemon=True).start()
