"""What a backend provides: device buffers, kernel ports, and the completion wait.

The runtime core (guards, marshalling, results, statistics) talks to hardware only
through these three interfaces, so a backend is a small class:

* `DeviceBuffer`: a host-visible numpy array `array` the kernel reaches at
  `device_address`; `flush()` makes the CPU's writes visible to the device,
  `invalidate()` makes the device's writes visible to the CPU.
* `KernelPort`: one kernel's AXI4-Lite control slave: `write32(offset, value)`,
  `read32(offset)`, and `wait_done(timeout)`, which by default polls CTRL for
  ap_done (clear on read) and which a backend may replace (interrupts, a
  simulator's clock).
* `Backend`: `open(spec)`, `port(kernel)`, `allocate(shape, dtype)`, `close()`.
  A backend whose `executes_python` is true (the `cpu` backend) runs Python
  functions instead and needs none of the above.

The pynq backend implements them over pynq's Overlay/MMIO/allocate; a
simulation backend can implement them over an AXI4-Lite driver and a RAM model.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from .errors import KernelTimeout
from .spec import KernelSpec, Spec

CTRL = 0x00
AP_START = 1 << 0
AP_DONE = 1 << 1
AP_IDLE = 1 << 2
AP_READY = 1 << 3


class DeviceBuffer:
    """A contiguous buffer the kernel can reach. Subclasses set `array` and `device_address`."""

    array: np.ndarray
    device_address: int

    def flush(self) -> None:
        """Make the CPU's writes visible to the device (before the kernel starts)."""

    def invalidate(self) -> None:
        """Make the device's writes visible to the CPU (after the kernel is done)."""

    def free(self) -> None:
        """Give the memory back."""


class KernelPort:
    """One kernel's control registers. Subclasses implement write32/read32."""

    name = "kernel"

    def write32(self, offset: int, value: int) -> None:
        raise NotImplementedError

    def read32(self, offset: int) -> int:
        raise NotImplementedError

    def wait_done(self, timeout: float) -> int:
        """Block until the started call is done; return how many CTRL reads it took.

        ap_done is clear-on-read: the read that sees it consumes it. A read that
        shows the kernel idle with ap_start already taken also means done (someone
        else consumed ap_done); one more read then clears an ap_done latched a
        cycle later, so it cannot end the next call early.
        """
        read = self.read32
        deadline = time.perf_counter() + timeout
        polls = 0
        while True:
            ctrl = read(CTRL)
            polls += 1
            if ctrl & AP_DONE:
                return polls
            if ctrl & (AP_START | AP_IDLE) == AP_IDLE:
                read(CTRL)
                return polls + 1
            if time.perf_counter() > deadline:
                raise KernelTimeout(self.name, timeout, ctrl)

    def done_now(self) -> bool:
        """One non-blocking look at CTRL (consumes ap_done when it is set)."""
        ctrl = self.read32(CTRL)
        if ctrl & AP_DONE:
            return True
        if ctrl & (AP_START | AP_IDLE) == AP_IDLE:
            self.read32(CTRL)
            return True
        return False

    def is_idle(self) -> bool:
        """Whether the kernel is idle (reading CTRL also clears a stale ap_done)."""
        return bool(self.read32(CTRL) & AP_IDLE)


class Backend:
    """Base class of the backends (`cpu`, `pynq`, and a simulator's)."""

    name = "backend"
    executes_python = False

    def __init__(self) -> None:
        self.info: dict[str, Any] = {}

    def open(self, spec: Spec) -> None:
        """Prepare the device for these kernels (load the overlay, check the clock)."""

    def port(self, kernel: KernelSpec) -> KernelPort:
        raise NotImplementedError

    def allocate(self, shape: tuple[int, ...], dtype: np.dtype) -> DeviceBuffer:
        raise NotImplementedError

    def implementation(self, kernel: KernelSpec, function: Callable) -> Callable:
        """For backends that execute Python: what runs in place of the kernel."""
        return function

    def close(self) -> None:
        """Release the device."""


class BufferPool:
    """Device buffers reused across calls, keyed by shape and dtype.

    A call takes one buffer per array argument and gives them back when its
    results are copied out. Every CPU write to a buffer is followed by a flush
    (a new buffer is flushed once), so no dirty cache line can later overwrite
    what the kernel wrote; buffers of a call that timed out are never reused
    (the kernel may still write into them).
    """

    def __init__(self, backend: Backend):
        self.backend = backend
        self.free: dict[tuple[tuple[int, ...], str], list[DeviceBuffer]] = {}
        self.allocated = 0
        self.allocated_bytes = 0
        self.quarantined = 0

    def acquire(self, shape: tuple[int, ...], dtype: np.dtype) -> DeviceBuffer:
        stack = self.free.get((shape, dtype.str))
        if stack:
            return stack.pop()
        buf = self.backend.allocate(shape, dtype)
        # write back whatever the allocator left in the cache (e.g. zeroing): a dirty line
        # evicted later would overwrite what the kernel wrote into an output buffer
        buf.flush()
        self.allocated += 1
        self.allocated_bytes += int(buf.array.nbytes)
        return buf

    def release(self, bufs: list[DeviceBuffer]) -> None:
        for b in bufs:
            self.free.setdefault((tuple(b.array.shape), b.array.dtype.str), []).append(b)

    def quarantine(self, bufs: list[DeviceBuffer]) -> None:
        self.quarantined += len(bufs)

    def close(self) -> None:
        for stack in self.free.values():
            for b in stack:
                b.free()
        self.free.clear()
