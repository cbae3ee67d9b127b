"""Work the app does in child processes: forked workers profiled, the rest measured.

A `multiprocessing.Pool`, a `concurrent.futures.ProcessPoolExecutor` (both fork
on Linux by default) or a bare `os.fork()` start children that inherit the
instrumented functions and the recorder. Each forked child starts its own
counts from zero (`recorder.rebase`) and writes what it recorded to the run's
scratch folder when it ends: on `os._exit` (how multiprocessing's children and
most forked children end), on normal interpreter exit, and on SIGTERM (how
`Pool.terminate`, and so `with Pool() as p:`, ends its workers). The parent
merges these into its own functions as `child_calls`/`child_s`, kept apart from
the main process's calls and times: the children ran beside the main process, so
their time is not part of its wall time.

Children the profiler cannot follow (the spawn and forkserver start methods run a
fresh interpreter; a child killed by SIGKILL writes nothing) are still counted:
the CPU time of every child the app waited for (`RUSAGE_CHILDREN`) is measured, and
what no child reported is stated beside the plan.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import json
import os
import resource
import signal
from pathlib import Path
from typing import Any

from partition.profile import recorder
from partition.profile.model import FunctionProfile

# what a child reports of each function (not its samples or globals: those are the main process's)
_KEPT = {"name", "qualname", "file", "line", "kind", "params", "arg_sigs", "return_sig", "callers",
         "ancestors", "calls", "total_s", "self_s"}  # fmt: skip

_dir: Path | None = None
_forks = 0
_cpu0 = 0.0
_state = "running"  # of this child's record: "running", "writing", "written"
_term_pending = False  # a SIGTERM came while the record was being written


def _children_cpu_s() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _count_fork() -> None:
    global _forks
    _forks += 1


def _dump() -> None:
    """Write this child's records once (the first of its exit paths to run does it)."""
    global _state
    if _state != "running" or _dir is None:
        return
    _state = "writing"
    # a SIGTERM now (Pool.terminate while this worker is ending on its own) would cut the write
    # short: it waits until the record is written (blocked here; one whose handler was already
    # due runs `_on_term`, which defers to the end of the write)
    with contextlib.suppress(ValueError, OSError):
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    try:
        with contextlib.suppress(BaseException):  # never turn a child's exit into a failure
            funcs = recorder.collect()
            data = {
                "pid": os.getpid(),
                "forks": _forks,
                "functions": {
                    n: {k: v for k, v in dataclasses.asdict(f).items() if k in _KEPT}
                    for n, f in funcs.items()
                },
            }
            tmp = _dir / f".child-{os.getpid()}.tmp"
            tmp.write_text(json.dumps(data, sort_keys=True))
            os.replace(tmp, _dir / f"child-{os.getpid()}.json")
    finally:
        _state = "written"
    if _term_pending:
        _end_by_sigterm()


def _end_by_sigterm() -> None:
    """End as SIGTERM's default action would have: the parent sees the same exit status."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTERM)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})


def _on_term(signum: int, frame: Any) -> None:
    global _term_pending
    if _state == "writing":  # the handler runs inside `_dump`: let the write finish first
        _term_pending = True
        return
    _dump()
    _end_by_sigterm()


def _after_fork_in_child() -> None:
    global _forks, _state, _term_pending
    _forks, _state, _term_pending = 0, "running", False
    recorder.rebase()
    real_exit = os._exit

    def _exit(code: int) -> None:
        _dump()
        real_exit(code)

    os._exit = _exit
    atexit.register(_dump)
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        with contextlib.suppress(ValueError):  # not the main thread of the child
            signal.signal(signal.SIGTERM, _on_term)


def install(scratch: Path) -> None:
    """Follow forked children of this (the profiled) process; their records go to `scratch`."""
    global _dir, _cpu0
    _dir = scratch
    _cpu0 = _children_cpu_s()
    os.register_at_fork(after_in_parent=_count_fork, after_in_child=_after_fork_in_child)


def gather() -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """After the run: (what the children did, or None when the app started none; the records
    the forked children wrote). Call in the main process once the app has finished."""
    assert _dir is not None
    reports = []
    for p in sorted(_dir.glob("child-*.json")):
        with contextlib.suppress(OSError, ValueError):
            reports.append(json.loads(p.read_text()))
    cpu = _children_cpu_s() - _cpu0
    processes = _forks + sum(r.get("forks", 0) for r in reports)
    if not processes and not reports and cpu < 0.001:
        return None, []
    summary = {
        "forked": processes,
        "reported": len(reports),
        "cpu_s": round(cpu, 6),
        "profiled_s": round(sum(f["total_s"] for r in reports for f in _roots(r)), 6),
    }
    return summary, reports


def _roots(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The functions a child's own code (not another profiled function) called: their inclusive
    times add up to the child's profiled time without counting nested calls twice."""
    funcs = report["functions"]
    return [f for n, f in funcs.items() if not any(c in funcs for c in f.get("callers", {}))]


def merge(functions: dict[str, FunctionProfile], reports: list[dict[str, Any]]) -> None:
    """Add the children's calls and times to `functions` as `child_calls`/`child_s`; a function
    that ran only in children enters with no calls of the main process, and with the callers
    the children saw."""
    only_in_children = set()
    for r in reports:
        for name, f in sorted(r["functions"].items()):
            fp = functions.get(name)
            if fp is None:
                fp = functions[name] = FunctionProfile(
                    **{**f, "calls": 0, "total_s": 0.0, "self_s": 0.0, "callers": {}}
                )
                only_in_children.add(name)
            if name in only_in_children:
                for caller, n in f.get("callers", {}).items():
                    fp.callers[caller] = fp.callers.get(caller, 0) + int(n)
            fp.child_calls += int(f["calls"])
            fp.child_s += float(f["total_s"])
    for name in sorted(functions):  # the profile's functions stay in name order
        functions[name] = functions.pop(name)
        functions[name].callers = dict(sorted(functions[name].callers.items()))
