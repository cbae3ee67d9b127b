"""Running the app's functions again after the run (replay): a time limit that the app's own
`except Exception` cannot swallow, and a sandbox that discards output, gives no input and
works in a scratch directory. Shared by local ranges and edge vectors.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import sys
import threading
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np

from partition.fsutil import scratch_dir


class Timeout(BaseException):
    """Raised by the alarm; a BaseException so the app's `except Exception` cannot swallow it."""


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if not usable:
        yield
        return

    def _alarm(_sig: int, _frame: Any) -> None:
        raise Timeout()

    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.001))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


class _Null(io.TextIOBase):
    def write(self, s: str) -> int:
        return len(s)


@contextlib.contextmanager
def quiet_sandbox() -> Iterator[None]:
    """Discard output, give no input, run in a scratch directory, silence numpy warnings."""
    cwd = os.getcwd()
    saved = sys.stdin
    with scratch_dir("replay") as scratch:
        try:
            os.chdir(scratch)
            sys.stdin = io.StringIO("")
            with (
                contextlib.redirect_stdout(_Null()),
                contextlib.redirect_stderr(_Null()),
                warnings.catch_warnings(),
                np.errstate(all="ignore"),
            ):
                warnings.simplefilter("ignore")
                yield
        finally:
            sys.stdin = saved
            os.chdir(cwd)
