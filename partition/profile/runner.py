"""The profiled process: `python -m partition.profile.runner MODE OUT APP [ARG...]`.

MODE is `profile:SAMPLES` (instrumented run keeping SAMPLES calls per
function, then the replay and the host benchmark; `profile:SAMPLES:noreplay`
skips the replay, `:for=S` stops the app after S seconds) or `plain` (the app as it is, for the overhead baseline).
Both run the app the way `python APP ARG...` would (module `__main__`,
`sys.argv = [APP, ARG...]`, `sys.path[0]` = the app's directory) and time only
the app itself: the interpreter start-up and this module's imports (numpy
included) happen before the clock starts, in both modes alike, so the two
times compare.

The outcome goes to the JSON file OUT: {"status": "ok", ...} with the profile;
{"status": "failed", "exit": N} after the app's own traceback was printed on
stderr (the process exits with the app's status); or {"status":
"internal-error", "traceback": ...} when the profiler itself failed.
"""

from __future__ import annotations

import builtins
import contextlib
import ctypes
import os
import platform
import signal
import sys
import threading
import time
import traceback
import types
from pathlib import Path
from typing import Any

import numpy as np

import partition
from partition.profile import bench, calibration, children, recorder, replay
from partition.profile.instrument import WRAP_NAME, LocalFinder, LocalModules, NameRegistry, instrument_source
from partition.profile.model import Profile, dump_json

INTERNAL_ERROR = 70  # exit status when the profiler itself fails after the app succeeded

# Our own environment additions must not leak into processes the app starts.
_ENV_SAVED = "PARTITION_RUNNER_PYTHONPATH"


def _restore_environment() -> None:
    os.environ.pop("PYTHONSAFEPATH", None)
    if _ENV_SAVED in os.environ:
        saved = os.environ.pop(_ENV_SAVED)
        if saved:
            os.environ["PYTHONPATH"] = saved
        else:
            os.environ.pop("PYTHONPATH", None)


def _exit_status(e: SystemExit) -> int:
    code = e.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _join_threads() -> None:
    """Wait for the app's non-daemon threads, as the interpreter would at exit: first the
    callbacks it runs then (concurrent.futures shuts its executors down there, so a process
    pool left open does not wait forever), then multiprocessing's exit work (a Pool left open
    ends its workers, which then write what they recorded)."""
    for call in reversed(getattr(threading, "_threading_atexits", [])):
        with contextlib.suppress(Exception):
            call()
    mp_util = sys.modules.get("multiprocessing.util")
    if mp_util is not None:
        with contextlib.suppress(Exception):
            mp_util._exit_function()
    for t in threading.enumerate():
        if t is not threading.main_thread() and not t.daemon:
            t.join()


def _end_as_python_would(status: int) -> None:
    """End a forked child of the app's that left the app's code: its atexit handlers, its
    streams flushed, then the exit (which writes what it recorded)."""
    import atexit

    with contextlib.suppress(BaseException):
        atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(status)


def _print_app_traceback(e: BaseException) -> None:
    """The app's traceback as Python would print it, without the profiler's own frames."""
    ours = str(Path(partition.__file__).resolve().parent)
    te = traceback.TracebackException(type(e), e, e.__traceback__)
    seen: set[int] = set()
    todo = [te]
    while todo:
        t = todo.pop()
        if id(t) in seen:
            continue
        seen.add(id(t))
        kept = [f for f in t.stack if not str(Path(f.filename).resolve()).startswith(ours)]
        t.stack = traceback.StackSummary.from_list(kept)
        todo.extend(x for x in (t.__cause__, t.__context__) if x is not None)
    sys.stderr.write("".join(te.format()))
    sys.stderr.flush()


class ProfileTimeUp(BaseException):  # raised in the app like SystemExit: not an error
    """Raised in the app's main thread when --profile-for's time is up."""


def _stop_after(seconds: float) -> threading.Timer:
    """A timer that raises ProfileTimeUp in the main thread after `seconds` (at its next bytecode:
    a call blocked in C returns first). A BaseException, so an app's `except Exception` (or its
    own SIGINT handler) does not swallow it."""
    main_id = threading.main_thread().ident

    def fire() -> None:
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(main_id), ctypes.py_object(ProfileTimeUp))

    t = threading.Timer(seconds, fire)
    t.daemon = True
    t.start()
    return t


def run_app(
    code: types.CodeType, app: Path, argv: list[str], stop_after: float | None = None
) -> tuple[int, float, BaseException | None]:
    """Execute the compiled app as __main__; returns (exit status, seconds, uncaught exception).
    With `stop_after` the app is stopped after that many seconds, which counts as success."""
    module = types.ModuleType("__main__")
    module.__file__ = str(app)
    module.__builtins__ = builtins  # type: ignore[attr-defined]
    module.__loader__ = None
    module.__spec__ = None
    module.__package__ = None
    module.__cached__ = None  # type: ignore[attr-defined]
    sys.modules["__main__"] = module  # and it stays: the replay runs the app's functions afterwards
    # as `python APP`: argv[0] as a user in this directory would type it, __file__ absolute
    sys.argv = [os.path.relpath(app, os.getcwd()), *argv]
    sys.path.insert(0, str(app.parent))
    status, error = 0, None
    timer = _stop_after(stop_after) if stop_after is not None else None
    t0 = time.perf_counter()
    try:
        exec(code, module.__dict__)
    except SystemExit as e:
        status = _exit_status(e)
    except ProfileTimeUp:
        pass
    except BaseException as e:  # the app's own failure, reported as such
        status, error = 1, e
    if timer is not None:
        timer.cancel()
    with contextlib.suppress(BaseException):  # a second Ctrl-C while joining: stop waiting
        _join_threads()
    seconds = time.perf_counter() - t0
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # the app may have closed or replaced its streams
            stream.flush()
    return status, seconds, error


def _bench() -> dict[str, Any]:
    figures = bench.measure()
    return {"bench_ns": figures["interp"].ns, "bench": {k: f.to_json() for k, f in figures.items()}}


def _host() -> dict[str, Any]:
    return {
        "machine": platform.machine(),
        "system": platform.system(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        **_bench(),
        "board": os.environ.get("PARTITION_BOARD") or None,
    }


def _write(out: Path, data: dict[str, Any]) -> None:
    tmp = out.with_suffix(".tmp")
    tmp.write_text(dump_json(data))
    os.replace(tmp, out)


def main_profile(
    out: Path,
    app: Path,
    argv: list[str],
    samples: int,
    do_replay: bool = True,
    stop_after: float | None = None,
) -> int:
    app_dir = app.parent
    registry = NameRegistry()
    local = LocalModules(app_dir, [Path(sys.prefix), Path(sys.base_prefix), Path(sys.exec_prefix),
                                   Path(partition.__file__).parent, Path(os.__file__).parent])  # fmt: skip

    def compile_instrumented(source: bytes, path: str, module: str, relfile: str) -> types.CodeType:
        tree, infos = instrument_source(source, path, module, relfile, registry.claim)
        for f in infos:
            recorder.register(f.name, f.qualname, f.file, f.line, f.kind)
        return compile(tree, path, "exec", dont_inherit=True)

    main_pid = os.getpid()
    calibration.calibrate()
    recorder.reset(samples)
    setattr(builtins, WRAP_NAME, recorder.wrap)
    code = compile_instrumented(app.read_bytes(), str(app), "", app.name)
    finder = LocalFinder(local, compile_instrumented)
    finder.install()
    children.install(out.parent)
    recorder.start()
    status, seconds, error = run_app(code, app, argv, stop_after)
    recorder.stop()
    if error is not None:
        _print_app_traceback(error)
    if os.getpid() != main_pid:  # a forked child of the app's that returned into this code:
        _end_as_python_would(status)  # it ends here, as its interpreter would
    forked, reports = children.gather()  # (before the replay, whose own children are not the app's)
    if status != 0:
        _write(out, {"status": "failed", "exit": status})
        return status
    try:
        functions = recorder.collect()
        edges = recorder.edges()
        if do_replay:
            replay.replay(recorder.tasks(), functions)
        children.merge(functions, reports)
        profile = Profile(
            app=app.name,
            argv=list(argv),
            host=_host(),
            wall_s=seconds,
            plain_wall_s=None,
            functions=functions,
            edges=edges,
            stopped_after_s=stop_after if stop_after is not None and seconds >= stop_after else None,
            children=forked,
        )
        _write(out, {"status": "ok", "profile": profile.to_json()})
    except Exception:  # a bug of the profiler's, not the app's: say so
        _write(out, {"status": "internal-error", "traceback": traceback.format_exc()})
        return INTERNAL_ERROR
    return 0


def main_plain(out: Path, app: Path, argv: list[str]) -> int:
    code = compile(app.read_bytes(), str(app), "exec", dont_inherit=True)
    status, seconds, error = run_app(code, app, argv)
    if error is not None:
        _print_app_traceback(error)
    if status != 0:
        _write(out, {"status": "failed", "exit": status})
        return status
    _write(out, {"status": "ok", "wall_s": seconds})
    return 0


PR_SET_PDEATHSIG = 1  # linux/prctl.h


def _die_with_parent() -> None:
    """Ask Linux to kill this process (the app) when partition dies, even by SIGKILL, so no app
    is left running reparented to init. Elsewhere, or without prctl, nothing happens."""
    parent = os.getppid()
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # partition died before the request took effect
        os._exit(1)


def main(args: list[str]) -> int:
    _die_with_parent()
    _restore_environment()
    sys.dont_write_bytecode = True  # leave no __pycache__ in the user's tree
    mode, out, app, *argv = args
    out_path = Path(out).resolve()
    app_path = Path(app).resolve()
    if mode == "plain":
        return main_plain(out_path, app_path, argv)
    if mode.startswith("profile:"):
        _, samples, *flags = mode.split(":")
        stop = next((float(f[4:]) for f in flags if f.startswith("for=")), None)
        return main_profile(out_path, app_path, argv, int(samples), "noreplay" not in flags, stop)
    raise SystemExit(f"partition.profile.runner: unknown mode {mode!r}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
