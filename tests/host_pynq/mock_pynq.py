"""An off-board pynq 3.1 device: the real pynq package, a real .hwh, a simulated PS and kernels.

`MockDevice` is a subclass of pynq's Device without `_probe_` (so pynq never
enumerates it by itself) that the tests make the active device:

* metadata: pynq's own RuntimeMetadataParser over the .hwh next to the .bit, so
  Overlay builds ip_dict, register maps and clock settings exactly as on a board;
* registers: capability REGISTER_RW routes every MMIO access through
  read_registers/write_registers; addresses inside a kernel's range go to its
  behavioural model, everything else (the PS's SLCR clock registers included) to
  plain memory; every access is logged;
* PS clocks: the SLCR holds a PYNQ-Z2's state (50 MHz reference, IO PLL x20 =
  1000 MHz, FCLK0 = 1000/10/1 = 100 MHz), so pynq's Clocks reads real values;
* memory: allocate returns real pynq PynqBuffers at fake device addresses above
  4 GiB, each with a separate device copy that only flush/invalidate synchronise.

Runs in the board-like venv (pynq 3.1.2, numpy < 2); it needs no partition.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from pynq.buffer import PynqBuffer
from pynq.metadata.runtime_metadata_parser import RuntimeMetadataParser
from pynq.pl_server.device import Device
from pynqmetadata.frontends import Metadata

SLCR = 0xF8000000
IO_PLL_CTRL = SLCR + 0x108
FPGA0_CLK_CTRL = SLCR + 0x170
BUFFER_BASE = 0x1_2000_0000


def fclk_ctrl(div0: int, div1: int, src: int = 0) -> int:
    return (div1 << 20) | (div0 << 8) | (src << 4)


class KernelModel:
    """An HLS control slave: CTRL (ap_start, clear-on-read ap_done, ap_idle) and argument registers.

    `compute(model)` runs when the kernel finishes; `latency` counts CTRL reads while running.
    """

    def __init__(self, compute: Callable[[KernelModel], None] | None = None, latency: int = 2):
        self.compute = compute
        self.latency = latency
        self.regs: dict[int, int] = {}
        self.running = False
        self.remaining = 0
        self.done_latch = False
        self.start_seen = False
        self.hang = False
        self.ctrl_values: list[int] = []
        self.starts = 0

    def write(self, offset: int, value: int) -> None:
        if offset == 0:
            if value & 1:
                self.running = True
                self.start_seen = True
                self.remaining = self.latency
                self.starts += 1
            return
        self.regs[offset] = value

    def read(self, offset: int) -> int:
        if offset != 0:
            return self.regs.get(offset, 0)
        value = 0
        if self.running:
            if self.start_seen:
                value |= 1
                self.start_seen = False
            elif not self.hang:
                self.remaining -= 1
                if self.remaining <= 0:
                    if self.compute is not None:
                        self.compute(self)
                    self.running = False
                    self.done_latch = True
        if not self.running:
            value |= 4
        if self.done_latch:
            value |= 2
            self.done_latch = False
        self.ctrl_values.append(value)
        return value

    def word64(self, offset: int) -> int:
        return self.regs.get(offset, 0) | (self.regs.get(offset + 4, 0) << 32)


class _Memory:
    def __init__(self, device: MockDevice):
        self.device = device

    def allocate(self, shape: Any, dtype: Any, **kwargs: Any) -> PynqBuffer:
        dev = self.device
        dev.allocations.append({"shape": tuple(np.atleast_1d(shape)), "dtype": np.dtype(dtype).str, **kwargs})
        address = dev.next_address
        bo = len(dev.bos) + 1
        buf = PynqBuffer(shape, dtype, device=dev, device_address=address, bo=bo, coherent=False)
        dev.bos[bo] = (buf, np.zeros_like(np.asarray(buf)))
        dev.by_address[address] = bo
        dev.next_address += (max(int(buf.nbytes), 8192) + 0xFFF) & ~0xFFF  # pynq 3.1: at least 8 KiB
        return buf


class MockDevice(Device):
    def __init__(self, hwh: str | Path | None = None):
        super().__init__("mock0")
        self.name = "mock"
        self.arch = "armv7l"  # pynq.ps.Clocks uses the Zynq-7000 SLCR layout
        self.capabilities = {"REGISTER_RW": True}
        self.default_memory = _Memory(self)
        self.memory: dict[int, int] = {IO_PLL_CTRL: 20 << 12, FPGA0_CLK_CTRL: fclk_ctrl(10, 1)}
        self.models: dict[int, tuple[int, KernelModel]] = {}  # base address -> (range, model)
        self.log: list[tuple[str, int, int]] = []  # ("w"|"r", address, value)
        self.bos: dict[int, tuple[PynqBuffer, np.ndarray]] = {}
        self.by_address: dict[int, int] = {}
        self.next_address = BUFFER_BASE
        self.allocations: list[dict[str, Any]] = []
        self.syncs: list[tuple[str, int]] = []  # ("flush"|"invalidate", bo)
        self.downloads = 0
        self.timestamp = ""
        self.bitfile_name = ""

    # ------------------------------------------------------------ pynq Device API

    def get_bitfile_metadata(self, bitfile_name: str, partial: bool = False) -> Any:
        return RuntimeMetadataParser(Metadata(input=str(Path(bitfile_name).with_suffix(".hwh"))))

    def download(self, bitstream: Any, parser: Any = None) -> None:
        self.downloads += 1
        self.post_download(bitstream, parser)

    def _model_at(self, address: int) -> tuple[KernelModel, int] | None:
        for base, (size, model) in self.models.items():
            if base <= address < base + size:
                return model, address - base
        return None

    def read_registers(self, address: int, length: int) -> bytes:
        hit = self._model_at(address)
        value = hit[0].read(hit[1]) if hit else self.memory.get(address, 0)
        self.log.append(("r", address, value))
        return struct.pack("<I", value & 0xFFFFFFFF)[:length]

    def write_registers(self, address: int, data: bytes) -> None:
        data = bytes(data) + b"\0" * (-len(data) % 4)
        for i in range(0, len(data), 4):
            value = struct.unpack("<I", data[i : i + 4])[0]
            self.log.append(("w", address + i, value))
            hit = self._model_at(address + i)
            if hit:
                hit[0].write(hit[1], value)
            else:
                self.memory[address + i] = value

    def flush(self, bo: int, offset: int, ptr: int, size: int) -> None:
        self.syncs.append(("flush", bo))
        buf, device_copy = self.bos[bo]
        device_copy[...] = np.asarray(buf)

    def invalidate(self, bo: int, offset: int, ptr: int, size: int) -> None:
        self.syncs.append(("invalidate", bo))
        buf, device_copy = self.bos[bo]
        np.asarray(buf)[...] = device_copy

    def close(self) -> None:
        pass

    # ------------------------------------------------------------ test helpers

    def add_model(self, base: int, size: int, model: KernelModel) -> KernelModel:
        self.models[base] = (size, model)
        return model

    def device_array(self, address: int) -> np.ndarray:
        """The device copy of the buffer at `address` (what the PL sees)."""
        return self.bos[self.by_address[address]][1]

    def fclk0_divisors(self) -> tuple[int, int]:
        v = self.memory[FPGA0_CLK_CTRL]
        return (v >> 8) & 0x3F, (v >> 20) & 0x3F


def install(hwh: str | Path | None = None) -> MockDevice:
    """Make a MockDevice pynq's active device."""
    from pynq.ps import Clocks

    dev = MockDevice(hwh)
    Device.active_device = dev
    if "_real_instance" in vars(Clocks):
        del Clocks._real_instance  # pynq caches the first device's clock registers
    return dev
