"""The processes partition starts end with it: tools' children included.

`subprocess` ends the child it started when partition is interrupted, but not that child's
own children: Ctrl-C or SIGTERM while Verilator's `make` runs left the `c++` compilers it
had started running on, reparented to init. Partition therefore makes itself the reaper of
its descendants' orphans (Linux's PR_SET_CHILD_SUBREAPER), so a killed tool's children stay
below it, and on an interrupt ends every process below it (`end_descendants`): SIGTERM, a
short grace, then SIGKILL. Elsewhere than Linux both do nothing.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import time
from pathlib import Path

PR_SET_CHILD_SUBREAPER = 36  # linux/prctl.h


def adopt_orphans(on: bool = True) -> None:
    """Make this process the parent of its descendants' orphans, or (`on` False) stop (Linux;
    elsewhere nothing)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0)


# multiprocessing's resource tracker ignores SIGTERM and ends by itself when partition does;
# killed, it is relaunched and complains
SPARED = "multiprocessing.resource_tracker"


def descendants(root: int | None = None) -> list[int]:
    """Every process below `root` (default: this one), from /proc; [] where there is none."""
    root = os.getpid() if root is None else root
    children: dict[int, list[int]] = {}
    try:
        entries = [e.name for e in os.scandir("/proc") if e.name.isdigit()]
    except OSError:
        return []
    for name in entries:
        try:
            stat = Path(f"/proc/{name}/stat").read_text()
        except OSError:  # ended meanwhile
            continue
        fields = stat.rsplit(")", 1)[-1].split()  # (the command name may hold spaces and parentheses)
        if len(fields) > 1 and fields[1].isdigit():
            children.setdefault(int(fields[1]), []).append(int(name))
    out: list[int] = []
    todo = [root]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def _reap() -> None:
    with contextlib.suppress(ChildProcessError, OSError):
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _below() -> list[int]:
    return [p for p in descendants() if _alive(p) and SPARED not in _cmdline(p)]


def end_descendants(grace_s: float = 1.0, *, at_once: bool = False) -> None:
    """SIGTERM every process below this one, SIGKILL those still running after `grace_s`
    (`at_once`: SIGKILL straight away, for processes that would only print their ending).
    The processes are listed again before each signal (only what is still below this process
    is signalled, and what started meanwhile is included)."""
    for sig in (signal.SIGKILL,) if at_once else (signal.SIGTERM, signal.SIGKILL):
        deadline = time.monotonic() + grace_s
        while True:
            pids = _below()
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, sig)
            _reap()
            if not pids or time.monotonic() > deadline:
                break
            time.sleep(0.05)
            _reap()
            if not _below():
                return
