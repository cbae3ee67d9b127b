"""Progress of long steps (profiling, solving, generating, simulating, synthesizing) on stderr.

A stage announces a step and, when it knows how much there is to do, how far
it got; the reporter decides what the user sees:

    from partition.report import progress

    with progress.step("simulating", total=len(kernels)) as s:
        for k in kernels:
            s.update(detail=k)          # what is running now
            run_one(k)
            s.advance()                 # one more done

On a terminal (stderr is a TTY) the current step is one live line, redrawn ten
times a second: a spinner or a bar, the count, the detail and the elapsed time;
when the step ends it becomes "✓ label  2.96 s" (or "✗ … failed after …").
Anything else printed meanwhile (an app's traceback) goes above the live line,
never through it. Elsewhere (a log, CI) every step prints one plain line when it
ends well, "partition: label: 2.96 s", so logs stay clean (a step that fails
leaves the word to the error message that follows), and a step still running
after HEARTBEAT_S says so every HEARTBEAT_S ("partition: profiling app.py: still
running, 20.0 s"), so a log shows a long run is alive. Quiet prints nothing.

The command line installs a reporter with `use`; without one (library use,
tests) steps are silent, so stages can always announce them.
"""

from __future__ import annotations

import itertools
import shutil
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
BAR_WIDTH = 20
INTERVAL_S = 0.1
HEARTBEAT_S = 10.0  # off a terminal: a line this often while a step runs


def _fmt_elapsed(s: float) -> str:
    if s < 60:
        return f"{s:.2f} s" if s < 10 else f"{s:.1f} s"
    m, s = divmod(int(s), 60)
    return f"{m}:{s:02d} min"


class Step:
    """One running step: what a stage reports about it."""

    def __init__(self, reporter: Reporter, label: str, total: int | None):
        self.label = label
        self.total = total
        self.done = 0
        self.detail = ""
        self.started = time.perf_counter()
        self._reporter = reporter

    def advance(self, n: int = 1, detail: str | None = None) -> None:
        """n more units done (and optionally what runs now)."""
        self.done += n
        if detail is not None:
            self.detail = detail
        self._reporter._changed()

    def update(self, done: int | None = None, detail: str | None = None) -> None:
        """Set the count of units done and/or what runs now."""
        if done is not None:
            self.done = done
        if detail is not None:
            self.detail = detail
        self._reporter._changed()

    @property
    def elapsed_s(self) -> float:
        return time.perf_counter() - self.started

    def line(self, frame: int) -> str:
        """The live line of this step."""
        parts = []
        if self.total:
            frac = max(0.0, min(1.0, self.done / self.total))
            full = round(frac * BAR_WIDTH)
            parts.append("[" + "█" * full + "░" * (BAR_WIDTH - full) + f"] {self.done}/{self.total}")
        else:
            parts.append(SPINNER[frame % len(SPINNER)])
        parts.append(self.label)
        if self.detail:
            parts.append(f"· {self.detail}")
        parts.append(f" {_fmt_elapsed(self.elapsed_s)}")
        return " ".join(parts)

    def summary(self) -> str:
        """How the step ended, for its final line."""
        count = f" ({self.done}/{self.total})" if self.total else ""
        return f"{self.label}{count}"


class _Guard:
    """A stream that prints above the live line: clear it, write, redraw it after a complete line."""

    def __init__(self, stream: TextIO, reporter: Reporter):
        self._stream = stream
        self._reporter = reporter

    def write(self, text: str) -> int:
        with self._reporter._lock:
            self._reporter._clear()
            n = self._stream.write(text)
            self._stream.flush()
            if text.endswith("\n"):
                self._reporter._dirty_line = False
                self._reporter._draw()
            else:
                self._reporter._dirty_line = True
            return n

    def flush(self) -> None:
        self._stream.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class Reporter:
    """Shows steps on `stream` (default: stderr): live on a TTY, one line per step elsewhere, or not at all."""

    def __init__(self, stream: TextIO | None = None, *, quiet: bool = False, tty: bool | None = None):
        self.stream = stream if stream is not None else sys.stderr
        self.quiet = quiet
        self.tty = bool(self.stream.isatty()) if tty is None else tty
        self._steps: list[Step] = []
        self._lock = threading.RLock()
        self._frame = itertools.count()
        self._shown = False  # a live line is on screen
        self._dirty_line = False  # someone wrote a partial line: do not draw over it
        self._ticker: threading.Thread | None = None
        self._stop = threading.Event()
        self._saved: tuple[Any, Any] | None = None

    # ---- what stages call

    @contextmanager
    def step(self, label: str, total: int | None = None) -> Iterator[Step]:
        s = Step(self, label, total)
        self._begin(s)
        ok = False
        try:
            yield s
            ok = True
        finally:
            self._end(s, ok)

    # ---- display

    def _width(self) -> int:
        return max(20, shutil.get_terminal_size((100, 24)).columns - 1)

    def _clear(self) -> None:
        if self._shown:
            self.stream.write("\r\x1b[K")
            self._shown = False

    def _draw(self) -> None:
        if not self._steps or self._dirty_line:
            return
        text = self._steps[-1].line(next(self._frame))
        width = self._width()
        if len(text) > width:
            text = text[: width - 1] + "…"
        self.stream.write("\r" + text + "\x1b[K")
        self.stream.flush()
        self._shown = True
        self._dirty_line = False

    def _changed(self) -> None:
        if self.tty and not self.quiet:
            with self._lock:
                self._clear()
                self._draw()

    def _tick(self) -> None:
        while not self._stop.wait(INTERVAL_S):
            with self._lock:
                self._clear()
                self._draw()

    def _heartbeat(self) -> None:
        while not self._stop.wait(HEARTBEAT_S):
            with self._lock:
                if self._steps:
                    s = self._steps[-1]
                    count = f" ({s.done}/{s.total})" if s.total else ""
                    self.stream.write(
                        f"partition: {s.label}{count}: still running, {_fmt_elapsed(s.elapsed_s)}\n"
                    )
                    self.stream.flush()

    def _begin(self, s: Step) -> None:
        if self.quiet:
            self._steps.append(s)
            return
        with self._lock:
            self._steps.append(s)
            if not self.tty:
                if self._ticker is None:
                    self._stop.clear()
                    self._ticker = threading.Thread(
                        target=self._heartbeat, name="partition-progress", daemon=True
                    )
                    self._ticker.start()
                return
            if self._ticker is None:
                # whatever else reaches the terminal meanwhile goes above the live line
                self._saved = (sys.stdout, sys.stderr)
                sys.stderr = _Guard(sys.stderr, self)
                if sys.stdout.isatty():
                    sys.stdout = _Guard(sys.stdout, self)
                self._stop.clear()
                self._ticker = threading.Thread(target=self._tick, name="partition-progress", daemon=True)
                self._ticker.start()
            self._clear()
            self._draw()

    def _end(self, s: Step, ok: bool) -> None:
        with self._lock:
            self._steps.remove(s)
            if self.quiet:
                return
            took = _fmt_elapsed(s.elapsed_s)
            if not self.tty:
                if ok:  # a failure is told by the error that follows, which starts the output
                    self.stream.write(f"partition: {s.summary()}: {took}\n")
                    self.stream.flush()
                if self._steps:
                    return
            else:
                self._clear()
                if self._dirty_line:
                    self.stream.write("\n")
                    self._dirty_line = False
                mark = "✓" if ok else "✗"
                status = took if ok else f"failed after {took}"
                self.stream.write(f"{mark} {s.summary()}  {status}\n")
                self.stream.flush()
                if self._steps:
                    self._draw()
                    return
        # the last step ended: stop the ticker and give the streams back
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
            self._ticker = None
        if self._saved is not None:
            sys.stdout, sys.stderr = self._saved
            self._saved = None


_current = Reporter(quiet=True)


def current() -> Reporter:
    """The reporter in use (a silent one unless the command line installed another)."""
    return _current


@contextmanager
def use(reporter: Reporter) -> Iterator[Reporter]:
    """Show steps with `reporter` inside the block."""
    global _current
    saved = _current
    _current = reporter
    try:
        yield reporter
    finally:
        _current = saved


def step(label: str, total: int | None = None):
    """A step of the reporter in use: `with progress.step("solving"): ...`."""
    return _current.step(label, total)
