"""A call in flight (`CallHandle`) and a producer's result streaming into its consumer
(`StreamedResult`): what `AcceleratedKernel` hands out (kernel.py says how they are used)."""

from __future__ import annotations

import weakref
from typing import Any

from .device import DeviceBuffer
from .errors import CallError

# the kernel a handle belongs to is an AcceleratedKernel (kernel.py); typed loosely here so
# that this module does not import the one that imports it
KernelRef = Any


class CallHandle:
    """A call in flight. `wait()` returns the function's result (or raises its error)."""

    def __init__(self, kernel: KernelRef):
        self._kernel = kernel
        self._finished = False
        self._result: Any = None
        self._error: BaseException | None = None
        self._done_seen = False
        # set by the device path
        self._upstream: list[CallHandle] = []  # producers streaming into this call (chains)
        self._token: StreamedResult | None = None  # a producer's call: the result it streams
        self._fell_back = False  # a producer whose kernel handed its call back
        self._args: tuple = ()
        self._bufs: list[DeviceBuffer] = []
        self._borrowed: list[bool] = []  # per buffer: a lent result, not the pool's
        self._ref: tuple | None = None
        self._t_started = 0.0
        # a method's call (methodcall.py): its object, and the call as the app made it
        self._self: Any = None
        self._orig: tuple[tuple, dict] | None = None

    @property
    def task(self) -> str:
        return self._kernel.spec.task

    def done(self) -> bool:
        """Whether wait() would return at once (one look at the kernel, no blocking)."""
        if self._finished or self._done_seen:
            return True
        if self._kernel._pending is not self:
            return True
        if self._kernel.port.done_now():
            self._done_seen = True
            return True
        return False

    def wait(self, timeout: float | None = None) -> Any:
        if not self._finished:
            self._kernel._finish(self, timeout)
        if self._error is not None:
            raise self._error
        return self._result

    def _complete(self, result: Any) -> CallHandle:
        self._finished = True
        self._result = result
        return self


class StreamedResult:
    """A producer's call whose result streams into the consumer kernel (see the module docstring).

    It holds the call's arguments and the device buffers its inputs were copied
    into; `launch` starts the producer on them (from the consumer's call), and
    `materialise` computes the result on the CPU instead.
    """

    def __init__(self, kernel: KernelRef, args: tuple, bufs: list, ref: tuple | None):
        self.kernel = kernel
        self.args = args
        self.bufs = bufs
        self.ref = ref
        self.used = False
        pool = kernel.runtime.pool
        self._release = weakref.finalize(self, pool.release, bufs)  # dropped unused: buffers back

    def __repr__(self) -> str:
        to = self.kernel.spec.stream_to
        return (
            f"<result of {self.kernel.spec.task}, streaming into {to[0] if to else '?'} (AXI-Stream chain)>"
        )

    def _take(self) -> None:
        """Mark the result used (it feeds one call); its buffers now belong to that use."""
        if self.used:
            raise CallError(f"{self!r} was used already; a streamed result feeds one call")
        self.used = True
        self._release.detach()

    def launch(self) -> list[CallHandle]:
        """Start the producer (and, first, whatever streams into it); its handles, producers first."""
        self._take()
        return self.kernel._launch_streamed(self)

    def materialise(self) -> Any:
        """The result computed by the producer's Python function on the captured inputs."""
        self._take()
        return self.kernel._materialise(self)

    def reference(self) -> Any:
        """--check: the Python function's result on the reference copies of the inputs."""
        fn = self.kernel.function
        if fn is None or self.ref is None:
            raise CallError(f"task {self.kernel.spec.task}: --check needs the Python function bound")
        return fn(*(a.reference() if isinstance(a, StreamedResult) else a for a in self.ref))


def materialised(values: tuple) -> tuple:
    return tuple(v.materialise() if isinstance(v, StreamedResult) else v for v in values)
