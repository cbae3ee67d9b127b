"""A Python call with a time limit, for the calls the profile never sees.

An unseen call may pass a Python int of 2**62 as a loop bound, or make an int of a billion
digits (`x ** y`): Python then computes for hours, inside C code that no signal interrupts.
Such a call runs in a forked child that the parent kills when the limit passes; its result
comes back pickled, or None (it took too long, raised, or could not be pickled).
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def call_bounded(work: Callable[[], T], limit_s: float) -> T | None:
    """work() computed in a forked child within `limit_s` seconds, or None."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: compute, send, leave without running the parent's cleanup
        code = 1
        try:
            os.close(read)
            data = pickle.dumps(work())
            with os.fdopen(write, "wb") as f:
                f.write(data)
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    chunks: list[bytes] = []
    deadline = time.monotonic() + limit_s
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([read], [], [], left)[0]:
                os.kill(pid, signal.SIGKILL)
                return None
            chunk = os.read(read, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(read)
        _, status = os.waitpid(pid, 0)
    if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
        return None
    return pickle.loads(b"".join(chunks))
