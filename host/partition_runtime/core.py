"""The runtime: the accelerated tasks of one build tree on one backend (`Runtime`), the
backends by name (`make_backend`), and the results lent to the app (device buffers handed
over as arrays, which come back to the pool when the app drops them).

What one accelerated call does is in kernel.py.
"""

from __future__ import annotations

import contextlib
import functools
import sys
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from .device import Backend, BufferPool, DeviceBuffer
from .errors import BackendError, CallError, KernelTimeout
from .kernel import AcceleratedKernel, CallHandle
from .report import format_report
from .spec import Spec, load_spec

DEFAULT_TIMEOUT_S = 10.0
LEND_BYTES = 64 << 20  # results lent to the app at a time (PYNQ-Z2's CMA pool is 128 MiB)


BACKENDS = {
    "cpu": ("partition_runtime.cpu_backend", "CpuBackend"),
    "pynq": ("partition_runtime.pynq_backend", "PynqBackend"),
}


def make_backend(name: str, **options: Any) -> Backend:
    """A backend by name (`cpu`, `pynq`); a simulator passes its own Backend instance instead."""
    import importlib

    try:
        module, cls = BACKENDS[name]
    except KeyError:
        raise BackendError(f"unknown backend {name!r}; choose one of {', '.join(sorted(BACKENDS))}") from None
    return getattr(importlib.import_module(module), cls)(**options)


class Runtime:
    """The accelerated tasks of one build tree, on one backend.

    backend    "cpu", "pynq" or a Backend instance
    spec_path  the build tree's host/<app>_kernels.json
    overlay    the .bit to load (pynq; default: the spec's overlay/<app>.bit)
    functions  {task: original Python function}; more can be bound with accelerate()
    timeout    seconds to wait for ap_done by default
    check      also run every accelerated call on the CPU and compare
    """

    def __init__(
        self,
        backend: str | Backend,
        spec_path: str | Path,
        overlay: str | Path | None = None,
        functions: dict[str, Callable] | None = None,
        timeout: float = DEFAULT_TIMEOUT_S,
        check: bool = False,
        log: TextIO | None = None,
        lend_bytes: int = LEND_BYTES,
        **backend_options: Any,
    ):
        self.spec: Spec = load_spec(spec_path)
        self.lend_bytes = int(lend_bytes)
        self.lent_now = 0  # bytes lent to the app right now
        self._lent: dict[int, tuple[weakref.ref, DeviceBuffer]] = {}  # id(view) -> (view, buffer)
        self._lent_ids: set[int] = set()  # id(buffer) of lent buffers
        self._spoiled: set[int] = set()  # id(buffer): lent buffers of a call that timed out
        self._closed = False
        self.timeout = float(timeout)
        self.check = bool(check)
        self._log = log
        if isinstance(backend, str):
            if overlay is not None:
                backend_options["overlay"] = overlay
            backend = make_backend(backend, **backend_options)
        elif backend_options or overlay is not None:
            raise BackendError("backend options are given to the Backend instance, not to Runtime")
        self.backend: Backend = backend
        self.backend.open(self.spec)
        self.pool = BufferPool(self.backend)
        self.kernels: dict[str, AcceleratedKernel] = {}
        self.functions: dict[str, Callable] = {}
        for ks in self.spec.kernels:
            ak = AcceleratedKernel(self, ks)
            if not self.backend.executes_python:
                ak.open_port()
            self.kernels[ks.task] = ak
        for task, fn in (functions or {}).items():
            self.accelerate(task, fn)

    # ------------------------------------------------------------------ API

    def accelerate(self, task: str, function: Callable) -> Callable:
        """The accelerated version of `function` (the original Python code of `task`)."""
        ak = self.kernel(task)
        ak.bind(function)

        @functools.wraps(function)
        def accelerated(*args: Any, **kwargs: Any) -> Any:
            return ak.start(*args, **kwargs).wait()

        accelerated.start = ak.start  # type: ignore[attr-defined]
        accelerated.kernel = ak  # type: ignore[attr-defined]
        accelerated.original = function  # type: ignore[attr-defined]
        self.functions[task] = accelerated
        return accelerated

    def kernel(self, task: str) -> AcceleratedKernel:
        self.spec.kernel(task)  # a clear error for unknown tasks
        return self.kernels[task]

    def start(self, task: str, *args: Any, **kwargs: Any) -> CallHandle:
        return self.kernel(task).start(*args, **kwargs)

    def __getitem__(self, task: str) -> Callable:
        try:
            return self.functions[task]
        except KeyError:
            self.spec.kernel(task)
            raise CallError(f"task {task!r} has no Python function bound yet; use accelerate()") from None

    @property
    def tasks(self) -> list[str]:
        return self.spec.tasks

    @property
    def mismatches(self) -> int:
        return sum(k.stats.mismatches for k in self.kernels.values())

    def stats(self) -> dict[str, dict[str, Any]]:
        return {task: k.stats.to_json() for task, k in self.kernels.items()}

    def report(self) -> str:
        return format_report(self.backend, self.kernels)

    def close(self) -> None:
        for k in self.kernels.values():
            with contextlib.suppress(KernelTimeout):
                k.wait_pending()
        self.pool.close()
        self.backend.close()
        self._closed = True  # results still lent keep their buffers until the app drops them

    # ------------------------------------------------------------ lent results

    def can_lend(self, buf: DeviceBuffer) -> bool:
        return self.lent_now + int(buf.array.nbytes) <= self.lend_bytes

    def lend(self, buf: DeviceBuffer) -> np.ndarray:
        """The result the app gets: a plain ndarray view of the buffer, which comes back when it dies."""
        view = buf.array.view(np.ndarray)
        key = id(view)
        self._lent[key] = (weakref.ref(view), buf)
        self._lent_ids.add(id(buf))
        self.lent_now += int(buf.array.nbytes)
        fin = weakref.finalize(view, self._give_back, key, buf)
        fin.atexit = False  # the process is ending: nothing to give back to
        return view

    def _give_back(self, key: int, buf: DeviceBuffer) -> None:
        self._lent.pop(key, None)
        self._lent_ids.discard(id(buf))
        self.lent_now -= int(buf.array.nbytes)
        if id(buf) in self._spoiled:  # a kernel that timed out may still write into it
            self._spoiled.discard(id(buf))
            return
        if self._closed:
            buf.free()
            return
        buf.flush()  # the app may have written into it: no dirty line may outlive the loan
        self.pool.release([buf])

    def lent_buffer(self, value: Any, shape: tuple[int, ...], dtype: np.dtype) -> DeviceBuffer | None:
        """The device buffer behind `value` when it is a lent result of that shape and dtype."""
        entry = self._lent.get(id(value))
        if entry is None or entry[0]() is not value:
            return None
        buf = entry[1]
        if tuple(buf.array.shape) != tuple(shape) or buf.array.dtype != dtype:
            return None
        return buf

    def quarantine(self, bufs: list[DeviceBuffer], borrowed: list[bool]) -> None:
        """Buffers of a call that timed out: never reused (the kernel may still write into them)."""
        self.pool.quarantine([b for b, lent in zip(bufs, borrowed) if not lent])
        for b, lent in zip(bufs, borrowed):
            if lent:
                self._spoiled.add(id(b))

    def __enter__(self) -> Runtime:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def say(self, text: str) -> None:
        """A message of the runtime's, on its log (default: stderr)."""
        print(f"partition_runtime: {text}", file=self._log if self._log is not None else sys.stderr)
