"""The profile stage as the tool calls it: check the app, run it in child processes, read the result.

The app runs in a separate interpreter (`partition.profile.runner`) so that it
gets a clean `__main__`, its own `sys.exit`, threads and signal handlers, and
cannot disturb the tool. The child writes its outcome to a temporary JSON
file; the app's stdin is this process's (`AppInput`), its stdout and stderr are
captured here (stdout is passed through with `echo`), and the app's traceback is
shown when it fails.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any

import partition
from partition.errors import AppFailed, PartitionError
from partition.fsutil import scratch_dir, sweep_scratch
from partition.profile.model import Profile

_ROOT = Path(partition.__file__).resolve().parent.parent


def check_app(app: Path) -> None:
    """The app exists and compiles (a syntax error is the user's to fix, with its line)."""
    if not app.is_file():
        what = "is a folder" if app.is_dir() else "no such file"
        raise PartitionError(f"{app}: {what}; give the path of the Python app to profile")
    try:
        source = app.read_bytes()
    except OSError as e:
        raise PartitionError(f"{app}: cannot read the app ({e.strerror})") from e
    try:
        compile(source, str(app), "exec", dont_inherit=True)
    except SyntaxError as e:
        raise PartitionError(f"{app}:{e.lineno}: syntax error: {e.msg}; fix the app and run again") from None
    except ValueError as e:  # e.g. null bytes
        raise PartitionError(f"{app}: not a Python source file ({e})") from None


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    saved = env.get("PYTHONPATH", "")
    env["PARTITION_RUNNER_PYTHONPATH"] = saved
    env["PYTHONPATH"] = str(_ROOT) + (os.pathsep + saved if saved else "")
    env["PYTHONSAFEPATH"] = "1"  # do not put the working directory on the runner's path
    return env


def _pump(src: IO[bytes], sink: list[bytes] | None, echo: bool) -> None:
    for chunk in iter(lambda: src.readline(), b""):
        if sink is not None:
            sink.append(chunk)
        if echo:
            sys.stdout.write(chunk.decode(errors="replace"))
            sys.stdout.flush()


class AppInput:
    """This process's stdin, handed to the app's runs. The first run reads it as it arrives (from
    a terminal or a pipe, as when the app runs by itself); what that run was given is recorded
    and given again to the later runs (the plain run that measures the profiler's overhead), so
    every run sees the same input. Without a readable stdin the app reads end-of-file."""

    def __init__(self) -> None:
        self.seen: list[bytes] = []
        self.live = True  # the first run reads stdin itself; the others get `seen`

    def feed(self, dst: IO[bytes]) -> threading.Thread:
        live, self.live = self.live, False
        t = threading.Thread(target=self._forward if live else self._replay, args=(dst,), daemon=True)
        t.start()
        return t

    def _forward(self, dst: IO[bytes]) -> None:
        try:
            src = sys.stdin.buffer
            read = getattr(src, "read1", src.readline)
            while chunk := read(65536):
                self.seen.append(chunk)
                dst.write(chunk)
                dst.flush()
        except (OSError, ValueError, AttributeError):  # no readable stdin, or the app is gone
            pass
        finally:
            _close(dst)

    def _replay(self, dst: IO[bytes]) -> None:
        try:
            dst.write(b"".join(self.seen))
        except (OSError, ValueError):
            pass
        finally:
            _close(dst)


def _close(f: IO[bytes]) -> None:
    with contextlib.suppress(OSError, ValueError):
        f.close()


def _run_child(
    args: list[str], cwd: Path, echo: bool, app: Path, stdin: AppInput, timeout: float | None = None
) -> dict[str, Any]:
    with scratch_dir("profile") as td:
        out = Path(td) / "result.json"
        cmd = [sys.executable, "-m", "partition.profile.runner", args[0], str(out), *args[1:]]
        proc = subprocess.Popen(
            cmd,
            cwd=cwd,
            env=_child_env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        stdin.feed(proc.stdin)  # type: ignore[arg-type]
        stderr: list[bytes] = []  # shown when the app fails; its stdout is passed through or dropped
        pumps = [
            threading.Thread(target=_pump, args=(proc.stdout, None, echo), daemon=True),
            threading.Thread(target=_pump, args=(proc.stderr, stderr, False), daemon=True),
        ]
        for t in pumps:
            t.start()
        try:
            status = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise PartitionError(
                f"{app.name}: the app did not finish within {timeout:g} s (--app-timeout) and was stopped; "
                "an app that runs until it is stopped (a polling main loop) can be planned from a part of "
                "its run: --profile-for SECONDS; or give a longer --app-timeout"
            ) from None
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        for t in pumps:
            t.join()
        result = None
        if out.exists():
            try:
                result = json.loads(out.read_text())
            except (OSError, ValueError):
                result = None
    if result is not None and result.get("status") == "ok" and status == 0:
        return result
    if result is not None and result.get("status") == "internal-error":
        raise RuntimeError(f"the profiler failed after {app.name} ran:\n{result['traceback']}")
    sys.stderr.write(b"".join(stderr).decode(errors="replace"))
    sys.stderr.flush()
    if result is None and status == 0:
        raise PartitionError(
            f"{app.name}: the app ended without returning to Python (os._exit?); cannot profile it"
        )
    if result is not None and "exit" in result:
        status = result["exit"]
    hint = ""
    if b"EOFError" in b"".join(stderr[-20:]):
        hint = (
            "; it reached the end of its standard input, which partition passes through: give the app its "
            f"input as when running it alone, e.g. partition plan {app.name} ... < input.txt"
        )
    raise AppFailed(f"{app.name}: the app failed (exit status {status}); its error output is above{hint}")


def run_profile(
    app: Path,
    argv: list[str],
    *,
    samples: int = 3,
    baseline: bool = True,
    cwd: Path | None = None,
    echo: bool = False,
    replay: bool = True,
    app_timeout: float | None = None,
    profile_for: float | None = None,
) -> Profile:
    """Profile `app` run with `argv` in `cwd` (default: the current directory).

    The instrumented run gives the profile; with `baseline`, a second plain run
    of the app gives `plain_wall_s`, so the profiler's overhead is known.
    `replay=False` skips replaying the sampled calls after the run (no
    `local_ranges`, no edge-case vectors): quicker, for looking at times only.
    `app_timeout`: a run of the app that takes longer is stopped, an error. `profile_for`:
    the app is stopped after that many seconds and the profile is what it did until then
    (`stopped_after_s`; no plain run: the overhead of a cut run means nothing).
    """
    app = Path(app)
    check_app(app)
    run_dir = Path(cwd) if cwd is not None else Path.cwd()
    if not run_dir.is_dir():
        raise PartitionError(f"{run_dir}: working directory for the app does not exist")
    if samples < 0:
        raise PartitionError(f"samples must be >= 0, not {samples}")
    app_abs = app.resolve()
    argv = [str(a) for a in argv]
    for name, v in (("--app-timeout", app_timeout), ("--profile-for", profile_for)):
        if v is not None and not v > 0:
            raise PartitionError(f"{name} {v:g}: give a positive number of seconds")
    mode = (
        f"profile:{samples}"
        + ("" if replay else ":noreplay")
        + (f":for={profile_for!r}" if profile_for else "")
    )
    sweep_scratch()
    stdin = AppInput()
    result = _run_child([mode, str(app_abs), *argv], run_dir, echo, app, stdin, app_timeout)
    profile = Profile.from_json(result["profile"], source=f"{app.name} profile")
    profile.argv = argv
    if baseline and profile.stopped_after_s is None:
        plain = _run_child(["plain", str(app_abs), *argv], run_dir, False, app, stdin, app_timeout)
        profile.plain_wall_s = float(plain["wall_s"])
    return profile
