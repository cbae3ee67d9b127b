"""The `sim` backend: the kernels as RTL in a simulator, driven through cocotb (co-simulation).

The unmodified app runs in a thread that a cocotb test starts with cocotb's `bridge`;
every register access and every wait for a kernel hands control back to the simulator
through cocotb's `resume`, so the app's blocking calls become simulated clock cycles.
Everything else — guards, buffers, marshalling, copies, statistics — is the runtime's
own code, exactly as on the board.

Memory is one byte array that every kernel's AXI RAM model shares: device buffers are
4 KB-aligned windows of it; `flush` copies the host array into it and `invalidate`
copies it back, as a cache flush and invalidate make the two views agree on the board.

This module is only imported inside the simulator process (it needs cocotb).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import numpy as np

from .device import CTRL, Backend, DeviceBuffer, KernelPort
from .errors import BackendError, KernelTimeout
from .spec import KernelSpec, Spec

GIE, IER, ISR = 0x04, 0x08, 0x0C


class SimMemory:
    """The shared memory of the RAM models, with a bump allocator of 4 KB-aligned windows."""

    def __init__(
        self, read: Callable[[int, int], bytes], write: Callable[[int, bytes], None], base: int, size: int
    ):
        self.read = read
        self.write = write
        self.next = base
        self.end = base + size

    def allocate(self, nbytes: int) -> int:
        addr = self.next
        self.next += (max(nbytes, 1) + 4095) // 4096 * 4096 + 4096  # a guard page between buffers
        if self.next > self.end:
            raise BackendError(f"sim backend: the simulated memory ({self.end:#x} bytes) is full")
        return addr


class SimBuffer(DeviceBuffer):
    def __init__(self, memory: SimMemory, shape: tuple[int, ...], dtype: np.dtype):
        self.memory = memory
        self.array = np.zeros(shape, dtype=dtype)
        self.device_address = memory.allocate(self.array.nbytes)

    def flush(self) -> None:
        self.memory.write(self.device_address, self.array.tobytes())

    def invalidate(self) -> None:
        raw = self.memory.read(self.device_address, self.array.nbytes)
        self.array[...] = np.frombuffer(raw, dtype=self.array.dtype).reshape(self.array.shape)


class SimKernel:
    """What the testbench gives for one kernel: coroutine functions driving its control slave."""

    def __init__(
        self,
        write: Callable[[int, int], Awaitable[None]],
        read: Callable[[int], Awaitable[int]],
        wait_interrupt: Callable[[int], Awaitable[bool]],
        cycle_budget: int,
    ):
        self.write = write
        self.read = read
        self.wait_interrupt = wait_interrupt  # (max cycles) -> whether the interrupt line rose
        self.cycle_budget = cycle_budget


class SimPort(KernelPort):
    def __init__(self, name: str, sim: SimKernel, resume: Callable[[Callable], Callable]):
        self.name = name
        self.sim = sim
        self._write = resume(sim.write)
        self._read = resume(sim.read)
        self._wait = resume(sim.wait_interrupt)
        # completion arrives as the done interrupt, so waiting costs no simulated polling
        self._write(IER, 1)
        self._write(GIE, 1)

    def write32(self, offset: int, value: int) -> None:
        self._write(offset, value & 0xFFFFFFFF)

    def read32(self, offset: int) -> int:
        return int(self._read(offset))

    def wait_done(self, timeout: float) -> int:
        if not self._wait(self.sim.cycle_budget):
            raise KernelTimeout(self.name, timeout, self.read32(CTRL))
        self.write32(ISR, 1)  # toggle-on-write: clear the done interrupt
        return super().wait_done(timeout)  # then the runtime's own CTRL polling (ap_done clear-on-read)


class SimBackend(Backend):
    """Kernels in simulation; `kernels` maps kernel name -> SimKernel (from the testbench)."""

    name = "sim"

    def __init__(
        self, kernels: dict[str, SimKernel], memory: SimMemory, resume: Callable[[Callable], Callable]
    ):
        super().__init__()
        self.kernels = kernels
        self.memory = memory
        self.resume = resume

    def open(self, spec: Spec) -> None:
        missing = sorted(k.name for k in spec.kernels if k.name not in self.kernels)
        if missing:
            raise BackendError(f"sim backend: no simulated kernel for {', '.join(missing)}")
        self.info["backend"] = "sim (the built-in RTL in a simulator, through cocotb)"

    def port(self, kernel: KernelSpec) -> KernelPort:
        return SimPort(kernel.name, self.kernels[kernel.name], self.resume)

    def allocate(self, shape: tuple[int, ...], dtype: np.dtype) -> DeviceBuffer:
        return SimBuffer(self.memory, tuple(shape), np.dtype(dtype))

    def close(self) -> None:
        pass


def cpu_for(spec: Spec, available: set[str]) -> list[str]:
    """Kernels of the spec with no simulated RTL (they run on the CPU in co-simulation)."""
    return sorted(k.task for k in spec.kernels if k.name not in available)


__all__: list[Any] = ["SimBackend", "SimKernel", "SimMemory", "cpu_for"]
